/* py_linalg.c - Python arguments of the matrix products (ops.def, MATMUL) and
 * of the torchlike.linalg functions (module functions _C._linalg_*, wrapped
 * by torchlike/linalg.py).
 *
 * Operands may be tensors or anything tl_py_to_tensor takes (lists, arrays);
 * converted ones are owned by the call and released on every path.        */
#include "ndcore/tensor/tl_backend.h"
#include "ndcore/bindings/py_tensor.h"
#include "ndcore/linalg/tl_linalg.h"

/* ---- shared parsing ------------------------------------------------------------ */

#define MAX_ARGS 8

typedef struct {
  tl_tensor t[MAX_ARGS];
  bool owned[MAX_ARGS];
  int n;
} owned_tensors;

static void owned_release(owned_tensors *o)
{
  for (int i = 0; i < o->n; i++)
    if (o->owned[i])
      tl_tensor_release(&o->t[i]);
  o->n = 0;
}

/* A tensor for argument `o`: borrowed when o is a Tensor, else converted. */
static const tl_tensor *tensor_arg(owned_tensors *o, PyObject *obj, const char *func,
                                   const char *name)
{
  if (!obj) {
    PyErr_Format(PyExc_TypeError, "%s() missing required argument '%s'", func, name);
    return NULL;
  }
  if (tl_py_is_tensor(obj))
    return tl_py_t(obj);
  bool weak;
  int i = o->n;
  if (tl_py_to_tensor(obj, -1, false, &o->t[i], &weak) < 0)
    return NULL;
  o->owned[i] = true;
  o->n++;
  return &o->t[i];
}


static int scalar_arg(PyObject *o, const char *func, const char *name, tl_scalar *s)
{
  if (!o) {
    *s = (tl_scalar){.kind = TL_KIND_INT, .v.i = 1};
    return 0;
  }
  if (tl_py_is_tensor(o) && tl_tensor_numel(tl_py_t(o)) == 1) /* read through its device */
    return tl_backend_read_scalar(tl_py_t(o), s) == TL_OK ? 0 : tl_py_raise_int();
  int r = tl_py_scalar(o, s);
  if (r == 0 && PyNumber_Check(o)) { /* NumPy scalars */
    PyObject *c = PyNumber_Index(o);
    if (c) {
      *s = (tl_scalar){.kind = TL_KIND_INT, .v.i = PyLong_AsLongLong(c)};
      Py_DECREF(c);
      return PyErr_Occurred() ? -1 : 0;
    }
    PyErr_Clear();
    PyObject *f = PyNumber_Float(o);
    if (!f)
      return -1;
    *s = (tl_scalar){.kind = TL_KIND_FLOAT, .v.f = PyFloat_AsDouble(f)};
    Py_DECREF(f);
    return 0;
  }
  if (r == 0)
    PyErr_Format(PyExc_TypeError, "%s(): argument '%s' must be a number, not %s", func, name,
                 Py_TYPE(o)->tp_name);
  return r > 0 ? 0 : -1;
}

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

