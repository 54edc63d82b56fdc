"""The ndarray surface of Tensor: what NumPy code calls on what it believes is
an ndarray, and what NumPy's own Python code calls (``np.repeat`` calls
``a.repeat(r, axis=axis)``, ``x.size * ...``).

The rule (docs/numpy.md lists every collision):
- a spelling only NumPy uses -- ``axis=``, ``keepdims=``, ``ddof=``, ``order=``,
  ``initial=``/``where=`` on a reduction, ``transpose()`` with no argument or
  with a permutation -- selects NumPy's meaning;
- PyTorch's spelling keeps PyTorch's meaning; where one spelling means two
  things (``x.sort()``, ``x.nonzero()``, one-argument ``x.repeat(2)``),
  PyTorch wins;
- where PyTorch refuses a call NumPy accepts (``x.dot(m)`` on matrices,
  ``x.cumsum()`` without a dim, ``x.item(0)``), NumPy's meaning is taken, since
  no PyTorch code can depend on the error.

Each overridden method is a ``_C._Spelled`` (src/ndcore/bindings/py_spelling.c):
it looks at the spelling in C and hands the call to the original method or to
the NumPy-meaning function below (usually ``torchlike.numpy``'s).  Both paths
are recorded on the tape like any other call."""
import math
import sys
import types

import numpy as np

from . import _C
# (_array_function is imported before this module: _tensor imports it)
from ._array_function import (as_tensor, np_dtype, numpy_namespace, reversed_dims,
                              tensor_if_holding, tl_dtype)
from ._layout import contiguous_format

Tensor = _C.Tensor
_ORIGINAL = {}


_numpy_ns = numpy_namespace  # torchlike.numpy, kept once imported


def _override(name, numpy_call, rule=_C._SPELL_KEYWORDS, keywords=(), module=False):
    """Make ``Tensor.<name>`` a ``_C._Spelled``: the original method, unless the
    call is spelled the NumPy way (``rule``, or one of ``keywords`` given; the
    rules are in src/ndcore/bindings/py_spelling.c), then ``numpy_call``.
    The choice is made in C, so PyTorch's spelling pays next to nothing."""
    original = getattr(Tensor, name)
    _ORIGINAL[name] = original
    method = _C._Spelled(original, numpy_call, rule, tuple(keywords))
    setattr(Tensor, name, method)
    # View functions are their method (torchlike.transpose is Tensor.transpose)
    # and stay so; reductions keep PyTorch's module function (torchlike.max).
    package = sys.modules[__package__]
    if module and getattr(package, name, None) is original:
        setattr(package, name, method)


# ---- reductions: axis=/keepdims=/out=/ddof= select NumPy ----------------------

_REDUCE_KW = ("axis", "keepdims", "initial", "where")

def _numpy_function(name):
    return lambda self, *a, **k: getattr(_numpy_ns(), name)(self, *a, **k)


for _name in ("max", "min"):
    _override(_name, _numpy_function(_name), keywords=_REDUCE_KW)
# std/var of a bool or integer tensor: NumPy's (ddof=0, float64); PyTorch
# refuses the dtype.
for _name in ("std", "var"):
    _override(_name, _numpy_function(_name), _C._SPELL_INTEGRAL, ("ddof",) + _REDUCE_KW)
# sum/prod/any/all: PyTorch's methods read axis=/keepdims= as their own; only
# NumPy's where= and initial= need NumPy's function
for _name, _keywords in (("sum", ("where", "initial")), ("prod", ("where", "initial")),
                         ("any", ("where",)), ("all", ("where",))):
    _override(_name, _numpy_function(_name), keywords=_keywords)
# NumPy code calls it: diagonal(offset, axis1, axis2), PyTorch's dim1/dim2
_override("diagonal", lambda self, offset=0, axis1=0, axis2=1:
          _numpy_ns().diagonal(self, offset, axis1, axis2), keywords=("axis1", "axis2"),
          module=True)
# NumPy: no axis means over the flattened array; PyTorch requires dim.
for _name in ("cumsum", "cumprod"):
    _override(_name, _numpy_function(_name), _C._SPELL_CUMULATIVE, ("axis",))
# The mean of a bool or integer tensor (a hit rate, mask.mean()) is float64 in
# NumPy; PyTorch refuses the dtype.  Float tensors keep PyTorch's method.
_override("mean", _numpy_function("mean"), _C._SPELL_INTEGRAL, ("axis", "keepdims", "where"))
# argmax/argmin: NumPy's axis=/keepdims=/out= take NumPy's (complex numbers in
# its order, an empty slice its ValueError); PyTorch's dim=/keepdim= its own
for _name in ("argmax", "argmin"):
    _override(_name, _numpy_function(_name), keywords=("axis", "keepdims", "out"))


