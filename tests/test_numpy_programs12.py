"""NumPy programs, twelfth round: kinds the first eleven rounds
(tests/test_numpy_programs.py ... 11.py) touch least -- ndarray methods
(tobytes/frombuffer round trips, view with dtypes of other widths and of
complex pairs, byteswap read back through views, item and its errors,
setflags, astype with every casting rule, put/take with modes and cycling
values, choose and compress, searchsorted with sorter=, partition and
argpartition with kth lists, sort kinds spelled as NumPy reads them),
files and buffers (tofile/fromfile in binary and text, save/load and
savetxt/loadtxt through memory, fromiter/fromstring), np.lib.stride_tricks
(sliding_window_view along axes, of reversed and 3-d arrays, as_strided
Toeplitz matrices and frames), masking without np.ma (where= into a
prepared out, reductions with where=/initial=, copyto/select/piecewise,
NaN-masked accumulations), einsum with optimize= and its dtypes, batched
linalg with empty batches and float32 results, Generator usage compared
by shape, dtype, range and reproducibility (torchlike draws its own
stream), text (array2string options, printoptions, array_repr/array_str of
0-d, empty, complex and summarized arrays), errstate with integer
division and overflow, dtype queries, packed bits, calendar arithmetic on
integers, the polynomial module (fits, roots, algebra, Gauss quadrature,
orthogonal series) and set operations (unique with every return and axis,
the unique_* functions, intersect1d with return_indices, isin by kind) --
run once with NumPy and once with ``torchlike.numpy``, with round 4's
oracle and conventions (NumPy for values, dtypes and shapes).

What they found (each with a focused test in the test file of its area):

- ``np.sort``/``np.argsort``/``x.sort`` ignored a kind NumPy refuses
  (``kind="timsort"``, ``kind=3``); ``np.partition`` ignored its kind and
  took an empty or float kth list; ``np.take`` truncated a float index
  array where NumPy refuses it, and ``np.searchsorted`` refused an int32
  ``sorter=`` -- tests/test_numpy_namespace_more.py.
- ``x.view(np.int64)`` of a strided or 0-d array raised PyTorch's
  RuntimeError where NumPy raises ValueError (now torchlike.ViewError, of
  both classes), and refused empty arrays NumPy views --
  tests/test_shapes.py.
- ``x.clip(lo, hi, dtype=...)`` (and ``where=``, ``casting=``) was PyTorch's
  clamp, which refused the keywords -- tests/test_numpy_namespace_more.py;
  ``x.__array__(np.float32)`` of float64 data refused the cast NumPy makes
  -- tests/test_interop.py.

What differs by design (docs/numpy.md), spelled around here: ``repr(x)``
is PyTorch's (the programs print with ``np.array_repr``/``np.array_str``),
``int_array // 0`` with operators raises PyTorch's ZeroDivisionError
(``np.floor_divide`` gives NumPy's zeros), ``np.result_type(int32,
float32)`` and int/float einsums follow PyTorch's promotion, ``x.item()``
of several elements and ``x.nonzero()`` are PyTorch's, ``u8.sum(axis=)``
is int64, sliding windows are writeable, ``x.size`` is the Size's int
subclass, and NumPy 2.4's ``unique_values`` order is unspecified (compared
sorted).
"""
import numpy

from test_numpy_programs import _run

_RNG = numpy.random.default_rng(12)
F64 = _RNG.normal(0, 1, (6, 5))
F32 = _RNG.normal(0, 1, (4, 6)).astype(numpy.float32)
I64 = _RNG.integers(-50, 50, (5, 6))
U8 = _RNG.integers(0, 256, (4, 8)).astype(numpy.uint8)
SIGNAL = numpy.sin(numpy.linspace(0, 6, 40)) + _RNG.normal(0, 0.1, 40)
XS = numpy.linspace(-1, 1, 25)
YS = 1.0 - 2.0 * XS + 0.5 * XS ** 2 + _RNG.normal(0, 0.01, 25)
IDS_A = _RNG.integers(0, 30, 25)
IDS_B = _RNG.integers(10, 40, 20)
ROWS = _RNG.integers(0, 3, (12, 3))
SPD = _RNG.normal(0, 1, (3, 4, 4))
SPD = SPD @ SPD.transpose(0, 2, 1) + 4 * numpy.eye(4)


# ---- ndarray methods: bytes, views with other dtypes, items ---------------------------

def byte_roundtrips(np):
    """Arrays to bytes and back by frombuffer, a float32 array's bits as
    int32 and uint8 views (the last axis grows by the size ratio), and
    tobytes of a transposed (Fortran-order) array."""
    x = np.asarray(F32)
    b = x.tobytes()
    back = np.frombuffer(b, dtype=np.float32).reshape(x.shape)
    bits = x.view(np.int32)
    u8 = x.view(np.uint8)
    signs = (bits < 0) == (x < 0)
    t = np.asarray(I64).T
    return (len(b), back, bits, u8.shape, u8[0, :8], signs.all(), bits.dtype == np.int32,
            np.frombuffer(t.tobytes(), dtype=np.int64)[:7],
            np.frombuffer(t.tobytes(order="F"), dtype=np.int64)[:7],
            np.asarray(U8).view(np.int8)[0])


def bit_views(np):
    """Float64 exponents read from the bit pattern: view as uint64, shift and
    mask; int64 to float64 views and back; a uint8 image seen as uint16
    and uint32 words."""
    x = np.asarray([1.0, 2.0, 0.75, -3.5, 1e-300, 1e300])
    u = x.view(np.uint64)
    expo = ((u >> np.uint64(52)) & np.uint64(0x7FF)).astype(np.int64) - 1023
    mant = u & np.uint64((1 << 52) - 1)
    sign = (u >> np.uint64(63)).astype(np.int64)
    img = np.asarray(U8)
    w16 = img.view(np.uint16)
    w32 = img.view(np.uint32)
    return (expo, mant, sign, np.frexp(x)[1], w16.shape, w16, w32, w32.dtype == np.uint32,
            x.view(np.int64).view(np.float64))


def item_access(np):
    """item() with flat and multi-indices, tolist of 0-d, 1-d and 2-d arrays,
    and Python types of the items of several dtypes."""
    a = np.asarray(I64)
    f = np.asarray(F64)
    b = np.asarray([True, False])
    return (a.item(7), a.item(2, 3), a.item((4, 5)), type(a.item(0)).__name__,
            f.item(3), type(f.item(1)).__name__, type(b.item(0)).__name__,
            a[:2, :3].tolist(), np.asarray(3.5).tolist(), np.asarray(U8)[0].tolist(),
            np.asarray(5).item())


def byte_swaps(np):
    """byteswap of int16, int32 and float64 arrays read back through a
    view of the swapped dtype; swapping twice is the identity."""
    a = np.asarray([1, 256, -2, 0x1234], dtype=np.int16)
    s = a.byteswap()
    i = np.asarray([1, 2, 0x01020304], dtype=np.int32)
    f = np.asarray([1.0, -2.5])
    return (s, i.byteswap(), f.byteswap().view(np.uint64), s.byteswap(), a)


def read_only_flags(np):
    """setflags(write=False) on a lookup table, the flag read back, the
    ValueError of a write, and a writeable copy."""
    table = np.arange(10) * 3
    table.setflags(write=False)
    try:
        table[0] = 1
        err = None
    except ValueError as e:
        err = type(e).__name__
    c = table.copy()
    c[0] = 99
    return table.flags.writeable, err, c.flags.writeable, c, table


# ---- casting, put/take, choose, compress -----------------------------------------------

def casting_rules(np):
    """astype with casting='safe', 'same_kind', 'unsafe' and 'no': widening
    passes, narrowing raises TypeError under the strict rules; can_cast
    says the same thing beforehand."""
    i32 = np.asarray([1, -2, 300], dtype=np.int32)
    f64 = np.asarray([1.7, -2.2, 1e10])
    out = [i32.astype(np.int64, casting="safe"), i32.astype(np.float64, casting="safe"),
           f64.astype(np.float32, casting="same_kind"), f64[:2].astype(np.int32, casting="unsafe"),
           i32.astype(np.uint8, casting="unsafe"), i32.astype(np.int32, casting="no")]
    for src, dst, rule in [(i32, np.int16, "safe"), (f64, np.int64, "same_kind"),
                           (i32, np.int64, "no"), (f64, np.float32, "safe"),
                           (i32, np.float32, "equiv")]:
        try:
            src.astype(dst, casting=rule)
            out.append("ok")
        except TypeError:
            out.append("TypeError")
    out += [np.can_cast(np.int32, np.int64), np.can_cast(np.float64, np.float32),
            np.can_cast(np.float64, np.float32, casting="same_kind"),
            np.can_cast(np.int64, np.float64, casting="safe")]
    return tuple(out)


