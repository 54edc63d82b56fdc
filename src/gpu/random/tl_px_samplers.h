/* tl_px_samplers.h - the rejection samplers (gamma and binomial), one value
 * per element, as functions that compile both as host C (the CPU's kernel in
 * src/ndcore/kernels/random_samplers.c) and as CUDA device code (the GPU's
 * in src/gpu/random/samplers.cu), as tl_philox.h's fills do.
 *
 * Counter mapping: round r of element e reads counter block
 * first + r stride + e (stride: the element count, rounded up to even for
 * gamma).  Rounds, not elements, are contiguous, so the CPU draws
 * the first rounds of a whole chunk with the vectorised Philox and only the
 * few rejected elements go on to later rounds one block at a time; a value
 * depends on its index alone, never on the thread count or the device.
 *
 * The arithmetic that makes a value goes through tl_px_add/mul/div/sqrt (no
 * contraction on either side); the rejection tests use the math library's
 * log, exp and lgamma (CUDA's on the device), so a last-bit difference can
 * only move a draw whose test lands within an ulp of its boundary.  Gamma
 * below shape 1 scales by exp(log U / alpha), whose last bits may differ. */
#ifndef TL_PX_SAMPLERS_H
#define TL_PX_SAMPLERS_H

#include "gpu/random/tl_philox.h"

/* The samplers (tl_random_sample's kinds take their values from these). */
enum { TL_PX_GAMMA, TL_PX_LOG_GAMMA, TL_PX_BINOMIAL };

/* Where an element's rounds are: round r of element e is counter block
 * first + r stride + e. */
typedef struct {
  uint64_t seed, first;
  int64_t stride;
} tl_px_rounds;

TL_PX_FN void tl_px_round(const tl_px_rounds *s, int r, int64_t e, uint32_t w[4])
{
  tl_px_block(s->seed, s->first + (uint64_t)r * (uint64_t)s->stride + (uint64_t)e, w);
}

/* v, or `floor` where v is below it or NaN; a NaN floor changes nothing. */
TL_PX_FN double tl_px_lift(double v, double floor_value)
{
  return floor_value == floor_value && !(v >= floor_value) ? floor_value : v;
}

/* ---- gamma: Marsaglia and Tsang, "A simple method for generating gamma
 * variables" (ACM TOMS 2000) ------------------------------------------------------------ */

/* Round 0 is every element's first attempt, one block each (the counters
 * are the cost: Philox is most of the time): the first two words of the
 * blocks of elements 2i and 2i + 1 make one Box-Muller pair, whose normals
 * go to the two elements, and the last two words are each element's
 * uniform.  An element rejected there takes its retries in pairs: rounds
 * 1 + 2j and 2 + 2j give two normals and two uniforms.  Each attempt accepts
 * with probability above 0.95, so all 15 fail with probability below 1e-19;
 * the last round holds the uniform of the boost below shape 1.  Rounds are
 * the element count rounded up to even apart, so an odd last element has
 * its partner block. */
#define TL_PX_GAMMA_RETRY_PAIRS 7
#define TL_PX_GAMMA_BOOST_ROUND (1 + 2 * TL_PX_GAMMA_RETRY_PAIRS)
#define TL_PX_GAMMA_ROUNDS (TL_PX_GAMMA_BOOST_ROUND + 1)

/* The first attempt's normal and uniform of element e from round 0: its own
 * block w and its partner's wp (element e ^ 1). */
TL_PX_FN void tl_px_gamma_first(int64_t e, const uint32_t w[4], const uint32_t wp[4], double *z,
                                double *u)
{
  const uint32_t *even = e & 1 ? wp : w, *odd = e & 1 ? w : wp;
  double z0, z1;
  tl_px_box_muller(tl_px_open_wide(tl_px_wide(even)), tl_px_unit_wide(tl_px_wide(odd)), &z0, &z1);
  *z = e & 1 ? z1 : z0;
  *u = tl_px_open_wide(tl_px_wide(w + 2));
}

