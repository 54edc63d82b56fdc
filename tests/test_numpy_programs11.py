"""NumPy programs, eleventh round: kinds the first ten rounds
(tests/test_numpy_programs.py ... 10.py) touch least -- image processing by
stencils written with np alone (box blurs by padded slices, Sobel edges,
3x3 medians by stacked shifts, binary morphology by logical reductions,
histogram equalization of uint8 pixels by a lookup table, integral images,
connected components by label propagation), finance and time series by
cumulative ops (drawdowns by maximum.accumulate, moving averages by
cumsum differences, an exponential average, a portfolio frontier, an
amortization schedule, integer cents by divmod, crossings), geometry
(a monotone-chain convex hull, point in polygon by ray casting, shoelace
areas and centroids, the closest pair, rotations, barycentric
coordinates and circumcentres, segment intersections), graph algorithms
on adjacency matrices (BFS levels by boolean products, PageRank, min-plus
shortest paths, triangle counts and clustering, transitive closure,
Kahn's topological order, Prim's tree), simulations whose randomness is
drawn once by NumPy's Generator with a fixed seed (first passage of a
walk, an SIR model, Monte Carlo option prices, a majority-vote automaton,
a queue by Lindley's recursion, a bootstrap by properties), NEP 50 weak
scalars at the namespace's functions, integer wrap-around, np.errstate,
out=/where= arguments and reductions with where=/initial=, keepdims and
axis tuples, empty/0-d/non-contiguous/broadcast operands, views against
copies and writes through them (overlapping slice assignment included,
records written row by row from lists),
structured scientific computations (n-body energies, an implicit heat
step, Lennard-Jones forces, a spectral derivative, Simpson and Romberg,
weighted regression with standard errors, a leapfrog oscillator, Newton
on a system) and string-free data pipelines (group-by by reduceat, joins
by searchsorted, pivot tables by add.at, winsorization, confusion
matrices, sessionization) -- run once with NumPy and once with
``torchlike.numpy``, with round 4's oracle and conventions (NumPy for
values, dtypes and shapes; inputs drawn once by NumPy).

What they found (each with a focused test in the test file of its area):

- A Python list written into a tensor (``state[k] = [x, v]``, ``t[[0, 2]]
  = [a, b]``) went through float32 first (0.1 stored as 0.10000000149...
  in a float64 table; a leapfrog integrator drifted), and Python ints in it
  past an integer target's range wrapped (``u8[:2] = [300, 1]`` stored 44)
  -- tests/test_core.py.
- A ufunc's ``out=`` larger than the operands' broadcast shape
  (``np.add(row, 1, out=table)``) raised the op's shape error, on the C
  fast path of ``__array_ufunc__`` too; the namespace's ufunc functions
  refused an ndarray ``out=`` -- tests/test_ufunc.py.
- The namespace's ``np.clip`` dropped ``where=``, ``dtype=``, ``casting=``
  and unknown keywords silently -- tests/test_numpy_namespace_more.py.

What differs by design (docs/numpy.md), spelled around here: operators
follow PyTorch's promotion (``int_array * 0.5`` and ``np.sqrt(ints)``
are float32), an element read by indexing is a 0-d view (the programs
copy with ``float()``/``int()`` before accumulating), ``x.size`` is the
Size's int subclass, ``np.errstate(all="raise")`` does not make torchlike
ops raise, and ``np.broadcast_to`` views are writeable.
"""
import numpy
import pytest

from test_numpy_programs import _run

_RNG = numpy.random.default_rng(11)
IMG = _RNG.integers(0, 256, (12, 14)).astype(numpy.float64)
IMG8 = (_RNG.beta(2, 5, (10, 12)) * 255).astype(numpy.uint8)
BLOBS = _RNG.random((9, 11)) > 0.55
PRICES = 100 * numpy.exp(numpy.cumsum(_RNG.normal(0.0005, 0.02, 60)))
VOLUMES = _RNG.integers(100, 1000, 60)
RETS = _RNG.normal(0.001, 0.02, (80, 4))
POINTS = _RNG.normal(0, 1, (40, 2))
POLY = numpy.array([[0.0, 0.0], [4.0, 0.0], [5.0, 3.0], [2.0, 5.0], [-1.0, 3.0]])
ADJ = (_RNG.random((8, 8)) < 0.3).astype(numpy.int64)
ADJ = numpy.triu(ADJ, 1)
ADJ = ADJ + ADJ.T
WEIGHTS = numpy.where(ADJ > 0, _RNG.integers(1, 10, (8, 8)), 0)
WEIGHTS = numpy.triu(WEIGHTS, 1)
WEIGHTS = WEIGHTS + WEIGHTS.T
DAG = numpy.triu((_RNG.random((7, 7)) < 0.4).astype(numpy.int64), 1)
STEPS = _RNG.choice(numpy.array([-1, 1]), (20, 50))
NORMALS = _RNG.standard_normal(2000)
UNIFORMS = _RNG.random((15, 15))
ARRIVALS = _RNG.exponential(1.0, 30)
SERVICE = _RNG.exponential(0.8, 30)
SAMPLE = _RNG.gamma(2.0, 1.5, 50)
BOOT = _RNG.integers(0, 50, (200, 50))
BODIES = _RNG.normal(0, 1, (6, 3))
MASSES = _RNG.uniform(1, 3, 6)
KEYS = _RNG.integers(0, 5, 40)
VALS = _RNG.uniform(0, 100, 40).round(2)
KEYS2 = _RNG.integers(0, 3, 40)
STAMPS = numpy.sort(_RNG.integers(0, 10_000, 50))
USERS = _RNG.integers(0, 4, 50)
LABELS = _RNG.integers(0, 3, 30)
PREDS = numpy.where(_RNG.random(30) < 0.7, LABELS, _RNG.integers(0, 3, 30))
CUBE = _RNG.normal(0, 1, (3, 4, 5))
XDATA = numpy.linspace(0, 1, 20)
YDATA = 2.0 + 3.0 * XDATA + _RNG.normal(0, 0.1, 20)
WDATA = _RNG.uniform(0.5, 2.0, 20)


# ---- image processing by stencils --------------------------------------------------------

def box_blur(np):
    """A 3x3 box blur by summing nine shifted slices of an edge-padded image,
    the same by a separable pair of 1-d passes, and the difference."""
    img = np.asarray(IMG)
    p = np.pad(img, 1, mode="edge")
    h, w = img.shape
    acc = np.zeros_like(img)
    for dy in range(3):
        for dx in range(3):
            acc += p[dy:dy + h, dx:dx + w]
    blur = acc / 9
    rows = (p[:, :-2] + p[:, 1:-1] + p[:, 2:]) / 3
    sep = (rows[:-2] + rows[1:-1] + rows[2:]) / 3
    return blur, sep, np.abs(blur - sep).max() < 1e-12, blur.dtype == np.float64, p.shape


def sobel_edges(np):
    """Sobel gradients by weighted shifted slices, the magnitude by hypot,
    the direction by arctan2 in degrees, and an edge mask by a threshold at
    the 90th percentile."""
    img = np.asarray(IMG)
    p = np.pad(img, 1, mode="reflect")
    gx = (p[:-2, 2:] + 2 * p[1:-1, 2:] + p[2:, 2:]) - (p[:-2, :-2] + 2 * p[1:-1, :-2] + p[2:, :-2])
    gy = (p[2:, :-2] + 2 * p[2:, 1:-1] + p[2:, 2:]) - (p[:-2, :-2] + 2 * p[:-2, 1:-1] + p[:-2, 2:])
    mag = np.hypot(gx, gy)
    ang = np.degrees(np.arctan2(gy, gx))
    edges = mag > np.percentile(mag, 90)
    return mag, ang, edges, int(edges.sum()), np.argwhere(edges)[:5]


def median_denoise(np):
    """A 3x3 median filter by stacking the nine shifts on a new axis, salt
    noise put in by fancy indexing and removed, and the rows of the stack."""
    img = np.asarray(IMG).copy()
    img[[1, 4, 7], [2, 9, 5]] = 255.0
    p = np.pad(img, 1, mode="symmetric")
    h, w = img.shape
    stack = np.stack([p[dy:dy + h, dx:dx + w] for dy in range(3) for dx in range(3)])
    med = np.median(stack, axis=0)
    return med, stack.shape, med[[1, 4, 7], [2, 9, 5]], np.sort(stack[:, 0, 0])


