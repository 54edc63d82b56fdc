/* py_views.c - view methods (view, reshape, permute ...) and basic indexing.
 *
 * Basic indexing (int, slice with any step, None, Ellipsis) builds a view the
 * way NumPy does; anything else in an index is advanced indexing, handled by
 * the indexing module (tl_py_advanced_getitem / setitem).                   */
#include "ndcore/bindings/py_tensor.h"
#include "ndcore/tensor/tl_views.h"

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
    if (!PyIndex_Check(args[i]) || PyBool_Check(args[i])) {
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

static int int_arg(PyObject *o, int64_t *v)
{
  *v = PyLong_AsLongLong(o);
  return *v == -1 && PyErr_Occurred() ? -1 : 0;
}

/* Fold keyword arguments named in `names` (in positional order) into a
 * positional vector, so f(x, dim=1) parses like f(x, 1).  Returns the count,
 * or -1 with an exception. */
static Py_ssize_t fold_kwargs(const char *func, PyObject *const *args, Py_ssize_t nargs,
                              PyObject *kwnames, const char *const *names, PyObject **out)
{
  int count = 0;
  while (names[count])
    count++;
  Py_ssize_t nkw = kwnames ? PyTuple_GET_SIZE(kwnames) : 0, n = nargs;
  if (nargs > count) {
    PyErr_Format(PyExc_TypeError, "%s() takes at most %d arguments (%zd given)", func, count,
                 nargs);
    return -1;
  }
  for (Py_ssize_t i = 0; i < nargs && i < count; i++)
    out[i] = args[i];
  for (int i = (int)nargs; i < count; i++)
    out[i] = NULL;
  for (Py_ssize_t k = 0; k < nkw; k++) {
    const char *key = PyUnicode_AsUTF8(PyTuple_GET_ITEM(kwnames, k));
    int i = 0;
    while (key && i < count && strcmp(names[i], key))
      i++;
    if (!key || i == count || i < nargs) {
      PyErr_Format(PyExc_TypeError, "%s() got an unexpected or repeated keyword argument '%s'",
                   func, key ? key : "?");
      return -1;
    }
    out[i] = args[nargs + k];
    n = i + 1 > n ? i + 1 : n;
  }
  for (Py_ssize_t i = 0; i < n; i++)
    if (!out[i]) {
      PyErr_Format(PyExc_TypeError, "%s() missing argument '%s'", func, names[i]);
      return -1;
    }
  return n;
}

/* ---- methods ------------------------------------------------------------------ */

static PyObject *tensor_view(PyObject *self, PyObject *const *args, Py_ssize_t nargs)
{
  int64_t shape[TL_MAX_DIMS];
  int ndim;
  tl_tensor out;
  tl_dtype dtype;
  if (nargs == 1 && PyObject_TypeCheck(args[0], tl_py_dtype_type)) {
    if (tl_py_parse_dtype(args[0], &dtype) < 0)
      return NULL;
    return wrap(tl_view_dtype(&out, tl_py_t(self), dtype), &out);
  }
  if (tl_py_parse_shape("view", args, nargs, shape, &ndim) < 0)
    return NULL;
  return wrap(tl_view_reshape(&out, tl_py_t(self), ndim, shape, false), &out);
}

static PyObject *tensor_reshape(PyObject *self, PyObject *const *args, Py_ssize_t nargs)
{
  int64_t shape[TL_MAX_DIMS];
  int ndim;
  tl_tensor out;
  if (tl_py_parse_shape("reshape", args, nargs, shape, &ndim) < 0)
    return NULL;
  return wrap(tl_view_reshape(&out, tl_py_t(self), ndim, shape, true), &out);
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

static PyObject *tensor_permute(PyObject *self, PyObject *const *args, Py_ssize_t nargs,
                                PyObject *kwnames)
{
  static const char *const names[] = {"dims", NULL};
  PyObject *kw[1];
  int64_t dims[TL_MAX_DIMS];
  int ndim;
  tl_tensor out;
  if (kwnames && PyTuple_GET_SIZE(kwnames)) {
    if (fold_kwargs("permute", args, nargs, kwnames, names, kw) < 0)
      return NULL;
    args = kw;
    nargs = 1;
  }
  if (tl_py_parse_shape("permute", args, nargs, dims, &ndim) < 0)
    return NULL;
  return wrap(tl_view_permute(&out, tl_py_t(self), ndim, dims), &out);
}

static PyObject *tensor_transpose(PyObject *self, PyObject *const *args, Py_ssize_t nargs,
                                  PyObject *kwnames)
{
  static const char *const names[] = {"dim0", "dim1", NULL};
  PyObject *kw[2];
  int64_t d0, d1;
  tl_tensor out;
  if (kwnames && PyTuple_GET_SIZE(kwnames)) {
    if ((nargs = fold_kwargs("transpose", args, nargs, kwnames, names, kw)) < 0)
      return NULL;
    args = kw;
  }
  if (nargs != 2)
    return PyErr_Format(PyExc_TypeError, "transpose() takes 2 dims (dim0, dim1), got %zd", nargs);
  if (int_arg(args[0], &d0) < 0 || int_arg(args[1], &d1) < 0)
    return NULL;
  return wrap(tl_view_transpose(&out, tl_py_t(self), d0, d1), &out);
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

static PyObject *tensor_expand(PyObject *self, PyObject *const *args, Py_ssize_t nargs)
{
  int64_t shape[TL_MAX_DIMS];
  int ndim;
  tl_tensor out;
  if (tl_py_parse_shape("expand", args, nargs, shape, &ndim) < 0)
    return NULL;
  return wrap(tl_view_expand(&out, tl_py_t(self), ndim, shape), &out);
}

static PyObject *tensor_expand_as(PyObject *self, PyObject *other)
{
  tl_tensor out;
  if (!tl_py_is_tensor(other))
    return PyErr_Format(PyExc_TypeError, "expand_as(): argument must be a Tensor");
  return wrap(tl_view_expand(&out, tl_py_t(self), tl_py_t(other)->ndim, tl_py_t(other)->shape),
              &out);
}

static PyObject *tensor_squeeze(PyObject *self, PyObject *const *args, Py_ssize_t nargs,
                                PyObject *kwnames)
{
  static const char *const names[] = {"dim", NULL};
  PyObject *kw[1];
  tl_tensor *t = tl_py_t(self), out;
  uint64_t mask = ~(uint64_t)0;
  if (kwnames && PyTuple_GET_SIZE(kwnames)) {
    if ((nargs = fold_kwargs("squeeze", args, nargs, kwnames, names, kw)) < 0)
      return NULL;
    args = kw;
  }
  if (nargs > 1)
    return PyErr_Format(PyExc_TypeError, "squeeze() takes at most 1 argument (dim)");
  if (nargs == 1 && tl_py_parse_dims(args[0], t->ndim, &mask) < 0)
    return NULL;
  return wrap(tl_view_squeeze(&out, t, mask), &out);
}

static PyObject *tensor_unsqueeze(PyObject *self, PyObject *const *args, Py_ssize_t nargs,
                                  PyObject *kwnames)
{
  static const char *const names[] = {"dim", NULL};
  PyObject *kw[1];
  int64_t d;
  tl_tensor out;
  if ((nargs = fold_kwargs("unsqueeze", args, nargs, kwnames, names, kw)) < 0)
    return NULL;
  if (nargs != 1)
    return PyErr_Format(PyExc_TypeError, "unsqueeze() takes exactly one argument (dim), got %zd",
                        nargs);
  if (int_arg(kw[0], &d) < 0)
    return NULL;
  return wrap(tl_view_unsqueeze(&out, tl_py_t(self), d), &out);
}

static PyObject *tensor_flatten(PyObject *self, PyObject *args, PyObject *kwargs)
{
  static char *kwlist[] = {"start_dim", "end_dim", NULL};
  long long start = 0, end = -1;
  tl_tensor out;
  if (!PyArg_ParseTupleAndKeywords(args, kwargs, "|LL:flatten", kwlist, &start, &end))
    return NULL;
  return wrap(tl_view_flatten(&out, tl_py_t(self), start, end), &out);
}

static PyObject *tensor_ravel(PyObject *self, PyObject *unused)
{
  (void)unused;
  tl_tensor out;
  return wrap(tl_view_flatten(&out, tl_py_t(self), 0, -1), &out);
}

/* The op functions of this file take the tensor first, so they double as
 * module functions: torchlike.reshape(t, shape) == t.reshape(shape). */
PyMethodDef tl_py_view_methods[] = {
    {"view", (PyCFunction)(void (*)(void))tensor_view, METH_FASTCALL, NULL},
    {"reshape", (PyCFunction)(void (*)(void))tensor_reshape, METH_FASTCALL, NULL},
    {"view_as", tensor_view_as, METH_O, NULL},
    {"reshape_as", tensor_reshape_as, METH_O, NULL},
    {"permute", (PyCFunction)(void (*)(void))tensor_permute, METH_FASTCALL | METH_KEYWORDS, NULL},
    {"transpose", (PyCFunction)(void (*)(void))tensor_transpose, METH_FASTCALL | METH_KEYWORDS,
     NULL},
    {"swapaxes", (PyCFunction)(void (*)(void))tensor_transpose, METH_FASTCALL | METH_KEYWORDS,
     NULL},
    {"swapdims", (PyCFunction)(void (*)(void))tensor_transpose, METH_FASTCALL | METH_KEYWORDS,
     NULL},
    {"t", tensor_t, METH_NOARGS, NULL},
    {"expand", (PyCFunction)(void (*)(void))tensor_expand, METH_FASTCALL, NULL},
    {"expand_as", tensor_expand_as, METH_O, NULL},
    {"squeeze", (PyCFunction)(void (*)(void))tensor_squeeze, METH_FASTCALL | METH_KEYWORDS, NULL},
    {"unsqueeze", (PyCFunction)(void (*)(void))tensor_unsqueeze, METH_FASTCALL | METH_KEYWORDS,
     NULL},
    {"flatten", (PyCFunction)(void (*)(void))tensor_flatten, METH_VARARGS | METH_KEYWORDS, NULL},
    {"ravel", tensor_ravel, METH_NOARGS, NULL},
    {NULL, NULL, 0, NULL},
};

/* Module functions taking the tensor first: torchlike.reshape(t, shape). */
static PyObject *fn_reshape(PyObject *m, PyObject *const *args, Py_ssize_t nargs)
{
  (void)m;
  if (nargs < 1 || !tl_py_is_tensor(args[0]))
    return PyErr_Format(PyExc_TypeError, "reshape(): argument 'input' must be Tensor");
  return tensor_reshape(args[0], args + 1, nargs - 1);
}

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
    {"reshape", (PyCFunction)(void (*)(void))fn_reshape, METH_FASTCALL, NULL},
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
      tl_view_unsqueeze(&tmp, out, dim);
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

static PyObject *tensor_getitem(PyObject *self, PyObject *index)
{
  PyObject *args[2] = {self, index};
  if (tl_py_grad_wanted(args, 2))
    return tl_py_record(tl_py_formula_getitem, slot_method("__getitem__"), args, 2, NULL, 0);
  tl_tensor out;
  int r = basic_view(tl_py_t(self), index, &out);
  if (r < 0)
    return NULL;
  if (r == 0)
    return tl_py_tensor_from(&out);
  if (tl_py_advanced_getitem)
    return tl_py_advanced_getitem(self, index);
  return PyErr_Format(PyExc_IndexError, "only integers, slices, None and Ellipsis are valid "
                                        "indices here, got %s", Py_TYPE(index)->tp_name);
}

static int tensor_setitem(PyObject *self, PyObject *index, PyObject *value)
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
  if (tl_py_to_tensor(value, -1, false, &src, &weak) == 0) {
    result = tl_tensor_copy(&view, &src) == TL_OK ? 0 : tl_py_raise_int();
    tl_tensor_release(&src);
  }
  tl_tensor_release(&view);
  return result;
}

PyType_Slot tl_py_mapping_slots[] = {
    {Py_mp_subscript, tensor_getitem},
    {Py_mp_ass_subscript, tensor_setitem},
    {0, NULL},
};
