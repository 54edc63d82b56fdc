"""``assert_close``: compare two (nested) tensor-likes or Python scalars.

Two phases, as PyTorch's: first the inputs are paired up (sequences by
position, mappings by key; a pair of kinds nothing handles is a TypeError
before any value is compared), then each pair is compared and the first
failure raises, its message naming the item's place in the nesting.

Tolerances default per dtype (PyTorch's table); with two dtypes (check_dtype
off) the larger of each.  Differences are computed in the compared dtype
(integers and bools as int64, relative differences of integers in the
default float dtype), so the numbers in a message are the ones PyTorch shows."""
import cmath
import collections.abc
import math
import numbers
import warnings

import numpy as np

from .. import _C
from .._layout import strided

Tensor = _C.Tensor

# dtype -> (rtol, atol); any other dtype compares exactly
_TOLERANCES = {
    _C.float16: (1e-3, 1e-5), _C.bfloat16: (1.6e-2, 1e-5), _C.float32: (1.3e-6, 1e-5),
    _C.float64: (1e-7, 1e-7), _C.complex64: (1.3e-6, 1e-5), _C.complex128: (1e-7, 1e-7),
}
_PY_DTYPES = {int: _C.int64, float: _C.float64, complex: _C.complex128}


class _Failure(Exception):
    """A failed comparison: the exception type to raise and its message."""

    def __init__(self, kind, message, where=()):
        super().__init__(message)
        self.kind, self.message, self.where = kind, message, where


def _tolerances(*dtypes, rtol, atol):
    if (rtol is None) != (atol is None):
        missing = "atol" if atol is None else "rtol"
        raise ValueError(f"Both 'rtol' and 'atol' must be either specified or omitted, but got "
                         f"no {missing}.")
    if rtol is not None:
        return rtol, atol
    pairs = [_TOLERANCES.get(d, (0.0, 0.0)) for d in dtypes]
    return max(p[0] for p in pairs), max(p[1] for p in pairs)


def _is_sequence(x):
    return isinstance(x, collections.abc.Sequence) and not isinstance(x, str)


def _is_number(x):
    return isinstance(x, (int, float, complex)) and not isinstance(x, (bool, np.bool_))


def _pair_up(actual, expected, where, allow_subclasses, pairs):
    """Append (where, kind, actual, expected) for each leaf pair; raise
    _Failure for structure that does not match."""
    if _is_sequence(actual) and _is_sequence(expected):
        if len(actual) != len(expected):
            raise _Failure(AssertionError, f"The length of the sequences mismatch: "
                                           f"{len(actual)} != {len(expected)}")
        for i, (a, e) in enumerate(zip(actual, expected)):
            _pair_up(a, e, where + [i], allow_subclasses, pairs)
        return
    if isinstance(actual, collections.abc.Mapping) and \
            isinstance(expected, collections.abc.Mapping):
        missing = set(expected) - set(actual)
        extra = set(actual) - set(expected)
        if missing or extra:
            raise _Failure(AssertionError, f"The keys of the mappings do not match:\n"
                                           f"Missing keys in the actual mapping: "
                                           f"{sorted(missing)}\nAdditional keys in the actual "
                                           f"mapping: {sorted(extra)}")
        for key in actual:
            _pair_up(actual[key], expected[key], where + [key], allow_subclasses, pairs)
        return
    if actual is None or expected is None:
        kind = "none"
    elif isinstance(actual, (bool, np.bool_)) and isinstance(expected, (bool, np.bool_)):
        kind = "bool"
    elif _is_number(actual) and _is_number(expected):
        kind = "number"
    elif _tensor_like_pair(actual, expected, allow_subclasses):
        kind = "tensor"
    else:
        raise _Failure(TypeError, f"No comparison pair was able to handle inputs of type "
                                  f"{type(actual)} and {type(expected)}.", where)
    pairs.append((where, kind, actual, expected))


def _tensor_like_pair(actual, expected, allow_subclasses):
    for cls in (Tensor, np.ndarray):
        if isinstance(actual, cls) and isinstance(expected, cls):
            return allow_subclasses or type(actual) is type(expected)
    return False