def morphology(np):
    """Binary erosion and dilation by logical_and/logical_or reductions over
    shifted views, opening and closing, and the boundary by XOR."""
    b = np.asarray(BLOBS)

    def shifts(x, fill):
        p = np.pad(x, 1, constant_values=fill)
        h, w = x.shape
        return np.stack([p[dy:dy + h, dx:dx + w] for dy in range(3) for dx in range(3)])

    def erode(x):
        return np.logical_and.reduce(shifts(x, True), axis=0)

    def dilate(x):
        return np.logical_or.reduce(shifts(x, False), axis=0)

    opened = dilate(erode(b))
    closed = erode(dilate(b))
    boundary = b ^ erode(b)
    return (erode(b), dilate(b), opened, closed, boundary, np.count_nonzero(boundary, axis=1),
            opened.dtype == np.bool_)


def histogram_equalization(np):
    """uint8 pixels equalized: counts by bincount(minlength=256), the CDF by
    cumsum, a lookup table rounded and cast to uint8, applied by indexing;
    uint8 arithmetic wraps (inversion by 255 - img stays uint8)."""
    img = np.asarray(IMG8)
    hist = np.bincount(img.ravel(), minlength=256)
    cdf = hist.cumsum()
    cdf_min = cdf[cdf > 0].min()
    lut = np.round((cdf - cdf_min) * 255.0 / (cdf[-1] - cdf_min)).clip(0, 255).astype(np.uint8)
    out = lut[img]
    inverted = 255 - img
    wrapped = img + np.uint8(200)
    return (hist.dtype == np.int64, cdf[-1], lut[:40], out, out.dtype == np.uint8, inverted,
            inverted.dtype == np.uint8, wrapped,
            np.histogram(out, bins=8, range=(0, 256))[0])


def integral_image(np):
    """A summed-area table by two cumsums with a zero border, box sums by
    the four-corner formula for every 3x4 box, checked against direct sums."""
    img = np.asarray(IMG).astype(np.int64)
    S = np.zeros((img.shape[0] + 1, img.shape[1] + 1), dtype=np.int64)
    S[1:, 1:] = img.cumsum(axis=0).cumsum(axis=1)
    bh, bw = 3, 4
    boxes = S[bh:, bw:] - S[:-bh, bw:] - S[bh:, :-bw] + S[:-bh, :-bw]
    direct = np.lib.stride_tricks.sliding_window_view(img, (bh, bw)).sum(axis=(2, 3))
    return S, boxes, bool(np.array_equal(boxes, direct)), boxes.dtype == np.int64, np.unravel_index(
        np.argmax(boxes), boxes.shape)


def label_components(np):
    """Connected components of a binary image by label propagation: each
    pixel takes the minimum label among its 4-neighbours until nothing
    changes; labels renumbered by unique(return_inverse)."""
    b = np.asarray(BLOBS)
    big = b.size + 1
    lab = np.where(b, np.arange(b.size).reshape(b.shape), big)
    for _ in range(100):
        p = np.pad(lab, 1, constant_values=big)
        nb = np.minimum.reduce([p[1:-1, 1:-1], p[:-2, 1:-1], p[2:, 1:-1], p[1:-1, :-2], p[1:-1, 2:]])
        new = np.where(b, nb, big)
        if np.array_equal(new, lab):
            break
        lab = new
    uniq, inv = np.unique(lab, return_inverse=True)
    sizes = np.bincount(inv.ravel())
    return lab, uniq.shape, inv, sizes, int((uniq < big).sum())


# ---- finance and time series ----------------------------------------------------------

def drawdowns(np):
    """Log returns, cumulative growth by cumprod, the running peak by
    maximum.accumulate, the drawdown and its worst point, and the longest
    time under water by run lengths."""
    p = np.asarray(PRICES)
    r = np.diff(np.log(p))
    growth = np.cumprod(1 + np.diff(p) / p[:-1])
    peak = np.maximum.accumulate(p)
    dd = p / peak - 1
    worst = int(np.argmin(dd))
    under = dd < 0
    edges = np.flatnonzero(np.diff(np.concatenate(([0], under.astype(np.int64), [0]))))
    runs = edges[1::2] - edges[::2]
    return r, growth, peak, dd, worst, dd.min(), runs, runs.max(), np.exp(r.sum())


def moving_averages(np):
    """Simple moving averages by cumsum differences, an exponential moving
    average by its recurrence, a rolling standard deviation over windows,
    and VWAP by cumulative sums of integer volumes."""
    p = np.asarray(PRICES)
    v = np.asarray(VOLUMES)
    c = np.cumsum(np.concatenate(([0.0], p)))
    sma = (c[10:] - c[:-10]) / 10
    alpha = 2 / 11
    ema = np.empty_like(p)
    ema[0] = p[0]
    for i in range(1, p.size):
        ema[i] = alpha * p[i] + (1 - alpha) * ema[i - 1]
    roll = np.lib.stride_tricks.sliding_window_view(p, 10).std(axis=1, ddof=1)
    vwap = np.cumsum(p * v) / np.cumsum(v)
    return sma, ema, roll, vwap, vwap.dtype == np.float64, np.cumsum(v).dtype == np.int64


def crossings(np):
    """Golden and death crosses of a fast and a slow moving average by the
    sign of their difference, positions by flatnonzero, and a position
    series held by a forward fill (maximum.accumulate of indices)."""
    p = np.asarray(PRICES)
    fast = np.convolve(p, np.ones(5) / 5, mode="valid")[5:]
    slow = np.convolve(p, np.ones(10) / 10, mode="valid")
    s = np.sign(fast - slow)
    change = np.flatnonzero(np.diff(s))
    signal = np.zeros(s.size, dtype=np.int64)
    signal[change + 1] = s[change + 1].astype(np.int64)
    idx = np.where(signal != 0, np.arange(signal.size), 0)
    held = signal[np.maximum.accumulate(idx)]
    return s, change, signal, held, s.dtype == np.float64


def portfolio(np):
    """Mean returns and covariance of four assets, the minimum-variance and
    tangency portfolios by solve, their risk and return, annualised, and the
    frontier of mixes."""
    R = np.asarray(RETS)
    mu = R.mean(axis=0)
    C = np.cov(R, rowvar=False)
    ones = np.ones(4)
    w_min = np.linalg.solve(C, ones)
    w_min /= w_min.sum()
    w_tan = np.linalg.solve(C, mu - 0.0001)
    w_tan = w_tan / w_tan.sum()
    mixes = np.linspace(0, 1, 5)[:, None] * w_tan + (1 - np.linspace(0, 1, 5))[:, None] * w_min
    risk = np.sqrt(np.einsum("ij,jk,ik->i", mixes, C, mixes))
    ret = mixes @ mu
    return w_min, w_tan, risk * np.sqrt(252), ret * 252, np.corrcoef(R.T)


def amortization(np):
    """A loan's payment by the annuity formula and its schedule by a loop:
    interest and principal parts, the balance, cumulative interest, and the
    payment rounded to cents."""
    principal, rate, n = 25_000.0, 0.06 / 12, 36
    pay = principal * rate / (1 - (1 + rate) ** -n)
    bal = np.empty(n + 1)
    bal[0] = principal
    interest = np.empty(n)
    for k in range(n):
        interest[k] = bal[k] * rate
        bal[k + 1] = bal[k] - (pay - interest[k])
    princ = pay - interest
    return (np.round(pay, 2), np.round(bal, 2), np.cumsum(interest), princ, abs(float(bal[-1])) < 1e-6,
            np.round(interest.sum(), 2))


def integer_cents(np):
    """Money as int64 cents: a bill split by divmod with the remainder
    handed out one cent at a time, taxes by floor_divide with rounding half
    up, and totals by sum with dtype."""
    bills = np.asarray([1999, 2500, 10001, 7, 0, 123456], dtype=np.int64)
    people = np.asarray([3, 4, 7, 2, 5, 9], dtype=np.int64)
    share, rest = np.divmod(bills, people)
    tax = (bills * 8 + 50) // 100
    cents = np.asarray([-5, -150, 149, 250], dtype=np.int64)
    dollars, c = np.divmod(cents, 100)
    return (share, rest, tax, tax.sum(dtype=np.int64), dollars, c, np.fmod(cents, 100),
            np.remainder(cents, 100), np.floor_divide(cents, -100), share.dtype == np.int64)


