"""The tensor object itself: dtypes, devices, attributes, conversions, views,
basic indexing and the errors bad input gets.  NumPy is the oracle."""
import pickle

import warnings

import numpy as np
import pytest
from hypothesis import given, strategies as st

import torchlike as tl
from oracle import ALL_DTYPES, NP_DTYPES, SHAPES, TEST_DEVICE, assert_close, random_array, \
    to_tensor


# ---- dtype and device objects -------------------------------------------------------

@pytest.mark.parametrize("name", ALL_DTYPES)
def test_dtype_objects_are_singletons_with_attributes(name):
    d = getattr(tl, name)
    assert isinstance(d, tl.dtype)
    assert repr(d) == f"torchlike.{name}"
    assert d.itemsize == (np.dtype(NP_DTYPES[name]).itemsize if name != "bfloat16" else 2)
    assert d.is_floating_point == (name in ("float16", "bfloat16", "float32", "float64"))
    assert d.is_complex == name.startswith("complex")
    assert pickle.loads(pickle.dumps(d)) is d


def test_torch_short_dtype_names():
    assert tl.float is tl.float32 and tl.double is tl.float64 and tl.half is tl.float16
    assert tl.long is tl.int64 and tl.int is tl.int32 and tl.cfloat is tl.complex64


@pytest.mark.parametrize("spec,expected", [
    (np.float32, "float32"), (np.dtype("int16"), "int16"), ("float64", "float64"),
    ("bfloat16", "bfloat16"), (float, "float64"), (bool, "bool"), (np.complex64, "complex64"),
    (np.uint16, "uint16"), ("uint32", "uint32"), (np.dtype("u8"), "uint64"),
])
def test_dtype_arguments_accept_numpy_and_names(spec, expected):
    assert tl.zeros(2, dtype=spec).dtype.name == expected


@pytest.mark.parametrize("bad", ["float128", np.longdouble, object, 3.5])
def test_unsupported_dtype_arguments_raise_type_error(bad):
    with pytest.raises(TypeError):
        tl.zeros(2, dtype=bad)


def test_device_objects():
    assert tl.device("cpu") == tl.device("cpu") == "cpu"
    assert repr(tl.device("cuda:1")) == "device(type='cuda', index=1)"
    assert tl.device("cuda", 2).index == 2 and str(tl.device("cuda", 2)) == "cuda:2"
    # the default device: the CPU, or the one the tests run on (tests/conftest.py)
    default = {None: "cpu", "emulated": "fake"}.get(TEST_DEVICE, TEST_DEVICE)
    assert tl.zeros(1).device.type == tl.device(default).type
    with pytest.raises(RuntimeError):
        tl.device("tpu")


def test_cuda_device_requests_fail_clearly_without_a_gpu():
    if tl.cuda.is_available():
        pytest.skip("a GPU is present")
    with pytest.raises(RuntimeError, match="cuda"):
        tl.zeros(2, device="cuda")
    with pytest.raises(RuntimeError, match="cuda"):
        tl.zeros(2).to("cuda:0")


def test_default_dtype_round_trip():
    assert tl.get_default_dtype() is tl.float32
    try:
        tl.set_default_dtype(tl.float64)
        assert tl.tensor([1.5]).dtype is tl.float64
        assert (tl.arange(3) / 2).dtype is tl.float64
    finally:
        tl.set_default_dtype(tl.float32)
    with pytest.raises(TypeError, match="^only floating-point types are supported as the "
                                        "default type$"):  # PyTorch's words
        tl.set_default_dtype(tl.int32)


# ---- attributes and conversions -----------------------------------------------------

@pytest.mark.parametrize("shape", SHAPES)
def test_attributes_match_numpy(shape):
    a = random_array(shape, "float64")
    t = to_tensor(a)
    assert t.shape == shape and isinstance(t.shape, tuple) and t.size() == shape
    assert repr(t.shape) == f"torchlike.Size({list(shape)})"
    assert t.ndim == t.dim() == len(shape)
    assert t.numel() == a.size and t.shape.numel() == a.size
    assert t.element_size() == 8 and t.nbytes == a.nbytes
    # PyTorch's contiguous strides (empty dims count as size 1, unlike NumPy's 0)
    strides, step = [], 1
    for n in reversed(shape):
        strides.insert(0, step)
        step *= max(n, 1)
    assert t.stride() == tuple(strides)
    assert t.is_contiguous()
    for d in range(-len(shape), len(shape)):
        assert t.size(d) == shape[d]


