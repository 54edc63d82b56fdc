"""NumPy programs, ninth round: kinds the first eight rounds
(tests/test_numpy_programs.py ... 8.py) do not cover -- records grouped by
np.unique(axis=0) and its inverse, apply_along_axis/apply_over_axes with
slices that give numbers, vectors and matrices, np.vectorize with
generalized signatures, einsum traces and diagonals by repeated indices
and ellipses, read-only as_strided windows (Hankel and Toeplitz matrices),
np.pad in every filling mode with stat_length and reflect_type='odd',
periodic and complex np.interp, np.gradient on uneven coordinates with
second-order edges, NumPy 2's trapezoid/cumulative_sum/cumulative_prod,
matrix_power/multi_dot/tensorsolve/tensorinv, numbers as text by
array2string and format_float_*, calendar arithmetic by integer ops
(Zeller, ordinal days, ISO-like weeks), quantiles by all 13 methods and
weighted, histogram_bin_edges by every estimator, digitize/searchsorted
with right= and sorter=, partition/argpartition with kth lists,
take/put_along_axis, ravel_multi_index/unravel_index with modes and
Fortran order, packbits/unpackbits with bitorder and count, isclose with
equal_nan, float16 sums, NEP 50 promotion of Python scalars, defined
casts, the nan* reductions of all-NaN rows, masked station data, nditer
loops, the Array API's linear algebra names, NumPy 2's batched solve,
norms of every order, unique with NaNs, ufunc methods (reduceat, at,
outer), run lengths, a COO/CSR sparse layout, reorientations, set
membership, triangles, the classic np.poly* functions, phases, grids,
weighted statistics, diagonals, sequences, shifts, division signs, the
exponent family, special values, convolution modes, choose/select/place
-- run once with NumPy and once with ``torchlike.numpy``, with round 4's
oracle and conventions (NumPy for values, dtypes and shapes; inputs drawn
once by NumPy).

What they found (each with a focused test in the test file of its area):

- ``np.lcm`` of int32/int64 values whose lcm passes the dtype's range was
  made positive after the wrap; NumPy computes |a| / gcd * |b| in the
  unsigned type and keeps the wrap's sign (int64 lcm(2**62, 3) is -2**62)
  -- tests/test_elementwise.py (torchlike.lcm keeps PyTorch's |a / gcd * b|).
- ``np.fft.fftfreq``/``rfftfreq`` divided by n * d in float64 where NumPy
  takes 1 / (n d) in d's own arithmetic (a float32 spacing's rounding,
  a Python 0's ZeroDivisionError) before the float64 product, and dropped
  a complex spacing's imaginary part -- tests/test_numpy_namespace.py.
- ``np.iinfo`` lacked ``key``; ``"bfloat16"`` did not name the namespace's
  dtype (``np.finfo("bfloat16")``, ``dtype="bfloat16"``); every public
  finfo/iinfo field is now checked against NumPy's (the float fields are
  Python floats by design) -- tests/test_numpy_core_conformance.py.
- ``np.piecewise``: two 0-d conditions in a list raised a broadcast error
  (NumPy: each holds everywhere or nowhere), a function was called on an
  empty selection (``v / v.max()`` of no readings raised), and no
  condition, or one shaped unlike x (or its leading axes), gave zeros, a
  RuntimeError or a broadcast where NumPy raises IndexError --
  tests/test_numpy_lib_conformance.py.
- ``np.isclose(f16, 0.1)`` was False: the number was made a float64 array;
  NumPy's is weak, so x - 0.1 is computed in float16
  -- tests/test_numpy_lib_conformance.py.
- ``np.ravel_multi_index((rows[:, None], cols[None, :]), shape)`` and
  ``(3, cols)`` raised a RuntimeError (the coordinates were stacked into
  one tensor before NumPy's broadcast); ``np.lexsort`` of keys of two
  shapes raised it too, not NumPy's ValueError, and of a list of device
  tensors reached NumPy's own lexsort -- tests/test_numpy_namespace_more.py.
- On a device: ``np.quantile(..., weights=)`` (NumPy 2's weighted
  inverted_cdf) had no torchlike implementation and was refused; and
  ``np.histogram_bin_edges`` of integer data by the sturges/sqrt/...
  estimators ran NumPy's np.asarray (its estimators sit in a table of
  helpers that was not rebound) -- tests/test_numpy_lib_conformance.py,
  tests/test_device_placement.py.
- Complex numbers holding a NaN: ``np.sort``/``argsort``/``sort_complex``
  put R + nanj among the numbers of its real part (NumPy: after every
  number without a NaN), and ``np.unique`` kept each apart where
  ``equal_nan=True`` makes them one value -- tests/test_numpy_lib_conformance.py.
- ``np.format_float_positional(x[0])`` / ``_scientific`` of float32 or
  float16 data printed the float64 digits of the element's value
  ('0.30000001192092896'): a 0-d tensor is NumPy's scalar of its dtype
  there now ('0.3') -- tests/test_numpy_namespace_more.py.

What differs by design (docs/numpy.md, "The ninth round"): float16 and
float32 ``np.cumsum``/``np.cumprod`` keep the running value in double
(PyTorch's CPU accumulation) where NumPy rounds it to the dtype at each
step (a focused test pins it; the programs scan in float64); lcm's
reduce and accumulate group in halves, so a wrapped lcm differs from
NumPy's left fold (the programs keep their reductions in range); and, as
before, torchlike ops never warn (the nan* reductions of all-NaN rows
give NumPy's NaN silently), ``errstate`` governs NumPy's own computations
only, an integer array with a Python float (or ``int / int``) is float32,
NumPy scalars beside operators are weak, ``as_strided(...,
writeable=False)`` views are writeable, and ``result_type`` of an integer
and a float dtype is PyTorch's -- the programs spell around these.
"""
import warnings

import numpy
import pytest

import torchlike
import torchlike.numpy as tnp
from oracle import TEST_DEVICE
from test_numpy_programs import _run, _same, host_program

_RNG = numpy.random.default_rng(9)
ROWS = _RNG.integers(0, 3, (12, 3))
SCORES = _RNG.normal(50, 10, (6, 5)).round(1)
ANGLES = numpy.sort(_RNG.uniform(0, 360, 10))
HEADINGS = _RNG.uniform(-720, 720, 15)
SPACING = numpy.cumsum(_RNG.uniform(0.1, 1.0, 12))
FIELD = numpy.sin(SPACING)[:, None] * numpy.cos(numpy.linspace(0, 3, 7))
SAMPLE = _RNG.gamma(2.0, 2.0, 57)
WEIGHTS9 = _RNG.integers(1, 5, 57).astype(numpy.float64)
BINS9 = numpy.array([0.0, 1.0, 2.5, 4.0, 8.0])
READINGS9 = _RNG.normal(0, 1, (5, 6))
READINGS9[1] = numpy.nan
READINGS9[3, ::2] = numpy.nan
SQUARE = _RNG.normal(0, 1, (4, 4)) + 4 * numpy.eye(4)
BITS = _RNG.integers(0, 2, (3, 13)).astype(numpy.uint8)
YEARS = numpy.array([1900, 1999, 2000, 2004, 2023, 2024, 2100])
MONTHS = numpy.array([1, 2, 2, 3, 7, 12, 12])
DAYS = numpy.array([1, 28, 29, 1, 14, 31, 25])
HALF = _RNG.uniform(0, 1, 3000).astype(numpy.float16)


# ---- arrays by rows, axes and signatures -------------------------------------------------

def row_groups(np):
    """Records deduplicated by np.unique(axis=0): the first index of each
    distinct row, the inverse that labels every row with its group, counts,
    and per-group sums by bincount and np.add.at; distinct columns too."""
    rows = np.asarray(ROWS)
    uniq, first, inverse, counts = np.unique(rows, axis=0, return_index=True,
                                             return_inverse=True, return_counts=True)
    value = np.arange(len(rows)) * 1.5
    by_bincount = np.bincount(inverse, weights=value)
    by_add_at = np.zeros(len(uniq))
    np.add.at(by_add_at, inverse, value)
    cols, col_inverse = np.unique(rows.T, axis=0, return_inverse=True)
    distinct_columns = np.unique(rows[:, [0, 1, 0]], axis=1)
    return uniq, first, inverse, counts, by_bincount, by_add_at, cols, col_inverse, \
        distinct_columns, uniq[np.argmax(counts)]