def put_and_take_modes(np):
    """take with mode='wrap' and 'clip' on out-of-range indices, along an
    axis too; put in place with the same modes; 'raise' refuses with an
    IndexError."""
    a = np.arange(10, 20)
    m = np.arange(12).reshape(3, 4)
    idx = np.asarray([-12, -1, 3, 11, 25])
    t = (a.take(idx, mode="wrap"), a.take(idx, mode="clip"), np.take(m, [0, 5, -1], axis=1, mode="wrap"),
         np.take(m, [[0, 9], [2, 1]], axis=0, mode="clip"))
    b = a.copy()
    b.put([0, 12, -13], [100, 200, 300], mode="wrap")
    c = a.copy()
    c.put([2, 40], [7, 8], mode="clip")
    d = a.copy()
    np.put(d, [1, 3], 5)
    try:
        a.take([10])
        err = None
    except IndexError:
        err = "IndexError"
    try:
        a.copy().put([11], [0])
        err2 = None
    except IndexError:
        err2 = "IndexError"
    return t, b, c, d, err, err2


def choose_and_compress(np):
    """choose picks among three arrays by an index array (modes 'clip' and
    'wrap' beyond the choices), compress keeps rows and columns by a bool
    condition shorter than the axis, and a flat compress."""
    idx = np.asarray([[0, 1, 2, 3], [2, 1, 0, -1]])
    choices = [np.full((2, 4), 10), np.arange(8).reshape(2, 4), np.asarray([-1, -2, -3, -4])]
    m = np.asarray(F64)
    keep = np.asarray([True, False, True])
    out = (np.choose(idx, choices, mode="clip"), np.choose(idx, choices, mode="wrap"),
           np.choose(np.asarray([0, 1, 1, 0]), [np.zeros(4), np.ones(4)]),
           m.compress(keep, axis=0), m.compress([False, True, True, False, True], axis=1),
           np.compress(m.ravel() > 1, m), m.compress(keep))
    try:
        np.choose(idx, choices)
        err = None
    except ValueError:
        err = "ValueError"
    return out + (err,)


def sorted_lookups(np):
    """searchsorted of an unsorted array through sorter=argsort, both sides,
    with list, 0-d and 2-d needles; the found positions mapped back to the
    original indices."""
    hay = np.asarray(IDS_A)
    order = np.argsort(hay, kind="stable")
    needles = np.asarray([[0, 5, 13], [29, 30, -1]])
    left = np.searchsorted(hay, needles, side="left", sorter=order)
    right = hay.searchsorted(needles, side="right", sorter=order)
    hits = right > left
    first = order[np.minimum(left, hay.size - 1)]
    return (left, right, hits, np.where(hits, first, -1), hay.searchsorted(7, sorter=order),
            np.searchsorted(hay, [3, 4], sorter=order), left.dtype == np.intp)


def partial_orders(np):
    """partition and argpartition with a list of kth: the kth places hold the
    order statistics, everything before is no larger and after no smaller;
    the median by partition; negative kth; along axis 0."""
    x = np.asarray(SIGNAL)
    kth = [5, 20, 30]
    p = np.partition(x, kth)
    ap = np.argpartition(x, kth)
    s = np.sort(x)
    ok_left = all(bool((p[:k] <= p[k]).all()) and bool((p[k + 1:] >= p[k]).all()) for k in kth)
    m = np.asarray(F64)
    pm = np.partition(m, 2, axis=0)
    mid = x.size // 2
    med = np.partition(x, [mid - 1, mid])[mid - 1:mid + 1].mean()
    y = x.copy()
    y.partition(-3)
    return (p[kth], x[ap[kth]], s[kth], ok_left, pm[2], np.sort(m, axis=0)[2], med, np.median(x),
            y[-3], np.sort(x)[-3], ap.dtype == np.intp, np.argpartition(m, 1, axis=1)[:, 1].shape)


# ---- stride tricks ------------------------------------------------------------------------

def window_views(np):
    """sliding_window_view along chosen axes, a rolling max and median, a
    2-d window's shape, windows of non-contiguous and reversed arrays, and
    one window as big as the array."""
    swv = np.lib.stride_tricks.sliding_window_view
    x = np.asarray(SIGNAL)
    w = swv(x, 5)
    m = np.asarray(F64)
    w2 = swv(m, (2, 3))
    wa = swv(m, 3, axis=0)
    wb = swv(m[:, ::2], 2, axis=1)
    wr = swv(x[::-1], 4)
    return (w.shape, w.max(axis=-1), w2.shape, w2.sum(axis=(-2, -1)), wa.shape, wa[1, 2], wb,
            wr[:3], np.median(w, axis=1), swv(np.asarray(I64), (5, 6)).shape)


