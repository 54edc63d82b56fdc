"""nn.functional against NumPy reference implementations written here, over
float32/float64, batch shapes (0-size batches included) and non-contiguous
inputs; gradients by finite differences (gradcheck, gradgradcheck) in float64."""
import math

import re

import numpy as np
import pytest

import torchlike as torch
import torchlike.nn.functional as F
from torchlike.autograd import gradcheck, gradgradcheck

DTYPES = [torch.float32, torch.float64]
TOL = {torch.float32: dict(rtol=2e-5, atol=2e-6), torch.float64: dict(rtol=1e-10, atol=1e-12)}
rng = np.random.default_rng(7)


def t(a, dtype=torch.float64, grad=False):
    x = torch.tensor(np.asarray(a), dtype=dtype)
    return x.requires_grad_(True) if grad else x


def noncontig(a, dtype):
    """The same values as ``a`` in a tensor that is a transposed view."""
    base = torch.tensor(np.ascontiguousarray(np.swapaxes(a, 0, -1)), dtype=dtype)
    x = base.transpose(0, -1)
    assert not x.is_contiguous()
    return x


def assert_close(out, expected, dtype):
    np.testing.assert_allclose(out.detach().double().cpu().numpy(), expected, **TOL[dtype])


# ---- NumPy references ---------------------------------------------------------------------------

def np_softplus(x, beta=1.0, threshold=20.0):
    return np.where(x * beta > threshold, x, np.logaddexp(0, x * beta) / beta)


def np_sigmoid(x):
    return 1 / (1 + np.exp(-x))


def np_erf(x):
    return np.vectorize(math.erf, otypes=[np.float64])(x)


ACTIVATIONS = {
    "relu": (lambda x: F.relu(x), lambda x: np.maximum(x, 0)),
    "relu6": (lambda x: F.relu6(x * 4), lambda x: np.clip(x * 4, 0, 6)),
    "leaky_relu": (lambda x: F.leaky_relu(x, 0.1), lambda x: np.where(x > 0, x, 0.1 * x)),
    "elu": (lambda x: F.elu(x, 0.5), lambda x: np.where(x > 0, x, 0.5 * np.expm1(x))),
    "selu": (F.selu, lambda x: 1.0507009873554805 * np.where(
        x > 0, x, 1.6732632423543772 * np.expm1(x))),
    "celu": (lambda x: F.celu(x, 2.0), lambda x: np.where(x > 0, x, 2 * np.expm1(x / 2))),
    "gelu": (F.gelu, lambda x: 0.5 * x * (1 + np_erf(x / np.sqrt(2)))),
    "gelu_tanh": (lambda x: F.gelu(x, approximate="tanh"), lambda x: 0.5 * x * (
        1 + np.tanh(np.sqrt(2 / np.pi) * (x + 0.044715 * x ** 3)))),
    "silu": (F.silu, lambda x: x * np_sigmoid(x)),
    "mish": (F.mish, lambda x: x * np.tanh(np_softplus(x))),
    "softplus": (lambda x: F.softplus(x, 2.0, 1.0), lambda x: np_softplus(x, 2.0, 1.0)),
    "softsign": (F.softsign, lambda x: x / (1 + np.abs(x))),
    "hardtanh": (lambda x: F.hardtanh(x, -0.5, 0.5), lambda x: np.clip(x, -0.5, 0.5)),
    "hardsigmoid": (lambda x: F.hardsigmoid(x * 4), lambda x: np.clip(x * 4 / 6 + 0.5, 0, 1)),
    "hardswish": (lambda x: F.hardswish(x * 4),
                  lambda x: x * 4 * np.clip(x * 4 + 3, 0, 6) / 6),
    "hardshrink": (lambda x: F.hardshrink(x, 0.5), lambda x: np.where(np.abs(x) > 0.5, x, 0)),
    "softshrink": (lambda x: F.softshrink(x, 0.5),
                   lambda x: np.where(x > 0.5, x - 0.5, np.where(x < -0.5, x + 0.5, 0))),
    "tanhshrink": (F.tanhshrink, lambda x: x - np.tanh(x)),
    "threshold": (lambda x: F.threshold(x, 0.2, -1.0), lambda x: np.where(x > 0.2, x, -1.0)),
    "logsigmoid": (lambda x: F.logsigmoid(x * 30), lambda x: -np.logaddexp(0, -x * 30)),
    "sigmoid": (F.sigmoid, np_sigmoid),
    "rrelu_eval": (lambda x: F.rrelu(x, 0.1, 0.3), lambda x: np.where(x >= 0, x, 0.2 * x)),
}


@pytest.mark.parametrize("name", sorted(ACTIVATIONS))
@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("shape", [(4, 5), (0, 3), (2, 3, 4)])
def test_activation_matches_numpy(name, dtype, shape):
    ours, ref = ACTIVATIONS[name]
    a = rng.standard_normal(shape)
    out = ours(t(a, dtype))
    assert out.dtype == dtype and out.shape == shape
    assert_close(out, ref(a), dtype)
    if len(shape) >= 2 and shape[0]:
        assert_close(ours(noncontig(a, dtype)), ref(a), dtype)


@pytest.mark.parametrize("name", sorted(ACTIVATIONS))
def test_activation_gradcheck(name):
    ours, _ = ACTIVATIONS[name]
    # away from the kinks, where finite differences are not defined
    a = rng.uniform(0.05, 1.5, (3, 4)) * rng.choice([-1, 1], (3, 4))
    assert gradcheck(ours, (t(a, grad=True),))


def test_activation_inplace_writes_the_input():
    x = t([-1.0, 2.0])
    y = F.relu(x, inplace=True)
    np.testing.assert_array_equal(x.cpu().numpy(), [0.0, 2.0])
    assert y.data_ptr() == x.data_ptr()


def np_softmax(x, axis):
    e = np.exp(x - x.max(axis=axis, keepdims=True))
    return e / e.sum(axis=axis, keepdims=True)


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("dim", [0, 1, -1])
def test_softmax_family_matches_numpy_and_is_stable(dtype, dim):
    a = rng.standard_normal((3, 4, 5)) * 50   # large logits: a naive exp overflows
    x = t(a, dtype)
    assert_close(F.softmax(x, dim), np_softmax(a, dim), dtype)
    assert_close(F.log_softmax(x, dim), np.log(np_softmax(a, dim)), dtype) \
        if dtype == torch.float64 else None
    assert_close(F.softmin(x, dim), np_softmax(-a, dim), dtype)
    assert F.softmax(t(np.zeros((0, 3)), dtype), 1).shape == (0, 3)
    assert gradcheck(lambda v: F.log_softmax(v, dim), (t(a / 50, grad=True),))
    assert gradgradcheck(lambda v: F.softmax(v, dim), (t(a / 50, grad=True),))


