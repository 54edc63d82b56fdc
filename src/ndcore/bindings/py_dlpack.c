/* py_dlpack.c - DLPack: Tensor.__dlpack__ / __dlpack_device__ and from_dlpack.
 *
 * Export hands out a capsule wrapping a heap block (export_ctx) that holds one
 * storage reference plus the shape and strides the DLTensor points at; the
 * deleter drops both.  A consumer that asks for max_version >= (1, 0) gets a
 * "dltensor_versioned" capsule (DLManagedTensorVersioned, with the read-only and
 * is-copied flags); any other gets the legacy "dltensor" one, which cannot say
 * "read-only", so read-only tensors are refused there.
 *
 * Import wraps the producer's memory in a storage whose release calls the
 * producer's deleter, so the deleter runs exactly once, when the last view
 * dies.  The capsule is renamed "used_..." as it is consumed; a capsule nobody
 * consumed calls the deleter from its own destructor.  Capsules made by this
 * file are recognised and their storage is shared directly, so views on both
 * sides keep one version counter.
 *
 * CUDA tensors go both ways (kDLCUDA, a device this process sees): on
 * export the consumer's `stream` waits for our current stream through an
 * event; on import we name our current stream so the producer orders its
 * work before ours.  __cuda_array_interface__ (version 3, CuPy and Numba)
 * is read here too (tl_py_from_cuda_array_interface), into the same kind of
 * wrapped storage, keeping the producer alive; its Python side (export) is
 * in torchlike/_interop_cuda.py.
 *
 * Errors: memory we cannot reach (another device) or a layout we cannot take
 * is a BufferError, an element type we do not have a TypeError, a malformed
 * argument a ValueError or TypeError, each naming what it got.              */
#include <stdlib.h>
#include <string.h>

#include <dlpack/dlpack.h>

#include "gpu/runtime/tl_gpu_runtime.h"
#include "gpu/tl_gpu.h"
#include "ndcore/bindings/generated/bindings.h"

#define CAPSULE_LEGACY "dltensor"
#define CAPSULE_LEGACY_USED "used_dltensor"
#define CAPSULE_VERSIONED "dltensor_versioned"
#define CAPSULE_VERSIONED_USED "used_dltensor_versioned"

/* ---- dtypes and devices ------------------------------------------------------- */

static DLDataType dl_dtype_of(tl_dtype d)
{
  uint8_t bits = (uint8_t)(8 * tl_dtype_size(d));
  switch (d) { /* DLPack 1.1's float8 codes */
  case TL_DTYPE_F8E4M3FN: return (DLDataType){kDLFloat8_e4m3fn, 8, 1};
  case TL_DTYPE_F8E5M2: return (DLDataType){kDLFloat8_e5m2, 8, 1};
  case TL_DTYPE_F8E4M3FNUZ: return (DLDataType){kDLFloat8_e4m3fnuz, 8, 1};
  case TL_DTYPE_F8E5M2FNUZ: return (DLDataType){kDLFloat8_e5m2fnuz, 8, 1};
  case TL_DTYPE_F8E8M0FNU: return (DLDataType){kDLFloat8_e8m0fnu, 8, 1};
  default: break;
  }
  switch (tl_dtype_kind(d)) {
  case TL_KIND_BOOL: return (DLDataType){kDLBool, bits, 1};
  case TL_KIND_UINT: return (DLDataType){kDLUInt, bits, 1};
  case TL_KIND_INT: return (DLDataType){kDLInt, bits, 1};
  case TL_KIND_COMPLEX: return (DLDataType){kDLComplex, bits, 1};
  default: return (DLDataType){d == TL_DTYPE_BF16 ? kDLBfloat : kDLFloat, bits, 1};
  }
}

static const char *dl_code_name(uint8_t code)
{
  switch (code) {
  case kDLInt: return "int";
  case kDLUInt: return "uint";
  case kDLFloat: return "float";
  case kDLOpaqueHandle: return "opaque handle";
  case kDLBfloat: return "bfloat";
  case kDLComplex: return "complex";
  case kDLBool: return "bool";
  case kDLFloat8_e3m4: return "float8_e3m4";
  case kDLFloat8_e4m3: return "float8_e4m3";
  case kDLFloat8_e4m3b11fnuz: return "float8_e4m3b11fnuz";
  default: return "float6/4 or unknown";
  }
}

