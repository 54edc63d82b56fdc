"""RemovableHandle: what hook registration returns (``torch.utils.hooks``).

``handle.remove()`` takes the hook out of every dict it was registered in
(and drops its id from any flag sets, e.g. "called with kwargs"); the
handle also works as a context manager.  A tensor's gradient hooks live in
a list the C side reads, so there the handle holds the list entry itself
(``entry=``) and removes that entry."""
import itertools

__all__ = ["RemovableHandle"]

_next_id = itertools.count()


class RemovableHandle:
    def __init__(self, hooks_dict, *, extra_dict=None, entry=None):
        self.hooks_dicts = (hooks_dict,) + (tuple(extra_dict) if isinstance(
            extra_dict, (list, tuple)) else (() if extra_dict is None else (extra_dict,)))
        self.id = next(_next_id)
        self._entry = entry

    def remove(self):
        for d in self.hooks_dicts:
            if isinstance(d, set):
                d.discard(self.id)
            elif isinstance(d, list):
                for i, e in enumerate(d):
                    if e is self._entry:
                        del d[i]
                        break
            else:
                d.pop(self.id, None)

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.remove()