def _ptp(self, axis=None, out=None, keepdims=False):
    """Peak to peak: ``max - min`` along ``axis`` (NumPy's ``ptp``)."""
    return _numpy_ns().ptp(self, axis=axis, out=out, keepdims=keepdims)


Tensor.ptp = _ptp




def _round(self, ndigits=None):
    """``round(x)`` of a 0-d tensor, as of the NumPy scalar it stands for:
    a Python int without ``ndigits``, else a 0-d tensor of x's dtype rounded
    to ``ndigits`` decimals.  Arrays (NumPy's and PyTorch's) have no
    ``__round__``: ``np.round(x, n)`` rounds them."""
    if self.ndim != 0 or self.is_complex() or self.dtype is _C.bool:
        raise TypeError(f"type torchlike.Tensor doesn't define __round__ for a "
                        f"{'complex or bool' if self.ndim == 0 else 'non-0-d'} tensor "
                        f"(shape {tuple(self.shape)}, {self.dtype}); use np.round(x, decimals)")
    if ndigits is None:
        return round(self.item())
    return _numpy_ns().round(self, ndigits)


Tensor.__round__ = _round

# ---- shape: transpose, repeat, reshape/flatten with order= --------------------


def _transpose(self, *args, axes=None):
    if axes is None and len(args) == 1:
        axes = args[0]
    elif axes is None and args:
        axes = args
    if axes is None:
        return self.permute(*reversed_dims(self.ndim))
    return self.permute(*axes)


# PyTorch's transpose is exactly two dims (dim0, dim1), by position or name.
_override("transpose", _transpose, _C._SPELL_TRANSPOSE, ("axes",), module=True)
_override("repeat", lambda self, repeats, axis=None: _numpy_ns().repeat(self, repeats, axis=axis),
          keywords=("axis",))


def _set_shape(self, shape):
    """``a.shape = (2, 3)``: NumPy's in-place reshape, which changes the view
    itself and never copies (Tensor.shape's setter, in C, calls this)."""
    if getattr(shape, "ndim", None) == 1:  # an array of sizes (np.gradient's own code)
        shape = shape.tolist()
    shape = (shape,) if not isinstance(shape, (tuple, list, _C.Size)) else tuple(shape)
    try:
        shape = tuple(int(s) for s in shape)
    except TypeError:
        raise TypeError(f"shape must be a sequence of integers, got {shape!r}") from None
    numel, known = self.numel(), [s for s in shape if s != -1]
    size = 1
    for s in known:
        size *= s
    if len(known) < len(shape) - 1 or any(s < -1 for s in shape) or (
            len(known) == len(shape) and size != numel) or (
            len(known) < len(shape) and (size == 0 or numel % size)):
        raise ValueError(f"cannot reshape array of size {numel} into shape {shape}")
    try:
        view = _ORIGINAL_VIEW(self, shape)
    except RuntimeError:  # the memory's layout would need a copy
        raise AttributeError("Incompatible shape for in-place modification. Use `.reshape()` "
                             "to make a copy with the desired shape.") from None
    self.as_strided_(tuple(view.shape), view.stride(), view.storage_offset())


_ORIGINAL_VIEW = Tensor.view


def _fortran_reshape(self, shape):
    # Fortran order reads and writes the first index fastest: reverse the dims,
    # reshape in C order to the reversed shape, reverse back.
    shape = tuple(shape[0]) if len(shape) == 1 and isinstance(shape[0], (tuple, list)) else shape
    shape = tuple(int(s) for s in shape)
    flat = self.permute(*reversed(range(self.ndim))).reshape(*reversed(shape))
    return flat.permute(*reversed(range(flat.ndim)))


def _check_order(name, order, x):
    """Whether NumPy's ``order`` reads x in Fortran order: 'F', or 'A'/'K' of
    an array laid out that way (Fortran-contiguous, not C-contiguous)."""
    order = order.upper() if isinstance(order, str) else order  # NumPy takes 'f' too
    if order not in ("C", "F", "A", "K") or order == "K" and name == "reshape":
        raise ValueError(f"{name}(): order must be one of 'C', 'F', 'A'"
                         f"{'' if name == 'reshape' else ' or K'}, not {order!r}")
    if order in ("A", "K"):
        return bool(x.flags.f_contiguous and not x.flags.c_contiguous)
    return order == "F"


