"""NumPy's one-dimensional signal functions over tensors: convolve, correlate,
polymul, polyfit and interp.

Written with torchlike ops (conv1d, searchsorted and gathers), so
a layer written with them is recorded on the autograd tape.  Integer and
complex convolutions sum windows of the padded signal instead (exact integer
sums; correlate conjugates complex v as NumPy does).  What the ops do not
cover (interp's ``period=``) raises
Unsupported: NumPy itself runs for CPU tensors without grad, and the fallback
rule's TypeError names the function otherwise."""
import warnings

import numpy as np

from .. import _C
from .._array_function import Unsupported, as_tensor, implements, np_dtype, promote

Tensor = _C.Tensor


# ---- convolve / correlate ----------------------------------------------------------------------
#
# Legend: N = len(a), M = len(v).  The full correlation has N + M - 1 lags,
#   full[k] = sum_n a[n + k - (M - 1)] * v[n],   k = 0 .. N + M - 2,
# whichever of a and v is longer (NumPy swaps and reverses internally; the
# sum is the same).  'valid' and 'same' are slices of it.

def _signal_operands(name, a, v):
    a, v = as_tensor(a), as_tensor(v)
    if name == "convolve":
        # NumPy's convolve reads its operands with ndmin=1: a number is a
        # one-tap filter (np.convolve(x, 2.0) scales x); correlate does not
        a, v = (t.reshape(1) if t.ndim == 0 else t for t in (a, v))
    if a.ndim == 0 or v.ndim == 0:
        raise ValueError("object of too small depth for desired array")
    if a.ndim != 1 or v.ndim != 1:
        raise ValueError("object too deep for desired array")
    for which, t in (("a", a), ("v", v)):  # NumPy's words, which differ between the two
        if t.numel() == 0:
            raise ValueError(f"{which} cannot be empty" if name == "convolve" else
                             f"{'first' if which == 'a' else 'second'} array argument cannot "
                             f"be empty")
    return promote(a, v)


def _full_correlation(a, v):
    import torchlike.nn.functional as F
    m = v.shape[0]
    if a.dtype is _C.bool:  # NumPy's bool convolution: any a[n + k] and v[n] both true
        return _full_correlation(a.to(_C.int64), v.to(_C.int64)) != 0
    if not a.is_floating_point():
        # integer results keep NumPy's integer dtype (exact sums) and conv1d is
        # a float op; complex too: the lags as windows of the zero-padded a,
        # (N + M - 1, M), each summed against v, on a's device
        return (F.pad(a, (m - 1, m - 1)).unfold(0, m, 1) * v).sum(-1, dtype=a.dtype)
    # conv1d is a cross-correlation: y[k] = sum_n x[n + k] w[n]
    # x: (1, 1, N) padded by M - 1 zeros each side, w: (1, 1, M) -> y: (1, 1, N + M - 1);
    # the padding is conv1d's own (no padded copy, and the one-channel line
    # takes the direct path of src/nn/conv/conv_line.c)
    return F.conv1d(a.reshape(1, 1, -1), v.reshape(1, 1, -1), padding=m - 1).reshape(-1)


def _mode_slice(full, n, m, mode):
    if mode in ("full", 2):
        return full
    short, long = min(n, m), max(n, m)
    if mode in ("valid", 0):
        return full[short - 1:long]
    if mode in ("same", 1):
        start = (short - 1) // 2 if n >= m else short // 2
        return full[start:start + long]
    raise ValueError(f"mode must be one of 'valid', 'same', or 'full' (got {mode!r})")


