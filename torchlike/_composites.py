"""PyTorch's top-level functions that are compositions of existing ops
(torch.addcmul, torch.diff, torch.cov, the window functions ...), and their
Tensor methods where PyTorch has them.

Each is written with the registry's ops only, so autograd and every device
come from those ops; nothing here reads tensor data on the host except where
PyTorch's result itself is a Python value (is_nonzero)."""
import math
import warnings

from . import _C
from . import linalg
from ._dtype_names import scalar_type_name as _dtype_name
from ._return_types import return_type
from .autograd import Function

__all__ = ["numel", "is_tensor", "is_floating_point", "is_complex", "is_nonzero", "conj",
           "addcmul", "addcdiv", "lerp", "logit", "mvlgamma", "aminmax", "std_mean", "var_mean",
           "logcumsumexp", "diff", "isin", "dist", "renorm", "cov", "corrcoef",
           "view_as_real", "view_as_complex", "complex", "polar", "trapezoid", "trapz",
           "cumulative_trapezoid", "hann_window", "hamming_window", "blackman_window",
           "bartlett_window", "kaiser_window"]

Tensor = _C.Tensor
_AMINMAX = return_type("aminmax", ["min", "max"])


def _need_tensor(fn, name, x, position=1):
    if not isinstance(x, Tensor):
        raise TypeError(f"{fn}(): argument '{name}' (position {position}) must be Tensor, "
                        f"not {type(x).__name__}")


# ---- 1. predicates and top-level spellings of existing methods ----------

def numel(input):
    _need_tensor("numel", "input", input)
    return input.numel()


def is_tensor(obj):
    return isinstance(obj, Tensor)


def is_floating_point(input):
    _need_tensor("is_floating_point", "input", input)
    return input.is_floating_point()


def is_complex(input):
    _need_tensor("is_complex", "input", input)
    return input.is_complex()


def is_nonzero(input):
    """The truth of a one-element tensor (PyTorch's bool(t) wording otherwise)."""
    _need_tensor("is_nonzero", "input", input)
    n = input.numel()
    if n == 0:
        raise RuntimeError("Boolean value of Tensor with no values is ambiguous")
    if n > 1:
        raise RuntimeError("Boolean value of Tensor with more than one value is ambiguous")
    return bool(input.item())


def conj(input):
    _need_tensor("conj", "input", input)
    return input.conj()


# ---- 2. pointwise compositions ------------------------------------------

_HALF = (_C.float16, _C.bfloat16)


def _half_in_float(input, tensor1, tensor2, combine, value):
    """input + (value * tensor1) combine tensor2 for float16/bfloat16 operands
    of one dtype, as PyTorch computes it: in float32 (value unrounded), one
    rounding at the end.  None for other dtypes."""
    if not (input.dtype in _HALF and tensor1.dtype == tensor2.dtype == input.dtype):
        return None
    work = _C.float32
    part = combine(_C.mul(tensor1.to(work), value), tensor2.to(work))
    return _C.add(input.to(work), part).to(input.dtype)


_deprecated_warned = False   # PyTorch's notice for the old overloads: once per process


def _deprecated_value(name, args, tensor1, tensor2):
    """x.addcmul(value, tensor1, tensor2), PyTorch's deprecated overload that
    old optimizers use: (tensor1, tensor2, value), with its notice (in the
    method's wording, the form old code calls)."""
    global _deprecated_warned
    if len(args) != 1 or isinstance(tensor1, Tensor):
        raise TypeError(f"{name}() takes 3 positional arguments but {3 + len(args)} were given")
    if not _deprecated_warned:
        _deprecated_warned = True
        warnings.warn(f"This overload of {name} is deprecated:\n\t{name}(Number value, Tensor "
                      f"tensor1, Tensor tensor2)\nConsider using one of the following signatures "
                      f"instead:\n\t{name}(Tensor tensor1, Tensor tensor2, *, Number value = 1)",
                      UserWarning, stacklevel=3)
    return tensor2, args[0], tensor1