def _keep_order(x):
    """x with its axes permuted into the order NumPy's order='K' reads them:
    the outermost in memory first (by the size of the stride), where a zero
    stride (a broadcast axis) or a length-1 axis is ambiguous and keeps its
    C position, and a negative stride keeps its direction (NumPy's
    iterator's insertion sort)."""
    strides, shape = x.stride(), x.shape
    perm = list(range(x.ndim))
    for i0 in range(1, len(perm)):
        ipos = i0
        for i1 in range(i0 - 1, -1, -1):
            a0, a1 = perm[i0], perm[i1]
            s0, s1 = abs(strides[a0]), abs(strides[a1])
            if s0 == 0 or s1 == 0 or shape[a0] == 1 or shape[a1] == 1:
                continue
            if s0 <= s1:
                break
            ipos = i1
        perm.insert(ipos, perm.pop(i0))
    return x.permute(*perm)


def _flat_in_order(x, name, order):
    """x read into one dimension in NumPy's ``order`` (a view where the
    reading order is x's layout)."""
    if isinstance(order, str) and order.upper() == "K":
        return _keep_order(x).reshape(-1)
    return _fortran_reshape(x, (-1,)) if _check_order(name, order, x) else _torch_ravel(x)


def _reshape_numpy(self, *shape, order="C"):
    if _check_order("reshape", order, self):
        return _fortran_reshape(self, shape)
    return _ORIGINAL["reshape"](self, *shape)


def _flatten_numpy(self, order="C"):
    """NumPy's ``a.flatten(order=)``: always a copy (PyTorch's is a view where it can)."""
    flat = _flat_in_order(self, "flatten", order)
    return flat.clone() if flat._is_view() or flat is self else flat


def _sort_numpy(self, axis=-1, kind=None, order=None, *, stable=None):
    """NumPy's ``a.sort(axis=, kind=)``: in place, returns None (sorting is
    always stable here, which every ``kind`` allows)."""
    if axis is None:  # NumPy's in-place sort keeps the shape: no flattening
        raise TypeError("'NoneType' object cannot be interpreted as an integer "
                        "(ndarray.sort sorts in place along one axis; np.sort(a, axis=None) "
                        "returns the flattened, sorted copy)")
    self.copy_(_numpy_ns().sort(self, axis=axis, kind=kind, order=order))


# PyTorch's x.sort(dim) returns (values, indices); NumPy's keywords sort in place
_override("sort", _sort_numpy, keywords=("axis", "kind", "order"))
# argsort: the same call in both APIs, except NumPy's kind=/order= and
# axis=None (the indices of the flattened array), which NumPy's takes
_override("argsort", lambda self, axis=-1, kind=None, order=None, *, stable=None:
          _numpy_ns().argsort(self, axis=axis, kind=kind, order=order, stable=stable),
          keywords=("axis", "kind", "order"))
_override("reshape", _reshape_numpy, keywords=("order",))
_override("flatten", _flatten_numpy, keywords=("order",), module=True)
_torch_flatten = _ORIGINAL["flatten"]


def _flatten_by_position(self, *args, **kwargs):
    """``x.flatten('F')``: NumPy's order given by position (PyTorch's first
    argument is an int dim, so a string can only be NumPy's)."""
    if args and isinstance(args[0], str):
        return _flatten_numpy(self, *args, **kwargs)
    return _torch_flatten(self, *args, **kwargs)


_ORIGINAL["flatten"] = _torch_flatten
_spelled_flatten = Tensor.flatten
Tensor.flatten = _C._Spelled(_flatten_by_position, _flatten_numpy, _C._SPELL_KEYWORDS,
                             ("order",))
if getattr(sys.modules[__package__], "flatten", None) is _spelled_flatten:
    sys.modules[__package__].flatten = Tensor.flatten
_torch_ravel = Tensor.ravel


def _ravel(self, *args, **kwargs):
    """``x.ravel()``: PyTorch's; ``x.ravel('F')`` / ``x.ravel(order=)``, which
    PyTorch's method refuses, NumPy's."""
    if not args and not kwargs:
        return _torch_ravel(self)
    order = args[0] if args else kwargs.pop("order", "C")
    if len(args) > 1 or kwargs:
        raise TypeError("ravel() takes at most 1 argument (order)")
    flat = _flat_in_order(self, "ravel", order)
    # NumPy's ravel is contiguous: a copy where a view would step backwards
    return flat if flat.is_contiguous() else flat.contiguous()


