"""Corners of the namespace's ufuncs, each against live NumPy: value, dtype
and exception class, through both doors -- ``torchlike.numpy.<name>(...)``
and NumPy's own ufunc called with tensors (``Tensor.__array_ufunc__``) --
over 0-d, empty, non-contiguous and broadcast operands."""
import warnings

import numpy as np
import pytest

import torchlike.numpy as tnp

pytestmark = pytest.mark.host_only


def _tensor(x):
    return tnp.asarray(x) if isinstance(x, np.ndarray) else x


def _layouts(a):
    """a as it is, 0-d (its first element), empty, reversed and broadcast."""
    flat = a.reshape(-1)
    return {"plain": a, "0-d": flat[0].reshape(()), "empty": flat[:0],
            "reversed": flat[::-1], "strided": np.repeat(flat, 2)[::2],
            "broadcast": np.broadcast_to(flat, (2, flat.size))}


def _parts(a):
    """a's floats, a complex array's as (real, imaginary) pairs."""
    a = np.ascontiguousarray(a)
    return a.view(a.real.dtype) if a.dtype.kind == "c" else a


def _outcome(fn, args, kwargs):
    with warnings.catch_warnings(), np.errstate(all="ignore"):
        warnings.simplefilter("ignore")
        try:
            return fn(*args, **kwargs), None
        except Exception as error:  # noqa: BLE001 - the class is what is compared
            return None, error


def check_against_numpy(name, args, kwargs=None, doors=("namespace", "ufunc")):
    """Call NumPy's ``name`` on ndarrays, then torchlike on tensors of the
    same values through each door; out= (an ndarray in kwargs) is given to
    each its own copy.  Exact comparison: bit patterns of floats (NaN as NaN)."""
    kwargs = kwargs or {}

    def fresh(tensors):
        kw = {}
        for key, value in kwargs.items():
            if isinstance(value, np.ndarray) and key == "out":
                value = value.copy()
                kw[key] = tnp.asarray(value) if tensors else value
            else:
                kw[key] = _tensor(value) if tensors and isinstance(value, np.ndarray) else value
        return kw

    want, want_error = _outcome(getattr(np, name), args, fresh(False))
    targs = [_tensor(a) for a in args]
    for door in doors:
        fn = getattr(tnp, name) if door == "namespace" else getattr(np, name)
        got, error = _outcome(fn, targs, fresh(True))
        where = f"{door}: {name}({args!r}, {kwargs!r})"
        if want_error is not None:
            assert error is not None, f"{where}: NumPy raised {want_error!r}, torchlike gave {got!r}"
            bases = tuple(c for c in type(want_error).__mro__
                          if c.__module__ == "builtins" and c not in (Exception, BaseException,
                                                                      object))
            assert isinstance(error, bases), f"{where}: {error!r}, NumPy {want_error!r}"
            continue
        assert error is None, f"{where}: torchlike raised {error!r}, NumPy gave {want!r}"
        want_a, got_a = np.asarray(want), np.asarray(got)
        assert got_a.dtype == want_a.dtype, f"{where}: dtype {got_a.dtype}, NumPy {want_a.dtype}"
        assert got_a.shape == want_a.shape, f"{where}: shape {got_a.shape}, NumPy {want_a.shape}"
        if want_a.dtype.kind in "fc":
            w, g = _parts(want_a), _parts(got_a)
            both_nan = np.isnan(w) & np.isnan(g)
            same = w.view(f"u{w.itemsize}") == g.view(f"u{g.itemsize}")
            assert (same | both_nan).all(), f"{where}: {got_a!r}, NumPy {want_a!r}"
        else:
            assert np.array_equal(want_a, got_a), f"{where}: {got_a!r}, NumPy {want_a!r}"


# ---- nextafter: NumPy's loops are float ones ----------------------------------------

INT_PAIRS = [(np.array([1, 2, 3], np.int16), np.array([5, 0, 3], np.int16)),
             (np.array([1, -2, 3], np.int64), np.array([2, 2, 2], np.int32)),
             (np.array([0, 1], np.uint8), np.array([1, 0], np.int8)),
             (np.array([True, False]), np.array([False, True])),
             (np.array([7, 9], np.uint32), np.array([1.5, 20.0], np.float16))]


