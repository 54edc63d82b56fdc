"""Tensors of huge sizes against PyTorch's answers (tests/golden/huge_empty.json,
recorded by scripts/golden_huge_empty.py): an empty tensor is made, viewed
and operated on whatever its other sizes ((0, 2**62) has stride 2**62), and
an element count or row-major stride past int64 is a RuntimeError, never a
wrapped size or a crash."""
import pytest

import torchlike as tl
from oracle import golden_calls

CALLS, _golden = golden_calls("huge_empty")

# torchlike's own limit: at most 2**56 elements (any element's byte offset
# in int64), where PyTorch would make a view of up to 2**63 - 1 elements
# over one (expand) or run out of memory
BEYOND_LIMIT = {"T.zeros(1).expand(2**63 - 1)"}


@pytest.mark.parametrize("call,expected", CALLS, ids=[c for c, _ in CALLS])
def test_matches_pytorch(call, expected):
    env = _golden.make_env(tl)
    if expected[0] == "raises":
        with pytest.raises(Exception) as e:
            eval(call, env)
        assert type(e.value).__name__ == expected[1] or (
            expected[1] == "RuntimeError" and isinstance(e.value, RuntimeError)), (call, e.value)
        assert str(e.value)
        return
    assert _golden.describe(eval(call, env)) == expected, call


def test_the_element_limit_is_a_runtime_error():
    for call in BEYOND_LIMIT:
        with pytest.raises(RuntimeError, match="at most 2\\^56 elements"):
            eval(call, _golden.make_env(tl))


def test_sizes_multiply_as_pytorch_counts_them():
    """In order, an overflow on the way sticking: a 0 after two huge sizes
    does not save the count, a 0 between them does."""
    h = 2 ** 62
    assert tl.zeros(h, 0, h).numel() == 0
    assert tl.zeros(h, 3, 0).numel() == 0     # 3 * 2**62 fits in uint64
    with pytest.raises(RuntimeError):
        tl.zeros(h, h, 0)
    with pytest.raises(RuntimeError, match="Stride calculation overflowed"):
        tl.empty(0, h, 4)