# x.ravel() goes to PyTorch's straight from C; any argument to _ravel
Tensor.ravel = _C._Spelled(_torch_ravel, _ravel, _C._SPELL_ARGUMENTS)
if getattr(sys.modules[__package__], "ravel", None) is _torch_ravel:
    sys.modules[__package__].ravel = Tensor.ravel  # the function is the method, as before
# axis=: NumPy's squeeze, which refuses an axis whose length is not one
_override("squeeze", lambda self, axis=None:
          _ORIGINAL["squeeze"](self) if axis is None else _numpy_ns().squeeze(self, axis),
          keywords=("axis",), module=True)

def _view_as_dtype(self, dtype=None, type=None):
    """``x.view(np.int32)``: the same bytes read as another dtype."""
    if type is not None:
        raise TypeError("view(): the type= argument of ndarray.view is not supported: tensors "
                        "have one type")
    if dtype is None:
        # NumPy's x.view(): a new view of the same elements, recorded as a shape
        # view (view(dtype), even of x's own dtype, is not differentiable in
        # PyTorch, which would drop the gradient of x.view() silently)
        return _ORIGINAL["view"](self, tuple(self.shape))
    return _ORIGINAL["view"](self, tl_dtype(dtype))


_override("view", _view_as_dtype, _C._SPELL_VIEW, ("dtype",))


# ---- products and selection ---------------------------------------------------


# PyTorch's dot takes two 1-d tensors and refuses anything else; take, a tensor
# of indices into the flattened input.
_override("dot", lambda self, b, out=None: _numpy_ns().dot(self, b) if out is None else
          _numpy_ns().dot(self, b, out=out), _C._SPELL_DOT,
          ("out", "b"))
_override("take", lambda self, indices, axis=None, out=None, mode="raise":
          _numpy_ns().take(self, indices, axis=axis, out=out, mode=mode), _C._SPELL_TAKE,
          ("axis", "out", "mode", "indices"))
# searchsorted (a method PyTorch's Tensor lacks; ours is torchlike.searchsorted's):
# values that are not a tensor (a list, a NumPy array), a positional side or
# NumPy's v=/sorter= take NumPy's
_override("searchsorted", lambda self, v, side="left", sorter=None:
          _numpy_ns().searchsorted(self, v, side=side, sorter=sorter), _C._SPELL_TAKE,
          ("v", "sorter"))


# ---- copies and fills ---------------------------------------------------------


def _copy(self, order="C"):
    """A new tensor with the same values (NumPy's ``ndarray.copy``: C order by
    default, ``'F'`` for Fortran order, ``'A'``/``'K'`` keep the layout)."""
    if order == "C":  # the default: one C-ordered clone
        return self.clone(memory_format=contiguous_format)
    order = order.upper() if isinstance(order, str) else order  # NumPy takes 'f' too
    if order in ("A", "K"):  # a Fortran-ordered tensor's copy stays Fortran-ordered
        fortran = self.ndim > 1 and not self.is_contiguous() and \
            self.permute(*reversed(range(self.ndim))).is_contiguous()
        if not fortran:
            return self.clone()
        order = "F"
    if order not in ("C", "F"):
        raise ValueError(f"copy(): order must be one of 'C', 'F', 'A' or 'K', not {order!r}")
    # A Fortran-order tensor is a C-order one of the reversed shape, seen through
    # the reversing permutation.
    flip = list(reversed(range(self.ndim))) if order == "F" else list(range(self.ndim))
    out = _C.empty([self.shape[d] for d in flip], dtype=self.dtype, device=self.device)
    out = out.permute(*flip).detach()  # owns its memory: no view (base None), as NumPy's
    out.copy_(self)
    return out


def _fill(self, value):
    """Fill in place with ``value`` (NumPy's ``ndarray.fill``; returns None),
    converted as NumPy converts it (a Python int past the dtype, a NaN into
    integers: NumPy's error; 1.5 into integers: 1)."""
    dtype = self.dtype  # dtypes are singletons: `is`, not the NumPy-aware comparison
    if dtype is _C.float64 and type(value) is float or \
            dtype is _C.int64 and type(value) is int and -2 ** 63 <= value < 2 ** 63:
        self.fill_(value)  # the common call: NumPy's conversion gives value itself
        return
    if not isinstance(value, Tensor) and dtype is not _C.bfloat16:
        value = np.array(value, dtype=np_dtype(dtype)).item()
    self.fill_(value)


Tensor.copy = _copy
Tensor.fill = _fill

# ---- attributes ---------------------------------------------------------------


