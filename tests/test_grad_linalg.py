"""Gradients of torchlike.linalg (src/grad/formulas_linalg.c).

Real inputs are checked with gradcheck (float64 central differences) on
well-conditioned random matrices: SPD ones for cholesky, separated
eigenvalues and singular values for eigh and svd.  Functions that read one
triangle of a Hermitian matrix (cholesky, eigh) are differentiated through
A = X + X^H, as PyTorch's own tests do.  Complex inputs and complex results
(eig of a real matrix) have their own small checker: the conj-Wirtinger
gradient for grad_output W must equal dL/dRe + i dL/dIm of
L = Re sum(conj(W) out), the convention PyTorch uses.  Eigen- and singular
vectors are compared through losses that do not depend on their phase."""
import math

import numpy as np
import pytest

import torchlike as tl
from torchlike import linalg as LA
from torchlike.autograd import grad, gradcheck, gradgradcheck

GRADCHECKED = {
    "_linalg_solve", "_linalg_solve_ex", "_linalg_inv", "_linalg_inv_ex", "_linalg_det",
    "_linalg_slogdet", "_linalg_logdet", "_linalg_cholesky", "_linalg_cholesky_ex",
    "_linalg_qr", "_linalg_svd", "_linalg_eigh", "_linalg_eig", "_linalg_lstsq",
    "_linalg_pinv", "_linalg_cross", "_linalg_matrix_power", "_linalg_vector_norm",
    "_linalg_solve_triangular", "_linalg_adjoint", "_linalg_lu_factor", "_linalg_lu_factor_ex",
    "_linalg_lu_solve",
}

RNG = np.random.default_rng(1234)


def leaf(a, dtype=tl.float64):
    return tl.tensor(np.asarray(a), dtype=dtype, requires_grad=True)


def randn(*shape):
    return leaf(RNG.standard_normal(shape))


def well_conditioned(*shape):
    """Random square matrices dominated by their diagonal."""
    n = shape[-1]
    return leaf(RNG.standard_normal(shape) * 0.5 + 2 * np.eye(n))


def half_spd(*shape):
    """X with X + X^H symmetric positive definite."""
    n = shape[-1]
    return leaf(RNG.standard_normal(shape) * 0.2 + n * np.eye(n) / 2)


def spread_spectrum(*shape):
    """X with X + X^H of well separated eigenvalues (1, 3, 5, ...)."""
    n = shape[-1]
    q, _ = np.linalg.qr(RNG.standard_normal(shape))
    d = np.arange(n) * 1.0 + 0.5
    a = q @ (d[:, None] * np.swapaxes(q, -1, -2))
    return leaf(a)


def sym(x):
    return x + tl.adjoint(x)


def noncontig(a):
    """A leaf with a's values and a non-contiguous layout."""
    a = np.asarray(a)
    wide = np.zeros(a.shape[:-1] + (2 * a.shape[-1],))
    wide[..., ::2] = a
    t = tl.tensor(wide, dtype=tl.float64)[..., ::2].detach()
    assert not t.is_contiguous()
    t.requires_grad_(True)
    return t


# ---- gradcheck of real inputs -----------------------------------------------------------

