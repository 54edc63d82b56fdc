"""NumPy shape functions over tensors: reshape, transpose, concatenate, stack,
split, tile, repeat, flip, roll, pad, broadcasting, where, take ...

Each is registered for ``Tensor.__array_function__`` and is also the
``torchlike.numpy`` function of that name.  All call torchlike ops, so they are
recorded on the autograd tape."""

import contextlib
import functools
import math
import operator

import numpy as np

from .. import _C
from .._array_function import (
    implements, Unsupported, as_tensor, norm_axis, norm_axes, all_axes, finish, cast,
    operand, NoValue, promote, reversed_dims, tl_dtype, np_dtype, CASTINGS, can_cast_dtypes,
    value_errors, scalar_count, tensor_if_holding)

Tensor = _C.Tensor


def _refuse_bool_sizes(shape):
    """NumPy's TypeError for a bool among the sizes of a shape; the core
    takes one after the first size as PyTorch does (x.reshape(3, True, 2)).
    A bool equals 0 or 1, so only a shape holding one is looked at further."""
    if (0 in shape or 1 in shape) and bool in map(type, shape):
        raise TypeError("an integer is required")


@implements(np.reshape)
def reshape(a, /, shape=None, order="C", *, newshape=None, copy=None):
    if order != "C":
        raise Unsupported(f"reshape: argument 'order' {order!r} is not supported on tensors")
    shape = newshape if shape is None else shape
    a = as_tensor(a)
    shape = scalar_count(shape)  # a size computed by the program
    shape = int(shape) if isinstance(shape, (int, np.integer)) else tuple(shape)
    if type(shape) is tuple:
        _refuse_bool_sizes(shape)
    try:
        result = a.reshape(shape)
    except RuntimeError as error:  # NumPy's class; its words, then the core's
        if "device" in str(error):
            raise
        raise ValueError(f"cannot reshape array of size {a.numel()} into shape {shape} "
                         f"({error})") from None
    return result.clone() if copy else result


@implements(np.ravel)
def ravel(a, order="C"):
    """The method's reading orders, 'A' and 'K' included (they read a
    transposed or permuted array in its memory order, not C order)."""
    a = as_tensor(a)
    return a.reshape(-1) if order == "C" else a.ravel(order)


@implements(np.transpose, np.permute_dims)
def transpose(a, axes=None):
    a = as_tensor(a)
    if axes is None:
        return a.permute(*reversed_dims(a.ndim))
    if isinstance(axes, (int, np.integer)):  # np.transpose(v, 0) of a 1-d v
        axes = (axes,)
    axes = [norm_axis(ax, a.ndim) for ax in axes]
    if sorted(axes) != list(range(a.ndim)):
        raise ValueError("axes don't match array")
    return a.permute(*axes)


@implements(np.matrix_transpose, np.linalg.matrix_transpose)
def matrix_transpose(x, /):
    x = as_tensor(x)
    if x.ndim < 2:
        raise ValueError("Input array must be at least 2-dimensional")
    return x.transpose(-2, -1)


@implements(np.swapaxes)
def swapaxes(a, axis1, axis2):
    a = as_tensor(a)
    return a.transpose(norm_axis(axis1, a.ndim), norm_axis(axis2, a.ndim))


@implements(np.moveaxis)
def moveaxis(a, source, destination):
    a = as_tensor(a)
    # any sequence of axes (a range, an array), as NumPy takes
    source, destination = (scalar_count(x) for x in (source, destination))
    source, destination = (list(x) if not isinstance(x, (int, np.integer, list, tuple))
                           else x for x in (source, destination))
    source, destination = norm_axes(source, a.ndim), norm_axes(destination, a.ndim)
    if len(source) != len(destination):
        raise ValueError("`source` and `destination` arguments must have the same number "
                         "of elements")
    return _C.movedim(a, source, destination)


@implements(np.squeeze, op=_C.squeeze)
def squeeze(a, axis=None):
    a = as_tensor(a)
    if axis is None:
        return _C.squeeze(a)
    if a.ndim == 0 and isinstance(axis, (int, np.integer)):
        norm_axis(axis, 1)  # NumPy: an int axis 0 or -1 keeps a 0-d array (a tuple is refused)
        return a.view(())
    axes = norm_axes(axis, a.ndim)
    if any(a.shape[ax] != 1 for ax in axes):
        raise ValueError("cannot select an axis to squeeze out which has size not equal to one")
    return a.reshape(tuple(s for i, s in enumerate(a.shape) if i not in axes))


@implements(np.expand_dims)
def expand_dims(a, axis):
    a = as_tensor(a)
    axes = norm_axes(axis, a.ndim + len(axis if isinstance(axis, (tuple, list)) else (axis,)))
    shape, it = [], iter(a.shape)
    for i in range(a.ndim + len(axes)):
        shape.append(1 if i in axes else next(it))
    return a.reshape(tuple(shape))


def _seq(arrays, dtype=None):
    tensors = [as_tensor(a) for a in arrays]
    if dtype is not None:
        tensors = [cast(t, dtype) for t in tensors]
    return tensors


_CASTINGS = CASTINGS
_can_cast = can_cast_dtypes


_MAX_JOIN = 2**31 - 1  # NumPy's limit on the arrays of one join (a C int)


def _join_inputs(name, arrays, out, dtype, casting, stack_error=False):
    """The tensors a join (concatenate, stack, hstack ...) takes, cast to ``dtype``,
    with NumPy's checks: a sequence (not a generator), at least one array,
    ``out=`` or ``dtype=`` (not both), and every input castable to the result
    dtype under ``casting``."""
    if not isinstance(arrays, (list, tuple, Tensor, np.ndarray)):
        if stack_error:
            raise TypeError('arrays to stack must be passed as a "sequence" type such as '
                            'list or tuple.')
        raise TypeError("The first input argument needs to be a sequence")
    if casting not in _CASTINGS:
        raise ValueError(f"casting must be one of 'no', 'equiv', 'safe', 'same_kind', or "
                         f"'unsafe' (got {casting!r})")
    if out is not None and dtype is not None:
        raise TypeError(f"{name}() only takes `out` or `dtype` as an argument, but both "
                        f"were provided.")
    if len(arrays) > _MAX_JOIN:  # before a list of that many is made: NumPy's check
        raise ValueError(f"{name}() only supports up to {_MAX_JOIN} arrays but got "
                         f"{len(arrays)}.")
    return [as_tensor(a) for a in arrays]


