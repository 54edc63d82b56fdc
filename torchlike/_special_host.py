"""scipy.special functions that torchlike has no kernel for, differentiable.

The value is SciPy's own, computed on zero-copy views of CPU tensors (Bessel
functions, incomplete gamma and beta, erfcx, ndtri, erfcinv, erf of complex
numbers): no special function is written here.  The derivative is written
with recorded ops -- usually the same family one order away -- so gradients of
every order are recorded:

    jv'(v, x)  = (jv(v-1, x) - jv(v+1, x)) / 2     (yv alike)
    iv'(v, x)  = (iv(v-1, x) + iv(v+1, x)) / 2
    kv'(v, x)  = -(kv(v-1, x) + kv(v+1, x)) / 2
    ive'       = iv' e^-|x| - sign(x) ive          kve' = kv' e^x + kve
    j0' = -j1, j1' = (j0 - j2)/2, y0' = -y1, y1' = (y0 - y2)/2
    d/dx gammainc(a, x)  = x^(a-1) e^-x / gamma(a) = -d/dx gammaincc(a, x)
    d/dx betainc(a, b, x) = x^(a-1) (1-x)^(b-1) / B(a, b)
    erfcx' = 2x erfcx - 2/sqrt(pi)      ndtri' = sqrt(2 pi) e^(ndtri^2 / 2)
    erfcinv' = -sqrt(pi)/2 e^(erfcinv^2)  erf'(z) = 2/sqrt(pi) e^(-z^2)

NOTE: derivatives with respect to an order or a shape parameter (v of jv, a
of gammainc, a and b of betainc) have no closed form here; asking for one
raises NotImplementedError naming the argument rather than returning zero.
On a device other than the CPU these raise NotImplementedError: SciPy runs on
the host only."""
import math

import numpy as np

from . import _C
from ._special import floating
from .autograd.function import Function

Tensor = _C.Tensor
_SQRT_PI = math.sqrt(math.pi)


def _scipy():
    import scipy.special
    return scipy.special


def _inputs(args, func):
    """Tensors of one floating dtype (_special.floating); half precision computes
    in float32, as SciPy has no half loops."""
    tensors = floating(*args)
    for t in tensors:
        if t.device.type != "cpu":
            raise NotImplementedError(f"scipy.special.{func}: no kernel for device "
                                      f"{t.device}; SciPy computes it on the host only")
    if tensors[0].dtype in (_C.float16, _C.bfloat16):
        tensors = [t.to(_C.float32) for t in tensors]
    # Not broadcast here: SciPy broadcasts, and a broadcast view of a constant
    # would be tied to the history of the tensors it was broadcast with.
    return tensors


class _HostSpecial(Function):
    """value = scipy.special.<name>(*args); d value / d args[i] from DERIVATIVES."""

    @staticmethod
    def forward(ctx, name, *args):
        ctx.name = name
        result = getattr(_scipy(), name)(*[a.detach().numpy() for a in args])
        out = _C.from_numpy(np.ascontiguousarray(result, dtype=np.dtype(args[0].dtype.name)))
        ctx.save_for_backward(*args, out)
        return out

    @staticmethod
    def backward(ctx, grad):
        *args, out = ctx.saved_tensors
        rules = DERIVATIVES[ctx.name]
        grads = [None]
        for i, needed in enumerate(ctx.needs_input_grad[1:]):
            if not needed:
                grads.append(None)
                continue
            rule = rules.get(i)
            if rule is None:
                names = _PARAMS[ctx.name]
                raise NotImplementedError(
                    f"scipy.special.{ctx.name}: the derivative with respect to "
                    f"'{names[i]}' is not implemented (only with respect to "
                    f"{', '.join(repr(names[j]) for j in sorted(rules))})")
            d = rule(*args, out)
            grads.append(grad * (d.conj() if d.is_complex() else d))
        return tuple(grads)


def _call(name, *args):
    return _HostSpecial.apply(name, *_inputs(args, name))


def _ufunc(name):
    def fn(*args):
        return _call(name, *args)
    fn.__name__ = fn.__qualname__ = name
    fn.__doc__ = f"scipy.special.{name} on tensors (SciPy's value, recorded derivative)."
    return fn


