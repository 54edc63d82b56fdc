"""torch.masked's reductions and normalisations over plain tensors and a mask.

Every function takes ``(input, dim, *, keepdim, dtype, mask)``: elements
where the mask (broadcast to ``input``'s shape) is False are replaced by the
reduction's identity (0 for sums and norms, 1 for products, the lowest value
for maxima, the highest for minima, NaN for medians) and the ordinary
reduction runs on the result.  A slice with no element left therefore gives
the identity (``sum`` 0, ``amax`` -inf), or NaN where the identity divides
by a count of zero (``mean``, ``var``).  All of it is written with
differentiable ops (``where`` and the reductions), so gradients flow to the
unmasked elements and are zero on the masked-out ones.

``input`` may be a MaskedTensor: its data and mask are used, and the result
is a plain tensor, as PyTorch's functions give."""
import math

from .. import _C
from .._dtype_info import iinfo

_INF = float("inf")


def _is_float(dtype):
    return dtype.is_floating_point


def _is_complex(dtype):
    return dtype.is_complex


def _data_and_mask(input, mask):
    """The plain data of input (a MaskedTensor's, on the tape) and its mask:
    a MaskedTensor's own mask where none is given."""
    from .maskedtensor import MaskedTensor
    if isinstance(input, MaskedTensor):
        if mask is None:
            mask = input._masked_mask
        input = input._masked_data()
    return input, mask


def _input_mask(input, mask):
    """The mask as a bool tensor of input's shape (all True when None)."""
    if mask is None:
        return _C.ones(input.shape, dtype=_C.bool, device=input.device)
    if type(mask) is not _C.Tensor:
        from .maskedtensor import _plain
        mask = _plain(mask)
    if mask.ndim > input.ndim:
        raise IndexError("_input_mask expected broadcastable mask (got mask dimensionality "
                         "higher than of the input)")
    if mask.dtype != _C.bool:
        mask = mask.to(_C.bool)
    if tuple(mask.shape) != tuple(input.shape):
        mask = mask.expand(input.shape)
    return mask


def _dims(dim):
    """dim (None, an int or a sequence of them) as a tuple of dims, or None for all."""
    if dim is None:
        return None
    if isinstance(dim, int):
        return (dim,)
    return tuple(dim)


def _fill(input, mask, value):
    """input where mask holds, value elsewhere, in input's dtype."""
    fill = _C.full((), value, dtype=input.dtype, device=input.device)
    return _C.where(mask, input, fill)


def _reduce(op, x, dim, keepdim, **kw):
    """op over dims (all when None); a 0-d x reduces to itself."""
    dims = _dims(dim)
    if dims is None:
        dims = tuple(range(x.ndim))
    if not dims:
        return op(x, **kw)
    return op(x, dims, keepdim=keepdim, **kw)


def _identity(name, dtype):
    """The value a masked-out element takes for reduction `name` on dtype."""
    if name in ("sum", "cumsum", "norm"):
        return 0
    if name in ("prod", "cumprod"):
        return 1
    if name in ("amax", "argmax", "logsumexp"):
        if dtype == _C.bool:
            raise NotImplementedError(f"identity of {name} on {dtype} input")
        if _is_float(dtype):
            return -_INF
        return iinfo(dtype).min
    if name in ("amin", "argmin"):
        if dtype == _C.bool:
            raise NotImplementedError(f"identity of {name} on {dtype} input")
        if _is_float(dtype):
            return _INF
        return iinfo(dtype).max
    raise NotImplementedError(name)


def _identity_checked(name, dtype):
    if _is_complex(dtype) and name not in ("sum", "prod", "cumsum", "cumprod", "norm"):
        raise TypeError(f"iinfo() requires an integer input type, got {dtype}; "
                        "complex values have no order for masked " + name)
    return _identity(name, dtype)


