"""Interpolation: the separable resampling kernels of src/nn/pool behind
interpolate/upsample (nearest, nearest-exact, linear, bilinear, bicubic,
trilinear, area; align_corners, scale factors, antialias), and the pure
permutations pixel_shuffle/pixel_unshuffle/channel_shuffle.

Values against a NumPy reference (a dense (out, in) weight matrix per
spatial dim, built here from PyTorch's coordinate rules and applied with
einsum) over modes, dtypes, shapes, unbatched-free, empty-batch and
non-contiguous inputs; gradients and second derivatives by finite
differences, the backward op on its own; PyTorch's recorded values
(tests/golden/nn_pool); errors; the kernels on the fake device."""
import math

import numpy as np
import pytest

import torchlike as T
import torchlike.nn as nn
import torchlike.nn.functional as F
from torchlike.autograd import gradcheck, gradgradcheck

from test_nn_pool import golden_cases, run_golden
from nn_fake_device import run_on_fake_device

# the derivatives gradchecked here (tests/test_grad_registry.py reads this)
GRADCHECKED = {"_upsample", "_upsample_backward"}

TOL = {T.float64: 1e-12, T.float32: 3e-6, T.float16: 3e-3, T.bfloat16: 2e-2}


def to_numpy(t):
    return t.float().cpu().numpy() if t.dtype in (T.float16, T.bfloat16) else t.cpu().numpy()


def cubic(x, a):
    x = abs(x)
    if x <= 1:
        return ((a + 2) * x - (a + 3)) * x * x + 1
    if x < 2:
        return ((a * x - 5 * a) * x + 8 * a) * x - 4 * a
    return 0.0


def weights(size, out, mode, align_corners, scale, antialias):
    """The (out, size) matrix of one spatial dim."""
    W = np.zeros((out, size))
    if mode in ("nearest", "nearest-exact"):
        fs = np.float32(1 / scale) if scale else np.float32(size) / np.float32(out)
        off = np.float32(0.5 if mode == "nearest-exact" else 0)
        for j in range(out):
            src = int(np.floor((np.float32(j) + off) * fs))
            if mode == "nearest" and out == 2 * size:
                src = j // 2
            W[j, min(src if out != size or mode != "nearest" else j, size - 1)] = 1
        return W
    if align_corners:
        step = (size - 1) / (out - 1) if out > 1 else 0.0
    else:
        step = 1 / scale if scale else size / out
    if antialias:
        support = (2.0 if mode == "cubic" else 1.0) * max(step, 1.0)
        inv = 1 / step if step >= 1 else 1.0
        for j in range(out):
            centre = step * (j + 0.5)
            lo, hi = max(int(centre - support + 0.5), 0), min(int(centre + support + 0.5), size)
            w = [(cubic((i - centre + 0.5) * inv, -0.5) if mode == "cubic"
                  else max(0.0, 1 - abs((i - centre + 0.5) * inv))) for i in range(lo, hi)]
            W[j, lo:hi] = np.array(w) / sum(w)
        return W
    for j in range(out):
        real = step * j if align_corners else step * (j + 0.5) - 0.5
        if mode == "linear":
            real = max(real, 0.0)
            i0 = min(int(math.floor(real)), size - 1)
            lam = min(max(real - i0, 0.0), 1.0)
            W[j, i0] += 1 - lam
            W[j, min(i0 + 1, size - 1)] += lam
        else:
            i0 = min(int(math.floor(real)), size - 1)
            t = min(max(real - i0, 0.0), 1.0)
            for q, w in enumerate([cubic(t + 1, -0.75), cubic(t, -0.75), cubic(1 - t, -0.75),
                                   cubic(2 - t, -0.75)]):
                W[j, min(max(i0 - 1 + q, 0), size - 1)] += w
    return W


def np_interpolate(x, out, mode, align_corners=False, scales=None, antialias=False):
    kind = {"bilinear": "linear", "trilinear": "linear", "bicubic": "cubic"}.get(mode, mode)
    n = len(out)
    y = x.astype(np.float64)
    for d in range(n):
        W = weights(x.shape[2 + d], out[d], kind, align_corners,
                    scales[d] if scales else None, antialias)
        y = np.moveaxis(np.tensordot(W, np.moveaxis(y, 2 + d, 0), axes=(1, 0)), 0, 2 + d)
    return y


