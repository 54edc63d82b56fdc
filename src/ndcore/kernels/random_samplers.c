/* random_samplers.c - the CPU's gamma and binomial draws (tl_px_samplers.h).
 *
 * Elements go in chunks: the first round of a chunk's elements is a run of
 * contiguous counter blocks, drawn with the vectorised Philox; gamma's first
 * attempts (Box-Muller and the squeeze) then run as vector loops too, and
 * only an element the squeeze rejects, or a shape below 1, goes through the
 * scalar function, which reads later rounds when it must.  Parameters are
 * set up once per run of equal values, which is every element when they
 * broadcast from scalars.  The work is split in pairs of elements, the unit
 * of gamma's first round.                                                  */
#include <math.h>

#include "gpu/random/tl_px_samplers.h"
#include "ndcore/dispatch/tl_kernel_sets.h"
#include "ndcore/dispatch/tl_parallel.h"
#include "ndcore/kernels/tl_random.h"
#include "ndcore/kernels/tl_simd_clones.h"

#define CHUNK 256 /* elements; even, so chunks start at pairs */

typedef struct {
  const tl_random_sample_spec *spec;
  const double *a, *b; /* shape (gamma) or count; probability (binomial) */
  double *out;
  int64_t n;
  tl_px_rounds rounds;
} sample_ctx;

/* Round r of the m elements from e0 (one vectorised Philox call). */
static void chunk_round(const tl_px_rounds *s, int r, int64_t e0, int m, uint32_t *w)
{
  tl_philox_words(s->seed, s->first + (uint64_t)r * (uint64_t)s->stride + (uint64_t)e0, m, w);
}

/* The first attempts of m elements from their round-0 blocks w (whole
 * pairs: an odd m reads one block more), as tl_px_gamma_first gives them:
 * z and u, and in x and accept the candidate and the squeeze's verdict. */
TL_SIMD_CLONES static void gamma_first(const double *alpha, const uint32_t *w, int m, double *z,
                                       double *u, double *x, unsigned char *accept)
{
  double u1[CHUNK / 2], u2[CHUNK / 2], z0[CHUNK / 2], z1[CHUNK / 2];
  int mp = m + (m & 1);
  for (int i = 0; i < mp / 2; i++) {
    u1[i] = tl_px_open_wide(tl_px_wide(w + 8 * i));
    u2[i] = tl_px_unit_wide(tl_px_wide(w + 8 * i + 4));
  }
#pragma omp simd
  for (int i = 0; i < mp / 2; i++)
    tl_px_box_muller(u1[i], u2[i], &z0[i], &z1[i]);
  for (int i = 0; i < mp / 2; i++) {
    z[2 * i] = z0[i], z[2 * i + 1] = z1[i];
    u[2 * i] = tl_px_open_wide(tl_px_wide(w + 8 * i + 2));
    u[2 * i + 1] = tl_px_open_wide(tl_px_wide(w + 8 * i + 6));
  }
#pragma omp simd
  for (int i = 0; i < m; i++) {
    double d, c, v3;
    tl_px_gamma_dc(alpha[i], &d, &c);
    accept[i] = tl_px_gamma_squeeze(d, c, z[i], u[i], &x[i], &v3);
  }
}

/* Gamma draws of elements [e0, e0 + m), e0 even. */
static void gamma_chunk(const sample_ctx *c, int64_t e0, int m)
{
  uint32_t w[4 * CHUNK], wb[4 * CHUNK];
  double z[CHUNK], u[CHUNK], x[CHUNK];
  unsigned char accept[CHUNK];
  tl_px_gamma_params gp = {.alpha = NAN};
  const tl_px_rounds *s = &c->rounds;
  const double *alpha = c->a + e0;
  bool log_out = c->spec->kind == TL_RANDOM_SAMPLE_LOG_GAMMA, boost = false;
  for (int i = 0; i < m; i++)
    boost |= alpha[i] < 1;
  chunk_round(s, 0, e0, m + (m & 1), w); /* an odd last element's partner too */
  if (boost) /* only shapes below 1 read their boost round */
    chunk_round(s, TL_PX_GAMMA_BOOST_ROUND, e0, m, wb);
  gamma_first(alpha, w, m, z, u, x, accept);
  for (int i = 0; i < m; i++) {
    double v, ub = alpha[i] < 1 ? tl_px_open_wide(tl_px_wide(wb + 4 * i)) : 1.0;
    if (accept[i] && alpha[i] > 0 && alpha[i] < (double)INFINITY) { /* tl_px_gamma's value */
      v = tl_px_gamma_finish(alpha[i], x[i], ub, log_out);
    } else {
      if (!(alpha[i] == gp.alpha)) /* NaN sets up each time: rare */
        tl_px_gamma_setup(alpha[i], &gp);
      v = tl_px_gamma(s, e0 + i, &gp, log_out, z[i], u[i], ub);
    }
    c->out[e0 + i] = tl_px_lift(v, c->spec->floor);
  }
}

/* Binomial draws of elements [e0, e0 + m). */
static void binomial_chunk(const sample_ctx *c, int64_t e0, int m)
{
  uint32_t w[4 * CHUNK];
  const tl_px_rounds *s = &c->rounds;
  tl_px_binomial_params bp = {0};
  double last_n = NAN, last_p = NAN;
  chunk_round(s, 0, e0, m, w);
  for (int i = 0; i < m; i++) {
    double n = c->a[e0 + i], p = c->b[e0 + i];
    if (i == 0 || n != last_n || p != last_p) { /* NaN sets up each time: cheap */
      tl_px_binomial_setup(n, p, &bp);
      last_n = n, last_p = p;
    }
    c->out[e0 + i] = tl_px_binomial(s, e0 + i, &bp, w + 4 * i);
  }
}

/* Pairs [begin, end) of elements. */
static void sample_range(void *ctx, int64_t begin, int64_t end, int worker)
{
  (void)worker;
  const sample_ctx *c = ctx;
  int64_t stop = 2 * end < c->n ? 2 * end : c->n;
  for (int64_t e0 = 2 * begin; e0 < stop; e0 += CHUNK) {
    int m = (int)(stop - e0 < CHUNK ? stop - e0 : CHUNK);
    if (c->spec->kind == TL_RANDOM_SAMPLE_BINOMIAL)
      binomial_chunk(c, e0, m);
    else
      gamma_chunk(c, e0, m);
  }
}

tl_px_rounds tl_random_sample_reserve(tl_generator *g, tl_random_sample_kind kind, int64_t n)
{
  tl_px_rounds r = {.stride = tl_px_sample_stride(kind, n)};
  if (n > 0)
    r.first = tl_generator_reserve(g, (uint64_t)r.stride * (uint64_t)tl_px_sample_rounds(kind),
                                   &r.seed);
  return r;
}

tl_status tl_cpu_random_sample(tl_generator *g, const tl_random_sample_spec *spec,
                               const tl_tensor *a, const tl_tensor *b, tl_tensor *out)
{
  int64_t n = tl_tensor_numel(out);
  sample_ctx c = {.spec = spec, .a = tl_tensor_data(a), .b = b ? tl_tensor_data(b) : NULL,
                  .out = tl_tensor_data(out), .n = n,
                  .rounds = tl_random_sample_reserve(g, spec->kind, n)};
  tl_parallel_for((n + 1) / 2, 2048, sample_range, &c);
  return TL_OK;
}
