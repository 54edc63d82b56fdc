/* norm_loops.h - the loops of the normalisation kernels, written once over
 * the work type `real` and compiled twice: norm_loops_f32.c and
 * norm_loops_f64.c define TL_NORM_REAL (float or double), TL_NORM_SQRT and
 * the names of the three functions this file defines; the rest is static.
 *
 * One statistics group is a row: a contiguous run of D = C/G * S elements for
 * group stats, or N runs of S elements (one per sample) for per-channel stats.
 * Sums run in `real` SIMD lanes over chunks of CHUNK elements, the chunk sums
 * added in double, so a float sum over a 100k-element channel stays exact to
 * a few ulps; the variance is the second pass's sum of squared deviations
 * from the mean (no cancellation, unlike E[x^2] - E[x]^2). */
#include <math.h>
#include <string.h>
#include <stddef.h>

#include "ndcore/kernels/tl_vecmath.h"
#include "ndcore/tensor/tl_half.h"
#include "nn/norm/norm_job.h"

typedef TL_NORM_REAL real;

enum { CHUNK = 1024, COLS = 64, LANES = 32 };

/* The row helpers are inlined into each SIMD clone of the three entry
 * functions, so that they are compiled for the clone's vector width. */
#define ROW static inline __attribute__((always_inline))

/* f rounded to the half dtype of s->stats. */
ROW float half_round(const tl_norm_spec *s, float f)
{
  return s->stats == TL_NORM_STATS_BF16 ? tl_bf16_to_f32(tl_f32_to_bf16(f))
                                        : tl_f16_to_f32(tl_f32_to_f16(f));
}

/* Channel c's statistics as PyTorch's CPU batch norm keeps them when input
 * and parameters share a half dtype (s->stats), from the float mean *mu and
 * the sum *sq of squared deviations from it (measured against PyTorch):
 *   bfloat16: the mean and *sq rounded to the dtype, the variance their
 *     quotient by D in the dtype, rstd = 1 / sqrt(var + eps) rounded; the
 *     running statistics read the rounded mean and sum;
 *   float16: the mean and rstd = 1 / sqrt(*sq / D + eps) rounded; the
 *     running statistics read the float ones.
 * job->batch_mean[c] gets the mean the running mean reads, *sq the sum the
 * running variance reads. */
ROW void half_stats(const tl_norm_job *job, int64_t c, real *mu, double *sq, int64_t D, real *rs)
{
  const tl_norm_spec *s = &job->s;
  if (s->stats == TL_NORM_STATS_BF16) {
    float vs = half_round(s, (float)*sq);
    float var = half_round(s, vs / half_round(s, (float)D));
    *rs = (real)half_round(s, (float)(1 / sqrt((double)var + s->eps)));
    *mu = (real)half_round(s, (float)*mu);
    job->batch_mean[c] = *mu;
    *sq = vs;
  } else {
    *rs = (real)half_round(s, (float)(1 / sqrt(*sq / D + s->eps)));
    job->batch_mean[c] = *mu;
    *mu = (real)half_round(s, (float)*mu);
  }
}

/* Sums keep LANES independent partial sums (several vector registers), so
 * the adds do not wait on each other's latency; each CHUNK's partials are
 * added into a double.  lanes_total() folds a chunk's partials and tail. */
ROW double lanes_total(const real *acc, real tail)
{
  for (int64_t j = 0; j < LANES; j++)
    tail += acc[j];
  return tail;
}

/* sum x */
ROW double sum_of(const real *restrict x, int64_t n)
{
  double total = 0;
  for (int64_t i0 = 0; i0 < n; i0 += CHUNK) {
    const real *p = x + i0;
    int64_t m = n - i0 < CHUNK ? n - i0 : CHUNK, i = 0;
    real acc[LANES] = {0}, tail = 0;
    for (; i + LANES <= m; i += LANES)
#pragma omp simd
      for (int64_t j = 0; j < LANES; j++)
        acc[j] += p[i + j];
    for (; i < m; i++)
      tail += p[i];
    total += lanes_total(acc, tail);
  }
  return total;
}

