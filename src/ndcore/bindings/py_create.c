/* py_create.c - creation functions: tensor, as_tensor, from_numpy, zeros,
 * ones, full, empty (and their _like forms), empty_strided, asarray, frombuffer,
 * scalar_tensor, arange, linspace, logspace, eye, and Tensor.new_*.
 *
 * All take PyTorch's factory keywords (dtype, device, requires_grad, out ...)
 * through tl_py_factory_opts_parse; sizes come as f(2, 3), f((2, 3)) or
 * f(size=(2, 3)).  Dtype defaults follow PyTorch: integers give int64, floats
 * the default float dtype (torchlike.get_default_dtype()), complex its
 * complex counterpart, bools bool.                                         */
#include "ndcore/tensor/tl_backend.h"
#include "ndcore/bindings/py_create.h"
#include "ndcore/bindings/py_numpy.h"
#include "ndcore/kernels/tl_create.h"

/* ---- shared argument parsing ----------------------------------------------- */

int tl_py_factory_opts_parse(const char *func, PyObject *const *kwvalues, PyObject *kwnames,
                             const char *const *names, PyObject **values, tl_py_factory_opts *o)
{
  *o = (tl_py_factory_opts){.dtype = -1, .device = tl_py_default_device()};
  for (int i = 0; names && names[i]; i++)
    values[i] = NULL;
  Py_ssize_t nkw = kwnames ? PyTuple_GET_SIZE(kwnames) : 0;
  for (Py_ssize_t k = 0; k < nkw; k++) {
    const char *key = PyUnicode_AsUTF8(PyTuple_GET_ITEM(kwnames, k));
    PyObject *v = kwvalues[k];
    int own = -1;
    if (!key)
      return -1;
    for (int i = 0; names && names[i] && own < 0; i++)
      if (!strcmp(key, names[i]))
        own = i;
    if (own >= 0) {
      values[own] = v;
    } else if (!strcmp(key, "dtype")) {
      tl_dtype d;
      if (v != Py_None && tl_py_parse_dtype(v, &d) < 0)
        return -1;
      o->dtype = v == Py_None ? -1 : (int)d;
    } else if (!strcmp(key, "device")) {
      if (v != Py_None && tl_py_parse_device(v, &o->device) < 0)
        return -1;
      o->device_given = v != Py_None;
    } else if (!strcmp(key, "requires_grad")) {
      int r = PyObject_IsTrue(v);
      if (r < 0)
        return -1;
      o->requires_grad = r;
    } else if (!strcmp(key, "out")) {
      if (v != Py_None && !tl_py_is_tensor(v)) {
        PyErr_Format(PyExc_TypeError, "%s(): argument 'out' must be Tensor, not %s", func,
                     Py_TYPE(v)->tp_name);
        return -1;
      }
      o->out = v == Py_None ? NULL : v;
    } else if (strcmp(key, "layout") && strcmp(key, "pin_memory") &&
               strcmp(key, "memory_format")) {
      PyErr_Format(PyExc_TypeError, "%s() got an unexpected keyword argument '%s'", func, key);
      return -1;
    }
  }
  /* Another device's result is built on the host and moved there at the end
   * (tl_py_factory_finish), through the device's backend. */
  o->target = o->device;
  o->device = tl_device_cpu();
  if (o->target.type != TL_DEVICE_CPU && !tl_backend_get(o->target))
    return tl_py_raise_int();
  return 0;
}

int tl_py_factory_shape(const char *func, PyObject *const *args, Py_ssize_t nargs,
                        PyObject *size_kw, int64_t *shape, int *ndim)
{
  if (size_kw && nargs > 0) {
    PyErr_Format(PyExc_TypeError, "%s() got multiple values for argument 'size'", func);
    return -1;
  }
  if (size_kw)
    return tl_py_parse_shape(func, &size_kw, 1, shape, ndim);
  return tl_py_parse_shape(func, args, nargs, shape, ndim);
}

int tl_py_factory_dtype(const char *func, const tl_py_factory_opts *o, tl_dtype fallback,
                        tl_dtype *dtype)
{
  tl_dtype out_dtype = o->out ? tl_py_t(o->out)->dtype : fallback;
  if (o->dtype >= 0 && o->out && (tl_dtype)o->dtype != out_dtype) {
    PyErr_Format(PyExc_TypeError, "%s(): dtype %s does not match the dtype of out= (%s)", func,
                 tl_dtype_names[o->dtype], tl_dtype_names[out_dtype]);
    return -1;
  }
  *dtype = o->dtype >= 0 ? (tl_dtype)o->dtype : out_dtype;
  return 0;
}

