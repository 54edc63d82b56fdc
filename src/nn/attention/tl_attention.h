/* tl_attention.h - scaled dot-product attention, blocked (flash-style).
 *
 *   out = softmax(scale Q K^T + mask) V,   Q (B, L, E), K (B', S, E), V (B', S, Ev)
 *
 * The L x S score matrix is never whole: each block of query rows walks the
 * key blocks keeping a running row max m and sum l (online softmax), so
 * memory beyond the operands is one block per thread (and on the CPU one
 * transposed copy of K, attention_loops.h's key panels).  The forward saves
 * lse = m + log(l) per query row; the backward recomputes each block's
 * probabilities from it (P = exp(scale Q K^T + mask - lse)) and, with
 * D = rowsum(dO * O):
 *   dV += P~^T dO,   dS = P * (dO V^T * Z - D),   dQ += scale dS K,   dK += scale dS^T Q
 * where P~ = P * Z is the dropped-out P and Z the dropout multiplier (0 or
 * 1 / (1 - p)), drawn again from the same Philox counters.
 *
 * Batch: the query's leading dims flattened to B rows; the key/value's are
 * the same, or (grouped-query attention) have `kv_heads` instead of `heads`
 * in the last batch dim, each key head serving heads / kv_heads query heads.
 * Causal masking keeps key j for query i when j <= i (PyTorch's tril). */
#ifndef TL_NN_ATTENTION_H
#define TL_NN_ATTENTION_H

#include "ndcore/dispatch/tl_dispatch.h"
#include "nn/tl_nn_work.h"

/* One call.  q k v (dout, o) are contiguous in the work dtype (float or
 * double); the mask is NULL, or a bool or work-dtype tensor read through
 * mask_offsets[b] (the element offset of batch row b's L x S matrix) and the
 * strides mask_sl, mask_ss.  Outputs are contiguous work-dtype tensors
 * (forward: out, lse; backward: dq dk dv, zeroed by the entry point). */
typedef struct {
  int64_t batch, heads, kv_heads; /* B; the last batch dim of q and of k/v (1 when none) */
  int64_t L, S, E, Ev;
  double scale, dropout_p;
  bool causal;
  uint64_t seed; /* dropout's Philox key */
  const tl_tensor *q, *k, *v;
  const tl_tensor *mask;
  const int64_t *mask_offsets;
  int64_t mask_sl, mask_ss;
  tl_tensor *out, *lse;                /* forward */
  const tl_tensor *dout, *o, *lse_in;  /* backward */
  tl_tensor *dq, *dk, *dv;
} tl_attn_call;

typedef struct {
  tl_status (*forward)(const tl_attn_call *call);
  tl_status (*backward)(const tl_attn_call *call);
} tl_nn_attention_kernels;

/* Register `set` as device's kernels of both ops (the CPU's at import,
 * CUDA's from tl_gpu_kernels_register, which runs first). */
void tl_nn_attention_register_set(tl_device_type device, const tl_nn_attention_kernels *set);

/* Entry points.  scale NaN: 1 / sqrt(E).  rng_state: a 2-element int64
 * tensor (the dropout seed), needed when dropout_p > 0.  out has the
 * query's dtype, lse (B..., L) the work dtype. */
tl_status tl_nn_flash_attention(const tl_tensor *q, const tl_tensor *k, const tl_tensor *v,
                                double dropout_p, bool causal, const tl_tensor *mask, double scale,
                                const tl_tensor *rng_state, tl_tensor *out, tl_tensor *lse);
tl_status tl_nn_flash_attention_backward(const tl_tensor *dout, const tl_tensor *q,
                                         const tl_tensor *k, const tl_tensor *v,
                                         const tl_tensor *o, const tl_tensor *lse,
                                         double dropout_p, bool causal, const tl_tensor *mask,
                                         double scale, const tl_tensor *rng_state, tl_tensor *dq,
                                         tl_tensor *dk, tl_tensor *dv);

/* The CPU's kernels (attention_cpu.c). */
tl_status tl_cpu_flash_attention(const tl_attn_call *call);
tl_status tl_cpu_flash_attention_backward(const tl_attn_call *call);

/* ---- the device-neutral driver (attention_device.c) ----------------------------------
 * Both directions for a device whose memory host code cannot read: GEMMs
 * over tiles of query rows and a device's row kernels on the tile's scores
 * (attention_tile.h), whose scratch is bounded by tile_scores.  CUDA lends
 * cuBLAS and src/gpu/seq/attention.cu; the emulated fake device the host
 * loops of attention_tile_host.c. */
typedef struct tl_attn_tile tl_attn_tile;
typedef struct {
  int64_t tile_scores;    /* at most this many scores in a tile (at least a row of each) */
  tl_nn_device_gemm gemm; /* tl_nn_work.h */
  /* forward: s holds scale Q K^T: masked, softmax (dropped out) in place, lse */
  tl_status (*softmax)(tl_device dev, const tl_attn_tile *t, void *s, void *lse);
  /* backward: s (scale Q K^T) -> p = exp(s + mask - lse); pd = p dropped out (if given) */
  tl_status (*probs)(tl_device dev, const tl_attn_tile *t, void *s, const void *lse, void *pd);
  /* backward: dp (dO V^T) -> p (Z dp - D) */
  tl_status (*dscores)(tl_device dev, const tl_attn_tile *t, const void *p, void *dp,
                       const void *d);
  /* d[r] = sum_x a[r, x] b[r, x], n rows of ev */
  tl_status (*rowdot)(tl_device dev, bool f64, const void *a, const void *b, int64_t n, int64_t ev,
                      void *d);
} tl_attn_device_ops;

tl_status tl_attn_device_forward(const tl_attn_device_ops *ops, const tl_attn_call *call);
tl_status tl_attn_device_backward(const tl_attn_device_ops *ops, const tl_attn_call *call);

/* attention_tile_host.c: the row kernels as host loops (the emulated device's) */
void tl_attn_tile_softmax_host(const tl_attn_tile *t, void *s, void *lse);
void tl_attn_tile_probs_host(const tl_attn_tile *t, void *s, const void *lse, void *pd);
void tl_attn_tile_dscores_host(const tl_attn_tile *t, const void *p, void *dp, const void *d);
void tl_attn_rowdot_host(bool f64, const void *a, const void *b, int64_t n, int64_t ev, void *d);

#endif
