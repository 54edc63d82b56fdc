"""NumPy programs, sixth round: kinds the first five rounds
(tests/test_numpy_programs.py ... 5.py) do not cover -- rolling statistics
over np.lib.stride_tricks (sliding_window_view with axis=, as_strided lag
matrices), einsum with optimize= (True, 'greedy', 'optimal', a precomputed
einsum_path) and ellipses, np.linalg over stacks (solve with a broadcast b,
lstsq's four results, eigenvalues of a stack, multi_dot, negative
matrix_power, slogdet, cond, pinv), FFT work (rfftn/irfftn with s= and
axes=, fftshift over chosen axes, convolution by zero-padded transforms,
norm=, hfft), np.random.Generator patterns (by properties), the
np.polynomial classes (fit, convert, interpolate, linspace, cutdeg,
mapparms), binning pipelines (histogram2d/histogramdd with weights, density
and range, digitize, bin-edge rules), set operations (unique along axes,
intersect1d with indices, isin kinds, the Array API's unique_*), sorting by
keys (lexsort, stable argsort, partition with several kth, sort_complex),
masked writes (putmask, place, copyto(where=, casting=), select, choose,
compress), nan-functions (quantile methods, all-NaN rows), apply_along_axis/
apply_over_axes/vectorize(excluded=, otypes=)/frompyfunc with two outputs/
piecewise, ufunc methods (reduce with where= and initial=, accumulate,
reduceat, outer, at), np.pad modes (stat_length, reflect_type, callables),
interp/gradient/trapezoid/diff with coordinates and prepend/append, grids
and assembly (meshgrid sparse, mgrid with complex steps, ogrid, indices,
ix_, r_/c_ directives, block), portfolio statistics (cov with fweights and
aweights, corrcoef, average(returned=), drawdowns), image filters and grey
morphology by windows, dynamic programming with slice updates, Monte Carlo
over fixed draws, finite-difference PDE solvers (Crank-Nicolson, upwind,
Lax-Friedrichs, Jacobi), k-means++ and a silhouette, PCA by SVD, a Kalman
filter with an RTS smoother, Markov chains by matrix powers, a regression
report, record-like columns, nearest neighbours, 3-d rotations and
quaternions, a convex hull, quantisation and rounding, Thomas and Newton
solvers, splits and joins, Langton's ant and a forest fire -- run once with
NumPy and once with ``torchlike.numpy``, with round 4's oracle and
conventions (NumPy for values, dtypes and shapes; programs spelled around
the differences docs/numpy.md names; random inputs drawn once by NumPy).
Their NumPy/SciPy layers on the tape are tests/test_numpy_tape_programs2.py.

What they found, each with a program below ("what the programs found"):

- ``np.vectorize`` of a function returning strings raised "no dtype str32":
  its result became a tensor; strings and objects stay NumPy's arrays now,
  as frompyfunc's results and Generator.choice's strings do.
- ``np.linalg.multi_dot`` cast integer chains to float64 (NumPy keeps
  int64) and raised for a float32 beside a float64 operand: the products
  promote as dot's now.
- ``np.nanmax``/``np.nanmin`` with ``initial=``: an all-NaN (or masked out)
  slice gave NaN where NumPy's fmax.reduce gives the initial value; with
  ``where=`` the call left for NumPy's own host code.
- The namespace's ufuncs refused ``out=(y,)``, NumPy's one-element tuple
  (the form NumPy hands to ``__array_ufunc__``, which forwarding code keeps).
- Norms over empty axes (a batch with an empty feature axis) raised for
  every order that takes a maximum or minimum: NumPy gives 0 for the
  maxima (``ord=inf``, 1, 2), inf for a negative vector order, and
  ValueError for the minima.
- ``np.linalg.qr(a, mode="bogus")`` leaked the dispatcher's internal
  ``Unsupported`` error (NumPy: ValueError); ``np.bincount`` with complex
  weights raised NotImplementedError (NumPy: TypeError; torchlike's
  DtypeError is both now); ``ufunc.accumulate``/``reduceat`` along a
  missing axis raised IndexError (NumPy: AxisError) and accumulated a 0-d
  array (NumPy: TypeError).
- ``np.lib.array_utils.byte_bounds`` of a tensor raised AttributeError
  (NumPy's reads ``__array_interface__``): it reads the tensor's memory.
- The namespace's ``Polynomial``/``Chebyshev`` ... classes called on a
  tensor gave an ndarray (NumPy's call converts with np.asanyarray), so a
  device tensor, or one that requires grad, was refused: the call maps and
  evaluates with tensor ops now (the classes are NumPy's, subclassed).

The tape programs found the rest (np.cov with weights that require grad,
shape methods given an ndarray of sizes on the tape, tensorsolve, interp's
left/right, maximum/minimum/multiply.at on the tape, mean with out=): see
that file's docstring.

What differs by design, spelled around here: ``np.unique_values`` (NumPy
2.4 hashes, so its order is unspecified; the program sorts it);
``4 * hits / n`` of an integer count is float32 (PyTorch's promotion; the
program takes ``np.mean`` of the mask); the order of the elements on
either side of ``np.partition``'s kth, which NumPy leaves unspecified;
``np.copysign``, ``np.sqrt`` ... of integer arrays are float32 and
``np.stack`` of float16 with int16 is float16 (the documented promotion);
``np.nanmax`` of an all-NaN slice gives NaN without NumPy's RuntimeWarning
(as the other nan-functions: no host read for it).  Left as they are:
``np.linalg.det``/``inv`` of float16 compute in float32 where NumPy
refuses the dtype; ``np.linalg.cross`` of 2-vectors computes (NumPy 2
refuses; ``np.cross`` deprecates them); ``np.fft.fftshift`` of a 0-d
array returns it (NumPy raises); ``as_strided`` past the end of the memory
raises where NumPy reads whatever lies there."""
import numpy
import pytest

import torchlike
import torchlike.numpy as tnp
from test_numpy_programs import _run, _same

_RNG = numpy.random.default_rng(6)
SERIES = numpy.cumsum(_RNG.normal(0, 1, 48))
FIELD = _RNG.normal(0, 1, (7, 9))
MATS = _RNG.normal(0, 1, (4, 3, 3)) + 3 * numpy.eye(3)
RHS = _RNG.normal(0, 1, (2, 1, 3, 2))
DESIGN = _RNG.normal(0, 1, (20, 3))
TARGET = DESIGN @ numpy.asarray([1.5, -2.0, 0.5]) + 0.1 * _RNG.normal(0, 1, 20)
VOLUME = _RNG.normal(0, 1, (6, 5, 8))
CLOUD = _RNG.normal(0, 1, (60, 2)) * [1.0, 0.5] + [0.3, -0.2]
LABELS = _RNG.integers(0, 5, 40)
KEYS = _RNG.integers(0, 4, (3, 30))
TABLE = _RNG.integers(0, 3, (12, 3))
NANNY = numpy.where(_RNG.random((5, 6)) < 0.3, numpy.nan, _RNG.normal(10, 2, (5, 6)))
RETURNS = _RNG.normal(0.0005, 0.01, (250, 3))
IMAGE = _RNG.integers(0, 256, (10, 11), dtype=numpy.uint8)
UNIFORMS = _RNG.random((4000, 2))
GAUSS = _RNG.normal(0, 1, 4000)
MEASURED = numpy.cumsum(numpy.full(30, 0.5)) + _RNG.normal(0, 0.3, 30)
WEIGHTS6 = _RNG.integers(1, 4, 60)


def sliding_windows(np):
    """Rolling statistics over np.lib.stride_tricks.sliding_window_view:
    a moving mean, a rolling max and min, a rolling std with ddof, 2-d
    windows on chosen axes, windows with steps taken by slicing, and
    as_strided lagged copies of a series (read, never written)."""
    swv = np.lib.stride_tricks.sliding_window_view
    x = np.asarray(SERIES)
    w = swv(x, 5)
    mean = w.mean(axis=-1)
    roll_max = np.max(w, axis=1)
    roll_min = np.min(w, axis=-1)
    roll_std = np.std(w, axis=-1, ddof=1)
    f = np.asarray(FIELD)
    w2 = swv(f, (3, 4))
    w_axis = swv(f, 3, axis=0)
    w_both = swv(f, (2, 2), axis=(1, 0))
    stepped = swv(x, 4)[::3]
    lags = np.lib.stride_tricks.as_strided(x, shape=(len(x) - 3, 4),
                                           strides=(x.strides[0], x.strides[0]))
    return (mean, roll_max, roll_min, roll_std, w2.shape, w2.sum(axis=(-1, -2)),
            w_axis.shape, w_axis[2, 4], w_both.shape, w_both[1, 2], stepped,
            np.array_equal(lags, w[:, :4][: len(x) - 3]), lags[::7],
            swv(np.arange(5), 5), swv(np.arange(6.0)[::-1], 2)[:, ::-1])


def einsum_optimized(np):
    """np.einsum with optimize= (True, 'greedy', 'optimal', a precomputed
    path) and ellipses: batched products, bilinear forms, traces of stacks,
    a chain of four matrices, outer products and contractions to scalars."""
    A = np.asarray(MATS)
    B = np.asarray(VOLUME[:, :3, :3])[:4]
    v = np.asarray(FIELD[0, :3])
    chain = [np.asarray(FIELD[:3, :4]), np.asarray(FIELD[:4, 1:6]), np.asarray(VOLUME[0, :5, :4]),
             np.asarray(FIELD[2:6, :2])]
    path, text = np.einsum_path("ij,jk,kl,lm->im", *chain, optimize="optimal")
    return (np.einsum("...ij,...jk->...ik", A, B, optimize=True),
            np.einsum("bij,bjk->bik", A, B, optimize="greedy"),
            np.einsum("...ii->...", A), np.einsum("...ii->...i", A),
            np.einsum("i,bij,j->b", v, A, v, optimize="optimal"),
            np.einsum("ij,jk,kl,lm->im", *chain, optimize=path),
            np.einsum("ij,jk,kl,lm->im", *chain, optimize=True), path,
            np.einsum("i,j->ij", v, v), np.einsum("bij,bij->", A, B),
            np.einsum(A, [0, 1, 2], B, [0, 2, 3], [0, 1, 3]),
            np.einsum("...j,j", A, v), np.einsum("ji", A[0]),
            np.einsum("bii->b", A[:, ::-1, ::-1], optimize=True))


