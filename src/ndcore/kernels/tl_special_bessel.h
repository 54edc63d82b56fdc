/* tl_special_bessel.h - the Bessel functions of torch.special that
 * tl_special_scalar.h does not hold: J0, J1, Y0, Y1, K0, K1 and the scaled
 * e^x K0, e^x K1, the spherical j0 and the Airy function Ai.
 *
 * Written once for the CPU loops (kernels_bessel.c) and the CUDA kernels
 * (src/gpu/special/bessel.cu), as tl_special_scalar.h; double throughout,
 * no recursion, no loop whose length depends on x.  Most of the work is a
 * polynomial from generated/tl_special_tables.h (scripts/gen_special_tables.py:
 * Chebyshev interpolants accurate to about 2^-60 of the function's size on
 * each piece, where the function has no singularity), by range (x >= 0;
 * J0 is even, J1 odd):
 *   J, Y   x <= 2: J0 and J1/x as polynomials in x^2, Y0 and Y1 as
 *          2/pi log(x/2) J (- 2/(pi x) for Y1) plus an entire part, also a
 *          polynomial in x^2; 2 < x < 25: pieces of width 1; x >= 25: the
 *          Hankel asymptotic expansion, its exact coefficients summed up to
 *          the term below 2^-64 at x = 25.
 *   K      x <= 2: K0 = -log(x/2) I0 + (entire), K1 = 1/x + log(x/2) I1 +
 *          (entire), each part a polynomial in x^2; x > 2: e^x sqrt(x) K as
 *          pieces in 1/x (so the scaled forms never overflow).
 *   Ai     -11.25 <= x < 2: pieces of width 1/4; x >= 2: e^z x^1/4 Ai in
 *          pieces of 1/z, z = 2/3 x^3/2; x < -11.25 (z > 25): the asymptotic
 *          expansion with exact coefficients.
 * Edge values follow PyTorch: J, Y and Ai are NaN at +-inf (PyTorch's
 * reductions leave inf - inf there); Y is -inf at 0 and NaN below; K is +inf
 * at 0, 0 at +inf and NaN below 0; spherical j0(+-inf) = 0.              */
#ifndef TL_SPECIAL_BESSEL_H
#define TL_SPECIAL_BESSEL_H

#include "ndcore/kernels/tl_special_scalar.h"
#include "ndcore/kernels/generated/tl_special_tables.h"

#define TL_SPECIAL_2_PI 0.63661977236758134308 /* 2 / pi */

/* ---- J0, J1, Y0, Y1 ----------------------------------------------------------------- */

/* The Hankel expansion at x >= 25 for order nu (0 or 1):
 *   J = sqrt(2/(pi x)) (P cos chi - Q sin chi),  Y = sqrt(2/(pi x)) (P sin chi + Q cos chi),
 *   chi = x - (nu/2 + 1/4) pi, P and Q x polynomials in 1/x^2 (the tables);
 * cos chi and sin chi from cos x and sin x (libm reduces x exactly). */
TL_SPECIAL_FN double tl_bessel_jy_hankel(int nu, bool second, double x)
{
  double u = 1 / (x * x), p, qq;
  if (nu) {
    p = TL_SPECIAL_SERIES(hankel1_p, u);
    qq = TL_SPECIAL_SERIES(hankel1_q, u) / x;
  } else {
    p = TL_SPECIAL_SERIES(hankel0_p, u);
    qq = TL_SPECIAL_SERIES(hankel0_q, u) / x;
  }
  double c = cos(x), s = sin(x), r = sqrt(TL_SPECIAL_2_PI / x) * 0.70710678118654752440;
  /* chi = x - pi/4: cos = (c + s)/sqrt2, sin = (s - c)/sqrt2;
   * chi = x - 3pi/4: cos = (s - c)/sqrt2, sin = -(s + c)/sqrt2 */
  double cc = nu ? s - c : c + s, sc = nu ? -(s + c) : s - c;
  return second ? r * (p * sc + qq * cc) : r * (p * cc - qq * sc);
}

/* which: 0 J0, 1 J1, 2 Y0, 3 Y1 */
TL_SPECIAL_FN double tl_bessel_jy(int which, double x)
{
  bool odd = which == 1 || which == 3, second = which >= 2;
  if (isnan(x) || isinf(x))
    return NAN;
  if (second && x <= 0)
    return x == 0 ? -INFINITY : NAN;
  double ax = fabs(x), r;
  if (ax == 0)
    return which == 0 ? 1 : x; /* J1(+-0) = +-0 */
  if (ax <= 2) {
    double s = ax * ax, l = TL_SPECIAL_2_PI * log(0.5 * ax);
    switch (which) {
    case 0: r = TL_SPECIAL_PIECEWISE(j0_small, s); break;
    case 1: r = ax * TL_SPECIAL_PIECEWISE(j1_small, s); break;
    case 2: r = l * TL_SPECIAL_PIECEWISE(j0_small, s) + TL_SPECIAL_PIECEWISE(y0_small, s); break;
    default:
      r = -TL_SPECIAL_2_PI / ax +
          ax * (l * TL_SPECIAL_PIECEWISE(j1_small, s) + TL_SPECIAL_PIECEWISE(y1_small, s));
      break;
    }
  } else if (ax < 25) {
    switch (which) {
    case 0: r = TL_SPECIAL_PIECEWISE(j0, ax); break;
    case 1: r = TL_SPECIAL_PIECEWISE(j1, ax); break;
    case 2: r = TL_SPECIAL_PIECEWISE(y0, ax); break;
    default: r = TL_SPECIAL_PIECEWISE(y1, ax); break;
    }
  } else {
    r = tl_bessel_jy_hankel(odd, second, ax);
  }
  return which == 1 && x < 0 ? -r : r;
}

