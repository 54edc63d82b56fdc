"""NumPy programs, fifth round: kinds the first four rounds
(tests/test_numpy_programs.py, ...2.py, ...3.py, ...4.py) do not cover --
wave and Poisson solvers (leapfrog with np.roll, red-black relaxation,
spectral), Chebyshev and Legendre work with np.polynomial, polynomial
arithmetic, splines, quadrature, Gaussian processes, hidden Markov models,
dynamic programming, a convolution layer by im2col, integral images and
gradient histograms, connected components, sparse matrices by hand,
weighted statistics and bin-edge estimators, bit tricks on float views,
plane geometry, kernel density estimates, text files with options, the
Generator's permutation and sampling methods, einsum spellings, vectorize
with signatures, np.emath, complex phasors, NumPy 2's np.linalg functions,
Markov chains by eig, the abelian sandpile, queues, memory layout, a simplex
method, fractals, minimisation, matrix functions, tensor decompositions,
byte ciphers and hashes, masked station records, permutations by hand,
run segmentation, a recommender, rank statistics, periodic particles,
colour spaces, audio, genomics, board games, wrapping-integer PRNGs and
sorting algorithms, a pivot table of sales -- run once with NumPy and once
with ``torchlike.numpy``, with round 4's oracle and conventions (its
docstring: NumPy for values, dtypes and shapes; programs spelled around the
differences docs/numpy.md names; random inputs drawn once by NumPy)."""
import io

import numpy
import pytest

import torchlike
import torchlike.numpy as tnp
from test_numpy_programs import _run, _same

_RNG = numpy.random.default_rng(5)
SAMPLES = _RNG.normal(0, 1, 200)
WEIGHTS = _RNG.integers(1, 5, 200)
XY = _RNG.normal(0, 1, (50, 3)) @ numpy.asarray([[1.0, 0.5, 0.0], [0.0, 1.0, 0.3], [0.0, 0.0, 1.0]])
IMG = _RNG.integers(0, 256, (12, 12), dtype=numpy.uint8)
BLOBS = (_RNG.random((10, 12)) < 0.35).astype(numpy.uint8)
BATCH = _RNG.normal(0, 1, (2, 3, 6, 6))
KERNELS = _RNG.normal(0, 1, (4, 3, 3, 3))
COO = _RNG.integers(0, 6, (25, 2))
COO_VALUES = _RNG.normal(0, 1, 25)
OBS = _RNG.integers(0, 3, 20)
ARRIVALS = _RNG.exponential(1.0, 30)
SERVICE = _RNG.exponential(0.8, 30)
POLYGON = numpy.asarray([[0.0, 0.0], [4.0, 0.0], [4.0, 3.0], [2.0, 5.0], [0.0, 3.0]])
PTS = _RNG.uniform(-1, 6, (40, 2))
SIGNAL5 = numpy.cumsum(_RNG.normal(0, 0.3, 60)) - 0.5
RATINGS = numpy.where(_RNG.random((4, 6)) < 0.6, _RNG.integers(1, 6, (4, 6)).astype(float),
                      numpy.nan)
PARTICLES = _RNG.random((25, 3))
IMG_RGB = _RNG.integers(0, 256, (6, 8, 3), dtype=numpy.uint8)
UNSORTED = _RNG.integers(0, 500, 40)
SALES = numpy.column_stack([_RNG.integers(1, 4, 60), _RNG.integers(1, 5, 60),
                            _RNG.choice([11, 12, 13, 14, 17, 19], 60), _RNG.integers(1, 9, 60)])


def wave(np):
    """The 1-d wave equation by leapfrog on a ring (np.roll) and on a string
    with fixed ends (slice assignment), and a 2-d membrane with a five-point
    Laplacian written with slices; energies along the way."""
    n, c, dx = 64, 1.0, 1.0 / 64
    dt = 0.5 * dx / c
    x = np.arange(n, dtype=np.float64) * dx
    u0 = np.exp(-((x - 0.5) / 0.05) ** 2)
    ring_prev, ring = u0.copy(), u0.copy()
    string_prev, string = u0.copy(), u0.copy()
    r2 = (c * dt / dx) ** 2
    energy = []
    for _ in range(60):
        lap = np.roll(ring, 1) - 2 * ring + np.roll(ring, -1)
        ring_prev, ring = ring, 2 * ring - ring_prev + r2 * lap
        new = np.empty_like(string)
        new[1:-1] = 2 * string[1:-1] - string_prev[1:-1] + r2 * (string[2:] - 2 * string[1:-1]
                                                                   + string[:-2])
        new[[0, -1]] = 0.0
        string_prev, string = string, new
        energy.append(0.5 * np.sum(((ring - ring_prev) / dt) ** 2) * dx)
    m = np.zeros((16, 16))
    m[6:10, 6:10] = 1.0
    m_prev = m.copy()
    for _ in range(10):
        lap = np.zeros_like(m)
        lap[1:-1, 1:-1] = (m[2:, 1:-1] + m[:-2, 1:-1] + m[1:-1, 2:] + m[1:-1, :-2]
                           - 4 * m[1:-1, 1:-1])
        m_prev, m = m, 2 * m - m_prev + 0.25 * lap
    return (ring, string, np.asarray(energy), np.argmax(ring), np.argmax(np.abs(string)),
            m, m.sum(), np.unravel_index(np.argmax(m), m.shape), np.abs(m).max(axis=0)[::3])


