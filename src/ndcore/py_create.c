/* py_create.c - creation functions: tensor, as_tensor, from_numpy, zeros,
 * ones, full, empty (and their _like forms), arange.
 *
 * All take PyTorch's keyword arguments (dtype, device, requires_grad ...);
 * sizes come as f(2, 3) or f((2, 3)).                                      */
#include "ndcore/py_tensor.h"
#include "ndcore/py_numpy.h"
#include "ndcore/tl_create.h"

int tl_py_parse_shape(const char *func, PyObject *const *args, Py_ssize_t nargs, int64_t *shape,
                      int *ndim);

/* The keyword arguments shared by creation functions. */
typedef struct {
  int dtype; /* -1: default */
  tl_device device;
  bool requires_grad;
  PyObject *out;
} create_opts;

static int parse_opts(const char *func, PyObject *const *kwvalues, PyObject *kwnames,
                      create_opts *o, PyObject **fill_value)
{
  *o = (create_opts){.dtype = -1, .device = tl_device_cpu()};
  Py_ssize_t nkw = kwnames ? PyTuple_GET_SIZE(kwnames) : 0;
  for (Py_ssize_t k = 0; k < nkw; k++) {
    const char *key = PyUnicode_AsUTF8(PyTuple_GET_ITEM(kwnames, k));
    PyObject *v = kwvalues[k];
    tl_dtype d;
    if (!strcmp(key, "dtype")) {
      if (v != Py_None) {
        if (tl_py_parse_dtype(v, &d) < 0)
          return -1;
        o->dtype = d;
      }
    } else if (!strcmp(key, "device")) {
      if (v != Py_None && tl_py_parse_device(v, &o->device) < 0)
        return -1;
    } else if (!strcmp(key, "requires_grad")) {
      o->requires_grad = PyObject_IsTrue(v);
    } else if (!strcmp(key, "out")) {
      o->out = v == Py_None ? NULL : v;
    } else if (!strcmp(key, "fill_value") && fill_value) {
      *fill_value = v;
    } else if (strcmp(key, "layout") && strcmp(key, "pin_memory") && strcmp(key, "memory_format")) {
      PyErr_Format(PyExc_TypeError, "%s() got an unexpected keyword argument '%s'", func, key);
      return -1;
    }
  }
  if (o->device.type != TL_DEVICE_CPU) {
    PyErr_Format(PyExc_RuntimeError, "%s(): cannot create a tensor on cuda:%d: no CUDA support is "
                                     "available in this build or on this machine",
                 func, o->device.index);
    return -1;
  }
  if (o->requires_grad) {
    PyErr_Format(PyExc_NotImplementedError, "%s(): requires_grad=True needs autograd, which is "
                                            "not built yet", func);
    return -1;
  }
  return 0;
}

/* Return `t` as the result, or copy it into out= when given. */
static PyObject *finish(tl_tensor *t, const create_opts *o)
{
  if (!o->out)
    return tl_py_tensor_from(t);
  if (!tl_py_is_tensor(o->out)) {
    tl_tensor_release(t);
    return PyErr_Format(PyExc_TypeError, "argument 'out' must be Tensor");
  }
  tl_status s = tl_tensor_copy(tl_py_t(o->out), t);
  tl_tensor_release(t);
  return s == TL_OK ? Py_NewRef(o->out) : tl_py_raise();
}

static PyObject *py_tensor(PyObject *self, PyObject *const *args, Py_ssize_t nargs,
                           PyObject *kwnames)
{
  (void)self;
  create_opts o;
  tl_tensor t;
  bool weak;
  if (nargs != 1)
    return PyErr_Format(PyExc_TypeError, "tensor() takes 1 positional argument (data)");
  if (parse_opts("tensor", args + nargs, kwnames, &o, NULL) < 0)
    return NULL;
  if (tl_py_to_tensor(args[0], o.dtype, true, &t, &weak) < 0)
    return NULL;
  if (weak && t.dtype == TL_DTYPE_F64 && o.dtype < 0) { /* tensor(1.5) is the default float */
    tl_tensor f;
    if (tl_tensor_to_dtype(&f, &t, tl_dtype_default_float()) != TL_OK) {
      tl_tensor_release(&t);
      return tl_py_raise();
    }
    tl_tensor_release(&t);
    t = f;
  } else if (weak && t.dtype == TL_DTYPE_C128 && o.dtype < 0) {
    tl_tensor c;
    if (tl_tensor_to_dtype(&c, &t, tl_dtype_to_complex(tl_dtype_default_float())) != TL_OK) {
      tl_tensor_release(&t);
      return tl_py_raise();
    }
    tl_tensor_release(&t);
    t = c;
  }
  return tl_py_tensor_from(&t);
}

