"""Layers written with NumPy on tensors that require grad (the design's third
use): the forward is plain NumPy / scipy.special code, run once on ndarrays
(the oracle for values, dtypes and shapes) and once on tensors, where autograd
gives gradients that are checked against finite differences (gradcheck, in
float64).  Some layers are also trained in an nn.Module with torchlike.optim.
What cannot be recorded must raise, never hand back a detached result."""
import numpy as np
import pytest
import scipy.special as sp

import torchlike as tl
from torchlike.autograd import gradcheck

RNG = np.random.default_rng(20)


def leaf(a):
    return tl.tensor(np.asarray(a, dtype=np.float64), requires_grad=True)


def check_layer(f, *arrays, rtol=1e-12, atol=1e-13, grad=True):
    """f on ndarrays (NumPy) and on float64 leaves (torchlike): the same
    values, dtype and shape; a recorded result; gradients = finite differences."""
    want = f(*arrays)
    leaves = [leaf(a) for a in arrays]
    got = f(*leaves)
    assert isinstance(got, tl.Tensor), type(got)
    assert got.requires_grad and got.grad_fn is not None
    assert got.dtype == np.asarray(want).dtype and tuple(got.shape) == np.shape(want)
    np.testing.assert_allclose(np.asarray(got.detach().cpu()), want, rtol=rtol, atol=atol)
    if grad:
        assert gradcheck(f, leaves)


# ---- nothing is detached silently ---------------------------------------------------------------

HOST_OUT_CALLS = {
    "sum": lambda x: np.sum(x, axis=0, out=np.zeros(5)),
    "einsum": lambda x: np.einsum("ij->j", x, out=np.zeros(5)),
    "dot": lambda x: np.dot(x, x.T, out=np.zeros((3, 3))),
    "matmul": lambda x: np.matmul(x, x.T, out=np.zeros((3, 3))),
    "cumsum": lambda x: np.cumsum(x, axis=1, out=np.zeros((3, 5))),
    "clip": lambda x: np.clip(x, 0, 1, out=np.zeros((3, 5))),
    "round": lambda x: np.round(x, 1, out=np.zeros((3, 5))),
    "exp": lambda x: np.exp(x, out=np.zeros((3, 5))),
    "exp_where": lambda x: np.exp(x, out=np.zeros((3, 5)), where=np.eye(3, 5, dtype=bool)),
    "add.reduce": lambda x: np.add.reduce(x, axis=0, out=np.zeros(5)),
    "maximum.accumulate": lambda x: np.maximum.accumulate(x, axis=1, out=np.zeros((3, 5))),
    "modf": lambda x: np.modf(x, out=(np.zeros((3, 5)), np.zeros((3, 5)))),
}


@pytest.mark.host_only  # ndarrays live on the host
@pytest.mark.parametrize("name", sorted(HOST_OUT_CALLS))
def test_ndarray_out_of_a_grad_result_raises(name):
    """An ndarray out= cannot carry history: writing a result that requires
    grad into it used to return the array with the gradient dropped."""
    x = leaf(RNG.standard_normal((3, 5)))
    with pytest.raises(RuntimeError, match="out= is a NumPy array"):
        HOST_OUT_CALLS[name](x)
    with tl.no_grad():  # nothing to record: NumPy's out= works as usual
        r = HOST_OUT_CALLS[name](x)
    assert isinstance(r[0] if isinstance(r, tuple) else r, np.ndarray)


def test_tensor_out_records_the_copy():
    x = leaf(RNG.standard_normal((3, 5)))
    out = tl.zeros(5, dtype=tl.float64)
    assert np.sum(x, axis=0, out=out) is out and out.grad_fn is not None
    out.sum().backward()
    np.testing.assert_array_equal(np.asarray(x.grad), np.ones((3, 5)))


def test_ufunc_at_with_grad_values_into_an_ndarray_and_a_tensor():
    x = leaf([1.0, 2.0, 3.0])
    with pytest.raises(RuntimeError, match=r"numpy\.add\.at writes into a NumPy array"):
        np.add.at(np.zeros(4), np.array([0, 1, 0]), x)
    # into a tensor, every ufunc's at is recorded: repeated indices apply in order
    def divided(v):
        a = tl.ones(4, dtype=tl.float64)
        np.divide.at(a, np.array([0, 1, 0]), v)
        return a
    want = np.ones(4)
    np.divide.at(want, np.array([0, 1, 0]), x.detach().numpy())
    np.testing.assert_array_equal(divided(x).detach().numpy(), want)
    assert gradcheck(divided, (x,))


# ---- reductions with where= and initial= (masked layers) ------------------------------------------

A = RNG.standard_normal((3, 4))
MASK = np.array([[True, True, False, True], [False, True, True, True],
                 [True, False, True, False]])  # two or more per row and column
ROW = np.array([True, False, True, True])

WHERE_CALLS = {
    "sum": lambda x: np.sum(x, axis=1, where=MASK),
    "sum_initial": lambda x: np.sum(x, where=ROW, initial=2.0),
    "prod_keepdims": lambda x: np.prod(x, axis=0, where=MASK, keepdims=True),
    "mean": lambda x: np.mean(x, axis=1, where=MASK),
    "mean_row_keepdims": lambda x: np.mean(x, where=ROW, keepdims=True),
    "var": lambda x: np.var(x, axis=1, where=MASK),
    "std_ddof": lambda x: np.std(x, axis=0, where=MASK, ddof=1),
    "max_where_initial": lambda x: np.max(x, axis=1, where=MASK, initial=-5.0),
    "min_initial": lambda x: np.min(x, axis=0, initial=0.0),
    "amax_initial_wins": lambda x: np.amax(x, initial=10.0),
    "amax_axes": lambda x: np.amax(x, axis=(0, 1), where=ROW, initial=-1.0, keepdims=True),
    "nansum": lambda x: np.nansum(x, axis=1, where=MASK),
    "method_sum": lambda x: x.sum(axis=1, where=MASK),
    "method_mean": lambda x: x.mean(axis=1, where=MASK),
    "method_max": lambda x: x.max(axis=1, where=MASK, initial=-9.0),
    "add.reduce": lambda x: np.add.reduce(x, axis=1, where=MASK, initial=2.0),
    "maximum.reduce": lambda x: np.maximum.reduce(x, axis=1, where=MASK, initial=-3.0),
}


