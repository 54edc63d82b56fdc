"""Reductions and scans against NumPy: every op x dtype x shape x dim choice x
layout, PyTorch's result dtypes, NaN and empty semantics, errors, accuracy."""
import math

import numpy as np
import pytest
from hypothesis import given, strategies as st

import torchlike as tl
from oracle import (ALL_DTYPES, COMPLEX_DTYPES, FLOAT_DTYPES, INT_DTYPES, NP_DTYPES, SHAPES,
                    assert_close, noncontiguous, random_array, to_tensor)

REAL_DTYPES = ["bool"] + INT_DTYPES + FLOAT_DTYPES
INEXACT_DTYPES = FLOAT_DTYPES + COMPLEX_DTYPES


# ---- helpers ------------------------------------------------------------------

def tensor_layouts(a, dtype):
    """The values of ndarray `a` as tensors of `dtype` in several layouts."""
    t = to_tensor(a, dtype)
    out = [("contiguous", t), ("strided", noncontiguous(t))]
    if a.ndim >= 2:
        perm = tuple(reversed(range(a.ndim)))
        out.append(("transposed", to_tensor(np.ascontiguousarray(a.transpose(perm)), dtype)
                    .permute(*perm)))
    if a.ndim >= 1 and a.size and dtype != "bfloat16":  # NumPy has no bfloat16 to view
        rev = to_tensor(np.ascontiguousarray(a[..., ::-1]), dtype)
        out.append(("reversed", tl.from_numpy(rev.cpu().numpy()[..., ::-1])))
    return out


def dim_choices(ndim):
    """(dim, keepdim) pairs: None, ints (negative too), tuples, keepdim."""
    dims = [None]
    if ndim >= 1:
        dims += [0, -1]
    if ndim >= 2:
        dims += [(0, -1), [1]]
    if ndim >= 3:
        dims += [(2, 0)]
    if ndim == 0:
        dims += [0, -1]
    return [(d, k) for d in dims for k in (False, True)]


def np_axis(dim, ndim):
    if dim is None or ndim == 0:
        return None
    if isinstance(dim, (tuple, list)):
        return tuple(d % ndim for d in dim)
    return dim % ndim


def widen(a):
    """The ndarray in the precision the reference is computed in."""
    if a.dtype.kind == "c":
        return a.astype(np.complex128)
    if a.dtype.kind == "f":
        return a.astype(np.float64)
    return a.astype(np.int64)


def result_np(expected, dtype):
    """Cast a float64 reference to a result dtype name (bfloat16 compared as float32)."""
    return np.asarray(expected).astype(NP_DTYPES[dtype])


def call(fn, t, dim, keepdim, **kw):
    if dim is None:
        return fn(t, keepdim=keepdim, **kw) if keepdim else fn(t, **kw)
    return fn(t, dim, keepdim, **kw)


def sum_dtype(d):
    return "int64" if d == "bool" or d in INT_DTYPES else d


def reduce_cases(dtype, shapes=SHAPES, low=-5, high=5):
    """(array, tensor label, tensor, dim, keepdim) over shapes and layouts."""
    rng = np.random.default_rng(1)
    for shape in shapes:
        a = random_array(shape, dtype, rng, low=low, high=high)
        for label, t in tensor_layouts(a, dtype):
            for dim, keepdim in dim_choices(len(shape)):
                yield a, label, t, dim, keepdim


# ---- sum, nansum, prod, mean, nanmean -------------------------------------------

@pytest.mark.parametrize("dtype", ALL_DTYPES)
@pytest.mark.parametrize("name", ["sum", "prod", "nansum"])
def test_sum_prod(name, dtype):
    if name == "nansum" and dtype in COMPLEX_DTYPES:  # PyTorch refuses it too
        with pytest.raises(NotImplementedError, match="nansum on CPU does not support complex"):
            tl.nansum(to_tensor(np.ones(3, NP_DTYPES[dtype])))
        return
    ref = {"sum": np.sum, "prod": np.prod, "nansum": np.nansum}[name]
    rdt = sum_dtype(dtype)
    low, high = (-2, 3) if name == "prod" else (-5, 5)  # products of 24 values stay in range
    for a, label, t, dim, keepdim in reduce_cases(dtype, low=low, high=high):
        expected = ref(widen(a), axis=np_axis(dim, a.ndim), keepdims=keepdim)
        if rdt in INT_DTYPES:
            expected = np.asarray(expected).astype(np.int64)
        got = call(getattr(tl, name), t, dim, keepdim)
        assert_close(got, result_np(expected, rdt), dtype=rdt), (label, a.shape, dim, keepdim)
        # the method spelling runs the same code
        got = getattr(t, name)(dim, keepdim) if dim is not None else getattr(t, name)()
        if dim is None:
            expected = ref(widen(a))
            if rdt in INT_DTYPES:
                expected = np.int64(expected)
        assert_close(got, result_np(expected, rdt), dtype=rdt)


