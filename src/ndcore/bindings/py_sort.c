/* py_sort.c - argument parsing of the sorting and searching ops (ops.def kind
 * SORT): sort, argsort, msort, topk, kthvalue, median, nanmedian, quantile,
 * nanquantile, mode, unique, unique_consecutive, searchsorted, bucketize,
 * bincount, histc, cummax, cummin.
 *
 * Signatures and results follow PyTorch: (values, indices) pairs come back as
 * named tuples of torchlike.return_types (PyStructSequence types made here).
 * The work is done by the core in sort.c and search.c (tl_sort.h).        */
#include "ndcore/tensor/tl_backend.h"
#include "ndcore/bindings/generated/bindings.h"
#include "ndcore/kernels/tl_sort.h"

/* ---- named tuples ------------------------------------------------------------ */

enum { RT_SORT, RT_TOPK, RT_KTHVALUE, RT_MEDIAN, RT_NANMEDIAN, RT_MODE, RT_CUMMAX, RT_CUMMIN, RT_COUNT };
static PyTypeObject *return_types[RT_COUNT];

/* Steals both tensors (either may be NULL after a failure). */
static PyObject *pair_result(int rt, PyObject *values, PyObject *indices)
{
  return tl_py_pair(return_types[rt], values, indices);
}

/* ---- arguments --------------------------------------------------------------- */

/* A number, or a one-element tensor read through its device. */
static int double_arg(const char *fn, const char *name, PyObject *o, double *v)
{
  tl_scalar s;
  bool given;
  if (tl_py_arg_scalar(fn, name, o, &s, &given) < 0)
    return -1;
  if (!given || s.kind == TL_KIND_COMPLEX) {
    PyErr_Format(PyExc_TypeError, "%s(): argument '%s' must be a real number, not %s", fn, name,
                 given ? "complex" : "NoneType");
    return -1;
  }
  *v = s.kind == TL_KIND_FLOAT ? s.v.f : s.kind == TL_KIND_INT ? (double)s.v.i : s.v.b;
  return 0;
}

static PyObject *new_tensor(void) { return (PyObject *)tl_py_tensor_alloc(); }

/* ---- sort, argsort, msort ------------------------------------------------------ */

/* sort (values, indices), argsort (indices), msort and _sort_values (values)
 * of in along dim. */
static PyObject *sort_run(tl_op op, const tl_tensor *in, int64_t dim, bool desc, bool stable)
{
  /* argsort wants no values, msort and _sort_values no indices */
  bool values_only = op == TL_OP_MSORT || op == TL_OP_SORT_VALUES;
  PyObject *v = op == TL_OP_ARGSORT ? NULL : new_tensor(), *i = values_only ? NULL : new_tensor();
  if ((op != TL_OP_ARGSORT && !v) || (!values_only && !i))
    goto fail;
  if (tl_sort(in, dim, desc, stable, v ? tl_py_t(v) : NULL, i ? tl_py_t(i) : NULL) != TL_OK) {
    tl_py_raise();
    goto fail;
  }
  if (op == TL_OP_ARGSORT)
    return i;
  if (values_only)
    return v;
  return pair_result(RT_SORT, v, i);
fail:
  Py_XDECREF(v);
  Py_XDECREF(i);
  return NULL;
}

/* ---- topk, kthvalue, median, nanmedian, mode -------------------------------------- */

/* topk (k, largest), kthvalue (k, keepdim), mode (keepdim), median/nanmedian
 * (keepdim) of in along dim: flag is largest or keepdim. */
static PyObject *select_run(tl_op op, const tl_tensor *in, int64_t k, int64_t dim, bool flag)
{
  PyObject *v = new_tensor(), *i = new_tensor();
  tl_status st = TL_ERR_MEMORY;
  int rt = RT_SORT;
  if (v && i) {
    tl_tensor *tv = tl_py_t(v), *ti = tl_py_t(i);
    switch (op) {
    case TL_OP_TOPK: /* sorted=False may return any order; ours is always sorted */
      st = tl_topk(in, k, dim, flag, tv, ti);
      rt = RT_TOPK;
      break;
    case TL_OP_KTHVALUE:
      st = tl_kthvalue(in, k, dim, flag, tv, ti);
      rt = RT_KTHVALUE;
      break;
    case TL_OP_MODE:
      st = tl_mode(in, dim, flag, tv, ti);
      rt = RT_MODE;
      break;
    default:
      st = tl_median_dim(in, dim, flag, op == TL_OP_NANMEDIAN, tv, ti);
      rt = op == TL_OP_NANMEDIAN ? RT_NANMEDIAN : RT_MEDIAN;
      break;
    }
    if (st != TL_OK)
      tl_py_raise();
  }
  if (st != TL_OK) {
    Py_XDECREF(v);
    Py_XDECREF(i);
    return NULL;
  }
  return pair_result(rt, v, i);
}