def _join_dtype(tensors, out, dtype, casting):
    """The tensors of a join cast to ``dtype`` or out's, after NumPy's casting
    check of each into the result dtype (``dtype``, out's, or -- under "no"
    and "equiv", which refuse any change -- their common dtype).  Called once the shapes
    are checked: NumPy reports a shape mismatch before a cast it refuses."""
    target = tl_dtype(dtype) if dtype is not None else \
        (out.dtype if isinstance(out, Tensor) else tl_dtype(out.dtype)) if out is not None \
        else None
    if target is None and casting in ("no", "equiv") and tensors:
        target = functools.reduce(_C.promote_types, (t.dtype for t in tensors))
    if target is not None:
        for t in tensors:
            if not _can_cast(t.dtype, target, casting):
                raise TypeError(f"Cannot cast array data from dtype('{t.dtype.name}') to "
                                f"dtype('{target.name}') according to the rule {casting!r}")
    if dtype is not None or out is not None:  # each straight into out's dtype, as NumPy
        tensors = [cast(t, target) for t in tensors]  # (no common dtype on the way)
    return tensors


def _first_rank(arrays):
    """The rank of the first of a join's arrays when it is a tensor, else -1."""
    if type(arrays) in (list, tuple) and arrays and type(arrays[0]) is Tensor:
        return arrays[0].ndim
    return -1


def _join_fast(join, arrays, axis, extra):
    """``join(arrays, axis)`` for the common call: a list or tuple of tensors
    of one dtype and rank, an int axis in range (``extra``: the axes the
    result adds).  None when the call needs the checks and promotion of the
    full path, or the core refuses it (the full path raises NumPy's error)."""
    if type(arrays) not in (list, tuple) or not arrays or type(axis) is not int:
        return None
    first = arrays[0]
    if type(first) is not Tensor:
        return None
    dtype, ndim = first.dtype, first.ndim
    if ndim == 0 and not extra or not -(ndim + extra) <= axis < ndim + extra:
        return None
    for t in arrays:  # dtypes are singletons: `is`, not the NumPy-aware __ne__ (0.2 us)
        if type(t) is not Tensor or t.dtype is not dtype or t.ndim != ndim:
            return None
    try:
        return join(arrays if type(arrays) is list else list(arrays), axis)
    except RuntimeError:
        return None


@implements(np.concatenate, np.concat)
def concatenate(arrays, /, axis=0, out=None, *, dtype=None, casting="same_kind"):
    if out is None and dtype is None and casting == "same_kind":
        result = _join_fast(_C.cat, arrays, axis, 0)
        if result is not None:
            return result
    tensors = _join_inputs("concatenate", arrays, out, dtype, casting)
    if not tensors:
        raise ValueError("need at least one array to concatenate")
    if axis is None:
        tensors, axis = [t.reshape(-1) for t in tensors], 0
    if any(t.ndim == 0 for t in tensors):
        raise ValueError("zero-dimensional arrays cannot be concatenated")
    axis = norm_axis(axis, tensors[0].ndim)
    _check_concatenable(tensors, axis)
    tensors = _join_dtype(tensors, out, dtype, casting)
    return finish(_C.cat(list(promote(*tensors)), axis), out)


def _check_concatenable(tensors, axis):
    """NumPy's ValueError (and wording) for arrays that do not line up."""
    first = tensors[0]
    for i, t in enumerate(tensors[1:], 1):
        if t.ndim != first.ndim:
            raise ValueError(f"all the input arrays must have same number of dimensions, but "
                             f"the array at index 0 has {first.ndim} dimension(s) and the "
                             f"array at index {i} has {t.ndim} dimension(s)")
        for d in range(first.ndim):
            if d != axis and t.shape[d] != first.shape[d]:
                raise ValueError(f"all the input array dimensions except for the "
                                 f"concatenation axis must match exactly, but along dimension "
                                 f"{d}, the array at index 0 has size {first.shape[d]} and the "
                                 f"array at index {i} has size {t.shape[d]}")


def _cat(tensors, axis, dtype=None, casting="same_kind"):
    """Concatenation of non-empty ``tensors`` with NumPy's errors and promotion
    (``dtype``/``casting`` checked and applied once the shapes line up)."""
    if not tensors:
        raise ValueError("need at least one array to concatenate")
    _check_concatenable(tensors, axis)
    tensors = _join_dtype(tensors, None, dtype, casting)
    return _C.cat(list(promote(*tensors)), axis)


@implements(np.stack)
def stack(arrays, axis=0, out=None, *, dtype=None, casting="same_kind"):
    if out is None and dtype is None and casting == "same_kind":
        result = _join_fast(_C.stack, arrays, axis, 1)
        if result is not None:
            return result
    tensors = _join_inputs("stack", arrays, out, dtype, casting, stack_error=True)
    if not tensors:
        raise ValueError("need at least one array to stack")
    if len({tuple(t.shape) for t in tensors}) != 1:
        raise ValueError("all input arrays must have the same shape")
    axis = norm_axis(axis, tensors[0].ndim + 1)
    tensors = _join_dtype(tensors, out, dtype, casting)
    return finish(_C.stack(list(promote(*tensors)), axis), out)


@implements(np.vstack, np.row_stack if hasattr(np, "row_stack") else np.vstack)
def vstack(tup, *, dtype=None, casting="same_kind"):
    if dtype is None and casting == "same_kind" and _first_rank(tup) >= 2:
        result = _join_fast(_C.cat, tup, 0, 0)
        if result is not None:
            return result
    tensors = _join_inputs("vstack", tup, None, dtype, casting, stack_error=True)
    return _cat([atleast_2d(t) for t in tensors], 0, dtype, casting)


@implements(np.hstack)
def hstack(tup, *, dtype=None, casting="same_kind"):
    rank = _first_rank(tup)
    if dtype is None and casting == "same_kind" and rank >= 1:
        result = _join_fast(_C.cat, tup, 0 if rank == 1 else 1, 0)
        if result is not None:
            return result
    tensors = [atleast_1d(t) for t in
               _join_inputs("hstack", tup, None, dtype, casting, stack_error=True)]
    return _cat(tensors, 0 if tensors and tensors[0].ndim == 1 else 1, dtype, casting)


@implements(np.dstack)
def dstack(tup):
    return _cat([atleast_3d(t) for t in
                 _join_inputs("dstack", tup, None, None, "same_kind", stack_error=True)], 2)


@implements(np.column_stack)
def column_stack(tup):
    tensors = _join_inputs("column_stack", tup, None, None, "same_kind", stack_error=True)
    return _cat([t.reshape(-1, 1) if t.ndim < 2 else t for t in tensors], 1)


@implements(np.atleast_1d)
def atleast_1d(*arys):
    r = [as_tensor(a) for a in arys]
    r = [t.reshape(1) if t.ndim == 0 else t for t in r]
    return r[0] if len(r) == 1 else tuple(r)


@implements(np.atleast_2d)
def atleast_2d(*arys):
    r = []
    for t in map(as_tensor, arys):
        r.append(t.reshape(1, 1) if t.ndim == 0 else t.reshape(1, -1) if t.ndim == 1 else t)
    return r[0] if len(r) == 1 else tuple(r)


