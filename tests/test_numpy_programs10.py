"""NumPy programs, tenth round: kinds the first nine rounds
(tests/test_numpy_programs.py ... 9.py) touch least -- masked arrays in
ordinary programs (a gradebook by masked_less with anomalies and
per-column fills, readings kept by masked_outside/masked_inside, runs by
clump_masked/notmasked_edges, a survey table by compress_rows/
mask_rowcols/mask_or, average(returned=), masked dot and domain-masked
arithmetic), moving medians and max-pools over sliding_window_view,
correlation in every mode (complex conjugated), diff with prepend/append
and n=, gradients with a spacing per axis, periodic clock interpolation,
regression reports by lstsq (several right-hand sides, rank deficient,
underdetermined), PCA by eigh and svd, slogdet/cond/matrix_rank/pinv
diagnostics, Markov chains by matrix_power and eig, tensorsolve/tensorinv
of Kronecker operators, ridge paths by stacked solves, power and inverse
iteration, Gram-Schmidt against qr, spectral partitions, low-rank images
(Eckart-Young), einsum with every optimize= and its corners, the
polynomial classes with domains and windows (fits, conversions, roots,
Hermite/Laguerre, Gauss points), Generator programs by properties
(dirichlet, permuted, choice of columns, broadcast parameters),
histogram2d/histogramdd/digitize/bincount cells, set algebra with every
return_ and the Array API's unique_*, apply_along_axis/apply_over_axes/
vectorize/frompyfunc, ndindex/ndenumerate loops, ufunc methods (at of
any ufunc, reduceat and outer with dtype=, accumulate and reduce at their
corners), block/tile/repeat/rot90/flip/roll pipelines, nan-aware
statistics and NaN corners, percentiles by method, sorting kinds, ranks
and partitions, select/choose/copyto/putmask/place/extract, cross
products (2-vectors too) and kron, float views and byte swaps, empty, 0-d,
strided and broadcast inputs, Easter dates and work-day calendars by
integer arithmetic, sudoku, tic-tac-toe, a knapsack, interval merging,
rank correlations, division and rounding families, float anatomy, bit
counts and Gray codes, lookup tables, stencils by windows and an
inventory ledger -- run once with NumPy and once with ``torchlike.numpy``,
with round 4's oracle and conventions (NumPy for values, dtypes and
shapes; inputs drawn once by NumPy).

What they found (each with a focused test in the test file of its area):

- ``np.cross`` with a 2-vector operand (NumPy's deprecated forms: the z
  component of two 2-vectors, a 2-vector beside a 3-vector) ran NumPy's
  own code, refused on a device; it computes with tensor ops now, with
  NumPy's DeprecationWarning, and bool vectors raise NumPy's TypeError
  (a bool 3-vector cross computed silently) -- tests/test_numpy_namespace_more.py.
- ``ufunc.at`` of every ufunc but add/subtract/maximum/minimum/multiply
  (``np.negative.at``, ``divide.at``, ``power.at``, ``bitwise_or.at``
  ...) was refused on a device and on the tape; each occurrence is
  applied in order now, as NumPy's unbuffered at -- tests/test_ufunc.py,
  tests/test_numpy_tape_programs2.py (which listed divide.at as refused).
- ``ufunc.reduceat`` with ``dtype=`` or ``out=``, ``ufunc.outer`` with
  ``dtype=``, and ``np.maximum``/``np.minimum`` reductions and scans with
  ``dtype=`` were refused on a device, as were the scans and reductions
  of the other binary ufuncs (``np.power.accumulate``,
  ``np.floor_divide.reduce`` ...), NumPy's left folds -- tests/test_ufunc.py.
- ``np.ma``'s binary operations lacked NumPy's ufunc methods
  (``np.ma.add.reduce``, ``np.ma.maximum.reduce``, ``np.ma.less.outer``
  ...: AttributeError) -- tests/test_numpy_ma_more.py.
- A comparison's ``dtype=`` reaching ``__array_ufunc__``
  (``np.equal.outer(a, b, dtype=bool)``, ``numpy.equal(t, u, dtype=bool)``)
  cast the inputs to bool, so 2 == 1 was True; ``dtype=np.int64`` gave a
  result where NumPy finds no loop -- tests/test_ufunc.py.

What differs by design (docs/numpy.md, "The tenth round"), spelled around
here: ``MaskedArray.count()`` is a Python int (NumPy's int64; the bounds
of ``np.ma.clump_*`` slices are NumPy's now), ``x.size`` is the Size's int subclass,
``x.nonzero()`` is PyTorch's (n, ndim) tensor (``np.nonzero(x)`` is
NumPy's tuple), dtypes are torchlike's (``x.dtype == np.int64`` holds),
``np.true_divide`` of integers is float32, ``np.unique_values`` is sorted,
strings are not tensors (``np.vectorize(len)`` of a string array), and
``np.broadcast_to`` views are writeable. NumPy 2.4's own ``ufunc.at``
with a 2-d index array and values broadcast along its first axis
(``np.add.at(a, [[0, 1], [1, 1]], [2.0, 4.0])``) applies some
occurrences once only; the programs give such values their full shape.
"""
import numpy
import pytest

from test_numpy_programs import _run

# NumPy's own warnings in the programs: its 2-vector np.cross is deprecated
# (both libraries warn), float_anatomy's ldexp overflows to inf on purpose,
# and nan_corners reduces an all-NaN row on purpose (torchlike never warns)
pytestmark = [pytest.mark.filterwarnings("ignore:Arrays of 2-dimensional vectors"),
              pytest.mark.filterwarnings("ignore:overflow encountered:RuntimeWarning"),
              pytest.mark.filterwarnings("ignore:All-NaN slice encountered:RuntimeWarning")]

_RNG = numpy.random.default_rng(10)
GRADES = _RNG.integers(40, 100, (6, 4)).astype(numpy.float64)
GRADES[1, 2] = -1.0
GRADES[4, 0] = -1.0
GRADES[5, 3] = -1.0
SIGNAL = numpy.sin(numpy.linspace(0, 6, 40)) + _RNG.normal(0, 0.2, 40)
IMAGE = _RNG.integers(0, 10, (7, 9)).astype(numpy.float64)
DESIGN = _RNG.normal(0, 1, (20, 3))
TARGET = DESIGN @ numpy.array([1.5, -2.0, 0.5]) + _RNG.normal(0, 0.1, 20)
SPD = (lambda a: a @ a.T + 3 * numpy.eye(5))(_RNG.normal(0, 1, (5, 5)))
XS = numpy.linspace(-1, 1, 25)
YS = numpy.cos(3 * XS) + 0.01 * _RNG.normal(0, 1, 25)
PTS = _RNG.normal(0, 1, (60, 2))
IDS = _RNG.integers(0, 6, 30)
VALUES = _RNG.uniform(0, 10, 30).round(2)
NANNY = _RNG.normal(5, 2, (5, 7))
NANNY[0, 1] = NANNY[2, :3] = NANNY[4, 6] = numpy.nan
KEYS = _RNG.integers(0, 4, 16)
STACK = _RNG.normal(0, 1, (3, 4, 4)) + 2 * numpy.eye(4)


# ---- masked arrays in ordinary programs -------------------------------------------------

def gradebook(np):
    """A gradebook with -1 for missing marks: masked by masked_less, per-student
    and per-test means, the class's fill of missing marks by the test mean,
    counts, the best student by argmax, and anomalies."""
    g = np.ma.masked_less(np.asarray(GRADES), 0)
    per_student = g.mean(axis=1)
    per_test = g.mean(axis=0)
    filled = g.filled(0) + np.ma.getmaskarray(g) * per_test.filled(0)
    return (per_student.filled(-1), per_test.filled(-1), g.count(axis=0), int(g.count()),
            filled, int(np.argmax(per_student.filled(-1))), g.anom(axis=0).filled(0),
            g.std(axis=1, ddof=1).filled(-1), g.compressed(), g.min(axis=0).filled(-1),
            np.ma.count_masked(g, axis=1))


def masked_ranges(np):
    """Readings kept inside a window by masked_outside/masked_inside, a masked
    ratio, harden_mask-free writes through the mask, and sums with and
    without the mask."""
    s = np.asarray(SIGNAL)
    inside = np.ma.masked_outside(s, -0.8, 0.8)
    outside = np.ma.masked_inside(s, -0.8, 0.8)
    ratio = inside / np.ma.masked_values(np.round(s, 0), 0.0)
    inside2 = inside.copy()
    inside2[inside2 > 0.5] = np.ma.masked
    return (inside.sum(), int(outside.count()), ratio.filled(0), int(inside2.count()),
            np.ma.getmaskarray(inside2), inside.filled(np.nan), np.ma.masked_where(
                s > 0, s).mean(), int(inside2.compressed().size))


def masked_runs(np):
    """Contiguous runs of valid and invalid readings: notmasked_edges,
    clump_masked/clump_unmasked slices, notmasked_contiguous, and the lengths
    of the runs."""
    s = np.ma.masked_greater(np.asarray(SIGNAL), 0.6)
    clumps = np.ma.clump_masked(s)
    good = np.ma.clump_unmasked(s)
    edges = np.ma.notmasked_edges(s)
    return ([(int(c.start), int(c.stop)) for c in clumps],
            [(int(c.start), int(c.stop)) for c in good],
            [int(e) for e in edges], [int(c.stop - c.start) for c in np.ma.notmasked_contiguous(s)])


# ---- windows, filters and signals -------------------------------------------------------

def moving_filters(np):
    """Moving median, maximum and mean by sliding_window_view; a centred
    median filter with edge padding; 2-d 3x3 windows and a max-pool by
    stepping the window view."""
    s = np.asarray(SIGNAL)
    win = np.lib.stride_tricks.sliding_window_view(s, 5)
    med = np.median(win, axis=-1)
    centred = np.median(np.lib.stride_tricks.sliding_window_view(np.pad(s, 2, mode="edge"), 5),
                        axis=1)
    img = np.asarray(IMAGE)
    w2 = np.lib.stride_tricks.sliding_window_view(img, (3, 3))
    pool = np.lib.stride_tricks.sliding_window_view(img[:6, :8], (2, 2))[::2, ::2].max(axis=(2, 3))
    cols = np.lib.stride_tricks.sliding_window_view(img, 3, axis=1)
    return (med, win.max(axis=1), win.mean(axis=1), centred, w2.shape, w2.mean(axis=(-2, -1)),
            pool, cols.shape, cols.min(axis=-1), w2.strides[-2:] == img.strides)