def batched_linalg(np):
    """np.linalg over stacks: solve with b broadcast against a stack,
    lstsq's four results, eigenvalues of stacked matrices (sorted),
    multi_dot, matrix_power with negative exponents, inv/det/slogdet/
    eigvalsh/svd/norm/cond/pinv of stacks."""
    A = np.asarray(MATS)
    b = np.asarray(RHS)
    x = np.linalg.solve(A, b)
    vec = np.linalg.solve(A, np.asarray(RHS[0, 0, :, 0]))
    X = np.asarray(DESIGN)
    coef, res, rank, sv = np.linalg.lstsq(X, np.asarray(TARGET), rcond=None)
    coef2, res2, _, _ = np.linalg.lstsq(X, np.stack([np.asarray(TARGET), X[:, 0]], axis=1),
                                        rcond=None)
    w = np.linalg.eigvals(A)
    w = np.sort_complex(w.astype(np.complex128))
    sym = A + np.swapaxes(A, -1, -2)
    sign, logdet = np.linalg.slogdet(A)
    u, s, vt = np.linalg.svd(A)
    return (x.shape, x, vec, coef, res, rank, sv, coef2, res2, w,
            np.linalg.multi_dot([A[0], A[1], A[2], A[3]]),
            np.linalg.matrix_power(A[0], -2), np.linalg.matrix_power(A[1], 0),
            np.linalg.matrix_power(np.asarray([[2, 1], [1, 1]]), 5),
            np.linalg.inv(A), np.linalg.det(A), sign, logdet, np.linalg.eigvalsh(sym), s,
            np.allclose(u @ (s[..., None] * vt), A), np.linalg.norm(A, axis=(1, 2)),
            np.linalg.norm(A, ord=2, axis=(-2, -1)), np.linalg.cond(A),
            np.linalg.pinv(A[:, :2, :]).shape, np.linalg.matrix_rank(A))


def fft_workflows(np):
    """FFT work: rfftn/irfftn with s= and axes=, fftshift/ifftshift over
    chosen axes, a 2-d convolution by zero-padded FFTs, norm= choices,
    hfft/ihfft, and transforms of strided views."""
    f = np.asarray(FIELD)
    spec = np.fft.rfftn(f, s=(8, 12), axes=(0, 1))
    back = np.fft.irfftn(spec, s=(8, 12), axes=(0, 1))
    vol = np.asarray(VOLUME)
    spec3 = np.fft.rfftn(vol, axes=(0, 2))
    back3 = np.fft.irfftn(spec3, s=(6, 8), axes=(0, 2))
    k = np.asarray([[0.0, 1.0, 0.0], [1.0, -4.0, 1.0], [0.0, 1.0, 0.0]])
    shape = (f.shape[0] + 2, f.shape[1] + 2)
    conv = np.fft.irfft2(np.fft.rfft2(f, s=shape) * np.fft.rfft2(k, s=shape), s=shape)
    direct = np.zeros(shape)
    for i in range(3):
        for j in range(3):
            direct[i:i + f.shape[0], j:j + f.shape[1]] += k[i, j] * f
    centred = np.fft.fftshift(np.fft.fft2(f), axes=(0, 1))
    freqs = np.fft.fftshift(np.fft.fftfreq(9, d=0.5))
    x = np.asarray(SERIES[:16])
    return (spec.shape, spec, back, spec3.shape, np.allclose(back3, vol), conv,
            np.allclose(conv, direct), np.abs(centred)[3], freqs,
            np.fft.ifftshift(centred, axes=0)[0], np.fft.fft(x, norm="ortho"),
            np.fft.ifft(x, norm="forward"), np.fft.rfft(x, n=20, norm="ortho"),
            np.fft.hfft(x[:9]), np.fft.ihfft(x), np.fft.fft(f[::2, ::3], axis=0),
            np.fft.fftn(vol[:, ::2, 1::3], axes=(2, 0)), np.fft.ifftshift(np.arange(7)))


def generator_patterns(np):
    """np.random.Generator as programs use it, compared by properties
    (shapes, dtypes, ranges, determinism): integers with endpoint= and
    dtype=, choice without replacement, permuted along an axis, shuffle of
    rows, dirichlet and multivariate_normal shapes, float32 draws, spawn."""
    rng = np.random.default_rng(42)
    ints = rng.integers(1, 6, size=(100,), endpoint=True)
    small = rng.integers(0, 10, size=(3, 4), dtype=np.int32)
    pick = rng.choice(20, size=8, replace=False)
    m = np.arange(12).reshape(3, 4)
    perm = rng.permuted(m, axis=1)
    rows = np.arange(10).reshape(5, 2)
    rng.shuffle(rows)
    d = rng.dirichlet([1.0, 2.0, 3.0], size=5)
    mv = rng.multivariate_normal([0.0, 1.0], [[1.0, 0.3], [0.3, 2.0]], size=(4, 2))
    f32 = rng.standard_normal((2, 3), dtype=np.float32)
    u = rng.uniform(-1, 1, 1000)
    a = np.random.default_rng(7).normal(size=5)
    b = np.random.default_rng(7).normal(size=5)
    children = rng.spawn(2)
    return (ints.shape, ints.dtype == np.int64, bool(ints.min() >= 1), bool(ints.max() <= 6),
            small.dtype == np.int32, len(np.unique(pick)), np.sort(perm, axis=1),
            np.sort(rows[:, 0]), bool((rows[:, 1] - rows[:, 0] == 1).all()), d.shape,
            np.allclose(d.sum(axis=1), 1.0), mv.shape, f32.dtype == np.float32,
            bool(np.abs(u).max() <= 1), np.array_equal(a, b), len(children),
            children[0].integers(0, 5, 3).shape)


def polynomial_classes(np):
    """np.polynomial classes: Polynomial.fit with its window, conversion to
    the power basis, Chebyshev.interpolate, Legendre.fit, linspace, deriv
    with m=, integ with k= and lbnd=, cutdeg/truncate, roots, basis and
    identity, cast between kinds, mapparms."""
    P, C, L = np.polynomial.Polynomial, np.polynomial.Chebyshev, np.polynomial.Legendre
    x = np.linspace(0, 4, 21)
    y = np.asarray(MEASURED[:21])
    p = P.fit(x, y, 3)
    pc = p.convert()
    xs, ys = p.linspace(5)
    ci = C.interpolate(np.cos, 6)
    lf = L.fit(x, np.sin(x), 4, domain=[0, 4])
    q = P([6.0, -5.0, 1.0])
    return (p.coef, p.domain, p.window, pc.coef, xs, ys, ci.coef, lf.coef, lf(x[::5]),
            q.deriv(m=2).coef, q.integ(m=2, k=[1.0, 2.0]).coef, q.integ(lbnd=1.0).coef,
            p.cutdeg(1).coef, p.truncate(2).coef, q.roots(), P.basis(3).coef,
            P.identity().coef, C.cast(q).coef, L.basis(2).convert(kind=P).coef,
            p.mapparms(), np.polynomial.chebyshev.chebder([1.0, 2.0, 3.0, 4.0], m=2),
            np.polynomial.polynomial.polyroots([6.0, -5.0, 1.0]))


def histogram_pipelines(np):
    """Binning pipelines: histogram2d with weights and density, histogramdd
    with range= and a list of bin counts, bincount with weights and
    minlength, digitize with right= and decreasing edges, searchsorted
    of bin centres, histogram_bin_edges by rule, a histogram of int data."""
    c = np.asarray(CLOUD)
    H, xe, ye = np.histogram2d(c[:, 0], c[:, 1], bins=(4, 3), weights=np.asarray(WEIGHTS6) * 1.0)
    Hd, xd, yd = np.histogram2d(c[:, 0], c[:, 1], bins=[np.linspace(-3, 3, 5), 3],
                                density=True)
    D, edges = np.histogramdd(np.asarray(VOLUME).reshape(-1, 4)[:, :3], bins=[2, 3, 4],
                              range=[(-2, 2), (-3, 3), (-1, 1)])
    lab = np.asarray(LABELS)
    counts = np.bincount(lab, minlength=8)
    wsum = np.bincount(lab, weights=np.asarray(SERIES[:40]))
    x = np.asarray(SERIES[:12])
    bins = np.asarray([-5.0, -2.0, 0.0, 2.0, 5.0])
    idx = np.digitize(x, bins)
    idx_r = np.digitize(x, bins, right=True)
    idx_dec = np.digitize(x, bins[::-1])
    centres = 0.5 * (bins[1:] + bins[:-1])
    hist_i, edges_i = np.histogram(lab, bins=5)
    return (H, xe, ye, Hd, xd, yd, D, edges, counts, wsum, idx, idx_r, idx_dec,
            np.searchsorted(centres, x), np.histogram_bin_edges(x, bins="fd"),
            np.histogram_bin_edges(x, bins="sturges", range=(-4, 4)),
            np.histogram_bin_edges(x, bins="auto"), hist_i, edges_i,
            np.histogram(x, bins=3, weights=np.abs(x), density=True))