def _sum_dtype(input, dtype):
    """torch.sum's result dtype: integers and bools sum to int64."""
    if dtype is not None:
        return dtype
    if _is_float(input.dtype) or _is_complex(input.dtype):
        return input.dtype
    return _C.int64


# ---- reductions ----------------------------------------------------------------------------

def sum(input, dim=None, *, keepdim=False, dtype=None, mask=None):
    """Sum of the unmasked elements over dim (all dims when None); 0 where
    none is left.  Integers and bools sum to int64 unless dtype is given."""
    input, mask = _data_and_mask(input, mask)
    m = _input_mask(input, mask)
    x = _fill(input, m, 0)
    return _reduce(_C.sum, x, dim, keepdim, dtype=_sum_dtype(input, dtype))


def prod(input, dim=None, *, keepdim=False, dtype=None, mask=None):
    """Product of the unmasked elements; 1 where none is left."""
    input, mask = _data_and_mask(input, mask)
    m = _input_mask(input, mask)
    x = _fill(input, m, 1)
    out_dtype = _sum_dtype(input, dtype)
    if x.ndim == 0:
        return x.to(out_dtype)
    dims = _dims(dim)
    for d in dims or ():
        if not -x.ndim <= d < x.ndim:
            raise IndexError(f"Dimension out of range (expected to be in range of "
                             f"[{-x.ndim}, {x.ndim - 1}], but got {d})")
    dims = sorted({d % x.ndim for d in (range(x.ndim) if dims is None else dims)})
    # the op takes one dim at a time: reduce each, keeping dims, then drop them
    for d in dims:
        x = _C.prod(x, d, keepdim=True, dtype=out_dtype)
    if not keepdim:
        x = x.reshape([s for i, s in enumerate(x.shape) if i not in dims])
    return x


def _scan(op, identity, input, dim, dtype, mask):
    input, mask = _data_and_mask(input, mask)
    m = _input_mask(input, mask)
    out_dtype = dtype or input.dtype
    return op(_fill(input, m, identity), dim, dtype=out_dtype)


def cumsum(input, dim, *, dtype=None, mask=None):
    """Running sum along dim, masked-out elements counting as 0."""
    return _scan(_C.cumsum, 0, input, dim, dtype, mask)


def cumprod(input, dim, *, dtype=None, mask=None):
    """Running product along dim, masked-out elements counting as 1."""
    return _scan(_C.cumprod, 1, input, dim, dtype, mask)


def _extreme(name, op, input, dim, keepdim, dtype, mask):
    input, mask = _data_and_mask(input, mask)
    m = _input_mask(input, mask)
    x = _fill(input, m, _identity_checked(name, input.dtype))
    out = _reduce(op, x, dim, keepdim)
    return out.to(dtype or input.dtype)


def amax(input, dim=None, *, keepdim=False, dtype=None, mask=None):
    """Largest unmasked element; -inf (the dtype's least integer) where none is left."""
    return _extreme("amax", _C.amax, input, dim, keepdim, dtype, mask)


def amin(input, dim=None, *, keepdim=False, dtype=None, mask=None):
    """Smallest unmasked element; inf (the dtype's greatest integer) where none is left."""
    return _extreme("amin", _C.amin, input, dim, keepdim, dtype, mask)


def _arg(name, op, input, dim, keepdim, dtype, mask):
    input, mask = _data_and_mask(input, mask)
    if dim is not None and not isinstance(dim, int):
        raise TypeError(f"{name}(): argument 'dim' (position 2) must be int, not "
                        f"{type(dim).__name__}")
    m = _input_mask(input, mask)
    x = _fill(input, m, _identity_checked(name, input.dtype))
    out = op(x, dim, keepdim=keepdim) if dim is not None else op(x)
    # PyTorch's masked argmax gives its indices in input's dtype unless told
    return out.to(dtype or input.dtype)


def argmax(input, dim=None, *, keepdim=False, dtype=None, mask=None):
    """Index of the largest unmasked element (0 where none is left), in
    input's dtype unless dtype is given (as PyTorch's masked argmax)."""
    return _arg("argmax", _C.argmax, input, dim, keepdim, dtype, mask)


