"""torchlike.linalg: PyTorch's ``torch.linalg`` over the C core.

Every function accepts batches ``(*, m, n)`` and computes in float32, float64,
complex64 or complex128 (integer inputs use the default float dtype).  The
numerical work is done in C (``_C._linalg_*``, on LAPACK/OpenBLAS); this module
only gives the functions PyTorch's signatures, defaults and result tuples.
Failures on singular or non positive-definite input raise :class:`LinAlgError`
naming the batch element, e.g. ``linalg.inv: (Batch element 3): ...``.
"""
import math
import numpy as _np

from . import _C
from ._dtype_names import cpp_name as _cpp_name  # multi_dot's dtype refusal
from ._dtype_names import scalar_type_name
from ._return_types import return_type

__all__ = [
    "LinAlgError", "solve", "inv", "det", "slogdet", "cholesky", "qr", "svd", "svdvals",
    "eigh", "eigvalsh", "eig", "eigvals", "lstsq", "norm", "vector_norm", "matrix_norm",
    "pinv", "matrix_rank", "cond", "matrix_power", "cross", "multi_dot", "matmul", "diagonal",
    "lu_factor", "lu", "lu_solve", "solve_triangular", "vecdot", "tensorinv", "tensorsolve",
    "inv_ex", "cholesky_ex", "solve_ex", "lu_factor_ex", "matrix_exp", "householder_product",
    "ldl_factor", "ldl_factor_ex", "ldl_solve", "vander", "polar", "matrix_sqrth",
]


class LinAlgError(RuntimeError, _np.linalg.LinAlgError):
    """A linear-algebra routine failed on its input (singular, not positive-definite,
    no convergence, non-finite entries).

    A RuntimeError as PyTorch's is, and also NumPy's ``np.linalg.LinAlgError``, so
    NumPy code that calls ``np.linalg`` functions on tensors catches it unchanged."""


_C._set_linalg_error(LinAlgError)

# Result tuples, named as PyTorch's torch.return_types (linalg_<name>).
SlogdetResult = return_type("linalg_slogdet", ["sign", "logabsdet"])
QRResult = return_type("linalg_qr", ["Q", "R"])
SVDResult = return_type("linalg_svd", ["U", "S", "Vh"])
EighResult = return_type("linalg_eigh", ["eigenvalues", "eigenvectors"])
EigResult = return_type("linalg_eig", ["eigenvalues", "eigenvectors"])
LUFactorResult = return_type("linalg_lu_factor", ["LU", "pivots"])
LUResult = return_type("linalg_lu", ["P", "L", "U"])
InvExResult = return_type("linalg_inv_ex", ["inverse", "info"])
CholeskyExResult = return_type("linalg_cholesky_ex", ["L", "info"])
SolveExResult = return_type("linalg_solve_ex", ["result", "info"])
LUFactorExResult = return_type("linalg_lu_factor_ex", ["LU", "pivots", "info"])
LstsqResult = return_type("linalg_lstsq", ["solution", "residuals", "rank", "singular_values"])
LDLFactorResult = return_type("linalg_ldl_factor", ["LD", "pivots"])
LDLFactorExResult = return_type("linalg_ldl_factor_ex", ["LD", "pivots", "info"])

matmul = _C.matmul
from ._matrix_functions import householder_product, matrix_exp  # noqa: E402
from ._linalg_polar import polar, matrix_sqrth  # noqa: E402,F401


def _out(result, out):
    if out is None:
        return result
    if tuple(out.shape) != tuple(result.shape):
        raise RuntimeError(f"Expected out tensor to have shape {tuple(result.shape)}, "
                           f"but got {tuple(out.shape)}")
    out.copy_(result)
    return out


def solve(A, B, *, left=True, out=None):
    """X with A X = B (left) or X A = B; B may be a batch of vectors ``(*, n)``."""
    return _out(_C._linalg_solve(A, B, left), out)