CASES = [
    # name, function, input makers
    ("solve", lambda a, b: LA.solve(a, b), [lambda: well_conditioned(2, 3, 3), lambda: randn(2, 3, 2)]),
    ("solve_left_false", lambda a, b: LA.solve(a, b, left=False),
     [lambda: well_conditioned(3, 3), lambda: randn(2, 4, 3)]),
    ("solve_vector", lambda a, b: LA.solve(a, b), [lambda: well_conditioned(2, 3, 3), lambda: randn(2, 3)]),
    ("solve_1d_rhs", lambda a, b: LA.solve(a, b), [lambda: well_conditioned(2, 3, 3), lambda: randn(3)]),
    ("solve_broadcast", lambda a, b: LA.solve(a, b), [lambda: well_conditioned(1, 3, 3), lambda: randn(2, 3, 2)]),
    ("solve_ex", lambda a, b: LA.solve_ex(a, b).result, [lambda: well_conditioned(3, 3), lambda: randn(3, 2)]),
    ("inv", LA.inv, [lambda: well_conditioned(2, 3, 3)]),
    ("inv_ex", lambda a: LA.inv_ex(a).inverse, [lambda: well_conditioned(4, 4)]),
    ("inverse_method", lambda a: a.inverse(), [lambda: well_conditioned(3, 3)]),
    ("det", LA.det, [lambda: well_conditioned(2, 3, 3)]),
    ("det_method", lambda a: a.det(), [lambda: well_conditioned(4, 4)]),
    ("det_1x1", LA.det, [lambda: randn(2, 1, 1)]),
    ("slogdet", lambda a: LA.slogdet(a).logabsdet, [lambda: randn(2, 3, 3)]),
    ("slogdet_method", lambda a: a.slogdet()[1], [lambda: randn(3, 3)]),
    ("logdet", lambda a: tl.logdet(sym(a)), [lambda: half_spd(2, 3, 3)]),
    ("logdet_method", lambda a: sym(a).logdet(), [lambda: half_spd(3, 3)]),
    ("cholesky", lambda a: LA.cholesky(sym(a)), [lambda: half_spd(2, 3, 3)]),
    ("cholesky_upper", lambda a: LA.cholesky(sym(a), upper=True), [lambda: half_spd(4, 4)]),
    ("cholesky_ex", lambda a: LA.cholesky_ex(sym(a)).L, [lambda: half_spd(3, 3)]),
    ("cholesky_method", lambda a: sym(a).cholesky(), [lambda: half_spd(3, 3)]),
    ("qr_tall", lambda a: LA.qr(a), [lambda: randn(2, 4, 3)]),
    ("qr_square_complete", lambda a: LA.qr(a, mode="complete"), [lambda: randn(3, 3)]),
    ("qr_wide", lambda a: LA.qr(a), [lambda: randn(2, 3, 5)]),
    ("qr_wide_complete", lambda a: LA.qr(a, mode="complete"), [lambda: randn(2, 4)]),
    ("qr_method", lambda a: a.qr(), [lambda: randn(4, 2)]),
    ("svd_tall", lambda a: LA.svd(a, full_matrices=False), [lambda: randn(2, 4, 3)]),
    ("svd_wide", lambda a: LA.svd(a, full_matrices=False), [lambda: randn(3, 5)]),
    ("svd_square", lambda a: LA.svd(a, full_matrices=False), [lambda: randn(2, 3, 3)]),
    ("svd_S_full", lambda a: LA.svd(a).S, [lambda: randn(3, 5)]),
    ("svd_method", lambda a: a.svd(), [lambda: randn(4, 3)]),
    ("svdvals", LA.svdvals, [lambda: randn(2, 4, 3)]),
    ("eigh", lambda a: LA.eigh(sym(a)), [lambda: spread_spectrum(2, 3, 3)]),
    ("eigh_upper", lambda a: LA.eigh(sym(a), UPLO="U"), [lambda: spread_spectrum(4, 4)]),
    ("eigvalsh", lambda a: LA.eigvalsh(sym(a)), [lambda: spread_spectrum(2, 3, 3)]),
    ("eigvalsh_upper", lambda a: LA.eigvalsh(sym(a), "U"), [lambda: spread_spectrum(3, 3)]),
    ("lstsq", lambda a, b: LA.lstsq(a, b).solution, [lambda: randn(2, 5, 3), lambda: randn(2, 5, 2)]),
    ("lstsq_vector", lambda a, b: LA.lstsq(a, b).solution, [lambda: randn(5, 3), lambda: randn(5)]),
    ("lstsq_gelsd", lambda a, b: LA.lstsq(a, b, driver="gelsd").solution,
     [lambda: randn(4, 2), lambda: randn(4, 3)]),
    ("pinv_tall", LA.pinv, [lambda: randn(2, 4, 3)]),
    ("pinv_wide", LA.pinv, [lambda: randn(3, 5)]),
    ("pinv_hermitian", lambda a: LA.pinv(sym(a), hermitian=True), [lambda: spread_spectrum(3, 3)]),
    ("pinverse_method", lambda a: a.pinverse(), [lambda: randn(3, 2)]),
    ("cross", lambda a, b: LA.cross(a, b), [lambda: randn(4, 3), lambda: randn(3)]),
    ("cross_dim0", lambda a, b: LA.cross(a, b, dim=0), [lambda: randn(3, 2), lambda: randn(3, 2)]),
    ("cross_method", lambda a, b: a.cross(b, dim=-1), [lambda: randn(2, 3), lambda: randn(2, 3)]),
    ("matrix_power_3", lambda a: LA.matrix_power(a, 3), [lambda: well_conditioned(2, 3, 3)]),
    ("matrix_power_1", lambda a: LA.matrix_power(a, 1), [lambda: randn(3, 3)]),
    ("matrix_power_0", lambda a: LA.matrix_power(a, 0), [lambda: randn(3, 3)]),
    ("matrix_power_neg", lambda a: LA.matrix_power(a, -2), [lambda: well_conditioned(2, 3, 3)]),
    ("matrix_power_method", lambda a: a.matrix_power(4), [lambda: well_conditioned(3, 3)]),
    ("solve_triangular_upper", lambda a, b: LA.solve_triangular(a, b, upper=True),
     [lambda: well_conditioned(2, 3, 3), lambda: randn(2, 3, 2)]),
    ("solve_triangular_lower_right_unit",
     lambda a, b: LA.solve_triangular(a, b, upper=False, left=False, unitriangular=True),
     [lambda: well_conditioned(3, 3), lambda: randn(2, 4, 3)]),
    ("solve_triangular_upper_unit", lambda a, b: LA.solve_triangular(a, b, upper=True, unitriangular=True),
     [lambda: well_conditioned(3, 3), lambda: randn(3, 1)]),
    ("adjoint", tl.adjoint, [lambda: randn(2, 3, 4)]),
    ("mH", lambda a: a.mH, [lambda: randn(3, 2)]),
    ("matrix_norm_1", lambda a: LA.matrix_norm(a, 1), [lambda: randn(2, 3, 4)]),
    ("matrix_norm_inf_keepdim", lambda a: LA.matrix_norm(a, math.inf, keepdim=True), [lambda: randn(3, 4)]),
    ("matrix_norm_-1", lambda a: LA.matrix_norm(a, -1), [lambda: randn(3, 4)]),
    ("matrix_norm_fro", lambda a: LA.matrix_norm(a), [lambda: randn(2, 3, 4)]),
    ("norm_fro", lambda a: LA.norm(a), [lambda: randn(3, 4)]),
]