@pytest.mark.parametrize("layout", ["plain", "0-d", "empty", "reversed", "strided", "broadcast"])
@pytest.mark.parametrize("pair", range(len(INT_PAIRS)))
@pytest.mark.parametrize("kwargs", [{}, {"casting": "unsafe"}, {"casting": "safe"},
                                    {"casting": "no"}, {"dtype": np.float32},
                                    {"dtype": np.float16, "casting": "unsafe"},
                                    {"dtype": np.int16, "casting": "unsafe"},
                                    {"signature": (None, None, np.float16)},
                                    {"signature": "dd->d"}])
def test_nextafter_of_integers(layout, pair, kwargs):
    a, b = INT_PAIRS[pair]
    a = _layouts(a)[layout]
    b = b if layout == "broadcast" else _layouts(b)[layout]
    check_against_numpy("nextafter", (a, b), kwargs)


@pytest.mark.parametrize("out_dtype", [np.float64, np.float16, np.int64, np.int8])
@pytest.mark.parametrize("casting", ["same_kind", "unsafe"])
@pytest.mark.parametrize("masked", [False, True])
def test_nextafter_of_integers_into_out(out_dtype, casting, masked):
    a, b = np.array([1, 2, 3], np.int16), np.array([5, 0, 3], np.int16)
    kwargs = {"out": np.full(3, 7, out_dtype), "casting": casting}
    if masked:
        kwargs["where"] = np.array([True, False, True])
    check_against_numpy("nextafter", (a, b), kwargs)


@pytest.mark.parametrize("other", [3, 2.5, True, -1])
def test_nextafter_of_integers_and_python_numbers(other):
    for a in (np.array([1, 2], np.int8), np.array([1, 2], np.int64), np.array(4, np.uint16)):
        check_against_numpy("nextafter", (a, other), {"casting": "unsafe"})
        check_against_numpy("nextafter", (other, a), {})


# ---- square of bools: NumPy's int8 loop ------------------------------------------------

@pytest.mark.parametrize("layout", ["plain", "0-d", "empty", "reversed", "strided", "broadcast"])
@pytest.mark.parametrize("kwargs", [{}, {"casting": "unsafe"}, {"casting": "safe"},
                                    {"casting": "no"}, {"dtype": np.float32},
                                    {"dtype": bool}, {"signature": "b->b"},
                                    {"signature": (bool, bool)}])
def test_square_of_bools(layout, kwargs):
    check_against_numpy("square", (_layouts(np.array([True, False, True]))[layout],), kwargs)


@pytest.mark.parametrize("out_dtype", [np.int8, np.float64, np.bool_, np.int64])
@pytest.mark.parametrize("casting", ["same_kind", "unsafe"])
@pytest.mark.parametrize("masked", [False, True])
def test_square_of_bools_into_out(out_dtype, casting, masked):
    kwargs = {"out": np.full(3, 5, out_dtype), "casting": casting}
    if masked:
        kwargs["where"] = np.array([True, False, True])
    check_against_numpy("square", (np.array([True, False, True]),), kwargs)


def test_square_of_bools_under_where_without_out():
    # NumPy leaves the masked-off elements undefined: the dtype is compared
    x = np.array([True, False, True])
    mask = np.array([True, False, True])
    for fn in (tnp.square, np.square):
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            got = fn(tnp.asarray(x), where=tnp.asarray(mask))
            want = np.square(x, where=mask)
        assert np.asarray(got).dtype == want.dtype
        assert np.array_equal(np.asarray(got)[mask], want[mask])


# ---- spacing of float16: NumPy's own loop ---------------------------------------------

def test_spacing_of_every_float16():
    every = np.arange(2 ** 16, dtype=np.uint32).astype(np.uint16).view(np.float16)
    check_against_numpy("spacing", (every,))


@pytest.mark.parametrize("values", [[-0.0, 0.0, -np.inf, np.inf, np.nan, -65504.0, 65504.0,
                                     -6e-8, -6.1e-5, -1.0, -3.0, -2048.0]])
