/* py_linalg.c - the matrix products (ops.def, MATMUL) and the torchlike.linalg
 * functions (module functions _C._linalg_*, wrapped by torchlike/linalg.py).
 *
 * Their arguments are bound by generated code from signatures.txt ([matmul],
 * [linalg]); the tl_py_impl_* here run them.  Operands are TensorLike:
 * tensors, or anything tl_py_to_tensor takes (lists, arrays), converted for
 * the call and released by the binder.                                    */
#include "ndcore/tensor/tl_backend.h"
#include "ndcore/bindings/generated/bindings.h"
#include "ndcore/linalg/tl_linalg.h"

/* Wrap a result, or copy it into out= (same shape; dtype cast as PyTorch's
 * out= allows for same-kind results). */
static PyObject *finish(tl_tensor *r, PyObject *out, const char *func)
{
  if (!out || out == Py_None)
    return tl_py_tensor_from(r);
  PyObject *ret = NULL;
  char s1[128], s2[128];
  if (!tl_py_is_tensor(out)) {
    PyErr_Format(PyExc_TypeError, "%s(): argument 'out' must be Tensor, not %s", func,
                 Py_TYPE(out)->tp_name);
    goto done;
  }
  tl_tensor *o = tl_py_t(out);
  if (o->ndim != r->ndim || memcmp(o->shape, r->shape, sizeof(int64_t) * (size_t)r->ndim)) {
    PyErr_Format(PyExc_RuntimeError, "%s(): out has shape %s but the result has shape %s", func,
                 tl_shape_str(s1, sizeof s1, o->ndim, o->shape),
                 tl_shape_str(s2, sizeof s2, r->ndim, r->shape));
    goto done;
  }
  if (!tl_can_cast(r->dtype, o->dtype)) {
    PyErr_Format(PyExc_RuntimeError, "%s(): result type %s can't be cast to the desired output "
                 "type %s", func, tl_dtype_names[r->dtype], tl_dtype_names[o->dtype]);
    goto done;
  }
  if (tl_tensor_copy(o, r) != TL_OK) {
    tl_py_raise();
    goto done;
  }
  ret = Py_NewRef(out);
done:
  tl_tensor_release(r);
  return ret;
}

/* ---- products (ops.def MATMUL) ------------------------------------------------------ */

/* tensordot's dims: an int n (last n of a with first n of b) or a pair of
 * sequences (or ints). */
int tl_py_tensordot_dims(PyObject *dims, const tl_tensor *a, const tl_tensor *b, int *n,
                                int64_t *da, int64_t *db)
{
  if (!dims) {
    *n = 2;
  } else if (PyIndex_Check(dims)) {
    long long k = PyLong_AsLongLong(dims);
    if (k == -1 && PyErr_Occurred())
      return -1;
    if (k < 0) {
      PyErr_Format(PyExc_RuntimeError, "tensordot expects dims >= 0, but got dims=%lld", k);
      return -1;
    }
    if (k > a->ndim || k > b->ndim) {
      PyErr_Format(PyExc_RuntimeError, "tensordot expects dims < ndim_a or ndim_b, but got "
                   "dims=%lld", k);
      return -1;
    }
    *n = (int)k;
    for (int i = 0; i < *n; i++) {
      da[i] = a->ndim - *n + i;
      db[i] = i;
    }
    return 0;
  } else {
    PyObject *seq = PySequence_Fast(dims, "tensordot: dims must be an int or a pair of lists");
    if (!seq)
      return -1;
    int r = -1;
    if (PySequence_Fast_GET_SIZE(seq) != 2) {
      PyErr_SetString(PyExc_RuntimeError, "tensordot expects dims to be a pair of lists");
      goto out;
    }
    int counts[2];
    int64_t *dst[2] = {da, db};
    for (int s = 0; s < 2; s++) {
      PyObject *item = PySequence_Fast_GET_ITEM(seq, s);
      PyObject *inner = PyIndex_Check(item) ? PyTuple_Pack(1, item)
                                            : PySequence_Fast(item, "tensordot: dims entries must "
                                                                    "be ints or lists of ints");
      if (!inner)
        goto out;
      Py_ssize_t m = PySequence_Fast_GET_SIZE(inner);
      if (m > TL_MAX_DIMS) {
        Py_DECREF(inner);
        PyErr_SetString(PyExc_RuntimeError, "tensordot: too many dims");
        goto out;
      }
      counts[s] = (int)m;
      for (Py_ssize_t i = 0; i < m; i++) {
        dst[s][i] = PyLong_AsLongLong(PySequence_Fast_GET_ITEM(inner, i));
        if (dst[s][i] == -1 && PyErr_Occurred()) {
          Py_DECREF(inner);
          goto out;
        }
      }
      Py_DECREF(inner);
    }
    if (counts[0] != counts[1]) {
      PyErr_Format(PyExc_RuntimeError, "both dimension lists should have same length, got %d and "
                   "%d", counts[0], counts[1]);
      goto out;
    }
    *n = counts[0];
    r = 0;
  out:
    Py_DECREF(seq);
    return r;
  }
  for (int i = 0; i < *n; i++) {
    da[i] = a->ndim - *n + i;
    db[i] = i;
  }
  if (*n > a->ndim || *n > b->ndim) {
    PyErr_Format(PyExc_RuntimeError, "tensordot expects dims < ndim_a or ndim_b, but got dims=%d",
                 *n);
    return -1;
  }
  return 0;
}