jv, yv, iv, kv, ive, kve = (_ufunc(n) for n in ("jv", "yv", "iv", "kv", "ive", "kve"))
j0, j1, y0, y1 = (_ufunc(n) for n in ("j0", "j1", "y0", "y1"))
gammainc, gammaincc, betainc = (_ufunc(n) for n in ("gammainc", "gammaincc", "betainc"))
erfcx, ndtri, erfcinv = (_ufunc(n) for n in ("erfcx", "ndtri", "erfcinv"))


def yn(n, x):
    """Bessel function of the second kind of integer order n."""
    return _call("yn", n, x)


def erf(z):
    """erf; complex arguments through SciPy (the torchlike kernel is real)."""
    z = z if isinstance(z, Tensor) else _C.tensor(z)
    return _call("erf", z) if z.is_complex() else _C.erf(z)


def erfc(z):
    z = z if isinstance(z, Tensor) else _C.tensor(z)
    return _call("erfc", z) if z.is_complex() else _C.erfc(z)


def _gauss_derivative(sign):
    return lambda z, out: sign * (2 / _SQRT_PI) * _C.exp(-z * z)


DERIVATIVES = {
    "jv": {1: lambda v, x, out: (jv(v - 1, x) - jv(v + 1, x)) / 2},
    "yv": {1: lambda v, x, out: (yv(v - 1, x) - yv(v + 1, x)) / 2},
    "iv": {1: lambda v, x, out: (iv(v - 1, x) + iv(v + 1, x)) / 2},
    "kv": {1: lambda v, x, out: -(kv(v - 1, x) + kv(v + 1, x)) / 2},
    "ive": {1: lambda v, x, out: (ive(v - 1, x) + ive(v + 1, x)) / 2 - _C.sign(x) * out},
    "kve": {1: lambda v, x, out: -(kve(v - 1, x) + kve(v + 1, x)) / 2 + out},
    "yn": {1: lambda n, x, out: (yn(n - 1, x) - yn(n + 1, x)) / 2},
    "j0": {0: lambda x, out: -j1(x)},
    "j1": {0: lambda x, out: (j0(x) - jv(2, x)) / 2},
    "y0": {0: lambda x, out: -y1(x)},
    "y1": {0: lambda x, out: (y0(x) - yv(2, x)) / 2},
    "gammainc": {1: lambda a, x, out: _C.exp((a - 1) * _C.log(x) - x - _C.lgamma(a))},
    "gammaincc": {1: lambda a, x, out: -_C.exp((a - 1) * _C.log(x) - x - _C.lgamma(a))},
    "betainc": {2: lambda a, b, x, out: _C.exp((a - 1) * _C.log(x) + (b - 1) * _C.log1p(-x)
                                               - _C.lgamma(a) - _C.lgamma(b)
                                               + _C.lgamma(a + b))},
    "erfcx": {0: lambda x, out: 2 * x * out - 2 / _SQRT_PI},
    "ndtri": {0: lambda p, out: math.sqrt(2 * math.pi) * _C.exp(out * out / 2)},
    "erfcinv": {0: lambda y, out: -(_SQRT_PI / 2) * _C.exp(out * out)},
    "erf": {0: _gauss_derivative(1)},
    "erfc": {0: _gauss_derivative(-1)},
}

# parameter names, as SciPy's documentation gives them, for error messages
_PARAMS = {"jv": ("v", "z"), "yv": ("v", "z"), "iv": ("v", "z"), "kv": ("v", "z"),
           "ive": ("v", "z"), "kve": ("v", "z"), "yn": ("n", "x"), "j0": ("x",), "j1": ("x",),
           "y0": ("x",), "y1": ("x",), "gammainc": ("a", "x"), "gammaincc": ("a", "x"),
           "betainc": ("a", "b", "x"), "erfcx": ("x",), "ndtri": ("y",), "erfcinv": ("y",),
           "erf": ("z",), "erfc": ("z",)}

# scipy.special ufunc name -> implementation (jn is SciPy's name for jv's ufunc)
HOST_UFUNCS = {"jv": jv, "jn": jv, "yv": yv, "iv": iv, "kv": kv, "ive": ive, "kve": kve,
               "yn": yn, "j0": j0, "j1": j1, "y0": y0, "y1": y1, "gammainc": gammainc,
               "gammaincc": gammaincc, "betainc": betainc, "erfcx": erfcx, "ndtri": ndtri,
               "erfcinv": erfcinv, "erf": erf, "erfc": erfc}
