"""NEP 18: NumPy functions called on tensors run torchlike ops.

``np.concatenate([t, t])``, ``np.mean(t, axis=0)`` or ``np.linalg.inv(t)`` reach
``Tensor.__array_function__``.  Three routes, tried in this order:

1. ``TABLE``: NumPy function -> a torchlike implementation taking NumPy's
   arguments (``axis=``, ``keepdims=``, ``dtype=``, ``out=`` ...) and calling
   torchlike ops, so the call goes through the same path as ``torchlike.mean``
   and is recorded on the autograd tape when grad is on.  The implementations
   live in ``torchlike/numpy/`` (one file per area) and are also the functions
   of the ``torchlike.numpy`` namespace.
2. NumPy functions written in Python on top of other NumPy functions
   (``np.cov``, ``np.trapezoid``, ``np.polyval`` ...) run NumPy's own
   ``func._implementation`` with the tensors.  Its module globals are swapped
   for a view in which ``np.asarray`` and friends keep tensors as they are, so
   every inner call dispatches back here (see ``_rebind``).
3. Anything else runs NumPy on zero-copy views of CPU tensors and wraps the
   result -- unless a tensor requires grad or lives off the CPU: then a
   TypeError names the function (no silent host copy, no dropped gradient).

An implementation that meets an argument it cannot honour raises
``Unsupported``, which sends the call on to the next route, whether it came
through NumPy's dispatch or was called as ``torchlike.numpy.<name>``.
"""
import builtins
import contextvars
import functools
import sys
import types

import numpy as np

from . import _C

Tensor = _C.Tensor
AxisError = np.exceptions.AxisError
NoValue = np._NoValue


class Unsupported(NotImplementedError):
    """An argument this implementation cannot honour: try the next route."""


TABLE = {}


class MaskedOperand(Exception):
    """A masked array (``torchlike.numpy.ma``) met an implementation of the
    namespace: the call goes to NumPy's dispatch, which hands it to the
    masked array's ``__array_function__`` / ``__array_ufunc__``."""


# the masked array class, once torchlike.numpy.ma is imported (as_tensor
# refuses it: making it a tensor would drop the mask)
MASKED_TYPES = []


def masked_call(func, args, kwargs):
    """A namespace function met a masked operand: NumPy's ``func`` takes the
    call (and hands it to the masked array).  Inside another implementation
    of the namespace (np.median calling quantile) the outer one takes it, so
    the masked implementation is the one of the function the caller called."""
    frame = sys._getframe(2)
    while frame is not None:
        name = frame.f_globals.get("__name__", "")
        if frame.f_code.co_name == "call" and name == __name__:
            raise MaskedOperand
        if not (name.startswith("torchlike.numpy._") or name == __name__):
            break  # the caller's code (or the masked arrays' own): not nested
        frame = frame.f_back
    return func(*args, **kwargs)

# The device of the tensors a NumPy call was given, while the call runs (None:
# the CPU).  Operands that are not tensors are placed there by as_tensor.
_DEVICE = contextvars.ContextVar("torchlike_numpy_device", default=None)


# _device_of(args, kwargs): the first off-CPU device among the call's tensors
# (lists and tuples searched too), or None.  In C: every NumPy call on tensors
# asks, and the Python loop cost 0.2-0.4 us of each call.
_device_of = _C._offhost_device


# True while a call given host arrays (an ndarray, a CPU tensor) runs with a
# device as the default device: the numbers-only calls made inside it (by
# NumPy's code, or by a function apply_along_axis calls) stay on the host
# with the arrays they will meet, rather than go to the default device.
_ON_HOST = contextvars.ContextVar("torchlike_numpy_on_host", default=False)


def _on_device_of(impl, args, kwargs):
    device = _device_of(args, kwargs)
    if device is None and _DEVICE.get() is None:
        device = numbers_device(args, kwargs)
        if device is None and not _ON_HOST.get() and \
                _C._get_default_device().type != "cpu":
            token = _ON_HOST.set(True)
            try:
                return impl(*args, **kwargs)
            finally:
                _ON_HOST.reset(token)
    if device is None or _DEVICE.get() == device:
        return impl(*args, **kwargs)
    token = _DEVICE.set(device)
    try:
        return impl(*args, **kwargs)
    finally:
        _DEVICE.reset(token)


def numbers_device(args, kwargs):
    """Where a call given no array at all computes: the default device, when
    it is not the CPU and the operands are Python numbers, NumPy scalars and
    lists of them (``np.cumsum([0.1, 0.8])``, as ``np.asarray([0.1, 0.8])``
    lands there), so that the program's arrays made from numbers meet on one
    device; else None (the CPU).  A tensor or an ndarray among the operands
    keeps the call where that array's memory is (docs/numpy.md), and so do
    the calls made inside it (``_ON_HOST``)."""
    default = _C._get_default_device()
    if default.type == "cpu" or _ON_HOST.get() or not _numbers_only(args) or \
            (kwargs and not _numbers_only(kwargs.values())):
        return None
    return default


def _numbers_only(items):
    for x in items:
        if isinstance(x, (list, tuple, dict)):
            if not _numbers_only(x.values() if isinstance(x, dict) else x):
                return False
        elif isinstance(x, Tensor) or (isinstance(x, np.ndarray) and x.ndim) or \
                (hasattr(x, "__array__") and not isinstance(x, (np.generic, np.ndarray))) or \
                isinstance(x, (bytes, bytearray, memoryview)):
            return False
    return True


