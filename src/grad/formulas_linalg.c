/* formulas_linalg.c - derivatives of torchlike.linalg (grad_fns.def, the
 * _C._linalg_* functions that torchlike/linalg.py calls).
 *
 * Legend: g is the gradient of the output, A the input matrix, X the result,
 * ^H the conjugate transpose (_linalg_adjoint), <P, Q> = Re tr(P^H Q).  The
 * gradients are conj-Wirtinger as everywhere in torchlike: for complex input
 * they are what PyTorch returns, for real input their real part.
 *
 * Every formula is made of recorded torchlike calls (matmul, _linalg_solve,
 * _linalg_solve_triangular ...), so create_graph=True differentiates them
 * again.  Masks (triangles, the identity) are constants multiplied in rather
 * than tril/triu calls, so a second derivative needs only mul.
 *
 * Conventions, as PyTorch's:
 *  - cholesky and eigh read one triangle of a Hermitian A but return a
 *    gradient for the whole matrix, the same matrices PyTorch returns
 *    (eigh's Hermitian; cholesky's Hermitian for real A); test them through
 *    A = B + B^H or B B^H + c I.
 *  - svd, eigh and eig vectors are defined up to sign/phase: only losses that
 *    do not depend on that choice have a gradient; the formulas pick the
 *    gauge in which V^H dV has a zero (or real) diagonal, and a complex loss
 *    that does depend on the phase (Im diag(V^H gV) != 0) raises.  Repeated singular
 *    values or eigenvalues make the vector gradients infinite (1/(s_j^2-s_i^2)),
 *    as in PyTorch; the values alone (svdvals, eigvalsh) stay finite.
 *  - svd with full_matrices=True differentiates the first min(m, n) columns
 *    of U and rows of Vh; the completion is arbitrary and gets no gradient.
 *  - det of a singular matrix uses the adjugate through the SVD, which stays
 *    finite (rank n-1 has a nonzero adjugate); invertible batches use
 *    det * A^-H from one inverse.
 *  - qr: mode 'reduced' (any shape) and 'complete' with m <= n; 'r' and
 *    'complete' with m > n raise, as Q (or its completion) is not determined.
 *  - lstsq differentiates the solution as pinv(A) B (full rank, or constant
 *    rank); residuals, rank and singular values have no gradient here.
 *  - lu / lu_factor (any shape) and lu_solve (LU and B, every left/adjoint
 *    form) assume the pivots do not change under a small perturbation. */
#include <math.h>

#include "grad/py_grad.h"

/* ---- helpers: each returns a scope-owned reference, or NULL with an error set ---- */

static bool is_complex(PyObject *x)
{
  return x && tl_py_is_tensor(x) && tl_dtype_is_complex(tl_py_t(x)->dtype);
}

static int64_t size_at(PyObject *x, int d)
{
  if (!x || !tl_py_is_tensor(x))
    return 0;
  const tl_tensor *t = tl_py_t(x);
  int k = d < 0 ? d + t->ndim : d;
  return k >= 0 && k < t->ndim ? t->shape[k] : 0;
}

static int rank_of(PyObject *x) { return x && tl_py_is_tensor(x) ? tl_py_t(x)->ndim : 0; }

static PyObject *H(tl_grad_ctx *c, PyObject *x) { return CALL("_linalg_adjoint", "O", x); }
/* Real and complex factors meet in these formulas (real eigenvalues, complex
 * vectors); matmul takes one dtype, so the real side is cast up first. */
static PyObject *as_dtype(tl_grad_ctx *c, PyObject *x, tl_dtype d)
{
  return tl_py_t(x)->dtype == d ? x : CALL("to", "OO", x, tl_py_dtype_obj(d));
}

static PyObject *mm(tl_grad_ctx *c, PyObject *a, PyObject *b)
{
  if (a && b && tl_py_t(a)->dtype != tl_py_t(b)->dtype) {
    tl_dtype d = tl_promote_types(tl_py_t(a)->dtype, tl_py_t(b)->dtype);
    a = as_dtype(c, a, d);
    b = as_dtype(c, b, d);
  }
  return CALL("matmul", "OO", a, b);
}
static PyObject *mul(tl_grad_ctx *c, PyObject *a, PyObject *b) { return CALL("mul", "OO", a, b); }
static PyObject *add(tl_grad_ctx *c, PyObject *a, PyObject *b) { return CALL("add", "OO", a, b); }
static PyObject *sub(tl_grad_ctx *c, PyObject *a, PyObject *b) { return CALL("sub", "OO", a, b); }
static PyObject *neg(tl_grad_ctx *c, PyObject *a) { return CALL("neg", "O", a); }
static PyObject *conj_of(tl_grad_ctx *c, PyObject *x) { return is_complex(x) ? CALL("conj", "O", x) : x; }
static PyObject *unsq(tl_grad_ctx *c, PyObject *x, int d) { return CALL("unsqueeze", "Oi", x, d); }
static PyObject *diag(tl_grad_ctx *c, PyObject *x) { return CALL("diagonal", "Oiii", x, 0, -2, -1); }
static PyObject *diag_embed(tl_grad_ctx *c, PyObject *v) { return CALL("diag_embed", "O", v); }

/* x[..., None, None]: a batch of scalars scaling a batch of matrices. */
static PyObject *per_matrix(tl_grad_ctx *c, PyObject *x) { return unsq(c, unsq(c, x, -1), -1); }

/* M diag(v) and diag(v) M for a batch of vectors v. */
static PyObject *scale_cols(tl_grad_ctx *c, PyObject *m, PyObject *v) { return mul(c, m, unsq(c, v, -2)); }
static PyObject *scale_rows(tl_grad_ctx *c, PyObject *m, PyObject *v) { return mul(c, m, unsq(c, v, -1)); }