CASES = [  # shape, mode, size, scale_factor, align_corners, antialias
    ((2, 3, 7), "nearest", (12,), None, None, False),
    ((2, 3, 7), "nearest", None, 0.6, None, False),
    ((2, 2, 5, 6), "nearest", None, 2, None, False),
    ((2, 2, 5, 6), "nearest-exact", (8, 3), None, None, False),
    ((1, 2, 3, 4, 5), "nearest", (5, 2, 7), None, None, False),
    ((2, 3, 7), "linear", (12,), None, False, False),
    ((2, 3, 7), "linear", (4,), None, True, False),
    ((2, 2, 5, 6), "bilinear", (9, 4), None, False, False),
    ((2, 2, 5, 6), "bilinear", None, (1.5, 0.6), False, False),
    ((2, 2, 5, 6), "bilinear", (9, 4), None, True, False),
    ((2, 2, 5, 6), "bicubic", (9, 11), None, False, False),
    ((2, 2, 5, 6), "bicubic", (3, 4), None, True, False),
    ((1, 2, 3, 4, 5), "trilinear", (5, 3, 7), None, False, False),
    ((1, 2, 3, 4, 5), "trilinear", None, 2, True, False),
    ((1, 2, 12, 15), "bilinear", (5, 4), None, False, True),
    ((1, 2, 12, 15), "bicubic", (5, 6), None, False, True),
    ((1, 2, 12, 15), "bilinear", (5, 4), None, True, True),
    ((1, 2, 6, 5), "bicubic", (9, 11), None, False, True),
    # enough rows for the threads' ranges to start inside a row of outputs
    ((3, 5, 40, 37), "bilinear", (61, 83), None, False, False),
]


@pytest.mark.parametrize("dtype", list(TOL))
@pytest.mark.parametrize("shape,mode,size,scale,ac,aa", CASES)
def test_interpolate_matches_numpy(shape, mode, size, scale, ac, aa, dtype):
    x = T.tensor(np.random.default_rng(0).standard_normal(shape), dtype=dtype)
    y = F.interpolate(x, size=size, scale_factor=scale, mode=mode, align_corners=ac,
                      antialias=aa)
    n = len(shape) - 2
    if size is not None:
        out, scales = size, None
    else:
        scales = scale if isinstance(scale, tuple) else (scale,) * n
        out = tuple(int(math.floor(s * f)) for s, f in zip(shape[2:], scales))
    ref = np_interpolate(to_numpy(x).astype(np.float64), out, mode, bool(ac), scales, aa)
    assert y.dtype == dtype and y.shape == ref.shape
    np.testing.assert_allclose(to_numpy(y), ref, rtol=TOL[dtype], atol=TOL[dtype] * 4)


def test_area_mode_is_adaptive_avg_pooling():
    x = T.tensor(np.random.default_rng(1).standard_normal((2, 3, 7, 9)))
    np.testing.assert_allclose(F.interpolate(x, size=(3, 4), mode="area").cpu().numpy(),
                               F.adaptive_avg_pool2d(x, (3, 4)).cpu().numpy(), rtol=1e-15)


def test_non_contiguous_channels_last_and_empty_inputs():
    base = np.random.default_rng(2).standard_normal((2, 5, 6, 3))
    x = T.tensor(base).permute(0, 3, 1, 2)
    ref = np_interpolate(base.transpose(0, 3, 1, 2), (9, 4), "bilinear")
    np.testing.assert_allclose(F.interpolate(x, size=(9, 4), mode="bilinear").cpu().numpy(), ref,
                               rtol=1e-12)
    xs = T.tensor(base)[:, ::2]                      # strided (2, 3, 6, 3)
    ref = np_interpolate(base[:, ::2], (5, 5), "bicubic")
    np.testing.assert_allclose(F.interpolate(xs, size=5, mode="bicubic").cpu().numpy(), ref, rtol=1e-12)
    e = T.zeros((0, 3, 4, 4), requires_grad=True)
    y = F.interpolate(e, scale_factor=2, mode="bilinear")
    assert y.shape == (0, 3, 8, 8)
    y.sum().backward()
    assert e.grad.shape == e.shape


