"""NumPy programs, eighth round: kinds the first seven rounds
(tests/test_numpy_programs.py ... 7.py) do not cover -- finite-difference
solvers written as in-place slice updates (a heat rod with an implicit
tridiagonal step, a membrane by leapfrog, upwind and Lax-Wendroff
advection, Jacobi and red-black relaxation), neighbourhood filters and
Sobel gradients over 2-d sliding_window_view, Hann/Kaiser spectra with
Welch averaging, a windowed-sinc FIR filter and Savitzky-Golay taps, least
squares four ways, the Generator's rarer distributions by their supports,
Monte Carlo volumes, graph algorithms on adjacency matrices, a ledger by
bincount/add.at/lexsort, lagged series, masked sensor readings and a
masked climatology, ndindex/ndenumerate loops (dynamic time warping), set
operations with return_indices=, stable multi-key record sorting, integer
corners and division by zero under errstate, in-place updates through
views, ufuncs with out=/where=, copies and layouts, einsum_path, stacked
solves, the polynomial classes and 2-d/3-d series (surface fits),
histogramdd, vector calculus on indexing='ij' grids, tariffs by
piecewise/select, rigid bodies by cross/tensordot, Gaussian elimination
with row swaps, vectorised Newton, RK4 on the Lorenz system, k-nearest
neighbours, a single-server queue, the Mandelbrot set, bit tricks, reads
through .flat, NaN ordering, rounding rules, lookup tables, index objects
(s_, index_exp, broadcast, mask_indices, fromiter, require), log-domain
arithmetic, sizes and edges computed from the data, Kaplan-Meier curves,
conjugate gradients, image moments and polygon geometry -- run once with
NumPy and once with ``torchlike.numpy``, with round 4's oracle and
conventions (NumPy for values, dtypes and shapes; random inputs drawn once
by NumPy).

What they found (each with a focused test at the end):

- ``x.flat[i]``, ``x.flat[a:b]``, ``x.flat[[i, j]]`` and iteration over
  ``x.flat`` gave views: ``v = x.flat[4]; v += 100`` wrote into ``x``. They
  are copies now, as NumPy's reads are.
- ``np.polynomial``'s ``polygrid2d`` (and every ``*grid2d``/``*grid3d``) of
  tensor axes broadcast the coefficients against each axis (one value per
  point, or a broadcast error); the ``*val2d``/``*val3d`` forms made
  ndarrays of tensors; ``polyvander2d`` and the other Vandermonde matrices
  of device points were refused.  All evaluate on the tensors now.
- On the emulated device: ``np.asarray`` of a masked array went through
  its DLPack export (refused for a device's memory), and ``np.require``,
  ``np.asanyarray`` and ``np.asarray_chkfinite`` were NumPy's own functions
  (device tensors refused, tensors that require grad refused on the CPU too,
  ``np.asanyarray(x) is x`` False, a masked array's mask dropped).
- On the emulated device, ``computed_sizes``: a count computed as a 0-d
  tensor was refused by the windows (``np.hanning(n)``), ``np.diag_indices``,
  ``np.pad``'s widths and values, ``np.random.rand``'s sizes and
  ``np.roll``'s axis (NumPy's conversion reads host memory only).
- On the emulated device, ``data_driven_edges``: lists holding computed
  0-d values were refused as ``np.histogram``/``np.histogram2d`` bins
  (NumPy's code asked ``np.ndim`` of the list), as the values of
  ``np.insert`` and ``np.put``, as a masked array's data, as
  ``np.corrcoef``'s rows and as the Generator's parameters (``loc``, ``p``).
- ``np.convolve(x, gain)`` with a number (or 0-d array) for a one-tap
  filter raised ValueError; NumPy reads convolve's operands as 1-d
  (``np.correlate`` keeps refusing them, with NumPy's words).

What differs by design, spelled around here (docs/numpy.md): an element
read by indexing (``a[0]``, ``z[()]``, each item of ``for v in a``) is a
0-d *view*, PyTorch's, so ``s = a[0]; s += 1`` writes ``a`` where NumPy's
scalar copy does not -- the programs copy (``.copy()``, ``.item()``) and a
focused test pins both spellings; ``int_array / n``, ``np.arange(n) - 0.5``
and float functions of integer arrays (``np.exp2(ints)``) are float32
(PyTorch's promotion); the Tensor methods ``x.sum(axis=)`` of small
integers (int64, NumPy uint64) and ``x.std()`` (unbiased) are PyTorch's,
so the programs call ``np.sum``/``np.std``; integer ``//`` and ``%`` by
zero with operators raise ZeroDivisionError (the ufuncs give NumPy's 0);
a masked array's ``count()`` is a Python int."""
import numpy
import pytest

import torchlike
import torchlike.numpy as tnp
from oracle import TEST_DEVICE
from test_numpy_programs import _run, _same

_RNG = numpy.random.default_rng(8)
ROD = numpy.sin(numpy.linspace(0, numpy.pi, 41)) + 0.1 * _RNG.random(41)
MEMBRANE = _RNG.normal(0, 1, (12, 12))
PULSE = numpy.exp(-((numpy.linspace(0, 1, 60) - 0.3) / 0.05) ** 2)
PHOTO = _RNG.integers(0, 256, (14, 16)).astype(numpy.uint8)
_T512 = numpy.linspace(0, 1, 512)
CHIRP = (numpy.sin(2 * numpy.pi * (40 + 30 * _T512) * _T512)
         + 0.2 * _RNG.normal(0, 1, 512))
DESIGN = _RNG.normal(0, 1, (40, 3))
RESPONSE = DESIGN @ numpy.array([1.5, -2.0, 0.5]) + 0.3 + 0.1 * _RNG.normal(0, 1, 40)
EDGES = _RNG.random((9, 9)) < 0.25
WEIGHTS = _RNG.integers(1, 10, (7, 7)).astype(numpy.float64)
ORDERS = _RNG.integers(0, 6, 40)
AMOUNTS = _RNG.uniform(1, 50, 40).round(2)
DAYS = numpy.sort(_RNG.integers(0, 30, 40))
READINGS = numpy.where(_RNG.random((5, 8)) < 0.2, -999.0, _RNG.normal(20, 3, (5, 8)))
LIFE = (_RNG.random((10, 10)) < 0.35).astype(numpy.int64)
IDS_A = numpy.unique(_RNG.integers(0, 40, 18))
IDS_B = numpy.unique(_RNG.integers(0, 40, 15))
SURNAMES = _RNG.integers(0, 4, 20)
AGES = _RNG.integers(20, 24, 20)
SALARY = _RNG.integers(30, 60, 20) * 1000
STACK = _RNG.normal(0, 1, (4, 3, 3)) + 3 * numpy.eye(3)
RHS = _RNG.normal(0, 1, (4, 3, 2))
POINTS3 = _RNG.uniform(-1, 1, (200, 3))
VEL = _RNG.normal(0, 1, (6, 3))
POS = _RNG.normal(0, 1, (6, 3))
SAMPLES = _RNG.normal(0, 1, (300, 2)) @ numpy.array([[1.0, 0.4], [0.0, 0.6]])
ARRIVALS = numpy.cumsum(_RNG.exponential(1.0, 30))
SERVICE = _RNG.exponential(0.8, 30)
LABELS = _RNG.integers(0, 3, 30)
FEATURES = _RNG.normal(0, 1, (30, 2)) + numpy.array([[0, 0], [3, 0], [0, 3]])[LABELS]
QUERIES = _RNG.normal(1, 1.5, (8, 2))
SERIES_A = numpy.sin(numpy.linspace(0, 6, 25))
SERIES_B = numpy.sin(numpy.linspace(0, 6, 30) - 0.5)
LIFETIMES = _RNG.exponential(5.0, 40).round(1)
ANGLES8 = _RNG.uniform(0, 360, 14)
OBSERVED = _RNG.random(40) < 0.7
NOISY_X8 = numpy.linspace(2, 5, 20)
NOISY_Y8 = 3 - NOISY_X8 + 0.4 * NOISY_X8 ** 2 + 0.1 * _RNG.normal(0, 1, 20)


# ---- finite differences -------------------------------------------------------

def heat_rod(np):
    """The heat equation on a rod: explicit steps written as in-place slice
    updates (the right side read before the write, as NumPy's temporaries
    make it), Dirichlet ends, the same by np.roll on a ring, and implicit
    (backward Euler) steps by a tridiagonal solve built with np.diag."""
    u = np.asarray(ROD).copy()
    r = 0.4
    u[0] = u[-1] = 0.0
    for _ in range(50):
        u[1:-1] += r * (u[2:] - 2 * u[1:-1] + u[:-2])
    ring = np.asarray(ROD).copy()
    for _ in range(50):
        ring += r * (np.roll(ring, 1) - 2 * ring + np.roll(ring, -1))
    n = 39
    off = np.full(n - 1, -r)
    A = np.diag(np.full(n, 1 + 2 * r)) + np.diag(off, 1) + np.diag(off, -1)
    v = np.asarray(ROD)[1:-1].copy()
    for _ in range(10):
        v = np.linalg.solve(A, v)
    return u[::4], ring[::5], ring.sum(), v[::6], np.abs(np.diff(u)).max(), np.argmax(u)


def wave_membrane(np):
    """A vibrating membrane by leapfrog steps: the five-point Laplacian by
    np.roll along both axes, fixed edges zeroed by slicing each step, and the
    discrete energy through the run."""
    u = np.asarray(MEMBRANE).copy()
    u[0, :] = u[-1, :] = u[:, 0] = u[:, -1] = 0
    prev = u.copy()
    c2 = 0.2
    energy = []
    for _ in range(30):
        lap = (np.roll(u, 1, 0) + np.roll(u, -1, 0) + np.roll(u, 1, 1) + np.roll(u, -1, 1) - 4 * u)
        nxt = 2 * u - prev + c2 * lap
        nxt[[0, -1], :] = 0
        nxt[:, [0, -1]] = 0
        prev, u = u, nxt
        energy.append(float((u ** 2).sum()))
    return u[::3, ::3], np.asarray(energy)[::6], np.unravel_index(np.argmax(np.abs(u)), u.shape)


def advection_schemes(np):
    """A pulse advected by upwind and Lax-Wendroff steps on a periodic grid,
    the upwind direction chosen by np.where on the velocity's sign, the
    total variation and the mass of each."""
    q = np.asarray(PULSE)
    c = 0.5
    up, lw = q.copy(), q.copy()
    vel = np.where(np.arange(60) < 30, 1.0, -1.0)
    mixed = q.copy()
    for _ in range(20):
        up = up - c * (up - np.roll(up, 1))
        lw = lw - c / 2 * (np.roll(lw, -1) - np.roll(lw, 1)) + c ** 2 / 2 * (
            np.roll(lw, -1) - 2 * lw + np.roll(lw, 1))
        flux = np.where(vel > 0, mixed - np.roll(mixed, 1), np.roll(mixed, -1) - mixed)
        mixed -= c * np.abs(vel) * flux
    tv = lambda a: np.abs(np.diff(a, append=a[:1])).sum()
    return up[::5], lw[::5], mixed[::5], tv(up), tv(lw), up.sum(), lw.sum(), np.argmax(up)