def implements(*funcs, op=None):
    """Register the decorated function as the tensor implementation of the
    given NumPy functions.

    The function registered is a ``_C._DirectCall``: a call with every tensor
    on the CPU and no masked array goes straight to the implementation (from
    C: the wrapper's frames had cost 0.3 us of each small call); the others,
    and a direct call the implementation answers with ``Unsupported`` or
    ``MaskedOperand``, run the wrapper below.

    ``op``, a core function that is the implementation's whole work when it
    is given one tensor and nothing else (``np.squeeze(t)`` is
    ``_C.squeeze(t)``): that call goes to ``op`` from C, without the
    implementation's frame; every other call takes the route above."""
    def register(impl):
        @functools.wraps(impl)
        def call(*args, **kwargs):
            try:
                return _on_device_of(impl, args, kwargs)
            except MaskedOperand:
                return masked_call(funcs[0], args, kwargs)
            except Unsupported:
                # called as torchlike.numpy.<name>: the same next routes as
                # numpy.<name>(tensor) takes
                return next_routes(funcs[0], args, kwargs)
        function = _C._DirectCall(impl, call, retry=(Unsupported, MaskedOperand),
                                  avoid=MASKED_TYPES)
        if op is not None:
            function = _C._DirectCall(op, function, 1)
        for f in funcs:
            TABLE[f] = function
        return function
    return register


# ---------------------------------------------------------------------------
# argument translation

def tl_dtype(dtype):
    """A torchlike dtype from anything NumPy accepts as one (None stays None)."""
    if dtype is None or isinstance(dtype, _C.dtype):
        return dtype
    try:
        return _DTYPES_SEEN[dtype]
    except (KeyError, TypeError):  # not seen yet, or not hashable
        pass
    try:
        name = np.dtype(dtype).name
    except TypeError:
        # the one dtype the namespace has and NumPy lacks, named
        if isinstance(dtype, str) and dtype == "bfloat16":
            return _C.bfloat16
        raise TypeError(f"Cannot interpret {dtype!r} as a data type") from None
    result = getattr(_C, name, None)
    if not isinstance(result, _C.dtype):
        raise no_dtype(np.dtype(dtype))
    if len(_DTYPES_SEEN) < 512:
        try:
            _DTYPES_SEEN[dtype] = result
        except TypeError:
            pass
    return result


# What tl_dtype made of the NumPy spellings it met (np.float32, "f4",
# np.dtype("int8") ...): asking NumPy costs 0.3 us, more than a small op.
_DTYPES_SEEN = {}


def no_dtype(dt):
    """The TypeError for a NumPy dtype torchlike does not have, naming it, its
    kind and what to use instead."""
    kind = dt.kind
    if dt.names:
        name, what = dt, f"a structured dtype, fields {', '.join(dt.names)}: keep one tensor per field"
    elif kind == "V":
        name, what = dt.name, "raw bytes: use uint8"
    elif kind == "O":
        name, what = "object", "a tensor holds numbers: keep Python objects in a list"
    elif kind in "USa":
        name, what = dt.name, "a string dtype: keep strings in a list or a NumPy array"
    elif kind in "Mm":
        name, what = dt.name, "datetime64/timedelta64: use int64 counts of a unit"
    else:
        name, what = dt.name, "no tensor dtype holds it"
    return TypeError(f"torchlike has no dtype {name} ({what})")


def accumulator_dtype(dtype):
    """NumPy's accumulating dtype of sums and products (np.sum, np.add.reduce,
    np.cumsum): integer types accumulate in the widest type of their
    signedness, bool as a signed one; None keeps the input's dtype."""
    return _ACCUMULATORS.get(dtype)


# a dict: found by hash and identity, where `in` a tuple would call the dtypes'
# __eq__ (NumPy's comparison, about 0.2 us each) once per entry
_ACCUMULATORS = {**dict.fromkeys((_C.uint8, _C.uint16, _C.uint32, _C.uint64), _C.uint64),
                 **dict.fromkeys((_C.bool, _C.int8, _C.int16, _C.int32), _C.int64)}


def np_dtype(x):
    """The NumPy dtype of a tensor or a torchlike dtype (bfloat16: float32)."""
    d = x.dtype if isinstance(x, Tensor) else x
    return np.dtype("float32" if d == _C.bfloat16 else d.name)


def as_tensor(x):
    """A tensor for a NumPy operand: tensors as they are, anything else with
    NumPy's own dtype (so ``[1.5]`` is float64 here, as in NumPy).

    In a call on device tensors, Python scalars and sequences are copied to
    that device (small host values, as PyTorch does with Python scalars); an
    ndarray is host data and is refused with a TypeError, as CuPy refuses
    implicit host-to-device transfers."""
    if isinstance(x, Tensor):
        return x
    if MASKED_TYPES and isinstance(x, MASKED_TYPES[0]):
        raise MaskedOperand
    device = _DEVICE.get()
    if device is not None:
        if isinstance(x, np.ndarray) and x.ndim:
            raise TypeError(f"an ndarray (host memory) cannot be mixed with {device} "
                            f"tensors; move it there first with torchlike.numpy.asarray"
                            f"(a, device=...)")
        return _host_tensor(x).to(device)
    return _host_tensor(x)


def _host_tensor(x):
    if isinstance(x, (list, tuple)) and has_tensor(x):
        items = [as_tensor(e) for e in x]
        device = next((t.device for t in items if t.device.type != "cpu"), None)
        if device is not None:  # Python numbers beside device tensors ([t, 0.5]) go there
            items = [t.to(device) if t.device != device and not isinstance(e, Tensor) else t
                     for t, e in zip(items, x)]
        return _C.stack(_numpy_common(items))
    a = np.asarray(x)
    if a.dtype.kind not in "biufc":
        raise no_dtype(a.dtype)
    if a.dtype.byteorder == ">" and a.dtype.name in _NATIVE:
        a = a.astype(a.dtype.newbyteorder("="))
    try:
        return _C.from_numpy(a) if a.ndim else _C.from_numpy(a.reshape(1)).reshape(())
    except (TypeError, ValueError, RuntimeError):
        return _C.from_numpy(np.ascontiguousarray(a).copy().reshape(-1)).reshape(a.shape)


_NATIVE = {"bool", "uint8", "int8", "int16", "int32", "int64", "float16", "float32",
           "float64", "complex64", "complex128", "uint16", "uint32", "uint64"}


