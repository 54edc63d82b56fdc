"""NumPy programs, seventh round: kinds the first six rounds
(tests/test_numpy_programs.py ... 6.py) do not cover -- an hourly series
resampled by reshape with rolling means by cumsum, binary morphology by
np.pad and stacked shifts, sparse COO/CSR assembly (np.add.at, bincount of
linear indices, unique(return_inverse), reduceat) and a finite-element
stiffness matrix, every quantile method with inverted_cdf weights, stacked
np.linalg with its options (eigh UPLO=, svd full_matrices=, matrix_rank
tol=/rtol=/hermitian=, cond with each p, cholesky upper=, qr modes),
weighted polyfit with both cov= forms, periodic interp and unwrap with
period=, gradient with coordinates and edge_order=2, fixed-width integer
wraparound (FNV hashing, uint8 counters), NumPy's casting questions
(result_type with weak scalars, can_cast with each rule, min_scalar_type),
nested np.errstate, Generator distributions by their moments, top-k by
argpartition/take_along_axis/put_along_axis, tiered tariffs (select,
piecewise, digitize right=), grids by meshgrid indexing=/sparse=, a KKT
system by np.block and np.kron, isclose/array_equiv edge cases, view and
copy semantics by np.shares_memory, nan-reductions with where= and
keepdims, Toeplitz and Hankel views, logspace/geomspace sweeps,
ravel_multi_index modes with insert/delete, np.lib.scimath roots and the
tensordot forms, a spectrogram with the five windows, Otsu's threshold,
single-linkage clustering, an n-body leapfrog, a loan schedule in cents,
an inventory by unique and searchsorted(sorter=), bilinear resizing,
einsum's dtype=/casting=, calendar arithmetic, a column-major stream
written through flat iterators, grey-level co-occurrence textures, an
instant-runoff count, histogram matching and bounding boxes of a mask -- run once with NumPy and
once with ``torchlike.numpy``, with round 4's oracle and conventions (NumPy
for values, dtypes and shapes; random inputs drawn once by NumPy).

What they found (each with a focused test at the end):

- ``np.result_type(uint8_array, 300)`` raised OverflowError: the weak Python
  scalar was converted to the array's dtype, where NumPy 2 reads only its
  kind (uint8).
- ``np.einsum(..., dtype=)`` ignored ``casting=`` (default 'safe'): int64
  operands contracted as float32 computed where NumPy raises TypeError.
- ``x.T.flat[i] = v`` (any strided view) raised ValueError asking for a
  contiguous tensor, and ``x.flat = values`` raised AttributeError: both
  write through the view now, in C order, the values repeated as NumPy's.
- ``np.maximum/minimum/fmax/fmin.accumulate`` of complex numbers raised
  NotImplementedError (cummax has no complex order): they run in NumPy's
  order (real part, then imaginary part) now.
- ``np.fft.rfft``/``rfft2``/``rfftn``/``ihfft`` of complex data raised
  ValueError where NumPy raises TypeError.
- Run with a device as the default device, ``np.logspace``/``np.geomspace``
  of numbers made CPU tensors (np.linspace's land on the default device), so
  the log-spaced bins of ``frequency_grids`` met device data in
  np.histogram (round 5's genomics met the same with ``np.frombuffer``,
  which now lands on the default device too); the test is
  tests/test_device_placement.py's.
- On the emulated device ``nan_reductions`` and ``calendar_arithmetic``
  were refused: ``np.nanmean``/``nanvar``/``nanstd`` with ``where=`` and
  ``np.lcm.accumulate`` were NumPy's own code; they are torchlike's now.
- ``np.linalg.cond`` of an empty stack of matrices (a batch filtered to
  nothing) raised LinAlgError; NumPy raises only for empty matrices and
  gives an empty array.
- Round 6's ``padding_modes`` on the emulated device: ``np.pad(...,
  reflect_type='odd')`` ran NumPy's code, whose one 0-d width tensor for
  both sides was emptied in place by ``left_pad -= n``, leaving np.empty's
  contents on the right; odd reflection is torchlike's now (recorded too).

What differs by design, spelled around here (docs/numpy.md): ``np.arange(n)
+ 0.5`` is float32 (PyTorch's promotion; the resize program asks for
float); dtypes are torchlike's objects, so programs return ``dtype.name``;
``np.errstate(all="raise")`` does not make torchlike ops raise; ``np.select``
with string choices needs a string dtype torchlike lacks; a write through
``np.broadcast_to``'s view is not refused (read-only belongs to the memory);
``np.result_type`` of an integer array with a Python float is float32, the
dtype the operator gives."""
import warnings

import numpy
import pytest

import torchlike
import torchlike.numpy as tnp
from test_numpy_programs import _run, _same

_RNG = numpy.random.default_rng(7)
HOURLY = 20 + numpy.cumsum(_RNG.normal(0, 0.4, 96))
BINARY = (_RNG.random((9, 10)) < 0.45).astype(numpy.uint8)
NODES = numpy.sort(_RNG.uniform(0, 1, 9))
TRIPLETS = _RNG.integers(0, 5, (30, 2))
TRIPLET_VALUES = _RNG.normal(0, 1, 30)
SCORES = _RNG.normal(0, 1, (6, 11))
SPD = _RNG.normal(0, 1, (5, 4, 4))
LOWRANK = _RNG.normal(0, 1, (3, 6, 2)) @ _RNG.normal(0, 1, (3, 2, 5))
NOISY_X = numpy.linspace(0, 3, 25)
NOISY_Y = 1.0 - 2.0 * NOISY_X + 0.5 * NOISY_X ** 2 + _RNG.normal(0, 0.2, 25)
SIGMA = 0.1 + _RNG.random(25)
ANGLES = _RNG.uniform(0, 360, 12)
PLANE = _RNG.normal(0, 1, (8, 6))
NANFIELD = numpy.where(_RNG.random((4, 7)) < 0.25, numpy.nan, _RNG.normal(5, 1, (4, 7)))
BODIES = _RNG.normal(0, 1, (6, 3))
GREY = _RNG.integers(0, 256, (16, 16), dtype=numpy.uint8)
TONES = numpy.sin(2 * numpy.pi * 5 * numpy.arange(256) / 64.0) + 0.3 * _RNG.normal(0, 1, 256)
STOCK = _RNG.integers(0, 40, 50)
SKUS = _RNG.integers(100, 108, 50)
PRICES = _RNG.uniform(1, 9, 8).round(2)
VOLUME3 = _RNG.normal(0, 1, (3, 4, 2))
IMAGE7 = _RNG.integers(40, 200, (12, 14), dtype=numpy.uint8)


def resampled_series(np):
    """An hourly series without datetimes: daily means by reshape, a rolling
    mean by the cumsum trick, an exponential average by a loop, changes with
    diff and prepend, the hour of each day's maximum, and a centred moving
    median of a strided window."""
    x = np.asarray(HOURLY)
    days = x.reshape(-1, 24)
    daily = days.mean(axis=1)
    lo_hi = np.stack([days.min(axis=1), days.max(axis=1)], axis=1)
    c = np.cumsum(np.concatenate([np.zeros(1), x]))
    rolling = (c[6:] - c[:-6]) / 6
    ema = np.empty_like(x)
    ema[0] = x[0]
    for i in range(1, len(x)):
        ema[i] = 0.2 * x[i] + 0.8 * ema[i - 1]
    change = np.diff(x, prepend=x[0])
    peak_hour = np.argmax(days, axis=1)
    six_hourly = x.reshape(-1, 6).sum(axis=1).reshape(4, 4)
    med = np.median(np.lib.stride_tricks.sliding_window_view(x, 5), axis=-1)
    above = np.flatnonzero(rolling > rolling.mean())
    return (daily, lo_hi, rolling[::10], ema[-5:], change[:5], peak_hour, six_hourly, med[::9],
            above[:6], np.ptp(days, axis=1), np.argsort(daily, kind="stable"))


def morphology(np):
    """Binary morphology of a 0/1 image with np.pad and stacked shifts:
    erosion, dilation, opening, closing, the boundary, a hit-or-miss corner
    detector, and the Manhattan distance by repeated erosion."""
    img = np.asarray(BINARY).astype(bool)

    def shifts(a, r, fill):
        p = np.pad(a, r, constant_values=fill)
        h, w = a.shape
        return np.stack([p[i:i + h, j:j + w] for i in range(2 * r + 1) for j in range(2 * r + 1)])

    def erode(a):
        return shifts(a, 1, True).all(axis=0)

    def dilate(a):
        return shifts(a, 1, False).any(axis=0)

    opened, closed = dilate(erode(img)), erode(dilate(img))
    boundary = img & ~erode(img)
    p = np.pad(img, 1)
    corner = img & ~p[:-2, 1:-1] & ~p[1:-1, :-2] & p[2:, 1:-1] & p[1:-1, 2:]
    dist = np.zeros(img.shape, dtype=np.int32)
    cur = img.copy()
    while cur.any():
        dist += cur
        cur = erode(cur)
    return (erode(img), dilate(img), opened, closed, boundary.sum(), np.argwhere(corner), dist,
            np.count_nonzero(opened ^ closed), (opened <= img).all(), (img <= closed).all())