def inv(A, *, out=None):
    """Inverse of square matrices; LinAlgError names the zero pivot of a singular one."""
    return _out(_C._linalg_inv(A), out)


def det(A, *, out=None):
    return _out(_C._linalg_det(A), out)


def slogdet(A):
    """(sign, log|det|); sign is a unit complex number for complex input."""
    return SlogdetResult(*_C._linalg_slogdet(A))


def cholesky(A, *, upper=False, out=None):
    """L with A = L L^H (or U with A = U^H U when upper)."""
    return _out(_C._linalg_cholesky(A, upper), out)


def qr(A, mode="reduced"):
    """Q, R with A = Q R; mode 'reduced', 'complete' or 'r' (Q empty)."""
    return QRResult(*_C._linalg_qr(A, mode))


def svd(A, full_matrices=True, *, driver=None):
    """U, S, Vh with A = U diag(S) Vh, singular values in descending order.

    Gradients through U and Vh are finite only for distinct (nonzero, when
    m != n) singular values, and exist only for losses that do not depend on
    the sign/phase of each singular vector pair; S alone is always
    differentiable.  With full_matrices=True only the first min(m, n)
    columns of U and rows of Vh are differentiated."""
    if driver is not None:
        raise RuntimeError("torch.linalg.svd: keyword argument `driver=` is only supported on "
                           "CUDA inputs with cuSOLVER backend.")
    return SVDResult(*_C._linalg_svd(A, full_matrices, True))


def svdvals(A, *, driver=None):
    if driver is not None:
        raise RuntimeError("torch.linalg.svdvals: keyword argument `driver=` is only supported "
                           "on CUDA inputs with cuSOLVER backend.")
    return _C._linalg_svd(A, False, False)


def eigh(A, UPLO="L"):
    """Eigenvalues (ascending, real) and orthonormal eigenvectors of Hermitian A,
    reading only the triangle named by UPLO.

    As in PyTorch the gradient is returned for the whole matrix (differentiate
    through a Hermitian construction such as ``B + B.mH``); eigenvector
    gradients need distinct eigenvalues and a loss independent of each
    vector's sign/phase."""
    return EighResult(*_C._linalg_eigh(A, UPLO, True))


def eigvalsh(A, UPLO="L"):
    return _C._linalg_eigh(A, UPLO, False)


def eig(A):
    """Complex eigenvalues and unit-norm eigenvectors of a general square matrix.

    Differentiable for distinct eigenvalues; a loss on the eigenvectors must
    not depend on each vector's phase (backward raises when it does)."""
    return EigResult(*_C._linalg_eig(A, True))


def eigvals(A):
    return _C._linalg_eig(A, False)


def lstsq(A, B, rcond=None, *, driver=None):
    """Least-squares solution of A X = B.

    driver: 'gelsy' (default), 'gelsd', 'gelss' or 'gels'; on CUDA 'gels'
    only (the default there, as in PyTorch).  As in PyTorch, residuals are
    filled only when m > n, every matrix has full rank and the driver is not
    'gelsy'; rank comes with all drivers but 'gels', singular values with
    'gelsd' and 'gelss'."""
    if driver is None:
        driver = "gels" if isinstance(A, _C.Tensor) and A.device.type == "cuda" else "gelsy"
    if not isinstance(driver, str):
        raise TypeError(f"lstsq(): argument 'driver' must be str, not {type(driver).__name__}")
    return LstsqResult(*_C._linalg_lstsq(A, B, -1.0 if rcond is None else float(rcond), driver))


def _as_float_ord(ord, fn):
    if isinstance(ord, str):
        raise RuntimeError(f"{fn}: ord must be a number for vector norms, got '{ord}'")
    return float(ord)


def vector_norm(x, ord=2, dim=None, keepdim=False, *, dtype=None, out=None):
    """(sum |x|^ord)^(1/ord) over dim (all dims when None); ord may be inf, -inf, 0."""
    if not isinstance(x, _C.Tensor):
        x = _C.tensor(x)
    return _out(_C._linalg_vector_norm(x, _as_float_ord(ord, "linalg.vector_norm"), dim,
                                       bool(keepdim), dtype), out)