static int tl_dtype_of_dl(DLDataType dt, tl_dtype *out)
{
  for (int d = 0; d < TL_DTYPE_COUNT; d++) {
    DLDataType ours = dl_dtype_of((tl_dtype)d);
    if (dt.lanes == 1 && ours.code == dt.code && ours.bits == dt.bits) {
      *out = (tl_dtype)d;
      return 0;
    }
  }
  PyErr_Format(PyExc_TypeError, "from_dlpack: unsupported DLPack dtype (code %u: %s, %u bits, "
                                "%u lanes); torchlike has bool, uint8-uint64, int8-int64, "
                                "float16, bfloat16, float32, float64, complex64, complex128 "
                                "and float8 (e4m3fn, e5m2, e4m3fnuz, e5m2fnuz, e8m0fnu)",
               (unsigned)dt.code, dl_code_name(dt.code), (unsigned)dt.bits, (unsigned)dt.lanes);
  return -1;
}

static const char *dl_device_name(int32_t type)
{
  switch (type) {
  case kDLCPU: return "cpu";
  case kDLCUDA: return "cuda";
  case kDLCUDAHost: return "cuda pinned host";
  case kDLOpenCL: return "opencl";
  case kDLVulkan: return "vulkan";
  case kDLMetal: return "metal";
  case kDLVPI: return "vpi";
  case kDLROCM: return "rocm";
  case kDLROCMHost: return "rocm pinned host";
  case kDLExtDev: return "ext_dev";
  case kDLCUDAManaged: return "cuda managed";
  case kDLOneAPI: return "oneapi";
  case kDLWebGPU: return "webgpu";
  case kDLHexagon: return "hexagon";
  default: return "unknown";
  }
}

/* Alignment each dtype's kernels assume for their element pointers: the
 * CPU's C types, and on CUDA the whole element (tl_cuda_math.cuh's complex
 * types are aligned to their size, as PyTorch's c10::complex, and are moved
 * in one 8- or 16-byte access: a complex128 at an 8-byte boundary faults
 * with a misaligned address, an error that ends the process's CUDA
 * context). */
static size_t dtype_align(tl_dtype d, int32_t device_type)
{
  if (device_type == kDLCUDA)
    return tl_dtype_size(d);
  switch (d) {
  case TL_DTYPE_C64: return _Alignof(float _Complex);
  case TL_DTYPE_C128: return _Alignof(double _Complex);
  default: return tl_dtype_size(d);
  }
}

/* ---- export --------------------------------------------------------------------- */

typedef struct {
  DLManagedTensorVersioned versioned;
  DLManagedTensor legacy;
  tl_storage *storage;
  int64_t shape[TL_MAX_DIMS];
  int64_t strides[TL_MAX_DIMS];
} export_ctx;

/* The deleters may run on any thread, with or without the GIL: they only drop
 * a storage reference, whose release takes the GIL itself when it needs it. */
static void export_free(export_ctx *ctx)
{
  tl_storage_decref(ctx->storage);
  free(ctx);
}
static void export_deleter_versioned(DLManagedTensorVersioned *m) { export_free(m->manager_ctx); }
static void export_deleter_legacy(DLManagedTensor *m) { export_free(m->manager_ctx); }

/* An exported capsule nobody consumed gives its tensor back here. */
static void capsule_free_versioned(PyObject *cap)
{
  if (!PyCapsule_IsValid(cap, CAPSULE_VERSIONED))
    return; /* consumed: the consumer owns the deleter call now */
  DLManagedTensorVersioned *m = PyCapsule_GetPointer(cap, CAPSULE_VERSIONED);
  if (m->deleter)
    m->deleter(m);
}
static void capsule_free_legacy(PyObject *cap)
{
  if (!PyCapsule_IsValid(cap, CAPSULE_LEGACY))
    return;
  DLManagedTensor *m = PyCapsule_GetPointer(cap, CAPSULE_LEGACY);
  if (m->deleter)
    m->deleter(m);
}

/* Parse a (int, int) tuple argument; *present = false for None. */
static int int_pair(const char *what, PyObject *o, long long out[2], bool *present)
{
  *present = o && o != Py_None;
  if (!*present)
    return 0;
  if (!PyTuple_Check(o) || PyTuple_GET_SIZE(o) != 2) {
    PyErr_Format(PyExc_TypeError, "__dlpack__: %s must be a tuple of two ints, got %R", what, o);
    return -1;
  }
  for (int i = 0; i < 2; i++) {
    out[i] = PyLong_AsLongLong(PyTuple_GET_ITEM(o, i));
    if (out[i] == -1 && PyErr_Occurred())
      return -1;
  }
  return 0;
}

/* The DLPack stream rule for a CUDA export (the Array API's __dlpack__):
 * the consumer names the stream it will use the data on - None or 1 the
 * legacy default stream, 2 the per-thread default stream, a larger int a
 * cudaStream_t, -1 "do not synchronize" - and that stream is made to wait
 * for the work queued so far on our current stream (an event, no host wait).
 * CUDA's handles for the legacy and per-thread streams are 1 and 2 too. */
