/* py_cuda_runtime.c - torchlike._C's CUDA runtime functions, over
 * src/gpu/runtime (streams, events, devices).  Streams and events travel as
 * ints (their cudaStream_t / cudaEvent_t handles, 0 the default stream), as
 * PyTorch's Stream.cuda_stream does; torchlike/cuda/streams.py wraps them in
 * Stream and Event objects.  Every function raises RuntimeError without a
 * GPU (tl_gpu_runtime.h says which message).                               */
#include "gpu/runtime/tl_gpu_runtime.h"
#include "gpu/tl_gpu_handles.h"
#include "ndcore/bindings/py_tensor.h"

#include <string.h>

static int handle_arg(PyObject *o, void **h)
{
  if (o == Py_None) {
    *h = NULL;
    return 0;
  }
  uintptr_t v = (uintptr_t)PyLong_AsUnsignedLongLong(o);
  if (v == (uintptr_t)-1 && PyErr_Occurred())
    return -1;
  *h = (void *)v;
  return 0;
}

/* An int argument (a device index); -1 with an exception on failure. */
static int int_arg(PyObject *o, int *v)
{
  long x = PyLong_AsLong(o);
  if (x == -1 && PyErr_Occurred())
    return -1;
  if (x < INT32_MIN || x > INT32_MAX) {
    PyErr_Format(PyExc_OverflowError, "device index %ld is out of range", x);
    return -1;
  }
  *v = (int)x;
  return 0;
}

static PyObject *handle_obj(void *h) { return PyLong_FromUnsignedLongLong((uintptr_t)h); }

static PyObject *done_or_raise(tl_status s) { return s == TL_OK ? Py_NewRef(Py_None) : tl_py_raise(); }

static PyObject *py_compiled(PyObject *self, PyObject *unused)
{
  (void)self, (void)unused;
  return PyBool_FromLong(tl_gpu_compiled());
}

/* The CUDA architectures the build compiled for, as CMake lists them ("90",
 * "80 90-real" ...): "" for a build without CUDA. */
#ifndef TL_CUDA_ARCHS
#define TL_CUDA_ARCHS ""
#endif
static PyObject *py_arch_text(PyObject *self, PyObject *unused)
{
  (void)self, (void)unused;
  return PyUnicode_FromString(TL_CUDA_ARCHS);
}

static PyObject *py_current_device(PyObject *self, PyObject *unused)
{
  (void)self, (void)unused;
  return PyLong_FromLong(tl_gpu_current_device());
}

static PyObject *py_set_device(PyObject *self, PyObject *arg)
{
  (void)self;
  int d;
  if (int_arg(arg, &d) < 0)
    return NULL;
  return done_or_raise(tl_gpu_set_device(d));
}

/* _cuda_current_stream(device) -> handle */
static PyObject *py_current_stream(PyObject *self, PyObject *arg)
{
  (void)self;
  int d;
  if (int_arg(arg, &d) < 0)
    return NULL;
  return handle_obj(tl_gpu_current_stream(d));
}

/* _cuda_set_stream(device, handle) */
static PyObject *py_set_stream(PyObject *self, PyObject *args)
{
  (void)self;
  int d;
  PyObject *h;
  void *s;
  if (!PyArg_ParseTuple(args, "iO:_cuda_set_stream", &d, &h) || handle_arg(h, &s) < 0)
    return NULL;
  return done_or_raise(tl_gpu_set_current_stream(d, s));
}

/* _cuda_stream_create(device, priority) -> handle */
static PyObject *py_stream_create(PyObject *self, PyObject *args)
{
  (void)self;
  int d, priority;
  void *s;
  if (!PyArg_ParseTuple(args, "ii:_cuda_stream_create", &d, &priority))
    return NULL;
  return tl_gpu_stream_create(d, priority, &s) == TL_OK ? handle_obj(s) : tl_py_raise();
}

static PyObject *py_stream_destroy(PyObject *self, PyObject *args)
{
  (void)self;
  int d;
  PyObject *h;
  void *s;
  if (!PyArg_ParseTuple(args, "iO:_cuda_stream_destroy", &d, &h) || handle_arg(h, &s) < 0)
    return NULL;
  return done_or_raise(tl_gpu_stream_destroy(d, s));
}

/* One handle in, a status or a flag out: the bodies of the small wrappers. */
typedef tl_status (*flag_fn)(void *, bool *);
typedef tl_status (*plain_fn)(void *);

