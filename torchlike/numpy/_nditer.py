"""``nditer``: NumPy's multi-dimensional iterator over tensors.

NumPy's own ``numpy.nditer`` runs on zero-copy host views of the tensors, so
every flag, order, casting rule, broadcast and error is NumPy's; what it
hands out (``value``, the items of ``for x in it``, ``operands``) are
tensors sharing that memory: writing an item (``x[...] = v``) of a
``readwrite`` or ``writeonly`` operand writes the tensor, and ``allocate``d
operands come back as tensors.  Items are NumPy's 0-d arrays (1-d chunks with
``external_loop``), as tensors.  A Python loop over elements runs on the
host, so the operands must be CPU tensors (or host data), and a tensor that
requires grad is refused, as the namespace's fallback rule refuses them."""
import numpy as np

from .. import _C
from .._array_function import as_tensor, check_fallback, np_dtype, tl_dtype

Tensor = _C.Tensor


def _host(op):
    if op is None or not isinstance(op, Tensor):
        return op
    check_fallback("numpy.nditer", [op])
    if op.dtype == _C.bfloat16:
        raise TypeError("nditer: NumPy has no bfloat16; convert the tensor first "
                        "(x.to(torchlike.float32))")
    return op.numpy()


def _dtype(d):
    if d is None:
        return None
    return np_dtype(tl_dtype(d)) if not isinstance(d, np.dtype) else d


def _out(value):
    """NumPy's item (an ndarray view, or a tuple of them) as tensors."""
    if isinstance(value, tuple):
        return tuple(_out(v) for v in value)
    if isinstance(value, np.ndarray) and value.dtype.kind in "biufc":
        return as_tensor(value)
    return value



def _forwarded(name):
    """A property read from and written to the wrapped NumPy iterator."""
    return property(lambda self: getattr(self._it, name),
                    lambda self, value: setattr(self._it, name, value))

class nditer:
    """``nditer(op, flags=None, op_flags=None, op_dtypes=None, order='K',
    casting='safe', op_axes=None, itershape=None, buffersize=0)``: NumPy's
    iterator (see ``numpy.nditer``) whose operands and items are tensors."""

    def __init__(self, op, flags=None, op_flags=None, op_dtypes=None, order="K",
                 casting="safe", op_axes=None, itershape=None, buffersize=0):
        several = isinstance(op, (list, tuple))
        ops = list(op) if several else [op]
        if op_dtypes is not None:
            op_dtypes = [_dtype(d) for d in op_dtypes] if isinstance(op_dtypes, (list, tuple)) \
                else _dtype(op_dtypes)
        self._given = ops
        self._it = np.nditer([_host(o) for o in ops] if several else _host(ops[0]), flags,
                             op_flags, op_dtypes, order, casting, op_axes, itershape,
                             buffersize)

    @classmethod
    def _of(cls, it, given):
        self = object.__new__(cls)
        self._it, self._given = it, given
        return self

    # ---- iteration
    def __iter__(self):
        return self

    def __next__(self):
        return _out(next(self._it))

    def iternext(self):
        return self._it.iternext()

    def __enter__(self):
        self._it.__enter__()
        return self

    def __exit__(self, *exc):
        return self._it.__exit__(*exc)

    def close(self):
        self._it.close()

    def reset(self):
        self._it.reset()

    def copy(self):
        return nditer._of(self._it.copy(), self._given)

    def __len__(self):
        return len(self._it)

    def __getitem__(self, i):
        return _out(self._it[i])

    def __setitem__(self, i, value):
        self._it[i] = value.numpy() if isinstance(value, Tensor) else value

    # ---- state
    @property
    def value(self):
        return _out(self._it.value)

    @property
    def operands(self):
        """The operands as tensors: those given as tensors are themselves,
        allocated ones are tensors over NumPy's new arrays."""
        ops = self._it.operands
        return tuple(g if isinstance(g, Tensor) else _out(o) for g, o in zip(self._given, ops))

    @property
    def itviews(self):
        return tuple(_out(v) for v in self._it.itviews)

    @property
    def dtypes(self):
        return tuple(tl_dtype(d) for d in self._it.dtypes)

    # NumPy's iterator's position, read and set as they are
    multi_index, index, iterindex, iterrange = (
        _forwarded(name) for name in ("multi_index", "index", "iterindex", "iterrange"))

    def __getattr__(self, name):
        # the rest is NumPy's as it is: finished, itersize, ndim, nop, shape,
        # has_index, has_multi_index, has_delayed_bufalloc, iterationneedsapi,
        # buffered, remove_axis, remove_multi_index, enable_external_loop,
        # debug_print
        if name.startswith("_"):
            raise AttributeError(name)
        return getattr(self._it, name)


def nested_iters(op, axes, flags=None, op_flags=None, op_dtypes=None, order="K",
                 casting="safe", buffersize=0):
    """NumPy's ``nested_iters``: one ``nditer`` per group of ``axes``."""
    several = isinstance(op, (list, tuple))
    ops = list(op) if several else [op]
    if op_dtypes is not None:
        op_dtypes = [_dtype(d) for d in op_dtypes] if isinstance(op_dtypes, (list, tuple)) \
            else _dtype(op_dtypes)
    its = np.nested_iters([_host(o) for o in ops] if several else _host(ops[0]), axes, flags,
                          op_flags, op_dtypes, order, casting, buffersize)
    return tuple(nditer._of(it, ops) for it in its)
