/* tl_special_normal.h - the scalar functions of torch.special's normal
 * distribution and entropy family: erfcx, ndtr, log_ndtr, ndtri, entr,
 * xlog1py; and of the gamma family: the regularised incomplete gamma
 * functions (igamma = gammainc, igammac = gammaincc) and the Hurwitz zeta.
 *
 * Written once, in the C subset that CUDA C++ also compiles, as
 * tl_special_scalar.h (whose TL_SPECIAL_FN/ENTRY and Hurwitz zeta this file
 * uses): the CPU loops (kernels_special.c) and src/gpu/special/normal.cu
 * compile the same code.  Everything computes in double.
 *
 * Edge values follow PyTorch (which follows Cephes/SciPy): ndtri is NaN
 * outside [0, 1] and +-inf at 1 and 0; entr(x < 0) = -inf; xlog1py(0, y) = 0
 * unless y is NaN; igamma(a, x) is NaN for a < 0 or x < 0 or both zero,
 * 1 (igammac 0) at a = 0 < x; zeta(x, q) is NaN for x < 1, +inf at x = 1
 * and at the integers q <= 0, NaN for a non-integer x with q < 0.        */
#ifndef TL_SPECIAL_NORMAL_H
#define TL_SPECIAL_NORMAL_H

#include "ndcore/kernels/tl_special_scalar.h"
#include "ndcore/kernels/generated/tl_special_tables.h"

#define TL_SPECIAL_SQRT1_2 0.70710678118654752440
#define TL_SPECIAL_SQRT_2PI 2.50662827463100050242

/* exp(a) for a = hi + lo given exactly as a sum (lo tiny against hi). */
TL_SPECIAL_FN double tl_exp_sum(double hi, double lo) { return exp(hi) * (1 + lo); }

/* ---- erfcx(x) = exp(x^2) erfc(x) ---------------------------------------------------------
 * x >= 10: the asymptotic series 1/(x sqrt(pi)) sum (-1)^k (2k-1)!! / (2x^2)^k,
 * whose 13th term is below 1e-16 there.  0 <= x < 10: exp(x^2) erfc(x), with
 * x^2 split exactly into hi + lo (an FMA) so that exp does not amplify the
 * rounding of x^2 (erfc itself is accurate to an ulp there).  x < 0:
 * 2 exp(x^2) - erfcx(-x), overflowing to +inf below -26.6. */
TL_SPECIAL_FN double tl_erfcx_pos(double x)
{
  if (x < 10) {
    double hi = x * x, lo = fma(x, x, -hi);
    return tl_exp_sum(hi, lo) * erfc(x);
  }
  if (x == INFINITY)
    return 0;
  double z = 1 / (2 * x * x), term = 1, sum = 1;
  for (int k = 1; k < 20; k++) {
    term *= -(2 * k - 1) * z;
    sum += term;
    if (fabs(term) < 1e-17)
      break;
  }
  return sum / (x * TL_SPECIAL_SQRT_PI);
}

TL_SPECIAL_ENTRY double tl_erfcx(double x)
{
  if (isnan(x))
    return x;
  if (x >= 0)
    return tl_erfcx_pos(x);
  if (x < -26.7)
    return INFINITY;
  double hi = x * x, lo = fma(x, x, -hi);
  return 2 * tl_exp_sum(hi, lo) - tl_erfcx_pos(-x);
}

/* ---- the standard normal distribution ---------------------------------------------------
 * ndtr(x) = erfc(-x / sqrt 2) / 2, accurate in the lower tail and to an
 * absolute ulp in the upper.  log_ndtr: below x = -1, log(erfcx(-x/sqrt 2)/2)
 * - x^2/2, which neither underflows nor cancels; above, log1p(-ndtr(-x)). */
TL_SPECIAL_ENTRY double tl_ndtr(double x) { return 0.5 * erfc(-x * TL_SPECIAL_SQRT1_2); }

TL_SPECIAL_ENTRY double tl_log_ndtr(double x)
{
  if (x < -1)
    return log(0.5 * tl_erfcx(-x * TL_SPECIAL_SQRT1_2)) - 0.5 * x * x;
  return log1p(-0.5 * erfc(x * TL_SPECIAL_SQRT1_2));
}

/* ndtri(p), the inverse of ndtr, from generated/tl_special_tables.h.  Near
 * the middle, |p - 1/2| <= 0.4 (where r = p - 1/2 is exact or, below 1/4,
 * within 2^-55 of r, which moves ndtri by less than 2e-16 of itself),
 * ndtri = r g(r^2) keeps its relative precision down to 0.  In the tails,
 * with q = min(p, 1 - p) (1 - p is exact for p > 1/2) and
 * s = sqrt(-2 log q), ndtri(q) = -h(1/s) s with h near 1 and smooth, as
 * pieces in 1/s (1/s >= 0.0259 for the smallest subnormal q).  The middle
 * holds 80% of (0, 1): fewer mispredicted branches on spread inputs. */
