/* grid_loops.h - the loops of the sampling-grid kernels, written once over
 * the work type `real` and compiled twice: grid_loops_f32.c and
 * grid_loops_f64.c define TL_GRID_REAL (float or double) and the names of
 * the three functions this file defines; the rest is static.
 *
 * Coordinates are computed in `real`, in PyTorch's order of operations, so
 * that float inputs pick the same pixels and nearly the same weights. */
#include <math.h>
#include <string.h>

#include "nn/grid/grid_job.h"

typedef TL_GRID_REAL real;

#define FN static inline __attribute__((always_inline))

enum { MAXTAPS = 16 }; /* bicubic's 4 x 4 */

/* The taps of one grid point: plane offsets (-1: outside, reads 0), weights
 * and their derivatives by each pixel coordinate k (x, y, z), and the
 * derivative of each pixel coordinate by its grid value. */
typedef struct {
  int count;
  int64_t off[MAXTAPS];
  real w[MAXTAPS];
  real dw[3][MAXTAPS];
  real mult[3];
  real wx[4], wy[4]; /* bicubic: the per-dim weights (the forward sums rows first) */
} taps_t;

/* c reflected into [low2 / 2, high2 / 2] (the bounds given doubled, so that
 * half-pixel borders stay integers); *d the derivative, +1 or -1. */
FN real reflect(real c, real low2, real high2, real *d)
{
  if (low2 == high2) {
    *d = 0;
    return 0;
  }
  real lo = low2 / 2, span = (high2 - low2) / 2, sign = 1;
  c -= lo;
  if (c < 0) {
    sign = -1;
    c = -c;
  }
  real extra = (real)fmod(c, span);
  int64_t flips = (int64_t)floor(c / span);
  if (flips % 2 == 0) {
    *d = sign;
    return extra + lo;
  }
  *d = -sign;
  return span - extra + lo;
}

/* c clipped to [0, S - 1]; *d 1 inside, 0 where clipped */
FN real clip(real c, int64_t S, real *d)
{
  real hi = (real)(S - 1);
  *d = c < 0 || c > hi ? 0 : 1;
  return c < 0 ? 0 : c > hi ? hi : c;
}

/* A position moved inside by the padding mode (border, reflection); *d its
 * derivative. */
FN real pad_coord(const tl_grid_spec *s, real c, int64_t S, real *d)
{
  real d1 = 1, d2 = 1;
  if (s->padding == TL_GRID_BORDER) {
    c = clip(c, S, &d1);
  } else if (s->padding == TL_GRID_REFLECTION) {
    c = s->align_corners ? reflect(c, 0, 2 * (real)(S - 1), &d1)
                         : reflect(c, -1, 2 * (real)S - 1, &d1);
    c = clip(c, S, &d2);
  }
  *d = d1 * d2;
  return c;
}

/* Keys' cubic convolution (a = -0.75) weights of the taps at -1, 0, 1, 2
 * for the offset t in [0, 1), and their derivatives by t. */
FN void cubic_weights(real t, real *w, real *dw)
{
  const real A = (real)-0.75;
  real u = 1 - t, p = t + 1, q = u + 1;
  w[0] = ((A * p - 5 * A) * p + 8 * A) * p - 4 * A;
  w[1] = ((A + 2) * t - (A + 3)) * t * t + 1;
  w[2] = ((A + 2) * u - (A + 3)) * u * u + 1;
  w[3] = ((A * q - 5 * A) * q + 8 * A) * q - 4 * A;
  dw[0] = (3 * A * p - 10 * A) * p + 8 * A;
  dw[1] = (3 * (A + 2) * t - 2 * (A + 3)) * t;
  dw[2] = -(3 * (A + 2) * u - 2 * (A + 3)) * u;
  dw[3] = -((3 * A * q - 10 * A) * q + 8 * A);
}

/* The taps of the grid point gp (n values); their weights' derivatives only
 * when want_dw (the forward, inlining a constant false, drops that work). */
