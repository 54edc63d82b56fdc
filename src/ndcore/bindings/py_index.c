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
#include "ndcore/bindings/py_tensor.h"
#include "ndcore/bindings/py_numpy.h"
#include "ndcore/kernels/tl_index.h"

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
  if (tl_py_to_tensor(value, -1, false, &v, &weak) == 0) {
    r = tl_index_put(tl_py_t(self), ix.n, ix.items, &v, false) == TL_OK ? 0 : tl_py_raise_int();
    tl_tensor_release(&v);
  }
  index_release(&ix);
  return r;
}

/* ---- arguments ---------------------------------------------------------------------- */


static int tensor_arg(const char *func, const char *name, PyObject *o, tl_tensor **t)
{
  if (!tl_py_is_tensor(o)) {
    PyErr_Format(PyExc_TypeError, "%s(): argument '%s' must be Tensor, not %s", func, name,
                 Py_TYPE(o)->tp_name);
    return -1;
  }
  *t = tl_py_t(o);
  return 0;
}

static int dim_arg(const char *func, PyObject *o, int64_t *dim)
{
  if (!PyIndex_Check(o) || PyBool_Check(o) || tl_py_is_tensor(o)) {
    PyErr_Format(PyExc_TypeError, "%s(): argument 'dim' must be int, not %s", func,
                 Py_TYPE(o)->tp_name);
    return -1;
  }
  *dim = PyNumber_AsSsize_t(o, PyExc_IndexError);
  return *dim == -1 && PyErr_Occurred() ? -1 : 0;
}

static int bool_arg(PyObject *o, bool *b)
{
  *b = false;
  return tl_py_bool_arg(o, b);
}

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
  if (tl_tensor_empty(out, dtype, 0, NULL, tl_device_cpu()) != TL_OK)
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

static tl_index_reduce parse_reduce(const char *func, PyObject *o, bool scatter_reduce, int *err)
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
  const char *name = o && PyUnicode_Check(o) ? PyUnicode_AsUTF8(o) : NULL;
  *err = 0;
  if (!scatter_reduce && (!o || o == Py_None))
    return TL_INDEX_REDUCE_NONE;
  for (size_t i = 0; name && i < sizeof names / sizeof *names; i++)
    if (!strcmp(name, names[i].name) && names[i].legacy != scatter_reduce)
      return names[i].r;
  *err = -1;
  PyErr_Format(PyExc_RuntimeError, "%s(): reduce argument must be %s, got %R", func,
               scatter_reduce ? "one of 'sum', 'prod', 'mean', 'amax' or 'amin'"
                              : "either 'add' or 'multiply'",
               o ? o : Py_None);
  return TL_INDEX_REDUCE_NONE;
}

/* scatter / scatter_add / scatter_reduce, in place on `target`. */
static int run_scatter(tl_op op, tl_tensor *target, PyObject **v)
{
  const char *func = tl_op_infos[op].name;
  tl_tensor *index, *src = NULL, value = {0};
  int64_t dim;
  int err = 0;
  tl_index_reduce reduce = TL_INDEX_REDUCE_ADD;
  bool include_self = true;
  if (dim_arg(func, v[1], &dim) < 0 || tensor_arg(func, "index", v[2], &index) < 0)
    return -1;
  if (op == TL_OP_SCATTER) {
    reduce = parse_reduce(func, v[5], false, &err);
    PyObject *given = v[3] ? v[3] : v[4];
    if (!given || (v[3] && v[4])) {
      PyErr_Format(PyExc_TypeError, "scatter() expects exactly one of 'src' (a Tensor) or "
                                    "'value' (a number)");
      return -1;
    }
    if (tl_py_is_tensor(given))
      src = tl_py_t(given);
    else if (value_arg(func, given, target->dtype, &value) < 0)
      return -1;
  } else {
    if (tensor_arg(func, "src", v[3], &src) < 0)
      return -1;
    if (op == TL_OP_SCATTER_REDUCE) {
      reduce = parse_reduce(func, v[4], true, &err);
      if (err == 0 && bool_arg(v[5] ? v[5] : Py_True, &include_self) < 0)
        return -1;
    }
  }
  if (err < 0)
    return -1;
  tl_status status = tl_index_scatter(func, target, dim, index, src ? src : &value, reduce,
                                      include_self);
  tl_tensor_release(&value);
  return status == TL_OK ? 0 : tl_py_raise_int();
}

