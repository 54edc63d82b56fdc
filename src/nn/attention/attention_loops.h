/* attention_loops.h - the blocked attention loops, written once over the
 * element type `real` and compiled twice: attention_f32.c and
 * attention_f64.c define TL_ATTN_REAL (float or double), TL_ATTN_EXP and
 * TL_ATTN_LOG for it, TL_ATTN_GEMM (cblas_sgemm or cblas_dgemm, prefixed),
 * and TL_ATTN_FORWARD / TL_ATTN_BACKWARD, the names of the two functions this
 * file defines; everything else here is static.  The algorithm is in
 * tl_attention.h. */
#include <math.h>
#include <stdlib.h>

#include "ndcore/kernels/tl_vecmath.h"
#include "ndcore/linalg/tl_blas.h"
#include "nn/attention/attention_job.h"

typedef TL_ATTN_REAL real;

/* The exp loops vectorise (tl_expf inlined, libmvec's exp for double) in the
 * per-target clones of the two range functions. */
TL_VECMATH_BEGIN

/* The row helpers are inlined into the two range functions so that each
 * per-target clone vectorises them for its own instruction set. */
#define ROW static inline __attribute__((always_inline))

/* A leading dimension BLAS accepts for rows of w elements (w may be 0). */
static inline int ld(int64_t w) { return w > 0 ? (int)w : 1; }

/* C (m x n) = alpha op(A) op(B) + beta C, row-major. */
static void gemm(bool ta, bool tb, int64_t m, int64_t n, int64_t k, real alpha, const real *a,
                 int64_t lda, const real *b, int64_t ldb, real beta, real *c, int64_t ldc)
{
  if (m == 0 || n == 0)
    return;
  TL_ATTN_GEMM(CblasRowMajor, ta ? CblasTrans : CblasNoTrans, tb ? CblasTrans : CblasNoTrans,
               (int)m, (int)n, (int)k, alpha, a, ld(lda), b, ld(ldb), beta, c, ld(ldc));
}

/* Row reductions in LANES independent accumulators folded as a tree: a
 * serial max or sum cannot be reordered (it was the hot spot), and omp
 * simd's own reduction ends each row in a serial chain of 16 adds. */
enum { LANES = 16 };

ROW real row_max(const real *row, int64_t n)
{
  real acc[LANES];
  for (int l = 0; l < LANES; l++)
    acc[l] = -INFINITY;
  int64_t x = 0;
  for (; x + LANES <= n; x += LANES)
    _Pragma("omp simd") for (int l = 0; l < LANES; l++)
      acc[l] = row[x + l] > acc[l] ? row[x + l] : acc[l];
  for (; x < n; x++)
    acc[0] = row[x] > acc[0] ? row[x] : acc[0];
  for (int w = LANES / 2; w > 0; w /= 2)
    for (int l = 0; l < w; l++)
      acc[l] = acc[l + w] > acc[l] ? acc[l + w] : acc[l];
  return acc[0];
}

/* row[x] = exp(row[x] - mx) (0 where it is -inf); returns their sum. */
ROW real row_exp_sum(real *row, int64_t n, real mx)
{
  real acc[LANES];
  for (int l = 0; l < LANES; l++)
    acc[l] = 0;
  int64_t x = 0;
  for (; x + LANES <= n; x += LANES)
    _Pragma("omp simd") for (int l = 0; l < LANES; l++) {
      real e = row[x + l] == -INFINITY ? 0 : TL_ATTN_EXP(row[x + l] - mx);
      row[x + l] = e;
      acc[l] += e;
    }
  for (; x < n; x++) {
    row[x] = row[x] == -INFINITY ? 0 : TL_ATTN_EXP(row[x] - mx);
    acc[0] += row[x];
  }
  for (int w = LANES / 2; w > 0; w /= 2)
    for (int l = 0; l < w; l++)
      acc[l] += acc[l + w];
  return acc[0];
}

/* The causal and explicit masks on row `row` (n scores) of query i, keys
 * j0 ... of batch row b. */
