"""torchlike.numpy against NumPy on what NumPy's own ``numpy/lib`` test suite
found wrong or missing: each test runs a function of the namespace and the same
NumPy function on the same inputs and compares values, dtypes and shapes (0-d,
empty, non-contiguous and broadcast inputs included) and exception types."""
import itertools
import warnings

import numpy
import pytest

import torchlike as tl
import torchlike.numpy as np

DEFAULT = tl.empty(0).device
RNG = numpy.random.default_rng(1234)


def host(t):
    assert isinstance(t, tl.Tensor), type(t)
    return t.detach().cpu().numpy()


def same(got, want, rtol=0.0):
    """``got`` is a tensor holding NumPy's ``want``: dtype, shape and values
    (NaN where NaN; exactly unless ``rtol``)."""
    want = numpy.asarray(want)
    got = host(got)
    assert (got.dtype, got.shape) == (want.dtype, want.shape), (got.dtype, got.shape,
                                                                want.dtype, want.shape)
    if rtol:
        numpy.testing.assert_allclose(got, want, rtol=rtol, equal_nan=True)
    else:
        numpy.testing.assert_array_equal(got, want)


def tensor(a):
    """A tensor on the default device holding ndarray ``a``."""
    return np.asarray(numpy.asarray(a))


# ---------------------------------------------------------------------------
# arguments an implementation cannot honour go on to NumPy's own routes, called
# as torchlike.numpy.<name> as through numpy.<name>(tensor)

@pytest.mark.host_only
@pytest.mark.parametrize("call", [
    lambda m, x: m.pad(x, 2, mode="mean"),
    lambda m, x: m.pad(x, (1, 2), mode="linear_ramp", end_values=5),
    lambda m, x: m.pad(x, 1, mode="symmetric", reflect_type="odd"),
    lambda m, x: m.sum(x, axis=0, initial=10.0),
    lambda m, x: m.amax(x, axis=1, initial=0.5),
    lambda m, x: m.mean(x, where=x > 0),
    lambda m, x: m.quantile(x, 0.5, weights=numpy.ones(x.shape), method="inverted_cdf",
                            axis=None),
])
def test_unsupported_arguments_fall_through_to_numpy(call):
    a = RNG.standard_normal((3, 4))
    got, want = call(np, tensor(a)), call(numpy, a)
    same(got, want, rtol=1e-12)


def test_fall_through_refuses_a_tensor_that_requires_grad():
    x = tensor(RNG.standard_normal((3, 4))).requires_grad_(True)
    # (np.pad's callable mode, the example here before, is recorded now:
    # tests/test_numpy_tape_programs5.py)
    with pytest.raises(TypeError, match="numpy.interp"):
        np.interp(x * 1j, [0.0, 1.0], [1.0, 2.0])


# ---------------------------------------------------------------------------
# quantile, percentile, median and their nan* forms: NumPy's 13 methods, its
# result dtypes (a Python q is weak, an array q takes part), NaN slices

METHODS = ["inverted_cdf", "averaged_inverted_cdf", "closest_observation",
           "interpolated_inverted_cdf", "hazen", "weibull", "linear", "median_unbiased",
           "normal_unbiased", "lower", "higher", "midpoint", "nearest"]
DATA = {
    "f64": RNG.standard_normal((4, 7)),
    "f32": RNG.standard_normal((3, 5)).astype(numpy.float32),
    "f16": RNG.standard_normal((2, 6)).astype(numpy.float16),
    "i64": RNG.integers(-50, 50, (5, 4)),
    "i8": RNG.integers(-50, 50, (3, 3)).astype(numpy.int8),
    "nan": numpy.array([[1.0, numpy.nan, 3.0, 0.5], [numpy.nan] * 4, [2.0, 1.0, 4.0, 3.0]]),
}
QS = {"py": 0.3, "ends": 1, "list": [0.0, 0.45, 1.0], "f32": numpy.float32(0.7),
      "2d": numpy.array([[0.2], [0.9]])}


@pytest.mark.parametrize("method", METHODS)
@pytest.mark.parametrize("data", list(DATA))
@pytest.mark.parametrize("nan", [False, True])
def test_quantile_methods_match_numpy(method, data, nan):
    a = DATA[data]
    ours, theirs = (np.nanquantile, numpy.nanquantile) if nan else (np.quantile, numpy.quantile)
    rtol = 1e-3 if a.dtype == numpy.float16 else 1e-6 if a.dtype == numpy.float32 else 1e-12
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)  # NumPy's all-NaN slice warning
        for (qname, q), axis, keep in itertools.product(QS.items(), [None, 0, -1, (0, 1)],
                                                        [False, True]):
            want = theirs(a, q, axis=axis, method=method, keepdims=keep)
            got = ours(tensor(a), q, axis=axis, method=method, keepdims=keep)
            same(got, want, rtol)


@pytest.mark.parametrize("func", ["percentile", "nanpercentile"])
@pytest.mark.parametrize("q", [30, 62.5, [0, 12.5, 100], numpy.float32(50)])
def test_percentile_matches_numpy(func, q):
    a = DATA["nan"] if func.startswith("nan") else DATA["f32"]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)
        for method in ["linear", "nearest", "hazen"]:
            want = getattr(numpy, func)(a, q, axis=1, method=method)
            got = getattr(np, func)(tensor(a), q, axis=1, method=method)
            same(got, want, 1e-6)


def test_quantile_of_zero_d_non_contiguous_and_bool_inputs():
    same(np.quantile(np.asarray(2.5), 0.4), numpy.quantile(2.5, 0.4))
    a = RNG.standard_normal((6, 5))
    same(np.quantile(tensor(a)[::2, 1::2], [0.1, 0.5], axis=0),
         numpy.quantile(a[::2, 1::2], [0.1, 0.5], axis=0), 1e-12)
    same(np.quantile(tensor(a).T, 0.3, axis=1), numpy.quantile(a.T, 0.3, axis=1), 1e-12)
    b = numpy.array([False, True, True])
    same(np.quantile(tensor(b), tensor(b)), numpy.quantile(b, b))      # bool q picks values
    same(np.quantile(tensor(b), 0.5, method="lower"), numpy.quantile(b, 0.5, method="lower"))


