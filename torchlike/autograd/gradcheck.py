"""gradcheck and gradgradcheck: analytical gradients against central finite
differences, in float64.

The analytical Jacobian is built one row per output element, by
``autograd.grad`` with a one-hot gradient; the numerical one perturbs each
input element in place by +-eps (through a zero-copy NumPy view, which also
reaches strided inputs) and re-evaluates the function.  Both are compared
per (output, input) pair, so a mismatch names which."""
import warnings

import numpy as np

from .. import _C
from .grad_mode import no_grad

__all__ = ["gradcheck", "gradgradcheck", "GradcheckError"]


class GradcheckError(RuntimeError):
    """Raised by gradcheck when the gradients do not match."""


def _tensors(xs):
    return [x for x in xs if isinstance(x, _C.Tensor)]


def _as_outputs(out):
    if isinstance(out, _C.Tensor):
        return (out,)
    if isinstance(out, (tuple, list)):
        return tuple(o for o in out if isinstance(o, _C.Tensor))
    raise TypeError(f"gradcheck: the function must return a Tensor or a tuple of Tensors, "
                    f"not {type(out).__name__}")


def _is_diff(t):
    return t.is_floating_point() or t.is_complex()


def _values(outputs):
    # A complex output is checked through its real part: the analytical side
    # sends a real one-hot gradient, which differentiates Re(output).
    return [np.real(o.detach().cpu().numpy()).astype(np.float64).ravel() for o in outputs]


def _check_inputs(wrt):
    for i, x in wrt:
        if x.is_complex():
            raise NotImplementedError(f"gradcheck: input {i} is complex; complex inputs are "
                                      f"not supported here, check the real and imaginary parts "
                                      f"as separate real inputs")
        if x.dtype != _C.float64:
            warnings.warn(f"Input #{i} requires gradient and is not a double precision floating "
                          f"point ({x.dtype}): gradcheck's finite differences need float64 to "
                          f"be meaningful.")
        shape, stride = tuple(x.shape), tuple(x.stride())
        if any(n > 1 and s == 0 for n, s in zip(shape, stride)):
            raise RuntimeError(f"The {i}th input has a dimension with stride 0. gradcheck only "
                               f"supports inputs that are non-overlapping to be able to compute "
                               f"the numerical gradients correctly. You should call "
                               f".contiguous on the input before passing it to gradcheck.")


def _numerical(func, inputs, wrt, sizes, eps):
    """jac[(j, i)]: d output j / d input i, shape (input numel, output numel)."""
    jacs = {}
    for i, x in wrt:
        on_cpu = x.device.type == "cpu"
        # The tensor's version must not change (a graph the caller built on it
        # stays usable, as with PyTorch's writes through .data).  CPU: written
        # through a zero-copy NumPy view, whatever the strides.  Other devices:
        # element by element through an alias with a version counter of its own.
        view = x.detach().numpy() if on_cpu else x.detach().cpu().numpy()
        target = None if on_cpu else _C._untracked_alias(x.detach())

        def put(index, value):
            if on_cpu:
                view[index] = value
            else:
                with no_grad():
                    target[index] = float(value)

        cols = [np.zeros((x.numel(), n)) for n in sizes]
        for k in range(x.numel()):
            index = np.unravel_index(k, view.shape) if view.ndim else ()
            orig = view[index].copy()
            # the function runs with grad on (gradgradcheck's function needs it)
            put(index, orig + eps)
            plus = _values(_as_outputs(func(*inputs)))
            put(index, orig - eps)
            minus = _values(_as_outputs(func(*inputs)))
            put(index, orig)
            for j, (p, m) in enumerate(zip(plus, minus)):
                cols[j][k] = (p - m) / (2 * eps)
        for j in range(len(sizes)):
            jacs[j, i] = cols[j]
    return jacs


def _analytical(outputs, wrt):
    from . import grad
    jacs = {(j, i): np.zeros((x.numel(), o.numel())) for j, o in enumerate(outputs)
            for i, x in wrt}
    tensors = [x for _, x in wrt]
    for j, o in enumerate(outputs):
        if not o.requires_grad:
            continue  # no history: its analytical gradient is zero
        flat = o.detach().reshape(-1)
        for e in range(o.numel()):
            onehot = _C.zeros_like(flat)
            onehot[e] = 1
            gs = grad((o,), tensors, (onehot.reshape(o.shape),), retain_graph=True,
                      allow_unused=True)
            for (i, x), g in zip(wrt, gs):
                if g is None:
                    continue
                if tuple(g.shape) != tuple(x.shape):
                    raise GradcheckError(f"Gradient of input {i} has shape {tuple(g.shape)}, "
                                         f"expected {tuple(x.shape)} (the input's shape)")
                if g.dtype != x.dtype:
                    raise GradcheckError(f"Gradient of input {i} has dtype {g.dtype}, "
                                         f"expected {x.dtype} (the input's dtype)")
                jacs[j, i][:, e] = g.detach().cpu().numpy().ravel()
    return jacs


