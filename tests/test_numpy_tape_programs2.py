"""NumPy programs on the tape, second round: model code written with NumPy
(and scipy.special) called on torchlike tensors that require grad, beside
the first round (tests/test_numpy_tape_programs.py) and in its manner --
values and dtypes against NumPy run on the detached data, gradients
against finite differences (gradcheck in float64).  Layers of kinds the
first round does not have: layer and group normalisation, a 2-d
convolution and max pooling over sliding windows with einsum(optimize=),
a GRU cell, a batched Gaussian likelihood, spectral losses (rfftn/irfftn
with s=, fftshift), interpolation, a Kalman filter's likelihood, soft
k-means, weighted covariances, derivatives on a learned grid, ufunc
methods, masked in-place writes into a copy, stacked linear algebra and
polynomial fits.

What they found, and is fixed:

- ``np.cov(x, aweights=w)`` with weights that require grad failed in
  backward ("modified by an inplace operation"): NumPy's own code, run on
  tensors, subtracts the mean from a copy (``X -= avg``) that average()
  keeps for the gradient of the weights.  np.cov is torchlike's now, the
  same steps without writes (NumPy's also overwrites the caller's float64
  fweights with ``w *= aweights``; ours leaves them).
- ``np.gradient(f, x)`` with coordinates ``x`` that require grad raised
  "has no torchlike implementation": NumPy's code reshapes by an array of
  sizes (``a.reshape(np.ones(N, dtype=int))``), and every shape-taking
  method (``reshape view expand permute repeat tile broadcast_to``) of a
  tensor that requires grad refused a 1-d ndarray of sizes, which the
  recorder read as one index (NumPy's "only integer scalar arrays can be
  converted to a scalar index"); the same calls without grad worked.
  ``a.shape = array_of_sizes`` raised too.
- ``np.linalg.tensorsolve`` of tensors never ran NumPy's code (it wraps the
  result with ``a.__array_wrap__``, which a tensor lacks): it went to NumPy
  on the host, refused a tensor that requires grad and a device tensor.
  It is torchlike's now (NumPy's steps; negative ``axes`` are taken,
  where NumPy's ``list.remove`` raises ValueError).
- ``np.maximum.at``, ``np.minimum.at`` and ``np.multiply.at`` into a tensor
  that requires grad (a scatter-max layer, a product over groups) raised
  "has no torchlike implementation", as on a device; they are scatter
  reductions that include the target's values now, recorded as
  ``np.add.at`` is (ties share the gradient, as PyTorch's amax/amin).
- ``np.mean(a, axis=0, out=row)`` of a tensor that requires grad failed in
  backward ("modified by an inplace operation"): the sum was written into
  ``out``, divided from there and written back over the division's operand.
- ``np.interp(x, xp, fp, left=fp[1], right=...)``: a ``left``/``right``
  that requires grad went through ``float()``, so its gradient was dropped
  (and a device tensor was read on the host); it stays on the tape now.

What is refused, by design (each raises naming the call, as the first
round's docstring says for NumPy code that builds host arrays): ``np.r_``
and ``np.c_`` (NumPy's index-trick objects call ``np.array`` on each
item; ``torchlike.numpy.r_`` records), NumPy's own
``np.lib.stride_tricks.as_strided`` (``torchlike.numpy``'s records),
(np.histogram's learned weights, np.roots and np.polydiv, whose NumPy code
writes them into ``np.zeros``, are recorded since round five,
tests/test_numpy_tape_programs5.py), ``np.divide.at`` and the other ufuncs'
``at`` on a tensor that requires grad (add, subtract, maximum, minimum and
multiply scatter on the tape), scipy.special's ``softmax``/``log_softmax``/
``logsumexp(b=)`` outside SciPy's array-API mode, and ``np.polynomial``'s
classes and evaluation functions with coefficients that require grad
(NumPy's classes refuse such an ``x`` too; ``torchlike.numpy.polynomial``'s
record it, as ``test_namespace_series_classes_are_recorded_in_x`` shows).
scipy.special's ufuncs torchlike has no op for (``zeta``, ``exp1``,
``k0``, ``ellipk``, ``owens_t``, ``spence``, ``dawsn``, ``lambertw``,
``binom``; ``polygamma``, ``multigammaln`` and ``factorial`` convert with
np.asarray) refuse a tensor that requires grad by name.  A ufunc with
``out=`` given a tensor that requires grad raises PyTorch's "functions
with out=... arguments don't support automatic differentiation" (the
reductions' and np.clip's out= are recorded, as round one tests).  A
standard deviation of one value has PyTorch's NaN gradient (as
tests/golden/numpy_tape.json records for ``std_of_constant``)."""
import numpy as np
import pytest
import scipy.special as sp
from numpy.lib.stride_tricks import sliding_window_view as windows