/* sum (x - c)^2 */
ROW double sqdev_of(const real *restrict x, int64_t n, real c)
{
  double total = 0;
  for (int64_t i0 = 0; i0 < n; i0 += CHUNK) {
    const real *p = x + i0;
    int64_t m = n - i0 < CHUNK ? n - i0 : CHUNK, i = 0;
    real acc[LANES] = {0}, tail = 0;
    for (; i + LANES <= m; i += LANES)
#pragma omp simd
      for (int64_t j = 0; j < LANES; j++)
        acc[j] += (p[i + j] - c) * (p[i + j] - c);
    for (; i < m; i++)
      tail += (p[i] - c) * (p[i] - c);
    total += lanes_total(acc, tail);
  }
  return total;
}

/* sum a * b */
ROW double dot_of(const real *restrict a, const real *restrict b, int64_t n)
{
  double total = 0;
  for (int64_t i0 = 0; i0 < n; i0 += CHUNK) {
    const real *p = a + i0, *q = b + i0;
    int64_t m = n - i0 < CHUNK ? n - i0 : CHUNK, i = 0;
    real acc[LANES] = {0}, tail = 0;
    for (; i + LANES <= m; i += LANES)
#pragma omp simd
      for (int64_t j = 0; j < LANES; j++)
        acc[j] += p[i + j] * q[i + j];
    for (; i < m; i++)
      tail += p[i] * q[i];
    total += lanes_total(acc, tail);
  }
  return total;
}

/* sum g * w and sum g * w * (x - c), elementwise weights (layer_norm rows) */
ROW void wsums_of(const real *restrict g, const real *restrict w, const real *restrict x,
                  int64_t n, real c, double *a, double *b)
{
  *a = *b = 0;
  for (int64_t i0 = 0; i0 < n; i0 += CHUNK) {
    const real *gp = g + i0, *wp = w + i0, *xp = x + i0;
    int64_t m = n - i0 < CHUNK ? n - i0 : CHUNK, i = 0;
    real acc_a[LANES] = {0}, acc_b[LANES] = {0}, tail_a = 0, tail_b = 0;
    for (; i + LANES <= m; i += LANES)
#pragma omp simd
      for (int64_t j = 0; j < LANES; j++) {
        real gw = gp[i + j] * wp[i + j];
        acc_a[j] += gw;
        acc_b[j] += gw * (xp[i + j] - c);
      }
    for (; i < m; i++) {
      tail_a += gp[i] * wp[i];
      tail_b += gp[i] * wp[i] * (xp[i] - c);
    }
    *a += lanes_total(acc_a, tail_a);
    *b += lanes_total(acc_b, tail_b);
  }
}

/* y = x * a + c over n elements */
ROW void scale_shift(const real *restrict x, real *restrict y, int64_t n, real a, real c)
{
#pragma omp simd
  for (int64_t i = 0; i < n; i++)
    y[i] = x[i] * a + c;
}

/* dx = g * a + x * c1 + c2 over n elements */
ROW void grad_line(const real *restrict g, const real *restrict x, real *restrict dx,
                             int64_t n, real a, real c1, real c2)
{
#pragma omp simd
  for (int64_t i = 0; i < n; i++)
    dx[i] = g[i] * a + x[i] * c1 + c2;
}

/* ---- forward ---------------------------------------------------------------------- */

