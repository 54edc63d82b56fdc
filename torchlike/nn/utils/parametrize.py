"""Parametrizations: a tensor of a module computed from other tensors.

``register_parametrization(m, "weight", P())`` moves the parameter to
``m.parametrizations.weight.original`` (or ``original0``, ``original1`` ...
when ``P.right_inverse`` returns several tensors) and makes ``m.weight`` a
property that evaluates ``P(original)`` on access.  The module's class is
swapped for a subclass named ``Parametrized<Class>`` that holds the property,
as in PyTorch, so state-dict keys and reprs match.

Inside ``with cached():`` each parametrized tensor is computed once, on its
first access, and reused until the outermost ``cached()`` block exits."""
import contextlib
import copy

from ... import _C
from ...autograd.grad_mode import no_grad
from ..modules.container import ModuleDict, ModuleList
from ..parameter import Parameter

Tensor = _C.Tensor

__all__ = ["cached", "register_parametrization", "remove_parametrizations",
           "is_parametrized", "ParametrizationList", "type_before_parametrizations",
           "transfer_parametrizations_and_params"]

# nesting depth of ``cached()`` blocks, and the tensors computed inside them,
# keyed by (id(module), tensor name)
_cache_enabled = 0
_cache = {}


@contextlib.contextmanager
def cached():
    """Evaluate each parametrization at most once inside the block: useful
    when a parametrized weight is read several times in one forward (the
    steps of a recurrent layer).  Blocks nest; the cache is dropped when the
    outermost one exits."""
    global _cache, _cache_enabled
    _cache_enabled += 1
    try:
        yield
    finally:
        _cache_enabled -= 1
        if not _cache_enabled:
            _cache = {}


def _set_data(original, value):
    """``original`` takes ``value``'s data in place (PyTorch's ``set_``): the
    tensor object, which optimizers may hold, stays the same."""
    if tuple(value.shape) == tuple(original.shape):
        original.copy_(value)
    else:
        original.data = value.detach()


def _register_parameter_or_buffer(module, name, t):
    if isinstance(t, Parameter):
        module.register_parameter(name, t)
    else:
        module.register_buffer(name, t)


def _is_sequence(value):
    return isinstance(value, (list, tuple))


class ParametrizationList(ModuleList):
    """The parametrizations of one tensor, applied in order, and the
    unconstrained tensor(s) they start from."""

    def __init__(self, modules, original, unsafe=False):
        if len(modules) == 0:
            raise ValueError("ParametrizationList requires one or more modules.")
        super().__init__(modules)
        self.unsafe = unsafe
        original_shape, original_dtype = original.shape, original.dtype
        with no_grad():
            new = original
            for module in reversed(list(self)):
                if hasattr(module, "right_inverse"):
                    try:
                        new = module.right_inverse(new)
                    except NotImplementedError:
                        pass
        if not isinstance(new, Tensor) and not _is_sequence(new):
            raise ValueError("'right_inverse' must return a Tensor or a Sequence of tensors "
                             f"(list, tuple...). Got {type(new).__name__}")
        self.is_tensor = isinstance(new, Tensor)
        self.ntensors = 1 if self.is_tensor else len(new)
        if self.is_tensor:
            if original.dtype != new.dtype:
                raise ValueError("When `right_inverse` outputs one tensor, it may not change "
                                 f"the dtype.\noriginal.dtype: {original.dtype}\n"
                                 f"right_inverse(original).dtype: {new.dtype}")
            with no_grad():
                _set_data(original, new)
            _register_parameter_or_buffer(self, "original", original)
        else:
            for i, t in enumerate(new):
                if not isinstance(t, Tensor):
                    raise ValueError("'right_inverse' must return a Tensor or a Sequence of "
                                     "tensors (list, tuple...). Got element "
                                     f"{i} of the sequence with type {type(t).__name__}.")
                t = t.detach().clone()
                if isinstance(original, Parameter):
                    t = Parameter(t, original.requires_grad)
                _register_parameter_or_buffer(self, f"original{i}", t)
        if not self.unsafe:
            # the parametrization maps tensors like the original to the same space
            z = self()
            if not isinstance(z, Tensor):
                raise ValueError(f"A parametrization must return a tensor. Got "
                                 f"{type(z).__name__}.")
            if z.dtype != original_dtype:
                raise ValueError("Registering a parametrization may not change the dtype of "
                                 "the tensor, unless `unsafe` flag is enabled.\n"
                                 f"unparametrized dtype: {original_dtype}\n"
                                 f"parametrized dtype: {z.dtype}")
            if z.shape != original_shape:
                raise ValueError("Registering a parametrization may not change the shape of "
                                 "the tensor, unless `unsafe` flag is enabled.\n"
                                 f"unparametrized shape: {original_shape}\n"
                                 f"parametrized shape: {z.shape}")

    def right_inverse(self, value):
        """Set the originals so that the parametrized tensor becomes ``value``
        (each parametrization must have a ``right_inverse``)."""
        with no_grad():
            for module in reversed(list(self)):
                if not hasattr(module, "right_inverse"):
                    raise RuntimeError(f"parametrization {type(module).__name__} does not "
                                       "implement right_inverse.")
                value = module.right_inverse(value)
            if self.is_tensor:
                if not isinstance(value, Tensor):
                    raise ValueError("`right_inverse` should return a tensor. Got "
                                     f"{type(value).__name__}")
                if value.dtype != self.original.dtype:
                    raise ValueError(f"The tensor returned by `right_inverse` has dtype "
                                     f"{value.dtype} while `original` has dtype "
                                     f"{self.original.dtype}")
                _set_data(self.original, value)
            else:
                if not _is_sequence(value):
                    raise ValueError("'right_inverse' must return a sequence of tensors. "
                                     f"Got {type(value).__name__}.")
                if len(value) != self.ntensors:
                    raise ValueError("'right_inverse' must return a sequence of tensors of "
                                     f"length {self.ntensors}. Got a sequence of length "
                                     f"{len(value)}.")
                for i, t in enumerate(value):
                    original_i = getattr(self, f"original{i}")
                    if t.dtype != original_i.dtype:
                        raise ValueError(f"Tensor {i} returned by `right_inverse` has dtype "
                                         f"{t.dtype} while `original{i}` has dtype "
                                         f"{original_i.dtype}")
                    _set_data(original_i, t)

    def forward(self):
        if self.is_tensor:
            x = self[0](self.original)
        else:
            x = self[0](*(getattr(self, f"original{i}") for i in range(self.ntensors)))
        for module in list(self)[1:]:
            x = module(x)
        return x


