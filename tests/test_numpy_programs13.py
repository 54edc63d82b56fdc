"""NumPy programs, thirteenth round: kinds the first twelve rounds
(tests/test_numpy_programs.py ... 12.py) touch least, run once with NumPy
and once with ``torchlike.numpy`` (NumPy the oracle for values, dtypes and
shapes) -- ndarray method chains and structured reductions (a gradebook,
group-bys by bincount/ufunc.at/reduceat, weighted and nan-aware
statistics, reductions with dtype=, where=, initial= and on empty axes),
fancy indexing with assignment (repeated indices, masks over leading
axes, ix_ blocks, broadcast index arrays, flat and take with out=,
scatter/gather idioms), np.linalg (ridge regression by solve and lstsq,
Cholesky, pinv, cond in every norm, eigh/svd/qr modes, tensorsolve and
tensorinv, complex and non-symmetric eigenproblems, the namespace's
linalg functions), np.fft (periodograms, Parseval, FFT convolution and
filters, multi-dimensional and Hermitian transforms), np.random
Generator usage compared by what does not depend on the stream, einsum
programs (attention, bilinear forms, paths, integer and bool operands,
out=), stride tricks (moving windows, box blurs, frames), masked arrays
(sensor data, integers with domains, the np.ma function tour), sorting,
searching and set operations, text I/O through StringIO (savetxt,
loadtxt, genfromtxt, fromstring, array2string and the float formatters),
small simulations (inventory, images, interpolation, integer bit
programs) -- and, as a third use, layers written with NumPy on the
autograd tape (attention, rfft band energies, solve and slogdet, sorts,
sliding windows, piecewise losses, eigvalsh, log-add-exp accumulations),
checked against NumPy and finite differences, one trained with Adam.

What they found (each with a focused test in the test file of its area):

- ``np.ma`` ``count()`` of an array with a mask was a Python int where
  NumPy gives its intp sum (an int64 scalar; here a 0-d int64 tensor) --
  tests/test_numpy_ma.py.
- ``np.linalg.solve/inv/matrix_power/tensorsolve/tensorinv`` of a singular
  matrix and ``cholesky`` of one not positive definite failed with
  PyTorch's sentences where NumPy says "Singular matrix" / "Matrix is not
  positive definite" -- tests/test_numpy_namespace_more.py.

What differs by design (docs/numpy.md), spelled around here: ``x.nonzero()``
and ``x.repeat(2)`` are PyTorch's (the programs call ``np.nonzero``),
``s -= a[i]`` with a 0-d element writes through (the simulation iterates
``tolist()``), ``np.broadcast_to`` views are writeable, ``x.dtype`` is
torchlike's dtype (compared with ``==``), ``u8.sum()`` is int64 (the
programs pass ``dtype=``), and string arrays are not tensors.  (Slices
from ``np.ma.clump_masked`` hold NumPy's int64 bounds now, as NumPy's; the
program still converts them.)
"""
import io

import numpy
import pytest

import torchlike.numpy as tnp

from test_numpy_programs import _run

_RNG = numpy.random.default_rng(13)
F64 = _RNG.normal(0, 1, (6, 5))
F32 = _RNG.normal(0, 1, (5, 4)).astype(numpy.float32)
I64 = _RNG.integers(-20, 20, (6, 4))
I32 = _RNG.integers(0, 9, (4, 5)).astype(numpy.int32)
SCORES = _RNG.integers(40, 100, (8, 3))
PRICES = numpy.cumsum(_RNG.normal(0, 1, 30)) + 50
SIG = numpy.sin(numpy.arange(32) * 0.7) + 0.5 * numpy.cos(numpy.arange(32) * 2.1)
A44 = _RNG.normal(0, 1, (4, 4))
SPD = A44 @ A44.T + 4 * numpy.eye(4)
LABELS = _RNG.integers(0, 4, 20)
VALUES = _RNG.normal(0, 1, 20)


# ---- ndarray methods and structured reductions -----------------------------------------------

def gradebook(np):
    """A gradebook: per-student means with weights, argmax of columns, the
    ranks of students by total (argsort of argsort), curved grades clipped
    to 100 in place with out=, cumulative sums along both axes,
    ptp and the method forms of any/all with axis and keepdims."""
    s = np.asarray(SCORES)
    w = np.asarray([0.2, 0.3, 0.5])
    wavg = np.average(s, axis=1, weights=w)
    best = s.argmax(axis=0)
    total = s.sum(axis=1)
    ranks = total.argsort().argsort()
    curved = s + 7
    curved.clip(0, 100, out=curved)
    return (wavg, best, ranks, curved, s.cumsum(axis=0)[-1], s.cumsum(axis=1)[:, -1],
            np.ptp(s, axis=0), (s > 90).any(axis=1, keepdims=True), (s >= 40).all(),
            s.mean(axis=0).round(2), s.min(initial=60, axis=1), s.max(where=s < 90, initial=0, axis=0))


def grouped_reductions(np):
    """Group-by with bincount (counts and weighted sums), np.add.at for a
    per-label maximum via np.maximum.at, reduceat over sorted runs,
    ufunc.accumulate of maximum (running max), and the groups' means."""
    lab = np.asarray(LABELS)
    val = np.asarray(VALUES)
    counts = np.bincount(lab, minlength=5)
    sums = np.bincount(lab, weights=val, minlength=5)
    mx = np.full(5, -np.inf)
    np.maximum.at(mx, lab, val)
    order = np.argsort(lab, kind="stable")
    starts = np.flatnonzero(np.r_[True, np.diff(lab[order]) != 0])
    runs = np.add.reduceat(val[order], starts)
    acc = np.zeros(5)
    np.add.at(acc, lab, 1.0)
    with np.errstate(invalid="ignore", divide="ignore"):
        means = sums / counts
    return (counts, sums, mx, starts, runs, acc, means, np.maximum.accumulate(val),
            np.minimum.reduce(val.reshape(4, 5), axis=1), np.multiply.outer(counts[:3], counts[:2]))


def method_chains(np):
    """Ndarray methods chained as user code does: reshape/transpose/ravel
    with order, squeeze of chosen axes, swapaxes, repeat and the
    fill/flatten/copy methods, astype with copy=False reuse, conj, round of
    negative decimals, nonzero and trace/diagonal with offsets."""
    a = np.asarray(I64)
    f = np.asarray(F64)
    b = a.reshape(2, 3, 4).transpose(2, 0, 1)
    c = a.ravel(order="F")[:8]
    d = a[None, :, None, :].squeeze(axis=(0, 2))
    e = f.swapaxes(0, 1).flatten()[:6]
    g = np.zeros(3)
    g.fill(2.5)
    h = f.astype(np.float64, copy=False)
    return (b.shape, b[1], c, d.shape, e, g, h is f, (f * 1000).round(-2)[0],
            a.repeat(2, axis=0)[:3, 0], np.nonzero(np.asarray([3, 0, 1, 0]))[0],
            f[:5].trace(offset=1), f.diagonal(offset=-1), a.T.copy(order="C").flags.c_contiguous,
            a.prod(axis=0, dtype=np.float64), a.cumprod(axis=1)[0], f.var(axis=0, ddof=1))


