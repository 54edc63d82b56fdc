"""Record PyTorch's answers for writes to inference tensors outside
inference_mode and for saving them for backward, for
tests/test_inference_tensors.py: each call either runs (its result
described: shape, values, whether it is an inference tensor) or raises
(class and first line).

Run with an interpreter that has PyTorch:
    python scripts/golden_inference_tensors.py
writes tests/golden/inference_tensors.json ([call, outcome] pairs over T)."""
from golden_calls import record


def inputs(T):
    """x, y: inference tensors (2x3 and its row view); n: a normal tensor
    made inside inference_mode as a view of a normal one; w: a leaf that
    requires grad; i: an inference index tensor."""
    base = T.arange(6.0).reshape(2, 3)
    with T.inference_mode():
        x = T.arange(6.0).reshape(2, 3) + 1
        y = x[0]
        n = base[1]
        i = T.tensor([0, 1])
    w = T.linspace(-1.0, 1.0, 3, requires_grad=True)
    return {"T": T, "x": x, "y": y, "n": n, "i": i, "w": w, "base": base}


CALLS = [
    # in-place writes, through every kind of entry point
    "x.add_(1)", "x.mul_(2)", "x.zero_()", "x.fill_(3)", "x.copy_(base)", "x.clamp_(0, 2)",
    "x.uniform_()", "x.normal_()", "x.bernoulli_(0.5)", "x.__setitem__(0, 5.0)",
    "x.__setitem__((slice(None), 1), base[:, 0])", "x.index_put_((i,), T.tensor(1.0))",
    "x.masked_fill_(x > 2, 0.0)", "x.scatter_(1, T.zeros(2, 1, dtype=T.int64), 9.0)",
    "x.index_add_(1, T.tensor([0]), T.ones(2, 1))", "x.__iadd__(1)", "x.__imul__(base)",
    "y.add_(1)", "x.view(-1).add_(1)", "x.t().sub_(1)", "x.exp_()", "x.sigmoid_()",
    "T.nn.functional.relu(x, inplace=True)", "T.nn.functional.dropout(x, 0.5, True, True)",
    "T.nn.init.zeros_(x)", "T.nn.init.normal_(x)",
    # out= into an inference tensor
    "T.add(base, 1, out=x)", "T.mm(T.ones(2, 2), base, out=x)",
    "T.sum(T.ones(2, 3, 4), 2, out=x)", "T.cumsum(base, 1, out=x)",
    "T.cat([base[:1], base[1:]], out=x)", "T.exp(base, out=x)",
    "T.sort(base, out=(x, T.zeros(2, 3, dtype=T.int64)))",
    # in-place metadata changes
    "x.unsqueeze_(0)", "x.t_()", "x.squeeze_()", "x.transpose_(0, 1)",
    "x.as_strided_((3,), (1,))", "x.resize_(2)", "x.resize_(4, 4)", "x.set_(base)", "x.set_()",
    "x.requires_grad_()", "x.requires_grad_(False)", "T.nn.Parameter(x)",
    "T.nn.Parameter(x, requires_grad=False)",
    # what stays allowed
    "x.detach_()", "x.clone().add_(1)", "x + 1", "x.exp()", "x.sum()", "x.view(-1)",
    "x.contiguous()", "n.add_(1)", "n.is_inference()", "y.is_inference()", "base.add_(1)",
    "float(x.numpy().sum())", "T.from_numpy(x.numpy()).add_(1)",
    # saving for backward
    "(w * x).sum()", "(w + x).sum()", "(x @ w).sum()", "(w * y).sum()", "T.where(x > 2, w, 0.0)",
    "w[i].sum()", "(w - x).pow(2).sum()", "T.nn.functional.linear(x, w[None])",
    "(w * n).sum()", "(w * x.clone()).sum()", "T.sin(x) * w",
    "T.stack([w, y]).sum()", "(T.stack([w, y]) * 2).sum()",
]


def describe(r):
    if hasattr(r, "numpy") and hasattr(r, "dtype"):
        vals = [round(v, 5) if isinstance(v, float) else v
                for v in r.detach().reshape(-1).tolist()]
        return ["tensor", list(r.shape), vals, r.is_inference()]
    return [type(r).__name__, r if isinstance(r, (bool, int, float, type(None))) else repr(r)]


def main():
    record(CALLS, inputs, describe, "inference_tensors", messages=True)


if __name__ == "__main__":
    main()
