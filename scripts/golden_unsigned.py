"""Record PyTorch's answers about its wide unsigned dtypes (uint16, uint32,
uint64) for tests/test_unsigned_dtypes.py: construction at the edges of
their ranges and past them, fill and full, casts, item/tolist, sums (int64,
as for every integer dtype), sort, comparisons of same-dtype tensors, the
dtype objects' attributes, iinfo, legacy type names, and promotion with
float dtypes.  Where PyTorch 2.15 has no kernel for these dtypes (add, max,
cumsum's dtype ...) torchlike computes what NumPy does; those calls are
tested against NumPy instead and are not recorded here.

Run with an interpreter that has PyTorch:
    python scripts/golden_unsigned.py
writes tests/golden/unsigned.json ([call, outcome] pairs over T, the library)."""
from golden_calls import record


def inputs(T):
    return {"T": T, "u16": T.uint16, "u32": T.uint32, "u64": T.uint64}


CALLS = []
for d, bits in (("u16", 16), ("u32", 32), ("u64", 64)):
    top = 2 ** bits - 1
    CALLS += [
        f"T.tensor([0, 1, {top}], dtype={d})", f"T.tensor({top}, dtype={d})",
        f"T.tensor([{top + 1}], dtype={d})", f"T.tensor([-1], dtype={d})",
        f"T.tensor([1.5, 2.9], dtype={d})",
        f"T.full((2,), {top}, dtype={d})", f"T.full((2,), 7, dtype={d})",
        f"T.zeros(2, 3, dtype={d})", f"T.ones_like(T.zeros(2, dtype={d}))",
        f"T.empty(0, dtype={d})",
        f"T.zeros(3, dtype={d}).fill_(-1)", f"T.zeros(3, dtype={d}).fill_(5)",
        f"T.tensor([{top}, 3], dtype={d}).tolist()", f"T.tensor([{top}], dtype={d})[0].item()",
        f"int(T.tensor({top}, dtype={d}))", f"float(T.tensor({top}, dtype={d}))",
        f"T.tensor([{top}, 3], dtype={d}).to(T.float64)",
        f"T.tensor([{top}, 3], dtype={d}).to(T.int64)",
        f"T.tensor([{top}, 3], dtype={d}).to(T.int8)",
        f"T.tensor([-1, 300], dtype=T.int64).to({d})",
        f"T.tensor([-1.0, 2.5], dtype=T.float32).abs().to({d})",
        f"T.tensor([True, False]).to({d})",
        f"T.tensor([0, {top}], dtype={d}).to(T.bool)",
        f"T.tensor([1, 2, {top}], dtype={d}).sum()", f"T.tensor([[1, 2], [3, 4]], dtype={d}).sum(0)",
        f"T.tensor([3, {top}, 0, 2], dtype={d}).sort()",
        f"T.tensor([3, {top}, 0, 2], dtype={d}).sort(descending=True)",
        f"T.tensor([3, {top}, 0, 2], dtype={d}).argsort()",
        f"T.tensor([3, 0, {top}], dtype={d}) == T.tensor([3, 1, {top}], dtype={d})",
        f"T.tensor([3, 0], dtype={d}) * T.tensor([2, 5], dtype={d})",
        f"T.tensor([6, 5], dtype={d}) & T.tensor([3, 4], dtype={d})",
        f"T.tensor([6, {top}], dtype={d}).clamp(1, 7)",
        f"T.tensor([0, 1, {top}], dtype={d}).float()",
        f"T.tensor([1, 2], dtype={d}).sqrt()",
        f"T.tensor([1, 2], dtype={d}) / 2",
        f"T.tensor([1, 2], dtype={d}) + 0.5",
        f"T.tensor([1, 2, 3], dtype={d})[T.tensor([2, 0])]",
        f"T.tensor([1, 2, 3], dtype={d}).flip(0)",
        f"T.cat([T.tensor([1], dtype={d}), T.tensor([2], dtype={d})])",
        f"T.tensor([1, 2], dtype={d}).view(-1, 1).expand(2, 2).contiguous()",
        f"T.tensor([[1, 2], [3, 4]], dtype={d}).t().contiguous()",
        f"T.tensor([0, 2], dtype={d}).any()", f"T.tensor([0, 2], dtype={d}).isnan()",
        f"T.tensor([1, 2], dtype={d}).type()",
        f"T.tensor([1, 2]).type('torch.{d.replace('u', 'UInt')}Tensor')",
        f"{d}.is_signed", f"{d}.itemsize", f"{d}.is_floating_point", f"str({d})",
        f"T.iinfo({d}).max", f"T.iinfo({d}).min", f"T.iinfo({d}).bits",
        f"T.promote_types({d}, T.float32)", f"T.promote_types({d}, T.float16)",
        f"T.promote_types({d}, T.bool)", f"T.promote_types({d}, {d})",
        f"T.tensor([1], dtype={d}).element_size()",
        f"T.tensor([1, 2], dtype={d}).mean()",
    ]


def describe(r):
    """A result as plain JSON: tensors by dtype, shape and values."""
    if hasattr(r, "dtype") and hasattr(r, "tolist") and hasattr(r, "shape"):
        return ["tensor", str(r.dtype).split(".")[-1], list(r.shape), r.tolist()]
    if isinstance(r, tuple):
        return [type(r).__name__, [describe(x) for x in r]]
    if type(r).__name__ == "dtype":
        return ["dtype", str(r).split(".")[-1]]
    if isinstance(r, str):
        return ["str", r.replace("torchlike.", "torch.")]
    return [type(r).__name__, r]


def main():
    record(CALLS, inputs, describe, "unsigned", messages=True)


if __name__ == "__main__":
    main()