@pytest.mark.parametrize("name", sorted(WHERE_CALLS))
def test_masked_reductions(name):
    """where= / initial= used to fall back to NumPy and so refuse a tensor
    that requires grad; the masked-out elements get no gradient."""
    check_layer(WHERE_CALLS[name], A)


def test_masked_reductions_of_integers_and_errors():
    ints = (A * 10).astype(np.int64)
    for call in (lambda x: np.sum(x, initial=0.5),  # cast to the result's dtype, as NumPy
                 lambda x: np.all(x > 0, axis=1, where=MASK),
                 lambda x: np.any(x > 0, where=MASK),
                 lambda x: np.max(x[:0], axis=0, initial=-1)):
        got, want = call(tl.tensor(ints)), call(ints)
        assert got.dtype == want.dtype
        np.testing.assert_array_equal(np.asarray(got), want)
    with pytest.raises(ValueError, match="to use a where mask one has to specify 'initial'"):
        np.max(tl.tensor(A), where=MASK)


def test_masked_softmax_layer():
    """Attention-style masked softmax written with where=: masked logits get
    no weight and no gradient."""
    def masked_softmax(s):
        top = np.max(s, axis=-1, where=MASK, initial=-np.inf, keepdims=True)
        e = np.exp(s - top, where=MASK, out=np.zeros_like(s))
        return e / np.sum(e, axis=-1, where=MASK, keepdims=True)
    check_layer(masked_softmax, A)
    s = leaf(A)
    (masked_softmax(s) * np.arange(4.0)).sum().backward()
    assert np.all(np.asarray(s.grad)[~MASK] == 0)


# ---- ufunc methods on grad tensors ---------------------------------------------------------------

UFUNC_CALLS = {
    "logaddexp.reduce": lambda x: np.logaddexp.reduce(x, axis=1),
    "logaddexp.reduce_all": lambda x: np.logaddexp.reduce(x, axis=None, keepdims=True),
    "logaddexp2.reduce_initial": lambda x: np.logaddexp2.reduce(x, axis=0, initial=1.0),
    "logaddexp.reduce_where": lambda x: np.logaddexp.reduce(x, axis=1, where=MASK, initial=-1.0),
    "hypot.reduce": lambda x: np.hypot.reduce(x, axis=1),
    "hypot.reduce_axes": lambda x: np.hypot.reduce(x, axis=(0, 1)),
    "maximum.accumulate": lambda x: np.maximum.accumulate(x, axis=1),
    "minimum.accumulate": lambda x: np.minimum.accumulate(x),
    "logaddexp.accumulate": lambda x: np.logaddexp.accumulate(x, axis=1),
    "logaddexp2.accumulate": lambda x: np.logaddexp2.accumulate(x, axis=0),
    "add.accumulate": lambda x: np.add.accumulate(x, axis=1),
    "multiply.reduce": lambda x: np.multiply.reduce(x, axis=1),
    "add.reduceat": lambda x: np.add.reduceat(x, [0, 2, 2, 3], axis=1),
    "maximum.reduceat": lambda x: np.maximum.reduceat(x, [0, 3, 1], axis=1),
    "multiply.reduceat": lambda x: np.multiply.reduceat(x, np.array([0, 1])),
    "multiply.outer": lambda x: np.multiply.outer(x[0], x[1]),
    "subtract.outer": lambda x: np.subtract.outer(x[:, 0], x[1]),
}


@pytest.mark.parametrize("name", sorted(UFUNC_CALLS))
def test_ufunc_methods(name):
    check_layer(UFUNC_CALLS[name], A)


def test_ufunc_methods_of_integers_keep_numpys_dtypes():
    ints = np.arange(10, dtype=np.int32).reshape(2, 5)
    for call in (lambda x: np.add.reduceat(x, [0, 3, 3], axis=1),
                 lambda x: np.maximum.accumulate(x, axis=1),
                 lambda x: np.add.reduceat(x, [0]),
                 lambda x: np.maximum.reduce(x, axis=1, initial=7)):
        got, want = call(tl.tensor(ints)), call(ints)
        assert got.dtype == want.dtype
        np.testing.assert_array_equal(np.asarray(got), want)
    with pytest.raises(IndexError, match=r"index 9 out-of-bounds in add\.reduceat \[0, 5\)"):
        np.add.reduceat(tl.tensor(ints), [0, 9], axis=1)


def test_scatter_add_layer_with_ufunc_at():
    """Segment sums the NumPy way: np.add.at into a zero tensor (repeated
    indices add up), recorded as an in-place accumulation."""
    idx = np.array([0, 2, 0, 3, 3])

    def segment_sum(v):
        out = np.zeros_like(v, shape=(4,))
        np.add.at(out, idx, v)
        return out

    def segment_diff(v):
        out = tl.zeros((2, 4), dtype=tl.float64)
        np.subtract.at(out, (idx % 2, idx), v)
        return out

    def segment_sum_transposed(v):  # into a non-contiguous tensor, with a slice
        out = tl.zeros((4, 2), dtype=tl.float64).T
        np.add.at(out, (slice(None), idx), v)
        return out

    v = RNG.standard_normal(5)
    want = np.zeros(4)
    np.add.at(want, idx, v)
    got = segment_sum(leaf(v))
    assert got.grad_fn is not None
    np.testing.assert_allclose(np.asarray(got.detach()), want)
    assert gradcheck(segment_sum, (leaf(v),))
    assert gradcheck(segment_diff, (leaf(v),))
    assert gradcheck(segment_sum_transposed, (leaf(v),))
    want = np.zeros((2, 4))
    np.add.at(want, (slice(None), idx), v)
    np.testing.assert_allclose(np.asarray(segment_sum_transposed(leaf(v)).detach()), want)


