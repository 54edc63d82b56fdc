"""torchlike.scipy.integrate.odeint: SciPy's odeint with an adjoint gradient.

The forward pass is scipy.integrate.odeint (LSODA) on host values, so the
values are SciPy's.  ``func(y, t, *args)`` is called with tensors, so it may
be written with torchlike ops or with plain NumPy calls that dispatch to them.

The backward pass is the adjoint method: with a(t) = dL/dy(t), the augmented
state (y, a, a_t, a_args) is integrated backwards from each output time to
the one before it, again with odeint, under

    dy/dt = f,  da/dt = -a f_y,  da_t/dt = -a f_t,  da_args/dt = -a f_args,

the vector-Jacobian products a f_y, a f_t, a f_args coming from torchlike's
autograd at each step.  Crossing output time t_i adds g_i (the incoming
gradient) to a; dL/dt_i = g_i . f(y_i, t_i), and dL/dt_0 collects
-sum_i g_i . f(y_i, t_i) plus the integral of a f_t.  Gradients flow to y0,
t and every tensor in args; they are computed once (not differentiable
again)."""
import numpy as np

from .. import _C
from .. import autograd as _autograd
from ..autograd.function import Function, once_differentiable
from ._util import as_tensors

__all__ = ["odeint"]


def _host(x):
    return x.detach().cpu().numpy()


def _on_host(args):
    """The tensors among args as detached float64 CPU copies (the host pass)."""
    return [a.detach().cpu().to(dtype=_C.float64) if isinstance(a, _C.Tensor) else a
            for a in args]


def _host_time(t):
    """The time as a 0-d float64 CPU tensor: the host pass's, beside y and args
    whatever the default device."""
    return _C.tensor(float(t), dtype=_C.float64, device="cpu")


def _eval(func, y, t, args):
    """func at host values, as a flat float64 array."""
    with _autograd.no_grad():
        out = func(_C.from_numpy(np.ascontiguousarray(y)), _host_time(t), *_on_host(args))
    out = out.detach().cpu().numpy() if isinstance(out, _C.Tensor) else np.asarray(out)
    return np.asarray(out, dtype=np.float64).reshape(-1)


def _vjp(func, y, t, args, cotangent):
    """f(y, t, args) and cotangent . (df/dy, df/dt, df/dargs) at host values."""
    yv = _C.from_numpy(np.array(y, dtype=np.float64)).requires_grad_()
    tv = _host_time(t).requires_grad_()
    targs = [a.requires_grad_() if isinstance(a, _C.Tensor) else a for a in _on_host(args)]
    with _autograd.enable_grad():
        out = func(yv, tv, *targs)
        if not isinstance(out, _C.Tensor):
            raise TypeError(f"odeint: func returned {type(out).__name__}; the gradient needs "
                            f"it to return a tensor computed from y, t and args")
        inputs = [yv, tv] + [a for a in targs if isinstance(a, _C.Tensor)]
        grads = _autograd.grad(out.reshape(-1), inputs,
                               grad_outputs=_C.from_numpy(np.array(cotangent)),
                               allow_unused=True)
    flat = [np.zeros(int(np.prod(i.shape)), dtype=np.float64) if g is None else
            g.detach().numpy().reshape(-1) for i, g in zip(inputs, grads)]
    return out.detach().numpy().reshape(-1), flat


class _OdeInt(Function):
    @staticmethod
    def forward(ctx, func, kwargs, y0, t, *args):
        import scipy.integrate
        ys = scipy.integrate.odeint(lambda y, tt: _eval(func, y, tt, args),
                                    _host(y0).astype(np.float64), _host(t).astype(np.float64),
                                    **kwargs)
        ctx.func, ctx.kwargs, ctx.args = func, kwargs, args
        ctx.ys, ctx.t = ys, _host(t).astype(np.float64)
        ctx.y0 = y0
        return _C.from_numpy(np.ascontiguousarray(ys, dtype=np.dtype(y0.dtype.name))).to(
            device=y0.device)

    @staticmethod
    @once_differentiable
    def backward(ctx, grad):
        import scipy.integrate
        func, args, ys, t = ctx.func, ctx.args, ctx.ys, ctx.t
        g = _host(grad).astype(np.float64)
        n_t, dim = ys.shape
        nparam = sum(int(np.prod(a.shape)) for a in args if isinstance(a, _C.Tensor))

        def augmented(state, tt):
            y, a = state[:dim], state[dim:2 * dim]
            f, (vy, vt, *va) = _vjp(func, y, tt, args, -a)
            return np.concatenate([f, vy, vt, *va] if va else [f, vy, vt])

        a = g[-1].copy()
        a_t0 = 0.0
        a_args = np.zeros(nparam)
        grad_t = np.zeros(n_t)
        for i in range(n_t - 1, 0, -1):
            f_i = _eval(func, ys[i], t[i], args)
            grad_t[i] = f_i @ g[i]
            a_t0 -= grad_t[i]
            state = np.concatenate([ys[i], a, [a_t0], a_args])
            back = scipy.integrate.odeint(augmented, state, np.array([t[i], t[i - 1]]),
                                          **ctx.kwargs)[1]
            a = back[dim:2 * dim] + g[i - 1]
            a_t0 = back[2 * dim]
            a_args = back[2 * dim + 1:]
        grad_t[0] = a_t0
        like = ctx.y0
        out = [None, None,
               _C.from_numpy(a.copy()).to(dtype=like.dtype, device=like.device),
               _C.from_numpy(grad_t).to(dtype=like.dtype, device=like.device)]
        offset = 0
        for arg in args:
            if isinstance(arg, _C.Tensor):
                n = int(np.prod(arg.shape))
                out.append(_C.from_numpy(a_args[offset:offset + n].copy()).reshape(
                    arg.shape).to(dtype=arg.dtype, device=arg.device))
                offset += n
            else:
                out.append(None)
        return tuple(out)


_PASSED = ("rtol", "atol", "tcrit", "h0", "hmax", "hmin", "ixpr", "mxstep", "mxhnil",
           "mxordn", "mxords", "printmessg", "tfirst")


def odeint(func, y0, t, args=(), **kwargs):
    """y at the times t of dy/dt = func(y, t, *args), y(t[0]) = y0, as
    scipy.integrate.odeint (shape (len(t), len(y0))), with gradients with
    respect to y0, t and the tensors in args."""
    bad = sorted(set(kwargs) - set(_PASSED))
    if bad:
        raise TypeError(f"odeint: unsupported keyword arguments {bad} (full_output, Dfun "
                        f"and col_deriv are not supported: the gradient uses autograd)")
    if kwargs.get("tfirst"):
        inner = func
        func = lambda y, tt, *a: inner(tt, y, *a)  # noqa: E731
        kwargs = {k: v for k, v in kwargs.items() if k != "tfirst"}
    if not isinstance(args, tuple):
        args = (args,)
    y0, t = as_tensors(y0, t)
    if y0.dim() > 1:
        raise ValueError(f"odeint: y0 must be a scalar or a vector, got shape "
                         f"{tuple(y0.shape)}")
    if t.dim() != 1:
        raise ValueError(f"odeint: t must be a vector of times, got shape {tuple(t.shape)}")
    y0 = y0.reshape(-1)
    return _OdeInt.apply(func, kwargs, y0, t, *args)