static PyObject *item(tl_grad_ctx *c, PyObject *tuple, Py_ssize_t i)
{
  if (!tuple || PyErr_Occurred())
    return NULL;
  if (!PyTuple_Check(tuple) || i >= PyTuple_GET_SIZE(tuple))
    return PyErr_Format(PyExc_RuntimeError, "%U: expected a tuple result", c->node->name);
  return PyTuple_GET_ITEM(tuple, i);
}

static PyObject *real_dtype(PyObject *x)
{
  return tl_py_dtype_obj(tl_dtype_to_real(tl_py_t(x)->dtype));
}

/* The n x n identity of x's real dtype, on x's device (x a tensor). */
static PyObject *eye(tl_grad_ctx *c, int64_t n, PyObject *x)
{
  if (!x || PyErr_Occurred())
    return NULL;
  PyObject *device = tl_grad_keep(c, PyObject_GetAttrString(x, "device"));
  return CALL("eye", "n|{s:O,s:O}", (Py_ssize_t)n, "dtype", real_dtype(x), "device", device);
}

/* 1 - I: zero on the diagonal. */
static PyObject *off_diagonal(tl_grad_ctx *c, int64_t n, PyObject *x)
{
  return CALL("add", "Od", neg(c, eye(c, n, x)), 1.0);
}

/* The rows x cols mask of a triangle (tril(ones, k) or triu(ones, k)). */
static PyObject *triangle_rect(tl_grad_ctx *c, int64_t rows, int64_t cols, PyObject *x, bool upper,
                               int k)
{
  if (!x || PyErr_Occurred())
    return NULL;
  PyObject *device = tl_grad_keep(c, PyObject_GetAttrString(x, "device"));
  PyObject *ones = CALL("ones", "nn|{s:O,s:O}", (Py_ssize_t)rows, (Py_ssize_t)cols, "dtype",
                        real_dtype(x), "device", device);
  return CALL(upper ? "triu" : "tril", "Oi", ones, k);
}

static PyObject *triangle(tl_grad_ctx *c, int64_t n, PyObject *x, bool upper, int k)
{
  return triangle_rect(c, n, n, x, upper, k);
}

/* The part of matrix m in the triangle (tril(m, k) / triu(m, k)), by a mask. */
static PyObject *tri_part(tl_grad_ctx *c, PyObject *m, bool upper, int k)
{
  return mul(c, m, triangle_rect(c, size_at(m, -2), size_at(m, -1), m, upper, k));
}

/* Phi(M): the lower triangle of M with its diagonal halved. */
static PyObject *phi(tl_grad_ctx *c, PyObject *m)
{
  int64_t n = size_at(m, -1);
  PyObject *half_eye = CALL("mul", "Od", eye(c, n, m), 0.5);
  PyObject *mask = sub(c, triangle(c, n, m, false, 0), half_eye);
  return mul(c, m, mask);
}

/* F with F_ij = 1 / (v_j - v_i) off the diagonal, 0 on it (v a batch of
 * vectors).  The diagonal of the difference is exactly zero; adding I there
 * keeps every entry finite, so no NaN reaches a second derivative. */
static PyObject *inverse_gaps(tl_grad_ctx *c, PyObject *v)
{
  int64_t n = size_at(v, -1);
  PyObject *gaps = sub(c, unsq(c, v, -2), unsq(c, v, -1));
  PyObject *id = eye(c, n, v);
  return CALL("div", "OO", off_diagonal(c, n, v), add(c, gaps, id));
}

/* i Im(z) = (z - conj(z)) / 2, and Re(z) = (z + conj(z)) / 2, kept complex. */
static PyObject *i_imag(tl_grad_ctx *c, PyObject *z)
{
  return CALL("mul", "Od", sub(c, z, CALL("conj", "O", z)), 0.5);
}
static PyObject *re(tl_grad_ctx *c, PyObject *z)
{
  return is_complex(z) ? CALL("mul", "Od", add(c, z, CALL("conj", "O", z)), 0.5) : z;
}

static double max_abs(tl_grad_ctx *c, PyObject *x)
{
  PyObject *v = x && tl_tensor_numel(tl_py_t(x)) ? CALL("item", "O", CALL("amax", "O", CALL("abs", "O", x)))
                                                 : NULL;
  return v ? PyFloat_AsDouble(v) : 0.0;
}

/* Complex eigen/singular vectors are defined up to a phase e^{i phi} per
 * column; a loss that depends on it has no gradient.  Its sign is a nonzero
 * Im diag(V^H gV) (summed with U's for the SVD).  Raises, as PyTorch does,
 * rather than return the gradient of one arbitrary phase choice. */
static void check_gauge(tl_grad_ctx *c, PyObject *d, PyObject *j, const char *fn)
{
  if (!d || !is_complex(d) || PyErr_Occurred())
    return;
  double tol = (tl_py_t(d)->dtype == TL_DTYPE_C64 ? 1e-3 : 1e-6) * (1.0 + max_abs(c, j));
  double im = max_abs(c, i_imag(c, d));
  if (PyErr_Occurred() || im <= tol)
    return;
  char value[32]; /* PyErr_Format has no %g (Python 3.12 raises SystemError on it) */
  snprintf(value, sizeof value, "%.3g", im);
  PyErr_Format(PyExc_RuntimeError, "%s: the complex vectors are defined up to a phase e^{i phi} "
               "each, and the loss depends on that choice (|Im diag(V^H gV)| = %s), so its "
               "gradient is not defined; use a loss invariant under the phase (e.g. of |V|, or "
               "of U diag(S) Vh)", fn, value);
}

static bool flag(PyObject *o, bool dflt)
{
  if (!o || o == Py_None)
    return dflt;
  int r = PyObject_IsTrue(o);
  return r < 0 ? dflt : r;
}

/* Send grad to input, taking the real part first for a real input (the
 * gradient of eig's complex results reaches a real A). */