/* matmul, dot, vdot, inner, kron, mm, bmm, mv, outer, ger: two operands */
static PyObject *product_two(tl_op op, const tl_tensor *a, const tl_tensor *b, PyObject *out)
{
  static const tl_scalar one = {.kind = TL_KIND_INT, .v.i = 1}, zero = {.kind = TL_KIND_INT};
  tl_tensor r = {0};
  tl_status st;
  switch (op) {
  case TL_OP_MATMUL: st = tl_linalg_matmul(&r, a, b); break;
  case TL_OP_KRON: st = tl_linalg_kron(&r, a, b); break;
  case TL_OP_MM: st = tl_linalg_product(TL_PRODUCT_MM, &r, NULL, a, b, one, zero); break;
  case TL_OP_BMM: st = tl_linalg_product(TL_PRODUCT_BMM, &r, NULL, a, b, one, zero); break;
  case TL_OP_MV: st = tl_linalg_product(TL_PRODUCT_MV, &r, NULL, a, b, one, zero); break;
  case TL_OP_DOT: st = tl_linalg_product(TL_PRODUCT_DOT, &r, NULL, a, b, one, zero); break;
  case TL_OP_VDOT: st = tl_linalg_product(TL_PRODUCT_VDOT, &r, NULL, a, b, one, zero); break;
  case TL_OP_INNER: st = tl_linalg_product(TL_PRODUCT_INNER, &r, NULL, a, b, one, zero); break;
  default: /* outer, ger */
    st = tl_linalg_product(TL_PRODUCT_OUTER, &r, NULL, a, b, one, zero);
    break;
  }
  return st == TL_OK ? finish(&r, out, tl_op_infos[op].name) : tl_py_raise();
}

/* addmm, addbmm, baddbmm, addmv, addr: beta * input + alpha * (b @ c) */
static PyObject *product_add(tl_op op, const tl_tensor *input, const tl_tensor *b,
                             const tl_tensor *c, tl_scalar beta, tl_scalar alpha, PyObject *out)
{
  tl_product kind = op == TL_OP_ADDMM     ? TL_PRODUCT_ADDMM
                    : op == TL_OP_ADDBMM  ? TL_PRODUCT_ADDBMM
                    : op == TL_OP_BADDBMM ? TL_PRODUCT_BADDBMM
                    : op == TL_OP_ADDMV   ? TL_PRODUCT_ADDMV
                                          : TL_PRODUCT_ADDR;
  tl_tensor r = {0};
  if (tl_linalg_product(kind, &r, input, b, c, alpha, beta) != TL_OK)
    return tl_py_raise();
  return finish(&r, out, tl_op_infos[op].name);
}

PyObject *tl_py_impl_product(tl_op op, const tl_py_args_product *a)
{
  return product_two(op, a->input.t, a->other.t, a->out);
}

PyObject *tl_py_impl_product_mat2(tl_op op, const tl_py_args_product_mat2 *a)
{
  return product_two(op, a->input.t, a->mat2.t, a->out);
}

PyObject *tl_py_impl_product_vec(tl_op op, const tl_py_args_product_vec *a)
{
  return product_two(op, a->input.t, a->vec.t, a->out);
}

