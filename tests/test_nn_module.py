"""nn.Module, Parameter and the containers: registration, traversal, state
dicts, modes, conversion, hooks, lazy modules, copying."""
import copy
from collections import OrderedDict

import numpy as np
import pytest

import torchlike as torch
import torchlike.nn as nn


class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc1 = nn.Linear(3, 4)
        self.bn = nn.BatchNorm1d(4)
        self.fc2 = nn.Linear(4, 2)
        self.register_buffer("steps", torch.zeros(()))
        self.register_buffer("scratch", torch.ones(2), persistent=False)
        self.scale = nn.Parameter(torch.ones(1))

    def forward(self, x):
        return self.fc2(torch.tanh(self.bn(self.fc1(x)))) * self.scale


# ---- Parameter ---------------------------------------------------------------------------

def test_parameter_shares_storage_requires_grad_and_prints_as_pytorch():
    t = torch.randn(2, 3)
    p = nn.Parameter(t)
    assert isinstance(p, torch.Tensor) and p.requires_grad and p.is_leaf
    assert p.data_ptr() == t.data_ptr()
    assert repr(p).startswith("Parameter containing:\ntensor(")
    assert not nn.Parameter(t, requires_grad=False).requires_grad
    assert type(p * 2) is torch.Tensor   # ops on a Parameter give plain tensors
    assert nn.Parameter().shape == (0,)


def test_parameter_deepcopy_gives_a_new_parameter():
    p = nn.Parameter(torch.randn(3))
    q = copy.deepcopy(p)
    assert isinstance(q, nn.Parameter) and q.requires_grad
    assert q.data_ptr() != p.data_ptr()
    np.testing.assert_array_equal(q.detach().cpu().numpy(), p.detach().cpu().numpy())


def test_parameter_rejects_non_tensors_and_nonleaf_registration():
    with pytest.raises(TypeError):
        nn.Parameter([1.0, 2.0])
    m = nn.Module()
    with pytest.raises(TypeError, match="torch.nn.Parameter or None required"):
        m.register_parameter("w", torch.zeros(2))


# ---- registration and traversal -------------------------------------------------------------

def test_setattr_registers_parameters_buffers_and_modules_in_order():
    m = Net()
    assert list(m._parameters) == ["scale"]
    assert list(m._modules) == ["fc1", "bn", "fc2"]
    assert list(m._buffers) == ["steps", "scratch"]
    assert [n for n, _ in m.named_parameters()] == [
        "scale", "fc1.weight", "fc1.bias", "bn.weight", "bn.bias", "fc2.weight", "fc2.bias"]
    assert [n for n, _ in m.named_buffers()] == [
        "steps", "scratch", "bn.running_mean", "bn.running_var", "bn.num_batches_tracked"]
    assert [n for n, _ in m.named_children()] == ["fc1", "bn", "fc2"]
    assert [n for n, _ in m.named_modules()] == ["", "fc1", "bn", "fc2"]
    assert [n for n, _ in m.named_modules(prefix="net")] == ["net", "net.fc1", "net.bn",
                                                              "net.fc2"]
    assert [n for n, _ in m.named_parameters(prefix="p", recurse=False)] == ["p.scale"]


def test_reassigning_an_attribute_moves_it_between_kinds():
    m = Net()
    m.fc1 = None                     # a registered module may be set to None
    assert m.fc1 is None and "fc1" in m._modules
    with pytest.raises(TypeError, match="as parameter 'scale'"):
        m.scale = nn.Linear(1, 1)    # a parameter's name takes a Parameter or None
    del m.scale
    m.scale = nn.Linear(1, 1)
    assert "scale" not in m._parameters and "scale" in m._modules
    with pytest.raises(TypeError, match="cannot assign"):
        m.bn = torch.zeros(1)
    m.steps = torch.ones(())         # a plain tensor assigned to a buffer name stays a buffer
    assert "steps" in m._buffers
    del m.steps
    assert "steps" not in m._buffers
    with pytest.raises(AttributeError):
        m.steps


def test_shared_parameters_and_modules_are_listed_once_unless_asked():
    lin = nn.Linear(2, 2)
    seq = nn.Sequential(lin, nn.ReLU(), lin)
    assert len(list(seq.parameters())) == 2
    assert [n for n, _ in seq.named_parameters(remove_duplicate=False)] == [
        "0.weight", "0.bias", "2.weight", "2.bias"]
    assert [n for n, _ in seq.named_modules()] == ["", "0", "1"]
    assert [n for n, _ in seq.named_modules(remove_duplicate=False)] == ["", "0", "1", "2"]


