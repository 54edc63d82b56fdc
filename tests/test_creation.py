"""Creation functions against NumPy's values and PyTorch's documented dtypes.

tensor / as_tensor / from_numpy (inference, copying, sharing), zeros / ones /
empty / full and their _like forms, empty_strided, arange, linspace, logspace,
eye, and how set_default_dtype changes the defaults."""
import numpy as np
import pytest

import torchlike as tl
from oracle import FLOAT_DTYPES, INT_DTYPES, assert_close, cuda_test_devices, device_array, \
    host_array, run_emulated  # noqa: F401

DEVICES, EMULATED = cuda_test_devices()


@pytest.fixture
def default_float64():
    tl.set_default_dtype(tl.float64)
    try:
        yield
    finally:
        tl.set_default_dtype(tl.float32)


# ---- tensor: dtype inference --------------------------------------------------

@pytest.mark.parametrize("data, dtype", [
    ([1, 2], tl.int64), ([1.5], tl.float32), ([True, False], tl.bool),
    ([1 + 2j], tl.complex64), ([1, 2.5], tl.float32), ([True, 2], tl.int64),
    ([[1, 2], [3, 4]], tl.int64), (3, tl.int64), (3.5, tl.float32), (True, tl.bool),
    (1j, tl.complex64), ([], tl.float32), ([[], []], tl.float32),
])
def test_tensor_infers_pytorch_dtypes(data, dtype):
    t = tl.tensor(data)
    assert t.dtype == dtype
    np.testing.assert_array_equal(t.cpu().numpy(), np.array(data, dtype=t.cpu().numpy().dtype))
    assert tuple(t.shape) == np.shape(data)


@pytest.mark.parametrize("npdt", [np.bool_, np.uint8, np.int8, np.int16, np.int32, np.int64,
                                  np.float16, np.float32, np.float64, np.complex64,
                                  np.complex128])
def test_tensor_keeps_ndarray_dtype(npdt):
    a = np.arange(6).reshape(2, 3).astype(npdt)
    t = tl.tensor(a)
    assert t.cpu().numpy().dtype == a.dtype
    np.testing.assert_array_equal(t.cpu().numpy(), a)


def test_tensor_copies_its_input():
    a = np.arange(3.0)
    t = tl.tensor(a)
    a[0] = 99
    assert t[0].item() == 0
    u = tl.tensor([1, 2])
    with pytest.warns(UserWarning, match="To copy construct from a tensor"):  # as PyTorch
        v = tl.tensor(u)
    v[0] = 5
    assert u.tolist() == [1, 2] and v.tolist() == [5, 2]


def test_tensor_dtype_argument_casts():
    assert tl.tensor([1, 2], dtype=tl.float16).dtype == tl.float16
    assert tl.tensor([1.7, -1.7], dtype=tl.int32).tolist() == [1, -1]
    assert tl.tensor(np.arange(3), dtype=tl.float64).dtype == tl.float64
    assert tl.tensor(data=[1, 2]).tolist() == [1, 2]


@pytest.mark.parametrize("data, dtype", [
    ([np.float64(1.5)], tl.float64), ([1.5, np.float64(2)], tl.float64),
    ([np.float32(1.5), 2.5], tl.float32), ([np.arange(2.0)], tl.float64),
    ([1j, np.complex128(1)], tl.complex128), (np.float64(2.5), tl.float64),
    ((1.5, 2.5), tl.float32), ([[1.5], [2.5]], tl.float32),
])
def test_tensor_keeps_numpy_double_precision(data, dtype):
    # Only plain Python floats take the default dtype, as in PyTorch.
    assert tl.tensor(data).dtype == dtype


def test_tensor_from_list_of_tensors():
    t = tl.tensor([tl.tensor(1.5), tl.tensor(2.5)])
    assert t.dtype == tl.float32 and t.tolist() == [1.5, 2.5]
    t = tl.tensor([tl.tensor([1, 2]), tl.tensor([3, 4])])
    assert t.dtype == tl.int64 and t.shape == (2, 2)
    assert tl.tensor([tl.tensor(1.5, dtype=tl.float64)]).dtype == tl.float64
    assert tl.tensor([tl.tensor(1, dtype=tl.int16)]).dtype == tl.int16


@pytest.mark.parametrize("bad, exc", [
    ([[1, 2], [3]], ValueError), ([[1], 2], ValueError), ("abc", TypeError),
    ([1, "a"], TypeError), ({"a": 1}, TypeError), (2 ** 70, OverflowError),
])
def test_tensor_rejects_bad_data(bad, exc):
    with pytest.raises(exc):
        tl.tensor(bad)


