"""NEP 13: NumPy ufuncs called on tensors run torchlike ops.

``np.sin(t)``, ``np.add(a, t, out=t2)``, ``np.add.reduce(t, axis=0)`` and
``np.multiply.accumulate(t)`` reach ``Tensor.__array_ufunc__``.  A ufunc with a
torchlike op of the same meaning runs that op, so the result is a tensor made by
the same call path as ``torchlike.sin(t)``; one without runs NumPy on zero-copy
views of the CPU tensors and wraps the result.

NOTE: results follow torchlike's promotion rules whichever namespace calls
them (``np.divide`` on int tensors gives the default float dtype, as
``torchlike.divide`` does), as the design asks of every operator on tensors.
"""
import dis
import re
import sys
import warnings

import numpy as np

from . import _C
from ._array_function import (_DEVICE, accumulator_dtype, as_tensor, broadcast_into,
                              check_accumulate_out, check_fallback, check_out_cast, finish,
                              finish_gufunc, norm_axis, np_dtype, out_broadcast,
                              refuse_host_out, tl_dtype, unaliased)
from ._special import is_special, special_op

# ufunc name -> torchlike function name, where they are spelled differently.
_RENAMED = {
    "equal": "eq", "not_equal": "ne", "invert": "bitwise_not", "bitwise_invert": "bitwise_not",
    "conjugate": "conj_physical", "conj": "conj_physical", "mod": "remainder",
    "power": "pow", "left_shift": "bitwise_left_shift",
    "right_shift": "bitwise_right_shift", "radians": "deg2rad", "degrees": "rad2deg",
}
# ufunc.reduce / ufunc.accumulate -> the NumPy reduction (whose torchlike.numpy
# implementation runs) or the scan with that meaning.
_REDUCTIONS = {"add": np.sum, "multiply": np.prod, "maximum": np.max, "minimum": np.min,
               "logical_and": np.all, "logical_or": np.any}
_SCANS = {"add": "cumsum", "multiply": "cumprod"}
# Ufuncs answered by torchlike.numpy's functions of the same name: the
# products (torchlike's take one dtype; NumPy's promote), and fabs and rint,
# whose NumPy loops are float ones (integers become floats first, where
# torchlike's abs and round keep them: fabs of int16's -32768 is 32768.0),
# and nextafter, heaviside and ldexp, whose NumPy loops are float ones too
# (the ops refuse integers or keep them, and take one dtype; NumPy computes
# int16 in float32, int64 in float64, a Python int mantissa of ldexp in the
# exponent's smallest float).
_NUMPY_ANSWERED = {"matmul", "vecdot", "matvec", "vecmat", "fabs", "rint", "lcm", "nextafter",
                   "heaviside", "ldexp"}
# Comparisons and extrema, which NumPy also defines for complex numbers.
_COMPLEX_ORDERED = frozenset(["less", "less_equal", "greater", "greater_equal", "maximum",
                              "minimum", "fmax", "fmin"])
_OP_NAMES = {"less": _C.lt, "less_equal": _C.le, "greater": _C.gt, "greater_equal": _C.ge}
# Ufuncs of real numbers only, whose ops raise RuntimeError for complex ones.
_REAL_ONLY = frozenset(["deg2rad", "rad2deg", "radians", "degrees"])
# Keyword values that mean "the default" and so need no handling.
_DEFAULTS = {"casting": "same_kind", "order": "K", "subok": True, "where": True}


def refuse_complex(name, x):
    """NumPy's TypeError for a real-only ufunc (modf, frexp, spacing,
    deg2rad ...) given complex numbers, whose casts would drop the
    imaginary parts."""
    if x.is_complex():
        raise TypeError(f"ufunc '{name}' not supported for the input types, and the inputs "
                        f"could not be safely coerced to any supported types according to the "
                        f"casting rule ''safe'' (got {x.dtype})")


def _floating(x, name):
    """x as a float tensor: integers and bool take the default float, as the
    FLOAT-rule ops do (np.sqrt on an int tensor); complex refused."""
    x = x if isinstance(x, _C.Tensor) else as_tensor(x)
    refuse_complex(name, x)
    return x if x.is_floating_point() else x.to(_C.get_default_dtype())


def _numpy_complex_sign(z, out=None):
    """NumPy's sign of complex numbers, the namespace's (z / |z|, an
    infinite part giving its direction alone, where the op's sgn gives NaN:
    sign(inf + 0j) is 1)."""
    from .numpy._elementwise import _complex_sign
    result = _complex_sign(z)
    if out is None:
        return result
    check_out_cast("sign", result.dtype, out)  # (as the op's own out= does)
    out.copy_(result)
    return out


def _numpy_sign(x, out=None):
    """np.sign for the C fast path: the op for real numbers, NumPy's complex
    sign for complex ones."""
    if x.is_complex():
        return _numpy_complex_sign(x, out)
    return _C.sign(x) if out is None else _C.sign(x, out=out)


def _smallest_float(x, name):
    """x as floats in NumPy's loop for a float-only ufunc of integers: the
    smallest float that holds them (float16 for bool and 8-bit integers,
    float32 for 16-bit ones, float64 for the rest); complex refused."""
    x = x if isinstance(x, _C.Tensor) else as_tensor(x)
    refuse_complex(name, x)
    if x.is_floating_point():
        return x
    return x.to(_C.float16 if x.dtype in (_C.bool, _C.int8, _C.uint8) else
                _C.float32 if x.dtype in (_C.int16, _C.uint16) else _C.float64)


def _spacing(x, *, out=None):
    """NumPy's spacing: the step from x to the next value away from zero (so
    negative for negative x), the smallest subnormal at either zero, NaN at
    the infinities.  NumPy's float16 loop is its own: the step up, toward
    +inf, whatever x's sign (spacing(-1.0) is +2**-11, half float32's
    -2**-23 pattern; -0.0 and negative subnormals give the smallest
    subnormal, -65504 gives 32, 65504 inf).  Integers take NumPy's smallest
    float that holds them, as the namespace's np.spacing (which comes here
    with ufunc keywords: the two must agree)."""
    x = _smallest_float(x, "spacing")
    inf = _C.full((), float("inf"), dtype=x.dtype, device=x.device)
    if x.dtype is _C.float16:
        step = _C.nextafter(x, inf) - x
        return _C.where(_C.isfinite(x), step, float("nan"),
                        **({} if out is None else {"out": out}))
    tiny = _C.nextafter(_C.zeros((), dtype=x.dtype, device=x.device), inf)
    step = _C.nextafter(x, _C.copysign(inf, x)) - x
    return _C.where(x == 0, tiny, step, **({} if out is None else {"out": out}))


def _modf(x):
    """NumPy's modf: (fraction, integral part), both with x's sign, so -2.0
    gives (-0.0, -2.0) and an infinity (+-0.0, +-inf)."""
    x = _floating(x, "modf")
    whole = _C.trunc(x)
    fraction = _C.where(_C.isinf(x), 0.0, x - whole)
    return _C.copysign(fraction, x), whole


def _frexp(x):
    import torchlike
    return tuple(torchlike.frexp(_floating(x, "frexp")))


def _divide_by_zero(name):
    """NumPy's report of an integer division by zero, as np.errstate says."""
    mode = np.geterr()["divide"]
    if mode == "raise":
        raise FloatingPointError(f"divide by zero encountered in {name}")
    if mode != "ignore":
        warnings.warn(f"divide by zero encountered in {name}", RuntimeWarning, stacklevel=4)


def _floor_divide_half(a, b, out):
    """NumPy's float16 floor_divide by a tensor: the operands as float16,
    divided in float and rounded once.  torchlike's op rounds each step of a
    division by a float16 tensor to float16, as PyTorch's kernel does."""
    wide = [(x if isinstance(x, _C.Tensor) else _C.tensor(x, dtype=_C.float64))
            .to(_C.float16).to(_C.float32)
            for x in (a, b)]
    result = _C.floor_divide(*wide).to(_C.float16)
    if out is None:
        return result
    out.copy_(result)
    return out


def numpy_division(op):
    """op (floor_divide, remainder, fmod) with NumPy's rule for an integer
    zero divisor: 0 there, and a divide-by-zero warning.  torchlike's op
    raises PyTorch's ZeroDivisionError instead (on the host; it is the
    check that finds the zero, so the division runs only once otherwise)."""
    def call(a, b, out=None):
        if op is _C.floor_divide and isinstance(b, _C.Tensor) and \
                _C.result_type(a, b) == _C.float16:
            return _floor_divide_half(a, b, out)
        try:
            return op(a, b) if out is None else op(a, b, out=out)
        except RuntimeError as error:
            if str(error) != "ZeroDivisionError":
                raise
        zero = _C.eq(b, 0) if isinstance(b, _C.Tensor) else _C.tensor(True)
        # the zeros replaced by a one of b's own dtype (a bool False by True:
        # a weak 1 would make the divisor, and the result, int64)
        safe = _C.where(zero, _C.ones((), dtype=b.dtype, device=b.device), b) \
            if isinstance(b, _C.Tensor) else 1
        result = _C.where(zero, 0, op(a, safe))
        _divide_by_zero(op.__name__)
        if out is None:
            return result
        out.copy_(result)
        return out
    call.__name__ = call.__qualname__ = op.__name__
    return call