# ---- geometry --------------------------------------------------------------------------

def convex_hull(np):
    """Andrew's monotone chain: points sorted by lexsort, lower and upper
    chains by the sign of cross products, the hull's area by the shoelace
    formula and its perimeter by norms of differences."""
    pts = np.asarray(POINTS)
    order = np.lexsort((pts[:, 1], pts[:, 0]))
    P = pts[order]

    def cross(o, a, b):
        return (a[0] - o[0]) * (b[1] - o[1]) - (a[1] - o[1]) * (b[0] - o[0])

    def chain(seq):
        h = []
        for i in range(len(seq)):
            while len(h) >= 2 and float(cross(seq[h[-2]], seq[h[-1]], seq[i])) <= 0:
                h.pop()
            h.append(i)
        return h

    lower = chain(P)
    upper = chain(P[::-1])
    idx = [int(i) for i in lower[:-1]] + [len(P) - 1 - int(i) for i in upper[:-1]]
    hull = P[np.asarray(idx)]
    x, y = hull[:, 0], hull[:, 1]
    area = 0.5 * np.abs(np.dot(x, np.roll(y, -1)) - np.dot(y, np.roll(x, -1)))
    perim = np.linalg.norm(np.diff(np.vstack([hull, hull[:1]]), axis=0), axis=1).sum()
    return order, hull, area, perim, len(idx)


def point_in_polygon(np):
    """Ray casting for many points at once: each edge crossing a horizontal
    ray counted with errstate guarding horizontal edges, parity by
    logical_xor.reduce, and a grid's inside fraction."""
    poly = np.asarray(POLY)
    pts = np.asarray(POINTS) * 2 + 2
    x1, y1 = poly[:, 0], poly[:, 1]
    x2, y2 = np.roll(x1, -1), np.roll(y1, -1)
    px, py = pts[:, :1], pts[:, 1:]
    with np.errstate(divide="ignore", invalid="ignore"):
        xint = x1 + (py - y1) * (x2 - x1) / (y2 - y1)
    crosses = ((y1 > py) != (y2 > py)) & (px < xint)
    inside = np.logical_xor.reduce(crosses, axis=1)
    gx, gy = np.meshgrid(np.linspace(-1, 5, 13), np.linspace(0, 5, 11))
    g = np.stack([gx.ravel(), gy.ravel()], axis=1)
    with np.errstate(divide="ignore", invalid="ignore"):
        gint = x1 + (g[:, 1:] - y1) * (x2 - x1) / (y2 - y1)
    gin = np.logical_xor.reduce(((y1 > g[:, 1:]) != (y2 > g[:, 1:])) & (g[:, :1] < gint), axis=1)
    return inside, crosses.sum(axis=1), gin.mean(), gin.reshape(gx.shape)


def polygon_properties(np):
    """Signed areas of a batch of polygons (padded by repeating the last
    vertex) by the shoelace formula, centroids, orientation, and the
    polygon's moment of inertia about its centroid."""
    poly = np.asarray(POLY)
    x, y = poly[:, 0], poly[:, 1]
    xs, ys = np.roll(x, -1), np.roll(y, -1)
    c = x * ys - xs * y
    A = c.sum() / 2
    cx = ((x + xs) * c).sum() / (6 * A)
    cy = ((y + ys) * c).sum() / (6 * A)
    batch = np.stack([poly, poly[::-1], poly * 2, poly + 1])
    bx, by = batch[..., 0], batch[..., 1]
    areas = 0.5 * (bx * np.roll(by, -1, axis=1) - np.roll(bx, -1, axis=1) * by).sum(axis=1)
    Ix = ((y ** 2 + y * ys + ys ** 2) * c).sum() / 12 - A * cy ** 2
    return A, cx, cy, areas, np.sign(areas), Ix


def closest_pair(np):
    """The closest and farthest pair by a full distance matrix: the diagonal
    masked by fill_diagonal with inf, argmin unravelled, the upper triangle's
    distances by triu_indices, and each point's nearest neighbour."""
    pts = np.asarray(POINTS)
    d = np.sqrt(((pts[:, None, :] - pts[None, :, :]) ** 2).sum(axis=-1))
    far = np.unravel_index(np.argmax(d), d.shape)
    np.fill_diagonal(d, np.inf)
    i, j = np.unravel_index(np.argmin(d), d.shape)
    iu = np.triu_indices(len(pts), k=1)
    return (int(i), int(j), d[i, j], far, d[iu].shape, np.sort(d[iu])[:5], np.argmin(d, axis=1),
            d.min(axis=1))


def rotations(np):
    """Rotation matrices for a batch of angles by stacking cos/sin, applied
    by matmul to a point set, angles recovered by arctan2 and unwrap, and
    orthogonality checked by einsum."""
    th = np.linspace(0, 3 * np.pi, 7)
    c, s = np.cos(th), np.sin(th)
    R = np.stack([np.stack([c, -s], axis=-1), np.stack([s, c], axis=-1)], axis=-2)
    pts = np.asarray(POINTS[:5])
    rotated = R @ pts.T
    back = np.arctan2(R[:, 1, 0], R[:, 0, 0])
    eye = np.einsum("nij,nkj->nik", R, R)
    return (R.shape, rotated, back, np.unwrap(back), np.allclose(eye, np.eye(2)),
            np.linalg.det(R), np.rad2deg(np.unwrap(back)))


def triangle_geometry(np):
    """Barycentric coordinates of points in a triangle by solving a 3x3
    system per point, the triangle's angles by arccos of clipped cosines,
    its circumcentre by a 2x2 solve, and an inside test."""
    T = np.asarray([[0.0, 0.0], [4.0, 0.5], [1.0, 3.0]])
    pts = np.asarray(POINTS) + 1.5
    M = np.vstack([T.T, np.ones(3)])
    rhs = np.vstack([pts.T, np.ones(len(pts))])
    lam = np.linalg.solve(M, rhs)
    inside = (lam >= 0).all(axis=0)
    a = T[[1, 2, 0]] - T
    b = T[[2, 0, 1]] - T
    cosang = np.einsum("ij,ij->i", a, b) / (np.linalg.norm(a, axis=1) * np.linalg.norm(b, axis=1))
    ang = np.degrees(np.arccos(np.clip(cosang, -1, 1)))
    A = 2 * (T[1:] - T[0])
    bb = (T[1:] ** 2).sum(axis=1) - (T[0] ** 2).sum()
    cc = np.linalg.solve(A, bb)
    return lam.T[:6], inside, ang, ang.sum(), cc, np.linalg.norm(T - cc, axis=1)


def segment_intersections(np):
    """Intersections of every pair of segments by 2x2 determinants, parallel
    pairs left NaN under errstate, the parameters' range test, and the
    crossing points."""
    seg = np.asarray(POINTS[:12]).reshape(6, 2, 2)
    p, r = seg[:, 0], seg[:, 1] - seg[:, 0]
    q, s = p, r
    rxs = r[:, None, 0] * s[None, :, 1] - r[:, None, 1] * s[None, :, 0]
    qp = q[None, :, :] - p[:, None, :]
    with np.errstate(divide="ignore", invalid="ignore"):
        t = (qp[..., 0] * s[None, :, 1] - qp[..., 1] * s[None, :, 0]) / rxs
        u = (qp[..., 0] * r[:, None, 1] - qp[..., 1] * r[:, None, 0]) / rxs
    hit = (t >= 0) & (t <= 1) & (u >= 0) & (u <= 1)
    pts = p[:, None, :] + t[..., None] * r[:, None, :]
    return rxs, np.isnan(t), hit, pts[hit], np.nan_to_num(t, nan=-1.0)


# ---- graphs on adjacency matrices ---------------------------------------------------------