def correlations(np):
    """Cross-correlation of a template against a signal in every mode, its
    lag of best match, complex correlation (NumPy conjugates the second
    operand), and convolution of integer sequences."""
    s = np.asarray(SIGNAL)
    t = s[10:16].copy()
    full = np.correlate(s, t, mode="full")
    lag = int(np.argmax(np.correlate(s, t, mode="valid")))
    z = np.exp(1j * np.linspace(0, 2, 8))
    return (full, np.correlate(s, t, "same"), lag, np.correlate(z, z[:3]),
            np.correlate(z, z[:3], "full"),
            np.convolve(np.asarray([1, 2, 3]), np.asarray([0, 1, 0.5])),
            np.convolve(np.asarray([1, 2, 3], dtype=np.int64), np.asarray([1, -1])),
            np.convolve(s[:5], np.asarray([0.25, 0.5, 0.25]), "same"),
            np.convolve(np.asarray([1.0]), s[:4], "valid"))


def derivatives(np):
    """Differences with prepend/append and n=2, gradients with a spacing per
    axis and edge_order=2, trapezoid of a 2-d grid over both axes."""
    s = np.asarray(SIGNAL[:12])
    img = np.asarray(IMAGE)
    dx, dy = np.gradient(img, 0.5, 2.0)
    gx = np.gradient(img, axis=1, edge_order=2)
    return (np.diff(s, prepend=0.0), np.diff(s, n=2, append=s[-1:]),
            np.diff(img, axis=0, prepend=img[:1]), np.diff(np.asarray([3, 1, 4, 1, 5]), n=3),
            dx, dy, gx, np.trapezoid(np.trapezoid(img, dx=0.5, axis=1), dx=2.0),
            np.diff(np.asarray([True, False, False, True])),
            np.ediff1d(s, to_begin=-1.0, to_end=[9.0, 8.0]))


def periodic_lookup(np):
    """np.interp of hours on a 24-hour clock (period=24), of a query array
    shaped 2-d, and of unsorted sample points that period= sorts."""
    hours = np.asarray([1.0, 6.0, 12.0, 18.0, 23.0])
    temp = np.asarray([10.0, 8.0, 20.0, 16.0, 11.0])
    q = np.asarray([[0.0, 23.5], [24.5, -1.0]])
    shuffled = np.asarray([3, 0, 4, 1, 2])
    return (np.interp(q, hours, temp, period=24),
            np.interp(q, hours[shuffled], temp[shuffled], period=24),
            np.interp(np.asarray(12.5), hours, temp), np.interp(30.0, hours, temp, period=24))
# ---- linear algebra ----------------------------------------------------------------------

def least_squares_report(np):
    """Regression by lstsq with several right-hand sides, the rank-deficient
    case (a repeated column) and its minimum-norm solution, residuals,
    singular values, and R^2 from the fit."""
    X = np.column_stack((np.ones(20), np.asarray(DESIGN)))
    y = np.asarray(TARGET)
    coef, res, rank, sv = np.linalg.lstsq(X, y, rcond=None)
    Y = np.stack((y, 2 * y + 1), axis=1)
    coef2, res2, rank2, _ = np.linalg.lstsq(X, Y, rcond=None)
    Xd = np.column_stack((X, X[:, 1]))
    coefd, resd, rankd, svd_ = np.linalg.lstsq(Xd, y, rcond=None)
    fit = X @ coef
    r2 = 1 - ((y - fit) ** 2).sum() / ((y - y.mean()) ** 2).sum()
    return coef, res, rank, sv, coef2, res2, rank2, coefd, resd, rankd, svd_[:4], r2


def principal_axes(np):
    """PCA of 2-d points by eigh of the covariance (ascending eigenvalues;
    vectors compared up to sign), the explained variance, and the same by
    svd of the centred data."""
    p = np.asarray(PTS) @ np.asarray([[2.0, 0.3], [0.0, 0.5]])
    c = p - p.mean(axis=0)
    cov = np.cov(c, rowvar=False)
    w, v = np.linalg.eigh(cov)
    u, s, vt = np.linalg.svd(c, full_matrices=False)
    sign = np.sign(v[0])
    return (w, v * sign, w / w.sum(), s ** 2 / (len(c) - 1), np.abs(vt), np.abs(u[:5]),
            np.linalg.eigvalsh(cov, UPLO="U"))


def matrix_diagnostics(np):
    """Determinants by slogdet of a stack, condition numbers in several norms,
    ranks with tolerances, inverse and pinv of an SPD matrix, Cholesky."""
    a = np.asarray(STACK)
    m = np.asarray(SPD)
    sign, logdet = np.linalg.slogdet(a)
    low = np.outer(np.arange(1.0, 5.0), np.ones(4)) + 1e-9 * np.eye(4)
    return (sign, logdet, np.linalg.det(a), np.linalg.cond(m), np.linalg.cond(m, "fro"),
            np.linalg.cond(a, 1), np.linalg.matrix_rank(low), np.linalg.matrix_rank(low, tol=1e-12),
            np.linalg.matrix_rank(a), np.linalg.inv(m) @ m, np.linalg.pinv(low, rcond=1e-6),
            np.linalg.cholesky(m), np.linalg.norm(a, axis=(1, 2)), np.trace(a, axis1=1, axis2=2))


def markov_powers(np):
    """A Markov chain's n-step transitions by matrix_power, the stationary
    distribution by eig (left eigenvector of eigenvalue 1), and multi_dot
    of a chain of transitions."""
    P = np.asarray([[0.9, 0.075, 0.025], [0.15, 0.8, 0.05], [0.25, 0.25, 0.5]])
    P10 = np.linalg.matrix_power(P, 10)
    w, v = np.linalg.eig(P.T)
    k = int(np.argmin(np.abs(w - 1)))
    pi = np.real(v[:, k] / v[:, k].sum())
    return P10, pi, pi @ P, np.linalg.multi_dot([np.asarray([1.0, 0, 0]), P, P, P]), \
        np.linalg.matrix_power(np.asarray([[2, 1], [1, 1]]), 5)


def tensor_equations(np):
    """tensorsolve of a 4-index operator against a matrix right-hand side, and
    tensorinv of it; a Kronecker product system solved by kron."""
    A = np.asarray(STACK).reshape(2, 6, 4)[:, :, :].reshape(12, 4)
    op = (np.kron(np.eye(3), np.asarray(SPD)[:4, :4])).reshape(3, 4, 3, 4)
    b = np.arange(12.0).reshape(3, 4)
    x = np.linalg.tensorsolve(op, b)
    inv = np.linalg.tensorinv(op, ind=2)
    k = np.kron(np.asarray([[1, 2], [3, 4]]), np.asarray([[0, 1], [1, 0]]))
    kf = np.kron(np.arange(3.0), np.ones((2, 1)))
    return x, np.tensordot(op, x, 2), inv.shape, np.tensordot(inv, b, 2), k, kf, A.shape


# ---- einsum -----------------------------------------------------------------------------

def einsum_paths(np):
    """Chains of four operands by einsum with optimize=True/'greedy'/'optimal'
    and False, bilinear forms, broadcast ellipses against a plain operand,
    outer products and a batched trace."""
    a = np.asarray(STACK)
    m = np.asarray(SPD)[:4, :4]
    v = np.arange(4.0)
    chain = [np.einsum("ij,jk,kl,l->i", m, m, m, v, optimize=o)
             for o in (True, "greedy", "optimal", False)]
    return (*chain, np.einsum("i,ij,j->", v, m, v), np.einsum("...ij,jk->...ik", a, m),
            np.einsum("i,j->ij", v, v[:3]), np.einsum("bii->b", a),
            np.einsum("bij,bkj->bik", a, a, optimize=True), np.einsum("...i,...i->...", a, a),
            np.einsum("ij...->ji...", a), np.einsum(a, [0, 1, 2], [2, 0]),
            np.einsum("ijk->", a), np.einsum("i,i", v, v))


# ---- polynomial classes -----------------------------------------------------------------

def polynomial_fits(np):
    """Least-squares fits by Polynomial, Chebyshev and Legendre classes over
    a mapped domain: coefficients in the window, converted to the standard
    basis, evaluated, derivative and integral with a lower bound, roots."""
    P = np.polynomial
    x = np.asarray(XS) * 2 + 3
    y = np.asarray(YS)
    out = []
    for cls in (P.Polynomial, P.Chebyshev, P.Legendre):
        f = cls.fit(x, y, 4)
        out += [f.coef, f.domain, f.window, f(x[:5]), f.convert().coef,
                f.deriv()(np.asarray([3.0, 4.0])), f.integ(lbnd=3)(np.asarray([4.0, 5.0])),
                np.sort(f.roots().real)]
    return tuple(out)


def polynomial_algebra(np):
    """Polynomial objects built from roots, multiplied, divided with remainder,
    raised to a power, composed, and their degree and trimmed coefficients;
    Hermite and Laguerre series evaluated and converted."""
    P = np.polynomial
    p = P.Polynomial.fromroots([1, -2, 3])
    q = P.Polynomial([1, 0, 1])
    quo, rem = divmod(p, q)
    h = P.Hermite([1, 2, 3])
    lag = P.Laguerre([0.5, -1, 2])
    return (p.coef, (p * q).coef, quo.coef, rem.coef, (q ** 3).coef, p(q).coef, p.degree(),
            P.Polynomial([1, 2, 0, 1e-14]).trim(1e-10).coef, h(np.asarray([0.0, 0.5, 1.0])),
            h.convert(kind=P.Polynomial).coef, lag(np.asarray([0.0, 1.0, 2.0])),
            P.hermite.hermroots([1, 0, 1]), P.laguerre.lagroots([1, 2, 3]),
            P.chebyshev.chebinterpolate(np.cos, 5), P.legendre.leggauss(4))


def series_functions(np):
    """The functional forms: polyval/chebval of 2-d coefficient columns,
    polyfit with full=True diagnostics and weights, polyder/polyint with
    scale and constants, chebfit of an integer sample."""
    P = np.polynomial
    x = np.asarray(XS)
    y = np.asarray(YS)
    c = np.stack((np.asarray([1.0, 2.0, 3.0]), np.asarray([0.0, 1.0, -1.0])), axis=1)
    coef, (resid, rank, sv, rcond) = P.polynomial.polyfit(x, y, 3, full=True,
                                                          w=np.linspace(1, 2, 25))
    return (P.polynomial.polyval(x[:4], c), P.chebyshev.chebval(x[:2], c, tensor=False),
            coef, resid, rank, sv, P.polynomial.polyder([1, 2, 3, 4], 2, scl=0.5),
            P.polynomial.polyint([1, 2, 3], 2, k=[1, 2], lbnd=1),
            P.chebyshev.chebfit(np.arange(6), np.asarray([1, 3, 2, 5, 4, 6]), 2),
            P.legendre.legval(0.5, [1, 2, 3]), P.polynomial.polyroots([6, -5, 1]))