def strided_reads(np):
    """as_strided reads: a Toeplitz matrix from one vector with a negative
    stride folded in, overlapping frames of a signal, a broadcast row by a
    zero stride, and the diagonal by a stride of n+1 elements."""
    ast = np.lib.stride_tricks.as_strided
    v = np.arange(1.0, 8.0)
    n = 4
    toe = ast(v[n - 1:], shape=(n, n), strides=(-v.strides[0], v.strides[0]))
    x = np.asarray(SIGNAL)
    frames = ast(x, shape=((x.size - 8) // 4 + 1, 8), strides=(4 * x.strides[0], x.strides[0]))
    row = ast(np.arange(3), shape=(4, 3), strides=(0, 8))
    m = np.asarray(F64)[:5, :5].copy()
    diag = ast(m, shape=(5,), strides=((5 + 1) * m.itemsize,))
    return toe, frames.shape, frames.mean(axis=1), row, diag, np.diag(m)


# ---- where= masking ----------------------------------------------------------------------

def masked_by_where(np):
    """Masked arithmetic without np.ma: divide where the denominator is
    non-zero into a prepared out, a log where positive, masked means by
    sum(where=)/count, and max(where=, initial=)."""
    num = np.asarray(I64).astype(np.float64)
    den = np.asarray(I64) % 7
    ratio = np.divide(num, den, out=np.full(num.shape, np.nan), where=den != 0)
    logs = np.log(num, out=np.zeros_like(num), where=num > 0)
    valid = num > -10
    means = num.sum(axis=1, where=valid) / valid.sum(axis=1)
    mx = num.max(axis=0, where=valid, initial=-np.inf)
    mn = np.min(num, axis=1, where=num > 0, initial=1e9)
    return ratio, logs, means, mx, mn, np.mean(num, where=valid), np.nansum(ratio)


# ---- einsum with optimize= ----------------------------------------------------------------

def einsum_optimized(np):
    """A chain of four matrices and a bilinear form contracted with
    optimize='greedy', 'optimal' and True, against the unoptimized call;
    the contraction path's first element."""
    a = np.asarray(F64)
    b = np.asarray(F64).T
    c = np.asarray(F64)
    v = np.asarray(F64)[0]
    out = []
    for opt in (False, True, "greedy", "optimal"):
        out.append(np.einsum("ij,jk,kl,l->i", a, b, c, v, optimize=opt))
    out.append(np.einsum("bij,bjk->bik", np.asarray(SPD), np.asarray(SPD), optimize=True))
    out.append(np.einsum("i,i", v, v, optimize="greedy"))
    path = np.einsum_path("ij,jk,kl->il", a, b, c, optimize="greedy")[0]
    out.append(path[0])
    out.append(len(path))
    return tuple(out)


# ---- batched linalg ----------------------------------------------------------------------

def batched_linalg_corners(np):
    """Batched inverse, determinant, solve and Cholesky of a (3, 4, 4) stack
    of SPD matrices in float64 and float32 (the result dtypes follow), and
    the same calls on an empty batch (0, 4, 4)."""
    a = np.asarray(SPD)
    a32 = a.astype(np.float32)
    b = np.ones((3, 4, 1))
    e = np.zeros((0, 4, 4))
    out = [np.linalg.inv(a), np.linalg.det(a), np.linalg.solve(a, b), np.linalg.cholesky(a),
           np.linalg.inv(a32).dtype == np.float32, np.linalg.det(a32).dtype == np.float32,
           np.linalg.eigvalsh(a32).dtype == np.float32, np.linalg.slogdet(a)[1],
           np.linalg.inv(e).shape, np.linalg.det(e).shape, np.linalg.det(e).dtype == np.float64,
           np.linalg.eigvalsh(e).shape, np.linalg.cholesky(e).shape,
           np.linalg.solve(e, np.zeros((0, 4, 2))).shape, np.linalg.norm(a, axis=(1, 2)),
           np.linalg.matrix_rank(a), np.linalg.svd(e, compute_uv=False).shape]
    return tuple(out)


def float32_linalg(np):
    """Single-precision results: lstsq, eigh, svd and qr of float32 input
    stay float32 (compared at float32's tolerance by rounding)."""
    a = np.asarray(F32).T.copy()
    y = a @ np.asarray([1.0, -1.0, 0.5, 2.0], dtype=np.float32)
    coef = np.linalg.lstsq(a, y, rcond=None)[0]
    w = np.linalg.eigvalsh(a.T @ a)
    s = np.linalg.svd(a, compute_uv=False)
    q, r = np.linalg.qr(a)
    return (coef.dtype == np.float32, np.round(coef, 3), w.dtype == np.float32,
            np.round(w / w.max(), 3), s.dtype == np.float32, np.round(s, 3), q.dtype == np.float32,
            q.shape, r.shape, np.round(np.abs(np.diag(r)), 3),
            np.linalg.norm(a).dtype == np.float32)


# ---- Generator usage patterns -------------------------------------------------------------

def generator_usage(np):
    """default_rng seeded twice gives the same numbers; draws compared by
    shape, dtype and range only (torchlike's stream is not NumPy's)."""
    g1 = np.random.default_rng(42)
    g2 = np.random.default_rng(42)
    a, b = g1.random((3, 4)), g2.random((3, 4))
    ints = g1.integers(0, 10, size=(5,), dtype=np.int32)
    f32 = g1.standard_normal(6, dtype=np.float32)
    ch = g1.choice(10, size=4, replace=False)
    perm = g1.permutation(7)
    sh = np.arange(5)
    g1.shuffle(sh)
    u = g1.uniform(-1, 1, size=(2, 2))
    n = g1.normal(np.zeros(3), 1.0)
    return (bool((a == b).all()), a.shape, a.dtype == np.float64, bool(((a >= 0) & (a < 1)).all()),
            ints.dtype == np.int32, bool(((ints >= 0) & (ints < 10)).all()), f32.dtype == np.float32,
            ch.shape, len(set(ch.tolist())), np.sort(perm), np.sort(sh), u.shape, n.shape,
            np.shape(g1.integers(5)), np.shape(g1.random()))


# ---- string formatting --------------------------------------------------------------------

def array_text(np):
    """array2string with precision, separator, suppress_small and a
    formatter; repr and str of 0-d, empty and summarized arrays;
    printoptions in a with-block."""
    x = np.asarray([1.23456, -0.000012, 1000.5])
    out = [np.array2string(x, precision=2), np.array2string(x, separator=", "),
           np.array2string(x, suppress_small=True, precision=3),
           np.array2string(np.arange(6).reshape(2, 3), formatter={"int": lambda v: f"<{v}>"}),
           np.array_repr(np.asarray(2.5)), np.array_repr(np.asarray(7)), np.array_str(np.asarray(7)),
           np.array_repr(np.zeros((0, 3))), np.array_repr(np.zeros(0, dtype=np.int32)),
           np.array_str(np.zeros((2, 0))), np.array_repr(np.arange(2000)),
           np.array_str(np.arange(2000.0).reshape(40, 50)), np.array_repr(np.asarray([True, False])),
           np.array_repr(np.asarray([1.5, np.nan, np.inf], dtype=np.float32)),
           np.array_repr(np.asarray([[1, 2], [3, 4]], dtype=np.uint8)),
           np.array2string(np.asarray(3.25)), np.array2string(np.zeros((0, 2))),
           np.array2string(np.linspace(0, 1, 3), max_line_width=8),
           f"{float(np.asarray(2.0) / 3):.4f}"]
    with np.printoptions(precision=3, suppress=True):
        out.append(np.array_repr(x))
        out.append(np.array_str(np.asarray([1e-10, 1.0])))
    with np.printoptions(threshold=5, edgeitems=2):
        out.append(np.array_repr(np.arange(10)))
    out.append(np.array_repr(x))
    out.append(np.array_repr(np.asarray(F32)[:2, :3], precision=2))
    return tuple(out)


# ---- errstate with integers ---------------------------------------------------------------

def integer_errors(np):
    """Integer division by zero gives 0 (floor_divide and remainder) under
    errstate(divide='ignore'); integer overflow wraps silently; float
    division by zero under errstate gives inf and nan."""
    a = np.asarray([7, -7, 0, 5], dtype=np.int64)
    z = np.asarray([0, 0, 0, 2], dtype=np.int64)
    with np.errstate(divide="ignore", invalid="ignore"):
        fd = np.floor_divide(a, z)
        rm = np.remainder(a, z)
        fl = a.astype(np.float64) / z
        dm = np.divmod(a, z)
    big = np.asarray([2 ** 62, 2 ** 63 - 1], dtype=np.int64)
    i8 = np.asarray([100, 127, -128], dtype=np.int8)
    with np.errstate(over="ignore"):
        wrap = big * 2
        w8 = i8 + i8
        neg = -i8
        ab = np.abs(i8)
    state = np.geterr()
    return fd, rm, fl, dm, wrap, w8, neg, ab, state["divide"], fd.dtype == np.int64


# ---- polynomial module --------------------------------------------------------------------

def polynomial_fits(np):
    """Polynomial.fit on a scaled domain, convert() to plain coefficients,
    roots of the fit and of a built polynomial, derivative and integral,
    evaluation at arrays, and linspace of a series."""
    P = np.polynomial.Polynomial
    x, y = np.asarray(XS), np.asarray(YS)
    fit = P.fit(x, y, 2)
    coef = fit.convert().coef
    p = P([6.0, -5.0, 1.0])
    r = p.roots()
    dp = p.deriv()
    ip = p.integ(lbnd=0)
    xs, ys = p.linspace(5, domain=[0, 4])
    return (np.round(coef, 2), fit.domain, fit.window, r, dp.coef, ip.coef, p(np.asarray([0.0, 2.0, 3.0])),
            xs, ys, (p * p).coef, (p // P([1.0, -1.0])).coef, p.degree(),
            np.polynomial.polynomial.polyroots([2.0, -3.0, 1.0]),
            np.polynomial.polynomial.polyval(2.0, [1.0, 2.0, 3.0]))


def chebyshev_fits(np):
    """Chebyshev and Legendre fits of the same data, converted to power
    series and evaluated; chebfit residuals with full=True."""
    x, y = np.asarray(XS), np.asarray(YS)
    C = np.polynomial.Chebyshev.fit(x, y, 3)
    L = np.polynomial.Legendre.fit(x, y, 3)
    coef, (res, rank, sv, rc) = np.polynomial.chebyshev.chebfit(x, y, 2, full=True)
    return (np.round(C.convert(kind=np.polynomial.Polynomial).coef, 2),
            np.round(L(x) - C(x), 6), coef, res, rank, sv, np.polynomial.chebyshev.chebval(0.5, coef))


# ---- set operations ----------------------------------------------------------------------

def unique_returns(np):
    """unique with return_index, return_inverse and return_counts, on 1-d
    data and rows (axis=0); reconstruct from the inverse; the NumPy 2
    unique_* functions."""
    a = np.asarray(IDS_A)
    u, idx, inv, cnt = np.unique(a, return_index=True, return_inverse=True, return_counts=True)
    rows = np.asarray(ROWS)
    ur, ri, rinv, rc = np.unique(rows, axis=0, return_index=True, return_inverse=True,
                                 return_counts=True)
    ua = np.unique_all(a)
    uc = np.unique_counts(a)
    return (u, idx, inv, cnt, bool((u[inv] == a).all()), ur, ri, rinv.shape, rc,
            bool((ur[rinv.ravel()] == rows).all()), ua.values, ua.indices, ua.inverse_indices,
            ua.counts, uc.counts, np.sort(np.unique_values(a)), np.unique_inverse(a).inverse_indices)


def set_functions(np):
    """intersect1d with assume_unique and return_indices, union1d,
    setdiff1d, setxor1d, and isin with kind='table' and 'sort' and
    invert=True."""
    a = np.unique(np.asarray(IDS_A))
    b = np.unique(np.asarray(IDS_B))
    common, ia, ib = np.intersect1d(a, b, assume_unique=True, return_indices=True)
    raw = np.intersect1d(np.asarray(IDS_A), np.asarray(IDS_B), return_indices=True)
    return (common, ia, ib, raw, np.union1d(a, b), np.setdiff1d(a, b, assume_unique=True),
            np.setxor1d(a, b), np.isin(np.asarray(IDS_A), b, kind="table"),
            np.isin(np.asarray(IDS_A), b, kind="sort", invert=True),
            np.isin(np.asarray(ROWS), [0, 2]), np.setdiff1d(np.asarray(IDS_B), []))


# ---- files and buffers ----------------------------------------------------------------------

def file_roundtrips(np):
    """tofile in binary and as text, read back by fromfile (count=,
    offset=, sep=); save/load through a BytesIO; savetxt/loadtxt with a
    delimiter and a header."""
    import io
    import os
    import tempfile
    x = np.asarray(F64)[:3]
    with tempfile.TemporaryDirectory() as d:
        raw = os.path.join(d, "x.bin")
        txt = os.path.join(d, "x.txt")
        x.tofile(raw)
        np.asarray(I64)[0].tofile(txt, sep=",", format="%d")
        back = np.fromfile(raw, dtype=np.float64).reshape(3, 5)
        part = np.fromfile(raw, dtype=np.float64, count=4, offset=8 * 5)
        with open(txt) as f:
            text = f.read()
        ints = np.fromfile(txt, dtype=np.int64, sep=",")
        size = os.path.getsize(raw)
    buf = io.BytesIO()
    np.save(buf, x)
    buf.seek(0)
    loaded = np.load(buf)
    sio = io.StringIO()
    np.savetxt(sio, np.asarray(I64)[:2], fmt="%d", delimiter=";", header="a;b")
    body = sio.getvalue()
    table = np.loadtxt(io.StringIO(body), delimiter=";", dtype=np.int64)
    return back, part, text, ints, size, loaded, body, table, table.dtype == np.int64


def buffers_and_iterators(np):
    """frombuffer with offset= and count=, fromiter with count= and a
    generator, fromstring of text, and bytes of a slice."""
    raw = np.arange(10, dtype=np.int32).tobytes()
    a = np.frombuffer(raw, dtype=np.int32, count=3, offset=8)
    b = np.frombuffer(raw, dtype=np.int16)[::5]
    squares = np.fromiter((k * k for k in range(6)), dtype=np.int64, count=6)
    halves = np.fromiter(iter([0.5, 1.5, 2.5]), dtype=np.float32)
    parsed = np.fromstring("1.5 2.5  3.25", dtype=np.float64, sep=" ")
    csv = np.fromstring("4,5,6", dtype=np.int64, sep=",")
    m = np.asarray(I64)
    return (a, b, squares, halves, halves.dtype == np.float32, parsed, csv,
            len(m[:, 1].tobytes()), np.frombuffer(m[1:3].tobytes(), dtype=np.int64).shape,
            np.frombuffer(b"\x01\x02\x03\x04", dtype=np.uint8))


# ---- views with dtype changes, non-contiguous and 0-d ---------------------------------------

def view_corners(np):
    """view with a smaller and a larger dtype on 2-d arrays, a same-size
    view of a strided column slice, the ValueError of views whose last axis
    is not contiguous or does not divide and of a 0-d view to another
    width, views of empty arrays, a 0-d view, views of transposed and
    sliced arrays, and a view written through."""
    m = np.arange(12, dtype=np.int32).reshape(3, 4)
    small = m.view(np.int16)
    big = m.view(np.int64)
    out = [small.shape, small[1], big.shape, big[2], m[:, ::2].view(np.uint32)]
    for make in (lambda: m[:, ::2].view(np.int64), lambda: m.view(np.int8)[:, :3].view(np.int32),
                 lambda: np.asarray(2.0).view(np.int32)):
        try:
            make()
            out.append(None)
        except ValueError:
            out.append("ValueError")
    out += [np.zeros((2, 0), dtype=np.int32).view(np.int64).shape,
            np.zeros((0, 4), dtype=np.int16).view(np.int64).shape]
    z = np.asarray(1.0, dtype=np.float32).view(np.int32)
    out += [z, z.shape]
    f = np.zeros(4)
    f.view(np.int64)[1] = 0x3FF0000000000000
    out.append(f)
    out.append(m.T.view(np.int32).shape)
    out.append(np.asarray(U8)[:, :4].view(np.uint32).shape)
    return tuple(out)


def item_errors(np):
    """item() beyond the size (IndexError), with negative flat indices, of
    one-element 2-d arrays and slices without arguments, and with too many
    indices."""
    a = np.arange(6).reshape(2, 3)
    out = [a.item(-1), a.item(-6), np.asarray([[4.5]]).item(), a[1:, 2:].item()]
    for call in (lambda: a.item(6), lambda: a.item(0, 3), lambda: a.item(-7), lambda: a.item(1, 2, 0)):
        try:
            call()
            out.append(None)
        except (IndexError, ValueError) as e:
            out.append(type(e).__name__)
    return tuple(out)


def put_take_cycles(np):
    """put with fewer values than indices (the values cycle), put of
    repeated indices (the last wins), take into out=, take of an empty
    index list and with a 0-d index, putmask and place with cycling values."""
    a = np.zeros(8, dtype=np.int64)
    a.put([0, 2, 4, 6, 7], [1, 2])
    b = np.zeros(4)
    b.put([1, 1, 3], [5.0, 6.0, 7.0])
    src = np.arange(10.0) * 2
    out = np.empty(3)
    np.take(src, [9, 0, 4], out=out)
    c = np.arange(10)
    np.putmask(c, c % 3 == 0, [-1, -2])
    d = np.arange(10)
    np.place(d, d > 5, [70, 80, 90])
    return (a, b, out, src.take([]), src.take([]).dtype == np.float64, src.take(3),
            np.take(src.reshape(2, 5), 1, axis=1), c, d, np.extract(c < 0, c))


# ---- searching, partitions and sorts at edges -----------------------------------------------

def search_edges(np):
    """searchsorted into an empty array, with NaN in sorted floats (NaN
    sorts last), with a sorter on an int array that has ties, and
    argpartition/partition with kth out of range (ValueError) and of an
    empty array."""
    f = np.sort(np.asarray([3.0, np.nan, 1.0, 2.0, np.nan]))
    out = [np.searchsorted(np.asarray([], dtype=np.float64), [1.0, 2.0]),
           np.searchsorted(f, [np.nan, 2.5, 10.0]), np.searchsorted(f, np.nan, side="right")]
    ties = np.asarray([5, 1, 5, 3, 1, 5])
    order = np.argsort(ties, kind="stable")
    out += [np.searchsorted(ties, [1, 5, 6], side="left", sorter=order),
            np.searchsorted(ties, [1, 5, 6], side="right", sorter=order)]
    for call in (lambda: np.partition(np.arange(5), 5), lambda: np.argpartition(np.arange(5), [1, -6])):
        try:
            call()
            out.append(None)
        except ValueError:
            out.append("ValueError")
    out += [np.partition(np.zeros(0), 0).shape, np.argpartition(np.zeros((2, 0)), 0, axis=0).shape,
            np.partition(np.asarray(I64), 3, axis=None)[3], np.sort(np.asarray(I64), axis=None)[3],
            np.lexsort((np.asarray([3, 1, 2, 1]), np.asarray([1, 1, 0, 0]))),
            np.argsort(np.asarray([2.0, np.nan, -1.0, np.inf]))]
    return tuple(out)


def sort_orders(np):
    """Sorts of signed zeros, NaNs and infinities, descending order by
    [::-1] of a stable argsort, sort of columns and of a bool array,
    and the sorted flat indices of the k largest values."""
    x = np.asarray([0.0, -0.0, np.nan, -np.inf, 1.0, np.inf, -1.0])
    m = np.asarray(F64)
    k = 4
    flat = np.argsort(m, axis=None)[-k:][::-1]
    return (np.sort(x), np.argsort(x, kind="stable"), np.argsort(-np.asarray(IDS_A), kind="stable")[:8],
            np.sort(m, axis=0)[0], np.sort(np.asarray([True, False, True])),
            np.unravel_index(flat, m.shape), np.sort(m, axis=-1)[:, -1], np.max(m, axis=1),
            np.sort(np.asarray(U8), axis=1)[:, :3])


# ---- einsum forms ----------------------------------------------------------------------------

def einsum_forms(np):
    """einsum in implicit mode (alphabetical output), with repeated indices
    (diagonal and trace), ellipses for batches, an outer product, a
    broadcast of length-1 axes, and integer operands keeping int64."""
    a = np.asarray(F64)[:5]
    b = np.asarray(SPD)
    i = np.asarray(I64)
    return (np.einsum("ji", a), np.einsum("ij,jk", a, a), np.einsum("ii->i", a), np.einsum("ii", a),
            np.einsum("...ii->...", b), np.einsum("...ij,...jk->...ik", b, b, optimize=True),
            np.einsum("i,j->ij", a[0], a[1]), np.einsum("ij,ij->i", i, i),
            np.einsum("ij,ij->i", i, i).dtype == np.int64, np.einsum("bij->bji", b).shape,
            np.einsum("ij,kj->ik", a[:1], a), np.einsum(a, [0, 1], a, [1, 2], [0, 2]),
            np.einsum("i->", a[0], optimize="optimal"), np.einsum("ij->", i, dtype=np.float64))


# ---- linalg errors and shapes ----------------------------------------------------------------

def linalg_errors(np):
    """LinAlgError of a singular inverse and a non-SPD Cholesky, the
    determinant of an int matrix (float64), matrix_power with negative
    and zero exponents, solve with a 1-d right-hand side and a batch, and
    shapes of empty matrices through pinv, norm and qr."""
    sing = np.asarray([[1.0, 2.0], [2.0, 4.0]])
    out = []
    for call in (lambda: np.linalg.inv(sing), lambda: np.linalg.cholesky(-np.eye(2)),
                 lambda: np.linalg.solve(sing, np.ones(2)), lambda: np.linalg.inv(np.ones((2, 3)))):
        try:
            call()
            out.append(None)
        except np.linalg.LinAlgError:
            out.append("LinAlgError")
    m = np.asarray([[2, 1], [1, 3]])
    out += [np.linalg.det(m), np.linalg.det(m).dtype == np.float64, np.linalg.matrix_power(m, 0),
            np.linalg.matrix_power(m, 3), np.linalg.matrix_power(m.astype(np.float64), -2),
            np.linalg.solve(np.asarray(SPD), np.ones(4)).shape,
            np.linalg.solve(np.asarray(SPD)[0], np.ones((4, 3))).shape,
            np.linalg.pinv(np.zeros((0, 3))).shape, np.linalg.norm(np.zeros((0, 3))),
            np.linalg.qr(np.zeros((2, 0, 3)))[1].shape, np.linalg.eigh(np.asarray([[2.0]]))[0],
            np.linalg.matrix_rank(np.zeros((3, 3))), np.linalg.cond(np.eye(3) * 2)]
    return tuple(out)


def batched_decompositions(np):
    """Batched eigh, svd, qr and slogdet of a stack, checked by
    reconstruction; batch of one; a 0-size batch through svd with and
    without full_matrices."""
    a = np.asarray(SPD)
    w, v = np.linalg.eigh(a)
    recon = (v * w[:, None, :]) @ np.swapaxes(v, -1, -2)
    u, s, vt = np.linalg.svd(a[:, :, :3], full_matrices=False)
    q, r = np.linalg.qr(a)
    sign, logdet = np.linalg.slogdet(a)
    e = np.zeros((0, 3, 2))
    ue, se, vte = np.linalg.svd(e)
    ue2 = np.linalg.svd(e, full_matrices=False)[0]
    return (w, np.abs(recon - a).max() < 1e-10, s, u.shape, vt.shape, np.abs(q @ r - a).max() < 1e-10,
            sign, logdet, np.linalg.eigvalsh(a[:1]), ue.shape, se.shape, vte.shape, ue2.shape,
            np.linalg.eigh(e[:, :2, :2])[1].shape, np.linalg.inv(a[:1]).shape)


# ---- Generator patterns ----------------------------------------------------------------------

def generator_methods(np):
    """Result shapes and dtypes of Generator methods: integers with
    endpoint= and array bounds, choice along an axis and with p=,
    multinomial, dirichlet, permuted, bytes and spawned streams; values
    only by range and by properties that hold for any stream."""
    g = np.random.default_rng(7)
    lo = np.asarray([0, 10, 20])
    ints = g.integers(lo, lo + 5, size=(4, 3), endpoint=True)
    m = np.arange(12).reshape(4, 3)
    rows = g.choice(m, 2, axis=0, replace=False)
    pick = g.choice(5, size=(3, 2), p=[0.1, 0.2, 0.3, 0.4, 0.0])
    mult = g.multinomial(10, [0.2, 0.3, 0.5], size=4)
    dir_ = g.dirichlet([1.0, 2.0, 3.0], size=2)
    perm = g.permuted(m, axis=1)
    kids = g.spawn(2)
    b = g.bytes(5)
    return (ints.shape, ints.dtype == np.int64, bool(((ints >= lo) & (ints <= lo + 5)).all()),
            rows.shape, bool(np.isin(rows, m).all()), pick.shape, bool((pick != 4).all()),
            mult.shape, mult.sum(axis=1), mult.dtype == np.int64, dir_.shape,
            np.round(dir_.sum(axis=1), 12), np.sort(perm, axis=1), len(kids),
            kids[0].random(3).shape, type(b).__name__, len(b),
            g.binomial(10, 0.5, size=3).dtype == np.int64, g.poisson(2.0, (2, 2)).shape,
            g.exponential(size=0).shape, g.integers(0, 1, size=5))


def seeded_reproducibility(np):
    """Two generators with the same seed agree draw for draw, a different
    seed does not, SeedSequence spawns, and a legacy RandomState seeded
    twice agrees; compared by equality within each library."""
    a = np.random.default_rng(123)
    b = np.random.default_rng(123)
    c = np.random.default_rng(124)
    x, y, z = a.normal(size=50), b.normal(size=50), c.normal(size=50)
    same_ints = bool((a.integers(0, 100, 20) == b.integers(0, 100, 20)).all())
    r1 = np.random.RandomState(5).rand(4)
    r2 = np.random.RandomState(5).rand(4)
    ss = np.random.SeedSequence(9)
    g = [np.random.default_rng(s).random() for s in ss.spawn(2)]
    return (bool((x == y).all()), bool((x == z).all()), same_ints, bool((r1 == r2).all()),
            r1.shape, float(g[0]) != float(g[1]), np.asarray(x).dtype == np.float64)


# ---- printing options ------------------------------------------------------------------------

def print_controls(np):
    """set_printoptions restored by get_printoptions, array2string with
    sign='+', floatmode='fixed' and 'unique', threshold and edgeitems,
    a 3-d array's text, format_float_positional/scientific."""
    old = np.get_printoptions()
    x = np.asarray([0.5, -1.25, 3.0])
    out = [np.array2string(x, sign="+"), np.array2string(x, floatmode="fixed", precision=3),
           np.array2string(x, floatmode="unique"), np.array2string(np.arange(30), threshold=10, edgeitems=2),
           np.array_str(np.arange(24).reshape(2, 3, 4)), np.format_float_positional(np.float64(0.1), precision=3),
           np.format_float_scientific(np.float32(12345.678), precision=2),
           np.array2string(np.asarray([1e-8, 1.0, 1e8])), np.array2string(np.asarray([1, 2]) * 1.0, separator="|")]
    np.set_printoptions(precision=2, linewidth=30)
    out.append(np.array_str(np.linspace(0, 1, 7)))
    np.set_printoptions(**old)
    out.append(np.get_printoptions()["precision"])
    out.append(np.array_str(np.linspace(0, 1, 7)))
    return tuple(out)


# ---- dtype queries ---------------------------------------------------------------------------

def dtype_queries(np):
    """result_type, promote_types, min_scalar_type, common_type, issubdtype
    and the dtype attributes code reads (itemsize, kind, char, name, str)."""
    out = [np.result_type(np.int8, np.uint8), np.result_type(np.int32, np.float64),
           np.result_type(np.asarray([1], dtype=np.float32), 3.0), np.result_type(np.asarray([1], dtype=np.int16), 3), np.promote_types("i4", "f8"), np.promote_types("i2", "u2"),
           np.promote_types(np.uint64, np.int64), np.min_scalar_type(300), np.min_scalar_type(-1),
           np.min_scalar_type(1.5),
           np.common_type(np.asarray([1, 2]), np.asarray([1.0], dtype=np.float32)).__name__,
           np.issubdtype(np.asarray(I64).dtype, np.integer), np.issubdtype(np.float32, np.floating),
           np.issubdtype(np.asarray(U8).dtype, np.signedinteger)]
    for d in (np.asarray(F32).dtype, np.asarray(U8).dtype, np.dtype(np.complex128), np.dtype("?")):
        out += [d.itemsize, d.kind, d.char, d.name, d.str]
    return tuple(o if isinstance(o, (bool, int, str)) else np.dtype(o).name for o in out)


# ---- masking idioms without np.ma -----------------------------------------------------------

def mask_idioms(np):
    """copyto with where=, select with a default, piecewise with lambdas,
    nan-filling by where, a masked running maximum by fmax.accumulate over
    NaN-masked data, and counting valid entries per row."""
    x = np.asarray(F64)
    bad = np.abs(x) > 1.5
    clean = x.copy()
    np.copyto(clean, 0.0, where=bad)
    masked = np.where(bad, np.nan, x)
    run = np.fmax.accumulate(masked, axis=1)
    band = np.select([x < -1, x > 1], [-1.0, 1.0], default=0.0)
    pw = np.piecewise(np.asarray(XS), [np.asarray(XS) < 0, np.asarray(XS) >= 0], [lambda v: -v, lambda v: v ** 2])
    valid = (~bad).sum(axis=1)
    row_means = np.nanmean(masked, axis=1)
    fill = np.where(np.isnan(masked), row_means[:, None], masked)
    return clean, run, band, pw, valid, row_means, fill, np.count_nonzero(bad, axis=0)


def integer_masks(np):
    """Masks over integers: argwhere and nonzero of a condition, a masked
    sum with where=, masked minimum with initial=, and a bool mask's
    cumulative count (int64)."""
    a = np.asarray(I64)
    pos = a > 0
    return (np.argwhere(pos)[:5], np.nonzero(pos)[1][:6], np.sum(a, where=pos, axis=0),
            np.min(a, where=pos, initial=100, axis=1), np.cumsum(pos, axis=1)[:, -1],
            np.cumsum(pos).dtype == np.int64, np.add.reduce(a, where=pos, axis=None),
            np.multiply.reduce(np.where(pos, a, 1)[:2, :3], axis=1), a[pos].shape)


# ---- date idioms with integers --------------------------------------------------------------

def calendar_integers(np):
    """Dates as integers: leap years by the Gregorian rule, days in each
    month by a table and the leap correction, days since an epoch by
    cumulative sums, weekdays by Zeller's congruence, ISO-like week
    numbers and the difference between dates."""
    years = np.asarray([1900, 2000, 2023, 2024, 2100])
    leap = (years % 4 == 0) & ((years % 100 != 0) | (years % 400 == 0))
    mdays = np.asarray([31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31])
    table = np.tile(mdays, (years.size, 1))
    table[:, 1] += leap
    starts = np.concatenate([np.zeros((years.size, 1), dtype=table.dtype), np.cumsum(table, axis=1)[:, :-1]],
                            axis=1)
    y, m, d = np.asarray([2024, 2023, 2000]), np.asarray([3, 12, 1]), np.asarray([15, 31, 1])
    mm = np.where(m < 3, m + 12, m)
    yy = np.where(m < 3, y - 1, y)
    k, j = yy % 100, yy // 100
    h = (d + (13 * (mm + 1)) // 5 + k + k // 4 + j // 4 + 5 * j) % 7
    doy = starts[[3, 2, 1], m - 1] + d
    week = (doy - 1) // 7 + 1
    return leap, table.sum(axis=1), starts[3], h, doy, week, np.diff(doy), table.dtype == np.int64


def day_counts(np):
    """Day numbers from a proleptic Gregorian formula, differences between
    dates, business-day counting by masks over a range, and month ends by
    searchsorted into cumulative month lengths."""
    def ordinal(y, m, d):
        a = (14 - m) // 12
        yy = y + 4800 - a
        mm = m + 12 * a - 3
        return d + (153 * mm + 2) // 5 + 365 * yy + yy // 4 - yy // 100 + yy // 400 - 32045
    y = np.asarray([2024, 2024, 2025])
    m = np.asarray([1, 2, 3])
    d = np.asarray([1, 29, 31])
    jd = ordinal(y, m, d)
    span = np.arange(jd[0], jd[1] + 1)
    weekday = (span + 1) % 7
    business = np.count_nonzero((weekday != 0) & (weekday != 6))
    cum = np.cumsum([31, 29, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31])
    month_of = np.searchsorted(cum, np.asarray([0, 30, 31, 59, 60, 365]), side="right") + 1
    return jd, np.diff(jd), int(span.size), business, month_of, weekday[:7]


# ---- more polynomials ------------------------------------------------------------------------

def polynomial_algebra(np):
    """Polynomial.fromroots, powers, composition by calling a polynomial
    on a polynomial, integ with k= and lbnd=, cutdeg/truncate/trim, and
    comparisons; the old poly1d-style functions roots/poly/polyval/polyder/
    polyint/polyadd/polymul/polydiv."""
    P = np.polynomial.Polynomial
    p = P.fromroots([1.0, -2.0, 3.0])
    q = P([1.0, 1.0])
    comp = p(q)
    return (p.coef, (q ** 3).coef, comp.coef, p.integ(k=[2.0], lbnd=1.0).coef,
            p.cutdeg(1).coef, P([1.0, 2.0, 1e-20]).trim(tol=1e-10).coef, p.truncate(2).coef,
            p == P.fromroots([3.0, 1.0, -2.0]), np.sort(p.roots()), np.roots([1.0, -6.0, 11.0, -6.0]),
            np.poly([1.0, 2.0, 3.0]), np.polyval([1.0, 0.0, -1.0], np.asarray([0.0, 2.0])),
            np.polyder([1.0, 2.0, 3.0, 4.0], 2), np.polyint([3.0, 2.0, 1.0]),
            np.polyadd([1.0, 2.0], [1.0, 0.0, 0.0]), np.polymul([1.0, 1.0], [1.0, -1.0]),
            np.polydiv([1.0, 0.0, -1.0], [1.0, 1.0]))


def orthogonal_series(np):
    """Gauss quadrature nodes and weights (Legendre, Hermite, Laguerre)
    integrating polynomials exactly, Hermite and Laguerre fits, and the
    Chebyshev points and interpolation."""
    xl, wl = np.polynomial.legendre.leggauss(5)
    xh, wh = np.polynomial.hermite.hermgauss(4)
    xg, wg = np.polynomial.laguerre.laggauss(3)
    x = np.asarray(XS)
    H = np.polynomial.Hermite.fit(x, np.asarray(YS), 2)
    ci = np.polynomial.Chebyshev.interpolate(np.cos, 6)
    return (xl, wl, (wl * xl ** 4).sum(), xh, wh, (wh * xh ** 2).sum(), xg, wg, (wg * xg ** 2).sum(),
            np.round(H.convert(kind=np.polynomial.Polynomial).coef, 2), ci.coef.shape,
            abs(float(ci(0.3)) - float(np.cos(0.3))) < 1e-6, np.polynomial.chebyshev.chebpts1(4),
            np.polynomial.chebyshev.chebpts2(4))


def fit_weights(np):
    """np.polyfit with weights and cov=True, full=True diagnostics, and
    Polynomial.fit with w= and a window, the same line by lstsq."""
    x, y = np.asarray(XS), np.asarray(YS)
    w = 1.0 + np.abs(x)
    c, cov = np.polyfit(x, y, 2, w=w, cov=True)
    cf, res, rank, sv, rc = np.polyfit(x, y, 1, full=True)
    P = np.polynomial.Polynomial.fit(x, y, 1, w=w, window=[0, 1])
    A = np.vander(x, 2)
    ls = np.linalg.lstsq(A, y, rcond=None)[0]
    return c, cov.shape, np.diag(cov) > 0, cf, res, rank, sv, P.window, P.convert().coef, ls


# ---- more set operations ---------------------------------------------------------------------

def unique_corners(np):
    """unique of 2-d arrays (flattened) and of columns (axis=1), of NaNs with
    equal_nan True and False, of an empty array with every return, of bool
    and uint8 data, and sorted=False in NumPy's order of first appearance
    compared after sorting."""
    m = np.asarray(ROWS)
    f = np.asarray([2.0, np.nan, 1.0, np.nan, 2.0])
    e = np.zeros(0, dtype=np.int64)
    ue, ie, inv_e, ce = np.unique(e, return_index=True, return_inverse=True, return_counts=True)
    cols, cinv = np.unique(m[:4], axis=1, return_inverse=True)
    return (np.unique(m), cols, cinv, np.unique(f), np.unique(f, equal_nan=False), ue, ie, inv_e, ce,
            ie.dtype == np.intp, np.unique(np.asarray([True, False, True]), return_counts=True),
            np.unique(np.asarray(U8)[0], return_index=True),
            np.unique(np.asarray(IDS_A), return_inverse=True)[1].shape,
            np.unique(m, return_inverse=True)[1].shape)


def membership(np):
    """isin on 2-d elements and 2-d test values, kind='table' on negative
    ints, assume_unique, invert; intersect1d of empty and of overlapping
    unsorted arrays with return_indices, union1d of 2-d inputs (flattened)."""
    a = np.asarray(I64)
    tests = np.asarray([[-5, 0], [10, 33]])
    return (np.isin(a, tests), np.isin(a, tests, kind="table"), np.isin(a, tests, invert=True, kind="sort"),
            np.isin(np.asarray([1, 2, 3]), np.asarray([3, 1]), assume_unique=True),
            np.intersect1d(np.zeros(0, dtype=np.int64), np.asarray([1, 2])),
            np.intersect1d(np.asarray([5, 1, 5, 3]), np.asarray([3, 5, 7]), return_indices=True),
            np.union1d(np.asarray([[3, 1], [2, 9]]), np.asarray([1, 4])),
            np.setxor1d(np.asarray([1, 2, 2, 3]), np.asarray([2, 3, 4]), assume_unique=False),
            np.setdiff1d(np.asarray([[4, 1], [1, 7]]), np.asarray([1])))


# ---- bits, packing and integer reductions ----------------------------------------------------

def packed_bits(np):
    """packbits and unpackbits along an axis, with bitorder='little', a
    count that trims the tail, and popcounts by unpacking; bitwise ops and
    shifts on uint8."""
    bits = np.asarray(U8) > 127
    packed = np.packbits(bits, axis=1)
    little = np.packbits(bits, axis=1, bitorder="little")
    back = np.unpackbits(packed, axis=1, count=bits.shape[1])
    pop = np.sum(np.unpackbits(np.asarray(U8), axis=1).reshape(4, 8, 8), axis=2)
    u = np.asarray(U8)
    return (packed, little, bool((back.astype(bool) == bits).all()), pop, np.bitwise_count(u),
            u >> 4, (u << 1)[0], u & 0x0F, ~u[0], np.invert(u[1]), np.left_shift(u, 7)[2],
            np.unpackbits(np.asarray([7], dtype=np.uint8), count=-3), np.packbits(np.asarray([1, 0, 1])))


def integer_reduction_dtypes(np):
    """Sums and products of small integer arrays (int64 and uint64 results),
    a reduce with dtype=int8 that wraps, cumsum of uint8 (uint64), mean of
    int8 (float64), and ufuncs with dtype= on integers."""
    i8 = np.asarray([100, 100, 100, -50], dtype=np.int8)
    u8 = np.asarray(U8)
    return (np.sum(i8), np.sum(i8).dtype == np.int64, np.prod(u8[0, :3]), np.prod(u8[0, :3]).dtype == np.uint64,
            np.add.reduce(i8, dtype=np.int8), np.cumsum(u8[0]), np.cumsum(u8[0]).dtype == np.uint64,
            np.mean(i8), np.add(i8, i8, dtype=np.int16), np.multiply(u8[0], 2, dtype=np.uint16),
            np.sum(u8, axis=1, dtype=np.uint8), np.max(i8), np.maximum.reduce(u8, axis=0),
            np.add.accumulate(i8), np.add.accumulate(i8, dtype=np.int64))


# ---- errstate in use ------------------------------------------------------------------------

def errstate_uses(np):
    """errstate as a decorator and nested with-blocks, seterr returning the
    old state, geterr inside a block, and float overflow/underflow/invalid
    results computed quietly."""
    @np.errstate(all="ignore")
    def quiet(x):
        return np.log(x), np.exp(x * 1000.0), 1.0 / x

    old = np.seterr(divide="ignore")
    inside = np.geterr()["divide"]
    np.seterr(**old)
    with np.errstate(over="ignore"):
        with np.errstate(invalid="ignore"):
            nested = np.geterr()
            r = np.sqrt(np.asarray([-1.0, 4.0]))
        after = np.geterr()
    logs, big, inv = quiet(np.asarray([0.0, 1.0, -1.0]))
    tiny = np.asarray([1e-300]) * 1e-300
    return (inside, np.geterr()["divide"], nested["over"], nested["invalid"], after["invalid"], r,
            logs, big, inv, tiny, old["divide"])


# ---- shapes of broadcasting and index tools -------------------------------------------------

def broadcasting_tools(np):
    """broadcast_shapes and broadcast_arrays (shapes and values), the
    ValueError of shapes that do not broadcast, ndindex and ndenumerate
    loops over a small grid, and ix_ for an open mesh."""
    a, b = np.asarray(F64)[:, :1], np.asarray(F64)[0]
    ba, bb = np.broadcast_arrays(a, b)
    out = [np.broadcast_shapes((6, 1), (5,), (1, 1, 5)), ba.shape, bb.shape, ba[:, 2], bb[3]]
    try:
        np.broadcast_shapes((3,), (4,))
        out.append(None)
    except ValueError:
        out.append("ValueError")
    try:
        np.broadcast_arrays(np.zeros(3), np.zeros(4))
        out.append(None)
    except ValueError:
        out.append("ValueError")
    total = 0
    for idx in np.ndindex(2, 3):
        total += idx[0] * 10 + idx[1]
    vals = [(i, float(v)) for i, v in np.ndenumerate(np.asarray([[1.5, 2.5]]))]
    r, c = np.ix_([0, 2], [1, 3, 4])
    out += [total, vals, np.asarray(F64)[r, c], r.shape, c.shape, np.broadcast(a, b).shape]
    return tuple(out)


# ---- astype and copies ----------------------------------------------------------------------

def astype_copies(np):
    """astype(copy=False) returns the same object when nothing changes and
    a new one otherwise; float to int truncates toward zero, to bool is
    non-zero, to uint8 of negatives wraps (for ints), int to float32
    rounds large values; astype keeps the shape of non-contiguous input."""
    x = np.asarray(F64)
    same = x.astype(np.float64, copy=False) is x
    other = x.astype(np.float32, copy=False) is x
    fl = np.asarray([-2.7, -0.5, 0.5, 2.7])
    big = np.asarray([2 ** 24 + 1, 2 ** 53 + 1], dtype=np.int64)
    return (same, other, fl.astype(np.int64), fl.astype(bool), np.asarray([-1, -200, 300]).astype(np.uint8),
            big.astype(np.float32), big.astype(np.float64).astype(np.int64),
            x[::2, ::-1].astype(np.int32), x.T.astype(np.float32).flags.c_contiguous,
            x.T.astype(np.float32, order="F").flags.f_contiguous, np.asarray([0.0, 3.0]).astype(np.uint8))


# ---- more ndarray methods ---------------------------------------------------------------------

def complex_views(np):
    """complex128 seen as float64 pairs (the last axis doubles) and back,
    real and imag written through, complex64 from float32 pairs, and the
    memory sizes (itemsize, nbytes, strides) of views."""
    z = np.asarray([1 + 2j, 3 - 4j, -0.5j])
    pairs = z.view(np.float64)
    pairs2 = pairs.reshape(-1, 2)
    w = np.asarray([[1.0, 2.0], [3.0, 4.0]], dtype=np.float32).view(np.complex64)
    z2 = z.copy()
    z2.real[:] = 9.0
    z2.imag[1] = 0.0
    m = np.asarray(F64)
    return (pairs, pairs2[:, 1], w, w.shape, w.dtype == np.complex64, z2, pairs2.view(np.complex128).ravel(),
            z.itemsize, z.nbytes, m[:, ::2].strides, m.T.strides, m[::-1].strides, m[1:, 2].strides,
            np.asarray(U8).nbytes, w.itemsize)


def method_tour(np):
    """Methods code calls on arrays: fill, clip with out=, dtype= and
    where=, round with
    negative decimals on ints, swapaxes, squeeze of a named axis and its
    ValueError, nonzero, resize by np.resize (values repeat), ravel of a
    view, conj of reals, and cumprod with dtype."""
    a = np.asarray(I64)
    f = np.empty((2, 3))
    f.fill(2.5)
    out = np.empty_like(a)
    a.clip(-10, 10, out=out)
    scaled = a.clip(-20, 20, dtype=np.float64, where=a % 2 == 0, out=np.full(a.shape, np.nan))
    s = np.zeros((3, 1, 2))
    try:
        s.squeeze(axis=0)
        err = None
    except ValueError:
        err = "ValueError"
    return (f, out, scaled, a.clip(max=0, dtype=np.float32), a.round(-1), a.swapaxes(0, 1).shape, s.squeeze(axis=1).shape, err, np.nonzero(a[:2]),
            np.resize(np.asarray([1, 2, 3]), (2, 4)), np.resize(a, 4), a[:, ::2].ravel(), a.conj()[0],
            a[0].cumprod(dtype=np.float64), np.ptp(a, axis=0),
            a.any(axis=1), a.all(), a.argmax(axis=0), a.argmin(), a.trace(), a.diagonal(1))


def choose_take_along(np):
    """take_along_axis with argsort and argpartition results, put_along_axis
    writing a per-row maximum, choose with broadcast choices and out=,
    compress with a condition longer than the axis (an error) and shorter."""
    m = np.asarray(F64)
    order = np.argsort(m, axis=1)
    srt = np.take_along_axis(m, order, axis=1)
    top2 = np.argpartition(m, [-2, -1], axis=1)[:, -2:]
    best = np.take_along_axis(m, top2, axis=1)
    w = m.copy()
    np.put_along_axis(w, np.argmax(w, axis=1)[:, None], 100.0, axis=1)
    idx = np.asarray([[0, 1], [1, 0]])
    out = np.empty((2, 2))
    np.choose(idx, [np.asarray([1.0, 2.0]), np.asarray([[10.0], [20.0]])], out=out)
    try:
        np.compress([True] * 7, m, axis=0)
        err = None
    except (IndexError, ValueError) as e:
        err = type(e).__name__
    return (srt, np.sort(best, axis=1), np.sort(m, axis=1)[:, -2:], w, out, err,
            np.compress([True, False], m, axis=1).shape, np.take_along_axis(m, order[:, :1], axis=1))


def window_edges(np):
    """sliding_window_view with a window as large as the array, a window
    larger than the array (ValueError), windows over a 3-d array along two
    axes, and strides of the window view; as_strided with writeable=False
    read only."""
    swv = np.lib.stride_tricks.sliding_window_view
    x = np.arange(6.0)
    full = swv(x, 6)
    try:
        swv(x, 7)
        err = None
    except ValueError:
        err = "ValueError"
    c = np.arange(60).reshape(3, 4, 5)
    w = swv(c, (2, 3), axis=(1, 2))
    ro = np.lib.stride_tricks.as_strided(x, shape=(3, 2), strides=(16, 8), writeable=False)
    return (full, full.shape, err, w.shape, w[1, 2, 1], w.strides, swv(x, 3).strides, ro, ro.sum(axis=0),
            swv(x, 1).shape, swv(np.zeros((2, 3)), (1, 1)).shape)


def einsum_dtypes(np):
    """einsum with out= (the result written into a prepared array), with
    dtype= and casting='unsafe', of scalars only, of bool arrays (logical
    products), of int8 (NumPy keeps int8), and mixing float32 with float64
    (float64)."""
    a = np.asarray(F32)
    b = np.asarray(F64)[:6, :4]
    out = np.zeros((4, 4))
    np.einsum("ij,jk->ik", a.astype(np.float64), b, out=out)
    i8 = np.asarray([[100, 50], [2, 3]], dtype=np.int8)
    bl = np.asarray([[True, False], [True, True]])
    return (out, np.einsum("ij,jk->ik", a, b).dtype == np.float64, np.round(np.einsum("ij,jk->ik", a, b), 4),
            np.einsum("ij->i", a, dtype=np.float64, casting="unsafe"),
            np.einsum(",->", 2.0, 3.0), np.einsum("ij,jk->ik", bl, bl), np.einsum("ij,jk->ik", i8, i8),
            np.einsum("ij,jk->ik", i8, i8).dtype == np.int8, np.einsum("i,i->", a[0], a[0]).dtype == np.float32)


def linalg_dtypes(np):
    """Result dtypes of linalg on mixed and integer input: float32 matrix
    with a float64 right-hand side (float64), integer inverse and solve
    (float64), eig of a float32 matrix with complex eigenvalues
    (complex64), norms of float32 (float32), det of complex64."""
    a32 = np.asarray([[2.0, 1.0], [1.0, 3.0]], dtype=np.float32)
    b64 = np.asarray([1.0, 2.0])
    ai = np.asarray([[4, 1], [2, 3]])
    rot = np.asarray([[0.0, -1.0], [1.0, 0.0]], dtype=np.float32)
    w = np.linalg.eigvals(rot)
    c64 = (a32 + 1j * a32).astype(np.complex64)
    return (np.linalg.solve(a32, b64), np.linalg.solve(a32, b64).dtype == np.float64, np.linalg.inv(ai),
            np.linalg.solve(ai, np.asarray([1, 2])), w.dtype == np.complex64, np.sort_complex(w),
            np.linalg.norm(a32, ord=1).dtype == np.float32, np.linalg.norm(a32, ord=np.inf),
            np.linalg.norm(a32, axis=0).dtype == np.float32, np.linalg.det(c64).dtype == np.complex64,
            np.linalg.det(c64), np.linalg.matrix_power(a32, 2).dtype == np.float32,
            np.linalg.eigvalsh(ai).dtype == np.float64, np.linalg.svd(ai, compute_uv=False))


def generator_outputs(np):
    """Generator draws into out=, integers with uint8 and bool dtypes,
    choice with shuffle=False, shuffle of 2-d along an axis, and
    standard_exponential/standard_gamma with dtype=float32."""
    g = np.random.default_rng(3)
    out = np.empty((2, 3))
    g.random(out=out)
    nout = np.empty(4, dtype=np.float32)
    g.standard_normal(out=nout, dtype=np.float32)
    u = g.integers(0, 256, size=50, dtype=np.uint8)
    b = g.integers(0, 2, size=6, dtype=np.bool_)
    ch = g.choice(20, size=5, replace=False, shuffle=False)
    m = np.arange(12).reshape(3, 4)
    g.shuffle(m, axis=1)
    return (bool(((out >= 0) & (out < 1)).all()), nout.dtype == np.float32, u.dtype == np.uint8, b.dtype == np.bool_,
            ch.shape, len(set(ch.tolist())), np.sort(m, axis=1), m.shape,
            g.standard_exponential(3, dtype=np.float32).dtype == np.float32,
            g.standard_gamma(2.0, 3, dtype=np.float32).dtype == np.float32,
            g.integers(5, size=(2, 0)).shape, g.normal(size=()).shape)


def printing_kinds(np):
    """The text of complex, negative integer, bool, float32 and large
    arrays; array2string with max_line_width wrapping a long row; nested
    3-d summaries; repr of a scalar-like 0-d int8."""
    out = [np.array_repr(np.asarray([1 + 2j, -3.5j])), np.array_str(np.asarray([-1, 20, -300])),
           np.array_repr(np.asarray([[True], [False]])), np.array_repr(np.asarray([0.1, 0.25], dtype=np.float32)),
           np.array2string(np.arange(20), max_line_width=30), np.array_str(np.arange(3000).reshape(10, 10, 30)),
           np.array_repr(np.asarray(5, dtype=np.int8)), np.array_repr(np.asarray([], dtype=np.float32)),
           np.array_repr(np.asarray([1e20, 1.0])), np.array_str(np.asarray([np.nan, -np.inf, 0.0])),
           np.array_repr(np.zeros((2, 0, 3), dtype=np.int16)), np.array2string(np.asarray([1.0, 2.0]), prefix="x = "),
           np.array2string(np.asarray([[1.5, 2.25], [3.0, 4.0]]), separator=", ", precision=1)]
    return tuple(out)


def float_warnings(np):
    """Which float operations NumPy warns about under the default
    errstate (division by zero, invalid, overflow), and that none warn
    under errstate(all='ignore'): the values and the warning counts."""
    import warnings
    x = np.asarray([0.0, 1.0, -1.0])
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        with np.errstate(all="ignore"):
            r = (np.log(x), 1.0 / x, np.exp(np.asarray([1000.0])), np.sqrt(x))
    return r, len(caught)


def sort_kind_spellings(np):
    """Sorts named by kind as NumPy reads it (the first letter, in either
    case: quicksort, 'heap', 'stable', 'mergesort', 'Q'), the stable
    keyword, and the errors of a kind NumPy does not know, of a kind that
    is not a string, of a partition kind and of kth lists that are empty,
    float or bool."""
    x = np.asarray(IDS_A)
    out = [np.sort(x, kind=k) for k in ("quicksort", "heap", "stable", "mergesort", "Q")]
    out += [np.argsort(x, kind="stable")[:6], np.argsort(x, stable=True)[:6]]
    m = x.copy()
    m.sort(kind="heapsort")
    out.append(m)
    calls = (lambda: np.sort(x, kind="timsort"), lambda: np.argsort(x, kind="radix"),
             lambda: np.sort(x, kind=3), lambda: x.copy().sort(kind="bogus"),
             lambda: np.partition(x, 3, kind="quick"), lambda: np.partition(x, []),
             lambda: np.argpartition(x, [1.0, 2.0]), lambda: np.partition(x, [True]),
             lambda: np.partition(np.zeros(0), []), lambda: np.argsort(x, kind="stable", stable=True))
    for call in calls:
        try:
            call()
            out.append(None)
        except (TypeError, ValueError) as e:
            out.append(type(e).__name__)
    out += [np.partition(x, np.asarray([2, 5]))[[2, 5]], np.argpartition(x, (3,)).shape]
    return tuple(out)


# ---- the tests ------------------------------------------------------------------------------

def test_ndarray_methods_bytes_and_views():
    _run(byte_roundtrips)
    _run(view_corners)
    _run(bit_views)
    _run(item_access)
    _run(item_errors)
    _run(byte_swaps)
    _run(read_only_flags)
    _run(complex_views)
    _run(method_tour)
    _run(astype_copies)
    _run(casting_rules)


def test_files_and_buffers():
    _run(file_roundtrips)
    _run(buffers_and_iterators)


def test_indexing_methods_searching_and_partitions():
    _run(put_and_take_modes)
    _run(put_take_cycles)
    _run(choose_and_compress)
    _run(choose_take_along)
    _run(sorted_lookups)
    _run(search_edges)
    _run(partial_orders)
    _run(sort_orders)
    _run(sort_kind_spellings)


def test_stride_tricks_and_masks():
    _run(window_views)
    _run(window_edges)
    _run(strided_reads)
    _run(broadcasting_tools)
    _run(masked_by_where)
    _run(mask_idioms)
    _run(integer_masks)


def test_einsum_and_linalg():
    _run(einsum_optimized)
    _run(einsum_forms)
    _run(einsum_dtypes)
    _run(batched_linalg_corners)
    _run(batched_decompositions)
    _run(float32_linalg)
    _run(linalg_errors)
    _run(linalg_dtypes)


def test_generators_by_properties():
    _run(generator_usage)
    _run(generator_methods)
    _run(generator_outputs)
    _run(seeded_reproducibility)


def test_text_errstate_and_dtypes():
    _run(array_text)
    _run(print_controls)
    _run(printing_kinds)
    _run(integer_errors)
    _run(errstate_uses)
    _run(float_warnings)
    _run(dtype_queries)
    _run(integer_reduction_dtypes)
    _run(packed_bits)


def test_calendars_polynomials_and_sets():
    _run(calendar_integers)
    _run(day_counts)
    _run(polynomial_fits)
    _run(chebyshev_fits)
    _run(polynomial_algebra)
    _run(orthogonal_series)
    _run(fit_weights)
    _run(unique_returns)
    _run(unique_corners)
    _run(set_functions)
    _run(membership)