def _scalar_message(kind, actual, expected, abs_diff, rel_diff, rtol, atol):
    close = rtol or atol
    lines = [f"Scalars are not {'close' if close else 'equal'}!", "",
             f"Expected {expected} but got {actual}.",
             f"Absolute difference: {abs_diff}" + (f" (up to {atol} allowed)" if close else ""),
             f"Relative difference: {rel_diff}" + (f" (up to {rtol} allowed)" if close else "")]
    return "\n".join(lines)


def _compare_numbers(actual, expected, opts):
    if opts["check_dtype"] and type(actual) is not type(expected):
        raise _Failure(AssertionError, f"The (d)types do not match: {type(actual)} != "
                                       f"{type(expected)}.")
    kinds = [_PY_DTYPES[next(k for k in (int, float, complex) if isinstance(v, k))]
             for v in (actual, expected)]
    rtol, atol = _tolerances(*kinds, rtol=opts["rtol"], atol=opts["atol"])
    if actual == expected:
        return
    isnan = cmath.isnan if isinstance(actual, complex) or isinstance(expected, complex) \
        else math.isnan
    if opts["equal_nan"] and isnan(actual) and isnan(expected):
        return
    abs_diff = abs(actual - expected)
    finite = cmath.isfinite(actual) and cmath.isfinite(expected)
    if finite and abs_diff <= atol + rtol * abs(expected):
        return   # (non-finite values are close only when equal)
    rel_diff = abs_diff / abs(expected) if abs(expected) != 0 else math.inf
    raise _Failure(AssertionError, _scalar_message(
        "Scalars", actual, expected, abs_diff, rel_diff, rtol, atol))


def _meta(t, name):
    return tuple(t.stride()) if name == "stride()" else getattr(t, name)


def _compare_tensors(actual, expected, opts):
    if isinstance(actual, np.ndarray):
        actual, expected = _C.as_tensor(actual), _C.as_tensor(expected)
    checks = ["shape"] + [name for name, on in (("device", opts["check_device"]),
                                                ("dtype", opts["check_dtype"]),
                                                ("layout", opts["check_layout"])) if on]
    if opts["check_stride"] and actual.layout == strided:
        checks.append("stride()")
    for name in checks:
        a, e = _meta(actual, name), _meta(expected, name)
        if a != e:
            raise _Failure(AssertionError, f"The values for attribute '{name}' do not match: "
                                           f"{a} != {e}.")
    if actual.is_meta and expected.is_meta:  # no values: the attributes are all (as PyTorch)
        return
    rtol, atol = _tolerances(actual.dtype, expected.dtype, rtol=opts["rtol"], atol=opts["atol"])
    actual, expected = actual.detach(), expected.detach()
    if actual.device != expected.device:
        actual, expected = actual.cpu(), expected.cpu()
    if actual.dtype != expected.dtype:
        common = _C.promote_types(actual.dtype, expected.dtype)
        actual, expected = actual.to(common), expected.to(common)
    if not (actual.is_floating_point() or actual.is_complex()):
        actual, expected = actual.to(_C.int64), expected.to(_C.int64)
    from .._closeness import isclose
    matches = isclose(actual, expected, rtol=rtol, atol=atol, equal_nan=opts["equal_nan"])
    if bool(matches.all()):
        return
    if actual.ndim == 0:   # reported as Python numbers, differences in double
        a, e = actual.item(), expected.item()
        abs_diff = abs(a - e)
        rel_diff = abs_diff / abs(e) if abs(e) != 0 else math.inf
        raise _Failure(AssertionError, _scalar_message(
            "Scalars", a, e, abs_diff, rel_diff, rtol, atol))
    abs_diff = (actual - expected).abs()
    rel_diff = abs_diff / expected.abs()
    mismatched = ~_host(matches)
    lines = [f"Tensor-likes are not {'close' if rtol or atol else 'equal'}!", "",
             f"Mismatched elements: {int(mismatched.sum())} / {mismatched.size} "
             f"({100 * mismatched.sum() / mismatched.size:.1f}%)"]
    for word, diff, tol in (("absolute", abs_diff, atol), ("relative", rel_diff, rtol)):
        value, index = _greatest(_host(diff), mismatched)
        allowed = f" (up to {tol} allowed)" if rtol or atol else ""
        lines.append(f"Greatest {word} difference: {value} at index {index}{allowed}")
    raise _Failure(AssertionError, "\n".join(lines))


