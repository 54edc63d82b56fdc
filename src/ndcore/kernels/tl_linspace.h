/* tl_linspace.h - value i of n evenly spaced ones, in PyTorch's arithmetic,
 * shared by the CPU kernel (create.c) and the CUDA one (src/gpu/copy_create.cu)
 * so that both devices give the same bits.
 *
 * PyTorch's kernels step up from the start for the first n / 2 values and
 * down from the end for the rest (an odd n's middle included), so both ends
 * are exact; n == 1 gives the start.  linspace fuses each multiply-add, in
 * float for float32 (and each part of complex64), in double otherwise;
 * logspace's exponent is stepped plainly, unfused.                        */
#ifndef TL_LINSPACE_H
#define TL_LINSPACE_H

#include <math.h>
#include <stdbool.h>
#include <stdint.h>

#ifdef __CUDACC__
#define TL_LS_FN static __host__ __device__ inline
#else
#define TL_LS_FN static inline
#endif
/* logspace's unfused steps: nvcc would contract a + b * c into an FMA on the
 * device (the host compiler does not, without -mfma) */
#ifdef __CUDA_ARCH__
#define TL_LS_MULADD(a, b, c) __dadd_rn(a, __dmul_rn(b, c))
#else
#define TL_LS_MULADD(a, b, c) ((a) + (b) * (c))
#endif

TL_LS_FN double tl_linspace_f64(double a, double b, double step, int64_t i, int64_t n)
{
  if (n == 1)
    return a;
  return i < n / 2 ? fma(step, (double)i, a) : fma(-step, (double)(n - 1 - i), b);
}

TL_LS_FN float tl_linspace_f32(float a, float b, float step, int64_t i, int64_t n)
{
  if (n == 1)
    return a;
  return i < n / 2 ? fmaf(step, (float)i, a) : fmaf(-step, (float)(n - 1 - i), b);
}

/* logspace's exponent (and complex logspace's parts) */
TL_LS_FN double tl_logspace_exponent(double a, double b, double step, int64_t i, int64_t n)
{
  if (n == 1)
    return a;
  return i < n / 2 ? TL_LS_MULADD(a, step, (double)i) : TL_LS_MULADD(b, -step, (double)(n - 1 - i));
}

/* The step between values: (b - a) / (n - 1), 0 for a single value. */
TL_LS_FN double tl_linspace_step(double a, double b, int64_t n)
{
  return n > 1 ? (b - a) / (double)(n - 1) : 0.0;
}
TL_LS_FN float tl_linspace_step_f32(float a, float b, int64_t n)
{
  return n > 1 ? (b - a) / (float)(n - 1) : 0.0f;
}

/* Value i as a double: linspace's fused steps (in float for float32, and for
 * each part of complex64), or logspace's exponent (its ends rounded to float
 * for float32, their difference too) raised to base. */
TL_LS_FN double tl_linspace_value(bool log, bool f32, double a, double b, double base, int64_t i,
                                  int64_t n)
{
  if (log) {
    double ea = f32 ? (float)a : a, eb = f32 ? (float)b : b;
    double step = f32 ? tl_linspace_step(0.0, (double)((float)eb - (float)ea), n)
                      : tl_linspace_step(ea, eb, n);
    return pow(base, tl_logspace_exponent(ea, eb, step, i, n));
  }
  if (f32)
    return tl_linspace_f32((float)a, (float)b, tl_linspace_step_f32((float)a, (float)b, n), i, n);
  return tl_linspace_f64(a, b, tl_linspace_step(a, b, n), i, n);
}

#undef TL_LS_FN
#undef TL_LS_MULADD
#endif