static PyObject *with_flag(PyObject *arg, flag_fn f)
{
  void *h;
  bool done;
  tl_status s;
  if (handle_arg(arg, &h) < 0)
    return NULL;
  Py_BEGIN_ALLOW_THREADS;
  s = f(h, &done);
  Py_END_ALLOW_THREADS;
  return s == TL_OK ? PyBool_FromLong(done) : tl_py_raise();
}

static PyObject *with_plain(PyObject *arg, plain_fn f)
{
  void *h;
  tl_status s;
  if (handle_arg(arg, &h) < 0)
    return NULL;
  Py_BEGIN_ALLOW_THREADS; /* synchronize may wait a long time */
  s = f(h);
  Py_END_ALLOW_THREADS;
  return done_or_raise(s);
}

/* A stream's calls name its device too: handle 0 is a device's default
 * stream, which only the device tells apart (tl_gpu_runtime.h). */

/* _cuda_stream_query(device, stream) -> bool */
static PyObject *py_stream_query(PyObject *self, PyObject *args)
{
  (void)self;
  int d;
  PyObject *h;
  void *s;
  bool done;
  tl_status st;
  if (!PyArg_ParseTuple(args, "iO:_cuda_stream_query", &d, &h) || handle_arg(h, &s) < 0)
    return NULL;
  Py_BEGIN_ALLOW_THREADS;
  st = tl_gpu_stream_query(d, s, &done);
  Py_END_ALLOW_THREADS;
  return st == TL_OK ? PyBool_FromLong(done) : tl_py_raise();
}

/* _cuda_stream_synchronize(device, stream) */
static PyObject *py_stream_synchronize(PyObject *self, PyObject *args)
{
  (void)self;
  int d;
  PyObject *h;
  void *s;
  tl_status st;
  if (!PyArg_ParseTuple(args, "iO:_cuda_stream_synchronize", &d, &h) || handle_arg(h, &s) < 0)
    return NULL;
  Py_BEGIN_ALLOW_THREADS; /* it may wait a long time */
  st = tl_gpu_stream_synchronize(d, s);
  Py_END_ALLOW_THREADS;
  return done_or_raise(st);
}

static PyObject *py_event_query(PyObject *self, PyObject *arg)
{
  (void)self;
  return with_flag(arg, tl_gpu_event_query);
}

static PyObject *py_event_synchronize(PyObject *self, PyObject *arg)
{
  (void)self;
  return with_plain(arg, tl_gpu_event_synchronize);
}

/* Two handles: a success flag (borrowed None) or NULL. */
static PyObject *two_handles(PyObject *args, const char *fmt, void **a, void **b)
{
  PyObject *x, *y;
  if (!PyArg_ParseTuple(args, fmt, &x, &y) || handle_arg(x, a) < 0 || handle_arg(y, b) < 0)
    return NULL;
  return Py_None; /* borrowed: only a success flag */
}

/* A device and two handles, as two_handles. */
static PyObject *device_two_handles(PyObject *args, const char *fmt, int *d, void **a, void **b)
{
  PyObject *x, *y;
  if (!PyArg_ParseTuple(args, fmt, d, &x, &y) || handle_arg(x, a) < 0 || handle_arg(y, b) < 0)
    return NULL;
  return Py_None;
}

/* _cuda_stream_wait_event(device, stream, event): device is the stream's */
static PyObject *py_stream_wait_event(PyObject *self, PyObject *args)
{
  (void)self;
  int d;
  void *s, *e;
  if (!device_two_handles(args, "iOO:_cuda_stream_wait_event", &d, &s, &e))
    return NULL;
  return done_or_raise(tl_gpu_stream_wait_event(d, s, e));
}

/* _cuda_event_record(device, event, stream): device is the stream's and the event's */
static PyObject *py_event_record(PyObject *self, PyObject *args)
{
  (void)self;
  int d;
  void *e, *s;
  if (!device_two_handles(args, "iOO:_cuda_event_record", &d, &e, &s))
    return NULL;
  return done_or_raise(tl_gpu_event_record(d, e, s));
}

static PyObject *py_event_elapsed(PyObject *self, PyObject *args)
{
  (void)self;
  void *a, *b;
  float ms;
  if (!two_handles(args, "OO:_cuda_event_elapsed", &a, &b))
    return NULL;
  return tl_gpu_event_elapsed(a, b, &ms) == TL_OK ? PyFloat_FromDouble(ms) : tl_py_raise();
}