ROW void mask_row(const tl_attn_call *c, int64_t b, int64_t i, int64_t j0, int64_t n,
                     real *row)
{
  if (c->causal)
    for (int64_t k = i - j0 + 1 < 0 ? 0 : i - j0 + 1; k < n; k++)
      row[k] = -INFINITY;
  if (!c->mask)
    return;
  int64_t at = c->mask_offsets[b] + i * c->mask_sl + j0 * c->mask_ss, ss = c->mask_ss;
  /* contiguous rows (the common case) as vector loops */
  if (c->mask->dtype == TL_DTYPE_BOOL) {
    const unsigned char *m = (const unsigned char *)tl_tensor_data(c->mask) + at;
    if (ss == 1)
      _Pragma("omp simd") for (int64_t k = 0; k < n; k++)
        row[k] = m[k] ? row[k] : -INFINITY;
    else
      for (int64_t k = 0; k < n; k++)
        row[k] = m[k * ss] ? row[k] : -INFINITY;
  } else {
    const real *m = (const real *)tl_tensor_data(c->mask) + at;
    if (ss == 1)
      _Pragma("omp simd") for (int64_t k = 0; k < n; k++)
        row[k] += m[k];
    else
      for (int64_t k = 0; k < n; k++)
        row[k] += m[k * ss];
  }
}

/* out[k] = p[k] times the dropout multiplier (0 or 1 / (1 - p)) of key
 * j0 + k, drawn into keep[0..n) unless `drawn` (the backward's second use). */
ROW void drop_row(const tl_attn_call *c, int64_t b, int64_t i, int64_t j0, int64_t n,
                  const real *p, real *out, unsigned char *keep, bool drawn)
{
  real kept = c->dropout_p < 1 ? (real)(1 / (1 - c->dropout_p)) : 0;
  if (!drawn)
    tl_attn_dropout_keep(c->seed, b, i, j0, n, c->dropout_p, keep);
  _Pragma("omp simd") for (int64_t k = 0; k < n; k++)
    out[k] = keep[k] ? p[k] * kept : 0;
}

/* dst (w x n) = src (n x w)^T, both row-major: a key or value block as the
 * B operand of a plain (NN) product.  OpenBLAS runs a row-major A B^T
 * through its packing path at about two thirds the speed of its small-matrix
 * A B kernel at these block sizes, and the transposes cost one pass over
 * blocks each product reads many times. */
ROW void transpose(const real *src, int64_t n, int64_t w, real *dst)
{
  for (int64_t x = 0; x < w; x++) /* contiguous stores, strided loads: the faster order */
    for (int64_t j = 0; j < n; j++)
      dst[x * n + j] = src[j * w + x];
}

TL_SIMD_CLONES
void TL_ATTN_KPANELS(void *ctx, int64_t begin, int64_t end, int worker)
{
  (void)worker;
  tl_attn_job *job = ctx;
  const tl_attn_call *c = job->call;
  int64_t S = c->S, E = c->E, bk = job->kblock;
  for (int64_t kv = begin; kv < end; kv++) {
    const real *k = (const real *)tl_tensor_data(c->k) + kv * S * E;
    real *kt = (real *)job->kpanels + kv * S * E;
    for (int64_t j0 = 0; j0 < S; j0 += bk)
      transpose(k + j0 * E, S - j0 < bk ? S - j0 : bk, E, kt + j0 * E);
  }
}

/* The keys block j0 (n keys) of query rows i0 .. i0+m-1 needs: under the
 * causal mask none past the last row's own index (top-left aligned). */
ROW int64_t keys_needed(const tl_attn_call *c, int64_t i0, int64_t m, int64_t j0, int64_t n)
{
  return c->causal && i0 + m - j0 < n ? i0 + m - j0 : n;
}

