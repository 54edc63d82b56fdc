"""Record PyTorch's gradients of complex leaves for
tests/test_numpy_tape_programs3.py, which writes each case with NumPy calls
on torchlike tensors (gradcheck takes no complex input, so PyTorch's
convention -- the conjugate Wirtinger derivative -- is the oracle).

Run with an interpreter that has PyTorch:
    python scripts/golden_numpy_tape_complex.py
writes tests/golden/numpy_tape_complex.json: {case: {"input": [re, im],
"value": float, "grad": [re, im]}}."""
import json
import os

import numpy as np
import torch as T

Z = [0.3 + 0.4j, -1.2 + 0.1j, 0.5 - 0.7j, 0.9 + 0.2j]
M = [[1.0 + 0.5j, 0.2 - 0.1j], [0.3j, 2.0 - 0.2j]]
W = T.tensor([1.0, 2.0, 3.0, 4.0], dtype=T.float64)

# name: (input, PyTorch's spelling of what the test writes with NumPy)
CASES = {
    "abs": (Z, lambda z: (T.abs(z) * W).sum()),
    "angle": (Z, lambda z: (T.angle(z) * W).sum()),
    "fft_power": (Z, lambda z: (T.abs(T.fft.fft(z)) ** 2 * W).sum()),
    "conj_product": (Z, lambda z: T.real(z * T.conj(z.flip(0)) * (1 + 2j)).sum()),
    "exp_log": (Z, lambda z: T.abs(T.exp(z) + T.log(z)).sum()),
    "sqrt": (Z, lambda z: T.real(T.sqrt(z) * (0.5 - 1j)).sum()),
    "ifft": (Z, lambda z: T.real(T.fft.ifft(z * z)).sum() + T.abs(T.fft.ifft(z)).sum()),
    "inv": (M, lambda m: T.abs(T.linalg.inv(m)).sum()),
    "det": (M, lambda m: T.abs(T.linalg.det(m))),
    "solve": (M, lambda m: T.real(T.linalg.solve(m, m @ m)).sum()),
}


def parts(a):
    a = np.asarray(a)
    return [a.real.tolist(), a.imag.tolist()]


def main():
    out = {}
    for name, (data, f) in CASES.items():
        z = T.tensor(np.asarray(data), dtype=T.complex128, requires_grad=True)
        value = f(z)
        value.backward()
        out[name] = {"input": parts(data), "value": float(value.detach()),
                     "grad": parts(z.grad.numpy())}
    path = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "tests",
                        "golden", "numpy_tape_complex.json")
    with open(path, "w") as f:
        json.dump(out, f, indent=1)
        f.write("\n")


if __name__ == "__main__":
    main()