def stable_statistics(np):
    """Weighted and nan-aware statistics: nanmean/nanstd/nanmedian and
    nanpercentile over axes of data with NaN holes, quantile with the
    methods NumPy lists, median of even and odd lengths, corrcoef and cov
    with rowvar=False, ddof, fweights and aweights."""
    x = np.asarray(F64.copy())
    x[1, 2] = np.nan
    x[4, 0] = np.nan
    with np.errstate(invalid="ignore"):
        q = [np.quantile(np.asarray(F64)[:, 0], 0.3, method=m)
             for m in ("linear", "lower", "higher", "nearest", "midpoint", "median_unbiased")]
    return (np.nanmean(x, axis=0), np.nanstd(x, axis=1, ddof=1), np.nanmedian(x, axis=0),
            np.nanpercentile(x, [10, 90], axis=0), np.nanmax(x), np.nanargmin(x, axis=0), q,
            np.median(np.asarray([3.0, 1.0, 2.0, 7.0])), np.median(np.asarray(I64), axis=1),
            np.corrcoef(np.asarray(F64), rowvar=False)[0],
            np.cov(np.asarray(F64), rowvar=False, ddof=0)[1],
            np.cov(np.asarray(F64[:, 0]), fweights=np.asarray([1, 2, 1, 3, 1, 1]),
                   aweights=np.asarray([0.5, 1.0, 2.0, 1.0, 1.0, 0.3])))


# ---- fancy indexing with assignment ------------------------------------------------------------

def fancy_assignment(np):
    """Fancy-indexed assignment: repeated indices (last write wins), a
    boolean mask assigned from an array of the masked count, 2-d integer
    index pairs, ix_ blocks, mixed slices and arrays, Ellipsis with a
    newaxis, augmented assignment with repeats (applied once), and
    negative indices in index arrays."""
    a = np.zeros(6, dtype=np.int64)
    a[np.asarray([1, 3, 1, 5])] = np.asarray([10, 20, 30, 40])
    b = np.asarray(F64.copy())
    m = b > 0.5
    b[m] = np.arange(int(m.sum()), dtype=np.float64)
    c = np.arange(20).reshape(4, 5)
    c[np.asarray([0, 2, 3]), np.asarray([4, 0, 1])] = -1
    c[np.ix_(np.asarray([1, 3]), np.asarray([0, 2]))] = np.asarray([[100], [200]])
    c[1:, np.asarray([1, 3])] *= 2
    d = np.zeros(5)
    d[np.asarray([0, 0, 2])] += 1.0
    e = np.arange(24).reshape(2, 3, 4)
    e[..., np.asarray([-1, 0])] = 0
    f = np.arange(12).reshape(3, 4)
    f[np.asarray([True, False, True])] = np.asarray([7, 8, 9, 10])
    return a, b, c, d, e, f, e[..., None, 1].shape, e[:, np.asarray([[0, 1], [2, 0]]), 1:3].shape


def scatter_gather_idioms(np):
    """take_along_axis of argsort and argpartition results (top-k per row),
    put_along_axis to write back, a one-hot matrix by fancy assignment,
    np.put with mode='clip', np.place and np.putmask, and the indices of
    the k largest values via unravel_index/ravel_multi_index."""
    x = np.asarray(F64)
    top = np.argsort(-x, axis=1)[:, :2]
    vals = np.take_along_axis(x, top, axis=1)
    y = x.copy()
    np.put_along_axis(y, top, 0.0, axis=1)
    onehot = np.zeros((6, 4), dtype=np.int8)
    onehot[np.arange(6), np.asarray([0, 3, 2, 1, 1, 0])] = 1
    p = np.arange(8)
    np.put(p, [0, 10, -20], [-1, -2, -3], mode="clip")
    q = np.arange(8)
    np.place(q, q % 3 == 0, [50, 60])
    r = np.arange(6.0)
    np.putmask(r, r > 2, np.asarray([9.0, 8.0]))
    flat = np.argpartition(x.ravel(), -3)[-3:]
    where = np.unravel_index(np.sort(flat), x.shape)
    return (vals, y, onehot, p, q, r, where, np.ravel_multi_index(where, x.shape),
            np.ravel_multi_index((np.asarray([7, -1]), np.asarray([2, 9])), (6, 5), mode=("clip", "wrap")))


# ---- linear algebra ----------------------------------------------------------------------------

def least_squares_and_solvers(np):
    """A ridge regression by solve of the normal equations against lstsq
    of the augmented system, the Cholesky factor's triangular solves, the
    pseudo-inverse with rcond, the condition numbers in several norms,
    slogdet and matrix_power of an SPD matrix."""
    A = np.asarray(F64)
    y = A @ np.asarray([1.0, -2.0, 0.5, 0.0, 3.0]) + 0.01
    lam = 0.1
    w1 = np.linalg.solve(A.T @ A + lam * np.eye(5), A.T @ y)
    aug = np.vstack([A, np.sqrt(lam) * np.eye(5)])
    w2, res, rank, sv = np.linalg.lstsq(aug, np.concatenate([y, np.zeros(5)]), rcond=None)
    S = np.asarray(SPD)
    L = np.linalg.cholesky(S)
    z = np.linalg.solve(L, np.ones(4))
    return (w1, w2, res, rank, sv, L, z, np.linalg.pinv(A, rcond=1e-3)[0],
            [np.linalg.cond(S, p) for p in (None, 1, -1, 2, -2, np.inf, "fro")],
            np.linalg.slogdet(S), np.linalg.matrix_power(S, 3)[0], np.linalg.matrix_power(S, -2)[1],
            np.linalg.matrix_rank(np.outer(np.arange(4.0), np.arange(3.0))))


def decompositions(np):
    """Eigendecomposition of a symmetric matrix (eigh, UPLO='U'),
    reconstructing it; SVD with full_matrices=False and singular values of
    a stack; QR in 'reduced', 'complete' and 'r' modes; norms of vectors
    and matrices with ord and axis; the determinant of a stack."""
    S = np.asarray(SPD)
    w, v = np.linalg.eigh(S, UPLO="U")
    rec = (v * w) @ v.T
    A = np.asarray(F64)
    u, s, vt = np.linalg.svd(A, full_matrices=False)
    q, r = np.linalg.qr(A)
    qc, rc = np.linalg.qr(A, mode="complete")
    ronly = np.linalg.qr(A, mode="r")
    stack = np.stack([S, 2 * S, S.T @ S])
    return (w, np.abs(rec - S).max() < 1e-10, s, np.abs((u * s) @ vt - A).max() < 1e-10,
            u.shape, np.abs(np.abs(r) - np.abs(ronly)).max() < 1e-10, qc.shape, rc.shape,
            np.linalg.svd(stack, compute_uv=False), np.linalg.det(stack),
            np.linalg.norm(A, ord=1), np.linalg.norm(A, ord=-np.inf), np.linalg.norm(A, "nuc"),
            np.linalg.norm(A, axis=0), np.linalg.norm(A[0], ord=3), np.linalg.norm(A[0], ord=0),
            np.linalg.eigvalsh(S, UPLO="L"), np.abs(q.T @ q - np.eye(5)).max() < 1e-10)


def linalg_multi_and_tensor(np):
    """multi_dot of a chain, tensorsolve and tensorinv round trips, inv of a
    stack, kron and outer, vdot of matrices, matrix_transpose and the
    linalg namespace's cross, vecdot, diagonal and outer."""
    A = np.asarray(F64)
    S = np.asarray(SPD)
    chain = np.linalg.multi_dot([A.T, A, np.ones(5), ])
    Ti = np.eye(6).reshape(2, 3, 6)
    X = np.linalg.tensorinv(Ti, ind=2)
    b = np.arange(6.0).reshape(2, 3)
    ts = np.linalg.tensorsolve(np.eye(6).reshape(2, 3, 2, 3), b)
    inv = np.linalg.inv(np.stack([S, S + np.eye(4)]))
    return (chain, X.shape, ts, inv[1, 0], np.kron(np.eye(2), np.asarray([[1, 2], [3, 4]])),
            np.vdot(S, S), np.linalg.matrix_transpose(A[:2]).shape,
            np.linalg.cross(np.asarray([1.0, 0, 0]), np.asarray([0.0, 1, 0])),
            np.linalg.vecdot(A, A, axis=0), np.linalg.diagonal(S, offset=1),
            np.linalg.outer(np.arange(3), np.arange(2)), np.linalg.trace(S, offset=-1),
            np.linalg.svdvals(S), np.linalg.matrix_norm(S, ord=2), np.linalg.vector_norm(S, ord=1))


