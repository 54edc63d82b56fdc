"""Pooling: the kernels of src/nn/pool behind max/avg pooling (1d-3d),
adaptive and fractional max pooling, max_unpool and lp_pool.

Values and indices against NumPy references written here (loops over
windows with PyTorch's padding, ceil_mode and divisor rules) over dtypes,
dims, options, unbatched, empty-batch, non-contiguous and channels-last
inputs; gradients and second derivatives by finite differences, for the
forward ops and the backward ops on their own; PyTorch's recorded values
for edge cases (tests/golden/nn_pool, scripts/golden_pool.py); errors; and
the kernels on the fake device."""
import itertools
import json
import math
import os

import numpy as np
import pytest

import torchlike as T
import torchlike.nn as nn
import torchlike.nn.functional as F
from torchlike.autograd import gradcheck, gradgradcheck

from oracle import golden_eval
from nn_fake_device import run_on_fake_device
from oracle import golden_calls

# the derivatives gradchecked here (tests/test_grad_registry.py reads this)
GRADCHECKED = {"_max_pool", "_adaptive_max_pool", "_fractional_max_pool", "_max_pool_backward",
               "_max_unpool", "_avg_pool", "_avg_pool_backward", "_adaptive_avg_pool",
               "_adaptive_avg_pool_backward"}

TOL = {T.float64: 1e-12, T.float32: 2e-6, T.float16: 2e-3, T.bfloat16: 1.6e-2}


def to_numpy(t):
    return t.float().cpu().numpy() if t.dtype in (T.float16, T.bfloat16) else t.cpu().numpy()


