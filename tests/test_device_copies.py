"""Moving tensors between devices: Tensor.to's overloads, cpu/cuda, copy_ across
devices, pin_memory, the default device.  The fake device stands in for a
GPU; values are checked against NumPy, semantics against PyTorch's (which
overloads return self, which raise TypeError)."""
import numpy as np
import pytest

import torchlike
from torchlike import _C

_C._fake_enable()


def counters():
    return _C._fake_counters()


@pytest.fixture
def a():
    return np.arange(12, dtype=np.float32).reshape(3, 4) - 5.5


# ---- Tensor.to overloads --------------------------------------------------------

def test_to_same_dtype_or_device_returns_self(a):
    t = torchlike.from_numpy(a)
    assert t.to(torchlike.float32) is t
    assert t.to("cpu") is t
    assert t.to(torchlike.device("cpu")) is t
    assert t.to(t) is t
    assert t.to() is t
    assert t.to("cpu", torchlike.float32) is t
    assert t.to(device="cpu", dtype=torchlike.float32) is t


def test_to_copy_true_always_copies(a):
    t = torchlike.from_numpy(a)
    for c in (t.to(torchlike.float32, copy=True), t.to("cpu", copy=True),
              t.to(torchlike.float32, False, True), t.to("cpu", torchlike.float32, False, True),
              t.to(t, copy=True)):
        assert c is not t and c.data_ptr() != t.data_ptr()
        np.testing.assert_array_equal(c.numpy(), a)


def test_to_dtype_casts_like_numpy(a):
    t = torchlike.from_numpy(a)
    for dt in ("int32", "float64", "bool", "complex64", "uint8"):
        r = t.to(getattr(torchlike, dt))
        assert r.dtype == getattr(torchlike, dt)
        with np.errstate(invalid="ignore"):
            np.testing.assert_array_equal(r.numpy(), a.astype(dt))
    r = t.to(dtype=torchlike.int64, non_blocking=True)
    np.testing.assert_array_equal(r.numpy(), a.astype(np.int64))
    np.testing.assert_array_equal(t.to(np.float64).numpy(), a.astype(np.float64))


def test_to_other_takes_its_device_and_dtype(a):
    t = torchlike.from_numpy(a)
    other = torchlike.zeros(1, dtype=torchlike.float64).to("fake")
    r = t.to(other)
    assert r.device == torchlike.device("fake:0") and r.dtype == torchlike.float64
    np.testing.assert_array_equal(r.cpu().numpy(), a.astype(np.float64))


@pytest.mark.parametrize("args", [
    lambda t: (t, torchlike.int32),
    lambda t: ("cpu", "cpu"),
    lambda t: (torchlike.int32, torchlike.int32),
    lambda t: (1.5,),
])
def test_invalid_to_combinations_are_type_errors(a, args):
    t = torchlike.from_numpy(a)
    with pytest.raises(TypeError, match="to\\(\\) received an invalid combination of arguments"):
        t.to(*args(t))


def test_to_keyword_errors(a):
    t = torchlike.from_numpy(a)
    with pytest.raises(TypeError, match="unexpected keyword argument 'devise'"):
        t.to(devise="cpu")
    with pytest.raises(TypeError, match="multiple values for argument 'dtype'"):
        t.to(torchlike.int32, dtype=torchlike.int32)


def test_to_overloads_by_keyword_and_python_types(a):
    # Tensor.to is bound from its three declared overloads; the one taking a
    # tensor is chosen by position or by its keyword, as in PyTorch
    t = torchlike.from_numpy(a)
    other = torchlike.zeros(1, dtype=torchlike.float64).to("fake")
    r = t.to(tensor=other, non_blocking=True)
    assert r.device == torchlike.device("fake:0") and r.dtype == torchlike.float64
    np.testing.assert_array_equal(r.cpu().numpy(), a.astype(np.float64))
    for py, expect in ((float, np.float64), (int, np.int64), (bool, np.bool_)):
        np.testing.assert_array_equal(t.to(py).numpy(), a.astype(expect))
    assert t.to(None) is t and t.to(dtype=None) is t and t.to(device=None) is t
    np.testing.assert_array_equal(t.to(None, torchlike.int32).numpy(), a.astype(np.int32))
    assert t.to(torchlike.float32, memory_format=torchlike.contiguous_format) is t
    np.testing.assert_array_equal(t.T.to(torchlike.float64).numpy(), a.T.astype(np.float64))