def poisson_relaxation(np):
    """Poisson's equation on a square by Jacobi sweeps and by red-black
    Gauss-Seidel sweeps written as strided in-place updates of the interior,
    with the residual's norm after each."""
    n = 10
    f = np.ones((n, n))
    f[4:6, 4:6] = -8.0
    h2 = (1.0 / (n - 1)) ** 2
    jac = np.zeros((n, n))
    for _ in range(40):
        jac[1:-1, 1:-1] = 0.25 * (jac[2:, 1:-1] + jac[:-2, 1:-1] + jac[1:-1, 2:] + jac[1:-1, :-2]
                                  - h2 * f[1:-1, 1:-1])
    gs = np.zeros((n, n))
    ii, jj = np.meshgrid(np.arange(n), np.arange(n), indexing="ij")
    red = ((ii + jj) % 2 == 0)
    red[[0, -1], :] = red[:, [0, -1]] = False
    black = ~red
    black[[0, -1], :] = black[:, [0, -1]] = False
    res = []
    for _ in range(20):
        for mask in (red, black):
            nb = np.zeros_like(gs)
            nb[1:-1, 1:-1] = gs[2:, 1:-1] + gs[:-2, 1:-1] + gs[1:-1, 2:] + gs[1:-1, :-2]
            gs[mask] = 0.25 * (nb[mask] - h2 * f[mask])
        r = np.zeros_like(gs)
        r[1:-1, 1:-1] = (gs[2:, 1:-1] + gs[:-2, 1:-1] + gs[1:-1, 2:] + gs[1:-1, :-2]
                         - 4 * gs[1:-1, 1:-1]) / h2 - f[1:-1, 1:-1]
        res.append(np.linalg.norm(r))
    return jac[::3, ::3], gs[::3, ::3], np.asarray(res)[::4], red.sum(), black.sum()


# ---- images and signals -------------------------------------------------------

def window_filters(np):
    """Neighbourhood filters of a uint8 photo by sliding_window_view: local
    mean, min, max, median and variance of 3x3 windows, Sobel gradients by
    einsum against the windows, a strided (every second) window grid, and a
    non-maximum suppression of the gradient magnitude."""
    img = np.asarray(PHOTO)
    w = np.lib.stride_tricks.sliding_window_view(img, (3, 3))
    f = img.astype(np.float64)
    wf = np.lib.stride_tricks.sliding_window_view(f, (3, 3))
    kx = np.array([[-1.0, 0, 1], [-2, 0, 2], [-1, 0, 1]])
    gx = np.einsum("ijkl,kl->ij", wf, kx)
    gy = np.einsum("ijkl,lk->ij", wf, kx)
    mag = np.hypot(gx, gy)
    mw = np.lib.stride_tricks.sliding_window_view(np.pad(mag, 1, mode="edge"), (3, 3))
    peaks = mag >= mw.max(axis=(-2, -1))
    coarse = np.lib.stride_tricks.sliding_window_view(img, (4, 4))[::2, ::2]
    rows = np.lib.stride_tricks.sliding_window_view(img, 5, axis=1)
    return (w.shape, w.mean(axis=(-2, -1))[::3, ::3], w.min(axis=(-2, -1)),
            w.max(axis=(2, 3)).dtype.name,
            np.median(wf, axis=(-2, -1))[::4, ::4], wf.var(axis=(-2, -1))[:2], gx[:3, :3],
            mag.max(),
            np.count_nonzero(peaks), coarse.shape, np.sum(coarse, axis=(2, 3))[:2], rows.shape,
            rows.max(axis=-1)[0])


def windowed_spectrum(np):
    """A chirp's spectrum as a lab script computes it: Hann and Kaiser
    windows with their coherent gains, a zero-padded rfft, peak frequency by
    rfftfreq, Welch-style averaging of overlapping segments made by
    sliding_window_view, and an irfft round trip."""
    x = np.asarray(CHIRP)
    fs = 512.0
    han = np.hanning(len(x))
    kai = np.kaiser(len(x), 8.6)
    spec_h = np.abs(np.fft.rfft(x * han, n=1024)) / han.sum() * 2
    spec_k = np.abs(np.fft.rfft(x * kai, n=1024)) / kai.sum() * 2
    freqs = np.fft.rfftfreq(1024, d=1 / fs)
    seg = np.lib.stride_tricks.sliding_window_view(x, 128)[::64]
    win = np.hanning(128)
    psd = (np.abs(np.fft.rfft(seg * win, axis=-1)) ** 2).mean(axis=0) / (win ** 2).sum()
    back = np.fft.irfft(np.fft.rfft(x), n=len(x))
    band = (freqs > 30) & (freqs < 80)
    return (freqs[np.argmax(spec_h)], freqs[np.argmax(spec_k)], spec_h[::64], spec_k.max(),
            seg.shape,
            psd[::8], np.allclose(back, x), np.trapezoid(spec_h[band], freqs[band]), han.sum(),
            kai[:3], np.kaiser(5, 0), np.hanning(1), np.kaiser(1, 5.0))


def fir_design(np):
    """A windowed-sinc low-pass FIR filter: taps by np.sinc and np.blackman,
    normalised to unit gain, applied with np.convolve in its three modes,
    its frequency response by rfft of the zero-padded taps, the -3 dB
    point by np.interp, and a moving-average filter for comparison."""
    x = np.asarray(CHIRP)
    m = 31
    n = np.arange(float(m)) - (m - 1) / 2
    h = np.sinc(2 * 0.1 * n) * np.blackman(m)
    h = h / h.sum()
    full = np.convolve(x, h)
    same = np.convolve(x, h, mode="same")
    valid = np.convolve(x, h, mode="valid")
    H = np.abs(np.fft.rfft(h, 256))
    f = np.fft.rfftfreq(256)
    db = 20 * np.log10(np.maximum(H, 1e-12))
    cut = np.interp(-3.0, db[::-1], f[::-1])
    box = np.convolve(x, np.ones(5) / 5, mode="valid")
    return (h[:4], full.shape, same.shape, valid.shape, same[::50], valid[::60], H[::32], cut,
            np.allclose(full[m - 1:len(x)], valid), box[::100],
            np.convolve([1, 2, 3], [0, 1, 0.5]),
            np.convolve(np.asarray([1, 2, 3]), np.asarray([1, -1])))


# ---- regression and statistics ------------------------------------------------

def linear_regression(np):
    """Ordinary least squares four ways: lstsq with rcond=None, the normal
    equations by solve, QR (solve_triangular-free: solve of R), pinv; then R
    squared, residual standard error, standard errors of the coefficients,
    ridge regression as an augmented system, and several responses at once."""
    X = np.column_stack([np.ones(len(DESIGN)), np.asarray(DESIGN)])
    y = np.asarray(RESPONSE)
    beta, res, rank, sv = np.linalg.lstsq(X, y, rcond=None)
    beta_ne = np.linalg.solve(X.T @ X, X.T @ y)
    q, r = np.linalg.qr(X)
    beta_qr = np.linalg.solve(r, q.T @ y)
    beta_pinv = np.linalg.pinv(X) @ y
    fit = X @ beta
    ss_res = ((y - fit) ** 2).sum()
    ss_tot = ((y - y.mean()) ** 2).sum()
    dof = X.shape[0] - X.shape[1]
    sigma2 = ss_res / dof
    se = np.sqrt(np.diag(sigma2 * np.linalg.inv(X.T @ X)))
    lam = 2.0
    Xa = np.vstack([X, np.sqrt(lam) * np.eye(4)])
    ya = np.concatenate([y, np.zeros(4)])
    ridge = np.linalg.lstsq(Xa, ya, rcond=None)[0]
    Y = np.stack([y, 2 * y + 1], axis=1)
    B = np.linalg.lstsq(X, Y, rcond=None)[0]
    return (beta, res, rank, sv, beta_ne, np.abs(beta_qr), beta_pinv, 1 - ss_res / ss_tot, se,
            np.sqrt(sigma2), ridge, B, beta / se)


def generator_shapes(np):
    """The Generator's less common distributions by what holds of every
    stream: shapes and dtypes, supports (dirichlet rows sum to one,
    multinomial counts sum to n, hypergeometric within its bounds,
    triangular within its ends), broadcasting of array parameters, and
    moments of large samples within loose bounds."""
    rng = np.random.default_rng(2024)
    n = 20000
    d = rng.dirichlet([1.0, 2.0, 3.0], size=500)
    m = rng.multinomial(20, [0.2, 0.3, 0.5], size=(4, 5))
    hg = rng.hypergeometric(7, 5, 6, size=1000)
    tri = rng.triangular(-1.0, 0.5, 2.0, size=n)
    geo = rng.geometric(0.25, size=n)
    lap = rng.laplace(1.0, 2.0, size=n)
    logn = rng.lognormal(0.0, 0.5, size=n)
    st = rng.standard_t(10.0, size=n)
    wb = rng.weibull(2.0, size=n)
    chi = rng.chisquare(4.0, size=n)
    ray = rng.rayleigh(2.0, size=n)
    broad = rng.normal(np.asarray([0.0, 10.0, 100.0]), np.asarray([[1.0], [2.0]]))
    close = lambda v, want, tol: bool(abs(float(v) - want) < tol)
    return (d.shape, np.allclose(d.sum(axis=1), 1.0), close(d.mean(axis=0)[2], 0.5, 0.03),
            m.shape, bool((m.sum(axis=-1) == 20).all()), m.dtype.name,
            bool(hg.min() >= 0), bool(hg.max() <= 6), close(hg.mean(), 6 * 7 / 12, 0.15),
            bool(tri.min() >= -1), bool(tri.max() <= 2), close(tri.mean(), 0.5, 0.03),
            int(geo.min()), close(geo.mean(), 4.0, 0.15), geo.dtype.name,
            close(np.median(lap), 1.0, 0.1), close(lap.var(), 8.0, 0.5),
            close(np.log(logn).std(), 0.5, 0.02), close(st.var(), 1.25, 0.1),
            close(wb.mean(), 0.886, 0.02), close(chi.mean(), 4.0, 0.1),
            close(ray.mean(), 2.0 * 1.2533, 0.05), broad.shape, broad.dtype.name)


def monte_carlo_estimates(np):
    """Monte Carlo on uniform points drawn once: the volume of the unit
    ball, an importance-weighted integral, the standard error of each, a
    running estimate by cumsum, and the sample covariance of correlated
    normals against its design with np.cov's bias= and ddof=."""
    p = np.asarray(POINTS3)
    inside = (p ** 2).sum(axis=1) <= 1
    vol = 8 * inside.mean()
    se = 8 * inside.std(ddof=1) / np.sqrt(len(p))
    running = 8 * np.cumsum(inside) / np.arange(1.0, len(p) + 1)
    g = np.exp(-(p ** 2).sum(axis=1))
    integral = 8 * g.mean()
    s = np.asarray(SAMPLES)
    return (vol, se, running[::40], integral, np.cov(s.T), np.cov(s, rowvar=False, bias=True),
            np.cov(s.T, ddof=0), np.corrcoef(s.T)[0, 1], inside.sum(), inside.dtype.name,
            np.cov(s[:, 0], s[:, 1]), np.cov(s[:5].T, aweights=np.arange(1.0, 6.0)))


# ---- graphs and bookkeeping ---------------------------------------------------

def graph_walks(np):
    """Graph algorithms on an adjacency matrix: reachability by repeated
    boolean products, BFS levels, Floyd-Warshall shortest paths as in-place
    np.minimum updates, connected components by label propagation, triangle
    counts by trace(A^3)/6, and the Laplacian's zero eigenvalues."""
    e = np.asarray(EDGES)
    A = (e | e.T) & ~np.eye(9, dtype=bool)
    Ai = A.astype(np.int64)
    reach = np.eye(9, dtype=bool)
    for _ in range(9):
        reach = reach | ((reach.astype(np.int64) @ Ai) > 0)
    level = np.full(9, -1)
    level[0] = 0
    frontier = np.zeros(9, dtype=bool)
    frontier[0] = True
    d = 0
    while frontier.any():
        d += 1
        nxt = (A[frontier].any(axis=0)) & (level < 0)
        level[nxt] = d
        frontier = nxt
    W = np.where(A, 1.0 + np.add.outer(np.arange(9.0), np.arange(9.0)) % 4, np.inf)
    np.fill_diagonal(W, 0.0)
    dist = W.copy()
    for k in range(9):
        np.minimum(dist, dist[:, k, None] + dist[None, k, :], out=dist)
    lab = np.arange(9)
    for _ in range(9):
        nb = np.where(A, lab[None, :], 9).min(axis=1)
        lab = np.minimum(lab, nb)
    L = np.diag(Ai.sum(axis=1)) - Ai
    ev = np.linalg.eigvalsh(L.astype(np.float64))
    return (reach, level, dist, np.unique(lab), np.trace(np.linalg.matrix_power(Ai, 3)) // 6,
            np.sum(np.abs(ev) < 1e-9), Ai.sum(axis=0), np.isinf(dist).sum())


