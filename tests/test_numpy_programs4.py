"""NumPy programs, fourth round: kinds the first three rounds
(tests/test_numpy_programs.py, ...2.py, ...3.py) do not cover -- clustering,
Monte Carlo pricing, ODE integration, graph algorithms, a Kalman filter,
cellular automata, data cleaning with nan-functions and np.ma, in-memory
files, grids, in-place idioms, dtype-sensitive code, stride tricks, nearest
neighbours, iterative solvers, number theory, time series, classic
algorithms written with fancy indexing -- run once with NumPy and once with
``torchlike.numpy``; NumPy is the oracle for values, dtypes and shapes
(exact for integer and bool results, rtol 1e-6 for floats).

Programs are written as NumPy code is, except where the result would only
show a difference docs/numpy.md already names (PyTorch's promotion of an
integer array with a Python float, the Tensor methods' int64 sums of
unsigned integers, ``str(dtype)``, NumPy scalars' types): there the program
spells its data or its question as NumPy code also often does
(``np.arange(n, dtype=np.float64) * h``, ``np.sum(u8)``, ``x.dtype == np.uint8``).
Random inputs are drawn once by NumPy's generator; programs that use
``np.random`` compare properties, as the streams differ (docs/random.md)."""
import io

import numpy
import pytest

import torchlike
import torchlike.numpy as tnp
from test_numpy_programs import _host, _run, _same, host_step

_RNG = numpy.random.default_rng(11)
POINTS = numpy.concatenate([_RNG.normal(c, 0.4, (30, 2)) for c in ((0, 0), (3, 1), (1, 4))])
NORMALS = _RNG.standard_normal(2000)
EDGES = _RNG.integers(0, 12, (30, 2)) * 7 + 100        # sparse node ids
SIGNAL = numpy.cumsum(_RNG.normal(0, 0.1, 40))
NOISE = _RNG.normal(0, 0.5, (40, 2))
GLIDER = numpy.zeros((8, 8), dtype=numpy.uint8)
GLIDER[1, 2] = GLIDER[2, 3] = GLIDER[3, 1] = GLIDER[3, 2] = GLIDER[3, 3] = 1
READINGS = _RNG.normal(20, 2, (6, 8))
READINGS[_RNG.random((6, 8)) < 0.2] = numpy.nan
IMG = _RNG.integers(0, 256, (8, 8), dtype=numpy.uint8)


def kmeans(np):
    """Lloyd's k-means: squared distances by broadcasting, labels by argmin,
    centroids by bincount(weights=), the inertia by take_along_axis."""
    X = np.asarray(POINTS)
    C = X[[0, 30, 60]].copy()
    for _ in range(10):
        d2 = ((X[:, None, :] - C[None, :, :]) ** 2).sum(axis=-1)
        labels = np.argmin(d2, axis=1)
        counts = np.bincount(labels, minlength=3)
        C = np.stack([np.bincount(labels, weights=X[:, j], minlength=3) for j in range(2)],
                     axis=1) / counts[:, None]
    inertia = np.take_along_axis(d2, labels[:, None], axis=1).sum()
    onehot = np.eye(3, dtype=np.int64)[labels]
    return labels, counts, C, inertia, onehot.sum(axis=0), np.argsort(C[:, 0])


def option_pricer(np):
    """A European call priced by Monte Carlo over fixed normal draws (NumPy's,
    so the values compare), with antithetic variates; default_rng paths
    compared by properties only (the stream is torchlike's, docs/random.md)."""
    z = np.asarray(NORMALS)
    S0, K, r, sigma, T = 100.0, 105.0, 0.03, 0.2, 1.0
    ST = S0 * np.exp((r - 0.5 * sigma ** 2) * T + sigma * np.sqrt(T) * z)
    payoff = np.maximum(ST - K, 0.0)
    disc = np.exp(-r * T)
    price = disc * payoff.mean()
    stderr = disc * payoff.std(ddof=1) / np.sqrt(len(payoff))
    anti = 0.5 * (payoff + np.maximum(S0 * np.exp((r - 0.5 * sigma ** 2) * T
                                                  - sigma * np.sqrt(T) * z) - K, 0.0))
    rng = np.random.default_rng(1234)
    draws = rng.standard_normal((3, 500))
    paths = S0 * np.exp(np.cumsum((r - 0.5 * sigma ** 2) / 250
                                   + sigma * np.sqrt(1 / 250) * draws, axis=1))
    return (price, stderr, disc * anti.mean(), (payoff > 0).mean(), np.percentile(ST, [5, 95]),
            draws.shape, draws.dtype == np.float64, paths.shape, bool((paths > 0).all()),
            np.count_nonzero(payoff), np.cumsum(payoff[:5]))


def rk4(np):
    """A damped, driven oscillator for three initial states, integrated with
    classical Runge-Kutta in whole-array code."""
    def f(t, y):
        x, v = y[..., 0], y[..., 1]
        return np.stack([v, -x - 0.1 * v + np.sin(t)], axis=-1)
    h, n = 0.05, 200
    y = np.asarray([[1.0, 0.0], [0.0, 1.0], [2.0, -1.0]])
    ts = np.arange(n, dtype=np.float64) * h
    traj = np.empty((n,) + y.shape)
    for i, t in enumerate(ts):
        traj[i] = y
        k1 = f(t, y)
        k2 = f(t + h / 2, y + h / 2 * k1)
        k3 = f(t + h / 2, y + h / 2 * k2)
        k4 = f(t + h, y + h * k3)
        y = y + h / 6 * (k1 + 2 * k2 + 2 * k3 + k4)
    energy = 0.5 * (traj[..., 0] ** 2 + traj[..., 1] ** 2)
    return y, traj[::50], energy.max(axis=0), np.argmax(energy, axis=0), ts[-1]


def graph(np):
    """A graph of sparse node ids: relabelling by unique(return_inverse=True),
    degrees by add.at, CSR rows by lexsort and bincount, components by
    minimum.at label propagation, BFS levels with boolean frontiers,
    triangles from the adjacency matrix's cube."""
    E = np.asarray(EDGES)
    nodes, inv = np.unique(E, return_inverse=True)
    E2 = inv.reshape(E.shape)
    E2 = E2[E2[:, 0] != E2[:, 1]]
    und = np.sort(E2, axis=1)
    und = np.unique(und, axis=0)
    src = np.concatenate([und[:, 0], und[:, 1]])
    dst = np.concatenate([und[:, 1], und[:, 0]])
    n = len(nodes)
    deg = np.zeros(n, dtype=np.int64)
    np.add.at(deg, src, 1)
    order = np.lexsort((dst, src))
    indptr = np.concatenate([[0], np.cumsum(np.bincount(src, minlength=n))])
    indices = dst[order]
    label = np.arange(n)
    while True:
        new = label.copy()
        np.minimum.at(new, src, label[dst])
        if np.array_equal(new, label):
            break
        label = new
    comps, sizes = np.unique(label, return_counts=True)
    dist = np.full(n, -1)
    dist[0] = 0
    frontier = np.zeros(n, dtype=bool)
    frontier[0] = True
    level = 0
    while frontier.any():
        level += 1
        reached = np.zeros(n, dtype=bool)
        reached[dst[frontier[src]]] = True
        frontier = reached & (dist < 0)
        dist[frontier] = level
    A = np.zeros((n, n), dtype=np.int64)
    A[src, dst] = 1
    return (nodes, E2, und, deg, indptr, indices, label, comps, sizes, dist, A.sum(axis=1),
            np.array_equal(A, A.T), np.trace(np.linalg.matrix_power(A, 3)) // 6,
            np.flatnonzero(deg == deg.max()))