def bfs_levels(np):
    """Breadth-first levels from node 0 by boolean frontier products
    (int matmul, then > 0), unreachable nodes left at -1, degrees and the
    number of walks of length 3."""
    A = np.asarray(ADJ)
    level = np.full(A.shape[0], -1)
    level[0] = 0
    frontier = np.zeros(A.shape[0], dtype=bool)
    frontier[0] = True
    seen = frontier.copy()
    d = 0
    while frontier.any():
        d += 1
        nxt = (frontier.astype(np.int64) @ A > 0) & ~seen
        level[nxt] = d
        seen |= nxt
        frontier = nxt
    walks = np.linalg.matrix_power(A, 3)
    return level, A.sum(axis=0), walks, np.trace(walks) // 6, seen


def pagerank(np):
    """PageRank by power iteration with dangling nodes spread uniformly:
    column-stochastic matrix by division with where=, damping, iteration to
    convergence, and the ranking."""
    A = np.asarray(DAG + DAG.T * 0).astype(np.float64)
    n = A.shape[0]
    out = A.sum(axis=1, keepdims=True)
    P = np.divide(A, out, out=np.zeros_like(A), where=out > 0)
    dangling = (out[:, 0] == 0)
    r = np.full(n, 1.0 / n)
    for it in range(200):
        new = 0.15 / n + 0.85 * (r @ P + r[dangling].sum() / n)
        if np.abs(new - r).sum() < 1e-12:
            break
        r = new
    return new, np.argsort(-new, kind="stable"), new.sum(), P.sum(axis=1), dangling


def shortest_paths(np):
    """All-pairs shortest paths by repeated min-plus products on a weight
    matrix with inf for no edge, the diameter of the reachable part, and the
    eccentricities."""
    W = np.asarray(WEIGHTS).astype(np.float64)
    D = np.where(W > 0, W, np.inf)
    np.fill_diagonal(D, 0.0)
    for _ in range(4):
        D = np.min(D[:, :, None] + D[None, :, :], axis=1)
    finite = np.isfinite(D)
    ecc = np.where(finite, D, -np.inf).max(axis=1)
    return D, finite.sum(axis=1), np.max(D, where=finite, initial=0.0), ecc


def clustering(np):
    """Triangle counts by the diagonal of A^3, local clustering coefficients
    with the 0/0 of low-degree nodes made 0 by where=, and transitivity."""
    A = np.asarray(ADJ)
    A3 = A @ A @ A
    tri = np.diagonal(A3) // 2
    deg = A.sum(axis=1)
    pairs = deg * (deg - 1) // 2
    cc = np.divide(tri, pairs, out=np.zeros(len(deg)), where=pairs > 0)
    trans = np.trace(A3).astype(np.float64) / np.sum(deg * (deg - 1))
    return tri, deg, pairs, cc, trans, tri.dtype == np.int64


def transitive_closure(np):
    """Reachability by repeated squaring of a boolean matrix (int products
    cast back to bool), components by unique rows, and a reflexive closure
    by logical_or with the identity."""
    A = np.asarray(ADJ).astype(bool)
    R = A | np.eye(len(A), dtype=bool)
    for _ in range(4):
        R = (R.astype(np.int64) @ R.astype(np.int64)) > 0
    comps, label = np.unique(R, axis=0, return_inverse=True)
    return R, comps.shape[0], label, R.sum(axis=1), R.dtype == np.bool_


def topological_order(np):
    """Kahn's algorithm on a DAG's adjacency matrix: in-degrees by column
    sums, a queue of zero in-degree nodes, decrements by subtracting a row,
    and the order's validity (every edge goes forward)."""
    A = np.asarray(DAG)
    indeg = A.sum(axis=0)
    order = []
    ready = list(np.flatnonzero(indeg == 0))
    while ready:
        v = int(ready.pop(0))
        order.append(v)
        indeg = indeg - A[v]
        for w in np.flatnonzero((A[v] > 0) & (indeg == 0)):
            ready.append(int(w))
    pos = np.empty(len(A), dtype=np.int64)
    pos[np.asarray(order)] = np.arange(len(A))
    src, dst = np.nonzero(A)
    return np.asarray(order), pos, bool(np.all(pos[src] < pos[dst])), indeg


def prim_tree(np):
    """Prim's minimum spanning tree on the weight matrix: the cheapest edge
    into the tree by argmin of a masked key vector, keys relaxed by
    np.minimum with where=, parents updated by where."""
    W = np.asarray(WEIGHTS).astype(np.float64)
    n = len(W)
    cost = np.where(W > 0, W, np.inf)
    key = np.full(n, np.inf)
    parent = np.full(n, -1)
    key[0] = 0.0
    done = np.zeros(n, dtype=bool)
    for _ in range(n):
        k = np.where(done, np.inf, key)
        if not np.isfinite(k.min()):
            break
        u = int(np.argmin(k))
        done[u] = True
        better = (cost[u] < key) & ~done
        parent = np.where(better, u, parent)
        np.minimum(key, cost[u], out=key, where=~done)
    return key, parent, done, key[done].sum()


# ---- simulations with randomness drawn once ------------------------------------------------

def first_passage(np):
    """First passage of +-1 random walks to +5 by argmax of a condition,
    walks that never reach it marked by any(), and the survival curve."""
    walks = np.cumsum(np.asarray(STEPS), axis=1)
    hit = walks >= 5
    first = np.where(hit.any(axis=1), np.argmax(hit, axis=1), -1)
    survival = 1 - hit.cumsum(axis=1).astype(bool).mean(axis=0)
    return walks[:, -1], first, survival, walks.max(axis=1), walks.dtype == np.int64, np.abs(walks).mean()


def sir_model(np):
    """An SIR epidemic by forward Euler on a state vector, the peak of
    infections by argmax, the final size, and the state history's sums."""
    beta, gamma, dt = 0.3, 0.1, 0.5
    y = np.asarray([0.99, 0.01, 0.0])
    hist = np.empty((200, 3))
    for k in range(200):
        s, i, r = y
        dy = np.asarray([-beta * s * i, beta * s * i - gamma * i, gamma * i])
        y = y + dt * dy
        hist[k] = y
    return hist[::20], int(np.argmax(hist[:, 1])), hist[-1], hist.sum(axis=1)[-3:]


def option_pricing(np):
    """Monte Carlo prices of a European call and put from NumPy's normals:
    terminal prices by exp, payoffs by maximum, the discounted mean and its
    standard error, antithetic variates, and put-call parity."""
    z = np.asarray(NORMALS)
    S0, K, r, sig, T = 100.0, 105.0, 0.03, 0.2, 0.5
    ST = S0 * np.exp((r - 0.5 * sig ** 2) * T + sig * np.sqrt(T) * z)
    ST_anti = S0 * np.exp((r - 0.5 * sig ** 2) * T - sig * np.sqrt(T) * z)
    disc = np.exp(-r * T)
    call = disc * np.maximum(ST - K, 0)
    put = disc * np.maximum(K - ST, 0)
    anti = 0.5 * (call + disc * np.maximum(ST_anti - K, 0))
    se = call.std(ddof=1) / np.sqrt(z.size)
    return call.mean(), put.mean(), se, anti.mean(), call.mean() - put.mean(), \
        S0 - K * disc, np.percentile(ST, [5, 50, 95])


def majority_automaton(np):
    """A majority-vote cellular automaton on a torus: neighbour counts by
    rolls over both axes, the update rule by where, run until a fixed point,
    and the fraction of live cells per step."""
    g = np.asarray(UNIFORMS) < 0.5
    fractions = []
    for _ in range(20):
        n = sum(np.roll(np.roll(g, dy, 0), dx, 1).astype(np.int64)
                for dy in (-1, 0, 1) for dx in (-1, 0, 1))
        new = np.where(n > 4, True, np.where(n < 4, False, g))
        fractions.append(float(new.mean()))
        if np.array_equal(new, g):
            break
        g = new
    return g, fractions, n.dtype == np.int64, n.max()