def test_tensor_argument_errors():
    with pytest.raises(TypeError):
        tl.tensor()
    with pytest.raises(TypeError):
        tl.tensor([1], [2])
    with pytest.raises(TypeError, match="unexpected keyword"):
        tl.tensor([1], bogus=1)
    assert tl.tensor([1.0], requires_grad=True).requires_grad
    with pytest.raises(RuntimeError, match="floating point and complex"):
        tl.tensor([1], requires_grad=True)
    assert tl.tensor([1.0], requires_grad=False).dtype == tl.float32
    with pytest.raises(RuntimeError, match="cuda"):
        tl.tensor([1.0], device="cuda")
    assert tl.tensor([1.0], device="cpu").device.type == "cpu"


# ---- as_tensor / from_numpy: memory sharing -----------------------------------

@pytest.mark.host_only  # zero-copy sharing with an ndarray
def test_as_tensor_shares_ndarray_memory():
    a = np.arange(4, dtype=np.int16)
    t = tl.as_tensor(a)
    assert t.dtype == tl.int16
    a[0] = 42
    assert t[0].item() == 42
    f = np.arange(3.0)
    assert tl.as_tensor(f).dtype == tl.float64  # ndarrays keep their dtype


def test_as_tensor_returns_tensor_itself():
    t = tl.tensor([1, 2])
    assert tl.as_tensor(t) is t
    assert tl.as_tensor(t, dtype=tl.int64) is t
    c = tl.as_tensor(t, dtype=tl.float64)
    assert c.dtype == tl.float64 and c.tolist() == [1.0, 2.0]
    assert tl.as_tensor(t, tl.float32).dtype == tl.float32


def test_as_tensor_converts_when_needed():
    a = np.arange(3, dtype=np.int32)
    t = tl.as_tensor(a, dtype=tl.float32)
    a[0] = 7
    assert t[0].item() == 0.0
    assert tl.as_tensor([1.5, 2]).dtype == tl.float32
    assert tl.as_tensor(2.5).dtype == tl.float32


def test_from_numpy_shares_both_ways():
    a = np.zeros((2, 3), dtype=np.float32)
    t = tl.from_numpy(a)
    t[0, 1] = 5
    assert a[0, 1] == 5
    a[1, 2] = 7
    assert t[1, 2].item() == 7
    r = tl.from_numpy(a[:, ::-1])
    np.testing.assert_array_equal(r.numpy(), a[:, ::-1])
    with pytest.raises(TypeError, match="ndarray"):
        tl.from_numpy([1, 2])


# ---- zeros / ones / empty / full ------------------------------------------------

@pytest.mark.parametrize("fn, npfn", [(tl.zeros, np.zeros), (tl.ones, np.ones)])
@pytest.mark.parametrize("shape", [(), (0,), (3,), (2, 3), (2, 0, 4)])
def test_zeros_ones_values_and_shapes(fn, npfn, shape):
    for t in (fn(*shape), fn(shape), fn(list(shape)), fn(size=shape), fn(tl.Size(shape))):
        assert t.dtype == tl.float32
        assert_close(t, npfn(shape, dtype=np.float32))


@pytest.mark.parametrize("dtype", ["bool", "uint8", "int32", "int64", "float16", "bfloat16",
                                   "float64", "complex64", "complex128"])
def test_zeros_ones_dtypes(dtype):
    d = getattr(tl, dtype)
    assert tl.zeros(2, 2, dtype=d).dtype == d
    t = tl.ones(3, dtype=d)
    assert t.dtype == d
    host = t.to(tl.float64).cpu() if dtype == "bfloat16" else t.cpu()
    np.testing.assert_array_equal(host.numpy(), np.ones(3))


def test_empty_has_shape_and_dtype():
    t = tl.empty(2, 3, dtype=tl.int16)
    assert t.shape == (2, 3) and t.dtype == tl.int16 and t.is_contiguous()
    assert tl.empty(()).shape == ()
    assert tl.empty(0).numel() == 0


@pytest.mark.parametrize("value, dtype", [(3, tl.int64), (3.0, tl.float32), (True, tl.bool),
                                          (1 + 1j, tl.complex64), (np.float64(2.5), tl.float32),
                                          (tl.tensor(4), tl.int64)])
def test_full_infers_dtype_from_value(value, dtype):
    t = tl.full((2, 2), value)
    assert t.dtype == dtype
    value = value.item() if isinstance(value, tl.Tensor) else value   # NumPy's side: a number
    np.testing.assert_array_equal(t.cpu().numpy(), np.full((2, 2), complex(value) if dtype ==
                                                           tl.complex64 else value))