/* as_tensor/asarray: share memory with tensors and ndarrays when the dtype allows. */
static PyObject *py_as_tensor(PyObject *self, PyObject *const *args, Py_ssize_t nargs,
                              PyObject *kwnames)
{
  (void)self;
  create_opts o;
  tl_tensor t;
  bool weak;
  if (nargs < 1 || nargs > 2)
    return PyErr_Format(PyExc_TypeError, "as_tensor() takes data and an optional dtype");
  if (parse_opts("as_tensor", args + nargs, kwnames, &o, NULL) < 0)
    return NULL;
  if (nargs == 2 && args[1] != Py_None) {
    tl_dtype d;
    if (tl_py_parse_dtype(args[1], &d) < 0)
      return NULL;
    o.dtype = d;
  }
  if (o.dtype < 0 && tl_py_is_tensor(args[0]))
    return Py_NewRef(args[0]);
  if (tl_py_to_tensor(args[0], o.dtype, false, &t, &weak) < 0)
    return NULL;
  if (weak && o.dtype < 0 && (t.dtype == TL_DTYPE_F64 || t.dtype == TL_DTYPE_C128)) {
    tl_tensor f;
    tl_dtype d = t.dtype == TL_DTYPE_F64 ? tl_dtype_default_float()
                                         : tl_dtype_to_complex(tl_dtype_default_float());
    tl_status s = tl_tensor_to_dtype(&f, &t, d);
    tl_tensor_release(&t);
    if (s != TL_OK)
      return tl_py_raise();
    t = f;
  }
  return tl_py_tensor_from(&t);
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

/* zeros/ones/empty/full share this: allocate, then fill unless empty. */
static PyObject *filled(const char *func, PyObject *const *args, Py_ssize_t nargs,
                        PyObject *kwnames, PyObject *value, bool needs_value)
{
  create_opts o;
  int64_t shape[TL_MAX_DIMS];
  int ndim;
  tl_tensor t;
  PyObject *kw_value = NULL;
  if (parse_opts(func, args + nargs, kwnames, &o, &kw_value) < 0)
    return NULL;
  if (needs_value) {
    if (!kw_value && nargs < 2)
      return PyErr_Format(PyExc_TypeError, "full() missing required argument 'fill_value'");
    value = kw_value ? kw_value : args[--nargs];
  }
  if (tl_py_parse_shape(func, args, nargs, shape, &ndim) < 0)
    return NULL;
  tl_scalar s = {.kind = TL_KIND_INT, .v.i = 0};
  if (value) {
    int r = tl_py_is_tensor(value) ? 0 : tl_py_scalar(value, &s);
    if (tl_py_is_tensor(value) && tl_tensor_numel(tl_py_t(value)) == 1) {
      s = tl_scalar_load(tl_py_t(value)->dtype, tl_tensor_data(tl_py_t(value)));
      r = 1;
    }
    if (r <= 0)
      return r < 0 ? NULL : PyErr_Format(PyExc_TypeError, "%s(): fill_value must be a number, "
                                                          "not %s", func, Py_TYPE(value)->tp_name);
  }
  tl_dtype dtype = o.dtype >= 0 ? (tl_dtype)o.dtype : tl_dtype_default_float();
  if (needs_value && o.dtype < 0) /* full() infers its dtype from the value, as in PyTorch */
    dtype = s.kind == TL_KIND_BOOL  ? TL_DTYPE_BOOL
            : s.kind == TL_KIND_INT ? TL_DTYPE_I64
            : s.kind == TL_KIND_COMPLEX ? tl_dtype_to_complex(tl_dtype_default_float())
                                        : tl_dtype_default_float();
  if (tl_tensor_empty(&t, dtype, ndim, shape, o.device) != TL_OK)
    return tl_py_raise();
  if (value && tl_tensor_fill(&t, s) != TL_OK) {
    tl_tensor_release(&t);
    return tl_py_raise();
  }
  return finish(&t, &o);
}

static PyObject *py_zeros(PyObject *m, PyObject *const *a, Py_ssize_t n, PyObject *kw)
{
  (void)m;
  PyObject *zero = PyLong_FromLong(0);
  PyObject *r = filled("zeros", a, n, kw, zero, false);
  Py_DECREF(zero);
  return r;
}
static PyObject *py_ones(PyObject *m, PyObject *const *a, Py_ssize_t n, PyObject *kw)
{
  (void)m;
  PyObject *one = PyLong_FromLong(1);
  PyObject *r = filled("ones", a, n, kw, one, false);
  Py_DECREF(one);
  return r;
}
static PyObject *py_empty(PyObject *m, PyObject *const *a, Py_ssize_t n, PyObject *kw)
{
  (void)m;
  return filled("empty", a, n, kw, NULL, false);
}
static PyObject *py_full(PyObject *m, PyObject *const *a, Py_ssize_t n, PyObject *kw)
{
  (void)m;
  return filled("full", a, n, kw, NULL, true);
}

/* The _like forms: the input's shape, and its dtype unless dtype= says otherwise. */
static PyObject *like(const char *func, PyObject *const *args, Py_ssize_t nargs, PyObject *kwnames,
                      int fill)
{
  create_opts o;
  PyObject *kw_value = NULL, *value = NULL;
  if (nargs < 1 || !tl_py_is_tensor(args[0]))
    return PyErr_Format(PyExc_TypeError, "%s(): argument 'input' must be Tensor", func);
  if (parse_opts(func, args + nargs, kwnames, &o, &kw_value) < 0)
    return NULL;
  const tl_tensor *in = tl_py_t(args[0]);
  tl_tensor t;
  tl_scalar s = {.kind = TL_KIND_INT, .v.i = fill};
  if (fill == 2) { /* full_like */
    value = kw_value ? kw_value : nargs > 1 ? args[1] : NULL;
    if (!value)
      return PyErr_Format(PyExc_TypeError, "full_like() missing required argument 'fill_value'");
    if (tl_py_is_tensor(value) && tl_tensor_numel(tl_py_t(value)) == 1)
      s = tl_scalar_load(tl_py_t(value)->dtype, tl_tensor_data(tl_py_t(value)));
    else if (tl_py_scalar(value, &s) <= 0)
      return PyErr_Occurred() ? NULL : PyErr_Format(PyExc_TypeError, "fill_value must be a number");
  }
  tl_dtype dtype = o.dtype >= 0 ? (tl_dtype)o.dtype : in->dtype;
  if (tl_tensor_empty(&t, dtype, in->ndim, in->shape, o.device) != TL_OK)
    return tl_py_raise();
  if (fill >= 0 && tl_tensor_fill(&t, s) != TL_OK) {
    tl_tensor_release(&t);
    return tl_py_raise();
  }
  return tl_py_tensor_from(&t);
}

static PyObject *py_zeros_like(PyObject *m, PyObject *const *a, Py_ssize_t n, PyObject *kw)
{
  (void)m;
  return like("zeros_like", a, n, kw, 0);
}
static PyObject *py_ones_like(PyObject *m, PyObject *const *a, Py_ssize_t n, PyObject *kw)
{
  (void)m;
  return like("ones_like", a, n, kw, 1);
}
static PyObject *py_full_like(PyObject *m, PyObject *const *a, Py_ssize_t n, PyObject *kw)
{
  (void)m;
  return like("full_like", a, n, kw, 2);
}
static PyObject *py_empty_like(PyObject *m, PyObject *const *a, Py_ssize_t n, PyObject *kw)
{
  (void)m;
  return like("empty_like", a, n, kw, -1);
}

/* arange(end) / arange(start, end, step=1) */
static PyObject *py_arange(PyObject *self, PyObject *const *args, Py_ssize_t nargs,
                           PyObject *kwnames)
{
  (void)self;
  create_opts o;
  tl_scalar v[3] = {{.kind = TL_KIND_INT, .v.i = 0}, {.kind = TL_KIND_INT}, {.kind = TL_KIND_INT, .v.i = 1}};
  PyObject *given[3] = {NULL};
  PyObject *kwv[3] = {NULL};
  static const char *const names[] = {"start", "end", "step"};
  Py_ssize_t nkw = kwnames ? PyTuple_GET_SIZE(kwnames) : 0;
  PyObject *rest_names = kwnames ? PyTuple_New(0) : NULL;
  PyObject *rest_values[8];
  Py_ssize_t nrest = 0;
  for (Py_ssize_t k = 0; k < nkw; k++) { /* start/end/step may come as keywords */
    PyObject *key = PyTuple_GET_ITEM(kwnames, k);
    int i = 0;
    while (i < 3 && PyUnicode_CompareWithASCIIString(key, names[i]) != 0)
      i++;
    if (i < 3) {
      kwv[i] = args[nargs + k];
    } else if (nrest < 8) {
      if (_PyTuple_Resize(&rest_names, nrest + 1) < 0)
        return NULL;
      PyTuple_SET_ITEM(rest_names, nrest, Py_NewRef(key));
      rest_values[nrest++] = args[nargs + k];
    }
  }
  int r = parse_opts("arange", rest_values, rest_names, &o, NULL);
  Py_XDECREF(rest_names);
  if (r < 0)
    return NULL;
  if (nargs == 1) {
    given[1] = args[0];
  } else if (nargs >= 2 && nargs <= 3) {
    for (Py_ssize_t i = 0; i < nargs; i++)
      given[i] = args[i];
  } else if (nargs > 3) {
    return PyErr_Format(PyExc_TypeError, "arange() takes at most 3 positional arguments");
  }
  for (int i = 0; i < 3; i++) {
    if (kwv[i])
      given[i] = kwv[i];
    if (!given[i])
      continue;
    PyObject *g = given[i];
    int ok = tl_py_is_tensor(g) && tl_tensor_numel(tl_py_t(g)) == 1;
    if (ok)
      v[i] = tl_scalar_load(tl_py_t(g)->dtype, tl_tensor_data(tl_py_t(g)));
    else if ((ok = tl_py_scalar(g, &v[i])) < 0)
      return NULL;
    if (!ok && PyNumber_Check(g)) { /* NumPy scalars */
      PyObject *f = PyIndex_Check(g) ? PyNumber_Index(g) : PyNumber_Float(g);
      ok = f && tl_py_scalar(f, &v[i]) > 0;
      Py_XDECREF(f);
    }
    if (!ok || v[i].kind == TL_KIND_COMPLEX)
      return PyErr_Occurred() ? NULL
                              : PyErr_Format(PyExc_TypeError, "arange(): argument '%s' must be a "
                                                              "real number, not %s",
                                             names[i], Py_TYPE(g)->tp_name);
    if (v[i].kind == TL_KIND_BOOL)
      v[i] = (tl_scalar){.kind = TL_KIND_INT, .v.i = v[i].v.b};
  }
  if (!given[1])
    return PyErr_Format(PyExc_TypeError, "arange() missing required argument 'end'");
  bool any_float = v[0].kind == TL_KIND_FLOAT || v[1].kind == TL_KIND_FLOAT || v[2].kind == TL_KIND_FLOAT;
  tl_dtype dtype = o.dtype >= 0 ? (tl_dtype)o.dtype : any_float ? tl_dtype_default_float() : TL_DTYPE_I64;
  int64_t n;
  tl_tensor t;
  if (tl_arange_length(v[0], v[1], v[2], &n) != TL_OK ||
      tl_tensor_empty(&t, dtype, 1, &n, o.device) != TL_OK)
    return tl_py_raise();
  tl_tensor_arange_fill(&t, v[0], v[2]);
  return finish(&t, &o);
}

#define TL_FASTCALL_KW(fn) (PyCFunction)(void (*)(void))fn, METH_FASTCALL | METH_KEYWORDS
PyMethodDef tl_py_create_functions[] = {
    {"tensor", TL_FASTCALL_KW(py_tensor), NULL},
    {"as_tensor", TL_FASTCALL_KW(py_as_tensor), NULL},
    {"from_numpy", py_from_numpy, METH_O, NULL},
    {"zeros", TL_FASTCALL_KW(py_zeros), NULL},
    {"ones", TL_FASTCALL_KW(py_ones), NULL},
    {"empty", TL_FASTCALL_KW(py_empty), NULL},
    {"full", TL_FASTCALL_KW(py_full), NULL},
    {"zeros_like", TL_FASTCALL_KW(py_zeros_like), NULL},
    {"ones_like", TL_FASTCALL_KW(py_ones_like), NULL},
    {"full_like", TL_FASTCALL_KW(py_full_like), NULL},
    {"empty_like", TL_FASTCALL_KW(py_empty_like), NULL},
    {"arange", TL_FASTCALL_KW(py_arange), NULL},
    {NULL, NULL, 0, NULL},
};
