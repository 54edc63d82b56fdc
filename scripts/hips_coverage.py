"""Measure torchlike's coverage of the functions HIPS autograd differentiates.

For each function in HIPS autograd's lists (numpy_vjps.py, numpy/linalg.py,
numpy/fft.py, scipy/special.py, scipy/linalg.py, scipy/signal.py,
scipy/integrate.py, scipy/stats/*), call it the way user code does -- plain
``np.<name>`` / ``scipy.<module>.<name>`` on a float64 tensor that requires
grad (and, for SciPy calls that convert with np.asarray, the
``torchlike.scipy`` spelling) -- then check the gradient against central
finite differences with gradcheck.  Prints a Markdown table for docs/numpy.md:

    PYTHONPATH=. .venv/bin/python scripts/hips_coverage.py > /tmp/coverage.md
"""
import importlib
import sys
import warnings

import numpy as np
import scipy.special as sp

import torchlike as tl
from torchlike.autograd import gradcheck

warnings.simplefilter("ignore")
RNG = np.random.default_rng(0)
V = RNG.uniform(0.2, 0.9, 5)           # a vector in (0, 1): valid for most domains
M = RNG.uniform(0.2, 0.9, (3, 3)) + np.eye(3)   # a well-conditioned square matrix
SPD = M @ M.T + np.eye(3)


def _ts(name):
    try:
        return importlib.import_module("torchlike.scipy" + ("." + name if name else ""))
    except ImportError:
        return None


