/* grid_loops.h - the loops of the sampling-grid kernels, written once over
 * the work type `real` and compiled twice: grid_loops_f32.c and
 * grid_loops_f64.c define TL_GRID_REAL (float or double) and the names of
 * the three functions this file defines; the rest is static.
 *
 * Coordinates are computed in `real`, in PyTorch's order of operations, so
 * that float inputs pick the same pixels and nearly the same weights; the
 * taps of a point are grid_taps.h's, shared with the CUDA kernels. */
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "nn/grid/grid_job.h"

typedef TL_GRID_REAL real;

#define FN static inline __attribute__((always_inline))
#define TL_GRID_FN FN

#include "nn/grid/grid_taps.h"

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

/* Bilinear 2-D taps packed small (a point's taps in 1.5 cache lines): a
 * point with no taps has all four offsets -1 and mult 0.  sum: the
 * backward's dgrid sums of the point (over the channels so far). */
typedef struct {
  int64_t off[4];
  real w[4];
  real dw[4][2]; /* by tap, then by coordinate: a tap's pair is read together */
  real mult[2];
  real sum[2];
} tap4_t;

FN void pack4(const taps_t *t, tap4_t *p, bool want_dw)
{
  for (int q = 0; q < 4; q++) {
    p->off[q] = t->count ? t->off[q] : -1;
    p->w[q] = t->w[q];
    if (want_dw) {
      p->dw[q][0] = t->dw[0][q];
      p->dw[q][1] = t->dw[1][q];
    }
  }
  for (int k = 0; k < 2; k++) {
    p->mult[k] = t->count ? t->mult[k] : 0;
    p->sum[k] = 0;
  }
}

/* The bilinear 2-D loops take blocks of up to BIG points (the packed taps,
 * 96 bytes a point, stay in L2): a block's points may land anywhere in the
 * plane, so each channel's x plane (and dx plane in the backward) is loaded
 * into L1 once per block and channel; with BLOCK points most of those loads
 * were misses.  The buffer is the heap's, or BLOCK points on the stack when
 * the heap has none (slower, same results). */
enum { BIG = 2048 };

typedef struct {
  tap4_t *t, local[BLOCK];
  int64_t cap;
} tap4_buf;

static void tap4_buf_init(tap4_buf *b)
{
  b->t = malloc(BIG * sizeof *b->t);
  b->cap = b->t ? BIG : BLOCK;
  if (!b->t)
    b->t = b->local;
}

static void tap4_buf_free(tap4_buf *b)
{
  if (b->t != b->local)
    free(b->t);
}

/* The forward's bilinear 2-D taps of a block, by tap then point (structure
 * of arrays): off[q * cap + i] (int32; -1 outside) and w[q * cap + i].  A
 * channel's pass over the block reads 32 bytes of taps a point where the
 * packed tap4_t (backward's) is 96.  Offsets are int32: planes of 2^31
 * pixels or more (and a heap without room for the buffer) take sample_block
 * instead. */
typedef struct {
  int32_t *off;
  real *w;
  int64_t cap;
} soa4_buf;

static bool soa4_buf_init(soa4_buf *b)
{
  b->cap = BIG;
  b->off = malloc(4 * BIG * sizeof *b->off);
  b->w = malloc(4 * BIG * sizeof *b->w);
  return b->off && b->w;
}

static void soa4_buf_free(soa4_buf *b)
{
  free(b->off);
  free(b->w);
}

FN void soa4_put(soa4_buf *b, int64_t i, const taps_t *t)
{
  for (int q = 0; q < 4; q++) {
    b->off[q * b->cap + i] = t->count ? (int32_t)t->off[q] : -1;
    b->w[q * b->cap + i] = t->count ? t->w[q] : 0; /* a point with no taps set no weights */
  }
}

/* y[k * P + i] for the block's m points of the CH channel planes x + k *
 * plane (CH small, a constant where inlined: one pass over the taps serves
 * CH channels), the taps in order.  A skipped tap reads a zero instead of
 * x (so that inf and nan elsewhere do not leak) and adds zero times its
 * weight, which is finite, to the sum: the sum sample_block's select gives,
 * and no branch, whose mispredictions at the points near the border cost
 * more than the arithmetic. */