def numpy_bool_arithmetic(op):
    """op (floor_divide, remainder, fmod, power, the shifts) with NumPy's rule
    for bool operands: two bools compute as int8, NumPy's smallest integer
    loop (PyTorch refuses floor_divide of bools and keeps pow's bool)."""
    def call(a, b, out=None):
        # (spelled out: a generator over (a, b) cost 0.3 us of every call)
        if (isinstance(a, bool) or isinstance(a, _C.Tensor) and a.dtype is _C.bool) and \
                (isinstance(b, bool) or isinstance(b, _C.Tensor) and b.dtype is _C.bool):
            a, b = (x.to(_C.int8) if isinstance(x, _C.Tensor) else int(x) for x in (a, b))
        return op(a, b) if out is None else op(a, b, out=out)
    call.__name__ = call.__qualname__ = op.__name__
    return call


# NumPy's comparisons, which take a Python int of any size exactly (NEP 50)
_COMPARISONS = frozenset(["equal", "not_equal", "less", "less_equal", "greater",
                          "greater_equal"])


def numpy_python_ints(ufunc, inputs, dtype=None, casting=None):
    """inputs with each Python int past int64 -- which the core ops refuse,
    and NumPy 2 answers by NEP 50 -- made what NumPy's loop computes with:
    NumPy is asked on empty arrays of the tensors' dtypes whether it takes
    the int (an integer array's arithmetic, a bool array, a logical op or one
    past float64's range refuse it: the same exception here); an integer
    array compared with one out of its range gives the exact answer (the int
    becomes an infinity of its sign), and a float loop takes it as a float.
    Ints of uint64's upper half stay as they are (a uint64 array's own).
    With ``dtype=`` (the loop NumPy runs), a float or complex one takes the
    int as a float; ``casting=`` goes to the probe with it."""
    dtypes = [x.dtype for x in inputs if isinstance(x, _C.Tensor)]
    if not dtypes:
        return inputs
    loop = None if dtype is None else tl_dtype(dtype)
    if loop is not None and (loop.is_floating_point or loop.is_complex):
        return tuple(float(x) if type(x) is int and not -2 ** 63 <= x < 2 ** 64 else x
                     for x in inputs)
    probe = [np.empty(0, np_dtype(x)) if isinstance(x, _C.Tensor) else x for x in inputs]
    try:
        with np.errstate(all="ignore"), warnings.catch_warnings():
            warnings.simplefilter("ignore")
            ufunc(*probe, **({} if loop is None else {"dtype": np_dtype(loop)}),
                  **({} if casting is None else {"casting": casting}))
    except OverflowError:
        big = next(x for x in inputs if type(x) is int and not -2 ** 63 <= x < 2 ** 63)
        names = ", ".join(str(d).rsplit(".", 1)[-1] for d in dtypes)
        raise OverflowError(f"numpy.{ufunc.__name__}: Python integer {big} is out of bounds "
                            f"for the loop its array operand selects (dtype {names}; NEP 50)"
                            ) from None
    if ufunc.__name__ in _NUMPY_ANSWERED:
        # the namespace's function picks NumPy's loop itself and casts the
        # int into it (as a float, the loop's dtype would be lost:
        # nextafter(int16, 2**70) is float32, not float64)
        return inputs
    exact = ufunc.__name__ in _COMPARISONS and \
        not any(d.is_floating_point or d.is_complex for d in dtypes)
    # the ints the core takes as they are: any but a comparison's past int64
    # (int64's own 2**63 - 1 == 2**63 would be compared in floats) up to
    # uint64's range, and those a uint64 array compares exactly
    top = 2 ** 64 if not exact or _C.uint64 in dtypes else 2 ** 63
    return tuple(
        x if type(x) is not int or -2 ** 63 <= x < top else
        float("inf") * (1 if x > 0 else -1) if exact else float(x) for x in inputs)


def _bools_as_int8(op):
    """``op`` of NumPy's ufunc whose loop for a bool array is int8's (square,
    conjugate; the op, PyTorch's, keeps bool)."""
    def call(x, out=None):
        if x.dtype is _C.bool:
            x = x.to(_C.int8)
        return op(x) if out is None else op(x, out=out)
    call.__name__ = call.__qualname__ = op.__name__
    return call


numpy_square = _bools_as_int8(_C.square)
_numpy_conjugate = _bools_as_int8(_C.conj_physical)


def numpy_reciprocal(x, out=None):
    """NumPy's reciprocal: an integer array stays integer (1 / x truncated,
    bool as int8), a zero a divide-by-zero warning and the cast of inf, as
    NumPy's loop gives; floats and complex numbers are torchlike's op (whose
    integer form, PyTorch's, gives floats)."""
    if x.is_floating_point() or x.is_complex():
        return _C.reciprocal(x) if out is None else _C.reciprocal(x, out=out)
    wide = x.to(_C.float64)
    if bool(_C.eq(wide, 0).any()):
        _divide_by_zero("reciprocal")
    result = _C.reciprocal(wide).to(_C.int8 if x.dtype is _C.bool else x.dtype)
    if out is None:
        return result
    out.copy_(result)
    return out


def _bitwise_count(x, out=None):
    """NumPy's bitwise_count: the 1 bits of |x|, as uint8 (a shift and mask
    per bit of the dtype, on x's device)."""
    if x.is_floating_point() or x.is_complex():
        raise TypeError(f"numpy.bitwise_count: ufunc 'bitwise_count' not supported for the "
                        f"input types ({x.dtype})")
    x = x.to(_C.uint8) if x.dtype is _C.bool else x
    magnitude = x if x.dtype in (_C.uint8, _C.uint16, _C.uint32, _C.uint64) else _C.abs(x)
    count = _C.zeros(tuple(x.shape), dtype=_C.uint8, device=x.device)
    for k in range(x.element_size() * 8):
        count = count + _C.bitwise_and(_C.bitwise_right_shift(magnitude, k), 1).to(_C.uint8)
    if out is None:
        return count
    out.copy_(count)
    return out


# Ufuncs answered by a composition of ops rather than one op of their name.
_COMPOSITES = {
    "bitwise_count": _bitwise_count,
    "spacing": _spacing, "reciprocal": numpy_reciprocal,
    "floor_divide": numpy_bool_arithmetic(numpy_division(_C.floor_divide)),
    "remainder": numpy_bool_arithmetic(numpy_division(_C.remainder)),
    "fmod": numpy_bool_arithmetic(numpy_division(_C.fmod)),
    "power": numpy_bool_arithmetic(_C.pow),
    "left_shift": numpy_bool_arithmetic(_C.bitwise_left_shift),
    "right_shift": numpy_bool_arithmetic(_C.bitwise_right_shift)}
# Two-output ufuncs: a function giving both results.
_PAIRS = {"divmod": lambda a, b: (_COMPOSITES["floor_divide"](a, b),
                                  _COMPOSITES["remainder"](a, b)),
          "modf": _modf, "frexp": _frexp}


_PYTHON_NUMBERS = (int, float, complex)
_LOOPS = {}  # (ufunc, operand dtypes or Python number types) -> NumPy's loop for them


def loop_inputs(ufunc, inputs, signature=None):
    """The tensor operands cast to the dtypes of the loop NumPy picks for them
    from the ufunc's list (ufunc.resolve_dtypes, with ``signature=`` when
    given); Python numbers stay weak, in the loop's dtype beside them."""
    try:
        kinds = tuple(type(x) if type(x) in _PYTHON_NUMBERS else np.dtype(np_dtype(x.dtype))
                      for x in inputs)
    except (AttributeError, TypeError):
        return inputs
    key = (ufunc, kinds) if signature is None else None
    loop = _LOOPS.get(key)
    if loop is None:
        try:
            loop = ufunc.resolve_dtypes(kinds + (None,) * ufunc.nout,
                                        **({} if signature is None else {"signature": signature}))
        except (TypeError, ValueError) as error:
            if signature is not None:
                raise TypeError(f"numpy.{ufunc.__name__}: no loop for signature "
                                f"{signature!r}: {error}") from None
            loop = ()  # no loop: the op's own error says so
        if key is not None:
            _LOOPS[key] = loop
    return [x.to(tl_dtype(d)) if isinstance(x, _C.Tensor) and np_dtype(x.dtype) != d else x
            for x, d in zip(inputs, loop or [None] * len(inputs))]


_SPECIAL_CALLS = {}  # scipy.special ufunc -> its op, taking out= as a ufunc call does