def _gradcheck(func, inputs, eps, atol, rtol):
    inputs = (inputs,) if isinstance(inputs, _C.Tensor) else tuple(inputs)
    wrt = [(i, x) for i, x in enumerate(inputs) if isinstance(x, _C.Tensor) and x.requires_grad]
    if not wrt:
        raise ValueError("gradcheck expects at least one input tensor to require gradient, "
                         "but none of the them have requires_grad=True.")
    _check_inputs(wrt)
    outputs = _as_outputs(func(*inputs))
    for j, o in enumerate(outputs):
        if o.requires_grad and not _is_diff(o):
            raise GradcheckError(f"output {j} has dtype {o.dtype} and requires grad")
    sizes = [o.numel() for o in outputs]
    analytical = _analytical(outputs, wrt)  # first: the numerical side may write inputs
    numerical = _numerical(func, inputs, wrt, sizes, eps)
    for j, o in enumerate(outputs):
        for i, _ in wrt:
            a, n = analytical[j, i], numerical[j, i]
            if not _is_diff(o) or not o.requires_grad:
                if not np.allclose(n, 0, atol=atol):
                    raise GradcheckError(f"Numerical gradient for output {j} with respect to "
                                         f"input {i} should be zero: the output "
                                         f"{'is not differentiable' if not _is_diff(o) else 'has no grad_fn'}"
                                         f", but the function changes it.\nnumerical:{n}\n")
                continue
            if not np.allclose(a, n, rtol=rtol, atol=atol):
                worst = np.unravel_index(np.argmax(np.abs(a - n)), a.shape) if a.size else ()
                raise GradcheckError(
                    f"Jacobian mismatch for output {j} with respect to input {i},\n"
                    f"numerical:{n}\nanalytical:{a}\n"
                    f"largest difference at (input element, output element) {tuple(worst)}: "
                    f"numerical {n[worst]} vs analytical {a[worst]}\n")
    return True


def gradcheck(func, inputs, *, eps=1e-6, atol=1e-5, rtol=1e-3, raise_exception=True,
              nondet_tol=0.0, check_undefined_grad=True, check_grad_dtypes=False,
              check_batched_grad=False, check_batched_forward_grad=False,
              check_forward_ad=False, check_backward_ad=True, fast_mode=False, masked=None):
    """Check the gradients of ``func`` at ``inputs`` (a tensor or a tuple)
    against central finite differences; the inputs that require grad should
    be float64.  Returns True, or raises ``GradcheckError`` naming the output
    and input whose Jacobians differ (returns False instead with
    ``raise_exception=False``).  The batched, forward-mode and fast-mode
    options of PyTorch are accepted and not used: this check is always the
    full reverse-mode one."""
    if check_forward_ad and not check_backward_ad:
        raise NotImplementedError("gradcheck: forward-mode AD is not available in torchlike")
    try:
        return _gradcheck(func, inputs, eps, atol, rtol)
    except GradcheckError:
        if raise_exception:
            raise
        return False


def gradgradcheck(func, inputs, grad_outputs=None, *, eps=1e-6, atol=1e-5, rtol=1e-3,
                  gen_non_contig_grad_outputs=False, raise_exception=True, nondet_tol=0.0,
                  check_undefined_grad=True, check_grad_dtypes=False,
                  check_batched_grad=False, check_fwd_over_rev=False, check_rev_over_rev=True,
                  fast_mode=False, masked=False):
    """Check second derivatives: gradcheck of the function that maps
    (inputs, grad_outputs) to the gradients of ``func`` computed with
    ``create_graph=True``.  Random grad_outputs are drawn when none are given
    (strided ones with ``gen_non_contig_grad_outputs=True``)."""
    from . import grad
    inputs = (inputs,) if isinstance(inputs, _C.Tensor) else tuple(inputs)
    outputs = _as_outputs(func(*inputs))
    diff_outputs = [j for j, o in enumerate(outputs) if o.requires_grad and _is_diff(o)]
    if grad_outputs is None:
        rng = np.random.default_rng(0)
        grad_outputs = []
        for j in diff_outputs:
            o = outputs[j]
            values = rng.standard_normal(tuple(o.shape))
            if gen_non_contig_grad_outputs and o.ndim:
                wide = np.zeros(tuple(o.shape[:-1]) + (2 * o.shape[-1],))
                wide[..., ::2] = values
                g = _C.tensor(wide, dtype=o.dtype, device=o.device)[..., ::2]
            else:
                g = _C.tensor(values, dtype=o.dtype, device=o.device)
            grad_outputs.append(g.requires_grad_())
        grad_outputs = tuple(grad_outputs)
    else:
        grad_outputs = (grad_outputs,) if isinstance(grad_outputs, _C.Tensor) \
            else tuple(grad_outputs)
        if len(grad_outputs) != len(diff_outputs):
            raise ValueError(f"gradgradcheck: {len(grad_outputs)} grad_outputs given for "
                             f"{len(diff_outputs)} differentiable outputs")
    n = len(inputs)

    def first_order(*args):
        xs, gos = args[:n], args[n:]
        outs = _as_outputs(func(*xs))
        wrt = [x for x in _tensors(xs) if x.requires_grad]
        gs = grad([outs[j] for j in diff_outputs], wrt, list(gos), create_graph=True,
                  allow_unused=True, materialize_grads=True)
        return tuple(gs)

    return gradcheck(first_order, inputs + grad_outputs, eps=eps, atol=atol, rtol=rtol,
                     raise_exception=raise_exception)
