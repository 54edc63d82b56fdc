"""Views and their base, run on PyTorch (scripts/golden_view_base.py records
the answers in tests/golden/view_base.json) and on torchlike
(tests/test_view_base.py compares).  Every case takes the library module
`T` and returns plain data (bools, strings, lists of floats), so both runs
give comparable JSON.

VIEWS: name -> fn(T) returning (a, out): where out sits relative to a.
AUTOGRAD: name -> fn(T) returning a dict of facts (gradients, requires_grad,
error messages) about in-place writes through views."""
import numpy as np


def where(a, out):
    """out relative to a: itself, a view of a, a view of something else, or
    no view."""
    if out is a:
        return "self"
    base = out._base
    if base is None:
        return "none"
    return "root" if base is a else "other"


def _m(T, *shape, dtype=None):
    n = int(np.prod(shape))
    return T.arange(float(n)).to(dtype or T.float32).reshape(*shape).clone()


VIEWS = {
    "slice": lambda T: (lambda a: (a, a[1:]))(_m(T, 3, 4)),
    "int_index": lambda T: (lambda a: (a, a[0]))(_m(T, 3, 4)),
    "view_of_view": lambda T: (lambda a: (a, a[1:][0]))(_m(T, 3, 4)),
    "view_of_view_of_view": lambda T: (lambda a: (a, a.T[1:].unsqueeze(0)))(_m(T, 3, 4)),
    "ellipsis": lambda T: (lambda a: (a, a[...]))(_m(T, 3, 4)),
    "none_index": lambda T: (lambda a: (a, a[None]))(_m(T, 3, 4)),
    "index_tensor": lambda T: (lambda a: (a, a[T.tensor([0, 2])]))(_m(T, 3, 4)),
    "bool_mask": lambda T: (lambda a: (a, a[a > 3]))(_m(T, 3, 4)),
    "view_same_shape": lambda T: (lambda a: (a, a.view(a.shape)))(_m(T, 3, 4)),
    "view": lambda T: (lambda a: (a, a.view(12)))(_m(T, 3, 4)),
    "view_dtype": lambda T: (lambda a: (a, a.view(T.int32)))(_m(T, 3, 4)),
    "view_dtype_of_view": lambda T: (lambda a: (a, a[1:].view(T.int32)))(_m(T, 3, 4)),
    "view_as": lambda T: (lambda a: (a, a.view_as(a)))(_m(T, 3, 4)),
    "reshape_view": lambda T: (lambda a: (a, a.reshape(12)))(_m(T, 3, 4)),
    "reshape_same": lambda T: (lambda a: (a, a.reshape(3, 4)))(_m(T, 3, 4)),
    "reshape_copy": lambda T: (lambda a: (a, a.t().reshape(12)))(_m(T, 3, 4)),
    "contiguous_self": lambda T: (lambda a: (a, a.contiguous()))(_m(T, 3, 4)),
    "contiguous_copy": lambda T: (lambda a: (a, a.t().contiguous()))(_m(T, 3, 4)),
    "contiguous_of_view": lambda T: (lambda a: (a, a[0].contiguous()))(_m(T, 3, 4)),
    "clone": lambda T: (lambda a: (a, a.clone()))(_m(T, 3, 4)),
    "detach": lambda T: (lambda a: (a, a.detach()))(_m(T, 3, 4)),
    "detach_of_view": lambda T: (lambda a: (a, a[1:].detach()))(_m(T, 3, 4)),
    "data": lambda T: (lambda a: (a, a.data))(_m(T, 3, 4)),
    "T": lambda T: (lambda a: (a, a.T))(_m(T, 3, 4)),
    "mT": lambda T: (lambda a: (a, a.mT))(_m(T, 3, 4)),
    "H": lambda T: (lambda a: (a, a.H))(_m(T, 3, 4)),
    "t": lambda T: (lambda a: (a, a.t()))(_m(T, 3, 4)),
    "permute": lambda T: (lambda a: (a, a.permute(1, 0)))(_m(T, 3, 4)),
    "transpose": lambda T: (lambda a: (a, a.transpose(0, 1)))(_m(T, 3, 4)),
    "swapaxes": lambda T: (lambda a: (a, a.swapaxes(0, 1)))(_m(T, 3, 4)),
    "adjoint": lambda T: (lambda a: (a, a.adjoint()))(_m(T, 3, 4)),
    "movedim": lambda T: (lambda a: (a, a.movedim(0, 1)))(_m(T, 3, 4)),
    "narrow": lambda T: (lambda a: (a, a.narrow(1, 1, 2)))(_m(T, 3, 4)),
    "select": lambda T: (lambda a: (a, a.select(1, 2)))(_m(T, 3, 4)),
    "diagonal": lambda T: (lambda a: (a, a.diagonal()))(_m(T, 3, 4)),
    "unfold": lambda T: (lambda a: (a, a.unfold(1, 2, 1)))(_m(T, 3, 4)),
    "as_strided": lambda T: (lambda a: (a, a.as_strided((2, 2), (1, 2))))(_m(T, 3, 4)),
    "expand": lambda T: (lambda a: (a, a[:1].expand(5, 4)))(_m(T, 3, 4)),
    "expand_as": lambda T: (lambda a: (a, a.expand_as(a)))(_m(T, 3, 4)),
    "broadcast_to": lambda T: (lambda a: (a, T.broadcast_to(a, (2, 3, 4))))(_m(T, 3, 4)),
    "squeeze": lambda T: (lambda a: (a, a.squeeze()))(_m(T, 3, 4)),
    "squeeze_dim": lambda T: (lambda a: (a, a[None].squeeze(0)))(_m(T, 3, 4)),
    "unsqueeze": lambda T: (lambda a: (a, a.unsqueeze(1)))(_m(T, 3, 4)),
    "flatten": lambda T: (lambda a: (a, a.flatten()))(_m(T, 3, 4)),
    "flatten_one_dim": lambda T: (lambda a: (a, a.flatten(0, 0)))(_m(T, 3, 4)),
    "flatten_1d": lambda T: (lambda a: (a, a.flatten()))(_m(T, 4)),
    "flatten_0d": lambda T: (lambda a: (a, a.flatten()))(T.tensor(1.0)),
    "ravel": lambda T: (lambda a: (a, a.ravel()))(_m(T, 3, 4)),
    "unflatten": lambda T: (lambda a: (a, a.unflatten(1, (2, 2))))(_m(T, 3, 4)),
    "real_of_complex": lambda T: (lambda a: (a, a.real))(_m(T, 3, dtype=T.complex64)),
    "imag_of_complex": lambda T: (lambda a: (a, a.imag))(_m(T, 3, dtype=T.complex64)),
    "real_of_real": lambda T: (lambda a: (a, a.real))(_m(T, 3)),
    "view_as_real": lambda T: (lambda a: (a, T.view_as_real(a)))(_m(T, 3, dtype=T.complex64)),
    "view_as_complex": lambda T: (lambda a: (a, T.view_as_complex(a)))(_m(T, 3, 2)),
    "view_as_real_of_view": lambda T: (
        lambda a: (a, T.view_as_real(a[1:])))(_m(T, 3, dtype=T.complex64)),
    "int_tensor_view": lambda T: (lambda a: (a, a[1:]))(T.arange(4)),
    "atleast_3d": lambda T: (lambda a: (a, T.atleast_3d(a)))(_m(T, 3, 4)),
    "atleast_2d_same": lambda T: (lambda a: (a, T.atleast_2d(a)))(_m(T, 3, 4)),
    "atleast_1d_of_0d": lambda T: (lambda a: (a, T.atleast_1d(a)))(T.tensor(1.0)),
    "leaf_requiring_grad_view": lambda T: (
        lambda a: (a, a[1:]))(_m(T, 3, 4).requires_grad_()),
    "no_grad_view": lambda T: _under(T.no_grad, _m(T, 3, 4), lambda a: a[1:]),
    "inference_mode_view": lambda T: _under(T.inference_mode, _m(T, 3, 4), lambda a: a[1:]),
    "view_of_inference_tensor": lambda T: _inference_tensor_view(T),
}