def set_operations(np):
    """Set operations on ids: unique with return_index/inverse/counts, along
    axis 0 and axis 1, equal_nan; intersect1d with return_indices,
    setdiff1d with assume_unique, union1d, setxor1d, isin with invert and
    kind=, and the Array API's unique_* results."""
    t = np.asarray(TABLE)
    rows, first, inv, cnt = np.unique(t, axis=0, return_index=True, return_inverse=True,
                                      return_counts=True)
    cols, cinv = np.unique(t.T, axis=1, return_inverse=True)
    a = np.asarray([3, 1, 4, 1, 5, 9, 2, 6, 5, 3, 5])
    b = np.asarray([5, 3, 8, 9, 7, 9])
    common, ia, ib = np.intersect1d(a, b, return_indices=True)
    nan = np.asarray([1.0, np.nan, 2.0, np.nan, 1.0])
    u = np.unique_all(a)
    return (rows, first, inv, cnt, cols.shape, cinv, np.unique(a, return_index=True),
            np.unique(a, return_inverse=True), np.unique(nan), np.unique(nan, equal_nan=False),
            common, ia, ib, np.setdiff1d(a, b), np.setdiff1d(np.unique(a), np.unique(b),
                                                              assume_unique=True),
            np.union1d(a, b), np.setxor1d(a, b), np.isin(a, b), np.isin(a, b, invert=True),
            np.isin(a, b, kind="table"), np.isin(t, [0, 2]), u.values, u.indices,
            u.inverse_indices, u.counts, np.unique_counts(b).counts, np.sort(np.unique_values(b)),
            np.unique_inverse(t).inverse_indices.shape)


def sorting_keys(np):
    """Sorting by keys: lexsort of three keys (and of a 2-d key array),
    stable argsort of ties, partition and argpartition with several kth,
    sort_complex, sort along axis 0 of a strided view and with axis=None,
    searchsorted with sorter= into an unsorted array."""
    k = np.asarray(KEYS)
    order = np.lexsort((k[2], k[1], k[0]))
    order2 = np.lexsort(k)
    ties = np.asarray([3, 1, 3, 2, 1, 3, 2])
    f = np.asarray(FIELD)
    part = np.partition(f[0], (2, 5))
    apart = np.argpartition(f, (1, 4), axis=1)
    z = np.asarray([1 + 2j, 1 - 1j, -3 + 0j, 1 + 0j, -3 - 2j])
    sorter = np.argsort(f[1])
    return (order, order2, k[:, order], np.argsort(ties, kind="stable"),
            np.argsort(-ties, kind="stable"), part[[2, 5]], np.sort(part[:2]),
            np.take_along_axis(f, apart, axis=1)[:, [1, 4]], np.sort_complex(z),
            np.sort_complex(np.asarray([3, 1, 2])), np.sort(f[::2, ::-1], axis=0),
            np.sort(f, axis=None)[:5], np.searchsorted(f[1], [0.0, 0.5], sorter=sorter),
            np.argsort(f, axis=0, kind="stable")[:, 0], np.sort(k, axis=-1, kind="mergesort"),
            np.argsort(np.asarray([2, 0, 1])[None, :], axis=None))


def masked_updates(np):
    """Masked writes: np.where with broadcast operands, np.putmask with
    values recycled, np.place with a short list, np.copyto(where=) with a
    broadcast source and casting=, np.select with a default, np.extract,
    np.compress along an axis, np.choose with mode='clip'."""
    f = np.asarray(FIELD).copy()
    clipped = np.where(f > 1.0, 1.0, np.where(f < -1.0, -1.0, f))
    a = np.arange(10.0)
    np.putmask(a, a % 3 == 0, np.asarray([-1.0, -2.0]))
    b = np.arange(8)
    np.place(b, b > 3, [40, 50, 60])
    dst = np.zeros((3, 4))
    np.copyto(dst, np.arange(4.0), where=np.asarray([[True], [False], [True]]))
    ints = np.zeros(4, dtype=np.int64)
    np.copyto(ints, np.asarray([1.7, 2.2, -3.9, 4.0]), casting="unsafe")
    sel = np.select([f < -0.5, f > 0.5], [f * 10, -f], default=0.0)
    choice = np.choose(np.asarray([0, 3, 1, 2]), [np.arange(4), np.arange(4) * 10,
                                                  np.arange(4) * 100], mode="clip")
    rows = np.compress(np.asarray([True, False, True]), np.asarray(FIELD[:3]), axis=0)
    m = np.asarray(FIELD) > 0
    f2 = np.asarray(FIELD).copy()
    f2[m] = 0
    f2[:, 2][~m[:, 2]] = 5.0
    return (clipped, a, b, dst, ints, sel, choice, rows, np.extract(f > 1, f),
            np.compress([0, 1, 1], np.arange(6).reshape(2, 3), axis=1), f2,
            np.where(np.asarray([[True, False]]), np.asarray([[1], [2]]), 0))


def nan_statistics(np):
    """nan-functions: nanpercentile and nanquantile with methods, axes and
    keepdims, nanargmax/nanargmin (and the ValueError of an all-NaN row),
    nanmedian of a row that is all NaN, nancumsum/nancumprod, nanvar with
    ddof, nanmean and nansum with where=."""
    x = np.asarray(NANNY).copy()
    x[2] = np.nan
    out = [np.nanpercentile(x, 50, axis=1), np.nanquantile(x, [0.25, 0.75], axis=0),
           np.nanquantile(x, 0.3, method="nearest", axis=1),
           np.nanpercentile(x, 90, method="lower", axis=1, keepdims=True),
           np.nanquantile(x, 0.5, method="midpoint"), np.nanmedian(x, axis=1),
           np.nanmedian(x, axis=0, keepdims=True), np.nancumsum(x, axis=1),
           np.nancumprod(x[:, :2] / 10, axis=0), np.nanvar(x, axis=1, ddof=1),
           np.nanstd(x, axis=0), np.nanmean(x, axis=1), np.nansum(x), np.nanmax(x, axis=0),
           np.nanmin(x, axis=1), np.nanargmax(x[[0, 1, 3, 4]], axis=1),
           np.nanargmin(x[[0, 1, 3, 4]], axis=1), np.nanargmax(x), np.nanprod(x, axis=0)]
    try:
        np.nanargmax(x, axis=1)
        out.append("no error")
    except ValueError:
        out.append("ValueError")
    return out


def apply_functions(np):
    """Python functions over arrays: apply_along_axis with scalar, vector
    and matrix results, apply_over_axes, vectorize with excluded= and
    otypes=, frompyfunc with two outputs, piecewise with callables."""
    f = np.asarray(FIELD)
    spread = np.apply_along_axis(lambda r: r.max() - r.min(), 1, f)
    ranks = np.apply_along_axis(lambda r: np.argsort(np.argsort(r)), 0, f)
    outer = np.apply_along_axis(lambda r: np.outer(r[:2], r[:3]), 1, f)
    vol = np.asarray(VOLUME)
    summed = np.apply_over_axes(np.sum, vol, [0, 2])
    maxed = np.apply_over_axes(np.max, vol, (1,))

    def clipped_power(x, p, lo):
        return max(lo, x ** p)
    vpow = np.vectorize(clipped_power, excluded={"lo"}, otypes=[np.float64])
    vsign = np.vectorize(lambda v: "+" if v >= 0 else "-")
    divmod_py = np.frompyfunc(divmod, 2, 2)
    q, r = divmod_py(np.arange(7), 3)
    x = np.linspace(-2, 2, 9)
    pw = np.piecewise(x, [x < -1, (x >= -1) & (x < 1), x >= 1],
                      [lambda t: -t - 1, 0.0, lambda t: t ** 2 - 1])
    return (spread, ranks, outer.shape, outer[3], summed.shape, summed, maxed.shape,
            vpow(np.asarray([0.5, 2.0, 3.0]), 2, lo=1.5), vsign(f[0]),
            q.astype(np.int64), r.astype(np.int64), pw,
            np.piecewise(np.asarray(0.5), [True], [lambda t: t * 4]))


def ufunc_methods(np):
    """ufunc methods: reduce with where= and initial=, with tuple axes and
    dtype=, accumulate along axes, reduceat with repeated and decreasing
    indices, outer of two ufuncs, at with 2-d indices and repeats, and the
    logical and bitwise reductions."""
    f = np.asarray(FIELD)
    mask = f > 0
    vol = np.asarray(VOLUME)
    counts = np.zeros((3, 4), dtype=np.int64)
    np.add.at(counts, (np.asarray([0, 1, 1, 2, 0]), np.asarray([3, 3, 3, 0, 3])), 1)
    best = np.full(5, -np.inf)
    np.maximum.at(best, np.asarray(LABELS[:12]), np.asarray(SERIES[:12]))
    worst = np.asarray(SERIES[:5]).copy()
    np.minimum.at(worst, [0, 0, 4], [-9.0, -10.0, 3.0])
    bits = np.asarray([1, 2, 4, 8, 3], dtype=np.uint8)
    return (np.add.reduce(f, axis=1, where=mask), np.add.reduce(f, axis=0, where=mask,
                                                                initial=10.0),
            np.maximum.reduce(f, axis=1, where=mask, initial=-np.inf),
            np.minimum.reduce(f, axis=None, initial=0.0), np.multiply.reduce(vol[:2, :2, :2],
                                                                           axis=(0, 2)),
            np.add.reduce(np.arange(10, dtype=np.int8), dtype=np.int64),
            np.add.reduce(f, axis=(0, 1), keepdims=True), np.multiply.accumulate(f[:3], axis=1),
            np.maximum.accumulate(f, axis=0)[-1], np.subtract.accumulate(np.arange(6)),
            np.add.reduceat(np.arange(8), [0, 4, 1, 5]), np.add.reduceat(f, [0, 2, 2, 5], axis=1),
            np.minimum.reduceat(np.asarray(SERIES[:10]), [0, 3, 7]), np.subtract.outer(
                np.arange(3), np.arange(4)), np.power.outer(np.asarray([1.0, 2.0]), np.arange(3)),
            np.logical_and.outer([True, False], [True, True, False]), counts, best, worst,
            np.logical_and.reduce(mask, axis=0), np.logical_or.reduce(mask, axis=1),
            np.bitwise_or.reduce(bits), np.bitwise_xor.accumulate(bits),
            np.add.accumulate(np.ones((2, 3)), axis=1, dtype=np.int32))


