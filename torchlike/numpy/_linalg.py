"""NumPy linear algebra over tensors: dot, vdot, inner, outer, matmul,
tensordot, einsum, trace, kron, cross and ``np.linalg.*``."""
import functools
import math
import operator
import os
import sys
import warnings

import numpy as np

from .. import _C
from ._manipulation import diagonal
from .._array_function import (
    implements, Unsupported, as_tensor, norm_axis, norm_axes, finish, finish_gufunc, refuse,
    cast, promote, NoValue, TABLE, value_errors, scalar_count, np_dtype, unaliased,
    check_out_cast)
from .. import _gufunc_shapes as gufunc_shapes

Tensor = _C.Tensor


@implements(np.dot)
def dot(a, b, out=None):
    # dtypes are singletons: `is`, not the NumPy-aware __eq__ (0.2 us)
    if out is None and type(a) is Tensor and type(b) is Tensor and a.dtype is b.dtype and \
            0 < a.ndim <= 2 and 0 < b.ndim <= 2:  # the common call: one matmul
        try:
            return _C.matmul(a, b)
        except RuntimeError:
            pass  # shapes not aligned: the checks below raise NumPy's error
    a, b = promote(as_tensor(a), as_tensor(b))
    with value_errors("dot"):  # shapes not aligned
        if a.ndim == 0 or b.ndim == 0:
            result = a * b
        elif b.ndim == 1 or a.ndim <= 2 and b.ndim <= 2:
            result = _C.matmul(a, b)
        else:  # sum over a's last axis and b's second-to-last
            result = _C.tensordot(a, b, dims=([a.ndim - 1], [b.ndim - 2]))
    return finish(result, out)


@implements(np.vdot)
def vdot(a, b, /):
    a, b = as_tensor(a).reshape(-1), as_tensor(b).reshape(-1)
    a, b = promote(a, b)
    return _C.vdot(a, b) if a.is_complex() else _C.dot(a, b)


@implements(np.inner)
def inner(a, b, /):
    a, b = as_tensor(a), as_tensor(b)
    if a.ndim == 0 or b.ndim == 0:
        return a * b
    with value_errors("inner"):
        return _C.tensordot(*promote(a, b), dims=([a.ndim - 1], [b.ndim - 1]))


@implements(np.outer)
def outer(a, b, out=None):
    a, b = as_tensor(a).reshape(-1), as_tensor(b).reshape(-1)
    # NumPy's outer is multiply with out=: its refusals name multiply
    return finish_gufunc(a.reshape(-1, 1) * b.reshape(1, -1), out, "multiply", None)


MATMUL_SIGNATURE = "(n?,k),(k,m?)->(n?,m?)"


@implements(np.matmul, np.linalg.matmul)
def matmul(x1, x2, /, out=None, **kwargs):
    if out is None and not kwargs and type(x1) is Tensor and type(x2) is Tensor and \
            x1.dtype is x2.dtype and x1.ndim and x2.ndim:  # the common call, as dot's
        try:
            return _C.matmul(x1, x2)
        except RuntimeError:
            pass  # shapes not aligned: the path below raises NumPy's error
    refuse(**{k: v for k, v in kwargs.items() if k not in ("casting", "order", "subok")})
    # (the C ufunc path calls this with out= the operand itself, not the array function's)
    a, b = promote(*(unaliased(as_tensor(x), out) for x in (x1, x2)))
    target = out[0] if isinstance(out, tuple) and len(out) == 1 else out
    if target is not None:  # NumPy resolves the loop (and its cast into out) first
        check_out_cast("matmul", a.dtype, target, kwargs.get("casting", "same_kind"))
    # then sizes the call, out= included: a 1-d out of a 2-d product drops n
    resolved = gufunc_shapes.resolve("matmul", MATMUL_SIGNATURE, (a.shape, b.shape),
                                     (None if target is None else target.shape,))
    core = gufunc_shapes.out_core_shape(MATMUL_SIGNATURE, resolved)
    shape = resolved.loop + core if target is None else tuple(target.shape)
    return finish(_matmul_resolved(a, b, resolved, core, shape), out)


