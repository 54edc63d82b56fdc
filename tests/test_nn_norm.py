"""batch_norm, instance_norm, layer_norm, group_norm and rms_norm: the fused
kernels of src/nn/norm.

Values against NumPy references over dtypes, shapes, 0-size batches and
non-contiguous inputs; running statistics (momentum, cumulative average,
unbiased variance, evaluation); gradients and second derivatives by finite
differences, through the functional API and of the ops on their own; errors
in PyTorch's wording; the kernels on the fake device."""

import os

import numpy as np
import pytest

import torchlike as T
import torchlike.nn as nn
import torchlike.nn.functional as F
from torchlike.autograd import gradcheck, gradgradcheck
from nn_fake_device import run_on_fake_device
from test_nn_grid import load_cases, run_golden

C = T._C

# the derivatives gradchecked here (tests/test_grad_registry.py reads this)
GRADCHECKED = {"native_batch_norm", "native_batch_norm_backward", "native_layer_norm",
               "native_layer_norm_backward", "native_group_norm", "native_group_norm_backward",
               "_fused_rms_norm", "_fused_rms_norm_backward", "_local_response_norm",
               "_local_response_norm_backward"}

TOL = {T.float64: 1e-12, T.float32: 3e-5, T.float16: 3e-3, T.bfloat16: 3e-2}
rng = np.random.default_rng(7)


def randn(*shape):
    return rng.standard_normal(shape)


def as_np(t):
    return t.double().cpu().numpy()


def np_norm(x, axes, eps, rms=False):
    """(x - mean) / sqrt(var + eps) over axes (mean 0 for rms)."""
    x = np.asarray(x, np.float64)
    if rms:
        return x / np.sqrt((x * x).mean(axis=axes, keepdims=True) + eps)
    mu = x.mean(axis=axes, keepdims=True)
    return (x - mu) / np.sqrt(x.var(axis=axes, keepdims=True) + eps)


def channel_shape(ndim, C):
    return (1, C) + (1,) * (ndim - 2)


# ---- values -----------------------------------------------------------------------------

@pytest.mark.parametrize("dtype", [T.float64, T.float32, T.float16, T.bfloat16])
@pytest.mark.parametrize("shape", [(4, 3), (5, 70), (4, 3, 5), (2, 3, 4, 5), (2, 3, 2, 2, 3)])
def test_batch_norm_training_matches_numpy_and_updates_running_stats(dtype, shape):
    x = randn(*shape)
    w, b = randn(shape[1]), randn(shape[1])
    rm, rv = randn(shape[1]), rng.random(shape[1]) + 0.5
    # parameters and statistics in the input's dtype, or float32 beside a
    # half input (PyTorch's CPU rule: no other mix)
    pdtype = T.float32 if dtype in (T.float16, T.bfloat16) else dtype
    trm, trv = T.tensor(rm, dtype=pdtype), T.tensor(rv, dtype=pdtype)
    xt = T.tensor(x).to(dtype)
    y = F.batch_norm(xt, trm, trv, T.tensor(w).to(pdtype), T.tensor(b).to(pdtype), True, 0.3, 1e-3)
    axes = (0,) + tuple(range(2, len(shape)))
    xr = as_np(xt)
    cs = channel_shape(len(shape), shape[1])
    ref = np_norm(xr, axes, 1e-3) * as_np(T.tensor(w).to(pdtype)).reshape(cs) + \
        as_np(T.tensor(b).to(pdtype)).reshape(cs)
    assert y.dtype == dtype and tuple(y.shape) == shape
    np.testing.assert_allclose(as_np(y), ref, rtol=TOL[dtype], atol=TOL[dtype] * 10)
    np.testing.assert_allclose(trm.cpu().numpy(), 0.7 * rm + 0.3 * xr.mean(axes), rtol=1e-5)
    np.testing.assert_allclose(trv.cpu().numpy(), 0.7 * rv + 0.3 * xr.var(axes, ddof=1), rtol=1e-5)


def test_batch_norm_eval_uses_running_stats_and_leaves_them():
    x = randn(5, 3, 4)
    rm, rv = randn(3), rng.random(3) + 0.5
    trm, trv = T.tensor(rm), T.tensor(rv)
    y = F.batch_norm(T.tensor(x), trm, trv, None, None, False, 0.1, 1e-5)
    ref = (x - rm.reshape(1, 3, 1)) / np.sqrt(rv.reshape(1, 3, 1) + 1e-5)
    np.testing.assert_allclose(y.cpu().numpy(), ref, rtol=1e-12)
    np.testing.assert_array_equal(trm.cpu().numpy(), rm)
    np.testing.assert_array_equal(trv.cpu().numpy(), rv)


def test_batch_norm_module_cumulative_average_with_momentum_none():
    bn = nn.BatchNorm1d(3, momentum=None).double()
    xs = [randn(6, 3) for _ in range(3)]
    for x in xs:
        bn(T.tensor(x))
    np.testing.assert_allclose(bn.running_mean.cpu().numpy(), np.mean([x.mean(0) for x in xs], 0),
                               rtol=1e-12)
    np.testing.assert_allclose(bn.running_var.cpu().numpy(),
                               np.mean([x.var(0, ddof=1) for x in xs], 0), rtol=1e-12)
    assert int(bn.num_batches_tracked.item()) == 3