def test_glu_and_prelu_match_numpy():
    a = rng.standard_normal((2, 6, 3))
    np.testing.assert_allclose(F.glu(t(a), 1).cpu().numpy(), a[:, :3] * np_sigmoid(a[:, 3:]))
    w = np.array([0.1, 0.2, -0.3, 0.4, 0.5, 0.6])
    np.testing.assert_allclose(F.prelu(t(a), t(w)).cpu().numpy(),
                               np.where(a > 0, a, w[None, :, None] * a))
    assert gradcheck(lambda x, ww: F.prelu(x, ww), (t(a, grad=True), t(w, grad=True)))


# ---- losses ----------------------------------------------------------------------------------

def np_cross_entropy(logits, target, weight=None, ignore_index=-100, smoothing=0.0,
                     reduction="mean"):
    """Written from the definition: per-sample -sum_c q_c w_c log p_c, with
    q the (smoothed) one-hot target; mean divides by the target weights."""
    N, C = logits.shape
    logp = np.log(np_softmax(logits, 1))
    w = np.ones(C) if weight is None else weight
    losses, denom = [], 0.0
    for n in range(N):
        if target[n] == ignore_index:
            losses.append(0.0)
            continue
        q = np.full(C, smoothing / C)
        q[target[n]] += 1 - smoothing
        nll = -w[target[n]] * logp[n, target[n]]
        smooth = -(w * logp[n]).sum()
        losses.append((1 - smoothing) * nll + smoothing / C * smooth)
        denom += w[target[n]]
    losses = np.array(losses)
    if reduction == "none":
        return losses
    if reduction == "sum":
        return losses.sum()
    return losses.sum() / denom


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("kw", [{}, {"weight": True}, {"ignore_index": 1},
                                {"smoothing": 0.2}, {"weight": True, "smoothing": 0.1,
                                                     "ignore_index": 0},
                                {"reduction": "none"}, {"reduction": "sum", "weight": True}])
def test_cross_entropy_matches_numpy(dtype, kw):
    logits = rng.standard_normal((6, 4))
    target = np.array([0, 1, 3, 2, 1, 3])
    weight = rng.uniform(0.5, 2, 4) if kw.get("weight") else None
    expected = np_cross_entropy(logits, target, weight, kw.get("ignore_index", -100),
                                kw.get("smoothing", 0.0), kw.get("reduction", "mean"))
    out = F.cross_entropy(t(logits, dtype), torch.tensor(target),
                          weight=None if weight is None else t(weight, dtype),
                          ignore_index=kw.get("ignore_index", -100),
                          label_smoothing=kw.get("smoothing", 0.0),
                          reduction=kw.get("reduction", "mean"))
    assert_close(out, expected, dtype)
    # the same loss on a (N, C, d) input with the class dim in the middle
    out3 = F.cross_entropy(t(logits.T[None], dtype), torch.tensor(target[None]),
                           weight=None if weight is None else t(weight, dtype),
                           ignore_index=kw.get("ignore_index", -100),
                           label_smoothing=kw.get("smoothing", 0.0),
                           reduction=kw.get("reduction", "mean"))
    assert_close(out3.reshape(-1) if out3.ndim else out3, expected, dtype)


def test_cross_entropy_gradcheck_and_errors():
    logits = t(rng.standard_normal((5, 3)), grad=True)
    target = torch.tensor([0, 2, 1, 1, 0])
    assert gradcheck(lambda x: F.cross_entropy(x, target, label_smoothing=0.1), (logits,))
    assert gradgradcheck(lambda x: F.cross_entropy(x, target), (logits,))
    probs = t(np_softmax(rng.standard_normal((5, 3)), 1))
    assert gradcheck(lambda x: F.cross_entropy(x, probs), (logits,))
    with pytest.raises(IndexError, match="Target 3 is out of bounds"):
        F.cross_entropy(logits, torch.tensor([0, 3, 1, 1, 0]))
    with pytest.raises(ValueError, match="batch_size"):
        F.cross_entropy(logits, torch.tensor([0, 1]))


def test_cross_entropy_empty_batch_mean_is_nan_sum_is_zero():
    x = t(np.zeros((0, 3)))
    y = torch.tensor(np.zeros(0, dtype=np.int64))
    assert math.isnan(float(F.cross_entropy(x, y)))
    assert float(F.cross_entropy(x, y, reduction="sum")) == 0.0


POINTWISE_LOSSES = {
    "mse": (F.mse_loss, lambda a, b: (a - b) ** 2),
    "l1": (F.l1_loss, lambda a, b: np.abs(a - b)),
    "smooth_l1": (lambda a, b, **k: F.smooth_l1_loss(a, b, beta=0.5, **k),
                  lambda a, b: np.where(np.abs(a - b) < 0.5, 0.5 * (a - b) ** 2 / 0.5,
                                        np.abs(a - b) - 0.25)),
    "huber": (lambda a, b, **k: F.huber_loss(a, b, delta=0.5, **k),
              lambda a, b: np.where(np.abs(a - b) < 0.5, 0.5 * (a - b) ** 2,
                                    0.5 * (np.abs(a - b) - 0.25))),
    "soft_margin": (F.soft_margin_loss, lambda a, b: np.log1p(np.exp(-a * b))),
    "bce_logits": (F.binary_cross_entropy_with_logits,
                   lambda a, b: -(b * np.log(np_sigmoid(a)) + (1 - b) * np.log(1 - np_sigmoid(a)))),
    "kl_div": (F.kl_div, lambda a, b: np.where(b > 0, b * (np.log(np.where(b > 0, b, 1)) - a),
                                               0)),
}


@pytest.mark.parametrize("name", sorted(POINTWISE_LOSSES))
@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("reduction", ["none", "mean", "sum"])
def test_pointwise_losses_match_numpy(name, dtype, reduction):
    ours, ref = POINTWISE_LOSSES[name]
    a = rng.standard_normal((3, 4))
    b = rng.uniform(0, 1, (3, 4)) if name in ("bce_logits", "kl_div") else \
        np.sign(rng.standard_normal((3, 4))) if name == "soft_margin" else \
        rng.standard_normal((3, 4))
    out = ours(noncontig(a, dtype), t(b, dtype), reduction=reduction)
    e = ref(a, b)
    assert_close(out, {"none": e, "mean": e.mean(), "sum": e.sum()}[reduction], dtype)
    assert gradcheck(lambda x: ours(x, t(b), reduction=reduction), (t(a, grad=True),))


def test_soft_margin_loss_takes_a_bool_target():
    # probing: PyTorch takes a bool target (True is 1, False 0); the loss
    # negated the target first and stopped at "neg() with bool tensors"
    a = rng.standard_normal((3, 4))
    b = rng.standard_normal((3, 4)) > 0
    out = F.soft_margin_loss(t(a), torch.tensor(b), reduction="none")
    assert out.dtype == torch.float64
    assert_close(out, np.log1p(np.exp(-a * b)), torch.float64)


def test_binary_cross_entropy_clamps_log_at_minus_100():
    x = t([0.0, 1.0, 0.5])
    y = t([1.0, 0.0, 1.0])
    np.testing.assert_allclose(F.binary_cross_entropy(x, y, reduction="none").cpu().numpy(),
                               [100.0, 100.0, math.log(2)])