def _wrap_pair(dim, ndim, fn):
    if not isinstance(dim, (tuple, list)) or len(dim) != 2:
        raise RuntimeError(f"{fn}: dim must be a 2-tuple. Got {dim}")
    d0, d1 = (d + ndim if d < 0 else d for d in dim)
    if not (0 <= d0 < ndim and 0 <= d1 < ndim):
        raise IndexError(f"{fn}: dim {tuple(dim)} out of range for a {ndim}-d tensor")
    if d0 == d1:
        raise RuntimeError(f"{fn}: dims must be different. Got ({dim[0]}, {dim[1]})")
    return d0, d1


def _drop_dims(t, shape, dims, keepdim):
    """Reshape a keepdim=True reduction result to the keepdim=False shape if asked."""
    if keepdim:
        return t
    return t.reshape([s for i, s in enumerate(shape) if i not in dims])


def matrix_norm(A, ord="fro", dim=(-2, -1), keepdim=False, *, dtype=None, out=None):
    """Frobenius, nuclear, 1, -1, 2, -2, inf, -inf norms of the matrices in dims ``dim``."""
    fn = "linalg.matrix_norm"
    if not isinstance(A, _C.Tensor):
        A = _C.tensor(A)
    if A.ndim < 2:
        raise RuntimeError(f"{fn}: The input tensor A must have at least 2 dimensions.")
    if dtype is not None:
        A = A.to(dtype)
    d0, d1 = _wrap_pair(dim, A.ndim, fn)
    shape = list(A.shape)
    inf = math.inf
    if ord == "fro":
        r = vector_norm(A, 2, (d0, d1), keepdim)
    elif ord in ("nuc", 2, -2):
        rest = [i for i in range(A.ndim) if i not in (d0, d1)]
        s = svdvals(A.permute(*rest, d0, d1))
        r = vector_norm(s, {"nuc": 1, 2: inf, -2: -inf}[ord], -1)
        if keepdim:
            kept = [shape[i] if i in rest else 1 for i in range(A.ndim)]
            r = r.reshape(kept)
    elif ord in (1, -1, inf, -inf):
        # 1: largest column sum (sum over rows d0, then max over d1); inf: row sums
        first, second = (d0, d1) if ord in (1, -1) else (d1, d0)
        sums = vector_norm(A, 1, first, True)
        r = _drop_dims(vector_norm(sums, inf if ord > 0 else -inf, second, True), shape,
                       (d0, d1), keepdim)
    else:
        raise RuntimeError(f"{fn}: Order {ord} not supported.")
    return _out(r, out)


def norm(A, ord=None, dim=None, keepdim=False, *, dtype=None, out=None):
    """Vector or matrix norm, chosen as torch.linalg.norm does: by dim when given
    (an int: vector, a pair: matrix), else by A's ndim when ord is given."""
    if not isinstance(A, _C.Tensor):
        A = _C.tensor(A)
    if isinstance(dim, int):
        dim = (dim,)
    if dim is not None and len(dim) == 2:
        return matrix_norm(A, "fro" if ord is None else ord, dim, keepdim, dtype=dtype, out=out)
    if dim is None and ord is not None:
        if A.ndim == 2:
            return matrix_norm(A, ord, (-2, -1), keepdim, dtype=dtype, out=out)
        if A.ndim != 1:
            raise RuntimeError(f"linalg.norm: If dim is not specified but ord is, the input must "
                               f"be 1D or 2D. Got {A.ndim}D.")
    return vector_norm(A, 2 if ord is None else ord, dim, keepdim, dtype=dtype, out=out)