# Whether a (nested) list or tuple holds a tensor: asked of every list
# asarray is given, so in C (0.2 us as a Python loop over three floats).
has_tensor = _C._has_tensor


def tensor_if_holding(x):
    """A list or tuple holding tensors (values a program computed, on any
    device) as the one tensor NumPy would make of it, since NumPy's own
    conversion reads host memory only; anything else as it is."""
    return as_tensor(x) if isinstance(x, (list, tuple)) and has_tensor(x) else x


def flat(seq):
    for e in seq:
        if isinstance(e, (list, tuple)):
            yield from flat(e)
        else:
            yield e


def numpy_namespace():
    """``torchlike.numpy``, imported on first use (it imports after this
    module) and kept: an import statement per call cost about 1 us (CPython
    looks the module's spec up each time)."""
    if not _NAMESPACE:
        import torchlike.numpy as namespace
        _NAMESPACE.append(namespace)
    return _NAMESPACE[0]


_NAMESPACE = []


def reversed_dims(ndim):
    """(ndim - 1, ..., 1, 0): the permutation of a transpose, made once per
    rank (building it from reversed(range()) cost more than the permute)."""
    dims = _REVERSED_DIMS.get(ndim)
    if dims is None:
        dims = _REVERSED_DIMS[ndim] = tuple(range(ndim - 1, -1, -1))
    return dims


_REVERSED_DIMS = {}


def norm_axis(axis, ndim):
    """One axis, checked against ``ndim`` as NumPy checks it (AxisError)."""
    if type(axis) is int and -ndim <= axis < ndim:  # the common call, short
        return axis % ndim
    if isinstance(axis, builtins.bool) or not hasattr(axis, "__index__"):
        raise TypeError(f"'{type(axis).__name__}' object cannot be interpreted as an integer")
    axis = int(axis.__index__())
    if not -ndim <= axis < ndim:
        raise AxisError(axis, ndim)
    return axis % ndim


def scalar_count(v):
    """A 0-d integer array (``n = mask.sum()``, a count computed by the
    program) as the Python int NumPy's integer scalar would be, where NumPy
    takes an int (sizes, sections, kth, powers, axes); anything else as it is."""
    if isinstance(v, (Tensor, np.ndarray)) and v.ndim == 0 and \
            not (v.is_floating_point() or v.is_complex() if isinstance(v, Tensor)
                 else v.dtype.kind in "fc"):
        return int(v)
    return v


def norm_axes(axis, ndim):
    """None -> None; an int or a sequence of ints -> a tuple of distinct axes."""
    if axis is None:
        return None
    if type(axis) is int and -ndim <= axis < ndim:  # the common call, short: axis=0
        return (axis % ndim,)
    axes = tuple(norm_axis(a, ndim) for a in (axis if isinstance(axis, (tuple, list))
                                               else (axis,)))
    if len(set(axes)) != len(axes):
        raise ValueError("duplicate value in 'axis'")
    return axes


def weights_along(w, shape, axis):
    """NumPy's weights beside data of ``shape`` (average, quantile, the masked
    average): the data's shape, or (with ``axis``) the data's shape along
    those axes in their order, then shaped with ones elsewhere; NumPy's
    TypeError and ValueError otherwise."""
    if tuple(w.shape) == tuple(shape):
        return w
    if axis is None:
        raise TypeError("Axis must be specified when shapes of a and weights differ.")
    axes = norm_axes(axis, len(shape))
    if tuple(w.shape) != tuple(shape[i] for i in axes):
        raise ValueError("Shape of weights must be consistent with shape of a along "
                         "specified axis.")
    w = w.permute(*sorted(range(len(axes)), key=axes.__getitem__))  # in the data's order
    return w.reshape(tuple(n if i in axes else 1 for i, n in enumerate(shape)))


def all_axes(x):
    return tuple(range(x.ndim))


def refuse_host_out(result, out, name=None):
    """An ndarray ``out=`` cannot carry autograd history: writing a result
    that requires grad into it would hand back an array with the gradient
    silently dropped, so that is refused (a tensor ``out=`` records the copy)."""
    if isinstance(out, np.ndarray) and getattr(result, "requires_grad", False):
        where = f"{name}: " if name else ""
        raise RuntimeError(f"{where}out= is a NumPy array, which cannot record autograd "
                           f"history, and the result requires grad: drop out=, or give a "
                           f"tensor as out=")


def unaliased(a, out):
    """``a``, or a copy of it when NumPy's ``out=`` writes over a tensor
    that shares its memory (np.clip(a, 0, 1, out=a)) while ``a`` requires
    grad: the op keeps ``a`` for its gradient, and the write into ``out``
    would change what it kept (backward's "modified by an inplace
    operation").  The copy is recorded, so the gradient still reaches ``a``."""
    if isinstance(out, tuple) and len(out) == 1:
        out = out[0]
    if not (isinstance(out, _C.Tensor) and isinstance(a, _C.Tensor) and a.requires_grad
            and _C.is_grad_enabled()):
        return a
    if out.untyped_storage().data_ptr() != a.untyped_storage().data_ptr():
        return a
    return a.clone()


def _shape_words(shape):
    return "(" + ",".join(map(str, shape)) + ("," if len(shape) == 1 else "") + ")"


_SHAPED = (_C.Tensor, np.ndarray)


