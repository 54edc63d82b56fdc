"""Sizes and dims given as integer tensors against PyTorch's answers
(tests/golden/size_tensors.json, recorded by scripts/golden_size_tensors.py):
an int list (a size, a list of dims) takes any integer tensor of one element
whatever its dims, an int argument only a 0-d one; float, complex and bool
tensors are no ints."""
import pytest

import torchlike as tl
from oracle import golden_calls

CALLS, _golden = golden_calls("size_tensors")



@pytest.mark.parametrize("call,expected", CALLS, ids=[c for c, _ in CALLS])
def test_matches_pytorch(call, expected):
    env = _golden.make_env(tl)
    if expected[0] == "raises":
        with pytest.raises(Exception) as e:
            eval(call, env)
        assert type(e.value).__name__ == expected[1], (call, str(e.value))
        assert str(e.value)
        return
    assert _golden.describe(eval(call, env)) == expected, call


def test_one_element_sizes_are_recorded_as_ints():
    """A size given as a one-element tensor reaches backward as a plain int
    (the recorded call is normalised like a 0-d tensor's)."""
    x = tl.arange(6., requires_grad=True)
    y = x.view(tl.tensor([2]), 3).expand(tl.tensor([[2]]), 2, 3)
    y.sum().backward()
    assert x.grad.tolist() == [2.0] * 6
    x.grad = None
    z = x.reshape(3, tl.tensor([[2]])).repeat(1, tl.tensor([3])) * tl.arange(6.)
    z.sum().backward()
    assert x.grad.tolist() == [6.0, 9.0] * 3  # column j counts j


def test_bool_tensors_are_no_sizes():
    with pytest.raises(TypeError, match="element 0 is"):
        tl.zeros((tl.tensor(True), 3))
    with pytest.raises(TypeError):
        tl.zeros(tl.tensor(True))