def _with_out(ufunc, op):
    """A scipy.special op as the ufunc call (and the C fast path) hands it
    its operands: computed in the loop SciPy runs for float data and Python
    numbers (SciPy lists some ufuncs' float64 loop first -- xlogy, xlog1py,
    gammainc(c), beta(ln), yn -- so float32 data beside a Python number runs
    and returns float64, and float16 data, which has no loop, float64;
    integer data takes the default float, as the float ops do), the result
    written into a tensor out= (the ops take none), or PyTorch's refusal of
    out= when an input requires grad."""
    name = ufunc.__name__

    def call(*inputs, out=None):
        if all(type(x) in _PYTHON_NUMBERS or isinstance(x, _C.Tensor) and
               (x.is_floating_point() or x.is_complex()) for x in inputs):
            inputs = loop_inputs(ufunc, inputs)
        if out is None:
            return op(*inputs)
        if _recorded(inputs):
            raise RuntimeError(f"{name}(): functions with out=... arguments don't support "
                               f"automatic differentiation, but one of the arguments "
                               f"requires grad.")
        write_where(out, op(*inputs), None)
        return out
    call.__name__ = call.__qualname__ = name
    call.may_decline = getattr(op, "may_decline", False)
    return call


def _op_for(ufunc):
    if ufunc.__name__ in _COMPOSITES:
        return _COMPOSITES[ufunc.__name__]
    if is_special(ufunc):  # scipy.special: only the ones _special.py implements
        op = _SPECIAL_CALLS.get(ufunc)
        if op is None and special_op(ufunc) is not None:
            op = _SPECIAL_CALLS[ufunc] = _with_out(ufunc, special_op(ufunc))
        return op
    if ufunc is np.square:  # a bool operand's loop is int8 (the C fast path may call it)
        return numpy_square
    if ufunc is np.conjugate:
        return _numpy_conjugate
    if ufunc.__name__ in _COMPLEX_ORDERED:
        return _complex_ordered(ufunc.__name__)
    if ufunc.__name__ in _NUMPY_ANSWERED:
        import torchlike.numpy
        return getattr(torchlike.numpy, ufunc.__name__, None)
    name = _RENAMED.get(ufunc.__name__, ufunc.__name__)
    # the package, loaded by now: an import statement here cost 1 us per call
    return getattr(sys.modules["torchlike"], name, None)


_ORDERED_CALLS = {}


def _complex_ordered(name):
    """The op of a comparison or extremum (the C fast path may call it), and
    for the complex operands it refuses, NumPy's order of complex numbers
    (by real, then imaginary part): the namespace's function.  The op's
    refusal comes before it writes anything, and a try costs nothing."""
    call = _ORDERED_CALLS.get(name)
    if call is not None:
        return call
    from .numpy._elementwise import _DIRECT, numpy_tie
    ordered = _DIRECT[name][0]
    op = getattr(_C, _RENAMED.get(name, name)) if name not in _OP_NAMES else _OP_NAMES[name]
    if name in ("maximum", "minimum"):  # a tie of 0.0 and -0.0 as NumPy's loops answer it
        op = numpy_tie(op)

    def call(x1, x2, out=None):
        try:
            return op(x1, x2) if out is None else op(x1, x2, out=out)
        except _C.DtypeError:
            return ordered(x1, x2) if out is None else ordered(x1, x2, out=out)
    call.__name__ = call.__qualname__ = op.__name__
    _ORDERED_CALLS[name] = call
    return call


def _is_default(kwargs):
    """Whether the ufunc keywords given are all NumPy's defaults; an array
    given (``where=mask``) is not, and is never compared elementwise, and a
    keyword of no default here (a gufunc's ``keepdims=``) is not either, so
    the call goes on to NumPy rather than dropping it."""
    if set(kwargs) - set(_DEFAULTS):
        return False
    for key, default in _DEFAULTS.items():
        given = kwargs.get(key, default)
        if given is not default and not (isinstance(given, (str, bool, np.bool_))
                                         and given == default):
            return False
    return True


def _single_out(out):
    if out is None:
        return None
    if len(out) != 1:
        return False
    target = out[0]
    if isinstance(target, np.ndarray):
        target = _C.from_numpy(target)  # written in place, zero-copy
    return target


def write_where(target, result, mask):
    """result written into target where mask (None: everywhere) holds, as a
    ufunc's out=/where= write it: cast to target's dtype before the select,
    which would otherwise promote the two (uint64 with int16 is float)."""
    target.copy_(result if mask is None else _C.where(mask, result.to(target.dtype), target))


def _call_pair(ufunc, inputs, kwargs):
    """divmod, modf, frexp: both results computed, then written into out=
    (a pair of tensors, or of ndarrays on the host) where where= allows."""
    fn = _PAIRS.get(ufunc.__name__)
    given_out = kwargs.pop("out", None)
    where = kwargs.pop("where", True)
    if fn is None or not _is_default(kwargs) or kwargs.get("dtype") is not None or \
            (given_out is not None and len(given_out) != 2):
        return NotImplemented
    results = fn(*inputs)
    if given_out is None and where is True:
        return results
    mask = None if where is True else where if isinstance(where, _C.Tensor) else as_tensor(where)
    given_out = (None, None) if given_out is None else given_out
    for target in given_out:
        if not (target is None or isinstance(target, (_C.Tensor, np.ndarray))):
            raise TypeError(f"{ufunc.__name__}: return arrays must be tensors or ndarrays, "
                            f"not {type(target).__name__}")
    outs = []
    for target, result in zip(given_out, results):
        if target is None:  # one NumPy would allocate: the result itself
            outs.append(result)
            continue
        refuse_host_out(result, target, f"numpy.{ufunc.__name__}")
        view = _C.from_numpy(target) if isinstance(target, np.ndarray) else target
        write_where(view, result, mask)
        outs.append(target)
    return tuple(outs)


# Ufuncs whose torchlike op is several times slower than NumPy's SIMD loop
# (glibc's scalar cbrt; frexp's two passes): on host tensors outside autograd
# NumPy runs them on zero-copy views; on a device, or recorded, the op does.
_HOST_FASTER = {"cbrt", "frexp"}


def _host_plain(inputs):
    return all(not isinstance(x, _C.Tensor) or (x.device.type == "cpu" and not x.requires_grad)
               for x in inputs)


def _core_dims(signature):
    """The core dimensions' names of each operand of a gufunc signature,
    '(n?,k),(k,m?)->(n?,m?)': [['n?', 'k'], ['k', 'm?'], ['n?', 'm?']]."""
    groups = re.findall(r"\(([^)]*)\)", signature)
    return [[d.strip() for d in g.split(",") if d.strip()] for g in groups]


def _core_axes_call(ufunc, inputs, kwargs):
    """A gufunc (matmul, vecdot, matvec, vecmat) with NumPy's ``axes=`` or
    ``axis=``: each operand's core axes moved last, the call, and the
    output's moved where ``axes`` puts them.  Both keywords were dropped
    before, silently (np.matmul(a, b, axes=...) was a @ b)."""
    axes, axis = kwargs.pop("axes", None), kwargs.pop("axis", None)
    core = _core_dims(ufunc.signature)
    operands = [as_tensor(x) if isinstance(x, (np.ndarray, np.generic)) else x for x in inputs]
    if kwargs.get("out") is not None or kwargs.get("keepdims") or \
            not all(isinstance(x, _C.Tensor) for x in operands) or \
            any(d.endswith("?") and x.ndim < len(c)
                for x, c in zip(operands, core) for d in c):
        return NotImplemented  # NumPy's own loop (or its refusal)
    if axis is not None:
        if axes is not None:
            raise TypeError("cannot specify both 'axis' and 'axes'")
        if any(len(c) > 1 for c in core):
            raise TypeError(f"{ufunc.__name__}: axis can only be used with a single shared "
                            f"core dimension, not with the {ufunc.signature} signature")
        axes = [(axis,) if c else () for c in core]
    axes = [tuple(a) if isinstance(a, (tuple, list)) else (a,) for a in axes]
    if len(axes) == len(core) - 1 and not core[-1]:
        axes.append(())  # an output without core dimensions may be left out
    if len(axes) != len(core) or any(len(a) != len(c) for a, c in zip(axes, core)):
        raise ValueError(f"{ufunc.__name__}: axes {axes} do not match the core dimensions of "
                         f"the signature {ufunc.signature}")
    moved = [_C.movedim(x, tuple(a), tuple(range(-len(a), 0))) if a else x
             for x, a in zip(operands, axes)]
    result = _call(ufunc, moved, kwargs)
    out_axes = axes[ufunc.nin]
    if result is NotImplemented or not out_axes:
        return result
    return _C.movedim(result, tuple(range(-len(out_axes), 0)), out_axes)


