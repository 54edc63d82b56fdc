"""NEP 18: NumPy functions called on tensors (Tensor.__array_function__).

A corpus of NumPy idioms runs once on ndarrays and once on tensors holding the
same values; the tensor result must be a tensor (or a tuple/list of them) with
NumPy's values, dtype and shape.  Then: NumPy functions run through their own
Python implementation on tensors, the fallback rule, and bad input."""
import numpy as np
import pytest

import torchlike as tl
import torchlike.numpy as tnp
from torchlike import _array_function
from oracle import assert_close, numpy_or_refused

RNG = np.random.default_rng(0)
M = RNG.standard_normal((3, 4))          # float64 matrix
SQ = RNG.standard_normal((3, 3)) + 3 * np.eye(3)
SPD = SQ @ SQ.T
V = np.array([3.0, 1.0, 4.0, 1.0, 5.0, 9.0, 2.0, 6.0])
I = np.arange(12, dtype=np.int32).reshape(3, 4)
NANS = np.array([[1.0, np.nan, 3.0], [np.nan, 5.0, 6.0]])
B = np.array([[True, False, True], [False, False, True]])
Z = M[:2, :3] + 1j * M[1:, 1:]
U8 = np.array([[0, 3, 255], [1, 0, 7]], dtype=np.uint8)