# ---- FFT ---------------------------------------------------------------------------------------

def spectral_analysis(np):
    """A periodogram: rfft of a windowed signal, rfftfreq bins, the peak
    frequency, Parseval's identity, irfft round trips with n odd and even,
    fftshift/ifftshift of freq bins, fft with norm='ortho' and 'forward',
    and a 2-d fft2/ifft2 round trip with axes."""
    x = np.asarray(SIG)
    win = np.hanning(32)
    X = np.fft.rfft(x * win)
    f = np.fft.rfftfreq(32, d=0.1)
    power = np.abs(X) ** 2
    peak = f[np.argmax(power[1:]) + 1]
    parse = np.allclose(np.sum(np.abs(np.fft.fft(x)) ** 2) / 32, np.sum(x ** 2))
    odd = np.fft.irfft(np.fft.rfft(x[:31]), n=31)
    img = np.asarray(F64)
    F2 = np.fft.fft2(img, axes=(1, 0))
    return (X, f, peak, parse, odd, np.fft.irfft(X, n=32)[:4],
            np.fft.fftshift(np.fft.fftfreq(8)), np.fft.ifftshift(np.fft.fftfreq(7, d=2.0)),
            np.fft.fft(x[:8], norm="ortho"), np.fft.fft(x[:8], norm="forward"),
            np.fft.ifft2(F2, axes=(1, 0)).real, np.fft.rfftn(img, s=(4, 6), axes=(0, 1)).shape,
            np.fft.hfft(X[:5]), np.fft.ihfft(x[:8]), win[:4])


def fft_convolution_filters(np):
    """Linear convolution by zero-padded FFT against np.convolve (full,
    same, valid), circular convolution by FFT, a low-pass filter zeroing
    high rfft bins, and np.correlate against convolve of a reversed
    kernel."""
    x = np.asarray(SIG[:20])
    k = np.asarray([0.25, 0.5, 0.25, -0.1])
    n = len(x) + len(k) - 1
    fc = np.fft.irfft(np.fft.rfft(x, n) * np.fft.rfft(k, n), n)
    circ = np.fft.ifft(np.fft.fft(x) * np.fft.fft(k, 20)).real
    X = np.fft.rfft(x)
    X[5:] = 0
    low = np.fft.irfft(X, 20)
    return (np.allclose(fc, np.convolve(x, k)), np.convolve(x, k, "same"),
            np.convolve(x, k, "valid"), circ[:5], low[:5],
            np.correlate(x, k, "full")[:5], np.convolve(x, k[::-1])[:5],
            np.correlate(x, k))


# ---- random Generator --------------------------------------------------------------------------

def generator_by_properties(np):
    """Generator draws checked by what does not depend on the stream:
    shapes and dtypes of integers (endpoint, dtype), random(out=),
    choice without replacement (distinct, from the population), shuffle
    and permutation of an axis (same multiset), normal's broadcasting of
    loc/scale, spawn and bit_generator's presence, and reproducibility of
    two generators from one seed."""
    g = np.random.default_rng(5)
    ints = g.integers(0, 3, size=(4, 5), endpoint=True, dtype=np.int16)
    out = np.empty(6)
    g.random(out=out)
    ch = g.choice(10, size=6, replace=False)
    a = np.arange(12).reshape(3, 4)
    pa = g.permutation(a, axis=1)
    b = np.arange(10)
    g.shuffle(b)
    nrm = g.normal(np.asarray([0.0, 10.0, 100.0]), np.asarray([[1.0], [0.0]]))
    r1 = np.random.default_rng(9).random(4)
    r2 = np.random.default_rng(9).random(4)
    return (ints.shape, ints.dtype == np.int16, bool((ints >= 0).all() and (ints <= 3).all()),
            out.shape, bool(((out >= 0) & (out < 1)).all()), len(set(ch.tolist())),
            bool((ch < 10).all()), np.sort(pa, axis=1), np.sort(b), nrm.shape, nrm[1],
            bool(np.array_equal(r1, r2)), g.uniform(2.0, 2.0, 3),
            g.integers(5, size=0).shape, g.choice(np.asarray([7]), 3), g.binomial(5, 0.0, 4),
            g.poisson(0.0, 2), g.standard_normal(3, dtype=np.float32).dtype == np.float32)


# ---- einsum and stride tricks ------------------------------------------------------------------

def einsum_programs(np):
    """Einsum as user code writes it: batched bilinear forms, attention
    scores and weighted sums, a trace, an outer product with ellipsis, a
    diagonal extraction, implicit output, repeated-index sums over three
    operands, and einsum_path's chosen contraction."""
    A = np.asarray(F64)
    S = np.asarray(SPD)
    q = A[:4, :4].reshape(2, 2, 4)
    k = A[2:, :4].reshape(2, 2, 4)
    scores = np.einsum("bqd,bkd->bqk", q, k)
    w = np.exp(scores) / np.exp(scores).sum(-1, keepdims=True)
    ctx = np.einsum("bqk,bkd->bqd", w, k)
    path = np.einsum_path("ij,jk,kl->il", S, S, S, optimize="greedy")[0]
    return (np.einsum("ij,ij->i", A, A), np.einsum("ii", S), np.einsum("ii->i", S),
            scores, ctx, np.einsum("...i,...j->...ij", A[:2], A[:2, :3]).shape,
            np.einsum("ij,jk", S, S)[0], np.einsum("i,i,i->", A[0], A[1], A[2]),
            np.einsum("bi,ij,bj->b", A[:, :4], S, A[:, :4]), path,
            np.einsum(S, [0, 1], S, [1, 2], [0, 2])[1], np.einsum("ij->", np.asarray(I32)))


def stride_trick_programs(np):
    """sliding_window_view for a moving average and a rolling max over a
    price series, a 2-d window view for a 3x3 box blur, as_strided for
    overlapping frames and broadcast_to of a row (its copy writeable;
    the view's own flag differs by design, docs/numpy.md)."""
    from numpy.lib.stride_tricks import as_strided  # noqa: F401 - the module name only
    st = np.lib.stride_tricks
    p = np.asarray(PRICES)
    win = st.sliding_window_view(p, 5)
    ma = win.mean(axis=-1)
    rmax = win.max(axis=-1)
    img = np.asarray(F64)
    w2 = st.sliding_window_view(img, (3, 3))
    blur = w2.mean(axis=(-2, -1))
    x = np.arange(10.0)
    frames = st.as_strided(x, shape=(4, 4), strides=(2 * x.strides[0], x.strides[0]))
    row = np.broadcast_to(np.arange(3), (4, 3))
    return (ma[:5], rmax[-3:], w2.shape, blur, frames, row, row.copy().flags.writeable,
            st.sliding_window_view(img, 2, axis=0).shape, win.strides[1] == p.strides[0],
            np.lib.stride_tricks.sliding_window_view(np.arange(6), 3)[::2])


# ---- masked arrays -----------------------------------------------------------------------------

def masked_sensor_data(np):
    """Sensor readings with invalid values masked: masked_invalid and
    masked_where, the masked mean/std/sum along axes, filled with a value,
    the count of valid entries, compressed, a mask propagated by
    arithmetic, masked_outside and the fill_value."""
    raw = np.asarray(F64.copy())
    raw[0, 1] = np.nan
    raw[3, 3] = np.inf
    m = np.ma.masked_invalid(raw)
    m2 = np.ma.masked_where(np.asarray(F64) > 1.0, np.asarray(F64))
    prod = m * 2 + m2
    mo = np.ma.masked_outside(np.asarray(F64), -0.5, 0.5)
    return (m.mean(axis=0).filled(0.0), m.std(axis=1).filled(-1.0), m.sum(),
            m.count(axis=0), np.ma.getmaskarray(prod).sum(), prod.filled(99.0)[0],
            m.compressed().shape, mo.count(), mo.filled(0.0)[1], m2.max(axis=1).filled(0.0),
            np.ma.masked_equal(np.asarray([1, 2, 1, 3]), 1).sum(),
            np.ma.array(np.asarray([1.0, 2.0, 3.0]), mask=[0, 1, 0]).mean())