def _matmul_resolved(a, b, resolved, core, shape):
    """The product of a matmul call NumPy has sized (``resolved``), of
    ``shape`` (out's, or the loop shape and ``core``).  An absent n or m is
    a core dim of 1 (each operand's last dim its k then, whatever its number
    of dims); the loop dims an out= lacks are 1s, and a larger out= takes
    the product broadcast (NumPy's resolution has refused every other out)."""
    a = a.unsqueeze(-2) if "n" in resolved.missing else a    # (..., n, k)
    b = b.unsqueeze(-1) if "m" in resolved.missing else b    # (..., k, m)
    with value_errors("matmul"):
        product = _C.matmul(a, b)                            # (..., n, m)
    dims = tuple(product.shape[:-2]) + core
    dims = dims[max(len(dims) - len(shape), 0):]
    product = product.reshape(dims)
    return product if dims == shape else product.expand(shape)


def _core_operands(name, signature, a, b):
    """NumPy's gufunc checks for matvec/vecmat: each operand has its core
    dimensions, and the contracted ones agree (NumPy's ValueErrors)."""
    for i, (x, need) in enumerate(((a, 2 if name == "matvec" else 1),
                                   (b, 1 if name == "matvec" else 2))):
        if x.ndim < need:
            raise ValueError(f"{name}: Input operand {i} does not have enough dimensions "
                             f"(has {x.ndim}, gufunc core with signature {signature} "
                             f"requires {need})")
    n_a = a.shape[-1]
    n_b = b.shape[-1] if name == "matvec" else b.shape[-2]
    if n_a != n_b:
        raise ValueError(f"{name}: Input operand 1 has a mismatch in its core dimension 0, "
                         f"with gufunc signature {signature} (size {n_b} is different "
                         f"from {n_a})")


if hasattr(np, "matvec"):   # NumPy 2.2's gufuncs
    @implements(np.matvec)
    def matvec(x1, x2, /, out=None, **kwargs):
        """The matrix-vector product over stacks: (..., m, n), (..., n) -> (..., m)."""
        refuse(**{k: v for k, v in kwargs.items() if k not in ("casting", "order", "subok")})
        a, b = promote(*(unaliased(as_tensor(x), out) for x in (x1, x2)))
        _core_operands("matvec", "(m,n),(n)->(m)", a, b)
        with value_errors("matvec"):   # batch shapes that do not broadcast
            result = _C.matmul(a, b.unsqueeze(-1)).squeeze(-1)
        return finish_gufunc(result, out, "matvec", "(m,n),(n)->(m)", 1,
                             kwargs.get("casting", "same_kind"))

    @implements(np.vecmat)
    def vecmat(x1, x2, /, out=None, **kwargs):
        """The vector-matrix product over stacks, the vector conjugated (as
        vecdot's first operand): (..., n), (..., n, m) -> (..., m)."""
        refuse(**{k: v for k, v in kwargs.items() if k not in ("casting", "order", "subok")})
        a, b = promote(*(unaliased(as_tensor(x), out) for x in (x1, x2)))
        _core_operands("vecmat", "(n),(n,m)->(m)", a, b)
        if a.is_complex():
            a = a.conj_physical()
        with value_errors("vecmat"):
            result = _C.matmul(a.unsqueeze(-2), b).squeeze(-2)
        return finish_gufunc(result, out, "vecmat", "(n),(n,m)->(m)", 1,
                             kwargs.get("casting", "same_kind"))


@implements(np.vecdot, np.linalg.vecdot)
def vecdot(x1, x2, /, out=None, *, axis=-1, **kwargs):
    a, b = promote(*(unaliased(as_tensor(x), out) for x in (x1, x2)))
    ndim = max(a.ndim, b.ndim)
    axis = norm_axis(axis, ndim) - ndim  # counted from the end, as both operands align
    if min(a.ndim, b.ndim) < -axis or a.shape[axis] != b.shape[axis]:
        raise ValueError(f"vecdot: the contracted axis {axis} differs between shapes "
                         f"{tuple(a.shape)} and {tuple(b.shape)}")
    a, b = _C.broadcast_tensors(a, b)
    product = a.conj_physical() * b if a.is_complex() else a * b
    return finish_gufunc(_C.sum(product, axis, dtype=a.dtype), out, "vecdot", "(n),(n)->()",
                         casting=kwargs.get("casting", "same_kind"))


@implements(np.tensordot, np.linalg.tensordot)
def tensordot(a, b, axes=2):
    a, b = as_tensor(a), as_tensor(b)
    if isinstance(axes, (int, np.integer)):
        dims = int(axes)
    else:
        left, right = axes
        left = [left] if isinstance(left, int) else list(left)
        right = [right] if isinstance(right, int) else list(right)
        dims = (left, right)
    with value_errors("tensordot"):  # NumPy's "shape-mismatch for sum"
        return _C.tensordot(*promote(a, b), dims=dims)