def queue_simulation(np):
    """A single-server queue by Lindley's recursion: arrival times by
    cumsum, waits by a loop, departures, the time-average queue length by
    sorting events, and utilisation."""
    a = np.cumsum(np.asarray(ARRIVALS))
    s = np.asarray(SERVICE)
    wait = np.zeros_like(a)
    for k in range(1, a.size):
        wait[k] = max(0.0, float(wait[k - 1] + s[k - 1] - (a[k] - a[k - 1])))
    start = a + wait
    dep = start + s
    events = np.concatenate([a, dep])
    delta = np.concatenate([np.ones_like(a), -np.ones_like(dep)]).astype(np.int64)
    order = np.argsort(events, kind="stable")
    qlen = np.cumsum(delta[order])
    dt = np.diff(events[order])
    return wait, dep, qlen, (qlen[:-1] * dt).sum() / dt.sum(), s.sum() / dep[-1], qlen.dtype == np.int64


def bootstrap(np):
    """Bootstrap means from a fixed matrix of resampling indices (drawn by
    NumPy), the percentile interval, the bias, and the jackknife by deleting
    one observation at a time through a boolean mask."""
    x = np.asarray(SAMPLE)
    idx = np.asarray(BOOT)
    means = x[idx].mean(axis=1)
    lo, hi = np.percentile(means, [2.5, 97.5])
    mask = ~np.eye(x.size, dtype=bool)
    jack = np.array([x[m].mean() for m in mask])
    jse = np.sqrt((x.size - 1) / x.size * ((jack - jack.mean()) ** 2).sum())
    return means[:5], lo, hi, means.mean() - x.mean(), jse, np.median(x[idx], axis=1)[:4]


def generator_simulation(np):
    """A dice game by torchlike's own Generator (its stream is not NumPy's),
    checked by what holds for every stream: totals in range, counts summing
    to the number of rolls, integer dtypes and shapes."""
    rng = np.random.default_rng(2024)
    rolls = rng.integers(1, 7, size=(500, 2))
    tot = rolls.sum(axis=1)
    counts = np.bincount(tot, minlength=13)
    b = rng.binomial(10, 0.3, size=100)
    return (int(counts.sum()), counts.shape, int(tot.min()) >= 2, int(tot.max()) <= 12,
            rolls.dtype == np.int64, bool((b >= 0).all() and (b <= 10).all()), b.shape,
            rng.poisson(3.0, (2, 3)).shape)


# ---- dtype promotion, overflow and error states ----------------------------------------

def weak_scalar_corners(np):
    """NEP 50 at the namespace's functions: a Python int or float combines
    with an array of its own kind without widening it (uint8 + 1, int8 *
    2, float16 + 1.0, float32 * 0.1), comparisons against ints past the
    dtype's range, result_type of arrays and weak numbers."""
    u8 = np.asarray([0, 100, 250], dtype=np.uint8)
    i8 = np.asarray([-128, 5, 100], dtype=np.int8)
    f16 = np.asarray([1.0, 2048.0, 0.1], dtype=np.float16)
    f32 = np.asarray([1e-3, 3.0, 1e30], dtype=np.float32)
    return (np.add(u8, 10), np.multiply(i8, 2), np.add(f16, 1.0), np.multiply(f32, 0.1),
            np.multiply(f32, 1e10), np.less(u8, 300), np.equal(i8, 1000), np.greater(i8, -129),
            np.result_type(u8, 1) == np.uint8, np.result_type(i8, 1) == np.int8, np.result_type(f16, 1.0) == np.float16,
            np.result_type(f16, 1j) == np.complex64,
            np.maximum(u8, 7), np.subtract(u8, 1), np.true_divide(f16, 3),
            np.power(i8, 2), np.add(np.asarray(3, dtype=np.int16), 1).dtype == np.int16,
            np.add(f32, np.float64(1.0)).dtype == np.float64, np.add(u8, np.int64(1)).dtype == np.int64)


def integer_wraparound(np):
    """Integer arithmetic wraps as NumPy's: int8/int16/int32 products and
    sums past the range, the absolute value and negation of the minimum,
    uint8 subtraction, left shifts past the width, and int64's maximum plus
    one; sums of small ints widen to int64, cumsum with dtype keeps it."""
    i8 = np.asarray([100, -100, 127, -128], dtype=np.int8)
    i16 = np.asarray([300, 200, -32768], dtype=np.int16)
    i32 = np.asarray([2 ** 31 - 1, 2 ** 30, -2 ** 31], dtype=np.int32)
    u8 = np.asarray([0, 1, 255], dtype=np.uint8)
    big = np.asarray([2 ** 63 - 1], dtype=np.int64)
    return (i8 + i8, i8 * i8, np.abs(i8), -i8, i16 * i16, i32 + i32, np.negative(i32),
            u8 - np.uint8(1), np.left_shift(u8, 7), np.left_shift(i8, 1), big + 1,
            i8.sum(), i8.sum().dtype == np.int64, np.cumsum(i8, dtype=np.int8), np.cumsum(i8),
            np.prod(i16), np.prod(i16, dtype=np.int16), np.sum(u8), i32.astype(np.int16),
            np.add.reduce(i8, dtype=np.int8))


def error_states(np):
    """Division by zero and invalid operations inside np.errstate(ignore):
    inf and nan results, nan_to_num with custom values, isfinite masks,
    integer division by zero in the namespace's floor_divide/remainder (0),
    log of zero and negatives, and the restored state."""
    a = np.asarray([1.0, -1.0, 0.0, 2.0])
    b = np.asarray([0.0, 0.0, 0.0, 4.0])
    before = np.geterr()
    with np.errstate(divide="ignore", invalid="ignore"):
        q = a / b
        lg = np.log(np.asarray([0.0, -1.0, 1.0]))
        fd = np.floor_divide(np.asarray([7, -7, 0]), np.asarray([0, 0, 0]))
        rm = np.remainder(np.asarray([7, -7, 0]), np.asarray([0, 2, 0]))
        fq = np.floor_divide(a, b)
        md = np.fmod(a, b)
    after = np.geterr()
    return (q, np.nan_to_num(q, nan=0.0, posinf=9.0, neginf=-9.0), np.isfinite(q), lg, fd, rm, fq,
            md, before == after, np.isnan(q).sum())


def out_and_where(np):
    """ufunc calls with out= and where=: a division kept at the default
    where b is 0, out= a non-contiguous view, an in-place exp through out=x,
    maximum into the input, a broadcast where mask, and reductions into an
    out buffer."""
    a = np.arange(12.0).reshape(3, 4)
    b = np.asarray([[0.0, 1.0, 2.0, 0.0]])
    r = np.divide(a, b, out=np.full((3, 4), -1.0), where=b != 0)
    buf = np.zeros((3, 8))
    np.add(a, 1.0, out=buf[:, ::2])
    x = np.linspace(-1, 1, 5)
    np.exp(x, out=x)
    c = a.copy()
    np.maximum(c, 5.0, out=c)
    d = np.zeros((3, 4))
    np.multiply(a, 2.0, out=d, where=np.asarray([True, False, True, False]))
    s = np.empty(4)
    np.sum(a, axis=0, out=s)
    m = np.empty((3, 1))
    np.max(a, axis=1, keepdims=True, out=m)
    cs = np.empty_like(a)
    np.cumsum(a, axis=1, out=cs)
    cl = np.empty_like(a)
    np.clip(a, 2, 9, out=cl)
    rv = a[::-1].copy()
    np.subtract(rv, rv[::-1], out=rv)
    return r, buf, x, c, d, s, m, cs, cl, rv


def reductions_where(np):
    """Reductions with where= and initial=: masked sums and means, max with
    an initial value (an all-False row gives the initial), prod of selected
    elements, argmax of a masked copy, and all/any with where."""
    a = np.asarray(CUBE[0])
    keep = a > 0
    return (np.sum(a, where=keep), np.sum(a, axis=1, where=keep), np.mean(a, axis=0, where=keep),
            np.max(a, axis=1, where=keep, initial=-10.0), np.min(a, where=~keep, initial=10.0),
            np.prod(a, axis=1, where=keep), np.all(a > -1, where=keep), np.any(a > 1, axis=0, where=keep),
            np.sum(a, axis=1, initial=100.0), np.nansum(np.where(keep, a, np.nan), axis=1),
            np.mean(a, axis=1, where=np.zeros_like(keep)) if False else np.count_nonzero(keep, axis=0))