PyObject *tl_py_factory_finish(tl_tensor *t, const tl_py_factory_opts *o)
{
  if (o->requires_grad && !tl_dtype_is_float(t->dtype) && !tl_dtype_is_complex(t->dtype)) {
    tl_tensor_release(t);
    return PyErr_Format(PyExc_RuntimeError, "Only Tensors of floating point and complex dtype "
                        "can require gradients (got %s)", tl_dtype_names[t->dtype]);
  }
  if (!o->out && o->target.type != TL_DEVICE_CPU && !tl_device_eq(o->target, tl_tensor_device(t))) {
    tl_tensor moved;
    tl_status s = tl_backend_tensor_to(&moved, t, o->target, t->dtype, false);
    tl_tensor_release(t);
    if (s != TL_OK)
      return tl_py_raise();
    *t = moved;
  }
  if (!o->out) {
    PyObject *r = tl_py_tensor_from(t);
    if (r)
      ((tl_py_tensor *)r)->requires_grad = o->requires_grad;
    return r;
  }
  if (o->requires_grad) {
    tl_tensor_release(t);
    return PyErr_Format(PyExc_RuntimeError, "out= and requires_grad=True cannot be used together");
  }
  tl_tensor *out = tl_py_t(o->out);
  char a[128], b[128];
  tl_status s = TL_OK;
  if (out->ndim != t->ndim || memcmp(out->shape, t->shape, sizeof(int64_t) * (size_t)t->ndim))
    s = tl_error_set(TL_ERR_RUNTIME, "out= has shape %s but the result has shape %s",
                     tl_shape_str(a, sizeof a, out->ndim, out->shape),
                     tl_shape_str(b, sizeof b, t->ndim, t->shape));
  else if (out->storage->readonly)
    s = tl_error_set(TL_ERR_VALUE, "out= is a read-only tensor");
  else
    s = tl_tensor_copy(out, t);
  tl_tensor_release(t);
  return s == TL_OK ? Py_NewRef(o->out) : tl_py_raise();
}

int tl_py_number_arg(const char *func, const char *what, PyObject *o, tl_scalar *s)
{
  int r = tl_py_scalar(o, s);
  if (r != 0)
    return r < 0 ? -1 : 0;
  bool is_tensor = tl_py_is_tensor(o);
  if (is_tensor || PyArray_IsScalar(o, Generic) ||
      (PyArray_Check(o) && PyArray_NDIM((PyArrayObject *)o) == 0)) {
    tl_tensor t;
    bool weak;
    if (is_tensor)
      tl_tensor_view_of(&t, tl_py_t(o));
    else if (tl_py_to_tensor(o, -1, false, &t, &weak) < 0)
      return -1;
    bool one = tl_tensor_numel(&t) == 1;
    tl_status read = one ? tl_backend_read_scalar(&t, s) : TL_OK; /* through its device */
    tl_tensor_release(&t);
    if (read != TL_OK)
      return tl_py_raise_int();
    if (one)
      return 0;
  }
  PyErr_Format(PyExc_TypeError, "%s(): argument '%s' must be a number, not %s", func, what,
               Py_TYPE(o)->tp_name);
  return -1;
}

/* The dtype PyTorch gives a Python number of this kind. */
static tl_dtype scalar_default_dtype(tl_kind kind)
{
  switch (kind) {
  case TL_KIND_BOOL: return TL_DTYPE_BOOL;
  case TL_KIND_FLOAT: return tl_dtype_default_float();
  case TL_KIND_COMPLEX: return tl_dtype_to_complex(tl_dtype_default_float());
  default: return TL_DTYPE_I64;
  }
}

/* An integer argument: TypeError for anything else (floats, bools). */
static int index_arg(const char *func, const char *what, PyObject *o, int64_t *v)
{
  if (PyBool_Check(o) || !PyIndex_Check(o)) {
    PyErr_Format(PyExc_TypeError, "%s(): argument '%s' must be int, not %s", func, what,
                 Py_TYPE(o)->tp_name);
    return -1;
  }
  *v = PyLong_AsLongLong(o);
  return *v == -1 && PyErr_Occurred() ? -1 : 0;
}

/* A non-negative integer argument (steps, n, m). */
static int count_arg(const char *func, const char *what, PyObject *o, int64_t *v)
{
  if (index_arg(func, what, o, v) < 0)
    return -1;
  if (*v < 0) {
    PyErr_Format(PyExc_RuntimeError, "%s(): %s must be greater or equal to 0, got %lld", func,
                 what, (long long)*v);
    return -1;
  }
  return 0;
}

/* ---- tensor, as_tensor, from_numpy ------------------------------------------- */

/* Python numbers come back from tl_py_to_tensor as weak float64/complex128;
 * PyTorch gives them the default dtype. */
static int default_weak(tl_tensor *t, bool weak, int dtype)
{
  if (!weak || dtype >= 0 || (t->dtype != TL_DTYPE_F64 && t->dtype != TL_DTYPE_C128))
    return 0;
  tl_tensor f;
  tl_dtype d = t->dtype == TL_DTYPE_F64 ? tl_dtype_default_float()
                                        : tl_dtype_to_complex(tl_dtype_default_float());
  tl_status s = tl_tensor_to_dtype(&f, t, d);
  tl_tensor_release(t);
  if (s != TL_OK)
    return tl_py_raise_int();
  *t = f;
  return 0;
}