static int cuda_export_stream(int device, PyObject *stream)
{
  long long h = 1;
  if (stream != Py_None) {
    h = PyLong_AsLongLong(stream);
    if (h == -1 && PyErr_Occurred())
      return -1;
  }
  if (h == 0 || h < -1) {
    PyErr_Format(PyExc_ValueError, "__dlpack__: stream %lld is not a valid CUDA stream (0 is "
                 "ambiguous: pass 1 for the legacy default stream, 2 for the per-thread one, "
                 "-1 for no synchronization)", h);
    return -1;
  }
  if (h == -1)
    return 0;
  void *ours = tl_gpu_current_stream(device);
  if (!ours)
    ours = (void *)(uintptr_t)1; /* NULL, the legacy default stream, is handle 1 too */
  return tl_gpu_stream_order(device, (void *)(uintptr_t)h, ours) == TL_OK ? 0 : tl_py_raise_int();
}

/* __dlpack__(stream=None, *, max_version=None, dl_device=None, copy=None) */
static PyObject *tensor_dlpack(PyObject *self, PyObject *args, PyObject *kwargs)
{
  static char *kwlist[] = {"stream", "max_version", "dl_device", "copy", NULL};
  PyObject *stream = Py_None, *max_version = Py_None, *dl_device = Py_None, *copy_obj = Py_None;
  if (!PyArg_ParseTupleAndKeywords(args, kwargs, "|O$OOO:__dlpack__", kwlist, &stream,
                                   &max_version, &dl_device, &copy_obj))
    return NULL;
  tl_tensor *t = tl_py_t(self);
  long long version[2], device[2];
  bool versioned, device_given;
  int copy = copy_obj == Py_None ? -1 : PyObject_IsTrue(copy_obj);
  if (copy == -1 && PyErr_Occurred())
    return NULL;
  if (int_pair("max_version", max_version, version, &versioned) < 0 ||
      int_pair("dl_device", dl_device, device, &device_given) < 0)
    return NULL;
  versioned = versioned && version[0] >= 1;
  if (((tl_py_tensor *)self)->requires_grad)
    return PyErr_Format(PyExc_RuntimeError, "Can't export tensors that require gradient, use "
                                            "tensor.detach()");
  tl_device where = tl_tensor_device(t);
  DLDevice dl_where = {kDLCPU, 0};
  if (where.type == TL_DEVICE_CUDA) {
    dl_where = (DLDevice){kDLCUDA, where.index};
    if (cuda_export_stream(where.index, stream) < 0)
      return NULL;
  } else if (where.type != TL_DEVICE_CPU) {
    char buf[32];
    return PyErr_Format(PyExc_BufferError, "__dlpack__: exporting %s tensors is not supported; "
                                           "copy to the CPU with .cpu() first",
                        tl_device_str(buf, sizeof buf, where));
  } else if (stream != Py_None) {
    return PyErr_Format(PyExc_ValueError, "__dlpack__: stream must be None for a CPU tensor, "
                                          "got %R", stream);
  }
  if (device_given && (device[0] != dl_where.device_type || device[1] != dl_where.device_id))
    return PyErr_Format(PyExc_BufferError, "__dlpack__: can't export a %s tensor to DLPack "
                                           "device (%lld, %lld) (%s): copies to other devices are "
                                           "not supported", dl_device_name(dl_where.device_type),
                        device[0], device[1], dl_device_name((int32_t)device[0]));
  if (!versioned && copy != 1 && t->storage->readonly)
    return PyErr_Format(PyExc_BufferError, "__dlpack__: can't export a read-only tensor as a "
                                           "legacy DLPack capsule, which has no read-only flag; "
                                           "pass max_version=(1, 0) or copy=True");
  export_ctx *ctx = calloc(1, sizeof *ctx);
  if (!ctx)
    return PyErr_NoMemory();
  tl_tensor src;
  if (copy == 1) { /* a fresh contiguous copy the consumer owns outright */
    if (tl_tensor_to_dtype(&src, t, t->dtype) != TL_OK) {
      free(ctx);
      return tl_py_raise();
    }
  } else {
    tl_tensor_view_of(&src, t);
  }
  ctx->storage = src.storage; /* the export's reference */
  for (int i = 0; i < src.ndim; i++) {
    ctx->shape[i] = src.shape[i];
    ctx->strides[i] = src.strides[i];
  }
  DLTensor dl = {
      .data = tl_tensor_data(&src),
      .device = dl_where,
      .ndim = src.ndim,
      .dtype = dl_dtype_of(src.dtype),
      .shape = ctx->shape,
      .strides = ctx->strides,
      .byte_offset = 0,
  };
  PyObject *cap;
  if (versioned) {
    DLManagedTensorVersioned *m = &ctx->versioned;
    /* Report the newest minor version both sides know; the layout is the same. */
    m->version = (DLPackVersion){DLPACK_MAJOR_VERSION, DLPACK_MINOR_VERSION};
    if (version[0] == DLPACK_MAJOR_VERSION && version[1] < DLPACK_MINOR_VERSION)
      m->version.minor = version[1] < 0 ? 0 : (uint32_t)version[1];
    m->manager_ctx = ctx;
    m->deleter = export_deleter_versioned;
    m->flags = (src.storage->readonly ? DLPACK_FLAG_BITMASK_READ_ONLY : 0) |
               (copy == 1 ? DLPACK_FLAG_BITMASK_IS_COPIED : 0);
    m->dl_tensor = dl;
    cap = PyCapsule_New(m, CAPSULE_VERSIONED, capsule_free_versioned);
    if (!cap)
      export_deleter_versioned(m);
  } else {
    DLManagedTensor *m = &ctx->legacy;
    m->manager_ctx = ctx;
    m->deleter = export_deleter_legacy;
    m->dl_tensor = dl;
    cap = PyCapsule_New(m, CAPSULE_LEGACY, capsule_free_legacy);
    if (!cap)
      export_deleter_legacy(m);
  }
  return cap;
}

