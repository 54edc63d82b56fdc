"""torchlike.library: custom operators, as ``torch.library``.

An operator is registered once under a qualified name ``"ns::name"`` (by
``custom_op``, or by ``Library(ns, "DEF"/"FRAGMENT").define(schema)``) and
is called as the returned object, or as ``torchlike.ops.<ns>.<name>``.

Calling an operator picks a kernel by the device of its first tensor
argument (``register_kernel``/``impl`` for "cpu"/"cuda"), else the default
(the custom_op's function, or a ``CompositeExplicitAutograd`` /
``CompositeImplicitAutograd`` impl).  A kernel runs below autograd (its own
ops are not recorded); when an input requires grad, the output joins the
tape through ``register_autograd``'s backward, and without one, backward
through it raises PyTorch's error.  A ``CompositeImplicitAutograd`` or
``Autograd`` impl is called as is (its ops are recorded).  Fake (meta)
kernels from ``register_fake`` are kept and checked by ``opcheck``: there is
no fake-tensor tracing here."""
import inspect
import re
import typing
import weakref

from . import _C
from ._ops import OpOverloadPacket
from .autograd.function import Function
from .autograd.grad_mode import no_grad

__all__ = ["Library", "custom_op", "define", "impl", "impl_abstract", "register_fake",
           "register_autograd", "register_kernel", "opcheck", "infer_schema", "CustomOpDef",
           "OpCheckError", "fallthrough_kernel", "get_ctx"]

_registry = {}          # "ns::name" -> _OpDef
_DEVICE_KEYS = {"cpu": "CPU", "cuda": "CUDA", "meta": "Meta"}
_DEFAULT_KEYS = ("CompositeExplicitAutograd", "CompositeImplicitAutograd")


# ---- schemas -----------------------------------------------------------------------------

class _Arg:
    __slots__ = ("name", "type", "default", "has_default", "mutable", "kwarg_only")

    def __init__(self, name, type_, default, has_default, mutable, kwarg_only):
        self.name, self.type, self.default = name, type_, default
        self.has_default, self.mutable, self.kwarg_only = has_default, mutable, kwarg_only


class FunctionSchema:
    """An operator's signature; ``str()`` gives PyTorch's schema text."""

    def __init__(self, name, overload, arguments, returns):
        self.name, self.overload_name = name, overload
        self.arguments, self.returns = arguments, returns

    def __str__(self):
        parts, kw = [], False
        for i, a in enumerate(self.arguments):
            if a.kwarg_only and not kw:
                parts.append("*")
                kw = True
            typ = a.type
            if a.mutable:
                typ = typ.replace("Tensor", f"Tensor(a{i}!)", 1)
            text = f"{typ} {a.name}"
            if a.has_default:
                text += "=" + _default_text(a.default, self.name != "")
            parts.append(text)
        name = self.name + (f".{self.overload_name}" if self.overload_name else "")
        return f"{name}({', '.join(parts)}) -> {self.returns}"


def _default_text(value, parsed=True):
    """A default as schema text; a parsed schema writes 1.0 as "1." (PyTorch's
    FunctionSchema), infer_schema's text keeps Python's repr."""
    if value is None:
        return "None"
    if isinstance(value, bool):
        return str(value)
    if isinstance(value, float):
        text = repr(value)
        return text[:-1] if parsed and text.endswith(".0") else text
    if isinstance(value, (list, tuple)):
        return "[" + ", ".join(_default_text(v, parsed) for v in value) + "]"
    if isinstance(value, str):
        return repr(value)
    return str(value)


_SCALAR_TYPES = {int: "SymInt", float: "float", bool: "bool", str: "str"}


