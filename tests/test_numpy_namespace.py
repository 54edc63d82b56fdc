"""torchlike.numpy: the NumPy-style namespace and Array API standard namespace.

Most checks run the same idiom with ``xp=numpy`` on ndarrays and with
``xp=torchlike.numpy`` on tensors holding the same values, and compare values,
dtypes and shapes.  The conformance suite itself (data-apis/array-api-tests)
runs through scripts/array_api_tests.sh."""
import operator

import numpy as np
import pytest

import torchlike as tl
import torchlike.numpy as tnp
from oracle import assert_close

RNG = np.random.default_rng(1)
A = RNG.standard_normal((3, 4))
I = np.arange(-6, 6, dtype=np.int64).reshape(3, 4)
C = A + 1j * A[::-1]
BOOL = A > 0


def _same(got, want):
    if isinstance(want, (tuple, list)):
        assert len(got) == len(want)
        for g, w in zip(got, want):
            _same(g, w)
    elif isinstance(want, (np.ndarray, np.generic)):
        assert_close(got, np.asarray(want))
    else:
        assert got == want


IDIOMS = [
    ("sum_axis", lambda xp, a: xp.sum(a, axis=1)),
    ("sum_keepdims_dtype", lambda xp, a: xp.sum(a, axis=0, keepdims=True, dtype=xp.float32)),
    ("mean_tuple_axis", lambda xp, a: xp.mean(a, axis=(0, 1))),
    ("std_ddof", lambda xp, a: xp.std(a, ddof=1)),
    ("var_correction", lambda xp, a: xp.var(a, axis=0, correction=1)),
    ("max_min", lambda xp, a: (xp.max(a, axis=0), xp.min(a))),
    ("argmax_keepdims", lambda xp, a: xp.argmax(a, axis=1, keepdims=True)),
    ("cumulative_sum", lambda xp, a: xp.cumulative_sum(a, axis=1)),
    ("cumulative_sum_initial", lambda xp, a: xp.cumulative_sum(a, axis=0,
                                                                 include_initial=True)),
    ("cumulative_prod", lambda xp, a: xp.cumulative_prod(a[0])),
    ("sin_exp", lambda xp, a: xp.sin(xp.exp(a))),
    ("arccos_names", lambda xp, a: (xp.arccos(a / 10), xp.acos(a / 10))),
    ("power_pow", lambda xp, a: (xp.power(xp.abs(a), 1.5), xp.pow(xp.abs(a), 2))),
    ("where_scalar", lambda xp, a: xp.where(a > 0, a, 0.0)),
    ("clip", lambda xp, a: xp.clip(a, -0.5, 0.5)),
    ("round", lambda xp, a: xp.round(a * 100)),
    ("sign", lambda xp, a: xp.sign(a)),
    ("logaddexp", lambda xp, a: xp.logaddexp(a, a[::-1])),
    ("reshape_transpose", lambda xp, a: xp.transpose(xp.reshape(a, (2, 6)))),
    ("permute_dims", lambda xp, a: xp.permute_dims(xp.reshape(a, (2, 3, 2)), (2, 0, 1))),
    ("concat_stack", lambda xp, a: (xp.concat([a, a], axis=0), xp.stack([a, a], axis=1))),
    ("expand_squeeze", lambda xp, a: xp.squeeze(xp.expand_dims(a, axis=0), axis=0)),
    ("flip_roll", lambda xp, a: (xp.flip(a, axis=1), xp.roll(a, 1, axis=0))),
    ("tile_repeat", lambda xp, a: (xp.tile(a, (2, 1)), xp.repeat(a, 2, axis=1))),
    ("sort_argsort", lambda xp, a: (xp.sort(a, axis=0), xp.argsort(a[0]))),
    ("searchsorted", lambda xp, a: xp.searchsorted(xp.sort(a[0]), a[1])),
    ("unique_values", lambda xp, a: xp.unique_values(xp.round(a))),
    ("nonzero", lambda xp, a: xp.nonzero(a > 0)),
    ("matmul_tensordot", lambda xp, a: (xp.matmul(a, a.T), xp.tensordot(a, a, axes=2))),
    ("vecdot", lambda xp, a: xp.vecdot(a, a)),
    ("linalg", lambda xp, a: (xp.linalg.inv(a[:, :3] + 3 * xp.eye(3)),
                              xp.linalg.det(a[:, :3]), xp.linalg.svdvals(a))),
    ("linalg_norms", lambda xp, a: (xp.linalg.vector_norm(a, axis=1),
                                    xp.linalg.matrix_norm(a, ord="nuc"))),
    ("fft", lambda xp, a: (xp.fft.fft(a), xp.fft.rfft(a, axis=0), xp.fft.ifft(a, n=6))),
    ("fftn", lambda xp, a: xp.fft.irfftn(xp.fft.rfftn(a))),
    ("fftfreq", lambda xp, a: (xp.fft.fftfreq(5), xp.fft.rfftfreq(8, d=0.5),
                               xp.fft.fftshift(a), xp.fft.ifftshift(a, axes=1))),
    ("diff", lambda xp, a: xp.diff(a, axis=0)),
    ("isclose", lambda xp, a: xp.isclose(a, a + 1e-12)),
    ("quantile", lambda xp, a: xp.quantile(a, 0.25, axis=1)),
    ("median", lambda xp, a: xp.median(a)),
    ("nanmean", lambda xp, a: xp.nanmean(xp.where(a > 1, xp.nan, a), axis=0)),
    ("through_numpy_cov", lambda xp, a: xp.cov(a)),
    ("through_numpy_trapezoid", lambda xp, a: xp.trapezoid(a, axis=1)),
]


