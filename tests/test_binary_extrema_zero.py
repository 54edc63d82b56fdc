"""torch.maximum/minimum/fmax/fmin over tied -0.0 and +0.0 and NaN against
PyTorch's CPU answers, bit for bit in the sign of zero
(tests/golden/binary_extrema_zero.json, recorded by
scripts/golden_binary_extrema_zero.py from tests/binary_extrema_zero_cases.py,
which runs the very same code here)."""
import json
import os

import pytest

import binary_extrema_zero_cases
import torchlike as torch

with open(os.path.join(os.path.dirname(os.path.abspath(__file__)), "golden",
                       "binary_extrema_zero.json")) as _f:
    GOLDEN = json.load(_f)
GOLDEN.pop("torch_version")
OURS = binary_extrema_zero_cases.record(torch)


@pytest.mark.parametrize("name", sorted(GOLDEN))
def test_matches_pytorch(name):
    assert OURS[name] == GOLDEN[name]
