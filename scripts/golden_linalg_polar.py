"""Record PyTorch's answers for torch.linalg.polar, torch.linalg.matrix_sqrth
(torchlike/_linalg_polar.py), torch.vander and the deterministic parts of
torch.svd_lowrank / torch.pca_lowrank (torchlike/_lowrank.py: result shapes,
the singular values of an exactly low-rank matrix, the messages of bad
calls), for tests/test_linalg_polar.py and tests/test_lowrank.py.

Run with an interpreter that has PyTorch:
    python scripts/golden_linalg_polar.py
writes tests/golden/linalg_polar.json ([call, outcome] pairs over T, the library)."""
from golden_calls import record
from golden_signal_windows import describe  # noqa: F401  (full-precision values)


def inputs(T):
    env = {
        "T": T,
        "A": T.tensor([[2.0, 1.0], [1.0, 3.0], [0.5, -1.0]]),
        "Ab": T.tensor([[[1.0, 2.0, 0.0], [3.0, -1.0, 2.0], [0.5, 0.5, 4.0]],
                        [[4.0, 1.0, -1.0], [0.0, 2.0, 1.0], [1.0, 1.0, 3.0]]], dtype=T.float64),
        "Z": T.tensor([[1 + 1j, 2.0], [0.5j, -1.0], [2.0 - 1j, 0.25]]),
        "P": T.tensor([[4.0, 1.0, 0.5], [1.0, 3.0, -0.5], [0.5, -0.5, 2.0]], dtype=T.float64),
        "Ph": T.tensor([[3.0, 1 - 1j], [1 + 1j, 2.0]], dtype=T.complex128),
        "x": T.tensor([1, 2, 3], dtype=T.int32),
        "f": T.tensor([0.5, -1.5, 2.0, 3.0]),
        # rank 3, 12 x 9, from deterministic factors
        "L": (T.cos(T.arange(36, dtype=T.float64).reshape(12, 3) * 0.7)
              @ T.sin(T.arange(27, dtype=T.float64).reshape(3, 9) * 1.3 + 0.2)),
    }
    env["Pb"] = T.stack([env["P"], env["P"] @ env["P"]])
    return env


CALLS = [
    # polar
    "T.linalg.polar(A)", "T.linalg.polar(Ab)", "T.linalg.polar(Z)", "T.linalg.polar(A.double())",
    "T.linalg.polar(T.zeros(0, 0))", "T.linalg.polar(T.zeros(3, 0))", "T.linalg.polar(T.zeros(2, 0, 0))",
    "T.linalg.polar(A).U", "T.linalg.polar(A).H", "type(T.linalg.polar(A)).__name__",
    "T.linalg.polar(A.T)", "T.linalg.polar(A.int())", "T.linalg.polar(A[0])",
    # matrix_sqrth
    "T.linalg.matrix_sqrth(P)", "T.linalg.matrix_sqrth(Pb)", "T.linalg.matrix_sqrth(Ph)",
    "T.linalg.matrix_sqrth(P.float())", "T.linalg.matrix_sqrth(T.tensor([[2.0, 0.0], [0.0, 9.0]]))",
    "T.linalg.matrix_sqrth(T.tensor([[1.0, 5.0], [7.0, 4.0]]))",
    "T.linalg.matrix_sqrth(T.tensor([[1.0, 0.0], [0.0, -1.0]]))",
    "T.linalg.matrix_sqrth(T.tensor([[4.0, 0.0], [0.0, 0.0]]))",
    "T.linalg.matrix_sqrth(T.zeros(0, 0))", "T.linalg.matrix_sqrth(T.zeros(3, 0, 0))",
    "T.linalg.matrix_sqrth(A)", "T.linalg.matrix_sqrth(T.eye(2, dtype=T.int32))",
    "T.linalg.matrix_sqrth(A[0])",
    # vander
    "T.vander(x)", "T.vander(x, N=2)", "T.vander(x, 0)", "T.vander(x, 5)", "T.vander(f, 4, True)",
    "T.vander(f)", "T.vander(f.double(), increasing=True)", "T.vander(T.tensor([True, False]))",
    "T.vander(x.to(T.uint8))", "T.vander(T.zeros(0))", "T.vander(T.tensor([1 + 1j, 2.0]))",
    "T.vander(x.reshape(3, 1))", "T.vander(T.tensor(1.0))", "T.vander(x, -1)",
    # low-rank: shapes and exact-rank singular values
    "[t.shape for t in T.svd_lowrank(L)]", "[t.shape for t in T.svd_lowrank(L, q=4)]",
    "[t.shape for t in T.svd_lowrank(L.T, q=4)]", "[t.shape for t in T.svd_lowrank(L, q=20)]",
    "[t.shape for t in T.svd_lowrank(T.stack([L, L]), q=5)]",
    "[t.shape for t in T.pca_lowrank(L)]", "[t.shape for t in T.pca_lowrank(L, q=2)]",
    "[t.shape for t in T.pca_lowrank(L, q=9, center=False)]",
    "T.svd_lowrank(L, q=5)[1][:3]", "T.svd_lowrank(L.T, q=5, niter=0)[1][:3]",
    "T.pca_lowrank(L, q=5, center=False)[1][:3]", "T.pca_lowrank(L, q=5)[1][:2]",
    # lobpcg: the eigenvalues of a symmetric matrix with a clear gap, and the checks
    "T.lobpcg(P, k=1, niter=200, tol=1e-12)[0]",
    "T.lobpcg(T.diag(T.arange(1.0, 13.0, dtype=T.float64)), k=2, tol=1e-10)[0]",
    "T.lobpcg(T.diag(T.arange(1.0, 13.0, dtype=T.float64)), k=2, largest=False, tol=1e-10)[0]",
    "T.lobpcg(T.diag(T.arange(1.0, 13.0, dtype=T.float64)), k=2, B=2 * T.eye(12, dtype=T.float64), tol=1e-10)[0]",
    "T.lobpcg(T.diag(T.arange(1.0, 13.0, dtype=T.float64)), X=T.eye(12, 3, dtype=T.float64) + 0.1, tol=1e-10)[0]",
    "T.lobpcg(P, k=2)", "T.lobpcg(A)", "T.lobpcg(P, B=T.eye(2))",
    "T.pca_lowrank(L, q=10)", "T.pca_lowrank(L, q=-1)", "T.pca_lowrank(L, niter=-1)",
]


def main():
    record(CALLS, inputs, describe, "linalg_polar", messages=True)


if __name__ == "__main__":
    main()