def test_register_errors_name_the_problem():
    m = nn.Module()
    with pytest.raises(KeyError, match="contain"):
        m.register_buffer("a.b", torch.zeros(1))
    with pytest.raises(KeyError, match="empty string"):
        m.register_parameter("", None)
    with pytest.raises(TypeError, match="is not a Module subclass"):
        m.add_module("x", 3)
    m.register_module("child", nn.ReLU())
    assert m.child is m.get_submodule("child")


def test_get_submodule_parameter_buffer():
    m = nn.Sequential(OrderedDict(block=Net()))
    assert m.get_submodule("block.fc2") is m.block.fc2
    assert m.get_parameter("block.fc1.bias") is m.block.fc1.bias
    assert m.get_buffer("block.bn.running_var") is m.block.bn.running_var
    with pytest.raises(AttributeError, match="has no attribute `nope`"):
        m.get_submodule("block.nope")
    with pytest.raises(AttributeError, match="is not an nn.Parameter"):
        m.get_parameter("block.steps")


# ---- state dict ------------------------------------------------------------------------------

def test_state_dict_keys_detach_and_skip_non_persistent_buffers():
    m = Net()
    sd = m.state_dict()
    assert list(sd) == ["scale", "steps", "fc1.weight", "fc1.bias", "bn.weight", "bn.bias",
                        "bn.running_mean", "bn.running_var", "bn.num_batches_tracked",
                        "fc2.weight", "fc2.bias"]
    assert not sd["fc1.weight"].requires_grad
    assert sd["fc1.weight"].data_ptr() == m.fc1.weight.data_ptr()
    assert m.state_dict(keep_vars=True)["fc1.weight"] is m.fc1.weight
    assert list(m.fc1.state_dict(prefix="a.")) == ["a.weight", "a.bias"]


def test_load_state_dict_copies_values_and_reports_keys():
    a, b = Net(), Net()
    b.load_state_dict(a.state_dict())
    for (k, va), (_, vb) in zip(a.state_dict().items(), b.state_dict().items()):
        np.testing.assert_array_equal(va.cpu().numpy(), vb.cpu().numpy(), err_msg=k)
    sd = a.state_dict()
    del sd["fc2.bias"]
    sd["extra.weight"] = torch.zeros(1)
    result = b.load_state_dict(sd, strict=False)
    assert result.missing_keys == ["fc2.bias"]
    assert result.unexpected_keys == ["extra.weight"]
    with pytest.raises(RuntimeError, match=r'Missing key\(s\) in state_dict: "fc2.bias"'):
        b.load_state_dict(sd)
    assert repr(b.load_state_dict(a.state_dict())) == "<All keys matched successfully>"


def test_load_state_dict_shape_mismatch_names_key_and_both_shapes():
    m = nn.Linear(3, 4)
    with pytest.raises(RuntimeError) as info:
        m.load_state_dict({"weight": torch.zeros(4, 2), "bias": torch.zeros(4)}, strict=False)
    msg = str(info.value)
    assert "size mismatch for weight" in msg and "[4, 2]" in msg and "[4, 3]" in msg


def test_state_dict_hooks_run():
    m = nn.Linear(2, 2)
    seen = []
    m.register_state_dict_pre_hook(lambda mod, prefix, keep: seen.append(("pre", prefix)))

    def post(mod, sd, prefix, meta):
        sd[prefix + "extra"] = torch.ones(1)
    m.register_state_dict_post_hook(post)
    sd = m.state_dict()
    assert seen == [("pre", "")] and "extra" in sd
    calls = []
    m.register_load_state_dict_post_hook(lambda mod, keys: calls.append(list(keys.unexpected_keys)))
    m.load_state_dict(sd, strict=False)
    assert calls == [["extra"]]


# ---- modes, gradients, apply, conversion ---------------------------------------------------

def test_train_eval_recurse_and_change_dropout_and_batchnorm():
    m = nn.Sequential(nn.Linear(4, 4), nn.Dropout(0.5), nn.BatchNorm1d(4))
    assert all(mod.training for mod in m.modules())
    m.eval()
    assert not any(mod.training for mod in m.modules())
    x = torch.randn(8, 4)
    np.testing.assert_array_equal(m(x).detach().cpu().numpy(), m(x).detach().cpu().numpy())
    m.train()
    with pytest.raises(ValueError):
        m.train("yes")


def test_zero_grad_requires_grad_and_apply():
    m = Net()
    m(torch.randn(5, 3)).sum().backward()
    assert all(p.grad is not None for p in m.parameters())
    m.zero_grad(set_to_none=False)
    assert all(float(p.grad.abs().sum()) == 0 for p in m.parameters())
    m.zero_grad()
    assert all(p.grad is None for p in m.parameters())
    m.requires_grad_(False)
    assert not any(p.requires_grad for p in m.parameters())
    names = []
    m.apply(lambda mod: names.append(type(mod).__name__))
    assert names == ["Linear", "BatchNorm1d", "Linear", "Net"]


