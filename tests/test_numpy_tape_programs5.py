"""NumPy programs on the tape, fifth round, in the manner of the first four
(tests/test_numpy_tape_programs.py, 2, 3 and 4): model code written once with
NumPy (and scipy.special, scipy.linalg) and called on torchlike tensors that
require grad; values, dtypes and shapes against NumPy on the detached data,
gradients against finite differences (gradcheck in float64).  Ground the
earlier rounds leave: losses of classification and segmentation (focal,
label smoothing, dice, InfoNCE, ordinal), normalisations and activations
(RMS norm, weight standardisation, mish), recurrent and filtering loops
written into buffers in place (an LSTM, an exponential moving average, a
Kalman filter, an AR likelihood), ODE integrators (RK4, leapfrog),
iterative linear algebra (power iteration, Newton-Schulz, conjugate
gradients, a Whittaker smoother), distances between samples (Wasserstein,
MMD, Chamfer), geometry (Rodrigues, quaternions, a pinhole camera, a circle
fit), graph layers, recommenders and embeddings with repeated indices,
finance and count models through scipy.special, scipy.linalg's LU and
triangular solves, and in-place writes through offset views whose base's
gradient is a slice of a larger one.

What they found, and is fixed:

- An in-place write through a view with a storage offset (``v = b[2:];
  v *= w``, ``b[1:][2:].mul_(w)``) gave the base a CopySlices node whose
  backward took
  the view's elements at the view's offset counted from the start of the
  incoming gradient's storage; a gradient that is itself a slice of a
  larger one (the base joined by np.concatenate or np.stack after a
  leading block) sent the view's leaf the gradient of other elements,
  silently.  The offset counts from the gradient's own first element now
  (src/grad/formulas_inplace.c).
- In-place writes through ``.real``/``.imag`` of a complex array
  (``z.imag[2:] *= w``) failed in backward ("setStorage: ... require a
  storage of at least 10 elements"): the real view's geometry counts the
  complex base's storage in real numbers, which CopySlices read as complex
  elements (and its relative offset mixed the two units).  The base is
  addressed as view_as_real's now, its gradient made complex again; a
  real view gone stale after such a write (rebuilt as an as_strided of its
  base) is read the same way (src/grad/formulas_inplace.c, formulas_shape.c,
  py_record.c).
- ``np.median`` (and nanmedian, quantile) of empty slices and
  ``np.resize`` of empty data, or to an empty shape, returned tensors off
  the tape: backward from them raised.  The NaN or the zeros are joined to
  the (empty) data now.
- ``np.pad`` with ``mode='empty'`` and with a callable mode were refused
  on a tensor that requires grad.  'empty' pads with zeros (NumPy leaves
  the border uninitialised); a callable runs NumPy's protocol, each 1-d
  line of the zero-padded tensor handed to it as a view it writes in
  place, which the tape records.
- ``np.einsum("", x)`` of a 0-d tensor returned ``x`` itself; einsum's
  result is always a new view now, as PyTorch's.
- ``torchlike.scipy.linalg`` had no ``lu_factor``/``lu_solve``; they are
  SciPy's (0-based int32 pivots, trans 0/1/2, batches), differentiable.
  ``solve_triangular`` took a right-hand side with one dimension fewer
  than ``a`` as a stack of vectors (and cho_solve of a batch and a vector
  failed); SciPy's rule (which lu_solve and cho_solve share)
  takes a vector only when ``b`` has one dimension, and broadcasts the
  batch of a matrix ``b`` against ``a``'s.
- ``np.hypot.accumulate`` on a tensor that requires grad is recorded (a
  left fold, one np.hypot per step), but with ``dtype=`` or ``out=`` (and so
  every binary ufunc's left fold: power, arctan2, remainder ...) it went to
  NumPy, which refused the tensor; the data are cast to dtype's loop and
  the result written into out now, as the scans do.  ``reduce`` with
  ``dtype=`` of the left folds and of hypot/logaddexp/logaddexp2 likewise.
- ``np.histogram``, ``histogram2d`` and ``histogramdd`` with weights that
  require grad, and ``np.roots`` and ``np.polydiv`` of coefficients that
  do, were refused (rounds one and two listed them: NumPy's code writes
  into ``np.zeros``).  The weights are summed into their bins by index_add
  on the tape (each value's bin read on the host by NumPy's rule), the
  companion matrix is built from the coefficients (its eigenvalues NumPy's
  eigvals'), and the long division stacks each quotient coefficient and
  updates the remainder out of place.
- scipy.special's distribution functions (``chdtr``/``chdtrc``,
  ``gdtr``/``gdtrc``, ``pdtr``/``pdtrc``, ``bdtr``/``bdtrc``,
  ``nbdtr``/``nbdtrc``, ``fdtr``/``fdtrc``, ``stdtr``) refused a tensor
  that requires grad; they are SciPy's identities over gammainc and
  betainc now, with SciPy's edges (NaN outside the domain, k < 0, k = n,
  x = inf, counts floored or truncated as SciPy's loops read them).
- A scipy.special function computed by SciPy on the host (gammainc,
  betainc, the Bessel functions ...) of a 0-d tensor returned shape (1,).

PyTorch's rules, kept by design: a loop that reads the step before back
from the buffer it writes (``y[t] = a * y[t - 1] + ...``, with ``a``
requiring grad) keeps ``y[t - 1]`` for ``a``'s gradient and then writes
the storage it views, so backward raises "modified by an inplace
operation" (the programs carry the running value in a name); likewise an
op that saves its output (np.exp, np.tanh) before a write into that
output; a ufunc's ``out=`` with an operand that requires grad is
PyTorch's refusal of out= (round two), so in-place arithmetic on views is
spelled ``v *= w``.
"""
import functools
import warnings

import numpy as np
import pytest
import scipy.linalg as sla
import scipy.special as sp

import torchlike as tl
import torchlike.scipy.linalg as tsla
from torchlike.autograd import gradcheck, gradgradcheck
from test_numpy_tape_programs import leaf, host, same_as_numpy

RNG = np.random.default_rng(55)


def logsumexp(a, axis=None, keepdims=False):
    """scipy.special.logsumexp written with NumPy (SciPy's own converts its
    input with np.asarray outside its array-API mode)."""
    m = np.max(a, axis=axis, keepdims=True)
    out = np.log(np.sum(np.exp(a - m), axis=axis, keepdims=True)) + m
    return out if keepdims else np.squeeze(out, axis=axis)


# ---- classification and segmentation losses ---------------------------------------------------

def focal_loss(logits, y=np.asarray([1.0, 0.0, 1.0, 1.0, 0.0, 0.0]), gamma=2.0, alpha=0.25):
    """Binary focal loss by scipy.special.expit and log_expit, the modulating
    factor by np.power."""
    p = sp.expit(logits)
    pt = np.where(y == 1, p, 1 - p)
    log_pt = np.where(y == 1, sp.log_expit(logits), sp.log_expit(-logits))
    w = np.where(y == 1, alpha, 1 - alpha)
    return -np.mean(w * np.power(1 - pt, gamma) * log_pt)


def label_smoothing_loss(logits, eps=0.1, y=np.asarray([2, 0, 1])):
    """Cross entropy with smoothed targets: the log-softmax by a
    logsumexp, the target term by np.take_along_axis."""
    logp = logits - logsumexp(logits, axis=1, keepdims=True)
    nll = -np.take_along_axis(logp, y[:, None], axis=1)[:, 0]
    return np.mean((1 - eps) * nll - eps * logp.mean(axis=1))


def dice_loss(logits, masks=(np.arange(2 * 3 * 4 * 4).reshape(2, 3, 4, 4) % 3 == 0) * 1.0):
    """Soft Dice over a batch of 3-class 4x4 masks, the class softmax by
    np.exp and sums over the spatial axes (a tuple axis)."""
    e = np.exp(logits - logits.max(axis=1, keepdims=True))
    p = e / e.sum(axis=1, keepdims=True)
    inter = np.sum(p * masks, axis=(2, 3))
    denom = np.sum(p, axis=(2, 3)) + np.sum(masks, axis=(2, 3))
    return 1 - np.mean((2 * inter + 1) / (denom + 1))