def cond(A, p=None, *, out=None):
    """Condition number of ``(*, m, n)`` matrices for the norm ``p``.

    ``p`` None, 2 or -2: the ratio of extreme singular values (any m x n).  Other
    norms (``'fro'``, ``'nuc'``, 1, -1, inf, -inf): ``norm(A) * norm(inv(A))`` for
    square A, and inf for a singular matrix or a NaN product.  Result ``(*)``, real."""
    fn = f"linalg.cond(ord={p})"
    A = _tensor_arg(A, "A", "linalg.cond")
    if A.ndim < 2:
        raise RuntimeError(f"{fn}: The input tensor A must have at least 2 dimensions.")
    if p is None or p in (2, -2):
        if A.numel() == 0:
            return _out(_C.zeros(tuple(A.shape[:-2]), dtype=_real_dtype(A), device=A.device), out)
        s = svdvals(A)
        largest, smallest = s[..., 0], s[..., -1]
        return _out(smallest / largest if p == -2 else largest / smallest, out)
    if A.shape[-1] != A.shape[-2]:
        raise RuntimeError(f"{fn}: A must be batches of square matrices, but they are "
                           f"{A.shape[-2]} by {A.shape[-1]} matrices")
    if A.numel() == 0:
        return _out(_C.zeros(tuple(A.shape[:-2]), dtype=_real_dtype(A), device=A.device), out)
    inverse, info = inv_ex(A)
    r = matrix_norm(A, p) * matrix_norm(inverse, p)
    # a singular A, or one whose inverse is NaN: inf, as PyTorch answers
    return _out(_C.where((info > 0) | _C.isnan(r),
                         _C.full((), math.inf, dtype=r.dtype, device=r.device), r), out)


def _real_dtype(A):
    """The real dtype of A's singular values (float16 and bfloat16 compute in float32,
    integers in the default dtype)."""
    if A.dtype in (_C.float64, _C.complex128):
        return _C.float64
    if A.is_floating_point() or A.is_complex():
        return _C.float32
    return _C.get_default_dtype()


def _tensor_arg(x, name, fn):
    """x when it is a Tensor; else PyTorch's TypeError naming the argument."""
    if not isinstance(x, _C.Tensor):
        raise TypeError(f"{fn}(): argument '{name}' must be Tensor, not {type(x).__name__}")
    return x


def _tolerances(atol, rtol, rcond):
    if rcond is not None:
        if rtol is not None:
            raise RuntimeError("pinv: rcond and rtol cannot both be given")
        rtol = rcond
    return (-1.0 if atol is None else float(atol)), (-1.0 if rtol is None else float(rtol))


def pinv(A, rcond=None, hermitian=False, *, atol=None, rtol=None, out=None):
    """Moore-Penrose pseudo-inverse through the SVD (eigh when hermitian); singular
    values at most max(atol, rtol * s_max) are treated as zero."""
    atol, rtol = _tolerances(atol, rtol, rcond)
    return _out(_C._linalg_pinv(A, atol, rtol, bool(hermitian)), out)


def matrix_rank(A, tol=None, hermitian=False, *, atol=None, rtol=None, out=None):
    """Number of singular values above max(atol, rtol * s_max), as int64."""
    if tol is not None:
        atol, rtol = tol, 0.0
    atol, rtol = _tolerances(atol, rtol, None)
    return _out(_C._linalg_matrix_rank(A, atol, rtol, bool(hermitian)), out)


def matrix_power(A, n, *, out=None):
    """A^n by repeated squaring; negative n inverts first, n = 0 gives the identity."""
    if not isinstance(n, int):
        raise TypeError(f"matrix_power(): argument 'n' must be int, not {type(n).__name__}")
    return _out(_C._linalg_matrix_power(A, n), out)


def cross(input, other, *, dim=-1, out=None):
    """Cross product of 3-vectors along dim (broadcasting the other dims); both of one
    dtype, as in PyTorch."""
    input, other = _tensor_arg(input, "input", "linalg.cross"), _tensor_arg(other, "other",
                                                                            "linalg.cross")
    if input.dtype != other.dtype:
        raise RuntimeError(f"linalg.cross: expected all operands to have the same dtype, but got "
                           f"{input.dtype.name} and {other.dtype.name}")
    return _out(_C._linalg_cross(input, other, dim), out)