def addcmul(input, tensor1, tensor2, *args, value=1):
    """input + value * tensor1 * tensor2."""
    if args:
        tensor1, tensor2, value = _deprecated_value("addcmul", args, tensor1, tensor2)
    _need_tensor("addcmul", "input", input)
    _need_tensor("addcmul", "tensor1", tensor1, 2)
    _need_tensor("addcmul", "tensor2", tensor2, 3)
    half = _half_in_float(input, tensor1, tensor2, _C.mul, value)
    if half is not None:
        return half
    return _C.add(input, _C.mul(tensor1, tensor2), alpha=value)


def addcdiv(input, tensor1, tensor2, *args, value=1):
    """input + value * tensor1 / tensor2; true division, so integer operands are refused."""
    if args:
        tensor1, tensor2, value = _deprecated_value("addcdiv", args, tensor1, tensor2)
    _need_tensor("addcdiv", "input", input)
    _need_tensor("addcdiv", "tensor1", tensor1, 2)
    _need_tensor("addcdiv", "tensor2", tensor2, 3)
    if not (tensor1.is_floating_point() or tensor1.is_complex()) and \
            not (tensor2.is_floating_point() or tensor2.is_complex()):
        raise RuntimeError(
            "Integer division with addcdiv is no longer supported, and in a future release "
            "addcdiv will perform a true division of tensor1 and tensor2. The historic "
            "addcdiv behavior can be implemented as (input + value * torch.trunc(tensor1 / "
            "tensor2)).to(input.dtype) for integer inputs and as (input + value * tensor1 / "
            "tensor2) for float inputs. The future addcdiv behavior is just the latter "
            "implementation: (input + value * tensor1 / tensor2), for all dtypes.")
    half = _half_in_float(input, tensor1, tensor2, _C.div, value)
    if half is not None:
        return half
    return _C.add(input, _C.div(tensor1, tensor2), alpha=value)


_LERP_WORK = (_C.float32, _C.float16, _C.bfloat16)


def lerp(input, end, weight):
    """input + weight * (end - input), evaluated as PyTorch does: from the
    nearer end (end - (end - input) * (1 - weight) once |weight| >= 0.5), so
    weight 1 gives end exactly."""
    _need_tensor("lerp", "input", input)
    _need_tensor("lerp", "end", end, 2)
    if not input.is_floating_point() and not input.is_complex():
        raise NotImplementedError(f"\"lerp_kernel_scalar\" not implemented for "
                                  f"'{_dtype_name(input.dtype)}'")
    if input.dtype != end.dtype:
        raise RuntimeError(f"expected dtype {_dtype_name(input.dtype)} for `end` but got "
                           f"dtype {_dtype_name(end.dtype)}")
    if input.dtype in _LERP_WORK:
        # PyTorch works in float for these dtypes and rounds once per element
        # (a fused multiply-add of weight and difference): the product is
        # exact in double, so one sum there and one rounding back to float
        # gives the same bits
        work = _C.float32
        if not isinstance(weight, Tensor):
            weight = _C.tensor(weight, dtype=work)
        a, e, w = input.to(work), end.to(work), weight.to(work)
        d = _C.sub(e, a).to(_C.float64)
        low = _C.add(a.to(_C.float64), _C.mul(w.to(_C.float64), d))
        high = _C.add(e.to(_C.float64), _C.mul(_C.sub(w, 1).to(_C.float64), d))
        out = _C.where(_C.lt(_C.abs(w), 0.5), low, high).to(work)
        return out if input.dtype == work else out.to(input.dtype)
    delta = _C.sub(end, input)
    if not isinstance(weight, Tensor):
        if abs(weight) < 0.5:
            return _C.add(input, delta, alpha=weight)
        return _C.sub(end, delta, alpha=1 - weight)
    low = _C.add(input, _C.mul(weight, delta))
    high = _C.sub(end, _C.mul(1 - weight, delta))
    return _C.where(_C.lt(_C.abs(weight), 0.5), low, high)


def logit(input, eps=None):
    """log(p / (1 - p)), p clamped to [eps, 1 - eps] when eps is given."""
    _need_tensor("logit", "input", input)
    if eps is not None:
        input = _C.clamp(input, eps, 1 - eps)
    return _C.log(_C.div(input, 1 - input))