def keepdims_and_axes(np):
    """Standardisation over an axis tuple with keepdims, norms over two axes,
    argmax with keepdims, count_nonzero/ptp/median/percentile over tuples,
    negative axes, and the empty axis tuple (no reduction)."""
    x = np.asarray(CUBE)
    mu = x.mean(axis=(0, 2), keepdims=True)
    sd = x.std(axis=(0, 2), keepdims=True, ddof=1)
    z = (x - mu) / sd
    return (mu.shape, z, np.linalg.norm(x, axis=(1, 2)), np.linalg.norm(x, axis=(1, 2), keepdims=True).shape,
            np.argmax(x, axis=1, keepdims=True), np.count_nonzero(x > 0, axis=(0, 1)),
            np.ptp(x, axis=(1, 2)), np.median(x, axis=(0, 2)), np.percentile(x, 50, axis=(-1, -3), keepdims=True),
            np.sum(x, axis=()), np.max(x, axis=(-1, 0)), np.var(x, axis=(1, 2), keepdims=True),
            np.any(x > 2, axis=(0, 2), keepdims=True), np.prod(x, axis=-2).shape,
            np.min(x, axis=(0, 1, 2), keepdims=True))


# ---- shapes: empty, 0-d, non-contiguous and broadcast --------------------------------------

def empty_pipelines(np):
    """Empty inputs through a pipeline: sums and products of nothing, max
    with initial, cumsum of an empty axis, (3, 0) @ (0, 4), norms, unique,
    sort, where and concatenation of empties, and bincount with minlength."""
    e = np.zeros((0, 3))
    ei = np.asarray([], dtype=np.int64)
    return (e.sum(), e.sum(axis=0), e.sum(axis=1), e.prod(axis=0), np.max(e, axis=0, initial=-1.0),
            np.cumsum(e, axis=0).shape, np.ones((3, 0)) @ np.ones((0, 4)), np.linalg.norm(e),
            np.unique(ei), np.sort(e, axis=0).shape, np.where(ei > 0)[0], np.concatenate([ei, ei]),
            np.bincount(ei, minlength=3), np.any(e), np.all(e), np.count_nonzero(e),
            np.mean(np.ones((2, 3)), axis=0)[:0], np.argsort(ei), np.cumprod(ei), np.diff(ei),
            e.T.shape, np.stack([ei, ei]).shape, np.vstack([e, np.ones((1, 3))]))


def zero_d_pipelines(np):
    """0-d arrays through ufuncs, reshape, atleast_*, expand_dims, squeeze,
    x[()] and x[...], item, stacking and broadcast_to."""
    z = np.asarray(2.5)
    i = np.asarray(7)
    return (np.sqrt(z), np.add(z, i), z.reshape(1, 1), np.atleast_1d(z), np.atleast_2d(i).shape,
            np.atleast_3d(z).shape, np.expand_dims(z, 0), np.squeeze(np.asarray([[3]])), z[()],
            z[...].shape, z.item(), i.item(), np.stack([z, z]), np.broadcast_to(i, (2, 3)),
            np.maximum(z, np.asarray([1.0, 4.0])), z.ndim, np.sum(z), np.cumsum(z), np.sort(np.asarray([z, 1.0])),
            np.where(z > 2, i, 0), np.asarray(True) + np.asarray(True), np.clip(i, 0, 5),
            np.power(i, 2), np.floor_divide(i, 2), np.argmax(z), np.ravel(z), np.array(z, ndmin=2))


def non_contiguous_inputs(np):
    """Transposed, strided and reversed views through matmul, sort, cumsum,
    argsort, unique, searchsorted and a reshape that has to copy; flags and
    ascontiguousarray."""
    a = np.asarray(IMG)
    t = a.T
    s = a[::2, 1::3]
    r = a[::-1, ::-1]
    return (s.T @ a[::2], np.sort(s, axis=0), np.cumsum(r, axis=1)[:2], np.argsort(t[0], kind="stable"),
            np.unique(s), np.searchsorted(np.sort(s.ravel()), [10.0, 100.0, 200.0]),
            t.reshape(-1)[:10], t.flags["C_CONTIGUOUS"], np.ascontiguousarray(t).flags["C_CONTIGUOUS"],
            r.ravel(order="F")[:6], np.diff(s, axis=1), s.max(axis=0), np.dot(r[0], t[:, 0]),
            np.linalg.norm(s, axis=0), s.T.copy().strides == (s.shape[0] * 8, 8))


def broadcast_inputs(np):
    """Broadcast operands: outer ops by None, broadcast_arrays' shapes,
    broadcast_shapes, ufunc.outer, broadcast_to used as an operand, and
    a reduction over a broadcast view."""
    x = np.arange(4.0)
    y = np.asarray([10.0, 20.0, 30.0])
    bx, by = np.broadcast_arrays(x[None, :], y[:, None])
    bt = np.broadcast_to(x, (3, 4))
    return (x[None, :] * y[:, None], bx.shape, by, np.broadcast_shapes((3, 1), (1, 4), (4,)),
            np.add.outer(y, x), np.subtract.outer(x, x), bt.sum(axis=0), bt + by,
            np.maximum(bt, 2.0), np.hypot(x, y[:, None]), np.where(bx > 1, bx, by))


# ---- views against copies and writes through them ------------------------------------------

def views_and_writes(np):
    """Basic slices are views (writes reach the base), fancy indexing and
    boolean masks copy, transposes and reshapes of contiguous arrays are
    views, and may_share_memory/shares_memory say so."""
    a = np.arange(12).reshape(3, 4)
    v = a[1]
    v[:] = -1
    f = a[[0, 2]]
    f[:] = 99
    m = a[a > 5]
    m[:] = 0
    a.T[0, 2] = 500
    r = a.reshape(4, 3)
    r[0, 0] = 42
    col = a[:, 1]
    col *= 10
    return (a, f, m, np.shares_memory(a, v), np.shares_memory(a, f), np.may_share_memory(a, a.T),
            np.shares_memory(a[:, :2], a[:, 2:]), col, r)


def augmented_fancy_writes(np):
    """a[idx] += 1 with repeated indices adds once (buffered) while
    np.add.at adds each occurrence; swaps by fancy assignment; writes
    through a boolean mask with a broadcast value."""
    a = np.zeros(5, dtype=np.int64)
    idx = np.asarray([0, 0, 1, 3, 3, 3])
    a[idx] += 1
    b = np.zeros(5, dtype=np.int64)
    np.add.at(b, idx, 1)
    m = np.arange(12.0).reshape(4, 3)
    m[[0, 2]] = m[[2, 0]]
    m[m[:, 0] > 5] = np.asarray([-1.0, -2.0, -3.0])
    c = np.arange(6)
    c[[1, 1, 2]] = [10, 20, 30]
    return a, b, m, c


def overlapping_assignments(np):
    """Assignments whose source overlaps the destination: a shift right by
    a[1:] = a[:-1], a shift left, a reversal a[:] = a[::-1], a transpose
    written into itself, and an in-place add of an overlapping slice."""
    a = np.arange(8)
    a[1:] = a[:-1]
    b = np.arange(8)
    b[:-1] = b[1:]
    c = np.arange(8)
    c[:] = c[::-1]
    m = np.arange(9).reshape(3, 3)
    m[:] = m.T
    d = np.arange(8.0)
    d[2:] += d[:-2]
    e = np.arange(10)
    e[::2] = e[1::2]
    return a, b, c, m, d, e


def split_views(np):
    """np.split/array_split/hsplit parts are views: writing into a part
    changes the base; np.copy of a part does not; diagonal copies under
    np.diag and a strided read-back."""
    a = np.arange(12.0).reshape(3, 4)
    left, right = np.hsplit(a, 2)
    left[0, 0] = -5.0
    parts = np.array_split(a, 3, axis=0)
    parts[2][:, 1] = 77.0
    cp = np.copy(parts[0])
    cp[:] = 0.0
    dg = np.diag(a).copy()
    dg[0] = 1000.0
    top, bottom = np.split(np.arange(6), [2])
    bottom += 100
    return a, left, right, parts[1], cp, dg, top, bottom


