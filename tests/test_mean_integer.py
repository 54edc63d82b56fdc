"""The mean of integer and bool tensors: PyTorch's spellings (torch.mean,
torch.nanmean, x.mean(dim=...)) refuse an integer dtype in PyTorch's class
and words (scripts/golden_mean_integer.py recorded them), while NumPy's
(np.mean(x), torchlike.numpy.mean, and x.mean() / x.mean(axis=...), which
take NumPy's meaning for integer tensors: docs/numpy.md) give NumPy's
float64."""
import numpy as np
import pytest

import torchlike as tl
import torchlike.numpy as tnp
from oracle import golden_calls

CALLS, _golden = golden_calls("mean_integer")


@pytest.mark.parametrize("call,expected", CALLS, ids=[c for c, _ in CALLS])
def test_pytorch_spellings_of_an_integer_mean_match_pytorch(call, expected):
    env = _golden.inputs(tl)
    if expected[0] == "raises":
        with pytest.raises(Exception) as e:
            eval(call, env)
        assert expected[1] in [c.__name__ for c in type(e.value).__mro__], call
        assert str(e.value) == expected[2], call
    else:
        got = _golden.describe(eval(call, env))
        assert got[:3] == expected[:3], call
        np.testing.assert_allclose(got[3], expected[3], rtol=1e-15)


@pytest.mark.parametrize("dtype", [np.int64, np.int32, np.uint8, np.int8, np.bool_])
def test_numpy_spellings_of_an_integer_mean_match_numpy(dtype):
    a = (np.arange(12).reshape(3, 4) % 5).astype(dtype)
    x = tl.tensor(a)
    for got, want in [(np.mean(x), np.mean(a)), (tnp.mean(tnp.asarray(a)), np.mean(a)),
                      (x.mean(), a.mean()), (x.mean(axis=0), a.mean(axis=0)),
                      (np.mean(x[:, ::2], axis=1, keepdims=True),
                       np.mean(a[:, ::2], axis=1, keepdims=True))]:
        got = got.cpu().numpy()
        assert got.dtype == want.dtype == np.float64
        np.testing.assert_allclose(got, want, rtol=1e-15)