def mvlgamma(input, p):
    """The multivariate log-gamma function of dimension p (special.multigammaln):
    p (p - 1) / 4 log(pi) + sum_{j<p} lgamma(input - j / 2)."""
    _need_tensor("mvlgamma", "input", input)
    if isinstance(p, bool) or not isinstance(p, int):
        raise TypeError(f"mvlgamma(): argument 'p' (position 2) must be int, not "
                        f"{type(p).__name__}")
    if p < 1:
        raise RuntimeError("p has to be greater than or equal to 1")
    if not input.is_floating_point():
        input = input.to(_C.get_default_dtype())
    total = _C.lgamma(input)
    for j in range(1, p):
        total = _C.add(total, _C.lgamma(_C.sub(input, j / 2)))
    return _C.add(total, p * (p - 1) / 4 * math.log(math.pi))


# ---- reductions ----------------------------------------------------------

def aminmax(input, *, dim=None, keepdim=False):
    _need_tensor("aminmax", "input", input)
    if input.numel() == 0 and dim is not None and input.ndim and input.shape[dim] == 0:
        raise IndexError(f"aminmax: Expected reduction dim {dim % input.ndim} to have "
                         "non-zero size.")
    if input.numel() == 0 and dim is None:
        raise RuntimeError("aminmax(): cannot compute aminmax over an empty dimension as the "
                           "operation has no identity.")
    if input.requires_grad and _C.is_grad_enabled():  # one node, PyTorch's AminmaxBackward0
        return _AMINMAX(*_Aminmax.apply(input, dim, keepdim))
    return _AMINMAX(*_aminmax_values(input, dim, keepdim))


def _aminmax_values(input, dim, keepdim):
    if dim is None:
        # PyTorch's whole-tensor aminmax is its min()/max() kernel (the two
        # differ from amin/amax in which of tied -0.0 and +0.0 they return)
        lo, hi = _C.min(input), _C.max(input)
        if keepdim:
            lo, hi = lo.reshape((1,) * input.ndim), hi.reshape((1,) * input.ndim)
        return lo, hi
    return _C.amin(input, dim, keepdim), _C.amax(input, dim, keepdim)


class _Aminmax(Function):
    """aminmax as one recorded node: each gradient shared evenly among the
    elements tied at the extreme of their slice (amin's and amax's rule)."""
    _backward_name = "AminmaxBackward0"

    @staticmethod
    def forward(ctx, input, dim, keepdim):
        lo, hi = _aminmax_values(input, dim, keepdim)
        ctx.dim, ctx.keepdim = dim, keepdim
        ctx.save_for_backward(input, lo, hi)
        return lo, hi

    @staticmethod
    def backward(ctx, grad_lo, grad_hi):
        input, lo, hi = ctx.saved_tensors
        dims = tuple(range(input.ndim)) if ctx.dim is None else (ctx.dim,)
        grad = None
        for g, extreme in ((grad_lo, lo), (grad_hi, hi)):
            if g is None:
                continue
            if not ctx.keepdim and input.ndim:  # the reduced dims back, size 1
                shape = [1 if d in [k % input.ndim for k in dims] else n
                         for d, n in enumerate(input.shape)]
                g, extreme = g.reshape(shape), extreme.reshape(shape)
            tied = (input == extreme).to(g.dtype)
            share = g * tied / tied.sum(dims, keepdim=True)
            grad = share if grad is None else grad + share
        return grad, None, None


def _dim_keepdim(args, kwargs):
    """dim and keepdim out of std/var's overloads: (unbiased), (dim, unbiased,
    keepdim), (dim, *, correction, keepdim)."""
    dim, keepdim = kwargs.get("dim"), kwargs.get("keepdim", False)
    if args and not isinstance(args[0], bool):
        dim = args[0]
        if len(args) > 2:
            keepdim = args[2]
    return dim, keepdim


def _mean_like(fn, input, args, kwargs):
    if not (input.is_floating_point() or input.is_complex()):
        raise NotImplementedError(f"{fn} only support floating point and complex dtypes")
    dim, keepdim = _dim_keepdim(args, kwargs)
    if dim is None:
        dim = tuple(range(input.ndim)) if keepdim else None
    return _C.mean(input) if dim is None else _C.mean(input, dim, keepdim)


