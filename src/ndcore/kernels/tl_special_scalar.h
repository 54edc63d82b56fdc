/* tl_special_scalar.h - the scalar functions that the CPU loops and the CUDA
 * kernels must compute alike and that neither libm nor CUDA's math library
 * offers: digamma, polygamma (through the Hurwitz zeta), the exponentially
 * scaled Bessel functions i0e and i1e, and nextafter's step through 16-bit
 * patterns.
 *
 * Written once, in the C subset that CUDA C++ also compiles: the CPU
 * (kernels_special.c, kernels_bessel.c, kernels_binary.c) includes them as
 * static inline functions, src/gpu/special/special.cu as device functions.
 * Both devices therefore run the same series with the same coefficients, and
 * their results differ only where their math libraries' log, tan, pow, exp
 * and lgamma round differently (an ulp or two; nvcc also fuses multiply-adds).
 * Everything computes in double; float32 callers convert once each way.
 * No recursion (device code would need a stack of unknown size).
 *
 * Edge values follow SciPy (and PyTorch): digamma(+-0) = -+inf, NaN at the
 * negative integers and at -inf; polygamma's zeta has a pole (+inf) at the
 * integers x <= 0; i0e and i1e go to 0 at +-inf; NaN stays NaN.          */
#ifndef TL_SPECIAL_SCALAR_H
#define TL_SPECIAL_SCALAR_H

#include <math.h>
#include <stdbool.h>
#include <stdint.h>

#ifdef __CUDACC__
/* Helpers inline into their callers; the four entry points stay calls, so
 * that a kernel which applies them to several elements per thread (the
 * launcher's vector path) holds one copy of each series, not several. */
#define TL_SPECIAL_FN static __device__ __forceinline__
#define TL_SPECIAL_ENTRY static __device__ __noinline__
#else
#define TL_SPECIAL_FN static inline
#define TL_SPECIAL_ENTRY static inline
#endif

/* A coefficient table (generated/tl_special_tables.h): device memory on CUDA. */
#ifdef __CUDACC__
#define TL_SPECIAL_TABLE static __device__ const
#else
#define TL_SPECIAL_TABLE static const
#endif

#define TL_SPECIAL_PI 3.14159265358979323846
#define TL_SPECIAL_SQRT_PI 1.77245385090551602730

/* ---- digamma ----------------------------------------------------------------------------
 * x < 0: reflection psi(x) = psi(1 - x) - pi / tan(pi x).  x > 0: the
 * recurrence psi(x) = psi(x + 1) - 1/x up to x >= 10, then the asymptotic
 * series psi(x) ~ ln x - 1/(2x) - sum B_2k / (2k x^2k). */
TL_SPECIAL_ENTRY double tl_digamma(double x)
{
  if (isnan(x) || x == -INFINITY)
    return NAN;
  if (x == 0)
    return signbit(x) ? INFINITY : -INFINITY;
  double reflection = 0;
  if (x < 0) {
    if (x == floor(x))
      return NAN;
    /* cot(pi x) has period 1: reduce to [-1/2, 1/2] first, exactly, so that
     * neither large |x| nor tiny |x| loses the argument */
    double r = x - round(x);
    reflection = TL_SPECIAL_PI / tan(TL_SPECIAL_PI * r);
    x = 1 - x;
  }
  double acc = 0;
  while (x < 10) {
    acc -= 1 / x;
    x += 1;
  }
  if (x == INFINITY)
    return INFINITY;
  double z = 1 / (x * x);
  /* B2/2, B4/4, ... B14/14 */
  double series = z * (1.0 / 12 - z * (1.0 / 120 - z * (1.0 / 252 - z * (1.0 / 240 -
                  z * (1.0 / 132 - z * (691.0 / 32760 - z * (1.0 / 12)))))));
  return (acc + log(x) - 0.5 / x - series) - reflection;
}

