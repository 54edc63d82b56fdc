/* py_tensor.c - the torchlike.Tensor type: lifetime, attributes, conversions.
 *
 * The type is a heap type so the Python package can add methods written in
 * Python (repr, __array_function__ ...) with plain attribute assignment.
 * Ops, views and creation live in py_ops.c, py_views.c and py_create.c.    */
#include <stddef.h>

#include <Python.h>
#include <structmember.h>

#include "ndcore/bindings/py_tensor.h"
#include "ndcore/bindings/py_numpy.h"
#include "ndcore/bindings/py_torch_function.h"
#include "ndcore/bindings/py_create.h"
#include "ndcore/bindings/py_profiler.h"
#include "ndcore/tensor/tl_views.h"

PyTypeObject *tl_py_tensor_type;
static PyTypeObject *size_type; /* torchlike.Size, a tuple subclass */

/* ---- errors --------------------------------------------------------------------- */

static PyObject *linalg_error; /* torchlike.linalg.LinAlgError, set from Python */
/* torchlike.BroadcastError, DtypeError, CastError, ViewError, SizeError: tl_error.h */
PyObject *tl_py_broadcast_error, *tl_py_dtype_error, *tl_py_cast_error, *tl_py_view_error,
    *tl_py_size_error;
/* torchlike.ComplexWarning: NumPy's ComplexWarning and a UserWarning (PyTorch's
 * class for it), so the filters of either kind of code see it. */
static PyObject *complex_warning;

PyObject *tl_py_raise(void)
{
  PyObject *exc;
  tl_gpu_device_restore(); /* the caller's CUDA device (py_tensor.h, tl_py_op_return) */
  switch (tl_error_status()) {
  case TL_ERR_TYPE: exc = PyExc_TypeError; break;
  case TL_ERR_INDEX: exc = PyExc_IndexError; break;
  case TL_ERR_MEMORY: exc = PyExc_MemoryError; break;
  case TL_ERR_NOT_IMPLEMENTED: exc = PyExc_NotImplementedError; break;
  case TL_ERR_RUNTIME: exc = PyExc_RuntimeError; break;
  case TL_ERR_OVERFLOW: exc = PyExc_OverflowError; break;
  case TL_ERR_ZERO_DIVISION: exc = PyExc_ZeroDivisionError; break;
  case TL_ERR_LINALG: exc = linalg_error ? linalg_error : PyExc_RuntimeError; break;
  case TL_ERR_AXIS: exc = PyExc_IndexError; break;
  case TL_ERR_OUT_OF_MEMORY: exc = tl_py_oom_error ? tl_py_oom_error : PyExc_MemoryError; break;
  case TL_ERR_BROADCAST: exc = tl_py_broadcast_error; break;
  case TL_ERR_DTYPE: exc = tl_py_dtype_error; break;
  case TL_ERR_CAST: exc = tl_py_cast_error; break;
  case TL_ERR_VIEW: exc = tl_py_view_error; break;
  case TL_ERR_SIZE: exc = tl_py_size_error; break;
  case TL_ERR_RAISED:
    if (PyErr_Occurred()) {
      tl_error_clear();
      return NULL;
    }
    exc = PyExc_SystemError;
    break;
  case TL_OK: exc = PyExc_SystemError; break;
  default: exc = PyExc_ValueError; break;
  }
  PyErr_SetString(exc, tl_error_status() == TL_OK ? "error without a message" : tl_error_message());
  tl_error_clear();
  return NULL;
}

int tl_py_raise_int(void)
{
  tl_py_raise();
  return -1;
}

void tl_py_error_stale(void)
{
#ifndef NDEBUG
  fprintf(stderr, "torchlike: a core error was left pending by an earlier call: %s\n",
          tl_error_message());
#endif
  tl_error_clear();
}

/* Test hooks: the core error pending on this thread (None when none), and one
 * left pending on purpose, as a call that forgot to clear it would (None
 * clears). */
static PyObject *core_error(PyObject *self, PyObject *unused)
{
  (void)self, (void)unused;
  if (tl_error_status() == TL_OK)
    Py_RETURN_NONE;
  return PyUnicode_FromString(tl_error_message());
}

static PyObject *core_error_leave(PyObject *self, PyObject *message)
{
  (void)self;
  const char *text = message == Py_None ? NULL : PyUnicode_AsUTF8(message);
  if (!text && message != Py_None)
    return NULL;
  tl_error_clear();
  if (text)
    tl_error_set(TL_ERR_RUNTIME, "%s", text);
  Py_RETURN_NONE;
}

static PyObject *set_linalg_error(PyObject *self, PyObject *cls)
{
  (void)self;
  Py_XSETREF(linalg_error, Py_NewRef(cls));
  Py_RETURN_NONE;
}

/* ---- autograd's entry (see py_tensor.h) ---- */

_Thread_local bool tl_py_grad_enabled = true;
tl_py_record_fn tl_py_record;
int tl_py_formula_getitem, tl_py_formula_setitem;
void (*tl_py_view_mark)(PyObject *view, PyObject *src, int how);
bool (*tl_py_view_stale)(PyObject *view);

/* A tensor needs recording when it requires grad, or when it is a view whose
 * base got a history since (one pointer test for a tensor that is no view). */
static inline bool tensor_wants_grad(PyObject *o)
{
  tl_py_tensor *t = (tl_py_tensor *)o;
  return t->requires_grad || (t->base && tl_py_view_stale(o));
}

static bool wants_grad(PyObject *o)
{
  if (tl_py_is_tensor(o))
    return tensor_wants_grad(o);
  if (PyList_CheckExact(o) || PyTuple_CheckExact(o)) {
    Py_ssize_t n = PySequence_Fast_GET_SIZE(o);
    PyObject **items = PySequence_Fast_ITEMS(o);
    for (Py_ssize_t i = 0; i < n; i++)
      if (tl_py_is_tensor(items[i]) && tensor_wants_grad(items[i]))
        return true;
  }
  return false;
}

bool tl_py_grad_wanted(PyObject *const *args, Py_ssize_t n)
{
  if (!tl_py_grad_enabled || !tl_py_record)
    return false;
  for (Py_ssize_t i = 0; i < n; i++)
    if (wants_grad(args[i]))
      return true;
  return false;
}

/* ---- lifetime ------------------------------------------------------------------- */

/* Freed Tensor objects kept for the next one.  An object is ~650 bytes (its
 * view holds TL_MAX_DIMS sizes and strides), past CPython's small-object
 * allocator, so each new one cost a malloc, a memset of all of it and, when
 * freed, a free: a third of a small op's fixed cost.  Only objects of the
 * exact type are kept (a subclass's objects are bigger and have slots of
 * their own); one is kept untracked by the GC, with its type reference and
 * every field released, and is made anew as tp_alloc makes one.  As
 * CPython's own free lists, it skips the GC's allocation count on both
 * sides (a count the free would have taken back).  Touched with the GIL
 * held only: tp_dealloc and tl_py_tensor_alloc run under it.           */
#define TENSOR_FREE_MAX 64
static PyObject *tensor_free[TENSOR_FREE_MAX];
static int tensor_nfree;

