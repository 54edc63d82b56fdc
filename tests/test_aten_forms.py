"""fake_quantize_per_tensor_affine / per_channel_affine, norm_except_dim,
native_dropout, max_pool1d_with_indices, embedding_renorm_, hash_tensor,
ormqr and torch.nn.grad against PyTorch's recorded answers and messages
(tests/golden/aten_forms.json, scripts/golden_aten_forms.py); fake
quantization against a NumPy model of its formula on random data, its
straight-through gradient, native_dropout's statistics and ormqr's and
nn.grad's gradients by finite differences."""
import numpy as np
import pytest

import torchlike as T
from torchlike.autograd import gradcheck
from numextra_golden import check
from oracle import golden_calls

CALLS, _golden = golden_calls("aten_forms")


@pytest.mark.parametrize("call,expected", CALLS, ids=[c for c, _ in CALLS])
def test_matches_pytorch(call, expected):
    # values exact on the quantization grid: a rounding off by one step shows
    check(_golden, call, expected)


def _np_fake_quant(x, scale, zp, qmin, qmax, axis=None, float_zp=False):
    """The formula in NumPy: the product in float32 (float64 for float64
    input), the rest exact in float64."""
    work = np.float64 if x.dtype == np.float64 else np.float32
    scale = np.asarray(scale, np.float32)
    inv = (np.float32(1) / scale).astype(work)
    zp = np.asarray(zp, np.float32 if float_zp else np.float64)
    if axis is not None:
        shape = [1] * x.ndim
        shape[axis] = -1
        inv, scale, zp = inv.reshape(shape), scale.reshape(shape), zp.reshape(shape)
    scaled = x.astype(work) * inv
    q = np.rint(scaled + zp.astype(work)).astype(np.float64) if float_zp else \
        np.rint(scaled).astype(np.float64) + zp
    mask = (q >= qmin) & (q <= qmax)
    out = (np.clip(q, qmin, qmax) - zp.astype(np.float64)) * scale.astype(np.float64)
    return out.astype(x.dtype), mask


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("qmin,qmax,zp", [(0, 255, 128), (-128, 127, 0), (-8, 7, -3)])
def test_fake_quantize_per_tensor_matches_numpy(dtype, qmin, qmax, zp):
    rng = np.random.default_rng(qmax)
    x = (rng.standard_normal((5, 33)) * 4).astype(dtype)
    x[0, :8] = np.array([0.25, 0.75, -0.25, -0.75, 1.25, 0.0, -0.0, 0.125], dtype) * 0.5 / 0.5
    want, mask = _np_fake_quant(x, 0.0625, zp, qmin, qmax)
    t = T.tensor(x.T.copy()).T.requires_grad_()            # a transposed input
    got = T.fake_quantize_per_tensor_affine(t, 0.0625, zp, qmin, qmax)
    np.testing.assert_array_equal(got.detach().cpu().numpy(), want)
    got.backward(T.tensor(np.arange(x.size, dtype=dtype).reshape(x.shape)))
    np.testing.assert_array_equal(t.grad.cpu().numpy(), np.where(mask, np.arange(x.size).reshape(x.shape), 0))


@pytest.mark.parametrize("axis", [0, 1, 2])
@pytest.mark.parametrize("float_zp", [False, True])
def test_fake_quantize_per_channel_matches_numpy(axis, float_zp):
    rng = np.random.default_rng(axis)
    x = rng.standard_normal((3, 4, 5)).astype(np.float32)
    n = x.shape[axis]
    scale = rng.uniform(0.05, 0.5, n).astype(np.float32)
    zp = rng.uniform(-3, 3, n).astype(np.float32) if float_zp else \
        rng.integers(-3, 4, n).astype(np.int32)
    want, mask = _np_fake_quant(x, scale, zp, -8, 7, axis, float_zp)
    t = T.tensor(x).requires_grad_()
    got = T.fake_quantize_per_channel_affine(t, T.tensor(scale), T.tensor(zp), axis, -8, 7)
    np.testing.assert_array_equal(got.detach().cpu().numpy(), want)
    got.sum().backward()
    np.testing.assert_array_equal(t.grad.cpu().numpy(), mask.astype(np.float32))


def test_native_dropout_masks_and_scales():
    T.manual_seed(3)
    x = T.ones(200, 100, dtype=T.float64) * 2
    out, mask = T.native_dropout(x, 0.3, True)
    assert mask.dtype == T.bool and out.dtype == T.float64
    m = mask.cpu().numpy()
    np.testing.assert_allclose(out.cpu().numpy(), np.where(m, 2 / 0.7, 0.0), rtol=1e-15)
    assert abs(m.mean() - 0.7) < 0.01                       # 20000 draws: 4.5 sigma
    x.requires_grad_()
    out, mask = T.native_dropout(x, 0.3, True)
    out.sum().backward()
    np.testing.assert_allclose(x.grad.cpu().numpy(), mask.cpu().numpy() / 0.7, rtol=1e-15)


