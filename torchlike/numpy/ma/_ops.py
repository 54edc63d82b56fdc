"""Elementwise functions and operators on masked arrays, with NumPy's mask
propagation: a result element is masked where an operand's is, and the
domained functions also mask where the input is outside the domain or the
result is not finite (``sqrt`` of a negative, ``log`` of 0, division by 0).

Under the mask the data is the first operand's, as NumPy leaves it."""
import builtins
import contextlib
import contextvars

import numpy

from ... import _C
from ..._array_function import as_tensor, np_dtype, tl_dtype
from .. import _elementwise
from ._core import (MaskedArray, Tensor, getdata, getmask, mask_or, masked, nomask,
                    _broadcast_mask)

_SCALARS = (builtins.bool, int, float, complex)
_TINY = numpy.finfo(numpy.float64).tiny


def _operand(x):
    """The data of an operand: a tensor, or a Python scalar (weak, NEP 50)."""
    if isinstance(x, MaskedArray):
        return x._data
    if isinstance(x, (Tensor,) + _SCALARS):
        return x
    return getdata(x)


_WEAK = contextvars.ContextVar("torchlike_ma_weak_scalars", default=False)


@contextlib.contextmanager
def weak_scalars():
    """Python scalars stay weak (NEP 50) in the operations run inside: what
    NumPy's ufuncs do with its masked arrays (``numpy.multiply(x, 2)``)."""
    token = _WEAK.set(True)
    try:
        yield
    finally:
        _WEAK.reset(token)


def _strong(x, other):
    """numpy.ma's rule for a Python scalar operand of its functions and
    operators: it becomes a 0-d array of NumPy's dtype for it (int64,
    float64, complex128, bool), which promotes as an array does (a float32
    masked array times 2 is float64); inside ``weak_scalars`` it stays a
    scalar."""
    if not isinstance(x, _SCALARS) or _WEAK.get():
        return x
    if isinstance(x, int) and not isinstance(x, builtins.bool) and \
            not -2 ** 63 <= x < 2 ** 63:
        return x  # NumPy makes an object array of it; a weak scalar here
    t = as_tensor(x)
    if isinstance(other, Tensor) and t.device != other.device:
        t = t.to(other.device)
    return t


def _strong_pair(da, db):
    """Both operands with numpy.ma's scalar rule (``_strong``), cast to
    NumPy's common dtype where a scalar was made an array: a 0-d tensor
    alone would promote weakly, as PyTorch's do."""
    sa, sb = _strong(da, db), _strong(db, da)
    if (sa is da and sb is db) or not (isinstance(sa, Tensor) and isinstance(sb, Tensor)) \
            or _C.bfloat16 in (sa.dtype, sb.dtype):
        return sa, sb
    common = tl_dtype(numpy.result_type(np_dtype(sa.dtype), np_dtype(sb.dtype)))
    return (sa if sa.dtype == common else sa.to(common),
            sb if sb.dtype == common else sb.to(common))


def _colocate(orig, t, other):
    """Host data met by a device operand: a list is copied there, an ndarray
    refused (the namespace's rule: no implicit host-to-device copy)."""
    if not (isinstance(t, Tensor) and isinstance(other, Tensor)) or t.device == other.device \
            or isinstance(orig, (Tensor, MaskedArray)):
        return t
    if isinstance(orig, numpy.ndarray) and orig.ndim:
        raise TypeError(f"an ndarray (host memory) cannot be mixed with {other.device} "
                        f"tensors; move it there first with torchlike.numpy.asarray"
                        f"(a, device=...)")
    return t.to(other.device)


def finish(result, m, like):
    """A masked array of ``result`` and mask ``m``; a 0-d result is the tensor
    itself, or ``masked`` where it is masked (NumPy's scalar rule)."""
    if result.ndim == 0:
        return masked if (m is not nomask and bool(m)) else result
    return MaskedArray._new(result, _broadcast_mask(m, result.shape),
                            like if isinstance(like, MaskedArray) else None)


