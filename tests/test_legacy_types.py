"""The legacy tensor types (torchlike.FloatTensor ..., torchlike.cuda.*),
Tensor.type()/type_as(), and view_as/reshape_as/expand_as taking only their
first argument as an input, against PyTorch's recorded answers
(tests/golden/legacy_types.json, scripts/golden_legacy_types.py)."""
import pytest

import torchlike as T
from oracle import golden_calls

CALLS, _golden = golden_calls("legacy_types")


@pytest.mark.parametrize("call,expected", CALLS, ids=[c for c, _ in CALLS])
def test_legacy_types_match_pytorch(call, expected):
    env = _golden.inputs(T)
    if expected[0] == "raises":
        with pytest.raises(Exception) as e:
            eval(call, env)
        assert type(e.value).__name__ == expected[1], (call, str(e.value))
        if expected[1] == "ValueError":  # PyTorch's TypeErrors here quote its C++ internals
            assert str(e.value) == expected[2]
        return
    assert _golden.describe(eval(call, env)) == expected, call


def test_shape_arguments_get_no_gradient():
    """x.view_as(p) differentiates to x only: p's gradient stays None."""
    p = T.nn.Parameter(T.ones(2, 3))
    x = T.ones(6, requires_grad=True)
    (x.view_as(p) * 2).sum().backward()
    assert p.grad is None and x.grad.tolist() == [2.0] * 6
    y = T.ones(1, 3, requires_grad=True)
    y.expand_as(p).sum().backward()
    assert p.grad is None and y.grad.tolist() == [[2.0, 2.0, 2.0]]