def _host(t):
    """A CPU NumPy copy; half types widen exactly to float32."""
    t = t.cpu()
    if t.dtype in (_C.float16, _C.bfloat16):
        t = t.float()
    return t.numpy()


def _greatest(diff, mismatched):
    """The largest difference among the mismatched elements (a NaN first) and
    its index tuple."""
    diff = np.where(mismatched, diff, 0)
    nans = np.flatnonzero(np.isnan(diff)) if diff.dtype.kind == "f" else []
    flat = int(nans[0]) if len(nans) else int(np.argmax(diff))
    return diff.reshape(-1)[flat].item(), tuple(int(i) for i in np.unravel_index(flat, diff.shape))


def _where_text(where):
    """The suffix naming a nested item's place ("" at the top)."""
    if not where:
        return ""
    return "\n\nThe failure occurred for item " + "".join(f"[{k!r}]" for k in where)


def assert_close(actual, expected, *, allow_subclasses=True, rtol=None, atol=None,
                 equal_nan=False, check_device=True, check_dtype=True, check_layout=True,
                 check_stride=False, msg=None):
    """Raise AssertionError unless ``actual`` and ``expected`` are close:
    ``|actual - expected| <= atol + rtol * |expected|`` elementwise, with
    matching shape (and device, dtype, layout, strides where checked).

    Takes tensors, NumPy arrays, Python scalars and sequences/mappings of
    them.  ``msg`` replaces the message (a string) or rewrites it (a
    callable taking the generated message)."""
    opts = dict(rtol=rtol, atol=atol, equal_nan=equal_nan, check_device=check_device,
                check_dtype=check_dtype, check_layout=check_layout, check_stride=check_stride)
    if (rtol is None) != (atol is None):
        _tolerances(rtol=rtol, atol=atol)
    pairs = []
    try:
        _pair_up(actual, expected, [], allow_subclasses, pairs)
    except _Failure as failure:
        if failure.kind is TypeError:
            raise TypeError(failure.message + _where_text(failure.where)) from None
        raise AssertionError(_with_msg(failure.message, msg)) from None
    for where, kind, a, e in pairs:
        try:
            if kind == "none":
                if not (a is None and e is None):
                    raise _Failure(AssertionError, f"None mismatch: {a} is not {e}")
            elif kind == "bool":
                if bool(a) is not bool(e):
                    raise _Failure(AssertionError, f"Booleans mismatch: {a} is not {e}")
            elif kind == "number":
                _compare_numbers(a, e, opts)
            else:
                _compare_tensors(a, e, opts)
        except _Failure as failure:
            text = failure.message + _where_text(where) if msg is None else \
                _with_msg(failure.message, msg)
            raise failure.kind(text) from None


def _with_msg(message, msg):
    if msg is None:
        return message
    return msg(message) if callable(msg) else msg


# assert_allclose's own defaults (older than assert_close's table)
_ALLCLOSE_TOLERANCES = {_C.float16: (1e-3, 1e-3), _C.float32: (1e-4, 1e-5),
                        _C.float64: (1e-5, 1e-8)}


def assert_allclose(actual, expected, rtol=None, atol=None, equal_nan=True, msg=""):
    """Deprecated: ``assert_close`` with dtypes not checked, NaNs equal, and
    non-tensor inputs made tensors (``expected`` in ``actual``'s dtype)."""
    warnings.warn("`torch.testing.assert_allclose()` is deprecated since 1.12 and will be "
                  "removed in a future release. Please use `torch.testing.assert_close()` "
                  "instead. You can find detailed upgrade instructions in "
                  "https://github.com/pytorch/pytorch/issues/61844.", FutureWarning,
                  stacklevel=2)
    if not isinstance(actual, Tensor):
        actual = _C.tensor(actual)
    if not isinstance(expected, Tensor):
        expected = _C.tensor(expected, dtype=actual.dtype)
    if rtol is None and atol is None:
        rtol, atol = _ALLCLOSE_TOLERANCES.get(
            _C.promote_types(actual.dtype, expected.dtype), (0.0, 0.0))
    assert_close(actual, expected, rtol=rtol, atol=atol, equal_nan=equal_nan,
                 check_device=True, check_dtype=False, check_stride=False, msg=msg or None)
