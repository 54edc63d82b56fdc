"""Elementwise functions of the namespace: the Array API names (acos, pow,
bitwise_invert ...) and NumPy's (arccos, power, invert ...), each the
torchlike op of that meaning.

Operands may be tensors, Python scalars (weak, NEP 50) or anything NumPy
turns into an array (lists, ndarrays), which becomes a tensor with NumPy's
default dtypes.  Keyword arguments (``out=``) go to the op unchanged."""
import builtins
import warnings

import numpy as np

from .. import _C, _ufunc
from .._array_function import (
    MaskedOperand, as_tensor, can_cast_dtypes, check_out_cast, integer_clip_bounds,
    masked_call, np_dtype, numbers_device, open_clip_bounds, out_cast_words, tl_dtype)

Tensor = _C.Tensor
_SCALARS = (builtins.bool, int, float, complex)


def _weak(x):
    """A Python number, which NumPy's promotion takes as weak (NEP 50); not a
    NumPy scalar (np.float64 subclasses float), which NumPy promotes as an
    array while core ops take it as a Python number (PyTorch's rule)."""
    return isinstance(x, _SCALARS) and not isinstance(x, np.generic)


def _arg(x):
    return x if isinstance(x, Tensor) else _new_array(x)


def _masked(name, args, kwargs):
    """A call with a masked array: NumPy's function of that name, which
    dispatches to the masked array (so the mask is kept)."""
    return masked_call(getattr(np, name), args, kwargs)


def _out_given(name, nin, rest, kwargs):
    """NumPy's functions take ``out`` after their inputs, by position too
    (``np.sin(x, y)``, ``np.fix(x, y)``): kwargs with it moved there."""
    if not rest or len(rest) == 1 and rest[0] is None:  # out=None given by position
        return kwargs
    if len(rest) > 1:
        raise TypeError(f"{name}() takes from {nin} to {nin + 1} positional arguments but "
                        f"{nin + len(rest)} were given")
    if "out" in kwargs:
        raise TypeError("cannot specify 'out' as both a positional and keyword argument")
    return {**kwargs, "out": rest[0]}


# name -> (op, arity) of the functions above: the namespace's function is a
# _C._DirectCall, which calls op straight from C when the call has only
# tensors and Python numbers (the common call; a Python frame had doubled its
# cost), and the Python function otherwise.
_DIRECT = {}


def _unary(op, name):
    """The namespace function ``name``: ``op`` of a tensor, or of what NumPy
    makes an array of.  Called with one tensor and nothing else, the C object
    around it calls ``op`` directly (``_DIRECT``)."""
    def fn(x, /, *rest, **kwargs):
        if rest:
            kwargs = _out_given(name, 1, rest, kwargs)
        try:
            if "out" in kwargs and _host_out(name, kwargs["out"]):
                return getattr(np, name)(x, **kwargs)
            x = x if isinstance(x, Tensor) else _new_array(x)
            if "out" in kwargs:
                (x,) = _ufunc.out_shape_operands((x,), kwargs["out"], kwargs.get("where"))
            return op(x, **kwargs)
        except MaskedOperand:
            return _masked(name, (x,), kwargs)
    fn.__name__ = fn.__qualname__ = name
    fn.__doc__ = f"Elementwise {name} (the torchlike op ``{op.__name__}``)."
    fn._writes_out = True  # broadcasts to a larger out=, hands an ndarray one to NumPy
    _DIRECT[name] = op, 1
    return fn


def _host_out(name, out):
    """Whether ``out`` is an ndarray (alone or in a tuple) and ``name`` is
    NumPy's ufunc: the call is then NumPy's, whose __array_ufunc__ writes a
    CPU tensor's result into it (the op takes tensors only, and refused it
    where numpy.exp(t, out=buf) and np.sum(t, out=buf) write it)."""
    for o in out if isinstance(out, tuple) else (out,):
        if isinstance(o, np.ndarray):
            return isinstance(getattr(np, name, None), np.ufunc)
    return False


def _new_array(x, operands=None):
    """An operand that is not a tensor.  Numbers given alone (np.deg2rad(30.0),
    np.add(2, 3.5), np.exp([0.5, 1.0])) make an array on the default device,
    as np.asarray of them does, so that later arrays built from them join the
    program's device arrays; an ndarray is host memory and stays there
    (docs/numpy.md, unless a call on device tensors places it)."""
    t = as_tensor(x)
    device = numbers_device((x,) if operands is None else operands, None)
    return t if device is None or t.device == device else t.to(device)


def _binary(op, name):
    """The namespace function ``name``: ``op`` of two operands, tensors or
    Python numbers (weak) or what NumPy makes an array of; tensors and numbers
    alone go to ``op`` from C (``_DIRECT``)."""
    def fn(x1, x2, /, *rest, **kwargs):
        if rest:
            kwargs = _out_given(name, 2, rest, kwargs)
        if "out" in kwargs and _host_out(name, kwargs["out"]):
            return getattr(np, name)(x1, x2, **kwargs)
        try:
            # two Python numbers are both arrays of NumPy's dtypes (np.add(2,
            # 3.5) is float64, as in NumPy, not int64 with a weak float)
            numbers = _weak(x1) and _weak(x2)
            alone = not (isinstance(x1, Tensor) or isinstance(x2, Tensor))
            operands = (x1, x2)
            convert = (lambda v: _new_array(v, operands)) if alone else as_tensor
            if not isinstance(x1, Tensor) and not (_weak(x1) and isinstance(x2, Tensor)):
                x1 = convert(x1)
            if not isinstance(x2, Tensor) and (numbers or not _weak(x2)):
                x2 = convert(x2)
        except MaskedOperand:
            return _masked(name, (x1, x2), kwargs)
        if (type(x1) is int and not -2 ** 63 <= x1 < 2 ** 63 or
                type(x2) is int and not -2 ** 63 <= x2 < 2 ** 63) and \
                "signature" not in kwargs:  # NEP 50's rules for them (a signature's: NumPy's)
            x1, x2 = _ufunc.numpy_python_ints(getattr(np, name), (x1, x2), kwargs.get("dtype"),
                                              kwargs.get("casting"))
        if "out" in kwargs:
            x1, x2 = _ufunc.out_shape_operands((x1, x2), kwargs["out"], kwargs.get("where"))
        return op(x1, x2, **kwargs)
    fn.__name__ = fn.__qualname__ = name
    fn.__doc__ = f"Elementwise {name} (the torchlike op ``{op.__name__}``)."
    fn._writes_out = True
    _DIRECT[name] = op, 2
    return fn