/* ---- quantile, nanquantile ------------------------------------------------------- */

static int parse_interpolation(const char *fn, const char *s, tl_quantile_method *m)
{
  static const char *const methods[] = {"linear", "lower", "higher", "midpoint", "nearest"};
  *m = TL_QUANTILE_LINEAR;
  for (int i = 0; s && i < 5; i++)
    if (!strcmp(s, methods[i])) {
      *m = (tl_quantile_method)i;
      return 0;
    }
  if (!s)
    return 0;
  PyErr_Format(PyExc_RuntimeError, "%s() interpolation must be one of linear, lower, higher, "
               "midpoint or nearest. Got %s", fn, s);
  return -1;
}

static PyObject *quantile_run(tl_op op, const tl_py_args_quantile *a)
{
  const char *fn = tl_op_infos[op].name;
  const tl_tensor *in = tl_py_t(a->input);
  tl_quantile_method method;
  if (parse_interpolation(fn, a->interpolation, &method) < 0)
    return NULL;
  double q1, *q = &q1;
  int64_t nq = 1;
  bool q_scalar = !tl_py_is_tensor(a->q);
  PyObject *r = NULL;
  if (q_scalar) {
    if (double_arg(fn, "q", a->q, &q1) < 0)
      return NULL;
  } else {
    const tl_tensor *qt = tl_py_t(a->q);
    const tl_tensor *devs[2] = {in, qt};
    if (tl_check_same_device(2, devs) != TL_OK)
      return tl_py_raise();
    if (qt->ndim > 1)
      return PyErr_Format(PyExc_RuntimeError, "%s() q must be a scalar or 1D tensor, but got a "
                          "%dD tensor", fn, qt->ndim);
    if (qt->dtype != in->dtype)
      return PyErr_Format(PyExc_RuntimeError, "%s() q tensor must be same dtype as the input "
                          "tensor, but got %s and %s", fn, tl_dtype_names[qt->dtype],
                          tl_dtype_names[in->dtype]);
    q_scalar = qt->ndim == 0;
    nq = tl_tensor_numel(qt);
    /* The kernels take q as host doubles: a q on a device is copied to the
     * host first (one read of nq values). */
    tl_tensor host = {0};
    if (tl_tensor_device(qt).type != TL_DEVICE_CPU &&
        tl_backend_tensor_to(&host, qt, tl_device_cpu(), qt->dtype, false) != TL_OK)
      return tl_py_raise();
    const tl_tensor *qh = host.storage ? &host : qt;
    q = PyMem_Malloc(sizeof(double) * (size_t)(nq ? nq : 1));
    if (!q) {
      if (host.storage)
        tl_tensor_release(&host);
      return PyErr_NoMemory();
    }
    for (int64_t i = 0; i < nq; i++) {
      const char *p = (const char *)qh->storage->data +
                      (qh->offset + (qh->ndim ? i * qh->strides[0] : 0)) * (int64_t)tl_dtype_size(qh->dtype);
      q[i] = tl_scalar_load(qh->dtype, p).v.f;
    }
    if (host.storage)
      tl_tensor_release(&host);
  }
  r = new_tensor();
  if (r && tl_quantile(in, q, nq, q_scalar, !a->has_dim, a->dim, a->keepdim, method,
                       op == TL_OP_NANQUANTILE, tl_py_t(r)) != TL_OK) {
    Py_CLEAR(r);
    tl_py_raise();
  }
  if (q != &q1)
    PyMem_Free(q);
  return r;
}

/* ---- cummax, cummin --------------------------------------------------------------- */

/* ---- unique, unique_consecutive ----------------------------------------------------- */

/* The unique values of in (along dim when has_dim), with the inverse
 * indices and the counts when wanted. */