@pytest.mark.parametrize("dtype", INEXACT_DTYPES)
@pytest.mark.parametrize("name", ["mean", "nanmean"])
def test_mean(name, dtype):
    if name == "nanmean" and dtype in COMPLEX_DTYPES:  # PyTorch refuses it too
        with pytest.raises(NotImplementedError, match="nansum on CPU does not support complex"):
            tl.nanmean(to_tensor(np.ones(3, NP_DTYPES[dtype])))
        return
    ref = {"mean": np.mean, "nanmean": np.nanmean}[name]
    for a, label, t, dim, keepdim in reduce_cases(dtype):
        with np.errstate(all="ignore"), _nowarn():
            expected = ref(widen(a), axis=np_axis(dim, a.ndim), keepdims=keepdim)
        got = call(getattr(tl, name), t, dim, keepdim)
        assert_close(got, result_np(expected, dtype), dtype=dtype), (label, a.shape, dim)


class _nowarn:
    def __enter__(self):
        import warnings
        self._c = warnings.catch_warnings()
        self._c.__enter__()
        warnings.simplefilter("ignore")

    def __exit__(self, *exc):
        self._c.__exit__(*exc)


def test_sum_dtype_argument_accumulates_in_that_dtype():
    a = np.arange(300, dtype=np.int32).reshape(3, 100)
    t = to_tensor(a)
    assert_close(t.sum(dtype=tl.float64), np.float64(a.sum()))
    assert_close(tl.sum(t, 1, dtype=tl.int8), a.astype(np.int8).sum(1, dtype=np.int64).astype(np.int8))
    assert_close(tl.mean(t, dtype=tl.float64), a.mean())
    assert_close(tl.prod(to_tensor(np.array([2, 3, 4], np.uint8)), dtype=tl.float32), np.float32(24))
    b = random_array((4, 5), "float32")
    assert_close(tl.sum(to_tensor(b), 0, dtype=tl.float64), widen(b).sum(0))
    assert_close(tl.mean(to_tensor(b), (0, 1), True, dtype=tl.float64), widen(b).mean(keepdims=True))


def test_sum_result_dtypes_follow_pytorch():
    for d in ["bool"] + INT_DTYPES:
        t = to_tensor(random_array((3,), d), d)
        assert t.sum().dtype == tl.int64
        assert t.prod().dtype == tl.int64
        assert t.cumsum(0).dtype == tl.int64
    for d in INEXACT_DTYPES:
        t = to_tensor(random_array((3,), d), d)
        assert t.sum().dtype.name == d
        assert t.mean().dtype.name == d
    assert to_tensor(np.ones(3, np.complex64)).var().dtype == tl.float32
    assert to_tensor(np.ones(3, np.complex128)).std().dtype == tl.float64
    assert to_tensor(np.ones(3, np.int32)).logsumexp(0).dtype == tl.get_default_dtype()


def test_integer_sums_wrap_like_numpy():
    a = np.array([2**62, 2**62, 2**62], dtype=np.int64)
    assert_close(to_tensor(a).sum(), a.sum())
    assert_close(to_tensor(a).prod(), a.prod())


@pytest.mark.parametrize("name", ["mean", "nanmean"])
def test_mean_of_integers_raises(name):
    t = tl.tensor([1, 2, 3])
    with pytest.raises(RuntimeError, match="floating point or complex"):
        getattr(tl, name)(t)


def test_nan_handling_of_sums():
    a = np.array([[1.0, np.nan, 2.0], [np.nan, np.nan, np.nan]], np.float32)
    t = to_tensor(a)
    assert_close(t.sum(1), a.sum(1))
    assert_close(t.nansum(1), np.nansum(a, 1))
    with _nowarn():
        assert_close(t.nanmean(1), np.nanmean(a, 1))
    assert_close(t.mean(), a.mean())
    assert tl.nansum(tl.tensor([1, 2])).item() == 3


def test_empty_reductions():
    t = tl.zeros(2, 0, 3)
    assert_close(t.sum(), np.float32(0))
    assert_close(t.prod(1), np.ones((2, 3), np.float32))
    assert math.isnan(t.mean().item())
    assert_close(t.sum(1, keepdim=True), np.zeros((2, 1, 3), np.float32))
    assert_close(t.amax(0), np.zeros((0, 3), np.float32))  # no empty dim reduced
    assert_close(tl.logsumexp(t, 1), np.full((2, 3), -np.inf, np.float32))
    assert_close(tl.all(t), np.True_)
    assert_close(tl.any(t), np.False_)
    assert_close(tl.count_nonzero(t), np.int64(0))
    assert_close(tl.norm(t), np.float32(0))


# ---- var, std --------------------------------------------------------------------

