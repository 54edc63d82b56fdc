"""NumPy programs on the tape, fourth round, in the manner of the first
three (tests/test_numpy_tape_programs.py, 2 and 3): model code written once
with NumPy (and scipy.special) and called on torchlike tensors that require
grad; values, dtypes and shapes against NumPy on the detached data,
gradients against finite differences (gradcheck in float64).  Ground the
earlier rounds leave: least squares three ways (batched solve, lstsq,
pinv, QR) and log-determinants three ways (slogdet, det, cholesky),
eigvalsh of either triangle, condition numbers of every order, einsum with
ellipses and repeated labels, top-k writes by put_along_axis and in-place
arithmetic through fancy, flat, diagonal and triangular indices, NaN-safe
double-where, the subgradients of clip/maximum/minimum at their ties,
trimmed means, MAD and quantile losses with a learned level, convolution
and correlation in every mode and length beside sliding windows and a
spectral convolution, padding modes under a sliding-window filter,
interpolation in x, xp and fp, polynomial models (polyval, poly1d, poly,
polyfit in its points and weights), special-function numerics at extreme
arguments, moments with ddof/where/correction/mean=, weighted averages,
products and round trips of joins and splits, scipy.special likelihoods,
whole models (a transformer block, IRLS by Newton's method, an HMM's
forward algorithm, an EM step, kernel ridge regression), float32
programs, 0-d and empty arrays, and non-contiguous leaves.

What they found, and is fixed:

- ``np.polyfit`` ran NumPy's code, which writes ``lhs /= scale`` over the
  Vandermonde matrix ``lhs * lhs`` kept for the tape: points ``x`` that
  require grad failed in backward ("modified by an inplace operation");
  and ``lhs *= w[:, None]`` multiplied an ndarray by weights that require
  grad in place, which was refused.  np.polyfit is torchlike's now, the same
  steps without writes (tests/test_grad_numpy.py).
- ``np.clip(x, lo, hi)`` with tensor bounds took ``maximum`` then
  ``minimum``: where x == lo == hi, x got a quarter of the gradient and the
  bounds the rest; ``torchlike.numpy.clip``, ``torch.clamp`` and PyTorch
  give x all of it.  Tensor bounds are clamp's now, in NumPy's promoted
  dtype (a golden case, tests/golden/numpy_tape.json:
  clip_tensor_bounds_meet).
- ``np.clip``'s ufunc keywords ``dtype=``, ``where=`` (with ``out=``) and
  ``casting=`` were dropped on tensors: ``np.clip(t, 0, 1,
  dtype=np.float32)`` stayed float64 and a masked write into out= wrote
  everywhere; they are NumPy's now (tests/test_numpy_tape_programs.py).
- ``np.max``/``np.min`` with ``initial=`` of an empty tensor, and
  ``np.linalg.pinv`` of an empty matrix, returned a new tensor that did not
  require grad, so backward from the result raised; they stay on the tape
  (tests/test_array_function.py).
- ``np.pad(x, w, constant_values=c)`` and ``mode='linear_ramp',
  end_values=c`` with values that require grad (a learned border) read
  them as host numbers, which refused them; they are recorded now
  (tests/test_numpy_tape_programs.py).
- A scipy.special ufunc given a Python number beside float32 data
  (``sp.xlogy(2.0, x)``, ``sp.gammainc(2.5, x)``, ``sp.betaln(x, 3)``,
  ``sp.yn(2, x)``) kept float32 by the ops' promotion, where SciPy runs,
  and returns, float64: NumPy takes the number as a weak scalar and
  searches SciPy's loops in their listed order, which puts float64's first
  for these; and float16 data, which no SciPy loop takes, is float64 there
  (the ops kept float16).  Float data runs SciPy's loop now
  (ufunc.resolve_dtypes; tests/test_grad_numpy.py; integer data keeps the
  default float, as docs/numpy.md has it for the float ops).
  tests/test_scipy_special.py's float32 test, which asserted float32 for
  ``sp.gammainc(2, x)``, compares with SciPy now.  NumPy's ``signature=``
  (``sig=``) was ignored by every ufunc on tensors (``np.exp(x32,
  signature='d->d')`` stayed float32); the operands are cast to its loop.
- scipy.special ufuncs with ``out=`` (``sp.expit(t, out=o)``, a tensor or
  an ndarray) raised "expit() got an unexpected keyword argument 'out'",
  through the C fast path too: their ops take none.  The result is
  written into out as NumPy does, and an input that requires grad gets
  PyTorch's refusal of out= as NumPy's ufuncs do (tests/test_grad_numpy.py).
- The gufuncs' ``axes=`` and ``axis=`` (``np.matmul(a, b, axes=[...])``,
  ``np.vecdot(a, b, axis=0)``) were dropped silently on tensors: the
  result was the call over the last axes.  The core axes are moved for the
  call now, and any other keyword without an implementation goes on to
  NumPy instead of being dropped (tests/test_ufunc.py).
- ``np.put_along_axis`` with indices that broadcast against the other
  axes (shape (1, k) for a (n, m) array) wrote the first row only, silently:
  scatter_ took the indices as they were, where NumPy indexes with them
  broadcast; they are expanded now (tests/test_array_function.py).

PyTorch's rules, kept by design: ``np.linalg.qr(a, mode='r')`` and
``mode='complete'`` of a tall matrix refuse to differentiate (PyTorch's
linalg.qr: the gradient needs Q, or Q's completion is arbitrary);
``np.linalg.qr(a, mode='raw')`` is geqrf, whose derivative PyTorch does not
implement, nor ``np.heaviside``'s.  NumPy's own dispatch decides what
reaches torchlike: ``np.pad(ndarray, w, constant_values=t)`` dispatches on
the array only, so NumPy converts ``t`` and refuses a tensor that requires
grad; np.polynomial's evaluation functions refuse learned coefficients
(round two's docstring).  Subgradients: ``np.median`` at a tie is
``torch.quantile(x, 0.5)``'s (the stable sort's middle element), not the
full-reduction ``torch.median``'s shared one; a tensor exponent of 0 at
x = 0 (``np.vander`` of a point at 0) has PyTorch's NaN second derivative.
PyTorch's promotion (docs/numpy.md) makes a float32 tensor beside an int64
count or an np.float64 scalar (``np.sqrt(d)``) float32 where NumPy gives
float64, so the float32 programs spell such scales as Python numbers.
"""
import numpy as np
import pytest
import scipy.special as sp
from numpy.lib.stride_tricks import sliding_window_view as windows

import torchlike as tl
import torchlike.numpy as tnp
import torchlike.scipy.special as tsp
from torchlike.autograd import gradgradcheck
from test_numpy_tape_programs import leaf, host, same_as_numpy

RNG = np.random.default_rng(44)


def spd(a, ridge=1.0):
    """A symmetric positive definite matrix (a stack of them) from any."""
    return a @ np.swapaxes(a, -1, -2) + ridge * np.eye(a.shape[-1])


# ---- linear algebra ----------------------------------------------------------------------------

def ridge_three_ways(X, y, log_lam):
    """Ridge regression by the batched normal equations (np.linalg.solve of
    a stack), by np.linalg.lstsq of the augmented system and by
    np.linalg.pinv: the same weights, returned side by side."""
    lam = np.exp(log_lam)
    d = X.shape[-1]
    G = np.swapaxes(X, -1, -2) @ X + lam * np.eye(d)
    w_solve = np.linalg.solve(G, np.swapaxes(X, -1, -2) @ y[..., None])[..., 0]
    w_lstsq = np.stack([np.linalg.lstsq(np.concatenate([Xb, np.sqrt(lam) * np.eye(d)]),
                                        np.concatenate([yb, np.zeros(d)]), rcond=None)[0]
                        for Xb, yb in zip(X, y)])
    w_pinv = np.einsum("bij,bj->bi", np.linalg.pinv(X.swapaxes(1, 2) @ X + lam * np.eye(d)),
                       np.einsum("bji,bj->bi", X, y))
    return np.stack([w_solve, w_lstsq, w_pinv])