TL_SPECIAL_ENTRY double tl_ndtri(double p)
{
  if (isnan(p) || p < 0 || p > 1)
    return NAN;
  if (p == 0 || p == 1)
    return p == 0 ? -INFINITY : INFINITY;
  double r = p - 0.5;
  if (fabs(r) <= 0.4)
    return r * TL_SPECIAL_PIECEWISE(ndtri_central, r * r);
  double q = r > 0 ? 1 - p : p, s = sqrt(-2 * log(q));
  double x = TL_SPECIAL_PIECEWISE(ndtri_tail, 1 / s) * s;
  return r > 0 ? x : -x;
}

/* ---- entropy terms -------------------------------------------------------------------- */

/* entr(x) = -x log x, 0 at 0, -inf for x < 0 */
TL_SPECIAL_ENTRY double tl_entr(double x)
{
  if (isnan(x))
    return x;
  if (x > 0)
    return x == INFINITY ? -INFINITY : -x * log(x);
  return x == 0 ? 0 : -INFINITY;
}

/* xlog1py(x, y) = x log1p(y), 0 where x == 0 unless y is NaN */
TL_SPECIAL_ENTRY double tl_xlog1py(double x, double y)
{
  if (isnan(y))
    return y;
  return x == 0 ? 0 : x * log1p(y);
}

/* ---- regularised incomplete gamma functions ----------------------------------------------
 * P(a, x) = gamma(a, x) / Gamma(a) (igamma) and Q = 1 - P (igammac), for a, x > 0:
 * the power series of P where x < a + 1 and the continued fraction of Q
 * elsewhere (each converges in O(sqrt(a)) terms at worst, near x = a); the
 * other is one minus it; Temme's uniform expansion for a > 1e7 near x = a.
 * Both carry the factor D = x^a e^-x / Gamma(a + 1).
 * For a >= 10 log D is formed as a log1pmx(t) - log(2 pi a)/2 - stirlerr(a)
 * with x = a (1 + t), so that no difference of the large terms a log x, x
 * and lgamma(a) loses its digits. */

/* log1p(t) - t, accurate for small t: with r = t / (2 + t),
 * log1p(t) = 2 atanh(r) and t - 2r = r t, so log1p(t) - t = -r t + 2 (r^3/3 + r^5/5 + ...). */
TL_SPECIAL_FN double tl_log1pmx(double t)
{
  if (fabs(t) > 0.5)
    return log1p(t) - t;
  double r = t / (2 + t), r2 = r * r, pow = r * r2, sum = 0;
  for (int k = 3; k < 60; k += 2) {
    double term = pow / k;
    sum += term;
    if (fabs(term) <= 1e-17 * fabs(sum))
      break;
    pow *= r2;
  }
  return 2 * sum - r * t;
}

/* Stirling's error: lgamma(a + 1) - (a + 1/2) log a + a - log(2 pi)/2, for a >= 10
 * (the first term left out is below 1e-15 there). */
TL_SPECIAL_FN double tl_stirlerr(double a)
{
  double z = 1 / (a * a);
  return (1.0 / 12 - z * (1.0 / 360 - z * (1.0 / 1260 - z * (1.0 / 1680 -
          z * (1.0 / 1188 - z * (691.0 / 360360)))))) / a;
}

/* log(x^a e^-x / Gamma(a + 1)) */
TL_SPECIAL_FN double tl_igamma_log_factor(double a, double x)
{
  if (a < 10)
    return a * log(x) - x - lgamma(a + 1);
  double t = (x - a) / a;
  /* far from a, x - a loses x's digits: a log(x / a) - (x - a) instead */
  double main = fabs(t) <= 0.5 ? a * tl_log1pmx(t) : a * log(x / a) - (x - a);
  return main - 0.5 * log(2 * TL_SPECIAL_PI * a) - tl_stirlerr(a);
}

/* P(a, x) by its series D (1 + x/(a+1) + x^2/((a+1)(a+2)) + ...), x < a + 1 */
TL_SPECIAL_FN double tl_igamma_series(double a, double x)
{
  double term = 1, sum = 1;
  for (int k = 1; k < 100000; k++) {
    term *= x / (a + k);
    sum += term;
    if (term <= 1e-17 * sum)
      break;
  }
  return exp(tl_igamma_log_factor(a, x)) * sum;
}

/* Q(a, x) by the continued fraction of Legendre,
 *   Gamma(a, x) = e^-x x^a / (x + 1 - a - 1 (1 - a) / (x + 3 - a - 2 (2 - a) / (x + 5 - a - ...))),
 * evaluated forwards by Lentz's method, x >= a + 1 (then every denominator is positive). */
TL_SPECIAL_FN double tl_igammac_fraction(double a, double x)
{
  const double tiny = 1e-300;
  double b = x + 1 - a, c = 1 / tiny, d = 1 / b, h = d;
  for (int k = 1; k < 100000; k++) {
    double an = -k * (k - a);
    b += 2;
    d = an * d + b;
    d = fabs(d) < tiny ? tiny : d;
    c = b + an / c;
    c = fabs(c) < tiny ? tiny : c;
    d = 1 / d;
    double delta = d * c;
    h *= delta;
    if (fabs(delta - 1) <= 1e-16)
      break;
  }
  /* D a = x^a e^-x / Gamma(a) */
  return exp(tl_igamma_log_factor(a, x)) * a * h;
}