@pytest.mark.parametrize("dtype", INEXACT_DTYPES)
@pytest.mark.parametrize("name", ["var", "std"])
def test_var_std(name, dtype):
    ref = {"var": np.var, "std": np.std}[name]
    rdt = {"complex64": "float32", "complex128": "float64"}.get(dtype, dtype)
    shapes = [s for s in SHAPES if s != (0,) and s != (2, 0, 3)]
    for a, label, t, dim, keepdim in reduce_cases(dtype, shapes):
        for correction in (1, 0, 2):
            with _nowarn(), np.errstate(all="ignore"):
                axis = np_axis(dim, a.ndim)
                n = a.size if axis is None else np.prod([a.shape[i] for i in np.atleast_1d(axis)])
                # PyTorch divides the squared deviations by max(n - correction, 0)
                sq = np.var(widen(a), axis=axis, keepdims=keepdim, ddof=0) * n
                expected = np.asarray(sq / max(n - correction, 0))
                if name == "std":
                    expected = np.sqrt(expected)
            fn = getattr(tl, name)
            got = fn(t, dim, correction=correction, keepdim=keepdim)
            assert_close(got, result_np(expected, rdt), dtype=rdt), (label, a.shape, dim)


def test_var_legacy_unbiased_forms():
    a = random_array((4, 5), "float64")
    t = to_tensor(a)
    assert_close(t.var(False), a.var())
    assert_close(tl.var(t, True), a.var(ddof=1))
    assert_close(tl.var(t, 1, False, True), a.var(1, keepdims=True))
    assert_close(tl.std(t, 0, unbiased=False), a.std(0))
    assert_close(tl.std(t, dim=0, correction=0), a.std(0))
    assert_close(tl.var(t, unbiased=True), a.var(ddof=1))
    with pytest.raises(TypeError):
        tl.var(t, unbiased=True, correction=1)
    with pytest.raises(RuntimeError, match="floating point and complex"):
        tl.var(tl.tensor([1, 2, 3]))


def test_var_accuracy_with_large_offset():
    a = (1e8 + np.random.default_rng(0).standard_normal(1000)).astype(np.float64)
    assert_close(to_tensor(a).var(), a.var(ddof=1), rtol=1e-7)


# ---- amax, amin, max, min, argmax, argmin ------------------------------------------

@pytest.mark.parametrize("dtype", REAL_DTYPES)
@pytest.mark.parametrize("name", ["amax", "amin"])
def test_amax_amin(name, dtype):
    ref = {"amax": np.max, "amin": np.min}[name]
    for a, label, t, dim, keepdim in reduce_cases(dtype):
        axis = np_axis(dim, a.ndim)
        reduced = range(a.ndim) if axis is None else np.atleast_1d(axis)
        if any(a.shape[i] == 0 for i in reduced):
            # PyTorch's split: a named empty dim is an IndexError, none named
            # (every dim) a RuntimeError asking for one
            no_dim = dim is None or dim == ()
            with pytest.raises(RuntimeError if no_dim else IndexError,
                               match="to be specified" if no_dim else "non-zero size"):
                call(getattr(tl, name), t, dim, keepdim)
            continue
        expected = ref(a, axis=axis, keepdims=keepdim)
        assert_close(call(getattr(tl, name), t, dim, keepdim), expected, dtype=dtype)


@pytest.mark.parametrize("dtype", REAL_DTYPES)
@pytest.mark.parametrize("name", ["max", "min"])
def test_max_min_values_and_indices(name, dtype):
    vref = {"max": np.max, "min": np.min}[name]
    iref = {"max": np.argmax, "min": np.argmin}[name]
    rng = np.random.default_rng(2)
    for shape in SHAPES:
        a = random_array(shape, dtype, rng, low=-2, high=2)  # many ties
        for label, t in tensor_layouts(a, dtype):
            if a.size:
                assert_close(getattr(tl, name)(t), vref(a), dtype=dtype)
            else:
                with pytest.raises(RuntimeError, match="reduction dim"):
                    getattr(tl, name)(t)
            for dim in ([0, -1] if a.ndim else [0, -1]):
                for keepdim in (False, True):
                    if a.ndim and a.shape[dim] == 0:
                        with pytest.raises(IndexError, match="non-zero size"):
                            getattr(t, name)(dim, keepdim)
                        continue
                    r = getattr(t, name)(dim, keepdim)
                    assert type(r).__name__ == name
                    values, indices = r
                    assert r.values is values and r.indices is indices
                    axis = None if a.ndim == 0 else dim
                    ev = vref(a, axis=axis, keepdims=keepdim)
                    ei = iref(a, axis=axis, keepdims=keepdim) if a.ndim else np.int64(0)
                    assert_close(values, ev, dtype=dtype)
                    assert_close(indices, np.asarray(ei, np.int64))