# No FFT kernel on devices yet (docs/gpu.md): these run on the host only.
NO_DEVICE_KERNEL = {"fft", "fftn"}


@pytest.mark.parametrize("name, fn", [
    pytest.param(*i, marks=pytest.mark.host_only) if i[0] in NO_DEVICE_KERNEL else i
    for i in IDIOMS], ids=[i[0] for i in IDIOMS])
def test_idioms_match_numpy(name, fn):
    want = fn(np, A.copy())
    got = fn(tnp, tnp.asarray(A.copy()))
    _same(got, want)


def test_integer_and_complex_idioms():
    for fn in (lambda xp, a: xp.sum(a, axis=0), lambda xp, a: xp.floor_divide(a, 4),
               lambda xp, a: xp.remainder(a, -4), lambda xp, a: xp.bitwise_and(a, 3),
               lambda xp, a: xp.bitwise_invert(a), lambda xp, a: xp.mean(a)):
        _same(fn(tnp, tnp.asarray(I)), fn(np, I))
    for fn in (lambda xp, z: xp.real(z), lambda xp, z: xp.imag(z), lambda xp, z: xp.conj(z),
               lambda xp, z: xp.abs(z), lambda xp, z: xp.sign(z)):
        _same(fn(tnp, tnp.asarray(C)), fn(np, C))


def test_numpy_default_dtypes():
    assert tnp.asarray([1.5]).dtype == tnp.float64
    assert tnp.asarray([1, 2]).dtype == tnp.int64
    assert tnp.asarray([True]).dtype == tnp.bool
    assert tnp.asarray([1j]).dtype == tnp.complex128
    assert tnp.zeros(3).dtype == tnp.ones((2, 2)).dtype == tnp.empty(1).dtype == tnp.float64
    assert tnp.full((2,), 1).dtype == tnp.int64
    assert tnp.full((2,), 1.0).dtype == tnp.float64
    assert tnp.full((2,), False).dtype == tnp.bool
    assert tnp.arange(5).dtype == tnp.int64
    assert tnp.eye(2).dtype == tnp.linspace(0, 1, 3).dtype == tnp.float64
    assert_close(tnp.arange(0.0, 1.0, 0.3), np.arange(0.0, 1.0, 0.3))
    assert_close(tnp.linspace(2, 3, 4, endpoint=False), np.linspace(2, 3, 4, endpoint=False))
    assert_close(tnp.eye(3, 4, k=-1, dtype="int32"), np.eye(3, 4, k=-1, dtype=np.int32))