def _type_text(annotation):
    """PyTorch's schema type for a Python annotation, or None if it has none."""
    import torchlike
    simple = {_C.Tensor: "Tensor", int: "SymInt", float: "float", bool: "bool", str: "str",
              torchlike.dtype: "ScalarType", torchlike.device: "Device",
              typing.Any: None}
    if annotation in simple:
        return simple[annotation]
    origin = typing.get_origin(annotation)
    args = typing.get_args(annotation)
    if origin is typing.Union and len(args) == 2 and type(None) in args:
        inner = _type_text(next(a for a in args if a is not type(None)))
        return inner + "?" if inner else None
    if origin in (list, typing.List, tuple) or str(origin) == "collections.abc.Sequence" or \
            origin is __import__("collections.abc").abc.Sequence:
        if args and (origin is not tuple or (len(args) == 2 and args[1] is Ellipsis)):
            inner = _type_text(args[0])
            return inner + "[]" if inner else None
    return None


def _return_text(annotation):
    if annotation is None or annotation is type(None):
        return "()"
    origin = typing.get_origin(annotation)
    if origin is tuple:
        return "(" + ", ".join(_type_text(a) for a in typing.get_args(annotation)) + ")"
    return _type_text(annotation)


def infer_schema(prototype_function, /, *, mutates_args, op_name=None):
    """The schema of a type-annotated function (PyTorch's rules: every
    parameter annotated; ``mutates_args`` names the mutated ones, or is
    "unknown")."""
    sig = inspect.signature(prototype_function)
    hints = typing.get_type_hints(prototype_function)
    where = f"Got func with signature {sig})"
    names = set(sig.parameters)
    if mutates_args != "unknown":
        if isinstance(mutates_args, str):
            raise ValueError("mutates_args must be a tuple of the names of the args that the "
                             "custom op mutates, or the string 'unknown'")
        unknown = set(mutates_args) - names
        if unknown:
            raise ValueError(f"infer_schema(func): {unknown} in mutates_args were not found in "
                             f"the custom op's signature. mutates_args should contain the names "
                             f"of all args that the custom op mutates, or just the string "
                             f"'unknown' if you don't know. {where}")
    arguments = []
    for p in sig.parameters.values():
        if p.kind in (p.VAR_POSITIONAL, p.VAR_KEYWORD, p.POSITIONAL_ONLY):
            raise ValueError(f"infer_schema(func): We do not support positional-only args, "
                             f"varargs, or varkwargs. {where}")
        if p.name not in hints:
            raise ValueError(f"infer_schema(func): Parameter {p.name} must have a type "
                             f"annotation. {where}")
        typ = _type_text(hints[p.name])
        if typ is None:
            raise ValueError(f"infer_schema(func): Parameter {p.name} has unsupported type "
                             f"{hints[p.name]}. {where}")
        mutable = mutates_args == "unknown" and typ.startswith("Tensor") or \
            (mutates_args != "unknown" and p.name in mutates_args)
        arguments.append(_Arg(p.name, typ, p.default, p.default is not p.empty, mutable,
                              p.kind == p.KEYWORD_ONLY))
    if "return" not in hints:
        raise ValueError(f"infer_schema(func): No return type annotation was provided. Please "
                         f"add one. {where}")
    returns = _return_text(hints["return"])
    if returns is None:
        raise ValueError(f"infer_schema(func): Return has unsupported type {hints['return']}. "
                         f"{where}")
    schema = FunctionSchema(op_name or "", "", arguments, returns)
    text = str(schema)
    return text if op_name else text[text.index("("):]


_ARG_RE = re.compile(r"^(?P<type>[A-Za-z]+(?:\([a-z0-9]+!?\))?(?:\[\d*\])?\??)\s+"
                     r"(?P<name>\w+)(?:\s*=\s*(?P<default>.+))?$")


def _parse_default(text):
    text = text.strip()
    if text in ("None", "True", "False"):
        return {"None": None, "True": True, "False": False}[text]
    if text.startswith("["):
        inner = text[1:-1].strip()
        return [_parse_default(t) for t in inner.split(",")] if inner else []
    try:
        return int(text)
    except ValueError:
        pass
    try:
        return float(text)
    except ValueError:
        return text.strip("'\"")