@implements(np.correlate)
def correlate(a, v, mode="valid"):
    """c[k] = sum_n a[n + k] * v[n] (NumPy's sign convention for the lag)."""
    a, v = _signal_operands("correlate", a, v)
    v = v.conj() if v.is_complex() else v  # NumPy's correlate conjugates v
    n, m = a.shape[0], v.shape[0]
    full = _full_correlation(a, v)
    if mode in ("same", 1) and n < m:  # NumPy centres the reversed sum the other way
        return _mode_slice(full, n, m, "full")[(n - 1) - (n - 1) // 2:][:m]
    return _mode_slice(full, n, m, mode)


@implements(np.convolve)
def convolve(a, v, mode="full"):
    """(a * v)[k] = sum_n a[n] v[k - n]: the correlation with v reversed."""
    a, v = _signal_operands("convolve", a, v)
    if v.shape[0] > a.shape[0]:  # convolution commutes; NumPy slides the shorter one
        a, v = v, a
    n, m = a.shape[0], v.shape[0]
    return _mode_slice(_full_correlation(a, v.flip(0)), n, m, mode)


@implements(np.polymul)
def polymul(a1, a2):
    """The product of two polynomials (highest power first): the convolution
    of their coefficients, each without its leading zeros (NumPy's poly1d)."""
    if isinstance(a1, np.poly1d) or isinstance(a2, np.poly1d):
        raise Unsupported("polymul of a poly1d")
    return convolve(*(_poly_coefficients(a) for a in (a1, a2)))


@implements(np.polydiv)
def polydiv(u, v):
    """Quotient and remainder of polynomial division (highest power first):
    NumPy's long division, each step's quotient coefficient stacked and the
    remainder updated out of place (NumPy writes both into arrays), then
    the remainder's leading near-zeros trimmed as NumPy's allclose does."""
    if isinstance(u, np.poly1d) or isinstance(v, np.poly1d):
        raise Unsupported("polydiv of a poly1d")
    u, v = (_inexact(as_tensor(c).reshape(-1) if as_tensor(c).ndim == 0 else as_tensor(c))
            for c in (u, v))
    u, v = promote(u, v)
    m, n = u.shape[0] - 1, v.shape[0] - 1
    r, steps = u, []
    for k in range(m - n + 1):
        d = r[k] / v[0]
        steps.append(d)
        r = _C.cat([r[:k], r[k:k + n + 1] - d * v, r[k + n + 1:]])
    q = _C.stack(steps) if steps else _C.zeros(1, dtype=u.dtype, device=u.device)
    while r.shape[0] > 1 and bool(np.isclose(r[0].detach().cpu().numpy(), 0, rtol=1e-14)):
        r = r[1:]
    return q, r


@implements(np.roots)
def roots(p):
    """The roots of a polynomial (highest power first): NumPy's eigenvalues
    of the companion matrix of the coefficients between the first and last
    nonzero ones, then a zero per trailing zero.  The companion matrix is
    built from the coefficients (NumPy writes them into an ndarray), so the
    roots are differentiable in them; real when every eigenvalue is, as
    NumPy's eigvals."""
    p = as_tensor(p)
    p = p.reshape(1) if p.ndim == 0 else p
    if p.ndim != 1:
        raise ValueError("Input must be a rank-1 array.")
    nonzero = (p != 0).nonzero().reshape(-1).tolist()  # data-dependent: one host read
    if not nonzero:
        return _C.zeros(0, dtype=_C.float64, device=p.device)
    trailing = p.shape[0] - nonzero[-1] - 1
    p = _inexact(p[nonzero[0]:nonzero[-1] + 1])
    n = p.shape[0]
    if n > 1:
        companion = _C.cat([(-p[1:] / p[0]).reshape(1, n - 1),
                            _C.eye(n - 2, n - 1, dtype=p.dtype, device=p.device)])
        found = np.linalg.eigvals(companion)
    else:
        found = _C.zeros(0, dtype=p.dtype, device=p.device)
    return _C.cat([found, _C.zeros(trailing, dtype=found.dtype, device=p.device)])


def _poly_coefficients(c):
    c = as_tensor(c)
    c = c.reshape(1) if c.ndim == 0 else c
    if c.ndim != 1:
        raise ValueError("Polynomial must be 1d only.")
    first = (c != 0).nonzero()  # data-dependent: one host read
    if not first.numel():
        return _C.zeros(1, dtype=c.dtype, device=c.device)
    return c[int(first[0, 0]):]


def _inexact(a):
    """NumPy's ``asarray(a) + 0.0``: integer and bool data become float64,
    float and complex data keep their dtype."""
    a = as_tensor(a)
    return a if a.is_floating_point() or a.is_complex() else a.to(_C.float64)


@implements(np.polyfit)
def polyfit(x, y, deg, rcond=None, full=False, w=None, cov=False):
    """NumPy's least-squares polynomial fit, its steps without its writes
    (``lhs *= w[:, None]``, ``rhs *= w``, ``lhs /= scale``): NumPy's code run
    on tensors wrote over the Vandermonde matrix that ``lhs * lhs`` kept for
    the tape (x that requires grad failed in backward) and multiplied an
    ndarray by weights that require grad in place (refused)."""
    order = int(deg) + 1
    x, y = _inexact(x), _inexact(y)
    if deg < 0:
        raise ValueError("expected deg >= 0")
    if x.ndim != 1:
        raise TypeError("expected 1D vector for x")
    if x.numel() == 0:
        raise TypeError("expected non-empty vector for x")
    if y.ndim < 1 or y.ndim > 2:
        raise TypeError("expected 1D or 2D array for y")
    if x.shape[0] != y.shape[0]:
        raise TypeError("expected x and y to have same length")
    if rcond is None:
        rcond = len(x) * np.finfo(np_dtype(x.dtype)).eps
    lhs, rhs = np.vander(x, order), y
    if w is not None:
        w = _inexact(w)
        if w.ndim != 1:
            raise TypeError("expected a 1-d array for weights")
        if w.shape[0] != y.shape[0]:
            raise TypeError("expected w and y to have the same length")
        lhs = lhs * w[:, None]
        rhs = rhs * (w[:, None] if rhs.ndim == 2 else w)
    # columns scaled to unit norm for the conditioning, the solution scaled back
    scale = _C.sqrt((lhs * lhs).sum(0))
    lhs = lhs / scale
    c, resids, rank, s = np.linalg.lstsq(lhs, rhs, rcond)
    c = (c.T / scale).T
    if int(rank) != order and not full:
        warnings.warn("Polyfit may be poorly conditioned", np.exceptions.RankWarning,
                      stacklevel=2)
    if full:
        return c, resids, rank, s, rcond
    if not cov:
        return c
    V = np.linalg.inv(lhs.T @ lhs) / _C.outer(scale, scale)
    if cov == "unscaled":
        fac = 1
    else:
        if len(x) <= order:
            raise ValueError("the number of data points must exceed order to scale the "
                             "covariance matrix")
        fac = resids / (len(x) - order)
    return c, (V * fac if y.ndim == 1 else V[:, :, None] * fac)


# ---- interp --------------------------------------------------------------------------------------

def _end_value(value, default, x):
    """interp's left= or right=: a number, or one value of a tensor (kept on
    the tape: fp[1] as ``left`` gets its gradient)."""
    if value is None:
        return default
    if isinstance(value, Tensor):
        if value.numel() != 1:
            raise TypeError("only length-1 arrays can be converted to Python scalars")
        return value.reshape(()).to(device=x.device, dtype=_C.float64)
    return _C.tensor(float(value), dtype=_C.float64, device=x.device)


@implements(np.interp)
def interp(x, xp, fp, left=None, right=None, period=None):
    """The piecewise-linear interpolant through (xp, fp) at x, float64 as
    NumPy's: fp[0] (or ``left``) below xp[0], fp[-1] (or ``right``) above
    xp[-1].  Differentiable in x (the slope), fp and xp.  With ``period``,
    NumPy's periodic form: x and xp taken modulo the period, xp sorted and
    extended by one point at each end (left and right are ignored)."""
    if period is not None and period == 0:
        raise ValueError("period must be a non-zero value")
    x, xp, fp = (as_tensor(t) for t in (x, xp, fp))
    if fp.is_complex() and not (x.is_complex() or xp.is_complex()):
        # NumPy's complex interpolant: the real and imaginary parts apart
        ends = [None if e is None else complex(e) for e in (left, right)]
        re, im = (interp(x, xp, part(fp), *[None if e is None else part(e) for e in ends],
                         period=period)
                  for part in (lambda z: z.real, lambda z: z.imag))
        return re + im * 1j
    if any(t.is_complex() for t in (x, xp, fp)):
        raise Unsupported("interp of complex values")
    x, xp, fp = (t if t.dtype == _C.float64 else t.to(_C.float64) for t in (x, xp, fp))
    if period is not None:
        if xp.ndim != 1 or fp.ndim != 1:
            raise ValueError("Data points must be 1-D sequences")
        if xp.shape[0] != fp.shape[0]:
            raise ValueError("fp and xp are not of the same length")
        period = abs(float(period))
        left = right = None
        x, xp = _C.remainder(x, period), _C.remainder(xp, period)
        order = _C.argsort(xp.detach())
        xp, fp = xp[order], fp[order]
        xp = _C.cat([xp[-1:] - period, xp, xp[:1] + period])
        fp = _C.cat([fp[-1:], fp, fp[:1]])
    if xp.ndim != 1 or fp.ndim != 1:
        raise ValueError("object too deep for desired array")
    if xp.shape[0] != fp.shape[0]:
        raise ValueError("fp and xp are not of the same length.")
    if xp.shape[0] == 0:
        raise ValueError("array of sample points is empty")
    n = xp.shape[0]
    below, above = _end_value(left, fp[0], x), _end_value(right, fp[-1], x)
    if n == 1:
        inside = fp[0].expand(tuple(x.shape))
    else:
        # j: the left end of x's interval, 0 .. n - 2 (x == xp[-1] lands on t = 1)
        j = _C.clamp(_C.searchsorted(xp.detach(), x.detach(), right=True) - 1, 0, n - 2)
        x0, x1, f0, f1 = xp[j], xp[j + 1], fp[j], fp[j + 1]
        inside = f0 + (x - x0) / (x1 - x0) * (f1 - f0)
    result = _C.where(x < xp[0], below, _C.where(x > xp[-1], above, inside))
    return result

