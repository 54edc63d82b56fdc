"""Record PyTorch's answers to isclose, allclose, equal (functions and
methods), clamp_min/clamp_max (values, dtypes, out=, in-place, gradients at
ties) and slices of a Size, for tests/test_torch_api_compare.py.

Run with an interpreter that has PyTorch:
    python scripts/golden_torch_api_compare.py
writes tests/golden/torch_api_compare.json: [call, outcome] pairs, the call a
Python expression over T (the library), the tensors inputs() makes and
grads(f, *args), which returns f(*args)'s gradients after .sum().backward()."""
from golden_calls import record

CLOSE = [
    # floats: nan, inf, tolerances, equal_nan
    "T.isclose(F, G)", "T.isclose(F, G, equal_nan=True)", "T.isclose(F, G, 0.0, 0.0)",
    "T.isclose(F, G, rtol=0.0)", "T.isclose(F, G, atol=0.0)", "T.isclose(F, G, 1e-3, 1e-3, True)",
    "T.isclose(F, G, rtol=1e30)", "T.isclose(F, F)", "T.isclose(D, D * (1 + 1e-6))",
    "T.isclose(D, D * (1 + 1e-4))", "T.isclose(W, W * 1.0001)", "T.isclose(W, W * 1.01)",
    "F.isclose(G)", "F.isclose(G, equal_nan=True)", "T.isclose(F, G, rtol=1, atol=True)",
    "T.isclose(F, G, rtol=T.tensor(1.0))", "T.isclose(input=F, other=G)",
    # integers and bools: compared in the default float dtype
    "T.isclose(I, J)", "T.isclose(I, J, atol=1.0)", "T.isclose(I, J, rtol=0.0, atol=0.999)",
    "T.isclose(I, J, equal_nan=True)", "T.isclose(L1, L2, rtol=0.0, atol=0.5)",
    "T.isclose(L1, L2)", "T.isclose(B1, B2, rtol=0.0, atol=300.0)",
    "T.isclose(U1, U2, rtol=0.0, atol=2.0)", "T.isclose(U1, U2, rtol=0.0, atol=1.9)",
    "T.isclose(Q, R)", "T.isclose(Q, R, atol=1.0)",
    # complex
    "T.isclose(C1, C2)", "T.isclose(C1, C2, equal_nan=True)", "T.isclose(C1, C1)",
    "T.isclose(C1, C1, equal_nan=True)",
    # broadcasting, 0-d, empty
    "T.isclose(F2, F3)", "T.isclose(S, F)", "T.isclose(S, S)", "T.isclose(E, E)",
    "T.isclose(E, E2)", "T.isclose(F, C3)",
    # errors
    "T.isclose(F, D)", "T.isclose(I, F)", "T.isclose(I, I32)", "T.isclose(F, G, rtol=-1)",
    "T.isclose(F, G, atol=-1.0)", "T.isclose(F, G, rtol=-1, atol=-1)", "T.isclose(F, 1.0)",
    "T.isclose([1.0], F)", "T.isclose(F)", "T.isclose(F, G, rtol=1j)", "T.isclose(F, G, rtol=None)",
    "T.isclose(F, G, rtol='a')", "T.isclose(F, G, equal_nan=1)", "T.isclose(F, G, foo=1)",
    "T.isclose(F, G, 1e-5, 1e-8, True, 1)", "T.isclose(F, C3.t())",
    # allclose
    "T.allclose(F, G)", "T.allclose(F, G, equal_nan=True)", "T.allclose(F[:2], G[:2])",
    "T.allclose(F[:2], G[:2], rtol=0.0, atol=0.0)", "T.allclose(I, J)", "T.allclose(I, I)",
    "T.allclose(F2, F3)", "T.allclose(E, E)", "T.allclose(S, S)", "T.allclose(C1, C1)",
    "T.allclose(C1, C1, equal_nan=True)", "F.allclose(G, equal_nan=True)",
    "T.allclose(F, D)", "T.allclose(F, G, rtol=-1)", "T.allclose(F, C3)", "T.allclose(F, 1.0)",
    # equal
    "T.equal(F, F)", "T.equal(F[:2], G[:2])", "T.equal(F[:2], F[:2].clone())",
    "T.equal(I, I.double())", "T.equal(I, J)", "T.equal(P, P.double())", "T.equal(Z, Z.neg())",
    "T.equal(Bo, Bo.long())", "T.equal(F2, F2.t())", "T.equal(F2, F2.clone())",
    "T.equal(F2.t(), F2.t().contiguous())", "T.equal(S, S.reshape(1))", "T.equal(S, S.clone())",
    "T.equal(E, E)", "T.equal(E, E2)", "T.equal(F, F[:2])", "T.equal(F3, F2)",
    "T.equal(C1[:1], C1[:1].clone())", "T.equal(N, N)", "F.equal(F)", "F.equal(G)",
    "T.equal(F, 1.0)", "T.equal([1.0], F)", "T.equal(F)",
]
CLAMP = [
    "T.clamp_min(X, 1)", "T.clamp_max(X, 1)", "T.clamp_min(X, 0.5)", "T.clamp_max(X, -0.5)",
    "T.clamp_min(X, XM)", "T.clamp_max(X, XM)", "T.clamp_min(X, S)", "T.clamp_max(I, S)",
    "T.clamp_min(I, 1.5)", "T.clamp_max(I, 1.5)", "T.clamp_min(I, 2)",
    "T.clamp_min(I, T.tensor(1.5))",
    "T.clamp_min(I, T.tensor([2]))", "T.clamp_min(X, T.tensor(1.0, dtype=T.float64))",
    "T.clamp_min(X, float('nan'))", "T.clamp_max(N, 0.5)", "T.clamp_min(F2, F3)",
    "T.clamp_min(E, 0.0)", "T.clamp_max(S, 0.0)", "T.clamp_min(X, min=1)", "T.clamp_max(X, max=1)",
    "X.clamp_min(1)", "X.clamp_max(max=1)", "X.clamp_min(XM)", "I.clamp_min(1.5)",
    "T.clamp_min(X, None)", "T.clamp_min(X)", "T.clamp_max(X, 'a')", "T.clamp_min(C1, 0)",
    "X.clone().clamp_min_(1)", "X.clone().clamp_max_(0.5)", "X.clone().clamp_min_(XM)",
    "I.clone().clamp_min_(2)", "T.clamp_min(X, 1, out=T.empty(5))",
    # gradients, at ties and away from them
    "grads(T.clamp_min, X, 1.0)", "grads(T.clamp_max, X, 1.0)", "grads(T.clamp_min, X, XM)",
    "grads(T.clamp_max, X, XM)", "grads(lambda x: x.clamp_min(0.5), X)",
    "grads(T.clamp, X, 1.0, 3.0)", "grads(T.clamp, X, 3.0, 1.0)", "grads(T.clamp, X, 2.0, 2.0)",
    "grads(T.clamp, X, XM, XM + 2)", "grads(T.clamp, X, XM + 2, XM)", "grads(T.clamp, X, XM, XM)",
    "grads(T.clamp, X, None, XM)", "grads(T.clamp, X, XM, None)", "grads(T.clamp, X, None, 2.0)",
]
SIZE = [
    "T.Size([2, 3, 4])[1:]", "T.Size([2, 3, 4])[::-1]", "T.Size([2, 3, 4])[0:0]",
    "T.Size([2, 3, 4])[-2:]", "T.Size([2, 3, 4])[1]", "T.Size([2, 3, 4])[-1]",
    "T.Size([2, 3, 4])[5]", "T.Size([2, 3, 4])['a']", "X.shape[:1]", "F2.shape[1:]",
    "T.Size([2, 3]) + (4,)", "(1,) + T.Size([2, 3])", "T.Size([2, 3]) * 2", "2 * T.Size([2])",
    "T.Size([2, 3]) + [4]",
]
CALLS = CLOSE + CLAMP + SIZE