import torchlike as tl
from torchlike.autograd import gradcheck
from test_numpy_tape_programs import leaf, host, same_as_numpy

RNG = np.random.default_rng(6)


# ---- normalisation, convolution, recurrence ----------------------------------------------------

def layer_norm(x, gamma, beta):
    mu = np.mean(x, axis=-1, keepdims=True)
    var = np.var(x, axis=-1, keepdims=True)
    return gamma * (x - mu) / np.sqrt(var + 1e-5) + beta


def group_norm(x, groups=2):
    n, c, t = x.shape                                   # batch, channels, time
    g = x.reshape(n, groups, c // groups, t)
    mu = g.mean(axis=(2, 3), keepdims=True)
    var = g.var(axis=(2, 3), keepdims=True)
    return ((g - mu) / np.sqrt(var + 1e-5)).reshape(n, c, t)


def test_layer_and_group_normalisation():
    x = RNG.standard_normal((3, 4, 5)) * 2 + 1
    same_as_numpy(layer_norm, x, RNG.standard_normal(5), RNG.standard_normal(5))
    same_as_numpy(group_norm, x)


def conv_pool(x, w, b):
    """A 3x3 convolution over sliding windows (einsum with optimize=),
    ReLU, then 2x2 max pooling over windows taken every second step."""
    # x (B, C, H, W), w (O, C, 3, 3), b (O,)
    patches = windows(x, (3, 3), axis=(2, 3))            # (B, C, H-2, W-2, 3, 3)
    y = np.einsum("bchwkl,ockl->bohw", patches, w, optimize=True) + b[:, None, None]
    y = np.maximum(y, 0.0)
    return windows(y, (2, 2), axis=(2, 3))[:, :, ::2, ::2].max(axis=(-1, -2))


def test_convolution_and_pooling_by_sliding_windows():
    x, w, b = RNG.standard_normal((2, 2, 6, 6)), RNG.standard_normal((3, 2, 3, 3)), \
        RNG.standard_normal(3)
    got, _ = same_as_numpy(conv_pool, x, w, b)
    assert tuple(got.shape) == (2, 3, 2, 2)


def gru(xs, h, Wz, Wr, Wn):
    """A GRU cell over time: gates from np.split of one product,
    scipy.special.expit, the state mixed by np.where-free arithmetic."""
    for x in xs:
        z, r = np.split(sp.expit(np.concatenate([x, h]) @ np.concatenate([Wz, Wr], axis=1)), 2)
        n = np.tanh(np.concatenate([x, r * h]) @ Wn)
        h = (1 - z) * h + z * n
    return h


def test_gru_cell_over_a_sequence():
    xs, h = RNG.standard_normal((4, 3)), RNG.standard_normal(5)
    Wz, Wr, Wn = (RNG.standard_normal((8, 5)) * 0.4 for _ in range(3))
    same_as_numpy(gru, xs, h, Wz, Wr, Wn)


# ---- probabilistic models ----------------------------------------------------------------------

def gaussian_nll(mu, L, pts):
    """The negative log-likelihood of points under a stack of Gaussians with
    covariances L L^T: a batched np.linalg.solve and slogdet."""
    S = L @ np.swapaxes(L, -1, -2) + 0.1 * np.eye(2)
    d = pts - mu
    sol = np.linalg.solve(S, d[..., None])[..., 0]
    sign, logdet = np.linalg.slogdet(S)
    return np.sum(0.5 * np.einsum("...i,...i", d, sol) + 0.5 * logdet + np.log(2 * np.pi))


def kalman_loglik(q, r, z):
    """A local-level Kalman filter's log-likelihood as a function of its
    noise variances (softplus of q, r) and the data."""
    Q, R = np.log1p(np.exp(q)), np.log1p(np.exp(r))
    x, P, ll = 0.0, 10.0, 0.0
    for zk in z:
        P = P + Q
        S = P + R
        K = P / S
        ll = ll - 0.5 * (np.log(2 * np.pi * S) + (zk - x) ** 2 / S)
        x = x + K * (zk - x)
        P = (1 - K) * P
    return ll


def soft_kmeans(X, C, beta=2.0):
    """Soft assignments by a softmin over squared distances, centres
    updated once by weighted means, the energy of the result."""
    d2 = np.sum((X[:, None, :] - C[None]) ** 2, axis=-1)
    a = np.exp(-beta * (d2 - d2.min(axis=1, keepdims=True)))
    a = a / a.sum(axis=1, keepdims=True)
    C2 = (a.T @ X) / a.sum(axis=0)[:, None]
    return np.sum(a * np.sum((X[:, None, :] - C2[None]) ** 2, axis=-1))


def test_probabilistic_models():
    same_as_numpy(gaussian_nll, RNG.standard_normal((3, 2)),
                  RNG.standard_normal((3, 2, 2)) + 2 * np.eye(2), RNG.standard_normal((3, 2)))
    z = np.cumsum(RNG.normal(0, 0.5, 12))
    same_as_numpy(kalman_loglik, -1.0, 0.5, z)
    X = np.concatenate([RNG.normal(0, 0.3, (8, 2)), RNG.normal(2, 0.3, (8, 2))])
    same_as_numpy(soft_kmeans, X, np.asarray([[0.2, 0.1], [1.5, 1.8]]))


def weighted_covariance(x, w):
    return np.cov(x, aweights=np.exp(w)) + np.corrcoef(x, rowvar=True)


def test_covariance_with_learned_weights():
    """np.cov with aweights that require grad (it failed in backward: NumPy's
    code writes X -= avg into an array the tape kept), with fweights too,
    and the caller's float64 fweights left as they were."""
    x, w = RNG.standard_normal((3, 6)), RNG.standard_normal(6)
    same_as_numpy(weighted_covariance, x, w)
    same_as_numpy(lambda x, w: np.cov(x, fweights=[1, 2, 1, 1, 3, 1], aweights=np.exp(w),
                                      ddof=0), x, w)
    same_as_numpy(lambda x, y: np.cov(x, y, rowvar=False), RNG.standard_normal((5, 2)),
                  RNG.standard_normal(5))
    fw = tl.tensor([1.0, 2.0, 1.0, 1.0, 3.0, 1.0], dtype=tl.float64)
    np.cov(leaf(x), fweights=fw, aweights=np.exp(leaf(w))).sum().backward()
    assert fw.tolist() == [1.0, 2.0, 1.0, 1.0, 3.0, 1.0]


# ---- transforms, interpolation, calculus -------------------------------------------------------

def spectral_loss(s):
    img = s.reshape(4, 4)
    padded = np.fft.rfftn(img, s=(6, 6), axes=(0, 1))
    back = np.fft.irfftn(np.fft.rfftn(img, axes=(0, 1)), s=(4, 4), axes=(0, 1))
    centred = np.fft.fftshift(np.fft.fft2(img), axes=(0,))
    return (np.sum(np.abs(padded)) + np.sum((back - img) ** 2) + np.sum(np.abs(centred[:, :2]) ** 2)
            + np.sum(np.real(np.fft.ifft(np.fft.fft(s, norm="ortho") ** 2, norm="forward"))))


def test_spectral_losses():
    same_as_numpy(spectral_loss, RNG.standard_normal(16), rtol=1e-10)
    same_as_numpy(lambda a: np.fft.irfft(np.fft.rfft(a, n=10) * np.exp(-np.arange(6.0)), n=10),
                  RNG.standard_normal(8))


def test_interpolation_and_derivatives_on_a_learned_grid():
    """np.interp of learned values (also periodic), np.gradient and
    np.trapezoid over coordinates that require grad (np.gradient raised:
    NumPy's code reshapes by an array of sizes)."""
    same_as_numpy(lambda fp: np.interp(np.linspace(0, 5, 13), np.arange(6.0), fp),
                  RNG.standard_normal(6))
    same_as_numpy(lambda fp: np.interp(np.asarray([350.0, 10.0, 190.0]),
                                       np.asarray([0.0, 90.0, 180.0, 270.0]), fp, period=360),
                  RNG.standard_normal(4))
    # left=/right= taken from the learned values (their gradient was dropped)
    same_as_numpy(lambda fp: np.interp(np.asarray([-1.0, 0.5, 9.0]), np.arange(4.0), fp,
                                       left=fp[1], right=2 * fp[0]), RNG.standard_normal(4))

    def on_grid(y, steps):
        x = np.cumsum(np.abs(steps))
        return np.sum(np.gradient(y, x) ** 2) + np.trapezoid(y ** 2, x)

    same_as_numpy(on_grid, RNG.standard_normal(6), RNG.standard_normal(6) + 2)
    same_as_numpy(lambda f, sx: np.stack(np.gradient(f, np.cumsum(np.abs(sx)), 0.5, axis=(0, 1))),
                  RNG.standard_normal((5, 3)), RNG.standard_normal(5) + 2)


def test_shape_arrays_are_sizes_on_the_tape():
    """A 1-d ndarray of sizes (as NumPy's code passes them) for the shape
    methods of a tensor that requires grad: these raised NumPy's "only
    integer scalar arrays can be converted to a scalar index"."""
    x = leaf(RNG.standard_normal((3, 1)))
    sizes = np.asarray([3, 1])
    for name, arg in (("reshape", sizes), ("view", sizes), ("expand", np.asarray([2, 3, 4])),
                      ("permute", np.asarray([1, 0])), ("repeat", sizes), ("tile", sizes),
                      ("broadcast_to", np.asarray([3, 2]))):
        want = {"reshape": lambda a, s: a.reshape(s), "view": lambda a, s: a.reshape(s),
                "expand": lambda a, s: np.broadcast_to(a, s),
                "permute": lambda a, s: a.transpose(s), "repeat": lambda a, s: np.tile(a, s),
                "tile": lambda a, s: np.tile(a, s),
                "broadcast_to": lambda a, s: np.broadcast_to(a, s)}[name](host(x), arg)
        got = getattr(x, name)(arg)
        assert got.grad_fn is not None and tuple(got.shape) == want.shape, name
        np.testing.assert_array_equal(host(got), want)
    y = x * 1
    y.shape = np.asarray([1, 3])
    assert tuple(y.shape) == (1, 3) and y.grad_fn is not None
    with pytest.raises(TypeError):
        x.reshape(np.asarray([3.0, 1.0]))


def reductions_into_out(a):
    """Statistics written into preallocated arrays with out=, as NumPy code
    fills a results table."""
    table = tl.zeros(6, 3, dtype=tl.float64)
    np.mean(a, axis=0, out=table[0])
    np.sum(a, axis=0, out=table[1])
    np.max(a, axis=0, out=table[2])
    np.std(a, axis=0, out=table[3])
    np.median(a, axis=0, out=table[4])
    np.quantile(a, 0.3, axis=0, out=table[5])
    return table


def test_reductions_into_out_are_recorded():
    """np.mean(..., out=) of a tensor that requires grad failed in backward:
    the sum written into out was divided by the count and written there
    again, over the operand the division kept."""
    got, _ = same_as_numpy(lambda a: reductions_into_out(a) if isinstance(a, tl.Tensor) else
                           np.stack([np.mean(a, axis=0), np.sum(a, axis=0), np.max(a, axis=0),
                                     np.std(a, axis=0), np.median(a, axis=0),
                                     np.quantile(a, 0.3, axis=0)]), RNG.standard_normal((4, 3)))
    same_as_numpy(lambda a: np.mean(a, axis=1, out=tl.zeros(2, dtype=tl.float64)
                                    if isinstance(a, tl.Tensor) else None),
                  RNG.standard_normal((2, 3)))


# ---- ufunc methods, masks, selections ----------------------------------------------------------

def scatter_layer(a, v):
    """Group maxima, minima and products by ufunc.at into copies: a
    scatter-max pooling over segment ids, repeated ids included."""
    seg = np.asarray([0, 2, 2, 1, 0, 2])
    hi, lo, prod = np.full(3, -10.0) + 0 * a[:3], a[:3] * 1.0, np.ones(3) + 0 * a[:3]
    np.maximum.at(hi, seg, v)
    np.minimum.at(lo, seg, v)
    np.multiply.at(prod, seg, v)
    grid = np.zeros((2, 3)) + a[:3]
    np.maximum.at(grid, (np.asarray([0, 1, 1]), np.asarray([2, 0, 0])), v[:3])
    return np.concatenate([hi, lo, prod, grid.ravel()])


def test_scatter_reductions_by_ufunc_at():
    same_as_numpy(scatter_layer, RNG.standard_normal(3), np.asarray([0.3, -1.2, 2.2, 0.7, 1.5,
                                                                      -0.4]))


def ufunc_layer(a):
    return (np.sum(np.add.reduceat(a, [0, 2, 5])) + np.sum(np.maximum.accumulate(a))
            + np.sum(np.multiply.outer(a[:3], a[3:5]) ** 2)
            + np.sum(np.logaddexp.reduce(a.reshape(2, 4), axis=1))
            + np.sum(np.add.reduce(a.reshape(2, 4), axis=1, where=np.asarray([1, 0, 1, 1], bool)))
            + np.hypot.reduce(a[:3]) + np.sum(np.maximum.reduceat(a, [0, 3])))


def masked_layer(a, v):
    """Masked writes into a copy, in NumPy's spellings: putmask, copyto with
    where=, place, put, add.at, fill_diagonal."""
    b = a * 1.0
    np.putmask(b, b > 0.5, 0.5)
    np.copyto(b, v[:4], where=np.asarray([True, False, True, False]))
    np.place(b, b < -1.0, [7.0, 8.0])
    np.put(b, [0, 3], v[4:6])
    np.add.at(b, [1, 1, 2], v[:3])
    m = np.outer(b, b)
    np.fill_diagonal(m, 0.0)
    return m


def selection_layer(a, b):
    return (np.select([a < -0.5, a > 0.5], [a ** 2, np.sin(a)], default=a * 3)
            + np.piecewise(a, [a < 0, a >= 0], [lambda t: t ** 2, lambda t: np.exp(t)])
            + np.choose(np.asarray([0, 1, 1, 0, 1, 0]), [a, b]))


def test_ufunc_methods_masks_and_selections():
    a = np.asarray([-1.3, 0.7, 0.2, -0.4, 1.1, -2.2, 0.9, 0.05])
    same_as_numpy(ufunc_layer, a)
    same_as_numpy(masked_layer, np.asarray([0.3, -1.5, 0.9, -0.2]), RNG.standard_normal(6))
    same_as_numpy(selection_layer, RNG.standard_normal(6), RNG.standard_normal(6))


# ---- linear algebra and polynomials ------------------------------------------------------------

def test_stacked_linear_algebra():
    same_as_numpy(lambda a, b: np.linalg.solve(a + 3 * np.eye(3), b),
                  RNG.standard_normal((2, 1, 3, 3)), RNG.standard_normal((4, 3, 2)))
    same_as_numpy(lambda a: np.linalg.inv(a + 3 * np.eye(2)) + np.linalg.det(a)[:, None, None],
                  RNG.standard_normal((3, 2, 2)))
    same_as_numpy(lambda a: np.linalg.pinv(a) + 0 * np.linalg.svd(a, compute_uv=False).sum(),
                  RNG.standard_normal((2, 3, 2)))
    same_as_numpy(lambda a, b, c: np.linalg.multi_dot([a, b, c]), RNG.standard_normal((2, 3)),
                  RNG.standard_normal((3, 4)), RNG.standard_normal((4, 2)))
    same_as_numpy(lambda a: np.linalg.matrix_power(a + 3 * np.eye(3), -2),
                  RNG.standard_normal((3, 3)))
    same_as_numpy(lambda a, b: np.einsum(a, [0, 1], b, [1, 2], [0, 2]),
                  RNG.standard_normal((2, 3)), RNG.standard_normal((3, 2)))


def test_tensorsolve_is_recorded():
    """np.linalg.tensorsolve went to NumPy on the host (its code wraps with
    a.__array_wrap__), refusing a tensor that requires grad."""
    a = np.eye(6).reshape(2, 3, 6) + 0.1 * RNG.standard_normal((2, 3, 6))
    same_as_numpy(lambda a, b: np.linalg.tensorsolve(a, b), a, RNG.standard_normal((2, 3)))
    same_as_numpy(lambda a, b: np.linalg.tensorsolve(a, b, axes=(0,)),
                  np.moveaxis(a, 2, 0), RNG.standard_normal((2, 3)))
    with pytest.raises(np.linalg.LinAlgError):
        np.linalg.tensorsolve(leaf(np.ones((2, 3, 4))), leaf(np.ones((2, 3))))


def test_polynomial_fits_and_features():
    same_as_numpy(lambda y: np.polyfit(np.linspace(0, 1, 6), y, 2), RNG.standard_normal(6))
    same_as_numpy(lambda c: np.poly1d(c)(np.linspace(0, 1, 4))
                  + np.polyint(np.polyder(c), k=1.0)[0], RNG.standard_normal(4))
    same_as_numpy(lambda x: np.vander(x, 3) @ np.asarray([1.0, 2.0, 3.0]), RNG.standard_normal(4))
    same_as_numpy(lambda b: np.linalg.lstsq(np.vander(np.linspace(0, 1, 6), 3), b,
                                            rcond=None)[1], RNG.standard_normal(6))


def test_namespace_series_classes_are_recorded_in_x():
    """torchlike.numpy's Polynomial/Chebyshev called on a tensor that
    requires grad (NumPy's class call converts with np.asanyarray)."""
    import torchlike.numpy as tnp
    p = tnp.polynomial.Chebyshev.fit(np.linspace(0, 2, 7), np.sin(np.linspace(0, 2, 7)), 3)
    x = RNG.uniform(0, 2, 5)
    got, _ = same_as_numpy(lambda t: p(t) if isinstance(t, tl.Tensor) else
                           np.polynomial.Chebyshev(p.coef, p.domain, p.window)(t), x)
    assert type(got.grad_fn).__name__ != "NoneType"


def test_what_numpy_code_cannot_record_is_refused_by_name():
    x = leaf(RNG.standard_normal(4))
    for call, name in ((lambda: np.r_[x, 1.0], None),):
        with pytest.raises((TypeError, RuntimeError)) as e:
            call()
        assert name is None or name in str(e.value), str(e.value)
    # np.divide.at (any ufunc's at) records: each occurrence applied in order
    y = x * 1
    np.divide.at(y, [0, 1, 1], 2.0)
    assert y.grad_fn is not None and gradcheck(
        lambda t: (lambda y: (np.divide.at(y, [0, 1, 1], 2.0), y)[1])(t * 1), [x])
    # the namespace's own r_ records
    import torchlike.numpy as tnp
    y = tnp.r_[x, 1.0]
    assert y.grad_fn is not None and gradcheck(lambda t: tnp.r_[t, 1.0, t[:2]], [x])