# namespace name -> torchlike op
UNARY = {
    "abs": "abs", "absolute": "abs", "acos": "acos", "arccos": "acos",
    "acosh": "acosh", "arccosh": "acosh", "asin": "asin", "arcsin": "asin",
    "asinh": "asinh", "arcsinh": "asinh", "atan": "atan", "arctan": "atan",
    "atanh": "atanh", "arctanh": "atanh", "bitwise_invert": "bitwise_not",
    "invert": "bitwise_not", "bitwise_not": "bitwise_not", "ceil": "ceil", "cos": "cos",
    "cosh": "cosh", "exp": "exp", "exp2": "exp2", "expm1": "expm1", "floor": "floor",
    "isfinite": "isfinite", "isinf": "isinf", "isnan": "isnan", "log": "log",
    "log1p": "log1p", "log2": "log2", "log10": "log10", "logical_not": "logical_not",
    "negative": "neg", "positive": "positive", "sin": "sin",
    "sinh": "sinh", "square": "square", "sqrt": "sqrt", "tan": "tan", "tanh": "tanh",
    "trunc": "trunc", "fix": "trunc", "signbit": "signbit",
    "isposinf": "isposinf", "isneginf": "isneginf",
}
BINARY = {
    "add": "add", "atan2": "atan2", "arctan2": "atan2", "bitwise_and": "bitwise_and",
    "bitwise_left_shift": "bitwise_left_shift", "left_shift": "bitwise_left_shift",
    "bitwise_or": "bitwise_or", "bitwise_right_shift": "bitwise_right_shift",
    "right_shift": "bitwise_right_shift", "bitwise_xor": "bitwise_xor",
    "copysign": "copysign", "divide": "div", "true_divide": "div",
    "equal": "eq", "floor_divide": "floor_divide", "greater": "gt", "greater_equal": "ge",
    "hypot": "hypot", "less": "lt", "less_equal": "le", "logaddexp": "logaddexp",
    "logaddexp2": "logaddexp2", "logical_and": "logical_and", "logical_or": "logical_or",
    "logical_xor": "logical_xor", "maximum": "maximum", "minimum": "minimum",
    "multiply": "mul", "not_equal": "ne", "pow": "pow",
    "power": "pow", "remainder": "remainder", "mod": "remainder", "subtract": "sub",
    "fmod": "fmod", "fmax": "fmax", "fmin": "fmin", "float_power": "float_power",
}

__all__ = list(UNARY) + list(BINARY) + [
    "fabs", "rint", "nextafter", "reciprocal", "sign", "round", "around", "conj", "conjugate", "real", "imag",
    "clip", "deg2rad", "rad2deg", "radians", "degrees", "isreal", "iscomplex", "angle",
    "heaviside", "divmod",
    "sinc", "cbrt", "gcd", "lcm", "ldexp", "frexp", "modf", "spacing", "i0"]

# ---- NumPy's order of complex numbers in comparisons and extrema -----------------
# NumPy orders complex numbers lexicographically, by the real part and then the
# imaginary part (np.sort does, and so do <, maximum, clip ...); the ops take
# real operands only.  A NaN in either part compares False, as a real NaN does;
# maximum/minimum propagate a NaN operand, fmax/fmin take the other one.

def _complex_pair(x1, x2):
    # a Python number goes through complex128, so one past complex64's range
    # becomes inf there (NumPy's cast) instead of raising
    dtype = _C.result_type(x1, x2)
    devices = [x.device for x in (x1, x2) if isinstance(x, Tensor)]
    device = next((d for d in devices if d.type != "cpu"), devices[0])
    # (a 0-d host tensor, a NumPy scalar made one, is a scalar beside device
    # tensors, as in PyTorch's ops)
    a, b = ((x.to(dtype) if x.device == device or x.ndim else x.to(dtype).to(device))
            if isinstance(x, Tensor) else
            _C.full((), x, dtype=_C.complex128, device=device).to(dtype) for x in (x1, x2))
    return _C.broadcast_tensors(a, b)


def _lex(kind, a, b):
    """a < b, a <= b ... in NumPy's complex order (kind: lt le gt ge)."""
    if kind in ("gt", "ge"):
        a, b = b, a
    ar, ai, br, bi = _C.real(a), _C.imag(a), _C.real(b), _C.imag(b)
    numbers = ~(_C.isnan(ai) | _C.isnan(bi))
    tie = (ai < bi) if kind in ("lt", "gt") else (ai <= bi)
    return ((ar < br) & numbers) | ((ar == br) & tie)


def _is_nan(z):
    return _C.isnan(_C.real(z)) | _C.isnan(_C.imag(z))


def _is_complex(x):
    return x.is_complex() if isinstance(x, Tensor) else isinstance(x, complex)


def _complex_ordered(op, kind):
    """op, or NumPy's complex order when an operand is complex."""
    def run(x1, x2, **kwargs):
        if not kwargs and type(x1) is Tensor and not x1.is_complex() and (
                type(x2) is float or type(x2) is int or
                type(x2) is Tensor and not x2.is_complex()):
            return op(x1, x2)  # the common call, short: real operands, no keywords
        dtype = kwargs.get("dtype")
        # the loop's dtype decides: dtype= (a real one compares real values), else the operands
        complex_loop = tl_dtype(dtype).is_complex if dtype is not None else \
            _is_complex(x1) or _is_complex(x2)
        if not complex_loop or kwargs and set(kwargs) - {"out", "where", "dtype", "casting"}:
            return op(x1, x2, **kwargs)
        if dtype is not None:  # the loop dtype= selects: both operands in it
            dtype = tl_dtype(dtype)
            x1, x2 = (x.to(dtype) if isinstance(x, Tensor) else x for x in (x1, x2))
        a, b = _complex_pair(x1, x2)
        if kind in ("lt", "le", "gt", "ge"):
            result = _lex(kind, a, b)
        else:
            first = _lex("ge" if kind in ("maximum", "fmax") else "le", a, b)
            first = first | (_is_nan(a) if kind in ("maximum", "minimum") else _is_nan(b))
            result = _C.where(first, a, b)
        return _into_out(result, kwargs.get("out"), kwargs.get("where", True))
    run.__name__ = op.__name__
    return run


_COMPLEX_ORDERED = {"lt": "lt", "le": "le", "gt": "gt", "ge": "ge", "maximum": "maximum",
                    "minimum": "minimum", "fmax": "fmax", "fmin": "fmin"}

for _name, _op in UNARY.items():
    # (square: bools square as int8, NumPy's loop for them; PyTorch keeps bool)
    globals()[_name] = _unary(_ufunc.numpy_square if _op == "square" else getattr(_C, _op),
                              _name)
reciprocal = _unary(_ufunc.numpy_reciprocal, "reciprocal")  # integers stay integers
_TIE_SECOND = (_C.float32, _C.float64)


_PLAIN = {"maximum": _C._maximum_plain, "minimum": _C._minimum_plain}


def _taped(*operands):
    """Whether an op on these operands is recorded on the tape."""
    return _C.is_grad_enabled() and any(getattr(x, "requires_grad", False) for x in operands)


def _swapped(op, plain, x1, x2, kwargs):
    """plain(x2, x1): off the tape as it is, on it through op's record."""
    if not _taped(x1, x2):
        return plain(x2, x1, **kwargs)
    result = op(x2, x1, **kwargs)
    _C._set_grad_enabled(False)
    try:
        result.copy_(plain(x2, x1))
    finally:
        _C._set_grad_enabled(True)
    return result