/* Is b a batch of vectors for a x = b (torchlike.linalg.solve's rule)? */
static bool rhs_is_vector(PyObject *a, PyObject *b)
{
  if (!tl_py_is_tensor(a) || !tl_py_is_tensor(b))
    return false;
  const tl_tensor *ta = tl_py_t(a), *tb = tl_py_t(b);
  if (tb->ndim == 1)
    return true;
  if (tb->ndim != ta->ndim - 1)
    return false;
  for (int d = 0; d < tb->ndim; d++)
    if (tb->shape[d] != ta->shape[d])
      return false;
  return true;
}

/* A tensor argument, converted when the call got a list (it needs no grad). */
static PyObject *tensor_of(tl_grad_ctx *c, PyObject *x)
{
  if (!x || PyErr_Occurred() || tl_py_is_tensor(x))
    return x;
  return CALL("tensor", "O|{s:O}", x, "device", tl_grad_device(c));
}

/* ---- solve, inverse, determinants ---------------------------------------------------- */

/* X = A^-1 B (left) or B A^-1: gB = A^-H g (g A^-H), gA = -gB X^H (-X^H gB). */
static void solve_backward(tl_grad_ctx *c)
{
  PyObject *a = ARG(0, "A"), *b = ARG(1, "B"), *x = R(0), *g = G(0);
  bool left = flag(ARG(2, "left"), true);
  if (!NEEDS(a) && !NEEDS(b))
    return;
  PyObject *gb = CALL("_linalg_solve", "OOO", H(c, X(0, "A")), g, left ? Py_True : Py_False);
  SEND(b, gb);
  if (!NEEDS(a))
    return;
  if (left && rhs_is_vector(a, tensor_of(c, b)))
    SEND(a, neg(c, mul(c, unsq(c, gb, -1), unsq(c, conj_of(c, x), -2))));
  else
    SEND(a, neg(c, left ? mm(c, gb, H(c, x)) : mm(c, H(c, x), gb)));
}

/* Y = A^-1: gA = -Y^H g Y^H. */
static void inv_backward(tl_grad_ctx *c)
{
  PyObject *yh = H(c, R(0));
  SEND(ARG(0, "A"), neg(c, mm(c, mm(c, yh, G(0)), yh)));
}

/* d det / dA = adj(A)^T, so gA = g adj(A)^H.  adj(A) = det(A) A^-1 when A is
 * invertible; through A = U S V^H it is det(V^H) det(U) V adj(S) U^H with
 * adj(S)_i = prod_{j != i} s_j, finite for any A. */
static void det_backward(tl_grad_ctx *c)
{
  PyObject *a = X(0, "A"), *g = G(0), *d = R(0);
  if (!NEEDS(a))
    return;
  PyObject *inv = CALL("_linalg_inv_ex", "O", a);
  PyObject *ok = CALL("all", "O", CALL("eq", "Oi", item(c, inv, 1), 0));
  int invertible = ok ? PyObject_IsTrue(ok) : -1;
  if (invertible < 0)
    return;
  if (invertible) {
    PyObject *k = per_matrix(c, mul(c, g, conj_of(c, d)));
    SEND(a, mul(c, k, H(c, item(c, inv, 0))));
    return;
  }
  PyObject *usv = CALL("_linalg_svd", "OOO", a, Py_False, Py_True);
  PyObject *u = item(c, usv, 0), *s = item(c, usv, 1), *vh = item(c, usv, 2);
  int64_t n = size_at(s, -1);
  /* row i of (s broadcast, 1 on the diagonal) multiplies the s_j with j != i */
  PyObject *others = add(c, mul(c, unsq(c, s, -2), off_diagonal(c, n, s)), eye(c, n, s));
  PyObject *adj_s = CALL("prod", "Oi", others, -1);
  PyObject *phase = mul(c, CALL("_linalg_det", "O", u), CALL("_linalg_det", "O", vh));
  PyObject *k = per_matrix(c, mul(c, g, conj_of(c, phase)));
  SEND(a, mul(c, k, mm(c, scale_cols(c, u, adj_s), vh)));
}

/* d log|det A| = Re tr(A^-1 dA): g_l A^-H.  For complex A the sign moves too:
 * d sign = sign i Im tr(A^-1 dA), adding -i Im(conj(g_s) sign) A^-H. */
static void slogdet_backward(tl_grad_ctx *c)
{
  PyObject *a = X(0, "A");
  if (!NEEDS(a))
    return;
  PyObject *k = G(1);
  if (is_complex(a) && tl_grad_has_out(c, 0))
    k = sub(c, k, i_imag(c, mul(c, CALL("conj", "O", G(0)), R(0))));
  PyObject *inv = item(c, CALL("_linalg_inv_ex", "O", a), 0);
  SEND(a, mul(c, per_matrix(c, k), H(c, inv)));
}

/* log det is holomorphic with derivative A^-T: gA = g A^-H. */
static void logdet_backward(tl_grad_ctx *c)
{
  PyObject *a = X(0, "A");
  if (!NEEDS(a))
    return;
  PyObject *inv = item(c, CALL("_linalg_inv_ex", "O", a), 0);
  SEND(a, mul(c, per_matrix(c, G(0)), H(c, inv)));
}

/* ---- triangular solves and factorisations ---------------------------------------------- */

static PyObject *solve_tri(tl_grad_ctx *c, PyObject *a, PyObject *b, bool upper, bool left, bool unit)
{
  return CALL("_linalg_solve_triangular", "OOOOO", a, b, upper ? Py_True : Py_False,
              left ? Py_True : Py_False, unit ? Py_True : Py_False);
}

