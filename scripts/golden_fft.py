"""Record PyTorch's torch.fft results (values, dtypes, shapes) for fixed inputs
into tests/golden/fft/, for tests/test_fft.py.  Run with an interpreter that has
PyTorch (never needed by `make test`)."""
import json
import os

import sys

import numpy as np
import torch

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "tests"))
from fft_cases import CASES  # noqa: E402

OUT = os.path.join(os.path.dirname(__file__), "..", "tests", "golden", "fft")

rng = np.random.default_rng(123)
REAL = rng.standard_normal((4, 6))
CPLX = REAL + 1j * rng.standard_normal((4, 6))
INTS = rng.integers(-4, 5, size=(4, 6))

INPUTS = {"real64": torch.tensor(REAL), "real32": torch.tensor(REAL, dtype=torch.float32),
          "complex128": torch.tensor(CPLX), "int64": torch.tensor(INTS)}


def main():
    os.makedirs(OUT, exist_ok=True)
    arrays, meta = {}, {}
    for cname, fn in CASES.items():
        for iname, t in INPUTS.items():
            key = f"{cname}__{iname}"
            try:
                r = fn(torch.fft, t)
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
