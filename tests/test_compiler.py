"""torchlike.compiler, torchlike._dynamo and torchlike.compile: an eager
library's compiler controls, against PyTorch's recorded answers
(tests/golden/api_modules.json)."""
import pytest

import torchlike as torch
from api_modules_golden import GOLDEN, check


@pytest.mark.parametrize("call,expected", GOLDEN["compiler"],
                         ids=[c for c, _ in GOLDEN["compiler"]])
def test_matches_pytorch(call, expected):
    check("compiler", call, expected)


def test_set_stance_call_context_and_decorator():
    assert torch.compiler.get_stance() == "default"
    with torch.compiler.set_stance("force_eager"):
        assert torch.compiler.get_stance() == "force_eager"
    assert torch.compiler.get_stance() == "default"

    @torch.compiler.set_stance("eager_on_recompile")
    def inner():
        return torch.compiler.get_stance()

    assert torch.compiler.get_stance() == "default"     # decorating does not set it
    assert inner() == "eager_on_recompile" and torch.compiler.get_stance() == "default"
    torch.compiler.set_stance("force_eager")             # a plain call lasts
    try:
        assert torch.compiler.get_stance() == "force_eager"
    finally:
        torch.compiler.set_stance("default")


def test_compile_wraps_modules_and_backends_accepted():
    net = torch.nn.Linear(2, 2)
    assert torch.compile(net)._orig_mod is net
    for backend in torch.compiler.list_backends(exclude_tags=()):
        assert torch.compile(net, backend=backend)._orig_mod is net
    assert torch.compile(net, backend=lambda gm, inputs: gm)._orig_mod is net   # custom ones too
    assert torch.compile(net, disable=True) is net


def test_compiled_module_is_an_optimized_module_over_the_original():
    """What a training script does with torch.compile(model): train it, read
    model._orig_mod, save state dicts with the _orig_mod. prefix and load
    them back; attribute writes, train()/eval() and len() reach the
    original; deepcopy and whole-model save work."""
    import copy
    import io

    import numpy as np
    from torchlike._dynamo.eval_frame import OptimizedModule
    model = torch.nn.Sequential(torch.nn.Linear(3, 4), torch.nn.ReLU(), torch.nn.Linear(4, 1))
    compiled = torch.compile(model)
    assert isinstance(compiled, OptimizedModule) and isinstance(compiled, torch.nn.Module)
    assert compiled._orig_mod is model and len(compiled) == 3
    assert [n for n, _ in compiled.named_parameters()] == \
        ["_orig_mod." + n for n, _ in model.named_parameters()]
    assert all(a is b for a, b in zip(compiled.parameters(), model.parameters()))
    x = torch.ones(2, 3)
    np.testing.assert_array_equal(compiled(x).detach().numpy(), model(x).detach().numpy())
    compiled.eval()
    assert not model.training and not compiled.training and not model[0].training
    compiled.tag = "run-1"
    assert model.tag == "run-1" and compiled.tag == "run-1"
    state = compiled.state_dict()
    assert list(state) == ["_orig_mod." + k for k in model.state_dict()]
    with pytest.raises(RuntimeError, match="Missing key"):
        compiled.load_state_dict(model.state_dict())
    other = torch.compile(torch.nn.Sequential(torch.nn.Linear(3, 4), torch.nn.ReLU(),
                                              torch.nn.Linear(4, 1)))
    other.load_state_dict(state)
    np.testing.assert_array_equal(other(x).detach().numpy(), model(x).detach().numpy())
    twin = copy.deepcopy(compiled)
    assert type(twin) is OptimizedModule and twin._orig_mod is not model
    buf = io.BytesIO()
    torch.save(compiled, buf)
    buf.seek(0)
    assert list(torch.load(buf, weights_only=False).state_dict()) == list(state)
    with pytest.raises(TypeError, match="not subscriptable"):
        compiled[0]
    with pytest.raises(torch._dynamo.exc.InvalidBackend):
        torch.compiler.set_default_backend("nope")


def test_disable_wraps_and_keeps_metadata():
    def f(x):
        """doc"""
        return x + 1

    g = torch.compiler.disable(f)
    assert g.__name__ == "f" and g.__doc__ == "doc" and g.__wrapped__ is f
    assert g(1) == 2


def test_dynamo_config_keeps_values():
    old = torch._dynamo.config.cache_size_limit
    torch._dynamo.config.cache_size_limit = 64
    try:
        assert torch._dynamo.config.cache_size_limit == 64
    finally:
        torch._dynamo.config.cache_size_limit = old
    assert torch._dynamo.optimize("inductor")(len) is len
