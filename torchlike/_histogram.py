"""torch.histogram and torch.histogramdd (and Tensor.histogram), with
PyTorch's bin rules, checks and messages.

Legend: N samples, D dimensions of a sample, B_d bins of dimension d.

    input (..., D) -> x (N, D); per dimension d the edges e_d (B_d + 1,):
        given (a tensor of bins), or PyTorch's linspace over the range (given,
        or the data's min and max, widened by 0.5 each side when they meet)
    bin of x[n, d]: the last edge <= x (the last bin closed on the right):
        a binary search of given edges, PyTorch's estimate-and-correct for
        equal bins;
        samples outside [e_d[0], e_d[-1]] on any dimension, and NaNs, are skipped
    hist (B_0, ..., B_{D-1}) = index_add of the weights (or ones) at the bins

The bins are found with searchsorted and summed with one index_add, so any
device runs it (PyTorch runs histogram on the CPU only).  The data's range is
read on the host, as PyTorch reads it, to check it and make the edges."""
import builtins

from . import _C
from ._composites import _dtype_name
from ._return_types import return_type
from ._dtype_names import CPP_NAMES as _CPP_NAMES  # what histogram messages print

__all__ = ["histogram", "histogramdd"]

Tensor = _C.Tensor
_HISTOGRAM = return_type("histogram", ["hist", "bin_edges"])
_HISTOGRAMDD = return_type("histogramdd", ["hist", "bin_edges"])


