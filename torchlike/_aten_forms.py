"""More of ATen's functional forms at torch's top level, composed of
torchlike's ops (so gradients and devices come from those): norm_except_dim
(weight_norm's norm), native_dropout, max_pool1d_with_indices,
embedding_renorm_, hash_tensor and ormqr (with Tensor.ormqr)."""
from . import _C
from ._composites import _dtype_name, _need_tensor
from .nn import functional as F
from .nn import _pool

__all__ = ["norm_except_dim", "native_dropout", "max_pool1d_with_indices", "embedding_renorm_",
           "hash_tensor", "ormqr"]


def norm_except_dim(v, pow=2, dim=0):
    """The pow-norm of v over every dim but ``dim``, kept as size-1 dims
    (v's shape with only dim's size left); dim=-1 is the norm of all of v."""
    _need_tensor("norm_except_dim", "v", v, 1)
    if dim == -1:
        return v.norm(pow)
    v.size(dim)  # PyTorch's IndexError for a dim out of range
    dim %= v.ndim
    others = [d for d in range(v.ndim) if d != dim]
    return v.norm(pow, others, keepdim=True) if others else v.abs()


def native_dropout(input, p, train):
    """(output, mask): dropout's result and the bool mask of the kept
    elements; with train False (or p 0) the input and an all-True mask.
    train=None counts as True, as in PyTorch."""
    _need_tensor("native_dropout", "input", input, 1)
    if train is not None and not train or p == 0:
        return input.clone(), _C.ones_like(input, dtype=_C.bool)
    if not input.is_floating_point():
        raise RuntimeError(f"result type Float can't be cast to the desired output type "
                           f"{_dtype_name(input.dtype)}")
    if not 0 <= 1 - p <= 1:
        raise RuntimeError(f"bernoulli_ expects p to be in [0, 1], but got p={1 - p:g}")
    if p == 1:
        return _C.zeros_like(input), _C.zeros_like(input, dtype=_C.bool)
    mask = _C.empty_like(input).bernoulli_(1 - p).to(_C.bool)
    return input * mask * (1.0 / (1 - p)), mask


def max_pool1d_with_indices(input, kernel_size, stride=(), padding=0, dilation=1,
                            ceil_mode=False):
    """max_pool1d's values and the positions of the maxima along L."""
    return _pool.max_pool1d(input, kernel_size, stride or None, padding, dilation, ceil_mode,
                            return_indices=True)


def embedding_renorm_(input, indices, max_norm, norm_type):
    """Rescale, in place, the rows of ``input`` that ``indices`` picks whose
    norm_type-norm exceeds max_norm to norm max_norm / (norm + 1e-7) * norm;
    returns input."""
    _need_tensor("embedding_renorm_", "input", input, 1)
    _need_tensor("embedding_renorm_", "indices", indices, 2)
    F._embedding_renorm_(input, indices, max_norm, norm_type)
    return input


def hash_tensor(input, dim=None, *, keepdim=False, mode=0):
    """The xor of the 64-bit patterns of input's elements (floats widened to
    float64, integers and bools to int64), over ``dim`` (all dims if None),
    as uint64.  Halves are xor'ed together until one element is left, so it
    runs on any device the bitwise ops do."""
    _need_tensor("hash_tensor", "input", input, 1)
    if mode != 0:
        raise RuntimeError(f"Unknown hash_tensor mode: {mode}")
    if input.is_complex() or input.dtype in (_C.uint64, _C.uint32, _C.uint16):
        raise NotImplementedError(f"\"xor_sum_cpu\" not implemented for "
                                  f"'{_dtype_name(input.dtype)}'")
    if dim is None and input.numel() == 0:
        raise RuntimeError("hash_tensor: Expected reduction dim to be specified for "
                           "input.numel() == 0. Specify the reduction dim with the 'dim' "
                           "argument.")
    dims = list(range(input.ndim)) if dim is None or dim == () or dim == [] else \
        [dim] if isinstance(dim, int) else list(dim)
    for d in dims:
        if input.size(d) == 0:  # also PyTorch's IndexError for a dim out of range
            raise IndexError(f"hash_tensor: Expected reduction dim {d} to have non-zero size.")
    dims = sorted({d % max(input.ndim, 1) for d in dims}) if input.ndim else []
    wide = _C.float64 if input.is_floating_point() else _C.int64
    bits = input.detach().to(wide).view(_C.int64)
    keep = [d for d in range(input.ndim) if d not in dims]
    kept_shape = [input.shape[d] for d in keep]
    bits = bits.permute(*keep, *dims).reshape(*kept_shape, -1)
    while bits.shape[-1] > 1:  # fold the halves: xor is associative and commutative
        n = bits.shape[-1]
        half = n // 2
        folded = _C.bitwise_xor(bits.narrow(-1, 0, half), bits.narrow(-1, half, half))
        bits = _C.cat([folded, bits.narrow(-1, n - 1, 1)], -1) if n % 2 else folded
    result = bits.reshape(kept_shape).view(_C.uint64)
    if keepdim:
        for d in dims:
            result = result.unsqueeze(d)
    return result