@pytest.mark.parametrize("layout", ["plain", "0-d", "empty", "reversed", "strided", "broadcast"])
def test_spacing_of_negative_float16(values, layout):
    check_against_numpy("spacing", (_layouts(np.array(values, np.float16))[layout],))


@pytest.mark.parametrize("dtype", [np.int8, np.uint8, np.bool_, np.int16, np.uint16, np.int64])
@pytest.mark.parametrize("kwargs", [{}, {"casting": "unsafe"}, {"where": np.array(True)},
                                    {"out": np.zeros((2, 5)), "casting": "unsafe"}])
def test_spacing_of_integers_is_numpys_smallest_float(dtype, kwargs):
    # (the namespace's np.spacing with a keyword is NumPy's ufunc on the
    # tensors: fuzzer seed 99 found it float32 there, float16 without one)
    check_against_numpy("spacing", (np.array([-128, -3, 0, 5, 127]).astype(dtype),), kwargs)


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_spacing_of_wider_floats_keeps_its_sign(dtype):
    info = np.finfo(dtype)
    check_against_numpy("spacing", (np.array([-0.0, -1.0, -np.inf, np.nan, -info.max,
                                              -info.smallest_subnormal, -info.tiny, 3.0],
                                             dtype),))


def test_spacing_of_float16_into_out():
    x = np.array([-1.0, -0.0, 2.0, -65504.0], np.float16)
    check_against_numpy("spacing", (x,), {"out": np.zeros(4, np.float16)})
    check_against_numpy("spacing", (x,), {"out": np.zeros(4, np.float32)})


# ---- diag and diagonal far off the matrix ----------------------------------------------

# (not -2**31: NumPy's diagonal negates the C int, and gives a view past
# the matrix that crashes when read)
HUGE_OFFSETS = [2 ** 25, 2 ** 31 - 1, 2 ** 31, -2 ** 31 + 1, -2 ** 31 - 1, 2 ** 62, -2 ** 62,
                2 ** 62 + 5, 2 ** 63 - 1, -2 ** 63, 2 ** 63, -2 ** 63 - 1, 2 ** 64, 10 ** 30,
                np.int64(2 ** 62), True, 1, -1]


@pytest.mark.parametrize("k", HUGE_OFFSETS)
@pytest.mark.parametrize("v", [np.array([1, 2, 3]), np.arange(6).reshape(2, 3),
                               np.array([], np.float32), np.zeros((0, 2))])
def test_diag_far_off(k, v):
    check_against_numpy("diag", (v, k), doors=("namespace",))


@pytest.mark.parametrize("k", HUGE_OFFSETS)
def test_diagonal_trace_diagflat_far_off(k):
    m = np.arange(6).reshape(2, 3)
    check_against_numpy("diagonal", (m, k), doors=("namespace",))
    check_against_numpy("trace", (m, k), doors=("namespace",))
    check_against_numpy("diagflat", (np.array([[1, 2]]), k), doors=("namespace",))


def test_numpy_bool_offset_of_a_matrix_is_refused():
    m = np.arange(6).reshape(2, 3)
    check_against_numpy("diagonal", (m, np.True_), doors=("namespace",))
    check_against_numpy("diag", (m, np.True_), doors=("namespace",))
    check_against_numpy("diag", (np.array([1, 2]), np.True_), doors=("namespace",))


@pytest.mark.parametrize("k", [True, np.False_, 1, -1, 2 ** 62, -2 ** 62])
def test_tril_triu_offsets(k):
    m = np.arange(6).reshape(2, 3)
    check_against_numpy("tril", (m, k), doors=("namespace",))
    check_against_numpy("triu", (m, k), doors=("namespace",))


def test_diag_through_numpy_dispatch():
    # np.diag(tensor, k) reaches the namespace's diag by __array_function__
    v = tnp.asarray(np.array([1, 2, 3]))
    for k in (2 ** 63, 2 ** 62):
        with pytest.raises(ValueError):
            np.diag(np.array([1, 2, 3]), k)
        with pytest.raises(ValueError):
            np.diag(v, k)


