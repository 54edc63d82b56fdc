/* sort_keys.h - every real dtype mapped onto unsigned integer keys whose
 * order is the sort order (private to the sort files).
 *
 * Integers flip their sign bit.  Floats use the sign-magnitude trick (flip
 * all bits of negatives, set the sign bit of positives), plus two choices that
 * make the keys agree with comparison sorts (NumPy, PyTorch):
 *   - every NaN maps to the all-ones key: NaN sorts after +inf, and all NaNs
 *     are equal, so a stable sort keeps them in input order;
 *   - -0.0 maps to the key of +0.0, so the zeros keep input order too.
 * Keys of floats are therefore not one-to-one: turning a key back into a
 * value must copy the original element for the NaN and zero keys.
 * Unsigned integers are their own keys.  The types of up to 4 bytes use
 * 32-bit keys, the 8-byte ones 64-bit keys.  Descending order is the complement of the key
 * (within the key's width), NaN first.                                     */
#ifndef TL_SORT_KEYS_H
#define TL_SORT_KEYS_H

#include <string.h>

#include "ndcore/tensor/tl_dtype.h"

static inline bool tl_sort_key_wide(tl_dtype d) { return tl_dtype_size(d) == 8; }

/* The bits of the key that can be set (complementing with it reverses order). */
static inline uint64_t tl_sort_key_mask(tl_dtype d)
{
  switch (tl_dtype_size(d)) {
  case 1: return 0xffu;
  case 2: return 0xffffu;
  case 4: return 0xffffffffu;
  default: return ~(uint64_t)0;
  }
}

static inline uint32_t tl_key_f16(uint16_t h)
{
  if ((h & 0x7fffu) > 0x7c00u)
    return 0xffffu;
  if ((h & 0x7fffu) == 0)
    return 0x8000u;
  return (h & 0x8000u) ? (uint16_t)~h : (uint32_t)(h | 0x8000u);
}

static inline uint32_t tl_key_bf16(uint16_t h)
{
  if ((h & 0x7fffu) > 0x7f80u)
    return 0xffffu;
  if ((h & 0x7fffu) == 0)
    return 0x8000u;
  return (h & 0x8000u) ? (uint16_t)~h : (uint32_t)(h | 0x8000u);
}

/* Branch-free, so loops over it vectorise. */
static inline uint32_t tl_key_f32(uint32_t u)
{
  uint32_t a = u & 0x7fffffffu;
  uint32_t k = u ^ ((uint32_t)((int32_t)u >> 31) | 0x80000000u);
  k = a == 0 ? 0x80000000u : k;
  return a > 0x7f800000u ? 0xffffffffu : k;
}

static inline uint64_t tl_key_f64(uint64_t u)
{
  uint64_t a = u & 0x7fffffffffffffffull;
  uint64_t k = u ^ ((uint64_t)((int64_t)u >> 63) | 0x8000000000000000ull);
  k = a == 0 ? 0x8000000000000000ull : k;
  return a > 0x7ff0000000000000ull ? ~(uint64_t)0 : k;
}

/* Inverses, exact except for the NaN and zero keys (see above). */
static inline uint32_t tl_unkey_16(uint32_t k) { return (k & 0x8000u) ? (k & 0x7fffu) : (uint16_t)~k; }
static inline uint32_t tl_unkey_f32(uint32_t k) { return (k & 0x80000000u) ? (k & 0x7fffffffu) : ~k; }
static inline uint64_t tl_unkey_f64(uint64_t k)
{
  return (k >> 63) ? (k & 0x7fffffffffffffffull) : ~k;
}

/* The key of one element (any real dtype), ascending. */
static inline uint64_t tl_sort_key(tl_dtype d, const char *p)
{
  switch (d) {
  case TL_DTYPE_BOOL: return *(const uint8_t *)p != 0;
  case TL_DTYPE_U8: return *(const uint8_t *)p;
  case TL_DTYPE_U16: return tl_load_U16(p);
  case TL_DTYPE_U32: return tl_load_U32(p);
  case TL_DTYPE_U64: return tl_load_U64(p);
  case TL_DTYPE_I8: return (uint8_t)(*(const uint8_t *)p ^ 0x80u);
  case TL_DTYPE_I16: { uint16_t v; memcpy(&v, p, 2); return (uint16_t)(v ^ 0x8000u); }
  case TL_DTYPE_I32: { uint32_t v; memcpy(&v, p, 4); return v ^ 0x80000000u; }
  case TL_DTYPE_I64: { uint64_t v; memcpy(&v, p, 8); return v ^ 0x8000000000000000ull; }
  case TL_DTYPE_F16: { uint16_t v; memcpy(&v, p, 2); return tl_key_f16(v); }
  case TL_DTYPE_BF16: { uint16_t v; memcpy(&v, p, 2); return tl_key_bf16(v); }
  case TL_DTYPE_F32: { uint32_t v; memcpy(&v, p, 4); return tl_key_f32(v); }
  case TL_DTYPE_F64: { uint64_t v; memcpy(&v, p, 8); return tl_key_f64(v); }
  default: return 0; /* complex: refused before reaching here */
  }
}