def kalman(np):
    """A constant-velocity Kalman filter tracking a circle: solve for the
    gain, inv for the closed form, einsum for the normalised innovations."""
    dt = 0.1
    F = np.asarray([[1.0, 0, dt, 0], [0, 1, 0, dt], [0, 0, 1, 0], [0, 0, 0, 1]])
    H = np.eye(2, 4)
    Q = 0.01 * np.eye(4)
    R = 0.25 * np.eye(2)
    t = np.arange(40, dtype=np.float64) * dt
    truth = np.stack([np.cos(t), np.sin(t)], axis=1)
    zs = truth + np.asarray(NOISE)
    x = np.zeros(4)
    P = np.eye(4)
    est, gains = [], []
    for z in zs:
        x = F @ x
        P = F @ P @ F.T + Q
        S = H @ P @ H.T + R
        K = np.linalg.solve(S.T, (P @ H.T).T).T
        x = x + K @ (z - H @ x)
        P = (np.eye(4) - K @ H) @ P
        est.append(x[:2])
        gains.append(np.trace(K))
    est = np.asarray(est)
    K2 = P @ H.T @ np.linalg.inv(H @ P @ H.T + R)
    nis = np.einsum("ni,ij,nj->n", zs - est, np.linalg.inv(R), zs - est)
    return (est[-5:], np.asarray(gains)[::8], P, K2, nis[:6],
            np.sqrt(np.mean((est - truth) ** 2, axis=0)), np.einsum("ij,jk->ik", F, F).diagonal(),
            np.einsum("ii", P), np.linalg.det(P) > 0)


def life(np):
    """Conway's game of life on a torus (np.roll) and in a walled box
    (np.pad constant), neighbour counts by a wrapped sliding window."""
    board = np.asarray(GLIDER).astype(bool)
    wrap = board.copy()
    for _ in range(8):
        n = sum(np.roll(np.roll(wrap, i, 0), j, 1)
                for i in (-1, 0, 1) for j in (-1, 0, 1) if (i, j) != (0, 0))
        wrap = (n == 3) | (wrap & (n == 2))
    walled = np.asarray(GLIDER)
    for _ in range(8):
        p = np.pad(walled, 1, mode="constant")
        n = (p[:-2, :-2] + p[:-2, 1:-1] + p[:-2, 2:] + p[1:-1, :-2] + p[1:-1, 2:]
             + p[2:, :-2] + p[2:, 1:-1] + p[2:, 2:])
        walled = ((n == 3) | ((walled == 1) & (n == 2))).astype(np.uint8)
    tor = np.pad(np.asarray(GLIDER), 1, mode="wrap")
    windows = np.lib.stride_tricks.sliding_window_view(tor, (3, 3))
    win = np.sum(windows, axis=(-2, -1)) - np.asarray(GLIDER)
    return (wrap, np.argwhere(wrap), walled, np.sum(walled), n.dtype == np.uint8, n.max(), win,
            np.pad(np.asarray(GLIDER)[:3, :3], (1, 2), mode="symmetric"),
            np.roll(np.asarray(GLIDER), 3), np.roll(np.asarray(GLIDER), -2, axis=(0, 1)))


def cleaning(np):
    """Sensor readings with gaps: the nan-functions, z-scores, gap filling
    by column means, and the same statistics on a masked array."""
    x = np.asarray(READINGS)
    bad = np.isnan(x)
    m = np.ma.masked_invalid(x)
    hot = np.ma.masked_where(x > 22, x)
    filled = np.where(bad, np.nanmean(x, axis=0), x)
    col_med = np.nanmedian(x, axis=0)
    z = (x - np.nanmean(x, axis=1, keepdims=True)) / np.nanstd(x, axis=1, keepdims=True)
    out = np.abs(z) > 1.5
    return (bad.sum(axis=0), np.nanmean(x), np.nanstd(x, axis=0, ddof=1), np.nanmin(x, axis=1),
            np.nanargmax(x, axis=1), col_med, np.nanpercentile(x, [25, 75], axis=1),
            np.nansum(x, axis=1), np.nancumsum(x[0]), np.nanvar(x), filled, z, out.sum(),
            m.mean(axis=0).filled(-1), m.count(axis=1), m.sum(), m.std(), m.filled(0.0),
            np.ma.getmaskarray(m), m.compressed()[:5], hot.max(), hot.argmin(),
            np.ma.median(m, axis=1).filled(0), (m - m.mean()).filled(np.nan)[:2],
            np.ma.masked_array([1, 2, 3], mask=[0, 1, 0]).sum(), np.nan_to_num(x, nan=-1.0),
            np.ma.masked_invalid(x).anom(axis=0).filled(0)[:2],
            np.ma.average(m, axis=0, weights=np.arange(1.0, 7.0)).filled(0))


def records(np):
    """Arrays saved and loaded through in-memory files: savez,
    savez_compressed, save (a Fortran-ordered array), savetxt/loadtxt."""
    a = np.arange(12, dtype=np.int32).reshape(3, 4)
    b = np.linspace(0, 1, 5, dtype=np.float32)
    c = np.asarray([True, False])
    buf = io.BytesIO()
    np.savez(buf, a=a, b=b, flags=c)
    buf.seek(0)
    with np.load(buf) as data:
        keys = sorted(data.files)
        la, lb, lc = data["a"], data["b"], data["flags"]
    buf2 = io.BytesIO()
    np.savez_compressed(buf2, a[:, ::2], b)
    buf2.seek(0)
    d2 = np.load(buf2)
    one = io.BytesIO()
    np.save(one, a.T)
    one.seek(0)
    back = np.load(one)
    txt = io.StringIO()
    np.savetxt(txt, a, fmt="%d", delimiter=",")
    txt.seek(0)
    fromtxt = np.loadtxt(txt, delimiter=",", dtype=np.int64)
    return (keys, la, lb, lc, sorted(d2.files), d2["arr_0"], d2["arr_1"], back,
            back.flags.f_contiguous, fromtxt, np.frombuffer(a.tobytes(), dtype=np.int32)[-3:])


def grids(np):
    """Coordinate grids: meshgrid (xy, ij, sparse), mgrid with integer and
    complex steps, ogrid, indices, fromfunction, ravel/unravel_index, r_, c_."""
    x = np.linspace(-1, 1, 5)
    y = np.linspace(0, 2, 3)
    X, Y = np.meshgrid(x, y)
    Xi, Yi = np.meshgrid(x, y, indexing="ij")
    xs, ys = np.meshgrid(x, y, sparse=True)
    R = np.sqrt(X ** 2 + Y ** 2)
    gy, gx = np.mgrid[0:3, 0:4]
    fy, fx = np.mgrid[-1:1:5j, 0:1:3j]
    oy, ox = np.ogrid[0:3, 0:4]
    ii = np.indices((2, 3))
    ff = np.fromfunction(lambda i, j: i * 10 + j, (3, 4), dtype=int)
    flat = np.ravel_multi_index((np.asarray([0, 2, 1]), np.asarray([3, 0, 1])), (3, 4))
    back = np.unravel_index(np.asarray([5, 11, 0]), (3, 4))
    peak = np.unravel_index(np.argmax(R), R.shape)
    return (X, Y, Xi.shape, Yi[0], xs.shape, ys.shape, xs + ys, R, gy, gx, fy, fx, ox * oy,
            ox.shape, oy.shape, ii, ff, flat, back, peak, np.mgrid[0:5:2], np.ogrid[0:1:3j],
            np.r_[0:3, 7, np.asarray([8, 9])], np.c_[np.arange(3), np.arange(3) ** 2],
            np.meshgrid(np.arange(2), np.arange(3), np.arange(4), indexing="ij")[2].shape)


def inplace(np):
    """In-place idioms: a[idx] += 1 with repeated indices against add.at,
    ufuncs with out= and where=, copyto(where=), putmask, place,
    fill_diagonal, augmented assignment through slices and masks."""
    idx = np.asarray([0, 1, 1, 3, 3, 3])
    fancy = np.zeros(5, dtype=np.int64)
    fancy[idx] += 1
    at = np.zeros(5, dtype=np.int64)
    np.add.at(at, idx, 1)
    hist = np.zeros((3, 3))
    np.add.at(hist, (idx[:3], idx[3:] - 1), np.asarray([0.5, 1.0, 2.0]))
    a = np.arange(10.0)
    np.multiply(a, 3, out=a)
    np.add(a, 1, out=a, where=a > 10)
    dst = np.zeros(6)
    np.copyto(dst, np.arange(6.0), where=np.arange(6) % 2 == 0)
    bc = np.zeros((2, 3))
    np.copyto(bc, np.asarray([1.0, 2.0, 3.0]))
    pm = np.arange(6)
    np.putmask(pm, pm > 2, np.asarray([-1, -2]))
    pl = np.arange(6.0)
    np.place(pl, pl < 3, [9.0, 8.0])
    r = np.arange(6).reshape(2, 3)
    r[:, 1] *= 10
    r[r > 20] = 0
    np.negative(r, out=r, where=r > 3)
    s = np.ones(4)
    s[::2] -= np.asarray([0.5, 0.25])
    m = np.zeros((3, 3), dtype=np.int64)
    np.fill_diagonal(m, 7)
    m[np.arange(3), np.arange(3)[::-1]] += 1
    acc = np.zeros(4)
    for k in range(3):
        acc += np.arange(4.0) * k
    out = np.empty(3)
    np.sum(np.arange(9.0).reshape(3, 3), axis=1, out=out)
    mx = np.full(4, -np.inf)
    np.maximum(mx, np.asarray([1.0, -2.0, 3.0, np.nan]), out=mx)
    return (fancy, at, hist, a, dst, bc, pm, pl, r, s, m, acc, out, mx)