def ledger(np):
    """Sparse-ish bookkeeping of orders: totals per customer by bincount and
    by np.add.at, counts and first/last order days by unique with its
    indices, each order's rank within its customer by a stable lexsort,
    running balances per customer by cumsum of the sorted amounts minus each
    group's start, and day buckets by searchsorted with side='right'."""
    cust, amt, day = np.asarray(ORDERS), np.asarray(AMOUNTS), np.asarray(DAYS)
    tot = np.bincount(cust, weights=amt, minlength=6)
    tot2 = np.zeros(6)
    np.add.at(tot2, cust, amt)
    keys, first, inv, counts = np.unique(cust, return_index=True, return_inverse=True,
                                         return_counts=True)
    last = len(cust) - 1 - np.unique(cust[::-1], return_index=True)[1]
    order = np.lexsort((day, cust))
    sc = cust[order]
    starts = np.searchsorted(sc, sc, side="left")
    rank = np.arange(len(sc)) - starts
    csum = np.cumsum(amt[order])
    group_start = np.concatenate([[0.0], csum])[starts]
    running = csum - group_start
    weeks = np.searchsorted(np.asarray([7, 14, 21, 28]), day, side="right")
    per_week = np.bincount(weeks, weights=amt, minlength=5)
    biggest = np.zeros(6)
    np.maximum.at(biggest, cust, amt)
    return (tot, np.allclose(tot, tot2), keys, first, inv[:10], counts, last, rank, running[::5],
            weeks, per_week, biggest, day[first], np.argsort(-tot, kind="stable"))


def lagged_series(np):
    """A daily series without dates: centred and trailing moving averages
    by np.convolve, second differences by diff(n=2), the autocorrelation by
    np.correlate in 'full' mode normalised, the lag of its first zero
    crossing, cumulative returns by cumprod, drawdowns by
    maximum.accumulate, and seasonal means by reshape."""
    x = 100 + np.cumsum(np.asarray(CHIRP)[:140])
    trail = np.convolve(x, np.ones(7) / 7, mode="valid")
    centre = np.convolve(x, np.ones(7) / 7, mode="same")
    d2 = np.diff(x, n=2)
    xc = x - x.mean()
    ac = np.correlate(xc, xc, mode="full")[len(x) - 1:]
    ac = ac / ac[0]
    zero = np.argmax(ac < 0)
    ret = x[1:] / x[:-1] - 1
    growth = np.cumprod(1 + ret)
    peak = np.maximum.accumulate(x)
    dd = (x - peak) / peak
    weekly = x.reshape(20, 7).mean(axis=0)
    return (trail[::20], centre[:3], centre[-3:], d2[::30], ac[:5], zero, growth[-1], dd.min(),
            np.argmin(dd), weekly - weekly.mean(), np.correlate(np.asarray([1.0, 2, 3]),
                                                                np.asarray([0.0, 1, 0.5]), "same"))


def masked_readings(np):
    """Sensor readings with a -999 sentinel as numpy.ma code treats them:
    masked_values, per-row and per-column means and counts, anomalies,
    filled with the column means, compressed values, the masked argmax
    per row, cumulative sums that skip masked values, and the mask's
    shape after a reduction."""
    r = np.ma.masked_values(np.asarray(READINGS), -999.0)
    col_mean = r.mean(axis=0)
    filled = r.filled(0.0) + np.where(r.mask, col_mean.filled(0.0)[None, :], 0.0)
    anom = r.anom(axis=1)
    hot = np.ma.masked_greater(r, 22.0)
    return (r.count(axis=1), r.mean(axis=1).filled(np.nan), col_mean.filled(np.nan), filled,
            anom.filled(0.0), np.sort(r.compressed())[:5], r.argmax(axis=1), r.sum(),
            int(hot.count()), np.ma.getmaskarray(hot).sum(), r.std(axis=0).filled(-1.0),
            r.min(axis=0).filled(0.0), r.cumsum(axis=1).filled(0.0)[0], r.mask.shape,
            np.ma.is_masked(r), r.max(), np.ma.count_masked(r, axis=0))


def index_loops(np):
    """Loops over np.ndindex and np.ndenumerate as numerical code writes
    them: Pascal's triangle in a matrix, a game of life step with explicit
    neighbour counts, local maxima collected into a list, and a dynamic
    time warping table filled cell by cell."""
    pas = np.zeros((6, 6), dtype=np.int64)
    for i, j in np.ndindex(6, 6):
        pas[i, j] = 1 if i == 0 or j == 0 else pas[i - 1, j] + pas[i, j - 1]
    board = np.asarray(LIFE)
    nb = np.zeros_like(board)
    for (i, j), _ in np.ndenumerate(board):
        nb[i, j] = board[max(i - 1, 0):i + 2, max(j - 1, 0):j + 2].sum() - board[i, j]
    nxt = ((nb == 3) | ((board == 1) & (nb == 2))).astype(np.int64)
    m = np.asarray(MEMBRANE)[:5, :5]
    peaks = [idx for idx, v in np.ndenumerate(m)
             if v == m[max(idx[0] - 1, 0):idx[0] + 2, max(idx[1] - 1, 0):idx[1] + 2].max()]
    a, b = np.asarray(SERIES_A), np.asarray(SERIES_B)
    D = np.full((len(a) + 1, len(b) + 1), np.inf)
    D[0, 0] = 0.0
    for i, j in np.ndindex(len(a), len(b)):
        D[i + 1, j + 1] = abs(a[i] - b[j]) + min(D[i, j + 1], D[i + 1, j], D[i, j])
    return (pas, nb, nxt, nxt.sum(), peaks, D[-1, -1], D[5, 5:8],
            list(np.ndindex(2, 1, 2)), [v for _, v in np.ndenumerate(np.arange(3.0))])


def id_sets(np):
    """Set operations on ID lists: intersect1d with return_indices= (and
    assume_unique=), setdiff1d with assume_unique, union1d, setxor1d, isin
    with invert= and with kind='table', unique rows by axis=0, and joins by
    the returned indices."""
    a, b = np.asarray(IDS_A), np.asarray(IDS_B)
    common, ia, ib = np.intersect1d(a, b, return_indices=True)
    common2, ia2, ib2 = np.intersect1d(a, b, assume_unique=True, return_indices=True)
    dup = np.asarray([5, 3, 5, 9, 3, 1])
    c3, i3, j3 = np.intersect1d(dup, np.asarray([3, 9, 9, 4]), return_indices=True)
    only_a = np.setdiff1d(a, b, assume_unique=True)
    score_a = a * 10
    joined = score_a[ia] + b[ib]
    rows = np.asarray([[1, 2], [3, 4], [1, 2], [0, 9], [3, 4]])
    ur, ri, rinv, rc = np.unique(rows, axis=0, return_index=True, return_inverse=True,
                                 return_counts=True)
    return (common, ia, ib, common2, ia2, ib2, c3, i3, j3, only_a, np.setdiff1d(dup, [3]),
            np.union1d(a, b), np.setxor1d(a, b), np.isin(a, b, invert=True),
            np.isin(a, b, kind="table"), np.isin(dup, [[3], [9]]), joined, ur, ri, rinv, rc,
            np.intersect1d(np.asarray([], dtype=np.int64), a).shape)


def stable_records(np):
    """Record keeping with parallel columns: a multi-key sort by lexsort
    (last key primary), stable argsort preserving ties' order, ranks with
    ties by searchsorted ('min' and 'max' ranks), the dense rank by unique,
    the top earner per surname by a sort and unique's first index, and a
    reordering of every column by one permutation."""
    sn, age, sal = np.asarray(SURNAMES), np.asarray(AGES), np.asarray(SALARY)
    order = np.lexsort((-sal, age, sn))
    by_age = np.argsort(age, kind="stable")
    by_age_desc = np.argsort(-age, kind="stable")
    s = np.sort(sal)
    rmin = np.searchsorted(s, sal, side="left") + 1
    rmax = np.searchsorted(s, sal, side="right")
    dense = np.unique(sal, return_inverse=True)[1] + 1
    o = np.lexsort((-sal, sn))
    tops = o[np.unique(sn[o], return_index=True)[1]]
    table = np.stack([sn, age, sal])[:, order]
    return (order, by_age, by_age_desc, rmin, rmax, dense, tops, sal[tops], table[:, :6],
            np.argsort(sn, stable=True), np.sort(age, kind="stable")[::4])


# ---- integers, in-place updates and memory -------------------------------------

def integer_corners(np):
    """Integer arithmetic at its edges: sums and cumsums of small integer
    dtypes (NumPy's functions widen them), int8 products that wrap, the
    absolute value of int8's minimum, int64's maximum plus one, floor
    division and remainder with negative operands, np.fmod's sign, integer
    powers that wrap, uint8 differences that wrap, and clipping into range
    before a narrowing cast."""
    i8 = np.asarray([-128, -100, 7, 127], dtype=np.int8)
    u8 = np.asarray([250, 3, 128, 0], dtype=np.uint8)
    i32 = np.asarray([2 ** 31 - 1, 1, -5], dtype=np.int32)
    big = np.asarray([np.iinfo(np.int64).max], dtype=np.int64)
    a = np.asarray([-7, 7, -7, 7])
    b = np.asarray([2, -2, -2, 2])
    return (np.sum(i8), np.sum(u8), np.cumsum(u8), np.sum(i32), np.cumsum(i32), np.prod(i8[2:]),
            i8 * np.int8(3), np.abs(i8), big + 1, a // b, a % b, np.fmod(a, b), np.remainder(a, b),
            np.divmod(a, b), np.power(np.asarray([3], dtype=np.int8), 5),
            np.diff(u8), u8 - np.uint8(1),
            np.clip(np.asarray([-300, 5, 300]), -128, 127).astype(np.int8),
            np.asarray([300, -1]).astype(np.uint8), np.left_shift(np.int64(1), np.arange(60, 64)),
            np.negative(u8), np.sum(i8, dtype=np.int8), np.mean(u8), np.add.reduce(u8),
            np.multiply.accumulate(np.asarray([16, 16, 16], dtype=np.int16)))


def view_updates(np):
    """In-place arithmetic through views as NumPy code writes it: strided
    slices scaled in place, a transpose updated in place, a column
    updated from another column, an augmented assignment through a
    reshape view, masked and fancy-index augmented assignments (NumPy
    buffers a repeated index: it adds once), ufuncs writing into a slice
    with out=, and 0-d results (reductions, copies of elements) updated in
    place without touching the array."""
    a = np.arange(12.0)
    a[::2] *= 2
    m = a.reshape(3, 4)
    m.T[1:] += 100
    m[:, 0] -= m[:, 1]
    v = a.reshape(2, 6)
    v[1] /= 2
    idx = np.asarray([0, 0, 1])
    w = np.zeros(4)
    w[idx] += 1
    w[w > 0] += 10
    np.add(a[:3], a[3:6], out=a[6:9])
    s = a.sum()
    s += 1
    t = a[2].copy()
    t *= 100
    acc = np.zeros(3)
    for k in range(3):
        acc += a.reshape(4, 3)[k]
    x = np.ones((3, 3))
    x[1:, 1:] @= np.asarray([[0.0, 1.0], [1.0, 0.0]])
    row = x[0]
    row += 5
    return a, m.shape, w, s, t, acc, x, np.shares_memory(row, x), m.base is not None