# a function returning several views: each output relative to the input
MULTI = {
    "split": lambda T: (lambda a: (a, a.split(1)))(_m(T, 3, 4)),
    "split_sizes": lambda T: (lambda a: (a, a.split([1, 2])))(_m(T, 3, 4)),
    "chunk": lambda T: (lambda a: (a, a.chunk(2, 1)))(_m(T, 3, 4)),
    "unbind": lambda T: (lambda a: (a, a.unbind(1)))(_m(T, 3, 4)),
    "tensor_split": lambda T: (lambda a: (a, a.tensor_split(2)))(_m(T, 3, 4)),
    "broadcast_tensors": lambda T: (
        lambda a: (a, T.broadcast_tensors(a, T.zeros(2, 3, 4))))(_m(T, 3, 4)),
    "broadcast_tensors_same": lambda T: (
        lambda a: (a, T.broadcast_tensors(a, T.zeros(3, 1))))(_m(T, 3, 4)),
    "atleast_2d_many": lambda T: (lambda a: (a, T.atleast_2d(a, a[0])))(_m(T, 3, 4)),
}


def _under(mode, a, fn):
    with mode():
        return a, fn(a)


def _inference_tensor_view(T):
    with T.inference_mode():
        a = _m(T, 3, 4)
    return a, a[1:]