# (id, function of the inputs, inputs) -- each input given as ndarray, the
# tensor run gets tl.tensor of it (a copy on the default device).
CORPUS = [
    # creation
    ("zeros_like", lambda a: np.zeros_like(a), [M]),
    ("ones_like_dtype", lambda a: np.ones_like(a, dtype=np.int16), [M]),
    ("full_like", lambda a: np.full_like(a, 7), [I]),
    ("empty_like_shape", lambda a: np.empty_like(a, shape=(2, 2)).shape, [M]),
    ("copy", lambda a: np.copy(a), [M]),
    # shape functions
    ("reshape", lambda a: np.reshape(a, (4, 3)), [M]),
    ("reshape_neg", lambda a: np.reshape(a, (2, -1)), [I]),
    ("ravel", lambda a: np.ravel(a), [I]),
    ("transpose", lambda a: np.transpose(a), [M]),
    ("transpose_axes", lambda a: np.transpose(a.reshape(2, 3, 2), (2, 0, 1)), [I]),
    ("moveaxis", lambda a: np.moveaxis(a.reshape(2, 3, 2), 0, -1), [I]),
    ("swapaxes", lambda a: np.swapaxes(a, 0, 1), [M]),
    ("squeeze", lambda a: np.squeeze(a.reshape(1, 3, 1, 4), axis=(0, 2)), [M]),
    ("expand_dims", lambda a: np.expand_dims(a, (0, 3)), [M]),
    ("concatenate", lambda a: np.concatenate([a, a], axis=1), [M]),
    ("concatenate_none", lambda a: np.concatenate([a, a], axis=None), [I]),
    ("stack", lambda a: np.stack([a, a, a], axis=-1), [M]),
    ("vstack", lambda a: np.vstack([a, a]), [V]),
    ("hstack", lambda a: np.hstack([a, a]), [M]),
    ("column_stack", lambda a: np.column_stack([a, a]), [V]),
    ("split", lambda a: np.split(a, 2), [V]),
    ("split_indices", lambda a: np.split(a, [1, 3], axis=1), [M]),
    ("array_split", lambda a: np.array_split(a, 3), [V]),
    ("tile", lambda a: np.tile(a, (2, 1)), [M]),
    ("repeat", lambda a: np.repeat(a, 2, axis=0), [M]),
    ("repeat_flat", lambda a: np.repeat(a, 3), [I]),
    ("flip", lambda a: np.flip(a), [M]),
    ("flip_axis", lambda a: np.flip(a, axis=1), [M]),
    ("fliplr", lambda a: np.fliplr(a), [M]),
    ("rot90", lambda a: np.rot90(a), [M]),
    ("roll", lambda a: np.roll(a, 2), [M]),
    ("roll_axes", lambda a: np.roll(a, (1, -1), axis=(0, 1)), [M]),
    ("pad_constant", lambda a: np.pad(a, ((1, 2), (0, 1)), constant_values=-1), [M]),
    ("pad_edge", lambda a: np.pad(a, 2, mode="edge"), [M]),
    ("pad_reflect", lambda a: np.pad(a, (2, 3), mode="reflect"), [V]),
    ("pad_symmetric", lambda a: np.pad(a, 2, mode="symmetric"), [M]),
    ("pad_wrap", lambda a: np.pad(a, (3, 1), mode="wrap"), [V]),
    ("broadcast_to", lambda a: np.broadcast_to(a, (2, 8)), [V]),
    ("broadcast_arrays", lambda a, b: np.broadcast_arrays(a, b[:, :1]), [M, M]),
    ("where3", lambda a: np.where(a > 0, a, 0.0), [M]),
    ("where1", lambda a: np.where(a > 0), [M]),
    ("nonzero", lambda a: np.nonzero(a), [B]),
    ("argwhere", lambda a: np.argwhere(a), [B]),
    ("flatnonzero", lambda a: np.flatnonzero(a), [B]),
    ("diagonal", lambda a: np.diagonal(a, 1), [M]),
    ("diag", lambda a: np.diag(a), [V]),
    ("tril", lambda a: np.tril(a, -1), [M]),
    ("triu", lambda a: np.triu(a), [M]),
    ("take", lambda a: np.take(a, [0, 5, 11]), [M]),
    ("take_axis", lambda a: np.take(a, [[0, 2], [1, 1]], axis=1), [M]),
    ("take_along_axis", lambda a: np.take_along_axis(a, np.argsort(a, axis=1), axis=1), [M]),
    ("atleast_2d", lambda a: np.atleast_2d(a), [V]),
    ("atleast_3d", lambda a: np.atleast_3d(a), [M]),
    # reductions
    ("sum", lambda a: np.sum(a), [M]),
    ("sum_axis_keep", lambda a: np.sum(a, axis=1, keepdims=True), [M]),
    ("sum_int32", lambda a: np.sum(a, axis=0), [I]),
    ("sum_dtype", lambda a: np.sum(a, dtype=np.float32), [I]),
    ("sum_bool", lambda a: np.sum(a), [B]),
    ("prod", lambda a: np.prod(a, axis=0), [M]),
    ("mean", lambda a: np.mean(a, axis=(0, 1)), [M]),
    ("mean_int", lambda a: np.mean(a, axis=0), [I]),
    ("std", lambda a: np.std(a, axis=0), [M]),
    ("std_ddof", lambda a: np.std(a, ddof=1), [M]),
    ("var", lambda a: np.var(a, axis=1, keepdims=True), [M]),
    ("var_int", lambda a: np.var(a), [I]),
    ("min", lambda a: np.min(a, axis=0), [M]),
    ("max", lambda a: np.max(a), [I]),
    ("amax", lambda a: np.amax(a, axis=1, keepdims=True), [M]),
    ("argmin", lambda a: np.argmin(a), [M]),
    ("argmax_axis", lambda a: np.argmax(a, axis=1), [M]),
    ("argmax_keep", lambda a: np.argmax(a, axis=0, keepdims=True), [M]),
    ("all", lambda a: np.all(a, axis=0), [B]),
    ("any", lambda a: np.any(a), [B]),
    ("all_any_uint8", lambda a: (np.all(a, axis=0), np.any(a, axis=1)), [U8]),
    ("count_nonzero", lambda a: np.count_nonzero(a, axis=1), [B]),
    ("cumsum", lambda a: np.cumsum(a), [M]),
    ("cumsum_int", lambda a: np.cumsum(a, axis=1), [I]),
    ("cumprod", lambda a: np.cumprod(a, axis=0), [M]),
    ("median", lambda a: np.median(a), [M]),
    ("median_axis", lambda a: np.median(a, axis=1), [M]),
    ("quantile", lambda a: np.quantile(a, 0.3, axis=0), [M]),
    ("quantile_list", lambda a: np.quantile(a, [0.1, 0.9], axis=1), [M]),
    ("quantile_methods", lambda a: [np.quantile(a, 0.4, method=m) for m in
                                    ("lower", "higher", "midpoint", "nearest")], [V]),
    ("percentile", lambda a: np.percentile(a, [25, 50, 75]), [V]),
    ("percentile_keep", lambda a: np.percentile(a, 40, axis=0, keepdims=True), [M]),
    ("ptp", lambda a: np.ptp(a, axis=1), [M]),
    ("average", lambda a: np.average(a, axis=0), [M]),
    ("average_weights", lambda a, w: np.average(a, axis=1, weights=w[0]), [M, M]),
    ("average_returned", lambda a: np.average(a, returned=True), [I]),
    ("nansum", lambda a: np.nansum(a, axis=0), [NANS]),
    ("nanmean", lambda a: np.nanmean(a, axis=1), [NANS]),
    ("nanmax", lambda a: np.nanmax(a, axis=0), [NANS]),
    ("nanmin", lambda a: np.nanmin(a), [NANS]),
    ("nanargmax", lambda a: np.nanargmax(a, axis=1), [NANS]),
    ("nanargmin", lambda a: np.nanargmin(a), [NANS]),
    ("nanprod", lambda a: np.nanprod(a, axis=1), [NANS]),
    ("nancumsum", lambda a: np.nancumsum(a, axis=1), [NANS]),
    ("nanstd", lambda a: np.nanstd(a, axis=1), [NANS]),
    ("nanvar", lambda a: np.nanvar(a, ddof=1), [NANS]),
    ("nanmedian", lambda a: np.nanmedian(a, axis=0), [NANS]),
    ("nanquantile", lambda a: np.nanquantile(a, 0.25, axis=1), [NANS]),
    ("nanpercentile", lambda a: np.nanpercentile(a, [10, 60]), [NANS]),
    # sorting, searching, sets
    ("sort", lambda a: np.sort(a), [M]),
    ("sort_axis0", lambda a: np.sort(a, axis=0), [M]),
    ("sort_none", lambda a: np.sort(a, axis=None), [M]),
    ("argsort", lambda a: np.argsort(a, kind="stable"), [V]),
    ("unique", lambda a: np.unique(a), [V]),
    ("unique_all", lambda a: np.unique(a, return_index=True, return_inverse=True,
                                       return_counts=True), [V]),
    ("unique_values", lambda a: np.unique_values(a), [V]),
    ("unique_counts", lambda a: tuple(np.unique_counts(a)), [V]),
    ("searchsorted", lambda a: np.searchsorted(np.sort(a), [0.0, 4.0, 10.0]), [V]),
    ("searchsorted_right", lambda a: np.searchsorted(np.sort(a), 1.0, side="right"), [V]),
    ("isin", lambda a: np.isin(a, [1.0, 9.0]), [V]),
    # linear algebra
    ("dot", lambda a, b: np.dot(a, b.T), [M, M]),
    ("dot_vec", lambda a: np.dot(a, a), [V]),
    ("vdot", lambda a: np.vdot(a, a), [M]),
    ("inner", lambda a: np.inner(a, a), [M]),
    ("outer", lambda a: np.outer(a, a[:3]), [V]),
    ("matmul", lambda a, b: np.matmul(a, b.T), [M, M]),
    ("tensordot", lambda a: np.tensordot(a, a, axes=([1], [1])), [M]),
    ("tensordot_int", lambda a: np.tensordot(a, a.T, axes=1), [M]),
    ("einsum", lambda a: np.einsum("ij,kj->ik", a, a), [M]),
    ("trace", lambda a: np.trace(a), [M]),
    ("kron", lambda a: np.kron(a[:2], a[:3]), [V]),
    ("cross", lambda a: np.cross(a[:, :3], a[::-1, :3]), [M]),
    ("inv", lambda a: np.linalg.inv(a), [SQ]),
    ("det", lambda a: np.linalg.det(a), [SQ]),
    ("slogdet", lambda a: tuple(np.linalg.slogdet(a)), [SQ]),
    ("solve", lambda a, b: np.linalg.solve(a, b[0]), [SQ, SQ]),
    ("solve_matrix", lambda a, b: np.linalg.solve(a, b), [SQ, SQ]),
    ("eigvalsh", lambda a: np.linalg.eigvalsh(a), [SPD]),
    ("cholesky", lambda a: np.linalg.cholesky(a), [SPD]),
    ("svdvals", lambda a: np.linalg.svd(a, compute_uv=False), [M]),
    ("pinv", lambda a: np.linalg.pinv(a), [M]),
    ("matrix_rank", lambda a: np.linalg.matrix_rank(a), [M]),
    ("matrix_power", lambda a: np.linalg.matrix_power(a, 3), [SQ]),
    ("multi_dot", lambda a, b: np.linalg.multi_dot([a, b.T, a]), [M, M]),
    ("vector_norm", lambda a: np.linalg.vector_norm(a, axis=1), [M]),
    ("matrix_norm", lambda a: np.linalg.matrix_norm(a), [M]),
    ("norm", lambda a: np.linalg.norm(a), [M]),
    ("norm_axis", lambda a: np.linalg.norm(a, axis=1, keepdims=True), [M]),
    ("norm_ord1", lambda a: np.linalg.norm(a, ord=1), [M]),
    ("norm_nuc", lambda a: np.linalg.norm(a, "nuc"), [M]),
    ("norm_vec_inf", lambda a: np.linalg.norm(a, ord=-np.inf), [V]),
    ("norm_vec_3", lambda a: np.linalg.norm(a, ord=3), [V]),
    # the rest
    ("clip", lambda a: np.clip(a, -0.5, 0.5), [M]),
    ("clip_int", lambda a: np.clip(a, 2, 9), [I]),
    ("clip_arrays", lambda a, b: np.clip(a, b * 0.1, None), [M, M]),
    ("diff", lambda a: np.diff(a), [V]),
    ("diff_n_axis", lambda a: np.diff(a, n=2, axis=0), [M]),
    ("diff_prepend", lambda a: np.diff(a, prepend=0.0), [V]),
    ("isclose", lambda a, b: np.isclose(a, a + 1e-9 * b), [M, M]),
    ("allclose", lambda a: np.allclose(a, a), [M]),
    ("array_equal", lambda a: np.array_equal(a, np.copy(a)), [I]),
    ("array_equal_nan", lambda a: np.array_equal(a, a, equal_nan=True), [NANS]),
    ("round", lambda a: np.round(a, 2), [M]),
    ("around_int", lambda a: np.around(a), [I]),
    ("nan_to_num", lambda a: np.nan_to_num(a, nan=-1.0), [NANS]),
    ("real_imag", lambda z: (np.real(z), np.imag(z)), [Z]),
    ("real_imag_of_real", lambda a: (np.real(a), np.imag(a)), [M]),
    ("ndim_shape_size", lambda a: (np.ndim(a), np.shape(a), np.size(a)), [M]),
    ("result_type", lambda a: np.result_type(a, np.float32), [I]),
    ("meshgrid", lambda a: np.meshgrid(a[:3], a[:2]), [V]),
]