def numpy_tie(op):
    """maximum/minimum (``op``) as NumPy's float32 and float64 loops answer a
    tie of 0.0 and -0.0: with the second operand, in every layout (its
    float16 loop gives the first; so do its integer loops, where a tie is
    one value).  The op answers as PyTorch's, whose choice follows an
    element's place in its vector blocks; its plain form
    (_C._maximum_plain) gives the first at every place and an input's own
    NaN, so the operands go to that swapped (the gradient splits a tie
    evenly either way); a call the swap cannot take runs as given, so an
    error names the operands in order.  The plain form is not recorded: on
    the tape the public op runs swapped, and its values are then overwritten
    by the plain form's (maximum's backward reads its inputs, not its
    result)."""
    plain = _PLAIN[op.__name__]

    def run(x1, x2, **kwargs):
        if not kwargs or len(kwargs) == 1 and "out" in kwargs:
            try:
                if _C.result_type(x1, x2) in _TIE_SECOND:
                    return _swapped(op, plain, x1, x2, kwargs)
            except Exception:  # noqa: BLE001 - the call as given says what is wrong
                pass
        return op(x1, x2, **kwargs)
    run.__name__ = run.__qualname__ = op.__name__
    return run


for _name, _op in BINARY.items():
    _fn = getattr(_C, _op)
    if _op in ("maximum", "minimum"):
        _fn = numpy_tie(_fn)
    if _op in ("floor_divide", "remainder", "fmod"):  # an integer zero divisor gives 0
        _fn = _ufunc.numpy_division(_fn)
    if _op in ("floor_divide", "remainder", "fmod", "pow", "bitwise_left_shift",
               "bitwise_right_shift"):  # two bools compute as int8
        _fn = _ufunc.numpy_bool_arithmetic(_fn)
    if _op in _COMPLEX_ORDERED:
        _fn = _complex_ordered(_fn, _COMPLEX_ORDERED[_op])
    globals()[_name] = _binary(_fn, _name)
del _name, _op, _fn


def fabs(x, /, *rest, **kwargs):
    """|x| as floats (NumPy's fabs has float loops only: integers become
    float16/32/64 by their size; complex numbers are refused)."""
    x = _arg(x)
    if x.is_complex():
        loop = tl_dtype(kwargs.get("dtype"))
        if loop is None or loop.is_complex or kwargs.get("casting") != "unsafe":
            raise TypeError("ufunc 'fabs' not supported for complex input (np.abs takes it)")
        x = x.to(loop)  # NumPy casts into dtype='s float loop first (its ComplexWarning)
    return _C.abs(_float(x), **_out_given("fabs", 1, rest, kwargs))


def _in_loop_dtype(x, kwargs):
    """x in the loop a ufunc's dtype= selects (taken out of kwargs), else x."""
    dtype = kwargs.pop("dtype", None)
    return x if dtype is None else x.to(tl_dtype(dtype))


def rint(x, /, *rest, **kwargs):
    """Round half to even, as floats (NumPy's rint has float and complex
    loops: integers become floats, complex numbers round each part)."""
    x = _float(x)
    kwargs = _out_given("rint", 1, rest, kwargs)
    if set(kwargs) - {"out", "where", "dtype"}:  # signature=, casting=: NumPy's ufunc's
        raise TypeError(f"rint() got an unexpected keyword argument "
                        f"{sorted(set(kwargs) - {'out', 'where', 'dtype'})[0]!r}")
    x = _in_loop_dtype(x, kwargs)
    if x.is_complex():
        result = _C.round(_C.real(x)) + _C.round(_C.imag(x)) * 1j
        return _into_out(result, kwargs.get("out"), kwargs.get("where", True))
    return _C.round(x, **kwargs)


def sign(x, /, **kwargs):
    """-1, 0 or 1 (NaN stays NaN); for complex numbers ``x / |x|``.  NumPy's
    sign has no loop for bools: a TypeError, as its."""
    x = _arg(x)
    if "signature" in kwargs:  # the loop it names: NumPy's ufunc's keyword
        raise TypeError("sign() got an unexpected keyword argument 'signature'")
    x = _in_loop_dtype(x, kwargs)
    if x.dtype is _C.bool:
        raise TypeError("ufunc 'sign' did not contain a loop with signature matching types "
                        "<class 'numpy.dtypes.BoolDType'> -> None")
    if x.is_complex():
        return _into_out(_complex_sign(x), kwargs.get("out"), kwargs.get("where", True))
    return _C.sign(x, **kwargs)


def _complex_sign(z):
    """NumPy's complex sign: z / |z| (sgn), where one infinite part gives
    its direction alone, whatever the other holds (inf - 2j and inf + nanj
    -> 1 + 0j; sgn gives nan there, as PyTorch's)."""
    re, im = _C.real(z), _C.imag(z)
    inf_re, inf_im = _C.isinf(re), _C.isinf(im)
    axis = inf_re ^ inf_im  # (no any() test first: it would wait on a device)
    zero = _C.zeros((), dtype=re.dtype, device=re.device)
    direction = _C.where(inf_re, _C.sign(re), zero) + _C.where(inf_im, _C.sign(im), zero) * 1j
    return _C.where(axis, direction, _C.sgn(z))


def round(a, decimals=0, out=None):
    """Round half to even, to ``decimals`` places (negative: tens,
    hundreds ..., integers too); bools round as float16, NumPy's loop for them."""
    x = _arg(a)
    if x.dtype is _C.bool:
        x = _float(x)
    if not (x.is_floating_point() or x.is_complex()):
        # integers are whole already, unless rounded to tens (decimals < 0)
        result = _C.round(x, decimals=decimals) if decimals < 0 and x.dtype is not _C.bool \
            else x.clone()
    elif x.is_complex():
        result = _round_complex(x, decimals)
    else:
        result = _C.round(x, decimals=decimals) if decimals else _C.round(x)
    if out is not None:
        out.copy_(result)
        return out
    return result


def _round_complex(x, decimals):
    re, im = real(x), imag(x)
    re = _C.round(re, decimals=decimals) if decimals else _C.round(re)
    im = _C.round(im, decimals=decimals) if decimals else _C.round(im)
    return re.to(x.dtype) + im.to(x.dtype) * 1j


around = round


def conj(x, /):
    """The complex conjugate, a new array as NumPy's ufunc gives (of real data
    too: the input itself would let a write through the result change it);
    bools conjugate as int8, NumPy's loop for them."""
    x = _arg(x)
    if x.is_complex():
        return _C.conj_physical(x)
    return x.to(_C.int8) if x.dtype is _C.bool else x.clone()


conjugate = conj


def real(val):
    """The real part: a view, recorded with its own derivative."""
    x = _arg(val)
    return _C.real(x) if x.is_complex() else x


