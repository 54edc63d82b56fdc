"""torchlike.numpy.special: scipy.special's functions over tensors.

SciPy in array-API mode (``SCIPY_ARRAY_API=1``) looks a special function up on
the array namespace (``xp.special.<name>``) before it falls back to converting
its inputs with ``np.asarray``; this namespace keeps those calls on torchlike,
recorded for autograd.  The same functions serve ``scipy.special.<ufunc>(t)``
in SciPy's default mode (through ``Tensor.__array_ufunc__``)."""
from .. import _C
from .._special import (  # noqa: F401
    beta, betaln, boxcox, boxcox1p, cosm1, entr, exp10, expit, exprel, gamma, gammasgn, huber,
    inv_boxcox, inv_boxcox1p, kl_div, log_expit, log_ndtr, loggamma, logit, logsumexp,
    multigammaln, ndtr, polygamma, powm1, pseudo_huber, rel_entr, rgamma, sinc, xlog1py, xlogy)
from .._special_host import (  # noqa: F401
    betainc, erf, erfc, erfcinv, erfcx, gammainc, gammaincc, iv, ive, j0, j1, jv, kv, kve,
    ndtri, y0, y1, yn, yv)

jn = jv


def erfinv(x):
    return _C.erfinv(x)


def gammaln(x):
    return _C.lgamma(x)


def psi(x):
    return _C.digamma(x)


digamma = psi


def i0(x):
    return _C.i0(x)


def i0e(x):
    return _C.i0e(x)


def i1(x):
    return _C.i1(x)


def i1e(x):
    return _C.i1e(x)


def softmax(x, axis=None):
    """exp(x) / sum(exp(x)) over axis (all elements when None), stabilised."""
    return _C.exp(x - logsumexp(x, axis=axis, keepdims=True))


def log_softmax(x, axis=None):
    return x - logsumexp(x, axis=axis, keepdims=True)