def padding_modes(np):
    """np.pad as programs use it: constant_values per axis side, reflect
    with reflect_type='odd', symmetric and wrap wider than the array,
    edge, linear_ramp with end values, statistic modes with stat_length,
    a callable mode, and pads of 3-d data on chosen axes only."""
    f = np.asarray(FIELD[:3, :4])
    x = np.arange(1.0, 5.0)

    def pad_with(vector, pad_width, iaxis, kwargs):
        vector[:pad_width[0]] = kwargs.get("padder", 10)
        if pad_width[1]:
            vector[-pad_width[1]:] = kwargs.get("padder", 10)
    return (np.pad(f, ((1, 2), (2, 1)), constant_values=((-1, -2), (-3, -4))),
            np.pad(x, 3, mode="reflect", reflect_type="odd"),
            np.pad(x, (6, 7), mode="symmetric"), np.pad(x, (9, 5), mode="wrap"),
            np.pad(f, 1, mode="edge"), np.pad(x, (2, 3), mode="linear_ramp", end_values=(5, -5)),
            np.pad(f, 2, mode="maximum", stat_length=2),
            np.pad(f, ((1, 1), (0, 2)), mode="mean", stat_length=((2, 2), (3, 3))),
            np.pad(f, 1, mode="median"), np.pad(f, 1, mode="minimum"),
            np.pad(np.arange(6).reshape(2, 3), 2, pad_with),
            np.pad(np.arange(6).reshape(2, 3), 1, pad_with, padder=-7),
            np.pad(np.asarray(VOLUME), ((0, 0), (1, 1), (0, 0)), mode="wrap").shape,
            np.pad(np.arange(4, dtype=np.uint8), 2, mode="constant", constant_values=255),
            np.pad(x, (0, 0)), np.pad(np.asarray(3.0), 2))


def calculus(np):
    """Sampled calculus: interp with left/right and period, gradient with
    coordinate arrays, on chosen axes and edge_order=2, trapezoid with x=,
    dx= and axis=, diff with n=2 and prepend/append arrays, cumulative_sum
    with include_initial, and an integral by cumulative trapezoids."""
    x = np.asarray([0.0, 0.5, 1.5, 2.0, 3.5])
    y = np.sin(x)
    f = np.asarray(FIELD)
    xq = np.linspace(-1, 4, 11)
    ang = np.asarray([350.0, 10.0, 30.0, 200.0])
    gy, gx = np.gradient(f, np.arange(7.0) * 0.5, np.linspace(0, 2, 9))
    ct = np.concatenate([[0.0], np.cumsum(0.5 * (y[1:] + y[:-1]) * np.diff(x))])
    return (np.interp(xq, x, y), np.interp(xq, x, y, left=-1.0, right=np.nan),
            np.interp(ang, [0.0, 90.0, 180.0, 270.0], [0.0, 1.0, 0.0, -1.0], period=360),
            np.interp(2.25, x, y), np.gradient(y, x), np.gradient(y, x, edge_order=2),
            gy, gx, np.gradient(f, axis=1), np.gradient(f, 2.0, axis=0, edge_order=2),
            np.gradient(np.asarray(VOLUME), axis=(0, 2))[1][0, 0],
            np.trapezoid(y, x), np.trapezoid(f, dx=0.5, axis=0), np.trapezoid(f, axis=-1),
            np.diff(x, n=2), np.diff(f, axis=0, prepend=0.0)[0], np.diff(x, append=x[-1:]),
            np.diff(f, prepend=f[:, :1], append=np.zeros((7, 2)), axis=1).shape,
            np.cumulative_sum(x, include_initial=True), ct, np.diff(np.asarray([1, 4, 9]), n=3))


def grids_and_blocks(np):
    """Grids and assembly: meshgrid sparse and 'xy'/'ij', mgrid with a
    complex step, ogrid, indices sparse=True, ix_ with a bool mask, np.r_
    with slices and directive strings, np.c_, nested np.block."""
    xs, ys = np.meshgrid(np.arange(3.0), np.arange(4.0), sparse=True)
    X, Y, Z = np.meshgrid(np.arange(2), np.arange(3), np.arange(4), indexing="ij")
    mg = np.mgrid[0:1:5j, -1:1:3j]
    og = np.ogrid[0:3, 0:4]
    ind = np.indices((2, 3), sparse=True)
    f = np.asarray(FIELD)
    sub = f[np.ix_(np.asarray([True, False, True, False, False, True, False]), [0, 4, 8])]
    A = np.eye(2)
    B = np.zeros((2, 3))
    return (xs + ys, X.shape, (X + Y * Z)[1, 2], mg, og[0] * og[1], ind[0].shape,
            ind[1].shape, sub, np.r_[0:4, 9, -1:1:5j], np.r_["0,2", [1, 2], [3, 4]],
            np.r_["1,2,0", [1, 2], [3, 4]], np.r_["r", 1:4], np.c_[np.arange(3), np.ones(3)],
            np.c_[[1, 2], [[3, 4], [5, 6]]],
            np.block([[A, B], [np.ones((1, 2)), np.full((1, 3), 7.0)]]),
            np.block([[[1, 2]], [[3, 4]]]), np.block([np.arange(2), 5, np.arange(3)]),
            np.mgrid[0:4:2, 0:3].shape, np.r_[np.asarray([1, 2]), 0, np.asarray([3.5])],
            np.ix_([1, 2], [0, 3], [1])[2].shape)


def finance(np):
    """Portfolio statistics of daily returns: cov with fweights/aweights
    and ddof, corrcoef of columns (rowvar=False) and of two series,
    average with returned=, cumulative growth and drawdowns, annualised
    Sharpe ratios, value at risk by percentile, ptp, an exponentially
    weighted mean by convolution."""
    r = np.asarray(RETURNS)
    w = np.asarray([0.5, 0.3, 0.2])
    port = r @ w
    fw = np.asarray(WEIGHTS6)[np.arange(250) % 60]
    aw = np.linspace(0.5, 1.5, 250)
    growth = np.cumprod(1 + r, axis=0)
    peak = np.maximum.accumulate(growth, axis=0)
    dd = growth / peak - 1
    avg, wsum = np.average(r, axis=0, weights=aw, returned=True)
    alpha = 0.1
    kernel = alpha * (1 - alpha) ** np.arange(20)
    ewm = np.convolve(port, kernel)[:250]
    return (np.cov(r, rowvar=False), np.cov(r.T, fweights=fw), np.cov(r.T, aweights=aw),
            np.cov(r.T, fweights=fw, aweights=aw, ddof=0), np.cov(r[:, 0], r[:, 1], bias=True),
            np.corrcoef(r, rowvar=False), np.corrcoef(r[:, 0], r[:, 2]), avg, wsum,
            np.average(port, weights=aw), np.average(r, axis=1, weights=w).shape,
            growth[-1], dd.min(axis=0), np.argmin(dd, axis=0),
            np.mean(r, axis=0) / np.std(r, axis=0, ddof=1) * np.sqrt(252),
            np.percentile(port, 5), np.percentile(port, [1, 5], method="lower"),
            np.ptp(r, axis=0), ewm[-3:], np.var(port), np.cov(r.T)[0, 1])


def image_filters(np):
    """Image processing with plain arrays: a 3x3 box blur and a Gaussian
    blur by sliding windows and einsum, Sobel gradient magnitude, grey
    dilation/erosion/opening by max and min over windows, a median filter,
    a binary threshold and its morphological gradient, uint8 clipping."""
    swv = np.lib.stride_tricks.sliding_window_view
    img = np.asarray(IMAGE).astype(np.float64)
    padded = np.pad(img, 1, mode="reflect")
    win = swv(padded, (3, 3))
    box = win.mean(axis=(-1, -2))
    g = np.exp(-np.arange(-1, 2) ** 2 / 2.0)
    gk = np.outer(g, g) / np.outer(g, g).sum()
    gauss = np.einsum("ijkl,kl->ij", win, gk)
    sx = np.asarray([[-1, 0, 1], [-2, 0, 2], [-1, 0, 1]])
    gx = np.einsum("ijkl,kl->ij", win, sx)
    gy = np.einsum("ijkl,lk->ij", win, sx)
    mag = np.hypot(gx, gy)
    u8 = np.asarray(IMAGE)
    edge = np.pad(u8, 1, mode="edge")
    dil = swv(edge, (3, 3)).max(axis=(2, 3))
    ero = np.min(swv(edge, (3, 3)), axis=(2, 3))
    opening = np.max(swv(np.pad(ero, 1, mode="edge"), (3, 3)), axis=(2, 3))
    med = np.median(swv(edge, (3, 3)).reshape(u8.shape + (9,)), axis=-1)
    binary = u8 > 128
    bpad = np.pad(binary, 1)
    grad = swv(bpad, (3, 3)).any(axis=(2, 3)) & ~swv(bpad, (3, 3)).all(axis=(2, 3))
    sharp = np.clip(img + (img - gauss) * 2, 0, 255).astype(np.uint8)
    return (box, gauss, mag, dil, ero, opening, dil.dtype == np.uint8, med, grad,
            np.count_nonzero(grad), sharp, np.argmax(mag), dil - ero)