# ---- random programs, by properties -----------------------------------------------------

def generator_properties(np):
    """Generator draws whose exact values differ from NumPy's stream, checked
    by what holds for every stream: dirichlet rows sum to one, permuted
    keeps each row's multiset, integers(endpoint=True) stay in range,
    choice without replacement gives distinct values, shapes and dtypes."""
    rng = np.random.default_rng(3)
    d = rng.dirichlet(np.asarray([1.0, 2.0, 3.0]), size=50)
    base = np.arange(12).reshape(3, 4)
    perm = rng.permuted(base, axis=1)
    ints = rng.integers(2, 5, size=(100,), endpoint=True)
    pick = rng.choice(20, size=10, replace=False)
    mvn = rng.multivariate_normal(np.zeros(2), np.eye(2), size=4)
    u = rng.random((3, 2), dtype=np.float32)
    return (d.shape, np.allclose(d.sum(axis=1), 1.0), np.sort(perm, axis=1), perm.dtype == np.int64,
            bool(ints.min() >= 2) and bool(ints.max() <= 5), ints.dtype == np.int64,
            int(np.unique(pick).size), mvn.shape, u.dtype == np.float32, u.shape,
            bool((u >= 0).all() and (u < 1).all()), rng.standard_normal(0).shape)


def shuffled_batches(np):
    """Mini-batches by a permutation: every index once per epoch, batches by
    array_split, a shuffled copy's sorted values, and rows shuffled in
    place keeping each row intact."""
    rng = np.random.default_rng(5)
    idx = rng.permutation(23)
    batches = np.array_split(idx, 5)
    data = np.arange(20.0).reshape(10, 2)
    rows = data.copy()
    rng.shuffle(rows)
    return (np.sort(np.concatenate(batches)), [len(b) for b in batches],
            np.sort(rows[:, 0]), rows[:, 1] - rows[:, 0], idx.dtype == np.int64)


# ---- binning ----------------------------------------------------------------------------

def binned_points(np):
    """A 2-d histogram of points with uneven edges and weights, histogramdd
    of three columns with a range and density, bins found by digitize
    turned into linear cell indices and counted by bincount(minlength=)."""
    p = np.asarray(PTS)
    ex = np.asarray([-3.0, -1.0, 0.0, 0.5, 3.0])
    ey = np.linspace(-3, 3, 4)
    h, xe, ye = np.histogram2d(p[:, 0], p[:, 1], bins=[ex, ey], weights=np.abs(p[:, 0]))
    cube = np.column_stack((p, p[:, 0] * p[:, 1]))
    hd, edges = np.histogramdd(cube, bins=(3, 2, 4), range=[(-2, 2), (-2, 2), (-1, 1)],
                               density=True)
    ix = np.digitize(p[:, 0], ex) - 1
    iy = np.digitize(p[:, 1], ey) - 1
    ok = (ix >= 0) & (ix < 4) & (iy >= 0) & (iy < 3)
    cells = np.bincount((ix * 3 + iy)[ok], minlength=12).reshape(4, 3)
    hc, _, _ = np.histogram2d(p[:, 0], p[:, 1], bins=[ex, ey])
    return h, xe, ye, hd, [e for e in edges], cells, hc


def grouped_sums(np):
    """Group-by with bincount: sums, counts and means per id, an empty group,
    weights of float32, and the largest value per group by np.maximum.at."""
    ids = np.asarray(IDS)
    v = np.asarray(VALUES)
    sums = np.bincount(ids, weights=v, minlength=8)
    counts = np.bincount(ids, minlength=8)
    means = np.divide(sums, counts, out=np.zeros(8), where=counts > 0)
    best = np.full(8, -np.inf)
    np.maximum.at(best, ids, v)
    return sums, counts, means, best, np.bincount(ids, weights=v.astype(np.float32)), \
        np.bincount(np.asarray([], dtype=np.int64)), np.bincount(np.asarray([0, 2]), minlength=1)


# ---- sets -------------------------------------------------------------------------------

def set_algebra(np):
    """Set operations on id lists: unique with every return, intersect1d with
    indices and assume_unique, setdiff1d, setxor1d, union1d, isin with
    invert and of a 2-d array, unique columns with axis=1."""
    a = np.asarray(IDS)
    b = np.asarray(KEYS)
    u, first, inv, cnt = np.unique(a, return_index=True, return_inverse=True, return_counts=True)
    common, ia, ib = np.intersect1d(a, b, return_indices=True)
    m = np.asarray([[1, 0, 1, 0], [2, 2, 2, 2], [1, 0, 1, 0]])
    return (u, first, inv, cnt, common, ia, ib, np.intersect1d(u, np.unique(b), assume_unique=True),
            np.setdiff1d(a, b), np.setxor1d(a, b), np.union1d(a, b),
            np.isin(a, b, invert=True), np.isin(m, [0, 2]), np.unique(m, axis=1),
            np.unique(m, axis=0, return_counts=True), np.setdiff1d(u, u), np.unique(a[:0]))


# ---- functions over axes -----------------------------------------------------------------

def row_functions(np):
    """apply_along_axis returning a histogram per row, apply_over_axes of a
    keepdims-free function, np.vectorize with a Python branch and a cache,
    frompyfunc giving objects and its reduce."""
    g = np.asarray(IMAGE)
    hist = np.apply_along_axis(lambda r: np.histogram(r, bins=3, range=(0, 9))[0], 1, g)
    rng_ = np.apply_over_axes(np.max, g.reshape(7, 3, 3), [1, 2])
    grade = np.vectorize(lambda s: "A" if s >= 7 else ("B" if s >= 4 else "C"))
    clipped = np.vectorize(lambda a, b: a if a < b else b, cache=True)
    add = np.frompyfunc(lambda a, b: a + b, 2, 1)
    return (hist, rng_, grade(g[0]), clipped(g[1], 5.0), add(np.arange(3), 10).astype(np.int64),
            add.reduce(np.arange(5)))


def index_loops(np):
    """Loops over ndindex and ndenumerate: a checkerboard written by index, the
    positions of the maximum, a neighbour count by loops, matching the
    vectorised result."""
    g = np.asarray(IMAGE[:4, :5])
    board = np.zeros((4, 5), dtype=np.int64)
    for i, j in np.ndindex(board.shape):
        board[i, j] = (i + j) % 2
    best = [idx for idx, v in np.ndenumerate(g) if v == g.max()]
    nbr = np.zeros_like(g)
    for (i, j), v in np.ndenumerate(g):
        nbr[i, j] = g[max(i - 1, 0):i + 2, max(j - 1, 0):j + 2].sum() - v
    shapes = list(np.ndindex(2, 1, 2)), list(np.ndindex(())), list(np.ndindex((0, 3)))
    return board, best, nbr, shapes


# ---- ufunc methods ----------------------------------------------------------------------

def ufunc_method_tour(np):
    """accumulate with dtype= on small integers (no wrap in int64), running
    maxima, reduceat over segment starts (including an empty-looking
    repeated start), outer of subtract and equal, at with repeated indices,
    reduce with initial= and where=, and over several axes."""
    u8 = np.asarray([200, 100, 50, 10], dtype=np.uint8)
    s = np.asarray(SIGNAL[:10])
    starts = np.asarray([0, 3, 3, 7])
    counts = np.zeros(5, dtype=np.int64)
    np.add.at(counts, np.asarray([0, 1, 1, 4, 4, 4]), 1)
    prod = np.ones(3)
    np.multiply.at(prod, np.asarray([0, 0, 2]), np.asarray([2.0, 3.0, 5.0]))
    g = np.asarray(IMAGE)
    return (np.add.accumulate(u8, dtype=np.int64), np.add.accumulate(u8),
            np.maximum.accumulate(s), np.minimum.accumulate(s[::-1]),
            np.add.reduceat(s, starts), np.maximum.reduceat(g, np.asarray([0, 2, 5]), axis=1),
            np.subtract.outer(np.arange(3), np.arange(4)),
            np.equal.outer(np.asarray([1, 2]), np.asarray([2, 1, 2])), counts, prod,
            np.add.reduce(g, axis=(0, 1)), np.maximum.reduce(g, axis=1, initial=5.0),
            np.add.reduce(g, axis=0, where=g > 3), np.multiply.reduce(np.asarray([], float)),
            np.logical_and.reduce(g > 0, axis=0), np.add.accumulate(g, axis=1, dtype=np.float32))
# ---- assembly and reorientation ---------------------------------------------------------

def tile_pipelines(np):
    """Images assembled by block, tile and repeat (nearest-neighbour
    upscaling), rotated and flipped, rolled across both axes, and stacked
    along new axes."""
    a = np.arange(6).reshape(2, 3)
    big = np.block([[a, np.zeros((2, 2), dtype=a.dtype)], [np.ones((1, 5), dtype=a.dtype)]])
    up = np.repeat(np.repeat(a, 2, axis=0), 3, axis=1)
    return (big, up, np.tile(a, (2, 1, 2)), np.rot90(a), np.rot90(a, -1),
            np.rot90(a, 2, axes=(1, 0)),
            np.flip(a), np.flip(a, axis=1), np.fliplr(a), np.flipud(a),
            np.roll(a, 1), np.roll(a, (1, -1), axis=(0, 1)), np.roll(a, 4, axis=1),
            np.stack((a, a + 10), axis=-1), np.dstack((a, a)), np.hstack((a, a)).shape,
            np.repeat(a, [1, 0, 2], axis=1), np.repeat(np.asarray(7), 3), np.tile(np.asarray(5), 3),
            np.block([np.asarray([1.0]), np.arange(3.0)]), np.concatenate((a, a), axis=None))


# ---- missing data ------------------------------------------------------------------------

def nan_statistics(np):
    """nan-aware statistics of a table with gaps: means, spreads with ddof,
    medians over axis tuples, percentiles, argmin/argmax that skip NaNs,
    running sums and products, counts of valid values."""
    t = np.asarray(NANNY)
    return (np.nanmean(t, axis=0), np.nanstd(t, axis=1, ddof=1), np.nanvar(t),
            np.nanmedian(t, axis=(0, 1)), np.nanmedian(t, axis=1, keepdims=True),
            np.nanpercentile(t, [10, 90], axis=0), np.nanargmin(t, axis=1), np.nanargmax(t),
            np.nancumsum(t, axis=1), np.nancumprod(t[:, :3], axis=0), np.nanprod(t, axis=0),
            np.nansum(t, axis=1), (~np.isnan(t)).sum(axis=0), np.nanmax(t, axis=0),
            np.nanquantile(t, 0.5, axis=1, method="midpoint"), np.nan_to_num(t, nan=-1.0))