# name -> (input array, call(x) with x a tensor standing where the input goes)
NUMPY = {
    "abs": (V, lambda x: np.abs(x)), "absolute": (V, lambda x: np.absolute(x)),
    "add": (V, lambda x: np.add(x, x * 2)), "amax": (M, lambda x: np.amax(x, axis=0)),
    "amin": (M, lambda x: np.amin(x, axis=1)), "angle": (V, lambda x: np.angle(x + 1j * x)),
    "arccos": (V, np.arccos), "arccosh": (V + 1, np.arccosh), "arcsin": (V, np.arcsin),
    "arcsinh": (V, np.arcsinh), "arctan": (V, np.arctan),
    "arctan2": (V, lambda x: np.arctan2(x, x[::-1])), "arctanh": (V, np.arctanh),
    "array_split": (V, lambda x: np.array_split(x, 2)[1]),
    "atleast_1d": (V, np.atleast_1d), "atleast_2d": (V, np.atleast_2d),
    "atleast_3d": (V, np.atleast_3d), "broadcast_to": (V, lambda x: np.broadcast_to(x, (2, 5))),
    "clip": (V, lambda x: np.clip(x, 0.3, 0.7)), "concatenate": (V, lambda x: np.concatenate(
        [x, x])), "conj": (V, lambda x: np.real(np.conj(x + 1j * x))),
    "conjugate": (V, lambda x: np.imag(np.conjugate(x + 1j * x))), "cos": (V, np.cos),
    "cosh": (V, np.cosh), "cross": (V[:3], lambda x: np.cross(x, x[::-1])),
    "cumsum": (V, np.cumsum), "deg2rad": (V, np.deg2rad), "degrees": (V, np.degrees),
    "diag": (M, np.diag), "diagonal": (M, np.diagonal), "diff": (V, np.diff),
    "divide": (V, lambda x: np.divide(x, x[::-1])), "dot": (M, lambda x: np.dot(x, x)),
    "dsplit": (M.reshape(1, 3, 3), lambda x: np.dsplit(x, 3)[0]),
    "einsum": (M, lambda x: np.einsum("ij,jk->ik", x, x)), "exp": (V, np.exp),
    "exp2": (V, np.exp2), "expand_dims": (V, lambda x: np.expand_dims(x, 0)),
    "expm1": (V, np.expm1), "fabs": (V, np.fabs), "fliplr": (M, np.fliplr),
    "flipud": (M, np.flipud), "fmax": (V, lambda x: np.fmax(x, x[::-1])),
    "fmin": (V, lambda x: np.fmin(x, x[::-1])), "full": (V, lambda x: np.full((2,), x[0])),
    "gradient": (V, np.gradient), "hsplit": (M, lambda x: np.hsplit(x, 3)[1]),
    "hypot": (V, lambda x: np.hypot(x, x[::-1])), "imag": (V, lambda x: np.imag(x * (1 + 2j))),
    "inner": (V, lambda x: np.inner(x, x)), "kron": (M, lambda x: np.kron(x, x)),
    "linspace": (V, lambda x: np.linspace(x[0], x[1], 4)), "log": (V, np.log),
    "log10": (V, np.log10), "log1p": (V, np.log1p), "log2": (V, np.log2),
    "logaddexp": (V, lambda x: np.logaddexp(x, x[::-1])),
    "logaddexp2": (V, lambda x: np.logaddexp2(x, x[::-1])),
    "matmul": (M, lambda x: np.matmul(x, x)), "max": (M, lambda x: np.max(x, axis=1)),
    "maximum": (V, lambda x: np.maximum(x, x[::-1])), "mean": (M, lambda x: np.mean(x, 0)),
    "min": (M, np.min), "minimum": (V, lambda x: np.minimum(x, x[::-1])),
    "mod": (V, lambda x: np.mod(x * 3, x[::-1] + 0.1)), "moveaxis": (M, lambda x: np.moveaxis(x, 0, 1)),
    "msort": (V, lambda x: np.sort(x, axis=0)), "multiply": (V, lambda x: np.multiply(x, x)),
    "nan_to_num": (V, np.nan_to_num), "negative": (V, np.negative),
    "outer": (V, lambda x: np.outer(x, x)), "pad": (V, lambda x: np.pad(x, 2)),
    "partition": (V, lambda x: np.partition(x, 2)),
    "power": (V, lambda x: np.power(x, x[::-1])), "prod": (V, np.prod),
    "rad2deg": (V, np.rad2deg), "radians": (V, np.radians), "ravel": (M, np.ravel),
    "real": (V, lambda x: np.real(x * (1 + 2j))), "real_if_close": (V, np.real_if_close),
    "reciprocal": (V, np.reciprocal), "remainder": (V, lambda x: np.remainder(x * 3, x[::-1] + 0.1)),
    "repeat": (V, lambda x: np.repeat(x, 2)), "reshape": (M, lambda x: np.reshape(x, -1)),
    "roll": (V, lambda x: np.roll(x, 2)), "rollaxis": (M, lambda x: np.rollaxis(x, 1)),
    "rot90": (M, np.rot90), "sin": (V, np.sin), "sinc": (V, np.sinc), "sinh": (V, np.sinh),
    "sort": (V, np.sort), "split": (V[:4], lambda x: np.split(x, 2)[0]), "sqrt": (V, np.sqrt),
    "square": (V, np.square), "squeeze": (V[None], np.squeeze), "std": (M, lambda x: np.std(x)),
    "subtract": (V, lambda x: np.subtract(x, x ** 2)), "sum": (M, lambda x: np.sum(x, 1)),
    "swapaxes": (M, lambda x: np.swapaxes(x, 0, 1)), "tan": (V, np.tan), "tanh": (V, np.tanh),
    "tensordot": (M, lambda x: np.tensordot(x, x, 1)), "tile": (V, lambda x: np.tile(x, 2)),
    "trace": (M, np.trace), "transpose": (M, np.transpose), "tril": (M, np.tril),
    "triu": (M, np.triu), "true_divide": (V, lambda x: np.true_divide(x, 2)),
    "var": (M, lambda x: np.var(x, axis=0)), "vsplit": (M, lambda x: np.vsplit(x, 3)[0]),
    "where": (V, lambda x: np.where(x > 0.5, x, -x)), "astype": (V, lambda x: x.astype(
        np.float64)),
}
LINALG = {
    "cholesky": (SPD, np.linalg.cholesky), "det": (M, np.linalg.det),
    "eig": (M, lambda x: np.real(np.linalg.eigvals(x @ x.T))),
    "eigh": (SPD, lambda x: np.linalg.eigh(x)[0]), "inv": (M, np.linalg.inv),
    "norm": (M, np.linalg.norm), "pinv": (M, np.linalg.pinv),
    "slogdet": (M, lambda x: np.linalg.slogdet(x)[1]),
    "solve": (M, lambda x: np.linalg.solve(x, x[0])),
    "svd": (M, lambda x: np.linalg.svd(x, compute_uv=False)),
}
FFT = {name: (V, (lambda n: lambda x: np.real(getattr(np.fft, n)(x)))(name)) for name in
       ("fft", "ifft", "rfft", "fftshift", "ifftshift")}