def imag(val):
    x = _arg(val)
    if x.is_complex():
        return _C.imag(x)
    return _C.zeros(tuple(x.shape), dtype=x.dtype, device=x.device)


def angle(z, deg=False):
    z = _arg(z)
    # NumPy's arctan2(0, z): bool z is float64, small integers stay small
    result = _C.angle(_float64(z) if z.dtype is _C.bool else _float(z))
    return result * (180 / np.pi) if deg else result


def isreal(x):
    x = _arg(x)
    return imag(x) == 0 if x.is_complex() else _C.ones(tuple(x.shape), dtype=_C.bool,
                                                       device=x.device)


def iscomplex(x):
    return ~isreal(x)


def clip(x, /, min=None, max=None, out=None, **kwargs):
    """Bounds may be scalars or arrays; None leaves that side open.  The
    result keeps ``x``'s dtype (Array API); bounds are cast to it.  An integer
    or bool ``x`` with float bounds (np.clip(pixels, lo, hi) with percentile
    bounds), which the Array API leaves unspecified, takes NumPy's promoted
    dtype, so fractional bounds are not truncated."""
    if type(x) is Tensor and out is None and not kwargs and x.is_floating_point() and \
            _plain_bound(min) and _plain_bound(max) and (min is not None or max is not None):
        return _C.clamp(x, min, max)  # the common call: float data, number bounds
    x = _arg(x)
    lo, hi = kwargs.pop("a_min", min), kwargs.pop("a_max", max)
    operands = (x, lo, hi)  # as given: out='s refusals name their shapes
    if kwargs:  # NumPy's ufunc keywords (where=, dtype=, casting=, order=, subok=) were dropped
        from ._utility import clip as numpy_clip
        return numpy_clip(x, lo, hi, out, **kwargs)
    if lo is None and hi is None and x.dtype is _C.bool:  # NumPy's clip is then positive()
        raise TypeError("ufunc 'positive' did not contain a loop with signature matching types "
                        "<class 'numpy.dtypes.BoolDType'> -> None")
    lo, hi = (b if b is None or isinstance(b, _SCALARS) else _arg(b) for b in (lo, hi))
    # NumPy's _clip drops the open-ended bounds by the data's own dtype, then
    # its promotion checks the rest (NEP 50): -5 with bool data and a uint8
    # bound is an OverflowError, 255 with uint8 data bounds nothing
    lo, hi = open_clip_bounds(x.dtype, lo, hi)
    x = _clip_operand(x, lo, hi)
    lo, hi = integer_clip_bounds(x, lo, hi, open_ends=False)
    if out is not None:
        check_out_cast("clip", x.dtype, out)
    if not (x.is_complex() or x.dtype is _C.bool) and (lo is not None or hi is not None):
        # one pass, and NumPy's NaN bounds (a NaN bound makes every element NaN)
        lo, hi = (None if b is None else _bound(b, x) for b in (lo, hi))
        lo, hi = (b.to(x.dtype) if isinstance(b, Tensor) else b for b in (lo, hi))
        result = _C.clamp(x, lo, hi)
        if out is not None:
            from ._utility import _clip_finish
            return _clip_finish(operands, result, out)
        return result
    if x.is_complex():  # NumPy's complex order; a NaN bound (either part) gives NaN, as NumPy's
        result = x if lo is None else maximum(x, _bound(lo, x))
        result = result if hi is None else minimum(result, _bound(hi, x))
        return _finish_clip(x if result is x else result, x, out, operands)
    result = x
    below, above = _C.lt, _C.gt
    if lo is not None:
        lo = _bound(lo, x)
        result = _C.where(below(result, lo), lo, result) if not isinstance(lo, Tensor) \
            else _C.where(below(result, lo), lo.to(x.dtype), result)
    if hi is not None:
        hi = _bound(hi, x)
        result = _C.where(above(result, hi), hi, result) if not isinstance(hi, Tensor) \
            else _C.where(above(result, hi), hi.to(x.dtype), result)
    return _finish_clip(result, x, out, operands)


def _finish_clip(result, x, out, operands):
    if result is x:
        result = x.clone()
    if result.dtype != x.dtype:
        result = result.to(x.dtype)
    if out is not None:
        from ._utility import _clip_finish
        return _clip_finish(operands, result, out)
    return result


def _clip_operand(x, lo, hi):
    """x in NumPy's result dtype of clip: x's promoted with the bounds' (array
    bounds as arrays, Python numbers weak), so a wider bound is not cast into
    x's dtype (a uint32 bound of 70000 on uint16 data wrapped to 4464).  With
    bounds of x's dtype (the Array API's case) x stays as it is."""
    bounds = [b for b in (lo, hi) if b is not None]
    if all(isinstance(b, Tensor) and b.dtype == x.dtype for b in bounds) or \
            _C.bfloat16 in [x.dtype] + [b.dtype for b in bounds if isinstance(b, Tensor)]:
        return x
    dtype = tl_dtype(np.result_type(np_dtype(x), *[np_dtype(b) if isinstance(b, Tensor) else b
                                                   for b in bounds]))
    return x if dtype == x.dtype else x.to(dtype)


def _plain_bound(b):
    """None, or a number that bounds a float array as it is (not NaN: a NaN
    bound makes every element NaN, which the general path does)."""
    return b is None or type(b) is float and b == b or \
        type(b) is int and -(1 << 53) <= b <= 1 << 53


def _bound(b, x):
    if isinstance(b, _SCALARS):
        if not (x.is_floating_point() or x.is_complex()):
            return b if isinstance(b, float) else _C.full((), b, dtype=x.dtype, device=x.device)
        # through the widest type: a bound past a 16-bit float's range is inf
        # there, as NumPy's cast makes it (the core's full() would refuse it)
        wide = _C.complex128 if x.is_complex() else _C.float64
        return _C.full((), b, dtype=wide, device=x.device).to(x.dtype)
    return _arg(b)


def deg2rad(x, /):
    x = _arg(x)
    _ufunc.refuse_complex("deg2rad", x)
    return _float(x) * (np.pi / 180)


def rad2deg(x, /):
    x = _arg(x)
    _ufunc.refuse_complex("rad2deg", x)
    return _float(x) * (180 / np.pi)


radians, degrees = deg2rad, rad2deg


def _float(x):
    """x as floats for NumPy's float ufuncs of integers (deg2rad, cbrt, modf
    ...): the smallest float NumPy's type resolution picks, float16 for bool
    and 8-bit integers, float32 for 16-bit ones, float64 for the rest."""
    x = _arg(x)
    if x.is_floating_point() or x.is_complex():
        return x
    return x.to(_C.float16 if x.dtype in (_C.bool, _C.int8, _C.uint8) else
                _C.float32 if x.dtype in (_C.int16, _C.uint16) else _C.float64)


def _float64(x):
    """x as floats where NumPy's code mixes integers with a Python float
    (sinc's 1.0e-20, heaviside's h), which is float64 for any integer."""
    x = _arg(x)
    return x if x.is_floating_point() or x.is_complex() else x.to(_C.float64)