def dynamic_programs(np):
    """Dynamic programming with whole-row slice updates: edit distance row
    by row with np.minimum, longest common subsequence, 0/1 knapsack with
    np.maximum over shifted slices, coin change counts, the maximum
    subarray by cumulative sums, Pascal's triangle in place."""
    s, t = np.asarray(list(b"kitten")), np.asarray(list(b"sitting"))
    prev = np.arange(len(t) + 1)
    for i in range(1, len(s) + 1):
        cur = np.empty_like(prev)
        cur[0] = i
        sub = prev[:-1] + (s[i - 1] != t)
        for j in range(1, len(t) + 1):
            cur[j] = min(prev[j] + 1, cur[j - 1] + 1, sub[j - 1])
        prev = cur
    a, b = np.asarray([1, 3, 4, 1, 2, 3, 4, 1]), np.asarray([3, 4, 1, 2, 1, 3])
    L = np.zeros((len(a) + 1, len(b) + 1), dtype=np.int64)
    for i in range(1, len(a) + 1):
        match = a[i - 1] == b
        for j in range(1, len(b) + 1):
            L[i, j] = L[i - 1, j - 1] + 1 if match[j - 1] else max(L[i - 1, j], L[i, j - 1])
    weights, values, cap = np.asarray([2, 3, 4, 5]), np.asarray([3.0, 4.0, 5.0, 6.0]), 8
    best = np.zeros(cap + 1)
    for w, v in zip(weights, values):
        best[w:] = np.maximum(best[w:], best[:-w] + v) if w else best
    coins = np.asarray([1, 2, 5])
    ways = np.zeros(12, dtype=np.int64)
    ways[0] = 1
    for c in coins:
        for k in range(int(c), 12):
            ways[k] += ways[k - c]
    x = np.asarray(SERIES[:20]) - np.asarray(SERIES[1:21])
    cs = np.concatenate([[0.0], np.cumsum(x)])
    best_sub = np.max(cs - np.minimum.accumulate(cs))
    row = np.zeros(8, dtype=np.int64)
    row[0] = 1
    for _ in range(7):
        row[1:] = row[1:] + row[:-1]
    return prev, prev[-1], L, L[-1, -1], best, ways, best_sub, row


def monte_carlo(np):
    """Monte Carlo over fixed draws: an integral by the sample mean and its
    standard error, pi by hits in a quarter circle, importance sampling of
    a Gaussian tail, antithetic pairs, and Buffon's needle."""
    u = np.asarray(UNIFORMS)
    z = np.asarray(GAUSS)
    fx = np.exp(-u[:, 0] ** 2)
    est, se = fx.mean(), fx.std(ddof=1) / np.sqrt(fx.size)
    hits = np.sum(np.hypot(u[:, 0], u[:, 1]) <= 1.0)
    shifted = z + 3.0
    wts = np.exp(-3.0 * shifted + 4.5)
    tail = np.mean((shifted > 3.0) * wts)
    anti = 0.5 * (np.exp(u[:, 0]) + np.exp(1 - u[:, 0]))
    theta = u[:, 1] * np.pi / 2
    crosses = (u[:, 0] * 0.5) <= 0.5 * np.sin(theta)
    running = np.cumsum(fx) / np.arange(1, fx.size + 1)
    return (est, se, hits, 4 * np.mean(np.hypot(u[:, 0], u[:, 1]) <= 1.0), tail, anti.mean(),
            np.var(anti),
            2 / np.mean(crosses), running[[9, 99, 999, -1]],
            np.quantile(z, [0.025, 0.975]), np.histogram(z, bins=8, range=(-4, 4))[0])


def pde_solvers(np):
    """Finite differences: Crank-Nicolson for the heat equation with a
    tridiagonal matrix from np.diag (solved each step), upwind advection
    with np.roll, Burgers' equation by Lax-Friedrichs, 2-d heat with
    Neumann edges by np.pad(mode='edge'), the steady state by Jacobi."""
    n, dx, dt = 21, 1.0 / 20, 0.001
    x = np.linspace(0, 1, n)
    u = np.sin(np.pi * x)
    r = dt / dx ** 2
    main = np.full(n - 2, 1 + r)
    off = np.full(n - 3, -r / 2)
    A = np.diag(main) + np.diag(off, 1) + np.diag(off, -1)
    B = np.diag(np.full(n - 2, 1 - r)) + np.diag(-off, 1) + np.diag(-off, -1)
    for _ in range(20):
        u[1:-1] = np.linalg.solve(A, B @ u[1:-1])
    exact = np.exp(-np.pi ** 2 * 20 * dt) * np.sin(np.pi * x)
    q = np.where((x > 0.2) & (x < 0.4), 1.0, 0.0)
    for _ in range(10):
        q = q - 0.5 * (q - np.roll(q, 1))
    v = np.sin(2 * np.pi * x[:-1])
    for _ in range(5):
        f = 0.5 * v ** 2
        v = 0.5 * (np.roll(v, 1) + np.roll(v, -1)) - 0.1 * (np.roll(f, -1) - np.roll(f, 1))
    T = np.zeros((8, 8))
    T[3:5, 3:5] = 100.0
    for _ in range(15):
        p = np.pad(T, 1, mode="edge")
        T = T + 0.2 * (p[2:, 1:-1] + p[:-2, 1:-1] + p[1:-1, 2:] + p[1:-1, :-2] - 4 * T)
    S = np.zeros((6, 6))
    S[0] = 1.0
    for _ in range(50):
        S[1:-1, 1:-1] = 0.25 * (S[2:, 1:-1] + S[:-2, 1:-1] + S[1:-1, 2:] + S[1:-1, :-2])
    return u, np.abs(u - exact).max() < 1e-3, q, v, T, T.sum(), S, np.round(S, 3)


def kmeans_pp(np):
    """k-means with k-means++ seeding from fixed uniform draws: squared
    distances by the expanded norm (einsum), seeds by searchsorted into the
    cumulative weights, Lloyd steps with np.add.at sums, empty clusters
    kept, the silhouette of the result."""
    X = np.asarray(CLOUD)
    u = np.asarray(UNIFORMS[:4, 0])
    centres = [X[0]]
    for k in range(1, 4):
        C = np.asarray(centres)
        d2 = np.min(np.einsum("ij,ij->i", X, X)[:, None] - 2 * X @ C.T
                    + np.einsum("ij,ij->i", C, C)[None, :], axis=1)
        d2 = np.maximum(d2, 0.0)
        cdf = np.cumsum(d2) / d2.sum()
        centres.append(X[np.searchsorted(cdf, u[k])])
    C = np.stack(centres)
    for _ in range(8):
        dist = np.linalg.norm(X[:, None, :] - C[None], axis=-1)
        lab = dist.argmin(axis=1)
        sums = np.zeros_like(C)
        np.add.at(sums, lab, X)
        cnt = np.bincount(lab, minlength=len(C))
        C = np.where(cnt[:, None] > 0, sums / np.maximum(cnt, 1)[:, None], C)
    D = np.linalg.norm(X[:, None] - X[None], axis=-1)
    same = lab[:, None] == lab[None, :]
    a = np.sum(D * same, axis=1) / np.maximum(same.sum(axis=1) - 1, 1)
    b = np.min(np.where(same, np.inf, D), axis=1)
    sil = (b - a) / np.maximum(a, b)
    return C, lab, cnt, np.nanmean(sil), np.round(sil[:10], 6)


def pca(np):
    """PCA by SVD: centring, explained variance ratios, the sign convention
    that makes the largest loading positive, projections, whitening,
    reconstruction from k components, and the same by eigh of the
    covariance."""
    X = np.asarray(VOLUME).reshape(30, 8)
    Xc = X - X.mean(axis=0)
    U, s, Vt = np.linalg.svd(Xc, full_matrices=False)
    signs = np.sign(Vt[np.arange(len(Vt)), np.argmax(np.abs(Vt), axis=1)])
    Vt = Vt * signs[:, None]
    U = U * signs
    var = s ** 2 / (len(X) - 1)
    ratio = var / var.sum()
    scores = Xc @ Vt[:3].T
    white = scores / np.sqrt(var[:3])
    recon = scores @ Vt[:3] + X.mean(axis=0)
    evals, evecs = np.linalg.eigh(np.cov(Xc, rowvar=False))
    order = np.argsort(evals)[::-1]
    evals, evecs = evals[order], evecs[:, order]
    return (s, ratio, np.cumsum(ratio), np.searchsorted(np.cumsum(ratio), 0.9) + 1, scores,
            np.cov(white, rowvar=False), np.linalg.norm(X - recon), evals, var,
            np.abs(np.sum(evecs[:, :3] * Vt[:3].T, axis=0)), U[:3, :3])


def kalman(np):
    """A constant-velocity Kalman filter over noisy positions and the
    Rauch-Tung-Striebel smoother backwards, with batched covariance
    updates by einsum and np.linalg.inv, the innovations' likelihood by
    slogdet."""
    z = np.asarray(MEASURED)
    F = np.asarray([[1.0, 1.0], [0.0, 1.0]])
    H = np.asarray([[1.0, 0.0]])
    Q = 0.01 * np.eye(2)
    R = np.asarray([[0.09]])
    x = np.zeros(2)
    P = np.eye(2) * 10
    xs, Ps, xp, Pp = [], [], [], []
    loglik = 0.0
    for zk in z:
        x, P = F @ x, F @ P @ F.T + Q
        xp.append(x)
        Pp.append(P)
        S = H @ P @ H.T + R
        K = P @ H.T @ np.linalg.inv(S)
        y = zk - H @ x
        sign, logdet = np.linalg.slogdet(S)
        loglik = loglik - 0.5 * (logdet + y @ np.linalg.solve(S, y) + np.log(2 * np.pi))
        x = x + K @ y
        P = (np.eye(2) - K @ H) @ P
        xs.append(x)
        Ps.append(P)
    xs, Ps, xp, Pp = map(np.asarray, (xs, Ps, xp, Pp))
    xsm, Psm = xs.copy(), Ps.copy()
    for k in range(len(z) - 2, -1, -1):
        G = Ps[k] @ F.T @ np.linalg.inv(Pp[k + 1])
        xsm[k] = xs[k] + G @ (xsm[k + 1] - xp[k + 1])
        Psm[k] = Ps[k] + G @ (Psm[k + 1] - Pp[k + 1]) @ G.T
    traces = np.einsum("kii->k", Psm)
    return xs[-1], Ps[-1], xsm[::6], traces[::6], loglik, np.trace(Psm, axis1=1, axis2=2)[:3]


