"""``torchlike.ops``: operators by namespace, as ``torch.ops``.

``ops.<ns>.<name>`` is an OpOverloadPacket, ``ops.<ns>.<name>.<overload>``
an OpOverload; calling either calls the operator.  Custom namespaces hold
what ``torchlike.library`` registered (``custom_op``, ``Library.define``).
``ops.aten.<name>`` maps PyTorch's ATen operators onto the torchlike
function of the same name (``aten.add.Tensor`` -> ``torchlike.add``,
``aten.relu_`` -> ``Tensor.relu_``, ``aten.linalg_vector_norm`` ->
``torchlike.linalg.vector_norm``); every overload of one name calls that one
function, which takes the overload's arguments as PyTorch's function of that
name does.  The overload names are PyTorch's (torchlike/_aten_overloads.json,
written by scripts/gen_aten_overloads.py)."""
import json
import os
import types

__all__ = ["ops", "OpOverload", "OpOverloadPacket"]


class OpOverload:
    """One overload of an operator; calling it calls the operator."""

    def __init__(self, packet, overload_name):
        self.overloadpacket = packet
        self._overloadname = overload_name
        self.namespace = packet.namespace
        self.__name__ = f"{packet._name}.{overload_name}"
        self.__qualname__ = self.__name__

    def __call__(self, *args, **kwargs):
        return self.overloadpacket._call(self._overloadname, args, kwargs)

    def name(self):
        base = f"{self.namespace}::{self.overloadpacket._name}"
        return base if self._overloadname == "default" else f"{base}.{self._overloadname}"

    @property
    def _schema(self):
        return self.overloadpacket._schema(self._overloadname)

    def __str__(self):
        return f"{self.namespace}.{self.overloadpacket._name}.{self._overloadname}"

    def __repr__(self):
        return f"<OpOverload(op='{self.namespace}.{self.overloadpacket._name}', " \
               f"overload='{self._overloadname}')>"

    def __hash__(self):
        return hash(str(self))

    def __eq__(self, other):
        return isinstance(other, OpOverload) and str(self) == str(other)


class OpOverloadPacket:
    """All overloads of one operator name (``ops.<ns>.<name>``)."""

    def __init__(self, namespace, name, overloads, call, schema=None):
        self.namespace, self._name = namespace, name
        self.__name__ = name
        self._overloads = list(overloads)
        self._caller = call
        self._schema_of = schema
        self._made = {}

    def _call(self, overload, args, kwargs):
        return self._caller(overload, args, kwargs)

    def _schema(self, overload):
        if self._schema_of is None:
            raise AttributeError(f"torchlike has no schema for {self.namespace}.{self._name}")
        return self._schema_of(overload)

    def __call__(self, *args, **kwargs):
        return self._caller(None, args, kwargs)

    def overloads(self):
        return list(self._overloads)

    def __getattr__(self, overload):
        if overload.startswith("__"):
            raise AttributeError(overload)
        if overload not in self._overloads:
            raise AttributeError(f"The underlying op of '{self.namespace}.{self._name}' has no "
                                 f"overload name '{overload}'")
        if overload not in self._made:
            self._made[overload] = OpOverload(self, overload)
        return self._made[overload]

    def __str__(self):
        return f"{self.namespace}.{self._name}"

    def __repr__(self):
        return f"<OpOverloadPacket(op='{self.namespace}.{self._name}')>"


class _OpNamespace(types.ModuleType):
    """``ops.<ns>``: its operators as attributes."""

    def __init__(self, name):
        super().__init__("torchlike.ops." + name)
        self.name = name
        self.__file__ = "torchlike.ops"

    def __getattr__(self, op_name):
        if op_name.startswith("__"):
            raise AttributeError(op_name)
        if self.name == "aten":
            packet = _aten_packet(op_name)
            if packet is not None:
                setattr(self, op_name, packet)   # fixed: found directly from now on
        else:
            packet = _custom_packet(self.name, op_name)
            if packet is None and self.name in ("c10d_functional", "c10d"):
                # the collectives' names CommDebugMode counts by, made there
                from .distributed.tensor.debug import _comm_mode  # noqa: F401
                packet = self.__dict__.get(op_name)
            if packet is None and self.name == "quantized":
                # the ops convert_fx's graphs call, registered on first use
                from .ao.quantization.fx import lowered_ops  # noqa: F401
                packet = _custom_packet(self.name, op_name)
        if packet is None:
            raise AttributeError(f"'_OpNamespace' '{self.name}' object has no attribute "
                                 f"'{op_name}'")
        return packet


def _custom_packet(namespace, name):
    from .library import _registry
    opdef = _registry.get(f"{namespace}::{name}")
    if opdef is None:
        return None
    return opdef.packet()


_ATEN = None


def _aten_overloads():
    global _ATEN
    if _ATEN is None:
        with open(os.path.join(os.path.dirname(__file__), "_aten_overloads.json")) as f:
            _ATEN = json.load(f)
    return _ATEN


_SUBMODULE_PREFIXES = ("linalg_", "special_", "fft_")


def aten_function(name):
    """The torchlike callable that answers ``aten.<name>``, or None:
    torchlike.<name>, then nn.functional.<name>, a ``linalg_``/``special_``/
    ``fft_`` name in that submodule, then the Tensor method (in-place ``_``
    names are methods)."""
    import torchlike
    from .nn import functional
    for prefix in _SUBMODULE_PREFIXES:
        if name.startswith(prefix):
            fn = getattr(getattr(torchlike, prefix[:-1]), name[len(prefix):], None)
            if callable(fn):
                return fn
    for space in (torchlike, functional):
        fn = getattr(space, name, None)
        if callable(fn) and not isinstance(fn, type):
            return fn
    method = getattr(torchlike.Tensor, name, None)
    return method if callable(method) else None


def _aten_packet(name):
    overloads = _aten_overloads().get(name)
    fn = aten_function(name) if overloads is not None else None
    if fn is None:
        return None

    def call(overload, args, kwargs):
        return fn(*args, **kwargs)

    return OpOverloadPacket("aten", name, overloads, call)


class _Ops(types.ModuleType):
    """``torchlike.ops``: namespaces made on first use."""

    def __init__(self):
        super().__init__("torchlike.ops")
        self._namespaces = {}

    def __getattr__(self, name):
        if name.startswith("__") or name == "_namespaces":
            raise AttributeError(name)
        if name not in self._namespaces:
            self._namespaces[name] = _OpNamespace(name)
        return self._namespaces[name]

    def load_library(self, path):
        """PyTorch loads a C++ library that registers operators; torchlike
        cannot run PyTorch's C++ extensions."""
        raise RuntimeError(f"torchlike.ops.load_library({path!r}): torchlike cannot load PyTorch "
                           f"C++ operator libraries; register the operator in Python with "
                           f"torchlike.library.custom_op")


ops = _Ops()
