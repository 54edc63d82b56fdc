"""What __torch_function__ receives, call by call, against PyTorch's golden
traces (tests/golden/torch_function.json, recorded from the same scripts in
tests/torch_function_cases.py by scripts/golden_torch_function.py)."""
import json
import math
import os

import pytest

import torchlike
from torch_function_cases import CASES

GOLDEN = json.load(open(os.path.join(os.path.dirname(__file__), "golden",
                                     "torch_function.json")))


def _same_entry(ours, theirs):
    """A log entry: the name and argument kinds must match; keyword names
    given by the caller must be among PyTorch's (PyTorch's Python functions
    also pass their defaults as keywords)."""
    if len(theirs) == 3 and isinstance(theirs[2], list) and len(ours) == 3:
        return ours[:2] == theirs[:2] and set(ours[2]) <= set(theirs[2])
    return ours == theirs


def _close(a, b):
    if isinstance(a, float) and isinstance(b, (int, float)):
        return math.isclose(a, b, rel_tol=1e-6, abs_tol=1e-7)
    if isinstance(a, list) and isinstance(b, list):
        return len(a) == len(b) and all(_close(x, y) for x, y in zip(a, b))
    if isinstance(a, str) and isinstance(b, str):
        return a.replace("torchlike", "torch") == b
    return a == b


@pytest.mark.parametrize("name", sorted(CASES))
def test_trace_matches_pytorch(name):
    log, results = CASES[name](torchlike)
    golden_log, golden_results = GOLDEN[name]
    assert len(log) == len(golden_log), _diff(log, golden_log)
    for i, (ours, theirs) in enumerate(zip(log, golden_log)):
        assert _same_entry(ours, theirs), (i, ours, theirs, _diff(log, golden_log))
    assert len(results) == len(golden_results)
    for ours, theirs in zip(results, golden_results):
        assert _close(ours, theirs), (ours, theirs)


def _diff(ours, theirs):
    import difflib
    return "\n".join(difflib.unified_diff([repr(e[:2]) for e in theirs],
                                          [repr(e[:2]) for e in ours], "pytorch", "torchlike",
                                          lineterm="", n=1))
