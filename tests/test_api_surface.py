"""Small pieces of PyTorch's API surface: finfo/iinfo, the constants,
torch-level in-place functions and *_copy ops, tensor predicates and
utilities, determinism and precision flags, post-accumulate-grad hooks.

PyTorch's answers are recorded in tests/golden/api_surface.json by
scripts/golden_api_surface.py; here the same calls run with torchlike and
must agree: values, reprs, exception types and messages (PyTorch's words
with torchlike's module name).  NumPy references cover the values."""
import json
import math
import re
import warnings

import numpy as np
import pytest

import torchlike as torch
from oracle import golden_calls, _nan_equal

CALLS, _golden = golden_calls("api_surface")

# Answers that differ from PyTorch's on purpose: call -> (exception, our message).
DIFFERENT = {
    # a non-tensor input is named as for the other torch-level functions; PyTorch
    # lists fill's overloads
    "T.fill(3, 1)": ("TypeError", "fill(): argument 'input' (position 1) must be Tensor, not int"),
    # Python's words for a missing or a keyword-only argument
    "T.range(2)": ("TypeError", "range() missing 1 required positional argument: 'end'"),
    "T.nonzero_static(T.tensor([1, 1, 1]), 2)": (
        "TypeError", "nonzero_static() takes 1 positional argument but 2 were given"),
}


def _ours(value):
    """PyTorch's recorded answer with torchlike's module name."""
    return json.loads(re.sub(r"(?<![A-Za-z])torch\.", "torchlike.", json.dumps(value)))


# Host semantics, skipped with a device as the default device: apply_, map_
# and map2_ run Python on CPU tensors only (as PyTorch's), get_device is -1
# on the CPU, and new()'s refusal names the CPU.
HOST_ONLY = (".apply_(", ".map_(", ".map2_(", "get_device(", ".new(I)")


@pytest.mark.parametrize("call,expected", [
    pytest.param(c, e, id=c, marks=pytest.mark.host_only) if any(h in c for h in HOST_ONLY)
    else pytest.param(c, e, id=c) for c, e in CALLS])
def test_matches_pytorch(call, expected):
    expected = _ours(expected)
    env = {"T": torch, **_golden.inputs(torch)}
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UserWarning)  # range's deprecation: warned() checks it
        if expected[0] == "raises":
            kind, message = DIFFERENT.get(call, expected[1:])
            with pytest.raises(Exception) as e:
                eval(call, env)
            assert type(e.value).__name__ == kind, (call, str(e.value))
            assert str(e.value).splitlines()[0] == message, call
            return
        _same(_golden.describe(eval(call, env)), expected, call)


def _same(got, want, call):
    """Described results equal; tensor values within float32 rounding (the
    special functions' last bits differ from PyTorch's), NaNs equal."""
    if want[0] == "tensor":
        assert got[0] == "tensor" and got[1:3] == want[1:3] and got[4:] == want[4:], call
        np.testing.assert_allclose(np.array(got[3], dtype=float), np.array(want[3], dtype=float),
                                   rtol=1e-6, atol=0, equal_nan=True, err_msg=call)
    elif want[0] == "tuple":
        assert got[0] == "tuple" and len(got[1]) == len(want[1]), call
        for g, w in zip(got[1], want[1]):
            _same(g, w, call)
    else:
        assert _nan_equal(got) == _nan_equal(want), call


# ---- finfo / iinfo ---------------------------------------------------------------------

@pytest.mark.parametrize("dtype", [torch.float16, torch.float32, torch.float64])
def test_finfo_is_numpys_limits(dtype):
    ref = np.finfo(np.dtype(dtype.name))
    info = torch.finfo(dtype)
    assert (info.bits, info.eps, info.max, info.min, info.tiny) == \
        (ref.bits, float(ref.eps), float(ref.max), float(ref.min), float(ref.tiny))
    assert info.resolution == 10.0 ** -ref.precision


def test_finfo_bfloat16_is_float32_with_7_mantissa_bits():
    info = torch.finfo(torch.bfloat16)
    # the largest bfloat16 is float32's max with the low 16 bits cleared
    top = np.array([0x7F7F0000], dtype=np.uint32).view(np.float32)[0]
    assert info.max == float(top)
    assert info.eps == float(torch.tensor(1.0, dtype=torch.bfloat16).nextafter(
        torch.tensor(2.0, dtype=torch.bfloat16)).float() - 1)
    assert info.tiny == float(np.finfo(np.float32).tiny)


