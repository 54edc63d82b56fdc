"""Tensors as host arrays for the transport, and the reductions on them.

``HostBuffer(t)`` gives ``arr``, a C-contiguous 1-D ndarray over the
tensor's bytes: the tensor's own memory when it is a contiguous CPU tensor,
else a copy (non-contiguous views, CUDA tensors staged through the host)
that ``commit()`` writes back in place.  bfloat16 has no NumPy dtype: it
travels as its int16 bits and is reduced in float32, rounded back to
bfloat16 (round to nearest even) after each combining step."""
import numpy as np

from .. import _C
from .._dtype_names import scalar_type_name
from .constants import RedOpType

__all__ = ["HostBuffer", "dtype_code", "check_op", "combine", "finish_avg"]

_DTYPES = [_C.bool, _C.uint8, _C.int8, _C.int16, _C.int32, _C.int64, _C.float16,
           _C.bfloat16, _C.float32, _C.float64, _C.complex64, _C.complex128, _C.uint16,
           _C.uint32, _C.uint64]
_BYTES = -1  # the dtype code of an untyped byte message (pickled objects, barriers)


def dtype_code(dtype):
    return _DTYPES.index(dtype)


def dtype_name(code):
    return "bytes" if code == _BYTES else str(_DTYPES[code])


class HostBuffer:
    """A tensor's data as a flat C-contiguous ndarray (see the module doc)."""

    def __init__(self, tensor):
        self.tensor = tensor
        self.dtype = tensor.dtype
        self.code = dtype_code(tensor.dtype)
        self.bf16 = tensor.dtype == _C.bfloat16
        t = tensor.detach()
        self.on_host = t.device.type == "cpu"
        if not self.on_host:
            t = t.cpu()
        if self.bf16:
            t = t.view(_C.int16)
        view = t.numpy()
        self.arr = np.ascontiguousarray(view).reshape(-1)
        # a copy (non-contiguous or staged) must be written back after an update
        self._view = view
        self.copied = not self.on_host or not view.flags.c_contiguous

    @property
    def nbytes(self):
        return self.arr.nbytes

    def commit(self):
        """Write ``arr`` back into the tensor when it is a copy."""
        if not self.copied:
            return
        if self.on_host:
            self._view[...] = self.arr.reshape(self._view.shape)
        else:
            host = _C.from_numpy(self.arr.reshape(self._view.shape).copy())
            if self.bf16:
                host = host.view(_C.bfloat16)
            with _no_grad():
                self.tensor.copy_(host)


def _no_grad():
    from ..autograd.grad_mode import no_grad
    return no_grad()


def check_op(op, dtype, name="all_reduce"):
    """PyTorch's errors for a reduction the dtype does not support."""
    op = RedOpType(op)
    if dtype.is_complex and op in (RedOpType.MAX, RedOpType.MIN, RedOpType.PRODUCT,
                                   RedOpType.BAND, RedOpType.BOR, RedOpType.BXOR):
        raise ValueError(f"{name} does not support {op} on complex tensors")
    if op in (RedOpType.BAND, RedOpType.BOR, RedOpType.BXOR) and \
            (dtype.is_floating_point or dtype.is_complex):
        raise RuntimeError(f"Cannot use ReduceOp.{op.name} with non-integral dtype")
    if op == RedOpType.AVG and not (dtype.is_floating_point or dtype.is_complex):
        raise RuntimeError(f"result type Float can't be cast to the desired output type "
                           f"{scalar_type_name(dtype)}")
    if op == RedOpType.PREMUL_SUM:
        raise RuntimeError("ReduceOp.PREMUL_SUM is not supported by the gloo backend: use "
                           "SUM on tensors scaled beforehand")
    return op


_UFUNCS = {RedOpType.SUM: np.add, RedOpType.AVG: np.add, RedOpType.PRODUCT: np.multiply,
           RedOpType.MIN: np.minimum, RedOpType.MAX: np.maximum,
           RedOpType.BAND: np.bitwise_and, RedOpType.BOR: np.bitwise_or,
           RedOpType.BXOR: np.bitwise_xor}


def _bf16_to_f32(bits):
    return (bits.view(np.uint16).astype(np.uint32) << 16).view(np.float32)


def _f32_to_bf16(x, out):
    u = x.view(np.uint32)
    rounded = (u + (np.uint32(0x7FFF) + ((u >> 16) & 1))) >> 16
    nan = np.isnan(x)
    rounded[nan] = 0x7FC0
    out.view(np.uint16)[...] = rounded.astype(np.uint16)


def combine(op, acc, other, bf16=False):
    """``acc = op(acc, other)`` elementwise, in place (``other`` is a flat
    array of ``acc``'s dtype, or its bytes)."""
    if isinstance(other, (bytes, bytearray, memoryview)):
        other = np.frombuffer(other, dtype=acc.dtype)
    ufunc = _UFUNCS[op]
    with np.errstate(all="ignore"):  # inf and nan follow IEEE, silently, as PyTorch
        _combine(ufunc, op, acc, other, bf16)


def _combine(ufunc, op, acc, other, bf16):
    if bf16:
        _f32_to_bf16(ufunc(_bf16_to_f32(acc), _bf16_to_f32(other)), acc)
    elif acc.dtype == np.bool_ and op == RedOpType.SUM:
        np.logical_or(acc, other, out=acc)
    elif acc.dtype == np.bool_ and op == RedOpType.PRODUCT:
        np.logical_and(acc, other, out=acc)
    else:
        ufunc(acc, other, out=acc)


def finish_avg(op, acc, size, bf16=False):
    """AVG is the sum divided by the group size."""
    if op != RedOpType.AVG:
        return
    with np.errstate(all="ignore"):
        if bf16:
            _f32_to_bf16(_bf16_to_f32(acc) / np.float32(size), acc)
        else:
            np.divide(acc, size, out=acc, casting="unsafe")
