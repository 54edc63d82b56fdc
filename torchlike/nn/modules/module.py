"""Module: the base class of every layer.

A module keeps its parameters, buffers and submodules in three ordered dicts
(``_parameters``, ``_buffers``, ``_modules``); ``__setattr__`` sorts what is
assigned into them, so ``self.fc = Linear(2, 3)`` registers a submodule.
Everything that walks a model (``named_parameters``, ``state_dict``, ``to``,
``apply``, the repr) walks those dicts, in registration order, as PyTorch does:
state-dict keys and the repr text match PyTorch's for the same model."""
from collections import OrderedDict, namedtuple
import itertools
import warnings

from ... import _C, _layout
from ...utils.hooks import BackwardHook, RemovableHandle
from ..parameter import Parameter, Buffer, is_lazy

Tensor = _C.Tensor

__all__ = ["Module", "register_module_forward_pre_hook", "register_module_forward_hook",
           "register_module_full_backward_pre_hook", "register_module_full_backward_hook",
           "register_module_parameter_registration_hook",
           "register_module_buffer_registration_hook",
           "register_module_module_registration_hook"]


class _IncompatibleKeys(namedtuple("IncompatibleKeys", ["missing_keys", "unexpected_keys"])):
    def __repr__(self):
        if not self.missing_keys and not self.unexpected_keys:
            return "<All keys matched successfully>"
        return super().__repr__()

    __str__ = __repr__


_global_forward_pre_hooks = OrderedDict()
_global_forward_hooks = OrderedDict()
_global_forward_hooks_with_kwargs = set()
_global_forward_hooks_always_called = set()
_global_backward_pre_hooks = OrderedDict()
_global_backward_hooks = OrderedDict()
_global_parameter_registration_hooks = OrderedDict()
_global_buffer_registration_hooks = OrderedDict()
_global_module_registration_hooks = OrderedDict()


def _add_global_hook(store, hook, *flag_sets):
    handle = RemovableHandle(store, extra_dict=list(flag_sets))
    store[handle.id] = hook
    return handle


def register_module_forward_pre_hook(hook):
    """A forward pre-hook run before every module's own."""
    return _add_global_hook(_global_forward_pre_hooks, hook)


def register_module_forward_hook(hook, *, with_kwargs=False, always_call=False):
    """A forward hook run before every module's own; ``with_kwargs`` and
    ``always_call`` as for ``Module.register_forward_hook``."""
    handle = _add_global_hook(_global_forward_hooks, hook, _global_forward_hooks_with_kwargs,
                              _global_forward_hooks_always_called)
    if with_kwargs:
        _global_forward_hooks_with_kwargs.add(handle.id)
    if always_call:
        _global_forward_hooks_always_called.add(handle.id)
    return handle


def register_module_full_backward_pre_hook(hook):
    """A backward pre-hook run before every module's own."""
    return _add_global_hook(_global_backward_pre_hooks, hook)


def register_module_full_backward_hook(hook):
    """A full backward hook run before every module's own."""
    return _add_global_hook(_global_backward_hooks, hook)


def register_module_parameter_registration_hook(hook):
    """``hook(module, name, param)`` runs on every ``register_parameter``; it
    may return the parameter to register instead."""
    return _add_global_hook(_global_parameter_registration_hooks, hook)


def register_module_buffer_registration_hook(hook):
    """``hook(module, name, buffer)`` runs on every ``register_buffer``."""
    return _add_global_hook(_global_buffer_registration_hooks, hook)


def register_module_module_registration_hook(hook):
    """``hook(module, name, submodule)`` runs on every ``add_module``."""
    return _add_global_hook(_global_module_registration_hooks, hook)


def _registration_hooks(store, module, name, value):
    for hook in store.values():
        result = hook(module, name, value)
        if result is not None:
            value = result
    return value


def _typename(obj):
    """``torch.typename``: a tensor's type string, else module.qualname."""
    if isinstance(obj, Tensor):
        return obj.type()
    cls = obj if isinstance(obj, type) else type(obj)
    module = getattr(cls, "__module__", "") or ""
    return cls.__qualname__ if module in ("", "builtins") else f"{module}.{cls.__qualname__}"


def _remove_from(name, *dicts_or_sets):
    """Drop ``name`` from each dict or set that holds it (Module.__setattr__
    moving an attribute from one store to another)."""
    for d in dicts_or_sets:
        if name in d:
            if isinstance(d, dict):
                del d[name]
            else:
                d.discard(name)


class _WrappedHook:
    """A hook called with its module first, or as it is when registered
    without one; ``hook`` is the function registered."""

    def __init__(self, hook, module=None):
        self.hook = hook
        self.module = module

    def __call__(self, *args, **kwargs):
        if self.module is not None:
            return self.hook(self.module, *args, **kwargs)
        return self.hook(*args, **kwargs)


def _addindent(text, spaces):
    lines = text.split("\n")
    if len(lines) == 1:
        return text
    return lines[0] + "\n" + "\n".join(" " * spaces + line for line in lines[1:])


