/* py_reduce.c - reductions and scans (ops.def REDUCE, REDUCE_PAIR, SCAN), and
 * torchlike.return_types.max/min.
 *
 * Every op of the family is bound by generated code from its signature
 * (signatures.txt [reduce] -> generated/bindings.c) and run by the
 * tl_py_impl_* functions here:
 *   sum/nansum/prod/mean/nanmean(input, dim=None, keepdim=False, *, dtype, out)
 *   amax/amin/all/any/logsumexp(input, dim=None, keepdim=False, *, out)
 *   argmax/argmin(input, dim=None, keepdim=False)
 *   count_nonzero(input, dim=None)
 *   cumsum/cumprod(input, dim, *, dtype=None, out=None)
 *   var/std(input, dim=None, unbiased=None, keepdim=False, *, correction, out)
 *      and the legacy overload var(input, unbiased, keepdim=False)
 *   norm(input, p='fro', dim=None, keepdim=False, out=None, dtype=None)
 *   max/min(input) | (input, dim, keepdim=False, *, out) -> (values, indices)
 *          | (input, other, *, out) -> elementwise maximum/minimum
 *   _C._sumprod(a, b, dim): (a * b).sum(dim) in a's dtype, in one pass
 *          (einsum's fused contraction, torchlike/_einsum.py; no tape)
 * dim=() or dim=[] means every dim, as in PyTorch.                        */
#include <math.h>

#include "ndcore/bindings/generated/bindings.h"
#include "ndcore/kernels/tl_reduce.h"

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

/* _C._maximum_plain(x1, x2, out=None), _C._minimum_plain: maximum/minimum
 * with one rule at every place (TL_OP_EXTREMA_PLAIN): the first operand of a
 * tie, an input's own NaN.  torchlike.numpy's maximum swaps its operands
 * into these to answer as NumPy's float loops do (the second of a tie), in
 * every layout; the public ops answer as PyTorch's, by place. */
static PyObject *extrema_plain(tl_op op, PyObject *const *args, Py_ssize_t nargs,
                               PyObject *kwnames)
{
  const char *name = op == TL_OP_MAXIMUM ? "_maximum_plain" : "_minimum_plain";
  PyObject *out = NULL;
  Py_ssize_t nkw = kwnames ? PyTuple_GET_SIZE(kwnames) : 0;
  if (nargs != 2 || nkw > 1 ||
      (nkw == 1 && PyUnicode_CompareWithASCIIString(PyTuple_GET_ITEM(kwnames, 0), "out")))
    return PyErr_Format(PyExc_TypeError, "%s() takes (x1, x2, out=None)", name);
  if (nkw == 1 && tl_py_arg_tensor(name, "out", args[2], true, &out) < 0)
    return NULL;
  tl_op_params p = {.i = TL_OP_EXTREMA_PLAIN};
  return tl_py_map(op, 2, args, out, &p);
}

static PyObject *maximum_plain(PyObject *self, PyObject *const *args, Py_ssize_t nargs,
                               PyObject *kwnames)
{
  (void)self;
  return extrema_plain(TL_OP_MAXIMUM, args, nargs, kwnames);
}

static PyObject *minimum_plain(PyObject *self, PyObject *const *args, Py_ssize_t nargs,
                               PyObject *kwnames)
{
  (void)self;
  return extrema_plain(TL_OP_MINIMUM, args, nargs, kwnames);
}

static PyMethodDef extrema_plain_functions[] = {
    {"_maximum_plain", (PyCFunction)(void (*)(void))maximum_plain, METH_FASTCALL | METH_KEYWORDS,
     NULL},
    {"_minimum_plain", (PyCFunction)(void (*)(void))minimum_plain, METH_FASTCALL | METH_KEYWORDS,
     NULL},
    {NULL, NULL, 0, NULL},
};

int tl_py_reduce_init(PyObject *module)
{
  max_type = tl_py_pair_type(module, "torchlike.return_types.max");
  min_type = max_type ? tl_py_pair_type(module, "torchlike.return_types.min") : NULL;
  if (!min_type)
    return -1;
  return PyModule_AddFunctions(module, extrema_plain_functions);
}

/* ---- implementations of the generated binders (signatures.txt) ----------------------- */

/* max(a, b) / min(a, b): the elementwise maximum / minimum */
static PyObject *max_min_other(tl_op op, const tl_py_args_max_min *a, PyObject *other)
{
  const char *name = tl_op_infos[op].name;
  PyObject *out;
  if ((a->other && a->has_dim) || a->has_keepdim)
    return PyErr_Format(PyExc_TypeError, "%s(): 'other' cannot be combined with dim or keepdim",
                        name);
  if (tl_py_arg_tensor(name, "out", a->out, true, &out) < 0)
    return NULL;
  PyObject *operands[2] = {a->input, other};
  tl_op_params p = {0};
  return tl_py_map(op == TL_OP_MAX ? TL_OP_MAXIMUM : TL_OP_MINIMUM, 2, operands, out, &p);
}

