"""NumPy's answers at the edges of a few functions, checked against NumPy
itself over grids: put_along_axis into axes of size 1 (indices and values
broadcast against the other axes), max/min of signed zeros (where the sign is determined), finfo of
bfloat16 as NumPy prints it (with ml_dtypes' bfloat16, NumPy's), and
fftfreq/rfftfreq given n of 0, negative, non-integer or NumPy integer."""
import itertools
import warnings

import numpy
import pytest

import torchlike as tl
import torchlike.numpy as tnp

np = numpy


def _outcome(f):
    try:
        return ("ok", f())
    except Exception as e:  # noqa: BLE001 - the exception's class is the answer
        return ("raises", type(e))


# ---- put_along_axis into axes of size 1 -------------------------------------------------

def _put_cases():
    for shape in [(1,), (3,), (1, 3), (3, 1), (1, 1), (2, 1, 3), (2, 3, 1), (1, 2, 1)]:
        for axis in list(range(len(shape))) + [-1, None]:
            if axis is None:
                index_shapes = [(1,), (2,)]
            else:
                ax = axis % len(shape)
                index_shapes = itertools.product(*[(1, 2) if i == ax else sorted({1, n})
                                                   for i, n in enumerate(shape)])
            for ishape in index_shapes:
                if axis is None:
                    full = ishape
                else:
                    full = np.broadcast_shapes(ishape, tuple(1 if i == axis % len(shape) else n
                                                             for i, n in enumerate(shape)))
                for vshape in sorted({(), (1,), ishape, full, (2,) + full}):
                    yield shape, axis, ishape, vshape


@pytest.mark.parametrize("via", ["namespace", "numpy"])
def test_put_along_axis_into_size_one_axes_matches_numpy(via):
    put = tnp.put_along_axis if via == "namespace" else np.put_along_axis
    for shape, axis, ishape, vshape in _put_cases():
        for index in (0, -1):
            a = np.arange(np.prod(shape), dtype=np.float64).reshape(shape)
            idx = np.full(ishape, index)
            values = np.arange(np.prod(vshape), dtype=np.float64).reshape(vshape) + 100
            want = a.copy()
            expected = _outcome(lambda: np.put_along_axis(want, idx, values, axis))
            got = tl.tensor(a)
            outcome = _outcome(lambda: put(got, tl.tensor(idx), tl.tensor(values), axis))
            case = (shape, axis, ishape, vshape, index)
            assert outcome[0] == expected[0], case
            if expected[0] == "raises":
                assert issubclass(outcome[1], expected[1]), case
            else:
                np.testing.assert_array_equal(got.cpu().numpy(), want, err_msg=str(case))


# ---- max/min of tied signed zeros ---------------------------------------------------------

@pytest.mark.parametrize("dtype", [np.float64, np.float32, np.float16])
def test_max_min_of_signed_zeros_match_numpy_where_the_sign_is_determined(dtype):
    # where -0.0 and 0.0 tie either may come back (NumPy's pick depends on the
    # CPU's SIMD lanes: docs/numpy.md); where a slice's zeros share a sign,
    # or a nonzero wins, the result is NumPy's to the bit
    rng = np.random.default_rng(7)
    for n in list(range(1, 20)) + [31, 64, 65, 257]:
        for _ in range(6):
            a = np.where(rng.random(n) < 0.5, -0.0, 0.0)
            a = np.where(rng.random(n) < 0.6, a, -(rng.random(n) + 0.1)).astype(dtype)
            for name, x in (("max", a), ("min", -a), ("amax", a), ("amin", -a)):
                want = getattr(np, name)(x)
                tied = len({bool(s) for s in np.signbit(x[x == 0])}) > 1 and want == 0
                for got in (getattr(np, name)(tl.tensor(x)),
                            getattr(tnp, name)(tnp.asarray(x))):
                    got = got.cpu().numpy()
                    assert got.dtype == want.dtype and got == want, (name, x)
                    if not tied:
                        assert np.signbit(got) == np.signbit(want), (name, x.tolist())
    for sign in (-0.0, 0.0):
        zeros = np.full((5, 7), sign, dtype)
        for x in (zeros, zeros.T, zeros[:, ::2]):
            for axis, keepdims in itertools.product((None, 0, 1, -1, (0, 1)), (False, True)):
                for name in ("max", "min"):
                    want = getattr(np, name)(x, axis=axis, keepdims=keepdims)
                    got = getattr(np, name)(tl.tensor(x), axis=axis,
                                            keepdims=keepdims).cpu().numpy()
                    assert got.shape == want.shape and got.dtype == want.dtype
                    np.testing.assert_array_equal(np.signbit(got), np.signbit(want),
                                                  err_msg=f"{name} axis={axis}")


