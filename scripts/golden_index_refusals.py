"""Record the exception class PyTorch raises for an index of a dtype the
index ops do not take (floats, bools, a bincount of floats), for
tests/test_index_ops.py: PyTorch code catches these by class, and the ops
differ (index_select and take raise RuntimeError, index_fill_ IndexError,
bincount NotImplementedError).

Run with an interpreter that has PyTorch:
    python scripts/golden_index_refusals.py
writes tests/golden/index_refusals.json: [call, outcome] pairs, the call a
Python expression over T (the library) and the tensors inputs() makes."""
from golden_calls import describe_plain as describe, record

OPS = {
    "index_select": "T.index_select(X, 0, {i})",
    "index_add_": "X.clone().index_add_(0, {i}, X)",
    "index_copy_": "X.clone().index_copy_(0, {i}, X)",
    "index_fill_": "X.clone().index_fill_(0, {i}, 1.0)",
    "index_reduce_": "X.clone().index_reduce_(0, {i}, X, 'prod')",
    "take": "T.take(X, {i})",
    "put_": "X.clone().put_({i}, V)",
    "gather": "T.gather(X, 0, {i}.reshape(1, 2))",
    "scatter_": "X.clone().scatter_(0, {i}.reshape(1, 2), 1.0)",
    "scatter_add_": "X.clone().scatter_add_(0, {i}.reshape(1, 2), X[:1, :2])",
    "scatter_reduce_": "X.clone().scatter_reduce_(0, {i}.reshape(1, 2), X[:1, :2], 'sum')",
    "take_along_dim": "T.take_along_dim(X, {i}.reshape(1, 2), 0)",
    "getitem": "X[{i}]",
    "index_put_": "X.clone().index_put_(({i},), T.tensor(1.0))",
    "embedding": "T.nn.functional.embedding({i}, X)",
    "one_hot": "T.nn.functional.one_hot({i})",
}
CALLS = [form.format(i=i) for form in OPS.values() for i in ("FI", "DI")] + [
    "T.bincount(FI)", "T.bincount(BI)", "T.bincount(L2)", "T.bincount(T.tensor([-1]))",
    "T.index_select(X, 0, L2)", "T.index_select(X, 0, BI)",
]


def inputs(T):
    return {
        "X": T.arange(6.0).reshape(2, 3), "V": T.tensor([1.0, 2.0]),
        "FI": T.tensor([0.0, 1.0]), "DI": T.tensor([0.0, 1.0], dtype=T.float64),
        "BI": T.tensor([True, False]), "L2": T.zeros(2, 2, dtype=T.int64),
    }


def main():
    record(CALLS, lambda T: {"T": T, **inputs(T)}, describe, "index_refusals", messages=True)


if __name__ == "__main__":
    main()