def _torch_linspace(start, end, steps, dtype, device):
    """PyTorch's CPU linspace, to the bit: fma(step, i, start) for the first
    steps // 2 points, fma(-step, steps - 1 - i, end) for the rest, with
    step = (end - start) / (steps - 1) in dtype.  float32 takes the fma in
    float64 (step * i is exact there); float64 takes it as Dekker's exact
    product plus a compensated sum."""
    i = _C.arange(steps, dtype=_C.float64, device=device)
    first = _C.lt(i, steps // 2)
    k = _C.where(first, i, (steps - 1) - i)                      # the multiplier
    base = _C.where(first, _C.full([], start, dtype=_C.float64, device=device).to(dtype),
                    _C.full([], end, dtype=_C.float64, device=device).to(dtype))
    s = _C.full([], start, dtype=_C.float64, device=device).to(dtype)
    e = _C.full([], end, dtype=_C.float64, device=device).to(dtype)
    step = _C.div(_C.sub(e, s), steps - 1 if steps > 1 else 1)
    step = _C.where(first, step, _C.neg(step))
    if dtype != _C.float64:
        return _C.add(_C.mul(step.to(_C.float64), k), base.to(_C.float64)).to(dtype)
    # p + err == step * k exactly (k < 2^26 and the split of step into 26-bit halves)
    p = _C.mul(step, k)
    c = _C.mul(step, 134217729.0)
    hi = _C.sub(c, _C.sub(c, step))
    lo = _C.sub(step, hi)
    err = _C.add(_C.sub(_C.mul(hi, k), p), _C.mul(lo, k))
    # TwoSum(base, p) = total + t exactly; the result rounds total + (t + err)
    total = _C.add(base, p)
    bv = _C.sub(total, p)
    t = _C.add(_C.sub(base, bv), _C.sub(p, _C.sub(total, bv)))
    return _C.add(total, _C.add(t, err))


def _uniform_bin(x, e, nb, inside):
    """The bin of each x among nb equal bins with edges e (nb + 1,), as
    PyTorch finds it: the estimate (x - e[0]) * nb / (e[nb] - e[0]), truncated,
    then the last edge <= x among the estimate's neighbours e[est-1 .. est+1]
    (an x that rounding put beside its bin moves in).  Samples outside
    (inside False) get bin 0; the caller drops them."""
    est = _C.div(_C.mul(_C.sub(x, e[0]), nb), _C.sub(e[nb], e[0]))
    est = _C.where(inside, _C.clamp(est, 0, nb), 0).to(_C.int64)
    lo = _C.clamp(_C.sub(est, 1), min=0)
    # upper_bound over e[lo : est + 2]: the edges <= x there, counted; the
    # +inf past the last edge stands for the window's end
    padded = _C.cat([e, _C.full([2], float("inf"), dtype=e.dtype, device=e.device)])
    pos = _C.sub(lo, 1)
    for j in range(3):
        pos = _C.add(pos, _C.le(padded[_C.add(lo, j) if j else lo], x))
    return pos


def _fmt(v):
    """A double as C++'s default stream prints it (1, 0.5, inf, nan)."""
    return f"{v:g}"


def _check_input(input):
    name = input.dtype.name
    if name not in ("float32", "float64"):
        raise NotImplementedError(f"\"histogramdd\" not implemented for "
                                  f"'{_dtype_name(input.dtype)}'")


def _histdd(x, bins, range, weight, density, weight_shape_of):
    """The common body: x (N, D) float; bins an int, ints or 1-d tensors.
    NOTE: no gradient flows (PyTorch has no derivative for histogram)."""
    x = x.detach()
    weight = weight.detach() if weight is not None else None
    n, d = x.shape
    if isinstance(bins, Tensor) or isinstance(bins, int):
        bins = [bins] * d if isinstance(bins, int) else bins
    bins = list(bins)
    tensors = [isinstance(b, Tensor) for b in bins]
    if any(tensors) and not all(tensors):
        bad = tensors.index(False)
        raise TypeError(f"expected Tensor as element {bad} in argument 1, but got "
                        f"{type(bins[bad]).__name__}")
    if all(tensors) and bins:
        if len(bins) != d:
            raise RuntimeError(f"torch.histogramdd: expected {d} sequences of bin edges for a "
                               f"{d}-dimensional histogram but got {len(bins)}")
    elif len(bins) != d:
        raise RuntimeError("histogramdd: The size of bins must be equal to the innermost "
                           "dimension of the input.")
    for dim, b in enumerate(bins):
        if isinstance(b, Tensor):
            if b.ndim != 1:
                raise RuntimeError("torch.histogramdd: bins tensor should have one dimension, "
                                   f"but got {b.ndim} dimensions in the bins tensor for "
                                   f"dimension {dim}")
            count = b.shape[0] - 1
        else:
            count = b
        if count <= 0:
            raise RuntimeError(f"torch.histogram(): bins must be > 0, but got {count} for "
                               f"dimension {dim}")
        if isinstance(b, Tensor) and b.dtype != x.dtype:
            raise RuntimeError("torch.histogramdd: input tensor and bins tensors should have "
                               f"the same dtype, but got input with dtype "
                               f"{_CPP_NAMES[x.dtype.name]} and bins for dimension {dim} with "
                               f"dtype {_CPP_NAMES[b.dtype.name]}")
    if weight is not None:
        if weight.dtype != x.dtype:
            raise RuntimeError("torch.histogramdd: if weight tensor is provided, input tensor "
                               "and weight tensor should have the same dtype, but got "
                               f"input({_CPP_NAMES[x.dtype.name]}), and "
                               f"weight({_CPP_NAMES[weight.dtype.name]})")
        weight = weight_shape_of(weight)
    if range is not None and not all(tensors):
        if len(range) != 2 * d:
            raise RuntimeError(f"torch.histogramdd: for a {d}-dimensional histogram range "
                               f"should have {2 * d} elements, but got {len(range)}")
    edges = []
    if all(tensors):
        edges = [b.detach().clone() for b in bins]
    else:
        if range is not None:
            lims = [(float(range[2 * i]), float(range[2 * i + 1])) for i in builtins.range(d)]
        elif n == 0:
            lims = [(0.0, 1.0)] * d
        else:  # the host read of the data's range, as PyTorch's
            lims = list(zip(_C.amin(x, 0).tolist(), _C.amax(x, 0).tolist()))
        for dim, (lo, hi) in enumerate(lims):
            if lo != lo or hi != hi or abs(lo) == float("inf") or abs(hi) == float("inf"):
                raise RuntimeError(f"torch.histogramdd: dimension {dim}'s range "
                                   f"[{_fmt(lo)}, {_fmt(hi)}] is not finite")
            if lo > hi:
                raise RuntimeError("torch.histogramdd: min should not exceed max, but got min "
                                   f"{_fmt(lo)} max {_fmt(hi)} for dimension {dim}")
            if lo == hi:
                lo, hi = lo - 0.5, hi + 0.5
            edges.append(_torch_linspace(lo, hi, bins[dim] + 1, x.dtype, x.device))
    counts = [e.shape[0] - 1 for e in edges]
    keep = None
    flat = None
    for dim, e in enumerate(edges):
        xd = x[:, dim].contiguous()
        inside = _C.logical_and(_C.ge(xd, e[0]), _C.le(xd, e[-1]))
        keep = inside if keep is None else _C.logical_and(keep, inside)
        if all(tensors):
            pos = _C.sub(_C.searchsorted(e.contiguous(), xd, right=True), 1)
        else:
            pos = _uniform_bin(xd, e, counts[dim], inside)
        pos = _C.clamp(pos, 0, counts[dim] - 1)   # the right edge closes the last bin
        flat = pos if flat is None else _C.add(_C.mul(flat, counts[dim]), pos)
    total = 1
    for c in counts:
        total *= c
    w = weight if weight is not None else _C.ones(n, dtype=x.dtype, device=x.device)
    w = _C.where(keep, w, 0) if keep is not None else w
    hist = _C.zeros(total, dtype=x.dtype, device=x.device)
    if flat is not None:
        hist = hist.index_add(0, flat, w)
    hist = hist.reshape(counts)
    if density:
        hist = _C.div(hist, _C.sum(hist))
        for dim, e in enumerate(edges):
            shape = [1] * d
            shape[dim] = counts[dim]
            hist = _C.div(hist, _C.sub(e[1:], e[:-1]).reshape(shape))
    return hist, tuple(edges)


def histogram(input, bins=100, *, range=None, weight=None, density=False, out=None):
    """(hist, bin_edges) of the flattened input: bins equal bins over range
    (the data's min and max by default), or the edges of a bins tensor."""
    if not isinstance(input, Tensor):
        raise TypeError(f"histogram(): argument 'input' (position 1) must be Tensor, not "
                        f"{type(input).__name__}")
    if isinstance(bins, Tensor) and range is not None:
        raise TypeError("histogram() received an invalid combination of arguments - got "
                        "(Tensor, Tensor, range=tuple), but expected one of:\n * (Tensor input, "
                        "Tensor bins, *, Tensor weight = None, bool density = False, tuple of "
                        "Tensors out = None)\n * (Tensor input, int bins = 100, *, tuple of "
                        "floats range = None, Tensor weight = None, bool density = False, "
                        "tuple of Tensors out = None)")
    _check_input(input)
    x = input.reshape(-1, 1)

    def weight_shape_of(w):
        if w.numel() != x.shape[0]:
            raise RuntimeError("torch.histogramdd: if weight tensor is provided it should have "
                               "the same shape as the input tensor excluding its innermost "
                               f"dimension, but got input with shape {list(x.shape)} and "
                               f"weight with shape {list(w.shape)}")
        return w.reshape(-1)
    hist, edges = _histdd(x, [bins], range, weight, density, weight_shape_of)
    return _HISTOGRAM(hist, edges[0])


def histogramdd(input, bins=10, *, range=None, weight=None, density=False):
    """(hist, bin_edges) of the points input[..., :] in D = input.shape[-1]
    dimensions: bins an int, D ints or D edge tensors."""
    if not isinstance(input, Tensor):
        raise TypeError(f"histogramdd(): argument 'input' (position 1) must be Tensor, not "
                        f"{type(input).__name__}")
    if input.ndim < 2:
        raise RuntimeError("torch.histogramdd: input tensor should have at least 2 dimensions")
    _check_input(input)
    d = input.shape[-1]

    def weight_shape_of(w):
        if tuple(w.shape) != tuple(input.shape[:-1]):
            raise RuntimeError("torch.histogramdd: if weight tensor is provided it should have "
                               "the same shape as the input tensor excluding its innermost "
                               f"dimension, but got input with shape {list(input.shape)} and "
                               f"weight with shape {list(w.shape)}")
        return w.reshape(-1)
    if d == 0:
        return _HISTOGRAMDD(_C.zeros([], dtype=input.dtype, device=input.device), ())
    hist, edges = _histdd(input.reshape(-1, d), bins, range, weight, density, weight_shape_of)
    return _HISTOGRAMDD(hist, edges)


# PyTorch records a NotImplemented node for a histogram of tensors that
# require grad (backward raises its error: src/grad/formulas_missing.c)
histogram = _C._recorded("histogram", histogram)
histogramdd = _C._recorded("histogramdd", histogramdd)
Tensor.histogram = histogram
