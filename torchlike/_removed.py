"""Functions PyTorch removed after their deprecation (1.9 -> 2.0) but still
names, so that old code fails with a RuntimeError naming the replacement
rather than an AttributeError: solve, eig, symeig, lstsq, matrix_rank (and
their Tensor methods).  Also torch.is_distributed, which answers False."""
from . import _C

__all__ = ["solve", "eig", "symeig", "lstsq", "matrix_rank", "is_distributed"]

_REPLACEMENTS = {
    "solve": "torch.linalg.solve(A, B) (the arguments are reversed; torch.linalg.lu_factor "
             "gives the LU factorization)",
    "eig": "torch.linalg.eig(A) for eigenvalues and vectors, or torch.linalg.eigvals(A) "
           "(both complex)",
    "symeig": "torch.linalg.eigh(A, UPLO='U' if upper else 'L') or torch.linalg.eigvalsh "
              "(the lower triangle is now the default)",
    "lstsq": "torch.linalg.lstsq(A, B).solution (the arguments are reversed; the residuals are "
             "its 'residuals' field)",
    "matrix_rank": "torch.linalg.matrix_rank (its 'symmetric' parameter is now 'hermitian')",
}


def _removed(name):
    def removed(*args, **kwargs):
        raise RuntimeError(f"torch.{name} was deprecated in 1.9 and is now removed: use "
                           f"{_REPLACEMENTS[name]}.")
    removed.__name__ = removed.__qualname__ = name
    removed.__doc__ = f"Removed from PyTorch: raises, naming {_REPLACEMENTS[name].split(' ')[0]}."
    return removed


solve, eig, symeig, lstsq, matrix_rank = (_removed(n) for n in
                                          ("solve", "eig", "symeig", "lstsq", "matrix_rank"))
for _name in ("solve", "eig", "symeig", "lstsq"):
    setattr(_C.Tensor, _name, _removed(_name))


def is_distributed(input):
    """False: a tensor here is never a distributed (legacy THD) tensor."""
    return False