# ---- convolve, correlate, interp, sliding_window_view --------------------------------------------

@pytest.mark.parametrize("fn", [np.convolve, np.correlate])
@pytest.mark.parametrize("mode", ["full", "valid", "same"])
def test_convolve_correlate_match_numpy_for_every_length(fn, mode):
    for n in range(1, 6):
        for m in range(1, 6):  # either argument the longer: NumPy swaps internally
            a, v = RNG.standard_normal(n), RNG.standard_normal(m)
            got, want = fn(tl.tensor(a), tl.tensor(v), mode), fn(a, v, mode)
            assert tuple(got.shape) == want.shape, (n, m)
            np.testing.assert_allclose(np.asarray(got), want, rtol=1e-12, atol=1e-14)


@pytest.mark.parametrize("mode", ["full", "valid", "same"])
def test_convolve_correlate_gradients(mode):
    a, v = RNG.standard_normal(7), RNG.standard_normal(3)
    check_layer(lambda a, v: np.convolve(a, v, mode), a, v)
    check_layer(lambda a, v: np.correlate(v, a, mode), a, v)


def test_convolve_dtypes_and_errors():
    # integers keep NumPy's integer result (NumPy's loop: no gradient to take)
    got = np.convolve(tl.tensor([1, 2, 3]), tl.tensor([0, 1]))
    assert got.dtype == tl.int64
    np.testing.assert_array_equal(np.asarray(got), [0, 1, 2, 3])
    assert np.convolve(tl.tensor([1.0, 2.0], dtype=tl.float32), np.array([0.5])).dtype == tl.float64
    with pytest.raises(ValueError, match="^a cannot be empty"):
        np.convolve(tl.tensor([]), tl.tensor([1.0]))
    with pytest.raises(ValueError, match="second array argument cannot be empty"):
        np.correlate(tl.tensor([1.0]), tl.tensor([]))
    with pytest.raises(ValueError, match="mode must be one of"):
        np.correlate(tl.tensor([1.0]), tl.tensor([1.0]), "bogus")
    # complex: computed with torchlike ops (it was NumPy's loop, refused under grad)
    x = leaf([1.0, -2.0])
    got = np.convolve(x, tl.tensor([1j]))
    np.testing.assert_array_equal(got.detach().cpu().numpy(), np.convolve([1.0, -2.0], [1j]))
    got.abs().sum().backward()  # |x_k * 1j| = |x_k|: the gradient is sign(x)
    np.testing.assert_array_equal(x.grad.cpu().numpy(), [1.0, -1.0])


def test_interp_values_and_gradients():
    xp = np.sort(RNG.standard_normal(6))
    fp = RNG.standard_normal(6)
    x = np.concatenate([RNG.uniform(-3, 3, 9), xp[[0, -1]], [np.nan]])
    for kw in ({}, {"left": -7.0}, {"right": 3.0, "left": 1}):
        got, want = np.interp(tl.tensor(x), tl.tensor(xp), tl.tensor(fp), **kw), \
            np.interp(x, xp, fp, **kw)
        assert got.dtype == tl.float64
        np.testing.assert_allclose(np.asarray(got), want, rtol=1e-13)
    # float32 and integer inputs give float64, as NumPy's
    assert np.interp(tl.tensor(np.float32(1.5)), [1, 2], [0, 1]).dtype == tl.float64
    np.testing.assert_array_equal(np.asarray(np.interp(tl.tensor([0.5, 2.0]), [1.0], [4.0])),
                                  [4.0, 4.0])
    # in x (the slope), xp and fp, away from the knots
    check_layer(lambda x, xp, fp: np.interp(x, xp, fp), RNG.uniform(-1, 1, 5),
                np.array([-1.5, -0.4, 0.3, 1.2]), RNG.standard_normal(4))
    with pytest.raises(ValueError, match="fp and xp are not of the same length"):
        np.interp(tl.tensor([1.0]), tl.tensor([1.0, 2.0]), tl.tensor([1.0]))
    # period= is recorded too (tests/test_numpy_tape_programs.py checks more)
    np.testing.assert_allclose(
        np.asarray(np.interp(leaf([2.5]), [0.0, 2.0], [1.0, 3.0], period=3.0).detach()),
        np.interp([2.5], [0.0, 2.0], [1.0, 3.0], period=3.0), rtol=1e-15)


@pytest.mark.parametrize("args", [((2, 3),), (3, 1), ((2, 2), (0, 1)), ((2, 3), (1, 1)),
                                  (4, -1)])
def test_sliding_window_view(args):
    z = RNG.standard_normal((3, 8))
    view = np.lib.stride_tricks.sliding_window_view
    check_layer(lambda t: view(t, *args) * 1.5, z)


def test_sliding_window_view_errors():
    z = tl.tensor(RNG.standard_normal((3, 8)))
    view = np.lib.stride_tricks.sliding_window_view
    with pytest.raises(ValueError, match="window shape cannot be larger"):
        view(z, 9, axis=1)
    with pytest.raises(ValueError, match="Since axis is `None`"):
        view(z, 2)
    with pytest.raises(ValueError, match="Must provide matching length"):
        view(z, (2, 2), axis=0)


# ---- layers written in plain NumPy ------------------------------------------------------------------

def layer_norm(x, g, b):
    mu = np.mean(x, axis=-1, keepdims=True)
    return (x - mu) / np.sqrt(np.var(x, axis=-1, keepdims=True) + 1e-5) * g + b


def layer_norm_methods(x, g, b):
    # the ndarray methods, NumPy's spelling (axis=, keepdims=): NumPy's meaning
    return (x - x.mean(axis=-1, keepdims=True)) / np.sqrt(x.var(axis=-1, keepdims=True)
                                                          + 1e-5) * g + b