/* X = A^-1 B with A triangular: as solve, gA kept to the triangle read. */
static void solve_triangular_backward(tl_grad_ctx *c)
{
  PyObject *a = ARG(0, "A"), *b = ARG(1, "B"), *x = R(0), *g = G(0);
  bool upper = flag(ARG(2, "upper"), false), left = flag(ARG(3, "left"), true);
  bool unit = flag(ARG(4, "unitriangular"), false);
  if (!NEEDS(a) && !NEEDS(b))
    return;
  PyObject *gb = solve_tri(c, H(c, X(0, "A")), g, !upper, left, unit);
  SEND(b, gb);
  if (!NEEDS(a))
    return;
  PyObject *ga = neg(c, left ? mm(c, gb, H(c, x)) : mm(c, H(c, x), gb));
  int k = unit ? (upper ? 1 : -1) : 0;
  SEND(a, mul(c, ga, triangle(c, size_at(a, -1), ga, upper, k)));
}

/* A = L L^H: dL = L Phi(L^-1 dA L^-H), so on Hermitian dA the gradient is
 * gA = L^-H P L^-1 for any P with the Hermitian part of Phi(M), M = L^H gL.
 * PyTorch's choice, taken here: P = (tril(M) + tril(M, -1)^H) / 2, Hermitian
 * but for the imaginary part of its diagonal.  upper=True returns U = L^H. */
static void cholesky_backward(tl_grad_ctx *c)
{
  PyObject *a = ARG(0, "A");
  if (!NEEDS(a))
    return;
  bool upper = flag(ARG(1, "upper"), false);
  PyObject *l = R(0), *gl = G(0);
  if (upper) {
    l = H(c, l);
    gl = H(c, gl);
  }
  PyObject *m = mm(c, H(c, l), gl);
  PyObject *p = CALL("mul", "Od", add(c, tri_part(c, m, false, 0), H(c, tri_part(c, m, false, -1))), 0.5);
  PyObject *z = solve_tri(c, H(c, l), p, true, true, false);
  SEND(a, solve_tri(c, l, z, false, false, false));
}

/* QR of a matrix with m >= n columns kept (Q m x n, R n x n):
 *   gA = [gQ + Q (K - Q^H gQ)] R^-H,  K = gR R^H + Phi(N - N^H),
 *   N = Q^H gQ - gR R^H.                                                 */
static PyObject *qr_tall(tl_grad_ctx *c, PyObject *q, PyObject *r, PyObject *gq, PyObject *gr)
{
  PyObject *qgq = mm(c, H(c, q), gq), *grr = mm(c, gr, H(c, r));
  PyObject *n = sub(c, qgq, grr);
  PyObject *k = add(c, grr, phi(c, sub(c, n, H(c, n))));
  PyObject *y = add(c, gq, mm(c, q, sub(c, k, qgq)));
  return solve_tri(c, H(c, r), y, false, false, false);
}

static void qr_backward(tl_grad_ctx *c)
{
  PyObject *a = ARG(0, "A");
  if (!NEEDS(a))
    return;
  PyObject *mode = ARG(1, "mode");
  const char *m_ = mode && PyUnicode_Check(mode) ? PyUnicode_AsUTF8(mode) : "reduced";
  PyObject *q = R(0), *r = R(1);
  int64_t m = size_at(a, -2), n = size_at(a, -1);
  if (!m_ || !q || !r)
    return;
  if (!strcmp(m_, "r")) {
    PyErr_SetString(PyExc_RuntimeError, "linalg.qr: the derivative needs Q, which mode='r' does "
                    "not compute; use mode='reduced' to differentiate through linalg.qr");
    return;
  }
  if (!strcmp(m_, "complete") && m > n) {
    PyErr_Format(PyExc_RuntimeError, "linalg.qr: mode='complete' is not differentiable when A "
                 "has more rows than columns (%lld > %lld): the last %lld columns of Q are any "
                 "orthonormal completion", (long long)m, (long long)n, (long long)(m - n));
    return;
  }
  PyObject *gq = G(0), *gr = G(1);
  if (m >= n) {
    SEND(a, qr_tall(c, q, r, gq, gr));
    return;
  }
  /* A = Q [R1 R2] with X = Q R1 square and Y = Q R2: gY = Q gR2, and X's QR
   * sees gQ + Y gR2^H. */
  PyObject *r1 = CALL("narrow", "Oinn", r, -1, (Py_ssize_t)0, (Py_ssize_t)m);
  PyObject *r2 = CALL("narrow", "Oinn", r, -1, (Py_ssize_t)m, (Py_ssize_t)(n - m));
  PyObject *gr1 = CALL("narrow", "Oinn", gr, -1, (Py_ssize_t)0, (Py_ssize_t)m);
  PyObject *gr2 = CALL("narrow", "Oinn", gr, -1, (Py_ssize_t)m, (Py_ssize_t)(n - m));
  PyObject *y = mm(c, q, r2);
  PyObject *gx = qr_tall(c, q, r1, add(c, gq, mm(c, y, H(c, gr2))), gr1);
  PyObject *gy = mm(c, q, gr2);
  PyObject *parts = gx && gy ? tl_grad_keep(c, Py_BuildValue("[OO]", gx, gy)) : NULL;
  if (parts)
    SEND(a, CALL("cat", "Oi", parts, -1));
}

/* ---- spectral decompositions ----------------------------------------------------------- */

/* A = U S V^H (U m x k, V n x k).  With J_U = U^H gU, J_V = V^H gV and
 * F_ij = 1 / (s_j^2 - s_i^2):
 *   K  = (F o (J_U - J_U^H)) S + S (F o (J_V - J_V^H)) + diag(gS)
 *        [+ diag(i Im diag(J_U) / S) for complex A]
 *   gA = U K V^H + (gU - U J_U) S^-1 V^H + U S^-1 (gV^H - J_V^H V^H)
 * the last two only where U or V is not square. */
