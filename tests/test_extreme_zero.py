"""Which of tied -0.0 and +0.0 a whole-tensor max/min returns, and NaN among
them, against PyTorch 2.15's CPU answers (tests/golden/extreme_zero.json,
recorded by scripts/golden_extreme_zero.py from tests/extreme_zero_cases.py,
which runs the very same code here).

PyTorch's choice follows its kernels' reduction trees (max()/min()/aminmax()
one way, amax()/amin() another, its threads' chunks above 32768 elements),
which torchlike reproduces for a zero result (src/ndcore/kernels/
reduce_zero_sign.c); max/min along a dim take the first of the ties, with
its index."""
import json
import os

import pytest

import extreme_zero_cases
import torchlike as torch

with open(os.path.join(os.path.dirname(os.path.abspath(__file__)), "golden",
                       "extreme_zero.json")) as _f:
    GOLDEN = json.load(_f)
GOLDEN.pop("torch_version")
OURS = extreme_zero_cases.record(torch)


@pytest.mark.parametrize("name", sorted(GOLDEN))
def test_matches_pytorch(name):
    assert OURS[name] == GOLDEN[name]


def test_cases_tell_the_kernels_apart():
    """The inputs are ones where PyTorch's kernels disagree with each other
    (so the test can fail on a kernel that takes either rule)."""
    answers = [r for name, per_dtype in GOLDEN.items() if name != "dims"
               for r in per_dtype.values()]
    assert any(r["max"] != r["amax"] for r in answers)
    assert any(r["min"] != r["amin"] for r in answers)
    assert any(r["max"] != r["max0"][0] for r in answers)


def test_nonzero_results_and_strided_inputs():
    """Only a zero result is re-signed: other values stay the ordinary
    loops' (NumPy's max), and a strided input is read in logical order."""
    import numpy as np
    x = torch.tensor([-0.0, 0.0, 2.5, 0.0], dtype=torch.bfloat16)
    assert float(x.max()) == 2.5 and float(x.amin()) == 0.0
    a = np.zeros((6, 40))
    a[::2] = -0.0
    t = torch.tensor(a, dtype=torch.float32)
    assert str(t.t().max()) == str(t.t().contiguous().max())
    assert np.signbit(float(t.t().max())) == np.signbit(float(t.t().contiguous().max()))
