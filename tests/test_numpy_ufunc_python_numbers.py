"""A ufunc's dtype= and casting= with Python numbers beside arrays, against
NumPy itself: which loop takes them, which refusal comes first and in what
words (NumPy converts a Python int to dtype= through a C long before it
checks any cast; a bool loop takes an int as int64; a Python bool under
casting='no' is a bool array; logical ops, as comparisons, give dtype=bool
as their output only).  NumPy's UFuncTypeError is a TypeError: the family
and the words are compared."""
import itertools
import warnings

import numpy as np
import pytest

import torchlike.numpy as tnp

SCALARS = [0, 3, 300, -1, 2**63, 2**64, -2**63 - 1, 1.5, 1j, True]
ARRAYS = ["int8", "uint64", "float32", "float64", "bool"]
DTYPES = [bool, np.int8, np.uint64, np.int64, np.float16, np.float32, np.complex64]
CASTINGS = ["same_kind", "no", "safe", "unsafe"]


def outcome(call):
    """A value with its dtype and the warnings' categories, or the refusal."""
    try:
        with np.errstate(all="ignore"), warnings.catch_warnings(record=True) as said:
            warnings.simplefilter("always")
            r = np.asarray(call())
        # (repr: a NaN equals a NaN)
        return ("value", r.dtype.name, repr(r.tolist()), sorted({w.category.__name__ for w in said}))
    except Exception as error:  # noqa: BLE001 - the refusal is what is compared
        family = "TypeError" if isinstance(error, TypeError) else type(error).__name__
        words = str(error)
        if words.startswith("numpy.") and "(dtype" in words and "NEP 50" in words:
            # ours names the loop that refuses the int; NumPy's C long words
            # say less (docs/numpy.md)
            words = "Python int too large to convert to C long"
        return (family, words)


@pytest.mark.parametrize("name", ["add", "bitwise_or", "maximum", "logical_and",
                                  "logical_xor", "multiply", "greater", "subtract"])
def test_python_numbers_with_dtype_and_casting(name):
    differ = []
    for x, kind, dtype, casting in itertools.product(SCALARS, ARRAYS, DTYPES, CASTINGS):
        for swap in (False, True):
            def args(ns):
                a = ns.asarray(np.array([1, 0], kind))
                return (a, x) if swap else (x, a)
            want = outcome(lambda: getattr(np, name)(*args(np), dtype=dtype, casting=casting))
            got = outcome(lambda: getattr(tnp, name)(*args(tnp), dtype=dtype, casting=casting))
            if want != got:
                differ.append((x, kind, dtype, casting, swap, want, got))
    assert not differ, f"{len(differ)} differ, e.g. {differ[:3]}"


def test_the_grid_meets_every_outcome():
    """The grid holds values and each refusal the test compares."""
    seen = set()
    for x, kind, dtype, casting in itertools.product(SCALARS, ARRAYS, DTYPES, CASTINGS):
        got = outcome(lambda: np.add(x, np.array([1, 0], kind), dtype=dtype, casting=casting))
        seen.add(got[0])
    assert seen == {"value", "TypeError", "OverflowError"}



ARRAY_DTYPES = ["bool", "int8", "uint64", "float16", "float32", "float64", "complex64",
                "complex128"]
LOOP_DTYPES = [bool, np.int8, np.float32, np.float64, np.complex64, np.complex128]


@pytest.mark.parametrize("name", ["absolute", "sqrt", "negative", "isnan", "square", "rint"])
def test_unary_dtype_picks_numpys_loop(name):
    """Which loop a unary ufunc's dtype= runs: the first its input reaches
    by a safe cast (absolute of complex64 with dtype=float64: D->d), else
    the one all in dtype= (absolute of complex128 with dtype=float32 is
    f->f's refusal, not F->f), then casting= judges it."""
    differ = []
    for kind, dtype, casting in itertools.product(ARRAY_DTYPES, LOOP_DTYPES, CASTINGS):
        data = np.array([1 + 1j, -2, 0], kind) if kind.startswith("c") else \
            np.array([1, 0, 1], kind)
        want = outcome(lambda: getattr(np, name)(data, dtype=dtype, casting=casting))
        got = outcome(lambda: getattr(tnp, name)(tnp.asarray(data), dtype=dtype, casting=casting))
        if want != got:
            differ.append((kind, dtype, casting, want, got))
    assert not differ, f"{len(differ)} differ, e.g. {differ[:3]}"


@pytest.mark.parametrize("name", ["add", "ldexp", "copysign"])
def test_binary_dtype_picks_numpys_loop(name):
    differ = []
    ints = ["int8", "int32", "int64"]
    for k1, k2, dtype, casting in itertools.product(ARRAY_DTYPES[:6], ints + ARRAY_DTYPES[3:6],
                                                    LOOP_DTYPES[1:4], CASTINGS):
        a, b = np.array([1, 2], k1), np.array([1, 0], k2)
        want = outcome(lambda: getattr(np, name)(a, b, dtype=dtype, casting=casting))
        got = outcome(lambda: getattr(tnp, name)(tnp.asarray(a), tnp.asarray(b), dtype=dtype,
                                                 casting=casting))
        if want != got:
            differ.append((k1, k2, dtype, casting, want, got))
    assert not differ, f"{len(differ)} differ, e.g. {differ[:3]}"