def test_size_and_stride_reject_bad_dims():
    t = tl.zeros(2, 3)
    with pytest.raises(IndexError, match=r"range of \[-2, 1\]"):
        t.size(2)
    with pytest.raises(IndexError):
        t.stride(-3)


@pytest.mark.parametrize("dtype", ALL_DTYPES)
def test_item_tolist_and_python_scalars(dtype):
    a = random_array((2, 3), dtype)
    t = to_tensor(a, dtype)
    expected = a.tolist()
    assert t.tolist() == expected
    assert t[1, 2].item() == expected[1][2]
    if dtype.startswith("complex"):
        assert complex(t[0, 0]) == expected[0][0]
    else:
        assert float(t[0, 0]) == float(expected[0][0])


def test_scalar_conversion_errors():
    with pytest.raises(RuntimeError, match="6 elements"):
        tl.zeros(2, 3).item()
    with pytest.raises(RuntimeError, match="ambiguous"):
        bool(tl.zeros(2))
    with pytest.raises(TypeError, match="index"):
        [1, 2][tl.tensor(1.0)]
    assert [1, 2][tl.tensor(1)] == 2
    with pytest.raises(TypeError, match="0-d"):
        len(tl.tensor(1.0))


@pytest.mark.parametrize("src", ALL_DTYPES)
@pytest.mark.parametrize("dst", ALL_DTYPES)
def test_to_dtype_matches_numpy_astype(src, dst):
    a = random_array((4, 3), src)
    drops = src.startswith("complex") and not dst.startswith("complex") and dst != "bool"
    with warnings.catch_warnings(record=True) as seen:
        warnings.simplefilter("always")
        t = to_tensor(a, src).to(getattr(tl, dst))
    assert [str(w.message) for w in seen] == \
        ["Casting complex values to real discards the imaginary part"] * drops
    assert t.dtype.name == dst
    if src.startswith("complex") and not dst.startswith("complex"):
        expected = a.real.astype(NP_DTYPES[dst]) if dst != "bool" else a != 0
    else:
        expected = a.astype(NP_DTYPES[dst])
    if dst == "bfloat16":
        expected = to_tensor(expected.astype(np.float32)).to(tl.bfloat16).float().cpu().numpy()
    assert_close(t, expected, dtype=dst)


def test_to_returns_self_unless_something_changes():
    t = tl.zeros(3)
    assert t.to(tl.float32) is t and t.to(str(t.device)) is t   # "cpu" on the CPU
    assert t.to(tl.float32, copy=True) is not t
    assert t.to(tl.zeros(1, dtype=tl.int8)).dtype is tl.int8
    assert t.double().dtype is tl.float64 and t.long().dtype is tl.int64
    assert t.half().dtype is tl.float16 and t.bfloat16().dtype is tl.bfloat16


def test_tensor_copies_and_from_numpy_shares():
    a = np.arange(6.0)
    t = tl.tensor(a)
    s = tl.from_numpy(a)
    a[0] = 100
    assert t[0].item() == 0.0 and s[0].item() == 100.0


def test_tensor_infers_pytorch_dtypes():
    assert tl.tensor([1, 2]).dtype is tl.int64
    assert tl.tensor([1, 2.5]).dtype is tl.float32
    assert tl.tensor([True, False]).dtype is tl.bool
    assert tl.tensor([1 + 2j]).dtype is tl.complex64
    assert tl.tensor(3.5).dtype is tl.float32 and tl.tensor(3.5).ndim == 0
    assert tl.tensor(np.float64(1.5)).dtype is tl.float64
    assert tl.tensor([[1, 2], [3, 4]], dtype=tl.int8).dtype is tl.int8


@pytest.mark.parametrize("bad", [[1, [2, 3]], ["a", "b"], {"a": 1}, object()])
def test_tensor_rejects_data_that_is_not_numbers(bad):
    with pytest.raises((TypeError, ValueError)):
        tl.tensor(bad)


def test_integer_scalars_out_of_range():
    with pytest.raises(OverflowError):
        tl.tensor(2 ** 70)
    with pytest.raises(OverflowError, match="int8"):
        tl.zeros(2, dtype=tl.int8) + 300


# ---- views ------------------------------------------------------------------------

def test_views_share_memory_and_bump_the_version():
    t = tl.arange(12, dtype=tl.float32)
    v = t.view(3, 4)
    version = t._version
    v[1, 2] = -1.0
    assert t[6].item() == -1.0
    assert t._version > version


