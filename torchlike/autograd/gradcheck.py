"""gradcheck and gradgradcheck: analytical gradients against central finite
differences, in float64.

The analytical Jacobian is built one row per output element, by
``autograd.grad`` with a one-hot gradient; the numerical one perturbs each
input element in place by +-eps (through a zero-copy NumPy view) and
re-evaluates the function."""
import numpy as np

from .. import _C

__all__ = ["gradcheck", "gradgradcheck", "GradcheckError"]


class GradcheckError(RuntimeError):
    """Raised by gradcheck when the gradients do not match."""


def _tensors(xs):
    return [x for x in xs if isinstance(x, _C.Tensor)]


def _outputs(func, inputs):
    out = func(*inputs)
    return (out,) if isinstance(out, _C.Tensor) else tuple(out)


def _numerical(func, inputs, wrt, outputs, eps):
    """jac[i][j]: d output j / d input i, shape (input numel, output numel)."""
    jacs = []
    for x in wrt:
        view = x.detach().numpy()
        flat = view.reshape(-1) if view.flags.c_contiguous else None
        cols = np.zeros((x.numel(), sum(o.numel() for o in outputs)), dtype=np.float64)
        for k in range(x.numel()):
            index = np.unravel_index(k, view.shape) if view.ndim else ()
            orig = view[index] if flat is None else flat[k]
            # Written through NumPy: the tensors' versions do not change, and the
            # function runs with grad on (gradgradcheck's function needs it).
            view[index] = orig + eps
            plus = [o.detach().numpy().astype(np.float64).ravel() for o in
                    _outputs(func, inputs)]
            view[index] = orig - eps
            minus = [o.detach().numpy().astype(np.float64).ravel() for o in
                     _outputs(func, inputs)]
            view[index] = orig
            cols[k] = np.concatenate([(p - m) / (2 * eps) for p, m in zip(plus, minus)]) \
                if plus else []
        jacs.append(cols)
    return jacs


def _analytical(inputs, wrt, outputs):
    from . import grad
    jacs = [np.zeros((x.numel(), sum(o.numel() for o in outputs)), dtype=np.float64)
            for x in wrt]
    col = 0
    for o in outputs:
        for j in range(o.numel()):
            if o.requires_grad:
                onehot = _C.zeros_like(o)
                onehot.view(-1)[j] = 1
                gs = grad((o,), wrt, (onehot,), retain_graph=True, allow_unused=True)
                for i, g in enumerate(gs):
                    if g is not None:
                        if tuple(g.shape) != tuple(wrt[i].shape):
                            raise GradcheckError(f"gradient of input {i} has shape "
                                                 f"{tuple(g.shape)}, expected "
                                                 f"{tuple(wrt[i].shape)}")
                        jacs[i][:, col] = g.detach().numpy().ravel()
            col += 1
    return jacs


def gradcheck(func, inputs, *, eps=1e-6, atol=1e-5, rtol=1e-3, raise_exception=True,
              nondet_tol=0.0, check_undefined_grad=True, check_grad_dtypes=False,
              check_batched_grad=False, check_batched_forward_grad=False,
              check_forward_ad=False, check_backward_ad=True, fast_mode=False, masked=None):
    """Check the gradients of ``func`` at ``inputs`` (a tensor or a tuple)
    against finite differences; inputs that require grad should be float64."""
    inputs = (inputs,) if isinstance(inputs, _C.Tensor) else tuple(inputs)
    wrt = [x for x in _tensors(inputs) if x.requires_grad]
    if not wrt:
        raise ValueError("gradcheck expects at least one input tensor to require gradient, "
                         "but none of the them have requires_grad=True.")
    for x in wrt:
        if x.dtype not in (_C.float64, _C.complex128):
            import warnings
            warnings.warn(f"Input #{wrt.index(x)} requires gradient and is not a double "
                          f"precision floating point. gradcheck is meant for float64 inputs.")
        if x.is_complex():
            raise NotImplementedError("gradcheck of complex inputs is not supported; check "
                                      "the real and imaginary parts as separate real inputs")
    outputs = _outputs(func, inputs)
    numerical = _numerical(func, inputs, wrt, outputs, eps)
    analytical = _analytical(inputs, wrt, outputs)
    for i, (a, n) in enumerate(zip(analytical, numerical)):
        if not np.allclose(a, n, rtol=rtol, atol=atol):
            if not raise_exception:
                return False
            raise GradcheckError(f"Jacobian mismatch for output 0 with respect to input {i},\n"
                                 f"numerical:{n}\nanalytical:{a}\n")
    return True


def gradgradcheck(func, inputs, grad_outputs=None, *, eps=1e-6, atol=1e-5, rtol=1e-3,
                  gen_non_contig_grad_outputs=False, raise_exception=True, nondet_tol=0.0,
                  check_undefined_grad=True, check_grad_dtypes=False,
                  check_batched_grad=False, check_fwd_over_rev=False, check_rev_over_rev=True,
                  fast_mode=False, masked=False):
    """Check second derivatives: gradcheck of the function that maps
    (inputs, grad_outputs) to the gradients of ``func``."""
    from . import grad
    inputs = (inputs,) if isinstance(inputs, _C.Tensor) else tuple(inputs)
    outputs = _outputs(func, inputs)
    if grad_outputs is None:
        rng = np.random.default_rng(0)
        grad_outputs = tuple(_C.tensor(rng.standard_normal(o.shape), dtype=o.dtype,
                                       requires_grad=True) for o in outputs)
    else:
        grad_outputs = (grad_outputs,) if isinstance(grad_outputs, _C.Tensor) \
            else tuple(grad_outputs)
    n = len(inputs)
    diff_outputs = [i for i, o in enumerate(outputs) if o.requires_grad]

    def first_order(*args):
        xs, gos = args[:n], args[n:]
        outs = _outputs(func, xs)
        wrt = [x for x in _tensors(xs) if x.requires_grad]
        gs = grad([outs[i] for i in diff_outputs], wrt, [gos[i] for i in diff_outputs],
                  create_graph=True, allow_unused=True)
        return tuple(g for g in gs if g is not None)

    return gradcheck(first_order, inputs + tuple(grad_outputs), eps=eps, atol=atol, rtol=rtol,
                     raise_exception=raise_exception)