/* An attempt for shape d + 1/3 >= 1, c = 1 / sqrt(9 d): the candidate
 * d (1 + c z)^3 in *x and (1 + c z)^3 in *v3; true when the squeeze accepts
 * it, with no logarithm (~98% of attempts).  Branch-free, so the CPU runs
 * it over a chunk's first attempts as one vector loop. */
TL_PX_FN bool tl_px_gamma_squeeze(double d, double c, double z, double u, double *x, double *v3)
{
  double v = tl_px_add(1.0, tl_px_mul(c, z)), z2 = z * z;
  *v3 = tl_px_mul(tl_px_mul(v, v), v);
  *x = tl_px_mul(d, *v3);
  return (v > 0) & (u < 1.0 - 0.0331 * z2 * z2);
}

/* One attempt: the squeeze, then the full test. */
TL_PX_FN bool tl_px_gamma_try(double d, double c, double z, double u, double *x)
{
  double v3;
  if (tl_px_gamma_squeeze(d, c, z, u, x, &v3))
    return true;
  return v3 > 0 && log(u) < 0.5 * z * z + d * (1.0 - v3 + log(v3));
}

/* What one shape needs, computed once for a run of equal shapes. */
typedef struct {
  double alpha, d, c;
  bool special; /* alpha 0, below 0, NaN or inf: no draw */
} tl_px_gamma_params;

/* d and c of the shape drawn: alpha, or alpha + 1 below 1 (the boost). */
TL_PX_FN void tl_px_gamma_dc(double alpha, double *d, double *c)
{
  *d = tl_px_add(tl_px_add(alpha, alpha < 1 ? 1.0 : 0.0), -1.0 / 3.0);
  *c = tl_px_div(1.0, tl_px_sqrt(tl_px_mul(9.0, *d)));
}

TL_PX_FN void tl_px_gamma_setup(double alpha, tl_px_gamma_params *gp)
{
  gp->alpha = alpha;
  gp->special = !(alpha > 0) || alpha == (double)INFINITY;
  tl_px_gamma_dc(alpha, &gp->d, &gp->c);
}

/* The draw from an accepted candidate x of the shape drawn: x, or below
 * shape 1 x U^(1/alpha) (computed as a logarithm, which does not
 * underflow); its logarithm when `log_out`. */
TL_PX_FN double tl_px_gamma_finish(double alpha, double x, double ub, bool log_out)
{
  if (alpha < 1)
    return log_out ? log(x) + log(ub) / alpha : x * exp(log(ub) / alpha);
  return log_out ? log(x) : x;
}

/* Gamma(alpha, 1) of element e, or its logarithm when `log_out` (which
 * keeps the draws of tiny shapes, whose values underflow, apart), from its
 * first attempt (z, u) and its boost uniform ub, made ahead by the caller.
 * alpha < 1 draws Gamma(alpha + 1) and scales it by U^(1/alpha).  When
 * every attempt fails, the Wilson-Hilferty approximation from the last
 * normal stands in.  alpha = 0 gives 0, alpha NaN or below 0 NaN, alpha =
 * inf inf. */
TL_PX_FN double tl_px_gamma(const tl_px_rounds *s, int64_t e, const tl_px_gamma_params *gp,
                            bool log_out, double z, double u, double ub)
{
  double alpha = gp->alpha, d = gp->d, c = gp->c, x = 0;
  if (gp->special)
    return alpha == 0 ? (log_out ? -(double)INFINITY : 0.0) : alpha > 0 ? alpha : (double)NAN;
  bool ok = tl_px_gamma_try(d, c, z, u, &x);
  for (int j = 0; j < TL_PX_GAMMA_RETRY_PAIRS && !ok; j++) {
    uint32_t wz[4], wu[4];
    double u1, u2, z1;
    tl_px_round(s, 1 + 2 * j, e, wz);
    tl_px_round(s, 2 + 2 * j, e, wu);
    tl_px_pair_uniforms(wz, &u1, &u2);
    tl_px_box_muller(u1, u2, &z, &z1);
    ok = tl_px_gamma_try(d, c, z, tl_px_open_wide(tl_px_wide(wu)), &x);
    z = z1;
    ok = ok || tl_px_gamma_try(d, c, z, tl_px_open_wide(tl_px_wide(wu + 2)), &x);
  }
  if (!ok) {
    double t = tl_px_add(1.0, tl_px_mul(c, z));
    x = t > 0 ? tl_px_mul(d, tl_px_mul(tl_px_mul(t, t), t)) : 0.0;
  }
  return tl_px_gamma_finish(alpha, x, ub, log_out);
}