@pytest.mark.parametrize("method,dtype", [("double", torch.float64), ("half", torch.float16),
                                          ("bfloat16", torch.bfloat16),
                                          ("float", torch.float32)])
def test_dtype_conversion_keeps_parameter_objects_and_integer_buffers(method, dtype):
    m = Net()
    w = m.fc1.weight
    getattr(m, method)()
    assert m.fc1.weight is w and isinstance(w, nn.Parameter) and w.dtype == dtype
    assert m.bn.running_mean.dtype == dtype
    assert m.bn.num_batches_tracked.dtype == torch.int64


def test_to_forms():
    m = Net()
    assert m.to(torch.float64).fc1.weight.dtype == torch.float64
    assert m.to("cpu", torch.float32).fc1.weight.dtype == torch.float32
    assert m.to(torch.zeros(1, dtype=torch.float64)).fc2.bias.dtype == torch.float64
    assert m.to(device="cpu", dtype=torch.float32, non_blocking=True) is m
    assert m.cpu() is m and m.type(torch.float64).scale.dtype == torch.float64
    with pytest.raises(TypeError, match="floating point or complex"):
        m.to(torch.int32)


def test_gradients_follow_conversion():
    m = nn.Linear(2, 2)
    m(torch.randn(3, 2)).sum().backward()
    m.double()
    assert m.weight.grad.dtype == torch.float64


# ---- hooks -----------------------------------------------------------------------------------

def test_forward_pre_hooks_and_hooks_can_replace_args_and_output():
    m = nn.Linear(2, 2)
    x = torch.randn(3, 2)
    h1 = m.register_forward_pre_hook(lambda mod, args: (args[0] * 0,))
    out = m(x)
    np.testing.assert_allclose(out.detach().cpu().numpy(), np.broadcast_to(m.bias.detach().cpu().numpy(),
                                                                      (3, 2)))
    h1.remove()
    h2 = m.register_forward_hook(lambda mod, args, out: out + 1)
    np.testing.assert_allclose(m(x).detach().cpu().numpy(),
                               (x @ m.weight.t() + m.bias + 1).detach().cpu().numpy(), rtol=1e-6)
    h2.remove()
    seen = []

    def pre_kw(mod, args, kwargs):
        seen.append(sorted(kwargs))
        return args, kwargs
    m2 = nn.MultiheadAttention(4, 1)
    m2.register_forward_pre_hook(pre_kw, with_kwargs=True)
    m2.register_forward_hook(lambda mod, args, kwargs, out: seen.append("post"),
                             with_kwargs=True)
    q = torch.randn(3, 1, 4)
    m2(q, q, q, need_weights=False)
    assert seen == [["need_weights"], "post"]


def test_hook_order_prepend_and_global_hooks():
    from torchlike.nn.modules.module import register_module_forward_hook
    m = nn.ReLU()
    order = []
    m.register_forward_hook(lambda *a: order.append("a"))
    m.register_forward_hook(lambda *a: order.append("b"), prepend=True)
    handle = register_module_forward_hook(lambda *a: order.append("global"))
    try:
        m(torch.zeros(1))
    finally:
        handle.remove()
    assert order == ["global", "b", "a"]


def test_full_backward_hooks_see_input_and_output_gradients():
    torch.manual_seed(0)  # rtol 1e-6 in float32: fixed inputs, whatever ran before
    m = nn.Linear(3, 2)
    x = torch.randn(4, 3, requires_grad=True)
    got = {}

    def pre(mod, grad_output):
        got["pre"] = grad_output[0].clone()
        return (grad_output[0] * 2,)

    def hook(mod, grad_input, grad_output):
        got["in"] = grad_input[0].clone()
        got["out"] = grad_output[0].clone()
    m.register_full_backward_pre_hook(pre)
    m.register_full_backward_hook(hook)
    (m(x) * 3).sum().backward()
    np.testing.assert_allclose(got["pre"].cpu().numpy(), np.full((4, 2), 3.0))
    np.testing.assert_allclose(got["out"].cpu().numpy(), np.full((4, 2), 6.0))
    expected = np.full((4, 2), 6.0) @ m.weight.detach().cpu().numpy()
    np.testing.assert_allclose(got["in"].cpu().numpy(), expected, rtol=1e-6)
    np.testing.assert_allclose(x.grad.cpu().numpy(), expected, rtol=1e-6)



