"""Record PyTorch's answers to the argument forms of the creation and random
functions (sizes as varargs, a sequence or size=; NumPy ints and 0-d tensors;
dtype inference of full/arange/linspace; errors) for tests/test_create_args.py.

Run with an interpreter that has PyTorch:
    python scripts/golden_create_args.py
writes tests/golden/create_args.json: [call, outcome] pairs, the call a Python
expression over T (the library), np and Size (T.Size)."""
import numpy as np

from golden_calls import record

CALLS = [
    # sizes
    "T.zeros(2, 3)", "T.zeros((2, 3))", "T.zeros([2, 3])", "T.zeros(size=(2, 3))",
    "T.zeros(T.Size([2, 3]))", "T.zeros(np.int64(2), T.tensor(3))", "T.ones(np.int32(2))",
    "T.zeros(2, size=3)", "T.zeros(2, 3.0)", "T.zeros(2, pin_memory=False)",
    "T.zeros(2, layout=T.strided)", "T.empty(3, 4).shape", "T.empty((0, 2)).shape",
    "T.zeros(2, dtype=T.int64, requires_grad=True)", "T.ones(2, requires_grad=True).requires_grad",
    "T.zeros(2, 3, out=T.empty(2, 3))", "T.zeros(2, 4, unknown=1)",
    # full: the fill value's kind gives the dtype
    "T.full((2,), 1)", "T.full((2,), True)", "T.full((2,), 1.5)", "T.full((2,), 1j)",
    "T.full((2,), np.float32(2.5))", "T.full((2,), T.tensor(3))", "T.full((2,), 7, dtype=T.int8)",
    "T.full(size=(1, 2), fill_value=4)", "T.full((2,), 'a')", "T.full((2,))",
    # arange: one positional is the end; any float gives the default float dtype
    "T.arange(5)", "T.arange(1, 5)", "T.arange(end=5)", "T.arange(start=5)",
    "T.arange(0, 5, step=2)", "T.arange(1.0, 3)", "T.arange(True, 3)", "T.arange(0, 1, 0.25)",
    "T.arange(np.int32(4))", "T.arange(T.tensor(4))", "T.arange(T.tensor(2.5))",
    "T.arange(5, 0, -2)", "T.arange(0, 5, 0)", "T.arange(5, 0)", "T.arange(4, dtype=T.float64)",
    "T.arange()", "T.arange(3, end=4)",
    # linspace, logspace
    "T.linspace(0, 1, 5)", "T.linspace(0, 1, -1)", "T.linspace(0, 1, 2.0)",
    "T.linspace(0j, 1, 3)", "T.linspace(0, 1, steps=3, dtype=T.float64)",
    "T.logspace(0, 2, 3, base=2)", "T.logspace(0, 2, 3, 2)", "T.linspace(0, 1)",
    # eye
    "T.eye(3)", "T.eye(2, 3)", "T.eye(-1)", "T.eye(2, dtype=T.int32)", "T.eye(n=2, m=1)",
    "T.eye(2.0)",
    # the _like forms follow the input's dtype
    "T.zeros_like(T.zeros(2, dtype=T.int32))", "T.ones_like(T.zeros(2, 1), dtype=T.float64)",
    "T.full_like(T.zeros(2, dtype=T.int32), 2.7)", "T.zeros_like(T.zeros(2), out=T.zeros(2))",
    "T.empty_like(T.zeros(3, 1, dtype=T.int16)).shape", "T.zeros_like(input=T.ones(1))",
    # Tensor.new_*
    "T.ones(2, dtype=T.int32).new_zeros(3)", "T.ones(2, dtype=T.int32).new_ones((1, 2))",
    "T.ones(2).new_full((2,), 5)", "T.ones(2).new_empty(2, 3).shape",
    "T.ones(2).new_zeros(size=(2,), dtype=T.float64)",
    "T.ones(2, dtype=T.int32).new_tensor([1.5, 2])",
    # other factories
    "T.scalar_tensor(3)", "T.scalar_tensor(True, dtype=T.int64)",
    "T.empty_strided((2, 3), (1, 2)).stride()", "T.tensor([1, 2], dtype=T.float64)",
    # random: shapes, dtypes and errors
    "T.rand(2, 3).shape", "T.rand(size=(2,)).shape", "T.rand(2, dtype=T.float64).dtype",
    "T.rand(2, generator=1)", "T.randn(np.int64(2), T.tensor(2)).shape",
    "T.randint(10, (3,)).dtype", "T.randint(3, 10, (3,)).shape",
    "T.randint(high=10, size=(3,)).shape", "T.randint(10, size=(3,)).shape",
    "T.randint(3, 10, size=(2, 2), dtype=T.int32).dtype", "T.randint(5, 5, (3,))",
    "T.randint(10)", "T.randperm(-1)", "T.randperm(4, dtype=T.int32).dtype",
    "T.randperm(np.int64(3)).shape", "T.normal(0.0, 1.0)", "T.normal(0.0, 1.0, (2,)).dtype",
    "T.normal(T.zeros(2, dtype=T.float64), 1.0).dtype", "T.normal(0.0, T.ones(2, 1)).shape",
    "T.rand_like(T.zeros(2, dtype=T.float64)).dtype", "T.randn_like(T.zeros(2), dtype=T.float64).dtype",
    "T.randint_like(T.zeros(2), 10).dtype", "T.randint_like(T.zeros(2), 3, 10).shape",
    "T.randint_like(T.zeros(2), low=5)", "T.bernoulli(T.zeros(3)).shape",
    "T.multinomial(T.ones(4), 2).dtype",
    "T.multinomial(T.ones(4), 2, replacement=True).shape", "T.poisson(T.ones(3)).shape",
    # in-place draws: their dtype is self's; bounds checked
    "T.empty(2).random_(5).dtype", "T.empty(2, dtype=T.int64).random_(3, 4)",
    "T.empty(2).random_(5, 2)", "T.empty(2).uniform_(1j)", "T.empty(2).geometric_()",
    "T.empty(2).uniform_(2, 2)", "T.empty(2).bernoulli_(1.0)", "T.empty(2).bernoulli_(0)",
    "T.empty(2).exponential_(lambd=2.0).shape", "T.empty(2).normal_(std=0.0)",
    "T.empty(2).cauchy_(median=0.0, sigma=1.0).shape", "T.empty(2).log_normal_(std=0.0)",
    "T.empty(2).uniform_(generator='g')", "T.zeros(2).bernoulli(0.0)",
]


def describe(r):
    """A JSON form of a call's result, for PyTorch's and torchlike's alike
    (tests/test_create_args.py uses it too)."""
    if isinstance(r, (tuple, list)):  # shapes and strides
        return ["tuple", [int(x) for x in r]]
    if isinstance(r, bool):
        return ["bool", r]
    if type(r).__name__ == "dtype":
        return ["dtype", str(r).split(".")[-1]]
    a = r.detach().cpu().numpy()
    if np.iscomplexobj(a):
        values = np.stack([a.real, a.imag], -1).tolist()
    else:
        values = a.tolist()
    return ["tensor", str(r.dtype).split(".")[-1], list(a.shape), values]


def main():
    record(CALLS, lambda T: {"T": T, "np": np}, describe, "create_args")


if __name__ == "__main__":
    main()