def _put_back(result, m, d, casting):
    """``result`` with the input data ``d`` where ``m`` (NumPy's copyto)."""
    if m is nomask or result.ndim == 0:
        return result
    dt = d.dtype if isinstance(d, Tensor) else numpy.asarray(d).dtype
    src = np_dtype(dt) if isinstance(d, Tensor) else dt
    if not numpy.can_cast(src, np_dtype(result), casting):
        return result
    d = d.to(result.dtype) if isinstance(d, Tensor) else _C.full((), d, dtype=result.dtype,
                                                                 device=result.device)
    return _C.where(m, d, result)


def _float(x):
    """|x| in floating point (integers as float64, as NumPy computes them)."""
    if isinstance(x, _SCALARS):
        return builtins.abs(x)
    if not (x.is_floating_point() or x.is_complex()):
        x = x.to(_C.float64)
    return _C.abs(x)


# domains: where the inputs make the result masked
def _greater(critical):
    return lambda x: _C.le(x, critical)


def _greater_equal(critical):
    return lambda x: _C.lt(x, critical)


def _interval(lo, hi):
    return lambda x: _C.logical_or(_C.gt(x, hi), _C.lt(x, lo))


def _tan_domain(x):
    return _C.lt(_C.abs(_C.cos(x)), 1e-35)


_NARROW = (_C.float16, _C.bfloat16, _C.float32, _C.complex64)


def _safe_divide(a, b):
    """NumPy's domain of division: |a| * tiny >= |b| (tiny: float64's
    smallest normal), computed in a's float type.  None where it adds
    nothing to the non-finite results: in float32 and narrower, tiny is 0,
    so the domain is b == 0 with a finite, whose quotients are inf or NaN."""
    if isinstance(a, Tensor):
        if a.dtype in _NARROW:
            return None
        if _integral(a) and isinstance(b, Tensor) and _integral(b):
            return _C.eq(b, 0)  # |a| * tiny < 1 <= |b| unless b is 0
    return _C.ge(_C.mul(_float(a), _TINY) if isinstance(a, Tensor) else
                 _C.full((), _float(a) * _TINY, dtype=_C.float64), _float(b))


UNARY_DOMAINS = {
    "sqrt": _greater_equal(0.0), "log": _greater(0.0), "log2": _greater(0.0),
    "log10": _greater(0.0), "tan": _tan_domain, "arcsin": _interval(-1.0, 1.0),
    "arccos": _interval(-1.0, 1.0), "arccosh": _greater_equal(1.0),
    "arctanh": _interval(-1.0 + 1e-15, 1.0 - 1e-15),
}
UNARY_DOMAINS.update(asin=UNARY_DOMAINS["arcsin"], acos=UNARY_DOMAINS["arccos"],
                     acosh=UNARY_DOMAINS["arccosh"], atanh=UNARY_DOMAINS["arctanh"])
BINARY_DOMAINS = {name: _safe_divide for name in (
    "divide", "true_divide", "floor_divide", "remainder", "mod", "fmod")}


def _integral(x):
    if isinstance(x, Tensor):
        return not (x.is_floating_point() or x.is_complex())
    return isinstance(x, (builtins.bool, int))


_FLOAT_OF = {}


def _float_of(name, operands):
    """The float dtype NumPy's ufunc ``name`` gives for these integer
    operands (int8 and bool: float16, int16: float32, int32/int64: float64),
    where torchlike's op gives the default float."""
    key = (name,) + tuple(x.dtype if isinstance(x, Tensor) else type(x) for x in operands)
    dtype = _FLOAT_OF.get(key)
    if dtype is None:
        ufunc = getattr(numpy, name, None)
        if not isinstance(ufunc, numpy.ufunc):
            return None
        args = [numpy.empty(0, np_dtype(x)) if isinstance(x, Tensor) else x for x in operands]
        with numpy.errstate(all="ignore"):
            dtype = _FLOAT_OF[key] = tl_dtype(ufunc(*args).dtype)
    return dtype


def _quiet():
    """numpy.ma's rule: out-of-domain elements are masked, not warned about."""
    return numpy.errstate(divide="ignore", invalid="ignore")


def _as_numpy_float(name, f, operands, result, args, kwargs):
    """``result`` again in NumPy's float dtype when integer operands gave a
    float of another width."""
    if not (result.is_floating_point() and all(_integral(x) for x in operands)):
        return result
    dtype = _float_of(name, operands)
    if dtype is None or dtype == result.dtype:
        return result
    return f(*[x.to(dtype) if isinstance(x, Tensor) else float(x) for x in operands],
             *args, **kwargs)