@pytest.mark.parametrize("shape", [(3, 3), (2, 4, 4), (5, 3), (2, 3, 5)])
def test_lu(shape):
    assert gradcheck(lambda a: LA.lu(a)[1:], (randn(*shape),))
    assert gradcheck(lambda a: LA.lu_factor(a).LU, (randn(*shape),))
    assert gradcheck(lambda a: LA.lu_factor_ex(a).LU, (randn(*shape),))


@pytest.mark.parametrize("left", [True, False])
@pytest.mark.parametrize("adjoint", [False, True])
def test_lu_solve(left, adjoint):
    lu, piv = LA.lu_factor(tl.tensor(RNG.standard_normal((2, 3, 3)) + 2 * np.eye(3)))
    b = randn(2, 3, 2) if left else randn(2, 2, 3)
    assert gradcheck(lambda lu, b: LA.lu_solve(lu, piv, b, left=left, adjoint=adjoint),
                     (leaf(lu.cpu().numpy()), b))
    assert LA.lu_factor(randn(3, 3)).pivots.grad_fn is None


@pytest.mark.parametrize("name,fn,makers", CASES, ids=[c[0] for c in CASES])
def test_gradcheck(name, fn, makers):
    assert gradcheck(fn, tuple(m() for m in makers))


@pytest.mark.parametrize("ord", [2, 1, 3, 0.5, -1.5, math.inf, -math.inf, 0])
@pytest.mark.parametrize("dim,keepdim", [(None, False), (1, False), ((0,), True), ((0, 2), False)])
def test_vector_norm(ord, dim, keepdim):
    x = randn(3, 4, 2)
    assert gradcheck(lambda x: LA.vector_norm(x, ord, dim, keepdim), (x,))


def test_vector_norm_dtype_and_keywords():
    x = leaf(RNG.standard_normal((3, 4)), tl.float32)
    r = LA.vector_norm(x, ord=3, dim=1, dtype=tl.float64)
    (g,) = grad(r.sum(), x)
    xd = x.detach().cpu().numpy().astype(np.float64)
    expected = np.sign(xd) * np.abs(xd) ** 2 / np.linalg.norm(xd, 3, axis=1, keepdims=True) ** 2
    assert g.dtype == tl.float32
    np.testing.assert_allclose(g.cpu().numpy(), expected, rtol=1e-5)


@pytest.mark.parametrize("ord", [2, 3, 0.5, 1, math.inf])
def test_vector_norm_of_zeros_has_zero_gradient(ord):
    x = leaf(np.zeros((2, 3)))
    (g,) = grad(LA.vector_norm(x, ord, dim=1).sum(), x)
    np.testing.assert_array_equal(g.cpu().numpy(), np.zeros((2, 3)))


def test_vector_norm_inf_ties_split_evenly():
    x = leaf([3.0, -3.0, 1.0, 2.0])
    (g,) = grad(LA.vector_norm(x, math.inf), x)
    np.testing.assert_allclose(g.cpu().numpy(), [0.5, -0.5, 0, 0])


def test_noncontiguous_inputs():
    a = noncontig(RNG.standard_normal((3, 3)) + 3 * np.eye(3))
    b = noncontig(RNG.standard_normal((3, 2)))
    assert gradcheck(lambda a, b: LA.solve(a, b), (a, b))
    assert gradcheck(LA.det, (a,))
    assert gradcheck(lambda a: LA.svd(a, full_matrices=False), (a,))