# ---- sorting, searching, sets ------------------------------------------------------------------

def sorting_searching(np):
    """lexsort of records by two keys, argsort stable among ties, sort of a
    column-major copy along axis 0, searchsorted on both sides for
    binning, digitize with right=True, histogram with explicit edges and
    density, argmax/argmin of ties, and the k smallest by partition."""
    s = np.asarray(SCORES)
    order = np.lexsort((s[:, 1], s[:, 0]))
    ties = np.asarray([3, 1, 3, 2, 1, 3])
    edges = np.asarray([50.0, 60.0, 70.0, 80.0, 90.0])
    col = s[:, 2].astype(np.float64)
    return (order, np.argsort(ties, kind="stable"), np.sort(s, axis=0)[:, 1],
            np.searchsorted(edges, col, side="left"), np.searchsorted(edges, col, side="right"),
            np.digitize(col, edges, right=True), np.histogram(col, bins=edges),
            np.histogram(col, bins=4, range=(40, 100), density=True)[0],
            np.argmax(ties), np.argmin(ties), np.sort(np.partition(col, 2)[:3]),
            np.sort(np.asarray([3.0, np.nan, 1.0, -np.inf])), np.argsort(np.asarray([2, 2, 1]))[0],
            np.histogram_bin_edges(col, bins=3), np.count_nonzero(s > 70, axis=0))


def set_operations(np):
    """Set operations on id lists: union1d, intersect1d (assume_unique and
    return_indices), setdiff1d, setxor1d, isin with invert, unique of rows
    with return_counts, and unique's inverse rebuilding the input."""
    a = np.asarray([5, 1, 3, 3, 9, 1, 7])
    b = np.asarray([3, 4, 5, 6, 9])
    rows = np.asarray([[1, 2], [3, 4], [1, 2], [0, 0], [3, 4]])
    u, inv = np.unique(a, return_inverse=True)
    ur, cnt = np.unique(rows, axis=0, return_counts=True)
    inter, ia, ib = np.intersect1d(a, b, return_indices=True)
    return (np.union1d(a, b), inter, ia, ib, np.setdiff1d(a, b), np.setxor1d(a, b),
            np.isin(a, b, invert=True), ur, cnt, np.array_equal(u[inv], a),
            np.intersect1d(np.unique(a), b, assume_unique=True),
            np.setdiff1d(np.asarray([1.5, 2.5]), np.asarray([], dtype=np.float64)),
            np.unique(np.asarray([[2, 1], [1, 2]])), np.unique(np.asarray([], dtype=np.int64)))


# ---- text I/O ----------------------------------------------------------------------------------

def text_io_roundtrip(np):
    """savetxt of a float table with a header, fmt list, delimiter and
    comments into a StringIO, loadtxt back with skiprows, usecols, ndmin
    and dtype int; genfromtxt of a CSV with a missing value filled;
    an integer matrix with fmt='%d'."""
    buf = io.StringIO()
    t = np.asarray(F64[:3, :3])
    np.savetxt(buf, t, fmt=["%.3f", "%.2e", "%8.4f"], delimiter=",", header="a,b,c",
               comments="# ")
    text = buf.getvalue()
    back = np.loadtxt(io.StringIO(text), delimiter=",", usecols=(0, 2))
    ib = io.StringIO()
    np.savetxt(ib, np.asarray(I32), fmt="%d")
    ints = np.loadtxt(io.StringIO(ib.getvalue()), dtype=np.int64, skiprows=1, ndmin=2)
    one = np.loadtxt(io.StringIO("4.5\n"), ndmin=1)
    csv = io.StringIO("x,y\n1,2\n3,\n5,6\n")
    g = np.genfromtxt(csv, delimiter=",", skip_header=1, filling_values=-1.0)
    return text.splitlines()[0], text.splitlines()[1], back, ints, one, g, ib.getvalue()[:10]


def text_formatting(np):
    """array2string with a formatter, precision and suppress_small,
    format_float_positional/scientific with trim and unique, array_str
    of a float matrix with max_line_width, and np.set_printoptions scoped
    by printoptions."""
    x = np.asarray([1e-8, 1.5, -2.25, 1234.5678])
    with np.printoptions(precision=3, suppress=True):
        a = np.array2string(x)
    b = np.array2string(x, formatter={"float_kind": lambda v: f"{v:.1f}"})
    c = np.array2string(np.asarray(I32), separator=", ", max_line_width=30)
    return (a, b, c, np.format_float_positional(0.1 + 0.2, precision=4, trim="-"),
            np.format_float_scientific(12345.678, precision=2, exp_digits=3),
            np.format_float_positional(np.float32(0.3)), np.array_str(np.asarray(F64[:2, :2]), precision=2),
            np.array2string(np.asarray([True, False])), np.array2string(np.arange(3), prefix="x = "))


def inventory_simulation(np):
    """A small inventory simulation over integer arrays: daily demand by a
    fixed table, reorders where stock drops below a threshold (np.where
    with arrays), stock carried by cumsum of net flow, stockout days by
    count_nonzero, the longest run of stockouts by diff of a padded mask,
    and weekly totals by reshape and sum."""
    demand = np.asarray([3, 5, 2, 8, 7, 1, 0, 4, 6, 9, 2, 3, 5, 5])
    stock = 10
    levels = []
    reorders = np.zeros(14, dtype=np.int64)
    for day, need in enumerate(demand.tolist()):
        stock -= need
        if stock < 5:
            reorders[day] = 12
            stock += 12
        levels.append(stock)
    lv = np.asarray(levels)
    out = lv < 6
    padded = np.concatenate(([0], out.astype(np.int8), [0]))
    edges = np.diff(padded)
    runs = np.flatnonzero(edges == -1) - np.flatnonzero(edges == 1)
    return (lv, reorders.sum(), np.count_nonzero(out), runs, runs.max(initial=0),
            demand.reshape(2, 7).sum(axis=1), np.where(lv < 6, -lv, lv),
            np.cumsum(demand - reorders)[-1], lv.dtype == np.int64)


