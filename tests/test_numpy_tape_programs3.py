"""NumPy programs on the tape, third round, in the manner of the first two
(tests/test_numpy_tape_programs.py, tests/test_numpy_tape_programs2.py):
model code written once with NumPy (and scipy.special) and called on
torchlike tensors that require grad; values, dtypes and shapes against
NumPy on the detached data, gradients against finite differences
(gradcheck in float64).  Ground the earlier rounds do not cover: dynamic
programmes (a CRF's forward algorithm, soft-DTW written into a table,
Sinkhorn's iterations), spectral methods (a PCA loss by eigh, a polar
decomposition and Procrustes by svd, a matrix exponential), a natural
cubic spline solved for its learned knots, integrators (RK4, an explicit
heat equation by np.roll), sorted-sample distances, survival and
stick-breaking by cumprod, repeated gathers, writes into views of
results, NumPy 2's array-API functions, vector and matrix norms of every
order, geometry by np.cross, complex rotations and power spectra,
NaN-masked statistics and count models by scipy.special; complex leaves
against PyTorch's gradients (tests/golden/numpy_tape_complex.json, by
scripts/golden_numpy_tape_complex.py), since gradcheck takes none.

What they found, and is fixed:

- ``out=`` an operand's own memory on a tensor that requires grad --
  ``np.clip(h, lo, hi, out=h)``, ``np.cumprod(g, out=g)``,
  ``np.dot``/``np.matmul``/``np.einsum``/``np.vecdot(..., out=w)``,
  reductions into a row of their input (``np.std(w, axis=0, out=w[0])``),
  ufunc methods (``np.multiply.accumulate(w, axis=1, out=w)``,
  ``np.maximum.reduce(w, axis=1, out=w[:, 0])``) and masked ufunc calls
  (``np.multiply(w, w, out=w, where=m)``) -- and ``np.nan_to_num(r,
  copy=False)`` failed in backward ("modified
  by an inplace operation"): the op kept its operand for the gradient and
  the result was written over it.  Such an operand is read through a
  recorded copy now.  ``np.multiply.outer(a, b, out=t)`` refused a tensor
  that requires grad ("no torchlike implementation"); it is recorded.
- An in-place write through a view with a negative stride (``y[::-1] +=
  1``) on an array in a graph raised "as_strided: Negative strides are
  not supported" in backward (the base's CopySlices node).
- An in-place op whose other operand shares the target's memory (``z *=
  z.T``, ``w *= w[::-1]``, ``y *= np.diagonal(y)``) gave wrong gradients
  silently: the operand was saved as the view, whose values the write
  changed, with its base's version taken after the write.
- ``xlogy(x, y)`` and ``scipy.special.xlog1py(x, y)`` sent x a zero
  gradient where x == 0 (a Bernoulli likelihood of 0/1 data that requires
  grad); PyTorch's, and the finite differences', is log(y) / log1p(y).

PyTorch's rules, kept by design (docs/autograd.md): a write with repeated
indices (``y[[0, 0, 1]] = v``) keeps the value written last, but every
entry of ``v`` gets the gradient of its position (PyTorch's index_put
rule; tests/test_grad_index.py asserts it), so it differs from finite
differences; writing columns into a table whose views earlier products
kept (Gram-Schmidt into ``np.zeros_like``) raises PyTorch's "modified by
an inplace operation" (views share their base's version); the method
``t.clip(lo, hi, out=)`` is PyTorch's clamp, whose out= refuses grad
(``np.clip(t, lo, hi, out=)`` records).  Refused by name, as the earlier
rounds document: ``scipy.special.logsumexp``/``softmax`` outside SciPy's
array-API mode (``torchlike.scipy.special.logsumexp`` records, as the
Sinkhorn test shows), ufuncs with a tensor ``out=`` (``np.multiply(y, 2,
out=y)``: write ``y *= 2``), ``np.full(shape, t)`` with a fill that
requires grad (NumPy copies it into an ndarray).
"""
import json
import os

import numpy as np
import pytest
import scipy.special as sp
from numpy.lib.stride_tricks import sliding_window_view as windows

import torchlike as tl
from torchlike.autograd import gradcheck
from test_numpy_tape_programs import leaf, host, same_as_numpy

RNG = np.random.default_rng(33)


# ---- dynamic programmes ------------------------------------------------------------------------

def crf_log_partition(emit, trans):
    """A linear-chain CRF's log partition by the forward algorithm, the
    recursion a loop of np.logaddexp.reduce over the previous tag."""
    alpha = emit[0]
    for e in emit[1:]:
        alpha = np.logaddexp.reduce(alpha[:, None] + trans, axis=0) + e
    return sp.logsumexp(alpha) if not isinstance(alpha, tl.Tensor) else \
        np.logaddexp.reduce(alpha)


def crf_brute_force(emit, trans):
    """Every tag path scored and summed: the same number by enumeration."""
    T, K = emit.shape
    paths = np.stack(np.meshgrid(*[np.arange(K)] * T, indexing="ij"), -1).reshape(-1, T)
    score = emit[np.arange(T), paths].sum(axis=1) + trans[paths[:, :-1], paths[:, 1:]].sum(axis=1)
    return np.logaddexp.reduce(score)


def test_crf_forward_algorithm_is_the_sum_over_paths():
    emit, trans = RNG.standard_normal((4, 3)), RNG.standard_normal((3, 3))
    got, _ = same_as_numpy(crf_log_partition, emit, trans)
    same_as_numpy(crf_brute_force, emit, trans)
    np.testing.assert_allclose(host(got), crf_brute_force(emit, trans), rtol=1e-12)
    # the gradient of the log partition in the emissions is the tag marginals
    e, t = leaf(emit), leaf(trans)
    crf_log_partition(e, t).backward()
    np.testing.assert_allclose(host(e.grad).sum(axis=1), np.ones(4), rtol=1e-12)


def soft_dtw(x, y, gamma=0.5):
    """Soft dynamic time warping: the table R filled cell by cell (writes of
    recorded values into an array made by np.full), a soft minimum by
    -gamma * logaddexp.reduce(-r / gamma)."""
    D = (x[:, None] - y[None, :]) ** 2
    n, m = D.shape
    R = np.full((n + 1, m + 1), np.inf) + 0 * D[0, 0]
    R[0, 0] = 0.0
    for i in range(1, n + 1):
        for j in range(1, m + 1):
            prev = np.stack([R[i - 1, j - 1], R[i - 1, j], R[i, j - 1]])
            R[i, j] = D[i - 1, j - 1] - gamma * np.logaddexp.reduce(-prev / gamma)
    return R[n, m]


def test_soft_dtw_written_into_a_table():
    same_as_numpy(soft_dtw, np.sin(np.linspace(0, 3, 5)), np.cos(np.linspace(0, 2, 4)))


