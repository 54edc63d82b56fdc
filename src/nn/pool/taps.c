/* taps.c - the per-dim tap tables of tl_pool.h, built from an op's
 * arguments with PyTorch's index and weight rules, so that one kernel runs
 * every pooling and interpolation mode.
 *
 * Where PyTorch computes an index in float (nearest's scale, the floorf of
 * the linear/cubic source index, fractional intervals in the input's scalar
 * type), so do we: `single` rounds to float where PyTorch would, so the same
 * output picks the same input position.                                     */
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "nn/pool/tl_pool.h"

void tl_nn_taps_release(tl_nn_taps *taps, int n)
{
  for (int d = 0; d < n; d++) {
    free(taps[d].index);
    free(taps[d].weight);
    taps[d].index = NULL;
    taps[d].weight = NULL;
  }
}

/* Allocate out * k taps (per plane: `planes` copies), all "none". */
static tl_status taps_alloc(tl_nn_taps *t, int64_t in, int64_t out, int64_t k, bool weighted,
                            int64_t planes)
{
  *t = (tl_nn_taps){.in = in, .out = out, .k = k};
  int64_t n = 0;
  /* a product past what malloc can hold would wrap to a small buffer */
  if (__builtin_mul_overflow(out, k, &n) || __builtin_mul_overflow(n, planes, &n) ||
      (uint64_t)n > SIZE_MAX / sizeof *t->weight)
    return tl_error_set(TL_ERR_MEMORY, "pooling: %lld x %lld taps cannot be allocated",
                        (long long)out, (long long)k);
  size_t count = (size_t)n;
  t->index = malloc((count ? count : 1) * sizeof *t->index);
  t->weight = weighted ? calloc(count ? count : 1, sizeof *t->weight) : NULL;
  if (!t->index || (weighted && !t->weight)) {
    tl_nn_taps_release(t, 1);
    return tl_error_set(TL_ERR_MEMORY, "pooling: out of memory for %lld taps", (long long)count);
  }
  for (size_t i = 0; i < count; i++)
    t->index[i] = -1;
  t->plane_stride = planes > 1 ? out * k : 0;
  return TL_OK;
}

/* floor division (PyTorch's div_rtn) */
static int64_t div_floor(int64_t a, int64_t b)
{
  int64_t q = a / b;
  return (a % b != 0 && (a < 0) != (b < 0)) ? q - 1 : q;
}

int64_t tl_nn_pool_out_size(int64_t in, int64_t k, int64_t s, int64_t p, int64_t d, bool ceil_mode)
{
  int64_t out = div_floor(in + 2 * p - d * (k - 1) - 1 + (ceil_mode ? s - 1 : 0), s) + 1;
  /* the last window must start inside the input or its left padding */
  if (ceil_mode && (out - 1) * s >= in + p)
    out--;
  return out;
}

tl_status tl_nn_taps_window(tl_nn_taps *t, int64_t in, const tl_nn_pool_window *w, int d,
                            bool weighted)
{
  int64_t k = w->kernel[d], s = w->stride[d], p = w->padding[d], dil = w->dilation[d];
  int64_t out = tl_nn_pool_out_size(in, k, s, p, dil, w->ceil_mode);
  /* At most ceil(in / dil) taps of a window land inside the input: a kernel
   * wider than that (2**31 with ceil_mode gives one window) keeps only those,
   * packed first, instead of a table (and a loop) of k taps per output. */
  int64_t inside = in / dil + (in % dil != 0), width = k < inside ? k : inside;
  width = width > 0 ? width : 1;
  if (taps_alloc(t, in, out < 0 ? 0 : out, width, weighted, 1) != TL_OK)
    return tl_error_status();
  for (int64_t j = 0; j < t->out; j++) {
    int64_t start = j * s - p;
    /* avg pooling's divisor along this dim: the window clipped to the padded
     * input, or to the input itself without count_include_pad */
    int64_t end = start + k < in + p ? start + k : in + p;
    int64_t lo = start < 0 ? 0 : start, hi = end < in ? end : in;
    double div = w->divisor ? (d == 0 ? (double)w->divisor : 1.0)
                            : (double)(w->count_include_pad ? end - start : hi - lo);
    /* the first tap inside, then every dil-th position to the input's end */
    int64_t q0 = start < 0 ? (-start + dil - 1) / dil : 0, packed = 0;
    for (int64_t q = q0; q < k && start + q * dil < in; q++, packed++) {
      int64_t slot = j * width + (width == k ? q : packed);
      t->index[slot] = start + q * dil;
      if (weighted)
        t->weight[slot] = 1.0 / div;
    }
  }
  return TL_OK;
}