class _SizeInt(int):
    """``x.size`` read as an attribute: the element count, as NumPy reads it
    (``0.5 * x.size``), that can also be called as PyTorch's ``x.size()`` /
    ``x.size(dim)`` (for a bound method kept for later, or an assert that
    pytest rewrites)."""

    def __new__(cls, tensor):
        self = int.__new__(cls, tensor.numel())
        self._tensor = tensor
        return self

    def __call__(self, dim=None):
        # through Tensor.size (the _Spelled, which runs the __torch_function__
        # test), not the bare method: a subclass answers its own size
        size = Tensor.size
        return size(self._tensor) if dim is None else size(self._tensor, dim)

    def __repr__(self):
        return int.__repr__(self)


# x.size(), x.size(0) call PyTorch's method straight from C; reading x.size
# gives the callable int above (py_spelling.c, rule ATTRIBUTE).
_ORIGINAL["size"] = Tensor.size
Tensor.size = _C._Spelled(Tensor.size, _SizeInt, _C._SPELL_ATTRIBUTE)


def _strides(self):
    """Byte steps per dim, as NumPy's ``ndarray.strides``."""
    size = self.itemsize
    return tuple([s * size for s in self.stride()])  # (a list: a generator cost more)


Tensor.strides = property(_strides)


class _Flags:
    """The subset of ``ndarray.flags`` NumPy code reads."""

    def __init__(self, tensor):
        self.c_contiguous = tensor.is_contiguous()
        self.f_contiguous = tensor.ndim < 2 and self.c_contiguous or \
            tensor.permute(*reversed(range(tensor.ndim))).is_contiguous()
        self.contiguous = self.c_contiguous
        self._tensor = tensor
        self.owndata = tensor._base is None
        self.aligned = True

    @property
    def writeable(self):
        # the storage's flag, on every device (a read-only host tensor also
        # exports a read-only buffer)
        return not self._tensor._is_readonly()

    @writeable.setter
    def writeable(self, value):
        # NumPy's `a.flags.writeable = False` is setflags(write=False)
        self._tensor.setflags(write=bool(value))

    # NumPy's derived flags (np.isfortran reads fnc)
    writebackifcopy = False

    @property
    def fnc(self):
        return self.f_contiguous and not self.c_contiguous

    @property
    def forc(self):
        return self.f_contiguous or self.c_contiguous

    @property
    def behaved(self):
        return self.aligned and self.writeable

    @property
    def carray(self):
        return self.behaved and self.c_contiguous

    @property
    def farray(self):
        # as NumPy answers it: not C-contiguous and any of aligned, writeable,
        # F-contiguous (so a strided slice of a C-ordered array is True too)
        return not self.c_contiguous and (self.aligned or self.writeable or self.f_contiguous)

    def __eq__(self, other):
        keys = ("c_contiguous", "f_contiguous", "writeable", "owndata", "aligned")
        if not hasattr(other, "c_contiguous"):
            return NotImplemented
        return all(getattr(self, k) == getattr(other, k) for k in keys)

    __hash__ = None

    def __getitem__(self, key):
        names = {"C_CONTIGUOUS": "c_contiguous", "C": "c_contiguous", "CONTIGUOUS": "contiguous",
                 "F_CONTIGUOUS": "f_contiguous", "F": "f_contiguous", "WRITEABLE": "writeable",
                 "W": "writeable", "OWNDATA": "owndata", "O": "owndata", "ALIGNED": "aligned",
                 "A": "aligned", "WRITEBACKIFCOPY": "writebackifcopy", "X": "writebackifcopy",
                 "FNC": "fnc", "FORC": "forc", "BEHAVED": "behaved", "B": "behaved",
                 "CARRAY": "carray", "CA": "carray", "FARRAY": "farray", "FA": "farray"}
        return getattr(self, names[key.upper()])

    def __setitem__(self, key, value):
        """``a.flags["WRITEABLE"] = False``: the flags NumPy lets a program set,
        through setflags (its errors); any other name is NumPy's KeyError."""
        name = {"WRITEABLE": "write", "W": "write", "ALIGNED": "align", "A": "align",
                "WRITEBACKIFCOPY": "uic", "X": "uic"}.get(key.upper() if isinstance(key, str)
                                                           else key)
        if name is None:
            raise KeyError("Unknown flag")
        self._tensor.setflags(**{name: bool(value)})

    def __repr__(self):
        return "\n".join(f"  {k.upper()} : {getattr(self, k)}" for k in
                         ("c_contiguous", "f_contiguous", "owndata", "writeable", "aligned"))