def _parse_schema(text):
    """(name, overload, FunctionSchema) of ``name.overload(args) -> returns``."""
    m = re.match(r"^\s*([\w.:]*?)\s*\((.*)\)\s*->\s*(.+?)\s*$", text)
    if m is None:
        raise RuntimeError(f"Unsupported schema (expected 'name(Tensor x, ...) -> Tensor'): "
                           f"{text!r}")
    full, args_text, returns = m.groups()
    name, _, overload = full.partition(".")
    arguments, kw = [], False
    for part in (p.strip() for p in args_text.split(",") if p.strip()):
        if part == "*":
            kw = True
            continue
        a = _ARG_RE.match(part)
        if a is None:
            raise RuntimeError(f"Unsupported argument {part!r} in schema {text!r}")
        typ = a.group("type")
        mutable = "!" in typ
        typ = re.sub(r"\([a-z0-9]+!?\)", "", typ)
        has_default = a.group("default") is not None
        arguments.append(_Arg(a.group("name"), typ,
                              _parse_default(a.group("default")) if has_default else None,
                              has_default, mutable, kw))
    return name, overload, FunctionSchema(name, overload, arguments, returns)


# ---- operators ---------------------------------------------------------------------------

class _OpDef:
    """One registered operator: its schema, kernels, fake and autograd."""

    def __init__(self, qualname, schema, signature=None):
        self.qualname = qualname
        self.namespace, self.name = qualname.split("::")
        self.schema = schema
        self.signature = signature
        self.kernels = {}            # dispatch key -> function
        self.fake = None
        self.backward = None
        self.setup_context = None
        self._packet = None

    def packet(self):
        if self._packet is None:
            overload = self.schema.overload_name or "default"
            self._packet = OpOverloadPacket(self.namespace, self.name, [overload],
                                            lambda _o, args, kwargs: self(*args, **kwargs),
                                            schema=lambda _o: self.schema)
        return self._packet

    def bind(self, args, kwargs):
        """The arguments in schema order, with defaults filled in."""
        params = []
        for a in self.schema.arguments:
            kind = inspect.Parameter.KEYWORD_ONLY if a.kwarg_only else \
                inspect.Parameter.POSITIONAL_OR_KEYWORD
            params.append(inspect.Parameter(a.name, kind, default=a.default if a.has_default
                                            else inspect.Parameter.empty))
        sig = self.signature or inspect.Signature(params)
        try:
            bound = sig.bind(*args, **kwargs)
        except TypeError as e:
            raise TypeError(f"{self.qualname}() {e}") from None
        bound.apply_defaults()
        return bound

    def kernel_for(self, args):
        device = _first_device(args)
        key = _DEVICE_KEYS.get(device, device.upper())
        for k in (key, "CompositeExplicitAutograd", "CompositeImplicitAutograd", "Autograd",
                  "Autograd" + key):
            if k in self.kernels:
                return k, self.kernels[k]
        raise NotImplementedError(
            f"Could not run '{self.qualname}' with arguments from the '{key}' backend. This "
            f"could be because the operator doesn't exist for this backend, or was omitted "
            f"during the selective/custom build process (if using custom build). Available "
            f"backends: {sorted(self.kernels)}")

    def __call__(self, *args, **kwargs):
        bound = self.bind(args, kwargs)
        values = tuple(bound.arguments.values())
        key, kernel = self.kernel_for(values)
        if key in ("CompositeImplicitAutograd", "Autograd") or key.startswith("Autograd"):
            return kernel(*bound.args, **bound.kwargs)   # autograd-aware: its ops are recorded
        needs_grad = _C.is_grad_enabled() and any(
            isinstance(t, _C.Tensor) and t.requires_grad for t in _tensors(values))
        if not needs_grad:
            with no_grad():
                out = _run_kernel(kernel, bound)
            self._check_aliasing(values, out)
            return out
        return _OpFunction.apply(self, bound, values)

    def _check_aliasing(self, inputs, out):
        ins = list(_tensors(inputs))
        outs = list(_tensors(out if isinstance(out, (tuple, list)) else (out,)))
        for i, o in enumerate(outs):
            aliased = any(o is t or (o.numel() and t.numel() and o.data_ptr() == t.data_ptr())
                          for t in ins) or any(o is p for p in outs[:i])
            if aliased and not any(a.mutable for a in self.schema.arguments):
                raise RuntimeError(
                    f"{self.name} (with implementation in {self.kernel_origin()}): The output of "
                    f"this custom operator (1) must not also be an input to this custom "
                    f"operator and (2) may not alias any inputs to this custom operator or "
                    f"other returns. The most common way to trigger this error is if we have "
                    f"y = custom_op(x) and y and x are the same Tensor. Please instead return a "
                    f"clone of the offending output tensor(s) (e.g. return x.clone()) or "
                    f"refactor the custom operator to not return y.")

    def kernel_origin(self):
        fn = next(iter(self.kernels.values()), None)
        return inspect.getmodule(fn) if fn is not None else None