def _sublists_to_subscripts(args):
    """einsum(a, [0, 1], b, [1, 2], [0, 2]) -> ("ab,bc->ac", a, b)."""
    letters = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"

    def spell(sub, position):
        if isinstance(sub, (Tensor, np.ndarray)) and sub.ndim == 1 and \
                not (sub.dtype.is_floating_point if isinstance(sub, Tensor)
                     else sub.dtype.kind in "fc"):
            sub = sub.tolist()  # an integer array of subscripts, as NumPy takes
        if not isinstance(sub, (list, tuple)):
            raise TypeError(f"einsum(): argument {position} must be a list of subscripts "
                            f"(ints in [0, 52) or Ellipsis), not {type(sub).__name__}")
        out = []
        for s in sub:
            try:  # Python and NumPy ints, 0-d integer arrays
                s = operator.index(s) if s is not Ellipsis else s
            except TypeError:
                pass
            if s is Ellipsis:
                out.append("...")
            elif isinstance(s, int) and 0 <= s < len(letters):
                out.append(letters[s])
            else:
                raise ValueError(f"einsum(): subscript {s!r} in argument {position} is not "
                                 f"an int in [0, 52) or Ellipsis")
        return "".join(out)
    operands, specs = list(args[0::2]), list(args[1::2])
    output = None
    if len(operands) > len(specs):  # an odd count: the last item is the output sublist
        output = operands.pop()
    equation = ",".join(spell(s, 2 * i + 1) for i, s in enumerate(specs))
    if output is not None:
        equation += "->" + spell(output, len(args) - 1)
    return (equation, *operands)


def _broadcast_labels(equation, tensors):
    """The operands with their length-1 dims stretched where the same subscript
    has a longer dim elsewhere (NumPy broadcasts a subscript's size-1 dims, our
    einsum op wants equal sizes).  An equation it cannot read goes as it is; the
    op reports what is wrong with it."""
    specs = equation.split("->")[0].replace(" ", "").split(",")
    if len(specs) != len(tensors):
        return tensors
    labelled = []  # per operand: (label or None, dim) pairs
    sizes = {}
    for spec, t in zip(specs, tensors):
        letters = spec.replace("...", "")
        if not letters.isalpha() and letters or len(letters) > t.ndim or \
                ("..." not in spec and len(letters) != t.ndim):
            return tensors
        head, _, tail = spec.partition("...")
        labels = list(head) + [None] * (t.ndim - len(letters)) + list(tail)
        labelled.append(labels)
        for label, size in zip(labels, t.shape):
            if label is not None:
                sizes[label] = max(sizes.get(label, 1), size)
    out = []
    for labels, t in zip(labelled, tensors):
        shape = [sizes[l] if l is not None and n == 1 else n for l, n in zip(labels, t.shape)]
        out.append(t if shape == list(t.shape) else t.expand(*shape))
    return out


def _check_einsum_casts(tensors, dtype, casting):
    """NumPy's einsum casts its operands to ``dtype=`` under ``casting=``
    ('safe' by default): int64 operands summed as float32 are its TypeError."""
    from ._info import _as_dtype, can_cast
    target = _as_dtype(dtype)
    for i, t in enumerate(tensors):
        if not can_cast(t.dtype, target, casting):
            raise TypeError(f"Iterator operand {i} dtype could not be cast from "
                            f"{np_dtype(t)!r} to {np_dtype(target)!r} according to the "
                            f"rule '{casting}'")


@implements(np.einsum)
def einsum(*operands, out=None, optimize=False, dtype=None, order="K", casting="safe"):
    if len(operands) < 2:
        raise ValueError("must specify the einstein sum subscripts string and at least "
                         "one operand")
    if out is not None and not isinstance(out, (Tensor, np.ndarray)):
        raise TypeError(f"einsum(): 'out' must be an array, not {type(out).__name__}")
    if not isinstance(operands[0], str):
        operands = _sublists_to_subscripts(operands)
    tensors = [as_tensor(o) for o in operands[1:]]
    if dtype is not None:
        _check_einsum_casts(tensors, dtype, casting)
        tensors = [cast(t, dtype) for t in tensors]
    tensors = _broadcast_labels(operands[0], promote(*tensors))
    try:
        result = _torchlike().einsum(operands[0], *tensors)
    except RuntimeError as error:  # a bad equation or operands: NumPy's ValueError
        raise ValueError(str(error)) from None
    return finish(result, out)


@implements(np.trace)
def trace(a, offset=0, axis1=0, axis2=1, dtype=None, out=None):
    d = diagonal(a, offset, axis1, axis2)
    return finish(TABLE[np.sum](d, -1, dtype), out)