def argmin(input, dim=None, *, keepdim=False, dtype=None, mask=None):
    """Index of the smallest unmasked element, as argmax."""
    return _arg("argmin", _C.argmin, input, dim, keepdim, dtype, mask)


def _float_dtype(name, input, dtype):
    """mean's dtype rule: the given or input dtype, which must be floating or complex."""
    if dtype is None:
        if not (_is_float(input.dtype) or _is_complex(input.dtype)):
            raise ValueError(f"{name}(): Could not infer output dtype. Input dtype must be "
                             f"either a floating point or complex dtype. Got: {input.dtype}")
        return input.dtype
    if not (_is_float(dtype) or _is_complex(dtype)):
        raise ValueError(f"{name}(): Could not infer output dtype. Optional dtype must be "
                         f"either a floating point or complex dtype. Got: {dtype}")
    return dtype


def _count(m, dim, keepdim, dtype):
    return _reduce(_C.sum, m, dim, keepdim, dtype=dtype)


def mean(input, dim=None, *, keepdim=False, dtype=None, mask=None):
    """Mean of the unmasked elements; NaN where none is left."""
    input, mask = _data_and_mask(input, mask)
    out_dtype = _float_dtype("mean", input, dtype)
    m = _input_mask(input, mask)
    total = _reduce(_C.sum, _fill(input, m, 0), dim, keepdim, dtype=out_dtype)
    return _C.div(total, _count(m, dim, keepdim, out_dtype))


def median(input, dim=-1, *, keepdim=False, dtype=None, mask=None):
    """Median of the unmasked elements along one dim (the lower of the two
    middle values for an even count); NaN where none is left, which only a
    floating input can hold.  The result has input's dtype."""
    input, mask = _data_and_mask(input, mask)
    m = _input_mask(input, mask)
    if not _is_float(input.dtype):
        if not bool(_C.all(_C.any(m, dim))):
            raise ValueError("masked median expects no fully masked out rows if dtype is "
                             "not floating point")
        work = input.to(_C.float64)
    else:
        work = input
    x = _fill(work, m, math.nan)
    return _C.nanmedian(x, dim, keepdim=keepdim)[0].to(input.dtype)


def logsumexp(input, dim=None, *, keepdim=False, dtype=None, mask=None):
    """log(sum(exp)) of the unmasked elements; -inf where none is left."""
    input, mask = _data_and_mask(input, mask)
    m = _input_mask(input, mask)
    x = _fill(input, m, _identity_checked("logsumexp", input.dtype))
    if x.ndim == 0:
        out = _C.logsumexp(x.reshape(1), 0).reshape(())
    else:
        out = _reduce(_C.logsumexp, x, dim, keepdim)
    return out.to(dtype or input.dtype)


def norm(input, ord=2.0, dim=None, *, keepdim=False, dtype=None, mask=None):
    """The vector ord-norm of the unmasked elements (masked-out ones count
    as 0, or inf for ord=-inf)."""
    input, mask = _data_and_mask(input, mask)
    if not (_is_float(input.dtype) or _is_complex(input.dtype)):
        raise NotImplementedError("linalg.vector_norm: Expected a floating point or complex "
                                  f"tensor as input. Got {input.dtype}")
    m = _input_mask(input, mask)
    ord = 2.0 if ord is None else ord
    x = _fill(input, m, _INF if ord == -_INF else 0)
    from ..linalg import vector_norm
    dims = _dims(dim)
    return vector_norm(x, ord, dims, keepdim=keepdim, dtype=dtype)