def test_det_singular_matrices_stay_finite():
    # rank n-1: the gradient is the adjugate's transpose, nonzero and finite
    a = leaf([[1.0, 2.0, 3.0], [4.0, 5.0, 6.0], [7.0, 8.0, 9.0]])
    (g,) = grad(LA.det(a), a)
    adj_t = np.array([[-3.0, 6.0, -3.0], [6.0, -12.0, 6.0], [-3.0, 6.0, -3.0]])
    np.testing.assert_allclose(g.cpu().numpy(), adj_t, atol=1e-10)
    assert gradcheck(LA.det, (a,))
    # a batch mixing a singular and an invertible matrix, and a rank n-2 one
    b = leaf([[[1.0, 2.0], [2.0, 4.0]], [[1.0, 2.0], [3.0, 4.0]]])
    assert gradcheck(LA.det, (b,))
    z = leaf(np.outer([1.0, 2.0, 3.0], [1.0, -1.0, 2.0]))
    (g,) = grad(LA.det(z), z)
    np.testing.assert_allclose(g.cpu().numpy(), np.zeros((3, 3)), atol=1e-12)


def test_solve_keyword_and_method_forms_record():
    a, b = well_conditioned(3, 3), randn(3, 2)
    assert LA.solve(a, b, left=True).grad_fn is not None
    assert tl.inverse(a).grad_fn is not None
    assert tl.det(a).grad_fn is not None
    assert tl.cholesky(sym(half_spd(3, 3)), upper=True).grad_fn is not None
    assert tl.svd(a).V.grad_fn is not None
    assert tl.pinverse(a).grad_fn is not None


def test_eig_of_real_matrix_with_real_spectrum():
    a = leaf(np.diag([1.0, 2.0, 3.5]) + 0.1 * RNG.standard_normal((3, 3)))
    assert gradcheck(lambda a: LA.eig(a).eigenvalues, (a,))
    assert gradcheck(LA.eigvals, (a,))


def test_non_differentiable_results_have_no_history():
    a = well_conditioned(3, 3)
    assert LA.matrix_rank(a).grad_fn is None
    assert not LA.matrix_rank(a).requires_grad
    assert LA.inv_ex(a).info.grad_fn is None
    assert LA.cholesky_ex(sym(half_spd(3, 3))).info.grad_fn is None
    assert LA.solve_ex(a, randn(3)).info.grad_fn is None
    res = LA.lstsq(randn(4, 3), randn(4, 2))
    assert res.rank.grad_fn is None


def test_qr_modes_without_a_derivative_raise():
    a = randn(4, 3)
    _, r = LA.qr(a, mode="r")
    with pytest.raises(RuntimeError, match="mode='r'"):
        r.sum().backward()
    q, r = LA.qr(a, mode="complete")
    with pytest.raises(RuntimeError, match="complete"):
        r.sum().backward()


def test_svd_full_matrices_differentiates_the_reduced_part():
    a = randn(4, 2)
    u, s, vh = LA.svd(a)           # full: U is 4 x 4
    (g_full,) = grad(s.sum() + (u * 0).sum() + (vh * 0).sum(), a)
    u2, s2, vh2 = LA.svd(a, full_matrices=False)
    (g_red,) = grad(s2.sum(), a)
    np.testing.assert_allclose(g_full.cpu().numpy(), g_red.cpu().numpy(), atol=1e-12)


def test_svd_gradient_of_values_is_u_vt():
    a = randn(3, 4)
    (g,) = grad(LA.svdvals(a).sum(), a)
    u, _, vh = np.linalg.svd(a.detach().cpu().numpy(), full_matrices=False)
    np.testing.assert_allclose(g.cpu().numpy(), u @ vh, atol=1e-12)


# ---- complex inputs and complex results ------------------------------------------------

def _as_tensor(a):
    dt = tl.complex128 if np.iscomplexobj(a) else tl.float64
    return tl.tensor(np.asarray(a), dtype=dt)


def check_complex(fn, arrays, loss="linear", eps=1e-6, tol=1e-5):
    """Compare grad(out, inputs, W) with finite differences of
    L = Re sum(conj(W) out) (loss='linear') or L = sum(C |out|^2)
    (loss='abs2', phase-invariant; its W is 2 C out)."""
    arrays = [np.asarray(a) for a in arrays]
    ins = [_as_tensor(a).requires_grad_(True) for a in arrays]
    out = fn(*ins)
    o = out.detach().cpu().numpy()
    rng = np.random.default_rng(7)
    c = rng.standard_normal(o.shape)
    if np.iscomplexobj(o) and loss == "linear":
        c = c + 1j * rng.standard_normal(o.shape)
    w = c if loss == "linear" else 2 * c * o

    def value(xs):
        r = fn(*[_as_tensor(x) for x in xs]).cpu().numpy()
        return np.real(np.sum(np.conj(c) * r)) if loss == "linear" else np.sum(c * np.abs(r) ** 2)

    got = grad(out, ins, _as_tensor(w))
    for i, a in enumerate(arrays):
        expected = np.zeros(a.shape, dtype=a.dtype)
        parts = (1, 1j) if np.iscomplexobj(a) else (1,)
        for k in np.ndindex(a.shape):
            for unit in parts:
                xs = [x.copy() for x in arrays]
                xs[i][k] += eps * unit
                plus = value(xs)
                xs[i][k] -= 2 * eps * unit
                minus = value(xs)
                expected[k] += unit * (plus - minus) / (2 * eps)
        np.testing.assert_allclose(got[i].cpu().numpy(), expected, atol=tol, rtol=1e-4,
                                   err_msg=f"input {i}")