NEG = -1e30   # "log 0" for the lattices: see test_ctc_loss_over_a_lattice


def ctc_nll(logits, labels=np.asarray([1, 2, 2]), blank=0):
    """Connectionist temporal classification's loss: the forward variables
    over the blank-extended label sequence, skips allowed between distinct
    labels, each step by np.logaddexp of shifted copies (np.concatenate,
    np.where)."""
    logp = logits - np.logaddexp.reduce(logits, axis=1, keepdims=True)
    ext = np.full(2 * len(labels) + 1, blank)
    ext[1::2] = labels
    skip = np.concatenate([[False, False], (ext[2:] != blank) & (ext[2:] != ext[:-2])])
    alpha = np.concatenate([logp[0, ext[:2]], np.full(len(ext) - 2, NEG)])
    for t in range(1, len(logits)):
        one = np.concatenate([np.full(1, NEG), alpha[:-1]])
        two = np.where(skip, np.concatenate([np.full(2, NEG), alpha[:-2]]), NEG)
        alpha = np.logaddexp(np.logaddexp(alpha, one), two) + logp[t, ext]
    return -np.logaddexp(alpha[-1], alpha[-2])


def ctc_brute_force(logits, labels=(1, 2, 2), blank=0):
    """The same loss by summing over every alignment that collapses to the
    labels (merge repeats, drop blanks)."""
    T, C = logits.shape
    logp = logits - np.logaddexp.reduce(logits, axis=1, keepdims=True)
    paths = np.stack(np.meshgrid(*[np.arange(C)] * T, indexing="ij"), -1).reshape(-1, T)

    def collapses(p):
        merged = [c for i, c in enumerate(p) if i == 0 or c != p[i - 1]]
        return tuple(c for c in merged if c != blank) == tuple(labels)

    keep = np.asarray([collapses(p) for p in paths])
    return -np.logaddexp.reduce(logp[np.arange(T), paths[keep]].sum(axis=1))


def test_ctc_loss_over_a_lattice():
    """Written with -inf for log 0, the early steps meet
    np.logaddexp(-inf, -inf), whose gradient is NaN as PyTorch's
    (tests/golden/numpy_tape.json: logaddexp_neg_inf), and the NaN reaches
    every logit before it (NaN * 0): PyTorch's ctc_loss is one fused op for
    that reason.  A finite log 0 (-1e30) gives the true gradient."""
    logits = RNG.standard_normal((6, 3))
    got, _ = same_as_numpy(ctc_nll, logits, rtol=1e-10)
    np.testing.assert_allclose(host(got), ctc_brute_force(logits), rtol=1e-10)


def sinkhorn(C, a_logits, eps=0.3, iters=30, lse=np.logaddexp.reduce):
    """Entropic optimal transport in the log domain: a marginal from a
    log-softmax, potentials by alternating log-sum-exps (np.logaddexp.reduce,
    or torchlike.scipy's logsumexp: SciPy's own refuses a tensor outside its
    array-API mode)."""
    la = a_logits - lse(a_logits)
    lb = np.log(np.full(C.shape[1], 1.0 / C.shape[1]))
    f, g = 0 * la, np.zeros(C.shape[1])
    for _ in range(iters):
        f = eps * (la - lse((g[None, :] - C) / eps, axis=1))
        g = eps * (lb - lse((f[:, None] - C) / eps, axis=0))
    P = np.exp((f[:, None] + g[None, :] - C) / eps)
    return np.sum(P * C), P


def test_sinkhorn_transport_cost():
    C, a = RNG.random((4, 3)), RNG.standard_normal(4)
    same_as_numpy(lambda C, a: sinkhorn(C, a)[0], C, a, rtol=1e-10)
    from torchlike.scipy.special import logsumexp
    got, _ = same_as_numpy(lambda C, a: sinkhorn(C, a, lse=logsumexp if isinstance(C, tl.Tensor)
                                                 else sp.logsumexp)[0], C, a, rtol=1e-10)
    P = sinkhorn(leaf(C), leaf(a))[1]
    np.testing.assert_allclose(host(P).sum(axis=1), sp.softmax(a), rtol=1e-6)


# ---- spectral methods ---------------------------------------------------------------------------

def pca_loss(X, k=2):
    """Reconstruction error on the top-k principal subspace by np.linalg.eigh
    of the covariance (a projector, so the eigenvectors' signs cancel)."""
    Xc = X - X.mean(axis=0)
    w, V = np.linalg.eigh(Xc.T @ Xc / (len(X) - 1))
    top = V[:, np.argsort(w)[::-1][:k]]
    return np.sum((Xc - Xc @ top @ top.T) ** 2) + np.sum(w[-k:])


def test_pca_loss_by_eigh():
    X = RNG.standard_normal((12, 4)) * np.asarray([3.0, 2.0, 1.0, 0.3])
    same_as_numpy(pca_loss, X, rtol=1e-10)


def polar_factor(A):
    """The orthogonal factor of the polar decomposition, U V^T from
    np.linalg.svd, and the positive factor V S V^T."""
    U, s, Vt = np.linalg.svd(A)
    return np.concatenate([U @ Vt, (Vt.T * s) @ Vt])


def procrustes(X, Y):
    """The orthogonal Procrustes rotation of X onto Y and its residual."""
    U, _, Vt = np.linalg.svd(X.T @ Y)
    return np.sum((X @ (U @ Vt) - Y) ** 2)


def test_polar_decomposition_and_procrustes_by_svd():
    A = RNG.standard_normal((3, 3)) + np.diag([3.0, 1.5, -0.5])
    got, _ = same_as_numpy(polar_factor, A, rtol=1e-10, atol=1e-11)
    Q = host(got)[:3]
    np.testing.assert_allclose(Q @ Q.T, np.eye(3), atol=1e-12)
    X = RNG.standard_normal((6, 3))
    same_as_numpy(procrustes, X, X @ np.linalg.qr(RNG.standard_normal((3, 3)))[0]
                  + 0.1 * RNG.standard_normal((6, 3)), rtol=1e-10)


def expm_taylor(A, squarings=4, terms=12):
    """A matrix exponential by scaling and squaring a Taylor series, with
    np.linalg.matrix_power for the squaring."""
    B = A / 2 ** squarings
    E, term = np.eye(len(A)) + 0 * B, np.eye(len(A))
    for k in range(1, terms):
        term = term @ B / k
        E = E + term
    return np.linalg.matrix_power(E, 2 ** squarings)


def expm_eigh(S):
    w, V = np.linalg.eigh(S)
    return (V * np.exp(w)) @ V.T


def test_matrix_exponential_two_ways():
    A = 0.5 * RNG.standard_normal((3, 3))
    same_as_numpy(expm_taylor, A)
    S = A + A.T
    np.testing.assert_allclose(host(expm_taylor(leaf(S))), expm_eigh(S), rtol=1e-12)
    same_as_numpy(lambda S: expm_eigh(S + S.T), A, rtol=1e-10)


