"""Record PyTorch's answers for the functions of torchlike/_composites.py
(addcmul, diff, isin, cov, the window functions ...), for
tests/test_composites.py: result dtypes (integer inputs too), shapes (0-d,
empty), values and the messages of bad calls.

Run with an interpreter that has PyTorch:
    python scripts/golden_composites.py
writes tests/golden/composites.json ([call, outcome] pairs over T, the library)."""
from golden_calls import record


def inputs(T):
    return {
        "T": T,
        "x": T.tensor([[0.5, -1.25, 2.0, 3.5], [1.0, 0.25, -0.75, 4.0], [2.5, 1.5, 0.0, -2.0]]),
        "y": T.tensor([[1.5, 2.0, -0.5, 1.0], [0.5, -1.0, 2.5, 3.0], [1.0, 1.0, 2.0, 0.5]]),
        "d": T.tensor([0.25, -1.5, 3.0, 0.75, 2.0], dtype=T.float64),
        "i": T.tensor([3, 1, 4, 1, 5, 9, 2, 6]),
        "b": T.tensor([True, False, False, True]),
        "p": T.tensor([0.1, 0.5, 0.9, 0.0, 1.0]),
        "z": T.tensor([1 + 2j, -0.5 + 0.25j, 3 - 1j]),
        "e": T.zeros(0),
        "s": T.tensor(2.5),
    }