def var(input, dim=None, unbiased=None, *, correction=None, keepdim=False, dtype=None,
        mask=None):
    """Variance of the unmasked elements: sum |x - mean|^2 over
    (count - correction), correction 1 unless unbiased=False (0) or given;
    NaN where no element is left, inf where count <= correction.  Integer
    inputs compute in the default float dtype; complex ones keep a complex
    dtype with a zero imaginary part (as PyTorch's)."""
    input, mask = _data_and_mask(input, mask)
    if unbiased is not None and correction is not None:
        raise AssertionError("Only one of unbiased and correction may be given")
    if correction is None:
        correction = 0 if unbiased is False else 1
    if dtype is None:
        dtype = input.dtype
        if not (_is_float(dtype) or _is_complex(dtype)):
            dtype = _C.get_default_dtype()
    m = _input_mask(input, mask)
    x = input.to(dtype)
    count_dtype = {_C.complex64: _C.float32, _C.complex128: _C.float64}.get(dtype, dtype)
    count = _count(m, dim, True, count_dtype)
    centre = _C.div(_reduce(_C.sum, _fill(x, m, 0), dim, True), count)
    dev = _fill(x - centre, m, 0)
    sq = (dev * dev.conj()) if _is_complex(dtype) else dev * dev
    total = _reduce(_C.sum, sq, dim, keepdim)
    if not keepdim:
        count = _count(m, dim, False, count_dtype)
    denom = _C.clamp(count - correction, min=0)
    return _C.div(total, denom)


def std(input, dim=None, unbiased=None, *, correction=None, keepdim=False, dtype=None,
        mask=None):
    """The square root of var (same arguments)."""
    return _C.sqrt(var(input, dim, unbiased, correction=correction, keepdim=keepdim,
                       dtype=dtype, mask=mask))


def logaddexp(input, other, *, dtype=None, input_mask=None, other_mask=None):
    """log(exp(input) + exp(other)) with the masked-out elements of each
    operand counting as -inf (the dtype's least integer): an element masked
    out in both gives that identity."""
    input, input_mask = _data_and_mask(input, input_mask)
    other, other_mask = _data_and_mask(other, other_mask)
    x = _fill(input, _input_mask(input, input_mask), _identity_checked("amax", input.dtype))
    y = _fill(other, _input_mask(other, other_mask), _identity_checked("amax", other.dtype))
    return _C.logaddexp(x, y).to(dtype or input.dtype)


# ---- normalisations ------------------------------------------------------------------------

def _softmax_like(name, op, fill, input, dim, dtype, mask):
    input, mask = _data_and_mask(input, mask)
    if not (_is_float(input.dtype) or _is_complex(input.dtype)) and dtype is None:
        raise NotImplementedError(f'"{name}" not implemented for {input.dtype}')
    m = _input_mask(input, mask)
    x = _fill(input, m, fill)
    return op(x, dim, dtype=dtype)


def softmax(input, dim, *, dtype=None, mask=None):
    """softmax over the unmasked elements along dim: 0 at masked-out ones,
    NaN along a slice with none left."""
    return _softmax_like("softmax", _C.softmax, -_INF, input, dim, dtype, mask)


def log_softmax(input, dim, *, dtype=None, mask=None):
    """log_softmax over the unmasked elements: -inf at masked-out ones."""
    return _softmax_like("log_softmax", _C.log_softmax, -_INF, input, dim, dtype, mask)


def softmin(input, dim, *, dtype=None, mask=None):
    """softmin (softmax of -input) over the unmasked elements."""
    from ..nn import functional as F
    return _softmax_like("softmin", F.softmin, _INF, input, dim, dtype, mask)


def normalize(input, ord, dim, *, eps=1e-12, dtype=None, mask=None):
    """input over its masked ord-norm along dim (at least eps); 0 at
    masked-out elements."""
    input, mask = _data_and_mask(input, mask)
    nrm = norm(input, ord, dim, keepdim=True, dtype=dtype, mask=mask)
    m = _input_mask(input, mask)
    x = _fill(input, m, 0)
    if dtype is not None:
        x = x.to(dtype)
    return _C.div(x, _C.clamp(nrm, min=eps))