/* index_add / index_copy / index_fill, in place on `target`. */
static int run_index_along(tl_op op, tl_tensor *target, PyObject **v)
{
  const char *func = tl_op_infos[op].name;
  tl_tensor *index, *source, data = {0};
  int64_t dim;
  if (dim_arg(func, v[1], &dim) < 0 || tensor_arg(func, "index", v[2], &index) < 0)
    return -1;
  tl_index_reduce reduce = op == TL_OP_INDEX_ADD ? TL_INDEX_REDUCE_ADD : TL_INDEX_REDUCE_NONE;
  tl_status status;
  if (op == TL_OP_INDEX_FILL) {
    if (value_arg(func, v[3], target->dtype, &data) < 0)
      return -1;
    status = tl_index_put_along(func, target, dim, index, &data, reduce);
  } else {
    if (tensor_arg(func, "source", v[3], &source) < 0)
      return -1;
    tl_scalar alpha = {.kind = TL_KIND_INT, .v.i = 1};
    if (op == TL_OP_INDEX_ADD && v[4]) {
      int r = tl_py_scalar(v[4], &alpha);
      if (r == 0)
        PyErr_Format(PyExc_TypeError, "index_add(): argument 'alpha' must be a number, not %s",
                     Py_TYPE(v[4])->tp_name);
      if (r <= 0)
        return -1;
    }
    /* An integer alpha of 1 (or True) adds source as it is. */
    bool unit = alpha.kind == TL_KIND_BOOL ? alpha.v.b
                                           : alpha.kind == TL_KIND_INT && alpha.v.i == 1;
    bool scaled = !unit;
    if (scaled && tl_index_scaled(&data, source, alpha) != TL_OK)
      return tl_py_raise_int();
    status = tl_index_put_along(func, target, dim, index, scaled ? &data : source, reduce);
  }
  tl_tensor_release(&data);
  return status == TL_OK ? 0 : tl_py_raise_int();
}

/* index_put(indices, values, accumulate), in place on `target`. */
static int run_index_put(tl_tensor *target, PyObject **v)
{
  const char *func = "index_put";
  py_index ix = {0};
  tl_tensor values = {0};
  bool accumulate, weak;
  int r = -1;
  if (bool_arg(v[3], &accumulate) < 0)
    return -1;
  if (!PyTuple_Check(v[1]) && !PyList_Check(v[1])) {
    PyErr_Format(PyExc_TypeError, "%s(): argument 'indices' must be a tuple of Tensors, not %s",
                 func, Py_TYPE(v[1])->tp_name);
    return -1;
  }
  PyObject *seq = PySequence_Tuple(v[1]); /* ours: the kernel runs without the GIL */
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
  if (tl_py_is_tensor(v[2]) && tl_py_t(v[2])->dtype != target->dtype) {
    PyErr_Format(PyExc_RuntimeError, "%s(): index put requires the source and destination "
                                     "dtypes match, got %s for the destination and %s for the "
                                     "source", func, tl_dtype_names[target->dtype],
                 tl_dtype_names[tl_py_t(v[2])->dtype]);
    goto done;
  }
  if (tl_py_to_tensor(v[2], target->dtype, false, &values, &weak) < 0)
    goto done;
  r = tl_index_put(target, ix.n, ix.items, &values, accumulate) == TL_OK ? 0 : tl_py_raise_int();
done:
  tl_tensor_release(&values);
  Py_DECREF(seq);
  return r;
}