static PyObject *svd_grad(tl_grad_ctx *c, PyObject *u, PyObject *s, PyObject *vh, PyObject *gu,
                          PyObject *gs, PyObject *gvh)
{
  int64_t m = size_at(u, -2), n = size_at(vh, -1), k = size_at(s, -1);
  PyObject *kk = gs ? diag_embed(c, gs) : NULL;
  if (!gu && !gvh) /* values only */
    return mm(c, scale_cols(c, u, gs), vh);
  PyObject *f = inverse_gaps(c, mul(c, s, s));
  PyObject *ju = NULL, *jv = NULL, *term;
  if (gu) {
    ju = mm(c, H(c, u), gu);
    term = scale_cols(c, mul(c, f, sub(c, ju, H(c, ju))), s);
    if (is_complex(u))
      term = add(c, term, diag_embed(c, CALL("div", "OO", i_imag(c, diag(c, ju)), s)));
    kk = kk ? add(c, kk, term) : term;
  }
  if (gvh) {
    jv = mm(c, vh, H(c, gvh)); /* V^H gV */
    term = scale_rows(c, mul(c, f, sub(c, jv, H(c, jv))), s);
    kk = kk ? add(c, kk, term) : term;
  }
  if (is_complex(u)) {
    PyObject *d = ju && jv ? add(c, diag(c, ju), diag(c, jv)) : diag(c, ju ? ju : jv);
    check_gauge(c, d, ju ? ju : jv, "linalg.svd");
  }
  PyObject *ga = mm(c, mm(c, u, kk), vh);
  if (gu && m > k)
    ga = add(c, ga, mm(c, CALL("div", "OO", sub(c, gu, mm(c, u, ju)), unsq(c, s, -2)), vh));
  if (gvh && n > k)
    ga = add(c, ga, mm(c, u, CALL("div", "OO", sub(c, gvh, mm(c, H(c, jv), vh)), unsq(c, s, -1))));
  return ga;
}

static PyObject *narrow_to(tl_grad_ctx *c, PyObject *x, int dim, int64_t k)
{
  if (!x || size_at(x, dim) == k)
    return x;
  return CALL("narrow", "Oinn", x, dim, (Py_ssize_t)0, (Py_ssize_t)k);
}

static void svd_backward(tl_grad_ctx *c)
{
  PyObject *a = ARG(0, "A");
  if (!NEEDS(a))
    return;
  if (!flag(ARG(2, "compute_uv"), true)) { /* svdvals: the result is S alone */
    PyObject *usv = CALL("_linalg_svd", "OOO", X(0, "A"), Py_False, Py_True);
    SEND(a, svd_grad(c, item(c, usv, 0), item(c, usv, 1), item(c, usv, 2), NULL, G(0), NULL));
    return;
  }
  PyObject *s = R(1);
  int64_t k = size_at(s, -1);
  PyObject *u = narrow_to(c, R(0), -1, k), *vh = narrow_to(c, R(2), -2, k);
  PyObject *gu = tl_grad_has_out(c, 0) ? narrow_to(c, G(0), -1, k) : NULL;
  PyObject *gvh = tl_grad_has_out(c, 2) ? narrow_to(c, G(2), -2, k) : NULL;
  PyObject *gs = tl_grad_has_out(c, 1) ? G(1) : NULL;
  if (!gu && !gvh && !gs)
    return;
  if (!gs && !(gs = CALL("zeros_like", "O", s)))
    return;
  SEND(a, svd_grad(c, u, s, vh, gu, gs, gvh));
}

/* A = V diag(w) V^H: gA = V (diag(gw) + F o skew(V^H gV)) V^H with
 * F_ij = 1/(w_j - w_i) and skew(J) = (J - J^H)/2, a Hermitian gradient. */
static void eigh_backward(tl_grad_ctx *c)
{
  PyObject *a = ARG(0, "A");
  if (!NEEDS(a))
    return;
  PyObject *w, *v, *gw, *gv = NULL;
  if (!flag(ARG(2, "eigenvectors"), true)) {
    PyObject *uplo = ARG(1, "UPLO");
    if (!uplo)
      uplo = tl_grad_keep(c, PyUnicode_FromString("L"));
    PyObject *wv = CALL("_linalg_eigh", "OOO", X(0, "A"), uplo, Py_True);
    w = item(c, wv, 0), v = item(c, wv, 1), gw = G(0);
  } else {
    w = R(0), v = R(1), gw = G(0);
    if (tl_grad_has_out(c, 1))
      gv = G(1);
  }
  PyObject *k = diag_embed(c, gw);
  if (gv) { /* only the skew-Hermitian part of V^H gV moves V (PyTorch's projection) */
    PyObject *j = mm(c, H(c, v), gv);
    check_gauge(c, diag(c, j), j, "linalg.eigh");
    PyObject *skew = CALL("mul", "Od", sub(c, j, H(c, j)), 0.5);
    k = add(c, k, mul(c, inverse_gaps(c, w), skew));
  }
  SEND(a, mm(c, mm(c, v, k), H(c, v)));
}

/* A V = V diag(w) with unit-norm columns of V.  With J = V^H gV, G = V^H V
 * and F_ij = 1 / (w_j - w_i):
 *   gA = V^-H (diag(gw) + conj(F) o (J - G diag(Re diag J))) V^H        */
static void eig_backward(tl_grad_ctx *c)
{
  PyObject *a = ARG(0, "A");
  if (!NEEDS(a))
    return;
  PyObject *w, *v, *gv = NULL;
  if (!flag(ARG(1, "eigenvectors"), true)) {
    PyObject *wv = CALL("_linalg_eig", "OO", X(0, "A"), Py_True);
    w = item(c, wv, 0), v = item(c, wv, 1);
  } else {
    w = R(0), v = R(1);
    if (tl_grad_has_out(c, 1))
      gv = G(1);
  }
  PyObject *vh = H(c, v);
  PyObject *k = diag_embed(c, G(0));
  if (gv) {
    PyObject *j = mm(c, vh, gv);
    check_gauge(c, diag(c, j), j, "linalg.eig");
    PyObject *norm_fix = scale_cols(c, mm(c, vh, v), re(c, diag(c, j)));
    k = add(c, k, mul(c, inverse_gaps(c, CALL("conj", "O", w)), sub(c, j, norm_fix)));
  }
  SEND(a, CALL("_linalg_solve", "OO", vh, mm(c, k, vh)));
}