# ---- NumPy's ufuncs on tensors: where= with out=, complex order -----------------------

@pytest.mark.parametrize("name", ["sin", "negative", "floor", "sqrt", "nextafter", "add"])
@pytest.mark.parametrize("out_dtype", [np.int64, np.bool_, np.float32, np.complex64])
def test_where_with_out_checks_the_cast(name, out_dtype):
    x = np.array([1.5, 2.5, 4.0])
    args = (x,) if getattr(np, name).nin == 1 else (x, x[::-1].copy())
    check_against_numpy(name, args, {"out": np.zeros(3, out_dtype),
                                     "where": np.array([True, False, True])})


COMPLEX_PAIRS = [(np.array([1 + 2j, 3 - 1j, 2 + 0j, np.nan + 1j]),
                  np.array([1 + 3j, 2 - 1j, 2 + 0j, 1 + 0j])),
                 (np.array([1 + 2j, -1j], np.complex64), np.array([0.5, 0.0], np.float16)),
                 (np.array([1 + 2j, -1j]), 1.0 - 1j),
                 (np.array([-3, 7], np.int16), np.array([0.5 + 2j, 7 - 1j]))]


@pytest.mark.parametrize("name", ["less", "less_equal", "greater", "greater_equal", "maximum",
                                  "minimum", "fmax", "fmin"])
@pytest.mark.parametrize("pair", range(len(COMPLEX_PAIRS)))
@pytest.mark.parametrize("how", ["plain", "out", "where", "unsafe", "dtype"])
def test_complex_order_through_numpy_ufuncs(name, pair, how):
    a, b = COMPLEX_PAIRS[pair]
    result = getattr(np, name)(a, b)
    kwargs = {"plain": {}, "out": {"out": np.zeros(result.shape, result.dtype)},
              "where": {"out": np.zeros(result.shape, result.dtype),
                        "where": np.arange(result.size) % 2 == 0},
              "unsafe": {"out": np.zeros(result.shape, np.complex64), "casting": "unsafe"},
              "dtype": {"dtype": np.complex128}}[how]
    check_against_numpy(name, (a, b), kwargs)


# ---- signature=: NumPy's loop, Python numbers included -----------------------------------

@pytest.mark.parametrize("name,args,signature", [
    ("subtract", (False, np.array([], np.int64)), "dd->d"),
    ("subtract", (False, np.array([3, 4], np.int64)), "dd->d"),
    ("maximum", (np.array([-91, 5], np.int8), True), (None, None, np.float32)),
    ("remainder", (np.array(6, np.uint8), False), "hh->h"),
    ("fmin", (np.array(83, np.uint16), True), "DD->D"),
    ("add", (False, np.array(3.2, np.float32)), "BB->B"),
    ("floor_divide", (False, np.array(58, np.int32)), "bb->b"),
    ("lcm", (np.array([[False], [True]]), True), (None, None, np.int32)),
    ("bitwise_or", (np.array([1, 2], np.uint16), False), (None, None, np.int32)),
    ("logical_and", (65536, np.array(-31, np.int16)), "bb->?"),
    ("fmax", (2.83 + 0j, np.array(45, np.uint64)), "BB->B"),
    ("rint", (np.array([1.5 + 2.5j], np.complex64),), "f->f"),
    ("rint", (np.array([1.5 + 2.5j], np.complex64),), "F->F"),
    ("equal", (True, np.array(3.3 - 4.4j, np.complex64)), "ee->?"),
    ("sign", (np.array([False, True]),), (None, np.uint32)),
    ("left_shift", (3.51, np.array(2, np.uint8)), "bb->b"),
])
@pytest.mark.parametrize("casting", ["same_kind", "unsafe"])
def test_signature_picks_numpy_loop(name, args, signature, casting):
    check_against_numpy(name, args, {"signature": signature, "casting": casting})


def test_signature_with_out_and_where():
    a = np.array([1, 2, 3], np.int16)
    check_against_numpy("add", (a, True), {"signature": "ff->f", "out": np.zeros(3),
                                           "where": np.array([True, False, True])})
    check_against_numpy("add", (a, True), {"signature": "ff->f", "out": np.zeros(3, np.int16)})
    check_against_numpy("add", (a, True), {"signature": "ff->f", "out": np.zeros(3, np.int16),
                                           "casting": "unsafe"})