def test_always_call_forward_hooks_run_when_forward_raises():
    # PyTorch runs the always_call hooks (module and global, with kwargs or
    # not) with output None when a pre-hook or forward raises, then re-raises;
    # a hook's own error is only warned about
    from torchlike.nn.modules import module as mm

    class Boom(nn.Module):
        def forward(self, x, scale=1.0):
            raise KeyError("k")
    m, seen = Boom(), []
    m.register_forward_hook(lambda mod, args, out: seen.append(("plain", out)),
                            always_call=True)
    m.register_forward_hook(lambda mod, args, kw, out: seen.append(("kw", kw, out)),
                            with_kwargs=True, always_call=True)
    m.register_forward_hook(lambda mod, args, out: seen.append("never"))
    handle = mm.register_module_forward_hook(lambda mod, args, out: seen.append(("g", out)),
                                             always_call=True)
    try:
        with pytest.raises(KeyError):
            m(torch.zeros(1), scale=2.0)
    finally:
        handle.remove()
    assert seen == [("g", None), ("plain", None), ("kw", {"scale": 2.0}, None)]

    m2 = Boom()
    m2.register_forward_hook(lambda *a: 1 / 0, always_call=True)
    with pytest.warns(UserWarning, match="always_call=True.*division by zero"):
        with pytest.raises(KeyError):
            m2(torch.zeros(1))
    seen.clear()
    ok = nn.ReLU()
    ok.register_forward_hook(lambda mod, args, out: seen.append("once"), always_call=True)
    ok(torch.zeros(1))
    assert seen == ["once"]


def test_global_hooks_with_kwargs_backward_and_registration():
    from torchlike.nn.modules import module as mm
    m = nn.Sequential(nn.Linear(3, 4), nn.ReLU())
    seen = []
    handles = [
        mm.register_module_forward_hook(lambda mod, a, kw, out: seen.append(("fk", kw)),
                                        with_kwargs=True),
        mm.register_module_full_backward_pre_hook(
            lambda mod, go: seen.append(("bpre", type(mod).__name__))),
        mm.register_module_full_backward_hook(
            lambda mod, gi, go: seen.append(("b", type(mod).__name__))),
    ]
    try:
        m(torch.randn(2, 3, requires_grad=True)).sum().backward()
    finally:
        for h in handles:
            h.remove()
    assert seen[:3] == [("fk", {}), ("fk", {}), ("fk", {})]
    assert sorted(seen[3:]) == sorted([("bpre", "Sequential"), ("bpre", "ReLU"),
                                       ("bpre", "Linear"), ("b", "Sequential"),
                                       ("b", "ReLU"), ("b", "Linear")])
    seen.clear()
    m(torch.randn(2, 3, requires_grad=True)).sum().backward()
    assert seen == []

    names = []
    handles = [mm.register_module_parameter_registration_hook(lambda mod, n, p: names.append(n)),
               mm.register_module_buffer_registration_hook(lambda mod, n, b: names.append(n)),
               mm.register_module_module_registration_hook(lambda mod, n, s: names.append(n))]
    try:
        nn.Sequential(nn.BatchNorm1d(2))
    finally:
        for h in handles:
            h.remove()
    assert names == ["weight", "bias", "running_mean", "running_var", "num_batches_tracked",
                     "0"]


# ---- repr ------------------------------------------------------------------------------------

def test_repr_layout_with_extra_repr_and_children():
    class Block(nn.Module):
        def __init__(self):
            super().__init__()
            self.inner = nn.Sequential(nn.Linear(2, 2))

        def extra_repr(self):
            return "size=2"
    assert repr(Block()) == ("Block(\n  size=2\n  (inner): Sequential(\n    (0): Linear("
                             "in_features=2, out_features=2, bias=True)\n  )\n)")
    assert repr(nn.Module()) == "Module()"


# ---- containers ------------------------------------------------------------------------------

def test_sequential_indexing_slicing_and_editing():
    a, b, c = nn.Linear(2, 3), nn.ReLU(), nn.Linear(3, 1)
    s = nn.Sequential(a, b)
    s.append(c)
    assert len(s) == 3 and s[0] is a and s[-1] is c
    assert isinstance(s[1:], nn.Sequential) and list(s[1:]) == [b, c]
    d = nn.Tanh()
    s.insert(1, d)
    assert list(s) == [a, d, b, c] and list(s._modules) == ["0", "1", "2", "3"]
    del s[1]
    assert list(s) == [a, b, c] and list(s._modules) == ["0", "1", "2"]
    s.extend([nn.Sigmoid()])
    assert len(s) == 4
    s[3] = nn.Identity()
    assert isinstance(s[3], nn.Identity)
    x = torch.randn(5, 2)
    np.testing.assert_allclose(s(x).detach().cpu().numpy(), c(b(a(x))).detach().cpu().numpy())
    with pytest.raises(IndexError):
        s[4]
    named = nn.Sequential(OrderedDict(first=nn.ReLU(), second=nn.Tanh()))
    assert list(named._modules) == ["first", "second"] and named[1] is named.second