def _detached(v):
    if isinstance(v, _C.Tensor):
        return v.detach()
    if isinstance(v, (list, tuple)):
        return type(v)(_detached(x) for x in v)
    return v


def _run_kernel(kernel, bound):
    """The kernel on the inputs as plain tensors (views of the same data, not
    requiring grad): it runs below autograd, as in PyTorch."""
    return kernel(*_detached(bound.args), **{k: _detached(v) for k, v in bound.kwargs.items()})


def _tensors(values):
    for v in values:
        if isinstance(v, _C.Tensor):
            yield v
        elif isinstance(v, (list, tuple)):
            yield from _tensors(v)


def _first_device(values):
    t = next(_tensors(values), None)
    return "cpu" if t is None else t.device.type


def _grads_like(value, grad):
    """The gradients of value's tensors, in _tensors' order, from the one the
    registered backward returned for it (a tensor, a list for a tensor list)."""
    if isinstance(value, _C.Tensor):
        yield grad
    elif isinstance(value, (list, tuple)):
        for v, g in zip(value, [None] * len(value) if grad is None else grad):
            yield from _grads_like(v, g)


class _OpFunction(Function):
    """A custom operator on the tape: forward is the kernel (below autograd),
    backward the registered one (or PyTorch's error when there is none).  The
    tape sees every tensor of the inputs, also those inside a list argument
    (``xs: list[Tensor]``), as Function arguments after ``values``."""

    @staticmethod
    def forward(ctx, opdef, bound, values, *tensors):
        ctx.opdef = opdef
        ctx.values = values
        _, kernel = opdef.kernel_for(values)
        out = _run_kernel(kernel, bound)
        opdef._check_aliasing(values, out)
        ctx.list_output = isinstance(out, list)
        if opdef.setup_context is not None:
            opdef.setup_context(ctx, values, out)
        return tuple(out) if isinstance(out, list) else out

    @staticmethod
    def backward(ctx, *grads):
        opdef = ctx.opdef
        if opdef.backward is None:
            overload = opdef.schema.overload_name or "default"
            raise RuntimeError(f"Trying to backward through {opdef.namespace}.{opdef.name}."
                               f"{overload} but no autograd formula was registered. Please use "
                               f"register_autograd to add one.")
        if ctx.list_output:
            grads = (list(grads),)
        result = opdef.backward(ctx, *grads)
        result = tuple(result) if isinstance(result, (tuple, list)) else (result,)
        n = len(opdef.schema.arguments)
        if len(result) != n:
            raise RuntimeError(f"{opdef.qualname}: the backward registered with "
                               f"register_autograd returned {len(result)} gradients; expected "
                               f"{n} (one per input, None for those without one)")
        flat = [g for v, r in zip(ctx.values, result) for g in _grads_like(v, r)]
        return (None, None, None) + tuple(flat)

    @classmethod
    def apply(cls, opdef, bound, values):
        out = super().apply(opdef, bound, values, *_tensors(values))
        return list(out) if isinstance(out, tuple) and opdef.schema.returns.endswith("[]") \
            else out


def _qualname(op):
    """"ns::name" of a custom op, an OpOverload(Packet) or a string."""
    if isinstance(op, CustomOpDef):
        return op._opdef.qualname
    if isinstance(op, str):
        if "::" not in op:
            raise ValueError(f"Expected a qualified operator name 'namespace::name', got "
                             f"{op!r}")
        return op.split(".")[0]
    packet = getattr(op, "overloadpacket", op)
    return f"{packet.namespace}::{packet._name}"