@pytest.mark.parametrize("dtype", [np.float32, "float32", np.dtype("float32"), tnp.float32,
                                   tl.float32])
def test_dtype_arguments_accept_numpy_spellings(dtype):
    assert tnp.zeros(2, dtype=dtype).dtype == tl.float32
    assert tnp.asarray([1, 2], dtype=dtype).dtype == tl.float32
    assert tnp.sum(tnp.asarray([1, 2]), dtype=dtype).dtype == tl.float32
    assert tnp.astype(tnp.asarray([1, 2]), tnp.float32).dtype == tl.float32


def test_dtype_objects_are_torchlike_dtypes():
    x = tnp.asarray(A, dtype=tnp.float32)
    assert x.dtype == tnp.float32 == tl.float32
    assert np.dtype(tnp.float64) == np.float64
    assert tnp.int64.kind == "i"
    assert tnp.pi == np.pi and tnp.e == np.e and tnp.inf == np.inf and tnp.nan != tnp.nan
    assert tnp.newaxis is None
    assert tnp.asarray(A)[tnp.newaxis].shape == (1, 3, 4)


@pytest.mark.host_only  # zero-copy sharing of host memory
def test_asarray_copy_and_sharing():
    a = np.arange(4.0)
    shared = tnp.asarray(a)
    a[0] = 10.0
    assert shared[0].item() == 10.0
    copied = tnp.asarray(a, copy=True)
    a[1] = 20.0
    assert copied[1].item() == 1.0
    t = tnp.asarray([1.0, 2.0])
    assert tnp.asarray(t) is t
    with pytest.raises(ValueError, match="copy"):
        tnp.asarray(t, dtype=tnp.float32, copy=False)
    with pytest.raises(ValueError, match="copy"):
        tnp.asarray([1, 2], copy=False)
    assert tnp.asarray(t, copy=True) is not t


def test_device_placement():
    t = tnp.asarray([1.0, 2.0], device="cpu")
    assert t.device == tl.device("cpu")
    assert t.to_device("cpu") is t
    assert tnp.zeros(2, device=t.device).device == t.device
    info = tnp.__array_namespace_info__()
    assert info.default_device() == tl.device("cpu")
    assert tl.device("cpu") in info.devices()
    assert info.default_dtypes()["real floating"] == tnp.float64
    assert info.default_dtypes()["integral"] == tnp.int64
    assert set(info.dtypes(kind="complex floating").values()) == {tnp.complex64,
                                                                  tnp.complex128}
    assert info.capabilities()["boolean indexing"] is True


def test_array_namespace_protocol():
    t = tl.ones(2)
    assert t.__array_namespace__() is tnp
    assert t.__array_namespace__(api_version="2023.12") is tnp
    with pytest.raises(ValueError, match="version"):
        t.__array_namespace__(api_version="1999.01")
    assert tnp.__array_api_version__ == "2025.12"


def test_array_api_compat_recognises_the_namespace():
    compat = pytest.importorskip("scipy._lib.array_api_compat")
    assert compat.is_array_api_obj(tl.ones(2))
    assert compat.array_namespace(tl.ones(2), tl.zeros(3)) is tnp


