/* kernels_special.c - CPU loops of the special functions: erf, erfc, erfinv,
 * lgamma, digamma, polygamma (float32 and float64; integers arrive as the default float,
 * half types through float32).
 *
 * erf and erfc are libm's, but float32 erf is tl_vecmath.h's tl_erff.  lgamma uses lgamma_r, which does not write the
 * global `signgam` and so is safe on the worker threads.  erfinv and digamma
 * are our own: float32 computes in double and rounds once.  Edge values follow
 * SciPy (and PyTorch): erfinv(+-1) = +-inf, |y| > 1 -> NaN; digamma(+-0) =
 * -+inf, NaN at the negative integers and at -inf.                         */
#include "ndcore/dispatch/tl_kernels.h"

/* ---- erfinv ---------------------------------------------------------------------------
 * A cheap first guess (Winitzki's closed form, relative error ~2e-3) refined
 * by Halley steps on f(x) = erf(x) - y, which converge cubically: three steps
 * reach double precision.  In the tails f is evaluated as (1 - y) - erfc(x),
 * whose terms are exact or accurate there, instead of erf(x) - y whose
 * difference of numbers near 1 would cancel. */
static double erfinv_f64(double y)
{
  if (isnan(y) || y < -1 || y > 1)
    return NAN;
  if (y == 1 || y == -1)
    return y * INFINITY;
  if (y == 0)
    return y; /* keeps -0.0 */
  const double pi = 3.14159265358979323846, a = 0.147;
  double ay = fabs(y);
  double l = log1p(-ay * ay); /* log(1 - y^2); 1 - y^2 > 0 here */
  double t = 2 / (pi * a) + l / 2;
  double x = sqrt(sqrt(t * t - l / a) - t);
  const double two_over_sqrt_pi = 1.12837916709551257390;
  for (int i = 0; i < 3; i++) {
    double f = ay < 0.5 ? erf(x) - ay : (1 - ay) - erfc(x);
    double d = two_over_sqrt_pi * exp(-x * x);
    if (d == 0 || f == 0)
      break;
    double u = f / d;
    x -= u / (1 + x * u); /* Halley: f'' = -2x f' */
  }
  return y < 0 ? -x : x;
}

static inline float erfinv_F32(float y) { return (float)erfinv_f64(y); }
static inline double erfinv_F64(double y) { return erfinv_f64(y); }

/* ---- digamma ----------------------------------------------------------------------------
 * x < 0: reflection psi(x) = psi(1 - x) - pi / tan(pi x).  x > 0: the
 * recurrence psi(x) = psi(x + 1) - 1/x up to x >= 10, then the asymptotic
 * series psi(x) ~ ln x - 1/(2x) - sum B_2k / (2k x^2k). */
