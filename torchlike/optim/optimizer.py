"""The Optimizer base class: parameter groups, per-parameter state, state
dicts in PyTorch's layout, step hooks and zero_grad.

Invariants: every parameter appears in exactly one group, once; `state` is
keyed by the parameter tensor itself; a state dict names parameters by their
position across all groups (0, 1, ... in group order), so it can be loaded
into an optimizer built over other tensors of the same shapes."""
import functools
import itertools
import warnings
from collections import OrderedDict, defaultdict

from .. import _C
from .._composites import addcdiv as _addcdiv, addcmul as _addcmul, lerp as _lerp, view_as_real
from .._C import Tensor
from .._tensor_utils import typename as _typename
from ..autograd.grad_mode import no_grad
from ..utils.hooks import RemovableHandle
from ._optimizer_helpers import (  # noqa: F401 - imported from here by optimizers written elsewhere
    ParamsT, StateDict, _capturable_doc, _default_to_fused_or_foreach, _differentiable_doc, _foreach_doc,
    _fused_doc, _get_scalar_dtype, _get_value, _maximize_doc, _stack_if_compiling, _to_scalar,
    _use_grad_for_differentiable, _view_as_real)

__all__ = ["Optimizer", "required", "register_optimizer_step_pre_hook",
           "register_optimizer_step_post_hook"]


class _RequiredParameter:
    """Marks an option that has no default: each group must give it."""

    def __repr__(self):
        return "<required parameter>"


required = _RequiredParameter()

_global_pre_hooks = OrderedDict()
_global_post_hooks = OrderedDict()


def register_optimizer_step_pre_hook(hook):
    """A hook run before every optimizer's step: hook(optimizer, args, kwargs)."""
    handle = RemovableHandle(_global_pre_hooks)
    _global_pre_hooks[handle.id] = hook
    return handle


def register_optimizer_step_post_hook(hook):
    """A hook run after every optimizer's step: hook(optimizer, args, kwargs)."""
    handle = RemovableHandle(_global_post_hooks)
    _global_post_hooks[handle.id] = hook
    return handle


def _with_step_hooks(step):
    """Wrap a subclass's step: pre-hooks (which may replace the arguments),
    the step, post-hooks; and note that the optimizer has stepped, which the
    learning-rate schedulers check."""

    @functools.wraps(step)
    def wrapper(self, *args, **kwargs):
        for hook in itertools.chain(_global_pre_hooks.values(), self._step_pre_hooks.values()):
            result = hook(self, args, kwargs)
            if result is not None:
                if not (isinstance(result, tuple) and len(result) == 2):
                    raise RuntimeError(
                        f"{hook} must return None or a tuple of (new_args, new_kwargs), "
                        f"but got {result}.")
                args, kwargs = result
        out = step(self, *args, **kwargs)
        self._opt_called = True
        for hook in itertools.chain(self._step_post_hooks.values(), _global_post_hooks.values()):
            hook(self, args, kwargs)
        return out

    wrapper._with_step_hooks = True
    return wrapper


def _copy_state_value(value):
    """A copy of a state value that shares no tensor with the original."""
    if isinstance(value, Tensor):
        return value.detach().clone()
    if isinstance(value, dict):
        return type(value)((k, _copy_state_value(v)) for k, v in value.items())
    if isinstance(value, (list, tuple)):
        return type(value)(_copy_state_value(v) for v in value)
    return value


_OPTION_NAMES = {"lr": "learning rate", "eps": "epsilon value"}


def _check_nonnegative(**options):
    """PyTorch's "Invalid <option>: <value>" for an option below zero (and
    its refusal of a tensor lr of more than one element)."""
    for name, value in options.items():
        if name == "lr" and isinstance(value, Tensor) and value.numel() != 1:
            raise ValueError("Tensor lr must be 1-element")
        if not 0.0 <= value:
            raise ValueError(f"Invalid {_OPTION_NAMES.get(name, name + ' value')}: {value}")


def _step_tensor(value=0.0):
    """The step counter as PyTorch keeps it: a 0-d float32 tensor."""
    return _C.tensor(float(value), dtype=_C.float32)