PyObject *tl_py_product_call(tl_op op, PyObject *const *args, Py_ssize_t nargs, PyObject *kwnames)
{
  const char *func = tl_op_infos[op].name;
  static const char *const two[] = {"input", "other", "out", NULL};
  static const char *const mats[] = {"input", "mat2", "out", NULL};
  static const char *const vecs[] = {"input", "vec", "out", NULL};
  static const char *const vec2[] = {"input", "vec2", "out", NULL};
  static const char *const addmm[] = {"input", "mat1", "mat2", "beta", "alpha", "out", NULL};
  static const char *const addbmm[] = {"input", "batch1", "batch2", "beta", "alpha", "out", NULL};
  static const char *const addmv[] = {"input", "mat", "vec", "beta", "alpha", "out", NULL};
  static const char *const addr[] = {"input", "vec1", "vec2", "beta", "alpha", "out", NULL};
  static const char *const tdot[] = {"a", "b", "dims", "out", NULL};
  static const char *const one[] = {"input", NULL};
  const char *const *names = two;
  int npos = 2;
  tl_product kind = TL_PRODUCT_MM;
  switch (op) {
  case TL_OP_MM: names = mats; kind = TL_PRODUCT_MM; break;
  case TL_OP_BMM: names = mats; kind = TL_PRODUCT_BMM; break;
  case TL_OP_MV: names = vecs; kind = TL_PRODUCT_MV; break;
  case TL_OP_DOT: names = two; kind = TL_PRODUCT_DOT; break;
  case TL_OP_VDOT: names = two; kind = TL_PRODUCT_VDOT; break;
  case TL_OP_INNER: kind = TL_PRODUCT_INNER; break;
  case TL_OP_OUTER:
  case TL_OP_GER: names = vec2; kind = TL_PRODUCT_OUTER; break;
  case TL_OP_ADDMM: names = addmm; npos = 3; kind = TL_PRODUCT_ADDMM; break;
  case TL_OP_ADDBMM: names = addbmm; npos = 3; kind = TL_PRODUCT_ADDBMM; break;
  case TL_OP_BADDBMM: names = addbmm; npos = 3; kind = TL_PRODUCT_BADDBMM; break;
  case TL_OP_ADDMV: names = addmv; npos = 3; kind = TL_PRODUCT_ADDMV; break;
  case TL_OP_ADDR: names = addr; npos = 3; kind = TL_PRODUCT_ADDR; break;
  case TL_OP_TENSORDOT: names = tdot; npos = 3; break;
  case TL_OP_TRACE: names = one; npos = 1; break;
  default: break;
  }
  PyObject *v[8];
  owned_tensors own = {.n = 0};
  tl_tensor r = {0};
  tl_status st;
  if (tl_py_bind_args(func, args, nargs, kwnames, names, npos, 0, v) < 0)
    return NULL;
  if (op == TL_OP_TRACE) {
    const tl_tensor *a = tensor_arg(&own, v[0], func, names[0]);
    if (!a)
      return NULL;
    st = tl_linalg_trace(&r, a);
    owned_release(&own);
    return st == TL_OK ? tl_py_tensor_from(&r) : tl_py_raise();
  }
  int ntens = npos == 3 && op != TL_OP_TENSORDOT ? 3 : 2;
  const tl_tensor *t[3];
  PyObject *out = v[op == TL_OP_TENSORDOT ? 3 : ntens == 3 ? 5 : 2];
  for (int i = 0; i < ntens; i++)
    if (!(t[i] = tensor_arg(&own, v[i], func, names[i])))
      goto fail;
  if (op == TL_OP_MATMUL) {
    st = tl_linalg_matmul(&r, t[0], t[1]);
  } else if (op == TL_OP_KRON) {
    st = tl_linalg_kron(&r, t[0], t[1]);
  } else if (op == TL_OP_TENSORDOT) {
    int n;
    int64_t da[TL_MAX_DIMS], db[TL_MAX_DIMS];
    if (tl_py_tensordot_dims(v[2], t[0], t[1], &n, da, db) < 0)
      goto fail;
    st = tl_linalg_tensordot(&r, t[0], t[1], n, da, db);
  } else if (ntens == 3) {
    tl_scalar beta, alpha;
    if (scalar_arg(v[3], func, "beta", &beta) < 0 || scalar_arg(v[4], func, "alpha", &alpha) < 0)
      goto fail;
    st = tl_linalg_product(kind, &r, t[0], t[1], t[2], alpha, beta);
  } else {
    tl_scalar one_ = {.kind = TL_KIND_INT, .v.i = 1}, zero = {.kind = TL_KIND_INT, .v.i = 0};
    st = tl_linalg_product(kind, &r, NULL, t[0], t[1], one_, zero);
  }
  owned_release(&own);
  if (st != TL_OK)
    return tl_py_raise();
  return finish(&r, out, func);
fail:
  owned_release(&own);
  return NULL;
}

/* ---- torchlike.linalg (module functions _C._linalg_*) ---------------------------------
 * Positional arguments in a fixed order; torchlike/linalg.py gives them
 * PyTorch's signatures and defaults.  Each returns a tensor or a tuple. */

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

static PyObject *py_solve(PyObject *self, PyObject *args)
{
  (void)self;
  PyObject *oa, *ob;
  int left = 1;
  owned_tensors own = {.n = 0};
  tl_tensor x = {0};
  if (!PyArg_ParseTuple(args, "OO|p:solve", &oa, &ob, &left))
    return NULL;
  const tl_tensor *a = tensor_arg(&own, oa, "solve", "A"), *b = a ? tensor_arg(&own, ob, "solve", "B") : NULL;
  tl_status st = b ? tl_linalg_solve(&x, a, b, left) : TL_ERR_TYPE;
  owned_release(&own);
  if (!b)
    return NULL;
  return st == TL_OK ? tl_py_tensor_from(&x) : tl_py_raise();
}

