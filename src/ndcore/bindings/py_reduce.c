/* py_reduce.c - reductions and scans (ops.def REDUCE, REDUCE_PAIR, SCAN), and
 * torchlike.return_types.max/min.
 *
 * Called by py_ops.c for both torchlike.sum(t, ...) and t.sum(...): args[0]
 * is the tensor.  The ops with one signature each are bound by generated
 * code (signatures.txt -> generated/bindings.c) and run by the
 * tl_py_impl_* functions at the end of this file:
 *   sum/nansum/prod/mean/nanmean(input, dim=None, keepdim=False, *, dtype, out)
 *   amax/amin/all/any/logsumexp(input, dim=None, keepdim=False, *, out)
 *   argmax/argmin(input, dim=None, keepdim=False)
 *   count_nonzero(input, dim=None)
 *   cumsum/cumprod(input, dim, *, dtype=None, out=None)
 * Those with overloads are parsed here by hand:
 *   var/std(input, dim=None, unbiased|*, correction=1, keepdim=False, out)
 *      and the legacy var(input, unbiased) / var(input, dim, unbiased, keepdim)
 *   norm(input, p='fro', dim=None, keepdim=False, out=None, dtype=None)
 *   max/min(input) | (input, dim, keepdim=False, *, out) -> (values, indices)
 *          | (input, other, *, out) -> elementwise maximum/minimum
 * dim=() or dim=[] means every dim, as in PyTorch.                        */
#include <math.h>

#include "ndcore/bindings/generated/bindings.h"

#define TL_MAX_ARGS 6

/* Bind positional args and keywords to names[]; the first npos may be
 * positional.  values[] must start NULL. */
static int bind_args(const char *func, PyObject *const *args, Py_ssize_t nargs, PyObject *kwnames,
                     const char *const *names, int npos, PyObject **values)
{
  if (tl_py_bind_args(func, args, nargs, kwnames, names, npos, 1, values) < 0)
    return -1;
  if (!tl_py_is_tensor(values[0])) {
    PyErr_Format(PyExc_TypeError, "%s(): argument 'input' must be Tensor, not %s", func,
                 Py_TYPE(values[0])->tp_name);
    return -1;
  }
  return 0;
}

/* One int dim (max, min); *dim untouched when o is None/NULL. */
static int parse_one_dim(const char *func, PyObject *o, int ndim, int *dim)
{
  if (!PyIndex_Check(o) || PyBool_Check(o)) {
    PyErr_Format(PyExc_TypeError, "%s(): argument 'dim' must be int, not %s", func,
                 Py_TYPE(o)->tp_name);
    return -1;
  }
  long long d = PyLong_AsLongLong(o);
  if (d == -1 && PyErr_Occurred())
    return -1;
  return tl_dim_wrap(d, ndim, dim) != TL_OK ? tl_py_raise_int() : 0;
}

/* out=: a tensor, or None */
static int check_out(const char *func, PyObject *out)
{
  PyObject *t;
  return tl_py_arg_tensor(func, "out", out, true, &t);
}

/* Run the core reduction into a new tensor or into out. */
static PyObject *run_reduce(tl_op op, PyObject *input, const tl_reduce_args *a, PyObject *out)
{
  if (out && out != Py_None) {
    if (tl_op_reduce(op, tl_py_t(input), a, tl_py_t(out), NULL) != TL_OK)
      return tl_py_raise();
    return Py_NewRef(out);
  }
  tl_py_tensor *r = tl_py_tensor_alloc();
  if (!r)
    return NULL;
  if (tl_op_reduce(op, tl_py_t(input), a, &r->t, NULL) != TL_OK) {
    Py_DECREF(r);
    return tl_py_raise();
  }
  return (PyObject *)r;
}

/* ---- return_types ------------------------------------------------------------ */

static PyTypeObject *max_type, *min_type;

/* A (values, indices) named tuple; steals both references. */
static PyObject *return_pair(tl_op op, PyObject *values, PyObject *indices)
{
  return tl_py_pair(op == TL_OP_MAX ? max_type : min_type, values, indices);
}

