"""Record PyTorch's answers for torch.histogram and torch.histogramdd
(torchlike/_histogram.py), for tests/test_histogram.py: counts, edges,
densities, weights, 0-d and empty inputs, and the messages of bad calls.

Run with an interpreter that has PyTorch:
    python scripts/golden_histogram.py
writes tests/golden/histogram.json ([call, outcome] pairs over T, the library)."""
from golden_calls import record
from golden_composites import describe  # noqa: F401  (tests/test_histogram.py reads it here)


def inputs(T):
    return {
        "T": T,
        "x": T.tensor([1.0, 2, 1, 2.5, 4, -1, 0.5]),
        "w": T.tensor([1.0, 2, 3, 4, 5, 6, 7]),
        "xd": T.tensor([0.1, 0.7, 0.35, 0.35, 0.9, 0.0, 1.0, 0.55], dtype=T.float64),
        "p": T.tensor([[0.0, 1.0], [1.0, 0.0], [2.0, 0.0], [2.0, 2.0], [0.5, 1.5]]),
        "pw": T.tensor([1.0, 2, 3, 4, 5]),
        "nan": float("nan"),
        "inf": float("inf"),
    }


CALLS = [
    "T.histogram(x)", "T.histogram(x, 4)", "T.histogram(x, bins=3, range=(0.0, 3.0))",
    "T.histogram(x, 3, weight=w)", "T.histogram(x, 3, density=True)",
    "T.histogram(x, 3, weight=w, density=True)", "T.histogram(x, T.tensor([0.0, 1, 2, 5]))",
    "T.histogram(x, T.tensor([0.0, 1, 2, 5]), density=True)",
    "T.histogram(x, T.tensor([0.0, 1, 2, 5]), weight=w)",
    "T.histogram(x, 3, range=(1.0, 1.0))", "T.histogram(T.zeros(0), 3)",
    "T.histogram(T.tensor(2.0), 3)", "T.histogram(x.reshape(7, 1), 2)", "x.histogram(2)",
    "T.histogram(x, bins=3).hist", "T.histogram(x, bins=3).bin_edges",
    "T.histogram(x, 3, range=(0, 3))", "T.histogram(T.tensor([1.0, 1, 1]), 2)",
    "T.histogram(T.zeros(0), 3, range=(0.0, 1.0))", "T.histogram(x, 2, range=[0.0, 1.0])",
    "T.histogram(x, T.tensor([0.0, 0, 1]))", "T.histogram(xd, 5)", "T.histogram(xd, 4, density=True)",
    "T.histogram(xd, 7, range=(0.05, 0.95))", "T.histogram(x[::2], 3)",
    "T.histogram(T.tensor([1.0, nan, 3.0]), 2, range=(0.0, 4.0))",
    "T.histogram(x, 3, weight=T.tensor([1.0, nan, 0, 0, 0, 0, 0]), range=(-5.0, -4.0))",
    "T.histogram(x, 2, range=(-1.0, 4.0), weight=w.reshape(7, 1))",
    # PyTorch's linspace (two fmas, one from each end) to the last bit
    "(T.histogram(T.tensor([-1.0, 4.0]), 100).bin_edges[20] * 1e8).item()",
    "((T.histogram(xd * 6 - 1.3, 10).bin_edges - 0.5) * 1e16).tolist()",
    "((T.histogram(x.double() * 1.1, 9).bin_edges - T.tensor([-1.1])) * 1e14).tolist()",
    # samples on every edge and one float either side: the bins PyTorch's
    # estimate-and-correct gives them
    "(lambda e: T.histogram(T.cat([e, e.nextafter(e + 1), e.nextafter(e - 1)]), 37, "
    "range=(-3.7, 5.1)))(T.histogram(T.zeros(1), 37, range=(-3.7, 5.1)).bin_edges)",
    "(lambda e: T.histogram(T.cat([e, e.nextafter(e + 1), e.nextafter(e - 1)]), 23))"
    "(T.histogram(xd * 7.3 - 2.9, 23).bin_edges)",
    # bad calls
    "T.histogram(x, T.tensor([0.0, 1, 2, 5]), range=(0.0, 1.0))", "T.histogram(x.int(), 3)",
    "T.histogram(x, 0)", "T.histogram(x, -1)", "T.histogram(x, 3, range=(3.0, 1.0))",
    "T.histogram(x.double(), 3, weight=w)", "T.histogram(x, 3, weight=w[:3])",
    "T.histogram(x, T.tensor([[0.0, 1]]))", "T.histogram(x, T.tensor([1.0]))",
    "T.histogram(T.tensor([1.0, nan]), 3)", "T.histogram(T.tensor([1.0, inf]), 3)",
    "T.histogram(x, 3, range=(0.0, inf))", "T.histogram(x, 3, range=(nan, 1.0))",
    "T.histogram(x.half(), 3)", "T.histogram(x, T.tensor([0, 1, 2]))",
    "T.histogram(x, T.tensor([0.0, 1, 2, 5]).double())", "T.histogram(x, 3, weight=w.int())",
    # histogramdd
    "T.histogramdd(p, bins=[3, 3])", "T.histogramdd(p, 2)", "T.histogramdd(p, [2, 3], weight=pw)",
    "T.histogramdd(p, [2, 3], range=[0.0, 1.0, 0.0, 2.0])", "T.histogramdd(p, [2, 3], density=True)",
    "T.histogramdd(p, [T.tensor([0.0, 1, 2]), T.tensor([0.0, 2])])", "T.histogramdd(p, (2, 2))",
    "T.histogramdd(p.reshape(5, 1, 2), 2)", "T.histogramdd(T.zeros(0, 2), 2)",
    "T.histogramdd(p, 2).bin_edges", "T.histogramdd(T.zeros(3, 0), 2)",
    "T.histogramdd(p[:, :1], 4, density=True)",
    "T.histogramdd(T.cat([p, p.flip(1)], 1), [2, 2, 1, 3], weight=pw, density=True)",
    "T.histogramdd(p, [2]), None", "T.histogramdd(p, [2, 2], range=[0.0, 1.0])",
    "T.histogramdd(p[:, 0], 2)", "T.histogramdd(p, [2, 3], weight=pw[:2])",
    "T.histogramdd(p, [T.tensor([0.0, 1, 2])])", "T.histogramdd(p, [0, 2])",
    "T.histogramdd(p, [T.tensor([0.0, 1, 2]), 3])", "T.histogramdd(p.double(), [2, 2], weight=pw)",
]


def main():
    record(CALLS, inputs, describe, "histogram", messages=True)


if __name__ == "__main__":
    main()
