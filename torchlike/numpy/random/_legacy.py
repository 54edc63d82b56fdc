"""``RandomState``: NumPy's legacy API (and, through one module-level
instance, the functions ``np.random.seed``, ``rand``, ``normal`` ...).

Its bit generator is named ``MT19937`` and seeded by RandomState's rules
(an int in [0, 2**32) or a 1-d sequence of them), but draws from
torchlike's Philox like every bit generator here.  ``get_state`` returns
the tuple NumPy's does, with the Philox key and offset where NumPy's holds
MT19937's 624 words; ``set_state`` takes it back."""
import sys
import warnings

import numpy as _np

from ... import _C
from ..._array_function import scalar_count
from ._distributions import Distributions
from ._generator import (_choose, _dirichlet, _integers, _multinomial,
                         _multivariate_normal, _pool_of, _take)
from ._params import F64, I64, Prepared, check, isnan, size_tuple
from ._seed import MT19937, BitGenerator

Tensor = _C.Tensor


class RandomState(Distributions):
    """NumPy's legacy ``RandomState``; ``RandomState(seed)``, or a bit generator."""

    _legacy = True

    def __init__(self, seed=None, *, device=None):
        self._device = device
        if isinstance(seed, BitGenerator):
            self._bit_generator = seed
        else:
            self._bit_generator = MT19937()
            self._bit_generator._legacy_seeding(seed)

    def __repr__(self):
        return f"RandomState({type(self._bit_generator).__name__})"

    def seed(self, seed=None):
        """Reseeds with RandomState's rules (the bit generator must be MT19937)."""
        if not isinstance(self._bit_generator, MT19937):
            raise TypeError("can only re-seed a MT19937 BitGenerator")
        self._bit_generator._legacy_seeding(seed)

    def get_state(self, legacy=True):
        """``('MT19937', uint64 [key, offset], 0, 0, 0.0)``, or with legacy=False the
        bit generator's state dict plus NumPy's Gaussian-cache fields."""
        state = self._bit_generator.state
        if not legacy:
            return dict(state, has_gauss=0, gauss=0.0)
        inner = state["state"]
        key = _np.array([inner["key"], inner["offset"]], dtype=_np.uint64)
        return (state["bit_generator"], key, 0, 0, 0.0)

    def set_state(self, state):
        if isinstance(state, dict):
            if "bit_generator" not in state or "state" not in state:
                raise ValueError("state dictionary is not valid.")
            self._bit_generator.state = {"bit_generator": state["bit_generator"],
                                         "state": state["state"]}
            return
        if not isinstance(state, (tuple, list)) or len(state) not in (3, 5):
            raise ValueError("state must be a dict or a tuple.")
        key = _np.asarray(state[1])
        if key.shape != (2,):
            raise ValueError("state must hold the key and offset of torchlike's Philox")
        self._bit_generator.state = {"bit_generator": state[0],
                                     "state": {"key": int(key[0]), "offset": int(key[1])}}

    # -- the standard draws -------------------------------------------------------------

    def random_sample(self, size=None):
        d = self._prep(size)
        return d.src.uniform(d.shape)

    random = random_sample

    def rand(self, *args):
        return self.random_sample(args)

    def randn(self, *args):
        return self.standard_normal(args)

    def standard_normal(self, size=None):
        d = self._prep(size)
        return d.src.normal(d.shape)

    def standard_exponential(self, size=None):
        d = self._prep(size)
        return d.src.exponential(d.shape)

    def standard_gamma(self, shape, size=None):
        return self._standard_gamma(shape, size)

    def tomaxint(self, size=None):
        """Integers in [0, sys.maxsize]."""
        d = self._prep(size)
        return d.src.int64(d.shape, 0, sys.maxsize + 1)

    def randint(self, low, high=None, size=None, dtype=int):
        return _integers(self, low, high, size, I64 if dtype is int else dtype, False, "randint")

    def random_integers(self, low, high=None, size=None):
        if high is None:
            warnings.warn("This function is deprecated. Please call randint(1, {low} + 1) "
                          "instead".format(low=low), DeprecationWarning, stacklevel=2)
            low, high = 1, low
        else:
            warnings.warn("This function is deprecated. Please call randint({low}, {high} + 1) "
                          "instead".format(low=low, high=high), DeprecationWarning, stacklevel=2)
        return _integers(self, low, high, size, I64, True, "random_integers")

    def bytes(self, length):
        d = self._prep(None)
        return bytes(d.src.int64((int(length),), 0, 256).cpu().tolist())

    # -- arrays ---------------------------------------------------------------------------

    def choice(self, a, size=None, replace=True, p=None):
        shape = size_tuple(size)
        count = int(_np.prod(shape)) if shape is not None else 1
        if isinstance(a, Tensor) and a.ndim == 0 and not a.is_complex():
            a = a.item()  # a 0-d count (n = mask.sum()) is the int NumPy's scalar is
        pool = None
        if isinstance(a, Tensor) or _np.ndim(a) > 0:
            pool = _pool_of(a)
            if pool.ndim != 1:
                raise ValueError("a must be 1-dimensional")
            pop = pool.shape[0]
            if pop == 0 and count != 0:
                raise ValueError("'a' cannot be empty unless no samples are taken")
        else:
            try:
                pop = int(_np.asarray(a).astype(_np.int64, casting="same_kind"))
            except TypeError:
                raise ValueError("a must be 1-dimensional or an integer") from None
            if pop <= 0 and count != 0:
                raise ValueError("a must be greater than 0 unless no samples are taken")
        idx = _choose(self, pool if isinstance(pool, Tensor) else None, pop, count, shape,
                      replace, p, "p",
                      "Cannot take a larger sample than population when 'replace=False'")
        return idx if pool is None else _take(pool, idx, 0)

    def permutation(self, x):
        x = scalar_count(x) if isinstance(x, Tensor) else x  # n = mask.sum()
        if isinstance(x, (int, _np.integer)) and not isinstance(x, bool):
            d = self._prep(None)
            return _C.randperm(int(x), generator=d.src.gen, device=d.device)
        arr = _pool_of(x)
        if arr.ndim == 0:
            raise IndexError("x must be an integer or at least 1-dimensional")
        if isinstance(arr, _np.ndarray):  # strings ...: NumPy's array, reordered
            return arr[self._perm(arr.shape[0], None).cpu().numpy()]
        return arr.index_select(0, self._perm(arr.shape[0], arr.device))

    def shuffle(self, x):
        from ._generator import Generator
        Generator.shuffle(self, x)

    def _perm(self, n, device):
        from ._generator import Generator
        return Generator._perm(self, n, device)

    # -- multivariate -----------------------------------------------------------------

    def multinomial(self, n, pvals, size=None):
        d = Prepared(self._bit_generator, self._device, None, (n, pvals), (I64, F64),
                      broadcast=False)
        n, pvals = d.values
        if not isinstance(pvals, Tensor) or pvals.ndim != 1:
            raise ValueError("pvals must be a 1-d sequence")
        if isinstance(n, Tensor):
            raise TypeError("n must be an integer")
        check(n < 0, "n < 0")
        check((pvals < 0) | (pvals > 1) | isnan(pvals),
              "pvals < 0, pvals > 1 or pvals contains NaNs")
        check(pvals[:-1].sum() > 1.0 + 1e-12, "sum(pvals[:-1]) > 1.0")
        shape = size_tuple(size) or ()
        if pvals.shape[0] == 0:
            return _C.zeros(shape + (0,), dtype=I64, device=d.device)
        return _multinomial(d.src, shape, n, pvals)

    def dirichlet(self, alpha, size=None):
        d = self._prep(None, alpha, broadcast=False)
        (alpha,) = d.values
        if not isinstance(alpha, Tensor) or alpha.ndim != 1:
            raise ValueError("object of too small depth for desired array")
        check((alpha <= 0) | isnan(alpha), "alpha <= 0")
        return _dirichlet(d.src, size, alpha)

    def multivariate_normal(self, mean, cov, size=None, check_valid="warn", tol=1e-8):
        return _multivariate_normal(self, mean, cov, size, check_valid, tol, "svd")

