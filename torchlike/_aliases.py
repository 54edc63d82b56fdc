"""PyTorch's alternative names for elementwise ops (NumPy-style spellings and
others), as module functions and Tensor methods, in-place twins included.

Each alias is the very op object of its target, so ``torchlike.multiply``,
``torchlike.mul`` and ``Tensor.multiply`` run the same code with the same
arguments (out=, alpha=, rounding_mode= ...)."""
import numbers

from . import _C
from ._dtype_names import cpp_name as _cpp_name  # frexp's out= errors name C++ types
from ._return_types import return_type

Tensor = _C.Tensor

# alias -> op it names
ALIASES = {
    "absolute": "abs",
    "negative": "neg",
    "multiply": "mul",
    "divide": "div",
    "true_divide": "div",
    "subtract": "sub",
    "arcsin": "asin",
    "arccos": "acos",
    "arctan": "atan",
    "arcsinh": "asinh",
    "arccosh": "acosh",
    "arctanh": "atanh",
    "arctan2": "atan2",
    "clip": "clamp",
    "greater": "gt",
    "less": "lt",
    "greater_equal": "ge",
    "less_equal": "le",
    "not_equal": "ne",
    "fix": "trunc",
}


def _install(namespace):
    for alias, target in ALIASES.items():
        op = getattr(_C, target)
        namespace[alias] = op
        setattr(Tensor, alias, op)
        inplace = getattr(Tensor, target + "_", None)
        if inplace is not None:
            setattr(Tensor, alias + "_", inplace)


# torch.spmm: mm under its sparse-era name (mm takes sparse and dense operands
# alike); a namespace function only, as in PyTorch (Tensor has no spmm)
spmm = _C.mm


def rsub(input, other, *, alpha=1):
    """``other - alpha * input``: sub with its operands swapped."""
    return _C.sub(other, input, alpha=alpha)


def _polygamma_order(n):
    if isinstance(n, bool) or not isinstance(n, int):
        raise TypeError(f"polygamma(): argument 'n' must be int, not {type(n).__name__}")
    if n < 0:
        raise RuntimeError("polygamma(n, x) does not support negative n.")
    return n


def polygamma(n, input, *, out=None):
    """The n-th derivative of digamma at ``input`` (n >= 0): the op
    ``_polygamma(input, n)`` with PyTorch's argument order."""
    n = _polygamma_order(n)
    return _C._polygamma(input, n) if out is None else _C._polygamma(input, n, out=out)


def _polygamma_method(self, n):
    return _C._polygamma(self, _polygamma_order(n))


def _polygamma_inplace(self, n):
    return self._polygamma_(_polygamma_order(n))


Tensor.polygamma = _polygamma_method
Tensor.polygamma_ = _polygamma_inplace


def _angle_conversion(name, factor):
    def convert(input, *, out=None):
        if not isinstance(input, Tensor):
            raise TypeError(f"{name}(): argument 'input' (position 1) must be Tensor, not "
                            f"{type(input).__name__}")
        if input.is_complex():
            raise RuntimeError(f"{name} is not supported for complex tensors.")
        return _C.mul(input, factor) if out is None else _C.mul(input, factor, out=out)
    convert.__name__ = convert.__qualname__ = name
    convert.__doc__ = f"``input * {factor!r}`` (integers give the default float dtype)."
    return convert


rad2deg = _angle_conversion("rad2deg", 180.0 / 3.141592653589793)
deg2rad = _angle_conversion("deg2rad", 3.141592653589793 / 180.0)
Tensor.rad2deg = rad2deg
Tensor.deg2rad = deg2rad
Tensor.rad2deg_ = lambda self: self.mul_(180.0 / 3.141592653589793)
Tensor.deg2rad_ = lambda self: self.mul_(3.141592653589793 / 180.0)


_FrexpResult = return_type("frexp", ["mantissa", "exponent"])


