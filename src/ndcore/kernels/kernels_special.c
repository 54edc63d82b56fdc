/* kernels_special.c - CPU loops of the special functions: erf, erfc, erfinv,
 * lgamma, digamma, polygamma, and torch.special's erfcx, ndtr, log_ndtr, ndtri,
 * entr, xlog1py, igamma, igammac, zeta (float32 and float64; integers arrive as
 * the default float, half types through float32).
 *
 * erf and erfc are libm's, but float32 erf is tl_vecmath.h's tl_erff.  lgamma
 * uses lgamma_r, which does not write the global `signgam` and so is safe on
 * the worker threads.  erfinv, digamma and polygamma are our own: float32
 * computes in double and rounds once.  The series of digamma and polygamma
 * are in tl_special_scalar.h, which the CUDA kernels compile too
 * (src/gpu/special).  Edge values follow SciPy (and PyTorch): erfinv(+-1) =
 * +-inf, |y| > 1 -> NaN; digamma(+-0) = -+inf, NaN at the negative integers
 * and at -inf.                                                              */
#include "ndcore/dispatch/tl_kernels.h"
#include "ndcore/kernels/tl_special_normal.h"

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

/* ---- digamma, polygamma: tl_special_scalar.h, shared with the CUDA kernels -------------- */

static inline float digamma_F32(float x) { return (float)tl_digamma(x); }
static inline double digamma_F64(double x) { return tl_digamma(x); }
static inline float polygamma_F32(float x, float n) { return (float)tl_polygamma(x, n); }
static inline double polygamma_F64(double x, double n) { return tl_polygamma(x, n); }

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

/* ---- torch.special's: tl_special_normal.h, in double (float32 converts each way) ---- */
TL_UNARY_LOOP(erfcx_F32_loop, float, float, tl_erfcx)
TL_UNARY_LOOP(erfcx_F64_loop, double, double, tl_erfcx)
TL_UNARY_LOOP(ndtr_F32_loop, float, float, tl_ndtr)
TL_UNARY_LOOP(ndtr_F64_loop, double, double, tl_ndtr)
TL_UNARY_LOOP(log_ndtr_F32_loop, float, float, tl_log_ndtr)
TL_UNARY_LOOP(log_ndtr_F64_loop, double, double, tl_log_ndtr)
TL_UNARY_LOOP(ndtri_F32_loop, float, float, tl_ndtri)
TL_UNARY_LOOP(ndtri_F64_loop, double, double, tl_ndtri)
TL_UNARY_LOOP(entr_F32_loop, float, float, tl_entr)
TL_UNARY_LOOP(entr_F64_loop, double, double, tl_entr)
TL_BINARY_LOOP(xlog1py_F32_loop, float, float, tl_xlog1py)
TL_BINARY_LOOP(xlog1py_F64_loop, double, double, tl_xlog1py)
TL_BINARY_LOOP(zeta_F32_loop, float, float, tl_zeta)
TL_BINARY_LOOP(zeta_F64_loop, double, double, tl_zeta)
TL_BINARY_LOOP(igamma_F32_loop, float, float, tl_igamma)
TL_BINARY_LOOP(igamma_F64_loop, double, double, tl_igamma)
TL_BINARY_LOOP(igammac_F32_loop, float, float, tl_igammac)
TL_BINARY_LOOP(igammac_F64_loop, double, double, tl_igammac)

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
    {TL_OP_ERFCX, TL_DTYPE_F32, erfcx_F32_loop},
    {TL_OP_ERFCX, TL_DTYPE_F64, erfcx_F64_loop},
    {TL_OP_NDTR, TL_DTYPE_F32, ndtr_F32_loop},
    {TL_OP_NDTR, TL_DTYPE_F64, ndtr_F64_loop},
    {TL_OP_LOG_NDTR, TL_DTYPE_F32, log_ndtr_F32_loop},
    {TL_OP_LOG_NDTR, TL_DTYPE_F64, log_ndtr_F64_loop},
    {TL_OP_NDTRI, TL_DTYPE_F32, ndtri_F32_loop},
    {TL_OP_NDTRI, TL_DTYPE_F64, ndtri_F64_loop},
    {TL_OP_ENTR, TL_DTYPE_F32, entr_F32_loop},
    {TL_OP_ENTR, TL_DTYPE_F64, entr_F64_loop},
    {TL_OP_XLOG1PY, TL_DTYPE_F32, xlog1py_F32_loop},
    {TL_OP_XLOG1PY, TL_DTYPE_F64, xlog1py_F64_loop},
    {TL_OP_ZETA, TL_DTYPE_F32, zeta_F32_loop},
    {TL_OP_ZETA, TL_DTYPE_F64, zeta_F64_loop},
    {TL_OP_IGAMMA, TL_DTYPE_F32, igamma_F32_loop},
    {TL_OP_IGAMMA, TL_DTYPE_F64, igamma_F64_loop},
    {TL_OP_IGAMMAC, TL_DTYPE_F32, igammac_F32_loop},
    {TL_OP_IGAMMAC, TL_DTYPE_F64, igammac_F64_loop},
};

void tl_cpu_special_register(void)
{
  tl_k_register_all(special_loops, sizeof special_loops / sizeof *special_loops);

}
