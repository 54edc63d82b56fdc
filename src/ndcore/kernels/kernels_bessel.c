/* kernels_bessel.c - CPU loops of the modified Bessel functions of the first
 * kind: i0, i1 and their exponentially scaled forms i0e = exp(-|x|) i0,
 * i1e = exp(-|x|) i1 (float32 and float64; integers arrive as the default
 * float, half types through float32).  float32 computes in double and rounds
 * once.
 *
 * |x| <= 20: the power series, whose terms are all positive (no
 * cancellation; at most ~60 terms).  |x| > 20: the asymptotic expansion
 *   I_nu(x) ~ e^x / sqrt(2 pi x) * sum_k (-1)^k prod_{j<=k} (4nu^2 - (2j-1)^2) / (k! (8x)^k),
 * summed until its terms stop shrinking; its error is below e^-2x there.
 * i0 is even and i1 odd; i0(+-inf) = inf, i1(+-inf) = +-inf, the scaled
 * forms go to 0 there; NaN stays NaN.                                      */
#include "ndcore/dispatch/tl_kernels.h"

#define TL_BESSEL_SERIES_MAX 20.0

/* The power series of I_nu(x), nu = 0 or 1, for 0 <= x <= 20. */
static double bessel_series(int nu, double x)
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
static double bessel_asymptotic(int nu, double x)
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

/* exp(-|x|) I_nu(|x|), the scaled function at |x|. */
static double bessel_scaled(int nu, double ax)
{
  const double two_pi = 6.28318530717958647692;
  if (ax == INFINITY)
    return 0.0;
  if (ax <= TL_BESSEL_SERIES_MAX)
    return exp(-ax) * bessel_series(nu, ax);
  return bessel_asymptotic(nu, ax) / sqrt(two_pi * ax);
}

static double bessel(int nu, double ax)
{
  if (ax <= TL_BESSEL_SERIES_MAX)
    return bessel_series(nu, ax);
  if (ax > 713.0) /* e^x overflows; I_nu(x) > 1e306 already */
    return INFINITY;
  /* e^x split in two so that e^x alone cannot overflow before the division */
  const double two_pi = 6.28318530717958647692;
  double half = exp(0.5 * ax);
  return half * (bessel_asymptotic(nu, ax) / sqrt(two_pi * ax)) * half;
}

static double i0_f64(double x) { return isnan(x) ? x : bessel(0, fabs(x)); }
static double i0e_f64(double x) { return isnan(x) ? x : bessel_scaled(0, fabs(x)); }
static double i1_f64(double x)
{
  if (isnan(x))
    return x;
  double r = bessel(1, fabs(x));
  return x < 0 ? -r : r;
}
static double i1e_f64(double x)
{
  if (isnan(x))
    return x;
  double r = bessel_scaled(1, fabs(x));
  return x < 0 ? -r : r;
}

static inline float i0_F32(float x) { return (float)i0_f64(x); }
static inline double i0_F64(double x) { return i0_f64(x); }
static inline float i0e_F32(float x) { return (float)i0e_f64(x); }
static inline double i0e_F64(double x) { return i0e_f64(x); }
static inline float i1_F32(float x) { return (float)i1_f64(x); }
static inline double i1_F64(double x) { return i1_f64(x); }
static inline float i1e_F32(float x) { return (float)i1e_f64(x); }
static inline double i1e_F64(double x) { return i1e_f64(x); }

TL_UNARY_LOOP(i0_F32_loop, float, float, i0_F32)
TL_UNARY_LOOP(i0_F64_loop, double, double, i0_F64)
TL_UNARY_LOOP(i0e_F32_loop, float, float, i0e_F32)
TL_UNARY_LOOP(i0e_F64_loop, double, double, i0e_F64)
TL_UNARY_LOOP(i1_F32_loop, float, float, i1_F32)
TL_UNARY_LOOP(i1_F64_loop, double, double, i1_F64)
TL_UNARY_LOOP(i1e_F32_loop, float, float, i1e_F32)
TL_UNARY_LOOP(i1e_F64_loop, double, double, i1e_F64)

/* The CPU loops of this file: (op, compute dtype, loop), registered in the
 * kernel table by tl_cpu_bessel_register. */
static const tl_k_entry bessel_loops[] = {
    {TL_OP_I0, TL_DTYPE_F32, i0_F32_loop},
    {TL_OP_I0, TL_DTYPE_F64, i0_F64_loop},
    {TL_OP_I0E, TL_DTYPE_F32, i0e_F32_loop},
    {TL_OP_I0E, TL_DTYPE_F64, i0e_F64_loop},
    {TL_OP_I1, TL_DTYPE_F32, i1_F32_loop},
    {TL_OP_I1, TL_DTYPE_F64, i1_F64_loop},
    {TL_OP_I1E, TL_DTYPE_F32, i1e_F32_loop},
    {TL_OP_I1E, TL_DTYPE_F64, i1e_F64_loop},
};

void tl_cpu_bessel_register(void)
{
  tl_k_register_all(bessel_loops, sizeof bessel_loops / sizeof *bessel_loops);

}