FN void taps_of(const tl_grid_spec *s, const real *gp, taps_t *t, bool want_dw)
{
  int n = s->n;
  int64_t S[3] = {s->in[2], s->in[1], s->in[0]};              /* along x, y, z */
  int64_t stride[3] = {1, s->in[2], s->in[1] * s->in[2]};
  real c[3];
  for (int k = 0; k < n; k++) {
    real g = gp[k], d;
    if (s->align_corners) {
      c[k] = (g + 1) / 2 * (real)(S[k] - 1);
      t->mult[k] = (real)(S[k] - 1) / 2;
    } else {
      c[k] = ((g + 1) * (real)S[k] - 1) / 2;
      t->mult[k] = (real)S[k] / 2;
    }
    if (s->mode != TL_GRID_BICUBIC) { /* bicubic pads its taps instead */
      c[k] = pad_coord(s, c[k], S[k], &d);
      t->mult[k] *= d;
    }
    /* not finite, or too far out for any tap to land inside (bicubic moves
     * its taps inside unless padding with zeros): nothing to read */
    bool far = !(c[k] > -4 && c[k] < (real)S[k] + 3);
    if (!isfinite(c[k]) || (far && (s->mode != TL_GRID_BICUBIC || s->padding == TL_GRID_ZEROS))) {
      t->count = 0;
      return;
    }
  }
  if (s->mode == TL_GRID_NEAREST) {
    int64_t off = 0;
    bool inside = true;
    for (int k = 0; k < n; k++) {
      int64_t i = (int64_t)nearbyint(c[k]);
      inside &= i >= 0 && i < S[k];
      off += i * stride[k];
    }
    t->count = 1;
    t->off[0] = inside ? off : -1;
    t->w[0] = 1;
    for (int k = 0; k < n; k++)
      t->dw[k][0] = 0;
    return;
  }
  if (s->mode == TL_GRID_BILINEAR) {
    int64_t i0[3];
    real w0[3], w1[3];
    for (int k = 0; k < n; k++) {
      i0[k] = (int64_t)floor(c[k]);
      w0[k] = (real)(i0[k] + 1) - c[k];
      w1[k] = c[k] - (real)i0[k];
    }
    t->count = 1 << n;
    for (int q = 0; q < t->count; q++) {
      int64_t off = 0;
      bool inside = true;
      real w = 1;
      for (int k = 0; k < n; k++) {
        int bit = (q >> k) & 1;
        int64_t i = i0[k] + bit;
        inside &= i >= 0 && i < S[k];
        off += i * stride[k];
        w *= bit ? w1[k] : w0[k];
      }
      t->off[q] = inside ? off : -1;
      t->w[q] = w;
      for (int k = 0; want_dw && k < n; k++) {
        real d = (q >> k) & 1 ? 1 : -1;
        for (int m = 0; m < n; m++)
          if (m != k)
            d *= (q >> m) & 1 ? w1[m] : w0[m];
        t->dw[k][q] = d;
      }
    }
    return;
  }
  /* bicubic, n == 2: rows j (y) of taps i (x) */
  real fx = floor(c[0]), fy = floor(c[1]), dwx[4], dwy[4], d;
  cubic_weights(c[0] - fx, t->wx, dwx);
  cubic_weights(c[1] - fy, t->wy, dwy);
  t->count = 16;
  for (int j = 0; j < 4; j++) {
    int64_t iy = (int64_t)pad_coord(s, fy - 1 + (real)j, S[1], &d);
    bool in_y = iy >= 0 && iy < S[1];
    for (int i = 0; i < 4; i++) {
      int64_t ix = (int64_t)pad_coord(s, fx - 1 + (real)i, S[0], &d);
      bool inside = in_y && ix >= 0 && ix < S[0];
      int q = j * 4 + i;
      t->off[q] = inside ? iy * S[0] + ix : -1;
      t->w[q] = t->wx[i] * t->wy[j];
      if (want_dw) {
        t->dw[0][q] = dwx[i] * t->wy[j];
        t->dw[1][q] = t->wx[i] * dwy[j];
      }
    }
  }
}

/* ---- grid_sampler ----------------------------------------------------------------
 * Points go in blocks of up to BLOCK consecutive output points of one sample:
 * the block's taps are computed once, then each channel runs over the block,
 * so that reads of g and writes of y (and dgrid) are contiguous and the taps
 * are reused across all channels.  Per point, the sums keep their order (taps
 * in order; channels in order), so results do not depend on the blocking. */
enum { BLOCK = 64 };

/* y[c, o] for the block's points of channel plane x. */
FN void sample_block(const tl_grid_spec *s, const taps_t *t, int64_t m, const real *x, real *y)
{
  for (int64_t i = 0; i < m; i++) {
    const taps_t *ti = &t[i];
    real v = 0;
    if (s->mode == TL_GRID_BICUBIC && ti->count) { /* rows first, as PyTorch */
      for (int j = 0; j < 4; j++) {
        real row = 0;
        for (int k = 0; k < 4; k++)
          row += (ti->off[j * 4 + k] >= 0 ? x[ti->off[j * 4 + k]] : 0) * ti->wx[k];
        v += row * ti->wy[j];
      }
    } else {
      for (int q = 0; q < ti->count; q++)
        if (ti->off[q] >= 0)
          v += x[ti->off[q]] * ti->w[q];
    }
    y[i] = v;
  }
}