static int64_t gcd(int64_t a, int64_t b)
{
  while (b) {
    int64_t r = a % b;
    a = b;
    b = r;
  }
  return a;
}

/* The longest adaptive range, in closed form: a loop over the outputs would
 * run for ages on a huge output_size before the allocation could fail.
 * With in = q*out + r, range j spans q + ceil((f + r) / out) inputs where
 * f = j*r mod out takes every multiple of g = gcd(r, out) below out; so the
 * longest is q when r == 0, else q + 2 when some f + r passes out (r > g),
 * else q + 1. */
static int64_t adaptive_longest(int64_t in, int64_t out)
{
  if (out <= 0)
    return 0;
  int64_t q = in / out, r = in % out;
  return r == 0 ? q : q + (r > gcd(r, out) ? 2 : 1);
}

tl_status tl_nn_taps_adaptive(tl_nn_taps *t, int64_t in, int64_t out, bool weighted)
{
  int64_t k = adaptive_longest(in, out);
  if (taps_alloc(t, in, out, k, weighted, 1) != TL_OK)
    return tl_error_status();
  for (int64_t j = 0; j < out; j++) {
    int64_t start = j * in / out, end = ((j + 1) * in + out - 1) / out;
    for (int64_t q = 0; q < end - start; q++) {
      t->index[j * k + q] = start + q;
      if (weighted)
        t->weight[j * k + q] = 1.0 / (double)(end - start);
    }
  }
  return TL_OK;
}

static double rnd(double x, bool single) { return single ? (double)(float)x : x; }

/* Keys' cubic convolution with parameter a, at distance x (|x| <= 1 and 1 < |x| < 2). */
static double cubic1(double x, double a) { return ((a + 2) * x - (a + 3)) * x * x + 1; }
static double cubic2(double x, double a) { return ((a * x - 5 * a) * x + 8 * a) * x - 4 * a; }

/* The antialiasing filters, at distance x: a triangle, or cubic with a = -0.5. */
static double aa_filter(double x, bool cubic)
{
  x = fabs(x);
  if (!cubic)
    return x < 1 ? 1 - x : 0;
  return x < 1 ? cubic1(x, -0.5) : x < 2 ? cubic2(x, -0.5) : 0;
}

/* PyTorch's area_pixel_compute_scale: the source step per output position */
static double resample_scale(int64_t in, int64_t out, const tl_nn_resample *r, int d)
{
  if (r->align_corners)
    return out > 1 ? (double)(in - 1) / (double)(out - 1) : 0.0;
  return r->scales[d] > 0 ? 1.0 / r->scales[d] : (double)in / (double)out;
}