/* masked_fill / masked_scatter / put, in place on `target`. */
static int run_masked_or_put(tl_op op, tl_tensor *target, PyObject **v)
{
  const char *func = tl_op_infos[op].name;
  tl_tensor *arg, *source, value = {0};
  tl_status status;
  if (tensor_arg(func, op == TL_OP_PUT ? "index" : "mask", v[1], &arg) < 0)
    return -1;
  if (op == TL_OP_MASKED_FILL) {
    if (tl_py_is_tensor(v[2]) && tl_py_t(v[2])->ndim != 0) {
      PyErr_Format(PyExc_RuntimeError, "masked_fill_ only supports a 0-dimensional value tensor, "
                                       "but got tensor with %d dimension(s)", tl_py_t(v[2])->ndim);
      return -1;
    }
    if (value_arg(func, v[2], target->dtype, &value) < 0)
      return -1;
    status = tl_index_masked_fill(target, arg, &value);
    tl_tensor_release(&value);
  } else {
    bool accumulate;
    if (tensor_arg(func, "source", v[2], &source) < 0 || bool_arg(v[3], &accumulate) < 0)
      return -1;
    status = op == TL_OP_PUT ? tl_index_put_flat(target, arg, source, accumulate)
                             : tl_index_masked_scatter(target, arg, source);
  }
  return status == TL_OK ? 0 : tl_py_raise_int();
}