def test_full_forms_and_dtype():
    assert tl.full((2,), fill_value=7).tolist() == [7, 7]
    assert tl.full(size=(2,), fill_value=7).tolist() == [7, 7]
    assert tl.full([3], 2.9, dtype=tl.int32).tolist() == [2, 2, 2]
    assert tl.full((), -1).shape == ()
    with pytest.raises(TypeError, match="fill_value"):
        tl.full((2,), "x")
    with pytest.raises(TypeError):
        tl.full((2,))


def test_default_dtype_changes_defaults(default_float64):
    assert tl.get_default_dtype() == tl.float64
    assert tl.tensor([1.5]).dtype == tl.float64
    assert tl.tensor(1.5).dtype == tl.float64
    assert tl.tensor([1j]).dtype == tl.complex128
    assert tl.tensor([1, 2]).dtype == tl.int64
    assert tl.zeros(2).dtype == tl.float64
    assert tl.ones(2).dtype == tl.float64
    assert tl.empty(2).dtype == tl.float64
    assert tl.full((2,), 1.5).dtype == tl.float64
    assert tl.arange(0, 1, 0.5).dtype == tl.float64
    assert tl.arange(3).dtype == tl.int64
    assert tl.linspace(0, 1, 3).dtype == tl.float64
    assert tl.eye(2).dtype == tl.float64
    assert tl.as_tensor([0.5]).dtype == tl.float64


def test_default_dtype_is_restored_and_checked():
    assert tl.get_default_dtype() == tl.float32
    with pytest.raises(TypeError):
        tl.set_default_dtype(tl.int64)
    assert tl.get_default_dtype() == tl.float32


@pytest.mark.parametrize("fn", [tl.zeros, tl.ones, tl.empty])
def test_sizes_errors(fn):
    with pytest.raises(RuntimeError, match="Dimension size must be non-negative|negative "
                                           r"dimension -1: \[2, -1\]"):
        fn(2, -1)
    with pytest.raises(TypeError):
        fn(2.5)
    with pytest.raises(TypeError):
        fn((2, 1.5))
    with pytest.raises(TypeError):
        fn("3")
    with pytest.raises(TypeError):
        fn(True)
    with pytest.raises(RuntimeError, match="Storage size calculation overflowed"):
        fn(2 ** 40, 2 ** 40)
    with pytest.raises(TypeError, match="size"):
        fn(2, size=(2,))
    made = fn(2, requires_grad=True, dtype=tl.float64)
    assert made.requires_grad and made.is_leaf
    with pytest.raises(TypeError, match="unexpected keyword"):
        fn(2, bogus=3)


def test_out_argument():
    out = tl.empty(2, 3)
    r = tl.zeros(2, 3, out=out)
    assert r is out and out.tolist() == [[0.0] * 3] * 2
    iout = tl.empty(3, dtype=tl.int32)
    assert tl.ones(3, out=iout).tolist() == [1, 1, 1]
    assert tl.arange(3, out=tl.empty(3)).tolist() == [0.0, 1.0, 2.0]
    with pytest.raises(RuntimeError, match=r"\[3\]"):
        tl.zeros(2, out=tl.empty(3))
    with pytest.raises(TypeError, match="dtype"):
        tl.zeros(2, dtype=tl.float64, out=tl.empty(2))
    with pytest.raises(TypeError, match="out"):
        tl.zeros(2, out=np.zeros(2))


# ---- _like ----------------------------------------------------------------------

@pytest.mark.parametrize("dtype", ["bool", "int32", "float16", "float64", "complex64"])
def test_like_forms_keep_shape_and_dtype(dtype):
    src = tl.ones(2, 3, dtype=getattr(tl, dtype))
    for fn, expect in [(tl.zeros_like, 0), (tl.ones_like, 1)]:
        t = fn(src)
        assert t.shape == (2, 3) and t.dtype == src.dtype
        host = t.cpu().numpy()
        np.testing.assert_array_equal(host, np.full((2, 3), expect).astype(host.dtype))
    e = tl.empty_like(src)
    assert e.shape == (2, 3) and e.dtype == src.dtype
    f = tl.full_like(src, 1)
    assert f.dtype == src.dtype and f.shape == (2, 3)


def test_like_forms_arguments():
    src = tl.ones(2, dtype=tl.int32)
    assert tl.full_like(src, 2.7).tolist() == [2, 2]
    assert tl.full_like(src, 2.5, dtype=tl.float32).tolist() == [2.5, 2.5]
    assert tl.full_like(src, fill_value=3).tolist() == [3, 3]
    assert tl.zeros_like(src, dtype=tl.float64).dtype == tl.float64
    assert tl.zeros_like(input=src).shape == (2,)
    assert tl.zeros_like(src[::2]).shape == (1,)
    with pytest.raises(TypeError, match="Tensor"):
        tl.zeros_like(np.zeros(3))
    with pytest.raises(TypeError, match="fill_value"):
        tl.full_like(src)
    assert tl.ones_like(src.double(), requires_grad=True).requires_grad