def info_nce(za, zb, log_tau):
    """InfoNCE between two views: cosine similarities by np.linalg.norm with
    keepdims, a learned temperature, the diagonal as the positives."""
    a = za / np.linalg.norm(za, axis=1, keepdims=True)
    b = zb / np.linalg.norm(zb, axis=1, keepdims=True)
    s = a @ b.T / np.exp(log_tau)
    return np.mean(logsumexp(s, axis=1) - np.diagonal(s))


def ordinal_regression(x, w, cut_raw, y=np.asarray([0, 2, 1, 3, 2])):
    """Cumulative-logit ordinal regression: ordered cut points by the
    cumulative sum of exponentials, class probabilities by np.diff of the
    padded cumulative probabilities."""
    cuts = cut_raw[0] + np.concatenate([[0.0], np.cumsum(np.exp(cut_raw[1:]))])
    cdf = sp.expit(cuts[None, :] - (x @ w)[:, None])
    probs = np.diff(np.pad(cdf, ((0, 0), (1, 1)), constant_values=(0.0, 1.0)), axis=1)
    return -np.sum(np.log(probs[np.arange(len(y)), y]))


def test_classification_and_segmentation_losses():
    same_as_numpy(focal_loss, RNG.standard_normal(6))
    same_as_numpy(label_smoothing_loss, RNG.standard_normal((3, 4)))
    same_as_numpy(dice_loss, RNG.standard_normal((2, 3, 4, 4)))
    same_as_numpy(info_nce, RNG.standard_normal((4, 3)), RNG.standard_normal((4, 3)),
                  np.log(0.5), rtol=1e-11)
    same_as_numpy(ordinal_regression, RNG.standard_normal((5, 2)), RNG.standard_normal(2),
                  np.asarray([-1.0, 0.0, 0.2]))


# ---- normalisations and activations ------------------------------------------------------------

def rms_norm_mish(x, g):
    """RMS normalisation, then mish (x tanh(softplus x)) with softplus by
    np.logaddexp(0, x), then swish by scipy.special.expit."""
    h = x / np.sqrt(np.mean(x ** 2, axis=-1, keepdims=True) + 1e-6) * g
    m = h * np.tanh(np.logaddexp(0, h))
    return m * sp.expit(m)


def weight_standardised_layer(W, x):
    """A layer whose weights are standardised per output row (np.std with
    ddof=1) before the product."""
    Ws = (W - W.mean(axis=1, keepdims=True)) / np.std(W, axis=1, ddof=1, keepdims=True)
    return np.maximum(x @ Ws.T, 0.01 * (x @ Ws.T))


def test_normalisations_and_activations():
    same_as_numpy(rms_norm_mish, RNG.standard_normal((3, 5)), 1 + 0.1 * RNG.standard_normal(5))
    same_as_numpy(weight_standardised_layer, RNG.standard_normal((4, 5)),
                  RNG.standard_normal((3, 5)), rtol=1e-11)


# ---- loops written into buffers in place -------------------------------------------------------

def lstm(xs, W, U, b):
    """An LSTM over a sequence, its gates from one product split in four;
    the hidden states written row by row into np.zeros_like's buffer."""
    T, n = xs.shape[0], U.shape[0]
    h = np.zeros(n)
    c = np.zeros(n)
    out = np.zeros_like(xs[:, :1]) * np.zeros(n)   # (T, n), a tensor on the tape or not
    for t in range(T):
        i, f, g, o = np.split(xs[t] @ W + h @ U + b, 4)
        c = sp.expit(f) * c + sp.expit(i) * np.tanh(g)
        h = sp.expit(o) * np.tanh(c)
        out[t] = h
    return out


def ema_filter(x, logit_a, read_back=False):
    """An exponential moving average written in place into np.empty_like's
    buffer, element by element.  Reading the step before back from the
    buffer (read_back) keeps y[t - 1] for a's gradient and then writes the
    buffer it views: PyTorch's "modified by an inplace operation", views
    sharing their base's version."""
    a = sp.expit(logit_a)
    y = np.empty_like(x)
    y[0] = prev = x[0]
    for t in range(1, len(x)):
        prev = a * (y[t - 1] if read_back else prev) + (1 - a) * x[t]
        y[t] = prev
    return y


def kalman_filter(obs, log_q, log_r):
    """A scalar random-walk Kalman filter: the log-likelihood of the
    observations, the filtered means written into a buffer."""
    q, r = np.exp(log_q), np.exp(log_r)
    m, P = obs[0] * 0.0, 1.0 + 0.0 * q
    means = np.zeros_like(obs)
    ll = 0.0
    for t in range(len(obs)):
        P = P + q
        S = P + r
        ll = ll - 0.5 * (np.log(2 * np.pi * S) + (obs[t] - m) ** 2 / S)
        K = P / S
        m = m + K * (obs[t] - m)
        P = (1 - K) * P
        means[t] = m
    return np.concatenate([[ll], means])


def ar2_likelihood(x, phi, log_sigma):
    """An AR(2) Gaussian likelihood by slices of the series: each value
    predicted from the two before it."""
    resid = x[2:] - phi[0] * x[1:-1] - phi[1] * x[:-2]
    s2 = np.exp(2 * log_sigma)
    return -0.5 * np.sum(resid ** 2) / s2 - (len(x) - 2) * (log_sigma + 0.5 * np.log(2 * np.pi))


def test_loops_written_into_buffers_in_place():
    _, n = 3, 2
    same_as_numpy(lstm, RNG.standard_normal((4, 3)), 0.5 * RNG.standard_normal((3, 4 * n)),
                  0.5 * RNG.standard_normal((n, 4 * n)), 0.1 * RNG.standard_normal(4 * n))
    same_as_numpy(ema_filter, RNG.standard_normal(6), 0.3)
    y = ema_filter(leaf(RNG.standard_normal(6)), leaf(0.3), read_back=True)
    with pytest.raises(RuntimeError, match="modified by an inplace operation"):
        y.sum().backward()
    same_as_numpy(kalman_filter, np.cumsum(RNG.standard_normal(6)), np.log(0.5), np.log(0.2),
                  rtol=1e-11)
    same_as_numpy(ar2_likelihood, np.cumsum(RNG.standard_normal(9)), np.asarray([0.5, 0.2]),
                  np.log(0.8))


# ---- integrators and iterative linear algebra --------------------------------------------------

def rk4_pendulum(state, log_k, damping, h=0.1, steps=5):
    """A damped pendulum integrated by the classical Runge-Kutta method, the
    trajectory stacked."""
    k = np.exp(log_k)

    def f(s):
        return np.stack([s[1], -k * np.sin(s[0]) - damping * s[1]])

    traj = [state]
    for _ in range(steps):
        s = traj[-1]
        k1 = f(s)
        k2 = f(s + h / 2 * k1)
        k3 = f(s + h / 2 * k2)
        k4 = f(s + h * k3)
        traj.append(s + h / 6 * (k1 + 2 * k2 + 2 * k3 + k4))
    return np.stack(traj)


def leapfrog(q, p, masses, h=0.05, steps=4):
    """Leapfrog steps of particles joined by springs (np.diff of positions)
    with learned masses; the total energy at the end."""
    def force(q):
        stretch = np.diff(q) - 1.0
        return np.concatenate([[0.0], stretch]) - np.concatenate([stretch, [0.0]])

    p = p + h / 2 * force(q)
    for _ in range(steps):
        q = q + h * p / masses
        p = p + h * force(q)
    p = p - h / 2 * force(q)
    energy = np.sum(p ** 2 / (2 * masses)) + 0.5 * np.sum((np.diff(q) - 1) ** 2)
    return np.concatenate([q, p, [energy]])


def spectral_normalised(W, u0, iters=3):
    """Spectral normalisation by power iteration (np.linalg.norm, matrix
    products), beside np.linalg.norm(ord=2)'s exact value."""
    u = u0
    for _ in range(iters):
        v = W.T @ u
        v = v / np.linalg.norm(v)
        u = W @ v
        u = u / np.linalg.norm(u)
    sigma = u @ W @ v
    return np.concatenate([(W / sigma).ravel(), [sigma - np.linalg.norm(W, ord=2)]])