def ufunc_out_where(np):
    """Ufuncs with out= and where= as guarded numerical code calls them:
    safe division into a preset out array, square roots only where
    defined, reductions with where= and initial=, an out= tuple for
    divmod, a ufunc returning its out argument, and accumulate into an
    out= of a wider dtype."""
    a = np.asarray([1.0, 4.0, -9.0, 0.0, 16.0])
    b = np.asarray([2.0, 0.0, 3.0, 0.0, -4.0])
    q = np.divide(a, b, out=np.full_like(a, np.nan), where=b != 0)
    r = np.sqrt(a, out=np.zeros_like(a), where=a >= 0)
    tot = np.add.reduce(a, where=a > 0)
    mx = np.maximum.reduce(a, where=a < 10, initial=-np.inf)
    mn = np.minimum.reduce(np.asarray([[3.0, 1.0], [2.0, 5.0]]), axis=1,
                           where=[[True, False], [True, True]],
                           initial=np.inf)
    qq, rr = np.empty(3), np.empty(3)
    ret = np.divmod(np.asarray([7.0, -7.0, 7.5]), 2.0, out=(qq, rr))
    buf = np.zeros(5)
    same = np.multiply(a, 2, out=buf) is buf
    acc = np.add.accumulate(np.asarray([100, 100, 100], dtype=np.int8), dtype=np.int64)
    into = np.empty(3, dtype=np.float64)
    np.add.accumulate(np.asarray([1, 2, 3]), out=into)
    m = np.asarray([[1.0, 2.0], [3.0, 4.0]])
    np.exp(m, out=m, where=np.asarray([True, False]))
    return (q, r, tot, mx, mn, qq, rr, ret[0] is qq, buf, same, acc, into,
            m, np.add(a, 1, where=a > 0, out=a.copy()), np.sum(a, where=b != 0))


def copies_and_layouts(np):
    """Copy semantics that programs rely on: np.copy, .copy(), np.array
    and np.asarray of an existing array, ascontiguousarray of a transpose,
    asfortranarray's strides and flags, copy(order='F'), and what each one
    sees after the original is modified."""
    a = np.arange(12.0).reshape(3, 4)
    c1, c2, c3, c4 = np.copy(a), a.copy(), np.array(a), np.asarray(a)
    t = a.T
    ct = np.ascontiguousarray(t)
    f = np.asfortranarray(a)
    fo = a.copy(order="F")
    a[0, 0] = 99.0
    flags = [(x.flags.c_contiguous, x.flags.f_contiguous, x.flags.owndata)
             for x in (a, t, ct, f, fo)]
    return (c1[0, 0], c2[0, 0], c3[0, 0], c4[0, 0], c4 is a, ct.strides, t.strides, f.strides,
            fo.strides, flags, np.shares_memory(ct, a), np.shares_memory(t, a),
            np.ascontiguousarray(5.0).shape, np.asfortranarray(np.arange(3)).strides,
            np.array(a[:, 1], copy=True).flags.c_contiguous, np.isfortran(f), np.isfortran(a))


def contraction_paths(np):
    """Planning a chain of contractions: np.einsum_path's greedy and optimal
    paths (the list, not its printed report), einsum with optimize= given a
    precomputed path, True, or 'greedy', and the same product by
    multi_dot and by explicit tensordot calls."""
    A = np.asarray(DESIGN)[:10]
    B = np.asarray(STACK)[0]
    C = np.asarray(RHS)[0]
    D = np.ones((2, 5))
    pg, _ = np.einsum_path("ij,jk,kl,lm->im", A, B, C, D, optimize="greedy")
    po, _ = np.einsum_path("ij,jk,kl,lm->im", A, B, C, D, optimize="optimal")
    r1 = np.einsum("ij,jk,kl,lm->im", A, B, C, D, optimize=pg)
    r2 = np.einsum("ij,jk,kl,lm->im", A, B, C, D, optimize=True)
    r3 = np.einsum("ij,jk,kl,lm->im", A, B, C, D, optimize="greedy")
    r4 = np.linalg.multi_dot([A, B, C, D])
    r5 = np.tensordot(np.tensordot(np.tensordot(A, B, 1), C, 1), D, axes=([1], [0]))
    tr, _ = np.einsum_path("ii->", B, optimize=True)
    return pg, po, r1, np.allclose(r1, r2), np.allclose(r3, r4), np.allclose(r4, r5), tr


# ---- linear algebra, polynomials and geometry ----------------------------------

def stacked_solves(np):
    """np.linalg on stacks of small systems: solve with a stack of matrices
    and of right-hand sides (and one shared vector broadcast against the
    stack), det/slogdet/inv/eigvals of the stack, norms over the matrix
    axes, matrix_power of a stack, and a residual check by matmul."""
    A = np.asarray(STACK)
    B = np.asarray(RHS)
    X = np.linalg.solve(A, B)
    x1 = np.linalg.solve(A, B[..., 0:1])
    shared = np.linalg.solve(A, np.asarray([1.0, 2.0, 3.0])[None, :, None])[..., 0]
    sign, logdet = np.linalg.slogdet(A)
    ev = np.sort_complex(np.linalg.eigvals(A))
    P = np.linalg.matrix_power(A, 3)
    Pm = np.linalg.matrix_power(A, -2)
    return (X, x1.shape, shared, np.linalg.det(A), sign, logdet, np.linalg.inv(A)[:, 0],
            ev, np.linalg.norm(A, axis=(1, 2)), np.linalg.norm(A, ord=2, axis=(-2, -1)),
            np.linalg.norm(A, ord="nuc", axis=(1, 2)), P[:, 0], Pm[1],
            np.abs(A @ X - B).max() < 1e-10,
            np.linalg.matrix_norm(A, ord=1), np.linalg.vector_norm(A, axis=-1, ord=3))


def polynomial_series(np):
    """The np.polynomial classes beyond fitting: arithmetic and composition
    of Polynomials, roots of a product, deriv/integ with lbnd= and k=,
    conversion between Chebyshev, Legendre and power bases, a Hermite and
    a Laguerre series evaluated on a grid, domain mapping of a fit, cutdeg
    and trim, and linspace of a series."""
    P = np.polynomial.Polynomial
    p = P([1.0, -3.0, 2.0])
    q = P([0.5, 1.0])
    prod = p * q
    quo, rem = divmod(prod + 1, q)
    comp = p(q)
    d = p.deriv(2)
    integ = p.integ(1, k=[2.0], lbnd=1.0)
    ch = np.polynomial.Chebyshev([1.0, 0.5, 0.25, 0.125])
    as_pow = ch.convert(kind=P)
    as_leg = ch.convert(kind=np.polynomial.Legendre)
    x = np.linspace(-1, 1, 7)
    H = np.polynomial.Hermite([1.0, 0.0, 0.5])
    L = np.polynomial.Laguerre([2.0, -1.0, 0.25])
    fit = P.fit(np.asarray(NOISY_X8), np.asarray(NOISY_Y8), 2)
    xs, ys = ch.linspace(5)
    return (prod.coef, np.sort(prod.roots()), quo.coef, rem.coef, comp.coef, d.coef, integ.coef,
            integ(1.0), as_pow.coef, as_leg.coef, H(x), L(x), fit.domain, fit.window,
            fit.convert().coef, fit.coef, ch.cutdeg(1).coef,
            P([1.0, 2.0, 0.0, 1e-15]).trim(1e-10).coef,
            xs, ys, p.degree(), (p ** 2).coef,
            np.polynomial.polynomial.polyvalfromroots(x, [0.5, -1.0]),
            np.polynomial.chebyshev.chebroots([0.0, 1.0, 2.0]),
            np.polynomial.hermite.hermfromroots([1.0, 2.0]))


def binned_fields(np):
    """Particles binned in three dimensions: histogramdd with per-axis bins
    and ranges, with weights and density=, its edges, the occupied cells'
    centres, a 2-d histogram with unequal bins, and cell indices by
    digitize per axis checked against the counts."""
    p = np.asarray(POINTS3)
    H, edges = np.histogramdd(p, bins=(4, 3, 2), range=[(-1, 1), (-1, 1), (-1, 1)])
    Hw, _ = np.histogramdd(p, bins=[np.asarray([-1.0, 0.0, 1.0])] * 3, weights=p[:, 0] ** 2)
    Hd, ed = np.histogramdd(p, bins=3, density=True)
    centres = [(e[1:] + e[:-1]) / 2 for e in edges]
    occ = np.argwhere(H > 8)
    H2, xe, ye = np.histogram2d(p[:, 0], p[:, 1], bins=[np.asarray([-1.0, -0.2, 0.1, 1.0]), 3])
    ix = np.digitize(p[:, 0], edges[0][1:-1])
    iy = np.digitize(p[:, 1], edges[1][1:-1])
    iz = np.digitize(p[:, 2], edges[2][1:-1])
    counts = np.zeros((4, 3, 2), dtype=np.int64)
    np.add.at(counts, (ix, iy, iz), 1)
    vol = np.prod([np.diff(e)[0] for e in ed])
    return (H, edges, Hw, Hd.sum() * vol, centres[0], occ, H2, xe, ye, np.array_equal(counts, H),
            H.dtype.name, np.histogramdd(p[:, :2], bins=2)[0])


def field_operators(np):
    """Vector calculus on a grid made by meshgrid(indexing='ij'): the
    divergence and curl of a rotational field by np.gradient with spacings
    and edge_order=2, a Laplacian by applying gradient twice, the 'xy'
    ordering's transposed shapes, and the flux through the boundary by
    trapezoid along each edge."""
    x = np.linspace(-1, 1, 9)
    y = np.linspace(0, 2, 7)
    X, Y = np.meshgrid(x, y, indexing="ij")
    Xs, Ys = np.meshgrid(x, y)
    u, v = -Y * X ** 2, X * Y
    dx, dy = x[1] - x[0], y[1] - y[0]
    du_dx, du_dy = np.gradient(u, dx, dy, edge_order=2)
    dv_dx, dv_dy = np.gradient(v, x, y, edge_order=2)
    div = du_dx + dv_dy
    curl = dv_dx - du_dy
    phi = X ** 2 * Y
    lap = np.gradient(np.gradient(phi, dx, axis=0, edge_order=2), dx, axis=0, edge_order=2) + \
        np.gradient(np.gradient(phi, dy, axis=1, edge_order=2), dy, axis=1, edge_order=2)
    flux = (np.trapezoid(u[-1], y) - np.trapezoid(u[0], y) + np.trapezoid(v[:, -1], x)
            - np.trapezoid(v[:, 0], x))
    return (X.shape, Xs.shape, div[::3, ::3], curl[::3, ::3], lap[2:4, 2:4], flux,
            np.trapezoid(np.trapezoid(div, y, axis=1), x), np.gradient(phi, axis=1)[0, :3],
            np.gradient(x ** 3, x, edge_order=2)[[0, -1]])


def tariff_schedule(np):
    """Piecewise definitions as billing code writes them: np.piecewise with
    functions and constants (and the implicit otherwise), np.select with a
    default over overlapping conditions (first wins), nested np.where, and
    a tiered charge by clipping the usage into each band."""
    use = np.asarray([0.0, 50.0, 99.9, 100.0, 250.0, 600.0, 1200.0])
    rate = np.piecewise(use, [use < 100, (use >= 100) & (use < 500), use >= 500],
                        [lambda u: 0.1 * u, lambda u: 10 + 0.15 * (u - 100), 80.0])
    other = np.piecewise(use, [use < 50, use > 500], [0.0, lambda u: u / 10, lambda u: -u])
    grade = np.select([use > 1000, use > 200, use > 0], [3, 2, 1], default=0)
    gradef = np.select([use >= 100, use >= 50], [use * 2, use], default=-1.0)
    w = np.where(use < 100, 0, np.where(use < 500, 1, 2))
    bands = np.asarray([0.0, 100.0, 500.0, np.inf])
    prices = np.asarray([0.1, 0.15, 0.2])
    per_band = np.clip(use[:, None] - bands[None, :-1], 0, np.diff(bands)[None, :])
    charge = per_band @ prices
    ints = np.piecewise(np.asarray([-2, 0, 3]), [np.asarray([-2, 0, 3]) < 0],
                        [lambda v: -v, lambda v: v * 2])
    return (rate, other, grade, gradef, w, per_band, charge, ints,
            np.piecewise(np.asarray(2.5), [True], [1.0]))