static PyObject *tensor_dlpack_device(PyObject *self, PyObject *unused)
{
  (void)unused;
  tl_device d = tl_tensor_device(tl_py_t(self));
  if (d.type == TL_DEVICE_CUDA)
    return Py_BuildValue("(ii)", (int)kDLCUDA, d.index);
  if (d.type != TL_DEVICE_CPU) /* the fake test device is no DLPack device */
    return Py_BuildValue("(ii)", (int)kDLExtDev, d.index);
  return Py_BuildValue("(ii)", (int)kDLCPU, 0);
}

/* ---- import --------------------------------------------------------------------- */

/* Storage release for foreign memory: the producer's deleter, exactly once.
 * Producers written in Python may need the GIL; NumPy's takes it itself, and
 * taking it here as well is harmless. */
static void release_versioned(void *ctx, void *data)
{
  (void)data;
  DLManagedTensorVersioned *m = ctx;
  if (!m->deleter || !Py_IsInitialized())
    return;
  PyGILState_STATE g = PyGILState_Ensure();
  m->deleter(m);
  PyGILState_Release(g);
}
static void release_legacy(void *ctx, void *data)
{
  (void)data;
  DLManagedTensor *m = ctx;
  if (!m->deleter || !Py_IsInitialized())
    return;
  PyGILState_STATE g = PyGILState_Ensure();
  m->deleter(m);
  PyGILState_Release(g);
}

/* Memory on DLPack device (type, id) that a tensor of ours can hold: a CUDA
 * device this process sees. */
static bool cuda_readable(int type, int id)
{
  return type == kDLCUDA && id >= 0 && id < tl_gpu_device_count();
}

/* The tl_device of DLPack device memory describe() accepted. */
static tl_device device_of_dl(DLDevice d)
{
  return d.device_type == kDLCUDA ? (tl_device){TL_DEVICE_CUDA, d.device_id} : tl_device_cpu();
}

/* Fill t's view from a DLTensor (all but the storage) and find the byte range
 * [*lo, *hi) its elements touch.  Every check happens before memory is used. */