def _float_loop(x1, x2):
    """The float dtype NumPy's float-only binary ufuncs (heaviside,
    nextafter) compute two operands in: their promoted dtype (a Python
    number weak), integers going to the float that holds them."""
    arrays = [np_dtype(_arg(x)) for x in (x1, x2) if not isinstance(x, _SCALARS)]
    promoted = np.result_type(*arrays, *[x for x in (x1, x2) if isinstance(x, _SCALARS)])
    if promoted.kind in "biu":
        # NumPy's loop search: each array operand in the smallest float that
        # holds it (uint16 with int16 computes in float32, not float64), a
        # Python int in the float holding the promoted integer
        floats = [np.promote_types(d, np.float16) for d in arrays]
        if len(arrays) < 2:
            floats.append(np.promote_types(promoted, np.float16))
        promoted = np.result_type(*floats)
    dtype = tl_dtype(promoted)
    if not (dtype.is_floating_point or dtype.is_complex):
        dtype = _float(_C.zeros((), dtype=dtype)).dtype
    if not arrays:  # two Python numbers: one array for the loop (the other stays weak)
        x1 = _C.full((), x1, dtype=dtype)
    return tuple(_arg(x).to(dtype) if not isinstance(x, _SCALARS) else x for x in (x1, x2))


def heaviside(x1, x2, /, *rest, out=None, where=True, dtype=None, casting="same_kind"):
    x1, x2 = _float_loop(x1, x2)
    if dtype is not None:  # the loop NumPy's dtype= selects
        x1, x2 = (_arg(x).to(tl_dtype(dtype)) if not isinstance(x, _SCALARS) else x
                  for x in (x1, x2))
    if isinstance(x1, _SCALARS):
        x1 = _scalar_in(x1, x2)
    if isinstance(x2, _SCALARS):
        x2 = _scalar_in(x2, x1)
    if x1.dtype != x2.dtype:  # the core's heaviside wants one dtype
        x1, x2 = (x.to(_C.promote_types(x1.dtype, x2.dtype)) for x in (x1, x2))
    out = _out_given("heaviside", 2, rest, {"out": out} if out is not None else {}).get("out")
    return _into_out(_C.heaviside(x1, x2), out, where)


def _scalar_in(x, other):
    """A Python number as a 0-d tensor of other's dtype, cast as NumPy casts a
    weak scalar (through float64: an int past float16's range is inf)."""
    wide = _C.complex128 if isinstance(x, complex) else _C.float64
    value = float(x) if isinstance(x, int) else x
    return _C.full((), value, dtype=wide, device=other.device).to(other.dtype)


def _into_out(result, out, where=True):
    """result written into out (None: returned) where ``where`` holds, as a
    ufunc's out=/where= write it."""
    if out is not None:
        _ufunc.write_where(out, result, None if where is True else _arg(where))
        return out
    return result


def nextafter(x1, x2, /, *rest, **kwargs):
    x1, x2 = _float_loop(x1, x2)
    # a weak Python number cast as NumPy casts it (1e300 beside float16 is
    # inf, where full() refused it)
    if isinstance(x1, _SCALARS):
        x1 = _scalar_in(x1, x2)
    if isinstance(x2, _SCALARS):
        x2 = _scalar_in(x2, x1)
    return _C.nextafter(x1, x2, **_out_given("nextafter", 2, rest, kwargs))


def divmod(x1, x2, /):
    return globals()["floor_divide"](x1, x2), globals()["remainder"](x1, x2)


def sinc(x):
    return _C.sinc(_float64(x))


def cbrt(x, /):
    return _C.cbrt(_float(x))


def ldexp(x1, x2, /):
    """NumPy's ldexp, in the loop NumPy picks (a float mantissa with an
    int32 or int64 exponent): its ufunc is asked on empty operands of the
    same dtypes, Python numbers as they are (NEP 50: a Python int mantissa
    beside an int16 exponent is float16, a Python int exponent past the
    loop's int NumPy's OverflowError, a uint64 exponent its TypeError)."""
    probe = _empty_operands((x1, x2))
    if probe is None:  # (bfloat16: no NumPy loop to ask; the op's own rule)
        return _C.ldexp(_float(x1), _arg(x2))
    with np.errstate(all="ignore"), warnings.catch_warnings():
        warnings.simplefilter("ignore")
        loop = tl_dtype(np.ldexp(*probe).dtype)
    exponent = _arg(x2)
    if isinstance(x1, _SCALARS):  # through float64, as NumPy casts a weak number
        mantissa = _C.full((), float(x1), dtype=_C.float64,
                           device=exponent.device).to(loop)
    else:
        mantissa = _arg(x1).to(loop)
    # NOTE: the op is PyTorch's, whose zero times an overflowing 2^e is NaN;
    # C's ldexp (NumPy's loop) keeps a zero, its sign too
    return _C.where(_C.eq(mantissa, 0), mantissa, _C.ldexp(mantissa, exponent))


def _integer_pair(x1, x2):
    """Two integer operands of one dtype, a Python int weak (NEP 50: uint8
    with 8 stays uint8), as NumPy's gcd/lcm loops take them."""
    if isinstance(x2, int) and not isinstance(x2, builtins.bool) and not isinstance(x1, int):
        x1 = _arg(x1)
        if x1.dtype is not _C.bool and not (x1.is_floating_point() or x1.is_complex()):
            bounds = np.iinfo(np_dtype(x1))
            if not bounds.min <= x2 <= bounds.max:  # NEP 50's refusal
                raise OverflowError(f"Python integer {x2} out of bounds for {bounds.dtype}")
            return x1, _C.full((), x2, dtype=x1.dtype, device=x1.device)
        return x1, _arg(x2)
    if isinstance(x1, int) and not isinstance(x1, builtins.bool) and not isinstance(x2, int):
        x2, x1 = _integer_pair(x2, x1)
        return x1, x2
    return _arg(x1), _arg(x2)


def _past_int64(name, x1, x2):
    """NumPy's OverflowError for a Python int past int64 beside an array
    whose loop cannot hold it (gcd of 2**64 - 1 and a bool array)."""
    if any(type(x) is int and not -2 ** 63 <= x < 2 ** 63 for x in (x1, x2)):
        _ufunc.numpy_python_ints(getattr(np, name), tuple(
            x if isinstance(x, (Tensor,) + _SCALARS) else _arg(x) for x in (x1, x2)))


def gcd(x1, x2, /):
    _past_int64("gcd", x1, x2)
    return _C.gcd(*_integer_pair(x1, x2))


