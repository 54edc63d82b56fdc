/* cuda_ipc.c - CUDA device memory across processes (see tl_mp.h).
 *
 * The producer exports its allocation with cudaIpcGetMemHandle and records
 * an interprocess event on the current stream after its last write; the
 * consumer opens the memory (cudaIpcOpenMemHandle maps the whole
 * allocation: the pointer is base + offset), makes its stream wait on the
 * event, and closes the mapping when its storage goes.  An event handle is
 * valid while the producer's event lives, so events are kept in a small ring
 * and reused oldest first, after they have completed.
 *
 * A consumer may receive several blocks of one producer segment: they share
 * its handle, which CUDA opens only once per process, so open mappings are
 * counted in a table keyed by the handle.  The producer keeps a block alive
 * while its count of holders, in shared host memory, is above zero (the
 * Python side, torchlike/multiprocessing/reductions.py, keeps that count).
 *
 * Built only with TL_WITH_CUDA; elsewhere every call reports that CUDA IPC is
 * not available.  Not exercised on a machine without a GPU.                 */
#include <stdlib.h>
#include <string.h>

#include "mp/tl_mp.h"

#ifdef TL_WITH_CUDA
#include <cuda_runtime_api.h>
#include <pthread.h>

#include "gpu/runtime/tl_gpu_runtime.h"

_Static_assert(sizeof(cudaIpcMemHandle_t) <= TL_MP_CUDA_HANDLE_BYTES, "mem handle size");
_Static_assert(sizeof(cudaIpcEventHandle_t) <= TL_MP_CUDA_HANDLE_BYTES, "event handle size");

#define TL_MP_EVENT_RING 64

static struct {
  pthread_mutex_t lock;
  cudaEvent_t events[TL_MP_EVENT_RING];
  int next;
} ring = {.lock = PTHREAD_MUTEX_INITIALIZER};

static tl_status cuda_fail(const char *what, cudaError_t err)
{
  cudaGetLastError(); /* clear it: the error is reported here */
  return tl_error_set(TL_ERR_RUNTIME, "CUDA IPC: %s failed: %s", what, cudaGetErrorString(err));
}

bool tl_mp_cuda_ipc_available(void)
{
  int n = 0;
  if (cudaGetDeviceCount(&n) != cudaSuccess) {
    cudaGetLastError();
    return false;
  }
  return n > 0;
}

/* An interprocess event recorded now on the calling thread's current
 * stream of the device (the one its writes were queued on).  Not the legacy
 * default stream: torchlike's streams are non-blocking, so an event there
 * would not wait for their work. */
static tl_status record_event(int device, cudaIpcEventHandle_t *out)
{
  tl_status status = TL_OK;
  cudaError_t err;
  pthread_mutex_lock(&ring.lock);
  cudaEvent_t *slot = &ring.events[ring.next];
  ring.next = (ring.next + 1) % TL_MP_EVENT_RING;
  if (*slot) {
    cudaEventSynchronize(*slot); /* a consumer may still wait on it: let it finish */
    cudaEventDestroy(*slot);
    *slot = NULL;
  }
  if ((err = cudaEventCreateWithFlags(slot, cudaEventDisableTiming | cudaEventInterprocess)) !=
      cudaSuccess) {
    *slot = NULL;
    status = cuda_fail("cudaEventCreateWithFlags", err);
    goto done;
  }
  if ((err = cudaEventRecord(*slot, (cudaStream_t)tl_gpu_current_stream(device))) != cudaSuccess) {
    status = cuda_fail("cudaEventRecord", err);
    goto done;
  }
  if ((err = cudaIpcGetEventHandle(out, *slot)) != cudaSuccess)
    status = cuda_fail("cudaIpcGetEventHandle", err);
done:
  pthread_mutex_unlock(&ring.lock);
  return status;
}

tl_status tl_mp_cuda_handle_get(const void *alloc_base, const void *ptr, int device,
                                tl_mp_cuda_handle *out)
{
  cudaIpcMemHandle_t mem;
  cudaIpcEventHandle_t event;
  cudaError_t err;
  memset(out, 0, sizeof *out);
  if ((err = cudaSetDevice(device)) != cudaSuccess)
    return cuda_fail("cudaSetDevice", err);
  if ((err = cudaIpcGetMemHandle(&mem, (void *)alloc_base)) != cudaSuccess)
    return cuda_fail("cudaIpcGetMemHandle", err);
  if (record_event(device, &event) != TL_OK)
    return tl_error_status();
  memcpy(out->mem, &mem, sizeof mem);
  memcpy(out->event, &event, sizeof event);
  out->offset = (size_t)((const char *)ptr - (const char *)alloc_base);
  return TL_OK;
}

/* The open mappings of this process: one per producer allocation. */
typedef struct mapping {
  unsigned char mem[TL_MP_CUDA_HANDLE_BYTES];
  void *base;
  long users;
  struct mapping *next;
} mapping;
static pthread_mutex_t mappings_lock = PTHREAD_MUTEX_INITIALIZER;
static mapping *mappings;

/* The base of the mapping of handle `mem` (opened now if it is not), one more
 * user counted.  Called with mappings_lock held. */