/* tensor(data, *, dtype=None, device=None, requires_grad=False): always a copy. */
static PyObject *py_tensor(PyObject *self, PyObject *const *args, Py_ssize_t nargs,
                           PyObject *kwnames)
{
  (void)self;
  static const char *const names[] = {"data", NULL};
  PyObject *kw[1];
  tl_py_factory_opts o;
  tl_tensor t;
  bool weak;
  if (tl_py_factory_opts_parse("tensor", args + nargs, kwnames, names, kw, &o) < 0)
    return NULL;
  if (nargs + (kw[0] != NULL) != 1)
    return PyErr_Format(PyExc_TypeError, "tensor() takes 1 positional argument (data)");
  if (tl_py_to_tensor(nargs ? args[0] : kw[0], o.dtype, true, &t, &weak) < 0 ||
      default_weak(&t, weak, o.dtype) < 0)
    return NULL;
  return tl_py_factory_finish(&t, &o);
}

/* as_tensor(data, dtype=None, device=None): shares memory with tensors and
 * ndarrays when no conversion is needed. */
static PyObject *py_as_tensor(PyObject *self, PyObject *const *args, Py_ssize_t nargs,
                              PyObject *kwnames)
{
  (void)self;
  static const char *const names[] = {"data", NULL};
  PyObject *kw[1];
  tl_py_factory_opts o;
  tl_tensor t;
  bool weak;
  if (tl_py_factory_opts_parse("as_tensor", args + nargs, kwnames, names, kw, &o) < 0)
    return NULL;
  if (nargs > 2 || nargs + (kw[0] != NULL) < 1 || (nargs && kw[0]))
    return PyErr_Format(PyExc_TypeError, "as_tensor() takes data and an optional dtype");
  PyObject *data = nargs ? args[0] : kw[0];
  if (nargs == 2 && args[1] != Py_None) {
    tl_dtype d;
    if (tl_py_parse_dtype(args[1], &d) < 0)
      return NULL;
    o.dtype = d;
  }
  if (tl_py_is_tensor(data) && (o.dtype < 0 || (tl_dtype)o.dtype == tl_py_t(data)->dtype))
    return Py_NewRef(data);
  if (tl_py_to_tensor(data, o.dtype, false, &t, &weak) < 0 || default_weak(&t, weak, o.dtype) < 0)
    return NULL;
  return tl_py_factory_finish(&t, &o);
}

/* Does tensor t view obj's memory (obj a tensor, ndarray or buffer)? */
static bool shares_memory(PyObject *obj, const tl_tensor *t)
{
  if (tl_py_is_tensor(obj))
    return t->storage == tl_py_t(obj)->storage;
  if (PyArray_Check(obj))
    return tl_tensor_data(t) == PyArray_DATA((PyArrayObject *)obj);
  if (!PyObject_CheckBuffer(obj))
    return false;
  Py_buffer view;
  if (PyObject_GetBuffer(obj, &view, PyBUF_FULL_RO) < 0) {
    PyErr_Clear();
    return false;
  }
  bool same = tl_tensor_data(t) == view.buf;
  PyBuffer_Release(&view);
  return same;
}

/* asarray(obj, *, dtype=None, device=None, copy=None, requires_grad=False):
 * copy=None shares memory when it can, True always copies, False raises
 * ValueError when a copy cannot be avoided. */
static PyObject *py_asarray(PyObject *self, PyObject *const *args, Py_ssize_t nargs,
                            PyObject *kwnames)
{
  (void)self;
  static const char *const names[] = {"obj", "copy", NULL};
  PyObject *kw[2];
  tl_py_factory_opts o;
  tl_tensor t;
  bool weak;
  if (tl_py_factory_opts_parse("asarray", args + nargs, kwnames, names, kw, &o) < 0)
    return NULL;
  if (nargs + (kw[0] != NULL) != 1)
    return PyErr_Format(PyExc_TypeError, "asarray() takes 1 positional argument (obj)");
  PyObject *obj = nargs ? args[0] : kw[0];
  int copy = -1; /* None */
  if (kw[1] && kw[1] != Py_None && (copy = PyObject_IsTrue(kw[1])) < 0)
    return NULL;
  if (copy != 1 && tl_py_is_tensor(obj) &&
      (o.dtype < 0 || (tl_dtype)o.dtype == tl_py_t(obj)->dtype))
    return Py_NewRef(obj);
  if (tl_py_to_tensor(obj, o.dtype, copy == 1, &t, &weak) < 0 || default_weak(&t, weak, o.dtype) < 0)
    return NULL;
  if (copy == 0 && !shares_memory(obj, &t)) {
    tl_tensor_release(&t);
    return PyErr_Format(PyExc_ValueError, "asarray(): copy=False, but a %s%s%s cannot be viewed "
                        "without a copy", Py_TYPE(obj)->tp_name, o.dtype >= 0 ? " as " : "",
                        o.dtype >= 0 ? tl_dtype_names[o.dtype] : "");
  }
  return tl_py_factory_finish(&t, &o);
}

/* scalar_tensor(s, *, dtype=None, ...): a 0-d tensor, the default float dtype
 * unless dtype= says otherwise (whatever the kind of s). */
