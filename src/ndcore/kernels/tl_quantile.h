/* tl_quantile.h - quantile's arithmetic, in PyTorch's rounding, shared by the
 * CPU kernel (sort.c) and the CUDA one (src/gpu/sort/sort.cu) so that both
 * devices give the same bits.                                              */
#ifndef TL_QUANTILE_H
#define TL_QUANTILE_H

#include <math.h>
#include <stdbool.h>
#include <stdint.h>

#ifdef __CUDACC__
#define TL_QF static __host__ __device__ inline
#else
#define TL_QF static inline
#endif

/* The (fractional) sorted position of quantile q among m values. PyTorch
 * holds q in the input's dtype (so a float32 input rounds q to float) and
 * multiplies in double. */
TL_QF double tl_quantile_rank(double q, int64_t m, bool f32)
{
  return (f32 ? (double)(float)q : q) * (double)(m - 1);
}

/* PyTorch's vectorised lerp: exact at both ends, one rounding (a fused
 * multiply-add) from the nearer end, in the input's precision; float32
 * inputs get the weight rounded to float first, as PyTorch's weight tensor is. */
TL_QF double tl_quantile_lerp(double a, double b, double t, bool f32)
{
  if (f32) {
    float fa = (float)a, fb = (float)b, ft = (float)t, d = fb - fa;
    return ft < 0.5f ? fmaf(ft, d, fa) : fmaf(ft - 1.0f, d, fb);
  }
  double d = b - a;
  return t < 0.5 ? fma(t, d, a) : fma(t - 1.0, d, b);
}

#undef TL_QF
#endif