def test_module_list_and_dict():
    ml = nn.ModuleList([nn.Linear(1, 1) for _ in range(3)])
    ml.append(nn.ReLU())
    ml.insert(0, nn.Tanh())
    assert [type(m).__name__ for m in ml] == ["Tanh", "Linear", "Linear", "Linear", "ReLU"]
    assert len(list(ml.parameters())) == 6
    assert isinstance(ml[1:3], nn.ModuleList) and len(ml[1:3]) == 2
    ml.extend([nn.Sigmoid()])
    assert len(ml) == 6
    md = nn.ModuleDict({"a": nn.ReLU()})
    md["b"] = nn.Linear(2, 2)
    md.update([("c", nn.Tanh())])
    assert list(md.keys()) == ["a", "b", "c"] and "b" in md
    assert [n for n, _ in md.named_parameters()] == ["b.weight", "b.bias"]
    assert md.pop("a").__class__ is nn.ReLU and len(md) == 2


def test_parameter_list_and_dict():
    pl = nn.ParameterList([torch.zeros(2), nn.Parameter(torch.ones(3))])
    assert all(isinstance(p, nn.Parameter) for p in pl)
    pl.append(torch.ones(1))
    assert [n for n, _ in pl.named_parameters()] == ["0", "1", "2"]
    pd = nn.ParameterDict({"w": torch.zeros(2)})
    pd["b"] = torch.ones(1)
    assert isinstance(pd["w"], nn.Parameter) and list(pd.keys()) == ["w", "b"]
    assert [n for n, _ in pd.named_parameters()] == ["w", "b"]


# ---- lazy modules and copying ---------------------------------------------------------------

def test_lazy_linear_and_conv_infer_their_input_size():
    lin = nn.LazyLinear(4)
    assert isinstance(lin.weight, nn.UninitializedParameter)
    out = lin(torch.randn(2, 7))
    assert type(lin) is nn.Linear and lin.in_features == 7 and out.shape == (2, 4)
    assert lin.weight.shape == (4, 7) and type(lin.weight) is nn.Parameter
    bound = 1 / np.sqrt(7)
    assert float(lin.weight.abs().max()) <= bound
    conv = nn.LazyConv2d(5, 3)
    assert conv(torch.randn(1, 2, 6, 6)).shape == (1, 5, 4, 4)
    assert type(conv) is nn.Conv2d and conv.weight.shape == (5, 2, 3, 3)


def test_lazy_state_dict_holds_the_placeholders_themselves():
    # PyTorch's state dict of a lazy module before its first call holds the
    # UninitializedParameter / UninitializedBuffer objects, not empty tensors
    bn = nn.LazyBatchNorm1d()
    sd = bn.state_dict()
    assert [type(v).__name__ for v in sd.values()] == [
        "UninitializedParameter", "UninitializedParameter", "UninitializedBuffer",
        "UninitializedBuffer", "Tensor"]
    assert sd["weight"] is bn.weight and sd["running_mean"] is bn.running_mean
    lin = nn.LazyLinear(2)
    lin.load_state_dict(nn.Linear(3, 2).state_dict())
    assert type(lin.state_dict()["weight"]) is torch.Tensor
    assert not lin.state_dict()["weight"].requires_grad


def test_deepcopy_gives_independent_module():
    m = Net()
    c = copy.deepcopy(m)
    assert c.fc1.weight is not m.fc1.weight and isinstance(c.fc1.weight, nn.Parameter)
    with torch.no_grad():
        c.fc1.weight.fill_(0)
    assert float(m.fc1.weight.abs().sum()) > 0
    np.testing.assert_array_equal(c.bn.running_var.cpu().numpy(), m.bn.running_var.cpu().numpy())


def test_state_dict_and_model_survive_save_load_and_pickle():
    import io
    import pickle
    m = Net()
    m(torch.randn(4, 3))     # moves the batch-norm statistics off their defaults
    buf = io.BytesIO()
    torch.save(m.state_dict(), buf)
    buf.seek(0)
    other = Net()
    other.load_state_dict(torch.load(buf))
    for (k, a), (_, b) in zip(m.state_dict().items(), other.state_dict().items()):
        np.testing.assert_array_equal(a.cpu().numpy(), b.cpu().numpy(), err_msg=k)
    clone = pickle.loads(pickle.dumps(m))
    assert isinstance(clone.fc1.weight, nn.Parameter) and clone.fc1.weight.requires_grad
    x = torch.randn(2, 3)
    m.eval()
    clone.eval()
    np.testing.assert_array_equal(clone(x).detach().cpu().numpy(), m(x).detach().cpu().numpy())