int tl_py_reduce_init(PyObject *module)
{
  max_type = tl_py_pair_type(module, "torchlike.return_types.max");
  min_type = max_type ? tl_py_pair_type(module, "torchlike.return_types.min") : NULL;
  return min_type ? 0 : -1;
}

/* ---- per-family parsing ---------------------------------------------------------- */

static PyObject *call_max_min(tl_op op, PyObject *const *args, Py_ssize_t nargs, PyObject *kwnames)
{
  const char *name = tl_op_infos[op].name;
  static const char *const names[] = {"input", "dim", "keepdim", "out", "other", NULL};
  PyObject *v[TL_MAX_ARGS] = {NULL};
  if (bind_args(name, args, nargs, kwnames, names, 3, v) < 0)
    return NULL;
  PyObject *other = v[4] ? v[4] : v[1] && tl_py_is_tensor(v[1]) ? v[1] : NULL;
  if (other) { /* max(a, b): the elementwise maximum */
    if ((v[4] && v[1]) || v[2])
      return PyErr_Format(PyExc_TypeError, "%s(): 'other' cannot be combined with dim or keepdim",
                          name);
    if (check_out(name, v[3]) < 0)
      return NULL;
    PyObject *operands[2] = {v[0], other};
    tl_op_params p = {0};
    return tl_py_map(op == TL_OP_MAX ? TL_OP_MAXIMUM : TL_OP_MINIMUM, 2, operands,
                     v[3] == Py_None ? NULL : v[3], &p);
  }
  tl_reduce_args a = {.dtype = -1};
  if (tl_py_arg_bool(name, "keepdim", v[2], &a.keepdim) < 0)
    return NULL;
  const tl_tensor *t = tl_py_t(v[0]);
  if (!v[1] || v[1] == Py_None) {
    if (v[2])
      return PyErr_Format(PyExc_TypeError, "%s(): keepdim needs a dim argument", name);
    if (check_out(name, v[3]) < 0)
      return NULL;
    return run_reduce(op, v[0], &a, v[3]);
  }
  int dim;
  if (parse_one_dim(name, v[1], t->ndim, &dim) < 0)
    return NULL;
  a.dims = t->ndim ? (uint64_t)1 << dim : 0;
  PyObject *out_values = NULL, *out_indices = NULL;
  if (v[3] && v[3] != Py_None) {
    if (!PyTuple_Check(v[3]) || PyTuple_GET_SIZE(v[3]) != 2 ||
        !tl_py_is_tensor(PyTuple_GET_ITEM(v[3], 0)) || !tl_py_is_tensor(PyTuple_GET_ITEM(v[3], 1)))
      return PyErr_Format(PyExc_TypeError, "%s(): argument 'out' must be a tuple of two Tensors "
                                           "(values, indices)", name);
    out_values = PyTuple_GET_ITEM(v[3], 0);
    out_indices = PyTuple_GET_ITEM(v[3], 1);
  }
  tl_py_tensor *values = out_values ? NULL : tl_py_tensor_alloc();
  tl_py_tensor *indices = out_indices ? NULL : tl_py_tensor_alloc();
  if ((!out_values && !values) || (!out_indices && !indices))
    goto fail;
  if (tl_op_reduce(op, t, &a, out_values ? tl_py_t(out_values) : &values->t,
                   out_indices ? tl_py_t(out_indices) : &indices->t) != TL_OK) {
    tl_py_raise();
    goto fail;
  }
  return return_pair(op, out_values ? Py_NewRef(out_values) : (PyObject *)values,
                     out_indices ? Py_NewRef(out_indices) : (PyObject *)indices);
fail:
  Py_XDECREF(values);
  Py_XDECREF(indices);
  return NULL;
}

/* var/std: correction= or the legacy unbiased (a bool in second place means
 * var(input, unbiased)). */
