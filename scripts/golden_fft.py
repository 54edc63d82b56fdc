"""Record PyTorch's torch.fft results (values, dtypes, shapes) for fixed inputs
into tests/golden/fft/, for tests/test_fft.py.  Run with an interpreter that has
PyTorch (never needed by `make test`)."""
import json
import os

import numpy as np
import torch

OUT = os.path.join(os.path.dirname(__file__), "..", "tests", "golden", "fft")

rng = np.random.default_rng(123)
REAL = rng.standard_normal((4, 6))
CPLX = REAL + 1j * rng.standard_normal((4, 6))
INTS = rng.integers(-4, 5, size=(4, 6))

CASES = {
    "fft": lambda t: torch.fft.fft(t),
    "fft_n_dim0": lambda t: torch.fft.fft(t, n=5, dim=0),
    "ifft_ortho": lambda t: torch.fft.ifft(t, norm="ortho"),
    "fft2_s": lambda t: torch.fft.fft2(t, s=(3, 8)),
    "fftn_forward": lambda t: torch.fft.fftn(t, norm="forward"),
    "ifftn_dim": lambda t: torch.fft.ifftn(t, dim=(0,)),
    "rfft": lambda t: torch.fft.rfft(t.real if t.is_complex() else t),
    "rfft_n": lambda t: torch.fft.rfft(t.real if t.is_complex() else t, n=9),
    "irfft": lambda t: torch.fft.irfft(t),
    "irfft_n": lambda t: torch.fft.irfft(t, n=7, norm="ortho"),
    "rfftn": lambda t: torch.fft.rfftn(t.real if t.is_complex() else t),
    "irfftn_s": lambda t: torch.fft.irfftn(t, s=(4, 9)),
    "rfft2": lambda t: torch.fft.rfft2(t.real if t.is_complex() else t, norm="forward"),
    "irfft2": lambda t: torch.fft.irfft2(t),
    "hfft": lambda t: torch.fft.hfft(t),
    "hfft_n": lambda t: torch.fft.hfft(t, n=8, norm="forward"),
    "ihfft": lambda t: torch.fft.ihfft(t.real if t.is_complex() else t),
    "hfft2": lambda t: torch.fft.hfft2(t),
    "ihfftn": lambda t: torch.fft.ihfftn(t.real if t.is_complex() else t),
    "fftshift": lambda t: torch.fft.fftshift(t),
    "ifftshift_dim": lambda t: torch.fft.ifftshift(t, dim=1),
}
INPUTS = {"real64": torch.tensor(REAL), "real32": torch.tensor(REAL, dtype=torch.float32),
          "complex128": torch.tensor(CPLX), "int64": torch.tensor(INTS)}


def main():
    os.makedirs(OUT, exist_ok=True)
    arrays, meta = {}, {}
    for cname, fn in CASES.items():
        for iname, t in INPUTS.items():
            key = f"{cname}__{iname}"
            try:
                r = fn(t)
            except Exception as e:  # noqa: BLE001  (recorded: the test expects an error)
                meta[key] = {"error": type(e).__name__}
                continue
            arrays[key] = r.resolve_conj().numpy()
            meta[key] = {"dtype": str(r.dtype).replace("torch.", ""), "shape": list(r.shape)}
    meta["fftfreq"] = {"dtype": str(torch.fft.fftfreq(5).dtype).replace("torch.", "")}
    arrays["fftfreq_5"] = torch.fft.fftfreq(5).numpy()
    arrays["fftfreq_6_d"] = torch.fft.fftfreq(6, d=0.5).numpy()
    arrays["rfftfreq_7"] = torch.fft.rfftfreq(7).numpy()
    inputs = {"real": REAL, "cplx": CPLX, "ints": INTS}
    np.savez_compressed(os.path.join(OUT, "torch_fft.npz"), **arrays, **{f"input_{k}": v for k, v
                                                                         in inputs.items()})
    with open(os.path.join(OUT, "torch_fft.json"), "w") as f:
        json.dump(meta, f, indent=1, sort_keys=True)


if __name__ == "__main__":
    main()