def records_by_rows(np):
    """A table of records written row by row from Python lists of floats
    (one rounding, into float64 and float32), a row broadcast into a whole
    table by out=, a cap applied only where a flag is set by clip's where=,
    and an integer table filled from lists of ints."""
    log = np.zeros((5, 3))
    log32 = np.zeros((5, 3), dtype=np.float32)
    for k in range(5):
        t = k / 7
        log[k] = [t, t ** 2 / 3, 1 / (k + 3)]
        log32[k] = (t, t ** 2 / 3, 1 / (k + 3))
    log[[0, 4], 1:] = [[0.1, 0.2], [1 / 3, 2 / 3]]
    base = np.zeros((4, 3))
    np.add(log[1], 0.5, out=base)
    grid = np.empty((2, 4, 3))
    np.multiply(log[2], np.asarray([[1.0], [2.0], [3.0], [4.0]]), out=grid)
    flags = np.asarray([True, False, True])
    capped = np.full((5, 3), -1.0)
    np.clip(log, 0.05, 0.3, out=capped, where=flags)
    counts = np.zeros((2, 3), dtype=np.int64)
    counts[0] = [3, 1, 4]
    counts[1, :2] = (2 ** 40, -5)
    return log, log32, base, grid, capped, counts


# ---- structured scientific computations ---------------------------------------------------

def nbody_energy(np):
    """Kinetic and potential energy of six bodies: pairwise separations by
    broadcasting, self-distances made inf by fill_diagonal, the potential
    over the upper triangle, forces by summing unit vectors, and the virial."""
    x = np.asarray(BODIES)
    m = np.asarray(MASSES)
    v = np.roll(x, 1, axis=0) * 0.1
    d = x[:, None, :] - x[None, :, :]
    r = np.linalg.norm(d, axis=-1)
    np.fill_diagonal(r, np.inf)
    mm = m[:, None] * m[None, :]
    pot = -np.triu(mm / r, 1).sum()
    kin = 0.5 * (m * (v ** 2).sum(axis=1)).sum()
    F = -(mm[..., None] * d / r[..., None] ** 3).sum(axis=1)
    return pot, kin, F, F.sum(axis=0), np.einsum("ij,ij->", x, F), r.min(axis=1)


def implicit_heat(np):
    """An implicit (backward Euler) heat step by a tridiagonal matrix built
    with np.diag of offsets, solved for several steps, with the boundary
    held; the explicit step beside it and total heat."""
    n, lam = 12, 0.4
    u = np.exp(-((np.linspace(0, 1, n) - 0.5) ** 2) / 0.01)
    A = np.diag(np.full(n, 1 + 2 * lam)) + np.diag(np.full(n - 1, -lam), 1) + np.diag(np.full(n - 1, -lam), -1)
    A[0, :] = 0.0
    A[-1, :] = 0.0
    A[0, 0] = A[-1, -1] = 1.0
    ui = u.copy()
    ue = u.copy()
    for _ in range(5):
        ui = np.linalg.solve(A, ui)
        ue[1:-1] = ue[1:-1] + lam * (ue[2:] - 2 * ue[1:-1] + ue[:-2])
    return ui, ue, ui.sum(), np.abs(ui - ue).max(), np.linalg.cond(A)


def lennard_jones(np):
    """Lennard-Jones energy and forces on a small cluster: r^-6 and r^-12
    terms with the diagonal excluded by a mask, forces by the gradient
    formula, and the force balance."""
    x = np.asarray(BODIES) * 1.5
    d = x[:, None, :] - x[None, :, :]
    r2 = (d ** 2).sum(axis=-1)
    mask = ~np.eye(len(x), dtype=bool)
    inv6 = np.zeros_like(r2)
    inv6[mask] = 1.0 / r2[mask] ** 3
    e = 4 * (inv6 ** 2 - inv6)
    energy = 0.5 * e.sum()
    coef = np.zeros_like(r2)
    coef[mask] = 24 * (2 * inv6[mask] ** 2 - inv6[mask]) / r2[mask]
    F = (coef[..., None] * d).sum(axis=1)
    return energy, F, np.abs(F.sum(axis=0)).max() < 1e-8, e.max(), inv6[mask].shape


def spectral_derivative(np):
    """The derivative of a periodic function by the FFT: rfft, multiply by
    i k from rfftfreq, irfft back with n=, compared with the exact cosine;
    the power spectrum's peak and Parseval's identity."""
    n = 32
    x = np.linspace(0, 2 * np.pi, n, endpoint=False)
    f = np.sin(3 * x) + 0.5 * np.cos(5 * x)
    F = np.fft.rfft(f)
    k = np.fft.rfftfreq(n, d=1.0 / n)
    df = np.fft.irfft(1j * k * F, n=n)
    exact = 3 * np.cos(3 * x) - 2.5 * np.sin(5 * x)
    power = np.abs(F) ** 2
    full = np.fft.fft(f)
    return (np.abs(df - exact).max() < 1e-10, df, np.argsort(power)[-2:], k.dtype == np.float64,
            np.allclose((f ** 2).sum(), (np.abs(full) ** 2).sum() / n), F.dtype == np.complex128,
            df.dtype == np.float64)


def quadrature(np):
    """Simpson's rule by strided slices, composite trapezoid, Romberg's
    table built row by row in a 2-d array, and Gauss-Legendre nodes from
    np.polynomial, all on the same integral."""
    f = np.exp
    a, b = 0.0, 1.0
    x = np.linspace(a, b, 17)
    y = f(x)
    h = x[1] - x[0]
    simpson = h / 3 * (y[0] + 4 * y[1:-1:2].sum() + 2 * y[2:-1:2].sum() + y[-1])
    trap = np.trapezoid(y, x)
    R = np.zeros((5, 5))
    for i in range(5):
        n = 2 ** i
        xs = np.linspace(a, b, n + 1)
        R[i, 0] = np.trapezoid(f(xs), xs)
        for j in range(1, i + 1):
            R[i, j] = R[i, j - 1] + (R[i, j - 1] - R[i - 1, j - 1]) / (4 ** j - 1)
    nodes, w = np.polynomial.legendre.leggauss(5)
    gauss = (w * f(0.5 * (nodes + 1))).sum() * 0.5
    return simpson, trap, R, gauss, np.e - 1 - simpson


def weighted_regression(np):
    """Weighted least squares by the normal equations with a diagonal weight
    matrix, the covariance of the estimates by inv, standard errors, t
    statistics, R^2, and the same fit by lstsq on scaled rows."""
    x = np.asarray(XDATA)
    y = np.asarray(YDATA)
    w = np.asarray(WDATA)
    X = np.column_stack([np.ones_like(x), x])
    W = np.diag(w)
    XtWX = X.T @ W @ X
    beta = np.linalg.solve(XtWX, X.T @ W @ y)
    res = y - X @ beta
    sigma2 = (w * res ** 2).sum() / (len(y) - 2)
    cov = sigma2 * np.linalg.inv(XtWX)
    se = np.sqrt(np.diag(cov))
    sw = np.sqrt(w)
    beta2 = np.linalg.lstsq(X * sw[:, None], y * sw, rcond=None)[0]
    r2 = 1 - (w * res ** 2).sum() / (w * (y - np.average(y, weights=w)) ** 2).sum()
    return beta, se, beta / se, r2, beta2, cov


def leapfrog(np):
    """A damped-free harmonic oscillator by leapfrog (kick-drift-kick) in a
    state array updated through views, energy drift, and the period from
    zero crossings of the position."""
    dt, n = 0.05, 400
    state = np.zeros((n + 1, 2))
    state[0] = [1.0, 0.0]
    for k in range(n):
        x, v = state[k]
        v_half = float(v) - 0.5 * dt * float(x)
        x_new = float(x) + dt * v_half
        state[k + 1] = [x_new, v_half - 0.5 * dt * x_new]
    energy = 0.5 * (state ** 2).sum(axis=1)
    zc = np.flatnonzero(np.diff(np.signbit(state[:, 0])))
    period = 2 * np.diff(zc).mean() * dt
    return state[::50], energy.max() - energy.min(), zc, period


