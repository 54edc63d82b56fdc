/* tl_gpu_pool.h - what pool_gpu.c hands the CUDA pooling kernels of pool.cu:
 * plain data only (read by C and CUDA C++).  Tap tables are tl_nn_taps
 * (src/nn/pool/tl_pool.h) copied to the device; the transposed weighted
 * pass reads them inverted (for each input position, the taps that read it:
 * a gather, so that no two threads add into one element).  Values are of
 * the work type: float, or double when f64. */
#ifndef TL_GPU_POOL_H
#define TL_GPU_POOL_H

#include <stdint.h>

#include "gpu/tl_device_errors.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct {
  int64_t in, out, k, plane_stride;
  const int64_t *index;  /* [out * k] (per plane when plane_stride), -1: none */
  const double *weight;  /* [out * k], weighted taps only */
  const int64_t *rstart; /* transpose: [in + 1] offsets into rtap */
  const int64_t *rtap;   /* transpose: tap numbers j * k + q reading each input position,
                          * by position, then j, then q (the CPU's order of adds) */
} tl_gpu_taps;

/* window max over three (padded) dims, B planes: y and the flat in-plane
 * index of the first maximum (NaN wins), as the CPU's. */
int tl_gpu_pool_max_launch(const void *x, void *y, int64_t *idx, int64_t B, const tl_gpu_taps *t3,
                           int f64, void *stream);
/* One separable pass along a dim: (outer, t.in, inner) -> (outer, t.out, inner),
 * or back when transpose. */
int tl_gpu_pool_pass_launch(const void *x, void *y, int64_t outer, int64_t inner,
                            const tl_gpu_taps *t, int transpose, int f64, void *stream);
/* Where scatter records a bad index: the device's error record, the op's
 * number and the output's last n sizes (POOL wording, tl_device_errors.h). */
typedef struct {
  tl_device_error *err;
  int op, n, status; /* status: the tl_status raised */
  int64_t extent[3];
} tl_gpu_pool_bad;
/* y (B, size) zeroed, then y[b, idx[b, j]] (+)= x[b, j] for j < len; an index
 * outside [0, size) is skipped and recorded in bad->err (no host wait). */
int tl_gpu_pool_scatter_launch(const void *x, const int64_t *idx, void *y, int64_t B, int64_t len,
                               int64_t size, int accumulate, int f64, tl_gpu_pool_bad bad,
                               void *stream);

#ifdef __cplusplus
}
#endif
#endif
