/* py_views.c - view methods (view, reshape, permute ...) and basic indexing.
 *
 * The view methods' arguments are bound by generated code from their
 * signatures (signatures.txt [view]); the tl_py_impl_* here run them.
 *
 * Basic indexing (int, slice with any step, None, Ellipsis) builds a view the
 * way NumPy does; anything else in an index is advanced indexing, handled by
 * the indexing module (tl_py_advanced_getitem / setitem).                   */
#include "ndcore/bindings/generated/bindings.h"
#include "ndcore/tensor/tl_views.h"
#include "ndcore/bindings/py_profiler.h"
#include "ndcore/bindings/py_torch_function.h"

/* ---- argument helpers ---------------------------------------------------------- */

/* Sizes given as f(2, 3), f((2, 3)) or f(torchlike.Size([2, 3])). */
int tl_py_parse_shape(const char *func, PyObject *const *args, Py_ssize_t nargs, int64_t *shape,
                      int *ndim)
{
  PyObject *seq = NULL;
  /* a 1-d integer tensor is a sequence of sizes, as an ndarray is to NumPy
   * (a tensor has __index__, so ask for its rank first) */
  bool listlike = nargs == 1 && (tl_py_is_tensor(args[0]) ? tl_py_t(args[0])->ndim > 0
                                                          : !PyIndex_Check(args[0]));
  if (listlike) {
    seq = PySequence_Fast(args[0], "");
    if (!seq) {
      PyErr_Format(PyExc_TypeError, "%s(): sizes must be ints or a sequence of ints, not %s",
                   func, Py_TYPE(args[0])->tp_name);
      return -1;
    }
    args = PySequence_Fast_ITEMS(seq);
    nargs = PySequence_Fast_GET_SIZE(seq);
  }
  int r = 0;
  if (nargs > TL_MAX_DIMS) {
    PyErr_Format(PyExc_ValueError, "%s(): tensors have at most %d dimensions, got %zd", func,
                 TL_MAX_DIMS, nargs);
    r = -1;
  }
  for (Py_ssize_t i = 0; r == 0 && i < nargs; i++) {
    if (!PyIndex_Check(args[i]) || (i == 0 && PyBool_Check(args[i]))) { /* int_items' rule */
      PyErr_Format(PyExc_TypeError, "%s(): argument 'size' must be a sequence of ints, but "
                                    "element %zd is %s", func, i, Py_TYPE(args[i])->tp_name);
      r = -1;
      break;
    }
    shape[i] = PyNumber_AsSsize_t(args[i], PyExc_OverflowError);
    if (shape[i] == -1 && PyErr_Occurred())
      r = -1;
  }
  *ndim = (int)nargs;
  Py_XDECREF(seq);
  return r;
}

static PyObject *wrap(tl_status status, tl_tensor *out)
{
  return status == TL_OK ? tl_py_tensor_from(out) : tl_py_raise();
}

/* Sizes or dims of at most TL_MAX_DIMS (a tl_py_ints holds twice that). */
int tl_py_ints_check_dims(const char *func, const tl_py_ints *v)
{
  if (v->n <= TL_MAX_DIMS)
    return 0;
  PyErr_Format(PyExc_ValueError, "%s(): tensors have at most %d dimensions, got %d", func,
               TL_MAX_DIMS, v->n);
  return -1;
}

/* ---- methods (bound by generated code: signatures.txt [view]) ------------------- */

PyObject *tl_py_impl_view(const char *name, const tl_py_args_view *a)
{
  tl_tensor out;
  if (tl_py_ints_check_dims(name, &a->shape) < 0)
    return NULL;
  return wrap(tl_view_reshape(&out, tl_py_t(a->input), a->shape.n, a->shape.v, false), &out);
}

PyObject *tl_py_impl_view_dtype(const char *name, const tl_py_args_view_dtype *a)
{
  (void)name;
  tl_tensor out;
  return wrap(tl_view_dtype(&out, tl_py_t(a->input), (tl_dtype)a->dtype), &out);
}

PyObject *tl_py_impl_reshape(const char *name, const tl_py_args_reshape *a)
{
  tl_tensor out;
  if (tl_py_ints_check_dims(name, &a->shape) < 0)
    return NULL;
  return wrap(tl_view_reshape(&out, tl_py_t(a->input), a->shape.n, a->shape.v, true), &out);
}

static PyObject *tensor_view_as(PyObject *self, PyObject *other)
{
  tl_tensor out;
  if (!tl_py_is_tensor(other))
    return PyErr_Format(PyExc_TypeError, "view_as(): argument must be a Tensor");
  return wrap(tl_view_reshape(&out, tl_py_t(self), tl_py_t(other)->ndim, tl_py_t(other)->shape,
                              false), &out);
}