tl_status tl_nn_taps_resample(tl_nn_taps *t, int64_t in, int64_t out, const tl_nn_resample *r,
                              int d, bool single)
{
  double given = r->scales[d];
  bool cubic = r->mode == TL_NN_RESAMPLE_CUBIC;
  double scale = rnd(resample_scale(in, out, r, d), single);
  if (r->mode == TL_NN_RESAMPLE_NEAREST || r->mode == TL_NN_RESAMPLE_NEAREST_EXACT) {
    /* always float, as PyTorch's nearest_idx */
    float fs = given > 0 ? (float)(1.0 / given) : (float)in / (float)out;
    float off = r->mode == TL_NN_RESAMPLE_NEAREST_EXACT ? 0.5f : 0.0f;
    if (taps_alloc(t, in, out, 1, true, 1) != TL_OK)
      return tl_error_status();
    for (int64_t j = 0; j < out; j++) {
      int64_t src = (int64_t)floorf(((float)j + off) * fs);
      if (r->mode == TL_NN_RESAMPLE_NEAREST && out == in)
        src = j;
      else if (r->mode == TL_NN_RESAMPLE_NEAREST && out == 2 * in)
        src = j >> 1;
      t->index[j] = src < in - 1 ? src : in - 1;
      t->weight[j] = 1.0;
    }
    return TL_OK;
  }
  if (r->antialias) {
    /* a filter stretched by the down-scaling factor, rows normalised */
    double half = cubic ? 2.0 : 1.0, support = scale >= 1.0 ? half * scale : half;
    double inv = scale >= 1.0 ? 1.0 / scale : 1.0;
    int64_t k = (int64_t)ceil(support) * 2 + 1;
    if (taps_alloc(t, in, out, k, true, 1) != TL_OK)
      return tl_error_status();
    for (int64_t j = 0; j < out; j++) {
      double centre = rnd(scale * ((double)j + 0.5), single), total = 0;
      int64_t lo = (int64_t)(centre - support + 0.5), hi = (int64_t)(centre + support + 0.5);
      lo = lo > 0 ? lo : 0;
      hi = hi < in ? hi : in;
      for (int64_t q = 0; q < hi - lo && q < k; q++) {
        double wq = aa_filter(((double)(q + lo) - centre + 0.5) * inv, cubic);
        t->index[j * k + q] = lo + q;
        t->weight[j * k + q] = wq;
        total += wq;
      }
      for (int64_t q = 0; q < k && total != 0; q++)
        t->weight[j * k + q] /= total;
    }
    return TL_OK;
  }
  int64_t k = cubic ? 4 : 2;
  if (taps_alloc(t, in, out, k, true, 1) != TL_OK)
    return tl_error_status();
  for (int64_t j = 0; j < out; j++) {
    /* area_pixel_compute_source_index, then guard_index_and_lambda */
    double real = r->align_corners ? scale * (double)j : scale * ((double)j + 0.5) - 0.5;
    if (!cubic && !r->align_corners && real < 0)
      real = 0;
    real = rnd(real, single);
    int64_t i0 = (int64_t)floorf((float)real);
    i0 = i0 < in - 1 ? i0 : in - 1;
    double lam = real - (double)i0;
    lam = rnd(lam < 0 ? 0 : lam > 1 ? 1 : lam, single);
    if (!cubic) {
      t->index[j * 2] = i0;
      t->index[j * 2 + 1] = i0 + (i0 < in - 1 ? 1 : 0);
      t->weight[j * 2] = 1 - lam;
      t->weight[j * 2 + 1] = lam;
      continue;
    }
    const double a = -0.75, w[4] = {cubic2(lam + 1, a), cubic1(lam, a), cubic1(1 - lam, a),
                                     cubic2(2 - lam, a)};
    for (int q = 0; q < 4; q++) {
      int64_t pos = i0 - 1 + q;
      t->index[j * 4 + q] = pos < 0 ? 0 : pos > in - 1 ? in - 1 : pos;
      t->weight[j * 4 + q] = w[q];
    }
  }
  return TL_OK;
}

/* PyTorch's filter for uint8 resampling at distance x: the triangle, or
 * Keys' cubic with a = -0.5 (antialiased, as Pillow) or -0.75 (as OpenCV). */
static double fixed_filter(double x, bool cubic, bool antialias)
{
  return cubic && !antialias ? (fabs(x) < 1   ? cubic1(fabs(x), -0.75)
                                : fabs(x) < 2 ? cubic2(fabs(x), -0.75)
                                              : 0)
                             : aa_filter(x, cubic);
}

/* Non-antialiased uint8 taps (PyTorch's _compute_indices_min_size_weights):
 * k taps around the source index, the weights of taps outside the input
 * added onto the edge taps; returns the running maximum of the weights, as
 * PyTorch's (which sizes the fixed-point precision from it). */
static double fixed_ranges(tl_nn_taps *t, double scale, const tl_nn_resample *r)
{
  bool cubic = r->mode == TL_NN_RESAMPLE_CUBIC;
  int64_t k = t->k, support = k / 2, in = t->in;
  double wmax = 0;
  for (int64_t j = 0; j < t->out; j++) {
    double real = r->align_corners ? scale * (double)j : scale * ((double)j + 0.5) - 0.5;
    if (!cubic && !r->align_corners && real < 0)
      real = 0;
    int64_t i0 = (int64_t)floorf((float)real);
    i0 = i0 < in - 1 ? i0 : in - 1;
    double lam = real - (double)i0;
    lam = lam < 0 ? 0 : lam > 1 ? 1 : lam;
    int64_t first = i0 - support + 1, lo = first > 0 ? first : 0;
    int64_t last = i0 + support + 1 < in ? i0 + support + 1 : in, size = last - lo;
    size = size < 0 ? 0 : size > k ? k : size;
    double *w = t->weight + j * k;
    for (int64_t q = 0, at = 0; q < k; q++, at++) {
      if (first + q <= 0)
        at = 0;
      else if (first + q >= in - 1)
        at = size - 1;
      if (at < 0 || at >= k)
        continue;
      w[at] += fixed_filter((double)(q + 1 - support) - lam, cubic, false);
      wmax = w[at] > wmax ? w[at] : wmax;
    }
    for (int64_t q = 0; q < size; q++)
      t->index[j * k + q] = lo + q;
  }
  return wmax;
}

