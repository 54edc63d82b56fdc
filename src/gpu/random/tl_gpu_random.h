/* tl_gpu_random.h - what random_gpu.c hands the CUDA random kernels
 * (random.cu): plain data, read by C and by CUDA C++.                      */
#ifndef TL_GPU_RANDOM_H
#define TL_GPU_RANDOM_H

#include "gpu/random/tl_px_samplers.h"

#ifdef __cplusplus
extern "C" {
#endif

/* How a fill kernel stores its values: the three types it writes directly;
 * other dtypes are drawn as float64 (or int64) and cast on the device, as
 * the CPU's stores cast them. */
enum { TL_GPU_RANDOM_F64, TL_GPU_RANDOM_F32, TL_GPU_RANDOM_I64 };

/* dst[v] = value v of draw f (tl_px_value) for v < n, on `stream`; pa and pb
 * of f are device pointers.  Returns the CUDA error code of the launch. */
int tl_gpu_random_fill_launch(const tl_px_draw *f, int64_t n, int store, void *dst, void *stream);

/* out[e] = draw e of sampler `kind` (TL_PX_GAMMA ...) for e < n, with
 * parameters a[e] (and b[e], binomial's probability), lifted to `floor`
 * (tl_px_lift): device arrays of float64.  The launch's CUDA error code. */
int tl_gpu_random_sample_launch(int kind, double floor_value, const tl_px_rounds *r, int64_t n,
                                const double *a, const double *b, double *out, void *stream);

/* Dropout (src/nn/dropout) on contiguous work arrays of float (f64: double):
 * x and y of nmask * inner elements, mask of nmask bools; element r of the
 * mask keeps when word r of the blocks from `first` is below threshold,
 * then y = keep ? x * s1 + s0 : d0.  The backward: dx = g * mask * scale
 * in the CPU's two forms (inner 1, or a run per mask element). */
int tl_gpu_dropout_launch(int f64, const void *x, void *y, uint8_t *mask, int64_t nmask,
                          int64_t inner, uint64_t seed, uint64_t first, uint64_t threshold,
                          double s1, double s0, double d0, void *stream);
int tl_gpu_dropout_backward_launch(int f64, const void *g, void *dx, const uint8_t *mask,
                                   int64_t nmask, int64_t inner, double scale, void *stream);

/* The CUDA rows of the random kernel table and of dropout (random_gpu.c;
 * called by tl_gpu_kernels_register). */
void tl_gpu_random_register(void);

#ifdef __cplusplus
}
#endif
#endif