static PyObject *py_scalar_tensor(PyObject *self, PyObject *const *args, Py_ssize_t nargs,
                                  PyObject *kwnames)
{
  (void)self;
  static const char *const names[] = {"s", NULL};
  PyObject *kw[1];
  tl_py_factory_opts o;
  tl_scalar s;
  tl_tensor t;
  if (tl_py_factory_opts_parse("scalar_tensor", args + nargs, kwnames, names, kw, &o) < 0)
    return NULL;
  if (nargs + (kw[0] != NULL) != 1)
    return PyErr_Format(PyExc_TypeError, "scalar_tensor() takes 1 positional argument (s)");
  if (tl_py_number_arg("scalar_tensor", "s", nargs ? args[0] : kw[0], &s) < 0)
    return NULL;
  tl_dtype dtype = o.dtype >= 0 ? (tl_dtype)o.dtype : tl_dtype_default_float();
  if (tl_tensor_empty(&t, dtype, 0, NULL, o.device) != TL_OK)
    return tl_py_raise();
  tl_scalar_store(s, dtype, tl_tensor_data(&t));
  return tl_py_factory_finish(&t, &o);
}

/* frombuffer(buffer, *, dtype, count=-1, offset=0): a 1-d tensor viewing a
 * Python buffer's bytes (read-only when the buffer is).  count=-1 takes
 * everything after offset, which must then be whole elements. */
static PyObject *py_frombuffer(PyObject *self, PyObject *const *args, Py_ssize_t nargs,
                               PyObject *kwnames)
{
  (void)self;
  static const char *const names[] = {"buffer", "count", "offset", NULL};
  PyObject *kw[3];
  tl_py_factory_opts o;
  int64_t count = -1, offset = 0;
  tl_tensor t;
  if (tl_py_factory_opts_parse("frombuffer", args + nargs, kwnames, names, kw, &o) < 0)
    return NULL;
  if (nargs + (kw[0] != NULL) != 1)
    return PyErr_Format(PyExc_TypeError, "frombuffer() takes 1 positional argument (buffer)");
  if (o.dtype < 0)
    return PyErr_Format(PyExc_TypeError, "frombuffer() missing required keyword argument "
                        "'dtype'");
  PyObject *buffer = nargs ? args[0] : kw[0];
  if ((kw[1] && kw[1] != Py_None && index_arg("frombuffer", "count", kw[1], &count) < 0) ||
      (kw[2] && index_arg("frombuffer", "offset", kw[2], &offset) < 0))
    return NULL;
  Py_buffer view;
  if (PyObject_GetBuffer(buffer, &view, PyBUF_SIMPLE) < 0)
    return NULL;
  int64_t len = view.len, size = (int64_t)tl_dtype_size((tl_dtype)o.dtype);
  PyBuffer_Release(&view);
  if (offset < 0 || (len > 0 && offset >= len) || len == 0)
    return PyErr_Format(PyExc_ValueError, "frombuffer(): offset %lld must be in [0, %lld) for a "
                        "buffer of %lld bytes", (long long)offset, (long long)len, (long long)len);
  if (count < 0 && (len - offset) % size != 0)
    return PyErr_Format(PyExc_ValueError, "frombuffer(): the %lld bytes after offset %lld are "
                        "not a whole number of %s elements (%lld bytes each)",
                        (long long)(len - offset), (long long)offset,
                        tl_dtype_names[o.dtype], (long long)size);
  if (count < 0)
    count = (len - offset) / size;
  if (count == 0 || count > (len - offset) / size)
    return PyErr_Format(PyExc_ValueError, "frombuffer(): count %lld of %s (%lld bytes each) "
                        "does not fit the %lld bytes after offset %lld (and must not be 0)",
                        (long long)count, tl_dtype_names[o.dtype], (long long)size,
                        (long long)(len - offset), (long long)offset);
  /* A byte array over the range keeps the buffer alive; the tensor relabels it. */
  PyObject *bytes = PyArray_FromBuffer(buffer, PyArray_DescrFromType(NPY_UINT8),
                                       (npy_intp)(count * size), (npy_intp)offset);
  if (!bytes)
    return NULL;
  int r = tl_py_from_numpy(bytes, &t);
  Py_DECREF(bytes);
  if (r < 0)
    return NULL;
  t.dtype = (tl_dtype)o.dtype;
  t.shape[0] = count;
  t.strides[0] = 1;
  t.offset = 0;
  return tl_py_factory_finish(&t, &o);
}

static PyObject *py_from_numpy(PyObject *self, PyObject *arr)
{
  (void)self;
  tl_tensor t;
  if (!PyArray_Check(arr))
    return PyErr_Format(PyExc_TypeError, "expected np.ndarray (got %s)", Py_TYPE(arr)->tp_name);
  if (tl_py_from_numpy(arr, &t) < 0)
    return NULL;
  return tl_py_tensor_from(&t);
}

/* ---- zeros, ones, empty, full ------------------------------------------------ */

/* zeros/ones/empty/full(*size, [fill_value,] ...): allocate, then fill unless empty. */
static const tl_scalar zero = {.kind = TL_KIND_INT, .v.i = 0};
static const tl_scalar one = {.kind = TL_KIND_INT, .v.i = 1};

