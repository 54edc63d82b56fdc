"""More of PyTorch's top-level functions composed of registry ops:
torch.combinations, torch.unravel_index,
torch.gradient and torch.index_reduce (with Tensor.index_reduce and
index_reduce_), with PyTorch's checks and messages.

As in _composites.py, each is written with ops that carry autograd and run
on every device; the index arithmetic that depends only on shapes
(combinations' index lists) is made on the host and moved once, and no
tensor data is read on the host except index_reduce's range check on the
CPU, where PyTorch makes it too."""
import itertools
import math
import warnings
from collections.abc import Sequence

from . import _C
from ._composites import _dtype_name, _need_tensor, _inplace

__all__ = ["combinations", "unravel_index", "gradient", "index_reduce", "_assert"]

Tensor = _C.Tensor


# ---- _assert ---------------------------------------------------------------------

def _assert(condition, message):
    """``assert condition, message`` that symbolic tracing can record: a traced
    (``__torch_function__``) condition hands the call over instead of being
    tested."""
    from .overrides import has_torch_function, handle_torch_function
    if type(condition) is not Tensor and has_torch_function((condition,)):
        return handle_torch_function(_assert, (condition,), condition, message)
    assert condition, message


# ---- combinations ---------------------------------------------------------------

def combinations(input, r=2, with_replacement=False):
    """The length-r combinations of a 1-d input's elements, as rows in
    lexicographic order of positions (itertools' order): (C, r), or an empty
    (0,) tensor for r = 0."""
    _need_tensor("combinations", "input", input)
    if input.ndim != 1:
        raise RuntimeError(f"Expect a 1D vector, but got shape {list(input.shape)}")
    if r < 0:
        raise RuntimeError(f"Expect a non-negative number, but got {r}")
    if r == 0:
        return _C.empty(0, dtype=input.dtype, device=input.device)
    pick = itertools.combinations_with_replacement if with_replacement else \
        itertools.combinations
    rows = list(pick(range(input.shape[0]), r))       # positions only: no data read
    idx = _C.tensor(rows, dtype=_C.int64, device=input.device).reshape(len(rows), r)
    return input[idx]


# ---- unravel_index ----------------------------------------------------------------

def unravel_index(indices, shape):
    """Flat indices into coordinates of an array of `shape`: a tuple of int64
    tensors shaped like indices, one per dim (indices wrap, with floor
    division, as PyTorch's)."""
    if not isinstance(indices, Tensor):
        raise AttributeError(f"'{type(indices).__name__}' object has no attribute 'is_complex'")
    if indices.is_complex() or indices.is_floating_point() or indices.dtype == _C.bool:
        raise TypeError(f"expected 'indices' to be integer dtype, but got "
                        f"{str(indices.dtype).replace('torchlike.', 'torch.')}")
    if isinstance(shape, int) and not isinstance(shape, bool):
        shape = (shape,)
    elif isinstance(shape, Sequence):
        for d in shape:
            if not isinstance(d, int):
                raise TypeError(f"expected 'shape' sequence to only contain ints, but got "
                                f"{type(d)}")
        shape = tuple(shape)
    else:
        raise TypeError(f"expected 'shape' to be int or sequence of ints, but got "
                        f"{type(shape)}")
    if any(d < 0 for d in shape):
        raise ValueError(f"'shape' cannot have negative values, but got {shape}")
    if any(d == 0 for d in shape) and indices.numel():
        raise ValueError(f"'shape' cannot have zero dimensions when 'indices' is non-empty, "
                         f"but got {shape}")
    out = []
    stride = math.prod(shape)
    for d in shape:  # row-major: the coordinate of dim i is (index // stride_i) mod d
        stride //= max(d, 1)   # (a zero-size dim only with no indices: any divisor will do)
        out.append(_C.remainder(_C.floor_divide(indices.to(_C.int64), max(stride, 1)),
                                max(d, 1)))
    return tuple(out)


# ---- gradient ------------------------------------------------------------------------

def _slice(t, dim, start, stop=None):
    """t[start:stop] along dim, Python's negative indices."""
    n = t.shape[dim]
    start = start + n if start < 0 else start
    stop = n if stop is None else (stop + n if stop < 0 else stop)
    return t.narrow(dim, start, max(stop - start, 0))


