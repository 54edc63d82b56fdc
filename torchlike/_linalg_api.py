"""Linear-algebra functions in the top-level namespace and as Tensor methods,
where PyTorch has them (torch.det, torch.inverse, Tensor.svd ...).

The matrix products (matmul, mm, addmm, tensordot ...) are ops of the C
registry and need nothing here; these are the decompositions' aliases and the
older torch.* spellings whose results differ from torch.linalg's (torch.svd
returns V rather than Vh, torch.qr takes some=)."""
import warnings

from . import _C
from . import linalg
from ._einsum import einsum
from ._return_types import return_type

__all__ = ["einsum", "det", "logdet", "slogdet", "inverse", "cholesky", "cholesky_solve",
           "pinverse", "matrix_power", "svd", "qr", "cross", "chain_matmul", "adjoint",
           "cholesky_inverse", "matrix_exp", "orgqr", "geqrf", "norm"]

_SVD = return_type("svd", ["U", "S", "V"])
_GEQRF = return_type("geqrf", ["a", "tau"])


def det(input):
    return linalg.det(input)


def logdet(input):
    """log(det); NaN for a negative real determinant, -inf for a singular matrix."""
    return _C._linalg_logdet(input)


_SLOGDET = return_type("slogdet", ["sign", "logabsdet"])


def slogdet(input):
    """torch.slogdet: linalg.slogdet's values as torch.return_types.slogdet."""
    return _SLOGDET(*linalg.slogdet(input))


def inverse(input, *, out=None):
    return linalg.inv(input, out=out)


def cholesky(input, upper=False, *, out=None):
    return linalg.cholesky(input, upper=upper, out=out)


def _gram_of_factor(L, upper):
    """L L^H (U^H U when upper) of the factor's triangle only: PyTorch, as
    LAPACK's potrs and potri, reads one triangle of L and ignores the other,
    so values and gradients (zero there) depend on that triangle alone."""
    L = _C.triu(L) if upper else _C.tril(L)
    return _C.matmul(adjoint(L), L) if upper else _C.matmul(L, adjoint(L))


def cholesky_solve(B, L, upper=False):
    """X with (L L^H) X = B for a Cholesky factor L (U^H U when upper)."""
    return linalg.solve(_gram_of_factor(L, upper), B)


def cholesky_inverse(L, upper=False):
    """(L L^H)^-1 for a Cholesky factor L (U^H U when upper)."""
    return linalg.inv(_gram_of_factor(L, upper))


def pinverse(input, rcond=1e-15):
    return linalg.pinv(input, rtol=rcond)


def matrix_power(input, n):
    return linalg.matrix_power(input, n)


def adjoint(input):
    """Conjugate transpose of the last two dims."""
    return _C._linalg_adjoint(input)


def svd(input, some=True, compute_uv=True):
    """torch.svd: (U, S, V) with A = U diag(S) V^H; reduced unless some=False."""
    if not compute_uv:
        s = linalg.svdvals(input)
        m, n = input.shape[-2], input.shape[-1]
        z = _C.zeros(*input.shape[:-2], m, m if not some else min(m, n), dtype=s.dtype
                     if not input.is_complex() else input.dtype, device=s.device)
        zv = _C.zeros(*input.shape[:-2], n, n if not some else min(m, n), dtype=z.dtype,
                      device=s.device)
        return _SVD(z, s, zv)
    U, S, Vh = linalg.svd(input, full_matrices=not some)
    return _SVD(U, S, adjoint(Vh))


def qr(input, some=True):
    return linalg.qr(input, "reduced" if some else "complete")


_cross_warned = False


