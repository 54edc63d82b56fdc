/* py_index.c - advanced indexing (t[idx], t[idx] = v) and the indexing ops
 * (ops.def kind INDEX) from Python.
 *
 * An index becomes a list of tl_index_item, the core's form (tl_index.h):
 * tensors and ndarrays are used in place, nested sequences go through
 * NumPy's conversion, Python and NumPy bools are 0-d masks, anything with
 * __index__ is an int.  py_views.c builds the view for purely basic indices
 * with Python ints and calls the hooks set here for everything else.
 *
 * The ops take PyTorch's signatures.  An op with an in-place twin (scatter_,
 * index_add_ ...) runs the in-place form on a copy of self when called
 * out of place.                                                            */
#include "ndcore/bindings/generated/bindings.h"
#include "ndcore/bindings/py_numpy.h"
#include "ndcore/kernels/tl_index.h"
#include "ndcore/tensor/tl_backend.h"

/* An index expression in the core's form, holding the tensors it converted. */
typedef struct {
  int n;
  tl_index_item items[TL_INDEX_MAX_ITEMS];
  int nheld;
  tl_tensor held[TL_INDEX_MAX_ITEMS];
} py_index;

static void index_release(py_index *ix)
{
  for (int i = 0; i < ix->nheld; i++)
    tl_tensor_release(&ix->held[i]);
  ix->nheld = 0;
}

/* A nested sequence as an index tensor; [] is an empty int64 index, as in NumPy. */
static int sequence_index(PyObject *o, tl_tensor *t)
{
  bool weak;
  if (tl_py_to_tensor(o, -1, false, t, &weak) < 0)
    return -1;
  if (tl_tensor_numel(t) == 0 && !tl_dtype_is_integral(t->dtype)) {
    tl_tensor empty;
    if (tl_tensor_empty(&empty, TL_DTYPE_I64, t->ndim, t->shape, tl_device_cpu()) != TL_OK) {
      tl_tensor_release(t);
      return tl_py_raise_int();
    }
    tl_tensor_release(t);
    *t = empty;
  }
  return 0;
}

static int parse_item(PyObject *o, py_index *ix)
{
  tl_index_item *it = &ix->items[ix->n++];
  *it = (tl_index_item){.kind = TL_INDEX_INT};
  if (tl_py_is_tensor(o)) {
    it->kind = TL_INDEX_TENSOR;
    it->tensor = tl_py_t(o);
  } else if (o == Py_None) {
    it->kind = TL_INDEX_NONE;
  } else if (o == Py_Ellipsis) {
    it->kind = TL_INDEX_ELLIPSIS;
  } else if (PySlice_Check(o)) {
    Py_ssize_t start, stop, step;
    if (PySlice_Unpack(o, &start, &stop, &step) < 0)
      return -1;
    it->kind = TL_INDEX_SLICE;
    it->start = start;
    it->stop = stop;
    it->step = step;
  } else if (PyBool_Check(o) || PyArray_IsScalar(o, Bool)) {
    it->kind = TL_INDEX_BOOL;
    it->value = PyObject_IsTrue(o);
  } else if (PyArray_Check(o)) {
    tl_tensor *t = &ix->held[ix->nheld];
    if (tl_py_from_numpy(o, t) < 0)
      return -1;
    ix->nheld++;
    it->kind = TL_INDEX_TENSOR;
    it->tensor = t;
  } else if (PyIndex_Check(o)) {
    Py_ssize_t v = PyNumber_AsSsize_t(o, PyExc_IndexError);
    if (v == -1 && PyErr_Occurred())
      return -1;
    it->value = v;
  } else if (PySequence_Check(o) && !PyUnicode_Check(o) && !PyBytes_Check(o)) {
    tl_tensor *t = &ix->held[ix->nheld];
    if (sequence_index(o, t) < 0)
      return -1;
    ix->nheld++;
    it->kind = TL_INDEX_TENSOR;
    it->tensor = t;
  } else {
    PyErr_Format(PyExc_IndexError, "only integers, slices (`:`), ellipsis (`...`), None and "
                                   "integer or boolean tensors are valid indices (got %s)",
                 Py_TYPE(o)->tp_name);
    return -1;
  }
  return 0;
}

