"""``Generator``: NumPy's modern random API over a bit generator (torchlike's
Philox, see _seed.py), drawing on the generator's device (``device=``; by
default the device of the tensor parameters, else the default device)."""
import operator

import numpy as _np
from numpy.exceptions import AxisError

from ... import _C
from ..._array_function import scalar_count, tl_dtype
from . import _sampling as S
from ._distributions import Distributions
from ._params import (F64, I64, Prepared, check, fill_out, float_dtype, isnan, out_shape,
                      size_tuple, tensor_if_holding)
from ._seed import PCG64, BitGenerator

Tensor = _C.Tensor

_INT_DTYPES = {"int8", "int16", "int32", "int64", "uint8", "uint16", "uint32", "uint64", "bool"}


class Generator(Distributions):
    """NumPy's ``Generator``; ``Generator(PCG64(seed))`` or ``default_rng(seed)``.

    Also takes a seed in place of the bit generator (``Generator(0)``), and
    ``device=``, the device every draw lands on."""

    def __init__(self, bit_generator=None, *, device=None):
        if not isinstance(bit_generator, BitGenerator):
            bit_generator = PCG64(bit_generator)
        self._bit_generator = bit_generator
        self._device = device

    def __repr__(self):
        return f"Generator({type(self._bit_generator).__name__})"

    @property
    def bit_generator(self):
        return self._bit_generator

    def spawn(self, n_children):
        """Independent generators from the bit generator's spawned seed sequences."""
        return [Generator(bg, device=self._device)
                for bg in self._bit_generator.spawn(n_children)]

    # -- the standard draws, with dtype= and out= ---------------------------------------

    def _standard(self, size, dtype, out, what, draw):
        dtype = float_dtype(dtype, what)
        if out is not None and size is None:
            size = tuple(out.shape)
        d = self._prep(size)
        if out is not None and self._device is None:
            d = Prepared(self._bit_generator, out.device, size, (), ())
        return fill_out(draw(d).to(dtype), out, size)

    def random(self, size=None, dtype=F64, out=None):
        """Uniform floats in [0, 1)."""
        def draw(d):
            if float_dtype(dtype, "random") == _C.float32:
                return _C.rand(d.shape, generator=d.src.gen, dtype=_C.float32, device=d.device)
            return d.src.uniform(d.shape)
        return self._standard(size, dtype, out, "random", draw)

    def standard_normal(self, size=None, dtype=F64, out=None):
        return self._standard(size, dtype, out, "standard_normal", lambda d: d.src.normal(d.shape))

    def standard_exponential(self, size=None, dtype=F64, method="zig", out=None):
        return self._standard(size, dtype, out, "standard_exponential",
                              lambda d: d.src.exponential(d.shape))

    def standard_gamma(self, shape, size=None, dtype=F64, out=None):
        dtype = float_dtype(dtype, "standard_gamma")
        if out is not None and size is None:
            size = tuple(out.shape)
        return fill_out(self._standard_gamma(shape, size).to(dtype), out, size)

    # -- integers ---------------------------------------------------------------------

    def integers(self, low, high=None, size=None, dtype=I64, endpoint=False):
        return _integers(self, low, high, size, dtype, endpoint, "integers")

    def bytes(self, length):
        d = self._prep(None)
        raw = d.src.int64((int(length),), 0, 256).cpu().tolist()
        return bytes(raw)

    # -- arrays ------------------------------------------------------------------------

    def choice(self, a, size=None, replace=True, p=None, axis=0, shuffle=True):
        shape = size_tuple(size)
        count = int(_np.prod(shape)) if shape is not None else 1
        if isinstance(a, Tensor) and a.ndim == 0 and not a.is_complex():
            a = a.item()  # a 0-d count (n = mask.sum()) is the int NumPy's scalar is
        pool = None
        if isinstance(a, (int, _np.integer)) and not isinstance(a, bool):
            pop = int(a)
            if pop <= 0 and count != 0:
                raise ValueError("a must be a positive integer unless no samples are taken")
        elif isinstance(a, Tensor) or _np.ndim(a) > 0:
            pool = _pool_of(a)
            if pool.ndim == 0:
                raise ValueError("a must be a sequence or an integer, not 0-d")
            axis = _axis(axis, pool.ndim)
            pop = pool.shape[axis]
            if pop == 0 and count != 0:
                raise ValueError("a cannot be empty unless no samples are taken")
        else:
            raise ValueError(f"a must be a sequence or an integer, not {type(a)}")
        idx = _choose(self, pool if isinstance(pool, Tensor) else None, pop, count, shape,
                      replace, p, "P",
                      "Cannot take a larger sample than population when replace is False")
        if pool is None:
            return idx
        return _take(pool, idx, axis)

    def permutation(self, x, axis=0):
        x = scalar_count(x) if isinstance(x, Tensor) else x  # n = mask.sum()
        if isinstance(x, (int, _np.integer)) and not isinstance(x, bool):
            d = self._prep(None)
            return _C.randperm(int(x), generator=d.src.gen, device=d.device)
        arr = _pool_of(x)
        axis = _axis(axis, arr.ndim)
        if isinstance(arr, _np.ndarray):  # strings ...: NumPy's array, reordered
            return _np.take(arr, self._perm(arr.shape[axis], None).cpu().numpy(), axis=axis)
        return arr.index_select(axis, self._perm(arr.shape[axis], arr.device))

    def shuffle(self, x, axis=0):
        """Shuffles ``x`` in place along ``axis`` (a tensor, an ndarray or a list)."""
        if isinstance(x, Tensor):
            axis = _axis(axis, x.ndim)
            x.copy_(x.index_select(axis, self._perm(x.shape[axis], x.device)))
            return
        if isinstance(x, _np.ndarray):
            axis = _axis(axis, x.ndim)
            perm = self._perm(x.shape[axis], None).cpu().numpy()
            x[...] = _np.take(x, perm, axis=axis)
            return
        n = len(x)
        perm = self._perm(n, None).cpu().tolist()
        x[:] = [x[i] for i in perm]

    def _perm(self, n, device):
        d = Prepared(self._bit_generator, device if self._device is None else self._device,
                     None, (), ())
        return _C.randperm(n, generator=d.src.gen, device=d.device)

    def permuted(self, x, axis=None, out=None):
        """Each slice along ``axis`` shuffled on its own (all elements when axis is None)."""
        arr = x if isinstance(x, Tensor) else _C.as_tensor(_np.asarray(x))
        d = Prepared(self._bit_generator, self._device or arr.device, None, (), ())
        arr = arr.to(d.device)
        if axis is None:
            flat = arr.reshape(-1)
            keys = d.src.int64(tuple(flat.shape), -2 ** 63, 2 ** 63)
            result = flat[_C.argsort(keys, stable=True)].reshape(arr.shape)
        else:
            axis = _axis(axis, arr.ndim)
            keys = d.src.int64(tuple(arr.shape), -2 ** 63, 2 ** 63)
            result = _C.take_along_dim(arr, _C.argsort(keys, dim=axis, stable=True), axis)
        if out is None:
            return result
        if tuple(out.shape) != tuple(arr.shape):
            raise ValueError("out must have the same shape as x")
        out.copy_(result)
        return out

    # -- multivariate -------------------------------------------------------------------

    def multinomial(self, n, pvals, size=None):
        d0 = Prepared(self._bit_generator, self._device, None, (n, pvals), (I64, F64),
                      broadcast=False)
        n, pvals = d0.values
        if not isinstance(pvals, Tensor) or pvals.shape[-1] == 0:
            raise ValueError("pvals must have at least 1 dimension and the last dimension "
                             "of pvals must be greater than 0.")
        check(n < 0, "n < 0")
        check((pvals < 0) | (pvals > 1) | isnan(pvals),
              "pvals < 0, pvals > 1 or pvals contains NaNs")
        check(pvals[..., :-1].sum(-1) > 1.0 + 1e-12, "sum(pvals[:-1]) > 1.0")
        batch = tuple(pvals.shape[:-1])
        shape = out_shape(size_tuple(size), n, _C.empty(batch))
        return _multinomial(d0.src, shape, n, pvals)

    def dirichlet(self, alpha, size=None):
        d = self._prep(None, alpha, broadcast=False)
        (alpha,) = d.values
        if not isinstance(alpha, Tensor) or alpha.ndim != 1:
            raise ValueError("alpha must be a one-dimensional sequence of floats")
        check(alpha < 0, "alpha < 0")
        return _dirichlet(d.src, size, alpha)

    def multivariate_normal(self, mean, cov, size=None, check_valid="warn", tol=1e-8, *,
                            method="svd"):
        if method not in ("svd", "eigh", "cholesky"):
            raise ValueError("method must be one of {'eigh', 'svd', 'cholesky'}")
        return _multivariate_normal(self, mean, cov, size, check_valid, tol, method)

    def multivariate_hypergeometric(self, colors, nsample, size=None, method="marginals"):
        """Both methods draw the colours' marginals one after the other (NumPy's
        "count" walks the sum(colors) items; the distribution is the same)."""
        if method not in ("count", "marginals"):
            raise ValueError('method must be "count" or "marginals".')
        try:
            nsample = operator.index(nsample)
        except TypeError:
            raise ValueError("nsample must be an integer") from None
        if nsample < 0:
            raise ValueError("nsample must be nonnegative.")
        host = _np.asarray(colors.cpu() if isinstance(colors, Tensor) else colors)
        imax = _np.iinfo(_np.int64).max
        if host.ndim != 1 or (host.size and (host.dtype.kind not in "iu" or host.min() < 0
                                             or host.max() > imax)):
            raise ValueError("colors must be a one-dimensional sequence of nonnegative "
                             f"integers not exceeding {imax}.")
        total = int(host.sum())
        if nsample > total:
            raise ValueError("nsample > sum(colors)")
        d = self._prep(size)
        cols = _C.as_tensor(host.astype(_np.int64), device=d.device).to(F64)
        out = _C.zeros(d.shape + (host.size,), dtype=I64, device=d.device)
        left = _C.full(d.shape, float(nsample), dtype=F64, device=d.device)
        rest = float(total)
        for i in range(host.size):
            rest -= float(host[i])
            x = S.hypergeometric(d.src, d.shape, cols[i].expand(d.shape),
                                 _C.full(d.shape, rest, dtype=F64, device=d.device), left)
            out[..., i] = x.to(I64)
            left = left - x
        return out


