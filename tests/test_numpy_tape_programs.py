"""Programs whose model code is real NumPy (and SciPy where it dispatches)
called on torchlike tensors that require grad, trained or differentiated with
torchlike's autograd.  Values are compared with NumPy run on the detached data
(same dtypes), gradients with finite differences (gradcheck in float64), and,
where the derivative at a tie, a zero or a singular matrix is a choice, with
PyTorch's answers (tests/golden/numpy_tape.json, scripts/golden_numpy_tape.py).
What cannot be recorded must raise an error naming the call."""
import json
import math
import os
import subprocess
import sys

import numpy as np
import pytest
import scipy.special as sp
from numpy.lib.stride_tricks import sliding_window_view

import torchlike as tl
from torchlike.autograd import gradcheck, gradgradcheck

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
RNG = np.random.default_rng(2026)


def leaf(a, dtype=np.float64):
    return tl.tensor(np.asarray(a, dtype=dtype), requires_grad=True)


def host(t):
    return np.asarray(t.detach())


def same_as_numpy(f, *arrays, rtol=1e-12, atol=1e-12, dtype=np.float64, grad=True):
    """f on ndarrays (the oracle: value, dtype, shape) and on leaves of the
    same dtype: a recorded tensor result; in float64, gradcheck."""
    arrays = [np.asarray(a, dtype=dtype) for a in arrays]
    want = np.asarray(f(*arrays))
    leaves = [leaf(a, dtype) for a in arrays]
    got = f(*leaves)
    assert isinstance(got, tl.Tensor) and got.grad_fn is not None, type(got)
    assert np.dtype(got.dtype.name) == want.dtype and tuple(got.shape) == want.shape
    np.testing.assert_allclose(host(got), want, rtol=rtol, atol=atol)
    if grad and dtype == np.float64:
        assert gradcheck(f, leaves)
    return got, leaves


# ---- training: every forward step is a NumPy call -----------------------------------------------

def mlp_loss(W1, b1, W2, b2, X, y):
    h = np.tanh(np.dot(X, W1) + b1)
    h = np.maximum(h, 0.1 * h)                       # leaky ReLU by np.maximum
    logits = np.dot(h, W2) + b2
    z = logits - np.max(logits, axis=1, keepdims=True)
    logp = z - np.log(np.sum(np.exp(z), axis=1, keepdims=True))
    return -np.mean(logp[np.arange(len(y)), y])


def test_mlp_written_with_numpy_trains_by_sgd():
    """Forward in np.dot/np.tanh/np.maximum/np.max(keepdims)/np.log/np.sum;
    the SGD step is NumPy's np.subtract(p, lr * g, out=p) under no_grad."""
    X = RNG.standard_normal((32, 3))
    y = (X[:, 0] * X[:, 1] > 0).astype(np.int64)
    params = [leaf(RNG.standard_normal((3, 16)) * 0.5), leaf(np.zeros(16)),
              leaf(RNG.standard_normal((16, 2)) * 0.5), leaf(np.zeros(2))]
    # the loss itself: NumPy's value on the detached data, and its gradient
    want = mlp_loss(*[host(p) for p in params], X, y)
    np.testing.assert_allclose(host(mlp_loss(*params, X, y)), want, rtol=1e-12)
    assert gradcheck(lambda *p: mlp_loss(*p, X, y), params)
    losses = []
    for _ in range(60):
        loss = mlp_loss(*params, X, y)
        for p in params:
            p.grad = None
        loss.backward()
        with tl.no_grad():
            for p in params:
                np.subtract(p, 0.5 * p.grad, out=p)
        losses.append(float(loss))
    assert all(p.is_leaf and p.requires_grad and p.grad_fn is None for p in params)
    assert losses[-1] < 0.6 * losses[0], losses[::10]


def test_logistic_regression_matches_a_numpy_training_with_hand_written_gradients():
    """The same gradient descent twice: NumPy with the gradient written by
    hand, torchlike with scipy.special.expit / np.log1p on the tape; the
    weights agree after every step."""
    X = RNG.standard_normal((40, 4))
    y = (X @ np.array([1.0, -2.0, 0.5, 0.0]) + 0.3 * RNG.standard_normal(40) > 0) * 1.0
    w_np = np.zeros(4)
    w = leaf(np.zeros(4))
    for _ in range(25):
        p = sp.expit(X @ w_np)
        w_np = w_np - 0.5 * X.T @ (p - y) / len(y)
        z = np.dot(X, w)
        # log(1 + e^-|z|) + max(z, 0) - y z: the stable cross-entropy
        loss = np.mean(np.log1p(np.exp(-np.abs(z))) + np.maximum(z, 0) - y * z)
        w.grad = None
        loss.backward()
        with tl.no_grad():
            w -= 0.5 * w.grad
        np.testing.assert_allclose(host(w), w_np, rtol=1e-12, atol=1e-14)
    probs = sp.expit(np.dot(X, w))
    assert probs.grad_fn is not None and np.mean((host(probs) > 0.5) == y) > 0.8


# ---- layers -------------------------------------------------------------------------------------

def softmax(x, axis=-1):
    e = np.exp(x - np.max(x, axis=axis, keepdims=True))
    return e / np.sum(e, axis=axis, keepdims=True)


def log_softmax(x, axis=-1):
    m = np.max(x, axis=axis, keepdims=True)
    return x - m - np.log(np.sum(np.exp(x - m), axis=axis, keepdims=True))


def logsumexp(x, axis=None):
    m = np.max(x, axis=axis, keepdims=True)
    return np.squeeze(m, axis=axis) + np.log(np.sum(np.exp(x - m), axis=axis))


@pytest.mark.parametrize("dtype", [np.float64, np.float32])
def test_softmax_log_softmax_logsumexp(dtype):
    x = RNG.standard_normal((3, 4, 5)) * 4
    for f in (lambda a: softmax(a, 1), lambda a: log_softmax(a, -1),
              lambda a: logsumexp(a, 2), lambda a: logsumexp(a)):
        same_as_numpy(f, x, dtype=dtype, rtol=1e-12 if dtype == np.float64 else 1e-6,
                      atol=1e-12 if dtype == np.float64 else 1e-6)
    # scipy.special's own, on float64 data: the hand-written ones agree with it
    np.testing.assert_allclose(logsumexp(x, 2), sp.logsumexp(x, axis=2), rtol=1e-13)