tl_status tl_nn_taps_resample_fixed(tl_nn_taps *t, int64_t in, int64_t out,
                                    const tl_nn_resample *r, int d)
{
  double wmax = 0;
  if (in == out) { /* weight 2 at precision 1: (1 + 2x) >> 1 == x */
    if (taps_alloc(t, in, out, 1, true, 1) != TL_OK)
      return tl_error_status();
    for (int64_t j = 0; j < out; j++) {
      t->index[j] = j;
      t->weight[j] = 2;
    }
    t->precision = 1;
    return TL_OK;
  }
  if (r->antialias) {
    if (tl_nn_taps_resample(t, in, out, r, d, false) != TL_OK)
      return tl_error_status();
    for (int64_t e = 0; e < out * t->k; e++)
      wmax = t->weight[e] > wmax ? t->weight[e] : wmax;
  } else {
    if (taps_alloc(t, in, out, r->mode == TL_NN_RESAMPLE_CUBIC ? 4 : 2, true, 1) != TL_OK)
      return tl_error_status();
    wmax = fixed_ranges(t, resample_scale(in, out, r, d), r);
  }
  /* the most bits that keep 2 * wmax within int16, at most 22 */
  int p = 0;
  while (p < 22 && (int)(0.5 + wmax * (double)(1 << (p + 1))) < 1 << 15)
    p++;
  for (int64_t e = 0; e < out * t->k; e++) {
    double v = t->weight[e] * (double)(1 << p);
    t->weight[e] = (double)(int16_t)(v < 0 ? (int)(-0.5 + v) : (int)(0.5 + v));
  }
  t->precision = p;
  return TL_OK;
}

tl_status tl_nn_taps_fractional(tl_nn_taps *t, int64_t in, int64_t out, int64_t k,
                                const double *samples, int64_t planes, int n, int d, bool single)
{
  /* PyTorch's sample order: (w, h) for 2-d pooling, (t, h, w) for 3-d */
  int col = n == 3 ? d : n - 1 - d;
  if (taps_alloc(t, in, out, k, false, planes) != TL_OK)
    return tl_error_status();
  for (int64_t b = 0; b < planes; b++) {
    double u = rnd(samples[b * n + col], single);
    double alpha = out > 1 ? rnd((double)(in - k) / (double)(out - 1), single) : 0;
    int64_t *index = t->index + b * t->plane_stride;
    for (int64_t j = 0; j < out; j++) {
      /* generate_intervals: the window starts, the last one flush right */
      int64_t start = j == out - 1 ? in - k
                                   : (int64_t)(int)rnd(((double)j + u) * alpha, single) -
                                         (int64_t)(int)rnd(u * alpha, single);
      for (int64_t q = 0; q < k; q++)
        index[j * k + q] = start + q;
    }
  }
  return TL_OK;
}

/* ---- the weighted passes' plan (shared by every device's kernels) ---- */

/* The order of the passes (a permutation of the n dims) doing the least
 * work: the passes are linear maps along different dims, so they commute.
 * A pass costs its outputs times its taps, four times that along the last
 * dim (inner == 1: a scalar gather, not a SIMD row), so upsampling runs it
 * first (on the smaller input), downsampling last.  cur: the sizes before. */
void tl_nn_taps_pass_order(int n, const tl_nn_taps *taps, bool transpose, const int64_t *cur,
                           int *order)
{
  static const int perms[6][3] = {{0, 1, 2}, {0, 2, 1}, {1, 0, 2}, {1, 2, 0}, {2, 0, 1}, {2, 1, 0}};
  double best = -1;
  for (int p = 0; p < 6; p++) {
    int valid = 1;
    for (int i = 0; i < n; i++)
      valid &= perms[p][i] < n;
    if (!valid)
      continue;
    int64_t size[TL_NN_POOL_MAX_DIMS];
    double cost = 0;
    for (int d = 0; d < n; d++)
      size[d] = cur[d];
    for (int i = 0; i < n; i++) {
      int d = perms[p][i];
      double elems = 1;
      size[d] = transpose ? taps[d].in : taps[d].out;
      for (int e = 0; e < n; e++)
        elems *= (double)(e == d && transpose ? taps[d].out : size[e]);
      cost += elems * (double)taps[d].k * (d == n - 1 ? 4 : 1);
    }
    if (best < 0 || cost < best) {
      best = cost;
      memcpy(order, perms[p], sizeof perms[p]);
    }
  }
}

void tl_nn_taps_pass_step(int n, const tl_nn_taps *taps, bool transpose, int d, int64_t B,
                          int64_t *cur, int64_t *outer, int64_t *inner)
{
  *outer = B;
  *inner = 1;
  for (int e = 0; e < d; e++)
    *outer *= cur[e];
  for (int e = d + 1; e < n; e++)
    *inner *= cur[e];
  cur[d] = transpose ? taps[d].in : taps[d].out;
}
