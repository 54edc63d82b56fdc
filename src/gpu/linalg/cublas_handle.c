/* cublas_handle.c - one cuBLAS and one cuSOLVER handle per device, made on
 * first use and bound to the caller's stream on every call
 * (tl_gpu_cublas.h); the TF32 switch of float32 GEMMs.
 *
 * cuBLAS wants a workspace per stream it runs on (two streams sharing one
 * would race), so each (device, stream) pair gets its own block from the
 * caching allocator the first time, kept for the process: a handful of
 * streams in practice.  Past the table's size a stream runs with cuBLAS's
 * own default workspace.                                                   */
#include "gpu/tl_gpu.h"

#include <stdatomic.h>

static atomic_bool allow_tf32; /* false, as PyTorch's default */

bool tl_gpu_matmul_allow_tf32(void) { return atomic_load(&allow_tf32); }
void tl_gpu_set_matmul_allow_tf32(bool allow) { atomic_store(&allow_tf32, allow); }

#ifdef TL_WITH_CUDA
#include <cuda_runtime_api.h>

#include "gpu/linalg/tl_gpu_cublas.h"
#include "ndcore/tensor/tl_backend.h"

enum { MAX_DEVICES = 64, MAX_STREAMS = 16 };
/* 4 MiB for pre-Hopper parts, 32 MiB for Hopper, as NVIDIA's cuBLAS guide
 * recommends; one size for all keeps it simple. */
static const size_t WORKSPACE_BYTES = (size_t)32 << 20;

typedef struct {
  cublasHandle_t blas;
  cusolverDnHandle_t solver;
  int nstreams;
  void *streams[MAX_STREAMS];
  tl_storage *workspaces[MAX_STREAMS];
} device_handles;

static device_handles handles[MAX_DEVICES];

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

static device_handles *handles_of(tl_device device)
{
  if (device.index < 0 || device.index >= MAX_DEVICES) {
    tl_error_set(TL_ERR_RUNTIME, "cuBLAS: device index %d out of range", device.index);
    return NULL;
  }
  if (cudaSetDevice(device.index) != cudaSuccess) {
    tl_error_set(TL_ERR_RUNTIME, "CUDA error in cudaSetDevice(): %s",
                 cudaGetErrorString(cudaGetLastError()));
    return NULL;
  }
  return &handles[device.index];
}

/* The workspace block of (device, stream), allocated on the first call. */
static tl_storage *workspace_of(device_handles *h, tl_device device, void *stream)
{
  for (int i = 0; i < h->nstreams; i++)
    if (h->streams[i] == stream)
      return h->workspaces[i];
  if (h->nstreams == MAX_STREAMS)
    return NULL;
  tl_storage *w = tl_storage_new(device, WORKSPACE_BYTES);
  if (!w) {
    tl_error_clear(); /* no block to spare: cuBLAS falls back to its own */
    return NULL;
  }
  h->streams[h->nstreams] = stream;
  h->workspaces[h->nstreams++] = w;
  return w;
}

cublasHandle_t tl_gpu_cublas(tl_device device, void *stream)
{
  device_handles *h = handles_of(device);
  if (!h)
    return NULL;
  if (!h->blas && tl_gpu_cublas_check(cublasCreate(&h->blas), "cublasCreate") != TL_OK) {
    h->blas = NULL;
    return NULL;
  }
  if (tl_gpu_cublas_check(cublasSetStream(h->blas, (cudaStream_t)stream), "cublasSetStream") !=
      TL_OK)
    return NULL;
  tl_storage *w = workspace_of(h, device, stream);
  if (w && tl_gpu_cublas_check(cublasSetWorkspace(h->blas, w->data, w->nbytes),
                               "cublasSetWorkspace") != TL_OK)
    return NULL;
  return h->blas;
}

cusolverDnHandle_t tl_gpu_cusolver(tl_device device, void *stream)
{
  device_handles *h = handles_of(device);
  if (!h)
    return NULL;
  if (!h->solver &&
      tl_gpu_cusolver_check(cusolverDnCreate(&h->solver), "cusolverDnCreate") != TL_OK) {
    h->solver = NULL;
    return NULL;
  }
  if (tl_gpu_cusolver_check(cusolverDnSetStream(h->solver, (cudaStream_t)stream),
                            "cusolverDnSetStream") != TL_OK)
    return NULL;
  return h->solver;
}
#endif
