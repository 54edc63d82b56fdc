/* tl_vecmath.h - float32 math written so that GCC vectorises loops over it.
 *
 * libm's expf is a scalar call: a loop over it runs one element at a time.
 * These versions are straight-line code (selects, no branches, no calls), so
 * a contiguous loop becomes SIMD code; TL_SIMD_CLONES compiles such a loop for
 * AVX-512, AVX2 and the baseline and picks one at load time, keeping the
 * build portable.  Accuracy: within 2 ULP of the correctly rounded result,
 * with IEEE behaviour at the edges (NaN stays NaN, overflow to inf,
 * gradual underflow to subnormals and zero).                                */
#ifndef TL_VECMATH_H
#define TL_VECMATH_H

#include <stdint.h>
#include <string.h>

#include "ndcore/kernels/tl_simd_clones.h"

/* a * b + c may be fused (one rounding) in this code and the loops that
 * inline it: the error bounds above hold either way, and where the clone's
 * target has FMA it halves the polynomial's instructions.  Floating-point
 * exception flags are nobody's concern here (nothing reads them), which lets
 * floor/ceil/trunc become vector rounding instructions.  Close the region
 * with TL_VECMATH_END. */
#if defined(__GNUC__) && !defined(__clang__)
#define TL_VECMATH_BEGIN                                                                \
  _Pragma("GCC push_options") _Pragma("GCC optimize(\"fp-contract=fast\", \"no-trapping-math\")")
#define TL_VECMATH_END _Pragma("GCC pop_options")
#else
#define TL_VECMATH_BEGIN
#define TL_VECMATH_END
#endif

/* glibc's libmvec has SIMD versions of most of libm (SSE, AVX2 and AVX-512
 * variants, within 4 ULP).  Declaring the scalar functions with the `simd`
 * attribute lets GCC call them from vectorised loops; a loop compiled with
 * TL_SIMD_CLONES gets the variant of each clone's instruction set.  The
 * symbols come from libmvec (linked), sin/cos/log/exp/pow since glibc 2.22,
 * the rest since 2.35. */
#if defined(__GLIBC__) && defined(__x86_64__) && defined(__GNUC__) && !defined(__clang__)
#define TL_VM_SIMD1(F, D) float F(float) __attribute__((simd("notinbranch"))); \
  double(D)(double) __attribute__((simd("notinbranch")));
#define TL_VM_SIMD2(F, D) float F(float, float) __attribute__((simd("notinbranch"))); \
  double(D)(double, double) __attribute__((simd("notinbranch")));
#if __GLIBC_PREREQ(2, 22)
TL_VM_SIMD1(sinf, sin) TL_VM_SIMD1(cosf, cos) TL_VM_SIMD1(logf, log) TL_VM_SIMD1(expf, exp)
TL_VM_SIMD2(powf, pow)
#endif
#if __GLIBC_PREREQ(2, 35)
TL_VM_SIMD1(tanf, tan) TL_VM_SIMD1(asinf, asin) TL_VM_SIMD1(acosf, acos) TL_VM_SIMD1(atanf, atan)
TL_VM_SIMD1(sinhf, sinh) TL_VM_SIMD1(coshf, cosh) TL_VM_SIMD1(tanhf, tanh)
TL_VM_SIMD1(asinhf, asinh) TL_VM_SIMD1(acoshf, acosh) TL_VM_SIMD1(atanhf, atanh)
TL_VM_SIMD1(exp2f, exp2) TL_VM_SIMD1(expm1f, expm1) TL_VM_SIMD1(log2f, log2)
TL_VM_SIMD1(log10f, log10) TL_VM_SIMD1(log1pf, log1p) TL_VM_SIMD1(erff, erf)
TL_VM_SIMD1(erfcf, erfc) TL_VM_SIMD2(atan2f, atan2) TL_VM_SIMD2(hypotf, hypot)
#endif
#undef TL_VM_SIMD1
#undef TL_VM_SIMD2
#endif


TL_VECMATH_BEGIN

static inline float tl_vm_bits_f32(uint32_t u)
{
  float f;
  memcpy(&f, &u, sizeof f);
  return f;
}