@implements(np.linalg.trace)
def linalg_trace(x, /, *, offset=0, dtype=None):
    return trace(x, offset, -2, -1, dtype)


@implements(np.linalg.diagonal)
def linalg_diagonal(x, /, *, offset=0):
    return diagonal(x, offset, -2, -1)


@implements(np.kron)
def kron(a, b):
    return _C.kron(*promote(as_tensor(a), as_tensor(b)))


def _caller_level():
    """warnings.warn's stacklevel of the first frame outside torchlike (the
    user's line, reached through the namespace or NumPy's dispatch)."""
    package = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    frame, level = sys._getframe(2), 2  # the caller of the function that warns
    while frame is not None and frame.f_code.co_filename.startswith(package):
        frame, level = frame.f_back, level + 1
    return level


@implements(np.cross, np.linalg.cross)
def cross(a, b, axisa=-1, axisb=-1, axisc=-1, axis=None):
    a, b = as_tensor(a), as_tensor(b)
    if axis is not None:
        axisa = axisb = axisc = axis
    if a.ndim < 1 or b.ndim < 1:
        raise ValueError("At least one array has zero dimension")
    a = _C.movedim(a, norm_axis(axisa, a.ndim), -1)
    b = _C.movedim(b, norm_axis(axisb, b.ndim), -1)
    if a.shape[-1] not in (2, 3) or b.shape[-1] not in (2, 3):
        raise ValueError("incompatible dimensions for cross product\n(dimension must be 2 or 3)")
    a, b = promote(a, b)
    if a.dtype == _C.bool:  # NumPy's products are subtracted: bool refused as its `-` is
        raise TypeError("numpy boolean subtract, the `-` operator, is not supported, use the "
                        "bitwise_xor, the `^` operator, or the logical_xor function instead.")
    if a.shape[-1] == 3 and b.shape[-1] == 3:
        result = _torchlike().linalg.cross(*_C.broadcast_tensors(a, b), dim=-1)
    else:
        # NumPy's deprecated 2-vector forms (still computed there, with its
        # warning): the z component alone for two 2-vectors, else a 3-vector
        # whose missing third component is zero, term by term as NumPy's
        # (no 0 * inf product where NumPy has none)
        warnings.warn("Arrays of 2-dimensional vectors are deprecated. Use arrays of "
                      "3-dimensional vectors instead. (deprecated in NumPy 2.0)",
                      DeprecationWarning, stacklevel=_caller_level())
        z = a[..., 0] * b[..., 1] - a[..., 1] * b[..., 0]
        if a.shape[-1] == 2 and b.shape[-1] == 2:
            return z
        if a.shape[-1] == 2:
            x, y = a[..., 1] * b[..., 2], -(a[..., 0] * b[..., 2])
        else:
            x, y = -(a[..., 2] * b[..., 1]), a[..., 2] * b[..., 0]
        result = _C.stack(_C.broadcast_tensors(x, y, z), -1)
    return _C.movedim(result, -1, norm_axis(axisc, result.ndim))


@functools.cache
def _numpy_cond_raises_on_nan():
    """Does the installed NumPy's linalg.cond raise LinAlgError for a matrix
    holding a NaN (its SVD does not converge: NumPy before 2.5), or return NaN
    for it (2.5 on)?  Asked of NumPy itself, once."""
    try:
        np.linalg.cond(np.array([[np.nan, 1.0], [1.0, 2.0]]))
    except np.linalg.LinAlgError:
        return True
    return False


def _linalg_input(a, least=2, square=False):
    a = as_tensor(a)
    if a.ndim < least:
        raise np.linalg.LinAlgError(f"{a.ndim}-dimensional array given. Array must be at "
                                    f"least two-dimensional")
    if square and a.shape[-1] != a.shape[-2]:  # NumPy's check and words, before any work
        raise np.linalg.LinAlgError(f"Last 2 dimensions of the array must be square (got "
                                    f"shape {tuple(a.shape)})")
    if not (a.is_floating_point() or a.is_complex()):
        a = a.to(_C.float64)
    return a


def _integer_square(a):
    """An integer or bool matrix power's operand: at least 2-d and square."""
    if a.ndim < 2 or a.shape[-1] != a.shape[-2]:
        _linalg_input(a.to(_C.float64), square=True)  # raises NumPy's error
    return a


