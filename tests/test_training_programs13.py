"""A thirteenth round of ordinary PyTorch training programs run on
torchlike (the list is being written; see the script's docstring).

The programs live in scripts/golden_training_programs13.py, taking the
library as T; PyTorch's answers are in tests/golden/training_programs13.json,
compared as in rounds four to twelve (floats within
oracle.FLOAT32_PROGRAMS)."""
import pytest

from oracle import FLOAT32_PROGRAMS, assert_program_matches, golden_calls

_CALLS, _GOLDEN = golden_calls("training_programs13")

# Programs torchlike does not match yet, each with the reason (strict: the
# day it matches, the mark must go).
_XFAIL = {}


@pytest.mark.parametrize("call,expected", [
    pytest.param(c, e, id=c, marks=[pytest.mark.xfail(strict=True, reason=_XFAIL[c])]
                 if c in _XFAIL else []) for c, e in _CALLS])
def test_program_matches_pytorch(call, expected):
    assert_program_matches(_GOLDEN, call, expected, FLOAT32_PROGRAMS)


def test_every_xfail_names_a_program():
    assert set(_XFAIL) <= {c for c, _ in _CALLS}