def test_invalid_to_lists_the_overloads(a):
    t = torchlike.from_numpy(a)
    with pytest.raises(TypeError) as e:
        t.to("cpu", "cpu")
    lines = str(e.value).splitlines()
    assert lines[0] == ("to() received an invalid combination of arguments - got (str, str), "
                        "but expected one of:")
    assert lines[1].startswith(" * (device? device=None, dtype? dtype=None")
    assert lines[2].startswith(" * (dtype dtype, bool non_blocking=False")
    assert lines[3].startswith(" * (Tensor tensor, bool non_blocking=False")
    with pytest.raises(TypeError, match=r"got \(dtype=str\), but expected one of"):
        t.to(dtype="cpu")
    # errors that are not about the arguments' types stay what they are
    with pytest.raises(RuntimeError, match="cpu"):
        t.to("cpux")
    with pytest.raises(TypeError, match=r"to\(\) takes at most 4 positional arguments but 5"):
        t.to("cpu", torchlike.int32, False, False, torchlike.contiguous_format)


def test_cpu_cuda_copy_argument_forms(a):
    t = torchlike.from_numpy(a)
    assert t.cpu(memory_format=torchlike.contiguous_format) is t
    with pytest.raises(TypeError, match=r"cpu\(\) takes at most 0 positional arguments"):
        t.cpu(1)
    with pytest.raises(RuntimeError, match="Invalid device, must be cuda device"):
        t.cuda(device="cpu")
    with pytest.raises(TypeError, match=r"cuda\(\) takes at most 2 positional arguments"):
        t.cuda(0, True, torchlike.contiguous_format)
    # copy_(other, non_blocking=False): PyTorch's parameter name; a number,
    # list or array is made a tensor first and broadcast
    dst = torchlike.zeros(3, 4)
    assert dst.copy_(other=t, non_blocking=True) is dst
    np.testing.assert_array_equal(dst.numpy(), a)
    np.testing.assert_array_equal(dst.copy_(1.5).numpy(), np.full((3, 4), 1.5, np.float32))
    np.testing.assert_array_equal(dst.copy_([1, 2, 3, 4]).numpy(),
                                  np.broadcast_to(np.arange(1, 5, dtype=np.float32), (3, 4)))
    with pytest.raises(TypeError, match=r"copy_\(\) missing required argument 'other'"):
        dst.copy_()
    with pytest.raises(TypeError, match=r"copy_\(\) got an unexpected keyword argument 'src'"):
        dst.copy_(src=t)
    assert t.is_pinned() is False and t.is_pinned("cpu") is False
    # the derivative reaches other whether it came by position or keyword
    y = torchlike.ones(3, requires_grad=True)
    for copy in (lambda z, v: z.copy_(v), lambda z, v: z.copy_(other=v)):
        y.grad = None
        z = torchlike.zeros(3) * 1.0
        copy(z, y * 2)
        z.sum().backward()
        np.testing.assert_array_equal(y.grad.numpy(), np.full(3, 2.0, np.float32))


def test_view_dtype_by_keyword(a):
    t = torchlike.from_numpy(a)
    np.testing.assert_array_equal(t.view(dtype=torchlike.int32).numpy(), a.view(np.int32))
    with pytest.raises(TypeError, match=r"view\(\) received an invalid combination of arguments "
                                        r"- got \(float\)"):
        t.view(1.5)


# ---- crossing to the fake device and back ------------------------------------------

def test_to_device_and_dtype_casts_on_the_host(a):
    r = torchlike.from_numpy(a).to("fake", torchlike.int16)
    assert r.device.type == "fake" and r.dtype == torchlike.int16
    np.testing.assert_array_equal(r.cpu().numpy(), a.astype(np.int16))
    back = r.to("cpu", torchlike.float64)
    np.testing.assert_array_equal(back.numpy(), a.astype(np.int16).astype(np.float64))


def test_non_contiguous_views_cross_in_both_directions(a):
    f = torchlike.from_numpy(a).to("fake")
    for view, ref in ((f.T, a.T), (f[:, 1::2], a[:, 1::2]), (f[::-1], a[::-1]),
                      (f[1], a[1]), (f[:, 2], a[:, 2]), (f[2:0:-1], a[2:0:-1])):
        np.testing.assert_array_equal(view.cpu().numpy(), ref)
    src = torchlike.from_numpy(a.T.copy()).T  # non-contiguous on the host
    np.testing.assert_array_equal(src.to("fake").cpu().numpy(), a)


def test_cpu_and_cuda_methods(a):
    t = torchlike.from_numpy(a)
    assert t.cpu() is t
    f = t.to("fake")
    assert f.cpu().device == torchlike.device("cpu")
    assert f.to("fake") is f and f.to("fake:0") is f
    if not torchlike.cuda.is_available():
        with pytest.raises(RuntimeError, match="cannot use device cuda:0"):
            t.cuda()
        with pytest.raises(RuntimeError, match="cannot use device cuda:1"):
            t.cuda(1)
    with pytest.raises(RuntimeError, match="Invalid device, must be cuda device \\(got fake:0\\)"):
        t.cuda("fake")