def percentile_methods(np):
    """Percentiles by the classic methods over rows and columns of integer
    data (the result is float64), and with out=-free keepdims."""
    g = np.asarray(IMAGE).astype(np.int64)
    out = []
    for m in ("linear", "lower", "higher", "nearest", "midpoint"):
        out += [np.percentile(g, [25, 50, 75], axis=1, method=m),
                np.quantile(g, 0.3, axis=0, method=m, keepdims=True)]
    out.append(np.median(g, axis=0))
    return tuple(out)


# ---- sorting ----------------------------------------------------------------------------

def sorting_kinds(np):
    """Sorting with kind= (stable ranks of ties), descending by negation and
    by reversal, argsort of rows, ranks by double argsort, searchsorted of a
    sorted view through its sorter, lexsort for ties."""
    k = np.asarray(KEYS)
    v = np.asarray(VALUES[:16])
    order = np.argsort(k, kind="stable")
    ranks = np.argsort(np.argsort(v))
    g = np.asarray(IMAGE)
    srt = np.argsort(v)
    return (order, k[order], np.sort(k, kind="mergesort"), np.sort(v)[::-1],
            np.argsort(-k, kind="stable"),
            ranks, np.argsort(g, axis=0, kind="stable"), np.sort(g, axis=None)[-5:],
            np.searchsorted(v, np.asarray([2.0, 5.0, 11.0]), sorter=srt),
            np.searchsorted(v, np.asarray([2.0, 5.0]), side="right", sorter=srt),
            np.lexsort((v, k)), np.sort(g.T, axis=1, kind="heapsort")[:, :2],
            np.msort(g)[:2] if hasattr(np, "msort") else np.sort(g, axis=0)[:2])