# -- helpers shared with the legacy RandomState -----------------------------------------

def _axis(axis, ndim):
    a = operator.index(axis)
    if not -ndim <= a < ndim:
        raise AxisError(f"axis {a} is out of bounds for array of dimension {ndim}")
    return a % ndim


def _pool_of(a):
    """What choice/permutation pick from: a tensor, or for strings and other
    non-numbers NumPy's own array (torchlike has no string dtype), picked on
    the host with indices drawn as for numbers."""
    if isinstance(a, Tensor):
        return a
    arr = _np.asarray(a)
    return arr if arr.dtype.kind not in "biufc" else _C.as_tensor(arr)


def _take(pool, idx, axis):
    if isinstance(pool, _np.ndarray):
        return _np.take(pool, idx.cpu().numpy(), axis=axis)
    picked = pool.index_select(axis, idx.reshape(-1).to(pool.device))
    return picked.reshape(tuple(pool.shape[:axis]) + tuple(idx.shape)
                          + tuple(pool.shape[axis + 1:]))


def _choose(self, pool, pop, count, shape, replace, p, case, too_many):
    """choice's indices, ``shape``d, for Generator and RandomState (``case`` and
    ``too_many``: the class's wording): drawn on the pool's device unless the
    generator has its own."""
    d = self._prep(None) if pool is None or self._device is not None else \
        Prepared(self._bit_generator, pool.device, None, (), ())
    probs = _choice_p(p, pop, d.device, case)
    if not replace:
        if count > pop:
            raise ValueError(too_many)
        if probs is not None and int((probs > 0).sum()) < count:
            raise ValueError("Fewer non-zero entries in p than size")
    idx = self._choice_index(d.src, pop, count, replace, probs)
    return idx.reshape(shape if shape is not None else ())