def newton_schulz_inverse_sqrt(A, iters=6):
    """The inverse square root of an SPD matrix by coupled Newton-Schulz
    iterations on the trace-scaled matrix."""
    S = A @ A.T + 3 * np.eye(A.shape[0])
    c = np.trace(S)
    Y, Z = S / c, np.eye(A.shape[0])
    for _ in range(iters):
        T = 0.5 * (3 * np.eye(A.shape[0]) - Z @ Y)
        Y, Z = Y @ T, T @ Z
    return Z / np.sqrt(c)


def conjugate_gradients(A, b, iters=4):
    """Conjugate gradients on an SPD system (np.dot, np.vdot), exact after n
    steps, beside np.linalg.solve."""
    S = A @ A.T + np.eye(len(b))
    x = np.zeros_like(b)
    r = b - S @ x
    p = r
    for _ in range(iters):
        Sp = S @ p
        alpha = np.vdot(r, r) / np.dot(p, Sp)
        x = x + alpha * p
        r_new = r - alpha * Sp
        p = r_new + np.vdot(r_new, r_new) / np.vdot(r, r) * p
        r = r_new
    return np.concatenate([x, np.linalg.solve(S, b)])


def whittaker_smoother(y, log_lam):
    """The Whittaker smoother: (I + lam D^T D) z = y with D the second
    differences of np.eye (np.diff(n=2, axis=0))."""
    n = len(y)
    D = np.diff(np.eye(n), n=2, axis=0)
    return np.linalg.solve(np.eye(n) + np.exp(log_lam) * D.T @ D, y)


def test_integrators_and_iterative_linear_algebra():
    same_as_numpy(rk4_pendulum, np.asarray([0.8, 0.0]), np.log(2.0), 0.3)
    same_as_numpy(leapfrog, np.arange(4.0) + 0.1 * RNG.standard_normal(4),
                  0.2 * RNG.standard_normal(4), 1 + 0.2 * RNG.random(4))
    got, _ = same_as_numpy(spectral_normalised, RNG.standard_normal((3, 4)),
                           RNG.standard_normal(3), rtol=1e-10)
    same_as_numpy(newton_schulz_inverse_sqrt, 0.5 * RNG.standard_normal((3, 3)), rtol=1e-10)
    got, _ = same_as_numpy(conjugate_gradients, RNG.standard_normal((4, 4)),
                           RNG.standard_normal(4), rtol=1e-9)
    np.testing.assert_allclose(host(got)[:4], host(got)[4:], rtol=1e-8)
    same_as_numpy(whittaker_smoother, RNG.standard_normal(7), np.log(2.0), rtol=1e-10)


# ---- distances between samples -----------------------------------------------------------------

def wasserstein_1d(x, y):
    """The 1-Wasserstein distance of equal-size samples: sorted differences."""
    return np.mean(np.abs(np.sort(x) - np.sort(y)))


def mmd_rbf(X, Y, log_bw):
    """Maximum mean discrepancy with an RBF kernel, squared distances by
    broadcasting and np.einsum."""
    def k(A, B):
        d = A[:, None, :] - B[None, :, :]
        return np.exp(-np.einsum("ijk,ijk->ij", d, d) / (2 * np.exp(2 * log_bw)))
    return k(X, X).mean() + k(Y, Y).mean() - 2 * k(X, Y).mean()


def chamfer(P, Q):
    """The Chamfer distance between point clouds: the nearest neighbour in
    each direction by np.min over np.linalg.norm of the differences."""
    d = np.linalg.norm(P[:, None, :] - Q[None, :, :], axis=-1)
    return np.mean(np.min(d, axis=1)) + np.mean(np.min(d, axis=0))


def test_distances_between_samples():
    same_as_numpy(wasserstein_1d, RNG.standard_normal(7), RNG.standard_normal(7))
    same_as_numpy(mmd_rbf, RNG.standard_normal((4, 2)), RNG.standard_normal((3, 2)) + 0.5,
                  np.log(0.8))
    same_as_numpy(chamfer, RNG.standard_normal((4, 3)), RNG.standard_normal((5, 3)))


# ---- geometry ----------------------------------------------------------------------------------

def rodrigues(axis_angle, points):
    """Rotation by Rodrigues' formula from an axis-angle vector (np.cross's
    skew matrix by np.cross with the identity's rows, np.outer)."""
    theta = np.linalg.norm(axis_angle)
    k = axis_angle / theta
    K = np.cross(np.eye(3), k)
    R = np.cos(theta) * np.eye(3) + np.sin(theta) * K.T + (1 - np.cos(theta)) * np.outer(k, k)
    return np.concatenate([(points @ R.T).ravel(), [np.linalg.det(R)]])


def quaternion_rotate(q, v):
    """Unit quaternions by np.linalg.norm; v rotated as q v q*, the Hamilton
    product written with np.cross and np.dot."""
    q = q / np.linalg.norm(q)
    w, u = q[0], q[1:]
    return 2 * np.dot(u, v) * u + (w * w - np.dot(u, u)) * v + 2 * w * np.cross(u, v)


def pinhole_projection(X, log_f, c):
    """Points projected by a pinhole camera (focal length and principal
    point learned, K by np.diag and np.outer of np.append's vector):
    homogeneous coordinates by np.hstack with ones, the division by depth."""
    K = np.exp(log_f) * np.diag([1.0, 1.0, 0.0]) + np.outer(np.append(c, 1.0), [0.0, 0.0, 1.0])
    M = np.hstack([K, (K @ np.asarray([0.1, -0.1, 0.5]))[:, None]])   # K [I | t]
    P = np.hstack([X, np.ones((len(X), 1))]) @ M.T
    return P[:, :2] / P[:, 2:]


def circle_fit(xy):
    """The algebraic (Kasa) circle fit by np.linalg.lstsq of
    x^2 + y^2 = 2 a x + 2 b y + c: the centre and the radius."""
    A = np.column_stack([2 * xy[:, 0], 2 * xy[:, 1], np.ones(len(xy))])
    sol = np.linalg.lstsq(A, np.sum(xy ** 2, axis=1), rcond=None)[0]
    return np.concatenate([sol[:2], [np.sqrt(sol[2] + sol[0] ** 2 + sol[1] ** 2)]])


def test_geometry():
    same_as_numpy(rodrigues, np.asarray([0.3, -0.2, 0.5]), RNG.standard_normal((4, 3)))
    same_as_numpy(quaternion_rotate, RNG.standard_normal(4), RNG.standard_normal(3))
    same_as_numpy(pinhole_projection, RNG.standard_normal((4, 3)) + [0, 0, 5], np.log(2.0),
                  np.asarray([0.1, -0.2]))
    t = np.linspace(0, 2 * np.pi, 7, endpoint=False)
    pts = np.stack([1 + 2 * np.cos(t), -1 + 2 * np.sin(t)], 1) + 0.05 * RNG.standard_normal((7, 2))
    same_as_numpy(circle_fit, pts, rtol=1e-10)


# ---- graphs, recommenders, embeddings ----------------------------------------------------------

EDGES = np.asarray([[0, 1], [1, 2], [2, 0], [2, 3], [3, 4], [4, 0]])


def graph_convolution(X, W):
    """A GCN layer: symmetric normalisation D^-1/2 (A + I) D^-1/2 built by
    np.add.at on an adjacency buffer, np.diag and a power of the degrees."""
    n = len(X)
    A = np.eye(n)
    np.add.at(A, (EDGES[:, 0], EDGES[:, 1]), 1.0)
    np.add.at(A, (EDGES[:, 1], EDGES[:, 0]), 1.0)
    d = A.sum(axis=1) ** -0.5
    return np.tanh(np.diag(d) @ A @ np.diag(d) @ X @ W)


def message_passing(X, w_edge):
    """Messages along edges weighted by learned edge weights, summed into
    their targets by np.add.at into a zeros_like buffer, and a segment mean
    by np.bincount's counts."""
    msgs = X[EDGES[:, 0]] * w_edge[:, None]
    agg = np.zeros_like(X)
    np.add.at(agg, EDGES[:, 1], msgs)
    return agg / np.maximum(np.bincount(EDGES[:, 1], minlength=len(X)), 1)[:, None] + X