# ---- bools, Python ints past int64, unsafe casts into out= --------------------------------

@pytest.mark.parametrize("kwargs", [{}, {"casting": "unsafe"}, {"out": np.zeros(2, np.int8)}])
def test_conjugate_of_bools_is_int8(kwargs):
    check_against_numpy("conjugate", (np.array([True, False]),), kwargs)


@pytest.mark.parametrize("name", ["gcd", "lcm"])
@pytest.mark.parametrize("big", [2 ** 64 - 1, 2 ** 63])
def test_gcd_lcm_of_python_ints_past_int64(name, big):
    check_against_numpy(name, (big, np.array([False, True])))
    check_against_numpy(name, (np.array([3, 4], np.uint64), big))


def test_where_with_unsafe_dtype_into_out():
    x = np.array([-1.25, 3.5], np.float16)
    check_against_numpy("positive", (x,), {"dtype": np.float16, "casting": "unsafe",
                                           "out": np.array([98, 7], np.uint8),
                                           "where": np.array([False, True])})


@pytest.mark.parametrize("name,args,kwargs", [
    ("multiply", (2 ** 64 - 1, np.array([97], np.uint8)), {"signature": "FF->F"}),
    ("fmax", (np.array([72, -42], np.int16), 2 ** 64), {"signature": "dd->d"}),
    ("fmod", (2.6, np.array([32767, 64, -71], np.int16)),
     {"signature": "hh->h", "out": np.zeros(3, np.int16)}),
    ("true_divide", (np.array([False, True]), True),
     {"casting": "safe", "signature": (None, None, np.float16), "out": np.zeros(2, np.float16)}),
    ("deg2rad", (np.array([1j, 2]),), {"casting": "unsafe"}),
    ("rad2deg", (np.array([1j, 2]),), {"out": np.zeros(2, complex), "casting": "unsafe"}),
    ("less", (np.array([-2.7 + 4.1j, -2.9 + 2.7j, 0.1 - 2.8j], np.complex64),
              np.array([0.31, -1.5, -3.8], np.float16)), {"dtype": bool, "casting": "unsafe"}),
    ("equal", (np.array([1 + 1j, 2]), np.array([1.0, 2.0])), {"dtype": bool, "casting": "unsafe"}),
])
def test_keywords_numpy_decides(name, args, kwargs):
    check_against_numpy(name, args, kwargs)


@pytest.mark.parametrize("name,args,kwargs", [
    ("fmin", (np.array([[65504.0, 1.7, -4.8]], np.float32), np.array([[78, 22, 84]], np.uint32)),
     {"dtype": "int32", "casting": "unsafe", "out": np.array([[89, 0, 0]], np.uint32),
      "where": np.array([False, False, True])}),
    ("fmax", (3.65, np.array(34, np.uint16)),
     {"dtype": np.int8, "casting": "unsafe", "out": np.array(34, np.uint16),
      "where": np.array(True)}),
    ("square", (np.array(5, np.int32),), {"dtype": np.float16, "casting": "unsafe",
                                          "out": np.array(40, np.int16)}),
    ("invert", (np.array([[-3.2 - 1.7j, 0.9 - 4.2j, 2.6 - 0.5j]]),),
     {"dtype": np.int32, "casting": "unsafe", "out": np.array([[21, 50, 0]], np.uint32),
      "where": np.array([[True, True, False]])}),
    ("floor", (np.array([[75, 0, 14], [12, 94, 85]], np.uint64),),
     {"signature": (None, np.int64), "out": np.zeros(3, np.int64)}),
    ("right_shift", (np.array([], np.int8), np.array([], np.int8)),
     {"signature": (None, None, np.int16), "out": np.array(-2.0, np.float32)}),
])
def test_unsafe_casts_and_signature_into_out(name, args, kwargs):
    check_against_numpy(name, args, kwargs)