def rms_norm(x, g):
    return x / np.sqrt(np.mean(np.square(x), axis=-1, keepdims=True) + 1e-6) * g


def rms_norm_linalg(x, g):
    return x / (np.linalg.norm(x, axis=-1, keepdims=True) / np.sqrt(x.shape[-1])) * g


def softmax(s, axis=-1):
    e = np.exp(s - np.max(s, axis=axis, keepdims=True))
    return e / np.sum(e, axis=axis, keepdims=True)


def logsumexp(s):
    top = np.amax(s, axis=1, keepdims=True)
    return np.squeeze(top, 1) + np.log(np.sum(np.exp(s - top), axis=1))


def attention_einsum(q, k, v):
    s = np.einsum("bqd,bkd->bqk", q, k) / np.sqrt(q.shape[-1])
    return np.einsum("bqk,bkd->bqd", softmax(s), v)


def attention_matmul(q, k, v):
    s = np.matmul(q, np.swapaxes(k, -1, -2)) / np.sqrt(q.shape[-1])
    return softmax(s) @ v


CAUSAL = np.triu(np.ones((5, 6), dtype=bool), 2)


def attention_causal(q, k, v):
    s = np.where(CAUSAL, -np.inf, q @ k.transpose(0, 2, 1))
    return np.matmul(softmax(s), v)


def conv1d_windows(x, w):
    # x: (B, C, L), w: (O, C, K) -> (B, L - K + 1, O)
    windows = np.lib.stride_tricks.sliding_window_view(x, w.shape[-1], axis=-1)
    return np.tensordot(windows, w, axes=([1, 3], [1, 2]))


def conv1d_windows_einsum(x, w):
    windows = np.lib.stride_tricks.sliding_window_view(x, w.shape[-1], axis=-1)
    return np.einsum("bclk,ock->bol", windows, w)


def conv2d_windows(x, w):
    # x: (B, C, H, W), w: (O, C, KH, KW) -> (B, O, H', W')
    windows = np.lib.stride_tricks.sliding_window_view(x, w.shape[-2:], axis=(2, 3))
    return np.einsum("bchwij,ocij->bohw", windows, w)