def markov_powers(np):
    """Markov chains by matrix powers: the n-step transitions, the
    stationary distribution as a limit and by solving (P^T - I) pi = 0 with
    a normalisation row (lstsq), an absorbing chain's fundamental matrix,
    expected steps and absorption probabilities, the negative power of an
    invertible transition matrix."""
    P = np.asarray([[0.5, 0.3, 0.2], [0.2, 0.6, 0.2], [0.1, 0.3, 0.6]])
    P10 = np.linalg.matrix_power(P, 10)
    P100 = np.linalg.matrix_power(P, 100)
    A = np.vstack([P.T - np.eye(3), np.ones(3)])
    pi = np.linalg.lstsq(A, np.r_[np.zeros(3), 1.0], rcond=None)[0]
    Q = np.asarray([[0.0, 0.5, 0.0], [0.5, 0.0, 0.5], [0.0, 0.5, 0.0]])
    Rr = np.asarray([[0.5, 0.0], [0.0, 0.0], [0.0, 0.5]])
    N = np.linalg.inv(np.eye(3) - Q)
    steps = N @ np.ones(3)
    B = N @ Rr
    stack = np.stack([P, P.T / P.T.sum(axis=1, keepdims=True)])
    dist = np.asarray([1.0, 0.0, 0.0])
    hist = [dist]
    for _ in range(5):
        dist = dist @ P
        hist.append(dist)
    return (P10, P100[0], pi, np.allclose(pi @ P, pi), N, steps, B,
            np.linalg.matrix_power(P, -1) @ P, np.linalg.matrix_power(stack, 3),
            np.linalg.matrix_power(stack, -2).shape, np.asarray(hist),
            np.linalg.matrix_power(np.asarray([[1, 1], [1, 0]], dtype=np.int64), 30))


def regression_report(np):
    """An ordinary least squares report: coefficients by lstsq, standard
    errors from inv(X^T X), t statistics, R^2 and adjusted R^2, the hat
    matrix's diagonal (leverage), Cook's distances, a ridge path over
    several penalties solved as a batch."""
    X = np.column_stack([np.ones(20), np.asarray(DESIGN)])
    y = np.asarray(TARGET)
    beta, ssr, rank, sv = np.linalg.lstsq(X, y, rcond=None)
    n, p = X.shape
    resid = y - X @ beta
    sigma2 = resid @ resid / (n - p)
    cov = sigma2 * np.linalg.inv(X.T @ X)
    se = np.sqrt(np.diag(cov))
    r2 = 1 - resid @ resid / np.sum((y - y.mean()) ** 2)
    hat = np.einsum("ij,jk,ik->i", X, np.linalg.inv(X.T @ X), X)
    cook = resid ** 2 / (p * sigma2) * hat / (1 - hat) ** 2
    lams = np.asarray([0.0, 0.1, 1.0, 10.0])
    ridge = np.linalg.solve(X.T @ X + lams[:, None, None] * np.eye(p), (X.T @ y)[None, :, None])
    return (beta, ssr, rank, sv, se, beta / se, r2, 1 - (1 - r2) * (n - 1) / (n - p - 1), hat,
            np.argmax(cook), ridge[..., 0], np.linalg.norm(ridge[..., 0], axis=1))




def record_columns(np):
    """A table kept as named columns (no structured dtype): sorting by two
    keys with lexsort, group boundaries by np.flatnonzero of np.diff, group
    sums by add.reduceat, a join by searchsorted, filtering with isin,
    ranks within groups, and a stable sort by a derived key."""
    ids = np.asarray(TABLE[:, 0] * 10 + TABLE[:, 1])
    dept = np.asarray(TABLE[:, 2])
    pay = np.asarray(SERIES[:12]) * 1000 + 50000
    order = np.lexsort((-pay, dept))
    d_sorted, p_sorted, i_sorted = dept[order], pay[order], ids[order]
    starts = np.flatnonzero(np.diff(d_sorted, prepend=-1))
    totals = np.add.reduceat(p_sorted, starts)
    counts = np.diff(np.append(starts, len(d_sorted)))
    rank = np.arange(len(order)) - np.repeat(starts, counts)
    lookup_keys = np.asarray([0, 1, 2])
    lookup_names = np.asarray([100, 200, 300])
    pos = np.searchsorted(lookup_keys, dept)
    senior = np.isin(ids, [0, 11, 21, 22])
    by_band = np.argsort(np.floor(pay / 1000), kind="stable")
    cols = {"id": i_sorted, "dept": d_sorted, "pay": p_sorted}
    top = {k: v[rank == 0] for k, v in cols.items()}
    return (order, starts, totals, counts, rank, lookup_names[pos], senior, by_band,
            top["id"], top["pay"], np.unique(dept, return_counts=True))


def nearest_points(np):
    """Nearest neighbours: a distance matrix by the expanded norm, k nearest
    by argpartition then a sort of the k, a Voronoi labelling of a grid,
    the closest pair by triu_indices, mutual neighbours."""
    P = np.asarray(CLOUD[:15])
    sq = np.sum(P ** 2, axis=1)
    D = np.sqrt(np.maximum(sq[:, None] + sq[None, :] - 2 * P @ P.T, 0.0))
    np.fill_diagonal(D, np.inf)
    k = 3
    part = np.argpartition(D, k, axis=1)[:, :k]
    knn = np.take_along_axis(part, np.argsort(np.take_along_axis(D, part, axis=1), axis=1), axis=1)
    gx, gy = np.meshgrid(np.linspace(-2, 2, 9), np.linspace(-1, 1, 5))
    grid = np.stack([gx.ravel(), gy.ravel()], axis=1)
    cell = np.argmin(np.linalg.norm(grid[:, None, :] - P[None, :4], axis=-1), axis=1)
    iu, ju = np.triu_indices(len(P), 1)
    c = np.argmin(D[iu, ju])
    nn = np.argmin(D, axis=1)
    mutual = np.flatnonzero(nn[nn] == np.arange(len(P)))
    return knn, cell.reshape(gx.shape), (iu[c], ju[c]), D[iu[c], ju[c]], mutual


def rotations(np):
    """3-d rotations: axis-angle to matrices by Rodrigues' formula for a
    stack, quaternion products and conversion, composition by matmul,
    orthogonality and determinants, angles recovered by arccos of a
    clipped trace, np.cross with axis= arguments."""
    axes = np.asarray([[0.0, 0.0, 1.0], [1.0, 1.0, 0.0], [1.0, 2.0, 3.0]])
    axes = axes / np.linalg.norm(axes, axis=1, keepdims=True)
    ang = np.asarray([0.3, 1.2, 2.5])
    K = np.zeros((3, 3, 3))
    K[:, 0, 1], K[:, 0, 2], K[:, 1, 2] = -axes[:, 2], axes[:, 1], -axes[:, 0]
    K = K - np.swapaxes(K, 1, 2)
    R = np.eye(3) + np.sin(ang)[:, None, None] * K + (1 - np.cos(ang))[:, None, None] * (K @ K)
    q = np.concatenate([np.cos(ang / 2)[:, None], np.sin(ang / 2)[:, None] * axes], axis=1)
    w1, v1 = q[0, 0], q[0, 1:]
    w2, v2 = q[1, 0], q[1, 1:]
    prod = np.concatenate([[w1 * w2 - v1 @ v2], w1 * v2 + w2 * v1 + np.cross(v1, v2)])
    back = np.arccos(np.clip((np.trace(R, axis1=1, axis2=2) - 1) / 2, -1, 1))
    comp = R[0] @ R[1]
    pts = np.asarray(CLOUD[:4])
    pts3 = np.column_stack([pts, np.ones(4)])
    return (R, np.allclose(R @ np.swapaxes(R, 1, 2), np.eye(3)), np.linalg.det(R), q, prod,
            back, comp, np.einsum("nij,pj->npi", R, pts3),
            np.cross(pts3.T, axes[0][:, None], axisa=0, axisb=0),
            np.cross(pts3, axes[1], axisc=0), np.cross(pts3, pts3[::-1]))


def convex_hull(np):
    """The convex hull of a point cloud by Andrew's monotone chain (lexsort,
    2-d cross products of differences in a Python loop), its area by the
    shoelace formula, and the points inside by half-plane tests."""
    P = np.asarray(CLOUD[:25])
    order = np.lexsort((P[:, 1], P[:, 0]))
    pts = P[order]

    def half(points):
        chain = []
        for p in points:
            while len(chain) >= 2:
                a, b = chain[-2], chain[-1]
                if (b[0] - a[0]) * (p[1] - a[1]) - (b[1] - a[1]) * (p[0] - a[0]) > 0:
                    break
                chain.pop()
            chain.append(p)
        return chain
    lower, upper = half(pts), half(pts[::-1])
    hull = np.asarray(lower[:-1] + upper[:-1])
    x, y = hull[:, 0], hull[:, 1]
    area = 0.5 * np.abs(np.dot(x, np.roll(y, -1)) - np.dot(y, np.roll(x, -1)))
    edges = np.roll(hull, -1, axis=0) - hull
    rel = P[:, None, :] - hull[None, :, :]
    inside = np.all(edges[None, :, 0] * rel[..., 1] - edges[None, :, 1] * rel[..., 0] >= -1e-12,
                    axis=1)
    return hull, area, np.count_nonzero(inside), order[:5]


def rounding_and_quantization(np):
    """Quantising signals: np.round half to even at several decimals, floor,
    ceil, trunc, fix and rint, divmod of negatives, a uniform quantiser to
    uint8 codes and back, np.digitize into level edges, a dithered
    quantiser, and float16 round trips."""
    x = np.asarray([-2.5, -1.5, -0.5, 0.5, 1.5, 2.5, 1.25, -1.35, 2.675])
    sig = np.asarray(SERIES[:16])
    lo, hi = sig.min(), sig.max()
    codes = np.round((sig - lo) / (hi - lo) * 255).astype(np.uint8)
    recon = codes.astype(np.float64) / 255 * (hi - lo) + lo
    edges = np.linspace(lo, hi, 5)
    levels = np.digitize(sig, edges[1:-1])
    dither = np.floor(sig * 4 + np.asarray(UNIFORMS[:16, 0])) / 4
    q, r = np.divmod(np.asarray([-7, -3, 3, 7]), 3)
    fq, fr = np.divmod(np.asarray([-7.5, 7.5]), 2.0)
    h = x.astype(np.float16)
    return (np.round(x), np.round(x, 1), np.around(x * 100, -1), np.floor(x), np.ceil(x),
            np.trunc(x), np.fix(x), np.rint(x), q, r, fq, fr, codes, np.abs(recon - sig).max(),
            levels, dither, h, h.astype(np.float64), np.round(np.asarray([15, 25, -35]), -1),
            np.fmod(np.asarray([-7, 7]), 3), np.remainder(np.asarray([-7.0, 7.0]), -3))