def out_broadcast(operands, target, where=None):
    """NumPy's rule for a ufunc's out=: the operands (tensors and ndarrays;
    numbers have no shape) broadcast together, then to out's shape (NumPy
    fills a larger out by broadcasting them further, ``np.add(row, 1,
    out=table)``, which the ops refuse), and a where= mask (a tensor or an
    ndarray) broadcasts to that too.  The operands' broadcast when it is
    smaller than ``target``; None when it is ``target``, or when the
    operands do not broadcast together (the op's error names them).  An out
    they cannot fill, or a mask that does not fit, is NumPy's ValueError
    (``broadcast_into``).

    The C fast path (``out_shape_met`` in py_ufunc.c) takes a call only
    when the first test below holds (it has no where=), and leaves every
    other call here."""
    mask = where if isinstance(where, _SHAPED) and where.ndim else None
    met, rank = False, len(target)
    for x in operands:  # (a loop: this runs on every call with out=)
        if isinstance(x, _C.Tensor) or isinstance(x, np.ndarray):
            if x.ndim > rank:
                break
            met = met or x.shape == target
    else:
        if met and mask is None:  # an operand is out's shape and none is larger
            return None
    try:
        shape = np.broadcast_shapes(*(tuple(x.shape) for x in operands
                                      if isinstance(x, _SHAPED)))
    except ValueError:
        if mask is None:
            return None
        shape = None  # NumPy names every operand, out and the mask
    broadcast_into(shape, tuple(target), operands, mask)
    return None if shape == tuple(target) else shape


def broadcast_into(shape, target, operands=(), where=None):
    """NumPy's ValueError unless a result of ``shape`` broadcasts to out's
    ``target`` (naming the operands' shapes where they are given, then
    out's, then a where= mask's, which must broadcast to ``target`` too;
    ``shape`` None: the operands do not broadcast together)."""
    try:
        if shape is None:
            raise ValueError
        full = np.broadcast_shapes(shape, target)
        if where is not None:
            np.broadcast_shapes(full, tuple(where.shape))
    except ValueError:
        shapes = [tuple(x.shape) for x in operands if isinstance(x, _SHAPED)] or [shape]
        shapes.append(target)
        if where is not None:
            shapes.append(tuple(where.shape))
        # (each shape followed by a space, the last one too, as NumPy words it)
        raise ValueError("operands could not be broadcast together with shapes "
                         + "".join(_shape_words(s) + " " for s in shapes)) from None
    if full != target:
        raise ValueError(f"non-broadcastable output operand with shape {_shape_words(target)} "
                         f"doesn't match the broadcast shape {_shape_words(full)}")
    if where is not None and np.broadcast_shapes(full, tuple(where.shape)) != full:
        raise ValueError(f"non-broadcastable output operand with shape {_shape_words(target)} "
                         f"doesn't match the broadcast shape "
                         f"{_shape_words(np.broadcast_shapes(full, tuple(where.shape)))}")


def check_reduce_out(name, shape, axes, keepdims, out, where=None):
    """NumPy's ValueErrors for the out= of a reduction by ufunc ``name``
    ("add" for np.sum) over ``axes`` of an input of ``shape``, checked before
    anything else (a bad where= mask or a missing identity come later, and
    the cast into out is unsafe): out with another number of dims than the
    result; out's dims (on the input's axes, the reduced ones new) or a
    where= mask that do not broadcast to the input (the operands' shapes
    remapped, NumPy's words); a 1 in out where the result's dim is longer."""
    if isinstance(out, tuple):
        out = out[0] if len(out) == 1 else None
    if not isinstance(out, _SHAPED):
        return
    have, shape = tuple(out.shape), tuple(shape)
    dims = list(range(len(shape))) if keepdims else \
        [d for d in range(len(shape)) if d not in axes]
    if len(have) != len(dims):
        raise ValueError(f"output parameter for reduction operation {name} has the wrong number "
                         f"of dimensions: Found {len(have)} but expected {len(dims)}"
                         + (" (must match the operand's when keepdims=True)" if keepdims else ""))
    mask = tuple(where.shape) if isinstance(where, _SHAPED) else None
    fits = all(h in (1, shape[d]) for h, d in zip(have, dims))
    if fits and mask is not None:
        try:
            fits = np.broadcast_shapes(mask, shape) == shape
        except ValueError:
            fits = False
    if not fits:
        # out's dims on the input's axes from its first one (NumPy leaves
        # the leading new axes out of its words)
        place = dict(zip(dims, have))
        remapped = ",".join(str(place[d]) if d in place else "newaxis"
                            for d in range(min(dims, default=len(shape)), len(shape)))
        words = [f"{_shape_words(have)}->({remapped})", _shape_words(shape)]
        if mask is not None:
            words.append(_shape_words(mask))
        raise ValueError("operands could not be broadcast together with remapped shapes "
                         "[original->remapped]: " + " ".join(words) + " ")
    for h, d in zip(have, dims):
        if h == 1 and shape[d] != 1 and d not in axes:
            raise ValueError(f"output operand requires a reduction along dimension {d}, but the "
                             f"reduction is not enabled. The dimension size of 1 does not match "
                             f"the expected output shape.")


def check_accumulate_out(shape, out):
    """NumPy's ValueErrors for the out= of an accumulation (np.cumsum,
    ufunc.accumulate) of an input of ``shape`` (raveled first for axis=None)
    whose shape is not the input's: of a 1-d input, the wrong size; else the
    shapes remapped (out's leading dims, as many as the input has).  An out
    with fewer dims than an N-d input (N > 1) meets NumPy's iterator first:
    out is its operand 0, mapped onto the input's axes one to one, and the
    first axis out lacks is named (counted from the last, as NumPy does).
    (NumPy crashes on a 0-d out of a 1-d input; that stays the wrong size.)"""
    if isinstance(out, tuple):
        out = out[0] if len(out) == 1 else None
    if not isinstance(out, _SHAPED):
        return
    have, shape = tuple(out.shape), tuple(shape)
    if have == shape:
        return
    if len(shape) == 1:
        raise ValueError("provided out is the wrong size for the accumulation.")
    if len(have) < len(shape):
        raise ValueError(f"Iterator input op_axes[0][{len(shape) - len(have) - 1}] "
                         f"(=={len(have)}) is not a valid axis of op[0], which has "
                         f"{len(have)} dimensions ")
    raise ValueError("operands could not be broadcast together with remapped shapes "
                     f"[original->remapped]: {_shape_words(have)}->"
                     f"({','.join(map(str, have[:len(shape)]))}) "
                     f"{_shape_words(shape)}->({','.join(map(str, shape))}) ")


