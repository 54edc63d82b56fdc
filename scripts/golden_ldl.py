"""Record PyTorch's answers for torch.linalg.ldl_factor, ldl_factor_ex and
ldl_solve (torchlike/linalg.py over linalg_ldl.c), for tests/test_ldl.py:
LD and pivots to the entry (indefinite matrices whose factorizations take
2x2 pivots, complex symmetric and Hermitian ones, batches), solves, and the
messages of bad calls.

Run with an interpreter that has PyTorch:
    python scripts/golden_ldl.py
writes tests/golden/ldl.json ([call, outcome] pairs over T, the library)."""
import numpy as np

from golden_calls import record
from golden_composites import describe  # noqa: F401  (tests/test_ldl.py reads it here)


def inputs(T):
    rng = np.random.default_rng(11)
    r = rng.standard_normal((2, 5, 5)).round(2)
    z = (rng.standard_normal((4, 4)) + 1j * rng.standard_normal((4, 4))).round(2)
    env = {
        "T": T,
        # zero diagonal: no 1x1 pivot fits at first, Bunch-Kaufman takes 2x2 blocks
        "A": T.tensor([[0.0, 1, 2, 3], [1, 0, 4, 5], [2, 4, 0, 6], [3, 5, 6, 0]]),
        "S": T.tensor((r + np.swapaxes(r, -1, -2)).tolist(), dtype=T.float64),
        "H": T.tensor((z + z.conj().T).tolist(), dtype=T.complex128),
        "Zs": T.tensor((z + z.T).tolist(), dtype=T.complex64),
        "B": T.tensor([[1.0, 2], [3, 4], [5, 6], [7, 8]]),
        "B5": T.tensor(rng.standard_normal((5, 3)).round(2).tolist(), dtype=T.float64),
    }
    env["LD"], env["piv"] = T.linalg.ldl_factor(env["A"])
    return env


CALLS = [
    "T.linalg.ldl_factor(A)", "T.linalg.ldl_factor_ex(A)", "T.linalg.ldl_factor(A.double())",
    "T.linalg.ldl_factor(S)", "T.linalg.ldl_factor(S[0] * T.tensor([1.0, -1, 1, -1, 1]))",
    "T.linalg.ldl_factor(H, hermitian=True)", "T.linalg.ldl_factor(H)", "T.linalg.ldl_factor(Zs)",
    "T.linalg.ldl_factor(A, hermitian=True)", "T.linalg.ldl_factor(T.stack([A, A + 1]))",
    "T.linalg.ldl_factor(T.zeros(0, 0))", "T.linalg.ldl_factor(T.zeros(2, 0, 0))",
    "T.linalg.ldl_factor(S.mT)",
    "T.linalg.ldl_factor_ex(T.zeros(3, 3))", "T.linalg.ldl_factor_ex(T.zeros(3, 3)).info",
    "T.linalg.ldl_solve(LD, piv, B)", "T.linalg.ldl_solve(LD, piv, B.expand(2, 4, 2))",
    "T.linalg.ldl_solve(LD, piv.long(), B)", "T.linalg.ldl_solve(LD, piv, T.zeros(4, 0))",
    "T.linalg.ldl_solve(*T.linalg.ldl_factor(S), B5)",
    "T.linalg.ldl_solve(*T.linalg.ldl_factor(H, hermitian=True), B.to(T.complex128), hermitian=True)",
    "T.linalg.ldl_solve(*T.linalg.ldl_factor(Zs), B[:, :1].to(T.complex64))",
    # bad calls
    "T.linalg.ldl_factor(A[:3])", "T.linalg.ldl_factor(A.int())", "T.linalg.ldl_factor(A[0])",
    "T.linalg.ldl_solve(LD, piv, B[:3])", "T.linalg.ldl_solve(LD, piv, B[:, 0])",
    "T.linalg.ldl_solve(LD, piv, B.double())", "T.linalg.ldl_solve(LD, piv[:3], B)",
    "T.linalg.ldl_solve(LD[:3], piv, B)", "T.linalg.ldl_solve(LD.expand(2, 4, 4), piv, B)",
    "T.linalg.ldl_solve(LD, piv.expand(2, 4), B)", "T.linalg.ldl_solve(LD, piv + 10, B)",
    "T.linalg.ldl_solve(LD, piv, B.int())",
]


def main():
    record(CALLS, inputs, describe, "ldl", messages=True)


if __name__ == "__main__":
    main()
