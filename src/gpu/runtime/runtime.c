/* runtime.c - streams, events, devices and their per-thread currents
 * (tl_gpu_runtime.h).  Thin wrappers over the CUDA runtime that turn its
 * errors into the core's; the Python objects (torchlike.cuda.Stream, Event)
 * hold the handles and call these through py_cuda_runtime.c.               */
#include "gpu/runtime/tl_gpu_runtime.h"

#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "gpu/tl_gpu.h"
#include "ndcore/tensor/tl_backend.h"

#define TL_GPU_MAX_DEVICES 16 /* backend_cuda.c's bound too */

static _Thread_local int current_device;
/* The current stream of each device, per thread as in PyTorch (NULL: the
 * legacy default stream). */
static _Thread_local void *current_streams[TL_GPU_MAX_DEVICES];

/* TL_OK when device names a GPU this process sees, else a RuntimeError
 * saying why not (no CUDA in the build, no GPU, or an index past them). */
static tl_status check_device(int device)
{
  int n = tl_gpu_device_count();
  if (!tl_gpu_compiled())
    return tl_error_set(TL_ERR_RUNTIME, "torchlike was not compiled with CUDA enabled");
  if (n == 0)
    return tl_error_set(TL_ERR_RUNTIME, "No CUDA GPUs are available");
  if (device < 0 || device >= n || device >= TL_GPU_MAX_DEVICES)
    return tl_error_set(TL_ERR_RUNTIME, "CUDA error: invalid device ordinal (device %d; this "
                        "process sees %d)", device, n);
  return TL_OK;
}

int tl_gpu_current_device(void) { return current_device; }

static tl_status runtime_set_device(int device);
/* The caller's runtime device, saved when an op of this thread first made
 * another current (tl_gpu_device_enter); -1: nothing to restore. */
static _Thread_local int guard_saved = -1;

/* The thread's current device, and the CUDA runtime's too (as PyTorch's
 * set_device): code that asks the runtime (CuPy, Numba, a cudaMalloc of
 * an extension) sees the device chosen here, not that of torchlike's last
 * launch.  The CUDA backend is set up first, as on its first use. */
tl_status tl_gpu_set_device(int device)
{
  if (check_device(device) != TL_OK || runtime_set_device(device) != TL_OK)
    return tl_error_status();
  current_device = device;
  guard_saved = -1; /* the caller's device is now this one */
  return TL_OK;
}

void *tl_gpu_current_stream(int device)
{
  return device >= 0 && device < TL_GPU_MAX_DEVICES ? current_streams[device] : NULL;
}

tl_status tl_gpu_set_current_stream(int device, void *stream)
{
  if (check_device(device) != TL_OK)
    return tl_error_status();
  current_streams[device] = stream;
  return TL_OK;
}

tl_status tl_storage_record_stream(tl_storage *s, void *stream)
{
  if (!s->block || !s->backend->pool)
    return TL_OK; /* not from a pool: nothing is reused early */
  return tl_alloc_pool_record_stream(s->backend->pool(s->device), s->block, stream);
}

#ifdef TL_WITH_CUDA
#include <cuda_runtime_api.h>

#include "gpu/tl_device_errors.h"

bool tl_gpu_compiled(void) { return true; }

static tl_status check(cudaError_t err, const char *what)
{
  if (err == cudaSuccess)
    return TL_OK;
  cudaGetLastError(); /* clear it so the next call does not see it */
  return tl_error_set(TL_ERR_RUNTIME, "CUDA error in %s: %s", what, cudaGetErrorString(err));
}

static tl_status runtime_set_device(int device)
{
  const tl_backend *b = tl_backend_get((tl_device){TL_DEVICE_CUDA, device}); /* lazy set-up */
  return b ? check(cudaSetDevice(device), "cudaSetDevice") : tl_error_status();
}

/* ---- device guards ------------------------------------------------------------------ */

tl_status tl_gpu_device_guard_enter(int device, int *prev)
{
  cudaError_t err = cudaGetDevice(prev);
  if (err != cudaSuccess) {
    cudaGetLastError();
    *prev = -1;
  }
  if (*prev == device)
    return TL_OK;
  return check(cudaSetDevice(device), "cudaSetDevice");
}

void tl_gpu_device_guard_leave(int device, int prev)
{
  if (prev >= 0 && prev != device && cudaSetDevice(prev) != cudaSuccess)
    cudaGetLastError();
}