def inputs(T):
    nan, inf = float("nan"), float("inf")

    def grads(f, *args):
        leaves = [a.detach().requires_grad_() if isinstance(a, T.Tensor) else a for a in args]
        f(*leaves).sum().backward()
        return tuple(a.grad for a in leaves if isinstance(a, T.Tensor))

    return {
        "grads": grads,
        "F": T.tensor([1.0, 2.0, nan, inf, -inf, 0.0]),
        "G": T.tensor([1.0, 2.00001, nan, inf, inf, 1e-9]),
        "D": T.tensor([1.0, 2.0, 3.0], dtype=T.float64),
        "W": T.tensor([1.0, 1000.0, -3.0], dtype=T.float16),
        "I": T.tensor([1, 2, 3]), "J": T.tensor([1, 3, 3]),
        "I32": T.tensor([1, 2, 3], dtype=T.int32),
        "L1": T.tensor([2**62 + 1]), "L2": T.tensor([2**62]),
        "B1": T.tensor([-128], dtype=T.int8), "B2": T.tensor([127], dtype=T.int8),
        "U1": T.tensor([3], dtype=T.uint8), "U2": T.tensor([5], dtype=T.uint8),
        "Q": T.tensor([True, False, True]), "R": T.tensor([True, True, False]),
        "Bo": T.tensor([True, False]),
        "C1": T.tensor([1 + 1j, complex(nan, 0), complex(1, nan), complex(inf, 0), 2j]),
        "C2": T.tensor([1 + 1.000001j, complex(nan, 0), complex(1, nan), complex(inf, 0), 2.1j]),
        "C3": T.tensor([[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]]),
        "F2": T.tensor([[1.0], [2.0]]), "F3": T.tensor([1.0, 2.0, 3.0]),
        "S": T.tensor(1.0), "E": T.ones(0), "E2": T.ones(0, 2),
        "P": T.tensor([0.1, 0.2]), "Z": T.tensor([0.0, 1.0]), "N": T.tensor([nan, 1.0]),
        "X": T.tensor([-1.0, 0.0, 1.0, 2.0, 3.0]), "XM": T.tensor([1.0, 1.0, 1.0, 1.0, 1.0]),
    }


def describe(r):
    """A JSON form of a call's result, for PyTorch's and torchlike's alike."""
    if type(r).__name__ == "Size":
        return ["size", [int(x) for x in r]]
    if isinstance(r, (tuple, list)):
        return ["tuple", [describe(x) for x in r]]
    if isinstance(r, (bool, int, float)):
        return [type(r).__name__, r]
    a = r.detach()
    return ["tensor", str(a.dtype).split(".")[-1], list(a.shape), a.tolist()]


def main():
    record(CALLS, inputs_env, describe, "torch_api_compare", messages=True)


def inputs_env(T):
    return {"T": T, **inputs(T)}


if __name__ == "__main__":
    main()