def coo_assembly(np):
    """Sparse matrices by hand: COO triplets with duplicates summed by
    np.add.at, by bincount of a linear index and by unique(return_inverse);
    CSR row pointers by bincount and cumsum; a CSR matvec by reduceat; and a
    1-d finite-element stiffness matrix assembled from element matrices."""
    ij = np.asarray(TRIPLETS)
    v = np.asarray(TRIPLET_VALUES)
    n = 5
    dense = np.zeros((n, n))
    np.add.at(dense, (ij[:, 0], ij[:, 1]), v)
    lin = ij[:, 0] * n + ij[:, 1]
    dense2 = np.bincount(lin, weights=v, minlength=n * n).reshape(n, n)
    keys, inv = np.unique(lin, return_inverse=True)
    summed = np.zeros(len(keys))
    np.add.at(summed, inv, v)
    rows, cols = np.divmod(keys, n)
    indptr = np.concatenate([[0], np.cumsum(np.bincount(rows, minlength=n))])
    x = np.linspace(1.0, 2.0, n)
    prods = summed * x[cols]
    starts = indptr[:-1][np.diff(indptr) > 0]
    y = np.zeros(n)
    y[np.diff(indptr) > 0] = np.add.reduceat(prods, starts)
    nodes = np.asarray(NODES)
    h = np.diff(nodes)
    ke = np.array([[1.0, -1.0], [-1.0, 1.0]])[None] / h[:, None, None]
    K = np.zeros((len(nodes), len(nodes)))
    conn = np.stack([np.arange(len(h)), np.arange(1, len(h) + 1)], axis=1)
    np.add.at(K, (conn[:, :, None], conn[:, None, :]), ke)
    return (dense, np.allclose(dense, dense2), keys, inv.shape, summed, indptr, y, dense @ x,
            K, K.sum(axis=1), np.linalg.matrix_rank(K), np.count_nonzero(K))


def quantile_methods(np):
    """np.quantile/np.percentile with each of NumPy's methods, along axes
    with keepdims, several q at once, integer data, and inverted_cdf with
    weights."""
    s = np.asarray(SCORES)
    q = np.asarray([0.1, 0.25, 0.5, 0.9])
    methods = ["linear", "lower", "higher", "midpoint", "nearest", "inverted_cdf",
               "averaged_inverted_cdf", "closest_observation", "interpolated_inverted_cdf",
               "hazen", "weibull", "median_unbiased", "normal_unbiased"]
    out = [np.quantile(s, q, axis=1, method=m) for m in methods]
    ints = np.asarray([7, 1, 9, 3, 3, 8, 2])
    w = np.asarray([1.0, 2.0, 1.0, 3.0, 1.0, 1.0, 2.0])
    return (out, np.percentile(s, [5, 95], axis=0, keepdims=True),
            np.quantile(s, 0.5, axis=(0, 1)), np.percentile(ints, 40),
            np.percentile(ints, 40, method="lower"),
            np.quantile(ints, [0.3, 0.6], method="nearest"),
            np.quantile(ints, 0.5, weights=w, method="inverted_cdf"),
            np.percentile(s[:, ::2], 75, axis=-1, method="midpoint"),
            np.median(s, axis=0, keepdims=True).shape)


def batched_decompositions(np):
    """np.linalg over stacks with the options programs pass: eigh with
    UPLO='U', svd with full_matrices and compute_uv=False, matrix_rank with
    tol= and hermitian=, cond with each p, slogdet of a singular member,
    cholesky with upper=, qr modes of a stack, eigvalsh, inv of a stack."""
    a = np.asarray(SPD)
    spd = a @ np.swapaxes(a, -1, -2) + 0.5 * np.eye(4)
    tri = np.triu(spd)
    wl, vl = np.linalg.eigh(spd)
    wu, vu = np.linalg.eigh(tri, UPLO="U")
    lr = np.asarray(LOWRANK)
    u, s, vt = np.linalg.svd(lr, full_matrices=True)
    u2, s2, vt2 = np.linalg.svd(lr, full_matrices=False)
    sing = np.concatenate([spd[:2], np.zeros((1, 4, 4))])
    sign, logdet = np.linalg.slogdet(sing)
    L = np.linalg.cholesky(spd)
    U = np.linalg.cholesky(spd, upper=True)
    q, r = np.linalg.qr(lr)
    r_only = np.linalg.qr(lr, mode="r")
    qc, rc = np.linalg.qr(lr, mode="complete")
    return (wl, np.abs(np.sum(vl * vu, axis=-2)), wu, u.shape, vt.shape, u2.shape, vt2.shape, s,
            np.linalg.svd(lr, compute_uv=False), np.allclose(u2 * s2[..., None, :] @ vt2, lr),
            np.linalg.matrix_rank(lr), np.linalg.matrix_rank(lr, tol=1e-8),
            np.linalg.matrix_rank(spd, hermitian=True), np.linalg.matrix_rank(lr, rtol=0.5),
            [np.linalg.cond(spd, p) for p in (None, 1, -1, 2, -2, np.inf, -np.inf, "fro")],
            sign, logdet, L, np.allclose(U, np.swapaxes(L, -1, -2)), np.abs(r), q.shape,
            np.abs(r_only), qc.shape, rc.shape, np.linalg.eigvalsh(spd, UPLO="U"),
            np.linalg.inv(spd) @ spd[:, :, :1])


def weighted_fits(np):
    """Least-squares polynomials as a lab script fits them: np.polyfit with
    weights 1/sigma, cov=True and cov='unscaled', full=True's diagnostics,
    np.polyval/np.poly1d, derivative and integral coefficients, roots, and a
    fit to several columns at once."""
    x, y, sig = np.asarray(NOISY_X), np.asarray(NOISY_Y), np.asarray(SIGMA)
    p, cov = np.polyfit(x, y, 2, w=1 / sig, cov=True)
    pu, covu = np.polyfit(x, y, 2, w=1 / sig, cov="unscaled")
    coef, res, rank, sv, rcond = np.polyfit(x, y, 3, full=True)
    fit = np.polyval(p, x)
    chi2 = np.sum(((y - fit) / sig) ** 2)
    both = np.polyfit(x, np.stack([y, 2 * y], axis=1), 1)
    d = np.polyder(p)
    integ = np.polyint(p, k=1.0)
    area = np.polyval(integ, 3.0) - np.polyval(integ, 0.0)
    return (p, cov, pu, covu, np.sqrt(np.diag(cov)), coef, res, rank, sv, chi2, both,
            d, integ, area, np.sort(np.roots(p)), np.poly1d(p)(1.5), np.polyval(d, x[:4]))


def periodic_interp(np):
    """Angles and periodic data: np.interp with period= (headings that wrap
    past 360), np.unwrap with period and discont, mean direction by vectors,
    circular differences with np.mod, and deg2rad/rad2deg round trips."""
    ang = np.sort(np.asarray(ANGLES))
    val = np.cos(np.deg2rad(ang))
    q = np.asarray([-30.0, 0.0, 5.0, 359.0, 400.0, 725.0])
    wrapped = np.interp(q, ang, val, period=360)
    plain = np.interp(q, ang, val)
    track = np.asarray([350.0, 355.0, 2.0, 8.0, 15.0, 5.0, 355.0, 340.0])
    unwr = np.unwrap(track, period=360)
    rad = np.unwrap(np.deg2rad(track))
    half = np.unwrap(np.asarray([0.0, 0.7, 1.4, 0.1, 0.8]), period=1.5)
    mean_dir = np.rad2deg(np.arctan2(np.sin(rad).mean(), np.cos(rad).mean())) % 360
    diff = (np.diff(track) + 180) % 360 - 180
    return (wrapped, plain, unwr, rad, half, mean_dir, diff,
            np.interp(np.asarray([1.5, 2.5]), [1, 2, 3], [10, 20, 30], left=-1, right=-2),
            np.interp(5, [0, 10], [0.0, 1.0]), np.rad2deg(np.deg2rad(ang)) - ang)


def gradients_and_quadrature(np):
    """Derivatives and integrals of sampled data: np.gradient with a scalar
    spacing, coordinate arrays per axis, edge_order=2 and axis=; the
    trapezoid rule with x= and dx= along axes; a cumulative integral by
    cumsum of trapezoids; Simpson's rule by slicing."""
    x = np.linspace(0, np.pi, 21)
    y = np.sin(x)
    xs = np.asarray(NODES)
    f = xs ** 3
    g2 = np.gradient(f, xs, edge_order=2)
    g1 = np.gradient(f, xs)
    P = np.asarray(PLANE)
    gy, gx = np.gradient(P, 0.5, 2.0)
    gx_only = np.gradient(P, np.arange(6.0) ** 2, axis=1)
    g_int = np.gradient(np.asarray([1, 4, 9, 16, 25]))
    cum = np.concatenate([[0.0], np.cumsum((y[1:] + y[:-1]) / 2 * np.diff(x))])
    h = x[1] - x[0]
    simpson = h / 3 * (y[0] + 4 * y[1:-1:2].sum() + 2 * y[2:-1:2].sum() + y[-1])
    return (g2, g1, gy, gx, gx_only, g_int, np.gradient(P, axis=0, edge_order=2),
            np.trapezoid(y, x), np.trapezoid(P, dx=0.25, axis=0),
            np.trapezoid(P, x=np.arange(6.0) ** 2),
            cum[::5], simpson, np.trapezoid(np.asarray([1, 2, 4])))


