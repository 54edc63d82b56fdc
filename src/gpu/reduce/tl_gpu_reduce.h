/* tl_gpu_reduce.h - what the C side of the CUDA reductions and scans
 * (reduce_gpu.c) hands their launchers (reduce.cu, scan.cu).  Plain data
 * only, read by C and CUDA C++ alike (as tl_gpu_kernels.h).               */
#ifndef TL_GPU_REDUCE_H
#define TL_GPU_REDUCE_H

#include <stddef.h>
#include <stdint.h>

#include "gpu/tl_gpu_kernels.h"

#ifdef __cplusplus
extern "C" {
#endif

/* A reduction pass (reduce.c): `in` folded over its reduced dims into `acc`
 * (contiguous, the keepdim shape), aux (or NULL) read per output.  Size-1
 * dims are dropped; kept dims are in output order, innermost last; the
 * reduced dims in the input's order, so the linear position along them is
 * the row-major index over the reduced dims (what argmax reports).
 *
 * chunks > 1 splits each output's reduced range into that many contiguous
 * pieces, one block each, whose partial accumulators go to `scratch`
 * (outputs * chunks * TL_GPU_REDUCE_PART bytes) and are merged in piece
 * order by a second kernel: the split depends on the sizes only, so results
 * are the same from run to run.  columns: a thread per piece instead of a
 * block (the innermost kept dim is contiguous and the reduced dims are not,
 * so neighbouring outputs are neighbouring elements). */
typedef struct {
  int nkept, nred;
  int64_t outputs, per_output;
  int64_t kept_shape[TL_GPU_MAX_DIMS], kept_strides[TL_GPU_MAX_DIMS]; /* input bytes */
  int64_t red_shape[TL_GPU_MAX_DIMS], red_strides[TL_GPU_MAX_DIMS];
  const char *in;
  char *acc;        /* argmax/argmin: the values (may be NULL) */
  int64_t *index;   /* argmax/argmin: the indices */
  const char *aux;
  int64_t aux_size; /* bytes per aux element */
  double p;         /* the p-norm's p */
  int64_t chunks;
  int columns;
  char *scratch;
} tl_gpu_reduce_plan;

/* The largest partial accumulator: complex128, or a value and its index. */
#define TL_GPU_REDUCE_PART 16

/* The pass kinds the CUDA launcher runs: tl_rkind's values (tl_reduce.h),
 * which reduce_gpu.c checks at compile time, then the index passes. */
enum {
  TL_GPU_RK_SUM,
  TL_GPU_RK_NANSUM,
  TL_GPU_RK_PROD,
  TL_GPU_RK_MAX,
  TL_GPU_RK_MIN,
  TL_GPU_RK_ALL,
  TL_GPU_RK_ANY,
  TL_GPU_RK_COUNT,
  TL_GPU_RK_COUNT_NOTNAN,
  TL_GPU_RK_COUNT_ZERO,
  TL_GPU_RK_SQDEV,
  TL_GPU_RK_EXPSUM,
  TL_GPU_RK_ABSSUM,
  TL_GPU_RK_SQSUM,
  TL_GPU_RK_ABSMAX,
  TL_GPU_RK_ABSMIN,
  TL_GPU_RK_NONZERO,
  TL_GPU_RK_POWSUM,
  TL_GPU_RK_SUMPROD, /* einsum's sum of products: host only, no kernel here */
  TL_GPU_RK_ARGMAX, /* the first NaN, else the first index of the max */
  TL_GPU_RK_ARGMIN,
};

/* One pass of kind over an input of dtype loop; -1 for a (kind, loop) with
 * no kernel, else the CUDA error code of the launch. */
int tl_gpu_reduce_launch(int kind, int loop, const tl_gpu_reduce_plan *plan, void *stream);

/* Inclusive cumulative sum (prod false) or product, in place, of `lines`
 * lines of len elements in a contiguous tensor of dtype work (int64,
 * float64 or complex128), line k's element i at (k / inner * len + i) *
 * inner + k % inner.  temp is device scratch of temp_bytes, as many as
 * tl_gpu_scan_scratch asks for the same shape (none: 0 and NULL). */
size_t tl_gpu_scan_scratch(int work, int64_t lines, int64_t len, int64_t inner);
int tl_gpu_scan_launch(int work, int prod, char *data, int64_t lines, int64_t len, int64_t inner,
                       void *temp, size_t temp_bytes, void *stream);

/* The family's rows of the kernel table and its device hooks (reduce_gpu.c). */
void tl_gpu_reduce_register(void);

#ifdef __cplusplus
}
#endif
#endif
