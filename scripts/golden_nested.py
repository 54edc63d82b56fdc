"""Record PyTorch's answers for torch.nested (torchlike/nested/), for
tests/test_nested.py: construction in the strided and jagged layouts,
reprs, size(i) with irregular dims, unbind and indexing, to_padded_tensor,
narrow, nested_tensor_from_jagged, the elementwise ops each layout has,
softmax, bmm/matmul, linear, transpose, and the messages of what is refused.

Run with an interpreter that has PyTorch:
    python scripts/golden_nested.py
writes tests/golden/nested.json ([call, outcome] pairs over T, the library)."""
import math
import re

from golden_calls import det, record


def inputs(T):
    a = T.arange(6.0).reshape(2, 3)
    b = T.arange(12.0).reshape(4, 3) * 0.5
    N = T.nested
    return {
        "T": T, "N": N, "F": T.nn.functional, "a": a, "b": b,
        "nt": N.nested_tensor([a, b]), "nj": N.nested_tensor([a, b], layout=T.jagged),
        "nr": N.nested_tensor([a, b[:, :2]]),
        "w": T.tensor([[1.0, -1.0, 0.5], [0.25, 2.0, -0.5], [1.5, 0.0, 1.0], [-1.0, 1.0, 1.0]]),
        "bias": T.tensor([0.5, -0.5, 1.0, 2.0]),
        "m2": N.nested_tensor([T.ones(3, 2), T.ones(3, 4) * 2]),
        "base": T.arange(12.0).reshape(3, 4),
        # attention inputs: (B, j, H, D) made (B, H, j, D)
        "qj": N.nested_tensor([det(T, 3, 2, 4), det(T, 5, 2, 4, s=0.7)],
                              layout=T.jagged).transpose(1, 2),
        "qs": N.nested_tensor([det(T, 2, 3, 4, s=0.2), det(T, 2, 5, 4, s=0.9)]),
    }


def _round(v):
    if isinstance(v, float):
        return "nan" if math.isnan(v) else round(v, 4)
    return v


def _text(s):
    s = s.replace("torchlike.", "T.").replace("torch.", "T.")
    s = re.sub(r"\bj\d+\b", "j?", s)
    s = re.sub(r" object at 0x[0-9a-f]+", "", s)
    return re.sub(r"grad_fn=<\w+>", "grad_fn=<>", s)


def describe(r):
    """A result as JSON: a nested tensor's layout, dtype, dim, grad flag,
    components and repr; a tensor's dtype, shape and values."""
    if getattr(r, "is_nested", False):
        comps = [describe(c) for c in r.unbind()]
        return ["nested", str(r.layout).split(".")[-1], str(r.dtype).split(".")[-1], r.dim(),
                r.requires_grad, comps, _text(repr(r))]
    if hasattr(r, "detach") and hasattr(r, "shape"):
        t = r.detach()
        return ["tensor", str(t.dtype).split(".")[-1], list(t.shape),
                [_round(v) for v in t.reshape(-1).tolist()]]
    if isinstance(r, tuple) and not type(r).__name__.endswith("Size"):
        return ["tuple", [describe(v) for v in r]]
    if type(r).__name__ in ("SymInt", "NestedInt"):
        return ["nested int"]
    if isinstance(r, (bool, int, float)) or r is None:
        return [type(r).__name__, _round(r)]
    return [type(r).__name__.replace("Size", "Size"), _text(str(r))]