/* Per-channel statistics (batch_norm): row c is channel c of every sample. */
ROW void forward_channel(const tl_norm_job *job, int64_t c)
{
  const tl_norm_spec *s = &job->s;
  const real *x = job->x, *w = job->w, *b = job->b;
  real *y = job->y, *mean = job->mean, *rstd = job->rstd;
  int64_t S = s->S, D = s->N * S;
  real mu, rs;
  if (s->train) {
    double sum = 0, sq = 0;
    for (int64_t n = 0; n < s->N; n++)
      sum += sum_of(x + (n * s->C + c) * S, S);
    mu = (real)(sum / D);
    for (int64_t n = 0; n < s->N; n++)
      sq += sqdev_of(x + (n * s->C + c) * S, S, mu);
    rs = (real)(1 / sqrt(sq / D + s->eps));
    if (s->stats != TL_NORM_STATS_FLOAT)
      half_stats(job, c, &mu, &sq, D, &rs);
    job->var[c] = sq / D;
    mean[c] = mu;
    rstd[c] = rs;
  } else {
    mu = mean[c];
    rs = rstd[c];
  }
  real a = rs * w[c], sh = b[c] - mu * a;
  for (int64_t n = 0; n < s->N; n++)
    scale_shift(x + (n * s->C + c) * S, y + (n * s->C + c) * S, S, a, sh);
}

/* Per-channel statistics with S == 1 ((N, C) input, BatchNorm1d): a row is
 * a block of COLS neighbouring channels, summed down the N samples, so the
 * loops run along the contiguous channel dim. */
ROW void forward_channel_cols(const tl_norm_job *job, int64_t blk)
{
  const tl_norm_spec *s = &job->s;
  const real *x = job->x, *w = job->w, *b = job->b;
  real *y = job->y, *mean = job->mean, *rstd = job->rstd;
  int64_t C = s->C, k0 = blk * COLS, nk = C - k0 < COLS ? C - k0 : COLS;
  real a[COLS], sh[COLS];
  if (s->train) {
    double sum[COLS] = {0}, sq[COLS] = {0};
    real mu[COLS];
    for (int64_t n = 0; n < s->N; n++)
#pragma omp simd
      for (int64_t k = 0; k < nk; k++)
        sum[k] += x[n * C + k0 + k];
    for (int64_t k = 0; k < nk; k++)
      mu[k] = (real)(sum[k] / s->N);
    for (int64_t n = 0; n < s->N; n++)
#pragma omp simd
      for (int64_t k = 0; k < nk; k++)
        sq[k] += (x[n * C + k0 + k] - mu[k]) * (x[n * C + k0 + k] - mu[k]);
    for (int64_t k = 0; k < nk; k++) {
      real rs = (real)(1 / sqrt(sq[k] / s->N + s->eps));
      if (s->stats != TL_NORM_STATS_FLOAT)
        half_stats(job, k0 + k, &mu[k], &sq[k], s->N, &rs);
      job->var[k0 + k] = sq[k] / s->N;
      mean[k0 + k] = mu[k];
      rstd[k0 + k] = rs;
    }
  }
  for (int64_t k = 0; k < nk; k++) {
    a[k] = rstd[k0 + k] * w[k0 + k];
    sh[k] = b[k0 + k] - mean[k0 + k] * a[k];
  }
  for (int64_t n = 0; n < s->N; n++)
#pragma omp simd
    for (int64_t k = 0; k < nk; k++)
      y[n * C + k0 + k] = x[n * C + k0 + k] * a[k] + sh[k];
}

/* Group statistics: row r = (n, g) is the contiguous block of its channels. */
ROW void forward_group(const tl_norm_job *job, int64_t r)
{
  const tl_norm_spec *s = &job->s;
  int64_t Cg = s->C / s->G, S = s->S, D = Cg * S, c0 = (r % s->G) * Cg;
  const real *x = (const real *)job->x + r * D, *w = (const real *)job->w + c0,
             *b = (const real *)job->b + c0;
  real *y = (real *)job->y + r * D;
  real mu = 0, rs;
  if (s->rms) {
    rs = (real)(1 / sqrt(dot_of(x, x, D) / D + s->eps));
  } else {
    mu = (real)(sum_of(x, D) / D);
    rs = (real)(1 / sqrt(sqdev_of(x, D, mu) / D + s->eps));
    ((real *)job->mean)[r] = mu;
  }
  ((real *)job->rstd)[r] = rs;
  if (S == 1) {
#pragma omp simd
    for (int64_t k = 0; k < Cg; k++)
      y[k] = (x[k] - mu) * rs * w[k] + b[k];
    return;
  }
  for (int64_t k = 0; k < Cg; k++) {
    real a = rs * w[k];
    scale_shift(x + k * S, y + k * S, S, a, b[k] - mu * a);
  }
}