tl_py_tensor *tl_py_tensor_alloc(void)
{
  tl_py_tensor *self;
  if (tensor_nfree > 0) {
    self = (tl_py_tensor *)tensor_free[--tensor_nfree];
    memset((char *)self + sizeof(PyObject), 0, sizeof *self - sizeof(PyObject));
    PyObject_Init((PyObject *)self, tl_py_tensor_type); /* type reference, refcount 1 */
    PyObject_GC_Track(self);
  } else {
    self = (tl_py_tensor *)tl_py_tensor_type->tp_alloc(tl_py_tensor_type, 0);
  }
  if (self)
    self->inference = tl_inference_mode;
  return self; /* zeroed: t.storage == NULL */
}

PyObject *tl_py_tensor_from(tl_tensor *t)
{
  tl_gpu_device_restore(); /* the caller's CUDA device (py_tensor.h, tl_py_op_return) */
  tl_py_tensor *self = tl_py_tensor_alloc();
  if (!self) {
    tl_tensor_release(t);
    return NULL;
  }
  self->t = *t;
  t->storage = NULL;
  return (PyObject *)self;
}

static int tensor_clear(PyObject *obj)
{
  tl_py_tensor *self = (tl_py_tensor *)obj;
  Py_CLEAR(self->dict);
  Py_CLEAR(self->grad);
  Py_CLEAR(self->grad_fn);
  Py_CLEAR(self->hooks);
  Py_CLEAR(self->base);
  return 0;
}

static int tensor_traverse(PyObject *obj, visitproc visit, void *arg)
{
  tl_py_tensor *self = (tl_py_tensor *)obj;
  Py_VISIT(Py_TYPE(obj));
  Py_VISIT(self->dict);
  Py_VISIT(self->grad);
  Py_VISIT(self->grad_fn);
  Py_VISIT(self->hooks);
  Py_VISIT(self->base);
  return 0;
}

static void tensor_dealloc(PyObject *obj)
{
  tl_py_tensor *self = (tl_py_tensor *)obj;
  PyTypeObject *type = Py_TYPE(obj);
  PyObject_GC_UnTrack(obj);
  if (self->weakreflist)
    PyObject_ClearWeakRefs(obj);
  tensor_clear(obj);
  if (self->t.storage)
    tl_tensor_release(&self->t);
  if (type == tl_py_tensor_type && tensor_nfree < TENSOR_FREE_MAX)
    tensor_free[tensor_nfree++] = obj; /* untracked, fields released: kept for reuse */
  else
    type->tp_free(obj);
  Py_DECREF(type);
}

/* PyTorch's legacy constructor; subclasses (Parameter) pass through here too:
 *   Tensor()                  empty, 1-d of size 0, in the default float dtype
 *   Tensor(2, 3), Tensor(Size) uninitialised, in the default float dtype
 *   Tensor(data)              a copy; Python data and arrays become the default
 *                             float dtype
 *   Tensor(tensor)            an alias (a view sharing storage and graph), of
 *                             the subclass constructed
 * device= may only name the CPU, as in PyTorch. */
static bool legacy_is_size(PyObject *args)
{
  Py_ssize_t n = PyTuple_GET_SIZE(args);
  if (n == 0)
    return false;
  PyObject *a0 = PyTuple_GET_ITEM(args, 0);
  if (n > 1 || PyObject_TypeCheck(a0, size_type))
    return true;
  /* an int or a NumPy integer scalar; arrays and tensors have __index__ too but are data */
  return PyIndex_Check(a0) && !PyBool_Check(a0) && !tl_py_is_tensor(a0) && !PySequence_Check(a0);
}

static PyObject *tensor_new_forms(PyTypeObject *type, PyObject *args, PyObject *device)
{
  tl_tensor t = {0};
  bool weak;
  Py_ssize_t nargs = PyTuple_GET_SIZE(args);
  tl_dtype dflt = tl_dtype_default_float();
  if (device && device != Py_None) {
    tl_device dev;
    if (tl_py_parse_device(device, &dev) < 0)
      goto fail;
    if (dev.type != TL_DEVICE_CPU) {
      PyErr_Format(PyExc_RuntimeError, "legacy constructor expects device type: cpu but device "
                   "type: %s was passed", tl_device_type_name(dev.type));
      goto fail;
    }
  }
  if (nargs == 0) {
    if (tl_tensor_empty(&t, dflt, 1, (int64_t[]){0}, tl_device_cpu()) != TL_OK)
      goto fail_core;
  } else if (legacy_is_size(args)) {
    int64_t shape[TL_MAX_DIMS];
    int ndim;
    if (tl_py_parse_shape("Tensor", &PyTuple_GET_ITEM(args, 0), nargs, shape, &ndim) < 0)
      goto fail;
    for (int i = 0; i < ndim; i++)
      if (shape[i] < 0) {
        char dims[TL_MAX_DIMS * 22] = "";
        for (int j = 0, at = 0; j < ndim; j++)
          at += snprintf(dims + at, sizeof dims - at, j ? ", %lld" : "%lld", (long long)shape[j]);
        PyErr_Format(PyExc_RuntimeError,
                     "Trying to create tensor with negative dimension %lld: [%s]",
                     (long long)shape[i], dims);
        goto fail;
      }
    if (tl_tensor_empty(&t, dflt, ndim, shape, tl_device_cpu()) != TL_OK)
      goto fail_core;
  } else if (nargs == 1 && tl_py_is_tensor(PyTuple_GET_ITEM(args, 0))) {
    /* an alias on the tape (as PyTorch's AliasBackward), of the subclass asked for */
    PyObject *data = PyTuple_GET_ITEM(args, 0);
    PyObject *alias = PyObject_CallMethod(data, "view_as", "O", data);
    if (!alias || type == tl_py_tensor_type)
      return alias;
    PyObject *typed = PyObject_CallMethod(alias, "as_subclass", "O", (PyObject *)type);
    Py_DECREF(alias);
    return typed;
  } else {
    PyObject *data = PyTuple_GET_ITEM(args, 0);
    if (PyFloat_Check(data) || PyComplex_Check(data) || PyBool_Check(data)) {
      PyErr_Format(PyExc_TypeError, "new(): data must be a sequence (got %s)",
                   Py_TYPE(data)->tp_name);
      goto fail;
    }
    if (tl_py_to_tensor(data, (int)dflt, true, &t, &weak) < 0)
      goto fail;
  }
  tl_py_tensor *self = (tl_py_tensor *)type->tp_alloc(type, 0);
  if (!self)
    goto fail;
  self->inference = tl_inference_mode;
  self->t = t;
  return (PyObject *)self;
fail_core:
  tl_py_raise(); /* the core's message as the Python exception */
fail:
  if (t.storage)
    tl_tensor_release(&t);
  return NULL;
}

/* The keywords name the forms, as PyTorch's parser does: data= (or other=)
 * for the datum, size= for the sizes, and device=; at most one form. */