class _FlatIter:
    """``x.flat``: the elements in C order, readable and writable by index."""

    def __init__(self, tensor):
        self._tensor = tensor

    def _flat(self):
        return self._tensor.reshape(-1) if self._tensor.is_contiguous() else None

    def __len__(self):
        return self._tensor.numel()

    def __iter__(self):
        # NumPy yields scalars: `for v in a.flat: v += 1` leaves `a` alone, and
        # each element is read when reached (an earlier write is seen)
        flat = self._tensor.reshape(-1)
        for i in range(flat.shape[0]):
            yield flat[i].clone()

    def __getitem__(self, index):
        # NumPy's flat reads are copies (a scalar, or a new array for a slice),
        # so updating what they return never writes the array; .flat has no
        # PyTorch meaning to keep
        got = self._tensor.reshape(-1)[index]
        return got.clone() if got._base is not None else got

    def __setitem__(self, index, value):
        flat = self._flat()
        if flat is None:
            # a strided view (x.T.flat[1] = v): no flat view of it exists, so the
            # C-order positions written become multi-indices of the view itself
            pos = _C.arange(self._tensor.numel(), device=self._tensor.device)[index]
            coords = []
            for n in reversed(self._tensor.shape):
                coords.append(pos % n)
                pos = pos // n
            flat, index = self._tensor, tuple(reversed(coords))
        if isinstance(value, (int, float, complex)):
            flat[index] = value
            return
        # NumPy's rule: the values, flattened, are repeated (or cut) to the
        # number of positions written (np.fill_diagonal(a, [1, 2]) relies on it)
        v = value if isinstance(value, Tensor) else \
            _numpy_ns().asarray(value, device=self._tensor.device)
        shape = tuple(flat[index].shape)
        n = math.prod(shape)
        v = v.reshape(-1)
        if v.numel() and v.numel() != n:
            v = v[_C.remainder(_C.arange(n, device=v.device), v.numel())]
        flat[index] = v.reshape(shape) if v.numel() == n else v


Tensor.flags = property(_Flags)
def _set_flat(self, value):
    """``x.flat = values``: every element, in C order, from the values repeated."""
    _FlatIter(self)[...] = value


Tensor.flat = property(_FlatIter, _set_flat)
Tensor.base = property(lambda self: self._base)


def _tobytes(self, order="C"):
    """The raw bytes in C (or Fortran) order, as NumPy's ``tobytes``."""
    return _numpy_ns().asarray(self.detach().cpu()).__array__().tobytes(order=order)


Tensor.tobytes = _tobytes


def _bytes(self):
    """``bytes(t)``: a CPU tensor's memory through the buffer protocol, as an
    ndarray's; a device tensor's by one deliberate copy to the host, as
    ``tobytes`` (CPython asks ``__bytes__`` before the buffer, which a device
    tensor refuses)."""
    if self.device.type == "cpu":
        return bytes(memoryview(self))
    return self.tobytes()


Tensor.__bytes__ = _bytes

# ---- dtypes compare equal to NumPy's ------------------------------------------

_dtype_type = _C.dtype


def _numpy_dtype_of(other):
    """NumPy's dtype for a NumPy dtype, scalar type or name; None otherwise."""
    if isinstance(other, (np.dtype, str)) or other in (bool, int, float, complex) or (
            isinstance(other, type) and issubclass(other, np.generic)):
        try:
            return np.dtype(other)
        except (TypeError, ValueError):  # not a dtype name ("float32x", any text)
            return None
    return None


# The dtypes NumPy lacks (the quantized ones too): their names compare,
# nothing else NumPy's does.
_NO_NUMPY = frozenset({"bfloat16", "float8_e4m3fn", "float8_e5m2", "float8_e4m3fnuz",
                       "float8_e5m2fnuz", "float8_e8m0fnu", "quint8", "qint8", "qint32",
                       "quint4x2", "quint2x4"})


def _dtype_eq(self, other):
    if isinstance(other, _dtype_type):
        return self is other
    if isinstance(other, str) and other == self.name:
        return True  # bfloat16 has no NumPy dtype, but its name still compares
    want = _numpy_dtype_of(other)
    if want is None:
        return NotImplemented
    return self.name not in _NO_NUMPY and np.dtype(self.name) == want


def _dtype_ne(self, other):
    eq = _dtype_eq(self, other)
    return eq if eq is NotImplemented else not eq