def test_copy_into_a_fake_tensor_broadcasts_and_casts(a):
    f = torchlike.zeros(3, 4, dtype=torchlike.float64).to("fake")
    before = counters()["copies_in"]
    assert f.copy_(torchlike.from_numpy(a[1])) is f
    assert counters()["copies_in"] == before + 1
    np.testing.assert_array_equal(f.cpu().numpy(), np.broadcast_to(a[1], (3, 4)))


def test_copy_into_a_strided_fake_view_leaves_the_rest(a):
    f = torchlike.from_numpy(a).to("fake")
    f[:, 1].copy_(torchlike.tensor([100.0, 200.0, 300.0]))
    expect = a.copy()
    expect[:, 1] = [100, 200, 300]
    np.testing.assert_array_equal(f.cpu().numpy(), expect)
    f[0] = 7.0  # __setitem__ with a scalar goes the same way
    expect[0] = 7
    np.testing.assert_array_equal(f.cpu().numpy(), expect)


def test_copy_from_fake_to_cpu(a):
    f = torchlike.from_numpy(a).to("fake")
    out = torchlike.empty(3, 4, dtype=torchlike.int64)
    out.copy_(f, non_blocking=True)
    np.testing.assert_array_equal(out.numpy(), a.astype(np.int64))


def test_copy_on_one_device_is_a_byte_copy_or_needs_a_kernel(a):
    f = torchlike.from_numpy(a).to("fake")
    g = torchlike.empty(3, 4, device="fake")
    before = counters()["copies_on"]
    g.copy_(f)
    assert counters()["copies_on"] == before + 1
    np.testing.assert_array_equal(g.cpu().numpy(), a)
    np.testing.assert_array_equal(f.clone().cpu().numpy(), a)
    with pytest.raises(NotImplementedError, match="no kernel for device fake:0"):
        torchlike.empty(3, 4, dtype=torchlike.float64, device="fake").copy_(f)
    with pytest.raises(NotImplementedError, match="no kernel for device fake:0"):
        torchlike.empty(4, 3, device="fake").copy_(f.T)


def test_copy_into_a_read_only_tensor_raises(a):
    f = torchlike.from_numpy(a).to("fake")
    ro = torchlike.from_numpy(a.copy())
    ro._set_readonly(True)
    with pytest.raises(ValueError, match="read-only"):
        ro.copy_(f)


def test_autograd_through_a_device_round_trip():
    x = torchlike.tensor([1.0, 2.0, 3.0], requires_grad=True)
    y = x.to("fake")
    assert y.requires_grad and y.device.type == "fake"
    z = y.cpu()
    (z * torchlike.tensor([1.0, 10.0, 100.0])).sum().backward()
    assert x.grad.device.type == "cpu"
    np.testing.assert_array_equal(x.grad.numpy(), [1.0, 10.0, 100.0])


# ---- pinned memory ---------------------------------------------------------------------

def test_pinned_memory_without_a_gpu_behaves_as_pytorch():
    t = torchlike.ones(3)
    assert t.is_pinned() is False
    if torchlike.cuda.is_available():
        p = t.pin_memory()
        assert p.is_pinned() and p.pin_memory() is p
        np.testing.assert_array_equal(p.numpy(), np.ones(3))
    else:
        with pytest.raises(RuntimeError, match="Found no NVIDIA driver"):
            t.pin_memory()
    with pytest.raises(RuntimeError, match="cannot pin a tensor on fake:0"):
        t.to("fake").pin_memory()


# ---- the default device ------------------------------------------------------------------

def test_device_context_manager_sets_the_default_device():
    # The fake device has no fill kernels of its own (tests/test_create_device.py
    # lends it the CPU's): empty needs none, data is copied there, fills refuse.
    assert torchlike.get_default_device() == torchlike.device("cpu")
    with torchlike.device("fake"):
        assert torchlike.get_default_device() == torchlike.device("fake:0")
        z = torchlike.empty(2, 3)
        t = torchlike.tensor([1, 2, 3])
        with pytest.raises(NotImplementedError,
                           match=r"^arange\(\): no kernel for device fake:0 and dtype int64$"):
            torchlike.arange(4)
        c = torchlike.zeros(2, device="cpu")
        with torchlike.device("cpu"):
            inner = torchlike.ones(2)
        after_inner = torchlike.empty(2)
    assert z.device.type == "fake" and t.device.type == "fake"
    assert c.device.type == "cpu" and inner.device.type == "cpu"
    assert after_inner.device.type == "fake"
    assert tuple(z.shape) == (2, 3) and z.dtype == torchlike.float32
    np.testing.assert_array_equal(t.cpu().numpy(), [1, 2, 3])
    np.testing.assert_array_equal(c.numpy(), [0.0, 0.0])
    assert torchlike.ones(1).device.type == "cpu"