def cross(input, other, dim=None):
    """torch.cross: without dim, the first dim of size 3 (deprecated default,
    which warns once per process, as PyTorch)."""
    global _cross_warned
    input, other = linalg._tensor_arg(input, "input", "cross"), linalg._tensor_arg(other, "other",
                                                                                    "cross")
    if dim is None:
        if not _cross_warned:
            _cross_warned = True
            warnings.warn("Using torch.cross without specifying the dim arg is deprecated.\n"
                          "Please either pass the dim explicitly or simply use "
                          "torch.linalg.cross.\nThe default value of dim will change to agree "
                          "with that of linalg.cross in a future release.", UserWarning,
                          stacklevel=2)
        shape = input.shape if input.ndim >= other.ndim else other.shape
        dim = next((i for i, s in enumerate(shape) if s == 3), None)
        if dim is None:
            raise RuntimeError("no dimension of size 3 in input")
    return linalg.cross(input, other, dim=dim)


_chain_matmul_warned = False   # PyTorch's notice: once per process


def chain_matmul(*matrices):
    global _chain_matmul_warned
    if not _chain_matmul_warned:
        _chain_matmul_warned = True
        warnings.warn("torch.chain_matmul is deprecated and will be removed in a future PyTorch "
                      "release. Use torch.linalg.multi_dot instead, which accepts a list of two "
                      "or more tensors rather than multiple parameters.", UserWarning, stacklevel=2)
    return linalg.multi_dot(matrices)


_norm_op = _C.norm


def norm(input, *args, **kwargs):
    """torch.norm: the C op, but p='nuc' (old code's nuclear-norm
    regulariser) is linalg.matrix_norm's, over dim or the only two dims."""
    p = args[0] if args else kwargs.get("p", "fro")
    if not (isinstance(p, str) and p == "nuc"):
        return _norm_op(input, *args, **kwargs)
    names = ("p", "dim", "keepdim", "out", "dtype")
    given = dict(zip(names, args), **kwargs)
    dim = given.get("dim")
    if dim is None:
        if input.ndim > 2:
            raise RuntimeError("linalg.matrix_norm: dim must be a 2-tuple. Got "
                               + " ".join(str(d) for d in range(input.ndim)))
        dim = (-2, -1)
    return linalg.matrix_norm(input, "nuc", dim=dim, keepdim=given.get("keepdim", False),
                              dtype=given.get("dtype"), out=given.get("out"))


def matrix_exp(input):
    return linalg.matrix_exp(input)


def geqrf(input):
    """LAPACK's QR in its own storage: ``a`` holds R on and above the diagonal
    and the Householder vectors below it, ``tau`` their factors
    (linalg.householder_product(a, tau) is Q)."""
    if not isinstance(input, _C.Tensor):
        raise TypeError(f"geqrf(): argument 'input' must be Tensor, not {type(input).__name__}")
    return _GEQRF(*input._geqrf())


def orgqr(input, tau):
    """torch.orgqr: linalg.householder_product under LAPACK's name."""
    return linalg.householder_product(input, tau)


Tensor = _C.Tensor
for _name in ("det", "logdet", "slogdet", "inverse", "cholesky", "cholesky_solve",
              "cholesky_inverse", "pinverse", "matrix_power", "svd", "qr", "cross", "adjoint",
              "matrix_exp", "orgqr", "geqrf", "norm"):
    setattr(Tensor, _name, globals()[_name])


def _inplace(name):
    op = getattr(_C, name)

    def method(self, *args, **kwargs):
        return self.copy_(op(self, *args, **kwargs))
    method.__name__ = name + "_"
    return method


# In-place forms of the beta/alpha products (t.addmm_(m1, m2, beta=, alpha=)).
for _name in ("addmm", "addbmm", "baddbmm", "addmv", "addr"):
    setattr(Tensor, _name + "_", _inplace(_name))


def _H(self):
    if self.ndim != 2:
        raise RuntimeError("tensor.H is only supported on matrices (2-D tensors). "
                           f"Got {self.ndim}-D tensor.")
    return adjoint(self)


Tensor.mH = property(adjoint)
Tensor.H = property(_H)
del _name