def crandn(*shape):
    return RNG.standard_normal(shape) + 1j * RNG.standard_normal(shape)


def cwell(*shape):
    return crandn(*shape) * 0.5 + 2 * np.eye(shape[-1])


def test_eig_of_real_matrix_with_complex_pairs():
    a = np.array([[1.0, -2.0, 0.3], [2.0, 1.0, 0.1], [0.2, -0.4, 3.0]])  # 1 +- 2i and ~3
    check_complex(LA.eigvals, [a])
    check_complex(lambda a: LA.eig(a).eigenvalues, [a])
    check_complex(lambda a: LA.eig(a).eigenvectors, [a], loss="abs2")


@pytest.mark.parametrize("case", [
    "solve", "solve_left_false", "solve_vector", "inv", "det", "logdet", "slogdet_abs", "slogdet_sign",
    "cholesky", "qr", "svd_values", "svd_vectors", "eigh_values", "eigh_vectors", "eig", "pinv",
    "lstsq", "cross", "matrix_power", "vector_norm", "solve_triangular", "lu", "lu_solve",
])
def test_complex(case):
    if case == "solve":
        check_complex(lambda a, b: LA.solve(a, b), [cwell(2, 3, 3), crandn(2, 3, 2)])
    elif case == "solve_left_false":
        check_complex(lambda a, b: LA.solve(a, b, left=False), [cwell(3, 3), crandn(2, 3)])
    elif case == "solve_vector":
        check_complex(lambda a, b: LA.solve(a, b), [cwell(3, 3), crandn(3)])
    elif case == "inv":
        check_complex(LA.inv, [cwell(2, 3, 3)])
    elif case == "det":
        check_complex(LA.det, [cwell(2, 3, 3)])
        check_complex(LA.det, [np.array([[1, 2j], [1j, -2.0]])])  # singular
    elif case == "logdet":
        check_complex(tl.logdet, [cwell(2, 3, 3)])
    elif case == "slogdet_abs":
        check_complex(lambda a: LA.slogdet(a).logabsdet, [cwell(3, 3)])
    elif case == "slogdet_sign":
        check_complex(lambda a: LA.slogdet(a).sign, [cwell(3, 3)])
    elif case == "cholesky":
        x = crandn(3, 3) * 0.2 + 1.5 * np.eye(3)
        check_complex(lambda x: LA.cholesky(sym(x)), [x])
        check_complex(lambda x: LA.cholesky(sym(x), upper=True), [x])
    elif case == "qr":
        check_complex(lambda a: LA.qr(a).R, [crandn(4, 3)])
        check_complex(lambda a: LA.qr(a).Q, [crandn(4, 3)], loss="abs2")
        check_complex(lambda a: LA.qr(a).Q, [crandn(2, 4)], loss="abs2")
    elif case == "svd_values":
        check_complex(LA.svdvals, [crandn(3, 4)])
    elif case == "svd_vectors":
        check_complex(lambda a: LA.svd(a, full_matrices=False).U, [crandn(4, 3)], loss="abs2")
        check_complex(lambda a: LA.svd(a, full_matrices=False).Vh, [crandn(3, 4)], loss="abs2")
    elif case == "eigh_values":
        check_complex(lambda a: LA.eigvalsh(sym(a)), [crandn(3, 3)])
    elif case == "eigh_vectors":
        check_complex(lambda a: LA.eigh(sym(a)).eigenvectors, [crandn(3, 3)], loss="abs2")
    elif case == "eig":
        check_complex(LA.eigvals, [crandn(3, 3)])
        check_complex(lambda a: LA.eig(a).eigenvectors, [crandn(3, 3)], loss="abs2")
    elif case == "pinv":
        check_complex(LA.pinv, [crandn(4, 3)])
    elif case == "lstsq":
        check_complex(lambda a, b: LA.lstsq(a, b).solution, [crandn(4, 3), crandn(4, 2)])
    elif case == "cross":
        check_complex(lambda a, b: LA.cross(a, b), [crandn(2, 3), crandn(2, 3)])
    elif case == "matrix_power":
        check_complex(lambda a: LA.matrix_power(a, 3), [crandn(3, 3)])
        check_complex(lambda a: LA.matrix_power(a, -1), [cwell(3, 3)])
    elif case == "vector_norm":
        for o in (2, 1, 3, math.inf):
            check_complex(lambda x: LA.vector_norm(x, o, 1), [crandn(2, 3)])
    elif case == "solve_triangular":
        check_complex(lambda a, b: LA.solve_triangular(a, b, upper=False), [cwell(3, 3), crandn(3, 2)])
    elif case == "lu":
        check_complex(lambda a: LA.lu(a).U, [crandn(3, 3)])
        check_complex(lambda a: LA.lu_factor(a).LU, [crandn(4, 3)])
    elif case == "lu_solve":
        lu, piv = LA.lu_factor(tl.tensor(cwell(3, 3)))
        for left in (True, False):
            for adjoint in (False, True):
                check_complex(lambda lu, b: LA.lu_solve(lu, piv, b, left=left, adjoint=adjoint),
                              [lu.cpu().numpy(), crandn(3, 3)])