@pytest.mark.parametrize("dtype", REAL_DTYPES)
@pytest.mark.parametrize("name", ["argmax", "argmin"])
def test_argmax_argmin(name, dtype):
    ref = {"argmax": np.argmax, "argmin": np.argmin}[name]
    rng = np.random.default_rng(3)
    for shape in SHAPES:
        a = random_array(shape, dtype, rng, low=-2, high=2)
        for label, t in tensor_layouts(a, dtype):
            fn = getattr(tl, name)
            if a.size == 0:
                with pytest.raises(IndexError):
                    fn(t)
            else:
                assert_close(fn(t), np.int64(ref(a)))
                assert_close(fn(t, keepdim=True), np.full((1,) * a.ndim, ref(a), np.int64))
            for dim in [0, -1]:
                if a.ndim and a.shape[dim] == 0:
                    with pytest.raises(IndexError, match="non-zero size"):
                        fn(t, dim)
                    continue
                expected = ref(a, axis=dim if a.ndim else None)
                assert_close(fn(t, dim), np.asarray(expected, np.int64))
                assert_close(getattr(t, name)(dim, True),
                             np.asarray(ref(a, axis=dim if a.ndim else None,
                                            keepdims=bool(a.ndim)), np.int64))


def test_nan_wins_in_max_min_and_arg():
    a = np.array([[1.0, np.nan, 5.0, np.nan], [3.0, 2.0, 9.0, 0.0]], np.float32)
    t = to_tensor(a)
    for dt in ["float32", "float64", "float16", "bfloat16"]:
        t = to_tensor(a, dt)
        assert_close(t.amax(1), result_np(np.max(a, 1), dt), dtype=dt)
        assert_close(t.amin(), result_np(np.min(a), dt), dtype=dt)
        v, i = t.max(1)
        assert_close(i, np.argmax(a, 1).astype(np.int64))
        assert_close(t.argmin(1), np.argmin(a, 1).astype(np.int64))
        assert_close(t.argmax(), np.int64(np.argmax(a)))
        assert_close(tl.max(t.T, 0).indices, np.argmax(a, 1).astype(np.int64))


@pytest.mark.parametrize("dtype", REAL_DTYPES)
def test_arg_extremes_of_long_rows_find_the_first_holder(dtype):
    """Rows walked in blocks of 32: the extreme (repeated, so ties matter),
    or a NaN, placed before, on and after block edges."""
    n_values = [31, 32, 33, 95, 2049, 17000]  # 17000: in 16 KiB blocks, ties across them
    for n in n_values:
        for at in sorted({0, 30, 31, 32, 63, 2047, 2048, 4095, 4096, 8191, n - 1}
                         - set(range(n, 10 ** 5))):
            a = np.zeros((3, n), np.float64)
            a[0, at] = 7
            a[0, (at + 40) % n] = 7          # a later tie
            a[0, (at + 4100) % n] = 7        # one in another block
            a[1, at] = -7
            a[2, (at + 5) % n] = 7
            if dtype in ("float32", "float64", "float16", "bfloat16"):
                a[2, at] = np.nan
            x = a.astype(np.float32 if dtype == "bfloat16" else dtype)
            t = to_tensor(x, dtype)
            assert t.argmax(1).cpu().numpy().tolist() == np.argmax(x, 1).tolist()
            assert t.argmin(1).cpu().numpy().tolist() == np.argmin(x, 1).tolist()
            v, i = t.max(1)
            assert i.cpu().numpy().tolist() == np.argmax(x, 1).tolist()


def test_ties_take_the_first_index():
    t = tl.tensor([[3, 1, 3, 1], [0, 0, 0, 0]])
    assert t.argmax(1).tolist() == [0, 0]
    assert t.argmin(1).tolist() == [1, 0]
    assert t.max(0).indices.tolist() == [0, 0, 0, 0]
    assert tl.argmax(tl.tensor([2.0, 5.0, 5.0])).item() == 1


def test_max_with_tensor_other_is_elementwise():
    a, b = tl.tensor([1.0, 5.0]), tl.tensor([3.0, 2.0])
    r = tl.max(a, b)
    assert r.tolist() == [3.0, 5.0]
    assert tl.min(a, other=b).tolist() == [1.0, 2.0]


def test_complex_max_is_refused():
    t = to_tensor(np.ones(3, np.complex64))
    for fn in (tl.amax, tl.amin, tl.argmax, tl.max):
        with pytest.raises(TypeError, match="complex64"):
            fn(t)


# ---- all, any, count_nonzero ----------------------------------------------------------

@pytest.mark.parametrize("dtype", ALL_DTYPES)
@pytest.mark.parametrize("name", ["all", "any"])
def test_all_any(name, dtype):
    ref = {"all": np.all, "any": np.any}[name]
    rdt = "uint8" if dtype == "uint8" else "bool"
    rng = np.random.default_rng(4)
    for shape in SHAPES:
        a = random_array(shape, dtype, rng, low=0, high=2)  # zeros and ones
        for label, t in tensor_layouts(a, dtype):
            for dim, keepdim in dim_choices(a.ndim):
                expected = ref(a, axis=np_axis(dim, a.ndim), keepdims=keepdim)
                got = call(getattr(tl, name), t, dim, keepdim)
                assert_close(got, np.asarray(expected).astype(NP_DTYPES[rdt]), dtype=rdt)