class Module:
    r"""Base class for all neural-network modules.

    Subclasses set their layers as attributes in ``__init__`` (after calling
    ``super().__init__()``) and define ``forward``; calling the module runs the
    forward pre-hooks, ``forward`` and the forward hooks."""

    dump_patches = False
    _version = 1
    training: bool
    call_super_init = False

    def __init__(self, *args, **kwargs):
        if args or kwargs:
            raise TypeError(f"{type(self).__name__}.__init__() takes no arguments but got "
                            f"{args} {kwargs}")
        d = self.__dict__
        d["training"] = True
        d["_parameters"] = OrderedDict()
        d["_buffers"] = OrderedDict()
        d["_non_persistent_buffers_set"] = set()
        d["_modules"] = OrderedDict()
        d["_forward_pre_hooks"] = OrderedDict()
        d["_forward_pre_hooks_with_kwargs"] = set()
        d["_forward_hooks"] = OrderedDict()
        d["_forward_hooks_with_kwargs"] = set()
        d["_forward_hooks_always_called"] = set()
        d["_backward_hooks"] = OrderedDict()
        d["_backward_pre_hooks"] = OrderedDict()
        d["_state_dict_hooks"] = OrderedDict()
        d["_state_dict_pre_hooks"] = OrderedDict()
        d["_load_state_dict_pre_hooks"] = OrderedDict()
        d["_load_state_dict_post_hooks"] = OrderedDict()

    def forward(self, *input):
        raise NotImplementedError(
            f'Module [{type(self).__name__}] is missing the required "forward" function')

    # ---- registration ------------------------------------------------------------

    def _check_init(self, what):
        if "_parameters" not in self.__dict__:
            raise AttributeError(f"cannot assign {what} before Module.__init__() call")

    def register_buffer(self, name, tensor, persistent=True):
        """Add a buffer (state that is not a parameter, e.g. BatchNorm's running
        mean).  ``persistent=False`` leaves it out of the state_dict."""
        self._check_init("buffer")
        self._check_name(name, "buffer", self._buffers)
        if tensor is not None and not isinstance(tensor, Tensor):
            raise TypeError(f"cannot assign '{_typename(tensor)}' object to buffer "
                            f"'{name}' (torch Tensor or None required)")
        if isinstance(tensor, Buffer):
            persistent = tensor.persistent   # Buffer() made it a plain tensor already
        tensor = _registration_hooks(_global_buffer_registration_hooks, self, name, tensor)
        self._buffers[name] = tensor
        if persistent:
            self._non_persistent_buffers_set.discard(name)
        else:
            self._non_persistent_buffers_set.add(name)

    def register_parameter(self, name, param):
        """Add a parameter (a Parameter or None) under ``name``."""
        self._check_init("parameter")
        self._check_name(name, "parameter", self._parameters)
        if param is None:
            self._parameters[name] = None
        elif not isinstance(param, Parameter):
            raise TypeError(f"cannot assign '{_typename(param)}' object to parameter "
                            f"'{name}' (torch.nn.Parameter or None required)")
        elif param.grad_fn is not None:
            raise ValueError(
                f"Cannot assign non-leaf Tensor to parameter '{name}'. Model parameters must "
                f"be created explicitly. To express '{name}' as a function of another Tensor, "
                f"compute the value in the forward() method.")
        else:
            self._parameters[name] = _registration_hooks(
                _global_parameter_registration_hooks, self, name, param)

    def _check_name(self, name, kind, own):
        if not isinstance(name, str):
            raise TypeError(f"{kind} name should be a string. Got {type(name).__name__}")
        if "." in name:
            raise KeyError(f'{kind} name can\'t contain "."')
        if name == "":
            raise KeyError(f'{kind} name can\'t be empty string ""')
        if hasattr(self, name) and name not in own:
            raise KeyError(f"attribute '{name}' already exists")

    def add_module(self, name, module):
        """Add a child module (or None) under ``name``."""
        if not isinstance(module, Module) and module is not None:
            raise TypeError(f"{_typename(module)} is not a Module subclass")
        if not isinstance(name, str):
            raise TypeError(f"module name should be a string. Got {type(name).__name__}")
        if hasattr(self, name) and name not in self._modules:
            raise KeyError(f"attribute '{name}' already exists")
        if "." in name:
            raise KeyError(f'module name can\'t contain ".", got: {name}')
        if name == "":
            raise KeyError('module name can\'t be empty string ""')
        self._modules[name] = _registration_hooks(_global_module_registration_hooks, self, name,
                                                  module)

    def register_module(self, name, module):
        """Alias for ``add_module``."""
        self.add_module(name, module)

    def get_submodule(self, target):
        """The submodule at dotted path ``target`` ("" is the module itself)."""
        if target == "":
            return self
        mod = self
        for item in target.split("."):
            if not hasattr(mod, item):
                raise AttributeError(f"{mod._get_name()} has no attribute `{item}`")
            mod = getattr(mod, item)
            if not isinstance(mod, Module):
                raise AttributeError(f"`{item}` is not an nn.Module")
        return mod

    def set_submodule(self, target, module, strict=False):
        """Put ``module`` at dotted path ``target``; with ``strict`` the last
        component must exist already."""
        if target == "":
            raise ValueError("Cannot set the submodule without a target name!")
        if not isinstance(module, Module):
            raise ValueError(f"`module` is not an nn.Module, found {type(module)}")
        parent_path, _, name = target.rpartition(".")
        parent = self.get_submodule(parent_path)
        if strict and not hasattr(parent, name):
            raise AttributeError(f"{parent._get_name()} has no attribute `{name}`")
        if hasattr(parent, name) and not isinstance(getattr(parent, name), Module):
            raise AttributeError(f"`{name}` is not an nn.Module")
        setattr(parent, name, module)

    def _get_leaf(self, target, kind, check):
        module_path, _, name = target.rpartition(".")
        mod = self.get_submodule(module_path)
        if not hasattr(mod, name):
            raise AttributeError(f"{mod._get_name()} has no attribute `{name}`")
        value = getattr(mod, name)
        if not check(mod, name, value):
            raise AttributeError(f"`{name}` is not {kind}")
        return value

    def get_parameter(self, target):
        """The parameter at dotted path ``target``."""
        return self._get_leaf(target, "an nn.Parameter",
                              lambda m, n, v: isinstance(v, Parameter))

    def get_buffer(self, target):
        """The buffer at dotted path ``target``."""
        return self._get_leaf(target, "a buffer", lambda m, n, v: n in m._buffers)

    def get_extra_state(self):
        raise RuntimeError("Reached a code path in Module.get_extra_state() that should never "
                           "be called.")

    def set_extra_state(self, state):
        raise RuntimeError("Reached a code path in Module.set_extra_state() that should never "
                           "be called.")

    # ---- attribute access ----------------------------------------------------------

    def __getattr__(self, name):
        d = self.__dict__
        for store in ("_parameters", "_buffers", "_modules"):
            if store in d and name in d[store]:
                return d[store][name]
        raise AttributeError(f"'{type(self).__name__}' object has no attribute '{name}'")

    def __setattr__(self, name, value):
        params = self.__dict__.get("_parameters")
        if isinstance(value, Parameter):
            if params is None:
                raise AttributeError("cannot assign parameters before Module.__init__() call")
            _remove_from(name, self.__dict__, self._buffers, self._modules,
                         self._non_persistent_buffers_set)
            self.register_parameter(name, value)
        elif params is not None and name in params:
            if value is not None:
                raise TypeError(f"cannot assign '{_typename(value)}' as parameter "
                                f"'{name}' (torch.nn.Parameter or None expected)")
            self.register_parameter(name, value)
        else:
            modules = self.__dict__.get("_modules")
            if isinstance(value, Module):
                if modules is None:
                    raise AttributeError("cannot assign module before Module.__init__() call")
                _remove_from(name, self.__dict__, self._parameters, self._buffers,
                             self._non_persistent_buffers_set)
                modules[name] = _registration_hooks(_global_module_registration_hooks, self,
                                                    name, value)
            elif modules is not None and name in modules:
                if value is not None:
                    raise TypeError(f"cannot assign '{_typename(value)}' as child module "
                                    f"'{name}' (torch.nn.Module or None expected)")
                modules[name] = value
            else:
                buffers = self.__dict__.get("_buffers")
                if isinstance(value, Buffer) or (buffers is not None and name in buffers):
                    if value is not None and not isinstance(value, Tensor):
                        raise TypeError(f"cannot assign '{_typename(value)}' as buffer "
                                        f"'{name}' (torch.nn.Buffer, torch.Tensor or None "
                                        "expected)")
                    if isinstance(value, Buffer):
                        persistent = value.persistent
                    else:
                        persistent = name not in self._non_persistent_buffers_set
                    _remove_from(name, self.__dict__, self._parameters, self._modules)
                    self.register_buffer(name, value, persistent)
                else:
                    object.__setattr__(self, name, value)

    def __delattr__(self, name):
        if name in self._parameters:
            del self._parameters[name]
        elif name in self._buffers:
            del self._buffers[name]
            self._non_persistent_buffers_set.discard(name)
        elif name in self._modules:
            del self._modules[name]
        else:
            object.__delattr__(self, name)

    def __dir__(self):
        keys = list(object.__dir__(self))
        keys += list(self._parameters) + list(self._buffers) + list(self._modules)
        return sorted(k for k in set(keys) if not k[0].isdigit())

    def __setstate__(self, state):
        self.__dict__.update(state)

    # ---- walking the tree ------------------------------------------------------------

    def _named_members(self, get_members, prefix="", recurse=True, remove_duplicate=True):
        memo = set()
        modules = (self.named_modules(prefix=prefix, remove_duplicate=remove_duplicate)
                   if recurse else [(prefix, self)])
        for module_prefix, module in modules:
            for k, v in get_members(module):
                if v is None or (remove_duplicate and id(v) in memo):
                    continue
                if remove_duplicate:
                    memo.add(id(v))
                yield (module_prefix + ("." if module_prefix else "") + k, v)

    def parameters(self, recurse=True):
        """The parameters of this module (and, with ``recurse``, its submodules)."""
        for _, p in self.named_parameters(recurse=recurse):
            yield p

    def named_parameters(self, prefix="", recurse=True, remove_duplicate=True):
        """(dotted name, parameter) pairs; a shared parameter appears once unless
        ``remove_duplicate=False``."""
        yield from self._named_members(lambda m: m._parameters.items(), prefix, recurse,
                                       remove_duplicate)

    def buffers(self, recurse=True):
        for _, b in self.named_buffers(recurse=recurse):
            yield b

    def named_buffers(self, prefix="", recurse=True, remove_duplicate=True):
        yield from self._named_members(lambda m: m._buffers.items(), prefix, recurse,
                                       remove_duplicate)

    def children(self):
        for _, m in self.named_children():
            yield m

    def named_children(self):
        memo = set()
        for name, module in self._modules.items():
            if module is not None and id(module) not in memo:
                memo.add(id(module))
                yield name, module

    def modules(self, remove_duplicate=True):
        for _, m in self.named_modules(remove_duplicate=remove_duplicate):
            yield m

    def named_modules(self, memo=None, prefix="", remove_duplicate=True):
        """(dotted name, module) pairs of this module and every submodule, depth
        first, the module itself first under ``prefix``."""
        if memo is None:
            memo = set()
        if id(self) in memo:
            return
        if remove_duplicate:
            memo.add(id(self))
        yield prefix, self
        for name, module in self._modules.items():
            if module is None:
                continue
            sub = prefix + ("." if prefix else "") + name
            yield from module.named_modules(memo, sub, remove_duplicate)

    # ---- modes and gradients -----------------------------------------------------------

    def train(self, mode=True):
        """Set training mode (dropout active, batch norm updates its statistics)."""
        if not isinstance(mode, bool):
            raise ValueError("training mode is expected to be boolean")
        self.training = mode
        for module in self.children():
            module.train(mode)
        return self

    def eval(self):
        """Set evaluation mode (``train(False)``)."""
        return self.train(False)

    def requires_grad_(self, requires_grad=True):
        for p in self.parameters():
            p.requires_grad_(requires_grad)
        return self

    def zero_grad(self, set_to_none=True):
        """Reset every parameter's gradient: to None, or to zeros in place."""
        if getattr(self, "_is_replica", False):
            warnings.warn(
                "Calling .zero_grad() from a module created with nn.DataParallel() has no "
                "effect. The parameters are copied (in a differentiable manner) from the "
                "original module. This means they are not leaf nodes in autograd and so don't "
                "accumulate gradients. If you need gradients in your forward method, consider "
                "using autograd.grad instead.", stacklevel=2)
        for p in self.parameters():
            if p.grad is None:
                continue
            if set_to_none:
                p.grad = None
            else:
                g = p.grad
                if g.grad_fn is not None:
                    g = g.detach()
                    p.grad = g
                else:
                    g.requires_grad_(False)
                g.zero_()

    def apply(self, fn):
        """Call ``fn`` on every submodule (children first), then on ``self``."""
        for module in self.children():
            module.apply(fn)
        fn(self)
        return self

    def share_memory(self):
        return self._apply(lambda t: t.share_memory_())

    # ---- conversion ---------------------------------------------------------------------

    def _apply(self, fn, recurse=True):
        """Replace every parameter's and buffer's values by ``fn(values)``.  The
        Parameter objects and their gradients stay the same objects (optimizers
        keep working), taking the new values through ``.data``; or, as
        ``torchlike.__future__`` asks, swap contents with the converted tensors
        (identity kept too) or are replaced by new Parameters."""
        if recurse:
            for module in self.children():
                module._apply(fn)
        from ... import __future__ as future
        from ...autograd.grad_mode import no_grad
        swap = future.get_swap_module_params_on_conversion()
        overwrite = future.get_overwrite_module_params_on_conversion()
        for key, param in self._parameters.items():
            if param is None:
                continue
            if is_lazy(param):
                # no values yet: the placeholder takes the converted dtype and
                # device, which materialize() then uses (LazyLinear(3).double())
                param.data = fn(_C.empty(0, dtype=param.dtype, device=param.device))
                continue
            grad = param.grad
            with no_grad():
                new = fn(param)
                new_grad = None if grad is None else fn(grad)
            if swap:
                self._swap_param(key, param, Parameter(new, param.requires_grad), grad, new_grad)
            elif overwrite:
                fresh = Parameter(new, param.requires_grad)
                if new_grad is not None:
                    fresh.grad = new_grad.requires_grad_(grad.requires_grad)
                self._parameters[key] = fresh
            else:
                param.data = new
                if grad is not None:
                    grad.data = new_grad
        for key, buf in self._buffers.items():
            if buf is not None and is_lazy(buf):
                buf.data = fn(_C.empty(0, dtype=buf.dtype, device=buf.device))
            elif buf is not None:
                self._buffers[key] = fn(buf)
        return self

    def _swap_param(self, key, param, new, grad, new_grad):
        """Swap a parameter's contents, and its gradient's, with the converted
        ones, keeping both objects (the gradient is set back afterwards:
        swap_tensors moves it with the rest)."""
        from ...utils import swap_tensors
        try:
            swap_tensors(param, new)
            if grad is not None:
                swap_tensors(grad, new_grad)
                param.grad = grad
        except Exception as e:
            raise RuntimeError(f"_apply(): Couldn't swap {type(self).__name__}.{key}") from e

    def to(self, *args, **kwargs):
        """Move and/or cast parameters and buffers: ``to(device)``, ``to(dtype)``,
        ``to(device, dtype)``, ``to(tensor)``, with ``non_blocking``.  Only
        floating-point (and complex) tensors change dtype, as in PyTorch;
        ``memory_format=`` lays out the 4-d and 5-d ones (a conv's weight
        channels-last)."""
        device, dtype, non_blocking, memory_format = _parse_to(*args, **kwargs)
        if dtype is not None and not (dtype.is_floating_point or dtype.is_complex):
            raise TypeError("nn.Module.to only accepts floating point or complex dtypes, "
                            f"but got desired dtype={dtype}")

        def convert(t):
            kw = {}
            if device is not None:
                kw["device"] = device
            if dtype is not None and (t.is_floating_point() or t.is_complex()):
                kw["dtype"] = dtype
            if memory_format is not None and t.dim() in (4, 5):
                kw["memory_format"] = memory_format
            if not kw:
                return t
            try:
                return t.to(**kw)
            except NotImplementedError as e:
                if t.is_meta and "Cannot copy out of meta tensor" in str(e):
                    raise NotImplementedError(
                        f"{e} Please use torchlike.nn.Module.to_empty() instead of "
                        "torchlike.nn.Module.to() when moving module from meta to a different "
                        "device.") from None
                raise

        return self._apply(convert)

    def cuda(self, device=None):
        return self._apply(lambda t: t.to(device="cuda" if device is None else
                                          (f"cuda:{device}" if isinstance(device, int)
                                           else device)))

    def cpu(self):
        return self._apply(lambda t: t.to(device="cpu"))

    def type(self, dst_type):
        return self._apply(lambda t: t.to(dtype=dst_type))

    def _cast_floating(self, dtype):
        return self._apply(lambda t: t.to(dtype=dtype) if t.is_floating_point() else t)

    def float(self):
        return self._cast_floating(_C.float32)

    def double(self):
        return self._cast_floating(_C.float64)

    def half(self):
        return self._cast_floating(_C.float16)

    def bfloat16(self):
        return self._cast_floating(_C.bfloat16)

    def to_empty(self, *, device=None, recurse=True):
        return self._apply(lambda t: _C.empty_like(t, device=device), recurse)

    # ---- hooks -----------------------------------------------------------------------------

    def _add_hook(self, store, hook, prepend=False, *flag_sets):
        handle = RemovableHandle(store, extra_dict=list(flag_sets))
        store[handle.id] = hook
        if prepend:
            store.move_to_end(handle.id, last=False)
        return handle

    def register_forward_pre_hook(self, hook, *, prepend=False, with_kwargs=False):
        """``hook(module, args)`` (or ``hook(module, args, kwargs)`` with
        ``with_kwargs``) runs before forward; it may return new args (or
        ``(args, kwargs)``)."""
        handle = self._add_hook(self._forward_pre_hooks, hook, prepend,
                                self._forward_pre_hooks_with_kwargs)
        if with_kwargs:
            self._forward_pre_hooks_with_kwargs.add(handle.id)
        return handle

    def register_forward_hook(self, hook, *, prepend=False, with_kwargs=False,
                              always_call=False):
        """``hook(module, args, output)`` (or ``hook(module, args, kwargs, output)``)
        runs after forward; it may return a new output."""
        handle = self._add_hook(self._forward_hooks, hook, prepend,
                                self._forward_hooks_with_kwargs,
                                self._forward_hooks_always_called)
        if with_kwargs:
            self._forward_hooks_with_kwargs.add(handle.id)
        if always_call:
            self._forward_hooks_always_called.add(handle.id)
        return handle

    def register_full_backward_pre_hook(self, hook, prepend=False):
        """``hook(module, grad_output)`` runs when the gradients w.r.t. the
        module's outputs are known; it may return replacements."""
        return self._add_hook(self._backward_pre_hooks, hook, prepend)

    def register_full_backward_hook(self, hook, prepend=False):
        """``hook(module, grad_input, grad_output)`` runs when the gradients
        w.r.t. the module's inputs are known; it may return new grad_input."""
        self._backward_hook_kind(True)
        return self._add_hook(self._backward_hooks, hook, prepend)

    def register_backward_hook(self, hook):
        """The deprecated form; its hooks run as full backward hooks here."""
        self._backward_hook_kind(False)
        return self._add_hook(self._backward_hooks, hook, False)

    def _backward_hook_kind(self, full):
        # PyTorch refuses the two kinds on one module, whichever came first
        known = self.__dict__.get("_is_full_backward_hook")
        if known is not None and known != full:
            raise RuntimeError("Cannot use both regular backward hooks and full backward hooks "
                               "on a single Module. Please use only one of them.")
        self.__dict__["_is_full_backward_hook"] = full

    def register_state_dict_pre_hook(self, hook):
        """``hook(module, prefix, keep_vars)`` runs before ``state_dict`` collects."""
        return self._add_hook(self._state_dict_pre_hooks, hook)

    def register_state_dict_post_hook(self, hook):
        """``hook(module, state_dict, prefix, local_metadata)`` runs after; it may
        return a new dict."""
        return self._add_hook(self._state_dict_hooks, hook)

    _register_state_dict_hook = register_state_dict_post_hook

    def register_load_state_dict_pre_hook(self, hook):
        """``hook(module, state_dict, prefix, local_metadata, strict, missing_keys,
        unexpected_keys, error_msgs)`` runs before this module loads its part."""
        return self._register_load_state_dict_pre_hook(hook, with_module=True)

    def _register_load_state_dict_pre_hook(self, hook, with_module=False):
        """The same hook without the module argument unless ``with_module``
        (the form ``spectral_norm`` registers)."""
        return self._add_hook(self._load_state_dict_pre_hooks,
                              _WrappedHook(hook, self if with_module else None))

    def register_load_state_dict_post_hook(self, hook):
        """``hook(module, incompatible_keys)`` runs after ``load_state_dict``; it
        may edit the key lists in place."""
        return self._add_hook(self._load_state_dict_post_hooks, hook)

    def _replicate_for_data_parallel(self):
        """A shallow copy for ``nn.parallel.replicate``: the same attributes and
        hooks, its own (empty) parameter dict and its own buffer and child
        dicts, which replicate then fills with the copies for one device."""
        replica = self.__new__(type(self))
        replica.__dict__ = self.__dict__.copy()
        replica._parameters = OrderedDict()
        replica._buffers = replica._buffers.copy()
        replica._modules = replica._modules.copy()
        replica._is_replica = True
        return replica

    def compile(self, *args, **kwargs):
        """PyTorch compiles this module's ``__call__`` with ``torch.compile``;
        torchlike executes eagerly (``torchlike.compile`` returns its callable
        unchanged), so this does nothing and returns None.  The arguments are
        those of ``torch.compile``, accepted and ignored."""
        from ..._compile import compile
        compile(self._call_impl, *args, **kwargs)

    # ---- calling ------------------------------------------------------------------------------

    def _call_impl(self, *args, **kwargs):
        if not (self._forward_pre_hooks or self._forward_hooks or self._backward_hooks
                or self._backward_pre_hooks or _global_forward_pre_hooks
                or _global_forward_hooks or _global_backward_hooks
                or _global_backward_pre_hooks):
            return self.forward(*args, **kwargs)
        called = set()  # the always_call hooks that have run
        output = None
        try:
            for hook_id, hook in itertools.chain(_global_forward_pre_hooks.items(),
                                                 self._forward_pre_hooks.items()):
                if hook_id in self._forward_pre_hooks_with_kwargs:
                    result = hook(self, args, kwargs)
                    if result is not None:
                        if not (isinstance(result, tuple) and len(result) == 2):
                            raise RuntimeError("forward pre-hook must return None or a tuple "
                                               f"of (new_args, new_kwargs), but got {result}.")
                        args, kwargs = result
                else:
                    result = hook(self, args)
                    if result is not None:
                        args = result if isinstance(result, tuple) else (result,)
            bw_hook = None
            if ((self._backward_hooks or self._backward_pre_hooks or _global_backward_hooks
                 or _global_backward_pre_hooks) and _C.is_grad_enabled()):
                # the hooks registered now are the ones this call runs, as in PyTorch
                bw_hook = BackwardHook(
                    self, [*_global_backward_hooks.values(), *self._backward_hooks.values()],
                    [*_global_backward_pre_hooks.values(), *self._backward_pre_hooks.values()])
                args = bw_hook.setup_input_hook(args)
            output = self.forward(*args, **kwargs)
            for hook_id, hook in self._forward_hooks_in_order():
                if hook_id in self._forward_hooks_always_called or \
                        hook_id in _global_forward_hooks_always_called:
                    called.add(hook_id)
                result = self._run_forward_hook(hook_id, hook, args, kwargs, output)
                if result is not None:
                    output = result
            if bw_hook is not None:
                if not isinstance(output, (Tensor, tuple)):
                    warnings.warn("For backward hooks to be called, module output should be a "
                                  f"Tensor or a tuple of Tensors but received {type(output)}",
                                  stacklevel=2)
                output = bw_hook.setup_output_hook(output)
            return output
        except Exception:
            # the always_call hooks that have not run yet run now (with the
            # output so far, None when forward raised); their own errors are
            # only warned about, and the first error propagates
            for hook_id, hook in self._forward_hooks_in_order():
                if hook_id in called or not (hook_id in self._forward_hooks_always_called or
                                             hook_id in _global_forward_hooks_always_called):
                    continue
                try:
                    result = self._run_forward_hook(hook_id, hook, args, kwargs, output)
                    if result is not None:
                        output = result
                except Exception as e:  # noqa: BLE001 - PyTorch silences these too
                    kind = "global module" if hook_id in _global_forward_hooks else "module"
                    warnings.warn(f"{kind} forward hook with ``always_call=True`` raised an "
                                  "exception that was silenced as another error was raised "
                                  f"in forward: {e}", stacklevel=2)
            raise

    def _forward_hooks_in_order(self):
        return list(itertools.chain(_global_forward_hooks.items(), self._forward_hooks.items()))

    def _run_forward_hook(self, hook_id, hook, args, kwargs, output):
        if hook_id in self._forward_hooks_with_kwargs or \
                hook_id in _global_forward_hooks_with_kwargs:
            return hook(self, args, kwargs, output)
        return hook(self, args, output)

    __call__ = _call_impl

    # ---- state dict ----------------------------------------------------------------------------

    def _save_to_state_dict(self, destination, prefix, keep_vars):
        # a lazy module's placeholders go in as themselves (PyTorch's
        # UninitializedParameter / UninitializedBuffer): detached, they would
        # pass for empty tensors
        for name, param in self._parameters.items():
            if param is not None:
                destination[prefix + name] = param if keep_vars or is_lazy(param) \
                    else param.detach()
        for name, buf in self._buffers.items():
            if buf is not None and name not in self._non_persistent_buffers_set:
                destination[prefix + name] = buf if keep_vars or is_lazy(buf) else buf.detach()
        if type(self).get_extra_state is not Module.get_extra_state:
            destination[prefix + "_extra_state"] = self.get_extra_state()

    def state_dict(self, *args, destination=None, prefix="", keep_vars=False):
        """An ordered dict of every parameter and persistent buffer, keyed by
        dotted name (``"0.weight"``, ``"bn.running_mean"``), detached unless
        ``keep_vars``."""
        if args:  # the positional form state_dict(destination, prefix, keep_vars)
            warnings.warn("Positional args are being deprecated, use kwargs instead. Refer to "
                          "https://pytorch.org/docs/main/generated/torch.nn.Module.html#torch."
                          "nn.Module.state_dict for details.", FutureWarning, stacklevel=2)
            destination = args[0] if destination is None else destination
            if len(args) > 1 and prefix == "":
                prefix = args[1]
            if len(args) > 2 and keep_vars is False:
                keep_vars = args[2]
        if destination is None:
            destination = OrderedDict()
            destination._metadata = OrderedDict()
        local_metadata = dict(version=self._version)
        if hasattr(destination, "_metadata"):
            destination._metadata[prefix[:-1]] = local_metadata
        for hook in self._state_dict_pre_hooks.values():
            hook(self, prefix, keep_vars)
        self._save_to_state_dict(destination, prefix, keep_vars)
        for name, module in self._modules.items():
            if module is not None:
                module.state_dict(destination=destination, prefix=prefix + name + ".",
                                  keep_vars=keep_vars)
        for hook in self._state_dict_hooks.values():
            result = hook(self, destination, prefix, local_metadata)
            if result is not None:
                destination = result
        return destination

    def _load_from_state_dict(self, state_dict, prefix, local_metadata, strict,
                              missing_keys, unexpected_keys, error_msgs):
        for hook in self._load_state_dict_pre_hooks.values():
            hook(state_dict, prefix, local_metadata, strict, missing_keys, unexpected_keys,
                 error_msgs)
        persistent_buffers = {k: v for k, v in self._buffers.items()
                              if k not in self._non_persistent_buffers_set}
        local_state = {k: v for k, v in itertools.chain(self._parameters.items(),
                                                         persistent_buffers.items())
                       if v is not None}
        from ...autograd.grad_mode import no_grad
        # load_state_dict(assign=True): the checkpoint's tensors become the
        # module's (their dtype, device and storage), as PyTorch passes it
        assign = local_metadata.get("assign_to_params_buffers", False)
        for name, param in local_state.items():
            key = prefix + name
            if key not in state_dict:
                if strict:
                    missing_keys.append(key)
                continue
            input_param = state_dict[key]
            if not isinstance(input_param, Tensor):
                error_msgs.append(f'While copying the parameter named "{key}", expected '
                                  f'torch.Tensor or Tensor-like object from checkpoint but '
                                  f'received {type(input_param)}')
                continue
            if is_lazy(param):
                with no_grad():
                    param.materialize(input_param.shape)
            if not is_lazy(param) and tuple(input_param.shape) != tuple(param.shape):
                error_msgs.append(
                    f"size mismatch for {key}: copying a param with shape "
                    f"{_size_str(input_param.shape)} from checkpoint, the shape in current "
                    f"model is {_size_str(param.shape)}.")
                continue
            try:
                if assign and name in self._parameters:
                    if isinstance(input_param, Parameter):
                        input_param.requires_grad_(param.requires_grad)
                    else:
                        input_param = Parameter(input_param, param.requires_grad)
                    setattr(self, name, input_param)
                elif assign:
                    setattr(self, name, input_param)
                else:
                    if param.is_meta and not input_param.is_meta:
                        warnings.warn(
                            f"for {key}: copying from a non-meta parameter in the checkpoint to "
                            "a meta parameter in the current model, which is a no-op. (Did you "
                            "mean to pass `assign=True` to assign items in the state dictionary "
                            "to their corresponding key in the module instead of copying them "
                            "in place?)", UserWarning, stacklevel=3)
                    with no_grad():
                        param.copy_(input_param)
            except Exception as ex:
                error_msgs.append(
                    f'While copying the parameter named "{key}", whose dimensions in the '
                    f"model are {_size_str(param.shape)} and whose dimensions in the "
                    f"checkpoint are {_size_str(input_param.shape)}, an exception occurred : "
                    f"{ex.args}.")
        extra_key = prefix + "_extra_state"
        if type(self).set_extra_state is not Module.set_extra_state:
            if extra_key in state_dict:
                self.set_extra_state(state_dict[extra_key])
            elif strict:
                missing_keys.append(extra_key)
        elif strict and extra_key in state_dict:
            unexpected_keys.append(extra_key)
        if strict:
            for key in state_dict.keys():
                if key.startswith(prefix) and key != extra_key:
                    input_name = key[len(prefix):].split(".", 1)
                    if input_name[0] not in self._modules and input_name[0] not in local_state:
                        unexpected_keys.append(key)

    def load_state_dict(self, state_dict, strict=True, assign=False):
        """Copy parameters and buffers from ``state_dict``.  With ``strict``,
        missing or unexpected keys raise; either way the lists are returned as
        ``(missing_keys, unexpected_keys)``.  A shape mismatch always raises,
        naming the key and both shapes."""
        if not isinstance(state_dict, dict):
            raise TypeError(f"Expected state_dict to be dict-like, got {type(state_dict)}.")
        missing_keys, unexpected_keys, error_msgs = [], [], []
        metadata = getattr(state_dict, "_metadata", None)
        state_dict = OrderedDict(state_dict)
        if metadata is not None:
            state_dict._metadata = metadata

        def load(module, local_state_dict, prefix=""):
            local_metadata = {} if metadata is None else dict(metadata.get(prefix[:-1], {}))
            if assign:
                local_metadata["assign_to_params_buffers"] = True
            module._load_from_state_dict(local_state_dict, prefix, local_metadata, True,
                                         missing_keys, unexpected_keys, error_msgs)
            for name, child in module._modules.items():
                if child is not None:
                    child_prefix = prefix + name + "."
                    child_state = {k: v for k, v in local_state_dict.items()
                                   if k.startswith(child_prefix)}
                    load(child, child_state, child_prefix)
            incompatible = _IncompatibleKeys(missing_keys, unexpected_keys)
            for hook in module._load_state_dict_post_hooks.values():
                if hook(module, incompatible) is not None:
                    raise AssertionError(
                        "Hooks registered with ``register_load_state_dict_post_hook`` are not "
                        "expected to return new values, if incompatible_keys need to be "
                        "modified, it should be done inplace.")

        load(self, state_dict)
        if strict:
            if unexpected_keys:
                error_msgs.insert(0, "Unexpected key(s) in state_dict: {}. ".format(
                    ", ".join(f'"{k}"' for k in unexpected_keys)))
            if missing_keys:
                error_msgs.insert(0, "Missing key(s) in state_dict: {}. ".format(
                    ", ".join(f'"{k}"' for k in missing_keys)))
        if error_msgs:
            raise RuntimeError("Error(s) in loading state_dict for {}:\n\t{}".format(
                self._get_name(), "\n\t".join(error_msgs)))
        return _IncompatibleKeys(missing_keys, unexpected_keys)

    # ---- printing --------------------------------------------------------------------------------

    def _get_name(self):
        return type(self).__name__

    def extra_repr(self):
        """The text inside this module's parentheses in its repr; layers
        override it (``in_features=2, out_features=3, bias=True``)."""
        return ""

    def __repr__(self):
        extra_lines = []
        extra = self.extra_repr()
        if extra:
            extra_lines = extra.split("\n")
        child_lines = []
        for key, module in self._modules.items():
            mod_str = _addindent(repr(module), 2)
            child_lines.append("(" + key + "): " + mod_str)
        lines = extra_lines + child_lines
        main = self._get_name() + "("
        if lines:
            if len(extra_lines) == 1 and not child_lines:
                main += extra_lines[0]
            else:
                main += "\n  " + "\n  ".join(lines) + "\n"
        return main + ")"


def _size_str(shape):
    return str(_C.Size(tuple(int(s) for s in shape)))


def _parse_to(*args, **kwargs):
    """(device, dtype, non_blocking, memory_format) from Module.to's forms."""
    device = kwargs.pop("device", None)
    dtype = kwargs.pop("dtype", None)
    non_blocking = kwargs.pop("non_blocking", False)
    memory_format = kwargs.pop("memory_format", None)
    if memory_format is not None and not isinstance(memory_format, _layout.memory_format):
        raise TypeError(f"to(): argument 'memory_format' must be torchlike.memory_format, "
                        f"not {type(memory_format).__name__}")
    if kwargs:
        raise TypeError(f"to() got unexpected keyword arguments {sorted(kwargs)}")
    for a in args:
        if isinstance(a, Tensor):
            device, dtype = a.device, a.dtype
        elif isinstance(a, _C.dtype):
            dtype = a
        elif isinstance(a, bool):
            non_blocking = a
        elif a is not None:
            device = a
    return device, dtype, non_blocking, memory_format
