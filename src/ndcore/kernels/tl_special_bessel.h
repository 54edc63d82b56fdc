/* tl_special_bessel.h - the Bessel functions of torch.special that
 * tl_special_scalar.h does not hold: J0, J1, Y0, Y1, K0, K1 and the scaled
 * e^x K0, e^x K1, the spherical j0 and the Airy function Ai.
 *
 * Written once for the CPU loops (kernels_bessel.c) and the CUDA kernels
 * (src/gpu/special/bessel.cu), as tl_special_scalar.h; double throughout,
 * no recursion.  Methods, by range (x >= 0; J0 is even, J1 odd):
 *   J, Y   x <= 4: the power series (A&S 9.1.10, 9.1.11), which cancel by
 *          less than a digit there; 4 < x <= 25: Miller's downward
 *          recurrence for J_n normalised by J0 + 2 (J2 + J4 + ...) = 1, with
 *          Y0 and Y1 from the Neumann series over the same J_n; x > 25: the
 *          Hankel asymptotic expansion (its smallest term is below e^-2x).
 *   K      x <= 2: the power series (A&S 9.6.13); beyond, Steed's method
 *          for the continued fraction of K_nu (Temme's CF2), which gives
 *          e^x K_nu directly (so the scaled forms never overflow).
 *   Ai     |x| <= 2.1: the Maclaurin series; x > 2.1: Ai = sqrt(x/3) K_1/3(z) / pi,
 *          z = 2/3 x^3/2, through the same CF2; x < -2.1: Ai(x) = sqrt(|x|)/3
 *          (J_1/3(z) + J_-1/3(z)) by Miller's recurrence for fractional order
 *          below z = 25 and the asymptotic expansion above.
 * Edge values follow PyTorch: J, Y and Ai are NaN at +-inf (PyTorch's
 * reductions leave inf - inf there); Y is -inf at 0 and NaN below; K is +inf
 * at 0, 0 at +inf and NaN below 0; spherical j0(+-inf) = 0.              */
#ifndef TL_SPECIAL_BESSEL_H
#define TL_SPECIAL_BESSEL_H

#include "ndcore/kernels/tl_special_scalar.h"

#define TL_SPECIAL_EULER 0.57721566490153286061
#define TL_SPECIAL_2_PI 0.63661977236758134308 /* 2 / pi */

/* ---- J0, J1, Y0, Y1 ----------------------------------------------------------------- */

/* out[0..3] = J0, J1, Y0, Y1 at 0 < x <= 4 by their series in q = x^2/4:
 *   J0 = sum (-q)^k / k!^2,   J1 = x/2 sum (-q)^k / (k! (k+1)!)
 *   Y0 = 2/pi (log(x/2) + gamma) J0 + 2/pi sum_k>=1 (-1)^(k+1) H_k q^k / k!^2
 *   Y1 = -2/(pi x) + 2/pi log(x/2) J1 - x/(2 pi) sum (-q)^k (psi(k+1) + psi(k+2)) / (k! (k+1)!)
 * with psi(k+1) = H_k - gamma (H_k the harmonic numbers). */
TL_SPECIAL_FN void tl_bessel_jy_series(double x, double *out)
{
  double q = 0.25 * x * x, t0 = 1, t1 = 1, j0 = 1, j1 = 1, y0 = 0, y1 = 0, h = 0;
  y1 = -2 * TL_SPECIAL_EULER + 1; /* k = 0: psi(1) + psi(2) = -2 gamma + 1 */
  for (int k = 1; k < 60; k++) {
    t0 *= -q / ((double)k * k);          /* (-q)^k / k!^2 */
    t1 *= -q / ((double)k * (k + 1));    /* (-q)^k / (k! (k+1)!) */
    double hk = h + 1.0 / k;             /* H_k */
    j0 += t0;
    j1 += t1;
    y0 -= hk * t0;
    y1 += (2 * hk + 1.0 / (k + 1) - 2 * TL_SPECIAL_EULER) * t1;
    h = hk;
    if (fabs(t0) < 1e-18 && fabs(t1) < 1e-18)
      break;
  }
  double l = log(0.5 * x);
  j1 *= 0.5 * x;
  out[0] = j0;
  out[1] = j1;
  out[2] = TL_SPECIAL_2_PI * ((l + TL_SPECIAL_EULER) * j0 + y0);
  out[3] = -TL_SPECIAL_2_PI / x + TL_SPECIAL_2_PI * l * j1 - x / (2 * TL_SPECIAL_PI) * y1;
}