static int describe(const DLTensor *dl, tl_tensor *t, char **lo, char **hi)
{
  static char empty_anchor[16];
  if (dl->device.device_type != kDLCPU && !cuda_readable(dl->device.device_type,
                                                          dl->device.device_id)) {
    PyErr_Format(PyExc_BufferError, "from_dlpack: can't import memory on DLPack device %s "
                                    "(type %d, id %d): this process reads CPU memory%s only",
                 dl_device_name(dl->device.device_type), (int)dl->device.device_type,
                 (int)dl->device.device_id,
                 tl_gpu_device_count() ? " and its CUDA devices' memory" : "");
    return -1;
  }
  if (tl_dtype_of_dl(dl->dtype, &t->dtype) < 0)
    return -1;
  if (dl->ndim < 0 || dl->ndim > TL_MAX_DIMS) {
    PyErr_Format(PyExc_BufferError, "from_dlpack: tensors have at most %d dimensions, got %d",
                 TL_MAX_DIMS, (int)dl->ndim);
    return -1;
  }
  if (dl->ndim > 0 && !dl->shape) {
    PyErr_SetString(PyExc_BufferError, "from_dlpack: the DLTensor has no shape");
    return -1;
  }
  t->ndim = dl->ndim;
  int64_t itemsize = (int64_t)tl_dtype_size(t->dtype);
  for (int i = 0; i < t->ndim; i++) {
    if (dl->shape[i] < 0) {
      PyErr_Format(PyExc_BufferError, "from_dlpack: negative size %lld in dimension %d",
                   (long long)dl->shape[i], i);
      return -1;
    }
    t->shape[i] = dl->shape[i];
  }
  if (dl->strides)
    for (int i = 0; i < t->ndim; i++)
      t->strides[i] = dl->strides[i];
  else /* allowed before DLPack 1.2: NULL means C-contiguous */
    tl_shape_contiguous_strides(t->ndim, t->shape, t->strides);
  int64_t numel;
  if (tl_shape_count(t->ndim, t->shape, &numel) != TL_OK) {
    tl_error_clear();
    PyErr_SetString(PyExc_BufferError, "from_dlpack: the DLTensor's element count overflows");
    return -1;
  }
  char *data = dl->data ? (char *)dl->data + dl->byte_offset : NULL;
  if (numel == 0) { /* no element is ever read: any non-NULL address will do */
    *lo = *hi = data ? data : empty_anchor;
    t->offset = 0;
    return 0;
  }
  if (!data) {
    PyErr_SetString(PyExc_BufferError, "from_dlpack: the DLTensor has a NULL data pointer");
    return -1;
  }
  size_t align = dtype_align(t->dtype, dl->device.device_type);
  if ((uintptr_t)data % align != 0) {
    PyErr_Format(PyExc_BufferError, "from_dlpack: the %s data at %p is not aligned to %zu bytes "
                 "(%s kernels need that)", tl_dtype_names[t->dtype], (void *)data, align,
                 dl_device_name(dl->device.device_type));
    return -1;
  }
  /* Byte extent below and above the first element, overflow-checked. */
  int64_t below = 0, above = itemsize;
  for (int i = 0; i < t->ndim; i++) {
    int64_t extent;
    if (__builtin_mul_overflow(t->shape[i] - 1, t->strides[i], &extent) ||
        __builtin_mul_overflow(extent, itemsize, &extent) ||
        (extent < 0 ? __builtin_add_overflow(below, extent, &below)
                    : __builtin_add_overflow(above, extent, &above))) {
      PyErr_SetString(PyExc_BufferError, "from_dlpack: the DLTensor's shape and strides overflow");
      return -1;
    }
  }
  *lo = data + below;
  *hi = data + above;
  t->offset = -below / itemsize;
  return 0;
}

/* Take over a DLPack capsule: t views the producer's memory. */
static int import_capsule(PyObject *cap, tl_tensor *t, bool *copied)
{
  DLManagedTensorVersioned *mv = NULL;
  DLManagedTensor *ml = NULL;
  const DLTensor *dl;
  bool readonly = false;
  *copied = false;
  if (PyCapsule_IsValid(cap, CAPSULE_VERSIONED)) {
    mv = PyCapsule_GetPointer(cap, CAPSULE_VERSIONED);
    if (mv->version.major != DLPACK_MAJOR_VERSION) {
      PyErr_Format(PyExc_BufferError, "from_dlpack: unsupported DLPack version %u.%u (this build "
                                      "reads %d.x)",
                   mv->version.major, mv->version.minor, DLPACK_MAJOR_VERSION);
      return -1;
    }
    dl = &mv->dl_tensor;
    readonly = mv->flags & DLPACK_FLAG_BITMASK_READ_ONLY;
    *copied = mv->flags & DLPACK_FLAG_BITMASK_IS_COPIED;
  } else if (PyCapsule_IsValid(cap, CAPSULE_LEGACY)) {
    ml = PyCapsule_GetPointer(cap, CAPSULE_LEGACY);
    dl = &ml->dl_tensor;
  } else {
    const char *name = PyCapsule_GetName(cap);
    if (!name && PyErr_Occurred())
      return -1;
    if (name && (!strcmp(name, CAPSULE_LEGACY_USED) || !strcmp(name, CAPSULE_VERSIONED_USED)))
      PyErr_SetString(PyExc_ValueError, "from_dlpack: this DLPack capsule was already consumed; "
                                        "a capsule can be imported only once");
    else
      PyErr_Format(PyExc_TypeError, "from_dlpack: expected a \"dltensor\" or "
                                    "\"dltensor_versioned\" capsule, got one named %s",
                   name ? name : "NULL");
    return -1;
  }
  char *lo, *hi;
  if (describe(dl, t, &lo, &hi) < 0)
    return -1;
  tl_storage *s;
  void *own = mv ? (void *)mv->deleter : (void *)ml->deleter;
  bool ours = own == (void *)export_deleter_versioned || own == (void *)export_deleter_legacy;
  if (ours) { /* our own export: share the storage (and its version counter) */
    export_ctx *ctx = mv ? mv->manager_ctx : ml->manager_ctx;
    s = ctx->storage;
    tl_storage_incref(s);
    t->offset = ((char *)dl->data + dl->byte_offset - (char *)s->data) /
                (int64_t)tl_dtype_size(t->dtype);
  } else {
    s = tl_storage_wrap(lo, (size_t)(hi - lo), device_of_dl(dl->device), readonly,
                        mv ? release_versioned : release_legacy, mv ? (void *)mv : (void *)ml);
    if (!s)
      return tl_py_raise_int();
  }
  if (PyCapsule_SetName(cap, mv ? CAPSULE_VERSIONED_USED : CAPSULE_LEGACY_USED) < 0) {
    if (!ours)
      s->release = NULL; /* the capsule still owns the deleter call */
    tl_storage_decref(s);
    return -1;
  }
  if (ours) { /* the view holds its own reference now; end the export */
    if (mv)
      mv->deleter(mv);
    else
      ml->deleter(ml);
  }
  t->storage = s;
  return 0;
}