def test_ridge_regression_by_solve_lstsq_and_pinv():
    X, y = RNG.standard_normal((2, 6, 3)), RNG.standard_normal((2, 6))
    got, _ = same_as_numpy(ridge_three_ways, X, y, np.log(0.3), rtol=1e-10)
    w = host(got)
    np.testing.assert_allclose(w[1], w[0], rtol=1e-10)
    np.testing.assert_allclose(w[2], w[0], rtol=1e-10)


def log_dets(A):
    """Three log-determinants of a stack of SPD matrices: slogdet, log det,
    and twice the log of cholesky's diagonal (upper=True's too)."""
    S = spd(A)
    sign, logabs = np.linalg.slogdet(S)
    L = np.linalg.cholesky(S)
    U = np.linalg.cholesky(S, upper=True)
    return np.stack([sign * logabs, np.log(np.linalg.det(S)),
                     2 * np.sum(np.log(np.diagonal(L, axis1=-2, axis2=-1)), axis=-1),
                     2 * np.sum(np.log(np.einsum("...ii->...i", U)), axis=-1)])


def test_log_determinants_three_ways():
    got, _ = same_as_numpy(log_dets, RNG.standard_normal((3, 4, 4)), rtol=1e-10)
    v = host(got)
    for row in v[1:]:
        np.testing.assert_allclose(row, v[0], rtol=1e-10)


def qr_least_squares(A, b):
    """Least squares by the reduced QR (R^-1 Q^T b) beside lstsq, and the
    batched QR's R of the transposed stack."""
    Q, R = np.linalg.qr(A)
    x_qr = np.linalg.solve(R, Q.T @ b)
    x_ls = np.linalg.lstsq(A, b, rcond=None)[0]
    R2 = np.linalg.qr(np.stack([A, A[::-1]]).swapaxes(1, 2)[:, :, :3]).R
    return np.concatenate([x_qr, x_ls, np.abs(R2).ravel()])


def test_least_squares_by_qr():
    got, _ = same_as_numpy(qr_least_squares, RNG.standard_normal((6, 3)), RNG.standard_normal(6),
                           rtol=1e-10)
    np.testing.assert_allclose(host(got)[:3], host(got)[3:6], rtol=1e-10)


def spectral_barrier(A):
    """A log-barrier on the spectrum of a symmetric stack, eigvalsh reading
    the lower triangle and the upper one of the same symmetric matrices."""
    S = spd(A, ridge=0.5)
    lo, up = np.linalg.eigvalsh(S), np.linalg.eigvalsh(S, UPLO="U")
    return -np.sum(np.log(lo), axis=-1) + np.max(up, axis=-1) + np.linalg.eigh(S)[0][..., 0]


def test_eigvalsh_of_either_triangle():
    A = RNG.standard_normal((2, 3, 3))
    same_as_numpy(spectral_barrier, A, rtol=1e-10)
    # on a matrix that is not symmetric each reads its own triangle only
    B = RNG.standard_normal((3, 3))
    for uplo, keep in (("L", np.tril), ("U", np.triu)):
        t = leaf(B)
        np.sum(np.linalg.eigvalsh(t, UPLO=uplo) ** 2).backward()
        np.testing.assert_array_equal(host(t.grad) == 0, keep(np.ones((3, 3))) == 0)


CONDITION_ORDERS = [None, "fro", "nuc", 1, -1, 2, -2, np.inf, -np.inf]


@pytest.mark.parametrize("p", CONDITION_ORDERS, ids=str)
def test_condition_numbers_of_every_order(p):
    """np.linalg.cond of a stack (NumPy's code: norms of the matrix and of
    its inverse, or the ratio of singular values)."""
    A = RNG.standard_normal((2, 3, 3)) + 2 * np.eye(3)
    same_as_numpy(lambda a: np.linalg.cond(a, p), A, rtol=1e-9)


def test_qr_modes_without_a_gradient_are_pytorchs_refusals():
    a = leaf(RNG.standard_normal((4, 3)))
    for mode, match in (("r", "mode='r' does not compute"), ("complete", "not differentiable")):
        r, want = np.linalg.qr(a, mode=mode), np.linalg.qr(host(a), mode=mode)
        r, want = (r, want) if mode == "r" else (r[1], want[1])
        np.testing.assert_allclose(np.abs(host(r)), np.abs(want), rtol=1e-12, atol=1e-14)
        with pytest.raises(RuntimeError, match=match):
            r.sum().backward()
    # the square matrix's complete Q is its reduced one: differentiable
    same_as_numpy(lambda m: np.linalg.qr(m, mode="complete")[0] @ np.diag([1.0, 2.0, 3.0]),
                  RNG.standard_normal((3, 3)), rtol=1e-10)


# ---- einsum ------------------------------------------------------------------------------------

def einsum_program(A, B, W, x):
    """einsum with ellipses (leading, middle, broadcasting), repeated labels
    (trace, diagonal, a batch of traces, the diagonal of a cube), one operand
    three times, a bilinear form and the sublist spelling."""
    terms = [np.einsum("...ij,...jk->...ik", A, B).sum(),
             np.einsum("i...j,j...->i...", A, B[:, :, :3].swapaxes(0, 1)).sum(),
             np.einsum("...i,...i->...", A[:, :1], B[0, :, :3].T).sum(),
             np.einsum("ii", A[0, :, :3]), np.einsum("ii->i", A[1, :, :3]).sum(),
             np.einsum("bii->b", A[:, :, :3]).sum(),
             np.einsum("iii->i", np.einsum("i,j,k->ijk", x, x, x)).sum(),
             np.einsum("ij,jk,ki->", A[0, :, :3], A[0, :, :3], A[0, :, :3]),
             np.einsum("i,oij,j->o", x, W, x[::-1]).sum(),
             np.einsum(A, [Ellipsis, 0, 1], B[0], [1, 2], [Ellipsis, 0, 2]).sum()]
    return np.stack(terms)


def test_einsum_with_ellipses_and_repeated_labels():
    A, B = RNG.standard_normal((2, 3, 4)), RNG.standard_normal((2, 4, 3))
    got, _ = same_as_numpy(einsum_program, A, B, RNG.standard_normal((2, 3, 3)),
                           RNG.standard_normal(3), rtol=1e-11)
    v = host(got)
    np.testing.assert_allclose(v[3], np.trace(A[0, :, :3]), rtol=1e-12)
    assert gradgradcheck(lambda a, w: einsum_program(a, leaf(B).detach(), w,
                                                     leaf([0.3, -0.2, 0.5]).detach()),
                         [leaf(A), leaf(RNG.standard_normal((2, 3, 3)))])


# ---- gathers and writes ------------------------------------------------------------------------

def top_k_writes(scores, values):
    """The row-wise top-2 gathered by take_along_axis over argsort, written
    back into a copy by put_along_axis with values that require grad, the
    largest one replaced per row, and both ends of every row replaced by
    indices that broadcast (put_along_axis wrote the first row only)."""
    idx = np.argsort(scores, axis=1)[:, -2:]
    top = np.take_along_axis(scores, idx, axis=1)
    out = np.zeros_like(scores)
    np.put_along_axis(out, idx, top * values[:, None], axis=1)
    best = scores.copy()
    np.put_along_axis(best, np.argmax(scores, axis=1, keepdims=True), values[:, None], axis=1)
    ends = scores.copy()   # indices of shape (1, 2): broadcast against the rows
    np.put_along_axis(ends, np.asarray([[0, -1]]), values[:2] ** 2, axis=1)
    return out + best + ends + np.take_along_axis(scores, np.asarray([[-1], [0], [-4]]), axis=1)


