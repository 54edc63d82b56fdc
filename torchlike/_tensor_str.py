# Tensor printing for torchlike.
#
# Pure Python/NumPy reimplementation of the *observable* layout of PyTorch's
# tensor repr: column alignment, fixed vs. scientific notation, line wrapping,
# summarisation with "...", and the dtype/device/grad suffixes.  The C core
# hands us a NumPy copy of the data plus the dtype name; nothing here touches
# the extension, so it can be tested on its own.
from __future__ import annotations

import math

import numpy as np

__all__ = ["tensor_repr", "tensor_str", "set_printoptions", "get_printoptions"]

_DTYPE_PREFIX = "torchlike."


class _PrintOptions:
    def __init__(self) -> None:
        self.precision = 4
        self.threshold: float = 1000
        self.edgeitems = 3
        self.linewidth = 80
        self.sci_mode: bool | None = None


PRINT_OPTS = _PrintOptions()

# (precision, threshold, edgeitems, linewidth)
_PROFILES = {
    "default": (4, 1000, 3, 80),
    "short": (2, 1000, 2, 80),
    "full": (4, math.inf, 3, 80),
}


def set_printoptions(precision=None, threshold=None, edgeitems=None,
                     linewidth=None, profile=None, sci_mode=None) -> None:
    """Set printing options; same signature and semantics as PyTorch's."""
    if profile is not None:
        if profile not in _PROFILES:
            raise ValueError(f"unknown print profile {profile!r}")
        (PRINT_OPTS.precision, PRINT_OPTS.threshold,
         PRINT_OPTS.edgeitems, PRINT_OPTS.linewidth) = _PROFILES[profile]
    if precision is not None:
        PRINT_OPTS.precision = precision
    if threshold is not None:
        PRINT_OPTS.threshold = threshold
    if edgeitems is not None:
        PRINT_OPTS.edgeitems = edgeitems
    if linewidth is not None:
        PRINT_OPTS.linewidth = linewidth
    # Unconditional, as in PyTorch: calling without sci_mode restores the
    # automatic choice.
    PRINT_OPTS.sci_mode = sci_mode


def get_printoptions() -> dict:
    return {
        "precision": PRINT_OPTS.precision,
        "threshold": PRINT_OPTS.threshold,
        "edgeitems": PRINT_OPTS.edgeitems,
        "linewidth": PRINT_OPTS.linewidth,
        "sci_mode": PRINT_OPTS.sci_mode,
    }


# The NumPy dtype each torchlike dtype is formatted in.  Half and bfloat16 are
# widened to float32 first (as PyTorch does), so the integrality test and the
# decimal expansion are those of the float32 value.
_PRINT_DTYPES = {
    "bool": np.bool_, "uint8": np.uint8, "int8": np.int8, "int16": np.int16,
    "int32": np.int32, "int64": np.int64, "float16": np.float32,
    "bfloat16": np.float32, "float32": np.float32, "float64": np.float64,
    "complex64": np.complex64, "complex128": np.complex128, "uint16": np.uint16,
    "uint32": np.uint32, "uint64": np.uint64,
    **{f"float8_{k}": np.float32 for k in ("e4m3fn", "e5m2", "e4m3fnuz", "e5m2fnuz", "e8m0fnu")},
}