def is_parametrized(module, tensor_name=None):
    """Whether ``module`` (or its tensor ``tensor_name``) has parametrizations."""
    parametrizations = module.__dict__.get("_modules", {}).get("parametrizations")
    if not isinstance(parametrizations, ModuleDict):
        return False
    return len(parametrizations) > 0 if tensor_name is None else \
        tensor_name in parametrizations


def _parametrized_property(name):
    def get(self):
        if not _cache_enabled:
            return self.parametrizations[name]()
        key = (id(self), name)
        tensor = _cache.get(key)
        if tensor is None:
            tensor = _cache[key] = self.parametrizations[name]()
        return tensor

    def set_(self, value):
        self.parametrizations[name].right_inverse(value)
    return property(get, set_)


def _check_appended(module, tensor_name, parametrization):
    """A parametrization added to a parametrized tensor maps the current
    value (and its right_inverse maps back) within the same shape and dtype."""
    y = getattr(module, tensor_name)
    x = parametrization(y)
    if not isinstance(x, Tensor):
        raise ValueError(f"A parametrization must return a tensor. Got {type(x).__name__}.")
    if x.dtype != y.dtype:
        raise ValueError("Registering a parametrization may not change the dtype of the tensor, "
                         "unless the `unsafe` flag is enabled.\n"
                         f"module.{tensor_name}.dtype: {y.dtype}\n"
                         f"parametrization(module.{tensor_name}).dtype: {x.dtype}")
    if x.shape != y.shape:
        raise ValueError("Registering a parametrization may not change the shape of the tensor, "
                         "unless the `unsafe` flag is enabled.\n"
                         f"module.{tensor_name}.shape: {y.shape}\n"
                         f"parametrization(module.{tensor_name}).shape: {x.shape}")
    if not hasattr(parametrization, "right_inverse"):
        return
    try:
        z = parametrization.right_inverse(x)
    except NotImplementedError:
        return
    if not isinstance(z, Tensor):
        raise ValueError("parametrization.right_inverse must return a tensor. Got: "
                         f"{type(z).__name__}")
    if z.dtype != y.dtype:
        raise ValueError("The tensor returned by parametrization.right_inverse must have the "
                         f"same dtype as module.{tensor_name}, unless the `unsafe` flag is "
                         f"enabled.\nmodule.{tensor_name}.dtype: {y.dtype}\n"
                         f"returned dtype: {z.dtype}")
    if z.shape != y.shape:
        raise ValueError("The tensor returned by parametrization.right_inverse must have the "
                         f"same shape as module.{tensor_name}, unless the `unsafe` flag is "
                         f"enabled.\nmodule.{tensor_name}.shape: {y.shape}\n"
                         f"returned shape: {z.shape}")