/* The same at 4 < x <= 25 by Miller's algorithm: J_n from n = N down, from
 * an arbitrary small start, then scaled so that J0 + 2 sum J_2k = 1.  The
 * Neumann series
 *   Y0 = 2/pi (log(x/2) + gamma) J0 - 4/pi sum_k>=1 (-1)^k J_2k / k
 *   Y1 = -2/(pi x) J0 + 2/pi (log(x/2) + gamma) J1
 *        + 2/pi (-J1 + sum_k>=1 (-1)^(k+1) (1/k + 1/(k+1)) J_2k+1)
 * (the second is minus the derivative of the first) are summed on the way. */
TL_SPECIAL_FN void tl_bessel_jy_miller(int which, double x, double *out)
{
  /* even, and far enough past x (by 20 + 4 sqrt(x), measured: less lets
   * the start's error reach J0 above 1e-15) */
  int top = 2 * (int)(0.5 * x + 10 + 2 * sqrt(x));
  double jp = 0, j = 1e-30, norm = 0, s0 = 0, s1 = 0, two_x = 2 / x;
  for (int n = top; n >= 1; n--) {
    double jm = n * two_x * j - jp; /* J_{n-1} */
    jp = j;
    j = jm;
    int m = n - 1; /* j = J_m, jp = J_{m+1} */
    if (m >= 2 && m % 2 == 0) {
      int k = m / 2;
      norm += 2 * j;
      if (which == 2)
        s0 += (k % 2 ? -j : j) / k;
    } else if (m >= 3 && which == 3) {
      int k = (m - 1) / 2; /* m = 2k + 1 */
      s1 += (k % 2 ? 1 : -1) * (2.0 * k + 1) / ((double)k * (k + 1)) * j;
    }
  }
  /* j = J0, jp = J1 (unscaled) */
  double scale = 1 / (norm + j), j0 = j * scale, j1 = jp * scale;
  double l = log(0.5 * x) + TL_SPECIAL_EULER;
  out[0] = j0;
  out[1] = j1;
  out[2] = TL_SPECIAL_2_PI * (l * j0 - 2 * s0 * scale);
  out[3] = -TL_SPECIAL_2_PI / x * j0 + TL_SPECIAL_2_PI * (l * j1 - j1 + s1 * scale);
}

/* The Hankel expansion at x > 25 for order nu (0 or 1):
 *   J = sqrt(2/(pi x)) (P cos chi - Q sin chi),  Y = sqrt(2/(pi x)) (P sin chi + Q cos chi),
 *   chi = x - (nu/2 + 1/4) pi, P - i Q = sum_k i^-k a_k / x^k,
 *   a_k = prod_{j<=k} (4nu^2 - (2j-1)^2) / (k! 8^k);
 * cos chi and sin chi from cos x and sin x (libm reduces x exactly). */
TL_SPECIAL_FN void tl_bessel_jy_hankel(int nu, double x, double *j, double *y)
{
  double mu = 4.0 * nu * nu, a = 1, p = 1, qq = 0, prev = INFINITY;
  for (int k = 1; k < 60; k++) {
    double odd = 2.0 * k - 1;
    a *= (mu - odd * odd) / (k * 8.0 * x);
    if (fabs(a) >= prev || fabs(a) < 1e-18)
      break;
    prev = fabs(a);
    switch (k % 4) { /* i^-k: -i, -1, i, 1 */
    case 1: qq += a; break;
    case 2: p -= a; break;
    case 3: qq -= a; break;
    default: p += a; break;
    }
  }
  double c = cos(x), s = sin(x), r = sqrt(TL_SPECIAL_2_PI / x) * 0.70710678118654752440;
  /* chi = x - pi/4: cos = (c + s)/sqrt2, sin = (s - c)/sqrt2;
   * chi = x - 3pi/4: cos = (s - c)/sqrt2, sin = -(s + c)/sqrt2 */
  double cc = nu ? s - c : c + s, sc = nu ? -(s + c) : s - c;
  *j = r * (p * cc - qq * sc);
  *y = r * (p * sc + qq * cc);
}