static PyObject *unique_run(tl_op op, PyObject *input, bool want_inverse, bool want_counts,
                            bool has_dim, int64_t dim)
{
  const tl_tensor *in = tl_py_t(input);
  bool consecutive = op == TL_OP_UNIQUE_CONSECUTIVE;
  /* sorted=False may return any order; ours is always sorted, as on PyTorch's CPU. */
  PyObject *out = new_tensor(), *inv = new_tensor(), *counts = new_tensor(), *r = NULL;
  if (!out || !inv || !counts)
    goto done;
  tl_tensor *ti = want_inverse ? tl_py_t(inv) : NULL, *tc = want_counts ? tl_py_t(counts) : NULL;
  tl_status st = has_dim ? tl_unique_dim(in, dim, consecutive, tl_py_t(out), ti, tc)
                         : tl_unique(in, consecutive, tl_py_t(out), ti, tc);
  if (st != TL_OK) {
    tl_py_raise();
    goto done;
  }
  if (!want_inverse && !want_counts) {
    r = Py_NewRef(out);
    goto done;
  }
  r = PyTuple_New(1 + want_inverse + want_counts);
  if (!r)
    goto done;
  PyTuple_SET_ITEM(r, 0, Py_NewRef(out));
  if (want_inverse)
    PyTuple_SET_ITEM(r, 1, Py_NewRef(inv));
  if (want_counts)
    PyTuple_SET_ITEM(r, 1 + want_inverse, Py_NewRef(counts));
done:
  Py_XDECREF(out);
  Py_XDECREF(inv);
  Py_XDECREF(counts);
  return r;
}

/* ---- searchsorted, bucketize ------------------------------------------------------- */

/* A tensor argument that may also be a Python number (a 0-d tensor then). */
static int tensor_or_scalar(const char *fn, const char *name, PyObject *o, tl_tensor *t)
{
  if (!o) {
    PyErr_Format(PyExc_TypeError, "%s() missing required argument '%s'", fn, name);
    return -1;
  }
  if (tl_py_is_tensor(o)) {
    tl_tensor_view_of(t, tl_py_t(o));
    return 0;
  }
  tl_scalar s;
  int r = tl_py_scalar(o, &s);
  if (r == 0)
    PyErr_Format(PyExc_TypeError, "%s(): argument '%s' must be Tensor or Number, not %s", fn, name,
                 Py_TYPE(o)->tp_name);
  if (r <= 0)
    return -1;
  bool weak;
  return tl_py_to_tensor(o, -1, false, t, &weak);
}

/* searchsorted (side= or right=, sorter=) and bucketize (boundaries 1-d) */
static PyObject *search_run(tl_op op, const tl_tensor *seq, PyObject *val_obj, bool out_int32,
                            bool right, const tl_tensor *sorter)
{
  const char *fn = tl_op_infos[op].name;
  if (op == TL_OP_BUCKETIZE && seq->ndim != 1)
    return PyErr_Format(PyExc_RuntimeError, "bucketize(): boundaries tensor must be 1 dimension, "
                        "but got dim(%d)", seq->ndim);
  tl_tensor values = {0};
  if (tensor_or_scalar(fn, "input", val_obj, &values) < 0)
    return NULL;
  PyObject *r = NULL;
  if (!tl_py_is_tensor(val_obj) && seq->ndim != 1) {
    PyErr_Format(PyExc_RuntimeError, "searchsorted(): input value can be a scalar only when "
                 "boundaries tensor dimension is 1, but we got boundaries tensor dim(%d)", seq->ndim);
    goto done;
  }
  if (!tl_py_is_tensor(val_obj) && tl_tensor_device(seq).type != TL_DEVICE_CPU) {
    /* a number goes where the boundaries are, as in PyTorch */
    tl_tensor moved = {0};
    if (tl_backend_tensor_to(&moved, &values, tl_tensor_device(seq), values.dtype, false) != TL_OK) {
      tl_py_raise();
      goto done;
    }
    tl_tensor_release(&values);
    values = moved;
  }
  r = new_tensor();
  if (r && tl_searchsorted(seq, &values, right, sorter, out_int32, tl_py_t(r)) != TL_OK) {
    tl_py_raise();
    Py_CLEAR(r);
  }
done:
  tl_tensor_release(&values);
  return r;
}

/* out=: the result is computed into new tensors, then copied into the given
 * ones, which must already have the result's shape and dtype (PyTorch would
 * resize them). */