def integer_wraparound(np):
    """Fixed-width integers as hashing and checksum code relies on: uint8
    counters that wrap, int8 negation of its minimum, uint32 FNV-1a hashing
    with wrapping multiplies, an int16 accumulator's overflow, left shifts
    out of range, and iinfo bounds."""
    counter = np.asarray([250, 251, 252], dtype=np.uint8)
    for _ in range(10):
        counter = counter + np.uint8(1)
    i8 = np.asarray([-128, -1, 0, 127], dtype=np.int8)
    data = np.asarray(GREY[0], dtype=np.uint32)
    h = np.uint32(2166136261)
    hs = np.full(4, 2166136261, dtype=np.uint32)
    with np.errstate(over="ignore"):             # NumPy's scalars warn as they wrap
        for byte in data:
            h = (h ^ byte) * np.uint32(16777619)
        big = np.int64(2) ** 62 * 2
    for k in range(4):                          # four interleaved lanes at once
        hs = (hs ^ data[k::4]) * np.uint32(16777619)
    acc = np.asarray([30000, 30000, -30000], dtype=np.int16)
    acc = acc + np.asarray([5000, -5000, -5000], dtype=np.int16)
    sh = np.left_shift(np.asarray([1, 3, 255], dtype=np.uint8), 7)
    u16 = np.asarray([0, 1, 65535], dtype=np.uint16)
    adler_a = np.cumsum(data.astype(np.uint64) + 1) % 65521
    return (counter, -i8, np.abs(i8), h, hs, acc, sh, u16 - np.uint16(1), ~u16,
            np.iinfo(np.int16).min,
            np.iinfo(np.uint8).max, adler_a[-1], i8 * np.int8(2),
            np.asarray([200], dtype=np.uint8).astype(np.int8), big)


def promotion_queries(np):
    """A loader that picks storage dtypes by asking NumPy's casting
    questions: result_type of arrays and Python scalars, can_cast with each
    casting kind, min_scalar_type of the data's range, promote_types, and
    common_type; then it casts with the answer."""
    u8 = np.asarray([1, 2], dtype=np.uint8)
    i16 = np.asarray([1, -2], dtype=np.int16)
    f32 = np.asarray([1.5], dtype=np.float32)
    kinds = ["no", "equiv", "safe", "same_kind", "unsafe"]
    table = [[np.can_cast(a, b, casting=k) for k in kinds]
             for a, b in [(np.int8, np.int16), (np.int64, np.float64), (np.float64, np.float32),
                          (np.uint8, np.int8), (np.complex64, np.float64), (np.bool_, np.uint8),
                          (np.float16, np.complex64), (np.int32, np.float32)]]
    lo, hi = int(np.asarray(STOCK).min()), int(np.asarray(STOCK).max()) * 1000
    store = np.promote_types(np.min_scalar_type(lo), np.min_scalar_type(hi))
    packed = (np.asarray(STOCK) * 1000).astype(store)
    found = (np.result_type(u8, i16), np.result_type(u8, 300), np.result_type(u8, -1),
             np.result_type(i16, 2 ** 70), np.result_type(f32, 2.0), np.result_type(u8, f32, i16),
             np.result_type(np.int8, np.uint16), np.result_type(f32, 1j), np.result_type(u8, True),
             np.min_scalar_type(255), np.min_scalar_type(-1), np.min_scalar_type(70000),
             np.min_scalar_type(1.5), np.min_scalar_type(2 ** 40), np.promote_types("i1", "u1"),
             np.promote_types(np.float16, np.int16), np.common_type(u8.astype(np.float32), f32),
             np.common_type(i16), store, (u8 + i16).dtype, packed.dtype)
    return ([np.dtype(d).name for d in found], table, packed[:5], np.can_cast(f32, np.int32),
            np.issubdtype(store, np.unsignedinteger), np.issubdtype(found[4], np.floating))


def error_states(np):
    """Guarded arithmetic: np.errstate to silence a division, to turn an
    overflow into FloatingPointError, nested states restored on exit,
    np.geterr() inside and outside, seterr's returned old state, and
    nan_to_num cleaning the silenced results."""
    a = np.asarray([1.0, 0.0, -1.0, 2.0])
    b = np.asarray([0.0, 0.0, 0.0, 4.0])
    with np.errstate(divide="ignore", invalid="ignore"):
        r = a / b
        inside = np.geterr()
    with np.errstate(over="ignore"):
        quiet = np.exp(np.asarray([1000.0]))
        with np.errstate(over="warn", under="ignore"):
            nested = np.geterr()
        restored = np.geterr()
    old = np.seterr(under="ignore")
    back = np.seterr(**old)
    return (r, inside["divide"], inside["invalid"], nested["over"], nested["under"],
            restored["over"], quiet, np.geterr() == old,
            back["under"], np.nan_to_num(r, nan=0.0, posinf=9.0, neginf=-9.0),
            np.isfinite(r), np.isposinf(r), np.isneginf(r))


def generator_moments(np):
    """The Generator's distributions by their properties (not their
    streams): sample means and variances of normal, exponential, gamma,
    beta, poisson, binomial, uniform draws; integers' range with endpoint=;
    choice without replacement; multivariate_normal's covariance;
    permutation and permuted along an axis; dtypes of each draw."""
    rng = np.random.default_rng(123)
    n = 20000
    norm = rng.normal(2.0, 3.0, n)
    expo = rng.exponential(2.0, n)
    gam = rng.gamma(3.0, 2.0, n)
    bet = rng.beta(2.0, 5.0, n)
    poi = rng.poisson(4.0, n)
    binom = rng.binomial(10, 0.3, n)
    uni = rng.uniform(-1, 3, n)
    ints = rng.integers(1, 6, n, endpoint=True)
    pick = rng.choice(50, 20, replace=False)
    mvn = rng.multivariate_normal([0.0, 1.0], [[1.0, 0.6], [0.6, 2.0]], 5000)
    grid = np.arange(12).reshape(3, 4)
    rows = rng.permuted(grid, axis=1)
    close = lambda v, want, tol: bool(abs(float(v) - want) < tol)
    return (close(norm.mean(), 2.0, 0.1), close(norm.std(), 3.0, 0.1), close(expo.mean(), 2.0, 0.1),
            close(gam.var(), 12.0, 0.8), close(bet.mean(), 2 / 7, 0.01), close(poi.var(), 4.0, 0.2),
            close(binom.mean(), 3.0, 0.05), bool(uni.min() >= -1), bool(uni.max() < 3),
            int(ints.min()), int(ints.max()), len(np.unique(pick)), bool(pick.max() < 50),
            close(np.cov(mvn.T)[0, 1], 0.6, 0.1), np.sort(rows, axis=1),
            np.sort(rng.permutation(grid.ravel())), norm.dtype.name, poi.dtype.name,
            ints.dtype.name, rng.random(3, dtype=np.float32).dtype.name,
            rng.standard_normal((2, 3)).shape)


def top_k(np):
    """Ranking rows as a recommender does: argpartition for the k best per
    row, take_along_axis to read them and sort them, put_along_axis to mask
    the picks, argsort descending with a stable tie rule, and the rank of
    each entry by a double argsort."""
    s = np.asarray(SCORES)
    k = 3
    part = np.argpartition(-s, k, axis=1)[:, :k]
    vals = np.take_along_axis(s, part, axis=1)
    order = np.argsort(-vals, axis=1)
    best_idx = np.take_along_axis(part, order, axis=1)
    best = np.take_along_axis(s, best_idx, axis=1)
    masked = s.copy()
    np.put_along_axis(masked, best_idx, -np.inf, axis=1)
    ranks = np.argsort(np.argsort(-s, axis=1, kind="stable"), axis=1)
    ties = np.asarray([3, 1, 3, 2, 1, 3])
    desc = np.argsort(-ties, kind="stable")
    col_best = np.argpartition(s, -2, axis=0)[-2:]
    flat_top = np.argpartition(s.ravel(), -5)[-5:]
    mx = np.take_along_axis(s, np.argmax(s, axis=1, keepdims=True), axis=1)
    board = np.zeros((3, 4), dtype=np.int64)
    np.put_along_axis(board, np.asarray([[1], [3], [0]]), np.asarray([[7], [8], [9]]), axis=1)
    return (best_idx, best, np.isinf(masked).sum(axis=1), ranks, desc,
            np.sort(s[col_best, np.arange(s.shape[1])], axis=0), np.sort(s.ravel()[flat_top]),
            mx, board, np.take_along_axis(s.ravel(), flat_top, axis=None))


def tariffs(np):
    """Piecewise pricing: np.select for tiered rates with a default, np.piecewise
    with callables and constants, np.where with broadcasting against a
    table of rates, np.digitize with right=, and cumulative tier charges."""
    use = np.asarray([0.0, 50.0, 120.0, 250.0, 499.0, 500.0, 800.0])
    rate = np.select([use < 100, use < 300, use < 500], [0.10, 0.15, 0.2], default=0.3)
    bill = np.piecewise(use, [use < 100, (use >= 100) & (use < 500), use >= 500],
                        [lambda u: 0.1 * u, lambda u: 10 + 0.15 * (u - 100), 80.0])
    edges = np.asarray([100.0, 300.0, 500.0])
    tier_l = np.digitize(use, edges)
    tier_r = np.digitize(use, edges, right=True)
    peak = np.asarray([[1.2], [1.0], [0.8]])
    scaled = np.where(use > 200, use * peak, use)
    caps = np.asarray([100.0, 200.0, 200.0, np.inf])
    rates = np.asarray([0.1, 0.15, 0.2, 0.3])
    lower = np.concatenate([[0.0], np.cumsum(caps)[:-1]])
    in_tier = np.clip(use[:, None] - lower, 0, caps)
    tiered = in_tier @ rates
    return (rate, bill, tier_l, tier_r, scaled, tiered,
            np.piecewise(np.asarray([-2, 0, 3]), [np.asarray([-2, 0, 3]) < 0],
                         [lambda v: -v, lambda v: v * 10]),
            np.where(use > 100, 1, 0).dtype.name, np.select([use > 1e9], [use]))