def frexp(input, *, out=None):
    """``(mantissa, exponent)`` with ``input = mantissa * 2**exponent``,
    ``0.5 <= |mantissa| < 1``, the exponent int32; zeros, infinities and NaN
    give themselves and exponent 0.  Floating-point inputs only, as PyTorch."""
    if not isinstance(input, Tensor):
        raise TypeError(f"frexp(): argument 'input' (position 1) must be Tensor, not "
                        f"{type(input).__name__}")
    if not input.is_floating_point():
        raise RuntimeError("torch.frexp() only supports floating-point dtypes")
    if out is None:
        return _FrexpResult(_C._frexp_mantissa(input), _C._frexp_exponent(input))
    mantissa, exponent = out
    if mantissa.dtype != input.dtype:
        raise RuntimeError(f"torch.frexp() expects mantissa to have dtype "
                           f"{_cpp_name(input.dtype)} but got {_cpp_name(mantissa.dtype)}")
    if exponent.dtype != _C.int32:
        raise RuntimeError(f"torch.frexp() expects exponent to have int dtype but got "
                           f"{_cpp_name(exponent.dtype)}")
    _C._frexp_mantissa(input, out=mantissa)
    _C._frexp_exponent(input, out=exponent)
    return _FrexpResult(mantissa, exponent)


Tensor.frexp = frexp


def _one_sided_clamp(name, side):
    """clamp_min / clamp_max: clamp with only its `side` bound, which must be
    a number or a tensor (None is refused, as PyTorch's signature does)."""
    def check(input, bound):
        if not isinstance(bound, (Tensor, numbers.Number)):
            got = ", ".join(type(a).__name__ if not isinstance(a, Tensor) else "Tensor"
                            for a in (input, bound) if a is not _MISSING)
            raise TypeError(f"{name}() received an invalid combination of arguments - got "
                            f"({got}), but expected one of:\n"
                            f" * (Tensor input, Tensor {side}, *, Tensor out = None)\n"
                            f" * (Tensor input, Number {side}, *, Tensor out = None)\n")

    def function(input, *args, out=None, **kwargs):
        bound = _the_bound(name, side, args, kwargs)
        check(input, bound)
        extra = {} if out is None else {"out": out}
        return _C.clamp(input, **{side: bound}, **extra)

    # x.clamp_min(eps) is a common call: a plain number or tensor goes
    # straight to clamp (the checks' generality cost twice the op), with
    # the bound where clamp's binding reads it fastest
    def method(self, *args, **kwargs):
        if len(args) == 1 and not kwargs and type(args[0]) in _PLAIN_BOUNDS:
            return _C.clamp(self, args[0]) if side == "min" else _C.clamp(self, max=args[0])
        bound = _the_bound(name, side, args, kwargs)
        check(self, bound)
        return _C.clamp(self, **{side: bound})

    def inplace(self, *args, **kwargs):
        bound = _the_bound(name + "_", side, args, kwargs)
        check(self, bound)
        return self.clamp_(**{side: bound})

    function.__name__ = method.__name__ = name
    inplace.__name__ = name + "_"
    return function, method, inplace


_MISSING = object()
_PLAIN_BOUNDS = (float, int, Tensor)


def _the_bound(name, side, args, kwargs):
    """The one bound of clamp_min/clamp_max, positional or by keyword
    (_MISSING when absent: check() then names the call's types)."""
    unexpected = [k for k in kwargs if k != side]
    if unexpected:
        raise TypeError(f"{name}() got an unexpected keyword argument '{unexpected[0]}'")
    if len(args) + len(kwargs) > 1:
        raise TypeError(f"{name}() takes 2 positional arguments but {len(args) + 1} were given")
    return args[0] if args else kwargs.get(side, _MISSING)


clamp_min, Tensor.clamp_min, Tensor.clamp_min_ = _one_sided_clamp("clamp_min", "min")
clamp_max, Tensor.clamp_max, Tensor.clamp_max_ = _one_sided_clamp("clamp_max", "max")

__all__ = list(ALIASES) + ["spmm", "rsub", "polygamma", "rad2deg", "deg2rad", "frexp", "clamp_min",
                           "clamp_max"]
_install(globals())