@pytest.mark.parametrize("dtype", [torch.uint8, torch.int8, torch.int16, torch.int32,
                                   torch.int64])
def test_iinfo_is_numpys_limits(dtype):
    ref = np.iinfo(np.dtype(dtype.name))
    info = torch.iinfo(dtype)
    assert (info.bits, info.min, info.max, info.dtype) == (ref.bits, ref.min, ref.max,
                                                            dtype.name)
    assert type(info.max) is int


def test_finfo_default_follows_default_dtype():
    torch.set_default_dtype(torch.float64)
    try:
        assert torch.finfo().dtype == "float64"
    finally:
        torch.set_default_dtype(torch.float32)
    assert torch.finfo().dtype == "float32"


def test_info_types_are_final():
    with pytest.raises(TypeError, match="not an acceptable base type"):
        type("Sub", (torch.finfo,), {})


def test_numpy_namespace_keeps_array_api_finfo():
    import torchlike.numpy as tnp
    assert tnp.finfo(torch.float32).dtype == torch.float32
    assert np.finfo(torch.float32).eps == torch.finfo(torch.float32).eps


def test_constants_are_pythons():
    assert torch.e is math.e and torch.pi is math.pi
    assert torch.inf == math.inf and math.isnan(torch.nan) and torch.newaxis is None


# ---- torch-level in-place functions and *_copy ops --------------------------------------

def test_inplace_functions_write_their_input():
    from torchlike._inplace_functions import INPLACE
    skip = {"as_strided_", "index_put_", "resize_as_", "addmv_", "fill_", "clamp_",
            "clamp_min_", "clamp_max_", "clip_", "gcd_", "lcm_", "ldexp_", "xlogy_", "detach_"}
    x = torch.tensor([0.25, 0.5, 0.75], dtype=torch.float64)
    for name in INPLACE:
        assert callable(getattr(torch, name)), name
        if name in skip:
            continue
        y = x.clone()
        method = name.rstrip("_")
        want = getattr(x.clone(), name)()
        assert getattr(torch, name)(y) is y, name
        np.testing.assert_array_equal(y.cpu().numpy(), want.cpu().numpy(), err_msg=method)


VIEW_CASES = [("transpose_copy", (0, 2), lambda a: a.transpose(2, 1, 0)),
              ("permute_copy", ((1, 2, 0),), lambda a: a.transpose(1, 2, 0)),
              ("diagonal_copy", (0, 1, 2), lambda a: np.diagonal(a, 0, 1, 2)),
              ("select_copy", (1, -1), lambda a: a[:, -1]),
              ("slice_copy", (2, 1, None, 2), lambda a: a[:, :, 1::2]),
              ("unsqueeze_copy", (1,), lambda a: a[:, None]),
              ("expand_copy", ((2, -1, -1, -1),), lambda a: np.broadcast_to(a, (2,) + a.shape)),
              ("alias_copy", (), lambda a: a)]


@pytest.mark.parametrize("name,args,ref", VIEW_CASES, ids=[c[0] for c in VIEW_CASES])
def test_copy_ops_are_fresh_contiguous_views(name, args, ref):
    base = torch.arange(48.0).reshape(4, 3, 4).transpose(0, 2)[:, :, 1:]  # non-contiguous
    got = getattr(torch, name)(base, *args)
    np.testing.assert_array_equal(got.cpu().numpy(), ref(base.cpu().numpy()))
    assert got.is_contiguous()
    got.fill_(-1.0)  # shares nothing with base
    assert (base >= 0).all()


@pytest.mark.parametrize("name,args,ref", VIEW_CASES, ids=[c[0] for c in VIEW_CASES])
def test_copy_ops_gradients(name, args, ref):
    x = torch.rand(4, 3, 4, dtype=torch.float64, requires_grad=True)
    assert torch.autograd.gradcheck(lambda t: getattr(torch, name)(t, *args), (x,))


def test_split_copy_gradients():
    x = torch.rand(5, 3, dtype=torch.float64, requires_grad=True)
    assert torch.autograd.gradcheck(lambda t: torch.split_copy(t, 2), (x,))
    assert torch.autograd.gradcheck(lambda t: torch.unbind_copy(t, 1), (x,))
    assert torch.autograd.gradcheck(lambda t: torch.as_strided_copy(t, (2, 2), (1, 3), 1), (x,))