USERS, ITEMS = np.asarray([0, 1, 1, 2, 0, 2, 2]), np.asarray([1, 0, 2, 2, 1, 0, 1])


def matrix_factorisation(U, V, bu, bi, r=np.asarray([4.0, 2.0, 5.0, 3.0, 4.5, 1.0, 2.0])):
    """A biased matrix-factorisation recommender: rows gathered by repeated
    fancy indices (user 0 and item 1 twice), an L2 penalty."""
    pred = np.sum(U[USERS] * V[ITEMS], axis=1) + bu[USERS] + bi[ITEMS]
    return np.mean((pred - r) ** 2) + 0.01 * (np.sum(U ** 2) + np.sum(V ** 2))


def skip_gram_negative_sampling(E_in, E_out):
    """Word2vec's skip-gram loss with negative samples: np.einsum of
    gathered embeddings, scipy.special.log_expit."""
    centres, contexts = np.asarray([0, 1, 2, 1]), np.asarray([1, 2, 3, 0])
    negatives = np.asarray([[3, 2], [0, 3], [1, 0], [2, 3]])
    pos = np.einsum("ij,ij->i", E_in[centres], E_out[contexts])
    neg = np.einsum("ij,ikj->ik", E_in[centres], E_out[negatives])
    return -np.mean(sp.log_expit(pos) + np.sum(sp.log_expit(-neg), axis=1))


def test_graphs_recommenders_and_embeddings():
    same_as_numpy(graph_convolution, RNG.standard_normal((5, 3)), RNG.standard_normal((3, 2)))
    same_as_numpy(message_passing, RNG.standard_normal((5, 3)), RNG.random(6))
    same_as_numpy(matrix_factorisation, RNG.standard_normal((3, 2)), RNG.standard_normal((3, 2)),
                  RNG.standard_normal(3), RNG.standard_normal(3))
    same_as_numpy(skip_gram_negative_sampling, 0.5 * RNG.standard_normal((4, 3)),
                  0.5 * RNG.standard_normal((4, 3)))


# ---- finance, count and survival models by scipy.special --------------------------------------

def black_scholes(S, K, log_vol, r=0.02, T=0.75):
    """European call and put prices by scipy.special.ndtr; the gradient in
    log-volatility is vega's."""
    vol = np.exp(log_vol)
    d1 = (np.log(S / K) + (r + vol ** 2 / 2) * T) / (vol * np.sqrt(T))
    d2 = d1 - vol * np.sqrt(T)
    call = S * sp.ndtr(d1) - K * np.exp(-r * T) * sp.ndtr(d2)
    put = K * np.exp(-r * T) * sp.ndtr(-d2) - S * sp.ndtr(-d1)
    return np.stack([call, put])


def poisson_and_negative_binomial(X, w, log_alpha, y=np.asarray([0.0, 3.0, 1.0, 7.0, 2.0])):
    """Poisson and negative-binomial log-likelihoods of counts (gammaln,
    xlogy) with a log link."""
    mu = np.exp(X @ w)
    pois = np.sum(sp.xlogy(y, mu) - mu - sp.gammaln(y + 1))
    a = np.exp(log_alpha)
    nb = np.sum(sp.gammaln(y + 1 / a) - sp.gammaln(1 / a) - sp.gammaln(y + 1)
                - (1 / a) * np.log1p(a * mu) + sp.xlogy(y, a * mu / (1 + a * mu)))
    return np.stack([pois, nb])


def beta_binomial(log_a, log_b, k=np.asarray([2.0, 5.0, 0.0, 9.0]), n=10.0):
    """The beta-binomial log-likelihood by scipy.special.betaln and gammaln."""
    a, b = np.exp(log_a), np.exp(log_b)
    return np.sum(sp.gammaln(n + 1) - sp.gammaln(k + 1) - sp.gammaln(n - k + 1)
                  + sp.betaln(k + a, n - k + b) - sp.betaln(a, b))


def weibull_survival(log_k, log_lam, t=np.asarray([0.5, 1.2, 2.0, 3.1]),
                     event=np.asarray([1.0, 0.0, 1.0, 1.0])):
    """A censored Weibull likelihood: the log-hazard where the event was
    seen, the cumulative hazard everywhere (np.power of a learned shape)."""
    k, lam = np.exp(log_k), np.exp(log_lam)
    log_h = np.log(k) - np.log(lam) + (k - 1) * (np.log(t) - np.log(lam))
    return np.sum(event * log_h - np.power(t / lam, k))


def test_finance_count_and_survival_models():
    same_as_numpy(black_scholes, np.asarray([90.0, 100.0, 110.0]), np.asarray([100.0, 95.0, 120.0]),
                  np.log(np.asarray([0.2, 0.3, 0.25])), rtol=1e-10)
    same_as_numpy(poisson_and_negative_binomial, RNG.standard_normal((5, 2)),
                  0.3 * RNG.standard_normal(2), np.log(0.5), rtol=1e-11)
    same_as_numpy(beta_binomial, np.log(2.0), np.log(3.0), rtol=1e-11)
    same_as_numpy(weibull_survival, np.log(1.5), np.log(2.0))


# ---- feature maps, attention, pooling ----------------------------------------------------------

def random_fourier_regression(X, W, b, theta):
    """Random Fourier features cos(X W + b) with learned frequencies and
    phases, a ridge readout."""
    Z = np.sqrt(2.0 / W.shape[1]) * np.cos(X @ W + b)
    return Z @ theta


def linear_attention(Q, K, V):
    """Linear attention with the elu + 1 feature map (np.where with
    np.expm1), normalised by the running sums of np.cumsum (causal)."""
    phi_q = np.where(Q > 0, Q + 1, np.exp(Q))
    phi_k = np.where(K > 0, K + 1, np.exp(K))
    kv = np.cumsum(np.einsum("tk,tv->tkv", phi_k, V), axis=0)
    z = np.cumsum(phi_k, axis=0)
    return np.einsum("tk,tkv->tv", phi_q, kv) / np.einsum("tk,tk->t", phi_q, z)[:, None]