def test_batch_norm_non_contiguous_input_and_running_stats():
    x = randn(3, 5, 4)
    xt = T.tensor(x).permute(1, 0, 2)  # (5, 3, 4) view, not contiguous
    base = T.zeros(6, dtype=T.float64)
    rm = base[::2]  # strided running statistics (PyTorch takes both or neither)
    base_v = T.ones(6, dtype=T.float64)
    rv = base_v[1::2]
    y = F.batch_norm(xt, rm, rv, None, None, True, 0.5, 1e-5)
    xp = x.transpose(1, 0, 2)
    np.testing.assert_allclose(y.cpu().numpy(), np_norm(xp, (0, 2), 1e-5), rtol=1e-10)
    np.testing.assert_allclose(rm.cpu().numpy(), 0.5 * xp.mean((0, 2)), rtol=1e-12)
    np.testing.assert_array_equal(base.cpu().numpy()[1::2], 0)
    np.testing.assert_allclose(rv.cpu().numpy(), 0.5 + 0.5 * xp.var((0, 2), ddof=1), rtol=1e-12)
    np.testing.assert_array_equal(base_v.cpu().numpy()[::2], 1)


@pytest.mark.parametrize("dtype", [T.float64, T.float32, T.float16, T.bfloat16])
@pytest.mark.parametrize("shape,ns", [((4, 7), (7,)), ((2, 3, 5), (3, 5)), ((6,), (6,)),
                                      ((0, 4), (4,)), ((2, 3, 4), (4,))])
def test_layer_norm_matches_numpy(dtype, shape, ns):
    x = T.tensor(randn(*shape)).to(dtype)
    w, b = T.tensor(randn(*ns)).to(dtype), T.tensor(randn(*ns)).to(dtype)
    y = F.layer_norm(x, ns, w, b, eps=1e-4)
    axes = tuple(range(len(shape) - len(ns), len(shape)))
    ref = np_norm(as_np(x), axes, 1e-4) * as_np(w) + as_np(b)
    assert y.dtype == dtype and tuple(y.shape) == shape
    np.testing.assert_allclose(as_np(y), ref, rtol=TOL[dtype], atol=TOL[dtype] * 10)


def test_layer_norm_returns_mean_and_rstd_with_kept_dims():
    x = randn(2, 3, 4)
    y, mean, rstd = C.native_layer_norm(T.tensor(x), [3, 4], None, None, 1e-5)
    assert tuple(mean.shape) == tuple(rstd.shape) == (2, 1, 1)
    np.testing.assert_allclose(mean.cpu().numpy(), x.mean((1, 2), keepdims=True), rtol=1e-12)
    np.testing.assert_allclose(rstd.cpu().numpy(), 1 / np.sqrt(x.var((1, 2), keepdims=True) + 1e-5),
                               rtol=1e-12)


def test_layer_norm_non_contiguous():
    x = randn(5, 4)
    y = F.layer_norm(T.tensor(x).t(), (5,))
    np.testing.assert_allclose(y.cpu().numpy(), np_norm(x.T, (1,), 1e-5), rtol=1e-10)


@pytest.mark.parametrize("dtype", [T.float64, T.float32, T.bfloat16])
@pytest.mark.parametrize("shape,groups", [((2, 6, 5), 3), ((3, 4, 2, 3), 2), ((2, 4), 4),
                                          ((0, 4, 3), 2), ((2, 6, 1), 2)])