def attention(q, k, v, causal):
    # B batch, H heads, T time, D head size; q k v: (B, T, H*D)
    B, T, C = q.shape
    H = 2
    split = [np.swapaxes(np.reshape(t, (B, T, H, C // H)), 1, 2) for t in (q, k, v)]
    q, k, v = split                                      # (B, H, T, D)
    s = np.einsum("bhtd,bhsd->bhts", q, k) / np.sqrt(C // H)
    if causal:
        s = np.where(np.triu(np.ones((T, T), bool), 1), -np.inf, s)
    out = np.matmul(softmax(s, -1), v)                   # (B, H, T, D)
    return np.reshape(np.swapaxes(out, 1, 2), (B, T, C))


@pytest.mark.parametrize("causal", [False, True])
def test_attention_with_einsum_and_swapaxes(causal):
    q, k, v = (RNG.standard_normal((2, 5, 4)) for _ in range(3))
    same_as_numpy(lambda a, b, c: attention(a, b, c, causal), q, k, v)


def test_batch_norm_with_running_statistics_updated_in_place():
    """np.mean/np.var over (0, 2) with keepdims in training; the running
    statistics are updated with NumPy's in-place idioms under no_grad and
    used in evaluation."""
    x = RNG.standard_normal((6, 3, 4)) * 2 + 1
    gamma, beta = RNG.standard_normal((1, 3, 1)), RNG.standard_normal((1, 3, 1))

    def bn(x, gamma, beta):
        mu = np.mean(x, axis=(0, 2), keepdims=True)
        var = np.var(x, axis=(0, 2), keepdims=True)
        return gamma * (x - mu) / np.sqrt(var + 1e-5) + beta

    same_as_numpy(bn, x, gamma, beta)
    running = tl.zeros(1, 3, 1, dtype=tl.float64)
    xt = leaf(x)
    want = np.zeros((1, 3, 1))
    for _ in range(3):
        with tl.no_grad():
            np.multiply(running, 0.9, out=running)
            running += 0.1 * np.mean(xt, axis=(0, 2), keepdims=True)
        want = 0.9 * want + 0.1 * np.mean(x, axis=(0, 2), keepdims=True)
    assert not running.requires_grad
    np.testing.assert_allclose(host(running), want, rtol=1e-13)
    y = (xt - running) * gamma
    y.sum().backward()
    np.testing.assert_allclose(host(xt.grad), np.broadcast_to(gamma, x.shape))


def test_conv1d_by_sliding_windows_matches_np_correlate_and_np_convolve():
    x, w = RNG.standard_normal(12), RNG.standard_normal(4)

    def conv_windows(x, w):
        return np.tensordot(sliding_window_view(x, 4), w, axes=1)

    same_as_numpy(conv_windows, x, w)
    np.testing.assert_allclose(host(conv_windows(leaf(x), leaf(w))),
                               np.correlate(x, w, "valid"), rtol=1e-12)
    same_as_numpy(lambda x, w: np.convolve(x, w, "same"), x, w)
    # a strided, two-channel conv: windows over the last axis, every second one
    X, W = RNG.standard_normal((2, 3, 11)), RNG.standard_normal((5, 3, 3))
    same_as_numpy(lambda X, W: np.einsum("bctk,ock->bot",
                                         sliding_window_view(X, 3, axis=2)[:, :, ::2], W),
                  X, W)


def rnn(xs, h0, Wx, Wh, b):
    """An Elman RNN over time: xs (T, B, I) split per step, the state joined
    to the input by np.concatenate, outputs stacked."""
    h = h0
    out = []
    W = np.concatenate([Wx, Wh], axis=0)                # (I + H, H)
    for x in np.split(xs, xs.shape[0], axis=0):
        h = np.tanh(np.concatenate([np.squeeze(x, 0), h], axis=1) @ W + b)
        out.append(h)
    return np.stack(out, axis=0)                        # (T, B, H)


def test_rnn_loop_with_concatenate_split_stack():
    xs, h0 = RNG.standard_normal((4, 2, 3)), RNG.standard_normal((2, 5))
    Wx, Wh, b = RNG.standard_normal((3, 5)), RNG.standard_normal((5, 5)) * 0.5, np.zeros(5)
    same_as_numpy(rnn, xs, h0, Wx, Wh, b)
    hs = rnn(*(leaf(a) for a in (xs, h0, Wx, Wh, b)))
    a, c = np.array_split(hs, [1], axis=2), np.hsplit(hs[0], [2])   # both stay recorded
    assert all(t.grad_fn is not None for t in a + c)


def robust_losses(pred, target):
    r = pred - target
    huber = np.where(np.abs(r) < 1.0, 0.5 * r ** 2, np.abs(r) - 0.5)
    p = np.clip(sp.expit(pred), 1e-6, 1 - 1e-6)
    bce = -np.where(target > 0, np.log(p), np.log1p(-p))
    log_cosh = np.logaddexp(r, -r) - np.log(2.0)
    return np.mean(huber) + np.mean(bce) + np.sum(log_cosh) / r.size


def test_losses_with_where_clip_log1p_abs():
    pred, target = RNG.standard_normal((5, 3)) * 2, RNG.standard_normal((5, 3))
    same_as_numpy(robust_losses, pred, target)


def test_polynomial_features_vander_polyval_and_a_least_squares_fit():
    x, c = np.linspace(-1, 1, 9), RNG.standard_normal(4)
    same_as_numpy(lambda x, c: np.polyval(c, x), x, c)
    same_as_numpy(lambda x: np.vander(x, 4, increasing=True), x)
    y = np.sin(3 * x)

    def fit_residual(x):
        V = np.vander(x, 4)
        coef = np.linalg.lstsq(V, y, rcond=None)[0]
        return np.sum((np.polyval(coef, x) - y) ** 2)

    same_as_numpy(fit_residual, x, rtol=1e-10)


def test_linear_algebra_inside_a_loss():
    A = RNG.standard_normal((4, 4))
    b = RNG.standard_normal((4, 2))

    def loss(A, b):
        S = A @ A.T + 4 * np.eye(4)
        L = np.linalg.cholesky(S)
        w = np.linalg.eigh(S)[0]
        Q, R = np.linalg.qr(A)
        return (np.sum(np.linalg.solve(S, b) ** 2) + np.trace(np.linalg.inv(S))
                + np.linalg.det(S) * 1e-3 + np.linalg.slogdet(S)[1]
                + np.sum(np.log(np.abs(np.diag(L)))) + np.sum(w ** 0.5)
                + np.sum(np.linalg.svd(A, compute_uv=False)) + np.linalg.norm(b)
                + np.sum(np.abs(R)) + np.linalg.norm(A, "nuc"))

    same_as_numpy(loss, A, b, rtol=1e-10)


def test_physics_style_losses_with_cumsum_diff_gradient_trapezoid():
    """A trajectory from accelerations (np.cumsum twice), its energy by
    np.trapezoid, a smoothness term by np.diff and np.gradient."""
    t = np.linspace(0, 1, 11)
    dt = t[1] - t[0]

    def loss(acc):
        vel = np.cumsum(acc) * dt
        pos = np.cumsum(vel) * dt
        energy = np.trapezoid(0.5 * vel ** 2, t)
        jerk = np.diff(acc, n=2)
        slope = np.gradient(pos, dt, edge_order=2)
        return energy + np.sum(jerk ** 2) + np.sum((slope - vel) ** 2) + (pos[-1] - 1.0) ** 2

    same_as_numpy(loss, np.sin(7 * t))
    same_as_numpy(lambda u: np.stack(np.gradient(u, 0.5, 2.0)), RNG.standard_normal((4, 5)))
    same_as_numpy(lambda u: np.trapezoid(u, dx=0.25, axis=0), RNG.standard_normal((4, 5)))


def test_gather_layer_with_fancy_indexing_take_and_put_along_axis():
    table = RNG.standard_normal((6, 3))
    tokens = np.array([[0, 5, 5], [2, 1, 0]])

    def layer(table):
        emb = table[tokens]                                    # (2, 3, 3)
        top = np.take_along_axis(emb, np.argsort(emb, axis=-1)[..., -1:], axis=-1)
        scattered = np.zeros_like(emb)                         # a tensor for a tensor
        np.put_along_axis(scattered, np.zeros((2, 3, 1), np.int64), top, axis=-1)
        return (scattered + np.take(table, [[-1, 8]], axis=0, mode="wrap")[:, :1]
                + np.take(table, [-2, 20], mode="clip")[1])

    got, _ = same_as_numpy(layer, table)
    assert type(got.grad_fn).__name__ == "AddBackward0"
    # NumPy's checks of the indices (a float index reached scatter's RuntimeError)
    z = np.zeros_like(leaf(table))
    with pytest.raises(IndexError, match="`indices` must be an integer array"):
        np.put_along_axis(z, np.zeros((6, 1)), 1.0, axis=1)
    with pytest.raises(ValueError, match="`indices` and `arr` must have the same number"):
        np.put_along_axis(z, np.zeros(6, np.int64), 1.0, axis=1)


@pytest.mark.parametrize("mode", ["wrap", "clip"])
def test_take_modes_are_recorded(mode):
    """np.take(mode='wrap'/'clip') used to refuse a tensor that requires grad
    ('has no torchlike implementation'); it is a gather of wrapped or
    clamped indices now, with NumPy's values and errors."""
    a = RNG.standard_normal((3, 4))
    for axis, ind in ((None, [-13, 12, 5]), (1, [[-5, 9], [2, 2]]), (0, -4), (-1, [])):
        same_as_numpy(lambda t: np.take(t, ind, axis=axis, mode=mode), a)
    with pytest.raises(IndexError, match="cannot do a non-empty take from an empty axes"):
        np.take(leaf(np.zeros((2, 0))), [1], axis=1, mode=mode)
    with pytest.raises(ValueError, match="clipmode must be one of"):
        np.take(leaf(a), [1], mode="bad")


def test_pad_roll_flip_tile_repeat_broadcast_in_a_layer():
    x = RNG.standard_normal((3, 4))

    def layer(x):
        p = np.pad(x, ((1, 1), (2, 0)), mode="reflect") + np.pad(x, 1, mode="edge")[:, :6]
        r = np.roll(p, (1, -2), axis=(0, 1)) - np.flip(p, axis=1) * np.fliplr(p)
        t = np.tile(r[:, :2], (1, 2)) + np.repeat(r[:, 2:3], 4, axis=1)
        return t * np.broadcast_to(np.mean(x, axis=0)[None, :], (5, 4))

    same_as_numpy(layer, x)
    same_as_numpy(lambda x: np.repeat(x, [1, 3, 0], axis=0) * np.rot90(np.tile(x, (2, 1)), 2)[:4],
                  x)


@pytest.mark.parametrize("name", ["sort", "partition", "median", "percentile", "quantile",
                                  "quantile_methods", "nanmedian"])
def test_gradient_through_order_statistics(name):
    x = np.linspace(-2, 3, 20).reshape(4, 5)[:, RNG.permutation(5)]   # distinct values
    x = x + 0.01 * RNG.standard_normal(x.shape)
    f = {"sort": lambda a: np.sort(a, axis=0) * np.arange(1.0, 6.0),
         "partition": lambda a: np.partition(a, 2, axis=1)[:, 2],
         "median": lambda a: np.median(a, axis=1, keepdims=True) + np.median(a),
         "percentile": lambda a: np.percentile(a, [10, 50, 95], axis=0),
         "quantile": lambda a: np.quantile(a, 0.3, axis=None),
         "quantile_methods": lambda a: np.stack([np.quantile(a, 0.4, axis=1, method=m) for m in
                                                 ("lower", "higher", "midpoint", "nearest",
                                                  "hazen", "weibull", "median_unbiased")]),
         "nanmedian": lambda a: np.nanmedian(a, axis=0)}[name]
    same_as_numpy(f, x)


def test_reductions_with_where_and_initial_in_a_loss():
    x = RNG.standard_normal((4, 6))
    mask = RNG.random((4, 6)) > 0.4
    mask[:, 0] = True

    def loss(x):
        return (np.sum(x ** 2, axis=1, where=mask) + np.max(x, axis=1, where=mask,
                                                            initial=-10.0)
                + np.mean(x, axis=1, where=mask) + np.prod(1 + 0.1 * x, axis=1, initial=2.0)
                + np.min(x, axis=0, where=mask, initial=10.0).sum())

    same_as_numpy(loss, x)


def test_margin_loss_with_max_min_argmax():
    scores = RNG.standard_normal((6, 5))
    labels = np.array([0, 4, 2, 2, 1, 3])

    def loss(s):
        correct = s[np.arange(6), labels][:, None]
        others = np.where(np.arange(5) == labels[:, None], -np.inf, s)
        hinge = np.maximum(0, 1 + np.max(others, axis=1, keepdims=True) - correct)
        pred = np.argmax(s, axis=1)                     # not differentiable: an index
        picked = np.take_along_axis(s, pred[:, None], axis=1)
        return np.mean(hinge) + 0.1 * np.sum(picked) - 0.1 * np.min(s)

    same_as_numpy(loss, scores)


# ---- where the derivative is a choice: PyTorch's ------------------------------------------------

with open(os.path.join(ROOT, "tests", "golden", "numpy_tape.json")) as _f:
    GOLDEN = json.load(_f)

# each case of scripts/golden_numpy_tape.py, written with NumPy
NUMPY_SPELLINGS = {
    "clip_number_bounds": lambda x: np.clip(x, 2.0, 3.0),
    "clip_lower_only": lambda x: np.clip(x, 2, None),
    "clip_tensor_bounds": lambda x, lo: np.clip(x, lo, np.full_like(x, 3.0)),
    "clip_tensor_bounds_meet": lambda x, lo, hi: np.clip(x, lo, hi),
    "max_all_ties": lambda x: np.max(x),
    "max_axis_ties": lambda x: np.max(x, axis=1),
    "min_axis_ties": lambda x: np.amin(x, axis=0),
    "maximum_ties": lambda x: np.maximum(x, np.flip(x, 1)),
    "fmax_ties": lambda x: np.fmax(x, x[:, ::-1]),
    "ptp_ties": lambda x: np.ptp(x, axis=1),
    "abs_at_zero": lambda x: np.abs(x),
    "sign": lambda x: np.sign(x) * x,
    "norm_of_zero": lambda x: np.linalg.norm(x),
    "norm_axis_with_zero_row": lambda x: np.linalg.norm(x, axis=1),
    "sqrt_of_sum_of_squares_at_zero": lambda x: np.sqrt(np.sum(x ** 2)),
    "prod_one_zero": lambda x: np.prod(x),
    "prod_two_zeros": lambda x: np.prod(x),
    "prod_axis_zeros": lambda x: np.prod(x, axis=1),
    "cumprod_zeros": lambda x: np.cumprod(x, axis=1),
    "std_of_constant": lambda x: np.std(x),
    "power_half_at_zero": lambda x: np.power(x, 0.5),
    "power_zero_at_zero": lambda x: np.power(x, 0.0),
    "hypot_at_zero": lambda x, y: np.hypot(x, y),
    "arctan2_at_zero": lambda x, y: np.arctan2(x, y),
    "logaddexp_neg_inf": lambda x, y: np.logaddexp(x, y),
    "log_at_zero": lambda x: np.log(x),
    "det_singular": lambda a: np.linalg.det(a),
    "slogdet": lambda a: np.linalg.slogdet(a).logabsdet,
    "inv": lambda a: np.linalg.inv(a),
    "eigh_values": lambda a: np.linalg.eigvalsh(a),
    "svd_values": lambda a: np.linalg.svd(a, compute_uv=False),
    "pinv_singular": lambda a: np.linalg.pinv(a),
    "matrix_norm_nuc": lambda a: np.linalg.norm(a, "nuc"),
    "matrix_norm_2": lambda a: np.linalg.norm(a, 2),
}


def decode(v):
    return np.array(v, dtype=object).astype(np.float64) if v != [] else np.array([])


def test_golden_cases_are_all_spelled():
    assert sorted(NUMPY_SPELLINGS) == sorted(GOLDEN)


@pytest.mark.parametrize("name", sorted(NUMPY_SPELLINGS))
def test_gradients_where_the_derivative_is_a_choice_are_pytorchs(name):
    case = GOLDEN[name]
    f = NUMPY_SPELLINGS[name]
    arrays = [np.array(a, dtype=np.float64) for a in case["inputs"]]
    leaves = [leaf(a) for a in arrays]
    with np.errstate(all="ignore"):
        want = np.asarray(f(*arrays))
    got = f(*leaves)
    np.testing.assert_allclose(host(got), want, rtol=1e-12, atol=1e-12)
    np.testing.assert_allclose(host(got), decode(case["value"]), rtol=1e-12, atol=1e-12)
    weights = np.arange(1, got.numel() + 1, dtype=np.float64).reshape(tuple(got.shape))
    (got * weights).sum().backward()
    for t, g in zip(leaves, case["grads"]):
        g = decode(g)
        if name == "eigh_values":
            # NumPy's eigvalsh reads the lower triangle only, so the upper
            # one gets nothing and each entry below the diagonal gets what
            # PyTorch's symmetric gradient sends to it and to its mirror
            g = np.tril(g + g.T, -1) + np.diag(np.diag(g))
        np.testing.assert_allclose(host(t.grad), g, rtol=1e-9, atol=1e-12, err_msg=name)


def test_clip_bounds_are_exact_and_promote_as_numpy():
    """np.clip(t, None, 0.3) of float64 data was 0.30000001192... (the bound
    went through float32); int data with a float bound gave float32 and bool
    data with an int bound stayed bool; a NumPy-scalar bound was weak."""
    for a in (np.array([1.0, 0.2, -1.0]), np.array([1.0, 0.2, -1.0], np.float32),
              np.array([1, 2, 5]), np.array([1, 2], np.int8), np.array([True, False])):
        for lo, hi in ((None, 0.3), (-0.3, None), (1.3, 4.1), (0, 1), (np.float64(0.3), None)):
            if a.dtype.kind in "iub" and isinstance(lo, np.floating):
                continue   # PyTorch's promotion across kinds (docs/numpy.md)
            want = np.clip(a, lo, hi)
            got = np.clip(tl.tensor(a), lo, hi)
            assert np.dtype(got.dtype.name) == want.dtype, (a.dtype, lo, hi)
            np.testing.assert_array_equal(np.asarray(got), want)


def test_clip_takes_its_ufunc_keywords():
    """np.clip's dtype=, where= (with out=) and casting= were dropped on
    tensors: np.clip(t, 0, 1, dtype=np.float32) stayed float64, a masked
    write into out= wrote everywhere, and an unsafe cast was not refused."""
    a = np.asarray([-1.0, 0.5, 2.0, 0.8])
    m = np.asarray([True, False, True, True])
    for call in (lambda x, o: np.clip(x, 0, 1, dtype=np.float32),
                 lambda x, o: np.clip(x, 0.0, 1.0, where=m, out=o),
                 lambda x, o: np.clip(x, x * 0 - 0.5, 0.7, where=m, out=o),
                 lambda x, o: np.clip(x, 0, 1, dtype=np.int32, casting="unsafe")):
        want = call(a, np.full(4, 9.0))
        got = call(tl.tensor(a), tl.tensor(np.full(4, 9.0)))
        assert np.dtype(got.dtype.name) == want.dtype
        np.testing.assert_array_equal(host(got), want)
    with pytest.raises(TypeError, match="Cannot cast ufunc 'clip' input 0 from dtype"):
        np.clip(tl.tensor(a), 0, 1, dtype=np.int32)
    with pytest.raises(TypeError, match="unexpected keyword argument 'bogus'"):
        np.clip(tl.tensor(a), 0, 1, bogus=1)
    # recorded: the float32 clip's gradient reaches the float64 leaf, the
    # masked write keeps out's own history where the mask is False
    x, w = leaf(a), leaf(np.full(4, 2.0))
    np.clip(x, 0.0, 1.0, dtype=np.float32).sum().backward()
    assert x.grad.dtype == tl.float64
    out = w * 1.0
    np.clip(x, 0.0, 1.0, where=m, out=out).sum().backward()
    np.testing.assert_array_equal(host(w.grad), ~m)


# ---- in place, mixed operands, dtypes -----------------------------------------------------------

def test_in_place_numpy_idioms_give_pytorchs_errors_or_are_recorded():
    x, y = leaf(RNG.standard_normal((3, 4))), leaf(RNG.standard_normal((3, 4)))
    z = tl.zeros(3, 4, dtype=tl.float64)
    with pytest.raises(RuntimeError, match=r"add\(\): functions with out=\.\.\. arguments don't "
                                           r"support automatic differentiation"):
        np.add(x, y, out=z)
    with pytest.raises(RuntimeError, match="a leaf Variable that requires grad is being used "
                                           "in an in-place operation"):
        x[...] = 0.0
    with pytest.raises(RuntimeError, match="out= is a NumPy array"):
        np.exp(x, out=np.zeros((3, 4)))
    # a non-leaf written with NumPy's idioms: recorded, gradients by finite differences
    m = np.array([[True, False, True, False]] * 3)

    def written(x, y):
        h = x * 1.0
        h[...] = np.where(m, h, y)          # whole-array assignment
        h[:, 1] = np.tanh(y[:, 0])          # a column
        np.copyto(h, 2 * y, where=~m)
        np.putmask(h, h > 1.5, 1.5 + 0 * h)
        return h

    assert gradcheck(written, [x, y])
    # modifying a tensor saved for backward is caught, as in PyTorch
    e = np.exp(x)
    e[0] = 5.0
    with pytest.raises(RuntimeError, match="modified by an inplace operation"):
        e.sum().backward()


def test_ndarray_constants_mix_with_tensors_and_keep_the_tape():
    x = RNG.standard_normal((3, 4))
    W = RNG.standard_normal((4, 2))
    bias, scale = np.array([0.5, -1.0]), np.float64(2.0)

    def layer(x):
        h = np.dot(x, W) + bias                      # ndarray constants
        h = scale * h - np.ones((3, 2))
        h = np.where(np.array([True, False]), h, np.zeros(2))
        return np.concatenate([h, np.full((3, 1), 3.0)], axis=1) @ np.array([1.0, 2.0, 3.0])

    same_as_numpy(layer, x)


def test_float32_flows_as_numpy_through_a_float32_layer():
    """float32 data with float32 ndarray constants, Python numbers and
    float32 NumPy scalars stays float32, as in NumPy, and so does its
    gradient; a float64 ndarray promotes the result to float64 (NumPy's
    rule for arrays), and the gradient comes back in the leaf's float32."""
    x = RNG.standard_normal((3, 4)).astype(np.float32)
    W = RNG.standard_normal((4, 2)).astype(np.float32)

    def layer(x):
        h = np.tanh(np.dot(x, W) * np.float32(0.5) + 1.5)
        return np.mean(h ** 2, axis=0) + np.std(h) / np.sqrt(np.float32(2))

    got, (xt,) = same_as_numpy(layer, x, dtype=np.float32, rtol=1e-6, atol=1e-6)
    got.sum().backward()
    assert xt.grad.dtype == tl.float32
    mixed = np.dot(leaf(x, np.float32), W.astype(np.float64))
    assert mixed.dtype == tl.float64 == np.dot(x, W.astype(np.float64)).dtype
    mixed.sum().backward()
    assert mixed.grad_fn is not None
    np.testing.assert_allclose(host(np.sum(leaf(x, np.float32), dtype=np.float64)),
                               np.sum(x, dtype=np.float64), rtol=1e-12)


def test_python_callbacks_are_refused_with_grad_and_run_without():
    """np.vectorize/frompyfunc run Python per element on NumPy scalars;
    with a tensor that requires grad they raise, naming the call; on
    detached data they give NumPy's answer.  apply_along_axis hands the
    function tensor slices, so it records."""
    a = RNG.standard_normal((3, 4))
    x = leaf(a)
    along = np.apply_along_axis(lambda r: np.sum(r ** 2), 1, x)
    (g,) = tl.autograd.grad(along.sum(), [x])
    np.testing.assert_allclose(host(g), 2 * a)
    with pytest.raises(TypeError, match=r"\(vectorized\) calls a Python function on the "
                                        r"elements of a tensor that requires grad"):
        np.frompyfunc(lambda t: t * 2, 1, 1)(x)
    with pytest.raises(RuntimeError, match="Can't call numpy\\(\\) on Tensor that requires grad"):
        np.vectorize(lambda t: t * 2)(x)
    np.testing.assert_allclose(np.asarray(np.apply_along_axis(lambda r: np.sum(r ** 2), 1,
                                                              x.detach())),
                               np.sum(a ** 2, axis=1))
    np.testing.assert_allclose(np.asarray(np.vectorize(lambda t: t * 2)(x.detach())), a * 2)
    # the spelling that records: the slices as a list, stacked
    rows = np.stack([np.sum(r ** 2) for r in x])
    assert rows.grad_fn is not None
    np.testing.assert_allclose(host(rows), np.sum(a ** 2, axis=1))


def test_second_order_through_a_numpy_program():
    """create_graph through np.tanh/np.dot/np.logaddexp: the Hessian-vector
    product is the finite difference of the gradient (gradgradcheck)."""
    X = RNG.standard_normal((5, 3))

    def loss(w):
        return np.sum(np.logaddexp(0, -np.tanh(np.dot(X, w))))

    w = leaf(RNG.standard_normal(3))
    assert gradgradcheck(loss, [w])


SCIPY_PROGRAM = r'''
import json, os, sys
os.environ["SCIPY_ARRAY_API"] = "1"
sys.path.insert(0, sys.argv[1])
import numpy as np
import scipy.special as sp
import scipy.signal as signal
import scipy.stats as stats
import torchlike as tl
from torchlike.autograd import gradcheck

rng = np.random.default_rng(7)
x = rng.standard_normal(20) * 2
K = 3

def gmm_nll(logits, mu, log_sigma):
    # a mixture of K Gaussians: log p(x) by scipy.special.logsumexp
    log_pi = logits - sp.logsumexp(logits)
    z = (x[:, None] - mu) / np.exp(log_sigma)
    comp = log_pi - 0.5 * z ** 2 - log_sigma - 0.5 * np.log(2 * np.pi)
    return -np.sum(sp.logsumexp(comp, axis=1))

def dirichlet_logpdf(alpha):
    p = np.array([0.2, 0.3, 0.5])
    return (sp.gammaln(np.sum(alpha)) - np.sum(sp.gammaln(alpha))
            + np.sum((alpha - 1) * np.log(p)) + np.sum(sp.digamma(alpha)))

def filtered(u, w):
    return np.sum(signal.fftconvolve(u, w, mode="same") ** 2) + np.sum(stats.zscore(u) ** 3)

report = {}
for name, f, arrays in (
        ("gmm", gmm_nll, [rng.standard_normal(K), rng.standard_normal(K),
                          0.3 * rng.standard_normal(K)]),
        ("dirichlet", dirichlet_logpdf, [np.array([1.5, 2.0, 3.5])]),
        ("signal", filtered, [rng.standard_normal(9), rng.standard_normal(3)])):
    want = float(f(*arrays))
    leaves = [tl.tensor(a, requires_grad=True) for a in arrays]
    got = f(*leaves)
    report[name] = {"value": float(got.detach()), "want": want,
                    "recorded": got.grad_fn is not None,
                    "gradcheck": bool(gradcheck(f, leaves))}
# fit the mixture by gradient descent: the likelihood rises
params = [tl.tensor(a, requires_grad=True) for a in (np.zeros(K), np.array([-1.0, 0.0, 1.0]),
                                                      np.zeros(K))]
first = None
for step in range(40):
    loss = gmm_nll(*params)
    first = float(loss) if first is None else first
    for p in params:
        p.grad = None
    loss.backward()
    with tl.no_grad():
        for p in params:
            p -= 0.02 * p.grad
report["fit"] = [first, float(gmm_nll(*params))]
# logsumexp with weights b: SciPy sets -inf in place (array_api_extra's
# at().set(copy=None)) into a copy it already gave to max, which saved it
a = tl.tensor(rng.standard_normal((3, 4)), requires_grad=True)
try:
    sp.logsumexp(a, axis=1, b=tl.tensor(rng.random((3, 4)) + 0.1)).sum().backward()
    report["weighted"] = "no error"
except RuntimeError as error:
    report["weighted"] = str(error)
print(json.dumps(report))
'''


@pytest.mark.host_only
def test_scipy_mixture_model_and_signal_layers_under_the_array_api():
    """scipy.special.logsumexp/gammaln/digamma, scipy.signal.fftconvolve and
    scipy.stats.zscore on tensors that require grad, with SCIPY_ARRAY_API=1
    (set before SciPy is imported, so in a fresh interpreter)."""
    proc = subprocess.run([sys.executable, "-c", SCIPY_PROGRAM, ROOT], capture_output=True,
                          text=True, timeout=300)
    assert proc.returncode == 0, proc.stderr[-3000:]
    report = json.loads(proc.stdout.strip().splitlines()[-1])
    for name in ("gmm", "dirichlet", "signal"):
        r = report[name]
        assert r["recorded"] and r["gradcheck"], (name, r)
        assert math.isclose(r["value"], r["want"], rel_tol=1e-12, abs_tol=1e-12), (name, r)
    first, last = report["fit"]
    assert last < first - 1.0, report["fit"]
    # SciPy's own in-place write: PyTorch's tensors get the same error
    assert "modified by an inplace operation" in report["weighted"], report["weighted"]


def test_periodic_interpolation_is_recorded():
    """np.interp(period=) refused a tensor that requires grad; it is NumPy's
    periodic form now (x, xp modulo the period, xp sorted and extended)."""
    xp, fp = np.array([190.0, -190.0, 350.0, -350.0]), np.array([5.0, 10.0, 3.0, 4.0])
    x = np.array([-181.0, -171.0, -185.0, 185.0, -12.0, -5.0, 1.0, 365.0, 720.5])  # no knots
    same_as_numpy(lambda x, xp, fp: np.interp(x, xp, fp, period=360), x, xp, fp)
    same_as_numpy(lambda x: np.interp(x, xp, fp, period=-360, left=0.0), x)  # left ignored
    with pytest.raises(ValueError, match="period must be a non-zero value"):
        np.interp(leaf(x), xp, fp, period=0)


@pytest.mark.parametrize("mode, kwargs", [
    ("maximum", {}), ("minimum", {"stat_length": 2}), ("mean", {"stat_length": ((1, 2), (3, 1))}),
    ("median", {"stat_length": (2,)}), ("mean", {"stat_length": 1.6}),
    ("linear_ramp", {}), ("linear_ramp", {"end_values": ((1.0, 2.0), (3.0, 4.0))})])
def test_pad_statistic_and_ramp_modes_are_recorded(mode, kwargs):
    """np.pad's 'maximum'/'minimum'/'mean'/'median'/'linear_ramp' refused a
    tensor that requires grad; for float data they are ops now, axis by axis
    over what earlier axes padded, as NumPy's."""
    x = RNG.standard_normal((3, 4))
    same_as_numpy(lambda t: np.pad(t, ((1, 2), (2, 1)), mode=mode, **kwargs), x,
                  rtol=1e-14, atol=1e-15)
    same_as_numpy(lambda t: np.pad(t, 2, mode=mode, **kwargs), x.T.astype(np.float32),
                  dtype=np.float32, rtol=1e-5, atol=1e-6)


def test_pad_values_that_require_grad_are_recorded():
    """np.pad's constant_values= and linear_ramp's end_values= that require
    grad (a learned border) were read as host numbers, which refused them
    ("Can't call numpy() on Tensor that requires grad"); they fill the
    border from the tape now, so they get the gradient of every element they
    fill, in the data's dtype as NumPy writes them."""
    x = RNG.standard_normal((3, 4))
    for kwargs in ({"constant_values": [0.3]}, {"constant_values": [[0.3, -1.0], [2.0, 0.5]]},
                   {"mode": "linear_ramp", "end_values": [[0.3, -1.0], [2.0, 0.5]]},
                   {"mode": "linear_ramp", "end_values": [1.5]}):
        (key, values), = ((k, v) for k, v in kwargs.items() if k != "mode")
        mode = kwargs.get("mode", "constant")
        same_as_numpy(lambda t, v: np.pad(t, ((1, 2), (2, 1)), mode=mode, **{key: v}), x, values)
        got, (_, v) = same_as_numpy(lambda t, v: np.pad(t, 2, mode=mode, **{key: v}), x, values,
                                    dtype=np.float32, rtol=1e-6, atol=1e-6)
        got.sum().backward()
        assert v.grad.dtype == tl.float32
    v = leaf([0.5, 2.0])
    np.pad(leaf(x), ((1, 0), (0, 3)), constant_values=(v[0], v[1])).sum().backward()
    np.testing.assert_array_equal(host(v.grad), [4.0, 12.0])   # the corner is axis 1's
    # padding nothing (a 0-d array, zero widths) is a new array, as NumPy's
    for t, width in ((leaf(1.5), 2), (leaf(x), 0)):
        y = t * 1.0
        assert np.pad(y, width, constant_values=v[0]) is not y


def test_pad_modes_refuse_what_numpy_refuses():
    x = leaf(RNG.standard_normal((3, 4)))
    with pytest.raises(ValueError, match="stat_length of 0 yields no value for padding"):
        np.pad(x, 1, mode="maximum", stat_length=0)
    with pytest.raises(ValueError, match="index can't contain negative values"):
        np.pad(x, 1, mode="mean", stat_length=-1)
    with pytest.raises(ValueError, match="can't extend empty axis 1"):
        np.pad(leaf(np.zeros((2, 0))), 1, mode="median")
    with pytest.raises(ValueError, match="unsupported keyword arguments for mode 'mean'"):
        np.pad(x, 1, mode="mean", end_values=2)


def test_numpy_code_that_loses_the_gradient_through_an_ndarray_is_refused():
    """NumPy's own np.polydiv code writes the quotient into np.zeros
    (``q[k] = d``): run on tensors, its result came back without grad,
    silently.  That route refuses it, naming the function.  (np.polydiv is
    torchlike's own since round five, recorded: tests/test_numpy_tape_programs5.py.)"""
    from torchlike import _array_function
    u, v = np.array([1.0, 2.0, 3.0, 4.0, 5.0, 6.0]), np.array([4.0, 5.0])
    with pytest.raises(_array_function.Unsupported, match="numpy.polydiv: NumPy's code lost "
                                                          "the gradient"):
        _array_function.run_numpy_code(np.polydiv, np.polydiv._implementation,
                                       (leaf(u), leaf(v)), {})
    for got, want in zip(np.polydiv(tl.tensor(u), tl.tensor(v)), np.polydiv(u, v)):
        np.testing.assert_allclose(np.asarray(got), want, rtol=1e-13)
    with tl.no_grad():
        q, r = np.polydiv(leaf(u), leaf(v))
    np.testing.assert_allclose(np.asarray(q), np.polydiv(u, v)[0], rtol=1e-13)


def test_polymul_is_recorded():
    """np.polymul refused a tensor that requires grad (NumPy's code makes
    poly1d objects); it is the convolution of the trimmed coefficients."""
    same_as_numpy(np.polymul, [1.0, -2.0, 0.5], [0.25, 4.0, 1.0, 2.0])
    same_as_numpy(lambda a, b: np.polyval(np.polymul(a, b), np.linspace(-1, 1, 5)),
                  [0.5, 3.0], [2.0, -1.0, 0.75])
    for a, b in (([0.0, 0.0, 1.0, 2.0], [0.0, 3.0]), ([0.0, 0.0], [1.0, 2.0]),
                 (np.float32([1.0, 2.0]), [1.0, 2.0]), (3.0, [1.0, 2.0])):
        got, want = np.polymul(tl.tensor(np.asarray(a)), tl.tensor(np.asarray(b))), np.polymul(a, b)
        assert np.dtype(got.dtype.name) == want.dtype
        np.testing.assert_array_equal(np.asarray(got), want)


def test_diagflat_is_recorded():
    same_as_numpy(lambda t: np.diagflat(t, -1), RNG.standard_normal((2, 2)))
    same_as_numpy(lambda t: np.diagflat(t[:0], 1), RNG.standard_normal(3))


def test_fill_diagonal_and_unwrap_are_recorded():
    """NumPy's own code of both runs on tensors (fill_diagonal writes through
    ``a.flat``): recorded, as docs/numpy.md now says.  ``x.flat[i] = v``
    repeats or cuts v to the positions written, as NumPy's (it raised a
    shape error, so fill_diagonal with fewer values refused)."""
    def filled(t):
        h = np.outer(t, t)
        np.fill_diagonal(h, 2 * t)
        np.fill_diagonal(h, t[:3] + 1)       # shorter values repeat, as NumPy's
        return h

    same_as_numpy(filled, RNG.standard_normal(4))
    for index, value in ((slice(None, 4), [1.0, 2.0, 3.0]), (slice(None, None, 3), [5.0, 6.0, 7.0]),
                         ([0, 3], [4.0]), (slice(None), np.arange(4.0).reshape(2, 2))):
        a, t = np.zeros((2, 2)), tl.zeros(2, 2, dtype=tl.float64)
        a.flat[index] = value
        t.flat[index] = value
        np.testing.assert_array_equal(np.asarray(t), a)
    same_as_numpy(lambda t: np.unwrap(4 * t, axis=1), RNG.standard_normal((3, 5)))


@pytest.mark.parametrize("name", ["var", "std"])
def test_moments_about_a_given_mean_are_recorded(name):
    """np.var/np.std(mean=...) (NumPy 2) refused a tensor that requires grad;
    the moment about the given mean is computed (with where=, ddof=, axis=())
    and the gradient reaches the data and the mean."""
    x = RNG.standard_normal((3, 4))
    mask = np.array([[True, False, True, True], [True, True, False, True],
                     [False, True, True, False]])   # two or more kept per column
    f = getattr(np, name)
    for axis, kwargs in ((1, {}), (None, {"ddof": 1}), ((), {}), (0, {"where": mask})):
        same_as_numpy(lambda t, m: f(t, axis=axis, mean=m, **kwargs), x,
                      np.mean(x, axis=axis, keepdims=True, where=kwargs.get("where", True)))
    same_as_numpy(lambda t: f(t, axis=1, mean=np.mean(t, axis=1, keepdims=True)), x)


def test_complex_programs_by_their_real_and_imaginary_parts():
    """Complex layers (FFT filtering, complex linear algebra, phases): the
    loss as a function of the real and imaginary parts, gradchecked; values
    as NumPy's on complex128."""
    z = RNG.standard_normal((3, 4)) + 1j * RNG.standard_normal((3, 4))
    w = RNG.standard_normal((3, 4)) + 1j * RNG.standard_normal((3, 4))

    def layer(z, w):
        spec = np.fft.fft(z, axis=1) * np.conj(np.fft.fft(w, axis=1))
        A = z[:, :3] + 3 * np.eye(3)
        return (np.sum(np.abs(np.fft.ifft(spec, axis=1)) ** 2) + np.real(np.vdot(z, w))
                + np.sum(np.angle(w)) + np.real(np.trace(np.linalg.solve(A, w[:, :3])))
                + np.abs(np.linalg.det(A)) + np.linalg.norm(z, axis=0).sum())

    want = layer(z, w)
    parts = [leaf(p) for a in (z, w) for p in (a.real, a.imag)]

    def by_parts(zr, zi, wr, wi):
        return layer(zr + 1j * zi, wr + 1j * wi)

    np.testing.assert_allclose(host(by_parts(*parts)), want, rtol=1e-12)
    assert gradcheck(by_parts, parts)


def test_adam_written_with_numpy_updates_parameters_under_no_grad():
    """An Adam step in NumPy's in-place idioms on tensor state, the update
    written by np.copyto(param, new) under no_grad -- which refused a leaf
    that requires grad ('numpy.copyto has no torchlike implementation'):
    NumPy's own loop cannot take it, so the write is torchlike's, and it
    bumps the version counter as PyTorch's no_grad writes do."""
    X = RNG.standard_normal((20, 3))
    y = X @ np.array([1.0, -2.0, 0.5]) + 0.1
    w, b = leaf(np.zeros(3)), leaf(np.float64(0.0))
    state = {id(p): (np.zeros_like(p), np.zeros_like(p)) for p in (w, b)}
    for t in range(1, 301):
        loss = np.mean((np.dot(X, w) + b - y) ** 2)
        w.grad = b.grad = None
        loss.backward()
        with tl.no_grad():
            for p in (w, b):
                m, v = state[id(p)]
                np.multiply(m, 0.9, out=m)
                np.add(m, 0.1 * p.grad, out=m)
                np.multiply(v, 0.999, out=v)
                np.add(v, 0.001 * np.square(p.grad), out=v)
                version = p._version
                np.copyto(p, p - 0.05 * (m / (1 - 0.9 ** t)) / (np.sqrt(v / (1 - 0.999 ** t))
                                                               + 1e-8))
                assert p._version > version
                np.putmask(p, np.abs(p) > 5, 5.0)
    assert w.is_leaf and w.requires_grad and w.grad_fn is None
    np.testing.assert_allclose(host(w), [1.0, -2.0, 0.5], atol=1e-3)
    assert abs(float(b.detach()) - 0.1) < 1e-3
    with pytest.raises(RuntimeError, match="a leaf Variable that requires grad"):
        np.copyto(w, np.zeros(3))          # outside no_grad: PyTorch's error