def along_axes(np):
    """apply_along_axis with functions giving a number, a shorter vector and
    a matrix per slice; apply_over_axes summing over two axes."""
    a = np.asarray(SCORES)
    spread = np.apply_along_axis(lambda r: r.max() - r.min(), 1, a)
    top2 = np.apply_along_axis(lambda c: np.sort(c)[-2:], 0, a)
    outer = np.apply_along_axis(lambda r: np.outer(r[:2], r[:3]), 1, a)
    cube = np.arange(24.0).reshape(2, 3, 4)
    summed = np.apply_over_axes(np.sum, cube, [0, 2])
    means = np.apply_over_axes(np.mean, cube, 1)
    return spread, top2, outer, summed, means


def signatures(np):
    """np.vectorize with a generalized signature: pairwise distances by
    '(n),(n)->()', a per-matrix column mean by '(m,n)->(n)', otypes, and an
    excluded keyword."""
    dist = np.vectorize(lambda u, v: np.sqrt(((u - v) ** 2).sum()), signature="(n),(n)->()")
    pts = np.asarray(SCORES[:4, :3])
    d = dist(pts[:, None, :], pts[None, :, :])
    colmean = np.vectorize(lambda m: m.mean(axis=0), signature="(m,n)->(n)")
    stacks = np.arange(24.0).reshape(2, 4, 3)
    step = np.vectorize(lambda x, cut: 1.0 if x > cut else 0.0, otypes=[float],
                        excluded={"cut"})
    return d, colmean(stacks), step(np.asarray([0.2, 0.7, 0.9]), cut=0.5)


def traces_and_diagonals(np):
    """einsum with repeated indices (traces, diagonals), ellipses over batch
    axes, and reductions written as subscripts."""
    a = np.arange(27.0).reshape(3, 3, 3)
    m = np.asarray(SQUARE)
    return (np.einsum("ii", m), np.einsum("ii->i", m), np.einsum("...ii->...i", a),
            np.einsum("bii->b", a), np.einsum("...ij,...jk->...ik", a, a),
            np.einsum("ij,ij->", m, m), np.einsum("i...->...", a),
            np.einsum("ijk,k->ij", a, np.asarray([1.0, 0.0, -1.0])),
            np.einsum("iij->j", a), np.einsum(m, [0, 1], m, [1, 2], [0, 2]),
            np.einsum("ij->", m, optimize=True))


def readonly_windows(np):
    """as_strided windows with writeable=False, read only: a Hankel matrix, a
    Toeplitz matrix from a reversed concatenation (a negative stride),
    overlapping frames and their energies (the flag is not enforced here,
    docs/numpy.md)."""
    tricks = np.lib.stride_tricks
    x = np.arange(1.0, 9.0)
    s = x.strides[0]
    hankel = tricks.as_strided(x, shape=(5, 4), strides=(s, s), writeable=False)
    c = np.asarray([1.0, 2.0, 3.0, 4.0])
    r = np.asarray([1.0, -1.0, -2.0])
    vals = np.concatenate((r[:0:-1], c))
    toeplitz = tricks.as_strided(vals[len(r) - 1:], shape=(len(c), len(r)),
                                 strides=(s, -s), writeable=False)
    frames = tricks.as_strided(x, shape=(3, 4), strides=(2 * s, s), writeable=False)
    return hankel, toeplitz.copy(), frames.sum(axis=1), (frames ** 2).mean(axis=1), \
        hankel @ np.ones(4), np.linalg.matrix_rank(hankel)


def padding_modes(np):
    """np.pad in every mode that fills from the data, with stat_length,
    reflect_type='odd', per-axis widths, and a callable filler."""
    x = np.asarray([1.0, 3.0, 2.0, 6.0, 5.0])
    img = np.arange(12.0).reshape(3, 4)
    out = [np.pad(x, (2, 3), mode=m) for m in ("edge", "wrap", "reflect", "symmetric")]
    out += [np.pad(x, 3, mode=m, stat_length=(2, 1)) for m in ("maximum", "minimum", "mean",
                                                                "median")]
    out += [np.pad(x, (4, 2), mode="reflect", reflect_type="odd"),
            np.pad(x, (4, 2), mode="symmetric", reflect_type="odd"),
            np.pad(x, 2, mode="linear_ramp", end_values=(-1, 10)),
            np.pad(x, (1, 2), constant_values=(7, 8)),
            np.pad(img, ((1, 0), (2, 1)), mode="reflect"),
            np.pad(img, ((0, 2), (1, 1)), mode="mean", stat_length=((1, 2), (2, 2))),
            np.pad(img, 1, mode="wrap"), np.pad(img.astype(np.int64), ((1, 1), (0, 0)),
                                                mode="median"),
            np.pad(x, 7, mode="reflect"), np.pad(x[:1], 3, mode="symmetric")]

    def ramp(vector, width, axis, kwargs):
        vector[:width[0]] = -np.arange(width[0], 0, -1)
        if width[1]:
            vector[-width[1]:] = kwargs.get("top", 99)

    out.append(np.pad(x, (3, 2), ramp, top=42))
    return tuple(out)


def periodic_interpolation(np):
    """np.interp on a circle (period=360: compass headings), with complex
    values, and with left/right fills."""
    xp = np.asarray(ANGLES)
    fp = np.cos(np.deg2rad(xp))
    q = np.asarray(HEADINGS)
    around = np.interp(q, xp, fp, period=360)
    shuffled = np.interp(q, xp[::-1], fp[::-1], period=360)
    phasor = np.interp(np.linspace(0, 360, 9), xp, np.exp(1j * np.deg2rad(xp)), period=360)
    edges = np.interp(np.asarray([-5.0, 0.5, 2.5, 7.0]), np.asarray([0.0, 1.0, 2.0]),
                      np.asarray([1.0, 3.0, 2.0]), left=-1.0, right=np.nan)
    cplx = np.interp(np.asarray([0.25, 1.5]), np.asarray([0.0, 1.0, 2.0]),
                     np.asarray([1 + 1j, 2 - 1j, 0j]), left=0j)
    return around, shuffled, phasor, edges, cplx


def uneven_gradients(np):
    """np.gradient on non-uniform coordinates, second-order edges, a chosen
    axis, and mixed scalar/array spacings in two dimensions."""
    x = np.asarray(SPACING)
    f = np.sin(x)
    g1 = np.gradient(f, x)
    g2 = np.gradient(f, x, edge_order=2)
    field = np.asarray(FIELD)
    dy = np.gradient(field, x, axis=0, edge_order=2)
    both = np.gradient(field, x, 0.5)
    uniform = np.gradient(field, 2.0, edge_order=2)
    ints = np.gradient(np.asarray([1, 4, 9, 16, 25]), edge_order=2)
    return g1, g2, dy, both, uniform, ints, np.abs(g2 - np.cos(x)).max()


def numpy2_integrals(np):
    """NumPy 2's names: trapezoid over samples, spacing and an axis;
    cumulative_sum / cumulative_prod with include_initial and dtypes."""
    x = np.asarray(SPACING)
    y = np.sin(x)
    grid = np.asarray(FIELD)
    ints = np.arange(1, 7).reshape(2, 3)
    return (np.trapezoid(y, x), np.trapezoid(y, dx=0.5), np.trapezoid(grid, x, axis=0),
            np.trapezoid(grid, axis=1), np.cumulative_sum(y, include_initial=True),
            np.cumulative_sum(ints, axis=1), np.cumulative_sum(ints, axis=0, dtype=np.float32),
            np.cumulative_prod(ints, axis=1, include_initial=True),
            np.cumulative_sum(np.asarray([True, False, True])),
            np.cumulative_prod(np.asarray([1.5, 2.0, -1.0]), include_initial=True),
            np.cumulative_sum(np.arange(5, dtype=np.int8)))


def matrix_chains(np):
    """matrix_power (negative, zero, integer), multi_dot with vector ends,
    tensorsolve and tensorinv with ind."""
    m = np.asarray(SQUARE)
    p = np.asarray([[1, 1], [1, 0]])
    fib = np.linalg.matrix_power(p, 10)
    inv_cubed = np.linalg.matrix_power(m, -3)
    ident = np.linalg.matrix_power(p, 0)
    chain = np.linalg.multi_dot([np.ones(4), m, m.T, np.arange(4.0)])
    chain2 = np.linalg.multi_dot([m[:, :2].T, m, m[:, 1:3]])
    a = np.eye(6).reshape(6, 2, 3) + 0.1 * np.arange(36.0).reshape(6, 2, 3) / 36
    b = np.arange(6.0)
    sol = np.linalg.tensorsolve(a, b)
    t = (np.eye(6) * 2 + 0.05).reshape(2, 3, 6)
    tinv = np.linalg.tensorinv(t, ind=2)
    return fib, inv_cubed, ident, chain, chain2, sol, tinv, np.tensordot(t, tinv, 1)


