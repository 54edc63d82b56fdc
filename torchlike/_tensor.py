"""Tensor methods written in Python, attached to the C type at import.

The C type (``torchlike._C.Tensor``) holds everything on the hot path; what
lives here is presentation and protocol glue that is clearer in Python."""
from . import _C
from ._tensor_str import tensor_repr, _DTYPE_PREFIX
from . import _ufunc  # noqa: F401  (installs __array_ufunc__'s Python path)
from ._array_function import array_function, numpy_namespace
from .utils.hooks import RemovableHandle

Tensor = _C.Tensor
_FLOAT32_PRINTED = (_C.bfloat16, _C.float8_e4m3fn, _C.float8_e5m2, _C.float8_e4m3fnuz,
                    _C.float8_e5m2fnuz, _C.float8_e8m0fnu)


def _meta_repr(self, prefix):
    # a meta tensor has no values: PyTorch prints its place, size and dtype
    suffixes = ["device='meta'", f"size={tuple(self.shape)}"]
    if self.dtype != _C.get_default_dtype():
        suffixes.append(f"dtype={_DTYPE_PREFIX}{self.dtype.name}")
    if self.grad_fn is not None:
        suffixes.append(f"grad_fn=<{type(self.grad_fn).__name__}>")
    elif self.requires_grad:
        suffixes.append("requires_grad=True")
    return f"{prefix}..., {', '.join(suffixes)})"


def _repr(self):
    prefix = "tensor(" if type(self) is Tensor or isinstance(self, _parameter_types()) \
        else f"{type(self).__name__}("
    if self.is_meta:
        return _meta_repr(self, prefix)
    data = self.detach()
    if data.device.type != "cpu":
        data = data.cpu()  # printing reads the data through the device's backend
    # bfloat16 and float8, which NumPy lacks, print their float32 values (as
    # PyTorch's do); an empty tensor has none, and its shape goes apart
    if data.numel() == 0:
        data = data.reshape(-1)
    values = data.float().numpy() if self.dtype in _FLOAT32_PRINTED else data.numpy()
    grad_fn = self.grad_fn
    # a subclass prints its name, as PyTorch's do (Parameter adds its own line)
    return tensor_repr(values, self.dtype.name, prefix=prefix,
                       default_float=_C.get_default_dtype().name,
                       device=str(self.device), shape=tuple(self.shape),
                       requires_grad=self.requires_grad and grad_fn is None,
                       grad_fn_name=None if grad_fn is None else type(grad_fn).__name__)


def _format(self, spec):
    # a plain 0-d tensor formats as its Python number ('{:.2f}'.format(loss));
    # anything else formats as object does (its str for an empty spec)
    if self.ndim == 0 and type(self) is Tensor and not self.is_meta:
        return self.item().__format__(spec)
    return object.__format__(self, spec)


def _parameter_types():
    from .nn.parameter import Parameter, Buffer
    return (Parameter, Buffer)


def _set_real(self, value):
    _C.real(self).copy_(value)


def _set_imag(self, value):
    _C.imag(self).copy_(value)


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
Tensor.__format__ = _format
Tensor.__iter__ = _iter
Tensor.real = property(lambda self: _C.real(self), _set_real, doc="the real part (a view)")
Tensor.imag = property(lambda self: _C.imag(self), _set_imag, doc="the imaginary part (a view)")
Tensor.__array_priority__ = 1000
Tensor.__array_function__ = array_function


def _register_hook(self, hook):
    """Call ``hook(grad)`` whenever a gradient for this tensor is computed; a
    tensor it returns replaces the gradient."""
    hooks, output_nr = self._hook_list()
    entry = (output_nr, hook)
    hooks.append(entry)
    return RemovableHandle(hooks, entry=entry)


def _backward(self, gradient=None, retain_graph=None, create_graph=False, inputs=None):
    """Accumulate the gradient of this tensor into the leaves' ``.grad``."""
    from . import overrides
    if overrides.has_torch_function_unary(self):
        # PyTorch tests self alone: a subclass gradient is not a reason to
        # dispatch; it keeps its overrides inside hooks and custom backwards
        return overrides.handle_torch_function(
            Tensor.backward, (self,), self, gradient=gradient, retain_graph=retain_graph,
            create_graph=create_graph, inputs=inputs)
    from .autograd import backward
    backward(self, gradient, retain_graph, create_graph, inputs=inputs)


_backward.__name__ = _backward.__qualname__ = "backward"
_backward._tf_name = "torchlike.Tensor.backward"  # runs the test itself: overrides leaves it


def _register_post_accumulate_grad_hook(self, hook):
    """Call ``hook(tensor)`` on this leaf each time backward has accumulated
    its ``.grad`` (hook returns None: an optimizer step can run there)."""
    if self.grad_fn is not None:
        raise RuntimeError("post accumulate grad hooks cannot be registered on non-leaf tensors")
    hooks, _ = self._hook_list()
    entry = (-1, hook)  # the engine runs the (-1, hook) entries after accumulating
    hooks.append(entry)
    return RemovableHandle(hooks, entry=entry)


_register_hook.__name__ = _register_hook.__qualname__ = "register_hook"
_register_post_accumulate_grad_hook.__name__ = "register_post_accumulate_grad_hook"
_register_post_accumulate_grad_hook.__qualname__ = "register_post_accumulate_grad_hook"
Tensor.register_hook = _register_hook
Tensor.register_post_accumulate_grad_hook = _register_post_accumulate_grad_hook

from ._interop_cuda import cuda_array_interface as _cai, record_stream as _record_stream  # noqa: E402
Tensor.__cuda_array_interface__ = property(_cai)
Tensor.record_stream = _record_stream
Tensor.backward = _backward


_API_VERSIONS = ("2021.12", "2022.12", "2023.12", "2024.12", "2025.12")


def _array_namespace(self, /, *, api_version=None):
    """The Array API namespace of tensors: ``torchlike.numpy``."""
    if api_version is not None and api_version not in _API_VERSIONS:
        raise ValueError(f"Unrecognized array API version: {api_version!r}; torchlike.numpy "
                         f"implements {', '.join(_API_VERSIONS)}")
    return numpy_namespace()


def _to_device(self, device, /, *, stream=None):
    """The tensor on ``device`` (itself when already there), as the Array API asks."""
    if stream is not None and device != "cpu" and getattr(device, "type", device) != "cpu":
        raise ValueError("to_device: streams are not supported yet")
    return self if self.device == device else self.to(device)


Tensor.__array_namespace__ = _array_namespace
Tensor.to_device = _to_device


def _where(self, condition, y):
    """``x.where(condition, y)`` is ``torchlike.where(condition, x, y)``."""
    return _C.where(condition, self, y)


Tensor.where = _where


def _share_memory_(self):
    """Move this tensor's storage into shared memory, in place: every view of
    it stays valid and now shares memory with any process it is sent to.  A
    no-op when it is shared already (or on CUDA, shared when sent)."""
    if self.is_meta:  # no memory to share (PyTorch's error)
        raise RuntimeError("_share_fd_: only available on CPU")
    if self.device.type == "cpu":
        from .multiprocessing.reductions import share_storage
        share_storage(self)
    return self


def _is_shared(self):
    """Is this tensor's storage in shared memory (CUDA tensors: always)?"""
    return self.device.type == "cuda" or _C._is_shared(self)


Tensor.share_memory_ = _share_memory_
Tensor.is_shared = _is_shared