/* Functions of one matrix returning one tensor. */
typedef enum { ONE_INV, ONE_DET, ONE_LOGDET, ONE_ADJOINT, ONE_CHOLESKY } one_kind;

static PyObject *unary_linalg(PyObject *args, one_kind kind, const char *fn)
{
  PyObject *oa;
  int flag = 0;
  owned_tensors own = {.n = 0};
  tl_tensor r = {0};
  if (!PyArg_ParseTuple(args, "O|p", &oa, &flag))
    return NULL;
  const tl_tensor *a = tensor_arg(&own, oa, fn, "A");
  if (!a)
    return NULL;
  tl_status st;
  switch (kind) {
  case ONE_INV: st = tl_linalg_inv(&r, a); break;
  case ONE_DET: st = tl_linalg_det(&r, a); break;
  case ONE_LOGDET: st = tl_linalg_logdet(&r, a); break;
  case ONE_ADJOINT: st = tl_linalg_adjoint(&r, a); break;
  default: st = tl_linalg_cholesky(&r, a, flag); break;
  }
  owned_release(&own);
  return st == TL_OK ? tl_py_tensor_from(&r) : tl_py_raise();
}

static PyObject *py_inv(PyObject *self, PyObject *args) { (void)self; return unary_linalg(args, ONE_INV, "inv"); }
static PyObject *py_det(PyObject *self, PyObject *args) { (void)self; return unary_linalg(args, ONE_DET, "det"); }
static PyObject *py_logdet(PyObject *self, PyObject *args) { (void)self; return unary_linalg(args, ONE_LOGDET, "logdet"); }
static PyObject *py_adjoint(PyObject *self, PyObject *args) { (void)self; return unary_linalg(args, ONE_ADJOINT, "adjoint"); }
static PyObject *py_cholesky(PyObject *self, PyObject *args)
{
  (void)self;
  return unary_linalg(args, ONE_CHOLESKY, "cholesky");
}

static PyObject *py_slogdet(PyObject *self, PyObject *args)
{
  (void)self;
  PyObject *oa;
  owned_tensors own = {.n = 0};
  tl_tensor r[2] = {{0}};
  if (!PyArg_ParseTuple(args, "O:slogdet", &oa))
    return NULL;
  const tl_tensor *a = tensor_arg(&own, oa, "slogdet", "A");
  if (!a)
    return NULL;
  tl_status st = tl_linalg_slogdet(&r[0], &r[1], a);
  owned_release(&own);
  return st == TL_OK ? tensors_tuple(2, r) : tl_py_raise();
}

static PyObject *py_qr(PyObject *self, PyObject *args)
{
  (void)self;
  PyObject *oa;
  const char *mode = "reduced";
  owned_tensors own = {.n = 0};
  tl_tensor r[2] = {{0}};
  if (!PyArg_ParseTuple(args, "O|s:qr", &oa, &mode))
    return NULL;
  char m = !strcmp(mode, "reduced") ? 'r' : !strcmp(mode, "complete") ? 'c' : !strcmp(mode, "r") ? 'R' : 0;
  if (!m)
    return PyErr_Format(PyExc_RuntimeError, "qr received unrecognized mode '%s' but expected one "
                        "of 'reduced' (default), 'r', or 'complete'", mode);
  const tl_tensor *a = tensor_arg(&own, oa, "qr", "A");
  if (!a)
    return NULL;
  tl_status st = tl_linalg_qr(&r[0], &r[1], a, m);
  owned_release(&own);
  return st == TL_OK ? tensors_tuple(2, r) : tl_py_raise();
}

static PyObject *py_svd(PyObject *self, PyObject *args)
{
  (void)self;
  PyObject *oa;
  int full = 1, uv = 1;
  owned_tensors own = {.n = 0};
  tl_tensor r[3] = {{0}};
  if (!PyArg_ParseTuple(args, "O|pp:svd", &oa, &full, &uv))
    return NULL;
  const tl_tensor *a = tensor_arg(&own, oa, "svd", "A");
  if (!a)
    return NULL;
  tl_status st = tl_linalg_svd(&r[0], &r[1], &r[2], a, full, uv);
  owned_release(&own);
  if (st != TL_OK)
    return tl_py_raise();
  return uv ? tensors_tuple(3, r) : tl_py_tensor_from(&r[1]);
}

