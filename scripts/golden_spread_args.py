"""Record PyTorch's answers to the functions that take their tensors spread
(meshgrid, broadcast_tensors, atleast_1d/2d/3d, block_diag, cartesian_prod:
f(a, b), f([a, b]), f(), keywords, wrong types) and to broadcast_shapes and
tril/triu_indices, for tests/test_spread_args.py.

Run with an interpreter that has PyTorch:
    python scripts/golden_spread_args.py
writes tests/golden/spread_args.json: [call, outcome] pairs, the call a
Python expression over T (the library) and the tensors A (2,), B (3, 1),
C (3,) and S (a 0-d tensor) that inputs() makes."""
from golden_calls import record


SPREAD = ["meshgrid", "broadcast_tensors", "atleast_1d", "atleast_2d", "atleast_3d",
          "block_diag", "cartesian_prod"]
FORMS = ["A, C", "[A, C]", "(A, C)", "A", "[A]", "S", "", "[]", "()", "A, [C]", "A, 1", "[A, 1]",
         "1", "None", "tensors=[A, C]", "A, foo=1", "A, B"]
CALLS = [f"T.{f}({args})" for f in SPREAD for args in FORMS] + [
    "T.meshgrid(A, C, indexing='xy')", "T.meshgrid([A, C], indexing='ij')",
    "T.meshgrid(A, indexing=None)", "T.meshgrid(A, indexing='bad')", "T.meshgrid(A, S)",
    "T.atleast_3d(A, B, S)", "T.block_diag(A, B, S)", "T.cartesian_prod(A, C, A)",
    "T.broadcast_tensors(A, B, S)",
    # broadcast_shapes: each shape an int or a sequence; None is skipped
    "T.broadcast_shapes((2, 3), (3,))", "T.broadcast_shapes([2, 3], 1)",
    "T.broadcast_shapes(2, 3)", "T.broadcast_shapes(())", "T.broadcast_shapes()",
    "T.broadcast_shapes((2, 1), None, (3,))", "T.broadcast_shapes(T.Size([2, 1]), (3,))",
    "T.broadcast_shapes((0, 1), (4,))", "T.broadcast_shapes((2,), (3,))",
    "T.broadcast_shapes((2, 3), (3, 4))", "T.broadcast_shapes((1, 4), (2, 1), (3, 1, 5))",
    "T.broadcast_shapes((-1,))", "T.broadcast_shapes((2.0,))", "T.broadcast_shapes(shapes=(2,))",
    "T.broadcast_shapes('a')",
    # tril/triu_indices
    "T.tril_indices(3, 3)", "T.tril_indices(3, 4, 1)", "T.triu_indices(4, 3, -1)",
    "T.tril_indices(3, 3, offset=-1)", "T.triu_indices(row=2, col=3)", "T.tril_indices(0, 0)",
    "T.tril_indices(3, 0)", "T.tril_indices(3, 3, dtype=T.int32)", "T.tril_indices(3)",
    "T.tril_indices(3, 3, dtype=T.float32)", "T.tril_indices(3.0, 3)",
    "T.tril_indices(3, 3, 1, T.int64)", "T.tril_indices(-1, 3)", "T.triu_indices(2, 2, foo=1)",
    "T.tril_indices(3, 3, layout=T.strided)", "T.tril_indices(3, 3, device='cpu')",
]


def inputs(T):
    return {"A": T.tensor([1.0, 2.0]), "B": T.tensor([[3.0], [4.0], [5.0]]),
            "C": T.tensor([7.0, 8.0, 9.0]), "S": T.tensor(6.0)}


def describe(r):
    """A JSON form of a call's result, for PyTorch's and torchlike's alike
    (tests/test_spread_args.py uses it too)."""
    if type(r).__name__ == "Size":
        return ["size", [int(x) for x in r]]
    if isinstance(r, (tuple, list)):
        return ["tuple", [describe(x) for x in r]]
    a = r.detach().cpu().numpy()
    return ["tensor", str(r.dtype).split(".")[-1], list(a.shape), a.tolist()]


def main():
    record(CALLS, lambda T: {"T": T, **inputs(T)}, describe, "spread_args", messages=True)


if __name__ == "__main__":
    main()