GRAD_CASES = [
    dict(size=(9, 4), mode="nearest"),
    dict(scale_factor=1.7, mode="nearest-exact"),
    dict(size=(9, 5), mode="bilinear"),
    dict(size=(3, 8), mode="bilinear", align_corners=True),
    dict(size=(8, 10), mode="bicubic"),
    dict(size=(3, 2), mode="bicubic", antialias=True),
    dict(size=(4, 3), mode="bilinear", antialias=True, align_corners=True),
]


@pytest.mark.parametrize("kw", GRAD_CASES, ids=lambda kw: "-".join(map(str, kw.values())))
def test_gradients_and_second_derivatives(kw):
    x = T.tensor(np.random.default_rng(3).standard_normal((2, 2, 6, 5)), requires_grad=True)
    fn = lambda a: F.interpolate(a, **kw)  # noqa: E731
    assert gradcheck(fn, (x,))
    assert gradgradcheck(fn, (x,))


def test_1d_and_3d_gradients():
    x1 = T.tensor(np.random.default_rng(4).standard_normal((2, 3, 6)), requires_grad=True)
    assert gradcheck(lambda a: F.interpolate(a, size=11, mode="linear"), (x1,))
    x3 = T.tensor(np.random.default_rng(5).standard_normal((1, 2, 3, 4, 3)), requires_grad=True)
    fn = lambda a: F.interpolate(a, scale_factor=2, mode="trilinear")  # noqa: E731
    assert gradcheck(fn, (x3,)) and gradgradcheck(fn, (x3,))


@pytest.mark.parametrize("mode", ["bilinear", "bicubic"])
def test_large_backward_matches_numpys_transpose(mode):
    """dx of an interpolation large enough to be split across threads: the
    transposed weight matrices applied to g, dim by dim."""
    rng = np.random.default_rng(7)
    shape, out = (3, 4, 33, 29), (70, 61)
    x = T.tensor(rng.standard_normal(shape), requires_grad=True)
    g = rng.standard_normal(shape[:2] + out)
    F.interpolate(x, size=out, mode=mode, align_corners=False).backward(T.tensor(g))
    kind = "linear" if mode == "bilinear" else "cubic"
    ref = g
    for d in range(2):
        W = weights(shape[2 + d], out[d], kind, False, None, False)
        ref = np.moveaxis(np.tensordot(W.T, np.moveaxis(ref, 2 + d, 0), axes=(1, 0)), 0, 2 + d)
    np.testing.assert_allclose(to_numpy(x.grad), ref, rtol=1e-12, atol=1e-12)


@pytest.mark.parametrize("dtype", [T.float32, T.float64])
@pytest.mark.parametrize("mode,shape,size", [("bilinear", (3, 5, 9, 7), (17, 12)),
                                             ("bicubic", (2, 4, 6, 8), (5, 13)),
                                             ("trilinear", (2, 3, 4, 5, 6), (7, 3, 9))])
def test_batched_passes_plane_by_plane_equal_single_planes(mode, shape, size, dtype):
    # a batch with planes for every thread runs each plane's passes in a row
    # (scratch per thread, no batch-sized intermediate); one plane alone runs
    # the passes over the whole tensor: the two must agree to the bit
    rng = np.random.default_rng(11)
    x = T.tensor(rng.standard_normal(shape), dtype=dtype, requires_grad=True)
    g = T.tensor(rng.standard_normal(shape[:2] + size), dtype=dtype)
    y = F.interpolate(x, size=size, mode=mode)
    y.backward(g)
    for n in range(shape[0]):
        for c in range(shape[1]):
            xp = x.detach()[n:n + 1, c:c + 1].clone().requires_grad_()
            yp = F.interpolate(xp, size=size, mode=mode)
            yp.backward(g[n:n + 1, c:c + 1])
            np.testing.assert_array_equal(yp.detach().cpu().numpy(), y.detach().cpu().numpy()[n:n + 1, c:c + 1])
            np.testing.assert_array_equal(xp.grad.cpu().numpy(), x.grad.cpu().numpy()[n:n + 1, c:c + 1])