# ---- finfo(bfloat16) printed as NumPy prints it -------------------------------------------

class _Scalar(float):
    """A bfloat16 scalar as ml_dtypes prints it (C++'s stream: 6 digits)."""

    def __str__(self):
        return f"{float(self):g}"


def _bits(word):
    """The bfloat16 of a 16-bit pattern, as a float (its float32 widening)."""
    return float(np.array([word << 16], dtype=np.uint32).view(np.float32)[0])


def test_finfo_of_bfloat16_prints_as_numpys_finfo():
    # NumPy's own finfo formatting run on the values of bfloat16, each from
    # its bit pattern (the resolution is 0.01 rounded to bfloat16, as
    # NumPy's float16's is 0.001 rounded to float16)
    values = dict(precision=2, machep=-7, negep=-8, minexp=-126, maxexp=128, nexp=8,
                  eps=_Scalar(_bits(0x3C00)), epsneg=_Scalar(_bits(0x3B80)),
                  tiny=_Scalar(_bits(0x0080)), smallest_normal=_Scalar(_bits(0x0080)),
                  smallest_subnormal=_Scalar(_bits(0x0001)), max=_Scalar(_bits(0x7F7F)),
                  min=_Scalar(_bits(0xFF7F)),
                  resolution=_Scalar(float(tl.tensor(0.01, dtype=tl.bfloat16))))
    dtype = type("dtype", (), {"type": None, "__str__": lambda self: "bfloat16"})()
    stand_in = type("finfo", (), {})()
    stand_in.__dict__.update(values, dtype=dtype)
    info = tnp.finfo(tnp.bfloat16)
    assert repr(info) == np.finfo.__repr__(stand_in)
    assert str(info) == np.finfo.__str__(stand_in)
    for name in ("eps", "epsneg", "tiny", "smallest_normal", "smallest_subnormal", "max",
                 "min", "resolution"):
        assert getattr(info, name) == values[name], name
    for dtype in (tnp.float16, tnp.float32, tnp.float64):
        assert repr(tnp.finfo(dtype)) == repr(np.finfo(np.dtype(dtype.name)))
        assert str(tnp.finfo(dtype)) == str(np.finfo(np.dtype(dtype.name)))


# ---- fftfreq / rfftfreq given odd n ----------------------------------------------------

@pytest.mark.parametrize("name", ["fftfreq", "rfftfreq"])
def test_fft_frequencies_take_n_as_numpy(name):
    # 0 (ZeroDivisionError with a Python spacing, no bins with a NumPy one),
    # negative (fftfreq's empty(n) refuses, rfftfreq has no bins), non-integer
    # (ValueError), bools, NumPy integers (an unsigned n wraps -(n // 2))
    ns = [0, -1, -2, -3, 1, 2, 5, 2.5, 2.0, True, False, np.int32(4), np.uint8(5),
          np.uint16(6), np.int64(0), np.int8(-3), np.float64(4.0), None, "4", np.array(4),
          [4], np.bool_(True)]
    spacings = [1.0, 0.5, np.float64(1.0), np.float32(0.5), 2, np.int64(3)]
    for n, d in itertools.product(ns, spacings):
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", RuntimeWarning)  # NumPy's 1 / 0.0
            expected = _outcome(lambda: getattr(np.fft, name)(n, d))
            outcome = _outcome(lambda: getattr(tnp.fft, name)(n, d))
        assert outcome[0] == expected[0], (n, d, outcome, expected)
        if expected[0] == "raises":
            assert issubclass(outcome[1], expected[1]), (n, d)
        else:
            got = outcome[1].cpu().numpy()
            assert got.dtype == expected[1].dtype, (n, d)
            np.testing.assert_allclose(got, expected[1], rtol=1e-15, err_msg=f"{n!r}, {d!r}")