def _recorded(*operands):
    return _C.is_grad_enabled() and any(isinstance(x, Tensor) and x.requires_grad
                                        for x in operands)


def _hidden(x, hide, safe):
    """``x`` with ``safe`` where ``hide``: what a recorded op computes with,
    so that masked elements (whose results are dropped) give zero gradients
    instead of 0 * inf or 0 * NaN (sqrt of a negative, division by 0)."""
    if not isinstance(x, Tensor) or hide is nomask or hide is None:
        return x
    return _C.where(hide, _C.full((), safe, dtype=x.dtype, device=x.device), x)


def _unary(name, f, domain=None):
    safe = 2.0 if name in ("arccosh", "acosh") else 0.5  # inside every domain

    def op(a, *args, **kwargs):
        d = _operand(a)
        d = d if isinstance(d, Tensor) else as_tensor(d)
        x = d
        if _recorded(d):
            x = _hidden(d, mask_or(getmask(a), domain(d) if domain else nomask,
                                   shrink=False), safe)
        with _quiet():
            result = _as_numpy_float(name, f, (x,), f(x, *args, **kwargs), args, kwargs)
        m = getmask(a)
        if domain is not None:
            bad = _C.logical_or(_C.logical_not(_C.isfinite(result)), domain(d))
            m = bad if m is nomask else _C.logical_or(m, bad)
        return finish(_put_back(result, m, d, "same_kind"), m, a)
    op.__name__ = op.__qualname__ = name
    op.__doc__ = f"Elementwise {name} of a masked array" + (
        ", masked outside its domain." if domain else ".")
    return op


def _binary(name, f, domain=None):
    def op(a, b, *args, **kwargs):
        da, db = _strong_pair(_operand(a), _operand(b))
        if isinstance(da, _SCALARS) and isinstance(db, _SCALARS):
            da = as_tensor(da)
        da, db = _colocate(a, da, db), _colocate(b, db, da)
        xa, xb = da, db
        if _recorded(da, db):
            hide = mask_or(getmask(a), getmask(b), shrink=False)
            if domain is not None:
                hide = mask_or(hide, domain(da, db), shrink=False)
            xa, xb = _hidden(da, hide, 1.0), _hidden(db, hide, 1.0)
        with _quiet():
            result = _as_numpy_float(name, f, (xa, xb), f(xa, xb, *args, **kwargs), args,
                                     kwargs)
        m = mask_or(getmask(a), getmask(b), shrink=False)
        if domain is not None:
            bad = domain(da, db)
            if result.is_floating_point() or result.is_complex():
                inf = _C.logical_not(_C.isfinite(result))
                bad = inf if bad is None else _C.logical_or(inf, bad)
            if bad is not None:
                m = bad if m is nomask else _C.logical_or(m, bad)
            if m is not nomask and result.ndim:
                # NumPy: 0 under the mask, then the dividend where it casts safely
                back = _put_back(result, m, da, "safe")
                result = _signed_zeros(back, m, da) if back is not result else _C.where(
                    m, _C.zeros((), dtype=result.dtype, device=result.device), result)
            return finish(result, m, _like(a, b))
        if m is not nomask and result.ndim:
            result = _put_back(result, m, da, "unsafe")
        return finish(result, m, _like(a, b))
    op.__name__ = op.__qualname__ = name
    op.__doc__ = f"Elementwise {name} of masked arrays" + (
        ", masked where the divisor is 0." if domain else ".")
    return op


def _signed_zeros(result, m, da):
    """NumPy adds ``m * da`` to every quotient (``result += masked_da``), so
    an unmasked quotient gains the dividend's signed zero: 0.0 / -7.0 is
    0.0 there, -0.0 in the plain ufunc.  An unmasked dividend is finite (an
    infinite one gives an infinite or NaN quotient, which is masked)."""
    if not (result.is_floating_point() or result.is_complex()):
        return result
    d = da.to(result.dtype) if isinstance(da, Tensor) else \
        _C.full((), da, dtype=result.dtype, device=result.device)
    return _C.where(m, result, _C.add(result, _C.mul(d, 0)))


def _like(a, b):
    return a if isinstance(a, MaskedArray) else b