# ---- autograd: in-place writes through views ---------------------------------------

def _w(T, n):
    return T.arange(1.0, n + 1.0, dtype=T.float64).requires_grad_()


def _grads(*ts):
    return [None if t.grad is None else t.grad.tolist() for t in ts]


def _error(fn):
    try:
        fn()
    except RuntimeError as e:
        return str(e)
    return None


def _write_into_plain_base(T):
    # the base does not require grad; the written value does: CopySlices
    a = T.zeros(5, dtype=T.float64)
    w = _w(T, 3)
    v = a[1:4]
    v.mul_(2).add_(w * w)
    facts = {"base_grad_fn": a.grad_fn.name().split("::")[-1],
             "base_requires_grad": a.requires_grad, "view_requires_grad": v.requires_grad,
             "view_is_leaf": v.is_leaf, "value": a.tolist()}
    (a * T.arange(5.0, dtype=T.float64)).sum().backward()
    facts["grads"] = _grads(w)
    return facts


def _copy_into_view_then_use_both(T):
    a = T.zeros(2, 3, dtype=T.float64)
    w = _w(T, 3)
    v = a[1]
    v.copy_(w)
    ((a * T.arange(6.0, dtype=T.float64).reshape(2, 3)).sum() + (v * v).sum()).backward()
    return {"grads": _grads(w), "value": a.tolist()}


def _write_base_then_read_view(T):
    # the view's history is rebuilt over the base's new one
    a = T.zeros(4, dtype=T.float64)
    w = _w(T, 4)
    v = a[1:]
    a.add_(w)
    facts = {"view_requires_grad": v.requires_grad,
             "view_grad_fn": v.grad_fn.name(), "view_is_leaf": v.is_leaf}
    (v * v).sum().backward()
    facts["grads"] = _grads(w)
    return facts


def _write_through_sibling(T):
    a = T.zeros(4, dtype=T.float64)
    w = _w(T, 3)
    v1, v2 = a[1:], a[:2]
    v1.mul_(w)
    v1.add_(w)
    facts = {"sibling_requires_grad": v2.requires_grad, "sibling_grad_fn": v2.grad_fn.name()}
    (v2 * T.tensor([3.0, 5.0], dtype=T.float64)).sum().backward()
    facts["grads"] = _grads(w)
    return facts


def _write_into_transposed_view(T):
    a = T.zeros(3, 2, dtype=T.float64)
    w = _w(T, 3)
    v = a.t()[1]  # column 1: a strided view
    v.add_(w * 2)
    (a * T.arange(6.0, dtype=T.float64).reshape(3, 2)).sum().backward()
    return {"grads": _grads(w), "value": a.tolist()}


def _write_into_view_of_nonleaf(T):
    x = _w(T, 4)
    y = x * 1
    v = y.view(2, 2)[0]
    v.mul_(3)
    facts = {"base_grad_fn": y.grad_fn.name().split("::")[-1]}
    (y * T.arange(4.0, dtype=T.float64)).sum().backward()
    facts["grads"] = _grads(x)
    return facts


def _stale_view_of_nonleaf(T):
    x = _w(T, 4)
    y = x * 2
    v1, v2 = y.view(2, 2), y[2:]
    v1.mul_(x.view(2, 2))
    y.add_(1)
    (v2 * v2).sum().backward()
    return {"grads": _grads(x)}


def _leaf_view_write(T):
    x = _w(T, 4)
    return {"error": _error(lambda: x.view(2, 2).mul_(2))}


def _no_grad_view_write(T):
    x = _w(T, 4)
    with T.no_grad():
        v = x[1:]
    facts = {"requires_grad": v.requires_grad, "is_leaf": v.is_leaf,
             "grad_fn": v.grad_fn is None}
    facts["error"] = _error(lambda: v.mul_(2))
    y = x * 1
    with T.no_grad():
        u = y[1:]
    facts["nonleaf_error"] = _error(lambda: u.mul_(2))
    return facts


