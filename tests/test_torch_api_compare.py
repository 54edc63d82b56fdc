"""torch.isclose / allclose / equal, clamp_min / clamp_max and slices of a
Size in the torch namespace.

Semantics (dtype rules, errors, integer/bool/complex inputs, nan and inf,
0-d and empty tensors, clamp's gradients at ties) against PyTorch's answers
recorded in tests/golden/torch_api_compare.json by
scripts/golden_torch_api_compare.py; values against NumPy (np.isclose,
np.allclose, np.array_equal, np.maximum/np.minimum) over float32/float64,
broadcast, 0-size and non-contiguous inputs; derivatives by gradcheck in
float64; the op layer's device paths on the emulated device."""

import numpy as np
import pytest

import torchlike as tl
from oracle import (assert_close, cuda_test_devices, device_array, golden_calls, golden_check,
                    host_array, noncontiguous, run_emulated)
from torchlike.autograd import gradcheck, gradgradcheck

CALLS, _golden = golden_calls("torch_api_compare")
DEVICES, EMULATED = cuda_test_devices()
RNG = np.random.default_rng(7)

# Answers that differ from PyTorch's on purpose or by the ops they are made
# of, each with its reason: (exception name, words of our message) or the
# dtype our result has.
DIFFERENT = {
    # a 0-d float64 bound promotes a float32 input here (as add does)
    "T.clamp_min(X, T.tensor(1.0, dtype=T.float64))": "float64",
}
# PyTorch's messages that ours repeat word for word.
SAME_WORDING = ("did not match", "must be greater than or equal to zero", "must be Tensor",
                "must be float", "must be bool", "missing 1 required positional arguments",
                "got an unexpected keyword argument", "received an invalid combination",
                "tuple indices must be integers or slices")


@pytest.mark.parametrize("call,expected", CALLS, ids=[c for c, _ in CALLS])
def test_matches_pytorch(call, expected):
    golden_check(_golden, call, expected, SAME_WORDING, DIFFERENT)


# ---- values against NumPy ----------------------------------------------------------

def near(shape, dtype, rng=RNG):
    """Pairs (a, b) with b within, or clearly outside, the default tolerance
    of a, some exactly equal, with nan and inf sprinkled in."""
    a = rng.standard_normal(shape).astype(dtype)
    scale = rng.choice([0.0, 0.3, 3.0, 100.0], size=shape)  # in units of rtol
    b = (a * (1 + scale * 1e-5) + rng.choice([0.0, 1e-9], size=shape)).astype(dtype)
    if a.size:
        flat_a, flat_b = a.reshape(-1), b.reshape(-1)
        flat_a[::5], flat_b[::7] = np.nan, np.nan
        flat_a[1::6], flat_b[1::6] = np.inf, np.inf
    return a, b


SHAPES = [((5,), (5,)), ((3, 4), (4,)), ((2, 1, 3), (4, 1)), ((0, 3), (3,)), ((), (6,)),
          ((4, 3), (4, 3))]


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("shapes", SHAPES, ids=str)
@pytest.mark.parametrize("tol", [{}, {"rtol": 1e-3}, {"atol": 1e-2, "rtol": 0.0},
                                 {"rtol": 0.0, "atol": 0.0}])
@pytest.mark.parametrize("equal_nan", [False, True])
def test_isclose_against_numpy(dtype, shapes, tol, equal_nan):
    a, _ = near(shapes[0], dtype)
    b, _ = near(shapes[1], dtype)
    b = np.broadcast_to(a, np.broadcast_shapes(a.shape, b.shape)) * np.asarray(
        1 + RNG.choice([0.0, 0.3, 100.0], size=b.shape) * 1e-5, dtype=dtype) if a.size else b
    b = np.asarray(b, dtype=dtype)
    kw = {"rtol": 1e-5, "atol": 1e-8, **tol}
    expected = np.isclose(a, b, equal_nan=equal_nan, **kw)
    got = tl.isclose(tl.tensor(a), tl.tensor(b), equal_nan=equal_nan, **kw)
    assert got.dtype == tl.bool
    np.testing.assert_array_equal(host_array(got), expected)
    assert tl.allclose(tl.tensor(a), tl.tensor(b), equal_nan=equal_nan, **kw) == bool(
        np.allclose(a, b, equal_nan=equal_nan, **kw))


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_isclose_non_contiguous(dtype):
    a, b = near((6, 5), dtype)
    ta, tb = noncontiguous(tl.tensor(a)), tl.tensor(b).t().contiguous().t()
    assert not ta.is_contiguous() and not tb.is_contiguous()
    np.testing.assert_array_equal(host_array(tl.isclose(ta, tb)), np.isclose(a, b))
    np.testing.assert_array_equal(host_array(ta.isclose(tb, equal_nan=True)),
                                  np.isclose(a, b, equal_nan=True))
    assert ta.allclose(ta.clone(), equal_nan=True) and not ta.allclose(ta.clone())


@pytest.mark.parametrize("dtype", [np.int8, np.uint8, np.int32, np.int64, np.bool_])
def test_isclose_integers_against_numpy(dtype):
    a = RNG.integers(0, 2 if dtype is np.bool_ else 100, size=(4, 5)).astype(dtype)
    b = (a + RNG.integers(0, 2, size=a.shape).astype(a.dtype)).astype(dtype)
    for kw in ({}, {"atol": 1.0}, {"rtol": 0.02, "atol": 0.0}):
        expected = np.isclose(a.astype(np.float64), b.astype(np.float64), **kw)
        np.testing.assert_array_equal(host_array(tl.isclose(tl.tensor(a), tl.tensor(b), **kw)),
                                      expected)
        assert tl.allclose(tl.tensor(a), tl.tensor(b), **kw) == bool(expected.all())


