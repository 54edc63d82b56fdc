/* cublas_handle.c - the cuBLAS and cuSOLVER handles of the calling thread
 * on a device (tl_gpu_handles.h: per (thread, device), made on first use,
 * reused from exited threads), bound to the caller's stream on every call
 * (tl_gpu_cublas.h); the TF32 switch of float32 GEMMs.
 *
 * cuBLAS wants a workspace per stream it runs on (two streams sharing one
 * would race), so each (device, stream) pair gets its own block from the
 * caching allocator the first time, kept for the process: a handful of
 * streams in practice.  Handles of several threads share a stream's block,
 * which the stream's order serialises.  Past the table's size a stream runs
 * with cuBLAS's own default workspace.                                     */
#include "gpu/tl_gpu.h"

#include <stdatomic.h>

static atomic_bool allow_tf32; /* false, as PyTorch's default */

bool tl_gpu_matmul_allow_tf32(void) { return atomic_load(&allow_tf32); }
void tl_gpu_set_matmul_allow_tf32(bool allow) { atomic_store(&allow_tf32, allow); }

#ifdef TL_WITH_CUDA
#include <pthread.h>

#include <cuda_runtime_api.h>

#include "gpu/linalg/tl_gpu_cublas.h"
#include "gpu/tl_gpu_handles.h"
#include "ndcore/tensor/tl_backend.h"

enum { MAX_DEVICES = TL_GPU_HANDLE_MAX_DEVICES, MAX_STREAMS = 16 };
/* 4 MiB for pre-Hopper parts, 32 MiB for Hopper, as NVIDIA's cuBLAS guide
 * recommends; one size for all keeps it simple. */
static const size_t WORKSPACE_BYTES = (size_t)32 << 20;

/* The workspaces of a device's streams; any thread reads and grows them,
 * under the lock. */
typedef struct {
  int nstreams;
  void *streams[MAX_STREAMS];
  tl_storage *workspaces[MAX_STREAMS];
} device_workspaces;

static pthread_mutex_t workspace_lock = PTHREAD_MUTEX_INITIALIZER;
static device_workspaces workspaces[MAX_DEVICES];

tl_status tl_gpu_cublas_check(int status, const char *what)
{
  if (status == CUBLAS_STATUS_SUCCESS)
    return TL_OK;
  return tl_error_set(TL_ERR_RUNTIME, "cuBLAS error in %s(): %s (%s)", what,
                      cublasGetStatusName((cublasStatus_t)status),
                      cublasGetStatusString((cublasStatus_t)status));
}

tl_status tl_gpu_cusolver_check(int status, const char *what)
{
  if (status == CUSOLVER_STATUS_SUCCESS)
    return TL_OK;
  return tl_error_set(TL_ERR_RUNTIME, "cuSOLVER error in %s(): status %d", what, status);
}

/* The device made current for the call (the caller's restored when its op
 * ends: tl_gpu_device_enter); false with an error. */
static bool enter(tl_device device)
{
  if (device.index < 0 || device.index >= MAX_DEVICES) {
    tl_error_set(TL_ERR_RUNTIME, "cuBLAS: device index %d out of range", device.index);
    return false;
  }
  return tl_gpu_device_enter(device.index, "cudaSetDevice") == TL_OK;
}

/* The workspace block of (device, stream), allocated on the first call. */
static tl_storage *workspace_of(tl_device device, void *stream)
{
  device_workspaces *w = &workspaces[device.index];
  tl_storage *found = NULL;
  pthread_mutex_lock(&workspace_lock);
  for (int i = 0; i < w->nstreams && !found; i++)
    if (w->streams[i] == stream)
      found = w->workspaces[i];
  if (!found && w->nstreams < MAX_STREAMS) {
    found = tl_storage_new(device, WORKSPACE_BYTES);
    if (found) {
      w->streams[w->nstreams] = stream;
      w->workspaces[w->nstreams++] = found;
    } else {
      tl_error_clear(); /* no block to spare: cuBLAS falls back to its own */
    }
  }
  pthread_mutex_unlock(&workspace_lock);
  return found;
}

/* The calling thread's cuBLAS handle of the current device, made (or taken
 * from an exited thread) on first use. */
static cublasHandle_t my_cublas(int device)
{
  cublasHandle_t h = tl_gpu_handle_get(TL_GPU_HANDLE_CUBLAS, device);
  if (h)
    return h;
  if (tl_gpu_cublas_check(cublasCreate(&h), "cublasCreate") != TL_OK)
    return NULL;
  if (tl_gpu_handle_adopt(TL_GPU_HANDLE_CUBLAS, device, h) != TL_OK) {
    cublasDestroy(h);
    return NULL;
  }
  return h;
}

static cusolverDnHandle_t my_cusolver(int device)
{
  cusolverDnHandle_t h = tl_gpu_handle_get(TL_GPU_HANDLE_CUSOLVER, device);
  if (h)
    return h;
  if (tl_gpu_cusolver_check(cusolverDnCreate(&h), "cusolverDnCreate") != TL_OK)
    return NULL;
  if (tl_gpu_handle_adopt(TL_GPU_HANDLE_CUSOLVER, device, h) != TL_OK) {
    cusolverDnDestroy(h);
    return NULL;
  }
  return h;
}

cublasHandle_t tl_gpu_cublas(tl_device device, void *stream)
{
  cublasHandle_t h;
  if (!enter(device) || !(h = my_cublas(device.index)))
    return NULL;
  if (tl_gpu_cublas_check(cublasSetStream(h, (cudaStream_t)stream), "cublasSetStream") != TL_OK)
    return NULL;
  tl_storage *w = workspace_of(device, stream);
  if (w && tl_gpu_cublas_check(cublasSetWorkspace(h, w->data, w->nbytes),
                               "cublasSetWorkspace") != TL_OK)
    return NULL;
  return h;
}

cusolverDnHandle_t tl_gpu_cusolver(tl_device device, void *stream)
{
  cusolverDnHandle_t h;
  if (!enter(device) || !(h = my_cusolver(device.index)))
    return NULL;
  if (tl_gpu_cusolver_check(cusolverDnSetStream(h, (cudaStream_t)stream),
                            "cusolverDnSetStream") != TL_OK)
    return NULL;
  return h;
}
#endif