static PyObject *py_priority_range(PyObject *self, PyObject *unused)
{
  (void)self, (void)unused;
  int least, greatest;
  if (tl_gpu_stream_priority_range(&least, &greatest) != TL_OK)
    return tl_py_raise();
  return Py_BuildValue("(ii)", least, greatest);
}

/* _cuda_event_create(device, enable_timing, blocking, interprocess) -> handle */
static PyObject *py_event_create(PyObject *self, PyObject *args)
{
  (void)self;
  int d, timing, blocking, interprocess;
  void *e;
  if (!PyArg_ParseTuple(args, "ippp:_cuda_event_create", &d, &timing, &blocking, &interprocess))
    return NULL;
  if (tl_gpu_event_create(d, timing, blocking, interprocess, &e) != TL_OK)
    return tl_py_raise();
  return handle_obj(e);
}

static PyObject *py_event_destroy(PyObject *self, PyObject *arg)
{
  (void)self;
  void *e;
  if (handle_arg(arg, &e) < 0)
    return NULL;
  tl_gpu_event_destroy(e);
  Py_RETURN_NONE;
}

static PyObject *py_synchronize(PyObject *self, PyObject *arg)
{
  (void)self;
  int d;
  tl_status s;
  if (int_arg(arg, &d) < 0)
    return NULL;
  Py_BEGIN_ALLOW_THREADS;
  s = tl_gpu_device_synchronize(d);
  Py_END_ALLOW_THREADS;
  return done_or_raise(s);
}

static PyObject *py_properties(PyObject *self, PyObject *arg)
{
  (void)self;
  tl_gpu_properties p;
  int d;
  if (int_arg(arg, &d) < 0)
    return NULL;
  if (tl_gpu_device_properties(d, &p) != TL_OK)
    return tl_py_raise();
  return Py_BuildValue("{s:s,s:K,s:i,s:i,s:i,s:i,s:i,s:i,s:i,s:K,s:s}", "name", p.name,
                       "total_memory", (unsigned long long)p.total_memory, "major", p.major,
                       "minor", p.minor, "multi_processor_count", p.multi_processor_count,
                       "is_integrated", p.is_integrated, "is_multi_gpu_board",
                       p.is_multi_gpu_board, "warp_size", p.warp_size,
                       "max_threads_per_multi_processor", p.max_threads_per_multi_processor,
                       "L2_cache_size", (unsigned long long)p.l2_cache_size, "uuid", p.uuid);
}

/* _cuda_can_access_peer(device, peer) -> bool */
static PyObject *py_can_access_peer(PyObject *self, PyObject *args)
{
  (void)self;
  int d, peer;
  bool can;
  if (!PyArg_ParseTuple(args, "ii:_cuda_can_access_peer", &d, &peer))
    return NULL;
  if (tl_gpu_can_access_peer(d, peer, &can) != TL_OK)
    return tl_py_raise();
  return PyBool_FromLong(can);
}

/* _tensor_record_stream(tensor, handle): the fake device's streams are the
 * ints its tests use; CUDA's are cudaStream_t handles. */
static PyObject *py_record_stream(PyObject *self, PyObject *args)
{
  (void)self;
  PyObject *t, *h;
  void *s;
  if (!PyArg_ParseTuple(args, "O!O:_tensor_record_stream", tl_py_tensor_type, &t, &h) ||
      handle_arg(h, &s) < 0)
    return NULL;
  tl_storage *st = tl_py_t(t)->storage;
  if (st->device.type == TL_DEVICE_CPU)
    return PyErr_Format(PyExc_RuntimeError, "record_stream: expected a tensor on a device with "
                        "streams (cuda), got one on cpu");
  return done_or_raise(tl_storage_record_stream(st, s));
}

/* Test hooks of the library handles' pool (tl_gpu_handles.h), which holds
 * no library handle here and so runs without a GPU:
 *   _gpu_test_handle(device) -> the calling thread's TL_GPU_HANDLE_TEST
 *       handle of the device, as an int: its own, else one an exited thread
 *       gave back, else a new one (numbered from 1, as made).
 *   _gpu_handle_counts(kind, device) -> (held by live threads, free);
 *       kind: "cublas", "cusolver", "cudnn" or "test". */