def multi_dot(tensors, *, out=None):
    """A chain of matrix products; the first and last operand may be vectors."""
    if not isinstance(tensors, (list, tuple)):
        raise TypeError(f"multi_dot(): argument 'tensors' must be a list or tuple of Tensors, "
                        f"not {type(tensors).__name__}")
    tensors = [_tensor_arg(t, f"tensors[{i}]", "multi_dot") for i, t in enumerate(tensors)]
    if len(tensors) < 2:
        raise RuntimeError(f"multi_dot(): expected at least 2 tensors but got {len(tensors)}")
    for i, t in enumerate(tensors):
        expected = (1, 2) if i in (0, len(tensors) - 1) else (2,)
        if t.ndim not in expected:
            raise RuntimeError(f"multi_dot(): tensor {i} must be "
                               f"{' or '.join(f'{e}D' for e in expected)} but got {t.ndim}D")
    for i, t in enumerate(tensors[1:], 1):
        if t.dtype != tensors[0].dtype:  # PyTorch's words (its typo included), C++ type names
            raise RuntimeError(f"multi_dot(): all tensors must have be the same dtype but tensor 0 "
                               f"is {_cpp_name(tensors[0].dtype)} and tensor {i} "
                               f"{_cpp_name(t.dtype)}")
    result = tensors[0]
    for t in tensors[1:]:
        result = _C.matmul(result, t)
    return _out(result, out)


def diagonal(A, *, offset=0, dim1=-2, dim2=-1):
    """A view of the diagonals of the matrices in (dim1, dim2), appended as the last dim."""
    return _C.diagonal(A, offset, dim1, dim2)


# pivot=False (LU without row interchanges) runs on devices only, as PyTorch's
# CUDA-only rule: on the CPU it raises PyTorch's "LU without pivoting is not
# implemented on the CPU".  Its pivots are 1 ... min(m, n) and lu's P is an
# empty tensor, as PyTorch returns them.

def lu_factor(A, *, pivot=True, out=None):
    """Compact LU with partial pivoting: (LU, pivots), pivots 1-based int32."""
    if not pivot:
        return LUFactorResult(*_C._linalg_lu_factor_ex(A, False, True)[:2])
    return LUFactorResult(*_C._linalg_lu_factor(A, False))


def lu(A, *, pivot=True, out=None):
    """P, L, U with A = P L U (L unit lower triangular); A = L U without pivoting."""
    if not pivot:
        LU = _C._linalg_lu_factor_ex(A, False)[0]
        m, n = LU.shape[-2:]
        k = min(m, n)
        L = LU[..., :, :k].tril(-1) + _C.eye(m, k, dtype=LU.dtype, device=LU.device)
        return LUResult(_C.empty(0, dtype=LU.dtype, device=LU.device), L, LU[..., :k, :].triu())
    return LUResult(*_C._linalg_lu_factor(A, True))


def lu_solve(LU, pivots, B, *, left=True, adjoint=False, out=None):
    """Solve A X = B (X A = B when not left; A^H when adjoint) from lu_factor's output."""
    return _out(_C._linalg_lu_solve(LU, pivots, B, left, adjoint), out)


def solve_triangular(A, B, *, upper, left=True, unitriangular=False, out=None):
    """X with A X = B (X A = B) for triangular A; only the named triangle is read."""
    return _out(_C._linalg_solve_triangular(A, B, upper, left, unitriangular), out)


