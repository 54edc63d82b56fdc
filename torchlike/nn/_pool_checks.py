"""PyTorch's argument checks for pooling, adaptive pooling, unfold and fold,
in PyTorch's order and words (tests/test_pool_refusals.py holds them to
tests/golden/pool_refusals.json).

Each family refuses in its own terms, because PyTorch's checks live in
different places: max_pool1d has its own checks; avg_pool1d/lp_pool1d run
avg_pool2d on a (N, C, 1, L) view, so they speak of kH = 1; max/avg_pool2d
and 3d share the output-size rule (stride, padding against the effective
kernel) and then a shape check; unfold/fold check in im2col's/col2im's words.

The output sizes are computed with Python ints, so they cannot overflow;
where a size past int64 comes in, the size check is left to the kernel,
which refuses it as an overflow (docs/nn.md).

Legend: k kernel, s stride, p padding, d dilation, n spatial dims."""
import numbers

from .. import _C

_INT64_MAX = 2 ** 63 - 1
_WORDS = {1: "one", 2: "two", 3: "three"}


# ---- PyTorch's binding of int[N] arguments, by type ---------------------------------------

def _type_name(v):
    """The type as PyTorch's binding names it: bool, float, numpy.bool, Tensor."""
    t = type(v)
    if isinstance(v, _C.Tensor):
        return "Tensor"
    return t.__name__ if t.__module__ == "builtins" else f"{t.__module__}.{t.__name__}"


def _one_int(v, first):
    """An int the binding takes as an item: a Python or NumPy int (a bool only
    after the first item), or a one-element integer or bool tensor."""
    if isinstance(v, _C.Tensor):
        return v.numel() == 1 and not (v.is_floating_point() or v.is_complex())
    return isinstance(v, numbers.Integral) and not (first and type(v) is bool)


def check_int_args(fn, *args):
    """PyTorch's refusals of int[N] arguments before any check of values, in
    its words: each (value, name, position) an int (not a bool), a
    one-element integer tensor, or a tuple or list whose first item is an
    int and whose later items are ints or bools; None only where allowed
    (the caller leaves those out)."""
    for value, name, pos in args:
        head = f"{fn}(): argument '{name}' (position {pos}) must be tuple of ints"
        if not isinstance(value, (tuple, list)):
            if not _one_int(value, True):
                raise TypeError(f"{head}, not {_type_name(value)}")
            continue
        for i, v in enumerate(value):
            if _one_int(v, i == 0):
                continue
            if i == 0:
                raise TypeError(f"{head}, but found element of type {_type_name(v)} at pos 0")
            raise TypeError(f"{fn}(): argument '{name}' failed to unpack the object at pos "
                            f"{i + 1} with error \"type must be tuple of ints,but got "
                            f"{_type_name(v)}\"")


def _pair_items(value):
    """Python's _pair as F.unfold/fold apply it before the binding: an
    iterable's items, else the value twice."""
    return tuple(value) if hasattr(value, "__iter__") else (value, value)


def ints(value, n, message, single=True):
    """An int, or a sequence of 1 (when `single`) or `n` ints, as n ints;
    another length is RuntimeError(message.format(len))."""
    if isinstance(value, numbers.Integral):
        return (int(value),) * n
    if isinstance(value, _C.Tensor):  # a one-element integer tensor (check_int_args)
        return (int(value.reshape(()).item()),) * n
    value = tuple(int(v) for v in value)
    if len(value) == 1 and single:
        return value * n
    if len(value) != n:
        raise RuntimeError(message.format(len(value)))
    return value


def _fits(*values):
    return all(-_INT64_MAX <= v <= _INT64_MAX for v in values)