def poisson(np):
    """Poisson's equation on a square: red-black Gauss-Seidel with a
    checkerboard from np.indices, residuals by the max norm; the periodic
    problem solved spectrally (fft2, fftfreq grids, the zero mode set)."""
    n = 17
    h = 1.0 / (n - 1)
    f = np.zeros((n, n))
    f[n // 2, n // 2] = 1.0 / h ** 2
    u = np.zeros((n, n))
    red = (np.indices((n, n)).sum(axis=0) % 2 == 0)
    red[[0, -1], :] = False
    red[:, [0, -1]] = False
    black = ~red
    black[[0, -1], :] = False
    black[:, [0, -1]] = False
    res = []
    for _ in range(40):
        for mask in (red, black):
            nb = np.zeros_like(u)
            nb[1:-1, 1:-1] = u[2:, 1:-1] + u[:-2, 1:-1] + u[1:-1, 2:] + u[1:-1, :-2]
            u = np.where(mask, 0.25 * (nb + h ** 2 * f), u)
        r = np.zeros_like(u)
        r[1:-1, 1:-1] = f[1:-1, 1:-1] + (u[2:, 1:-1] + u[:-2, 1:-1] + u[1:-1, 2:] + u[1:-1, :-2]
                                         - 4 * u[1:-1, 1:-1]) / h ** 2
        res.append(np.linalg.norm(r.ravel(), ord=np.inf))
    m = 16
    xs = np.arange(m, dtype=np.float64) * (2 * np.pi / m)
    X, Y = np.meshgrid(xs, xs, indexing="ij")
    rhs = np.sin(X) * np.cos(2 * Y)
    k = np.fft.fftfreq(m, d=1.0 / m)
    KX, KY = np.meshgrid(k, k, indexing="ij")
    k2 = KX ** 2 + KY ** 2
    k2[0, 0] = 1.0
    uh = -np.fft.fft2(rhs) / k2
    uh[0, 0] = 0.0
    sol = np.fft.ifft2(uh).real
    dudx = np.fft.irfft(1j * np.fft.rfftfreq(m, 1.0 / m) * np.fft.rfft(np.sin(xs)), n=m)
    return (u[::4, ::4], np.asarray(res)[::8], red.sum(), black.sum(), sol[::5, ::5],
            np.abs(sol + rhs / 5).max(), dudx, np.allclose(dudx, np.cos(xs)))


def chebyshev(np):
    """Chebyshev and Legendre work with np.polynomial: a least-squares
    Chebyshev fit of a smooth function, its conversion to the power basis,
    derivative, integral and roots; Gauss-Legendre quadrature; the classes'
    arithmetic and domain mapping."""
    C = np.polynomial.Chebyshev
    P = np.polynomial.Polynomial
    x = np.linspace(-1, 3, 25)
    y = np.exp(-x) * np.cos(2 * x)
    fit = C.fit(x, y, 8)
    pw = fit.convert(kind=P)
    der = fit.deriv()
    integ = fit.integ(lbnd=-1)
    roots = fit.roots()
    real_roots = np.sort(roots[np.abs(roots.imag) < 1e-9].real)
    nodes, wts = np.polynomial.legendre.leggauss(6)
    quad = np.sum(wts * np.exp(nodes))
    cheb_nodes = np.polynomial.chebyshev.chebpts1(5)
    cv = np.polynomial.chebyshev.chebval(cheb_nodes, [1.0, 0.5, 0.25])
    p = P([1, -3, 2])
    q = P([0.5, 1])
    quo, rem = divmod(p, q)
    return (fit.coef, fit.domain, fit(x[::6]), pw.coef, der(np.asarray([0.0, 1.5])),
            integ(np.asarray(3.0)), real_roots, nodes, wts, quad, cv,
            (p * q).coef, quo.coef, rem.coef, p.roots(), (p ** 2).deriv(2).coef,
            P.fromroots([1, 2, 3]).coef, np.polynomial.hermite.hermval(0.5, [1, 2, 3]),
            np.polynomial.legendre.legfit(x, y, 3))


def polynomials(np):
    """The old polynomial API: poly from roots, polymul/polydiv/polyadd,
    polyder/polyint, polyval over arrays, roots with complex pairs, poly1d,
    and a polyfit with its residuals."""
    r = np.asarray([1.0, -2.0, 0.5])
    c = np.poly(r)
    prod = np.polymul(c, [1, 1])
    q, rem = np.polydiv(prod, [1.0, -1.0])
    cubic = np.roots([1, 0, 0, -8])
    order = np.lexsort((cubic.imag, cubic.real))
    p = np.poly1d([2, -3, 1])
    x = np.linspace(0, 2, 7)
    coeffs, res, rank, sv, rcond = np.polyfit(x, np.sin(x), 3, full=True)
    return (c, prod, q, rem, np.polyadd([1, 2], [1, 0, 0]), np.polysub([3, 2, 1], [1, 1]),
            np.polyder(c, 2), np.polyint(c, k=1.0), np.polyval(c, np.arange(4)),
            np.polyval([1, 0, 1], np.asarray([[1j, 2]])), cubic[order], p(x), p.deriv().coeffs,
            p.integ().coeffs, (p * p).coeffs, p.roots, coeffs, res, rank, sv, rcond,
            np.poly(np.asarray([[1.0, 2.0], [3.0, 4.0]])))


def spline(np):
    """A natural cubic spline through uneven knots: the tridiagonal system
    built with np.diag(k=...) and solved, segments found by searchsorted,
    evaluated against np.interp; composite Simpson and Romberg quadrature."""
    xk = np.asarray([0.0, 0.4, 1.1, 1.5, 2.3, 3.0])
    yk = np.sin(xk)
    h = np.diff(xk)
    n = len(xk)
    A = np.diag(np.r_[1.0, 2 * (h[:-1] + h[1:]), 1.0])
    A += np.diag(np.r_[0.0, h[1:]], k=1) + np.diag(np.r_[h[:-1], 0.0], k=-1)
    rhs = np.zeros(n)
    rhs[1:-1] = 3 * (np.diff(yk[1:]) / h[1:] - np.diff(yk[:-1]) / h[:-1])
    cc = np.linalg.solve(A, rhs)
    b = np.diff(yk) / h - h * (2 * cc[:-1] + cc[1:]) / 3
    d = np.diff(cc) / (3 * h)
    xs = np.linspace(0, 3, 31)
    seg = np.clip(np.searchsorted(xk, xs, side="right") - 1, 0, n - 2)
    t = xs - xk[seg]
    ys = yk[seg] + b[seg] * t + cc[seg] * t ** 2 + d[seg] * t ** 3
    lin = np.interp(xs, xk, yk)
    xq = np.linspace(0, np.pi, 17)
    fq = np.sin(xq)
    simpson = (xq[1] - xq[0]) / 3 * (fq[0] + 4 * fq[1:-1:2].sum() + 2 * fq[2:-1:2].sum() + fq[-1])
    R = np.zeros((5, 5))
    for i in range(5):
        m = 2 ** i
        xi = np.linspace(0, np.pi, m + 1)
        R[i, 0] = np.trapezoid(np.sin(xi), xi)
        for j in range(1, i + 1):
            R[i, j] = R[i, j - 1] + (R[i, j - 1] - R[i - 1, j - 1]) / (4 ** j - 1)
    grid = np.linspace(0, 1, 6)[:, None] * np.asarray([1.0, 2.0])
    return (cc, b, d, seg, ys, np.abs(ys - np.sin(xs)).max(), lin, simpson, np.tril(R),
            np.trapezoid(grid ** 2, grid, axis=0), np.trapezoid(np.ones((3, 0)), axis=1))


def gaussian_process(np):
    """Gaussian-process regression: an RBF kernel by broadcasting, the
    Cholesky factor, two triangular solves through np.linalg.solve, the
    predictive mean and variance, the log marginal likelihood by slogdet
    and by the factor's diagonal."""
    X = np.linspace(0, 5, 12)[:, None]
    y = np.sin(X[:, 0]) + 0.1 * np.cos(7 * X[:, 0])
    Xs = np.linspace(-0.5, 5.5, 9)[:, None]

    def k(a, b, ell=0.8, s=1.3):
        d2 = np.sum((a[:, None, :] - b[None, :, :]) ** 2, axis=-1)
        return s ** 2 * np.exp(-0.5 * d2 / ell ** 2)

    K = k(X, X) + 1e-2 * np.eye(len(X))
    L = np.linalg.cholesky(K)
    alpha = np.linalg.solve(L.T, np.linalg.solve(L, y))
    Ks = k(X, Xs)
    mean = Ks.T @ alpha
    v = np.linalg.solve(L, Ks)
    var = np.diag(k(Xs, Xs)) - np.sum(v ** 2, axis=0)
    sign, logdet = np.linalg.slogdet(K)
    lml = -0.5 * y @ alpha - np.log(np.diag(L)).sum() - 0.5 * len(X) * np.log(2 * np.pi)
    samples_cov = k(Xs, Xs) - v.T @ v
    ev = np.linalg.eigvalsh(samples_cov + 1e-9 * np.eye(len(Xs)))
    return (L[::3, ::3], alpha, mean, var, sign, logdet, lml,
            np.isclose(logdet, 2 * np.log(np.diag(L)).sum()), ev.min() > -1e-6, np.triu(L, 1).any())


def hmm(np):
    """A hidden Markov model: the forward algorithm in log space with
    np.logaddexp.reduce, Viterbi decoding with argmax and back-pointers,
    posteriors by forward-backward."""
    A = np.asarray([[0.7, 0.2, 0.1], [0.3, 0.5, 0.2], [0.2, 0.3, 0.5]])
    B = np.asarray([[0.6, 0.3, 0.1], [0.1, 0.6, 0.3], [0.2, 0.2, 0.6]])
    pi = np.asarray([0.5, 0.3, 0.2])
    obs = np.asarray(OBS)
    T, S = len(obs), len(pi)
    lA, lB = np.log(A), np.log(B)
    la = np.empty((T, S))
    la[0] = np.log(pi) + lB[:, obs[0]]
    for t in range(1, T):
        la[t] = np.logaddexp.reduce(la[t - 1][:, None] + lA, axis=0) + lB[:, obs[t]]
    loglik = np.logaddexp.reduce(la[-1])
    lb = np.zeros((T, S))
    for t in range(T - 2, -1, -1):
        lb[t] = np.logaddexp.reduce(lA + lB[:, obs[t + 1]] + lb[t + 1], axis=1)
    post = np.exp(la + lb - loglik)
    delta = np.log(pi) + lB[:, obs[0]]
    back = np.zeros((T, S), dtype=np.intp)
    for t in range(1, T):
        scores = delta[:, None] + lA
        back[t] = np.argmax(scores, axis=0)
        delta = scores[back[t], np.arange(S)] + lB[:, obs[t]]
    path = np.empty(T, dtype=np.intp)
    path[-1] = np.argmax(delta)
    for t in range(T - 1, 0, -1):
        path[t - 1] = back[t, path[t]]
    return (la[::5], loglik, post[::4], post.sum(axis=1), back[1:4], path, delta.max(),
            np.bincount(path, minlength=S), np.logaddexp(-np.inf, np.asarray([-1.0, -np.inf])))


def dynamic_programming(np):
    """Edit distance and longest common subsequence over byte codes (from
    np.frombuffer), one DP row at a time with np.minimum; the coin-change
    count by cumulative updates on a slice."""
    def codes(s):
        return np.frombuffer(s.encode(), dtype=np.uint8)

    def levenshtein(a, b):
        a, b = codes(a), codes(b)
        prev = np.arange(len(b) + 1)
        for i in range(1, len(a) + 1):
            cur = np.empty_like(prev)
            cur[0] = i
            sub = prev[:-1] + (a[i - 1] != b)
            for j in range(1, len(b) + 1):
                cur[j] = min(prev[j] + 1, cur[j - 1] + 1, sub[j - 1])
            prev = cur
        return prev[-1]

    def lcs(a, b):
        a, b = codes(a), codes(b)
        L = np.zeros((len(a) + 1, len(b) + 1), dtype=np.int32)
        for i in range(1, len(a) + 1):
            eq = a[i - 1] == b
            for j in range(1, len(b) + 1):
                L[i, j] = L[i - 1, j - 1] + 1 if eq[j - 1] else max(L[i - 1, j], L[i, j - 1])
        return L

    ways = np.zeros(21, dtype=np.int64)
    ways[0] = 1
    for coin in (1, 2, 5, 10):
        for v in range(coin, 21):
            ways[v] += ways[v - coin]
    best = np.full(21, np.iinfo(np.int64).max // 2)
    best[0] = 0
    for v in range(1, 21):
        for coin in (1, 3, 4):
            if coin <= v:
                best[v] = np.minimum(best[v], best[v - coin] + 1)
    L = lcs("numpy arrays", "torch tensors")
    return (levenshtein("kitten", "sitting"), levenshtein("", "abc"), L, L[-1, -1],
            codes("abc"), ways, best, codes("").shape, codes("xyz").dtype == np.uint8)


def conv_layer(np):
    """A convolution layer by im2col (as_strided windows of a padded batch,
    then tensordot), max pooling by reshape, and the backward pass: the
    input gradient scattered back with np.add.at, the weight gradient by
    einsum."""
    x = np.asarray(BATCH)
    w = np.asarray(KERNELS)
    N, C, H, W = x.shape
    F, _, kh, kw = w.shape
    xp = np.pad(x, ((0, 0), (0, 0), (1, 1), (1, 1)))
    sN, sC, sH, sW = xp.strides
    cols = np.lib.stride_tricks.as_strided(xp, shape=(N, C, H, W, kh, kw),
                                           strides=(sN, sC, sH, sW, sH, sW))
    out = np.tensordot(cols, w, axes=([1, 4, 5], [1, 2, 3])).transpose(0, 3, 1, 2)
    out2 = np.einsum("nchwij,fcij->nfhw", cols, w)
    pooled = out.reshape(N, F, H // 2, 2, W // 2, 2).max(axis=(3, 5))
    arg = out.reshape(N, F, H // 2, 2, W // 2, 2).transpose(0, 1, 2, 4, 3, 5).reshape(
        N, F, H // 2, W // 2, 4).argmax(axis=-1)
    dout = np.ones_like(out)
    dcols = np.einsum("nfhw,fcij->nchwij", dout, w)
    dxp = np.zeros_like(xp)
    ii, jj = np.meshgrid(np.arange(H), np.arange(W), indexing="ij")
    for di in range(kh):
        for dj in range(kw):
            np.add.at(dxp, (slice(None), slice(None), ii + di, jj + dj), dcols[..., di, dj])
    dx = dxp[:, :, 1:-1, 1:-1]
    dw = np.einsum("nchwij,nfhw->fcij", cols, dout)
    return (out[0, 0], np.allclose(out, out2), pooled[1, 2], arg[0, 1], dx[0, 1], dw[2],
            dx.shape, cols.shape, np.shares_memory(cols, xp))


def weighted_statistics(np):
    """Weighted and frequency-weighted statistics: np.average with
    returned=True, np.cov with fweights/aweights/ddof/bias, np.corrcoef of
    columns, a weighted median by cumsum and interp, the bin-edge
    estimators of np.histogram_bin_edges, density histograms with weights."""
    s = np.asarray(SAMPLES)
    w = np.asarray(WEIGHTS)
    X = np.asarray(XY)
    avg, wsum = np.average(X, axis=0, weights=w[:50], returned=True)
    cw = np.cumsum(w[np.argsort(s)]) - 0.5 * w[np.argsort(s)]
    wmedian = np.interp(0.5 * w.sum(), cw, np.sort(s))
    edges = [np.histogram_bin_edges(s, bins=b) for b in
             ("auto", "fd", "sturges", "sqrt", "doane", "scott", "rice", "stone")]
    h, e = np.histogram(s, bins=12, range=(-3, 3), weights=w, density=True)
    return (avg, wsum, np.cov(X, rowvar=False), np.cov(X.T, fweights=w[:50]),
            np.cov(X.T, aweights=np.linspace(0.5, 2, 50)), np.cov(X.T, ddof=0),
            np.cov(X.T, bias=True),
            np.cov(X[:, 0], X[:, 1]), np.corrcoef(X, rowvar=False), np.corrcoef(X[:, 0], X[:, 2]),
            wmedian, [len(b) for b in edges], edges[0], edges[4], h, e, (h * np.diff(e)).sum(),
            np.ptp(X, axis=0), np.median(X.reshape(10, 5, 3), axis=(0, 2)),
            np.average(np.arange(6).reshape(2, 3), axis=1, weights=[1, 0, 3]))


def bit_tricks(np):
    """Bit-level code over views: float64 fields by view(np.uint64), shifts
    and masks; the fast inverse square root on a float32 -> int32 view;
    popcounts by unpackbits of a uint8 view and by np.bitwise_count; Gray
    codes; packbits with bitorder='little' along an axis; shifts on uint8."""
    x = np.asarray([1.0, -2.5, 0.15625, 1e-310, np.inf, 0.0])
    bits = x.view(np.uint64)
    sign = bits >> np.uint64(63)
    expo = (bits >> np.uint64(52)) & np.uint64(0x7FF)
    mant = bits & np.uint64((1 << 52) - 1)
    f = np.asarray([0.25, 1.0, 2.0, 10.0], dtype=np.float32)
    i = f.view(np.int32)
    i = np.int32(0x5F3759DF) - (i >> 1)
    y = i.view(np.float32)
    y = y * (np.float32(1.5) - np.float32(0.5) * f * y * y)
    v = np.arange(10, dtype=np.uint16) * 1000
    pop = np.sum(np.unpackbits(v.view(np.uint8)).reshape(-1, 16), axis=1)
    g = np.arange(16, dtype=np.uint8)
    gray = g ^ (g >> 1)
    m = (np.arange(24).reshape(3, 8) % 3 == 0)
    u = np.asarray([1, 128, 255], dtype=np.uint8)
    return (sign, expo, mant, y, np.abs(y * np.sqrt(f) - 1).max() < 2e-3, pop,
            np.bitwise_count(v), gray, np.packbits(m, axis=1),
            np.packbits(m, axis=1, bitorder="little"),
            np.unpackbits(np.packbits(m, axis=-1), axis=-1, count=8).astype(bool) == m,
            np.unpackbits(u, bitorder="little").reshape(3, 8), np.left_shift(u, 1), u << 3,
            np.right_shift(u, np.asarray([0, 4, 7], dtype=np.uint8)), np.invert(u),
            ~np.asarray([True, False]), np.invert(np.asarray([0, -1, 5], dtype=np.int8)),
            np.binary_repr(10, width=8), np.binary_repr(-3, width=4), np.base_repr(255, 16))


def geometry(np):
    """Plane geometry: the shoelace area and centroid with np.roll, point in
    polygon by ray casting over every (point, edge) pair, rotations stacked
    by np.stack and applied with einsum, a convex hull by the monotone
    chain, distances to segments with clipped projections."""
    P = np.asarray(POLYGON)
    pts = np.asarray(PTS)
    x, y = P[:, 0], P[:, 1]
    xn, yn = np.roll(x, -1), np.roll(y, -1)
    cross = x * yn - xn * y
    area = 0.5 * cross.sum()
    cx = ((x + xn) * cross).sum() / (6 * area)
    cy = ((y + yn) * cross).sum() / (6 * area)
    px, py = pts[:, :1], pts[:, 1:]
    cond = (y > py) != (yn > py)
    xint = (xn - x) * (py - y) / np.where(yn == y, 1, yn - y) + x
    inside = (np.sum(cond & (px < xint), axis=1) % 2) == 1
    th = np.linspace(0, np.pi, 5)
    R = np.stack([np.stack([np.cos(th), -np.sin(th)], -1), np.stack([np.sin(th), np.cos(th)], -1)],
                 -2)
    rotated = np.einsum("kij,nj->kni", R, P)

    def hull(points):
        pts_ = points[np.lexsort((points[:, 1], points[:, 0]))]

        def turn(o, a, b):
            return (a[0] - o[0]) * (b[1] - o[1]) - (a[1] - o[1]) * (b[0] - o[0])
        lower, upper = [], []
        for p in pts_:
            while len(lower) >= 2 and turn(lower[-2], lower[-1], p) <= 0:
                lower.pop()
            lower.append(p)
        for p in pts_[::-1]:
            while len(upper) >= 2 and turn(upper[-2], upper[-1], p) <= 0:
                upper.pop()
            upper.append(p)
        return np.asarray(lower[:-1] + upper[:-1])
    H = hull(pts)
    a, b = P, np.roll(P, -1, axis=0)
    ab = b - a
    t = np.clip(np.einsum("nkj,kj->nk", pts[:, None, :] - a, ab) / np.sum(ab ** 2, axis=1), 0, 1)
    proj = a + t[..., None] * ab
    dist = np.linalg.norm(pts[:, None, :] - proj, axis=-1).min(axis=1)
    return (area, cx, cy, inside, inside.sum(), rotated[:, 2], np.linalg.det(R), H, len(H),
            dist[:8],
            np.hypot(*(H - H.mean(axis=0)).T).max())


def kernel_density(np):
    """A Gaussian kernel density estimate: Silverman's bandwidth from the
    interquartile range, the density on a grid by broadcasting, its
    normalisation by trapezoid, the CDF by a cumulative trapezoid, quantiles
    by searchsorted and interp."""
    s = np.asarray(SAMPLES)
    q75, q25 = np.percentile(s, [75, 25])
    bw = 0.9 * min(s.std(ddof=1), (q75 - q25) / 1.34) * len(s) ** (-1 / 5)
    grid = np.linspace(-4, 4, 161)
    dens = np.exp(-0.5 * ((grid[:, None] - s[None, :]) / bw) ** 2).sum(axis=1)
    dens /= len(s) * bw * np.sqrt(2 * np.pi)
    cdf = np.concatenate([[0.0], np.cumsum((dens[1:] + dens[:-1]) / 2 * np.diff(grid))])
    idx = np.searchsorted(cdf, [0.05, 0.5, 0.95])
    qs = np.interp([0.05, 0.5, 0.95], cdf, grid)
    mode = grid[np.argmax(dens)]
    return (bw, np.trapezoid(dens, grid), dens[::20], cdf[::20], idx, qs, mode,
            np.quantile(s, [0.05, 0.5, 0.95]), np.subtract(*np.percentile(s, [75, 25])))


def text_files(np):
    """Text files with options: loadtxt with a delimiter, comments,
    skiprows, usecols, unpack, converters and max_rows; genfromtxt filling
    missing values; savetxt with a format per column, header, footer and
    delimiter; fromstring with sep."""
    csv = io.StringIO("# sensor log\nid,temp,flag\n1, 20.5, 0\n2, 21.0, 1  # late\n"
                      "3, 19.75, 1\n4, 22.25, 0\n")
    ids, temps = np.loadtxt(csv, delimiter=",", skiprows=2, usecols=(0, 1), unpack=True)
    csv.seek(0)
    flags = np.loadtxt(csv, delimiter=",", skiprows=2, usecols=2, dtype=int)
    csv.seek(0)
    first = np.loadtxt(csv, delimiter=",", skiprows=2, max_rows=2)
    conv = np.loadtxt(io.StringIO("1;a\n2;b\n3;c"), delimiter=";",
                      converters={1: lambda s: ord(s) - 96})
    gaps = np.genfromtxt(io.StringIO("1,2,,4\n5,,7,8\n9,10,11,"), delimiter=",", filling_values=-1)
    nans = np.genfromtxt(io.StringIO("1 2\n3 nan\n# x\n5 6"))
    out = io.StringIO()
    np.savetxt(out, np.column_stack([ids, temps, flags]), fmt=["%d", "%.2f", "%d"], delimiter=",",
               header="id,temp,flag", footer="end", comments="# ")
    back = np.loadtxt(io.StringIO(out.getvalue()), delimiter=",")
    out2 = io.StringIO()
    np.savetxt(out2, np.asarray([[1.5, 2.25]]), fmt="%.3e")
    return (ids, temps, flags, first, conv, gaps, nans, out.getvalue(), back, out2.getvalue(),
            np.fromstring("1 2 3.5", sep=" "), np.fromstring("4,5,6", dtype=np.int32, sep=","),
            np.loadtxt(io.StringIO("7\n8\n"), ndmin=2), np.loadtxt(io.StringIO("1 2 3\n"))
            )


def sampling(np):
    """The Generator's permutation and sampling methods, compared by
    properties (the streams differ): permutation of a count and of rows,
    shuffle and permuted along an axis, choice without replacement (with
    and without weights, along an axis), integers with endpoint=True,
    multivariate normals, Dirichlet and multinomial draws."""
    rng = np.random.default_rng(42)
    perm = rng.permutation(10)
    M = np.arange(12).reshape(4, 3)
    rows = rng.permutation(M)
    S = M.copy()
    rng.shuffle(S, axis=1)
    P = rng.permuted(M, axis=0)
    pick = rng.choice(20, size=8, replace=False)
    wpick = rng.choice(5, size=3, replace=False, p=[0.1, 0.2, 0.3, 0.2, 0.2])
    cols = rng.choice(M, 2, axis=1, replace=False)
    ints = rng.integers(1, 6, size=(200,), endpoint=True)
    mvn = rng.multivariate_normal([1.0, -1.0], [[1.0, 0.8], [0.8, 1.0]], size=4000)
    dir_ = rng.dirichlet([1.0, 2.0, 3.0], size=5)
    mult = rng.multinomial(10, [0.2, 0.3, 0.5], size=4)
    u = rng.uniform(2.0, 3.0, size=(2, 2))
    return (np.sort(perm), perm.dtype == np.int64, np.sort(rows, axis=0), rows.shape,
            np.sort(S, axis=1), np.array_equal(np.sort(S[:, 0]), S[:, 0]),
            np.sort(P, axis=0), len(np.unique(pick)), bool((pick < 20).all()),
            len(set(wpick.tolist())),
            cols.shape, np.unique(ints), ints.min(), mvn.shape,
            np.allclose(mvn.mean(axis=0), [1.0, -1.0], atol=0.1),
            np.allclose(np.cov(mvn.T), [[1.0, 0.8], [0.8, 1.0]], atol=0.1),
            np.allclose(dir_.sum(axis=1), 1.0), dir_.shape, mult.sum(axis=1),
            mult.dtype == np.int64,
            bool(((u >= 2) & (u < 3)).all()), rng.permutation(np.asarray([5])),
            rng.choice(3, 0).shape)


def einsum_forms(np):
    """einsum spellings of real code: diagonals and traces by repeated
    indices, ellipsis batches, bilinear forms, the implicit (arrow-less)
    form, optimize='greedy'/True, einsum_path's plan, int operands, out=."""
    A = np.arange(9.0).reshape(3, 3)
    B = np.arange(24.0).reshape(2, 3, 4)
    C = np.arange(8.0).reshape(4, 2)
    v = np.asarray([1.0, -1.0, 2.0])
    I = np.arange(6).reshape(2, 3)
    path, text = np.einsum_path("ij,bjk,kl->bil", A, B, C, optimize="greedy")
    out = np.zeros((2, 3, 2))
    np.einsum("ij,bjk,kl->bil", A, B, C, out=out)
    return (np.einsum("ii->i", A), np.einsum("ii", A), np.einsum("...ij,...jk->...ik", A, B),
            np.einsum("i,ij,j", v, A, v), np.einsum("ij,jk", A, A), np.einsum("ji", I),
            np.einsum("bij,bik->bjk", B, B, optimize=True), path,
            np.einsum("ij,bjk,kl->bil", A, B, C, optimize="greedy"), out,
            np.einsum("ij,ij->i", I, I), np.einsum("ij->", I), np.einsum(I, [0, 1], [1]),
            np.einsum("i,j->ij", v, v[::-1]), np.einsum("bii->b", np.stack([A, A.T])),
            np.einsum("ij,j->i", A[:, ::2], v[:2]), np.einsum("i,i", np.zeros(0), np.zeros(0)))


def vectorized_functions(np):
    """np.vectorize with a signature, otypes and excluded arguments;
    apply_along_axis with vector results; apply_over_axes; frompyfunc's
    accumulate."""
    def slope(xs, ys):
        A = np.vstack([xs, np.ones_like(xs)]).T
        return np.linalg.lstsq(A, ys, rcond=None)[0][0]
    vslope = np.vectorize(slope, signature="(n),(n)->()")
    x = np.linspace(0, 1, 5)
    Y = np.outer(np.asarray([1.0, 2.0, -3.0]), x) + 0.5
    clipped = np.vectorize(lambda v, lo: v if v > lo else lo, otypes=[float], excluded={"lo"})
    steps = np.vectorize(lambda a, b: a * 10 + b)
    stats = np.apply_along_axis(lambda r: np.asarray([r.min(), r.max(), r.mean()]), 1, Y)
    norm = np.apply_along_axis(lambda c: c / np.linalg.norm(c), 0, Y)
    ao = np.apply_over_axes(np.sum, np.arange(24).reshape(2, 3, 4), [0, 2])
    cat = np.frompyfunc(lambda a, b: a + b, 2, 1)
    return (vslope(x, Y), clipped(np.asarray([0.1, 0.5, 0.9]), lo=0.4),
            steps(np.arange(3)[:, None], np.arange(2)), stats, norm, ao, ao.shape,
            cat.accumulate(np.asarray([1, 2, 3, 4])).astype(int), cat.reduce(np.arange(5)),
            np.vectorize(len)(["a", "bb", "ccc"]))


def emath(np):
    """np.emath (NumPy's lib.scimath): square roots, logarithms, powers and
    inverse trigonometric functions that go complex outside their real
    domain, and stay real inside it."""
    x = np.asarray([-4.0, -1.0, 0.0, 1.0, 4.0])
    pos = np.asarray([1.0, 4.0, 9.0])
    return (np.emath.sqrt(x), np.emath.sqrt(pos), np.emath.sqrt(-2), np.emath.log(x[[0, 3, 4]]),
            np.emath.log(pos), np.emath.log2(np.asarray([-8.0, 8.0])), np.emath.log10(-100.0),
            np.emath.logn(2, np.asarray([-4.0, 4.0])), np.emath.power(np.asarray([-8.0, 8.0]), 0.5),
            np.emath.power(pos, 2), np.emath.arccos(np.asarray([2.0, 0.5])),
            np.emath.arcsin(np.asarray([-2.0, 0.0])), np.emath.arctanh(np.asarray([0.5, 2.0])),
            np.emath.sqrt(np.asarray([-1, 4])))


def phasors(np):
    """Complex phasors: polar to rectangular and back (np.angle with deg=),
    sums of sinusoids, real_if_close, sort_complex, writes through .real and
    .imag, conjugate products and magnitudes."""
    mag = np.asarray([1.0, 2.0, 0.5])
    ph = np.deg2rad(np.asarray([0.0, 120.0, -45.0]))
    z = mag * np.exp(1j * ph)
    total = z.sum()
    w = z.copy()
    w.real[0] = 3.0
    w.imag += 1.0
    y = np.zeros(3, dtype=complex)
    y.imag = np.asarray([1.0, 2.0, 3.0])
    return (z, np.abs(z), np.angle(z, deg=True), total, np.angle(total),
            np.real_if_close(z * z.conj()),
            np.real_if_close(np.asarray([1 + 1e-16j, 2])),
            np.sort_complex(np.asarray([3, 1j, -1, 1 - 1j])),
            w, y, np.iscomplexobj(z), np.isrealobj(mag), np.iscomplex(np.asarray([1, 1j])),
            np.conjugate(z) * z, np.vdot(z, z), np.inner(z, z),
            np.sort_complex(np.asarray([3, 1, 2])))


def linalg_numpy2(np):
    """NumPy 2's np.linalg additions beside the classics: matrix_norm and
    vector_norm (orders, axis tuples, keepdims), vecdot, cross, outer,
    diagonal and trace with offsets, matrix_transpose, svdvals,
    tensorsolve/tensorinv, eigh with UPLO=, multi_dot, cond orders."""
    A = np.arange(1.0, 10.0).reshape(3, 3) + np.eye(3)
    S = np.stack([A, A.T, np.eye(3)])
    u = np.asarray([[1.0, 0.0, 0.0], [0.0, 2.0, 1.0]])
    v = np.asarray([0.0, 1.0, 1.0])
    T = np.eye(6).reshape(6, 2, 3) * 2.0
    lower = np.tril(A + A.T)
    return (np.linalg.matrix_norm(S), np.linalg.matrix_norm(S, ord=1),
            np.linalg.matrix_norm(A, ord="nuc"),
            np.linalg.matrix_norm(S, ord=-np.inf, keepdims=True),
            np.linalg.vector_norm(S, axis=(1, 2)),
            np.linalg.vector_norm(u, ord=1, axis=1, keepdims=True),
            np.linalg.vector_norm(A, ord=np.inf),
            np.linalg.vector_norm(A[:, ::2]), np.linalg.vecdot(u, v), np.linalg.cross(u, v),
            np.linalg.outer(v, np.arange(2)), np.linalg.diagonal(S, offset=1),
            np.linalg.trace(S, offset=-1),
            np.linalg.matrix_transpose(S)[1], np.linalg.svdvals(S),
            np.linalg.tensorsolve(T, np.ones(6)),
            np.linalg.tensorinv(np.eye(4).reshape(4, 2, 2), ind=1).shape,
            np.linalg.eigh(lower, UPLO="L")[0], np.linalg.eigvalsh(np.triu(A + A.T), UPLO="U"),
            np.linalg.multi_dot([A, A[:, :2], np.ones((2, 4)), np.ones(4)]),
            [np.linalg.cond(A, p) for p in (None, 1, -1, 2, -2, np.inf, "fro")],
            np.linalg.norm(S, axis=(1, 2), ord=2), np.linalg.norm(np.zeros((0, 3)), axis=1))


def markov_chains(np):
    """Markov chains: the stationary distribution from the eigenvector of
    P.T whose (complex) eigenvalue is closest to one, checked against
    matrix_power; an absorbing chain's fundamental matrix, absorption
    probabilities and expected times; a simulated walk over fixed uniforms."""
    P = np.asarray([[0.9, 0.075, 0.025], [0.15, 0.8, 0.05], [0.25, 0.25, 0.5]])
    w, V = np.linalg.eig(P.T)
    i = np.argmin(np.abs(w - 1))
    pi = np.real(V[:, i])
    pi = pi / pi.sum()
    Pn = np.linalg.matrix_power(P, 64)
    Q = np.asarray([[0.0, 0.5, 0.0], [0.5, 0.0, 0.5], [0.0, 0.5, 0.0]])
    R = np.asarray([[0.5, 0.0], [0.0, 0.0], [0.0, 0.5]])
    N = np.linalg.inv(np.eye(3) - Q)
    u = np.asarray(numpy.random.default_rng(3).random(50))
    cum = np.cumsum(P, axis=1)
    state = 0
    visits = np.zeros(3, dtype=np.int64)
    for r in u:
        state = int(np.searchsorted(cum[state], r, side="right"))
        state = min(state, 2)
        visits[state] += 1
    return (np.sort(np.abs(w)), pi, Pn[0], np.allclose(Pn, pi[None, :]), N, N.sum(axis=1), N @ R,
            visits, np.linalg.eigvals(P).real.max(), np.iscomplexobj(w))


def sandpile(np):
    """The abelian sandpile: grains added at the centre topple to their four
    neighbours until every site holds fewer than four, with integer
    division and slice updates; the stable pattern's symmetry and counts."""
    g = np.zeros((11, 11), dtype=np.int64)
    g[5, 5] = 200
    topples = 0
    while (g >= 4).any():
        t = g // 4
        g = g % 4
        topples += int(t.sum())
        g[1:, :] += t[:-1, :]
        g[:-1, :] += t[1:, :]
        g[:, 1:] += t[:, :-1]
        g[:, :-1] += t[:, 1:]
    small = np.full((5, 5), 3, dtype=np.int8)
    small[2, 2] += 1
    while (small > 3).any():
        over = small > 3
        small[over] -= 4
        pad = np.pad(over.astype(np.int8), 1)
        small += pad[:-2, 1:-1] + pad[2:, 1:-1] + pad[1:-1, :-2] + pad[1:-1, 2:]
    return (g, topples, np.array_equal(g, g.T), np.array_equal(g, g[::-1]), np.bincount(g.ravel()),
            g.sum(), small, small.dtype == np.int8)


def queues(np):
    """A single-server queue: arrival times by cumsum, Lindley's recursion
    for waiting times in a loop and by a running maximum, the number in the
    system at fixed times by searchsorted, utilisation."""
    gaps = np.asarray(ARRIVALS)
    svc = np.asarray(SERVICE)
    arrive = np.cumsum(gaps)
    wait = np.zeros_like(arrive)
    for k in range(1, len(arrive)):
        wait[k] = max(0.0, wait[k - 1] + svc[k - 1] - gaps[k])
    x = np.concatenate([[0.0], svc[:-1] - gaps[1:]])
    S = np.cumsum(x)
    wait2 = S - np.minimum.accumulate(np.minimum(S, 0.0))
    depart = arrive + wait + svc
    times = np.linspace(0, arrive[-1], 7)
    arrived = np.searchsorted(arrive, times, side="right")
    in_system = arrived - np.searchsorted(np.sort(depart), times, side="right")
    busy = svc.sum() / depart.max()
    return (wait, np.allclose(wait, wait2), depart[-3:], in_system, busy, np.mean(wait > 0),
            np.percentile(wait, [50, 90], method="nearest"), np.argmax(wait))


def image_features(np):
    """Image features on uint8 pixels: an integral image (two cumsums over a
    zero-padded copy) for box sums, Sobel gradients by sliding windows and
    einsum, magnitudes by hypot, orientations by arctan2 binned into a
    weighted histogram (a HOG cell), a normalised cross-correlation."""
    img = np.asarray(IMG)
    f = img.astype(np.float64)
    ii = np.pad(f, ((1, 0), (1, 0))).cumsum(axis=0).cumsum(axis=1)
    r0, c0 = np.arange(0, 9, 3)[:, None], np.arange(0, 9, 3)[None, :]
    box = ii[r0 + 3, c0 + 3] - ii[r0, c0 + 3] - ii[r0 + 3, c0] + ii[r0, c0]
    win = np.lib.stride_tricks.sliding_window_view(np.pad(f, 1, mode="edge"), (3, 3))
    kx = np.asarray([[-1, 0, 1], [-2, 0, 2], [-1, 0, 1]])
    gx = np.einsum("ijkl,kl->ij", win, kx)
    gy = np.einsum("ijkl,kl->ij", win, kx.T)
    mag = np.hypot(gx, gy)
    ang = np.rad2deg(np.arctan2(gy, gx)) % 180
    hist, _ = np.histogram(ang[:6, :6], bins=9, range=(0, 180), weights=mag[:6, :6])
    hist /= np.linalg.norm(hist) + 1e-9
    tpl = f[2:5, 3:6]
    wins = np.lib.stride_tricks.sliding_window_view(f, tpl.shape)
    zw = wins - wins.mean(axis=(-1, -2), keepdims=True)
    zt = tpl - tpl.mean()
    ncc = (zw * zt).sum(axis=(-1, -2)) / np.sqrt((zw ** 2).sum(axis=(-1, -2)) * (zt ** 2).sum())
    edges = (mag > np.percentile(mag, 80)).astype(np.uint8) * 255
    return (ii[-1, -1], box, np.allclose(box, [[f[r:r + 3, c:c + 3].sum() for c in range(0, 9, 3)]
                                              for r in range(0, 9, 3)]), gx[:3], mag.max(),
            ang[::4, ::4],
            hist, np.unravel_index(np.argmax(ncc), ncc.shape), ncc.max(), edges.dtype == np.uint8,
            np.count_nonzero(edges), np.sum(edges, dtype=np.int64))


def components(np):
    """Connected components of a binary image: labels spread by the maximum
    over shifted neighbours until nothing changes, relabelled 1..n with
    unique(return_inverse=True), sizes by bincount, bounding boxes by
    minimum.at/maximum.at, centroids by bincount weights."""
    b = np.asarray(BLOBS).astype(bool)
    H, W = b.shape
    lab = np.where(b, np.arange(1, H * W + 1).reshape(H, W), 0)
    while True:
        p = np.pad(lab, 1)
        nb = np.max(np.stack([p[1:-1, 1:-1], p[:-2, 1:-1], p[2:, 1:-1], p[1:-1, :-2], p[1:-1, 2:]]),
                    axis=0)
        new = np.where(b, nb, 0)
        if np.array_equal(new, lab):
            break
        lab = new
    ids, inv = np.unique(lab, return_inverse=True)
    lab = inv.reshape(lab.shape)
    n = len(ids) - 1
    sizes = np.bincount(lab.ravel(), minlength=n + 1)[1:]
    rr, cc = np.indices(lab.shape)
    rmin = np.full(n + 1, H)
    rmax = np.full(n + 1, -1)
    np.minimum.at(rmin, lab.ravel(), rr.ravel())
    np.maximum.at(rmax, lab.ravel(), rr.ravel())
    cy = np.bincount(lab.ravel(), weights=rr.ravel()) / np.bincount(lab.ravel())
    cx = np.bincount(lab.ravel(), weights=cc.ravel().astype(np.float64)) / np.bincount(lab.ravel())
    big = np.argsort(sizes, kind="stable")[::-1][:3] + 1
    return (lab, n, sizes, rmin[1:], rmax[1:], cy[1:], cx[1:], big, np.isin(lab, big).sum())


def sparse_matrices(np):
    """A sparse matrix by hand: COO triplets with duplicates summed through
    unique(axis=0, return_inverse=True) and bincount, CSR rows by lexsort,
    a CSR product by np.add.reduceat (empty rows handled by a mask), row ids
    by np.repeat, the transpose product by np.add.at, against the dense one."""
    ij = np.asarray(COO)
    val = np.asarray(COO_VALUES)
    keys, inv = np.unique(ij, axis=0, return_inverse=True)
    summed = np.bincount(inv.ravel(), weights=val)
    order = np.lexsort((keys[:, 1], keys[:, 0]))
    rows, cols, data = keys[order, 0], keys[order, 1], summed[order]
    n = 7
    indptr = np.zeros(n + 1, dtype=np.int64)
    np.add.at(indptr, rows + 1, 1)
    indptr = np.cumsum(indptr)
    x = np.linspace(-1, 1, n)
    prod = data * x[cols]
    nonempty = np.diff(indptr) > 0
    y = np.zeros(n)
    y[nonempty] = np.add.reduceat(prod, indptr[:-1][nonempty])
    row_ids = np.repeat(np.arange(n), np.diff(indptr))
    yt = np.zeros(n)
    np.add.at(yt, cols, data * x[row_ids])
    D = np.zeros((n, n))
    np.add.at(D, (ij[:, 0], ij[:, 1]), val)
    return (keys.shape, summed, indptr, y, np.allclose(y, D @ x), yt, np.allclose(yt, D.T @ x),
            np.array_equal(row_ids, rows), np.count_nonzero(D), np.diff(indptr).max())


def memory_layout(np):
    """Questions programs ask about layout: strides of transposes and
    slices, C/F contiguity, shares_memory and may_share_memory between
    views, copies that detach, ascontiguousarray/asfortranarray, itemsize,
    nbytes, and views of one buffer under another dtype."""
    a = np.arange(24, dtype=np.int32).reshape(4, 6)
    t = a.T
    s = a[1:3, ::2]
    f = np.asfortranarray(a)
    c = np.ascontiguousarray(t)
    b = a.view(np.uint8)
    h = a[:, :3].copy()
    h[0, 0] = -5
    e = np.zeros((0, 3))
    return (a.strides, t.strides, s.strides, s.shape, f.strides, c.strides, t.flags["C_CONTIGUOUS"],
            t.flags["F_CONTIGUOUS"], s.flags["C_CONTIGUOUS"], f.flags["F_CONTIGUOUS"],
            np.shares_memory(a, t), np.shares_memory(a, h), np.shares_memory(a[:2], a[2:]),
            np.may_share_memory(a[:, 0], a[:, 1]), np.shares_memory(a[:, 0], a[:, 1]), b.shape,
            b[0, :8], a.itemsize, a.nbytes, s.nbytes, e.shape, e.flags["C_CONTIGUOUS"], a[0, 0],
            a.reshape(-1)[::5].strides, np.asarray(3.0).strides,
            a.view(np.float32).dtype == np.float32,
            np.arange(4, dtype=np.uint16).view(np.uint8), a[:, 1].base is None)


def simplex(np):
    """A linear programme by the tableau simplex method: entering columns by
    argmin of the reduced costs, the ratio test with np.where and inf, the
    pivot as a rank-one update of the tableau; the answer checked against
    the vertices of the feasible region found by solving every pair of
    constraints."""
    A = np.asarray([[1.0, 1.0], [2.0, 1.0], [-1.0, 2.0]])
    b = np.asarray([4.0, 6.0, 4.0])
    c = np.asarray([-3.0, -2.0])
    m, n = A.shape
    T = np.zeros((m + 1, n + m + 1))
    T[:m, :n] = A
    T[:m, n:n + m] = np.eye(m)
    T[:m, -1] = b
    T[-1, :n] = c
    basis = np.arange(n, n + m)
    steps = 0
    while (T[-1, :-1] < -1e-12).any():
        j = np.argmin(T[-1, :-1])
        col = T[:m, j]
        ratios = np.where(col > 1e-12, T[:m, -1] / np.where(col > 1e-12, col, 1.0), np.inf)
        i = np.argmin(ratios)
        T[i] /= T[i, j]
        T -= np.outer(T[:, j], T[i]) * (np.arange(m + 1) != i)[:, None]
        basis[i] = j
        steps += 1
    x = np.zeros(n + m)
    x[basis] = T[:m, -1]
    G = np.vstack([A, -np.eye(n)])
    h = np.concatenate([b, np.zeros(n)])
    best = np.inf
    for p in range(len(G)):
        for q in range(p + 1, len(G)):
            M = G[[p, q]]
            if abs(np.linalg.det(M)) < 1e-12:
                continue
            v = np.linalg.solve(M, h[[p, q]])
            if (G @ v <= h + 1e-9).all():
                best = min(best, float(c @ v))
    return x[:n], -T[-1, -1], steps, np.sort(basis), best, np.isclose(best, c @ x[:n]), T.round(6)


def fractals(np):
    """Fractals from integer and affine arithmetic: Sierpinski's triangle as
    Pascal's triangle mod 2 (and as i & j == 0), the Barnsley fern from
    fixed uniforms choosing its affine maps by searchsorted on cumulative
    probabilities, a box-counting estimate of the fern's dimension."""
    n = 16
    pascal = np.zeros((n, n), dtype=np.int64)
    pascal[:, 0] = 1
    for i in range(1, n):
        pascal[i, 1:] = (pascal[i - 1, 1:] + pascal[i - 1, :-1]) % 2
    i, j = np.indices((n, n))
    sier = ((i & j) == 0) & (j <= i)
    maps = np.asarray([[[0.0, 0.0], [0.0, 0.16]], [[0.85, 0.04], [-0.04, 0.85]],
                       [[0.2, -0.26], [0.23, 0.22]], [[-0.15, 0.28], [0.26, 0.24]]])
    shifts = np.asarray([[0.0, 0.0], [0.0, 1.6], [0.0, 1.6], [0.0, 0.44]])
    cum = np.cumsum([0.01, 0.85, 0.07, 0.07])
    u = np.asarray(numpy.random.default_rng(9).random(3000))
    k = np.searchsorted(cum, u * cum[-1], side="right")
    k = np.minimum(k, 3)
    pts = np.empty((len(u), 2))
    p = np.zeros(2)
    for t in range(len(u)):
        p = maps[k[t]] @ p + shifts[k[t]]
        pts[t] = p
    lo, hi = pts.min(axis=0), pts.max(axis=0)
    counts = []
    for s in (4, 8, 16, 32):
        cells = np.floor((pts - lo) / (hi - lo + 1e-12) * s).astype(np.int64)
        counts.append(len(np.unique(cells[:, 0] * s + cells[:, 1])))
    slope = np.polyfit(np.log([4, 8, 16, 32]), np.log(counts), 1)[0]
    return (pascal.astype(bool) == sier, np.sum(sier), np.bincount(k, minlength=4), pts[-3:], lo,
            hi,
            counts, slope, np.einsum("kij,j->ki", maps, np.ones(2)))


def optimisation(np):
    """Unconstrained minimisation of Rosenbrock's function: gradient descent
    with a backtracking line search, Newton's method solving with the
    Hessian, and Nelder-Mead on a simplex ordered by argsort."""
    def f(x):
        return (1 - x[..., 0]) ** 2 + 100 * (x[..., 1] - x[..., 0] ** 2) ** 2

    def grad(x):
        return np.asarray([-2 * (1 - x[0]) - 400 * x[0] * (x[1] - x[0] ** 2),
                           200 * (x[1] - x[0] ** 2)])

    def hess(x):
        return np.asarray([[2 - 400 * (x[1] - 3 * x[0] ** 2), -400 * x[0]], [-400 * x[0], 200.0]])

    x = np.asarray([-1.2, 1.0])
    for _ in range(200):
        g = grad(x)
        t = 1.0
        while f(x - t * g) > f(x) - 0.5 * t * (g @ g):
            t *= 0.5
        x = x - t * g
    xn = np.asarray([-1.2, 1.0])
    path = [xn]
    for _ in range(20):
        xn = xn - np.linalg.solve(hess(xn), grad(xn))
        path.append(xn)
    S = np.asarray([[-1.2, 1.0], [-1.0, 1.0], [-1.2, 1.2]])
    for _ in range(150):
        S = S[np.argsort(f(S))]
        c = S[:-1].mean(axis=0)
        r = c + (c - S[-1])
        if f(r) < f(S[0]):
            e = c + 2 * (c - S[-1])
            S[-1] = e if f(e) < f(r) else r
        elif f(r) < f(S[-2]):
            S[-1] = r
        else:
            k = c + 0.5 * (S[-1] - c)
            if f(k) < f(S[-1]):
                S[-1] = k
            else:
                S[1:] = S[0] + 0.5 * (S[1:] - S[0])
    return (x, f(x), xn, np.asarray(path)[:5], np.linalg.norm(grad(xn)), S[np.argmin(f(S))],
            f(S).min(),
            np.linalg.eigvalsh(hess(np.ones(2))))


def matrix_functions(np):
    """Matrix functions by hand: the exponential by scaling and squaring of
    a Taylor series against the eigendecomposition V diag(exp w) V^-1,
    square roots and logarithms of symmetric positive matrices by eigh,
    a rotation generator's exponential, the Denman-Beavers iteration."""
    A = np.asarray([[0.0, 1.0, 0.5], [-1.0, 0.0, 0.2], [0.1, 0.3, -0.5]])
    s = max(0, int(np.ceil(np.log2(np.linalg.norm(A, ord=np.inf)))) + 1)
    B = A / 2 ** s
    E = np.eye(3)
    term = np.eye(3)
    for k in range(1, 20):
        term = term @ B / k
        E = E + term
    for _ in range(s):
        E = E @ E
    w, V = np.linalg.eig(A)
    E2 = (V * np.exp(w)) @ np.linalg.inv(V)
    S = np.asarray([[4.0, 1.0, 0.0], [1.0, 3.0, 1.0], [0.0, 1.0, 2.0]])
    lam, Q = np.linalg.eigh(S)
    sqrtS = (Q * np.sqrt(lam)) @ Q.T
    logS = Q @ np.diag(np.log(lam)) @ Q.T
    th = 0.3
    K = np.asarray([[0.0, -th], [th, 0.0]])
    wk, Vk = np.linalg.eig(K)
    R = ((Vk * np.exp(wk)) @ np.linalg.inv(Vk)).real
    Y, Z = S.copy(), np.eye(3)
    for _ in range(30):
        Y, Z = 0.5 * (Y + np.linalg.inv(Z)), 0.5 * (Z + np.linalg.inv(Y))
    return (E, np.allclose(E, E2.real), np.abs(E2.imag).max() < 1e-10, sqrtS,
            np.allclose(sqrtS @ sqrtS, S),
            logS, np.trace(logS), np.log(np.linalg.det(S)), R, np.allclose(Y, sqrtS),
            np.iscomplexobj(w))


def tensor_decomposition(np):
    """Multilinear algebra: mode-n unfoldings by moveaxis and reshape, the
    n-mode product by tensordot, a rank-2 CP decomposition by alternating
    least squares with Khatri-Rao products from einsum, and a truncated
    HOSVD whose core reconstructs the tensor."""
    a = np.asarray([1.0, 2.0, 0.5, -1.0])
    b = np.asarray([0.5, -1.0, 2.0])
    c = np.asarray([1.0, 1.0, -2.0, 0.5, 3.0])
    X = np.einsum("i,j,k->ijk", a, b, c) + 0.5 * np.einsum("i,j,k->ijk", b[[0, 1, 2, 0]], c[:3],
                                                           a[[0, 1, 2, 3, 0]])

    def unfold(T, mode):
        return np.moveaxis(T, mode, 0).reshape(T.shape[mode], -1)

    def khatri_rao(U, W):
        return np.einsum("ir,jr->ijr", U, W).reshape(-1, U.shape[1])

    factors = [np.ones((d, 2)) + 0.1 * np.arange(d * 2).reshape(d, 2) for d in X.shape]
    for _ in range(60):
        for mode in range(3):
            others = [factors[m] for m in range(3) if m != mode]
            KR = khatri_rao(others[0], others[1])
            G = (others[0].T @ others[0]) * (others[1].T @ others[1])
            factors[mode] = unfold(X, mode) @ KR @ np.linalg.pinv(G)
    Xhat = np.einsum("ir,jr,kr->ijk", *factors)
    Us = [np.linalg.svd(unfold(X, m), full_matrices=False)[0][:, :2] for m in range(3)]
    core = X
    for m, U in enumerate(Us):
        core = np.moveaxis(np.tensordot(U.T, core, axes=(1, m)), 0, m)
    back = core
    for m, U in enumerate(Us):
        back = np.moveaxis(np.tensordot(U, back, axes=(1, m)), 0, m)
    return (unfold(X, 1)[:, :4], np.linalg.norm(X - Xhat) / np.linalg.norm(X) < 1e-6, core.shape,
            np.allclose(back, X), np.linalg.matrix_rank(unfold(X, 0)),
            np.abs(np.linalg.svd(unfold(X, 2), compute_uv=False)),
            np.tensordot(X, a, axes=(0, 0)).shape)


def byte_codes(np):
    """Bytes as uint8 arrays: a Caesar and a Vigenere cipher with modular
    arithmetic, FNV-1a hashes in uint64 with wrap-around multiplication,
    a byte histogram and its entropy, run lengths of repeated bytes."""
    text = np.frombuffer(b"the quick brown fox jumps over the lazy dog", dtype=np.uint8)
    letters = (text >= ord("a")) & (text <= ord("z"))
    shifted = text.copy()
    shifted[letters] = (text[letters] - ord("a") + 3) % 26 + ord("a")
    key = np.frombuffer(b"lemon", dtype=np.uint8) - ord("a")
    k = np.resize(key, letters.sum())
    vig = text.copy()
    vig[letters] = ((text[letters] - ord("a")).astype(np.int64) + k) % 26 + ord("a")
    back = vig.copy()
    back[letters] = ((vig[letters] - ord("a")).astype(np.int64) - k) % 26 + ord("a")
    h = np.uint64(14695981039346656037)
    prime = np.uint64(1099511628211)
    hashes = []
    for word in bytes(text).split():
        hv = h
        for byte in word:
            hv = (hv ^ np.uint64(byte)) * prime
        hashes.append(hv)
    hist = np.bincount(text, minlength=256)
    p = hist[hist > 0].astype(np.float64) / hist.sum()
    entropy = -(p * np.log2(p)).sum()
    runs = np.frombuffer(b"aaabccddddde", dtype=np.uint8)
    starts = np.flatnonzero(np.diff(runs, prepend=np.uint8(0)) != 0)
    lengths = np.diff(np.append(starts, len(runs)))
    return (bytes(shifted.tobytes()), bytes(back.tobytes()) == bytes(text.tobytes()), vig[:8],
            np.asarray(hashes, dtype=np.uint64), hist[ord("o")], entropy, runs[starts], lengths,
            text.view(np.int8)[:3], (text.astype(np.uint16) << 4)[:3], np.bitwise_xor.reduce(text))


def climate(np):
    """Monthly station records with gaps: masked invalid readings, monthly
    climatologies by reshape to (years, 12), anomalies, weighted
    averages over stations, a masked linear trend, and counts of
    valid months."""
    rng = numpy.random.default_rng(21)
    years, stations = 6, 3
    t = np.arange(years * 12, dtype=np.float64)
    base = 10 + 8 * np.sin(2 * np.pi * (t % 12) / 12)
    noise = np.asarray(rng.normal(0, 0.5, (years * 12, stations)))
    data = base[:, None] + 0.02 * t[:, None] + noise
    gaps = np.asarray(rng.random((years * 12, stations)) < 0.1)
    raw = np.where(gaps, np.nan, data)
    m = np.ma.masked_invalid(raw)
    by_month = m.reshape(years, 12, stations)
    clim = by_month.mean(axis=0)
    anom = by_month - clim[None]
    weights = np.asarray([0.5, 0.3, 0.2])
    regional = np.ma.average(anom.reshape(-1, stations), axis=1, weights=weights)
    trend = np.ma.polyfit(t, regional, 1)
    valid = m.count(axis=0)
    return (clim.filled(np.nan)[:3], anom.filled(0)[0, :2], regional.filled(np.nan)[:6], trend,
            np.asarray(valid), np.ma.getmaskarray(regional).sum(),
            by_month.max(axis=(0, 1)).filled(0),
            np.nanmean(raw, axis=0), np.isnan(raw).sum(axis=0))


def permutations(np):
    """Permutations by hand: a Fisher-Yates shuffle over fixed draws and a
    bubble sort, both swapping with a fancy index (a[[i, j]] = a[[j, i]]:
    the tuple swap a[i], a[j] = a[j], a[i] reads views here, as PyTorch's,
    docs/numpy.md), inverses by argsort and by scatter, composition, cycles,
    parity, inversion counts by broadcasting."""
    u = np.asarray(numpy.random.default_rng(13).random(10))
    p = np.arange(10)
    for i in range(9, 0, -1):
        j = int(u[i] * (i + 1))
        p[[i, j]] = p[[j, i]]
    a = np.asarray([5, 1, 4, 2, 8, 0, 3])
    swaps = 0
    for end in range(len(a) - 1, 0, -1):
        for k in range(end):
            if a[k] > a[k + 1]:
                a[[k, k + 1]] = a[[k + 1, k]]
                swaps += 1
    inv = np.empty_like(p)
    inv[p] = np.arange(len(p))
    seen = np.zeros(len(p), dtype=bool)
    cycles = []
    for s in range(len(p)):
        if not seen[s]:
            c, k = [], s
            while not seen[k]:
                seen[k] = True
                c.append(int(k))
                k = p[k]
            cycles.append(c)
    parity = (len(p) - len(cycles)) % 2
    inversions = np.triu(p[:, None] > p[None, :], 1).sum()
    return (p, a, swaps, inv, np.array_equal(inv, np.argsort(p)), p[inv], p[p], cycles, parity,
            inversions, inversions % 2 == parity, np.sort(p[np.argsort(-u)]))


def segments(np):
    """Splitting a signal into runs: zero crossings by sign changes, runs
    of a condition split at np.flatnonzero(np.diff(mask)) + 1, segment
    statistics by reduceat, rolling windows with nan-aware means and
    percentiles over the window axis, contiguous valid stretches of a masked
    series."""
    x = np.asarray(SIGNAL5)
    s = np.sign(x)
    crossings = np.flatnonzero(s[:-1] * s[1:] < 0)
    mask = x > 0
    cuts = np.flatnonzero(np.diff(mask)) + 1
    runs = np.split(x, cuts)
    starts = np.concatenate([[0], cuts])
    lengths = np.diff(np.concatenate([starts, [len(x)]]))
    sums = np.add.reduceat(x, starts)
    gappy = x.copy()
    gappy[::7] = np.nan
    win = np.lib.stride_tricks.sliding_window_view(gappy, 5)
    m = np.ma.masked_invalid(gappy)
    return (crossings, len(runs), [len(r) for r in runs], lengths, sums / lengths,
            mask[starts], np.nanmean(win, axis=-1)[:6],
            np.nanpercentile(win, [10, 90], axis=-1)[:, :4],
            np.ma.clump_unmasked(m)[:3], np.ma.flatnotmasked_contiguous(m)[-1],
            np.argwhere(np.abs(np.diff(x)) > 0.4).ravel())


def recommender(np):
    """Ratings with gaps: row means by nanmean for imputation, a rank-2
    factorisation by alternating least squares over the observed entries
    only, top-k unseen items per user by argsort and take_along_axis with
    seen items pushed down by np.where, and hit counts by np.isin."""
    R = np.asarray(RATINGS)
    seen = ~np.isnan(R)
    mu = np.nanmean(R, axis=1, keepdims=True)
    filled = np.where(seen, R, mu)
    k, lam = 2, 0.1
    U = np.ones((R.shape[0], k)) + 0.01 * np.arange(R.shape[0] * k).reshape(-1, k)
    V = np.ones((R.shape[1], k)) - 0.01 * np.arange(R.shape[1] * k).reshape(-1, k)
    for _ in range(15):
        for i in range(R.shape[0]):
            Vi = V[seen[i]]
            U[i] = np.linalg.solve(Vi.T @ Vi + lam * np.eye(k), Vi.T @ R[i, seen[i]])
        for j in range(R.shape[1]):
            Uj = U[seen[:, j]]
            V[j] = np.linalg.solve(Uj.T @ Uj + lam * np.eye(k), Uj.T @ R[seen[:, j], j])
    P = U @ V.T
    rmse = np.sqrt(np.mean((P - R)[seen] ** 2))
    scores = np.where(seen, -np.inf, P)
    top = np.argsort(-scores, axis=1, kind="stable")[:, :2]
    best = np.take_along_axis(scores, top, axis=1)
    liked = np.asarray([[1, 4], [0, 2], [3, 5], [2, 4]])
    hits = np.isin(top, liked).sum(axis=1)
    return mu.ravel(), filled[0], rmse, top, best, hits, np.count_nonzero(seen, axis=0)


def ranks(np):
    """Rank statistics as scipy computes them: average ranks with ties from
    unique(return_inverse=True) and bincount, Spearman's rho as the
    correlation of ranks, Kendall's tau from the signs of all pairs, a
    dense ranking, percentile ranks by searchsorted."""
    a = np.asarray([3.0, 1.0, 4.0, 1.0, 5.0, 9.0, 2.0, 6.0, 5.0, 3.0])
    b = np.asarray([2.0, 7.0, 1.0, 8.0, 2.0, 8.0, 1.0, 8.0, 2.0, 8.0])

    def rankdata(v):
        vals, inv, counts = np.unique(v, return_inverse=True, return_counts=True)
        ends = np.cumsum(counts)
        return ((ends - counts + 1 + ends).astype(np.float64) / 2)[inv]
    ra, rb = rankdata(a), rankdata(b)
    rho = np.corrcoef(ra, rb)[0, 1]
    i, j = np.triu_indices(len(a), k=1)
    prod = np.sign(a[i] - a[j]) * np.sign(b[i] - b[j])
    tau = prod.sum() / len(prod)
    dense = np.unique(a, return_inverse=True)[1] + 1
    ordinal = np.empty(len(a), dtype=np.intp)
    ordinal[np.argsort(a, kind="stable")] = np.arange(1, len(a) + 1)
    pct = np.searchsorted(np.sort(a), a, side="right").astype(np.float64) / len(a) * 100
    return ra, rb, rho, tau, dense, ordinal, pct, (prod > 0).sum(), (prod < 0).sum()


def periodic_particles(np):
    """Particles in a periodic box: minimum-image separations by rounding,
    pair distances with an infinite diagonal, neighbour lists from
    triu_indices under a cutoff, Lennard-Jones forces summed with add.at,
    a radial distribution histogram."""
    L = 5.0
    pos = np.asarray(PARTICLES) * L
    d = pos[:, None, :] - pos[None, :, :]
    d -= L * np.round(d / L)
    r = np.linalg.norm(d, axis=-1)
    np.fill_diagonal(r, np.inf)
    i, j = np.triu_indices(len(pos), k=1)
    close = r[i, j] < 1.5
    pi, pj = i[close], j[close]
    rij = d[pi, pj]
    dist = np.linalg.norm(rij, axis=1)
    mag = 24 * (2 * dist ** -13 - dist ** -7)
    f = rij * (mag / dist)[:, None]
    F = np.zeros_like(pos)
    np.add.at(F, pi, f)
    np.subtract.at(F, pj, f)
    hist, edges = np.histogram(r[i, j], bins=10, range=(0, L / 2))
    shell = 4 / 3 * np.pi * (edges[1:] ** 3 - edges[:-1] ** 3)
    g = hist / shell / (len(pos) * (len(pos) - 1) / 2 / L ** 3)
    return (r.min(), np.argmin(r.min(axis=1)), len(pi), F.sum(axis=0), np.abs(F).max(), hist, g[:5],
            np.all(np.abs(d) <= L / 2 + 1e-12))


def color_spaces(np):
    """Colour work on uint8 RGB pixels: RGB to HSV with max/min over the
    channel axis and np.select for the hue's sector, back to RGB by
    sector tables, alpha compositing rounded back to uint8, and histogram
    matching of one channel to another through interp on their CDFs."""
    rgb = np.asarray(IMG_RGB)
    f = rgb.astype(np.float64) / 255
    mx, mn = f.max(axis=-1), f.min(axis=-1)
    delta = mx - mn
    safe = np.where(delta == 0, 1, delta)
    r, g, b = f[..., 0], f[..., 1], f[..., 2]
    h = np.select([delta == 0, mx == r, mx == g], [0.0, ((g - b) / safe) % 6, (b - r) / safe + 2],
                  default=(r - g) / safe + 4) / 6
    s = np.where(mx == 0, 0, delta / np.where(mx == 0, 1, mx))
    v = mx
    i = np.floor(h * 6).astype(np.int64) % 6
    fr = h * 6 - np.floor(h * 6)
    p, q, t = v * (1 - s), v * (1 - fr * s), v * (1 - (1 - fr) * s)
    table = np.stack([np.stack([v, t, p], -1), np.stack([q, v, p], -1), np.stack([p, v, t], -1),
                      np.stack([p, q, v], -1), np.stack([t, p, v], -1), np.stack([v, p, q], -1)])
    back = np.take_along_axis(table, i[None, ..., None], axis=0)[0]
    alpha = np.linspace(0, 1, rgb.shape[1])[None, :, None]
    over = np.rint(alpha * rgb + (1 - alpha) * rgb[::-1]).astype(np.uint8)
    src, ref = rgb[..., 0].ravel(), rgb[..., 2].ravel()
    s_vals, s_idx, s_counts = np.unique(src, return_inverse=True, return_counts=True)
    r_vals, r_counts = np.unique(ref, return_counts=True)
    s_cdf = np.cumsum(s_counts).astype(np.float64) / src.size
    r_cdf = np.cumsum(r_counts).astype(np.float64) / ref.size
    matched = np.interp(s_cdf, r_cdf, r_vals)[s_idx].reshape(rgb.shape[:2])
    return (h[:2], s[:2], np.allclose(back, f), over[0, :3], over.dtype == np.uint8,
            matched[:2].round(3),
            np.histogram(matched, bins=4, range=(0, 256))[0], i.max())


def audio(np):
    """PCM audio: float samples to int16 with clipping and back, levels in
    dB with a floor from finfo, mu-law companding and expansion, framing
    with a hop by as_strided, a Hann window, and overlap-add synthesis
    with np.add.at that restores the signal where the windows sum to one."""
    n = 400
    t = np.arange(n, dtype=np.float64) / 8000
    x = 0.6 * np.sin(2 * np.pi * 440 * t) + 0.5 * np.sin(2 * np.pi * 1250 * t)
    pcm = np.clip(np.round(x * 32767), -32768, 32767).astype(np.int16)
    back = pcm.astype(np.float32) / 32768
    rms = np.sqrt(np.mean(back.astype(np.float64) ** 2))
    db = 20 * np.log10(np.maximum(np.abs(back), np.finfo(np.float32).tiny))
    mu = 255.0
    comp = np.sign(x) * np.log1p(mu * np.abs(x)) / np.log1p(mu)
    q = np.round((comp + 1) / 2 * 255).astype(np.uint8)
    exp = np.sign(q / 127.5 - 1) * ((1 + mu) ** np.abs(q / 127.5 - 1) - 1) / mu
    frame, hop = 64, 32
    count = 1 + (n - frame) // hop
    frames = np.lib.stride_tricks.as_strided(x, shape=(count, frame),
                                             strides=(hop * x.strides[0], x.strides[0]))
    w = np.hanning(frame + 1)[:-1]
    y = np.zeros(n)
    idx = np.arange(frame)[None, :] + hop * np.arange(count)[:, None]
    np.add.at(y, idx, frames * w)
    wsum = np.zeros(n)
    np.add.at(wsum, idx, np.broadcast_to(w, frames.shape))
    inner = slice(frame, n - frame)
    return (pcm[:5], (pcm == 32767).sum() + (pcm == -32768).sum(), back.dtype == np.float32, rms,
            db[:3],
            q[:6], np.abs(exp - x).max() < 0.02, frames.shape,
            np.allclose(y[inner], x[inner] * wsum[inner]),
            wsum[inner].min(), np.argmax(np.abs(np.fft.rfft(x))))


def genomics(np):
    """DNA as bytes: base codes by a lookup table indexed with the uint8
    characters, GC content, the reverse complement by a second table,
    k-mer counts by sliding windows dotted with powers of four, the most
    frequent k-mers, and a Hamming distance matrix by broadcasting."""
    seq = np.frombuffer(b"ACGTTGCAACGTGGCCATTAGCACGTAAGCT", dtype=np.uint8)
    lut = np.full(256, -1, dtype=np.int8)
    lut[np.frombuffer(b"ACGT", dtype=np.uint8)] = np.arange(4)
    codes = lut[seq]
    gc = np.isin(codes, [1, 2]).mean()
    comp = np.asarray([3, 2, 1, 0], dtype=np.int8)[codes][::-1]
    letters = np.frombuffer(b"ACGT", dtype=np.uint8)[comp]
    k = 3
    win = np.lib.stride_tricks.sliding_window_view(codes.astype(np.int64), k)
    kmers = win @ (4 ** np.arange(k - 1, -1, -1))
    counts = np.bincount(kmers, minlength=4 ** k)
    top = np.argsort(-counts, kind="stable")[:3]
    reads = np.stack([codes[i:i + 8] for i in (0, 5, 10, 15)])
    ham = (reads[:, None, :] != reads[None, :, :]).sum(axis=-1)
    return (codes[:8], gc, letters.tobytes(), kmers[:6], counts.max(), top, counts[top], ham,
            len(np.unique(kmers)), codes.dtype == np.int8)


def board_games(np):
    """Board games on small integer grids: tic-tac-toe wins by rows,
    columns and both diagonals (np.diag of a flipped board), connect-four
    lines found by sliding windows in four directions, a flood fill of a
    go group's liberties by repeated dilation with np.pad."""
    ttt = np.asarray([[1, 2, 1], [2, 1, 2], [2, 1, 1]])

    def wins(board, p):
        m = board == p
        return bool(m.all(axis=0).any() or m.all(axis=1).any() or np.diag(m).all()
                    or np.diag(np.fliplr(m)).all())
    c4 = np.zeros((6, 7), dtype=np.int8)
    for col, player in [(3, 1), (3, 2), (4, 1), (2, 2), (5, 1), (6, 2), (2, 1), (1, 2), (4, 1),
                        (5, 2), (5, 1)]:
        row = np.flatnonzero(c4[:, col] == 0)[-1]
        c4[row, col] = player

    def lines(board, p):
        m = (board == p).astype(np.int64)
        sw = np.lib.stride_tricks.sliding_window_view
        horiz = (sw(m, 4, axis=1).sum(axis=-1) == 4).sum()
        vert = (sw(m, 4, axis=0).sum(axis=-1) == 4).sum()

        def diagonal_lines(b):
            return sum(int((np.diagonal(b, k).size >= 4)
                           and (sw(np.diagonal(b, k), 4).sum(axis=-1) == 4).sum())
                       for k in range(-2, 4))
        diag, anti = diagonal_lines(m), diagonal_lines(m[:, ::-1])
        return horiz, vert, diag, anti
    go = np.asarray([[0, 1, 1, 0, 0], [1, 2, 2, 1, 0], [0, 1, 2, 0, 0], [0, 0, 1, 0, 0],
                     [0, 0, 0, 0, 0]])
    group = np.zeros_like(go, dtype=bool)
    group[1, 1] = True
    while True:
        p = np.pad(group, 1)
        grown = (p[:-2, 1:-1] | p[2:, 1:-1] | p[1:-1, :-2] | p[1:-1, 2:] | group) & (go == 2)
        if (grown == group).all():
            break
        group = grown
    p = np.pad(group, 1)
    libs = (p[:-2, 1:-1] | p[2:, 1:-1] | p[1:-1, :-2] | p[1:-1, 2:]) & (go == 0)
    return (wins(ttt, 1), wins(ttt, 2), c4, lines(c4, 1), lines(c4, 2), group.sum(),
            np.argwhere(libs),
            np.count_nonzero(c4, axis=0))


def prngs(np):
    """Pseudo-random generators in fixed-width integers: an LCG in uint32
    whose products wrap, xorshift64 on uint64 with shifts and xors, the
    uniforms they give, a chi-square of their histogram, and a
    Park-Miller generator in int64 with its modulus."""
    a, c = np.uint32(1664525), np.uint32(1013904223)
    state = np.zeros(8, dtype=np.uint32)
    s = np.uint32(12345)
    for i in range(8):
        s = a * s + c
        state[i] = s
    xs = np.empty(6, dtype=np.uint64)
    v = np.uint64(88172645463325252)
    for i in range(6):
        v ^= v << np.uint64(13)
        v ^= v >> np.uint64(7)
        v ^= v << np.uint64(17)
        xs[i] = v
    u = (xs >> np.uint64(11)).astype(np.float64) / 2.0 ** 53
    vec = np.arange(1, 1001, dtype=np.uint32) * np.uint32(2654435761)
    hist = np.bincount((vec >> np.uint32(28)).astype(np.int64), minlength=16)
    expected = np.full(16, 1000 / 16)
    chi2 = ((hist - expected) ** 2 / expected).sum()
    pm = np.empty(5, dtype=np.int64)
    x = np.int64(1)
    for i in range(5):
        x = (np.int64(16807) * x) % np.int64(2147483647)
        pm[i] = x
    return state, xs, u, hist, chi2, pm, vec[:4], (vec[:4] * np.uint32(3)) ^ np.uint32(0xFFFF)


def sorting_algorithms(np):
    """Sorting written with array operations: merge sort by recursion and
    concatenate, quicksort by boolean partitions, counting sort by
    bincount and repeat, an LSD radix sort by decimal digits with stable
    argsort, all checked against np.sort; a stable sort of records by two
    keys with lexsort."""
    data = np.asarray(UNSORTED)

    def merge_sort(v):
        if len(v) <= 1:
            return v
        mid = len(v) // 2
        left, right = merge_sort(v[:mid]), merge_sort(v[mid:])
        out = np.empty(len(v), dtype=v.dtype)
        i = j = k = 0
        while i < len(left) and j < len(right):
            if left[i] <= right[j]:
                out[k] = left[i]
                i += 1
            else:
                out[k] = right[j]
                j += 1
            k += 1
        out[k:] = np.concatenate([left[i:], right[j:]])
        return out

    def quicksort(v):
        if len(v) <= 1:
            return v
        pivot = v[len(v) // 2]
        return np.concatenate([quicksort(v[v < pivot]), v[v == pivot], quicksort(v[v > pivot])])
    counting = np.repeat(np.arange(data.max() + 1), np.bincount(data))
    radix = data.copy()
    for place in (1, 10, 100):
        radix = radix[np.argsort((radix // place) % 10, kind="stable")]
    names = np.asarray([3, 1, 2, 1, 3, 2])
    ages = np.asarray([30, 25, 25, 40, 20, 25])
    order = np.lexsort((names, ages))
    return (merge_sort(data), np.array_equal(quicksort(data), np.sort(data)), counting,
            np.array_equal(radix, np.sort(data)), order, ages[order], names[order])


def sales_tables(np):
    """Column-wise records kept in a dict of arrays: a pivot table of
    region by month with add.at into a 2-d array, a join of prices by
    searchsorted on sorted keys, per-group shares with np.ix_ selections,
    month-on-month change, a text report formatted from 0-d results."""
    cols = {"region": np.asarray(SALES[:, 0]), "month": np.asarray(SALES[:, 1]),
            "item": np.asarray(SALES[:, 2]), "qty": np.asarray(SALES[:, 3])}
    price_keys = np.asarray([11, 12, 14, 17, 19])
    price_vals = np.asarray([2.5, 4.0, 1.25, 9.5, 3.0])
    at = np.searchsorted(price_keys, cols["item"])
    clipped = np.minimum(at, len(price_keys) - 1)
    found = (at < len(price_keys)) & (price_keys[clipped] == cols["item"])
    revenue = np.where(found, cols["qty"] * price_vals[clipped], 0.0)
    regions, r_idx = np.unique(cols["region"], return_inverse=True)
    months, m_idx = np.unique(cols["month"], return_inverse=True)
    pivot = np.zeros((len(regions), len(months)))
    np.add.at(pivot, (r_idx, m_idx), revenue)
    counts = np.zeros(pivot.shape, dtype=np.int64)
    np.add.at(counts, (r_idx, m_idx), 1)
    share = pivot / pivot.sum(axis=0, keepdims=True)
    sub = pivot[np.ix_([0, len(regions) - 1], [0, 2])]
    change = np.diff(pivot, axis=1) / pivot[:, :-1]
    best = months[np.argmax(pivot, axis=1)]
    lines = [f"{int(r):>3} {pivot[i].sum():9.2f} {int(best[i]):>3}" for i, r in enumerate(regions)]
    return (regions, months, pivot, counts, share.sum(axis=0), sub, change, best, "\n".join(lines),
            (~found).sum(), revenue.sum())


# ---- the programs, by area -------------------------------------------------------------

def test_partial_differential_equations_and_quadrature():
    _run(wave)
    _run(poisson)
    _run(spline)


def test_polynomials_and_matrices():
    _run(chebyshev)
    _run(polynomials)
    _run(matrix_functions)
    _run(tensor_decomposition)


def test_statistics_and_machine_learning():
    _run(gaussian_process)
    _run(hmm)
    _run(weighted_statistics)
    _run(ranks)
    _run(recommender)
    _run(sales_tables)
    _run(kernel_density)
    _run(climate)
    _run(sampling)
    _run(conv_layer)


def test_images_geometry_and_graphs():
    _run(color_spaces)
    _run(genomics)
    _run(board_games)
    _run(segments)
    _run(periodic_particles)
    _run(image_features)
    _run(components)
    _run(geometry)
    _run(sparse_matrices)


@pytest.mark.filterwarnings("ignore::RuntimeWarning")  # NumPy's, on its uint32 scalars' wrap-around
def test_algorithms_and_simulations():
    _run(sorting_algorithms)
    _run(prngs)
    _run(audio)
    _run(permutations)
    _run(simplex)
    _run(optimisation)
    _run(fractals)
    _run(dynamic_programming)
    _run(markov_chains)
    _run(sandpile)
    _run(queues)


@pytest.mark.filterwarnings("ignore::RuntimeWarning")  # NumPy's, on its uint64 scalars' wrap-around
def test_functions_of_many_kinds():
    _run(einsum_forms)
    _run(vectorized_functions)
    _run(emath)
    _run(phasors)
    _run(linalg_numpy2)
    _run(bit_tricks)
    _run(byte_codes)
    _run(text_files)
    _run(memory_layout)


# ---- what the programs found ---------------------------------------------------------------

def interleaved_views(np):
    """Columns of one matrix interleave in memory without sharing an element:
    np.shares_memory answered the bounds check (True), where NumPy's answer
    is exact; may_share_memory keeps the bounds check."""
    a = np.arange(24.0).reshape(4, 6)
    return (np.shares_memory(a[:, 0], a[:, 1]), np.may_share_memory(a[:, 0], a[:, 1]),
            np.shares_memory(a[::2], a[1::2]), np.shares_memory(a[:, ::2], a[:, 2]),
            np.shares_memory(a, a.T), np.shares_memory(a[:2], a[2:]),
            np.may_share_memory(a[:2], a[2:]),
            np.shares_memory(a, numpy.zeros(3)), np.shares_memory(a[0], a[0, 3:], max_work=None))


def test_shares_memory_is_exact():
    _run(interleaved_views)
    # a tensor that requires grad, and a dtype NumPy lacks, are read as memory
    x = torchlike.ones(6, dtype=torchlike.bfloat16, requires_grad=True)
    assert tnp.shares_memory(x, x[1:]) and not tnp.shares_memory(x[::2], x[1::2])
    assert tnp.may_share_memory(x[::2], x[1::2])


def householder(np):
    """np.linalg.qr(mode='raw'): LAPACK's reflectors (as NumPy hands them
    over, transposed) and scale factors, of real, complex, integer and
    stacked matrices; it raised 'mode must be reduced, complete or r'."""
    a = np.asarray([[1.0, 2.0, 3.0], [4.0, 5.0, 6.5], [7.0, 8.0, 10.0], [1.0, 0.0, 1.0]])
    h, tau = np.linalg.qr(a, mode="raw")
    hc, tc = np.linalg.qr(a[:3] * (1 + 1j), mode="raw")
    hs, ts = np.linalg.qr(np.stack([a, 2 * a]), mode="raw")
    return h, tau, hc, tc, hs, ts, np.linalg.qr(np.asarray([[3, 1], [4, 2]]), mode="raw")


def test_qr_raw_mode():
    _run(householder)


def real_only_functions(np):
    """Real-only ufuncs given complex numbers: NumPy refuses them; ours cast
    to a real dtype first (modf, frexp and spacing dropped the imaginary
    parts silently) or scaled them (deg2rad, rad2deg)."""
    z = np.asarray([1.5 + 1j, -2.0])
    answers = []
    for f in (np.modf, np.frexp, np.spacing, np.deg2rad, np.rad2deg, np.radians, np.degrees):
        try:
            f(z)
            answers.append("computed")
        except TypeError:
            answers.append("TypeError")
    return answers, np.modf(np.asarray([-2.5, 3.25])), np.deg2rad(np.asarray([90], dtype=np.int8))


def test_real_only_ufuncs_refuse_complex_numbers():
    _run(real_only_functions)
    z = torchlike.tensor([1.5 + 1j])   # NumPy's ufuncs called on a tensor
    for f in (numpy.modf, numpy.frexp, numpy.spacing):
        with pytest.raises(TypeError, match="not supported for the input types"):
            f(z)


def scalar_constants(np):
    """Labels and constants written with Python numbers only, as NumPy code
    writes them: np.where(score > 0, 1.0, -1.0) was float32 (PyTorch's
    default float for two Python floats; NumPy: float64, as np.add(1.0,
    -1.0) is); np.minimum(2, 3.5), np.add(2, 3.5) and np.power(2, -1.0) made
    the int an int64 array and the float weak (float32); np.heaviside(0,
    0.5) and np.nextafter(1, 2) raised AttributeError."""
    score = np.asarray([0.3, -1.2, 0.0, 2.5])
    labels = np.where(score > 0, 1.0, -1.0)
    margin = labels * score
    return (labels, margin, np.where(score > 0, 1, 0), np.where(score > 0, 1, 0.5),
            np.where(score > 0, True, False), np.where(score > 0, 1j, 0), np.where(True, 2.5, 1),
            np.where([[True], [False]], 1.0, 2), np.minimum(2, 3.5), np.add(2, 3.5),
            np.power(2, -1.0), np.subtract(True, 0.5), np.logaddexp(1, 2.0), np.add(1, 2),
            np.heaviside(0, 0.5), np.heaviside(-1.5, 1), np.nextafter(1, 2), np.nextafter(1.0, 0),
            np.maximum(2 ** 62, 1.5), np.less(1, 2.5))


def test_python_numbers_alone_take_numpys_dtypes():
    _run(scalar_constants)
    # a tensor beside a Python float keeps PyTorch's promotion (documented)
    assert tnp.where(tnp.asarray([True]), tnp.arange(1), 0.5).dtype == torchlike.float32
    assert tnp.add(tnp.arange(1), 0.5).dtype == torchlike.float32


def ufunc_introspection(np):
    """Code that inspects ufuncs (generic wrappers, dispatch tables):
    np.matmul, np.vecdot and np.bitwise_count had no nin/nout/signature and
    were not instances of np.ufunc."""
    names = ("add", "sin", "divmod", "matmul", "vecdot", "bitwise_count", "isnat")
    funcs = [getattr(np, n) for n in names]
    return ([isinstance(f, np.ufunc) for f in funcs], [(f.nin, f.nout, f.nargs) for f in funcs],
            [f.signature for f in funcs], [f.identity for f in funcs],
            [callable(f.reduce) for f in funcs],
            np.bitwise_count(np.asarray([7, 255], dtype=np.uint8)))


def test_gufuncs_and_numpys_own_ufuncs_carry_the_ufunc_surface():
    _run(ufunc_introspection)
    for np in (numpy, tnp):  # a gufunc's reduce raises NumPy's error
        with pytest.raises(RuntimeError, match="signature"):
            np.matmul.reduce(np.ones((2, 2, 2)))


def root_products(np):
    """Polynomials evaluated from their roots and from 2-d coefficient sets
    (one polynomial per column) at tensor points: NumPy's code reshapes
    for tensor=True only when x is an ndarray, so polyvalfromroots(x, r)
    multiplied the pairs x[i] - r[i] into one number and polyval(x, c2)
    broadcast c2's columns against x."""
    P = np.polynomial
    x = np.linspace(-1, 2, 4)
    r = np.asarray([1.0, -0.5, 2.0])
    C2 = np.arange(6.0).reshape(3, 2)
    grid = np.arange(6.0).reshape(2, 3) / 4
    return (P.polynomial.polyvalfromroots(x, r), P.polynomial.polyvalfromroots(grid, r),
            P.polynomial.polyvalfromroots(x, np.stack([r, -r], axis=1)),
            P.polynomial.polyvalfromroots(x[:2], np.stack([r[:2], -r[:2]], axis=1), tensor=False),
            P.polynomial.polyval(x, C2), P.chebyshev.chebval(grid, C2), P.legendre.legval(x, C2),
            P.laguerre.lagval(x, C2), P.hermite.hermval(x, C2), P.hermite_e.hermeval(x, C2),
            P.polynomial.polyval(x[:2], C2[:2], tensor=False), P.polynomial.polyval(x, [1, 2]),
            P.chebyshev.chebval(np.asarray(0.5), np.asarray(C2)), P.polynomial.polyval(x, 3.0),
            P.polynomial.polyfit(x, P.polynomial.polyvalfromroots(x, r[:2]), 2))


def test_polynomial_evaluation_honours_tensor_true():
    _run(root_products)
    import torchlike.numpy.polynomial.legendre as legendre   # importable, as NumPy's
    assert legendre.legvander.__wrapped__ is numpy.polynomial.legendre.legvander
    # the fit of tensor samples runs on their device: NumPy's legfit, wrapped
    assert legendre.legfit.__wrapped__ is numpy.polynomial.legendre.legfit
    assert issubclass(tnp.polynomial.Chebyshev, numpy.polynomial.Chebyshev)


def computed_counts(np):
    """Counts computed by the program (n = mask.sum(), a 0-d integer array
    here, NumPy's integer scalar there) used where NumPy takes an int:
    np.resize, matrix_power, partition's kth, moveaxis, permutation, the
    FFT frequency axes, reshape to one size, the shape= of the *_like
    functions, the FFTs' axis= and fftshift's axes, default_rng's seed
    raised (NumPy's integer scalar passes; fftfreq, reshape and the FFTs'
    axes refused it too)."""
    x = np.arange(12.0)[::-1]
    n = np.sum(x > 8)                       # 3
    key = np.asarray([2, 7, 1])
    rng = np.random.default_rng(4)
    return (np.resize(key, n * 2), np.resize(key, (n, 2)), np.resize(np.zeros(0), n),
            np.linalg.matrix_power(np.asarray([[1, 1], [1, 0]]), n * 3),
            np.linalg.matrix_power(np.asarray([[2.0, 1.0], [0.0, 1.0]]), -n),
            np.partition(x, n)[n], np.argpartition(x, n)[n], np.partition(x, [n - 1, n])[n - 1],
            np.moveaxis(np.zeros((2, 3, 4)), 0, n - 1).shape, np.sort(rng.permutation(n)),
            np.sort(np.random.permutation(n)), np.fft.fftfreq(n * 2, d=0.5), np.fft.rfftfreq(n * 2),
            np.fft.fftfreq(numpy.int64(4)), np.reshape(x, n * 4).shape,
            np.reshape(x, numpy.int64(12)),
            np.zeros_like(key, shape=n), np.full_like(x, 2.0, shape=(n, 2)),
            np.ones_like(key, shape=n - 1),
            np.fft.fftshift(x.reshape(3, 4), axes=n - 2),
            np.fft.ifftshift(x.reshape(3, 4), axes=numpy.int64(0)),
            np.random.default_rng(n).random(2).shape,
            np.random.default_rng(numpy.int64(3)).random(1).shape,
            np.fft.fft(x.reshape(3, 4), n=n * 2, axis=n - 3),
            np.fft.rfftn(x.reshape(3, 4), s=(n, n + 1), axes=(0, n - 2)),
            np.fft.ifft(x.reshape(3, 4), axis=numpy.int64(0)))


def test_counts_computed_by_the_program_are_ints_where_numpy_takes_them():
    _run(computed_counts)
    for np in (numpy, tnp):  # NumPy's errors for what is not a count
        with pytest.raises(TypeError):
            np.linalg.matrix_power(np.eye(2), 2.0)
        with pytest.raises(ValueError):
            np.fft.fftfreq(2.5)
        with pytest.raises(ValueError, match="non-negative"):
            np.resize(np.arange(3), (2, -1))
    x = torchlike.arange(3.0, requires_grad=True)   # resize is recorded now
    tnp.resize(x, 5).sum().backward()
    assert x.grad.tolist() == [2.0, 2.0, 1.0]


def reading_orders(np):
    """NumPy's documentation examples, run on tensors: np.ravel(x.T,
    order='A') and x.ravel(order='K') of a transposed or swapped array read
    C order (order='A'/'K' were taken as 'C', or 'K' as 'A'); 'K' reads the
    memory order, a broadcast axis and a negative step kept in place;
    nan_to_num with array replacements raised; result_type of Python
    numbers alone raised."""
    x = np.asarray([[1, 2, 3], [4, 5, 6]])
    a = np.arange(12).reshape(2, 3, 2).swapaxes(1, 2)
    b = np.broadcast_to(np.arange(3), (2, 3))
    c = np.arange(24).reshape(2, 3, 4)[:, ::-1, ::2]
    d = np.arange(24).reshape(4, 6)[::2, ::3].T
    e = np.arange(6).reshape(2, 3).T[::-1]
    g = np.arange(24).reshape(2, 3, 4).transpose(2, 0, 1)
    inf = np.asarray([np.inf, -np.inf, np.nan, -128, 128])
    z = np.asarray([complex(np.inf, np.nan), np.nan, complex(np.nan, np.inf)])
    return (np.ravel(x.T, order="A"), np.ravel(x.T, order="K"), a.ravel(order="K"),
            np.ravel(a, order="K"), b.ravel("K"), b.flatten("K"), c.ravel("K"), d.ravel("K"),
            d.ravel("A"), d.flatten("A"), e.ravel("K"), g.flatten("K"), np.ravel(x, "F"),
            np.ravel(np.asarray(3.0), "K"), np.shares_memory(x.T.ravel("K"), x),
            np.nan_to_num(inf, nan=np.asarray([11, 12, -9999, 13, 14]),
                          posinf=np.asarray([33333333, 11, 12, 13, 14]),
                          neginf=np.asarray([33333333, 11, 12, 13, 14])),
            np.nan_to_num(z, nan=np.asarray([1.0, 2.0, 3.0])),
            np.nan_to_num(inf.astype(np.float32), posinf=[7.0], neginf=np.asarray(-5)),
            np.result_type(3.0, -2) == np.float64, np.result_type(True, 2) == np.int64,
            np.result_type(1j) == np.complex128)


def in_place_and_masked_examples(np):
    """More of NumPy's documentation examples on tensors: a.resize() of a
    Fortran-ordered array (one segment, resized in its own order) raised
    'resize only works on single-segment arrays'; np.ma.average with
    weights over a tuple of axes raised '1D weights expected'."""
    results = []
    for shape in ((2, 1), (3, 3), (4,), (2, 2, 2)):
        a = np.array([[0, 1], [2, 3]], order="F")
        a.resize(shape, refcheck=False)
        results.append((a, bool(a.flags["F_CONTIGUOUS"])))
    c = np.array([[0, 1], [2, 3]], order="C")
    c.resize((2, 1))
    data = np.arange(8).reshape((2, 2, 2))
    m = np.ma.masked_equal(data, 5)
    avg, wsum = np.ma.average(m, axis=(2, 0), weights=np.asarray([[1.0, 2.0], [3.0, 4.0]]),
                              returned=True)
    whole = np.ma.average(data, axis=(0, 1), weights=[[1. / 4, 3. / 4], [1., 1. / 2]])
    return (results, c, whole.filled(-1), avg.filled(-1), wsum.filled(-1),
            np.ma.average(m, axis=1, weights=[1, 3]).filled(-1),
            np.average(data, axis=(0, 1), weights=[[1. / 4, 3. / 4], [1., 1. / 2]]))


def keyword_spellings(np):
    """Calls spelled with NumPy's parameter names, as its documentation
    writes np.linspace(start=-10, stop=10, num=101): the namespace took
    the Array API's positional-only forms (and asarray's order only as a
    keyword), so these raised TypeError."""
    x = np.linspace(start=-10, stop=10, num=5)
    z = np.asarray([1 + 2j, 3.25])
    return (x, np.eye(N=2, M=3, k=1), np.asarray(a=[1, 2]),
            np.asarray([[1, 2], [3, 4]], float, "F"),
            np.asarray([[1, 2], [3, 4]], None, "F").flags["F_CONTIGUOUS"],
            np.round(a=z.real, decimals=1), np.around(a=x / 3, decimals=2), np.real(val=z),
            np.imag(val=z), np.sinc(x=x / 10), np.i0(x=x / 10), np.expand_dims(a=x, axis=0),
            np.can_cast(from_=np.int8, to=np.int16), np.can_cast(np.float64, to=np.float32),
            np.fft.fftfreq(n=8, d=0.1), np.fft.rfftfreq(n=8), x.searchsorted(v=2.5),
            x.searchsorted(v=[-5.0, 5.0], side="right"))


def exact_casts(np):
    """NumPy 2.4's casting='same_value' (its astype documentation): a cast
    of any kind that raises ValueError when a value would change (a
    fraction, an overflow, a float64 that float32 rounds, an imaginary
    part); NaN stays NaN and any number keeps its truth as a bool. Ours
    refused the rule name, on tensors and on masked arrays."""
    x = np.asarray([1.0, 2.5, 3.0])
    answers = []
    for value, dtype in ((x, np.float32), (x[:1], np.int64), (x, np.int64),
                         (np.asarray([300]), np.uint8), (np.asarray([np.nan]), np.float32),
                         (np.asarray([0.1]), np.float32), (np.asarray([1 + 1j]), np.float64),
                         (np.asarray([1 + 0j]), np.float64), (np.asarray([2, 0]), np.bool_),
                         (np.asarray([70000], dtype=np.int32), np.int16)):
        try:
            answers.append(value.astype(dtype, casting="same_value"))
        except ValueError:
            answers.append("ValueError")
    m = np.ma.masked_equal(np.arange(3.0), 1)
    return answers, m.astype(np.int64, casting="same_value").filled(-1)


def read_only_flags(np):
    """np.copy's documentation example: a.flags["WRITEABLE"] = False (item
    assignment on the flags, which raised TypeError; a.flags.writeable =
    False worked), a copy that is writeable again, the flag given back."""
    a = np.asarray([1, 2, 3])
    a.flags["WRITEABLE"] = False
    refused = False
    try:
        a[0] = 9
    except ValueError:
        refused = True
    b = np.copy(a)
    b[0] = 3
    a.flags["W"] = True
    a[1] = 7
    unknown = None
    try:
        a.flags["C_CONTIGUOUS"] = False
    except KeyError:
        unknown = "KeyError"
    return refused, b.flags["WRITEABLE"], b, a, a.flags["WRITEABLE"], unknown


@pytest.mark.filterwarnings("ignore::numpy.exceptions.ComplexWarning")  # NumPy's, on 1+0j
def test_documentation_examples_on_tensors():
    _run(read_only_flags)
    _run(reading_orders)
    _run(in_place_and_masked_examples)
    _run(keyword_spellings)
    _run(exact_casts)
    for np in (numpy, tnp):
        with pytest.raises(ValueError, match="Shape of weights must be consistent"):
            np.ma.average(np.ma.masked_equal(np.arange(8).reshape(2, 2, 2), 5), axis=1,
                          weights=[1, 2, 3])
    x = torchlike.arange(6.0, requires_grad=True)   # the reading orders are recorded
    tnp.ravel(x.reshape(2, 3).T, order="K").mul(torchlike.arange(6.0)).sum().backward()
    assert x.grad.tolist() == [0.0, 1.0, 2.0, 3.0, 4.0, 5.0]