static PyObject *tensor_reshape_as(PyObject *self, PyObject *other)
{
  tl_tensor out;
  if (!tl_py_is_tensor(other))
    return PyErr_Format(PyExc_TypeError, "reshape_as(): argument must be a Tensor");
  return wrap(tl_view_reshape(&out, tl_py_t(self), tl_py_t(other)->ndim, tl_py_t(other)->shape,
                              true), &out);
}

PyObject *tl_py_impl_permute(const char *name, const tl_py_args_permute *a)
{
  tl_tensor out;
  if (tl_py_ints_check_dims(name, &a->dims) < 0)
    return NULL;
  return wrap(tl_view_permute(&out, tl_py_t(a->input), a->dims.n, a->dims.v), &out);
}

/* transpose and swapdims (dim0, dim1) */
PyObject *tl_py_impl_transpose(const char *name, const tl_py_args_transpose *a)
{
  (void)name;
  tl_tensor out;
  return wrap(tl_view_transpose(&out, tl_py_t(a->input), a->dim0, a->dim1), &out);
}

PyObject *tl_py_impl_swapaxes(const char *name, const tl_py_args_swapaxes *a)
{
  (void)name;
  tl_tensor out;
  return wrap(tl_view_transpose(&out, tl_py_t(a->input), a->axis0, a->axis1), &out);
}

static PyObject *tensor_t(PyObject *self, PyObject *unused)
{
  (void)unused;
  tl_tensor out;
  if (tl_py_t(self)->ndim > 2)
    return PyErr_Format(PyExc_RuntimeError, "t() expects a tensor with <= 2 dimensions, but self "
                                            "is %dD", tl_py_t(self)->ndim);
  return wrap(tl_view_transpose(&out, tl_py_t(self), 0, tl_py_t(self)->ndim > 1 ? 1 : 0), &out);
}

PyObject *tl_py_impl_expand(const char *name, const tl_py_args_expand *a)
{
  tl_tensor out;
  if (tl_py_ints_check_dims(name, &a->size) < 0)
    return NULL;
  return wrap(tl_view_expand(&out, tl_py_t(a->input), a->size.n, a->size.v), &out);
}

static PyObject *tensor_expand_as(PyObject *self, PyObject *other)
{
  tl_tensor out;
  if (!tl_py_is_tensor(other))
    return PyErr_Format(PyExc_TypeError, "expand_as(): argument must be a Tensor");
  return wrap(tl_view_expand(&out, tl_py_t(self), tl_py_t(other)->ndim, tl_py_t(other)->shape),
              &out);
}

PyObject *tl_py_impl_squeeze(const char *name, const tl_py_args_squeeze *a)
{
  (void)name;
  tl_tensor *t = tl_py_t(a->input), out;
  uint64_t mask = ~(uint64_t)0;
  if (a->dim.given && tl_py_ints_dims(&a->dim, t->ndim, &mask) < 0)
    return NULL;
  return wrap(tl_view_squeeze(&out, t, mask), &out);
}

PyObject *tl_py_impl_unsqueeze(const char *name, const tl_py_args_unsqueeze *a)
{
  (void)name;
  tl_tensor out;
  return wrap(tl_view_unsqueeze(&out, tl_py_t(a->input), a->dim), &out);
}

PyObject *tl_py_impl_flatten(const char *name, const tl_py_args_flatten *a)
{
  (void)name;
  tl_tensor *t = tl_py_t(a->input), out;
  int s, e;
  /* flattening one dim is the tensor itself, as in PyTorch (not a view) */
  if (t->ndim > 0 && tl_dim_wrap(a->start_dim, t->ndim, &s) == TL_OK &&
      tl_dim_wrap(a->end_dim, t->ndim, &e) == TL_OK && s == e)
    return Py_NewRef(a->input);
  tl_error_clear();
  return wrap(tl_view_flatten(&out, tl_py_t(a->input), a->start_dim, a->end_dim), &out);
}

static PyObject *tensor_ravel(PyObject *self, PyObject *unused)
{
  (void)unused;
  tl_tensor out;
  return wrap(tl_view_flatten(&out, tl_py_t(self), 0, -1), &out);
}

/* The methods with no arguments to bind, or one tensor.  Those with a
 * signature (view, reshape, permute ...) are bound by generated code and
 * registered with the shape family's (py_shape_ops.c). */
PyMethodDef tl_py_view_methods[] = {
    {"view_as", tensor_view_as, METH_O, NULL},
    {"reshape_as", tensor_reshape_as, METH_O, NULL},
    {"t", tensor_t, METH_NOARGS, NULL},
    {"expand_as", tensor_expand_as, METH_O, NULL},
    {"ravel", tensor_ravel, METH_NOARGS, NULL},
    {NULL, NULL, 0, NULL},
};

