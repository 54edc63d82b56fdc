"""Record PyTorch's answers for torch.masked (torchlike/masked/), for
tests/test_masked.py: the masked reductions' values and result dtypes
(identities of masked-out elements, fully-masked slices, dtype promotion,
var/std's correction, mask broadcasting), MaskedTensor's reprs, elementwise
ops, reductions, views and where, and the messages of bad calls.

Run with an interpreter that has PyTorch:
    python scripts/golden_masked.py
writes tests/golden/masked.json ([call, outcome] pairs over T, the library)."""
import math

from golden_calls import record


def inputs(T):
    x = T.tensor([[1.0, -2.0, 3.0], [4.0, 5.0, -6.0]])
    m = T.tensor([[True, False, True], [False, False, False]])
    env = {
        "T": T, "M": T.masked, "x": x, "m": m,
        "m2": T.tensor([[True, True, True], [False, False, False]]),
        "xc": T.tensor([[1 + 1j, 2 - 1j, 3j], [1, 2, 3]], dtype=T.complex64),
        "x3": T.arange(24.0).reshape(2, 3, 4).sin(),
        "m3": T.arange(24).reshape(2, 3, 4) % 3 != 1,
        "mt": T.masked.masked_tensor(x, m),
        "mtd": T.masked.masked_tensor(x.double(), m),
        "mti": T.masked.masked_tensor(x.int(), m),
    }
    return env


def _round(v):
    if isinstance(v, float):
        return "nan" if math.isnan(v) else round(v, 5)
    return v


def _values(t):
    vals = t.reshape(-1).tolist()
    return [[_round(v.real), _round(v.imag)] if isinstance(v, complex) else _round(v)
            for v in vals]


def describe(r):
    """A result as JSON: a MaskedTensor's dtype, shape, present values (None
    where masked out), mask and repr; a tensor's dtype, shape and values."""
    if type(r).__name__ == "MaskedTensor":
        data, mask = r.get_data().detach(), r.get_mask()
        flat = [v if keep else None for v, keep in zip(_values(data), mask.reshape(-1).tolist())]
        return ["masked", str(r.dtype).split(".")[-1], list(r.shape), flat,
                mask.reshape(-1).tolist(), repr(r)]
    if hasattr(r, "detach") and hasattr(r, "shape"):
        t = r.detach()
        return ["tensor", str(t.dtype).split(".")[-1], list(t.shape), _values(t)]
    if isinstance(r, tuple):
        return ["tuple", [describe(v) for v in r]]
    if isinstance(r, (bool, int, float, str)) or r is None:
        return [type(r).__name__, _round(r)]
    return [type(r).__name__, str(r).replace("torch.", "T.").replace("torchlike.", "T.")]


_RED = ["sum", "prod", "amax", "amin", "mean", "norm", "var", "std", "logsumexp"]