@pytest.mark.parametrize("dtype", ALL_DTYPES)
def test_count_nonzero(dtype):
    rng = np.random.default_rng(5)
    for shape in SHAPES:
        a = random_array(shape, dtype, rng, low=0, high=2)
        for label, t in tensor_layouts(a, dtype):
            for dim, _ in dim_choices(a.ndim)[::2]:
                expected = np.count_nonzero(a, axis=np_axis(dim, a.ndim))
                got = tl.count_nonzero(t) if dim is None else tl.count_nonzero(t, dim)
                assert_close(got, np.asarray(expected, np.int64))


def test_all_any_with_nan_count_as_true():
    t = tl.tensor([float("nan"), 1.0])
    assert tl.all(t).item() is True
    assert tl.count_nonzero(t).item() == 2


# ---- logsumexp, norm -------------------------------------------------------------------

def np_logsumexp(a, axis, keepdims):
    x = a.astype(np.float64)
    shape = np.sum(x, axis=axis, keepdims=keepdims).shape
    reduced = range(x.ndim) if axis is None else np.atleast_1d(axis)
    if any(x.shape[i] == 0 for i in reduced):
        return np.full(shape, -np.inf)
    with np.errstate(all="ignore"):
        m = np.max(x, axis=axis, keepdims=True)
        m = np.where(np.isfinite(m), m, 0)
        r = np.log(np.sum(np.exp(x - m), axis=axis, keepdims=True)) + m
    return r.reshape(shape)


@pytest.mark.parametrize("dtype", ["int32"] + FLOAT_DTYPES)
def test_logsumexp(dtype):
    rdt = "float32" if dtype == "int32" else dtype
    for a, label, t, dim, keepdim in reduce_cases(dtype):
        axis = np_axis(dim, a.ndim)
        expected = np_logsumexp(a, axis, keepdim)
        got = call(tl.logsumexp, t, dim if dim is not None else None, keepdim) \
            if dim is not None else tl.logsumexp(t, tuple(range(a.ndim)), keepdim)
        assert_close(got, result_np(expected, rdt), dtype=rdt), (label, a.shape, dim)


def test_logsumexp_is_stable_and_handles_infinities():
    a = np.array([[1000.0, 1000.0], [-1000.0, -1000.0], [-np.inf, -np.inf], [np.inf, 1.0],
                  [np.nan, 1.0]], np.float32)
    expected = [1000 + np.log(2), -1000 + np.log(2), -np.inf, np.inf, np.nan]
    assert_close(tl.logsumexp(to_tensor(a), 1), np.array(expected, np.float32))


def np_norm(a, p, axis, keepdim):
    x = np.abs(widen(a))
    with np.errstate(all="ignore"):
        if p == "fro" or p == 2:
            r = np.sqrt(np.sum(x * x, axis=axis, keepdims=keepdim))
        elif p == math.inf:
            r = np.max(x, axis=axis, keepdims=keepdim)
        elif p == -math.inf:
            r = np.min(x, axis=axis, keepdims=keepdim)
        elif p == 0:
            r = np.sum(x != 0, axis=axis, keepdims=keepdim).astype(np.float64)
        else:
            r = np.sum(x ** p, axis=axis, keepdims=keepdim) ** (1.0 / p)
    return r


@pytest.mark.parametrize("dtype", INEXACT_DTYPES)
@pytest.mark.parametrize("p", ["fro", 2, 1, 3, 0.5, 0, math.inf, -math.inf])
def test_norm(p, dtype):
    rdt = {"complex64": "float32", "complex128": "float64"}.get(dtype, dtype)
    shapes = [s for s in SHAPES if 0 not in s]
    for a, label, t, dim, keepdim in reduce_cases(dtype, shapes):
        expected = np_norm(a, p, np_axis(dim, a.ndim), keepdim)
        got = tl.norm(t, p, dim, keepdim)
        assert_close(got, result_np(expected, rdt), dtype=rdt), (label, a.shape, dim)
    assert_close(to_tensor(a, dtype).norm(), result_np(np_norm(a, 2, None, False), rdt), dtype=rdt)


def test_norm_arguments():
    a = random_array((3, 4), "float32")
    t = to_tensor(a)
    assert_close(tl.norm(t, dim=1, dtype=tl.float64), np.sqrt((widen(a) ** 2).sum(1)))
    assert_close(t.norm(p=1), np.float32(np.abs(a).sum()))
    with pytest.raises(RuntimeError, match="floating point or complex"):
        tl.norm(tl.tensor([1, 2]))
    # the nuclear norm: the sum of the singular values, in the input's dtype
    np.testing.assert_allclose(tl.norm(t, "nuc").cpu().numpy(),
                               np.linalg.norm(widen(a), "nuc"), rtol=1e-5)
    assert tl.norm(t, "nuc").dtype == tl.float32
    with pytest.raises(RuntimeError, match="inf norm on an empty"):
        tl.norm(tl.zeros(0), math.inf)


# ---- cumsum, cumprod ---------------------------------------------------------------------