PyObject *tl_py_impl_product_vec2(tl_op op, const tl_py_args_product_vec2 *a)
{
  return product_two(op, a->input.t, a->vec2.t, a->out);
}

PyObject *tl_py_impl_addmm(tl_op op, const tl_py_args_addmm *a)
{
  return product_add(op, a->input.t, a->mat1.t, a->mat2.t, a->beta, a->alpha, a->out);
}

PyObject *tl_py_impl_addbmm(tl_op op, const tl_py_args_addbmm *a)
{
  return product_add(op, a->input.t, a->batch1.t, a->batch2.t, a->beta, a->alpha, a->out);
}

PyObject *tl_py_impl_addmv(tl_op op, const tl_py_args_addmv *a)
{
  return product_add(op, a->input.t, a->mat.t, a->vec.t, a->beta, a->alpha, a->out);
}

PyObject *tl_py_impl_addr(tl_op op, const tl_py_args_addr *a)
{
  return product_add(op, a->input.t, a->vec1.t, a->vec2.t, a->beta, a->alpha, a->out);
}

PyObject *tl_py_impl_tensordot(tl_op op, const tl_py_args_tensordot *a)
{
  int n;
  int64_t da[TL_MAX_DIMS], db[TL_MAX_DIMS];
  tl_tensor r = {0};
  if (tl_py_tensordot_dims(a->dims, a->a.t, a->b.t, &n, da, db) < 0)
    return NULL;
  if (tl_linalg_tensordot(&r, a->a.t, a->b.t, n, da, db) != TL_OK)
    return tl_py_raise();
  return finish(&r, a->out, tl_op_infos[op].name);
}

PyObject *tl_py_impl_trace(tl_op op, const tl_py_args_trace *a)
{
  (void)op;
  tl_tensor r = {0};
  if (tl_linalg_trace(&r, a->input.t) != TL_OK)
    return tl_py_raise();
  return tl_py_tensor_from(&r);
}

/* ---- torchlike.linalg (module functions _C._linalg_*) ---------------------------------
 * Bound by generated code (signatures.txt [linalg]); torchlike/linalg.py gives
 * them PyTorch's signatures and defaults.  Each returns a tensor or a tuple. */

/* A tuple of new tensors (takes over their storage references). */
static PyObject *tensors_tuple(int n, tl_tensor *ts)
{
  PyObject *tuple = PyTuple_New(n);
  for (int i = 0; i < n; i++) {
    PyObject *o = tuple ? tl_py_tensor_from(&ts[i]) : NULL;
    if (!o) {
      for (int j = i + (tuple ? 1 : 0); j < n; j++)
        tl_tensor_release(&ts[j]);
      Py_XDECREF(tuple);
      return NULL;
    }
    PyTuple_SET_ITEM(tuple, i, o);
  }
  return tuple;
}

/* n results of a call that returned st: one tensor or a tuple */
static PyObject *results(tl_status st, int n, tl_tensor *r)
{
  if (st != TL_OK)
    return tl_py_raise();
  return n == 1 ? tl_py_tensor_from(&r[0]) : tensors_tuple(n, r);
}

PyObject *tl_py_impl_linalg_solve(const char *name, const tl_py_args_linalg_solve *a)
{
  (void)name;
  tl_tensor x = {0};
  return results(tl_linalg_solve(&x, a->A.t, a->B.t, a->left), 1, &x);
}

/* inv, det, logdet, adjoint, slogdet of one matrix (name says which) */
PyObject *tl_py_impl_linalg_one(const char *name, const tl_py_args_linalg_one *a)
{
  const char *fn = name + strlen("_linalg_");
  tl_tensor r[2] = {{0}};
  if (!strcmp(fn, "slogdet"))
    return results(tl_linalg_slogdet(&r[0], &r[1], a->A.t), 2, r);
  tl_status st = !strcmp(fn, "inv")      ? tl_linalg_inv(&r[0], a->A.t)
                 : !strcmp(fn, "det")    ? tl_linalg_det(&r[0], a->A.t)
                 : !strcmp(fn, "logdet") ? tl_linalg_logdet(&r[0], a->A.t)
                                         : tl_linalg_adjoint(&r[0], a->A.t);
  return results(st, 1, r);
}