static PyObject *py_eigh(PyObject *self, PyObject *args)
{
  (void)self;
  PyObject *oa;
  const char *uplo = "L";
  int vecs = 1;
  owned_tensors own = {.n = 0};
  tl_tensor r[2] = {{0}};
  if (!PyArg_ParseTuple(args, "O|sp:eigh", &oa, &uplo, &vecs))
    return NULL;
  if (strcmp(uplo, "L") && strcmp(uplo, "U") && strcmp(uplo, "l") && strcmp(uplo, "u"))
    return PyErr_Format(PyExc_RuntimeError, "Expected UPLO argument to be 'L' or 'U', but got %s",
                        uplo);
  const tl_tensor *a = tensor_arg(&own, oa, "eigh", "A");
  if (!a)
    return NULL;
  tl_status st = tl_linalg_eigh(&r[0], &r[1], a, uplo[0] == 'U' || uplo[0] == 'u', vecs);
  owned_release(&own);
  if (st != TL_OK)
    return tl_py_raise();
  return vecs ? tensors_tuple(2, r) : tl_py_tensor_from(&r[0]);
}

static PyObject *py_eig(PyObject *self, PyObject *args)
{
  (void)self;
  PyObject *oa;
  int vecs = 1;
  owned_tensors own = {.n = 0};
  tl_tensor r[2] = {{0}};
  if (!PyArg_ParseTuple(args, "O|p:eig", &oa, &vecs))
    return NULL;
  const tl_tensor *a = tensor_arg(&own, oa, "eig", "A");
  if (!a)
    return NULL;
  tl_status st = tl_linalg_eig(&r[0], &r[1], a, vecs);
  owned_release(&own);
  if (st != TL_OK)
    return tl_py_raise();
  return vecs ? tensors_tuple(2, r) : tl_py_tensor_from(&r[0]);
}

static PyObject *py_lstsq(PyObject *self, PyObject *args)
{
  (void)self;
  PyObject *oa, *ob;
  double rcond = -1;
  const char *driver = "gelsy";
  owned_tensors own = {.n = 0};
  tl_tensor r[4] = {{0}};
  if (!PyArg_ParseTuple(args, "OO|ds:lstsq", &oa, &ob, &rcond, &driver))
    return NULL;
  const tl_tensor *a = tensor_arg(&own, oa, "lstsq", "A"), *b = a ? tensor_arg(&own, ob, "lstsq", "B") : NULL;
  tl_status st = b ? tl_linalg_lstsq(&r[0], &r[1], &r[2], &r[3], a, b, rcond, driver) : TL_ERR_TYPE;
  owned_release(&own);
  if (!b)
    return NULL;
  return st == TL_OK ? tensors_tuple(4, r) : tl_py_raise();
}

static PyObject *py_vector_norm(PyObject *self, PyObject *args)
{
  (void)self;
  PyObject *ox, *dim = Py_None, *odtype = Py_None;
  double ord = 2;
  int keepdim = 0;
  owned_tensors own = {.n = 0};
  tl_tensor r = {0};
  if (!PyArg_ParseTuple(args, "O|dOpO:vector_norm", &ox, &ord, &dim, &keepdim, &odtype))
    return NULL;
  int dtype = -1;
  if (odtype != Py_None) {
    tl_dtype d;
    if (tl_py_parse_dtype(odtype, &d) < 0)
      return NULL;
    dtype = (int)d;
  }
  const tl_tensor *x = tensor_arg(&own, ox, "vector_norm", "x");
  if (!x)
    return NULL;
  uint64_t mask;
  if (tl_py_parse_dims(dim, x->ndim, &mask) < 0) {
    owned_release(&own);
    return NULL;
  }
  tl_status st = tl_linalg_vector_norm(&r, x, ord, mask, keepdim, dtype);
  owned_release(&own);
  return st == TL_OK ? tl_py_tensor_from(&r) : tl_py_raise();
}

/* pinv and matrix_rank: (A, atol, rtol, hermitian) with atol/rtol < 0 unset. */
static PyObject *tolerance_fn(PyObject *args, bool rank)
{
  PyObject *oa;
  double atol = -1, rtol = -1;
  int herm = 0;
  owned_tensors own = {.n = 0};
  tl_tensor r = {0};
  if (!PyArg_ParseTuple(args, "O|ddp", &oa, &atol, &rtol, &herm))
    return NULL;
  const tl_tensor *a = tensor_arg(&own, oa, rank ? "matrix_rank" : "pinv", "A");
  if (!a)
    return NULL;
  tl_status st = rank ? tl_linalg_matrix_rank(&r, a, atol, rtol, herm)
                      : tl_linalg_pinv(&r, a, atol, rtol, herm);
  owned_release(&own);
  return st == TL_OK ? tl_py_tensor_from(&r) : tl_py_raise();
}
static PyObject *py_pinv(PyObject *self, PyObject *args) { (void)self; return tolerance_fn(args, false); }
static PyObject *py_matrix_rank(PyObject *self, PyObject *args) { (void)self; return tolerance_fn(args, true); }