static int parse_index(PyObject *index, py_index *ix)
{
  ix->n = ix->nheld = 0;
  PyObject *const *items = &index;
  Py_ssize_t n = 1;
  if (PyTuple_Check(index)) {
    items = &PyTuple_GET_ITEM(index, 0);
    n = PyTuple_GET_SIZE(index);
  }
  if (n > TL_INDEX_MAX_ITEMS) {
    PyErr_Format(PyExc_IndexError, "too many indices (%zd) for a tensor", n);
    return -1;
  }
  for (Py_ssize_t i = 0; i < n; i++)
    if (parse_item(items[i], ix) < 0) {
      index_release(ix);
      return -1;
    }
  return 0;
}

static PyObject *index_getitem(PyObject *self, PyObject *index)
{
  py_index ix;
  tl_tensor out;
  bool is_view;
  if (parse_index(index, &ix) < 0)
    return NULL;
  tl_status status = tl_index_get(&out, tl_py_t(self), ix.n, ix.items, &is_view);
  index_release(&ix);
  return status == TL_OK ? tl_py_tensor_from(&out) : tl_py_raise();
}

static int index_setitem(PyObject *self, PyObject *index, PyObject *value)
{
  py_index ix;
  tl_tensor v;
  bool weak;
  if (parse_index(index, &ix) < 0)
    return -1;
  int r = -1;
  if (tl_py_value_to_tensor(value, tl_py_t(self)->dtype, &v, &weak) == 0) {
    tl_device dev = tl_tensor_device(tl_py_t(self));
    tl_tensor moved;
    if (tl_py_check_weak_store(&v, weak, tl_py_t(self)->dtype) != TL_OK) { /* x[i] = 300 */
      tl_tensor_release(&v);
      index_release(&ix);
      return tl_py_raise_int();
    }
    if (!tl_py_is_tensor(value) && !tl_device_eq(tl_tensor_device(&v), dev)) {
      /* A Python or NumPy value is host data the assignment copies in (as a
       * basic-index assignment or copy_ does): it goes to self's device. */
      if (tl_backend_tensor_to(&moved, &v, dev, v.dtype, false) != TL_OK) {
        tl_tensor_release(&v);
        index_release(&ix);
        return tl_py_raise_int();
      }
      tl_tensor_release(&v);
      v = moved;
    }
    r = tl_index_put(tl_py_t(self), ix.n, ix.items, &v, false) == TL_OK ? 0 : tl_py_raise_int();
    tl_tensor_release(&v);
  }
  index_release(&ix);
  return r;
}

/* ---- arguments ---------------------------------------------------------------------- */


/* A fill value (Python number or 0-d tensor) as a 0-d tensor of `dtype`. */
static int value_arg(const char *func, PyObject *o, tl_dtype dtype, tl_tensor *out)
{
  tl_scalar s;
  if (tl_py_is_tensor(o)) {
    const tl_tensor *t = tl_py_t(o);
    if (t->ndim != 0) {
      PyErr_Format(PyExc_RuntimeError, "%s(): expected value to be a 0-dimensional tensor, but "
                                       "got tensor with %d dimension(s)", func, t->ndim);
      return -1;
    }
    return tl_tensor_to_dtype(out, t, dtype) == TL_OK ? 0 : tl_py_raise_int();
  }
  int r = tl_py_scalar(o, &s);
  if (r == 0 && PyNumber_Check(o)) { /* NumPy scalars */
    bool weak;
    tl_tensor t;
    if (tl_py_to_tensor(o, -1, false, &t, &weak) < 0)
      return -1;
    if (t.ndim == 0) {
      s = tl_scalar_load(t.dtype, tl_tensor_data(&t));
      r = 1;
    }
    tl_tensor_release(&t);
  }
  if (r <= 0) {
    if (r == 0)
      PyErr_Format(PyExc_TypeError, "%s(): argument 'value' must be a number or a 0-d Tensor, "
                                    "not %s", func, Py_TYPE(o)->tp_name);
    return -1;
  }
  if (tl_scalar_check_store(s, dtype) != TL_OK ||
      tl_tensor_empty(out, dtype, 0, NULL, tl_device_cpu()) != TL_OK)
    return tl_py_raise_int();
  tl_scalar_store(s, dtype, tl_tensor_data(out));
  return 0;
}