def test_backward_op_is_the_transpose_and_has_a_derivative():
    rng = np.random.default_rng(6)
    x = T.tensor(rng.standard_normal((2, 3, 5, 4)))
    g = T.tensor(rng.standard_normal((2, 3, 7, 9)), requires_grad=True)
    for mode in ("nearest", "linear", "cubic"):
        y = T._C._upsample(x, (7, 9), mode, False, None, False)
        dx = T._C._upsample_backward(g.detach(), (5, 4), mode, False, None, False)
        assert abs(float((y * g.detach()).sum()) - float((x * dx).sum())) < 1e-10
        assert gradcheck(lambda a: T._C._upsample_backward(a, (5, 4), mode), (g,))
        assert gradgradcheck(lambda a: T._C._upsample_backward(a, (5, 4), mode), (g,))


def test_upsample_module_and_aliases():
    x = T.tensor(np.random.default_rng(7).standard_normal((1, 2, 3, 4)), dtype=T.float32)
    m = nn.Upsample(scale_factor=2, mode="bilinear", align_corners=True)
    np.testing.assert_allclose(m(x).cpu().numpy(), np_interpolate(x.cpu().numpy(), (6, 8), "bilinear", True),
                               rtol=2e-6, atol=1e-6)
    np.testing.assert_array_equal(F.upsample_nearest(x, scale_factor=2).cpu().numpy(),
                                  np_interpolate(x.cpu().numpy(), (6, 8), "nearest"))


def test_shuffles_are_exact_permutations():
    x = np.arange(2 * 8 * 3 * 2, dtype=np.float64).reshape(2, 8, 3, 2)
    y = F.pixel_shuffle(T.tensor(x), 2).cpu().numpy()
    ref = x.reshape(2, 2, 2, 2, 3, 2).transpose(0, 1, 4, 2, 5, 3).reshape(2, 2, 6, 4)
    np.testing.assert_array_equal(y, ref)
    np.testing.assert_array_equal(F.pixel_unshuffle(T.tensor(y), 2).cpu().numpy(), x)
    c = F.channel_shuffle(T.tensor(x), 4).cpu().numpy()
    np.testing.assert_array_equal(c, x.reshape(2, 4, 2, 3, 2).transpose(0, 2, 1, 3, 4)
                                  .reshape(2, 8, 3, 2))


def test_pixel_unshuffle_names_the_side_that_does_not_divide():
    # PyTorch's words: height checked before width, each with its size
    with pytest.raises(RuntimeError, match=r"^pixel_unshuffle expects height to be divisible by "
                                           r"downscale_factor, but input.size\(-2\)=5 is not "
                                           r"divisible by 2$"):
        F.pixel_unshuffle(T.zeros(1, 1, 5, 5), 2)
    with pytest.raises(RuntimeError, match=r"^pixel_unshuffle expects width to be divisible by "
                                           r"downscale_factor, but input.size\(-1\)=5 is not "
                                           r"divisible by 2$"):
        F.pixel_unshuffle(T.zeros(1, 1, 4, 5), 2)


def test_a_scale_factor_of_the_wrong_length_is_shown_as_given():
    # PyTorch's words: the factors as the caller spelled them, then its advice
    for factors, shown in (((2.0, 2.0), "(2.0, 2.0)"), ([2.0, 2.0], "[2.0, 2.0]")):
        with pytest.raises(ValueError) as info:
            F.interpolate(T.zeros(1, 2, 7), scale_factor=factors)
        assert str(info.value) == (
            "Input and scale_factor must have the same number of spatial dimensions, but got "
            f"input with spatial dimensions of [7] and scale_factor of shape {shown}. Please "
            "provide input tensor in (N, C, d1, d2, ...,dK) format and scale_factor in (s1, s2, "
            "...,sK) format.")


