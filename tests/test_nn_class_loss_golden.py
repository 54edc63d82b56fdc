"""cross_entropy, multi_margin_loss, multilabel_margin_loss and ctc_loss
against PyTorch's recorded behaviour (tests/golden/nn_class_loss, written by
scripts/golden_nn_class_loss.py): outputs, gradients and error messages.
torch is never imported: the recorded expressions run with ``torch`` bound to
torchlike."""
import json
import os

import numpy as np
import pytest

from test_nn_norm_loss_golden import check_case, check_error

HERE = os.path.join(os.path.dirname(os.path.abspath(__file__)), "golden", "nn_class_loss")
with open(os.path.join(HERE, "cases.json")) as f:
    RECORDED = json.load(f)
ARRAYS = np.load(os.path.join(HERE, "arrays.npz"))


@pytest.mark.parametrize("case", RECORDED["cases"], ids=lambda c: c["name"])
def test_matches_pytorch(case):
    check_case(case, ARRAYS)


@pytest.mark.parametrize("case", RECORDED["errors"], ids=lambda c: c["name"])
def test_error_matches_pytorch(case):
    check_error(case)