def vecdot(x, y, *, dim=-1, out=None):
    """sum(conj(x) * y) along dim, broadcasting the other dims."""
    if not isinstance(x, _C.Tensor):
        x = _C.tensor(x)
    if not isinstance(y, _C.Tensor):
        y = _C.tensor(y)
    if x.shape[dim] != y.shape[dim]:
        raise RuntimeError(f"linalg.vecdot: Expected the sizes of x and y along dim {dim} to "
                           f"match, got {x.shape[dim]} and {y.shape[dim]}")

    def last(t):
        d = dim % t.ndim
        return t.permute(*[i for i in range(t.ndim) if i != d], d)
    xr = _C._linalg_adjoint(last(x).unsqueeze(-1))   # [..., 1, n], conjugated
    r = _C.matmul(xr, last(y).unsqueeze(-1))         # [..., 1, 1]
    return _out(r.reshape(r.shape[:-2]), out)


def tensorinv(A, ind=2, *, out=None):
    """The tensor B with tensordot(A, B, ind) == identity, through inv on a reshape."""
    A = _tensor_arg(A, "A", "linalg.tensorinv")
    if ind <= 0:
        raise RuntimeError(f"linalg.tensorinv: Expected a strictly positive integer for 'ind', "
                           f"but got {ind}")
    rows, cols = list(A.shape[:ind]), list(A.shape[ind:])
    m = math.prod(rows)
    if m != math.prod(cols):
        raise RuntimeError(f"linalg.tensorinv: Expected self to satisfy the requirement "
                           f"prod(self.shape[ind:]) == prod(self.shape[:ind]), but got "
                           f"{math.prod(cols)} != {m}")
    return _out(inv(A.reshape(m, m)).reshape(cols + rows), out)


def tensorsolve(A, B, dims=None, *, out=None):
    """X with tensordot(A, X, X.ndim) == B."""
    A, B = _tensor_arg(A, "A", "linalg.tensorsolve"), _tensor_arg(B, "B", "linalg.tensorsolve")
    if dims is not None:
        dims = [d % A.ndim for d in dims]
        A = A.permute(*[i for i in range(A.ndim) if i not in dims], *dims)
    rest = list(A.shape[B.ndim:])
    m = math.prod(B.shape)
    if m != math.prod(rest):
        raise RuntimeError(f"linalg.tensorsolve: Expected self to satisfy the requirement "
                           f"prod(self.shape[other.ndim:]) == prod(self.shape[:other.ndim]), "
                           f"but got {math.prod(rest)} != {m}")
    return _out(solve(A.reshape(m, m), B.reshape(m)).reshape(rest), out)


# The *_ex forms return LAPACK's info per matrix (int32, 0 = success) instead of
# raising; check_errors=True raises as the plain functions do.

def inv_ex(A, *, check_errors=False, out=None):
    if check_errors:
        return InvExResult(inv(A), _C.zeros(*A.shape[:-2], dtype=_C.int32, device=A.device))
    return InvExResult(*_C._linalg_inv_ex(A))


def cholesky_ex(A, *, upper=False, check_errors=False, out=None):
    if check_errors:
        return CholeskyExResult(cholesky(A, upper=upper),
                                _C.zeros(*A.shape[:-2], dtype=_C.int32, device=A.device))
    return CholeskyExResult(*_C._linalg_cholesky_ex(A, upper))


def solve_ex(A, B, *, left=True, check_errors=False, out=None):
    result, info = _C._linalg_solve_ex(A, B, left)
    if check_errors and bool(info.any()):  # raising needs the data: one host read
        solve(A, B, left=left)  # raises, naming the failing batch element
    return SolveExResult(result, info)


def lu_factor_ex(A, *, pivot=True, check_errors=False, out=None):
    return LUFactorExResult(*_C._linalg_lu_factor_ex(A, pivot, check_errors))


# ---- LDL (Bunch-Kaufman; LAPACK's sytrf/sytrs on the CPU, linalg_ldl.c) -------
# Not differentiable, as in PyTorch.  No CUDA kernel yet (docs/gpu.md): a
# device tensor raises NotImplementedError naming the op and the device.



def _need(fn, name, x, position=1):
    if not isinstance(x, _C.Tensor):
        raise TypeError(f"{fn}(): argument '{name}' (position {position}) must be Tensor, not "
                        f"{type(x).__name__}")


