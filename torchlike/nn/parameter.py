"""Parameter, Buffer and UninitializedParameter.

A Parameter is a Tensor subclass: assigned as a Module attribute it is
registered as one of the module's parameters.  It shares storage with the
tensor it was made from (as PyTorch's does) and, like PyTorch's, requires
grad by default.  Ops on a Parameter return plain Tensors."""
from .. import _C

Tensor = _C.Tensor

__all__ = ["Parameter", "Buffer", "UninitializedParameter", "UninitializedBuffer",
           "is_lazy"]


def _detached_subclass(cls, data, requires_grad):
    """A ``cls`` instance viewing ``data``'s storage, with no history."""
    # a view of data's storage, an inference tensor if data is one (as PyTorch;
    # _make_subclass refuses requires_grad for one outside inference_mode)
    return Tensor._make_subclass(cls, data.detach(), bool(requires_grad))


class _ParameterMeta(type):
    # a tensor subclass that stays itself as a parameter (a DTensor: see
    # Parameter.__new__) is marked ``_is_param`` and counts as a Parameter,
    # as in PyTorch
    def __instancecheck__(cls, instance):
        if super().__instancecheck__(instance):
            return True
        return cls is Parameter and isinstance(instance, Tensor) and \
            getattr(instance, "_is_param", False) is True


class Parameter(Tensor, metaclass=_ParameterMeta):
    r"""A Tensor that is a module parameter.

    Args:
        data (Tensor): the values (shared, not copied). Default: an empty tensor.
        requires_grad (bool): whether the parameter requires gradient. Default: True.
    """

    def __new__(cls, data=None, requires_grad=True):
        if data is None:
            data = _C.empty(0)
        if not isinstance(data, Tensor):
            raise TypeError(f"Parameter(): data must be a Tensor, not {type(data).__name__}")
        if cls is Parameter and getattr(type(data), "_tl_param_keeps_type", False):
            # a DTensor stays a DTensor (its layout lives in its type), detached
            # and marked as a parameter, as PyTorch does for such subclasses
            t = data.detach().requires_grad_(requires_grad)
            t._is_param = True
            return t
        return _detached_subclass(cls, data, requires_grad)

    def __init__(self, data=None, requires_grad=True):
        pass

    # ops on a Parameter run as on its data and return plain Tensors (PyTorch's choice)
    __torch_function__ = _C._disabled_torch_function_impl

    def __repr__(self):
        return "Parameter containing:\n" + Tensor.__repr__(self)

    __str__ = __repr__


class _BufferMeta(type):
    """isinstance(t, Buffer) for the plain tensors Buffer() returns (marked
    _is_buffer), as PyTorch's metaclass answers it."""

    def __instancecheck__(cls, instance):
        if cls is Buffer:
            return isinstance(instance, Tensor) and getattr(instance, "_is_buffer", False)
        return super().__instancecheck__(instance)


class Buffer(Tensor, metaclass=_BufferMeta):
    r"""A Tensor that, assigned to a Module attribute, is registered as a buffer.

    ``Buffer(data, persistent=True)`` returns a plain Tensor (data detached,
    its requires_grad kept) marked as a buffer, as PyTorch's does; a
    non-persistent buffer is left out of the state_dict."""

    def __new__(cls, data=None, *, persistent=True):
        if data is None:
            data = _C.empty(0)
        t = data.detach().requires_grad_(data.requires_grad)
        t.persistent = persistent
        t._is_buffer = True
        return t

    __torch_function__ = _C._disabled_torch_function_impl


class _UninitializedMixin:
    """Shared by the uninitialized parameter and buffer: a placeholder with no
    shape until ``materialize(shape)`` gives it storage (Lazy modules)."""

    cls_to_become = None
    __torch_function__ = _C._disabled_torch_function_impl

    def __init__(self, *args, **kwargs):
        pass

    def materialize(self, shape, device=None, dtype=None):
        """Storage of ``shape``; the dtype and device default to the
        placeholder's own (those it was made with, or converted to by
        ``Module.to``/``double()``...)."""
        if device is None:
            device = self.data.device
        if dtype is None:
            dtype = self.data.dtype
        self.data = _C.empty(tuple(shape), dtype=dtype, device=device)
        self.__class__ = self.cls_to_become

    def _lazy_error(self, *args, **kwargs):
        raise ValueError(
            f"Attempted to use an uninitialized parameter in {type(self).__name__}. "
            "This error happens when you are using a `LazyModule` or explicitly manipulating "
            "`torch.nn.parameter.UninitializedParameter` objects. When using LazyModules "
            "Call `forward` with a dummy batch to initialize the parameters before calling "
            "torch functions")

    def __repr__(self):
        return "<UninitializedParameter>"

    @property
    def shape(self):
        raise RuntimeError(
            "Can't access the shape of an uninitialized parameter or buffer. This error usually "
            "happens in `load_state_dict` when trying to load an uninitialized parameter into "
            "an initialized one. Call `forward` to initialize the parameters before accessing "
            "their attributes.")


def _refuse(name):
    def method(self, *args, **kwargs):
        raise ValueError(
            f"Attempted to use an uninitialized parameter in <method '{name}' of "
            "'torchlike.Tensor' objects>. This error happens when you are using a `LazyModule` "
            "or explicitly manipulating `torch.nn.parameter.UninitializedParameter` objects. "
            "When using LazyModules Call `forward` with a dummy batch to initialize the "
            "parameters before calling torch functions")
    method.__name__ = name
    return method


# computing with a placeholder is an error (PyTorch refuses every op but the
# conversions and size()); without __torch_function__, the common methods and
# operators refuse here, the C ops see a 0-element tensor
for _name in ("numel", "dim", "__len__", "__add__", "__radd__", "__sub__", "__rsub__", "__mul__",
              "__rmul__", "__truediv__", "__rtruediv__", "__matmul__", "__rmatmul__", "__pow__",
              "__neg__", "__getitem__", "sum", "mean", "matmul", "mm", "t", "view", "reshape",
              "item", "tolist", "numpy"):
    setattr(_UninitializedMixin, _name, _refuse(_name))


class UninitializedParameter(_UninitializedMixin, Parameter):
    """A Parameter whose shape is not known yet (used by Lazy modules)."""

    cls_to_become = Parameter

    def __new__(cls, requires_grad=True, device=None, dtype=None):
        return Parameter.__new__(cls, _C.empty(0, dtype=dtype, device=device), requires_grad)

    def __deepcopy__(self, memo):
        return type(self)(self.requires_grad, self.data.device, self.data.dtype)


class UninitializedBuffer(_UninitializedMixin, Tensor):
    """A buffer whose shape is not known yet (used by Lazy modules)."""

    cls_to_become = Tensor

    def __new__(cls, requires_grad=False, device=None, dtype=None, persistent=True):
        self = _detached_subclass(cls, _C.empty(0, dtype=dtype, device=device), requires_grad)
        self.persistent = persistent
        self._is_buffer = True    # isinstance(..., Buffer), as PyTorch's
        return self

    def __repr__(self):
        return "<UninitializedBuffer>"


def is_lazy(param):
    """True for an UninitializedParameter or UninitializedBuffer."""
    return isinstance(param, _UninitializedMixin)