def test_group_norm_matches_numpy(dtype, shape, groups):
    x = T.tensor(randn(*shape)).to(dtype)
    w, b = T.tensor(randn(shape[1])).to(dtype), T.tensor(randn(shape[1])).to(dtype)
    y = F.group_norm(x, groups, w, b, eps=1e-4)
    xr = as_np(x).reshape(shape[0], groups, shape[1] // groups * int(np.prod(shape[2:])))
    cs = channel_shape(len(shape), shape[1])
    ref = np_norm(xr, (2,), 1e-4).reshape(shape) * as_np(w).reshape(cs) + as_np(b).reshape(cs)
    np.testing.assert_allclose(as_np(y), ref, rtol=TOL[dtype], atol=TOL[dtype] * 10)


@pytest.mark.parametrize("dtype", [T.float64, T.float32, T.float16, T.bfloat16])
def test_rms_norm_matches_numpy_with_default_eps(dtype):
    x = T.tensor(randn(3, 4, 5)).to(dtype)
    w = T.tensor(randn(4, 5)).to(dtype)
    y = F.rms_norm(x, (4, 5), w)
    eps = {T.float64: 2.0 ** -52, T.float32: 2.0 ** -23, T.float16: 2.0 ** -10,
           T.bfloat16: 2.0 ** -7}[dtype]
    ref = np_norm(as_np(x), (1, 2), eps, rms=True) * as_np(w)
    np.testing.assert_allclose(as_np(y), ref, rtol=TOL[dtype], atol=TOL[dtype] * 10)
    # eps is not 1e-5: tiny inputs tell the difference
    z = F.rms_norm(T.full((1, 2), 1e-4, dtype=T.float64), (2,))
    np.testing.assert_allclose(z.cpu().numpy(), 1e-4 / np.sqrt(1e-8 + 2.0 ** -52), rtol=1e-12)


def test_instance_norm_matches_numpy_and_averages_running_stats():
    x = randn(3, 2, 6)
    rm, rv = T.zeros(2, dtype=T.float64), T.ones(2, dtype=T.float64)
    w, b = randn(2), randn(2)
    y = F.instance_norm(T.tensor(x), rm, rv, T.tensor(w), T.tensor(b), True, 0.1, 1e-5)
    ref = np_norm(x, (2,), 1e-5) * w.reshape(1, 2, 1) + b.reshape(1, 2, 1)
    np.testing.assert_allclose(y.cpu().numpy(), ref, rtol=1e-10)
    np.testing.assert_allclose(rm.cpu().numpy(), 0.1 * x.mean(2).mean(0), rtol=1e-12)
    np.testing.assert_allclose(rv.cpu().numpy(), 0.9 + 0.1 * x.var(2, ddof=1).mean(0), rtol=1e-12)
    y2 = F.instance_norm(T.tensor(x), rm, rv, use_input_stats=False)
    ref2 = (x - rm.cpu().numpy().reshape(1, 2, 1)) / np.sqrt(rv.cpu().numpy().reshape(1, 2, 1) + 1e-5)
    np.testing.assert_allclose(y2.cpu().numpy(), ref2, rtol=1e-12)


# ---- gradients --------------------------------------------------------------------------

def leaf(*shape):
    return T.tensor(randn(*shape), requires_grad=True)


RM, RV = T.tensor(randn(3)), T.tensor(rng.random(3) + 0.5)
GRAD_CASES = {
    "batch_norm_train": (lambda x, w, b: F.batch_norm(x, None, None, w, b, True),
                         lambda: (leaf(4, 3, 5), leaf(3), leaf(3))),
    "batch_norm_eval": (lambda x, w, b: F.batch_norm(x, RM, RV, w, b, False),
                        lambda: (leaf(4, 3, 2), leaf(3), leaf(3))),
    "batch_norm_1d_wide": (lambda x, w, b: F.batch_norm(x, None, None, w, b, True),
                           lambda: (leaf(3, 66), leaf(66), leaf(66))),
    "batch_norm_1d_eval": (lambda x, w: F.batch_norm(x, RM, RV, w, None, False),
                           lambda: (leaf(4, 3), leaf(3))),
    "batch_norm_no_affine": (lambda x: F.batch_norm(x, None, None, training=True),
                             lambda: (leaf(5, 2),)),
    "layer_norm": (lambda x, w, b: F.layer_norm(x, (3, 4), w, b),
                   lambda: (leaf(2, 3, 4), leaf(3, 4), leaf(3, 4))),
    "layer_norm_bias_only": (lambda x, b: F.layer_norm(x, (4,), None, b),
                             lambda: (leaf(3, 4), leaf(4))),
    "group_norm": (lambda x, w, b: F.group_norm(x, 2, w, b),
                   lambda: (leaf(3, 4, 3), leaf(4), leaf(4))),
    "rms_norm": (lambda x, w: F.rms_norm(x, (4,), w), lambda: (leaf(3, 4), leaf(4))),
    "instance_norm": (lambda x, w, b: F.instance_norm(x, weight=w, bias=b),
                      lambda: (leaf(2, 3, 4), leaf(3), leaf(3))),
}


@pytest.mark.parametrize("name", sorted(GRAD_CASES))
def test_gradcheck_and_gradgradcheck(name):
    fn, make = GRAD_CASES[name]
    args = make()
    assert gradcheck(fn, args)
    assert gradgradcheck(fn, args)


def test_backward_ops_differentiate_on_their_own():
    x, g, w = leaf(4, 3, 2), leaf(4, 3, 2), leaf(3)
    _, mean, rstd = C.native_batch_norm(x.detach(), w.detach(), None, None, None, True, 0.1,
                                        1e-5)

    def bn_backward(g, x, w):
        # the saved statistics are those of x, as the forward would have made them
        _, m, r = C.native_batch_norm(x.detach(), None, None, None, None, True, 0.1, 1e-5)
        return C.native_batch_norm_backward(g, x, w, m, r, True, 1e-5)
    assert gradcheck(bn_backward, (g, x, w))
    xl, gl, wl = leaf(2, 5), leaf(2, 5), leaf(5)

    def ln_backward(g, x, w):
        _, m, r = C.native_layer_norm(x.detach(), [5], None, None, 1e-5)
        return C.native_layer_norm_backward(g, x, [5], m, r, w, None)
    assert gradcheck(ln_backward, (gl, xl, wl))

    def gn_backward(g, x, w):
        _, m, r = C.native_group_norm(x.detach(), None, None, 2, 5, 1, 1, 1e-5)
        return C.native_group_norm_backward(g, x, m, r, w, 2, 5, 1, 1)
    assert gradcheck(gn_backward, (gl, xl, wl))

    def rms_backward(g, x, w):
        _, r = C._fused_rms_norm(x.detach(), [5], None, 1e-5)
        return C._fused_rms_norm_backward(g, x, [5], r, w)
    assert gradcheck(rms_backward, (gl, xl, wl))


def test_backward_matches_numpy_for_float32():
    x, g = randn(8, 16), randn(8, 16)
    w = randn(16)
    xt = T.tensor(x, dtype=T.float32, requires_grad=True)
    wt = T.tensor(w, dtype=T.float32, requires_grad=True)
    F.layer_norm(xt, (16,), wt).backward(T.tensor(g, dtype=T.float32))
    xhat = np_norm(x, (1,), 1e-5)
    rstd = 1 / np.sqrt(x.var(1, keepdims=True) + 1e-5)
    gw = g * w
    dx = rstd * (gw - gw.mean(1, keepdims=True) - xhat * (gw * xhat).mean(1, keepdims=True))
    np.testing.assert_allclose(xt.grad.cpu().numpy(), dx, rtol=1e-4, atol=1e-5)
    np.testing.assert_allclose(wt.grad.cpu().numpy(), (g * xhat).sum(0), rtol=1e-4, atol=1e-5)


def np_layer_norm_backward(g, x, w, eps=1e-5):
    """dx, dw, db of layer_norm over the last dim."""
    xhat = np_norm(x, (-1,), eps)
    rstd = 1 / np.sqrt(x.var(-1, keepdims=True) + eps)
    gw = g * w
    dx = rstd * (gw - gw.mean(-1, keepdims=True) - xhat * (gw * xhat).mean(-1, keepdims=True))
    return dx, (g * xhat).reshape(-1, x.shape[-1]).sum(0), g.reshape(-1, x.shape[-1]).sum(0)


@pytest.mark.parametrize("dtype", [T.float64, T.float32])
@pytest.mark.parametrize("grad", ["scalar", "row", "sliced", "transposed"])
def test_layer_norm_backward_strided_grads_and_many_rows(dtype, grad):
    # the gradient of sum() (a broadcast scalar), a broadcast row, a slice and
    # a transposed grad, over enough rows that dw/db are summed in chunks
    M, K = 1000, 48
    x, w = randn(M, K), randn(K)
    gfull = randn(M, 2 * K)
    g = {"scalar": np.full((M, K), 0.7), "row": np.broadcast_to(gfull[0, :K], (M, K)),
         "sliced": gfull[:, 5:5 + K], "transposed": gfull[:, :K]}[grad]
    if grad == "scalar":
        gt = T.tensor(0.7, dtype=dtype).expand(M, K)
    elif grad == "row":
        gt = T.tensor(gfull[0, :K], dtype=dtype).expand(M, K)
    elif grad == "sliced":
        gt = T.tensor(gfull, dtype=dtype)[:, 5:5 + K]
    else:
        gt = T.tensor(np.ascontiguousarray(gfull[:, :K].T), dtype=dtype).t()
    xt = T.tensor(x, dtype=dtype, requires_grad=True)
    wt = T.tensor(w, dtype=dtype, requires_grad=True)
    bt = T.zeros(K, dtype=dtype, requires_grad=True)
    F.layer_norm(xt, (K,), wt, bt).backward(gt)
    dx, dw, db = np_layer_norm_backward(g, x, w)
    tol = 1e-10 if dtype == T.float64 else 2e-4
    np.testing.assert_allclose(xt.grad.cpu().numpy(), dx, rtol=tol, atol=tol)
    np.testing.assert_allclose(wt.grad.cpu().numpy(), dw, rtol=tol, atol=tol * 10)
    np.testing.assert_allclose(bt.grad.cpu().numpy(), db, rtol=tol, atol=tol * 10)


def np_batch_norm_backward(g, x, w, eps=1e-5):
    """dx, dw, db of training batch_norm of (N, C, *spatial)."""
    axes = (0,) + tuple(range(2, x.ndim))
    shape = (1, -1) + (1,) * (x.ndim - 2)
    xhat = np_norm(x, axes, eps)
    rstd = 1 / np.sqrt(x.var(axes, keepdims=True) + eps)
    gw = g * w.reshape(shape)
    dx = rstd * (gw - gw.mean(axes, keepdims=True) - xhat * (gw * xhat).mean(axes, keepdims=True))
    return dx, (g * xhat).sum(axes), g.sum(axes)


@pytest.mark.parametrize("dtype", [T.float64, T.float32])
@pytest.mark.parametrize("grad", ["scalar", "sliced", "channel_broadcast", "transposed"])
def test_batch_norm_backward_strided_grads(dtype, grad):
    # the gradient of sum() (a broadcast scalar: read as one line, not
    # copied), a channel slice (lines read in place), a value per (n, c)
    # broadcast over the spatial dims and a transposed grad (both copied)
    N, Cn, H, W = 3, 4, 5, 6
    x, w = randn(N, Cn, H, W), randn(Cn)
    gfull = randn(N, 2 * Cn, H, W)
    g = {"scalar": np.full((N, Cn, H, W), 0.7), "sliced": gfull[:, 3:3 + Cn],
         "channel_broadcast": np.broadcast_to(gfull[:, :Cn, :1, :1], (N, Cn, H, W)),
         "transposed": gfull[:, :Cn]}[grad]
    if grad == "scalar":
        gt = T.tensor(0.7, dtype=dtype).expand(N, Cn, H, W)
    elif grad == "sliced":
        gt = T.tensor(gfull, dtype=dtype)[:, 3:3 + Cn]
    elif grad == "channel_broadcast":
        gt = T.tensor(gfull[:, :Cn, :1, :1], dtype=dtype).expand(N, Cn, H, W)
    else:
        gt = T.tensor(np.ascontiguousarray(gfull[:, :Cn].transpose(0, 1, 3, 2)),
                      dtype=dtype).transpose(2, 3)
    xt = T.tensor(x, dtype=dtype, requires_grad=True)
    wt = T.tensor(w, dtype=dtype, requires_grad=True)
    bt = T.zeros(Cn, dtype=dtype, requires_grad=True)
    F.batch_norm(xt, None, None, wt, bt, training=True).backward(gt)
    dx, dw, db = np_batch_norm_backward(g, x, w)
    tol = 1e-10 if dtype == T.float64 else 2e-4
    np.testing.assert_allclose(xt.grad.cpu().numpy(), dx, rtol=tol, atol=tol)
    np.testing.assert_allclose(wt.grad.cpu().numpy(), dw, rtol=tol, atol=tol * 10)
    np.testing.assert_allclose(bt.grad.cpu().numpy(), db, rtol=tol, atol=tol * 10)


@pytest.mark.parametrize("name", ["batch", "layer", "group", "rms"])
def test_the_tape_keeps_the_input_and_statistics_not_the_output(name):
    # as PyTorch's native_*_norm nodes: the normalised output is not saved
    # (it would hold a second activation-sized tensor until backward)
    x = T.randn(4, 6, 5, 5, requires_grad=True)
    w = T.randn(6, requires_grad=True) if name in ("batch", "group") else \
        T.randn(5, requires_grad=True)
    y = {"batch": lambda: F.batch_norm(x, None, None, w, None, training=True),
         "layer": lambda: F.layer_norm(x, (5,), w),
         "group": lambda: F.group_norm(x, 3, w),
         "rms": lambda: F.rms_norm(x, (5,), w)}[name]()
    saved = y.grad_fn._saved_tensors
    big = [t for t in saved if t.numel() == x.numel()]
    assert len(big) == 1 and big[0].data_ptr() == x.data_ptr()
    assert all(t.data_ptr() != y.data_ptr() for t in saved)
    y.backward(T.ones_like(y))
    assert x.grad is not None and w.grad is not None


def test_layer_norm_weight_grad_alone_and_empty_batch():
    x, w, g = randn(300, 40), randn(40), randn(300, 40)
    xt = T.tensor(x)
    wt = T.tensor(w, requires_grad=True)
    F.layer_norm(xt, (40,), wt).backward(T.tensor(g))
    np.testing.assert_allclose(wt.grad.cpu().numpy(), np_layer_norm_backward(g, x, w)[1], rtol=1e-10)
    xe = T.zeros(0, 40, requires_grad=True)
    we = T.ones(40, requires_grad=True)
    F.layer_norm(xe, (40,), we).sum().backward()
    assert xe.grad.shape == (0, 40) and np.all(we.grad.cpu().numpy() == 0)


# ---- local response norm ----------------------------------------------------------------

def np_lrn(x, size, alpha, beta, k):
    """x / (k + alpha/size * sum of x^2 over the zero-padded window of channels)^beta."""
    x = np.asarray(x, np.float64)
    C = x.shape[1]
    sq = x * x
    win = np.zeros_like(x)
    for c in range(C):
        lo, hi = max(c - size // 2, 0), min(c + (size - 1) // 2, C - 1)
        win[:, c] = sq[:, lo:hi + 1].sum(1)
    return x / (k + alpha / size * win) ** beta


@pytest.mark.parametrize("dtype", [T.float64, T.float32])
@pytest.mark.parametrize("shape,size", [((2, 5, 7), 3), ((2, 6, 3, 4), 2), ((1, 7, 2, 3, 2), 5),
                                        ((2, 3, 4), 8), ((3, 4, 2), 1), ((0, 4, 3), 3),
                                        ((2, 0, 3), 3)])
def test_local_response_norm_matches_numpy(dtype, shape, size):
    x = randn(*shape) * 2
    y = F.local_response_norm(T.tensor(x).to(dtype), size, alpha=0.4, beta=0.7, k=1.3)
    assert y.shape == shape and y.dtype == dtype
    np.testing.assert_allclose(as_np(y), np_lrn(x, size, 0.4, 0.7, 1.3), rtol=TOL[dtype],
                               atol=TOL[dtype])


def test_local_response_norm_non_contiguous_and_module():
    x = randn(4, 3, 5, 2)
    xt = T.tensor(x).permute(3, 0, 1, 2)          # (2, 4, 3, 5) strided
    want = np_lrn(x.transpose(3, 0, 1, 2), 3, 1e-4, 0.75, 1.0)
    np.testing.assert_allclose(F.local_response_norm(xt, 3).cpu().numpy(), want, rtol=1e-12)
    np.testing.assert_allclose(nn.LocalResponseNorm(3)(xt).cpu().numpy(), want, rtol=1e-12)


@pytest.mark.parametrize("shape,size", [((2, 5, 3), 3), ((1, 4, 2, 3), 2), ((1, 3, 2, 2, 2), 5)])
def test_local_response_norm_gradients(shape, size):
    x = T.tensor(randn(*shape), requires_grad=True)

    def fn(a):
        return F.local_response_norm(a, size, alpha=0.6, beta=0.8, k=1.2)
    assert gradcheck(fn, (x,))
    assert gradgradcheck(fn, (x,))
    g = T.tensor(randn(*shape), requires_grad=True)
    assert gradcheck(lambda a, b: C._local_response_norm_backward(a, b, size, 0.6, 0.8, 1.2), (g, x))


def test_local_response_norm_backward_matches_numpy_float32():
    x, g = randn(2, 6, 4, 5), randn(2, 6, 4, 5)
    xt = T.tensor(x, dtype=T.float32, requires_grad=True)
    F.local_response_norm(xt, 4, alpha=0.5, beta=0.9, k=1.1).backward(T.tensor(g, dtype=T.float32))
    # central differences of the float64 reference along g
    eps, dx = 1e-6, np.zeros_like(x)
    for i in np.ndindex(x.shape):
        e = np.zeros_like(x)
        e[i] = eps
        dx[i] = ((np_lrn(x + e, 4, 0.5, 0.9, 1.1) - np_lrn(x - e, 4, 0.5, 0.9, 1.1)) * g).sum() / (2 * eps)
    np.testing.assert_allclose(xt.grad.cpu().numpy(), dx, rtol=1e-4, atol=1e-5)


LRN_GOLDEN = os.path.join(os.path.dirname(__file__), "golden", "nn_lrn")


@pytest.mark.parametrize("case", load_cases(LRN_GOLDEN), ids=lambda c: c["name"])
def test_local_response_norm_matches_pytorchs_recorded_values(case):
    run_golden(LRN_GOLDEN, case)


def test_local_response_norm_errors():
    with pytest.raises(ValueError, match=r"Expected 3D or higher dimensionality +input \(got 2"):
        F.local_response_norm(T.ones(2, 3), 2)
    with pytest.raises(RuntimeError, match="not implemented for 'int64'"):
        F.local_response_norm(T.ones(2, 3, 4, dtype=T.int64), 2)
    with pytest.raises(ValueError, match="size must be positive"):
        F.local_response_norm(T.ones(2, 3, 4), 0)
    with pytest.raises(RuntimeError, match="does not match input"):
        C._local_response_norm_backward(T.ones(2, 3, 5), T.ones(2, 3, 4), 2, 1e-4, 0.75, 1.0)


# ---- errors -----------------------------------------------------------------------------

def test_errors_name_the_shapes():
    x = T.randn(4, 3, 2)
    with pytest.raises(RuntimeError, match=r"^running_mean should contain 3 elements not 4$"):
        F.batch_norm(x, T.zeros(4), T.ones(3), training=True)
    with pytest.raises(RuntimeError, match=r"^weight should contain 3 elements not 2$"):
        F.batch_norm(x, None, None, T.ones(2), training=True)
    with pytest.raises(ValueError, match="Expected more than 1 value per channel when training"):
        F.batch_norm(T.randn(1, 3), None, None, training=True)
    with pytest.raises(RuntimeError, match="^running_mean must be defined in evaluation mode$"):
        F.batch_norm(x, None, None, training=False)
    with pytest.raises(RuntimeError, match=r"Given normalized_shape=\[4\], expected input with "
                                           r"shape \[\*, 4\], but got input of size\[4, 3, 2\]"):
        F.layer_norm(x, (4,))
    with pytest.raises(RuntimeError, match=r"Expected weight to be of same shape as "
                                           r"normalized_shape, but got weight of shape \[3\] and "
                                           r"normalized_shape = \[2\]"):
        F.layer_norm(x, (2,), T.ones(3))
    with pytest.raises(RuntimeError, match=r"Expected number of channels in input to be divisible"
                                           r" by num_groups, but got input of shape \[4, 3, 2\] "
                                           r"and num_groups=2"):
        F.group_norm(x, 2)
    with pytest.raises(RuntimeError, match="expected a floating point input"):
        F.layer_norm(T.ones(2, 3, dtype=T.int64), (3,))


# ---- devices ----------------------------------------------------------------------------

@pytest.mark.host_only  # runs its own fake-device subprocess
def test_fake_device_uses_the_device_kernel_and_keeps_results_there():
    run_on_fake_device("""
        import numpy as np
        import torchlike as T
        import torchlike.nn.functional as F
        C = T._C
        C._fake_enable()
        x = T.randn(3, 4).to("fake")
        try:
            C.native_layer_norm(x, [4], None, None, 1e-5)
        except NotImplementedError as e:
            assert "native_layer_norm(): no kernel for device fake:0" in str(e), e
        else:
            raise AssertionError("ran without a kernel")
        C._dispatch_lend_cpu_kernels("fake", True)
        x = T.randn(3, 4).to("fake")
        for fn in (lambda t: F.layer_norm(t, (4,)), lambda t: F.group_norm(t, 2),
                   lambda t: F.batch_norm(t, None, None, training=True),
                   lambda t: F.rms_norm(t, (4,))):
            y = fn(x)
            assert str(y.device) == "fake:0"
            np.testing.assert_allclose(y.cpu().numpy(), fn(x.cpu()).cpu().numpy(), rtol=1e-6)
        xr = x.detach().requires_grad_()
        F.layer_norm(xr, (4,)).pow(2).sum().backward()
        assert str(xr.grad.device) == "fake:0"
        print("ok")
    """)


def test_batch_norm_empty_batch_keeps_running_stats_and_reaches_weight_and_bias():
    # PyTorch refuses exactly one value per channel, not an empty batch: the
    # output is empty, the running statistics stay, weight and bias get zeros
    rm, rv = T.full((3,), 0.5), T.full((3,), 2.0)
    x = T.zeros(0, 3, 4, requires_grad=True)
    w, b = T.ones(3, requires_grad=True), T.ones(3, requires_grad=True)
    y = F.batch_norm(x, rm, rv, w, b, True, 0.1)
    y.sum().backward()
    assert tuple(y.shape) == (0, 3, 4) and tuple(x.grad.shape) == (0, 3, 4)
    np.testing.assert_array_equal(rm.cpu().numpy(), np.full(3, 0.5))
    np.testing.assert_array_equal(rv.cpu().numpy(), np.full(3, 2.0))
    np.testing.assert_array_equal(w.grad.cpu().numpy(), np.zeros(3))
    np.testing.assert_array_equal(b.grad.cpu().numpy(), np.zeros(3))
    for m in (nn.BatchNorm2d(3), nn.BatchNorm2d(3, momentum=None)):
        assert tuple(m(T.zeros(0, 3, 2, 2)).shape) == (0, 3, 2, 2)
        assert int(m.num_batches_tracked) == 1
        np.testing.assert_array_equal(m.running_mean.cpu().numpy(), np.zeros(3))
        np.testing.assert_array_equal(m.running_var.cpu().numpy(), np.ones(3))
    with pytest.raises(ValueError, match=r"input size torchlike.Size\(\[1, 3, 1, 1\]\)"):
        F.batch_norm(T.zeros(1, 3, 1, 1), None, None, training=True)
    with pytest.raises(ValueError, match="^batch_norm eps must be positive during training, "
                                         "but got 0.0$"):
        F.batch_norm(T.zeros(2, 3), None, None, training=True, eps=0.0)
    with pytest.raises(ValueError, match="^batch_norm eps must be non-negative, but got -1.0$"):
        F.batch_norm(T.zeros(2, 3), T.zeros(3), T.ones(3), eps=-1.0)
    with pytest.raises(ValueError, match=r"^num_channels \(6\) must be divisible by "
                                         r"num_groups \(4\)$"):
        nn.GroupNorm(4, 6)


def test_instance_norm_checks_num_features_as_pytorch():
    # affine: the parameters cannot fit, PyTorch's ValueError; without them
    # num_features is unused, and PyTorch warns
    with pytest.raises(ValueError, match=r"^expected input's size at dim=1 to match num_features "
                                         r"\(3\), but got: 2\.$"):
        nn.InstanceNorm2d(3, affine=True)(T.ones(1, 2, 4, 4))
    with pytest.raises(ValueError, match="at dim=0 to match num_features"):
        nn.InstanceNorm1d(3, affine=True)(T.ones(2, 4))
    with pytest.warns(UserWarning, match="input's size at dim=1 does not match num_features"):
        out = nn.InstanceNorm1d(3)(T.ones(1, 2, 4))
    assert out.shape == (1, 2, 4)


def test_an_empty_normalized_shape_is_refused_in_pytorchs_words():
    for norm in (F.layer_norm, F.rms_norm):
        with pytest.raises(RuntimeError, match=r"^Expected normalized_shape to be at least "
                                               r"1-dimensional, i.e., containing at least one "
                                               r"element, but got normalized_shape = \[\]$"):
            norm(T.ones(2, 3), ())


def test_normalized_shape_mismatch_in_pytorch_words():
    # layer_norm's message puts ", " after the star, rms_norm's (PyTorch
    # 2.15's wording) does not
    x = T.ones(2, 4)
    with pytest.raises(RuntimeError) as info:
        F.layer_norm(x, [2, 3])
    assert str(info.value) == ("Given normalized_shape=[2, 3], expected input with shape "
                               "[*, 2, 3], but got input of size[2, 4]")
    with pytest.raises(RuntimeError) as info:
        F.rms_norm(x, [3])
    assert str(info.value) == ("Given normalized_shape=[3], expected input with shape [*3], but "
                               "got input of size[2, 4]")
    with pytest.raises(RuntimeError, match=r"expected input with shape \[\*2, 3\], but"):
        T.nn.RMSNorm([2, 3])(x)


def test_group_norm_refuses_empty_spatial_dims_first():
    # PyTorch 2.15 refuses HxW == 0 before any other check, even with an
    # empty batch; an empty batch with spatial positions is normalised
    for shape in ((2, 6, 0), (0, 6, 0), (2, 4, 3, 0)):
        with pytest.raises(RuntimeError) as info:
            F.group_norm(T.ones(*shape), 3)
        assert str(info.value) == "Expected HxW to be greater than 0, got 0"
    assert F.group_norm(T.ones(0, 6, 2), 3).shape == (0, 6, 2)
    assert F.group_norm(T.ones(2, 6), 3).shape == (2, 6)


def test_missing_running_statistics_in_pytorchs_words():
    x = T.ones(2, 4, 3)
    # training: the two statistics come together or not at all
    for rm, rv in ((None, T.ones(4)), (T.zeros(4), None)):
        with pytest.raises(ValueError, match="^running_mean and running_var must either both be "
                                             "None or neither be None$"):
            F.batch_norm(x, rm, rv, training=True)
        with pytest.raises(ValueError, match="must either both be None"):
            F.instance_norm(x, rm, rv)
    # evaluation: each is needed, the mean named first
    with pytest.raises(RuntimeError, match="^running_mean must be defined in evaluation mode$"):
        F.batch_norm(x, None, None)
    with pytest.raises(RuntimeError, match="^running_var must be defined in evaluation mode$"):
        F.batch_norm(x, T.zeros(4), None)
    with pytest.raises(RuntimeError, match="^Expected running_mean and running_var to be defined "
                                           "when use_input_stats is false$"):
        F.instance_norm(x, T.zeros(4), None, use_input_stats=False)
    # momentum=None is the modules' cumulative average, not the functions'
    for fn in (F.batch_norm, F.instance_norm):
        with pytest.raises(TypeError, match=r"argument 'momentum' \(position 7\) must be float, "
                                            r"not NoneType$"):
            fn(x, T.zeros(4), T.ones(4), training=True, momentum=None) if fn is F.batch_norm \
                else fn(x, T.zeros(4), T.ones(4), momentum=None)
    bn = nn.BatchNorm1d(4, momentum=None)
    bn(x)
    assert int(bn.num_batches_tracked) == 1


def test_instance_norm_reports_untracked_running_stats_of_an_old_checkpoint():
    # a plain dict (no version) with stats the module does not track: PyTorch's
    # message, raised whatever strict says; a versioned state dict's are
    # ordinary unexpected keys
    m = nn.InstanceNorm1d(4, affine=True)
    sd = {"weight": T.ones(4), "bias": T.zeros(4), "running_mean": T.zeros(4),
          "running_var": T.ones(4)}
    for strict in (True, False):
        with pytest.raises(RuntimeError) as info:
            m.load_state_dict(sd, strict=strict)
        assert str(info.value) == (
            "Error(s) in loading state_dict for InstanceNorm1d:\n\tUnexpected running stats "
            "buffer(s) \"running_mean\" and \"running_var\" for InstanceNorm1d with "
            "track_running_stats=False. If state_dict is a checkpoint saved before 0.4.0, this "
            "may be expected because InstanceNorm1d does not track running stats by default "
            "since 0.4.0. Please remove these keys from state_dict. If the running stats are "
            "actually needed, instead set track_running_stats=True in InstanceNorm1d to enable "
            "them. See the documentation of InstanceNorm1d for details.")
    tracked = nn.InstanceNorm1d(4, track_running_stats=True).state_dict()
    report = nn.InstanceNorm1d(4).load_state_dict(tracked, strict=False)
    assert report.unexpected_keys == ["running_mean", "running_var", "num_batches_tracked"]


@pytest.mark.parametrize("x_dtype,w_dtype,b_dtype,message", [
    # PyTorch's CPU rule: parameters in the input's dtype, or all float32
    # beside a half input; the first given parameter picks the message
    (T.float64, T.float32, T.float32, r"^mixed dtype \(CPU\): all inputs must share same datatype\.$"),
    (T.float32, T.float64, T.float64, r"^mixed dtype \(CPU\): expect parameter to have scalar type "
                                      r"of Float$"),
    (T.bfloat16, T.float32, T.float64, r"expect parameter to have scalar type of Float$"),
    (T.float16, T.bfloat16, T.bfloat16, r"expect parameter to have scalar type of Float$"),
    (T.float32, T.float32, T.float64, r"^expected scalar type Float but found Double$"),
    (T.bfloat16, T.bfloat16, T.float32, r"^expected scalar type BFloat16 but found Float$"),
    (T.float16, T.float32, T.float32, None),
    (T.bfloat16, T.bfloat16, T.bfloat16, None),
])
def test_parameters_of_another_dtype_follow_pytorchs_cpu_rule(x_dtype, w_dtype, b_dtype, message):
    x = T.tensor(randn(2, 4, 6)).to(x_dtype)
    w6, b6 = T.ones(6, dtype=w_dtype), T.zeros(6, dtype=b_dtype)
    w4, b4 = T.ones(4, dtype=w_dtype), T.zeros(4, dtype=b_dtype)
    calls = [lambda: F.layer_norm(x, (6,), w6, b6), lambda: F.group_norm(x, 2, w4, b4),
             lambda: F.batch_norm(x, None, None, w4, b4, True),
             lambda: F.batch_norm(x, T.zeros(4, dtype=w_dtype), T.ones(4, dtype=w_dtype), w4, b4),
             lambda: F.instance_norm(x, weight=w4, bias=b4)]
    for call in calls:
        if message is None:
            assert call().dtype == x_dtype
        else:
            with pytest.raises(RuntimeError, match=message):
                call()
    # the running statistics count as parameters too, after the weights
    with pytest.raises(RuntimeError, match=r"all inputs must share same datatype\.$"):
        F.batch_norm(x.double(), T.zeros(4), T.ones(4))
    # layer_norm judges the dtypes before the shapes, as PyTorch's does
    with pytest.raises(RuntimeError, match="all inputs must share"):
        F.layer_norm(x.double(), (5,), T.ones(6))