def _grad_uniform(f, dim, h, edge_order):
    """Second-order central differences inside, one-sided at the ends, for a
    uniform spacing h (PyTorch's order of operations, for its rounding)."""
    center = _C.div(_C.div(_C.sub(_slice(f, dim, 2), _slice(f, dim, 0, -2)), h), 2)
    if edge_order == 1:
        first = _C.div(_C.sub(_slice(f, dim, 1, 2), _slice(f, dim, 0, 1)), h)
        last = _C.div(_C.sub(_slice(f, dim, -1), _slice(f, dim, -2, -1)), h)
    else:
        first = _C.div(_C.sub(_C.add(_C.mul(_slice(f, dim, 0, 1), -1.5),
                                     _C.mul(_slice(f, dim, 1, 2), 2)),
                              _C.mul(_slice(f, dim, 2, 3), 0.5)), h)
        last = _C.div(_C.add(_C.add(_C.mul(_slice(f, dim, -3, -2), 0.5),
                                    _C.mul(_slice(f, dim, -2, -1), -2)),
                             _C.mul(_slice(f, dim, -1), 1.5)), h)
    return _C.cat([first, center, last], dim)


def _three_point(f, dim, s0, s1, s2, a, b, c):
    """a * f[s0] + b * f[s1] + c * f[s2] along dim (slices as (start, stop))."""
    return _C.add(_C.add(_C.mul(a, _slice(f, dim, *s0)), _C.mul(b, _slice(f, dim, *s1))),
                  _C.mul(c, _slice(f, dim, *s2)))


def _grad_coordinates(f, dim, x, edge_order):
    """The same on sample coordinates x (1-d): the second-order formula for
    unequal steps dx1, dx2 inside, one-sided at the ends."""
    if x.ndim != 1:
        raise RuntimeError("torch.gradient expected each element of spacing to have one "
                           f"dimension, but got an element with {x.ndim} dimensions!")
    shape = [1] * f.ndim
    shape[dim] = -1
    dx = _C.sub(x[1:], x[:-1])
    dx1, dx2 = dx[:-1], dx[1:]
    a = _C.div(_C.neg(dx2), _C.mul(dx1, _C.add(dx1, dx2))).reshape(shape)
    b = _C.div(_C.sub(dx2, dx1), _C.mul(dx1, dx2)).reshape(shape)
    c = _C.div(dx1, _C.mul(dx2, _C.add(dx1, dx2))).reshape(shape)
    center = _three_point(f, dim, (0, -2), (1, -1), (2, None), a, b, c)
    if edge_order == 1:
        first = _C.div(_C.sub(_slice(f, dim, 1, 2), _slice(f, dim, 0, 1)), dx[0])
        last = _C.div(_C.sub(_slice(f, dim, -1), _slice(f, dim, -2, -1)), dx[-1])
    else:
        h0, h1 = dx[0], dx[1]
        s = _C.add(h0, h1)
        first = _three_point(f, dim, (0, 1), (1, 2), (2, 3),
                             _C.div(_C.neg(_C.add(_C.mul(h0, 2.0), h1)), _C.mul(h0, s)),
                             _C.div(s, _C.mul(h0, h1)),
                             _C.div(_C.neg(h0), _C.mul(h1, s)))
        g0, g1 = dx[-1], dx[-2]
        s = _C.add(g0, g1)
        last = _three_point(f, dim, (-3, -2), (-2, -1), (-1, None),
                            _C.div(g0, _C.mul(g1, s)),
                            _C.div(_C.neg(s), _C.mul(g0, g1)),
                            _C.div(_C.add(_C.mul(g0, 2), g1), _C.mul(g0, s)))
    return _C.cat([first, center, last], dim)


def gradient(input, *, spacing=1, dim=None, edge_order=1):
    """The derivative of the samples in input along each of dims, by second-
    order central differences (first- or second-order at the ends): a tuple
    of tensors, one per dim.  spacing: a scalar, one scalar per dim, or one
    1-d tensor of sample coordinates per dim."""
    _need_tensor("gradient", "input", input)
    if isinstance(spacing, Tensor):
        raise TypeError("gradient() received an invalid combination of arguments - got "
                        "(Tensor, spacing=Tensor), but expected one of:\n"
                        " * (Tensor input, *, tuple of ints dim, int edge_order = 1)\n"
                        " * (Tensor input, *, Number spacing, tuple of ints dim, int edge_order "
                        "= 1)\n * (Tensor input, *, Number spacing = None, int dim = None, int "
                        "edge_order = 1)")
    if input.dtype == _C.uint8:
        raise RuntimeError("torch.gradient does not support uint8 input.")
    if input.dtype == _C.bool:
        raise NotImplementedError("Subtraction, the `-` operator, with two bool tensors is not "
                                  "supported. Use the `^` or `logical_xor()` operator instead.")
    given_dim = dim is not None
    dims = list(range(input.ndim)) if dim is None else \
        ([dim] if isinstance(dim, int) else list(dim))
    if spacing is None:
        spacing = 1
    if isinstance(spacing, (list, tuple)):
        spacings = list(spacing)
        if not given_dim and len(spacings) != input.ndim:
            raise RuntimeError("torch.gradient expected spacing to be unspecified, a scalar, "
                               "or a list of length equal to 'self.dim() = "
                               f"{input.ndim}', since dim argument was not given, but got a "
                               f"list of length {len(spacings)}")
        if given_dim and len(spacings) != len(dims):
            raise RuntimeError("torch.gradient expected spacing to be unspecified, a scalar or "
                               "it's spacing and dim arguments to have the same length, but got "
                               f"a spacing argument of length {len(spacings)} and a dim "
                               f"argument of length {len(dims)}.")
    else:
        spacings = [spacing] * len(dims)
    if edge_order not in (1, 2):
        raise RuntimeError("torch.gradient only supports edge_order=1 and edge_order=2.")
    wrapped = []
    for d in dims:
        if not -max(input.ndim, 1) <= d < max(input.ndim, 1):
            raise IndexError(f"Dimension out of range (expected to be in range of "
                             f"[{-max(input.ndim, 1)}, {max(input.ndim, 1) - 1}], but got {d})")
        d %= max(input.ndim, 1)
        if d in wrapped:
            raise RuntimeError(f"dim {d} appears multiple times in the list of dims")
        wrapped.append(d)
    for d in wrapped:
        if input.shape[d] < edge_order + 1:
            raise RuntimeError("torch.gradient expected each dimension size to be at least "
                               "edge_order+1")
    out = []
    for d, h in zip(wrapped, spacings):
        if isinstance(h, Tensor):
            out.append(_grad_coordinates(input, d, h, edge_order))
        else:
            out.append(_grad_uniform(input, d, h, edge_order))
    return tuple(out)