/* which: 0 J0, 1 J1, 2 Y0, 3 Y1 */
TL_SPECIAL_FN double tl_bessel_jy(int which, double x)
{
  bool odd = which == 1 || which == 3, second = which >= 2;
  if (isnan(x) || isinf(x))
    return NAN;
  if (second && x <= 0)
    return x == 0 ? -INFINITY : NAN;
  double ax = fabs(x), v[4];
  if (ax == 0)
    return which == 0 ? 1 : x; /* J1(+-0) = +-0 */
  if (ax <= 4)
    tl_bessel_jy_series(ax, v);
  else if (ax <= 25)
    tl_bessel_jy_miller(which, ax, v);
  else
    tl_bessel_jy_hankel(odd, ax, &v[odd], &v[2 + odd]);
  double r = v[which];
  return which == 1 && x < 0 ? -r : r;
}

TL_SPECIAL_ENTRY double tl_bessel_j0(double x) { return tl_bessel_jy(0, x); }
TL_SPECIAL_ENTRY double tl_bessel_j1(double x) { return tl_bessel_jy(1, x); }
TL_SPECIAL_ENTRY double tl_bessel_y0(double x) { return tl_bessel_jy(2, x); }
TL_SPECIAL_ENTRY double tl_bessel_y1(double x) { return tl_bessel_jy(3, x); }

/* ---- K0, K1 and their scaled forms ---------------------------------------------------- */

/* e^x K_nu(x) and e^x K_nu+1(x) for |nu| <= 1/2 and x >= ~1.5 (fewer steps as
 * x grows), by Steed's algorithm for Temme's continued fraction (CF2):
 * e^x K_nu(x) = sqrt(pi / (2x)) / S, with S summed alongside the fraction
 * h whose value gives K_nu+1 = K_nu (nu + 1/2 + x - (1/4 - nu^2) h) / x. */
TL_SPECIAL_FN void tl_bessel_k_cf2(double nu, double x, double *k, double *k1)
{
  double a1 = 0.25 - nu * nu, b = 2 * (1 + x), d = 1 / b, h = d, delh = d;
  double q1 = 0, q2 = 1, q = a1, c = a1, a = -a1, s = 1 + q * delh;
  for (int i = 2; i < 100000; i++) {
    a -= 2 * (i - 1);
    c = -a * c / i;
    double qnew = (q1 - b * q2) / a;
    q1 = q2;
    q2 = qnew;
    q += c * qnew;
    b += 2;
    d = 1 / (b + a * d);
    delh = (b * d - 1) * delh;
    h += delh;
    double dels = q * delh;
    s += dels;
    if (fabs(dels) < 1e-17 * fabs(s))
      break;
  }
  *k = sqrt(TL_SPECIAL_PI / (2 * x)) / s;
  *k1 = *k * (nu + x + 0.5 - a1 * h) / x;
}

/* K0 (nu = 0) or K1 at 0 < x <= 2 by the series in q = x^2/4:
 *   K0 = -(log(x/2) + gamma) I0 + sum_k>=1 H_k q^k / k!^2
 *   K1 = 1/x + log(x/2) I1 - x/4 sum (psi(k+1) + psi(k+2)) q^k / (k! (k+1)!) */
TL_SPECIAL_FN double tl_bessel_k_series(int nu, double x)
{
  double q = 0.25 * x * x, t = 1, h = 0, l = log(0.5 * x);
  double sum = nu ? 1 - 2 * TL_SPECIAL_EULER : 0;
  for (int k = 1; k < 60; k++) {
    t *= q / ((double)k * (nu ? k + 1 : k));
    double hk = h + 1.0 / k;
    sum += (nu ? 2 * hk + 1.0 / (k + 1) - 2 * TL_SPECIAL_EULER : hk) * t;
    h = hk;
    if (t < 1e-18 * fabs(sum))
      break;
  }
  if (nu)
    return 1 / x + l * tl_bessel_i(1, x, false) - 0.25 * x * sum;
  return -(l + TL_SPECIAL_EULER) * tl_bessel_i(0, x, false) + sum;
}

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
    double k = tl_bessel_k_series(nu, x);
    return scaled ? k * exp(x) : k;
  }
  double k0, k1;
  tl_bessel_k_cf2(0, x, &k0, &k1);
  double k = nu ? k1 : k0;
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

/* J_nu(z) for nu = 1/3 or -1/3 and 0 < z <= 25, by Miller's recurrence in
 * orders nu0 + n (nu0 = 1/3 or 2/3), normalised with the Neumann identity
 * sum_k (nu0 + 2k) Gamma(nu0 + k) / k! J_nu0+2k(z) = (z/2)^nu0;
 * J_-1/3 is one upward step from J_2/3 and J_5/3. */
