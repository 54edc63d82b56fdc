/* py_create.c - creation functions: tensor, as_tensor, asarray, from_numpy,
 * frombuffer, scalar_tensor, zeros, ones, full, empty (and their _like
 * forms), empty_strided, arange, linspace, logspace, eye, and Tensor.new_*.
 *
 * Their arguments are bound by code generated from signatures.txt
 * (generated/bindings.c); the tl_py_impl_<name> functions here run them.
 * Each takes PyTorch's factory keywords (dtype, device, requires_grad, out
 * ...).  Dtype defaults follow PyTorch: integers give int64, floats the
 * default float dtype (torchlike.get_default_dtype()), complex its complex
 * counterpart, bools bool.
 *
 * A tensor filled by a kernel (zeros, ones, full, arange, linspace, eye, and
 * the random draws of py_random.c) is allocated on its device and filled
 * there through the kernel table; a device with no such kernel refuses
 * before anything is allocated.  Tensors made from Python data (tensor,
 * as_tensor ...) are built on the host and copied to their device. */
#include "ndcore/tensor/tl_backend.h"
#include "ndcore/dispatch/tl_dispatch.h"
#include "ndcore/bindings/py_create.h"
#include "ndcore/bindings/py_numpy.h"
#include "ndcore/kernels/tl_create.h"
#include "ndcore/kernels/tl_shape_ops.h"

/* ---- shared by the factories -------------------------------------------------- */

/* A size no tensor can have, refused in PyTorch's words: a negative dimension
 * (torch.zeros has its own sentence for it) or a byte count past int64.
 * torchlike.numpy calls these factories too and words the same refusals as
 * NumPy does (its _creation.py): this is the torch side's wording only. */
static int check_size(const char *func, tl_dtype dtype, int ndim, const int64_t *shape)
{
  char dims[256];
  uint64_t bytes = 1; /* PyTorch's order: the element count, then times the size */
  bool overflow = false;
  for (int i = 0; i < ndim; i++) {
    if (shape[i] < 0) {
      if (!strcmp(func, "zeros"))
        PyErr_SetString(PyExc_RuntimeError, "zeros: Dimension size must be non-negative.");
      else
        PyErr_Format(PyExc_RuntimeError, "Trying to create tensor with negative dimension "
                     "%lld: %s", (long long)shape[i], tl_shape_str(dims, sizeof dims, ndim, shape));
      return -1;
    }
    overflow |= __builtin_mul_overflow(bytes, (uint64_t)shape[i], &bytes);
  }
  overflow |= __builtin_mul_overflow(bytes, (uint64_t)tl_dtype_size(dtype), &bytes);
  if (overflow || bytes > (uint64_t)INT64_MAX) {
    PyErr_Format(PyExc_RuntimeError, "Storage size calculation overflowed with sizes=%s",
                 tl_shape_str(dims, sizeof dims, ndim, shape));
    return -1;
  }
  return 0;
}

int tl_py_factory_new(const char *func, tl_op op, tl_dtype dtype, int ndim, const int64_t *shape,
                      const tl_py_factory_opts *o, bool zeroed, tl_tensor *t)
{
  /* out= without device=: made where out is, as the copy into it needs no transfer */
  tl_device device = o->out && !o->device_given ? tl_tensor_device(tl_py_t(o->out)) : o->device;
  if (ndim > TL_MAX_DIMS) {
    PyErr_Format(PyExc_ValueError, "%s(): tensors have at most %d dimensions, got %d", func,
                 TL_MAX_DIMS, ndim);
    return -1;
  }
  if (check_size(func, dtype, ndim, shape) < 0)
    return -1;
  if (device.type != TL_DEVICE_CPU && !tl_backend_get(device))
    return tl_py_raise_int();
  if (op != TL_OP_COUNT && !tl_dispatch_has(op, device.type, dtype)) {
    tl_dispatch_no_kernel(func, device, dtype);
    return tl_py_raise_int();
  }
  int64_t strides[TL_MAX_DIMS];
  bool laid_out = o->format >= 0 || o->like; /* else row-major */
  if (laid_out) {
    tl_format format = o->format >= 0 ? (tl_format)o->format : TL_FORMAT_PRESERVE;
    tl_tensor model = {.ndim = ndim};
    memcpy(model.shape, shape, (size_t)ndim * sizeof *shape);
    if (o->out && o->format >= 0) {
      PyErr_SetString(PyExc_RuntimeError, "'memory_format' argument is incompatible with 'out' "
                                          "tensor argument");
      return -1;
    }
    if (format == TL_FORMAT_PRESERVE && !o->like) {
      PyErr_Format(PyExc_RuntimeError, "%s(): unsupported memory format preserve_format (a new "
                   "tensor has no layout to preserve)", func);
      return -1;
    }
    if (tl_format_strides(format, o->like ? o->like : &model, strides) != TL_OK)
      return tl_py_raise_int();
  }
  tl_status s = (zeroed ? tl_tensor_zeros : tl_tensor_empty)(t, dtype, ndim, shape, device);
  if (s == TL_ERR_VALUE) { /* a size past the core's element limit: PyTorch's class */
    PyErr_SetString(PyExc_RuntimeError, tl_error_message());
    tl_error_clear();
    return -1;
  }
  if (s != TL_OK)
    return tl_py_raise_int();
  if (laid_out)
    memcpy(t->strides, strides, (size_t)ndim * sizeof *strides);
  return 0;
}