/* Is this (ascending) key the one every NaN of the dtype maps to? */
static inline bool tl_sort_key_is_nan(tl_dtype d, uint64_t k)
{
  return tl_dtype_is_float(d) && k == tl_sort_key_mask(d);
}

/* Element offset of lane number `lane` in t, walking every dim except skip
 * (skip < 0: none) row-major: lanes are numbered over the other dims. */
static inline int64_t tl_lane_offset(const tl_tensor *t, int skip, int64_t lane)
{
  int64_t off = t->offset;
  for (int i = t->ndim - 1; i >= 0; i--) {
    if (i == skip)
      continue;
    off += lane % t->shape[i] * t->strides[i];
    lane /= t->shape[i];
  }
  return off;
}

static inline char *tl_lane_ptr(const tl_tensor *t, int skip, int64_t lane)
{
  return (char *)t->storage->data + tl_lane_offset(t, skip, lane) * (int64_t)tl_dtype_size(t->dtype);
}

/* ---- the bucket plan of a long lane (sort.c, sort_values.c) ----
 * A histogram pass counts each chunk's keys per fine digit (hist[t * nfine +
 * d]).  Consecutive digits are merged into buckets of about `bucket` keys (a
 * digit bigger than a bucket stands alone); map[d] is d's bucket, starts[b]
 * and dfirst[b] the first slot and first digit of bucket b.  Returns the
 * number of buckets. */
static inline int64_t tl_sort_plan_buckets(const uint32_t *hist, int nchunks, int64_t nfine,
                                           int64_t bucket, uint32_t *map, uint32_t *dfirst,
                                           int64_t *starts)
{
  int64_t nb = 0, fill = 0, sum = 0;
  starts[0] = 0;
  dfirst[0] = 0;
  uint32_t total[1024]; /* the counts of 1024 digits, summed row by row (it vectorises) */
  for (int64_t d = 0; d < nfine; d++) {
    if (d % 1024 == 0) {
      int64_t m = nfine - d < 1024 ? nfine - d : 1024;
      memcpy(total, hist + d, sizeof(uint32_t) * (size_t)m);
      for (int t = 1; t < nchunks; t++)
        for (int64_t k = 0; k < m; k++)
          total[k] += hist[t * nfine + d + k];
    }
    int64_t cnt = total[d % 1024];
    if (fill > 0 && fill + cnt > bucket) {
      starts[++nb] = sum;
      dfirst[nb] = (uint32_t)d;
      fill = 0;
    }
    map[d] = (uint32_t)nb;
    fill += cnt;
    sum += cnt;
  }
  starts[++nb] = sum;
  dfirst[nb] = (uint32_t)nfine;
  return nb;
}

/* pos[t * nb + b] holds chunk t's count in bucket b; make it the chunk's
 * first slot there: buckets in order, chunks within a bucket. */
static inline void tl_sort_chunk_offsets(int64_t *pos, const int64_t *starts, int nchunks, int64_t nb)
{
  for (int64_t b = 0; b < nb; b++) {
    int64_t at = starts[b];
    for (int t = 0; t < nchunks; t++) {
      int64_t cnt = pos[t * nb + b];
      pos[t * nb + b] = at;
      at += cnt;
    }
  }
}

/* Buckets into at most ntasks groups of about n / ntasks keys each:
 * groups[0..g] are bucket boundaries.  Returns g. */
static inline int tl_sort_group_buckets(const int64_t *starts, int64_t nb, int64_t n, int ntasks,
                                        int64_t *groups)
{
  int g = 0;
  groups[0] = 0;
  for (int64_t b = 0; b < nb && g < ntasks - 1; b++)
    if (starts[b + 1] >= (g + 1) * (n / ntasks))
      groups[++g] = b + 1;
  if (groups[g] != nb)
    groups[++g] = nb;
  return g;
}

#endif