static int copy_out(const char *fn, PyObject *result, PyObject *out)
{
  char s1[96], s2[96];
  if (!tl_py_is_tensor(out)) {
    PyErr_Format(PyExc_TypeError, "%s(): argument 'out' must be Tensor, not %s", fn,
                 Py_TYPE(out)->tp_name);
    return -1;
  }
  tl_tensor *o = tl_py_t(out), *r = tl_py_t(result);
  if (o->ndim != r->ndim || memcmp(o->shape, r->shape, sizeof(int64_t) * (size_t)r->ndim) ||
      o->dtype != r->dtype) {
    PyErr_Format(PyExc_RuntimeError, "%s(): out tensor of shape %s and dtype %s does not match "
                 "the result's shape %s and dtype %s", fn,
                 tl_shape_str(s1, sizeof s1, o->ndim, o->shape), tl_dtype_names[o->dtype],
                 tl_shape_str(s2, sizeof s2, r->ndim, r->shape), tl_dtype_names[r->dtype]);
    return -1;
  }
  if (o->storage->readonly) {
    PyErr_Format(PyExc_ValueError, "%s(): out tensor is read-only", fn);
    return -1;
  }
  if (tl_tensor_copy(o, r) != TL_OK)
    return tl_py_raise_int();
  tl_storage_bump(o->storage);
  return 0;
}

static PyObject *with_out(const char *fn, PyObject *result, PyObject *out)
{
  if (tl_py_is_tensor(result)) {
    int r = copy_out(fn, result, out);
    Py_DECREF(result);
    return r < 0 ? NULL : Py_NewRef(out);
  }
  Py_ssize_t n = PyTuple_GET_SIZE(result);
  /* A tuple of our own: the copies run without the GIL, and another thread
   * may empty a list `out` meanwhile. */
  PyObject *seq = PySequence_Check(out) && !tl_py_is_tensor(out) ? PySequence_Tuple(out) : NULL;
  if (!seq || PySequence_Fast_GET_SIZE(seq) != n) {
    Py_XDECREF(seq);
    PyErr_Clear();
    Py_DECREF(result);
    return PyErr_Format(PyExc_TypeError, "%s(): argument 'out' must be a tuple of %zd Tensors", fn, n);
  }
  bool named = !PyTuple_CheckExact(result); /* one of our return_types */
  PyObject *ret = named ? PyStructSequence_New(Py_TYPE(result)) : PyTuple_New(n);
  for (Py_ssize_t i = 0; ret && i < n; i++) {
    PyObject *o = PySequence_Fast_GET_ITEM(seq, i);
    if (copy_out(fn, PyTuple_GET_ITEM(result, i), o) < 0) {
      Py_CLEAR(ret);
      break;
    }
    if (named)
      PyStructSequence_SetItem(ret, i, Py_NewRef(o));
    else
      PyTuple_SET_ITEM(ret, i, Py_NewRef(o));
  }
  Py_DECREF(seq);
  Py_DECREF(result);
  return ret;
}

/* ---- implementations of the generated binders (signatures.txt) ----------------------- */

/* The result, or the result copied into out= when one is given. */
static PyObject *finish(tl_op op, PyObject *result, PyObject *out)
{
  return result && out && out != Py_None ? with_out(tl_op_infos[op].name, result, out) : result;
}

PyObject *tl_py_impl_sort(tl_op op, const tl_py_args_sort *a)
{
  return finish(op, sort_run(op, tl_py_t(a->input), a->dim, a->descending, a->stable), a->out);
}

PyObject *tl_py_impl_msort(tl_op op, const tl_py_args_msort *a)
{
  return finish(op, sort_run(op, tl_py_t(a->input), 0, false, false), a->out);
}

/* NumPy's np.sort: values only, stable, along any dim (torchlike.numpy). */
PyObject *tl_py_impl_sort_values(tl_op op, const tl_py_args_sort_values *a)
{
  return finish(op, sort_run(op, tl_py_t(a->input), a->dim, a->descending, true), a->out);
}

PyObject *tl_py_impl_topk(tl_op op, const tl_py_args_topk *a)
{
  return finish(op, select_run(op, tl_py_t(a->input), a->k, a->dim, a->largest), a->out);
}

PyObject *tl_py_impl_kthvalue(tl_op op, const tl_py_args_kthvalue *a)
{
  return finish(op, select_run(op, tl_py_t(a->input), a->k, a->dim, a->keepdim), a->out);
}

PyObject *tl_py_impl_mode(tl_op op, const tl_py_args_mode *a)
{
  return finish(op, select_run(op, tl_py_t(a->input), 0, a->dim, a->keepdim), a->out);
}

PyObject *tl_py_impl_cummax(tl_op op, const tl_py_args_cummax *a)
{
  PyObject *v = new_tensor(), *i = new_tensor();
  if (v && i && tl_cummax(tl_py_t(a->input), a->dim, op == TL_OP_CUMMIN, tl_py_t(v),
                          tl_py_t(i)) != TL_OK) {
    tl_py_raise();
    Py_CLEAR(v);
  }
  return finish(op, pair_result(op == TL_OP_CUMMIN ? RT_CUMMIN : RT_CUMMAX, v, i), a->out);
}