class Optimizer:
    """Base class of all optimizers.

    Args:
        params: an iterable of tensors, or of dicts each holding a "params"
            iterable and options that override `defaults` for that group.
        defaults: the options every group gets unless it sets its own.
    """

    def __init__(self, params, defaults):
        self.defaults = defaults
        self._step_pre_hooks = OrderedDict()
        self._step_post_hooks = OrderedDict()
        self._init_state_dict_hooks()
        self._opt_called = False
        if isinstance(params, Tensor):
            raise TypeError("params argument given to the optimizer should be an iterable of "
                            f"Tensors or dicts, but got {_typename(params)}")
        if isinstance(params, set):
            warnings.warn("optimizer parameters need to be organized in ordered collections, "
                          "but the ordering of tensors in sets will change between runs. "
                          "Please use a list instead. This will be an error in a future "
                          "release.", FutureWarning, stacklevel=2)
        self.state = defaultdict(dict)
        self.param_groups = []
        groups = list(params)
        if len(groups) == 0:
            raise ValueError("optimizer got an empty parameter list")
        if not isinstance(groups[0], dict):
            groups = [{"params": groups}]
        for group in groups:
            self.add_param_group(group)
        if defaults.get("fused"):
            # the optimizers with a fused kernel (SGD, Adam, AdamW, Adagrad) refuse
            # what it cannot combine with, as PyTorch's do once the groups exist
            if defaults.get("differentiable"):
                raise RuntimeError("`fused` does not support `differentiable`")
            if defaults.get("foreach"):
                raise RuntimeError("`fused` and `foreach` cannot be `True` together.")

    _refuses_complex = False  # an optimizer whose step has no meaning for complex values
    _takes_sparse = False     # whether _group_tensors passes sparse gradients on (Adagrad)
    _state_like_params = True  # every state tensor has its parameter's shape (not Adafactor's)

    def _sparse_refusal(self):
        return f"{type(self).__name__} does not support sparse gradients"

    def __init_subclass__(cls, **kwargs):
        super().__init_subclass__(**kwargs)
        step = cls.__dict__.get("step")
        if step is not None and not getattr(step, "_with_step_hooks", False):
            cls.step = _with_step_hooks(step)

    def __getstate__(self):
        return {"defaults": self.defaults, "state": self.state,
                "param_groups": self.param_groups}

    def __setstate__(self, state):
        self.__dict__.update(state)
        self.__dict__.setdefault("_step_pre_hooks", OrderedDict())
        self.__dict__.setdefault("_step_post_hooks", OrderedDict())
        self._init_state_dict_hooks(keep=True)
        self.__dict__.setdefault("_opt_called", False)
        # Only the switches (options whose default is a bool or None: maximize,
        # foreach, nesterov, amsgrad, ...) are filled in, as PyTorch's
        # optimizers do for state saved before a switch existed; a group
        # missing a hyperparameter (a state dict of another optimizer loaded)
        # stays without it, so the step raises PyTorch's KeyError instead of
        # silently using this optimizer's constructor value.
        for group in self.param_groups:
            for name, default in self.defaults.items():
                if default is None or isinstance(default, bool):
                    group.setdefault(name, default)

    def __repr__(self):
        lines = [self.__class__.__name__ + " ("]
        for i, group in enumerate(self.param_groups):
            if i:
                lines.append("")   # a blank line between groups, as PyTorch prints
            lines.append(f"Parameter Group {i}")
            for key in sorted(group):
                if key != "params":
                    lines.append(f"    {key}: {group[key]}")
        lines.append(")")
        return "\n".join(lines)

    # ---- groups ----------------------------------------------------------------------
    def add_param_group(self, param_group):
        """Add a group of parameters, with options of its own (for example a
        layer that trains with a different learning rate)."""
        if not isinstance(param_group, dict):
            raise TypeError(f"param_group must be a dict, but got {type(param_group).__name__}")
        params = param_group["params"]
        if isinstance(params, Tensor):
            param_group["params"] = [params]
        elif isinstance(params, (set, frozenset)):
            raise TypeError("optimizer parameters need to be organized in ordered collections, "
                            "but the ordering of tensors in sets will change between runs. "
                            "Please use a list instead.")
        else:
            param_group["params"] = list(params)

        # (name, tensor) pairs, as model.named_parameters() gives them.
        names = [p[0] for p in param_group["params"] if isinstance(p, tuple)]
        if names:
            if len(names) != len(param_group["params"]):
                raise ValueError("all optimizer params should be with/without names. Some param "
                                 "names are missing")
            param_group["params"] = [p[1] for p in param_group["params"]]
            param_group["param_names"] = names

        seen = set()
        for param in param_group["params"]:
            if not isinstance(param, Tensor):
                raise TypeError("optimizer can only optimize Tensors, but one of the params is "
                                f"{type(param).__module__}.{type(param).__name__}")
            if not self.defaults.get("differentiable", False) and not (
                    param.is_leaf or getattr(param, "retains_grad", False)):
                raise ValueError("can't optimize a non-leaf Tensor")
            seen.add(id(param))
        if len(seen) != len(param_group["params"]):
            # PyTorch keeps them (each step updates such a tensor once per
            # appearance) and says so
            warnings.warn("optimizer contains a parameter group with duplicate parameters; in "
                          "future, this will cause an error; see "
                          "github.com/pytorch/pytorch/issues/40967 for more information",
                          stacklevel=3)

        for name, default in self.defaults.items():
            if default is required and name not in param_group:
                raise ValueError("parameter group didn't specify a value of required "
                                 f"optimization parameter {name}")
            param_group.setdefault(name, default)

        for group in self.param_groups:
            if ("param_names" in param_group) != ("param_names" in group):
                kind = "with" if "param_names" in param_group else "without"
                raise ValueError("all optimizer param groups should be with/without names. "
                                 f"cannot add param group {kind} names to the optimizer")
            if not seen.isdisjoint(id(p) for p in group["params"]):
                raise ValueError("some parameters appear in more than one parameter group")
        self.param_groups.append(param_group)

    # ---- gradients -------------------------------------------------------------------
    def zero_grad(self, set_to_none=True):
        """Reset every parameter's gradient: to None (the default, which frees
        the memory and lets the next backward write a fresh one), or to zeros."""
        for group in self.param_groups:
            for p in group["params"]:
                if p.grad is None:
                    continue
                if set_to_none:
                    p.grad = None
                else:
                    grad = p.grad
                    if grad.grad_fn is not None:
                        grad = grad.detach()
                        p.grad = grad
                    else:
                        grad.requires_grad_(False)
                    grad.zero_()

    def step(self, closure=None):
        """One optimization step.  `closure`, when given, re-evaluates the
        model and returns the loss (LBFGS needs it; the others call it once,
        with grad enabled, and return its value)."""
        raise NotImplementedError

    # ---- hooks -----------------------------------------------------------------------
    def register_step_pre_hook(self, hook):
        """hook(optimizer, args, kwargs) -> None or (new_args, new_kwargs), run
        before each step."""
        handle = RemovableHandle(self._step_pre_hooks)
        self._step_pre_hooks[handle.id] = hook
        return handle

    def register_step_post_hook(self, hook):
        """hook(optimizer, args, kwargs) -> None, run after each step."""
        handle = RemovableHandle(self._step_post_hooks)
        self._step_post_hooks[handle.id] = hook
        return handle

    def _init_state_dict_hooks(self, keep=False):
        for name in ("_optimizer_state_dict_pre_hooks", "_optimizer_state_dict_post_hooks",
                     "_optimizer_load_state_dict_pre_hooks",
                     "_optimizer_load_state_dict_post_hooks"):
            if not keep or name not in self.__dict__:
                setattr(self, name, OrderedDict())

    @staticmethod
    def _add_hook(hooks, hook, prepend):
        handle = RemovableHandle(hooks)
        hooks[handle.id] = hook
        if prepend:
            hooks.move_to_end(handle.id, last=False)
        return handle

    def register_state_dict_pre_hook(self, hook, prepend=False):
        """hook(optimizer) -> None, run before state_dict() builds its dict."""
        return self._add_hook(self._optimizer_state_dict_pre_hooks, hook, prepend)

    def register_state_dict_post_hook(self, hook, prepend=False):
        """hook(optimizer, state_dict) -> None or a dict that replaces it, run
        on the dict state_dict() returns."""
        return self._add_hook(self._optimizer_state_dict_post_hooks, hook, prepend)

    def register_load_state_dict_pre_hook(self, hook, prepend=False):
        """hook(optimizer, state_dict) -> None or a dict to load instead, run
        before load_state_dict() reads its (shallow-copied) argument."""
        return self._add_hook(self._optimizer_load_state_dict_pre_hooks, hook, prepend)

    def register_load_state_dict_post_hook(self, hook, prepend=False):
        """hook(optimizer) -> None, run after load_state_dict()."""
        return self._add_hook(self._optimizer_load_state_dict_post_hooks, hook, prepend)

    # ---- state dicts -----------------------------------------------------------------
    def state_dict(self):
        """{"state": {index: {...}}, "param_groups": [{..., "params": [index, ...]}]}.

        Parameters are numbered across groups in order.  The state's tensors
        are the optimizer's own (as in PyTorch): copy them to keep a snapshot
        that later steps do not change."""
        for hook in self._optimizer_state_dict_pre_hooks.values():
            hook(self)
        index_of = {}
        groups = []
        for group in self.param_groups:
            packed = {k: v for k, v in group.items() if k != "params"}
            for p in group["params"]:
                index_of.setdefault(id(p), len(index_of))
            packed["params"] = [index_of[id(p)] for p in group["params"]]
            groups.append(packed)
        state = {(index_of[id(k)] if isinstance(k, Tensor) else k): v
                 for k, v in self.state.items()}
        state_dict = {"state": state, "param_groups": groups}
        for hook in self._optimizer_state_dict_post_hooks.values():
            result = hook(self, state_dict)
            if result is not None:
                state_dict = result
        return state_dict

    def load_state_dict(self, state_dict):
        """Load a state dict made by `state_dict()` (here or by PyTorch): the
        groups must match in number and size.  Tensors are copied onto each
        parameter's device, cast to its dtype where it is a floating one (the
        step counters keep theirs); a tensor needing neither is taken as it is,
        not copied (PyTorch's rule)."""
        state_dict = state_dict.copy()   # shallow, so a hook may edit it
        for hook in self._optimizer_load_state_dict_pre_hooks.values():
            result = hook(self, state_dict)
            if result is not None:
                state_dict = result
        groups = self.param_groups
        saved_groups = state_dict["param_groups"]
        if len(groups) != len(saved_groups):
            raise ValueError("loaded state dict has a different number of parameter groups")
        for group, saved in zip(groups, saved_groups):
            if len(group["params"]) != len(saved["params"]):
                raise ValueError("loaded state dict contains a parameter group that doesn't "
                                 "match the size of optimizer's group")
        param_of = {
            old: p for old, p in zip(
                itertools.chain.from_iterable(g["params"] for g in saved_groups),
                itertools.chain.from_iterable(g["params"] for g in groups))}
        saved_group_of = {old: g for g in saved_groups for old in g["params"]}

        def cast(param, value, key=None, saved_group=None):
            # No copy where no cast is needed, as in PyTorch: the loaded
            # optimizer updates the state dict's own tensors in place (so a
            # state dict taken from a live optimizer and loaded into a second
            # one leaves the two sharing their moments).
            if isinstance(value, Tensor):
                if key == "step":
                    if saved_group.get("capturable") or saved_group.get("fused"):
                        return value.to(dtype=_C.float32, device=param.device)
                    return value
                if param.is_floating_point():
                    return value.to(dtype=param.dtype, device=param.device)
                return value.to(device=param.device)
            if isinstance(value, dict):
                return {k: cast(param, v, k, saved_group) for k, v in value.items()}
            if isinstance(value, (list, tuple)):
                return type(value)(cast(param, v, None, saved_group) for v in value)
            return value

        state = defaultdict(dict)
        for key, value in state_dict["state"].items():
            if key in param_of:
                param = param_of[key]
                state[param] = cast(param, value, None, saved_group_of[key])
            else:
                state[key] = value

        new_groups = []
        for group, saved in zip(groups, saved_groups):
            new_group = {k: _copy_state_value(v) for k, v in saved.items() if k != "params"}
            new_group["params"] = group["params"]
            if "param_names" in group and "param_names" not in new_group:
                new_group["param_names"] = group["param_names"]
            new_groups.append(new_group)
        self.__setstate__({"state": state, "param_groups": new_groups})
        for hook in self._optimizer_load_state_dict_post_hooks.values():
            hook(self)

    # ---- helpers for subclasses ------------------------------------------------------
    @staticmethod
    def _call_closure(closure):
        if closure is None:
            return None
        from ..autograd.grad_mode import enable_grad
        with enable_grad():
            return closure()

    def _step_grad_mode(self):
        """The grad mode a step runs in: off, or on for an optimizer built with
        differentiable=True, whose update is then recorded on the tape (as
        PyTorch's _use_grad_for_differentiable; its parameters must then be
        non-leaves or the in-place update is refused, as there)."""
        if self.defaults.get("differentiable", False):
            from ..autograd.grad_mode import enable_grad
            return enable_grad()
        return no_grad()

    @staticmethod
    def _params_with_grad(group):
        return [p for p in group["params"] if p.grad is not None]

    def _group_tensors(self, group, buffer_keys, scalar_keys):
        """The group's parameters that have a gradient, their gradients, and
        per key a list of their state tensors (None where the state lacks the
        key); a parameter without state gets it from self._init_state first.
        Complex tensors come as real views (see _real_view)."""
        params, grads = [], []
        buffers = [[] for _ in buffer_keys]
        scalars = [[] for _ in scalar_keys]
        for p in group["params"]:
            if p.grad is None:
                continue
            if self._refuses_complex and p.is_complex():
                raise RuntimeError(f"{type(self).__name__} does not support complex parameters")
            if p.grad.is_sparse and not self._takes_sparse:
                raise RuntimeError(self._sparse_refusal())
            state = self.state[p]
            if len(state) == 0:
                self._init_state(p, state, group)
            params.append(_real_view(p))
            grads.append(_real_view(p.grad))
            for key, out in zip(buffer_keys, buffers):
                buf = state.get(key)
                # a subclass's gradient (a DTensor's) may speak of a global
                # shape while its state is local: only plain tensors compare
                if (buf is not None and self._state_like_params and type(p.grad) is Tensor
                        and buf.shape != p.grad.shape):
                    _refuse_stale_state(buf, p.grad)
                out.append(_real_view(buf))
            for key, out in zip(scalar_keys, scalars):
                out.append(state[key])
        return params, grads, buffers, scalars

    def _multi_or_single(self, kind, buffer_keys, scalar_keys, single, closure):
        """The step of the elementwise optimizers: per group, the C kernel
        `kind` when it can run (None: there is none), else
        single(params, grads, buffers, scalars, group)."""
        loss = self._call_closure(closure)
        with self._step_grad_mode():
            for group in self.param_groups:
                params, grads, buffers, scalars = self._group_tensors(group, buffer_keys,
                                                                      scalar_keys)
                if kind is None or not _multi_tensor_step(kind, group, params, grads, buffers,
                                                          scalars):
                    single(params, grads, buffers, scalars, group)
        return loss


