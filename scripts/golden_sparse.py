"""Record PyTorch's answers for sparse tensors into tests/golden/sparse.json:
for each expression (over the inputs of env()), the layout, size, index and
value tensors, coalesced flag and repr of a sparse result, the values of a
dense one, or the exception type and first line.  tests/test_sparse_golden.py
evaluates the same expressions with torchlike.

    python scripts/golden_sparse.py   (an interpreter with PyTorch 2.x)"""
import json
import os
import warnings

CALLS = [
    "s", "c", "h", "s.coalesce()", "h.coalesce()", "s.is_coalesced()", "c.is_coalesced()",
    "e", "z", "s.double()", "cplx", "ints", "sg",
    "s.t()", "c.t()", "c.t().is_coalesced()", "c.transpose(0, 1)", "h.permute(0, 1)",
    "T.sparse.sum(c, 0)", "T.sparse.sum(c)", "c.sum(1)", "T.sparse.sum(h, 1)",
    "T.sparse.sum(h, 0)", "s + s2", "c + c", "(c + c).is_coalesced()", "(s + s2).is_coalesced()",
    "c * 2", "c * c", "s * d", "d * s", "d + s", "s - s2", "s.neg()", "T.sqrt(s)",
    "s.pow(2)", "s / 2", "c.sin()", "c.abs()", "c.tanh()",
    "T.mm(c, d.t())", "T.mm(c, c.t())", "T.mm(d.t(), c)", "T.sparse.mm(c, d.t())",
    "T.sparse.addmm(T.ones(2, 2), c, d.t())", "c.matmul(T.ones(3))", "c @ d.t()",
    "c.to_sparse_csr()", "s.to_sparse_csr()", "c.to_sparse_csc()", "c.to_sparse_csr().t()",
    "d.to_sparse_bsr((1, 3))", "d.to_sparse_bsc((2, 1))", "c.to_sparse_csr().to_sparse()",
    "d.to_sparse()", "d.to_sparse(1)", "d.to_sparse(1).to_dense()", "T.tensor(3.).to_sparse()",
    "c.to_sparse_csr() * 2", "c.to_sparse_csr() + c.to_sparse_csr()",
    "T.mm(c.to_sparse_csr(), c.to_sparse_csr().t())", "T.mm(c.to_sparse_csr(), d.t())",
    "c.to_sparse_csr().to_dense()", "c.to_sparse_csr().sum()",
    "T.sparse.sampled_addmm(c.to_sparse_csr(), d[:, :2], d)",
    "T.zeros_like(c)", "c.narrow_copy(1, 1, 2)", "c.index_select(1, T.tensor([2, 2, 0]))",
    "T.sparse.softmax(c, 1)", "T.sparse.softmax(big, 1)", "T.sparse.log_softmax(big, 0)",
    "d.sparse_mask(c)", "c.to(T.float64)", "c.indices()", "c.values()", "s.indices()",
    "s.values()", "s._indices()", "s._values()", "c.dense_dim(), c.sparse_dim(), c._nnz()",
    "h.dense_dim(), h.sparse_dim(), h._nnz()", "c.is_sparse, c.is_sparse_csr",
    "c.to_sparse_csr().is_sparse_csr, c.to_sparse_csr().is_sparse", "c.layout", "c.shape",
    "c.to_sparse_csr().crow_indices()", "c.to_sparse_csr().col_indices()",
    "c.to_sparse_csc().ccol_indices()", "c.to_sparse_csc().row_indices()",
    "T.linalg.vector_norm(c)", "d.add_(s)",
    "T.sparse.spdiags(T.arange(1., 7).view(2, 3), T.tensor([0, -1]), (3, 3))",
    # bad input
    "T.sparse_coo_tensor(T.tensor([[0, 5]]), T.ones(2), (3,), check_invariants=True)",
    "T.sparse_coo_tensor(T.tensor([[0, 1]]), T.ones(3), (3,))",
    "T.sparse_coo_tensor(T.tensor([[0, -1]]), T.ones(2), (3,), check_invariants=True)",
    "T.sparse_coo_tensor(T.tensor([[0, 1]]), T.ones(2), (3, 2))",
    "T.sparse_coo_tensor(T.tensor([0, 1]), T.ones(2), (3,))",
    "T.sparse_coo_tensor(T.tensor([[0, 1]]), T.ones(2, 2), (3, 3))",
    "T.sparse_csr_tensor(T.tensor([0, 1, 3]), T.tensor([0, 1, 2]), T.ones(3), (2, 3))",
    "T.sparse_csr_tensor(T.tensor([0, 1, 3]), T.tensor([0, 1, 2]), T.ones(3))",
    "T.sparse_csr_tensor(T.tensor([0, 1, 3]), T.tensor([0, 1, 5]), T.ones(3), (2, 3), "
    "check_invariants=True)",
    "T.sparse_csr_tensor(T.tensor([0, 2, 1]), T.tensor([0, 1, 2]), T.ones(3), (2, 3), "
    "check_invariants=True)",
    "c + T.sparse_coo_tensor(i, v, (3, 3))", "T.mm(c, T.ones(4, 2))",
    "T.mm(c, T.ones(3, 2, dtype=T.float64))", "s + d", "c + 1", "c.div(T.ones(2, 3))",
    "c.cumsum(0)", "T.exp(c)", "c.view(6)", "d.crow_indices()", "c.crow_indices()",
    "d.values()", "d.indices()", "c.to_sparse_csr().row_indices()", "c.to_sparse_csr().indices()",
    "d.coalesce()", "d._nnz()", "bool(c)", "c ** 0", "c.item()", "c.to_sparse_csc().col_indices()",
    "c.tolist()", "c.numpy()", "c.storage()", "s1[0]", "s1[2]", "c[1]", "c.select(1, 2)",
    "h[2]", "h.select(1, 1)", "T.cat([c, c], 1)", "T.cat([h, h], 1)", "T.cat([s, c])",
    "T.stack([c, c], 2)", "T.stack([h, h])", "c.unsqueeze(2)", "h.unsqueeze(2)",
    "h.unsqueeze(0)", "c[5]", "c[-1]", "T.cat([c, h])",
]