def grid_potentials(np):
    """Fields on grids: np.meshgrid with indexing='xy' and 'ij', sparse=
    and copy=False, a potential summed over point charges by broadcasting,
    the field by np.gradient, and level sets counted per row."""
    x = np.linspace(-2, 2, 9)
    y = np.linspace(-1, 1, 5)
    X, Y = np.meshgrid(x, y)
    I, J = np.meshgrid(x, y, indexing="ij")
    xs, ys = np.meshgrid(x, y, sparse=True)
    Xc, Yc = np.meshgrid(x, y, copy=False)
    charges = np.asarray([[-1.0, 0.0, 1.0], [1.0, 0.0, -1.0], [0.0, 0.5, 0.5]])
    r = np.sqrt((X[..., None] - charges[:, 0]) ** 2 + (Y[..., None] - charges[:, 1]) ** 2 + 0.1)
    phi = (charges[:, 2] / r).sum(axis=-1)
    Ey, Ex = np.gradient(-phi, y, x)
    phi_s = (1.0 / np.sqrt(xs ** 2 + ys ** 2 + 0.1))
    a, b, c = np.meshgrid(np.arange(2), np.arange(3), np.arange(4), indexing="ij")
    return (X.shape, I.shape, xs.shape, ys.shape, np.array_equal(I.T, X), phi, Ex, Ey,
            phi_s.shape, phi_s[2], (phi > 0).sum(axis=1), a.shape, (a * 100 + b * 10 + c)[1, 2],
            Xc.shape, np.meshgrid(x)[0].shape)


def kkt_blocks(np):
    """An equality-constrained least-squares problem solved through its KKT
    system assembled with np.block (nested lists, scalars broadcast as
    zero blocks are not allowed, so explicit zeros), np.kron for a
    Kronecker structured matrix, and block-diagonal assembly by hand."""
    A = np.asarray(PLANE[:, :4])
    b = np.asarray(PLANE[:, 4])
    C = np.asarray([[1.0, 1.0, 1.0, 1.0], [1.0, -1.0, 0.0, 0.0]])
    d = np.asarray([1.0, 0.0])
    K = np.block([[2 * A.T @ A, C.T], [C, np.zeros((2, 2))]])
    rhs = np.concatenate([2 * A.T @ b, d])
    sol = np.linalg.solve(K, rhs)
    x = sol[:4]
    T = np.kron(np.eye(2), np.asarray([[2.0, -1.0], [-1.0, 2.0]]))
    T2 = np.kron(np.asarray([[1, 2], [3, 4]]), np.ones((2, 2), dtype=np.int64))
    blocks = [np.full((1, 1), 3.0), np.asarray([[1.0, 2.0], [3.0, 4.0]]), np.eye(3) * 5]
    n = sum(bl.shape[0] for bl in blocks)
    D = np.zeros((n, n))
    at = 0
    for bl in blocks:
        k = bl.shape[0]
        D[at:at + k, at:at + k] = bl
        at += k
    v = np.block([np.arange(3.0), 7.0, np.zeros(2)])
    nested = np.block([[np.ones((2, 2))], [np.zeros((1, 2))]])
    return (K.shape, x, C @ x, sol[4:], T, T2, D, np.linalg.det(D), v, nested.shape,
            np.block([[np.eye(2), np.ones((2, 1))]]))


def tolerance_checks(np):
    """Comparisons a test-suite helper makes: np.isclose with equal_nan,
    atol=0, infinities of either sign, broadcasting a scalar, complex
    values and integers near their limits; allclose, array_equal with
    equal_nan, array_equiv across broadcast shapes."""
    a = np.asarray([1.0, np.nan, np.inf, -np.inf, 1e-10, 1e10, 0.0])
    b = np.asarray([1.0 + 1e-9, np.nan, np.inf, np.inf, 2e-10, 1.00001e10, -0.0])
    z = np.asarray([1 + 1j, 1 + 1.0000001j, np.nan + 0j])
    big = np.asarray([2 ** 62, -(2 ** 62)], dtype=np.int64)
    return (np.isclose(a, b), np.isclose(a, b, equal_nan=True), np.isclose(a, b, atol=0.0),
            np.isclose(a, b, rtol=0.0, atol=1e-9), np.isclose(a, 1.0), np.isclose(z, 1 + 1j),
            np.isclose(big, big + 1), np.isclose(np.asarray([1, 2]), np.asarray([1.0, 2.1])),
            np.allclose(a[:1], b[:1]), np.allclose(a, a), np.allclose(a, a, equal_nan=True),
            np.array_equal(a, a), np.array_equal(a, a, equal_nan=True),
            np.array_equal(np.arange(3), np.arange(4)), np.array_equiv(np.ones(3), np.ones((2, 3))),
            np.array_equiv(np.arange(3), np.arange(3)[None] + np.zeros((2, 1), dtype=np.int64)),
            np.array_equiv(np.ones(3), np.ones(4)), np.isclose(1e-300, 0.0),
            np.isclose(np.asarray([[1.0], [2.0]]), np.asarray([1.0, 2.0, 3.0])))


def view_semantics(np):
    """Which operations alias memory, as a careful program checks before
    writing: slices, transposes, reshape of contiguous data, ravel of a
    transposed array, fancy indexing, np.copy, ascontiguousarray; then
    writes through the views and reads the base."""
    base = np.arange(24.0).reshape(4, 6)
    sl = base[1:3, ::2]
    tr = base.T
    rs = base.reshape(6, 4)
    rv = tr.ravel()
    fancy = base[[0, 2]]
    boolean = base[base > 20]
    cp = np.copy(base)
    cont = np.ascontiguousarray(tr)
    checks = [np.shares_memory(base, v) for v in (sl, tr, rs, rv, fancy, boolean, cp, cont)]
    may = [np.may_share_memory(base, v) for v in (sl, tr, fancy)]
    disjoint = np.shares_memory(base[:2], base[2:])
    inter = np.shares_memory(base[:, ::2], base[:, 1::2])
    sl[...] = -1.0
    rs[0, 0] = 100.0
    fancy[:] = 0.0
    flags = (base.flags.c_contiguous, tr.flags.f_contiguous, tr.flags.c_contiguous,
             sl.flags.c_contiguous, cont.flags.c_contiguous)
    return checks, may, disjoint, inter, base, flags, base[::2].strides, tr.strides


def nan_reductions(np):
    """NaN-aware statistics of a sensor table: nansum/nanmean/nanstd/nanvar
    with keepdims and where=, nanmedian/nanpercentile with keepdims,
    nanargmax/nanargmin, nancumsum/nancumprod, nanprod, and counts of
    valid entries."""
    t = np.asarray(NANFIELD)
    valid = ~np.isnan(t)
    mask = np.arange(7) % 2 == 0
    return (np.nansum(t, axis=1, keepdims=True), np.nanmean(t, axis=0),
            np.nanmean(t, axis=1, where=mask), np.nanstd(t, axis=1, ddof=1, keepdims=True),
            np.var(t, axis=0, where=valid), np.mean(t, axis=1, where=valid, keepdims=True),
            np.nanmedian(t, axis=1, keepdims=True),
            np.nanpercentile(t, [25, 75], axis=1, keepdims=True),
            np.nanargmax(t, axis=1), np.nanargmin(t, axis=0), np.nancumsum(t, axis=1),
            np.nancumprod(t[:, :3], axis=0), np.nanprod(t, axis=1), valid.sum(axis=0),
            np.nanmax(t, axis=1, keepdims=True), np.nansum(t, where=mask), np.nanmin(t),
            np.nanquantile(t, 0.5, axis=0, method="lower"))


def structured_matrices(np):
    """Toeplitz, Hankel and circulant matrices as read-only strided views of
    one vector (np.lib.stride_tricks.as_strided, broadcast_to), an
    autocovariance matrix from them, broadcast_arrays and broadcast_shapes
    to line up operands."""
    as_strided = np.lib.stride_tricks.as_strided
    c = np.asarray([4.0, 3.0, 2.0, 1.0, 0.5])
    n = 4
    both = np.concatenate([c[:0:-1][-(n - 1):], c[:n]])
    s = both.strides[0]
    toe = as_strided(both[n - 1:], shape=(n, n), strides=(-s, s), writeable=False)
    hank = as_strided(c, shape=(3, 3), strides=(s, s))
    circ = np.stack([np.roll(c, k) for k in range(5)])
    row = np.broadcast_to(c, (3, 5))
    a, b = np.broadcast_arrays(np.arange(3)[:, None], np.arange(4))
    acov = toe @ np.ones(n)
    return (toe, hank, circ, row.strides, a, b, np.broadcast_shapes((3, 1), (1, 4), (4,)),
            acov, np.linalg.eigvalsh(toe + toe.T), hank.sum(axis=0))