def std_mean(input, *args, **kwargs):
    """(std, mean) over the same dims; the arguments are std's."""
    _need_tensor("std_mean", "input", input)
    mean = _mean_like("std_mean", input, args, kwargs)
    return _C.std(input, *args, **kwargs), mean


def var_mean(input, *args, **kwargs):
    """(var, mean) over the same dims; the arguments are var's."""
    _need_tensor("var_mean", "input", input)
    mean = _mean_like("var_mean", input, args, kwargs)
    return _C.var(input, *args, **kwargs), mean


def _shift(x, dim, k, fill):
    """x moved k places up along dim, the first k places filled with fill."""
    n = x.shape[dim]
    shape = list(x.shape)
    shape[dim] = k
    pad = _C.full(shape, fill, dtype=x.dtype, device=x.device)
    return _C.cat([pad, x.narrow(dim, 0, n - k)], dim)


_LOGCUMSUMEXP_ACC = {_C.float32: _C.float64, _C.float16: _C.float32, _C.bfloat16: _C.float32,
                     _C.complex64: _C.complex128}


def logcumsumexp(input, dim):
    """log(cumsum(exp(x))) without overflow: a log-depth scan of logaddexp
    (Hillis-Steele), so each prefix is combined at its own scale."""
    _need_tensor("logcumsumexp", "input", input)
    if not (input.is_floating_point() or input.is_complex()):
        raise NotImplementedError(f"\"logcumsumexp_out_cpu\" not implemented for "
                                  f"'{_dtype_name(input.dtype)}'")
    if input.ndim == 0:
        return input.clone()
    n = input.shape[dim]
    # PyTorch's CPU kernel accumulates in a wider type (double for float32,
    # float for half types) and rounds each prefix once at the end
    wide = _LOGCUMSUMEXP_ACC.get(input.dtype)
    out = input if wide is None else input.to(wide)
    k = 1
    while k < n:
        out = _C.logaddexp(out, _shift(out, dim, k, -math.inf))
        k *= 2
    if wide is not None:
        return out.to(input.dtype)
    return out if n > 1 else out.clone()


def diff(input, n=1, dim=-1, prepend=None, append=None):
    """The n-th forward difference along dim (logical_xor for bool), after
    joining prepend and append on that dim."""
    _need_tensor("diff", "input", input)
    if input.ndim == 0:
        raise RuntimeError("diff expects input to be at least one-dimensional")
    if n < 0:
        raise RuntimeError(f"order must be non-negative but got {n}")
    parts = []
    for side in (prepend, input, append):
        if side is None:
            continue
        if not isinstance(side, Tensor):
            side = _C.full([], side, dtype=input.dtype, device=input.device)
        if side.ndim == 0:
            shape = list(input.shape)
            shape[dim] = 1
            side = side.expand(shape)
        parts.append(side)
    x = _C.cat(parts, dim) if len(parts) > 1 else input
    for _ in range(n):
        m = x.shape[dim]
        if m == 0:
            break
        hi, lo = x.narrow(dim, 1, m - 1), x.narrow(dim, 0, m - 1)
        x = _C.logical_xor(hi, lo) if x.dtype == _C.bool else _C.sub(hi, lo)
    return x


def isin(elements, test_elements, *, assume_unique=False, invert=False):
    """Whether each of elements is among test_elements: a binary search of the
    sorted test values (NaN is never found, as in PyTorch)."""
    if not isinstance(elements, Tensor) and not isinstance(test_elements, Tensor):
        raise TypeError("isin() received an invalid combination of arguments - got "
                        f"({type(elements).__name__}, {type(test_elements).__name__})")
    ref = elements if isinstance(elements, Tensor) else test_elements
    if not isinstance(elements, Tensor):
        elements = _C.tensor(elements, device=ref.device)
    if not isinstance(test_elements, Tensor):
        test_elements = _C.tensor(test_elements, device=ref.device)
    common = _C.result_type(elements, test_elements)
    e, t = elements.to(common), test_elements.to(common).flatten()
    if t.numel() == 0 or e.numel() == 0:
        found = _C.zeros(e.shape, dtype=_C.bool, device=e.device)
    else:
        found = _isin_table(e, t)
        if found is None:
            t = _C.sort(t).values
            idx = _C.clamp(_C.searchsorted(t, e.contiguous()), max=t.numel() - 1)
            found = _C.eq(t[idx], e)
    return _C.logical_not(found) if invert else found