/* The tensor an op writes: self (in place) or a copy of it, broadcast to
 * `shape` when given (masked_fill, masked_scatter). */
static int target_of(PyObject *self, bool inplace, int ndim, const int64_t *shape, PyObject **out)
{
  const tl_tensor *t = tl_py_t(self);
  if (inplace) {
    *out = Py_NewRef(self);
    return 0;
  }
  tl_py_tensor *r = tl_py_tensor_alloc();
  if (!r)
    return -1;
  tl_status status = shape ? tl_tensor_empty(&r->t, t->dtype, ndim, shape, tl_tensor_device(t))
                           : tl_tensor_to_dtype(&r->t, t, t->dtype);
  if (status == TL_OK && shape)
    status = tl_tensor_copy(&r->t, t);
  if (status != TL_OK) {
    Py_DECREF(r);
    return tl_py_raise_int();
  }
  *out = (PyObject *)r;
  return 0;
}

/* Return the op's result, copied into out= when one was given. */
static PyObject *finish(const char *func, tl_tensor *result, PyObject *out)
{
  char sr[256], so[256];
  if (!out || out == Py_None)
    return tl_py_tensor_from(result);
  if (!tl_py_is_tensor(out)) {
    tl_tensor_release(result);
    return PyErr_Format(PyExc_TypeError, "%s(): argument 'out' must be Tensor, not %s", func,
                        Py_TYPE(out)->tp_name);
  }
  tl_tensor *o = tl_py_t(out);
  tl_status status = TL_OK;
  if (o->ndim != result->ndim ||
      memcmp(o->shape, result->shape, (size_t)o->ndim * sizeof *o->shape))
    status = tl_error_set(TL_ERR_RUNTIME, "%s(): out= has shape %s but the result has shape %s",
                          func, tl_shape_str(so, sizeof so, o->ndim, o->shape),
                          tl_shape_str(sr, sizeof sr, result->ndim, result->shape));
  else if (o->dtype != result->dtype)
    status = tl_error_set(TL_ERR_RUNTIME, "%s(): expected out= to have dtype %s, got %s", func,
                          tl_dtype_names[result->dtype], tl_dtype_names[o->dtype]);
  else
    status = tl_tensor_copy(o, result);
  tl_tensor_release(result);
  return status == TL_OK ? Py_NewRef(out) : tl_py_raise();
}

/* ---- the ops ------------------------------------------------------------------------- */

/* reduce= by name (NULL: None or absent) */
static tl_index_reduce parse_reduce(const char *func, const char *name, bool scatter_reduce,
                                    int *err)
{
  static const struct {
    const char *name;
    tl_index_reduce r;
    bool legacy; /* scatter(reduce=) spells them 'add' and 'multiply' */
  } names[] = {
      {"add", TL_INDEX_REDUCE_ADD, true},   {"multiply", TL_INDEX_REDUCE_MUL, true},
      {"sum", TL_INDEX_REDUCE_ADD, false},  {"prod", TL_INDEX_REDUCE_MUL, false},
      {"mean", TL_INDEX_REDUCE_MEAN, false}, {"amax", TL_INDEX_REDUCE_AMAX, false},
      {"amin", TL_INDEX_REDUCE_AMIN, false},
  };
  *err = 0;
  if (!scatter_reduce && !name)
    return TL_INDEX_REDUCE_NONE;
  for (size_t i = 0; name && i < sizeof names / sizeof *names; i++)
    if (!strcmp(name, names[i].name) && names[i].legacy != scatter_reduce)
      return names[i].r;
  *err = -1;
  PyErr_Format(PyExc_RuntimeError, "%s(): reduce argument must be %s, got '%s'", func,
               scatter_reduce ? "one of 'sum', 'prod', 'mean', 'amax' or 'amin'"
                              : "either 'add' or 'multiply'",
               name ? name : "None");
  return TL_INDEX_REDUCE_NONE;
}