def test_top_k_writes_by_put_along_axis():
    scores = np.asarray([[0.3, -1.0, 2.0, 0.7], [1.5, 0.1, -0.3, 0.9], [0.2, 0.4, 1.1, -2.0]])
    same_as_numpy(top_k_writes, scores, RNG.standard_normal(3))


def index_writes(a, v):
    """In-place arithmetic on copies through every kind of index: fancy
    indices with a repeat (NumPy's buffered value: the last write wins),
    booleans, np.diag_indices, np.triu_indices from the transpose (a
    symmetrised copy), .flat, a row swap, an overlapping slice and a loop of
    running sums."""
    b = a.copy()
    b[[0, 2]] += v[:2, None]
    b[b > 1.0] *= v[2]
    c = a[:3, :3].copy()
    c[np.diag_indices(3)] += v[:3]
    c[np.triu_indices(3, 1)] = c.T[np.triu_indices(3, 1)]
    d = a[0].copy()
    d.flat[[1, 3]] = v[:2]
    d[1:] = d[:-1] * 0.5
    for i in range(1, len(d)):
        d[i] += d[i - 1]
    e = a.copy()
    e[[0, 1]] = e[[1, 0]]
    return np.concatenate([b.ravel(), c.ravel(), d, e[:2].ravel()])


def test_in_place_arithmetic_through_every_index():
    a, v = RNG.standard_normal((3, 4)), RNG.standard_normal(3)
    got, _ = same_as_numpy(index_writes, a, v)
    c = host(got)[12:21].reshape(3, 3)
    np.testing.assert_array_equal(c, c.T)
    # b[[0, 0]] += v: NumPy's value (b[0] + v[1]), as torchlike's; the
    # gradient is PyTorch's index_put rule (round three's docstring)
    t = leaf(np.zeros(3))
    y = t * 1.0
    y[[0, 0]] += leaf([1.0, 2.0])
    np.testing.assert_array_equal(host(y), [2.0, 0.0, 0.0])


def scatter_sums(a, v):
    """Accumulation that NumPy spells np.add.at / np.subtract.at, repeated
    targets included, and a histogram of learned weights by np.bincount."""
    b = np.zeros_like(a)
    np.add.at(b, (np.asarray([0, 0, 2, 0]), np.asarray([1, 1, 3, 1])), v * a[1, 1])
    np.subtract.at(b, [2, 2], a[0])
    h = np.bincount(np.asarray([0, 2, 2, 1, 0]), weights=np.tanh(np.concatenate([v, a[0, :1]])),
                    minlength=4)
    return np.concatenate([(b + a).ravel(), h])


def test_scatter_accumulation():
    got, (a, v) = same_as_numpy(scatter_sums, RNG.standard_normal((3, 4)), RNG.standard_normal(4))
    # the repeated target (0, 1) gets three values
    np.testing.assert_allclose(host(got)[1] - host(a)[0, 1],
                               host(v)[[0, 1, 3]].sum() * host(a)[1, 1], rtol=1e-12)


# ---- where, and the subgradients at ties -------------------------------------------------------

def nan_safe_layer(x, y):
    """NaN-safe spellings: the double-where for sqrt and log of values that
    may be negative (the unused branch's NaN never reaches the gradient),
    np.where broadcasting a column against a row and a 0-d choice, a masked
    mean that divides by a count kept above zero."""
    pos = x > 0
    root = np.where(pos, np.sqrt(np.where(pos, x, 1.0)), 0.0)
    logs = np.where(pos, np.log(np.where(pos, x, 1.0)), -x)
    wide = np.where(x[:, None] > y[None, :], x[:, None], y[0])
    mask = y > 0
    masked_mean = np.sum(np.where(mask, y, 0.0)) / np.maximum(np.sum(mask), 1)
    return np.concatenate([root, logs, wide.ravel(), [masked_mean]])


def test_nan_safe_double_where():
    x = np.asarray([-1.0, 0.4, 2.0, -0.3, 1.2])
    same_as_numpy(nan_safe_layer, x, RNG.standard_normal(3))
    # the single-where spelling sends NaN back from the unused branch
    t = leaf(x)
    with np.errstate(invalid="ignore"):
        np.sum(np.where(t > 0, np.sqrt(t), 0.0)).backward()
    assert np.isnan(host(t.grad)[x < 0]).all()


TIE_GRADIENTS = {
    # NumPy's spelling, the leaves' values, PyTorch's gradient of the sum
    "maximum splits a tie": (lambda a, b: np.maximum(a, b), ([1.0, 2.0], [1.0, 1.0]),
                             ([0.5, 1.0], [0.5, 0.0])),
    "minimum splits a tie": (lambda a, b: np.minimum(a, b), ([1.0, 2.0], [1.0, 1.0]),
                             ([0.5, 0.0], [0.5, 1.0])),
    "fmin splits a tie": (lambda a, b: np.fmin(a, b), ([1.0, 2.0], [1.0, 1.0]),
                          ([0.5, 0.0], [0.5, 1.0])),
    "relu by maximum(x, 0.0)": (lambda a: np.maximum(a, 0.0), ([0.0, 1.0, -1.0],),
                                ([0.5, 1.0, 0.0],)),
    "clip at number bounds": (lambda a: np.clip(a, -1.0, 1.0), ([-1.0, 1.0, 0.5, 2.0],),
                              ([0.0, 0.0, 1.0, 0.0],)),
    "clip at tensor bounds": (lambda a, lo, hi: np.clip(a, lo, hi),
                              ([-1.0, 1.0, 0.5, 3.0], [-1.0, -1.0, 0.5, 4.0],
                               [1.0, 1.0, 0.5, 2.0]),
                              ([0.5, 0.5, 1.0, 0.0], [0.5, 0.0, 0.0, 0.0],
                               [0.0, 0.5, 0.0, 1.0])),
    "max of ties": (lambda a: np.max(a), ([1.0, 3.0, 3.0],), ([0.0, 0.5, 0.5],)),
    "median of ties is quantile's": (lambda a: np.median(a), ([2.0, 1.0, 2.0],),
                                     ([1.0, 0.0, 0.0],)),
    "median of an even count": (lambda a: np.median(a), ([2.0, 1.0, 2.0, 5.0],),
                                ([0.5, 0.0, 0.5, 0.0],)),
    "sort of ties is stable": (lambda a: np.sort(a) * np.asarray([1.0, 2.0, 3.0]),
                               ([2.0, 1.0, 2.0],), ([2.0, 1.0, 3.0],)),
    "running maximum": (lambda a: np.maximum.accumulate(a), ([2.0, 2.0, 1.0],),
                        ([1.0, 2.0, 0.0],)),
}