def test_quantile_errors_are_numpys():
    a = tensor(RNG.standard_normal(5))
    for q in [1.5, -0.1, float("nan"), [0.5, 2.0]]:
        with pytest.raises(ValueError, match=r"Quantiles must be in the range \[0, 1\]"):
            np.quantile(a, q)
    with pytest.raises(ValueError, match=r"Percentiles must be in the range \[0, 100\]"):
        np.percentile(a, 101)
    with pytest.raises(ValueError, match="not a valid method"):
        np.quantile(a, 0.5, method="bogus")
    with pytest.raises(TypeError, match="real numbers"):
        np.quantile(tensor(numpy.array([1 + 2j, 3j])), 0.5)
    with pytest.raises(TypeError):
        np.quantile(tensor(numpy.array([True, False])), 0.5)
    with pytest.raises(IndexError):
        np.quantile(tensor(numpy.zeros(0)), 0.5)


@pytest.mark.parametrize("shape,axis", [((0,), None), ((0, 3), None), ((0, 3), 0),
                                        ((2, 0), 1), ((2, 0), 0)])
@pytest.mark.parametrize("dtype", ["float32", "int64"])
def test_median_of_empty_slices_is_nan(shape, axis, dtype):
    a = numpy.zeros(shape, dtype)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)
        want = numpy.median(a, axis=axis)
        want_nan = numpy.nanmedian(a, axis=axis)
    same(np.median(tensor(a), axis=axis), want)
    same(np.nanmedian(tensor(a), axis=axis), want_nan)


def test_quantile_out_takes_the_result_by_broadcasting():
    a = RNG.standard_normal(5)
    out, want = np.ones(1), numpy.ones(1)
    np.percentile(tensor(a), 5, None, out)
    numpy.percentile(a, 5, None, want)
    same(out, want, 1e-12)


def test_weighted_quantiles_run_on_tensors():
    # quantile_methods on a device: weights= (NumPy 2's weighted inverted_cdf)
    # had no torchlike implementation, so a device's tensors were refused
    a = RNG.standard_normal((3, 4, 5))
    a[2, 1, 3] = numpy.nan
    w = RNG.integers(0, 4, (3, 4, 5)).astype(numpy.float64)
    w[0, 0] = 0.0
    w[0, 0, 4] = 1.0   # leading zero weights in a slice
    q = [0.0, 0.1, 0.5, 0.9, 1.0]
    cases = [dict(axis=None), dict(axis=2), dict(axis=0, keepdims=True), dict(axis=(0, 2)),
             dict(axis=(2, 0)), dict(axis=-1, w=w[0, 0]), dict(axis=(2, 1), w=w[0].T),
             dict(axis=1, q=numpy.asarray(q, numpy.float32)), dict(axis=2, q=0.25)]
    for case in cases:
        weights, qs = case.pop("w", w), case.pop("q", q)
        # (NumPy's nanquantile indexes weights of a's axes only, wrongly)
        for name in ("quantile", "nanquantile")[:1 if weights.shape != a.shape else 2]:
            want = getattr(numpy, name)(a, qs, weights=weights, method="inverted_cdf", **case)
            got = getattr(np, name)(tensor(a), tensor(qs) if isinstance(qs, numpy.ndarray)
                                    else qs, weights=tensor(weights), method="inverted_cdf",
                                    **case)
            same(got, want)
    ints = numpy.asarray([3, 1, 2, 2], numpy.int8)
    same(np.percentile(tensor(ints), [25, 75], weights=tensor(numpy.arange(4.0)),
                       method="inverted_cdf"),
         numpy.percentile(ints, [25, 75], weights=numpy.arange(4.0), method="inverted_cdf"))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)
        want = numpy.nanquantile(numpy.full((2, 3), numpy.nan), 0.5, axis=1,
                                 weights=numpy.ones((2, 3)), method="inverted_cdf")
    same(np.nanquantile(tensor(numpy.full((2, 3), numpy.nan)), 0.5, axis=1,
                        weights=tensor(numpy.ones((2, 3))), method="inverted_cdf"), want)
    x = tensor(a[0])
    for kw, error, words in [(dict(weights=tensor(-w[0])), ValueError, "non-negative"),
                             (dict(weights=tensor(0 * w[0])), ValueError, "all zero"),
                             (dict(weights=tensor(w[0]), method="linear"), ValueError,
                              "Only method 'inverted_cdf'"),
                             (dict(weights=tensor(w[0, 0]), method="inverted_cdf"), TypeError,
                              "Axis must be specified"),
                             (dict(weights=tensor(w[0, 0]), axis=0, method="inverted_cdf"),
                              ValueError, "consistent with shape")]:
        kw.setdefault("method", "inverted_cdf")
        with pytest.raises(error, match=words), warnings.catch_warnings():
            warnings.simplefilter("ignore", RuntimeWarning)  # NumPy's 0 / 0 on the way
            numpy.quantile(a[0], 0.5, **{k: host(v) if isinstance(v, tl.Tensor) else v
                                         for k, v in kw.items()})
        with pytest.raises(error, match=words):
            np.quantile(x, 0.5, **kw)


@pytest.mark.parametrize("method", ["linear", "hazen", "midpoint", "nearest"])
def test_quantile_gradient_matches_finite_differences(method):
    a = RNG.permutation(8).astype(numpy.float64) + RNG.uniform(0, 0.3, 8)
    x = np.asarray(a).requires_grad_(True)
    np.quantile(x, [0.3, 0.55], method=method).sum().backward()
    eps, num = 1e-6, numpy.zeros(8)
    for i in range(8):
        up, down = a.copy(), a.copy()
        up[i] += eps
        down[i] -= eps
        num[i] = (numpy.quantile(up, [0.3, 0.55], method=method).sum()
                  - numpy.quantile(down, [0.3, 0.55], method=method).sum()) / (2 * eps)
    numpy.testing.assert_allclose(host(x.grad), num, atol=1e-6)