FN void sample_soa4(const int32_t *restrict off, const real *restrict w, int64_t cap, int64_t m,
                    const real *restrict x, int64_t plane, real *restrict y, int64_t P,
                    const int CH)
{
  static const real zero = 0;
  for (int64_t i = 0; i < m; i++) {
    real v[4] = {0, 0, 0, 0};
    for (int q = 0; q < 4; q++) {
      int32_t o = off[q * cap + i];
      const real *src = o >= 0 ? x + o : &zero;
      int64_t step = o >= 0 ? plane : 0;
#if defined(__GNUC__) || defined(__clang__)
      __asm__("" : "+r"(src), "+r"(step)); /* loads from either: else the compiler branches */
#endif
      real wq = w[q * cap + i];
      for (int k = 0; k < CH; k++)
        v[k] += src[k * step] * wq;
    }
    for (int k = 0; k < CH; k++)
      y[k * P + i] = v[k];
  }
}

/* TL_GRID_SAMPLE for bilinear 2-D: false (nothing done) when the buffers
 * are not to be had or the plane is too large for int32 offsets. */
static bool sample_bilinear2(const tl_grid_job *job, int64_t begin, int64_t end)
{
  const tl_grid_spec *s = &job->s;
  int64_t P = s->out[1] * s->out[2], plane = s->in[1] * s->in[2];
  const real *grid = job->grid;
  real *y = job->y;
  taps_t t;
  soa4_buf buf;
  if (plane > INT32_MAX)
    return false;
  if (!soa4_buf_init(&buf)) {
    soa4_buf_free(&buf);
    return false;
  }
  for (int64_t p = begin; p < end;) {
    int64_t b = p / P, o = p % P, m = P - o;
    m = m > end - p ? end - p : m;
    m = m > buf.cap ? buf.cap : m;
    for (int64_t i = 0; i < m; i++) {
      taps_of(s, grid + (p + i) * 2, &t, false);
      soa4_put(&buf, i, &t);
    }
    int64_t c = 0;
    for (; c + 4 <= s->C; c += 4)
      sample_soa4(buf.off, buf.w, buf.cap, m, (const real *)job->x + (b * s->C + c) * plane,
                  plane, y + (b * s->C + c) * P + o, P, 4);
    for (; c < s->C; c++)
      sample_soa4(buf.off, buf.w, buf.cap, m, (const real *)job->x + (b * s->C + c) * plane,
                  plane, y + (b * s->C + c) * P + o, P, 1);
    p += m;
  }
  soa4_buf_free(&buf);
  return true;
}