static PyObject *filled(const char *func, PyObject *const *args, Py_ssize_t nargs,
                        PyObject *kwnames, const tl_scalar *value, bool needs_value,
                        PyObject *like)
{
  static const char *const names[] = {"size", "fill_value", NULL};
  PyObject *kw[2];
  tl_py_factory_opts o;
  int64_t shape[TL_MAX_DIMS];
  int ndim;
  tl_tensor t;
  tl_scalar s = value ? *value : (tl_scalar){.kind = TL_KIND_INT};
  if (tl_py_factory_opts_parse(func, args + nargs, kwnames, names, kw, &o) < 0)
    return NULL;
  if (like && !o.device_given) /* zeros_like(t), t.new_zeros(): on t's device */
    o.target = tl_tensor_device(tl_py_t(like));
  if (needs_value) { /* full(size, fill_value) */
    PyObject *v = kw[1];
    if (!v && nargs == (kw[0] ? 0 : 2))
      v = args[--nargs];
    if (!v || nargs > 1)
      return PyErr_Format(PyExc_TypeError, "%s() takes a size and a fill_value", func);
    if (tl_py_number_arg(func, "fill_value", v, &s) < 0)
      return NULL;
  } else if (kw[1]) {
    return PyErr_Format(PyExc_TypeError, "%s() got an unexpected keyword argument 'fill_value'",
                        func);
  }
  tl_dtype dtype, fallback = like             ? tl_py_t(like)->dtype
                             : needs_value ? scalar_default_dtype(s.kind)
                                           : tl_dtype_default_float();
  if (tl_py_factory_shape(func, args, nargs, kw[0], shape, &ndim) < 0 ||
      tl_py_factory_dtype(func, &o, fallback, &dtype) < 0)
    return NULL;
  bool zero_fill = value == &zero; /* comes zeroed from the allocator */
  if ((zero_fill ? tl_tensor_zeros : tl_tensor_empty)(&t, dtype, ndim, shape, o.device) != TL_OK)
    return tl_py_raise();
  if (!zero_fill && (needs_value || value) && tl_tensor_fill(&t, s) != TL_OK) {
    tl_tensor_release(&t);
    return tl_py_raise();
  }
  return tl_py_factory_finish(&t, &o);
}


static PyObject *py_zeros(PyObject *m, PyObject *const *a, Py_ssize_t n, PyObject *kw)
{
  (void)m;
  return filled("zeros", a, n, kw, &zero, false, NULL);
}
static PyObject *py_ones(PyObject *m, PyObject *const *a, Py_ssize_t n, PyObject *kw)
{
  (void)m;
  return filled("ones", a, n, kw, &one, false, NULL);
}
static PyObject *py_empty(PyObject *m, PyObject *const *a, Py_ssize_t n, PyObject *kw)
{
  (void)m;
  return filled("empty", a, n, kw, NULL, false, NULL);
}
static PyObject *py_full(PyObject *m, PyObject *const *a, Py_ssize_t n, PyObject *kw)
{
  (void)m;
  return filled("full", a, n, kw, NULL, true, NULL);
}

/* The _like forms: the input's shape, and its dtype unless dtype= says otherwise. */
static PyObject *like(const char *func, PyObject *const *args, Py_ssize_t nargs, PyObject *kwnames,
                      const tl_scalar *value, bool needs_value)
{
  static const char *const names[] = {"input", "fill_value", NULL};
  PyObject *kw[2];
  tl_py_factory_opts o;
  tl_scalar s = value ? *value : (tl_scalar){.kind = TL_KIND_INT};
  if (tl_py_factory_opts_parse(func, args + nargs, kwnames, names, kw, &o) < 0)
    return NULL;
  PyObject *input = nargs ? args[0] : kw[0];
  PyObject *v = nargs > 1 ? args[1] : kw[1];
  if (!input || !tl_py_is_tensor(input))
    return PyErr_Format(PyExc_TypeError, "%s(): argument 'input' must be Tensor, not %s", func,
                        input ? Py_TYPE(input)->tp_name : "nothing");
  if (o.out)
    return PyErr_Format(PyExc_TypeError, "%s() got an unexpected keyword argument 'out'", func);
  if (nargs > (needs_value ? 2 : 1) || (nargs && kw[0]) || (nargs > 1 && kw[1]) ||
      (!needs_value && kw[1]))
    return PyErr_Format(PyExc_TypeError, "%s() takes %s", func,
                        needs_value ? "input and fill_value" : "one argument (input)");
  if (needs_value) {
    if (!v)
      return PyErr_Format(PyExc_TypeError, "full_like() missing required argument 'fill_value'");
    if (tl_py_number_arg(func, "fill_value", v, &s) < 0)
      return NULL;
  }
  const tl_tensor *in = tl_py_t(input);
  tl_tensor t;
  tl_dtype dtype = o.dtype >= 0 ? (tl_dtype)o.dtype : in->dtype;
  if (!o.device_given) /* on the input's device */
    o.target = tl_tensor_device(in);
  bool zero_fill = value == &zero;
  if ((zero_fill ? tl_tensor_zeros : tl_tensor_empty)(&t, dtype, in->ndim, in->shape,
                                                       o.device) != TL_OK)
    return tl_py_raise();
  if (!zero_fill && (needs_value || value) && tl_tensor_fill(&t, s) != TL_OK) {
    tl_tensor_release(&t);
    return tl_py_raise();
  }
  return tl_py_factory_finish(&t, &o);
}

