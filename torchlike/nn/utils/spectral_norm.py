"""Spectral normalisation, the older hook-based form (``nn.utils.spectral_norm``).

``spectral_norm(m, "weight")`` moves the parameter to ``weight_orig``, adds
the buffers ``weight_u`` (h) and ``weight_v`` (w), the power-iteration
vectors of the weight reshaped to an (h, w) matrix with ``dim`` first, and
registers a forward pre-hook (the ``SpectralNorm`` object) that sets the plain
attribute ``m.weight = weight_orig / sigma``, sigma = u . (W v).  In training
mode the hook first runs ``n_power_iterations`` steps, updating the buffers in
place (v = normalize(W^T u), u = normalize(W v)); in eval mode it reuses them.

State dicts carry ``weight_orig``, ``weight_u``, ``weight_v`` and the
metadata ``spectral_norm: {"weight.version": 1}``; a checkpoint of version 0
(which stored ``weight`` and no ``weight_v``) is converted on load by solving
for v, as PyTorch does."""
from ... import _C
from ... import linalg
from ...autograd.grad_mode import no_grad
from .. import functional as F
from ..parameter import Parameter, UninitializedParameter

__all__ = ["SpectralNorm", "SpectralNormLoadStateDictPreHook", "SpectralNormStateDictHook",
           "spectral_norm", "remove_spectral_norm"]


class SpectralNorm:
    """The forward pre-hook computing ``<name>`` from ``<name>_orig`` and the
    power-iteration buffers ``<name>_u``, ``<name>_v``."""

    # version 1: ``<name>_v`` is stored and ``<name>`` is not
    _version = 1

    def __init__(self, name="weight", n_power_iterations=1, dim=0, eps=1e-12):
        self.name = name
        self.dim = dim
        if n_power_iterations <= 0:
            raise ValueError("Expected n_power_iterations to be positive, but got "
                             f"n_power_iterations={n_power_iterations}")
        self.n_power_iterations = n_power_iterations
        self.eps = eps

    def reshape_weight_to_matrix(self, weight):
        """(h, w): ``dim`` first, every other dim flattened in order."""
        if self.dim != 0:
            weight = weight.permute(self.dim, *[d for d in range(weight.ndim) if d != self.dim])
        return weight.reshape(weight.shape[0], -1)

    def compute_weight(self, module, do_power_iteration):
        weight = getattr(module, self.name + "_orig")
        u = getattr(module, self.name + "_u")
        v = getattr(module, self.name + "_v")
        weight_mat = self.reshape_weight_to_matrix(weight)
        if do_power_iteration:
            # the buffers are updated in place; sigma then uses clones of them,
            # so a backward through this forward does not see a later update
            with no_grad():
                for _ in range(self.n_power_iterations):
                    v.copy_(F.normalize(weight_mat.t().mv(u), dim=0, eps=self.eps))
                    u.copy_(F.normalize(weight_mat.mv(v), dim=0, eps=self.eps))
                u = u.clone()
                v = v.clone()
        sigma = _C.dot(u, weight_mat.mv(v))
        return weight / sigma

    def remove(self, module):
        with no_grad():
            weight = self.compute_weight(module, do_power_iteration=False)
        delattr(module, self.name)
        delattr(module, self.name + "_u")
        delattr(module, self.name + "_v")
        delattr(module, self.name + "_orig")
        module.register_parameter(self.name, Parameter(weight.detach()))

    def __call__(self, module, inputs):
        setattr(module, self.name,
                self.compute_weight(module, do_power_iteration=module.training))

    def _solve_v_and_rescale(self, weight_mat, u, target_sigma):
        # v with u = normalize(W v) (least squares), scaled so u . W v = sigma
        v = (linalg.pinv(weight_mat.t().mm(weight_mat)) @ weight_mat.t() @ u.unsqueeze(1))
        v = v.squeeze(1)
        return v.mul_(target_sigma / _C.dot(u, weight_mat.mv(v)))

    @staticmethod
    def apply(module, name, n_power_iterations, dim, eps):
        for hook in module._forward_pre_hooks.values():
            if isinstance(hook, SpectralNorm) and hook.name == name:
                raise RuntimeError("Cannot register two spectral_norm hooks on the same "
                                   f"parameter {name}")
        fn = SpectralNorm(name, n_power_iterations, dim, eps)
        weight = module._parameters[name]
        if weight is None:
            raise ValueError(f"`SpectralNorm` cannot be applied as parameter `{name}` is None")
        if isinstance(weight, UninitializedParameter):
            raise ValueError(
                "The module passed to `SpectralNorm` can't have uninitialized parameters. "
                "Make sure to run the dummy forward before applying spectral normalization")
        with no_grad():
            h, w = fn.reshape_weight_to_matrix(weight).shape
            kw = dict(dtype=weight.dtype, device=weight.device)
            u = F.normalize(_C.empty((h,), **kw).normal_(0, 1), dim=0, eps=fn.eps)
            v = F.normalize(_C.empty((w,), **kw).normal_(0, 1), dim=0, eps=fn.eps)
        delattr(module, fn.name)
        module.register_parameter(fn.name + "_orig", weight)
        # a plain attribute until the first forward sets the normalised weight
        setattr(module, fn.name, weight.detach())
        module.register_buffer(fn.name + "_u", u)
        module.register_buffer(fn.name + "_v", v)
        module.register_forward_pre_hook(fn)
        module._register_state_dict_hook(SpectralNormStateDictHook(fn))
        module._register_load_state_dict_pre_hook(SpectralNormLoadStateDictPreHook(fn))
        return fn