def max_pool_unpool(x):
    """2x2 max pooling by reshape and max, unpooled by np.repeat twice and
    gated by where the input equals its pool's maximum."""
    H, W = x.shape
    pooled = x.reshape(H // 2, 2, W // 2, 2).max(axis=(1, 3))
    up = np.repeat(np.repeat(pooled, 2, axis=0), 2, axis=1)
    return np.concatenate([pooled.ravel(), np.where(x == up, x, 0.0).ravel()])


def bilinear_resize(img, scale=1.5):
    """Bilinear resizing: floor and clipped integer coordinates, the four
    neighbours by fancy indices, weights from the fractional parts."""
    H, W = img.shape
    ys = np.linspace(0, H - 1, int(H * scale))
    xs = np.linspace(0, W - 1, int(W * scale))
    y0 = np.clip(np.floor(ys).astype(np.int64), 0, H - 2)
    x0 = np.clip(np.floor(xs).astype(np.int64), 0, W - 2)
    wy, wx = (ys - y0)[:, None], (xs - x0)[None, :]
    Ia, Ib = img[y0][:, x0], img[y0][:, x0 + 1]
    Ic, Id = img[y0 + 1][:, x0], img[y0 + 1][:, x0 + 1]
    return (1 - wy) * ((1 - wx) * Ia + wx * Ib) + wy * ((1 - wx) * Ic + wx * Id)


def positional_encoding(x, log_base):
    """Sinusoidal position encodings with a learned base, interleaved sines
    and cosines by np.stack and reshape, added to the input."""
    T, d = x.shape
    freq = np.exp(-np.arange(0, d, 2) / d * log_base)
    ang = np.arange(T)[:, None] * freq[None, :]
    return x + np.stack([np.sin(ang), np.cos(ang)], axis=-1).reshape(T, d)


def test_feature_maps_attention_and_pooling():
    same_as_numpy(random_fourier_regression, RNG.standard_normal((4, 2)),
                  RNG.standard_normal((2, 5)), RNG.uniform(0, 2 * np.pi, 5),
                  RNG.standard_normal(5))
    same_as_numpy(linear_attention, RNG.standard_normal((5, 3)), RNG.standard_normal((5, 3)),
                  RNG.standard_normal((5, 2)))
    same_as_numpy(max_pool_unpool, RNG.standard_normal((4, 6)))
    same_as_numpy(bilinear_resize, RNG.standard_normal((4, 5)))
    same_as_numpy(positional_encoding, RNG.standard_normal((5, 4)), np.log(100.0))


# ---- in-place writes through offset views ------------------------------------------------------
# Each writes through a view that starts past its base's first element, and
# the base's gradient arrives as a slice of a larger one (the base joined
# after a leading block): the gradient of the view's elements must be read
# at the view's offset inside that slice, not inside its storage.

def scale_tail(x, w):
    """A tail scaled in place through a view of a view (b[1:][2:])."""
    b = x * 1.0
    v = b[1:][2:]
    v *= w
    return np.concatenate([w, b])


def gated_block(x, w):
    """A 2-d block gated by a sine, the base stacked after x."""
    b = x * 1.0
    block = b[1:, 1:]
    block *= np.sin(w)
    return np.stack([x, b])


def strided_update(x, w):
    """Every other element from the second updated, joined after w by
    np.hstack."""
    b = np.cumsum(x)
    odd = b[1::2]
    odd += w ** 2
    return np.hstack([w, b])


def reversed_update(x, w):
    """A reversed, strided view written by subtraction, joined by np.append."""
    b = x * 2.0
    rev = b[-2::-2]
    rev -= w
    return np.append(w, b)


def overlapping_windows(x, w):
    """Two writes in a row through overlapping offset views (the second
    spelled with setitem, which NumPy code mixes freely)."""
    b = x * 1.0
    middle = b[2:5]
    middle *= w
    b[4:] -= w ** 2
    return np.concatenate([w, b, w])


def column_write(x, w):
    """A column below the first row written through a view of a row block;
    the base is the second block of np.vstack."""
    b = x + 0.5
    rows = b[1:]
    rows[:, 2] *= w
    return np.vstack([x[:1], b])


def transposed_base(x, w):
    """A base that is a transpose (not contiguous), written through an
    offset block and joined after w."""
    b = (x * 1.0).T
    block = b[1:, 1:]
    block *= w
    return np.concatenate([w.ravel(), b.ravel()])


def blocked_assembly(x, w):
    """An offset block assigned whole (b[1:3, 1:] = w), then the base in
    np.block's lower right."""
    b = x * 1.0
    b[1:3, 1:] = w
    return np.block([[w, np.zeros((2, 3))], [np.zeros((4, 2)), b]])


OFFSET_VIEW_WRITES = {
    "scale_tail": (scale_tail, [(8,), (5,)]),
    "gated_block": (gated_block, [(3, 4), (2, 3)]),
    "strided_update": (strided_update, [(8,), (4,)]),
    "reversed_update": (reversed_update, [(8,), (4,)]),
    "overlapping_windows": (overlapping_windows, [(7,), (3,)]),
    "column_write": (column_write, [(4, 3), (3,)]),
    "transposed_base": (transposed_base, [(3, 4), (3, 2)]),
    "blocked_assembly": (blocked_assembly, [(4, 3), (2, 2)]),
}


@pytest.mark.parametrize("name", sorted(OFFSET_VIEW_WRITES))
def test_in_place_writes_through_offset_views(name):
    f, shapes = OFFSET_VIEW_WRITES[name]
    rng = np.random.default_rng(len(name))
    arrays = [rng.standard_normal(s) for s in shapes]
    same_as_numpy(f, *arrays)
    assert gradgradcheck(f, [leaf(a) for a in arrays])


def test_offset_view_write_gets_the_gradient_of_its_own_elements():
    """The smallest case, by hand: b = x; v = b[2:]; v *= w; y =
    concatenate([w, b]).  dy/dx is 1 before the view and w inside it; dy/dw
    is its own block plus x inside the view.  The view's elements were read
    four places too early (the offset of b's gradient inside y's)."""
    x, w = leaf(np.arange(1.0, 7.0)), leaf(np.arange(2.0, 6.0))
    b = x * 1.0
    v = b[2:]
    v *= w
    y = np.concatenate([w, b])
    g = np.arange(10.0)
    y.backward(tl.tensor(g))
    np.testing.assert_array_equal(host(x.grad), np.concatenate([g[4:6], g[6:] * host(w)]))
    np.testing.assert_array_equal(host(w.grad), g[:4] + g[6:] * host(x)[2:])
    # and a gradient handed in as a slice of a larger tensor
    x.grad = None
    b = x * 1.0
    b[3:].mul_(2.0)
    big = tl.tensor(np.arange(20.0))
    b.backward(big[7:13])
    np.testing.assert_array_equal(host(x.grad), np.arange(7.0, 13.0) * [1, 1, 1, 2, 2, 2])


# ---- in-place writes through .real and .imag of complex arrays --------------------------------
# A real view of a complex base counts the base's storage in real numbers,
# two per element: its writes (CopySlices) and a stale view rebuilt over its
# base after a write (as_strided) address the base as view_as_real's.

def imag_block_written(x, w):
    """A complex signal whose imaginary tail is scaled in place."""
    z = x * (1 + 1j)
    tail = z.imag[2:]
    tail *= w
    return np.concatenate([w, np.abs(z)])


def imag_set_whole(x, w):
    """The imaginary part assigned whole, the base joined after its own
    head before an FFT."""
    z = x.astype(np.complex128)
    zi = z.imag
    zi[:] = w
    return np.abs(np.fft.fft(np.concatenate([z[:2], z])))


def real_of_reversed(x, w):
    """The real part of a reversed view, shifted in place."""
    z = x * (0.5 + 2j)
    r = z[::-1].real
    r[1:] -= w
    return np.concatenate([w, np.angle(z)])


def imag_item_augmented(x, w):
    """``z.imag[2:] *= w`` through a view held in a name: Python's
    augmented item assignment writes the product back over itself, after
    the other view (zi) went stale."""
    z = x * (1 + 1j)
    zi = z.imag
    zi[2:] *= w
    return np.concatenate([w, z.real, z.imag])


def stale_real_view(x, w):
    """A view of the imaginary part taken before the base is doubled in
    place, read after it."""
    z = x * (1 + 1j)
    zi = z.imag
    z *= 2
    return np.concatenate([zi * w, np.abs(z)])


def transposed_complex_block(x, w):
    """A transposed (non-contiguous) complex base whose imaginary block is
    written."""
    z = (x * (1 - 1j)).T
    block = z.imag[1:, 1:]
    block *= w
    return np.concatenate([w.ravel(), z.real.ravel(), z.imag.ravel()])


def both_parts_in_turn(x, w):
    """The real part of a slice, then every other imaginary part."""
    z = x * 1j
    zr, zi = z.real, z.imag
    zr[1:3] += w[:2]
    zi[::2] *= w
    return np.concatenate([np.abs(z) ** 2, w])


COMPLEX_PART_WRITES = {
    "imag_block_written": (imag_block_written, [(5,), (3,)]),
    "imag_set_whole": (imag_set_whole, [(4,), (4,)]),
    "real_of_reversed": (real_of_reversed, [(5,), (4,)]),
    "imag_item_augmented": (imag_item_augmented, [(5,), (3,)]),
    "stale_real_view": (stale_real_view, [(5,), (5,)]),
    "transposed_complex_block": (transposed_complex_block, [(3, 4), (3, 2)]),
    "both_parts_in_turn": (both_parts_in_turn, [(5,), (3,)]),
}


@pytest.mark.parametrize("name", sorted(COMPLEX_PART_WRITES))
def test_in_place_writes_through_real_and_imaginary_parts(name):
    f, shapes = COMPLEX_PART_WRITES[name]
    rng = np.random.default_rng(len(name))
    arrays = [rng.standard_normal(s) for s in shapes]
    same_as_numpy(f, *arrays)
    assert gradgradcheck(f, [leaf(a) for a in arrays])
    # complex64 bases (float32 parts) keep float32 gradients
    got, leaves = same_as_numpy(f, *arrays, dtype=np.float32, rtol=2e-5, atol=2e-6)
    got.sum().backward()
    assert all(t.grad.dtype == tl.float32 for t in leaves)


# ---- empty data, 0-d einsum, ufunc scans -------------------------------------------------------

EMPTY_ON_THE_TAPE = {
    "median": (lambda a: np.median(a), (0,)),
    "median_axis": (lambda a: np.median(a, axis=1), (2, 0)),
    "median_keepdims": (lambda a: np.median(a, axis=0, keepdims=True), (0, 3)),
    "nanmedian": (lambda a: np.nanmedian(a, axis=1), (3, 0)),
    "resize_empty_data": (lambda a: np.resize(a, (2, 3)), (0,)),
    "resize_to_empty": (lambda a: np.resize(a, (0, 2)), (3,)),
    "resize_empty_rows": (lambda a: np.resize(a, 4), (2, 0)),
}


@pytest.mark.parametrize("name", sorted(EMPTY_ON_THE_TAPE))
def test_empty_data_stays_on_the_tape(name):
    """NumPy's values (NaN for the median of nothing, zeros for resize of
    nothing), a recorded result, and a gradient of the leaf's shape."""
    f, shape = EMPTY_ON_THE_TAPE[name]
    a = np.zeros(shape) if 0 in shape else RNG.standard_normal(shape)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)   # NumPy's mean of an empty slice
        got, (t,) = same_as_numpy(f, a, grad=False)
    got.sum().backward()
    assert tuple(t.grad.shape) == a.shape
    if a.size:
        np.testing.assert_array_equal(host(t.grad), 0)