# ---- empty_strided ---------------------------------------------------------------

def test_empty_strided_layout():
    t = tl.empty_strided((2, 3), (1, 2))
    assert t.shape == (2, 3) and t.stride() == (1, 2) and t.dtype == tl.float32
    assert not t.is_contiguous()
    t.copy_(tl.tensor(np.arange(6.0).reshape(2, 3)))
    np.testing.assert_array_equal(t.cpu().numpy(), np.arange(6.0).reshape(2, 3))
    z = tl.empty_strided((0, 4), (4, 1), dtype=tl.int64)
    assert z.shape == (0, 4) and z.dtype == tl.int64
    assert tl.empty_strided((), ()).shape == ()
    with pytest.raises(RuntimeError, match="strides"):
        tl.empty_strided((2, 3), (1,))
    with pytest.raises(RuntimeError, match="negative"):
        tl.empty_strided((2,), (-1,))


# ---- arange ------------------------------------------------------------------------

@pytest.mark.parametrize("args", [(5,), (0,), (2, 9), (9, 2, -2), (-3, 7, 3), (10, 0, -1),
                                  (1, 1), (0, 10, 100)])
def test_arange_integers(args):
    t = tl.arange(*args)
    assert t.dtype == tl.int64
    np.testing.assert_array_equal(t.cpu().numpy(), np.arange(*args))


@pytest.mark.parametrize("args", [(0.0, 1.0, 0.1), (1, 2.5, 0.5), (-1.0, 1.0, 0.25),
                                  (2.5,), (0, 1, 0.3), (5.0, -5.0, -0.7), (0, 10, 1.5),
                                  (1e-3, 1e-2, 1e-3)])
def test_arange_float_steps_and_lengths(args):
    t = tl.arange(*args)
    assert t.dtype == tl.float32
    expected = np.arange(*args)
    assert t.shape == expected.shape
    assert_close(t, expected.astype(np.float32))
    d = tl.arange(*args, dtype=tl.float64)
    np.testing.assert_allclose(d.cpu().numpy(), expected, rtol=1e-13, atol=1e-13)


@pytest.mark.parametrize("args", [(0, 2**20, 1), (-3.7, 1e4, 0.013), (1e8, 1e8 + 5000, 0.37),
                                  (5, -7, -0.001), (0.1, 0.1 + 37 * 0.2, 0.2)])
def test_arange_float_values_are_start_plus_i_step_in_double(args):
    # each value computed in double and rounded once to the dtype, at every
    # position of the vector loop and its tail (PyTorch's CPU rule)
    start, end, step = args
    for dtype, np_dtype in ((tl.float32, np.float32), (tl.float64, np.float64)):
        got = tl.arange(start, end, step, dtype=dtype).cpu().numpy()
        i = np.arange(got.shape[0], dtype=np.float64)
        np.testing.assert_array_equal(got, (np.float64(start) + i * np.float64(step))
                                      .astype(np_dtype), strict=True)


@pytest.mark.parametrize("dtype", ["int8", "int16", "int32", "int64", "uint8", "float16",
                                   "bfloat16", "float32", "float64"])
def test_arange_dtype(dtype):
    t = tl.arange(10, dtype=getattr(tl, dtype))
    assert t.dtype == getattr(tl, dtype)
    np.testing.assert_array_equal(t.to(tl.float64).cpu().numpy(), np.arange(10.0))


@pytest.mark.parametrize("dtype", ["int8", "int16", "int32", "uint8", "uint16", "uint32",
                                   "uint64", "int64"])
def test_arange_integer_dtypes_wrap_as_numpy(dtype):
    """Values are computed in int64 and narrowed: past the dtype's range they
    wrap, as NumPy's do; a start outside it raises NumPy's OverflowError."""
    import torchlike.numpy as tnp
    for args in [(300,), (120, 130), (3, 700, 7), (0, 7000, 99), (5,), (5, 0, -1),
                 (0, 200, 300)]:
        got = tnp.arange(*args, dtype=dtype)
        assert got.dtype == getattr(tl, dtype)
        np.testing.assert_array_equal(got.cpu().numpy(), np.arange(*args, dtype=dtype))
        np.testing.assert_array_equal(tl.arange(*args, dtype=getattr(tl, dtype)).cpu().numpy(),
                                      np.arange(*args).astype(dtype))
    if dtype.startswith("u"):
        with pytest.raises(OverflowError, match=f"-1 out of bounds for {dtype}"):
            tnp.arange(-1, 3, dtype=dtype)
    if dtype in ("int8", "uint8"):  # the second value, start + step, must fit too
        with pytest.raises(OverflowError, match=f"300 out of bounds for {dtype}"):
            tnp.arange(0, 700, 300, dtype=dtype)