/* ---- the ops with an in-place twin (bound by generated code, @inplace) ------------
 * Each runs in place on self, or out of place on a copy of it (the target);
 * run_* return 0 or -1 and finish_on gives the target back or drops it.     */

static PyObject *finish_on(PyObject *target, int r)
{
  if (r < 0)
    Py_CLEAR(target);
  return target;
}

/* scatter / scatter_add / scatter_reduce on `target` */
static int run_scatter(tl_op op, tl_tensor *target, int64_t dim, PyObject *index,
                       const tl_tensor *src, tl_index_reduce reduce, bool include_self)
{
  tl_status status = tl_index_scatter(tl_op_infos[op].name, target, dim, tl_py_t(index), src,
                                      reduce, include_self);
  return status == TL_OK ? 0 : tl_py_raise_int();
}

PyObject *tl_py_impl_scatter(tl_op op, bool inplace, const tl_py_args_scatter *a)
{
  const char *func = tl_op_infos[op].name;
  PyObject *given = a->src ? a->src : a->value, *target = NULL;
  tl_tensor value = {0};
  int err;
  tl_index_reduce reduce = parse_reduce(func, a->reduce, false, &err);
  if (err < 0)
    return NULL;
  if (!given || (a->src && a->value))
    return PyErr_Format(PyExc_TypeError, "scatter() expects exactly one of 'src' (a Tensor) or "
                                         "'value' (a number)");
  /* PyTorch deprecates reduce= with a tensor src (and says so once a process;
   * here Python's filters decide, once per calling line by default) */
  if (reduce != TL_INDEX_REDUCE_NONE && tl_py_is_tensor(given)) {
    if (PyErr_WarnEx(PyExc_UserWarning,
                     "The reduce argument of torch.scatter with Tensor src is deprecated and "
                     "will be removed in a future PyTorch release. Use torch.scatter_reduce "
                     "instead for more reduction options.", 1) < 0)
      return NULL;
  }
  if (target_of(a->input, inplace, 0, NULL, &target) < 0)
    return NULL;
  tl_tensor *t = tl_py_t(target);
  int r = tl_py_is_tensor(given) ? 0 : value_arg(func, given, t->dtype, &value);
  if (r == 0)
    r = run_scatter(op, t, a->dim, a->index, tl_py_is_tensor(given) ? tl_py_t(given) : &value,
                    reduce, true);
  tl_tensor_release(&value);
  return finish_on(target, r);
}

PyObject *tl_py_impl_scatter_add(tl_op op, bool inplace, const tl_py_args_scatter_add *a)
{
  PyObject *target = NULL;
  if (target_of(a->input, inplace, 0, NULL, &target) < 0)
    return NULL;
  return finish_on(target, run_scatter(op, tl_py_t(target), a->dim, a->index, tl_py_t(a->src),
                                       TL_INDEX_REDUCE_ADD, true));
}

PyObject *tl_py_impl_scatter_reduce(tl_op op, bool inplace, const tl_py_args_scatter_reduce *a)
{
  PyObject *target = NULL;
  int err;
  tl_index_reduce reduce = parse_reduce(tl_op_infos[op].name, a->reduce, true, &err);
  if (err < 0 || target_of(a->input, inplace, 0, NULL, &target) < 0)
    return NULL;
  return finish_on(target, run_scatter(op, tl_py_t(target), a->dim, a->index, tl_py_t(a->src),
                                       reduce, a->include_self));
}

/* index_add / index_copy / index_fill: put `data` along dim at index */
static PyObject *index_along(tl_op op, bool inplace, PyObject *input, int64_t dim,
                             PyObject *index, const tl_tensor *data)
{
  PyObject *target = NULL;
  if (target_of(input, inplace, 0, NULL, &target) < 0)
    return NULL;
  tl_index_reduce reduce = op == TL_OP_INDEX_ADD ? TL_INDEX_REDUCE_ADD : TL_INDEX_REDUCE_NONE;
  tl_status status = tl_index_put_along(tl_op_infos[op].name, tl_py_t(target), dim,
                                        tl_py_t(index), data, reduce);
  return finish_on(target, status == TL_OK ? 0 : tl_py_raise_int());
}