/* ---- polygamma ---------------------------------------------------------------------------
 * polygamma(n, x), the n-th derivative of digamma; n must be a whole number
 * >= 0 (else NaN; the Python wrapper refuses it first).  n >= 1:
 * (-1)^(n+1) n! zeta(n+1, x) with the Hurwitz zeta summed directly until the
 * argument w = x + k is past n + 20, then closed by the Euler-Maclaurin tail
 *   w^(1-s)/(s-1) + w^-s/2 + sum_j B_2j/(2j)! s(s+1)..(s+2j-2) w^(1-s-2j),
 * whose terms shrink like ((s+2j)/(2 pi w))^2 each.  The direct sum handles
 * negative non-integer x as well.  Below x = -1e7 the direct sum would take
 * too long: NaN there. */

/* sum (the direct part) plus the Euler-Maclaurin tail at w, given ws = w^-s
 * (or w^-s times a scale: the tail is linear in it). */
TL_SPECIAL_FN double tl_zeta_tail(double s, double w, double ws, double sum)
{
  /* B_2 ... B_24 */
  static const double bernoulli[] = {1.0 / 6, -1.0 / 30, 1.0 / 42, -1.0 / 30, 5.0 / 66,
                                     -691.0 / 2730, 7.0 / 6, -3617.0 / 510, 43867.0 / 798,
                                     -174611.0 / 330, 854513.0 / 138, -236364091.0 / 2730};
  sum += w * ws / (s - 1) + ws / 2;
  double rising = s, fact = 2, wpow = ws / w;
  for (int j = 1; j <= (int)(sizeof bernoulli / sizeof *bernoulli); j++) {
    double term = bernoulli[j - 1] / fact * rising * wpow;
    sum += term;
    if (fabs(term) <= 1e-17 * fabs(sum))
      break;
    rising *= (s + 2 * j - 1) * (s + 2 * j);
    fact *= (2.0 * j + 1) * (2.0 * j + 2);
    wpow /= w * w;
  }
  return sum;
}

TL_SPECIAL_FN double tl_hurwitz_zeta(double s, double q)
{
  if (q <= 0 && q == floor(q))
    return INFINITY;
  if (q == INFINITY)
    return 0;
  if (q < -1e7)
    return NAN; /* the direct sum would take |q| steps; the pole spacing is lost anyway */
  double sum = 0, w = q;
  while (w < s + 20) {
    sum += pow(w, -s);
    w += 1;
  }
  return tl_zeta_tail(s, w, pow(w, -s), sum);
}

/* Large orders: n! overflows and zeta(n + 1, x) underflows long before their
 * product does, and the direct sum above would run n + 20 - x steps.  Scale
 * every term by the largest, (min |x + k|)^-s, and stop as soon as the terms
 * left are negligible (past x + k > 0 they shrink like ((x+k)/(x+k+1))^s, so
 * a few dozen terms do once s is large); the result is assembled in logs:
 * log|psi| = lgamma(n + 1) + log_scale + log|sum|. */
TL_SPECIAL_FN double tl_polygamma_large_order(double x, double n)
{
  const double s = n + 1;
  if (x < -1e7)
    return NAN; /* as tl_hurwitz_zeta: the negative part would take |x| steps */
  const bool odd_s = fmod(s, 2.0) == 1;
  /* At half-integers x < 0 the terms (x+k)^-s for x+k = -1/2, -3/2, ... cancel
   * those for +1/2, +3/2, ... exactly when s is odd, and the scaled sum would
   * keep only rounding: sum what is left, zeta(s, 1 - x), instead. */
  if (x < 0 && odd_s && x - floor(x) == 0.5)
    x = 1 - x;
  double nearest = x >= 0 ? x : fmin(x - floor(x), ceil(x) - x); /* min |x + k| */
  if (nearest == 0)
    return fmod(n, 2.0) == 1 ? INFINITY : -INFINITY; /* a pole (x a non-positive integer) */
  const double log_nearest = log(nearest), log_scale = -s * log_nearest;
  double sum = 0, w = x;
  bool converged = false; /* the rest, tail included, is below double precision */
  for (; w < s + 20 && !converged; w += 1) {
    double term = exp(-s * (log(fabs(w)) - log_nearest)); /* |w|^-s / nearest^-s */
    if (w < 0 && odd_s)
      term = -term;
    sum += term;
    converged = w > 0 && fabs(term) <= 1e-17 * fabs(sum);
  }
  if (!converged)
    sum = tl_zeta_tail(s, w, exp(-s * log(w) - log_scale), sum);
  if (sum == 0)
    return 0;
  double mag = exp(lgamma(n + 1) + log_scale + log(fabs(sum)));
  /* psi^(n)(x) = (-1)^(n+1) n! zeta(n + 1, x) */
  return (sum > 0) == (fmod(n, 2.0) == 1) ? mag : -mag;
}