def _eye_like(x, n):
    """An identity where x lives: an ndarray for NumPy, a tensor on x's device."""
    return np.eye(n) if isinstance(x, np.ndarray) else tnp.eye(n, device=x.device)


def _tensorize(a):
    return tl.tensor(a)


def _compare(got, want, label):
    if isinstance(want, (tuple, list)):
        assert isinstance(got, (tuple, list)), f"{label}: {type(got)}"
        assert len(got) == len(want), label
        for g, w in zip(got, want):
            _compare(g, w, label)
    elif isinstance(want, (np.ndarray, np.generic)):
        assert_close(got, want)
    else:  # bool, int, shape tuple, dtype
        assert got == want, f"{label}: {got!r} != {want!r}"


@pytest.mark.parametrize("name, fn, inputs", CORPUS, ids=[c[0] for c in CORPUS])
def test_corpus_matches_numpy(name, fn, inputs):
    want = fn(*[a.copy() for a in inputs])
    got = fn(*[_tensorize(a) for a in inputs])
    _compare(got, want, name)


def test_table_covers_the_issue_list():
    import torchlike.numpy  # noqa: F401  (fills the table)
    required = [
        np.empty_like, np.zeros_like, np.ones_like, np.full_like, np.reshape, np.transpose,
        np.moveaxis, np.squeeze, np.expand_dims, np.concatenate, np.stack, np.split, np.tile,
        np.repeat, np.flip, np.roll, np.pad, np.broadcast_to, np.where, np.sum, np.prod,
        np.mean, np.std, np.var, np.min, np.max, np.argmin, np.argmax, np.all, np.any,
        np.cumsum, np.cumprod, np.median, np.quantile, np.percentile, np.ptp, np.average,
        np.sort, np.argsort, np.unique, np.searchsorted, np.dot, np.vdot, np.inner, np.outer,
        np.matmul, np.tensordot, np.einsum, np.trace, np.clip, np.diff, np.isclose,
        np.allclose, np.array_equal, np.nansum, np.nanmean, np.nanmax, np.nanmin,
        np.nanstd, np.nanvar, np.nanmedian, np.nanquantile, np.nanpercentile, np.copy,
        np.round, np.take, np.put_along_axis, np.take_along_axis, np.linalg.inv,
        np.linalg.det, np.linalg.solve, np.linalg.eigh, np.linalg.svd, np.linalg.qr,
        np.linalg.cholesky, np.linalg.lstsq, np.linalg.pinv, np.linalg.slogdet,
    ]
    missing = [f.__name__ for f in required if f not in _array_function.TABLE]
    assert not missing