PyObject *tl_py_impl_index_add(tl_op op, bool inplace, const tl_py_args_index_add *a)
{
  tl_scalar alpha = {.kind = TL_KIND_INT, .v.i = 1};
  tl_tensor scaled = {0};
  if (a->alpha) {
    int r = tl_py_scalar(a->alpha, &alpha);
    if (r == 0)
      PyErr_Format(PyExc_TypeError, "index_add(): argument 'alpha' must be a number, not %s",
                   Py_TYPE(a->alpha)->tp_name);
    if (r <= 0)
      return NULL;
  }
  /* An integer alpha of 1 (or True) adds source as it is. */
  bool unit = alpha.kind == TL_KIND_BOOL ? alpha.v.b : alpha.kind == TL_KIND_INT && alpha.v.i == 1;
  if (!unit && tl_index_scaled(&scaled, tl_py_t(a->source), alpha) != TL_OK)
    return tl_py_raise();
  PyObject *r = index_along(op, inplace, a->input, a->dim, a->index,
                            unit ? tl_py_t(a->source) : &scaled);
  tl_tensor_release(&scaled);
  return r;
}

PyObject *tl_py_impl_index_copy(tl_op op, bool inplace, const tl_py_args_index_copy *a)
{
  return index_along(op, inplace, a->input, a->dim, a->index, tl_py_t(a->source));
}

PyObject *tl_py_impl_index_fill(tl_op op, bool inplace, const tl_py_args_index_fill *a)
{
  tl_tensor value = {0};
  if (value_arg(tl_op_infos[op].name, a->value, tl_py_t(a->input)->dtype, &value) < 0)
    return NULL;
  PyObject *r = index_along(op, inplace, a->input, a->dim, a->index, &value);
  tl_tensor_release(&value);
  return r;
}

/* index_put(indices, values, accumulate) on `target` */
static int run_index_put(tl_tensor *target, PyObject *indices, PyObject *values_arg,
                         bool accumulate)
{
  const char *func = "index_put";
  py_index ix = {0};
  tl_tensor values = {0};
  bool weak;
  int r = -1;
  if (!PyTuple_Check(indices) && !PyList_Check(indices)) {
    PyErr_Format(PyExc_TypeError, "%s(): argument 'indices' must be a tuple of Tensors, not %s",
                 func, Py_TYPE(indices)->tp_name);
    return -1;
  }
  PyObject *seq = PySequence_Tuple(indices); /* ours: the kernel runs without the GIL */
  if (!seq)
    return -1;
  Py_ssize_t n = PySequence_Fast_GET_SIZE(seq);
  if (n > TL_INDEX_MAX_ITEMS) {
    PyErr_Format(PyExc_IndexError, "too many indices (%zd) for a tensor", n);
    goto done;
  }
  for (Py_ssize_t i = 0; i < n; i++) {
    PyObject *o = PySequence_Fast_GET_ITEM(seq, i);
    tl_index_item *it = &ix.items[ix.n++];
    if (o == Py_None) { /* None stands for a whole dim here, as in PyTorch */
      *it = (tl_index_item){.kind = TL_INDEX_SLICE, .start = 0, .stop = INT64_MAX, .step = 1};
    } else if (tl_py_is_tensor(o)) {
      *it = (tl_index_item){.kind = TL_INDEX_TENSOR, .tensor = tl_py_t(o)};
    } else {
      PyErr_Format(PyExc_TypeError, "%s(): indices must be Tensors or None, got %s", func,
                   Py_TYPE(o)->tp_name);
      goto done;
    }
  }
  if (tl_py_is_tensor(values_arg) && tl_py_t(values_arg)->dtype != target->dtype) {
    PyErr_Format(PyExc_RuntimeError, "%s(): index put requires the source and destination "
                                     "dtypes match, got %s for the destination and %s for the "
                                     "source", func, tl_dtype_names[target->dtype],
                 tl_dtype_names[tl_py_t(values_arg)->dtype]);
    goto done;
  }
  if (tl_py_to_tensor(values_arg, target->dtype, false, &values, &weak) < 0)
    goto done;
  r = tl_index_put(target, ix.n, ix.items, &values, accumulate) == TL_OK ? 0 : tl_py_raise_int();
done:
  tl_tensor_release(&values);
  Py_DECREF(seq);
  return r;
}

