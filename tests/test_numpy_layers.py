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


def test_ufunc_at_into_an_ndarray_with_grad_values_raises():
    x = leaf([1.0, 2.0, 3.0])
    with pytest.raises(RuntimeError, match=r"numpy\.add\.at writes into a NumPy array"):
        np.add.at(np.zeros(4), np.array([0, 1, 0]), x)
    with pytest.raises(TypeError, match=r"numpy\.multiply\.at has no torchlike implementation"):
        np.multiply.at(tl.ones(4, dtype=tl.float64), np.array([0, 1, 0]), x)


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

    v = RNG.standard_normal(5)
    want = np.zeros(4)
    np.add.at(want, idx, v)
    got = segment_sum(leaf(v))
    assert got.grad_fn is not None
    np.testing.assert_allclose(np.asarray(got.detach()), want)
    assert gradcheck(segment_sum, (leaf(v),))
    assert gradcheck(segment_diff, (leaf(v),))


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
    with pytest.raises(TypeError, match=r"numpy\.convolve has no torchlike implementation"):
        np.convolve(leaf([1.0, 2.0]), tl.tensor([1j]))  # complex: NumPy's loop, refused


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
    with pytest.raises(TypeError, match=r"numpy\.interp has no torchlike implementation"):
        np.interp(leaf([1.0]), [0.0, 2.0], [1.0, 3.0], period=2.0)


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
