/* attention_device.c - scaled dot-product attention on a device whose memory
 * host code cannot read (tl_attention.h: tl_attn_device_ops): GEMMs over
 * tiles of query rows and the device's row kernels on each tile's scores.
 *
 * Legend: B query batch rows (heads of them per outer row), K = B / group
 * key/value batch rows (kv_heads per outer row, each serving group = heads /
 * kv_heads query heads), L queries, S keys, E, Ev head sizes.  Query head h
 * of an outer row reads key head h / group, and the group query heads of a
 * key head are adjacent batch rows, so Q (B, L, E) read as (K, Rq, E) with
 * Rq = group L puts each key/value batch row's queries in one matrix: every
 * GEMM is one strided-batched call over key/value batch rows, grouped-query
 * attention included (dK and dV sum over the group inside the GEMM).
 *
 * The scores are never whole: a tile is m query rows of cb batch rows with
 * cb m S <= tile_scores, so the scratch is bounded however long the
 * sequences (m rows of every batch row when they fit, else at least 64 rows
 * of fewer batch rows, down to one row of one).  Per tile:
 *   forward   Sc = scale Q K^T;  softmax rows (masks, dropout, lse);  O = P V
 *   backward  Sc = scale Q K^T;  P = exp(Sc + mask - lse), Pd = P dropped out;
 *             dV += Pd^T dO;  dP = dO V^T;  dS = P (Z dP - D);
 *             dQ = scale dS K;  dK += scale dS^T Q
 * with D = rowsum(dO * O) first (tl_attention.h has the derivation).  A
 * tile holds whole rows of S scores, so its softmax is exact (no running
 * rescale as in the CPU's key blocks); the outputs are the CPU kernel's, out
 * and lse (each row's logsumexp of its masked scaled scores), and the
 * backward recomputes P from lse as the CPU's does.  The host holds only
 * sizes; the mask's per-row offsets go to the device in one copy. */
#include <string.h>

#include "nn/attention/attention_tile.h"
#include "nn/attention/tl_attention.h"

enum { MIN_TILE_ROWS = 64 };

/* What both directions share: sizes, the tile, the device's mask offsets
 * and the score buffers. */
typedef struct {
  const tl_attn_device_ops *ops;
  const tl_attn_call *c;
  tl_device dev;
  bool f64;
  size_t es;
  int64_t K, Rq, tq, cb;
  tl_attn_tile tile;
  tl_tensor offsets, scratch[4];
} attn_plan;

static void *data(const tl_tensor *t) { return t ? tl_tensor_data(t) : NULL; }
/* element `elements` of t (NULL stays NULL: an empty tensor's data, which no
 * GEMM or kernel of an empty product reads) */
static char *at(const attn_plan *p, const tl_tensor *t, int64_t elements)
{
  char *base = tl_tensor_data(t);
  return base ? base + (size_t)elements * p->es : NULL;
}
static int64_t clamp64(int64_t v, int64_t lo, int64_t hi) { return v < lo ? lo : v > hi ? hi : v; }

static tl_status plan_release(attn_plan *p, tl_status status)
{
  tl_tensor_release(&p->offsets);
  for (int k = 0; k < 4; k++)
    tl_tensor_release(&p->scratch[k]);
  return status;
}

/* Scratch k of n elements of the work type. */
static tl_status scratch(attn_plan *p, int k, int64_t n)
{
  return tl_tensor_empty(&p->scratch[k], p->f64 ? TL_DTYPE_F64 : TL_DTYPE_F32, 1, &n, p->dev);
}

/* The tile sizes, the mask's offsets on the device, `nscores` score buffers. */
static tl_status plan(attn_plan *p, const tl_attn_device_ops *ops, const tl_attn_call *c,
                      int nscores)
{
  *p = (attn_plan){.ops = ops, .c = c, .dev = tl_tensor_device(c->q),
                   .f64 = c->q->dtype == TL_DTYPE_F64};
  p->es = p->f64 ? sizeof(double) : sizeof(float);
  int64_t group = c->kv_heads ? c->heads / c->kv_heads : 1;
  p->K = c->heads ? c->batch / c->heads * c->kv_heads : 0;
  p->Rq = group * c->L;
  int64_t S = c->S > 0 ? c->S : 1, K = p->K > 0 ? p->K : 1, R = p->Rq > 0 ? p->Rq : 1;
  p->tq = clamp64(ops->tile_scores / S / K, R < MIN_TILE_ROWS ? R : MIN_TILE_ROWS, R);
  p->cb = clamp64(ops->tile_scores / S / p->tq, 1, K);
  p->tile = (tl_attn_tile){.S = c->S, .L = c->L, .heads = c->heads, .kv_heads = c->kv_heads,
                           .group = group, .causal = c->causal, .dropout_p = c->dropout_p,
                           .seed = c->seed, .f64 = p->f64};
  tl_status s = TL_OK;
  for (int k = 0; k < nscores && s == TL_OK; k++)
    s = scratch(p, k, p->cb * p->tq * c->S);
  if (s != TL_OK || !c->mask)
    return s;
  tl_tensor host = {0};
  int64_t nb = c->batch;
  s = tl_tensor_empty(&host, TL_DTYPE_I64, 1, &nb, (tl_device){.type = TL_DEVICE_CPU});
  if (s == TL_OK && nb > 0)
    memcpy(tl_tensor_data(&host), c->mask_offsets, (size_t)nb * sizeof(int64_t));
  if (s == TL_OK)
    s = tl_tensor_empty(&p->offsets, TL_DTYPE_I64, 1, &nb, p->dev);
  if (s == TL_OK)
    s = tl_tensor_copy(&p->offsets, &host);
  tl_tensor_release(&host);
  p->tile.mask = data(c->mask);
  p->tile.mask_bool = c->mask->dtype == TL_DTYPE_BOOL;
  p->tile.mask_offsets = data(&p->offsets);
  p->tile.mask_sl = c->mask_sl;
  p->tile.mask_ss = c->mask_ss;
  return s;
}