@pytest.mark.parametrize("fn", [
    lambda a: LA.eig(a).eigenvectors,
    lambda a: LA.eigh(sym(a)).eigenvectors,
    lambda a: LA.svd(a, full_matrices=False).U,
])
def test_phase_dependent_loss_raises(fn):
    a = tl.tensor(crandn(3, 3), dtype=tl.complex128, requires_grad=True)
    v = fn(a)
    with pytest.raises(RuntimeError, match=r"phase.*= [0-9][0-9.e+-]*\), so its gradient"):
        grad(v, a, tl.tensor(crandn(3, 3), dtype=tl.complex128))


@pytest.mark.host_only  # the list becomes a host tensor
def test_list_right_hand_side():
    a = leaf(2 * np.eye(2))
    (g,) = grad(LA.solve(a, [1.0, 2.0]).sum(), a)
    np.testing.assert_allclose(g.cpu().numpy(), [[-0.25, -0.5], [-0.25, -0.5]])


@pytest.mark.parametrize("fn,shape", [
    (LA.det, (2, 0, 0)), (LA.inv, (2, 0, 0)), (lambda a: LA.slogdet(a).logabsdet, (0, 0)),
    (LA.cholesky, (2, 0, 0)), (LA.svdvals, (0, 3)), (lambda a: LA.svd(a, False).S, (3, 0)),
    (lambda a: LA.qr(a).R, (0, 3)), (LA.eigvalsh, (0, 0)), (LA.pinv, (0, 3)),
    (lambda a: LA.matrix_power(a, 3), (2, 0, 0)), (LA.vector_norm, (0, 3)),
])
def test_empty_inputs(fn, shape):
    a = leaf(np.zeros(shape))
    (g,) = grad(fn(a).sum(), a)
    assert tuple(g.shape) == shape


def test_float32_gradients_keep_the_dtype():
    a = leaf(RNG.standard_normal((3, 3)) + 3 * np.eye(3), tl.float32)
    (g,) = grad(LA.det(a), a)
    assert g.dtype == tl.float32
    ad = a.detach().cpu().numpy().astype(np.float64)
    np.testing.assert_allclose(g.cpu().numpy(), np.linalg.det(ad) * np.linalg.inv(ad).T, rtol=1e-4)


# ---- through other ops' formulas: gauge-invariant losses, compositions, second order ----


def test_svd_gauge_invariant_losses():
    a = randn(2, 4, 3)

    def recon(a):
        u, s, vh = LA.svd(a, full_matrices=False)
        return u @ tl.diag_embed(s) @ vh
    assert gradcheck(recon, (a,))
    assert gradcheck(lambda a: LA.svd(a, full_matrices=False).U.abs(), (a,))
    assert gradcheck(lambda a: tl.svd(a).V.abs(), (randn(3, 5),))


def test_eigh_gauge_invariant_losses():
    a = spread_spectrum(2, 3, 3)

    def recon(a):
        w, v = LA.eigh(sym(a))
        return v @ tl.diag_embed(w.exp()) @ v.mT
    assert gradcheck(recon, (a,))
    assert gradcheck(lambda a: LA.eigh(sym(a)).eigenvectors.abs(), (a,))


def test_qr_reconstruction():
    a = randn(2, 4, 3)
    assert gradcheck(lambda a: tl.matmul(*LA.qr(a)), (a,))


@pytest.mark.parametrize("ord", ["nuc", 2, -2, "fro", 1, -1, math.inf, -math.inf])
def test_matrix_norm(ord):
    a = randn(2, 3, 4)
    assert gradcheck(lambda a: LA.matrix_norm(a, ord), (a,))
    assert gradcheck(lambda a: LA.norm(a, ord, dim=(0, 2), keepdim=True), (randn(3, 2, 4),))


def test_multi_dot_and_chain_matmul():
    xs = (randn(2, 3), randn(3, 4), randn(4, 2), randn(2))
    assert gradcheck(lambda *xs: LA.multi_dot(xs), xs)
    assert gradcheck(lambda a, b: tl.chain_matmul(a, b), xs[:2])