def env(T):
    i = T.tensor([[1, 0, 1], [2, 0, 2]])
    v = T.tensor([3., 4., 5.])
    s = T.sparse_coo_tensor(i, v, (2, 3))
    bi = T.tensor([[0, 1, 1, 3, 3, 3], [2, 0, 4, 1, 2, 4]])
    return {
        "T": T, "i": i, "v": v, "s": s, "c": s.coalesce(),
        "s2": T.sparse_coo_tensor(T.tensor([[0, 1], [1, 2]]), T.tensor([1., -2.]), (2, 3)),
        "s1": T.sparse_coo_tensor(T.tensor([[0, 1, 0]]), T.tensor([1., 2., 3.]), (3,)),
        "h": T.sparse_coo_tensor(T.tensor([[2, 0, 2]]), T.tensor([[1., 2.], [3., 4.], [5., 6.]]),
                                 (4, 2)),
        "e": T.sparse_coo_tensor(T.zeros((2, 0), dtype=T.int64), T.zeros(0), (2, 3)),
        "z": T.sparse_coo_tensor(T.zeros((2, 0), dtype=T.int64), T.zeros(0), (0, 3)),
        "cplx": T.sparse_coo_tensor(T.tensor([[0, 1]]), T.tensor([1 + 2j, 3j]), (3,)),
        "ints": T.sparse_coo_tensor(T.tensor([[0, 1]]), T.tensor([1, 3]), (3,)),
        "sg": T.sparse_coo_tensor(i, v.double(), (2, 3), requires_grad=True),
        "d": T.sin(T.arange(6.) * 0.7 + 0.1).reshape(2, 3),
        "big": T.sparse_coo_tensor(bi, T.arange(6.) * 0.5 - 1, (4, 5)).coalesce(),
    }


