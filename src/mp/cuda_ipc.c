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
 * Built only with TL_WITH_CUDA; elsewhere every call reports that CUDA IPC is
 * not available.  Not exercised on a machine without a GPU.                 */
#include <string.h>

#include "mp/tl_mp.h"

#ifdef TL_WITH_CUDA
#include <cuda_runtime_api.h>
#include <pthread.h>

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

/* An interprocess event recorded now on the device's default stream. */
static tl_status record_event(cudaIpcEventHandle_t *out)
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
  if ((err = cudaEventRecord(*slot, 0)) != cudaSuccess) {
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
  if (record_event(&event) != TL_OK)
    return tl_error_status();
  memcpy(out->mem, &mem, sizeof mem);
  memcpy(out->event, &event, sizeof event);
  out->offset = (size_t)((const char *)ptr - (const char *)alloc_base);
  return TL_OK;
}

tl_status tl_mp_cuda_handle_open(const tl_mp_cuda_handle *h, int device, void **dev_ptr)
{
  cudaIpcMemHandle_t mem;
  cudaIpcEventHandle_t event_handle;
  cudaEvent_t event = NULL;
  void *base = NULL;
  cudaError_t err;
  memcpy(&mem, h->mem, sizeof mem);
  memcpy(&event_handle, h->event, sizeof event_handle);
  if ((err = cudaSetDevice(device)) != cudaSuccess)
    return cuda_fail("cudaSetDevice", err);
  if ((err = cudaIpcOpenMemHandle(&base, mem, cudaIpcMemLazyEnablePeerAccess)) != cudaSuccess)
    return cuda_fail("cudaIpcOpenMemHandle", err);
  /* Order our later work after the producer's writes. */
  if ((err = cudaIpcOpenEventHandle(&event, event_handle)) != cudaSuccess ||
      (err = cudaStreamWaitEvent(0, event, 0)) != cudaSuccess) {
    if (event)
      cudaEventDestroy(event);
    cudaIpcCloseMemHandle(base);
    return cuda_fail("waiting on the producer's event", err);
  }
  cudaEventDestroy(event);
  *dev_ptr = (char *)base + h->offset;
  return TL_OK;
}

tl_status tl_mp_cuda_handle_close(void *dev_ptr, const tl_mp_cuda_handle *h)
{
  cudaError_t err = cudaIpcCloseMemHandle((char *)dev_ptr - h->offset);
  return err == cudaSuccess ? TL_OK : cuda_fail("cudaIpcCloseMemHandle", err);
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
#endif