TL_SIMD_CLONES
void TL_NORM_FORWARD(const tl_norm_job *job, int64_t begin, int64_t end)
{
  for (int64_t r = begin; r < end; r++) {
    if (job->s.per_channel && job->s.S == 1)
      forward_channel_cols(job, r);
    else if (job->s.per_channel)
      forward_channel(job, r);
    else
      forward_group(job, r);
  }
}

/* ---- backward ---------------------------------------------------------------------
 * With A = sum(dy * w) and B = rstd * sum(dy * w * (x - mean)) over a group:
 *   dx = rstd * w * dy + c1 * x + c2,  c1 = -rstd^2 B / D,  c2 = -rstd A / D - c1 mean
 * which is the formula of tl_norm.h with xhat expanded. */

ROW void backward_channel(const tl_norm_job *job, int64_t c)
{
  const tl_norm_spec *s = &job->s;
  const real *x = job->x, *g = job->g;
  real *dx = job->y;
  int64_t S = s->S, D = s->N * S;
  real mu = ((const real *)job->mean)[c], rs = ((const real *)job->rstd)[c];
  real wc = ((const real *)job->w)[c];
  double sg = 0, sgx = 0;
  for (int64_t n = 0; n < s->N; n++) {
    const real *gn = g + n * job->g_n + c * job->g_c, *xn = x + (n * s->C + c) * S;
    sg += sum_of(gn, S);
    sgx += dot_of(gn, xn, S);
  }
  double B = rs * (sgx - mu * sg);
  if (job->dw) {
    job->dw[c] = B;
    job->db[c] = sg;
  }
  if (!dx)
    return;
  real c1 = 0, c2 = 0;
  if (s->train && D > 0) {
    c1 = (real)(-(double)rs * rs * wc * B / D);
    c2 = (real)(-(double)rs * wc * sg / D) - c1 * mu;
  }
  for (int64_t n = 0; n < s->N; n++) {
    int64_t at = (n * s->C + c) * S;
    grad_line(g + n * job->g_n + c * job->g_c, x + at, dx + at, S, rs * wc, c1, c2);
  }
}

/* backward_channel for S == 1: a block of COLS channels (forward_channel_cols). */
ROW void backward_channel_cols(const tl_norm_job *job, int64_t blk)
{
  const tl_norm_spec *s = &job->s;
  const real *x = job->x, *g = job->g, *w = job->w, *mean = job->mean, *rstd = job->rstd;
  real *dx = job->y;
  int64_t C = s->C, k0 = blk * COLS, nk = C - k0 < COLS ? C - k0 : COLS, D = s->N;
  double sg[COLS] = {0}, sgx[COLS] = {0};
  real a[COLS], c1[COLS], c2[COLS];
  for (int64_t n = 0; n < s->N; n++)
#pragma omp simd
    for (int64_t k = 0; k < nk; k++) {
      sg[k] += g[n * C + k0 + k];
      sgx[k] += g[n * C + k0 + k] * x[n * C + k0 + k];
    }
  for (int64_t k = 0; k < nk; k++) {
    real mu = mean[k0 + k], rs = rstd[k0 + k], wc = w[k0 + k];
    double B = rs * (sgx[k] - mu * sg[k]);
    if (job->dw) {
      job->dw[k0 + k] = B;
      job->db[k0 + k] = sg[k];
    }
    a[k] = rs * wc;
    c1[k] = c2[k] = 0;
    if (s->train && D > 0) {
      c1[k] = (real)(-(double)rs * rs * wc * B / D);
      c2[k] = (real)(-(double)rs * wc * sg[k] / D) - c1[k] * mu;
    }
  }
  if (!dx)
    return;
  for (int64_t n = 0; n < s->N; n++)
#pragma omp simd
    for (int64_t k = 0; k < nk; k++)
      dx[n * C + k0 + k] = g[n * C + k0 + k] * a[k] + x[n * C + k0 + k] * c1[k] + c2[k];
}