static PyObject *tensor_new(PyTypeObject *type, PyObject *args, PyObject *kwargs)
{
  PyObject *device = NULL, *data = NULL, *other = NULL, *size = NULL, *pos = NULL, *sizes = NULL;
  PyObject *result = NULL;
  if (kwargs) {
    device = PyDict_GetItemString(kwargs, "device");
    data = PyDict_GetItemString(kwargs, "data");
    other = PyDict_GetItemString(kwargs, "other");
    size = PyDict_GetItemString(kwargs, "size");
    Py_ssize_t known = !!device + !!data + !!other + !!size;
    int forms = !!data + !!other + !!size + (PyTuple_GET_SIZE(args) > 0);
    if (PyDict_GET_SIZE(kwargs) > known || forms > 1) {
      PyErr_SetString(PyExc_TypeError, "Tensor(): takes one of sizes, data (data=), a tensor "
                                       "(other=) or size=, and the keyword device=");
      goto done;
    }
  }
  if (data || other)
    pos = PyTuple_Pack(1, data ? data : other);
  else if (size)
    pos = (sizes = PyObject_CallOneArg((PyObject *)size_type, size)) ? PyTuple_Pack(1, sizes) : NULL;
  else
    pos = Py_NewRef(args);
  if (pos)
    result = tensor_new_forms(type, pos, device);
done:
  Py_XDECREF(sizes);
  Py_XDECREF(pos);
  return result;
}

/* ---- attributes ----------------------------------------------------------------- */

PyObject *tl_py_size_new(int ndim, const int64_t *shape)
{
  PyObject *size = size_type->tp_alloc(size_type, ndim);
  if (!size)
    return NULL;
  for (int i = 0; i < ndim; i++) {
    PyObject *v = PyLong_FromLongLong(shape[i]);
    if (!v) {
      Py_DECREF(size);
      return NULL;
    }
    PyTuple_SET_ITEM(size, i, v);
  }
  return size;
}

static PyObject *tensor_get_shape(PyObject *self, void *closure)
{
  (void)closure;
  tl_tensor *t = tl_py_t(self);
  return tl_py_size_new(t->ndim, t->shape);
}
/* a.shape = (2, 3): NumPy's in-place reshape of the view (PyTorch's shape is
 * read-only, so no PyTorch program depends on the refusal).  The rules and
 * NumPy's errors are in torchlike/_ndarray.py (_set_shape). */
static int tensor_set_shape(PyObject *self, PyObject *value, void *closure)
{
  (void)closure;
  if (!value) {
    PyErr_SetString(PyExc_AttributeError, "cannot delete array shape");
    return -1;
  }
  PyObject *mod = PyImport_ImportModule("torchlike._ndarray");
  if (!mod)
    return -1;
  PyObject *r = PyObject_CallMethod(mod, "_set_shape", "OO", self, value);
  Py_DECREF(mod);
  if (!r)
    return -1;
  Py_DECREF(r);
  return 0;
}
static PyObject *tensor_get_dtype(PyObject *self, void *closure)
{
  (void)closure;
  return Py_NewRef(tl_py_dtype_obj(tl_py_t(self)->dtype));
}
static PyObject *tensor_get_device(PyObject *self, void *closure)
{
  (void)closure;
  return tl_py_device_obj(tl_tensor_device(tl_py_t(self)));
}
static PyObject *tensor_get_ndim(PyObject *self, void *closure)
{
  (void)closure;
  return PyLong_FromLong(tl_py_t(self)->ndim);
}
static PyObject *tensor_get_is_cuda(PyObject *self, void *closure)
{
  (void)closure;
  return PyBool_FromLong(tl_tensor_device(tl_py_t(self)).type == TL_DEVICE_CUDA);
}
static PyObject *tensor_get_is_meta(PyObject *self, void *closure)
{
  (void)closure;
  return PyBool_FromLong(tl_tensor_device(tl_py_t(self)).type == TL_DEVICE_META);
}
static PyObject *tensor_get_is_cpu(PyObject *self, void *closure)
{
  (void)closure;
  return PyBool_FromLong(tl_tensor_device(tl_py_t(self)).type == TL_DEVICE_CPU);
}
static PyObject *tensor_get_itemsize(PyObject *self, void *closure)
{
  (void)closure;
  return PyLong_FromSize_t(tl_dtype_size(tl_py_t(self)->dtype));
}
static PyObject *tensor_get_nbytes(PyObject *self, void *closure)
{
  (void)closure;
  tl_tensor *t = tl_py_t(self);
  return PyLong_FromLongLong(tl_tensor_numel(t) * (int64_t)tl_dtype_size(t->dtype));
}
static PyObject *tensor_get_version(PyObject *self, void *closure)
{
  (void)closure;
  return PyLong_FromUnsignedLongLong(tl_storage_version(tl_py_t(self)->storage));
}

/* x.T (all dims reversed, NumPy's meaning for any ndim) and x.mT (the last
 * two swapped): x's own permute/transpose method called with the dims, as
 * the Python spelling would call it, so subclasses and __torch_function__
 * see the same call; only the building of the dims moves to C. */
static PyObject *call_with_dims(PyObject *self, PyObject **method, const char *name, int n,
                                const int *dims)
{
  PyObject *args[TL_MAX_DIMS + 1] = {self}, *r = NULL;
  /* the name made once: interning it anew cost a dict lookup per x.T */
  if (!*method && !(*method = PyUnicode_InternFromString(name)))
    return NULL;
  int made = 0;
  for (; made < n; made++)
    if (!(args[made + 1] = PyLong_FromLong(dims[made])))
      break;
  if (made == n)
    r = PyObject_VectorcallMethod(*method, args, (size_t)n + 1, NULL);
  for (int i = 1; i <= made; i++)
    Py_XDECREF(args[i]);
  return r;
}

/* Tensor.permute as torchlike installed it (_C._arm_fast_views, at the end
 * of the package's import), borrowed from the type's dict. */
static PyObject *permute_installed;

static PyObject *arm_fast_views(PyObject *m, PyObject *unused)
{
  (void)m, (void)unused;
  PyObject *attr = PyDict_GetItemString(tl_py_tensor_type->tp_dict, "permute");
  Py_XSETREF(permute_installed, Py_XNewRef(attr)); /* kept alive: compared by identity */
  Py_RETURN_NONE;
}

/* x.T where nothing can see the call: a plain Tensor, no __torch_function__
 * (mode or argument), no profiler, nothing to record, and Tensor.permute
 * still the one torchlike installed.  Then permute's layers (the method
 * lookup, the __torch_function__ wrapper, the recorder, the binder's int
 * parsing) would only build the same view; it is built here, and marked as
 * a view of x exactly as the recorder's mark_views does. */
static PyObject *fast_T(PyObject *self, PyObject *permute_name)
{
  PyObject *args[1] = {self};
  if (Py_TYPE(self) != tl_py_tensor_type || !permute_installed || tl_py_tf_wanted(args, 1) ||
      TL_PROF_UNLIKELY(tl_prof_on) || tl_py_grad_wanted(args, 1) ||
      _PyType_Lookup(tl_py_tensor_type, permute_name) != permute_installed)
    return NULL;
  tl_py_error_fresh();
  const tl_tensor *t = tl_py_t(self);
  int64_t dims[TL_MAX_DIMS];
  for (int i = 0; i < t->ndim; i++)
    dims[i] = t->ndim - 1 - i;
  tl_tensor out;
  if (tl_view_permute(&out, t, t->ndim, dims) != TL_OK)
    return tl_py_raise();
  PyObject *view = tl_py_tensor_from(&out);
  if (view && tl_py_view_mark)
    tl_py_view_mark(view, self, 0);
  return view;
}