@pytest.mark.parametrize("a", [
    RNG.standard_normal((3, 4, 6)).astype(numpy.float32),   # even counts: the pair's mean
    RNG.integers(-9, 9, (5, 3)),                             # integers: float64
    numpy.array([60000.0, 65000.0], numpy.float16),          # the pair's sum exceeds float16
    numpy.array([[1.0, numpy.nan, 5.0], [numpy.nan] * 3, [4.0, 2.0, 0.5]]),
], ids=["f32", "i64", "f16-large", "nan"])
def test_median_matches_numpy_bit_for_bit(a):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)
        for axis, keep in itertools.product([None, 0, -1], [False, True]):
            same(np.median(tensor(a), axis=axis, keepdims=keep),
                 numpy.median(a, axis=axis, keepdims=keep))
            same(np.nanmedian(tensor(a), axis=axis, keepdims=keep),
                 numpy.nanmedian(a, axis=axis, keepdims=keep))


# ---------------------------------------------------------------------------
# the nan* reductions: complex data, NumPy's dtypes, ddof/correction, dof <= 0

def nan_data(dtype):
    rng = numpy.random.default_rng(7)
    a = rng.standard_normal((3, 5)) * 3
    if numpy.dtype(dtype).kind == "c":
        a = a + 1j * rng.standard_normal((3, 5))
    a = a.astype(dtype)
    if numpy.dtype(dtype).kind in "fc":
        a[0, 1] = numpy.nan
        a[2, :] = numpy.nan       # an all-NaN row
        if numpy.dtype(dtype).kind == "c":
            a[1, 3] = complex(1.0, numpy.nan)  # NaN in the imaginary part only
    return a


NAN_FUNCS = ["nansum", "nanprod", "nanmax", "nanmin", "nanmean", "nanvar", "nanstd",
             "nancumsum"]


@pytest.mark.parametrize("dtype", ["float16", "float32", "float64", "complex64",
                                   "complex128", "int64", "int8"])
@pytest.mark.parametrize("name", NAN_FUNCS)
def test_nan_reductions_match_numpy(dtype, name):
    a = nan_data(dtype)
    # float16 sums: NumPy rounds to float16 at each step, torchlike accumulates wider
    rtol = 1e-2 if dtype == "float16" else 1e-5 if dtype in ("float32", "complex64") else 1e-12
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)
        for axis in [None, 0, 1]:
            same(getattr(np, name)(tensor(a), axis=axis), getattr(numpy, name)(a, axis=axis),
                 rtol)
            same(getattr(np, name)(tensor(a).T, axis=axis), getattr(numpy, name)(a.T, axis=axis),
                 rtol)


@pytest.mark.parametrize("dtype", ["float32", "complex128", "int64"])
@pytest.mark.parametrize("name", ["nanargmax", "nanargmin", "argmax", "argmin"])
def test_arg_extremes_of_complex_and_nan_data_match_numpy(dtype, name):
    a = nan_data(dtype)[:2]  # no all-NaN row: nanarg* raise there
    a[0, 3] = a[0, 0]      # ties: the first wins
    for axis, keep in itertools.product([None, 0, 1], [False, True]):
        same(getattr(np, name)(tensor(a), axis=axis, keepdims=keep),
             getattr(numpy, name)(a, axis=axis, keepdims=keep))
    if name.startswith("nan") and dtype != "int64":
        with pytest.raises(ValueError, match="All-NaN slice"):
            getattr(np, name)(tensor(nan_data(dtype)), axis=1)
    with pytest.raises(ValueError, match="empty sequence"):
        getattr(np, name)(tensor(numpy.zeros((0, 3), dtype)), axis=0)
    same(getattr(np, name)(tensor(numpy.zeros((0, 3), dtype)), axis=1),
         getattr(numpy, name)(numpy.zeros((0, 3), dtype), axis=1))


@pytest.mark.parametrize("name", ["nanvar", "nanstd"])
@pytest.mark.parametrize("dtype", ["float16", "float32", "complex64", "int64"])
def test_nanvar_ddof_correction_and_dof_at_most_zero(name, dtype):
    a = nan_data(dtype)
    rtol = 2e-3 if dtype == "float16" else 1e-5
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)
        for kw in [{"ddof": 1}, {"ddof": 0.5}, {"correction": 1.5}, {"ddof": 4}]:
            for axis in [None, 0, 1]:
                same(getattr(np, name)(tensor(a), axis=axis, **kw),
                     getattr(numpy, name)(a, axis=axis, **kw), rtol)
    with pytest.raises(ValueError, match="simultaneously"):
        getattr(np, name)(tensor(a), ddof=1, correction=0)


@pytest.mark.parametrize("name", ["var", "std"])
@pytest.mark.parametrize("dtype", ["complex64", "complex128", "float32"])
def test_moments_without_degrees_of_freedom(name, dtype):
    # torchlike.var of complex numbers is PyTorch's var(re) + var(im), NaN
    # with correction >= n where a part has no deviation; NumPy's (and so
    # torchlike.numpy's) divides the summed |z - mean|^2 by 0: inf
    a = numpy.array([[2 + 0.5j, 2 + 4j], [1 + 1j, 3 + 1j], [5 + 0j, 5 + 0j]])
    a = (a if dtype.startswith("complex") else a.real).astype(dtype)
    where = numpy.array([[True, False], [True, True], [True, True]])
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)
        for kw in [{"ddof": 2}, {"ddof": 3, "keepdims": True}, {"ddof": 1}, {"ddof": 6},
                   {"ddof": 0, "where": where}, {"ddof": 2, "where": where}]:
            for axis in [None, 0, 1]:
                same(getattr(np, name)(tensor(a), axis=axis, **kw),
                     getattr(numpy, name)(a, axis=axis, **kw), 1e-6)


