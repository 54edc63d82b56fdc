"""Containers: Sequential, ModuleList, ModuleDict, ParameterList, ParameterDict.

List-like containers register their items under the names "0", "1", ...,
so state-dict keys read ``"0.weight"``, ``"layers.3.bias"`` as in PyTorch."""
from collections import OrderedDict, abc
import operator
import warnings

from ... import _C
from ..parameter import Parameter
from .module import Module, _addindent

Tensor = _C.Tensor

__all__ = ["Container", "Sequential", "ModuleList", "ModuleDict", "ParameterList", "ParameterDict"]


def _normalise_index(idx, n, what):
    idx = operator.index(idx)
    if not -n <= idx < n:
        raise IndexError(f"index {idx} is out of range")
    return idx % n


def _renumber(container, items=None):
    """Name the children "0", "1", ... again (after a deletion or insertion),
    as PyTorch's list-like containers keep them."""
    items = list(container._modules.values()) if items is None else items
    container._modules = OrderedDict((str(i), m) for i, m in enumerate(items))


class Container(Module):
    """PyTorch's deprecated container: a Module holding the keyword modules
    it is given, under their keywords."""

    def __init__(self, **kwargs):
        warnings.warn("`nn.Container` is deprecated: subclass `nn.Module`, which does all it "
                      "did.", FutureWarning, stacklevel=2)
        super().__init__()
        for name, module in kwargs.items():
            self.add_module(name, module)


class Sequential(Module):
    r"""Modules called in order, each on the previous one's output.

    ``Sequential(m1, m2)`` names them "0", "1"; ``Sequential(OrderedDict(...))``
    keeps the given names."""

    def __init__(self, *args):
        super().__init__()
        if len(args) == 1 and isinstance(args[0], OrderedDict):
            for key, module in args[0].items():
                self.add_module(key, module)
        else:
            for idx, module in enumerate(args):
                self.add_module(str(idx), module)

    def __getitem__(self, idx):
        if isinstance(idx, slice):
            return type(self)(OrderedDict(list(self._modules.items())[idx]))
        keys = list(self._modules)
        return self._modules[keys[_normalise_index(idx, len(keys), "Sequential")]]

    def __setitem__(self, idx, module):
        keys = list(self._modules)
        setattr(self, keys[_normalise_index(idx, len(keys), "Sequential")], module)

    def __delitem__(self, idx):
        keys = list(self._modules)
        if isinstance(idx, slice):
            for key in keys[idx]:
                delattr(self, key)
        else:
            delattr(self, keys[_normalise_index(idx, len(keys), "Sequential")])
        _renumber(self)

    def __len__(self):
        return len(self._modules)

    def __iter__(self):
        return iter(self._modules.values())

    def __add__(self, other):
        if not isinstance(other, Sequential):
            raise ValueError("add operator supports only objects of Sequential class, but "
                             f"{type(other)} is given.")
        return Sequential(*self, *other)

    def __iadd__(self, other):
        return self.extend(other)

    def __mul__(self, other):
        if not isinstance(other, int) or other <= 0:
            raise ValueError("Non-positive multiplication factor "
                             f"{other} for {type(self)}")
        return Sequential(*(list(self) * other))

    def append(self, module):
        self.add_module(str(len(self)), module)
        return self

    def insert(self, index, module):
        if not isinstance(module, Module):
            raise AssertionError(f"module should be of type: {Module}")
        n = len(self._modules)
        if not -n <= index <= n:
            raise IndexError(f"Index out of range: {index}")
        if index < 0:
            index += n
        items = list(self._modules.values())
        items.insert(index, module)
        _renumber(self, items)
        return self

    def extend(self, sequential):
        for layer in sequential:
            self.append(layer)
        return self

    def pop(self, key):
        v = self[key]
        del self[key]
        return v

    def forward(self, input):
        for module in self:
            input = module(input)
        return input