static const char *const handle_kind_names[TL_GPU_HANDLE_KIND_COUNT] = {
    [TL_GPU_HANDLE_CUBLAS] = "cublas",
    [TL_GPU_HANDLE_CUSOLVER] = "cusolver",
    [TL_GPU_HANDLE_CUDNN] = "cudnn",
    [TL_GPU_HANDLE_TEST] = "test",
};

static int handle_device_arg(PyObject *o, int *device)
{
  if (int_arg(o, device) < 0)
    return -1;
  if (*device < 0 || *device >= TL_GPU_HANDLE_MAX_DEVICES) {
    PyErr_Format(PyExc_ValueError, "device %d is out of range [0, %d)", *device,
                 (int)TL_GPU_HANDLE_MAX_DEVICES);
    return -1;
  }
  return 0;
}

static PyObject *py_test_handle(PyObject *self, PyObject *arg)
{
  (void)self;
  static uintptr_t made; /* under the GIL */
  int device;
  if (handle_device_arg(arg, &device) < 0)
    return NULL;
  void *h = tl_gpu_handle_get(TL_GPU_HANDLE_TEST, device);
  if (!h) {
    h = (void *)++made;
    if (tl_gpu_handle_adopt(TL_GPU_HANDLE_TEST, device, h) != TL_OK)
      return tl_py_raise();
  }
  return PyLong_FromUnsignedLongLong((unsigned long long)(uintptr_t)h);
}

static PyObject *py_handle_counts(PyObject *self, PyObject *args)
{
  (void)self;
  const char *name;
  PyObject *dev;
  int device, in_use, free_count;
  if (!PyArg_ParseTuple(args, "sO:_gpu_handle_counts", &name, &dev) ||
      handle_device_arg(dev, &device) < 0)
    return NULL;
  for (int k = 0; k < TL_GPU_HANDLE_KIND_COUNT; k++)
    if (!strcmp(name, handle_kind_names[k])) {
      tl_gpu_handle_counts((tl_gpu_handle_kind)k, device, &in_use, &free_count);
      return Py_BuildValue("(ii)", in_use, free_count);
    }
  return PyErr_Format(PyExc_ValueError, "_gpu_handle_counts: no handle kind '%s' (cublas, "
                      "cusolver, cudnn or test)", name);
}

PyMethodDef tl_py_cuda_runtime_functions[] = {
    {"_gpu_test_handle", py_test_handle, METH_O, NULL},
    {"_gpu_handle_counts", py_handle_counts, METH_VARARGS, NULL},
    {"_cuda_compiled", py_compiled, METH_NOARGS, NULL},
    {"_cuda_arch_text", py_arch_text, METH_NOARGS, NULL},
    {"_cuda_current_device", py_current_device, METH_NOARGS, NULL},
    {"_cuda_set_device", py_set_device, METH_O, NULL},
    {"_cuda_current_stream", py_current_stream, METH_O, NULL},
    {"_cuda_set_stream", py_set_stream, METH_VARARGS, NULL},
    {"_cuda_stream_create", py_stream_create, METH_VARARGS, NULL},
    {"_cuda_stream_destroy", py_stream_destroy, METH_VARARGS, NULL},
    {"_cuda_stream_query", py_stream_query, METH_VARARGS, NULL},
    {"_cuda_stream_synchronize", py_stream_synchronize, METH_VARARGS, NULL},
    {"_cuda_stream_wait_event", py_stream_wait_event, METH_VARARGS, NULL},
    {"_cuda_stream_priority_range", py_priority_range, METH_NOARGS, NULL},
    {"_cuda_event_create", py_event_create, METH_VARARGS, NULL},
    {"_cuda_event_destroy", py_event_destroy, METH_O, NULL},
    {"_cuda_event_record", py_event_record, METH_VARARGS, NULL},
    {"_cuda_event_query", py_event_query, METH_O, NULL},
    {"_cuda_event_synchronize", py_event_synchronize, METH_O, NULL},
    {"_cuda_event_elapsed", py_event_elapsed, METH_VARARGS, NULL},
    {"_cuda_synchronize", py_synchronize, METH_O, NULL},
    {"_cuda_device_properties", py_properties, METH_O, NULL},
    {"_cuda_can_access_peer", py_can_access_peer, METH_VARARGS, NULL},
    {"_tensor_record_stream", py_record_stream, METH_VARARGS, NULL},
    {NULL, NULL, 0, NULL},
};