def _refuse_fused_scaling(grad_scale, found_inf):
    if grad_scale is not None or found_inf is not None:
        raise RuntimeError("grad_scale and found_inf belong to PyTorch's fused kernels; "
                           "torchlike's functional optimizers run the per-parameter step "
                           "(unscale the gradients first, e.g. GradScaler.unscale_)")


def _functional_step(single, params, grads, buffers, scalars, group, grad_scale=None,
                     found_inf=None, check_steps=True):
    """One step of an optimizer's functional form (torch.optim.functional):
    the caller's lists of state (an empty list where an option leaves a
    buffer out, as PyTorch's optimizers pass them) run through the class's
    per-parameter step `single`."""
    _refuse_fused_scaling(grad_scale, found_inf)
    if check_steps and scalars and not all(isinstance(t, Tensor) for t in scalars[0]):
        raise RuntimeError("API has changed, `state_steps` argument must contain a list of "
                           "singleton tensors")
    n = len(params)
    buffers = [[_real_view(t) for t in b] if len(b) else [None] * n for b in buffers]
    single([_real_view(p) for p in params], [_real_view(g) for g in grads], buffers,
           [list(s) for s in scalars], group)


def _refuse_stale_state(buf, grad):
    """PyTorch's error for a state tensor whose shape no longer matches its
    parameter's gradient (the parameter's .data replaced by another shape
    after a step): the broadcasting failure of the step's first in-place
    op, the state tensor as `a`, or the in-place op's when they broadcast."""
    a, b = list(buf.shape), list(grad.shape)
    n = max(len(a), len(b))
    for i in range(n - 1, -1, -1):
        size_a = a[i - n + len(a)] if i - n + len(a) >= 0 else 1
        size_b = b[i - n + len(b)] if i - n + len(b) >= 0 else 1
        if size_a != size_b and size_a != 1 and size_b != 1:
            raise RuntimeError(f"The size of tensor a ({size_a}) must match the size of tensor b "
                               f"({size_b}) at non-singleton dimension {i}")
    shape = [max(x, y) for x, y in zip([1] * (n - len(a)) + a, [1] * (n - len(b)) + b)]
    raise RuntimeError(f"output with shape {a} doesn't match the broadcast shape {shape}")