def test_copy_out_is_resized():
    out = torch.empty(0)
    m = torch.arange(6.0).reshape(2, 3)
    assert torch.t_copy(m, out=out) is out
    np.testing.assert_array_equal(out.cpu().numpy(), m.cpu().numpy().T)


def test_fill_gives_the_value_its_gradient():
    x = torch.tensor([1.0, 2.0], dtype=torch.float64, requires_grad=True)
    v = torch.tensor(2.0, dtype=torch.float64, requires_grad=True)
    torch.fill(x, v).sum().backward()
    assert v.grad.item() == 2.0 and (x.grad == 0).all()


# ---- predicates and utilities ------------------------------------------------------------

def test_inference_tensors():
    with torch.inference_mode():
        a = torch.ones(2)
        with torch.inference_mode(False):
            b = torch.ones(2)
        c = a + 1
    assert a.is_inference() and c.is_inference() and not b.is_inference()
    assert not torch.ones(2).is_inference() and not a.clone().is_inference()


def test_fill_diagonal_is_numpys_and_differentiable():
    for shape, wrap in [((3, 3), False), ((7, 3), True), ((7, 3), False), ((2, 5), True),
                        ((3, 3, 3), False), ((1, 4), True), ((4, 1), True)]:
        ref = np.zeros(shape)
        np.fill_diagonal(ref, 2.0, wrap=wrap)
        np.testing.assert_array_equal(torch.zeros(shape).fill_diagonal_(2.0, wrap).cpu().numpy(), ref)
    x = torch.ones(3, 3, dtype=torch.float64, requires_grad=True)
    (x * 1).fill_diagonal_(0).sum().backward()
    np.testing.assert_array_equal(x.grad.cpu().numpy(), 1 - np.eye(3))


@pytest.mark.parametrize("shape,size", [((2, 3, 4), (3, 1)), ((2, 3, 4), (1, 1, 4)),
                                        ((5, 1), (1,)), ((0, 3), (3,)), ((2, 3), ())])
def test_sum_to_size_is_a_broadcast_sum(shape, size):
    a = np.random.default_rng(0).standard_normal(shape)
    got = torch.tensor(a).sum_to_size(size)
    lead = len(shape) - len(size)
    want = a.sum(axis=tuple(range(lead)))
    want = want.sum(axis=tuple(i for i, s in enumerate(size) if s == 1 and want.shape[i] != 1),
                    keepdims=True)
    np.testing.assert_allclose(got.cpu().numpy(), want.reshape(size), rtol=1e-12)


def test_resize_keeps_the_storage_prefix():
    a = torch.arange(6.0)
    view = a[:]
    a.resize_(2, 2)  # shrinks in place: same memory, other views unchanged
    assert a.data_ptr() == view.data_ptr() and view.shape == (6,)
    a[0, 0] = 9.0
    assert view[0].item() == 9.0
    a.resize_(4, 3)  # grows: the old values first
    np.testing.assert_array_equal(a.flatten()[:6].cpu().numpy(), [9, 1, 2, 3, 4, 5])
    assert a.shape == (4, 3) and a.is_contiguous()
    empty = torch.empty(0, dtype=torch.int32)
    empty.resize_(5).fill_(7)
    assert empty.tolist() == [7] * 5


@pytest.mark.host_only  # apply_, map_ and map2_ take CPU tensors only, as PyTorch's
def test_apply_and_map_are_elementwise_python():
    a = np.arange(6.0).reshape(2, 3)
    t = torch.tensor(a)
    t.apply_(lambda v: v * v + 1)
    np.testing.assert_array_equal(t.cpu().numpy(), a * a + 1)
    t.map2_(torch.tensor(a), torch.tensor([1.0, 2.0, 3.0]), lambda s, x, y: s - x * y)
    np.testing.assert_array_equal(t.cpu().numpy(), a * a + 1 - a * [1, 2, 3])


def test_as_strided_scatter_gradients():
    x = torch.rand(6, dtype=torch.float64, requires_grad=True)
    s = torch.rand(2, 2, dtype=torch.float64, requires_grad=True)
    assert torch.autograd.gradcheck(lambda a, b: torch.as_strided_scatter(a, b, (2, 2), (1, 2)),
                                    (x, s))
    m = torch.rand(3, 4, dtype=torch.float64, requires_grad=True)
    assert torch.autograd.gradcheck(  # through a transposed view: input's own storage layout
        lambda a, b: torch.as_strided_scatter(a.t(), b, (2, 2), (1, 3)), (m, s))


# ---- post-accumulate-grad hooks ----------------------------------------------------------