def number_text(np):
    """Numbers as text without strings in arrays: array2string with its
    options, format_float_positional / _scientific of elements."""
    x = np.asarray([0.000123, 1.5, -2.25, 1234.5678])
    m = np.arange(6.0).reshape(2, 3) / 7
    return (np.array2string(x, precision=3), np.array2string(x, separator=", ",
                                                             suppress_small=True),
            np.array2string(m, precision=2, floatmode="fixed"),
            np.array2string(np.arange(20), threshold=5, edgeitems=2),
            np.array2string(x, formatter={"float_kind": lambda v: f"{v:.1f}"}),
            np.format_float_positional(x[0]), np.format_float_positional(x[3], precision=2),
            np.format_float_positional(np.float32(0.1), unique=False, precision=10),
            np.format_float_scientific(x[3], precision=3, exp_digits=3),
            np.format_float_positional(x[1], trim="-"), np.array2string(np.asarray(3.25)),
            np.format_float_positional(x.astype(np.float32)[0]),
            np.format_float_scientific(x.astype(np.float16).max(), precision=4),
            np.array2string(np.asarray([True, False])), np.array2string(np.zeros((2, 0))))


def calendar(np):
    """Calendar arithmetic by integer ops: leap years, day of the year, day of
    the week (Zeller), days between dates by a day count from year 1, ISO-like
    week numbers -- floor division of negatives included."""
    y, m, d = np.asarray(YEARS), np.asarray(MONTHS), np.asarray(DAYS)
    leap = ((y % 4 == 0) & (y % 100 != 0)) | (y % 400 == 0)
    cum = np.asarray([0, 31, 59, 90, 120, 151, 181, 212, 243, 273, 304, 334])
    doy = cum[m - 1] + d + (leap & (m > 2))
    mm = np.where(m < 3, m + 12, m)
    yy = np.where(m < 3, y - 1, y)
    k, j = yy % 100, yy // 100
    zeller = (d + (13 * (mm + 1)) // 5 + k + k // 4 + j // 4 + 5 * j) % 7
    py = y - 1
    ordinal = py * 365 + py // 4 - py // 100 + py // 400 + doy
    gaps = np.diff(ordinal)
    weekday = (ordinal - 1) % 7
    week = (doy - weekday + 9) // 7
    back = (np.asarray([-1, -7, -8, 13]) // 7, np.asarray([-1, -7, -8, 13]) % 7)
    return leap, doy, zeller, ordinal, gaps, weekday, week, back


# ---- statistics and binning --------------------------------------------------------------

QUANTILE_METHODS = ["inverted_cdf", "averaged_inverted_cdf", "closest_observation",
                    "interpolated_inverted_cdf", "hazen", "weibull", "linear", "median_unbiased",
                    "normal_unbiased", "lower", "higher", "midpoint", "nearest"]


def quantile_methods(np):
    """percentile/quantile by every method, along an axis with keepdims, and
    weighted (inverted_cdf, the method NumPy weighs)."""
    s = np.asarray(SAMPLE)
    grid = np.asarray(SCORES)
    q = np.asarray([0.0, 0.1, 0.5, 0.9, 1.0])
    out = [np.quantile(s, q, method=meth) for meth in QUANTILE_METHODS]
    out += [np.percentile(grid, 30, axis=0, method=meth, keepdims=True)
            for meth in QUANTILE_METHODS[::3]]
    w = np.asarray(WEIGHTS9)
    out += [np.quantile(s, q, weights=w, method="inverted_cdf"),
            np.percentile(s, [25, 75], weights=w, method="inverted_cdf"),
            np.quantile(grid, 0.5, axis=1, weights=np.ones_like(grid), method="inverted_cdf"),
            np.nanquantile(np.where(s > 6, np.nan, s), 0.5, method="hazen")]
    return tuple(out)


BIN_RULES = ["auto", "fd", "doane", "scott", "stone", "rice", "sturges", "sqrt"]


def bin_estimators(np):
    """histogram_bin_edges by every estimator, with a range, and the counts
    those edges give (weighted, density)."""
    s = np.asarray(SAMPLE)
    out = [np.histogram_bin_edges(s, bins=rule) for rule in BIN_RULES]
    out += [np.histogram_bin_edges(s, bins="fd", range=(0, 10)),
            np.histogram_bin_edges(s.astype(np.int64), bins="sturges")]
    counts, edges = np.histogram(s, bins=out[3], weights=np.asarray(WEIGHTS9))
    dens, _ = np.histogram(s, bins="rice", density=True)
    return tuple(out) + (counts, edges, dens, (dens * np.diff(_)).sum())


def bins_and_sorted_lookup(np):
    """digitize with right= on increasing and decreasing bins; searchsorted
    through a sorter permutation, both sides, of a 2-d query."""
    s = np.asarray(SAMPLE[:12])
    b = np.asarray(BINS9)
    on_edges = np.asarray([0.0, 1.0, 2.5, 8.0, 9.0, -1.0])
    unsorted = np.asarray([5.0, 1.0, 4.0, 2.0, 3.0])
    order = np.argsort(unsorted)
    q = np.asarray([[3.0, 0.5], [5.0, 4.0]])
    return (np.digitize(s, b), np.digitize(s, b, right=True), np.digitize(on_edges, b),
            np.digitize(on_edges, b, right=True), np.digitize(on_edges, b[::-1]),
            np.digitize(on_edges, b[::-1], right=True),
            np.searchsorted(unsorted, q, sorter=order),
            np.searchsorted(unsorted, q, side="right", sorter=order),
            np.searchsorted(b, on_edges, side="right"), np.searchsorted(b, 2.5))


def partial_orders(np):
    """partition / argpartition with kth lists: the kth values and the sets
    on each side (their order within a side is NumPy's own)."""
    s = np.asarray(SAMPLE[:20])
    kth = [3, 10, 15]
    p = np.partition(s, kth)
    ap = np.argpartition(s, kth)
    sides = [np.sort(p[:3]), np.sort(p[4:10]), np.sort(p[16:])]
    grid = np.asarray(SCORES)
    pg = np.partition(grid, [1, 3], axis=0)
    apg = np.argpartition(grid, -1, axis=1)
    flat = np.partition(grid, 4, axis=None)
    return (p[kth], s[ap[kth]], *sides, pg[[1, 3]], np.take_along_axis(grid, apg, 1)[:, -1],
            flat[4], np.sort(flat[:4]))


def along_axis_updates(np):
    """take_along_axis / put_along_axis: per-row top-2 by argsort, zeroing the
    per-column maximum, an axis=None lookup."""
    g = np.asarray(SCORES).copy()
    order = np.argsort(g, axis=1)
    top2 = np.take_along_axis(g, order[:, -2:], axis=1)
    where_max = np.expand_dims(np.argmax(g, axis=0), 0)
    column_max = np.take_along_axis(g, where_max, axis=0)
    np.put_along_axis(g, where_max, 0.0, axis=0)
    flat_idx = np.asarray([0, 7, 29])
    picked = np.take_along_axis(g, flat_idx, axis=None)
    h = np.zeros((3, 4))
    np.put_along_axis(h, np.asarray([[1], [3], [0]]), np.asarray([[1.0], [2.0], [3.0]]), axis=1)
    return top2, column_max, g, picked, h


def index_conversions(np):
    """ravel_multi_index with wrap/clip modes (one per axis) and Fortran
    order; unravel_index of arrays and of a 0-d index in both orders."""
    rows = np.asarray([0, 3, -1, 5])
    cols = np.asarray([2, 7, 1, -2])
    dims = (4, 5)
    return (np.ravel_multi_index((rows, cols), dims, mode="wrap"),
            np.ravel_multi_index((rows, cols), dims, mode="clip"),
            np.ravel_multi_index((rows, cols), dims, mode=("clip", "wrap")),
            np.ravel_multi_index((rows % 4, cols % 5), dims, order="F"),
            np.unravel_index(np.asarray([0, 7, 19]), dims, order="F"),
            np.unravel_index(np.asarray(13), (2, 3, 4)),
            np.unravel_index(13, (2, 3, 4), order="F"),
            np.ravel_multi_index(np.asarray([[1], [2], [3]]), (2, 3, 4)))


def bit_packing(np):
    """packbits/unpackbits along axes, little bit order, and unpackbits'
    count (positive and negative)."""
    bits = np.asarray(BITS)
    packed = np.packbits(bits, axis=1)
    little = np.packbits(bits, axis=1, bitorder="little")
    flat = np.packbits(bits)
    return (packed, little, flat, np.unpackbits(packed, axis=1, count=13),
            np.unpackbits(little, axis=1, count=13, bitorder="little"),
            np.unpackbits(flat, count=-3), np.unpackbits(packed, axis=1, count=20),
            np.packbits(bits.astype(bool), axis=0), np.unpackbits(np.asarray([255, 1],
                                                                             dtype=np.uint8)))


def closeness(np):
    """isclose / allclose with equal_nan, infinities, complex values,
    integer operands and broadcast tolerances."""
    a = np.asarray([1.0, np.nan, np.inf, -np.inf, 1e-9, 100.0])
    b = np.asarray([1.0 + 1e-9, np.nan, np.inf, np.inf, 0.0, 100.1])
    c1 = np.asarray([1 + 1j, np.nan + 0j, 2j])
    c2 = np.asarray([1 + 1.000001j, np.nan + 0j, 2.1j])
    return (np.isclose(a, b), np.isclose(a, b, equal_nan=True), np.allclose(a, a),
            np.allclose(a, a, equal_nan=True), np.isclose(c1, c2), np.isclose(c1, c2,
                                                                              equal_nan=True),
            np.isclose(np.arange(4), np.asarray([0, 1, 3, 3])),
            np.isclose(a[:, None], b[4:], atol=np.asarray([0.0, 0.2]), rtol=0),
            np.isclose(5, 5.000001), np.allclose(np.zeros(0), np.zeros((2, 0))))


def half_precision_sums(np):
    """float16 data: sums, means and running sums NumPy keeps in float16."""
    h = np.asarray(HALF)
    with np.errstate(over="ignore"):
        past = np.float16(65000) + np.float16(1000)
    return (np.sum(h), h.sum(dtype=np.float32), np.mean(h), np.cumsum(h[:40], dtype=np.float64),
            np.add.reduce(h[:100]), np.dot(h[:50], h[50:100]), np.var(h[:200]),
            (h * np.float16(3)).max(), past,
            (h[:10] / np.float16(0.001)).dtype == np.float16)


def nep50_promotion(np):
    """NEP 50: Python scalars are weak (the array's dtype wins), NumPy scalars
    and 0-d arrays are not; a Python int past the dtype's range raises."""
    u8 = np.asarray([250, 3], dtype=np.uint8)
    i8 = np.asarray([100, -100], dtype=np.int8)
    f32 = np.asarray([1.5], dtype=np.float32)
    out = [u8 + 10, u8 * 2, i8 + i8, np.add(u8, np.int64(1)), np.multiply(i8, 2), f32 + 1e-8,
           f32 * 2.0, u8 + np.asarray(1), u8 + np.asarray(1, dtype=np.uint8),
           np.floor_divide(u8, 7), u8 // 2, u8 - 251, np.multiply(np.int16(7), u8),
           np.add(f32, np.float64(1.0)), i8 + True, np.subtract(u8.astype(np.float64), 1),
           np.maximum(i8, 20), np.where(u8 > 5, u8, 0)]
    for make in (lambda: u8 + 300, lambda: i8 * -129, lambda: u8 - 2 ** 64):
        try:
            make()
            out.append("no error")
        except OverflowError:
            out.append("OverflowError")
    return tuple(out)


def nan_slices(np):
    """The nan* reductions over rows that are all NaN give NaN (NumPy warns,
    torchlike does not: docs/numpy.md), sums 0 and products 1; nanargmin
    refuses such a row."""
    r = np.asarray(READINGS9)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)
        out = [np.nanmean(r, axis=1), np.nanvar(r, axis=1), np.nanstd(r, axis=1, ddof=1),
               np.nanmin(r, axis=1), np.nanmax(r, axis=1), np.nanmedian(r, axis=1),
               np.nanpercentile(r, 40, axis=1), np.nansum(r, axis=1), np.nanprod(r, axis=1),
               np.nancumsum(r, axis=1)[:, -1], np.nanmean(r[:, :1], axis=0),
               np.nanargmax(r[[0, 2]], axis=1), np.nanmean(r), np.nanvar(r[1]),
               np.nanquantile(r, [0.25, 0.75], axis=1, keepdims=True)]
    try:
        np.nanargmin(r, axis=1)
        out.append("no error")
    except ValueError:
        out.append("ValueError")
    return tuple(out)


def masked_stations(np):
    """Masked arrays: invalid and sentinel readings masked, statistics over
    what is left, anomalies, filled output, compressed values, division by
    zero masked, a weighted average and running sums."""
    raw = np.asarray(SCORES).copy()
    raw[1, 2] = -999.0
    raw[4, [0, 3]] = np.nan
    m = np.ma.masked_invalid(np.ma.masked_equal(raw, -999.0))
    col = m.mean(axis=0)
    anom = m - col
    ratio = np.ma.masked_array(np.asarray([1.0, 2.0, 3.0]), mask=[0, 0, 1]) / \
        np.asarray([2.0, 0.0, 1.0])
    w = np.ma.average(m, axis=1, weights=np.asarray([1.0, 2.0, 1.0, 1.0, 3.0]))
    return (m.filled(0.0), m.count(axis=0), col.filled(-1), anom.filled(0.0).round(6),
            m.compressed()[:6], ratio.filled(-1.0), ratio.mask, w.filled(-1),
            np.ma.median(m, axis=1).filled(-1), m.sum(axis=1).filled(-1),
            np.ma.cumsum(m, axis=1).filled(-1), m.max(axis=0).filled(-1),
            np.ma.sort(m[4]).filled(-1), np.ma.getmaskarray(m).sum())


def casts(np):
    """astype's defined cases: floats truncate toward zero, wider integers
    wrap into narrower ones and negative ones into unsigned, bools; clipping
    first is the safe spelling; can_cast / result_type / min_scalar_type."""
    f = np.asarray([-2.7, -0.5, 0.5, 2.7, 255.9])
    big = np.asarray([300, -1, 128, 2 ** 40 + 5])
    with np.errstate(all="ignore"):
        wrapped = (big.astype(np.int8), big.astype(np.uint8), big.astype(np.int16),
                   big.astype(np.uint32))
    return (f.astype(np.int64), f[1:4].astype(np.uint8), wrapped,
            np.clip(f, 0, 255).astype(np.uint8), f.astype(bool), big.astype(np.float32),
            np.asarray([True, False]).astype(np.float16), (f > 0).astype(np.int8),
            np.can_cast(np.int64, np.float64), np.can_cast(np.float64, np.int64, "same_kind"),
            np.can_cast(np.int8, np.uint8), np.result_type(np.int8, np.uint8).name,
            np.result_type(np.uint16, np.int16).name, np.min_scalar_type(300).name,
            np.min_scalar_type(-1).name, np.min_scalar_type(2.5).name)


def iterator_loops(np):
    """np.nditer loops as NumPy code writes them: a read-write loop, a
    multi_index loop, a broadcast pair with an allocated output."""
    a = np.arange(6.0).reshape(2, 3)
    with np.nditer(a, op_flags=["readwrite"]) as it:
        for v in it:
            v[...] = v * v + 1
    where = []
    it = np.nditer(a, flags=["multi_index"])
    for v in it:
        if float(v) > 5:
            where.append(it.multi_index)
    it = np.nditer([np.arange(3.0), np.arange(2.0)[:, None], None])
    with it:
        for x, y, z in it:
            z[...] = x * 10 + y
        table = it.operands[2]
    return a, where, table


def broadcasting_tools(np):
    """broadcast_shapes, broadcast_arrays, broadcast_to, expand_dims with a
    tuple, atleast_3d shapes and squeeze on chosen axes."""
    a = np.arange(3.0)
    b = np.arange(4.0).reshape(4, 1)
    xa, xb = np.broadcast_arrays(a, b)
    return (np.broadcast_shapes((3,), (4, 1), (2, 1, 1)), xa, xb,
            np.broadcast_to(a, (2, 3)), np.expand_dims(a, (0, 2)).shape,
            np.atleast_3d(a).shape, np.atleast_3d(b).shape, np.atleast_3d(np.asarray(1.0)).shape,
            np.squeeze(np.zeros((1, 3, 1)), axis=2).shape, np.squeeze(np.zeros((1, 1))).shape,
            (xa * xb).sum(axis=0))


def splits_and_stacks(np):
    """array_split with uneven parts, split at indices past the end,
    hsplit/vsplit/dsplit, unstack (NumPy 2.1), concat with axis=None."""
    x = np.arange(10)
    g = np.arange(24).reshape(2, 3, 4)
    return (np.array_split(x, 3), np.split(x, [2, 5, 12]), np.hsplit(g, 3),
            np.vsplit(g, [1]), np.dsplit(g, [1, 3]), np.unstack(g, axis=1),
            np.concat([g, g], axis=None), np.array_split(x, 4)[-1],
            np.stack(np.array_split(np.arange(12.0), 3), axis=1))


def reductions_with_where(np):
    """Reductions with where= masks, initial= values and keepdims: a sum over
    selected cells, the max of an empty selection (its initial), means and
    logical reductions of chosen entries."""
    g = np.asarray(SCORES)
    mask = g > 50
    return (np.sum(g, where=mask), np.sum(g, axis=0, where=mask, initial=1.0),
            np.max(g, axis=1, where=mask, initial=-1.0), np.min(g, where=~mask, initial=1e9),
            np.mean(g, axis=0, where=mask), np.prod(np.asarray([2.0, 3.0, 4.0]),
                                                    where=np.asarray([True, False, True])),
            np.all(g > 40, axis=1, where=mask), np.any(g > 70, axis=0, keepdims=True),
            np.count_nonzero(mask, axis=(0, 1), keepdims=True), np.logical_and.reduce(mask, 1),
            np.logical_or.reduce(mask, axis=None))


def integer_reductions(np):
    """The dtypes NumPy gives integer reductions: sum/cumsum of small ints
    widen to int64, ufunc reduce keeps the dtype (and wraps), prod of uint8
    is uint64, mean is float64."""
    i8 = np.asarray([100, 100, 100], dtype=np.int8)
    u8 = np.asarray([200, 100, 3], dtype=np.uint8)
    return (np.sum(i8), np.cumsum(i8), np.add.reduce(i8), np.add.accumulate(i8),
            np.prod(u8), np.multiply.reduce(u8), np.mean(i8), np.sum(i8, dtype=np.int8),
            np.cumprod(u8), np.max(u8), np.sum(np.asarray([True, True, False])),
            np.add.reduce(np.asarray([True, True])), np.bitwise_or.reduce(u8),
            np.sum(u8, axis=0, keepdims=True))


def signed_zeros_and_nans(np):
    """Signs of zero and NaN propagation: copysign, signbit, maximum vs fmax,
    nanmax of zeros of both signs, sorting and argmax with NaN."""
    z = np.asarray([0.0, -0.0, np.nan, 1.0, -np.inf])
    with np.errstate(divide="ignore"):
        inverses = 1.0 / np.asarray([0.0, -0.0])
    return (np.signbit(z), np.copysign(1.0, z), np.maximum(z, 0.5), np.fmax(z, 0.5),
            np.fmin(z, np.asarray(np.nan)), np.sort(z), np.argsort(z), np.argmax(z),
            np.nanargmax(z), np.sign(z), np.abs(np.asarray([-0.0])), inverses)


def rounding_family(np):
    """round half to even at every decimal, negative decimals of integers,
    rint/fix/trunc/floor/ceil of halves, around of float32."""
    h = np.asarray([-2.5, -1.5, -0.5, 0.5, 1.5, 2.5, 3.5])
    ints = np.asarray([1234, -1250, 1350, 15])
    f32 = np.asarray([1.005, 2.675, 0.125], dtype=np.float32)
    return (np.round(h), np.rint(h), np.fix(h), np.trunc(h), np.floor(h), np.ceil(h),
            np.round(ints, -2), np.round(ints, -1), np.around(f32, 2), np.round(h / 10, 1),
            np.round(np.asarray([123.456]), -1), np.round(np.asarray([1 + 2.5j]), 0),
            np.round(np.asarray(2.5)), np.round(ints.astype(np.int8) // 10, -1))


# ---- linear algebra by the Array API's names and NumPy 2's rules ----------------------

def array_api_linalg(np):
    """The Array API's linear algebra names in NumPy 2: matrix_transpose,
    vecdot (conjugating its first operand), matvec/vecmat, vector_norm and
    matrix_norm with ord and axis, linalg.outer/cross/diagonal/trace."""
    a = np.arange(24.0).reshape(2, 3, 4) / 10
    v = np.asarray([1 + 2j, 3 - 1j, 0.5j])
    w = np.asarray([2 - 1j, 1j, 1.0 + 0j])
    m = np.asarray(SQUARE)
    return (np.matrix_transpose(a), np.vecdot(v, w), np.vecdot(a, a[0, 0]),
            np.matvec(a, np.ones(4)), np.vecmat(np.ones(3), a),
            np.linalg.vector_norm(a, ord=3, axis=(1, 2)), np.linalg.vector_norm(v, ord=np.inf),
            np.linalg.vector_norm(a, axis=-1, keepdims=True),
            np.linalg.matrix_norm(a, ord="nuc"), np.linalg.matrix_norm(m, ord=-1),
            np.linalg.outer(np.arange(3.0), np.arange(2.0)),
            np.linalg.cross(np.asarray([1.0, 0.0, 0.0]), np.asarray([[0.0, 1.0, 0.0],
                                                                     [0.0, 0.0, 1.0]])),
            np.linalg.diagonal(a, offset=1), np.linalg.trace(a, offset=-1),
            np.linalg.trace(m, dtype=np.float32))


def batched_solves(np):
    """NumPy 2's solve: b is a stack of vectors only when it is 1-d, else a
    stack of matrices; batched inv, det, eigvalsh, singular values and the
    Hermitian pseudo-inverse."""
    m = np.stack([np.asarray(SQUARE), np.asarray(SQUARE).T + np.eye(4)])
    b1 = np.arange(4.0)
    b2 = np.arange(16.0).reshape(2, 4, 2)
    sym = m @ np.matrix_transpose(m)
    return (np.linalg.solve(m, b1), np.linalg.solve(m, b2), np.linalg.inv(m) @ b2,
            np.linalg.det(m), np.linalg.eigvalsh(sym), np.linalg.svd(m, compute_uv=False),
            np.linalg.pinv(sym, hermitian=True) @ sym[:, :, :1],
            np.linalg.solve(m[0], np.eye(4)) @ m[0])


def norms_by_order(np):
    """np.linalg.norm for every order of vectors and matrices, over axis
    pairs, with keepdims."""
    v = np.asarray([3.0, -4.0, 0.0, 1.0])
    m = np.asarray(SQUARE)
    stack = np.arange(24.0).reshape(2, 3, 4) - 11
    with np.errstate(divide="ignore"):  # the negative orders of a vector holding a zero
        out = [np.linalg.norm(v, ord=o) for o in (None, 0, 1, 2, 3, np.inf, -np.inf, -1, 0.5)]
    out += [np.linalg.norm(m, ord=o) for o in (None, "fro", "nuc", 1, -1, 2, -2, np.inf,
                                               -np.inf)]
    out += [np.linalg.norm(stack, axis=(0, 2)), np.linalg.norm(stack, ord=1, axis=(2, 1)),
            np.linalg.norm(stack, ord=np.inf, axis=1, keepdims=True),
            np.linalg.norm(stack, axis=(1, 2), keepdims=True),
            np.linalg.norm(np.asarray([1 + 1j, 2j]))]
    return tuple(out)


# ---- sets, ufunc methods and sparse layouts ----------------------------------------------

def unique_with_nans(np):
    """unique with NaNs (equal_nan both ways; complex numbers holding a NaN
    are one value), the Array API unique_* forms, and the inverse's shape for
    2-d input (NumPy 2)."""
    x = np.asarray([2.0, np.nan, 1.0, np.nan, 2.0, 3.0])
    g = np.asarray([[3, 1, 3], [2, 1, 2]])
    inv = np.unique_inverse(g)
    allr = np.unique_all(x)
    counts = np.unique_counts(g)
    z = np.asarray([1 + 1j, complex(1, np.nan), np.nan, 2 + 0j, 1 + 1j, complex(0, np.nan)])
    zu, zi, zc = np.unique(z, return_inverse=True, return_counts=True)
    return (np.unique(x), np.unique(x, equal_nan=False), np.unique_values(x), inv.values,
            np.sort(z).real, np.argsort(z), np.unique(z).shape, zi, zc, zu[:2],
            inv.inverse_indices, allr.values, allr.indices, allr.inverse_indices,
            allr.counts, counts.values, counts.counts,
            np.unique(g, return_inverse=True)[1], np.unique(g, axis=1, return_counts=True))


def ufunc_methods(np):
    """reduceat with unsorted and repeated indices, at() with duplicates for
    maximum and subtract, accumulate along an axis, outer products of ints."""
    x = np.arange(10.0)
    g = np.asarray(SCORES)
    idx = np.asarray([0, 4, 1, 5, 5, 8])
    acc = np.zeros(4)
    np.maximum.at(acc, np.asarray([0, 1, 0, 3, 3]), np.asarray([5.0, -1.0, 7.0, 2.0, 9.0]))
    sub = np.ones(3)
    np.subtract.at(sub, np.asarray([0, 0, 2]), np.asarray([1.0, 2.0, 3.0]))
    return (np.add.reduceat(x, idx), np.maximum.reduceat(x, idx[::-1]),
            np.multiply.reduceat(x[1:], [0, 3, 6]), acc, sub,
            np.minimum.accumulate(g, axis=1), np.maximum.accumulate(g[::-1], axis=0),
            np.multiply.outer(np.arange(1, 4), np.arange(1, 3)),
            np.subtract.outer(x[:3], x[:2]), np.power.outer(np.arange(3), np.arange(3)),
            np.add.reduce(g, axis=(0, 1)), np.add.reduce(g, axis=1, initial=100.0),
            np.add.reduceat(g, [0, 2], axis=1))


def run_lengths(np):
    """Run-length encoding of a label sequence by diff/flatnonzero, its
    decoding by repeat, and the longest run of each label."""
    labels = np.asarray([1, 1, 2, 2, 2, 1, 3, 3, 3, 3, 2, 2])
    change = np.flatnonzero(np.diff(labels)) + 1
    starts = np.concatenate([np.asarray([0]), change])
    lengths = np.diff(np.concatenate([starts, np.asarray([len(labels)])]))
    values = labels[starts]
    decoded = np.repeat(values, lengths)
    longest = np.zeros(4, dtype=lengths.dtype)
    np.maximum.at(longest, values, lengths)
    return starts, lengths, values, decoded, np.array_equal(decoded, labels), longest


def rolling_windows(np):
    """Rolling statistics over sliding windows: median, percentile, standard
    deviation, range, and a block-wise running maximum."""
    s = np.asarray(SAMPLE[:30])
    w = np.lib.stride_tricks.sliding_window_view(s, 5)
    blocks = s.reshape(6, 5)
    return (np.median(w, axis=1), np.percentile(w, 75, axis=-1), np.std(w, axis=1, ddof=1),
            np.ptp(w, axis=1), np.maximum.accumulate(blocks, axis=1)[:, -1],
            w[np.argmax(w.mean(axis=1))], np.lib.stride_tricks.sliding_window_view(
                blocks, (2, 2))[::2, ::2].sum(axis=(-1, -2)))


def sparse_layouts(np):
    """A COO matrix with duplicate entries to dense (add.at), to CSR by a
    stable argsort, bincount and cumsum, a CSR product by reduceat, and the
    transpose by re-sorting."""
    rows = np.asarray([0, 2, 1, 0, 2, 2, 3])
    cols = np.asarray([1, 0, 2, 1, 3, 0, 3])
    vals = np.asarray([1.0, 2.0, 3.0, 4.0, 5.0, 6.0, 7.0])
    dense = np.zeros((4, 4))
    np.add.at(dense, (rows, cols), vals)
    order = np.argsort(rows * 4 + cols, kind="stable")
    indptr = np.concatenate([np.asarray([0]), np.cumsum(np.bincount(rows, minlength=4))])
    x = np.arange(1.0, 5.0)
    prods = vals[order] * x[cols[order]]
    nonempty = indptr[:-1][np.diff(indptr) > 0]
    y = np.zeros(4)
    y[np.diff(indptr) > 0] = np.add.reduceat(prods, nonempty)
    t_order = np.lexsort((rows, cols))
    return dense, indptr, cols[order], y, dense @ x, cols[t_order], rows[t_order]


def reorientations(np):
    """rot90 with k and axes, flips over axis tuples, moveaxis of several
    axes, transpose with an order, rolls by shift and axis tuples."""
    c = np.arange(24).reshape(2, 3, 4)
    return (np.rot90(c), np.rot90(c, k=-1, axes=(1, 2)), np.rot90(c, 2, (0, 2)),
            np.flip(c, axis=(0, 2)), np.flip(c), np.moveaxis(c, [0, 1], [-1, 0]),
            np.transpose(c, (2, 0, 1)), np.swapaxes(c, 0, 2).shape,
            np.roll(c, (1, -2), axis=(1, 2)), np.roll(c, 5), np.fliplr(c[0]), np.flipud(c[0]))


def membership(np):
    """isin with invert, the table and sort kinds, assume_unique; set
    operations on unique inputs."""
    a = np.asarray([5, 1, 3, 9, 1, 7])
    b = np.asarray([1, 7, 8])
    return (np.isin(a, b), np.isin(a, b, invert=True), np.isin(a, b, kind="table"),
            np.isin(a, b, kind="sort", invert=True), np.isin(a.reshape(2, 3), b),
            np.isin(np.unique(a), b, assume_unique=True),
            np.intersect1d(np.unique(a), b, assume_unique=True),
            np.setdiff1d(a, b, assume_unique=False), np.union1d(a, b[::-1]),
            np.setxor1d(a, b), np.isin(a.astype(np.float64), np.asarray([1.0, np.nan])))


def triangles(np):
    """triu/tril index sets with offsets and rectangular shapes, triangles of
    a stack, tri and the strict lower part by a mask."""
    m = np.arange(1.0, 13.0).reshape(3, 4)
    iu = np.triu_indices(4, k=1, m=5)
    il = np.tril_indices_from(m, k=-1)
    stack = np.arange(18.0).reshape(2, 3, 3)
    return (iu, il, m[il], np.triu(stack, k=1), np.tril(stack, -1).sum(axis=(1, 2)),
            np.tri(3, 5, k=1, dtype=np.int64), np.triu_indices(3), np.tril(m, 2),
            m[np.tri(3, 4, -1, dtype=bool)])


def classic_polynomials(np):
    """np.poly* on coefficient vectors: derivative, integral with constants,
    sums and products, long division, roots of a quadratic with complex roots,
    the polynomial of given roots, evaluation on a grid."""
    p = np.asarray([2.0, -3.0, 1.0])
    q = np.asarray([1.0, 0.0, 1.0])
    quot, rem = np.polydiv(np.polymul(p, q) + np.asarray([0, 0, 0, 1.0, 2.0]), q)
    return (np.polyder(p), np.polyder(np.polymul(p, q), 2), np.polyint(p, k=[3.0]),
            np.polyint(p, 2, k=[1.0, 2.0]), np.polyadd(p, q[1:]), np.polysub(q, p),
            np.polymul(p, q), quot, rem, np.sort_complex(np.roots(q)),
            np.sort(np.roots(p)), np.poly(np.asarray([1.0, 2.0, -1.0])),
            np.polyval(p, np.arange(6.0).reshape(2, 3)))


def phases(np):
    """angle in degrees, unwrap with a period and a discontinuity,
    real_if_close, conjugates and magnitudes of complex64, real/imag tests."""
    z = np.exp(1j * np.linspace(0, 6 * np.pi, 20)).astype(np.complex64)
    deg = np.asarray([350.0, 10.0, 30.0, 340.0, 20.0])
    return (np.angle(z[:5], deg=True), np.unwrap(np.angle(z)), np.unwrap(deg, period=360),
            np.unwrap(deg, discont=300, period=360), np.real_if_close(np.asarray([1 + 1e-15j, 2])),
            np.real_if_close(np.asarray([1 + 1e-3j])), np.conj(z[:3]), np.abs(z[:3]),
            np.iscomplexobj(z), np.isrealobj(np.abs(z)), np.imag(np.arange(3.0)),
            np.iscomplex(np.asarray([1 + 0j, 1j])), np.isreal(np.asarray([1 + 0j, 1j])))


def grids(np):
    """mgrid with a complex step (a count), ogrid, meshgrid sparse and ij,
    indices sparse, ix_ with a bool mask."""
    gx, gy = np.mgrid[0:1:3j, 0:2:5j]
    ox, oy = np.ogrid[0:3, 0:4]
    mx, my = np.meshgrid(np.arange(3), np.arange(2.0), sparse=True)
    ix, iy = np.meshgrid(np.arange(3), np.arange(2.0), indexing="ij")
    ri, ci = np.indices((2, 3), sparse=True)
    sel = np.ix_(np.asarray([True, False, True]), np.asarray([0, 2]))
    table = np.arange(9).reshape(3, 3)
    return (gx, gy, ox * 10 + oy, mx + my, ix - iy, ri + ci, table[sel], np.mgrid[0:5:2],
            np.mgrid[-1:1:0.5], np.indices((2, 2)))


def weighted_statistics(np):
    """average with weights along an axis (returned, keepdims), covariance
    with frequency and analytic weights, correlation of columns, ptp and the
    median of an even count."""
    g = np.asarray(SCORES)
    w = np.asarray([1.0, 2.0, 3.0, 2.0, 1.0])
    avg, total = np.average(g, axis=1, weights=w, returned=True)
    return (avg, total, np.average(g, axis=0, keepdims=True), np.average(g, weights=g),
            np.cov(g, fweights=np.asarray([1, 2, 1, 1, 3])), np.cov(g, aweights=w, ddof=0),
            np.cov(g.T, bias=True), np.corrcoef(g, rowvar=False), np.ptp(g, axis=0),
            np.median(g[:, :4], axis=1), np.cov(g[0], g[1]), np.corrcoef(g[0], g[2])[0, 1])


def diagonals_and_identities(np):
    """fill_diagonal wrapping on a tall matrix, diag_indices_from, diagflat
    and diag with offsets, trace over chosen axes, eye with k and dtype."""
    tall = np.zeros((7, 3))
    np.fill_diagonal(tall, 5.0, wrap=True)
    plain = np.zeros((7, 3))
    np.fill_diagonal(plain, np.asarray([1.0, 2.0]))
    sq = np.arange(16.0).reshape(4, 4)
    d = np.diag_indices_from(sq)
    cube = np.arange(27.0).reshape(3, 3, 3)
    return (tall, plain, sq[d], np.diagflat(np.asarray([1, 2]), k=-1), np.diag(np.arange(3), 2),
            np.diag(sq, -1), np.trace(cube, offset=1, axis1=0, axis2=2),
            np.eye(3, 4, k=-1, dtype=np.int32), np.identity(2, dtype=bool),
            np.diagonal(cube, 0, 2, 1))


def sequences(np):
    """linspace with retstep and endpoint=False, array endpoints along an
    axis; logspace with a base; geomspace of negatives; arange counts."""
    lin, step = np.linspace(0, 1, 5, endpoint=False, retstep=True)
    return (lin, step, np.linspace(np.asarray([0.0, 1.0]), np.asarray([1.0, 3.0]), 4, axis=1),
            np.logspace(0, 3, 4, base=2), np.logspace(1, 2, 3, endpoint=False),
            np.geomspace(-1, -1000, 4), np.geomspace(1, 256, 9, dtype=np.int64),
            np.arange(0, 1, 0.1).shape, np.arange(10, 0, -3), np.arange(1.5, 4),
            np.linspace(2, 3, 1), np.linspace(0, 10, 6, dtype=np.int64))


def shifts_and_bits(np):
    """Shifts of negative numbers (arithmetic), bit counts, inversion of
    unsigned bytes, bitwise reductions and masks."""
    x = np.asarray([-16, -1, 7, 255])
    u = np.asarray([0, 1, 128, 255], dtype=np.uint8)
    return (np.right_shift(x, 2), np.left_shift(x, 3), x >> 1, np.bitwise_count(x),
            np.invert(u), ~u, np.bitwise_and.reduce(np.asarray([7, 14, 12])),
            np.bitwise_xor.accumulate(np.asarray([1, 3, 5, 7])), (x & 0xF) | 0x10,
            np.left_shift(u, 1), np.bitwise_count(u), u ^ np.uint8(0xFF))


def division_signs(np):
    """Floor division and remainders of negative floats and ints, fmod's sign
    rule, divmod, modf of negatives, division by infinity."""
    a = np.asarray([7.5, -7.5, 7.5, -7.5, 1.0])
    b = np.asarray([2.0, 2.0, -2.0, -2.0, np.inf])
    i = np.asarray([7, -7, 7, -7])
    j = np.asarray([2, 2, -2, -2])
    q, r = np.divmod(a, b)
    return (np.floor_divide(a, b), np.remainder(a, b), np.fmod(a, b), q, r,
            np.divmod(i, j), np.fmod(i, j), i % j, np.modf(a[:4]), np.remainder(-0.0, 2.0),
            np.floor_divide(-1.0, np.inf), np.mod(np.asarray([5, -5]), 3))


def exponent_family(np):
    """log-sum-exp pairs, expm1/log1p of tiny values, exact powers of two,
    frexp/ldexp round trips, spacing and nextafter."""
    x = np.asarray([1e-10, 1e-5, 0.5, 700.0])
    m, e = np.frexp(np.asarray([0.0, 1.0, -6.5, 1e-300, 3e300]))
    return (np.logaddexp(x, x[::-1]), np.logaddexp2(x[:3], 1.0), np.expm1(x[:3]),
            np.log1p(x[:3]), np.log2(np.asarray([1.0, 8.0, 0.125])), m, e, np.ldexp(m, e),
            np.spacing(np.asarray([1.0, 1e10, -1.0])), np.nextafter(1.0, 2.0) - 1.0,
            np.nextafter(np.asarray([0.0]), -1.0), np.exp2(np.asarray([-1.0, 10.0])),
            np.log10(np.asarray([1e-3, 1e5])), np.cbrt(np.asarray([-27.0, 8.0])))


def special_values(np):
    """sinc, i0, heaviside with its value at zero, hypot of large values,
    arctan2 in all quadrants and on signed zeros, degrees and radians."""
    x = np.linspace(-2, 2, 9)
    y = np.asarray([1.0, 1.0, -1.0, -1.0, 0.0, -0.0, 0.0])
    xx = np.asarray([1.0, -1.0, -1.0, 1.0, -0.0, -0.0, 0.0])
    return (np.sinc(x), np.i0(x), np.heaviside(x, 0.5), np.heaviside(x, np.asarray(2.0)),
            np.hypot(3e200, 4e200), np.arctan2(y, xx), np.rad2deg(np.arctan2(y, xx)),
            np.deg2rad(np.asarray([180, 90])), np.degrees(np.pi / 3), np.radians(90))


def convolutions(np):
    """convolve in full/same/valid modes with an even kernel, correlate of
    complex data (conjugating the second), a 2-d convolution by windows and
    einsum."""
    s = np.asarray(SAMPLE[:12])
    k = np.asarray([1.0, 2.0, -1.0, 0.5])
    c = np.asarray([1 + 1j, 2 - 1j, 0.5j])
    img = np.arange(30.0).reshape(5, 6)
    ker = np.asarray([[0.0, 1.0], [-1.0, 2.0]])
    win = np.lib.stride_tricks.sliding_window_view(img, ker.shape)
    return (np.convolve(s, k), np.convolve(s, k, mode="same"), np.convolve(s, k, "valid"),
            np.convolve(k, s, mode="same"), np.correlate(c, c, "full"),
            np.correlate(s, k, "same"), np.einsum("ijkl,kl->ij", win, ker[::-1, ::-1]),
            np.correlate(np.arange(4), np.asarray([1, 1])))


def choices_and_places(np):
    """choose with clip and wrap modes, select with a default, compress on an
    axis, extract, place and putmask with repeating values, copyto with
    where=, resize by repetition."""
    idx = np.asarray([0, 3, -1, 2, 1])
    options = np.asarray([[10, 11, 12, 13, 14], [20, 21, 22, 23, 24], [30, 31, 32, 33, 34]])
    g = np.arange(12.0).reshape(3, 4)
    placed = g.copy()
    np.place(placed, placed > 6, np.asarray([-1.0, -2.0]))
    masked = g.copy()
    np.putmask(masked, masked % 3 == 0, np.asarray([100.0, 200.0, 300.0]))
    target = np.zeros((3, 4))
    np.copyto(target, g[0], where=g > 5)
    return (np.choose(idx, options, mode="clip"), np.choose(idx, options, mode="wrap"),
            np.select([g < 3, g > 8], [g * 10, -g], default=np.nan),
            np.compress([True, False, True], g, axis=0), np.compress([0, 1], g, axis=1),
            np.extract(g % 5 == 0, g), placed, masked, target, np.resize(np.arange(3), (2, 4)),
            np.resize(g, 5))


# ---- the programs that found this round's fixes --------------------------------------------

def spectral_bins(np):
    """Frequencies of a spectrum sampled at a float32 spacing read from the
    data (a 0-d array), and a count computed by the program; the peak's
    frequency and a complex spacing's bins."""
    t = np.asarray(numpy.linspace(0, 1, 65)[:-1], dtype=np.float32)
    signal = np.sin(2 * np.pi * 5 * t) + 0.5 * np.cos(2 * np.pi * 12 * t)
    d = np.diff(t).mean()
    freqs = np.fft.rfftfreq(len(t), d)
    spectrum = np.abs(np.fft.rfft(signal))
    n = np.count_nonzero(spectrum > 1)
    return (freqs, freqs[np.argsort(spectrum)[-2:]], np.fft.fftfreq(8, d),
            np.fft.fftfreq(int(n) + 3, np.float32(0.3)), np.fft.rfftfreq(6, 0.5j),
            np.fft.fftshift(np.fft.fftfreq(9, np.asarray(0.1, dtype=np.float32))))


def pixel_coordinates(np):
    """Flat indices of an image patch from a row column and a column row
    (ravel_multi_index broadcasts them), a single pixel beside a row of
    columns, wrapped coordinates, and records sorted by two keys given as a
    tuple."""
    img = np.arange(48.0).reshape(6, 8)
    rows = np.arange(2, 5)[:, None]
    cols = np.arange(1, 4)[None, :]
    patch = np.ravel_multi_index((rows, cols), img.shape)
    line = np.ravel_multi_index((3, np.arange(8)), img.shape)
    wrapped = np.ravel_multi_index((rows - 3, cols + 6), img.shape, mode="wrap")
    keys = (np.asarray([3, 1, 2, 1]), np.asarray([0, 1, 0, 1]))
    return (patch, img.ravel()[patch], line, img.flat[line].sum(), wrapped,
            np.lexsort(keys), np.lexsort([keys[0], keys[1]]))


def half_precision_tolerances(np):
    """Tolerance checks on float16 data against Python numbers (weak, so the
    number is rounded like the data) and against arrays (not)."""
    h = np.asarray(HALF[:12])
    q = np.asarray([0.1, 0.25, 0.3333], dtype=np.float16)
    return (np.isclose(q, 0.1), np.isclose(q, [0.1, 0.25, 0.3333]), np.isclose(0.25, q),
            np.allclose(q[1], 0.25), np.isclose(q, np.asarray(0.1)),
            np.isclose(h, h.astype(np.float64)), np.isclose(h, 0.5, atol=0.25),
            np.isclose(np.asarray([1, 2, 3], dtype=np.uint8), 2))


def tariff_bands(np):
    """A banded tariff by piecewise where some bands hold no reading (their
    functions, which divide by the band's maximum, are not called), a flat
    fee for one reading (0-d), and a rule that holds everywhere."""
    usage = np.asarray([12.0, 40.0, 75.0, 18.0])
    bands = [usage < 10, (usage >= 10) & (usage < 50), usage >= 200]
    cost = np.piecewise(usage, bands, [lambda u: u / u.max(), lambda u: 2.0 * u,
                                       lambda u: u * 1.5 / u.max(), 100.0])
    one = np.piecewise(usage[1], [usage[1] < 50, usage[1] >= 50], [lambda u: u * 2, 0.0])
    flat = np.piecewise(usage, [np.asarray(True)], [lambda u: u + 1])
    grid = np.piecewise(usage.reshape(2, 2), [np.asarray([True, False])], [lambda r: r * 0, 1.0])
    return cost, one, flat, grid


def cycle_alignment(np):
    """When periodic jobs line up: lcm of their periods (reduce and pairwise),
    gcd of offsets, and lcm products past int64 that wrap as NumPy's."""
    periods = np.asarray([4, 6, 10, 15])
    big = np.asarray([2 ** 40 + 1, 2 ** 62, 3 ** 30], dtype=np.int64)
    other = np.asarray([2 ** 40 - 1, 3, 2 ** 20], dtype=np.int64)
    return (np.lcm.reduce(periods), np.lcm(periods[:, None], periods), np.gcd.reduce(periods),
            np.lcm(big, other), np.lcm(-big, other), np.lcm(np.asarray([2 ** 30 + 1], np.int32),
                                                            np.asarray([2 ** 30 - 1], np.int32)),
            np.lcm(np.asarray([200, 255], dtype=np.uint8), np.asarray([3, 2], dtype=np.uint8)))


def machine_limits(np):
    """Tolerances and ranges from finfo / iinfo: an eps-scaled comparison,
    the smallest normal as a guard, integer ranges for saturation, and
    every field of the float dtypes as Python numbers."""
    x = np.asarray([1.0, 1.0 + 1e-7, 1.0 + 1e-5], dtype=np.float32)
    f32 = np.finfo(np.float32)
    out = [np.abs(x - 1) <= 4 * float(f32.eps), np.maximum(x * 0, float(f32.tiny)),
           np.clip(np.asarray([-1e6, 5.0, 1e6]), np.iinfo(np.int16).min,
                   np.iinfo(np.int16).max).astype(np.int16)]
    for t in (np.float16, np.float32, np.float64, np.complex64):
        info = np.finfo(t)
        out.append([float(getattr(info, f)) for f in ("eps", "epsneg", "max", "min", "tiny",
                                                      "smallest_subnormal", "resolution")])
        out.append([int(getattr(info, f)) for f in ("bits", "precision", "machep", "negep",
                                                    "minexp", "maxexp", "nexp", "nmant",
                                                    "iexp")])
    for t in (np.int8, np.uint16, np.int64, np.uint64):
        info = np.iinfo(t)
        out.append((info.min, info.max, info.bits, info.kind, info.key))
    return tuple(out)


def test_arrays_by_rows_axes_and_signatures():
    _run(row_groups)
    _run(along_axes)
    _run(signatures)
    _run(traces_and_diagonals)
    _run(readonly_windows)
    _run(padding_modes)
    _run(broadcasting_tools)
    _run(splits_and_stacks)
    _run(reorientations)
    _run(grids)
    _run(choices_and_places)
    host_program(iterator_loops, "nditer")


def test_calculus_interpolation_and_sequences():
    _run(periodic_interpolation)
    _run(uneven_gradients)
    _run(numpy2_integrals)
    _run(sequences)
    _run(convolutions)
    _run(spectral_bins)


def test_linear_algebra():
    _run(matrix_chains)
    _run(array_api_linalg)
    _run(batched_solves)
    _run(norms_by_order)
    _run(diagonals_and_identities)
    _run(triangles)
    _run(classic_polynomials)


def test_statistics_binning_and_missing_data():
    _run(quantile_methods)
    _run(bin_estimators)
    _run(bins_and_sorted_lookup)
    _run(partial_orders)
    _run(nan_slices)
    _run(masked_stations)
    _run(weighted_statistics)
    _run(rolling_windows)
    _run(reductions_with_where)


def test_indices_sets_and_ufunc_methods():
    _run(along_axis_updates)
    _run(index_conversions)
    _run(pixel_coordinates)
    _run(unique_with_nans)
    _run(ufunc_methods)
    _run(run_lengths)
    _run(sparse_layouts)
    _run(membership)
    _run(tariff_bands)


def test_numbers_dtypes_and_text():
    _run(number_text)
    _run(calendar)
    _run(bit_packing)
    _run(shifts_and_bits)
    _run(closeness)
    _run(half_precision_sums)
    _run(half_precision_tolerances)
    _run(nep50_promotion)
    _run(casts)
    _run(integer_reductions)
    _run(signed_zeros_and_nans)
    _run(rounding_family)
    _run(division_signs)
    _run(exponent_family)
    _run(special_values)
    _run(phases)
    _run(cycle_alignment)
    _run(machine_limits)


# ---- what differs by design ----------------------------------------------------------------

def test_float16_and_float32_scans_keep_the_running_value_in_double():
    # half_precision_sums: np.cumsum / np.cumprod of float16 (and float32)
    # data keep the running value in double and round each output, PyTorch's
    # CPU accumulation; NumPy rounds the running value to the dtype at every
    # step, so a long float16 running sum drifts there (docs/numpy.md)
    h = HALF[:3000]
    exact = numpy.cumsum(h.astype(numpy.float64))
    got = tnp.cumsum(tnp.asarray(h))
    assert got.dtype == tnp.float16
    numpy.testing.assert_array_equal(got.cpu().numpy(), exact.astype(numpy.float16))
    want = numpy.cumsum(h)
    assert abs(float(want[-1]) - exact[-1]) > abs(float(got[-1]) - exact[-1])
    # the sums are NumPy's pairwise ones, and dtype=float64 gives NumPy's scan
    _same(numpy.sum(h), tnp.sum(tnp.asarray(h)), "sum")
    _same(numpy.cumsum(h, dtype=numpy.float64), tnp.cumsum(tnp.asarray(h), dtype=tnp.float64),
          "cumsum in float64")