PyObject *tl_py_impl_linalg_cholesky(const char *name, const tl_py_args_linalg_cholesky *a)
{
  (void)name;
  tl_tensor r = {0};
  return results(tl_linalg_cholesky(&r, a->A.t, a->upper), 1, &r);
}

PyObject *tl_py_impl_linalg_qr(const char *name, const tl_py_args_linalg_qr *a)
{
  (void)name;
  tl_tensor r[2] = {{0}};
  const char *mode = a->mode ? a->mode : "reduced";
  char m = !strcmp(mode, "reduced") ? 'r' : !strcmp(mode, "complete") ? 'c' : !strcmp(mode, "r") ? 'R' : 0;
  if (!m)
    return PyErr_Format(PyExc_RuntimeError, "qr received unrecognized mode '%s' but expected one "
                        "of 'reduced' (default), 'r', or 'complete'", mode);
  return results(tl_linalg_qr(&r[0], &r[1], a->A.t, m), 2, r);
}

PyObject *tl_py_impl_linalg_svd(const char *name, const tl_py_args_linalg_svd *a)
{
  (void)name;
  tl_tensor r[3] = {{0}};
  if (tl_linalg_svd(&r[0], &r[1], &r[2], a->A.t, a->full_matrices, a->compute_uv) != TL_OK)
    return tl_py_raise();
  return a->compute_uv ? tensors_tuple(3, r) : tl_py_tensor_from(&r[1]);
}

PyObject *tl_py_impl_linalg_eigh(const char *name, const tl_py_args_linalg_eigh *a)
{
  (void)name;
  const char *uplo = a->UPLO ? a->UPLO : "L";
  tl_tensor r[2] = {{0}};
  if (strcmp(uplo, "L") && strcmp(uplo, "U") && strcmp(uplo, "l") && strcmp(uplo, "u"))
    return PyErr_Format(PyExc_RuntimeError, "Expected UPLO argument to be 'L' or 'U', but got %s",
                        uplo);
  return results(tl_linalg_eigh(&r[0], &r[1], a->A.t, uplo[0] == 'U' || uplo[0] == 'u',
                                a->compute_v), a->compute_v ? 2 : 1, r);
}

PyObject *tl_py_impl_linalg_eig(const char *name, const tl_py_args_linalg_eig *a)
{
  (void)name;
  tl_tensor r[2] = {{0}};
  return results(tl_linalg_eig(&r[0], &r[1], a->A.t, a->compute_v), a->compute_v ? 2 : 1, r);
}

PyObject *tl_py_impl_linalg_lstsq(const char *name, const tl_py_args_linalg_lstsq *a)
{
  (void)name;
  tl_tensor r[4] = {{0}};
  return results(tl_linalg_lstsq(&r[0], &r[1], &r[2], &r[3], a->A.t, a->B.t, a->rcond,
                                 a->driver ? a->driver : "gelsy"), 4, r);
}

PyObject *tl_py_impl_linalg_vector_norm(const char *name, const tl_py_args_linalg_vector_norm *a)
{
  (void)name;
  uint64_t mask;
  tl_tensor r = {0};
  if (tl_py_ints_dims(&a->dim, a->x.t->ndim, &mask) < 0)
    return NULL;
  return results(tl_linalg_vector_norm(&r, a->x.t, a->ord, mask, a->keepdim, a->dtype), 1, &r);
}

/* pinv and matrix_rank (name says which): tolerances absent or < 0 are unset */
PyObject *tl_py_impl_linalg_tolerance(const char *name, const tl_py_args_linalg_tolerance *a)
{
  double atol = a->has_atol ? a->atol : -1, rtol = a->has_rtol ? a->rtol : -1;
  tl_tensor r = {0};
  tl_status st = strstr(name, "rank") ? tl_linalg_matrix_rank(&r, a->A.t, atol, rtol, a->hermitian)
                                      : tl_linalg_pinv(&r, a->A.t, atol, rtol, a->hermitian);
  return results(st, 1, &r);
}

PyObject *tl_py_impl_linalg_matrix_power(const char *name,
                                         const tl_py_args_linalg_matrix_power *a)
{
  (void)name;
  tl_tensor r = {0};
  return results(tl_linalg_matrix_power(&r, a->A.t, a->n), 1, &r);
}