/* Ask a producer for a capsule: DLPack 1.x first, then the legacy call for
 * producers that don't know the keywords. */
static PyObject *request_capsule(PyObject *x, int copy)
{
  PyObject *method = PyObject_GetAttrString(x, "__dlpack__");
  if (!method) {
    PyErr_Format(PyExc_TypeError, "from_dlpack: expected an object with __dlpack__ and "
                                  "__dlpack_device__ or a DLPack capsule, got %s",
                 Py_TYPE(x)->tp_name);
    return NULL;
  }
  PyObject *cap = NULL, *kwargs = NULL, *stream = NULL, *empty = PyTuple_New(0);
  /* __dlpack_device__ lets us refuse other devices before anything is
   * exported; a producer without it is asked anyway, and the capsule's own
   * device is checked on import. */
  int type = kDLCPU, id = 0;
  PyObject *device = PyObject_CallMethod(x, "__dlpack_device__", NULL);
  if (!device && PyErr_ExceptionMatches(PyExc_AttributeError))
    PyErr_Clear();
  else if (!device || !PyArg_ParseTuple(device, "ii;__dlpack_device__ must return "
                                                "(device_type, device_id)", &type, &id))
    goto done;
  if (!empty)
    goto done;
  if (type != kDLCPU && !cuda_readable(type, id)) {
    PyErr_Format(PyExc_BufferError, "from_dlpack: can't import from DLPack device %s (type %d, "
                                    "id %d): this process reads CPU memory%s only",
                 dl_device_name(type), type, id,
                 tl_gpu_device_count() ? " and its CUDA devices' memory" : "");
    goto done;
  }
  /* CUDA: the producer orders its work before our current stream's (DLPack's
   * stream argument; our NULL stream is the legacy default, handle 1). */
  if (type == kDLCUDA) {
    uintptr_t ours = (uintptr_t)tl_gpu_current_stream(id);
    stream = PyLong_FromUnsignedLongLong(ours ? ours : 1);
  } else {
    stream = Py_NewRef(Py_None);
  }
  kwargs = Py_BuildValue("{s(ii)}", "max_version", DLPACK_MAJOR_VERSION, 0);
  if (!stream || !kwargs ||
      (copy >= 0 && PyDict_SetItemString(kwargs, "copy", copy ? Py_True : Py_False) < 0) ||
      (type == kDLCUDA && PyDict_SetItemString(kwargs, "stream", stream) < 0))
    goto done;
  cap = PyObject_Call(method, empty, kwargs);
  if (!cap && PyErr_ExceptionMatches(PyExc_TypeError)) { /* a producer before DLPack 1.0 */
    PyErr_Clear();
    PyObject *legacy = type == kDLCUDA ? Py_BuildValue("{sO}", "stream", stream) : NULL;
    cap = legacy ? PyObject_Call(method, empty, legacy) : PyObject_CallNoArgs(method);
    Py_XDECREF(legacy);
  }
  if (cap && !PyCapsule_CheckExact(cap)) {
    PyErr_Format(PyExc_TypeError, "from_dlpack: %s.__dlpack__ returned %s, not a capsule",
                 Py_TYPE(x)->tp_name, Py_TYPE(cap)->tp_name);
    Py_CLEAR(cap);
  }
done:
  Py_DECREF(method);
  Py_XDECREF(device);
  Py_XDECREF(kwargs);
  Py_XDECREF(stream);
  Py_XDECREF(empty);
  return cap;
}

/* ---- __cuda_array_interface__ (CuPy, Numba, PyTorch) ------------------------------- */

/* The owner of imported CUDA memory: a reference dropped with the GIL. */
static void release_owner(void *ctx, void *data)
{
  (void)data;
  PyGILState_STATE g = PyGILState_Ensure();
  Py_DECREF((PyObject *)ctx);
  PyGILState_Release(g);
}