int tl_py_arg_memory_format(const char *func, const char *name, PyObject *o, int *format)
{
  /* torchlike's four memory_format objects (torchlike._layout), looked up once */
  static const char *const names[] = {
      [TL_FORMAT_CONTIGUOUS] = "contiguous_format", [TL_FORMAT_PRESERVE] = "preserve_format",
      [TL_FORMAT_CHANNELS_LAST] = "channels_last", [TL_FORMAT_CHANNELS_LAST_3D] = "channels_last_3d"};
  static PyObject *formats[4];
  if (!o || o == Py_None)
    return 0;
  if (!formats[0]) {
    PyObject *layout = PyImport_ImportModule("torchlike._layout");
    if (!layout)
      return -1;
    for (int i = 0; i < 4; i++)
      if (!formats[i] && !(formats[i] = PyObject_GetAttrString(layout, names[i]))) {
        Py_DECREF(layout);
        return -1;
      }
    Py_DECREF(layout);
  }
  for (int i = 0; i < 4; i++)
    if (o == formats[i]) {
      *format = i;
      return 0;
    }
  PyErr_Format(PyExc_TypeError, "%s(): argument '%s' must be torchlike.memory_format, not %s",
               func, name, Py_TYPE(o)->tp_name);
  return -1;
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
  /* Made from Python data on the host: a copy to the device, no kernel. */
  if (!o->out && !tl_device_eq(o->device, tl_tensor_device(t))) {
    tl_tensor moved;
    if (o->device.type != TL_DEVICE_CPU && !tl_backend_get(o->device)) {
      tl_tensor_release(t);
      return tl_py_raise();
    }
    tl_status s = tl_backend_tensor_to(&moved, t, o->device, t->dtype, false);
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

/* A count (steps, n, m): RuntimeError when negative, in PyTorch's words. */
static int count_arg(const char *what, int64_t v)
{
  if (v >= 0)
    return 0;
  if (!strcmp(what, "steps"))
    PyErr_SetString(PyExc_RuntimeError, "number of steps must be non-negative");
  else
    PyErr_Format(PyExc_RuntimeError, "%s must be greater or equal to 0, got %lld", what,
                 (long long)v);
  return -1;
}

/* A real number: TypeError naming the argument for a complex one; a bool is an int. */
int tl_py_real_scalar(const char *func, const char *what, tl_scalar *s)
{
  if (s->kind == TL_KIND_COMPLEX) {
    PyErr_Format(PyExc_TypeError, "%s(): argument '%s' must be a real number, not complex", func,
                 what);
    return -1;
  }
  if (s->kind == TL_KIND_BOOL)
    *s = (tl_scalar){.kind = TL_KIND_INT, .v.i = s->v.b};
  return 0;
}

/* ---- tensor, as_tensor, asarray, from_numpy, frombuffer -------------------------- */

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

/* tensor(data, *, dtype=None, device=None, requires_grad=False): always a copy.
 * A tensor as data gets PyTorch's warning: the copy drops its history, which
 * detach().clone() says outright. */
PyObject *tl_py_impl_tensor(const char *name, const tl_py_args_tensor *a)
{
  tl_py_factory_opts o = TL_PY_FACTORY_OPTS(a);
  tl_tensor t;
  bool weak;
  (void)name;
  if (tl_py_is_tensor(a->data) &&
      PyErr_WarnEx(PyExc_UserWarning,
                   "To copy construct from a tensor, it is recommended to use "
                   "sourceTensor.detach().clone() or "
                   "sourceTensor.detach().clone().requires_grad_(True), rather than "
                   "torchlike.tensor(sourceTensor).", 1) < 0)
    return NULL;
  if (tl_py_to_tensor(a->data, o.dtype, true, &t, &weak) < 0 || default_weak(&t, weak, o.dtype) < 0)
    return NULL;
  return tl_py_factory_finish(&t, &o);
}

/* as_tensor and asarray of a tensor: it stays on its own device unless
 * device= names another (PyTorch: "the device of obj is used") or a device
 * other than the CPU is the default device (PyTorch's set_default_device
 * passes device= to both), and is the result itself when neither its dtype
 * nor its device changes.  o->device holds the default device when device=
 * is not given. */
static bool keeps_tensor(PyObject *obj, tl_py_factory_opts *o)
{
  if (!tl_py_is_tensor(obj))
    return false;
  const tl_tensor *t = tl_py_t(obj);
  if (!o->device_given && o->device.type == TL_DEVICE_CPU)
    o->device = tl_tensor_device(t);
  return (o->dtype < 0 || (tl_dtype)o->dtype == t->dtype) &&
         tl_device_eq(o->device, tl_tensor_device(t));
}

/* as_tensor(data, dtype=None, device=None): shares memory with tensors and
 * ndarrays when no conversion is needed. */
PyObject *tl_py_impl_as_tensor(const char *name, const tl_py_args_as_tensor *a)
{
  tl_py_factory_opts o = TL_PY_FACTORY_OPTS(a);
  tl_tensor t;
  bool weak;
  (void)name;
  if (keeps_tensor(a->data, &o))
    return Py_NewRef(a->data);
  if (tl_py_to_tensor(a->data, o.dtype, false, &t, &weak) < 0 ||
      default_weak(&t, weak, o.dtype) < 0)
    return NULL;
  return tl_py_factory_finish(&t, &o);
}

/* Does tensor t view obj's memory (obj a tensor, ndarray, buffer or CUDA array)? */
static bool shares_memory(PyObject *obj, const tl_tensor *t)
{
  if (tl_py_is_tensor(obj))
    return t->storage == tl_py_t(obj)->storage;
  if (PyArray_Check(obj))
    return tl_tensor_data(t) == PyArray_DATA((PyArrayObject *)obj);
  if (t->storage->release_ctx == obj) /* a __cuda_array_interface__ view keeps obj */
    return true;
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
PyObject *tl_py_impl_asarray(const char *name, const tl_py_args_asarray *a)
{
  tl_py_factory_opts o = TL_PY_FACTORY_OPTS(a);
  tl_tensor t;
  bool weak;
  int copy = -1; /* None */
  (void)name;
  if (a->copy && a->copy != Py_None && (copy = PyObject_IsTrue(a->copy)) < 0)
    return NULL;
  if (keeps_tensor(a->obj, &o) && copy != 1)
    return Py_NewRef(a->obj);
  if (tl_py_to_tensor(a->obj, o.dtype, copy == 1, &t, &weak) < 0 ||
      default_weak(&t, weak, o.dtype) < 0)
    return NULL;
  if (copy == 0 && !shares_memory(a->obj, &t)) {
    tl_tensor_release(&t);
    return PyErr_Format(PyExc_ValueError, "asarray(): copy=False, but a %s%s%s cannot be viewed "
                        "without a copy", Py_TYPE(a->obj)->tp_name, o.dtype >= 0 ? " as " : "",
                        o.dtype >= 0 ? tl_dtype_names[o.dtype] : "");
  }
  /* a view on one device is no alias on another: the default device or
   * device= being elsewhere asks for a copy */
  if (copy == 0 && !tl_device_eq(o.device, tl_tensor_device(&t))) {
    char from[32], to[32];
    tl_device_str(from, sizeof from, tl_tensor_device(&t));
    tl_device_str(to, sizeof to, o.device);
    tl_tensor_release(&t);
    return PyErr_Format(PyExc_ValueError, "can't alias tensor from device '%s' to '%s'.", from,
                        to);
  }
  return tl_py_factory_finish(&t, &o);
}

/* Tensor.new_tensor(data, *, dtype=None, ...): a copy of data in self's dtype
 * and on self's device unless dtype= and device= say otherwise. */
PyObject *tl_py_impl_new_tensor(const char *name, const tl_py_args_new_tensor *a)
{
  tl_py_factory_opts o = TL_PY_FACTORY_OPTS(a);
  const tl_tensor *self = tl_py_t(a->self);
  tl_tensor t;
  bool weak;
  (void)name;
  if (!o.device_given)
    o.device = tl_tensor_device(self);
  if (tl_py_to_tensor(a->data, o.dtype >= 0 ? o.dtype : (int)self->dtype, true, &t, &weak) < 0)
    return NULL;
  return tl_py_factory_finish(&t, &o);
}

/* scalar_tensor(s, *, dtype=None, ...): a 0-d tensor, the default float dtype
 * unless dtype= says otherwise (whatever the kind of s). */
PyObject *tl_py_impl_scalar_tensor(const char *name, const tl_py_args_scalar_tensor *a)
{
  tl_py_factory_opts o = TL_PY_FACTORY_OPTS(a);
  tl_dtype dtype = o.dtype >= 0 ? (tl_dtype)o.dtype : tl_dtype_default_float();
  tl_tensor t;
  if (tl_py_factory_new(name, TL_OP_FILL, dtype, 0, NULL, &o, false, &t) < 0)
    return NULL;
  if (tl_tensor_fill(&t, a->s) != TL_OK) {
    tl_tensor_release(&t);
    return tl_py_raise();
  }
  return tl_py_factory_finish(&t, &o);
}

/* frombuffer(buffer, *, dtype, count=-1, offset=0): a 1-d tensor viewing a
 * Python buffer's bytes (read-only when the buffer is).  count=-1 takes
 * everything after offset, which must then be whole elements. */
PyObject *tl_py_impl_frombuffer(const char *name, const tl_py_args_frombuffer *a)
{
  tl_py_factory_opts o = {.dtype = a->dtype, .device = tl_device_cpu(), .device_given = true,
                          .requires_grad = a->requires_grad};
  PyObject *buffer = a->buffer;
  int64_t count = a->has_count ? a->count : -1, offset = a->offset;
  tl_tensor t;
  (void)name;
  if (o.dtype < 0)
    return PyErr_Format(PyExc_TypeError, "frombuffer() missing required keyword argument "
                        "'dtype'");
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

/* ---- zeros, ones, empty, full and their _like and new_ forms ------------------ */

static const tl_scalar zero = {.kind = TL_KIND_INT, .v.i = 0};
static const tl_scalar one = {.kind = TL_KIND_INT, .v.i = 1};

/* A tensor of `shape` filled with *value (zeros from the allocator when it is
 * `zero`; uninitialised when value is NULL), in dtype=, else out='s dtype,
 * else `fallback`. */
static PyObject *filled(const char *func, int ndim, const int64_t *shape, const tl_scalar *value,
                        tl_dtype fallback, const tl_py_factory_opts *o)
{
  tl_dtype dtype;
  tl_tensor t;
  bool zeroed = value == &zero;
  if (tl_py_factory_dtype(func, o, fallback, &dtype) < 0 ||
      tl_py_factory_new(func, value ? TL_OP_FILL : TL_OP_COUNT, dtype, ndim, shape, o, zeroed,
                        &t) < 0)
    return NULL;
  if (value && !zeroed &&
      (tl_scalar_check_store(*value, dtype) != TL_OK || tl_tensor_fill(&t, *value) != TL_OK)) {
    tl_tensor_release(&t);
    return tl_py_raise();
  }
  return tl_py_factory_finish(&t, o);
}

PyObject *tl_py_impl_zeros(const char *name, const tl_py_args_zeros *a)
{
  tl_py_factory_opts o = TL_PY_FACTORY_OPTS(a);
  return filled(name, a->size.n, a->size.v, &zero, tl_dtype_default_float(), &o);
}

PyObject *tl_py_impl_ones(const char *name, const tl_py_args_ones *a)
{
  tl_py_factory_opts o = TL_PY_FACTORY_OPTS(a);
  return filled(name, a->size.n, a->size.v, &one, tl_dtype_default_float(), &o);
}

PyObject *tl_py_impl_empty(const char *name, const tl_py_args_empty *a)
{
  tl_py_factory_opts o = TL_PY_FACTORY_OPTS(a);
  return filled(name, a->size.n, a->size.v, NULL, tl_dtype_default_float(), &o);
}

PyObject *tl_py_impl_full(const char *name, const tl_py_args_full *a)
{
  tl_py_factory_opts o = TL_PY_FACTORY_OPTS(a);
  return filled(name, a->size.n, a->size.v, &a->fill_value,
                scalar_default_dtype(a->fill_value.kind), &o);
}

/* The _like forms: the input's shape, dtype and device unless dtype= and
 * device= say otherwise. */
static PyObject *like(const char *func, PyObject *input, const tl_scalar *value,
                      tl_py_factory_opts *o)
{
  const tl_tensor *in = tl_py_t(input);
  if (!o->device_given)
    o->device = tl_tensor_device(in);
  o->like = in;
  return filled(func, in->ndim, in->shape, value, in->dtype, o);
}

PyObject *tl_py_impl_zeros_like(const char *name, const tl_py_args_zeros_like *a)
{
  tl_py_factory_opts o = TL_PY_LIKE_OPTS(a);
  return like(name, a->input, &zero, &o);
}

PyObject *tl_py_impl_ones_like(const char *name, const tl_py_args_ones_like *a)
{
  tl_py_factory_opts o = TL_PY_LIKE_OPTS(a);
  return like(name, a->input, &one, &o);
}

PyObject *tl_py_impl_empty_like(const char *name, const tl_py_args_empty_like *a)
{
  tl_py_factory_opts o = TL_PY_LIKE_OPTS(a);
  return like(name, a->input, NULL, &o);
}

PyObject *tl_py_impl_full_like(const char *name, const tl_py_args_full_like *a)
{
  tl_py_factory_opts o = TL_PY_LIKE_OPTS(a);
  return like(name, a->input, &a->fill_value, &o);
}

/* Tensor.new_zeros/new_ones/new_empty/new_full(size, ...): like the
 * functions, but on self's device and in self's dtype unless told otherwise. */
static PyObject *new_filled(const char *func, PyObject *self, const tl_py_ints *size,
                            const tl_scalar *value, tl_py_factory_opts *o)
{
  const tl_tensor *t = tl_py_t(self);
  if (!o->device_given)
    o->device = tl_tensor_device(t);
  return filled(func, size->n, size->v, value, t->dtype, o);
}

PyObject *tl_py_impl_new_zeros(const char *name, const tl_py_args_new_zeros *a)
{
  tl_py_factory_opts o = TL_PY_FACTORY_OPTS(a);
  return new_filled(name, a->self, &a->size, &zero, &o);
}

PyObject *tl_py_impl_new_ones(const char *name, const tl_py_args_new_ones *a)
{
  tl_py_factory_opts o = TL_PY_FACTORY_OPTS(a);
  return new_filled(name, a->self, &a->size, &one, &o);
}

PyObject *tl_py_impl_new_empty(const char *name, const tl_py_args_new_empty *a)
{
  tl_py_factory_opts o = TL_PY_FACTORY_OPTS(a);
  return new_filled(name, a->self, &a->size, NULL, &o);
}

PyObject *tl_py_impl_new_full(const char *name, const tl_py_args_new_full *a)
{
  tl_py_factory_opts o = TL_PY_FACTORY_OPTS(a);
  return new_filled(name, a->self, &a->size, &a->fill_value, &o);
}

/* empty_strided(size, stride, *, dtype=None, device=None): uninitialised memory
 * laid out with the given strides (in elements, non-negative). */
PyObject *tl_py_impl_empty_strided(const char *name, const tl_py_args_empty_strided *a)
{
  tl_py_factory_opts o = TL_PY_FACTORY_OPTS(a);
  int ndim = a->size.n, nstrides = a->stride.n;
  const int64_t *shape = a->size.v, *strides = a->stride.v;
  char sa[256], sb[256];
  if (ndim > TL_MAX_DIMS)
    return PyErr_Format(PyExc_ValueError, "empty_strided(): tensors have at most %d dimensions, "
                        "got %d", TL_MAX_DIMS, ndim);
  if (nstrides != ndim)
    return PyErr_Format(PyExc_RuntimeError, "empty_strided(): mismatch in length of strides "
                        "%s and shape %s", tl_shape_str(sa, sizeof sa, nstrides, strides),
                        tl_shape_str(sb, sizeof sb, ndim, shape));
  int64_t numel;
  tl_dtype dtype = o.dtype >= 0 ? (tl_dtype)o.dtype : tl_dtype_default_float();
  if (check_size(name, dtype, ndim, shape) < 0)
    return NULL;
  if (tl_shape_count(ndim, shape, &numel) != TL_OK) /* its strides are given */
    return tl_py_raise();
  int64_t extent = numel > 0; /* elements the storage must hold */
  for (int i = 0; i < ndim; i++) {
    int64_t span;
    if (strides[i] < 0)
      return PyErr_Format(PyExc_RuntimeError, "empty_strided(): negative strides are not "
                          "supported, got %s", tl_shape_str(sa, sizeof sa, ndim, strides));
    if (numel > 0 && (__builtin_mul_overflow(shape[i] - 1, strides[i], &span) ||
                      __builtin_add_overflow(extent, span, &extent) || extent > ((int64_t)1 << 56)))
      return PyErr_Format(PyExc_RuntimeError, "Storage size calculation overflowed with "
                          "sizes=%s and strides=%s", tl_shape_str(sa, sizeof sa, ndim, shape),
                          tl_shape_str(sb, sizeof sb, ndim, strides));
  }
  tl_tensor t;
  if (tl_py_factory_new(name, TL_OP_COUNT, dtype, 1, &extent, &o, false, &t) < 0)
    return NULL;
  t.ndim = ndim;
  memcpy(t.shape, shape, sizeof(int64_t) * (size_t)ndim);
  memcpy(t.strides, strides, sizeof(int64_t) * (size_t)ndim);
  return tl_py_factory_finish(&t, &o);
}

/* ---- ranges and the identity ------------------------------------------------------ */

/* arange(end) / arange(start, end, step=1): start, end and step may also come
 * by keyword.  Integers give int64, any float the default float dtype. */
PyObject *tl_py_impl_arange(const char *name, const tl_py_args_arange *a)
{
  tl_py_factory_opts o = TL_PY_FACTORY_OPTS(a);
  tl_scalar v[3] = {{.kind = TL_KIND_INT, .v.i = 0}, a->end, a->step};
  bool has_end = a->has_end;
  if (a->nargs == 1 && !has_end) { /* arange(end) */
    v[1] = a->start;
    has_end = a->has_start;
  } else if (a->has_start) {
    v[0] = a->start;
  }
  if (!has_end)
    return PyErr_Format(PyExc_TypeError, "arange() missing required argument 'end'");
  static const char *const names[] = {"start", "end", "step"};
  for (int i = 0; i < 3; i++)
    if (tl_py_real_scalar(name, names[i], &v[i]) < 0)
      return NULL;
  bool any_float = v[0].kind == TL_KIND_FLOAT || v[1].kind == TL_KIND_FLOAT ||
                   v[2].kind == TL_KIND_FLOAT;
  tl_dtype dtype;
  int64_t n;
  tl_tensor t;
  if (tl_py_factory_dtype(name, &o, any_float ? tl_dtype_default_float() : TL_DTYPE_I64,
                          &dtype) < 0)
    return NULL;
  if (tl_arange_length(v[0], v[1], v[2], dtype, &n) != TL_OK)
    return tl_py_raise();
  if (tl_py_factory_new(name, TL_OP_ARANGE, dtype, 1, &n, &o, false, &t) < 0)
    return NULL;
  if (tl_tensor_arange_fill(&t, v[0], v[2]) != TL_OK) {
    tl_tensor_release(&t);
    return tl_py_raise();
  }
  return tl_py_factory_finish(&t, &o);
}

/* linspace/logspace(start, end, steps, [base,] ...): steps evenly spaced values
 * from start to end inclusive (the powers base**x of them for logspace). */
static PyObject *spaced(const char *func, tl_scalar start, tl_scalar end, int64_t steps,
                        const tl_scalar *base, const tl_py_factory_opts *o)
{
  tl_scalar b = base ? *base : (tl_scalar){.kind = TL_KIND_FLOAT, .v.f = 10.0};
  if (count_arg("steps", steps) < 0)
    return NULL;
  if (b.kind == TL_KIND_COMPLEX)
    return PyErr_Format(PyExc_TypeError, "%s(): argument 'base' must be a real number", func);
  bool is_complex = start.kind == TL_KIND_COMPLEX || end.kind == TL_KIND_COMPLEX;
  tl_dtype dtype;
  tl_tensor t;
  if (tl_py_factory_dtype(func, o, is_complex ? tl_dtype_to_complex(tl_dtype_default_float())
                                           : tl_dtype_default_float(), &dtype) < 0 ||
      tl_py_factory_new(func, TL_OP_LINSPACE, dtype, 1, &steps, o, false, &t) < 0)
    return NULL;
  if (tl_tensor_linspace_fill(&t, start, end, base != NULL, b) != TL_OK) {
    tl_tensor_release(&t);
    return tl_py_raise();
  }
  return tl_py_factory_finish(&t, o);
}

PyObject *tl_py_impl_linspace(const char *name, const tl_py_args_linspace *a)
{
  tl_py_factory_opts o = TL_PY_FACTORY_OPTS(a);
  return spaced(name, a->start, a->end, a->steps, NULL, &o);
}

PyObject *tl_py_impl_logspace(const char *name, const tl_py_args_logspace *a)
{
  tl_py_factory_opts o = TL_PY_FACTORY_OPTS(a);
  return spaced(name, a->start, a->end, a->steps, &a->base, &o);
}

/* eye(n, m=None, *, dtype=None, ...): ones on the main diagonal of an n x m matrix. */
PyObject *tl_py_impl_eye(const char *name, const tl_py_args_eye *a)
{
  tl_py_factory_opts o = TL_PY_FACTORY_OPTS(a);
  int64_t shape[2] = {a->n, a->has_m ? a->m : a->n};
  tl_dtype dtype;
  tl_tensor t;
  if (count_arg("n", shape[0]) < 0 || count_arg("m", shape[1]) < 0 ||
      tl_py_factory_dtype(name, &o, tl_dtype_default_float(), &dtype) < 0 ||
      tl_py_factory_new(name, TL_OP_EYE, dtype, 2, shape, &o, false, &t) < 0)
    return NULL;
  if (tl_tensor_eye_fill(&t) != TL_OK) {
    tl_tensor_release(&t);
    return tl_py_raise();
  }
  return tl_py_factory_finish(&t, &o);
}

/* tril_indices/triu_indices(row, col, offset=0, *, dtype=int64, device=None):
 * the indices are worked out on the host (an index pair per element), then
 * copied to the device. */
PyObject *tl_py_impl_tri_indices(const char *name, const tl_py_args_tri_indices *a)
{
  tl_py_factory_opts o = {.dtype = a->dtype, .device = a->device, .device_given = a->has_device};
  tl_dtype dtype = a->dtype < 0 ? TL_DTYPE_I64 : (tl_dtype)a->dtype;
  tl_tensor t, cast;
  if (dtype != TL_DTYPE_I64 && dtype != TL_DTYPE_I32)
    return PyErr_Format(PyExc_NotImplementedError, "\"%s\" not implemented for '%s'", name,
                        tl_dtype_names[dtype]);
  if (tl_shape_tri_indices(&t, a->row, a->col, a->offset, name[3] == 'u') != TL_OK)
    return tl_py_raise();
  if (dtype != TL_DTYPE_I64) {
    tl_status s = tl_tensor_to_dtype(&cast, &t, dtype);
    tl_tensor_release(&t);
    if (s != TL_OK)
      return tl_py_raise();
    t = cast;
  }
  return tl_py_factory_finish(&t, &o);
}

PyMethodDef tl_py_create_functions[] = {
    {"from_numpy", py_from_numpy, METH_O, NULL},
    {NULL, NULL, 0, NULL},
};