def ldl_factor_ex(A, *, hermitian=False, check_errors=False, out=None):
    """(LD, pivots, info): A = P L D L^T P^T (L^H with hermitian) from the
    lower triangle of symmetric (Hermitian) A; D has 1x1 and 2x2 blocks, and
    pivots are LAPACK's (a 2x2 block's two entries both -p)."""
    fn = "torch.linalg.ldl_factor_ex"
    _need("linalg_ldl_factor_ex", "input", A)
    if A.ndim >= 2 and not (A.is_floating_point() or A.is_complex()) or \
            A.dtype in (_C.float16, _C.bfloat16):
        raise NotImplementedError(f"{fn}: Expected a floating point or complex tensor as "
                                  f"input. Got {scalar_type_name(A.dtype)}")
    result = LDLFactorExResult(*_C._linalg_ldl_factor_ex(A, hermitian))
    if check_errors:
        _ldl_check(fn, result.info)
    return _out_each(result, out)


def _ldl_check(fn, info):
    """PyTorch's error for a zero pivot (sytrf's info > 0; the matrix is
    singular): raising needs the data, one host read (the meta device has
    none, and raises nothing, as PyTorch's meta ldl_factor)."""
    if not info.is_meta and bool(info.any()):
        raise RuntimeError(f"{fn}: Unknown error code: {int(info.max().item())}.")


def _out_each(result, out):
    """A tuple result written into the out tensors given for it."""
    if out is None:
        return result
    return type(result)(*(_out(r, o) for r, o in zip(result, out)))


def ldl_factor(A, *, hermitian=False, out=None):
    """(LD, pivots) of ldl_factor_ex, raising where it reports a failure."""
    _need("linalg_ldl_factor", "input", A)
    LD, pivots, info = ldl_factor_ex(A, hermitian=hermitian)
    _ldl_check("torch.linalg.ldl_factor", info)
    return _out_each(LDLFactorResult(LD, pivots), out)


def ldl_solve(LD, pivots, B, *, hermitian=False, out=None):
    """X with A X = B, A given as ldl_factor's (LD, pivots); LD's and B's
    batch dims broadcast."""
    for i, (name, t) in enumerate((("LD", LD), ("pivots", pivots), ("B", B))):
        _need("linalg_ldl_solve", name, t, i + 1)
    if B.ndim < 2:
        n = max(B.ndim, 1)
        raise IndexError(f"Dimension out of range (expected to be in range of [{-n}, {n - 1}], "
                         "but got -2)")
    if B.dtype != LD.dtype:
        def name(t):
            return scalar_type_name(t.dtype)
        raise RuntimeError(f"Expected b and A to have the same dtype, but found b of type "
                           f"{name(B)} and A of type {name(LD)} instead.")
    if pivots.dtype != _C.int32 and not (pivots.is_floating_point() or pivots.is_complex()):
        pivots = pivots.to(_C.int32)
    return _out(_C._linalg_ldl_solve(LD, pivots, B, hermitian), out)


def vander(x, N=None):
    """(*, n) -> (*, n, N): column j holds x ** j (increasing powers, as
    PyTorch's; integers widened to int64), made by a cumulative product so
    it is differentiable."""
    _need("linalg_vander", "x", x)
    if x.dtype == _C.bool:
        raise NotImplementedError("linalg.vander supports floating point, complex, and integer "
                                  "tensors, but got Bool")
    n = N if N is not None else (x.shape[-1] if x.ndim else 0)
    if n <= 1:
        raise RuntimeError("N must be greater than 1.")
    if not (x.is_floating_point() or x.is_complex()):
        x = x.to(_C.int64)
    ones = _C.ones(list(x.shape) + [1], dtype=x.dtype, device=x.device)
    powers = x.unsqueeze(-1).expand(list(x.shape) + [n - 1])
    return _C.cumprod(_C.cat([ones, powers], -1), -1)
