/* tl_gpu_eig_pairs.h - the one kernel of general eig (eig_pairs.cu), as a
 * plain C call: real geev's output spelled out as complex, as the CPU's
 * loop does (linalg.c).  Queued on `stream` (a cudaStream_t); returns the
 * CUDA error code of the launch (0 when it was queued).                  */
#ifndef TL_GPU_EIG_PAIRS_H
#define TL_GPU_EIG_PAIRS_H

#include <stdbool.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* For `count` real n x n matrices (float64 when dbl, else float32): wri
 * [count, 2n] (geev's real parts, then imaginary parts) and, unless NULL,
 * vr [count, n, n] (its right eigenvectors, column-major: a conjugate
 * pair's as the columns re, im).  Writes w [count, n] and, unless NULL, v
 * [count, n, n] (column-major) in the complex dtype of the same precision:
 * column j of a pair's first member is re + i im, of its second re - i im. */
int tl_gpu_eig_pairs(bool dbl, const void *wri, const void *vr, int64_t count, int64_t n, void *w,
                     void *v, void *stream);

#ifdef __cplusplus
}
#endif

#endif