/* real(t): t itself when t is not complex (PyTorch); imag(t) needs complex.
 * Tensor.real / Tensor.imag are properties over these (torchlike/_tensor.py). */
static PyObject *fn_complex_part(PyObject *o, bool imag)
{
  if (!tl_py_is_tensor(o))
    return PyErr_Format(PyExc_TypeError, "%s(): argument 'input' must be Tensor, not %s",
                        imag ? "imag" : "real", Py_TYPE(o)->tp_name);
  if (!imag && !tl_dtype_is_complex(tl_py_t(o)->dtype))
    return Py_NewRef(o);
  tl_tensor out;
  return wrap(tl_view_complex_part(&out, tl_py_t(o), imag), &out);
}

static PyObject *fn_real(PyObject *m, PyObject *o)
{
  (void)m;
  return fn_complex_part(o, false);
}

static PyObject *fn_imag(PyObject *m, PyObject *o)
{
  (void)m;
  return fn_complex_part(o, true);
}

PyMethodDef tl_py_view_functions[] = {
    {"real", fn_real, METH_O, "the real part of a complex tensor, as a view (the tensor itself "
                              "when it is real)"},
    {"imag", fn_imag, METH_O, "the imaginary part of a complex tensor, as a view"},
    {NULL, NULL, 0, NULL},
};

/* ---- basic indexing ------------------------------------------------------------------ */

static bool is_basic_item(PyObject *o)
{
  return o == Py_None || o == Py_Ellipsis || PySlice_Check(o) ||
         (PyLong_Check(o) && !PyBool_Check(o));
}

/* Apply a basic index to `in`; 0 done, 1 not basic (advanced), -1 error. */
static int basic_view(const tl_tensor *in, PyObject *index, tl_tensor *out)
{
  PyObject *items_buf[1] = {index};
  PyObject *const *items = items_buf;
  Py_ssize_t n = 1;
  if (PyTuple_Check(index)) {
    items = &PyTuple_GET_ITEM(index, 0);
    n = PyTuple_GET_SIZE(index);
  }
  int consumed = 0, ellipses = 0;
  for (Py_ssize_t i = 0; i < n; i++) {
    if (!is_basic_item(items[i]))
      return 1;
    consumed += items[i] != Py_None && items[i] != Py_Ellipsis;
    ellipses += items[i] == Py_Ellipsis;
  }
  if (ellipses > 1) {
    PyErr_SetString(PyExc_IndexError, "an index can only have a single ellipsis ('...')");
    return -1;
  }
  if (consumed > in->ndim) {
    PyErr_Format(PyExc_IndexError, "too many indices for tensor of dimension %d", in->ndim);
    return -1;
  }
  tl_tensor_view_of(out, in);
  int dim = 0;
  for (Py_ssize_t i = 0; i < n; i++) {
    PyObject *o = items[i];
    if (o == Py_None) {
      tl_tensor tmp;
      if (tl_view_unsqueeze(&tmp, out, dim) != TL_OK) { /* tmp is unset: past TL_MAX_DIMS */
        tl_error_clear(); /* raised here as NumPy's IndexError, not left for the next op */
        PyErr_Format(PyExc_IndexError, "indexing would give more than %d dimensions",
                     TL_MAX_DIMS);
        goto fail;
      }
      tl_tensor_release(out);
      *out = tmp;
      dim++;
    } else if (o == Py_Ellipsis) {
      dim += in->ndim - consumed;
    } else if (PySlice_Check(o)) {
      Py_ssize_t start, stop, step;
      if (PySlice_Unpack(o, &start, &stop, &step) < 0)
        goto fail;
      Py_ssize_t len = PySlice_AdjustIndices((Py_ssize_t)out->shape[dim], &start, &stop, step);
      tl_view_slice(out, dim, start, len, step);
      dim++;
    } else {
      int64_t index = PyLong_AsLongLong(o);
      if (index == -1 && PyErr_Occurred())
        goto fail;
      if (tl_view_select(out, dim, index) != TL_OK) {
        tl_py_raise();
        goto fail;
      }
    }
  }
  return 0;
fail:
  tl_tensor_release(out);
  return -1;
}

/* Advanced indexing lives with the indexing ops; until they register, say so. */
PyObject *(*tl_py_advanced_getitem)(PyObject *self, PyObject *index);
int (*tl_py_advanced_setitem)(PyObject *self, PyObject *index, PyObject *value);

