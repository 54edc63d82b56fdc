"""Record PyTorch's answers for torch.lu, torch.lu_solve, torch.lu_unpack and
torch.triangular_solve (torchlike/_lu_extra.py), for tests/test_lu_extra.py:
results (square, wide, tall, batched, broadcast), the empty parts of
lu_unpack, and the messages of bad calls.

Run with an interpreter that has PyTorch:
    python scripts/golden_lu_extra.py
writes tests/golden/lu_extra.json ([call, outcome] pairs over T, the library)."""
from golden_calls import record
from golden_composites import describe  # noqa: F401  (tests/test_lu_extra.py reads it here)


def inputs(T):
    env = {
        "T": T,
        "A": T.tensor([[2.0, -1.0, 0.5], [4.0, 1.0, -2.0], [-1.0, 3.0, 1.5]]),
        "Ab": T.tensor([[[1.0, 2.0], [3.0, 4.0]], [[0.5, -1.0], [2.0, 0.25]]]),
        "b": T.tensor([[1.0, 0.0], [2.0, -1.0], [0.5, 3.0]]),
        "b2": T.tensor([[1.0], [-2.0]]),
        "R": T.tensor([[1.0, 2.0, 0.0], [3.0, -1.0, 2.0], [0.5, 0.5, 4.0], [-2.0, 1.0, 1.0]]),
        "S": T.tensor([[1.0, 2.0], [2.0, 4.0]]),
        "Z": T.tensor([[1 + 1j, 2.0], [0.5j, -1.0]]),
    }
    env["LU"], env["piv"] = T.linalg.lu_factor(env["A"])
    return env


CALLS = [
    "T.lu(A)", "T.lu(A, get_infos=True)", "T.lu(S, get_infos=True)", "T.lu(R)", "T.lu(R.T)",
    "T.lu(Ab)", "T.lu(Z)", "A.lu()", "T.lu(T.zeros(0, 3))",
    "T.lu(A.int())", "T.lu(T.ones(3))", "T.lu(A, pivot=False)",
    "T.lu_unpack(LU, piv)", "T.lu_unpack(LU, piv, unpack_data=False)",
    "T.lu_unpack(LU, piv, unpack_pivots=False)", "T.lu_unpack(LU, piv, False, False)",
    "T.lu_unpack(*T.linalg.lu_factor(R))", "T.lu_unpack(*T.linalg.lu_factor(R.T))",
    "T.lu_unpack(*T.linalg.lu_factor(Ab))", "T.lu_unpack(*T.linalg.lu_factor(Z))",
    "T.lu_unpack(LU.int(), piv)", "T.lu_unpack(LU, T.tensor([3, 3, 3], dtype=T.int32))",
    "T.lu_unpack(LU, piv.long())", "T.lu_unpack(LU, piv[:2])", "T.lu_unpack(LU, piv + 5)",
    "T.lu_unpack(LU, piv * 0)", "T.lu_unpack(LU[0], piv)", "T.lu_unpack(LU.expand(2, 3, 3), piv)",
    "T.lu_solve(b, LU, piv)", "T.lu_solve(b.expand(2, 3, 2), LU, piv)", "b.lu_solve(LU, piv)",
    "T.lu_solve(b2, *T.linalg.lu_factor(Ab))",
    "T.lu_solve(b, LU, piv.long())", "T.lu_solve(b[:2], LU, piv)", "T.lu_solve(b, LU[:2], piv)",
    "T.lu_solve(b[0], LU, piv)", "T.lu_solve(b.double(), LU, piv)", "T.lu_solve(b, LU, piv[:2])",
    "T.triangular_solve(b, A)", "T.triangular_solve(b, A, upper=False)",
    "T.triangular_solve(b, A, transpose=True)", "T.triangular_solve(b, A, False, True, True)",
    "T.triangular_solve(b, A, unitriangular=True)", "T.triangular_solve(b2, Ab)",
    "T.triangular_solve(b2.expand(3, 2, 1), Ab[:1])", "b.triangular_solve(A, upper=False)",
    "T.triangular_solve(T.tensor([[1 + 2j], [1j]]), Z, transpose=True)",
    "T.triangular_solve(T.zeros(3, 0), A)",
    "T.triangular_solve(b[0], A)", "T.triangular_solve(b, A[0])", "T.triangular_solve(b, A[:2])",
    "T.triangular_solve(b.double(), A)", "T.triangular_solve(b, R)",
    "T.triangular_solve(b.int(), A.int())", "T.triangular_solve(T.ones(4, 2), A)",
]


def main():
    record(CALLS, inputs, describe, "lu_extra", messages=True)


if __name__ == "__main__":
    main()