def test_errors_name_the_problem():
    with pytest.raises(NotImplementedError, match="Got 3D input, but bilinear mode needs 4D input"):
        F.interpolate(T.zeros(1, 1, 4), scale_factor=2, mode="bilinear")
    with pytest.raises(ValueError, match="align_corners option can only be set"):
        F.interpolate(T.zeros(1, 1, 4), scale_factor=2, align_corners=True)
    with pytest.raises(ValueError, match="Anti-alias option is restricted"):
        F.interpolate(T.zeros(1, 1, 4), size=2, mode="linear", antialias=True)
    with pytest.raises(ValueError, match="only one of size or scale_factor"):
        F.interpolate(T.zeros(1, 1, 4), size=2, scale_factor=2)
    # PyTorch's words: the spatial dims by letter, an "and" in the 1-d form
    with pytest.raises(RuntimeError, match=r"^Input and output sizes should be greater than 0, "
                                           r"but got input \(H: 3, W: 4\) output \(H: 0, W: 2\)$"):
        F.interpolate(T.zeros(1, 1, 3, 4), size=(0, 2))
    with pytest.raises(RuntimeError, match=r"^Input and output sizes should be greater than 0, "
                                           r"but got input \(W: 0\) and output \(W: 2\)$"):
        F.interpolate(T.zeros(1, 1, 0), size=2, mode="linear")
    with pytest.raises(RuntimeError, match=r"input \(D: 3, H: 4, W: 5\) output \(D: 0, H: 0, "
                                           r"W: 0\)$"):
        F.interpolate(T.zeros(1, 1, 3, 4, 5), size=0, mode="trilinear")
    with pytest.raises(NotImplementedError, match="not implemented for 'Long'"):
        F.interpolate(T.zeros(1, 1, 3, 4, dtype=T.int64), size=(5, 2))
    with pytest.raises(ValueError, match="mode must be one of"):
        T._C._upsample(T.zeros(1, 1, 3), (4,), "spline")


@pytest.mark.parametrize("mode", ["nearest", "bilinear", "bicubic"])
def test_an_output_too_large_is_refused_before_the_tap_tables(mode):
    # fuzzing: the per-dim tap tables were built from the size before the
    # output's shape was checked, so size=(2**31, 2**31) made and filled 2**31
    # taps a dim (the process was killed for memory) and (2**40, 2**40) was a
    # MemoryError about taps; both name the result's shape now, as the
    # RuntimeError of a size past torchlike's limit or of an int64 overflow
    for size in [(2 ** 40, 2 ** 40), (2 ** 31, 2 ** 31)]:
        with pytest.raises(RuntimeError, match=rf"shape \[1, 2, {size[0]}, {size[1]}\]"):
            F.interpolate(T.zeros(1, 2, 3, 4), size=size, mode=mode)


@pytest.mark.parametrize("case", golden_cases("resample"), ids=lambda c: c["name"])
def test_matches_pytorchs_recorded_values(case):
    run_golden(case)


@pytest.mark.host_only  # runs its own fake-device subprocess
def test_fake_device_uses_the_device_kernel_and_keeps_results_there():
    run_on_fake_device("""
        x = T.randn(2, 3, 4, 5).to("fake")
        try:
            F.interpolate(x, scale_factor=2)
        except NotImplementedError as e:
            assert str(e) == "_upsample(): no kernel for device fake:0 and dtype float32", e
        else:
            raise AssertionError("ran without a kernel")
        C._dispatch_lend_cpu_kernels("fake", True)
        x = T.randn(2, 3, 4, 5).to("fake")
        for mode in ("nearest", "bilinear", "bicubic"):
            y = F.interpolate(x, size=(7, 3), mode=mode)
            assert str(y.device) == "fake:0"
            np.testing.assert_array_equal(y.cpu().numpy(),
                                          F.interpolate(x.cpu(), size=(7, 3), mode=mode).cpu().numpy())
        xr = x.detach().requires_grad_()
        F.interpolate(xr, scale_factor=2, mode="bilinear").sum().backward()
        assert str(xr.grad.device) == "fake:0"
        print("ok")
    """)


@pytest.mark.parametrize("padding_mode", ["zeros", "border", "reflection"])
@pytest.mark.parametrize("align_corners", [False, True])
def test_bicubic_grid_sample_gradients_to_input_and_grid(padding_mode, align_corners):
    rng = np.random.default_rng(11)
    x = T.tensor(rng.standard_normal((1, 2, 4, 5)), requires_grad=True)
    # keep samples off integer coordinates, where the weights' derivative jumps
    g = T.tensor(rng.uniform(-1.2, 1.2, (1, 3, 2, 2)) + 0.013, requires_grad=True)
    fn = lambda a, b: F.grid_sample(a, b, mode="bicubic", padding_mode=padding_mode,  # noqa: E731
                                    align_corners=align_corners)
    assert gradcheck(fn, (x, g))
    assert gradgradcheck(fn, (x, g))