@pytest.mark.parametrize("dtype", ALL_DTYPES)
@pytest.mark.parametrize("name", ["cumsum", "cumprod"])
def test_cumsum_cumprod(name, dtype):
    ref = {"cumsum": np.cumsum, "cumprod": np.cumprod}[name]
    rdt = sum_dtype(dtype)
    rng = np.random.default_rng(6)
    for shape in SHAPES:
        a = random_array(shape, dtype, rng, low=-2, high=3)
        for label, t in tensor_layouts(a, dtype):
            for dim in ([0, -1] + ([1] if a.ndim >= 2 else [])):
                axis = dim if a.ndim else None
                expected = ref(widen(a), axis=axis).reshape(a.shape)
                got = getattr(tl, name)(t, dim)
                assert_close(got, result_np(expected, rdt), dtype=rdt), (label, shape, dim)
                assert_close(getattr(t, name)(dim=dim), result_np(expected, rdt), dtype=rdt)


@pytest.mark.parametrize("dtype", ["int32", "float64", "complex64"])
def test_scans_of_side_by_side_lines_in_blocks(dtype):
    """Lines along a leading dim are scanned in blocks of adjacent lines:
    inner sizes below, at and past a block (512), with a partial last block."""
    rng = np.random.default_rng(7)
    for shape, dim in [((5, 3, 1100), 1), ((4, 512), 0), ((3, 2, 1025), 0), ((6, 513), 0)]:
        a = random_array(shape, dtype, rng, low=-2, high=3)
        t = to_tensor(a, dtype)
        for name, ref in (("cumsum", np.cumsum), ("cumprod", np.cumprod)):
            rdt = sum_dtype(dtype)
            expected = result_np(ref(widen(a), axis=dim), rdt)
            assert_close(getattr(t, name)(dim), expected, dtype=rdt), (shape, dim, name)


def test_cumsum_dtype_and_out():
    a = np.arange(1, 7, dtype=np.int32).reshape(2, 3)
    t = to_tensor(a)
    assert_close(tl.cumsum(t, 1, dtype=tl.float32), np.cumsum(a, 1).astype(np.float32))
    out = tl.zeros(2, 3, dtype=tl.float64)
    r = tl.cumprod(t, 0, out=out)
    assert r is out
    assert_close(out, np.cumprod(a, 0).astype(np.float64))
    with pytest.raises(IndexError, match="range"):
        tl.cumsum(t, 2)
    with pytest.raises(TypeError):
        tl.cumsum(t)


# ---- out=, errors ------------------------------------------------------------------------

def test_out_argument():
    a = random_array((3, 4), "float32")
    t = to_tensor(a)
    out = tl.zeros(4)
    assert tl.sum(t, 0, out=out) is out
    assert_close(out, a.sum(0))
    out64 = tl.zeros(3, dtype=tl.float64)
    tl.mean(t, 1, out=out64)
    assert_close(out64, widen(a).mean(1), rtol=1e-6)
    values, indices = tl.zeros(3), tl.zeros(3, dtype=tl.int64)
    r = tl.max(t, 1, out=(values, indices))
    assert r.values is values and r.indices is indices
    assert_close(indices, np.argmax(a, 1).astype(np.int64))
    with pytest.raises(RuntimeError, match=r"\[5\]"):
        tl.sum(t, 0, out=tl.zeros(5))
    with pytest.raises(RuntimeError, match="can't be cast"):
        tl.sum(t, 0, out=tl.zeros(4, dtype=tl.int64))


def test_bad_dims():
    t = tl.zeros(2, 3)
    with pytest.raises(IndexError, match=r"range of \[-2, 1\].*got 2"):
        t.sum(2)
    with pytest.raises(IndexError, match="range"):
        tl.amax(t, (-3,))
    with pytest.raises(IndexError, match="range"):
        t.argmax(5)
    with pytest.raises(IndexError, match="range"):
        t.max(2)
    with pytest.raises(RuntimeError, match="multiple times"):
        t.sum((0, 0))
    with pytest.raises(RuntimeError, match="multiple times"):
        t.sum((1, -1))
    with pytest.raises(TypeError):
        t.sum("a")
    with pytest.raises(TypeError):
        t.argmax((0, 1))
    with pytest.raises(TypeError, match="dtype"):
        t.sum(dtype="nope")
    with pytest.raises(TypeError, match="unexpected keyword"):
        t.sum(axes=0)
    with pytest.raises(TypeError, match="out"):
        t.sum(out=3)


def test_zero_dim_inputs_accept_dim_0_and_minus_1():
    t = tl.tensor(3.5)
    for dim in (0, -1):
        assert t.sum(dim).item() == 3.5
        assert t.sum(dim, keepdim=True).shape == ()
        assert t.amax(dim).item() == 3.5
        assert t.argmax(dim).item() == 0
        assert t.max(dim).indices.item() == 0
        assert t.cumsum(dim).item() == 3.5
    with pytest.raises(IndexError):
        t.sum(1)


def test_dim_empty_tuple_reduces_everything():
    a = random_array((2, 3), "float64")
    assert_close(to_tensor(a).sum(()), a.sum())
    assert_close(to_tensor(a).amax([]), a.max())