TL_SPECIAL_ENTRY double tl_polygamma(double x, double n)
{
  if (isnan(x) || isnan(n) || n < 0 || n != floor(n))
    return NAN;
  if (n == 0)
    return tl_digamma(x);
  if (x == -INFINITY)
    return NAN;
  if (x == INFINITY)
    return 0;
  if (n > 100)
    return tl_polygamma_large_order(x, n);
  double scale = 1; /* n! */
  for (double k = 2; k <= n && scale < INFINITY; k++)
    scale *= k;
  double z = tl_hurwitz_zeta(n + 1, x);
  return fmod(n, 2.0) == 1 ? scale * z : -scale * z;
}

/* ---- modified Bessel functions of the first kind, orders 0 and 1 -------------------------
 * |x| <= 20: the power series, whose terms are all positive (no
 * cancellation; at most ~60 terms).  |x| > 20: the asymptotic expansion
 *   I_nu(x) ~ e^x / sqrt(2 pi x) * sum_k (-1)^k prod_{j<=k} (4nu^2 - (2j-1)^2) / (k! (8x)^k),
 * summed until its terms stop shrinking; its error is below e^-2x there.
 * The scaled forms i0e = exp(-|x|) i0, i1e = exp(-|x|) i1 take the
 * expansion without its e^x, so they never overflow (exp(-|x|) * i0(x)
 * would, past |x| = 713).  i0, i0e are even, i1, i1e odd. */
#define TL_BESSEL_SERIES_MAX 20.0

/* The power series of I_nu(x), nu = 0 or 1, for 0 <= x <= 20. */
TL_SPECIAL_FN double tl_bessel_series(int nu, double x)
{
  double q = 0.25 * x * x, term = nu ? 0.5 * x : 1.0, sum = term;
  for (int k = 1; k < 200; k++) {
    term *= q / ((double)k * (double)(k + nu));
    sum += term;
    if (term < sum * 1e-17)
      break;
  }
  return sum;
}

/* sqrt(2 pi x) e^-x I_nu(x) by the asymptotic expansion, x > 20. */
TL_SPECIAL_FN double tl_bessel_asymptotic(int nu, double x)
{
  double mu = 4.0 * nu * nu, term = 1.0, sum = 1.0, prev = INFINITY;
  for (int k = 1; k < 100; k++) {
    double odd = 2.0 * k - 1;
    term *= -(mu - odd * odd) / (k * 8.0 * x);
    if (fabs(term) >= prev)
      break;
    sum += term;
    prev = fabs(term);
    if (prev < 1e-17 * fabs(sum))
      break;
  }
  return sum;
}

/* exp(-|x|) I_nu(|x|) at ax = |x|: the scaled function. */
TL_SPECIAL_FN double tl_bessel_scaled(int nu, double ax)
{
  const double two_pi = 6.28318530717958647692;
  if (ax == INFINITY)
    return 0.0;
  if (ax <= TL_BESSEL_SERIES_MAX)
    return exp(-ax) * tl_bessel_series(nu, ax);
  return tl_bessel_asymptotic(nu, ax) / sqrt(two_pi * ax);
}