def _choice_p(p, pop, device, case):
    """p as a float64 tensor checked as NumPy's choice checks it (``case``: 'P' for
    Generator's capitalised messages, 'p' for RandomState's)."""
    if p is None:
        return None
    p = tensor_if_holding(p)
    given = _np.asarray(p.cpu() if isinstance(p, Tensor) else p)
    host = given.astype(_np.float64)
    if host.ndim != 1:
        raise ValueError("p must be 1-dimensional" if case == "P" else "'p' must be 1-dimensional")
    if host.size != pop:
        raise ValueError("a and p must have same size" if case == "P" else
                         "'a' and 'p' must have same size")
    atol = max(_np.sqrt(_np.finfo(_np.float64).eps), 1e-8)
    if isinstance(p, (Tensor, _np.ndarray)) and given.dtype.kind == "f":
        # NumPy's: p of a narrower float (float32 weights normalised in
        # float32) may be off by the square root of its own epsilon
        atol = max(atol, _np.sqrt(_np.finfo(given.dtype).eps))
    if _np.isnan(host).any():
        raise ValueError(f"{case}robabilities contain NaN")
    if (host < 0).any():
        raise ValueError(f"{case}robabilities are not non-negative")
    if abs(host.sum() - 1) > atol:
        raise ValueError(f"{case}robabilities do not sum to 1" +
                         (". See Notes section of docstring for more information."
                          if case == "P" else ""))
    return _C.as_tensor(host, device=device)