def lcm(x1, x2, /):
    """NumPy's lcm: |a| / gcd * |b| in the unsigned type, so a product past
    the range wraps and keeps the sign the wrap gives (int64's lcm(2**62, 3)
    is -2**62).  torchlike.lcm is PyTorch's, |a / gcd * b|, never negative
    but INT_MIN; the two agree wherever the product fits, and for the 8- and
    16-bit types, whose product C computes in int before the wrap."""
    _past_int64("lcm", x1, x2)
    a, b = _integer_pair(x1, x2)
    result = _C.lcm(a, b)
    unsigned = _WIDE_UNSIGNED.get(result.dtype)
    if unsigned is None:
        return result
    g = _C.gcd(a, b).view(unsigned)
    g = _C.where(g == 0, _C.ones_like(g), g)  # both 0: |a| is 0, so the result is
    # cast first: |int16(-32768)| in int16 is itself (lcm of int16 and int64 was negative)
    return (_C.abs(a.to(result.dtype)).view(unsigned) // g *
            _C.abs(b.to(result.dtype)).view(unsigned)).view(result.dtype)


_WIDE_UNSIGNED = {_C.int32: _C.uint32, _C.int64: _C.uint64}


# NumPy's definitions, shared with the ufuncs on tensors (torchlike/_ufunc.py)
def frexp(x, /):
    return _ufunc._frexp(_float(x))


def modf(x, /):
    return _ufunc._modf(_float(x))


def spacing(x, /):
    return _ufunc._spacing(_float(x))


def i0(x):
    """NumPy's i0 with the core op, on the operand's device and on the tape:
    floats keep their dtype, other real operands are float64."""
    x = _arg(x)
    if x.is_complex():
        raise TypeError("i0 not supported for complex values")
    return _C.i0(x if x.is_floating_point() else x.to(_C.float64))


def astype(x, dtype, /, *, copy=True, device=None):
    """``x`` as ``dtype`` (Array API): a new array unless ``copy=False`` and
    nothing changes."""
    dtype = tl_dtype(dtype)
    same = x.dtype == dtype and (device is None or x.device == device)
    if same:
        return x.clone() if copy else x
    result = x.to(dtype)
    return result if device is None else result.to(device)


def _masked_aware(fn, name):
    def call(*args, **kwargs):
        try:
            return fn(*args, **kwargs)
        except MaskedOperand:
            return _masked(name, args, kwargs)
    call.__name__ = call.__qualname__ = name
    call.__doc__ = fn.__doc__
    call.__wrapped__ = fn
    return call


# the functions written out above hand masked arrays to NumPy's dispatch too
for _name in __all__:
    if _name not in UNARY and _name not in BINARY:
        globals()[_name] = _masked_aware(globals()[_name], _name)
del _name


# ---- NumPy's ufunc surface on the namespace's functions ------------------------------
# ``np.add.reduce(x)``, ``np.multiply.outer(a, b)``, ``np.maximum.accumulate(x)``,
# ``np.add.identity``: each function named after a NumPy ufunc carries that ufunc's
# methods and attributes.  The methods call NumPy's ufunc with tensors, so they
# run through ``Tensor.__array_ufunc__`` (torchlike ops, on the tensors' device).
# A call with ufunc keywords the function does not take (``where=``, ``dtype=``,
# ``casting=``, ``out=`` on a function written out here) goes the same way.

def _operand(x, operands=None):
    """An operand of a ufunc's method: tensors and Python numbers as they are;
    with ``operands`` (the call's), numbers alone go where ``_new_array``
    places them."""
    if isinstance(x, Tensor) or _weak(x):
        return x
    return as_tensor(x) if operands is None else _new_array(x, operands)


def _ufunc_method(ufunc, method):
    bound = getattr(ufunc, method)

    def call(array, *args, **kwargs):
        if method in ("outer",):
            # numbers alone (np.logical_and.outer([True, False], [True])) make
            # arrays on the default device, as a call of them does
            operands = (array,) + args[:1]
            args = tuple(_operand(a, operands) for a in args[:1]) + args[1:]
            return bound(_operand(array, operands), *args, **kwargs)
        if method in ("reduce", "accumulate", "reduceat"):
            return bound(_operand(array, (array,)), *args, **kwargs)
        if method == "at" and len(args) > 1:
            values = _operand(args[1])
            if isinstance(array, Tensor) and isinstance(values, Tensor) and \
                    not isinstance(args[1], (Tensor, np.ndarray)):
                # a list of values goes to the array's device, as a ufunc's lists do
                values = values.to(array.device)
            args = (args[0], values) + args[2:]
        return bound(_operand(array), *args, **kwargs)
    call.__name__ = call.__qualname__ = f"{ufunc.__name__}.{method}"
    call.__doc__ = bound.__doc__
    return call


def _with_ufunc_keywords(fn, ufunc):
    nin = ufunc.nin

    def call(*args, **kwargs):
        if not kwargs and len(args) == nin:  # the common call: no keyword, no out
            return fn(*args)
        if kwargs.get("casting") == "same_kind":  # the default: nothing to pass on
            kwargs = {k: v for k, v in kwargs.items() if k != "casting"}
        if ufunc.nin < len(args) <= ufunc.nin + ufunc.nout and "out" not in kwargs:
            # NumPy's out arrays given by position (None: no out)
            outs, args = args[ufunc.nin:], args[:ufunc.nin]
            if any(o is not None for o in outs):
                outs = outs + (None,) * (ufunc.nout - len(outs))
                kwargs = dict(kwargs, out=outs if ufunc.nout > 1 else outs[0])
        if ufunc.nout == 1 and isinstance(kwargs.get("out"), tuple):  # NumPy's out=(y,)
            if len(kwargs["out"]) != 1:
                raise ValueError("The 'out' tuple must have exactly one entry per ufunc output")
            kwargs = dict(kwargs, out=kwargs["out"][0])
        loop = None if kwargs.get("dtype") is None or len(args) != ufunc.nin else \
            _check_ufunc_dtype(ufunc, args, kwargs["dtype"], kwargs.get("casting", "same_kind"))
        if loop is not None:
            # the loop NumPy takes computes in other dtypes and gives dtype=
            # only as its output (np.isnan(x, dtype=bool), np.equal(x, 1,
            # dtype=bool)): the op must not cast the inputs to it
            want = tl_dtype(kwargs["dtype"])
            kwargs = {k: v for k, v in kwargs.items() if k != "dtype"}
            result = call(*_loop_inputs(args, loop), **kwargs)
            return result if kwargs.get("out") is not None or result.dtype == want else \
                result.to(want)
        # (signature= is checked by NumPy itself, on the ufunc's call: its
        # loop, and out's dtype under it, before out's shape)
        if "signature" in kwargs and len(args) == ufunc.nin:
            return ufunc(*[_operand(a) for a in args], **kwargs)
        if kwargs.get("casting") in _STRICT_CASTINGS and kwargs.get("dtype") is None and \
                len(args) == ufunc.nin and "signature" not in kwargs:
            _check_ufunc_casting(ufunc, args, kwargs)
        if kwargs.get("out") is not None and ufunc.nout == 1 and len(args) == ufunc.nin and \
                "signature" not in kwargs:
            _check_ufunc_out(fn, ufunc, args, kwargs)
            if isinstance(kwargs["out"], (Tensor, np.ndarray)) and \
                    _out_shape(args, kwargs["out"], kwargs.get("where")) and \
                    not hasattr(fn, "_writes_out"):
                return _write_out(fn, ufunc, args, kwargs)
        try:
            return fn(*args, **kwargs)
        except TypeError as error:
            if not kwargs or "unexpected keyword argument" not in str(error):
                raise
            if "argument 'out'" in str(error) and ufunc.nout == 1 and len(args) == ufunc.nin \
                    and isinstance(kwargs.get("out"), (Tensor, np.ndarray)):
                _out_shape(args, kwargs["out"], kwargs.get("where"))
                return _write_out(fn, ufunc, args, kwargs)  # NumPy's ufunc would call fn again
        return ufunc(*[_operand(a) for a in args], **kwargs)
    call.__name__ = call.__qualname__ = fn.__name__
    call.__doc__ = fn.__doc__
    call.__wrapped__ = fn
    return call


