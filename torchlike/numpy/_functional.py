"""Python-level loops over tensors' elements: ``vectorize`` and the
``broadcast`` object.

Both call Python once per element, so the elements are on the host whatever
the device: the inputs are copied there once (NumPy's own machinery runs on
the copies) and ``vectorize``'s numeric results go back to the inputs'
device (strings and other objects stay NumPy's arrays, as ``frompyfunc``'s
and ``Generator.choice``'s do: torchlike has no such dtypes).  A
tensor that requires grad is refused (the Python function sees NumPy scalars,
so no gradient could be recorded); ``broadcast``'s shape, size and ndim need
no copy."""
import math

import numpy as np

from .. import _C
from ._creation import asarray

Tensor = _C.Tensor


def to_host(x, what):
    """An ndarray with a tensor's values (bfloat16 as float32); anything else as it is."""
    if not isinstance(x, Tensor):
        return x
    if x.requires_grad and _C.is_grad_enabled():
        raise TypeError(f"numpy.{what} calls a Python function on the elements of a tensor "
                        f"that requires grad; no gradient can be recorded through it (use "
                        f"torchlike ops, or detach())")
    x = x.cpu()
    return (x.to(_C.float32) if x.dtype == _C.bfloat16 else x).numpy()


class vectorize(np.vectorize):
    """NumPy's ``vectorize`` (``otypes``, ``excluded``, ``signature``,
    ``cache``, decorator use) on tensors: the results are tensors on the
    inputs' device (the default device when no input is a tensor)."""

    def _call_as_normal(self, *args, **kwargs):
        tensors = [a for i, a in enumerate(args) if i not in self.excluded] + \
            [v for k, v in kwargs.items() if k not in self.excluded]
        device = next((t.device for t in tensors if isinstance(t, Tensor)), None)
        args = [a if i in self.excluded else to_host(a, "vectorize") for i, a in enumerate(args)]
        kwargs = {k: v if k in self.excluded else to_host(v, "vectorize")
                  for k, v in kwargs.items()}
        result = super()._call_as_normal(*args, **kwargs)
        if isinstance(result, tuple):
            return tuple(_result(r, device) for r in result)
        return _result(result, device)


def _result(r, device):
    """One of vectorize's results: a tensor of numbers, or NumPy's array of
    strings or objects as it is."""
    if isinstance(r, np.ndarray) and r.dtype.kind not in "biufc":
        return r
    return asarray(r, device=device)


class broadcast:
    """NumPy's ``broadcast`` object over tensors: ``shape``, ``nd``/``ndim``,
    ``size``, ``numiter``, and iteration over tuples of broadcast elements
    (NumPy scalars, read from one host copy of the inputs)."""

    def __init__(self, *args):
        if len(args) > 64:
            raise ValueError("Need at least 0 and at most 64 array objects.")
        self._args = [a if isinstance(a, Tensor) else asarray(a) for a in args]
        shapes = [tuple(a.shape) for a in self._args]
        try:
            self.shape = tuple(_C.broadcast_shapes(*shapes)) if shapes else ()
        except RuntimeError:  # NumPy's message names the first pair that clashes
            self.shape = self._mismatch(shapes)
        self.nd = self.ndim = len(self.shape)
        self.size = math.prod(self.shape)
        self.numiter = len(args)
        self._host = None

    @staticmethod
    def _mismatch(shapes):
        for i in range(1, len(shapes)):
            try:
                _C.broadcast_shapes(*shapes[:i + 1])
            except RuntimeError:
                first = next(j for j in range(i) if not _fits(shapes[j], shapes[i]))
                raise ValueError(f"shape mismatch: objects cannot be broadcast to a single "
                                 f"shape.  Mismatch is between arg {first} with shape "
                                 f"{shapes[first]} and arg {i} with shape {shapes[i]}."
                                 ) from None
        raise AssertionError("unreachable")

    def _iterator(self):
        if self._host is None:
            self._host = np.broadcast(*[to_host(a, "broadcast") for a in self._args])
        return self._host

    @property
    def index(self):
        return 0 if self._host is None else self._host.index

    @property
    def iters(self):
        """NumPy's flat iterators over the (host copies of the) inputs."""
        return self._iterator().iters

    def reset(self):
        if self._host is not None:
            self._host.reset()

    def __iter__(self):
        return self

    def __next__(self):
        return next(self._iterator())


def _fits(a, b):
    try:
        _C.broadcast_shapes(a, b)
    except RuntimeError:
        return False
    return True