TL_SPECIAL_ENTRY double tl_bessel_j0(double x) { return tl_bessel_jy(0, x); }
TL_SPECIAL_ENTRY double tl_bessel_j1(double x) { return tl_bessel_jy(1, x); }
TL_SPECIAL_ENTRY double tl_bessel_y0(double x) { return tl_bessel_jy(2, x); }
TL_SPECIAL_ENTRY double tl_bessel_y1(double x) { return tl_bessel_jy(3, x); }

/* ---- K0, K1 and their scaled forms ---------------------------------------------------- */

/* K_nu(x) for nu = 0, 1, scaled by e^x when asked */
TL_SPECIAL_FN double tl_bessel_k(int nu, double x, bool scaled)
{
  if (isnan(x) || x < 0)
    return NAN;
  if (x == 0)
    return INFINITY;
  if (x == INFINITY)
    return 0;
  if (x <= 2) {
    double s = x * x, l = log(0.5 * x), k;
    if (nu)
      k = 1 / x + x * (l * TL_SPECIAL_PIECEWISE(i1_small, s) + TL_SPECIAL_PIECEWISE(k1_small, s));
    else
      k = TL_SPECIAL_PIECEWISE(k0_small, s) - l * TL_SPECIAL_PIECEWISE(i0_small, s);
    return scaled ? k * exp(x) : k;
  }
  double t = 1 / x, k = (nu ? TL_SPECIAL_PIECEWISE(k1_large, t) : TL_SPECIAL_PIECEWISE(k0_large, t)) *
                        sqrt(t); /* e^x K */
  return scaled ? k : k * exp(-x);
}

TL_SPECIAL_ENTRY double tl_bessel_k0(double x) { return tl_bessel_k(0, x, false); }
TL_SPECIAL_ENTRY double tl_bessel_k1(double x) { return tl_bessel_k(1, x, false); }
TL_SPECIAL_ENTRY double tl_bessel_k0e(double x) { return tl_bessel_k(0, x, true); }
TL_SPECIAL_ENTRY double tl_bessel_k1e(double x) { return tl_bessel_k(1, x, true); }

/* ---- spherical j0(x) = sin(x) / x --------------------------------------------------- */
TL_SPECIAL_ENTRY double tl_spherical_j0(double x)
{
  if (isinf(x))
    return 0;
  if (fabs(x) < 0.5) { /* 1 - x^2/6 + x^4/120 - ...: sin(x)/x would round twice */
    double x2 = x * x, term = 1, sum = 1;
    for (int k = 1; k < 12; k++) {
      term *= -x2 / ((2.0 * k) * (2.0 * k + 1));
      sum += term;
    }
    return sum;
  }
  return sin(x) / x;
}

/* ---- Airy Ai ---------------------------------------------------------------------------- */

TL_SPECIAL_ENTRY double tl_airy_ai(double x)
{
  if (isnan(x) || isinf(x))
    return NAN;
  if (x >= 2) {
    double z = 2.0 / 3 * x * sqrt(x);
    if (z > 745)
      return 0;
    return TL_SPECIAL_PIECEWISE(airy_large, 1 / z) * exp(-z) / sqrt(sqrt(x));
  }
  if (x >= TL_TAB_airy_LO)
    return TL_SPECIAL_PIECEWISE(airy, x);
  /* Ai(-x) ~ (sin(z + pi/4) P - cos(z + pi/4) Q) / (sqrt(pi) x^1/4), with
   * P and Q z polynomials in 1/z^2 (the tables) */
  double ax = -x, z = 2.0 / 3 * ax * sqrt(ax), u = 1 / (z * z);
  double p = TL_SPECIAL_SERIES(airy_neg_p, u), qq = TL_SPECIAL_SERIES(airy_neg_q, u) / z;
  /* sin(z + pi/4) = (sin z + cos z)/sqrt2, cos(z + pi/4) = (cos z - sin z)/sqrt2 */
  double s = sin(z), c = cos(z);
  return ((s + c) * p - (c - s) * qq) * 0.70710678118654752440 /
         (TL_SPECIAL_SQRT_PI * sqrt(sqrt(ax)));
}

#endif