# ---- splines and integrators -------------------------------------------------------------------

def natural_spline(y, xq, x=np.linspace(0.0, 4.0, 6)):
    """A natural cubic spline through learned knot values: the second
    derivatives from a tridiagonal system built with np.diag(k=), solved by
    np.linalg.solve, evaluated on np.searchsorted intervals."""
    h = np.diff(x)
    A = np.diag(2 * (h[:-1] + h[1:])) + np.diag(h[1:-1], 1) + np.diag(h[1:-1], -1)
    slopes = np.diff(y) / h
    M = np.concatenate([np.zeros(1), np.linalg.solve(A, 6 * np.diff(slopes)), np.zeros(1)])
    i = np.clip(np.searchsorted(x, xq) - 1, 0, len(h) - 1)
    t0, t1 = xq - x[i], x[i + 1] - xq
    return (M[i] * t1 ** 3 + M[i + 1] * t0 ** 3) / (6 * h[i]) \
        + (y[i] / h[i] - M[i] * h[i] / 6) * t1 + (y[i + 1] / h[i] - M[i + 1] * h[i] / 6) * t0


def test_natural_cubic_spline_fitted_by_its_knots():
    xq = np.linspace(0.1, 3.9, 9)
    same_as_numpy(lambda y: natural_spline(y, xq), np.sin(np.linspace(0, 4, 6)))
    # the fitted curve passes through its knots
    y = leaf(RNG.standard_normal(6))
    np.testing.assert_allclose(host(natural_spline(y, np.linspace(0.0, 4.0, 6))), host(y),
                               atol=1e-12)


def rk4_flow(x0, W, b, steps=5, dt=0.1):
    """A neural ODE dx/dt = tanh(W x + b) integrated by RK4."""
    f = lambda x: np.tanh(W @ x + b)                   # noqa: E731
    x = x0
    for _ in range(steps):
        k1 = f(x)
        k2 = f(x + dt / 2 * k1)
        k3 = f(x + dt / 2 * k2)
        k4 = f(x + dt * k3)
        x = x + dt / 6 * (k1 + 2 * k2 + 2 * k3 + k4)
    return x


def heat_equation(u0, kappa, steps=8):
    """Explicit steps of u_t = kappa u_xx on a ring (np.roll Laplacian),
    the diffusivity learned through np.exp, the final field's energy
    by np.trapezoid."""
    u = u0
    for _ in range(steps):
        u = u + 0.2 * np.exp(kappa) * (np.roll(u, 1) - 2 * u + np.roll(u, -1))
    return np.trapezoid(u ** 2, dx=0.1) + np.sum(np.gradient(u, 0.1) ** 2)


def test_integrators():
    same_as_numpy(rk4_flow, RNG.standard_normal(3), RNG.standard_normal((3, 3)),
                  RNG.standard_normal(3))
    same_as_numpy(heat_equation, np.sin(np.linspace(0, 2 * np.pi, 10, endpoint=False)), -1.0)


# ---- sorting, cumulative products, gathers ----------------------------------------------------

def wasserstein_1d(x, y):
    """The 1-d Wasserstein distance between two samples: sorted values."""
    return np.mean(np.abs(np.sort(x) - np.sort(y))) + np.mean(np.sort(x)[::-1][:2])


def neural_sort(s, tau=0.5):
    """A relaxed sort (the NeuralSort permutation matrix) of scores."""
    n = len(s)
    A = np.abs(s[:, None] - s[None, :])
    scal = (n + 1 - 2 * np.arange(1, n + 1))[:, None] * s[None, :] - A.sum(axis=1)[None, :]
    P = sp.softmax(scal / tau, axis=1) if not isinstance(s, tl.Tensor) else \
        np.exp(scal / tau - np.logaddexp.reduce(scal / tau, axis=1, keepdims=True))
    return P @ s


def test_sorted_sample_distance_and_a_soft_sort():
    x = np.asarray([0.3, -1.2, 2.0, 0.7, -0.4, 1.1, -2.0])   # gaps of 0.3 and more
    y = RNG.standard_normal(7)
    same_as_numpy(wasserstein_1d, x, y)
    got, _ = same_as_numpy(neural_sort, x)
    # a small temperature approaches the hard sort, descending
    np.testing.assert_allclose(host(neural_sort(leaf(x), tau=1e-3)), np.sort(x)[::-1], atol=1e-6)


def survival_nll(logit_h, events):
    """A discrete-time survival model: hazards by expit, survival by
    np.cumprod, the likelihood of event times and censored times."""
    h = sp.expit(logit_h)
    S = np.cumprod(1 - h, axis=1)
    S_before = np.concatenate([np.ones((len(h), 1)), S[:, :-1]], axis=1)
    t = np.asarray([2, 4, 1])
    observed = np.take_along_axis(S_before * h, t[:, None], axis=1)[:, 0]
    censored = np.take_along_axis(S, t[:, None], axis=1)[:, 0]
    return -np.sum(np.where(events, np.log(observed), np.log(censored)))


def stick_breaking(v_logits):
    """Stick-breaking weights v_k prod_{j<k}(1 - v_j) (np.cumprod shifted
    by np.concatenate), the remainder as the last weight."""
    v = sp.expit(v_logits)
    rest = np.cumprod(1 - v)
    w = v * np.concatenate([np.ones(1), rest[:-1]])
    return np.concatenate([w, rest[-1:]])


def test_survival_and_stick_breaking_by_cumprod():
    same_as_numpy(survival_nll, RNG.standard_normal((3, 5)),
                  np.asarray([True, False, True]))
    got, _ = same_as_numpy(stick_breaking, RNG.standard_normal(5))
    np.testing.assert_allclose(float(host(got).sum()), 1.0, rtol=1e-12)


def repeated_gathers(E, W):
    """Repeated indices in every gather spelling: the gradient of a row used
    k times is k times its share."""
    ids = np.asarray([[3, 3, 0], [1, 3, 3]])
    a = E[ids].sum(axis=1)                                   # (2, d)
    b = np.take(E, [0, 0, 0, 2], axis=0)
    c = np.take_along_axis(W, np.asarray([[0, 0, 2], [1, 1, 1]]), axis=1)
    d = E[[2, 2], [1, 1]]
    return np.sum(a ** 2) + np.sum(b * np.arange(4.0)[:, None]) + np.sum(c ** 3) + np.sum(d)


def test_repeated_indices_accumulate_their_gradients():
    E, W = RNG.standard_normal((4, 2)), RNG.standard_normal((2, 3))
    same_as_numpy(repeated_gathers, E, W)
    e = leaf(E)
    np.take(e, [1, 1, 1, 3], axis=0).sum().backward()
    np.testing.assert_array_equal(host(e.grad), [[0, 0], [3, 3], [0, 0], [1, 1]])