@pytest.mark.parametrize("shape,new", [((12,), (3, 4)), ((3, 4), (-1,)), ((2, 3, 4), (6, -1)),
                                       ((2, 3, 4), (4, 1, 6)), ((0, 3), (3, 0, 5)), ((), (1, 1))])
def test_reshape_matches_numpy(shape, new):
    a = np.arange(int(np.prod(shape))).reshape(shape)
    assert_close(to_tensor(a).reshape(new), a.reshape(new))


def test_view_refuses_incompatible_strides_and_reshape_copies():
    t = tl.arange(12).reshape(3, 4).T
    with pytest.raises(RuntimeError, match="view size is not compatible"):
        t.view(12)
    r = t.reshape(12)
    assert r.tolist() == np.arange(12).reshape(3, 4).T.reshape(12).tolist()


def test_reshape_errors_name_the_shape():
    with pytest.raises(RuntimeError, match=r"shape '\[5, -1\]' is invalid for input of size 12"):
        tl.zeros(12).reshape(5, -1)


def test_permute_transpose_expand_squeeze_match_numpy():
    a = random_array((2, 3, 4), "float32")
    t = to_tensor(a)
    assert_close(t.permute(2, 0, 1), a.transpose(2, 0, 1))
    assert_close(t.transpose(0, 2), a.swapaxes(0, 2))
    assert_close(t.T, a.T)
    assert_close(t.mT, a.swapaxes(-1, -2))
    assert_close(t[:, :1].expand(2, 3, 4),
                 np.broadcast_to(a[:, :1], (2, 3, 4)))
    assert_close(t[:, :1].squeeze(1), a[:, 0])
    assert_close(t.unsqueeze(-1), a[..., None])
    assert_close(t.flatten(1), a.reshape(2, 12))
    with pytest.raises(RuntimeError, match="duplicate"):
        t.permute(0, 0, 1)
    with pytest.raises(RuntimeError, match="expanded size"):
        t.expand(2, 5, 4)


# ---- basic indexing ------------------------------------------------------------------

basic_items = st.one_of(
    st.integers(-4, 3),
    st.builds(slice, st.none() | st.integers(-6, 6), st.none() | st.integers(-6, 6),
              st.none() | st.sampled_from([-3, -2, -1, 1, 2, 3])),
    st.none(), st.just(Ellipsis))


@given(st.lists(basic_items, max_size=4))
def test_basic_getitem_and_setitem_match_numpy(items):
    a = np.arange(4 * 5 * 3, dtype=np.float64).reshape(4, 5, 3)
    key = tuple(items)
    try:
        expected = a[key]
    except IndexError:
        with pytest.raises(IndexError):
            to_tensor(a)[key]
        return
    t = to_tensor(a)
    got = t[key]
    assert_close(got, expected)
    b = a.copy()
    b[key] = -7.0
    t[key] = -7.0
    assert_close(t, b)


def test_getitem_views_share_memory():
    t = tl.zeros(4, 5)
    t[1:3, ::-2][0, 1] = 5.0
    assert t[1, 2].item() == 5.0


def test_setitem_broadcasts_and_casts():
    t = tl.zeros(3, 4, dtype=tl.int32)
    t[1] = tl.tensor([1.9, 2.1, 3.5, -4.2])
    t[:, 0] = 7
    assert t.tolist() == [[7, 0, 0, 0], [7, 2, 3, -4], [7, 0, 0, 0]]
    with pytest.raises((RuntimeError, ValueError)):
        t[0] = tl.zeros(3)


def test_setitem_of_a_python_list_rounds_once_into_the_target():
    """A list of Python floats written into a float64 (complex128) tensor
    keeps its double values, basic and advanced index alike (it went through
    the default float32 first: s[1] = [0.1, 1/3] stored 0.10000000149...);
    into float32 it is rounded once, as NumPy's."""
    values = [0.1, 1 / 3, 2.0 ** -40 + 1]
    for dtype, np_dtype in ((tl.float64, np.float64), (tl.float32, np.float32),
                            (tl.complex128, np.complex128), (tl.float16, np.float16)):
        want = np.zeros((3, 3), dtype=np_dtype)
        t = tl.zeros(3, 3, dtype=dtype)
        want[1] = values
        t[1] = values
        want[[0, 2], 1:] = [values[1:], values[:2]]
        t[[0, 2], 1:] = [values[1:], values[:2]]
        want[:, 0] = (values[0], values[2], 5)
        t[:, 0] = (values[0], values[2], 5)
        np.testing.assert_array_equal(t.cpu().numpy(), want)
    z = tl.zeros(2, dtype=tl.complex128)
    z[:] = [0.1 + 0.2j, 1 / 3]
    assert z.tolist() == [0.1 + 0.2j, 1 / 3 + 0j]