def finish(result, out):
    """Write ``result`` into NumPy's ``out=`` (tensor or ndarray) and return it."""
    if out is None:
        return result
    if isinstance(out, tuple):
        if len(out) != 1:
            raise Unsupported("out= with several arrays")
        out = out[0]
    refuse_host_out(result, out)
    target = _C.from_numpy(out) if isinstance(out, np.ndarray) else out
    if tuple(target.shape) != tuple(result.shape):
        raise ValueError(f"output array has wrong shape: expected {tuple(result.shape)}, "
                         f"got {tuple(target.shape)}")
    target.copy_(result)
    return out


def out_cast_words(name, src, dst, casting):
    """NumPy's words for a ufunc result of dtype ``src`` that ``casting``
    does not let into an out= of dtype ``dst``."""
    return (f"Cannot cast ufunc '{name}' output from dtype('{src.name}') to "
            f"dtype('{dst.name}') with casting rule '{casting}'")


def check_out_cast(name, dtype, out, casting="same_kind"):
    """NumPy's rule for a ufunc's out=: the result's dtype must cast to
    out's (a tensor or an ndarray) under ``casting``; a float result into an
    int or bool out is its TypeError."""
    target = out.dtype if isinstance(out, _C.Tensor) else tl_dtype(out.dtype)
    if casting != "unsafe" and not can_cast_dtypes(dtype, target, casting):
        raise TypeError(out_cast_words(name, dtype, target, casting))


def finish_gufunc(result, out, name, signature, core=0, casting="same_kind"):
    """finish() for a generalized ufunc (matmul, vecdot ...): the result's
    dtype must cast to out's under ``casting`` (NumPy's TypeError, checked
    before the shapes, as NumPy resolves the loop first); out's last
    ``core`` dims must be the result's (NumPy's core-dimension ValueError),
    and its loop dims may be more than the result's, which NumPy then
    broadcasts over them, as a ufunc's out= (``broadcast_into``)."""
    target = out[0] if isinstance(out, tuple) and len(out) == 1 else out
    if target is not None:
        check_out_cast(name, result.dtype, target, casting)
    if target is None or tuple(target.shape) == tuple(result.shape):
        return finish(result, out)
    shape, have = tuple(result.shape), tuple(target.shape)
    if len(have) < core:
        raise ValueError(f"{name}: Output operand 0 does not have enough dimensions (has "
                         f"{len(have)}, gufunc core with signature {signature} requires {core})")
    for i in range(core):
        if have[len(have) - core + i] != shape[len(shape) - core + i]:
            raise ValueError(f"{name}: Output operand 0 has a mismatch in its core dimension "
                             f"{i}, with gufunc signature {signature} (size "
                             f"{have[len(have) - core + i]} is different from "
                             f"{shape[len(shape) - core + i]})")
    broadcast_into(shape, have)
    return finish(result.expand(have), out)


class value_errors:
    """A core op's RuntimeError about its arguments (shapes that do not
    match, a size that is not valid) as NumPy's ValueError, its message kept
    after the function's name; errors about devices stay as they are.
    (A class: a generator-based context manager cost 1.5 us per call.)"""
    __slots__ = ("name",)

    def __init__(self, name):
        self.name = name

    def __enter__(self):
        return self

    def __exit__(self, kind, error, tb):
        if kind is not None and issubclass(kind, RuntimeError) and "device" not in str(error):
            raise ValueError(f"{self.name}: {error}") from None
        return False


def integer_clip_bounds(x, lo, hi, open_ends=True):
    """NumPy's rule for Python-int clip bounds of an integer array ``x``: a
    lower bound at or below the dtype's least value (an upper one at or
    above its greatest) bounds nothing and becomes None (``open_ends``,
    open_clip_bounds); any other outside the range is NEP 50's
    OverflowError.  A float array's int bounds become floats (any size
    converts, as NumPy's weak scalars do); the rest come back as they are."""
    if x.is_floating_point() or x.is_complex():
        return tuple(float(b) if isinstance(b, int) and not isinstance(b, builtins.bool) else b
                     for b in (lo, hi))
    if x.dtype is _C.bool:
        return lo, hi
    if open_ends:
        lo, hi = open_clip_bounds(x.dtype, lo, hi)
    info = np.iinfo(np_dtype(x.dtype))
    for value in (lo, hi):
        if isinstance(value, int) and not isinstance(value, builtins.bool) and \
                not info.min <= value <= info.max:
            raise OverflowError(f"Python integer {value} out of bounds for {info.dtype}")
    return lo, hi


def open_clip_bounds(dtype, lo, hi):
    """NumPy's _clip for integer data of ``dtype``: a Python-int lower bound
    at or below the dtype's least value, or an upper one at or above its
    greatest, bounds nothing (None)."""
    if dtype == _C.bool or dtype.is_floating_point or dtype.is_complex:
        return lo, hi
    info = np.iinfo(np_dtype(dtype))

    def plain(v):
        return isinstance(v, int) and not isinstance(v, builtins.bool)
    return (None if plain(lo) and lo <= info.min else lo,
            None if plain(hi) and hi >= info.max else hi)


def refuse(**values):
    """Refuse (to the next route) arguments we have no equivalent for."""
    for name, v in values.items():
        if v is not NoValue and v is not None and v is not True:
            raise Unsupported(f"{name}= is not supported")


def cast(x, dtype):
    dtype = tl_dtype(dtype)  # a singleton: `is`, not the NumPy-aware __eq__
    return x if dtype is None or x.dtype is dtype else x.to(dtype)


def promote(*tensors):
    """The tensors cast to their common dtype (for ops that want one dtype)."""
    first = tensors[0].dtype
    for t in tensors:
        if t.dtype != first:
            break
    else:
        return list(tensors)
    dtype = functools.reduce(_C.promote_types, (t.dtype for t in tensors))
    return [t if t.dtype == dtype else t.to(dtype) for t in tensors]