def test_einsum_of_a_0d_operand_is_a_new_view():
    z = leaf(1.5)
    for spec in ("", "->"):
        r = np.einsum(spec, z)
        assert r is not z and r.grad_fn is not None and host(r) == np.einsum(spec, 1.5)
    same_as_numpy(lambda a: np.einsum("", a) * np.einsum(",->", a, a), 0.7)


def test_hypot_accumulate_is_recorded():
    """np.hypot.accumulate: a running Euclidean length, along either axis."""
    a = RNG.standard_normal((3, 4))
    same_as_numpy(lambda x: np.hypot.accumulate(x), a)
    same_as_numpy(lambda x: np.hypot.accumulate(x, axis=1)[:, -1]
                  - np.linalg.norm(x, axis=1), a, atol=1e-12)
    same_as_numpy(lambda x: np.hypot.accumulate(x), a[0], dtype=np.float32, rtol=1e-6)
    # dtype= runs the fold in that dtype's loop, out= is written (both went
    # to NumPy, which refused the tensor)
    same_as_numpy(lambda x: np.hypot.accumulate(x, axis=1, dtype=np.float64), a,
                  dtype=np.float32, rtol=1e-12)
    same_as_numpy(lambda x: np.hypot.accumulate(x, axis=1, dtype=np.float64), a)
    t = leaf(a)
    out = tl.zeros((3, 4), dtype=tl.float64)
    assert np.hypot.accumulate(t, out=out) is out and out.grad_fn is not None
    np.testing.assert_allclose(host(out), np.hypot.accumulate(a), rtol=1e-12)
    assert gradcheck(lambda x: np.hypot.accumulate(x, out=tl.zeros((3, 4), dtype=tl.float64)),
                     [t])
    with pytest.raises(RuntimeError, match="out= is a NumPy array"):
        np.hypot.accumulate(t, out=np.zeros((3, 4)))
    with pytest.raises(TypeError, match="numpy.hypot.accumulate"):
        np.hypot.accumulate(t, dtype=np.int64)   # no integer loop: NumPy's TypeError, by name
    # and reduce with dtype=: the norm-like reductions and the left folds
    for ufunc in (np.hypot, np.logaddexp, np.logaddexp2):
        f = (lambda u: lambda x: u.reduce(np.abs(x) + 1, axis=1, dtype=np.float64))(ufunc)
        same_as_numpy(f, a, dtype=np.float32, rtol=1e-12)
        same_as_numpy(f, a)
    # arctan2 and power do not commute: the oracle is reduce's definition, the
    # left fold u(u(u(x0, x1), x2), x3) by NumPy's binary ufunc (NumPy 2.4's
    # own reduce of 4 or more elements reorders them: power.reduce of
    # [1.5, 2, 1.2, 1.7] is 1.99 there, the fold 5.23)
    for ufunc in (np.arctan2, np.power):
        x = np.abs(a) + 1
        want = functools.reduce(ufunc, np.moveaxis(x, 1, 0))
        for dtype in (np.float32, np.float64):
            t = leaf(a, dtype)
            got = ufunc.reduce(np.abs(t) + 1, axis=1, dtype=np.float64)
            assert got.dtype == tl.float64 and got.grad_fn is not None
            np.testing.assert_allclose(host(got), want, rtol=1e-6 if dtype == np.float32
                                       else 1e-12)
        assert gradcheck(lambda t, u=ufunc: u.reduce(np.abs(t) + 1, axis=1, dtype=np.float64),
                         [leaf(a)])


# ---- np.pad: 'empty' and callable modes --------------------------------------------------------

def pad_with(vector, pad_width, iaxis, kwargs):
    """NumPy's documented example: a constant border from a keyword."""
    vector[:pad_width[0]] = kwargs.get("padder", 10)
    vector[vector.shape[0] - pad_width[1]:] = kwargs.get("padder", 10)


def scaled_mirror(vector, pad_width, iaxis, kwargs):
    """A border mirrored from the line's own values, scaled per axis: each
    write reads what the earlier axes wrote."""
    n, (before, after) = vector.shape[0], pad_width
    if before:
        vector[:before] = (0.5 + iaxis) * vector[before:2 * before][::-1]
    if after:
        vector[n - after:] = kwargs["decay"] * vector[n - 2 * after:n - after][::-1]


CALLABLE_PADS = {
    "documented": lambda x: np.pad(x, 2, pad_with),
    "keyword": lambda x: np.pad(x, ((1, 2), (0, 1)), pad_with, padder=-3.5),
    "mirror": lambda x: np.pad(x, ((1, 1), (2, 2)), scaled_mirror, decay=0.25),
    "mirror_then_filter": lambda x: np.diff(np.pad(x, 1, scaled_mirror, decay=2.0), axis=0) ** 2,
}


@pytest.mark.parametrize("name", sorted(CALLABLE_PADS))
def test_pad_with_a_callable_mode_is_recorded(name):
    same_as_numpy(CALLABLE_PADS[name], RNG.standard_normal((3, 4)))


def test_pad_empty_mode_is_recorded():
    """mode='empty': NumPy's border is uninitialised, so only the interior
    is compared; its gradient flows to the leaf."""
    a = RNG.standard_normal((3, 4))
    t = leaf(a)
    got = np.pad(t, ((1, 2), (3, 0)), mode="empty")
    assert got.grad_fn is not None and got.shape == np.pad(a, ((1, 2), (3, 0)), "empty").shape
    np.testing.assert_array_equal(host(got)[1:-2, 3:], a)
    assert gradcheck(lambda x: np.pad(x, 1, mode="empty")[1:-1, 1:-1] * x, [t])
    np.testing.assert_array_equal(host(np.pad(leaf(np.ones(0)), 0, mode="empty")), [])


# ---- scipy.linalg's LU and triangular solves ---------------------------------------------------

def lu_program(A, B):
    """Solve and transposed solve from one factorisation, and the log
    |det| from the factor's diagonal."""
    lu, piv = tsla.lu_factor(A)
    x = tsla.lu_solve((lu, piv), B)
    xt = tsla.lu_solve((lu, piv), B[:, 0], trans=1)
    return np.concatenate([x.ravel(), xt, [np.sum(np.log(np.abs(np.diagonal(lu))))]])


def scipy_lu_program(A, B):
    lu, piv = sla.lu_factor(A)
    return np.concatenate([sla.lu_solve((lu, piv), B).ravel(), sla.lu_solve((lu, piv), B[:, 0],
                                                                            trans=1),
                           [np.sum(np.log(np.abs(np.diagonal(lu))))]])