def dtypes(np):
    """Code whose results hang on dtypes: uint8/int8 wrap-around, float32
    accumulation, integer division by zero under errstate (NumPy's 0s),
    iinfo/finfo, unsigned cumulative sums, casts of out-of-range values.
    A NumPy scalar meets a float16 array through np.add: with an operator,
    on either side, it is weak (PyTorch's rule, docs/numpy.md)."""
    u = np.asarray([250, 5, 128], dtype=np.uint8)
    i8 = np.asarray([120, -120, 0], dtype=np.int8)
    f32 = np.full(10001, 0.1, dtype=np.float32)
    ints = np.asarray([7, -7, 0, 3])
    zeros = np.asarray([0, 0, 2, 0])
    with np.errstate(divide="ignore", invalid="ignore"):
        fdiv = np.divide(ints.astype(np.float64), zeros)
        ffloor = np.floor_divide(ints, zeros)
        fmod = np.remainder(ints, zeros)
        fmodf = np.fmod(ints, zeros)
    return (u + np.uint8(10), u - np.uint8(6), u * np.uint8(2), u // np.uint8(3), -i8,
            i8 + np.int8(10), i8 * np.int8(2), np.add(u, u, dtype=np.uint16),
            u.astype(np.int8), (u.astype(np.int16) - 128).astype(np.int8),
            np.cumsum(u).dtype == np.uint64,
            np.cumsum(u), np.sum(u, dtype=np.uint8), np.sum(f32).dtype == np.float32,
            np.sum(f32, dtype=np.float64), f32.mean(dtype=np.float64),
            np.cumsum(f32)[-1].dtype == np.float32,
            fdiv, ffloor, fmod, fmodf, np.iinfo(np.uint8).max, np.iinfo(np.int16).min,
            np.finfo(np.float32).bits, np.add(np.float32(1), np.asarray([1], dtype=np.float16)),
            np.asarray([1.5, -1.5, 2.5]).astype(np.int32),
            np.left_shift(u, 1), np.abs(np.asarray([-128], dtype=np.int8)),
            np.asarray([65535], dtype=np.uint16) + np.uint16(1),
            np.result_type(np.uint8, np.int8) == np.int16,
            np.promote_types(np.int32, np.float32) == np.float64, np.can_cast(np.int64, np.float64),
            np.mean(u), np.std(i8), u.max() - u.min(), np.ptp(u), np.diff(u),
            np.diff(u.astype(np.int16)))


def strided_images(np):
    """Block views by as_strided (max pooling), a Toeplitz matrix by a
    negative stride, a diagonal by a summed stride, a 3x3 blur by im2col
    (sliding windows and @) against the same blur by rfft2/irfft2."""
    img = np.asarray(IMG).astype(np.float64)
    st = np.lib.stride_tricks
    s0, s1 = img.strides
    blocks = st.as_strided(img, shape=(4, 4, 2, 2), strides=(2 * s0, 2 * s1, s0, s1))
    pooled = blocks.max(axis=(2, 3))
    avg = img.reshape(4, 2, 4, 2).mean(axis=(1, 3))
    k = np.asarray([[1.0, 2.0, 1.0], [2.0, 4.0, 2.0], [1.0, 2.0, 1.0]]) / 16
    cols = st.sliding_window_view(img, (3, 3)).reshape(-1, 9)
    direct = (cols @ k[::-1, ::-1].ravel()).reshape(6, 6)
    shape = (img.shape[0] + 2, img.shape[1] + 2)
    spec = np.fft.irfft2(np.fft.rfft2(img, shape) * np.fft.rfft2(k, shape), shape)
    by_fft = spec[2:-2, 2:-2]
    stepped = st.sliding_window_view(img, (2, 2))[::2, ::2]
    toeplitz = st.as_strided(np.arange(1.0, 8.0)[3:], shape=(4, 4), strides=(-8, 8))
    diag = st.as_strided(img, shape=(8,), strides=(s0 + s1,))
    row_win = st.sliding_window_view(img[0], 4, writeable=False)
    return (pooled, avg, direct, by_fft, np.allclose(direct, by_fft), stepped.shape,
            np.array_equal(stepped.max(axis=(-2, -1)), pooled), toeplitz, diag,
            row_win.mean(axis=1),
            np.einsum("ijkl,kl->ij", st.sliding_window_view(img, (3, 3)), k)[0],
            np.abs(np.fft.fftshift(np.fft.fft2(img)))[4, :3])


def neighbours(np):
    """Pairwise distances, k nearest neighbours by argpartition with the
    diagonal filled with inf, the closest pair over triu_indices, PCA by
    eigh and svd (signs fixed)."""
    X = np.asarray(POINTS[::3])
    d = np.sqrt(((X[:, None] - X[None]) ** 2).sum(-1))
    d2 = np.linalg.norm(X[:, None, :] - X[None, :, :], axis=-1)
    np.fill_diagonal(d, np.inf)
    knn = np.argpartition(d, 3, axis=1)[:, :3]
    knn_d = np.sort(np.take_along_axis(d, knn, axis=1), axis=1)
    iu = np.triu_indices(len(X), k=1)
    closest = np.argmin(d[iu])
    Xc = X - X.mean(axis=0)
    cov = Xc.T @ Xc / (len(X) - 1)
    w, V = np.linalg.eigh(cov)
    V = V * np.sign(V[0])
    proj = Xc @ V[:, ::-1]
    U, s, Vt = np.linalg.svd(Xc, full_matrices=False)
    return (knn_d, iu[0][closest], iu[1][closest], d[iu].min(), np.allclose(np.cov(X.T), cov),
            w, V, proj[:4], s ** 2 / (len(X) - 1), np.diag(d2).sum(), np.isinf(d).sum(),
            np.median(d[np.isfinite(d)]), (d < 1.0).sum(axis=1))


def mandelbrot(np):
    """Escape counts of the Mandelbrot set with masked complex updates."""
    x = np.linspace(-2.0, 0.6, 40)
    y = np.linspace(-1.2, 1.2, 30)
    c = x[None, :] + 1j * y[:, None]
    z = np.zeros_like(c)
    counts = np.zeros(c.shape, dtype=np.int32)
    alive = np.ones(c.shape, dtype=bool)
    for i in range(30):
        z[alive] = z[alive] ** 2 + c[alive]
        escaped = alive & (np.abs(z) > 2)
        counts[escaped] = i
        alive &= ~escaped
    counts[alive] = 30
    return (counts, np.bincount(counts.ravel()), alive.sum(), c.dtype == np.complex128,
            np.angle(c[::10, ::10]), np.real(c).max(), np.imag(c).min(), np.conj(c[0, :3]))