PyObject *tl_py_impl_index_put(tl_op op, bool inplace, const tl_py_args_index_put *a)
{
  (void)op;
  PyObject *target = NULL;
  if (target_of(a->input, inplace, 0, NULL, &target) < 0)
    return NULL;
  return finish_on(target, run_index_put(tl_py_t(target), a->indices, a->values, a->accumulate));
}

/* masked_fill / masked_scatter: out of place, self and mask broadcast together */
static int masked_target(bool inplace, PyObject *input, PyObject *mask, PyObject **target)
{
  const tl_tensor *self = tl_py_t(input), *m = tl_py_t(mask);
  int64_t shape[TL_MAX_DIMS];
  int ndim = 0;
  if (!inplace &&
      tl_shape_broadcast(self->ndim, self->shape, m->ndim, m->shape, &ndim, shape) != TL_OK)
    return tl_py_raise_int();
  return target_of(input, inplace, ndim, inplace ? NULL : shape, target);
}

PyObject *tl_py_impl_masked_fill(tl_op op, bool inplace, const tl_py_args_masked_fill *a)
{
  PyObject *target = NULL;
  tl_tensor value = {0};
  if (tl_py_is_tensor(a->value) && tl_py_t(a->value)->ndim != 0)
    return PyErr_Format(PyExc_RuntimeError, "masked_fill_ only supports a 0-dimensional value "
                                            "tensor, but got tensor with %d dimension(s)",
                        tl_py_t(a->value)->ndim);
  if (masked_target(inplace, a->input, a->mask, &target) < 0)
    return NULL;
  int r = value_arg(tl_op_infos[op].name, a->value, tl_py_t(target)->dtype, &value);
  if (r == 0 && tl_index_masked_fill(tl_py_t(target), tl_py_t(a->mask), &value) != TL_OK)
    r = tl_py_raise_int();
  tl_tensor_release(&value);
  return finish_on(target, r);
}

PyObject *tl_py_impl_masked_scatter(tl_op op, bool inplace, const tl_py_args_masked_scatter *a)
{
  (void)op;
  PyObject *target = NULL;
  if (masked_target(inplace, a->input, a->mask, &target) < 0)
    return NULL;
  tl_status status = tl_index_masked_scatter(tl_py_t(target), tl_py_t(a->mask),
                                             tl_py_t(a->source));
  return finish_on(target, status == TL_OK ? 0 : tl_py_raise_int());
}

PyObject *tl_py_impl_put(tl_op op, bool inplace, const tl_py_args_put *a)
{
  (void)op;
  PyObject *target = NULL;
  if (target_of(a->input, inplace, 0, NULL, &target) < 0)
    return NULL;
  tl_status status = tl_index_put_flat(tl_py_t(target), tl_py_t(a->index), tl_py_t(a->source),
                                       a->accumulate);
  return finish_on(target, status == TL_OK ? 0 : tl_py_raise_int());
}

static PyObject *nonzero_tuple(tl_tensor *coords)
{
  const int nd = (int)coords->shape[1];
  PyObject *tuple = PyTuple_New(nd);
  for (int i = 0; tuple && i < nd; i++) { /* column i of the (nnz, ndim) coordinates */
    tl_tensor col;
    tl_tensor_view_of(&col, coords);
    col.ndim = 1;
    col.shape[0] = coords->shape[0];
    col.strides[0] = nd;
    col.offset = coords->offset + i;
    PyObject *t = tl_py_tensor_from(&col);
    if (!t)
      Py_CLEAR(tuple);
    else
      PyTuple_SET_ITEM(tuple, i, t);
  }
  tl_tensor_release(coords);
  return tuple;
}