/* ---- pseudo-inverse, least squares ----------------------------------------------------- */

/* X = A^+ (constant rank):
 *   gA = -X^H g X^H + (I - A X) g^H X X^H + X^H X g^H (I - X A)         */
static PyObject *pinv_grad(tl_grad_ctx *c, PyObject *a, PyObject *x, PyObject *g)
{
  PyObject *xh = H(c, x), *gh = H(c, g);
  PyObject *t1 = neg(c, mm(c, mm(c, xh, g), xh));
  PyObject *m2 = mm(c, gh, mm(c, x, xh));
  PyObject *t2 = sub(c, m2, mm(c, a, mm(c, x, m2)));
  PyObject *m3 = mm(c, mm(c, xh, x), gh);
  PyObject *t3 = sub(c, m3, mm(c, mm(c, m3, x), a));
  return add(c, add(c, t1, t2), t3);
}

static void pinv_backward(tl_grad_ctx *c)
{
  PyObject *a = ARG(0, "A");
  if (NEEDS(a))
    SEND(a, pinv_grad(c, X(0, "A"), R(0), G(0)));
}

/* X = A^+ B: gB = (A^+)^H g, gA = pinv's gradient for g B^H. */
static void lstsq_backward(tl_grad_ctx *c)
{
  PyObject *a = ARG(0, "A"), *b = ARG(1, "B"), *g = G(0);
  if (!NEEDS(a) && !NEEDS(b))
    return;
  PyObject *av = tensor_of(c, X(0, "A")), *bv = tensor_of(c, X(1, "B"));
  bool vec = rank_of(bv) == rank_of(av) - 1;
  PyObject *p = CALL("_linalg_pinv", "O", av);
  if (vec) {
    bv = unsq(c, bv, -1);
    g = unsq(c, g, -1);
  }
  if (NEEDS(b)) {
    PyObject *gb = mm(c, H(c, p), g);
    SEND(b, vec ? CALL("squeeze", "Oi", gb, -1) : gb);
  }
  if (NEEDS(a))
    SEND(a, pinv_grad(c, av, p, mm(c, g, H(c, bv))));
}

/* ---- LU -------------------------------------------------------------------------------- */

/* A = P L U (L unit lower, U upper).  Square: L^-1 P^T dA U^-1 = L^-1 dL + dU U^-1
 * splits into its strict lower and upper parts, so
 *   gA = P L^-H (tril(L^H gL, -1) + triu(gU U^H)) U^-H.
 * Tall (m > n): P^T A = [L1; L2] U, and L2 = A2 U^-1 adds gA2 = gL2 U^-H and
 * -L2^H gA2 to gU.  Wide (m < n): P^T A = L [U1 U2], and U2 = L^-1 A2 adds
 * gA2 = L^-H gU2 and -gA2 U2^H to gL. */
static PyObject *lu_square(tl_grad_ctx *c, PyObject *l, PyObject *u, PyObject *gl, PyObject *gu)
{
  PyObject *k = add(c, tri_part(c, mm(c, H(c, l), gl), false, -1), tri_part(c, mm(c, gu, H(c, u)), true, 0));
  PyObject *y = solve_tri(c, H(c, l), k, true, true, true);
  return solve_tri(c, H(c, u), y, false, false, false);
}

static PyObject *narrow(tl_grad_ctx *c, PyObject *x, int dim, int64_t start, int64_t len)
{
  return CALL("narrow", "Oinn", x, dim, (Py_ssize_t)start, (Py_ssize_t)len);
}

static PyObject *cat2(tl_grad_ctx *c, PyObject *a, PyObject *b, int dim)
{
  PyObject *parts = a && b ? tl_grad_keep(c, Py_BuildValue("[OO]", a, b)) : NULL;
  return CALL("cat", "Oi", parts, dim);
}

static PyObject *lu_grad(tl_grad_ctx *c, PyObject *p, PyObject *l, PyObject *u, PyObject *gl,
                         PyObject *gu)
{
  int64_t m = size_at(l, -2), n = size_at(u, -1);
  PyObject *ga;
  if (m == n) {
    ga = lu_square(c, l, u, gl, gu);
  } else if (m > n) {
    PyObject *l2 = narrow(c, l, -2, n, m - n), *gl2 = narrow(c, gl, -2, n, m - n);
    PyObject *ga2 = solve_tri(c, H(c, u), gl2, false, false, false);
    PyObject *gu1 = sub(c, gu, mm(c, H(c, l2), ga2));
    ga = cat2(c, lu_square(c, narrow(c, l, -2, 0, n), u, narrow(c, gl, -2, 0, n), gu1), ga2, -2);
  } else {
    PyObject *u2 = narrow(c, u, -1, m, n - m), *gu2 = narrow(c, gu, -1, m, n - m);
    PyObject *ga2 = solve_tri(c, H(c, l), gu2, true, true, true);
    PyObject *gl1 = sub(c, gl, mm(c, ga2, H(c, u2)));
    ga = cat2(c, lu_square(c, l, narrow(c, u, -1, 0, m), gl1, narrow(c, gu, -1, 0, m)), ga2, -1);
  }
  return p == Py_None ? ga : mm(c, p, ga); /* None: no pivoting, A = L U */
}

/* _linalg_lu_factor(A, full): (P, L, U) when full, else the packed (LU, pivots);
 * _linalg_lu_factor_ex(A, pivot): (LU, pivots, info).  The packed LU holds L's
 * strict lower part and U, so its gradient splits the same way.  Without
 * pivoting (a device's pivot=False) A = L U, L and U read off LU itself. */