def _opdef(op):
    qualname = _qualname(op)
    if qualname not in _registry:
        raise RuntimeError(f"Operator '{qualname}' does not exist; define it first with "
                           f"torchlike.library.custom_op or Library.define")
    return _registry[qualname]


def _register(opdef):
    if opdef.qualname in _registry:
        raise RuntimeError(f"Tried to register an operator ({opdef.qualname}) with the same "
                           f"name and overload name multiple times.")
    _registry[opdef.qualname] = opdef


class CustomOpDef:
    """What ``custom_op`` returns: call it to call the operator."""

    def __init__(self, opdef, fn):
        self._opdef = opdef
        self._init_fn = fn
        self.__name__ = opdef.name
        self.__doc__ = fn.__doc__

    def __call__(self, *args, **kwargs):
        return self._opdef(*args, **kwargs)

    def __repr__(self):
        return f"<CustomOpDef({self._opdef.qualname})>"

    @property
    def _opoverload(self):
        packet = self._opdef.packet()
        return getattr(packet, packet.overloads()[0])

    def register_fake(self, fn):
        """The function giving the output's shape and dtype from the inputs'."""
        self._opdef.fake = fn
        return fn

    def register_kernel(self, device_types, fn=None):
        """A kernel for ``device_types`` ("cpu", "cuda", or a sequence)."""
        def register(f):
            for d in ([device_types] if isinstance(device_types, str) else device_types):
                self._opdef.kernels[_DEVICE_KEYS.get(d, d.upper())] = f
            return f
        return register if fn is None else register(fn)

    def register_autograd(self, backward, /, *, setup_context=None):
        """``backward(ctx, *grads)`` gives one gradient per input;
        ``setup_context(ctx, inputs, output)`` saves what it needs."""
        self._opdef.backward, self._opdef.setup_context = backward, setup_context

    def set_kernel_enabled(self, device_type, enabled=True):
        """A context in which the kernel for ``device_type`` is (not) used."""
        import contextlib
        key = _DEVICE_KEYS.get(device_type, device_type.upper())

        @contextlib.contextmanager
        def switch():
            kept = self._opdef.kernels.pop(key, None) if not enabled else None
            try:
                yield
            finally:
                if kept is not None:
                    self._opdef.kernels[key] = kept
        return switch()


def custom_op(name, fn=None, /, *, mutates_args, device_types=None, schema=None, tags=None):
    """Register ``fn`` (type-annotated) as the operator ``"ns::name"``; the
    returned CustomOpDef calls it (and so does ``ops.<ns>.<name>``).
    ``mutates_args``: the names of the inputs fn writes to (or "unknown")."""
    def register(func):
        if "::" not in name:
            raise ValueError(f"Expected a qualified operator name 'namespace::name', got "
                             f"{name!r}")
        namespace, opname = name.split("::")
        text = schema if schema is not None else infer_schema(func, mutates_args=mutates_args)
        _, overload, parsed = _parse_schema(name + text)
        opdef = _OpDef(name, parsed, signature=inspect.signature(func))
        keys = ["CompositeExplicitAutograd"] if device_types is None else \
            [_DEVICE_KEYS.get(d, d.upper()) for d in
             ([device_types] if isinstance(device_types, str) else device_types)]
        for key in keys:
            opdef.kernels[key] = func
        _registry.pop(name, None)   # custom_op may redefine its name (PyTorch's does)
        _register(opdef)
        return CustomOpDef(opdef, func)
    return register if fn is None else register(fn)


