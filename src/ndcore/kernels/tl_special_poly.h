/* tl_special_poly.h - the classical orthogonal polynomials of torch.special,
 * p(x, n): Chebyshev T, U, V, W (and the shifted forms, p(2x - 1, n)),
 * physicists' and probabilists' Hermite H and He, Laguerre L and Legendre P.
 *
 * Written once for the CPU loops (kernels_polynomial.c) and the CUDA kernels
 * (src/gpu/special/polynomial.cu), as tl_special_scalar.h; double throughout.
 *
 * The order follows PyTorch: n is truncated to an integer (2.5 -> 2, -0.5
 * -> 0); a negative order, NaN or an infinite one gives 0.  The polynomials
 * run their three-term recurrences, n steps (so an overflow turns into NaN
 * as PyTorch's does); the Chebyshev ones switch to their trigonometric forms
 * inside (-1, 1) for larger n (T past 6, U V W past 8, PyTorch's thresholds),
 * where the recurrence would gather rounding error, and take their closed
 * values at x = +-1.                                                     */
#ifndef TL_SPECIAL_POLY_H
#define TL_SPECIAL_POLY_H

#include "ndcore/kernels/tl_special_scalar.h"

/* n as PyTorch's int64 conversion leaves it; -1 stands for "the result is 0" */
TL_SPECIAL_FN int64_t tl_poly_order(double n)
{
  if (!(n > -1) || n >= 9.2e18) /* NaN, infinities and n <= -1 */
    return -1;
  return (int64_t)n;
}

/* The recurrence p_{k+1} = (a_k x + b_k) p_k - c_k p_{k-1} from p0 = 1, p1,
 * for the kinds below, selected by `kind`. */
enum { TL_POLY_CHEB, TL_POLY_HERMITE_H, TL_POLY_HERMITE_HE, TL_POLY_LAGUERRE, TL_POLY_LEGENDRE };

TL_SPECIAL_FN double tl_poly_recurrence(int kind, double x, double p1, int64_t n)
{
  if (n == 0)
    return 1;
  double p = 1, q = p1;
  for (int64_t k = 1; k < n; k++) {
    double r, kd = (double)k;
    switch (kind) {
    case TL_POLY_CHEB: r = 2 * x * q - p; break;
    case TL_POLY_HERMITE_H: r = 2 * x * q - 2 * kd * p; break;
    case TL_POLY_HERMITE_HE: r = x * q - kd * p; break;
    case TL_POLY_LAGUERRE: r = ((2 * kd + 1 - x) * q - kd * p) / (kd + 1); break;
    default: r = ((2 * kd + 1) * x * q - kd * p) / (kd + 1); break;
    }
    p = q;
    q = r;
    if (isnan(q))
      break; /* stays NaN */
  }
  return q;
}

/* Chebyshev polynomials of the four kinds, t = 'T', 'U', 'V', 'W':
 *   T_n(cos th) = cos(n th)            U_n = sin((n+1) th) / sin th
 *   V_n = cos((n+1/2) th) / cos(th/2)  W_n = sin((n+1/2) th) / sin(th/2)
 * all with p_{k+1} = 2x p_k - p_{k-1}; p0 = 1, p1 = x, 2x, 2x - 1, 2x + 1. */
TL_SPECIAL_FN double tl_chebyshev(char t, double x, double nd)
{
  int64_t n = tl_poly_order(nd);
  if (n < 0)
    return 0;
  double nn = (double)n;
  if (fabs(x) == 1) {
    bool even = n % 2 == 0;
    switch (t) {
    case 'T': return x > 0 || even ? 1 : -1;
    case 'U': return x > 0 || even ? nn + 1 : -(nn + 1);
    case 'V': return x > 0 ? 1 : even ? 2 * nn + 1 : -(2 * nn + 1);
    default: return x < 0 ? (even ? 1 : -1) : 2 * nn + 1;
    }
  }
  if (fabs(x) < 1 && n > (t == 'T' ? 6 : 8)) {
    double th = acos(x);
    switch (t) {
    case 'T': return cos(nn * th);
    case 'U': {
      double s = sin(th);
      return s != 0 ? sin((nn + 1) * th) / s : (nn + 1) * cos((nn + 1) * th) / x;
    }
    case 'V': return cos((nn + 0.5) * th) / cos(0.5 * th);
    default: return sin((nn + 0.5) * th) / sin(0.5 * th);
    }
  }
  double p1 = t == 'T' ? x : t == 'U' ? 2 * x : t == 'V' ? 2 * x - 1 : 2 * x + 1;
  return tl_poly_recurrence(TL_POLY_CHEB, x, p1, n);
}

TL_SPECIAL_ENTRY double tl_chebyshev_t(double x, double n) { return tl_chebyshev('T', x, n); }
TL_SPECIAL_ENTRY double tl_chebyshev_u(double x, double n) { return tl_chebyshev('U', x, n); }
TL_SPECIAL_ENTRY double tl_chebyshev_v(double x, double n) { return tl_chebyshev('V', x, n); }
TL_SPECIAL_ENTRY double tl_chebyshev_w(double x, double n) { return tl_chebyshev('W', x, n); }
/* the shifted polynomials on [0, 1]: p*(x) = p(2x - 1), exact at x = 0, 1/2, 1 */
TL_SPECIAL_ENTRY double tl_shifted_chebyshev_t(double x, double n)
{
  return tl_chebyshev('T', x + x - 1, n);
}
TL_SPECIAL_ENTRY double tl_shifted_chebyshev_u(double x, double n)
{
  return tl_chebyshev('U', x + x - 1, n);
}
TL_SPECIAL_ENTRY double tl_shifted_chebyshev_v(double x, double n)
{
  return tl_chebyshev('V', x + x - 1, n);
}
TL_SPECIAL_ENTRY double tl_shifted_chebyshev_w(double x, double n)
{
  return tl_chebyshev('W', x + x - 1, n);
}

/* H_{k+1} = 2x H_k - 2k H_{k-1}, H1 = 2x;  He_{k+1} = x He_k - k He_{k-1}, He1 = x */
TL_SPECIAL_ENTRY double tl_hermite_h(double x, double nd)
{
  int64_t n = tl_poly_order(nd);
  return n < 0 ? 0 : tl_poly_recurrence(TL_POLY_HERMITE_H, x, 2 * x, n);
}

TL_SPECIAL_ENTRY double tl_hermite_he(double x, double nd)
{
  int64_t n = tl_poly_order(nd);
  return n < 0 ? 0 : tl_poly_recurrence(TL_POLY_HERMITE_HE, x, x, n);
}

/* (k+1) L_{k+1} = (2k + 1 - x) L_k - k L_{k-1}, L1 = 1 - x; L_n(0) = 1 */
TL_SPECIAL_ENTRY double tl_laguerre_l(double x, double nd)
{
  int64_t n = tl_poly_order(nd);
  if (n < 0)
    return 0;
  return x == 0 ? 1 : tl_poly_recurrence(TL_POLY_LAGUERRE, x, 1 - x, n);
}

/* (k+1) P_{k+1} = (2k + 1) x P_k - k P_{k-1}, P1 = x; P_n(1) = 1, P_n(-1) = (-1)^n */
TL_SPECIAL_ENTRY double tl_legendre_p(double x, double nd)
{
  int64_t n = tl_poly_order(nd);
  if (n < 0)
    return 0;
  if (fabs(x) == 1)
    return x > 0 || n % 2 == 0 ? 1 : -1;
  return tl_poly_recurrence(TL_POLY_LEGENDRE, x, x, n);
}

#endif