def out_shape_operands(operands, out, where=None):
    """The operands broadcast to ``out``'s shape when it is larger than
    theirs (``out_broadcast``, which checks a where= mask's fit too)."""
    out = out[0] if isinstance(out, tuple) and len(out) == 1 else out
    if not isinstance(out, _C.Tensor):
        return operands
    target = out.shape
    if out_broadcast(operands, target, where) is None:
        return operands
    return tuple(x.expand(target) if isinstance(x, _C.Tensor) else
                 np.broadcast_to(x, target) if isinstance(x, np.ndarray) else x
                 for x in operands)


def _signature_call(ufunc, inputs, signature, given_out, where, kwargs):
    """A call with ``signature=``: NumPy's own loop.  NumPy is asked on empty
    arrays of the operands' dtypes (a Python bool is a bool array, other
    Python numbers weak, as in the call) whether it takes them, and out=,
    under ``casting=`` (its exception is the answer: a float into an
    integer loop, a Python int past the loop's range); then every operand,
    Python numbers too, is cast to the loop's dtype, the op runs, and its
    result is the loop's output dtype (the op's own promotion, a bool's
    square, does not decide it)."""
    casting = kwargs.get("casting", "same_kind")
    out = _single_out(given_out)
    tensors = [x for x in inputs if isinstance(x, _C.Tensor)]
    try:
        probe = [x if type(x) in (bool,) + _PYTHON_NUMBERS else np.empty(0, np_dtype(x.dtype))
                 for x in inputs]
        extra = {} if out is None or out is False else {"out": np.empty(0, np_dtype(out.dtype))}
    except (AttributeError, TypeError):  # bfloat16, a masked array: NumPy's own call
        return NotImplemented
    with np.errstate(all="ignore"), warnings.catch_warnings():
        warnings.simplefilter("ignore")
        ufunc(*probe, signature=signature, casting=casting, **extra)
        loop = ufunc.resolve_dtypes(
            tuple(np.dtype(bool) if type(x) is bool else type(x) if type(x) in _PYTHON_NUMBERS
                  else np.dtype(np_dtype(x.dtype)) for x in inputs) + (None,) * ufunc.nout,
            signature=signature, casting=casting)
    if ufunc.__name__ in _COMPARISONS:
        for x, d in zip(inputs, loop):
            if type(x) is int and d.kind in "iu" and \
                    not np.iinfo(d).min <= x <= np.iinfo(d).max:
                # NumPy compares a Python int past the loop's range exactly
                # (NEP 50), as the call without signature= does
                return _call(ufunc, inputs, dict(kwargs, out=given_out, where=where))
    device = tensors[0].device if tensors else None
    cast = []
    for x, d in zip(inputs, loop):
        if isinstance(x, _C.Tensor):
            cast.append(x if np_dtype(x.dtype) == d else x.to(tl_dtype(d)))
        else:  # a number in the loop's dtype, as NumPy converts it
            with np.errstate(all="ignore"), warnings.catch_warnings():
                warnings.simplefilter("ignore")
                value = np.array(x).astype(d, casting="unsafe")
            number = as_tensor(value)
            cast.append(number if device is None else number.to(device))
    result = _call(ufunc, cast, dict(kwargs, casting="same_kind"))
    if result is NotImplemented:
        return NotImplemented
    want = tl_dtype(loop[ufunc.nin])
    if result.dtype != want:
        result = result.to(want)
    if out is None:
        return result
    if out is False:
        return NotImplemented
    if ufunc.signature:  # out's core dims, then its loop dims (the cast was NumPy's probe's)
        refuse_host_out(result, given_out[0], f"numpy.{ufunc.__name__}")
        finish_gufunc(result, out, ufunc.__name__, ufunc.signature,
                      _core_count(ufunc.signature), casting="unsafe")
        return given_out[0]
    mask = None if where is True else where if isinstance(where, _C.Tensor) else \
        as_tensor(where)
    broadcast_into(tuple(result.shape), tuple(out.shape), inputs, mask)
    refuse_host_out(result, given_out[0], f"numpy.{ufunc.__name__}")
    write_where(out, result.expand(tuple(out.shape)), mask)
    return given_out[0]


def _call(ufunc, inputs, kwargs):
    if ufunc.__name__ in _HOST_FASTER and _host_plain(inputs):
        return NotImplemented
    if any(type(x) is int and not -2 ** 63 <= x < 2 ** 63 for x in inputs) and \
            kwargs.get("signature") is None:  # (with one, NumPy's own probe decides)
        inputs = numpy_python_ints(ufunc, inputs, kwargs.get("dtype"), kwargs.get("casting"))
    if ufunc.__name__ in _REAL_ONLY and kwargs.get("dtype") is None and \
            kwargs.get("signature") is None:  # (those cast first)
        for x in inputs:
            if isinstance(x, _C.Tensor):
                refuse_complex(ufunc.__name__, x)
    if ufunc.nout == 2:
        return _call_pair(ufunc, inputs, kwargs)
    if ufunc.signature and ("axes" in kwargs or "axis" in kwargs):
        return _core_axes_call(ufunc, inputs, kwargs)
    op = _op_for(ufunc)
    given_out = kwargs.pop("out", None)
    out = _single_out(given_out)
    dtype = kwargs.pop("dtype", None)
    where = kwargs.pop("where", True)
    signature = kwargs.pop("signature", kwargs.pop("sig", None))
    if signature is not None:  # the loop NumPy runs: the operands cast to its dtypes
        if dtype is not None:
            raise TypeError("cannot specify both 'signature' and 'dtype'")
        return _signature_call(ufunc, inputs, signature, given_out, where, kwargs)
    if dtype is not None and len(inputs) == ufunc.nin:
        from .numpy._elementwise import _check_ufunc_dtype, _loop_inputs
        loop = _check_ufunc_dtype(ufunc, inputs, dtype, kwargs.get("casting", "same_kind"))
        if loop is not None:
            # NumPy's loop gives dtype= as its output only (np.equal(x, y,
            # dtype=bool)): the inputs keep their dtypes (or take the loop's),
            # not cast to it
            want = tl_dtype(dtype)
            result = _call(ufunc, _loop_inputs(inputs, loop),
                           dict(kwargs, out=given_out, where=where))
            return result if result is NotImplemented or given_out is not None or \
                result.dtype == want else result.to(want)
    unsafe = kwargs.get("casting") == "unsafe"
    if kwargs.get("casting") == "unsafe" and (out is None or dtype is not None):
        # dtype= with any cast allowed: the inputs' .to(dtype) is that cast
        # (NumPy's histogram subtracts so), as is out='s copy_ below
        kwargs["casting"] = "same_kind"
    if unsafe and out is not None and out is not False and ufunc.signature and \
            _is_default(dict(kwargs, casting="same_kind")) and where is True:
        # a gufunc sizes its out= itself (matmul's optional core dims: a 1-d
        # out of a 2-d product drops n, which a result computed without out
        # cannot tell) and its copy into out takes any cast
        if dtype is not None:
            inputs = [as_tensor(x).to(tl_dtype(dtype)) for x in inputs]
        op(*inputs, out=given_out, casting="unsafe")
        return given_out[0]
    if unsafe and out is not None and out is not False:
        # any cast allowed: the result as computed, written with out's dtype
        # (copy_ casts), so device tensors need no host round trip; dtype=
        # still takes the inputs under "unsafe"
        result = _call(ufunc, inputs, dict(kwargs, casting="unsafe" if dtype is not None
                                           else "same_kind", dtype=dtype))
        if result is NotImplemented:
            return NotImplemented
        refuse_host_out(result, given_out[0], f"numpy.{ufunc.__name__}")
        mask = None if where is True else where if isinstance(where, _C.Tensor) else \
            as_tensor(where)
        if ufunc.signature:  # out's core dims, then its loop dims (NumPy's words)
            finish_gufunc(result, out, ufunc.__name__, ufunc.signature,
                          _core_count(ufunc.signature), casting="unsafe")
            return given_out[0]
        broadcast_into(tuple(result.shape), tuple(out.shape), inputs, mask)
        write_where(out, result, mask)
        return given_out[0]
    if op is None or out is False or ufunc.nout != 1 or not _is_default(kwargs):
        return NotImplemented
    if where is not True:
        # NumPy keeps out's values where the mask is False (and leaves them
        # undefined without out=): compute everywhere, then select.
        result = _call(ufunc, inputs, dict(kwargs, dtype=dtype,
                                           **({"casting": "unsafe"} if unsafe else {})))
        if result is NotImplemented:
            return NotImplemented
        if out is None:
            return result
        refuse_host_out(result, given_out[0], f"numpy.{ufunc.__name__}")
        if not unsafe:  # (the op's own out= check, which the select below bypasses)
            check_out_cast(ufunc.__name__, result.dtype, out)
        mask = where if isinstance(where, _C.Tensor) else as_tensor(where)
        broadcast_into(tuple(result.shape), tuple(out.shape), inputs, mask)
        write_where(out, result, mask)
        return given_out[0]
    if dtype is not None:
        if isinstance(dtype, str):  # "float32": .to() would read a str as a device
            dtype = tl_dtype(dtype)
        inputs = [x.to(dtype) if isinstance(x, _C.Tensor) else as_tensor(x).to(dtype)
                  for x in inputs]
    # (after the cast: np.sign(int_array, dtype=complex64) is the complex loop)
    if ufunc.__name__ == "sign" and any(getattr(x, "is_complex", lambda: False)() for x in inputs):
        op = _numpy_complex_sign  # NumPy 2's sign of a complex number is z/|z|
    if dtype is None and not kwargs and op is not _numpy_complex_sign and \
            ufunc.__name__ not in _COMPOSITES and not getattr(op, "may_decline", False):
        # the C fast path may answer this ufunc (and out=tensor) from now on;
        # sign's op refuses complex numbers, which a later call may bring
        _FAST[ufunc] = _numpy_sign if op is _C.sign else op
    if out is None:
        return op(*inputs)
    if isinstance(given_out[0], np.ndarray) and _C.is_grad_enabled() and \
            any(getattr(x, "requires_grad", False) for x in inputs):
        refuse_host_out(inputs[0] if getattr(inputs[0], "requires_grad", False) else inputs[-1],
                        given_out[0], f"numpy.{ufunc.__name__}")
    # (a gufunc's function broadcasts its loop dims to out's itself: finish_gufunc)
    try:
        operands = inputs if ufunc.signature else out_shape_operands(inputs, out)
    except ValueError:  # NumPy refuses out's dtype before its shape
        _raise_out_refusal(op, ufunc, inputs, out)
        raise
    try:
        op(*operands, out=out)
    except TypeError:  # the op's own out= dtype check: NumPy's words for it
        _raise_out_refusal(op, ufunc, inputs, out)
        raise
    return given_out[0]  # NumPy hands back the caller's own out object