# ---- writes into views of results --------------------------------------------------------------

def view_writes(x, b):
    """In-place arithmetic on views of non-leaf arrays: slices, a column,
    a strided view, a transposed view, a boolean mask."""
    y = x * 1.0
    y[1:] *= 2.0
    y[:, 0] += b
    y.T[1] /= 1.5
    y[::2, 1:] -= np.tanh(y[::2, :2])   # tanh keeps its result, not the view it reads
    z = np.exp(y) * 1.0                 # exp keeps its result: write into a product
    z[z > 2.0] = np.sqrt(z[z > 2.0])
    z[0] **= 2
    return z


def test_in_place_updates_on_views_of_results():
    same_as_numpy(view_writes, RNG.standard_normal((4, 3)), RNG.standard_normal(4))


def test_writes_over_what_the_tape_keeps_raise_pytorchs_error():
    """An in-place write to an array backward still needs is PyTorch's
    error, never a wrong gradient."""
    x = leaf(RNG.standard_normal(4))
    y = np.exp(x)                       # exp keeps its result for the gradient
    y[1:] *= 2.0
    with pytest.raises(RuntimeError, match="modified by an inplace operation"):
        y.sum().backward()


def block_layer(a, b, c):
    """np.block, np.split/array_split/hsplit, dstack/column_stack/vstack."""
    M = np.block([[a, b], [c, np.eye(2)]])          # (5, 5)
    top, bottom = np.split(M, [3])
    parts = np.array_split(M[:, 0], 3)
    left, right = np.hsplit(M, [2])
    s = np.column_stack([parts[0], parts[1]]) + np.vstack([parts[0], parts[1]]).T
    return (np.sum(top ** 2) - np.sum(bottom) + np.sum(left * right[:, :2])
            + np.sum(np.dstack([s, s ** 2])) + np.sum(parts[2]))


def test_block_and_split_spellings():
    same_as_numpy(block_layer, RNG.standard_normal((3, 3)), RNG.standard_normal((3, 2)),
                  RNG.standard_normal((2, 3)))


# ---- losses -----------------------------------------------------------------------------------

def robust_losses(r, q=0.3, delta=0.7):
    """Huber loss with np.where, pinball loss, a log of the positive part
    by the double-where idiom (the unused branch's NaN never reaches the
    gradient), and a clipped-ratio objective."""
    small = np.abs(r) <= delta
    huber = np.where(small, 0.5 * r ** 2, delta * (np.abs(r) - 0.5 * delta))
    pinball = np.maximum(q * r, (q - 1) * r)
    safe = np.where(r > 0, r, 1.0)
    logpos = np.where(r > 0, np.log(safe), 0.0)
    ratio = np.exp(r)
    clipped = np.minimum(ratio * 1.5, np.clip(ratio, 0.8, 1.2) * 1.5)
    return np.sum(huber) + np.sum(pinball) + np.sum(logpos) + np.sum(clipped)


def test_huber_pinball_and_double_where():
    r = np.asarray([-2.0, -0.5, 0.1, 0.4, 1.3, 2.5, -0.05, 0.2])
    same_as_numpy(robust_losses, r)


def contrastive_losses(z, anchors, positives, negatives):
    """InfoNCE on normalised embeddings (the diagonal masked with -inf by
    np.where), and a triplet margin loss on pairwise distances."""
    u = z / np.linalg.norm(z, axis=1, keepdims=True)
    sim = u @ u.T / 0.2
    sim = np.where(np.eye(len(z), dtype=bool), -np.inf, sim)
    pair = np.arange(len(z)) ^ 1                      # 0<->1, 2<->3, ...
    nce = -np.mean(sim[np.arange(len(z)), pair] - np.logaddexp.reduce(sim, axis=1))
    d = lambda i, j: np.linalg.norm(z[i] - z[j], axis=-1)    # noqa: E731
    triplet = np.mean(np.maximum(0.0, d(anchors, positives) - d(anchors, negatives) + 1.0))
    return nce + triplet


def test_contrastive_and_triplet_losses():
    same_as_numpy(lambda z: contrastive_losses(z, [0, 2, 4], [1, 3, 5], [2, 5, 0]),
                  RNG.standard_normal((6, 3)))


def total_variation(img, target):
    """Isotropic total variation (np.diff along both axes, a smoothed
    square root) plus a data term: image denoising's objective."""
    dx = np.diff(img, axis=1)[:-1, :]
    dy = np.diff(img, axis=0)[:, :-1]
    return np.sum(np.sqrt(dx ** 2 + dy ** 2 + 1e-3)) + 0.5 * np.sum((img - target) ** 2)


def test_total_variation_denoising_objective():
    same_as_numpy(total_variation, RNG.standard_normal((5, 6)), RNG.standard_normal((5, 6)))


# ---- norms --------------------------------------------------------------------------------------

VECTOR_ORDS = [1, 2, 3, 0.5, np.inf, -np.inf, -1]
MATRIX_ORDS = [1, -1, np.inf, -np.inf, "fro", "nuc", 2, -2]


def test_vector_and_matrix_norms_of_every_order():
    v = np.asarray([[0.3, -1.2, 2.0, 0.7], [1.1, 0.4, -0.2, -2.5]])
    for o in VECTOR_ORDS:
        same_as_numpy(lambda a: np.linalg.norm(a, ord=o, axis=1), v, rtol=1e-11)
    same_as_numpy(lambda a: np.linalg.norm(a, ord=0, axis=1), v, grad=False)
    m = RNG.standard_normal((2, 3, 3)) + np.diag([3.0, 1.0, -2.0])
    for o in MATRIX_ORDS:
        same_as_numpy(lambda a: np.linalg.norm(a, ord=o, axis=(1, 2)), m, rtol=1e-10)
    same_as_numpy(lambda a: np.linalg.norm(a, axis=(0, 2), keepdims=True), m)


def test_numpy2_array_api_functions():
    """NumPy 2's linalg.vector_norm/matrix_norm/vecdot/cross/outer/
    matrix_transpose/diagonal/trace and np.cumulative_sum/prod."""
    a, b = RNG.standard_normal((3, 4)), RNG.standard_normal((3, 4))
    same_as_numpy(lambda a, b: np.linalg.vecdot(a, b) + np.vecdot(a, b, axis=0).sum(), a, b)
    same_as_numpy(lambda a: np.linalg.vector_norm(a, ord=3, axis=0)
                  + np.linalg.matrix_norm(a[:, :3], ord="nuc"), a, rtol=1e-10)
    same_as_numpy(lambda a, b: np.linalg.cross(a[:, :3], b[:, 1:]), a, b)
    same_as_numpy(lambda a, b: np.linalg.outer(a[0, :3], b[1, :3]) + np.linalg.matrix_transpose(
        np.linalg.diagonal(np.stack([a[:, :3]] * 2)))[:, :1] + np.linalg.trace(a[:, :3]), a, b)
    same_as_numpy(lambda a: np.cumulative_sum(a, axis=1, include_initial=True)
                  + np.cumulative_prod(a, axis=1, include_initial=True), a)
    same_as_numpy(lambda a: np.matrix_transpose(a) * np.permute_dims(a, (1, 0))
                  + np.pow(np.abs(a), 1.5).T + np.atan2(a, b).T, a)