def image_ops(np):
    """Image operations on a uint8 picture: flips and rot90 with k and
    axes, padding modes (reflect, edge, constant with values), histogram
    equalization by a cumsum lookup table indexed by the pixels, a
    threshold to bool, and the picture's tile and block assembly."""
    img = np.asarray(I32.astype(numpy.uint8) * 28)
    cdf = np.bincount(img.ravel(), minlength=256).cumsum()
    lut = ((cdf - cdf.min()) * 255 // (cdf.max() - cdf.min())).astype(np.uint8)
    eq = lut[img]
    return (np.flip(img, axis=(0, 1)), np.rot90(img, k=3), np.rot90(img, axes=(1, 0)).shape,
            np.pad(img, 1, mode="reflect")[0], np.pad(img, ((0, 1), (2, 0)), mode="edge")[-1],
            np.pad(img, 1, constant_values=((9, 8), (7, 6)))[:, 0], eq, eq.dtype == np.uint8,
            img > 100, np.tile(img[:2, :2], (2, 3)), np.block([[img[:2, :2], img[:2, :1]],
                                                              [img[2:, :2], img[2:, :1]]]))


def polynomial_interp(np):
    """Interpolation and calculus over samples: np.interp with left/right
    and period, trapezoid integration of a sampled curve, gradient with
    spacing and edge_order=2, diff with prepend/append, and cumulative
    products of growth rates."""
    xs = np.linspace(0.0, 2.0, 9)
    ys = xs ** 3 - xs
    q = np.asarray([-0.5, 0.3, 1.1, 2.5])
    ang = np.asarray([350.0, 10.0, 30.0])
    return (np.interp(q, xs, ys), np.interp(q, xs, ys, left=-9.0, right=9.0),
            np.interp(np.asarray([355.0, 5.0]), ang, np.asarray([1.0, 2.0, 3.0]), period=360),
            np.trapezoid(ys, xs), np.gradient(ys, 0.25), np.gradient(ys, xs, edge_order=2),
            np.diff(np.arange(5) ** 2, prepend=0, append=100), np.diff(np.asarray(I64), n=2, axis=0)[0],
            np.cumprod(1 + np.asarray([0.1, -0.05, 0.02]))[-1])


def integer_bit_programs(np):
    """Integer programs: a parity count by bitwise ops over int64, popcount
    by unpackbits of a uint8 view, gcd/lcm reductions, left_shift overflow
    in int32 wrapping, floor_divide/remainder/divmod with negatives, the
    integer power of arrays, and np.iinfo bounds clipping."""
    a = np.asarray(I64)
    u = np.asarray([0, 1, 255, 128, 7], dtype=np.uint8)
    x = np.asarray([7, -7, 12, -12])
    d = np.asarray([2, 2, -5, -5])
    i32 = np.asarray([1, 2, 3], dtype=np.int32)
    return (np.bitwise_and(a, 1).sum(axis=0), np.unpackbits(u).reshape(5, 8).sum(axis=1, dtype=np.int64),
            np.gcd.reduce(np.asarray([12, 18, 30])), np.lcm.reduce(np.asarray([4, 6, 10])),
            np.left_shift(i32, 30), np.floor_divide(x, d), np.remainder(x, d), np.divmod(x, d),
            np.fmod(x, d), np.power(np.asarray([2, 3]), np.asarray([10, 3])),
            np.clip(a * 10**9, np.iinfo(np.int32).min, np.iinfo(np.int32).max)[0],
            np.invert(u), np.right_shift(np.asarray([-8, 8]), 1), np.bitwise_count(u))


# ---- a second pass: more ufunc methods, ma functions, generators, text ------------------------

def ufunc_method_corners(np):
    """ufunc methods with their less common arguments: reduce with where=
    and initial=, keepdims over a tuple of axes, reduceat with repeated and
    descending indices, accumulate along axis 0 with a dtype, outer of 2-d
    operands, logical_and.reduce of an empty axis, and at with a 2-d
    index tuple."""
    a = np.asarray(I64)
    f = np.asarray(F64)
    red = np.add.reduce(f, axis=0, where=f > 0, initial=1.0)
    kd = np.maximum.reduce(a.reshape(2, 3, 4), axis=(0, 2), keepdims=True)
    rat = np.add.reduceat(np.arange(8), [0, 4, 4, 1, 5])
    acc = np.multiply.accumulate(np.asarray(I32), axis=0, dtype=np.int64)
    out = np.subtract.outer(np.arange(3).reshape(3, 1), np.arange(2))
    empty = np.logical_and.reduce(np.zeros((3, 0), dtype=bool), axis=1)
    z = np.zeros((3, 3))
    np.add.at(z, (np.asarray([0, 0, 2]), np.asarray([1, 1, 0])), np.asarray([1.0, 2.0, 5.0]))
    return (red, kd, kd.shape, rat, acc[-1], out.shape, out[2], empty, z,
            np.minimum.reduceat(a[:, 0], [0, 2, 3]), np.bitwise_or.reduce(np.asarray([1, 4, 16])),
            np.add.reduce(a, axis=None), np.logical_or.accumulate(np.asarray([False, True, False])))


def masked_functions_tour(np):
    """np.ma beyond reductions: average with weights and returned=, median
    of a masked column, sort with endwith and argsort of masked data,
    anom, clip, where, concatenate and dot of masked arrays,
    masked_values with a tolerance, fix_invalid, clump_masked and
    notmasked_edges."""
    ma = np.ma
    d = np.asarray(F64[:, :3].copy())
    m = ma.masked_where(np.asarray(F64[:, :3]) < -0.8, d)
    avg, wsum = ma.average(m, axis=0, weights=np.asarray([1.0, 2.0, 1.0, 0.5, 1.0, 3.0]), returned=True)
    col = m[:, 1]
    srt = ma.sort(col, endwith=False)
    mv = ma.masked_values(np.asarray([1.0, 1.1, 2.0, 1.0 + 1e-9]), 1.0)
    fi = ma.fix_invalid(np.asarray([1.0, np.nan, np.inf, 4.0]), fill_value=0.0)
    runs = ma.clump_masked(ma.masked_less(np.asarray([3, 0, 0, 5, 0, 7]), 1))
    return (avg.filled(0.0), ma.getdata(wsum), ma.median(col), srt.filled(-9.0), ma.argsort(col),
            m.anom(axis=0).filled(0.0)[0], ma.clip(m, -0.5, 0.5).filled(9.0)[:, 0],
            ma.where(m > 0, m, -m).filled(0.0)[1], ma.concatenate([m[:2], m[4:]]).count(axis=0),
            ma.dot(m[:3], m[:3].T).filled(0.0), mv.mask, mv.filled(0.0), fi.filled(), fi.mask,
            [(int(s.start), int(s.stop)) for s in runs], ma.notmasked_edges(col))


def generator_distributions(np):
    """Generator methods compared by what does not depend on the stream:
    multinomial counts summing to n, dirichlet rows summing to one,
    choice with p= and axis=, integers with array bounds, permuted along
    an axis (each row a permutation of itself), exponential and gamma
    shapes and signs, and the float32 dtype of random()."""
    g = np.random.default_rng(11)
    mn = g.multinomial(20, [0.2, 0.3, 0.5], size=4)
    dr = g.dirichlet([1.0, 2.0, 3.0], size=5)
    ch = g.choice(np.arange(12).reshape(4, 3), 2, axis=1, replace=False, shuffle=False)
    chp = g.choice(5, size=50, p=[0.0, 0.5, 0.0, 0.5, 0.0])
    bi = g.integers(np.asarray([0, 10, 100]), np.asarray([5, 20, 101]))
    pm = g.permuted(np.arange(12).reshape(3, 4), axis=1)
    ex = g.exponential(2.0, (3, 2))
    gm = g.gamma(np.asarray([1.0, 5.0]), 2.0, size=(4, 2))
    return (mn.shape, mn.sum(axis=1), mn.dtype == np.int64, dr.shape, np.allclose(dr.sum(axis=1), 1),
            ch.shape, np.isin(ch, np.arange(12)).all(), set(np.unique(chp).tolist()) <= {1, 3},
            bi.shape, bool(((bi >= [0, 10, 100]) & (bi < [5, 20, 101])).all()),
            np.sort(pm, axis=1), ex.shape, bool((ex > 0).all()), gm.shape, bool((gm > 0).all()),
            g.random(3, dtype=np.float32).dtype == np.float32, g.bytes(5).__class__.__name__)


def text_io_options(np):
    """loadtxt's converters, comments, max_rows and unpack; fromstring
    with sep; savetxt of a 1-d array and of complex numbers; genfromtxt's
    usecols and missing_values; a CSV of ints read with dtype=int."""
    src = "1 2.5\n2 -1.0  # note\n3 4.0\n4 8.5\n"
    ids, vals = np.loadtxt(io.StringIO(src), unpack=True, max_rows=3)
    conv = np.loadtxt(io.StringIO("a,1\nb,2\nc,3\n"), delimiter=",",
                      converters={0: lambda s: ord(s) - ord("a")})
    fs = np.fromstring("1, 2, 3.5, 4", sep=",")
    b1 = io.StringIO()
    np.savetxt(b1, np.asarray([1.5, 2.25, -3.0]), fmt="%.2f")
    b2 = io.StringIO()
    np.savetxt(b2, np.asarray([[1 + 2j, 3 - 1j]]), fmt="%.1f")
    g = np.genfromtxt(io.StringIO("1,NA,3\n4,5,NA\n"), delimiter=",", missing_values="NA",
                      filling_values=0.0, usecols=(0, 1))
    ints = np.loadtxt(io.StringIO("1,2\n3,4\n"), delimiter=",", dtype=int)
    return (ids, vals, conv, fs, b1.getvalue(), b2.getvalue(), g, ints, ints.dtype == np.int64)


def grids_and_indices(np):
    """Grids and index helpers: meshgrid with indexing='ij' and sparse,
    mgrid with a complex step, ogrid, indices, tril/triu_indices with k
    and m, diag_indices_from, fill_diagonal with wrap on a tall matrix,
    and a distance matrix from broadcasting."""
    x, y = np.meshgrid(np.arange(3), np.arange(2), indexing="ij")
    sx, sy = np.meshgrid(np.arange(3), np.arange(4), sparse=True)
    mg = np.mgrid[0:1:5j, 0:2]
    og = np.ogrid[0:3, 0:2]
    ind = np.indices((2, 3))
    tall = np.zeros((7, 3))
    np.fill_diagonal(tall, 5.0, wrap=True)
    pts = np.asarray(F64[:, :2])
    dist = np.sqrt(((pts[:, None, :] - pts[None, :, :]) ** 2).sum(-1))
    return (x, y, sx.shape, sy.shape, mg, og[0].shape, og[1].shape, ind,
            np.tril_indices(4, k=-1), np.triu_indices(3, k=1, m=4),
            np.diag_indices_from(np.zeros((3, 3))), tall, dist[0], np.triu(dist, 1).max())


def array_surgery(np):
    """insert/delete/append along axes (with a slice, a list and a scalar
    index), array_split into uneven parts, split at indices, roll with
    several shifts and axes, moveaxis of several axes, trim_zeros, ediff1d
    with to_begin/to_end, and resize growing by repetition."""
    a = np.arange(12).reshape(3, 4)
    return (np.insert(a, 1, [9, 9, 9], axis=1), np.insert(a, [0, 2], 7, axis=0),
            np.delete(a, slice(0, 4, 2), axis=1), np.delete(a, [0, -1], axis=0),
            np.append(a, [[0, 0, 0, 0]], axis=0), [p.shape for p in np.array_split(np.arange(10), 4)],
            np.split(np.arange(9), [2, 5]), np.roll(a, (1, -1), axis=(0, 1)),
            np.moveaxis(np.zeros((2, 3, 4, 5)), [0, 1], [-1, -2]).shape,
            np.trim_zeros(np.asarray([0, 0, 1, 2, 0, 3, 0])), np.trim_zeros(np.asarray([0, 1, 0]), "f"),
            np.ediff1d(np.asarray([1, 4, 9]), to_begin=-1, to_end=[100, 200]),
            np.resize(np.arange(3), (2, 4)), np.insert(np.arange(4.0), 2, 0.5))


def vectorized_helpers(np):
    """apply_along_axis with a function returning a vector, vectorize with
    otypes and excluded, piecewise with functions and constants, select
    with a default, nan_to_num with replacement values, isclose with
    equal_nan, round half to even and around of float32."""
    a = np.asarray(F64)
    ap = np.apply_along_axis(lambda r: np.sort(r)[:2], 1, a)
    vf = np.vectorize(lambda x, k: x * k if x > 0 else 0.0, otypes=[np.float64], excluded=["k"])
    x = np.linspace(-2, 2, 9)
    pw = np.piecewise(x, [x < -1, (x >= -1) & (x < 1)], [lambda v: -v, 0.5, lambda v: v ** 2])
    sel = np.select([x < -1, x > 1], [x * 10, x * 100], default=-1.0)
    nn = np.nan_to_num(np.asarray([np.nan, np.inf, -np.inf, 1.0]), nan=-1.0, posinf=9.0, neginf=-9.0)
    return (ap, vf(a[0], k=3.0), pw, sel, nn,
            np.isclose(np.asarray([np.nan, 1.0, 1.0]), np.asarray([np.nan, 1.0 + 1e-9, 1.1]), equal_nan=True),
            np.round(np.asarray([0.5, 1.5, 2.5, -0.5, -1.5])), np.around(np.asarray(F32), 2)[0],
            np.round(np.asarray([1234, -1250, 1350]), -2))


def histograms_2d(np):
    """histogram2d of paired data with explicit edges, with density; and
    histogramdd with bin counts and ranges; digitize with decreasing bins;
    bincount of a long label array."""
    x = np.asarray(F64[:, 0])
    y = np.asarray(F64[:, 1])
    h, xe, ye = np.histogram2d(x, y, bins=[np.asarray([-2.0, 0.0, 2.0]), np.asarray([-2.0, -1.0, 1.0, 2.0])])
    hd, _, _ = np.histogram2d(x, y, bins=2, range=[[-2, 2], [-2, 2]], density=True)
    dd, edges = np.histogramdd(np.asarray(F64[:, :3]), bins=(2, 3, 2), range=[(-3, 3)] * 3)
    return (h, xe, ye, hd, dd.sum(), dd.shape, [e.shape for e in edges],
            np.digitize(x, np.asarray([1.0, 0.0, -1.0])), np.bincount(np.asarray(LABELS)))


def complex_linalg(np):
    """Eigendecomposition of a non-symmetric real matrix (complex
    eigenvalues sorted for comparison), the eigenvectors verifying A v =
    lambda v, eigvals of a rotation, a complex Hermitian eigh, batched
    solve with a stack of right-hand sides, lstsq with several right-hand
    sides, and the LinAlgError of a singular solve."""
    A = np.asarray(A44)
    w, v = np.linalg.eig(A)
    ok = np.allclose(A @ v, v * w)
    rot = np.asarray([[0.0, -1.0], [1.0, 0.0]])
    H = np.asarray(A44 + 1j * A44.T)
    H = H + H.conj().T
    hw, hv = np.linalg.eigh(H)
    B = np.stack([np.asarray(SPD), 2 * np.asarray(SPD)])
    rhs = np.arange(16.0).reshape(2, 4, 2)
    sol = np.linalg.solve(B, rhs)
    X, res, rank, sv = np.linalg.lstsq(np.asarray(F64), np.asarray(F64[:, :2]) * 2 + 1, rcond=None)
    try:
        np.linalg.solve(np.zeros((2, 2)), np.ones(2))
        err = None
    except np.linalg.LinAlgError as e:
        err = str(e)
    return (np.sort_complex(w), ok, np.sort_complex(np.linalg.eigvals(rot)), hw,
            np.allclose(H @ hv, hv * hw), sol, X, res, rank, err)


def fft_multidim(np):
    """fftn over a subset of axes with s=, rfft2 and irfft2 round trips,
    fftfreq of an odd length with spacing, fft of a real int array (its
    complex128 result), and ifft with n padding and truncation."""
    v = np.asarray(F64)
    a = np.fft.fftn(v, s=(4,), axes=(1,))
    r2 = np.fft.rfft2(v)
    back = np.fft.irfft2(r2, s=v.shape)
    return (a, r2.shape, np.allclose(back, v), np.fft.fftfreq(5, d=0.5), np.fft.fft(np.arange(4)),
            np.fft.ifft(np.arange(3.0), n=5), np.fft.ifft(np.arange(6.0), n=4),
            np.fft.rfft(np.asarray(F32[:, 0])).dtype == np.complex64,
            np.fft.irfftn(np.fft.rfftn(v, axes=(0,)), s=(6,), axes=(0,))[0])


def einsum_dtypes_out(np):
    """einsum over integer operands (int64 and int32), with out= into a
    prepared array, with optimize=True over four operands, of bools
    (counting matches), and of a complex operand with a real one."""
    a = np.asarray(I32)
    b = np.asarray(I64)
    out = np.zeros((4, 4), dtype=np.int32)
    np.einsum("ij,kj->ik", a, a, out=out)
    S = np.asarray(SPD)
    four = np.einsum("ij,jk,kl,lm->im", S, S, S, S, optimize=True)
    m = np.asarray(F64) > 0
    c = np.asarray(SPD + 1j)
    return (np.einsum("ij,ij->j", b, b), out, four[0], np.einsum("ij,kj->ik", m.astype(np.int64), m.astype(np.int64)),
            np.einsum("ij,jk->ik", c, S)[0], np.einsum("i->", a[0]).dtype == np.int32,
            np.einsum("ij->ji", a).flags.c_contiguous)


# ---- a fourth pass: corners of indexing, reductions, masks and draws --------------------------

def indexing_corners(np):
    """Indexing forms users stumble on: a 2-d mask over the first two axes
    of a 3-d array assigned a row, index arrays broadcasting (2, 1) with
    (3,), a list of bools, a newaxis before an index array, assignment to
    a fancy-indexed copy (no effect), flat assignment with a slice and a
    list, take with out=, duplicates under += along the last axis, and a
    slice mixed with an index list assigned a column."""
    a = np.arange(24).reshape(2, 3, 4)
    m = np.asarray([[True, False, True], [False, True, False]])
    a[m] = np.asarray([-1, -2, -3, -4])
    b = np.arange(20).reshape(4, 5)
    sub = b[np.asarray([[0], [2]]), np.asarray([1, 3, 4])]
    c = b[[True, False, True, True]]
    d = b[np.newaxis, np.asarray([1, 3])]
    e = b.copy()
    e[np.asarray([0, 1])][0, 0] = 999
    f = np.zeros(10)
    f.flat[2:5] = 1.0
    f.flat[[7, 9]] = np.asarray([5.0, 6.0])
    out = np.empty(3, dtype=np.int64)
    np.take(b, [0, 7, 19], out=out)
    g = np.zeros((2, 4))
    g[..., np.asarray([1, 1, 3])] += 1.0
    h = np.zeros((4, 3), dtype=np.int64)
    h[1:3, [0, 2]] = np.asarray([[1], [2]])
    return a, sub, c, d.shape, e[0, 0], f, out, g, h, b[-1, [-1, 0]], b[1:, 2][::-1]


def reduction_dtypes_and_empties(np):
    """Reductions with dtype= and on empty operands: sum into int8 wrapping,
    mean in float32 of float64 data, std with where=, var with keepdims
    and ddof, prod and sum of empty arrays, max of an empty axis with
    initial=, cumsum of bools, argmax with keepdims, all/any of an empty
    axis, count_nonzero with keepdims, and average of ints."""
    x = np.asarray(I64)
    f = np.asarray(F64)
    e = np.zeros((0, 3))
    return (np.sum(np.asarray([100, 100, 100], dtype=np.int8), dtype=np.int8),
            np.mean(f, axis=0, dtype=np.float32), np.std(f, axis=1, where=f > -1.0),
            np.var(f, axis=0, ddof=2, keepdims=True), np.prod(e, axis=0), np.sum(e, axis=1),
            np.max(e, axis=0, initial=-5.0), np.cumsum(np.asarray([True, True, False, True])),
            np.argmax(x, axis=1, keepdims=True), np.all(e, axis=0), np.any(e, axis=1),
            np.count_nonzero(x > 0, axis=0, keepdims=True), np.average(x, axis=0),
            np.sum(x, axis=0, dtype=np.float32), np.nansum(np.asarray([np.nan, np.nan])),
            np.amin(x, axis=(0, 1)), np.mean(np.asarray(I32), axis=1).dtype == np.float64)


def masked_integers_and_division(np):
    """Masked arrays of integers: division by zero masked (domain), the
    int sum and mean with masked entries, a custom fill_value kept by
    arithmetic, cumsum skipping masked entries, argmax with fill, the mean
    of an all-masked row (masked), filled of an all-masked array, and
    apply_along_axis over a masked matrix."""
    ma = np.ma
    a = ma.array(np.asarray([[4, 0, 6], [3, 2, 0]]), mask=[[0, 0, 1], [0, 1, 1]], fill_value=-7)
    q = ma.array(np.asarray([10, 20, 30])) / ma.array(np.asarray([2, 0, 5]))
    row = a.mean(axis=1)
    allm = ma.array(np.asarray([1.0, 2.0]), mask=[1, 1])
    return (q.filled(-1.0), q.mask, a.sum(axis=0).filled(0), a.sum(), a.mean(), a.fill_value,
            (a + 1).fill_value, a.cumsum(axis=1).filled(0), a.argmax(axis=1, fill_value=100),
            row.filled(-1.0), ma.getmaskarray(row), allm.filled(), allm.mean() is ma.masked,
            ma.apply_along_axis(lambda r: r.sum(), 1, a).filled(0), a.min(axis=0).filled(-1),
            (a * 2).filled(), (a > 2).filled(False))


def generator_edges(np):
    """Generator corners compared by structure: integers into uint8 up to
    256 exclusive, choice over the rows of a 2-d array, shuffle of a 2-d
    array (rows kept whole), draws of size 0 and of tuple sizes, random
    into float32 out=, and integers' refusal of low >= high."""
    g = np.random.default_rng(21)
    u = g.integers(0, 256, size=50, dtype=np.uint8)
    rows = np.arange(12).reshape(4, 3)
    pick = g.choice(rows, 2, replace=False)
    sh = rows.copy()
    g.shuffle(sh)
    out = np.empty((2, 2), dtype=np.float32)
    g.random(out=out, dtype=np.float32)
    try:
        g.integers(5, 5)
        err = None
    except ValueError as exc:
        err = type(exc).__name__
    return (u.dtype == np.uint8, bool((u.astype(np.int64) < 256).all()), pick.shape,
            bool(all(r[1] == r[0] + 1 and r[0] % 3 == 0 for r in pick.tolist())),
            np.sort(sh[:, 0]), bool((sh[:, 1] == sh[:, 0] + 1).all()), g.random((0, 3)).shape,
            g.normal(size=(2, 3)).shape, bool(((out >= 0) & (out < 1)).all()), err,
            g.integers(3, 4, size=3), g.choice(np.asarray([[5, 6]]), 2, axis=1, replace=False).shape)


def sorting_corners(np):
    """Sorting corners: sort and argsort with axis=None, lexsort with a 2-d
    keys array, sort of bools, unique with return_index over floats with
    NaN (equal_nan both ways), searchsorted into a descending array through
    its sorter, argsort of a non-contiguous column, and sort of a 0-d
    refusal."""
    x = np.asarray(I64)
    keys = np.asarray([[1, 0, 1, 0], [3, 3, 1, 1]])
    fl = np.asarray([2.0, np.nan, 1.0, np.nan, 2.0])
    desc = np.asarray([9, 7, 5, 3])
    srt = np.argsort(desc)
    try:
        np.sort(np.asarray(3))
        err = None
    except (ValueError, np.exceptions.AxisError) as exc:
        err = type(exc).__name__
    return (np.sort(x, axis=None)[:6], np.argsort(x, axis=None, kind="stable")[:6],
            np.lexsort(keys), np.sort(np.asarray([True, False, True])),
            np.unique(fl, return_index=True), np.unique(fl, equal_nan=False),
            np.searchsorted(desc, np.asarray([6, 9, 1]), sorter=srt), np.argsort(x[:, 1], kind="stable"),
            err, np.sort(x[::2, ::-1], axis=0))


def text_io_more(np):
    """savetxt with newline, header, footer and a 3-column complex-free
    table of ints and floats; loadtxt with quotechar and a usecols int;
    loadtxt of an empty file (with its warning silenced) giving an empty
    array; fromstring of ints with sep and dtype; tofile/fromfile through
    a temporary path skipped -- text only."""
    import warnings
    buf = io.StringIO()
    np.savetxt(buf, np.asarray(I32[:2]), fmt="%3d", newline=";\n", header="h", footer="end",
               comments="// ")
    q = np.loadtxt(io.StringIO('"1.5",2\n"3.5",4\n'), delimiter=",", quotechar='"', usecols=0)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        empty = np.loadtxt(io.StringIO(""))
    return (buf.getvalue(), q, empty.shape, empty.dtype == np.float64,
            np.fromstring("1 2 3", dtype=np.int64, sep=" "),
            np.loadtxt(io.StringIO("1;2\n3;4\n"), delimiter=";", dtype=np.float32))


# ---- a third pass: layers written with NumPy on the autograd tape -----------------------------
# The forward is NumPy code, run on float64 ndarrays (the oracle for values)
# and on tensors that require grad, whose gradients are checked against
# finite differences (tests/test_numpy_layers.py's check_layer).

def _layer_attention(np, q, k, v):
    """Softmax attention written with einsum, max-shifted exp and a sum."""
    s = np.einsum("id,jd->ij", q, k) / np.sqrt(q.shape[-1])
    s = s - s.max(axis=1, keepdims=True)
    w = np.exp(s)
    w = w / w.sum(axis=1, keepdims=True)
    return w @ v


def _layer_spectral_energy(np, x):
    """The band energies of a signal from the magnitudes of its rfft."""
    X = np.fft.rfft(x, axis=-1)
    mag = np.abs(X) ** 2
    return np.add.reduceat(mag, [0, 2, 5], axis=-1)


def _layer_solve_logdet(np, a, b):
    """A Gaussian-process style term: solve against an SPD matrix built
    from a, plus its log-determinant by slogdet."""
    K = a @ a.T + 3.0 * np.eye(a.shape[0])
    alpha = np.linalg.solve(K, b)
    sign, logdet = np.linalg.slogdet(K)
    return (b * alpha).sum() + sign * logdet


def _layer_sorted_topk(np, x):
    """The mean of each row's two largest entries by sort and a slice,
    and a gather by take_along_axis of argsort."""
    top = np.sort(x, axis=1)[:, -2:]
    idx = np.argsort(x, axis=1)[:, :1]
    return top.mean(axis=1) + np.take_along_axis(x, idx, axis=1)[:, 0]


def _layer_windows(np, x):
    """A moving maximum and a padded moving average over the last axis."""
    st = np.lib.stride_tricks
    mx = st.sliding_window_view(x, 3, axis=-1).max(axis=-1)
    avg = st.sliding_window_view(np.pad(x, ((0, 0), (1, 1)), mode="edge"), 3, axis=-1).mean(-1)
    return np.concatenate([mx, avg], axis=-1)


def _layer_piecewise(np, x):
    """A smooth-L1 style loss written with where, abs, logaddexp and clip."""
    a = np.abs(x)
    hub = np.where(a < 0.5, 0.5 * x ** 2 / 0.5, a - 0.25)
    return hub + np.logaddexp(0.0, x) - np.clip(x, -0.3, 0.3) ** 2


def _layer_eigh_norms(np, a):
    """The eigenvalues of a symmetrized matrix (distinct) and norms."""
    s = a + a.T + np.diag(np.arange(a.shape[0], dtype=a.dtype) * 3.0)
    w = np.linalg.eigvalsh(s)
    return np.concatenate([w, np.linalg.norm(a, axis=0), [np.linalg.norm(a, "fro")]])


def _layer_cumulative(np, x):
    """A cumulative log-sum-exp and a discounted return by cumprod."""
    c = np.logaddexp.accumulate(x, axis=1)
    disc = np.cumprod(np.full(x.shape[1], 0.9)) * x
    return c + np.cumsum(disc[:, ::-1], axis=1)[:, ::-1]


@pytest.mark.parametrize("layer,shapes", [
    (_layer_attention, [(3, 4), (5, 4), (5, 2)]),
    (_layer_spectral_energy, [(2, 12)]),
    (_layer_solve_logdet, [(4, 3), (4,)]),
    (_layer_sorted_topk, [(3, 5)]),
    (_layer_windows, [(2, 6)]),
    (_layer_piecewise, [(3, 4)]),
    (_layer_eigh_norms, [(4, 4)]),
    (_layer_cumulative, [(2, 5)]),
], ids=lambda v: getattr(v, "__name__", ""))
def test_numpy_layers_on_the_tape(layer, shapes):
    from test_numpy_layers import check_layer
    rng = numpy.random.default_rng(130)
    arrays = [rng.standard_normal(s) for s in shapes]
    want = layer(numpy, *arrays)
    check_layer(lambda *a: layer(tnp, *a), *arrays, rtol=1e-10, atol=1e-12)
    got = layer(tnp, *(tnp.asarray(a) for a in arrays))
    numpy.testing.assert_allclose(got.cpu().numpy(), want, rtol=1e-10)


def test_numpy_layer_trained_with_torchlike_optim():
    """A NumPy-written attention layer inside an nn.Module trained with
    Adam: the loss falls and the gradients reach every parameter."""
    import torchlike as tl

    class Attn(tl.nn.Module):
        def __init__(self):
            super().__init__()
            g = numpy.random.default_rng(131)
            self.wq = tl.nn.Parameter(tl.tensor(g.standard_normal((4, 4)) * 0.3))
            self.wk = tl.nn.Parameter(tl.tensor(g.standard_normal((4, 4)) * 0.3))

        def forward(self, x):
            return _layer_attention(tnp, x @ self.wq, x @ self.wk, x)

    m = Attn()
    x = tl.tensor(numpy.random.default_rng(132).standard_normal((5, 4)))
    y = x.flip(0)
    opt = tl.optim.Adam(m.parameters(), lr=0.05)
    losses = []
    for _ in range(15):
        opt.zero_grad()
        loss = tnp.mean((m(x) - y) ** 2)
        loss.backward()
        opt.step()
        losses.append(float(loss))
    assert losses[-1] < losses[0]
    assert all(p.grad is not None and float(p.grad.abs().sum()) > 0 for p in m.parameters())


# ---- the tests ------------------------------------------------------------------------------

def test_methods_and_reductions():
    _run(gradebook)
    _run(grouped_reductions)
    _run(method_chains)
    _run(stable_statistics)


def test_fancy_assignment():
    _run(fancy_assignment)
    _run(scatter_gather_idioms)


def test_linalg_programs():
    _run(least_squares_and_solvers)
    _run(decompositions)
    _run(linalg_multi_and_tensor)


def test_fft_programs():
    _run(spectral_analysis)
    _run(fft_convolution_filters)


def test_random_generator():
    _run(generator_by_properties)


def test_einsum_and_strides():
    _run(einsum_programs)
    _run(stride_trick_programs)


def test_masked_arrays():
    _run(masked_sensor_data)


def test_sorting_and_sets():
    _run(sorting_searching)
    _run(set_operations)


def test_text_io():
    _run(text_io_roundtrip)
    _run(text_formatting)


def test_simulations():
    _run(inventory_simulation)
    _run(image_ops)
    _run(polynomial_interp)
    _run(integer_bit_programs)


def test_second_pass():
    _run(ufunc_method_corners)
    _run(masked_functions_tour)
    _run(generator_distributions)
    _run(text_io_options)
    _run(grids_and_indices)
    _run(array_surgery)
    _run(vectorized_helpers)
    _run(histograms_2d)
    _run(complex_linalg)
    _run(fft_multidim)
    _run(einsum_dtypes_out)


def test_fourth_pass():
    _run(indexing_corners)
    _run(reduction_dtypes_and_empties)
    _run(masked_integers_and_division)
    _run(generator_edges)
    _run(sorting_corners)
    _run(text_io_more)
