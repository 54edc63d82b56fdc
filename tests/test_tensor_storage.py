"""Tensor.resize / resize_as (deprecated, non-in-place), Tensor.set_ in its
tensor / storage / offset-size-stride forms, Tensor.storage() and the legacy
storage classes (torchlike/_tensor_storage.py): memory sharing checked by
writing through one view and reading through the other, NumPy for the
strided views, gradients through resize.  PyTorch's recorded answers and
messages for these methods are checked in tests/test_functional_extra.py
(scripts/golden_functional_extra.py); here: what a recording cannot show."""
import warnings

import numpy as np
import pytest

import torchlike as T
from torchlike.autograd import gradcheck

pytestmark = pytest.mark.filterwarnings("ignore:(TypedStorage|non-inplace)")


def test_set_tensor_shares_memory():
    a, b = T.zeros(3), T.arange(6.0).reshape(2, 3)
    r = a.set_(b[:, 1:])
    assert r is a and a.shape == (2, 2) and a.stride() == (3, 1) and a.storage_offset() == 1
    b[1, 2] = 42.0
    assert a[1, 1].item() == 42.0
    with pytest.raises(RuntimeError, match="Could not set tensor of type double to a tensor "
                                           "of type float"):
        T.zeros(1).set_(b.double())


@pytest.mark.parametrize("dtype", [T.float32, T.int16, T.complex128])
def test_set_storage_forms_match_numpy(dtype):
    b = T.arange(12).to(dtype)
    flat = b.numpy()
    s = b.untyped_storage()
    t = T.empty(0, dtype=dtype)
    np.testing.assert_array_equal(t.set_(s).numpy(), flat)
    np.testing.assert_array_equal(t.set_(s, 2, (2, 3)).numpy(), flat[2:8].reshape(2, 3))
    want = np.lib.stride_tricks.as_strided(flat[1:], (3, 2),
                                           (2 * flat.itemsize, 3 * flat.itemsize))
    np.testing.assert_array_equal(t.set_(s, 1, (3, 2), (2, 3)).numpy(), want)
    b[5] = 9
    assert t.numpy()[2, 0] == flat[5]                   # still a view of b's memory
    np.testing.assert_array_equal(T.empty(0, dtype=dtype).set_(b.storage()).numpy(), flat)
    assert t.set_().shape == (0,)


def test_set_checks():
    s = T.arange(6.0).untyped_storage()
    with pytest.raises(RuntimeError, match="unequal size length \\(2\\) and stride length \\(1\\)"):
        T.zeros(1).set_(s, 0, (2, 2), (1,))
    with pytest.raises(RuntimeError, match="out of bounds for storage of size 24"):
        T.zeros(1).set_(s, 4, (2, 2))
    with pytest.raises(RuntimeError, match="a leaf Variable that requires grad"):
        T.zeros(2, requires_grad=True).set_(T.ones(2))
    with pytest.raises(RuntimeError, match="Expected a Storage of type"):
        T.zeros(1).set_(T.ones(2, dtype=T.float64).storage())


def test_resize_is_a_differentiable_view():
    with pytest.warns(UserWarning, match="non-inplace resize is deprecated"):
        r = T.arange(6.0).resize(3, 2)
    assert r.shape == (3, 2)
    np.testing.assert_array_equal(T.arange(6.0).resize((2, 3)).numpy(), np.arange(6.0).reshape(2, 3))
    with pytest.warns(UserWarning, match="non-inplace resize_as is deprecated"):
        assert T.zeros(3).resize_as(T.zeros(3, 1)).shape == (3, 1)
    with pytest.raises(RuntimeError, match="requested resize to 2x3 \\(6 elements in total\\), "
                                           "but the given tensor has a size of 3"):
        T.zeros(3).resize_as(T.zeros(2, 3))
    grown = T.ones(3)            # another element count: NumPy's in-place resize (_ndarray_io)
    assert grown.resize(2, 2) is None and grown.numpy().tolist() == [[1, 1], [1, 0]]
    x = T.tensor(np.arange(6.0), requires_grad=True)
    assert gradcheck(lambda v: v.t().resize(2, 3) if v.ndim == 2 else v.resize(2, 3) * 2, (x,))


def test_storage_and_legacy_classes():
    b = T.arange(6.0).reshape(2, 3)
    with pytest.warns(UserWarning, match="TypedStorage is deprecated"):
        st = b[1].storage()
    assert st.size() == 6 and st.dtype == T.float32 and st.tolist() == list(range(6))
    assert st[2] == 2.0 and st.element_size() == 4 and st.nbytes() == 24
    assert st.untyped() is b.untyped_storage()
    assert isinstance(st, T.FloatStorage) and not isinstance(st, T.DoubleStorage)
    assert T.DoubleStorage(4).size() == 4 and T.DoubleStorage(4).dtype == T.float64
    assert T.LongStorage([3, 1, 2]).tolist() == [3, 1, 2]
    assert isinstance(T.BoolStorage(2), T.TypedStorage)


@pytest.mark.parametrize("nbytes", [0, 1, 7, 63, 64, 65, 200, 1000, 4096, 70000, 5 << 20])
def test_new_storage_data_is_64_byte_aligned_and_holds_its_bytes(nbytes):
    # Small storages are malloc'ed with the header and aligned by hand;
    # large ones are page blocks.  Every data pointer is on a cache line, and
    # neighbouring storages do not overlap: each keeps the pattern written.
    ts = [T.empty(nbytes, dtype=T.uint8) for _ in range(8)]
    for i, t in enumerate(ts):
        assert t.data_ptr() % 64 == 0
        t.fill_(i)
    for i, t in enumerate(ts):
        assert np.array_equal(t.numpy(), np.full(nbytes, i, np.uint8))