# ---- geometry and complex values --------------------------------------------------------------

def mesh_area_and_normals(V):
    """Triangle areas and unit normals of a small mesh by np.cross,
    a smoothness term between neighbouring faces' normals."""
    F = np.asarray([[0, 1, 2], [0, 2, 3], [0, 3, 1], [1, 3, 2]])
    e1, e2 = V[F[:, 1]] - V[F[:, 0]], V[F[:, 2]] - V[F[:, 0]]
    n = np.cross(e1, e2)
    area = 0.5 * np.linalg.norm(n, axis=1)
    unit = n / (2 * area[:, None])
    return np.sum(area) + np.sum(1 - np.einsum("ij,ij->i", unit, np.roll(unit, 1, axis=0)))


def quaternion_rotate(q, v):
    """Rotate points by a learned (normalised) quaternion: v + 2 w (u x v)
    + 2 u x (u x v), by np.cross with broadcasting."""
    q = q / np.linalg.norm(q)
    w, u = q[0], q[1:]
    t = 2 * np.cross(u, v)
    return v + w * t + np.cross(u, t)


def test_geometry_by_cross_products():
    V = np.asarray([[0.0, 0, 0], [1, 0, 0], [0, 1, 0], [0, 0, 1]])
    V = V + 0.1 * RNG.standard_normal((4, 3))
    same_as_numpy(mesh_area_and_normals, V)
    q, v = RNG.standard_normal(4), RNG.standard_normal((5, 3))
    got, _ = same_as_numpy(quaternion_rotate, q, v)
    np.testing.assert_allclose(np.linalg.norm(host(got), axis=1), np.linalg.norm(v, axis=1),
                               rtol=1e-12)


def complex_layer(x, theta, re_w, im_w):
    """A rotation of a complex signal by learned phases, a complex weight
    built from two real arrays, np.abs/np.angle/np.conj of the result, and
    an rfft power spectrum."""
    z = (x[0] + 1j * x[1]) * np.exp(1j * theta)
    w = re_w + 1j * im_w
    y = z * w + np.conj(z) * 0.3
    spec = np.abs(np.fft.rfft(np.real(y) * np.hanning(len(theta)))) ** 2
    return (np.sum(np.abs(y)) + np.sum(np.angle(y) * np.arange(len(theta)))
            + np.sum(np.real(y * np.conj(w))) + np.sum(np.log1p(spec)))


def test_complex_rotations_and_a_power_spectrum():
    n = 6
    same_as_numpy(complex_layer, RNG.standard_normal((2, n)), RNG.standard_normal(n),
                  RNG.standard_normal(n), RNG.standard_normal(n), rtol=1e-11)


COMPLEX_WEIGHTS = np.asarray([1.0, 2.0, 3.0, 4.0])

# each case of scripts/golden_numpy_tape_complex.py, written with NumPy
COMPLEX_SPELLINGS = {
    "abs": lambda z: np.sum(np.abs(z) * COMPLEX_WEIGHTS),
    "angle": lambda z: np.sum(np.angle(z) * COMPLEX_WEIGHTS),
    "fft_power": lambda z: np.sum(np.abs(np.fft.fft(z)) ** 2 * COMPLEX_WEIGHTS),
    "conj_product": lambda z: np.sum(np.real(z * np.conj(z[::-1]) * (1 + 2j))),
    "exp_log": lambda z: np.sum(np.abs(np.exp(z) + np.log(z))),
    "sqrt": lambda z: np.sum(np.real(np.sqrt(z) * (0.5 - 1j))),
    "ifft": lambda z: np.sum(np.real(np.fft.ifft(z * z))) + np.sum(np.abs(np.fft.ifft(z))),
    "inv": lambda m: np.sum(np.abs(np.linalg.inv(m))),
    "det": lambda m: np.abs(np.linalg.det(m)),
    "solve": lambda m: np.sum(np.real(np.linalg.solve(m, m @ m))),
}

with open(os.path.join(os.path.dirname(os.path.abspath(__file__)), "golden",
                       "numpy_tape_complex.json")) as _f:
    COMPLEX_GOLDEN = json.load(_f)


def test_complex_golden_cases_are_all_spelled():
    assert sorted(COMPLEX_SPELLINGS) == sorted(COMPLEX_GOLDEN)


@pytest.mark.parametrize("name", sorted(COMPLEX_SPELLINGS))
def test_complex_leaves_get_pytorchs_gradient(name):
    """A complex leaf (gradcheck takes none): NumPy's value, PyTorch's
    gradient (the conjugate Wirtinger derivative, recorded by
    scripts/golden_numpy_tape_complex.py)."""
    case = COMPLEX_GOLDEN[name]
    re, im = (np.asarray(p) for p in case["input"])
    z = tl.tensor(re + 1j * im, requires_grad=True)
    got = COMPLEX_SPELLINGS[name](z)
    want = COMPLEX_SPELLINGS[name](re + 1j * im)
    np.testing.assert_allclose(float(host(got)), want, rtol=1e-12)
    np.testing.assert_allclose(want, case["value"], rtol=1e-12)
    got.backward()
    g_re, g_im = (np.asarray(p) for p in case["grad"])
    np.testing.assert_allclose(host(z.grad), g_re + 1j * g_im, rtol=1e-10, atol=1e-12)


# ---- statistics and count models ---------------------------------------------------------------

def nan_masked_stats(x, mask=np.asarray([[True, False, False, True], [False, False, True, False],
                                        [False, True, False, False]])):
    """Missing values as NaN (np.where), then nanmean/nansum/nanvar/nanmax/
    nanstd: the NaNs' places get no gradient."""
    d = np.where(mask, np.nan, x)
    return (np.nanmean(d, axis=0) + np.nansum(d ** 2, axis=0) + np.nanvar(d, axis=0)
            + np.nanmax(d, axis=0) + np.nanstd(d, axis=0) + np.nanmin(d, axis=0)
            + np.nanprod(d, axis=0))


def test_nan_masked_statistics():
    x = RNG.standard_normal((3, 4))
    same_as_numpy(nan_masked_stats, x)
    t = leaf(x)
    nan_masked_stats(t).sum().backward()
    assert np.all(host(t.grad)[[0, 0, 1, 2], [0, 3, 2, 1]] == 0)