static tl_status gemm(const attn_plan *p, bool ta, bool tb, int64_t m, int64_t n, int64_t k,
                      double alpha, const void *a, int64_t lda, int64_t sa, const void *b,
                      int64_t ldb, int64_t sb, double beta, void *c, int64_t ldc, int64_t sc,
                      int64_t batch)
{
  return p->ops->gemm(p->dev, p->f64, ta, tb, m, n, k, alpha, a, lda, sa, b, ldb, sb, beta, c,
                      ldc, sc, batch);
}

/* The tile of nb batch rows from b0 and m query rows from r0: the tile's
 * place, and its scaled scores (nb, m, S) into score buffer 0. */
static tl_status scores(attn_plan *p, int64_t b0, int64_t nb, int64_t r0, int64_t m)
{
  const tl_attn_call *c = p->c;
  p->tile.rows = nb * m;
  p->tile.m = m;
  p->tile.r0 = r0;
  p->tile.b0 = b0;
  return gemm(p, false, true, m, c->S, c->E, c->scale, at(p, c->q, (b0 * p->Rq + r0) * c->E),
              c->E, p->Rq * c->E, at(p, c->k, b0 * c->S * c->E), c->E, c->S * c->E, 0.0,
              data(&p->scratch[0]), c->S, m * c->S, nb);
}

tl_status tl_attn_device_forward(const tl_attn_device_ops *ops, const tl_attn_call *c)
{
  attn_plan p;
  tl_status s = plan(&p, ops, c, 1);
  int64_t S = c->S, Ev = c->Ev;
  void *sc = data(&p.scratch[0]);
  for (int64_t b0 = 0; b0 < p.K && s == TL_OK; b0 += p.cb) {
    int64_t nb = p.K - b0 < p.cb ? p.K - b0 : p.cb;
    for (int64_t r0 = 0; r0 < p.Rq && s == TL_OK; r0 += p.tq) {
      int64_t m = p.Rq - r0 < p.tq ? p.Rq - r0 : p.tq;
      if ((s = scores(&p, b0, nb, r0, m)) == TL_OK &&
          (s = ops->softmax(p.dev, &p.tile, sc, data(c->lse))) == TL_OK)
        s = gemm(&p, false, false, m, Ev, S, 1.0, sc, S, m * S, at(&p, c->v, b0 * S * Ev), Ev,
                 S * Ev, 0.0, at(&p, c->out, (b0 * p.Rq + r0) * Ev), Ev, p.Rq * Ev, nb);
    }
  }
  return plan_release(&p, s);
}

tl_status tl_attn_device_backward(const tl_attn_device_ops *ops, const tl_attn_call *c)
{
  attn_plan p;
  bool drop = c->dropout_p > 0;
  int64_t S = c->S, E = c->E, Ev = c->Ev, rows = c->batch * c->L;
  /* score buffers: P, dP (, Pd); then D */
  tl_status s = plan(&p, ops, c, drop ? 3 : 2);
  if (s == TL_OK && (s = scratch(&p, 3, rows)) == TL_OK)
    s = ops->rowdot(p.dev, p.f64, data(c->dout), data(c->o), rows, Ev, data(&p.scratch[3]));
  void *pr = data(&p.scratch[0]), *dp = data(&p.scratch[1]);
  void *pd = drop ? data(&p.scratch[2]) : NULL, *dsum = data(&p.scratch[3]);
  for (int64_t b0 = 0; b0 < p.K && s == TL_OK; b0 += p.cb) {
    int64_t nb = p.K - b0 < p.cb ? p.K - b0 : p.cb;
    for (int64_t r0 = 0; r0 < p.Rq && s == TL_OK; r0 += p.tq) {
      int64_t m = p.Rq - r0 < p.tq ? p.Rq - r0 : p.tq, row0 = b0 * p.Rq + r0;
      const char *q = at(&p, c->q, row0 * E), *dout = at(&p, c->dout, row0 * Ev);
      const char *k = at(&p, c->k, b0 * S * E), *v = at(&p, c->v, b0 * S * Ev);
      if ((s = scores(&p, b0, nb, r0, m)) != TL_OK ||
          (s = ops->probs(p.dev, &p.tile, pr, data(c->lse_in), pd)) != TL_OK ||
          (s = gemm(&p, true, false, S, Ev, m, 1.0, drop ? pd : pr, S, m * S, dout, Ev,
                    p.Rq * Ev, 1.0, at(&p, c->dv, b0 * S * Ev), Ev, S * Ev, nb)) != TL_OK ||
          (s = gemm(&p, false, true, m, S, Ev, 1.0, dout, Ev, p.Rq * Ev, v, Ev, S * Ev, 0.0, dp,
                    S, m * S, nb)) != TL_OK ||
          (s = ops->dscores(p.dev, &p.tile, pr, dp, dsum)) != TL_OK ||
          (s = gemm(&p, false, false, m, E, S, c->scale, dp, S, m * S, k, E, S * E, 0.0,
                    at(&p, c->dq, row0 * E), E, p.Rq * E, nb)) != TL_OK)
        break;
      s = gemm(&p, true, false, S, E, m, c->scale, dp, S, m * S, q, E, p.Rq * E, 1.0,
               at(&p, c->dk, b0 * S * E), E, S * E, nb);
    }
  }
  return plan_release(&p, s);
}