def test_post_accumulate_grad_hook_runs_after_accumulation():
    x = torch.ones(2, requires_grad=True)
    seen = []
    handle = x.register_post_accumulate_grad_hook(lambda t: seen.append((t is x,
                                                                         t.grad.tolist())))
    (x * 3).sum().backward()
    (x * 3).sum().backward()
    assert seen == [(True, [3.0, 3.0]), (True, [6.0, 6.0])]
    handle.remove()
    (x * 3).sum().backward()
    assert len(seen) == 2


def test_post_accumulate_grad_hook_order_and_targets():
    z = torch.ones(2, requires_grad=True)
    log = []
    z.register_hook(lambda g: log.append("pre"))
    z.register_post_accumulate_grad_hook(lambda t: log.append(("post", t.grad.tolist())))
    (z * 2).sum().backward()
    assert log == ["pre", ("post", [2.0, 2.0])]
    torch.autograd.grad((z * 2).sum(), z)  # .grad is not accumulated: no post hook
    assert log[-1] == "pre"
    (z * 2).sum().backward(inputs=[z])
    assert log[-1] == ("post", [4.0, 4.0])


def test_post_accumulate_grad_hook_can_step_the_parameter():
    w = torch.ones(2, requires_grad=True)

    def step(t):
        with torch.no_grad():
            t.sub_(0.5 * t.grad)
        t.grad = None
    w.register_post_accumulate_grad_hook(step)
    (w * 2).sum().backward()
    assert w.tolist() == [0.0, 0.0] and w.grad is None


def test_post_accumulate_grad_hook_errors():
    x = torch.ones(2, requires_grad=True)
    with pytest.raises(RuntimeError, match="^post accumulate grad hooks cannot be registered on "
                                           "non-leaf tensors$"):
        (x * 2).register_post_accumulate_grad_hook(lambda t: None)
    with pytest.raises(RuntimeError, match="doesn't require gradient"):
        torch.ones(2).register_post_accumulate_grad_hook(lambda t: None)
    h = x.register_post_accumulate_grad_hook(lambda t: 5)
    with pytest.raises(TypeError, match="^expected Variable, but hook returned 'int'$"):
        (x * 3).sum().backward()
    h.remove()
    h = x.register_post_accumulate_grad_hook(lambda t: t * 2)
    with pytest.raises(RuntimeError, match=r"^Tensor post accumulate grad hooks should return "
                                           r"None\.$"):
        (x * 3).sum().backward()
    h.remove()

    def boom(t):
        raise ValueError("boom")
    x.register_post_accumulate_grad_hook(boom)
    with pytest.raises(ValueError, match="boom"):
        (x * 3).sum().backward()


# ---- switches ------------------------------------------------------------------------------

@pytest.fixture
def switches():
    from torchlike import _flags
    saved = dict(_flags._state)
    device = torch.get_default_device()  # set_default_tensor_type sets it too
    yield _flags
    _flags._state.clear()
    _flags._state.update(saved)
    torch.set_default_device(device)
    torch.set_float32_matmul_precision("highest")
    torch.set_default_dtype(torch.float32)


def test_matmul_precision_drives_the_cublas_switch(switches):
    from torchlike import _C
    torch.set_float32_matmul_precision("medium")
    assert _C._cublas_allow_tf32()
    torch.set_float32_matmul_precision("highest")
    assert not _C._cublas_allow_tf32()
    torch.backends.cuda.matmul.allow_tf32 = True
    assert torch.get_float32_matmul_precision() == "high"


def test_interop_threads_are_set_once(switches):
    switches._state["interop"] = None
    assert torch.get_num_interop_threads() == torch.get_num_threads()
    torch.set_num_interop_threads(3)
    assert torch.get_num_interop_threads() == 3
    with pytest.raises(RuntimeError, match="cannot set number of interop threads"):
        torch.set_num_interop_threads(2)


def test_default_tensor_type_warns_once_unless_warn_always(switches):
    switches._state["warned_default_type"] = False
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        torch.set_default_tensor_type(torch.DoubleTensor)
        torch.set_default_tensor_type(torch.FloatTensor)
        torch.set_warn_always(True)
        torch.set_default_tensor_type("torchlike.FloatTensor")
    assert [str(w.message).split("(")[0] for w in caught] == \
        ["torchlike.set_default_tensor_type", "torchlike.set_default_tensor_type"]
    assert torch.get_default_dtype() == torch.float32