/* max/min: of everything, along a dim with indices, or against other */
PyObject *tl_py_impl_max_min(tl_op op, const tl_py_args_max_min *a)
{
  const char *name = tl_op_infos[op].name;
  if (a->other || a->dim_tensor)
    return max_min_other(op, a, a->other ? a->other : a->dim_tensor);
  tl_reduce_args r = {.dtype = -1, .keepdim = a->keepdim};
  const tl_tensor *t = tl_py_t(a->input);
  if (!a->has_dim) {
    PyObject *out;
    if (a->has_keepdim)
      return PyErr_Format(PyExc_TypeError, "%s(): keepdim needs a dim argument", name);
    if (tl_py_arg_tensor(name, "out", a->out, true, &out) < 0)
      return NULL;
    return run_reduce(op, a->input, &r, out);
  }
  int dim;
  if (tl_dim_wrap(a->dim, t->ndim, &dim) != TL_OK)
    return tl_py_raise();
  r.dims = t->ndim ? (uint64_t)1 << dim : 0;
  PyObject *out_values = NULL, *out_indices = NULL;
  if (a->out && a->out != Py_None) {
    if (!PyTuple_Check(a->out) || PyTuple_GET_SIZE(a->out) != 2 ||
        !tl_py_is_tensor(PyTuple_GET_ITEM(a->out, 0)) ||
        !tl_py_is_tensor(PyTuple_GET_ITEM(a->out, 1)))
      return PyErr_Format(PyExc_TypeError, "%s(): argument 'out' must be a tuple of two Tensors "
                                           "(values, indices)", name);
    out_values = PyTuple_GET_ITEM(a->out, 0);
    out_indices = PyTuple_GET_ITEM(a->out, 1);
  }
  tl_py_tensor *values = out_values ? NULL : tl_py_tensor_alloc();
  tl_py_tensor *indices = out_indices ? NULL : tl_py_tensor_alloc();
  if ((!out_values && !values) || (!out_indices && !indices))
    goto fail;
  if (tl_op_reduce(op, t, &r, out_values ? tl_py_t(out_values) : &values->t,
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

/* var/std with correction= or the legacy unbiased (1 or 0); both at once is an error */
static PyObject *run_var(tl_op op, PyObject *input, const tl_py_ints *dim, bool has_unbiased,
                         bool unbiased, bool keepdim, bool has_correction, double correction,
                         PyObject *out)
{
  tl_reduce_args r = {.dtype = -1, .keepdim = keepdim,
                      .p.s[0] = {.kind = TL_KIND_FLOAT, .v.f = 1.0}};
  if (has_unbiased && has_correction)
    return PyErr_Format(PyExc_TypeError, "%s(): cannot specify both 'unbiased' and "
                                         "'correction'", tl_op_infos[op].name);
  if (has_unbiased)
    r.p.s[0].v.f = unbiased ? 1.0 : 0.0;
  else if (has_correction)
    r.p.s[0].v.f = correction;
  if (tl_py_ints_dims(dim, tl_py_t(input)->ndim, &r.dims) < 0)
    return NULL;
  return run_reduce(op, input, &r, out);
}

PyObject *tl_py_impl_var(tl_op op, const tl_py_args_var *a)
{
  return run_var(op, a->input, &a->dim, a->has_unbiased, a->unbiased, a->keepdim,
                 a->has_correction, a->correction, a->out);
}

/* var(input, unbiased[, keepdim]) */
PyObject *tl_py_impl_var_unbiased(tl_op op, const tl_py_args_var_unbiased *a)
{
  return run_var(op, a->input, &a->dim, true, a->unbiased, a->keepdim, a->has_correction,
                 a->correction, a->out);
}

PyObject *tl_py_impl_norm(tl_op op, const tl_py_args_norm *a)
{
  tl_reduce_args r = {.dtype = a->dtype, .keepdim = a->keepdim,
                      .p.s[0] = {.kind = TL_KIND_FLOAT, .v.f = 2.0}};
  PyObject *p = a->p;
  if ((!p || PyUnicode_Check(p)) && a->dim.given && !a->dim.one && a->dim.n > 2) {
    /* p='fro' (the default; an explicit None is the 2-norm) over more than
     * two dims is PyTorch's matrix norm, which refuses them */
    char got[256];
    int at = 0;
    for (int i = 0; i < a->dim.n && at < (int)sizeof got; i++)
      at += snprintf(got + at, sizeof got - (size_t)at, " %lld", (long long)a->dim.v[i]);
    return PyErr_Format(PyExc_RuntimeError, "linalg.matrix_norm: dim must be a 2-tuple. Got%s",
                        got);
  }
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
    r.p.s[0].v.f = f;
  }
  if (tl_py_ints_dims(&a->dim, tl_py_t(a->input)->ndim, &r.dims) < 0)
    return NULL;
  return run_reduce(op, a->input, &r, a->out);
}

PyObject *tl_py_impl_reduce_dtype(tl_op op, const tl_py_args_reduce_dtype *a)
{
  tl_reduce_args r = {.keepdim = a->keepdim, .dtype = a->dtype};
  if (tl_py_ints_dims(&a->dim, tl_py_t(a->input)->ndim, &r.dims) < 0)
    return NULL;
  return run_reduce(op, a->input, &r, a->out);
}

PyObject *tl_py_impl_reduce_out(tl_op op, const tl_py_args_reduce_out *a)
{
  /* No dim named stays mask 0 (every dim to the core), so an empty amax()
   * is refused as one without a dim, in PyTorch's words and type. */
  tl_reduce_args r = {.keepdim = a->keepdim, .dtype = -1};
  if (a->dim.given && tl_py_ints_dims(&a->dim, tl_py_t(a->input)->ndim, &r.dims) < 0)
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

PyObject *tl_py_impl_sumprod(const char *name, const tl_py_args_sumprod *a)
{
  (void)name;
  const tl_tensor *x = tl_py_t(a->a);
  uint64_t mask = 0;
  if (tl_py_ints_dims(&a->dim, x->ndim, &mask) < 0)
    return NULL;
  tl_py_tensor *r = tl_py_tensor_alloc();
  if (!r)
    return NULL;
  if (tl_reduce_sumprod(x, tl_py_t(a->b), mask, &r->t) != TL_OK) {
    Py_DECREF(r);
    return tl_py_raise();
  }
  return (PyObject *)r;
}