def test_arange_keywords_and_scalars():
    assert tl.arange(end=4).tolist() == [0, 1, 2, 3]
    assert tl.arange(start=1, end=4).tolist() == [1, 2, 3]
    assert tl.arange(1, 8, step=3).tolist() == [1, 4, 7]
    assert tl.arange(np.int64(3)).tolist() == [0, 1, 2]
    assert tl.arange(tl.tensor(3)).tolist() == [0, 1, 2]
    assert tl.arange(np.float32(1.5)).dtype == tl.float32
    assert tl.arange(3, end=4).tolist() == [3]  # as PyTorch: start=3 (create_args.json)
    with pytest.raises(TypeError, match="end"):
        tl.arange()
    with pytest.raises(TypeError, match="end"):
        tl.arange(start=1)
    with pytest.raises(TypeError):
        tl.arange(1, 2, 3, 4)
    with pytest.raises(TypeError, match="number"):
        tl.arange("5")
    with pytest.raises(TypeError, match="real"):
        tl.arange(1j)


def test_arange_integral_dtype_truncates_step():
    # Integral results step by the truncated step, as in PyTorch.
    assert tl.arange(0, 5, 1.5, dtype=tl.int64).tolist() == [0, 1, 2, 3]
    with pytest.raises(RuntimeError, match="nonzero"):
        tl.arange(0, 1, 0.5, dtype=tl.int64)


@pytest.mark.parametrize("args", [(0, 5, 0), (0.0, 1.0, 0.0), (5, 0, 1), (0, 5, -1),
                                  (0.0, -1.0, 0.5), (0, float("inf")), (float("nan"),),
                                  (0, 1e300, 1e-300)])
def test_arange_errors(args):
    with pytest.raises(RuntimeError):
        tl.arange(*args)


# ---- linspace / logspace -------------------------------------------------------------

@pytest.mark.parametrize("start, end, steps", [(0, 1, 5), (-2.5, 3.5, 7), (1, 0, 4), (3, 3, 3),
                                                (0, 10, 1), (0, 10, 0), (0, 1, 100), (-1, 1, 2)])
def test_linspace_matches_numpy(start, end, steps):
    t = tl.linspace(start, end, steps)
    assert t.dtype == tl.float32 and t.shape == (steps,)
    assert_close(t, np.linspace(start, end, steps).astype(np.float32))
    d = tl.linspace(start, end, steps, dtype=tl.float64)
    np.testing.assert_allclose(d.cpu().numpy(), np.linspace(start, end, steps), rtol=1e-14,
                               atol=1e-14)
    if steps > 0:
        assert d[0].item() == start and d[-1].item() == (end if steps > 1 else start)


@pytest.mark.parametrize("dtype", FLOAT_DTYPES + ["complex64", "complex128"])
def test_linspace_dtypes(dtype):
    t = tl.linspace(-1, 1, 9, dtype=getattr(tl, dtype))
    assert t.dtype == getattr(tl, dtype)
    assert_close(t, np.linspace(-1, 1, 9).astype(
        np.complex128 if "complex" in dtype else np.float64), dtype=dtype)


def test_linspace_integral_and_complex():
    assert tl.linspace(0, 10, 6, dtype=tl.int64).tolist() == [0, 2, 4, 6, 8, 10]
    c = tl.linspace(0, 1 + 2j, 3)
    assert c.dtype == tl.complex64
    np.testing.assert_allclose(c.cpu().numpy(), np.linspace(0, 1 + 2j, 3), rtol=1e-6)
    assert tl.linspace(tl.tensor(0.0), tl.tensor(1.0), 3).tolist() == [0.0, 0.5, 1.0]
    assert tl.linspace(start=0, end=1, steps=3).tolist() == [0.0, 0.5, 1.0]
    out = tl.empty(3, dtype=tl.float64)
    assert tl.linspace(0, 1, 3, out=out) is out and out.tolist() == [0.0, 0.5, 1.0]


@pytest.mark.parametrize("fn", [tl.linspace, tl.logspace])
def test_spaced_errors(fn):
    with pytest.raises(RuntimeError, match="steps"):
        fn(0, 1, -1)
    with pytest.raises(TypeError, match="steps"):
        fn(0, 1, 2.5)
    with pytest.raises(TypeError, match="steps"):
        fn(0, 1)
    with pytest.raises(TypeError, match="start"):
        fn("a", 1, 3)
    with pytest.raises(TypeError):
        fn(0, 1, 3, dtype=tl.float64, out=tl.empty(3))