def thomas_and_newton(np):
    """A tridiagonal solver by the Thomas algorithm (forward sweep in a
    loop over rows, back substitution) checked against np.linalg.solve, and
    Newton's method for a 2-d nonlinear system with a finite-difference
    Jacobian built column by column."""
    n = 8
    a = np.full(n, -1.0)
    b = np.full(n, 2.5) + np.arange(n) * 0.1
    c = np.full(n, -1.0)
    d = np.asarray(SERIES[:n])
    cp, dp = np.zeros(n), np.zeros(n)
    cp[0], dp[0] = c[0] / b[0], d[0] / b[0]
    for i in range(1, n):
        m = b[i] - a[i] * cp[i - 1]
        cp[i] = c[i] / m
        dp[i] = (d[i] - a[i] * dp[i - 1]) / m
    xs = np.zeros(n)
    xs[-1] = dp[-1]
    for i in range(n - 2, -1, -1):
        xs[i] = dp[i] - cp[i] * xs[i + 1]
    A = np.diag(b) + np.diag(a[1:], -1) + np.diag(c[:-1], 1)

    def F(v):
        return np.asarray([v[0] ** 2 + v[1] ** 2 - 4.0, np.exp(v[0]) + v[1] - 1.0])
    v = np.asarray([1.0, -1.0])
    path = [v]
    for _ in range(8):
        J = np.empty((2, 2))
        for j in range(2):
            e = np.zeros(2)
            e[j] = 1e-7
            J[:, j] = (F(v + e) - F(v)) / 1e-7
        v = v - np.linalg.solve(J, F(v))
        path.append(v)
    return xs, np.allclose(A @ xs, d), np.linalg.solve(A, d), v, np.abs(F(v)).max() < 1e-9, \
        np.asarray(path)[:4]


def splits_and_joins(np):
    """Assembling and taking apart arrays: array_split into uneven parts,
    hsplit/vsplit/dsplit at indices, stack on a negative axis, dstack,
    column_stack of 1-d and 2-d, moveaxis with several axes, rollaxis,
    swapaxes, expand_dims with a tuple, squeeze of one axis, broadcast
    arrays and shapes, atleast_3d."""
    v = np.asarray(VOLUME)
    parts = np.array_split(np.arange(10), 4)
    h = np.hsplit(v, [1, 3])
    vs = np.vsplit(v, 3)
    ds = np.dsplit(v, [2, 2, 6])
    a, b = np.broadcast_arrays(np.arange(3)[:, None], np.arange(4))
    return ([p.shape for p in parts], parts[-1], [x.shape for x in h], vs[1][0, 0],
            [x.shape for x in ds], np.stack([v[0], v[1]], axis=-1).shape,
            np.dstack([np.arange(3), np.arange(3)]).shape, np.column_stack([np.arange(2),
                                                                           np.ones((2, 2))]),
            np.moveaxis(v, [0, 1], [-1, 0]).shape, np.rollaxis(v, 2, 1).shape,
            np.swapaxes(v, 0, 2)[1, 2], np.expand_dims(np.arange(3), (0, 2)).shape,
            np.squeeze(np.ones((1, 3, 1)), axis=2).shape, a + b,
            np.broadcast_shapes((6, 1, 8), (5, 1)), np.atleast_3d(np.arange(3)).shape,
            np.concatenate([v, v], axis=None).shape, np.vstack([np.arange(3), np.ones(3)]),
            np.hstack([np.asarray(1.0), np.arange(2.0)]), np.unstack(np.arange(6).reshape(2, 3),
                                                                    axis=1))


def langton(np):
    """Langton's ant on a small torus and a forest-fire cellular automaton
    with fixed draws: headings as complex rotations turned into index
    steps, neighbourhoods by np.roll, states updated with np.select."""
    grid = np.zeros((11, 11), dtype=np.int8)
    pos = np.asarray([5, 5])
    heading = 0
    steps = np.asarray([[-1, 0], [0, 1], [1, 0], [0, -1]])
    for _ in range(120):
        turn = 1 if grid[pos[0], pos[1]] == 0 else -1
        grid[pos[0], pos[1]] ^= 1
        heading = (heading + turn) % 4
        pos = (pos + steps[heading]) % 11
    state = np.where(np.asarray(UNIFORMS[:64, 0]).reshape(8, 8) < 0.6, 1, 0)
    state[3, 3] = 2
    u = np.asarray(UNIFORMS[64:576, 1]).reshape(8, 8, 8)
    for t in range(8):
        burning = state == 2
        near = np.zeros_like(burning)
        for dy, dx in ((0, 1), (0, -1), (1, 0), (-1, 0)):
            near |= np.roll(burning, (dy, dx), axis=(0, 1))
        state = np.select([burning, (state == 1) & near, (state == 0) & (u[t] < 0.05)],
                          [0, 2, 1], default=state)
    return grid, grid.sum(), pos, heading, state, np.bincount(state.ravel(), minlength=3)


def classifier_metrics(np):
    """A float32 classification pipeline: standardised features, a
    train/test split by a fixed permutation, logistic regression by
    gradient descent, a confusion matrix by np.add.at and by bincount of
    pair codes, precision/recall/F1 with errstate-guarded division, ROC
    points by argsort and cumsum, AUC by np.trapezoid, log loss with clip."""
    X = np.asarray(CLOUD[:40]).astype(np.float32)
    y = (X[:, 0] + 0.5 * X[:, 1] > 0.2).astype(np.int64)
    yf = y.astype(np.float32)
    X = (X - X.mean(axis=0, keepdims=True)) / X.std(axis=0, keepdims=True)
    perm = np.asarray(numpy.random.default_rng(3).permutation(40))
    tr, te = perm[:30], perm[30:]
    w = np.zeros(2, dtype=np.float32)
    b = np.float32(0.0)
    for _ in range(50):
        p = 1 / (1 + np.exp(-(X[tr] @ w + b)))
        g = p - yf[tr]
        w = w - np.float32(0.5) * (X[tr].T @ g) / len(tr)
        b = b - np.float32(0.5) * np.mean(g)
    score = 1 / (1 + np.exp(-(X @ w + b)))
    pred = (score > 0.5).astype(np.int64)
    cm = np.zeros((2, 2), dtype=np.int64)
    np.add.at(cm, (y, pred), 1)
    cm2 = np.bincount(2 * y + pred, minlength=4).reshape(2, 2)
    tp, fp, fn = cm[1, 1], cm[0, 1], cm[1, 0]
    with np.errstate(divide="ignore", invalid="ignore"):
        precision = np.divide(tp, tp + fp, dtype=np.float64)
        recall = np.divide(tp, tp + fn, dtype=np.float64)
    f1 = 2 * precision * recall / (precision + recall)
    order = np.argsort(-score, kind="stable")
    tps = np.cumsum(y[order])
    fps = np.cumsum(1 - y[order])
    tpr = np.concatenate([[0.0], tps / tps[-1]])
    fpr = np.concatenate([[0.0], fps / fps[-1]])
    eps = np.float32(1e-7)
    s = np.clip(score, eps, 1 - eps)
    loss = -np.mean(yf * np.log(s) + (1 - yf) * np.log(1 - s))
    onehot = np.eye(2, dtype=np.float32)[y]
    return (w, b, pred, cm, np.array_equal(cm, cm2), precision, recall, f1,
            np.trapezoid(tpr, fpr), loss, onehot.sum(axis=0), np.mean(pred[te] == y[te]),
            X.dtype == np.float32, score.dtype == np.float32)

# ---- the programs, by area -------------------------------------------------------------

@pytest.mark.filterwarnings("ignore::PendingDeprecationWarning")  # NumPy's, on np.r_["r", ...]
def test_arrays_windows_and_grids():
    _run(sliding_windows)
    _run(grids_and_blocks)
    _run(padding_modes)
    _run(masked_updates)
    _run(image_filters)


def test_linear_algebra_and_transforms():
    _run(einsum_optimized)
    _run(batched_linalg)
    _run(fft_workflows)
    _run(polynomial_classes)
    _run(markov_powers)
    _run(regression_report)
    _run(pca)
    _run(kalman)


@pytest.mark.filterwarnings("ignore::RuntimeWarning")  # NumPy's, on the all-NaN row
def test_statistics_sets_and_sorting():
    _run(classifier_metrics)
    _run(histogram_pipelines)
    _run(set_operations)
    _run(sorting_keys)
    _run(nan_statistics)
    _run(finance)
    _run(monte_carlo)
    _run(generator_patterns)


def test_functions_ufuncs_and_calculus():
    _run(apply_functions)
    _run(ufunc_methods)
    _run(calculus)


def test_algorithms_and_simulations():
    _run(dynamic_programs)
    _run(pde_solvers)
    _run(kmeans_pp)
    _run(thomas_and_newton)
    _run(langton)
    _run(convex_hull)


def test_tables_geometry_and_numbers():
    _run(record_columns)
    _run(nearest_points)
    _run(rotations)
    _run(rounding_and_quantization)
    _run(splits_and_joins)

# ---- what the programs found ---------------------------------------------------------------

def string_results(np):
    """np.vectorize of a function that returns strings (signs, labels): our
    vectorize turned NumPy's string result into a tensor and raised 'no
    dtype str32'; it stays NumPy's string array, as frompyfunc's objects do."""
    x = np.asarray([-1.5, 0.0, 2.0])
    label = np.vectorize(lambda v: "neg" if v < 0 else "pos")
    pair = np.vectorize(lambda v: (f"{v:.1f}", v * 2), otypes=[str, float])
    text, doubled = pair(x)
    return (label(x), label(x).dtype.kind, text, doubled,
            np.vectorize(lambda v: v, otypes=[object])(x).dtype == object)