def test_results_are_tensors_and_out_is_written():
    t = _tensorize(M)
    out = tl.empty(4, dtype=tl.float64)
    r = np.sum(t, axis=0, out=out)
    assert r is out
    assert_close(out, M.sum(axis=0))
    nd_out = np.empty(3)
    assert np.mean(t, axis=1, out=nd_out) is nd_out
    np.testing.assert_allclose(nd_out, M.mean(axis=1))


def test_put_along_axis_writes_in_place():
    a, t = M.copy(), _tensorize(M.copy())
    idx = np.argmax(a, axis=1)[:, None]
    np.put_along_axis(a, idx, -100.0, axis=1)
    np.put_along_axis(t, tl.tensor(idx), -100.0, axis=1)
    assert_close(t, a)


@pytest.mark.parametrize("idx, values, axis, shape", [
    ([[0, 2]], 7.0, 1, (3, 4)), ([[0, 2]], [[1.0, 2.0]], 1, (3, 4)),
    ([[1], [0], [-1]], [[1.0, 2.0, 3.0, 4.0]], 0, (3, 4)), ([[[1]]], 3.0, 2, (2, 3, 4)),
    ([5, -1], 2.0, None, (3, 4))])
def test_put_along_axis_broadcasts_its_indices(idx, values, axis, shape):
    """NumPy indexes with put_along_axis's indices broadcast against the
    other axes: indices of shape (1, k) write every row.  scatter_ took them
    as they were and wrote the first row only, silently; a write of values
    that require grad reaches each of them."""
    a, t = np.zeros(shape), tl.tensor(np.zeros(shape))
    np.put_along_axis(a, np.asarray(idx), np.asarray(values), axis=axis)
    np.put_along_axis(t, tl.tensor(idx), tl.tensor(values, dtype=tl.float64), axis=axis)
    assert_close(t, a)

    def written(v):
        w = tl.tensor(np.zeros(shape)) * v.sum()
        np.put_along_axis(w, tl.tensor(idx), v, axis=axis)
        return w

    v = tl.tensor(np.asarray(values, dtype=np.float64) + 0.5, requires_grad=True)
    assert tl.autograd.gradcheck(written, [v])


