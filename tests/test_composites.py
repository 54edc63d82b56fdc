"""The functions of torchlike/_composites.py (addcmul, diff, isin, cov,
view_as_real, trapezoid, the window functions ...): PyTorch's recorded
answers (tests/golden/composites.json, scripts/golden_composites.py) for
dtypes, shapes and messages; NumPy references for values, gradcheck in
float64 for derivatives, non-contiguous inputs."""
import math

import numpy as np
import pytest

import torchlike as T
from oracle import golden_calls

CALLS, _golden = golden_calls("composites")


def _close(got, want):
    """Described results equal, floats to 5 significant-ish digits."""
    if isinstance(want, float) and isinstance(got, float):
        if math.isnan(want):
            return math.isnan(got)
        return got == want or abs(got - want) <= 2e-5 * max(1.0, abs(want))
    if isinstance(want, list) and isinstance(got, list):
        return len(got) == len(want) and all(_close(g, w) for g, w in zip(got, want))
    return got == want


@pytest.mark.parametrize("call,expected", CALLS, ids=[c for c, _ in CALLS])
def test_matches_pytorch(call, expected):
    env = _golden.inputs(T)
    if expected[0] == "raises":
        with pytest.raises(Exception) as e:
            eval(call, env)
        assert type(e.value).__name__ == expected[1], (call, str(e.value))
        words = expected[2].split(": got")[0].split(", got:")[0].replace("  ", " ")
        assert words[:40] in str(e.value).replace("  ", " "), (call, str(e.value))
        return
    got = _golden.describe(eval(call, env))
    assert _close(got, expected), (call, got, expected)