def test_broadcast_zero_stride_input():
    base = tl.tensor([1.0, 2.0, 3.0])
    e = base.expand(4, 3)
    assert_close(e.sum(0), np.array([4.0, 8.0, 12.0], np.float32))
    assert_close(e.sum(), np.float32(24))
    assert_close(e.amax(1), np.full(4, 3.0, np.float32))
    assert_close(e.argmax(1), np.full(4, 2, np.int64))
    assert_close(e.cumsum(0)[-1], np.array([4.0, 8.0, 12.0], np.float32))


# ---- larger inputs: threads and the engine's layouts ------------------------------------

@pytest.mark.parametrize("shape,dims", [
    ((1 << 18,), None), ((512, 300), 1), ((512, 300), 0), ((7, 40000), 1), ((40000, 7), 0),
    ((40000, 7), 1), ((64, 32, 40), (0, 2)), ((3, 100000), 1), ((100000, 3), 0),
])
def test_large_reductions_match_numpy(shape, dims):
    a = random_array(shape, "float32")
    axis = dims
    for t in (to_tensor(a), noncontiguous(to_tensor(a))):
        for fn, ref, rtol in [(tl.sum, np.sum, 1e-5), (tl.amax, np.max, 0), (tl.mean, np.mean, 1e-5),
                              (tl.var, lambda x, axis: np.var(x, axis=axis, ddof=1), 1e-5)]:
            got = fn(t) if dims is None else fn(t, dims)
            assert_close(got, ref(widen(a), axis=axis).astype(np.float32), rtol=rtol, atol=1e-4)
    ai = random_array(shape, "int32")
    assert_close(to_tensor(ai).sum(dims) if dims is not None else to_tensor(ai).sum(),
                 widen(ai).sum(axis=axis))
    # bools: counted in uint8 lanes flushed every 255 rounds, all/any as byte min/max
    ab = a > 0.5
    for t in (to_tensor(ab), noncontiguous(to_tensor(ab))):
        by = (lambda f: f(t)) if dims is None else (lambda f: f(t, dims))
        assert_close(by(tl.count_nonzero), np.asarray(np.count_nonzero(ab, axis=axis), np.int64))
        assert_close(by(tl.sum), ab.sum(axis=axis).astype(np.int64))
        assert_close(by(tl.any), ab.any(axis=axis))
        assert_close(by(tl.all), ab.all(axis=axis))


def test_results_do_not_depend_on_thread_count():
    a = random_array((1 << 20,), "float32", low=-1e4, high=1e4)
    m = random_array((300, 1000), "float64")
    old = tl.get_num_threads()
    try:
        results = []
        for n in (1, 2, 3):
            tl.set_num_threads(n)
            t, tm = to_tensor(a), to_tensor(m)
            results.append((t.sum().item(), tm.sum(0).cpu().numpy().copy(), tm.T.sum().item()))
        for r in results[1:]:
            assert r[0] == results[0][0]
            assert np.array_equal(r[1], results[0][1])
            assert r[2] == results[0][2]
    finally:
        tl.set_num_threads(old)


def test_float32_sum_accuracy_at_least_numpys():
    """10^7 float32 values: error against the exact sum no larger than NumPy's."""
    rng = np.random.default_rng(123)
    a = rng.uniform(-1, 1, 10_000_000).astype(np.float32) + np.float32(0.25)
    exact = math.fsum(a.astype(np.float64))
    ours = tl.from_numpy(a).sum().item()
    theirs = float(a.sum())
    assert abs(ours - exact) <= abs(theirs - exact)
    assert abs(ours - exact) <= abs(exact) * 2 ** -24  # correctly rounded or next to it


def test_float16_sums_accumulate_in_float32_or_better():
    a = np.full(10000, 0.1, np.float16)
    got = to_tensor(a).sum()
    assert got.dtype == tl.float16
    assert abs(got.item() - 10000 * float(np.float16(0.1))) < 8  # fp16 ulp at 1000 is 0.5...8


# ---- hypothesis: random shapes and dims ---------------------------------------------------

@st.composite
def shape_and_dims(draw):
    ndim = draw(st.integers(0, 4))
    shape = tuple(draw(st.lists(st.integers(0, 5), min_size=ndim, max_size=ndim)))
    if ndim == 0:
        return shape, None
    dims = draw(st.one_of(st.none(), st.lists(st.integers(-ndim, ndim - 1), min_size=1,
                                              max_size=ndim, unique_by=lambda d: d % ndim)))
    return shape, dims


@given(shape_and_dims(), st.booleans(), st.sampled_from(["float64", "int32", "float32"]),
       st.booleans())