static PyObject *call_var(tl_op op, PyObject *const *args, Py_ssize_t nargs, PyObject *kwnames)
{
  const char *name = tl_op_infos[op].name;
  static const char *const names[] = {"input", "dim", "unbiased", "keepdim", "correction", "out", NULL};
  PyObject *v[TL_MAX_ARGS + 1] = {NULL};
  PyObject *shifted[4];
  if (nargs >= 2 && PyBool_Check(args[1])) { /* var(input, unbiased[, keepdim]) */
    if (nargs > 3)
      return PyErr_Format(PyExc_TypeError, "%s() takes at most 3 positional arguments when "
                                           "'unbiased' comes second", name);
    shifted[0] = args[0];
    shifted[1] = Py_None;
    for (Py_ssize_t i = 1; i < nargs; i++)
      shifted[i + 1] = args[i];
    PyObject *all[4 + 8];
    Py_ssize_t nkw = kwnames ? PyTuple_GET_SIZE(kwnames) : 0;
    if (nkw > 8)
      return PyErr_Format(PyExc_TypeError, "%s(): too many keyword arguments", name);
    for (Py_ssize_t i = 0; i <= nargs; i++)
      all[i] = shifted[i];
    for (Py_ssize_t k = 0; k < nkw; k++)
      all[nargs + 1 + k] = args[nargs + k];
    if (bind_args(name, all, nargs + 1, kwnames, names, 4, v) < 0)
      return NULL;
  } else if (bind_args(name, args, nargs, kwnames, names, 4, v) < 0) {
    return NULL;
  }
  tl_reduce_args a = {.dtype = -1, .p.s[0] = {.kind = TL_KIND_FLOAT, .v.f = 1.0}};
  if (v[2] && v[2] != Py_None) {
    bool unbiased = true;
    if (v[4] && v[4] != Py_None)
      return PyErr_Format(PyExc_TypeError, "%s(): cannot specify both 'unbiased' and "
                                           "'correction'", name);
    if (tl_py_arg_bool(name, "unbiased", v[2], &unbiased) < 0)
      return NULL;
    a.p.s[0].v.f = unbiased ? 1.0 : 0.0;
  } else if (v[4] && v[4] != Py_None) {
    double c = PyFloat_AsDouble(v[4]);
    if (c == -1.0 && PyErr_Occurred())
      return NULL;
    a.p.s[0].v.f = c;
  }
  if (tl_py_arg_bool(name, "keepdim", v[3], &a.keepdim) < 0 || check_out(name, v[5]) < 0 ||
      tl_py_parse_dims(v[1], tl_py_t(v[0])->ndim, &a.dims) < 0)
    return NULL;
  return run_reduce(op, v[0], &a, v[5]);
}

static PyObject *call_norm(PyObject *const *args, Py_ssize_t nargs, PyObject *kwnames)
{
  static const char *const names[] = {"input", "p", "dim", "keepdim", "out", "dtype", NULL};
  PyObject *v[TL_MAX_ARGS] = {NULL};
  if (bind_args("norm", args, nargs, kwnames, names, 6, v) < 0)
    return NULL;
  tl_reduce_args a = {.dtype = -1, .p.s[0] = {.kind = TL_KIND_FLOAT, .v.f = 2.0}};
  PyObject *p = v[1];
  if (p && PyUnicode_Check(p)) {
    const char *s = PyUnicode_AsUTF8(p);
    if (!s)
      return NULL;
    if (!strcmp(s, "nuc"))
      return PyErr_Format(PyExc_NotImplementedError, "norm(): the nuclear norm is "
                                                     "torchlike.linalg.matrix_norm(ord='nuc')");
    if (strcmp(s, "fro"))
      return PyErr_Format(PyExc_RuntimeError, "norm(): unsupported norm type '%s'", s);
  } else if (p && p != Py_None) {
    double f = PyFloat_AsDouble(p);
    if (f == -1.0 && PyErr_Occurred()) {
      PyErr_Clear();
      return PyErr_Format(PyExc_TypeError, "norm(): argument 'p' must be a number or 'fro', "
                                           "not %s", Py_TYPE(p)->tp_name);
    }
    a.p.s[0].v.f = f;
  }
  if (tl_py_arg_bool("norm", "keepdim", v[3], &a.keepdim) < 0 || check_out("norm", v[4]) < 0 ||
      tl_py_arg_dtype(v[5], &a.dtype) < 0 ||
      tl_py_parse_dims(v[2], tl_py_t(v[0])->ndim, &a.dims) < 0)
    return NULL;
  return run_reduce(TL_OP_NORM, v[0], &a, v[4]);
}