CALLS = (
    [f"M.{n}(x, 1, mask=m)" for n in _RED]
    + [f"M.{n}(x3, (0, 2), mask=m3)" for n in _RED]
    + [f"M.{n}(x3, mask=m3)" for n in _RED]
    + [f"M.{n}(x3, 1, keepdim=True, mask=m3)" for n in _RED]
    + [f"M.{n}(x, 1, mask=m[0])" for n in ("sum", "amax", "mean", "var")]
    + [f"M.{n}(x, 1, mask=m[:, :1])" for n in ("sum", "amin", "std")]
    + [f"M.{n}(x, 1, mask=m, dtype=T.float64)" for n in _RED]
    + [
        # argmax/argmin: indices in input's dtype unless dtype is given
        "M.argmax(x, 1, mask=m)", "M.argmin(x, 1, mask=m)", "M.argmax(x, mask=m)",
        "M.argmax(x3, 2, mask=m3)", "M.argmin(x3, 0, keepdim=True, mask=m3)",
        "M.argmax(x.int(), 1, mask=m)", "M.argmin(x.long(), 1, mask=m)",
        "M.argmax(x, 1, mask=m, dtype=T.int64)", "M.argmax(x, (0, 1), mask=m)",
        # median: one dim, NaN for a fully-masked float slice
        "M.median(x, 1, mask=m)", "M.median(x, mask=m)", "M.median(x, 0, mask=m)",
        "M.median(x3, 2, mask=m3)", "M.median(x.double(), 1, mask=m, keepdim=True)",
        "M.median(x.int(), 1, mask=m)", "M.median(x.int(), 0, mask=m2)",
        # scans and normalisations
        "M.cumsum(x, 1, mask=m)", "M.cumprod(x, 1, mask=m)", "M.cumsum(x3, 2, mask=m3)",
        "M.cumprod(x3, 0, mask=m3)", "M.cumsum(x.int(), 1, mask=m)",
        "M.cumsum(x, 1, mask=m, dtype=T.float64)", "M.cumsum(x, mask=m)",
        "M.softmax(x, 1, mask=m)", "M.log_softmax(x, 1, mask=m)", "M.softmin(x, 1, mask=m)",
        "M.softmax(x3, 1, mask=m3)", "M.log_softmax(x3, 2, mask=m3)",
        "M.softmin(x3, 0, mask=m3)", "M.softmax(x, 1, dtype=T.float64, mask=m)",
        "M.softmax(x, mask=m)", "M.softmax(x.int(), 1, mask=m)",
        "M.normalize(x, 2.0, 1, mask=m)", "M.normalize(x, 1, 1, mask=m)",
        "M.normalize(x3, 2, 2, mask=m3)", "M.normalize(x, 2, 0, eps=0.5, mask=m)",
        "M.normalize(x, 2, 1, mask=m, dtype=T.float64)",
        # norms of other orders
        "M.norm(x, 1, 1, mask=m)", "M.norm(x, float('inf'), 1, mask=m)",
        "M.norm(x, -float('inf'), 1, mask=m)", "M.norm(x, 0, 1, mask=m)",
        "M.norm(x, 3, 1, mask=m)", "M.norm(x, 0.5, 1, mask=m)", "M.norm(x, -2, 1, mask=m)",
        "M.norm(x.int(), 2, 1, mask=m)",
        # dtypes
        "M.sum(x.int(), 1, mask=m)", "M.sum(x.int(), mask=m)", "M.sum(x.bool(), 1, mask=m)",
        "M.prod(x.int(), 1, mask=m)", "M.prod(x.bool(), 1, mask=m)",
        "M.amax(x.int(), 1, mask=m)", "M.amin(x.short(), 1, mask=m)",
        "M.amax(T.tensor([[1, 2], [3, 4]], dtype=T.uint8), 1, "
        "mask=T.tensor([[True, False], [False, False]]))",
        "M.mean(x.half(), 1, mask=m)", "M.sum(x.half(), 1, mask=m)",
        "M.sum(x, 1, mask=m, dtype=T.int32)", "M.var(x.int(), 1, mask=m)",
        "M.logsumexp(x.int(), 1, mask=m)", "M.mean(x.int(), 1, mask=m)",
        "M.mean(x, 1, mask=m, dtype=T.int64)", "M.amax(x.bool(), 1, mask=m)",
        "M.amin(x.bool(), 1, mask=m)", "M.amax(xc, 1, mask=m)",
        "M.sum(xc, 1, mask=m)", "M.prod(xc, 1, mask=m)", "M.mean(xc, 1, mask=m)",
        "M.var(xc, 1, mask=m)", "M.norm(xc, 2, 1, mask=m)",
        # var/std corrections
        "M.var(x, 1, mask=m, unbiased=False)", "M.var(x, 1, mask=m, correction=0)",
        "M.var(x, 1, mask=m, correction=2)", "M.std(x, (0, 1), mask=m)",
        "M.var(x, mask=m)", "M.std(x, 1, unbiased=False, mask=m)",
        "M.var(x3, 2, mask=m3, correction=0)",
        "M.var(x, 1, mask=m, unbiased=True, correction=1)",
        # masks: absent, non-bool, broadcast, empty inputs, bad ones
        "M.sum(x, 1)", "M.logsumexp(x, 1)", "M.sum(x, 1, keepdim=True, mask=None)",
        "M.sum(x, 1, mask=m.float())", "M.sum(x, 1, mask=T.tensor([[1, 0, 1], [0, 0, 0]]))",
        "M.sum(x, (0, 1), keepdim=True, mask=m)", "M.sum(x, [0, 1], mask=m)",
        "M.mean(x, mask=T.zeros_like(m))", "M.sum(T.tensor(3.0), mask=T.tensor(False))",
        "M.sum(T.empty(0, 3), 1, mask=T.empty(0, 3).bool())", "M.amax(T.empty(0, 3), 1)",
        "M.mean(T.empty(2, 0), 1)", "M.amax(T.empty(2, 0), 1)",
        "M.sum(x, 2, mask=m)", "M.prod(x, 2, mask=m)", "M.amax(x, -3, mask=m)",
        "M.sum(x, 1, mask=m.T)", "M.sum(x, 1, mask=m[None])",
        "M.sum(x[0], 0, mask=m)",
        # logaddexp: each operand's own mask
        "M.logaddexp(x, -x3[0, :2, :3], input_mask=m, other_mask=m2)", "M.logaddexp(x, x * 2)",
        "M.logaddexp(x, x * 2, input_mask=m)", "M.logaddexp(x.int(), x, input_mask=m, "
        "other_mask=m2)", "M.logaddexp(x, x, dtype=T.float64, input_mask=m, other_mask=m2)",
        "M.logaddexp(x, x[0], input_mask=m, other_mask=m2[0])",
        # MaskedTensor: construction and repr
        "mt", "mtd", "mti", "T.masked.masked_tensor(T.tensor(2.0), T.tensor(True))",
        "T.masked.masked_tensor(T.tensor(2.0), T.tensor(False))",
        "T.masked.masked_tensor(T.tensor(2), T.tensor(True))",
        "T.masked.masked_tensor(T.tensor([True, False]), T.tensor([True, True]))",
        "T.masked.masked_tensor(x3[0], m3[0])", "T.masked.masked_tensor(x3, m3)",
        "T.masked.masked_tensor(T.tensor([12345.678, -0.5]), T.tensor([True, True]))",
        "T.masked.masked_tensor(T.tensor([1e-5, 1e10, float('nan')]), T.tensor([True] * 3))",
        "repr(T.masked.masked_tensor(T.zeros(0), T.zeros(0, dtype=T.bool)))",
        "T.masked.masked_tensor(x, m, requires_grad=True)",
        "T.masked.masked_tensor(x, m, requires_grad=True).requires_grad",
        "T.masked.masked_tensor(x, m, requires_grad=True).is_leaf",
        "T.masked.as_masked_tensor(x, m)", "T.masked.is_masked_tensor(mt)",
        "T.masked.is_masked_tensor(x)", "isinstance(mt, T.Tensor)",
        "T.masked.masked_tensor(x, m[0])", "T.masked.masked_tensor(x, m.float())",
        "T.masked.masked_tensor(x, m.int())", "T.masked.masked_tensor(x.tolist(), m)",
        "T.masked.masked_tensor(x, T.ones(2, 2, dtype=T.bool))",
        "T.masked.masked_tensor(xc, m)", "T.masked.masked_tensor(x.to(T.uint8), m)",
        "T.masked.masked_tensor(x.bfloat16(), m)",
        "mt.get_data()", "mt.get_mask()", "mt.to_tensor(0)", "mt.to_tensor(float('nan'))",
        "mti.to_tensor(0.5)", "mt.shape", "mt.dtype", "mt.size()", "mt.dim()", "mt.numel()",
        "len(mt)", "mt.is_sparse", "mt.requires_grad", "str(mt)",
        "float(mt.sum())", "mt.sum().item()", "mt.tolist()", "mt.numpy()",
        # elementwise
        "mt + mt", "mt + 1", "mt * 2", "1 - mt", "mt / mt", "mt ** 2", "2 ** mt", "-mt",
        "mt + x", "T.ones(2, 3) + mt", "mt + T.ones(3)", "mt + T.tensor(1.0)",
        "mt + T.masked.masked_tensor(x, m2)", "mt * T.masked.masked_tensor(x, m)[0]",
        "mt.add(mt)", "T.add(mt, mt)", "mt.sub(1, alpha=2)", "mt.sin()", "T.sin(mt)",
        "mt.abs()", "mt.exp()", "mt.log()", "mt.pow(2)", "mt.clamp(0, 2)", "mt.sigmoid()",
        "T.maximum(mt, mt)", "T.atan2(mt, mt)", "mti // 2", "mti % 2",
        "mt > 0", "mt == mt", "mt < 2", "mt != 1", "mt >= mt",
        "T.masked.masked_tensor(m, m) & T.masked.masked_tensor(m, m)",
        "mt.logical_not()", "mt.clone().mul_(2)", "mt.clone().add_(mt)",
        # reductions of MaskedTensors
        "mt.sum()", "mt.sum(1)", "mt.sum(0)", "mt.sum((0, 1))", "T.sum(mt, 1)",
        "mt.sum(dim=1, keepdim=True)", "mt.sum(1, dtype=T.float64)", "mt.amax(1)",
        "mt.amax()", "mt.amin()", "mt.amax(0)", "mt.prod(1)", "mt.argmax(1)", "mt.argmin()",
        "mt.mean()", "mt.mean(1)", "mt.mean(1, keepdim=True)", "mt.var()", "mt.std(1)",
        "mti.sum(1)", "mti.mean(1)", "mt.var(1, unbiased=False)", "mt.all()", "mt.any()",
        "mt.max()", "mt.cumsum(1)", "mt.norm()",
        "T.masked.masked_tensor(x, T.zeros_like(m)).sum()",
        "T.masked.masked_tensor(x, T.zeros_like(m)).sum(1)",
        "T.masked.masked_tensor(x3, m3).sum(2)", "T.masked.masked_tensor(x3, m3).amax((0, 2))",
        "T.masked.masked_tensor(x3, m3).mean(1)",
        "M.sum(mt, 1)", "M.sum(mt, 1, mask=m)", "M.softmax(mt, 1)", "M.amax(mt)",
        "mt.softmax(1)", "T.softmax(mt, 1)", "mt.softmax(0)", "mt.log_softmax(1)",
        # views, copies and where
        "mt.t()", "mt.transpose(0, 1)", "mt.reshape(3, 2)", "mt.view(3, 2)", "mt[0]",
        "mt[:, 1:]", "mt[0, 0]", "mt.unsqueeze(0)", "mt.expand(2, 2, 3)", "mt.contiguous()",
        "mt.clone()", "mt.detach()", "mt.to(T.float64)", "mt.float()", "mti.float()",
        "mt.T",
        "T.where(m2, mt, mt)", "T.where(m2, mt, 0)",
        "T.where(m2, mt, T.masked.masked_tensor(-x, ~m))",
    ]
)


def main():
    record(CALLS, inputs, describe, "masked", messages=True)


if __name__ == "__main__":
    main()