def test_hash_tensor_is_the_xor_of_the_bit_patterns():
    rng = np.random.default_rng(5)
    for a in (rng.standard_normal((3, 7, 5)), rng.integers(-2**62, 2**62, (3, 7, 5))):
        bits = a.astype(np.float64 if a.dtype.kind == "f" else np.int64).view(np.uint64)
        np.testing.assert_array_equal(T.hash_tensor(T.tensor(a), 1).cpu().numpy(),
                                      np.bitwise_xor.reduce(bits, axis=1))
        np.testing.assert_array_equal(T.hash_tensor(T.tensor(a), (0, 2), keepdim=True).cpu().numpy(),
                                      np.bitwise_xor.reduce(bits, axis=(0, 2), keepdims=True))
        assert T.hash_tensor(T.tensor(a)).item() == int(np.bitwise_xor.reduce(bits.reshape(-1)))


def test_ormqr_gradcheck_and_matches_q():
    rng = np.random.default_rng(6)
    a = T.tensor(rng.standard_normal((5, 3)))
    vecs, tau = T.geqrf(a)
    q = np.linalg.qr(a.cpu().numpy(), mode="complete")[0]
    c = rng.standard_normal((5, 2))
    # Q is determined up to the signs LAPACK's geqrf chooses: both apply the same reflectors
    got = T.ormqr(vecs, tau, T.tensor(c)).cpu().numpy()
    np.testing.assert_allclose(np.abs(got), np.abs(T.linalg.qr(a, mode="complete")[0].cpu().numpy() @ c),
                               rtol=1e-12)
    np.testing.assert_allclose(np.abs(q.T @ q), np.eye(5), atol=1e-12)
    v = vecs.detach().requires_grad_()
    t = tau.detach().requires_grad_()
    cc = T.tensor(c, requires_grad=True)
    assert gradcheck(lambda v, t, cc: T.ormqr(v, t, cc, transpose=True), (v, t, cc))


@pytest.mark.parametrize("dims", [1, 2])
def test_nn_grad_matches_autograd_and_is_differentiable(dims):
    rng = np.random.default_rng(dims)
    conv = T.nn.functional.conv1d if dims == 1 else T.nn.functional.conv2d
    x = T.tensor(rng.standard_normal((2, 4) + (6,) * dims), requires_grad=True)
    w = T.tensor(rng.standard_normal((6, 2) + (3,) * dims), requires_grad=True)
    y = conv(x, w, None, 2, 1, 1, 2)
    g = T.tensor(rng.standard_normal(tuple(y.shape)))
    gx, gw = T.autograd.grad(y, (x, w), g)
    grad_in = getattr(T.nn.grad, f"conv{dims}d_input")
    grad_w = getattr(T.nn.grad, f"conv{dims}d_weight")
    np.testing.assert_allclose(grad_in(tuple(x.shape), w, g, 2, 1, 1, 2).detach().cpu().numpy(),
                               gx.cpu().numpy(), rtol=1e-12)
    np.testing.assert_allclose(grad_w(x, tuple(w.shape), g, 2, 1, 1, 2).detach().cpu().numpy(),
                               gw.cpu().numpy(), rtol=1e-12)
    gg = g.clone().requires_grad_()
    assert gradcheck(lambda w, gg: grad_in(tuple(x.shape), w, gg, 2, 1, 1, 2), (w, gg))


@pytest.mark.parametrize("name,replacement", [("solve", "torch.linalg.solve"),
                                              ("eig", "torch.linalg.eig"),
                                              ("symeig", "torch.linalg.eigh"),
                                              ("lstsq", "torch.linalg.lstsq"),
                                              ("matrix_rank", "torch.linalg.matrix_rank")])
def test_removed_functions_name_their_replacement(name, replacement):
    """PyTorch keeps these names after removing them: calling one raises
    RuntimeError (not AttributeError), here naming what replaces it."""
    x = T.ones(2, 2)
    with pytest.raises(RuntimeError, match=rf"^torch\.{name} was deprecated in 1\.9 and is now "
                                           rf"removed: use {replacement}\b"):
        getattr(T, name)(x, x)
    if name != "matrix_rank":
        with pytest.raises(RuntimeError, match=rf"^torch\.{name} was deprecated"):
            getattr(x, name)(x)


def test_is_distributed_and_multithreading_switch():
    assert T.is_distributed(T.ones(2)) is False
    assert T.autograd.is_multithreading_enabled() is True
    with T.autograd.set_multithreading_enabled(False):
        assert T.autograd.is_multithreading_enabled() is False
    assert T.autograd.is_multithreading_enabled() is True