class SpectralNormLoadStateDictPreHook:
    """Converts a version-0 checkpoint (``<name>``, ``<name>_orig``, ``<name>_u``)
    to the current keys on load."""

    def __init__(self, fn):
        self.fn = fn

    def __call__(self, state_dict, prefix, local_metadata, strict, missing_keys,
                 unexpected_keys, error_msgs):
        fn = self.fn
        version = local_metadata.get("spectral_norm", {}).get(fn.name + ".version", None)
        if version is not None and version >= 1:
            return
        weight_key = prefix + fn.name
        if version is None and weight_key not in state_dict and \
                all(weight_key + s in state_dict for s in ("_orig", "_u", "_v")):
            return  # written without metadata but already in the current layout
        has_missing_keys = False
        for suffix in ("_orig", "", "_u"):
            key = weight_key + suffix
            if key not in state_dict:
                has_missing_keys = True
                if strict:
                    missing_keys.append(key)
        if has_missing_keys:
            return
        with no_grad():
            weight_orig = state_dict[weight_key + "_orig"]
            weight = state_dict.pop(weight_key)
            sigma = (weight_orig / weight).mean()
            weight_mat = fn.reshape_weight_to_matrix(weight_orig)
            u = state_dict[weight_key + "_u"]
            state_dict[weight_key + "_v"] = fn._solve_v_and_rescale(weight_mat, u, sigma)


class SpectralNormStateDictHook:
    """Records ``spectral_norm: {"<name>.version": 1}`` in the module's
    state-dict metadata."""

    def __init__(self, fn):
        self.fn = fn

    def __call__(self, module, state_dict, prefix, local_metadata):
        versions = local_metadata.setdefault("spectral_norm", {})
        key = self.fn.name + ".version"
        if key in versions:
            raise RuntimeError(f"Unexpected key in metadata['spectral_norm']: {key}")
        versions[key] = self.fn._version


def spectral_norm(module, name="weight", n_power_iterations=1, eps=1e-12, dim=None):
    """Divide ``module.<name>`` by its spectral norm (Miyato et al., 2018),
    estimated by power iteration before each forward.  ``dim`` defaults to 1
    for the transposed convolutions (their output channels) and 0 otherwise."""
    if dim is None:
        from ..modules.conv import ConvTranspose1d, ConvTranspose2d, ConvTranspose3d
        dim = 1 if isinstance(module, (ConvTranspose1d, ConvTranspose2d, ConvTranspose3d)) \
            else 0
    SpectralNorm.apply(module, name, n_power_iterations, dim, eps)
    return module


def remove_spectral_norm(module, name="weight"):
    """Undo ``spectral_norm``: ``<name>`` becomes a parameter holding the
    normalised weight (no further power iteration)."""
    for k, hook in module._forward_pre_hooks.items():
        if isinstance(hook, SpectralNorm) and hook.name == name:
            hook.remove(module)
            del module._forward_pre_hooks[k]
            break
    else:
        raise ValueError(f"spectral_norm of '{name}' not found in {module}")
    for k, hook in module._state_dict_hooks.items():
        if isinstance(hook, SpectralNormStateDictHook) and hook.fn.name == name:
            del module._state_dict_hooks[k]
            break
    for k, hook in module._load_state_dict_pre_hooks.items():
        hook = getattr(hook, "hook", hook)
        if isinstance(hook, SpectralNormLoadStateDictPreHook) and hook.fn.name == name:
            del module._load_state_dict_pre_hooks[k]
            break
    return module