def ormqr(input, tau, other, left=True, transpose=False, *, out=None):
    """other multiplied by the Q of a QR factorization kept as geqrf's
    Householder vectors (``input``, ``tau``): Q @ other (left) or other @ Q,
    with Q's conjugate transpose under ``transpose``.  Q is m x m for input's
    m rows; differentiable through householder_product."""
    for position, (name, t) in enumerate((("input", input), ("tau", tau), ("other", other)), 1):
        _need_tensor("ormqr", name, t, position)
    if input.ndim < 2:
        raise RuntimeError("torch.ormqr: input must have at least 2 dimensions.")
    if other.ndim != input.ndim:
        raise RuntimeError(f"torch.ormqr: Expected other to have the same number of dimensions as "
                           f"input, but got other.ndim equal to {other.ndim} and input.ndim is "
                           f"equal to {input.ndim}")
    m = input.shape[-2]
    side = other.shape[-2] if left else other.shape[-1]
    if tau.ndim != input.ndim - 1 or tau.shape[-1] != min(side, input.shape[-1]):
        raise RuntimeError(f"torch.ormqr: tau.shape[-1] must be equal to min(other.shape"
                           f"[{-2 if left else -1}], input.shape[-1])")
    if side != m:
        raise RuntimeError(f"torch.ormqr: other.shape[{-2 if left else -1}] must be equal to "
                           f"input.shape[-2]")
    for name, batch in (("tau", tau.shape[:-1]), ("other", other.shape[:-2])):
        if batch != input.shape[:-2]:
            raise RuntimeError(f"torch.ormqr: Expected batch dimensions of {name} to be equal to "
                               f"input.shape[:-2], but got {list(batch)}")
    for name, t in (("other", other), ("tau", tau)):
        if t.dtype != input.dtype:
            raise RuntimeError(f"torch.ormqr: Expected input and {name} to have the same dtype, "
                               f"but input has dtype{_dtype_name(input.dtype)} and {name} has "
                               f"dtype {_dtype_name(t.dtype)}")
    # Q's reflectors padded to m columns (a zero tau reflects nothing): the full m x m Q
    k = tau.shape[-1]
    vectors = input.narrow(-1, 0, min(m, input.shape[-1]))
    if vectors.shape[-1] < m:
        pad = _C.zeros(*vectors.shape[:-1], m - vectors.shape[-1], dtype=input.dtype,
                       device=input.device)
        vectors = _C.cat([vectors, pad], -1)
    if k < m:
        tau = _C.cat([tau, _C.zeros(*tau.shape[:-1], m - k, dtype=tau.dtype, device=tau.device)],
                     -1)
    from .linalg import householder_product
    q = householder_product(vectors, tau)
    if transpose:
        q = q.mH
    result = q @ other if left else other @ q
    if out is not None:
        out.resize_(result.shape).copy_(result)
        return out
    return result


def _tensor_ormqr(self, input2, input3, left=True, transpose=False):
    return ormqr(self, input2, input3, left, transpose)


_C.Tensor.ormqr = _tensor_ormqr