@pytest.mark.parametrize("start, end, steps, base", [(0, 3, 4, 10.0), (-2, 2, 5, 2.0),
                                                      (1, 0, 3, 10.0), (0, 1, 6, np.e),
                                                      (0, 2, 0, 10.0), (2, 2, 1, 3.0)])
def test_logspace_matches_numpy(start, end, steps, base):
    t = tl.logspace(start, end, steps, base=base)
    assert t.dtype == tl.float32 and t.shape == (steps,)
    assert_close(t, np.logspace(start, end, steps, base=base).astype(np.float32))
    d = tl.logspace(start, end, steps, base, dtype=tl.float64)
    np.testing.assert_allclose(d.cpu().numpy(), np.logspace(start, end, steps, base=base),
                               rtol=1e-13)


# ---- eye --------------------------------------------------------------------------------

@pytest.mark.parametrize("n, m", [(0, None), (1, None), (3, None), (2, 4), (4, 2), (3, 0)])
def test_eye_matches_numpy(n, m):
    t = tl.eye(n) if m is None else tl.eye(n, m)
    assert t.dtype == tl.float32
    assert_close(t, np.eye(n, m, dtype=np.float32))


@pytest.mark.parametrize("dtype", ["bool", "int32", "int64", "float16", "bfloat16", "float64",
                                   "complex128"])
def test_eye_dtypes(dtype):
    t = tl.eye(3, dtype=getattr(tl, dtype))
    assert t.dtype == getattr(tl, dtype)
    host = t.to(tl.float64).cpu() if dtype == "bfloat16" else t.cpu()
    np.testing.assert_array_equal(host.numpy(), np.eye(3))


def test_eye_arguments_and_errors():
    assert tl.eye(n=2, m=3).shape == (2, 3)
    assert tl.eye(2, None).shape == (2, 2)
    out = tl.empty(2, 2)
    assert tl.eye(2, out=out) is out
    with pytest.raises(RuntimeError, match="-1"):
        tl.eye(-1)
    with pytest.raises(RuntimeError, match="-2"):
        tl.eye(2, -2)
    with pytest.raises(TypeError):
        tl.eye(2.0)
    with pytest.raises(TypeError):
        tl.eye()


# ---- Tensor.new_* ------------------------------------------------------------------------

def test_new_methods_default_to_self_dtype():
    x = tl.ones(2, dtype=tl.int32)
    z = x.new_zeros(2, 3)
    assert z.dtype == tl.int32 and z.shape == (2, 3) and not z.cpu().numpy().any()
    assert x.new_zeros((4,)).shape == (4,)
    assert x.new_zeros(size=(1, 2)).shape == (1, 2)
    o = x.new_ones(3)
    assert o.dtype == tl.int32 and o.tolist() == [1, 1, 1]
    assert x.new_full((2,), 2.7).tolist() == [2, 2]
    assert x.new_full((2,), 2.5, dtype=tl.float64).tolist() == [2.5, 2.5]
    assert x.new_empty(0, 3).shape == (0, 3) and x.new_empty(1).dtype == tl.int32
    assert x.new_ones(2, dtype=tl.bool).dtype == tl.bool


def test_new_tensor_copies_in_self_dtype():
    x = tl.zeros(1, dtype=tl.float64)
    a = np.array([1, 2], dtype=np.int16)
    t = x.new_tensor(a)
    assert t.dtype == tl.float64 and t.tolist() == [1.0, 2.0]
    a[0] = 9
    assert t[0].item() == 1.0
    i = tl.zeros(1, dtype=tl.int64).new_tensor([1.7, -2.2])
    assert i.dtype == tl.int64 and i.tolist() == [1, -2]
    assert x.new_tensor(3, dtype=tl.int8).dtype == tl.int8
    with pytest.raises(TypeError):
        x.new_tensor()
    assert x.double().new_zeros(2, requires_grad=True).requires_grad


# ---- asarray / scalar_tensor --------------------------------------------------------------

@pytest.mark.host_only  # zero-copy sharing with an ndarray and a memoryview
def test_asarray_copy_modes():
    a = np.arange(3.0)
    shared = tl.asarray(a)
    assert shared.dtype == tl.float64
    copied = tl.asarray(a, copy=True)
    strict = tl.asarray(a, copy=False)
    a[0] = 9
    assert shared[0].item() == 9 and strict[0].item() == 9 and copied[0].item() == 0
    assert tl.asarray([1.5, 2]).dtype == tl.float32
    assert tl.asarray([1, 2], dtype=tl.float64).dtype == tl.float64
    assert tl.asarray(memoryview(np.arange(4, dtype=np.int32)), copy=False).tolist() == [0, 1, 2, 3]
    with pytest.raises(ValueError, match="copy=False"):
        tl.asarray([1, 2], copy=False)
    with pytest.raises(ValueError, match="float32"):
        tl.asarray(a, dtype=tl.float32, copy=False)
    assert tl.asarray(a.astype(np.float64), requires_grad=True).requires_grad


