"""functionalize and replace_all_batch_norm_modules_, for code written for
functorch's transforms.

PyTorch's functionalize rewrites a traced program without mutations (and,
with remove='mutations_and_views', without aliasing outputs); run eagerly
its results are those of the function itself, input mutations included.
Here the function runs as it is; under 'mutations_and_views' an output that
shares memory with an input or another output is returned as a copy, as the
``*_copy`` ops PyTorch substitutes return (an input returned unchanged stays
itself there too)."""
import functools

from .. import _C
from .._layout import contiguous_format
from ..nn.modules.normalization import _BatchNorm
from ..utils import _pytree

__all__ = ["functionalize", "replace_all_batch_norm_modules_"]

_REMOVE = ("mutations", "mutations_and_views")


def functionalize(func, *, remove="mutations"):
    """``func`` with PyTorch's functionalize contract: the same results."""
    if remove not in _REMOVE:
        raise RuntimeError(
            f"functionalize(f, remove='mutations'): received invalid argument for remove="
            f"{remove}. Valid options are:\n     remove='mutations': all inplace and out= "
            f"operators will be removed from the program, and replaced with their "
            f"out-of-place equivalents.\n     remove='mutations_and_views': In addition to "
            f"the above, all aliasing operators {{view}} will be replaced with their "
            f"non-aliasing counterparts, {{view}}_copy.\n")

    @functools.wraps(func)
    def functionalized(*args, **kwargs):
        out = func(*args, **kwargs)
        if remove == "mutations":
            return out
        inputs = [t for t in _pytree.tree_leaves((args, kwargs)) if isinstance(t, _C.Tensor)]
        seen = {_storage(t) for t in inputs}
        given = {id(t) for t in inputs}

        def unaliased(t):
            # an input returned as it is stays itself, as in PyTorch; a view of
            # an input or of another output becomes a copy
            if not isinstance(t, _C.Tensor) or id(t) in given:
                return t
            key = _storage(t)
            aliased = key in seen or t._base is not None
            seen.add(key)
            return t.clone(memory_format=contiguous_format) if aliased else t

        return _pytree.tree_map(unaliased, out)

    return functionalized


def _storage(t):
    return t.untyped_storage().data_ptr(), t.device


def replace_all_batch_norm_modules_(root):
    """Make every batch norm of ``root`` use batch statistics only (no
    running_mean/var/num_batches_tracked, track_running_stats False), in
    place, so vmap over its forward needs no per-element running state;
    returns ``root``."""
    for module in root.modules():
        if isinstance(module, _BatchNorm) and module.track_running_stats:
            module.running_mean = None
            module.running_var = None
            module.num_batches_tracked = None
            module.track_running_stats = False
    return root