static PyObject *py_matrix_power(PyObject *self, PyObject *args)
{
  (void)self;
  PyObject *oa;
  long long n;
  owned_tensors own = {.n = 0};
  tl_tensor r = {0};
  if (!PyArg_ParseTuple(args, "OL:matrix_power", &oa, &n))
    return NULL;
  const tl_tensor *a = tensor_arg(&own, oa, "matrix_power", "A");
  if (!a)
    return NULL;
  tl_status st = tl_linalg_matrix_power(&r, a, n);
  owned_release(&own);
  return st == TL_OK ? tl_py_tensor_from(&r) : tl_py_raise();
}

static PyObject *py_cross(PyObject *self, PyObject *args)
{
  (void)self;
  PyObject *oa, *ob;
  long long dim = -1;
  owned_tensors own = {.n = 0};
  tl_tensor r = {0};
  if (!PyArg_ParseTuple(args, "OO|L:cross", &oa, &ob, &dim))
    return NULL;
  const tl_tensor *a = tensor_arg(&own, oa, "cross", "input"), *b = a ? tensor_arg(&own, ob, "cross", "other") : NULL;
  tl_status st = b ? tl_linalg_cross(&r, a, b, dim) : TL_ERR_TYPE;
  owned_release(&own);
  if (!b)
    return NULL;
  return st == TL_OK ? tl_py_tensor_from(&r) : tl_py_raise();
}

static PyObject *py_lu_factor(PyObject *self, PyObject *args)
{
  (void)self;
  PyObject *oa;
  owned_tensors own = {.n = 0};
  tl_tensor r[3] = {{0}};
  int full = 0;
  if (!PyArg_ParseTuple(args, "O|p:lu_factor", &oa, &full))
    return NULL;
  const tl_tensor *a = tensor_arg(&own, oa, "lu_factor", "A");
  if (!a)
    return NULL;
  tl_status st = full ? tl_linalg_lu(&r[0], &r[1], &r[2], a) : tl_linalg_lu_factor(&r[0], &r[1], a);
  owned_release(&own);
  return st == TL_OK ? tensors_tuple(full ? 3 : 2, r) : tl_py_raise();
}

static PyObject *py_lu_solve(PyObject *self, PyObject *args)
{
  (void)self;
  PyObject *olu, *op, *ob;
  int left = 1, adjoint = 0;
  owned_tensors own = {.n = 0};
  tl_tensor x = {0};
  if (!PyArg_ParseTuple(args, "OOO|pp:lu_solve", &olu, &op, &ob, &left, &adjoint))
    return NULL;
  const tl_tensor *lu = tensor_arg(&own, olu, "lu_solve", "LU");
  const tl_tensor *piv = lu ? tensor_arg(&own, op, "lu_solve", "pivots") : NULL;
  const tl_tensor *b = piv ? tensor_arg(&own, ob, "lu_solve", "B") : NULL;
  tl_status st = b ? tl_linalg_lu_solve(&x, lu, piv, b, left, adjoint) : TL_ERR_TYPE;
  owned_release(&own);
  if (!b)
    return NULL;
  return st == TL_OK ? tl_py_tensor_from(&x) : tl_py_raise();
}

static PyObject *py_solve_triangular(PyObject *self, PyObject *args)
{
  (void)self;
  PyObject *oa, *ob;
  int upper, left = 1, unit = 0;
  owned_tensors own = {.n = 0};
  tl_tensor x = {0};
  if (!PyArg_ParseTuple(args, "OOp|pp:solve_triangular", &oa, &ob, &upper, &left, &unit))
    return NULL;
  const tl_tensor *a = tensor_arg(&own, oa, "solve_triangular", "A");
  const tl_tensor *b = a ? tensor_arg(&own, ob, "solve_triangular", "B") : NULL;
  tl_status st = b ? tl_linalg_solve_triangular(&x, a, b, upper, left, unit) : TL_ERR_TYPE;
  owned_release(&own);
  if (!b)
    return NULL;
  return st == TL_OK ? tl_py_tensor_from(&x) : tl_py_raise();
}