def _out_shape(args, out, where=None):
    """Whether out (its shape checked by NumPy's rule, ``_ufunc.out_broadcast``,
    with where='s) is larger than the operands' broadcast or an ndarray, which
    the functions written here do not write themselves (their ops refuse both)."""
    return _ufunc.out_broadcast(args, out.shape, where) is not None or \
        isinstance(out, np.ndarray)


def _write_out(fn, ufunc, args, kwargs):
    """fn's result computed without out=, then written into out (a tensor or
    an ndarray, the operands' broadcast or larger) where where= holds, as a
    ufunc writes it; the cast was checked against casting= before."""
    out, where = kwargs["out"], kwargs.get("where", True)
    # casting= was checked against out's dtype before, so the write is
    # unsafe; with dtype= it still rules the inputs' cast into that loop
    dropped = ("out", "where") if kwargs.get("dtype") is not None else ("out", "where", "casting")
    rest = {k: v for k, v in kwargs.items() if k not in dropped}
    try:
        result = fn(*args, **rest)
    except TypeError as error:  # dtype= the function does not take: NumPy's loop
        if not rest or "unexpected keyword argument" not in str(error):
            raise
        result = ufunc(*[_operand(a) for a in args], **rest)
    if isinstance(out, np.ndarray):
        if isinstance(result, Tensor):
            _ufunc.refuse_host_out(result, out, f"numpy.{fn.__name__}")
        np.copyto(out, np.asarray(result), casting="unsafe",
                  where=True if where is True else np.asarray(where))
    else:
        _ufunc.write_where(out, as_tensor(result).expand(tuple(out.shape)),
                           None if where is True else _arg(where))
    return out


# the kinds of NumPy loop input a Python number casts to (NEP 50: weak)
_WEAK_KINDS = {builtins.bool: "biufc", int: "iufc", float: "fc", complex: "c"}


def _check_ufunc_dtype(ufunc, args, dtype, casting):
    """NumPy's refusals of a ufunc's ``dtype=`` (the output's dtype), in its
    own words: NumPy's ufunc is called on empty arrays of the operands'
    dtypes (Python numbers as they are: NumPy converts ints through a C long
    and to dtype= itself), so its loop search, casting rule and NEP 50 say
    what is refused.  None when the loop it runs is dtype's own (inputs in
    it too, as the op computes with dtype=), else the loop's input dtypes
    (None: the operand as it is), which differ: a predicate's bool,
    np.absolute(complex64, dtype=float64) runs D->d.  ``_loop_inputs``
    casts the operands to them."""
    try:
        want = np_dtype(tl_dtype(dtype))
    except (TypeError, AttributeError):  # bfloat16, which NumPy lacks
        return None
    probe = _empty_operands(args)
    if probe is None or casting not in ("no", "equiv", "safe", "same_kind", "unsafe"):
        return None
    with np.errstate(all="ignore"), warnings.catch_warnings():
        warnings.simplefilter("ignore")
        ufunc(*probe, dtype=want, casting=casting)  # raises NumPy's TypeError or OverflowError
    if want == np.bool_ and (ufunc.__name__ in _ufunc._COMPARISONS or
                             ufunc.__name__ in _LOGICAL_BINARY):
        # NumPy 2: a comparison's or a logical op's dtype=bool is its
        # output's only (np.less(z, x, dtype=bool, casting='unsafe') still
        # compares complex numbers, not bools)
        return (None,) * len(args)
    # The loop NumPy runs: the first every input reaches by a safe cast; where
    # none does, the one all in dtype= if the ufunc has it (np.absolute of
    # complex128 with dtype=float32 and casting='unsafe' runs f->f, not F->f),
    # else the first that casting= lets take them.
    loops = [[np.dtype(c) for c in ins] for ins, _, outs in
             (types.partition("->") for types in ufunc.types)
             if len(outs) == 1 and "O" not in ins + outs and np.dtype(outs) == want]
    uniform = [want] * len(args)
    found = next((loop for loop in loops if _takes(loop, args, "safe")), None) or \
        (uniform if uniform in loops else
         next((loop for loop in loops if _takes(loop, args, casting)), uniform))
    return None if all(d == want for d in found) else tuple(found)


def _loop_inputs(args, loop):
    """args with each tensor cast to its input dtype in the loop NumPy runs
    (None: as it is)."""
    return tuple(a.to(tl_dtype(d)) if d is not None and isinstance(a, Tensor) and
                 np_dtype(a) != d else a for a, d in zip(args, loop))


_LOGICAL_BINARY = ("logical_and", "logical_or", "logical_xor")


def _takes(loop, args, casting):
    """Whether the loop takes every input under casting (a Python number by
    NEP 50's kinds; a Python bool under 'no' or 'equiv' as a bool array)."""
    for a, loop_in in zip(args, loop):
        if type(a) is builtins.bool and casting in ("no", "equiv"):
            ok = loop_in.kind == "b"
        elif isinstance(a, _SCALARS):
            ok = casting == "unsafe" or \
                loop_in.kind in _WEAK_KINDS[type(a) if type(a) in _WEAK_KINDS else float]
        else:
            ok = np.can_cast(np_dtype(_arg(a)), loop_in, casting)
        if not ok:
            return False
    return True


_STRICT_CASTINGS = ("no", "equiv", "safe")


def _check_ufunc_casting(ufunc, args, kwargs):
    """NumPy's refusal of a ufunc call under casting='no', 'equiv' or 'safe'
    without dtype=: an input (or out=) whose dtype is not the loop's, where
    the rule forbids that cast (np.add(int32_array, int64_array,
    casting='no'); a Python bool is a bool array, other Python numbers are
    weak and never refused).  NumPy's resolver is asked on empty arrays of
    the operands' dtypes, so the TypeError is NumPy's own, naming the ufunc,
    the operand and both dtypes; torchlike's promotion (a loop of another
    dtype) does not decide it."""
    out = kwargs.get("out")
    probe = _empty_operands(args if out is None else args + (out,))
    if probe is None:
        return
    extra = {} if out is None else {"out": probe.pop()}
    try:
        with np.errstate(all="ignore"):
            ufunc(*probe, casting=kwargs["casting"], **extra)
    except TypeError:
        raise
    except Exception:  # noqa: BLE001 - a value NumPy refuses: the call itself says so
        return