def test_set_submodule_modules_duplicates_and_typenames_in_errors():
    m = nn.Sequential(nn.ReLU(), nn.Sequential(nn.Tanh()))
    m.set_submodule("1.0", nn.GELU())
    m.set_submodule("1.x", nn.ELU())
    assert isinstance(m[1][0], nn.GELU) and isinstance(m[1].x, nn.ELU)
    with pytest.raises(AttributeError, match="^Sequential has no attribute `y`$"):
        m.set_submodule("1.y", nn.ELU(), strict=True)
    with pytest.raises(ValueError, match="^Cannot set the submodule without a target name!$"):
        m.set_submodule("", nn.ELU())
    with pytest.raises(ValueError, match="^`module` is not an nn.Module, found <class 'int'>$"):
        m.set_submodule("0", 3)
    with pytest.raises(AttributeError, match="^`weight` is not an nn.Module$"):
        nn.Linear(2, 2).set_submodule("weight", nn.ReLU())
    relu = nn.ReLU()
    twice = nn.Sequential(relu, relu)
    assert len(list(twice.modules())) == 2
    assert len(list(twice.modules(remove_duplicate=False))) == 3
    # PyTorch names the rejected value with torch.typename
    mod = nn.Module()
    with pytest.raises(TypeError, match=r"^cannot assign 'torchlike\.DoubleTensor' object to "
                                        r"parameter 'a' \(torch\.nn\.Parameter or None required\)$"):
        mod.register_parameter("a", torch.ones(1, dtype=torch.float64))
    with pytest.raises(TypeError, match=r"^cannot assign 'torchlike\.nn\.modules\.activation\."
                                        r"ReLU' object to parameter"):
        mod.register_parameter("a", nn.ReLU())
    mod.p = nn.Parameter(torch.ones(1))
    with pytest.raises(TypeError, match=r"^cannot assign 'torchlike\.FloatTensor' as parameter "
                                        r"'p' \(torch\.nn\.Parameter or None expected\)$"):
        mod.p = torch.ones(1)
    mod.register_buffer("b", torch.ones(1))
    with pytest.raises(TypeError, match=r"^cannot assign 'list' as buffer 'b' \(torch\.nn\.Buffer, "
                                        r"torch\.Tensor or None expected\)$"):
        mod.b = [1]
    from torchlike.nn.modules import module as mm
    seen = []
    handle = mm.register_module_module_registration_hook(lambda mod, n, s: seen.append(n))
    try:
        mod.child = nn.ReLU()
    finally:
        handle.remove()
    assert seen == ["child"]


def test_lazy_modules_follow_dtype_conversions_made_before_their_first_call():
    # PyTorch converts the placeholders, and materialize() takes their dtype
    import copy
    x = torch.tensor(np.random.default_rng(0).standard_normal((5, 4)))
    for m in (nn.LazyLinear(3).double(), nn.LazyLinear(3).to(torch.float64)):
        y = m(x)
        assert type(m) is nn.Linear and m.weight.dtype == torch.float64
        assert m.bias.dtype == torch.float64 and y.dtype == torch.float64
    bn = nn.LazyBatchNorm1d().double()
    bn(torch.ones(4, 3, dtype=torch.float64))
    assert bn.weight.dtype == torch.float64 and bn.running_mean.dtype == torch.float64
    assert bn.num_batches_tracked.dtype == torch.int64
    conv = copy.deepcopy(nn.LazyConv2d(4, 3).double())
    conv(torch.ones(1, 2, 5, 5, dtype=torch.float64))
    assert conv.weight.dtype == torch.float64 and tuple(conv.weight.shape) == (4, 2, 3, 3)


def test_lazy_norms_take_bias_and_hardtanh_its_deprecated_names():
    m = nn.LazyBatchNorm1d(bias=False)
    m(torch.ones(4, 3))
    assert m.bias is None and list(m.state_dict()) == ["weight", "running_mean", "running_var",
                                                       "num_batches_tracked"]
    assert "bias=False" in repr(m)
    with pytest.warns(FutureWarning) as record:
        h = nn.Hardtanh(min_value=-2.0, max_value=3.0)
    assert [str(w.message) for w in record] == [
        "keyword argument `min_value` is deprecated and renamed to `min_val`",
        "keyword argument `max_value` is deprecated and renamed to `max_val`"]
    assert (h.min_val, h.max_val) == (-2.0, 3.0)
    with pytest.raises(AssertionError, match=r"^max_val \(1.0\) must be greater than min_val "
                                             r"\(2.0\)$"):
        nn.Hardtanh(2.0, 1.0)