static PyObject *py_zeros_like(PyObject *m, PyObject *const *a, Py_ssize_t n, PyObject *kw)
{
  (void)m;
  return like("zeros_like", a, n, kw, &zero, false);
}
static PyObject *py_ones_like(PyObject *m, PyObject *const *a, Py_ssize_t n, PyObject *kw)
{
  (void)m;
  return like("ones_like", a, n, kw, &one, false);
}
static PyObject *py_full_like(PyObject *m, PyObject *const *a, Py_ssize_t n, PyObject *kw)
{
  (void)m;
  return like("full_like", a, n, kw, NULL, true);
}
static PyObject *py_empty_like(PyObject *m, PyObject *const *a, Py_ssize_t n, PyObject *kw)
{
  (void)m;
  return like("empty_like", a, n, kw, NULL, false);
}

/* Tensor.new_zeros/new_ones/new_empty/new_full(size, ...): like the
 * functions, but the dtype defaults to self's. */
static PyObject *tensor_new_zeros(PyObject *self, PyObject *const *a, Py_ssize_t n, PyObject *kw)
{
  return filled("new_zeros", a, n, kw, &zero, false, self);
}
static PyObject *tensor_new_ones(PyObject *self, PyObject *const *a, Py_ssize_t n, PyObject *kw)
{
  return filled("new_ones", a, n, kw, &one, false, self);
}
static PyObject *tensor_new_empty(PyObject *self, PyObject *const *a, Py_ssize_t n, PyObject *kw)
{
  return filled("new_empty", a, n, kw, NULL, false, self);
}
static PyObject *tensor_new_full(PyObject *self, PyObject *const *a, Py_ssize_t n, PyObject *kw)
{
  return filled("new_full", a, n, kw, NULL, true, self);
}

/* Tensor.new_tensor(data, *, dtype=None, ...): a copy of data in self's dtype
 * unless dtype= says otherwise. */
static PyObject *tensor_new_tensor(PyObject *self, PyObject *const *args, Py_ssize_t nargs,
                                   PyObject *kwnames)
{
  static const char *const names[] = {"data", NULL};
  PyObject *kw[1];
  tl_py_factory_opts o;
  tl_tensor t;
  bool weak;
  if (tl_py_factory_opts_parse("new_tensor", args + nargs, kwnames, names, kw, &o) < 0)
    return NULL;
  if (!o.device_given)
    o.target = tl_tensor_device(tl_py_t(self));
  if (nargs + (kw[0] != NULL) != 1)
    return PyErr_Format(PyExc_TypeError, "new_tensor() takes 1 positional argument (data)");
  int dtype = o.dtype >= 0 ? o.dtype : (int)tl_py_t(self)->dtype;
  if (tl_py_to_tensor(nargs ? args[0] : kw[0], dtype, true, &t, &weak) < 0)
    return NULL;
  return tl_py_factory_finish(&t, &o);
}

/* empty_strided(size, stride, *, dtype=None, device=None): uninitialised memory
 * laid out with the given strides (in elements, non-negative). */
static PyObject *py_empty_strided(PyObject *m, PyObject *const *args, Py_ssize_t nargs,
                                  PyObject *kwnames)
{
  (void)m;
  static const char *const names[] = {"size", "stride", NULL};
  PyObject *kw[2];
  tl_py_factory_opts o;
  int64_t shape[TL_MAX_DIMS], strides[TL_MAX_DIMS];
  int ndim, nstrides;
  char a[256], b[256];
  if (tl_py_factory_opts_parse("empty_strided", args + nargs, kwnames, names, kw, &o) < 0)
    return NULL;
  if (nargs > 2 || (nargs > 0 && kw[0]) || (nargs > 1 && kw[1]))
    return PyErr_Format(PyExc_TypeError, "empty_strided() takes size and stride");
  PyObject *size = nargs > 0 ? args[0] : kw[0], *stride = nargs > 1 ? args[1] : kw[1];
  if (!size || !stride)
    return PyErr_Format(PyExc_TypeError, "empty_strided() missing required argument '%s'",
                        size ? "stride" : "size");
  if (tl_py_parse_shape("empty_strided", &size, 1, shape, &ndim) < 0 ||
      tl_py_parse_shape("empty_strided", &stride, 1, strides, &nstrides) < 0)
    return NULL;
  if (nstrides != ndim)
    return PyErr_Format(PyExc_RuntimeError, "empty_strided(): mismatch in length of strides "
                        "%s and shape %s", tl_shape_str(a, sizeof a, nstrides, strides),
                        tl_shape_str(b, sizeof b, ndim, shape));
  int64_t numel;
  if (tl_shape_numel(ndim, shape, &numel) != TL_OK)
    return tl_py_raise();
  int64_t extent = numel > 0; /* elements the storage must hold */
  for (int i = 0; i < ndim; i++) {
    int64_t span;
    if (strides[i] < 0)
      return PyErr_Format(PyExc_RuntimeError, "empty_strided(): negative strides are not "
                          "supported, got %s", tl_shape_str(a, sizeof a, ndim, strides));
    if (numel > 0 && (__builtin_mul_overflow(shape[i] - 1, strides[i], &span) ||
                      __builtin_add_overflow(extent, span, &extent) || extent > ((int64_t)1 << 56)))
      return PyErr_Format(PyExc_ValueError, "empty_strided(): size %s with strides %s is too "
                          "large", tl_shape_str(a, sizeof a, ndim, shape),
                          tl_shape_str(b, sizeof b, ndim, strides));
  }
  tl_tensor t;
  tl_dtype dtype = o.dtype >= 0 ? (tl_dtype)o.dtype : tl_dtype_default_float();
  if (tl_tensor_empty(&t, dtype, 1, &extent, o.device) != TL_OK)
    return tl_py_raise();
  t.ndim = ndim;
  memcpy(t.shape, shape, sizeof(int64_t) * (size_t)ndim);
  memcpy(t.strides, strides, sizeof(int64_t) * (size_t)ndim);
  return tl_py_factory_finish(&t, &o);
}