/* ---- binomial ------------------------------------------------------------------------- */

/* Round r is attempt r of the rejection method (two wide uniforms a block);
 * the inversion reads round 0 only.  The rejection accepts ~80% of the
 * time, so 16 rounds all fail with probability below 1e-11, and then the
 * rounded normal approximation stands in. */
#define TL_PX_BINOMIAL_ROUNDS 16

/* What one (n, p) needs, computed once for a run of equal parameters. */
typedef struct {
  double n, p;    /* n an integer >= 0, p in [0, 1] or NaN */
  double q;       /* min(p, 1 - p): the draw counts the rarer outcome */
  bool flip, nan; /* p > 1/2: the result is n - count; p NaN: NaN */
  bool invert;    /* n q < 10: inversion, else Hoermann's BTRS */
  double q0, r;   /* inversion: P(0) = (1 - q)^n and the step ratio q / (1 - q) */
  double spq, a, b, c, alpha, vr, m, lpq, h; /* BTRS */
} tl_px_binomial_params;

TL_PX_FN double tl_px_log_factorial(double k) { return lgamma(k + 1.0); }

/* PyTorch's reading of binomial's arguments: the count truncated, below 0
 * (or NaN) none; the probability clamped to [0, 1], NaN kept. */
TL_PX_FN void tl_px_binomial_setup(double count, double prob, tl_px_binomial_params *bp)
{
  double n = count > 0 ? trunc(count) : 0.0, p = prob < 0 ? 0.0 : prob > 1 ? 1.0 : prob;
  bp->n = n, bp->p = p;
  bp->nan = p != p;
  bp->flip = p > 0.5;
  bp->q = bp->flip ? 1.0 - p : bp->nan ? 0.0 : p;
  double q = bp->q;
  bp->invert = n * q < 10;
  bp->q0 = bp->r = 0; /* every field set: the struct is copied whole */
  bp->spq = bp->a = bp->b = bp->c = bp->alpha = bp->vr = bp->m = bp->lpq = bp->h = 0;
  if (bp->invert) {
    bp->q0 = exp(n * log1p(-q));
    bp->r = q / (1.0 - q);
    return;
  }
  /* Hoermann, "The generation of binomial random variates" (J. Statist.
   * Comput. Simul. 1993): transformed rejection with squeeze. */
  bp->spq = sqrt(n * q * (1.0 - q));
  bp->b = 1.15 + 2.53 * bp->spq;
  bp->a = -0.0873 + 0.0248 * bp->b + 0.01 * q;
  bp->c = n * q + 0.5;
  bp->alpha = (2.83 + 5.1 / bp->b) * bp->spq;
  bp->vr = 0.92 - 4.2 / bp->b;
  bp->m = floor((n + 1.0) * q);
  bp->lpq = log(q / (1.0 - q));
  bp->h = tl_px_log_factorial(bp->m) + tl_px_log_factorial(n - bp->m);
}

/* Inversion: the count of CDF steps below one uniform.  The pmf falls
 * geometrically past the mode, so a uniform the rounded CDF never reaches
 * stops where the pmf underflows, long before n. */
TL_PX_FN double tl_px_binomial_invert(const tl_px_binomial_params *bp, double u)
{
  double k = 0, pk = bp->q0, cdf = pk;
  while (u > cdf && k < bp->n && pk > 0) {
    pk = pk * bp->r * ((bp->n - k) / (k + 1.0));
    k += 1.0;
    cdf += pk;
  }
  return k;
}

