/* py_index.c - advanced indexing (t[idx], t[idx] = v) from Python.
 *
 * An index becomes a list of tl_index_item, the core's form (tl_index.h):
 * tensors and ndarrays are used in place, nested sequences go through
 * NumPy's conversion, Python and NumPy bools are 0-d masks, anything with
 * __index__ is an int.  py_views.c builds the view for purely basic indices
 * with Python ints and calls the hooks set here for everything else.       */
#include "ndcore/py_tensor.h"
#include "ndcore/py_numpy.h"
#include "ndcore/tl_index.h"

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

int tl_py_index_init(PyObject *module)
{
  (void)module;
  tl_py_advanced_getitem = index_getitem;
  tl_py_advanced_setitem = index_setitem;
  return 0;
}