def test_setitem_of_a_python_list_checks_ints_as_one_int():
    """Python ints in a list that the integer target cannot hold raise, as
    t[0] = 300 does (u8[:2] = [300, 1] stored 44), basic and advanced index
    alike; ints that fit, and floats (cast as NumPy casts), are written."""
    u = tl.zeros(3, dtype=tl.uint8)
    with pytest.raises(RuntimeError, match="without overflow"):
        u[0] = 300
    with pytest.raises(RuntimeError, match="without overflow"):
        u[:2] = [300, 1]
    with pytest.raises(RuntimeError, match="without overflow"):
        u[[0, 2]] = (1, 256)
    i8 = tl.zeros(2, dtype=tl.int8)
    with pytest.raises(RuntimeError, match="without overflow"):
        i8[:] = [[-129, 1]]
    assert u.tolist() == [0, 0, 0] and i8.tolist() == [0, 0]
    u[:2] = [255, 1]
    u[[2]] = [3.7]
    i8[:] = [-128, 127]
    assert u.tolist() == [255, 1, 3] and i8.tolist() == [-128, 127]


def test_index_errors_name_index_and_size():
    t = tl.zeros(3, 4)
    with pytest.raises(IndexError, match="index 3 is out of bounds for dimension 0 with size 3"):
        t[3]
    with pytest.raises(IndexError, match="too many indices"):
        t[0, 0, 0]
    with pytest.raises(IndexError, match="single ellipsis"):
        t[..., ...]


def test_iteration_and_len():
    t = tl.arange(6).reshape(3, 2)
    assert len(t) == 3
    assert [row.tolist() for row in t] == [[0, 1], [2, 3], [4, 5]]


# ---- copies ----------------------------------------------------------------------------

def test_clone_contiguous_copy_fill_zero():
    t = tl.arange(6.0).reshape(2, 3).T
    c = t.contiguous()
    assert c.is_contiguous() and not t.is_contiguous()
    assert c.tolist() == t.tolist()
    assert t.clone().data_ptr() != t.data_ptr()
    d = tl.empty(3, 2)
    d.copy_(t)
    assert d.tolist() == t.tolist()
    d.fill_(2.5)
    assert d.tolist() == [[2.5, 2.5]] * 3
    d.zero_()
    assert d.tolist() == [[0.0, 0.0]] * 3


def test_overlapping_copy_reads_before_it_writes():
    a = np.arange(10.0)
    t = to_tensor(a)
    t[1:] = t[:-1]
    a[1:] = a[:-1].copy()
    assert_close(t, a)


def test_readonly_numpy_arrays_stay_readonly():
    a = np.arange(4.0)
    a.flags.writeable = False
    t = tl.from_numpy(a)
    with pytest.raises(ValueError, match="read-only"):
        t.fill_(1.0)
    with pytest.raises(ValueError, match="read-only"):
        t.add_(1.0)
    assert a.tolist() == [0.0, 1.0, 2.0, 3.0]


def test_writes_to_expanded_views_are_refused():
    t = tl.zeros(1, 3).expand(4, 3)
    with pytest.raises(RuntimeError, match="single memory location"):
        t.fill_(1.0)
    with pytest.raises(RuntimeError, match="single memory location"):
        tl.add(tl.ones(4, 3), 1.0, out=t)


def test_setitem_drops_leading_unit_dims_like_numpy():
    a = np.zeros((2, 3))
    t = to_tensor(a)
    t[0] = tl.tensor([[1.0, 2.0, 3.0]])
    a[0] = np.array([[1.0, 2.0, 3.0]])
    assert_close(t, a)


def test_empty_views_are_contiguous_as_in_pytorch():
    assert tl.zeros(0, 6)[:, ::2].is_contiguous()
    assert not tl.zeros(2, 6)[:, ::2].is_contiguous()


def test_large_blocks_are_reused_but_never_shared_while_alive():
    n = 3 << 20  # 12 MiB of float32: the allocator's cached size class
    a = tl.ones(n)
    del a
    b = tl.full((n,), 2.0)          # may reuse the freed block ...
    c = tl.full((n,), 3.0)          # ... but never the one b holds
    assert b.data_ptr() != c.data_ptr()
    assert b[0].item() == 2.0 and b[-1].item() == 2.0 and c[n // 2].item() == 3.0
    z = tl.zeros(n)                  # zeros never come from the cache's stale bytes
    assert z.sum().item() == 0.0