@pytest.mark.parametrize("dtype", [np.float32, np.float64, np.int64, np.bool_, np.complex64])
@pytest.mark.parametrize("shape", [(4, 3), (0,), (), (2, 0, 3)], ids=str)
def test_equal_against_numpy(dtype, shape):
    a = np.asarray(RNG.standard_normal(shape) * 3).astype(dtype)
    b = a.copy()
    assert tl.equal(tl.tensor(a), tl.tensor(b)) is np.array_equal(a, b) is True
    if a.size:
        b.flat[-1] = not b.flat[-1] if dtype is np.bool_ else b.flat[-1] + 1
        assert tl.equal(tl.tensor(a), tl.tensor(b)) is np.array_equal(a, b) is False
    if a.ndim == 2:
        ta = noncontiguous(tl.tensor(a))
        assert tl.equal(ta, tl.tensor(a)) and ta.equal(tl.tensor(a).t().contiguous().t())
        assert not tl.equal(tl.tensor(a), tl.tensor(a).reshape(1, *a.shape))  # shapes differ


@pytest.mark.parametrize("dtype", [np.float32, np.float64, np.int32, np.int64])
@pytest.mark.parametrize("shapes", [((5,), (5,)), ((3, 4), (4,)), ((2, 1, 3), (4, 1)),
                                    ((0, 3), (3,)), ((), ())], ids=str)
def test_clamp_min_max_against_numpy(dtype, shapes):
    a = np.asarray(RNG.standard_normal(shapes[0]) * 5).astype(dtype)
    m = np.asarray(RNG.standard_normal(shapes[1]) * 5).astype(dtype)
    ta, tm = tl.tensor(a), tl.tensor(m)
    assert_close(tl.clamp_min(ta, tm), np.maximum(a, m))
    assert_close(tl.clamp_max(ta, tm), np.minimum(a, m))
    if a.shape == np.broadcast_shapes(a.shape, m.shape):  # in place keeps the input's shape
        assert_close(ta.clone().clamp_min_(tm), np.maximum(a, m))
        assert_close(ta.clone().clamp_max_(tm), np.minimum(a, m))
    for s in (-1, 2):
        assert_close(ta.clamp_min(s), np.maximum(a, np.asarray(s, dtype)))
        assert_close(ta.clamp_max(max=s), np.minimum(a, np.asarray(s, dtype)))
        out = tl.empty(a.shape, dtype=ta.dtype)
        assert tl.clamp_min(ta, s, out=out) is out
        assert_close(out, np.maximum(a, np.asarray(s, dtype)))
    if a.ndim == 2:
        nc = noncontiguous(ta)
        assert_close(tl.clamp_max(nc, 0), np.minimum(a, np.asarray(0, dtype)))


def test_clamp_min_max_gradcheck():
    x = tl.tensor(RNG.uniform(-2, 2, size=(3, 4)), requires_grad=True)
    m = tl.tensor(RNG.uniform(-2, 2, size=(4,)), requires_grad=True)
    for f in (tl.clamp_min, tl.clamp_max):
        assert gradcheck(f, (x, m))
        assert gradgradcheck(f, (x, m))
        assert gradcheck(lambda t: f(t, 0.25), (noncontiguous(x.detach()).requires_grad_(),))


# ---- Size --------------------------------------------------------------------------

@pytest.mark.parametrize("key", [slice(1, None), slice(None, None, -1), slice(0, 0),
                                 slice(-2, None), slice(None, 5, 2), slice(10, 20)], ids=str)
def test_size_slice_is_size(key):
    s = tl.Size([2, 3, 4, 5])
    got = s[key]
    assert type(got) is tl.Size and got == tuple(s)[key]
    assert type(tl.zeros(2, 3, 4).shape[key]) is tl.Size
    assert type(s[1]) is int and s[-1] == 5


def test_size_sum_and_repeat_are_sizes():
    s = tl.Size([2, 3])
    for got, expected in ((s + (4,), (2, 3, 4)), ((1,) + s, (1, 2, 3)), (s + s, (2, 3, 2, 3)),
                          (s * 2, (2, 3, 2, 3)), (0 * s, ())):
        assert type(got) is tl.Size and got == expected
    with pytest.raises(TypeError):
        s + [4]
    with pytest.raises(TypeError):
        s * 1.5


# ---- device paths --------------------------------------------------------------------

@pytest.mark.parametrize("device", DEVICES)
def test_close_equal_clamp_on_device(device):
    a, b = near((3, 5), np.float32)
    ta, tb = device_array(device, a), device_array(device, b)
    got = tl.isclose(ta, tb, equal_nan=True)
    assert got.device == ta.device
    np.testing.assert_array_equal(host_array(got), np.isclose(a, b, equal_nan=True))
    assert tl.allclose(ta, ta, equal_nan=True) is True and tl.allclose(ta, tb) is False
    assert tl.equal(tb, tb.clone()) is np.array_equal(b, b) and not tl.equal(ta, ta[:1])
    ints = device_array(device, np.arange(6).reshape(2, 3))
    np.testing.assert_array_equal(host_array(tl.isclose(ints, ints + 1, atol=1.0)), True)
    x = device_array(device, a).requires_grad_()
    tl.clamp_min(x, 0.0).sum().backward()
    assert_close(x.grad.cpu(), (a > 0).astype(np.float32))
    assert_close(tl.clamp_max(ta, tb).cpu(), np.minimum(a, b))


@pytest.mark.host_only  # it starts its own emulated-device process
@pytest.mark.skipif(EMULATED, reason="this is the emulated run")
def test_device_paths_on_the_emulated_fake_device():
    """The device-parametrised tests, on the fake device with the CPU's
    kernels, in a process of its own (the emulation cannot be undone)."""
    run_emulated(__file__)