# ---- normalisation ---------------------------------------------------------------------------

@pytest.mark.parametrize("dtype", DTYPES)
def test_batch_norm_training_and_running_statistics(dtype):
    a = rng.standard_normal((6, 3, 4))
    rm, rv = t(np.zeros(3), dtype), t(np.ones(3), dtype)
    w, b = rng.standard_normal(3), rng.standard_normal(3)
    out = F.batch_norm(t(a, dtype), rm, rv, t(w, dtype), t(b, dtype), training=True,
                       momentum=0.3, eps=1e-3)
    mean, var = a.mean(axis=(0, 2)), a.var(axis=(0, 2))
    e = (a - mean[:, None]) / np.sqrt(var[:, None] + 1e-3) * w[:, None] + b[:, None]
    assert_close(out, e, dtype)
    assert_close(rm, 0.3 * mean, dtype)
    assert_close(rv, 0.7 + 0.3 * a.var(axis=(0, 2), ddof=1), dtype)
    ev = F.batch_norm(t(a, dtype), rm, rv, training=False)
    assert_close(ev, (a - rm.cpu().numpy()[:, None]) / np.sqrt(rv.cpu().numpy()[:, None] + 1e-5), dtype)


def test_batchnorm_module_cumulative_average_with_momentum_none():
    bn = torch.nn.BatchNorm1d(2, momentum=None).double()
    batches = [rng.standard_normal((5, 2)) for _ in range(3)]
    for a in batches:
        bn(t(a))
    np.testing.assert_allclose(bn.running_mean.cpu().numpy(),
                               np.mean([a.mean(0) for a in batches], axis=0))
    np.testing.assert_allclose(bn.running_var.cpu().numpy(),
                               np.mean([a.var(0, ddof=1) for a in batches], axis=0))
    assert int(bn.num_batches_tracked) == 3
    bn.eval()
    a = batches[0]
    np.testing.assert_allclose(bn(t(a)).detach().cpu().numpy(),
                               (a - bn.running_mean.cpu().numpy()) / np.sqrt(bn.running_var.cpu().numpy()
                                                                      + 1e-5))


@pytest.mark.parametrize("dtype", DTYPES)
def test_layer_group_instance_rms_norm_match_numpy(dtype):
    a = rng.standard_normal((2, 4, 3, 5))
    x = noncontig(a, dtype)
    e = (a - a.mean(axis=(-2, -1), keepdims=True)) / np.sqrt(
        a.var(axis=(-2, -1), keepdims=True) + 1e-5)
    assert_close(F.layer_norm(x, (3, 5)), e, dtype)
    assert_close(F.instance_norm(x), e, dtype)
    g = a.reshape(2, 2, -1)
    eg = ((g - g.mean(-1, keepdims=True)) / np.sqrt(g.var(-1, keepdims=True) + 1e-5))
    assert_close(F.group_norm(x, 2), eg.reshape(a.shape), dtype)
    er = a / np.sqrt((a ** 2).mean(-1, keepdims=True) + 1e-6)
    assert_close(F.rms_norm(x, (5,), eps=1e-6), er, dtype)
    for fn in (lambda v: F.layer_norm(v, (2, 3)), lambda v: F.group_norm(v, 2),
               lambda v: F.rms_norm(v, (3,)), lambda v: F.instance_norm(v)):
        assert gradcheck(fn, (t(a[:1, :, :2, :3], grad=True),))


def test_norms_accept_empty_batches():
    x = t(np.zeros((0, 4, 3)))
    assert F.layer_norm(x, (3,)).shape == (0, 4, 3)
    assert F.group_norm(x, 2).shape == (0, 4, 3)
    assert F.batch_norm(x, t(np.zeros(4)), t(np.ones(4))).shape == (0, 4, 3)


# ---- convolution and pooling ----------------------------------------------------------------

def np_conv2d(x, w, b, stride, padding, dilation, groups):
    N, C, H, W = x.shape
    O, Cg, kh, kw = w.shape
    xp = np.pad(x, ((0, 0), (0, 0), (padding[0],) * 2, (padding[1],) * 2))
    Ho = (H + 2 * padding[0] - dilation[0] * (kh - 1) - 1) // stride[0] + 1
    Wo = (W + 2 * padding[1] - dilation[1] * (kw - 1) - 1) // stride[1] + 1
    out = np.zeros((N, O, Ho, Wo))
    per = O // groups
    for o in range(O):
        g = o // per
        for i in range(Ho):
            for j in range(Wo):
                patch = xp[:, g * Cg:(g + 1) * Cg,
                           i * stride[0]:i * stride[0] + dilation[0] * (kh - 1) + 1:dilation[0],
                           j * stride[1]:j * stride[1] + dilation[1] * (kw - 1) + 1:dilation[1]]
                out[:, o, i, j] = (patch * w[o]).sum(axis=(1, 2, 3))
    return out if b is None else out + b[None, :, None, None]


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("stride,padding,dilation,groups", [
    ((1, 1), (0, 0), (1, 1), 1), ((2, 1), (1, 2), (1, 1), 1), ((1, 2), (2, 1), (2, 1), 2),
    ((3, 3), (1, 1), (1, 1), 4)])