@pytest.mark.parametrize("name", sorted(TIE_GRADIENTS))
def test_gradients_at_ties_are_pytorchs(name):
    """PyTorch's subgradients at ties (torch.maximum/minimum/fmin split, clamp
    sends nothing at a number bound, splits at a tensor bound and gives x all
    of it where min == max == x, amax shares, sort is stable, cummax picks
    the last): recorded with PyTorch 2.15 for this round; np.clip with
    tensor bounds gave x a quarter at min == max == x before.  np.median is
    torch.quantile(x, 0.5)'s (NumPy's median is that quantile, an average of
    the middle pair for an even count): the stable sort's middle element
    gets it, as torch.median(x, dim) gives it to its index, where the
    full-reduction torch.median(x) shares it among equal values."""
    f, values, want = TIE_GRADIENTS[name]
    leaves = [leaf(v) for v in values]
    f(*leaves).sum().backward()
    for t, g in zip(leaves, want):
        np.testing.assert_array_equal(host(t.grad), g)
    # the namespace's spelling agrees
    if name.startswith("clip"):
        again = [leaf(v) for v in values]
        tnp.clip(*again).sum().backward() if len(again) == 3 else \
            tnp.clip(again[0], -1.0, 1.0).sum().backward()
        for t, g in zip(again, want):
            np.testing.assert_array_equal(host(t.grad), g)


# ---- order statistics --------------------------------------------------------------------------

def robust_scale_losses(r, q_logit):
    """Robust losses by order statistics: a trimmed mean by np.sort, the
    median absolute deviation by two np.median calls, a pinball loss at a
    learned quantile level (np.quantile with q from expit), the mean of the
    two largest by np.partition, and np.nanquantile of data with gaps."""
    n = r.size
    trimmed = np.mean(np.sort(r)[1:n - 1])
    mad = np.median(np.abs(r - np.median(r)))
    q = sp.expit(q_logit)
    level = np.quantile(r, q)
    pinball = np.mean(np.maximum(q * (r - level), (q - 1) * (r - level)))
    top2 = np.mean(np.partition(r, n - 2)[n - 2:])
    gappy = np.nanquantile(np.where(np.abs(r) > 1.5, np.nan, r), [0.25, 0.75])
    return np.stack([trimmed, mad, pinball, top2, gappy[0], gappy[1],
                     np.percentile(r, 40, method="midpoint")])


def test_trimmed_mean_mad_and_quantile_losses():
    r = np.asarray([0.3, -1.2, 2.0, 0.7, -0.4, 1.1, -2.1, 0.05, 1.6])   # distinct values
    same_as_numpy(robust_scale_losses, r, 0.2)


# ---- signals -----------------------------------------------------------------------------------

LENGTHS = [(6, 4), (5, 2), (4, 4), (3, 6), (2, 5)]


@pytest.mark.parametrize("n, m", LENGTHS)
def test_convolution_and_correlation_in_every_mode(n, m):
    """np.convolve and np.correlate in 'full', 'same' and 'valid' (and mode
    numbers), for a longer, equal and shorter second operand: NumPy swaps
    the operands of convolve and centres 'same' by its own rule."""
    a, v = RNG.standard_normal(n), RNG.standard_normal(m)
    for mode in ("full", "same", "valid", 0, 1, 2):
        same_as_numpy(lambda a, v: np.concatenate([np.convolve(a, v, mode),
                                                   np.correlate(a, v, mode)]), a, v)


def signal_pipeline(x, k):
    """Integrate, difference and filter a signal: np.cumsum, np.diff with
    prepend, np.convolve 'same', np.correlate against a windowed copy, and
    np.gradient of the result."""
    velocity = np.cumsum(x) * 0.1
    jerk = np.diff(velocity, n=2, prepend=velocity[:1])
    smooth = np.convolve(jerk, k, mode="same")
    matched = np.correlate(smooth, k * np.hanning(len(k)), mode="valid")
    return np.concatenate([smooth, matched, np.gradient(smooth, 0.1)])


def spectral_convolution(x, k):
    """The same full convolution by multiplying rfft's (zero-padded to the
    full length), irfft'd back."""
    n = len(x) + len(k) - 1
    return np.fft.irfft(np.fft.rfft(x, n) * np.fft.rfft(k, n), n)


def test_signal_pipeline_and_a_spectral_convolution():
    x, k = RNG.standard_normal(10), RNG.standard_normal(3)
    same_as_numpy(signal_pipeline, x, k)
    got, _ = same_as_numpy(spectral_convolution, x, k, rtol=1e-10, atol=1e-12)
    np.testing.assert_allclose(host(got), np.convolve(x, k), rtol=1e-10, atol=1e-12)


def spectral_losses(img):
    """Spectral losses: the power spectrum by rfft2, a band-pass by fft2 with
    a cropped and padded s=, ifftshift of the centred spectrum back, hfft of
    a Hermitian half, a low-pass reconstruction by irfft with an odd n."""
    power = np.abs(np.fft.rfft2(img)) ** 2
    band = np.abs(np.fft.fft2(img, s=(4, 6)))[1:3, 1:4]
    centred = np.fft.fftshift(np.fft.fft2(img, norm="ortho"))
    back = np.real(np.fft.ifft2(np.fft.ifftshift(centred), norm="ortho"))
    row = img[0]
    herm = np.fft.hfft(np.fft.ihfft(row), n=len(row))
    low = np.fft.irfft(np.fft.rfft(row)[:2], n=5)
    return np.concatenate([power.ravel() / 10, band.ravel(), (back - img).ravel(), herm, low])


def test_spectral_losses_by_fft2_rfft2_and_hfft():
    img = RNG.standard_normal((3, 4))
    got, _ = same_as_numpy(spectral_losses, img, rtol=1e-10, atol=1e-12)
    v = host(got)
    # after the power (3 x 3) and the band (2 x 3): ifft2(fft2(x)) - x, hfft(ihfft(x))
    np.testing.assert_allclose(v[15:27], 0, atol=1e-12)
    np.testing.assert_allclose(v[27:31], img[0], rtol=1e-12)


PAD_MODES = [("reflect", {}), ("symmetric", {}), ("edge", {}), ("wrap", {}),
             ("reflect", {"reflect_type": "odd"}), ("symmetric", {"reflect_type": "odd"}),
             ("constant", {"constant_values": 0.5})]


@pytest.mark.parametrize("mode, kwargs", PAD_MODES, ids=[m + str(k) for m, k in PAD_MODES])
def test_padding_then_a_sliding_window_filter(mode, kwargs):
    """A 'same'-size filter: np.pad by each mode, windows by
    sliding_window_view (1-d and 2-d), contracted with learned taps; the
    pad wider than the signal for the periodic modes."""
    x, k, K = RNG.standard_normal(5), RNG.standard_normal(5), RNG.standard_normal((3, 3))
    img = RNG.standard_normal((4, 5))
    same_as_numpy(lambda x, k: windows(np.pad(x, 2, mode=mode, **kwargs), 5) @ k, x, k)
    same_as_numpy(lambda im, K: np.einsum("hwij,ij->hw", windows(np.pad(im, 1, mode=mode,
                                                                        **kwargs), (3, 3)), K),
                  img, K)
    if mode in ("wrap", "symmetric", "edge"):
        same_as_numpy(lambda x: np.pad(x[:3], (7, 4), mode=mode, **kwargs), x)


# ---- interpolation and polynomials -------------------------------------------------------------

def learned_curve(y, x, xp_steps):
    """A piecewise-linear curve learned three ways: its values (fp), the
    points it is read at (x, beyond both ends too), and its knots (xp as a
    cumulative sum of positive steps)."""
    grid = np.arange(5.0)
    xp = np.cumsum(np.exp(xp_steps))
    return np.concatenate([np.interp(np.linspace(-1.0, 5.0, 9), grid, y),
                           np.interp(x, grid, np.sin(grid)),
                           np.interp(np.linspace(0.5, 3.5, 4), xp, grid)])


def test_interpolation_in_values_points_and_knots():
    x = np.asarray([0.3, 1.7, 3.9, -1.0, 6.0, 2.5])
    same_as_numpy(learned_curve, RNG.standard_normal(5), x, np.log(np.full(5, 0.9)))