static tl_status mapping_take(const unsigned char *mem, void **base)
{
  for (mapping *m = mappings; m; m = m->next)
    if (!memcmp(m->mem, mem, sizeof m->mem)) {
      m->users++;
      *base = m->base;
      return TL_OK;
    }
  cudaIpcMemHandle_t handle;
  memcpy(&handle, mem, sizeof handle);
  mapping *m = calloc(1, sizeof *m);
  if (!m)
    return tl_error_set(TL_ERR_MEMORY, "CUDA IPC: out of host memory");
  cudaError_t err = cudaIpcOpenMemHandle(&m->base, handle, cudaIpcMemLazyEnablePeerAccess);
  if (err != cudaSuccess) {
    free(m);
    return cuda_fail("cudaIpcOpenMemHandle", err);
  }
  memcpy(m->mem, mem, sizeof m->mem);
  m->users = 1;
  m->next = mappings;
  mappings = m;
  *base = m->base;
  return TL_OK;
}

/* One user fewer of the mapping at `base`; the last one unmaps it. */
static tl_status mapping_drop(void *base)
{
  tl_status status = TL_OK;
  pthread_mutex_lock(&mappings_lock);
  for (mapping **p = &mappings; *p; p = &(*p)->next) {
    mapping *m = *p;
    if (m->base != base || --m->users > 0)
      continue;
    *p = m->next;
    cudaError_t err = cudaIpcCloseMemHandle(m->base);
    if (err != cudaSuccess)
      status = cuda_fail("cudaIpcCloseMemHandle", err);
    free(m);
    break;
  }
  pthread_mutex_unlock(&mappings_lock);
  return status;
}

tl_status tl_mp_cuda_handle_open(const tl_mp_cuda_handle *h, int device, void **dev_ptr)
{
  cudaIpcEventHandle_t event_handle;
  cudaEvent_t event = NULL;
  void *base = NULL;
  cudaError_t err;
  tl_status status;
  memcpy(&event_handle, h->event, sizeof event_handle);
  if ((err = cudaSetDevice(device)) != cudaSuccess)
    return cuda_fail("cudaSetDevice", err);
  pthread_mutex_lock(&mappings_lock);
  status = mapping_take(h->mem, &base);
  pthread_mutex_unlock(&mappings_lock);
  if (status != TL_OK)
    return status;
  /* Order our later work after the producer's writes: on our current stream,
   * where this thread's ops queue it (the legacy default stream would not
   * hold back a non-blocking one). */
  if ((err = cudaIpcOpenEventHandle(&event, event_handle)) != cudaSuccess ||
      (err = cudaStreamWaitEvent((cudaStream_t)tl_gpu_current_stream(device), event, 0)) !=
          cudaSuccess) {
    if (event)
      cudaEventDestroy(event);
    /* the wait's error first: a failure to unmap after it is secondary, and
     * the core keeps only the first message */
    status = cuda_fail("waiting on the producer's event", err);
    mapping_drop(base);
    return status;
  }
  cudaEventDestroy(event);
  *dev_ptr = (char *)base + h->offset;
  return TL_OK;
}

tl_status tl_mp_cuda_handle_close(void *dev_ptr, const tl_mp_cuda_handle *h)
{
  return mapping_drop((char *)dev_ptr - h->offset);
}

/* What a received storage's release needs. */
typedef struct {
  tl_mp_cuda_handle handle;
  tl_storage *holders_storage;
  int64_t *holders;
} received;

static void received_release(void *ctx, void *data)
{
  received *r = ctx;
  tl_mp_cuda_handle_close(data, &r->handle);
  tl_error_clear(); /* a release has no caller to report to */
  __atomic_sub_fetch(r->holders, 1, __ATOMIC_ACQ_REL);
  tl_storage_decref(r->holders_storage);
  free(r);
}

tl_storage *tl_mp_cuda_storage_open(const tl_mp_cuda_handle *h, int device, size_t nbytes,
                                    tl_storage *holders_storage, int64_t *holders)
{
  void *ptr = NULL;
  received *r = malloc(sizeof *r);
  if (!r) {
    tl_error_set(TL_ERR_MEMORY, "CUDA IPC: out of host memory");
    return NULL;
  }
  if (tl_mp_cuda_handle_open(h, device, &ptr) != TL_OK) {
    free(r);
    return NULL;
  }
  *r = (received){.handle = *h, .holders_storage = holders_storage, .holders = holders};
  tl_storage_incref(holders_storage);
  tl_storage *s = tl_storage_wrap(ptr, nbytes, (tl_device){TL_DEVICE_CUDA, device}, false,
                                  received_release, r);
  if (!s)
    received_release(r, ptr);
  return s;
}

#else

static tl_status no_cuda(void)
{
  return tl_error_set(TL_ERR_RUNTIME, "CUDA IPC: torchlike was built without CUDA");
}

bool tl_mp_cuda_ipc_available(void) { return false; }

tl_status tl_mp_cuda_handle_get(const void *alloc_base, const void *ptr, int device,
                                tl_mp_cuda_handle *out)
{
  (void)alloc_base, (void)ptr, (void)device;
  memset(out, 0, sizeof *out);
  return no_cuda();
}

tl_status tl_mp_cuda_handle_open(const tl_mp_cuda_handle *h, int device, void **dev_ptr)
{
  (void)h, (void)device;
  *dev_ptr = NULL;
  return no_cuda();
}

tl_status tl_mp_cuda_handle_close(void *dev_ptr, const tl_mp_cuda_handle *h)
{
  (void)dev_ptr, (void)h;
  return no_cuda();
}

tl_storage *tl_mp_cuda_storage_open(const tl_mp_cuda_handle *h, int device, size_t nbytes,
                                    tl_storage *holders_storage, int64_t *holders)
{
  (void)h, (void)device, (void)nbytes, (void)holders_storage, (void)holders;
  no_cuda();
  return NULL;
}
#endif