/* One layer_norm / rms_norm row (G == 1, S == 1: the D = C elements of row
 * r, g's row at g_row elements per row): dx, and the row's terms of dw and db
 * added to acc (its chunk's 2C doubles: dw, then db), so that the weight's
 * gradient needs no second, column-wise pass over x and g. */
ROW void backward_cols_row(const tl_norm_job *job, int64_t r, double *restrict acc)
{
  const tl_norm_spec *s = &job->s;
  int64_t D = s->C;
  const real *x = (const real *)job->x + r * D, *g = (const real *)job->g + r * job->g_row;
  const real *w = job->w;
  real *dx = job->y ? (real *)job->y + r * D : NULL;
  real mu = s->rms ? 0 : ((const real *)job->mean)[r], rs = ((const real *)job->rstd)[r];
  double A = 0, Bp = 0;
  if (dx)
    wsums_of(g, w, x, D, mu, &A, &Bp);
  real a = (real)(-(double)rs * rs * rs * Bp / D);
  real c = (real)(s->rms ? 0 : -(double)rs * A / D) - a * mu;
  if (dx && acc) {
    double *restrict dw = acc, *restrict db = acc + D;
#pragma omp simd
    for (int64_t k = 0; k < D; k++) {
      dx[k] = g[k] * rs * w[k] + x[k] * a + c;
      dw[k] += g[k] * ((x[k] - mu) * rs);
      db[k] += g[k];
    }
  } else if (dx) {
#pragma omp simd
    for (int64_t k = 0; k < D; k++)
      dx[k] = g[k] * rs * w[k] + x[k] * a + c;
  } else if (acc) {
    double *restrict dw = acc, *restrict db = acc + D;
#pragma omp simd
    for (int64_t k = 0; k < D; k++) {
      dw[k] += g[k] * ((x[k] - mu) * rs);
      db[k] += g[k];
    }
  }
}

ROW void backward_group(const tl_norm_job *job, int64_t r)
{
  const tl_norm_spec *s = &job->s;
  int64_t Cg = s->C / s->G, S = s->S, D = Cg * S, c0 = (r % s->G) * Cg, n = r / s->G;
  const real *x = (const real *)job->x + r * D, *g = (const real *)job->g + r * D;
  const real *w = (const real *)job->w + c0;
  real *dx = job->y ? (real *)job->y + r * D : NULL;
  real mu = s->rms ? 0 : ((const real *)job->mean)[r], rs = ((const real *)job->rstd)[r];
  double A = 0, Bp = 0;
  double *part = job->part + (n * s->C + c0) * 2;
  for (int64_t k = 0; k < Cg; k++) {
    double sg = sum_of(g + k * S, S), sgx = dot_of(g + k * S, x + k * S, S);
    part[2 * k] = sg;
    part[2 * k + 1] = sgx;
    A += w[k] * sg;
    Bp += w[k] * (sgx - mu * sg);
  }
  if (!dx || D == 0)
    return;
  double B = rs * Bp;
  real c1 = (real)(-(double)rs * rs * B / D);
  real c2 = (real)(s->rms ? 0 : -(double)rs * A / D) - c1 * mu;
  if (S == 1) {
#pragma omp simd
    for (int64_t k = 0; k < Cg; k++)
      dx[k] = g[k] * rs * w[k] + x[k] * c1 + c2;
    return;
  }
  for (int64_t k = 0; k < Cg; k++)
    grad_line(g + k * S, x + k * S, dx + k * S, S, rs * w[k], c1, c2);
}

TL_SIMD_CLONES
void TL_NORM_BACKWARD(const tl_norm_job *job, int64_t begin, int64_t end, double *acc)
{
  for (int64_t r = begin; r < end; r++) {
    if (job->cols)
      backward_cols_row(job, r, acc);
    else if (job->s.per_channel && job->s.S == 1)
      backward_channel_cols(job, r);
    else if (job->s.per_channel)
      backward_channel(job, r);
    else
      backward_group(job, r);
  }
}