TL_SIMD_CLONES
void TL_ATTN_FORWARD(void *ctx, int64_t begin, int64_t end, int worker)
{
  (void)worker;
  tl_attn_job *job = ctx;
  const tl_attn_call *c = job->call;
  int64_t L = c->L, S = c->S, E = c->E, Ev = c->Ev, bk = job->kblock;
  real *s = malloc((size_t)(TL_ATTN_BQ * bk) * sizeof *s);
  unsigned char *keep = malloc((size_t)bk);
  real mrow[TL_ATTN_BQ], lrow[TL_ATTN_BQ], mnew[TL_ATTN_BQ], alpha[TL_ATTN_BQ];
  if (!s || !keep) {
    __atomic_store_n(&job->failed, 1, __ATOMIC_RELAXED);
    goto done;
  }
  for (int64_t t = begin; t < end; t++) {
    /* a batch row's query blocks in the order 0, last, 1, last - 1, ...: a
     * thread's contiguous range of tasks then holds as much causal work as
     * the others' (the late blocks see the most keys) */
    int64_t b = t / job->qblocks, r = t % job->qblocks;
    int64_t i0 = (r % 2 ? job->qblocks - 1 - r / 2 : r / 2) * TL_ATTN_BQ, kv = tl_attn_kv_row(c, b);
    int64_t m = L - i0 < TL_ATTN_BQ ? L - i0 : TL_ATTN_BQ;
    const real *q = (const real *)tl_tensor_data(c->q) + (b * L + i0) * E;
    const real *k = (const real *)tl_tensor_data(c->k) + kv * S * E;
    const real *kt = job->kpanels ? (const real *)job->kpanels + kv * S * E : NULL;
    const real *v = (const real *)tl_tensor_data(c->v) + kv * S * Ev;
    real *o = (real *)tl_tensor_data(c->out) + (b * L + i0) * Ev;
    real *lse = (real *)tl_tensor_data(c->lse) + b * L + i0;
    for (int64_t r = 0; r < m; r++) {
      mrow[r] = -INFINITY;
      lrow[r] = 0;
    }
    for (int64_t x = 0; x < m * Ev; x++)
      o[x] = 0;
    for (int64_t j0 = 0; j0 < S; j0 += bk) {
      if (c->causal && j0 > i0 + m - 1)
        break; /* every later key is in every row's future */
      int64_t ld = S - j0 < bk ? S - j0 : bk, n = keys_needed(c, i0, m, j0, ld);
      if (kt)
        gemm(false, false, m, n, E, (real)c->scale, q, E, kt + j0 * E, ld, 0, s, ld);
      else
        gemm(false, true, m, n, E, (real)c->scale, q, E, k + j0 * E, E, 0, s, ld);
      /* the rows' maxima, then their rescale factors as one vector loop (a
       * scalar exp per row cost as much as a row's exp loop) */
      for (int64_t r = 0; r < m; r++) {
        mask_row(c, b, i0 + r, j0, n, s + r * ld);
        real mx = row_max(s + r * ld, n);
        mnew[r] = mx > mrow[r] ? mx : mrow[r];
      }
      _Pragma("omp simd") for (int64_t r = 0; r < m; r++) {
        alpha[r] = mrow[r] == -INFINITY ? 0 : TL_ATTN_EXP(mrow[r] - mnew[r]);
        mrow[r] = mnew[r];
      }
      for (int64_t r = 0; r < m; r++) {
        real *row = s + r * ld;
        if (mnew[r] == -INFINITY) { /* nothing attended yet in this row */
          for (int64_t x = 0; x < n; x++)
            row[x] = 0;
          continue;
        }
        lrow[r] = lrow[r] * alpha[r] + row_exp_sum(row, n, mnew[r]);
        if (alpha[r] != 1)
          _Pragma("omp simd") for (int64_t x = 0; x < Ev; x++)
            o[r * Ev + x] *= alpha[r];
        if (c->dropout_p > 0)
          drop_row(c, b, i0 + r, j0, n, row, row, keep, false);
      }
      gemm(false, false, m, Ev, n, 1, s, ld, v + j0 * Ev, Ev, 1, o, Ev);
    }
    /* a row with nothing to attend gives 0 (PyTorch's safe softmax) */
    for (int64_t r = 0; r < m; r++) {
      real inv = lrow[r] > 0 ? 1 / lrow[r] : 0;
      for (int64_t x = 0; x < Ev; x++)
        o[r * Ev + x] *= inv;
      lse[r] = lrow[r] > 0 ? mrow[r] + TL_ATTN_LOG(lrow[r]) : -INFINITY;
    }
  }
done:
  free(s);
  free(keep);
}