def describe(T, r):
    if isinstance(r, tuple):
        return ["tuple", [describe(T, x) for x in r]]
    if isinstance(r, T.Tensor):
        if r.layout == T.sparse_coo:
            return {"layout": "sparse_coo", "size": list(r.shape), "dtype": str(r.dtype),
                    "indices": r._indices().tolist(), "values": _vals(r._values()),
                    "coalesced": r.is_coalesced(), "repr": repr(r)}
        if r.layout != T.strided:
            names = ("crow_indices", "col_indices") if r.layout in (T.sparse_csr,
                                                                    T.sparse_bsr) else \
                ("ccol_indices", "row_indices")
            return {"layout": str(r.layout).split(".")[-1], "size": list(r.shape),
                    "dtype": str(r.dtype), "compressed": getattr(r, names[0])().tolist(),
                    "plain": getattr(r, names[1])().tolist(), "values": _vals(r.values()),
                    "repr": repr(r)}
        return {"dense": _vals(r), "dtype": str(r.dtype), "size": list(r.shape)}
    return repr(r)


def _vals(t):
    t = t.detach()
    if t.is_complex():
        return [t.real.tolist(), t.imag.tolist()]
    return t.tolist()


GRAD_CASES = {
    "mm": lambda T, s: T.sparse.mm(s, T.arange(6., dtype=T.float64).reshape(3, 2)).sum(),
    "to_dense": lambda T, s: (s.to_dense() * T.arange(6., dtype=T.float64).reshape(2, 3)).sum(),
    "mul_scalar": lambda T, s: (s * 2).to_dense().sum(),
    "sparse_sum": lambda T, s: T.sparse.sum(s),
    "neg": lambda T, s: (-s).to_dense().sum(),
    "mul_dense": lambda T, s: (s * T.arange(6., dtype=T.float64).reshape(2, 3)).to_dense().sum(),
    "addmm": lambda T, s: T.sparse.addmm(T.ones(2, 2, dtype=T.float64), s,
                                         T.ones(3, 2, dtype=T.float64)).sum(),
}


def leaf_grads(T):
    """.grad of an uncoalesced (duplicate, unsorted) and a coalesced sparse leaf."""
    out = {}
    for name, f in GRAD_CASES.items():
        for kind, idx in (("uncoalesced", [[1, 0, 1], [2, 0, 2]]),
                          ("coalesced", [[0, 1], [0, 2]])):
            n = len(idx[0])
            s = T.sparse_coo_tensor(T.tensor(idx), T.arange(1., n + 1, dtype=T.float64), (2, 3),
                                    requires_grad=True)
            if kind == "coalesced":
                s = s.detach().coalesce().requires_grad_()
            f(T, s).backward()
            g = s.grad
            out[f"{name}_{kind}"] = {"indices": g._indices().tolist(),
                                     "values": g._values().tolist(),
                                     "coalesced": g.is_coalesced()}
    return out


def main():
    import torch
    out = []
    for call in CALLS:
        try:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                out.append([call, describe(torch, eval(call, env(torch)))])
        except Exception as e:  # noqa: BLE001 - the exception is the answer
            # the dispatcher's message up to its first sentences (the rest lists backends)
            first = str(e).splitlines()[0].split(" If you are a Facebook")[0]
            out.append([call, ["raises", type(e).__name__, first]])
    path = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "tests",
                        "golden", "sparse.json")
    with open(path, "w") as f:
        json.dump({"torch": torch.__version__, "calls": out}, f, indent=0)
        f.write("\n")
    print(f"wrote {len(out)} calls to {path}")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        grads = leaf_grads(torch)
    with open(os.path.join(os.path.dirname(path), "sparse_grads.json"), "w") as f:
        json.dump(grads, f, indent=0)
        f.write("\n")


if __name__ == "__main__":
    main()