def rigid_bodies(np):
    """Rigid-body mechanics with cross and tensordot: torques r x F over a
    stack, np.cross with axisa/axisb/axisc for column vectors, the scalar
    triple product, angular momentum summed by tensordot, the inertia
    tensor by einsum with eye, tensordot with axes=0 (outer) and with
    paired axis lists."""
    r, v = np.asarray(POS), np.asarray(VEL)
    m = np.linspace(1.0, 2.0, 6)
    tau = np.cross(r, v)
    colwise = np.cross(r.T, v.T, axisa=0, axisb=0, axisc=0)
    mixed = np.cross(r, v.T, axisb=0)
    triple = np.einsum("ij,ij->i", r, np.cross(v, np.roll(r, 1, axis=0)))
    Lmom = np.tensordot(m, np.cross(r, v), axes=1)
    I = np.einsum("i,ij->", m, r ** 2) * np.eye(3) - np.einsum("i,ij,ik->jk", m, r, r)
    omega = np.linalg.solve(I, Lmom)
    outer = np.tensordot(r[0], v[0], axes=0)
    paired = np.tensordot(np.asarray(STACK), np.asarray(RHS), axes=([0, 1], [0, 1]))
    return (tau, np.allclose(colwise.T, tau), mixed, triple, Lmom, I, omega, outer, paired,
            np.cross(np.asarray([1.0, 0, 0]), np.asarray([0.0, 1, 0])),
            np.cross(np.asarray([[1, 2, 3]]), np.asarray([[4, 5, 6]])))


# ---- algorithms written with NumPy ---------------------------------------------

def gaussian_elimination(np):
    """LU-style elimination with partial pivoting written with NumPy: rows
    swapped by fancy-index assignment, rank-one updates of the trailing
    block in place, back substitution by a loop of dot products, the
    determinant from the pivots and the swaps' sign, checked against
    np.linalg."""
    A0 = np.asarray(STACK)[1] + np.asarray([[0.0, 5.0, 0.0], [0.0, 0.0, 0.0], [4.0, 0.0, 0.0]])
    b0 = np.asarray(RHS)[1][:, 0]
    A, b = A0.copy(), b0.copy()
    n = 3
    sign = 1.0
    perm = np.arange(n)
    for k in range(n):
        p = k + np.argmax(np.abs(A[k:, k]))
        if p != k:
            A[[k, p]] = A[[p, k]]
            b[[k, p]] = b[[p, k]]
            perm[[k, p]] = perm[[p, k]]
            sign = -sign
        f = A[k + 1:, k] / A[k, k]
        A[k + 1:, k:] -= np.outer(f, A[k, k:])
        b[k + 1:] -= f * b[k]
    x = np.zeros(n)
    for i in range(n - 1, -1, -1):
        x[i] = (b[i] - A[i, i + 1:] @ x[i + 1:]) / A[i, i]
    det = sign * np.prod(np.diag(A))
    return (np.triu(A), perm, x, np.allclose(x, np.linalg.solve(A0, b0)), det,
            np.isclose(det, np.linalg.det(A0)), np.tril(A, -1))


def vector_newton(np):
    """Kepler's equation E - e sin E = M solved for many (M, e) at once by
    Newton's method, each element frozen once converged (masked updates in
    place), with per-element iteration counts; cube roots by the same loop;
    and a bisection of a bracketing polynomial for comparison."""
    M = np.linspace(0.1, 6.0, 12)
    e = np.linspace(0.0, 0.9, 12)
    E = M.copy()
    iters = np.zeros(12, dtype=np.int64)
    active = np.ones(12, dtype=bool)
    for _ in range(50):
        f = E - e * np.sin(E) - M
        step = f / (1 - e * np.cos(E))
        E[active] -= step[active]
        iters[active] += 1
        active &= np.abs(step) > 1e-12
        if not active.any():
            break
    c = np.asarray([2.0, 27.0, 1000.0, 0.125])
    r = np.ones_like(c)
    for _ in range(40):
        r -= (r ** 3 - c) / (3 * r ** 2)
    lo, hi = np.zeros(4), np.full(4, 3.0)
    k = np.asarray([1.0, 2.0, 4.0, 8.0])
    for _ in range(50):
        mid = (lo + hi) / 2
        left = (mid ** 2 - k / 4) > 0
        hi = np.where(left, mid, hi)
        lo = np.where(left, lo, mid)
    return E, iters, np.abs(E - e * np.sin(E) - M).max() < 1e-10, r, (lo + hi) / 2


def lorenz_rk4(np):
    """The Lorenz system integrated by classical RK4 for a small batch of
    initial states (state arrays of shape (3, batch)), against explicit
    Euler, with the trajectories' bounding boxes and the divergence of two
    nearby starts."""
    def f(s):
        x, y, z = s
        return np.stack([10 * (y - x), x * (28 - z) - y, x * y - 8 / 3 * z])
    s = np.asarray([[1.0, 1.0 + 1e-8, -5.0], [1.0, 1.0, 7.0], [1.0, 1.0, 20.0]])
    e = s.copy()
    h = 0.01
    traj = [s]
    for _ in range(300):
        k1 = f(s)
        k2 = f(s + h / 2 * k1)
        k3 = f(s + h / 2 * k2)
        k4 = f(s + h * k3)
        s = s + h / 6 * (k1 + 2 * k2 + 2 * k3 + k4)
        e += h * f(e)
        traj.append(s)
    T = np.stack(traj)
    return (s, e, T.min(axis=0), T.max(axis=0),
            np.linalg.norm(T[:, :, 0] - T[:, :, 1], axis=1)[::60],
            T.shape)


def nearest_neighbours(np):
    """A k-nearest-neighbour classifier: squared distances by broadcasting,
    the k nearest by argpartition and a sort of those, votes by bincount per
    query (ties to the smallest label by argmax), leave-one-out accuracy on
    the training set, and a confusion matrix by np.add.at."""
    X, y, Q = np.asarray(FEATURES), np.asarray(LABELS), np.asarray(QUERIES)
    k = 5
    d2 = ((Q[:, None, :] - X[None, :, :]) ** 2).sum(axis=-1)
    part = np.argpartition(d2, k, axis=1)[:, :k]
    order = np.argsort(np.take_along_axis(d2, part, axis=1), axis=1)
    near = np.take_along_axis(part, order, axis=1)
    votes = np.stack([np.bincount(y[row], minlength=3) for row in near])
    pred = votes.argmax(axis=1)
    D = ((X[:, None] - X[None]) ** 2).sum(-1)
    np.fill_diagonal(D, np.inf)
    nn = np.argsort(D, axis=1, kind="stable")[:, :k]
    loo = np.asarray([np.bincount(y[r], minlength=3).argmax() for r in nn])
    conf = np.zeros((3, 3), dtype=np.int64)
    np.add.at(conf, (y, loo), 1)
    return near, votes, pred, (loo == y).mean(), conf, np.trace(conf), np.sqrt(d2.min(axis=1))


def single_server_queue(np):
    """A single-server queue by Lindley's recursion: waiting times in a
    loop, departure times, the number in the system at given instants by
    searchsorted over arrivals and departures, utilisation, and the
    longest busy period by splitting on idle gaps."""
    arr, svc = np.asarray(ARRIVALS), np.asarray(SERVICE)
    n = len(arr)
    wait = np.zeros(n)
    for i in range(1, n):
        wait[i] = max(0.0, wait[i - 1] + svc[i - 1] - (arr[i] - arr[i - 1]))
    start = arr + wait
    dep = start + svc
    t = np.linspace(0, arr[-1], 7)
    in_sys = np.searchsorted(arr, t, side="right") - np.searchsorted(np.sort(dep), t, side="right")
    util = svc.sum() / dep[-1]
    idle = start[1:] > dep[:-1]
    bounds = np.flatnonzero(np.concatenate([[True], idle, [True]]))
    lengths = np.diff(bounds)
    return (wait[::5], dep[-3:], in_sys, util, lengths, lengths.max(),
            np.percentile(wait, [50, 90]),
            (wait > 0).mean())


def escape_times(np):
    """The Mandelbrot set on a complex grid: escape iterations counted in
    place through masks, the grid built by meshgrid of real and imaginary
    axes, and the interior's area estimate."""
    re = np.linspace(-2.0, 0.6, 27)
    im = np.linspace(-1.2, 1.2, 21)
    R, I = np.meshgrid(re, im)
    c = R + 1j * I
    z = np.zeros_like(c)
    count = np.zeros(c.shape, dtype=np.int32)
    alive = np.ones(c.shape, dtype=bool)
    for _ in range(40):
        z[alive] = z[alive] ** 2 + c[alive]
        escaped = np.abs(z) > 2
        alive &= ~escaped
        count[alive] += 1
    area = alive.mean() * (re[-1] - re[0]) * (im[-1] - im[0])
    return count[::4, ::4], alive.sum(), area, c.dtype.name, z.dtype.name, np.abs(z[10, 13])


def bit_fiddling(np):
    """Bit manipulation in uint8 and uint32 arrays: unpackbits and packbits
    with bitorder='little' and axis=, Gray codes and their inverse by
    shifts, population counts by bitwise_count and by unpackbits, parity by
    bitwise_xor.reduce, Hamming distances between codewords, and a bit mask
    built by left_shift."""
    v = np.asarray(PHOTO)[0, :8]
    bits = np.unpackbits(v)
    little = np.unpackbits(v, bitorder="little")
    rows = np.unpackbits(v[:, None], axis=1)
    back = np.packbits(rows, axis=1)[:, 0]
    pl = np.packbits(little, bitorder="little")
    n = np.arange(16, dtype=np.uint32)
    gray = n ^ (n >> 1)
    inv = gray.copy()
    shift = gray >> 1
    while shift.any():
        inv ^= shift
        shift >>= 1
    pop = np.bitwise_count(v)
    parity = np.bitwise_xor.reduce(rows, axis=1)
    ham = np.bitwise_count(v[:, None] ^ v[None, :])
    mask = np.bitwise_or.reduce(np.left_shift(np.uint32(1),
                                              np.asarray([0, 3, 31], dtype=np.uint32)))
    return (bits[:16], little[:16], back, pl, gray, inv, pop, np.sum(rows, axis=1), parity, ham,
            mask,
            np.packbits(np.asarray([1, 0, 1], dtype=np.uint8)), (v & 0x0F) | (v << 4))


# ---- corners -------------------------------------------------------------------

def flat_reads(np):
    """Reading through .flat as NumPy code does: an element and a slice read
    by .flat are copies (updating them leaves the array alone), iteration
    over .flat of a transpose goes in C order of the view, and writes
    through .flat reach the array."""
    a = np.arange(6.0).reshape(2, 3)
    v = a.flat[4]
    v += 100
    sl = a.flat[1:4]
    sl *= -1
    picked = a.flat[[0, 5]]
    picked[0] = 42
    seen = [float(x) for x in a.T.flat]
    total = 0.0
    for x in a.flat:
        x += 1
        total += float(x)
    a.flat[::2] = -1.0
    return a, v, sl, picked, seen, total, a.flat[-1], len(a.flat)


def nan_ordering(np):
    """NaN in sorting code: sort and argsort put NaN last, searchsorted
    into data ending in NaN, unique with equal_nan= both ways, nanargmax
    and argmax, maximum against fmax, a median with NaN, and lexsort with a
    NaN key."""
    x = np.asarray([3.0, np.nan, -1.0, 2.0, np.nan, 2.0, -np.inf])
    s = np.sort(x)
    return (s, np.argsort(x, kind="stable"), np.searchsorted(s, [2.0, np.nan, np.inf]),
            np.unique(x), np.unique(x, equal_nan=False), np.nanargmax(x), np.argmax(x),
            np.argmin(x),
            np.maximum(x, 0.0), np.fmax(x, 0.0), np.median(x), np.nanmedian(x),
            np.lexsort((np.asarray([1, 2, 3, 4, 5, 6, 7]), x)), np.sort(x)[::-1],
            np.partition(x, 2)[:2], np.max(x), np.nanmax(x),
            np.sort(np.asarray([[np.nan, 1.0], [0.0, np.nan]]), axis=0))