static double digamma_f64(double x)
{
  const double pi = 3.14159265358979323846;
  if (isnan(x) || x == -INFINITY)
    return NAN;
  if (x == 0)
    return signbit(x) ? INFINITY : -INFINITY;
  if (x < 0) {
    if (x == floor(x))
      return NAN;
    /* cot(pi x) has period 1: reduce to [-1/2, 1/2] first, exactly, so that
     * neither large |x| nor tiny |x| loses the argument */
    double r = x - round(x);
    return digamma_f64(1 - x) - pi / tan(pi * r);
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
  return acc + log(x) - 0.5 / x - series;
}

static inline float digamma_F32(float x) { return (float)digamma_f64(x); }
static inline double digamma_F64(double x) { return digamma_f64(x); }

/* ---- polygamma ---------------------------------------------------------------------------
 * _polygamma(x, n) is polygamma(n, x), the n-th derivative of digamma; n
 * arrives in x's float type and must be a whole number >= 0 (else NaN; the
 * Python wrapper refuses it first).  n >= 1: (-1)^(n+1) n! zeta(n+1, x) with
 * the Hurwitz zeta summed directly until the argument w = x + k is past
 * n + 20, then closed by the Euler-Maclaurin tail
 *   w^(1-s)/(s-1) + w^-s/2 + sum_j B_2j/(2j)! s(s+1)..(s+2j-2) w^(1-s-2j),
 * whose terms shrink like ((s+2j)/(2 pi w))^2 each.  The direct sum handles
 * negative non-integer x as well; zeta has a pole (+inf) at the integers
 * x <= 0, as in SciPy and PyTorch.  Below x = -1e7 the direct sum would take
 * too long: NaN there. */
/* sum (the direct part) plus the Euler-Maclaurin tail at w, given ws = w^-s
 * (or w^-s times a scale: the tail is linear in it). */
static double zeta_tail(double s, double w, double ws, double sum)
{
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

static double hurwitz_zeta(double s, double q)
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
  return zeta_tail(s, w, pow(w, -s), sum);
}

/* Large orders: n! overflows and zeta(n + 1, x) underflows long before their
 * product does, and the direct sum above would run n + 20 - x steps.  Scale
 * every term by the largest, (min |x + k|)^-s, and stop as soon as the terms
 * left are negligible (past x + k > 0 they shrink like ((x+k)/(x+k+1))^s, so
 * a few dozen terms do once s is large); the result is assembled in logs:
 * log|psi| = lgamma(n + 1) + log_scale + log|sum|. */
static double polygamma_large_order(double x, double n)
{
  const double s = n + 1;
  if (x < -1e7)
    return NAN; /* as hurwitz_zeta: the negative part would take |x| steps */
  const bool odd_s = fmod(s, 2) == 1;
  /* At half-integers x < 0 the terms (x+k)^-s for x+k = -1/2, -3/2, ... cancel
   * those for +1/2, +3/2, ... exactly when s is odd, and the scaled sum would
   * keep only rounding: sum what is left, zeta(s, 1 - x), instead. */
  if (x < 0 && odd_s && x - floor(x) == 0.5)
    x = 1 - x;
  double nearest = x >= 0 ? x : fmin(x - floor(x), ceil(x) - x); /* min |x + k| */
  if (nearest == 0)
    return fmod(n, 2) == 1 ? INFINITY : -INFINITY; /* a pole (x a non-positive integer) */
  const double log_nearest = log(nearest), log_scale = -s * log_nearest;
  double sum = 0, w = x;
  for (; w < s + 20; w += 1) {
    double term = exp(-s * (log(fabs(w)) - log_nearest)); /* |w|^-s / nearest^-s */
    if (w < 0 && odd_s)
      term = -term;
    sum += term;
    if (w > 0 && fabs(term) <= 1e-17 * fabs(sum))
      goto assemble; /* the rest, tail included, is below double precision */
  }
  sum = zeta_tail(s, w, exp(-s * log(w) - log_scale), sum);
assemble:
  if (sum == 0)
    return 0;
  double mag = exp(lgamma(n + 1) + log_scale + log(fabs(sum)));
  /* psi^(n)(x) = (-1)^(n+1) n! zeta(n + 1, x) */
  return (sum > 0) == (fmod(n, 2) == 1) ? mag : -mag;
}

static double polygamma_f64(double x, double n)
{
  if (isnan(x) || isnan(n) || n < 0 || n != floor(n))
    return NAN;
  if (n == 0)
    return digamma_f64(x);
  if (x == -INFINITY)
    return NAN;
  if (x == INFINITY)
    return 0;
  if (n > 100)
    return polygamma_large_order(x, n);
  double scale = 1; /* n! */
  for (double k = 2; k <= n && scale < INFINITY; k++)
    scale *= k;
  double z = hurwitz_zeta(n + 1, x);
  return fmod(n, 2) == 1 ? scale * z : -scale * z;
}

static inline float polygamma_F32(float x, float n) { return (float)polygamma_f64(x, n); }
static inline double polygamma_F64(double x, double n) { return polygamma_f64(x, n); }

/* ---- libm ------------------------------------------------------------------------------ */

/* float32 erf is tl_vecmath.h's polynomial (1.3 ULP, inlined in every clone),
 * the rest libm's (libmvec where vectorised) */
TL_VECMATH_BEGIN
static inline float erf_F32(float x) { return tl_erff(x); }
TL_K_UNARY_SIMD_LOOP(erf_F32_loop, float, float, erf_F32)
TL_VECMATH_END
static inline double erf_F64(double x) { return erf(x); }
static inline float erfc_F32(float x) { return erfcf(x); }
static inline double erfc_F64(double x) { return erfc(x); }
static inline float lgamma_F32(float x)
{
  int sign;
  return lgammaf_r(x, &sign);
}
static inline double lgamma_F64(double x)
{
  int sign;
  return lgamma_r(x, &sign);
}

TL_K_UNARY_SIMD_LOOP(erf_F64_loop, double, double, erf_F64)
TL_K_UNARY_SIMD_LOOP(erfc_F32_loop, float, float, erfc_F32)
TL_K_UNARY_SIMD_LOOP(erfc_F64_loop, double, double, erfc_F64)
TL_UNARY_LOOP(erfinv_F32_loop, float, float, erfinv_F32)
TL_UNARY_LOOP(erfinv_F64_loop, double, double, erfinv_F64)
TL_UNARY_LOOP(lgamma_F32_loop, float, float, lgamma_F32)
TL_UNARY_LOOP(lgamma_F64_loop, double, double, lgamma_F64)
TL_UNARY_LOOP(digamma_F32_loop, float, float, digamma_F32)
TL_UNARY_LOOP(digamma_F64_loop, double, double, digamma_F64)
TL_BINARY_LOOP(polygamma_F32_loop, float, float, polygamma_F32)
TL_BINARY_LOOP(polygamma_F64_loop, double, double, polygamma_F64)

/* The CPU loops of this file: (op, compute dtype, loop), registered in the
 * kernel table by tl_cpu_special_register. */
static const tl_k_entry special_loops[] = {
    {TL_OP_ERF, TL_DTYPE_F32, erf_F32_loop},
    {TL_OP_ERF, TL_DTYPE_F64, erf_F64_loop},
    {TL_OP_ERFC, TL_DTYPE_F32, erfc_F32_loop},
    {TL_OP_ERFC, TL_DTYPE_F64, erfc_F64_loop},
    {TL_OP_ERFINV, TL_DTYPE_F32, erfinv_F32_loop},
    {TL_OP_ERFINV, TL_DTYPE_F64, erfinv_F64_loop},
    {TL_OP_LGAMMA, TL_DTYPE_F32, lgamma_F32_loop},
    {TL_OP_LGAMMA, TL_DTYPE_F64, lgamma_F64_loop},
    {TL_OP_DIGAMMA, TL_DTYPE_F32, digamma_F32_loop},
    {TL_OP_DIGAMMA, TL_DTYPE_F64, digamma_F64_loop},
    {TL_OP_POLYGAMMA, TL_DTYPE_F32, polygamma_F32_loop},
    {TL_OP_POLYGAMMA, TL_DTYPE_F64, polygamma_F64_loop},
};

void tl_cpu_special_register(void)
{
  tl_k_register_all(special_loops, sizeof special_loops / sizeof *special_loops);

}
