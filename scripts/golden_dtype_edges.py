"""Record PyTorch's answers at a few dtype edges of its API, for
tests/test_dtype_edges.py: normal() with a complex mean, randint/random_
into a half-precision float past the integers it holds exactly (a warning,
not an error), nn.init.orthogonal_ of half-precision and complex tensors,
x.view(dtype) of another width at an odd offset, and aminmax's recorded
node.  Random draws are described by what does not depend on the stream:
dtype, shape, bounds, and the mean itself where std is 0.

Run with an interpreter that has PyTorch:
    python scripts/golden_dtype_edges.py
writes tests/golden/dtype_edges.json: [call, outcome] pairs, the call a
Python expression over T (the library), M (a complex64 mean), W (the
warnings' messages of a call) and IN (whether a draw's values lie in a
closed range)."""
from golden_calls import record, describe_plain

CALLS = [
    # normal with a complex mean: mean + std z, z of the complex normal
    "T.normal(M, 1.0).dtype", "T.normal(M, 1.0).shape", "T.normal(M, T.ones(2)).dtype",
    "T.normal(M.to(T.complex128), 1.0).dtype", "T.normal(M, T.ones(2, dtype=T.float64)).dtype",
    "T.normal(M, 0.0).tolist()", "T.normal(M, T.zeros(3, 2)).tolist()",
    "T.normal(M, T.ones(2), out=T.empty(2, dtype=T.complex64)).dtype",
    "T.normal(T.zeros(2), T.ones(2, dtype=T.complex64))", "T.normal(M, M)",
    "T.normal(0.0, T.ones(2, dtype=T.complex64))",
    "T.normal(T.zeros(2), T.ones(2, dtype=T.float64)).dtype",
    "T.normal(T.zeros(2, dtype=T.float64), T.ones(2)).dtype",
    "T.normal(T.zeros(2, dtype=T.float16), T.ones(2)).dtype",
    "W(lambda: T.normal(M, 1.0))",
    # integers drawn into floats past 2**digits: PyTorch warns and draws
    "T.randint(0, 300, (3,), dtype=T.bfloat16).dtype",
    "IN(T.randint(0, 300, (50,), dtype=T.bfloat16), 0, 300)",
    "W(lambda: T.randint(0, 300, (3,), dtype=T.bfloat16))",
    "W(lambda: T.randint(-300, 0, (3,), dtype=T.bfloat16))",
    "W(lambda: T.randint(-300, 300, (3,), dtype=T.bfloat16))",
    "W(lambda: T.randint(0, 257, (3,), dtype=T.bfloat16))",
    "W(lambda: T.randint(0, 258, (3,), dtype=T.bfloat16))",
    "W(lambda: T.randint(0, 5000, (3,), dtype=T.float16))",
    "W(lambda: T.randint(0, 2**11 + 1, (3,), dtype=T.float16))",
    "W(lambda: T.randint(0, 2**24 + 2, (3,), dtype=T.float32))",
    "W(lambda: T.randint(0, 2**53 + 2, (3,), dtype=T.float64))",
    "W(lambda: T.randint(300, (3,), dtype=T.bfloat16))",
    "W(lambda: T.zeros(3, dtype=T.bfloat16).random_(0, 300))",
    "W(lambda: T.zeros(3, dtype=T.bfloat16).random_(300))",
    "W(lambda: T.randint_like(T.zeros(3, dtype=T.bfloat16), 0, 300))",
    "IN(T.randint(0, 5000, (50,), dtype=T.float16), 0, 5000)",
    "T.randint(0, 300, (3,), dtype=T.uint8)", "T.randint(0, 300, (3,), dtype=T.int8)",
    "T.randint(0, 300, (3,), dtype=T.complex64)",
    # orthogonal_ in half precision and complex
    "T.nn.init.orthogonal_(T.empty(3, 3, dtype=T.float16))",
    "T.nn.init.orthogonal_(T.empty(3, 3, dtype=T.bfloat16))",
    "T.nn.init.orthogonal_(T.empty(3, 5, dtype=T.float16))",
    "T.nn.init.orthogonal_(T.empty(3, 3, dtype=T.complex64))",
    "T.nn.init.orthogonal_(T.empty(0, 3, dtype=T.float16)).shape",
    "T.nn.init.orthogonal_(T.empty(3, 3, dtype=T.float64)).dtype",
    # view(dtype) of another width
    "T.arange(8, dtype=T.int32)[1:5].view(T.int64)",
    "T.arange(8, dtype=T.int32)[2:6].view(T.int64).tolist()",
    "T.arange(8, dtype=T.int32)[2:6].view(T.int64).storage_offset()",
    "T.arange(8, dtype=T.int32)[1:5].view(T.int16).tolist()",
    "T.arange(8, dtype=T.int32)[1:4].view(T.int64)",
    "T.arange(8, dtype=T.int32)[::2].view(T.int64)",
    "T.arange(8, dtype=T.int32).reshape(2, 4)[:, 1:3].view(T.int64)",
    "T.arange(8, dtype=T.int32).reshape(2, 4)[:, 2:].view(T.int64).tolist()",
    "T.arange(8, dtype=T.int8)[1:5].view(T.int32)",
    "T.arange(8, dtype=T.int8)[4:8].view(T.int32).tolist()",
    "T.arange(4, dtype=T.float32).reshape(2, 2).t().view(T.float64)",
    # aminmax's node
    "type(T.aminmax(T.ones(3, requires_grad=True)).min.grad_fn).__name__",
    "type(T.aminmax(T.ones(3, requires_grad=True), dim=0).max.grad_fn).__name__",
    "type(T.ones(3, 2, requires_grad=True).aminmax(dim=1, keepdim=True).min.grad_fn).__name__",
    "(lambda r: r.min.grad_fn is r.max.grad_fn)(T.aminmax(T.ones(3, requires_grad=True)))",
    "(lambda x: (lambda r: T.autograd.grad(r.min + 2 * r.max, x)[0].tolist())"
    "(T.aminmax(x)))(T.tensor([1.0, 3.0, 2.0, 1.0], requires_grad=True))",
    "(lambda x: (lambda r: T.autograd.grad((r.min * T.tensor([[1.0], [2.0]])).sum() + "
    "r.max.sum(), x)[0].tolist())(T.aminmax(x, dim=1, keepdim=True)))"
    "(T.tensor([[1.0, 1.0, 5.0], [4.0, 0.0, 4.0]], requires_grad=True))",
]


def inputs(T):
    import warnings

    def W(call):
        """The messages of the warnings a call gives."""
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            call()
        # PyTorch's C++ warnings end with where they were raised in its source
        return [str(w.message).split(" (Triggered internally at")[0] for w in caught]

    def IN(t, lo, hi):
        return bool(((t >= lo) & (t <= hi)).all())

    return {"M": T.tensor([1 + 2j, 3 - 1j], dtype=T.complex64), "W": W, "IN": IN}


def describe(r):
    if type(r).__name__ == "Size":
        return ["list", [["value", int(x)] for x in r]]
    if type(r).__name__ == "dtype":
        return ["value", str(r).split(".")[-1]]
    if isinstance(r, list) and r and isinstance(r[0], complex):
        return ["value", [[z.real, z.imag] for z in r]]
    if isinstance(r, list) and r and isinstance(r[0], list) and isinstance(r[0][0], complex):
        return ["value", [[[z.real, z.imag] for z in row] for row in r]]
    return describe_plain(r)


def main():
    record(CALLS, lambda T: {"T": T, **inputs(T)}, describe, "dtype_edges", messages=True)


if __name__ == "__main__":
    main()