void TL_GRID_SAMPLE(const tl_grid_job *job, int64_t begin, int64_t end)
{
  const tl_grid_spec *s = &job->s;
  if (s->mode == TL_GRID_BILINEAR && s->n == 2 && sample_bilinear2(job, begin, end))
    return;
  int64_t P = s->out[0] * s->out[1] * s->out[2], plane = s->in[0] * s->in[1] * s->in[2];
  const real *grid = job->grid;
  real *y = job->y;
  taps_t t[BLOCK];
  for (int64_t p = begin; p < end;) {
    int64_t b = p / P, o = p % P, m = P - o;
    m = m > end - p ? end - p : m;
    m = m > BLOCK ? BLOCK : m;
    for (int64_t i = 0; i < m; i++)
      taps_of(s, grid + (p + i) * s->n, &t[i], false);
    for (int64_t c = 0; c < s->C; c++) {
      const real *x = (const real *)job->x + (b * s->C + c) * plane;
      real *yc = y + (b * s->C + c) * P + o;
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

/* backward_block for packed bilinear 2-D taps, without branches: a skipped
 * tap adds into a scratch slot instead of dx and leaves the sums as they
 * were (a select, so that inf and nan do not leak); the point's sums are
 * held in locals, added in the same order. */
FN void backward_block4(tap4_t *restrict t, int64_t m, const real *restrict gc,
                        const real *restrict x, real *restrict dx, bool want_sum)
{
  real scratch = 0;
  for (int64_t i = 0; i < m; i++) {
    real gv = gc[i], s0 = t[i].sum[0], s1 = t[i].sum[1];
    for (int q = 0; q < 4; q++) {
      int64_t off = t[i].off[q];
      bool in = off >= 0;
      if (dx) {
        real *d = in ? dx + off : &scratch;
        *d += t[i].w[q] * gv;
      }
      if (want_sum) {
        real v = x[in ? off : 0] * gv;
        s0 = in ? s0 + t[i].dw[q][0] * v : s0;
        s1 = in ? s1 + t[i].dw[q][1] * v : s1;
      }
    }
    t[i].sum[0] = s0;
    t[i].sum[1] = s1;
  }
}

/* TL_GRID_BACKWARD's items for bilinear 2-D, in blocks of up to BIG points */
static void backward_bilinear2(const tl_grid_job *job, int64_t begin, int64_t end)
{
  const tl_grid_spec *s = &job->s;
  int64_t P = s->out[1] * s->out[2], plane = s->in[1] * s->in[2];
  const real *grid = job->grid, *g = job->g, *xs = job->x;
  real *dx = job->dx, *dgrid = job->dgrid;
  taps_t t;
  tap4_buf buf;
  tap4_buf_init(&buf);
  for (int64_t item = begin; item < end; item++) {
    int64_t b = item / job->cblocks, k = item % job->cblocks;
    int64_t c0 = k * s->C / job->cblocks, c1 = (k + 1) * s->C / job->cblocks;
    for (int64_t o = 0; o < P; o += buf.cap) {
      int64_t m = P - o > buf.cap ? buf.cap : P - o;
      for (int64_t i = 0; i < m; i++) {
        taps_of(s, grid + (b * P + o + i) * 2, &t, dgrid != NULL);
        pack4(&t, &buf.t[i], dgrid != NULL);
      }
      for (int64_t c = c0; c < c1; c++) {
        int64_t at = (b * s->C + c) * plane;
        backward_block4(buf.t, m, g + (b * s->C + c) * P + o, xs + at, dx ? dx + at : NULL,
                        dgrid != NULL);
      }
      if (!dgrid)
        continue;
      for (int64_t i = 0; i < m; i++) {
        real *dst = dgrid + ((job->partial ? item : b) * P + o + i) * 2;
        for (int d = 0; d < 2; d++) /* no taps: sum 0, mult 0 */
          dst[d] = buf.t[i].sum[d] * buf.t[i].mult[d];
      }
    }
  }
  tap4_buf_free(&buf);
}

void TL_GRID_BACKWARD(const tl_grid_job *job, int64_t begin, int64_t end)
{
  const tl_grid_spec *s = &job->s;
  int n = s->n;
  if (s->mode == TL_GRID_BILINEAR && n == 2) {
    backward_bilinear2(job, begin, end);
    return;
  }
  int64_t P = s->out[0] * s->out[1] * s->out[2], plane = s->in[0] * s->in[1] * s->in[2];
  const real *grid = job->grid, *g = job->g, *xs = job->x;
  real *dx = job->dx, *dgrid = job->dgrid;
  taps_t t[BLOCK];
  real sum[BLOCK][3];
  for (int64_t item = begin; item < end; item++) {
    int64_t b = item / job->cblocks, k = item % job->cblocks;
    int64_t c0 = k * s->C / job->cblocks, c1 = (k + 1) * s->C / job->cblocks;
    for (int64_t o = 0; o < P; o += BLOCK) {
      int64_t m = P - o > BLOCK ? BLOCK : P - o;
      for (int64_t i = 0; i < m; i++) {
        taps_of(s, grid + (b * P + o + i) * n, &t[i], dgrid != NULL);
        sum[i][0] = sum[i][1] = sum[i][2] = 0;
      }
      for (int64_t c = c0; c < c1; c++) {
        int64_t at = (b * s->C + c) * plane;
        const real *gc = g + (b * s->C + c) * P + o;
        backward_block(s, t, m, gc, xs + at, dx ? dx + at : NULL, dgrid ? sum : NULL);
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
