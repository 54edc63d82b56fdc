"""Which of tied -0.0 and +0.0 max/min reductions return over inputs of
every layout (transposed, permuted, stepped, offset, expanded, several
reduced dims, keepdim, past the parallel grain), against PyTorch 2.15's CPU
answers (tests/golden/extreme_zero_strided.json, recorded by
scripts/golden_extreme_zero_strided.py from
tests/extreme_zero_strided_cases.py, which runs the very same code here).

amax()/amin() follow the order PyTorch's reduction iterator lays a strided
input's dims out in (src/ndcore/kernels/reduce_zero_sign.c); max()/min()
and aminmax() read the input in logical order; max/min along a dim take the
first of the ties."""
import json
import os

import pytest

import extreme_zero_strided_cases
import torchlike as torch

with open(os.path.join(os.path.dirname(os.path.abspath(__file__)), "golden",
                       "extreme_zero_strided.json")) as _f:
    GOLDEN = json.load(_f)
GOLDEN.pop("torch_version")
OURS = extreme_zero_strided_cases.record(torch)


@pytest.mark.parametrize("name", sorted(GOLDEN))
def test_matches_pytorch(name):
    assert OURS[name] == GOLDEN[name]


def test_layouts_matter():
    """PyTorch's answer for a view differs from its answer for the view's
    contiguous copy in some cases (so a kernel that ignores the layout
    fails), and the differing cases are not rare."""
    import numpy as np
    views = extreme_zero_strided_cases._views(torch, np.random.RandomState(4242))
    differ = 0
    for name, base, make, dims in views:
        copy = make(torch.tensor(base, dtype=torch.float32)).contiguous()
        want = GOLDEN[name]["float32"]
        differ += want["amax"] != extreme_zero_strided_cases._signs(copy.amax())
        for dim in dims:
            key = ",".join(map(str, dim))
            differ += want[f"amax{key}"] != extreme_zero_strided_cases._signs(copy.amax(dim))
    assert differ >= 10


def test_nonzero_and_nan_results_stay():
    """Only zero results are re-signed: a NaN or a nonzero extreme in one
    output of a strided reduction stays NumPy's value."""
    import numpy as np
    x = np.zeros((8, 40))
    x[3, 5] = np.nan
    x[2, 7] = 2.5
    x[4, 9] = -1.5
    t = torch.tensor(x, dtype=torch.float32).t()
    got = t.amax(1).double().numpy()
    want = np.max(x.T, axis=1)
    assert np.array_equal(got, want, equal_nan=True)
    got = t.amin(1).double().numpy()
    assert np.array_equal(got, np.min(x.T, axis=1), equal_nan=True)