class _Formatter:
    """Picks one notation and one column width for a whole (real) array."""

    def __init__(self, arr: np.ndarray) -> None:
        flat = arr.reshape(-1)
        self.floating = flat.dtype.kind == "f"
        self.int_mode = True
        self.sci_mode = False
        self.max_width = 1

        if not self.floating:
            for v in flat.tolist():
                self.max_width = max(self.max_width, len(str(v)))
            return

        vals = flat[np.isfinite(flat) & (flat != 0)]
        if vals.size == 0:
            # PyTorch bails out here before honouring the sci_mode option, so
            # all-zero / all-nonfinite tensors always print as "0." / "nan".
            return

        # Ratios in double: float16/float32 would overflow or round at 1e8.
        absvals = np.abs(vals).astype(np.float64)
        lo, hi = float(absvals.min()), float(absvals.max())
        self.int_mode = bool(np.all(vals == np.ceil(vals)))
        prec = PRINT_OPTS.precision
        pylist = vals.tolist()

        if self.int_mode:
            # Integral floats never switch to sci mode just for being small.
            auto = hi / lo > 1000.0 or hi > 1.0e8
        else:
            auto = hi / lo > 1000.0 or hi > 1.0e8 or lo < 1.0e-4
        # A forced sci_mode decides the notation before the widths are measured
        # (PyTorch 2.15), so forced scientific columns line up.
        self.sci_mode = auto if PRINT_OPTS.sci_mode is None else bool(PRINT_OPTS.sci_mode)
        if self.sci_mode:
            widths = (len(f"{v:.{prec}e}") for v in pylist)
        elif self.int_mode:
            # +1 for the trailing "." that marks the tensor as floating.
            widths = (len(f"{v:.0f}") + 1 for v in pylist)
        else:
            widths = (len(f"{v:.{prec}f}") for v in pylist)
        self.max_width = max(self.max_width, max(widths))

    def format(self, v) -> str:
        if not self.floating:
            s = str(v)
        elif self.sci_mode:
            s = f"{v:{self.max_width}.{PRINT_OPTS.precision}e}"
        elif self.int_mode:
            s = f"{v:.0f}"
            if math.isfinite(v):
                s += "."
        else:
            s = f"{v:.{PRINT_OPTS.precision}f}"
        return s.rjust(self.max_width)


def _format_value(v, fmt_real: _Formatter, fmt_imag: _Formatter | None) -> str:
    if fmt_imag is None:
        return fmt_real.format(v)
    real = fmt_real.format(v.real)
    # The imaginary column's padding is dropped so the sign hugs the real part.
    imag = (fmt_imag.format(v.imag) + "j").lstrip()
    if imag[0] in "+-":
        return real + imag
    return real + "+" + imag


def _vector_str(arr, indent, summarize, fmt_real, fmt_imag) -> str:
    # Every element costs its width plus ", " (and "j" for complex).
    elem_len = fmt_real.max_width + 2
    if fmt_imag is not None:
        elem_len += fmt_imag.max_width + 1
    per_line = max(1, math.floor((PRINT_OPTS.linewidth - indent) / elem_len))

    def fmt(vals):
        return [_format_value(v, fmt_real, fmt_imag) for v in vals.tolist()]

    edge = PRINT_OPTS.edgeitems
    if summarize and not edge:
        data = ["..."]
    elif summarize and arr.shape[0] > 2 * edge:
        # " ..." (leading space) gives PyTorch's double space in ",  ...,".
        data = fmt(arr[:edge]) + [" ..."] + fmt(arr[-edge:])
    else:
        data = fmt(arr)

    lines = [", ".join(data[i:i + per_line])
             for i in range(0, len(data), per_line)]
    return "[" + (",\n" + " " * (indent + 1)).join(lines) + "]"


def _nested_str(arr, indent, summarize, fmt_real, fmt_imag) -> str:
    if arr.ndim == 0:
        return _format_value(arr.item(), fmt_real, fmt_imag)
    if arr.ndim == 1:
        return _vector_str(arr, indent, summarize, fmt_real, fmt_imag)

    n, edge = arr.shape[0], PRINT_OPTS.edgeitems
    if summarize and n > 2 * edge:
        idx = list(range(edge)) + [None] + list(range(n - edge, n))
    else:
        idx = list(range(n))
    parts = ["..." if i is None
             else _nested_str(arr[i], indent + 1, summarize, fmt_real, fmt_imag)
             for i in idx]
    # A d-dim block is separated from its sibling by d-1 newlines, so 3-d
    # tensors get one blank line between matrices, 4-d two, and so on.
    sep = "," + "\n" * (arr.ndim - 1) + " " * (indent + 1)
    return "[" + sep.join(parts) + "]"