static PyObject *call_nonzero(const tl_tensor *in, bool as_tuple, PyObject *out)
{
  tl_tensor coords, one_d = *in;
  if (as_tuple && in->ndim == 0) { /* a 0-d input counts as 1-d, as in PyTorch */
    one_d.ndim = 1;
    one_d.shape[0] = 1;
    one_d.strides[0] = 1;
  }
  if (tl_index_nonzero(&coords, &one_d) != TL_OK)
    return tl_py_raise();
  if (as_tuple) {
    if (out && out != Py_None) {
      tl_tensor_release(&coords);
      return PyErr_Format(PyExc_TypeError, "nonzero(): out= is not supported with as_tuple=True");
    }
    return nonzero_tuple(&coords);
  }
  return finish("nonzero", &coords, out);
}

PyObject *tl_py_index_where(PyObject *condition)
{
  tl_tensor t;
  bool weak;
  if (tl_py_to_tensor(condition, -1, false, &t, &weak) < 0)
    return NULL;
  PyObject *r = call_nonzero(&t, true, NULL);
  tl_tensor_release(&t);
  return r;
}

bool tl_py_index_has_inplace(tl_op op)
{
  switch (op) {
  case TL_OP_SCATTER:
  case TL_OP_SCATTER_ADD:
  case TL_OP_SCATTER_REDUCE:
  case TL_OP_INDEX_ADD:
  case TL_OP_INDEX_COPY:
  case TL_OP_INDEX_FILL:
  case TL_OP_INDEX_PUT:
  case TL_OP_MASKED_FILL:
  case TL_OP_MASKED_SCATTER:
  case TL_OP_PUT:
    return true;
  default:
    return false;
  }
}

/* ---- the ops that read (bound by generated code) --------------------------------- */

PyObject *tl_py_impl_gather(tl_op op, const tl_py_args_gather *a)
{
  tl_tensor out;
  (void)a->sparse_grad; /* dense gradients either way */
  if (tl_index_gather(&out, tl_py_t(a->input), a->dim, tl_py_t(a->index)) != TL_OK)
    return tl_py_raise();
  return finish(tl_op_infos[op].name, &out, a->out);
}

PyObject *tl_py_impl_index_select(tl_op op, const tl_py_args_index_select *a)
{
  tl_tensor out;
  if (tl_index_select(&out, tl_py_t(a->input), a->dim, tl_py_t(a->index)) != TL_OK)
    return tl_py_raise();
  return finish(tl_op_infos[op].name, &out, a->out);
}

PyObject *tl_py_impl_masked_select(tl_op op, const tl_py_args_masked_select *a)
{
  tl_tensor out;
  if (tl_index_masked_select(&out, tl_py_t(a->input), tl_py_t(a->mask)) != TL_OK)
    return tl_py_raise();
  return finish(tl_op_infos[op].name, &out, a->out);
}

PyObject *tl_py_impl_take(tl_op op, const tl_py_args_take *a)
{
  tl_tensor out;
  if (tl_index_take(&out, tl_py_t(a->input), tl_py_t(a->index)) != TL_OK)
    return tl_py_raise();
  return finish(tl_op_infos[op].name, &out, a->out);
}

PyObject *tl_py_impl_take_along_dim(tl_op op, const tl_py_args_take_along_dim *a)
{
  tl_tensor out;
  if (tl_index_take_along_dim(&out, tl_py_t(a->input), tl_py_t(a->indices), a->dim,
                              a->has_dim) != TL_OK)
    return tl_py_raise();
  return finish(tl_op_infos[op].name, &out, a->out);
}

PyObject *tl_py_impl_nonzero(tl_op op, const tl_py_args_nonzero *a)
{
  (void)op;
  return call_nonzero(tl_py_t(a->input), a->as_tuple, a->out);
}

PyObject *tl_py_impl_argwhere(tl_op op, const tl_py_args_argwhere *a)
{
  (void)op;
  return call_nonzero(tl_py_t(a->input), false, NULL);
}

int tl_py_index_init(PyObject *module)
{
  (void)module;
  tl_py_advanced_getitem = index_getitem;
  tl_py_advanced_setitem = index_setitem;
  return 0;
}
