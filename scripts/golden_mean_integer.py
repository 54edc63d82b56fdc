"""Record PyTorch's answers to the mean of integer and bool tensors, for
tests/test_mean_integer.py: torch.mean, torch.nanmean and the method with
PyTorch's keywords refuse an integer dtype (NotImplementedError, its words
naming the ScalarType), and a floating dtype= computes.  (The method
without PyTorch's keywords, x.mean(), takes NumPy's meaning in torchlike:
docs/numpy.md; the test holds that to NumPy.)

Run with an interpreter that has PyTorch:
    python scripts/golden_mean_integer.py
writes tests/golden/mean_integer.json: [call, outcome] pairs over T and the
inputs inputs() makes."""
from golden_calls import record

CALLS = [f"T.mean({x})" for x in ("I", "J", "U", "B", "I0")] + [
    "T.mean(I, 0)", "T.mean(I, dim=1, keepdim=True)", "T.mean(I, dtype=T.float64)",
    "T.mean(F, dtype=T.int64)", "T.mean(I, dtype=T.int32)", "T.nanmean(I)", "T.nanmean(B)",
    "T.nanmean(I, dtype=T.float32)", "I.mean(dim=0)", "I.mean(dim=(0, 1), keepdim=True)",
    "B.mean(dim=0)", "I.mean(dtype=T.float64)", "T.mean(I[:0])",
]


def inputs(T):
    i = T.tensor([[1, 2, 4], [7, 0, 3]])
    return {"T": T, "I": i, "J": i.int(), "U": i.byte(), "B": i > 1, "I0": T.tensor(5),
            "F": i.float()}


def describe(r):
    return ["tensor", str(r.dtype).split(".")[-1], list(r.shape), r.reshape(-1).tolist()]


def main():
    record(CALLS, inputs, describe, "mean_integer", messages=True)


if __name__ == "__main__":
    main()