@pytest.mark.parametrize("name", ["nanmean", "nanvar", "nanstd"])
def test_nan_moments_refuse_an_exact_dtype_for_inexact_data(name):
    a = tensor(nan_data("float64"))
    for dtype in [np.bool, np.int64, "int32"]:
        with pytest.raises(TypeError, match="inexact"):
            getattr(np, name)(a, axis=1, dtype=dtype)
        with pytest.raises(TypeError, match="inexact"):
            getattr(np, name)(a, axis=1, out=np.zeros(3, dtype=dtype))


# ---------------------------------------------------------------------------
# set functions (NumPy's own code sorted with ndarray.sort(), which is in place
# there and not on tensors), unique's NaNs, isin, sort_complex

SET_CASES = {
    "int": (RNG.integers(0, 8, 10), RNG.integers(0, 8, (2, 3))),
    "float-nan": (numpy.array([1.0, numpy.nan, numpy.nan, 2.0, 0.5]), numpy.array([numpy.nan, 2.0])),
    "empty": (numpy.array([], numpy.int64), numpy.array([1, 2])),
    "mixed": (numpy.array([5, 1, 3, 3], numpy.int8), numpy.array([3.0, 7.5])),
    "bool": (numpy.array([True, False, True]), numpy.array([True])),
}


@pytest.mark.parametrize("case", list(SET_CASES))
@pytest.mark.parametrize("name", ["intersect1d", "setxor1d", "setdiff1d", "union1d"])
def test_set_functions_match_numpy(case, name):
    a, b = SET_CASES[case]
    same(getattr(np, name)(tensor(a), tensor(b)), getattr(numpy, name)(a, b))
    same(getattr(np, name)(tensor(b), a.tolist()), getattr(numpy, name)(b, a.tolist()))
    if name != "union1d":
        ua, ub = numpy.unique(a), numpy.unique(b)
        same(getattr(np, name)(tensor(ua), tensor(ub), assume_unique=True),
             getattr(numpy, name)(ua, ub, assume_unique=True))


@pytest.mark.parametrize("case", list(SET_CASES))
def test_intersect1d_indices_and_isin_match_numpy(case):
    a, b = SET_CASES[case]
    for got, want in zip(np.intersect1d(tensor(a), tensor(b), return_indices=True),
                         numpy.intersect1d(a, b, return_indices=True)):
        same(got, want)
    for invert in [False, True]:
        same(np.isin(tensor(a), tensor(b), invert=invert), numpy.isin(a, b, invert=invert))
        same(np.isin(tensor(a).reshape(1, -1)[:, ::2], tensor(b), invert=invert),
             numpy.isin(a.reshape(1, -1)[:, ::2], b, invert=invert))


def test_isin_kind_is_checked_as_numpys():
    with pytest.raises(ValueError, match="kind"):
        np.isin(tensor(numpy.arange(3)), [1], kind="quicksort")
    with pytest.raises(ValueError, match="'table'"):
        np.isin(tensor(numpy.arange(3.0)), [1.0], kind="table")
    same(np.isin(tensor(numpy.arange(4)), [1, 3], kind="table"),
         numpy.isin(numpy.arange(4), [1, 3], kind="table"))


@pytest.mark.parametrize("equal_nan", [True, False])
def test_unique_nans_collapse_as_numpys(equal_nan):
    a = numpy.array([[numpy.nan, 1.0, numpy.nan], [2.0, numpy.nan, 1.0]])
    got = np.unique(tensor(a), return_index=True, return_inverse=True, return_counts=True,
                    equal_nan=equal_nan)
    want = numpy.unique(a, return_index=True, return_inverse=True, return_counts=True,
                        equal_nan=equal_nan)
    for g, w in zip(got, want):
        same(g, w)


@pytest.mark.parametrize("a", [numpy.array([3, 1, 2], numpy.int8), numpy.array([3.0, 1, 2]),
                               numpy.array([1 + 2j, 2 - 1j, 3 - 2j, 3 - 3j, 3 + 5j]),
                               numpy.array([[2, 1], [0, 5]]), numpy.array([3, 1], numpy.float32),
                               numpy.array([], numpy.complex64)])
def test_sort_complex_matches_numpy(a):
    same(np.sort_complex(tensor(a)), numpy.sort_complex(a))


def test_sort_complex_of_a_0d_array_is_numpys_axis_error():
    # fuzzing: a 0-d array came back as itself; NumPy sorts along axis -1,
    # which a 0-d array lacks (np.sort of it is the same AxisError)
    for a in (numpy.asarray(1 + 2j), numpy.asarray(3, numpy.int8)):
        with pytest.raises(numpy.exceptions.AxisError):
            numpy.sort_complex(a)
        with pytest.raises(numpy.exceptions.AxisError, match="axis -1 is out of bounds"):
            np.sort_complex(tensor(a))


# ---------------------------------------------------------------------------
# diff, ediff1d, bincount, meshgrid, nan_to_num, tri*_indices_from

A2 = numpy.arange(12.0).reshape(3, 4) ** 2


@pytest.mark.parametrize("n", range(6))
def test_diff_past_the_length_is_empty(n):
    same(np.diff(tensor([1, 4, 9, 16]), n=n), numpy.diff([1, 4, 9, 16], n=n))
    same(np.diff(tensor(A2)[:, ::2], n=n, axis=0), numpy.diff(A2[:, ::2], n=n, axis=0))


def test_diff_prepend_append_and_their_errors():
    same(np.diff(tensor(A2), axis=1, prepend=tensor([[0.0], [1], [2]])),
         numpy.diff(A2, axis=1, prepend=numpy.array([[0.0], [1], [2]])))
    same(np.diff(tensor(A2), axis=0, prepend=0, append=[[1.0, 2, 3, 4]]),
         numpy.diff(A2, axis=0, prepend=0, append=[[1.0, 2, 3, 4]]))
    with pytest.raises(ValueError):
        np.diff(tensor(A2), prepend=np.zeros((4, 4)))
    with pytest.raises(numpy.exceptions.AxisError):
        np.diff(tensor(A2), prepend=0, axis=3)
    x = tensor(A2)
    assert np.diff(x, n=0) is x


