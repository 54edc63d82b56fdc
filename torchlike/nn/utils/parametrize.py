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

from ... import _C
from ...autograd.grad_mode import no_grad
from ..modules.container import ModuleDict, ModuleList
from ..parameter import Parameter

Tensor = _C.Tensor

__all__ = ["cached", "register_parametrization", "remove_parametrizations",
           "is_parametrized", "ParametrizationList"]

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


class ParametrizationList(ModuleList):
    """The parametrizations of one tensor, applied in order, and the
    unconstrained tensor(s) they start from."""

    def __init__(self, modules, original, unsafe=False):
        super().__init__(modules)
        self.unsafe = unsafe
        with no_grad():
            new = original
            for module in reversed(list(self)):
                if hasattr(module, "right_inverse"):
                    new = module.right_inverse(new)
        requires_grad = original.requires_grad
        if isinstance(new, Tensor):
            self.is_tensor = True
            self.ntensors = 1
            if isinstance(original, Parameter):
                with no_grad():
                    if tuple(new.shape) == tuple(original.shape):
                        original.copy_(new)
                    else:
                        original.data = new.detach()
                self.register_parameter("original", original)
            else:
                self.register_buffer("original", new)
        else:
            self.is_tensor = False
            self.ntensors = len(new)
            for i, t in enumerate(new):
                self.register_parameter(f"original{i}",
                                        Parameter(t.detach().clone(), requires_grad))

    def right_inverse(self, value):
        """Set the originals so that the parametrized tensor becomes ``value``."""
        with no_grad():
            for module in reversed(list(self)):
                if hasattr(module, "right_inverse"):
                    value = module.right_inverse(value)
            if self.is_tensor:
                self.original.copy_(value)
            else:
                for i, t in enumerate(value):
                    getattr(self, f"original{i}").copy_(t)

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


def register_parametrization(module, tensor_name, parametrization, *, unsafe=False):
    """Make ``module.<tensor_name>`` equal ``parametrization(original)``."""
    if is_parametrized(module, tensor_name):
        module.parametrizations[tensor_name].append(parametrization)
        return module
    if tensor_name in module._parameters:
        original = module._parameters.pop(tensor_name)
    elif tensor_name in module._buffers:
        original = module._buffers.pop(tensor_name)
    else:
        raise ValueError(f"Module '{module}' does not have a parameter, a buffer, or a "
                         f"parametrized element with name '{tensor_name}'")
    if not is_parametrized(module):
        cls = type(module)
        module.__class__ = type(f"Parametrized{cls.__name__}", (cls,), {})
        module.parametrizations = ModuleDict()
    module.parametrizations[tensor_name] = ParametrizationList([parametrization], original,
                                                               unsafe)
    setattr(type(module), tensor_name, _parametrized_property(tensor_name))
    return module


def remove_parametrizations(module, tensor_name, leave_parametrized=True):
    """Undo ``register_parametrization``: the tensor becomes a plain parameter
    again, holding the parametrized value (or the original)."""
    if not is_parametrized(module, tensor_name):
        raise ValueError(f"Module {module} does not have a parametrization on {tensor_name}")
    plist = module.parametrizations[tensor_name]
    with no_grad():
        value = getattr(module, tensor_name) if leave_parametrized else plist.original
    delattr(type(module), tensor_name)
    del module.parametrizations[tensor_name]
    module.register_parameter(tensor_name, Parameter(value.detach().clone()))
    if not is_parametrized(module):
        del module.parametrizations
        module.__class__ = type(module).__bases__[0]
    return module