@pytest.mark.parametrize("name,args,kwargs", [
    ("less", (np.array([59, 57, 0], np.uint16), -4), {"signature": (None, None, np.bool_)}),
    ("less", (np.array([[0], [53]], np.int8), 2 ** 64), {"signature": (None, None, np.bool_)}),
    ("less", (-2 ** 63, np.array([-26, 82], np.int32)), {"signature": (None, None, np.bool_)}),
    ("greater_equal", (-129, np.array(82, np.uint64)), {"signature": (None, None, np.bool_)}),
    ("deg2rad", (np.array(4.1 - 2.3j, np.complex64),), {"dtype": float, "casting": "unsafe"}),
    ("deg2rad", (np.array([3.2 + 2.4j]),), {"signature": "e->e", "casting": "unsafe"}),
])
def test_python_ints_and_real_only_loops(name, args, kwargs):
    check_against_numpy(name, args, kwargs)


@pytest.mark.parametrize("casting", ["unsafe", "same_kind"])
@pytest.mark.parametrize("name,args", [
    ("lcm", (4.12, np.array([3, 4, 6], np.uint64))),
    ("add", (np.array([0.5, 1.5, 2.5]), 1)),
])
def test_dtype_and_casting_into_a_larger_out(name, args, casting):
    # the write into a larger out= dropped casting=, so the inputs' cast into
    # dtype= was refused under 'unsafe'
    check_against_numpy(name, args, {"dtype": np.int16, "casting": casting,
                                     "out": np.zeros((2, 3), np.int16)})


@pytest.mark.filterwarnings("ignore::numpy.exceptions.ComplexWarning")
@pytest.mark.parametrize("name,args,kwargs", [
    ("fabs", (np.array((1.291 + 2.212j), np.complex128),), {"dtype": "float64", "casting": "unsafe"}),
    ("fabs", (np.array([-1.5 + 2j, 3 - 1j], np.complex64),), {"dtype": np.float16,
                                                              "casting": "unsafe"}),
    ("fabs", (np.array([[-1.5 + 2j], [3 - 1j]]),), {"dtype": np.float32, "casting": "unsafe",
                                                    "out": np.zeros((2, 1))}),
])
def test_fabs_of_complex_into_a_float_loop_under_unsafe_casting(name, args, kwargs):
    # NumPy casts the complex input into dtype='s float loop first (dropping the
    # imaginary part); the namespace's fabs refused any complex input
    check_against_numpy(name, args, kwargs)


@pytest.mark.parametrize("dtype", [np.complex64, np.complex128])
def test_complex_sign_of_infinities(dtype):
    """np.sign of a complex number with one infinite part is that part's
    direction, even beside a NaN (PyTorch's sgn, z / |z|, gives NaN)."""
    inf, nan = np.inf, np.nan
    parts = [inf, -inf, nan, 0.0, -0.0, 2.5, -3.0]
    z = np.array([complex(a, b) for a in parts for b in parts], dtype)
    for a in (z, z[::3], z.reshape(7, 7).T, z[:0], z[5]):
        want = np.sign(a)
        got = np.asarray(tnp.sign(tnp.asarray(a)))
        assert got.dtype == want.dtype and got.shape == want.shape
        for g, w in ((got.real, want.real), (got.imag, want.imag)):  # zeros' signs too
            assert np.array_equal(g, w, equal_nan=True), (a, got, want)
            assert np.array_equal(np.signbit(g) | np.isnan(g), np.signbit(w) | np.isnan(w))
    where = np.arange(z.size) % 3 != 0
    want = np.sign(z, where=where, out=np.full_like(z, 7))
    got = tnp.sign(tnp.asarray(z), where=tnp.asarray(where), out=tnp.full(z.shape, 7, dtype=dtype))
    assert np.array_equal(np.asarray(got), want, equal_nan=True)


# ---- np.clip's signature=: NumPy's clip ufunc, or the one a missing bound leaves --------

CLIP_DATA = {"float64": np.linspace(-0.5, 1.5, 6), "int16": np.array([-7, 0, 3, 9], np.int16),
             "bool": np.array([True, False, True])}