def power(a, b, third=None):
    """``a ** b``, masked where an operand is or the result is not finite."""
    if third is not None:
        raise numpy.ma.MaskError("3-argument power not supported.")
    da, db = _strong_pair(_operand(a), _operand(b))
    if isinstance(da, _SCALARS) and isinstance(db, _SCALARS):
        da = as_tensor(da)
    m = mask_or(getmask(a), getmask(b), shrink=False)
    result = _elementwise.power(da, db)
    if m is not nomask:
        result = _put_back(result, m, da, "unsafe")
    invalid = _C.logical_not(_C.isfinite(result))
    if result.ndim == 0:
        return masked if (m is not nomask or bool(invalid)) else result
    if bool(invalid.any()):
        out = finish(result, invalid if m is nomask else _C.logical_or(m, invalid), _like(a, b))
        out._data = _C.where(invalid, _fill_of(out), out._data)  # NumPy writes fill_value
        return out
    return finish(result, m, _like(a, b))


def _fill_of(a):
    from ._core import _fill_tensor
    return _fill_tensor(a.fill_value, a._data)


def _table():
    """Every elementwise function of the namespace, masked: NumPy ma's
    domains where it has them, the union of the masks for the rest."""
    ops = {}
    for name in _elementwise.UNARY:
        ops[name] = _unary(name, getattr(_elementwise, name), UNARY_DOMAINS.get(name))
    for name in _elementwise.BINARY:
        ops[name] = _binary(name, getattr(_elementwise, name), BINARY_DOMAINS.get(name))
    for name in ("sign", "conj", "conjugate", "real", "imag", "deg2rad", "rad2deg",
                 "radians", "degrees", "angle", "sinc", "cbrt", "spacing", "isreal",
                 "iscomplex", "fabs"):
        ops[name] = _unary(name, getattr(_elementwise, name))
    for name in ("heaviside", "gcd", "lcm", "ldexp"):
        ops[name] = _binary(name, getattr(_elementwise, name))
    ops["round"] = ops["around"] = ops["round_"] = _unary("round", _elementwise.round)
    ops["power"] = ops["pow"] = power
    return ops


OPS = _table()


def clip(a, a_min=None, a_max=None, out=None, **kwargs):
    """``a`` limited to [a_min, a_max]; the mask is ``a``'s."""
    return finish(_elementwise.clip(_operand(a), getdata(a_min) if isinstance(
        a_min, MaskedArray) else a_min, getdata(a_max) if isinstance(a_max, MaskedArray)
        else a_max), getmask(a), a)


# ---------------------------------------------------------------------------
# operators

# the operators numpy.ma's class does not define: ndarray's run NumPy's ufunc,
# which keeps a Python scalar weak (an int8 masked array & 1 is int8)
_UFUNC_OPERATORS = ("remainder", "bitwise_and", "bitwise_or", "bitwise_xor", "left_shift",
                    "right_shift")


def _weak_if_ufunc(name):
    op = OPS[name]
    if name not in _UFUNC_OPERATORS:
        return op

    def weak(a, b):
        with weak_scalars():
            return op(a, b)
    return weak


def _binop(name, reflected=False):
    op = _weak_if_ufunc(name)
    if reflected:
        return lambda self, other: op(other, self)
    return lambda self, other: op(self, other)


def _inplace(name):
    op = _weak_if_ufunc(name)

    def iop(self, other):
        r = op(self, other)
        rd = getdata(r)
        self._data[...] = rd.to(self.dtype) if rd.dtype != self.dtype else rd
        rm = getmask(r)
        if self._m is not nomask and rm is not nomask:
            self._m[...] = rm  # in place: views of this array see it, as NumPy's
        else:
            self._m = rm if rm is nomask or tuple(rm.shape) == self.shape else \
                rm.expand(self.shape).clone()
        return self
    return iop


def _mask_of(x, like):
    """``x``'s mask as a bool tensor of ``like``'s device (all False when
    ``x`` has none)."""
    m = getmask(x)
    if m is nomask:
        return _C.zeros((), dtype=_C.bool, device=like.device)
    return m if m.device == like.device else m.to(like.device)