def test_data_type_functions():
    assert tnp.isdtype(tnp.float32, "real floating")
    assert tnp.isdtype(tnp.int8, ("bool", "signed integer"))
    assert not tnp.isdtype(tnp.uint8, "signed integer")
    assert tnp.isdtype(tnp.complex64, tnp.complex64)
    assert tnp.finfo(tnp.float32).eps == np.finfo(np.float32).eps
    assert tnp.finfo(tnp.complex128).dtype == tnp.float64
    assert tnp.iinfo(tnp.int16).max == 32767
    assert tnp.result_type(tnp.int8, tnp.uint8) == tnp.int16
    assert tnp.result_type(tnp.asarray([1], dtype=tnp.float32), 1.0) == tnp.float32
    assert tnp.can_cast(tnp.int32, tnp.float64)
    assert not tnp.can_cast(tnp.float64, tnp.int32)
    with pytest.raises(ValueError):
        tnp.finfo(tnp.int32)


def test_in_place_operators_and_scalar_conversions():
    x = tnp.asarray([1.0, 2.0, 3.0])
    y = x
    x += 1
    x *= 2
    x -= tnp.asarray([1.0, 1.0, 1.0])
    x /= 2
    assert y is x
    assert_close(x, np.array([1.5, 2.5, 3.5]))
    i = tnp.asarray([5, 6])
    i //= 2
    i %= 2
    i <<= 1
    i |= 1
    assert_close(i, np.array([1, 3]))
    assert operator.index(tnp.asarray(3)) == 3
    with pytest.raises(TypeError):
        operator.index(tnp.asarray(3.0))
    assert float(tnp.asarray(2.5)) == 2.5 and int(tnp.asarray(7)) == 7
    assert bool(tnp.asarray(1)) is True
    with pytest.raises((ValueError, RuntimeError)):
        bool(tnp.asarray([1, 2]))


def test_random_generator_is_seeded():
    a = tnp.random.default_rng(123).standard_normal((2, 3))
    b = tnp.random.default_rng(123).standard_normal((2, 3))
    assert a.dtype == tnp.float64 and tuple(a.shape) == (2, 3)
    assert bool(tnp.all(a == b))
    g = tnp.random.default_rng(5)
    u = g.random(1000)
    assert 0.0 <= float(tnp.min(u)) and float(tnp.max(u)) < 1.0
    k = g.integers(3, 7, size=500)
    assert k.dtype == tnp.int64 and int(tnp.min(k)) >= 3 and int(tnp.max(k)) < 7
    p = g.permutation(10)
    assert_close(tnp.sort(p), np.arange(10))
    c = g.choice(5, size=(4,), replace=False)
    assert len(set(c.tolist())) == 4
    tnp.random.seed(0)
    first = tnp.random.rand(3)
    tnp.random.seed(0)
    assert bool(tnp.all(first == tnp.random.rand(3)))


@pytest.mark.host_only  # no FFT kernel on devices yet (docs/gpu.md)
def test_fft_keeps_single_precision():
    x = tnp.asarray(A, dtype=tnp.float32)
    assert tnp.fft.fft(x).dtype == tnp.complex64
    assert tnp.fft.irfft(tnp.fft.rfft(x)).dtype == tnp.float32
    assert_close(tnp.fft.fft(x), np.fft.fft(A.astype(np.float32)).astype(np.complex64))