def _integers(self, low, high, size, dtype, endpoint, what):
    """Generator.integers and RandomState.randint: [low, high) or [low, high]."""
    dt = tl_dtype(dtype) if dtype is not None else I64
    name = dt.name if isinstance(dt, _C.dtype) else str(dt)
    if name not in _INT_DTYPES:
        raise TypeError(f"Unsupported dtype {_np.dtype(name)!r} for {what}")
    info = (0, 1) if name == "bool" else (int(_np.iinfo(name).min), int(_np.iinfo(name).max))
    if high is None:
        low, high = 0, low
    d = self._prep(size, low, high, ints=(0, 1))
    low, high = d.values
    top = high if endpoint else high - 1
    check(low < info[0], f"low is out of bounds for {name}")
    check(top > info[1], f"high is out of bounds for {name}")
    check(low > top, "low > high" if endpoint else "low >= high")
    if not isinstance(low, Tensor) and not isinstance(high, Tensor) and top >= 2 ** 63:
        # uint64 past int64's range: int64 draws shifted down by 2**63, whose
        # bits with the sign bit flipped are the uint64 values shifted back
        shifted = d.src.int64(d.shape, low - 2 ** 63, top + 1 - 2 ** 63)
        return (shifted ^ (-2 ** 63)).view(_C.uint64)
    if not isinstance(low, Tensor) and not isinstance(high, Tensor):
        result = d.src.int64(d.shape, low, top + 1)
    else:
        result = _integers_array(d.src, d.shape, low, top)
    return result.to(dt)