/* ---- channels-last per-channel statistics ----------------------------------------------
 * x, g and y laid out (N, S, C).  The sums of one sample's line of a channel
 * are taken exactly as sum_of/sqdev_of/dot_of take them on a planar line
 * (the same LANES partials over the same CHUNKs, folded in the same order),
 * a block of CL_BLOCK channels side by side, into job->lines; the caller
 * adds the samples' totals in sample order, as the planar loops do, so
 * every statistic, output and gradient is the planar loops' bits. */
enum { CL_BLOCK = TL_NORM_CL_BLOCK };

/* acc[j][k] += TERM over a line: the planar loops' lanes, per channel k. */
#define TL_NORM_CL_LINE(TERM, acc, tail)                                                   \
  for (; i + LANES <= m; i += LANES)                                                        \
    for (int64_t j = 0; j < LANES; j++) {                                                   \
      const real *restrict pa = a + at + (i + j) * C, *restrict pb = b + at + (i + j) * C;  \
      (void)pb;                                                                             \
      _Pragma("omp simd") for (int64_t k = 0; k < nk; k++) acc[j][k] += TERM;               \
    }                                                                                       \
  for (; i < m; i++) {                                                                      \
    const real *restrict pa = a + at + i * C, *restrict pb = b + at + i * C;                \
    (void)pb;                                                                               \
    _Pragma("omp simd") for (int64_t k = 0; k < nk; k++) tail[k] += TERM;                   \
  }

ROW void cl_fold(real (*acc)[CL_BLOCK], const real *tail, int64_t nk, double *line)
{
  for (int64_t k = 0; k < nk; k++) {
    real t = tail[k];
    for (int64_t j = 0; j < LANES; j++)
      t += acc[j][k];
    line[k] += t;
  }
}

/* One (sample n, channel block) row of job->lines: kind SUM sum x, SQDEV
 * sum (x - mean)^2, GRAD sum g and sum g x (two per channel). */
ROW void cl_line(const tl_norm_job *job, int64_t r)
{
  const tl_norm_spec *s = &job->s;
  int64_t C = s->C, S = s->S, nblk = (C + CL_BLOCK - 1) / CL_BLOCK;
  int64_t n = r / nblk, k0 = r % nblk * CL_BLOCK, nk = C - k0 < CL_BLOCK ? C - k0 : CL_BLOCK;
  const real *c = (const real *)job->mean + k0;
  const real *a = job->cl_kind == TL_NORM_CL_GRAD ? job->g : job->x, *b = job->x;
  double line[CL_BLOCK] = {0}, line2[CL_BLOCK] = {0};
  for (int64_t i0 = 0; i0 < S; i0 += CHUNK) {
    int64_t m = S - i0 < CHUNK ? S - i0 : CHUNK, i = 0, at = (n * S + i0) * C + k0;
    real acc[LANES][CL_BLOCK] = {{0}}, tail[CL_BLOCK] = {0};
    if (job->cl_kind == TL_NORM_CL_SUM) {
      TL_NORM_CL_LINE(pa[k], acc, tail)
    } else if (job->cl_kind == TL_NORM_CL_SQDEV) {
      TL_NORM_CL_LINE((pa[k] - c[k]) * (pa[k] - c[k]), acc, tail)
    } else {
      TL_NORM_CL_LINE(pa[k], acc, tail)
      cl_fold(acc, tail, nk, line2); /* line2: sum g; line: sum g x below */
      memset(acc, 0, sizeof acc);
      memset(tail, 0, sizeof tail);
      i = 0;
      TL_NORM_CL_LINE(pa[k] * pb[k], acc, tail)
    }
    cl_fold(acc, tail, nk, line);
  }
  double *out = job->lines + (n * C + k0) * (job->cl_kind == TL_NORM_CL_GRAD ? 2 : 1);
  for (int64_t k = 0; k < nk; k++) {
    if (job->cl_kind == TL_NORM_CL_GRAD) {
      out[2 * k] = line2[k];
      out[2 * k + 1] = line[k];
    } else {
      out[k] = line[k];
    }
  }
}