def _isin_table(e, t):
    """Integers whose test values span a short range: a lookup table over the
    range (a gather per element) instead of a binary search, which costs about
    log2(len(t)) mispredicted branches per element.  None when the range is
    too wide for the table to pay (NumPy's rule: a few bytes per element)."""
    if e.is_floating_point() or e.is_complex():
        return None
    lo, hi = int(t.min()), int(t.max())
    span = hi - lo + 1
    if span > 6 * (e.numel() + t.numel()) or hi > 2 ** 63 - 1:
        return None
    table = _C.zeros(span, dtype=_C.bool, device=t.device)
    table[t.to(_C.int64) - lo] = True
    off = e.to(_C.int64) - lo
    if e.dtype == _C.uint64:  # values past int64 wrapped negative: out of the range too
        inside = (off >= 0) & (off < span) & (e <= hi)
    else:
        inside = (off >= 0) & (off < span)
    return table[off.clamp_(0, span - 1)] & inside


def dist(input, other, p=2):
    """The p-norm of input - other (broadcast)."""
    _need_tensor("dist", "input", input)
    _need_tensor("dist", "other", other, 2)
    return linalg.vector_norm(_C.sub(input, other), p)


def renorm(input, p, dim, maxnorm):
    """Each slice along dim whose p-norm exceeds maxnorm, scaled to norm
    maxnorm (by maxnorm / (norm + 1e-7), PyTorch's factor)."""
    _need_tensor("renorm", "input", input)
    if p <= 0:
        raise RuntimeError("renorm: non-positive-norm not supported")
    if maxnorm < 0:
        raise RuntimeError(f"renorm: expected maxnorm to be >= 0 but got {maxnorm}")
    if input.ndim <= 1:
        raise RuntimeError(f"renorm: input needs at least 2 dimensions, got {input.ndim} "
                           "dimensions")
    d = dim % input.ndim
    others = tuple(i for i in range(input.ndim) if i != d)
    norm = linalg.vector_norm(input, p, dim=others, keepdim=True)
    factor = _C.where(_C.gt(norm, maxnorm), _C.reciprocal(_C.add(norm, 1e-7)) * maxnorm, 1.0)
    return _C.mul(input, factor.to(input.dtype))


def cov(input, *, correction=1, fweights=None, aweights=None):
    """The covariance matrix of input's rows (variables) over its columns
    (observations), with NumPy's weighting; a 0-d result for one variable."""
    _need_tensor("cov", "input", input)
    if input.ndim > 2:
        raise RuntimeError(f"cov(): expected input to have two or fewer dimensions but got "
                           f"an input with {input.ndim} dimensions")
    x = input if input.ndim == 2 else input.reshape(1, -1)
    if not (x.is_floating_point() or x.is_complex()):
        x = x.to(_C.get_default_dtype())
    nobs = x.shape[1]
    w = None
    for name, wt in (("fweights", fweights), ("aweights", aweights)):
        if wt is None:
            continue
        if wt.ndim > 1:
            raise RuntimeError(f"cov(): expected {name} to have one or fewer dimensions but "
                               f"got {name} with {wt.ndim} dimensions")
        if wt.numel() != nobs:
            raise RuntimeError(f"cov(): expected {name} to have the same numel as there are "
                               f"observations in the input but got {wt.numel()} != {nobs}")
        if name == "fweights" and (wt.is_floating_point() or wt.is_complex()):
            raise RuntimeError("cov(): expected fweights to have integral dtype but got "
                               f"fweights with {_dtype_name(wt.dtype)} dtype")
        if name == "aweights" and not wt.is_floating_point():
            raise RuntimeError("cov(): expected aweights to have floating point dtype but got "
                               f"aweights with {_dtype_name(wt.dtype)} dtype")
        w = wt if w is None else _C.mul(w, wt)
    if w is None:
        avg = _C.mean(x, 1)
        norm = nobs - correction
    else:
        w = w.to(x.dtype) if not w.is_complex() else w
        w_sum = _C.sum(w)
        avg = _C.div(_C.sum(_C.mul(x, w), 1), w_sum)
        if correction == 0:
            norm = w_sum
        elif aweights is None:
            norm = _C.sub(w_sum, correction)
        else:
            norm = _C.sub(w_sum, _C.div(_C.sum(_C.mul(w, aweights)), w_sum), alpha=correction)
    if isinstance(norm, Tensor):
        norm = _C.clamp(norm, min=0)
    else:
        norm = max(norm, 0)
    xm = _C.sub(x, avg.unsqueeze(1))
    xw = xm if w is None else _C.mul(xm, w)
    c = _C.div(_C.matmul(xw, xm.t().conj()), norm)
    return c.squeeze() if c.shape[0] == 1 else c