# ---- index_reduce --------------------------------------------------------------------

_INDEX_REDUCTIONS = ("prod", "mean", "amax", "amin")
_index_reduce_warned = False   # PyTorch's beta notice comes once per process


def index_reduce(input, dim, index, source, reduce, *, include_self=True):
    """input with source's slices reduced into the slices index names along
    dim (prod, mean, amax or amin; input's own values join unless
    include_self=False): scatter_reduce with index spread over source."""
    _need_tensor("index_reduce", "input", input)
    if reduce not in _INDEX_REDUCTIONS:
        raise RuntimeError("index_reduce(): Expected reduce to be one of prod, mean, amax or "
                           f"amin but got {reduce}.")
    nd = max(input.ndim, 1)
    if not -nd <= dim < nd:
        raise IndexError(f"Dimension out of range (expected to be in range of [{-nd}, "
                         f"{nd - 1}], but got {dim})")
    dim %= nd
    if index.dtype not in (_C.int32, _C.int64):
        raise RuntimeError(f"index_reduce_(): Expected dtype int32/int64 for index but got: "
                           f"{_dtype_name(index.dtype)}")
    if index.ndim > 1:
        raise IndexError(f"index_reduce_(): Index is supposed to be a vector, but got dim: "
                         f"{index.ndim} with type: {_dtype_name(index.dtype)} and size: "
                         f"{list(index.shape)}")
    if input.dtype != source.dtype:
        raise RuntimeError(f"index_reduce_(): self ({_dtype_name(input.dtype)}) and source "
                           f"({_dtype_name(source.dtype)}) must have the same scalar type")
    self_shape, src_shape = list(input.shape), list(source.shape)
    x = input if input.ndim else input.reshape(1)
    src = source if source.ndim else source.reshape(1)
    if source.ndim != input.ndim or any(a != b for i, (a, b) in enumerate(zip(x.shape, src.shape))
                                 if i != dim):
        raise RuntimeError("source tensor shape must match self tensor shape, excluding the "
                           f"specified dimension. Got self.shape = {self_shape} source.shape = "
                           f"{src_shape}")
    if index.numel() != src.shape[dim]:
        raise RuntimeError(f"index_reduce_(): Number of indices ({index.numel()}) should be "
                           f"equal to source.size(dim): ({src.shape[dim]}), for dim: {dim}")
    if index.device.type == "cpu" and index.numel() and (
            bool(_C.lt(index, 0).any()) or bool(_C.ge(index, x.shape[dim]).any())):
        raise IndexError("index out of range in self")
    if index.device.type != "cpu":
        # No host sync on a device: the scatter's kernel finds a bad index (as
        # PyTorch's CUDA kernel asserts).  A negative one, which torchlike's
        # scatters wrap, is moved past the end so that it is found too.
        index = _C.where(_C.lt(index, 0), x.shape[dim], index)
    global _index_reduce_warned
    if not _index_reduce_warned:
        _index_reduce_warned = True
        warnings.warn("index_reduce() is in beta and the API may change at any time.",
                      stacklevel=2)
    shape = [1] * src.ndim
    shape[dim] = -1
    spread = index.to(_C.int64).reshape(shape).expand(list(src.shape))
    out = x.scatter_reduce(dim, spread, src, reduce, include_self=include_self)
    return out.reshape(self_shape)


Tensor.index_reduce = index_reduce
Tensor.index_reduce_ = _inplace(index_reduce)