def test_decompositions_reconstruct():
    t = _tensorize(M)
    u, s, vh = np.linalg.svd(t, full_matrices=False)
    assert_close(u @ (s.reshape(-1, 1) * vh), M)
    q, r = np.linalg.qr(t.T)
    assert_close(q @ r, M.T)
    w, v = np.linalg.eigh(_tensorize(SPD))
    assert_close(v @ np.diag(w) @ v.T, SPD)
    x, *_ = np.linalg.lstsq(_tensorize(M.T), _tensorize(V[:4]))
    np.testing.assert_allclose(x.cpu().numpy(), np.linalg.lstsq(M.T, V[:4])[0], rtol=1e-8)


@pytest.mark.host_only  # ndarrays live on the host
def test_mixed_tensor_and_ndarray_operands():
    r = np.concatenate([M, _tensorize(M)])
    assert isinstance(r, tl.Tensor)
    assert_close(r, np.concatenate([M, M]))
    assert_close(np.dot(M, _tensorize(M.T)), M @ M.T)


# --- NumPy's own Python implementations run on tensors ----------------------

@pytest.fixture
def no_fallback(monkeypatch):
    """Fail if anything reaches NumPy on host views: every inner call must be
    a torchlike op."""
    def refuse(func, args, kwargs):
        raise AssertionError(f"{func.__name__} fell back to NumPy")
    monkeypatch.setattr(_array_function, "_fallback", refuse)


X = RNG.standard_normal((3, 5))
P = np.array([1.0, -2.0, 0.5, 3.0])
SQ2 = np.array([[2.0, 1.0], [0.5, 3.0]])
THROUGH_IMPLEMENTATION = [
    ("cov", lambda x: np.cov(x)),
    ("cov_rowvar", lambda x: np.cov(x, rowvar=False, ddof=0)),
    ("trapezoid", lambda x: np.trapezoid(x, dx=0.5, axis=1)),
    ("polyval", lambda x: np.polyval(x[0], x[1])),
    ("histogram", lambda x: np.histogram(x, bins=4)),
    ("histogram_bin_edges", lambda x: np.histogram_bin_edges(x, bins=5)),
    ("gradient", lambda x: np.gradient(x[0])),
    ("convolve", lambda x: np.convolve(x[0], x[1])),
    ("correlate", lambda x: np.correlate(x[0], x[1], mode="full")),
    ("interp", lambda x: np.interp(np.sort(x[0]), np.sort(x[1]), x[2])),
    ("vander", lambda x: np.vander(x[0], 3)),
    ("sinc", lambda x: np.sinc(x)),
    ("angle", lambda x: np.angle(x)),
    ("geomspace", lambda x: np.geomspace(1.0, np.abs(x[0]) + 1, 4)),
    ("linspace", lambda x: np.linspace(0.0, x[0], 3)),
    ("logspace", lambda x: np.logspace(0.0, x[0], 3)),
    ("append", lambda x: np.append(x[0], x[1])),
    ("insert", lambda x: np.insert(x[0], 2, 7.0)),
    ("delete", lambda x: np.delete(x, 1, axis=1)),
    ("polyder", lambda x: np.polyder(x[0], 2)),
    ("polyint", lambda x: np.polyint(x[0])),
    ("polyadd", lambda x: np.polyadd(x[0], x[1])),
    ("cond", lambda x: np.linalg.cond(x[:, :3])),
    ("cumulative_prod", lambda x: np.cumulative_prod(x, axis=1)),
    ("apply_along_axis", lambda x: np.apply_along_axis(np.sum, 1, x)),
    ("diagflat", lambda x: np.diagflat(x[0])),
    ("polysub", lambda x: np.polysub(x[0], x[1][:3])),
    ("polymul", lambda x: np.polymul(x[0], x[1])),
    ("real_if_close", lambda x: np.real_if_close(x)),
    ("trim_zeros", lambda x: np.trim_zeros(np.concatenate([x[0] * 0, x[1], x[0] * 0]))),
    ("extract", lambda x: np.extract(x > 0, x)),
    ("fix", lambda x: np.fix(x * 3)),
    ("isneginf", lambda x: np.isneginf(x)),
    ("tril_indices_from", lambda x: np.tril_indices_from(x)),
    ("moment_like", lambda x: np.mean((x - np.mean(x, axis=1, keepdims=True)) ** 3, axis=1)),
    ("tensorinv", lambda x: np.linalg.tensorinv(_eye_like(x, 4).reshape(4, 2, 2) * 1.0 + 0 * x[0, 0],
                                                ind=1)),
]