def polynomial_models(c, x, r):
    """Polynomials with learned coefficients and points: np.polyval of a
    matrix of points, np.poly1d and its derivative, np.poly of learned
    roots (whose values vanish there), np.polyder/np.polyint/np.polyadd,
    and np.polyval of np.polymul."""
    P = np.poly1d(c)
    from_roots = np.poly(r)
    return np.concatenate([np.polyval(c, x).ravel(), P(x[0]) + P.deriv()(x[1]),
                           np.polyval(from_roots, r),
                           np.polyval(np.polyder(c, 2), x[0]) + np.polyval(np.polyint(c), x[1]),
                           np.polyadd(c, from_roots), [np.polyval(np.polymul(c, r), 0.7)]])


def test_polynomial_models_with_learned_coefficients():
    got, _ = same_as_numpy(polynomial_models, RNG.standard_normal(4),
                           RNG.standard_normal((2, 2)), np.asarray([0.5, -1.0, 2.0]))
    np.testing.assert_allclose(host(got)[6:9], 0, atol=1e-12)   # the roots


def weighted_fit(x, y, w):
    """A weighted least-squares quadratic by np.polyfit (learned points,
    values and weights), its covariance, its residual by full=True, and the
    fitted curve by np.polyval."""
    coef, cov = np.polyfit(x, y, 2, w=np.exp(w), cov=True)
    resid = np.polyfit(x, y, 2, full=True)[1]
    return np.concatenate([coef, cov.ravel(), resid, np.polyval(coef, x)])


def test_polyfit_in_its_points_and_weights():
    """np.polyfit with x or w that require grad: NumPy's code failed in
    backward (``lhs /= scale`` over what ``lhs * lhs`` kept) or refused the
    weights (``lhs *= w[:, None]`` into an ndarray); polyfit is torchlike's
    now."""
    x = np.linspace(0, 2, 7) + 0.05 * RNG.standard_normal(7)
    got, _ = same_as_numpy(weighted_fit, x, np.sin(x) + 0.1 * RNG.standard_normal(7),
                           0.3 * RNG.standard_normal(7), rtol=1e-9, atol=1e-11)
    assert gradgradcheck(lambda y: np.polyfit(x, y, 1), [leaf(np.cos(x))])


# ---- numerics ----------------------------------------------------------------------------------

def stable_numerics(a, b):
    """Functions whose accurate forms a loss relies on, at small and large
    arguments: hypot and arctan2 in every quadrant, logaddexp/logaddexp2
    far from 0, log1p/expm1 near 0, sinc, cbrt of negatives, exp2/log2/log10,
    float_power, fmod/remainder with tensor divisors, copysign, ldexp."""
    return np.concatenate([np.hypot(a, b), np.arctan2(a, b), np.logaddexp(800 * a, 800 * b) / 800,
                           np.logaddexp2(a, -b), np.log1p(1e-3 * a) * 1e3,
                           np.expm1(1e-3 * b) * 1e3, np.sinc(a), np.cbrt(b),
                           np.exp2(a) + np.log2(np.abs(b)) + np.log10(np.abs(a)),
                           np.float_power(np.abs(a), b), np.fmod(a, b) + np.remainder(a, b),
                           np.copysign(a, b), np.ldexp(a, np.asarray([1, -2, 3, 0])),
                           np.deg2rad(a) + np.rad2deg(b) / 100])


def test_numerics_at_small_and_large_arguments():
    a = np.asarray([1.0, -1.0, 1.3, -0.7])
    b = np.asarray([0.9, 1.1, -1.2, -0.4])       # every quadrant, no remainder at a kink
    same_as_numpy(stable_numerics, a, b, rtol=1e-11)
    # log1p and expm1 keep their slopes where 1 + x rounds to 1
    t = leaf([1e-17, -1e-17])
    np.sum(np.log1p(t) + np.expm1(t)).backward()
    np.testing.assert_allclose(host(t.grad), [2.0, 2.0], rtol=1e-15)


# ---- moments and weighted averages ------------------------------------------------------------

def moments(x, w):
    """np.var/np.std with ddof=, correction= (NumPy 2), where= (with ddof
    too), mean= and keepdims over an axis tuple; np.nanvar with ddof of data
    with gaps; np.average with learned weights along an axis, over all,
    with keepdims and returned=."""
    m = np.asarray([[1, 1, 0, 1], [1, 0, 1, 1], [0, 1, 1, 1]], bool)
    x3 = x.reshape(3, 2, 2)
    weights = np.exp(w)
    avg, total = np.average(x, axis=1, weights=weights, returned=True)
    return np.concatenate([
        np.var(x, axis=1, ddof=1), np.std(x, axis=0, ddof=2), np.std(x, axis=1, correction=1),
        np.var(x, axis=1, where=m), np.std(x, axis=1, ddof=1, where=m),
        np.var(x, axis=0, mean=np.mean(x, axis=0, keepdims=True)),
        np.var(x3, axis=(0, 2), keepdims=True, ddof=1).ravel(),
        np.nanvar(np.where(x > 1.0, np.nan, x), axis=1, ddof=1),
        avg * total, [np.average(x, weights=np.outer(np.ones(3), weights))],
        np.average(x, axis=1, weights=weights, keepdims=True).ravel()])


def test_moments_with_ddof_where_and_learned_weights():
    x = np.asarray([[0.3, -1.2, 2.0, 0.7], [1.4, 0.1, -0.5, 0.9], [-0.2, 0.6, 1.8, -1.1]])
    same_as_numpy(moments, x, RNG.standard_normal(4))


# ---- products, joins and splits ---------------------------------------------------------------

def products(a, b, M):
    """np.outer (of 2-d operands, flattened as NumPy does), np.kron of a 3-d
    and a 2-d array, np.tensordot with an int and with negative axes,
    np.inner and np.vdot, and the gufuncs' axis=/axes= (np.vecdot along the
    first axis, np.matmul over axes that are not the last two)."""
    return np.concatenate([np.outer(M, b).ravel(), np.kron(a.reshape(2, 1, 2), M).ravel(),
                           np.tensordot(M, M.T, 1).ravel(), np.tensordot(a, b[:4], axes=0).ravel(),
                           np.tensordot(M[None], M[:, :, None], axes=([-1, 1], [0, -2])).ravel(),
                           np.inner(M, M).ravel(), [np.vdot(M, M.T)],
                           np.vecdot(M, M.T, axis=0),
                           np.matmul(M[None], a.reshape(2, 2, 1), axes=[(1, 2), (0, 1), (0, 2)])
                           .ravel()])


def test_outer_kron_tensordot_inner_vdot():
    same_as_numpy(products, RNG.standard_normal(4), RNG.standard_normal(5),
                  RNG.standard_normal((2, 2)))


def join_round_trips(a, b):
    """Splits undone by joins (the result is the input, rearranged and put
    back): np.split at indices, np.array_split in uneven parts, np.unstack
    and np.stack, np.dsplit/np.vsplit, np.concatenate(axis=None),
    np.insert/np.append/np.delete."""
    parts = np.split(a, [1, 2, 3], axis=1)                  # the last part empty
    back = np.concatenate([parts[2], parts[3], parts[0], parts[1]], axis=1)
    back = np.concatenate(np.split(back, [1], axis=1)[::-1], axis=1)
    pieces = np.concatenate([p * (i + 1) for i, p in enumerate(np.array_split(b, 3))])
    rows = np.stack(list(np.unstack(a, axis=0)), axis=0)
    cube = a.reshape(2, 2, 3)
    dv = np.dsplit(cube, [1])[1].sum() + np.vsplit(cube, 2)[0].sum()
    edited = np.delete(np.insert(np.append(b, a[0, :2]), 2, b[0]), [0, 3])
    return np.concatenate([back, rows], axis=None), pieces, dv, edited