static void lu_factor_backward(tl_grad_ctx *c)
{
  PyObject *a = ARG(0, "A");
  if (!NEEDS(a))
    return;
  const bool plain = c->formula == TL_GRAD_LINALG_LU_FACTOR;
  bool full = plain && flag(ARG(1, "full"), false), pivot = plain || flag(ARG(1, "pivot"), true);
  if (full) {
    SEND(a, lu_grad(c, R(0), R(1), R(2), G(1), G(2)));
    return;
  }
  PyObject *g = G(0), *p = Py_None, *l, *u;
  int64_t m = size_at(g, -2), n = size_at(g, -1), k = m < n ? m : n;
  if (pivot) {
    PyObject *plu = CALL("_linalg_lu_factor", "OO", X(0, "A"), Py_True);
    p = item(c, plu, 0), l = item(c, plu, 1), u = item(c, plu, 2);
  } else {
    PyObject *f = R(0);
    l = add(c, narrow(c, tri_part(c, f, false, -1), -1, 0, k), narrow(c, eye(c, m, f), -1, 0, k));
    u = narrow(c, tri_part(c, f, true, 0), -2, 0, k);
  }
  PyObject *gl = narrow(c, tri_part(c, g, false, -1), -1, 0, k);
  PyObject *gu = narrow(c, tri_part(c, g, true, 0), -2, 0, k);
  SEND(a, lu_grad(c, p, l, u, gl, gu));
}

/* X = A^-1 B (left) or B A^-1, A^H in place of A when adjoint, A = P L U from
 * lu_factor.  gB is another lu_solve.  For the factors, gA = P M with M made
 * of triangular solves only (P cancels), then
 *   gL = tril(M U^H, -1), gU = triu(L^H M), gLU = gL + gU.               */
static void lu_solve_backward(tl_grad_ctx *c)
{
  PyObject *lu = ARG(0, "LU"), *piv = ARG(1, "pivots"), *b = ARG(2, "B"), *x = R(0), *g = G(0);
  bool left = flag(ARG(3, "left"), true), adjoint = flag(ARG(4, "adjoint"), false);
  if (!NEEDS(lu) && !NEEDS(b))
    return;
  PyObject *luv = X(0, "LU");
  PyObject *gb = CALL("_linalg_lu_solve", "OOOOO", luv, piv, g, left ? Py_True : Py_False,
                      adjoint ? Py_False : Py_True);
  SEND(b, gb);
  if (!NEEDS(lu))
    return;
  int64_t n = size_at(luv, -1);
  PyObject *l = add(c, tri_part(c, luv, false, -1), eye(c, n, luv));
  PyObject *u = tri_part(c, luv, true, 0);
  PyObject *m;
  if (left) { /* L^-H U^-H y: P^T gB (not adjoint) or P^T X (adjoint) */
    PyObject *y = adjoint ? tensor_of(c, X(2, "B")) : g;
    PyObject *z = solve_tri(c, H(c, l), solve_tri(c, H(c, u), y, false, true, false), true, true, true);
    m = neg(c, adjoint ? mm(c, z, H(c, gb)) : mm(c, z, H(c, x)));
  } else { /* y U^-1 L^-1: X P (not adjoint) or gB P (adjoint) */
    PyObject *y = adjoint ? g : tensor_of(c, X(2, "B"));
    PyObject *z = solve_tri(c, l, solve_tri(c, u, y, true, false, false), false, false, true);
    m = neg(c, adjoint ? mm(c, H(c, z), x) : mm(c, H(c, z), gb));
  }
  SEND(lu, add(c, tri_part(c, mm(c, m, H(c, u)), false, -1), tri_part(c, mm(c, H(c, l), m), true, 0)));
}

/* ---- products and norms ---------------------------------------------------------------- */

/* c = a x b: ga = conj(b) x g, gb = g x conj(a). */
static void cross_backward(tl_grad_ctx *c)
{
  PyObject *a = ARG(0, "input"), *b = ARG(1, "other"), *g = G(0);
  PyObject *dim = ARG(2, "dim");
  PyObject *d = dim ? dim : tl_grad_keep(c, PyLong_FromLong(-1));
  if (NEEDS(a))
    SEND(a, CALL("_linalg_cross", "OOO", conj_of(c, tensor_of(c, X(1, "other"))), g, d));
  if (NEEDS(b))
    SEND(b, CALL("_linalg_cross", "OOO", g, conj_of(c, tensor_of(c, X(0, "input"))), d));
}

/* sum_{k<n} (A^H)^k g (A^H)^(n-1-k), for n > 0. */
static PyObject *power_grad(tl_grad_ctx *c, PyObject *a, PyObject *g, long long n)
{
  PyObject *ah = H(c, a);
  PyObject *pows = tl_grad_keep(c, PyList_New(0));
  PyObject *p = NULL;
  for (long long k = 0; pows && k < n; k++) { /* pows[k] = (A^H)^k, pows[0] unused */
    p = k == 0 ? Py_None : k == 1 ? ah : mm(c, p, ah);
    if (!p || PyList_Append(pows, p) < 0)
      return NULL;
  }
  PyObject *sum = NULL;
  for (long long k = 0; pows && k < n && !PyErr_Occurred(); k++) {
    PyObject *left = PyList_GET_ITEM(pows, k), *right = PyList_GET_ITEM(pows, n - 1 - k);
    PyObject *t = g;
    if (left != Py_None)
      t = mm(c, left, t);
    if (right != Py_None)
      t = mm(c, t, right);
    sum = sum ? add(c, sum, t) : t;
  }
  return sum;
}

static void matrix_power_backward(tl_grad_ctx *c)
{
  PyObject *a = ARG(0, "A");
  if (!NEEDS(a))
    return;
  long long n = PyLong_AsLongLong(ARG(1, "n"));
  if (n == -1 && PyErr_Occurred())
    return;
  if (n == 0) {
    SEND(a, CALL("zeros_like", "O", a));
  } else if (n > 0) {
    SEND(a, power_grad(c, X(0, "A"), G(0), n));
  } else { /* A^n = (A^-1)^|n|: through B = A^-1, gA = -B^H gB B^H */
    PyObject *bh = H(c, CALL("_linalg_inv", "O", X(0, "A")));
    PyObject *gb = power_grad(c, H(c, bh), G(0), -n);
    SEND(a, neg(c, mm(c, mm(c, bh, gb), bh)));
  }
}