def _core_count(signature):
    """The number of core dims of a gufunc's output: 2 for "(n,k),(k,m)->(n,m)"."""
    core = signature.split("->")[1].strip("()")
    return len(core.split(",")) if core else 0


def _raise_out_refusal(op, ufunc, inputs, out):
    """NumPy's TypeError when op's result cannot be cast into out's dtype."""
    from .numpy._elementwise import _out_refusal
    refusal = _out_refusal(op, ufunc, inputs, {}, "same_kind", out)
    if refusal:
        raise TypeError(refusal) from None


_LN2 = 0.6931471805599453


def _logsumexp2(x, axis, keepdim=False):
    return _C.logsumexp(x * _LN2, axis, keepdim=keepdim) / _LN2


def _hypot_reduce(x, axis, keepdim=False):
    import torchlike
    return torchlike.linalg.vector_norm(x, 2, dim=axis, keepdim=keepdim)


# reductions written with ops, for ufuncs NumPy reduces but no NumPy function
# names: (op(x, axes, keepdim=), the ufunc itself as an op to fold in initial=,
# the identity where= fills in)
_OP_REDUCTIONS = {
    "logaddexp": (lambda x, axis, keepdim=False: _C.logsumexp(x, axis, keepdim=keepdim),
                  _C.logaddexp, float("-inf")),
    "logaddexp2": (_logsumexp2, _C.logaddexp2, float("-inf")),
    "hypot": (_hypot_reduce, _C.hypot, 0.0),
}


def _ufunc_reduction(ufunc):
    """fn(x, axis, keepdims, initial, where, dtype, out) computing ufunc.reduce,
    or None.  The ufuncs that are NumPy reductions run torchlike.numpy's
    function (so where=, initial=, out= and dtype= mean what they mean there)."""
    name = ufunc.__name__
    if name in _REDUCTIONS:
        from ._array_function import TABLE
        if not TABLE:
            import torchlike.numpy  # noqa: F401  (fills TABLE)
        func = TABLE[_REDUCTIONS[name]]
        takes_dtype = name in ("add", "multiply")
        casts_to_dtype = name in ("maximum", "minimum")

        def reduce(x, axis, keepdims, initial, where, dtype, out):
            kw = {"keepdims": keepdims, "where": where, "out": out}
            if initial is not None:
                kw["initial"] = initial
            if dtype is not None:
                if casts_to_dtype and not (x.is_complex() and not tl_dtype(dtype).is_complex):
                    # NumPy's loop is dtype's: the data cast to it first, unsafely
                    # as a reduction casts (max of 7.5 as int64 is 7)
                    x = x.to(tl_dtype(dtype))
                elif not takes_dtype:
                    raise NotImplementedError
                else:
                    kw["dtype"] = dtype
            return func(x, axis, **kw)
        return reduce
    if name in _OP_REDUCTIONS:
        op, combine, identity = _OP_REDUCTIONS[name]

        def reduce(x, axis, keepdims, initial, where, dtype, out):
            if dtype is not None and tl_dtype(dtype).is_floating_point:
                x = x.to(tl_dtype(dtype))  # NumPy's loop of that dtype, the data cast first
            elif dtype is not None or not x.is_floating_point():
                raise NotImplementedError
            if where is not True and where is not None:
                mask = where if isinstance(where, _C.Tensor) else as_tensor(where)
                x = _C.where(mask.to(_C.bool).broadcast_to(tuple(x.shape)), x,
                             _C.full((), identity, dtype=x.dtype, device=x.device))
            axes = tuple(range(x.ndim)) if axis is None else \
                (axis,) if isinstance(axis, int) else tuple(axis)
            # axis=() reduces over nothing: each element alone (the ops would
            # read an empty dim list as every dim)
            result = op(x, axes, keepdim=keepdims) if axes else x.clone()
            if initial is not None:
                result = combine(result, _C.full((), initial, dtype=result.dtype,
                                                 device=result.device))
            return finish(result, out)
        return reduce
    if name in _FOLDS:
        return _fold_reduction(ufunc, name)
    return None


# associative ufuncs with no torchlike reduction, reduced by folding halves
# (log2(n) elementwise ops on the tensor's device): name -> NumPy's identity
# ("ones": all bits set; None: none, an empty reduction raises)
_FOLDS = {"bitwise_and": "ones", "bitwise_or": 0, "bitwise_xor": 0, "gcd": 0, "lcm": None,
          "logical_xor": False, "fmax": None, "fmin": None,
          "equal": None,  # of bools only: XNOR, associative (of numbers it is not)
          # x0 - x1 - x2 ... is x0 - (x1 + x2 ...), x0 / x1 / x2 ... is x0 / (x1 * x2 ...)
          "subtract": None, "divide": None}
_REST = {"subtract": "add", "divide": "mul"}
_UNORDERED = {"lcm", "subtract", "divide"}  # NumPy reduces them over one axis only