/* Q(a, x) by Temme's uniform asymptotic expansion (DLMF 8.12), for a > 1e7
 * and x within 30% of a, where the series and the fraction would take
 * O(sqrt(a)) terms:
 *   Q = erfc(eta sqrt(a/2)) / 2 + R,  P = erfc(-eta sqrt(a/2)) / 2 - R,
 *   R = e^(-a eta^2 / 2) / sqrt(2 pi a) (c0 + c1 / a),
 *   lambda = x / a, eta = sign(lambda - 1) sqrt(2 (lambda - 1 - log lambda)),
 *   c0 = 1/(lambda-1) - 1/eta,  c1 = 1/eta^3 - 1/(lambda-1)^3 - 1/(lambda-1)^2 - 1/(12 (lambda-1));
 * the next term is below 1e-14 of the sum there.  Near lambda = 1 the
 * differences cancel: their Taylor series in eta instead. */
TL_SPECIAL_FN double tl_igamma_uniform(double a, double x, bool upper)
{
  double t = (x - a) / a; /* lambda - 1 */
  double eta2 = -2 * tl_log1pmx(t);  /* 2 (lambda - 1 - log lambda) */
  double eta = t < 0 ? -sqrt(eta2) : sqrt(eta2);
  double c0, c1;
  if (fabs(eta) < 1e-3) {
    c0 = -1.0 / 3 + eta * (1.0 / 12 - eta * 2.0 / 135);
    c1 = -1.0 / 540 - eta / 288;
  } else {
    c0 = 1 / t - 1 / eta;
    c1 = 1 / (eta * eta * eta) - 1 / (t * t * t) - 1 / (t * t) - 1 / (12 * t);
  }
  double r = exp(-0.5 * a * eta2) / sqrt(2 * TL_SPECIAL_PI * a) * (c0 + c1 / a);
  /* P = erfc(-eta sqrt(a/2)) / 2 - R: each tail from its own erfc, not 1 - the other */
  return upper ? 0.5 * erfc(eta * sqrt(0.5 * a)) + r : 0.5 * erfc(-eta * sqrt(0.5 * a)) - r;
}

/* upper: Q(a, x) (igammac) rather than P(a, x) (igamma) */
TL_SPECIAL_FN double tl_igamma_either(double a, double x, bool upper)
{
  if (isnan(a) || isnan(x) || a < 0 || x < 0 || (a == 0 && x == 0))
    return NAN;
  if (a == 0)
    return upper ? 0 : 1;
  if (x == 0)
    return upper ? 1 : 0;
  if (isinf(a))
    return isinf(x) ? NAN : upper ? 1 : 0;
  if (isinf(x))
    return upper ? 0 : 1;
  if (a > 1e7 && fabs(x - a) < 0.3 * a)
    return tl_igamma_uniform(a, x, upper);
  if (x < a + 1) {
    double p = tl_igamma_series(a, x);
    return upper ? 1 - p : p;
  }
  double q = tl_igammac_fraction(a, x);
  return upper ? q : 1 - q;
}

TL_SPECIAL_ENTRY double tl_igamma(double a, double x) { return tl_igamma_either(a, x, false); }
TL_SPECIAL_ENTRY double tl_igammac(double a, double x) { return tl_igamma_either(a, x, true); }

/* ---- the Hurwitz zeta function zeta(x, q) = sum_k (q + k)^-x ------------------------------
 * tl_hurwitz_zeta (tl_special_scalar.h) sums directly up to q + k >= x + 20 and
 * adds the Euler-Maclaurin tail; for large x the terms fall so fast that the
 * sum stops once a term, and the tail it bounds (term (1 + w / (x - 1))), is
 * negligible, so that zeta(1000, 1) takes a few steps, not a thousand. */
TL_SPECIAL_ENTRY double tl_zeta(double x, double q)
{
  if (isnan(x) || isnan(q))
    return NAN;
  if (x == 1)
    return INFINITY;
  if (x < 1)
    return NAN;
  if (q <= 0) {
    if (q == floor(q))
      return INFINITY;
    if (x != floor(x))
      return NAN; /* (q + k)^-x is not real */
  }
  if (x == INFINITY) /* Cephes: 1 at q = 1, +inf below (the first term), NaN above */
    return q == 1 ? 1 : q < 1 ? INFINITY : NAN;
  if (q == INFINITY)
    return NAN; /* as Cephes, which PyTorch follows */
  if (q > 0 && x > 30 && q < x + 20) { /* from x + 20 on, the tail alone serves */
    double sum = 0;
    for (double w = q; w < q + 1e4; w += 1) {
      double term = pow(w, -x);
      sum += term;
      if (term * (1 + w / (x - 1)) <= 1e-17 * sum)
        return sum;
    }
  }
  return tl_hurwitz_zeta(x, q);
}

#endif