def count_models(log_mu, log_r, logit_p, k=np.asarray([0.0, 3, 1, 7, 2])):
    """Negative binomial and beta-binomial log-likelihoods by gammaln/
    betaln/xlogy/xlog1py, a zero-inflated Poisson by logaddexp and
    log_expit, a probit model by log_ndtr."""
    mu, r = np.exp(log_mu), np.exp(log_r)
    nb = (sp.gammaln(k + r) - sp.gammaln(r) - sp.gammaln(k + 1)
          + sp.xlogy(r, r / (r + mu)) + sp.xlogy(k, mu / (r + mu)))
    a, b = np.exp(log_r) + 1, np.exp(log_mu) + 1
    bb = sp.gammaln(9.0) - sp.gammaln(k + 1) - sp.gammaln(9 - k) \
        + sp.betaln(k + a, 9 - k + b) - sp.betaln(a, b)
    pi = sp.expit(logit_p)
    zip_ = np.where(k == 0, np.logaddexp(sp.log_expit(logit_p), sp.log_expit(-logit_p) - mu),
                    sp.log_expit(-logit_p) + sp.xlogy(k, mu) - mu - sp.gammaln(k + 1))
    probit = sp.log_ndtr(np.where(k > 1, 1.0, -1.0) * (log_mu - 0.5))
    return np.sum(nb + bb + zip_ + probit + sp.xlog1py(k, pi) * 0.01)


def test_count_models_with_scipy_special():
    same_as_numpy(count_models, RNG.standard_normal(5), RNG.standard_normal(5),
                  RNG.standard_normal(5), rtol=1e-11)


def mdn_loss(logits, mu, log_s, y):
    """A mixture density network's loss: a mixture of Laplace densities per
    target, mixed by np.logaddexp.reduce with weights from log-softmax."""
    log_pi = logits - np.logaddexp.reduce(logits, axis=1, keepdims=True)
    comp = -np.abs(y[:, None] - mu) / np.exp(log_s) - log_s - np.log(2.0)
    return -np.mean(np.logaddexp.reduce(log_pi + comp, axis=1))


def test_mixture_density_loss():
    n, k = 5, 3
    same_as_numpy(mdn_loss, RNG.standard_normal((n, k)), RNG.standard_normal((n, k)),
                  0.3 * RNG.standard_normal((n, k)), RNG.standard_normal(n))


def vae_loss(mu, logvar, W, x, eps=np.random.default_rng(4).standard_normal((3, 2))):
    """A variational autoencoder's loss: a reparameterised draw, a Bernoulli
    decoder by scipy.special.xlogy/xlog1py, the Gaussian KL term.  Its data
    x, 0s and 1s, is differentiated too (as a relaxed input would be)."""
    z = mu + np.exp(0.5 * logvar) * eps
    p = sp.expit(z @ W)
    recon = -np.sum(sp.xlogy(x, p) + sp.xlog1py(1 - x, -p))
    return recon - 0.5 * np.sum(1 + logvar - mu ** 2 - np.exp(logvar))


def test_vae_loss_with_binary_data():
    """xlogy(x, p) and scipy.special.xlog1py(x, y) sent a zero gradient to
    x where x == 0; PyTorch's (and the finite differences') is log(p) and
    log1p(y), 0 only where p <= 0 (y <= -1)."""
    same_as_numpy(vae_loss, RNG.standard_normal((3, 2)), 0.3 * RNG.standard_normal((3, 2)),
                  RNG.standard_normal((2, 4)), (RNG.random((3, 4)) > 0.5) * 1.0)
    x, y = leaf([0.0, 0.0, 0.0, 2.0]), leaf([0.3, 0.0, -0.2, 0.5])
    (np.sum(sp.xlogy(x, np.abs(y))) + np.sum(sp.xlog1py(x, y - 1.0))).backward()
    np.testing.assert_allclose(host(x.grad), [np.log(0.3) + np.log1p(-0.7), 0.0,
                                              np.log(0.2), np.log(0.5) + np.log1p(-0.5)])


def weighted_average_layer(x, w):
    """np.average with learned weights, returned=True (the sum of weights
    is recorded too), along an axis and over all."""
    avg, tot = np.average(x, axis=0, weights=np.exp(w), returned=True)
    return avg * tot + np.average(x, weights=np.exp(w)[:, None] * np.ones_like(x))


def test_weighted_average_with_learned_weights():
    same_as_numpy(weighted_average_layer, RNG.standard_normal((4, 3)), RNG.standard_normal(4))


def kron_layer(A, B, x):
    """A Kronecker-factored linear map: np.kron(A, B) @ x equals the
    reshape trick B X A^T, both recorded."""
    X = x.reshape(A.shape[1], B.shape[1]).T
    return np.concatenate([np.kron(A, B) @ x, (B @ X @ A.T).T.ravel()])


def test_kronecker_factored_layer():
    got, _ = same_as_numpy(kron_layer, RNG.standard_normal((2, 3)), RNG.standard_normal((3, 2)),
                           RNG.standard_normal(6))
    v = host(got)
    np.testing.assert_allclose(v[:6], v[6:], rtol=1e-12)


def conv2d_as_strided(x, w):
    """A 2-d convolution over windows from torchlike.numpy's as_strided
    (NumPy's own refuses a tensor), contracted by np.tensordot."""
    import torchlike.numpy as tnp
    strided = tnp.lib.stride_tricks.as_strided if isinstance(x, tl.Tensor) else \
        np.lib.stride_tricks.as_strided
    H, W = x.shape
    kh, kw = w.shape
    s0, s1 = x.strides
    win = strided(x, (H - kh + 1, W - kw + 1, kh, kw), (s0, s1, s0, s1))
    return np.tensordot(win, w, axes=([2, 3], [0, 1]))


def conv1d_tensordot(x, w):
    """conv1d by sliding windows and np.tensordot over channels and taps."""
    win = windows(x, w.shape[-1], axis=1)                  # (C, T-k+1, k)
    return np.tensordot(win, w, axes=([0, 2], [1, 2])).T   # (O, T-k+1)


def test_convolutions_by_strides_and_tensordot():
    same_as_numpy(conv2d_as_strided, RNG.standard_normal((5, 6)), RNG.standard_normal((2, 3)))
    same_as_numpy(conv1d_tensordot, RNG.standard_normal((2, 7)), RNG.standard_normal((3, 2, 3)))