def _dtype_call(self, *args):
    """``torchlike.numpy.float32(1.0)``: a NumPy scalar of this dtype, as CuPy's
    namespace gives (a 0-d tensor for bfloat16, which NumPy lacks).  The
    arguments are the scalar type's: ``complex64(1, 2)`` is ``1+2j``."""
    if self.name in _NO_NUMPY:
        return _C.tensor(args[0] if args else 0, dtype=self)
    return np.dtype(self.name).type(*args)


def _install_numpy_dtype_attributes():
    """The rest of NumPy's dtype attributes, so NumPy code reading them from a
    tensor's dtype (``x.dtype.alignment``, ``.byteorder``, ``.isnative``,
    ``.fields``) runs.  torchlike's dtypes are native-endian scalars: no fields,
    no subarray, their own base.  ``newbyteorder`` gives NumPy's byte-swapped
    dtype (torchlike has none; tensors refuse it, as they refuse any dtype they
    lack).  bfloat16, which NumPy lacks, answers what a 2-byte scalar does."""
    fixed = {"isnative": True, "isbuiltin": 1, "hasobject": False, "fields": None,
             "names": None, "subdtype": None, "shape": (), "ndim": 0, "metadata": None,
             "isalignedstruct": False}
    for name, value in fixed.items():
        setattr(_dtype_type, name, property(lambda self, v=value: v))
    _dtype_type.base = property(lambda self: self)
    # a complex number aligns as its real part (NumPy's, and C's, rule)
    _dtype_type.alignment = property(lambda self: self.itemsize // (2 if self.is_complex else 1))
    _dtype_type.byteorder = property(lambda self: "|" if self.itemsize == 1 else "=")

    def numpy_attribute(name):
        def get(self):
            if self.name in _NO_NUMPY:
                raise AttributeError(f"{self.name} has no NumPy dtype, so no {name!r}")
            return getattr(np.dtype(self.name), name)
        return property(get)
    for name in ("str", "descr", "num", "flags"):
        setattr(_dtype_type, name, numpy_attribute(name))

    def newbyteorder(self, new_order="S"):
        if self.name in _NO_NUMPY:
            raise TypeError(f"{self.name} has no NumPy dtype to byte-swap")
        return np.dtype(self.name).newbyteorder(new_order)
    _dtype_type.newbyteorder = newbyteorder


_install_numpy_dtype_attributes()
_dtype_hash = _dtype_type.__hash__
_dtype_type.__eq__ = _dtype_eq
_dtype_type.__ne__ = _dtype_ne
_dtype_type.__hash__ = _dtype_hash
_dtype_type.__call__ = _dtype_call


# ---- ndarray methods PyTorch lacks: NumPy's meaning ----------------------------

def _compress(self, condition, axis=None, out=None):
    """The slices along ``axis`` where ``condition`` holds (NumPy's ``compress``)."""
    return _numpy_ns().compress(condition, self, axis=axis, out=out)


def _choose(self, choices, out=None, mode="raise"):
    """``choices[self[i]][i]`` (NumPy's ``choose``; ``self`` holds the indices)."""
    return _numpy_ns().choose(self, choices, out=out, mode=mode)


def _partition(self, kth, axis=-1, kind="introselect", order=None):
    """Partitions in place around ``kth`` (a full sort, which is one); returns None."""
    self.copy_(_numpy_ns().partition(self, kth, axis=axis, kind=kind, order=order))


def _argpartition(self, kth, axis=-1, kind="introselect", order=None):
    return _numpy_ns().argpartition(self, kth, axis=axis, kind=kind, order=order)


def _conjugate(self):
    """The complex conjugate (NumPy's spelling of ``conj``)."""
    return _numpy_ns().conjugate(self)


def _contains(self, element):
    """``element in x``: whether any element equals it (PyTorch's, and NumPy's, meaning).
    A row given as a list, tuple or ndarray (``[1, 4] in pairs``) is compared
    by broadcasting, as NumPy does; PyTorch refuses it, so no PyTorch code
    depends on the refusal."""
    if isinstance(element, (Tensor, bool, int, float, complex, np.generic)):
        return bool((element == self).any().item())
    if isinstance(element, (list, tuple, np.ndarray)):
        return bool((_numpy_ns().asarray(element, device=self.device) == self).any().item())
    raise RuntimeError(f"Tensor.__contains__ only supports Tensor or scalar, but you passed "
                       f"in a {type(element)}.")


_torch_trace = Tensor.trace


def _trace(self, *args, **kwargs):
    """``x.trace()``: PyTorch's (a 2-d tensor's diagonal sum, which NumPy's is
    too); with NumPy's arguments (``offset, axis1, axis2, dtype, out``), which
    PyTorch's method refuses, NumPy's ``trace``."""
    if not args and not kwargs and self.ndim == 2:
        return _torch_trace(self)
    return _numpy_ns().trace(self, *args, **kwargs)  # (PyTorch's takes matrices only)


Tensor.trace = _trace

_torch_put = Tensor.put


def _put_numpy(self, indices, values, mode="raise"):
    """NumPy's ``a.put(ind, v, mode=)``: in place on the flattened tensor,
    values repeated as needed; ``mode`` 'raise' (negative indices count from
    the end), 'wrap' or 'clip'.  Returns None."""
    if mode not in ("raise", "wrap", "clip"):
        raise ValueError(f"clipmode must be one of 'clip', 'raise', or 'wrap' (got {mode!r})")
    # NumPy's order: the indices (safely intp), the target's size, then the
    # values converted to its dtype (a Python int past it: OverflowError)
    index = _numpy_ns().asarray(indices, device=self.device).reshape(-1)
    if index.numel() and (index.is_floating_point() or index.is_complex()):
        raise TypeError(f"Cannot cast array data from dtype('{index.dtype.name}') to "
                        f"dtype('int64') according to the rule 'safe'")
    n = self.numel()
    if index.numel() and n == 0:
        raise IndexError("cannot replace elements of an empty array")
    values = tensor_if_holding(values)
    if isinstance(values, Tensor):
        vals = values.reshape(-1)
    else:
        host = np.array(values, dtype=np_dtype(self.dtype))
        vals = _numpy_ns().asarray(host, device=self.device).reshape(-1)
    if index.numel() == 0 or vals.numel() == 0:
        return None
    index = index.to(_C.int64)
    if mode == "wrap":
        index = _C.remainder(index, n)
    elif mode == "clip":
        index = _C.clamp(index, 0, n - 1)
    else:
        bad = (index < -n) | (index >= n)
        if bool(bad.any()):
            first = int(index[bad][0])
            raise IndexError(f"index {first} is out of bounds for axis 0 with size {n}")
        index = _C.where(index < 0, index + n, index)
    vals = vals[_C.remainder(_C.arange(index.numel(), device=self.device), vals.numel())]
    vals = vals.to(self.dtype)
    if self.is_contiguous():
        self.view(-1)[index] = vals
    else:  # write through the element coordinates of the flat positions
        coords, rest = [], index
        for size in reversed(self.shape):
            coords.append(_C.remainder(rest, size))
            rest = _C.floor_divide(rest, size)
        self[tuple(reversed(coords))] = vals
    return None


def _put(self, *args, **kwargs):
    """``x.put(...)``: PyTorch's (a new tensor) for ``put(index_tensor,
    source_tensor[, accumulate])``; NumPy's in-place ``put`` for ``mode=`` or
    indices/values that are not tensors (which PyTorch refuses)."""
    if "mode" in kwargs or (args and not isinstance(args[0], Tensor)) or \
            (len(args) > 1 and not isinstance(args[1], Tensor)) or \
            "indices" in kwargs or "values" in kwargs:
        return _put_numpy(self, *args, **kwargs)
    return _torch_put(self, *args, **kwargs)


Tensor.put = _put

_torch_imag = Tensor.imag


def _imag_get(self):
    """``x.imag``: PyTorch's view for complex tensors; zeros for real ones, as
    NumPy gives (PyTorch refuses them)."""
    if self.is_complex():
        return _torch_imag.__get__(self)
    return _C.zeros_like(self)


def _imag_set(self, value):
    _torch_imag.__set__(self, value)


Tensor.imag = property(_imag_get, _imag_set, doc=_torch_imag.__doc__)
Tensor.compress = _compress
Tensor.choose = _choose
Tensor.partition = _partition
Tensor.argpartition = _argpartition
Tensor.conjugate = _conjugate
Tensor.__contains__ = _contains
# reversed(x): the rows last to first, as PyTorch's (flip(0)) and NumPy's
# (the sequence protocol) give them; here a view, as NumPy's x[::-1] is.  A
# 0-d tensor is itself, as in PyTorch.
Tensor.__reversed__ = lambda self: self if self.ndim == 0 else self[::-1]
Tensor.__divmod__ = lambda self, other: _numpy_ns().divmod(self, other)
Tensor.__rdivmod__ = lambda self, other: _numpy_ns().divmod(other, self)
Tensor.__class_getitem__ = classmethod(types.GenericAlias)  # np.ndarray[Any, ...] annotations