@implements(np.atleast_3d)
def atleast_3d(*arys):
    r = []
    for t in map(as_tensor, arys):
        if t.ndim == 0:
            t = t.reshape(1, 1, 1)
        elif t.ndim == 1:
            t = t.reshape(1, -1, 1)
        elif t.ndim == 2:
            t = t.reshape(*t.shape, 1)
        r.append(t)
    return r[0] if len(r) == 1 else tuple(r)


def _split(ary, indices_or_sections, axis, equal):
    ary = as_tensor(ary)
    axis = norm_axis(axis, ary.ndim)
    indices_or_sections = scalar_count(indices_or_sections)
    if isinstance(indices_or_sections, (int, np.integer)):
        n = int(indices_or_sections)
        if n <= 0:
            raise ValueError("number sections must be larger than 0.")
        if equal and ary.shape[axis] % n:
            raise ValueError("array split does not result in an equal division")
        return list(_C.tensor_split(ary, n, dim=axis))
    return list(_C.tensor_split(ary, [int(i) for i in indices_or_sections], dim=axis))


@implements(np.split)
def split(ary, indices_or_sections, axis=0):
    return _split(ary, indices_or_sections, axis, equal=True)


@implements(np.array_split)
def array_split(ary, indices_or_sections, axis=0):
    return _split(ary, indices_or_sections, axis, equal=False)


@implements(np.hsplit)
def hsplit(ary, indices_or_sections):
    ary = as_tensor(ary)
    if ary.ndim == 0:
        raise ValueError("hsplit only works on arrays of 1 or more dimensions")
    return split(ary, indices_or_sections, 1 if ary.ndim > 1 else 0)


@implements(np.vsplit)
def vsplit(ary, indices_or_sections):
    ary = as_tensor(ary)
    if ary.ndim < 2:
        raise ValueError("vsplit only works on arrays of 2 or more dimensions")
    return split(ary, indices_or_sections, 0)


@implements(np.tile)
def tile(A, reps):
    A = as_tensor(A)
    reps = scalar_count(reps)
    reps = (reps,) if isinstance(reps, (int, np.integer)) else tuple(reps)
    if any(r < 0 for r in reps):
        raise ValueError(f"negative dimensions are not allowed (tile reps {reps})")
    return _C.tile(A, reps) if reps else A.clone()