def selection(np):
    """The k smallest and largest by partition/argpartition along both axes,
    with a negative kth, a median by partition, and values at kth."""
    v = np.asarray(VALUES)
    g = np.asarray(IMAGE)
    n = len(v)
    part = np.partition(v, n // 2)
    ap = np.argpartition(v, (2, -3))
    gp = np.partition(g, -2, axis=1)
    return (part[n // 2], np.median(v), np.sort(np.partition(v, 4)[:4]),
            np.sort(v[np.argpartition(v, -3)[-3:]]), v[ap[[2, -3]]], gp[:, -2],
            np.sort(np.partition(g, 2, axis=0)[:2], axis=0), np.partition(np.asarray([3]), 0))


# ---- elementwise choices and writes ------------------------------------------------------

def choices_and_writes(np):
    """select with a default and overlapping conditions, choose with
    mode='clip' and 'wrap', copyto with where= and casting, putmask with a
    shorter repeating value, place, extract, compress."""
    v = np.asarray(VALUES[:10])
    sel = np.select([v < 3, v < 6, v >= 9], [v * 0, v, -v], default=np.nan)
    idx = np.asarray([0, 1, 2, 3, -1, 5])
    ch = np.choose(idx, [np.arange(6), np.arange(6) * 10, np.arange(6) * 100], mode="clip")
    cw = np.choose(idx, [np.arange(6), np.arange(6) * 10, np.arange(6) * 100], mode="wrap")
    dst = np.zeros(10)
    np.copyto(dst, v, where=v > 5)
    ints = np.zeros(10, dtype=np.int64)
    np.copyto(ints, np.floor(v).astype(np.int64), where=v < 5)
    pm = v.copy()
    np.putmask(pm, v > 5, np.asarray([-1.0, -2.0]))
    pl = v.copy()
    np.place(pl, v < 3, np.asarray([100.0, 200.0, 300.0]))
    return (sel, ch, cw, dst, ints, pm, pl, np.extract(v > 7, v), np.compress(v > 7, v),
            np.compress([True, False, True], np.arange(6).reshape(3, 2), axis=0),
            np.choose(np.asarray(1), (3, 4)))


def geometry_products(np):
    """Cross products of 3-vectors and 2-vectors along chosen axes (axisa,
    axisb, axisc, axis), normals of triangles, Kronecker products of
    stencils, outer and inner products."""
    tri = np.asarray(STACK[0, :3, :3])
    e1 = tri[1] - tri[0]
    e2 = tri[2] - tri[0]
    normal = np.cross(e1, e2)
    cols = np.asarray(STACK[1, :3, :])
    rows = np.asarray(STACK[2, :, :3])
    return (normal, normal / np.linalg.norm(normal), np.cross(cols, rows, axisa=0, axisb=1),
            np.cross(cols, cols[::-1], axis=0), np.cross(rows, rows[::-1], axisc=0),
            np.cross(np.asarray([1.0, 2.0]), np.asarray([3.0, 4.0])),
            np.cross(np.asarray([[1, 0], [0, 1]]), np.asarray([0, 1])),
            np.kron(np.asarray([1, -2, 1]), np.asarray([[1], [2], [1]])),
            np.inner(rows[:2], rows[:2]), np.outer(e1, e2), np.vdot(e1, e2),
            np.cross(np.asarray([1, 2, 3]), np.asarray([4, 5, 6])))


def memory_views(np):
    """Reinterpreting bytes: float32 bits as int32 and back, int64 as two
    int32 words, uint8 pixels viewed as uint32 words, byte-swapped copies,
    and the explicit little-endian dtype."""
    f = np.asarray([1.0, -2.5, 0.15625], dtype=np.float32)
    bits = f.view(np.int32)
    exp = (bits >> 23) & 0xFF
    i64 = np.asarray([1, 2 ** 33 + 5], dtype=np.int64)
    px = np.arange(8, dtype=np.uint8)
    return (bits, exp, bits.view(np.float32), i64.view(np.int32), px.view(np.uint32),
            f.byteswap().view(np.uint32), np.asarray([1, 256], dtype=np.int16).byteswap(),
            np.asarray([1.5], dtype="<f8"), f.astype("<f4").dtype == f.dtype,
            px.reshape(2, 4).view(np.uint16).shape)
# ---- masked tables ----------------------------------------------------------------------

def masked_table(np):
    """A survey table with invalid cells: rows and columns holding a masked
    value dropped by compress_rows/compress_cols, masks widened with
    mask_rowcols, two masks merged by mask_or, weighted averages with
    returned=True, and a masked dot product."""
    t = np.ma.masked_invalid(np.asarray(NANNY))
    rows_ok = np.ma.compress_rows(t)
    cols_ok = np.ma.compress_cols(t)
    widened = np.ma.mask_rowcols(t, axis=0)
    both = np.ma.mask_or(np.ma.getmaskarray(t), np.asarray(NANNY) > 7)
    avg, wsum = np.ma.average(t, axis=1, weights=np.arange(1.0, 8.0), returned=True)
    return (rows_ok, cols_ok, np.ma.getmaskarray(widened), both, avg.filled(-1),
            np.ma.getdata(wsum),
            np.ma.dot(t, np.ones(7)).filled(-1), t.argmax(axis=1), t.argsort(axis=1)[0],
            np.ma.sort(t, axis=1, endwith=False)[2].filled(-1), t.sum(axis=0).filled(-1))


def masked_arithmetic(np):
    """Arithmetic of masked arrays: domain errors masked (log of negatives,
    division by zero), fill values carried through, a masked mean with a
    masked result, and masked comparisons counted."""
    x = np.ma.masked_array(np.asarray([4.0, -1.0, 0.0, 9.0, 2.0]),
                           mask=[False, False, False, False, True], fill_value=-99.0)
    y = np.asarray([2.0, 0.0, 0.0, 3.0, 1.0])
    q = x / y
    lg = np.ma.log(x)
    sq = np.ma.sqrt(x)
    none = np.ma.masked_all((3,))
    return (q.filled(), np.ma.getmaskarray(q), lg.filled(0), sq.filled(0), (x > 1).filled(False),
            (x > 1).sum(), x.filled(), int(none.count()), np.ma.is_masked(none.mean()),
            (x * 2).fill_value, np.ma.power(x, 2).filled(0))


# ---- shapes at the edges ----------------------------------------------------------------

def empty_and_scalar_inputs(np):
    """Reductions, sorts and set operations of empty and 0-d arrays, with
    initial= for empty maxima, keepdims over empty axes, and atleast_*."""
    e = np.zeros((0, 3))
    z = np.asarray(2.5)
    return (e.sum(axis=0), e.sum(axis=1), np.max(e, axis=0, initial=-1.0), e.prod(axis=0),
            np.sort(e, axis=0).shape, np.cumsum(e, axis=1).shape, np.unique(e).shape,
            np.concatenate((e, np.ones((1, 3)))), z.sum(), np.atleast_1d(z), np.atleast_2d(z).shape,
            np.atleast_3d(np.arange(3.0)).shape, np.argsort(np.asarray(3)),
            np.any(e, axis=0), np.all(e), np.count_nonzero(e, axis=1), np.mean(z),
            np.diff(np.arange(1.0)), np.cumprod(np.asarray(3)), np.nonzero(np.zeros(0))[0],
            np.expand_dims(z, (0, 1)).shape, np.squeeze(np.ones((1, 3, 1)), axis=2).shape)


def strided_and_broadcast_inputs(np):
    """Operations on views: reversed and stepped slices, transposes, and
    read-only broadcast views (summed, sorted into copies, matrix-multiplied),
    with broadcast_arrays of three operands."""
    g = np.asarray(IMAGE)
    rev = g[::-1, ::2]
    bt = np.broadcast_to(np.arange(4.0), (3, 4))
    a, b, c = np.broadcast_arrays(np.arange(3)[:, None], np.arange(4), np.asarray(5))
    return (rev.sum(axis=0), np.sort(rev, axis=1), rev.T @ rev, np.cumsum(g.T[2:, 1:4], axis=1),
            bt.sum(axis=0), np.sort(bt[::-1], axis=0), bt @ np.ones(4), a + b + c, c.shape,
            bt.strides, np.argmax(g[:, ::-1], axis=1), np.median(g[1::2, ::3], axis=0),
            np.ascontiguousarray(rev).flags.c_contiguous, np.unique(g[::2, ::2]))


# ---- calendars by integer arithmetic -----------------------------------------------------

def easter_dates(np):
    """Gregorian Easter for a run of years by the anonymous algorithm (floor
    division and remainders only), month lengths of every year, the weekday
    of each year's first day."""
    y = np.arange(1990, 2031)
    a = y % 19
    b, c = y // 100, y % 100
    d, e = b // 4, b % 4
    f = (b + 8) // 25
    g = (b - f + 1) // 3
    h = (19 * a + b - d - g + 15) % 30
    i, k = c // 4, c % 4
    l_ = (32 + 2 * e + 2 * i - h - k) % 7
    m = (a + 11 * h + 22 * l_) // 451
    month = (h + l_ - 7 * m + 114) // 31
    day = (h + l_ - 7 * m + 114) % 31 + 1
    leap = (y % 4 == 0) & ((y % 100 != 0) | (y % 400 == 0))
    lengths = np.tile(np.asarray([31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31]), (len(y), 1))
    lengths[:, 1] += leap
    py = y - 1
    jan1 = (1 + 5 * (py % 4) + 4 * (py % 100) + 6 * (py % 400)) % 7
    return month, day, lengths.sum(axis=1), jan1, np.bincount(month * 31 + day - 100)


def week_schedule(np):
    """A shift rota over weeks: day numbers reshaped into weeks, weekend
    masks, working-day counts per month by cumulative sums, and the n-th
    working day found by searchsorted on the cumulative count."""
    days = np.arange(365)
    weekday = (days + 3) % 7
    work = weekday < 5
    month_len = np.asarray([31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31])
    starts = np.concatenate(([0], np.cumsum(month_len)[:-1]))
    per_month = np.add.reduceat(work.astype(np.int64), starts)
    cum = np.cumsum(work)
    nth = np.searchsorted(cum, np.asarray([1, 20, 100, 250]))
    weeks = work[:364].reshape(52, 7)
    return per_month, nth, weeks.sum(axis=0), weeks.all(axis=1).sum(), cum[-1], weekday[nth]


# ---- games, puzzles and algorithms ------------------------------------------------------

def sudoku_check(np):
    """Validity of a solved sudoku grid by sorting rows, columns and boxes,
    and the cells a corrupted grid gets wrong by unique counts."""
    base = np.asarray([(3 * (r % 3) + r // 3 + c) % 9 + 1 for r in range(9) for c in range(9)])
    grid = base.reshape(9, 9)
    boxes = grid.reshape(3, 3, 3, 3).swapaxes(1, 2).reshape(9, 9)
    target = np.arange(1, 10)
    ok = (np.sort(grid, axis=1) == target).all() and (np.sort(grid.T, axis=1) == target).all() \
        and (np.sort(boxes, axis=1) == target).all()
    bad = grid.copy()
    bad[4, 4] = bad[4, 5]
    dup_rows = np.asarray([len(np.unique(r)) < 9 for r in bad])
    counts = np.apply_along_axis(lambda r: np.bincount(r, minlength=10)[1:], 1, bad)
    return bool(ok), dup_rows, counts.max(axis=1), boxes[4], np.argwhere(counts == 0)


def tic_tac_toe(np):
    """Winners of tic-tac-toe boards by sums along rows, columns and both
    diagonals over a stack of boards (+1/-1/0 cells)."""
    boards = np.asarray([[[1, 1, 1], [0, -1, 0], [-1, 0, -1]],
                         [[-1, 1, 0], [1, -1, 0], [0, 1, -1]],
                         [[1, -1, 1], [-1, 1, -1], [-1, 1, -1]],
                         [[0, 1, -1], [0, 1, -1], [1, 1, -1]]])
    lines = np.concatenate((boards.sum(axis=1), boards.sum(axis=2),
                            np.trace(boards, axis1=1, axis2=2)[:, None],
                            np.trace(np.flip(boards, axis=2), axis1=1, axis2=2)[:, None]), axis=1)
    winner = np.where((lines == 3).any(axis=1), 1, np.where((lines == -3).any(axis=1), -1, 0))
    return lines, winner, np.count_nonzero(boards == 0, axis=(1, 2))


def knapsack(np):
    """0/1 knapsack by dynamic programming over capacities with whole-row
    updates (np.maximum of shifted rows), and the chosen items traced back."""
    w = np.asarray([3, 4, 2, 5, 1])
    val = np.asarray([4.0, 5.0, 3.0, 8.0, 1.5])
    cap = 10
    table = np.zeros((len(w) + 1, cap + 1))
    for i in range(1, len(w) + 1):
        table[i] = table[i - 1]
        table[i, w[i - 1]:] = np.maximum(table[i - 1, w[i - 1]:],
                                         table[i - 1, :cap + 1 - w[i - 1]] + val[i - 1])
    chosen, c = [], cap
    for i in range(len(w), 0, -1):
        if table[i, c] != table[i - 1, c]:
            chosen.append(i - 1)
            c -= int(w[i - 1])
    return table, table[-1, -1], chosen


def interval_merge(np):
    """Overlapping intervals merged by sorting on starts, a running maximum of
    ends, and new groups where a start passes every previous end."""
    starts = np.asarray([5.0, 1.0, 8.0, 2.0, 15.0, 9.5])
    ends = np.asarray([7.0, 3.0, 10.0, 4.0, 16.0, 12.0])
    o = np.argsort(starts)
    s, e = starts[o], ends[o]
    reach = np.maximum.accumulate(e)
    new = np.concatenate(([True], s[1:] > reach[:-1]))
    group = np.cumsum(new) - 1
    first = np.flatnonzero(new)
    merged = np.stack((s[first], np.maximum.reduceat(e, first)), axis=1)
    return o, reach, group, merged, (merged[:, 1] - merged[:, 0]).sum()


def rank_correlations(np):
    """Spearman's rho by ranks from double argsort, Kendall's tau from the
    signs of all pairs (outer differences, upper triangle), Pearson by
    corrcoef, on tie-free data."""
    x = np.asarray(VALUES[:12])
    y = x ** 2 - 3 * np.asarray(SIGNAL[:12])
    rx = np.argsort(np.argsort(x)).astype(np.float64)
    ry = np.argsort(np.argsort(y)).astype(np.float64)
    rho = np.corrcoef(rx, ry)[0, 1]
    sx = np.sign(np.subtract.outer(x, x))
    sy = np.sign(np.subtract.outer(y, y))
    iu = np.triu_indices(len(x), 1)
    tau = (sx * sy)[iu].sum() / len(iu[0])
    return rx, ry, rho, tau, np.corrcoef(x, y), np.cov(x, y, ddof=0)
# ---- numbers ----------------------------------------------------------------------------

def integer_division_family(np):
    """divmod, fmod, remainder and floor_divide of negative integers and floats,
    with the sign rules of each, gcd of negatives, and abs of int8's minimum."""
    a = np.asarray([-7, -6, 5, 7, 0])
    b = np.asarray([2, -4, -3, 3, 5])
    q, r = np.divmod(a, b)
    fa = a.astype(np.float64) + 0.5
    return (q, r, np.fmod(a, b), np.remainder(a, b), np.floor_divide(a, b),
            np.divmod(fa, 2.0), np.fmod(fa, -2.0), np.gcd(a, b),
            np.abs(np.asarray([-128, 5], dtype=np.int8)),
            np.true_divide(a.astype(np.float64), b), a // 3, -a % 4, np.sign(a),
            np.negative(np.asarray([0, 200], dtype=np.uint8)))


def rounding_tools(np):
    """Rounding half to even, to negative decimals, fix/trunc/rint/floor/ceil
    of negatives, clip with array bounds and one-sided bounds, and modf."""
    x = np.asarray([-2.5, -1.5, -0.5, 0.5, 1.5, 2.5, 1234.5678, -0.0])
    lo = np.asarray([0.0, -1.0, -1.0, 0.0, 1.0, 2.0, 0.0, 0.0])
    frac, whole = np.modf(x)
    return (np.round(x), np.round(x, 2), np.round(x, -2), np.around(np.asarray([15, 25, -35]), -1),
            np.fix(x), np.trunc(x), np.rint(x), np.floor(x), np.ceil(x), np.clip(x, lo, 2.0),
            np.clip(x, None, 1.0), np.clip(x, lo, None), frac, whole,
            np.clip(np.asarray([1, 5, 9]), 2, 6))


def float_anatomy(np):
    """frexp/ldexp round trips, spacing and nextafter, copysign of zeros, the
    special values of sinc, heaviside and i0, and nan_to_num's fills."""
    x = np.asarray([0.1, 1.0, 3.0, 1e-300, 1e300, -6.5])
    m, e = np.frexp(x)
    inf = np.asarray([np.inf, -np.inf, np.nan, 1.0])
    return (m, e, np.ldexp(m, e), np.spacing(x), np.nextafter(x, np.inf) - x,
            np.copysign(np.asarray([0.0, 0.0, 1.0]), np.asarray([-1.0, 1.0, -0.0])),
            np.sinc(np.asarray([0.0, 0.5, 1.0, -1.5])),
            np.heaviside(np.asarray([-1.0, 0.0, 2.0]), 0.5),
            np.i0(np.asarray([0.0, 1.0, 2.5])), np.nan_to_num(inf, posinf=9.0, neginf=-9.0),
            np.nan_to_num(inf), np.isfinite(inf), np.isposinf(inf), np.signbit(np.asarray(-0.0)),
            np.ldexp(np.asarray([1.0, 1.0]), np.asarray([1023, 1024])), np.float_power(2, -2))


def bits_and_counts(np):
    """Population counts by np.bitwise_count, shifts of unsigned bytes that
    drop bits, Gray codes and back, bit reversal of bytes by a table, parity
    by xor reduction."""
    v = np.arange(16, dtype=np.uint8)
    gray = v ^ (v >> 1)
    back = gray.copy()
    shift = gray >> 1
    while shift.any():
        back ^= shift
        shift >>= 1
    table = np.asarray([int(f"{i:08b}"[::-1], 2) for i in range(256)], dtype=np.uint8)
    bits = np.unpackbits(v[:, None], axis=1)
    return (np.bitwise_count(v), v << 4, np.left_shift(v, 5), gray, back,
            table[np.asarray([1, 2, 128, 255], dtype=np.uint8)],
            np.bitwise_xor.reduce(bits, axis=1), np.bitwise_or.reduce(v),
            np.bitwise_and.accumulate(np.asarray([255, 127, 63, 200], dtype=np.uint8)),
            np.invert(np.asarray([0, 5], dtype=np.uint16)), np.bitwise_count(np.asarray([-1, 7])))


def index_finding(np):
    """Where things are: nonzero, argwhere, flatnonzero, where with one
    argument, the first index above a threshold by argmax of a mask (and
    its no-hit case), and the indices of each group's last element."""
    g = np.asarray(IMAGE)
    mask = g > 7
    first = np.argmax(mask, axis=1)
    hit = mask.any(axis=1)
    ids = np.sort(np.asarray(IDS))
    last = np.flatnonzero(np.diff(ids, append=ids[-1] + 1))
    return (np.nonzero(mask), np.argwhere(mask), np.flatnonzero(mask), np.where(mask),
            np.where(hit, first, -1), last, ids[last], np.argwhere(np.asarray(5)).shape,
            np.nonzero(np.asarray([0.0, 0.5, -0.0]))[0], np.transpose(np.nonzero(mask)).shape)


def sequences_and_grids(np):
    """Sample points by linspace (endpoint=False, retstep, 2-d endpoints along
    an axis), logspace with a base, geomspace of negatives, and a polar grid
    by meshgrid, hypot and arctan2."""
    pts, step = np.linspace(0, 1, 8, endpoint=False, retstep=True)
    ends = np.linspace(np.asarray([0.0, 10.0]), np.asarray([1.0, 20.0]), 5, axis=1)
    X, Y = np.meshgrid(np.linspace(-1, 1, 5), np.linspace(-1, 1, 4))
    r = np.hypot(X, Y)
    th = np.arctan2(Y, X)
    return (pts, step, ends, np.logspace(0, 3, 4, base=2), np.geomspace(-1, -1000, 4),
            np.geomspace(1, 256, 9, dtype=np.float32), r, th, np.degrees(th[0]),
            np.linspace(0, 10, 0), np.linspace(5, 5, 3), np.arange(0.5, 3), np.arange(10, 0, -3))


def triangles_and_diagonals(np):
    """Band matrices from tri/tril/triu with offsets, diag and diagflat of
    vectors with k, fill_diagonal with wrap on a tall matrix, and the
    indices of the upper triangle used for pairwise distances."""
    a = np.arange(1.0, 17.0).reshape(4, 4)
    tall = np.zeros((7, 3))
    np.fill_diagonal(tall, 5.0, wrap=True)
    p = np.asarray(PTS[:5])
    d = np.sqrt(((p[:, None] - p[None]) ** 2).sum(-1))
    iu = np.triu_indices(5, k=1)
    return (np.tri(4, 5, k=-1), np.tril(a, -1), np.triu(a, 1), np.triu(a, -1) - np.tril(a, 1),
            np.diag(np.asarray([1, 2, 3]), k=1), np.diag(a, k=-2),
            np.diagflat([[1, 2], [3, 4]], k=-1),
            tall, d[iu], np.eye(3, 4, k=1), np.identity(2, dtype=np.int64),
            np.tril_indices(3, k=0, m=4), np.diag_indices(3))


def splits_axes_and_shapes(np):
    """Splitting by sections and indices (array_split uneven, split at
    indices, hsplit/vsplit/dsplit), moveaxis/swapaxes/transpose with axes,
    resize repeating data, and trim_zeros of a padded signal."""
    x = np.arange(24).reshape(2, 3, 4)
    v = np.asarray([0, 0, 3, 1, 0, 2, 0, 0])
    return (np.array_split(np.arange(10), 4), np.split(np.arange(10), [2, 5, 12]),
            np.hsplit(x, 3)[1], np.vsplit(x, [1])[0].shape, np.dsplit(x, [1, 3])[2],
            np.moveaxis(x, 0, -1).shape, np.moveaxis(x, [0, 1], [-1, -2]).shape,
            np.swapaxes(x, 0, 2)[1], np.transpose(x, (1, 0, 2))[2], np.resize(np.arange(3), (2, 4)),
            np.trim_zeros(v), np.trim_zeros(v, "f"), np.array_split(x, 3, axis=2)[0].shape,
            np.resize(np.arange(4), 0).shape)


def complex_signals(np):
    """Phasors: angles in degrees, unwrapped phase of a chirp, real_if_close,
    conjugates and magnitudes, sorting by magnitude, and iscomplexobj."""
    t = np.linspace(0, 1, 30)
    z = np.exp(1j * 2 * np.pi * (3 * t + 4 * t ** 2))
    ph = np.unwrap(np.angle(z))
    near = np.asarray([1 + 1e-14j, 2 - 1e-15j])
    return (np.angle(z[:5], deg=True), ph, np.diff(ph)[:5], np.real_if_close(near),
            np.real_if_close(np.asarray([1 + 1j])), np.conj(z[:3]), np.abs(z[::7]),
            z[np.argsort(np.abs(z - 1))][:3], np.iscomplexobj(z), np.isrealobj(ph),
            np.unwrap(np.asarray([0, 350, 10, 340, 20]), period=360))


def distance_matrices(np):
    """All-pairs distances by broadcasting and by the expansion |a|^2 + |b|^2
    - 2ab, nearest neighbours excluding self by fill_diagonal, and a greedy
    nearest-neighbour tour."""
    p = np.asarray(PTS[:8])
    d = np.sqrt(((p[:, None, :] - p[None, :, :]) ** 2).sum(axis=-1))
    sq = (p ** 2).sum(1)[:, None] + (p ** 2).sum(1)[None, :] - 2 * p @ p.T
    d2 = d.copy()
    np.fill_diagonal(d2, np.inf)
    tour = [0]
    seen = np.zeros(8, dtype=bool)
    seen[0] = True
    for _ in range(7):
        row = np.where(seen, np.inf, d[tour[-1]])
        nxt = int(np.argmin(row))
        tour.append(nxt)
        seen[nxt] = True
    length = d[tour[:-1], tour[1:]].sum()
    return d, np.sqrt(np.maximum(sq, 0)), d2.argmin(axis=1), d2.min(axis=1), tour, length
# ---- more linear-algebra programs --------------------------------------------------------

def spectral_partition(np):
    """Two clusters of a graph by the Fiedler vector of its Laplacian (eigh),
    the algebraic connectivity, and the cut size, on a weighted adjacency
    built from distances; sign fixed so the first node is positive."""
    p = np.concatenate((np.asarray(PTS[:6]) * 0.5 - 1, np.asarray(PTS[6:12]) * 0.5 + 1))
    d2 = ((p[:, None] - p[None]) ** 2).sum(-1)
    W = np.exp(-d2)
    np.fill_diagonal(W, 0.0)
    L = np.diag(W.sum(1)) - W
    w, v = np.linalg.eigh(L)
    f = v[:, 1] * np.sign(v[0, 1])
    side = f > 0
    return w, f, side, W[side][:, ~side].sum(), np.allclose(L @ v, v * w)


def low_rank_approximation(np):
    """An image compressed by truncated SVD at several ranks: the error in the
    Frobenius and spectral norms equals the dropped singular values (the
    Eckart-Young theorem), and the storage each rank needs."""
    img = np.asarray(IMAGE)
    u, s, vt = np.linalg.svd(img, full_matrices=False)
    out = []
    for k in (1, 3, 5):
        approx = (u[:, :k] * s[:k]) @ vt[:k]
        out += [np.linalg.norm(img - approx), np.sqrt((s[k:] ** 2).sum()),
                np.linalg.norm(img - approx, 2), np.linalg.matrix_rank(approx),
                k * (img.shape[0] + img.shape[1] + 1)]
    return tuple(out) + (s, np.linalg.svd(img, compute_uv=False))


def power_iteration(np):
    """The dominant eigenpair of an SPD matrix by power iteration with a
    Rayleigh quotient, deflation for the second, and both against
    eigvalsh; inverse iteration by solve for the smallest."""
    A = np.asarray(SPD)
    x = np.ones(5)
    for _ in range(200):
        x = A @ x
        x /= np.linalg.norm(x)
    lam = x @ A @ x
    B = A - lam * np.outer(x, x)
    y = np.ones(5)
    for _ in range(400):
        y = B @ y
        y /= np.linalg.norm(y)
    z = np.ones(5)
    for _ in range(100):
        z = np.linalg.solve(A, z)
        z /= np.linalg.norm(z)
    ev = np.linalg.eigvalsh(A)
    return lam, y @ B @ y, z @ A @ z, ev, np.abs(x)


def orthogonalisation(np):
    """Gram-Schmidt by columns against np.linalg.qr (factors up to sign), the
    orthogonality of Q, R's triangle, and the complete mode's shapes."""
    A = np.asarray(DESIGN[:6])
    Q = np.zeros_like(A)
    R = np.zeros((3, 3))
    for j in range(3):
        v = A[:, j].copy()
        for i in range(j):
            R[i, j] = Q[:, i] @ A[:, j]
            v -= R[i, j] * Q[:, i]
        R[j, j] = np.linalg.norm(v)
        Q[:, j] = v / R[j, j]
    q, r = np.linalg.qr(A)
    s = np.sign(np.diag(r))
    qc, rc = np.linalg.qr(A, mode="complete")
    return (Q, R, q * s, r * s[:, None], Q.T @ Q, qc.shape, rc.shape,
            np.linalg.qr(A, mode="r").shape)


def ridge_paths(np):
    """Ridge regression over a path of penalties by the normal equations
    (solve with a stack of matrices), coefficients shrinking, and the same
    by an augmented lstsq."""
    X = np.asarray(DESIGN)
    y = np.asarray(TARGET)
    lams = np.asarray([0.0, 0.1, 1.0, 10.0])
    G = X.T @ X
    systems = G[None] + lams[:, None, None] * np.eye(3)
    coefs = np.linalg.solve(systems, np.broadcast_to(X.T @ y, (4, 3))[..., None])[..., 0]
    aug = np.vstack((X, np.sqrt(10.0) * np.eye(3)))
    via_lstsq = np.linalg.lstsq(aug, np.concatenate((y, np.zeros(3))), rcond=None)[0]
    return coefs, np.linalg.norm(coefs, axis=1), via_lstsq, np.diff(np.linalg.norm(coefs, axis=1))


# ---- images by lookup and windows ---------------------------------------------------------

def lookup_tables(np):
    """Gamma correction and thresholding of uint8 pixels by a 256-entry lookup
    table, the histogram of the result by bincount, and its cumulative
    distribution mapped back (equalisation)."""
    px = (np.asarray(IMAGE) * 28).astype(np.uint8)
    lut = np.round(255 * (np.arange(256) / 255.0) ** 0.5).astype(np.uint8)
    out = lut[px]
    hist = np.bincount(out.ravel(), minlength=256)
    cdf = np.cumsum(hist)
    eq = np.round((cdf[out] - cdf.min()) * 255.0 / (cdf.max() - cdf.min())).astype(np.uint8)
    return (out, np.nonzero(hist)[0], cdf[-1], eq, np.take(lut, px[0]),
            np.where(px > 128, 255, 0).astype(np.uint8))


def stencil_by_windows(np):
    """A 3x3 convolution written as einsum over sliding windows, matched by
    summed shifted slices; a separable blur by two 1-d convolutions along
    rows and columns with apply_along_axis."""
    img = np.asarray(IMAGE)
    k = np.asarray([[1.0, 2.0, 1.0], [2.0, 4.0, 2.0], [1.0, 2.0, 1.0]]) / 16
    win = np.lib.stride_tricks.sliding_window_view(img, (3, 3))
    by_einsum = np.einsum("ijkl,kl->ij", win, k)
    by_shifts = sum(k[a, b] * img[a:a + 5, b:b + 7] for a in range(3) for b in range(3))
    r = np.asarray([1.0, 2.0, 1.0]) / 4
    rows = np.apply_along_axis(lambda v: np.convolve(v, r, mode="valid"), 1, img)
    sep = np.apply_along_axis(lambda v: np.convolve(v, r, mode="valid"), 0, rows)
    return by_einsum, by_shifts, sep, np.tensordot(win, k, axes=([2, 3], [0, 1]))


def inventory_ledger(np):
    """Stock movements per item: sort by item, segment boundaries by
    unique(return_index=), per-item totals by add.reduceat, the running
    balance within each item, and items whose balance ever went negative."""
    item = np.asarray(IDS)
    qty = np.round(np.asarray(VALUES) - 5).astype(np.int64)
    o = np.argsort(item, kind="stable")
    si, sq = item[o], qty[o]
    u, starts = np.unique(si, return_index=True)
    totals = np.add.reduceat(sq, starts)
    run = np.cumsum(sq)
    lengths = np.diff(np.append(starts, len(sq)))
    offset = np.repeat(np.concatenate(([0], run[starts[1:] - 1])), lengths)
    balance = run - offset
    went_neg = np.minimum.reduceat(balance, starts) < 0
    return u, starts, totals, balance, u[went_neg], totals.sum() == qty.sum()


# ---- second wave: dtypes and corners ----------------------------------------------------

def ufunc_corners(np):
    """ufunc methods at their corners: reduceat with a non-increasing index
    (NumPy takes the single element), outer of 2-d operands, at with
    negative and 2-d indices, unary at, reduce with keepdims and initial on
    an empty axis, accumulate with a narrowing dtype."""
    a = np.arange(1.0, 9.0)
    g = np.arange(12).reshape(3, 4)
    acc = np.zeros((3, 4))
    np.add.at(acc, (np.asarray([0, 2, 2, -1]), np.asarray([1, 3, 3, 0])), 1.5)
    neg = np.arange(6.0)
    np.negative.at(neg, np.asarray([0, 2, 2]))
    s8 = np.asarray([100, 100, 100], dtype=np.int8)
    return (np.add.reduceat(a, np.asarray([0, 4, 1, 5])), np.add.reduceat(a, np.asarray([7])),
            np.multiply.outer(g[:2, :2], np.asarray([1, 10])), acc, neg,
            np.add.reduce(g, axis=1, keepdims=True),
            np.minimum.reduce(np.zeros((0, 2)), axis=0, initial=7.0),
            np.add.accumulate(s8), np.add.accumulate(s8, dtype=np.int16),
            np.add.reduce(np.asarray([200, 100], dtype=np.uint8), dtype=np.uint8),
            np.maximum.reduceat(g, np.asarray([0, 2]), axis=0), np.subtract.accumulate(a[:4]),
            np.logical_xor.reduce(np.asarray([True, True, False, True])),
            np.add.outer(np.asarray(2), np.arange(3)), np.multiply.reduce(g, axis=None))


def integer_results(np):
    """The result dtypes of programs on integer data: interp, gradient,
    trapezoid, histogram with integer weights, bincount with integer
    weights, cross and kron of ints, det/inv of an integer matrix,
    nanmean of ints, einsum of ints and bools."""
    xi = np.asarray([0, 2, 4, 6])
    yi = np.asarray([1, 5, 3, 9])
    m = np.asarray([[2, 1], [1, 3]])
    return (np.interp(np.asarray([1, 3, 7]), xi, yi), np.gradient(yi, xi), np.gradient(yi, 2),
            np.trapezoid(yi, xi), np.histogram(yi, bins=2, weights=np.asarray([1, 2, 3, 4])),
            np.bincount(xi // 2, weights=yi),
            np.cross(np.asarray([[1, 2, 3]]), np.asarray([4, 5, 6])),
            np.kron(m, np.asarray([[1, 0], [0, 1]], dtype=np.int8)), np.linalg.det(m),
            np.linalg.inv(m), np.nanmean(yi), np.einsum("ij,j->i", m, np.asarray([1, -1])),
            np.einsum("i,i->", np.asarray([True, False, True]), np.asarray([True, True, True])),
            np.linalg.matrix_power(m, 0), np.median(yi), np.average(yi, weights=xi + 1),
            np.cumsum(np.asarray([True, True, False])), np.ptp(yi),
            np.mean(np.asarray([1, 2], dtype=np.int8)))


def singular_linear_algebra(np):
    """Degenerate systems: slogdet and det of a singular matrix, matrix_rank of
    zeros, an underdetermined lstsq (empty residuals), 1-d and 2-d
    right-hand sides, complex Hermitian eigh and a complex SVD's values,
    pinv with hermitian=True."""
    sing = np.asarray([[1.0, 2.0], [2.0, 4.0]])
    wide = np.asarray([[1.0, 2.0, 3.0], [0.0, 1.0, 1.0]])
    herm = np.asarray([[2.0, 1 - 1j], [1 + 1j, 3.0]])
    c, r, k, s = np.linalg.lstsq(wide, np.asarray([1.0, 2.0]), rcond=None)
    c2, r2, _, _ = np.linalg.lstsq(np.asarray(DESIGN[:5]), np.asarray(DESIGN[:5, :2]), rcond=None)
    w, v = np.linalg.eigh(herm)
    return (np.linalg.slogdet(sing), np.linalg.det(sing), np.linalg.matrix_rank(np.zeros((3, 3))),
            c, r, k, s, c2, r2, w, np.abs(v), np.linalg.svd(herm, compute_uv=False),
            np.linalg.pinv(np.asarray(SPD), hermitian=True) @ np.asarray(SPD),
            np.linalg.eigvalsh(herm), np.linalg.norm(herm), np.linalg.det(herm))


def polynomial_domains(np):
    """Polynomial classes with explicit domain and window: evaluation of a
    mapped series, linspace over the domain, cast between kinds, basis and
    identity, fits with a degree list and weights, fit with a given domain,
    interpolate, and roots of a complex-rooted series."""
    P = np.polynomial
    c = P.Chebyshev([1.0, 2.0, 3.0], domain=[0, 10])
    xs, ys = c.linspace(5)
    leg = c.convert(kind=P.Legendre)
    b = P.Legendre.basis(3)
    x = np.asarray(XS)
    y = np.asarray(YS)
    f = P.Polynomial.fit(x, y, [0, 2, 4], w=np.linspace(1, 2, 25))
    g = P.Chebyshev.fit(x, y, 3, domain=[-2, 2])
    it = P.Chebyshev.interpolate(np.exp, 6, domain=[0, 2])
    return (c(np.asarray([0.0, 5.0, 10.0])), xs, ys, leg.coef, leg.domain, b.coef,
            P.Polynomial.identity(domain=[0, 2]).coef, f.coef, g.coef, g.domain,
            it(np.asarray([0.5, 1.5])), np.sort_complex(P.Polynomial([1.0, 0.0, 1.0]).roots()),
            c.mapparms(), (c - 1).coef, c.deriv(2).coef)


def generator_shapes(np):
    """Generator calls by shape and dtype: integers of int32/uint8, choice
    with p= in a 2-d shape and of a matrix's columns, normal with broadcast
    parameters, bytes' length, uniform with array bounds staying in them."""
    rng = np.random.default_rng(11)
    i32 = rng.integers(0, 10, size=(2, 3), dtype=np.int32)
    u8 = rng.integers(0, 256, size=5, dtype=np.uint8)
    pc = rng.choice(4, size=(2, 3), p=[0.1, 0.2, 0.3, 0.4])
    cols = rng.choice(np.arange(12).reshape(3, 4), 2, axis=1, replace=False)
    nrm = rng.normal(np.asarray([0.0, 100.0]), np.asarray([[1.0], [2.0], [3.0]]))
    lo = np.asarray([0.0, 5.0, -3.0])
    uni = rng.uniform(lo, lo + 1, size=(100, 3))
    return (i32.dtype == np.int32, i32.shape, u8.dtype == np.uint8, pc.shape,
            bool((pc >= 0).all() and (pc < 4).all()), cols.shape, int(np.unique(cols[0]).size),
            np.array_equal(cols[1] - cols[0], np.full(2, 4)), nrm.shape, len(rng.bytes(7)),
            bool(((uni >= lo) & (uni < lo + 1)).all()), (nrm[:, 1] > 50).all())


def set_corners(np):
    """unique of a 2-d array without axis (flat; NumPy 2 gives the inverse in
    the input's shape), the Array API's unique_* of 2-d data, intersect1d of
    2-d arrays, setdiff1d with assume_unique, isin kind='table', union1d
    of floats, unique of signed zeros."""
    m = np.asarray([[3, 1, 2], [1, 3, 3]])
    u, inv = np.unique(m, return_inverse=True)
    ua = np.unique_all(m)
    return (u, inv, u[inv], ua.values, ua.indices, ua.inverse_indices, ua.counts,
            np.unique_counts(m).counts, np.unique_inverse(m).inverse_indices,
            np.sort(np.unique_values(m)),
            np.intersect1d(m, np.asarray([[2, 9], [3, 8]])),
            np.setdiff1d(np.asarray([5, 1, 3]), np.asarray([3]), assume_unique=True),
            np.isin(m, np.asarray([1, 2]), kind="table"), np.isin(m, [7], kind="sort"),
            np.union1d(np.asarray([0.5, -1.0]), np.asarray([2.0, 0.5])),
            np.unique(np.asarray([0.0, -0.0, 1.0])), np.unique(m, return_counts=True)[1])


def writes_and_casts(np):
    """copyto with casting='unsafe' and a scalar source under where=, putmask
    with more values than the array, place with fewer (repeated), extract
    of a 2-d array, choose with out= and a raise mode error class, and
    select with scalar choices."""
    dst = np.zeros(5, dtype=np.int64)
    np.copyto(dst, np.asarray([1.7, -2.2, 3.9, 4.1, 5.5]), casting="unsafe")
    d2 = np.arange(5.0)
    np.copyto(d2, 9.0, where=np.asarray([True, False, True, False, False]))
    pm = np.arange(6.0)
    np.putmask(pm, pm > 3, np.arange(100.0, 110.0))
    pl = np.arange(8)
    np.place(pl, pl % 2 == 1, [-1, -2])
    g = np.arange(12).reshape(3, 4)
    out = np.empty(4, dtype=np.int64)
    np.choose(np.asarray([0, 1, 0, 1]), (g[0], g[1]), out=out)
    try:
        np.choose(np.asarray([0, 3]), (np.arange(2), np.arange(2)))
        err = None
    except ValueError:
        err = "ValueError"
    return (dst, d2, pm, pl, np.extract(g % 5 == 0, g), out, err,
            np.select([g < 3, g > 8], [-1, 1], default=0),
            np.select([np.asarray([True, False])], [np.asarray([1.5, 2.5])]))


def shapes_of_zero_d(np):
    """Reorientation and repetition of 0-d and size-1 arrays: roll, flip with
    axis=None, repeat without an axis, tile by a 2-d reps, rot90 over chosen
    axes of 3-d data, flip over an axis tuple, and a 3-d np.block."""
    z = np.asarray(4.0)
    c = np.arange(24).reshape(2, 3, 4)
    blk = np.block([[[np.zeros((1, 2, 2)), np.ones((1, 2, 1))]],
                    [[np.full((1, 2, 2), 2.0), np.full((1, 2, 1), 3.0)]]])
    return (np.roll(z, 3), np.flip(z), np.repeat(z, 3), np.tile(z, (2, 2)), np.roll(c, -2),
            np.rot90(c, 1, axes=(0, 2)), np.flip(c, axis=(0, 2)), blk, blk.shape,
            np.rot90(c, 3, axes=(1, 2)).shape, np.roll(c, (1, 1), axis=(2, 2)),
            np.repeat(c, 2, axis=-1).shape, np.tile(np.arange(3), 0).shape)


def nan_corners(np):
    """NaN handling at the edges: sort and argsort with NaNs and signed zeros
    (NaN last), argmax/argmin that meet NaN first, nanmedian of a row that
    is all NaN (NaN), nanpercentile over an axis tuple, nanmean of ints,
    fmax/fmin versus maximum/minimum, and np.nanmin of a mixed column."""
    x = np.asarray([3.0, np.nan, -0.0, 0.0, -1.0, np.nan, 2.0])
    t = np.asarray(NANNY).copy()
    t[1] = np.nan
    y = np.asarray([1.0, np.nan, 5.0])
    return (np.sort(x), np.argsort(x, kind="stable"), np.argmax(x), np.argmin(x), np.max(x),
            np.nanmedian(t, axis=1), np.nanpercentile(t, 40, axis=(0, 1)),
            np.nanpercentile(t, [5, 95], axis=1, method="nearest"),
            np.nanmean(np.asarray([1, 2, 4])), np.fmax(y, 2.0), np.maximum(y, 2.0),
            np.fmin(y, y[::-1]),
            np.nanmin(t, axis=0), np.isnan(np.nanmax(t, axis=1)), np.nanstd(t[:, :3], axis=0))


def einsum_corners(np):
    """einsum spellings at the edges: size-1 axes broadcast against full ones,
    a transposed (non-contiguous) operand's diagonal, integer operands
    under optimize=, an output order chosen by the subscripts, a 0-d
    operand, and einsum_path's chosen contraction list."""
    a = np.arange(6.0).reshape(1, 6)
    b = np.arange(12.0).reshape(2, 6)
    sq = np.arange(16.0).reshape(4, 4).T
    ints = np.arange(8).reshape(2, 4)
    path, _ = np.einsum_path("ij,jk,kl->il", np.ones((2, 3)), np.ones((3, 4)), np.ones((4, 5)),
                             optimize="greedy")
    return (np.einsum("ij,ij->ij", a, b), np.einsum("ii->i", sq), np.einsum("ii", sq[::2, ::2]),
            np.einsum("ij,kj->ik", ints, ints, optimize=True),
            np.einsum("ijk->kji", np.arange(24).reshape(2, 3, 4)),
            np.einsum(",i->i", np.asarray(2.0), np.arange(3.0)), path,
            np.einsum("i,i->i", np.arange(3), np.arange(3)),
            np.einsum("...,...->...", 3, np.arange(2)))


def scaled_accumulators(np):
    """In-place ufunc methods beyond add.at: a price ledger whose repeated
    discounts compound by divide.at and power.at (each occurrence applied
    to the result of the last), flag words set by bitwise_or.at, segment
    totals and peaks by reduceat with dtype=, and comparison and sum tables
    by outer with dtype=."""
    price = np.asarray([100.0, 80.0, 60.0, 40.0])
    np.divide.at(price, np.asarray([0, 2, 2, 2]), np.asarray([2.0, 1.25, 2.0, 0.5]))
    growth = np.asarray([1.0, 1.1, 1.2])
    np.power.at(growth, np.asarray([1, 1, 2]), np.asarray([2.0, 3.0, 0.5]))
    flags = np.zeros(5, dtype=np.int64)
    np.bitwise_or.at(flags, np.asarray([1, 1, 3, 4, 1]), np.asarray([1, 4, 2, 8, 1]))
    counts = np.asarray([3, 0, 2], dtype=np.int64)
    np.floor_divide.at(counts, np.asarray([0, 0]), 2)
    v = np.asarray(VALUES[:12])
    starts = np.asarray([0, 5, 5, 9])
    return (price, growth, flags, counts, np.add.reduceat(v, starts, dtype=np.float32),
            np.maximum.reduceat(v, starts, dtype=np.int64),
            np.add.reduceat(np.arange(12, dtype=np.int8) * 20, starts, dtype=np.int16),
            np.add.outer(np.arange(3), np.arange(4), dtype=np.float64),
            np.equal.outer(np.asarray([2, 3, 1]), np.asarray([1, 3]), dtype=bool),
            np.maximum.reduce(v + 0.5, dtype=np.int64), np.multiply.outer(v[:2], v[:3]))


def fold_chains(np):
    """Left folds of ufuncs that are not sums: a tower of exponents by
    power.accumulate, repeated halving by floor_divide.reduce, running
    remainders (a mixed-radix digit peel), the length of a path of
    orthogonal moves by hypot.accumulate, and change points by
    not_equal.accumulate of flags."""
    tower = np.asarray([2.0, 2.0, 0.5, 3.0])
    moves = np.asarray([[3.0, 4.0, 12.0], [5.0, 12.0, 84.0]])
    return (np.power.accumulate(tower), np.floor_divide.reduce(np.asarray([1000, 2, 3, 4])),
            np.remainder.accumulate(np.asarray([86400, 3600, 60, 7])),
            np.hypot.accumulate(moves, axis=1), np.hypot.reduce(moves, axis=0),
            np.not_equal.accumulate(np.asarray([True, False, False, True, True])),
            np.power.reduce(np.asarray([[2, 3], [3, 2]]), axis=1),
            np.subtract.accumulate(np.asarray([100.0, 30.0, 20.0])))


def masked_ufunc_methods(np):
    """A rain-gauge table with dead sensors, summarised by np.ma's ufunc
    methods: totals by add.reduce (a station with no readings stays
    masked), running totals by add.accumulate, the wettest and driest
    readings by maximum/minimum.reduce, and change between stations by
    subtract.reduce."""
    rain = np.ma.masked_less(np.asarray(GRADES) - 45.0, 0)
    rain[:, 3] = np.ma.masked
    return (np.ma.add.reduce(rain, axis=0).filled(-1), np.ma.add.reduce(rain, axis=1).filled(-1),
            np.ma.getdata(np.ma.add.accumulate(rain, axis=1)),
            np.ma.maximum.reduce(rain, axis=0).filled(-1),
            np.ma.minimum.reduce(rain, axis=1).filled(-1), float(np.ma.maximum.reduce(rain, None)),
            np.ma.subtract.reduce(rain[:, :2], axis=1).filled(0),
            np.ma.multiply.reduce(np.ma.masked_equal(np.asarray([2.0, 0.0, 3.0]), 0.0)))


def test_masked_programs():
    _run(gradebook)
    _run(masked_ranges)
    _run(masked_runs)
    _run(masked_table)
    _run(masked_arithmetic)
    _run(masked_ufunc_methods)


def test_windows_signals_and_calculus():
    _run(moving_filters)
    _run(correlations)
    _run(derivatives)
    _run(periodic_lookup)
    _run(stencil_by_windows)
    _run(lookup_tables)
    _run(complex_signals)


def test_linear_algebra_programs():
    _run(least_squares_report)
    _run(principal_axes)
    _run(matrix_diagnostics)
    _run(markov_powers)
    _run(tensor_equations)
    _run(spectral_partition)
    _run(low_rank_approximation)
    _run(power_iteration)
    _run(orthogonalisation)
    _run(ridge_paths)
    _run(singular_linear_algebra)
    _run(distance_matrices)


def test_einsum_and_polynomials():
    _run(einsum_paths)
    _run(einsum_corners)
    _run(polynomial_fits)
    _run(polynomial_algebra)
    _run(series_functions)
    _run(polynomial_domains)


def test_random_programs_by_properties():
    _run(generator_properties)
    _run(shuffled_batches)
    _run(generator_shapes)


def test_binning_sets_and_sorting():
    _run(binned_points)
    _run(grouped_sums)
    _run(set_algebra)
    _run(set_corners)
    _run(sorting_kinds)
    _run(selection)
    _run(nan_statistics)
    _run(nan_corners)
    _run(percentile_methods)
    _run(rank_correlations)
    _run(inventory_ledger)
    _run(interval_merge)


def test_functions_loops_and_ufunc_methods():
    _run(row_functions)
    _run(index_loops)
    _run(ufunc_method_tour)
    _run(ufunc_corners)
    _run(scaled_accumulators)
    _run(fold_chains)


def test_assembly_writes_and_shapes():
    _run(tile_pipelines)
    _run(choices_and_writes)
    _run(writes_and_casts)
    _run(geometry_products)
    _run(memory_views)
    _run(empty_and_scalar_inputs)
    _run(strided_and_broadcast_inputs)
    _run(shapes_of_zero_d)
    _run(splits_axes_and_shapes)
    _run(triangles_and_diagonals)
    _run(index_finding)
    _run(sequences_and_grids)


def test_numbers_calendars_and_games():
    _run(integer_division_family)
    _run(rounding_tools)
    _run(float_anatomy)
    _run(bits_and_counts)
    _run(integer_results)
    _run(easter_dates)
    _run(week_schedule)
    _run(sudoku_check)
    _run(tic_tac_toe)
    _run(knapsack)