class ModuleList(Module):
    """A list of submodules, registered (their parameters are the owner's)."""

    def __init__(self, modules=None):
        super().__init__()
        if modules is not None:
            self += modules

    def __getitem__(self, idx):
        if isinstance(idx, slice):
            return type(self)(list(self._modules.values())[idx])
        return self._modules[str(_normalise_index(idx, len(self), "ModuleList"))]

    def __setitem__(self, idx, module):
        setattr(self, str(_normalise_index(idx, len(self), "ModuleList")), module)

    def __delitem__(self, idx):
        if isinstance(idx, slice):
            for k in range(len(self._modules))[idx]:
                delattr(self, str(k))
        else:
            delattr(self, str(_normalise_index(idx, len(self), "ModuleList")))
        _renumber(self)

    def __len__(self):
        return len(self._modules)

    def __iter__(self):
        return iter(self._modules.values())

    def __iadd__(self, modules):
        return self.extend(modules)

    def __add__(self, other):
        return ModuleList(list(self) + list(other))

    def __dir__(self):
        return [k for k in super().__dir__() if not k.isdigit()]

    def insert(self, index, module):
        items = list(self._modules.values())
        items.insert(index, module)
        _renumber(self, items)

    def append(self, module):
        self.add_module(str(len(self)), module)
        return self

    def pop(self, key):
        v = self[key]
        del self[key]
        return v

    def extend(self, modules):
        if isinstance(modules, (Tensor, str)) or not hasattr(modules, "__iter__"):
            raise TypeError("ModuleList.extend should be called with an iterable, but got "
                            + type(modules).__name__)
        offset = len(self)
        for i, module in enumerate(modules):
            self.add_module(str(offset + i), module)
        return self

    def __repr__(self):
        """Runs of identical children print once, as ``(0-5): 6 x Layer(...)``."""
        reprs = [repr(m) for m in self]
        if not reprs:
            return self._get_name() + "()"
        lines = []
        start = 0
        for end in range(1, len(reprs) + 1):
            if end < len(reprs) and reprs[end] == reprs[start]:
                continue
            body = _addindent(reprs[start], 2)
            if end - start == 1:
                lines.append(f"({start}): {body}")
            else:
                lines.append(f"({start}-{end - 1}): {end - start} x {body}")
            start = end
        return self._get_name() + "(\n  " + "\n  ".join(lines) + "\n)"


class ModuleDict(Module):
    """An ordered dict of submodules, registered under their keys."""

    def __init__(self, modules=None):
        super().__init__()
        if modules is not None:
            self.update(modules)

    def __getitem__(self, key):
        return self._modules[key]

    def __setitem__(self, key, module):
        self.add_module(key, module)

    def __delitem__(self, key):
        del self._modules[key]

    def __len__(self):
        return len(self._modules)

    def __iter__(self):
        return iter(self._modules)

    def __contains__(self, key):
        return key in self._modules

    def clear(self):
        self._modules.clear()

    def pop(self, key):
        v = self[key]
        del self[key]
        return v

    def keys(self):
        return self._modules.keys()

    def items(self):
        return self._modules.items()

    def values(self):
        return self._modules.values()

    def update(self, modules):
        if not isinstance(modules, abc.Iterable):
            raise TypeError("ModuleDict.update should be called with an iterable of key/value "
                            f"pairs, but got {type(modules).__name__}")
        items = modules.items() if isinstance(modules, (abc.Mapping, ModuleDict)) else \
            _pairs(modules, "ModuleDict")
        for key, module in items:
            self[key] = module


def _param_line(value, type_name):
    """ParameterList/Dict's one-line description of an entry; ``type_name``
    names the tensor's type (ParameterList prints the dtype, ParameterDict the
    legacy tensor type, as PyTorch's do)."""
    if isinstance(value, Tensor):
        size = "x".join(str(int(s)) for s in value.shape)
        device = f" ({value.device})" if value.device.type == "cuda" else ""
        kind = "Parameter" if isinstance(value, Parameter) else "Tensor"
        return f"{kind} containing: [{type_name(value)} of size {size}{device}]"
    return "Object of type: " + type(value).__name__