@pytest.mark.parametrize("to_begin,to_end", [(None, None), ([5, 6], [7]), (3, 4)])
@pytest.mark.parametrize("dtype", ["int8", "float64"])
def test_ediff1d_matches_numpy(to_begin, to_end, dtype):
    a = numpy.array([[1, 2], [4, 9]], dtype)
    same(np.ediff1d(tensor(a), to_end=to_end, to_begin=to_begin),
         numpy.ediff1d(a, to_end=to_end, to_begin=to_begin))


def test_ediff1d_refuses_unsafe_extras_and_bools():
    for kw in [{"to_begin": numpy.nan}, {"to_end": [1.5]}]:
        with pytest.raises(TypeError, match="same_kind"):
            np.ediff1d(tensor(numpy.array([1, 2, 4])), **kw)
    with pytest.raises(TypeError):
        np.ediff1d(tensor(numpy.array([True, False])))


@pytest.mark.parametrize("x,kw", [
    ([], {}), ([1, 2, 2, 5], {"minlength": 8}),
    (numpy.array([1, 2, 2], numpy.int8), {"weights": [1, 2, 3]}),
    (numpy.array([0, 2, 2]), {"weights": numpy.array([1, 2, 3], numpy.float32)}),
])
def test_bincount_matches_numpy(x, kw):
    kw_t = {k: tensor(v) if k == "weights" else v for k, v in kw.items()}
    same(np.bincount(tensor(x) if len(x) else x, **kw_t), numpy.bincount(x, **kw))


@pytest.mark.parametrize("x,kw,error", [
    (numpy.array([1.5]), {}, TypeError), (numpy.array([1, -1]), {}, ValueError),
    (numpy.array([1]), {"minlength": "a"}, TypeError), (numpy.array([1]), {"minlength": -1}, ValueError),
    (numpy.array([1]), {"minlength": None}, TypeError)])
def test_bincount_errors_are_numpys(x, kw, error):
    with pytest.raises(error):
        numpy.bincount(x, **kw)
    with pytest.raises(error):
        np.bincount(tensor(x), **kw)


@pytest.mark.parametrize("indexing", ["xy", "ij"])
@pytest.mark.parametrize("sparse", [False, True])
@pytest.mark.parametrize("copy", [False, True])
def test_meshgrid_keeps_dtypes_and_takes_sparse(indexing, sparse, copy):
    xs = [numpy.array([1, 2], numpy.float32), numpy.array([1.0, 2, 3]), numpy.arange(4)]
    for k in range(4):
        got = np.meshgrid(*[tensor(x) for x in xs[:k]], indexing=indexing, sparse=sparse, copy=copy)
        want = numpy.meshgrid(*xs[:k], indexing=indexing, sparse=sparse, copy=copy)
        assert isinstance(got, tuple) and len(got) == len(want)
        for g, w in zip(got, want):
            same(g, w)


@pytest.mark.parametrize("v", [numpy.array([numpy.nan, numpy.inf, -numpy.inf, 1.5]),
                               numpy.array([complex(numpy.nan, numpy.inf), complex(-numpy.inf, 1)]),
                               numpy.array([numpy.inf], numpy.float32),
                               numpy.array([complex(numpy.nan, -numpy.inf)], numpy.complex64),
                               numpy.array([1, 2]), numpy.array(numpy.nan)])
def test_nan_to_num_of_complex_and_in_place(v):
    same(np.nan_to_num(tensor(v)), numpy.nan_to_num(v))
    same(np.nan_to_num(tensor(v), nan=10, posinf=20, neginf=30),
         numpy.nan_to_num(v, nan=10, posinf=20, neginf=30))
    t, w = tensor(v.copy()), v.copy()
    assert np.nan_to_num(t, copy=False) is t
    numpy.nan_to_num(w, copy=False)
    same(t, w)


@pytest.mark.parametrize("name", ["tril_indices_from", "triu_indices_from"])
def test_tri_indices_from_want_two_dimensions(name):
    for k in [-1, 0, 2]:
        for g, w in zip(getattr(np, name)(np.ones((3, 5)), k=k),
                        getattr(numpy, name)(numpy.ones((3, 5)), k=k)):
            same(g, w)
    for shape in [(3,), (2, 2, 2)]:
        with pytest.raises(ValueError, match="2-d"):
            getattr(np, name)(np.ones(shape))


@pytest.mark.host_only
def test_reshape_in_fortran_order_goes_to_numpy():
    # order="F" has no torchlike op: the call takes NumPy's route (it was refused)
    a = numpy.arange(6.0)
    same(np.reshape(tensor(a), (2, 3), order="F"), numpy.reshape(a, (2, 3), order="F"))


# ---------------------------------------------------------------------------
# average's weights along a tuple axis, corrcoef of host data, piecewise's
# condition list, ix_, the Array API unique functions, histogramdd of a list

def test_average_weights_follow_the_order_of_axis():
    y = numpy.arange(24.0).reshape(2, 3, 4)
    for axis, w in [((1, 0), numpy.arange(6.0).reshape(3, 2) + 1),
                    ((0, 2), numpy.arange(8.0).reshape(2, 4) + 1),
                    ((2, 0), numpy.arange(8.0).reshape(4, 2) + 1)]:
        for returned in [False, True]:
            got = np.average(tensor(y), axis=axis, weights=tensor(w), returned=returned)
            want = numpy.average(y, axis=axis, weights=w, returned=returned)
            for g, v in zip(got if returned else [got], want if returned else [want]):
                same(g, v, 1e-12)
    with pytest.raises(ValueError, match="Shape of weights"):
        np.average(tensor(y), axis=(0, 1), weights=tensor(numpy.ones((3, 2))))