def _integers_array(src, shape, low, top):
    """Integers in [low, top] with broadcast int64 bounds: x mod range with
    rejection (unbiased) for ranges up to 2**62, else 64-bit draws kept when
    they fall in the range (accepted with probability > 1/4)."""
    n, _ = S._lanes(src, shape)
    low = _C.as_tensor(low, dtype=I64, device=src.device).expand(shape).reshape(-1)
    top = _C.as_tensor(top, dtype=I64, device=src.device).expand(shape).reshape(-1)
    span = top - low + 1  # wraps to <= 0 for ranges beyond 2**63
    narrow = (span > 0) & (span <= 2 ** 62)
    out = _C.empty((n,), dtype=I64, device=src.device)

    def modulo(m, low, span):
        x = src.int64((m,), 0, 2 ** 62)
        return low + x % span, x < 2 ** 62 - (2 ** 62) % span

    def wide(m, low, span):
        x = src.int64((m,), -2 ** 63, 2 ** 63)
        # unsigned(x + 2**63) < unsigned(span), compared in signed order
        shifted = x + (-2 ** 63)
        ok = (x < span + (-2 ** 63)) | (span == 0)
        return low + shifted, ok
    for mask, propose in ((narrow, modulo), (~narrow, wide)):
        idx = _C.nonzero(mask).reshape(-1)
        if idx.shape[0]:
            out[idx] = S.rejection(src, idx.shape[0], [low[idx], span[idx]], propose)
    return out.reshape(shape)


def _multinomial(src, shape, n, pvals):
    """Counts of shape + (k,): category j is Binomial(n left, p_j / p left)."""
    k = pvals.shape[-1]
    p = pvals.to(src.device).expand(shape + (k,))
    left = _C.as_tensor(n, dtype=F64, device=src.device).expand(shape)
    prob_left = _C.ones(shape, dtype=F64, device=src.device)
    out = _C.zeros(shape + (k,), dtype=I64, device=src.device)
    for j in range(k - 1):
        pj = p[..., j]
        q = _C.where(prob_left > 0, (pj / prob_left).clamp(0, 1), 0.0)
        x = S.binomial(src, shape, left, q)
        out[..., j] = x.to(I64)
        left = left - x
        prob_left = prob_left - pj
    out[..., k - 1] = left.to(I64)
    return out


def _dirichlet(src, size, alpha):
    """Normalised gammas, in logs (no 0/0 for tiny alphas); alpha == 0 gives 0."""
    shape = (size_tuple(size) or ()) + tuple(alpha.shape)
    lg = S.log_standard_gamma(src, shape, alpha.expand(shape))
    return _C.softmax(lg, -1)


def _multivariate_normal(self, mean, cov, size, check_valid, tol, method):
    d = self._prep(None, mean, cov, broadcast=False)
    mean, cov = d.values
    if not isinstance(mean, Tensor) or mean.ndim != 1:
        raise ValueError("mean must be 1 dimensional")
    if not isinstance(cov, Tensor) or cov.ndim != 2 or cov.shape[0] != cov.shape[1]:
        raise ValueError("cov must be 2 dimensional and square")
    if mean.shape[0] != cov.shape[0]:
        raise ValueError("mean and cov must have same length")
    if check_valid not in ("warn", "raise", "ignore"):
        raise ValueError("check_valid must equal 'warn', 'raise', or 'ignore'")
    from ... import linalg
    if method == "cholesky":
        factor = linalg.cholesky(cov).mT
    else:
        if method == "eigh":
            s, u = linalg.eigh(cov)
            psd = not bool((s < -tol).any())
            s = s.clamp(min=0)
            factor = (u * _C.sqrt(s)).mT
        else:
            u, s, vh = linalg.svd(cov)
            psd = not bool((((vh.mT * s) @ vh - cov).abs() > tol + tol * cov.abs()).any())
            factor = _C.sqrt(s).unsqueeze(-1) * vh
        if not psd and check_valid != "ignore":
            message = "covariance is not symmetric positive-semidefinite."
            if check_valid == "raise":
                raise ValueError(message)
            import warnings
            warnings.warn(message, RuntimeWarning, stacklevel=3)
    shape = (size_tuple(size) or ()) + tuple(mean.shape)
    return d.src.normal(shape) @ factor + mean

