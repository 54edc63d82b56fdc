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

static int int_arg(const char *fn, const char *name, PyObject *o, int64_t dflt, int64_t *v)
{
  *v = dflt;
  return tl_py_int_arg(fn, name, o, v);
}

static int bool_arg(PyObject *o, bool dflt, bool *v)
{
  *v = dflt;
  return tl_py_bool_arg(o, v);
}

static int double_arg(const char *fn, const char *name, PyObject *o, double dflt, double *v)
{
  *v = dflt;
  if (!o || o == Py_None)
    return 0;
  if (tl_py_is_tensor(o) && tl_tensor_numel(tl_py_t(o)) == 1) {
    tl_scalar s;
    if (tl_backend_read_scalar(tl_py_t(o), &s) != TL_OK) /* read through its device */
      return tl_py_raise_int();
    *v = s.kind == TL_KIND_FLOAT ? s.v.f : s.kind == TL_KIND_INT ? (double)s.v.i : s.v.b;
    return 0;
  }
  double x = PyFloat_AsDouble(o);
  if (x == -1.0 && PyErr_Occurred()) {
    PyErr_Format(PyExc_TypeError, "%s(): argument '%s' must be a number, not %s", fn, name,
                 Py_TYPE(o)->tp_name);
    return -1;
  }
  *v = x;
  return 0;
}

static PyObject *new_tensor(void) { return (PyObject *)tl_py_tensor_alloc(); }

/* ---- sort, argsort, msort ------------------------------------------------------ */