def test_corrcoef_of_host_data():
    a = numpy.array([[1.0, 2, 3, 5], [2, 1, 5, 4], [0, 1, 0, 1]])
    same(np.corrcoef(a), numpy.corrcoef(a), 1e-12)
    same(np.corrcoef(a[0].tolist(), a[1].tolist()), numpy.corrcoef(a[0], a[1]), 1e-12)


@pytest.mark.parametrize("condlist", [
    [True, False], [[True, False]], numpy.array([True, False]), numpy.array([1, 0]),
    [numpy.array([1, 0])], True], ids=["list", "nested", "bool-array", "int-array",
                                      "list-of-array", "scalar"])
def test_piecewise_reads_one_mask_as_numpy(condlist):
    cond_t = tensor(condlist) if isinstance(condlist, numpy.ndarray) else condlist
    same(np.piecewise(tensor([0, 0]), cond_t, [1]), numpy.piecewise(numpy.array([0, 0]), condlist, [1]))
    x = numpy.array([-1.5, 0.0, 2.0])
    same(np.piecewise(tensor(x), [tensor(x) < 0, tensor(x) >= 0], [lambda v: -v, lambda v: v * 2]),
         numpy.piecewise(x, [x < 0, x >= 0], [lambda v: -v, lambda v: v * 2]))


def test_complex_numbers_holding_nan_sort_and_unique_as_numpy():
    # unique_with_nans: R + nanj sorted among the numbers of its real part
    # (NumPy: after every number without a NaN), and np.unique kept each
    # number holding a NaN apart where equal_nan=True makes them one value
    def parts(got, want):  # each part of each result (which NaN a number holds counts)
        got, want = (r if isinstance(r, tuple) else (r,) for r in (got, want))
        assert len(got) == len(want)
        for g, w in zip(got, want):
            if w.dtype.kind == "c":
                same(np.real(g), w.real)
                same(np.imag(g), w.imag)
            else:
                same(g, w)

    nan = numpy.nan
    a = numpy.asarray([complex(nan, nan), complex(1, nan), complex(nan, 3), 2, complex(0, nan),
                       complex(nan, -1), 1j, 2, complex(1, nan)])
    t = tensor(a)
    parts(np.sort(t), numpy.sort(a))
    parts(np.argsort(t), numpy.argsort(a, kind="stable"))
    parts(np.sort(tensor(a.reshape(3, 3)), axis=0), numpy.sort(a.reshape(3, 3), axis=0))
    parts(np.sort_complex(t), numpy.sort_complex(a))
    parts(np.searchsorted(np.sort(t), t), numpy.searchsorted(numpy.sort(a), a))
    for x in (a, a[[1, 4, 3]], a[[2, 6, 0]], a.astype(numpy.complex64), a[:0]):
        for kw in ({}, {"equal_nan": False}, {"return_counts": True},
                   {"return_index": True, "return_inverse": True, "return_counts": True},
                   {"equal_nan": False, "return_inverse": True}):
            parts(np.unique(tensor(x), **kw), numpy.unique(x, **kw))


def test_isclose_reads_python_numbers_as_weak():
    # half_precision_sums: np.isclose(f16, 0.1) was False -- 0.1 was made a
    # float64 array, so the float16 data's rounding error (2.4e-5) counted;
    # NumPy computes x - 0.1 in float16 (NEP 50), where the two are equal
    h = numpy.asarray([0.1, 0.2, 1.0], dtype=numpy.float16)
    f = numpy.asarray([0.1, numpy.inf, numpy.nan, 1e-9])
    cases = [(h, 0.1), (0.1, h), (h, numpy.asarray(0.1)), (h.astype(numpy.float32), 0.1),
             (numpy.arange(4), 1), (numpy.arange(4, dtype=numpy.int8), 2.0), (f, numpy.inf),
             (numpy.inf, f), (True, numpy.asarray([True, False])), (f, 0.0), (1, 1.0000001),
             (numpy.asarray([1 + 1j]), 1 + 1.000001j), (numpy.nan, f)]
    for x, y in cases:
        for kw in ({}, {"equal_nan": True}, {"atol": 0.0}, {"rtol": numpy.asarray([0.5])}):
            want = numpy.isclose(x, y, **kw)
            got = np.isclose(*(tensor(v) if isinstance(v, numpy.ndarray) else v
                               for v in (x, y)),
                             **{k: tensor(v) if isinstance(v, numpy.ndarray) else v
                                for k, v in kw.items()})
            same(got, want)
    assert np.allclose(tensor(h[:1]), 0.1) and numpy.allclose(h[:1], 0.1)


def test_piecewise_corners_as_numpy():
    # conditions that are 0-d arrays in a list hold everywhere or nowhere (two
    # of them raised a broadcast error), a function is not called on an empty
    # selection (v.max() of nothing raised), and the errors are NumPy's
    # IndexError: no condition at all (RuntimeError "stack expects a non-empty
    # TensorList", or zeros), a condition shaped unlike x or its leading axes
    # (it was broadcast; one of the leading axes selects rows)
    x = numpy.arange(4.0)
    calls = [
        lambda m, x: m.piecewise(x, [m.asarray(True), m.asarray(False)], [5, 6]),
        lambda m, x: m.piecewise(x, [x > 5, x <= 5], [lambda v: v / v.max(), lambda v: v + 1]),
        lambda m, x: m.piecewise(x, [x > 9], [lambda v: v.min(), 7.0]),
        lambda m, x: m.piecewise(x[:0], [x[:0] > 1], [lambda v: v.max(), 2.0]),
        lambda m, x: m.piecewise(x.reshape(2, 2)[:, :0], [x.reshape(2, 2)[:, :0] > 0], [1]),
        lambda m, x: m.piecewise(x[2], [x[2] > 1, x[2] > 0], [lambda v: v * 2, 3.0]),
        lambda m, x: m.piecewise(x[2], [False, False], [1.0, 2.0, lambda v: -v]),
        lambda m, x: m.piecewise(x[::2].astype(m.int64), [x[::2] > 0], [lambda v: v * 1.5]),
        lambda m, x: m.piecewise([], [[]], [1, 2]),
        lambda m, x: m.piecewise(x.reshape(2, 2), [x[:2] > 0], [lambda v: v * 3, 5]),
    ]
    for call in calls:
        same(call(np, tensor(x)), call(numpy, x))
    bad = [
        lambda m, x: m.piecewise(x, [], []),
        lambda m, x: m.piecewise(x, [], [7.0]),
        lambda m, x: m.piecewise([], [], []),
        lambda m, x: m.piecewise(x[1], [], [1.0]),
        lambda m, x: m.piecewise(x, [True], [5]),
        lambda m, x: m.piecewise(x, [x[:2] > 0], [5]),
        lambda m, x: m.piecewise(x.reshape(2, 2), [x[:3] > 0], [5]),
        lambda m, x: m.piecewise(x.reshape(2, 2), [x[:2, None] > 0], [5]),
        lambda m, x: m.piecewise(x[1], [[True]], [5]),
    ]
    for call in bad:
        with pytest.raises(IndexError):
            call(numpy, x)
        with pytest.raises(IndexError):
            call(np, tensor(x))