/* A NumPy type string ("<f4", "|b1" ...) as a DLPack dtype. */
static int cai_dtype(PyObject *typestr, DLDataType *dt)
{
  const char *s = PyUnicode_Check(typestr) ? PyUnicode_AsUTF8(typestr) : NULL;
  char *end = NULL;
  long size = s && strlen(s) >= 3 ? strtol(s + 2, &end, 10) : 0;
  if (!s || size <= 0 || size > 16 || *end || !strchr("<|=>", s[0]) ||
      (s[0] == '>' && size > 1)) {
    if (!PyErr_Occurred())
      PyErr_Format(PyExc_TypeError, "__cuda_array_interface__: unsupported typestr %R "
                   "(native byte order, kinds b i u f c)", typestr);
    return -1;
  }
  uint8_t code;
  switch (s[1]) {
  case 'b': code = kDLBool; break;
  case 'i': code = kDLInt; break;
  case 'u': code = kDLUInt; break;
  case 'f': code = kDLFloat; break;
  case 'c': code = kDLComplex; break;
  default:
    PyErr_Format(PyExc_TypeError, "__cuda_array_interface__: unsupported typestr %R", typestr);
    return -1;
  }
  *dt = (DLDataType){code, (uint8_t)(8 * size), 1};
  return 0;
}

/* A tuple of ints into v (at most TL_MAX_DIMS); its length, or -1. */
static int int_tuple(const char *what, PyObject *o, int64_t *v)
{
  if (!PyTuple_Check(o) || PyTuple_GET_SIZE(o) > TL_MAX_DIMS) {
    PyErr_Format(PyExc_TypeError, "__cuda_array_interface__: %s must be a tuple of at most %d "
                 "ints, got %R", what, TL_MAX_DIMS, o);
    return -1;
  }
  for (Py_ssize_t i = 0; i < PyTuple_GET_SIZE(o); i++) {
    v[i] = PyLong_AsLongLong(PyTuple_GET_ITEM(o, i));
    if (v[i] == -1 && PyErr_Occurred())
      return -1;
  }
  return (int)PyTuple_GET_SIZE(o);
}

int tl_py_from_cuda_array_interface(PyObject *o, tl_tensor *t)
{
  PyObject *ai = PyObject_GetAttrString(o, "__cuda_array_interface__");
  if (!ai) {
    if (!PyErr_ExceptionMatches(PyExc_AttributeError))
      return -1;
    PyErr_Clear();
    return 0;
  }
  int r = -1;
  PyObject *shape, *typestr, *data, *strides, *version, *stream, *mask;
  int64_t dims[TL_MAX_DIMS], steps[TL_MAX_DIMS];
  DLTensor dl = {.device = {kDLCUDA, tl_gpu_current_device()}};
  if (!PyDict_Check(ai) || !(shape = PyDict_GetItemString(ai, "shape")) ||
      !(typestr = PyDict_GetItemString(ai, "typestr")) ||
      !(data = PyDict_GetItemString(ai, "data")) ||
      !(version = PyDict_GetItemString(ai, "version"))) {
    PyErr_Format(PyExc_TypeError, "__cuda_array_interface__ of %s must be a dict with shape, "
                 "typestr, data and version", Py_TYPE(o)->tp_name);
    goto done;
  }
  strides = PyDict_GetItemString(ai, "strides");
  stream = PyDict_GetItemString(ai, "stream");
  mask = PyDict_GetItemString(ai, "mask");
  long v = PyLong_AsLong(version);
  if (v == -1 && PyErr_Occurred())
    goto done;
  if (v < 0 || v > 3) {
    PyErr_Format(PyExc_BufferError, "__cuda_array_interface__: version %ld is not supported "
                 "(0 to 3)", v);
    goto done;
  }
  if (mask && mask != Py_None) {
    PyErr_SetString(PyExc_BufferError, "__cuda_array_interface__: masked arrays are not "
                                       "supported");
    goto done;
  }
  int readonly;
  unsigned long long ptr;
  if (!PyTuple_Check(data) || PyTuple_GET_SIZE(data) != 2) {
    PyErr_Format(PyExc_TypeError, "__cuda_array_interface__: data must be (pointer, read_only), "
                 "got %R", data);
    goto done;
  }
  ptr = PyLong_AsUnsignedLongLong(PyTuple_GET_ITEM(data, 0));
  if ((ptr == (unsigned long long)-1 && PyErr_Occurred()) ||
      (readonly = PyObject_IsTrue(PyTuple_GET_ITEM(data, 1))) < 0 ||
      (dl.ndim = int_tuple("shape", shape, dims)) < 0 || cai_dtype(typestr, &dl.dtype) < 0)
    goto done;
  dl.data = (void *)(uintptr_t)ptr;
  dl.shape = dims;
  if (strides && strides != Py_None) { /* bytes there, elements here */
    int64_t itemsize = dl.dtype.bits / 8;
    if (int_tuple("strides", strides, steps) != dl.ndim) {
      if (!PyErr_Occurred())
        PyErr_Format(PyExc_ValueError, "__cuda_array_interface__: strides %R do not match "
                     "shape %R", strides, shape);
      goto done;
    }
    for (int i = 0; i < dl.ndim; i++) {
      if (steps[i] % itemsize) {
        PyErr_Format(PyExc_BufferError, "__cuda_array_interface__: stride %lld is not a "
                     "multiple of the %lld-byte element", (long long)steps[i],
                     (long long)itemsize);
        goto done;
      }
      steps[i] /= itemsize;
    }
    dl.strides = steps;
  }
  int64_t numel = 1;
  for (int i = 0; i < dl.ndim; i++)
    numel *= dims[i] > 0 ? dims[i] : 0;
  if (numel > 0 && ptr) {
    int device;
    if (tl_gpu_pointer_device(dl.data, &device) != TL_OK) {
      tl_py_raise();
      goto done;
    }
    dl.device.device_id = device;
  }
  char *lo, *hi;
  if (describe(&dl, t, &lo, &hi) < 0)
    goto done;
  /* Version 3: the producer's work on `stream` comes before our current
   * stream's (None: nothing to order; 0 is not a valid value). */
  if (stream && stream != Py_None && numel > 0) {
    long long h = PyLong_AsLongLong(stream);
    if (h == -1 && PyErr_Occurred())
      goto done;
    if (h == 0) {
      PyErr_SetString(PyExc_ValueError, "__cuda_array_interface__: stream 0 is disallowed "
                                        "(1 is the legacy default stream, 2 the per-thread one)");
      goto done;
    }
    void *ours = tl_gpu_current_stream(dl.device.device_id);
    if (tl_gpu_stream_order(dl.device.device_id, ours ? ours : (void *)(uintptr_t)1,
                            (void *)(uintptr_t)h) != TL_OK) {
      tl_py_raise();
      goto done;
    }
  }
  tl_storage *st = tl_storage_wrap(lo, (size_t)(hi - lo), device_of_dl(dl.device), readonly,
                                   release_owner, Py_NewRef(o));
  if (!st) {
    Py_DECREF(o);
    tl_py_raise();
    goto done;
  }
  t->storage = st;
  r = 1;
done:
  Py_DECREF(ai);
  return r;
}