def rounding_rules(np):
    """Rounding as reports and accounts do it: round half to even, negative
    decimals on floats and integers (which stay integers), floor/ceil/
    trunc/rint/fix of negative numbers, rounding float32 data, and cents
    by np.round(x * 100) against np.round(x, 2)."""
    x = np.asarray([0.5, 1.5, 2.5, -0.5, -1.5, 2.675, 1234.5678, -2.4999])
    ints = np.asarray([15, 25, -15, 1234, -1250])
    f32 = np.asarray([1.25, 2.35, 1e7 + 0.5], dtype=np.float32)
    return (np.round(x), np.round(x, 2), np.round(x, -2), np.round(ints, -1), np.round(ints, -2),
            np.around(ints, 1), np.floor(x), np.ceil(x), np.trunc(x), np.rint(x), np.fix(x),
            np.round(f32, 1), np.round(x * 100) / 100, np.round(ints),
            np.round(np.asarray([7]), -1).dtype.name,
            np.round(np.asarray([1 + 2.5j, 0.5 - 1.5j])),
            np.round(np.asarray([True, False]), 0).dtype.name)


def integer_errors(np):
    """Integer and float division by zero under np.errstate: NumPy's
    integer floor division and remainder by zero give 0 with a warning
    (silenced), float divisions give inf/nan, and np.nan_to_num cleans them;
    integer powers with negative exponents raise ValueError."""
    a = np.asarray([7, -7, 0, 9])
    b = np.asarray([0, 0, 0, 3])
    with np.errstate(divide="ignore", invalid="ignore"):
        q = np.floor_divide(a, b)           # the operators raise ZeroDivisionError (PyTorch's)
        r = np.remainder(a, b)
        f = a.astype(np.float64) / b
        dm = np.divmod(a, b)
    try:
        np.power(np.asarray([2, 3]), np.asarray([-1, 2]))
        raised = None
    except ValueError:
        raised = "ValueError"
    return q, r, f, dm, np.nan_to_num(f), raised, np.isfinite(f).sum()


def lookup_tables(np):
    """Table lookups by interpolation: np.interp with left=/right=, with
    period= over unsorted sample points, with complex table values, with a
    2-d query array, piecewise-constant lookup by searchsorted, and
    bilinear lookup in a 2-d table by searchsorted and weights."""
    xp = np.asarray([0.0, 1.0, 2.5, 4.0])
    fp = np.asarray([10.0, 12.0, 11.0, 15.0])
    q = np.asarray([[-1.0, 0.5], [3.0, 9.0]])
    per = np.interp(np.asarray([-0.5, 4.5, 7.0]), np.asarray([3.0, 0.0, 1.5, 4.5]),
                    np.asarray([1.0, 0.0, 2.0, 3.0]), period=6.0)
    cplx = np.interp(np.asarray([0.5, 3.0]), xp, fp + 1j * fp[::-1])
    idx = np.clip(np.searchsorted(xp, q.ravel(), side="right") - 1, 0, len(xp) - 1)
    table = np.asarray(WEIGHTS)[:4, :5]
    gx, gy = np.asarray([0.0, 1, 2, 3]), np.asarray([0.0, 2, 4, 6, 8])
    px, py = np.asarray([0.5, 2.9, 1.0]), np.asarray([1.0, 7.5, 4.0])
    i = np.clip(np.searchsorted(gx, px) - 1, 0, 2)
    j = np.clip(np.searchsorted(gy, py) - 1, 0, 3)
    tx = (px - gx[i]) / (gx[i + 1] - gx[i])
    ty = (py - gy[j]) / (gy[j + 1] - gy[j])
    bil = (table[i, j] * (1 - tx) * (1 - ty) + table[i + 1, j] * tx * (1 - ty)
           + table[i, j + 1] * (1 - tx) * ty + table[i + 1, j + 1] * tx * ty)
    return (np.interp(q, xp, fp), np.interp(q, xp, fp, left=-1.0, right=-2.0), per, cplx,
            fp[idx].reshape(q.shape), bil, np.interp(2.0, xp, fp),
            np.interp([1, 2], [1, 3], [0, 1]))


def smoothing_filters(np):
    """Savitzky-Golay smoothing built by hand: the least-squares projection
    of a window onto a quadratic through pinv of a Vandermonde matrix
    (increasing=True), its centre row as convolution taps, the derivative
    taps, and edges handled by np.pad reflect before a valid convolution."""
    y = np.asarray(CHIRP)[:80]
    half = 3
    t = np.arange(-half, half + 1).astype(np.float64)
    V = np.vander(t, 3, increasing=True)
    P = np.linalg.pinv(V)
    smooth_taps = P[0]
    deriv_taps = P[1]
    padded = np.pad(y, half, mode="reflect")
    smooth = np.convolve(padded, smooth_taps[::-1], mode="valid")
    deriv = np.convolve(padded, deriv_taps[::-1], mode="valid")
    resid = y - smooth
    return (smooth_taps, deriv_taps, smooth[::8], deriv[::10], np.std(resid), smooth.shape,
            np.vander(np.asarray([1, 2, 3]), 3),
            np.vander(np.asarray([2.0, 3.0]), increasing=True))


def surface_fits(np):
    """A smooth surface fitted to scattered samples by least squares on a
    2-d Vandermonde matrix (polyvander2d, chebvander2d), then evaluated at
    the samples (polyval2d, chebval2d), on a grid of the axes' product
    (polygrid2d, chebgrid2d, leggrid2d) and in three dimensions
    (polyval3d, hermegrid3d)."""
    p = np.asarray(POINTS3)[:60]
    x, y = p[:, 0], p[:, 1]
    z = 1 + 2 * x - y + 0.5 * x * y + 0.3 * y ** 2
    V = np.polynomial.polynomial.polyvander2d(x, y, [2, 2])
    coef = np.linalg.lstsq(V, z, rcond=None)[0].reshape(3, 3)
    Vc = np.polynomial.chebyshev.chebvander2d(x, y, [2, 2])
    ccoef = np.linalg.lstsq(Vc, z, rcond=None)[0].reshape(3, 3)
    gx, gy = np.linspace(-1, 1, 4), np.linspace(-1, 1, 5)
    at = np.polynomial.polynomial.polyval2d(x, y, coef)
    grid = np.polynomial.polynomial.polygrid2d(gx, gy, coef)
    cgrid = np.polynomial.chebyshev.chebgrid2d(gx, gy, ccoef)
    lgrid = np.polynomial.legendre.leggrid2d(gx, gy, np.asarray([[1.0, 0.5], [0.25, 2.0]]))
    c3 = np.arange(8.0).reshape(2, 2, 2) / 8
    return (coef, np.abs(at - z).max() < 1e-9, grid, np.allclose(grid, cgrid),
            np.polynomial.chebyshev.chebval2d(x[:4], y[:4], ccoef), lgrid,
            np.polynomial.polynomial.polyval3d(x[:5], y[:5], p[:5, 2], c3),
            np.polynomial.hermite_e.hermegrid3d(gx[:2], gy[:3], np.asarray([0.5]), c3).shape,
            np.polynomial.laguerre.laggrid2d(gx, gy[:2], c3[0]))


def index_objects(np):
    """NumPy's index helpers in bookkeeping code: np.s_ and np.index_exp
    slices kept in a table and applied later, np.broadcast's shape and
    element pairs, np.mask_indices of the strict upper triangle, np.fromiter
    of a generator with count= and dtype=, np.require's flags, and
    np.asarray_chkfinite's refusal of NaN."""
    a = np.arange(30.0).reshape(5, 6)
    regions = {"top": np.s_[:2], "band": np.s_[1:4, ::2], "last": np.index_exp[-1, 1:]}
    parts = {k: a[v] for k, v in regions.items()}
    b = np.broadcast(np.arange(3.0)[:, None], np.arange(4.0))
    pairs = [(float(x), float(y)) for x, y in list(b)[:5]]
    iu = np.mask_indices(4, np.triu, 1)
    m = np.arange(16).reshape(4, 4)
    squares = np.fromiter((k * k for k in range(10)), dtype=np.int64, count=6)
    halves = np.fromiter(iter([0.5, 1.5, 2.5]), dtype=np.float32)
    r = np.require(a.T, dtype=np.float64, requirements=["C", "W"])
    try:
        np.asarray_chkfinite(np.asarray([1.0, np.nan]))
        refused = None
    except ValueError:
        refused = "ValueError"
    return (parts["top"], parts["band"], parts["last"], b.shape, b.nd, b.size, pairs, iu, m[iu],
            squares, halves, r.flags.c_contiguous, r.flags.writeable, np.array_equal(r, a.T),
            refused,
            np.asarray_chkfinite([1, 2]), np.s_[::2], np.index_exp[1])


def log_domain(np):
    """Probabilities kept in the log domain: log-sum-exp by np.logaddexp.reduce
    and by the max trick, base-2 forms (logaddexp2, exp2, log2), a softmax
    stable to large logits, entropy in bits, np.float_power of integers
    (float64 always, negative exponents allowed), and expm1/log1p near 0."""
    logits = np.asarray([[1000.0, 999.0, 998.0], [-5.0, 0.0, 5.0]])
    lse = np.logaddexp.reduce(logits, axis=1)
    mx = logits.max(axis=1, keepdims=True)
    lse2 = (mx + np.log(np.exp(logits - mx).sum(axis=1, keepdims=True)))[:, 0]
    sm = np.exp(logits - lse[:, None])
    bits = -(sm * np.log2(sm)).sum(axis=1)
    l2 = np.log2(np.asarray([0.25, 0.5, 0.125]))
    small = np.asarray([1e-12, 1e-6, 0.1])
    return (lse, lse2, sm, bits, np.logaddexp2.reduce(l2), np.logaddexp2(l2, 0.0), np.exp2(l2),
            np.exp2(np.asarray([3.0, -1.0, 0.0])), np.float_power(np.asarray([2, 3, 4]), -1),
            np.float_power(np.asarray([2, 3]), np.asarray([0.5, 2])), np.float_power(2, 10),
            np.expm1(small), np.log1p(small), np.log1p(np.expm1(small)) - small,
            np.logaddexp(np.asarray(-np.inf), 0.0),
            np.logaddexp.accumulate(np.log(np.asarray([1.0, 2.0, 3.0]))))


def masked_climatology(np):
    """Station temperatures with gaps as climate code treats them: masks
    from a quality flag by masked_where, the monthly climatology by
    np.ma.mean over years, anomalies broadcast against it, per-station
    trends by np.ma.apply_along_axis of a masked polyfit, weighted means by
    np.ma.average with returned=, and the fraction of valid data."""
    t = np.asarray(READINGS).reshape(5, 4, 2)      # year, month, station
    bad = t < -100
    m = np.ma.masked_where(bad, t)
    clim = np.ma.mean(m, axis=0)
    anom = m - clim[None]
    slope = np.ma.apply_along_axis(lambda col: np.ma.polyfit(np.arange(5.0), col, 1)[0]
                                   if np.ma.count(col) > 2 else np.nan, 0, m[:, 0, :])
    wavg, wsum = np.ma.average(m, axis=1, weights=np.asarray([1.0, 2.0, 2.0, 1.0]), returned=True)
    return (clim.filled(np.nan), anom.filled(0.0)[0], np.asarray(slope), wavg.filled(np.nan),
            wsum.filled(-1.0),
            1 - int(np.ma.count_masked(m)) / m.size, np.ma.std(m, axis=(0, 1)).filled(np.nan),
            np.ma.max(m, axis=0).filled(np.nan)[:, 0], np.ma.mean(m),
            np.ma.median(m[:, :, 0], axis=0).filled(np.nan))