def _summarized_data(arr: np.ndarray) -> np.ndarray:
    """Only the elements that will be shown, so they alone set the widths."""
    edge = PRINT_OPTS.edgeitems
    if arr.ndim == 0:
        return arr
    n = arr.shape[0]
    if arr.ndim == 1:
        # With edge == 0, arr[-0:] is the whole array; PyTorch behaves the same.
        return np.concatenate((arr[:edge], arr[-edge:])) if n > 2 * edge else arr
    if not edge:
        return arr.reshape(-1)[:0]
    idx = list(range(edge)) + list(range(n - edge, n)) if n > 2 * edge else range(n)
    return np.stack([_summarized_data(arr[i]) for i in idx])


def _body_str(arr: np.ndarray, indent: int) -> str:
    summarize = arr.size > PRINT_OPTS.threshold

    def formatter(part):
        return _Formatter(_summarized_data(part) if summarize else part)

    if arr.dtype.kind == "c":
        return _nested_str(arr, indent, summarize,
                           formatter(arr.real), formatter(arr.imag))
    return _nested_str(arr, indent, summarize, formatter(arr), None)


def _add_suffixes(text: str, suffixes, indent: int, force_newline: bool = False) -> str:
    """text, suffixes and the closing parenthesis; force_newline puts the
    first suffix on a line of its own (PyTorch's sparse COO repr)."""
    out = [text]
    # Deliberately the same (over)estimate PyTorch uses: two more than the
    # real length of the last line, which decides when a suffix wraps.
    last_line_len = len(text) - text.rfind("\n") + 1
    for suffix in suffixes:
        if force_newline or last_line_len + len(suffix) + 2 > PRINT_OPTS.linewidth:
            out.append(",\n" + " " * indent + suffix)
            last_line_len = indent + len(suffix)
            force_newline = False
        else:
            out.append(", " + suffix)
            last_line_len += len(suffix) + 2
    out.append(")")
    return "".join(out)


def tensor_repr(values, dtype_name, *, default_float="float32", device="cpu",
                requires_grad=False, grad_fn_name=None, prefix="tensor(", shape=None) -> str:
    """repr() of a tensor whose data is `values` (a NumPy array); an empty
    tensor may give its shape apart, as NumPy refuses some that torch takes
    ((0, 2**62): its byte count would overflow)."""
    arr = np.asarray(values)
    np_dtype = _PRINT_DTYPES.get(dtype_name)
    if np_dtype is not None and arr.dtype != np_dtype:
        arr = arr.astype(np_dtype)

    indent = len(prefix)
    dtype_suffix = "dtype=" + _DTYPE_PREFIX + dtype_name
    suffixes = []
    if device != "cpu":
        suffixes.append(f"device='{device}'")

    if arr.size == 0:
        # NumPy-style: shape only when it isn't (0,); and no element can hint
        # at the dtype, so anything but the default float is spelled out.
        shape = tuple(arr.shape if shape is None else shape)
        if len(shape) != 1:
            suffixes.append(f"size={shape}")
        if dtype_name != default_float:
            suffixes.append(dtype_suffix)
        body = "[]"
    else:
        if not PRINT_OPTS.edgeitems:
            suffixes.append(f"size={tuple(arr.shape)}")
        default_complex = "complex128" if default_float == "float64" else "complex64"
        if dtype_name not in (default_float, default_complex, "int64", "bool"):
            suffixes.append(dtype_suffix)
        body = _body_str(arr, indent)

    if grad_fn_name is not None:
        suffixes.append(f"grad_fn=<{grad_fn_name}>")
    elif requires_grad:
        suffixes.append("requires_grad=True")

    return _add_suffixes(prefix + body, suffixes, indent)


def tensor_str(values, dtype_name, **kwargs) -> str:
    """str() of a tensor; PyTorch makes it identical to repr()."""
    return tensor_repr(values, dtype_name, **kwargs)