def corrcoef(input):
    """The Pearson correlation matrix: cov / (std_i std_j), the real parts
    clipped to [-1, 1] as NumPy does."""
    _need_tensor("corrcoef", "input", input)
    c = cov(input)
    if c.ndim == 0:
        return _C.div(c, c)
    d = _C.sqrt(_C.diagonal(c).real if c.is_complex() else _C.diagonal(c))
    c = _C.div(_C.div(c, d.unsqueeze(1)), d.unsqueeze(0))
    if c.is_complex():
        return complex(_C.clamp(c.real, -1, 1), _C.clamp(c.imag, -1, 1))
    return _C.clamp(c, -1, 1)


# ---- 3. complex views and constructors -----------------------------------

_REAL_OF = {"complex64": "float32", "complex128": "float64", "complex32": "float16"}
_COMPLEX_OF = {v: k for k, v in _REAL_OF.items()}


def _real_view(z):
    # a dtype view is no view by itself (PyTorch): view_as_real's result is one
    return _C._as_view(z.unsqueeze(-1).view(getattr(_C, _REAL_OF[z.dtype.name])), z)


def _complex_view(r):
    return _C._as_view(r.view(getattr(_C, _COMPLEX_OF[r.dtype.name])).squeeze(-1), r)


class _ViewAsReal(Function):
    """The dtype view with its gradient viewed back (Tensor.view(dtype) is not
    differentiable, as in PyTorch; view_as_real is)."""
    _backward_name = "ViewAsRealBackward0"

    @staticmethod
    def forward(ctx, z):
        return _real_view(z)

    @staticmethod
    def backward(ctx, grad):
        return view_as_complex(grad.contiguous())  # recorded under create_graph


class _ViewAsComplex(Function):
    _backward_name = "ViewAsComplexBackward0"

    @staticmethod
    def forward(ctx, r):
        return _complex_view(r)

    @staticmethod
    def backward(ctx, grad):
        return view_as_real(grad.contiguous())


def _tracked(x):
    return x.requires_grad and _C.is_grad_enabled()


def view_as_real(input):
    """A real view of a complex tensor, its last dim (re, im): shares storage."""
    _need_tensor("view_as_real", "input", input)
    if not input.is_complex():
        raise TypeError("view_as_real is only supported for complex tensors")
    return _ViewAsReal.apply(input) if _tracked(input) else _real_view(input)


def view_as_complex(input):
    """A complex view of a real tensor whose last dim is (re, im) of stride 1."""
    _need_tensor("view_as_complex", "input", input)
    name = input.dtype.name
    if name not in _COMPLEX_OF:
        raise NotImplementedError("view_as_complex is only supported for half, float and "
                                  "double tensors, but got a tensor of scalar type: "
                                  f"{_dtype_name(input.dtype)}")
    if input.ndim == 0 or input.shape[-1] != 2:
        raise RuntimeError("Tensor must have a last dimension of size 2")
    if input.stride(-1) != 1:
        raise RuntimeError("Tensor must have a last dimension with stride 1")
    if any(s % 2 for s in input.stride()[:-1]):
        raise RuntimeError("Tensor must have a stride divisible by 2 for all but last "
                           "dimension")
    return _ViewAsComplex.apply(input) if _tracked(input) else _complex_view(input)