def test_cholesky_solve_and_inverse_methods():
    x, b = half_spd(3, 3), randn(3, 2)

    def chol(x):
        return LA.cholesky(sym(x))
    assert gradcheck(lambda x, b: tl.cholesky_solve(b, chol(x)), (x, b))
    assert gradcheck(lambda x, b: b.cholesky_solve(chol(x).mH, upper=True), (x, b))
    assert gradcheck(lambda x: chol(x).cholesky_inverse(), (x,))


@pytest.mark.parametrize("upper", [False, True])
def test_cholesky_solve_and_inverse_read_one_triangle(upper):
    # PyTorch (LAPACK's potrs/potri) reads the factor's triangle only: a full
    # matrix gives the values of its triangle, and the derivative (checked by
    # finite differences) is zero across the other.  PyTorch's backward
    # formula uses the full matrix and gives nonzero values there.
    a = RNG.standard_normal((2, 3, 3)) * 0.3 + 2 * np.eye(3)
    b = RNG.standard_normal((2, 3, 2))
    t = np.triu(a) if upper else np.tril(a)
    gram = np.swapaxes(t, -1, -2) @ t if upper else t @ np.swapaxes(t, -1, -2)
    A, B = tl.tensor(a), tl.tensor(b)
    np.testing.assert_allclose(tl.cholesky_solve(B, A, upper).cpu().numpy(), np.linalg.solve(gram, b),
                               rtol=1e-12)
    np.testing.assert_allclose(tl.cholesky_inverse(A, upper).cpu().numpy(), np.linalg.inv(gram),
                               rtol=1e-12)
    x, y = leaf(a), leaf(b)
    assert gradcheck(lambda x, y: tl.cholesky_solve(y, x, upper), (x, y))
    assert gradcheck(lambda x: tl.cholesky_inverse(x, upper), (x,))
    tl.cholesky_inverse(x, upper).sum().backward()
    other = np.tril(np.ones((3, 3)), -1) if upper else np.triu(np.ones((3, 3)), 1)
    g = x.grad.cpu().numpy()
    assert np.all(g * other == 0) and np.any(g != 0)


def test_vecdot_tensorinv_tensorsolve():
    assert gradcheck(lambda x, y: LA.vecdot(x, y), (randn(2, 3), randn(3)))
    a = leaf(RNG.standard_normal((2, 3, 6)) * 0.3 + np.eye(6).reshape(2, 3, 6))
    assert gradcheck(lambda a: LA.tensorinv(a, ind=2), (a,))
    assert gradcheck(lambda a, b: LA.tensorsolve(a, b), (a, randn(2, 3)))


GRADGRAD = [
    ("solve", lambda a, b: LA.solve(a, b), [lambda: well_conditioned(2, 3, 3), lambda: randn(2, 3, 2)]),
    ("solve_vector_right", lambda a, b: LA.solve(a, b, left=False),
     [lambda: well_conditioned(3, 3), lambda: randn(2, 3)]),
    ("inv", LA.inv, [lambda: well_conditioned(2, 3, 3)]),
    ("det", LA.det, [lambda: well_conditioned(2, 3, 3)]),
    ("det_singular", LA.det, [lambda: leaf([[1.0, 2.0, 3.0], [4.0, 5.0, 6.0], [7.0, 8.0, 9.0]])]),
    ("cholesky", lambda a: LA.cholesky(sym(a)), [lambda: half_spd(2, 3, 3)]),
    ("cholesky_upper", lambda a: LA.cholesky(sym(a), upper=True), [lambda: half_spd(3, 3)]),
    ("slogdet", lambda a: LA.slogdet(a).logabsdet, [lambda: well_conditioned(3, 3)]),
    ("solve_triangular", lambda a, b: LA.solve_triangular(a, b, upper=True),
     [lambda: well_conditioned(3, 3), lambda: randn(3, 2)]),
    ("qr", lambda a: LA.qr(a).R, [lambda: randn(4, 3)]),
    ("svdvals", LA.svdvals, [lambda: randn(3, 2)]),
    ("eigvalsh", lambda a: LA.eigvalsh(sym(a)), [lambda: spread_spectrum(3, 3)]),
    ("pinv", LA.pinv, [lambda: randn(3, 2)]),
    ("matrix_power_neg", lambda a: LA.matrix_power(a, -2), [lambda: well_conditioned(3, 3)]),
    ("vector_norm_3", lambda x: LA.vector_norm(x, 3, 1), [lambda: randn(3, 2)]),
    ("lu_factor", lambda a: LA.lu_factor(a).LU, [lambda: well_conditioned(3, 3)]),
]


@pytest.mark.parametrize("name,fn,makers", GRADGRAD, ids=[c[0] for c in GRADGRAD])
def test_gradgradcheck(name, fn, makers):
    assert gradgradcheck(fn, tuple(m() for m in makers))