FFT.update({name: (M, (lambda n: lambda x: np.real(getattr(np.fft, n)(x)))(name)) for name in
            ("fft2", "ifft2", "fftn", "ifftn", "rfft2", "rfftn")})
FFT.update({"irfft": (V, lambda x: np.fft.irfft(x)), "irfft2": (M, np.fft.irfft2),
            "irfftn": (M, np.fft.irfftn)})
SPECIAL = {
    "beta": (V, lambda x: sp.beta(x, 2.0)), "betainc": (V, lambda x: sp.betainc(2.0, 3.0, x)),
    "betaln": (V, lambda x: sp.betaln(x, 2.0)), "digamma": (V, sp.digamma), "erf": (V, sp.erf),
    "erfc": (V, sp.erfc), "erfcinv": (V, sp.erfcinv), "erfinv": (V, sp.erfinv),
    "expit": (V, sp.expit), "gamma": (V, sp.gamma), "gammainc": (V, lambda x: sp.gammainc(
        2.0, x)), "gammaincc": (V, lambda x: sp.gammaincc(2.0, x)), "gammaln": (V, sp.gammaln),
    "gammasgn": (V, lambda x: sp.gammasgn(x) * x), "i0": (V, sp.i0), "i1": (V, sp.i1),
    "iv": (V, lambda x: sp.iv(1.0, x)), "ive": (V, lambda x: sp.ive(1.0, x)),
    "j0": (V, sp.j0), "j1": (V, sp.j1), "jn": (V, lambda x: sp.jn(2, x)),
    "logit": (V, sp.logit), "psi": (V, sp.psi), "rgamma": (V, sp.rgamma),
    "y0": (V, sp.y0), "y1": (V, sp.y1), "yn": (V, lambda x: sp.yn(2, x)),
    # Python-level functions: SciPy converts with np.asarray, so the namespace spelling
    "logsumexp": (V, lambda x: _namespace_special("logsumexp")(x)),
    "multigammaln": (V, lambda x: _namespace_special("multigammaln")(x + 2, 2)),
    "polygamma": (V, lambda x: _namespace_special("polygamma")(1, x)),
}


def _namespace_special(name):
    import torchlike.numpy as tnp
    return getattr(tnp.special, name)


def _scipy_call(module, name, *args, **kwargs):
    ns = _ts(module)
    if ns is None:
        raise NotImplementedError("torchlike.scipy is not there")
    obj = ns
    for part in name.split("."):
        obj = getattr(obj, part)
    return obj(*args, **kwargs)


