/* tl_gpu_linalg_kernels.h - the linalg family's own device kernels
 * (linalg_kernels.cu), as plain C calls the C side (solver_gpu.c) makes.
 * Each queues its work on `stream` (a cudaStream_t) and returns the CUDA
 * error code of the launch (0 when it was queued).                        */
#ifndef TL_GPU_LINALG_KERNELS_H
#define TL_GPU_LINALG_KERNELS_H

#include <stdbool.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Zero the strict upper (keep_lower) or strict lower triangle of `count`
 * packed row-major rows x cols matrices of elem_size bytes (4, 8 or 16).
 * (A packed column-major matrix is the row-major one of its transpose.) */
int tl_gpu_keep_triangle(void *data, int64_t count, int64_t rows, int64_t cols, int elem_size,
                         bool keep_lower, void *stream);

/* Determinants from `count` packed column-major n x n LU factors and their
 * 1-based pivots (getrf's), one thread per matrix, computed in double as
 * the CPU's loop (linalg.c): det, logdet and sign are of the factors'
 * dtype, logabs of its real dtype; NULL ones are skipped.  kind: 0
 * float32, 1 float64, 2 complex64, 3 complex128. */
int tl_gpu_lu_det(int kind, const void *lu, const int *ipiv, int64_t count, int64_t n, void *det,
                  void *logdet, void *sign, void *logabs, void *stream);

#ifdef __cplusplus
}
#endif

#endif