TL_SIMD_CLONES
void TL_ATTN_BACKWARD(void *ctx, int64_t begin, int64_t end, int worker)
{
  (void)worker;
  tl_attn_job *job = ctx;
  const tl_attn_call *c = job->call;
  int64_t L = c->L, S = c->S, E = c->E, Ev = c->Ev, bk = job->kblock;
  int64_t group = c->heads / c->kv_heads;
  real *p = malloc((size_t)(TL_ATTN_BQ * bk) * sizeof *p);
  real *pd = malloc((size_t)(TL_ATTN_BQ * bk) * sizeof *pd);
  real *dp = malloc((size_t)(TL_ATTN_BQ * bk) * sizeof *dp);
  real *kt = malloc((size_t)(bk * (E ? E : 1)) * sizeof *kt);
  real *vt = malloc((size_t)(bk * (Ev ? Ev : 1)) * sizeof *vt);
  real *dsum = malloc((size_t)(L ? L : 1) * sizeof *dsum);
  unsigned char *keep = malloc((size_t)(TL_ATTN_BQ * bk)); /* a block's draws, used twice */
  if (!p || !pd || !dp || !kt || !vt || !dsum || !keep) {
    __atomic_store_n(&job->failed, 1, __ATOMIC_RELAXED);
    goto done;
  }
  for (int64_t kv = begin; kv < end; kv++) {
    const real *k = (const real *)tl_tensor_data(c->k) + kv * S * E;
    const real *v = (const real *)tl_tensor_data(c->v) + kv * S * Ev;
    real *dk = (real *)tl_tensor_data(c->dk) + kv * S * E;
    real *dv = (real *)tl_tensor_data(c->dv) + kv * S * Ev;
    int64_t first = kv / c->kv_heads * c->heads + kv % c->kv_heads * group;
    for (int64_t b = first; b < first + group; b++) {
      const real *q = (const real *)tl_tensor_data(c->q) + b * L * E;
      const real *dout = (const real *)tl_tensor_data(c->dout) + b * L * Ev;
      const real *o = (const real *)tl_tensor_data(c->o) + b * L * Ev;
      const real *lse = (const real *)tl_tensor_data(c->lse_in) + b * L;
      real *dq = (real *)tl_tensor_data(c->dq) + b * L * E;
      for (int64_t i = 0; i < L; i++) { /* D = rowsum(dO * O) */
        real d = 0;
        _Pragma("omp simd reduction(+ : d)") for (int64_t x = 0; x < Ev; x++)
          d += dout[i * Ev + x] * o[i * Ev + x];
        dsum[i] = d;
      }
      for (int64_t j0 = 0; j0 < S; j0 += bk) {
        int64_t ld = S - j0 < bk ? S - j0 : bk;
        /* this block's K^T and V^T, read by every query block below */
        transpose(k + j0 * E, ld, E, kt);
        transpose(v + j0 * Ev, ld, Ev, vt);
        for (int64_t i0 = c->causal ? j0 / TL_ATTN_BQ * TL_ATTN_BQ : 0; i0 < L;
             i0 += TL_ATTN_BQ) { /* causal: earlier query blocks see none of these keys */
          int64_t m = L - i0 < TL_ATTN_BQ ? L - i0 : TL_ATTN_BQ, n = keys_needed(c, i0, m, j0, ld);
          if (n <= 0)
            break; /* a short last query block, all of it before j0 */
          gemm(false, false, m, n, E, (real)c->scale, q + i0 * E, E, kt, ld, 0, p, ld);
          for (int64_t r = 0; r < m; r++) {
            real *row = p + r * ld, l = lse[i0 + r];
            mask_row(c, b, i0 + r, j0, n, row);
            _Pragma("omp simd") for (int64_t x = 0; x < n; x++)
              row[x] = l == -INFINITY || row[x] == -INFINITY ? 0 : TL_ATTN_EXP(row[x] - l);
            if (c->dropout_p > 0)
              drop_row(c, b, i0 + r, j0, n, row, pd + r * ld, keep + r * ld, false);
          }
          const real *pk = c->dropout_p > 0 ? pd : p;
          gemm(true, false, n, Ev, m, 1, pk, ld, dout + i0 * Ev, Ev, 1, dv + j0 * Ev, Ev);
          gemm(false, false, m, n, Ev, 1, dout + i0 * Ev, Ev, vt, ld, 0, dp, ld);
          for (int64_t r = 0; r < m; r++) {
            real *d = dp + r * ld, *row = p + r * ld, di = dsum[i0 + r];
            if (c->dropout_p > 0) /* dP~ -> dP: the multiplier again, as pd / p */
              drop_row(c, b, i0 + r, j0, n, d, d, keep + r * ld, true);
            _Pragma("omp simd") for (int64_t x = 0; x < n; x++)
              d[x] = row[x] * (d[x] - di);
          }
          gemm(false, false, m, E, n, (real)c->scale, dp, ld, k + j0 * E, E, 1, dq + i0 * E, E);
          gemm(true, false, n, E, m, (real)c->scale, dp, ld, q + i0 * E, E, 1, dk + j0 * E, E);
        }
      }
    }
  }
done:
  free(p);
  free(pd);
  free(dp);
  free(kt);
  free(vt);
  free(dsum);
  free(keep);
}
TL_VECMATH_END