def _refuse_pickling(self):
    raise RuntimeError("Serialization of parametrized modules is only supported through "
                       "state_dict(). See:\nhttps://pytorch.org/tutorials/beginner/"
                       "saving_loading_models.html#saving-loading-a-general-checkpoint-for-"
                       "inference-and-or-resuming-training")


def _deepcopy_instance(self, memo):
    """copy.deepcopy without __getstate__ (which refuses): a new instance of
    the same generated class with a deep copy of the attributes."""
    if id(self) in memo:
        return memo[id(self)]
    replica = self.__new__(type(self))
    memo[id(self)] = replica
    replica.__dict__ = copy.deepcopy(self.__dict__, memo)
    return replica


def _parametrized_class(cls):
    """``Parametrized<cls>``, the subclass that holds the properties: as in
    PyTorch it cannot be pickled (state_dict() is the way to save) but can
    be deep-copied."""
    dct = {"__getstate__": _refuse_pickling}
    if not hasattr(cls, "__deepcopy__"):
        dct["__deepcopy__"] = _deepcopy_instance
    return type(f"Parametrized{cls.__name__}", (cls,), dct)


def register_parametrization(module, tensor_name, parametrization, *, unsafe=False):
    """Make ``module.<tensor_name>`` equal ``parametrization(original)``.
    Unless ``unsafe``, the parametrization must keep the tensor's shape and
    dtype (checked on the current value, as PyTorch does)."""
    parametrization.train(module.training)
    if is_parametrized(module, tensor_name):
        if not unsafe:
            _check_appended(module, tensor_name, parametrization)
        plist = module.parametrizations[tensor_name]
        plist.append(parametrization)
        plist.unsafe |= unsafe
        return module
    if tensor_name in module._parameters:
        original = module._parameters[tensor_name]
    elif tensor_name in module._buffers:
        original = module._buffers[tensor_name]
    else:
        raise ValueError(f"Module '{module}' does not have a parameter, a buffer, or a "
                         f"parametrized element with name '{tensor_name}'")
    # built first, so that a failed check leaves the module as it was
    plist = ParametrizationList([parametrization], original, unsafe=unsafe)
    module._parameters.pop(tensor_name, None)
    module._buffers.pop(tensor_name, None)
    if not is_parametrized(module):
        module.__class__ = _parametrized_class(type(module))
        module.parametrizations = ModuleDict()
    module.parametrizations[tensor_name] = plist
    setattr(type(module), tensor_name, _parametrized_property(tensor_name))
    return module


def remove_parametrizations(module, tensor_name, leave_parametrized=True):
    """Undo ``register_parametrization``.  With ``leave_parametrized`` the
    tensor keeps its parametrized value, else it returns to the original;
    a single original comes back as the same object (parameter or buffer)."""
    if not is_parametrized(module, tensor_name):
        raise ValueError(f"Module {module} does not have a parametrization on {tensor_name}")
    plist = module.parametrizations[tensor_name]
    if plist.is_tensor:
        original = plist.original
        if leave_parametrized:
            with no_grad():
                _set_data(original, getattr(module, tensor_name))
    elif leave_parametrized:
        t = getattr(module, tensor_name)
        original = Parameter(t.detach()) if t.requires_grad else t
    else:
        raise ValueError("Cannot leave unparametrized (`leave_parametrized=False`) a tensor "
                         "that is parametrized in terms of a sequence of tensors.")
    delattr(type(module), tensor_name)
    del module.parametrizations[tensor_name]
    _register_parameter_or_buffer(module, tensor_name, original)
    if not is_parametrized(module):
        del module.parametrizations
        module.__class__ = type(module).__bases__[0]
    return module


def type_before_parametrizations(module):
    """The module's class before parametrizations swapped it."""
    return type(module).__bases__[0] if is_parametrized(module) else type(module)


def transfer_parametrizations_and_params(from_module, to_module, tensor_name=None):
    """Give ``to_module`` the parametrizations of ``from_module`` (of every
    parametrized tensor, or of ``tensor_name``) and their originals; a
    tensor ``to_module`` lacks is created first.  Returns ``to_module``."""
    if not is_parametrized(from_module):
        return to_module
    names = list(from_module.parametrizations) if tensor_name is None else [tensor_name]
    for name in names:
        if not hasattr(to_module, name):
            setattr(to_module, name, Parameter(getattr(from_module, name)))
        source = from_module.parametrizations[name]
        for p in source:
            register_parametrization(to_module, name, p)
        target = to_module.parametrizations[name]
        if hasattr(source, "original"):
            target.original = source.original
        else:
            i = 0
            while hasattr(source, f"original{i}"):
                setattr(target, f"original{i}", getattr(source, f"original{i}"))
                i += 1
    return to_module