def out_len(size, k, s, p, d, ceil_mode):
    num = size + 2 * p - d * (k - 1) - 1
    out = (-(-num // s) if ceil_mode else num // s) + 1
    if ceil_mode and (out - 1) * s >= size + p:
        out -= 1
    return out


def np_max_pool(x, k, s, p, d, ceil_mode):
    """(B..., *sp) -> values, flat indices; first maximum wins, NaN wins."""
    n = len(k)
    sp = x.shape[-n:]
    outs = [out_len(sz, kk, ss, pp, dd, ceil_mode) for sz, kk, ss, pp, dd in zip(sp, k, s, p, d)]
    lead = x.shape[:-n]
    flat = x.reshape((-1,) + sp)
    vals = np.zeros((flat.shape[0],) + tuple(outs), x.dtype)
    idx = np.zeros((flat.shape[0],) + tuple(outs), np.int64)
    for b in range(flat.shape[0]):
        for o in itertools.product(*[range(v) for v in outs]):
            best, at = None, -1
            for q in itertools.product(*[range(kk) for kk in k]):
                pos = [oo * ss - pp + qq * dd for oo, ss, pp, qq, dd in zip(o, s, p, q, d)]
                if any(v < 0 or v >= sz for v, sz in zip(pos, sp)):
                    continue
                v = flat[(b,) + tuple(pos)]
                if at < 0 or v > best or np.isnan(v):
                    best, at = v, int(np.ravel_multi_index(pos, sp))
            vals[(b,) + o], idx[(b,) + o] = best, at
    return vals.reshape(lead + tuple(outs)), idx.reshape(lead + tuple(outs))


def np_avg_pool(x, k, s, p, ceil_mode, count_include_pad, divisor=None):
    n = len(k)
    sp = x.shape[-n:]
    outs = [out_len(sz, kk, ss, pp, 1, ceil_mode) for sz, kk, ss, pp in zip(sp, k, s, p)]
    flat = x.reshape((-1,) + sp).astype(np.float64)
    res = np.zeros((flat.shape[0],) + tuple(outs))
    for o in itertools.product(*[range(v) for v in outs]):
        lo = [oo * ss - pp for oo, ss, pp in zip(o, s, p)]
        hi = [min(l + kk, sz + pp) for l, kk, sz, pp in zip(lo, k, sp, p)]
        size = math.prod(h - l for l, h in zip(lo, hi))
        clo = [max(l, 0) for l in lo]
        chi = [min(h, sz) for h, sz in zip(hi, sp)]
        if not count_include_pad:
            size = math.prod(h - l for l, h in zip(clo, chi))
        region = flat[(slice(None),) + tuple(slice(a, b) for a, b in zip(clo, chi))]
        total = region.reshape(flat.shape[0], -1).sum(1)
        res[(slice(None),) + o] = total / (divisor or size) if region.size else 0
    return res.reshape(x.shape[:-n] + tuple(outs))


def adaptive_ranges(size, out):
    return [(i * size // out, -(-(i + 1) * size // out)) for i in range(out)]


def np_adaptive(x, outs, kind):
    n = len(outs)
    sp = x.shape[-n:]
    flat = x.reshape((-1,) + sp).astype(np.float64)
    vals = np.zeros((flat.shape[0],) + tuple(outs))
    idx = np.zeros((flat.shape[0],) + tuple(outs), np.int64)
    for o in itertools.product(*[range(v) for v in outs]):
        rng = [adaptive_ranges(sz, ov)[oo] for sz, ov, oo in zip(sp, outs, o)]
        region = flat[(slice(None),) + tuple(slice(a, b) for a, b in rng)].reshape(
            flat.shape[0], -1)
        if kind == "avg":
            vals[(slice(None),) + o] = region.mean(1)
            continue
        arg = region.argmax(1)
        vals[(slice(None),) + o] = region.max(1)
        local = np.unravel_index(arg, [b - a for a, b in rng])
        glob = [loc + a for loc, (a, _) in zip(local, rng)]
        idx[(slice(None),) + o] = np.ravel_multi_index(glob, sp)
    lead = x.shape[:-n]
    return vals.reshape(lead + tuple(outs)), idx.reshape(lead + tuple(outs))


def rand(shape, dtype=T.float64, seed=0):
    return T.tensor(np.random.default_rng(seed).standard_normal(shape), dtype=dtype)


MAX_CASES = [  # shape, kernel, stride, padding, dilation, ceil_mode
    ((2, 3, 9), (3,), (2,), (1,), (1,), False),
    ((2, 3, 10), (3,), (2,), (0,), (2,), True),
    ((1, 2, 7, 8), (3, 3), (2, 2), (1, 1), (1, 1), False),
    ((2, 2, 7, 8), (2, 3), (2, 2), (1, 0), (1, 2), True),
    ((2, 5, 6), (2, 2), (2, 1), (0, 1), (1, 1), True),          # unbatched (C, H, W)
    ((1, 2, 5, 6, 7), (2, 3, 2), (2, 2, 1), (1, 1, 0), (1, 1, 2), False),
    ((1, 1, 5, 5, 5), (3, 3, 3), (2, 2, 2), (1, 1, 1), (1, 1, 1), True),
]


@pytest.mark.parametrize("dtype", list(TOL))
@pytest.mark.parametrize("shape,k,s,p,d,ceil", MAX_CASES)
def test_max_pool_values_and_indices_match_numpy(shape, k, s, p, d, ceil, dtype):
    x = rand(shape, dtype)
    fn = [F.max_pool1d, F.max_pool2d, F.max_pool3d][len(k) - 1]
    v, i = fn(x, k, s, p, d, ceil_mode=ceil, return_indices=True)
    rv, ri = np_max_pool(to_numpy(x), k, s, p, d, ceil)
    assert v.dtype == dtype and i.dtype == T.int64 and v.shape == rv.shape
    np.testing.assert_array_equal(to_numpy(v), rv)
    np.testing.assert_array_equal(i.cpu().numpy(), ri)
    np.testing.assert_array_equal(to_numpy(fn(x, k, s, p, d, ceil_mode=ceil)), rv)


INT_DTYPES = [T.uint8, T.int8, T.int16, T.int32, T.int64]


def int_values(shape, dtype, seed=0):
    """Ties, the dtype's extremes, and int64 values apart in their last bits
    only (float32 or float64 work would merge them)."""
    info = np.iinfo(dtype.name)
    pool = [info.min, info.min + 1, -1 if info.min else 2, 0, info.max - 1, info.max]
    if dtype == T.int64:
        pool += [2**62, 2**62 + 1, 2**53 + 1]
    rng = np.random.default_rng(seed)
    return np.array(pool, np.int64)[rng.integers(0, len(pool), shape)].astype(dtype.name)


@pytest.mark.parametrize("dtype", INT_DTYPES)
@pytest.mark.parametrize("shape,k,s,p,d,ceil", MAX_CASES)
def test_integer_max_pool_is_exact(shape, k, s, p, d, ceil, dtype):
    # PyTorch's CPU max pooling takes integers; max_pool1d only with indices
    a = int_values(shape, dtype)
    x = T.from_numpy(a.copy())
    fn = [F.max_pool1d, F.max_pool2d, F.max_pool3d][len(k) - 1]
    v, i = fn(x, k, s, p, d, ceil_mode=ceil, return_indices=True)
    rv, ri = np_max_pool(a, k, s, p, d, ceil)
    assert v.dtype == dtype and i.dtype == T.int64
    np.testing.assert_array_equal(v.cpu().numpy(), rv)
    np.testing.assert_array_equal(i.cpu().numpy(), ri)
    if len(k) > 1:
        np.testing.assert_array_equal(fn(x, k, s, p, d, ceil_mode=ceil).cpu().numpy(), rv)


def test_integer_max_pool_long_rows_and_strided_input():
    # the vectorised interior of long rows, and a transposed (strided) input
    a = int_values((2, 3, 9, 83), T.int64, seed=4)
    for x, ref in ((T.from_numpy(a.copy()), a),
                   (T.from_numpy(a.copy()).transpose(2, 3), a.transpose(0, 1, 3, 2))):
        v, i = F.max_pool2d(x, (3, 2), (1, 2), (1, 1), (1, 2), ceil_mode=True,
                            return_indices=True)
        rv, ri = np_max_pool(ref, (3, 2), (1, 2), (1, 1), (1, 2), True)
        np.testing.assert_array_equal(v.cpu().numpy(), rv)
        np.testing.assert_array_equal(i.cpu().numpy(), ri)


POOL_INT, _golden_pool_int = golden_calls("pool_int")


@pytest.mark.parametrize("call,expected", POOL_INT, ids=[c for c, _ in POOL_INT])
def test_integer_pooling_matches_pytorch(call, expected):
    """Which max pooling ops take which dtypes, values and indices, and the
    refusals word for word (tests/golden/pool_int.json)."""
    # the recorded inputs come from from_numpy (the host); with a device as
    # the default device they go there, beside what the calls make themselves
    env = {k: v.to(T.get_default_device()) if isinstance(v, T.Tensor) else v
           for k, v in _golden_pool_int.inputs(T).items()}
    if expected[0] == "raises":
        with pytest.raises(Exception) as e:
            eval(call, env)
        assert type(e.value).__name__ == expected[1], (call, str(e.value))
        assert str(e.value) == expected[2], call
        return
    assert _golden_pool_int.describe(eval(call, env)) == expected, call


INT_RESAMPLE, _golden_int_resample = golden_calls("int_resample")


@pytest.mark.parametrize("call,expected", INT_RESAMPLE, ids=[c for c, _ in INT_RESAMPLE])
def test_integer_averaging_and_resampling_match_pytorch(call, expected):
    """int64 average pooling (truncating division, wrapping sums) and uint8
    interpolation (PyTorch's fixed point for bilinear/bicubic) bit for bit,
    and the refusals of other dtypes (tests/golden/int_resample.json).  An
    interpolation refusal names a kernel that depends on PyTorch's code path,
    so only its type and the dtype are compared there."""
    env = _golden_int_resample.inputs(T)
    if expected[0] == "raises":
        with pytest.raises(Exception) as e:
            eval(call, env)
        assert type(e.value).__name__ == expected[1], (call, str(e.value))
        if "interpolate" in call:
            assert expected[2].split(" for ")[-1] in str(e.value), (call, str(e.value))
        else:
            assert str(e.value) == expected[2], call
        return
    assert _golden_int_resample.describe(eval(call, env)) == expected, call


AVG_SHAPES = [((2, 3, 11), (4,), (3,), (2,)), ((2, 2, 7, 8), (3, 3), (2, 2), (1, 1)),
              ((3, 7, 6), (3, 2), (2, 3), (1, 1)), ((1, 2, 5, 6, 7), (2, 3, 2), (2, 2, 1), (1, 1, 0))]
AVG_OPTIONS = [(False, True, None), (True, True, None), (True, False, None), (False, False, 5),
               (True, True, 2)]
# avg_pool1d has no divisor_override (PyTorch's signature)
AVG_CASES = [c + o for c in AVG_SHAPES for o in AVG_OPTIONS if len(c[1]) > 1 or o[2] is None]


@pytest.mark.parametrize("dtype", list(TOL))
@pytest.mark.parametrize("shape,k,s,p,ceil,cip,div", AVG_CASES)
def test_avg_pool_matches_numpy(shape, k, s, p, ceil, cip, div, dtype):
    x = rand(shape, dtype)
    fn = [F.avg_pool1d, F.avg_pool2d, F.avg_pool3d][len(k) - 1]
    args = (x, k, s, p, ceil, cip) + ((div,) if len(k) > 1 else ())
    y = fn(*args)
    ref = np_avg_pool(to_numpy(x), k, s, p, ceil, cip, div)
    assert y.dtype == dtype and y.shape == ref.shape
    np.testing.assert_allclose(to_numpy(y), ref, rtol=TOL[dtype], atol=TOL[dtype] * 4)


@pytest.mark.parametrize("dtype", [T.float64, T.float32, T.bfloat16])
@pytest.mark.parametrize("shape,outs", [((2, 3, 10), (4,)), ((2, 3, 7), (7,)),
                                        ((2, 3, 7, 9), (4, 3)), ((3, 5, 5), (2, 4)),
                                        ((2, 2, 7, 9), (1, 1)), ((1, 2, 5, 6, 7), (3, 2, 4)),
                                        ((2, 3, 4, 5), (9, 11)), ((3, 2, 3, 4, 5), (1, 1, 1)),
                                        ((4, 300), (1,))])
def test_adaptive_pools_match_numpy(shape, outs, dtype):
    x = rand(shape, dtype)
    n = len(outs)
    avg = [F.adaptive_avg_pool1d, F.adaptive_avg_pool2d, F.adaptive_avg_pool3d][n - 1]
    mx = [F.adaptive_max_pool1d, F.adaptive_max_pool2d, F.adaptive_max_pool3d][n - 1]
    ra, _ = np_adaptive(to_numpy(x), outs, "avg")
    rm, ri = np_adaptive(to_numpy(x), outs, "max")
    np.testing.assert_allclose(to_numpy(avg(x, outs)), ra, rtol=TOL[dtype], atol=TOL[dtype])
    v, i = mx(x, outs, return_indices=True)
    np.testing.assert_array_equal(to_numpy(v), rm)
    np.testing.assert_array_equal(i.cpu().numpy(), ri)


def test_adaptive_output_size_none_keeps_the_input_size():
    x = rand((2, 3, 5, 6))
    y = F.adaptive_avg_pool2d(x, (None, 2))
    np.testing.assert_allclose(y.cpu().numpy(), np_adaptive(x.cpu().numpy(), (5, 2), "avg")[0], rtol=1e-12)


def test_non_contiguous_and_channels_last_inputs():
    base = rand((2, 8, 9, 3))
    x = base.permute(0, 3, 1, 2)  # channels-last memory, (N, C, H, W) shape
    assert not x.is_contiguous()
    xs = rand((2, 3, 14, 9))[:, :, ::2, :]
    for t in (x, xs):
        a = t.cpu().numpy()
        np.testing.assert_array_equal(F.max_pool2d(t, 3, 2, 1).cpu().numpy(),
                                      np_max_pool(a, (3, 3), (2, 2), (1, 1), (1, 1), False)[0])
        np.testing.assert_allclose(F.avg_pool2d(t, 2, 1).cpu().numpy(),
                                   np_avg_pool(a, (2, 2), (1, 1), (0, 0), False, True),
                                   rtol=1e-12)
        np.testing.assert_allclose(F.adaptive_avg_pool2d(t, 3).cpu().numpy(),
                                   np_adaptive(a, (3, 3), "avg")[0], rtol=1e-12)


def test_empty_batch_gives_empty_results_and_gradients():
    x = T.zeros((0, 3, 8, 8), requires_grad=True)
    for y in (F.max_pool2d(x, 2), F.avg_pool2d(x, 3, 2, 1), F.adaptive_avg_pool2d(x, 3),
              F.adaptive_max_pool2d(x, 3), F.lp_pool2d(x, 2, 2)):
        assert y.shape[0] == 0 and y.shape[1] == 3
        y.sum().backward()
        assert x.grad.shape == x.shape


@pytest.mark.parametrize("dtype", [T.float32, T.float64])
@pytest.mark.parametrize("k,s,p,d,ceil", [((2, 2), (2, 2), (0, 0), (1, 1), False),
                                          ((3, 3), (1, 2), (1, 1), (1, 2), True),
                                          ((2, 3), (2, 3), (1, 1), (1, 1), True)])
def test_max_pool_long_rows_with_ties_and_nans_match_numpy(k, s, p, d, ceil, dtype):
    # rows of 40+ outputs run the vectorised interior with a tail; rounding to
    # halves makes ties (the first in tap order wins), the NaNs must win too
    rng = np.random.default_rng(3)
    a = np.round(rng.standard_normal((2, 3, 9, 83)) * 2) / 2
    a[rng.random(a.shape) < 0.02] = np.nan
    x = T.tensor(a, dtype=dtype)
    v, i = F.max_pool2d(x, k, s, p, d, ceil_mode=ceil, return_indices=True)
    rv, ri = np_max_pool(to_numpy(x), k, s, p, d, ceil)
    np.testing.assert_array_equal(to_numpy(v), rv)
    np.testing.assert_array_equal(i.cpu().numpy(), ri)


def test_nan_wins_the_max_and_its_index():
    x = T.tensor([[[1.0, float("nan"), 3.0, 2.0, float("-inf"), float("-inf")]]])
    v, i = F.max_pool1d(x, 2, return_indices=True)
    assert np.isnan(v.cpu().numpy()[0, 0, 0]) and i.tolist() == [[[1, 2, 4]]]
    assert v.cpu().numpy()[0, 0, 2] == -np.inf


def test_max_unpool_puts_values_back_at_their_indices():
    x = rand((2, 3, 6, 7))
    v, i = F.max_pool2d(x, 2, return_indices=True)
    u = F.max_unpool2d(v, i, 2, output_size=(6, 7))
    ref = np.zeros((2, 3, 42))
    np.put_along_axis(ref, i.cpu().numpy().reshape(2, 3, -1), v.cpu().numpy().reshape(2, 3, -1), 2)
    np.testing.assert_array_equal(u.cpu().numpy(), ref.reshape(2, 3, 6, 7))
    v6, i6 = F.max_pool2d(rand((2, 3, 6, 6)), 2, return_indices=True)
    assert F.max_unpool2d(v6, i6, 2).shape == (2, 3, 6, 6)
    v1, i1 = F.max_pool1d(rand((3, 8)), 2, return_indices=True)   # unbatched
    assert F.max_unpool1d(v1, i1, 2).shape == (3, 8)
    v3, i3 = F.max_pool3d(rand((1, 2, 4, 4, 4)), 2, return_indices=True)
    np.testing.assert_array_equal(F.max_pool3d(F.max_unpool3d(v3, i3, 2), 2).cpu().numpy(), v3.cpu().numpy())


def test_max_unpool_refusals_show_the_output_size_as_given():
    v, i = F.max_pool2d(rand((1, 1, 4, 4)), 2, return_indices=True)
    # PyTorch's words: the size as the caller spelled it (less any batch and
    # channel entries), the first bad dim and its exclusive bounds
    for size, shown in [((7, 7), "(7, 7)"), ([1, 1, 7, 7], "[7, 7]"), ((3, 6), "(3, 6)")]:
        with pytest.raises(ValueError) as info:
            F.max_unpool2d(v, i, 2, output_size=size)
        dim = 1 if size == (3, 6) else 0
        assert str(info.value) == f'invalid output_size "{shown}" (dim {dim} must be between 2 ' \
                                  f'and 6)'
    assert F.max_unpool2d(v, i, 2, output_size=(5, 3)).shape == (1, 1, 5, 3)
    with pytest.raises(RuntimeError, match=r"^Expected shape of indices to be same as that of the "
                                           r"input tensor \(\[1, 1, 2, 2\]\)"):
        F.max_unpool2d(v, i[..., :1], 2)


def test_lp_pool_is_the_p_norm_of_each_window():
    x = rand((2, 3, 6, 8)).abs()
    ref = np_avg_pool(x.cpu().numpy() ** 3, (2, 3), (2, 3), (0, 0), False, True) * 6
    np.testing.assert_allclose(F.lp_pool2d(x, 3, (2, 3)).cpu().numpy(), ref ** (1 / 3), rtol=1e-12)


def np_fractional(x, k, outs, samples):
    """PyTorch's generate_intervals, then the max over each window."""
    n = len(k)
    sp = x.shape[-n:]
    flat = x.reshape((-1,) + sp)
    smp = samples.reshape(flat.shape[0], n)
    vals = np.zeros((flat.shape[0],) + tuple(outs), x.dtype)
    idx = np.zeros((flat.shape[0],) + tuple(outs), np.int64)
    for b in range(flat.shape[0]):
        starts = []
        for dim in range(n):
            u = smp[b, dim if n == 3 else n - 1 - dim]
            size, o, kk = sp[dim], outs[dim], k[dim]
            alpha = (size - kk) / (o - 1) if o > 1 else 0
            seq = [int((i + u) * alpha) - int(u * alpha) for i in range(o - 1)] + [size - kk]
            starts.append(seq)
        for o in itertools.product(*[range(v) for v in outs]):
            lo = [starts[dd][oo] for dd, oo in enumerate(o)]
            region = flat[(b,) + tuple(slice(a, a + kk) for a, kk in zip(lo, k))]
            a = int(np.argmax(region))
            vals[(b,) + o] = region.max()
            loc = np.unravel_index(a, k)
            idx[(b,) + o] = np.ravel_multi_index([l + a0 for l, a0 in zip(loc, lo)], sp)
    return vals.reshape(x.shape[:-n] + tuple(outs)), idx.reshape(x.shape[:-n] + tuple(outs))


@pytest.mark.parametrize("shape,k,outs", [((2, 3, 9, 11), (2, 3), (5, 4)),
                                          ((3, 8, 8), (3, 3), (4, 6)),
                                          ((1, 2, 7, 6, 9), (2, 2, 3), (3, 4, 5))])
def test_fractional_max_pool_follows_pytorchs_intervals(shape, k, outs):
    x = rand(shape)
    n = len(k)
    planes = math.prod(shape[:-n])
    samples = T.tensor(np.random.default_rng(1).random((planes, n)))
    lead = (1, planes) if len(shape) == n + 1 else shape[:2]
    fn = F.fractional_max_pool2d if n == 2 else F.fractional_max_pool3d
    v, i = fn(x, k, output_size=outs, return_indices=True,
              _random_samples=samples.reshape(lead + (n,)))
    rv, ri = np_fractional(x.cpu().numpy(), k, outs, samples.cpu().numpy())
    np.testing.assert_array_equal(v.cpu().numpy(), rv)
    np.testing.assert_array_equal(i.cpu().numpy(), ri)
    y = fn(x, k, output_ratio=0.5)   # samples from the generator
    assert y.shape == tuple(shape[:-n]) + tuple(int(s * 0.5) for s in shape[-n:])


GRAD_CASES = [
    lambda a: F.max_pool1d(a, 3, 2, 1, ceil_mode=True),
    lambda a: F.max_pool2d(a, (2, 3), 2, (1, 0), dilation=(1, 2)),
    lambda a: F.avg_pool2d(a, 3, 2, 1, ceil_mode=True, count_include_pad=False),
    lambda a: F.avg_pool2d(a, 2, divisor_override=3),
    lambda a: F.adaptive_avg_pool2d(a, (4, 3)),
    lambda a: F.adaptive_max_pool2d(a, (3, 4)),
    lambda a: F.adaptive_avg_pool2d(a, 1),   # whole-plane averages
    lambda a: F.avg_pool2d(a, (7, 6)),
    lambda a: F.lp_pool2d(a, 2, 2),
    lambda a: F.max_unpool2d(*F.max_pool2d(a, 2, return_indices=True), 2, output_size=(7, 6)),
]


@pytest.mark.parametrize("case", range(len(GRAD_CASES)))
def test_gradients_and_second_derivatives(case):
    fn = GRAD_CASES[case]
    shape = (2, 3, 7) if case == 0 else (2, 2, 7, 6)
    x = T.tensor(np.random.default_rng(case).standard_normal(shape) + 3 * (case == 8),
                 requires_grad=True)
    assert gradcheck(fn, (x,))
    assert gradgradcheck(fn, (x,))


def test_3d_and_fractional_gradients():
    x = T.tensor(np.random.default_rng(7).standard_normal((1, 2, 5, 6, 5)), requires_grad=True)
    s = T.tensor(np.random.default_rng(8).random((1, 2, 3)))
    for fn in (lambda a: F.max_pool3d(a, 2, 1, 1), lambda a: F.avg_pool3d(a, 2, 2, 1),
               lambda a: F.adaptive_avg_pool3d(a, (2, 3, 4)),
               lambda a: F.fractional_max_pool3d(a, 2, output_size=(3, 4, 3),
                                                 _random_samples=s)):
        assert gradcheck(fn, (x,)) and gradgradcheck(fn, (x,))


def test_backward_ops_on_their_own():
    rng = np.random.default_rng(9)
    x = T.tensor(rng.standard_normal((2, 3, 6, 5)))
    v, i = T._C._max_pool(x, (2, 2), (2, 2), (1, 1), (1, 1), False)
    g = T.tensor(rng.standard_normal(tuple(v.shape)), requires_grad=True)
    dx = T._C._max_pool_backward(g, i, (6, 5))
    ref = np.zeros((6, 30))
    for b, (gi, ii) in enumerate(zip(g.detach().cpu().numpy().reshape(6, -1), i.cpu().numpy().reshape(6, -1))):
        np.add.at(ref[b], ii, gi)
    np.testing.assert_allclose(dx.detach().cpu().numpy(), ref.reshape(2, 3, 6, 5), rtol=1e-12)
    assert gradcheck(lambda a: T._C._max_pool_backward(a, i, (6, 5)), (g,))
    assert gradcheck(lambda a: T._C._max_unpool(a, i, (6, 5)), (g,))
    ga = T.tensor(rng.standard_normal((2, 3, 4, 3)), requires_grad=True)
    args = ((6, 5), (3, 3), (2, 2), (1, 1), True, False, None)
    assert gradcheck(lambda a: T._C._avg_pool_backward(a, *args), (ga,))
    assert gradgradcheck(lambda a: T._C._avg_pool_backward(a, *args), (ga,))
    # the backward is the transpose: <avg(x), g> == <x, avg_backward(g)>
    lhs = (T._C._avg_pool(x, (3, 3), (2, 2), (1, 1), True, False) * ga.detach()).sum()
    rhs = (x * T._C._avg_pool_backward(ga.detach(), *args)).sum()
    assert abs(float(lhs) - float(rhs)) < 1e-10
    gb = T.tensor(rng.standard_normal((2, 3, 4, 2)), requires_grad=True)
    assert gradcheck(lambda a: T._C._adaptive_avg_pool_backward(a, (6, 5)), (gb,))
    assert gradgradcheck(lambda a: T._C._adaptive_avg_pool_backward(a, (6, 5)), (gb,))


def test_the_tape_keeps_only_the_indices_for_max_pooling():
    x = T.randn(2, 3, 8, 8, requires_grad=True)
    y = F.max_pool2d(x, 2)
    with T.no_grad():
        x.mul_(2)  # the formula reads the indices and the input's shape only
    y.sum().backward()
    assert float(x.grad.sum()) == 2 * 3 * 16


def test_modules_run_the_kernels():
    x = rand((2, 3, 8, 8), T.float32)
    np.testing.assert_array_equal(nn.MaxPool2d(3, 2, 1)(x).cpu().numpy(), F.max_pool2d(x, 3, 2, 1).cpu().numpy())
    np.testing.assert_array_equal(nn.AdaptiveAvgPool2d(1)(x).cpu().numpy(),
                                  F.adaptive_avg_pool2d(x, 1).cpu().numpy())
    m = nn.FractionalMaxPool2d(2, output_size=(5, 5))
    assert m(x).shape == (2, 3, 5, 5)
    assert "FractionalMaxPool2d" in repr(m)


def test_errors_name_the_problem():
    with pytest.raises(RuntimeError, match="pad should be at most half of effective kernel size, "
                                           "but got pad=2, kernel_size=2 and dilation=1"):
        F.max_pool2d(T.zeros(1, 1, 4, 4), 2, padding=2)
    with pytest.raises(RuntimeError, match=r"Given input size: \(1x1x1\). Calculated output size: "
                                           r"\(1x0x0\). Output size is too small"):
        F.avg_pool2d(T.zeros(1, 1, 1, 1), 2)
    with pytest.raises(RuntimeError, match=r"non-empty 3D or 4D \(batch mode\) tensor expected for "
                                           r"input, but got input of size: \[4, 4\]"):
        F.max_pool2d(T.zeros(4, 4), 2)
    with pytest.raises(RuntimeError, match=r"adaptive_max_pool2d\(\): Expected input to have "
                                           r"non-zero size for non-batch dimensions"):
        F.adaptive_max_pool2d(T.zeros(1, 0, 4, 4), 2)
    with pytest.raises(RuntimeError, match=r"Found an invalid max index: 99 \(output volumes are "
                                           r"of size 4x4\)"):
        F.max_unpool2d(T.zeros(1, 1, 2, 2), T.full((1, 1, 2, 2), 99), 2)
    with pytest.raises(NotImplementedError, match="\"avg_pool2d\" not implemented for 'Int'"):
        F.avg_pool2d(T.zeros(1, 1, 4, 4, dtype=T.int32), 2)
    with pytest.raises(RuntimeError, match="stride should not be zero"):
        F.max_pool2d(T.zeros(1, 1, 4, 4), 2, stride=0)
    with pytest.raises(RuntimeError, match="divisor must be not zero"):
        F.avg_pool2d(T.zeros(1, 1, 4, 4), 2, divisor_override=0)
    with pytest.raises(RuntimeError, match="too large"):
        F.fractional_max_pool2d(T.zeros(1, 1, 4, 4), 3, output_size=3,
                                _random_samples=T.rand(1, 1, 2))


GOLDEN = os.path.join(os.path.dirname(__file__), "golden", "nn_pool")


def golden_cases(kind):
    with open(os.path.join(GOLDEN, "cases.json")) as f:
        cases = json.load(f)
    return [c for c in cases if c["kind"] == kind]


def run_golden(case):
    """Evaluate PyTorch's expression with torchlike; compare outputs and the
    gradient of sum(out * w) with what PyTorch recorded."""
    data = np.load(os.path.join(GOLDEN, "data.npz"))
    name = case["name"]
    env = {"F": F, "torch": T}
    for k in case["inputs"]:
        arr = data[f"{name}/in/{k}"]
        t = T.from_numpy(np.ascontiguousarray(arr))
        if k == "x":
            t.requires_grad_(True)
        env[k] = t
    out = golden_eval(case["expr"], env)
    outs = list(out) if isinstance(out, tuple) else [out]
    tol = 1e-6 if data[f"{name}/out0"].dtype == np.float32 else 1e-10
    for j, o in enumerate(outs):
        exp = data[f"{name}/out{j}"]
        got = o.detach().float().cpu().numpy() if o.dtype in (T.float16, T.bfloat16) else o.detach().cpu().numpy()
        assert got.shape == exp.shape, name
        if exp.dtype.kind in "iu":
            np.testing.assert_array_equal(got, exp, err_msg=name)
        else:
            np.testing.assert_allclose(got, exp, rtol=tol, atol=tol, err_msg=name)
    if f"{name}/grad" in data:
        w = T.from_numpy(data[f"{name}/w"])
        (g,) = T.autograd.grad((outs[0] * w.to(outs[0].dtype)).sum(), [env["x"]])
        np.testing.assert_allclose(g.cpu().numpy(), data[f"{name}/grad"], rtol=tol, atol=tol,
                                   err_msg=name)


@pytest.mark.parametrize("case", golden_cases("pool"), ids=lambda c: c["name"])
def test_matches_pytorchs_recorded_values(case):
    run_golden(case)


@pytest.mark.host_only  # runs its own fake-device subprocess
def test_fake_device_uses_the_device_kernel_and_keeps_results_there():
    run_on_fake_device("""
        x = T.randn(2, 3, 6, 6).to("fake")
        try:
            F.max_pool2d(x, 2)
        except NotImplementedError as e:
            assert str(e) == "_max_pool(): no kernel for device fake:0 and dtype float32", e
        else:
            raise AssertionError("ran without a kernel")
        C._dispatch_lend_cpu_kernels("fake", True)
        x = T.randn(2, 3, 6, 6).to("fake")
        for fn in (lambda a: F.max_pool2d(a, 3, 2, 1), lambda a: F.avg_pool2d(a, 2),
                   lambda a: F.adaptive_avg_pool2d(a, 4), lambda a: F.adaptive_max_pool2d(a, 2)):
            y = fn(x)
            assert str(y.device) == "fake:0"
            np.testing.assert_array_equal(y.cpu().numpy(), fn(x.cpu()).cpu().numpy())
        xr = x.detach().requires_grad_()
        (F.max_pool2d(xr, 2).sum() + F.avg_pool2d(xr, 3).sum()).backward()
        assert str(xr.grad.device) == "fake:0"
        print("ok")
    """)


@pytest.mark.parametrize("make, shape, need", [
    (lambda: nn.AdaptiveAvgPool2d((2, 2)), (4,), 3),
    (lambda: nn.AdaptiveMaxPool2d((2, None)), (3, 4), 3),
    (lambda: nn.AdaptiveMaxPool3d((1, None, 2)), (2, 3, 4), 4),
])
def test_adaptive_pool_with_sized_output_refuses_a_low_rank_input(make, shape, need):
    # PyTorch's Python-level check of a sized output_size comes before the
    # kernel's rank check (training programs, round seven)
    with pytest.raises(ValueError, match=f"^Input dimension should be at least {need}$"):
        make()(T.ones(shape))


def test_lp_pool_refuses_a_zero_norm_type():
    # the 1/norm_type root is undefined: PyTorch's ValueError, not a ZeroDivisionError
    for pool, x in ((F.lp_pool1d, T.ones(1, 2, 4)), (F.lp_pool2d, T.ones(1, 2, 4, 4))):
        with pytest.raises(ValueError, match="^norm_type must be a non-zero value, but got 0$"):
            pool(x, 0, 2)


def test_fractional_pool_and_unpool_size_errors_in_pytorch_words():
    # fractional_max_pool2d checks height then width (output + pool - 1 <=
    # input); the 3-d kernel checks time, width, height with a strict <, so it
    # refuses an output that would just fit; max_unpool1d is PyTorch's 2-d
    # kernel over a width of 1
    F = T.nn.functional
    cases = [
        (lambda: F.fractional_max_pool2d(T.ones(1, 1, 4, 4), 2, output_size=(4, 2)),
         "fractional_max_pool2d(): pool height 2 too large relative to input height 4"),
        (lambda: F.fractional_max_pool2d(T.ones(1, 1, 4, 6), 2, output_size=(3, 6)),
         "fractional_max_pool2d(): pool width 2 too large relative to input width 6"),
        (lambda: F.fractional_max_pool3d(T.ones(1, 1, 4, 4, 4), 2, output_size=(3, 3, 3)),
         "fractional_max_pool3d_out(): pool time 2 too large relative to input time 4"),
        (lambda: F.fractional_max_pool3d(T.ones(1, 1, 5, 4, 4), 2, output_size=(3, 4, 3)),
         "fractional_max_pool3d_out(): pool width 2 too large relative to input width 4"),
        (lambda: F.max_unpool1d(T.ones(1, 1, 2), T.tensor([[[0, 9]]]), 2),
         "Found an invalid max index: 9 (output volumes are of size 4x1)"),
    ]
    for call, words in cases:
        with pytest.raises(RuntimeError) as info:
            call()
        assert str(info.value) == words
    assert F.fractional_max_pool2d(T.ones(1, 1, 4, 4), 2, output_size=(3, 3)).shape == (1, 1, 3, 3)
    assert F.fractional_max_pool3d(T.ones(1, 1, 5, 5, 5), 2, output_size=3).shape == (1, 1, 3, 3, 3)