/* sort (values, indices), argsort (indices), msort (values) of in along dim. */
static PyObject *sort_run(tl_op op, const tl_tensor *in, int64_t dim, bool desc, bool stable)
{
  /* argsort wants no values, msort no indices */
  PyObject *v = op == TL_OP_ARGSORT ? NULL : new_tensor(), *i = op == TL_OP_MSORT ? NULL : new_tensor();
  if ((op != TL_OP_ARGSORT && !v) || (op != TL_OP_MSORT && !i))
    goto fail;
  if (tl_sort(in, dim, desc, stable, v ? tl_py_t(v) : NULL, i ? tl_py_t(i) : NULL) != TL_OK) {
    tl_py_raise();
    goto fail;
  }
  if (op == TL_OP_ARGSORT)
    return i;
  if (op == TL_OP_MSORT)
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

/* median/nanmedian(input) | (input, dim, keepdim=False): two overloads, parsed here. */
static PyObject *call_median(tl_op op, PyObject *const *args, Py_ssize_t nargs, PyObject *kw)
{
  const char *fn = tl_op_infos[op].name;
  static const char *const names[] = {"input", "dim", "keepdim", NULL};
  PyObject *a[3];
  if (tl_py_bind_args(fn, args, nargs, kw, names, 3, 0, a) < 0)
    return NULL;
  const tl_tensor *in = tl_py_tensor_arg(fn, "input", a[0]);
  if (!in)
    return NULL;
  if (!a[1] || a[1] == Py_None) { /* median of everything: a 0-d tensor */
    if (a[2])
      return PyErr_Format(PyExc_TypeError, "%s(): keepdim needs a dim", fn);
    PyObject *r = new_tensor();
    if (r && tl_median_all(in, op == TL_OP_NANMEDIAN, tl_py_t(r)) != TL_OK) {
      Py_DECREF(r);
      return tl_py_raise();
    }
    return r;
  }
  int64_t dim;
  bool keepdim;
  if (int_arg(fn, "dim", a[1], -1, &dim) < 0 || bool_arg(a[2], false, &keepdim) < 0)
    return NULL;
  return select_run(op, in, 0, dim, keepdim);
}

/* ---- quantile, nanquantile ------------------------------------------------------- */

static int parse_interpolation(const char *fn, PyObject *o, tl_quantile_method *m)
{
  static const char *const methods[] = {"linear", "lower", "higher", "midpoint", "nearest"};
  *m = TL_QUANTILE_LINEAR;
  if (!o)
    return 0;
  const char *s = PyUnicode_Check(o) ? PyUnicode_AsUTF8(o) : NULL;
  for (int i = 0; s && i < 5; i++)
    if (!strcmp(s, methods[i])) {
      *m = (tl_quantile_method)i;
      return 0;
    }
  if (!s && PyErr_Occurred())
    return -1;
  PyErr_Format(PyExc_RuntimeError, "%s() interpolation must be one of linear, lower, higher, "
               "midpoint or nearest. Got %s", fn, s ? s : Py_TYPE(o)->tp_name);
  return -1;
}

static PyObject *call_quantile(tl_op op, PyObject *const *args, Py_ssize_t nargs, PyObject *kw)
{
  const char *fn = tl_op_infos[op].name;
  static const char *const names[] = {"input", "q", "dim", "keepdim", "interpolation", NULL};
  PyObject *a[5];
  if (tl_py_bind_args(fn, args, nargs, kw, names, 4, 0, a) < 0)
    return NULL;
  const tl_tensor *in = tl_py_tensor_arg(fn, "input", a[0]);
  int64_t dim;
  bool keepdim;
  tl_quantile_method method;
  if (!in || int_arg(fn, "dim", a[2], 0, &dim) < 0 || bool_arg(a[3], false, &keepdim) < 0 ||
      parse_interpolation(fn, a[4], &method) < 0)
    return NULL;
  if (!a[1])
    return PyErr_Format(PyExc_TypeError, "%s() missing required argument 'q'", fn);
  double q1, *q = &q1;
  int64_t nq = 1;
  bool q_scalar = !tl_py_is_tensor(a[1]);
  PyObject *r = NULL;
  if (q_scalar) {
    if (double_arg(fn, "q", a[1], 0, &q1) < 0)
      return NULL;
  } else {
    const tl_tensor *qt = tl_py_t(a[1]);
    const tl_tensor *devs[2] = {in, qt};
    if (tl_check_same_device(2, devs) != TL_OK) /* q is read on the host below */
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
    q = PyMem_Malloc(sizeof(double) * (size_t)(nq ? nq : 1));
    if (!q)
      return PyErr_NoMemory();
    for (int64_t i = 0; i < nq; i++) {
      const char *p = (const char *)qt->storage->data +
                      (qt->offset + (qt->ndim ? i * qt->strides[0] : 0)) * (int64_t)tl_dtype_size(qt->dtype);
      q[i] = tl_scalar_load(qt->dtype, p).v.f;
    }
  }
  r = new_tensor();
  if (r && tl_quantile(in, q, nq, q_scalar, !a[2] || a[2] == Py_None, dim, keepdim, method,
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

static PyObject *call_unique(tl_op op, PyObject *const *args, Py_ssize_t nargs, PyObject *kw)
{
  const char *fn = tl_op_infos[op].name;
  bool consecutive = op == TL_OP_UNIQUE_CONSECUTIVE;
  static const char *const unique_names[] = {"input", "sorted", "return_inverse", "return_counts",
                                             "dim", NULL};
  static const char *const consecutive_names[] = {"input", "return_inverse", "return_counts",
                                                  "dim", NULL};
  PyObject *a[5];
  if (tl_py_bind_args(fn, args, nargs, kw, consecutive ? consecutive_names : unique_names,
                      consecutive ? 4 : 5, 0, a) < 0)
    return NULL;
  PyObject *const *rest = consecutive ? a + 1 : a + 2; /* return_inverse, return_counts, dim */
  const tl_tensor *in = tl_py_tensor_arg(fn, "input", a[0]);
  bool sorted, want_inverse, want_counts;
  int64_t dim;
  if (!in || (!consecutive && bool_arg(a[1], true, &sorted) < 0) ||
      bool_arg(rest[0], false, &want_inverse) < 0 || bool_arg(rest[1], false, &want_counts) < 0 ||
      int_arg(fn, "dim", rest[2], 0, &dim) < 0)
    return NULL;
  /* sorted=False may return any order; ours is always sorted, as on PyTorch's CPU. */
  PyObject *out = new_tensor(), *inv = new_tensor(), *counts = new_tensor(), *r = NULL;
  if (!out || !inv || !counts)
    goto done;
  tl_tensor *ti = want_inverse ? tl_py_t(inv) : NULL, *tc = want_counts ? tl_py_t(counts) : NULL;
  tl_status st = rest[2] && rest[2] != Py_None
                     ? tl_unique_dim(in, dim, consecutive, tl_py_t(out), ti, tc)
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

static PyObject *call_search(tl_op op, PyObject *const *args, Py_ssize_t nargs, PyObject *kw)
{
  const char *fn = tl_op_infos[op].name;
  bool bucketize = op == TL_OP_BUCKETIZE;
  static const char *const search_names[] = {"sorted_sequence", "input", "out_int32", "right",
                                             "side", "sorter", NULL};
  static const char *const bucket_names[] = {"input", "boundaries", "out_int32", "right", NULL};
  PyObject *a[6];
  if (tl_py_bind_args(fn, args, nargs, kw, bucketize ? bucket_names : search_names, 2, 0, a) < 0)
    return NULL;
  PyObject *seq_obj = bucketize ? a[1] : a[0], *val_obj = bucketize ? a[0] : a[1];
  const tl_tensor *seq = tl_py_tensor_arg(fn, bucketize ? "boundaries" : "sorted_sequence", seq_obj);
  bool out_int32, right;
  if (!seq || bool_arg(a[2], false, &out_int32) < 0 || bool_arg(a[3], false, &right) < 0)
    return NULL;
  if (bucketize && seq->ndim != 1)
    return PyErr_Format(PyExc_RuntimeError, "bucketize(): boundaries tensor must be 1 dimension, "
                        "but got dim(%d)", seq->ndim);
  const tl_tensor *sorter = NULL;
  if (!bucketize) {
    if (a[4] && a[4] != Py_None) {
      const char *side = PyUnicode_Check(a[4]) ? PyUnicode_AsUTF8(a[4]) : NULL;
      if (!side || (strcmp(side, "left") && strcmp(side, "right")))
        return PyErr_Format(PyExc_RuntimeError, "searchsorted(): side can only be 'left' or "
                            "'right' but got %s", side ? side : Py_TYPE(a[4])->tp_name);
      bool side_right = !strcmp(side, "right");
      if (a[3] && a[3] != Py_None && right != side_right)
        return PyErr_Format(PyExc_RuntimeError, "searchsorted(): side and right can't be set to "
                            "opposites, got side of %s while right was True", side);
      right = side_right;
    }
    if (a[5] && a[5] != Py_None && !(sorter = tl_py_tensor_arg(fn, "sorter", a[5])))
      return NULL;
  }
  tl_tensor values = {0};
  if (tensor_or_scalar(fn, "input", val_obj, &values) < 0)
    return NULL;
  PyObject *r = NULL;
  if (!tl_py_is_tensor(val_obj) && seq->ndim != 1) {
    PyErr_Format(PyExc_RuntimeError, "searchsorted(): input value can be a scalar only when "
                 "boundaries tensor dimension is 1, but we got boundaries tensor dim(%d)", seq->ndim);
    goto done;
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

/* ---- bincount, histc ------------------------------------------------------------------ */

static PyObject *call_count(tl_op op, PyObject *const *args, Py_ssize_t nargs, PyObject *kw)
{
  const char *fn = tl_op_infos[op].name;
  static const char *const bincount_names[] = {"input", "weights", "minlength", NULL};
  static const char *const histc_names[] = {"input", "bins", "min", "max", NULL};
  bool histc = op == TL_OP_HISTC;
  PyObject *a[4];
  if (tl_py_bind_args(fn, args, nargs, kw, histc ? histc_names : bincount_names, histc ? 4 : 3, 0,
                      a) < 0)
    return NULL;
  const tl_tensor *in = tl_py_tensor_arg(fn, "input", a[0]);
  if (!in)
    return NULL;
  PyObject *r = NULL;
  tl_status st;
  if (histc) {
    int64_t bins;
    double lo, hi;
    if (int_arg(fn, "bins", a[1], 100, &bins) < 0 || double_arg(fn, "min", a[2], 0, &lo) < 0 ||
        double_arg(fn, "max", a[3], 0, &hi) < 0 || !(r = new_tensor()))
      return NULL;
    st = tl_histc(in, bins, lo, hi, tl_py_t(r));
  } else {
    int64_t minlength;
    const tl_tensor *w = NULL;
    if ((a[1] && a[1] != Py_None && !(w = tl_py_tensor_arg(fn, "weights", a[1]))) ||
        int_arg(fn, "minlength", a[2], 0, &minlength) < 0 || !(r = new_tensor()))
      return NULL;
    st = tl_bincount(in, w, minlength, tl_py_t(r));
  }
  if (st != TL_OK) {
    Py_DECREF(r);
    return tl_py_raise();
  }
  return r;
}

/* ---- dispatch ----------------------------------------------------------------- */

static PyObject *dispatch(tl_op op, PyObject *const *args, Py_ssize_t nargs, PyObject *kwnames)
{
  switch (op) {
  case TL_OP_MEDIAN:
  case TL_OP_NANMEDIAN:
    return call_median(op, args, nargs, kwnames);
  case TL_OP_QUANTILE:
  case TL_OP_NANQUANTILE:
    return call_quantile(op, args, nargs, kwnames);
  case TL_OP_UNIQUE:
  case TL_OP_UNIQUE_CONSECUTIVE:
    return call_unique(op, args, nargs, kwnames);
  case TL_OP_SEARCHSORTED:
  case TL_OP_BUCKETIZE:
    return call_search(op, args, nargs, kwnames);
  case TL_OP_BINCOUNT:
  case TL_OP_HISTC:
    return call_count(op, args, nargs, kwnames);
  default: /* the generated binders (tl_py_op_binders) take the others */
    return PyErr_Format(PyExc_SystemError, "%s(): no binder", tl_op_infos[op].name);
  }
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

PyObject *tl_py_sort_call(tl_op op, PyObject *const *args, Py_ssize_t nargs, PyObject *kwnames)
{
  Py_ssize_t nkw = kwnames ? PyTuple_GET_SIZE(kwnames) : 0, at = -1;
  for (Py_ssize_t k = 0; k < nkw && at < 0; k++)
    if (PyUnicode_CompareWithASCIIString(PyTuple_GET_ITEM(kwnames, k), "out") == 0)
      at = k;
  if (at < 0)
    return dispatch(op, args, nargs, kwnames);
  /* Call without out=, then fill it. */
  PyObject *out = args[nargs + at];
  PyObject *const *call_args = args;
  PyObject **copy = PyMem_Malloc(sizeof(PyObject *) * (size_t)(nargs + nkw));
  PyObject *names = PyTuple_New(nkw - 1), *r = NULL;
  if (!copy || !names) {
    PyErr_NoMemory();
    goto done;
  }
  for (Py_ssize_t i = 0; i < nargs; i++)
    copy[i] = args[i];
  for (Py_ssize_t k = 0, j = 0; k < nkw; k++)
    if (k != at) {
      copy[nargs + j] = args[nargs + k];
      PyTuple_SET_ITEM(names, j++, Py_NewRef(PyTuple_GET_ITEM(kwnames, k)));
    }
  call_args = copy;
  r = dispatch(op, call_args, nargs, nkw > 1 ? names : NULL);
  if (r && out != Py_None)
    r = with_out(tl_op_infos[op].name, r, out);
done:
  PyMem_Free(copy);
  Py_XDECREF(names);
  return r;
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
