"""Record PyTorch's answers for torch.stft and torch.istft
(torchlike/_spectral.py), for tests/test_stft.py: shapes, dtypes, values
and the messages of bad calls, over every argument (center and pad_mode,
win_length < n_fft, normalized, onesided, complex input and window,
align_to_window, istft's length).

Run with an interpreter that has PyTorch:
    python scripts/golden_stft.py
writes tests/golden/stft.json ([call, outcome] pairs over T, the library)."""
import numpy as np

from golden_calls import record
from golden_composites import describe  # noqa: F401  (tests/test_stft.py reads it here)


def inputs(T):
    rng = np.random.default_rng(7)
    x = rng.standard_normal(24).round(3).tolist()
    b = rng.standard_normal((2, 19)).round(3).tolist()
    zr = rng.standard_normal(16).round(3).tolist()
    zi = rng.standard_normal(16).round(3).tolist()
    env = {
        "T": T,
        "x": T.tensor(x),
        "xd": T.tensor(x, dtype=T.float64),
        "b": T.tensor(b),
        "z": T.complex(T.tensor(zr), T.tensor(zi)),
        "w": T.hann_window(8),
        "w5": T.hamming_window(5, dtype=T.float64),
    }
    env["S"] = T.stft(env["x"], 8, window=env["w"], return_complex=True)
    env["SB"] = T.stft(env["b"], 6, hop_length=2, return_complex=True)
    env["S2"] = T.stft(env["x"], 8, window=env["w"], onesided=False, return_complex=True)
    return env


CALLS = [
    "T.stft(x, 8, return_complex=True)",
    "T.stft(x, 8, window=w, return_complex=True)",
    "T.stft(x, 8, hop_length=3, window=w, return_complex=True)",
    "T.stft(x, 8, hop_length=3, win_length=5, window=w5, return_complex=True)",
    "T.stft(x, 8, win_length=5, return_complex=True)",
    "T.stft(x, 7, hop_length=2, return_complex=True)",
    "T.stft(x, 8, window=w, center=False, return_complex=True)",
    "T.stft(x, 8, window=w, pad_mode='constant', return_complex=True)",
    "T.stft(x, 8, window=w, pad_mode='replicate', return_complex=True)",
    "T.stft(x, 8, window=w, pad_mode='circular', return_complex=True)",
    "T.stft(x, 8, window=w, normalized=True, return_complex=True)",
    "T.stft(x, 8, window=w, onesided=False, return_complex=True)",
    "T.stft(x, 8, window=w, return_complex=False)",
    "T.stft(xd, 8, window=w, return_complex=True)",
    "T.stft(x, 8, window=w5.float(), win_length=5, center=False, return_complex=True)",
    "T.stft(x, 8, hop_length=3, win_length=5, window=w5, center=False, align_to_window=True, return_complex=True)",
    "T.stft(x, 8, hop_length=3, win_length=5, window=w5, center=False, align_to_window=False, return_complex=True)",
    "T.stft(b, 6, hop_length=2, return_complex=True)",
    "T.stft(b, 6, hop_length=2, center=False, onesided=False, return_complex=True)",
    "T.stft(z, 4, hop_length=2, return_complex=True)",
    "T.stft(z, 4, hop_length=2, return_complex=False)",
    "T.stft(x, 4, hop_length=2, window=T.complex(w[:4], w[4:]), return_complex=True)",
    "T.stft(x, 24, center=False, return_complex=True)",
    "x.stft(6, return_complex=True)",
    # bad calls
    "T.stft(x, 8)",
    "T.stft(x, 8, window=w, align_to_window=True, return_complex=True)",
    "T.stft(x, 25, center=False, return_complex=True)",
    "T.stft(x, 0, return_complex=True)",
    "T.stft(x, 8, hop_length=0, return_complex=True)",
    "T.stft(x, 8, win_length=9, return_complex=True)",
    "T.stft(x, 8, window=T.ones(7), return_complex=True)",
    "T.stft(x, 8, window=w[None], return_complex=True)",
    "T.stft(x.reshape(2, 3, 4), 4, return_complex=True)",
    "T.stft(T.tensor(1.0), 4, return_complex=True)",
    "T.stft(T.zeros(0), 4, return_complex=True)",
    "T.stft(x, 8, pad_mode='foo', return_complex=True)",
    "T.stft(x, 30, return_complex=True)",
    "T.stft(z, 4, onesided=True, return_complex=True)",
    "T.stft(x.int(), 8, return_complex=True)",
    "T.stft(x.half(), 8, return_complex=True)",
    "T.stft(x, 9, hop_length=2, win_length=4, center=False, align_to_window=True, return_complex=True)",
    # istft
    "T.istft(S, 8, window=w)",
    "T.istft(S, 8, window=w, length=24)",
    "T.istft(S, 8, window=w, length=30)",
    "T.istft(S, 8, window=w, length=10)",
    "T.istft(S, 8, window=w, normalized=True)",
    "T.istft(S, 8, hop_length=4, window=w)",
    "T.istft(S, 8, window=T.ones(6), win_length=6)",
    "T.istft(S2, 8, window=w)",
    "T.istft(S2, 8, window=w, return_complex=True)",
    "T.istft(S2, 8, window=T.complex(w, w.flip(0)), return_complex=True)",
    "T.istft(S.conj(), 8, window=w)",
    "T.istft(S, 8, window=w.double())",
    "T.istft(SB, 6, hop_length=2, window=T.ones(6))",
    "T.istft(SB, 6, hop_length=2, window=T.ones(6), length=19)",
    "T.istft(S[:, 2:7], 8, window=w, center=False)",
    "S.istft(8, window=w)",
    # bad istft calls
    "T.istft(T.view_as_real(S), 8, window=w)",
    "T.istft(S[:0], 8, window=w)",
    "T.istft(S[0], 8, window=w)",
    "T.istft(S, 10, window=w)",
    "T.istft(S, 8, window=w, onesided=False)",
    "T.istft(S2, 8, window=w, onesided=True)",
    "T.istft(S, 8, window=w, hop_length=9)",
    "T.istft(S, 8, window=w, win_length=9)",
    "T.istft(S, 8, window=T.ones(7))",
    "T.istft(S, 8, window=w, return_complex=True)",
    "T.istft(S2, 8, window=T.complex(w, w))",
    "T.istft(S, 8, window=T.zeros(8))",
    "T.istft(S, 8, window=w, center=False)",
    "T.istft(S[None, None], 8, window=w)",
]


def main():
    record(CALLS, inputs, describe, "stft", messages=True)


if __name__ == "__main__":
    main()
