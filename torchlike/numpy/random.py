"""torchlike.numpy.random: NumPy's random API drawing from torchlike's
generator (Philox, see docs/random.md), so draws land on the chosen device.

``default_rng(seed)`` returns a seeded ``Generator`` with NumPy's method
names; the legacy module functions (``seed``, ``rand``, ``randn`` ...) use one
module-level generator.  The streams are torchlike's: a seed gives the same
numbers on every run, not the numbers NumPy's PCG64 would give."""
import numpy as np

from .. import _C
from .._array_function import as_tensor, tl_dtype

Tensor = _C.Tensor

__all__ = ["Generator", "default_rng", "seed", "rand", "randn", "random", "random_sample",
           "randint", "normal", "uniform", "standard_normal", "integers", "choice",
           "permutation", "shuffle", "exponential", "poisson"]


def _size(size):
    if size is None:
        return ()
    return (int(size),) if isinstance(size, (int, np.integer)) else tuple(int(s) for s in size)


class Generator:
    """NumPy's ``Generator`` interface over a torchlike generator."""

    def __init__(self, seed=None, *, device=None):
        self._device = device
        self._gen = _C.Generator()
        if seed is None:
            self._gen.seed()
        else:
            self._gen.manual_seed(int(seed))

    def __repr__(self):
        return f"Generator(torchlike Philox, seed={self._gen.initial_seed()})"

    def random(self, size=None, dtype=None, out=None):
        """Uniform floats in [0, 1)."""
        result = _C.rand(_size(size), generator=self._gen,
                         dtype=tl_dtype(dtype) or _C.float64, device=self._device)
        return _out(result, out)

    def standard_normal(self, size=None, dtype=None, out=None):
        result = _C.randn(_size(size), generator=self._gen,
                          dtype=tl_dtype(dtype) or _C.float64, device=self._device)
        return _out(result, out)

    def normal(self, loc=0.0, scale=1.0, size=None):
        if size is None and (isinstance(loc, Tensor) or isinstance(scale, Tensor)):
            size = _C.broadcast_shapes(_shape_of(loc), _shape_of(scale))
        return self.standard_normal(size) * scale + loc

    def uniform(self, low=0.0, high=1.0, size=None):
        if size is None and (isinstance(low, Tensor) or isinstance(high, Tensor)):
            size = _C.broadcast_shapes(_shape_of(low), _shape_of(high))
        return self.random(size) * (high - low) + low

    def integers(self, low, high=None, size=None, dtype=None, endpoint=False):
        if high is None:
            low, high = 0, low
        if endpoint:
            high = high + 1
        if high <= low:
            raise ValueError("low >= high" if not endpoint else "low > high")
        return _C.randint(int(low), int(high), _size(size), generator=self._gen,
                          dtype=tl_dtype(dtype) or _C.int64, device=self._device)

    def exponential(self, scale=1.0, size=None):
        result = _C.empty(_size(size), dtype=_C.float64, device=self._device)
        return result.exponential_(1.0, generator=self._gen) * scale

    def poisson(self, lam=1.0, size=None):
        rates = _C.full(_size(size), float(lam), dtype=_C.float64, device=self._device)
        return _C.poisson(rates, generator=self._gen).to(_C.int64)

    def permutation(self, x):
        if isinstance(x, (int, np.integer)):
            return _C.randperm(int(x), generator=self._gen, device=self._device)
        x = as_tensor(x)
        return x[_C.randperm(x.shape[0], generator=self._gen, device=x.device)]

    def shuffle(self, x):
        """Shuffle the first axis of a tensor in place."""
        x[...] = self.permutation(x)

    def choice(self, a, size=None, replace=True, p=None):
        pool = _C.arange(int(a), device=self._device) if isinstance(a, (int, np.integer)) \
            else as_tensor(a)
        n = pool.shape[0]
        shape = _size(size)
        count = int(np.prod(shape)) if shape else 1
        if not replace and count > n:
            raise ValueError("Cannot take a larger sample than population when replace=False")
        weights = as_tensor(p).to(_C.float64) if p is not None else \
            _C.ones(n, dtype=_C.float64, device=pool.device)
        index = _C.multinomial(weights, count, replacement=replace, generator=self._gen)
        picked = pool[index]
        return picked.reshape(shape) if shape else picked.reshape(())


def _shape_of(x):
    return tuple(x.shape) if isinstance(x, Tensor) else ()


def _out(result, out):
    if out is None:
        return result
    out.copy_(result)
    return out


def default_rng(seed=None):
    """A new ``Generator`` seeded with ``seed`` (fresh entropy when None)."""
    if isinstance(seed, Generator):
        return seed
    return Generator(seed)


_global = Generator(0)


def seed(seed=None):
    global _global
    _global = Generator(seed)


def rand(*shape):
    return _global.random(shape)


def randn(*shape):
    return _global.standard_normal(shape)


def random(size=None):
    return _global.random(size)


random_sample = random


def randint(low, high=None, size=None, dtype=int):
    return _global.integers(low, high, size, dtype=None if dtype is int else dtype)


def normal(loc=0.0, scale=1.0, size=None):
    return _global.normal(loc, scale, size)


def uniform(low=0.0, high=1.0, size=None):
    return _global.uniform(low, high, size)


def standard_normal(size=None):
    return _global.standard_normal(size)


def integers(low, high=None, size=None):
    return _global.integers(low, high, size)


def choice(a, size=None, replace=True, p=None):
    return _global.choice(a, size, replace, p)


def permutation(x):
    return _global.permutation(x)


def shuffle(x):
    _global.shuffle(x)


def exponential(scale=1.0, size=None):
    return _global.exponential(scale, size)


def poisson(lam=1.0, size=None):
    return _global.poisson(lam, size)