def test_asarray_of_a_tensor():
    t = tl.tensor([1, 2])
    assert tl.asarray(t) is t and tl.asarray(t, copy=False) is t
    c = tl.asarray(t, copy=True)
    c[0] = 5
    assert t.tolist() == [1, 2]
    assert tl.asarray(t, dtype=tl.float32).tolist() == [1.0, 2.0]


def test_scalar_tensor():
    for value in (1, 2.5, True):
        t = tl.scalar_tensor(value)
        assert t.shape == () and t.dtype == tl.float32 and t.item() == float(value)
    assert tl.scalar_tensor(2.7, dtype=tl.int32).item() == 2
    assert tl.scalar_tensor(s=3).item() == 3.0
    with pytest.raises(TypeError):
        tl.scalar_tensor([1, 2])


def test_layout_and_memory_format_arguments():
    import pickle
    assert repr(tl.strided) == "torchlike.strided"
    assert isinstance(tl.strided, tl.layout)
    assert isinstance(tl.channels_last, tl.memory_format)
    assert pickle.loads(pickle.dumps(tl.contiguous_format)) is tl.contiguous_format
    assert tl.zeros(2, layout=tl.strided).layout is tl.strided
    e = tl.empty_like(tl.ones(2, 3), memory_format=tl.preserve_format)
    assert e.shape == (2, 3) and e.is_contiguous()
    assert tl.empty(1, 2, 3, 4, memory_format=tl.channels_last).shape == (1, 2, 3, 4)


# ---- frombuffer ------------------------------------------------------------------------------

def test_frombuffer_shares_memory():
    b = bytearray(np.arange(6, dtype=np.float32).tobytes())
    x = tl.frombuffer(b, dtype=tl.float32)
    assert x.shape == (6,) and x.dtype == tl.float32
    x[0] = 42
    assert np.frombuffer(b, np.float32)[0] == 42
    np.testing.assert_array_equal(tl.frombuffer(b, dtype=tl.int16, count=3, offset=4).numpy(),
                                  np.frombuffer(b, np.int16, count=3, offset=4))
    np.testing.assert_array_equal(tl.frombuffer(b, dtype=tl.float32, offset=8).numpy(),
                                  np.frombuffer(b, np.float32, offset=8))
    ro = tl.frombuffer(bytes(8), dtype=tl.int32)
    assert ro.tolist() == [0, 0]
    with pytest.raises(ValueError, match="read-only"):
        ro[0] = 1


@pytest.mark.parametrize("kwargs, match", [
    (dict(dtype=tl.float32, offset=2), "whole number"), (dict(dtype=tl.float32, count=100), "fit"),
    (dict(dtype=tl.float32, offset=100), "offset"), (dict(dtype=tl.float32, count=0), "0"),
    (dict(dtype=tl.float32, offset=-1), "offset"),
])
def test_frombuffer_errors(kwargs, match):
    with pytest.raises(ValueError, match=match):
        tl.frombuffer(bytearray(24), **kwargs)


def test_frombuffer_argument_errors():
    with pytest.raises(TypeError, match="dtype"):
        tl.frombuffer(bytearray(4))
    with pytest.raises(TypeError):
        tl.frombuffer([1, 2], dtype=tl.int8)
    with pytest.raises(TypeError, match="count"):
        tl.frombuffer(bytearray(4), dtype=tl.int8, count=1.5)
    with pytest.raises(ValueError):
        tl.frombuffer(b"", dtype=tl.int8)


# ---- properties over random arguments ------------------------------------------------------

from hypothesis import given, strategies as st  # noqa: E402

_reals = st.floats(-1e4, 1e4, allow_nan=False, allow_infinity=False)


@given(_reals, _reals, st.floats(1e-2, 1e3) | st.floats(-1e3, -1e-2))
def test_arange_float_property(start, end, step):
    if abs((end - start) / step) > 100_000:
        return
    if (step > 0 and end < start) or (step < 0 and end > start):
        with pytest.raises(RuntimeError):
            tl.arange(start, end, step, dtype=tl.float64)
        return
    expected = np.arange(start, end, step)
    got = tl.arange(start, end, step, dtype=tl.float64).cpu().numpy()
    assert got.shape == expected.shape
    np.testing.assert_allclose(got, expected, rtol=1e-9, atol=1e-9 * max(1.0, abs(start)))


@given(st.integers(-10**6, 10**6), st.integers(-10**6, 10**6),
       st.integers(1, 10**4) | st.integers(-10**4, -1))