def test_vectorize_keeps_string_and_object_results():
    _run(string_results)


def chained_products(np):
    """np.linalg.multi_dot of integer matrices (NumPy keeps int64, ours
    was float64) and of float64 with float32 operands (ours raised 'expected
    all operands to have the same dtype'): each product is dot's."""
    a = np.arange(6).reshape(2, 3)
    b = np.arange(12).reshape(3, 4)
    c = np.arange(4)
    f64 = np.ones((2, 3))
    f32 = np.ones((3, 2), dtype=np.float32)
    return (np.linalg.multi_dot([a, b, c]), np.linalg.multi_dot([a, b]),
            np.linalg.multi_dot([c, b.T, a.T]), np.linalg.multi_dot([f64, f32]),
            np.linalg.multi_dot([a, f32, np.eye(2)]), np.linalg.multi_dot([f64, f32, a]))


def test_multi_dot_promotes_as_dot():
    _run(chained_products)
    with pytest.raises(ValueError):
        tnp.linalg.multi_dot([tnp.ones((2, 3)), tnp.ones((2, 3))])
    a = torchlike.ones(2, 3, dtype=torchlike.float64, requires_grad=True)
    tnp.linalg.multi_dot([a, tnp.ones((3, 2), dtype=tnp.float32), tnp.arange(2.0)]).sum().backward()
    assert a.grad.tolist() == [[1.0] * 3] * 2


def nan_extremes_with_initial(np):
    """np.nanmax/np.nanmin with initial= (and where=): NumPy's fmax.reduce
    gives the initial value for a slice that is all NaN or masked out; ours
    gave NaN."""
    x = np.asarray([[np.nan, np.nan, 3.0], [np.nan, 1.0, np.nan]])
    keep = np.asarray([True, True, False])
    return (np.nanmax(x, axis=1, initial=-5.0), np.nanmin(x, axis=0, initial=2.0),
            np.nanmax(x, initial=0.0), np.nanmax(x, axis=1, where=keep, initial=-1.0),
            np.nanmin(x.astype(np.float32), axis=1, where=keep, initial=9.0, keepdims=True),
            np.nanmax(np.asarray([np.nan, np.nan]), initial=np.inf))


def test_nan_extremes_honour_initial():
    _run(nan_extremes_with_initial)
    for np in (numpy, tnp):   # a mask without initial: NumPy's ValueError
        with pytest.raises(ValueError):
            np.nanmax(np.asarray([1.0, np.nan]), where=np.asarray([True, False]))
    got = tnp.nanmax(tnp.asarray([[numpy.nan, numpy.nan], [1.0, numpy.nan]]), axis=1)
    _same(numpy.asarray([numpy.nan, 1.0]), got, "nanmax all-NaN row, no initial")


def out_tuples(np):
    """NumPy's ufuncs take out= as a one-element tuple (the form NumPy
    itself hands to __array_ufunc__, and code that forwards ``out`` keeps);
    the namespace's functions passed the tuple on and raised "argument
    'out' must be Tensor, not tuple"."""
    x = np.linspace(0.5, 2.0, 4)
    y = np.zeros(4)
    r1 = np.sqrt(x, out=(y,))
    z = np.zeros((2, 2))
    np.add(np.ones((2, 2)), np.eye(2), out=(z,))
    w = np.arange(4.0)
    np.multiply(w, 2, out=(w,), where=np.asarray([True, False, True, False]))
    return r1 is y, y, z, w, np.negative(x, out=(np.empty(4),)), np.maximum(x, 1.0, out=(x,))


def test_ufunc_out_as_a_one_element_tuple():
    _run(out_tuples)
    for np in (numpy, tnp):
        with pytest.raises(ValueError, match="one entry per ufunc output"):
            np.sqrt(np.ones(2), out=(np.ones(2), np.ones(2)))


def empty_norms(np):
    """Norms of empty vectors and matrices, as a batch with an empty
    feature axis meets them: torchlike's norms refused every order that
    takes a maximum or a minimum ("cannot compute the inf norm on an empty
    tensor"). NumPy's maxima of magnitudes start at 0, a negative vector
    order is inf; the minima raise ValueError (below)."""
    feats = np.zeros((3, 0))
    return (np.linalg.norm(feats, axis=1, ord=np.inf), np.linalg.norm(feats, axis=1, ord=-1),
            np.linalg.norm(feats, axis=1, ord=1, keepdims=True), np.linalg.norm(feats, ord=2),
            np.linalg.norm(feats, ord=1), np.linalg.norm(feats, ord=-np.inf),
            np.linalg.norm(feats.T, ord=-1), np.linalg.norm(feats, ord="nuc"),
            np.linalg.norm(np.zeros((2, 3, 0)), ord=np.inf, axis=(1, 2)),
            np.linalg.matrix_norm(np.zeros((0, 0)), ord=2),
            np.linalg.vector_norm(np.zeros(0, dtype=np.float32), ord=np.inf),
            np.linalg.norm(np.zeros((0, 2), dtype=np.complex128), ord=np.inf),
            np.linalg.norm(np.zeros((0, 3)), axis=1, ord=np.inf))


@pytest.mark.filterwarnings("ignore::RuntimeWarning")  # NumPy's, on 0 ** -1
def test_norms_of_empty_arrays_are_numpys():
    _run(empty_norms)
    for np in (numpy, tnp):
        for call in (lambda: np.linalg.norm(np.zeros(0), ord=-np.inf),
                     lambda: np.linalg.norm(np.zeros((2, 0)), ord=-2),
                     lambda: np.linalg.norm(np.zeros((2, 0)), ord=-1),
                     lambda: np.linalg.norm(np.zeros((0, 2)), ord=-np.inf),
                     lambda: np.linalg.matrix_norm(np.zeros((3, 0)), ord=-1)):
            with pytest.raises(ValueError, match="zero-size array"):
                call()
    x = torchlike.zeros(2, 0, dtype=torchlike.float64, requires_grad=True)
    r = tnp.linalg.norm(x, ord=2)
    r.backward()
    assert r.grad_fn is not None and tuple(x.grad.shape) == (2, 0)


def test_mistakes_raise_numpys_exception_classes():
    """qr's unknown mode leaked the dispatcher's internal Unsupported error;
    bincount's complex weights raised NotImplementedError (NumPy: TypeError;
    torchlike's DtypeError is both); ufunc.accumulate and reduceat along a
    missing axis raised a plain IndexError (NumPy: AxisError, which is also
    a ValueError), and of a 0-d array accumulate returned it (add) or raised
    ValueError (maximum) where NumPy raises TypeError."""
    for np in (numpy, tnp):
        with pytest.raises(ValueError, match="Unrecognized mode 'bogus'"):
            np.linalg.qr(np.ones((2, 3)), mode="bogus")
        for call in (lambda: np.add.accumulate(np.ones(3), axis=1),
                     lambda: np.maximum.accumulate(np.ones((2, 3)), axis=-3),
                     lambda: np.add.reduceat(np.ones(3), [0], axis=1)):
            with pytest.raises(np.exceptions.AxisError):   # a ValueError and an IndexError
                call()
        for call in (lambda: np.add.accumulate(np.asarray(3.0)),
                     lambda: np.maximum.accumulate(np.asarray(3.0)),
                     lambda: np.add.reduceat(np.asarray(3.0), [0])):
            with pytest.raises(TypeError, match="on a scalar"):
                call()
        with pytest.raises(TypeError):
            np.bincount(np.asarray([0, 2, 2]), weights=np.asarray([1 + 1j, 2, 3]))


def memory_extents(np):
    """np.lib.array_utils.byte_bounds of tensors (NumPy's reads
    ``__array_interface__``, which a tensor lacks: AttributeError), as a
    program checks how far views reach into their base's memory."""
    a = np.arange(24, dtype=np.int32).reshape(4, 6)
    lo0, _ = np.lib.array_utils.byte_bounds(a)
    spans = []
    for v in (a, a[:, ::2], a[::-1, 1:4], a.T, a[1:2, 3:4], a[:0], a[:0, ::2], a[2:3, 5]):
        lo, hi = np.lib.array_utils.byte_bounds(v)
        spans.append((lo - lo0, hi - lo0))
    back = np.arange(6.0)[::-2]
    lo, hi = np.lib.array_utils.byte_bounds(back)
    return spans, hi - lo, np.lib.array_utils.normalize_axis_index(-1, 3)


def test_byte_bounds_of_tensors():
    _run(memory_extents)


def fitted_series(np):
    """A fitted series evaluated on the program's arrays: the namespace's
    Polynomial(...)(t) and Chebyshev.fit(...)(t) gave NumPy's ndarrays (the
    class call converts with np.asanyarray), so a device tensor was refused."""
    x = np.linspace(0, 4, 9)
    y = np.exp(-x) * np.cos(x)
    P, C, H = np.polynomial.Polynomial, np.polynomial.Chebyshev, np.polynomial.HermiteE
    p, c = P.fit(x, y, 3), C.fit(x, y, 4)
    grid = np.linspace(0, 4, 6).reshape(2, 3)
    return (p(x), c(grid), P([1, 2, 3])(np.arange(3)), H([0.5, 1.0])(np.asarray(2.0)),
            np.polynomial.Legendre([1.0, 0.5], domain=[0, 2])(x[::2].astype(np.float32)),
            (p.deriv() + p)(x), c.convert(kind=P)(x))


def test_series_classes_evaluate_tensors():
    _run(fitted_series)
    got = fitted_series(tnp)
    assert all(isinstance(r, torchlike.Tensor) for r in got), [type(r) for r in got]
    assert issubclass(tnp.polynomial.Polynomial, numpy.polynomial.Polynomial)
    p = tnp.polynomial.Polynomial.fit(numpy.arange(4.0), numpy.arange(4.0) ** 2, 2)
    assert isinstance(p(2.5), float) and isinstance(p(numpy.arange(2.0)), numpy.ndarray)