def _fold_reduction(ufunc, name):
    def reduce(x, axis, keepdims, initial, where, dtype, out):
        if dtype is not None or out is not None or where is not True or x.ndim == 0 or \
                (initial is not None and name in _REST) or \
                (name == "equal" and x.dtype != _C.bool):
            raise NotImplementedError  # NumPy's own loop (and its errors) on the host
        if axis is None and x.ndim > 1 and name in _UNORDERED:
            raise ValueError(f"reduction operation '{name}' is not reorderable, so at most "
                             f"one axis may be specified")
        if axis is None:
            y, dim = x.reshape(-1), 0
        elif isinstance(axis, int) or len(axis) == 1:
            dim = norm_axis(axis if isinstance(axis, int) else axis[0], x.ndim)
            y = x
        else:
            raise NotImplementedError
        y = y.movedim(dim, -1)
        if name == "logical_xor":
            y = y.to(_C.bool) if y.dtype != _C.bool else y
        elif name == "divide" and not (y.is_floating_point() or y.is_complex()):
            y = y.to(_C.float64)
        identity = _FOLDS[name]
        if y.shape[-1] == 0:
            if identity is None and initial is None:
                raise ValueError(f"zero-size array to reduction operation {name} which has "
                                 f"no identity")
            zeros = _C.zeros(tuple(y.shape[:-1]) + (1,), dtype=y.dtype, device=y.device)
            if initial is not None:  # the initial value alone
                y, initial = _C.full_like(zeros, initial), None
            else:
                y = _C.bitwise_not(zeros) if identity == "ones" else zeros
        if name in _REST:
            first, y = y[..., 0], y[..., 1:]
            op = getattr(_C, _REST[name])
        else:
            op = _op_for(ufunc)
        while y.shape[-1] > 1:
            n = y.shape[-1]
            half = op(y[..., :n // 2], y[..., n // 2:2 * (n // 2)])
            y = _C.cat([half, y[..., 2 * (n // 2):]], -1) if n % 2 else half
        if name in _REST:
            result = first if y.shape[-1] == 0 else _op_for(ufunc)(first, y[..., 0])
        else:
            result = y[..., 0]
        if initial is not None:
            result = _op_for(ufunc)(result, _C.full((), initial, dtype=result.dtype,
                                                   device=result.device))
        if keepdims:
            result = result.reshape(tuple(1 if axis is None or i == dim else n
                                          for i, n in enumerate(x.shape)))
        return result
    return reduce


def _cummax(x, axis):
    return _C.cummax(x, axis)[0]


def _cummin(x, axis):
    return _C.cummin(x, axis)[0]


def _logcumsumexp(x, axis):
    from ._composites import logcumsumexp
    return logcumsumexp(x, axis)


def _logcumsumexp2(x, axis):
    return _logcumsumexp(x * _LN2, axis) / _LN2


def _first_then(x, axis, scan, combine):
    """x0, then x0 combined with the scan of x1 .. xk: subtract's and
    divide's accumulations (x0 - x1 - ... is x0 - (x1 + ...))."""
    n = x.shape[axis]
    if n < 2:
        return x.clone()
    first = x.narrow(axis, 0, 1)
    return _C.cat([first, combine(first, scan(x.narrow(axis, 1, n - 1), axis, dtype=x.dtype))],
                  axis)


def _subtract_scan(x, axis):
    return _first_then(x, axis, _C.cumsum, _C.sub)


def _divide_scan(x, axis):
    x = x if x.is_floating_point() or x.is_complex() else x.to(_C.float64)
    return _first_then(x, axis, _C.cumprod, _C.div)


def _nan_ignoring_scan(scan, fill):
    """fmax's and fmin's running value: NaN only while every element so far
    is NaN (the NaNs replaced by the scan's neutral infinity otherwise)."""
    def run(x, axis):
        if not (x.is_floating_point() or x.is_complex()):
            return scan(x, axis)
        nan = x.isnan()
        result = scan(_C.where(nan, _C.full((), fill, dtype=x.dtype, device=x.device), x), axis)
        return _C.where(_C.cummin(nan.to(_C.uint8), axis)[0].to(_C.bool), x, result)
    return run


def _logical_scan(scan):
    def run(x, axis):  # any/all so far: a running max/min of the truth values
        return scan(x.to(_C.bool).to(_C.uint8), axis).to(_C.bool)
    return run


def _doubling_scan(name, complex_order=False):
    """The running value of an associative ufunc with no torchlike scan: log2(n)
    steps, each combining every element with the one 2**k before it.  With
    ``complex_order``, the namespace's ufunc, which orders complex numbers as
    NumPy does (real part, then imaginary part; cummax has no such order)."""
    def run(x, axis):
        if complex_order:
            import torchlike.numpy
            op = getattr(torchlike.numpy, name)
        else:
            op = getattr(_C, name)
        y = x.to(_C.bool) if name == "logical_xor" else x
        n, shift = y.shape[axis], 1
        while shift < n:
            y = _C.cat([y.narrow(axis, 0, shift),
                        op(y.narrow(axis, shift, n - shift), y.narrow(axis, 0, n - shift))], axis)
            shift *= 2
        return y
    return run


# ufunc.accumulate -> scan(x, axis)
_OP_SCANS = {**{name: _doubling_scan(name) for name in
                ("bitwise_and", "bitwise_or", "bitwise_xor", "gcd", "lcm", "logical_xor")},
             "logical_or": _logical_scan(_cummax), "logical_and": _logical_scan(_cummin),
             "fmax": _nan_ignoring_scan(_cummax, float("-inf")),
             "fmin": _nan_ignoring_scan(_cummin, float("inf")),
             "maximum": _cummax, "minimum": _cummin, "logaddexp": _logcumsumexp,
             "logaddexp2": _logcumsumexp2, "subtract": _subtract_scan, "divide": _divide_scan}
# the extrema's running values of complex numbers
_COMPLEX_SCANS = {name: _doubling_scan(name, complex_order=True)
                  for name in ("maximum", "minimum", "fmax", "fmin")}


def _left_fold(ufunc, method, x, axis, keepdims):
    """ufunc.reduce/accumulate for the binary ufuncs that are neither NumPy
    reductions nor torchlike scans (power, remainder, floor_divide, hypot,
    left_shift, not_equal ...), on a device or on the tape: NumPy's left
    fold, one elementwise call per step along the axis.  On the host
    outside autograd NumPy's own loop runs (NotImplemented), as it does for
    a loop whose output is not its inputs' dtype, an empty axis, and
    several axes at once."""
    if ufunc.nin != 2 or ufunc.nout != 1 or not isinstance(x, _C.Tensor) or x.ndim == 0 or \
            not (x.device.type != "cpu" or _recorded((x,))):
        return NotImplemented
    try:  # NumPy folds with the loop of x's dtype, and only with one
        d = np.dtype(np_dtype(x.dtype))
        if any(t != d for t in ufunc.resolve_dtypes((d, d, None))):
            return NotImplemented
    except (TypeError, ValueError):
        return NotImplemented
    if axis is None:
        if x.ndim > 1:
            if method == "accumulate":
                raise ValueError("accumulate does not allow multiple axes")
            if ufunc.identity is None:  # (maximum and minimum, reorderable, are not here)
                raise ValueError(f"reduction operation '{ufunc.__name__}' is not reorderable, "
                                 f"so at most one axis may be specified")
            return NotImplemented
        axis = 0
    if not isinstance(axis, int):
        if len(axis) != 1:
            return NotImplemented
        axis = axis[0]
    axis = norm_axis(axis, x.ndim)
    y = x.movedim(axis, -1)
    if y.shape[-1] == 0:
        if method == "accumulate":
            return x.clone()
        if ufunc.identity is None:
            raise ValueError(f"zero-size array to reduction operation {ufunc.__name__} which "
                             f"has no identity")
        return NotImplemented
    steps = [y[..., 0]]
    for i in range(1, y.shape[-1]):
        step = _call(ufunc, (steps[-1], y[..., i]), {})
        if step is NotImplemented:  # (only in the first step: nothing returned yet)
            return NotImplemented
        steps.append(step)
    if method == "accumulate":
        return _C.stack(steps, -1).movedim(-1, axis)
    return steps[-1].unsqueeze(axis) if keepdims else steps[-1]


def _reduce(ufunc, method, inputs, kwargs):
    (x,) = inputs
    axis = kwargs.pop("axis", 0)
    keepdims = kwargs.pop("keepdims", False)
    dtype = kwargs.pop("dtype", None)
    given_out = kwargs.pop("out", None)
    if method == "reduce":
        reduce = _ufunc_reduction(ufunc)
        initial = kwargs.pop("initial", None)
        where = kwargs.pop("where", True)
        if reduce is None and given_out is None and initial is None and where is True and \
                _is_default(kwargs):
            x = as_tensor(x)  # dtype=: NumPy's loop of that dtype, the data cast first
            return _left_fold(ufunc, method, x if dtype is None else x.to(tl_dtype(dtype)),
                              axis, keepdims)
        if reduce is None or (given_out is not None and len(given_out) != 1) or \
                not _is_default(kwargs):
            return NotImplemented
        try:
            return reduce(as_tensor(x), axis, keepdims, initial, where, dtype,
                          None if given_out is None else given_out[0])
        except NotImplementedError:
            return NotImplemented
    out = _single_out(given_out)
    name = _SCANS.get(ufunc.__name__)
    if name is None and ufunc.__name__ not in _OP_SCANS and out is not False and \
            _is_default(kwargs):
        x = as_tensor(x)
        if dtype is not None:  # NumPy's loop of that dtype, the data cast first
            x = x.to(tl_dtype(dtype))
        result = _left_fold(ufunc, method, x, axis, False)
        if result is NotImplemented or out is None:
            return result
        refuse_host_out(result, given_out[0], f"numpy.{ufunc.__name__}.{method}")
        out.copy_(result)
        return given_out[0]
    if (name is None and ufunc.__name__ not in _OP_SCANS) or out is False or \
            not _is_default(kwargs):
        return NotImplemented
    x = as_tensor(x)
    if x.ndim == 0:
        raise TypeError("cannot accumulate on a scalar")
    # NumPy's AxisError, not the scan's IndexError
    x, axis = (x.reshape(-1), 0) if axis is None else (x, norm_axis(axis, x.ndim))
    if out is not None:
        check_accumulate_out(x.shape, out)
    if name is None:  # maximum, minimum, logaddexp: the scan keeps x's dtype
        if dtype is not None and ufunc.__name__ in ("maximum", "minimum") and \
                not (x.is_complex() and not tl_dtype(dtype).is_complex):
            # the loop is dtype's: the data cast first, as the reductions do
            x, dtype = x.to(tl_dtype(dtype)), None
        if dtype is not None or not x.is_floating_point() and ufunc.__name__.startswith("logaddexp"):
            return NotImplemented
        scans = _COMPLEX_SCANS if x.is_complex() and ufunc.__name__ in _COMPLEX_SCANS else \
            _OP_SCANS
        result = scans[ufunc.__name__](x, axis)
    else:
        fn = getattr(_C, name)
        if dtype is None:
            dtype = accumulator_dtype(x.dtype)
        result = fn(x, axis, dtype=dtype) if dtype is not None else fn(x, axis)
    if out is not None:
        refuse_host_out(result, given_out[0], f"numpy.{ufunc.__name__}.{method}")
        out.copy_(result)
        return given_out[0]
    return result


def _reduceat(ufunc, inputs, kwargs):
    """ufunc.reduceat(x, indices, axis): slice j reduces x[indices[j]:indices[j+1]]
    along axis (to the end for the last), or is x[indices[j]] when that range
    is empty -- NumPy's rule -- computed slice by slice and stacked."""
    reduce = _ufunc_reduction(ufunc)
    given_out = kwargs.get("out")
    out = _single_out(given_out)
    dtype = kwargs.get("dtype")
    if reduce is None or len(inputs) != 2 or set(kwargs) - {"axis", "dtype", "out"} or \
            out is False:
        return NotImplemented
    x = as_tensor(inputs[0])
    if x.ndim == 0:
        raise TypeError("cannot reduceat on a scalar")
    axis = norm_axis(kwargs.get("axis", 0), x.ndim)
    indices = [int(i) for i in np.asarray(inputs[1].detach().cpu() if isinstance(
        inputs[1], _C.Tensor) else inputs[1]).reshape(-1)]
    n = x.shape[axis]
    for i in indices:
        if not 0 <= i < n:
            raise IndexError(f"index {i} out-of-bounds in {ufunc.__name__}.reduceat [0, {n})")
    pieces = []
    for j, start in enumerate(indices):
        stop = indices[j + 1] if j + 1 < len(indices) else n
        if start < stop:
            try:
                piece = reduce(x.narrow(axis, start, stop - start), axis, True, None, True,
                               dtype, None)
            except NotImplementedError:  # a dtype= the reduction does not take
                return NotImplemented
        else:
            piece = x.narrow(axis, start, 1)
        pieces.append(piece)
    if not pieces:  # no indices: an empty result along axis, of x's dtype
        result = x.narrow(axis, 0, 0)
    else:
        if dtype is not None:  # dtype=: every piece in it, a lone element's too
            pieces = [p.to(tl_dtype(dtype)) for p in pieces]
        if len({p.dtype for p in pieces}) > 1:  # an empty range keeps x's dtype; a sum widens
            wide = next(p.dtype for p in pieces if p.dtype != x.dtype)
            pieces = [p.to(wide) for p in pieces]
        result = _C.cat(pieces, axis)
    if out is not None:
        refuse_host_out(result, given_out[0], f"numpy.{ufunc.__name__}.reduceat")
        if tuple(out.shape) != tuple(result.shape):
            raise ValueError(f"output shape {tuple(out.shape)} does not match the result's "
                             f"{tuple(result.shape)} in {ufunc.__name__}.reduceat")
        out.copy_(result)
        return given_out[0]
    return result


# ufunc.at(a, indices, b) for the ufuncs that are an accumulating index_put
_AT = {"add": 1, "subtract": -1}
# ... and for those that are a scatter reduction including a's own values
_REDUCE_AT = {"maximum": "amax", "minimum": "amin", "multiply": "prod"}


def _at(ufunc, inputs, kwargs):
    """ufunc.at(a, indices, b) on a tensor ``a``: an unbuffered accumulation
    (repeated indices add up, or take their maximum, minimum or product),
    recorded as an in-place index_put (a copy of the scatter reduction), so
    the gradient reaches ``b`` (and ``a``'s history)."""
    sign, reduce = _AT.get(ufunc.__name__), _REDUCE_AT.get(ufunc.__name__)
    if kwargs or len(inputs) != ufunc.nin + 1 or ufunc.nout != 1 or \
            not isinstance(inputs[0], _C.Tensor) or inputs[0].ndim == 0:
        return NotImplemented
    if sign is None and reduce is None:
        return _at_in_rounds(ufunc, *inputs)
    a, indices, b = inputs
    # the C-order position of every element NumPy's indexing picks, then its
    # coordinates: any index form NumPy's at takes, any layout of `a`
    positions = _C.arange(a.numel(), device=a.device).reshape(tuple(a.shape))[indices]
    values = as_tensor(b) if not isinstance(b, _C.Tensor) else b
    values = values.to(a.dtype) if values.dtype != a.dtype else values
    _check_at_values(values, positions)
    if reduce is not None:
        values = values.broadcast_to(tuple(positions.shape)).reshape(-1)
        # (a copy: the reduction keeps its input for the gradient, and a is written next)
        flat = a.reshape(-1).clone().scatter_reduce(0, positions.reshape(-1), values, reduce,
                                                    include_self=True)
        a.copy_(flat.reshape(tuple(a.shape)))
        return None
    values = (values if sign > 0 else -values).broadcast_to(tuple(positions.shape))
    rest, coords = positions.reshape(-1), []
    for size in reversed(tuple(a.shape)):
        coords.append(rest % size)
        rest = rest // size
    a.index_put_(tuple(reversed(coords)), values.reshape(-1), accumulate=True)
    return None


def _check_at_values(values, positions):
    """NumPy's error for ufunc.at values that do not broadcast to the indexed
    elements' shape (the broadcast would raise RuntimeError)."""
    shape = tuple(positions.shape)
    try:
        fits = np.broadcast_shapes(tuple(values.shape), shape) == shape
    except ValueError:
        fits = False
    if not fits:
        raise ValueError("array is not broadcastable to correct shape")


def _at_in_rounds(ufunc, a, indices, b=None):
    """ufunc.at(a, indices[, b]) for the other ufuncs (negative, divide, power,
    bitwise_or ...): NumPy applies the ufunc once per index, in order, so a
    repeated index works on the result of its earlier occurrences, and casts
    each result into a's dtype (unsafe: np.divide.at of ints truncates).
    Round r applies every position's r-th occurrence; the positions of a
    round are distinct, so each round is one gather and one index_put, and
    there are as many rounds as the most repeated position has occurrences."""
    positions = _C.arange(a.numel(), device=a.device).reshape(tuple(a.shape))[indices]
    values = None
    if b is not None:
        values = b if isinstance(b, _C.Tensor) else as_tensor(b)
        _check_at_values(values, positions)
        values = values.broadcast_to(tuple(positions.shape)).reshape(-1)
    positions = positions.reshape(-1)
    if positions.numel() == 0:
        return None
    order = _C.argsort(positions, stable=True)
    positions = positions[order]
    values = None if values is None else values[order]
    # each occurrence's rank among its position's: its place in the sorted
    # list less the place where its position's run starts
    place = _C.arange(positions.numel(), device=a.device)
    starts = _C.ones(positions.shape, dtype=_C.bool, device=a.device)
    starts[1:] = positions[1:] != positions[:-1]
    rank = place - _C.cummax(_C.where(starts, place, 0), 0)[0]
    for r in range(int(rank.max()) + 1):
        chosen = rank == r
        rest, coords = positions[chosen], []
        for size in reversed(tuple(a.shape)):
            coords.append(rest % size)
            rest = rest // size
        coords = tuple(reversed(coords))
        operands = (a[coords],) if values is None else (a[coords], values[chosen])
        result = _call(ufunc, operands, {})
        if result is NotImplemented:  # (only in the first round: nothing written yet)
            return NotImplemented
        a.index_put_(coords, result.to(a.dtype))
    return None


def _outer(ufunc, inputs, kwargs):
    op = _op_for(ufunc)
    out = kwargs.pop("out", None)
    if op is None or len(inputs) != 2 or out is not None and not _recorded(inputs):
        return NotImplemented   # out= outside autograd: NumPy's casting rules, its errors
    a, b = (as_tensor(x) for x in inputs)
    a = a.reshape(*a.shape, *([1] * b.ndim))
    if kwargs:  # dtype=, casting=, where=: what they mean in a call of the ufunc
        if out is not None:
            kwargs["out"] = out
        return _call(ufunc, (a, b), kwargs)
    return finish(op(a, b), out)


def _module_of(ufunc):
    """Where the ufunc lives, for messages: NumPy's, scipy.special's (its
    private ufuncs too: scipy.special.zeta calls _riemann_zeta), else NumPy
    (np.frompyfunc's ufuncs)."""
    if is_special(ufunc):
        return "scipy.special"
    if getattr(np, ufunc.__name__, None) is ufunc:
        return "numpy"
    private = sys.modules.get("scipy.special._ufuncs")
    if private is not None and getattr(private, ufunc.__name__, None) is ufunc:
        return "scipy.special"
    return "numpy"


def _fallback(ufunc, method, inputs, kwargs):
    """Run NumPy itself on zero-copy ndarray views of CPU tensors."""
    where = kwargs.get("where")
    tensors = [x for x in inputs + tuple(kwargs.get("out") or ()) + (where,)
               if isinstance(x, _C.Tensor)]
    name = f"{_module_of(ufunc)}.{ufunc.__name__}" + ("" if method == "__call__" else f".{method}")
    if _is_pyfunc(ufunc) and method != "at" and tensors and not {"out", "where"} & set(kwargs):
        return _pyfunc_on_host(ufunc, method, inputs, kwargs, tensors[0].device)
    check_fallback(name, tensors)  # CPU and no gradient, else TypeError
    arrays = [np.asarray(x) if isinstance(x, _C.Tensor) else x for x in inputs]
    if isinstance(where, _C.Tensor):  # else NumPy hands the call straight back to us
        kwargs["where"] = np.asarray(where)
    outs = kwargs.get("out")
    if outs:
        kwargs["out"] = tuple(np.asarray(x) if isinstance(x, _C.Tensor) else x for x in outs)
    result = getattr(ufunc, method)(*arrays, **kwargs)
    if outs:  # NumPy wrote into views of the caller's out objects: hand those back
        if len(outs) == 1:
            return outs[0]
        # (None in out=: the array NumPy allocated there)
        return tuple(_wrap(r) if o is None else o for o, r in zip(outs, result))
    if method == "at":
        return None
    return tuple(_wrap(r) for r in result) if isinstance(result, tuple) else _wrap(result)


def _is_pyfunc(ufunc):
    # np.frompyfunc's ufuncs: every loop takes and gives Python objects
    return all(set(t) <= set("O->") for t in ufunc.types)


def _pyfunc_on_host(ufunc, method, inputs, kwargs, device):
    """An np.frompyfunc ufunc calls Python once per element, on Python
    objects, so the elements are on the host whatever the device: one host
    copy of the inputs (a tensor that requires grad refused, as vectorize
    refuses it), for a call and for its reduce, accumulate, outer and
    reduceat; numeric results go back to the device, object arrays stay
    NumPy's (torchlike has no object dtype)."""
    from .numpy._functional import to_host
    result = getattr(ufunc, method)(*[to_host(x, ufunc.__name__) for x in inputs], **kwargs)

    def back(r):
        r = _wrap(r)
        return r.to(device) if isinstance(r, _C.Tensor) else r
    return tuple(back(r) for r in result) if isinstance(result, tuple) else back(result)


def _wrap(r):
    # Numbers become tensors; an object array (np.frompyfunc's result) stays
    # NumPy's, as the function fallback leaves it (torchlike has no object
    # dtype), so its .astype(int) still works.
    if isinstance(r, (np.ndarray, np.generic)) and r.dtype.kind in "biufc":
        return _C.from_numpy(np.asarray(r))
    return r


# ufunc -> op for plain calls, read by Tensor.__array_ufunc__ in C (py_ufunc.c).
_FAST = {}


# The first off-CPU device among the call's tensors (operands, out=, where=),
# or None: the CPU.
_device_of = _C._offhost_device


def _on_device(ufunc, method, inputs, kwargs, device):
    """A ufunc on device tensors: Python scalars combine as they are, lists
    and 0-d arrays are copied to the device; an ndarray operand, mask or out=
    is host memory and is refused, as CuPy refuses it (docs/numpy.md)."""
    token = _DEVICE.set(device)
    try:
        for x in tuple(kwargs.get("out") or ()):
            if isinstance(x, np.ndarray):
                raise TypeError(f"numpy.{ufunc.__name__}: out= is an ndarray (host memory), "
                                f"the operands are {device} tensors")
        if "where" in kwargs and not isinstance(kwargs["where"], (bool, _C.Tensor)):
            kwargs["where"] = as_tensor(kwargs["where"])
        # (ufunc.at's second input is an index, not an operand: [] is no
        # float array, a tuple of index arrays no stacked one; indexing a
        # device tensor takes lists as they are)
        inputs = tuple(x if isinstance(x, (_C.Tensor, bool, int, float, complex))
                       or (method == "at" and i == 1) else as_tensor(x)
                       for i, x in enumerate(inputs))
        return _dispatch(ufunc, method, inputs, kwargs)
    finally:
        _DEVICE.reset(token)


# A NumPy scalar on the left of an operator (np.float64(2) * t) reaches
# __array_ufunc__ as np.multiply(scalar, t): NumPy's scalar types answer the
# operator with their ufunc and never defer to a type that has
# __array_ufunc__.  The tensor's reflected operator answers it instead, so
# that both orders follow the operators' rule (PyTorch's: the NumPy scalar is
# a weak Python number, `t * np.float64(2)` and `np.float64(2) * t` both
# float32).  An explicit np.multiply(np.float64(2), t) keeps NEP 50.  The
# two calls differ only in the caller's instruction, read from its frame
# (divmod(s, t) and pow(s, t, None) are calls there, so they keep NEP 50).
_REFLECTED = {
    np.add: "__radd__", np.subtract: "__rsub__", np.multiply: "__rmul__",
    np.true_divide: "__rtruediv__", np.floor_divide: "__rfloordiv__",
    np.remainder: "__rmod__", np.power: "__rpow__", np.bitwise_and: "__rand__",
    np.bitwise_or: "__ror__", np.bitwise_xor: "__rxor__", np.left_shift: "__rlshift__",
    np.right_shift: "__rrshift__",
    # s < t is t > s
    np.less: "__gt__", np.less_equal: "__ge__", np.greater: "__lt__",
    np.greater_equal: "__le__", np.equal: "__eq__", np.not_equal: "__ne__",
}
_OPERATOR_OPCODES = frozenset(dis.opmap[name] for name in ("BINARY_OP", "COMPARE_OP")
                              if name in dis.opmap)


def _operator_call(ufunc, method, inputs, kwargs, self):
    """Whether this is `numpy_scalar <op> self`, run by the operator itself."""
    if method != "__call__" or kwargs or len(inputs) != 2 or inputs[1] is not self or \
            not isinstance(inputs[0], np.generic) or ufunc not in _REFLECTED:
        return False
    caller = sys._getframe(2)  # past array_ufunc: the frame running the operator
    return caller.f_code.co_code[caller.f_lasti] in _OPERATOR_OPCODES


def array_ufunc(self, ufunc, method, *inputs, **kwargs):
    if _operator_call(ufunc, method, inputs, kwargs, self):
        return getattr(self, _REFLECTED[ufunc])(inputs[0])
    device = _device_of(inputs, kwargs)
    if device is not None:
        return _on_device(ufunc, method, inputs, kwargs, device)
    if method == "at" and isinstance(inputs[0], np.ndarray) and _recorded(inputs):
        raise RuntimeError(f"numpy.{ufunc.__name__}.at writes into a NumPy array, which cannot "
                           f"record autograd history, and a tensor that requires grad is "
                           f"given: write into a tensor instead (np.zeros_like(t))")
    # On the host an ndarray operand is a zero-copy CPU tensor: left to the op,
    # it would become a tensor on the default device, which need not be the CPU.
    # A NumPy scalar becomes a 0-d tensor too: left to the op it would be a
    # weak Python number (PyTorch's rule), where NumPy's ufuncs promote it as
    # an array (NEP 50).
    inputs = tuple(as_tensor(x) if isinstance(x, (np.ndarray, np.generic)) else x
                   for x in inputs)
    if method != "at" and kwargs.get("out") is not None:
        # np.multiply.reduce(w, axis=0, out=w[0]): the op must not keep w
        inputs = tuple(unaliased(x, kwargs["out"]) for x in inputs)
    return _dispatch(ufunc, method, inputs, kwargs)


def _recorded(inputs):
    """Whether the call is recorded: grad mode on and a tensor requiring grad."""
    return _C.is_grad_enabled() and any(getattr(x, "requires_grad", False) for x in inputs)


def _dispatch(ufunc, method, inputs, kwargs):
    if method == "__call__":
        result = _call(ufunc, inputs, dict(kwargs))
    elif method in ("reduce", "accumulate"):
        result = _reduce(ufunc, method, inputs, dict(kwargs))
    elif method == "outer":
        result = _outer(ufunc, inputs, dict(kwargs))
    elif method == "reduceat":
        result = _reduceat(ufunc, inputs, dict(kwargs))
    elif method == "at" and (_recorded(inputs) or _device_of(inputs, kwargs) is not None):
        result = _at(ufunc, inputs, dict(kwargs))
    else:  # "at" on the host outside autograd: NumPy writes through the zero-copy view
        result = NotImplemented
    if result is NotImplemented:
        result = _fallback(ufunc, method, inputs, kwargs)
    return result


_C._set_array_ufunc(_FAST, array_ufunc)