def test_join_and_split_round_trips():
    a, b = RNG.standard_normal((4, 3)), RNG.standard_normal(7)
    for i in range(4):
        got, _ = same_as_numpy(lambda a, b: join_round_trips(a, b)[i], a, b)
        if i == 0:
            np.testing.assert_array_equal(host(got), np.concatenate([a.ravel(), a.ravel()]))


# ---- scipy.special in likelihoods -------------------------------------------------------------

def special_likelihoods(a, b, k):
    """Likelihood terms from scipy.special: a Gamma log-density (gammaln,
    xlogy), a Beta one (betaln), a Dirichlet's gradient statistic (digamma),
    a probit and a logit link (ndtr/log_ndtr, expit/logit/log_expit), a
    censored normal (erfc, erfcx), entropies (entr, rel_entr, kl_div),
    a von Mises normaliser (i0e), regularised incomplete gammas, a
    Box-Cox term and softplus."""
    alpha, beta = np.exp(a), np.exp(b)
    gamma_ll = sp.xlogy(alpha - 1, k) - k * beta + sp.xlogy(alpha, beta) - sp.gammaln(alpha)
    beta_ll = sp.xlogy(alpha - 1, k / 4) + sp.xlog1py(beta - 1, -k / 4) - sp.betaln(alpha, beta)
    dirichlet = sp.digamma(alpha) - sp.digamma(np.sum(alpha))
    links = sp.log_ndtr(a) + sp.ndtr(b) + sp.logit(sp.expit(a) * 0.9 + 0.05) + sp.log_expit(b)
    censored = np.log(sp.erfc(a) / 2) + sp.erfcx(np.abs(b))
    ent = sp.entr(alpha / np.sum(alpha)) + sp.rel_entr(alpha, beta) + sp.kl_div(alpha, beta)
    vm = np.log(sp.i0e(alpha)) + alpha + sp.i1e(beta)
    inc = sp.gammainc(2.5, beta) + sp.gammaincc(1.5, alpha)
    shape = sp.boxcox1p(beta, 0.3) + sp.softplus(a)
    return np.concatenate([gamma_ll, beta_ll, dirichlet, links, censored, ent, vm, inc, shape])


def test_scipy_special_likelihood_terms():
    same_as_numpy(special_likelihoods, 0.5 * RNG.standard_normal(4), 0.5 * RNG.standard_normal(4),
                  np.asarray([0.5, 1.0, 2.5, 3.5]), rtol=1e-10)


def normalised_scores(a, b):
    """torchlike.scipy.special's softmax/log_softmax/logsumexp (b=,
    return_sign=, axis tuples) beside SciPy's own on ndarrays: SciPy's refuse
    a tensor outside its array-API mode (round two's docstring)."""
    special = tsp if isinstance(a, tl.Tensor) else sp
    value, sign = special.logsumexp(a[0], b=b, return_sign=True)
    return np.concatenate([special.softmax(a, axis=1).ravel(),
                           special.log_softmax(a, axis=0).ravel(),
                           special.logsumexp(a.reshape(2, 2, 2), axis=(0, 2),
                                             keepdims=True).ravel(),
                           [special.logsumexp(a[1], b=np.exp(b))], [value * sign]])


def test_normalised_scores_by_torchlike_scipy_special():
    same_as_numpy(normalised_scores, RNG.standard_normal((2, 4)),
                  np.asarray([1.0, -0.5, 2.0, 0.3]))


# ---- whole models ------------------------------------------------------------------------------

def transformer_block(x, Wqkv, Wo, W1, W2, g, in_place=False):
    """A pre-norm transformer block: layer norm, causal attention from one
    product split in three, a GELU by scipy.special.erf, residuals.  The
    softmax's in-place normalisation (p /= ...) writes over what np.exp
    kept: PyTorch's "modified by an inplace operation", as with torch.exp.
    Scales are Python numbers: np.sqrt(d) is an np.float64, which makes
    NumPy's float32 program float64 (PyTorch's promotion keeps float32,
    docs/numpy.md)."""
    T, d = x.shape
    h = (x - x.mean(axis=-1, keepdims=True)) / np.sqrt(x.var(axis=-1, keepdims=True) + 1e-5) * g
    q, k, v = np.split(h @ Wqkv, 3, axis=-1)
    s = np.where(np.tril(np.ones((T, T), bool)), q @ k.T / d ** 0.5, -np.inf)
    p = np.exp(s - s.max(axis=-1, keepdims=True))
    if in_place:
        p /= p.sum(axis=-1, keepdims=True)
    else:
        p = p / p.sum(axis=-1, keepdims=True)
    x = x + (p @ v) @ Wo
    u = x @ W1
    return x + 0.5 * u * (1 + sp.erf(u / 2 ** 0.5)) @ W2


def irls(X, y, w, steps=4):
    """Logistic regression by Newton's method (IRLS): np.linalg.solve in a
    loop, the weights p (1 - p) clipped away from 0."""
    for _ in range(steps):
        p = sp.expit(X @ w)
        s = np.clip(p * (1 - p), 1e-3, None)
        H = (X.T * s) @ X + 0.1 * np.eye(X.shape[1])
        w = w + np.linalg.solve(H, X.T @ (y - p) - 0.1 * w)
    return w


def hmm_log_likelihood(log_A, log_B, log_pi, obs=np.asarray([0, 1, 1, 2, 0])):
    """A hidden Markov model's log-likelihood by the forward algorithm in the
    log domain, its parameters row-normalised by np.logaddexp.reduce."""
    la = log_A - np.logaddexp.reduce(log_A, axis=1, keepdims=True)
    lb = log_B - np.logaddexp.reduce(log_B, axis=1, keepdims=True)
    alpha = log_pi - np.logaddexp.reduce(log_pi) + lb[:, obs[0]]
    for o in obs[1:]:
        alpha = np.logaddexp.reduce(alpha[:, None] + la, axis=0) + lb[:, o]
    return np.logaddexp.reduce(alpha)


def em_step(X, mu, log_var, logits):
    """One EM step of a diagonal Gaussian mixture: responsibilities by a
    log-softmax, the new means, variances and weights."""
    var = np.exp(log_var)
    lp = -0.5 * np.sum((X[:, None, :] - mu[None]) ** 2 / var + np.log(2 * np.pi * var), axis=-1)
    lp = lp + logits - np.logaddexp.reduce(logits)
    r = np.exp(lp - np.logaddexp.reduce(lp, axis=1, keepdims=True))
    Nk = r.sum(axis=0)
    mu_new = (r.T @ X) / Nk[:, None]
    return np.concatenate([mu_new.ravel(), ((r.T @ X ** 2) / Nk[:, None] - mu_new ** 2).ravel(),
                           Nk / len(X)])


def kernel_ridge(x, y, log_ls, xq):
    """Kernel ridge regression: an RBF Gram matrix by np.subtract.outer,
    two triangular solves through np.linalg.cholesky, predictions at xq."""
    K = np.exp(-0.5 * np.subtract.outer(x, x) ** 2 / np.exp(2 * log_ls))
    L = np.linalg.cholesky(K + 0.1 * np.eye(len(x)))
    alpha = np.linalg.solve(L.T, np.linalg.solve(L, y))
    return np.exp(-0.5 * np.subtract.outer(xq, x) ** 2 / np.exp(2 * log_ls)) @ alpha


