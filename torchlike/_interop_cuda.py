"""Tensor.__cuda_array_interface__ (version 3) and Tensor.record_stream.

CuPy, Numba and PyTorch read a CUDA tensor's memory through the interface
dict without a copy; its ``stream`` is the tensor's device's current stream
(1 for the legacy default stream, as the protocol spells it), on which the
consumer must order its work.  CPU tensors have no such attribute (so
``hasattr`` is False on them).  The import side (an object with the
interface into asarray/as_tensor/from_dlpack) is in C
(src/ndcore/bindings/py_dlpack.c)."""
from . import _C

# NumPy type strings of the dtypes the interface can carry (no bfloat16: NumPy has none).
_TYPESTR = {"bool": "|b1", "uint8": "|u1", "int8": "|i1", "int16": "<i2", "int32": "<i4",
            "int64": "<i8", "float16": "<f2", "float32": "<f4", "float64": "<f8",
            "complex64": "<c8", "complex128": "<c16", "uint16": "<u2", "uint32": "<u4",
            "uint64": "<u8"}


def cuda_array_interface(self):
    """The __cuda_array_interface__ dict of a CUDA tensor (version 3)."""
    if self.device.type != "cuda":
        raise AttributeError(f"Can't get __cuda_array_interface__ on non-CUDA tensor type: "
                             f"{self.device.type} tensor")
    if self.requires_grad:
        raise RuntimeError("Can't get __cuda_array_interface__ on Variable that requires grad. "
                           "If gradients aren't required, use var.detach() to get Variable "
                           "that doesn't require grad.")
    typestr = _TYPESTR.get(self.dtype.name)
    if typestr is None:
        raise TypeError(f"dtype {self.dtype.name} has no __cuda_array_interface__ typestr")
    itemsize = self.element_size()
    if self.is_contiguous():
        strides = None
    else:
        strides = tuple(s * itemsize for s in self.stride())
    data_ptr = self.data_ptr() if self.numel() > 0 else 0
    stream = _C._cuda_current_stream(self.device.index) or 1  # the legacy default is 1 here
    return {"typestr": typestr, "shape": tuple(self.shape), "strides": strides,
            "data": (data_ptr, False), "version": 3, "stream": stream}


def record_stream(self, stream):
    """Mark this tensor's memory as used by ``stream`` (a torchlike.cuda.Stream):
    when the tensor is freed, the caching allocator does not hand its block
    out again before the work queued on ``stream`` so far is done."""
    handle = getattr(stream, "cuda_stream", None)
    if handle is None:
        raise TypeError(f"record_stream(): expected a torchlike.cuda.Stream, got "
                        f"{type(stream).__name__}")
    _C._tensor_record_stream(self, handle)