def frequency_grids(np):
    """Sweeps on log scales: np.logspace with base= and endpoint=, np.geomspace
    of negative and complex ranges and along axis=, linspace with
    retstep/axis/array endpoints, decade bins for a histogram, and a
    Bode-style magnitude and phase of a first-order filter."""
    f = np.logspace(0, 4, 9)
    f2 = np.logspace(0, 10, 11, base=2.0, endpoint=False)
    f3 = np.logspace(np.asarray([0.0, 1.0]), np.asarray([2.0, 4.0]), 4, axis=1)
    g = np.geomspace(1, 1000, 4)
    gneg = np.geomspace(-1000, -1, 4)
    gc = np.geomspace(1j, 1000j, 4)
    gax = np.geomspace(np.asarray([1.0, 10.0]), np.asarray([100.0, 1000.0]), 3, axis=1)
    lin, step = np.linspace(0, 1, 5, retstep=True, endpoint=False)
    lax = np.linspace(np.asarray([0.0, 1.0]), np.asarray([1.0, 3.0]), 3, axis=-1)
    fc = 100.0
    h = 1 / (1 + 1j * f / fc)
    mag_db = 20 * np.log10(np.abs(h))
    phase = np.degrees(np.angle(h))
    counts, edges = np.histogram(np.asarray(HOURLY) ** 2, bins=np.logspace(2, 3, 6))
    return (f, f2, f3, g, gneg, gc, gax, lin, step, lax, mag_db, phase, counts, edges,
            np.logspace(0, 2, 3, dtype=np.int64), np.geomspace(2, 32, 5, dtype=np.int32))


def index_arithmetic(np):
    """Flat and multi-indices as a grid code converts them: ravel_multi_index
    with mode='wrap'/'clip' and order='F', unravel_index of arrays, np.tri
    and tril_indices_from/triu_indices_from with k=, diag_indices_from,
    np.ndindex loops, and np.delete/np.insert with masks, slices and
    lists along axes."""
    shape = (4, 5)
    rows = np.asarray([0, 3, 5, -1])
    cols = np.asarray([1, 4, 7, -2])
    wrap = np.ravel_multi_index((rows, cols), shape, mode="wrap")
    clip = np.ravel_multi_index((rows, cols), shape, mode="clip")
    mixed = np.ravel_multi_index((rows, cols), shape, mode=("wrap", "clip"))
    fo = np.ravel_multi_index((np.asarray([1, 2]), np.asarray([3, 4])), shape, order="F")
    ur = np.unravel_index(np.asarray([[0, 7], [19, 12]]), shape)
    urf = np.unravel_index(13, shape, order="F")
    a = np.arange(20.0).reshape(shape)
    lo = a[np.tril_indices_from(a, k=-1)]
    hi = a[np.triu_indices_from(a, k=2)]
    sq = np.arange(16).reshape(4, 4)
    sq[np.diag_indices_from(sq)] = 0
    tri = np.tri(3, 5, k=1, dtype=np.int32)
    visits = np.zeros(shape, dtype=np.int64)
    for i, j in np.ndindex(*shape):
        visits[i, j] = (i * 7 + j * 3) % 5
    d1 = np.delete(a, [0, 2], axis=1)
    d2 = np.delete(a, slice(1, None, 2), axis=0)
    d3 = np.delete(np.arange(6), np.asarray([True, False, True, False, False, False]))
    i1 = np.insert(a, 1, -1.0, axis=1)
    i2 = np.insert(np.arange(5), [1, 1, 3], [10, 20, 30])
    i3 = np.insert(a, [0, 4], -9.0, axis=0)
    return (wrap, clip, mixed, fo, ur, urf, lo, hi, sq, tri, visits, d1, d2, d3, i1, i2, i3,
            np.ediff1d(np.asarray([1, 4, 9, 16]), to_begin=0, to_end=[100, 200]),
            np.ediff1d(a[:2]))


def scimath_roots(np):
    """Quadratic roots of many equations with np.lib.scimath (complex where
    the discriminant is negative), np.emath.logn and power, np.vdot of
    complex vectors (conjugating the first), np.inner and np.outer of
    stacks, and tensordot with each axes form."""
    coef = np.asarray([[1.0, -3.0, 2.0], [1.0, 2.0, 5.0], [2.0, 4.0, 2.0], [1.0, 0.0, -4.0]])
    a, b, c = coef.T
    disc = np.lib.scimath.sqrt(b * b - 4 * a * c)
    r1 = (-b + disc) / (2 * a)
    r2 = (-b - disc) / (2 * a)
    u = np.asarray([1 + 2j, 3 - 1j, 0.5j])
    v = np.asarray([2 - 1j, 1j, 4.0 + 0j])
    P = np.asarray(PLANE)
    T = np.asarray(VOLUME3)
    return (r1, r2, np.lib.scimath.log(np.asarray([-1.0, 1.0])),
            np.emath.logn(2, np.asarray([8.0, -8.0])), np.emath.power(np.asarray([-4.0, 4.0]), 0.5),
            np.lib.scimath.arcsin(np.asarray([0.5, 2.0])),
            np.vdot(u, v), np.vdot(v, u), np.vdot(P[:2], P[2:4]), np.inner(P[:3], P[3:5]),
            np.outer(u, v), np.tensordot(T, P[:3, :4], axes=([0, 1], [0, 1])),
            np.tensordot(P[:, :3], P[:, 3:], axes=0).shape, np.tensordot(P, P, axes=2),
            np.tensordot(T, T, axes=([1, 2], [1, 2])), np.inner(u, v))


def spectrogram(np):
    """A short-time spectrum of a noisy tone: frames by sliding_window_view
    with a hop, the five classic windows (hanning, hamming, blackman,
    bartlett, kaiser) and their coherent gains, rfft along the last axis,
    power in dB with a floor, rfftfreq with d=, the peak frequency per frame,
    and a Welch average."""
    x = np.asarray(TONES)
    fs = 64.0
    frames = np.lib.stride_tricks.sliding_window_view(x, 32)[::16]
    wins = [np.hanning(32), np.hamming(32), np.blackman(32), np.bartlett(32), np.kaiser(32, 6.0)]
    gains = np.asarray([w.sum() / 32 for w in wins])
    spec = np.fft.rfft(frames * wins[0], axis=-1)
    power = np.abs(spec) ** 2 / (wins[0] ** 2).sum()
    db = 10 * np.log10(np.maximum(power, 1e-12))
    freqs = np.fft.rfftfreq(32, d=1 / fs)
    peak = freqs[np.argmax(power, axis=1)]
    welch = power.mean(axis=0)
    full = np.fft.fftshift(np.fft.fftfreq(8, d=0.5))
    return (frames.shape, gains, db[:, :6], freqs, peak, welch, full, np.hamming(1), np.blackman(0),
            np.fft.irfft(spec, n=32, axis=-1)[0, :4], np.kaiser(4, 0.0))


