"""torchlike.signal.windows: PyTorch's recorded windows and messages
(tests/golden/signal_windows.json, scripts/golden_signal_windows.py) to 1e-12
in float64 (float32 to 2e-6: PyTorch computes in float32, we round float64 once),
SciPy's scipy.signal.windows where it is installed, and the keyword forms
(requires_grad, device, dtype)."""
import math

import numpy as np
import pytest

import torchlike as T
import torchlike.signal.windows as W
from numextra_golden import check
from oracle import golden_calls

CALLS, _golden = golden_calls("signal_windows")


@pytest.mark.parametrize("call,expected", CALLS, ids=[c for c, _ in CALLS])
def test_matches_pytorch(call, expected):
    check(_golden, call, expected, tight=(1e-12, 1e-12), loose=(2e-6, 1e-7))


try:
    import scipy.signal.windows as SW
except ImportError:  # pragma: no cover - SciPy is optional
    SW = None


@pytest.mark.skipif(SW is None, reason="needs SciPy")
@pytest.mark.parametrize("M", [0, 1, 2, 3, 10, 33])
@pytest.mark.parametrize("sym", [True, False])
@pytest.mark.parametrize("name,ours,theirs", [
    ("bartlett", {}, ()), ("blackman", {}, ()), ("cosine", {}, ()), ("hamming", {}, ()),
    ("hann", {}, ()), ("nuttall", {}, ()), ("gaussian", {"std": 2.5}, (2.5,)),
    ("exponential", {"tau": 1.7}, (None, 1.7)), ("kaiser", {"beta": 8.6}, (8.6,)),
    ("general_hamming", {"alpha": 0.61}, (0.61,)),
    ("general_cosine", {"a": [0.4, 0.35, 0.25]}, ([0.4, 0.35, 0.25],)),
])
def test_matches_scipy(name, ours, theirs, M, sym):
    got = getattr(W, name)(M, sym=sym, dtype=T.float64, **ours).numpy()
    want = getattr(SW, name)(M, *theirs, sym=sym)
    np.testing.assert_allclose(got, want, rtol=1e-12, atol=1e-14)


def test_reference_formulas():
    n = np.arange(9.0)
    np.testing.assert_allclose(W.hann(9, dtype=T.float64).numpy(),
                               0.5 - 0.5 * np.cos(2 * math.pi * n / 8), atol=1e-15)
    np.testing.assert_allclose(W.cosine(9, dtype=T.float64).numpy(),
                               np.sin(math.pi * (n + 0.5) / 9), atol=1e-15)
    np.testing.assert_allclose(W.gaussian(9, std=1.3, dtype=T.float64).numpy(),
                               np.exp(-((n - 4) ** 2) / (2 * 1.3 ** 2)), atol=1e-15)
    # the periodic window is the symmetric one of length M + 1 without its end
    np.testing.assert_allclose(W.blackman(8, sym=False, dtype=T.float64).numpy(),
                               W.blackman(9, dtype=T.float64).numpy()[:8], atol=1e-15)


def test_keywords():
    w = W.kaiser(6, requires_grad=True)
    assert w.requires_grad and w.is_leaf and w.dtype == T.float32
    (w * 2).sum().backward()
    np.testing.assert_array_equal(w.grad.numpy(), np.full(6, 2.0, np.float32))
    T.set_default_dtype(T.float64)
    try:
        assert W.hann(4).dtype == T.float64
    finally:
        T.set_default_dtype(T.float32)
    assert W.hann(4).device == T.get_default_device()
    assert T.signal.windows.hann is W.hann
