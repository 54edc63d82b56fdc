"""torchlike.numpy.linalg: NumPy's ``np.linalg`` and the Array API ``linalg``
extension over tensors.

Each function is the implementation registered for the NumPy function of the
same name (torchlike/numpy/_linalg.py), so ``np.linalg.inv(t)`` and
``torchlike.numpy.linalg.inv(t)`` run the same torchlike ops.  Integer input
is computed in float64, as NumPy does."""
import numpy as np

from .._array_function import TABLE
from . import _linalg, _manipulation  # noqa: F401  (register the implementations)

LinAlgError = np.linalg.LinAlgError

__all__ = ["cholesky", "cond", "cross", "det", "diagonal", "eig", "eigh", "eigvals",
           "eigvalsh", "inv", "lstsq", "matmul", "matrix_norm", "matrix_power",
           "matrix_rank", "matrix_transpose", "multi_dot", "norm", "outer", "pinv", "qr",
           "slogdet", "solve", "svd", "svdvals", "tensordot", "tensorinv", "tensorsolve",
           "trace", "vecdot", "vector_norm", "LinAlgError"]

cholesky = TABLE[np.linalg.cholesky]
cond = TABLE[np.linalg.cond]
cross = TABLE[np.linalg.cross]
det = TABLE[np.linalg.det]
diagonal = TABLE[np.linalg.diagonal]
eig = TABLE[np.linalg.eig]
eigh = TABLE[np.linalg.eigh]
eigvals = TABLE[np.linalg.eigvals]
eigvalsh = TABLE[np.linalg.eigvalsh]
inv = TABLE[np.linalg.inv]
lstsq = TABLE[np.linalg.lstsq]
matmul = TABLE[np.linalg.matmul]
matrix_norm = TABLE[np.linalg.matrix_norm]
matrix_power = TABLE[np.linalg.matrix_power]
matrix_rank = TABLE[np.linalg.matrix_rank]
matrix_transpose = TABLE[np.linalg.matrix_transpose]
multi_dot = TABLE[np.linalg.multi_dot]
norm = TABLE[np.linalg.norm]
outer = TABLE[np.linalg.outer]
pinv = TABLE[np.linalg.pinv]
qr = TABLE[np.linalg.qr]
slogdet = TABLE[np.linalg.slogdet]
solve = TABLE[np.linalg.solve]
svd = TABLE[np.linalg.svd]
svdvals = TABLE[np.linalg.svdvals]
tensordot = TABLE[np.linalg.tensordot]
trace = TABLE[np.linalg.trace]
vecdot = TABLE[np.linalg.vecdot]
vector_norm = TABLE[np.linalg.vector_norm]


def _through_numpy(name):
    """NumPy's own Python implementation, run on tensors (tensorinv is
    written on top of functions above)."""
    np_func = getattr(np.linalg, name)

    def fn(*args, **kwargs):
        from .._array_function import as_tensor
        return np_func(as_tensor(args[0]), *args[1:], **kwargs)
    fn.__name__ = fn.__qualname__ = name
    fn.__doc__ = np_func.__doc__
    return fn


tensorinv = _through_numpy("tensorinv")
tensorsolve = TABLE[np.linalg.tensorsolve]