def _numpy_common(tensors):
    """The items of a nested list cast to NumPy's common dtype for them: its
    promotion, not PyTorch's across kinds (np.array([f32_scalar, 3]) is
    float64, a Python number in a list counting as int64/float64/complex128);
    bfloat16, which NumPy lacks, by torchlike's rule."""
    dtypes = {t.dtype for t in tensors}
    if len(dtypes) < 2:
        return tensors
    dtype = functools.reduce(_C.promote_types, dtypes) if _C.bfloat16 in dtypes else \
        tl_dtype(np.result_type(*[np_dtype(d) for d in dtypes]))
    return [t if t.dtype == dtype else t.to(dtype) for t in tensors]


def operand(x):
    """A Python scalar stays weak (NEP 50); anything else becomes a tensor."""
    return x if isinstance(x, (Tensor, builtins.bool, int, float, complex)) else as_tensor(x)


# ---------------------------------------------------------------------------
# route 2: NumPy's own Python implementation, run on tensors

def _keep_asarray(a, dtype=None, order=None, *args, **kwargs):
    """``np.asarray`` as seen by a NumPy function run on tensors: tensors stay
    tensors (so the computation stays on the tape), other input is NumPy's."""
    if isinstance(a, Tensor):
        return cast(a, dtype)
    if isinstance(a, (list, tuple)) and has_tensor(a):
        return cast(as_tensor(a), dtype)
    return _to_call_device(a, np.asarray(a, dtype, order, *args, **kwargs))


def _to_call_device(given, host):
    """In a call on device tensors, numbers NumPy's code made an array of
    (``np.asarray(bins)`` of a list) go to that device, where the tensors
    they meet are; an ndarray given stays host data (refused when mixed)."""
    device = _DEVICE.get()
    if device is None or isinstance(given, np.ndarray) or not isinstance(host, np.ndarray) or \
            host.dtype.kind not in "biufc" or type(host) is not np.ndarray:
        return host
    return _host_tensor(host).to(device)


def _keep_array(a, dtype=None, *args, copy=True, **kwargs):
    if isinstance(a, Tensor) or isinstance(a, (list, tuple)) and \
            has_tensor(a):
        t = cast(as_tensor(a), dtype)
        ndmin = kwargs.get("ndmin", 0)
        if t.ndim < ndmin:
            t = t.reshape((1,) * (ndmin - t.ndim) + tuple(t.shape))
        return t.clone() if copy and t is a else t
    return _to_call_device(a, np.array(a, dtype, *args, copy=copy, **kwargs))


def _on_call_device(name):
    """NumPy's creation function ``name`` as seen by a NumPy function run on
    tensors: in a call on device tensors it makes its array on that device
    (np.histogram's ``np.linspace`` edges and ``np.zeros`` counts, then
    indexed with device tensors), elsewhere it is NumPy's own, host arrays
    mixing with host tensors as before.  Dtypes torchlike lacks (object,
    strings) stay NumPy's."""
    host = getattr(np, name)

    def create(*args, **kwargs):
        device = _DEVICE.get()
        if device is None or kwargs.get("like") is not None:
            return host(*args, **kwargs)
        import torchlike.numpy as tnp
        try:
            ours = getattr(tnp, name)
            result = ours(*args, **kwargs) if name.endswith("_like") else \
                ours(*args, **dict(kwargs, device=device))
        except (TypeError, NotImplementedError):
            return host(*args, **kwargs)
        return result if not isinstance(result, Tensor) or result.device == device else \
            result.to(device)
    create.__name__ = name
    return create


def _keep_atleast(name):
    """np.atleast_1d/2d as seen by NumPy's code: a list or tuple of tensors
    (np.histogramdd's sample) is one array, stacked as NumPy reads it."""
    host = getattr(np, name)

    def atleast(*arys):
        if any(isinstance(a, (list, tuple)) and has_tensor(a) for a in arys):
            import torchlike.numpy as tnp
            return getattr(tnp, name)(*[as_tensor(a) for a in arys])
        # in a call on device tensors, numbers (np.polydiv's divisor [1, -1])
        # become arrays on that device, as np.asarray's do
        return host(*[a if isinstance(a, (Tensor, np.ndarray)) else
                      _to_call_device(a, np.asarray(a)) for a in arys])
    atleast.__name__ = name
    return atleast


def _keep_ravel(a, order="C"):
    """np.ravel as seen by NumPy's code: numbers in a list (np.append's
    values) become an array on the call's device, as np.asarray's do."""
    if isinstance(a, (Tensor, np.ndarray)) or _DEVICE.get() is None:
        return np.ravel(a, order)
    return np.ravel(_keep_asarray(a), order)


def _keep_query(name):
    """np.ndim/np.shape/np.size as seen by NumPy's code: a list or tuple of
    tensors (np.histogram's bins=[lo, mid, hi] of computed edges) is read as
    the one array NumPy makes of it (NumPy's own C conversion reads host
    memory only, and would refuse a device's tensors)."""
    host = getattr(np, name)

    def query(a, *args, **kwargs):
        return host(tensor_if_holding(a), *args, **kwargs)
    query.__name__ = name
    return query


_KEEP = {"ravel": _keep_ravel,
         **{name: _keep_query(name) for name in ("ndim", "shape", "size")},
         "atleast_1d": _keep_atleast("atleast_1d"), "atleast_2d": _keep_atleast("atleast_2d"),
         "asarray": _keep_asarray, "asanyarray": _keep_asarray, "array": _keep_array,
         "ascontiguousarray": _keep_asarray, "asarray_chkfinite": _keep_asarray,
         **{name: _on_call_device(name) for name in
            ("zeros", "ones", "empty", "full", "arange", "linspace")}}