def rope_attention(q, k, v):
    """Attention with rotary position embeddings: pairs rotated by np.cos/
    np.sin of positions, halves by reshape and np.stack, np.einsum scores,
    a causal mask from np.triu_indices written with -inf."""
    T, d = q.shape
    ang = np.arange(T)[:, None] * (10.0 ** (-np.arange(d // 2) / (d // 2)))[None, :]
    c, s = np.cos(ang), np.sin(ang)

    def rot(x):
        x1, x2 = x.reshape(T, d // 2, 2)[..., 0], x.reshape(T, d // 2, 2)[..., 1]
        return np.stack([x1 * c - x2 * s, x1 * s + x2 * c], axis=-1).reshape(T, d)

    scores = np.einsum("td,sd->ts", rot(q), rot(k)) / np.sqrt(d)
    scores[np.triu_indices(T, 1)] = -np.inf
    p = np.exp(scores - scores.max(axis=1, keepdims=True))
    return (p / p.sum(axis=1, keepdims=True)) @ v


def test_rotary_attention():
    T, d = 5, 4
    same_as_numpy(rope_attention, RNG.standard_normal((T, d)), RNG.standard_normal((T, d)),
                  RNG.standard_normal((T, d)))


def gram_schmidt(A, into_table=False):
    """Modified Gram-Schmidt: the columns equal np.linalg.qr's Q up to
    signs.  Written into np.zeros_like(A) column by column, the products
    keep views of the table that the next column's write changes, which
    backward refuses as PyTorch does (views share their base's version);
    kept in a list and stacked, it is recorded."""
    Q = np.zeros_like(A) if into_table else []
    for j in range(A.shape[1]):
        v = A[:, j]
        for i in range(j):
            q = Q[:, i] if into_table else Q[i]
            v = v - np.dot(q, v) * q
        if into_table:
            Q[:, j] = v / np.linalg.norm(v)
        else:
            Q.append(v / np.linalg.norm(v))
    return Q if into_table else np.stack(Q, axis=1)


def test_gram_schmidt():
    A = RNG.standard_normal((5, 3))
    got, _ = same_as_numpy(gram_schmidt, A)
    Qr = np.linalg.qr(A)[0]
    np.testing.assert_allclose(np.abs(host(got)), np.abs(Qr), rtol=1e-10)
    table = gram_schmidt(leaf(A), into_table=True)
    np.testing.assert_allclose(host(table), host(got), rtol=1e-12)
    with pytest.raises(RuntimeError, match="modified by an inplace operation"):
        table.sum().backward()


def pool_blocks(x):
    """2x2 max pooling by reshape and max over two axes, mean pooling by
    the same reshape."""
    B, H, W = x.shape
    blocks = x.reshape(B, H // 2, 2, W // 2, 2)
    return blocks.max(axis=(2, 4)) + np.mean(blocks, axis=(2, 4)) ** 2


def test_pooling_by_reshape_and_ties():
    x = RNG.standard_normal((2, 4, 6))
    same_as_numpy(pool_blocks, x)
    # a block of four equal values: the gradient of the maximum is shared,
    # PyTorch's amax convention (tests/golden/numpy_tape.json: max_axis_ties)
    t = leaf(np.full((1, 2, 2), 1.5))
    np.max(t.reshape(1, 1, 2, 1, 2), axis=(2, 4)).sum().backward()
    np.testing.assert_allclose(host(t.grad), np.full((1, 2, 2), 0.25))


# ---- what the programs found ------------------------------------------------------------------

def clip_in_place_layer(x, lo):
    """NumPy's in-place idioms through out= of the input itself: clipping
    activations, a running product, infinities replaced with copy=False."""
    h = x * 2.0
    np.clip(h, -1.0, 1.0, out=h)
    np.clip(h[1:], lo[0], 0.8, out=h[1:])               # a tensor bound, a view as out
    g = np.exp(x) * 1.0
    np.cumprod(g, axis=1, out=g)
    np.cumsum(g, axis=0, out=g)
    r = 1.0 / x
    np.nan_to_num(r, copy=False, posinf=3.0, neginf=-3.0)
    return h + g + r


def products_and_summaries_over_their_input(x):
    """Products and statistics written over the data they read, as NumPy
    code saves memory: out= the input, or a row or column of it."""
    w = x * 1.0
    np.dot(w, w.T, out=w)
    np.matmul(w, x, out=w)
    np.einsum("ij,jk->ik", w, x, out=w)
    np.std(w, axis=0, out=w[0])
    np.max(w, axis=1, out=w[:, 2])
    np.prod(w, axis=0, out=w[1])
    np.vecdot(w, x, out=w[:, 0])
    return w


def ufunc_methods_over_their_input(x):
    """Ufunc methods and masked ufunc calls writing over their operand."""
    w = x * 1.0
    np.multiply.accumulate(w, axis=1, out=w)
    np.maximum.reduce(w, axis=1, out=w[:, 0])
    np.logaddexp.reduce(w, axis=0, out=w[0])
    np.multiply(w, w, out=w, where=np.asarray([True, False, True]))
    v = np.multiply.outer(w[0], w[1]) * 1.0
    np.multiply.outer(v[0], v[2], out=v)
    return np.concatenate([w, v])


def test_out_of_the_input_itself_is_recorded():
    """np.clip(h, lo, hi, out=h), np.cumprod(g, out=g), np.nan_to_num(r,
    copy=False), np.dot/np.matmul/np.einsum(..., out=w) and reductions
    into a row of their own input (np.std(w, axis=0, out=w[0])) on a tensor
    that requires grad failed in backward ("modified by an inplace
    operation"): the op kept its input for the gradient and the result was
    written over it.  An operand sharing out='s memory is read through a
    recorded copy now."""
    x = np.asarray([[0.3, -0.9, 0.6], [1.4, -0.2, 0.05]])
    same_as_numpy(clip_in_place_layer, x, np.asarray([-0.4]))
    same_as_numpy(products_and_summaries_over_their_input, RNG.standard_normal((3, 3)) * 0.5,
                  rtol=1e-10)
    same_as_numpy(ufunc_methods_over_their_input, RNG.standard_normal((3, 3)) * 0.5)
    t = leaf(x)
    np.clip(t, -1, 1, out=t * 1.0)      # no alias, no copy: the input kept as it was
    r = t * 1.0
    np.clip(r, 0.0, 0.5, out=r)
    r.sum().backward()
    np.testing.assert_array_equal(host(t.grad), (x > 0) & (x < 0.5))


def test_repeated_writes_get_pytorchs_gradient():
    """y[[0, 0]] = v keeps the value written last (NumPy's and torchlike's
    value), but the gradient is PyTorch's index_put rule: every entry of v
    gets the gradient of its position, the overwritten one too (PyTorch
    calls repeated indices in a non-accumulating write undefined), so it
    differs from finite differences.  Documented in docs/autograd.md;
    np.add.at is the spelling that accumulates."""
    x = np.arange(12.0).reshape(3, 4)

    def write(t):
        y = t * 1.0
        y[[0, 0, 1]] = t[[1, 2, 2]] * 5
        return y

    got, leaves = same_as_numpy(write, x, grad=False)
    got.sum().backward()
    np.testing.assert_array_equal(host(leaves[0].grad), [[0] * 4, [5] * 4, [11] * 4])
    assert not gradcheck(write, [leaf(x)], raise_exception=False)


# ---- float32, second order, SciPy's linear algebra -----------------------------------------------

FLOAT32_PROGRAMS = {
    "crf": (crf_log_partition, [(4, 3), (3, 3)]),
    "soft_dtw": (soft_dtw, [(4,), (3,)]),
    "sinkhorn": (lambda C, a: sinkhorn(C, a, iters=10)[0], [(3, 3), (3,)]),
    "spline": (lambda y: natural_spline(y, np.linspace(0.1, 3.9, 7)), [(6,)]),
    "rk4": (rk4_flow, [(3,), (3, 3), (3,)]),
    "wasserstein": (wasserstein_1d, [(5,), (5,)]),
    "views": (view_writes, [(4, 3), (4,)]),
    "contrastive": (lambda z: contrastive_losses(z, [0, 2, 4], [1, 3, 5], [2, 5, 0]), [(6, 3)]),
    "mesh": (lambda V: mesh_area_and_normals(V + np.eye(4, 3, dtype=np.float32)), [(4, 3)]),
    "nan_stats": (nan_masked_stats, [(3, 4)]),
    "rope": (rope_attention, [(4, 4), (4, 4), (4, 4)]),
    "in_place_out": (products_and_summaries_over_their_input, [(3, 3)]),
}


@pytest.mark.parametrize("name", sorted(FLOAT32_PROGRAMS))
def test_programs_in_float32_keep_numpys_dtype(name):
    """The programs on float32 data: float32 results as NumPy's (Python
    numbers and float64 constants such as np.eye beside them), gradients in
    float32.  Two programs above are left out: PyTorch's promotion, which
    docs/numpy.md documents, makes an int64 ndarray times a float32 tensor
    float32 (neural_sort) and a float32 tensor minus np.float64 float32
    (mdn_loss), where NumPy gives float64."""
    f, shapes = FLOAT32_PROGRAMS[name]
    rng = np.random.default_rng(len(name))
    arrays = [rng.standard_normal(s) * 0.5 for s in shapes]
    got, leaves = same_as_numpy(f, *arrays, dtype=np.float32, rtol=2e-4, atol=2e-5)
    got.sum().backward()
    assert all(t.grad.dtype == tl.float32 for t in leaves)


@pytest.mark.parametrize("name", ["crf", "soft_dtw", "spline", "contrastive", "in_place_out"])
def test_second_order_through_the_programs(name):
    from torchlike.autograd import gradgradcheck
    f, shapes = FLOAT32_PROGRAMS[name]
    rng = np.random.default_rng(len(name))
    assert gradgradcheck(f, [leaf(rng.standard_normal(s) * 0.5) for s in shapes])


def gp_marginal_likelihood(x, y, log_ls, log_noise, linalg):
    """A Gaussian process's negative log marginal likelihood written with
    SciPy's cho_factor/cho_solve (torchlike.scipy.linalg's on tensors:
    SciPy's own converts with np.asarray) beside np.linalg."""
    K = np.exp(-0.5 * (x[:, None] - x[None, :]) ** 2 / np.exp(2 * log_ls)) \
        + np.exp(log_noise) * np.eye(len(x))
    c, lower = linalg.cho_factor(K, lower=True)
    alpha = linalg.cho_solve((c, lower), y)
    return 0.5 * y @ alpha + np.sum(np.log(np.diag(c))) + 0.5 * len(x) * np.log(2 * np.pi)


def test_gaussian_process_with_scipy_cholesky():
    import scipy.linalg
    import torchlike.scipy.linalg
    x, y = np.sort(RNG.uniform(0, 4, 6)), RNG.standard_normal(6)
    same_as_numpy(lambda x, y, a, b: gp_marginal_likelihood(
        x, y, a, b, torchlike.scipy.linalg if isinstance(x, tl.Tensor) else scipy.linalg),
        x, y, np.log(0.8), np.log(0.1), rtol=1e-10)
    with pytest.raises((TypeError, RuntimeError)):
        gp_marginal_likelihood(leaf(x), leaf(y), leaf(0.0), leaf(-2.0), scipy.linalg)


def reversed_and_aliased_writes(x):
    """NumPy's in-place arithmetic between views of one array: a reversed
    view written into (y[::-1] += ..., negative strides PyTorch has no
    tensor for), a row scaled by another row of the same array, the array
    times its own transpose and its reversal."""
    y = x * 1.0
    y[::-1] += 2.0 * y[0]
    y[0] *= y[1]
    y[:, ::-2] -= y[:, :2]
    z = y[:, :3] * 1.0
    z *= z.T
    z[::-1, ::-1] /= 1.5 + np.tanh(z)     # tanh keeps its result, not z
    w = y[2] * 1.0
    w *= w[::-1]
    return np.concatenate([y.ravel(), z.ravel(), w])


def test_in_place_arithmetic_between_views_of_one_array():
    """Two bugs, both silent or fatal in backward only:
    - an in-place write through a view with a negative stride
      (``y[::-1] += 1``, ``y[1, ::-1] *= 2``) on an array in a graph
      raised "as_strided: Negative strides are not supported" in backward
      (the base's CopySlices node addressed the view by as_strided);
    - an in-place op whose other operand shares the target's memory
      (``z *= z.T``, ``w *= w[::-1]``, ``y *= y.diagonal()``) gave wrong
      gradients with no error: the operand was saved as the view it is,
      whose values the write had changed, and its version is its base's,
      taken after the write.  It is saved as it was before the write now.
    (PyTorch has no negative strides, and refuses an overlapping
    ``mul_(y.t())`` in the forward.)"""
    x = RNG.standard_normal((3, 4)) + 2.0
    same_as_numpy(reversed_and_aliased_writes, x, rtol=1e-10)
    from torchlike.autograd import gradgradcheck
    assert gradgradcheck(reversed_and_aliased_writes, [leaf(x)])
    t = leaf(np.arange(1.0, 5.0).reshape(2, 2))
    y = t * 1.0
    y *= np.diagonal(y)
    y.sum().backward()
    np.testing.assert_allclose(host(t.grad), [[5.0, 4.0], [1.0, 10.0]])


def test_what_this_round_finds_refused_is_refused_by_name():
    x = leaf(RNG.standard_normal(4))
    y = x * 1.0
    for call, match in ((lambda: sp.logsumexp(y), "Can't call numpy()"),
                        (lambda: np.multiply(y, 2.0, out=y), "out=... arguments"),
                        (lambda: y.clip(-0.5, 0.5, out=y), "out=... arguments"),
                        (lambda: np.full(3, y[0]), "Can't call numpy()")):
        with pytest.raises(RuntimeError, match=match):
            call()
    # the spellings that record
    z = x * 1.0
    z *= 2.0
    np.clip(z, -0.5, 0.5, out=z)
    assert z.grad_fn is not None and gradcheck(lambda t: np.full(3, 1.0) * t[0], [x])