def complex(real, imag):
    """real + i imag, for floating real and imag of one dtype."""
    _need_tensor("complex", "real", real)
    _need_tensor("complex", "imag", imag, 2)
    if real.dtype != imag.dtype:
        raise RuntimeError(f"Expected object of scalar type {_dtype_name(real.dtype)} but got "
                           f"scalar type {_dtype_name(imag.dtype)} for second argument")
    name = real.dtype.name
    if name not in ("float32", "float64", "float16"):
        raise NotImplementedError("Expected both inputs to be Half, Float or Double tensors but got "
                           f"{_dtype_name(real.dtype)} and {_dtype_name(imag.dtype)}")
    cdt = getattr(_C, _COMPLEX_OF[name])
    return _C.add(real.to(cdt), _C.mul(imag.to(cdt), 1j))


def polar(abs, angle):
    """abs * (cos(angle) + i sin(angle))."""
    _need_tensor("polar", "abs", abs)
    _need_tensor("polar", "angle", angle, 2)
    return complex(_C.mul(abs, _C.cos(angle)), _C.mul(abs, _C.sin(angle)))


# ---- 4. integration -------------------------------------------------------

def _trapezoid_terms(y, x, dx, dim, fn):
    """The areas of the trapezoids along dim (one fewer than y's length)."""
    if y.ndim == 0:
        raise IndexError(f"Dimension specified as {dim} but tensor has no dimensions")
    if x is not None and not isinstance(x, Tensor):
        raise TypeError(f"{fn}() received an invalid combination of arguments - got (Tensor, "
                        f"{type(x).__name__}), but expected one of: (Tensor y, Tensor x, *, int "
                        "dim) or (Tensor y, *, Number dx, int dim)")
    n = y.shape[dim]
    if not (y.is_floating_point() or y.is_complex()):
        y = y.to(_C.get_default_dtype())
    if n == 0:
        return y.narrow(dim, 0, 0)
    mids = _C.add(y.narrow(dim, 1, n - 1), y.narrow(dim, 0, n - 1))
    if x is None:
        return _C.mul(mids, (1.0 if dx is None else dx) / 2)
    if isinstance(x, Tensor):
        if x.ndim == 1:
            if x.shape[0] != n:
                raise RuntimeError(f"{fn}: There must be one `x` value for each sample point")
            shape = [1] * y.ndim
            shape[dim] = n
            x = x.reshape(shape)
        dxs = diff(x, dim=dim)
        return _C.div(_C.mul(mids, dxs), 2)
    return _C.mul(mids, x / 2)


def trapezoid(y, x=None, *, dx=None, dim=-1):
    """The trapezoid rule along dim: sample spacing x (a tensor of points or a
    scalar spacing), or dx, or 1."""
    _need_tensor("trapezoid", "y", y)
    if y.ndim and y.shape[dim] == 0 and (x is None or isinstance(x, Tensor)):
        shape = list(y.shape)
        del shape[dim]
        dt = y.dtype if (y.is_floating_point() or y.is_complex()) else _C.get_default_dtype()
        return _C.zeros(shape, dtype=dt, device=y.device)
    return _C.sum(_trapezoid_terms(y, x, dx, dim, "trapezoid"), dim)


trapz = trapezoid


def cumulative_trapezoid(y, x=None, *, dx=None, dim=-1):
    """The running trapezoid integral along dim: one fewer value than y."""
    _need_tensor("cumulative_trapezoid", "y", y)
    return _C.cumsum(_trapezoid_terms(y, x, dx, dim, "cumulative_trapezoid"), dim)


# ---- window functions ------------------------------------------------------