class Library:
    """Operators of a namespace: ``kind`` "DEF" (defines the namespace's
    operators; one per namespace), "FRAGMENT" (defines more) or "IMPL"
    (kernels for existing ones).  Its registrations are removed when it is
    garbage collected (or ``_destroy()`` is called), as in PyTorch."""

    _def_namespaces = set()

    def __init__(self, ns, kind, dispatch_key=""):
        if kind not in ("IMPL", "DEF", "FRAGMENT"):
            raise ValueError(f"Unsupported kind: {kind}")
        if kind == "DEF" and ns in Library._def_namespaces:
            raise RuntimeError(f"Only a single TORCH_LIBRARY can be used to register the "
                               f"namespace {ns}; please put all of your definitions in a single "
                               f"TORCH_LIBRARY block.  If you were trying to specify "
                               f"implementations, consider using TORCH_LIBRARY_IMPL (which can "
                               f"be duplicated).  If you really intended to define operators "
                               f"for a single namespace in a distributed way, you can use "
                               f"TORCH_LIBRARY_FRAGMENT to explicitly indicate this.")
        self.ns, self.kind, self.dispatch_key = ns, kind, dispatch_key
        self._defs, self._impls = [], []
        if kind == "DEF":
            Library._def_namespaces.add(ns)
        self._finalizer = weakref.finalize(self, Library._remove, ns, kind, self._defs,
                                           self._impls)

    def __repr__(self):
        return f"Library(kind={self.kind}, ns={self.ns}, dispatch_key={self.dispatch_key})>"

    def define(self, schema, alias_analysis="", *, tags=()):
        """Define an operator from a schema (``"name(Tensor x) -> Tensor"``);
        returns its name."""
        if self.kind == "IMPL":
            raise RuntimeError("define() cannot be called on an IMPL library")
        name, overload, parsed = _parse_schema(f"{self.ns}::{schema.strip()}")
        name = name.split("::")[1]
        opdef = _OpDef(f"{self.ns}::{name}", parsed)
        _register(opdef)
        self._defs.append(opdef.qualname)
        return name

    def impl(self, op_name, fn, dispatch_key="", *, with_keyset=False, allow_override=False):
        """Register ``fn`` as the kernel of ``op_name`` for ``dispatch_key``
        ("CPU", "CUDA", "Autograd", "CompositeImplicitAutograd" ...; by
        default the library's key, else CompositeImplicitAutograd)."""
        if not callable(fn):
            raise TypeError(f"Input function is required to be a callable but found type "
                            f"{type(fn)}")
        key = dispatch_key or self.dispatch_key or "CompositeImplicitAutograd"
        if isinstance(op_name, str):
            qualname = op_name.split(".")[0] if "::" in op_name else \
                f"{self.ns}::{op_name.split('.')[0]}"
        else:
            qualname = _qualname(op_name)
        opdef = _opdef(qualname)
        if key == "Meta":
            opdef.fake = fn
        else:
            opdef.kernels[key] = fn
        self._impls.append((qualname, key))

    def fallback(self, fn, dispatch_key="", *, with_keyset=False):
        raise NotImplementedError("torchlike.library.Library.fallback: torchlike has no "
                                  "dispatcher fallbacks")

    @staticmethod
    def _remove(ns, kind, defs, impls):
        for qualname, key in impls:
            opdef = _registry.get(qualname)
            if opdef is not None:
                opdef.kernels.pop(key, None)
                if key == "Meta":
                    opdef.fake = None
        for qualname in defs:
            _registry.pop(qualname, None)
        if kind == "DEF":
            Library._def_namespaces.discard(ns)

    def _destroy(self):
        self._finalizer()


def define(qualname, schema, *, lib=None, tags=()):
    """Define ``"ns::name"`` with ``schema`` (``"(Tensor x) -> Tensor"``)."""
    namespace, name = qualname.split("::")
    if lib is None:
        lib = Library(namespace, "FRAGMENT")
        _keep_alive.append(lib)
    lib.define(name + schema, tags=tags)


_keep_alive = []   # the libraries that module-level define/impl made (never collected)