def test_backward_loops_keep_memory_flat():
    from oracle import assert_rss_flat, rss_bytes
    a, b = well_conditioned(2, 4, 4), randn(2, 4, 2)
    x, w = half_spd(4, 4), randn(5, 3)

    def step():
        loss = (LA.solve(a, b).sum() + LA.det(a).sum() + LA.inv(a).sum()
                + LA.slogdet(a).logabsdet.sum() + LA.cholesky(sym(x)).sum()
                + LA.qr(w).R.sum() + LA.svdvals(w).sum() + LA.svd(w, False).U.sum()
                + LA.eigvalsh(sym(x)).sum() + LA.pinv(w).sum() + LA.lu_factor(a).LU.sum()
                + LA.vector_norm(w, 3).sum() + LA.matrix_power(a, -2).sum())
        loss.backward()

    for _ in range(10):
        step()
    before = rss_bytes()
    for _ in range(150):
        step()
    assert_rss_flat(before, label="linalg backward")
    for t in (a, b, x, w):
        assert np.isfinite(t.grad.cpu().numpy()).all()


def test_eigh_and_cholesky_gradients_of_raw_input_are_hermitian():
    # PyTorch's conventions: only the skew-Hermitian part of V^H gV moves V, and
    # cholesky's gradient is L^-H P L^-1 with P Hermitian (for real input)
    x = leaf(RNG.standard_normal((3, 3)))
    w, v = LA.eigh(x)
    (g,) = grad((w * tl.tensor([1.0, 2.0, 3.0])).sum() + (v * v).sum(1)[0], x)
    np.testing.assert_allclose(g.cpu().numpy(), g.cpu().numpy().T, atol=1e-12)
    p = leaf(spread_spectrum(3, 3).detach().cpu().numpy() + 3 * np.eye(3))
    (g,) = grad(LA.cholesky(p), p, tl.tensor(RNG.standard_normal((3, 3))))
    np.testing.assert_allclose(g.cpu().numpy(), g.cpu().numpy().T, atol=1e-12)


# ---- a product's gradient for a transposed (column-major) operand ---------------------
# (src/grad/formulas_reduce.c, matmul: the gradient keeps the operand's layout)

@pytest.mark.parametrize("a_shape", [(5, 4), (2, 3, 4)])
def test_product_gradient_of_a_transposed_operand(a_shape):
    """a @ w.t() and addmm(bias, a, w.t()): the gradient to w.t() is computed
    as a transposed product; values and second derivatives as gradcheck's
    differences say, for 2-D and batched a."""
    a, w, bias = randn(*a_shape), randn(3, 4), randn(3)
    assert gradcheck(lambda a, w: a @ w.t(), (a, w))
    assert gradgradcheck(lambda a, w: a @ w.t(), (a, w))
    if len(a_shape) == 2:
        assert gradcheck(lambda b, a, w: tl.addmm(b, a, w.t(), beta=0.5, alpha=2.0), (bias, a, w))


@pytest.mark.parametrize("a_shape", [(5, 4), (2, 3, 4)])
def test_complex_product_gradient_of_a_transposed_operand(a_shape):
    """Complex: the transposed product's gradient (conj(a) on the other side)
    equals the row-major formula's, reached through a contiguous copy of w.t()."""
    def mk(*shape):
        x = RNG.standard_normal(shape) + 1j * RNG.standard_normal(shape)
        return tl.tensor(x, dtype=tl.complex128, requires_grad=True)
    a, w = mk(*a_shape), mk(3, 4)
    g = tl.tensor(RNG.standard_normal(a_shape[:-1] + (3,))
                  + 1j * RNG.standard_normal(a_shape[:-1] + (3,)), dtype=tl.complex128)
    ga, gw = grad(a @ w.t(), (a, w), g)
    ra, rw = grad(a @ w.t().contiguous(), (a, w), g)
    np.testing.assert_allclose(gw.cpu().numpy(), rw.cpu().numpy(), rtol=1e-12, atol=1e-12)
    np.testing.assert_allclose(ga.cpu().numpy(), ra.cpu().numpy(), rtol=1e-12, atol=1e-12)


def test_linear_weight_gradient_is_contiguous_and_exact():
    """Linear's weight gradient comes out in the weight's layout (no
    transposing copy on its way into .grad) and equals g^T x."""
    x0, w0 = RNG.standard_normal((6, 5)), RNG.standard_normal((4, 5))
    g0 = RNG.standard_normal((6, 4))
    x, w = leaf(x0), leaf(w0)
    tl.nn.functional.linear(x, w).backward(tl.tensor(g0))
    assert w.grad.is_contiguous()
    np.testing.assert_allclose(w.grad.cpu().numpy(), g0.T @ x0, rtol=1e-12)
    np.testing.assert_allclose(x.grad.cpu().numpy(), g0 @ w0, rtol=1e-12)