SCIPY = {
    "linalg.sqrtm": (SPD, lambda x: _scipy_call("linalg", "sqrtm", x)),
    "linalg.solve_triangular": (M, lambda x: _scipy_call("linalg", "solve_triangular",
                                                         x.tril(),
                                                         x[0], lower=True)),
    "linalg.solve_banded": (M, lambda x: _scipy_call("linalg", "solve_banded", (1, 1), x,
                                                     x[0])),
    "linalg.solve_sylvester": (M, lambda x: _scipy_call("linalg", "solve_sylvester", x, x.T,
                                                        x)),
    "signal.convolve": (V, lambda x: _scipy_call("signal", "convolve", x, x[:3])),
    "integrate.odeint": (V[:2], lambda x: _scipy_call(
        "integrate", "odeint", lambda y, t, *a: -y * a[0], x,
        tl.tensor([0.0, 0.5], dtype=tl.float64), (x[0] * 0 + 1.5,))),
}
for dist, calls in {"norm": ("cdf", "logcdf", "logpdf", "logsf", "pdf", "sf"),
                    "t": ("cdf", "logcdf", "logpdf", "pdf"), "beta": ("cdf", "logpdf", "pdf"),
                    "chi2": ("cdf", "logpdf", "pdf"), "gamma": ("cdf", "logpdf", "pdf")}.items():
    for call in calls:
        extra = {"t": (4.0,), "beta": (2.0, 3.0), "chi2": (3.0,), "gamma": (2.0,)}.get(dist, ())
        SCIPY[f"stats.{dist}.{call}"] = (V, (lambda d, c, e: lambda x: _scipy_call(
            "stats", f"{d}.{c}", x, *e))(dist, call, extra))
# poisson: HIPS differentiates with respect to the rate mu (k is an integer count)
for call in ("cdf", "logpmf", "pmf"):
    SCIPY[f"stats.poisson.{call}"] = (V, (lambda c: lambda x: _scipy_call(
        "stats", f"poisson.{c}", (x * 4).floor().detach(), x + 1))(call))
SCIPY["stats.multivariate_normal.logpdf"] = (V[:3], lambda x: _scipy_call(
    "stats", "multivariate_normal.logpdf", x, x * 0.5, np.eye(3)))
SCIPY["stats.multivariate_normal.pdf"] = (V[:3], lambda x: _scipy_call(
    "stats", "multivariate_normal.pdf", x, x * 0.5, np.eye(3)))
SCIPY["stats.multivariate_normal.entropy"] = (V[:3], lambda x: _scipy_call(
    "stats", "multivariate_normal.entropy", x, tl.diag(x) + tl.eye(3, dtype=tl.float64)))
SCIPY["stats.dirichlet.logpdf"] = (V[:3], lambda x: _scipy_call(
    "stats", "dirichlet.logpdf", tl.tensor([0.2, 0.3, 0.5], dtype=tl.float64), x + 1))
SCIPY["stats.dirichlet.pdf"] = (V[:3], lambda x: _scipy_call(
    "stats", "dirichlet.pdf", tl.tensor([0.2, 0.3, 0.5], dtype=tl.float64), x + 1))


def check(array, call):
    """'✓' when the gradient matches finite differences, else the failure."""
    x = tl.from_numpy(np.array(array, dtype=np.float64)).requires_grad_()
    try:
        out = call(x)
        if not isinstance(out, tl.Tensor) or not out.requires_grad:
            return "✗ not recorded"
        ok = gradcheck(lambda v: call(v), (x,), raise_exception=False)
        return "✓" if ok else "✗ gradient differs"
    except Exception as e:  # noqa: BLE001  (the table reports it)
        return f"✗ {type(e).__name__}"


def main():
    sections = [("numpy", NUMPY), ("numpy.linalg", LINALG), ("numpy.fft", FFT),
                ("scipy.special", SPECIAL), ("scipy (stats, linalg, signal, integrate)", SCIPY)]
    total = passed = 0
    print("| module | function (HIPS autograd) | torchlike |")
    print("| --- | --- | --- |")
    for title, table in sections:
        for name in sorted(table):
            result = check(*table[name])
            total += 1
            passed += result == "✓"
            print(f"| {title} | `{name}` | {result} |")
    print(f"\n{passed} of {total} differentiate.", file=sys.stderr)
    print(f"\n{passed} of {total} functions differentiate (gradcheck against finite "
          f"differences).")


if __name__ == "__main__":
    main()
