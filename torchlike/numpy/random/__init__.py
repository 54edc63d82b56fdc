"""torchlike.numpy.random: NumPy's random API (``Generator``, the legacy
``RandomState`` and module functions, seeds and bit generators) drawing
from torchlike's generator (Philox, see docs/random.md), so draws land on
a chosen device.

``default_rng(seed)`` and ``Generator(PCG64(seed))`` take every seed NumPy
takes (an int, a sequence of ints, a ``SeedSequence``, a bit generator, a
Generator).  The bit generator's name (``PCG64``, ``PCG64DXSM``,
``MT19937``, ``Philox``, ``SFC64``) selects nothing but how the seed is
read: all draw from torchlike's Philox, so a seed gives the same numbers on
every run and every device, not the numbers NumPy's bit generators would
give.  The module functions (``seed``, ``rand``, ``normal`` ...) use one
module-level ``RandomState``, as NumPy's do.  See docs/numpy.md."""
from ._generator import Generator
from ._legacy import RandomState
from ._seed import MT19937, PCG64, PCG64DXSM, SFC64, BitGenerator, Philox, SeedSequence

__all__ = ["beta", "binomial", "bytes", "chisquare", "choice", "dirichlet", "exponential", "f",
           "gamma", "geometric", "get_state", "gumbel", "hypergeometric", "laplace", "logistic",
           "lognormal", "logseries", "multinomial", "multivariate_normal", "negative_binomial",
           "noncentral_chisquare", "noncentral_f", "normal", "pareto", "permutation", "poisson",
           "power", "rand", "randint", "randn", "random", "random_integers", "random_sample",
           "ranf", "rayleigh", "sample", "seed", "set_state", "shuffle", "standard_cauchy",
           "standard_exponential", "standard_gamma", "standard_normal", "standard_t",
           "triangular", "uniform", "vonmises", "wald", "weibull", "zipf", "Generator",
           "RandomState", "SeedSequence", "MT19937", "Philox", "PCG64", "PCG64DXSM", "SFC64",
           "default_rng", "BitGenerator", "get_bit_generator", "set_bit_generator"]


def default_rng(seed=None, *, device=None):
    """A ``Generator`` on a PCG64-named bit generator seeded with ``seed``; a
    Generator is returned as it is, a bit generator is wrapped.  ``device=``
    (torchlike's) fixes where the draws land."""
    if isinstance(seed, Generator):
        return seed
    return Generator(seed if isinstance(seed, BitGenerator) else PCG64(seed), device=device)


_rand = RandomState()


def get_bit_generator():
    """The bit generator behind the module functions."""
    return _rand._bit_generator


def set_bit_generator(bitgen):
    """Makes ``bitgen`` the bit generator behind the module functions."""
    if not isinstance(bitgen, BitGenerator):
        raise TypeError("bitgen must be a BitGenerator")
    _rand._bit_generator = bitgen


def sample(size=None):
    return _rand.random_sample(size)


def ranf(size=None):
    return _rand.random_sample(size)


_METHODS = [n for n in __all__ if n[0].islower() and n not in (
    "default_rng", "get_bit_generator", "set_bit_generator", "sample", "ranf")]
globals().update({name: getattr(_rand, name) for name in _METHODS})