PyObject *tl_py_impl_linalg_cross(const char *name, const tl_py_args_linalg_cross *a)
{
  (void)name;
  tl_tensor r = {0};
  return results(tl_linalg_cross(&r, a->input.t, a->other.t, a->dim), 1, &r);
}

/* lu_factor (LU, pivots), or with full the P, L, U of lu */
PyObject *tl_py_impl_linalg_lu_factor(const char *name, const tl_py_args_linalg_lu_factor *a)
{
  (void)name;
  tl_tensor r[3] = {{0}};
  tl_status st = a->full ? tl_linalg_lu(&r[0], &r[1], &r[2], a->A.t)
                         : tl_linalg_lu_factor(&r[0], &r[1], a->A.t);
  return results(st, a->full ? 3 : 2, r);
}

PyObject *tl_py_impl_linalg_lu_solve(const char *name, const tl_py_args_linalg_lu_solve *a)
{
  (void)name;
  tl_tensor x = {0};
  return results(tl_linalg_lu_solve(&x, a->LU.t, a->pivots.t, a->B.t, a->left, a->adjoint), 1,
                 &x);
}

PyObject *tl_py_impl_linalg_solve_triangular(const char *name,
                                             const tl_py_args_linalg_solve_triangular *a)
{
  (void)name;
  tl_tensor x = {0};
  return results(tl_linalg_solve_triangular(&x, a->A.t, a->B.t, a->upper, a->left,
                                            a->unitriangular), 1, &x);
}

/* The *_ex functions: (result..., info) */
PyObject *tl_py_impl_linalg_inv_ex(const char *name, const tl_py_args_linalg_inv_ex *a)
{
  (void)name;
  (void)a->check_errors; /* info reports the failure; torchlike/linalg.py raises */
  tl_tensor r[2] = {{0}};
  return results(tl_linalg_inv_ex(&r[0], &r[1], a->A.t), 2, r);
}

PyObject *tl_py_impl_linalg_cholesky_ex(const char *name, const tl_py_args_linalg_cholesky_ex *a)
{
  (void)name;
  tl_tensor r[2] = {{0}};
  return results(tl_linalg_cholesky_ex(&r[0], &r[1], a->A.t, a->upper), 2, r);
}

PyObject *tl_py_impl_linalg_solve_ex(const char *name, const tl_py_args_linalg_solve_ex *a)
{
  (void)name;
  tl_tensor r[2] = {{0}};
  return results(tl_linalg_solve_ex(&r[0], &r[1], a->A.t, a->B.t, a->left), 2, r);
}

PyObject *tl_py_impl_linalg_lu_factor_ex(const char *name,
                                         const tl_py_args_linalg_lu_factor_ex *a)
{
  (void)name;
  /* pivot=False: devices only (PyTorch's CUDA rule).  check_errors: a zero
   * pivot raises (the infos read on the host), and info comes back zeros. */
  tl_tensor r[3] = {{0}};
  tl_tensor *info = a->check_errors ? NULL : &r[2];
  tl_status st = a->pivot ? tl_linalg_lu_factor_ex(&r[0], &r[1], info, a->A.t)
                          : tl_linalg_lu_factor_ex_nopivot(&r[0], &r[1], info, a->A.t);
  if (st == TL_OK && !info) {
    const tl_tensor *A = a->A.t;
    if ((st = tl_tensor_zeros(&r[2], TL_DTYPE_I32, A->ndim - 2, A->shape,
                              tl_tensor_device(A))) != TL_OK)
      tl_tensor_release_n(2, r);
  }
  return results(st, 3, r);
}

/* LDL (linalg_ldl.c): (LD, pivots, info) and the solve; torchlike/linalg.py
 * checks the arguments and raises on info as PyTorch's wrappers do. */
PyObject *tl_py_impl_linalg_ldl_factor_ex(const char *name,
                                          const tl_py_args_linalg_ldl_factor_ex *a)
{
  (void)name;
  tl_tensor r[3] = {{0}};
  return results(tl_linalg_ldl_factor_ex(&r[0], &r[1], &r[2], a->A.t, a->hermitian), 3, r);
}

PyObject *tl_py_impl_linalg_ldl_solve(const char *name, const tl_py_args_linalg_ldl_solve *a)
{
  (void)name;
  tl_tensor x = {0};
  return results(tl_linalg_ldl_solve(&x, a->LD.t, a->pivots.t, a->B.t, a->hermitian), 1, &x);
}