def _window(fn, window_length, periodic, dtype, kwargs, make):
    if window_length < 0:
        raise RuntimeError(f"{fn} requires non-negative window length, got "
                           f"window_length={window_length}")
    dtype = dtype or _C.get_default_dtype()
    if not (dtype.is_floating_point if hasattr(dtype, "is_floating_point") else True):
        raise RuntimeError(f"{fn} expects floating point dtypes, got: "
                           f"{_dtype_name(dtype)}")
    return _window_values(window_length, periodic, dtype, kwargs.get("device"),
                          kwargs.get("requires_grad", False), make)


def _window_values(length, periodic, dtype, device, requires_grad, make):
    """make(n, m) -> the symmetric window of length m at the float64 points
    n = 0 .. m-1, computed for m = length (+1 when periodic, its last point
    dropped) and cast to dtype once; lengths 0 and 1 give ones.  Shared with
    torchlike.signal.windows, which checks its arguments in its own words."""
    if length <= 1:
        w = _C.ones(length, dtype=dtype, device=device)
    else:
        m = length + 1 if periodic else length
        w = make(_C.arange(m, dtype=_C.float64, device=device), m)
        if periodic:
            w = w.narrow(0, 0, length)
        w = w.to(dtype)
    if requires_grad:
        w.requires_grad_(True)
    return w


def _cosine_sum(coeffs):
    """sum_k (-1)^k a_k cos(2 pi k n / (M - 1)): hann, hamming, blackman."""
    def make(n, m):
        w = None
        for k, a in enumerate(coeffs):
            term = _C.mul(_C.cos(_C.mul(n, 2 * math.pi * k / (m - 1))), a * (-1) ** k)
            w = term if w is None else _C.add(w, term)
        return w
    return make


def hann_window(window_length, periodic=True, *, dtype=None, **kwargs):
    return _window("hann_window", window_length, periodic, dtype, kwargs,
                   _cosine_sum((0.5, 0.5)))


def hamming_window(window_length, periodic=True, alpha=0.54, beta=0.46, *, dtype=None,
                   **kwargs):
    return _window("hamming_window", window_length, periodic, dtype, kwargs,
                   _cosine_sum((alpha, beta)))


def blackman_window(window_length, periodic=True, *, dtype=None, **kwargs):
    return _window("blackman_window", window_length, periodic, dtype, kwargs,
                   _cosine_sum((0.42, 0.5, 0.08)))


def bartlett_window(window_length, periodic=True, *, dtype=None, **kwargs):
    def make(n, m):
        return 1 - _C.abs(_C.sub(_C.mul(n, 2.0 / (m - 1)), 1))
    return _window("bartlett_window", window_length, periodic, dtype, kwargs, make)


def kaiser_window(window_length, periodic=True, beta=12.0, *, dtype=None, **kwargs):
    def make(n, m):
        a = (m - 1) / 2
        r = _C.div(_C.sub(n, a), a)
        arg = _C.mul(_C.sqrt(_C.clamp(1 - _C.mul(r, r), min=0)), beta)
        return _C.div(_C.i0(arg), _C.i0(_C.tensor(beta, dtype=_C.float64, device=n.device)))
    return _window("kaiser_window", window_length, periodic, dtype, kwargs, make)


# ---- Tensor methods where PyTorch has them ---------------------------------

for _name in ("addcmul", "addcdiv", "lerp", "logit", "aminmax", "logcumsumexp", "diff",
              "dist", "renorm", "cov", "corrcoef", "is_nonzero", "mvlgamma"):
    setattr(Tensor, _name, globals()[_name])


def _inplace(fn):
    def method(self, *args, **kwargs):
        return self.copy_(fn(self, *args, **kwargs))
    method.__name__ = fn.__name__ + "_"
    return method


def _addc_inplace(fn):
    def method(self, tensor1, tensor2, *args, value=1):
        if args:
            tensor1, tensor2, value = _deprecated_value(fn.__name__ + "_", args, tensor1, tensor2)
        return self.copy_(fn(self, tensor1, tensor2, value=value))
    method.__name__ = fn.__name__ + "_"
    return method


for _name in ("lerp", "logit", "renorm", "mvlgamma"):
    setattr(Tensor, _name + "_", _inplace(globals()[_name]))
for _name in ("addcmul", "addcdiv"):
    setattr(Tensor, _name + "_", _addc_inplace(globals()[_name]))
del _name
