"""torchlike.autograd: reverse-mode differentiation by a tape.

Ops called on tensors that require grad are recorded by the C core
(``src/grad``); ``backward`` and ``grad`` here check their arguments the way
PyTorch does and hand the graph to the C engine (``_C._run_backward``)."""
from .. import _C
from .grad_mode import (no_grad, enable_grad, set_grad_enabled, inference_mode,  # noqa: F401
                        is_grad_enabled, is_inference_mode_enabled, set_multithreading_enabled,
                        is_multithreading_enabled,
                        _force_original_view_tracking, is_view_replay_enabled)
from .variable import Variable  # noqa: F401
from .function import Function, FunctionCtx, once_differentiable  # noqa: F401
from .gradcheck import gradcheck, gradgradcheck  # noqa: F401
from . import functional  # noqa: F401
from . import graph  # noqa: F401
from . import anomaly_mode  # noqa: F401
from . import forward_ad  # noqa: F401
from .anomaly_mode import detect_anomaly, set_detect_anomaly  # noqa: F401

__all__ = ["backward", "grad", "Function", "gradcheck", "gradgradcheck", "no_grad",
           "enable_grad", "set_grad_enabled", "inference_mode", "functional", "graph",
           "detect_anomaly", "set_detect_anomaly", "Variable", "is_tensor_like",
           "set_multithreading_enabled", "is_multithreading_enabled", "is_view_replay_enabled",
           "forward_ad"]


def is_tensor_like(inp):
    """Whether inp is a tensor or an object that takes part in
    ``__torch_function__`` dispatch, as PyTorch's check."""
    return isinstance(inp, _C.Tensor) or hasattr(inp, "__torch_function__")


def _as_tuple(x):
    if x is None:
        return ()
    if isinstance(x, _C.Tensor):
        return (x,)
    return tuple(x)


def _make_grads(outputs, grads, is_grads_batched=False):
    """One gradient per output: ones for scalars when none is given, checked
    against the output's shape otherwise."""
    if len(grads) != len(outputs):
        raise RuntimeError(f"grad can be implicitly created only for scalar outputs"
                           if not grads else
                           f"got {len(outputs)} outputs but {len(grads)} gradients")
    made = []
    for i, (out, g) in enumerate(zip(outputs, grads)):
        if g is None:
            if out.requires_grad:
                if out.numel() != 1:
                    raise RuntimeError("grad can be implicitly created only for scalar outputs")
                if not (out.is_floating_point() or out.is_complex()):
                    raise RuntimeError(f"grad can be implicitly created only for real scalar "
                                       f"outputs but got {out.dtype}")
                g = _C.ones_like(out)
        elif not isinstance(g, _C.Tensor):
            g = _C.full_like(out, g)
        elif tuple(g.shape) != tuple(out.shape):
            raise RuntimeError(f"Mismatch in shape: grad_output[{i}] has a shape of "
                               f"{g.shape} and output[{i}] has a shape of {out.shape}.")
        elif g.dtype != out.dtype and (g.is_complex() != out.is_complex()):
            raise TypeError(f"For complex Tensors, both grad_output and output are required "
                            f"to have the same dtype. Mismatch in dtype: grad_output[{i}] "
                            f"has a dtype of {g.dtype} and output[{i}] has a dtype of "
                            f"{out.dtype}.")
        made.append(g)
    return tuple(made)


def _check_roots(tensors):
    for i, t in enumerate(tensors):
        if not isinstance(t, _C.Tensor):
            raise TypeError(f"element {i} of tensors is a {type(t).__name__}, not a Tensor")
        if not t.requires_grad:
            raise RuntimeError(f"element {i} of tensors does not require grad and does not "
                               f"have a grad_fn")


def backward(tensors, grad_tensors=None, retain_graph=None, create_graph=False,
             inputs=None):
    """Sum the gradients of ``tensors`` into the ``.grad`` of the leaves (or of
    ``inputs`` only, when given)."""
    if inputs is not None and len(_as_tuple(inputs)) == 0:
        raise RuntimeError("`inputs` argument to `backward()` cannot be empty.")
    tensors = _as_tuple(tensors)
    grad_tensors = _as_tuple(grad_tensors) or (None,) * len(tensors)
    inputs = _as_tuple(inputs)
    for t in inputs:
        # as PyTorch: a non-leaf input keeps its .grad from now on (and one
        # that does not require grad is refused in retain_grad's words)
        if isinstance(t, _C.Tensor):
            t.retain_grad()
    if retain_graph is None:
        retain_graph = create_graph
    _check_roots(tensors)
    grads = _make_grads(tensors, grad_tensors)
    # the engine runs its own ops with __torch_function__ off (they are not the
    # user's calls) and hooks and custom backwards in the caller's state
    graph._engine_run_backward(tensors, grads, bool(retain_graph), bool(create_graph), inputs,
                               False)


