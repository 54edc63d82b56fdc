"""Record PyTorch's answers to sizes and dims given as integer tensors (0-d,
or of one element with dims: PyTorch's int-list parser takes any integer
tensor of one element, its int parser only a 0-d one) in the factories and
the view/reshape/expand family, for tests/test_size_tensors.py.

Run with an interpreter that has PyTorch:
    python scripts/golden_size_tensors.py
writes tests/golden/size_tensors.json: [call, outcome] pairs, the call a
Python expression over T (the library), t (T.tensor) and x (T.arange(6.)
as 2 x 3), the outcome the result's shape or the exception's type."""
from golden_calls import record

CALLS = [
    # factories: the size as varargs, one value, or items of a sequence
    "T.zeros(t(3))", "T.zeros(t(3), t(2))", "T.zeros((t(2), 3))", "T.ones([t(2), t(3)])",
    "T.zeros(t([3]))", "T.zeros(t([[3]]))", "T.zeros(t([3]), 2)", "T.zeros(2, t([3]))",
    "T.zeros(t(2), t([3]))", "T.zeros((t([[2]]), t([3])))", "T.zeros(t(3, dtype=T.int32))",
    "T.zeros(t(3, dtype=T.uint8))", "T.zeros(t([[2]], dtype=T.int8), 2)",
    "T.zeros(t(3, dtype=T.uint8)[None, None])", "T.empty(t(2), 3)", "T.randn(t(3))",
    "T.randn(t([2]), 2)", "T.full((t(3),), 1.)", "T.full((t([3]),), 1.)",
    "T.zeros(size=(t([3]),))", "T.zeros(t(3), requires_grad=True)", "T.empty(t(-1))",
    "T.empty_strided((t(2), 3), (3, t(1)))", "T.arange(t(4))",
    # what is no int: float, complex, empty and many-element tensors
    "T.zeros(t(3.0))", "T.zeros((t(2.), 3))", "T.zeros(t(3.5))", "T.zeros(t(3, dtype=T.float16))",
    "T.zeros(t([]))", "T.empty(t(2) + 0j)", "T.zeros((t([2, 3]), 2))",
    # views of a tensor
    "x.view(t(2), -1)", "x.view(t(2), t(3))", "x.view((t(2), 3))", "x.view(t(6))",
    "x.view(t([[6]]))", "x.view(t([2]), 3)", "x.view(3, t([[2]]))", "x.view(t(6.))",
    "x.view(-1, t(-1))", "x.view(t([2]).expand(1), 3)",
    "x.reshape(t(6))", "x.reshape(t(2), -1)", "x.reshape((t(2), -1))", "x.reshape(t([[3]]), -1)",
    "T.reshape(x, (t(3), 2))", "x.expand(t(2), 2, 3)", "x.expand(t([[2]]), 2, 3)",
    "x.new_zeros(t(3))", "x.new_zeros((t(3), 2))", "x.new_zeros(t([2]), 2)",
    "x.new_ones(t(2), t(3))", "x.repeat(t(2), 1)", "x.repeat(t([[2]]), 1)",
    "x.permute(t([1]), 0)", "x.flip(t([1]))",
    # dims: an int list takes one-element tensors, an int only 0-d ones
    "x.sum(t(0))", "x.sum(t([0]))", "x.sum(t([[1]]))", "x.sum((t([1]),))", "x.flatten(t(0))",
    "x.unsqueeze(t(0))", "x.unsqueeze(t([1]))", "x.narrow(1, t(1), t(2))",
]


def make_env(T):
    return {"T": T, "t": T.tensor, "x": T.arange(6.).reshape(2, 3)}


def describe(r):
    return ["shape", list(r.shape)]


if __name__ == "__main__":
    record(CALLS, make_env, describe, "size_tensors")
