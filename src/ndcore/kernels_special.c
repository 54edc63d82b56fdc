/* kernels_special.c - CPU loops of the special functions: erf, erfc, erfinv,
 * lgamma, digamma (float32 and float64; integers arrive as the default float,
 * half types through float32).
 *
 * erf and erfc are libm's.  lgamma uses lgamma_r, which does not write the
 * global `signgam` and so is safe on the worker threads.  erfinv and digamma
 * are our own: float32 computes in double and rounds once.  Edge values follow
 * SciPy (and PyTorch): erfinv(+-1) = +-inf, |y| > 1 -> NaN; digamma(+-0) =
 * -+inf, NaN at the negative integers and at -inf.                         */
#include "ndcore/tl_kernels.h"

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

/* ---- libm ------------------------------------------------------------------------------ */

static inline float erf_F32(float x) { return erff(x); }
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

TL_K_FLOATS(TL_KU_SIMD, erf) /* libmvec */
TL_K_FLOATS(TL_KU_SIMD, erfc)
TL_K_FLOATS(TL_KU, erfinv)
TL_K_FLOATS(TL_KU, lgamma)
TL_K_FLOATS(TL_KU, digamma)

void tl_cpu_special_init(void)
{
  TL_K_FLOATS(TL_KREG, ERF, erf)
  TL_K_FLOATS(TL_KREG, ERFC, erfc)
  TL_K_FLOATS(TL_KREG, ERFINV, erfinv)
  TL_K_FLOATS(TL_KREG, LGAMMA, lgamma)
  TL_K_FLOATS(TL_KREG, DIGAMMA, digamma)
}