class ParameterList(Module):
    """A list of parameters; plain tensors appended become Parameters."""

    def __init__(self, values=None):
        super().__init__()
        self._size = 0
        if values is not None:
            self += values

    def __getitem__(self, idx):
        if isinstance(idx, slice):
            return ParameterList([self[i] for i in range(len(self))[idx]])
        return getattr(self, str(_normalise_index(idx, len(self), "ParameterList")))

    def __setitem__(self, idx, param):
        idx = _normalise_index(idx, len(self), "ParameterList")
        if isinstance(param, Tensor) and not isinstance(param, Parameter):
            param = Parameter(param)
        setattr(self, str(idx), param)

    def __len__(self):
        return self._size

    def __iter__(self):
        return (self[i] for i in range(len(self)))

    def __iadd__(self, parameters):
        return self.extend(parameters)

    def append(self, value):
        new_idx = len(self)
        self._size += 1
        self[new_idx] = value
        return self

    def extend(self, values):
        for value in values:
            self.append(value)
        return self

    def extra_repr(self):
        return "\n".join(f"  ({i}): {_param_line(p, lambda t: t.dtype)}"
                         for i, p in enumerate(self))

    def __call__(self, *args, **kwargs):
        raise RuntimeError("ParameterList should not be called.")


def _pairs(items, owner):
    """A sequence of (key, value) pairs checked as PyTorch's dict updates do."""
    out = []
    for j, p in enumerate(items):
        if not isinstance(p, abc.Iterable):
            raise TypeError(f"{owner} update sequence element #{j} should be Iterable; "
                            f"is{type(p).__name__}")
        p = tuple(p)
        if len(p) != 2:
            raise ValueError(f"{owner} update sequence element #{j} has length {len(p)}; "
                             "2 is required")
        out.append(p)
    return out


class ParameterDict(Module):
    """An ordered dict of parameters; plain tensors set become Parameters."""

    def __init__(self, parameters=None):
        super().__init__()
        self._keys = {}
        if parameters is not None:
            self.update(parameters)

    @staticmethod
    def _key(key):
        # PyTorch's refusal (before the dict changes: a refused key is not kept)
        if not isinstance(key, str):
            raise TypeError("Index given to ParameterDict cannot be used as a key as it is not a "
                            f"string (type is '{type(key).__name__}'). Open an issue on github "
                            "if you need non-string keys.")
        return key

    def __getitem__(self, key):
        return getattr(self, self._key(key))

    def __setitem__(self, key, value):
        self._key(key)
        if isinstance(value, Tensor) and not isinstance(value, Parameter):
            value = Parameter(value)
        setattr(self, key, value)
        self._keys[key] = None

    def __delitem__(self, key):
        self._key(key)
        del self._keys[key]
        delattr(self, key)

    def __len__(self):
        return len(self._keys)

    def __iter__(self):
        return iter(self._keys)

    def __contains__(self, key):
        return key in self._keys

    def keys(self):
        return self._keys.keys()

    def items(self):
        return ((k, self[k]) for k in self._keys)

    def values(self):
        return (self[k] for k in self._keys)

    def get(self, key, default=None):
        return self[key] if key in self else default

    def pop(self, key):
        v = self[key]
        del self[key]
        return v

    def clear(self):
        for k in list(self._keys):
            del self[k]

    def update(self, parameters):
        """Add the (key, value) pairs; as PyTorch, a plain mapping's keys are
        added in sorted order (an OrderedDict's or ParameterDict's as they
        are), so the state_dict's key order matches."""
        if not isinstance(parameters, abc.Iterable):
            raise TypeError("ParametersDict.update should be called with an iterable of "
                            f"key/value pairs, but got {type(parameters).__name__}")
        if isinstance(parameters, (OrderedDict, ParameterDict)):
            items = list(parameters.items())
        elif isinstance(parameters, abc.Mapping):
            items = sorted(parameters.items())
        else:
            items = _pairs(parameters, "ParameterDict")
        for key, value in items:
            self[key] = value

    def copy(self):
        return ParameterDict(OrderedDict((k, self[k]) for k in self._keys))

    def fromkeys(self, keys, default=None):
        return ParameterDict((k, default) for k in keys)

    def popitem(self):
        key = next(reversed(self._keys))
        return key, self.pop(key)

    def setdefault(self, key, default=None):
        if key not in self:
            self[key] = default
        return self[key]

    def __reversed__(self):
        return reversed(list(self._keys))

    def __or__(self, other):
        out = self.copy()
        out.update(other)
        return out

    def __ror__(self, other):
        out = other.copy()
        out.update(self)
        return out

    def __ior__(self, other):
        self.update(other)
        return self

    def extra_repr(self):
        return "\n".join(f"  ({k}): {_param_line(p, Tensor.type)}"
                         for k, p in self.items())

    def __call__(self, input):
        raise RuntimeError("ParameterDict should not be called.")
