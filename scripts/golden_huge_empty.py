"""Record PyTorch's answers to tensors of huge sizes: empty ones (a 0 among
sizes like 2**62), which it makes, views and operates on, and non-empty ones
whose element count or strides overflow int64, which it refuses with a
RuntimeError; for tests/test_huge_empty.py.

Run with an interpreter that has PyTorch:
    python scripts/golden_huge_empty.py
writes tests/golden/huge_empty.json: [call, outcome] pairs, the call a Python
expression over T (the library) and H (2**62), the outcome the result's
shape and strides (or value), or the exception's type."""
from golden_calls import record

CALLS = [
    # factories: an empty shape is made, whatever its other sizes
    "T.zeros((0, H))", "T.empty(0, 2**63 - 1)", "T.ones((H, 0, H))", "T.zeros(H, 3, 0)",
    "T.full((0, H), 1.0)", "T.randn(0, H)", "T.zeros(0, H, dtype=T.complex128)",
    "T.empty_strided((0, H), (H, 1))", "T.zeros(0, H).new_zeros((0, H))",
    "T.zeros((0, H)).nbytes", "T.zeros(0, H).untyped_storage().nbytes()",
    "T.zeros(0, H).element_size()", "T.zeros(0, H).numel()",
    # refused: the count or a row-major stride overflows int64
    "T.zeros((H, 4))", "T.zeros((2**31, 2**31, 4))", "T.empty(H, H)", "T.empty(2**63 - 1)",
    "T.empty(2**40, 2**30)", "T.zeros(H, 4, dtype=T.int8)", "T.empty(2**61, 2, dtype=T.float64)",
    "T.empty(2**60, dtype=T.float64)", "T.zeros((H, H, 0))", "T.zeros(0, H, 4)",
    "T.zeros((0, -1))", "T.empty_strided((2, 2), (H, 1))", "T.empty_strided((H, 2), (1, H))",
    # views of empty ones
    "T.empty((0, H)).expand(3, 0, H)", "T.zeros(0, H).reshape(H, 0)", "T.zeros(0, H).reshape(-1)",
    "T.zeros(0, H).view(H, 0, 1)", "T.zeros(0, H).t()", "T.zeros(0, H).t().contiguous()",
    "T.zeros(0, 4).as_strided((0, H), (1, 1))", "T.zeros(3, 0).expand(H, 3, 0)",
    "T.zeros(3, 0).reshape(H, 0, 5)", "T.zeros(3, 0).view(2**63 - 1, 0)",
    "T.zeros(0, H).unsqueeze(0)", "T.zeros(0, H).unsqueeze(1).expand(0, 2, H)",
    "T.zeros(0, H).flatten()", "T.zeros(H, 0).permute(1, 0)", "T.zeros(0, H)[..., :5]",
    "T.zeros(0, H).unfold(1, 2, 1)", "T.zeros(0, H).narrow(1, 0, 0)", "T.zeros(0, H).chunk(2, 1)[0]",
    "T.zeros(0, H).view(-1, 0)", "T.zeros(0, H).movedim(0, -1)",
    # ops on empty ones
    "T.zeros(0, H).to(T.float64)", "T.zeros(0, H).clone()", "T.zeros(0, H) + 1",
    "T.zeros(0, H).repeat(2, 1)", "T.zeros(0, H).sum()", "T.zeros(0, H).sum(1)",
    "T.zeros(H, 0).sum()", "T.zeros(H, 0).mean(0)", "T.zeros(H, 0, H).argmax(0)",
    "T.zeros(H, 0, H).amax(2)", "T.zeros(H, 3, 0).sum(0)", "T.zeros(H, 0).flip(0)",
    "T.zeros(H, 0).roll(1, 0)", "T.zeros(H, 0).cumsum(0)", "T.zeros(0, H).softmax(-1)",
    "T.zeros(0, H) @ T.zeros(0, H).t()", "T.bmm(T.zeros(3, 0, H), T.zeros(3, H, 0))",
    "T.cat([T.zeros(0, H), T.zeros(0, H)])", "T.stack([T.zeros(0, H), T.zeros(0, H)])",
    "T.zeros(0, H).nonzero().shape", "T.zeros(0, H).any()", "T.where(T.zeros(0, H) > 0, 1.0, 2.0)",
    "T.zeros(H, 0).fill_(2)", "T.zeros(0, H).masked_fill(T.zeros(0, H) > 0, 1.0)",
    "T.zeros(0, H).index_select(0, T.tensor([], dtype=T.long))", "repr(T.zeros(0, H))",
    "repr(T.zeros(H, 3, 0, dtype=T.int32))", "T.zeros_like(T.zeros(0, H))",
    # views and ops past int64: refused
    "T.zeros(4).as_strided((H, 2), (0, 0))", "T.zeros(4).as_strided((2, H), (H, 1))",
    "T.zeros(4).as_strided((2, 2), (H, 1))", "T.zeros(4).as_strided((2, 2), (2**63 - 1, 1))",
    "T.zeros(1).expand(H, H)", "T.zeros(1).expand(H, 4)", "T.zeros(0, H).sum(0)",
    "T.zeros(H, 0).sum(1)", "T.cat([T.zeros(H, 0), T.zeros(H, 0)])",
]


def make_env(T):
    return {"T": T, "H": 2 ** 62}


def describe(r):
    if hasattr(r, "stride"):
        return ["tensor", list(r.shape), list(r.stride()), str(r.dtype).split(".")[-1]]
    if isinstance(r, (int, float, bool)):
        return ["value", r]
    return ["value", (r if isinstance(r, str) else repr(r)).replace("torchlike.", "torch.")]


if __name__ == "__main__":
    record(CALLS, make_env, describe, "huge_empty")