def test_conv2d_matches_numpy(dtype, stride, padding, dilation, groups):
    x = rng.standard_normal((2, 4, 7, 8))
    w = rng.standard_normal((4, 4 // groups, 3, 2))
    b = rng.standard_normal(4)
    out = F.conv2d(noncontig(x, dtype), t(w, dtype), t(b, dtype), stride, padding, dilation,
                   groups)
    assert_close(out, np_conv2d(x, w, b, stride, padding, dilation, groups), dtype)


def test_conv_empty_batch_and_gradcheck():
    w = t(rng.standard_normal((2, 3, 3, 3)))
    assert F.conv2d(t(np.zeros((0, 3, 5, 5))), w).shape == (0, 2, 3, 3)
    x = t(rng.standard_normal((1, 2, 5, 4)), grad=True)
    wg = t(rng.standard_normal((4, 1, 2, 3)), grad=True)
    bg = t(rng.standard_normal(4), grad=True)
    assert gradcheck(lambda a, b_, c: F.conv2d(a, b_, c, 2, 1, (2, 1), 2), (x, wg, bg))
    assert gradgradcheck(lambda a, b_: F.conv1d(a, b_, padding=1),
                         (t(rng.standard_normal((1, 2, 5)), grad=True),
                          t(rng.standard_normal((3, 2, 2)), grad=True)))
    wt = t(rng.standard_normal((2, 3, 3, 2)), grad=True)
    assert gradcheck(lambda a, b_: F.conv_transpose2d(a, b_, None, 2, 1, 1), (x, wt))


def test_conv_transpose_is_the_adjoint_of_conv():
    """<conv(x, w), y> == <x, conv_transpose(y, w)> for matching geometry."""
    x = rng.standard_normal((2, 3, 9, 8))
    w = rng.standard_normal((4, 3, 3, 2))
    y = F.conv2d(t(x), t(w), stride=2, padding=1).cpu().numpy()
    g = rng.standard_normal(y.shape)
    back = F.conv_transpose2d(t(g), t(w), stride=2, padding=1).cpu().numpy()
    assert back.shape == x.shape
    np.testing.assert_allclose((y * g).sum(), (x * back).sum(), rtol=1e-10)


def test_conv2d_wrong_channels_names_both_shapes():
    with pytest.raises(RuntimeError, match=r"expected input\[1, 3, 5, 5\] to have 2 channels"):
        F.conv2d(torch.zeros(1, 3, 5, 5), torch.zeros(4, 2, 3, 3))


def np_pool2d(x, k, s, p, op, ceil_mode=False, count_include_pad=True):
    N, C, H, W = x.shape

    def out_size(n):
        v = (n + 2 * p - k) / s
        o = (math.ceil(v) if ceil_mode else math.floor(v)) + 1
        if ceil_mode and (o - 1) * s >= n + p:
            o -= 1
        return o
    Ho, Wo = out_size(H), out_size(W)
    out = np.zeros((N, C, Ho, Wo))
    for i in range(Ho):
        for j in range(Wo):
            h0, w0 = i * s - p, j * s - p
            h1, w1 = min(h0 + k, H + p), min(w0 + k, W + p)
            size = (h1 - h0) * (w1 - w0)
            hs, ws = max(h0, 0), max(w0, 0)
            he, we = min(h1, H), min(w1, W)
            win = x[:, :, hs:he, ws:we]
            if op == "max":
                out[:, :, i, j] = win.max(axis=(2, 3))
            else:
                div = size if count_include_pad else (he - hs) * (we - ws)
                out[:, :, i, j] = win.sum(axis=(2, 3)) / div
    return out


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("k,s,p,ceil", [(2, 2, 0, False), (3, 2, 1, False), (3, 2, 1, True),
                                        (2, 3, 1, True)])
def test_pooling_matches_numpy(dtype, k, s, p, ceil):
    x = rng.standard_normal((2, 3, 7, 6))
    xt = noncontig(x, dtype)
    assert_close(F.max_pool2d(xt, k, s, p, ceil_mode=ceil), np_pool2d(x, k, s, p, "max", ceil),
                 dtype)
    assert_close(F.avg_pool2d(xt, k, s, p, ceil_mode=ceil),
                 np_pool2d(x, k, s, p, "avg", ceil), dtype)
    assert_close(F.avg_pool2d(xt, k, s, p, ceil_mode=ceil, count_include_pad=False),
                 np_pool2d(x, k, s, p, "avg", ceil, False), dtype)


def test_max_pool_indices_point_at_the_maxima_and_unpool_inverts():
    x = rng.standard_normal((2, 3, 6, 6))
    out, idx = F.max_pool2d(t(x), 2, return_indices=True)
    flat = x.reshape(2, 3, -1)
    np.testing.assert_array_equal(np.take_along_axis(flat, idx.cpu().numpy().reshape(2, 3, -1), 2),
                                  out.cpu().numpy().reshape(2, 3, -1))
    up = F.max_unpool2d(out, idx, 2).cpu().numpy()
    assert up.shape == x.shape and np.count_nonzero(up) == out.numel()
    assert gradcheck(lambda v: F.max_pool2d(v, 2, 1, 1), (t(x[:1, :1], grad=True),))


def test_adaptive_pools_match_numpy():
    x = rng.standard_normal((1, 2, 7, 5))
    out = F.adaptive_avg_pool2d(t(x), (3, 2)).cpu().numpy()
    mx = F.adaptive_max_pool2d(t(x), (3, 2)).cpu().numpy()
    for i in range(3):
        h0, h1 = (i * 7) // 3, -(-((i + 1) * 7) // 3)
        for j in range(2):
            w0, w1 = (j * 5) // 2, -(-((j + 1) * 5) // 2)
            np.testing.assert_allclose(out[:, :, i, j], x[:, :, h0:h1, w0:w1].mean(axis=(2, 3)))
            np.testing.assert_allclose(mx[:, :, i, j], x[:, :, h0:h1, w0:w1].max(axis=(2, 3)))
    assert gradcheck(lambda v: F.adaptive_avg_pool2d(v, (3, 2)), (t(x, grad=True),))


# ---- embedding, dropout, linear, attention ------------------------------------------------------

def test_embedding_padding_row_gets_no_gradient_and_max_norm_renormalises():
    w = t(rng.standard_normal((5, 3)), grad=True)
    idx = torch.tensor([[0, 2], [2, 4]])
    out = F.embedding(idx, w, padding_idx=2)
    np.testing.assert_array_equal(out.detach().cpu().numpy(), w.detach().cpu().numpy()[idx.cpu().numpy()])
    out.sum().backward()
    np.testing.assert_array_equal(w.grad.cpu().numpy(), [[1] * 3, [0] * 3, [0] * 3, [0] * 3, [1] * 3])
    w2 = t(rng.standard_normal((5, 3)) * 10)
    F.embedding(torch.tensor([1, 3]), w2, max_norm=1.0)
    norms = np.linalg.norm(w2.cpu().numpy(), axis=1)
    assert norms[1] == pytest.approx(1.0, rel=1e-6) and norms[3] == pytest.approx(1.0, rel=1e-6)
    assert norms[0] > 1.5
    assert F.embedding(torch.tensor(np.zeros((0, 2), dtype=np.int64)), w).shape == (0, 2, 3)


def test_embedding_scale_grad_by_freq():
    w = t(np.ones((4, 2)), grad=True)
    F.embedding(torch.tensor([1, 1, 1, 3]), w, scale_grad_by_freq=True).sum().backward()
    np.testing.assert_allclose(w.grad.cpu().numpy(), [[0, 0], [1, 1], [0, 0], [1, 1]])


@pytest.mark.parametrize("fn,shape,mask_shape", [
    (F.dropout, (200, 300), (200, 300)), (F.dropout2d, (50, 40, 3, 3), (50, 40, 1, 1))])
def test_dropout_keeps_the_expected_fraction_and_scales(fn, shape, mask_shape):
    x = torch.ones(*shape)
    y = fn(x, 0.3, training=True).cpu().numpy()
    kept = y != 0
    np.testing.assert_allclose(y[kept], 1 / 0.7, rtol=1e-6)
    assert abs(kept.mean() - 0.7) < 0.03
    if mask_shape != shape:   # whole channels are zeroed together
        assert (kept.all(axis=(2, 3)) | (~kept).all(axis=(2, 3))).all()
    np.testing.assert_array_equal(fn(x, 0.3, training=False).cpu().numpy(), 1.0)
    with pytest.raises(ValueError, match="between 0 and 1"):
        fn(x, 1.2)


def test_alpha_dropout_keeps_mean_and_variance():
    x = torch.randn(400, 500)
    y = F.alpha_dropout(x, 0.2, training=True).cpu().numpy()
    assert abs(y.mean()) < 0.02 and abs(y.std() - 1) < 0.02


@pytest.mark.parametrize("dtype", DTYPES)
def test_linear_and_bilinear_match_numpy(dtype):
    x = rng.standard_normal((2, 3, 4))
    w, b = rng.standard_normal((5, 4)), rng.standard_normal(5)
    assert_close(F.linear(noncontig(x, dtype), t(w, dtype), t(b, dtype)), x @ w.T + b, dtype)
    x2 = rng.standard_normal((2, 3, 2))
    wb = rng.standard_normal((5, 4, 2))
    assert_close(F.bilinear(t(x, dtype), t(x2, dtype), t(wb, dtype), t(b, dtype)),
                 np.einsum("abi,kij,abj->abk", x, wb, x2) + b, dtype)
    assert F.linear(t(np.zeros((0, 4)), dtype), t(w, dtype)).shape == (0, 5)
    assert F.linear(t(np.zeros((2, 0, 4)), dtype), t(w, dtype), t(b, dtype)).shape == (2, 0, 5)


def test_linear_on_leading_dims_is_one_product_with_its_gradients():
    # (*, in) inputs are folded into rows (a transposed view copied once), the
    # output contiguous in the input's logical order
    x = rng.standard_normal((3, 2, 4, 5))
    w, b = rng.standard_normal((6, 5)), rng.standard_normal(6)
    xt = torch.tensor(x).permute(1, 0, 2, 3)           # (2, 3, 4, 5), not contiguous
    out = F.linear(xt, torch.tensor(w), torch.tensor(b))
    assert out.shape == (2, 3, 4, 6) and out.is_contiguous()
    np.testing.assert_allclose(out.cpu().numpy(), x.transpose(1, 0, 2, 3) @ w.T + b, rtol=1e-12)
    xg = torch.tensor(x, requires_grad=True)
    wg, bg = torch.tensor(w, requires_grad=True), torch.tensor(b, requires_grad=True)
    assert gradcheck(lambda a, c, d: F.linear(a.permute(1, 0, 2, 3), c, d), (xg, wg, bg))
    assert gradgradcheck(lambda a, c, d: F.linear(a.transpose(0, 1), c, d), (xg, wg, bg))
    assert gradcheck(lambda a, c: F.linear(a, c), (xg, wg))


def test_scaled_dot_product_attention_matches_numpy():
    q, k, v = (rng.standard_normal(s) for s in [(2, 3, 4), (2, 5, 4), (2, 5, 6)])
    mask = rng.standard_normal((3, 5))
    expected = np_softmax(q @ k.transpose(0, 2, 1) / 2 + mask, -1) @ v
    np.testing.assert_allclose(F.scaled_dot_product_attention(t(q), t(k), t(v), t(mask))
                               .cpu().numpy(), expected)
    assert gradcheck(lambda a, b_, c: F.scaled_dot_product_attention(a, b_, c, is_causal=True),
                     (t(q, grad=True), t(k[:, :3], grad=True), t(v[:, :3], grad=True)))


def test_scaled_dot_product_attention_with_math_switched_off():
    """The fused kernel alone (math off, as scripts switch it with
    torch.backends.cuda.enable_math_sdp(False)) attends wherever the tensors
    are: the emulated test device runs the CPU's fused kernel, and the
    backend choice once knew none for it ('No viable backend')."""
    from torchlike.nn.attention import SDPBackend, sdpa_kernel
    q, k, v = (rng.standard_normal(s) for s in [(1, 2, 3, 4), (1, 2, 5, 4), (1, 2, 5, 4)])
    expected = np_softmax(q @ k.transpose(0, 1, 3, 2) / 2, -1) @ v
    with sdpa_kernel(SDPBackend.FLASH_ATTENTION):
        out = F.scaled_dot_product_attention(t(q), t(k), t(v))
    np.testing.assert_allclose(out.cpu().numpy(), expected, rtol=1e-10, atol=1e-12)


def test_interpolate_bilinear_align_corners_matches_numpy():
    x = rng.standard_normal((1, 1, 3, 4))
    out = F.interpolate(t(x), size=(5, 7), mode="bilinear", align_corners=True).cpu().numpy()[0, 0]
    ys, xs = np.linspace(0, 2, 5), np.linspace(0, 3, 7)
    for i, yy in enumerate(ys):
        for j, xx in enumerate(xs):
            y0, x0 = min(int(yy), 1), min(int(xx), 2)
            dy, dx = yy - y0, xx - x0
            v = (x[0, 0, y0, x0] * (1 - dy) * (1 - dx) + x[0, 0, y0 + 1, x0] * dy * (1 - dx)
                 + x[0, 0, y0, x0 + 1] * (1 - dy) * dx + x[0, 0, y0 + 1, x0 + 1] * dy * dx)
            assert out[i, j] == pytest.approx(v)


def test_ctc_loss_gradcheck_and_value_for_a_single_path():
    # T = 1, one label: the only alignment emits the label, loss = -log p(label)
    lp = np.log(np_softmax(rng.standard_normal((1, 1, 3)), 2))
    loss = F.ctc_loss(t(lp), torch.tensor([[2]]), [1], [1], reduction="sum")
    assert float(loss) == pytest.approx(-lp[0, 0, 2])
    x = t(rng.standard_normal((5, 2, 4)), grad=True)
    tg = torch.tensor([[1, 2], [3, 3]])
    assert gradcheck(lambda v: F.ctc_loss(F.log_softmax(v, 2), tg, [5, 4], [2, 2]), (x,))


def test_torch_level_spellings_are_the_functional_ops():
    a = rng.standard_normal((3, 4))
    x = t(a)
    np.testing.assert_array_equal(torch.relu(x).cpu().numpy(), np.maximum(a, 0))
    np.testing.assert_allclose(x.softmax(1).cpu().numpy(), np_softmax(a, 1))
    np.testing.assert_allclose(torch.log_softmax(x, 0).cpu().numpy(), np.log(np_softmax(a, 0)))
    assert torch.softmax(t(a, torch.float32), 1, torch.float64).dtype == torch.float64
    y = t(a.copy())
    assert y.relu_() is not None and float(y.min()) == 0.0
    assert torch.conv2d is F.conv2d and torch.dropout is F.dropout


@pytest.mark.parametrize("dtype", [torch.float16, torch.bfloat16])
def test_half_precision_matches_float64_within_its_resolution(dtype):
    """The ops keep the low-precision dtype and agree with float64 to within a
    few units in the last place of that dtype."""
    a = rng.standard_normal((2, 3, 6, 6))
    w = rng.standard_normal((4, 3, 3, 3)) * 0.2
    tol = dict(rtol=3e-2, atol=3e-2) if dtype == torch.bfloat16 else dict(rtol=5e-3, atol=5e-3)
    cases = [lambda x, ww: F.gelu(x), lambda x, ww: F.softmax(x, 1),
             lambda x, ww: F.layer_norm(x, (6, 6)), lambda x, ww: F.conv2d(x, ww, padding=1),
             lambda x, ww: F.max_pool2d(x, 2), lambda x, ww: F.avg_pool2d(x, 3, 2, 1)]
    for fn in cases:
        low = fn(t(a, dtype), t(w, dtype))
        assert low.dtype == dtype
        ref = fn(t(a), t(w)).cpu().numpy()
        np.testing.assert_allclose(low.float().cpu().numpy(), ref, **tol)


def test_window_ops_accept_empty_batches_forward_and_backward():
    x = t(np.zeros((0, 2, 4, 4)), grad=True)
    outs = [F.max_pool2d(x, 2), F.avg_pool2d(x, 2), F.adaptive_max_pool2d(x, 2),
            F.adaptive_avg_pool2d(x, 3), F.unfold(x, 2), F.interpolate(x, scale_factor=2),
            F.conv2d(x, t(np.ones((3, 2, 2, 2)))), F.max_pool2d(x, 2, return_indices=True)[1]]
    assert [tuple(o.shape) for o in outs] == [(0, 2, 2, 2), (0, 2, 2, 2), (0, 2, 2, 2),
                                              (0, 2, 3, 3), (0, 8, 9), (0, 2, 8, 8),
                                              (0, 3, 3, 3), (0, 2, 2, 2)]
    sum(o.sum() for o in outs[:-1]).backward()
    assert x.grad.shape == (0, 2, 4, 4)


_TARGET = t(rng.uniform(-1, 1, (2, 4)))   # a fixed target (gradcheck perturbs the input only)
SECOND_ORDER = {
    "gelu": lambda x: F.gelu(x),
    "gelu_tanh": lambda x: F.gelu(x, approximate="tanh"),
    "silu": F.silu, "mish": F.mish, "elu": F.elu, "selu": F.selu, "celu": F.celu,
    "softplus": lambda x: F.softplus(x, 2.0), "logsigmoid": F.logsigmoid,
    "softsign": F.softsign, "tanhshrink": F.tanhshrink,
    "glu": lambda x: F.glu(x, 1),
    "log_softmax": lambda x: F.log_softmax(x, 1),
    "layer_norm": lambda x: F.layer_norm(x, (4,)),
    "group_norm": lambda x: F.group_norm(x.reshape(1, 2, 4), 2),
    "batch_norm_train": lambda x: F.batch_norm(x, None, None, training=True),
    "rms_norm": lambda x: F.rms_norm(x, (4,)),
    "mse": lambda x: F.mse_loss(x, _TARGET),
    "smooth_l1": lambda x: F.smooth_l1_loss(x, _TARGET, beta=2.0),
    "bce_logits": lambda x: F.binary_cross_entropy_with_logits(x, _TARGET.abs() / 2),
    "kl_div": lambda x: F.kl_div(F.log_softmax(x, 1), F.softmax(_TARGET, 1),
                                 reduction="batchmean"),
    "avg_pool": lambda x: F.avg_pool1d(x.reshape(1, 2, 4), 2, 1, 1),
    "interpolate": lambda x: F.interpolate(x.reshape(1, 2, 4), size=7, mode="linear"),
    "conv_transpose": lambda x: F.conv_transpose1d(x.reshape(1, 2, 4), x.reshape(2, 1, 4)),
    "sdpa": lambda x: F.scaled_dot_product_attention(x, x, x),
    "cosine_similarity": lambda x: F.cosine_similarity(x, x.flip(0), dim=1),
}


@pytest.mark.parametrize("name", sorted(SECOND_ORDER))
def test_second_order_gradients(name):
    x = t(rng.uniform(0.2, 1.2, (2, 4)) * rng.choice([-1, 1], (2, 4)), grad=True)
    assert gradgradcheck(SECOND_ORDER[name], (x,))


# ---- distances ------------------------------------------------------------------------------

def _cdist_ref(a, b, p):
    d = np.abs(a[..., :, None, :] - b[..., None, :, :])
    if p == 0:
        return (d != 0).sum(-1).astype(a.dtype)
    if p == math.inf:
        return d.max(-1)
    return (d ** p).sum(-1) ** (1 / p)


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("p", [0.0, 1.0, 2.0, 3.0, math.inf])
@pytest.mark.parametrize("rows", [(4, 3), (30, 5)])
@pytest.mark.parametrize("mode", ["use_mm_for_euclid_dist_if_necessary",
                                  "use_mm_for_euclid_dist", "donot_use_mm_for_euclid_dist"])
def test_cdist_matches_numpy_in_every_compute_mode(dtype, p, rows, mode):
    a = rng.standard_normal((2, rows[0], 6))
    b = rng.standard_normal((1, rows[1], 6))  # broadcast batch
    got = torch.cdist(noncontig(a, dtype), t(b, dtype), p=p, compute_mode=mode).cpu().numpy()
    tol = dict(rtol=1e-4, atol=1e-4) if dtype == torch.float32 else dict(rtol=1e-9, atol=1e-9)
    np.testing.assert_allclose(got, _cdist_ref(a, b, p), **tol)


def test_cdist_gradients_empty_inputs_and_errors():
    a, b = t(rng.standard_normal((3, 4)), grad=True), t(rng.standard_normal((5, 4)), grad=True)
    for mode in ("use_mm_for_euclid_dist", "donot_use_mm_for_euclid_dist"):
        assert gradcheck(lambda x, y: torch.cdist(x, y, compute_mode=mode), (a, b))
        assert gradgradcheck(lambda x, y: torch.cdist(x, y, compute_mode=mode), (a, b))
    assert gradgradcheck(lambda x, y: torch.cdist(x, y, p=3.0), (a, b))
    assert tuple(torch.cdist(torch.ones(0, 2), torch.ones(3, 2)).shape) == (0, 3)
    assert tuple(torch.cdist(torch.ones(30, 2), torch.ones(0, 2)).shape) == (30, 0)
    np.testing.assert_array_equal(torch.cdist(torch.ones(30, 0), torch.ones(2, 0)).cpu().numpy(),
                                  np.zeros((30, 2)))
    with pytest.raises(ValueError, match="^foo is not a valid value for compute_mode$"):
        torch.cdist(torch.ones(3, 2), torch.ones(3, 2), compute_mode="foo")
    with pytest.raises(RuntimeError, match="^cdist only supports floating-point dtypes, X1 got: "
                                           "Long$"):
        torch.cdist(torch.ones(3, 2, dtype=torch.int64), torch.ones(3, 2))
    with pytest.raises(RuntimeError, match="^cdist only supports at least 2D tensors, X2 got: "
                                           "1D$"):
        torch.cdist(torch.ones(3, 2), torch.ones(2))
    with pytest.raises(RuntimeError, match="^X1 and X2 must have the same number of columns. "
                                           "X1: 2 X2: 3$"):
        torch.cdist(torch.ones(3, 2), torch.ones(3, 3))
    with pytest.raises(RuntimeError, match="^cdist only supports non-negative p values$"):
        torch.cdist(torch.ones(3, 2), torch.ones(3, 2), p=-1.0)
    with pytest.raises(RuntimeError, match="^expected scalar type Float but found Double$"):
        torch.cdist(torch.ones(3, 2), torch.ones(3, 2, dtype=torch.float64))


def test_binary_cross_entropy_rejects_values_outside_0_1_as_pytorch():
    p = t([0.2, 0.7], grad=True)
    for x, y, what in [([0.5, 1.5], [0.5, 0.5], "input"), ([0.5, 0.5], [0.5, -0.1], "target"),
                       ([math.nan, 0.5], [0.5, 0.5], "input"), ([1.5, 0.5], [2.0, 0.5], "input")]:
        with pytest.raises(RuntimeError, match=f"^all elements of {what} should be between 0 "
                                               "and 1$"):
            F.binary_cross_entropy(t(x), t(y))
    loss = F.binary_cross_entropy(p, t([0.0, 1.0]), reduction="sum")
    np.testing.assert_allclose(loss.item(), -math.log(0.8) - math.log(0.7), rtol=1e-12)
    with pytest.raises(RuntimeError, match="all elements of target should be between 0 and 1"):
        torch._C._pointwise_loss_backward(t(1.0), p.detach(), t([0.5, 1.5]), None, None,
                                          F._BCE, 0.0, 2)  # the backward op checks too


@pytest.mark.parametrize("call,kind,message", [
    (lambda: F.bilinear(torch.ones(5, 4), torch.ones(5, 4), torch.ones(2, 4, 3)), RuntimeError,
     "bilinear(): input2 size does not match weight size: got 4 but expected 3"),
    (lambda: F.bilinear(torch.ones(5, 3), torch.ones(5, 3), torch.ones(2, 4, 3)), RuntimeError,
     "bilinear(): input1 size does not match weight size: got 3 but expected 4"),
    (lambda: F.bilinear(torch.ones(5, 4), torch.ones(6, 3), torch.ones(2, 4, 3)), RuntimeError,
     "bilinear(): input batch dimensions do not match at dim 0: got 5 and 6"),
    (lambda: F.bilinear(torch.ones(5, 4), torch.ones(5, 3), torch.ones(2, 4, 3), torch.ones(3)),
     RuntimeError, "bilinear(): bias size does not match weight size: got 3 but expected 2"),
    (lambda: F.bilinear(torch.ones(4), torch.ones(5, 3), torch.ones(2, 4, 3)), RuntimeError,
     "bilinear(): input dimensions do not match: got 1 and 2"),
    (lambda: F.one_hot(torch.tensor([0, -1])), RuntimeError, "Class values must be non-negative."),
    (lambda: F.embedding_bag(torch.tensor([[0, 1]]), torch.ones(3, 2), mode="max",
                             per_sample_weights=torch.ones(1, 2)), NotImplementedError,
     "embedding_bag: per_sample_weights was not None. per_sample_weights is only supported for "
     "mode='sum' (got mode='max'). Please open a feature request on GitHub."),
    (lambda: torch.nn.init.kaiming_normal_(torch.empty(2, 2), mode="x"), ValueError,
     "Mode x not supported, please use one of ['fan_in', 'fan_out']"),
    (lambda: torch.nn.GRU(3, 4)(torch.zeros(5, 2, 3), torch.zeros(1, 3, 4)), RuntimeError,
     "Expected hidden size (1, 2, 4), got [1, 3, 4]"),
    (lambda: torch.nn.init.trunc_normal_(torch.empty(3), a=1.0, b=-0.5), RuntimeError,
     "uniform_ expects to return a [from, to) range, but found from=1 > to=-0.5"),
    (lambda: torch.nn.utils.parameters_to_vector([]), ValueError,
     "torch.cat(): expected a non-empty list of Tensors"),
])
def test_errors_in_pytorch_215_wording(call, kind, message):
    # recorded from PyTorch 2.15
    with pytest.raises(kind) as info:
        call()
    assert str(info.value) == message


def test_bilinear_unbatched_and_adaptive_max_pool_with_indices():
    w = rng.standard_normal((2, 4, 3))
    a, b = rng.standard_normal(4), rng.standard_normal(3)
    np.testing.assert_allclose(F.bilinear(t(a), t(b), t(w)).cpu().numpy(),
                               np.einsum("i,kij,j->k", a, w, b), rtol=1e-12)
    x = t(rng.standard_normal((2, 3, 7, 6)))
    for fn, ref, size in [(F.adaptive_max_pool2d_with_indices, F.adaptive_max_pool2d, (3, 2)),
                          (F.adaptive_max_pool1d_with_indices, F.adaptive_max_pool1d, 3)]:
        arg = x if fn is F.adaptive_max_pool2d_with_indices else x[:, :, 0]
        v, i = fn(arg, size)
        v2, i2 = ref(arg, size, return_indices=True)
        np.testing.assert_array_equal(v.cpu().numpy(), v2.cpu().numpy())
        np.testing.assert_array_equal(i.cpu().numpy(), i2.cpu().numpy())


def test_load_state_dict_post_hook_must_not_return_a_value():
    m = torch.nn.Linear(2, 2)
    m.register_load_state_dict_post_hook(lambda mod, keys: 1)
    with pytest.raises(AssertionError, match="are not expected to return new values"):
        m.load_state_dict(m.state_dict())


def test_normalize_writes_out_and_gumbel_softmax_eps_is_deprecated():
    import warnings
    a = rng.standard_normal((3, 4))
    out = torch.empty(3, 4, dtype=torch.float64)
    r = F.normalize(t(a), out=out)
    assert r is out
    np.testing.assert_allclose(out.cpu().numpy(), a / np.linalg.norm(a, axis=1, keepdims=True),
                               rtol=1e-12)
    with pytest.warns(UserWarning, match="^`eps` parameter is deprecated and has no effect.$"):
        F.gumbel_softmax(torch.zeros(2, 3), eps=1e-5)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        F.gumbel_softmax(torch.zeros(2, 3))


@pytest.mark.parametrize("call,category,message", [
    (lambda x: F.upsample(x, scale_factor=2), UserWarning,
     "`nn.functional.upsample` is deprecated. Use `nn.functional.interpolate` instead."),
    (lambda x: F.upsample_bilinear(x, scale_factor=2), UserWarning,
     "`nn.functional.upsample_bilinear` is deprecated. Use `nn.functional.interpolate` "
     "instead."),
    (lambda x: F.upsample_nearest(x, scale_factor=2), UserWarning,
     "`nn.functional.upsample_nearest` is deprecated. Use `nn.functional.interpolate` instead."),
    (lambda x: F.log_softmax(x), UserWarning,
     "Implicit dimension choice for log_softmax has been deprecated. Change the call to "
     "include dim=X as an argument."),
    (lambda x: F.softmin(x), UserWarning, "Implicit dimension choice for softmin has been "
     "deprecated. Change the call to include dim=X as an argument."),
    (lambda x: F.mse_loss(x, x, size_average=False), UserWarning,
     "size_average and reduce args will be deprecated, please use reduction='sum' instead."),
    (lambda x: torch.nn.L1Loss(reduce=False), UserWarning,
     "size_average and reduce args will be deprecated, please use reduction='none' instead."),
    (lambda x: torch.nn.init.uniform(torch.zeros(2)), FutureWarning,
     "`nn.init.uniform` is now deprecated in favor of `nn.init.uniform_`."),
])
def test_deprecation_warnings_in_pytorchs_words(call, category, message):
    # recorded from PyTorch 2.15
    with pytest.warns(category) as record:
        call(torch.zeros(1, 1, 4, 4))
    assert [str(w.message) for w in record] == [message]


@pytest.mark.parametrize("call,message", [
    (lambda: F.prelu(torch.zeros(2, 3, dtype=torch.float16), torch.ones(1)),
     "prelu: Type promoting not supported. Got Half and Float"),
    (lambda: F.bilinear(torch.zeros(1, 2, dtype=torch.float64), torch.zeros(1, 2),
                        torch.zeros(2, 2, 2)),
     "All tensors must have the same dtype, got input1: double, input2: float, weight: float"),
    (lambda: F.bilinear(torch.zeros(1, 2, dtype=torch.float16), torch.zeros(1, 2),
                        torch.zeros(2, 2, 2), torch.zeros(2)),
     "All tensors must have the same dtype, got input1: c10::Half, input2: float, weight: "
     "float, bias: float"),
])
def test_mixed_dtype_errors_in_pytorchs_words(call, message):
    with pytest.raises(RuntimeError) as info:
        call()
    assert str(info.value) == message


def test_linear_dtype_mismatch_speaks_pytorchs_words():
    # float64 data into a float32 layer, the commonest mistake: PyTorch's
    # addmm (with a bias) and mm (without) words, which users search for
    F = torch.nn.functional
    w = torch.ones(2, 3)
    cases = [((torch.ones(4, 3, dtype=torch.float64), w, torch.ones(2)),
              "mat1 and mat2 must have the same dtype, but got Double and Float"),
             ((torch.ones(4, 3, dtype=torch.int64), w, torch.ones(2)),
              "mat1 and mat2 must have the same dtype, but got Long and Float"),
             ((torch.ones(4, 3), w, torch.ones(2, dtype=torch.float64)),
              "self and mat2 must have the same dtype, but got Double and Float"),
             # addmm checks the bias against the weight before the input
             ((torch.ones(4, 3), w.double(), torch.ones(2)),
              "self and mat2 must have the same dtype, but got Float and Double"),
             ((torch.ones(5, 4, 3, dtype=torch.float64), w, None),
              "expected m1 and m2 to have the same dtype, but got: double != float")]
    for args, words in cases:
        with pytest.raises(RuntimeError) as info:
            F.linear(*args)
        assert str(info.value) == words


def test_complex_losses_l1_is_the_modulus_others_refuse():
    # l1_loss of complex operands is the mean modulus of the difference (it
    # cast to float32 and dropped the imaginary parts); the losses PyTorch
    # has no complex kernel for refuse in its words
    a = np.array([1 + 1j, 2 - 1j, -0.5j])
    b = np.array([0j, 1j, 1 + 0j])
    for dt in (torch.complex64, torch.complex128):
        x = torch.tensor(a, dtype=dt, requires_grad=True)
        got = F.l1_loss(x, torch.tensor(b, dtype=dt))
        assert got.dtype == (torch.float32 if dt == torch.complex64 else torch.float64)
        np.testing.assert_allclose(got.item(), np.abs(a - b).mean(), rtol=1e-6)
        got.backward()
        np.testing.assert_allclose(x.grad.cpu().numpy(), (a - b) / np.abs(a - b) / 3, rtol=1e-6)
    x, y = torch.tensor([0.5 + 0j]), torch.tensor([1 + 0j])
    dev = x.device.type  # PyTorch's kernel names carry the device: mse_cpu, mse_cuda
    for call, kind, words in [(F.mse_loss, NotImplementedError, f'"mse_{dev}" not implemented for '
                               "'ComplexFloat'"),
                              (F.huber_loss, NotImplementedError, f'"huber_{dev}" not implemented'),
                              (F.binary_cross_entropy, NotImplementedError,
                               '"binary_cross_entropy" not implemented'),
                              (F.kl_div, RuntimeError, "kl_div: Complex inputs not supported.")]:
        with pytest.raises(kind) as info:
            call(x, y)
        assert str(info.value).startswith(words)


def test_cosine_similarity_common_dtype():
    # PyTorch's rule: the operands' common dtype, which must be real floating
    got = F.cosine_similarity(torch.tensor([[3, 4]]), torch.tensor([[4.0, 3.0]]))
    assert got.dtype == torch.float32
    np.testing.assert_allclose(got.cpu().numpy(), [24 / 25], rtol=1e-6)
    for a, words in [(torch.ones(1, 2, dtype=torch.long), "common dtype is Long"),
                     (torch.ones(1, 2, dtype=torch.cfloat), "common dtype is ComplexFloat")]:
        with pytest.raises(RuntimeError, match=words):
            F.cosine_similarity(a, torch.ones(1, 2, dtype=torch.long))


def test_non_tensor_arguments_in_pytorchs_parsers_words():
    # a layer given None (a forward that forgot its return) or a list
    for call, words in [(lambda: torch.nn.Linear(2, 2)(None), "linear(): argument 'input' "
                         "(position 1) must be Tensor, not NoneType"),
                        (lambda: F.linear(torch.ones(2), 5), "linear(): argument 'weight' "
                         "(position 2) must be Tensor, not int"),
                        (lambda: F.relu((torch.ones(1),)), "relu(): argument 'input' "
                         "(position 1) must be Tensor, not tuple"),
                        (lambda: F.batch_norm([1.0], None, None), "batch_norm(): argument "
                         "'input' (position 1) must be Tensor, not list")]:
        with pytest.raises(TypeError, match="^" + re.escape(words) + "$"):
            call()


def test_shape_mistakes_in_pytorchs_words():
    with pytest.raises(RuntimeError, match=r"^both arguments to linear need to be at least 1D, "
                                           r"but they are 0D and 2D$"):
        torch.nn.Linear(3, 2)(torch.tensor(1.0))
    with pytest.raises(ValueError, match=r"same number of spatial dimensions, but got input with "
                                         r"spatial dimensions of \[4\] and output size of \(2, 2\)"):
        F.interpolate(torch.ones(1, 1, 4), size=(2, 2))
    with pytest.raises(RuntimeError, match=r"^Expected hidden\[1\] size \(1, 1, 4\), got \[1, 2, 4\]$"):
        torch.nn.LSTM(3, 4)(torch.ones(2, 1, 3), (torch.zeros(1, 1, 4), torch.zeros(1, 2, 4)))
    with pytest.raises(RuntimeError, match=r"^Expected hidden size \(1, 1, 4\), got \[2, 1, 4\]$"):
        torch.nn.GRU(3, 4)(torch.ones(2, 1, 3), torch.zeros(2, 1, 4))
