"""torch.isclose, torch.allclose and torch.equal (and their Tensor methods),
composed from the elementwise ops so that they run on any device those ops
do.  Only allclose and equal read data back to the host: they answer with a
Python bool."""
import numbers

from . import _C
from ._legacy_types import scalar_type_name

Tensor = _C.Tensor


def _tensor_arg(fname, name, position, value):
    if value is _MISSING:
        raise TypeError(f'{fname}() missing 1 required positional arguments: "{name}"')
    if not isinstance(value, Tensor):
        raise TypeError(f"{fname}(): argument '{name}' (position {position}) must be Tensor, "
                        f"not {type(value).__name__}")


def _float_arg(fname, name, value):
    # PyTorch's 'float' parameters take any real number and one-element tensors.
    if isinstance(value, Tensor) and value.numel() == 1 and not value.is_complex():
        return float(value.item())
    if not isinstance(value, numbers.Real):
        raise TypeError(f"{fname}(): argument '{name}' must be float, not {type(value).__name__}")
    return float(value)


_MISSING = object()


def _check_close_args(fname, input, other, rtol, atol, equal_nan):
    _tensor_arg(fname, "input", 1, input)
    _tensor_arg(fname, "other", 2, other)
    rtol = _float_arg(fname, "rtol", rtol)
    atol = _float_arg(fname, "atol", atol)
    if not isinstance(equal_nan, bool):
        raise TypeError(f"{fname}(): argument 'equal_nan' must be bool, not "
                        f"{type(equal_nan).__name__}")
    if input.dtype != other.dtype:
        raise RuntimeError(f"{scalar_type_name(input.dtype)} did not match "
                           f"{scalar_type_name(other.dtype)}")
    if rtol < 0:
        raise RuntimeError(f"rtol must be greater than or equal to zero, but got {rtol:g}")
    if atol < 0:
        raise RuntimeError(f"atol must be greater than or equal to zero, but got {atol:g}")
    return rtol, atol


def _isclose(input, other, rtol, atol, equal_nan):
    """|input - other| <= atol + rtol * |other|, elementwise (bool, broadcast)."""
    close = _C.eq(input, other)
    inexact = input.is_floating_point() or input.is_complex()
    if equal_nan and inexact:
        close = _C.logical_or(close, _C.logical_and(_C.ne(input, input), _C.ne(other, other)))
    if rtol == 0 and atol == 0:
        return close
    if not inexact:
        # integers and bools are compared in the default float dtype, where
        # their difference cannot overflow
        default = _C.get_default_dtype()
        input, other = input.to(default), other.to(default)
    allowed = _C.add(_C.abs(_C.mul(other, rtol)), atol)
    actual = _C.abs(_C.sub(input, other))
    within = _C.logical_and(_C.isfinite(actual), _C.le(actual, allowed))
    return _C.logical_or(close, within)


def isclose(input, other=_MISSING, rtol=1e-05, atol=1e-08, equal_nan=False):
    """Whether each element of input is close to other's (finite values within
    atol + rtol * |other|, equal infinities, NaNs too with equal_nan).  Both
    must have one dtype; integers compare in the default float dtype."""
    rtol, atol = _check_close_args("isclose", input, other, rtol, atol, equal_nan)
    return _isclose(input, other, rtol, atol, equal_nan)


def allclose(input, other=_MISSING, rtol=1e-05, atol=1e-08, equal_nan=False):
    """isclose(...).all() as a Python bool."""
    rtol, atol = _check_close_args("allclose", input, other, rtol, atol, equal_nan)
    return bool(_isclose(input, other, rtol, atol, equal_nan).all())


def equal(input, other=_MISSING):
    """True if input and other have the same shape and equal elements (values
    compared after type promotion; NaN equals nothing)."""
    _tensor_arg("equal", "input", 1, input)
    _tensor_arg("equal", "other", 2, other)
    if input.device != other.device:
        raise RuntimeError("Expected all tensors to be on the same device, but found at least "
                           f"two devices, {input.device} and {other.device}!")
    if input.shape != other.shape:
        return False
    return bool(_C.eq(input, other).all())


Tensor.isclose = isclose
Tensor.allclose = allclose
Tensor.equal = equal
__all__ = ["isclose", "allclose", "equal"]