/* exp(x) = 2^k * exp(r), k = round(x / ln 2), |r| <= ln(2)/2.  exp(r) is its
 * Taylor series to degree 7 (truncation error < 2^-27 on that interval).
 * 2^k is applied as two factors 2^(k/2) so that k in [-150, 128] (subnormal
 * results, and the overflow edge) needs no branch. */
static inline float tl_expf(float x)
{
  float xc = x > 88.8f ? 88.8f : x; /* NaN fails both tests and stays NaN */
  xc = xc < -104.0f ? -104.0f : xc;
  const float shifter = 12582912.0f; /* 1.5 * 2^23: adding it rounds to an integer */
  float k = (xc * 1.44269504088896341f + shifter) - shifter;
  /* ln 2 split so that k * ln2_hi is exact for |k| < 2^9 */
  float r = xc - k * 0.693145751953125f;
  r = r - k * 1.42860682030941723212e-6f;
  float p = 1.0f / 5040.0f;
  p = p * r + 1.0f / 720.0f;
  p = p * r + 1.0f / 120.0f;
  p = p * r + 1.0f / 24.0f;
  p = p * r + 1.0f / 6.0f;
  p = p * r + 0.5f;
  p = p * r * r + r;
  p = p + 1.0f;
  int32_t ki = (int32_t)k;
  int32_t k1 = ki >> 1, k2 = ki - k1; /* arithmetic shift: both in [-75, 64] */
  float s1 = tl_vm_bits_f32((uint32_t)(k1 + 127) << 23);
  float s2 = tl_vm_bits_f32((uint32_t)(k2 + 127) << 23);
  return p * s1 * s2;
}

/* erf(x) in two pieces, both computed and one selected (no branch):
 *   |x| < 1:         x + x q(x^2), q of degree 6 fitted to erf(x)/x - 1 in
 *                    relative error, so tiny and subnormal x keep full
 *                    precision and -0 stays -0;
 *   1 <= |x| < 3.84: 1 - p(|x| - 2), p of degree 13 fitted to erfc(|x|) in
 *                    absolute error (the result is near 1, where an ulp is
 *                    2^-24); |x| - 2 is exact there (Sterbenz);
 *   |x| >= 3.84:     +-1 (erfc < 2^-25 rounds away), inf included.
 * Coefficients: weighted least squares iterated towards minimax (Lawson),
 * rounded to float.  Measured over every float against double erf: at
 * most 1.30 ULP from the exact value where a * b + c fuses (the AVX2 and
 * AVX-512 clones), 1.38 where it does not (the baseline); NaN stays NaN.
 * tests/test_special_erf.py checks a sweep of the float range. */
static inline float tl_erff(float x)
{
  float ax = x < 0 ? -x : x, s = x * x;
  float q = 7.853836723e-05f;
  q = q * s - 8.010186139e-04f;
  q = q * s + 5.188326817e-03f;
  q = q * s - 2.685381100e-02f;
  q = q * s + 1.128358543e-01f;
  q = q * s - 3.761262596e-01f;
  q = q * s + 1.283791661e-01f;
  float small = x * q + x;
  float t = ax - 2.0f;
  float p = 5.971515975e-07f;
  p = p * t + 6.233404747e-06f;
  p = p * t - 7.317692507e-05f;
  p = p * t + 2.111624053e-04f;
  p = p * t + 3.710911915e-05f;
  p = p * t - 1.526403241e-03f;
  p = p * t + 3.367617959e-03f;
  p = p * t - 4.955284530e-04f;
  p = p * t - 1.307828724e-02f;
  p = p * t + 3.445441648e-02f;
  p = p * t - 4.822561145e-02f;
  p = p * t + 4.133301601e-02f;
  p = p * t - 2.066682838e-02f;
  p = p * t + 4.677752033e-03f;
  float big = ax >= 3.84f ? 1.0f : 1.0f - p; /* NaN fails the test: 1 - NaN */
  big = x < 0 ? -big : big;
  return ax < 1.0f ? small : big;
}

/* 1 / (1 + exp(-x)), without overflow for large |x|. */
static inline float tl_sigmoidf(float x)
{
  float e = tl_expf(x < 0 ? x : -x); /* exp(-|x|) in (0, 1] */
  float q = 1.0f / (1.0f + e);
  return x < 0 ? e * q : q;
}

TL_VECMATH_END

#endif