def test_hypothesis_sum_amax_against_numpy(sd, keepdim, dtype, transpose):
    shape, dims = sd
    a = random_array(shape, dtype)
    t = to_tensor(a)
    if transpose and a.ndim >= 2:
        a = a.swapaxes(0, -1)
        t = t.transpose(0, -1)
    axis = None if dims is None else tuple(d % a.ndim for d in dims)
    dim_arg = dims if dims is not None else None
    rdt = sum_dtype(dtype)
    got = tl.sum(t, dim_arg, keepdim) if dim_arg is not None else tl.sum(t)
    exp = widen(a).sum(axis=axis, keepdims=keepdim if dim_arg is not None else False)
    assert_close(got, result_np(exp, rdt), dtype=rdt)
    reduced = range(a.ndim) if axis is None else axis
    if all(a.shape[i] for i in reduced):
        got = tl.amax(t, dim_arg, keepdim) if dim_arg is not None else tl.amax(t)
        exp = np.max(a, axis=axis, keepdims=keepdim if dim_arg is not None else False)
        assert_close(got, exp)
        if dtype != "int32":
            got = tl.std(t, dim_arg, keepdim=keepdim) if dim_arg is not None else tl.std(t)
            with _nowarn(), np.errstate(all="ignore"):
                exp = np.std(a.astype(np.float64), axis=axis, ddof=1,
                             keepdims=keepdim if dim_arg is not None else False)
            assert_close(got, result_np(exp, dtype), dtype=dtype)


def test_numpy_spellings_axis_and_keepdims():
    a = np.arange(24, dtype=np.float64).reshape(2, 3, 4)
    t = tl.from_numpy(a)
    for name in ("sum", "mean", "amax", "prod"):
        got = getattr(t, name)(axis=1, keepdims=True)
        want = getattr(np, name if name != "amax" else "max")(a, axis=1, keepdims=True)
        np.testing.assert_allclose(got.cpu().numpy(), want, rtol=1e-12)
    # axis= is NumPy's spelling and selects NumPy's std (ddof=0); dim= keeps
    # PyTorch's unbiased one (docs/numpy.md, the collision table).
    np.testing.assert_allclose(t.std(axis=1, keepdims=True).cpu().numpy(),
                               np.std(a, axis=1, keepdims=True), rtol=1e-12)
    np.testing.assert_allclose(t.std(dim=1, keepdim=True).cpu().numpy(),
                               np.std(a, axis=1, ddof=1, keepdims=True), rtol=1e-12)
    with pytest.raises(TypeError, match="multiple values"):
        t.sum(axis=0, dim=1)
    g = tl.from_numpy(a.copy()).requires_grad_()
    g.sum(axis=(0, 2)).backward(tl.ones(3, dtype=tl.float64))  # the formula reads axis= too
    np.testing.assert_array_equal(g.grad.cpu().numpy(), np.ones_like(a))


@pytest.mark.parametrize("dtype", ["float32", "float64", "float16", "int8", "uint8", "int32",
                                   "int64", "uint64", "bool"])
@pytest.mark.parametrize("shape,dim", [((40, 300), 0), ((5, 37, 260), 1), ((3, 4, 9, 11), 1),
                                       ((600, 9), 0), ((2, 513), 0)])
def test_max_min_along_an_outer_dim_match_numpy(dtype, shape, dim):
    """Lines side by side (the reduced dim outside a unit-stride last dim)
    run row by row over many columns at once: values and indices are
    NumPy's, NaNs win from their first index, ties keep the first."""
    rng = np.random.default_rng(7)
    a = rng.integers(0, 4, size=shape)  # few values: many ties
    a = a.astype(bool) if dtype == "bool" else a.astype(dtype)
    if dtype.startswith("float"):
        a[rng.random(shape) < 0.03] = np.nan
    t = tl.tensor(a)
    for name, vref, iref in (("max", np.max, np.argmax), ("min", np.min, np.argmin)):
        values, indices = getattr(t, name)(dim)
        np.testing.assert_array_equal(indices.cpu().numpy(), iref(a, axis=dim))
        np.testing.assert_array_equal(values.cpu().numpy(), vref(a, axis=dim))
        np.testing.assert_array_equal(getattr(t, "arg" + name)(dim, keepdim=True).cpu().numpy(),
                                      iref(a, axis=dim, keepdims=True))


def test_extrema_of_an_empty_complex_dim_refuse_the_empty_dim_first():
    # fuzz_torch_api --strict, seed 20261203 cases 1778, 2339: PyTorch's
    # max/min/amax/amin ask for a non-empty reduced dim before they look at
    # the dtype (IndexError, or RuntimeError with no dim); argmax/argmin refuse
    # the complex dtype first
    z = tl.zeros(0, 3, dtype=tl.complex64)
    for call in (lambda: z.amax(0), lambda: z.amin(-2), lambda: z.max(0), lambda: z.min(0)):
        with pytest.raises(IndexError, match="Expected reduction dim 0 to have non-zero size"):
            call()
    with pytest.raises(RuntimeError, match="Expected reduction dim to be specified"):
        z.amax()
    for call in (lambda: z.argmax(0), lambda: z.argmin(), lambda: z.max(1)):
        with pytest.raises(TypeError, match="does not support dtype complex64"):
            call()