def heat(np):
    """Explicit 2-d diffusion with edge padding; 1-d Jacobi relaxation to a
    tolerance."""
    n = 20
    u = np.zeros((n, n))
    u[n // 2 - 2:n // 2 + 2, n // 2 - 2:n // 2 + 2] = 100.0
    alpha = 0.2
    for _ in range(50):
        p = np.pad(u, 1, mode="edge")
        u = u + alpha * (p[:-2, 1:-1] + p[2:, 1:-1] + p[1:-1, :-2] + p[1:-1, 2:] - 4 * u)
    rod = np.zeros(21)
    rod[0], rod[-1] = 1.0, 0.0
    steps = 0
    while True:
        new = rod.copy()
        new[1:-1] = 0.5 * (rod[:-2] + rod[2:])
        steps += 1
        if np.max(np.abs(new - rod)) < 1e-6:
            break
        rod = new
    return (u[::4, ::4], u.sum(), u.max(), np.unravel_index(u.argmax(), u.shape), steps,
            rod[::5], np.allclose(rod, np.linspace(1, 0, 21), atol=1e-3),
            np.gradient(u[n // 2])[8:12], np.trapezoid(u, dx=0.5, axis=0)[::5])


def number_theory(np):
    """A sieve of Eratosthenes, divisor counts by broadcasting, integer
    powers and factorials (int64 wrap-around), Collatz lengths, gcd/lcm
    reductions, floored and truncated remainders of negatives."""
    n = 100
    sieve = np.ones(n + 1, dtype=bool)
    sieve[:2] = False
    for p in range(2, int(n ** 0.5) + 1):
        if sieve[p]:
            sieve[p * p::p] = False
    primes = np.flatnonzero(sieve)
    k = np.arange(1, 31)
    divisors = (k[:, None] % k[None, :] == 0).sum(axis=1)
    powers = np.power(np.asarray(3, dtype=np.int64), np.arange(0, 45, 4))
    fact = np.cumprod(np.arange(1, 25, dtype=np.int64))
    twin = primes[:-1][np.diff(primes) == 2]
    collatz = np.arange(1, 16)
    lengths = np.zeros_like(collatz)
    cur = collatz.copy()
    while (cur > 1).any():
        live = cur > 1
        cur = np.where(live, np.where(cur % 2 == 0, cur // 2, 3 * cur + 1), cur)
        lengths += live
    return (primes, len(primes), divisors, powers, fact, twin, np.gcd.reduce(k[[5, 11, 17]]),
            np.lcm.reduce(np.arange(1, 11)), lengths, np.isin(k, primes).sum(), np.sum(primes) % 7,
            np.bitwise_and(k, k - 1)[:8] == 0, np.binary_repr(int(primes[-1])),
            np.mod(-k[:5], 3), np.fmod(-k[:5], 3), np.divmod(k[:6], 4))


def finance(np):
    """Prices from returns: drawdowns by maximum.accumulate, moving averages
    by the cumsum trick, rolling volatility over sliding windows, crossings,
    ranks by argsort of argsort."""
    r = np.asarray(SIGNAL) / 100
    prices = 100 * np.cumprod(1 + r)
    peak = np.maximum.accumulate(prices)
    dd = prices / peak - 1
    w = 5
    cs = np.cumsum(np.insert(prices, 0, 0.0))
    rolling = (cs[w:] - cs[:-w]) / w
    logret = np.diff(np.log(prices))
    vol = np.std(np.lib.stride_tricks.sliding_window_view(logret, 10), axis=-1, ddof=1)
    signal = np.sign(prices[w - 1:] - rolling)
    trades = np.flatnonzero(np.diff(signal) != 0)
    ranks = np.argsort(np.argsort(-r))
    return (prices[::8], dd.min(), np.argmin(dd), rolling[:5], vol[:5], trades, ranks[:10],
            np.percentile(r, [1, 50, 99]), np.corrcoef(r[:-1], r[1:])[0, 1],
            np.round(prices, 2)[:4], np.minimum.accumulate(r)[-1],
            np.searchsorted(np.sort(r), 0.0), np.clip(r, -0.001, 0.001)[:6])


def elimination(np):
    """Gaussian elimination with partial pivoting by fancy-index row swaps
    and broadcast row updates, back substitution, checked against solve/inv."""
    A0 = np.asarray([[2.0, 1, -1, 3], [-3, -1, 2, 1], [-2, 1, 2, 0], [1, 2, 0, -1]])
    b0 = np.asarray([8.0, -11, -3, 2])
    A = np.hstack([A0, b0[:, None]])
    n = len(A)
    perm = np.arange(n)
    for i in range(n):
        p = i + np.argmax(np.abs(A[i:, i]))
        if p != i:
            A[[i, p]] = A[[p, i]]
            perm[[i, p]] = perm[[p, i]]
        A[i + 1:] -= (A[i + 1:, i] / A[i, i])[:, None] * A[i]
    x = np.zeros(n)
    for i in range(n - 1, -1, -1):
        x[i] = (A[i, -1] - A[i, i + 1:n] @ x[i + 1:]) / A[i, i]
    U = np.triu(A[:, :n])
    inv = np.linalg.inv(A0)
    return (x, np.linalg.solve(A0, b0), perm, U, np.prod(np.diag(U)),
            np.allclose(A0 @ x, b0), inv @ b0, np.linalg.det(A0),
            np.linalg.solve(A0, np.eye(n)) - inv < 1e-12,
            np.linalg.norm(A0 @ inv - np.eye(n)) < 1e-12)


def shortest_paths(np):
    """Floyd-Warshall by broadcasting with path reconstruction, Dijkstra
    with argmin over a where-masked distance vector."""
    inf = np.inf
    W = np.asarray([[0, 3, inf, 7, inf], [8, 0, 2, inf, inf], [5, inf, 0, 1, 4],
                    [2, inf, inf, 0, 1], [inf, 1, inf, inf, 0]])
    D = W.copy()
    nxt = np.where(np.isfinite(W), np.arange(5)[None, :], -1)
    for k in range(5):
        via = D[:, k, None] + D[None, k, :]
        better = via < D
        D = np.where(better, via, D)
        nxt = np.where(better, nxt[:, k, None], nxt)
    dist = np.full(5, inf)
    dist[0] = 0
    done = np.zeros(5, dtype=bool)
    for _ in range(5):
        u = np.argmin(np.where(done, inf, dist))
        done[u] = True
        dist = np.minimum(dist, dist[u] + W[u])
    fw = np.minimum.reduce([W[:, k, None] + W[None, k, :] for k in range(5)])
    return (D, nxt, dist, np.array_equal(dist, D[0]), fw, np.isinf(W).sum(axis=1),
            np.nanmax(np.where(np.isinf(D), np.nan, D)), np.minimum.outer(dist, dist[::-1]))


def classifier(np):
    """Softmax regression trained in float32 (in-place updates keep the
    dtype), its confusion matrix by add.at and by bincount, logaddexp.reduce."""
    X = np.asarray(POINTS, dtype=np.float32)
    y = np.repeat(np.arange(3), 30)
    Y = np.eye(3, dtype=np.float32)[y]
    W = np.zeros((2, 3), dtype=np.float32)
    b = np.zeros(3, dtype=np.float32)
    losses = []
    for _ in range(40):
        logits = X @ W + b
        logits -= logits.max(axis=1, keepdims=True)
        p = np.exp(logits)
        p /= p.sum(axis=1, keepdims=True)
        losses.append(-np.mean(np.sum(Y * np.log(p + np.float32(1e-9)), axis=1)))
        g = (p - Y) / np.float32(len(X))
        W -= np.float32(0.5) * (X.T @ g)
        b -= np.float32(0.5) * g.sum(axis=0)
    pred = np.argmax(X @ W + b, axis=1)
    lse = np.logaddexp.reduce(X @ W + b, axis=1)
    conf = np.zeros((3, 3), dtype=np.int64)
    np.add.at(conf, (y, pred), 1)
    return (W, b, np.asarray(losses)[::10], (pred == y).mean(), conf, lse[:5],
            np.bincount(y * 3 + pred, minlength=9).reshape(3, 3), np.log1p(np.float32(1e-7)),
            np.expm1(np.asarray([1e-10, 1.0])), W.dtype == np.float32)


def blocks(np):
    """Building and editing arrays: block, kron, column_stack, insert,
    delete, append, trim_zeros, resize, ndindex, ndenumerate, splits."""
    A = np.arange(4).reshape(2, 2)
    B = np.eye(2, dtype=np.int64)
    M = np.block([[A, B], [B, A]])
    v = np.arange(6)
    return (M, np.block([v[:2], v[4:]]), np.kron(A, B), np.column_stack([v, v ** 2]),
            np.dstack([A, B]).shape, np.insert(v, 2, 99), np.insert(v, [1, 3], [-1, -2]),
            np.delete(v, [0, 2]), np.delete(M, 1, axis=0), np.append(v, [6, 7]),
            np.append(A, B, axis=1), np.trim_zeros(np.asarray([0, 0, 1, 2, 0, 3, 0])),
            np.trim_zeros(np.asarray([0, 1, 0]), "f"), np.resize(v, (4, 4)), np.resize(A, 3),
            [idx for idx in np.ndindex(2, 2)], [(i, int(x)) for i, x in np.ndenumerate(A)],
            np.atleast_2d(v).shape, np.atleast_3d(A).shape, np.hstack([v[:2], 5]),
            np.vstack([v, v[::-1]]), np.concatenate([A, B], axis=None), np.stack([A, B], axis=-1),
            np.tile(A, (2, 1)), np.repeat(A, [1, 2], axis=0), np.insert(A, 1, [7, 8], axis=1),
            np.split(M, [1, 3], axis=1)[1], np.diag(np.diag(M, 1), -1), np.diagflat([1, 2], 1))


def bootstrap(np):
    """Bootstrap confidence intervals over fixed resampling indices
    (NumPy's); default_rng resamples and permutations by properties only."""
    data = np.asarray(NORMALS[:50]) * 3 + 10
    idx = np.asarray(numpy.random.default_rng(8).integers(0, 50, (200, 50)))
    samples = data[idx]
    means = samples.mean(axis=1)
    lo, hi = np.percentile(means, [2.5, 97.5])
    med = np.median(samples, axis=1)
    rng = np.random.default_rng(5)
    own = rng.integers(0, 50, (200, 50))
    perm_stats = np.asarray([np.mean(data[rng.permutation(50)][:25]) for _ in range(20)])
    return (means[:5], lo, hi, np.std(means), med[:5], np.quantile(med, 0.5, method="nearest"),
            own.shape, own.dtype == np.int64, bool(((own >= 0) & (own < 50)).all()),
            perm_stats.shape, np.histogram(means, bins=5)[0], np.mean(means > data.mean()))


def nan_and_signs(np):
    """NaN, signed zeros and infinities through sorting, extrema, unique,
    searchsorted, rounding (half to even), nan-functions; bool, float16,
    complex and 8-bit integer corners."""
    x = np.asarray([3.0, np.nan, -0.0, 0.0, -np.inf, 1.5, np.nan, np.inf, -2.5])
    b = np.asarray([True, False, True, True])
    h = np.asarray([0.1, 65504, -3.5], dtype=np.float16)
    z = np.asarray([-1 + 0j, -4 - 0j, 1j, 0j])
    return (np.sort(x), np.argsort(x, kind="stable"), np.argmax(x), np.argmin(x), np.max(x),
            np.nanmax(x), np.unique(x), np.searchsorted(np.sort(x), [np.nan, 0.0, np.inf]),
            np.median(x), np.maximum(x, 0), np.fmax(x, 0), np.minimum(x, np.nan),
            np.sign(x), np.signbit(x), np.copysign(1.0, x),
            np.round(np.asarray([0.5, 1.5, 2.5, -0.5])),
            np.floor(x), np.trunc(x), np.fix(x), np.ceil(np.asarray([-0.5, 0.5])),
            np.isposinf(x), np.isneginf(x), np.nan_to_num(x, posinf=99.0, neginf=-99.0),
            np.isfinite(x).sum(), x[np.isfinite(x)], np.nancumsum(x), np.nanprod(x),
            b + b, np.sum(b), np.cumsum(b), np.diff(b), np.mean(b), np.logical_xor(b, b[::-1]),
            h + h, h * np.float16(2), np.mean(h), np.sum(h).dtype == np.float16,
            h.astype(np.float32),
            np.sqrt(z), np.log(z[:3]), np.abs(np.asarray([3e200 + 4e200j])), np.exp(1j * np.pi),
            np.abs(np.asarray([-128, 127], dtype=np.int8)),
            np.negative(np.asarray([1, 0], dtype=np.uint8)),
            np.sign(np.asarray([0, 5], dtype=np.uint8)), np.right_shift(np.asarray([-8, 8]), 2),
            np.asarray([2**53 + 1]).astype(np.float64),
            np.round(np.asarray([1.005, 2.675], dtype=np.float32), 2),
            np.round(np.asarray([1234.5678]), -2), np.around(np.asarray([-1.5, 1.5]), 0),
            np.isclose(x, x, equal_nan=True), np.array_equal(x, x, equal_nan=True),
            np.array_equal(x, x),
            np.nanargmin(x), np.nanmedian(x), np.percentile(x, 50), np.nanpercentile(x, [0, 100]),
            np.clip(x, -1, 1), np.interp(np.asarray([np.nan, 0.5]), [0.0, 1.0], [0.0, 10.0]))


def outs(np):
    """out= on ufuncs, reductions, products and joins, into contiguous,
    transposed and strided arrays, 0-d included."""
    a = np.arange(12.0).reshape(3, 4)
    res = []
    o = np.zeros((4, 3)).T
    np.add(a, 1, out=o)
    res.append(o)
    o = np.zeros((3, 3))
    np.dot(a, a.T, out=o)
    res.append(o)
    o = np.zeros((6, 6))[::2, ::2]
    np.matmul(a, a.T, out=o)
    res.append(o)
    o = np.zeros((3, 3))
    np.einsum("ij,kj->ik", a, a, out=o)
    res.append(o)
    o = np.zeros(8)[::2]
    np.sum(a, axis=0, out=o)
    res.append(o)
    o = np.zeros((3, 1), dtype=np.int64)
    np.argmax(a, axis=1, out=o[:, 0])
    res.append(o)
    o = np.zeros(12)
    np.cumsum(a, out=o)
    res.append(o)
    o = np.zeros((3, 4), dtype=np.float32)
    np.multiply(a, 2, out=o, casting="same_kind")
    res.append(o)
    o = np.empty(4, dtype=np.int64)
    np.take(np.arange(10) * 3, [1, 5, 2, 9], out=o)
    res.append(o)
    o = np.zeros_like(a)
    np.clip(a, 2, 9, out=o)
    res.append(o)
    o = np.zeros(4)
    np.mean(a, axis=0, out=o)
    res.append(o)
    o = np.zeros(3)
    np.max(a, axis=1, out=o)
    res.append(o)
    q, r = np.zeros(4), np.zeros(4)
    np.divmod(np.arange(4.0), 3, out=(q, r))
    res += [q, r]
    o = np.zeros((2, 4))
    np.concatenate([a[:1], a[2:]], out=o)
    res.append(o)
    o = np.zeros(3)
    np.sqrt(np.sum(a ** 2, axis=1), out=o)
    res.append(o)
    o = np.zeros(3, dtype=bool)
    np.any(a > 10, axis=1, out=o)
    res.append(o)
    o = np.zeros((3, 4))
    np.round(a / 3, 2, out=o)
    res.append(o)
    o = np.zeros(4)
    np.add.reduce(a, axis=0, out=o)
    res.append(o)
    o = np.zeros((3, 4))
    np.add.accumulate(a, axis=1, out=o)
    res.append(o)
    o = np.zeros(3)
    np.std(a, axis=1, out=o)
    res.append(o)
    o = np.zeros(3)
    np.prod(a + 1, axis=1, out=o)
    res.append(o)
    o = np.zeros((2, 2))
    np.outer(np.arange(2.0), np.ones(2), out=o)
    res.append(o)
    o = np.zeros((3, 4), dtype=np.int64)
    np.floor_divide(a.astype(np.int64), 5, out=o)
    res.append(o)
    o = np.zeros(4, dtype=np.float64)
    np.nansum(np.where(a > 5, np.nan, a), axis=0, out=o)
    res.append(o)
    o = np.zeros(())
    np.sum(a, out=o)
    res.append(o)
    return res


def masked(np):
    """Masked arrays: masked_less/outside/equal, assignment of np.ma.masked,
    in-place arithmetic, domains (1/0, sqrt, log), sort, where, stacking."""
    x = np.asarray(READINGS)
    m = np.ma.masked_invalid(x)
    lo = np.ma.masked_less(m, 19.0)
    band = np.ma.masked_outside(m, 18.0, 22.0)
    m2 = m.copy()
    m2[0, :3] = np.ma.masked
    m2[1, 0] = 99.0
    m2 += 1
    inc = np.ma.masked_equal(np.asarray([1, 0, 3, 0]), 0)
    s = np.ma.sort(np.ma.masked_array([3.0, 1.0, 2.0, 5.0], mask=[0, 0, 1, 0]))
    prod = (np.ma.masked_array([1.0, 2.0, 3.0], mask=[0, 1, 0])
            * np.ma.masked_array([4.0, 5.0, 6.0], mask=[0, 0, 1]))
    div = np.ma.masked_array([1.0, 2.0, 3.0]) / np.asarray([1.0, 0.0, 2.0])
    stack = np.ma.vstack([m[:2], band[:2]])
    return (int(lo.count()), band.count(axis=0), lo.mean(axis=1).filled(0), m2.filled(-1)[:2],
            np.ma.getmaskarray(m2)[:2], inc.filled(-1), (1.0 / inc).filled(0), inc.sum(),
            s.filled(-1), prod.filled(0), np.ma.getmaskarray(prod), div.filled(-1),
            np.ma.getmaskarray(div), int(stack.count()), band.min(axis=1).filled(0),
            np.ma.masked_where(np.asarray([True, False]), np.asarray([1, 2])).compressed(),
            m.var(axis=0).filled(0), np.ma.sqrt(np.ma.masked_array([4.0, -1.0])).filled(0),
            np.ma.log(np.ma.masked_array([1.0, 0.0, np.e])).filled(-1), m.argmax(axis=0),
            np.ma.concatenate([inc, inc]).filled(7), np.ma.where(m > 20, 1, 0).filled(-1)[:2],
            m.max(), m.min(axis=0).filled(0), m.cumsum(axis=1).filled(0)[:2], m.anom().filled(0)[0],
            np.ma.is_masked(m), int(np.ma.count_masked(m)), band.mask.sum(), m.T.shape,
            m[::2].shape,
            m.fill_value, np.ma.masked_array(np.arange(3), mask=[1, 0, 0], fill_value=-9).filled())


def affine_warp(np):
    """An image rotated about its centre by inverse mapping: bilinear
    interpolation with floor/astype(int) corners and clipped gathers, nearest
    neighbour by rint into a raveled view, truncating casts of negatives."""
    img = np.asarray(IMG).astype(np.float64)
    h, w = img.shape
    theta = np.deg2rad(30.0)
    c, s = np.cos(theta), np.sin(theta)
    M = np.asarray([[c, -s], [s, c]])
    yy, xx = np.indices((h, w))
    coords = np.stack([yy.ravel() - h / 2, xx.ravel() - w / 2])
    src = np.linalg.inv(M) @ coords + np.asarray([[h / 2], [w / 2]])
    y0 = np.floor(src[0]).astype(int)
    x0 = np.floor(src[1]).astype(int)
    fy, fx = src[0] - y0, src[1] - x0
    valid = (y0 >= 0) & (y0 < h - 1) & (x0 >= 0) & (x0 < w - 1)
    y0c, x0c = np.clip(y0, 0, h - 2), np.clip(x0, 0, w - 2)
    top = img[y0c, x0c] * (1 - fx) + img[y0c, x0c + 1] * fx
    bot = img[y0c + 1, x0c] * (1 - fx) + img[y0c + 1, x0c + 1] * fx
    out = np.where(valid, top * (1 - fy) + bot * fy, 0.0).reshape(h, w)
    nearest = np.zeros_like(img)
    yi = np.rint(src[0]).astype(np.int64)
    xi = np.rint(src[1]).astype(np.int64)
    ok = (yi >= 0) & (yi < h) & (xi >= 0) & (xi < w)
    nearest.ravel()[np.flatnonzero(ok)] = img[yi[ok], xi[ok]]
    return (out, valid.sum(), nearest, np.clip(out, 0, 255).astype(np.uint8), y0[:10], fx[:5],
            np.trunc(src[0][:5]).astype(np.int32), (-src[1][:5]).astype(np.int16))


def sudoku(np):
    """A sudoku filled by naked singles: candidate masks per row, column
    and box by broadcasting against the digits, box layout by
    reshape/transpose, boolean-mask assignment."""
    grid = np.asarray([
        [5, 3, 0, 0, 7, 0, 0, 0, 0], [6, 0, 0, 1, 9, 5, 0, 0, 0], [0, 9, 8, 0, 0, 0, 0, 6, 0],
        [8, 0, 0, 0, 6, 0, 0, 0, 3], [4, 0, 0, 8, 0, 3, 0, 0, 1], [7, 0, 0, 0, 2, 0, 0, 0, 6],
        [0, 6, 0, 0, 0, 0, 2, 8, 0], [0, 0, 0, 4, 1, 9, 0, 0, 5], [0, 0, 0, 0, 8, 0, 0, 7, 9]])
    digits = np.arange(1, 10)
    passes = 0
    while (grid == 0).any() and passes < 50:
        passes += 1
        rows = (grid[:, :, None] == digits).any(axis=1)
        cols = (grid[:, :, None] == digits).any(axis=0)
        cells = grid.reshape(3, 3, 3, 3).transpose(0, 2, 1, 3).reshape(3, 3, 9, 1)
        boxes = (cells == digits).any(axis=2)
        in_box = np.repeat(np.repeat(boxes, 3, axis=0), 3, axis=1)
        cand = ~(rows[:, None, :] | cols[None, :, :] | in_box)
        cand &= (grid == 0)[:, :, None]
        single = cand.sum(axis=2) == 1
        if not single.any():
            break
        grid[single] = digits[np.argmax(cand[single], axis=1)]
    ok_rows = np.all(np.sort(grid, axis=1) == digits, axis=1)
    return grid, passes, ok_rows, np.unique(grid, return_counts=True)[1]


def gap_filling(np):
    """Gaps in a series filled forward (indices carried by
    maximum.accumulate with out=), by interpolation over the gaps, by column
    means through np.where's indices; rows and columns dropped by NaN
    counts; outliers by the interquartile range and the median deviation."""
    x = np.asarray(READINGS[0])
    gaps = np.isnan(x)
    carried = np.where(~gaps, np.arange(len(x)), 0)
    np.maximum.accumulate(carried, out=carried)
    interp = x.copy()
    interp[gaps] = np.interp(np.flatnonzero(gaps), np.flatnonzero(~gaps), x[~gaps])
    a = np.asarray(READINGS).copy()
    r, c = np.where(np.isnan(a))
    a[r, c] = np.take(np.nanmean(a, axis=0), c)
    table = np.asarray(READINGS)
    v = np.concatenate([x[~gaps], [100.0, -50.0]])
    q1, q3 = np.percentile(v, [25, 75])
    keep = (v >= q1 - 1.5 * (q3 - q1)) & (v <= q3 + 1.5 * (q3 - q1))
    med = np.median(v)
    mad = np.median(np.abs(v - med))
    return (x[carried], carried, interp, a, table[~np.isnan(table).any(axis=1)],
            table[:, np.isnan(table).sum(axis=0) < 2], np.isnan(table).mean(axis=0), v[keep],
            np.flatnonzero(~keep), mad, np.abs(v - med) / mad > 3)


def adaptive_ode(np):
    """A driven pendulum by an adaptive Bogacki-Shampine step: the step size
    is a Python float updated from 0-d results (min, max, ** with them),
    times collected in a list and turned back into an array."""
    def f(t, y):
        return np.asarray([y[1], -np.sin(y[0]) - 0.2 * y[1] + 0.5 * np.cos(t)])
    t, T, h, tol = 0.0, 10.0, 0.1, 1e-6
    y = np.asarray([1.0, 0.0])
    ts, ys, hs = [t], [y], []
    rejected = 0
    while t < T:
        h = min(h, T - t)
        k1 = f(t, y)
        k2 = f(t + h / 2, y + h / 2 * k1)
        k3 = f(t + 3 * h / 4, y + 3 * h / 4 * k2)
        y3 = y + h * (2 * k1 + 3 * k2 + 4 * k3) / 9
        k4 = f(t + h, y3)
        y2 = y + h * (7 * k1 / 24 + k2 / 4 + k3 / 3 + k4 / 8)
        err = np.linalg.norm(y3 - y2, np.inf)
        if err <= tol:
            t, y = t + h, y3
            ts.append(t)
            ys.append(y)
            hs.append(h)
        else:
            rejected += 1
        h = h * min(5.0, max(0.2, 0.9 * (tol / max(err, 1e-16)) ** (1 / 3)))
    ts, ys = np.asarray(ts), np.stack(ys)
    return (len(ts), rejected, ts[-1], ys[-1], np.asarray(hs).min(), np.asarray(hs).max(),
            np.interp(5.0, ts, ys[:, 0]), np.trapezoid(ys[:, 0] ** 2, ts), ts.dtype == np.float64,
            np.diff(ts).argmax())


def scalar_loops(np):
    """Element-by-element Python loops over an array: running totals,
    argmax by hand, builtin sum/max over elements, a dict tally of
    tolist() values, arrays built from reduction results."""
    x = np.linspace(0.0, 1.0, 11)
    total = 0
    best, best_i = -np.inf, -1
    for i, v in enumerate(x):
        total += v * v
        if v * (1 - v) > best:
            best, best_i = v * (1 - v), i
    acc = np.zeros(3)
    for k in range(3):
        acc[k] = sum(x[j] ** k for j in range(len(x)))
    counts = {}
    for v in (x * 10).astype(int).tolist():
        counts[v % 3] = counts.get(v % 3, 0) + 1
    m = max(x[2:5], key=lambda v: abs(v - 0.33))
    return (total, best, best_i, acc, sorted(counts.items()), m, float(np.max(x)) + 1,
            int(np.argmin(np.abs(x - 0.42))), [round(float(v), 2) for v in x[::5]],
            np.asarray([x.min(), x.max(), x.mean()]), np.asarray([np.sum(x > 0.5), 3]))


# ---- the programs, by area -------------------------------------------------------------

def test_machine_learning_and_statistics():
    _run(kmeans)
    _run(neighbours)
    _run(classifier)
    _run(bootstrap)
    _run(option_pricer)


def test_simulation_and_numerical_methods():
    _run(rk4)
    _run(adaptive_ode)
    _run(scalar_loops)
    _run(kalman)
    _run(heat)
    _run(elimination)
    _run(mandelbrot)
    _run(life)


def test_algorithms_on_integer_data():
    _run(graph)
    _run(shortest_paths)
    _run(number_theory)
    _run(finance)
    _run(sudoku)


@pytest.mark.filterwarnings("ignore::RuntimeWarning")  # NumPy's, on its NaNs and zeros
def test_data_cleaning_and_dtypes():
    _run(cleaning)
    _run(gap_filling)
    _run(masked)
    _run(dtypes)
    _run(nan_and_signs)


def test_arrays_built_written_and_stored():
    _run(records)
    _run(grids)
    _run(inplace)
    _run(outs)
    _run(blocks)
    _run(strided_images)
    _run(affine_warp)


# ---- what the programs found ---------------------------------------------------------------

def negative_strides(np, tricks):
    """as_strided with a negative stride (a Toeplitz matrix, a reversed
    diagonal) and sliding windows over reversed and flipped arrays: the core's
    as_strided refused negative strides, which NumPy's take."""
    x = np.arange(1.0, 8.0)
    img = np.arange(12).reshape(3, 4)
    s0, s1 = img.strides
    return (tricks.as_strided(x[3:], shape=(4, 4), strides=(-8, 8)),
            tricks.as_strided(img[2:], shape=(3,), strides=(s1 - s0,)),
            tricks.as_strided(img[:, 3:], shape=(2, 3), strides=(-s1, s0)),
            tricks.as_strided(x[6:], shape=(0, 3), strides=(-8, 8)),
            tricks.sliding_window_view(x[::-1], 3), tricks.sliding_window_view(x[::-2], 2),
            tricks.sliding_window_view(np.flip(img), (2, 2)),
            tricks.sliding_window_view(img[::-1, ::2], 2, axis=0),
            tricks.sliding_window_view(np.flip(img), (2, 3))[::-1, ::-1])


def test_stride_tricks_take_negative_strides():
    _same(negative_strides(numpy, numpy.lib.stride_tricks),
          negative_strides(tnp, tnp.lib.stride_tricks), "negative_strides")
    # still views: a write reaches the base, a gradient flows back
    base = tnp.arange(6.0)
    tnp.lib.stride_tricks.as_strided(base[5:], shape=(3,), strides=(-16,))[1] = -1.0
    assert base.tolist() == [0.0, 1.0, 2.0, -1.0, 4.0, 5.0]
    leaf = torchlike.arange(5.0, requires_grad=True)
    w = tnp.lib.stride_tricks.sliding_window_view(leaf.flip(0) * 1, 2)
    (w * torchlike.tensor([1.0, 10.0])).sum().backward()
    numpy.testing.assert_allclose(_host(leaf.grad), [10.0, 11.0, 11.0, 11.0, 1.0])
    with pytest.raises(RuntimeError, match="storage"):   # still bounded by the memory
        tnp.lib.stride_tricks.as_strided(tnp.arange(3.0), shape=(2,), strides=(-8,))


def builtins_on_arrays(np):
    """Python's `in` with a row and reversed() over an array: `[1, 4] in
    pairs` raised PyTorch's RuntimeError (lists refused), reversed(a) raised
    TypeError (a tensor is no sequence)."""
    pairs = np.asarray([[3, 1], [1, 4]])
    return ([1, 4] in pairs, (9, 9) in pairs, numpy.asarray([3, 1]) in pairs, [4] in pairs,
            4 in pairs, [[3, 1], [1, 4]] in pairs, [int(v) for v in reversed(np.arange(4))],
            [row.tolist() for row in reversed(pairs)], np.stack(list(reversed(pairs))))


def test_python_builtins_on_arrays():
    _run(builtins_on_arrays)
    with pytest.raises(ValueError):           # NumPy's class: the row does not broadcast
        [1, 2, 3] in tnp.asarray([[3, 1], [1, 4]])
    with pytest.raises(RuntimeError, match="only supports Tensor or scalar"):
        "a" in tnp.arange(3)                  # PyTorch's refusal otherwise
    assert reversed(tnp.asarray(3)).tolist() == 3    # a 0-d tensor is itself, as PyTorch's


def shared_right_hand_sides(np):
    """Several 2x2 systems (one per sensor) solved against one shared
    right-hand-side matrix: NumPy 2 reads a b of ndim >= 2 as a stack of
    matrices, broadcast against a's stack; a b of shape a.shape[:-1] was
    read as a stack of vectors (PyTorch's rule), giving shape (3, 2)."""
    A = np.stack([np.eye(2) * (k + 1) + 0.1 for k in range(3)])
    B = np.asarray([[1.0, 2.0], [3.0, 4.0]])
    return (np.linalg.solve(A, B), np.linalg.solve(A, B[:, :1]), np.linalg.solve(A, B[0]),
            np.linalg.solve(A[:2, None], np.stack([B, 2 * B, 3 * B])),
            np.linalg.solve(A, np.ones((3, 2, 4))), np.linalg.solve(A[0], B.T))


def test_solve_reads_b_as_numpy_2_does():
    _run(shared_right_hand_sides)
    with pytest.raises(ValueError, match=r"\(3,\) and \(4,\)"):
        tnp.linalg.solve(tnp.ones((3, 2, 2)), tnp.ones((4, 2, 2)))
    # the broadcast is recorded: the gradient reaches both operands (of
    # sum(X), X = A^-1 B: dB = sum over the stack of A^-T 1, dA = -A^-T 1 X^T)
    A = numpy.asarray([[[2.0, 0.5], [0.0, 4.0]], [[1.0, 0.0], [1.0, 3.0]]])
    B = numpy.asarray([[1.0, 2.0], [3.0, 4.0]])
    a = torchlike.tensor(A, requires_grad=True)
    b = torchlike.tensor(B, requires_grad=True)
    tnp.linalg.solve(a, b).sum().backward()
    up = numpy.linalg.solve(A.transpose(0, 2, 1), numpy.ones((2, 2, 2)))
    numpy.testing.assert_allclose(_host(b.grad), up.sum(axis=0), rtol=1e-12)
    numpy.testing.assert_allclose(_host(a.grad),
                                  -up @ numpy.linalg.solve(A, B).transpose(0, 2, 1), rtol=1e-12)


def products_with_lists(np):
    """Matrices times vectors written inline as lists and tuples, and an
    ndarray of another dtype, on either side of @: the list became a float32
    tensor (or int64) and the product refused two dtypes (PyTorch refuses a
    list there outright); NumPy converts it as asarray does and promotes."""
    R = np.asarray([[0.0, -1.0], [1.0, 0.0]])
    counts = np.arange(6).reshape(2, 3)
    return (R @ [1.0, 2.0], R @ [1, 2], [3.0, 4.0] @ R, [[1, 0], [0, 1]] @ R, R @ (1.0, 0.5),
            counts @ [1, 1, 1], counts @ [0.5, 0.25, 0.0], [True, False] @ counts,
            # (an ndarray operand is host memory: host-only on a device)
            host_step(np, "matmul of an ndarray", lambda x, y: x @ y, R,
                      numpy.asarray([1, 2], dtype=numpy.int32)),
            host_step(np, "matmul of an ndarray", lambda x, y: x @ y, numpy.asarray([2, 3]),
                      counts),
            R.astype(np.float32) @ [1.0, 1.0], [[1, 2], [3, 4]] @ counts)


def test_matmul_operator_with_lists_and_other_dtypes():
    _run(products_with_lists)
    for bad in (lambda: tnp.eye(2) @ [1.0, 2.0, 3.0], lambda: [1.0] @ tnp.eye(2)):
        with pytest.raises(ValueError, match="matmul"):
            bad()
    # tensors of one dtype keep the core's product
    assert (torchlike.eye(2) @ torchlike.ones(2)).dtype == torchlike.float32


def masked_ratios(np):
    """Ratios of masked readings to signed offsets: a zero reading divided by
    a negative offset is 0.0 in NumPy's masked division (it adds mask *
    dividend to every quotient), where the plain ufunc gives -0.0; it was
    -0.0 here, which np.signbit and 1 / x tell apart."""
    readings = np.ma.masked_array([0.0, 1.0, -0.0, 0.0, 3.0, 0.0], mask=[0, 1, 0, 0, 0, 0])
    offsets = np.asarray([-7.0, 2.0, 3.0, -2.0, 0.0, -np.inf])
    q = readings / offsets
    return (q.data, np.ma.getmaskarray(q), np.signbit(q.data), (readings // offsets).data,
            np.ma.remainder(readings, offsets).data,
            np.ma.divide(0.0, np.ma.masked_array([-1.0, 1.0])).data,
            np.signbit((readings.astype(np.float32) / offsets.astype(np.float32)).data),
            np.signbit((np.ma.masked_array([0j, 1j]) / np.asarray([-1 + 0j, 1])).data.real))


@pytest.mark.filterwarnings("ignore::RuntimeWarning")
def test_masked_division_gives_numpys_signed_zeros():
    _run(masked_ratios)


def weighted_sampling(np):
    """Sampling by float32 weights normalised in float32 (their sum is 1 to
    float32's precision only): NumPy's choice allows the weights' own
    tolerance, the square root of their epsilon; we held every p to
    float64's and raised "Probabilities do not sum to 1"."""
    w = np.asarray([0.1, 0.2, 0.3, 0.4], dtype=np.float32)
    w = w / w.sum()
    out = []
    for draw in (lambda: np.random.default_rng(0).choice(4, 1000, p=w),
                 lambda: np.random.RandomState(0).choice(4, 1000, p=w),
                 lambda: np.random.default_rng(0).choice(4, 10, p=w + np.float32(1e-4)),
                 lambda: np.random.default_rng(0).choice(4, 10, p=w.astype(np.float16)),
                 lambda: np.random.default_rng(0).choice(4, 10, p=w + np.float32(1e-3)),
                 lambda: np.random.default_rng(0).choice(4, 10, p=w.astype(np.float64) + 1e-7),
                 lambda: np.random.default_rng(0).choice(4, 10, p=[0.1, 0.2, 0.3, 0.4001])):
        try:
            d = draw()
            out += [d.shape, bool(((d >= 0) & (d < 4)).all())]
        except ValueError as error:
            out.append(str(error)[:30])
    return out


def test_choice_takes_the_weights_own_tolerance():
    assert weighted_sampling(tnp) == weighted_sampling(numpy)


def stacked_pseudo_inverses(np):
    """Pseudo-inverses of a stack of matrices with one cutoff per matrix
    (rcond= as an array, broadcast against the stack as NumPy does): it
    raised "only one element tensors can be converted to Python scalars"."""
    S = np.stack([np.eye(3) * 2 + 0.5, np.diag(np.asarray([1.0, 1e-12, 3.0]))])
    return (np.linalg.pinv(S, rcond=np.asarray([1e-15, 1e-10])),
            np.linalg.pinv(S, rcond=[1e-15, 1e-10]), np.linalg.pinv(S, rcond=np.asarray(1e-10)),
            np.linalg.pinv(S[1], rcond=np.asarray(1e-15)),
            np.linalg.pinv(S, rtol=np.asarray([1e-15, 1e-10])))


def test_pinv_takes_one_rcond_per_matrix():
    _run(stacked_pseudo_inverses)


def reshaped_by_as_strided(np):
    """as_strided given a shape and no strides: NumPy lays a C-contiguous
    input out C-contiguously in the new shape (its array interface has no
    strides), and keeps a non-contiguous input's strides; we kept the
    input's strides always, so a new number of dimensions raised."""
    tricks = np.lib.stride_tricks
    x = np.arange(12.0)
    return (tricks.as_strided(x, shape=(3, 4)), tricks.as_strided(x[:8], shape=(2, 2, 2)),
            tricks.as_strided(x.reshape(3, 4)), tricks.as_strided(x[::2], shape=(3,)),
            tricks.as_strided(x.reshape(3, 4)[:, ::2], shape=(2, 2)),
            tricks.as_strided(np.asarray(3.0), shape=()))


def test_as_strided_without_strides():
    _run(reshaped_by_as_strided)
    for np in (numpy, tnp):
        with pytest.raises(ValueError, match="mismatch in length of strides and shape"):
            np.lib.stride_tricks.as_strided(np.arange(12).reshape(3, 4)[:, ::2], shape=(6,))


def lists_as_operands(np):
    """Constants written inline as lists and tuples beside arrays, as NumPy
    code writes them (scaling columns, luminance weights, offsets,
    thresholds): the list was converted as torchlike.tensor converts it
    (float32), so int and float32 data gave float32 where NumPy's list is a
    float64 array (and 0.1 in float32 data compared equal to the list's 0.1)."""
    pts = np.arange(12).reshape(6, 2)
    rgb = np.asarray(IMG[:2, :6]).reshape(2, 2, 3)
    f32 = np.asarray([0.1, 0.5, 2.0], dtype=np.float32)
    acc = np.zeros(2, dtype=np.float32)
    acc += [0.1, 0.2]
    return (pts * [2.0, 0.5], pts - (1.5, 0.0), [10, 20] + pts, rgb * [0.299, 0.587, 0.114],
            (rgb * [0.299, 0.587, 0.114]).sum(axis=-1).astype(np.uint8), f32 * [1.0, 2.0, 3.0],
            f32 == [0.1, 0.5, 2.0], f32 > (0.1, 0.4, 3.0), pts // [4, 3], pts % (5, 7),
            pts ** [2, 1], [1.0, 2.0] / pts[1:3], pts & [True, False], acc,
            np.arange(3) * [1j, 2, 3], pts * [[1], [2], [3], [4], [5], [6]])


def test_lists_beside_arrays_convert_as_numpy_does():
    _run(lists_as_operands)
    # the conversion is on the tensor's device and recorded for its gradient
    x = torchlike.ones(2, requires_grad=True)
    (x * [2.0, 3.0]).sum().backward()
    assert x.grad.tolist() == [2.0, 3.0]
    with pytest.raises(ValueError, match="broadcast"):
        tnp.arange(3) + [1, 2]


def single_precision_fits(np):
    """Polynomial fits of float32 measurements: NumPy's vander gives
    promote_types(x.dtype, int) (float64 for float32 and float16 data,
    complex128 for complex64, int64 for small integers), so polyfit and
    lstsq on it are float64; our vander kept float32 (x ** int powers)."""
    x = np.linspace(0, 1, 8, dtype=np.float32)
    y = (3 * x ** 2 - x + np.float32(0.5)).astype(np.float32)
    A = np.vander(x, 3)
    return (A, np.vander(x.astype(np.float16), 2), np.vander(np.arange(3, dtype=np.int8)),
            np.vander(np.asarray([True, False]), 2),
            np.vander(np.asarray([1j, 2], dtype=np.complex64)),
            np.vander(np.arange(3, dtype=np.uint64), 2), np.polyfit(x, y, 2),
            np.linalg.lstsq(A, y, rcond=None)[0])


def test_vander_takes_numpys_result_dtype():
    _run(single_precision_fits)
    v = torchlike.tensor([1.0, 2.0, 3.0], requires_grad=True)   # still recorded
    tnp.vander(v, 3).sum().backward()
    numpy.testing.assert_allclose(_host(v.grad), [3.0, 5.0, 7.0])
    assert torchlike.vander(torchlike.tensor([1.0, 2.0])).dtype == torchlike.float32  # PyTorch's
