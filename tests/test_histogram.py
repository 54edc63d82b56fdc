"""torch.histogram / torch.histogramdd (torchlike/_histogram.py): PyTorch's
recorded answers (tests/golden/histogram.json, scripts/golden_histogram.py)
for counts, edges and messages; NumPy's histogram and histogramdd for values
(float32/float64, weights, density, non-contiguous, given edges); the
device paths."""
import numpy as np
import pytest

import torchlike as T
from golden_tolerant import check_recorded
from oracle import cuda_test_devices, golden_calls, host_array, run_emulated

CALLS, _golden = golden_calls("histogram")
DEVICES, EMULATED = cuda_test_devices()


@pytest.mark.parametrize("call,expected", CALLS, ids=[c for c, _ in CALLS])
def test_matches_pytorch(call, expected):
    check_recorded(_golden, call, expected)


def _data(n, dtype, seed=0):
    return np.random.default_rng(seed).standard_normal(n).astype(dtype)


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_histogram_against_numpy(dtype):
    a = _data(200, dtype)
    w = np.abs(_data(200, dtype, seed=1))
    ta = T.tensor(np.repeat(a, 2))[::2]
    assert not ta.is_contiguous()
    for kw in (dict(bins=10), dict(bins=7, range=(-1.0, 1.5)), dict(bins=5, density=True)):
        h, e = T.histogram(ta, **kw)
        wh, we = np.histogram(a, **kw)
        np.testing.assert_allclose(e.cpu().numpy(), we, rtol=1e-6, atol=1e-6 if dtype == np.float32 else 1e-14)
        np.testing.assert_allclose(h.cpu().numpy(), wh, rtol=1e-6)
        assert h.dtype == e.dtype == ta.dtype
    h, _ = T.histogram(ta, 6, weight=T.tensor(w), density=True)
    np.testing.assert_allclose(h.cpu().numpy(), np.histogram(a, 6, weights=w, density=True)[0],
                               rtol=1e-5 if dtype == np.float32 else 1e-12)
    edges = np.array([-3, -1, -0.2, 0.0, 0.3, 2.0], dtype)
    h, e = T.histogram(ta, T.tensor(edges), weight=T.tensor(w))
    np.testing.assert_allclose(h.cpu().numpy(), np.histogram(a, edges, weights=w)[0], rtol=1e-5)
    np.testing.assert_array_equal(e.cpu().numpy(), edges)


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_histogramdd_against_numpy(dtype):
    rng = np.random.default_rng(2)
    pts = rng.standard_normal((300, 3)).astype(dtype)
    w = rng.random(300).astype(dtype)
    for bins in (4, [3, 5, 2]):
        h, edges = T.histogramdd(T.tensor(pts), bins, weight=T.tensor(w), density=True)
        wh, wedges = np.histogramdd(pts, bins, weights=w, density=True)
        np.testing.assert_allclose(h.cpu().numpy(), wh, rtol=1e-4 if dtype == np.float32 else 1e-10)
        for e, we in zip(edges, wedges):
            np.testing.assert_allclose(e.cpu().numpy(), we, rtol=1e-6, atol=1e-6)
    rng_ = [-1.0, 1.0, -2.0, 0.5, 0.0, 3.0]
    h, _ = T.histogramdd(T.tensor(pts.reshape(100, 3, 3)), [2, 3, 4], range=rng_)
    wh, _ = np.histogramdd(pts, [2, 3, 4], range=[rng_[:2], rng_[2:4], rng_[4:]])
    np.testing.assert_array_equal(h.cpu().numpy(), wh)


def test_no_gradient():
    """PyTorch's NotImplemented node: the result requires grad, backward
    raises (tests/golden/random_grad.json has PyTorch's answers)."""
    x = T.tensor(_data(10, np.float64), requires_grad=True)
    h = T.histogram(x, 3, weight=x.abs()).hist
    assert h.requires_grad and type(h.grad_fn).__name__ == "NotImplemented"
    with pytest.raises(RuntimeError, match="derivative for aten::histogram is not implemented"):
        h.sum().backward()
    with T.no_grad():
        assert not T.histogram(x, 3).hist.requires_grad


@pytest.mark.parametrize("device", DEVICES)
def test_on_device(device):
    a = _data(100, np.float64)
    want = T.histogram(T.tensor(a), 8, weight=T.tensor(a * a), density=True)
    got = T.histogram(T.tensor(a).to(device), 8, weight=T.tensor(a * a).to(device),
                      density=True)
    assert got.hist.device.type == (device if device != "cpu" else "cpu")
    np.testing.assert_allclose(host_array(got.hist), want.hist.cpu().numpy(), rtol=1e-12)
    np.testing.assert_array_equal(host_array(got.bin_edges), want.bin_edges.cpu().numpy())
    pts = a.reshape(50, 2)
    e0, e1 = T.tensor([-2.0, 0, 2], dtype=T.float64), T.tensor([-1.0, 1], dtype=T.float64)
    want = T.histogramdd(T.tensor(pts), [e0, e1])
    got = T.histogramdd(T.tensor(pts).to(device), [e0.to(device), e1.to(device)])
    np.testing.assert_array_equal(host_array(got.hist), want.hist.cpu().numpy())


@pytest.mark.host_only  # it starts its own emulated-device process
@pytest.mark.skipif(EMULATED, reason="this process is the emulated run")
def test_emulated():
    run_emulated(__file__)
