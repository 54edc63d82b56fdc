"""torchlike.utils.weak, as ``torch.utils.weak``: dictionaries keyed weakly
by object identity.  A tensor's ``==`` is elementwise and its hash is its id,
so weakref.WeakKeyDictionary, which compares keys with ``==``, cannot hold
tensors; these compare the referents by ``is``."""
import collections.abc
import weakref

__all__ = ["TensorWeakRef", "WeakIdRef", "WeakIdKeyDictionary", "WeakTensorKeyDictionary"]


class WeakIdRef(weakref.ref):
    """A weak reference hashed and compared by its referent's identity; once
    the referent is gone it equals only itself, keeping the hash it had."""

    __slots__ = ("_id",)

    def __new__(cls, key, callback=None):
        self = super().__new__(cls, key, callback)
        self._id = id(key)
        return self

    def __init__(self, key, callback=None):
        super().__init__(key, callback)

    def __hash__(self):
        return self._id

    def __eq__(self, other):
        if not isinstance(other, WeakIdRef):
            return NotImplemented
        a, b = self(), other()
        if a is None or b is None:
            return self is other
        return a is b

    def __ne__(self, other):
        eq = self.__eq__(other)
        return eq if eq is NotImplemented else not eq


class WeakIdKeyDictionary(collections.abc.MutableMapping):
    """A mapping whose keys are held weakly and told apart by identity; an
    entry goes when its key object is collected."""

    def __init__(self, dict=None, ref_type=WeakIdRef):
        self._data = {}
        self._ref_type = ref_type
        this = weakref.ref(self)

        def remove(ref):
            owner = this()
            if owner is not None:
                owner._data.pop(ref, None)

        self._remove = remove
        if dict is not None:
            self.update(dict)

    def __getitem__(self, key):
        return self._data[self._ref_type(key)]

    def __setitem__(self, key, value):
        self._data[self._ref_type(key, self._remove)] = value

    def __delitem__(self, key):
        del self._data[self._ref_type(key)]

    def __contains__(self, key):
        try:
            ref = self._ref_type(key)
        except TypeError:
            return False
        return ref in self._data

    def __iter__(self):
        for ref in list(self._data):
            obj = ref()
            if obj is not None:
                yield obj

    def __len__(self):
        return sum(1 for ref in list(self._data) if ref() is not None)

    def __repr__(self):
        return f"<{type(self).__name__} at {id(self):#x}>"

    def keyrefs(self):
        """The weak references to the keys."""
        return list(self._data)

    def copy(self):
        new = type(self)(ref_type=self._ref_type)
        new.update(self.items())
        return new

    __copy__ = copy

    def __deepcopy__(self, memo):
        import copy
        new = type(self)(ref_type=self._ref_type)
        for key, value in self.items():
            new[key] = copy.deepcopy(value, memo)
        return new

    def __eq__(self, other):
        if not isinstance(other, collections.abc.Mapping):
            return NotImplemented
        return {id(k): v for k, v in self.items()} == {id(k): v for k, v in other.items()}

    __hash__ = None


WeakTensorKeyDictionary = WeakIdKeyDictionary


class TensorWeakRef:
    """A weak reference to a tensor: calling it gives the tensor, or None once
    it has been collected."""

    def __init__(self, tensor):
        from .. import _C
        if not isinstance(tensor, _C.Tensor):
            raise AssertionError(f"TensorWeakRef() expects a Tensor, not {type(tensor).__name__}")
        self.ref = weakref.ref(tensor)

    def __call__(self):
        return self.ref()