TL_PX_FN double tl_px_binomial_btrs(const tl_px_rounds *s, int64_t e,
                                    const tl_px_binomial_params *bp, const uint32_t w0[4])
{
  uint32_t w[4] = {w0[0], w0[1], w0[2], w0[3]};
  for (int r = 0; r < TL_PX_BINOMIAL_ROUNDS; r++) {
    if (r > 0)
      tl_px_round(s, r, e, w);
    double u = tl_px_unit_wide(tl_px_wide(w)) - 0.5, v = tl_px_open_wide(tl_px_wide(w + 2));
    double us = 0.5 - fabs(u);
    double k = floor((2.0 * bp->a / us + bp->b) * u + bp->c);
    if (k < 0 || k > bp->n)
      continue;
    if (us >= 0.07 && v <= bp->vr)
      return k;
    double lv = log(v * bp->alpha / (bp->a / (us * us) + bp->b));
    if (lv <= bp->h - tl_px_log_factorial(k) - tl_px_log_factorial(bp->n - k) +
                  (k - bp->m) * bp->lpq)
      return k;
  }
  double z0, z1;
  tl_px_normal_pair(w, 1, &z0, &z1);
  return fmin(bp->n, fmax(0.0, floor(bp->n * bp->q + bp->spq * z0 + 0.5)));
}

/* Binomial(n, p) of element e; w0 is its round 0, made ahead by the caller. */
TL_PX_FN double tl_px_binomial(const tl_px_rounds *s, int64_t e, const tl_px_binomial_params *bp,
                               const uint32_t w0[4])
{
  if (bp->nan)
    return (double)NAN;
  double k = bp->n == 0 || bp->q == 0 ? 0.0
             : bp->invert             ? tl_px_binomial_invert(bp, tl_px_unit_wide(tl_px_wide(w0)))
                                      : tl_px_binomial_btrs(s, e, bp, w0);
  return bp->flip ? bp->n - k : k;
}

/* ---- what a draw reserves ------------------------------------------------------------ */

TL_PX_FN int tl_px_sample_rounds(int kind)
{
  return kind == TL_PX_BINOMIAL ? TL_PX_BINOMIAL_ROUNDS : TL_PX_GAMMA_ROUNDS;
}

/* The round stride for n elements. */
TL_PX_FN int64_t tl_px_sample_stride(int kind, int64_t n)
{
  return kind == TL_PX_BINOMIAL ? n : n + (n & 1);
}

/* ---- one element from scratch ----------------------------------------------------------- */

/* Element e of a draw of `kind` with parameters a (and b), lifted to
 * `floor` (gamma): what one CUDA thread computes, and what the CPU's
 * chunked kernel must equal (tests compare them through a host hook). */
TL_PX_FN double tl_px_sample_one(int kind, double floor_value, const tl_px_rounds *r, int64_t e,
                                 double a, double b)
{
  uint32_t w[4], wp[4], wb[4];
  tl_px_round(r, 0, e, w);
  if (kind == TL_PX_BINOMIAL) {
    tl_px_binomial_params bp;
    tl_px_binomial_setup(a, b, &bp);
    return tl_px_binomial(r, e, &bp, w);
  }
  tl_px_gamma_params gp;
  double z, u;
  tl_px_gamma_setup(a, &gp);
  tl_px_round(r, 0, e ^ 1, wp); /* the partner's block: one Box-Muller pair for both */
  tl_px_gamma_first(e, w, wp, &z, &u);
  tl_px_round(r, TL_PX_GAMMA_BOOST_ROUND, e, wb);
  double v = tl_px_gamma(r, e, &gp, kind == TL_PX_LOG_GAMMA, z, u, tl_px_open_wide(tl_px_wide(wb)));
  return tl_px_lift(v, floor_value);
}

#endif
