"""torch.stft / torch.istft (torchlike/_spectral.py): PyTorch's recorded
answers (tests/golden/stft.json, scripts/golden_stft.py) for shapes, dtypes,
values and messages; a NumPy STFT written here for values (float32/float64,
batched, non-contiguous, every pad mode, win_length < n_fft); istft
inverting stft; gradcheck in float64; the device paths."""
import warnings

import numpy as np
import pytest

import torchlike as T
from golden_tolerant import check_recorded, recorded_params
from oracle import cuda_test_devices, golden_calls, host_array, run_emulated
from test_composites import _noncontig, _rand

CALLS, _golden = golden_calls("stft")
DEVICES, EMULATED = cuda_test_devices()


# MKL's refusal of half precision is the CPU's own (cuFFT transforms it)
@pytest.mark.parametrize("call,expected", recorded_params(CALLS, ["MKL FFT doesn't support"]))
def test_matches_pytorch(call, expected):
    check_recorded(_golden, call, expected)


# ---- a NumPy STFT, written from the definition -----------------------------------

_NP_MODES = {"reflect": "reflect", "constant": "constant", "replicate": "edge",
             "circular": "wrap"}


def _np_stft(x, n_fft, hop, win_length, window, center, pad_mode, normalized, onesided):
    """X[..., f, t] = sum_k w[k] x[t hop + k] exp(-2 pi i f k / n_fft)."""
    if window is None:
        window = np.ones(win_length)
    left = (n_fft - win_length) // 2
    w = np.zeros(n_fft, dtype=np.result_type(window, np.float32))
    w[left:left + win_length] = window
    if center:
        pad = [(0, 0)] * (x.ndim - 1) + [(n_fft // 2, n_fft // 2)]
        x = np.pad(x, pad, mode=_NP_MODES[pad_mode])
    n_frames = 1 + (x.shape[-1] - n_fft) // hop
    frames = np.stack([x[..., t * hop:t * hop + n_fft] * w for t in range(n_frames)], -2)
    spec = np.fft.rfft(frames, axis=-1) if onesided else np.fft.fft(frames, axis=-1)
    if normalized:
        spec = spec / np.sqrt(n_fft)
    return np.swapaxes(spec, -1, -2)


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("shape", [(37,), (3, 29)])
@pytest.mark.parametrize("args", [
    dict(n_fft=8), dict(n_fft=8, hop=3, win_length=5), dict(n_fft=9, hop=4, normalized=True),
    dict(n_fft=8, center=False, onesided=False), dict(n_fft=6, pad_mode="constant"),
    dict(n_fft=6, pad_mode="replicate", hop=1), dict(n_fft=10, pad_mode="circular", hop=5),
])
def test_stft_against_numpy(args, shape, dtype):
    a = _rand(*shape, dtype=dtype)
    n_fft = args["n_fft"]
    hop = args.get("hop", n_fft // 4)
    wl = args.get("win_length", n_fft)
    window = np.hanning(wl + 1)[:wl].astype(dtype)
    kw = dict(center=args.get("center", True), pad_mode=args.get("pad_mode", "reflect"),
              normalized=args.get("normalized", False), onesided=args.get("onesided", True))
    want = _np_stft(a, n_fft, hop, wl, window, **kw)
    got = T.stft(_noncontig(a), n_fft, hop, wl, T.tensor(window), return_complex=True, **kw)
    assert got.dtype == (T.complex64 if dtype == np.float32 else T.complex128)
    tol = 1e-5 if dtype == np.float32 else 1e-12
    np.testing.assert_allclose(got.cpu().numpy(), want, rtol=tol, atol=tol)


def test_stft_complex_input_against_numpy():
    z = _rand(30) + 1j * _rand(30, seed=1)
    w = _rand(6, seed=2)
    got = T.stft(T.tensor(z), 6, 2, window=T.tensor(w), return_complex=True)
    want = _np_stft(z, 6, 2, 6, w, True, "reflect", False, False)
    np.testing.assert_allclose(got.cpu().numpy(), want, rtol=1e-12, atol=1e-12)


@pytest.mark.parametrize("n_fft,hop,win_length,center,length", [
    (8, 2, 8, True, None), (8, 2, 8, True, 40), (16, 4, 12, True, 41), (10, 3, 10, True, 37),
    (8, 2, 8, False, None), (7, 1, 5, True, 40),
])
def test_istft_inverts_stft(n_fft, hop, win_length, center, length):
    a = _rand(2, 41)
    w = T.hann_window(win_length, dtype=T.float64) + 0.1
    for onesided in (True, False):
        S = T.stft(T.tensor(a), n_fft, hop, win_length, w, center=center, onesided=onesided,
                   return_complex=True)
        y = T.istft(S, n_fft, hop, win_length, w, center=center, onesided=onesided,
                    length=length)
        n = y.shape[-1]
        assert n == (length if length is not None else
                     (hop * (S.shape[-1] - 1) + n_fft - (2 * (n_fft // 2) if center else 0)))
        k = min(n, 41)
        np.testing.assert_allclose(y.cpu().numpy()[..., :k], a[..., :k], rtol=1e-10, atol=1e-10)
        np.testing.assert_array_equal(y.cpu().numpy()[..., k:], 0)


def test_istft_against_numpy_overlap_add():
    """istft of an arbitrary (not consistent) spectrogram: the windowed
    inverse frames overlap-added and divided by the summed squared window."""
    rng = np.random.default_rng(3)
    S = rng.standard_normal((5, 9)) + 1j * rng.standard_normal((5, 9))
    S[0].imag = 0
    S[-1].imag = 0
    n_fft, hop = 8, 3
    w = np.hanning(10)[1:9]
    frames = np.fft.irfft(S.T, n=n_fft, axis=-1) * w
    total = n_fft + hop * 8
    y, env = np.zeros(total), np.zeros(total)
    for t in range(9):
        y[t * hop:t * hop + n_fft] += frames[t]
        env[t * hop:t * hop + n_fft] += w * w
    want = (y / env)[n_fft // 2:total - n_fft // 2]
    got = T.istft(T.tensor(S), n_fft, hop, window=T.tensor(w))
    np.testing.assert_allclose(got.cpu().numpy(), want, rtol=1e-12, atol=1e-12)
    St = T.tensor(np.repeat(S, 2, axis=1))[:, ::2]            # non-contiguous frames
    assert not St.is_contiguous()
    got = T.istft(St, n_fft, hop, window=T.tensor(w), center=False)
    np.testing.assert_allclose(got.cpu().numpy(), y / env, rtol=1e-12, atol=1e-12)


def test_empty_batch_and_1d_shapes():
    S = T.stft(T.zeros(0, 20), 8, return_complex=True)
    assert S.shape == (0, 5, 11)
    assert T.stft(T.zeros(8), 8, center=False, return_complex=True).shape == (5, 1)


def _g(*shape, seed=0):
    return T.tensor(_rand(*shape, seed=seed), requires_grad=True)


@pytest.mark.parametrize("kw", [dict(), dict(center=False, onesided=False),
                                dict(win_length=5, normalized=True, pad_mode="replicate")])
def test_stft_gradients(kw):
    def fn(x, w):
        win = w if "win_length" not in kw else w[:5]
        return T.view_as_real(T.stft(x, 8, 3, window=win, return_complex=True, **kw))
    assert T.autograd.gradcheck(fn, [_g(2, 20), _g(8, seed=1)])
    assert T.autograd.gradgradcheck(lambda x: fn(x, T.ones(8, dtype=T.float64)), [_g(20)])


@pytest.mark.parametrize("kw", [dict(), dict(length=17), dict(return_complex=True)])
def test_istft_gradients(kw):
    def fn(re, im, w):
        z = T.complex(re, im)
        if kw.get("return_complex"):
            y = T.istft(z, 6, 2, window=w.abs() + 1, onesided=False, return_complex=True)
            return T.view_as_real(y)
        return T.istft(z, 6, 2, window=w.abs() + 1, **kw)
    n_freq = 6 if kw.get("return_complex") else 4
    assert T.autograd.gradcheck(fn, [_g(n_freq, 9), _g(n_freq, 9, seed=1), _g(6, seed=2)])


def test_warnings():
    x = T.tensor(_rand(20))
    with pytest.warns(UserWarning, match="return_complex=False is deprecated"):
        T.stft(x, 8, return_complex=False)
    S = T.stft(x, 8, return_complex=True)
    with pytest.warns(UserWarning, match="A window was not provided"):
        T.istft(S, 8)
    with pytest.warns(UserWarning, match="padded with zeros in the tail"):
        T.istft(S, 8, window=T.ones(8), length=30)


@pytest.mark.parametrize("device", DEVICES)
def test_on_device(device):
    a, w = _rand(2, 30), T.hann_window(8, dtype=T.float64)
    S = T.stft(T.tensor(a), 8, 2, window=w, return_complex=True)
    Sd = T.stft(T.tensor(a).to(device), 8, 2, window=w.to(device), return_complex=True)
    assert Sd.device.type == (device if device != "cpu" else "cpu")
    np.testing.assert_allclose(host_array(Sd), S.cpu().numpy(), rtol=1e-12, atol=1e-12)
    yd = T.istft(Sd, 8, 2, window=w.to(device), length=30)
    np.testing.assert_allclose(host_array(yd), a, rtol=1e-10, atol=1e-10)
    Sd2 = T.stft(T.tensor(a).to(device), 8, 3, 6, window=w[:6].to(device), center=False,
                 onesided=False, return_complex=True)
    np.testing.assert_allclose(host_array(Sd2), T.stft(
        T.tensor(a), 8, 3, 6, window=w[:6], center=False, onesided=False,
        return_complex=True).cpu().numpy(), rtol=1e-12, atol=1e-12)


@pytest.mark.host_only  # it starts its own emulated-device process
@pytest.mark.skipif(EMULATED, reason="this process is the emulated run")
def test_emulated():
    run_emulated(__file__)