/* Bilinear 2-D taps packed small (a point's taps in one cache line): a
 * point with no taps (count 0) has all four offsets -1. */
typedef struct {
  int64_t off[4];
  real w[4];
  real dw[2][4];
} tap4_t;

FN void pack4(const taps_t *t, tap4_t *p, bool want_dw)
{
  for (int q = 0; q < 4; q++) {
    p->off[q] = t->count ? t->off[q] : -1;
    p->w[q] = t->w[q];
    if (want_dw) {
      p->dw[0][q] = t->dw[0][q];
      p->dw[1][q] = t->dw[1][q];
    }
  }
}

/* sample_block for packed bilinear 2-D taps; the skipped taps stay skipped
 * (a select, not a multiply by 0, so that inf and nan elsewhere do not leak). */
FN void sample_block4(const tap4_t *t, int64_t m, const real *x, real *y)
{
  for (int64_t i = 0; i < m; i++) {
    real v = 0;
    for (int q = 0; q < 4; q++) {
      int64_t off = t[i].off[q];
      real a = x[off >= 0 ? off : 0] * t[i].w[q];
      v = off >= 0 ? v + a : v;
    }
    y[i] = v;
  }
}

void TL_GRID_SAMPLE(const tl_grid_job *job, int64_t begin, int64_t end)
{
  const tl_grid_spec *s = &job->s;
  int64_t P = s->out[0] * s->out[1] * s->out[2], plane = s->in[0] * s->in[1] * s->in[2];
  const real *grid = job->grid;
  real *y = job->y;
  bool bilinear2 = s->mode == TL_GRID_BILINEAR && s->n == 2;
  taps_t t[BLOCK];
  tap4_t t4[BLOCK];
  for (int64_t p = begin; p < end;) {
    int64_t b = p / P, o = p % P, m = P - o;
    m = m > end - p ? end - p : m;
    m = m > BLOCK ? BLOCK : m;
    for (int64_t i = 0; i < m; i++) {
      taps_of(s, grid + (p + i) * s->n, &t[i], false);
      if (bilinear2)
        pack4(&t[i], &t4[i], false);
    }
    for (int64_t c = 0; c < s->C; c++) {
      const real *x = (const real *)job->x + (b * s->C + c) * plane;
      real *yc = y + (b * s->C + c) * P + o;
      if (bilinear2)
        sample_block4(t4, m, x, yc);
      else
        sample_block(s, t, m, x, yc);
    }
    p += m;
  }
}

/* ---- grid_sampler_backward: items (b, channel block k) --------------------------
 * dx[b, c] += w_t g at p_t for the block's channels (the item owns them),
 * and the block's part of dgrid[b, o]: sum over c of g x[p_t] dw_t/dcoord.
 * Points go in blocks as in the forward; sum[i] holds point i's dgrid sums. */
FN void backward_block(const tl_grid_spec *s, const taps_t *t, int64_t m, const real *gc,
                       const real *x, real *dx, real (*sum)[3])
{
  int n = s->n;
  for (int64_t i = 0; i < m; i++) {
    const taps_t *ti = &t[i];
    real gv = gc[i];
    for (int q = 0; q < ti->count; q++) {
      if (ti->off[q] < 0)
        continue;
      if (dx)
        dx[ti->off[q]] += ti->w[q] * gv;
      if (sum) {
        real v = x[ti->off[q]] * gv;
        for (int d = 0; d < n; d++)
          sum[i][d] += ti->dw[d][q] * v;
      }
    }
  }
}

/* backward_block for packed bilinear 2-D taps; a point's sums are held in
 * locals (dx may not alias them: restrict), added in the same order. */
FN void backward_block4(const tap4_t *restrict t, int64_t m, const real *restrict gc,
                        const real *restrict x, real *restrict dx, real (*restrict sum)[3])
{
  for (int64_t i = 0; i < m; i++) {
    real gv = gc[i], s0 = sum ? sum[i][0] : 0, s1 = sum ? sum[i][1] : 0;
    for (int q = 0; q < 4; q++) {
      int64_t off = t[i].off[q];
      if (off < 0)
        continue;
      if (dx)
        dx[off] += t[i].w[q] * gv;
      if (sum) {
        real v = x[off] * gv;
        s0 += t[i].dw[0][q] * v;
        s1 += t[i].dw[1][q] * v;
      }
    }
    if (sum) {
      sum[i][0] = s0;
      sum[i][1] = s1;
    }
  }
}