def max_pool(x):  # (B, C, 8, 6) -> (B, C, 4, 3)
    b, c, h, w = x.shape
    return np.max(x.reshape(b, c, h // 2, 2, w // 2, 2), axis=(3, 5))


def avg_pool_method(x):
    b, c, h, w = x.shape
    return x.reshape(b, c, h // 2, 2, w // 2, 2).mean(axis=(3, 5))


TOKENS = np.array([[1, 3, 3], [0, 9, 2]])  # a repeated token: gradients add up


def embedding_take(e):
    return np.take(e, TOKENS, axis=0)


def embedding_index(e):
    return np.sum(e[TOKENS], axis=1)


def embedding_bag(e):
    return np.take_along_axis(e, np.array([[0], [3], [1]]), axis=1)


def gelu_tanh(x):
    return 0.5 * x * (1 + np.tanh(np.sqrt(2 / np.pi) * (x + 0.044715 * np.power(x, 3))))


def gelu_erf(x):
    return 0.5 * x * (1 + sp.erf(x / np.sqrt(2)))


def activations(x):
    return np.stack([np.where(x > 0, x, np.expm1(x)),          # elu
                     np.maximum(x, 0.1 * x),                   # leaky relu
                     np.clip(x, -1.0, 1.0),                    # hardtanh
                     np.logaddexp(0, x),                       # softplus
                     x * sp.expit(x),                          # silu
                     np.sign(x) * np.log1p(np.abs(x)),         # symmetric log
                     np.piecewise(x, [x < -1, x > 1],          # a hand-written spline
                                  [lambda v: -1 + 0 * v, lambda v: 1 + 0 * v,
                                   lambda v: v * (1.5 - 0.5 * v * v)])])


POINTS = np.linspace(-1, 1, 7)


def poly_features(c):
    return np.polyval(c, POINTS) + np.vander(POINTS, len(c)) @ c[::-1]


def poly_of_input(c, x):
    return np.polyval(c, x)


def pairwise(a, b):
    diff = a[:, None, :] - b[None, :, :]
    return np.stack([np.sqrt(np.sum(diff ** 2, axis=-1)),      # euclidean
                     np.linalg.norm(diff, ord=1, axis=-1),     # manhattan
                     np.linalg.norm(diff, ord=np.inf, axis=-1),
                     np.linalg.norm(diff, ord=3, axis=-1),
                     (a @ b.T) / np.outer(np.linalg.norm(a, axis=1),
                                          np.linalg.norm(b, axis=1))])  # cosine


def running_layers(x):
    return np.concatenate([np.cumsum(x, axis=1) / np.arange(1, x.shape[1] + 1),
                           np.cumprod(1 + 0.1 * x, axis=1),
                           np.diff(x, n=2, axis=1),
                           np.diff(x, axis=1, prepend=0.0),
                           np.maximum.accumulate(x, axis=1)], axis=1)


def gp_neg_log_marginal(x, y, log_scale, log_noise):
    """A Gaussian process's negative log marginal likelihood: RBF kernel,
    Cholesky, triangular solve, slogdet and solve inside one layer."""
    d2 = np.sum((x[:, None, :] - x[None, :, :]) ** 2, axis=-1)
    k = np.exp(-0.5 * d2 / np.exp(2 * log_scale)) + np.exp(log_noise) * np.eye(x.shape[0])
    chol = np.linalg.cholesky(k)
    z = np.linalg.solve(chol, y)
    sign, logdet = np.linalg.slogdet(k)
    alpha = np.linalg.solve(k, y)
    fit = 0.25 * (z @ z + y @ alpha)  # the same quadratic form, two ways
    logdet_chol = 2 * np.sum(np.log(np.diagonal(chol)))
    return fit + 0.25 * (logdet + logdet_chol) + 0.5 * len(y) * np.log(2 * np.pi)


def ridge_layer(a):
    gram = a @ a.T + np.eye(a.shape[0])
    return np.linalg.inv(gram) @ a + np.linalg.det(gram)


def fft_conv(x, k):
    n = x.shape[-1] + k.shape[-1] - 1
    return np.fft.irfft(np.fft.rfft(x, n=n) * np.fft.rfft(k, n=n), n=n)


def spectral_pool(x):
    f = np.fft.fft2(x)
    return np.real(np.fft.ifft2(f * np.abs(f) / (1 + np.abs(f))))


def gumbel_free_topk(x):
    top2 = np.sort(x, axis=1)[:, -2:]
    return np.sum(top2, axis=1) + np.partition(x, -1, axis=1)[:, -1]


def scipy_special_layer(x):
    return sp.gammaln(np.exp(x)) + sp.xlogy(np.exp(x), 1 + x * x) + sp.log_ndtr(x)


def moments(x):
    # NumPy's ddof=1 by keyword; the methods follow NumPy when spelled so
    return np.stack([np.std(x, axis=1, ddof=1), x.std(axis=1, ddof=1), x.var(ddof=1, axis=1),
                     np.ptp(x, axis=1), np.median(x, axis=1), np.quantile(x, 0.3, axis=1)])


LAYERS = {
    "layer_norm": (layer_norm, (2, 3, 4), (4,), (4,)),
    "layer_norm_methods": (layer_norm_methods, (2, 3, 4), (4,), (4,)),
    "rms_norm": (rms_norm, (2, 3, 4), (4,)),
    "rms_norm_linalg": (rms_norm_linalg, (2, 3, 4), (4,)),
    "softmax": (softmax, (3, 5)),
    "logsumexp": (logsumexp, (3, 5)),
    "attention_einsum": (attention_einsum, (2, 5, 4), (2, 6, 4), (2, 6, 3)),
    "attention_matmul": (attention_matmul, (2, 5, 4), (2, 6, 4), (2, 6, 3)),
    "attention_causal": (attention_causal, (2, 5, 4), (2, 6, 4), (2, 6, 3)),
    "conv1d_windows": (conv1d_windows, (2, 3, 10), (5, 3, 3)),
    "conv1d_windows_einsum": (conv1d_windows_einsum, (2, 3, 10), (5, 3, 3)),
    "conv2d_windows": (conv2d_windows, (1, 2, 5, 6), (3, 2, 2, 3)),
    "max_pool": (max_pool, (2, 3, 8, 6)),
    "avg_pool_method": (avg_pool_method, (2, 3, 8, 6)),
    "embedding_take": (embedding_take, (10, 4)),
    "embedding_index": (embedding_index, (10, 4)),
    "embedding_bag": (embedding_bag, (3, 5)),
    "gelu_tanh": (gelu_tanh, (3, 5)),
    "gelu_erf": (gelu_erf, (3, 5)),
    "activations": (activations, (3, 5)),
    "poly_features": (poly_features, (4,)),
    "poly_of_input": (poly_of_input, (4,), (6,)),
    "pairwise": (pairwise, (4, 3), (5, 3)),
    "running_layers": (running_layers, (3, 6)),
    "ridge_layer": (ridge_layer, (4, 3)),
    "fft_conv": (fft_conv, (10,), (3,)),
    "spectral_pool": (spectral_pool, (4, 6)),
    "topk": (gumbel_free_topk, (3, 5)),
    "scipy_special_layer": (scipy_special_layer, (3, 4)),
    "moments": (moments, (3, 5)),
}


@pytest.mark.parametrize("name", sorted(LAYERS))
def test_numpy_layer(name):
    f, *shapes = LAYERS[name]
    rng = np.random.default_rng(sorted(LAYERS).index(name))
    arrays = [rng.standard_normal(s) for s in shapes]
    if name == "activations":  # away from the kinks (0, +-1), where FD is one-sided
        arrays = [np.array([[-2.0, -1.3, -0.6, -0.2, 0.3], [0.7, 1.4, 2.2, -0.9, 0.5],
                            [-0.4, 0.8, 1.7, -1.8, 0.15]])]
    check_layer(f, *arrays, rtol=1e-10, atol=1e-12)


def test_gp_marginal_likelihood_layer():
    x, y = RNG.standard_normal((6, 2)), RNG.standard_normal(6)
    check_layer(gp_neg_log_marginal, x, y, np.array(0.1), np.array(-1.0))


def test_layers_in_float32_keep_numpys_dtype():
    x = RNG.standard_normal((2, 3, 4)).astype(np.float32)
    g, b = np.ones(4, np.float32), np.zeros(4, np.float32)
    for f, args in ((layer_norm, (x, g, b)), (attention_matmul, (x, x, x)), (gelu_erf, (x,)),
                    (rms_norm_linalg, (x, g)), (lambda t: np.mean(t, axis=0, dtype=np.float64),
                                                (x,))):
        want = f(*args)
        got = f(*[tl.tensor(a, requires_grad=True) for a in args])
        # `x / np.sqrt(d)` (attention_matmul, gelu_erf, rms_norm_linalg): NumPy
        # promotes its float64 scalar (NEP 50), a tensor operator takes it as
        # a Python number (PyTorch's rule, docs/numpy.md)
        scalar_operand = f in (attention_matmul, gelu_erf, rms_norm_linalg)
        want_dtype = np.float32 if scalar_operand else want.dtype
        assert got.requires_grad and got.dtype == want_dtype, f
        np.testing.assert_allclose(np.asarray(got.detach()), want, rtol=2e-5, atol=2e-6)


def test_std_method_spellings():
    """x.std() is PyTorch's (unbiased); NumPy's keywords select NumPy's
    meaning (ddof=0 unless given) -- docs/numpy.md lists the collision."""
    a = RNG.standard_normal((3, 5))
    x = leaf(a)
    for got, want in ((x.std(), np.std(a, ddof=1)), (x.std(ddof=0), np.std(a)),
                      (x.std(axis=0), np.std(a, axis=0)), (x.var(ddof=1), np.var(a, ddof=1)),
                      (np.std(x), np.std(a))):
        assert got.requires_grad
        np.testing.assert_allclose(np.asarray(got.detach()), want, rtol=1e-13)


# ---- NumPy layers inside nn.Module, trained with torchlike.optim --------------------------------------

class NumpyConvClassifier(tl.nn.Module):
    """conv1d (windows + tensordot) -> GELU -> max over time -> layer norm ->
    linear -> softmax cross-entropy, every step a NumPy call."""

    def __init__(self, rng, channels=2, hidden=4, classes=3, kernel=3):
        super().__init__()
        p = lambda *shape: tl.nn.Parameter(tl.tensor(0.5 * rng.standard_normal(shape)))
        self.w = p(hidden, channels, kernel)
        self.g, self.b = p(hidden), p(hidden)
        self.out = p(hidden, classes)

    def forward(self, x):
        h = gelu_erf(conv1d_windows(x, self.w))               # (B, L', H)
        h = layer_norm(np.max(h, axis=1), self.g, self.b)     # (B, H)
        return np.dot(h, self.out)                             # (B, classes)


def cross_entropy(logits, labels):
    logp = logits - logsumexp(logits)[:, None]
    return -np.mean(np.take_along_axis(logp, labels[:, None], axis=1))


def test_module_of_numpy_layers_trains():
    rng = np.random.default_rng(7)
    x = tl.tensor(rng.standard_normal((6, 2, 9)))
    labels = np.array([0, 1, 2, 0, 1, 2])
    model = NumpyConvClassifier(rng)
    params = list(model.parameters())
    assert len(params) == 4

    # the gradient of the loss in every parameter, against finite differences
    assert gradcheck(lambda *ps: cross_entropy(NumpyConvClassifier.forward(
        _Bound(ps), x), labels), [p.detach().clone().requires_grad_() for p in params])

    opt = tl.optim.Adam(model.parameters(), lr=0.05)
    losses = []
    for _ in range(25):
        opt.zero_grad()
        loss = cross_entropy(model(x), labels)
        loss.backward()
        assert all(p.grad is not None and p.grad.shape == p.shape for p in params)
        opt.step()
        losses.append(float(loss))
    assert losses[-1] < 0.5 * losses[0], losses


class _Bound:
    """Stands in for the module with the given tensors as its parameters
    (gradcheck perturbs plain tensors)."""

    def __init__(self, ps):
        self.w, self.g, self.b, self.out = ps


class GPRegressor(tl.nn.Module):
    def __init__(self):
        super().__init__()
        self.log_scale = tl.nn.Parameter(tl.tensor(0.5, dtype=tl.float64))
        self.log_noise = tl.nn.Parameter(tl.tensor(0.0, dtype=tl.float64))

    def forward(self, x, y):
        return gp_neg_log_marginal(x, y, self.log_scale, self.log_noise)


def test_gaussian_process_hyperparameters_fit_with_sgd():
    rng = np.random.default_rng(3)
    xs = np.sort(rng.uniform(-2, 2, (10, 1)), axis=0)
    x = tl.tensor(xs)
    y = tl.tensor(np.sin(2 * xs[:, 0]) + 0.05 * rng.standard_normal(10))
    gp = GPRegressor()
    opt = tl.optim.SGD(gp.parameters(), lr=0.05)
    first = None
    for _ in range(30):
        opt.zero_grad()
        nll = gp(x, y)
        nll.backward()
        opt.step()
        first = float(nll) if first is None else first
    assert float(gp(x, y)) < first - 1.0
    # the noise shrinks towards the data's
    assert float(gp.log_noise) < 0.0


# ---- scipy.special losses and transforms used in layers -------------------------------------------

EDGES_1 = np.array([-800.0, -3.0, -1e-10, 0.0, 1e-17, 1e-8, 0.4, 2.5, 700.0, 800.0, np.inf,
                    -np.inf, np.nan])
EDGES_A = np.array([-1.0, 0.0, 0.0, 1.0, 1.0, 2.0, np.inf, 0.5, 1e-300, 3.0, 0.5, -2.0])
EDGES_B = np.array([1.0, 1.0, 0.0, 2.0, 0.3, -5.0, 3.0, -0.5, 1.0, np.nan, 1e-20, 1.0])

SPECIAL_UNARY = {  # name -> points where the gradient is checked
    "expm1": [-2.0, -1e-3, 0.3, 4.0], "log1p": [-0.5, 1e-3, 0.3, 4.0],
    "exp2": [-2.0, 0.3, 4.0], "exp10": [-2.0, 0.3, 1.5], "cbrt": [-2.0, 0.5, 3.0],
    "cosm1": [-2.0, 1e-4, 0.3, 4.0], "exprel": [-2.0, -1e-3, 0.3, 4.0],
    "loggamma": [0.3, 2.0, 7.0],
}
SPECIAL_BINARY = {
    "huber": ([0.5, 1.0, 2.0], [0.2, -1.7, 1.5]),
    "pseudo_huber": ([0.5, 1.0, 2.0], [0.2, -1.7, 1.5]),
    "powm1": ([0.5, 1.5, 2.0], [0.2, -1.7, 1e-3]),
    "boxcox": ([0.5, 1.5, 2.0], [0.2, -1.7, 1e-3]),
    "boxcox1p": ([0.5, 1.5, 2.0], [0.2, -1.7, 1e-3]),
    "inv_boxcox": ([0.5, 1.5, 2.0], [0.2, -0.1, 1e-3]),
    "inv_boxcox1p": ([0.5, 1.5, 2.0], [0.2, -0.1, 1e-3]),
}


@pytest.mark.parametrize("name", sorted(SPECIAL_UNARY))
def test_scipy_special_unary_on_the_tape(name):
    """These scipy.special ufuncs used to raise for a tensor that requires grad."""
    f = getattr(sp, name)
    with np.errstate(all="ignore"):
        want = f(EDGES_1)
        got = f(tl.tensor(EDGES_1))
    np.testing.assert_allclose(np.asarray(got), want, rtol=1e-14, atol=0)
    assert f(tl.tensor(EDGES_1.astype(np.float32))).dtype == tl.float32
    check_layer(f, np.array(SPECIAL_UNARY[name]))


@pytest.mark.parametrize("name", sorted(SPECIAL_BINARY))
def test_scipy_special_binary_on_the_tape(name):
    f = getattr(sp, name)
    with np.errstate(all="ignore"):
        for a, b in ((EDGES_A, EDGES_B), (EDGES_B, EDGES_A)):  # SciPy's special cases
            np.testing.assert_allclose(np.asarray(f(tl.tensor(a), tl.tensor(b))), f(a, b),
                                       rtol=1e-13, atol=0)
    check_layer(f, *map(np.array, SPECIAL_BINARY[name]))


def test_robust_regression_layer_with_scipy_losses():
    """A Box-Cox transformed target fitted under a pseudo-Huber loss."""
    rng = np.random.default_rng(4)
    x, y = rng.standard_normal((8, 3)), rng.uniform(0.5, 3.0, 8)

    def loss(w, lmbda):
        r = x @ w - sp.boxcox(y, lmbda)
        return np.mean(sp.pseudo_huber(0.7, r)) + 0.1 * np.sum(sp.huber(1.0, w))
    check_layer(loss, rng.standard_normal(3), np.array(0.4))


def test_complex_loggamma_runs_scipy_without_grad_and_refuses_with_it():
    z = np.array([1 + 1j, 2.0])
    np.testing.assert_allclose(np.asarray(sp.loggamma(tl.tensor(z))), sp.loggamma(z))
    with pytest.raises(TypeError, match=r"scipy\.special\.loggamma has no torchlike"):
        sp.loggamma(tl.tensor(z, requires_grad=True))


def test_private_scipy_ufuncs_are_named_as_scipys():
    x = leaf([1.5, 2.5])
    with pytest.raises(TypeError, match=r"^scipy\.special\._.*zeta has no torchlike"):
        sp.zeta(x, 1.0)


# ---- matvec / vecmat, weighted bincount, writes into a tensor ---------------------------------------

def test_matvec_vecmat():
    """np.matvec on a tensor recursed without end (the namespace looked the
    ufunc up in NumPy, which sent it back); now a matmul."""
    rng = np.random.default_rng(8)
    a, v = rng.standard_normal((2, 1, 3, 4)), rng.standard_normal((5, 4))
    check_layer(np.matvec, a, v)
    check_layer(lambda a, v: np.vecmat(v[:, :3], a), a, v)
    c = rng.standard_normal(3) + 1j * rng.standard_normal(3)  # vecmat conjugates x1
    m = rng.standard_normal((3, 2)).astype(complex)
    np.testing.assert_allclose(np.asarray(np.vecmat(tl.tensor(c), tl.tensor(m))), np.vecmat(c, m))
    assert np.matvec(tl.tensor(a.astype(np.float32)), tl.tensor(v)).dtype == tl.float64
    with pytest.raises(ValueError, match="matvec: Input operand 1 has a mismatch"):
        np.matvec(tl.tensor(a), tl.tensor(v[:, :3]))


def test_weighted_bincount_is_a_recorded_segment_sum():
    idx = np.array([0, 1, 1, 3, 2, 0])
    w = RNG.standard_normal(6)
    for minlength in (0, 7):
        check_layer(lambda w: np.bincount(idx, weights=w, minlength=minlength), w)
    assert np.bincount(tl.tensor(idx), weights=leaf(w).float()).dtype == tl.float64
    with pytest.raises(ValueError, match="same length"):
        np.bincount(idx, weights=leaf(w[:3]))


def masked_writes(np_, z, v, mask):
    """copyto / putmask / place into fresh arrays (tensors for torchlike)."""
    fresh = (lambda a: a.copy()) if np_ is np else (lambda a: a.clone())
    zeros = np.zeros_like(z)
    np.copyto(zeros, z * 2, where=mask)
    masked = fresh(z)
    np.putmask(masked, mask, v)       # v cycles over positions in z
    placed = fresh(z)
    np.place(placed, mask, v)         # v cycles over the True elements
    filled = np.zeros_like(z)
    np.copyto(filled, v[:1])          # broadcast
    return zeros, masked, placed, filled


def test_copyto_putmask_place_into_tensors_are_recorded():
    z, v = RNG.standard_normal((3, 4)), np.array([10.0, 20.0, 30.0])
    mask = z > 0
    want = masked_writes(np, z, v, mask)
    zt, vt = leaf(z), leaf(v)
    got = masked_writes(tl, zt, vt, mask)
    for g, w in zip(got, want):
        assert g.grad_fn is not None
        np.testing.assert_array_equal(np.asarray(g.detach()), w)
    assert gradcheck(lambda z, v: masked_writes(tl, z, v, mask), (zt, vt))


def test_writes_that_cannot_be_recorded_raise():
    x = leaf(RNG.standard_normal((3, 4)))
    with pytest.raises(RuntimeError, match=r"numpy\.copyto writes into a NumPy array"):
        np.copyto(np.zeros((3, 4)), x)
    with pytest.raises(RuntimeError, match="leaf Variable that requires grad"):
        np.putmask(x, np.eye(3, 4, dtype=bool), 0.0)
    with pytest.raises(TypeError, match="according to the rule 'same_kind'"):
        np.copyto(tl.zeros(3, dtype=tl.int64), x[0, :3])
    with pytest.raises(ValueError, match="could not broadcast"):
        np.copyto(tl.zeros((2, 2), dtype=tl.float64), x[0, :3])
    with pytest.raises(ValueError, match="Cannot insert from an empty array"):
        np.place(x.clone(), np.eye(3, 4, dtype=bool), x[0, :0])
    plain = tl.zeros(3)  # no gradient, on the host: NumPy's own loop, as before
    np.copyto(plain, [1, 2, 3])
    np.testing.assert_array_equal(np.asarray(plain), [1.0, 2.0, 3.0])


# ---- ndarray methods on grad tensors -----------------------------------------------------------------

def _in_place(method, *args, **kwargs):
    """NumPy's in-place methods (sort, partition, put, fill, shape =) on a copy."""
    def call(x):
        out = x.copy()
        getattr(out, method)(*args, **kwargs)
        return out
    return call


def _reshaped(x):
    out = x.copy()
    out.shape = (-1,)
    return out


METHODS = {
    "sum_keepdims": lambda x: x.sum(axis=1, keepdims=True),
    "sum_where_initial": lambda x: x.sum(axis=0, where=x > 0, initial=1.0),
    "max_axis": lambda x: x.max(axis=0) + x.min(axis=-1, keepdims=True).sum(),
    "max_initial": lambda x: x.max(axis=0, initial=0.0),
    "cumsum_cumprod": lambda x: x.cumsum(axis=1) + x.cumprod(axis=1) + x.cumsum().reshape(x.shape),
    "std_var": lambda x: x.std(axis=1, ddof=1) + x.var(axis=1) + x.std(ddof=0),
    "clip_trace": lambda x: x.clip(min=-0.5, max=0.5) + x.trace(offset=1),
    "reshape_flatten_F": lambda x: x.reshape(4, -1, order="F") + x.flatten("F").reshape(4, -1),
    "repeat_take": lambda x: x.repeat([1, 2, 0], axis=0).take([0, 2], axis=-1),
    "transpose_T_swapaxes": lambda x: x.transpose() + x.T + x.swapaxes(0, 1),
    "dot_conj_real": lambda x: x.dot(x.T).conj().real + x.conjugate()[:, :3].imag,
    "compress_choose": lambda x: x.compress([True, False, True], axis=0) + np.choose(
        np.array([0, 1, 0, 1]), [x[0], x[1]]),
    "take_along_argmax": lambda x: np.take_along_axis(x, x.argmax(axis=-1, keepdims=True), -1),
    "view_noarg": lambda x: x.view() * 2,
    "sort_in_place": _in_place("sort", axis=-1),
    "partition_in_place": _in_place("partition", 1, axis=-1),
    "put_in_place": _in_place("put", [0, 3], [5.0, 6.0]),
    "shape_assignment": _reshaped,
    "flat_item": lambda x: x.flat[3] * x,
}


@pytest.mark.parametrize("name", sorted(METHODS))
def test_ndarray_methods_on_grad_tensors(name):
    """NumPy spellings of the methods take NumPy's meaning and are recorded.
    (x.view() with no argument used to come back detached: it went through
    view(dtype), which PyTorch does not differentiate.)"""
    check_layer(METHODS[name], np.random.default_rng(9).standard_normal((3, 4)))


@pytest.mark.parametrize("name", ["layer_norm", "attention_causal", "conv1d_windows",
                                  "max_pool", "pairwise", "fft_conv"])
def test_numpy_layers_second_order(name):
    """Double backward through NumPy-written layers (a gradient penalty's
    need): gradgradcheck."""
    from torchlike.autograd import gradgradcheck
    f, *shapes = LAYERS[name]
    rng = np.random.default_rng(sorted(LAYERS).index(name))
    assert gradgradcheck(f, [leaf(rng.standard_normal(s)) for s in shapes])


def test_masked_softmax_second_order():
    from torchlike.autograd import gradgradcheck

    def masked_logsumexp(s):
        top = np.max(s, axis=-1, where=MASK, initial=-np.inf, keepdims=True)
        return np.log(np.sum(np.exp(s - top), axis=-1, where=MASK)) + top[:, 0]
    check_layer(masked_logsumexp, A)
    assert gradgradcheck(masked_logsumexp, [leaf(A)])


def test_op_reductions_over_no_axis():
    """axis=() reduces over nothing (each element alone); the logsumexp and
    norm ops would have read the empty dim list as every dim."""
    for call in (lambda x: np.logaddexp.reduce(x, axis=()),
                 lambda x: np.hypot.reduce(x, axis=(), initial=1.0)):
        got, want = call(tl.tensor(A)), call(A)
        assert tuple(got.shape) == want.shape
        np.testing.assert_allclose(np.asarray(got), want, rtol=1e-14)


def test_sampling_layer_reparameterised():
    """rng.normal(loc=t) converts its parameters with np.asarray and refuses a
    tensor that requires grad; the reparameterised spelling is recorded."""
    rng = np.random.default_rng(0)
    mu, log_sigma = leaf([0.0, 1.0]), leaf([-0.5, 0.2])
    with pytest.raises(RuntimeError, match="requires grad"):
        rng.normal(mu, 1.0)
    eps = rng.standard_normal(2)
    check_layer(lambda m, s: m + np.exp(s) * eps, np.array([0.0, 1.0]), np.array([-0.5, 0.2]))
    z = mu + np.exp(log_sigma) * eps
    z.sum().backward()
    np.testing.assert_allclose(np.asarray(log_sigma.grad), np.exp([-0.5, 0.2]) * eps)


def test_where_mask_that_does_not_broadcast_is_numpys_value_error():
    for call in (lambda x: np.sum(x, where=np.ones(3, bool)),
                 lambda x: np.max(x, where=np.ones(3, bool), initial=0.0),
                 lambda x: np.mean(x, axis=0, where=np.ones(3, bool))):
        with pytest.raises(ValueError, match="could not be broadcast together"):
            call(A)
        with pytest.raises(ValueError, match="could not be broadcast together"):
            call(leaf(A))