class _NumpyView(types.ModuleType):
    """A NumPy module as seen from a rebound function: attributes are the
    module's own, except the converters in ``_KEEP``."""

    def __init__(self, module):
        super().__init__(module.__name__)
        self.__dict__.update({k: v for k, v in vars(module).items() if k not in _KEEP})
        self.__dict__.update({k: v for k, v in _KEEP.items() if hasattr(module, k)})
        self.__dict__["_viewed_module"] = module

    def __getattr__(self, name):  # what the module loads lazily (np.fft ...)
        return getattr(self.__dict__["_viewed_module"], name)


_views = {}
_rebound = {}


def _view_of(module):
    view = _views.get(module.__name__)
    if view is None:
        view = _views[module.__name__] = _NumpyView(module)
    return view


def _rebind(fn):
    """``fn`` with its module globals seen through ``_NumpyView``; Python
    helpers of the same module (and tables of them) are rebound too, so they
    keep tensors as well."""
    key = id(fn)
    result = _rebound.get(key)
    if result is not None:
        return result[1]
    old = fn.__globals__
    new = {}
    result = types.FunctionType(fn.__code__, new, fn.__name__, fn.__defaults__, fn.__closure__)
    result.__kwdefaults__ = fn.__kwdefaults__
    _rebound[key] = (fn, result)
    for name, value in old.items():
        if name in _KEEP:
            value = _KEEP[name]
        elif isinstance(value, types.ModuleType) and value.__name__.startswith("numpy"):
            value = _view_of(value)
        elif isinstance(value, types.FunctionType) and value.__globals__ is old \
                and value is not fn:
            value = _LazyRebind(value)
        elif isinstance(value, dict) and value and all(
                isinstance(v, types.FunctionType) and v.__globals__ is old
                for v in value.values()):
            # a table of the module's helpers (np.histogram's bin estimators by name)
            value = {k: _LazyRebind(v) for k, v in value.items()}
        new[name] = value
    return result


class _LazyRebind:
    """A helper function, rebound the first time it is called."""
    __slots__ = ("fn",)

    def __init__(self, fn):
        self.fn = fn

    def __call__(self, *args, **kwargs):
        return _rebind(self.fn)(*args, **kwargs)


def _via_implementation(func, args, kwargs):
    impl = getattr(func, "_implementation", None)
    if not isinstance(impl, types.FunctionType):
        raise Unsupported(f"{_name(func)} has no Python implementation to run on tensors")
    return run_numpy_code(func, impl, args, kwargs)


def numpy_code(func, *args, **kwargs):
    """NumPy's Python function ``func`` (one NEP 18 does not dispatch, such as
    np.polynomial's) run on tensors as route 2 runs NumPy's code: on the
    device of its tensors, its converters keeping them."""
    return _on_device_of(run_numpy_code, (func, func, args, kwargs), {})


def run_numpy_code(func, impl, args, kwargs):
    # NumPy's code was written for NumPy's promotion (``asarray(x) + 0.0``,
    # ``int / int``, ``sqrt(int)`` are float64): this thread computes with
    # float64 as the default float dtype while it runs
    previous = _C._local_default_dtype(_C.float64)
    try:
        result = _rebind(impl)(*args, **kwargs)
    finally:
        _C._local_default_dtype(previous)
    result = _wrap(result)
    if _C.is_grad_enabled() and any(t.requires_grad for t in _tensors_in((args, kwargs), [])):
        _check_recorded(func, result)
    return result


def _check_recorded(func, result):
    """NumPy's code ran on a tensor that requires grad: a float result that
    does not require grad got its values through an ndarray (np.polydiv
    writes ``q[k] = d`` into ``np.zeros``), a gradient silently dropped.
    Refused (route 3 then raises the TypeError naming ``func``)."""
    for r in _tensors_in(result, []):
        if (r.is_floating_point() or r.is_complex()) and not r.requires_grad:
            raise Unsupported(f"{_name(func)}: NumPy's code lost the gradient of a tensor "
                              f"that requires grad (its values went through an ndarray)")


# ---------------------------------------------------------------------------
# route 3 and the protocol itself

def _tensors_in(obj, found):
    if isinstance(obj, Tensor):
        found.append(obj)
    elif isinstance(obj, (list, tuple)):
        for e in obj:
            _tensors_in(e, found)
    elif isinstance(obj, dict):
        for e in obj.values():
            _tensors_in(e, found)
    return found


def _to_numpy(obj):
    if isinstance(obj, Tensor):
        return obj.numpy()
    if isinstance(obj, list):
        return [_to_numpy(e) for e in obj]
    if isinstance(obj, tuple):
        return tuple(_to_numpy(e) for e in obj)
    if isinstance(obj, dict):
        return {k: _to_numpy(v) for k, v in obj.items()}
    return obj


def _wrap(result):
    if isinstance(result, (np.ndarray, np.generic)) and result.dtype.kind in "biufc?":
        r = np.asarray(result)
        return _C.from_numpy(r if r.ndim else r.reshape(1)).reshape(r.shape)
    if isinstance(result, tuple) and not hasattr(result, "_fields"):
        return tuple(_wrap(r) for r in result)
    if isinstance(result, list):
        return [_wrap(r) for r in result]
    if hasattr(result, "_fields"):  # NumPy's named results (SVDResult ...)
        return type(result)(*[_wrap(r) for r in result])
    return result


def check_fallback(name, tensors):
    """The rule for running NumPy itself on tensors: CPU, no gradient."""
    for t in tensors:
        if getattr(t, "requires_grad", False):
            raise TypeError(f"{name} has no torchlike implementation, so it cannot be "
                            f"recorded for autograd: it does not accept a tensor that "
                            f"requires grad")
        if t.device.type != "cpu":
            raise TypeError(f"{name} has no torchlike implementation and cannot run on a "
                            f"{t.device} tensor without copying it to the host")


def _name(func):
    module = getattr(func, "__module__", None) or "numpy"
    return f"{module}.{func.__name__}"