tl_status tl_gpu_device_enter(int device, const char *what)
{
  int cur = -1;
  if (cudaGetDevice(&cur) != cudaSuccess) {
    cudaGetLastError();
    cur = -1;
  }
  if (cur == device)
    return TL_OK;
  if (guard_saved < 0)
    guard_saved = cur; /* the first switch of this op: the caller's device */
  cudaError_t err = cudaSetDevice(device);
  if (err == cudaSuccess)
    return TL_OK;
  cudaGetLastError();
  return tl_error_set(TL_ERR_RUNTIME, "CUDA error in %s(): %s", what, cudaGetErrorString(err));
}

void tl_gpu_device_restore(void)
{
  int saved = guard_saved;
  if (saved < 0)
    return; /* the one branch of an op that switched nothing */
  guard_saved = -1;
  int cur = -1;
  if (cudaGetDevice(&cur) == cudaSuccess && cur == saved)
    return;
  if (cudaSetDevice(saved) != cudaSuccess)
    cudaGetLastError();
}

tl_status tl_gpu_stream_create(int device, int priority, void **stream)
{
  cudaStream_t s = NULL;
  int prev = -1;
  tl_status status = check_device(device);
  if (status == TL_OK && (status = tl_gpu_device_guard_enter(device, &prev)) == TL_OK) {
    status = check(cudaStreamCreateWithPriority(&s, cudaStreamNonBlocking, priority),
                   "cudaStreamCreateWithPriority");
    tl_gpu_device_guard_leave(device, prev);
  }
  if (status != TL_OK)
    return status;
  *stream = s;
  return TL_OK;
}

/* A stream's calls run with its device current: the NULL handle (a
 * device's default stream) means the legacy stream of the runtime's current
 * device, which is not always the one the stream belongs to.  The caller's
 * device is restored after (tl_gpu_device_guard_enter/leave), as the pool's
 * callbacks do (backend_cuda.c). */
static tl_status enter_device(int device, int *prev)
{
  *prev = -1;
  if (check_device(device) != TL_OK)
    return tl_error_status();
  return tl_gpu_device_guard_enter(device, prev);
}

static void leave_device(int device, int prev) { tl_gpu_device_guard_leave(device, prev); }

tl_status tl_gpu_stream_destroy(int device, void *stream)
{
  if (!stream)
    return TL_OK;
  int prev;
  if (enter_device(device, &prev) != TL_OK)
    return tl_error_status();
  for (int d = 0; d < TL_GPU_MAX_DEVICES; d++) /* this thread stops using it */
    if (current_streams[d] == stream)
      current_streams[d] = NULL;
  /* its recording launches may still be queued: a whole-device check takes them */
  tl_device_errors_stream_retire((tl_device){TL_DEVICE_CUDA, device}, stream);
  tl_status status = check(cudaStreamDestroy((cudaStream_t)stream), "cudaStreamDestroy");
  leave_device(device, prev);
  return status;
}

tl_status tl_gpu_stream_query(int device, void *stream, bool *done)
{
  int prev;
  *done = false;
  if (enter_device(device, &prev) != TL_OK)
    return tl_error_status();
  cudaError_t err = cudaStreamQuery((cudaStream_t)stream);
  leave_device(device, prev);
  *done = err == cudaSuccess;
  if (err == cudaErrorNotReady) {
    cudaGetLastError();
    return TL_OK;
  }
  return check(err, "cudaStreamQuery");
}

tl_status tl_gpu_stream_synchronize(int device, void *stream)
{
  int prev;
  if (enter_device(device, &prev) != TL_OK)
    return tl_error_status();
  /* A synchronization point for this stream's recorded errors: the record
   * is read only when no other stream may still record (device_errors.c). */
  cudaError_t err = cudaStreamSynchronize((cudaStream_t)stream);
  tl_status status = check(err, "cudaStreamSynchronize");
  if (status == TL_OK)
    status = tl_device_errors_check_stream((tl_device){TL_DEVICE_CUDA, device}, stream);
  leave_device(device, prev);
  return status;
}

tl_status tl_gpu_stream_wait_event(int device, void *stream, void *event)
{
  int prev;
  if (enter_device(device, &prev) != TL_OK)
    return tl_error_status();
  cudaError_t err = cudaStreamWaitEvent((cudaStream_t)stream, (cudaEvent_t)event, 0);
  leave_device(device, prev);
  return check(err, "cudaStreamWaitEvent");
}