_M = np.random.default_rng(7)
MODELS = {
    "transformer": (transformer_block, [_M.standard_normal((4, 6)),
                                        0.3 * _M.standard_normal((6, 18)),
                                        0.3 * _M.standard_normal((6, 6)),
                                        0.3 * _M.standard_normal((6, 8)),
                                        0.3 * _M.standard_normal((8, 6)),
                                        1 + 0.1 * _M.standard_normal(6)]),
    "irls": (irls, [_M.standard_normal((20, 3)), (_M.random(20) > 0.5) * 1.0, np.zeros(3)]),
    "hmm": (hmm_log_likelihood, [_M.standard_normal((3, 3)), _M.standard_normal((3, 3)),
                                 _M.standard_normal(3)]),
    "em": (em_step, [np.concatenate([_M.normal(-1, 0.5, (6, 2)), _M.normal(1, 0.5, (6, 2))]),
                     np.asarray([[-0.5, -0.5], [0.5, 0.5]]), np.zeros((2, 2)), np.zeros(2)]),
    "kernel_ridge": (kernel_ridge, [np.sort(_M.uniform(0, 3, 6)), _M.standard_normal(6),
                                    np.log(0.7), np.linspace(0, 3, 4)]),
}


@pytest.mark.parametrize("name", sorted(MODELS))
def test_whole_models(name):
    """Whole models whose every step is a NumPy call, in float64
    (gradcheck) and in float32 (float32 results and gradients)."""
    f, arrays = MODELS[name]
    same_as_numpy(f, *arrays, rtol=1e-10, atol=1e-11)
    got, leaves = same_as_numpy(f, *arrays, dtype=np.float32, rtol=2e-4, atol=2e-5)
    got.sum().backward()
    assert all(t.grad.dtype == tl.float32 for t in leaves)
    if name in ("hmm", "kernel_ridge"):
        assert gradgradcheck(f, [leaf(a) for a in arrays])
    if name == "transformer":
        out = f(*[leaf(a) for a in arrays], in_place=True)
        with pytest.raises(RuntimeError, match="modified by an inplace operation"):
            out.sum().backward()


# ---- float32, 0-d and empty arrays, non-contiguous leaves --------------------------------------

FLOAT32_PROGRAMS = {
    "log_dets": (log_dets, [(2, 3, 3)]),
    "qr_least_squares": (qr_least_squares, [(6, 3), (6,)]),
    "spectral_barrier": (spectral_barrier, [(2, 3, 3)]),
    "einsum": (einsum_program, [(2, 3, 4), (2, 4, 3), (2, 3, 3), (3,)]),
    "top_k_writes": (top_k_writes, [(3, 4), (3,)]),
    "index_writes": (index_writes, [(3, 4), (3,)]),
    "signal": (signal_pipeline, [(10,), (3,)]),
    "spectral": (spectral_losses, [(3, 4)]),
    "curve": (learned_curve, [(5,), (6,), (5,)]),
    "moments": (moments, [(3, 4), (4,)]),
    "products": (products, [(4,), (5,), (2, 2)]),
    "special": (lambda a, b: special_likelihoods(a, b, np.asarray([0.5, 1.0, 2.5, 3.5],
                                                                   np.float32)), [(4,), (4,)]),
    "polyfit": (lambda y: np.polyfit(np.linspace(0, 1, 6, dtype=np.float32), y, 2), [(6,)]),
}


@pytest.mark.parametrize("name", sorted(FLOAT32_PROGRAMS))
def test_programs_in_float32_keep_float32(name):
    """The programs on float32 data give NumPy's float32 results (Python
    numbers and np.eye's float64 constants beside them follow NumPy 2's
    rules as the earlier rounds document) and float32 gradients.  Left out:
    nan_safe_layer divides by a count (int64), which NumPy makes float64
    and PyTorch's promotion (docs/numpy.md) float32."""
    f, shapes = FLOAT32_PROGRAMS[name]
    rng = np.random.default_rng(len(name))
    arrays = [rng.standard_normal(s) * 0.5 for s in shapes]
    if name == "curve":   # points and knots kept apart
        arrays = [arrays[0], np.linspace(-0.5, 4.5, 6), np.log(np.full(5, 0.9))]
    with np.errstate(all="ignore"):
        got, leaves = same_as_numpy(f, *arrays, dtype=np.float32, rtol=2e-4, atol=2e-5)
    got.sum().backward()
    assert all(t.grad is not None and t.grad.dtype == tl.float32 for t in leaves)


ZERO_D_PROGRAMS = {
    "elementwise": lambda a: np.exp(a) * np.log1p(a ** 2) + np.hypot(a, 1.0)
    + np.clip(a, -0.1, 0.1),
    "where_maximum": lambda a: np.where(a > 0, a, -a) + np.maximum(a, 0.1),
    "reductions": lambda a: np.sum(a) + np.mean(a) + np.var(a) + a + np.median(a)
    + np.quantile(a, 0.3),
    "stack_outer": lambda a: np.stack([a, a * 2, np.outer(a, a)[0, 0]]),
    "kron": lambda a: np.kron(a, np.arange(1.0, 4.0)),
    "einsum_tensordot": lambda a: np.einsum(",i->i", a, np.arange(3.0))
    + np.tensordot(a, np.ones(3), 0),
    "atleast_cumsum_sort": lambda a: np.atleast_2d(a) * np.cumsum(a) + np.sort(a, axis=None),
    "interp_polyval": lambda a: np.interp(a, [0.0, 1.0], [2.0, 5.0]) + np.polyval([1.0, 2.0], a),
    "average_take": lambda a: np.average(a, weights=np.exp(a)) + np.take(a, [0, 0]),
    "in_place": lambda a: _in_place_0d(a),
}


def _in_place_0d(a):
    s = np.sum(a * np.arange(1.0, 3.0))
    s += 1.0
    s *= a
    return s


@pytest.mark.parametrize("name", sorted(ZERO_D_PROGRAMS))
def test_zero_dimensional_leaves(name):
    got, _ = same_as_numpy(ZERO_D_PROGRAMS[name], 0.3)
    assert got.ndim == np.ndim(ZERO_D_PROGRAMS[name](np.float64(0.3)))


EMPTY_PROGRAMS = {
    "sum_and_scale": (lambda a, b: np.sum(a) + b * np.sum(a ** 2, axis=0).sum(), [(0, 3), ()]),
    "concatenate": (lambda a, b: np.concatenate([a, b]), [(0, 3), (2, 3)]),
    "matmul_einsum": (lambda a, b: a @ b + np.einsum("ij,jk->ik", a, b), [(2, 0), (0, 3)]),
    "cumsum_sort_where": (lambda a: np.cumsum(a, axis=0) + np.sort(a, axis=0)
                          + np.where(a > 0, a, 0.0), [(0, 3)]),
    "fancy": (lambda a: a[np.asarray([], dtype=np.int64)] * 2, [(3, 2)]),
    "linalg_stacks": (lambda a: np.linalg.det(a) + np.linalg.slogdet(a)[1], [(0, 3, 3)]),
    "solve_inv": (lambda a: np.linalg.solve(a, a[..., :1]) + 0 * np.linalg.inv(a)[..., :1],
                  [(0, 2, 2)]),
    "zero_size_matrices": (lambda a: np.linalg.det(a), [(2, 0, 0)]),
    "decompositions": (lambda a: np.linalg.cholesky(a).sum() + np.linalg.eigvalsh(a).sum()
                       + np.linalg.inv(a).sum(), [(0, 0)]),
    "kron_outer_pad": (lambda a: np.kron(a, np.ones((2, 2))).sum() + np.outer(a, [1.0]).sum()
                       + np.pad(a, ((1, 1), (0, 0))).sum(), [(0, 2)]),
    "max_initial": (lambda a: np.max(a, axis=0, initial=-1.0) + np.min(a, axis=0, initial=1.0),
                    [(0, 3)]),
    "pinv": (lambda a: np.linalg.pinv(a), [(0, 3)]),
    "logaddexp_reduce": (lambda a: np.logaddexp.reduce(a, axis=0) + np.prod(a, axis=0),
                         [(0, 3)]),
    "split_stack": (lambda a: np.stack([a, a]) + np.concatenate(np.split(a, 3)), [(0,)]),
    "interp_polyval": (lambda a: np.interp(a, [0.0, 1.0], [2.0, 5.0]) + np.polyval([1.0, 2.0], a),
                       [(0,)]),
    "norm_tensordot": (lambda a: np.linalg.norm(a) + np.tensordot(a, a.T, 1).sum(), [(2, 0)]),
}