TL_SIMD_CLONES
void TL_NORM_CL_LINES(const tl_norm_job *job, int64_t begin, int64_t end)
{
  for (int64_t r = begin; r < end; r++)
    cl_line(job, r);
}

/* The samples' line totals added in sample order (the planar loops' order). */
static double cl_total(const tl_norm_job *job, int64_t c, int which)
{
  int64_t C = job->s.C, w = job->cl_kind == TL_NORM_CL_GRAD ? 2 : 1;
  double total = 0;
  for (int64_t n = 0; n < job->s.N; n++)
    total += job->lines[(n * C + c) * w + which];
  return total;
}

void TL_NORM_CL_REDUCE(const tl_norm_job *job)
{
  const tl_norm_spec *s = &job->s;
  const real *w = job->w, *b = job->b;
  real *mean = job->mean, *rstd = job->rstd, *coef = job->coef;
  int64_t C = s->C, D = s->N * s->S;
  for (int64_t c = 0; c < C; c++) {
    real mu = mean[c], rs = rstd[c];
    switch (job->cl_kind) {
    case TL_NORM_CL_SUM: /* forward_channel's mean */
      mean[c] = (real)(cl_total(job, c, 0) / D);
      continue;
    case TL_NORM_CL_SQDEV: { /* its variance, then as in evaluation */
      double sq = cl_total(job, c, 0);
      rs = (real)(1 / sqrt(sq / D + s->eps));
      if (s->stats != TL_NORM_STATS_FLOAT) {
        half_stats(job, c, &mu, &sq, D, &rs);
        mean[c] = mu;
      }
      job->var[c] = sq / D;
      rstd[c] = rs;
    } /* fall through */
    case TL_NORM_CL_NONE: {
      real a = rs * w[c];
      coef[c] = a;
      coef[C + c] = 0;
      coef[2 * C + c] = b[c] - mu * a;
      continue;
    }
    default: { /* TL_NORM_CL_GRAD: backward_channel's */
      real wc = w[c];
      double sg = cl_total(job, c, 0), sgx = cl_total(job, c, 1);
      double B = rs * (sgx - mu * sg);
      if (job->dw) {
        job->dw[c] = B;
        job->db[c] = sg;
      }
      real c1 = 0, c2 = 0;
      if (s->train && D > 0) {
        c1 = (real)(-(double)rs * rs * wc * B / D);
        c2 = (real)(-(double)rs * wc * sg / D) - c1 * mu;
      }
      coef[c] = rs * wc;
      coef[C + c] = c1;
      coef[2 * C + c] = c2;
    }
    }
  }
}

/* Positions [begin, end) of the N*S: y = x a + c2 (forward, as
 * scale_shift), or dx = g a + x c1 + c2 (backward, as grad_line). */
TL_SIMD_CLONES
void TL_NORM_CL_APPLY(const tl_norm_job *job, int64_t begin, int64_t end)
{
  int64_t C = job->s.C;
  const real *x = job->x, *g = job->g, *coef = job->coef;
  const real *restrict a = coef, *restrict c1 = coef + C, *restrict c2 = coef + 2 * C;
  real *y = job->y;
  for (int64_t p = begin; p < end; p++) {
    const real *restrict xp = x + p * C;
    real *restrict yp = y + p * C;
    if (!g) {
#pragma omp simd
      for (int64_t k = 0; k < C; k++)
        yp[k] = xp[k] * a[k] + c2[k];
      continue;
    }
    const real *restrict gp = g + p * C;
#pragma omp simd
    for (int64_t k = 0; k < C; k++)
      yp[k] = gp[k] * a[k] + xp[k] * c1[k] + c2[k];
  }
}