/* The *_ex functions: (A[, B], flag) -> (result..., info). */
typedef enum { EX_INV, EX_CHOLESKY, EX_SOLVE, EX_LU_FACTOR } ex_kind;

static PyObject *ex_call(PyObject *args, ex_kind kind)
{
  PyObject *oa, *ob = NULL;
  int flag = kind == EX_SOLVE; /* left=True; upper=False */
  owned_tensors own = {.n = 0};
  tl_tensor r[3] = {{0}};
  const tl_tensor *a, *b = NULL;
  tl_status st;
  if (kind == EX_SOLVE ? !PyArg_ParseTuple(args, "OO|p", &oa, &ob, &flag)
                       : !PyArg_ParseTuple(args, "O|p", &oa, &flag))
    return NULL;
  if (!(a = tensor_arg(&own, oa, "linalg", "A")) || (ob && !(b = tensor_arg(&own, ob, "linalg", "B")))) {
    owned_release(&own);
    return NULL;
  }
  switch (kind) {
  case EX_INV: st = tl_linalg_inv_ex(&r[0], &r[1], a); break;
  case EX_CHOLESKY: st = tl_linalg_cholesky_ex(&r[0], &r[1], a, flag); break;
  case EX_SOLVE: st = tl_linalg_solve_ex(&r[0], &r[1], a, b, flag); break;
  default: st = tl_linalg_lu_factor_ex(&r[0], &r[1], &r[2], a); break;
  }
  owned_release(&own);
  if (st != TL_OK)
    return tl_py_raise();
  return tensors_tuple(kind == EX_LU_FACTOR ? 3 : 2, r);
}
static PyObject *py_inv_ex(PyObject *self, PyObject *args) { (void)self; return ex_call(args, EX_INV); }
static PyObject *py_cholesky_ex(PyObject *self, PyObject *args) { (void)self; return ex_call(args, EX_CHOLESKY); }
static PyObject *py_solve_ex(PyObject *self, PyObject *args) { (void)self; return ex_call(args, EX_SOLVE); }
static PyObject *py_lu_factor_ex(PyObject *self, PyObject *args) { (void)self; return ex_call(args, EX_LU_FACTOR); }

PyMethodDef tl_py_linalg_functions[] = {
    {"_linalg_inv_ex", py_inv_ex, METH_VARARGS, NULL},
    {"_linalg_cholesky_ex", py_cholesky_ex, METH_VARARGS, NULL},
    {"_linalg_solve_ex", py_solve_ex, METH_VARARGS, NULL},
    {"_linalg_lu_factor_ex", py_lu_factor_ex, METH_VARARGS, NULL},
    {"_linalg_solve", py_solve, METH_VARARGS, NULL},
    {"_linalg_inv", py_inv, METH_VARARGS, NULL},
    {"_linalg_det", py_det, METH_VARARGS, NULL},
    {"_linalg_slogdet", py_slogdet, METH_VARARGS, NULL},
    {"_linalg_logdet", py_logdet, METH_VARARGS, NULL},
    {"_linalg_adjoint", py_adjoint, METH_VARARGS, NULL},
    {"_linalg_cholesky", py_cholesky, METH_VARARGS, NULL},
    {"_linalg_qr", py_qr, METH_VARARGS, NULL},
    {"_linalg_svd", py_svd, METH_VARARGS, NULL},
    {"_linalg_eigh", py_eigh, METH_VARARGS, NULL},
    {"_linalg_eig", py_eig, METH_VARARGS, NULL},
    {"_linalg_lstsq", py_lstsq, METH_VARARGS, NULL},
    {"_linalg_vector_norm", py_vector_norm, METH_VARARGS, NULL},
    {"_linalg_pinv", py_pinv, METH_VARARGS, NULL},
    {"_linalg_matrix_rank", py_matrix_rank, METH_VARARGS, NULL},
    {"_linalg_matrix_power", py_matrix_power, METH_VARARGS, NULL},
    {"_linalg_cross", py_cross, METH_VARARGS, NULL},
    {"_linalg_lu_factor", py_lu_factor, METH_VARARGS, NULL},
    {"_linalg_lu_solve", py_lu_solve, METH_VARARGS, NULL},
    {"_linalg_solve_triangular", py_solve_triangular, METH_VARARGS, NULL},
    {NULL, NULL, 0, NULL},
};