def _empty_operands(args):
    """Empty ndarrays of the operands' dtypes (Python numbers as they are),
    for asking NumPy's ufunc what it refuses; None where NumPy cannot be
    asked (bfloat16, a masked array, a tuple out): the op decides."""
    try:
        return [a if isinstance(a, _SCALARS) else
                np.empty(0, a.dtype if isinstance(a, np.ndarray) else _probe_dtype(_arg(a)))
                for a in args]
    except Exception:  # noqa: BLE001 - see above
        return None


def _probe_dtype(x):
    if x.dtype == _C.bfloat16:  # NumPy has no loop of it to check
        raise TypeError("bfloat16")
    return np_dtype(x)


def _check_ufunc_out(fn, ufunc, args, kwargs):
    """NumPy's casting rule for a ufunc's out= (``casting=``, "same_kind" by
    default): a result that cannot be cast so into out's dtype is a TypeError
    before anything is written (a float result into an int or bool out).  The
    result's dtype is found by calling fn on empty operands of the same dtypes."""
    casting = kwargs.get("casting", "same_kind")
    out = kwargs["out"]
    if casting == "unsafe" or not hasattr(out, "dtype") or isinstance(out, tuple):
        return
    # the verdict depends on dtypes only: kept per call signature (the probe
    # costs more than a small op, and out= is how hot loops avoid allocations)
    key = None
    if type(out) is Tensor:
        key = [ufunc, casting, out.dtype, kwargs.get("dtype")]
        for a in args:
            if type(a) is Tensor:
                key.append(a.dtype)
            elif type(a) in _SCALAR_TYPES:
                key.append(type(a))
            else:
                key = None
                break
    if key is not None:
        key = tuple(key)
        try:
            refusal = _OUT_VERDICTS[key]
        except (KeyError, TypeError):  # not seen, or a dtype= spelling not hashable
            pass
        else:
            if refusal:
                raise TypeError(refusal)
            return
    refusal = _out_refusal(fn, ufunc, args, kwargs, casting, out)
    if key is not None and len(_OUT_VERDICTS) < 4096:
        try:
            _OUT_VERDICTS[key] = refusal
        except TypeError:
            pass
    if refusal:
        raise TypeError(refusal)


_OUT_VERDICTS = {}
_SCALAR_TYPES = frozenset(_SCALARS)


def _out_refusal(fn, ufunc, args, kwargs, casting, out):
    """The TypeError message for a result fn's operands give that out cannot
    take under casting, or None."""
    if casting in _STRICT_CASTINGS:
        verdict = _numpy_out_verdict(ufunc, args, kwargs, casting, out)
        if verdict is not False:
            return verdict
    try:
        probe = [_C.empty((0,), dtype=a.dtype, device=a.device) if isinstance(a, Tensor)
                 else a if isinstance(a, _SCALARS) else as_tensor(a)[:0] for a in args]
        extra = {"dtype": kwargs["dtype"]} if kwargs.get("dtype") is not None else {}
        try:
            dtype = fn(*probe, **extra).dtype
        except TypeError as error:  # dtype= the function does not take: NumPy's loop
            if not extra or "unexpected keyword argument" not in str(error):
                raise
            dtype = ufunc(*probe, **extra).dtype
        target = out.dtype if isinstance(out, Tensor) else tl_dtype(out.dtype)
    except Exception:  # noqa: BLE001 - the call itself raises what it must
        return None
    # by kind only: the result's dtype here may be PyTorch's promotion
    # (float32 for uint8's sin, where NumPy's is float16), so a stricter rule
    # ("safe", "no") would refuse what NumPy takes
    if can_cast_dtypes(dtype, target, "same_kind"):
        return None
    return out_cast_words(ufunc.__name__, dtype, target, casting)


def _numpy_out_verdict(ufunc, args, kwargs, casting, out):
    """Under a strict casting= ("safe", "no", "equiv"), NumPy's own verdict
    on out's dtype: its ufunc on empty operands of the same dtypes, dtype=
    as given (lcm of uint16 with dtype=uint32 into a float16 out is refused
    under "safe", which a check by kind lets through).  Its TypeError's
    words, None when it takes out, False when NumPy cannot be asked."""
    probe = _empty_operands(args)
    if probe is None:
        return False
    extra = {"dtype": kwargs["dtype"]} if kwargs.get("dtype") is not None else {}
    try:
        target = np.empty(0, out.dtype if isinstance(out, np.ndarray) else _probe_dtype(out))
        with np.errstate(all="ignore"), warnings.catch_warnings():
            warnings.simplefilter("ignore")
            ufunc(*probe, out=target, casting=casting, **extra)
    except TypeError as error:
        return str(error)
    except Exception:  # noqa: BLE001 - not the out's refusal: the call decides
        return False
    return None


def _give_ufunc_surface(name):
    ufunc = getattr(np, name, None)
    fn = globals()[name]
    if isinstance(ufunc, np.ufunc):
        fn = _with_ufunc_keywords(fn, ufunc)
    if name in _DIRECT:
        op, arity = _DIRECT[name]
        fn = _C._DirectCall(op, fn, arity)
    globals()[name] = fn
    if isinstance(ufunc, np.ufunc):
        give_ufunc_surface(fn, ufunc)


def give_ufunc_surface(fn, ufunc):
    """The methods and attributes of NumPy's ``ufunc`` on the namespace's
    function ``fn`` (also for the gufuncs matmul, vecdot ..., whose methods
    raise NumPy's errors, and the ufuncs reached through NumPy's own
    function: bitwise_count, isnat)."""
    for method in ("reduce", "accumulate", "reduceat", "outer", "at"):
        setattr(fn, method, _ufunc_method(ufunc, method))
    for attr in ("identity", "nin", "nout", "nargs", "ntypes", "types", "signature"):
        setattr(fn, attr, getattr(ufunc, attr))
    fn.ufunc = ufunc  # the NumPy ufunc this function stands for
    return fn


for _name in __all__:
    _give_ufunc_surface(_name)
del _name


class _UfuncType(type):
    def __instancecheck__(cls, obj):
        return isinstance(obj, np.ufunc) or isinstance(getattr(obj, "ufunc", None), np.ufunc)

    def __subclasscheck__(cls, sub):
        return issubclass(sub, np.ufunc)


class ufunc(metaclass=_UfuncType):
    """``isinstance(f, np.ufunc)``: True for NumPy's ufuncs and for the
    namespace's functions that stand for one (``np.add``, which carries
    ``np.add.reduce`` ...), as code that checks before calling a method asks."""

    def __new__(cls, *args, **kwargs):
        raise TypeError("cannot create 'numpy.ufunc' instances")