/* I_nu(|x|) at ax = |x| (the CPU's i0 and i1; CUDA has its own). */
TL_SPECIAL_FN double tl_bessel_unscaled(int nu, double ax)
{
  if (ax <= TL_BESSEL_SERIES_MAX)
    return tl_bessel_series(nu, ax);
  if (ax > 713.0) /* e^x overflows; I_nu(x) > 1e306 already */
    return INFINITY;
  /* e^x split in two so that e^x alone cannot overflow before the division */
  const double two_pi = 6.28318530717958647692;
  double half = exp(0.5 * ax);
  return half * (tl_bessel_asymptotic(nu, ax) / sqrt(two_pi * ax)) * half;
}

/* I_nu(x), or exp(-|x|) I_nu(x) when scaled: even for nu = 0, odd for nu = 1. */
TL_SPECIAL_FN double tl_bessel_i(int nu, double x, bool scaled)
{
  if (isnan(x))
    return x;
  double r = scaled ? tl_bessel_scaled(nu, fabs(x)) : tl_bessel_unscaled(nu, fabs(x));
  return nu && x < 0 ? -r : r;
}

TL_SPECIAL_ENTRY double tl_i0e(double x) { return tl_bessel_i(0, x, true); }
TL_SPECIAL_ENTRY double tl_i1e(double x) { return tl_bessel_i(1, x, true); }

/* ---- nextafter in float16 and bfloat16 ----------------------------------------------------
 * The next 16-bit pattern from a towards b, given their values fa, fb as
 * floats (exact for both types).  The float32 function would step by a
 * float32 ulp, which rounds straight back to a. */
TL_SPECIAL_FN uint16_t tl_next16(uint16_t a, uint16_t b, float fa, float fb)
{
  if (isnan(fa) || isnan(fb))
    return isnan(fa) ? a : b;
  if (fa == fb)
    return b;
  if (fa == 0) /* smallest subnormal with b's direction */
    return (uint16_t)((fb > 0 ? 0x0000 : 0x8000) | 1);
  bool up = (fb > fa) == (fa > 0); /* away from zero */
  return (uint16_t)(up ? a + 1 : a - 1);
}

/* ---- polynomial tables ------------------------------------------------------------------
 * c[0] + c[1] t + ... + c[n-1] t^(n-1), as its even and odd parts, each by
 * Horner in t^2: two chains of half the length that run side by side (n is
 * a constant at every call, so the loop unrolls and its test goes). */
TL_SPECIAL_FN double tl_special_poly(const double *c, int n, double t)
{
  double t2 = t * t, even = 0, odd = 0;
  for (int k = n - 1; k >= 0; k--) {
    if (k & 1)
      odd = odd * t2 + c[k];
    else
      even = even * t2 + c[k];
  }
  return even + t * odd;
}

/* A piecewise table's value at v (finite; outside [lo, lo + pieces w) the
 * end pieces extend): its piece's polynomial in t = 2 (v - mid) / w.
 * inv_w = 1 / w. */
TL_SPECIAL_FN double tl_special_piecewise(const double *tab, int n, int pieces, double lo,
                                          double inv_w, double v)
{
  double y = (v - lo) * inv_w;
  y = y < 0 ? 0 : y > pieces ? pieces : y;
  int i = (int)y < pieces ? (int)y : pieces - 1;
  return tl_special_poly(tab + i * n, n, 2 * (y - i) - 1);
}

/* One of generated/tl_special_tables.h's tables by name. */
#define TL_SPECIAL_PIECEWISE(NAME, v)                                                      \
  tl_special_piecewise(tl_tab_##NAME, TL_TAB_##NAME##_N, TL_TAB_##NAME##_PIECES,          \
                       TL_TAB_##NAME##_LO, 1 / TL_TAB_##NAME##_W, v)
#define TL_SPECIAL_SERIES(NAME, v) tl_special_poly(tl_tab_##NAME, TL_TAB_##NAME##_N, v)

#endif