def otsu_threshold(np):
    """Thresholding a grey image: the histogram by bincount with minlength,
    Otsu's threshold from cumulative sums (nan where a class is empty, then
    nanargmax), histogram equalisation through a lookup table, and the
    thresholded image's row and column profiles."""
    img = np.asarray(GREY)
    hist = np.bincount(img.ravel(), minlength=256).astype(np.float64)
    p = hist / hist.sum()
    omega = np.cumsum(p)
    mu = np.cumsum(p * np.arange(256))
    mu_t = mu[-1]
    with np.errstate(divide="ignore", invalid="ignore"):
        between = (mu_t * omega - mu) ** 2 / (omega * (1 - omega))
    between[~np.isfinite(between)] = np.nan
    t = np.nanargmax(between)
    mask = img > t
    cdf = np.cumsum(hist)
    cdf_min = cdf[np.flatnonzero(cdf)[0]]
    lut = np.round((cdf - cdf_min) / (cdf[-1] - cdf_min) * 255).clip(0, 255).astype(np.uint8)
    eq = lut[img]
    return (t, mask.sum(), mask.mean(axis=0), np.count_nonzero(mask, axis=1), lut[::32], eq[:3, :6],
            np.bincount(eq.ravel() // 64, minlength=4), img[mask].mean(), img[~mask].std())


def single_linkage(np):
    """Agglomerative clustering by hand: a pairwise distance matrix by
    broadcasting, its condensed form through triu_indices, merges found by
    argmin and unravel_index on a matrix whose diagonal is filled with inf,
    Lance-Williams updates by np.minimum, and the merge heights."""
    pts = np.asarray(BODIES)
    d = np.sqrt(((pts[:, None, :] - pts[None, :, :]) ** 2).sum(axis=-1))
    iu = np.triu_indices(len(pts), k=1)
    condensed = d[iu]
    work = d.copy()
    np.fill_diagonal(work, np.inf)
    labels = np.arange(len(pts))
    heights = []
    alive = np.ones(len(pts), dtype=bool)
    for _ in range(len(pts) - 1):
        i, j = np.unravel_index(np.argmin(work), work.shape)
        i, j = min(i, j), max(i, j)
        heights.append(work[i, j])
        work[i] = np.minimum(work[i], work[j])
        work[:, i] = work[i]
        work[i, i] = np.inf
        work[j] = np.inf
        work[:, j] = np.inf
        alive[j] = False
        labels[labels == labels[j]] = labels[i]
    return (condensed, np.asarray(heights), np.argsort(condensed)[:4], alive, np.unique(labels),
            np.tril_indices(4, -1), d[np.tril_indices_from(d, k=-2)].sum())


def gravity(np):
    """An n-body leapfrog with softened gravity: accelerations by
    broadcasting with the self-interaction masked by fill_diagonal, kinetic
    and potential energy from triu_indices, angular momentum by np.cross,
    and the centre of mass kept at rest."""
    pos = np.array(BODIES)                      # a copy: the loop updates it in place
    vel = np.zeros_like(pos)
    vel[:, 0] = np.linspace(-0.2, 0.2, len(pos))
    mass = np.linspace(1.0, 2.0, len(pos))
    vel -= (mass[:, None] * vel).sum(axis=0) / mass.sum()

    def accel(p):
        diff = p[None, :, :] - p[:, None, :]
        r2 = (diff ** 2).sum(axis=-1) + 0.05
        inv = r2 ** -1.5
        np.fill_diagonal(inv, 0.0)
        return (diff * (inv * mass[None, :])[..., None]).sum(axis=1)

    def energy(p, v):
        i, j = np.triu_indices(len(p), 1)
        r = np.sqrt(((p[i] - p[j]) ** 2).sum(axis=-1) + 0.05)
        return 0.5 * (mass * (v ** 2).sum(axis=1)).sum() - (mass[i] * mass[j] / r).sum()

    e0 = energy(pos, vel)
    dt = 0.01
    a = accel(pos)
    for _ in range(40):
        vel += 0.5 * dt * a
        pos += dt * vel
        a = accel(pos)
        vel += 0.5 * dt * a
    L = np.cross(pos, mass[:, None] * vel).sum(axis=0)
    com = (mass[:, None] * pos).sum(axis=0) / mass.sum()
    return pos, vel, abs(energy(pos, vel) - e0) < 1e-2 * abs(e0), L, com, np.linalg.norm(a, axis=1)


def amortization(np):
    """A loan schedule in cents: the annuity payment, balances by a loop and
    in closed form with cumprod, rounding to cents with np.round(decimals=2)
    (half to even), integer cents with divmod, and fmod versus mod of
    negative adjustments."""
    principal, rate, n = 25000.0, 0.045 / 12, 24
    pay = principal * rate / (1 - (1 + rate) ** -n)
    bal = np.empty(n + 1)
    bal[0] = principal
    interest = np.empty(n)
    for k in range(n):
        interest[k] = np.round(bal[k] * rate, 2)
        bal[k + 1] = bal[k] + interest[k] - np.round(pay, 2)
    growth = np.cumprod(np.full(n, 1 + rate))
    closed = principal * growth - pay * (growth - 1) / rate
    cents = np.round(interest * 100).astype(np.int64)
    dollars, rest = np.divmod(cents, 100)
    adj = np.asarray([-7.5, 7.5, -0.25, 3.0])
    return (np.round(pay, 2), bal[::6], np.round(closed[5::6], 2), interest.sum(), dollars[:5],
            rest[:5],
            np.round(np.asarray([0.125, 0.135, 2.675, -1.005]), 2), np.fmod(adj, 2), np.mod(adj, 2),
            np.remainder(adj, -2), np.floor(adj), np.ceil(adj), np.trunc(adj), np.rint(adj))


def inventory(np):
    """Stock records keyed by SKU: totals per SKU with unique(return_inverse)
    and bincount weights, the first row of each SKU (return_index), unique
    rows of a (sku, bin) table with counts, prices looked up with
    searchsorted and sorter=, stock-outs with isin(invert=True), a
    lexsort report, and the value of the stock per SKU."""
    sku = np.asarray(SKUS)
    qty = np.asarray(STOCK)
    keys, first, inv, counts = np.unique(sku, return_index=True, return_inverse=True,
                                         return_counts=True)
    totals = np.bincount(inv, weights=qty)
    catalogue = np.asarray([105, 100, 107, 101, 103, 102, 106, 104])
    prices = np.asarray(PRICES)
    order = np.argsort(catalogue)
    at = order[np.searchsorted(catalogue, keys, sorter=order)]
    value = totals * prices[at]
    rows = np.stack([sku, qty % 3], axis=1)
    urows, ucounts = np.unique(rows, axis=0, return_counts=True)
    missing = catalogue[np.isin(catalogue, keys, invert=True)]
    report = np.lexsort((-qty, sku))
    low = np.flatnonzero(totals < np.median(totals))
    return (keys, first, inv[:10], counts, totals, at, np.round(value, 2), urows[:6], ucounts[:6],
            missing, sku[report][:8], qty[report][:8], keys[low], np.setdiff1d(catalogue, keys))


def bilinear_resize(np):
    """Resizing a grey image by bilinear interpolation with index arrays:
    source coordinates by the pixel-centre rule, floor and clip of the
    neighbours, weights broadcast over rows and columns, rounding back to
    uint8 with rint; nearest-neighbour resizing for comparison; and a 2x
    downsampling by reshape-mean."""
    img = np.asarray(GREY).astype(np.float64)
    h, w = img.shape
    H, W = 11, 21
    ys = (np.arange(H, dtype=float) + 0.5) * h / H - 0.5   # float: int + 0.5 is float32 here
    xs = (np.arange(W, dtype=float) + 0.5) * w / W - 0.5
    y0 = np.clip(np.floor(ys).astype(np.int64), 0, h - 1)
    x0 = np.clip(np.floor(xs).astype(np.int64), 0, w - 1)
    y1 = np.minimum(y0 + 1, h - 1)
    x1 = np.minimum(x0 + 1, w - 1)
    wy = np.clip(ys - y0, 0, 1)[:, None]
    wx = np.clip(xs - x0, 0, 1)[None, :]
    top = img[y0][:, x0] * (1 - wx) + img[y0][:, x1] * wx
    bottom = img[y1][:, x0] * (1 - wx) + img[y1][:, x1] * wx
    out = np.rint((1 - wy) * top + wy * bottom).astype(np.uint8)
    near = img[np.ix_((np.arange(H) * h) // H, (np.arange(W) * w) // W)].astype(np.uint8)
    half = img.reshape(h // 2, 2, w // 2, 2).mean(axis=(1, 3))
    return out, near, half[:3], out.dtype.name, np.abs(out.astype(np.int16) - 128).max()


def mixed_precision_contractions(np):
    """Contractions that choose their accumulation type: einsum with dtype=
    and casting= (same_kind for float64 data summed in float32, unsafe for
    floats into integers; the default 'safe' refuses int64 into float32 as
    NumPy's TypeError), tensordot and matmul of small integers, sums with
    dtype=, and np.dot of bools."""
    a = np.arange(12, dtype=np.int16).reshape(3, 4)
    b = np.asarray(PLANE[:4, :3])
    refused = []
    for call in (lambda: np.einsum("ij,jk->ik", a, a.T, dtype=np.float32),
                 lambda: np.einsum("i->", np.arange(3.0), dtype=np.int32)):
        try:
            call()
        except TypeError:
            refused.append(True)
    return (np.einsum("ij,jk->ik", a, b, dtype=np.float32, casting="same_kind"),
            np.einsum("ij,jk->ik", a, a.T, dtype=np.int64),
            np.einsum("ij->j", b, dtype=np.int32, casting="unsafe"),
            np.einsum("ij,ij->", a, a, dtype=np.float64), refused,
            np.tensordot(a, a, axes=([1], [1])), a @ a.T, np.sum(a, axis=0, dtype=np.int8),
            np.dot(np.asarray([True, False, True]), np.asarray([True, True, False])),
            np.einsum("i,i->", np.asarray([200, 100], dtype=np.uint8),
                      np.asarray([2, 2], dtype=np.uint8)))


def calendar_arithmetic(np):
    """Dates without datetime64: day numbers to (year, day-of-year) with
    divmod, leap years by boolean algebra, weekdays by Zeller's congruence
    with floor_divide, the period of meeting cycles by lcm.reduce, gcd of
    intervals, and month lengths looked up by fancy indexing."""
    years = np.arange(1896, 1910)
    leap = (years % 4 == 0) & ((years % 100 != 0) | (years % 400 == 0))
    days = np.arange(0, 4000, 333)
    y, doy = np.divmod(days, 365)
    q = np.asarray([1, 15, 28, 31, 4])
    m = np.asarray([13, 2, 7, 12, 14])
    yy = np.asarray([2023, 2024, 2025, 1999, 1999])
    K, J = yy % 100, yy // 100
    h = (q + np.floor_divide(13 * (m + 1), 5) + K + K // 4 + J // 4 + 5 * J) % 7
    cycles = np.asarray([6, 8, 14, 21])
    month_len = np.asarray([31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31])
    months = np.asarray([1, 2, 2, 12]) - 1
    lens = month_len[months] + (months == 1) * leap[np.asarray([0, 4, 5, 8])]
    return (leap, years[leap], y, doy, h, np.lcm.reduce(cycles),
            np.gcd.reduce(np.asarray([84, 126, 210])),
            np.lcm.accumulate(cycles), lens, np.cumsum(month_len)[months], np.sum(leap))



def column_major_stream(np):
    """A column-major instrument dump read into a C-ordered table: the
    stream poured in through the transposed view's flat iterator
    (``m.T.flat = stream``), every third cell of a reversed view marked by
    flat slicing, a repeated pattern written with ``x.flat = [..]``, and
    the table read back in Fortran order."""
    stream = np.arange(1.0, 13.0)
    m = np.zeros((3, 4))
    m.T.flat = stream
    marks = np.zeros((4, 5), dtype=np.int64)
    marks[::-1, 1:].flat[::3] = -1
    marks[:, 0].flat[[0, 2]] = 7
    pattern = np.empty((2, 5))
    pattern.flat = [0.5, -0.5]
    grid = np.arange(12).reshape(3, 4)
    grid.T.flat[np.arange(12) % 5 == 0] = 0
    return (m, m.ravel(order="F"), np.array_equal(m, stream.reshape(3, 4, order="F")), marks,
            pattern, grid, m.T.flat[4], len(m.T.flat))



def texture_glcm(np):
    """Grey-level co-occurrence matrices of a quantised image for four
    offsets, accumulated with np.add.at on index pairs, made symmetric and
    normalised; Haralick's contrast, energy, homogeneity and correlation
    from np.indices weights."""
    q = (np.asarray(GREY) // 64).astype(np.int64)
    levels = 4
    feats = []
    for dy, dx in [(0, 1), (1, 0), (1, 1), (1, -1)]:
        h, w = q.shape                          # pixel pairs (a, b) at offset (dy >= 0, dx)
        a = q[:h - dy, max(0, -dx):w - max(0, dx)]
        b = q[dy:, max(0, dx):w + min(0, dx)]
        glcm = np.zeros((levels, levels))
        np.add.at(glcm, (a.ravel(), b.ravel()), 1)
        glcm = glcm + glcm.T
        p = glcm / glcm.sum()
        i, j = np.indices((levels, levels))
        mu_i, mu_j = (i * p).sum(), (j * p).sum()
        sd_i = np.sqrt(((i - mu_i) ** 2 * p).sum())
        sd_j = np.sqrt(((j - mu_j) ** 2 * p).sum())
        feats.append([((i - j) ** 2 * p).sum(), (p ** 2).sum(), (p / (1 + np.abs(i - j))).sum(),
                      ((i - mu_i) * (j - mu_j) * p).sum() / (sd_i * sd_j)])
    return np.asarray(feats), np.bincount(q.ravel(), minlength=levels)


def ranked_choice(np):
    """An instant-runoff count: ballots as rank rows, first preferences of
    the candidates still standing found with argmax over a masked rank
    table, tallies by bincount with minlength, the loser by argmin over
    the standing (ties to the lowest index), until a majority."""
    rng = numpy.random.default_rng(11)
    bias = numpy.asarray([0.1, 0.0, 0.2, 0.05, 0.3])
    ballots = np.asarray(numpy.argsort(rng.random((41, 5)) + bias, axis=1))
    standing = np.ones(5, dtype=bool)
    rounds = []
    while True:
        ok = standing[ballots]
        first = np.argmax(ok, axis=1)
        choice = np.take_along_axis(ballots, first[:, None], axis=1)[:, 0]
        tally = np.bincount(choice, minlength=5)
        rounds.append(tally)
        if tally.max() * 2 > len(ballots):
            break
        masked = np.where(standing, tally, np.iinfo(np.int64).max)
        standing[np.argmin(masked)] = False
    return np.stack(rounds), np.argmax(rounds[-1]), standing, np.flatnonzero(~standing)


def histogram_matching(np):
    """Histogram specification: one image's grey levels remapped so that
    its histogram follows a reference's, through unique(return_inverse,
    return_counts), cumulative distributions, and np.interp between the
    two CDFs; then the matched image's quantiles against the reference."""
    src = np.asarray(GREY)
    ref = np.asarray(IMAGE7)
    s_vals, s_idx, s_counts = np.unique(src.ravel(), return_inverse=True, return_counts=True)
    r_vals, r_counts = np.unique(ref.ravel(), return_counts=True)
    s_cdf = np.cumsum(s_counts, dtype=np.float64) / src.size   # int / int is float32 here
    r_cdf = np.cumsum(r_counts, dtype=np.float64) / ref.size
    mapped = np.interp(s_cdf, r_cdf, r_vals)
    matched = mapped[s_idx].reshape(src.shape)
    q = [0.1, 0.5, 0.9]
    return (matched[:3, :5], np.round(np.quantile(matched, q), 6), np.quantile(ref, q),
            len(s_vals), s_cdf[-1], np.histogram(matched, bins=4, range=(40, 200))[0])


def bounding_boxes(np):
    """Bounding boxes and spans of a binary mask without labels: rows and
    columns holding any pixel by any(axis=), first and last indices with
    argmax of the mask and of its reversal, boxes per connected run of
    rows, the crop, and the fill ratio."""
    m = np.asarray(BINARY).astype(bool)
    m[:, -2:] = False
    rows = m.any(axis=1)
    cols = m.any(axis=0)
    r0, r1 = np.argmax(rows), len(rows) - 1 - np.argmax(rows[::-1])
    c0, c1 = np.argmax(cols), len(cols) - 1 - np.argmax(cols[::-1])
    crop = m[r0:r1 + 1, c0:c1 + 1]
    first = np.where(m.any(axis=1), np.argmax(m, axis=1), -1)
    last = np.where(m.any(axis=1), m.shape[1] - 1 - np.argmax(m[:, ::-1], axis=1), -1)
    edges = np.diff(np.concatenate([[0], m.sum(axis=1) > 3, [0]]).astype(np.int64))
    starts, stops = np.flatnonzero(edges == 1), np.flatnonzero(edges == -1)
    return (r0, r1, c0, c1, crop.shape, crop.mean(), first, last, starts, stops,
            m.sum(axis=0)[c0:c1 + 1], np.nonzero(m[r0])[0])


def test_series_images_and_sparse_assembly():
    _run(resampled_series)
    _run(morphology)
    _run(coo_assembly)
    _run(otsu_threshold)
    _run(bilinear_resize)
    _run(spectrogram)
    _run(texture_glcm)
    _run(histogram_matching)
    _run(bounding_boxes)


def test_statistics_fits_and_rankings():
    _run(quantile_methods)
    _run(nan_reductions)
    _run(weighted_fits)
    _run(top_k)
    _run(inventory)
    _run(generator_moments)
    _run(ranked_choice)


def test_linear_algebra_and_contractions():
    _run(batched_decompositions)
    _run(kkt_blocks)
    _run(structured_matrices)
    _run(scimath_roots)
    _run(mixed_precision_contractions)
    _run(single_linkage)


def test_calculus_grids_and_physics():
    _run(periodic_interp)
    _run(gradients_and_quadrature)
    _run(grid_potentials)
    _run(frequency_grids)
    _run(gravity)
    _run(tariffs)


def test_integers_dtypes_and_memory():
    _run(integer_wraparound)
    _run(promotion_queries)
    _run(error_states)
    _run(tolerance_checks)
    _run(view_semantics)
    _run(index_arithmetic)
    _run(amortization)
    _run(calendar_arithmetic)
    _run(column_major_stream)


# ---- what the programs found ---------------------------------------------------

def test_result_type_reads_python_scalars_by_kind_not_value():
    """np.result_type(uint8_array, 300) raised OverflowError: the weak Python
    int was converted to the array's dtype.  NumPy 2 (NEP 50) looks only at
    its kind: uint8, as for -1 or 2**70."""
    for np in (numpy, tnp):
        u8 = np.asarray([1, 2], dtype=np.uint8)
        i8 = np.asarray([1], dtype=np.int8)
        got = [np.result_type(u8, 300), np.result_type(u8, -1), np.result_type(i8, 2 ** 70),
               np.result_type(np.float16, 1e300), np.result_type(u8, True),
               np.result_type(np.int16, 7, 2 ** 40), np.result_type(np.float32, 1j)]
        assert [np.dtype(d).name for d in got] == ["uint8", "uint8", "int8", "float16", "uint8",
                                                   "int16", "complex64"], np


def test_einsum_honours_casting_for_its_dtype():
    """np.einsum(..., dtype=) ignored casting= (default 'safe'): int64
    operands summed as float32 computed where NumPy raises TypeError; the
    kinds NumPy allows still compute, in the asked dtype."""
    a = numpy.arange(6).reshape(2, 3)
    for np in (numpy, tnp):
        x = np.asarray(a)
        for casting in ("safe", "no", "equiv"):
            wording = ("could not be cast from dtype\\('int64'\\) to dtype\\('float32'\\) "
                       f"according to the rule '{casting}'")
            with pytest.raises(TypeError, match=wording):
                np.einsum("ij,kj->ik", x, x, dtype=np.float32, casting=casting)
        with pytest.raises(TypeError, match="operand 1 dtype"):
            np.einsum("i,i->", np.arange(3, dtype=np.int32), np.arange(3.0), dtype=np.int64)
    for casting in ("same_kind", "unsafe"):
        _same(numpy.einsum("ij,kj->ik", a, a, dtype=numpy.float32, casting=casting),
              tnp.einsum("ij,kj->ik", tnp.asarray(a), tnp.asarray(a), dtype=tnp.float32,
                         casting=casting), casting)
    _same(numpy.einsum("i->", numpy.arange(3.5), dtype=numpy.int32, casting="unsafe"),
          tnp.einsum("i->", tnp.arange(3.5), dtype=tnp.int32, casting="unsafe"), "unsafe")


def test_flat_writes_reach_strided_views():
    """``x.T.flat[i] = v`` raised "needs a contiguous tensor" and ``x.flat =
    v`` had no setter: NumPy writes through any view, in the view's C order,
    repeating the values as it does for a contiguous one."""
    cases = [(1, -3.0), (slice(2, 9, 3), -1.0), ([0, 5, 3], [7.0, 8.0]), (-1, 100.0),
             (numpy.arange(6) % 4 == 0, 9.5), (slice(None), numpy.arange(4.0)), (Ellipsis, 0.5)]
    for index, value in cases:
        want = numpy.arange(24.0).reshape(4, 6)
        got = tnp.arange(24.0).reshape(4, 6)
        want[::2, ::-2].flat[index] = value
        got[::2, ::-2].flat[index] = value
        _same(want, got, f"flat[{index!r}]")
    want, got = numpy.zeros((2, 3)), tnp.zeros((2, 3))
    want.T.flat, got.T.flat = [1.0, 2.0, 3.0, 4.0], [1.0, 2.0, 3.0, 4.0]
    _same(want, got, "T.flat =")
    with pytest.raises(IndexError, match="out of bounds"):
        tnp.zeros((2, 3)).T.flat[6] = 1.0


def complex_running_extrema(np):
    """Running extrema of complex samples in NumPy's order (real part, then
    imaginary part; maximum and minimum propagate a NaN, fmax and fmin skip
    it): np.maximum.accumulate ... raised NotImplementedError (cummax has no
    complex order)."""
    z = np.asarray([[1 + 2j, 3 + 0j, 3 - 1j, 9j, complex(np.nan, 1), 5 + 0j, 3 + 3j],
                    [2 + 0j, 2 + 1j, 2 - 5j, complex(1, np.nan), 7 + 0j, 1 + 1j, 9j]])
    finite = z[:, :4]
    return (np.maximum.accumulate(finite, axis=1), np.minimum.accumulate(finite, axis=0),
            np.fmax.accumulate(z, axis=1), np.fmin.accumulate(z, axis=1),
            np.isnan(np.maximum.accumulate(z, axis=1)), np.isnan(np.minimum.accumulate(z, axis=0)),
            np.maximum.accumulate(finite[0].astype(np.complex64)))


def test_extrema_accumulate_complex_numbers_in_numpys_order():
    _run(complex_running_extrema)


def test_real_transforms_refuse_complex_input_with_numpys_type_error():
    """np.fft.rfft/rfft2/rfftn/ihfft of complex data raised ValueError (the
    tensor transform's RuntimeError, translated); NumPy's rfft has no
    complex loop and raises TypeError, which programs catch."""
    z = numpy.asarray([[1 + 1j, 2, 3, 4], [0, 1j, 2, 1]])
    for np in (numpy, tnp):
        for call in (lambda: np.fft.rfft(np.asarray(z[0])), lambda: np.fft.ihfft(np.asarray(z[0])),
                     lambda: np.fft.rfft2(np.asarray(z)), lambda: np.fft.rfftn(np.asarray(z))):
            with pytest.raises(TypeError):
                call()
    with pytest.raises(TypeError, match=r"rfft\(\) takes real input.*np\.fft\.fft\)"):
        tnp.fft.rfft(tnp.asarray(z[0]))
    _same(numpy.fft.fft(z[0]), tnp.fft.fft(tnp.asarray(z[0])), "fft of the same data")


def test_odd_reflection_pads_as_numpy_and_is_recorded():
    """np.pad(..., reflect_type='odd') ran NumPy's own code on tensors: on a
    device its two widths came as one 0-d tensor, whose ``left_pad -= n``
    emptied the right one too, and the right pad kept np.empty's garbage
    (round 6's padding_modes on the emulated device; the device case is
    tests/test_device_placement.py's); with grad it was refused.  It is
    NumPy's loop with ops now: each pass mirrors the whole periods already
    there about the current edge."""
    data = [numpy.arange(1.0, n + 1) ** 2 for n in (1, 2, 3, 5)]
    for x in data:
        for width in [(0, 1), (2, 3), (5, 7), (9, 2), (0, 12)]:
            for mode in ("reflect", "symmetric"):
                _same(numpy.pad(x, width, mode=mode, reflect_type="odd"),
                      tnp.pad(tnp.asarray(x), width, mode=mode, reflect_type="odd"),
                      f"{mode} {len(x)} {width}")
    grid = numpy.arange(12.0).reshape(3, 4) ** 1.5
    for mode, width in (("reflect", ((2, 5), (3, 1))), ("symmetric", ((4, 0), (6, 2)))):
        _same(numpy.pad(grid, width, mode=mode, reflect_type="odd"),
              tnp.pad(tnp.asarray(grid), width, mode=mode, reflect_type="odd"), mode)
    for x in (numpy.asarray([10, 200, 3], dtype=numpy.uint8), numpy.asarray([True, False, True])):
        _same(numpy.pad(x, 4, mode="symmetric", reflect_type="odd"),
              tnp.pad(tnp.asarray(x), 4, mode="symmetric", reflect_type="odd"), str(x.dtype))
    x = torchlike.tensor(grid[:2, :3], requires_grad=True)
    assert torchlike.autograd.gradcheck(
        lambda t: tnp.pad(t, ((3, 1), (2, 4)), mode="reflect", reflect_type="odd"), (x,))


def test_nan_moments_take_where_on_every_device():
    """np.nanmean/np.nanvar/np.nanstd with where= went to NumPy's own code
    (refused on a device, where round 7's nan_reductions runs them): a
    where= mask leaves its elements out as NaNs are left out now."""
    t = numpy.asarray([[1.0, numpy.nan, 3.0, 4.0], [numpy.nan, numpy.nan, 6.0, 2.0],
                       [5.0, 1.0, numpy.nan, 0.5]])
    row, col = numpy.asarray([True, False, True, True]), numpy.asarray([[True], [False], [True]])
    for name in ("nanmean", "nanvar", "nanstd"):
        for kwargs in (dict(axis=1, where=row), dict(axis=0, where=col),
                       dict(where=t > 1), dict(axis=1, where=t > 1, keepdims=True),
                       dict(axis=(0, 1), where=row), dict(axis=1, where=numpy.zeros(4, bool))):
            with warnings.catch_warnings():     # NumPy's empty-slice warnings
                warnings.simplefilter("ignore", RuntimeWarning)
                want = getattr(numpy, name)(t, **kwargs)
            mask = tnp.asarray(kwargs["where"])
            got = getattr(tnp, name)(tnp.asarray(t), **{**kwargs, "where": mask})
            _same(want, got, f"{name} {kwargs}")
        _same(getattr(numpy, name)(t + 1j, axis=1, where=row),
              getattr(tnp, name)(tnp.asarray(t + 1j), axis=1, where=tnp.asarray(row)), "complex")
    x = torchlike.tensor(numpy.nan_to_num(t), requires_grad=True)
    mask = torchlike.tensor(row)
    assert torchlike.autograd.gradcheck(lambda v: tnp.nanstd(v, axis=1, where=mask, ddof=1), (x,))


def test_lcm_accumulates_on_every_device():
    """np.lcm.accumulate had no torchlike scan (NumPy's own loop: refused on a
    device, where round 7's calendar_arithmetic runs it); it pairs elements
    in log2(n) steps, as gcd's does.  (A running lcm that overflows int64 may
    wrap differently from NumPy's one-by-one loop; torchlike's lcm wraps as
    PyTorch's, |a / gcd * b|, where NumPy wraps |a| / gcd * |b|.)"""
    for x in (numpy.asarray([2, 3, 4, 5, 6, 7, 8, 9]), numpy.asarray([[4, 6], [10, 15], [7, 3]]),
              numpy.asarray([200, 3, 7], dtype=numpy.uint8), numpy.asarray([2 ** 20, 3 ** 10, 5])):
        _same(numpy.lcm.accumulate(x), tnp.lcm.accumulate(tnp.asarray(x)), str(x.dtype))
    _same(numpy.lcm.accumulate(numpy.asarray([[4, 6], [10, 15]]), axis=1),
          tnp.lcm.accumulate(tnp.asarray([[4, 6], [10, 15]]), axis=1), "axis=1")


def empty_batches(np):
    """A batch filtered down to nothing, as a pipeline meets it: the
    condition numbers of the matrices a test keeps (none) are an empty
    array in NumPy; torchlike raised "cond is not defined on empty arrays",
    NumPy's error for empty matrices only."""
    mats = np.asarray(SPD)
    keep = np.abs(np.linalg.det(mats)) > 1e9
    chosen = mats[keep]
    return (np.linalg.cond(chosen), np.linalg.cond(chosen, 1), np.linalg.cond(chosen, "fro"),
            np.linalg.cond(chosen.astype(np.float32), -2), np.linalg.det(chosen),
            np.linalg.inv(chosen).shape, np.linalg.eigvalsh(chosen).shape, keep.sum())


def test_condition_numbers_of_an_empty_batch():
    _run(empty_batches)
    for np in (numpy, tnp):
        with pytest.raises(np.linalg.LinAlgError, match="cond is not defined on empty arrays"):
            np.linalg.cond(np.zeros((2, 0, 0)))