tl_status tl_gpu_stream_priority_range(int *least, int *greatest)
{
  int prev;
  *least = *greatest = 0;
  if (enter_device(current_device, &prev) != TL_OK)
    return tl_error_status();
  tl_status status = check(cudaDeviceGetStreamPriorityRange(least, greatest),
                           "cudaDeviceGetStreamPriorityRange");
  leave_device(current_device, prev);
  return status;
}

tl_status tl_gpu_event_create(int device, bool timing, bool blocking, bool interprocess,
                              void **event)
{
  unsigned flags = (timing ? 0 : cudaEventDisableTiming) | (blocking ? cudaEventBlockingSync : 0) |
                   (interprocess ? cudaEventInterprocess : 0);
  cudaEvent_t e = NULL;
  int prev;
  if (enter_device(device, &prev) != TL_OK)
    return tl_error_status();
  tl_status status = check(cudaEventCreateWithFlags(&e, flags), "cudaEventCreateWithFlags");
  leave_device(device, prev);
  if (status != TL_OK)
    return status;
  *event = e;
  return TL_OK;
}

void tl_gpu_event_destroy(void *event)
{
  if (event)
    cudaEventDestroy((cudaEvent_t)event);
}

tl_status tl_gpu_event_record(int device, void *event, void *stream)
{
  int prev;
  if (enter_device(device, &prev) != TL_OK)
    return tl_error_status();
  cudaError_t err = cudaEventRecord((cudaEvent_t)event, (cudaStream_t)stream);
  leave_device(device, prev);
  return check(err, "cudaEventRecord");
}

tl_status tl_gpu_event_query(void *event, bool *done)
{
  cudaError_t err = cudaEventQuery((cudaEvent_t)event);
  *done = err == cudaSuccess;
  if (err == cudaErrorNotReady) {
    cudaGetLastError();
    return TL_OK;
  }
  return check(err, "cudaEventQuery");
}

tl_status tl_gpu_event_synchronize(void *event)
{
  return check(cudaEventSynchronize((cudaEvent_t)event), "cudaEventSynchronize");
}

tl_status tl_gpu_event_elapsed(void *start, void *end, float *ms)
{
  return check(cudaEventElapsedTime(ms, (cudaEvent_t)start, (cudaEvent_t)end),
               "cudaEventElapsedTime");
}

tl_status tl_gpu_stream_order(int device, void *waiter, void *producer)
{
  void *event = NULL;
  if (waiter == producer)
    return TL_OK;
  tl_status s = tl_gpu_event_create(device, false, false, false, &event);
  if (s == TL_OK && (s = tl_gpu_event_record(device, event, producer)) == TL_OK)
    s = tl_gpu_stream_wait_event(device, waiter, event);
  tl_gpu_event_destroy(event); /* released once the wait no longer needs it */
  return s;
}

tl_status tl_gpu_pointer_device(const void *ptr, int *device)
{
  struct cudaPointerAttributes a;
  if (check_device(0) != TL_OK)
    return tl_error_status();
  if (cudaPointerGetAttributes(&a, ptr) != cudaSuccess) {
    cudaGetLastError();
    return tl_error_set(TL_ERR_VALUE, "the pointer %p is not known to CUDA", ptr);
  }
  if (a.type != cudaMemoryTypeDevice && a.type != cudaMemoryTypeManaged)
    return tl_error_set(TL_ERR_VALUE, "the pointer %p is not device memory", ptr);
  *device = a.device;
  return check_device(a.device);
}

/* A wait for the whole device is a synchronization point: a bad index an
 * earlier kernel recorded is raised here (device_errors.c), as by the
 * backend's synchronize.  (A stream's synchronize is one for that stream's
 * recording launches, tl_gpu_stream_synchronize.) */
tl_status tl_gpu_device_synchronize(int device)
{
  int prev;
  if (enter_device(device, &prev) != TL_OK)
    return tl_error_status();
  tl_status status = check(cudaDeviceSynchronize(), "cudaDeviceSynchronize");
  if (status == TL_OK)
    status = tl_device_errors_check((tl_device){TL_DEVICE_CUDA, device});
  leave_device(device, prev);
  return status;
}

tl_status tl_gpu_can_access_peer(int device, int peer, bool *can)
{
  int v = 0;
  *can = false;
  if (check_device(device) != TL_OK || check_device(peer) != TL_OK ||
      check(cudaDeviceCanAccessPeer(&v, device, peer), "cudaDeviceCanAccessPeer") != TL_OK)
    return tl_error_status();
  *can = v != 0;
  return TL_OK;
}