@implements(np.resize)
def resize(a, new_shape):
    """NumPy's resize: the flattened data repeated (or cut) to fill
    new_shape, zeros for empty data; a count computed by the program (a 0-d
    integer array) is a size, as NumPy's integer scalar is."""
    a = as_tensor(a).reshape(-1)
    new_shape = scalar_count(new_shape)
    if isinstance(new_shape, (tuple, list)):
        _refuse_bool_sizes(new_shape)
    new_shape = (new_shape,) if isinstance(new_shape, (int, np.integer)) else \
        tuple(operator.index(scalar_count(d)) for d in new_shape)
    if any(d < 0 for d in new_shape):
        raise ValueError("all elements of `new_shape` must be non-negative")
    size = math.prod(new_shape)
    if a.numel() == 0 or size == 0:  # zeros joined to the (cut) data: still on its tape
        return _C.cat([a[:0], _C.zeros(size, dtype=a.dtype, device=a.device)]).reshape(new_shape)
    repeats = -(-size // a.numel())
    return _C.tile(a, (repeats,))[:size].reshape(new_shape)


@implements(np.repeat)
def repeat(a, repeats, axis=None):
    a = as_tensor(a)
    if axis is not None:
        if a.ndim == 0:  # NumPy repeats a 0-d array along axis 0 (or -1) of its 1-d form
            a = a.reshape(1)
        axis = norm_axis(axis, a.ndim)
    if not isinstance(repeats, (int, np.integer)):
        repeats = as_tensor(repeats).to(_C.int64)
        if repeats.ndim == 0 or repeats.numel() == 1:
            repeats = int(repeats.reshape(()).item())
    if isinstance(repeats, (int, np.integer)) and repeats < 0:
        raise ValueError("repeats may not contain negative values.")
    with value_errors("repeat"):  # repeats that do not broadcast along the axis
        return _C.repeat_interleave(a.reshape(-1) if axis is None else a, repeats,
                                    dim=0 if axis is None else axis)


def _reversed(m, axes):
    """m with the given axes reversed, as a view (negative strides), as
    NumPy's flips are: writes through it reach m (torchlike.flip copies, as
    PyTorch's does)."""
    index = [slice(None)] * m.ndim
    for axis in axes:
        index[axis] = slice(None, None, -1)
    return m[tuple(index)]


@implements(np.flip)
def flip(m, axis=None):
    m = as_tensor(m)
    axes = norm_axes(axis, m.ndim)
    if m.ndim == 0:  # NumPy's m[()] of a 0-d array is a scalar, not a view
        return m.clone()
    return _reversed(m, all_axes(m) if axes is None else axes)


@implements(np.fliplr)
def fliplr(m):
    m = as_tensor(m)
    if m.ndim < 2:
        raise ValueError("Input must be >= 2-d.")
    return _reversed(m, (1,))


@implements(np.flipud)
def flipud(m):
    m = as_tensor(m)
    if m.ndim < 1:
        raise ValueError("Input must be >= 1-d.")
    return _reversed(m, (0,))


@implements(np.rot90)
def rot90(m, k=1, axes=(0, 1)):
    """A view, as NumPy's: a quarter turn from axes[0] towards axes[1] is a
    reversal of axes[1] and a swap of the two axes."""
    m = as_tensor(m)
    if len(axes) != 2:  # NumPy's ValueErrors, before the op's RuntimeError
        raise ValueError("len(axes) must be 2.")
    first, second = (norm_axis(a, m.ndim) for a in axes)
    if first == second:
        raise ValueError("Axes must be different.")
    k = operator.index(k) % 4
    if k == 0:
        return m[...]
    if k == 2:
        return _reversed(m, (first, second))
    if k == 1:
        return _reversed(m, (second,)).swapaxes(first, second)
    return _reversed(m.swapaxes(first, second), (second,))


@implements(np.roll)
def roll(a, shift, axis=None):
    a = as_tensor(a)
    shape = a.shape
    flat = axis is None
    if flat:
        a, axis = a.reshape(-1), 0
    # NumPy's rule: shift and axis broadcast against each other, and the
    # shifts given for one axis add up (np.roll(x, [1, 2]) rolls by 3)
    # (shifts and axes computed as tensors, on any device, are read as numbers)
    pairs = np.broadcast(*(np.asarray(v.tolist() if isinstance(v, Tensor) else v)
                           for v in (shift, axis)))
    if pairs.nd > 1:
        raise ValueError("'shift' and 'axis' should be scalars or 1D sequences")
    total = {}
    for s, x in pairs:
        x = norm_axis(int(x), a.ndim)
        total[x] = total.get(x, 0) + int(s)
    result = _C.roll(a, tuple(total.values()), tuple(total)) if total else a.clone()
    return result.reshape(tuple(shape)) if flat else result


@implements(np.broadcast_to)
def broadcast_to(array, shape, subok=False):
    shape = (shape,) if isinstance(shape, int) else tuple(shape)
    _refuse_bool_sizes(shape)
    array = as_tensor(array)
    if any(s < 0 for s in shape):
        raise ValueError("all elements of broadcast shape must be non-negative")
    try:
        return _C.broadcast_to(array, shape)
    except RuntimeError:  # NumPy's class; its words, then the shapes
        raise ValueError(f"operands could not be broadcast together with remapped shapes "
                         f"[original->remapped]: {tuple(array.shape)} and requested shape "
                         f"{shape}") from None


@implements(np.broadcast_arrays)
def broadcast_arrays(*args, subok=False):
    return tuple(_C.broadcast_tensors(*[as_tensor(a) for a in args]))


@implements(np.where)
def where(condition, x=NoValue, y=NoValue):
    if x is NoValue and y is NoValue:
        return nonzero(condition)
    if x is NoValue or y is NoValue:
        raise ValueError("either both or neither of x and y should be given")
    condition = as_tensor(condition)
    if condition.dtype is not _C.bool:
        condition = condition != 0
    x, y = operand(x), operand(y)
    if not (isinstance(x, Tensor) or isinstance(y, Tensor)):
        # two Python numbers: NumPy's dtype for them (where(m, 1.0, -1.0) is
        # float64, as np.add(1.0, -1.0) is), not PyTorch's default float
        dtype = tl_dtype(np.result_type(x, y))
        x, y = (_C.full((), v, dtype=dtype, device=condition.device) for v in (x, y))
    return _C.where(condition, x, y)


@implements(np.nonzero)
def nonzero(a):
    a = as_tensor(a)
    if a.ndim == 0:
        raise ValueError("Calling nonzero on 0d arrays is not allowed. Use np.atleast_1d("
                         "scalar).nonzero() instead.")
    return tuple(_C.nonzero(a, as_tuple=True))


@implements(np.flatnonzero)
def flatnonzero(a):
    return _C.nonzero(as_tensor(a).reshape(-1), as_tuple=True)[0]


@implements(np.argwhere)
def argwhere(a):
    a = as_tensor(a)
    return _C.argwhere(a.reshape(1) if a.ndim == 0 else a)[:, :a.ndim]


def _c_int_offset(offset):
    """A diagonal's offset as NumPy's diagonal takes it, a C int: a bool is
    0 or 1, and one past int32 is NumPy's OverflowError (an offset of 2**40
    is not an empty diagonal there); NumPy's bool scalar is refused."""
    if isinstance(offset, np.bool_):
        raise TypeError("'numpy.bool' object cannot be interpreted as an integer")
    if isinstance(offset, bool):
        return int(offset)
    if isinstance(offset, (int, np.integer)):
        if offset > 2 ** 31 - 1:
            raise OverflowError("signed integer is greater than maximum")
        if offset < -2 ** 31:
            raise OverflowError("signed integer is less than minimum")
    return offset


def _dimension_offset(k):
    """The k of diag/diagflat of a vector, which NumPy adds to its length for
    the square's side: a bool is 0 or 1, and one past int64 makes a side
    past the largest dimension (NumPy's ValueError, not a conversion's
    OverflowError).  NumPy's own bool scalar is refused, as NumPy's slice of
    the square refuses it."""
    if isinstance(k, np.bool_):
        raise TypeError("slice indices must be integers or None or have an __index__ method")
    if isinstance(k, bool):
        return int(k)
    if isinstance(k, int) and not -2 ** 63 < k < 2 ** 63:
        raise ValueError(f"Maximum allowed dimension exceeded (diagonal offset {k})")
    return k


@implements(np.diagonal)
def diagonal(a, offset=0, axis1=0, axis2=1):
    a = as_tensor(a)
    offset = _c_int_offset(offset)
    if a.ndim < 2:
        raise ValueError("diag requires an array of at least two dimensions")
    dim1, dim2 = norm_axis(axis1, a.ndim), norm_axis(axis2, a.ndim)
    if dim1 == dim2:
        raise ValueError("axis1 and axis2 cannot be the same")
    return _C.diagonal(a, offset=offset, dim1=dim1, dim2=dim2)


@implements(np.diag)
def diag(v, k=0):
    v = as_tensor(v)
    if v.ndim not in (1, 2):
        raise ValueError("Input must be 1- or 2-d.")
    if v.ndim == 2:  # NumPy's diag of a matrix is its diagonal view (a copy had hidden later writes)
        return _C.diagonal(v, offset=_c_int_offset(k))
    return _C.diag(v, _dimension_offset(k))


@implements(np.diagflat)
def diagflat(v, k=0):
    """The square array with ``v`` flattened on its ``k``-th diagonal."""
    return _C.diagflat(as_tensor(v), _dimension_offset(k))


def _as_matrix(m, name):
    """NumPy's tril/triu of a 1-d array: the row repeated into a square."""
    m = as_tensor(m)
    if m.ndim == 0:
        raise TypeError(f"{name}() of a 0-d array: NumPy's tri() needs the matrix size N")
    return m.expand(m.shape[0], m.shape[0]) if m.ndim == 1 else m


def _tri_offset(k, negated=True):
    """tril/triu's k as NumPy's tri() takes it: a bool is 0 or 1, but
    NumPy's bool scalar given to tril (tri's arange(-k, ...) cannot negate
    it; triu's k - 1 is an int) is refused."""
    if isinstance(k, np.bool_) and negated:
        raise TypeError("The numpy boolean negative, the `-` operator, is not supported, "
                        "use the `~` operator or the logical_not function instead.")
    return int(k) if isinstance(k, (bool, np.bool_)) else k


@implements(np.tril)
def tril(m, k=0):
    return _C.tril(_as_matrix(m, "tril"), _tri_offset(k))


@implements(np.triu)
def triu(m, k=0):
    return _C.triu(_as_matrix(m, "triu"), _tri_offset(k, negated=False))


_PAD_KEYWORDS = {
    "empty": set(), "edge": set(), "wrap": set(), "constant": {"constant_values"},
    "linear_ramp": {"end_values"}, "maximum": {"stat_length"}, "mean": {"stat_length"},
    "median": {"stat_length"}, "minimum": {"stat_length"}, "reflect": {"reflect_type"},
    "symmetric": {"reflect_type"}}


def _host_numbers(obj):
    """obj with its tensors as host values (ndarrays), nesting kept: pad's
    widths, values and lengths are a few numbers NumPy reads on the host, and
    one the program computed (a 0-d tensor) may be on a device.  A tensor
    that requires grad is refused by .numpy(), as NumPy's conversion refuses
    it (no gradient could reach a width or a length through a number; pad's
    values that require grad are recorded before they get here)."""
    if isinstance(obj, Tensor):
        return obj.cpu().numpy()
    if isinstance(obj, (list, tuple)):
        return type(obj)(_host_numbers(o) for o in obj)
    return obj


def _pad_by_function(x, widths, mode, kwargs):
    """mode='empty' and a callable mode: x inside a zero border (NumPy's
    border is uninitialised memory for 'empty', and the callable writes it),
    then, for a callable, NumPy's protocol: ``mode(vector, (before, after),
    axis, kwargs)`` for each 1-d line along each axis in turn, the vector a
    view it writes in place -- writes the tape records, as any other."""
    import torchlike.nn.functional as F
    flat = [int(w) for pair in widths[::-1].tolist() for w in pair]
    padded = F.pad(x, flat) if x.ndim else x.clone()
    if callable(mode):
        for axis in range(padded.ndim):
            lines = padded.movedim(axis, -1)
            for index in np.ndindex(*lines.shape[:-1]):
                mode(lines[index], widths[axis].copy(), axis, kwargs)
    return padded


@implements(np.pad)
def pad(array, pad_width, mode="constant", **kwargs):
    """Constant padding concatenates filled blocks; edge/wrap/reflect/symmetric
    gather indices computed per axis; the statistic and ramp modes of float
    data concatenate computed blocks (_pad_computed): all stay on the tape."""
    x = as_tensor(array)
    # NumPy's checks, before any mode runs: keywords per mode, integral widths
    if not callable(mode):
        if mode not in _PAD_KEYWORDS:
            raise ValueError(f"mode '{mode}' is not supported")
        if set(kwargs) - _PAD_KEYWORDS[mode]:
            raise ValueError(f"unsupported keyword arguments for mode '{mode}': "
                             f"{set(kwargs) - _PAD_KEYWORDS[mode]}")
    if isinstance(pad_width, dict):  # {axis: width or (before, after)}, others 0
        pairs = np.zeros((x.ndim, 2), np.int64)
        for axis, width in pad_width.items():
            pairs[norm_axis(axis, x.ndim)] = np.broadcast_to(np.asarray(_host_numbers(width)), (2,))
        pad_width = pairs
    widths = np.asarray(_host_numbers(pad_width))
    if widths.dtype.kind != "i":
        raise TypeError("`pad_width` must be of integral type.")
    widths = np.broadcast_to(widths.astype(np.int64), (x.ndim, 2))
    if (widths < 0).any():
        raise ValueError("index can't contain negative values")
    if mode in _PAD_COMPUTED and x.is_floating_point():
        x = _pad_computed(x, widths, mode, kwargs)
        return x.clone() if x is array else x  # a new array, as NumPy's
    if mode == "empty" or callable(mode):
        return _pad_by_function(x, widths, mode, kwargs)
    # NumPy reads reflect_type='odd' and takes anything else for 'even'
    odd = mode in ("reflect", "symmetric") and kwargs.pop("reflect_type", "even") == "odd"
    if callable(mode) or mode not in ("constant", "edge", "wrap", "reflect", "symmetric") \
            or set(kwargs) - {"constant_values", "reflect_type"}:
        raise Unsupported(f"pad: argument 'mode' {mode!r} or keywords {sorted(kwargs)} are not "
                          f"supported on tensors")
    if mode == "constant" and _requires_grad(kwargs.get("constant_values")):
        x = _pad_learned_constants(x, widths, kwargs["constant_values"])
        return x.clone() if x is array else x  # a new array, as NumPy's
    values = np.asarray(_host_numbers(kwargs.get("constant_values", 0)))
    if values.dtype == object:  # Python ints past int64: written in x's dtype, as NumPy does
        values = values.astype(np_dtype(x.dtype))
    if mode == "constant" and values.dtype.kind in "iuf" and np_dtype(x.dtype).kind == "i":
        # NumPy writes each into a signed integer array as a Python int, which
        # must fit (its unsigned arrays wrap them, as a cast does)
        for value in values.ravel().tolist():
            np_dtype(x.dtype).type(int(value))
    values = np.broadcast_to(values, (x.ndim, 2))
    if mode == "constant" and x.ndim and (values == values.flat[0]).all() \
            and values.dtype.kind in "biuf":
        # one value everywhere: one padded copy (F.pad takes the last dim's widths first)
        import torchlike.nn.functional as F
        flat = [int(w) for pair in widths[::-1].tolist() for w in pair]
        return F.pad(x, flat, value=values.flat[0].item())
    for axis, (before, after) in enumerate(widths.tolist()):
        if mode == "constant":
            x = _pad_blocks(x, axis, before, after, lambda side, shape, x=x, axis=axis: _C.full(
                shape, values[axis, side].item(), dtype=x.dtype, device=x.device))
        elif before or after:
            n = x.shape[axis]
            if n == 0:
                raise ValueError(f"can't extend empty axis {axis} using modes other than "
                                 f"'constant' or 'empty'")
            if odd and n > 1:  # an axis of one element is edge-padded, as NumPy's (2 e - e
                # would make an infinity NaN and overflow a float16 extreme)
                x = _pad_odd_reflection(x, axis, before, after, mode == "symmetric")
                continue
            index = np.arange(-before, n + after)
            if mode == "edge":
                index = np.clip(index, 0, n - 1)
            elif mode == "wrap":
                index = index % n
            elif mode == "reflect":
                period = 2 * (n - 1) if n > 1 else 1
                index = np.abs(index) % period
                index = np.where(index >= n, period - index, index) if n > 1 else index * 0
            else:  # symmetric
                index = index % (2 * n)
                index = np.where(index >= n, 2 * n - 1 - index, index)
            x = _C.index_select(x, axis, _C.from_numpy(index.astype(np.int64)).to(x.device))
    return x.clone() if x is array else x  # a new array, as NumPy's, even padding nothing


def _requires_grad(obj):
    if isinstance(obj, Tensor):
        return obj.requires_grad and _C.is_grad_enabled()
    return isinstance(obj, (list, tuple)) and any(_requires_grad(o) for o in obj)


def _pad_learned_constants(x, widths, values):
    """Constant padding whose ``constant_values`` require grad (a learned
    border): each axis's blocks are its two values expanded, in x's dtype as
    NumPy writes them, so the values get the gradient of every element they
    fill (the host numbers of the other route would drop it)."""
    values = _C.broadcast_to(as_tensor(values).to(device=x.device, dtype=x.dtype), (x.ndim, 2))
    for axis, (before, after) in enumerate(widths.tolist()):
        x = _pad_blocks(x, axis, before, after,
                        lambda side, shape, axis=axis: values[axis, side].expand(shape))
    return x


def _pad_blocks(x, axis, before, after, fill):
    """x with ``before`` and ``after`` elements added along ``axis``, each
    block made by ``fill(side, shape)`` (side 0 before x, 1 after it)."""
    parts = [x]
    for side, n in ((0, before), (1, after)):
        if n:
            shape = list(x.shape)
            shape[axis] = n
            block = fill(side, tuple(shape))
            parts = [block] + parts if side == 0 else parts + [block]
    return _C.cat(parts, axis) if len(parts) > 1 else x


def _pad_odd_reflection(x, axis, before, after, symmetric):
    """NumPy's reflect_type='odd' along ``axis``: each pass mirrors at most the
    whole periods already there about the current edge value e (2 * e - v),
    so a pad wider than the array continues the data's trend; NumPy's loop,
    with ops (recorded, on any device).  NumPy's own code run on tensors got
    the two widths as one 0-d tensor, and its ``left_pad -= n`` emptied both."""
    period = x.shape[axis]
    while before or after:
        n = x.shape[axis]
        # the periods NumPy mirrors (never part of one), less the edge for reflect
        whole = n // period * period if symmetric else \
            (n - 1) // max(period - 1, 1) * (period - 1)
        if period == 1 and not symmetric:
            whole = 1  # one element: NumPy pads with it, as edge does
        skip = 0 if symmetric or period == 1 else 1
        if before:
            k = min(whole, before)
            chunk = 2 * x.narrow(axis, 0, 1) - x.narrow(axis, skip, k).flip(axis)
            x = _C.cat([chunk.to(x.dtype), x], axis)  # bools: NumPy writes 2 * e - v back
            before -= k
        if after:
            k = min(whole, after)
            n = x.shape[axis]
            chunk = 2 * x.narrow(axis, n - 1, 1) - x.narrow(axis, n - skip - k, k).flip(axis)
            x = _C.cat([x, chunk.to(x.dtype)], axis)
            after -= k
    return x


_PAD_COMPUTED = {"maximum": np.amax, "minimum": np.amin, "mean": np.mean, "median": np.median,
                 "linear_ramp": None}


def _pad_computed(x, widths, mode, kwargs):
    """NumPy's padding by a statistic (of the first / last ``stat_length``
    elements along each axis) or by a linear ramp (from ``end_values`` to the
    edge), for float data: axis by axis over what the earlier axes padded,
    as NumPy's, from ops, so the padding is recorded too."""
    ramp = mode == "linear_ramp"
    given = kwargs.get("end_values", 0) if ramp else kwargs.get("stat_length")
    if given is None:
        pairs = [(None, None)] * x.ndim
    elif ramp and _requires_grad(given):  # learned end values: kept on the tape
        values = _C.broadcast_to(as_tensor(given).to(device=x.device, dtype=x.dtype),
                                 (x.ndim, 2))
        pairs = [(values[axis, 0], values[axis, 1]) for axis in range(x.ndim)]
    else:
        values = np.asarray(_host_numbers(given))
        if not ramp:  # NumPy rounds lengths, then refuses negative ones
            values = np.round(values).astype(np.int64)
            if (values < 0).any():
                raise ValueError("index can't contain negative values")
        pairs = np.broadcast_to(values, (x.ndim, 2)).tolist()
    for axis, ((before, after), pair) in enumerate(zip(widths.tolist(), pairs)):
        n = x.shape[axis]
        if n == 0:
            if before or after:
                raise ValueError(f"can't extend empty axis {axis} using modes other than "
                                 f"'constant' or 'empty'")
            continue
        if ramp:
            sides = []
            for width, end, at in ((before, pair[0], 0), (after, pair[1], n - 1)):
                k = _C.arange(width, dtype=x.dtype, device=x.device).reshape(
                    tuple(-1 if d == axis else 1 for d in range(x.ndim)))
                edge = x.narrow(axis, at, 1)
                sides.append(end + k * ((edge - end) / max(width, 1)))  # linspace(end, edge)
            x = _C.cat([sides[0], x, sides[1].flip(axis)], axis)
            continue
        lengths = [n if length is None else min(length, n) for length in pair]
        if 0 in lengths and mode in ("maximum", "minimum"):
            raise ValueError("stat_length of 0 yields no value for padding")
        stat = _PAD_COMPUTED[mode]
        first = stat(x.narrow(axis, 0, lengths[0]), axis=axis, keepdims=True)
        last = first if lengths == [n, n] else \
            stat(x.narrow(axis, n - lengths[1], lengths[1]), axis=axis, keepdims=True)
        shape = list(x.shape)
        parts = []
        for width, value in ((before, first), (0, x), (after, last)):
            if value is x:
                parts.append(x)
            elif width:
                shape[axis] = width
                parts.append(value.to(x.dtype).expand(tuple(shape)))
        x = _C.cat(parts, axis)
    return x


@implements(np.take)
def take(a, indices, axis=None, out=None, mode="raise"):
    """mode 'wrap' takes indices modulo the axis' length, 'clip' clamps them
    into it (negative ones to 0, as NumPy's); both stay a gather, so recorded."""
    if mode not in ("raise", "wrap", "clip"):
        raise ValueError(f"clipmode must be one of 'clip', 'raise', or 'wrap' (got {mode!r})")
    a = as_tensor(a)
    idx = as_tensor(indices)
    # NumPy casts an index array by 'same_kind' (Python floats, alone or in
    # a list, are truncated as NumPy's intp conversion does)
    if isinstance(indices, (Tensor, np.ndarray)) and (idx.is_floating_point() or idx.is_complex()):
        raise TypeError(f"Cannot cast array data from dtype('{np_dtype(idx.dtype)}') to "
                        f"dtype('int64') according to the rule 'same_kind'")
    idx = idx.to(_C.int64)
    if mode != "raise":
        n = a.numel() if axis is None else (a.reshape(1) if a.ndim == 0 else a).shape[
            norm_axis(axis, max(a.ndim, 1))]
        if n == 0 and idx.numel():
            raise IndexError("cannot do a non-empty take from an empty axes.")
        idx = idx.remainder(n) if mode == "wrap" else idx.clamp(0, max(n - 1, 0))
    if axis is None:
        result = _C.take(a, idx.reshape(-1)).reshape(tuple(idx.shape))
    else:
        a = a.reshape(1) if a.ndim == 0 else a  # NumPy takes from a 0-d array as 1-d
        axis = norm_axis(axis, a.ndim)
        shape = tuple(a.shape[:axis]) + tuple(idx.shape) + tuple(a.shape[axis + 1:])
        if 0 in a.shape[:axis]:  # nothing to take from: NumPy checks no index
            return finish(_C.empty(shape, dtype=a.dtype, device=a.device), out)
        if a.shape[axis] == 0 and idx.numel():  # every index is out of range
            raise IndexError("cannot do a non-empty take from an empty axes.")
        result = _C.index_select(a, axis, idx.reshape(-1)).reshape(shape)
    return finish(result, out)


@implements(np.compress)
def compress(condition, a, axis=None, out=None):
    """The slices of ``a`` along ``axis`` (of its flattening when None) where
    ``condition`` is true; a shorter condition counts as false beyond its end."""
    a, condition = as_tensor(a), as_tensor(condition)
    if condition.ndim != 1:
        raise ValueError("condition must be a 1-d array")
    if axis is None or a.ndim == 0:  # (NumPy compresses a 0-d array as 1-d)
        a, axis = a.reshape(-1), 0 if axis is None else axis
    axis = norm_axis(axis, a.ndim)
    idx = condition.to(_C.bool).nonzero().reshape(-1)  # data-dependent: one host read
    # NumPy's take of those positions: none checked when there is nothing to take from
    if idx.numel() and int(idx[-1]) >= a.shape[axis] and 0 not in a.shape[:axis]:
        raise IndexError(f"index {int(idx[-1])} is out of bounds for axis {axis} with size "
                         f"{a.shape[axis]}")
    return take(a, idx, axis, out)


@implements(np.choose)
def choose(a, choices, out=None, mode="raise"):
    """``choices[a[i]][i]`` for every index ``i`` of the broadcast shape."""
    if mode not in ("raise", "wrap", "clip"):
        raise ValueError(f"mode must be one of 'raise', 'wrap' or 'clip' (got {mode!r})")
    idx = as_tensor(a)
    choices = list(choices.unbind(0)) if isinstance(choices, Tensor) else \
        [as_tensor(c) for c in choices]
    if not choices:
        raise ValueError("0-length sequence.")
    if idx.dtype.is_floating_point or idx.dtype.is_complex:
        raise TypeError(f"Cannot cast array data from dtype('{idx.dtype.name}') to "
                        f"dtype('int64') according to the rule 'safe'")
    idx, n = idx.to(_C.int64), len(choices)
    if mode == "wrap":
        idx = idx.remainder(n)
    elif mode == "clip":
        idx = idx.clamp(0, n - 1)
    elif idx.numel() and bool(((idx < 0) | (idx >= n)).any()):  # one host read
        raise ValueError("invalid entry in choice array")
    idx, *choices = _C.broadcast_tensors(idx, *promote(*choices))
    if not idx.numel():  # (gather reads an empty from_numpy index's strides-0 data)
        return finish(choices[0].clone(), out)
    return finish(_C.take_along_dim(_C.stack(choices, 0), idx.unsqueeze(0), 0).squeeze(0),
                  out)


@implements(np.take_along_axis)
def take_along_axis(arr, indices, axis=-1):
    arr, indices = as_tensor(arr), as_tensor(indices)
    _check_along_axis(indices, arr.ndim, axis)
    with _index_error():
        if axis is None:
            return _C.take_along_dim(arr.reshape(-1), indices, 0)
        return _C.take_along_dim(arr, indices, norm_axis(axis, arr.ndim))


def _check_along_axis(indices, ndim, axis):
    """NumPy's checks of take_along_axis/put_along_axis's indices."""
    if indices.is_floating_point() or indices.is_complex() or indices.dtype is _C.bool:
        raise IndexError(f"`indices` must be an integer array (got {indices.dtype})")
    if axis is None and indices.ndim != 1:
        raise ValueError("when axis=None, `indices` must have a single dimension.")
    if axis is not None and indices.ndim != ndim:
        raise ValueError("`indices` and `arr` must have the same number of dimensions")


@contextlib.contextmanager
def _index_error():
    """An index out of range is NumPy's IndexError here (PyTorch's ops raise
    RuntimeError), its message kept."""
    try:
        yield
    except RuntimeError as error:
        if "out of bounds" not in str(error) and "out of range" not in str(error):
            raise
        raise IndexError(str(error)) from None


@implements(np.put_along_axis)
def put_along_axis(arr, indices, values, axis):
    if not isinstance(arr, Tensor):
        raise Unsupported(f"put_along_axis: argument 'arr' must be a tensor, not "
                          f"{type(arr).__name__}")
    indices = as_tensor(indices)
    _check_along_axis(indices, arr.ndim, axis)
    target = arr if axis is not None else arr.reshape(-1)
    axis = 0 if axis is None else norm_axis(axis, arr.ndim)
    # NumPy's assignment converts the values first (a Python int past the dtype
    # is its OverflowError before any index is looked at)
    values = _values_of(values, arr.dtype, arr.device)
    # NumPy indexes with the indices broadcast against the other axes' aranges:
    # indices of shape (1, k) write every row (scatter_ wrote the first only)
    shape = np.broadcast_shapes(tuple(indices.shape), tuple(
        1 if d == axis else n for d, n in enumerate(target.shape)))
    indices = indices.expand(shape)
    if _broadcast_or_none(tuple(values.shape), shape) != shape:
        def dims(s):
            return "(" + ",".join(map(str, s)) + ("," if len(s) == 1 else "") + ")"
        raise ValueError(f"shape mismatch: value array of shape {dims(values.shape)} could not "
                         f"be broadcast to indexing result of shape {dims(shape)}")
    values = _C.broadcast_to(values, shape)
    with _index_error():
        target.scatter_(axis, indices, values)


def _broadcast_or_none(a, b):
    try:
        return np.broadcast_shapes(a, b)
    except ValueError:
        return None


# ---- insert, delete, block: NumPy's Python code writes into fresh ndarrays;
# these build the result with recorded ops instead ----------------------------------

def _positions(obj, n, func):
    """obj (int, slice, sequence or bool mask) as a sorted list of indices into n."""
    if isinstance(obj, slice):
        return list(range(n))[obj]
    obj = _index_operand(obj)
    if isinstance(obj, Tensor) and obj.dtype is _C.bool:
        if obj.ndim != 1 or obj.shape[0] != n:
            raise ValueError(f"boolean array argument obj to {func} must be one dimensional "
                             f"and match the axis length of {n}")
        return [int(i) for i in _C.nonzero(obj).reshape(-1).tolist()]
    if isinstance(obj, Tensor) and (obj.dtype.is_floating_point or obj.dtype.is_complex):
        # NumPy's errors for float (or complex) positions
        if func == "delete":
            raise IndexError("arrays used as indices must be of integer (or boolean) type")
        raise TypeError("slice indices must be integers or None or have an __index__ method")
    items = [obj] if isinstance(obj, int) else [int(i) for i in obj.reshape(-1).tolist()]
    for i in items:
        if not -n <= i < n + (func == "insert"):
            raise IndexError(f"index {i} is out of bounds for axis with size {n}")
    return [i + n if i < 0 else i for i in items]


def _index_operand(obj):
    """obj of insert/delete as an int or a tensor; an empty list (float64 to
    NumPy) is an empty list of indices, as NumPy reads it."""
    if isinstance(obj, int):
        return obj
    index = as_tensor(obj)
    if index.numel() == 0 and not isinstance(obj, (Tensor, np.ndarray)):
        index = index.to(_C.int64)
    return index


def _values_of(values, dtype, device, ndmin=0):
    """insert's values in arr's dtype, converted as NumPy converts them (a
    Python int past dtype or a float infinity into integers: NumPy's error)."""
    values = tensor_if_holding(values)
    if isinstance(values, Tensor):
        values = values.to(dtype)
    else:
        values = _C.from_numpy(np.array(values, dtype=np_dtype(dtype))).to(device).to(dtype)
    return values.reshape(*([1] * (ndmin - values.ndim)), *values.shape)


def _flat_or_axis(arr, axis):
    arr = as_tensor(arr)
    if axis is None:
        return arr.reshape(-1), 0
    return arr, norm_axis(axis, arr.ndim)


@implements(np.delete)
def delete(arr, obj, axis=None):
    arr, axis = _flat_or_axis(arr, axis)
    n = arr.shape[axis]
    drop = set(_positions(obj, n, "delete"))
    keep = _C.tensor([i for i in range(n) if i not in drop], dtype=_C.int64, device=arr.device)
    return _C.index_select(arr, axis, keep)


@implements(np.insert)
def insert(arr, obj, values, axis=None):
    """NumPy's insert, step for step: one index puts all of values there as a
    block (an int's values laid with their first dim along axis); several
    put one slice each, at the positions NumPy computes (each index shifted
    by the number inserted before it, a negative one counting from the end
    of the result), and the original elements fill the rest in order."""
    arr, axis = _flat_or_axis(arr, axis)
    n = arr.shape[axis]
    shape = list(arr.shape)
    if isinstance(obj, slice):
        at, scalar = list(range(*obj.indices(n))), False
    else:
        index = _index_operand(obj)
        scalar = isinstance(index, int) or index.ndim == 0
        if not scalar and index.ndim > 1:
            raise ValueError("index array argument obj to insert must be one dimensional or "
                             "scalar")
        if not isinstance(index, int) and (index.dtype.is_floating_point or index.dtype.is_complex):
            if index.numel() == 1:
                raise TypeError("slice indices must be integers or None or have an __index__ "
                                "method")
            raise IndexError("arrays used as indices must be of integer (or boolean) type")
        at = [index] if isinstance(index, int) else [int(i) for i in index.reshape(-1).tolist()]
    if len(at) == 1:
        k = at[0]
        if not -n <= k <= n:
            raise IndexError(f"index {obj} is out of bounds for axis {axis} with size {n}")
        k += n if k < 0 else 0
        values = _values_of(values, arr.dtype, arr.device, ndmin=arr.ndim)
        if scalar:
            values = _C.movedim(values, 0, axis)
        shape[axis] = values.shape[axis]
        block = _broadcast_values(values, shape)
        return _C.cat([arr.narrow(axis, 0, k), block, arr.narrow(axis, k, n - k)], axis)
    at = [k + n if k < 0 else k for k in at]
    total = n + len(at)
    for rank, k in enumerate(sorted(range(len(at)), key=lambda k: at[k])):  # stable
        at[k] += rank
    source = [None] * total  # per result position: an original (< n) or inserted element
    for k, position in enumerate(at):
        if not -total <= position < total:
            raise IndexError(f"index {position} is out of bounds for axis {axis} with size "
                             f"{total}")
        source[position] = n + k
    free = [j for j in range(total) if source[j] is None]
    if len(free) != n:
        raise ValueError(f"shape mismatch: value array of shape {tuple(arr.shape)} could not be "
                         f"broadcast to indexing result of shape ({len(free)},)")
    for j, i in zip(free, range(n)):
        source[j] = i
    shape[axis] = len(at)
    block = _broadcast_values(_values_of(values, arr.dtype, arr.device), shape)
    both = _C.cat([arr, block], axis)
    return _C.index_select(both, axis, _C.tensor(source, dtype=_C.int64, device=arr.device))


def _broadcast_values(values, shape):
    try:
        return _C.broadcast_to(values, tuple(shape))
    except RuntimeError:
        raise ValueError(f"shape mismatch: value array of shape {tuple(values.shape)} could not "
                         f"be broadcast to indexing result of shape {tuple(shape)}") from None


@implements(np.block)
def block(arrays):
    def depth(x, where):
        """The nesting depth of ``x`` and where its first empty list is (NumPy
        reports mismatched depths before empty lists)."""
        if isinstance(x, list):
            if not x:
                return 1, where
            found = [depth(e, f"{where}[{i}]") for i, e in enumerate(x)]
            if len({d for d, _ in found}) != 1:
                raise ValueError("List depths are mismatched")
            return found[0][0] + 1, next((e for _, e in found if e), None)
        if isinstance(x, tuple):
            raise TypeError("arrays is a tuple. Only lists can be used to arrange blocks, and "
                            "np.block does not allow implicit conversion from tuple to ndarray.")
        return 0, None
    levels, empty = depth(arrays, "arrays")
    if empty:
        raise ValueError(f"List at {empty} cannot be empty")
    if levels == 0:
        return as_tensor(arrays).clone()  # a copy, as NumPy's

    def leaves(x):
        return [t for e in x for t in leaves(e)] if isinstance(x, list) else [as_tensor(x)]
    ndim = max([levels] + [t.ndim for t in leaves(arrays)])

    def assemble(x, level):
        if not isinstance(x, list):
            t = as_tensor(x)
            return t.reshape(*([1] * (ndim - t.ndim)), *t.shape)
        return _cat([assemble(e, level + 1) for e in x], ndim - levels + level)
    return assemble(arrays, 0)


@implements(np.apply_along_axis)
def apply_along_axis(func1d, axis, arr, *args, **kwargs):
    """NumPy's loop: ``func1d`` of every 1-d slice along ``axis`` (a tensor
    view, on ``arr``'s device), the results stacked where the axis was, in
    the first result's dtype (NumPy's buffer takes it) and on the tape."""
    arr = as_tensor(arr)
    axis = norm_axis(axis, arr.ndim)
    rows = arr.movedim(axis, -1)
    outer = tuple(rows.shape[:-1])
    if 0 in outer:
        raise ValueError("Cannot apply_along_axis when any iteration dimensions are 0")
    results = [as_tensor(func1d(rows[index], *args, **kwargs)) for index in np.ndindex(outer)]
    first = results[0]
    results = [r.to(first.dtype).expand(first.shape) if r.dtype != first.dtype or
               r.shape != first.shape else r for r in results]
    out = _C.stack(results).reshape(outer + tuple(first.shape))
    # NumPy's permutation: the result's own axes take the place of ``axis``
    lead, own = len(outer), first.ndim
    order = (*range(axis), *range(lead, lead + own), *range(axis, lead))
    return out.permute(order)