def _check_finite(a):
    """NumPy's eig and eigvals refuse non-finite input (torchlike.linalg.eigvals
    answers NaN, as PyTorch's does)."""
    if not bool(_C.isfinite(a).all()):
        raise np.linalg.LinAlgError("Array must not contain infs or NaNs")


def _real_spectrum(a, w):
    """NumPy's eig/eigvals of real input return real results when every
    eigenvalue is real (a symmetric matrix, a triangular one)."""
    return not a.is_complex() and w.is_complex() and not bool((w.imag != 0).any())


def _linalg(name, np_func, least=2, result=None, square=False):
    import torchlike.linalg as tla
    op = getattr(tla, name)

    def impl(a, *args, **kwargs):
        r = op(_linalg_input(a, least, square), *args, **kwargs)
        return r if result is None else result(r)
    impl.__name__ = impl.__qualname__ = name
    TABLE[np_func] = impl


def _norm_of_nothing(x, ord, axes, keepdims, matrix):
    """NumPy's norm over axes that hold nothing (a (2, 0) matrix, an empty
    vector), where torchlike's norms refuse for want of an identity: the
    orders that take a maximum of magnitudes give 0 (NumPy's reductions
    start there), a negative vector order inf, and those that take a
    minimum NumPy's ValueError.  None when the axes hold something."""
    axes = tuple(range(x.ndim)) if axes is None else axes
    if math.prod(x.shape[a] for a in axes) != 0:
        return None
    # the minimum is over the rows' sums (-inf), the columns' sums (-1) or
    # the singular values (-2): empty when those are
    if matrix and (ord == -2 or ord == -np.inf and x.shape[axes[0]] == 0 or
                   ord == -1 and x.shape[axes[1]] == 0) or not matrix and ord == -np.inf:
        raise ValueError("zero-size array to reduction operation minimum which has no identity")
    value = np.inf if not matrix and not isinstance(ord, str) and ord is not None and ord < 0 \
        else 0.0
    shape = [1 if d in axes else n for d, n in enumerate(x.shape) if keepdims or d not in axes]
    real = _C.abs(x) if x.is_complex() else x
    # the sum of nothing (0) keeps the result on the tape
    return _C.full(tuple(shape), value, dtype=real.dtype, device=x.device) + real.sum() * 0