def _use_multi_tensor(foreach, differentiable, *tensor_lists):
    """Whether a group's step can go through the C multi-tensor kernels: the
    default (foreach=None) whenever every tensor is a contiguous CPU float32 or
    float64 tensor of one dtype.  foreach=False always takes the per-parameter
    path; foreach=True asks for the kernel and falls back when it cannot run."""
    if foreach is False or differentiable:
        return False
    dtype = None
    for tensors in tensor_lists:
        for t in tensors:
            if t is None:
                continue
            if dtype is None:
                dtype = t.dtype
            if (t.dtype != dtype or t.device.type != "cpu" or not t.is_contiguous()
                    or t.dtype not in (_C.float32, _C.float64)):
                return False
    return True


def _multi_tensor_step(kind, group, params, grads, buffers, scalars, fresh=None):
    """Run one group's step in the C multi-tensor kernel when it can, and
    return True; False means the caller runs its per-parameter path.

    buffers: lists parallel to params (the per-parameter state tensors the
    kernel reads and writes, None where an option leaves one out); scalars:
    lists of 0-d float32 state tensors (the step counter first) that the
    kernel advances; fresh: per parameter, whether its momentum buffer is new
    (SGD).  Both paths compute the same float operations in the same
    order, so their results are bit-identical."""
    kernel = getattr(_C, "_optim_step", None)
    if kernel is None or not _use_multi_tensor(group.get("foreach"),
                                               group.get("differentiable", False),
                                               params, grads, *buffers):
        return False
    kernel(kind, group, params, grads, buffers, scalars, fresh)
    return True