def newton_system(np):
    """Newton's method on a 2x2 nonlinear system with a finite-difference
    Jacobian built column by column, the step by solve, the iteration
    history and the residual norm."""
    def F(v):
        x, y = v[0], v[1]
        return np.asarray([x ** 2 + y ** 2 - 4.0, np.exp(x) + y - 1.0])

    v = np.asarray([1.0, -1.0])
    hist = [v.copy()]
    for _ in range(20):
        J = np.empty((2, 2))
        f0 = F(v)
        for j in range(2):
            e = np.zeros(2)
            e[j] = 1e-7
            J[:, j] = (F(v + e) - f0) / 1e-7
        step = np.linalg.solve(J, -f0)
        v = v + step
        hist.append(v.copy())
        if np.linalg.norm(step) < 1e-12:
            break
    return v, np.linalg.norm(F(v)) < 1e-9, np.stack(hist).shape[1], len(hist) < 20


# ---- string-free data pipelines ------------------------------------------------------------

def group_by(np):
    """Group-by on integer keys: a stable argsort, group starts by
    unique(return_index, return_counts), sums/maxima by add.reduceat and
    maximum.reduceat, means, and each row's rank within its group."""
    k = np.asarray(KEYS)
    v = np.asarray(VALS)
    order = np.argsort(k, kind="stable")
    ks, vs = k[order], v[order]
    keys, start, counts = np.unique(ks, return_index=True, return_counts=True)
    sums = np.add.reduceat(vs, start)
    maxs = np.maximum.reduceat(vs, start)
    means = sums / counts
    rank = np.arange(len(ks)) - np.repeat(start, counts)
    top = vs[start + counts - 1]
    return keys, start, counts, sums, maxs, means, rank, top, order


def table_join(np):
    """An inner join of two tables on integer keys by searchsorted into the
    sorted right keys, matches checked by take with clip, a left join's
    missing values filled by where, and intersect1d with indices."""
    left_k = np.asarray([3, 1, 4, 1, 5, 9, 2, 6])
    left_v = np.arange(8.0)
    right_k = np.asarray([1, 2, 3, 5, 8])
    right_v = np.asarray([10.0, 20.0, 30.0, 50.0, 80.0])
    pos = np.searchsorted(right_k, left_k)
    found = np.take(right_k, pos, mode="clip") == left_k
    joined = np.column_stack([left_k[found], left_v[found], right_v[pos[found]]])
    left_join = np.where(found, np.take(right_v, pos, mode="clip"), np.nan)
    common, li, ri = np.intersect1d(left_k, right_k, return_indices=True)
    return pos, found, joined, left_join, common, li, ri, np.isin(left_k, right_k, invert=True)


def pivot_table(np):
    """A pivot of values by two keys by add.at into a zero table, counts
    the same way, the mean with empty cells left NaN by errstate, row
    shares by keepdims division, and margins."""
    k1 = np.asarray(KEYS)
    k2 = np.asarray(KEYS2)
    v = np.asarray(VALS)
    tot = np.zeros((5, 3))
    cnt = np.zeros((5, 3), dtype=np.int64)
    np.add.at(tot, (k1, k2), v)
    np.add.at(cnt, (k1, k2), 1)
    with np.errstate(invalid="ignore", divide="ignore"):
        mean = tot / cnt
    share = tot / tot.sum(axis=1, keepdims=True)
    flat = np.bincount(k1 * 3 + k2, weights=v, minlength=15).reshape(5, 3)
    return tot, cnt, mean, share, tot.sum(axis=0), cnt.sum(), np.allclose(flat, tot), np.nanmax(mean, axis=1)


def winsorize(np):
    """Outlier handling: z-scores, values past 2 sigma flagged, the data
    clipped at its 5th and 95th percentiles, the interquartile fence, and
    a robust scale by the median absolute deviation."""
    x = np.asarray(SAMPLE)
    z = (x - x.mean()) / x.std(ddof=0)
    flagged = np.flatnonzero(np.abs(z) > 2)
    lo, hi = np.percentile(x, [5, 95])
    w = np.clip(x, lo, hi)
    q1, q3 = np.quantile(x, [0.25, 0.75])
    fence = (x < q1 - 1.5 * (q3 - q1)) | (x > q3 + 1.5 * (q3 - q1))
    mad = np.median(np.abs(x - np.median(x))) * 1.4826
    return z, flagged, w, w.mean(), fence, mad, np.sort(x)[-3:]


def confusion(np):
    """A confusion matrix by bincount of label * k + prediction, per-class
    precision/recall/F1 with 0/0 made 0 by where=, accuracy by the trace,
    and one-hot encodings by indexing an identity."""
    y = np.asarray(LABELS)
    p = np.asarray(PREDS)
    cm = np.bincount(y * 3 + p, minlength=9).reshape(3, 3)
    tp = np.diag(cm)
    prec = np.divide(tp, cm.sum(axis=0), out=np.zeros(3), where=cm.sum(axis=0) > 0)
    rec = np.divide(tp, cm.sum(axis=1), out=np.zeros(3), where=cm.sum(axis=1) > 0)
    f1 = np.divide(2 * prec * rec, prec + rec, out=np.zeros(3), where=(prec + rec) > 0)
    onehot = np.eye(3, dtype=np.int64)[y]
    return cm, tp, prec, rec, f1, np.trace(cm) / cm.sum(dtype=np.float64), onehot.sum(axis=0), onehot[:3]


def sessionize(np):
    """Sessions of events per user: a lexsort by user then time, gaps from
    diff, a new session where the user changes or the gap passes 500,
    session ids by cumsum, lengths by bincount and durations by reduceat."""
    t = np.asarray(STAMPS)
    u = np.asarray(USERS)
    order = np.lexsort((t, u))
    ts, us = t[order], u[order]
    new = np.ones(len(ts), dtype=bool)
    new[1:] = (us[1:] != us[:-1]) | (np.diff(ts) > 500)
    sid = np.cumsum(new) - 1
    lengths = np.bincount(sid)
    starts = np.flatnonzero(new)
    dur = np.maximum.reduceat(ts, starts) - np.minimum.reduceat(ts, starts)
    return order, sid, lengths, dur, dur.dtype == np.int64, us[starts]


# ---- the tests -------------------------------------------------------------------------

def test_image_stencils():
    _run(box_blur)
    _run(sobel_edges)
    _run(median_denoise)
    _run(morphology)
    _run(histogram_equalization)
    _run(integral_image)
    _run(label_components)


def test_finance_and_time_series():
    _run(drawdowns)
    _run(moving_averages)
    _run(crossings)
    _run(portfolio)
    _run(amortization)
    _run(integer_cents)


def test_geometry():
    _run(convex_hull)
    _run(point_in_polygon)
    _run(polygon_properties)
    _run(closest_pair)
    _run(rotations)
    _run(triangle_geometry)
    _run(segment_intersections)


def test_graphs():
    _run(bfs_levels)
    _run(pagerank)
    _run(shortest_paths)
    _run(clustering)
    _run(transitive_closure)
    _run(topological_order)
    _run(prim_tree)


def test_simulations():
    _run(first_passage)
    _run(sir_model)
    _run(option_pricing)
    _run(majority_automaton)
    _run(queue_simulation)
    _run(bootstrap)
    _run(generator_simulation)


def test_promotion_overflow_and_error_states():
    _run(weak_scalar_corners)
    _run(integer_wraparound)
    _run(error_states)


def test_out_where_keepdims_and_axes():
    _run(out_and_where)
    _run(reductions_where)
    _run(keepdims_and_axes)


def test_empty_zero_d_strided_and_broadcast():
    _run(empty_pipelines)
    _run(zero_d_pipelines)
    _run(non_contiguous_inputs)
    _run(broadcast_inputs)


def test_views_and_writes():
    _run(views_and_writes)
    _run(augmented_fancy_writes)
    _run(overlapping_assignments)
    _run(split_views)
    _run(records_by_rows)


def test_scientific_computations():
    _run(nbody_energy)
    _run(implicit_heat)
    _run(lennard_jones)
    _run(spectral_derivative)
    _run(quadrature)
    _run(weighted_regression)
    _run(leapfrog)
    _run(newton_system)


def test_data_pipelines():
    _run(group_by)
    _run(table_join)
    _run(pivot_table)
    _run(winsorize)
    _run(confusion)
    _run(sessionize)