def impl(qualname, types, func=None, *, lib=None):
    """Register a kernel of ``"ns::name"`` for device ``types`` ("cpu",
    "cuda", "default" or a sequence), as a decorator or with ``func``.  The
    older form ``impl(lib, name, dispatch_key)`` is accepted too."""
    if isinstance(qualname, Library):
        library, name, key = qualname, types, func or ""

        def register_legacy(fn):
            library.impl(name, fn, key)
            return fn
        return register_legacy
    keys = [types] if isinstance(types, str) else list(types)
    keys = ["CompositeExplicitAutograd" if k == "default" else _DEVICE_KEYS.get(k, k)
            for k in keys]

    def register(fn):
        for key in keys:
            library = lib
            if library is None:
                library = Library(qualname.split("::")[0], "FRAGMENT")
                _keep_alive.append(library)
            library.impl(qualname, fn, key)
        return fn
    return register if func is None else register(func)


def register_fake(op, func=None, /, *, lib=None, _stacklevel=1):
    """Register the fake (meta) kernel of ``op``: output shapes and dtypes
    from the inputs (``opcheck`` compares it with the real kernel)."""
    def register(fn):
        _opdef(op).fake = fn
        return fn
    return register if func is None else register(func)


impl_abstract = register_fake


def register_kernel(op, device_types, func=None, /, *, lib=None):
    """A kernel of ``op`` for ``device_types`` ("cpu", "cuda" or a sequence)."""
    def register(fn):
        opdef = _opdef(op)
        for d in ([device_types] if isinstance(device_types, str) or device_types is None
                  else device_types):
            key = "CompositeExplicitAutograd" if d is None else _DEVICE_KEYS.get(d, d.upper())
            opdef.kernels[key] = fn
        return fn
    return register if func is None else register(func)


def register_autograd(op, backward, /, *, setup_context=None, lib=None):
    """Make ``op`` differentiable: ``backward(ctx, *grads)`` returns one
    gradient per input; ``setup_context(ctx, inputs, output)`` saves for it."""
    opdef = _opdef(op)
    opdef.backward, opdef.setup_context = backward, setup_context


def fallthrough_kernel():
    """A placeholder kernel that PyTorch skips to the next dispatch key."""
    raise NotImplementedError("fallthrough_kernel() should never be called.")


def get_ctx():
    raise RuntimeError("torchlike.library.get_ctx: there is no fake-tensor tracing in torchlike "
                       "(fake kernels run on real tensors in opcheck)")


# ---- opcheck -----------------------------------------------------------------------------

class OpCheckError(Exception):
    pass


DEFAULT_TEST_UTILS = ("test_schema", "test_autograd_registration", "test_faketensor",
                      "test_aot_dispatch_dynamic")


def _clone_args(values):
    """``values`` (a tree of arguments) with each tensor replaced by a copy."""
    from .func._pytree import tree_map
    return tree_map(lambda v: v.detach().clone().requires_grad_(v.requires_grad)
                    if isinstance(v, _C.Tensor) else v, values)


def _check_schema(opdef, args, kwargs):
    """Run the op on copies; inputs it wrote to must be declared mutable."""
    from ._closeness import equal
    before = _clone_args(list(opdef.bind(args, kwargs).arguments.values()))
    copies_args, copies_kwargs = _clone_args(args), _clone_args(kwargs)
    with no_grad():
        opdef(*copies_args, **copies_kwargs)
    after = list(opdef.bind(copies_args, copies_kwargs).arguments.values())
    for a, old, new in zip(opdef.schema.arguments, before, after):
        if isinstance(old, _C.Tensor) and not a.mutable and not equal(old, new) and \
                not (old.is_floating_point() and bool(((old != old) & (new != new)).all())):
            raise RuntimeError(f"{opdef.qualname}: argument '{a.name}' is mutated but is not "
                               f"marked as mutable in the schema ({opdef.schema}); add it to "
                               f"mutates_args")


def _check_autograd(opdef, args, kwargs, atol, rtol):
    """gradcheck in float64 when an input requires grad."""
    if not any(t.requires_grad for t in _tensors(list(args) + list(kwargs.values()))):
        return
    from .autograd.gradcheck import gradcheck
    from .func._pytree import tree_map

    def to64(v):
        if isinstance(v, _C.Tensor) and v.is_floating_point():
            return v.detach().to(_C.float64).requires_grad_(v.requires_grad)
        return v

    args64, kwargs64 = tree_map(to64, tuple(args)), tree_map(to64, dict(kwargs))
    leaves = [t for t in _tensors(list(args64) + list(kwargs64.values())) if t.requires_grad]

    def run(*new):
        it = iter(new)

        def swap(v):
            return next(it) if isinstance(v, _C.Tensor) and v.requires_grad else v
        return opdef(*tree_map(swap, args64), **tree_map(swap, kwargs64))

    gradcheck(run, tuple(leaves), atol=atol if atol is not None else 1e-5,
              rtol=rtol if rtol is not None else 1e-3)