# ---- the per-parameter path's building blocks: each is one or two tensor ops whose
# rounding the C kernels reproduce (src/nn/optim_kernels.c) ----
def _real_view(t):
    """A complex tensor as its (..., 2) float view, else t itself: as in
    PyTorch, an elementwise optimizer steps a complex parameter as the pairs
    of reals it holds (its state kept complex, of the parameter's shape)."""
    return view_as_real(t) if t is not None and t.is_complex() else t


def _fill_value(p, value):
    """A state fill value for parameter p: value in each real of a complex p
    (complex(value, value)), so its real view starts at value throughout."""
    return complex(value, value) if p.is_complex() else value


_HALF = (_C.float16, _C.bfloat16)


def _lerp_(x, end, weight):
    """x += weight * (end - x), the form PyTorch's lerp takes for weight < 0.5;
    in float16/bfloat16, lerp's float computation with one rounding, as
    PyTorch's lerp_."""
    if x.dtype in _HALF:
        return x.copy_(_lerp(x, end, weight))
    return x.add_(end.sub(x), alpha=weight)


def _addcmul_(x, a, b, value):
    """x += (value * a) * b, in PyTorch's addcmul order (in float16/bfloat16
    computed in float and rounded once, as PyTorch's addcmul_)."""
    if x.dtype in _HALF:
        return x.copy_(_addcmul(x, a, b, value=value))
    return x.add_(a.mul(value).mul_(b))


def _addcdiv_(x, a, b, value):
    """x += (value * a) / b, in PyTorch's addcdiv order (in float16/bfloat16
    computed in float and rounded once, as PyTorch's addcdiv_)."""
    if x.dtype in _HALF:
        return x.copy_(_addcdiv(x, a, b, value=value))
    return x.add_(a.mul(value).div_(b))


def _add_eps(t, eps):
    """t + eps, in place unless t is recorded (a differentiable step): the
    square roots it follows save their result for backward, as PyTorch's
    differentiable branches keep them."""
    return t.add(eps) if t.requires_grad else t.add_(eps)


def _weight_decay(param, grad, group):
    """The L2 term (added to the gradient) or, decoupled, the shrink of p."""
    wd = group["weight_decay"]
    if wd != 0:
        if group.get("decoupled_weight_decay", False):
            param.mul_(1 - group["lr"] * wd)
        else:
            grad = grad.add(param, alpha=wd)
    return grad