def test_arange_int_property(start, end, step):
    if (step > 0 and end < start) or (step < 0 and end > start):
        with pytest.raises(RuntimeError):
            tl.arange(start, end, step)
        return
    np.testing.assert_array_equal(tl.arange(start, end, step).cpu().numpy(),
                                  np.arange(start, end, step))


@given(_reals, _reals, st.integers(0, 300))
def test_linspace_property(start, end, steps):
    got = tl.linspace(start, end, steps, dtype=tl.float64).cpu().numpy()
    expected = np.linspace(start, end, steps)
    np.testing.assert_allclose(got, expected, rtol=1e-12, atol=1e-12 * max(abs(start), abs(end)))
    if steps > 1:
        assert got[0] == start and got[-1] == end


# ---- on a device: as_tensor / asarray / tensor of tensors ---------------------------------

@pytest.mark.parametrize("device", DEVICES)
def test_as_tensor_and_asarray_move_a_tensor_to_device_given(device):
    """As PyTorch: device= moves a tensor (the result is the tensor itself only
    when neither its device nor its dtype changes); without device= it stays
    on its own device, unless a device other than the CPU is the default
    device (the device suites), which set_default_device makes the target."""
    default = tl.get_default_device()
    a = np.array([1.5, -2.0, 3.0])
    host, there = tl.tensor(a, device="cpu"), device_array(device, a)
    for f in (tl.as_tensor, tl.asarray):
        moved = f(host, device=device)
        assert moved.device.type == device and (moved is host) == (device == "cpu")
        np.testing.assert_array_equal(host_array(moved), a)
        back = f(there, device="cpu", dtype=tl.float32)
        assert back.device.type == "cpu" and back.dtype == tl.float32
        np.testing.assert_array_equal(back.numpy(), a.astype(np.float32))
        assert f(there, device=there.device) is there
        if default.type == "cpu" or default == there.device:
            assert f(there) is there
        else:
            assert f(there).device == default


@pytest.mark.parametrize("device", DEVICES)
def test_asarray_copy_false_refuses_another_device(device):
    """copy=False promises a view: a tensor or an ndarray asked for on another
    device raises rather than being copied there (PyTorch's ValueError)."""
    a = np.arange(3.0)
    host = tl.tensor(a, device="cpu")
    if device == "cpu":
        assert tl.asarray(host, device="cpu", copy=False) is host
        assert tl.asarray(a, device="cpu", copy=False).numpy().base is not None
        return
    for obj in (host, a):
        with pytest.raises(ValueError, match=r"can't alias tensor from device 'cpu' to 'fake:0'"
                           if device == "fake" else "can't alias tensor from device 'cpu'"):
            tl.asarray(obj, device=device, copy=False)


@pytest.mark.parametrize("device", DEVICES)
def test_tensor_of_a_list_of_device_tensors(device):
    """tensor([x, y]) with x, y on a device reads them through the host, as
    PyTorch does (NumPy cannot read device memory)."""
    x = device_array(device, np.array([1.5, 2.5], dtype=np.float32))
    i = tl.tensor(3, dtype=tl.int16, device=device)
    t = tl.tensor([x, x * 2], device=device)
    assert t.device.type == device and t.dtype == tl.float32
    np.testing.assert_array_equal(host_array(t), [[1.5, 2.5], [3.0, 5.0]])
    s = tl.tensor((i, 7.0, x[1]), device="cpu")
    assert s.device.type == "cpu" and s.tolist() == [3.0, 7.0, 2.5]
    assert tl.tensor([i, i], device=device).dtype == tl.int16


@pytest.mark.host_only  # it starts its own emulated-device process
@pytest.mark.skipif(EMULATED, reason="this is the emulated run")
def test_device_paths_on_the_emulated_fake_device():
    run_emulated(__file__)


@pytest.mark.parametrize("data, words", [
    ([[1, 2], [3]], "expected sequence of length 2 at dim 1 (got 1)"),
    ([[1, 2], [3, 4, 5]], "expected sequence of length 2 at dim 1 (got 3)"),
    ([[[1], [2]], [[3], [4, 5]]], "expected sequence of length 1 at dim 2 (got 2)"),
    (([1, 2], (3,)), "expected sequence of length 2 at dim 1 (got 1)"),
])
def test_ragged_lists_in_pytorchs_words(data, words):
    # the commonest tensor() mistake; torchlike.numpy keeps NumPy's words
    for make in (tl.tensor, tl.as_tensor):
        with pytest.raises(ValueError) as info:
            make(data)
        assert str(info.value) == words
    import torchlike.numpy as tnp
    with pytest.raises(ValueError, match="inhomogeneous"):
        tnp.asarray(data)
