"""Weight normalisation, the older hook-based form (``nn.utils.weight_norm``).

``weight_norm(m, "weight")`` replaces the parameter ``weight`` by two
parameters, ``weight_g`` (the magnitude, the norm of each slice along ``dim``)
and ``weight_v`` (the direction), and registers a forward pre-hook (the
``WeightNorm`` object itself) that sets the plain attribute
``m.weight = weight_v * (weight_g / ||weight_v||)`` before every forward.
``dim=None`` takes one norm over the whole tensor (stored as ``dim=-1``, which
here means "no dim", as in PyTorch, not the last dim).  The newer
``parametrizations.weight_norm`` is the recommended form; this one is kept for
models and checkpoints written with it."""
import warnings

from ..parameter import Parameter, UninitializedParameter
from .parametrizations import _norm_except_dim

__all__ = ["WeightNorm", "weight_norm", "remove_weight_norm"]


def _weight_norm(v, g, dim):
    """``v * (g / ||v||)`` with the norm over every dim but ``dim`` (over all
    of ``v`` when ``dim`` is -1)."""
    return v * (g / _norm_except_dim(v, dim))


class WeightNorm:
    """The forward pre-hook that recomputes ``<name>`` from ``<name>_g`` and
    ``<name>_v``."""

    def __init__(self, name, dim):
        self.name = name
        self.dim = -1 if dim is None else dim

    def compute_weight(self, module):
        g = getattr(module, self.name + "_g")
        v = getattr(module, self.name + "_v")
        return _weight_norm(v, g, self.dim)

    @staticmethod
    def apply(module, name, dim):
        warnings.warn("`torch.nn.utils.weight_norm` is deprecated in favor of "
                      "`torch.nn.utils.parametrizations.weight_norm`.", FutureWarning,
                      stacklevel=3)
        for hook in module._forward_pre_hooks.values():
            if isinstance(hook, WeightNorm) and hook.name == name:
                raise RuntimeError(
                    f"Cannot register two weight_norm hooks on the same parameter {name}")
        fn = WeightNorm(name, dim)
        weight = getattr(module, name)
        if isinstance(weight, UninitializedParameter):
            raise ValueError(
                "The module passed to `WeightNorm` can't have uninitialized parameters. "
                "Make sure to run the dummy forward before applying weight normalization")
        del module._parameters[name]
        norm = _norm_except_dim(weight.detach(), fn.dim)
        module.register_parameter(name + "_g", Parameter(norm))
        module.register_parameter(name + "_v", Parameter(weight.detach()))
        setattr(module, name, fn.compute_weight(module))
        module.register_forward_pre_hook(fn)
        return fn

    def remove(self, module):
        weight = self.compute_weight(module)
        delattr(module, self.name)
        del module._parameters[self.name + "_g"]
        del module._parameters[self.name + "_v"]
        setattr(module, self.name, Parameter(weight.detach()))

    def __call__(self, module, inputs):
        setattr(module, self.name, self.compute_weight(module))


def weight_norm(module, name="weight", dim=0):
    """Reparametrize ``module.<name>`` as ``<name>_g * <name>_v / ||<name>_v||``
    (Salimans & Kingma, 2016), the norm taken over every dim but ``dim``
    (``dim=None``: over the whole tensor).  Deprecated in PyTorch in favour of
    ``parametrizations.weight_norm``; it warns as PyTorch's does."""
    WeightNorm.apply(module, name, dim)
    return module


def remove_weight_norm(module, name="weight"):
    """Turn ``module.<name>`` back into one parameter holding its current value."""
    for k, hook in module._forward_pre_hooks.items():
        if isinstance(hook, WeightNorm) and hook.name == name:
            hook.remove(module)
            del module._forward_pre_hooks[k]
            return module
    raise ValueError(f"weight_norm of '{name}' not found in {module}")