@pytest.mark.parametrize("data", list(CLIP_DATA))
@pytest.mark.parametrize("bounds", [(0.2, 0.5), (None, 3), (2, None), (None, None),
                                    (-2 ** 15, 2 ** 15 - 1), (-2 ** 15, 4)])
@pytest.mark.parametrize("signature", [(None, None, None, np.float32), "ddd->d", "hhh->h",
                                       (None, None, np.float64), "dd->d", "d->d", "dddd"])
@pytest.mark.parametrize("with_out", [False, True])
def test_clip_takes_numpy_signatures(data, bounds, signature, with_out):
    """NumPy hands signature= to its clip ufunc, or with a bound missing
    (or an int bound past integer data's range) to maximum, minimum or
    positive: the signature must fit that ufunc, and picks its loop."""
    a = CLIP_DATA[data]
    kwargs = {"signature": signature}
    if with_out:
        kwargs["out"] = np.zeros(a.shape)
    check_against_numpy("clip", (a, *bounds), kwargs)


# ---- float-only binary ufuncs with an integer array and a Python int ---------------------

PY_INTS = [3, -1, 300, 40000, 2 ** 40, 2 ** 63, 2 ** 64 - 1, 2 ** 70, -2 ** 63 - 1, 2.5]


@pytest.mark.parametrize("name", ["nextafter", "heaviside", "ldexp"])
@pytest.mark.parametrize("kind", ["bool", "uint8", "int16", "int64", "uint64", "float16",
                                  "float32"])
@pytest.mark.parametrize("kwargs", [{}, {"out": np.zeros(3, np.float32)},
                                    {"out": np.zeros(3, np.float64), "casting": "unsafe"}])
def test_float_loops_of_integer_arrays_and_python_ints(name, kind, kwargs):
    """NumPy's loop for an integer array beside a Python int of any size
    (NEP 50: the int is weak, the loop the array's smallest float;
    nextafter(int16, 2**70) is float32), or its refusal."""
    a = np.array([1, 0, 3]).astype(kind)
    for x in PY_INTS:
        check_against_numpy(name, (a, x), kwargs)
        check_against_numpy(name, (x, a), kwargs)


# ---- sign of complex infinities through every route ---------------------------------------

SIGN_DATA = [np.array([1e300, -2.0, 0.0, np.inf, -np.inf]),
             np.array([complex(np.inf, 0), complex(-np.inf, 2), complex(np.inf, np.nan),
                       complex(1, 1), complex(3, -np.inf)])]


@pytest.mark.filterwarnings("ignore::numpy.exceptions.ComplexWarning")
@pytest.mark.parametrize("data", range(len(SIGN_DATA)))
@pytest.mark.parametrize("kwargs", [{}, {"signature": "F->F"}, {"signature": "D->D"},
                                    {"out": np.zeros(5, complex)}, {"dtype": np.complex64}])
def test_sign_of_complex_infinities(data, kwargs):
    """An infinite part gives its direction (sign(inf + 0j) is 1): the
    namespace's complex sign, also in a loop a signature= names (fuzzer seed
    777777: 1e300 in the F->F loop is inf, whose sign was NaN there)."""
    check_against_numpy("sign", (SIGN_DATA[data],), kwargs)


@pytest.mark.parametrize("name", ["lcm", "gcd", "add", "bitwise_and"])
@pytest.mark.parametrize("kwargs", [{"dtype": "uint32", "casting": "safe"},
                                    {"dtype": "uint32", "casting": "equiv"},
                                    {"casting": "safe"}, {"casting": "no"}, {"dtype": "uint32"}])
@pytest.mark.parametrize("out_dtype", [np.float16, np.uint32, np.float64])
def test_strict_casting_into_out_is_numpys_verdict(name, kwargs, out_dtype):
    """Under casting='safe'/'no'/'equiv', out's dtype is judged by NumPy's
    loop (fuzzer seed 424242: lcm of uint16 with dtype=uint32 into a float16
    out was computed; uint32 -> float16 is no safe cast)."""
    check_against_numpy(name, (np.array([15, 87, 49], np.uint16), np.array(71, np.uint8)),
                        dict(kwargs, out=np.zeros(3, out_dtype)))