/* Ops with an in-place twin: run in place on self or on a copy of it. */
static PyObject *call_inplace_family(tl_op op, bool inplace, PyObject **v)
{
  const char *func = tl_op_infos[op].name;
  tl_tensor *self;
  PyObject *target = NULL;
  int ndim = 0;
  int64_t shape[TL_MAX_DIMS];
  const int64_t *bshape = NULL;
  if (tensor_arg(func, "input", v[0], &self) < 0)
    return NULL;
  if (!inplace && (op == TL_OP_MASKED_FILL || op == TL_OP_MASKED_SCATTER) &&
      tl_py_is_tensor(v[1])) { /* out of place, self and mask broadcast together */
    const tl_tensor *m = tl_py_t(v[1]);
    if (tl_shape_broadcast(self->ndim, self->shape, m->ndim, m->shape, &ndim, shape) != TL_OK)
      return tl_py_raise();
    bshape = shape;
  }
  if (target_of(v[0], inplace, ndim, bshape, &target) < 0)
    return NULL;
  tl_tensor *t = tl_py_t(target);
  int r;
  switch (op) {
  case TL_OP_SCATTER:
  case TL_OP_SCATTER_ADD:
  case TL_OP_SCATTER_REDUCE: r = run_scatter(op, t, v); break;
  case TL_OP_INDEX_ADD:
  case TL_OP_INDEX_COPY:
  case TL_OP_INDEX_FILL: r = run_index_along(op, t, v); break;
  case TL_OP_INDEX_PUT: r = run_index_put(t, v); break;
  default: r = run_masked_or_put(op, t, v); break;
  }
  if (r < 0)
    Py_CLEAR(target);
  return target;
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

PyObject *tl_py_index_call(tl_op op, bool inplace, PyObject *const *args, Py_ssize_t nargs,
                           PyObject *kwnames)
{
  static const char *const gather_names[] = {"input", "dim", "index", "sparse_grad", "out", NULL};
  static const char *const scatter_names[] = {"input", "dim", "index", "src", "value", "reduce",
                                              NULL};
  static const char *const scatter_add_names[] = {"input", "dim", "index", "src", NULL};
  static const char *const scatter_reduce_names[] = {"input", "dim", "index", "src", "reduce",
                                                     "include_self", NULL};
  static const char *const select_names[] = {"input", "dim", "index", "out", NULL};
  static const char *const index_add_names[] = {"input", "dim", "index", "source", "alpha", NULL};
  static const char *const index_copy_names[] = {"input", "dim", "index", "source", NULL};
  static const char *const index_fill_names[] = {"input", "dim", "index", "value", NULL};
  static const char *const index_put_names[] = {"input", "indices", "values", "accumulate", NULL};
  static const char *const masked_fill_names[] = {"input", "mask", "value", NULL};
  static const char *const masked_scatter_names[] = {"input", "mask", "source", NULL};
  static const char *const masked_select_names[] = {"input", "mask", "out", NULL};
  static const char *const take_names[] = {"input", "index", "out", NULL};
  static const char *const take_along_names[] = {"input", "indices", "dim", "out", NULL};
  static const char *const put_names[] = {"input", "index", "source", "accumulate", NULL};
  static const char *const nonzero_names[] = {"input", "out", "as_tuple", NULL};
  static const char *const argwhere_names[] = {"input", NULL};
  const char *const *names;
  int nrequired;
  switch (op) {
  case TL_OP_GATHER: names = gather_names; nrequired = 3; break;
  case TL_OP_SCATTER: names = scatter_names; nrequired = 3; break;
  case TL_OP_SCATTER_ADD: names = scatter_add_names; nrequired = 4; break;
  case TL_OP_SCATTER_REDUCE: names = scatter_reduce_names; nrequired = 5; break;
  case TL_OP_INDEX_SELECT: names = select_names; nrequired = 3; break;
  case TL_OP_INDEX_ADD: names = index_add_names; nrequired = 4; break;
  case TL_OP_INDEX_COPY: names = index_copy_names; nrequired = 4; break;
  case TL_OP_INDEX_FILL: names = index_fill_names; nrequired = 4; break;
  case TL_OP_INDEX_PUT: names = index_put_names; nrequired = 3; break;
  case TL_OP_MASKED_FILL: names = masked_fill_names; nrequired = 3; break;
  case TL_OP_MASKED_SCATTER: names = masked_scatter_names; nrequired = 3; break;
  case TL_OP_MASKED_SELECT: names = masked_select_names; nrequired = 2; break;
  case TL_OP_TAKE: names = take_names; nrequired = 2; break;
  case TL_OP_TAKE_ALONG_DIM: names = take_along_names; nrequired = 2; break;
  case TL_OP_PUT: names = put_names; nrequired = 3; break;
  case TL_OP_NONZERO: names = nonzero_names; nrequired = 1; break;
  default: names = argwhere_names; nrequired = 1; break;
  }
  char func[64];
  snprintf(func, sizeof func, "%s%s", tl_op_infos[op].name, inplace ? "_" : "");
  PyObject *v[8] = {NULL}; /* parameters past an op's own stay NULL */
  if (tl_py_bind_args(func, args, nargs, kwnames, names, -1, nrequired, v) < 0)
    return NULL;
  if (tl_py_index_has_inplace(op))
    return call_inplace_family(op, inplace, v);

  tl_tensor *in, *index, out = {0};
  int64_t dim = 0;
  tl_status status;
  if (tensor_arg(func, "input", v[0], &in) < 0)
    return NULL;
  switch (op) {
  case TL_OP_GATHER:
  case TL_OP_INDEX_SELECT:
    if (dim_arg(func, v[1], &dim) < 0 || tensor_arg(func, "index", v[2], &index) < 0)
      return NULL;
    status = op == TL_OP_GATHER ? tl_index_gather(&out, in, dim, index)
                                : tl_index_select(&out, in, dim, index);
    return status == TL_OK ? finish(func, &out, v[op == TL_OP_GATHER ? 4 : 3]) : tl_py_raise();
  case TL_OP_MASKED_SELECT:
  case TL_OP_TAKE:
    if (tensor_arg(func, op == TL_OP_TAKE ? "index" : "mask", v[1], &index) < 0)
      return NULL;
    status = op == TL_OP_TAKE ? tl_index_take(&out, in, index)
                              : tl_index_masked_select(&out, in, index);
    return status == TL_OK ? finish(func, &out, v[2]) : tl_py_raise();
  case TL_OP_TAKE_ALONG_DIM: {
    bool has_dim = v[2] && v[2] != Py_None;
    if (tensor_arg(func, "indices", v[1], &index) < 0 || (has_dim && dim_arg(func, v[2], &dim) < 0))
      return NULL;
    status = tl_index_take_along_dim(&out, in, index, dim, has_dim);
    return status == TL_OK ? finish(func, &out, v[3]) : tl_py_raise();
  }
  case TL_OP_NONZERO: {
    bool as_tuple;
    if (bool_arg(v[2], &as_tuple) < 0)
      return NULL;
    return call_nonzero(in, as_tuple, v[1]);
  }
  default:
    return call_nonzero(in, false, NULL);
  }
}

int tl_py_index_init(PyObject *module)
{
  (void)module;
  tl_py_advanced_getitem = index_getitem;
  tl_py_advanced_setitem = index_setitem;
  return 0;
}