def _no_grad_view_of_plain_base(T):
    a = T.zeros(4, dtype=T.float64)
    with T.no_grad():
        v = a[1:]
    return {"error": _error(lambda: v.add_(_w(T, 3)))}


def _no_grad_view_after_base_write(T):
    a = T.zeros(4, dtype=T.float64)
    with T.no_grad():
        v = a[1:]
    a.add_(_w(T, 4))
    return {"error": _error(lambda: v.grad_fn)}


def _inference_view_write(T):
    a = T.zeros(4, dtype=T.float64)
    with T.inference_mode():
        v = a[1:]
    return {"error": _error(lambda: v.add_(_w(T, 3)))}


def _no_grad_view_written_under_no_grad(T):
    x = _w(T, 4)
    y = x * 1
    with T.no_grad():
        y[1:].mul_(2)
    y.sum().backward()
    return {"grads": _grads(x), "base_grad_fn": y.grad_fn.name()}


def _multi_output_writes(T):
    x = _w(T, 4)
    y = x * 1
    plain = T.zeros(4, dtype=T.float64)
    return {
        "unbind": _error(lambda: y.unbind()[1].mul_(2)),
        "split": _error(lambda: y.split(2)[1].mul_(2)),
        "split_sizes": _error(lambda: y.split([1, 3])[1].mul_(2)),
        "chunk": _error(lambda: y.chunk(2)[0].mul_(2)),
        "plain_split_with_grad": _error(lambda: plain.split(2)[0].add_(_w(T, 2))),
        "plain_split_no_grad": _error(lambda: plain.split(2)[0].add_(1)),
        "tensor_split_ok": _error(lambda: y.tensor_split(2)[0].mul_(2)),
    }


def _detach_write(T):
    a = T.zeros(4, dtype=T.float64)
    d = a.detach()
    d.add_(_w(T, 4))
    return {"base_requires_grad": a.requires_grad, "detached_requires_grad": d.requires_grad}


def _detach_view_in_place(T):
    y = _w(T, 4) * 1
    return {"error": _error(lambda: y[1:].detach_())}


def _custom_function_view_write(T):
    class Alias(T.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            return x.view_as(x)

        @staticmethod
        def backward(ctx, g):
            return g

    y = _w(T, 3) * 1
    d = Alias.apply(y)
    facts = {"base_is_input": d._base is y, "is_view": d._is_view()}
    facts["error"] = _error(lambda: d.mul_(2))
    return facts


def _inference_flags(T):
    a = T.zeros(3)
    with T.inference_mode():
        v, b = a[1:], T.zeros(3)
        w = b[1:]
    return {"view_of_normal": v.is_inference(), "made": b.is_inference(),
            "view_of_inference": w.is_inference()}


AUTOGRAD = {
    "write_into_plain_base": _write_into_plain_base,
    "copy_into_view_then_use_both": _copy_into_view_then_use_both,
    "write_base_then_read_view": _write_base_then_read_view,
    "write_through_sibling": _write_through_sibling,
    "write_into_transposed_view": _write_into_transposed_view,
    "write_into_view_of_nonleaf": _write_into_view_of_nonleaf,
    "stale_view_of_nonleaf": _stale_view_of_nonleaf,
    "leaf_view_write": _leaf_view_write,
    "no_grad_view_write": _no_grad_view_write,
    "no_grad_view_of_plain_base": _no_grad_view_of_plain_base,
    "no_grad_view_after_base_write": _no_grad_view_after_base_write,
    "inference_view_write": _inference_view_write,
    "no_grad_view_written_under_no_grad": _no_grad_view_written_under_no_grad,
    "multi_output_writes": _multi_output_writes,
    "detach_write": _detach_write,
    "detach_view_in_place": _detach_view_in_place,
    "custom_function_view_write": _custom_function_view_write,
    "inference_flags": _inference_flags,
}


def facts_of(T):
    """Every case's answer on library T, as JSON-ready data."""
    views = {}
    for name, fn in VIEWS.items():
        a, out = fn(T)
        views[name] = {"where": where(a, out), "is_view": out._is_view()}
    multi = {}
    for name, fn in MULTI.items():
        a, outs = fn(T)
        multi[name] = [where(a, o) for o in outs]
    grads = {name: fn(T) for name, fn in AUTOGRAD.items()}
    return {"views": views, "multi": multi, "autograd": grads}