/* r = (sum |x|^p)^(1/p): gx = g sgn(x) |x|^(p-1) / r^(p-1); p = 2: g x / r;
 * p = 1: g sgn(x); p = +-inf: g sgn(x) split evenly among the entries whose
 * |x| is the extreme; p = 0: zero.  Where r = 0 (all of x zero) the gradient
 * is 0, as PyTorch's: r and |x| are replaced by 1 there before dividing, and
 * sgn(0) = 0 does the rest, so no inf or NaN appears at any order. */
/* vector_norm(x, ord=2, dim=None, keepdim=False): torchlike.norm's formula. */
static void vector_norm_backward(tl_grad_ctx *c)
{
  PyObject *x = ARG(0, "x");
  if (!NEEDS(x))
    return;
  x = X(0, "x");
  PyObject *ordo = ARG(1, "ord");
  double p = ordo ? PyFloat_AsDouble(ordo) : 2.0;
  if (p == -1.0 && PyErr_Occurred())
    return;
  PyObject *dim = ARG(2, "dim"), *keep = ARG(3, "keepdim");
  if (!dim)
    dim = Py_None;
  PyObject *g = tl_grad_unreduce(c, G(0), x, dim, keep);
  PyObject *r = tl_grad_unreduce(c, R(0), x, dim, keep);
  SEND(x, tl_grad_norm_backward(c, g, x, r, p, dim));
}

static void backward(tl_grad_ctx *c)
{
  switch (c->formula) {
  case TL_GRAD_LINALG_SOLVE:
  case TL_GRAD_LINALG_SOLVE_EX: solve_backward(c); break;
  case TL_GRAD_LINALG_INV:
  case TL_GRAD_LINALG_INV_EX: inv_backward(c); break;
  case TL_GRAD_LINALG_DET: det_backward(c); break;
  case TL_GRAD_LINALG_SLOGDET: slogdet_backward(c); break;
  case TL_GRAD_LINALG_LOGDET: logdet_backward(c); break;
  case TL_GRAD_LINALG_CHOLESKY:
  case TL_GRAD_LINALG_CHOLESKY_EX: cholesky_backward(c); break;
  case TL_GRAD_LINALG_QR: qr_backward(c); break;
  case TL_GRAD_LINALG_SVD: svd_backward(c); break;
  case TL_GRAD_LINALG_EIGH: eigh_backward(c); break;
  case TL_GRAD_LINALG_EIG: eig_backward(c); break;
  case TL_GRAD_LINALG_LSTSQ: lstsq_backward(c); break;
  case TL_GRAD_LINALG_PINV: pinv_backward(c); break;
  case TL_GRAD_LINALG_CROSS: cross_backward(c); break;
  case TL_GRAD_LINALG_MATRIX_POWER: matrix_power_backward(c); break;
  case TL_GRAD_LINALG_VECTOR_NORM: vector_norm_backward(c); break;
  case TL_GRAD_LINALG_SOLVE_TRIANGULAR: solve_triangular_backward(c); break;
  case TL_GRAD_LINALG_ADJOINT: SEND(ARG(0, "A"), H(c, G(0))); break;
  case TL_GRAD_LINALG_LU_FACTOR:
  case TL_GRAD_LINALG_LU_FACTOR_EX: lu_factor_backward(c); break;
  case TL_GRAD_LINALG_LU_SOLVE: lu_solve_backward(c); break;
  }
}

void tl_grad_formulas_linalg_init(void)
{
  static const int ids[] = {
      TL_GRAD_LINALG_SOLVE, TL_GRAD_LINALG_SOLVE_EX, TL_GRAD_LINALG_INV,
      TL_GRAD_LINALG_INV_EX, TL_GRAD_LINALG_DET, TL_GRAD_LINALG_SLOGDET,
      TL_GRAD_LINALG_LOGDET, TL_GRAD_LINALG_CHOLESKY, TL_GRAD_LINALG_CHOLESKY_EX,
      TL_GRAD_LINALG_QR, TL_GRAD_LINALG_SVD, TL_GRAD_LINALG_EIGH,
      TL_GRAD_LINALG_EIG, TL_GRAD_LINALG_LSTSQ, TL_GRAD_LINALG_PINV,
      TL_GRAD_LINALG_CROSS, TL_GRAD_LINALG_MATRIX_POWER, TL_GRAD_LINALG_VECTOR_NORM,
      TL_GRAD_LINALG_SOLVE_TRIANGULAR, TL_GRAD_LINALG_ADJOINT, TL_GRAD_LINALG_LU_FACTOR,
      TL_GRAD_LINALG_LU_FACTOR_EX, TL_GRAD_LINALG_LU_SOLVE,
  };
  TL_GRAD_REGISTER(ids, backward, 0);
  /* what the formulas above never read back: the tape keeps shapes only */
  static const int result_only[] = {TL_GRAD_LINALG_INV, TL_GRAD_LINALG_INV_EX, TL_GRAD_LINALG_CHOLESKY,
                                    TL_GRAD_LINALG_CHOLESKY_EX, TL_GRAD_LINALG_QR};
  static const int input_only[] = {TL_GRAD_LINALG_LOGDET, TL_GRAD_LINALG_LSTSQ, TL_GRAD_LINALG_CROSS,
                                   TL_GRAD_LINALG_MATRIX_POWER};
  TL_GRAD_DROP(result_only, TL_GRAD_DROP_INPUTS);
  TL_GRAD_DROP(input_only, TL_GRAD_DROP_OUTPUTS);
  tl_grad_drops(TL_GRAD_LINALG_ADJOINT, TL_GRAD_DROP_INPUTS | TL_GRAD_DROP_OUTPUTS);
}
