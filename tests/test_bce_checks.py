"""binary_cross_entropy(_with_logits) with operands that disagree, against
PyTorch's answers (tests/golden/bce_checks.json, recorded by
scripts/golden_bce_checks.py): which operand a shape error names as tensor
a and b (pos_weight against the target first, then the in-place steps of
PyTorch's formula), weights that would grow the loss, non-tensor weights,
mixed dtypes, and torch.binary_cross_entropy_with_logits' own spelling."""
import numpy as np
import pytest

import torchlike as tl
from oracle import golden_calls, host_spelling

CALLS, _golden = golden_calls("bce_checks")


def _message(text):
    # torchlike names its Size class as its own; its broadcast errors add the
    # two shapes after a colon
    return host_spelling(text).replace("torchlike.", "torch.").split(": shapes ")[0]


@pytest.mark.parametrize("call,expected", CALLS, ids=[c for c, _ in CALLS])
def test_matches_pytorch(call, expected):
    env = _golden.make_env(tl)
    if expected[0] == "raises":
        with pytest.raises(Exception) as e:
            eval(call, env)
        assert type(e.value).__name__ == expected[1] or (
            expected[1] == "RuntimeError" and isinstance(e.value, RuntimeError)), (call, e.value)
        if expected[1] != "AttributeError":   # PyTorch's own missing .size()
            assert _message(str(e.value).splitlines()[0]) == expected[2], call
        return
    got = _golden.describe(eval(call, env))
    assert got[:3] == expected[:3], call
    np.testing.assert_allclose(got[3], expected[3], rtol=2e-6, atol=1e-7, err_msg=call)