/* median/nanmedian(input) | (input, dim, keepdim=False) */
PyObject *tl_py_impl_median(tl_op op, const tl_py_args_median *a)
{
  const tl_tensor *in = tl_py_t(a->input);
  if (a->has_dim)
    return finish(op, select_run(op, in, 0, a->dim, a->keepdim), a->out);
  if (a->has_keepdim) /* the median of everything: a 0-d tensor */
    return PyErr_Format(PyExc_TypeError, "%s(): keepdim needs a dim", tl_op_infos[op].name);
  PyObject *r = new_tensor();
  if (r && tl_median_all(in, op == TL_OP_NANMEDIAN, tl_py_t(r)) != TL_OK) {
    Py_DECREF(r);
    return tl_py_raise();
  }
  return finish(op, r, a->out);
}

PyObject *tl_py_impl_quantile(tl_op op, const tl_py_args_quantile *a)
{
  return finish(op, quantile_run(op, a), a->out);
}

PyObject *tl_py_impl_unique(tl_op op, const tl_py_args_unique *a)
{
  (void)a->sorted;
  return finish(op, unique_run(op, a->input, a->return_inverse, a->return_counts, a->has_dim,
                               a->dim), a->out);
}

PyObject *tl_py_impl_unique_consecutive(tl_op op, const tl_py_args_unique_consecutive *a)
{
  return finish(op, unique_run(op, a->input, a->return_inverse, a->return_counts, a->has_dim,
                               a->dim), a->out);
}

PyObject *tl_py_impl_searchsorted(tl_op op, const tl_py_args_searchsorted *a)
{
  bool right = a->right;
  if (a->side) {
    if (strcmp(a->side, "left") && strcmp(a->side, "right"))
      return PyErr_Format(PyExc_RuntimeError, "searchsorted(): side can only be 'left' or "
                          "'right' but got %s", a->side);
    bool side_right = !strcmp(a->side, "right");
    if (a->has_right && right != side_right)
      return PyErr_Format(PyExc_RuntimeError, "searchsorted(): side and right can't be set to "
                          "opposites, got side of %s while right was True", a->side);
    right = side_right;
  }
  return finish(op, search_run(op, tl_py_t(a->sorted_sequence), a->input, a->out_int32, right,
                               a->sorter ? tl_py_t(a->sorter) : NULL), a->out);
}

PyObject *tl_py_impl_bucketize(tl_op op, const tl_py_args_bucketize *a)
{
  return finish(op, search_run(op, tl_py_t(a->boundaries), a->input, a->out_int32, a->right,
                               NULL), a->out);
}

/* bincount and histc: a new tensor from fn, or out= */
static PyObject *count_result(tl_op op, tl_status st, PyObject *r, PyObject *out)
{
  if (st != TL_OK) {
    Py_DECREF(r);
    return tl_py_raise();
  }
  return finish(op, r, out);
}

PyObject *tl_py_impl_bincount(tl_op op, const tl_py_args_bincount *a)
{
  PyObject *r = new_tensor();
  if (!r)
    return NULL;
  return count_result(op, tl_bincount(tl_py_t(a->input), a->weights ? tl_py_t(a->weights) : NULL,
                                      a->minlength, tl_py_t(r)), r, a->out);
}

PyObject *tl_py_impl_histc(tl_op op, const tl_py_args_histc *a)
{
  const tl_scalar *b[2] = {&a->min, &a->max};
  double lim[2];
  for (int i = 0; i < 2; i++)
    lim[i] = b[i]->kind == TL_KIND_FLOAT ? b[i]->v.f
             : b[i]->kind == TL_KIND_INT ? (double)b[i]->v.i : b[i]->v.b;
  PyObject *r = new_tensor();
  if (!r)
    return NULL;
  return count_result(op, tl_histc(tl_py_t(a->input), a->bins, lim[0], lim[1], tl_py_t(r)), r,
                      a->out);
}

/* Our named tuples, in torchlike.return_types. */
int tl_py_sort_init(PyObject *module)
{
  static const char *const qualnames[RT_COUNT] = {
      "torchlike.return_types.sort",      "torchlike.return_types.topk",
      "torchlike.return_types.kthvalue",  "torchlike.return_types.median",
      "torchlike.return_types.nanmedian", "torchlike.return_types.mode",
      "torchlike.return_types.cummax",    "torchlike.return_types.cummin"};
  for (int i = 0; i < RT_COUNT; i++)
    if (!(return_types[i] = tl_py_pair_type(module, qualnames[i])))
      return -1;
  return 0;
}
