"""PyTorch's ``*_copy`` ops (``transpose_copy``, ``split_copy`` ...): the
view op's result, as fresh contiguous tensors that share no memory with the
input.  One wrapper serves them all; the gradient flows through the view op
and the copy."""
from . import _C
from ._composites import view_as_complex, view_as_real
from ._inplace_functions import take_input
from ._layout import contiguous_format

Tensor = _C.Tensor

__all__ = []


def _slice(input, dim=0, start=None, end=None, step=1):
    """``torch.slice``: ``input[..., start:end:step, ...]`` along ``dim``."""
    dim = dim + input.ndim if dim < 0 else dim
    return input[(slice(None),) * dim + (slice(start, end, step),)]


# copy op -> the view op it copies (a Tensor method name, or a function)
VIEWS = {
    "view_copy": "view", "permute_copy": "permute", "expand_copy": "expand",
    "transpose_copy": "transpose", "t_copy": "t", "squeeze_copy": "squeeze",
    "unsqueeze_copy": "unsqueeze", "select_copy": "select", "slice_copy": _slice,
    "diagonal_copy": "diagonal", "split_copy": "split",
    "split_with_sizes_copy": "split_with_sizes", "unbind_copy": "unbind",
    "unfold_copy": "unfold", "detach_copy": "detach", "alias_copy": lambda input: input,
    "as_strided_copy": "as_strided", "view_as_real_copy": view_as_real,
    "view_as_complex_copy": view_as_complex,
}


def _fresh(t):
    return t.clone(memory_format=contiguous_format)


def _copy_op(name, view):
    def copy(*args, out=None, **kwargs):
        input, args, kwargs = take_input(name, args, kwargs)
        result = (getattr(input, view)(*args, **kwargs) if isinstance(view, str)
                  else view(input, *args, **kwargs))
        result = tuple(map(_fresh, result)) if isinstance(result, (tuple, list)) \
            else _fresh(result)
        if out is None:
            return result
        if isinstance(result, tuple):
            if len(out) != len(result):
                raise RuntimeError(f"{name}: expected {len(result)} output tensors, got "
                                   f"{len(out)}")
            for o, r in zip(out, result):
                o.copy_(r)  # as in PyTorch, each out tensor has its result's shape
            return None
        return out.resize_(result.shape).copy_(result)
    copy.__name__ = copy.__qualname__ = name
    what = view if isinstance(view, str) else name[:-5]
    copy.__doc__ = f"``{name}``: what ``{what}`` gives, as fresh contiguous tensors."
    return copy


for _name, _view in VIEWS.items():
    globals()[_name] = _copy_op(_name, _view)
    __all__.append(_name)