static PyObject *tensor_get_T(PyObject *self, void *closure)
{
  (void)closure;
  int dims[TL_MAX_DIMS];
  const int ndim = tl_py_t(self)->ndim;
  static PyObject *permute;
  if (!permute && !(permute = PyUnicode_InternFromString("permute")))
    return NULL;
  PyObject *fast = fast_T(self, permute);
  if (fast || PyErr_Occurred())
    return fast;
  for (int i = 0; i < ndim; i++)
    dims[i] = ndim - 1 - i;
  return call_with_dims(self, &permute, "permute", ndim, dims);
}

static PyObject *tensor_get_mT(PyObject *self, void *closure)
{
  (void)closure;
  const int ndim = tl_py_t(self)->ndim;
  if (ndim < 2)
    return PyErr_Format(PyExc_RuntimeError, "tensor.mT is only supported on matrices or batches "
                                            "of matrices. Got %d-D tensor.", ndim);
  static PyObject *transpose;
  return call_with_dims(self, &transpose, "transpose", 2, (const int[]){-2, -1});
}

static PyGetSetDef tensor_getset[] = {
    {"T", tensor_get_T, NULL, "the tensor with its dims reversed (a view)", NULL},
    {"mT", tensor_get_mT, NULL, "the last two dims swapped (a view)", NULL},
    {"shape", tensor_get_shape, tensor_set_shape,
     "the size of each dimension, as a torchlike.Size; assigning reshapes the view in place "
     "(NumPy's a.shape = ...)",
     NULL},
    {"dtype", tensor_get_dtype, NULL, NULL, NULL},
    {"device", tensor_get_device, NULL, NULL, NULL},
    {"ndim", tensor_get_ndim, NULL, NULL, NULL},
    {"is_cuda", tensor_get_is_cuda, NULL, NULL, NULL},
    {"is_meta", tensor_get_is_meta, NULL, NULL, NULL},
    {"is_cpu", tensor_get_is_cpu, NULL, NULL, NULL},
    {"itemsize", tensor_get_itemsize, NULL, NULL, NULL},
    {"nbytes", tensor_get_nbytes, NULL, NULL, NULL},
    {"_version", tensor_get_version, NULL, "the storage's in-place write counter", NULL},
    {"__dict__", PyObject_GenericGetDict, PyObject_GenericSetDict, "attributes set from Python",
     NULL},
    {NULL, NULL, NULL, NULL, NULL},
};

/* ---- methods -------------------------------------------------------------------- */

static int dim_arg(PyObject *arg, int ndim, int *dim)
{
  long long d = PyLong_AsLongLong(arg);
  if (d == -1 && PyErr_Occurred())
    return -1;
  return tl_dim_wrap(d, ndim, dim) == TL_OK ? 0 : tl_py_raise_int();
}

static PyObject *tensor_size(PyObject *self, PyObject *const *args, Py_ssize_t nargs)
{
  tl_tensor *t = tl_py_t(self);
  int dim;
  if (nargs == 0)
    return tl_py_size_new(t->ndim, t->shape);
  if (nargs > 1 || dim_arg(args[0], t->ndim, &dim) < 0)
    return nargs > 1 ? PyErr_Format(PyExc_TypeError, "size() takes at most 1 argument") : NULL;
  return PyLong_FromLongLong(t->ndim ? t->shape[dim] : 1);
}

static PyObject *tensor_stride(PyObject *self, PyObject *const *args, Py_ssize_t nargs)
{
  tl_tensor *t = tl_py_t(self);
  int dim;
  if (nargs == 0) {
    PyObject *r = PyTuple_New(t->ndim);
    for (int i = 0; r && i < t->ndim; i++)
      PyTuple_SET_ITEM(r, i, PyLong_FromLongLong(t->strides[i]));
    return r;
  }
  if (nargs > 1 || dim_arg(args[0], t->ndim, &dim) < 0)
    return nargs > 1 ? PyErr_Format(PyExc_TypeError, "stride() takes at most 1 argument") : NULL;
  return PyLong_FromLongLong(t->ndim ? t->strides[dim] : 1);
}

static PyObject *tensor_dim(PyObject *self, PyObject *unused)
{
  (void)unused;
  return PyLong_FromLong(tl_py_t(self)->ndim);
}
static PyObject *tensor_numel(PyObject *self, PyObject *unused)
{
  (void)unused;
  return PyLong_FromLongLong(tl_tensor_numel(tl_py_t(self)));
}
static PyObject *tensor_element_size(PyObject *self, PyObject *unused)
{
  (void)unused;
  return PyLong_FromSize_t(tl_dtype_size(tl_py_t(self)->dtype));
}
static PyObject *tensor_is_floating_point(PyObject *self, PyObject *unused)
{
  (void)unused;
  return PyBool_FromLong(tl_dtype_is_float(tl_py_t(self)->dtype));
}
static PyObject *tensor_is_complex(PyObject *self, PyObject *unused)
{
  (void)unused;
  return PyBool_FromLong(tl_dtype_is_complex(tl_py_t(self)->dtype));
}
static PyObject *tensor_data_ptr(PyObject *self, PyObject *unused)
{
  (void)unused;
  return PyLong_FromVoidPtr(tl_tensor_data(tl_py_t(self)));
}
static PyObject *tensor_storage_offset(PyObject *self, PyObject *unused)
{
  (void)unused;
  return PyLong_FromLongLong(tl_py_t(self)->offset);
}

/* NumPy cannot carry a tensor's history: handing out memory of a tensor that
 * requires grad would let the gradient be dropped without a word.  With grad
 * mode off (no_grad, a custom Function's backward) there is no history to
 * drop, and PyTorch hands the memory out. */
static int refuse_grad(PyObject *self, const char *what, const char *hint)
{
  if (!((tl_py_tensor *)self)->requires_grad || !tl_py_grad_enabled)
    return 0;
  PyErr_Format(PyExc_RuntimeError, "Can't call %s on Tensor that requires grad. Use "
               "tensor.detach().%s instead.%s", what, what, hint);
  return -1;
}

/* __array__ is what NumPy calls where it converts arrays itself: np.array,
 * np.asarray, np.ascontiguousarray, each element of a list it is handed
 * (np.mean([t1, t2])), and the Python code built on them (np.polynomial,
 * SciPy's default mode).  No tensor reaches __array_function__ there, so
 * nothing can be recorded. */
static const char array_hint[] =
    " NumPy was given a tensor that requires grad where it converts arrays itself "
    "(np.array, np.asarray, np.ascontiguousarray, a list such as np.mean([t1, t2]), or code "
    "built on them: np.polynomial, SciPy outside its array-API mode), so nothing can be "
    "recorded. Combine tensors with np.stack or np.concatenate, which are recorded on the "
    "tape; torchlike.scipy spells SciPy's calls with recorded ops.";