def grad(outputs, inputs, grad_outputs=None, retain_graph=None, create_graph=False,
         only_inputs=True, allow_unused=None, is_grads_batched=False, materialize_grads=False):
    """The gradients of ``outputs`` with respect to ``inputs``, returned
    rather than accumulated into ``.grad``."""
    outputs = _as_tuple(outputs)
    inputs_tuple = _as_tuple(inputs)
    if not inputs_tuple:
        raise RuntimeError("`inputs` argument to `grad()` cannot be empty.")
    if allow_unused is None:
        allow_unused = materialize_grads
    if materialize_grads and not allow_unused:
        raise ValueError("Expected allow_unused to be True or not passed when "
                         "materialize_grads=True, but got: allow_unused=False.")
    grad_outputs = _as_tuple(grad_outputs) or (None,) * len(outputs)
    if retain_graph is None:
        retain_graph = create_graph
    _check_roots(outputs)
    for t in inputs_tuple:
        if not isinstance(t, _C.Tensor):
            raise TypeError(f"inputs must be Tensors, not {type(t).__name__}")
    if is_grads_batched:
        result = _batched_grads(outputs, inputs_tuple, grad_outputs, retain_graph, create_graph)
    else:
        from ..func import _batched  # inside vmap: batched cotangents and gradients
        grad_outputs = tuple(_batched.match_cotangent(g, o)
                             for g, o in zip(grad_outputs, outputs))
        grads = _make_grads(outputs, grad_outputs)
        result = graph._engine_run_backward(outputs, grads, bool(retain_graph),
                                            bool(create_graph), inputs_tuple, True)
        result = tuple(_batched.rewrap(r, t) for r, t in zip(result, inputs_tuple))
    unused = [i for i, r in enumerate(result) if r is None]
    if not allow_unused and unused:
        raise RuntimeError(f"The differentiated Tensor at index {unused[0]} appears to not have "
                           f"been used in the graph. Set allow_unused=True if this is the "
                           f"desired behavior.")   # PyTorch's words, naming the first such input
    if materialize_grads:
        batch = (len(grad_outputs[0]),) if is_grads_batched else ()
        result = tuple(_C.zeros(batch + tuple(t.shape), dtype=t.dtype, device=t.device)
                       if r is None else r for r, t in zip(result, inputs_tuple))
    return result


def _batched_grads(outputs, inputs, grad_outputs, retain_graph, create_graph):
    """grad with ``is_grads_batched``: the first dim of every grad_output is a
    batch, and each result gets it in front.  The recorded graph's derivative
    formulas take one cotangent of the output's shape, so this is one
    reverse pass per batch element on that graph (PyTorch vmaps its engine;
    the numbers are the same).  PyTorch's errors for bad batches (its
    mismatch message names the shape of grad_output[i][0] past its first dim)."""
    sizes = []
    for i, (g, out) in enumerate(zip(grad_outputs, outputs)):
        if g is None:
            _make_grads((out,), (None,))  # PyTorch's refusal for a non-scalar output
            raise ValueError("vmap(vjp, in_dims=0, ...)(<inputs>): Got in_dim=0 for some input, "
                             "but that input is a Tensor of dimensionality 0 so expected in_dim "
                             "to satisfy 0 <= in_dim < 0.")
        if not isinstance(g, _C.Tensor) or g.dim() == 0:
            raise IndexError("invalid index of a 0-dim tensor. Use `tensor.item()` in Python or "
                             "`tensor.item<T>()` in C++ to convert a 0-dim tensor to a number")
        if tuple(g.shape[1:]) != tuple(out.shape):
            raise RuntimeError(
                "If `is_grads_batched=True`, we interpret the first dimension of each "
                "grad_output as the batch dimension. The sizes of the remaining dimensions are "
                "expected to match the shape of corresponding output, but a mismatch was "
                f"detected: grad_output[{i}] has a shape of {g.shape[2:]} and output[{i}] has a "
                f"shape of {out.shape}. If you only want some tensors in `grad_output` to be "
                "considered batched, consider using vmap.")
        sizes.append(g.shape[0])
    if any(s != sizes[0] for s in sizes):
        raise ValueError("vmap: Expected all tensors to have the same size in the mapped "
                         f"dimension, got sizes {sizes} for the mapped dimension")
    if sizes[0] == 0:
        raise IndexError("index 0 is out of bounds for dimension 0 with size 0")
    rows = []
    for b in range(sizes[0]):
        keep = bool(retain_graph) or b < sizes[0] - 1
        rows.append(grad(outputs, inputs, tuple(g[b] for g in grad_outputs), retain_graph=keep,
                         create_graph=create_graph, allow_unused=True))
    return tuple(None if r[0] is None else _C.stack(list(r)) for r in zip(*rows))
