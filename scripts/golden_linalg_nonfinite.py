"""Record what PyTorch's torch.linalg does with a NaN or an inf in its input, into
tests/golden/linalg_nonfinite.json: for each (function, bad value) either
{"raises": true} or {"raises": false, "value": the flattened result (nan/inf as
strings)}.  Each call runs in its own interpreter, since some of them crash
PyTorch (eigvals with NaN segfaults in MKL): those are recorded as
{"crash": true}.  Run with an interpreter that has torch:

    python scripts/golden_linalg_nonfinite.py
"""
import json
import pathlib
import subprocess
import sys

# name -> Python expression on the float64 matrix A (3 x 3) and B (3 x 2); the
# results are deterministic (no eigenvector phases, no U/V signs).
CASES = {
    "det": "torch.linalg.det(A)",
    "slogdet": "torch.linalg.slogdet(A).logabsdet",
    "inv": "torch.linalg.inv(A)",
    "solve": "torch.linalg.solve(A, B)",
    "qr_r": "torch.linalg.qr(A).R.abs()",
    "lu_factor": "torch.linalg.lu_factor(A).LU",
    "cholesky": "torch.linalg.cholesky(A @ A.mT if ok else A)",
    "svdvals": "torch.linalg.svdvals(A)",
    "svd_s": "torch.linalg.svd(A).S",
    "eigvalsh": "torch.linalg.eigvalsh(A)",
    "eigvals": "torch.linalg.eigvals(A)",
    "eig": "torch.linalg.eig(A).eigenvalues",
    "matrix_rank": "torch.linalg.matrix_rank(A).double()",
    "pinv": "torch.linalg.pinv(A)",
    "matrix_norm_fro": "torch.linalg.matrix_norm(A, 'fro')",
    "matrix_norm_nuc": "torch.linalg.matrix_norm(A, 'nuc')",
    "matrix_norm_2": "torch.linalg.matrix_norm(A, 2)",
    "matrix_norm_1": "torch.linalg.matrix_norm(A, 1)",
    "cond": "torch.linalg.cond(A)",
    "cond_fro": "torch.linalg.cond(A, 'fro')",
    "lstsq": "torch.linalg.lstsq(A, B).solution",
    "matrix_power": "torch.linalg.matrix_power(A, -2)",
}
BAD = {"nan": "float('nan')", "inf": "float('inf')", "-inf": "float('-inf')"}
# A is a fixed well-conditioned matrix with entry (2, 1) replaced (the lower
# triangle, which eigvalsh and cholesky read).
PROGRAM = """
import torch, json, sys
ok = False
A = torch.tensor([[4., 1., 0.5], [1., 3., 0.25], [0.5, 0.25, 2.]], dtype=torch.float64)
A[2, 1] = {bad}
B = torch.tensor([[1., 2.], [3., 4.], [5., 6.]], dtype=torch.float64)
try:
    r = {expr}
except Exception:
    print(json.dumps({{"raises": True}}))
    sys.exit(0)
r = torch.as_tensor(r)
if r.is_complex():
    r = torch.view_as_real(r)
print(json.dumps({{"raises": False, "value": [repr(float(v)) for v in r.reshape(-1).tolist()]}}))
"""


def main():
    table = {}
    for name, expr in CASES.items():
        for key, bad in BAD.items():
            proc = subprocess.run([sys.executable, "-c", PROGRAM.format(bad=bad, expr=expr)],
                                  capture_output=True, text=True, timeout=120)
            lines = [ln for ln in proc.stdout.splitlines() if ln.startswith("{")]
            table[f"{name}/{key}"] = json.loads(lines[-1]) if proc.returncode == 0 and lines \
                else {"crash": True}
    out = pathlib.Path(__file__).resolve().parent.parent / "tests/golden/linalg_nonfinite.json"
    out.write_text("{\n" + ",\n".join(f"{json.dumps(k)}: {json.dumps(v)}"
                                      for k, v in table.items()) + "\n}\n")


if __name__ == "__main__":
    main()