/* ---- ranges -------------------------------------------------------------------- */

/* arange(end) / arange(start, end, step=1): start, end and step may also come
 * by keyword.  Integers give int64, any float the default float dtype. */
static PyObject *py_arange(PyObject *self, PyObject *const *args, Py_ssize_t nargs,
                           PyObject *kwnames)
{
  (void)self;
  static const char *const names[] = {"start", "end", "step", NULL};
  PyObject *kw[3], *given[3] = {NULL, NULL, NULL};
  tl_scalar v[3] = {{.kind = TL_KIND_INT, .v.i = 0}, {.kind = TL_KIND_INT},
                    {.kind = TL_KIND_INT, .v.i = 1}};
  tl_py_factory_opts o;
  if (tl_py_factory_opts_parse("arange", args + nargs, kwnames, names, kw, &o) < 0)
    return NULL;
  if (nargs > 3)
    return PyErr_Format(PyExc_TypeError, "arange() takes at most 3 positional arguments (%zd "
                                         "given)", nargs);
  if (nargs == 1) { /* arange(end) */
    given[1] = args[0];
  } else {
    for (Py_ssize_t i = 0; i < nargs; i++)
      given[i] = args[i];
  }
  for (int i = 0; i < 3; i++) {
    if (kw[i] && given[i])
      return PyErr_Format(PyExc_TypeError, "arange() got multiple values for argument '%s'",
                          names[i]);
    given[i] = given[i] ? given[i] : kw[i];
    if (!given[i])
      continue;
    if (tl_py_number_arg("arange", names[i], given[i], &v[i]) < 0)
      return NULL;
    if (v[i].kind == TL_KIND_COMPLEX)
      return PyErr_Format(PyExc_TypeError, "arange(): argument '%s' must be a real number, not "
                                           "complex", names[i]);
    if (v[i].kind == TL_KIND_BOOL)
      v[i] = (tl_scalar){.kind = TL_KIND_INT, .v.i = v[i].v.b};
  }
  if (!given[1])
    return PyErr_Format(PyExc_TypeError, "arange() missing required argument 'end'");
  bool any_float = v[0].kind == TL_KIND_FLOAT || v[1].kind == TL_KIND_FLOAT ||
                   v[2].kind == TL_KIND_FLOAT;
  tl_dtype dtype;
  if (tl_py_factory_dtype("arange", &o, any_float ? tl_dtype_default_float() : TL_DTYPE_I64,
                          &dtype) < 0)
    return NULL;
  int64_t n;
  tl_tensor t;
  if (tl_arange_length(v[0], v[1], v[2], dtype, &n) != TL_OK ||
      tl_tensor_empty(&t, dtype, 1, &n, o.device) != TL_OK)
    return tl_py_raise();
  tl_tensor_arange_fill(&t, v[0], v[2]);
  return tl_py_factory_finish(&t, &o);
}

/* linspace/logspace(start, end, steps, [base,] ...): steps evenly spaced values
 * from start to end inclusive (the powers base**x of them for logspace). */
static PyObject *spaced(const char *func, PyObject *const *args, Py_ssize_t nargs,
                        PyObject *kwnames, bool log)
{
  static const char *const names[] = {"start", "end", "steps", "base", NULL};
  PyObject *kw[4], *given[4] = {NULL, NULL, NULL, NULL};
  tl_scalar v[2], base = {.kind = TL_KIND_FLOAT, .v.f = 10.0};
  tl_py_factory_opts o;
  int64_t steps;
  if (tl_py_factory_opts_parse(func, args + nargs, kwnames, names, kw, &o) < 0)
    return NULL;
  int nparams = log ? 4 : 3;
  if (nargs > nparams || (!log && kw[3]))
    return PyErr_Format(PyExc_TypeError, "%s() takes start, end, steps%s", func,
                        log ? " and base" : "");
  for (int i = 0; i < nparams; i++) {
    given[i] = i < nargs ? args[i] : kw[i];
    if (i < nargs && kw[i])
      return PyErr_Format(PyExc_TypeError, "%s() got multiple values for argument '%s'", func,
                          names[i]);
    if (!given[i] && i < 3)
      return PyErr_Format(PyExc_TypeError, "%s() missing required argument '%s'", func,
                          names[i]);
  }
  if (tl_py_number_arg(func, "start", given[0], &v[0]) < 0 ||
      tl_py_number_arg(func, "end", given[1], &v[1]) < 0 ||
      count_arg(func, "steps", given[2], &steps) < 0 ||
      (given[3] && tl_py_number_arg(func, "base", given[3], &base) < 0))
    return NULL;
  if (base.kind == TL_KIND_COMPLEX)
    return PyErr_Format(PyExc_TypeError, "%s(): argument 'base' must be a real number", func);
  bool is_complex = v[0].kind == TL_KIND_COMPLEX || v[1].kind == TL_KIND_COMPLEX;
  tl_dtype dtype;
  if (tl_py_factory_dtype(func, &o, is_complex ? tl_dtype_to_complex(tl_dtype_default_float())
                                            : tl_dtype_default_float(), &dtype) < 0)
    return NULL;
  tl_tensor t;
  if (tl_tensor_empty(&t, dtype, 1, &steps, o.device) != TL_OK)
    return tl_py_raise();
  if (tl_tensor_linspace_fill(&t, v[0], v[1], log, base) != TL_OK) {
    tl_tensor_release(&t);
    return tl_py_raise();
  }
  return tl_py_factory_finish(&t, &o);
}

