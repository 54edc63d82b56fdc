"""Tensor.dim_order() against PyTorch's recorded answers
(tests/golden/dim_order.json, scripts/golden_dim_order.py), and the order
it gives checked against the strides themselves."""
import itertools

import pytest

import torchlike as T
from oracle import golden_calls

CALLS, _golden = golden_calls("dim_order")


@pytest.mark.parametrize("call,expected", CALLS, ids=[c for c, _ in CALLS])
def test_dim_order_matches_pytorch(call, expected):
    env = _golden.inputs(T)
    if expected[0] == "raises":
        with pytest.raises(Exception) as e:
            eval(call, env)
        assert type(e.value).__name__ == expected[1], (call, str(e.value))
        assert str(e.value) == expected[2]
        return
    assert _golden.describe(eval(call, env)) == expected, call


@pytest.mark.parametrize("perm", list(itertools.permutations(range(4))))
def test_dim_order_undoes_a_permute(perm):
    """A permuted contiguous tensor with distinct sizes has one order, the
    inverse permutation, and its strides fall along it."""
    x = T.empty(2, 3, 4, 5).permute(*perm)
    order = x.dim_order(ambiguity_check=True)
    assert sorted(order) == [0, 1, 2, 3]
    strides = [x.stride(d) for d in order]
    assert strides == sorted(strides, reverse=True)
    assert order == tuple(perm.index(d) for d in range(4))


def test_dim_order_reaches_torch_function_and_takes_views_with_grad():
    seen = []

    class Sub(T.Tensor):
        @classmethod
        def __torch_function__(cls, func, types, args=(), kwargs=None):
            seen.append((func.__name__, kwargs))
            return super().__torch_function__(func, types, args, kwargs or {})

    x = T.ones(3, 4, requires_grad=True).t()
    assert x.dim_order() == (1, 0)
    assert T.ones(3, 4).as_subclass(Sub).t().dim_order(ambiguity_check=True) == (1, 0)
    assert ("dim_order", {"ambiguity_check": True}) in seen