def test_parameter_dict_orders_a_plain_dict_and_has_the_dict_methods():
    # PyTorch sorts a plain mapping's keys (not an OrderedDict's), which
    # fixes the state_dict order
    p = nn.ParameterDict({"b": torch.ones(1), "a": torch.ones(2)})
    assert list(p.keys()) == ["a", "b"] and list(p.state_dict()) == ["a", "b"]
    p.update(OrderedDict([("d", torch.ones(1)), ("c", torch.ones(1))]))
    p.update([("f", torch.ones(1)), ("e", torch.ones(1))])
    assert list(p.keys()) == ["a", "b", "d", "c", "f", "e"]
    q = p.copy()
    assert list(q.keys()) == list(p.keys()) and q["a"] is p["a"]
    assert p.popitem()[0] == "e" and "e" not in p
    assert isinstance(p.setdefault("z", torch.zeros(3)), nn.Parameter) and "z" in p
    assert list(p.fromkeys(["x", "y"], torch.ones(1)).keys()) == ["x", "y"]
    assert list((q | {"n": torch.ones(1)}).keys())[-1] == "n"
    assert list(reversed(q))[0] == "e"
    with pytest.raises(TypeError, match="^ParametersDict.update should be called with an "
                                        "iterable of key/value pairs, but got int$"):
        p.update(3)
    with pytest.raises(ValueError, match="^ParameterDict update sequence element #0 has length "
                                         "3; 2 is required$"):
        p.update([(1, 2, 3)])
    with pytest.raises(TypeError, match="ModuleDict.update should be called"):
        nn.ModuleDict().update(3)


def test_load_state_dict_assign_takes_the_checkpoint_tensors():
    # assign=True was accepted and ignored (values copied into the old
    # float32 parameters); PyTorch makes the checkpoint's tensors the module's
    m = nn.Sequential(nn.Linear(2, 2), nn.BatchNorm1d(2))
    m[0].bias.requires_grad_(False)
    sd = {k: (v.double() * 2 if v.is_floating_point() else v) for k, v in m.state_dict().items()}
    r = m.load_state_dict(sd, assign=True)
    assert repr(r) == "<All keys matched successfully>"
    assert all(v.dtype in (torch.float64, torch.int64) for v in m.state_dict().values())
    assert m[0].weight.data_ptr() == sd["0.weight"].data_ptr()
    assert m[1].running_mean.data_ptr() == sd["1.running_mean"].data_ptr()
    assert isinstance(m[0].weight, nn.Parameter) and m[0].weight.requires_grad
    assert isinstance(m[0].bias, nn.Parameter) and not m[0].bias.requires_grad
    p = nn.Parameter(torch.ones(2, 2), requires_grad=False)
    lin = nn.Linear(2, 2)
    lin.load_state_dict({"weight": p, "bias": torch.zeros(2)}, assign=True)
    assert lin.weight is p and p.requires_grad  # takes the module parameter's flag
    with pytest.raises(RuntimeError, match="size mismatch for weight"):
        lin.load_state_dict({"weight": torch.ones(3, 2), "bias": torch.zeros(2)}, assign=True)
    plain = nn.Linear(2, 2)
    plain.load_state_dict({"weight": torch.ones(2, 2, dtype=torch.float64),
                           "bias": torch.zeros(2, dtype=torch.float64)})
    assert plain.weight.dtype == torch.float32  # without assign: copied in


def test_state_dict_positional_arguments_are_deprecated():
    m = nn.Linear(2, 2)
    with pytest.warns(FutureWarning, match="^Positional args are being deprecated, use kwargs "
                                           "instead"):
        d = m.state_dict(None, "p.")
    assert list(d) == ["p.weight", "p.bias"]
    import warnings
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert list(nn.Sequential(m).state_dict(prefix="q.")) == ["q.0.weight", "q.0.bias"]


def test_uninitialized_parameters_refuse_computation_and_shape():
    p = nn.UninitializedParameter()
    for op in (lambda: p + 1, lambda: p * 2, lambda: p.sum(), lambda: p.numel(), lambda: len(p),
               lambda: p @ torch.ones(2), lambda: p[0]):
        with pytest.raises(ValueError, match="^Attempted to use an uninitialized parameter in"):
            op()
    with pytest.raises(RuntimeError, match="^Can't access the shape of an uninitialized "
                                           "parameter or buffer"):
        p.shape
    assert p.dtype == torch.float32 and p.requires_grad and repr(p) == "<UninitializedParameter>"
    m = nn.LazyLinear(3)  # still usable the ways PyTorch allows
    assert list(m.state_dict()) == ["weight", "bias"]
    m.load_state_dict(nn.Linear(2, 3).state_dict())
    assert tuple(m.weight.shape) == (3, 2)


