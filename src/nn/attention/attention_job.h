/* attention_job.h - what attention_cpu.c shares with the loops it compiles
 * twice (attention_loops.h, as float in attention_f32.c and as double in
 * attention_f64.c). */
#ifndef TL_NN_ATTENTION_JOB_H
#define TL_NN_ATTENTION_JOB_H

#include "nn/attention/tl_attention.h"

/* Query rows per block; key rows per block come from tl_attn_key_block
 * (about 2^19 / (64 E) scores' worth).  Each thread of ours runs its own
 * block products, with OpenBLAS held to one thread meanwhile. */
enum { TL_ATTN_BQ = 64 };
int64_t tl_attn_key_block(int64_t E);

typedef struct {
  const tl_attn_call *call;
  int64_t qblocks, kblock;
  void *kpanels; /* forward: NULL, or each key block transposed (E x its rows) in K's order */
  int failed; /* a range could not allocate its block buffers */
} tl_attn_job;

/* The key/value batch row that query batch row b reads (grouped heads). */
static inline int64_t tl_attn_kv_row(const tl_attn_call *c, int64_t b)
{
  return (b / c->heads) * c->kv_heads + (b % c->heads) / (c->heads / c->kv_heads);
}

/* keep[0..n) for query row i of batch row b and keys j0 .. j0+n-1: 1 where
 * dropout keeps the probability.  Key j of that row reads Philox counter
 * (j / 4, i, b), slot j % 4, so forward and backward draw the same. */
void tl_attn_dropout_keep(uint64_t seed, int64_t b, int64_t i, int64_t j0, int64_t n, double p,
                          unsigned char *keep);

/* Forward: ranges of (batch row, query block) tasks; backward: ranges of
 * key/value batch rows (each owns its dK, dV and its query rows' dQ). */
void tl_attn_forward_f32(void *ctx, int64_t begin, int64_t end, int worker);
void tl_attn_forward_f64(void *ctx, int64_t begin, int64_t end, int worker);
void tl_attn_backward_f32(void *ctx, int64_t begin, int64_t end, int worker);
void tl_attn_backward_f64(void *ctx, int64_t begin, int64_t end, int worker);
/* Ranges of key/value batch rows: kpanels from K, before the forward. */
void tl_attn_kpanels_f32(void *ctx, int64_t begin, int64_t end, int worker);
void tl_attn_kpanels_f64(void *ctx, int64_t begin, int64_t end, int worker);

#endif
