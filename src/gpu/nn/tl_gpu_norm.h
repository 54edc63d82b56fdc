/* tl_gpu_norm.h - what norm_gpu.c hands the CUDA normalisation kernels of
 * norm.cu: plain data only (read by C and CUDA C++), pointers to contiguous
 * device data of the work type (float, or double when f64).
 *
 * Legend as in src/nn/norm/tl_norm.h: x as (N, C, S), statistics per
 * (n, g) group of C/G channels (layer/group/rms norm) or per channel over
 * (N, S) (batch norm).  A statistics row is one CUDA block.               */
#ifndef TL_GPU_NORM_H
#define TL_GPU_NORM_H

#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef struct {
  int64_t N, C, S, G;
  int per_channel, rms, train, f64;
  double eps;
  const void *x, *g, *w, *b; /* g: backward only */
  void *y;                   /* forward: y; backward: dx */
  void *mean, *rstd;         /* (N*G) or (C); in evaluation: the running mean and var */
  double *batch;             /* forward, per channel training: (2, C) batch mean, biased var;
                              * backward: (2, C) dw, db (per channel) or NULL */
  int64_t parts;             /* blocks per row (tl_gpu_norm_parts) */
  double *part;              /* parts > 1: (rows, parts, 4) partial sums, device scratch */
} tl_gpu_norm_job;

/* How many blocks share a statistics row of D elements when there are few
 * rows (batch norm's channels): enough to fill the device (about 512
 * blocks), each part at least 8192 elements; 1 when the rows fill it
 * already.  Shared rows take three kernels (partial sums, their fold in
 * a fixed order, the elementwise pass) instead of one. */
static inline int64_t tl_gpu_norm_parts(int64_t rows, int64_t D)
{
  if (rows >= 512 || D < 2 * 8192)
    return 1;
  int64_t p = (512 + rows - 1) / rows, most = D / 8192;
  return p < most ? p : most;
}

/* The launchers return the CUDA error code of their last launch. */
int tl_gpu_norm_forward_launch(const tl_gpu_norm_job *job, void *stream);
int tl_gpu_norm_backward_launch(const tl_gpu_norm_job *job, void *stream);
/* Group statistics' dw, db: (2, C) doubles summed over (N, S) per channel. */
int tl_gpu_norm_affine_launch(const tl_gpu_norm_job *job, double *dwdb, void *stream);
/* running[c] = (1 - momentum) running[c] + momentum * batch[c] * scale, c < n. */
int tl_gpu_norm_running_launch(void *running, int f64, const double *batch, int64_t n, double scale,
                               double momentum, void *stream);

typedef struct {
  int64_t N, C, S, size;
  double alpha, beta, k;
  int f64;
  const void *x, *g; /* g NULL: forward */
  void *out;
  void *p, *t; /* backward scratch, (N, C, S) each */
} tl_gpu_lrn_job;

int tl_gpu_lrn_launch(const tl_gpu_lrn_job *job, void *stream);

#ifdef __cplusplus
}
#endif
#endif