static PyObject *tensor_numpy(PyObject *self, PyObject *const *args, Py_ssize_t nargs,
                              PyObject *kwnames)
{
  /* force=True copies what NumPy can't view (other devices, autograd); a CPU
   * tensor is always viewable. */
  if (nargs > 0 || (kwnames && (PyTuple_GET_SIZE(kwnames) > 1 ||
                                !PyUnicode_Check(PyTuple_GET_ITEM(kwnames, 0)) ||
                                PyUnicode_CompareWithASCIIString(PyTuple_GET_ITEM(kwnames, 0),
                                                                 "force") != 0)))
    return PyErr_Format(PyExc_TypeError, "numpy() takes only the keyword argument force");
  int force = kwnames ? PyObject_IsTrue(args[0]) : 0;
  if (force < 0 || (!force && refuse_grad(self, "numpy()", "") < 0))
    return NULL;
  if (force && tl_tensor_device(tl_py_t(self)).type != TL_DEVICE_CPU) {
    PyObject *host = tl_py_tensor_cpu(self);
    PyObject *r = host ? tl_py_to_numpy(host, tl_py_t(host)) : NULL;
    Py_XDECREF(host);
    return r;
  }
  return tl_py_to_numpy(self, tl_py_t(self));
}

/* __array__(dtype=None, copy=None): zero-copy unless a dtype or copy asks
 * otherwise.  NumPy 2's copy semantics: copy=True always copies, copy=False
 * raises ValueError when a copy can't be avoided (a dtype change, bfloat16). */
static PyObject *tensor_array(PyObject *self, PyObject *args, PyObject *kwargs)
{
  static char *kwlist[] = {"dtype", "copy", NULL};
  PyObject *dtype = Py_None, *copy_obj = Py_None;
  if (!PyArg_ParseTupleAndKeywords(args, kwargs, "|OO:__array__", kwlist, &dtype, &copy_obj))
    return NULL;
  int copy = copy_obj == Py_None ? -1 : PyObject_IsTrue(copy_obj);
  if ((copy == -1 && PyErr_Occurred()) || refuse_grad(self, "numpy()", array_hint) < 0)
    return NULL;
  tl_tensor *t = tl_py_t(self);
  PyObject *arr;
  int flags = copy == 1 ? NPY_ARRAY_ENSURECOPY : copy == 0 ? NPY_ARRAY_ENSURENOCOPY : 0;
  if (t->dtype == TL_DTYPE_BF16) { /* NumPy has no bfloat16: give float32 values */
    if (copy == 0)
      return PyErr_Format(PyExc_ValueError, "Unable to avoid copy while creating an array as "
                                            "requested: NumPy has no bfloat16, so the values are "
                                            "converted to float32");
    tl_tensor f = {0};
    if (tl_tensor_to_dtype(&f, t, TL_DTYPE_F32) != TL_OK)
      return tl_py_raise();
    PyObject *tmp = tl_py_tensor_from(&f);
    if (!tmp)
      return NULL;
    arr = tl_py_to_numpy(tmp, tl_py_t(tmp));
    Py_DECREF(tmp);
    flags = 0; /* that conversion was the copy */
  } else {
    arr = tl_py_to_numpy(self, t);
  }
  if (!arr)
    return NULL;
  if (dtype == Py_None && flags != NPY_ARRAY_ENSURECOPY)
    return arr;
  PyArray_Descr *descr = NULL;
  if (dtype != Py_None && !PyArray_DescrConverter(dtype, &descr)) {
    Py_DECREF(arr);
    return NULL;
  }
  /* a dtype casts as ndarray.__array__(dtype) does: unsafely, as astype */
  PyObject *r = PyArray_FromArray((PyArrayObject *)arr, descr, flags | NPY_ARRAY_FORCECAST);
  Py_DECREF(arr);
  return r;
}

/* Python value of one element (the view's first). */
static PyObject *element_obj(const tl_tensor *t, const char *p)
{
  return tl_py_scalar_obj(tl_scalar_load(t->dtype, p));
}

/* item(): the one element (PyTorch).  item(i) / item(i, j, ...) / item((i, j)):
 * NumPy's element at a flat or a full index, found by ordinary indexing. */
static PyObject *tensor_item(PyObject *self, PyObject *const *args, Py_ssize_t nargs)
{
  tl_tensor *t = tl_py_t(self);
  if (nargs == 0) {
    int64_t n = tl_tensor_numel(t);
    if (n != 1)
      return PyErr_Format(PyExc_RuntimeError, "a Tensor with %lld elements cannot be "
                                              "converted to Scalar", (long long)n);
    return tl_py_tensor_first(t);
  }
  PyObject *index = nargs == 1 ? Py_NewRef(args[0]) : PyTuple_New(nargs), *base = NULL;
  PyObject *element = NULL, *value = NULL;
  for (Py_ssize_t i = 0; nargs > 1 && index && i < nargs; i++)
    PyTuple_SET_ITEM(index, i, Py_NewRef(args[i]));
  if (!index)
    goto done;
  if (PyTuple_Check(index) && PyTuple_GET_SIZE(index) != t->ndim) {
    PyErr_Format(PyExc_ValueError, "incorrect number of indices for array: the tensor has %d "
                 "dimensions, but %zd indices were given", t->ndim, PyTuple_GET_SIZE(index));
    goto done;
  }
  if (PyTuple_Check(index)) {
    base = Py_NewRef(self);
  } else { /* one index: flat, in C order */
    if (!PyIndex_Check(index)) {
      PyErr_Format(PyExc_TypeError, "item(): an index must be an integer, not %s",
                   Py_TYPE(index)->tp_name);
      goto done;
    }
    base = PyObject_CallMethod(self, "reshape", "i", -1);
  }
  element = base ? PyObject_GetItem(base, index) : NULL;
  value = element ? tensor_item(element, NULL, 0) : NULL;
done:
  Py_XDECREF(index);
  Py_XDECREF(base);
  Py_XDECREF(element);
  return value;
}

/* The Python object of the element at p, loaded directly for the common
 * dtypes: the scalar cast path per element cost tolist 1.7x NumPy's time. */
static PyObject *element_obj_fast(tl_dtype d, const char *p)
{
  switch (d) {
  case TL_DTYPE_F64: return PyFloat_FromDouble(tl_load_F64(p));
  case TL_DTYPE_F32: return PyFloat_FromDouble((double)tl_load_F32(p));
  case TL_DTYPE_I64: return PyLong_FromLongLong(tl_load_I64(p));
  case TL_DTYPE_I32: return PyLong_FromLong(tl_load_I32(p));
  case TL_DTYPE_BOOL: return Py_NewRef(*(const bool *)p ? Py_True : Py_False);
  default: return NULL;
  }
}

static PyObject *tolist_rec(const tl_tensor *t, int dim, const char *p)
{
  if (dim == t->ndim) {
    PyObject *v = element_obj_fast(t->dtype, p);
    return v || PyErr_Occurred() ? v : element_obj(t, p);
  }
  PyObject *list = PyList_New(t->shape[dim]);
  int64_t step = t->strides[dim] * (int64_t)tl_dtype_size(t->dtype);
  for (int64_t i = 0; list && i < t->shape[dim]; i++) {
    PyObject *v = tolist_rec(t, dim + 1, p + i * step);
    if (!v) {
      Py_CLEAR(list);
      break;
    }
    PyList_SET_ITEM(list, i, v);
  }
  return list;
}

