/* tl_gpu_cublas.h - the cuBLAS and cuSOLVER handles every CUDA family shares
 * (cublas_handle.c), and the linalg family's CUDA kernel set.
 *
 * One handle of each library per device, created on first use (never at
 * import: a process that touches no GPU never loads a context).  Each call
 * binds the handle to the stream the op runs on, so a handle can be asked for
 * anywhere an op launches; cuBLAS's workspace comes from our caching
 * allocator, one block per (device, stream) pair, kept for the process.
 * Not thread-safe across concurrent callers on one device: cuBLAS handles are
 * not, and ops run under the GIL or one at a time per device.                */
#ifndef TL_GPU_CUBLAS_H
#define TL_GPU_CUBLAS_H

#include <stdbool.h>

#ifdef TL_WITH_CUDA
#include <cublas_v2.h>
#include <cusolverDn.h>

#include "ndcore/tensor/tl_tensor.h"

/* The device's cuBLAS handle, bound to `stream` (a cudaStream_t) with our
 * workspace; NULL with a RuntimeError naming the cuBLAS status. */
cublasHandle_t tl_gpu_cublas(tl_device device, void *stream);
/* The device's cuSOLVER dense handle, bound to `stream`; NULL with an error. */
cusolverDnHandle_t tl_gpu_cusolver(tl_device device, void *stream);
/* TL_OK for CUBLAS_STATUS_SUCCESS, else a RuntimeError "cuBLAS error in what(): ...". */
tl_status tl_gpu_cublas_check(int status, const char *what);
/* TL_OK for CUSOLVER_STATUS_SUCCESS, else a RuntimeError "cuSOLVER error in what(): ...". */
tl_status tl_gpu_cusolver_check(int status, const char *what);

/* Register the CUDA row of the linalg kernel set (gemm_gpu.c, solver_gpu.c):
 * called once from tl_gpu_kernels_register. */
void tl_gpu_linalg_register(void);
#endif

#endif