CALLS = [
    # 1. predicates
    "T.numel(x)", "T.numel(s)", "T.is_tensor(x)", "T.is_tensor(1.0)", "T.is_floating_point(i)",
    "T.is_floating_point(d)", "T.is_complex(z)", "T.is_complex(x)", "T.is_nonzero(s)",
    "T.is_nonzero(T.tensor([0]))", "T.is_nonzero(x)", "T.is_nonzero(e)", "T.conj(z)",
    # 2. pointwise
    "T.addcmul(x, y, x)", "T.addcmul(x, y, x, value=-0.5)", "T.addcmul(i, i, i, value=2)",
    "T.addcdiv(x, y, x + 10)", "T.addcdiv(x, y, x + 10, value=2.0)", "T.addcdiv(i, i, i)",
    "x.addcmul(y, y)", "T.lerp(x, y, 0.25)", "T.lerp(x, y, 0.75)", "T.lerp(x, y, 1.0)",
    "T.lerp(x, y, p[:4])", "T.lerp(x, y, x)", "T.lerp(i, i, 0.5)", "x.lerp(y, 0.5)",
    "T.logit(p)", "T.logit(p, eps=0.05)", "T.logit(i)", "p.logit(1e-3)",
    # reductions
    "T.aminmax(x)", "T.aminmax(x, dim=1)", "T.aminmax(x, dim=0, keepdim=True)",
    "T.aminmax(x, keepdim=True)", "T.aminmax(i)", "T.aminmax(e)", "T.aminmax(s)",
    "x.aminmax(dim=-1)", "T.aminmax(x).min", "T.aminmax(x, dim=1).max", "T.aminmax(e, dim=0)",
    "T.aminmax(T.zeros(0, 3), dim=1)",
    # the reductions without identity on empty input: the error's type depends
    # on whether a dim was named and on the function
    "e.max()", "e.min()", "T.zeros(0, 3).amax()", "e.amin()", "e.argmax()", "T.zeros(2, 0).argmin()",
    "T.zeros(2, 0).max(1)", "T.zeros(2, 0).amax(1)", "T.zeros(2, 0).argmax(1)", "T.zeros(2, 0).amax(0)",
    "T.zeros(2, 0).amin(dim=())", "T.max(e)", "T.amax(e, 0)",
    "bool(x)", "bool(e)", "bool(s)",
    # Python's number protocols on tensors of several elements (bytes(t)
    # reads the buffer only after __index__'s TypeError)
    "int(x)", "float(e)", "complex(z)", "float(s)", "int(T.tensor([3]))", "x.item()",
    "x.__index__()", "e.long().__index__()", "T.tensor([2]).__index__()", "s.__index__()",
    # clamp of integer tensors with Python-int bounds beyond the dtype's range
    "T.tensor([10, 200, 250], dtype=T.uint8).clamp(-5, 100)",
    "T.tensor([10, 200, 250], dtype=T.uint8).clip(0, 300)",
    "T.tensor([10, 200, 250], dtype=T.uint8).clamp(min=300)",
    "T.tensor([10, 200, 250], dtype=T.uint8).clamp(max=-1)",
    "T.tensor([1, 100, -100], dtype=T.int8).clamp(-200, 50)",
    "T.tensor([1, 100, -100], dtype=T.int8).clamp(min=200)",
    "T.clamp(i, max=2**70)", "T.clamp(i, min=-2**70)", "T.clamp(i, min=2**70)",
    "T.tensor([10, 200], dtype=T.uint8).clamp_(-5, 300)",
    "T.clamp(T.tensor([10, 200], dtype=T.uint8), -5.5, 100.5)",
    # integer tensors with PyTorch's keywords keep PyTorch's refusal (NumPy's
    # spelling, i.mean(), is NumPy's float64 mean)
    "i.mean(dim=0)", "i.mean(dim=0, keepdim=True)", "i.std(dim=0)", "i.var(0, unbiased=False)",
    "i.var(correction=0)", "T.mean(i)", "T.std(i)", "i.mean(dtype=T.float32)", "i.mean(0, dtype=T.float64)",
    "T.std_mean(x)", "T.std_mean(x, 1)", "T.std_mean(x, dim=0, keepdim=True)",
    "T.std_mean(x, unbiased=False)", "T.std_mean(x, 1, False, True)",
    "T.std_mean(x, dim=1, correction=0)", "T.var_mean(x)", "T.var_mean(x, 0)",
    "T.var_mean(x, dim=(0, 1), keepdim=True)", "T.var_mean(d, correction=2)",
    "T.var_mean(x, False)", "T.var_mean(i)",
    "T.logcumsumexp(x, 1)", "T.logcumsumexp(x, 0)", "T.logcumsumexp(T.tensor([-1000.0, 0.0, 1.0]), 0)",
    "T.logcumsumexp(T.tensor([-float('inf'), -float('inf'), 0.0]), 0)", "T.logcumsumexp(s, 0)",
    "T.logcumsumexp(e, 0)", "T.logcumsumexp(i, 0)", "x.logcumsumexp(-1)",
    "T.diff(x)", "T.diff(x, dim=0)", "T.diff(x, n=2)", "T.diff(x, n=0)", "T.diff(x, n=5)",
    "T.diff(i)", "T.diff(b)", "T.diff(x, prepend=y)", "T.diff(x, dim=0, append=y[:1])",
    "T.diff(d, prepend=d[:2], append=d[:1])", "T.diff(s)", "T.diff(x, n=-1)", "T.diff(e)",
    "x.diff(dim=0)",
    "T.isin(i, T.tensor([1, 9, 7]))", "T.isin(i, 4)", "T.isin(3, i)", "T.isin(i, T.tensor([1, 9]), invert=True)",
    "T.isin(x, y)", "T.isin(T.tensor([1.0, float('nan')]), T.tensor([float('nan'), 1.0]))",
    "T.isin(i, T.tensor([1.0, 2.5]))", "T.isin(i, e)", "T.isin(e, i)", "T.isin(i, T.tensor([9, 1]), assume_unique=True)",
    "T.dist(x, y)", "T.dist(x, y, 1)", "T.dist(x, y, 0)", "T.dist(x, y, float('inf'))", "T.dist(x, y[0])",
    "T.dist(d, d[0])",
    "T.renorm(x, 2, 0, 2.0)", "T.renorm(x, 1, 1, 3.0)", "T.renorm(x, 2, 0, 100.0)", "x.renorm(3, -1, 1.5)",
    "T.renorm(d, 2, 0, 1.0)", "T.renorm(x, 0, 0, 1.0)", "T.renorm(x, 2, 0, -1.0)",
    "T.cov(x)", "T.cov(x, correction=0)", "T.cov(d)", "T.cov(i)", "T.cov(x, fweights=T.tensor([1, 2, 1, 3]))",
    "T.cov(x, aweights=T.tensor([0.5, 1.0, 2.0, 1.5]))",
    "T.cov(x, correction=2, fweights=T.tensor([1, 2, 1, 3]), aweights=T.tensor([0.5, 1.0, 2.0, 1.5]))",
    "T.cov(x, fweights=T.tensor([1.0, 2, 1, 3]))", "T.cov(x, aweights=T.tensor([1, 2, 1, 3]))",
    "T.cov(x, fweights=T.tensor([1, 2]))", "T.cov(x.unsqueeze(0))", "T.cov(z)", "x.cov()",
    "T.corrcoef(x)", "T.corrcoef(d)", "T.corrcoef(i.reshape(2, 4))", "T.corrcoef(z)", "x.corrcoef()",
    # 3. complex
    "T.view_as_real(z)", "T.view_as_real(z[0])", "T.view_as_real(x)", "T.view_as_complex(x.reshape(3, 2, 2))",
    "T.view_as_complex(x)", "T.view_as_complex(x.reshape(6, 2).t())", "T.view_as_complex(i.reshape(4, 2))",
    "T.complex(x, y)", "T.complex(d, d)", "T.complex(i, i)", "T.complex(x, d[:4])", "T.polar(x.abs(), y)",
    "T.polar(d, d)",
    # 4. integration
    "T.trapezoid(x)", "T.trapezoid(x, dim=0)", "T.trapezoid(x, dx=0.5)", "T.trapezoid(x, p[:4])",
    "T.trapezoid(x, y)", "T.trapezoid(x, 2.0)", "T.trapezoid(i)", "T.trapezoid(e)", "T.trapezoid(x[:, :1])",
    "T.trapezoid(T.zeros(2, 0))", "T.trapezoid(s)", "T.trapezoid(x, p)", "T.trapz(x, y)", "T.trapz(x, dx=2.0)",
    "T.cumulative_trapezoid(x)", "T.cumulative_trapezoid(x, dim=0)", "T.cumulative_trapezoid(x, dx=0.5)",
    "T.cumulative_trapezoid(x, y)", "T.cumulative_trapezoid(i)", "T.cumulative_trapezoid(e)",
    "T.cumulative_trapezoid(x[:, :1])",
]
for w in ("hann", "hamming", "blackman", "bartlett", "kaiser"):
    CALLS += [f"T.{w}_window(8)", f"T.{w}_window(7, periodic=False)", f"T.{w}_window(1)",
              f"T.{w}_window(0)", f"T.{w}_window(5, dtype=T.float64)", f"T.{w}_window(4, dtype=T.int64)",
              f"T.{w}_window(-1)", f"T.{w}_window(2, False)"]
# nan-reductions refuse complex input (in the nansum's words, naming the backend)
CALLS += ["T.nansum(z)", "z.nanmean()", "T.nansum(x)", "T.nanmean(x, 1)"]
CALLS += ["T.hamming_window(6, True, 0.5, 0.5)", "T.kaiser_window(6, True, 5.0)",
          "T.kaiser_window(6, False, beta=0.0)", "T.hann_window(3, requires_grad=True).requires_grad"]


def describe(r):
    if hasattr(r, "numpy") and hasattr(r, "dtype"):
        a = r.detach()
        if str(a.dtype).split(".")[-1].startswith("complex"):
            vals = [[v.real, v.imag] for v in a.reshape(-1).tolist()]
        else:
            vals = a.reshape(-1).tolist()
        vals = [round(v, 5) if isinstance(v, float) else v for v in vals] if vals and \
            not isinstance(vals[0], list) else [[round(c, 5) for c in v] for v in vals]
        return ["tensor", str(r.dtype).split(".")[-1], list(r.shape), vals]
    if isinstance(r, tuple):
        return ["tuple", [describe(v) for v in r]]
    return [type(r).__name__, r]


def main():
    record(CALLS, inputs, describe, "composites", messages=True)


if __name__ == "__main__":
    main()