@pytest.mark.parametrize("name, fn", THROUGH_IMPLEMENTATION,
                         ids=[c[0] for c in THROUGH_IMPLEMENTATION])
def test_numpy_python_functions_run_on_torchlike_ops(name, fn, no_fallback):
    want = fn(X.copy())
    got = numpy_or_refused(lambda: fn(_tensorize(X)), name)
    if got is not None:
        _compare(got, want, name)


def test_at_least_twenty_functions_run_through_implementation():
    import torchlike.numpy  # noqa: F401
    via = [name for name, _ in THROUGH_IMPLEMENTATION]
    assert len(via) >= 20
    table_names = {f.__name__ for f in _array_function.TABLE}
    # these are NumPy's Python code, not entries of our table
    # (np.histogram and histogram2d have entries now, for learned weights,
    # which hand every other call to NumPy's code)
    python_code = [n for n in ("apply_over_axes", "trapezoid", "polyval", "isposinf", "gradient",
                               "sinc", "angle", "append", "convolve", "correlate", "interp",
                               "fix", "isneginf", "polyder", "polyint", "polyadd", "polysub",
                               "cond", "diagflat", "histogram_bin_edges", "unwrap",
                               "cumulative_prod", "tensorinv", "polymul", "real_if_close",
                               "trim_zeros", "extract")
                   if n not in table_names]
    assert len(python_code) >= 20, python_code


# --- the fallback rule ----------------------------------------------------

@pytest.mark.host_only  # NumPy itself on host views
def test_function_without_implementation_runs_numpy_on_cpu_views():
    t = _tensorize(V)
    want = V.copy()
    np.putmask(want, want > 0, 0)
    assert np.putmask(t, t > 0, 0) is None  # NumPy's C routine, on a zero-copy view
    np.testing.assert_array_equal(t.cpu().numpy(), want)


def test_fallback_refuses_tensors_that_need_grad(monkeypatch):
    t = _tensorize(V)
    monkeypatch.setattr(_array_function, "_tensors_in",
                        lambda obj, found: [_Flagged(t)])
    with pytest.raises(TypeError, match="numpy.is_busday"):
        np.is_busday(t)  # C function with no table entry (no datetimes here)


def test_ufunc_fallback_refuses_tensors_that_need_grad(monkeypatch):
    from torchlike import _ufunc
    t = _tensorize(V)

    def flagged(name, tensors):
        return _array_function.check_fallback(name, [_Flagged(x) for x in tensors])
    monkeypatch.setattr(_ufunc, "check_fallback", flagged)
    with pytest.raises(TypeError, match="numpy.bitwise_count"):
        np.bitwise_count(t)


class _Flagged:
    """A CPU tensor seen as requiring grad."""
    requires_grad = True

    def __init__(self, t):
        self.device = t.device


def test_requires_grad_attribute_is_honoured_when_present():
    t = _tensorize(V)
    t.requires_grad_(True)
    with pytest.raises(TypeError, match="numpy.is_busday"):
        np.is_busday(t)
    with pytest.raises(TypeError, match="numpy.bitwise_count"):
        np.bitwise_count(t)


# --- bad input --------------------------------------------------------------

def test_axis_out_of_range_is_axis_error():
    t = _tensorize(M)
    for fn in (lambda x: np.sum(x, axis=2), lambda x: np.mean(x, axis=-3),
               lambda x: np.argmax(x, axis=5), lambda x: np.concatenate([x, x], axis=2),
               lambda x: np.sort(x, axis=3), lambda x: np.cumsum(x, axis=2),
               lambda x: np.flip(x, axis=4), lambda x: np.quantile(x, 0.5, axis=2)):
        with pytest.raises(np.exceptions.AxisError) as ours:
            fn(t)
        with pytest.raises(np.exceptions.AxisError) as theirs:
            fn(M)
        assert str(ours.value) == str(theirs.value)


def test_unsupported_keyword_is_type_error():
    t = _tensorize(M)
    with pytest.raises(TypeError, match="unexpected keyword"):
        np.sum(t, axes=0)
    with pytest.raises(TypeError):
        np.sum(M, axes=0)


def test_bad_values_raise_numpy_exceptions():
    t = _tensorize(V)
    with pytest.raises(ValueError, match="equal division"):
        np.split(t, 3)
    with pytest.raises(ValueError, match="range"):
        np.quantile(t, 1.5)
    with pytest.raises(ValueError, match="same shape"):
        np.stack([t, t[:3]])
    with pytest.raises(ValueError, match="duplicate"):
        np.sum(_tensorize(M), axis=(0, 0))
    with pytest.raises(TypeError, match="data type"):
        np.sum(t, dtype="not-a-dtype")
    with pytest.raises(ValueError, match="zero-size"):
        np.max(t[:0])