def _check_fake(opdef, args, kwargs):
    if opdef.fake is None:
        if "CompositeImplicitAutograd" in opdef.kernels:
            return
        raise RuntimeError(f"There was no fake impl registered for <CustomOpDef("
                           f"{opdef.qualname})>. This is necessary for torchlike.compile/export/fx "
                           f"tracing to work. Please use `{opdef.name}.register_fake` to add an "
                           f"fake impl.")
    bound = opdef.bind(_clone_args(args), _clone_args(kwargs))
    with no_grad():
        fake = opdef.fake(*bound.args, **bound.kwargs)
        real = opdef(*_clone_args(args), **_clone_args(kwargs))
    fakes = list(_tensors(fake if isinstance(fake, (tuple, list)) else (fake,)))
    reals = list(_tensors(real if isinstance(real, (tuple, list)) else (real,)))
    if len(fakes) != len(reals):
        raise RuntimeError(f"{opdef.qualname}: the fake impl returned {len(fakes)} tensors, the "
                           f"kernel {len(reals)}")
    for f, r in zip(fakes, reals):
        for what in ("shape", "dtype", "device"):
            if getattr(f, what) != getattr(r, what):
                raise RuntimeError(f"{opdef.qualname}: the fake impl's output {what} "
                                   f"{getattr(f, what)} differs from the kernel's "
                                   f"{getattr(r, what)}")


def _check_repeatable(opdef, args, kwargs, atol, rtol):
    """Two runs on copies of the inputs give the same outputs."""
    from .testing import assert_close
    with no_grad():
        first = opdef(*_clone_args(args), **_clone_args(kwargs))
        second = opdef(*_clone_args(args), **_clone_args(kwargs))
    assert_close(second, first, atol=atol, rtol=rtol, equal_nan=True)


def opcheck(op, args, kwargs=None, *, test_utils=DEFAULT_TEST_UTILS, raise_exception=True,
            atol=None, rtol=None):
    """Check a custom operator's registrations on these inputs:

    - test_schema: inputs it writes to are declared (``mutates_args``);
      outputs do not alias inputs;
    - test_autograd_registration: when an input requires grad, gradients
      through the registered backward agree with finite differences
      (gradcheck in float64);
    - test_faketensor: a fake impl is registered and gives the kernel's
      output shapes, dtypes and devices;
    - test_aot_dispatch_dynamic: two runs give the same outputs.

    Returns {test: "SUCCESS"} or raises OpCheckError (with
    ``raise_exception=False``, the failing tests map to their exception)."""
    kwargs = kwargs or {}
    opdef = _opdef(op)
    tests = [test_utils] if isinstance(test_utils, str) else list(test_utils)
    checks = {"test_schema": lambda: _check_schema(opdef, args, kwargs),
              "test_autograd_registration": lambda: _check_autograd(opdef, args, kwargs, atol,
                                                                    rtol),
              "test_faketensor": lambda: _check_fake(opdef, args, kwargs),
              "test_aot_dispatch_dynamic": lambda: _check_repeatable(opdef, args, kwargs, atol,
                                                                     rtol)}
    results = {}
    for name in tests:
        if name not in checks:
            raise ValueError(f"test_utils contains {name!r}, expected some of "
                             f"{list(checks)}")
        try:
            checks[name]()
            results[name] = "SUCCESS"
        except Exception as e:  # noqa: BLE001 - reported per test
            if raise_exception:
                raise OpCheckError(f"opcheck(op, ...): {name} failed with {e} (scroll up for "
                                   f"stack trace)") from e
            results[name] = e
    return results