def _half(v):
    """C's v / 2 (toward zero)."""
    return -(-v // 2) if v < 0 else v // 2


def output_size(size, k, p, s, d, ceil_mode):
    """PyTorch's pooling output size; None where the arithmetic passes int64."""
    span = d * (k - 1)
    if not _fits(span, size + 2 * p - span):
        return None
    return _windows(size, k, p, s, d, ceil_mode)


def _windows(size, k, p, s, d, ceil_mode):
    """The number of windows: floor division, and ceil_mode's last window
    must start inside the input or its left padding."""
    out = (size + 2 * p - d * (k - 1) - 1 + (s - 1 if ceil_mode else 0)) // s + 1
    if ceil_mode and (out - 1) * s >= size + p:
        out -= 1
    return out


def _output_sizes(input, k, s, p, d, ceil_mode):
    """pooling_output_shape per spatial dim: a zero stride, a negative
    padding, a padding past half the effective kernel are refused first."""
    n = len(k)
    outs = []
    for i in range(n):
        if s[i] == 0:
            raise RuntimeError("stride should not be zero")
        if p[i] < 0:
            raise RuntimeError(f"pad must be non-negative, but got pad: {p[i]}")
        if _fits(d[i] * (k[i] - 1)) and p[i] > _half((k[i] - 1) * d[i] + 1):
            raise RuntimeError(f"pad should be at most half of effective kernel size, but got "
                               f"pad={p[i]}, kernel_size={k[i]} and dilation={d[i]}")
        outs.append(output_size(input.shape[input.ndim - n + i], k[i], p[i], s[i], d[i],
                                ceil_mode))
    return outs


# ---- the common call, checked without building any words ----------------------------------

_SMALL = 2 ** 31


def plain_2d_window(kernel_size, stride, padding, dilation=1):
    """(kernel, stride) of a 2-d window given as plain ints that the kernel
    checks as PyTorch does (positive and small, padding within half the
    kernel), else None.  Such calls go to the kernel before the checks here,
    which cost twice the pooling of a small input; what it refuses, the
    checks then refuse in PyTorch's words."""
    if type(kernel_size) is int and type(padding) is int and type(dilation) is int and \
            (stride is None or type(stride) is int):
        s = kernel_size if stride is None else stride
        if 0 < kernel_size < _SMALL and 0 < s < _SMALL and 0 < dilation < _SMALL and \
                0 <= padding <= kernel_size // 2:
            return kernel_size, s
    return None


def _plain(values, n):
    """Each value as n ints when it is an int or an n-sequence of ints, else
    None (the full parse then names what is wrong)."""
    out = []
    for value in values:
        if type(value) is int:
            out.append((value,) * n)
        elif type(value) in (tuple, list) and len(value) == n and \
                all(type(v) is int for v in value):
            out.append(tuple(value))
        else:
            return None
    return out


def _passes(input, n, k, s, p, d, ceil_mode, fit_kernel=False):
    """Whether every refusal below lets (k, s, p, d) through on this input:
    positive small windows, padding within half the kernel, no empty
    non-batch dim, at least one window per dim (and, for avg_pool3d, input
    no smaller than the kernel). False only means "run the full checks"."""
    shape = input.shape
    if len(shape) - n not in (1, 2) or 0 in shape[-n - 1:]:
        return False
    for i in range(n):
        kk, ss, pp, dd, size = k[i], s[i], p[i], d[i], shape[i - n]
        if not (0 < kk < _SMALL and 0 < ss < _SMALL and 0 < dd < _SMALL and 0 <= pp <= kk // 2):
            return False
        if (fit_kernel and size < kk) or _windows(size, kk, pp, ss, dd, ceil_mode) < 1:
            return False
    return True


def _join(tags, values):
    return " ".join(f"{t}: {v}" for t, v in zip(tags, values))


def _dims_empty(input, first, fn):
    for i in range(first, input.ndim):
        if input.shape[i] == 0:
            raise RuntimeError(f"{fn}: Expected input to have non-zero size for non-batch "
                               f"dimensions, but input has sizes {list(input.shape)} with "
                               f"dimension {i} being empty")


def _shape_check(input, k, s, p, d, outs, fn=None, check_input_size=False):
    """pool2d_shape_check / pool3d_shape_check."""
    n = len(k)
    tags = ("T", "H", "W")[3 - n:]
    if min(k) <= 0:
        raise RuntimeError("kernel size should be greater than zero, but got "
                           + _join([f"k{t}" for t in tags], k))
    if min(s) <= 0:
        raise RuntimeError("stride should be greater than zero, but got "
                           + _join([f"d{t}" for t in tags], s))
    if min(d) <= 0:
        raise RuntimeError("dilation should be greater than zero, but got "
                           + _join([f"dilation{t}" for t in tags], d))
    shape = list(input.shape)
    if n == 2:
        if not ((input.ndim == 3 and 0 not in shape) or (input.ndim == 4 and 0 not in shape[1:])):
            raise RuntimeError("Expected 3D or 4D (batch mode) tensor with optional 0 dim batch "
                               f"size for input, but got:{shape}")
    else:
        if input.ndim not in (4, 5):
            raise RuntimeError(f"{fn}: Expected 4D or 5D tensor for input, but got: {shape}")
        _dims_empty(input, input.ndim - 4, fn)
        if check_input_size and any(a < b for a, b in zip(shape[-3:], k)):
            raise RuntimeError(f"input image (T: {shape[-3]} H: {shape[-2]} W: {shape[-1]}) "
                               f"smaller than kernel size (kT: {k[0]} kH: {k[1]} kW: {k[2]})")
    if any(kk // 2 < pp for kk, pp in zip(k, p)):
        if n == 2:
            raise RuntimeError("pad should be smaller than or equal to half of kernel size, but "
                               f"got padW = {p[1]}, padH = {p[0]}, kW = {k[1]}, kH = {k[0]}")
        raise RuntimeError("pad should be smaller than or equal to half of kernel size, but got "
                           f"kT: {k[0]} kW: {k[2]} kH: {k[1]} padT: {p[0]} padW: {p[2]} "
                           f"padH: {p[1]}")
    if None not in outs and min(outs) < 1:
        plane = shape[-n - 1]
        raise RuntimeError(f"Given input size: ({'x'.join(map(str, [plane] + shape[-n:]))}). "
                           f"Calculated output size: "
                           f"({'x'.join(map(str, [plane] + outs))}). Output size is too small")


def _rank(input, n):
    """PyTorch's words (which name no shape), then the shape."""
    if input.ndim not in (n + 1, n + 2):
        raise RuntimeError(f"non-empty {n + 1}D or {n + 2}D (batch mode) tensor expected for "
                           f"input, but got input of size: {list(input.shape)}")


def _stride(stride, kernel_size):
    if stride is None:
        return kernel_size
    return kernel_size if isinstance(stride, (tuple, list)) and len(stride) == 0 else stride


def pool_int_args(fn, kernel_size, stride, padding, *dilation):
    """check_int_args of a pool's kernel_size, stride (None or empty: the
    kernel's), padding and dilation (avg_pool has none)."""
    args = [(kernel_size, "kernel_size", 2), (padding, "padding", 4)]
    if stride is not None and not (isinstance(stride, (tuple, list)) and not stride):
        args.insert(1, (stride, "stride", 3))
    check_int_args(fn, *args, *[(d, "dilation", 5) for d in dilation])


def max_pool(input, kernel_size, stride, padding, dilation, ceil_mode, n, indices=False):
    """max_pool{n}d's refusals; the (k, s, p, d) it pools with (indices: the
    call returns them, and PyTorch's binding is max_pool{n}d_with_indices)."""
    plain = _plain((kernel_size, _stride(stride, kernel_size), padding, dilation), n)
    if plain is not None and _passes(input, n, *plain, ceil_mode):
        return plain
    pool_int_args(f"max_pool{n}d" + ("_with_indices" if indices else ""), kernel_size, stride,
                  padding, dilation)
    if n == 1:
        name = "max_pool1d()"
        k = ints(kernel_size, 1, name + " kernel_size must be an int, list of ints or tuple of "
                 "ints of size 1 but got size {}")
        s = ints(_stride(stride, kernel_size), 1, name + " stride must be None, an int, list "
                 "of ints, or tuple of ints of size 1 but got size {}")
        p = ints(padding, 1, name + " padding must be an int, list of ints, or tuple of ints "
                 "of size 1 but got size {}")
        d = ints(dilation, 1, name + " dilation must be an int, list of ints or tuple of ints "
                 "of size 1 but got size {}")
        if input.ndim not in (2, 3) or 0 in input.shape[input.ndim - 2:]:
            raise RuntimeError("max_pool1d: Expected 2D or 3D (batch mode) tensor with optional "
                               f"0 dim batch size for input, but got:{list(input.shape)}")
        checks = ((k[0] > 0, f"kernel_size must be greater than zero, but got {k[0]}"),
                  (s[0] > 0, f"stride must be greater than zero, but got {s[0]}"),
                  (p[0] >= 0, f"padding must be non-negative, but got {p[0]}"),
                  (p[0] <= _half(k[0]), "padding should be at most half of kernel size, but "
                   f"got padding={p[0]} and kernel_size={k[0]}"),
                  (d[0] > 0, f"dilation must be greater than zero, but got {d[0]}"))
        for ok, words in checks:
            if not ok:
                raise RuntimeError(f"{name} {words}")
        out = output_size(input.shape[-1], k[0], p[0], s[0], d[0], ceil_mode)
        if out is not None and out <= 0:
            raise RuntimeError(f"{name} Invalid computed output size: {out}")
        return k, s, p, d
    name, count = f"max_pool{n}d", _WORDS[n]
    k = ints(kernel_size, n, f"{name}: kernel_size must either be a single int, or a tuple of "
             f"{count} ints")
    s = ints(_stride(stride, kernel_size), n, f"{name}: stride must either be omitted, a single "
             f"int, or a tuple of {count} ints")
    p = ints(padding, n, f"{name}: padding must either be a single int, or a tuple of "
             f"{count} ints")
    d = ints(dilation, n, f"{name}: dilation must be either a single int, or a tuple of "
             f"{count} ints")
    _rank(input, n)
    outs = _output_sizes(input, k, s, p, d, ceil_mode)
    _shape_check(input, k, s, p, d, outs, "max_pool3d_with_indices_out_cpu_template()")
    return k, s, p, d


def _avg_pool1d_args(kernel_size, stride, padding, name="avg_pool1d"):
    """avg_pool1d's argument parser: each a single int or a 1-sequence."""
    return tuple(ints(v, 1, f"{name}() argument '{arg}' should contain one int (got {{}})",
                      single=False)
                 for v, arg in ((kernel_size, "kernel_size"),
                                (_stride(stride, kernel_size), "stride"),
                                (padding, "padding")))


def avg_pool(input, kernel_size, stride, padding, ceil_mode, divisor_override, n):
    """avg_pool{n}d's refusals (lp_pool's too); the (k, s, p) it pools with."""
    plain = _plain((kernel_size, _stride(stride, kernel_size), padding), n)
    if plain is not None and (divisor_override is None or divisor_override != 0) and \
            _passes(input, n, *plain, (1,) * n, ceil_mode, fit_kernel=n == 3):
        return plain
    pool_int_args(f"avg_pool{n}d", kernel_size, stride, padding)
    if n == 1:
        k, s, p = _avg_pool1d_args(kernel_size, stride, padding)
        if input.ndim not in (2, 3):
            raise RuntimeError(f"Expected 2 to 3 dimensions, but got {input.ndim}-dimensional "
                               "tensor for argument #1 'self' (while checking arguments for "
                               "avg_pool1d)")
        # PyTorch pools the (N, C, 1, L) view with avg_pool2d
        view = input.unsqueeze(-2)
        k2, s2, p2 = (1,) + k, (1,) + s, (0,) + p
        _shape_check(view, k2, s2, p2, (1, 1), _output_sizes(view, k2, s2, p2, (1, 1),
                                                             ceil_mode))
        return k, s, p
    name, count = f"avg_pool{n}d", _WORDS[n]
    either = "either " if n == 2 else ""
    k = ints(kernel_size, n, f"{name}: kernel_size must {either}be a single int, or a tuple of "
             f"{count} ints")
    s = ints(_stride(stride, kernel_size), n, f"{name}: stride must {either}be omitted, a "
             f"single int, or a tuple of {count} ints")
    p = ints(padding, n, f"{name}: padding must {either}be a single int, or a tuple of "
             f"{count} ints")
    if n == 3:
        _rank(input, n)
    if divisor_override is not None and divisor_override == 0:
        raise RuntimeError("divisor must be not zero")
    if n == 2:
        input.size(-3)  # PyTorch reads the planes first: its IndexError for 1-d and 2-d input
    ones = (1,) * n
    outs = _output_sizes(input, k, s, p, ones, ceil_mode)
    _shape_check(input, k, s, p, ones, outs, "avg_pool3d()", check_input_size=True)
    return k, s, p


# ---- adaptive pooling ---------------------------------------------------------------------

def adaptive_sizes(output_size, input, n, name):
    """The output sizes PyTorch's adaptive_{avg,max}_pool{n}d reads (None
    keeps the input's size), refused in its words."""
    if n == 1:
        check_int_args(name, (output_size, "output_size", 2))
        (size,) = ints(output_size, 1, f"{name}() argument 'output_size' should contain one "
                       "int (got {})", single=False)
        if input.ndim not in (2, 3):
            raise RuntimeError(f"Expected 2 to 3 dimensions, but got {input.ndim}-dimensional "
                               f"tensor for argument #1 'self' (while checking arguments for "
                               f"{name})")
        return (size,)
    if isinstance(output_size, numbers.Integral):
        check_int_args(name, (output_size, "output_size", 2))
        return (int(output_size),) * n
    sizes = tuple(output_size)
    if input.ndim <= len(sizes):  # F's Python check, before the kernel's
        raise ValueError(f"Input dimension should be at least {len(sizes) + 1}")
    sizes = tuple(input.shape[input.ndim - len(sizes) + i] if v is None else v
                  for i, v in enumerate(sizes))
    check_int_args(name, (sizes, "output_size", 2))
    sizes = tuple(int(v) for v in sizes)
    if len(sizes) != n:
        kind = name.split("_")[1]
        if kind == "max":
            raise RuntimeError(f"{name}(): internal error: output_size.size() must be {n}")
        raise RuntimeError(f"{name}: output_size must be {n}")
    return sizes


def adaptive_avg(input, sizes, n):
    """adaptive_avg_pool's refusal of negative sizes (1d in 2d's words)."""
    if min(sizes) < 0:
        shown = (1,) + sizes if n == 1 else sizes
        listed = ", ".join(map(str, shown)) if n < 3 else f"{shown[0]}, {shown[1]},{shown[2]}"
        raise RuntimeError(f"adaptive_avg_pool{max(n, 2)}d: elements of output_size must be "
                           f"greater than or equal to 0 but received {{{listed}}}")


def adaptive_max(input, sizes, n, name):
    """adaptive_max_pool's refusals: rank, empty non-batch dims, negative sizes."""
    if n > 1 and input.ndim not in (n + 1, n + 2):
        raise RuntimeError(f"{name}(): Expected {n + 1}D or {n + 2}D tensor, but got: "
                           f"{list(input.shape)}")
    _dims_empty(input, 1, f"{name}()")
    if min(sizes) < 0:
        lead = list(input.shape[:input.ndim - n]) + ([1] if n == 1 else [])
        bad = min(sizes)
        raise RuntimeError(f"Trying to create tensor with negative dimension {bad}: "
                           f"{lead + list(sizes)}")


# ---- unfold and fold ----------------------------------------------------------------------

def _pair(value, arg):
    return ints(value, 2, f"It is expected {arg} equals to 2, but got size {{}}", single=False)


def _window_checks(k, d, p, s, stride_first):
    checks = [(min(k) > 0, f"kernel size should be greater than zero, but got kernel_height: "
               f"{k[0]} kernel_width: {k[1]}"),
              (min(d) > 0, f"dilation should be greater than zero, but got dilation_height: "
               f"{d[0]} dilation_width: {d[1]}"),
              (min(p) >= 0, f"padding should be non-negative, but got pad_height: {p[0]} "
               f"pad_width: {p[1]}"),
              (min(s) > 0, f"stride should be greater than zero, but got stride_height: {s[0]} "
               f"stride_width: {s[1]}")]
    if stride_first:  # col2im's order: kernel, stride, dilation, padding
        checks = [checks[0], checks[3], checks[1], checks[2]]
    for ok, words in checks:
        if not ok:
            raise RuntimeError(words)


def unfold(input, kernel_size, dilation, padding, stride):
    """im2col's refusals; its (k, d, p, s)."""
    kernel_size, dilation, padding, stride = (_pair_items(v) for v in
                                              (kernel_size, dilation, padding, stride))
    check_int_args("im2col", (kernel_size, "kernel_size", 2), (dilation, "dilation", 3),
                   (padding, "padding", 4), (stride, "stride", 5))
    k, d, p, s = (_pair(kernel_size, "kernel_size"), _pair(dilation, "dilation"),
                  _pair(padding, "padding"), _pair(stride, "stride"))
    _window_checks(k, d, p, s, False)
    shape = list(input.shape)
    valid = input.size(1) != 0 and input.size(2) != 0  # PyTorch's IndexError below 3-d
    if not ((input.ndim == 3 and shape[0] and valid) or (input.ndim == 4 and valid and shape[3])):
        raise RuntimeError("Expected 3D or 4D (batch mode) tensor with possibly 0 batch size and "
                           f"other non-zero dimensions for input, but got: {shape}")
    h, w = shape[-2:]
    outs = [output_size(size, kk, pp, ss, dd, False)
            for size, kk, pp, ss, dd in zip((h, w), k, p, s, d)]
    if None not in outs and min(outs) < 1:
        raise RuntimeError(f"Given input with spatial size ({h}, {w}), kernel_size=({k[0]}, "
                           f"{k[1]}), dilation=({d[0]}, {d[1]}), padding=({p[0]}, {p[1]}), "
                           f"calculated shape of the array of sliding blocks as ({outs[0]}, "
                           f"{outs[1]}), but its components must be at least one.")
    return k, d, p, s


def fold(input, output_size_, kernel_size, dilation, padding, stride):
    """col2im's refusals; its (output_size, k, d, p, s)."""
    output_size_, kernel_size, dilation, padding, stride = (
        _pair_items(v) for v in (output_size_, kernel_size, dilation, padding, stride))
    check_int_args("col2im", (output_size_, "output_size", 2), (kernel_size, "kernel_size", 3),
                   (dilation, "dilation", 4), (padding, "padding", 5), (stride, "stride", 6))
    o = _pair(output_size_, "output_size")
    k, d, p, s = (_pair(kernel_size, "kernel_size"), _pair(dilation, "dilation"),
                  _pair(padding, "padding"), _pair(stride, "stride"))
    _window_checks(k, d, p, s, True)
    shape = list(input.shape)
    if not ((input.ndim == 2 and shape[0] and shape[1]) or
            (input.ndim == 3 and shape[1] and shape[2])):
        raise RuntimeError("Expected 2D or 3D (batch mode) tensor for input with possibly 0 "
                           f"batch size and non-zero dimensions for input, but got: {shape}")
    planes, length = shape[-2], shape[-1]
    if _fits(k[0] * k[1]) and planes % (k[0] * k[1]):
        raise RuntimeError("Expected size of input's dimension 1 to be divisible by the product "
                           f"of kernel_size, but got input.size(1)={planes} and "
                           f"kernel_size=({k[0]}, {k[1]}).")
    blocks = [output_size(size, kk, pp, ss, dd, False)
              for size, kk, pp, ss, dd in zip(o, k, p, s, d)]
    if None in blocks or not _fits(blocks[0] * blocks[1]):
        return o, k, d, p, s
    given = (f"Given output_size=({o[0]}, {o[1]}), kernel_size=({k[0]}, {k[1]}), "
             f"dilation=({d[0]}, {d[1]}), padding=({p[0]}, {p[1]}), stride=({s[0]}, {s[1]}), ")
    if length != blocks[0] * blocks[1]:
        raise RuntimeError(given + "expected size of input's dimension 2 to match the "
                           f"calculated number of sliding blocks {blocks[0]} * {blocks[1]} = "
                           f"{blocks[0] * blocks[1]}, but got input.size(2)={length}.")
    if min(blocks) < 1:
        raise RuntimeError(given + f"calculated shape of the array of sliding blocks as "
                           f"({blocks[0]}, {blocks[1]}), which is too small (non-positive)")
    return o, k, d, p, s