def test_one_device_object_entered_twice_restores_in_order():
    """tensor.device is one object per place (cached in C): entering it twice,
    nested, and entering the default device object restore in order."""
    f = torchlike.empty(2, device="fake")
    assert f.device is torchlike.empty(1, device="fake").device
    assert f.device == torchlike.device("fake:0") and hash(f.device) == hash(torchlike.device("fake", 0))
    cpu = torchlike.get_default_device()
    with f.device:
        with f.device:
            with cpu:
                assert torchlike.get_default_device() == cpu
            assert torchlike.get_default_device() == f.device
        assert torchlike.get_default_device() == f.device
    assert torchlike.get_default_device() == cpu
    with pytest.raises(AttributeError, match="immutable"):
        f.device.index = 3


def test_context_manager_restores_on_error():
    with pytest.raises(ZeroDivisionError):
        with torchlike.device("fake"):
            1 / 0
    assert torchlike.get_default_device() == torchlike.device("cpu")


def test_set_default_device():
    try:
        torchlike.set_default_device("fake")
        assert torchlike.empty(3).device.type == "fake"
        assert torchlike.get_default_device().type == "fake"
    finally:
        torchlike.set_default_device(None)
    assert torchlike.empty(3).device.type == "cpu"
    if not torchlike.cuda.is_available():
        torchlike.set_default_device("cuda")  # allowed; creation then fails clearly
        try:
            with pytest.raises(RuntimeError, match="cannot use device cuda:0"):
                torchlike.zeros(2)
        finally:
            torchlike.set_default_device("cpu")


def test_like_and_new_functions_follow_their_input():
    f = torchlike.tensor([[1.0, 2.0]]).to("fake")
    for r in (torchlike.empty_like(f), f.new_empty(3), f.new_tensor([1.0, 2.0])):
        assert r.device == torchlike.device("fake:0")
    np.testing.assert_array_equal(f.new_tensor([1.0, 2.0]).cpu().numpy(), [1.0, 2.0])
    # the fills follow the input too, so they meet the fake device's missing kernels
    for name, call in [("zeros_like", lambda: torchlike.zeros_like(f)),
                       ("ones_like", lambda: torchlike.ones_like(f)),
                       ("full_like", lambda: torchlike.full_like(f, 3.0)),
                       ("new_zeros", lambda: f.new_zeros(2)),
                       ("new_full", lambda: f.new_full((2,), 4.0))]:
        with pytest.raises(NotImplementedError) as e:
            call()
        assert str(e.value) == f"{name}(): no kernel for device fake:0 and dtype float32"
    assert torchlike.zeros_like(f, device="cpu").device.type == "cpu"
    np.testing.assert_array_equal(torchlike.ones_like(f, device="cpu").numpy(), [[1.0, 1.0]])
    c = torchlike.ones(2)
    with torchlike.device("fake"):  # the input's device wins over the default
        assert torchlike.zeros_like(c).device.type == "cpu"
        assert c.new_zeros(2).device.type == "cpu"
    assert f.__dlpack_device__() != (1, 0)  # not claimed as CPU memory


# ---- torchlike.cuda memory functions without a GPU ----------------------------------------

@pytest.mark.skipif(torchlike.cuda.is_available(), reason="checks the no-GPU answers")
def test_cuda_memory_functions_without_a_gpu():
    c = torchlike.cuda
    assert c.memory_allocated() == 0 and c.max_memory_allocated() == 0
    assert c.memory_reserved() == 0 and c.max_memory_reserved() == 0
    assert c.memory_stats() == {} and c.memory_stats_as_nested_dict() == {}
    assert c.empty_cache() is None
    with pytest.raises(RuntimeError, match="invalid argument to reset_peak_memory_stats"):
        c.reset_peak_memory_stats()
    with pytest.raises(RuntimeError, match="invalid argument to reset_accumulated_memory_stats"):
        c.reset_accumulated_memory_stats()
    with pytest.raises(RuntimeError, match="Found no NVIDIA driver"):
        c.set_per_process_memory_fraction(0.5)
    with pytest.raises(TypeError, match="must be `float`"):
        c.set_per_process_memory_fraction(1)
    with pytest.raises(KeyError):
        c.memory_summary()
    assert c.OutOfMemoryError is torchlike.OutOfMemoryError
    assert issubclass(c.OutOfMemoryError, RuntimeError)