@pytest.mark.parametrize("name", ["fftfreq", "rfftfreq"])
def test_fft_frequencies_take_numpys_spacings(name):
    # a float32 spacing (0-d array, NumPy scalar) rounds 1 / (n d) in float32
    # before the float64 product, as NumPy's; it was divided in float64.  A
    # complex spacing gives complex128 (its imaginary part was dropped with a
    # ComplexWarning), an integer one float64, a Python 0 ZeroDivisionError
    ours, theirs = getattr(tnp.fft, name), getattr(np.fft, name)
    for n, d in [(8, np.asarray(0.1, np.float32)), (7, np.float32(0.3)), (9, np.asarray(0.1)),
                 (np.int32(7), np.float32(0.5)), (6, np.asarray(2)), (5, 0.5j),
                 (4, np.complex64(0.25 + 1j)), (6, np.asarray([0.5], np.float16)),
                 (1, np.asarray(0.25)), (6, 3)]:
        want = theirs(n, d)
        got = ours(n, tnp.asarray(d) if isinstance(d, np.ndarray) else d)
        assert got.dtype == want.dtype and tuple(got.shape) == want.shape, (n, d)
        np.testing.assert_array_equal(got.cpu().numpy(), want, err_msg=f"{name}({n}, {d!r})")
        if not (isinstance(d, np.ndarray) and d.ndim and tl.empty(0).device.type != "cpu"):
            # a host spacing (an ndarray of spacings is host memory, refused on a device)
            np.testing.assert_array_equal(ours(n, d).cpu().numpy(), want)
    with pytest.raises(ZeroDivisionError):
        theirs(4, 0.0)
    with pytest.raises(ZeroDivisionError):
        ours(4, 0.0)
    # a spacing held as a 0-d tensor that is zero: inf and NaN, as NumPy's 0-d array
    with np.errstate(divide="ignore", invalid="ignore"):
        want = theirs(4, np.asarray(0.0))
    np.testing.assert_array_equal(ours(4, tnp.asarray(0.0)).cpu().numpy(), want)
    # a count computed by the program (a 0-d integer tensor) is NumPy's integer
    # scalar; a float count is refused, as NumPy refuses it
    np.testing.assert_array_equal(ours(tnp.asarray(6), tnp.asarray(0.5)).cpu().numpy(),
                                  theirs(np.int64(6), 0.5))
    with pytest.raises(ValueError):
        ours(tnp.asarray(6.0))
    assert ours(4, tnp.asarray(0.5, dtype=tnp.float32), dtype=tnp.float32).dtype == tnp.float32
    # fuzzing: an integer spacing array multiplies n in its own dtype first, so
    # NumPy's product wraps (8 * int8 100 is 32; 2 * int8 -128 is 0, an
    # infinite reciprocal); it was made float64 before the product
    for n, d in [(8, np.asarray([100], np.int8)), (2, np.asarray(-128, np.int8)),
                 (5, np.asarray([200], np.uint8)), (3, np.asarray([True]))]:
        with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
            want = theirs(n, d)
        got = ours(n, tnp.asarray(d))
        assert got.dtype == want.dtype, (n, d)
        np.testing.assert_array_equal(got.cpu().numpy(), want, err_msg=f"{name}({n}, {d!r})")


def test_numpy_functions_not_listed_come_through_dispatch():
    assert_close(tnp.cov(tnp.asarray(A)), np.cov(A))
    assert_close(tnp.polyval(tnp.asarray([1.0, 2.0]), tnp.asarray(A)),
                 np.polyval([1.0, 2.0], A))
    with pytest.raises(AttributeError):
        tnp.no_such_function


def test_bad_input_raises_numpy_exceptions():
    t = tnp.asarray(A)
    with pytest.raises(np.exceptions.AxisError, match="axis 2 is out of bounds"):
        tnp.sum(t, axis=2)
    with pytest.raises(np.exceptions.AxisError):
        tnp.concat([t, t], axis=-3)
    with pytest.raises(TypeError, match="unexpected keyword"):
        tnp.mean(t, axes=1)
    with pytest.raises(TypeError, match="data type"):
        tnp.zeros(2, dtype="float99")
    with pytest.raises(ValueError, match="same shape"):
        tnp.stack([t, t[:2]])
    with pytest.raises(ValueError, match="must be in the range"):
        tnp.quantile(t, 2.0)


def test_broadcast_shapes_is_numpys():
    import torchlike.numpy as tnp
    for shapes in [((2, 3), (3,)), (), ((1,),), (5, (1,)), ((0, 1), (4,)), ((2, 1, 3), (4, 1))]:
        assert tnp.broadcast_shapes(*shapes) == np.broadcast_shapes(*shapes)
        assert type(tnp.broadcast_shapes(*shapes)) is tuple
    with pytest.raises(ValueError, match="cannot be broadcast"):
        tnp.broadcast_shapes((2, 3), (4,))