def _compare(name):
    op = OPS[name]
    equality = name in ("equal", "not_equal")

    def cmp(self, other):
        if other is None:
            return name == "not_equal"
        if isinstance(other, MaskedArray) or isinstance(other, (Tensor,) + _SCALARS) or \
                isinstance(other, (list, tuple, numpy.ndarray, numpy.generic)):
            r = op(self, other)
            # (a masked 0-d result is the ``masked`` singleton: never written)
            if isinstance(r, MaskedArray) and r is not masked:
                r._fill_value = None
                if equality and r._m is not nomask:
                    # NumPy's == and != under the mask: two masked elements
                    # are equal, a masked and an unmasked one are not (what
                    # unique and the set operations count on)
                    mo = _mask_of(other, r._m)
                    cmp = _C.eq if name == "equal" else _C.ne
                    r._data = _C.where(r._m, cmp(_mask_of(self, r._m), mo), r._data)
                elif r._m is not nomask:
                    # NumPy's <, <=, >, >= under the mask: the comparison of
                    # the data (op put the first operand's data there, as the
                    # ufunc does), so x[x > t] leaves masked elements out
                    plain = getdata(op(self._data, getdata(other) if isinstance(
                        other, (MaskedArray, numpy.ma.MaskedArray)) else other))
                    r._data = _C.where(r._m, plain, r._data)
            return r
        return NotImplemented
    return cmp


for _name, _op in [("add", "add"), ("sub", "subtract"), ("mul", "multiply"),
                   ("truediv", "divide"), ("floordiv", "floor_divide"),
                   ("mod", "remainder"), ("pow", "power"), ("and", "bitwise_and"),
                   ("or", "bitwise_or"), ("xor", "bitwise_xor"),
                   ("lshift", "left_shift"), ("rshift", "right_shift")]:
    setattr(MaskedArray, f"__{_name}__", _binop(_op))
    setattr(MaskedArray, f"__r{_name}__", _binop(_op, reflected=True))
    setattr(MaskedArray, f"__i{_name}__", _inplace(_op))
for _name, _op in [("eq", "equal"), ("ne", "not_equal"), ("lt", "less"),
                   ("le", "less_equal"), ("gt", "greater"), ("ge", "greater_equal")]:
    setattr(MaskedArray, f"__{_name}__", _compare(_op))
# torch-style names of a tensor's operators, as NumPy's
_TORCH_NAMES = {"add": "add", "sub": "subtract", "mul": "multiply", "truediv": "divide",
                "div": "divide", "floordiv": "floor_divide", "mod": "remainder",
                "pow": "power", "and": "bitwise_and", "or": "bitwise_or",
                "xor": "bitwise_xor", "lshift": "left_shift", "rshift": "right_shift",
                "eq": "equal", "ne": "not_equal", "lt": "less", "le": "less_equal",
                "gt": "greater", "ge": "greater_equal"}


def _torch_function(cls, func, types, args=(), kwargs=None):
    """A tensor's operator with a masked array (``t + x``) runs the masked
    operation; other torchlike functions do not take masked arrays."""
    name = getattr(func, "__name__", "").strip("_")
    reflected = name.startswith("r") and name[1:] in _TORCH_NAMES
    op = OPS.get(_TORCH_NAMES.get(name[1:] if reflected else name, ""))
    if op is None or kwargs or len(args) != 2:
        return NotImplemented
    return op(args[1], args[0]) if reflected else op(args[0], args[1])


MaskedArray.__torch_function__ = classmethod(_torch_function)
MaskedArray.__neg__ = lambda self: OPS["negative"](self)
MaskedArray.__pos__ = lambda self: self.copy()
MaskedArray.__abs__ = lambda self: OPS["absolute"](self)
MaskedArray.__invert__ = lambda self: OPS["invert"](self)
MaskedArray.__matmul__ = lambda self, other: _dot(self, other)
MaskedArray.__rmatmul__ = lambda self, other: _dot(other, self)
MaskedArray.__hash__ = None
MaskedArray.clip = clip
MaskedArray.round = lambda self, decimals=0: OPS["round"](self, decimals=decimals) \
    if decimals else OPS["round"](self)
MaskedArray.conj = MaskedArray.conjugate = lambda self: OPS["conj"](self)


def _dot(a, b):
    from ._functions import dot
    return dot(a, b)