def test_numpy_dtype_of_torchlike_dtype():
    assert np.dtype(tl.float32) == np.float32
    assert tl.int64.kind == "i" and tl.complex64.type is np.complex64


@pytest.mark.parametrize("cls, want", [(np.dtypes.Float64DType, tl.float64),
                                       (np.dtypes.Float32DType, tl.float32),
                                       (np.dtypes.Int32DType, tl.int32),
                                       (np.dtypes.Float16DType, tl.float16),
                                       (np.dtypes.BoolDType, tl.bool)])
def test_numpy_dtype_classes_are_dtypes(cls, want):
    """NumPy's DType classes, which NumPy 2.5's own code passes as a ufunc's
    dtype= (histogram's np.subtract(a, b, dtype=type(dt))), name their dtype
    wherever a dtype is taken."""
    x = tl.tensor([1.5, -2.0], dtype=tl.float64)
    assert x.to(cls).dtype == want
    assert tl.zeros(2, dtype=cls).dtype == want
    if want.is_floating_point:  # NumPy refuses float64 -> int/bool under same_kind
        got = np.subtract(x, x[::-1], dtype=cls)
        host = x.cpu().numpy()
        want_np = np.subtract(host, host[::-1], dtype=cls)
        assert isinstance(got, tl.Tensor) and got.dtype == want
        np.testing.assert_array_equal(got.cpu().numpy(), want_np)
        assert got.cpu().numpy().dtype == want_np.dtype
    with pytest.raises(TypeError, match="dtype"):
        tl.zeros(2, dtype=np.dtypes.StrDType)


# --- gradients through the dispatch -----------------------------------------

def _gradcheck(fn, *arrays):
    """gradcheck of ``fn`` on float64 leaves holding ``arrays``."""
    from torchlike.autograd import gradcheck
    leaves = [tl.tensor(a).requires_grad_(True) for a in arrays]
    return gradcheck(fn, tuple(leaves))


GRAD_CASES = [
    ("sum_of_sin", lambda a: np.sum(np.sin(a))),
    ("sum_axis", lambda a: np.sum(a * a, axis=0)),
    ("mean_keepdims", lambda a: np.mean(a, axis=1, keepdims=True)),
    ("std", lambda a: np.std(a, axis=0, ddof=1)),
    ("concatenate_stack", lambda a: np.stack([np.concatenate([a, a]), np.concatenate([a, a])])),
    ("transpose_reshape", lambda a: np.reshape(np.transpose(a), (-1,))),
    ("pad_reflect", lambda a: np.pad(a, 1, mode="reflect")),
    ("where", lambda a: np.where(a > 0, a, 0.0)),
    ("clip", lambda a: np.clip(a, -0.5, 0.5)),
    ("diff", lambda a: np.diff(a, axis=1)),
    ("dot", lambda a: np.dot(a, a.T)),
    ("einsum", lambda a: np.einsum("ij,ij->i", a, a)),
    ("cov", lambda a: np.cov(a)),
    ("trapezoid", lambda a: np.trapezoid(a, axis=1)),  # NumPy's Python code
    ("polyval", lambda a: np.polyval(a[0], a[1])),     # NumPy's Python code
    ("average_weights", lambda a: np.average(a, axis=1, weights=[1.0, 2.0, 3.0, 4.0])),
    ("linalg_norm", lambda a: np.linalg.norm(a, axis=1)),
    ("linalg_inv", lambda a: np.linalg.inv(a[:, :3] + 3 * tnp.eye(3))),
]


@pytest.mark.parametrize("name, fn", GRAD_CASES, ids=[c[0] for c in GRAD_CASES])
def test_gradient_through_numpy_call_matches_finite_differences(name, fn):
    assert _gradcheck(fn, M)


def test_numpy_call_is_recorded_on_the_tape():
    t = tl.tensor(V).requires_grad_(True)
    y = np.sum(t * t)
    assert y.grad_fn is not None
    y.backward()
    assert_close(t.grad, 2 * V)


def test_ufunc_where_keeps_out_values_where_false():
    a = np.arange(6.0) - 2
    t, out_t, out_a = _tensorize(a), tl.full((6,), -1.0, dtype=tl.float64), np.full(6, -1.0)
    assert np.add(t, 10, out=out_t, where=t > 0) is out_t
    np.add(a, 10, out=out_a, where=a > 0)
    assert_close(out_t, out_a)
    mask = np.array([True, False] * 3)
    np.exp(t, out=t, where=_tensorize(mask))
    np.exp(a, out=a, where=mask)
    assert_close(t, a)