static PyObject *py_linspace(PyObject *m, PyObject *const *a, Py_ssize_t n, PyObject *kw)
{
  (void)m;
  return spaced("linspace", a, n, kw, false);
}
static PyObject *py_logspace(PyObject *m, PyObject *const *a, Py_ssize_t n, PyObject *kw)
{
  (void)m;
  return spaced("logspace", a, n, kw, true);
}

/* eye(n, m=None, *, dtype=None, ...): ones on the main diagonal of an n x m matrix. */
static PyObject *py_eye(PyObject *self, PyObject *const *args, Py_ssize_t nargs,
                        PyObject *kwnames)
{
  (void)self;
  static const char *const names[] = {"n", "m", NULL};
  PyObject *kw[2];
  tl_py_factory_opts o;
  int64_t shape[2];
  if (tl_py_factory_opts_parse("eye", args + nargs, kwnames, names, kw, &o) < 0)
    return NULL;
  if (nargs > 2 || (nargs > 0 && kw[0]) || (nargs > 1 && kw[1]))
    return PyErr_Format(PyExc_TypeError, "eye() takes n and an optional m");
  PyObject *n = nargs > 0 ? args[0] : kw[0], *m = nargs > 1 ? args[1] : kw[1];
  if (!n)
    return PyErr_Format(PyExc_TypeError, "eye() missing required argument 'n'");
  if (count_arg("eye", "n", n, &shape[0]) < 0 ||
      (m && m != Py_None && count_arg("eye", "m", m, &shape[1]) < 0))
    return NULL;
  if (!m || m == Py_None)
    shape[1] = shape[0];
  tl_dtype dtype;
  tl_tensor t;
  if (tl_py_factory_dtype("eye", &o, tl_dtype_default_float(), &dtype) < 0)
    return NULL;
  if (tl_tensor_empty(&t, dtype, 2, shape, o.device) != TL_OK)
    return tl_py_raise();
  if (tl_tensor_eye_fill(&t) != TL_OK) {
    tl_tensor_release(&t);
    return tl_py_raise();
  }
  return tl_py_factory_finish(&t, &o);
}

#define TL_FASTCALL_KW(fn) (PyCFunction)(void (*)(void))fn, METH_FASTCALL | METH_KEYWORDS
PyMethodDef tl_py_create_methods[] = {
    {"new_zeros", TL_FASTCALL_KW(tensor_new_zeros), NULL},
    {"new_ones", TL_FASTCALL_KW(tensor_new_ones), NULL},
    {"new_empty", TL_FASTCALL_KW(tensor_new_empty), NULL},
    {"new_full", TL_FASTCALL_KW(tensor_new_full), NULL},
    {"new_tensor", TL_FASTCALL_KW(tensor_new_tensor), NULL},
    {NULL, NULL, 0, NULL},
};

PyMethodDef tl_py_create_functions[] = {
    {"tensor", TL_FASTCALL_KW(py_tensor), NULL},
    {"as_tensor", TL_FASTCALL_KW(py_as_tensor), NULL},
    {"asarray", TL_FASTCALL_KW(py_asarray), NULL},
    {"scalar_tensor", TL_FASTCALL_KW(py_scalar_tensor), NULL},
    {"from_numpy", py_from_numpy, METH_O, NULL},
    {"frombuffer", TL_FASTCALL_KW(py_frombuffer), NULL},
    {"zeros", TL_FASTCALL_KW(py_zeros), NULL},
    {"ones", TL_FASTCALL_KW(py_ones), NULL},
    {"empty", TL_FASTCALL_KW(py_empty), NULL},
    {"full", TL_FASTCALL_KW(py_full), NULL},
    {"zeros_like", TL_FASTCALL_KW(py_zeros_like), NULL},
    {"ones_like", TL_FASTCALL_KW(py_ones_like), NULL},
    {"full_like", TL_FASTCALL_KW(py_full_like), NULL},
    {"empty_like", TL_FASTCALL_KW(py_empty_like), NULL},
    {"empty_strided", TL_FASTCALL_KW(py_empty_strided), NULL},
    {"arange", TL_FASTCALL_KW(py_arange), NULL},
    {"linspace", TL_FASTCALL_KW(py_linspace), NULL},
    {"logspace", TL_FASTCALL_KW(py_logspace), NULL},
    {"eye", TL_FASTCALL_KW(py_eye), NULL},
    {NULL, NULL, 0, NULL},
};