/* from_dlpack(ext_tensor, *, device=None, copy=None) */
PyObject *tl_py_impl_from_dlpack(const char *name, const tl_py_args_from_dlpack *a)
{
  (void)name;
  PyObject *x = a->ext_tensor;
  int copy = a->has_copy ? a->copy : -1;
  tl_device device = a->has_device ? a->device : tl_device_cpu();
  if (device.type != TL_DEVICE_CPU && device.type != TL_DEVICE_CUDA) {
    char buf[32];
    return PyErr_Format(PyExc_BufferError, "from_dlpack: can't place the result on %s: only "
                                           "the cpu and cuda are supported",
                        tl_device_str(buf, sizeof buf, device));
  }
  if (!PyCapsule_CheckExact(x) && !PyObject_HasAttrString(x, "__dlpack__")) {
    tl_tensor t; /* Numba's arrays have only __cuda_array_interface__ */
    int got = tl_py_from_cuda_array_interface(x, &t);
    if (got < 0)
      return NULL;
    if (got > 0)
      return tl_py_tensor_from(&t);
  }
  PyObject *cap = PyCapsule_CheckExact(x) ? Py_NewRef(x) : request_capsule(x, copy);
  if (!cap)
    return NULL;
  tl_tensor t;
  bool copied;
  int r = import_capsule(cap, &t, &copied);
  Py_DECREF(cap);
  if (r < 0)
    return NULL;
  if (a->has_device && !tl_device_eq(device, tl_tensor_device(&t))) {
    char want[32], have[32];
    tl_device_str(have, sizeof have, tl_tensor_device(&t));
    tl_tensor_release(&t);
    return PyErr_Format(PyExc_BufferError, "from_dlpack: the data is on %s, and device=%s would "
                        "need a copy between devices; use .to() on the result", have,
                        tl_device_str(want, sizeof want, device));
  }
  if (copy == 1 && !copied) {
    tl_tensor c;
    tl_status status = tl_tensor_to_dtype(&c, &t, t.dtype);
    tl_tensor_release(&t);
    if (status != TL_OK)
      return tl_py_raise();
    t = c;
  }
  return tl_py_tensor_from(&t);
}

PyMethodDef tl_py_dlpack_methods[] = {
    {"__dlpack__", (PyCFunction)(void (*)(void))tensor_dlpack, METH_VARARGS | METH_KEYWORDS,
     "DLPack capsule viewing this tensor (versioned when max_version >= (1, 0))"},
    {"__dlpack_device__", tensor_dlpack_device, METH_NOARGS,
     "(DLPack device type, device id) of this tensor's memory"},
    {NULL, NULL, 0, NULL},
};