static PyObject *tensor_tolist(PyObject *self, PyObject *unused)
{
  (void)unused;
  tl_tensor *t = tl_py_t(self);
  if (tl_tensor_device(t).type != TL_DEVICE_CPU) { /* read it through its backend */
    PyObject *host = tl_py_tensor_cpu(self);
    PyObject *r = host ? tensor_tolist(host, NULL) : NULL;
    Py_XDECREF(host);
    return r;
  }
  return tolist_rec(t, 0, tl_tensor_data(t));
}

static PyObject *tensor_scalar_as(PyObject *self, PyObject *(*convert)(PyObject *))
{
  tl_tensor *t = tl_py_t(self);
  if (tl_tensor_numel(t) != 1) /* int(t), float(t), complex(t): PyTorch's class and words */
    return PyErr_Format(PyExc_ValueError, "only one element tensors can be converted to Python "
                                          "scalars (this one has %lld)",
                        (long long)tl_tensor_numel(t));
  /* float(z), int(z) of a complex z: PyTorch's RuntimeError and words, which
   * are also a TypeError, as Python's float(complex) raises */
  if (convert && tl_dtype_is_complex(t->dtype))
    return PyErr_Format(tl_py_cast_error, "value cannot be converted to type %s without overflow",
                        convert == PyNumber_Float ? "double" : "int64_t");
  PyObject *v = tl_py_tensor_first(t);
  if (!v || !convert)
    return v;
  PyObject *r = convert(v);
  Py_DECREF(v);
  return r;
}

/* float(loss) on a tensor with a history drops the history: PyTorch says so
 * once per process (only float(), not int(), item() or bool()), and only
 * while grad mode is on: under no_grad (an optimizer's step reading its
 * closure's loss) nothing is said and the once is not spent. */
static int warn_float_of_grad(PyObject *self)
{
  static bool warned;
  if (warned || !((tl_py_tensor *)self)->requires_grad || !tl_py_grad_enabled)
    return 0;
  warned = true;
  return PyErr_WarnEx(PyExc_UserWarning, "Converting a tensor with requires_grad=True to a "
                      "scalar may lead to unexpected behavior.\nConsider using tensor.detach() "
                      "first.", 1);
}

static PyObject *tensor_float(PyObject *self)
{
  if (tl_py_tf_wanted(&self, 1))
    return tl_py_tf_dispatch_attr("__float__", &self, 1);
  if (warn_float_of_grad(self) < 0)
    return NULL;
  return tensor_scalar_as(self, PyNumber_Float);
}
static PyObject *tensor_int(PyObject *self)
{
  if (tl_py_tf_wanted(&self, 1))
    return tl_py_tf_dispatch_attr("__int__", &self, 1);
  return tensor_scalar_as(self, PyNumber_Long);
}
static PyObject *tensor_index(PyObject *self)
{
  /* TypeError for every refusal, as PyTorch: bytes(t), for one, tries the
   * index first and falls through to the buffer protocol only on TypeError */
  if (!tl_dtype_is_integral(tl_py_t(self)->dtype) || tl_py_t(self)->dtype == TL_DTYPE_BOOL ||
      tl_tensor_numel(tl_py_t(self)) != 1)
    return PyErr_Format(PyExc_TypeError, "only integer tensors of a single element can be "
                                         "converted to an index");
  return tensor_scalar_as(self, PyNumber_Long);
}
static int tensor_bool(PyObject *self)
{
  if (tl_py_tf_wanted(&self, 1)) {
    PyObject *r = tl_py_tf_dispatch_attr("__bool__", &self, 1);
    int b = r ? PyObject_IsTrue(r) : -1;
    Py_XDECREF(r);
    return b;
  }
  tl_tensor *t = tl_py_t(self);
  int64_t n = tl_tensor_numel(t);
  if (n != 1) {
    PyErr_Format(PyExc_RuntimeError, "Boolean value of Tensor with %s is ambiguous",
                 n == 0 ? "no values" : "more than one value");
    return -1;
  }
  PyObject *v = tl_py_tensor_first(t);
  int r = v ? PyObject_IsTrue(v) : -1;
  Py_XDECREF(v);
  return r;
}
static PyObject *tensor_complex(PyObject *self, PyObject *unused)
{
  (void)unused;
  PyObject *v = tensor_scalar_as(self, NULL);
  if (!v || PyComplex_Check(v))
    return v;
  PyObject *r = PyObject_CallOneArg((PyObject *)&PyComplex_Type, v);
  Py_DECREF(v);
  return r;
}

static Py_ssize_t tensor_len(PyObject *self)
{
  if (tl_py_tf_wanted(&self, 1)) { /* Tensor.__len__ for __torch_function__ */
    PyObject *r = tl_py_tf_dispatch_attr("__len__", &self, 1);
    Py_ssize_t n = r ? PyNumber_AsSsize_t(r, PyExc_OverflowError) : -1;
    Py_XDECREF(r);
    return n;
  }
  tl_tensor *t = tl_py_t(self);
  if (t->ndim == 0) {
    PyErr_SetString(PyExc_TypeError, "len() of a 0-d tensor");
    return -1;
  }
  return (Py_ssize_t)t->shape[0];
}

static Py_hash_t tensor_hash(PyObject *self) { return _Py_HashPointer(self); }

static PyObject *convert_to(PyObject *self, tl_dtype dtype)
{
  tl_tensor *t = tl_py_t(self);
  if (t->dtype == dtype)
    return Py_NewRef(self);
  tl_tensor out = {0};
  if (tl_tensor_copy_format(&out, t, dtype, TL_FORMAT_PRESERVE) != TL_OK)
    return tl_py_raise();
  return tl_py_tensor_from(&out);
}