/* The slots themselves, called by the recorder with grad mode off. */
static PyObject *slot_method(const char *name)
{
  return PyDict_GetItemString(tl_py_tensor_type->tp_dict, name); /* borrowed */
}

static PyObject *getitem_body(PyObject *self, PyObject *index)
{
  PyObject *args[2] = {self, index};
  if (tl_py_grad_wanted(args, 2))
    return tl_py_record(tl_py_formula_getitem, slot_method("__getitem__"), args, 2, NULL, 0);
  tl_tensor out;
  int r = basic_view(tl_py_t(self), index, &out);
  if (r < 0)
    return NULL;
  if (r == 0) {
    PyObject *view = tl_py_tensor_from(&out);
    if (view && tl_py_view_mark)
      tl_py_view_mark(view, self, 0);
    return view;
  }
  if (tl_py_advanced_getitem)
    return tl_py_advanced_getitem(self, index);
  return PyErr_Format(PyExc_IndexError, "only integers, slices, None and Ellipsis are valid "
                                        "indices here, got %s", Py_TYPE(index)->tp_name);
}

static int setitem_body(PyObject *self, PyObject *index, PyObject *value)
{
  if (!value) {
    PyErr_SetString(PyExc_TypeError, "tensor elements cannot be deleted");
    return -1;
  }
  PyObject *args[3] = {self, index, value};
  if (tl_py_grad_wanted(args, 3)) {
    PyObject *r = tl_py_record(tl_py_formula_setitem, slot_method("__setitem__"), args, 3, NULL, 0);
    Py_XDECREF(r);
    return r ? 0 : -1;
  }
  tl_tensor view;
  int r = basic_view(tl_py_t(self), index, &view);
  if (r < 0)
    return -1;
  if (r == 1) {
    if (tl_py_advanced_setitem)
      return tl_py_advanced_setitem(self, index, value);
    PyErr_Format(PyExc_IndexError, "only integers, slices, None and Ellipsis are valid indices "
                                   "here, got %s", Py_TYPE(index)->tp_name);
    return -1;
  }
  tl_tensor src = {0};
  bool weak;
  int result = -1;
  if (tl_py_value_to_tensor(value, view.dtype, &src, &weak) == 0) {
    result = tl_py_check_weak_store(&src, weak, view.dtype) == TL_OK &&
                     tl_tensor_copy(&view, &src) == TL_OK
                 ? 0
                 : tl_py_raise_int();
    tl_tensor_release(&src);
  }
  tl_tensor_release(&view);
  return result;
}

/* t[i] and t[i] = v as profiler events: PyTorch's names for the general
 * case (aten::index, aten::index_put_), whichever view or copy runs. */
static PyObject *prof_name(PyObject **cache, const char *name)
{
  if (!*cache && !(*cache = PyUnicode_InternFromString(name))) /* kept for the process */
    PyErr_Clear(); /* unnamed: not recorded */
  return *cache;
}

static PyObject *tensor_getitem(PyObject *self, PyObject *index)
{
  static PyObject *name;
  PyObject *args[2] = {self, index};
  tl_py_error_fresh();
  if (tl_py_tf_wanted(args, 2))
    return tl_py_tf_dispatch_attr("__getitem__", args, 2);
  if (TL_PROF_UNLIKELY(tl_prof_on) && prof_name(&name, "index")) {
    tl_prof_mark m = tl_prof_begin(TL_PROF_OP, name, args, 2);
    PyObject *r = getitem_body(self, index);
    tl_prof_end(m);
    return tl_py_op_return(r);
  }
  return tl_py_op_return(getitem_body(self, index));
}

static int tensor_setitem(PyObject *self, PyObject *index, PyObject *value)
{
  static PyObject *name;
  PyObject *args[3] = {self, index, value};
  tl_py_error_fresh();
  if (value && tl_py_tf_wanted(args, 3)) {
    PyObject *r = tl_py_tf_dispatch_attr("__setitem__", args, 3);
    Py_XDECREF(r);
    return r ? 0 : -1;
  }
  if (TL_PROF_UNLIKELY(tl_prof_on) && prof_name(&name, "index_put_")) {
    tl_prof_mark m = tl_prof_begin(TL_PROF_OP, name, args, value ? 3 : 2);
    int r = setitem_body(self, index, value);
    tl_prof_end(m);
    tl_gpu_device_restore(); /* as tl_py_op_return */
    return r;
  }
  int r = setitem_body(self, index, value);
  tl_gpu_device_restore(); /* as tl_py_op_return */
  return r;
}

PyType_Slot tl_py_mapping_slots[] = {
    {Py_mp_subscript, tensor_getitem},
    {Py_mp_ass_subscript, tensor_setitem},
    {0, NULL},
};