tl_status tl_gpu_device_properties(int device, tl_gpu_properties *p)
{
  struct cudaDeviceProp prop;
  memset(p, 0, sizeof *p);
  if (check_device(device) != TL_OK ||
      check(cudaGetDeviceProperties(&prop, device), "cudaGetDeviceProperties") != TL_OK)
    return tl_error_status();
  snprintf(p->name, sizeof p->name, "%s", prop.name);
  p->total_memory = prop.totalGlobalMem;
  p->major = prop.major;
  p->minor = prop.minor;
  p->multi_processor_count = prop.multiProcessorCount;
  p->is_integrated = prop.integrated;
  p->is_multi_gpu_board = prop.isMultiGpuBoard;
  p->warp_size = prop.warpSize;
  p->max_threads_per_multi_processor = prop.maxThreadsPerMultiProcessor;
  p->l2_cache_size = (size_t)prop.l2CacheSize;
  const unsigned char *u = (const unsigned char *)prop.uuid.bytes;
  char *o = p->uuid + sprintf(p->uuid, "GPU-");
  for (int i = 0; i < 16; i++)
    o += sprintf(o, "%s%02x", i == 4 || i == 6 || i == 8 || i == 10 ? "-" : "", u[i]);
  return TL_OK;
}

#else /* no CUDA in the build: check_device says so */

bool tl_gpu_compiled(void) { return false; }

tl_status tl_gpu_device_guard_enter(int device, int *prev)
{
  *prev = -1;
  return check_device(device);
}
void tl_gpu_device_guard_leave(int device, int prev)
{
  (void)device;
  (void)prev;
}
tl_status tl_gpu_device_enter(int device, const char *what)
{
  (void)what;
  return check_device(device);
}
void tl_gpu_device_restore(void) { (void)guard_saved; }

static tl_status runtime_set_device(int device) { return check_device(device); }

tl_status tl_gpu_stream_create(int device, int priority, void **stream)
{
  (void)priority;
  *stream = NULL;
  return check_device(device);
}
tl_status tl_gpu_stream_destroy(int device, void *stream)
{
  (void)stream;
  return check_device(device);
}
tl_status tl_gpu_stream_query(int device, void *stream, bool *done)
{
  (void)stream;
  *done = true;
  return check_device(device);
}
tl_status tl_gpu_stream_synchronize(int device, void *stream)
{
  (void)stream;
  return check_device(device);
}
tl_status tl_gpu_stream_wait_event(int device, void *stream, void *event)
{
  (void)stream, (void)event;
  return check_device(device);
}
tl_status tl_gpu_stream_priority_range(int *least, int *greatest)
{
  *least = *greatest = 0;
  return check_device(0);
}
tl_status tl_gpu_event_create(int device, bool timing, bool blocking, bool interprocess,
                              void **event)
{
  (void)timing, (void)blocking, (void)interprocess;
  *event = NULL;
  return check_device(device);
}
void tl_gpu_event_destroy(void *event) { (void)event; }
tl_status tl_gpu_event_record(int device, void *event, void *stream)
{
  (void)event, (void)stream;
  return check_device(device);
}
tl_status tl_gpu_event_query(void *event, bool *done)
{
  (void)event;
  *done = true;
  return check_device(0);
}
tl_status tl_gpu_event_synchronize(void *event)
{
  (void)event;
  return check_device(0);
}
tl_status tl_gpu_event_elapsed(void *start, void *end, float *ms)
{
  (void)start, (void)end;
  *ms = 0;
  return check_device(0);
}
tl_status tl_gpu_stream_order(int device, void *waiter, void *producer)
{
  (void)waiter, (void)producer;
  return check_device(device);
}
tl_status tl_gpu_pointer_device(const void *ptr, int *device)
{
  (void)ptr;
  *device = 0;
  return check_device(0);
}
tl_status tl_gpu_device_synchronize(int device) { return check_device(device); }
tl_status tl_gpu_device_properties(int device, tl_gpu_properties *p)
{
  memset(p, 0, sizeof *p);
  return check_device(device);
}
tl_status tl_gpu_can_access_peer(int device, int peer, bool *can)
{
  (void)peer;
  *can = false;
  return check_device(device);
}
#endif