def computed_sizes(np):
    """Sizes and pad values the program computes from its data (NumPy's
    Python ints and scalars; 0-d arrays here): a window as long as the
    valid stretch, a Kaiser beta from the data, diagonal indices of a
    counted size, padding by a counted width with the mean as the constant,
    a ramp to the maximum and a mean over a counted length, and legacy
    random draws of a counted size."""
    x = np.asarray(CHIRP)[:40]
    valid = x > -0.5
    n = np.count_nonzero(valid[:12])
    beta = np.round(np.abs(x).max() * 2)
    win = np.hanning(n)
    tapers = [f(n) for f in (np.hamming, np.blackman, np.bartlett)]
    kai = np.kaiser(n, beta)
    k = np.count_nonzero(valid[:3])
    di = np.diag_indices(k)
    m = np.zeros((k, k))
    m[di] = 1.0
    padded = np.pad(x[:6], (k, 1), constant_values=x.mean())
    ramp = np.pad(x[:4], 2, mode="linear_ramp", end_values=x.max())
    avg = np.pad(x[:6], 1, mode="mean", stat_length=k)
    keyed = np.pad(x[:4], {0: (int(k), 0)}, constant_values=(x.min(), 0.0))  # NumPy: ints only
    np.random.seed(0)
    draws = np.random.rand(k, 2)
    grid = x[:12].reshape(3, 4)
    longest = np.argmax(grid.shape)                  # the axis to shift along
    shifted = np.roll(grid, k, axis=longest)
    gain = np.convolve(x[:5], np.std(x))             # a one-tap filter: a scaling
    return (int(n), win, tapers, kai, di, m, padded, ramp, avg, keyed, draws.shape, shifted,
            gain)


def data_driven_edges(np):
    """Edges and values computed from the data, written into lists as NumPy
    code writes them: histogram bins [min, mean, max], a 2-d histogram on
    such edges, sentinels inserted and put at computed values, a masked
    array of summary values, the correlation of two lists of statistics,
    and draws around computed means (their shapes and ordering)."""
    x = np.asarray(CHIRP)[:60]
    lo, mid, hi = x.min(), x.mean(), x.max()
    counts, edges = np.histogram(x, bins=[lo, mid, hi])
    h2, _, _ = np.histogram2d(x[:-1], x[1:], bins=[[lo, mid, hi], [lo, 0.0, hi]])
    framed = np.insert(x[:5], 0, [lo, hi])
    marked = x[:6].copy()
    np.put(marked, [0, 5], [lo, hi])
    stats = np.ma.masked_array([lo, mid, hi, np.std(x)], mask=[0, 0, 1, 0])
    r = np.corrcoef([x[:20].mean(), x[20:40].mean(), x[40:].mean()],
                    [x[:20].std(), x[20:40].std(), x[40:].std()])
    rng = np.random.default_rng(5)
    draws = rng.normal([lo, hi], 0.01, size=(200, 2))
    pick = rng.choice(3, size=50, p=[mid * 0 + 0.5, 0.25, 0.25])
    return (counts, edges, h2, framed, marked, stats.filled(0.0), stats.mean(), r,
            draws.shape, bool((draws[:, 0] < draws[:, 1]).all()), pick.shape,
            bool(pick.max() <= 2))


def survival_curves(np):
    """A Kaplan-Meier estimate from lifetimes with censoring: event times by
    unique with counts, the numbers at risk by searchsorted on the sorted
    times, the survival curve by cumprod, Greenwood's variance by cumsum,
    the median survival by the first crossing, and the curve read at given
    times by searchsorted side='right'."""
    t, e = np.asarray(LIFETIMES), np.asarray(OBSERVED)
    order = np.argsort(t, kind="stable")
    ts, es = t[order], e[order]
    times, first, counts = np.unique(ts, return_index=True, return_counts=True)
    deaths = np.add.reduceat(es.astype(np.int64), first)
    at_risk = len(ts) - np.searchsorted(ts, times, side="left")
    factor = 1.0 - deaths / at_risk.astype(np.float64)
    surv = np.cumprod(factor)
    with np.errstate(divide="ignore", invalid="ignore"):
        green = surv ** 2 * np.cumsum(deaths / (at_risk * (at_risk - deaths)).astype(np.float64))
    below = np.flatnonzero(surv <= 0.5)
    median = times[below[0]] if below.size else np.inf
    probe = np.asarray([0.0, 2.0, 5.0, 10.0, 50.0])
    idx = np.searchsorted(times, probe, side="right") - 1
    at = np.where(idx >= 0, surv[np.maximum(idx, 0)], 1.0)
    return (times[:8], deaths[:8], at_risk[:8], surv[::4], np.nan_to_num(green)[::5], median, at,
            counts.sum(), deaths.dtype.name)


def conjugate_gradients(np):
    """The 2-d Poisson matrix assembled by Kronecker products of a 1-d
    second difference, solved by conjugate gradients written with NumPy
    (dot products, in-place axpy updates) until the residual is small, and
    checked against np.linalg.solve; the eigenvalues bound the iterations."""
    n = 6
    T = 2 * np.eye(n) - np.eye(n, k=1) - np.eye(n, k=-1)
    A = np.kron(np.eye(n), T) + np.kron(T, np.eye(n))
    b = np.asarray(MEMBRANE)[:n, :n].ravel()
    x = np.zeros_like(b)
    r = b - A @ x
    p = r.copy()
    rs = r @ r
    history = []
    for it in range(200):
        Ap = A @ p
        alpha = rs / (p @ Ap)
        x += alpha * p
        r -= alpha * Ap
        new = r @ r
        history.append(float(np.sqrt(new)))
        if np.sqrt(new) < 1e-10:
            break
        p *= new / rs
        p += r
        rs = new
    ev = np.linalg.eigvalsh(A)
    return (x[::5], it + 1, np.allclose(x, np.linalg.solve(A, b)), ev[[0, -1]], ev[-1] / ev[0],
            np.asarray(history[:3]), A.shape, np.count_nonzero(A))


def shape_moments(np):
    """Image moments of a grey blob: the centroid by np.indices, central
    second moments, the orientation by arctan2, the eccentricity from the
    moments' eigenvalues, and Hu's first two invariants."""
    img = np.asarray(PHOTO).astype(np.float64)
    img = img * (img > 128)
    rr, cc = np.indices(img.shape)
    m00 = img.sum()
    cy, cx = (rr * img).sum() / m00, (cc * img).sum() / m00
    mu20 = ((cc - cx) ** 2 * img).sum() / m00
    mu02 = ((rr - cy) ** 2 * img).sum() / m00
    mu11 = ((cc - cx) * (rr - cy) * img).sum() / m00
    theta = 0.5 * np.arctan2(2 * mu11, mu20 - mu02)
    lam = np.linalg.eigvalsh(np.asarray([[mu20, mu11], [mu11, mu02]]))
    ecc = np.sqrt(1 - lam[0] / lam[1])
    eta = lambda p, q, mu: mu / m00 ** ((p + q) / 2)
    hu1 = eta(2, 0, mu20 * m00) + eta(0, 2, mu02 * m00)
    hu2 = (eta(2, 0, mu20 * m00) - eta(0, 2, mu02 * m00)) ** 2 + 4 * eta(1, 1, mu11 * m00) ** 2
    return m00, cy, cx, mu20, mu02, mu11, np.degrees(theta), lam, ecc, hu1, hu2


def polygon_geometry(np):
    """Polygons as surveying code treats them: the shoelace area with
    np.roll, the perimeter by hypot of closed differences, the centroid,
    points inside by vectorised ray casting, and the convexity test by the
    signs of consecutive cross products."""
    ang = np.sort(np.asarray(ANGLES8))
    rad = 1.0 + 0.3 * np.cos(3 * np.deg2rad(ang))
    P = np.stack([rad * np.cos(np.deg2rad(ang)), rad * np.sin(np.deg2rad(ang))], axis=1)
    x, y = P[:, 0], P[:, 1]
    xn, yn = np.roll(x, -1), np.roll(y, -1)
    cross = x * yn - xn * y
    area = 0.5 * cross.sum()
    perim = np.hypot(np.diff(x, append=x[:1]), np.diff(y, append=y[:1])).sum()
    cxy = np.asarray([((x + xn) * cross).sum(), ((y + yn) * cross).sum()]) / (6 * area)
    q = np.asarray(POINTS3)[:30, :2] * 1.5
    qx, qy = q[:, :1], q[:, 1:]
    crosses = ((y > qy) != (yn > qy)) & (qx < (xn - x) * (qy - y) / (yn - y) + x)
    inside = crosses.sum(axis=1) % 2 == 1
    d = np.diff(P, axis=0, append=P[:1])
    turn = d[:, 0] * np.roll(d[:, 1], -1) - d[:, 1] * np.roll(d[:, 0], -1)
    return (area, perim, cxy, inside, np.count_nonzero(inside), bool((turn > 0).all()),
            np.sign(turn).astype(np.int64))


# ---- the programs, by theme ----------------------------------------------------

def test_finite_differences_and_fields():
    _run(heat_rod)
    _run(wave_membrane)
    _run(advection_schemes)
    _run(poisson_relaxation)
    _run(field_operators)
    _run(lorenz_rk4)
    _run(escape_times)


def test_images_signals_and_series():
    _run(window_filters)
    _run(shape_moments)
    _run(windowed_spectrum)
    _run(fir_design)
    _run(smoothing_filters)
    _run(lagged_series)
    _run(lookup_tables)
    _run(computed_sizes)
    _run(data_driven_edges)


def test_regression_statistics_and_sampling():
    _run(linear_regression)
    _run(generator_shapes)
    _run(monte_carlo_estimates)
    _run(binned_fields)
    _run(nearest_neighbours)
    _run(single_server_queue)
    _run(survival_curves)
    _run(masked_readings)
    _run(masked_climatology)
    _run(log_domain)


def test_graphs_records_and_sets():
    _run(graph_walks)
    _run(ledger)
    _run(index_loops)
    _run(id_sets)
    _run(stable_records)
    _run(nan_ordering)
    _run(index_objects)


def test_linear_algebra_polynomials_and_geometry():
    _run(stacked_solves)
    _run(polynomial_series)
    _run(surface_fits)
    _run(contraction_paths)
    _run(rigid_bodies)
    _run(polygon_geometry)
    _run(gaussian_elimination)
    _run(conjugate_gradients)
    _run(vector_newton)
    _run(tariff_schedule)


def test_integers_in_place_updates_and_memory():
    _run(integer_corners)
    _run(integer_errors)
    _run(rounding_rules)
    _run(bit_fiddling)
    _run(view_updates)
    _run(ufunc_out_where)
    _run(copies_and_layouts)
    _run(flat_reads)


# ---- what the programs found ---------------------------------------------------

def test_flat_reads_are_copies_as_numpys():
    # flat_reads: an element, a slice and an index list read through .flat
    # were views, so `v = a.flat[4]; v += 100` wrote into `a`; iteration too
    want = numpy.arange(6.0).reshape(2, 3)
    a = tnp.asarray(want.copy())
    for index in (4, -1, slice(1, 4), [0, 5], numpy.asarray([True, False] * 3)):
        got, expected = a.flat[index], want.flat[index]
        _same(numpy.asarray(expected), got, f"flat[{index!r}]")
        got += 100
        _same(want, a, f"after updating flat[{index!r}]")
    for x in a.T.flat:
        x *= 0
    _same(want, a, "after updating what iteration gave")
    # an element written during iteration is read when reached, as NumPy's
    seen = []
    for i, x in enumerate(a.flat):
        if i == 0:
            a.flat[1] = -7.0
        seen.append(float(x))
    assert seen[:2] == [0.0, -7.0]
    # writes through .flat still reach the array; reads stay on the tape
    a.flat[[0, 2]] = 9.0
    assert a[0, 0].item() == 9.0 and a[0, 2].item() == 9.0
    t = torchlike.arange(4.0, requires_grad=True)
    (t.flat[2] * t).sum().backward()
    numpy.testing.assert_allclose(t.grad.cpu().numpy(), [2.0, 2.0, 8.0, 2.0])