def test_old_and_full_backward_hooks_are_refused_together():
    """PyTorch refuses registering the deprecated and the full backward
    hooks on one module, whichever came first; both were taken here
    (training programs, round seven)."""
    import torchlike
    msg = ("^Cannot use both regular backward hooks and full backward hooks on a single "
           "Module. Please use only one of them.$")
    a = torchlike.nn.Linear(2, 2)
    a.register_full_backward_hook(lambda m, gi, go: None)
    with pytest.raises(RuntimeError, match=msg):
        a.register_backward_hook(lambda m, gi, go: None)
    b = torchlike.nn.Linear(2, 2)
    b.register_backward_hook(lambda m, gi, go: None)
    with pytest.raises(RuntimeError, match=msg):
        b.register_full_backward_hook(lambda m, gi, go: None)
    b.register_backward_hook(lambda m, gi, go: None)     # the same kind again is fine


def test_add_module_names_a_tensor_by_its_type_string():
    # torch.typename's "torch.FloatTensor", as PyTorch's message has it
    import torchlike
    with pytest.raises(TypeError, match=r"^torchlike.FloatTensor is not a Module subclass$"):
        torchlike.nn.Linear(2, 2).add_module("sub", torchlike.ones(2))


def test_buffer_returns_a_plain_tensor_marked_as_a_buffer():
    """nn.Buffer(t), as PyTorch's: a plain detached Tensor (not a subclass
    instance) that isinstance(..., nn.Buffer) recognises, stored by the
    module as it is; it was a Buffer instance here, replaced by a detached
    copy when assigned (training programs, round seven)."""
    import torchlike
    t = torchlike.ones(2, requires_grad=True)
    b = torchlike.nn.Buffer(t, persistent=False)
    assert type(b) is torchlike.Tensor and isinstance(b, torchlike.nn.Buffer)
    assert b.requires_grad and b.grad_fn is None and not isinstance(t, torchlike.nn.Buffer)
    m = torchlike.nn.Linear(2, 2)
    m.extra = b
    assert m.extra is b and "extra" not in m.state_dict()
    assert [n for n, _ in m.named_buffers()] == ["extra"]
    assert isinstance(torchlike.nn.parameter.UninitializedBuffer(), torchlike.nn.Buffer)


def test_full_backward_hooks_returning_gradients_of_another_size_or_dtype():
    # PyTorch's engine checks what the hooks return against what they got
    # (its wrapper is named 'hook'); the count is checked first
    x = torch.ones(1, 2, requires_grad=True)
    cases = [(lambda m, gi, go: (torch.ones(3),), "hook 'hook' has changed the size of value"),
             (lambda m, gi, go: (torch.ones(1, 2).double(),),
              "hook 'hook' has changed the type of value (was torchlike.FloatTensor got "
              "torchlike.DoubleTensor)"),
             (lambda m, gi, go: (torch.ones(1, 2), None),
              "Backward hook returned an invalid number of grad_input, got 2, but expected 1")]
    for hook, message in cases:
        m = nn.Linear(2, 2)
        m.register_full_backward_hook(hook)
        with pytest.raises(RuntimeError) as info:
            m(x).sum().backward()
        assert str(info.value) == message
    m = nn.Linear(2, 2)
    m.register_full_backward_pre_hook(lambda m, go: (torch.ones(3),))
    with pytest.raises(RuntimeError, match="^hook 'hook' has changed the size of value$"):
        m(x).sum().backward()
    m = nn.Linear(2, 2)
    m.register_full_backward_hook(lambda m, gi, go: (gi[0] * 5,))
    m(x).sum().backward()   # a same-shaped replacement is taken
    np.testing.assert_allclose(x.grad.cpu().numpy(),
                               5 * m.weight.detach().sum(0).cpu().numpy()[None], rtol=1e-6)


def test_parameter_dict_refuses_keys_that_are_not_strings():
    # PyTorch's words, for every way in; the refused key is not kept
    pd = nn.ParameterDict({"a": torch.ones(1)})
    words = (r"^Index given to ParameterDict cannot be used as a key as it is not a string "
             r"\(type is 'int'\)\. Open an issue on github if you need non-string keys\.$")
    for call in (lambda: pd.__setitem__(3, torch.ones(1)), lambda: pd[3], lambda: pd.pop(3),
                 lambda: pd.__delitem__(3), lambda: pd.setdefault(3, torch.ones(1)),
                 lambda: pd.update({3: torch.ones(1)}),
                 lambda: nn.ParameterDict({3: torch.ones(1)})):
        with pytest.raises(TypeError, match=words):
            call()
    assert list(pd) == ["a"] and 3 not in pd and pd.get(3) is None
    assert list(pd.state_dict()) == ["a"]
