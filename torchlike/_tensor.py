"""Tensor methods written in Python, attached to the C type at import.

The C type (``torchlike._C.Tensor``) holds everything on the hot path; what
lives here is presentation and protocol glue that is clearer in Python."""
from . import _C
from ._tensor_str import tensor_repr
from ._ufunc import array_ufunc
from ._array_function import array_function

Tensor = _C.Tensor


def _repr(self):
    values = self.numpy() if self.dtype != _C.bfloat16 else self.float().numpy()
    return tensor_repr(values, self.dtype.name,
                       default_float=_C.get_default_dtype().name,
                       device=str(self.device))


def _T(self):
    return self.permute(*reversed(range(self.ndim)))


def _mT(self):
    if self.ndim < 2:
        raise RuntimeError(f"tensor.mT is only supported on matrices or batches of matrices. "
                           f"Got {self.ndim}-D tensor.")
    return self.transpose(-2, -1)


def _iter(self):
    if self.ndim == 0:
        raise TypeError("iteration over a 0-d tensor")
    return (self[i] for i in range(self.shape[0]))


def _reversed_op(name):
    op = getattr(_C, name)

    def method(self, other):
        return op(other, self)
    method.__name__ = f"__r{name}__"
    return method


Tensor.__repr__ = _repr
Tensor.__str__ = _repr
Tensor.__iter__ = _iter
Tensor.T = property(_T)
Tensor.mT = property(_mT)
Tensor.data = property(lambda self: self)
Tensor.__array_ufunc__ = array_ufunc
Tensor.__array_priority__ = 1000
Tensor.__array_function__ = array_function