def test_route_through_numpy_code_with_grad_names_the_refusal():
    t = tl.tensor(M).requires_grad_(True)
    # np.histogram2d's code ends in NumPy's C histogram: no torchlike op records it
    with pytest.raises(TypeError, match="numpy.histogram2d"):
        np.histogram2d(t[0], t[1])
    # a caller's mistake inside NumPy's code keeps NumPy's exception
    with pytest.raises(IndexError):  # what NumPy raises for an ndarray
        np.trapezoid(t, axis=5)
    with pytest.raises(IndexError):
        np.trapezoid(M, axis=5)


def test_namespace_getattr_reaches_numpy_functions():
    import torchlike.numpy as tnp
    r = tnp.trapezoid(tl.tensor(M), axis=1)
    assert isinstance(r, tl.Tensor)
    assert_close(r, np.trapezoid(M, axis=1))


# NumPy functions written in Python (their _implementation runs on tensors):
# the gradient of each, through the torchlike ops it calls, against finite
# differences.  None is in our table, and the fallback is off, so every inner
# call is a recorded torchlike op.
POS = np.abs(X) + 0.5
GRAD_THROUGH_IMPLEMENTATION = [
    ("unwrap", np.unwrap, lambda x: np.unwrap(4 * x, axis=0, period=3.0), X),
    ("trapezoid", np.trapezoid, lambda x: np.trapezoid(x, dx=0.5, axis=1), X),
    ("polyval", np.polyval, lambda x: np.polyval(x[0], x[1]), X),
    ("polyder", np.polyder, lambda x: np.polyder(x[0], 2), X),
    ("polyint", np.polyint, lambda x: np.polyint(x[0]), X),
    ("polyadd", np.polyadd, lambda x: np.polyadd(x[0], x[1]), X),
    ("polysub", np.polysub, lambda x: np.polysub(x[0], x[1][:3]), X),
    ("gradient", np.gradient, lambda x: np.gradient(x[0]), X),
    ("sinc", np.sinc, lambda x: np.sinc(x), X),
    ("append", np.append, lambda x: np.append(x[0], x[1]), X),
    ("emath.log2", np.emath.log2, lambda x: np.emath.log2(x), POS),
    ("fix", np.fix, lambda x: np.fix(x) + x, X),
    ("real_if_close", np.real_if_close, lambda x: np.real_if_close(x), X),
    ("tensorinv", np.linalg.tensorinv,
     lambda x: np.linalg.tensorinv(x[:, :3] + 3 * tnp.eye(3), ind=1), X),
    ("apply_over_axes", np.apply_over_axes, lambda x: np.apply_over_axes(np.sum, x, [0]), X),
    ("emath.sqrt", np.emath.sqrt, lambda x: np.emath.sqrt(x), POS),
    ("emath.log", np.emath.log, lambda x: np.emath.log(x), POS),
    ("emath.log10", np.emath.log10, lambda x: np.emath.log10(x), POS),
    ("emath.power", np.emath.power, lambda x: np.emath.power(x, 3), POS),
    ("emath.logn", np.emath.logn, lambda x: np.emath.logn(3, x), POS),
]


@pytest.mark.parametrize("name, func, fn, data", GRAD_THROUGH_IMPLEMENTATION,
                         ids=[c[0] for c in GRAD_THROUGH_IMPLEMENTATION])
def test_gradient_through_numpy_python_code(name, func, fn, data, no_fallback):
    assert func not in _array_function.TABLE  # NumPy's own code, not ours
    ok = numpy_or_refused(lambda: _gradcheck(fn, data), name)
    assert ok or ok is None


def test_at_least_twenty_python_functions_differentiate():
    assert len(GRAD_THROUGH_IMPLEMENTATION) >= 20


@pytest.mark.parametrize("name, fn, shape", [
    ("max_initial", lambda a: np.max(a, axis=0, initial=-1.0), (3,)),
    ("min_initial_all", lambda a: np.min(a, initial=2.0), ()),
    ("amax_initial_keepdims", lambda a: np.amax(a, axis=1, initial=0.0, keepdims=True), (0, 1)),
    ("pinv", lambda a: np.linalg.pinv(a), (3, 0)),
])
def test_results_of_empty_tensors_that_require_grad_stay_on_the_tape(name, fn, shape):
    """np.max/np.min with initial= of an empty tensor (initial fills the
    result) and np.linalg.pinv of an empty matrix returned a new tensor
    that did not require grad, where every other op keeps a tensor that
    requires grad on the tape (PyTorch's rule): backward from it raised."""
    data = np.zeros((0, 3))
    a = tl.tensor(data, requires_grad=True)
    got = fn(a)
    want = fn(data)
    assert got.requires_grad and got.grad_fn is not None
    assert tuple(got.shape) == want.shape == shape and np.dtype(got.dtype.name) == want.dtype
    assert_close(got.detach(), want)
    got.sum().backward()
    assert tuple(a.grad.shape) == (0, 3)