def test_lu_factor_and_solve_against_scipy():
    A, B = RNG.standard_normal((4, 4)), RNG.standard_normal((4, 2))
    got = lu_program(leaf(A), leaf(B))
    np.testing.assert_allclose(host(got), scipy_lu_program(A, B), rtol=1e-12)
    assert gradcheck(lu_program, [leaf(A), leaf(B)])
    lu, piv = tsla.lu_factor(leaf(A))
    want_lu, want_piv = sla.lu_factor(A)
    np.testing.assert_allclose(host(lu), want_lu, rtol=1e-12)
    assert piv.dtype == tl.int32 and np.array_equal(host(piv), want_piv)
    # SciPy's own factorisation is accepted; trans='C' of complex data
    C = A + 1j * RNG.standard_normal((4, 4))
    b = RNG.standard_normal(4) + 1j * RNG.standard_normal(4)
    for trans in (0, 1, 2):
        want = sla.lu_solve(sla.lu_factor(C), b, trans=trans)
        np.testing.assert_allclose(host(tsla.lu_solve(tsla.lu_factor(tl.tensor(C)),
                                                      tl.tensor(b), trans=trans)), want,
                                   rtol=1e-12)
        np.testing.assert_allclose(host(tsla.lu_solve((tl.tensor(want_lu), want_piv),
                                                      tl.tensor(B), trans=trans)),
                                   sla.lu_solve((want_lu, want_piv), B, trans=trans),
                                   rtol=1e-12)
    # dtypes, shapes and a singular factor as SciPy's
    for a in (A.astype(np.float32), np.arange(9).reshape(3, 3) % 4, np.zeros((0, 0)),
              RNG.standard_normal((3, 5)), RNG.standard_normal((2, 3, 3))):
        lu, piv = tsla.lu_factor(tl.tensor(a))
        want_lu, want_piv = sla.lu_factor(a)
        assert np.dtype(lu.dtype.name) == want_lu.dtype and host(piv).dtype == want_piv.dtype
        np.testing.assert_allclose(host(lu), want_lu, rtol=1e-5)
        np.testing.assert_array_equal(host(piv), want_piv)
    with pytest.warns(sla.LinAlgWarning, match="exactly zero"):
        tsla.lu_factor(tl.tensor(np.ones((3, 3))))
    with pytest.raises(ValueError, match="infs or NaNs"):
        tsla.lu_factor(tl.tensor(np.full((2, 2), np.nan)))


# the right-hand sides SciPy's batched solves take: b of one dimension is a
# vector, of two or more a matrix (a stack) whose batch broadcasts with a's
RIGHT_HAND_SIDES = [(4,), (4, 3), (3, 4, 2), (2, 1, 4, 1)]


@pytest.mark.parametrize("b_shape", RIGHT_HAND_SIDES, ids=str)
def test_batched_solves_take_scipys_right_hand_sides(b_shape):
    A = RNG.standard_normal((2, 3, 4, 4)) + 4 * np.eye(4)
    b = RNG.standard_normal(b_shape)
    U = np.triu(A)
    want = sla.solve_triangular(U, b)
    got = tsla.solve_triangular(tl.tensor(U), tl.tensor(b))
    assert tuple(got.shape) == want.shape
    np.testing.assert_allclose(host(got), want, rtol=1e-12)
    got = tsla.solve_triangular(tl.tensor(A), tl.tensor(b), lower=True, trans="T")
    np.testing.assert_allclose(host(got), sla.solve_triangular(A, b, lower=True, trans="T"),
                               rtol=1e-12)
    lu_piv = sla.lu_factor(A)
    got = tsla.lu_solve(tsla.lu_factor(tl.tensor(A)), tl.tensor(b))
    np.testing.assert_allclose(host(got), sla.lu_solve(lu_piv, b), rtol=1e-12)
    S = A @ np.swapaxes(A, -1, -2)
    for lower in (False, True):
        got = tsla.cho_solve(tsla.cho_factor(tl.tensor(S), lower=lower), tl.tensor(b))
        np.testing.assert_allclose(host(got), sla.cho_solve(sla.cho_factor(S, lower=lower), b),
                                   rtol=1e-10)
    assert gradcheck(lambda u, v: tsla.solve_triangular(u, v), [leaf(U[0, 0]), leaf(b)])


def test_mismatched_right_hand_sides_are_refused_as_scipy_refuses_them():
    A = RNG.standard_normal((2, 3, 4, 4))
    b = RNG.standard_normal((2, 3, 4))       # SciPy: a (3, 4) matrix, not 4 rows
    for ours, theirs in ((tsla.solve_triangular, sla.solve_triangular),
                         (lambda a, v: tsla.lu_solve(tsla.lu_factor(a), v),
                          lambda a, v: sla.lu_solve(sla.lu_factor(a), v))):
        with pytest.raises(ValueError):
            theirs(A, b)
        with pytest.raises(ValueError, match=r"\(2, 3, 4\)"):
            ours(tl.tensor(A), tl.tensor(b))


# ---- float32 and second order ------------------------------------------------------------------

FLOAT32_PROGRAMS = {
    "focal": (focal_loss, [(6,)]),
    "dice": (dice_loss, [(2, 3, 4, 4)]),
    "rms_norm_mish": (rms_norm_mish, [(3, 5), (5,)]),
    "lstm": (lstm, [(4, 3), (3, 8), (2, 8), (8,)]),
    "rk4": (lambda s, k: rk4_pendulum(s, k, 0.3), [(2,), ()]),
    "chamfer": (chamfer, [(4, 3), (5, 3)]),
    "quaternion": (quaternion_rotate, [(4,), (3,)]),
    "linear_attention": (linear_attention, [(5, 3), (5, 3), (5, 2)]),
    "bilinear": (bilinear_resize, [(4, 5)]),
    "scale_tail": (scale_tail, [(8,), (5,)]),
    "transposed_base": (transposed_base, [(3, 4), (3, 2)]),
    "mirror_pad": (CALLABLE_PADS["mirror"], [(3, 4)]),
}


@pytest.mark.parametrize("name", sorted(FLOAT32_PROGRAMS))
def test_programs_in_float32_keep_float32(name):
    """float32 data give NumPy's float32 results (Python numbers beside them
    are weak) and float32 gradients."""
    f, shapes = FLOAT32_PROGRAMS[name]
    rng = np.random.default_rng(len(name))
    arrays = [rng.standard_normal(s) * 0.5 for s in shapes]
    got, leaves = same_as_numpy(f, *arrays, dtype=np.float32, rtol=2e-5, atol=2e-6)
    got.sum().backward()
    assert all(t.grad is not None and t.grad.dtype == tl.float32 for t in leaves)


SECOND_ORDER = {
    "label_smoothing": (label_smoothing_loss, [(3, 4)]),
    "info_nce": (info_nce, [(4, 3), (4, 3), ()]),
    "kalman": (kalman_filter, [(5,), (), ()]),
    "whittaker": (whittaker_smoother, [(6,), ()]),
    "black_scholes": (lambda s, v: black_scholes(100 + 10 * s, np.asarray([100.0, 95.0]), v),
                      [(2,), (2,)]),
    "lu_program": (lambda a, b: lu_program(a + 3 * np.eye(4), b), [(4, 4), (4, 2)]),
    "gated_block": (gated_block, [(3, 4), (2, 3)]),
    "documented_pad": (CALLABLE_PADS["keyword"], [(3, 4)]),
}


@pytest.mark.parametrize("name", sorted(SECOND_ORDER))
def test_second_order_through_the_programs(name):
    """Hessian-vector products (create_graph) against finite differences of
    the gradients: the loops, in-place writes and factorisations are
    differentiable twice."""
    f, shapes = SECOND_ORDER[name]
    rng = np.random.default_rng(len(name))
    assert gradgradcheck(f, [leaf(rng.standard_normal(s) * 0.3) for s in shapes])


# ---- histograms with learned weights, roots of learned coefficients ----------------------------

def weighted_histogram_loss(w, x=np.random.default_rng(3).standard_normal(30)):
    """A soft target histogram: the weights (softmax of learned logits)
    binned by np.histogram with density, matched to a Gaussian density at
    the bin centres."""
    p = np.exp(w - w.max())
    p = p / p.sum()
    dens, edges = np.histogram(x, bins=6, range=(-3, 3), weights=p, density=True)
    centres = (edges[:-1] + edges[1:]) / 2
    return np.sum((dens - np.exp(-centres ** 2 / 2) / np.sqrt(2 * np.pi)) ** 2)