PyObject *tl_py_reduce_call(tl_op op, PyObject *const *args, Py_ssize_t nargs, PyObject *kwnames)
{
  switch (op) {
  case TL_OP_MAX:
  case TL_OP_MIN:
    return call_max_min(op, args, nargs, kwnames);
  case TL_OP_VAR:
  case TL_OP_STD:
    return call_var(op, args, nargs, kwnames);
  case TL_OP_NORM:
    return call_norm(args, nargs, kwnames);
  default: /* the generated binders (tl_py_op_binders) take the others */
    return PyErr_Format(PyExc_SystemError, "%s(): no binder", tl_op_infos[op].name);
  }
}

/* ---- implementations of the generated binders (signatures.txt) ----------------------- */

PyObject *tl_py_impl_reduce_dtype(tl_op op, const tl_py_args_reduce_dtype *a)
{
  tl_reduce_args r = {.keepdim = a->keepdim, .dtype = a->dtype};
  if (tl_py_ints_dims(&a->dim, tl_py_t(a->input)->ndim, &r.dims) < 0)
    return NULL;
  return run_reduce(op, a->input, &r, a->out);
}

PyObject *tl_py_impl_reduce_out(tl_op op, const tl_py_args_reduce_out *a)
{
  tl_reduce_args r = {.keepdim = a->keepdim, .dtype = -1};
  if (tl_py_ints_dims(&a->dim, tl_py_t(a->input)->ndim, &r.dims) < 0)
    return NULL;
  return run_reduce(op, a->input, &r, a->out);
}

PyObject *tl_py_impl_count_nonzero(tl_op op, const tl_py_args_count_nonzero *a)
{
  tl_reduce_args r = {.dtype = -1};
  if (tl_py_ints_dims(&a->dim, tl_py_t(a->input)->ndim, &r.dims) < 0)
    return NULL;
  return run_reduce(op, a->input, &r, NULL);
}

/* argmax/argmin: one dim, or the flattened input when none */
PyObject *tl_py_impl_reduce_index(tl_op op, const tl_py_args_reduce_index *a)
{
  const tl_tensor *t = tl_py_t(a->input);
  tl_reduce_args r = {.keepdim = a->keepdim, .dtype = -1};
  if (a->has_dim) {
    int dim;
    if (tl_dim_wrap(a->dim, t->ndim, &dim) != TL_OK)
      return tl_py_raise();
    r.dims = t->ndim ? (uint64_t)1 << dim : 0;
  }
  return run_reduce(op, a->input, &r, NULL);
}

PyObject *tl_py_impl_scan(tl_op op, const tl_py_args_scan *a)
{
  const tl_tensor *t = tl_py_t(a->input);
  int dim;
  if (tl_dim_wrap(a->dim, t->ndim, &dim) != TL_OK)
    return tl_py_raise();
  if (a->out) {
    if (tl_op_scan(op, t, dim, a->dtype, tl_py_t(a->out)) != TL_OK)
      return tl_py_raise();
    return Py_NewRef(a->out);
  }
  tl_py_tensor *r = tl_py_tensor_alloc();
  if (!r)
    return NULL;
  if (tl_op_scan(op, t, dim, a->dtype, &r->t) != TL_OK) {
    Py_DECREF(r);
    return tl_py_raise();
  }
  return (PyObject *)r;
}