_GRID_MODULES = [("polynomial", "poly"), ("chebyshev", "cheb"), ("legendre", "leg"),
                 ("laguerre", "lag"), ("hermite", "herm"), ("hermite_e", "herme")]


@pytest.mark.parametrize("module, prefix", _GRID_MODULES)
def test_polynomial_grids_and_points_of_tensors(module, prefix):
    # surface_fits: *grid2d/*grid3d of tensor axes broadcast the coefficients
    # against the axis (one value per point, or a broadcast error), and the
    # *val2d/*val3d forms made ndarrays of the tensors (a device's refused)
    N, T = getattr(numpy.polynomial, module), getattr(tnp.polynomial, module)
    x, y, z = numpy.linspace(-1, 1, 4), numpy.linspace(0, 1, 3), numpy.asarray([0.5, -0.5])
    c2, c3 = numpy.arange(6.0).reshape(2, 3), numpy.arange(12.0).reshape(2, 3, 2)
    cases = [("grid2d", (x, y), c2), ("grid3d", (x, y, z), c3),
             ("val2d", (x, x), c2), ("val3d", (z, z, z), c3)]
    for name, axes, c in cases:
        want = getattr(N, prefix + name)(*axes, c)
        calls = [lambda f: f(*map(tnp.asarray, axes), tnp.asarray(c)),
                 lambda f: f(*[a.tolist() for a in axes[:-1]], tnp.asarray(axes[-1]),
                             tnp.asarray(c))]
        if not TEST_DEVICE:
            # ndarray operands beside tensors: host memory, refused beside a
            # device's tensors (docs/numpy.md)
            calls += [lambda f: f(*map(tnp.asarray, axes), c),
                      lambda f: f(axes[0], *map(tnp.asarray, axes[1:]), tnp.asarray(c)),
                      lambda f: f(*axes, tnp.asarray(c))]
        for call in calls:
            _same(want, call(getattr(T, prefix + name)), prefix + name)
    with pytest.raises(ValueError, match="x, y are incompatible"):
        getattr(T, prefix + "val2d")(tnp.asarray(x), tnp.asarray(y), c2)
    # no tensor: NumPy's own call and result
    assert type(getattr(T, prefix + "grid2d")(x, y, c2)) is numpy.ndarray


def test_polynomial_grids_record_and_take_numpys_dispatch():
    c = numpy.arange(6.0).reshape(2, 3)
    x = torchlike.tensor([0.5, -1.0, 2.0], dtype=torchlike.float64, requires_grad=True)
    y = numpy.asarray([1.0, 3.0])
    g = tnp.polynomial.polynomial.polygrid2d(x, y.tolist(), tnp.asarray(c))
    g.sum().backward()
    # d/dx of sum over y of sum_ij c_ij x^i y^j = sum_j c_1j * sum(y^j)
    want = sum(c[1, j] * (y ** j).sum() for j in range(3))
    numpy.testing.assert_allclose(x.grad.cpu().numpy(), [want] * 3)
    # NumPy's polygrid2d and polyval2d dispatch (NEP 18): a tensor reaches these
    got = numpy.polynomial.polynomial.polygrid2d(tnp.asarray(y), tnp.asarray(y),
                                                 tnp.asarray(c[:, :2]))
    _same(numpy.polynomial.polynomial.polygrid2d(y, y, c[:, :2]), got, "numpy's polygrid2d")


@pytest.mark.parametrize("module, prefix", _GRID_MODULES)
def test_vandermonde_matrices_of_tensor_points(module, prefix):
    # surface_fits on a device: polyvander2d ran NumPy's np.array(points) + 0.0
    N, T = getattr(numpy.polynomial, module), getattr(tnp.polynomial, module)
    x, y = numpy.linspace(-1, 1, 5), numpy.linspace(0, 2, 5)
    for name, args in (("vander", (x, 3)), ("vander2d", (x, y, [2, 1])),
                       ("vander3d", (x, y, x, [1, 2, 1]))):
        want = getattr(N, prefix + name)(*args)
        tensors = [tnp.asarray(a) if isinstance(a, numpy.ndarray) else a for a in args]
        _same(want, getattr(T, prefix + name)(*tensors), prefix + name)
    assert type(getattr(T, prefix + "vander")(x, 2)) is numpy.ndarray


def element_accumulators(np):
    """Accumulators started from an element, spelled so that NumPy's scalar
    copy and torchlike's 0-d view agree: .copy(), .item(), float(), a new
    array by s = s + v, and a[i] += v (written back by item assignment)."""
    a = np.arange(1.0, 6.0)
    s = a[0].copy()
    s += 10
    total = a.item(0)
    for v in a[1:]:
        total += float(v)
    run = a[0]
    for v in a[1:]:
        run = run + v
    pos = np.asarray([1.0, 2.0])
    x, y = pos.copy()
    x += 5
    a[1] += 100
    b = a.copy()
    for i in range(len(b)):
        b[i] *= 2
    return a, s, total, run, pos, x, b


def test_elements_are_views_and_the_copies_are_numpys():
    # docs/numpy.md, "The eighth round": an element read by indexing is a
    # 0-d view (PyTorch's), so an augmented assignment to the name it was
    # bound to writes the array, where NumPy's scalar copy leaves it alone
    a = tnp.arange(1.0, 6.0)
    s = a[0]
    s += 1
    x, y = a[2:4]
    y *= -1
    for v in a[4:]:
        v -= 5
    z = tnp.asarray(3.0)
    w = z[()]
    w += 1
    _same(numpy.asarray([2.0, 2.0, 3.0, -4.0, 0.0]), a, "elements updated through views")
    _same(numpy.asarray(4.0), z, "z[()] is a view")
    # the spellings that copy behave as NumPy's
    _run(element_accumulators)


def test_conversions_keep_tensors_on_their_device_and_tape():
    # index_objects on a device: np.require, np.asanyarray and
    # np.asarray_chkfinite were NumPy's own functions, which made ndarrays
    # of tensors (a device's refused; one that requires grad refused too)
    t = tnp.arange(6.0).reshape(2, 3)
    assert tnp.asanyarray(t) is t and tnp.asarray_chkfinite(t) is t
    assert tnp.require(t) is t and tnp.require(t, requirements=["C", "W", "A"]) is t
    for req in ("F", ["O"], ["F", "O"], "E", ["W"]):
        got = tnp.require(t.T, dtype=tnp.float32, requirements=req)
        want = numpy.require(numpy.arange(6.0).reshape(2, 3).T, dtype=numpy.float32,
                             requirements=req)
        _same(want, got, f"require {req}")
        assert got.device == t.device
        for flag in ("c_contiguous", "f_contiguous", "owndata", "writeable"):
            assert getattr(got.flags, flag) == getattr(want.flags, flag), (req, flag)
    with pytest.raises(ValueError, match='Cannot specify both "C" and "F" order'):
        tnp.require(t, requirements="CF")
    with pytest.raises(KeyError):
        tnp.require(t, requirements=["X"])
    with pytest.raises(ValueError, match="must not contain infs or NaNs"):
        tnp.asarray_chkfinite([1.0, numpy.inf])
    _same(numpy.asarray_chkfinite([1, 2]), tnp.asarray_chkfinite([1, 2]), "chkfinite of ints")
    w = torchlike.arange(3.0, requires_grad=True)
    (tnp.asanyarray(w) * tnp.require(w,
                                     requirements="C") * tnp.asarray_chkfinite(w)).sum().backward()
    numpy.testing.assert_allclose(w.grad.cpu().numpy(), 3 * numpy.arange(3.0) ** 2)


def test_masked_arrays_convert_to_their_data_where_they_live():
    # masked_climatology on a device: np.asarray of a masked array went
    # through its DLPack export, which cannot import a device's memory
    m = tnp.ma.masked_array(tnp.arange(4.0), mask=[0, 1, 0, 0])
    want = numpy.ma.masked_array(numpy.arange(4.0), mask=[0, 1, 0, 0])
    got = tnp.asarray(m)
    _same(numpy.asarray(want), got, "asarray of a masked array")
    assert type(got) is torchlike.Tensor and got.device == m.data.device
    _same(numpy.asarray(want, dtype=numpy.float32), tnp.asarray(m, dtype=tnp.float32), "dtype=")
    got[0] = 9.0                                  # the data, shared, as NumPy's
    assert float(m[0]) == 9.0
    copied = tnp.array(m)
    copied[2] = -1.0
    assert float(m[2]) == 2.0
    # asanyarray passes the masked array through (NumPy's subclasses pass),
    # and require(..., 'E') asks for the base array
    assert tnp.asanyarray(m) is m
    assert type(tnp.require(m, requirements="E")) is torchlike.Tensor
    assert isinstance(tnp.require(m, requirements="C"), tnp.ma.MaskedArray)


def test_computed_counts_serve_as_sizes_and_pad_values():
    # computed_sizes on a device: NumPy's windows and diag_indices, np.pad's
    # widths/constant_values/end_values/stat_length and np.random.rand's
    # sizes read a 0-d tensor through NumPy's conversion (host memory only)
    n = tnp.count_nonzero(tnp.ones(5))
    for name in ("hanning", "hamming", "blackman", "bartlett"):
        _same(getattr(numpy, name)(5), getattr(tnp, name)(n), name)
    _same(numpy.kaiser(5, 3.0), tnp.kaiser(n, tnp.asarray(3.0)), "kaiser")
    _same(numpy.diag_indices(5, 2), tnp.diag_indices(n, ndim=tnp.asarray(2)), "diag_indices")
    x = numpy.arange(4.0)
    t = tnp.asarray(x)
    _same(numpy.pad(x, (5, 1), constant_values=1.5), tnp.pad(t, (n, 1), constant_values=t.mean()),
          "pad by a count, with the mean")
    _same(numpy.pad(x, 2, mode="linear_ramp", end_values=3.0),
          tnp.pad(t, 2, mode="linear_ramp", end_values=t.max()), "ramp to the max")
    _same(numpy.pad(x, 1, mode="mean", stat_length=2),
          tnp.pad(t, 1, mode="mean", stat_length=n - 3), "mean of a counted length")
    _same(numpy.pad(x, {0: 2}), tnp.pad(t, {0: n - 3}), "dict widths")
    assert tuple(tnp.random.rand(n, 2).shape) == (5, 2)
    # a value that requires grad is recorded (a learned border): it gets the
    # gradient of each element it fills
    c = torchlike.tensor(2.0, requires_grad=True)
    tnp.pad(t, 1, constant_values=c).sum().backward()
    assert float(c.grad) == 2.0 and c.grad.dtype == torchlike.float32


def test_convolve_takes_a_number_as_a_one_tap_filter():
    # computed_sizes: np.convolve(x, x.std()) raised "object too deep"
    x = numpy.arange(4.0)
    for a, v in ((x, 2.0), (3.0, x), (2.0, 3.0), (x.astype(numpy.int64), 2),
                 (x, numpy.asarray(2.0))):
        want = numpy.convolve(a, v)
        _same(want, tnp.convolve(*(tnp.asarray(o) if isinstance(o, numpy.ndarray) else o
                                   for o in (a, v))), f"convolve({a!r}, {v!r})")
    for a, v, words in ((x, 2.0, "too small depth"), (numpy.ones((2, 2)), x, "too deep")):
        with pytest.raises(ValueError, match=words):
            numpy.correlate(a, v)
        with pytest.raises(ValueError, match=words):
            tnp.correlate(tnp.asarray(a), tnp.asarray(v))
    with pytest.raises(ValueError, match="too deep"):
        tnp.convolve(tnp.ones((2, 2)), tnp.asarray(x))