def weighted_histogram2d(w, xy=np.random.default_rng(4).standard_normal((2, 25))):
    """A 2-d weighted histogram on uneven edges, normalised by np.histogramdd's
    density beside histogram2d's counts."""
    counts = np.histogram2d(xy[0], xy[1], bins=[[-3, -0.5, 0, 3], [-3, 0, 1, 3]], weights=w)[0]
    dens = np.histogramdd(xy.T, bins=(2, 3), weights=w ** 2, density=True)[0]
    return np.concatenate([counts.ravel(), dens.ravel()])


def polynomial_roots(c):
    """The roots of a learned polynomial (np.roots: the companion matrix's
    eigenvalues), sorted; leading and trailing zeros as NumPy trims them."""
    return np.concatenate([np.sort(np.roots(c)),
                           np.sort(np.roots(np.concatenate([[0.0], c, [0.0, 0.0]])))])


def test_histograms_with_learned_weights_are_recorded():
    same_as_numpy(weighted_histogram_loss, RNG.standard_normal(30))
    same_as_numpy(weighted_histogram2d, RNG.random(25))
    x, w = RNG.standard_normal((3, 5)), leaf(RNG.random((3, 5)))
    for kwargs in ({"bins": 4}, {"bins": [-2.0, -0.5, 0.0, 2.0]}, {"bins": 3, "range": (-1, 1)},
                   {"bins": 3, "density": True}):
        got = np.histogram(tl.tensor(x), weights=w, **kwargs)
        want = np.histogram(x, weights=host(w), **kwargs)
        for g, v in zip(got, want):
            np.testing.assert_allclose(host(g), v, rtol=1e-12)
        assert got[0].grad_fn is not None and got[0].dtype == tl.float64
    # the edges from the data stay on its tape, as without weights
    t = leaf(x)
    assert np.histogram(t, bins=3, weights=w)[1].grad_fn is not None
    with pytest.raises(ValueError, match="same shape"):
        np.histogram(tl.tensor(x), weights=w[0])
    with pytest.raises(TypeError, match="not supported for weighted data"):
        np.histogram(tl.tensor(x), bins="auto", weights=w)


def polynomial_division(u, v):
    """Quotient and remainder of learned polynomials (np.polydiv), and the
    product back (np.polymul + np.polyadd) beside the dividend."""
    q, r = np.polydiv(u, v)
    return np.concatenate([q, r, np.polyadd(np.polymul(q, v), r) - u])


def test_polydiv_of_learned_coefficients_is_recorded():
    got, _ = same_as_numpy(polynomial_division, RNG.standard_normal(6), [1.5, -0.5, 2.0],
                           atol=1e-12)
    np.testing.assert_allclose(host(got)[-6:], 0, atol=1e-12)
    for u, v in (([3.0, 2.0], [1.0, 2.0, 4.0]), ([1, 2, 1], [1, 1]), ([2.0, 4.0, 6.0], [2.0]),
                 ([1 + 1j, 2, 3], [1, 1j]), (5.0, 2.0)):
        for got, want in zip(np.polydiv(tl.tensor(np.asarray(u)), tl.tensor(np.asarray(v))),
                             np.polydiv(u, v)):
            assert np.dtype(got.dtype.name) == want.dtype and tuple(got.shape) == want.shape
            np.testing.assert_allclose(host(got), want, rtol=1e-12)


def test_roots_of_learned_coefficients_are_recorded():
    c = np.asarray([1.0, -6.0, 11.0, -6.0]) + 0.1 * RNG.standard_normal(4)
    same_as_numpy(polynomial_roots, c, rtol=1e-10)
    for p in ([1.0, 0.0, 1.0], [0.0, 0.0], [3.0], [2.0, 0.0], [1, 2, 1]):
        got, want = np.roots(tl.tensor(np.asarray(p))), np.roots(p)
        assert np.dtype(got.dtype.name) == want.dtype and tuple(got.shape) == want.shape
        np.testing.assert_allclose(np.sort_complex(host(got)), np.sort_complex(want), rtol=1e-12)
    # complex roots: the gradient of their moduli
    assert gradcheck(lambda c: np.abs(np.roots(c)), [leaf([1.0, 0.5, 1.0])])


# ---- distribution functions of scipy.special -------------------------------------------------

def goodness_of_fit(rate, counts=np.asarray([3.0, 7.0, 4.0, 9.0, 2.0])):
    """A Poisson model's goodness of fit: the chi-square statistic's upper
    tail (chdtrc), the probability of each count or fewer (pdtr), and a
    binomial and a negative-binomial tail of the same counts."""
    lam = np.exp(rate)
    stat = np.sum((counts - lam) ** 2 / lam)
    p = sp.expit(rate - 2)
    return np.concatenate([[sp.chdtrc(4, stat)], sp.pdtr(counts, lam),
                           sp.bdtr(counts, 10, p), sp.nbdtrc(counts, 3, p)])


def significance_tests(t, x):
    """Student's t, F and gamma CDFs of learned statistics."""
    return np.concatenate([sp.stdtr(5.0, t), sp.fdtr(2.0, 7.0, np.exp(x)),
                           sp.gdtr(1.5, 2.0, np.exp(x)), sp.chdtr(3.0, np.exp(x))])


DISTRIBUTION_CALLS = [
    ("chdtr", lambda x: sp.chdtr(3, x)), ("chdtrc", lambda x: sp.chdtrc(2.5, x)),
    ("gdtr", lambda x: sp.gdtr(1.5, 2.0, x)), ("gdtrc", lambda x: sp.gdtrc(0.5, 3.0, x)),
    ("pdtr", lambda m: sp.pdtr(2.7, m)), ("pdtrc", lambda m: sp.pdtrc(3, m)),
    ("fdtr", lambda x: sp.fdtr(2.0, 5.0, x)), ("fdtrc", lambda x: sp.fdtrc(3.0, 4.0, x)),
    ("stdtr", lambda t: sp.stdtr(3.0, t - 3)),
    ("bdtr", lambda p: sp.bdtr(np.asarray([-1, 0, 2.7, 6, 7, 3]), 6, p / 6)),
    ("bdtrc", lambda p: sp.bdtrc(np.asarray([-1, 0, 2.7, 6, 7, 3]), 6, p / 6)),
    ("nbdtr", lambda p: sp.nbdtr(np.asarray([-1.5, -0.5, 0, 2, 5, 1]), 3, p / 6)),
    ("nbdtrc", lambda p: sp.nbdtrc(np.asarray([-1.5, -0.5, 0, 2, 5, 1]), 3, p / 6)),
]


@pytest.mark.parametrize("name, f", DISTRIBUTION_CALLS, ids=[c[0] for c in DISTRIBUTION_CALLS])
def test_distribution_functions_are_recorded(name, f):
    """SciPy's values (its domain's NaNs, the edges at k < 0, k = n, x = 0
    and inf, counts read as SciPy reads them) and the derivative in the
    continuous argument."""
    x = np.asarray([0.0, 0.4, 1.3, 2.9, 5.5, np.inf])
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)   # SciPy's truncated counts
        got, want = f(tl.tensor(x)), f(x)
        assert got.dtype == tl.float64 and tuple(got.shape) == want.shape
        np.testing.assert_allclose(host(got), want, rtol=1e-12, atol=1e-300)
        inside = np.asarray([0.4, 1.3, 2.9, 5.5, 3.3, 1.1])
        defined = ~np.isnan(f(inside))   # (the counts outside SciPy's domain give NaN)
        assert gradcheck(lambda v: f(v)[defined], [leaf(inside)])


def test_programs_with_distribution_functions():
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)
        same_as_numpy(goodness_of_fit, np.log(4.5), rtol=1e-11)
        same_as_numpy(significance_tests, RNG.standard_normal(3), RNG.standard_normal(3),
                      rtol=1e-11)
    # a count that requires grad asks for betainc's derivative in a shape
    with pytest.raises(NotImplementedError, match="betainc.*'a'"):
        sp.bdtr(2, leaf(6.0), 0.3).backward()