def test_piecewise_conditions_of_two_shapes_are_numpys_value_error():
    # fuzzing: a 0-d condition beside one shaped like x was read as holding
    # everywhere or nowhere; NumPy makes one array of the list first, which
    # conditions of two shapes cannot make (its inhomogeneous-shape ValueError)
    x = numpy.arange(-2.0, 2.0)
    for conds in ([x > 0, numpy.asarray(True)], [numpy.asarray(False), x > 0],
                  [x.reshape(2, 2) > 0, (x > 0)[:2]]):
        xs = x.reshape(2, 2) if conds[0].ndim == 2 else x
        with pytest.raises(ValueError):
            numpy.piecewise(xs, conds, [1.5, -1.0])
        with pytest.raises(ValueError, match=r"the conditions have shapes \[\(.*\)\]"):
            np.piecewise(tensor(xs), [tensor(c) for c in conds], [1.5, -1.0])


@pytest.mark.parametrize("args", [([],), (range(0),), (numpy.array([], numpy.float32),),
                                  ([1, 2], [True, False, True]), (numpy.arange(3), [4, 5], [0])])
def test_ix_matches_numpy(args):
    got = np.ix_(*[tensor(a) if isinstance(a, numpy.ndarray) else a for a in args])
    want = numpy.ix_(*args)
    assert len(got) == len(want)
    for g, w in zip(got, want):
        same(g, w)
    with pytest.raises(ValueError, match="1 dimensional"):
        np.ix_(np.ones((2, 2)))


def test_array_api_unique_functions_keep_nans_distinct():
    a = numpy.array([numpy.nan, 1.0, 0.0, numpy.nan, -0.0, 1.0])
    same(np.unique_values(tensor(a)), numpy.unique_values(a))
    for name in ["unique_counts", "unique_inverse", "unique_all"]:
        for g, w in zip(getattr(np, name)(tensor(a)), getattr(numpy, name)(a)):
            same(g, w)


def test_histogramdd_of_a_list_of_coordinates():
    xs = [[0.1, 0.5, 0.7, 0.2], [0.3, 0.9, 0.1, 0.2]]
    got, want = np.histogramdd(xs, bins=2), numpy.histogramdd(xs, bins=2)
    same(got[0], want[0])
    for g, w in zip(got[1], want[1]):
        same(g, w)
    got = np.histogramdd([[], []], bins=([0, 1], [0, 1]))
    same(got[0], numpy.histogramdd([[], []], bins=([0, 1], [0, 1]))[0])


# ---------------------------------------------------------------------------
# pad: NumPy's argument checks, dict widths, always a new array

@pytest.mark.parametrize("width", [3.4, "3", complex(1, -1), ((-2.1, 3), (3, 2)),
                                   numpy.array([1.0, 2.0]), numpy.array([True])])
@pytest.mark.parametrize("mode", ["constant", "edge", "reflect", "mean"])
def test_pad_width_must_be_integral(width, mode):
    for lib, arr in ((numpy, numpy.ones((6, 5))), (np, np.ones((6, 5)))):
        with pytest.raises(TypeError, match="integral type"):
            lib.pad(arr, width, mode)


@pytest.mark.parametrize("mode,keyword", [("edge", {"constant_values": 1}),
                                          ("constant", {"end_values": 1}),
                                          ("wrap", {"reflect_type": "odd"}),
                                          ("reflect", {"stat_length": 2})])
def test_pad_keywords_are_checked_per_mode(mode, keyword):
    for lib, arr in ((numpy, numpy.ones(3)), (np, np.ones(3))):
        with pytest.raises(ValueError, match=f"unsupported keyword arguments for mode '{mode}'"):
            lib.pad(arr, 1, mode, **keyword)
    with pytest.raises(ValueError, match="not supported"):
        np.pad(np.ones(3), 1, "bogus")


@pytest.mark.parametrize("width", [{-2: (1, 3)}, {0: (5, 2), -1: (3, 4)}, {1: 5}, 0, (0, 0)])
@pytest.mark.parametrize("mode", ["constant", "edge", "symmetric"])
def test_pad_takes_dict_widths_and_returns_a_new_array(width, mode):
    a = numpy.arange(60).reshape(3, 4, 5)
    t = tensor(a)
    got = np.pad(t, width, mode)
    same(got, numpy.pad(a, width, mode))
    assert got is not t and not np.shares_memory(got, t)


@pytest.mark.parametrize("dtype", ["bool", "uint8", "int8", "int64", "float32", "float64",
                                   "complex64"])
def test_constant_pad_values_cast_as_numpys(dtype):
    """One constant everywhere pads in one copy, per-side constants axis by
    axis (the corners take the later axis's): both as NumPy casts them."""
    a = (numpy.arange(12).reshape(3, 4) % 3).astype(dtype)
    for width, value in [(2, 0), ((1, 2), 5), (((0, 1), (2, 0)), 7), (1, 1.5),
                         (((1, 1), (1, 2)), ((1, 2), (3, 4)))]:
        got = np.pad(tensor(a), width, constant_values=value)
        same(got, numpy.pad(a, width, constant_values=value))