@pytest.mark.parametrize("name", sorted(EMPTY_PROGRAMS))
def test_empty_leaves_stay_on_the_tape(name):
    """Programs over empty arrays: NumPy's shapes and values (identities,
    initial=, zeros), a result on the tape, and a gradient of the leaf's
    (empty) shape.  np.max(initial=) and np.linalg.pinv of empty arrays
    returned a result off the tape before."""
    f, shapes = EMPTY_PROGRAMS[name]
    arrays = [np.zeros(s) if s and 0 in s else RNG.standard_normal(s) for s in shapes]
    got, leaves = same_as_numpy(f, *arrays)
    got.sum().backward()
    for t, a in zip(leaves, arrays):
        assert t.grad is not None and tuple(t.grad.shape) == a.shape


NONCONTIGUOUS_PROGRAMS = {
    "solve_transposed": (lambda a, b: np.linalg.solve(a.T @ a + np.eye(3), b[::2]),
                         [(3, 3), (6,)]),
    "decompositions": (lambda a: np.concatenate([np.linalg.cholesky(spd(a.T[::-1])).ravel(),
                                                 np.abs(np.linalg.qr(a.T)[1]).ravel(),
                                                 [np.linalg.det(a.T[::-1])]]), [(3, 3)]),
    "eigvalsh_reversed": (lambda a: np.linalg.eigvalsh(spd(a)[::-1, ::-1]), [(3, 3)]),
    "pinv_lstsq_strided": (lambda a, b: np.linalg.pinv(a[::2, ::-1]).ravel()
                           + np.linalg.lstsq(a[::2], b[::-2], rcond=None)[0].sum(),
                           [(10, 3), (10,)]),
    "fft_strided": (lambda a: np.concatenate([np.abs(np.fft.rfft(a[::2])),
                                              np.abs(np.fft.fft2(a.reshape(3, 4).T)).ravel()]),
                    [(12,)]),
    "scans_reversed": (lambda a: np.cumsum(a.T, axis=1).ravel()
                       + np.sort(a[::-1], axis=0).T.ravel(),
                       [(3, 4)]),
    "convolve_strided": (lambda a, b: np.convolve(a[::2], b[::-1]), [(8,), (3,)]),
    "einsum_views": (lambda a: np.einsum("ij,ji->i", a[::2], a[::2].T), [(6, 3)]),
    "pad_interp": (lambda a: np.pad(a.T, 1, mode="wrap").sum() + np.interp(
        np.linspace(0, 2, 5), np.arange(3.0), a[::-1, 0]), [(3, 4)]),
    "gathers_moments": (lambda a: np.take_along_axis(a.T, np.argsort(a.T, axis=0), axis=0).ravel()
                        + np.repeat(np.var(a.T, axis=0, ddof=1), 4), [(3, 4)]),
    "norms_quantiles": (lambda a: np.linalg.norm(a.T[:, ::2], ord=2)
                        + np.quantile(a.T, 0.3, axis=0), [(3, 4)]),
    "kron_polyval": (lambda a, c: np.kron(a.T, c[:, ::2]).sum()
                     + np.polyval(c[0, ::-1], np.linspace(0, 1, 3)), [(2, 3), (2, 4)]),
}


@pytest.mark.parametrize("name", sorted(NONCONTIGUOUS_PROGRAMS))
def test_non_contiguous_leaves(name):
    """Leaves read through transposed, reversed and strided views (the
    kernels see strides of every sign and size; NumPy's results on the same
    views), and leaves that are such views themselves."""
    f, shapes = NONCONTIGUOUS_PROGRAMS[name]
    arrays = [RNG.standard_normal(s) for s in shapes]
    same_as_numpy(f, *arrays, rtol=1e-10, atol=1e-12)
    views = [leaf(a.T.copy()).T if a.ndim == 2 else leaf(a[::-1].copy()).flip(0) for a in arrays]
    got = f(*views)
    np.testing.assert_allclose(host(got), f(*arrays), rtol=1e-10, atol=1e-12)


# ---- second order, and what stays refused ------------------------------------------------------

SECOND_ORDER = {
    "clip_tensor_bounds": (lambda x, lo, hi: np.clip(x, lo, hi) ** 2,
                           [(5,), (5,), (5,)], [0.0, -1.0, 1.0]),
    "learned_border": (lambda x, c: np.concatenate([
        np.pad(x, 1, constant_values=c).ravel(),
        np.pad(x[0], 2, mode="linear_ramp", end_values=c[0]) ** 2]), [(2, 2), (2, 2)], [0, 0]),
    "log_dets": (log_dets, [(2, 3, 3)], [0]),
    "top_k_writes": (top_k_writes, [(3, 4), (3,)], [0, 0]),
    "nan_safe": (nan_safe_layer, [(5,), (3,)], [2.0, 0]),
    "signal": (signal_pipeline, [(10,), (3,)], [0, 0]),
    "spectral": (spectral_losses, [(3, 4)], [0]),
    "moments": (moments, [(3, 4), (4,)], [0, 0]),
    "special": (lambda a, b: special_likelihoods(a, b, np.asarray([0.5, 1.0, 2.5, 3.5])),
                [(4,), (4,)], [0, 0]),
}


@pytest.mark.parametrize("name", sorted(SECOND_ORDER))
def test_second_order_through_the_programs(name):
    """Hessian-vector products (create_graph) of the programs against finite
    differences of their gradients.  Note, PyTorch's too: a tensor exponent
    of 0 at x = 0 (np.vander of a point at 0) has a NaN second derivative,
    0 * 0 ** -1."""
    f, shapes, shifts = SECOND_ORDER[name]
    rng = np.random.default_rng(len(name))
    assert gradgradcheck(f, [leaf(rng.standard_normal(s) * 0.5 + c)
                             for s, c in zip(shapes, shifts)])


def test_what_stays_refused_is_refused_by_name():
    x = leaf(RNG.standard_normal(4))
    with pytest.raises(NotImplementedError, match="the derivative for 'geqrf' is not implemented"):
        np.linalg.qr(x.reshape(2, 2), mode="raw")[0].sum().backward()
    with pytest.raises(RuntimeError, match="derivative for aten::heaviside is not implemented"):
        np.heaviside(x, 0.5).sum().backward()
    # np.pad dispatches on its array only: NumPy converts the values itself
    with pytest.raises(RuntimeError, match="Can't call numpy\\(\\) on Tensor that requires grad"):
        np.pad(np.ones(2), 1, constant_values=x[0])
    with pytest.raises(RuntimeError, match="Can't call numpy\\(\\) on Tensor that requires grad"):
        np.polynomial.polynomial.polyval(0.5, x)
    # the spellings that record
    assert np.pad(np.ones(2) + 0 * x[:2], 1, constant_values=x[0]).grad_fn is not None
    assert np.polyval(x[::-1], 0.5).grad_fn is not None
