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


def test_compile_returns_callable_unchanged_and_backends_accepted():
    net = torch.nn.Linear(2, 2)
    assert torch.compile(net) is net
    for backend in torch.compiler.list_backends(exclude_tags=()):
        assert torch.compile(net, backend=backend) is net
    assert torch.compile(net, backend=lambda gm, inputs: gm) is net   # custom backends too
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