#define TL_CONVERT_METHOD(name, E)                                      \
  static PyObject *tensor_##name(PyObject *self, PyObject *unused)      \
  {                                                                     \
    (void)unused;                                                       \
    return convert_to(self, TL_DTYPE_##E);                              \
  }
TL_CONVERT_METHOD(to_bool, BOOL)
TL_CONVERT_METHOD(to_byte, U8)
TL_CONVERT_METHOD(to_char, I8)
TL_CONVERT_METHOD(to_short, I16)
TL_CONVERT_METHOD(to_int, I32)
TL_CONVERT_METHOD(to_long, I64)
TL_CONVERT_METHOD(to_half, F16)
TL_CONVERT_METHOD(to_bfloat16, BF16)
TL_CONVERT_METHOD(to_float, F32)
TL_CONVERT_METHOD(to_double, F64)
TL_CONVERT_METHOD(to_cfloat, C64)
TL_CONVERT_METHOD(to_cdouble, C128)

static PyObject *tensor_fill_(PyObject *self, PyObject *value)
{
  tl_tensor s = {0};
  bool weak;
  if (tl_py_is_tensor(value) && tl_py_t(value)->ndim != 0)
    return PyErr_Format(PyExc_RuntimeError, "fill_ only supports 0-dimension value tensor but got "
                                            "tensor with %d dimensions.", tl_py_t(value)->ndim);
  if (tl_py_to_tensor(value, -1, false, &s, &weak) < 0)
    return NULL;
  tl_status status = tl_py_check_weak_store(&s, weak, tl_py_t(self)->dtype);
  if (status == TL_OK)
    status = tl_tensor_copy(tl_py_t(self), &s);
  tl_tensor_release(&s);
  return status == TL_OK ? Py_NewRef(self) : tl_py_raise();
}

static PyObject *tensor_zero_(PyObject *self, PyObject *unused)
{
  (void)unused;
  PyObject *zero = PyLong_FromLong(0);
  PyObject *r = zero ? tensor_fill_(self, zero) : NULL;
  Py_XDECREF(zero);
  return r;
}

static PyObject *tensor_set_flags(PyObject *self, PyObject *args)
{
  /* _set_readonly(bool): used by tests and by DLPack import of read-only data. */
  int readonly;
  if (!PyArg_ParseTuple(args, "p", &readonly))
    return NULL;
  tl_py_t(self)->storage->readonly = readonly;
  Py_RETURN_NONE;
}

static PyObject *tensor_is_readonly(PyObject *self, PyObject *Py_UNUSED(ignored))
{
  /* _is_readonly(): the storage's flag, on any device (flags.writeable reads
     it; a device tensor exports no buffer whose readonly could be asked). */
  return PyBool_FromLong(tl_py_t(self)->storage->readonly);
}

static PyMethodDef tensor_methods[] = {
    {"size", (PyCFunction)(void (*)(void))tensor_size, METH_FASTCALL, NULL},
    {"stride", (PyCFunction)(void (*)(void))tensor_stride, METH_FASTCALL, NULL},
    {"dim", tensor_dim, METH_NOARGS, NULL},
    {"ndimension", tensor_dim, METH_NOARGS, NULL},
    {"numel", tensor_numel, METH_NOARGS, NULL},
    {"nelement", tensor_numel, METH_NOARGS, NULL},
    {"element_size", tensor_element_size, METH_NOARGS, NULL},
    {"is_floating_point", tensor_is_floating_point, METH_NOARGS, NULL},
    {"is_complex", tensor_is_complex, METH_NOARGS, NULL},
    {"data_ptr", tensor_data_ptr, METH_NOARGS, NULL},
    {"storage_offset", tensor_storage_offset, METH_NOARGS, NULL},
    {"numpy", (PyCFunction)(void (*)(void))tensor_numpy, METH_FASTCALL | METH_KEYWORDS, NULL},
    {"__array__", (PyCFunction)(void (*)(void))tensor_array, METH_VARARGS | METH_KEYWORDS, NULL},
    {"item", (PyCFunction)(void (*)(void))tensor_item, METH_FASTCALL, NULL},
    {"tolist", tensor_tolist, METH_NOARGS, NULL},
    {"__complex__", tensor_complex, METH_NOARGS, NULL},
    {"bool", tensor_to_bool, METH_NOARGS, NULL},
    {"byte", tensor_to_byte, METH_NOARGS, NULL},
    {"char", tensor_to_char, METH_NOARGS, NULL},
    {"short", tensor_to_short, METH_NOARGS, NULL},
    {"int", tensor_to_int, METH_NOARGS, NULL},
    {"long", tensor_to_long, METH_NOARGS, NULL},
    {"half", tensor_to_half, METH_NOARGS, NULL},
    {"bfloat16", tensor_to_bfloat16, METH_NOARGS, NULL},
    {"float", tensor_to_float, METH_NOARGS, NULL},
    {"double", tensor_to_double, METH_NOARGS, NULL},
    {"cfloat", tensor_to_cfloat, METH_NOARGS, NULL},
    {"cdouble", tensor_to_cdouble, METH_NOARGS, NULL},
    {"fill_", tensor_fill_, METH_O, NULL},
    {"zero_", tensor_zero_, METH_NOARGS, NULL},
    {"_set_readonly", tensor_set_flags, METH_VARARGS, NULL},
    {"_is_readonly", tensor_is_readonly, METH_NOARGS, NULL},
    {NULL, NULL, 0, NULL},
};

static PyMemberDef tensor_members[] = {
    {"__weaklistoffset__", T_PYSSIZET, offsetof(tl_py_tensor, weakreflist), READONLY, NULL},
    {"__dictoffset__", T_PYSSIZET, offsetof(tl_py_tensor, dict), READONLY, NULL},
    {NULL, 0, 0, 0, NULL},
};

/* ---- torchlike.Size ---------------------------------------------------------------- */

static PyObject *size_repr(PyObject *self)
{
  PyObject *list = PySequence_List(self);
  if (!list)
    return NULL;
  PyObject *r = PyUnicode_FromFormat("torchlike.Size(%R)", list);
  Py_DECREF(list);
  return r;
}

static PyObject *size_numel(PyObject *self, PyObject *unused)
{
  (void)unused;
  long long n = 1;
  for (Py_ssize_t i = 0; i < PyTuple_GET_SIZE(self); i++) {
    n *= PyLong_AsLongLong(PyTuple_GET_ITEM(self, i));
    if (PyErr_Occurred())
      return NULL;
  }
  return PyLong_FromLongLong(n);
}

/* A tuple result of a Size operation, made a Size again (PyTorch's slices,
 * sums and repeats of a Size are Sizes).  Steals `tuple`. */
static PyObject *size_from_tuple(PyObject *tuple)
{
  if (!tuple || !PyTuple_Check(tuple))
    return tuple;
  PyObject *r = PyObject_CallOneArg((PyObject *)size_type, tuple);
  Py_DECREF(tuple);
  return r;
}

static PyObject *size_subscript(PyObject *self, PyObject *key)
{
  PyObject *r = PyTuple_Type.tp_as_mapping->mp_subscript(self, key);
  return PySlice_Check(key) ? size_from_tuple(r) : r;
}

/* size + tuple and tuple + size; anything else falls back to tuple's
 * concatenation and its TypeError. */
static PyObject *size_add(PyObject *a, PyObject *b)
{
  if (!PyTuple_Check(a) || !PyTuple_Check(b))
    Py_RETURN_NOTIMPLEMENTED;
  return size_from_tuple(PyTuple_Type.tp_as_sequence->sq_concat(a, b));
}

/* size * n and n * size */
static PyObject *size_multiply(PyObject *a, PyObject *b)
{
  PyObject *seq = PyTuple_Check(a) ? a : b, *count = seq == a ? b : a;
  if (!PyIndex_Check(count))
    Py_RETURN_NOTIMPLEMENTED;
  Py_ssize_t n = PyNumber_AsSsize_t(count, PyExc_OverflowError);
  if (n == -1 && PyErr_Occurred())
    return NULL;
  return size_from_tuple(PyTuple_Type.tp_as_sequence->sq_repeat(seq, n));
}

static PyMethodDef size_methods[] = {
    {"numel", size_numel, METH_NOARGS, NULL},
    {NULL, NULL, 0, NULL},
};
static PyType_Slot size_slots[] = {
    {Py_tp_repr, size_repr},
    {Py_tp_methods, size_methods},
    {Py_mp_subscript, size_subscript},
    {Py_nb_add, size_add},
    {Py_nb_multiply, size_multiply},
    {0, NULL},
};
static PyType_Spec size_spec = {
    .name = "torchlike.Size",
    .basicsize = 0,
    .itemsize = 0,
    .flags = Py_TPFLAGS_DEFAULT | Py_TPFLAGS_BASETYPE,
    .slots = size_slots,
};

/* ---- the type ------------------------------------------------------------------- */

static PyType_Slot tensor_slots[] = {
    {Py_tp_new, tensor_new},
    {Py_tp_dealloc, tensor_dealloc},
    {Py_tp_traverse, tensor_traverse},
    {Py_tp_clear, tensor_clear},
    {Py_tp_getset, tensor_getset},
    {Py_tp_methods, tensor_methods},
    {Py_tp_members, tensor_members},
    {Py_tp_hash, tensor_hash},
    {Py_nb_bool, tensor_bool},
    {Py_nb_float, tensor_float},
    {Py_nb_int, tensor_int},
    {Py_nb_index, tensor_index},
    {Py_mp_length, tensor_len},
    {0, NULL},
};

static PyType_Spec tensor_spec = {
    .name = "torchlike.Tensor",
    .basicsize = sizeof(tl_py_tensor),
    .flags = Py_TPFLAGS_DEFAULT | Py_TPFLAGS_BASETYPE | Py_TPFLAGS_HAVE_GC,
};

static PyMethodDef tensor_functions[] = {
    {"_set_linalg_error", set_linalg_error, METH_O, NULL},
    {"_core_error", core_error, METH_NOARGS, "the core error pending on this thread, or None"},
    {"_arm_fast_views", arm_fast_views, METH_NOARGS,
     "take Tensor.permute as it is now as the one x.T may bypass (the package's import, last)"},
    {"_core_error_leave", core_error_leave, METH_O,
     "leave a RuntimeError pending in the core, as a missed clear would; None clears (tests)"},
    {NULL, NULL, 0, NULL},
};

int tl_py_tensor_add_methods(PyMethodDef *methods)
{
  for (PyMethodDef *m = methods; m->ml_name; m++) {
    PyObject *descr = PyDescr_NewMethod(tl_py_tensor_type, m);
    if (!descr || PyObject_SetAttrString((PyObject *)tl_py_tensor_type, m->ml_name, descr) < 0) {
      Py_XDECREF(descr);
      return -1;
    }
    Py_DECREF(descr);
  }
  return 0;
}

/* An exception (or warning) class of two bases, added to the module. */
static PyObject *two_class_error(PyObject *module, const char *name, PyObject *a, PyObject *b,
                                 const char *doc)
{
  char full[64];
  snprintf(full, sizeof full, "torchlike.%s", name);
  PyObject *bases = PyTuple_Pack(2, a, b);
  PyObject *cls = bases ? PyErr_NewExceptionWithDoc(full, doc, bases, NULL) : NULL;
  Py_XDECREF(bases);
  if (cls && PyModule_AddObjectRef(module, name, cls) < 0)
    Py_CLEAR(cls);
  return cls;
}

/* The core's tl_warn: a Python warning, from the thread that called the core
 * (it holds the GIL there, or takes it back). */
static int warn_hook(tl_warning w)
{
  (void)w; /* the one warning there is */
  PyGILState_STATE gil = PyGILState_Ensure();
  int raised = PyErr_WarnEx(complex_warning,
                            "Casting complex values to real discards the imaginary part", 1) < 0;
  PyGILState_Release(gil);
  return raised;
}

static int warnings_init(PyObject *module)
{
  PyObject *exceptions = PyImport_ImportModule("numpy.exceptions");
  PyObject *numpys = exceptions ? PyObject_GetAttrString(exceptions, "ComplexWarning") : NULL;
  Py_XDECREF(exceptions);
  if (!numpys)
    return -1;
  complex_warning = two_class_error(
      module, "ComplexWarning", numpys, PyExc_UserWarning,
      "A complex-to-real cast dropped imaginary parts: NumPy's ComplexWarning and PyTorch's "
      "UserWarning.");
  Py_DECREF(numpys);
  if (!complex_warning)
    return -1;
  tl_warn_set_hook(warn_hook);
  return 0;
}

static int errors_init(PyObject *module)
{
  tl_py_broadcast_error = two_class_error(
      module, "BroadcastError", PyExc_ValueError, PyExc_RuntimeError,
      "Shapes that do not broadcast: NumPy's ValueError and PyTorch's RuntimeError.");
  tl_py_dtype_error = two_class_error(
      module, "DtypeError", PyExc_TypeError, PyExc_NotImplementedError,
      "An op without a loop for a dtype: NumPy's TypeError and PyTorch's NotImplementedError.");
  tl_py_cast_error = two_class_error(
      module, "CastError", PyExc_TypeError, PyExc_RuntimeError,
      "A result that cannot be cast into out=: NumPy's TypeError and PyTorch's RuntimeError.");
  tl_py_view_error = two_class_error(
      module, "ViewError", PyExc_ValueError, PyExc_RuntimeError,
      "A dtype view the memory's layout cannot give (x.view(np.int64) of a strided or 0-d "
      "tensor): NumPy's ValueError and PyTorch's RuntimeError.");
  tl_py_size_error = two_class_error(
      module, "SizeError", PyExc_ValueError, PyExc_RuntimeError,
      "A size no tensor can have (an element count or stride past int64, or past torchlike's "
      "2^56 elements): NumPy's ValueError (array is too big) and PyTorch's RuntimeError.");
  if (!tl_py_broadcast_error || !tl_py_dtype_error || !tl_py_cast_error || !tl_py_view_error ||
      !tl_py_size_error)
    return -1;
  return warnings_init(module);
}

int tl_py_tensor_types_init(PyObject *module)
{
  if (errors_init(module) < 0)
    return -1;
  size_type = (PyTypeObject *)PyType_FromSpecWithBases(&size_spec, (PyObject *)&PyTuple_Type);
  if (!size_type || PyModule_AddObjectRef(module, "Size", (PyObject *)size_type) < 0)
    return -1;
  /* The operators, indexing and the buffer protocol are slots other files
   * define; the type is made once from all of them. */
  static PyType_Slot slots[96];
  const PyType_Slot *parts[] = {tensor_slots, tl_py_number_slots, tl_py_mapping_slots,
                                tl_py_buffer_slots};
  int n = 0;
  for (size_t i = 0; i < sizeof parts / sizeof *parts; i++)
    for (const PyType_Slot *slot = parts[i]; slot->slot; slot++)
      slots[n++] = *slot;
  slots[n] = (PyType_Slot){0, NULL};
  tensor_spec.slots = slots;
  tl_py_tensor_type = (PyTypeObject *)PyType_FromSpec(&tensor_spec);
  if (!tl_py_tensor_type)
    return -1;
  if (PyModule_AddObjectRef(module, "Tensor", (PyObject *)tl_py_tensor_type) < 0)
    return -1;
  if (PyModule_AddFunctions(module, tensor_functions) < 0)
    return -1;
  if (tl_py_tensor_add_methods(tl_py_view_methods) < 0 ||
      tl_py_tensor_add_methods(tl_py_dlpack_methods) < 0)
    return -1;
  return 0;
}