TL_SPECIAL_FN double tl_bessel_j_third(bool minus, double z)
{
  double nu0 = minus ? 2.0 / 3 : 1.0 / 3;
  int top = 2 * (int)(0.5 * z + 25);
  /* w_k = (nu0 + 2k) Gamma(nu0 + k) / k!, from k = top/2 down: r_k = Gamma(nu0+k)/k! */
  int kt = top / 2;
  double r = exp(lgamma(nu0 + kt) - lgamma(kt + 1.0));
  double jp = 0, j = 1e-30, sum = (nu0 + top) * r * j;
  for (int n = top; n >= 1; n--) {
    double mu = nu0 + n;
    double jm = 2 * mu / z * j - jp; /* J_{nu0+n-1} */
    jp = j;
    j = jm;
    if ((n - 1) % 2 == 0) { /* j = J_{nu0 + 2k}, k = (n-1)/2: r_k from r_{k+1} */
      int k = (n - 1) / 2;
      r *= (k + 1) / (nu0 + k);
      sum += (nu0 + 2 * k) * r * j;
    }
  }
  double scale = pow(0.5 * z, nu0) / sum; /* j = J_nu0, jp = J_nu0+1 (unscaled) */
  if (!minus)
    return j * scale;
  return (2 * nu0 / z * j - jp) * scale; /* J_{-1/3} = (4/3)/z J_2/3 - J_5/3 */
}

TL_SPECIAL_ENTRY double tl_airy_ai(double x)
{
  const double ai0 = 0.35502805388781723926, dai0 = 0.25881940379280679840; /* Ai(0), -Ai'(0) */
  if (isnan(x) || isinf(x))
    return NAN;
  if (fabs(x) <= 2.1) {
    /* Ai = Ai(0) f - (-Ai'(0)) g,  f = sum 3^k (1/3)_k x^3k / (3k)!,
     * g = sum 3^k (2/3)_k x^(3k+1) / (3k+1)!; term ratios x^3 / ((3k-1) 3k), x^3 / (3k (3k+1)) */
    double x3 = x * x * x, f = 1, g = x, tf = 1, tg = x;
    for (int k = 1; k < 40; k++) {
      tf *= x3 / ((3.0 * k - 1) * (3.0 * k));
      tg *= x3 / ((3.0 * k) * (3.0 * k + 1));
      f += tf;
      g += tg;
      if (fabs(tf) < 1e-18 && fabs(tg) < 1e-18)
        break;
    }
    return ai0 * f - dai0 * g;
  }
  double ax = fabs(x), z = 2.0 / 3 * ax * sqrt(ax);
  if (x > 0) {
    if (z > 745)
      return 0;
    double k, k1;
    tl_bessel_k_cf2(1.0 / 3, z, &k, &k1);
    return sqrt(ax / 3) / TL_SPECIAL_PI * k * exp(-z);
  }
  if (z <= 25)
    return sqrt(ax) / 3 * (tl_bessel_j_third(false, z) + tl_bessel_j_third(true, z));
  /* Ai(-x) ~ (sin(z + pi/4) P - cos(z + pi/4) Q) / (sqrt(pi) x^1/4), with
   * P = sum (-1)^k u_2k z^-2k, Q = sum (-1)^k u_2k+1 z^-(2k+1),
   * u_k = u_k-1 (6k-5)(6k-3)(6k-1) / ((2k-1) 216 k) */
  double u = 1, p = 1, qq = 0, prev = INFINITY;
  for (int k = 1; k < 60; k++) {
    u *= (6.0 * k - 5) * (6.0 * k - 3) * (6.0 * k - 1) / ((2.0 * k - 1) * 216 * k) / z;
    if (u >= prev || u < 1e-18)
      break;
    prev = u;
    switch (k % 4) {
    case 1: qq += u; break;
    case 2: p -= u; break;
    case 3: qq -= u; break;
    default: p += u; break;
    }
  }
  /* sin(z + pi/4) = (sin z + cos z)/sqrt2, cos(z + pi/4) = (cos z - sin z)/sqrt2 */
  double s = sin(z), c = cos(z);
  return ((s + c) * p - (c - s) * qq) * 0.70710678118654752440 /
         (TL_SPECIAL_SQRT_PI * sqrt(sqrt(ax)));
}

#endif
