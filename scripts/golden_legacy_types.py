"""Record PyTorch's legacy tensor types and Tensor.type()/type_as(), for
tests/test_legacy_types.py: construction forms, isinstance, the type names,
casts by dtype, type and name, view_as & co. not tracking their shape
argument, and the messages of bad calls.

Run with an interpreter that has PyTorch:
    python scripts/golden_legacy_types.py
writes tests/golden/legacy_types.json ([call, outcome] pairs over T, the
library; type names are compared with torchlike. read as torch.)."""
from golden_calls import record


def inputs(T):
    return {"T": T, "x": T.ones(2, 3), "i": T.arange(4, dtype=T.int32),
            "p": T.nn.Parameter(T.ones(2, 3))}


NAMES = ["Float", "Double", "Half", "BFloat16", "Byte", "Char", "Short", "Int", "Long", "Bool"]
CALLS = []
for n in NAMES:
    CALLS += [f"T.{n}Tensor(2, 3)", f"T.{n}Tensor([1, 0, 3])", f"T.{n}Tensor()",
              f"isinstance(x.to(T.{n}Tensor.dtype), T.{n}Tensor)", f"T.{n}Tensor.dtype",
              f"x.type(T.{n}Tensor)", f"x.type('torch.{n}Tensor')", f"x.to(T.{n}Tensor.dtype).type()",
              f"T.cuda.{n}Tensor.is_cuda", f"isinstance(x, T.cuda.{n}Tensor)"]
CALLS += [
    "x.type()", "x.type(T.float64)", "x.type(T.float32) is x", "x.type('torch.FloatTensor') is x",
    "T.ones(2, dtype=T.complex64).type()", "T.ones(2, dtype=T.complex128).type()",
    "x.type_as(i)", "i.type_as(x)", "T.FloatTensor(T.Size([2, 4])).shape", "T.LongTensor([[1, 2], [3, 4]])",
    "T.FloatTensor(T.tensor([1.5, 2.0]))", "isinstance(x, T.FloatTensor)", "T.FloatTensor.is_cuda",
    "x.type('torch.Foo')", "T.FloatTensor(2, 'a')", "T.LongTensor(T.tensor([1.5]))",
    "T.zeros(6).view_as(p).requires_grad", "T.zeros(6).reshape_as(p).requires_grad",
    "T.zeros(1, 3).expand_as(p).requires_grad", "T.zeros(6, requires_grad=True).view_as(p).shape",
]


def describe(r):
    if isinstance(r, str):
        return ["str", r.replace("torchlike.", "torch.")]
    if hasattr(r, "numpy") and hasattr(r, "dtype"):
        a = r.detach().float() if str(r.dtype).endswith("bfloat16") else r.detach()
        vals = a.cpu().numpy().tolist() if r.numel() and tuple(r.shape) != (2, 3) else None
        return ["tensor", str(r.dtype).split(".")[-1], list(r.shape), vals]
    if hasattr(r, "is_floating_point") or type(r).__name__ == "dtype":
        return ["dtype", str(r).split(".")[-1]]
    if isinstance(r, tuple):
        return ["tuple", list(r)]
    return [type(r).__name__, r]


def main():
    record(CALLS, inputs, describe, "legacy_types", messages=True)


if __name__ == "__main__":
    main()