CALLS = [
    # construction and repr
    "nt", "nr", "nj", "N.nested_tensor([a, b], dtype=T.float64)", "N.nested_tensor([[1, 2], [3]])",
    "N.nested_tensor([[1.0, 2], [3]])", "N.nested_tensor([a.int(), b])",
    "N.nested_tensor([a, b], dtype=T.int64)", "N.nested_tensor([1, 2])", "N.nested_tensor([])",
    "N.nested_tensor([]).dim()", "N.nested_tensor([T.tensor(1.0), T.tensor(2.0)])",
    "N.nested_tensor([a, b], requires_grad=True)",
    "N.nested_tensor([a, b], requires_grad=True).is_leaf",
    "N.nested_tensor([a, b], requires_grad=True) * 2",
    "(N.nested_tensor([a, b], requires_grad=True) * 2).is_leaf",
    "N.nested_tensor([a, b], layout=T.jagged, requires_grad=True)",
    "N.as_nested_tensor([a, b])", "N.as_nested_tensor([a.int(), b])",
    "N.as_nested_tensor(T.ones(2, 3, 4)).size(1)",
    "N.as_nested_tensor([a.clone().requires_grad_(), b]) * 2",
    "N.nested_tensor(a)", "N.nested_tensor([a, T.ones(3)])",
    "N.nested_tensor([a, b], layout=T.sparse_coo)",
    "N.nested_tensor([a, b[:, :2]], layout=T.jagged)",
    "N.nested_tensor([a, T.ones(3)], layout=T.jagged)",
    # metadata
    "nt.is_nested", "nj.is_nested", "a.is_nested", "nt.dim()", "nt.size(0)", "nt.size(1)",
    "nt.size(2)", "nt.size(-1)", "nt.size(3)", "nr.size(2)", "nt.size()", "nt.shape",
    "nt.dtype", "nt.layout", "nt.device", "nt.requires_grad", "nt.numel()", "nt.is_contiguous()",
    "nt.stride()", "len(nt)", "nt.tolist()", "nt._nested_tensor_size()",
    "nj.dim()", "nj.layout", "nj.shape", "nj.size(1)", "nj.size(0)", "nj.shape[2]",
    "nj.numel()", "nj.offsets()", "nj.values()", "nj.lengths()",
    # unbind and indexing
    "nt.unbind()", "nt.unbind(0)", "nt.unbind(1)", "nt.unbind(-3)", "nt[0]", "nt[0, 1]",
    "nt[-1]", "nt[2]", "nt[0:1]", "nj.unbind()", "nj[0]",
    # padding
    "N.to_padded_tensor(nt, 0.0)", "nt.to_padded_tensor(-1)", "nt.to_padded_tensor(0, (2, 5, 4))",
    "nt.to_padded_tensor(0, (2, 3, 3))", "nt.to_padded_tensor(0, output_size=(2, 4))",
    "nr.to_padded_tensor(0)", "nj.to_padded_tensor(0.0)", "N.to_padded_tensor(nj, -1.0)",
    "nt.transpose(1, 2).to_padded_tensor(0)", "a.to_padded_tensor(0)",
    # narrow and nested_tensor_from_jagged
    "N.narrow(base, 1, T.tensor([0, 1, 2]), T.tensor([2, 3, 1]), layout=T.jagged)",
    "N.narrow(base, 1, T.tensor([0, 1, 2]), T.tensor([2, 3, 1]), layout=T.jagged).unbind()",
    "N.narrow(base, 1, T.tensor([0, 1, 2]), T.tensor([2, 3, 1]), layout=T.jagged).values()",
    "N.narrow(base, 1, T.tensor([0, 1, 2]), T.tensor([2, 3, 1]), layout=T.jagged).lengths()",
    "N.narrow(base, 1, T.tensor([0, 1, 2]), T.tensor([2, 3, 1]), layout=T.jagged)"
    ".to_padded_tensor(0)",
    "N.narrow(base, 1, 1, 2, layout=T.jagged).unbind()",
    "N.narrow(base, 0, 1, 2, layout=T.jagged)", "N.narrow(base, 1, 1, 2)",
    "N.narrow(base, 1, T.tensor([0, 1, 2]), T.tensor([2, 3, 1]))",
    "N.narrow(base, 0, 1, 2).unbind()", "N.narrow(nt, 0, 1, 1)", "N.narrow(nt, 1, 0, 2)",
    "N.nested_tensor_from_jagged(T.arange(12.0).reshape(6, 2), T.tensor([0, 2, 6]))",
    "N.nested_tensor_from_jagged(T.arange(12.0).reshape(6, 2), T.tensor([0, 2, 6])).unbind()",
    "N.nested_tensor_from_jagged(T.arange(12.0).reshape(6, 2), lengths=T.tensor([2, 3]), "
    "offsets=T.tensor([0, 2, 6])).unbind()",
    "N.nested_tensor_from_jagged(T.arange(12.0).reshape(6, 2), lengths=T.tensor([2, 4]))"
    ".unbind()",
    "N.nested_tensor_from_jagged(T.arange(12.0).reshape(6, 2))",
    # masked_select: one jagged row per last-dim row
    "N.masked_select(base, base % 3 == 0)", "N.masked_select(base, base % 3 == 0).unbind()",
    "N.masked_select(base, base % 3 == 0).values()", "N.masked_select(base, base[0] > 1)",
    "N.masked_select(base.reshape(3, 2, 2), base.reshape(3, 2, 2) > 4).unbind()",
    "N.masked_select(base[0], base[0] > 1)", "N.masked_select(base, (base > 2).int())",
    # elementwise, strided
    "nt + nt", "nt * 2", "2 * nt", "nt + 1", "nt - nt", "nt / 2", "nt * nt", "nt / (nt + 1)",
    "nt + T.tensor(2.0)", "nt.add(nt, alpha=2)", "-nt", "nt.neg()", "nt.abs()", "nt.sin()",
    "T.sin(nt)", "nt.cos()", "nt.sqrt()", "nt.tanh()", "nt.relu()", "F.relu(nt)",
    "F.gelu(nt - 0.25)", "F.silu(nt)", "F.dropout(nt, 0.0)", "nt > 2", "nt >= 2", "nt == 2", "T.isnan(nt)",
    "nt.exp()", "nt.sigmoid()", "nt.pow(2)", "nt ** 2", "nt.sum()", "nt.mean(-1)", "nt.max()",
    "nt == nt", "nt < 2", "nt + N.nested_tensor([a, a])", "nt + N.nested_tensor([a])",
    "nt + a", "nt + T.ones(1)", "nt * nt.to_padded_tensor(0)",
    "nt.masked_fill(nt > 2, 0)",
    # elementwise, jagged
    "nj + nj", "nj * 2", "nj.sin()", "nj.exp()", "nj.sigmoid()", "nj.pow(2)", "nj - 1",
    "nj + T.ones(3)", "nj * T.tensor([1.0, 2.0, 3.0])", "nj > 2", "nj < nj", "T.maximum(nj, nj)",
    "nj + N.nested_tensor([a, a], layout=T.jagged)", "nj + a",
    # reductions
    "nj.sum()", "nj.sum(-1)", "nj.sum(-1).unbind()", "nj.sum(1)", "nj.sum(1, keepdim=True)",
    "nj.sum(0)", "nj.sum((1, 2))", "nj.sum(-1, keepdim=True).unbind()", "nj.mean(1)",
    "nj.mean(-1).unbind()", "nj.amax(1)", "nj.amin(-1).unbind()", "nj.mean()", "nj.amax()",
    "nj.prod(-1).unbind()", "T.sum(nj, 1)", "nj.sum(dtype=T.float64)", "nj.var(1)",
    "nt.sum(-1, keepdim=True).unbind()", "nt.sum(1, keepdim=True).unbind()",
    "nj.argmax(-1).unbind()", "nj.argmax(1)", "nj.argmin(2, keepdim=True).unbind()",
    # layer_norm and where
    "F.layer_norm(nt, (3,), w[0], bias[:3]).unbind()", "F.layer_norm(nj, (3,)).unbind()",
    "F.layer_norm(nj, (3,), w[1], bias[1:]).unbind()", "F.layer_norm(nt, (3,))",
    "F.layer_norm(nj, (4, 3))", "T.where(nj > 2, nj, nj * 0).unbind()",
    "T.where(nj > 2, nj, 0.0).unbind()", "T.where(nt > 2, nt, nt * 0)", "T.where(nt > 2, nt, 0)",
    # attention, per component
    "F.scaled_dot_product_attention(qj, qj, qj)",
    "F.scaled_dot_product_attention(qj, qj, qj).transpose(1, 2).shape",
    "F.scaled_dot_product_attention(qj, qj, qj, scale=0.5).unbind()",
    "F.scaled_dot_product_attention(qs, qs, qs)",
    # softmax, products, linear, transpose
    "nt.softmax(-1)", "nt.softmax(1)", "T.softmax(nt, 2)", "F.softmax(nt, -1)", "nt.softmax(0)",
    "nt.softmax(3)", "nt.softmax(-3)", "nt.log_softmax(-1)", "nj.softmax(-1)", "nj.softmax(1)",
    "nj.softmax(0)", "nj.log_softmax(-1)",
    "T.matmul(nt, m2)", "T.bmm(nt, m2)", "nt @ m2", "nt.matmul(T.ones(3, 2))",
    "T.bmm(nt, T.ones(2, 3, 2))", "T.bmm(nt, N.nested_tensor([T.ones(3, 2)]))",
    "T.bmm(nt, N.nested_tensor([T.ones(4, 2), T.ones(3, 4)]))", "nj.matmul(T.ones(3, 2))",
    "F.linear(nt, w)", "F.linear(nt, w, bias)", "F.linear(nj, w, bias)",
    "nt.transpose(1, 2)", "nt.transpose(-1, -2).unbind()", "nt.transpose(0, 1)",
    "nt.transpose(1, 3)", "nt.transpose(1, 2).is_contiguous()", "nj.transpose(1, 2)",
    "nj.transpose(1, 2).shape", "nj.transpose(0, 1)",
    # shape ops and copies
    "nt.reshape(2, -1, 3)", "nt.view(2, -1)", "nt.view(-1)", "nt.unsqueeze(0)",
    "nt.unsqueeze(1)", "nt.squeeze()", "nt.clone()", "nt.detach()", "nt.contiguous()",
    "nt.to(T.float64)", "nt.double()", "T.cat([nt, nt])",
]


def main():
    record(CALLS, inputs, describe, "nested", messages=True)


if __name__ == "__main__":
    main()