def _install_linalg():
    import torchlike.linalg as tla
    la = np.linalg
    _linalg("inv", la.inv, square=True)
    _linalg("det", la.det, square=True)
    def matrix_power(a, n):
        """NumPy's: a non-negative power of an integer or bool matrix keeps
        its dtype (repeated products); a negative one inverts, in float64."""
        a = as_tensor(a)
        n = operator.index(scalar_count(n))  # n = mask.sum() too; a float is NumPy's TypeError
        if n < 0 or a.is_floating_point() or a.is_complex():
            return tla.matrix_power(_linalg_input(a, square=True), n)
        a = _integer_square(a)
        if a.device.type == "cpu":
            return tla.matrix_power(a, n)
        # device products take floating types only (as PyTorch's CUDA ones): the
        # power in float64, back to the integers (exact below 2**53)
        power = tla.matrix_power(a.to(_C.float64), n)
        return power != 0 if a.dtype is _C.bool else power.round().to(a.dtype)
    TABLE[la.matrix_power] = matrix_power
    def eigvals(a):
        a = _linalg_input(a, square=True)
        _check_finite(a)
        w = tla.eigvals(a)
        return w.real if _real_spectrum(a, w) else w
    TABLE[la.eigvals] = eigvals

    def pinv(a, rcond=None, hermitian=False, *, rtol=NoValue):
        rtol = None if rtol is NoValue else rtol
        a = _linalg_input(a)
        if a.numel() == 0:  # no values: a's transposed shape, on the tape as a's
            return a.mT.clone()
        if not isinstance(rtol, Tensor) and isinstance(rcond, (Tensor, np.ndarray, list, tuple)):
            given, rtol, rcond = rcond, as_tensor(rcond), None  # NumPy: one per matrix, as rtol
            if isinstance(given, (list, tuple)) and rtol.device != a.device:
                rtol = rtol.to(a.device)  # a list of numbers goes to the matrices' device
        if isinstance(rtol, Tensor):  # one tolerance per matrix: through the SVD
            u, sv, vh = tla.svd(a, full_matrices=False)
            cutoff = rtol.to(sv.dtype).reshape(*rtol.shape, 1) * _C.amax(sv, -1, keepdim=True)
            inv = _C.where(sv > cutoff, 1 / sv, _C.zeros((), dtype=sv.dtype, device=sv.device))
            return (vh.mH * inv.reshape(*inv.shape[:-1], 1, inv.shape[-1]).to(vh.dtype)) @ u.mH
        return tla.pinv(_linalg_input(a), rcond=rcond, hermitian=hermitian, rtol=rtol)
    TABLE[la.pinv] = pinv

    def slogdet(a):
        r = tla.slogdet(_linalg_input(a, square=True))
        return la._linalg.SlogdetResult(r[0], r[1])
    TABLE[la.slogdet] = slogdet

    def solve(a, b):
        a, b = promote(_linalg_input(a, square=True), as_tensor(b))
        core = b.shape[0] if b.ndim == 1 else b.shape[-2] if b.ndim >= 2 else None
        if core != a.shape[-1]:  # NumPy's gufunc error: b's rows must match a
            raise ValueError(f"solve: b of shape {tuple(b.shape)} does not match a of shape "
                             f"{tuple(a.shape)}: its core dimension 0 (size {core}) is "
                             f"different from {a.shape[-1]}")
        if b.ndim == 1:  # NumPy 2: a 1-d b is one vector
            return tla.solve(a, b.reshape(-1, 1)).reshape(-1) if a.ndim == 2 else \
                tla.solve(a, b)
        # NumPy 2: any other b is a stack of matrices, broadcast against a's
        # stack; PyTorch reads a b of shape a.shape[:-1] as a stack of
        # vectors, so both get the broadcast batch shape first
        try:
            batch = tuple(_C.broadcast_shapes(tuple(a.shape[:-2]), tuple(b.shape[:-2])))
        except RuntimeError:
            raise ValueError(f"solve: operands could not be broadcast together: a of shape "
                             f"{tuple(a.shape)}, b of shape {tuple(b.shape)} (stacks "
                             f"{tuple(a.shape[:-2])} and {tuple(b.shape[:-2])})") from None
        return tla.solve(a.expand(batch + tuple(a.shape[-2:])),
                         b.expand(batch + tuple(b.shape[-2:])))
    TABLE[la.solve] = solve

    def tensorsolve(a, b, axes=None):
        """NumPy's steps on tensors (its own code wraps the result with
        ``a.__array_wrap__``, which a tensor lacks, so it never ran on one):
        ``axes`` moved to the end, the square system solved flat."""
        a, b = as_tensor(a), as_tensor(b)
        if axes is not None:
            rest = [k for k in range(a.ndim) if k not in [norm_axis(j, a.ndim) for j in axes]]
            a = a.permute(*rest, *[norm_axis(j, a.ndim) for j in axes])
        shape = tuple(a.shape[b.ndim:])
        size = math.prod(shape)
        if a.numel() != size ** 2:
            raise np.linalg.LinAlgError("Input arrays must satisfy the requirement "
                                        "prod(a.shape[b.ndim:]) == prod(a.shape[:b.ndim])")
        return solve(a.reshape(size, size), b.reshape(-1)).reshape(shape)
    TABLE[la.tensorsolve] = tensorsolve

    # NumPy reads one triangle of the matrix and ignores the other, so the
    # other gets no gradient: the matrix is rebuilt from the triangle read
    # (recorded), then decomposed.  torchlike.linalg.eigh keeps PyTorch's
    # convention, a gradient symmetrised over both triangles.
    def _from_triangle(a, UPLO):
        if UPLO not in ("L", "U"):
            raise ValueError("UPLO argument must be 'L' or 'U'")
        a = _linalg_input(a, square=True)
        if UPLO == "L":
            return _C.tril(a) + _C.tril(a, -1).mH
        return _C.triu(a) + _C.triu(a, 1).mH

    def eigh(a, UPLO="L"):
        w, v = tla.eigh(_from_triangle(a, UPLO))
        return la._linalg.EighResult(w, v)
    TABLE[la.eigh] = eigh

    def eigvalsh(a, UPLO="L"):
        return tla.eigvalsh(_from_triangle(a, UPLO))
    TABLE[la.eigvalsh] = eigvalsh

    def eig(a):
        a = _linalg_input(a, square=True)
        w, v = tla.eig(a)
        if _real_spectrum(a, w):
            w, v = w.real, v.real
        return la._linalg.EigResult(w, v)
    TABLE[la.eig] = eig

    def svd(a, full_matrices=True, compute_uv=True, hermitian=False):
        a = _linalg_input(a)
        if not compute_uv:
            return tla.svdvals(a)
        u, s, vh = tla.svd(a, full_matrices=full_matrices)
        return la._linalg.SVDResult(u, s, vh)
    TABLE[la.svd] = svd

    def svdvals(x, /):
        return tla.svdvals(_linalg_input(x))
    TABLE[la.svdvals] = svdvals

    def qr(a, mode="reduced"):
        a = _linalg_input(a)
        if mode == "raw":
            # LAPACK's reflectors and scales; NumPy hands the Fortran-ordered
            # result over as it lies, i.e. as the transpose, shape (..., N, M)
            h, tau = a._geqrf()
            return h.mT, tau
        if mode not in ("reduced", "complete", "r"):
            raise ValueError(f"Unrecognized mode '{mode}' (qr takes 'reduced', 'complete', "
                             f"'r' or 'raw')")
        q, r = tla.qr(a, mode=mode)
        return r if mode == "r" else la._linalg.QRResult(q, r)
    TABLE[la.qr] = qr

    def cholesky(a, /, *, upper=False):
        # NumPy reads the lower triangle (the upper one with upper=True)
        return tla.cholesky(_from_triangle(a, "U" if upper else "L"), upper=upper)
    TABLE[la.cholesky] = cholesky

    def matrix_rank(A, tol=None, hermitian=False, *, rtol=None):
        A = as_tensor(A)
        if A.ndim < 2:  # NumPy: a 0-d or 1-d array has rank 1 unless all zero
            return int(bool((A != 0).any()))
        A = _linalg_input(A)
        if A.numel() == 0:  # no singular values: rank 0
            return _C.zeros(tuple(A.shape[:-2]), dtype=_C.int64, device=A.device)
        if isinstance(rtol, Tensor) or isinstance(tol, Tensor):
            sv = tla.svdvals(A)
            cutoff = (as_tensor(tol).to(sv.dtype).reshape(*tol.shape, 1) if tol is not None
                      else as_tensor(rtol).to(sv.dtype).reshape(*rtol.shape, 1)
                      * _C.amax(sv, -1, keepdim=True))
            return _C.sum(sv > cutoff, -1)
        if tol is not None:
            return tla.matrix_rank(_linalg_input(A), atol=tol, rtol=0)
        return tla.matrix_rank(_linalg_input(A), rtol=rtol)
    TABLE[la.matrix_rank] = matrix_rank

    def lstsq(a, b, rcond=None):
        a, b = _linalg_input(a), as_tensor(b)
        if a.ndim != 2 or b.ndim not in (1, 2):
            raise np.linalg.LinAlgError(f"lstsq: a must be 2-d and b 1-d or 2-d, got shapes "
                                        f"{tuple(a.shape)} and {tuple(b.shape)}")
        m, n = a.shape
        if b.shape[0] != m:
            raise np.linalg.LinAlgError(f"Incompatible dimensions: a has {m} rows, b has "
                                        f"{b.shape[0]} (shapes {tuple(a.shape)} and "
                                        f"{tuple(b.shape)})")
        # one dtype for both (a complex b makes the solution complex: casting
        # b to a real a's dtype dropped its imaginary part)
        a, b = promote(a, b)
        if rcond is None:
            rcond = np.finfo(np.dtype(a.real.dtype)).eps * max(m, n)
        elif rcond < 0:
            rcond = np.finfo(np.dtype(a.real.dtype)).eps
        x = tla.lstsq(a, b, rcond=rcond).solution
        # NumPy's other three results (LAPACK gelsd's): the singular values of
        # a, the rank they give under rcond (int32), and the squared residual
        # of each column of b, present only for a full-rank overdetermined a.
        sv = tla.svdvals(a)
        rank = int((sv > rcond * sv.max()).sum()) if sv.numel() else 0
        if rank == n and m > n:
            err = b - a @ x
            err = err.abs() ** 2 if err.is_complex() else err * err
            residuals = err.sum(0).reshape(-1)
        else:
            residuals = _C.zeros((0,), dtype=sv.dtype, device=a.device)
        return x, residuals, _C.tensor(rank, dtype=_C.int32), sv
    TABLE[la.lstsq] = lstsq

    def cond(x, p=None):
        x = _linalg_input(x)
        if x.shape[-1] * x.shape[-2] == 0:  # NumPy's: empty matrices, not an empty stack
            raise np.linalg.LinAlgError("cond is not defined on empty arrays")
        x_has_nan = _C.isnan(x).any(-1).any(-1)
        if not _numpy_cond_raises_on_nan() and bool(x_has_nan.any()):
            # the matrices holding a NaN get NaN below, not an SVD error
            eye = _C.eye(x.shape[-1], dtype=x.dtype, device=x.device)
            x = _C.where(x_has_nan[..., None, None], eye, x)
        r = tla.cond(x, p)
        # NumPy's convention: a NaN from a failed inversion or a zero singular
        # value is inf (as in torchlike.linalg.cond), unless x itself holds a NaN.
        r = _C.where(_C.isnan(r), _C.full((), np.inf, dtype=r.dtype, device=r.device), r)
        return _C.where(x_has_nan, _C.full((), np.nan, dtype=r.dtype, device=r.device), r)
    TABLE[la.cond] = cond

    def multi_dot(arrays, *, out=None):
        """NumPy's: a chain of dot products, so the dtypes promote as dot's
        (integers stay integers) rather than all having to agree."""
        with value_errors("multi_dot"):
            result = tla.multi_dot(promote(*[as_tensor(a) for a in arrays]))
        return finish(result, out)
    TABLE[la.multi_dot] = multi_dot

    def vector_norm(x, /, *, axis=None, keepdims=False, ord=2):
        x = _linalg_input(x, 0)
        axes = norm_axes(axis, x.ndim)
        empty = _norm_of_nothing(x, ord, axes, keepdims, False)
        return tla.vector_norm(x, ord=ord, dim=axes, keepdim=keepdims) if empty is None \
            else empty
    TABLE[la.vector_norm] = vector_norm

    def matrix_norm(x, /, *, keepdims=False, ord="fro"):
        x = _linalg_input(x)
        empty = _norm_of_nothing(x, ord, (x.ndim - 2, x.ndim - 1), keepdims, True)
        return tla.matrix_norm(x, ord=ord, keepdim=keepdims) if empty is None else empty
    TABLE[la.matrix_norm] = matrix_norm

    def norm(x, ord=None, axis=None, keepdims=False):
        x = _linalg_input(x, 0)
        if axis is None and ord is None:
            r = tla.vector_norm(x.reshape(-1), 2, 0)
            return r.reshape((1,) * x.ndim) if keepdims else r
        if axis is None:
            if x.ndim not in (1, 2):
                raise ValueError("Improper number of dimensions to norm.")
            axis = tuple(range(x.ndim))
        axes = norm_axes(axis, x.ndim)
        if len(axes) == 1:
            if isinstance(ord, str):
                raise ValueError(f"Invalid norm order '{ord}' for vectors")
            empty = _norm_of_nothing(x, ord, axes, keepdims, False)
            return tla.vector_norm(x, 2 if ord is None else ord, axes, keepdims) \
                if empty is None else empty
        if len(axes) == 2:
            if ord not in (None, "fro", "nuc", 1, -1, 2, -2, np.inf, -np.inf):
                raise ValueError("Invalid norm order for matrices.")
            empty = _norm_of_nothing(x, ord, axes, keepdims, True)
            return tla.matrix_norm(x, "fro" if ord is None else ord, axes, keepdims) \
                if empty is None else empty
        raise ValueError("Improper number of dimensions to norm.")
    TABLE[la.norm] = norm

    def outer_(x1, x2, /):
        a, b = as_tensor(x1), as_tensor(x2)
        if a.ndim != 1 or b.ndim != 1:
            raise ValueError("Input arrays must be one-dimensional")
        return outer(a, b)
    TABLE[la.outer] = outer_


def _numpy_failure_words():
    """NumPy's words for a factorization that fails on its input: its
    solvers, inverses and (negative) matrix powers raise LinAlgError
    "Singular matrix", its Cholesky "Matrix is not positive definite",
    where torchlike.linalg speaks PyTorch's sentences.  The error stays
    torchlike.linalg.LinAlgError (a RuntimeError and NumPy's class); the
    refusals of shapes, which already are NumPy's, pass unchanged."""
    import torchlike.linalg as tla
    la = np.linalg

    def reworded(fn, marker, words):
        @functools.wraps(fn)
        def impl(*args, **kwargs):
            try:
                return fn(*args, **kwargs)
            except tla.LinAlgError as e:
                if marker not in str(e):
                    raise
                raise tla.LinAlgError(words) from None
        return impl
    for f in (la.inv, la.solve, la.tensorsolve, la.matrix_power):
        TABLE[f] = reworded(TABLE[f], "singular", "Singular matrix")
    TABLE[la.cholesky] = reworded(TABLE[la.cholesky], "positive-definite",
                                  "Matrix is not positive definite")


_install_linalg()
_numpy_failure_words()


def _torchlike():
    return sys.modules["torchlike"]  # loaded by now (an import statement cost 1 us a call)