@pytest.mark.parametrize("mode", ["reflect", "symmetric"])
def test_odd_reflection_pads_an_axis_of_one_element_by_its_edge(mode):
    # fuzzing: NumPy pads an axis of length one by copying its element; the odd
    # reflection 2 e - e made an infinity NaN and a float16 65504 infinite
    for a, width in [(numpy.array([[-numpy.inf]]), (1, 1)),
                     (numpy.array([[[65504.0, 3.5]]] * 2, numpy.float16), 2),
                     (numpy.array([[numpy.inf, -0.5, 2.0]]), ((1, 2), (1, 1)))]:
        with numpy.errstate(invalid="ignore", over="ignore"):
            want = numpy.pad(a, width, mode=mode, reflect_type="odd")
        same(np.pad(tensor(a), width, mode=mode, reflect_type="odd"), want)


@pytest.mark.parametrize("choices,default", [
    (["i8", "i8sq"], 0), (["i64", "f64"], 42), (["f32", 3.5], 0), (["i8", 1000], 0),
    (["i8"], 2.5), (["i8", "i8sq"], numpy.int16(3))])
def test_select_result_dtype_takes_python_numbers_as_weak(choices, default):
    x = numpy.arange(6)
    named = {"i8": x.astype(numpy.int8), "i8sq": (x ** 2).astype(numpy.int8), "i64": x,
             "f64": x * 1.5, "f32": x.astype(numpy.float32)}
    chosen = [named.get(c, c) if isinstance(c, str) else c for c in choices]
    conds = [x < 2, x > 4][:len(chosen)]
    got = np.select([tensor(c) for c in conds],
                    [tensor(c) if isinstance(c, numpy.ndarray) else c for c in chosen], default)
    same(got, numpy.select(conds, chosen, default))


UNIQUE_AXIS = {
    "int": numpy.random.default_rng(3).integers(0, 2, (6, 3)),
    "complex": (numpy.random.default_rng(4).integers(0, 2, (5, 3))
                + 1j * numpy.random.default_rng(5).integers(0, 2, (5, 3))).astype(numpy.complex64),
    "float-3d": numpy.random.default_rng(6).integers(0, 2, (3, 2, 2)).astype(numpy.float32),
    "nan-rows": numpy.array([[1.0, numpy.nan], [1.0, numpy.nan], [0.0, 2.0]]),
    "zero-size": numpy.empty((2, 0, 3)),
    "no-rows": numpy.empty((0, 2)),
}


@pytest.mark.parametrize("case", list(UNIQUE_AXIS))
def test_unique_along_an_axis_matches_numpy(case):
    a = UNIQUE_AXIS[case]
    for axis, flags in itertools.product(range(a.ndim), itertools.product([False, True], repeat=3)):
        got = np.unique(tensor(a), *flags, axis=axis)
        want = numpy.unique(a, *flags, axis=axis)
        for g, w in zip(got if any(flags) else [got], want if any(flags) else [want]):
            same(g, w)


@pytest.mark.parametrize("axis", [0, -1])
@pytest.mark.parametrize("equal_nan", [True, False])
def test_unique_of_one_dimension_along_its_axis_is_elementwise(axis, equal_nan):
    a = numpy.array([numpy.nan, 0.0, 0.0, numpy.nan])
    for g, w in zip(np.unique(tensor(a), return_counts=True, axis=axis, equal_nan=equal_nan),
                    numpy.unique(a, return_counts=True, axis=axis, equal_nan=equal_nan)):
        same(g, w)


# ---- positional out, float positions, indices out of range ---------------------------------

@pytest.mark.parametrize("name", ["fix", "isposinf", "isneginf", "sin", "negative"])
def test_out_by_position(name):
    data = numpy.array([[-2.5, numpy.inf, 0.5], [-numpy.inf, 3.0, -0.0]])
    want = getattr(np, name)(data)
    out = np.zeros(data.shape, dtype=np.asarray(want).dtype)
    got = getattr(np, name)(np.asarray(data), out)
    assert got is out
    numpy.testing.assert_array_equal(numpy.asarray(out), want)
    with pytest.raises(TypeError, match="both a positional and keyword"):
        getattr(np, name)(np.asarray(data), out, out=out)


def test_binary_out_by_position():
    a, b = numpy.arange(6).reshape(2, 3), numpy.arange(3)
    out = np.zeros((2, 3), dtype=np.int64)
    assert np.add(np.asarray(a), np.asarray(b), out) is out
    numpy.testing.assert_array_equal(numpy.asarray(out), a + b)
    with pytest.raises(TypeError, match=r"add\(\) takes from 2 to 3 positional arguments but 4"):
        np.add(out, out, out, out)


@pytest.mark.parametrize("obj", [1.0, [1.0, 2.0], numpy.array([0.5])])
def test_float_positions_are_numpys_errors(obj):
    a = np.arange(5)
    with pytest.raises(IndexError, match="must be of integer"):
        np.delete(a, obj)
    # insert: one float position is a slice bound (TypeError), several index
    # an array (IndexError), as NumPy's code uses them
    with pytest.raises((TypeError, IndexError)) as want:
        numpy.insert(numpy.arange(5), obj, 9)
    with pytest.raises(type(want.value), match=str(want.value)[:20]):
        np.insert(a, obj, 9)


def test_along_axis_index_out_of_range_is_an_index_error():
    a = np.arange(12.0).reshape(3, 4)
    bad = np.asarray(numpy.full((3, 1), 4))
    with pytest.raises(IndexError, match="out of bounds"):
        np.take_along_axis(a, bad, axis=1)
    with pytest.raises(IndexError, match="out of bounds"):
        np.put_along_axis(a, bad, 0.0, axis=1)
    numpy.testing.assert_array_equal(numpy.asarray(a), numpy.arange(12.0).reshape(3, 4))  # untouched
