"""The losses' reduction names and legacy flags against PyTorch's answers
(tests/golden/loss_reduction_names.json, recorded by
scripts/golden_loss_reduction_names.py from tests/loss_reduction_names_cases.py,
which runs the very same calls here): 'elementwise_mean' is mean with a
UserWarning where PyTorch's loss asks torch.nn._reduction.get_enum, and a
ValueError in its own words where the loss checks the name in Python."""
import json
import os

import numpy as np
import pytest

import loss_reduction_names_cases
import torchlike as torch

with open(os.path.join(os.path.dirname(os.path.abspath(__file__)), "golden",
                       "loss_reduction_names.json")) as _f:
    GOLDEN = json.load(_f)
GOLDEN.pop("torch_version")
OURS = loss_reduction_names_cases.record(torch)


@pytest.mark.parametrize("call", sorted(GOLDEN))
def test_matches_pytorch(call):
    want, got = GOLDEN[call], OURS[call]
    assert got[0] == want[0], (got, want)
    if want[0] == "value":
        np.testing.assert_allclose(got[1], want[1], rtol=1e-12, atol=1e-12)
    else:
        assert got[1:3] == want[1:3]
    assert got[-1] == want[-1]


def test_golden_covers_both_answers():
    """Some losses take the old name and some refuse it (so a rule that
    did either everywhere would fail)."""
    old = [v for k, v in GOLDEN.items() if "'elementwise_mean'" in k and "size_average" not in k]
    assert any(v[0] == "value" for v in old) and any(v[0] == "raises" for v in old)