void TL_GRID_BACKWARD(const tl_grid_job *job, int64_t begin, int64_t end)
{
  const tl_grid_spec *s = &job->s;
  int n = s->n;
  int64_t P = s->out[0] * s->out[1] * s->out[2], plane = s->in[0] * s->in[1] * s->in[2];
  const real *grid = job->grid, *g = job->g, *xs = job->x;
  real *dx = job->dx, *dgrid = job->dgrid;
  bool bilinear2 = s->mode == TL_GRID_BILINEAR && n == 2;
  taps_t t[BLOCK];
  tap4_t t4[BLOCK];
  real sum[BLOCK][3];
  for (int64_t item = begin; item < end; item++) {
    int64_t b = item / job->cblocks, k = item % job->cblocks;
    int64_t c0 = k * s->C / job->cblocks, c1 = (k + 1) * s->C / job->cblocks;
    for (int64_t o = 0; o < P; o += BLOCK) {
      int64_t m = P - o > BLOCK ? BLOCK : P - o;
      for (int64_t i = 0; i < m; i++) {
        taps_of(s, grid + (b * P + o + i) * n, &t[i], dgrid != NULL);
        if (bilinear2)
          pack4(&t[i], &t4[i], dgrid != NULL);
        sum[i][0] = sum[i][1] = sum[i][2] = 0;
      }
      for (int64_t c = c0; c < c1; c++) {
        int64_t at = (b * s->C + c) * plane;
        const real *gc = g + (b * s->C + c) * P + o;
        real *dxc = dx ? dx + at : NULL;
        real(*sm)[3] = dgrid ? sum : NULL;
        if (bilinear2)
          backward_block4(t4, m, gc, xs + at, dxc, sm);
        else
          backward_block(s, t, m, gc, xs + at, dxc, sm);
      }
      if (!dgrid)
        continue;
      for (int64_t i = 0; i < m; i++) {
        real *dst = dgrid + ((job->partial ? item : b) * P + o + i) * n;
        for (int d = 0; d < n; d++)
          dst[d] = t[i].count ? sum[i][d] * t[i].mult[d] : 0;
      }
    }
  }
}

/* ---- affine_grid_generator ------------------------------------------------------- */

/* Pixel i's normalised coordinate along a dim of `steps` pixels: PyTorch's
 * linspace(-1, 1, steps) (each half counted from its own end), scaled by
 * (steps - 1) / steps without align_corners. */
FN real base_coord(int64_t i, int64_t steps, bool align)
{
  if (steps <= 1)
    return 0;
  real step = (real)2 / (real)(steps - 1);
  real v = i < steps / 2 ? (real)-1 + step * (real)i : (real)1 - step * (real)(steps - 1 - i);
  return align ? v : v * (real)(steps - 1) / (real)steps;
}

void TL_AFFINE_GRID(const tl_affine_job *job, bool transpose, int64_t begin, int64_t end)
{
  int n = job->n, m = n + 1;
  int64_t D = job->out[0], H = job->out[1], W = job->out[2];
  for (int64_t b = begin; b < end; b++) {
    const real *in = job->in; /* theta (N, n, m), or dgrid (N, D, H, W, n) */
    real *out = job->out_data;
    int64_t at = b * D * H * W * n; /* this sample's grid */
    double acc[3][4] = {{0}};
    for (int64_t z = 0; z < D; z++)
      for (int64_t y = 0; y < H; y++)
        for (int64_t x = 0; x < W; x++) {
          real base[4] = {base_coord(x, W, job->align_corners), base_coord(y, H, job->align_corners),
                          0, 1};
          if (n == 3) {
            base[2] = base_coord(z, D, job->align_corners);
            base[3] = 1;
          } else {
            base[2] = 1;
          }
          int64_t p = at + ((z * H + y) * W + x) * n;
          for (int j = 0; j < n; j++) {
            if (transpose) {
              for (int k = 0; k < m; k++)
                acc[j][k] += (double)in[p + j] * base[k];
            } else {
              real v = 0;
              for (int k = 0; k < m; k++)
                v += base[k] * in[(b * n + j) * m + k];
              out[p + j] = v;
            }
          }
        }
    if (transpose)
      for (int j = 0; j < n; j++)
        for (int k = 0; k < m; k++)
          out[(b * n + j) * m + k] = (real)acc[j][k];
  }
}