def _fallback(func, args, kwargs):
    check_fallback(_name(func), _tensors_in((args, kwargs), []))
    out = kwargs.get("out")
    result = func(*_to_numpy(args), **_to_numpy(kwargs))
    if out is not None:
        return out
    return _wrap(result)


def array_function(self, func, types_, args, kwargs):
    if not TABLE:
        import torchlike.numpy  # noqa: F401  (fills TABLE)
    for t in types_:
        if not issubclass(t, _OURS):
            return NotImplemented
    if "out" in kwargs and kwargs["out"] is not None:
        args = tuple(_unaliased_operand(a, kwargs["out"]) for a in args)
    impl = TABLE.get(func)
    if impl is not None:
        return impl(*args, **kwargs)
    return next_routes(func, args, kwargs)


def _unaliased_operand(a, out):
    """An operand (or a list of them, np.concatenate's) as ``unaliased``
    leaves it for an ``out=`` that may share its memory."""
    if isinstance(a, (list, tuple)):
        return type(a)(unaliased(x, out) for x in a)
    return unaliased(a, out)


def next_routes(func, args, kwargs):
    """Routes 2 and 3 for ``func``: no table entry, or one that refused."""
    try:
        return _on_device_of(_via_implementation, (func, args, kwargs), {})
    except Unsupported:
        pass
    except Exception as error:
        # NumPy's Python code met something a tensor does not do like an
        # ndarray.  NumPy itself has the last word when the rule allows (and
        # re-raises the caller's own mistakes with NumPy's exception); when it
        # does not, a ValueError/IndexError is the caller's mistake and any other
        # failure is reported as the function having no implementation.
        try:
            check_fallback(_name(func), _tensors_in((args, kwargs), []))
        except TypeError as refusal:
            if isinstance(error, (ValueError, IndexError)):
                raise error from None
            raise refusal from error
    return _fallback(func, args, kwargs)


_OURS = (Tensor, np.ndarray)


# ---------------------------------------------------------------------------
# what NumPy's Python code reads from dtypes and arrays

def _install_dtype_attributes():
    """``t.dtype.type``, ``.kind``, ``.char`` and ``np.dtype(torchlike.float32)``
    answer as NumPy's dtype does, so NumPy code inspecting a tensor's dtype
    (``issubclass(a.dtype.type, np.inexact)``) runs on tensors."""
    dtype = _C.dtype
    dtype.dtype = property(np_dtype)
    dtype.type = property(lambda d: np_dtype(d).type)
    dtype.kind = property(lambda d: np_dtype(d).kind)
    dtype.char = property(lambda d: np_dtype(d).char)
    # conj of a real tensor is the tensor itself, as in PyTorch
    Tensor.conj = lambda self: self.conj_physical() if self.is_complex() else self
    Tensor.astype = _astype


CASTINGS = ("no", "equiv", "safe", "same_kind", "unsafe")


def can_cast_dtypes(src, dst, casting):
    """NumPy's can_cast between torchlike dtypes (bfloat16, which NumPy lacks,
    by torchlike's own table)."""
    if _C.bfloat16 in (src, dst):
        return src == dst or casting == "unsafe" or (
            casting in ("safe", "same_kind") and _C.can_cast(src, dst))
    return np.can_cast(np_dtype(src), np_dtype(dst), casting)


def _same_value_cast(x, target):
    """x cast to target, or NumPy's ValueError when a value does not come back
    the same (a fraction dropped, an overflow, a rounding, an imaginary part;
    NaN stays NaN)."""
    result = cast(x, target)
    if result.dtype is _C.bool:  # NumPy: any number to bool keeps its truth
        return result
    back = cast(result, x.dtype) if not (x.is_complex() and not result.is_complex()) else \
        result.to(x.dtype)
    same = back == x
    if x.is_floating_point() or x.is_complex():
        same = same | (_C.isnan(x) & _C.isnan(back))
    if not bool(same.all()):
        raise ValueError(f"could not cast 'same_value' {np_dtype(x.dtype)} to "
                         f"{np_dtype(target)}")
    return result


def _astype(self, dtype, order="K", casting="unsafe", subok=True, copy=True):
    """NumPy's ``a.astype``: ``casting=`` refuses what its rule forbids (a
    TypeError naming both dtypes, as NumPy's), ``copy=False`` returns ``a``
    itself when nothing changes; ``order=`` lays the result out: "K" (the
    default) as ``a``, "C" row-major, "F" column-major, "A" column-major when
    ``a`` is."""
    if casting == "unsafe" and order == "K":  # the common call: a cast, a copy
        target = dtype if type(dtype) is _C.dtype else tl_dtype(dtype)
        if target is None or self.dtype is target:  # (cast's test, without its frames)
            return self.clone() if copy else self
        return self.to(target)
    target = tl_dtype(dtype)
    if casting == "same_value":  # NumPy 2.4: any cast, unless a value changes
        result = _same_value_cast(self, target)
        return _astype(result, target, order, "unsafe", subok, copy and result is self)
    if casting not in CASTINGS:
        raise ValueError(f"casting must be one of 'no', 'equiv', 'safe', 'same_kind', "
                         f"'same_value' or 'unsafe' (got {casting!r})")
    if casting != "unsafe" and not can_cast_dtypes(self.dtype, target, casting):
        raise TypeError(f"Cannot cast array data from dtype('{np_dtype(self.dtype)}') to "
                        f"dtype('{np_dtype(target)}') according to the rule {casting!r}")
    result = cast(self, target)
    order = order.upper() if isinstance(order, str) else "K"
    if order == "A":
        order = "F" if self.flags.f_contiguous else "C"
    if order in ("C", "F"):  # laid out so, by NumPy's flags (size-1 dims free, a step 0 not)
        flags = result.flags
        if not (flags.c_contiguous if order == "C" else flags.f_contiguous):
            return result.copy(order=order)
    if copy and result is self:
        return result.copy(order=order) if order in ("C", "F") else self.clone()
    return result


_install_dtype_attributes()

