/* attention_tile.h - one tile of attention scores as the device-neutral
 * driver (attention_device.c) hands it to a device's row kernels, and the
 * per-score rules those kernels share: which query a row is, which scores
 * the masks remove, which dropout keeps.  Plain C compiled both for the
 * host (the emulated device's kernels, attention_tile_host.c) and for CUDA
 * (src/gpu/seq/attention.cu), so both read the same mask elements and draw
 * the same dropout words.
 *
 * A tile is `rows` = cb m rows of S scores: cb key/value batch rows from
 * b0, m query rows from r0 of each.  In the grouped view a key/value batch
 * row kv holds the Rq = group L query rows of the group query heads it
 * serves, so tile row r is query i = (r0 + r % m) % L of query batch row
 * b = (kv / kv_heads) heads + (kv % kv_heads) group + (r0 + r % m) / L,
 * kv = b0 + r / m, and its logsumexp (and D) entry is b L + i. */
#ifndef TL_NN_ATTENTION_TILE_H
#define TL_NN_ATTENTION_TILE_H

#include <stdbool.h>
#include <stdint.h>

#include "gpu/random/tl_philox.h"

struct tl_attn_tile {
  int64_t rows, m, r0, b0, S, L, heads, kv_heads, group;
  int causal;
  const void *mask; /* NULL, or bool (mask_bool) or the work type, at offsets[b] + i sl + j ss */
  int mask_bool;
  const int64_t *mask_offsets; /* the device's memory, one per query batch row */
  int64_t mask_sl, mask_ss;
  double dropout_p;
  uint64_t seed;
  int f64;
};
typedef struct tl_attn_tile tl_attn_tile; /* as tl_attention.h (C11 allows the repeat) */

/* Tile row r: query batch row b, query i, and at = b L + i. */
typedef struct {
  int64_t b, i, at;
} tl_attn_where;

TL_PX_FN tl_attn_where tl_attn_locate(const tl_attn_tile *t, int64_t r)
{
  int64_t kv = t->b0 + r / t->m, rr = t->r0 + r % t->m;
  tl_attn_where w;
  w.b = (kv / t->kv_heads) * t->heads + (kv % t->kv_heads) * t->group + rr / t->L;
  w.i = rr % t->L;
  w.at = w.b * t->L + w.i;
  return w;
}

/* Is score j of row w removed (causal: a later key; a bool mask's false)?
 * Else *add is the element of a float mask to add to it, or -1 for none. */
TL_PX_FN bool tl_attn_removed(const tl_attn_tile *t, tl_attn_where w, int64_t j, int64_t *add)
{
  *add = -1;
  if (t->causal && j > w.i)
    return true;
  if (!t->mask)
    return false;
  int64_t at = t->mask_offsets[w.b] + w.i * t->mask_sl + j * t->mask_ss;
  if (t->mask_bool)
    return !((const unsigned char *)t->mask)[at];
  *add = at;
  return false;
}

/* Dropout's multiplier of score j of row w: 0, or 1 / (1 - p) when kept.
 * Key j of query i, batch row b, reads word j % 4 of Philox block (j / 4,
 * i, b, b >> 32) under the seed; its top 24 bits as a uniform in [0, 1)
 * keep it when >= p (tl_attn_dropout_keep, the CPU's rule). */
TL_PX_FN double tl_attn_multiplier(const tl_attn_tile *t, tl_attn_where w, int64_t j)
{
  uint32_t word[4];
  tl_px_block4(t->seed, (uint32_t)(j / 4), (uint32_t)w.i, (uint32_t)w.b,
               (uint32_t)((uint64_t)w.b >> 32), word);
  bool keep = (double)(word[j % 4] >> 8) * (1.0 / 16777216.0) >= t->dropout_p;
  return keep && t->dropout_p < 1 ? 1 / (1 - t->dropout_p) : 0.0;
}

#endif
