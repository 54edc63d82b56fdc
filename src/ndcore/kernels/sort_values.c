/* sort_values.c - sorting long lanes of float32 or int32 values, ascending,
 * when the caller wants no positions (msort; tl_sort with indices NULL).
 *
 * The plan of sort.c's long-lane sort (a histogram of the top 16 differing
 * key bits per input chunk, adjacent digits merged into buckets of about
 * TL_SV_BUCKET keys, one stable scatter, each bucket LSD-sorted in the cache
 * by the thread that owns it), on bare 32-bit keys instead of (key, position)
 * pairs: half the bytes to move, and the values output itself holds the
 * scattered keys, which each bucket then decodes in place.
 *
 * Float keys are not one-to-one (every NaN has the all-ones key, -0.0 the key
 * of +0.0: sort_keys.h), and without positions the original bits cannot be
 * looked up.  Equal keys are adjacent after sorting, so those two keys form
 * one run each; the runs are refilled at the end from the input, in input
 * order, which is exactly what a stable sort puts there.
 *
 * Invariants: lanes hold fewer than 2^32 elements; out is the lane's own
 * contiguous output, so its keys and values share the slots.               */
#include <stdlib.h>
#include <string.h>
#if defined(__SSE2__)
#include <emmintrin.h>
#endif

#include "ndcore/kernels/sort_keys.h"
#include "ndcore/dispatch/tl_parallel.h"
#include "ndcore/kernels/tl_sort.h"
#include "ndcore/kernels/tl_vecmath.h"

#define TL_SV_FINE_BITS 16
#define TL_SV_BUCKET 32768
#define TL_SV_BLOCK 4096
#define TL_SV_WC 32 /* keys per scatter buffer: two cache lines */

typedef struct {
  const char *src; /* the lane in the input; step in bytes */
  int64_t step, n;
  bool f32;
  uint32_t *out;
  int nchunks;
  int64_t chunk;
  uint32_t first; /* the first key: diff[] holds OR of key ^ first */
  int shift;
  uint32_t fmask;
  uint32_t *diff;   /* [nchunks] */
  uint32_t *hist;   /* [nchunks][fmask + 1] */
  uint32_t *map;    /* fine digit -> bucket */
  uint32_t *dfirst; /* [nb + 1]: each bucket's first fine digit */
  int64_t *pos;     /* [nchunks][nb] */
  int64_t *starts;  /* [nb + 1] */
  int64_t nb;
  int64_t *groups;  /* bucket boundaries of the sorting tasks */
  int64_t zero[2], nan[2]; /* the runs of the zero and NaN keys, [lo, hi) */
  uint32_t *special; /* [nchunks]: has the chunk a -0.0 or a NaN (whose bits
                        the keys do not keep)? */
  int failed;
} vsort;

/* Is u a -0.0 or a NaN: a float32 whose bits its key does not keep? */
static inline uint32_t vkey_special(uint32_t u)
{
  return (u == 0x80000000u) | ((u & 0x7fffffffu) > 0x7f800000u);
}

/* The keys of m elements from p; returns whether any is special (float32). */
TL_SIMD_CLONES static uint32_t vkeys_load(const char *p, int64_t step, int64_t m, bool f32,
                                          uint32_t *k)
{
  uint32_t special = 0;
  if (f32 && step == 4) { /* the common case, spelled out so that it vectorises */
    const uint32_t *u = (const uint32_t *)p;
    for (int64_t i = 0; i < m; i++) {
      k[i] = tl_key_f32(u[i]);
      special |= vkey_special(u[i]);
    }
    return special;
  }
  for (int64_t i = 0; i < m; i++) {
    uint32_t u;
    memcpy(&u, p + i * step, 4);
    k[i] = f32 ? tl_key_f32(u) : u ^ 0x80000000u;
    special |= f32 && vkey_special(u);
  }
  return special;
}

static void sv_hist(void *ctx, int64_t begin, int64_t end, int worker)
{
  (void)worker;
  vsort *c = ctx;
  uint32_t k[TL_SV_BLOCK];
  const int shift = c->shift;
  const uint32_t fmask = c->fmask, first = c->first;
  for (int64_t t = begin; t < end; t++) {
    uint32_t *h = c->hist + t * (int64_t)(fmask + 1), diff = 0, special = 0;
    memset(h, 0, sizeof *h * (fmask + 1));
    int64_t i0 = t * c->chunk, i1 = i0 + c->chunk < c->n ? i0 + c->chunk : c->n;
    for (int64_t b = i0; b < i1; b += TL_SV_BLOCK) {
      int64_t m = i1 - b < TL_SV_BLOCK ? i1 - b : TL_SV_BLOCK;
      special |= vkeys_load(c->src + b * c->step, c->step, m, c->f32, k);
      for (int64_t i = 0; i < m; i++) {
        diff |= k[i] ^ first;
        h[(k[i] >> shift) & fmask]++;
      }
    }
    c->diff[t] = diff;
    c->special[t] = special;
  }
}

static void sv_counts(void *ctx, int64_t begin, int64_t end, int worker)
{
  (void)worker;
  vsort *c = ctx;
  int64_t nfine = (int64_t)c->fmask + 1;
  for (int64_t t = begin; t < end; t++) {
    int64_t *row = c->pos + t * c->nb;
    const uint32_t *h = c->hist + t * nfine;
    memset(row, 0, sizeof(int64_t) * (size_t)c->nb);
    for (int64_t d = 0; d < nfine; d++)
      row[c->map[d]] += h[d];
  }
}

/* Keys gather in a buffer of TL_SV_WC per bucket, and a full buffer goes out
 * in streaming stores (see big_scatter in sort.c); the slots a bucket shares
 * with its neighbours' regions are written one by one. */
typedef struct {
  _Alignas(64) uint32_t v[TL_SV_WC];
} sv_line;

static void sv_flush(uint32_t *dst, const sv_line *line, int64_t first, int64_t end, bool stream)
{
#if defined(__SSE2__)
  if (stream && first == 0 && end == TL_SV_WC) {
    for (int k = 0; k < TL_SV_WC / 4; k++)
      _mm_stream_si128((__m128i *)dst + k, _mm_load_si128((const __m128i *)line->v + k));
    return;
  }
#endif
  (void)stream;
  for (int64_t k = first; k < end; k++)
    dst[k] = line->v[k];
}

static void sv_scatter(void *ctx, int64_t begin, int64_t end, int worker)
{
  (void)worker;
  vsort *c = ctx;
  uint32_t k[TL_SV_BLOCK];
  int64_t nb = c->nb;
  const uint32_t *map = c->map;
  const int shift = c->shift;
  const uint32_t fmask = c->fmask;
  /* the buffers' lines map onto the output's only when it is 16-byte aligned */
  bool stream = ((uintptr_t)c->out & 15) == 0;
  sv_line *lines = aligned_alloc(64, sizeof(sv_line) * (size_t)nb);
  int64_t *first = malloc(sizeof(int64_t) * (size_t)nb);
  if (!lines || !first) {
    __atomic_store_n(&c->failed, 1, __ATOMIC_RELAXED);
    goto done;
  }
  for (int64_t t = begin; t < end; t++) {
    int64_t *pos = c->pos + t * nb;
    memcpy(first, pos, sizeof(int64_t) * (size_t)nb);
    int64_t i0 = t * c->chunk, i1 = i0 + c->chunk < c->n ? i0 + c->chunk : c->n;
    for (int64_t b = i0; b < i1; b += TL_SV_BLOCK) {
      int64_t m = i1 - b < TL_SV_BLOCK ? i1 - b : TL_SV_BLOCK;
      vkeys_load(c->src + b * c->step, c->step, m, c->f32, k);
      for (int64_t i = 0; i < m; i++) {
        uint32_t bk = map[(k[i] >> shift) & fmask];
        int64_t p = pos[bk]++;
        lines[bk].v[p & (TL_SV_WC - 1)] = k[i];
        if ((p & (TL_SV_WC - 1)) == TL_SV_WC - 1) {
          int64_t line0 = p - (TL_SV_WC - 1);
          sv_flush(c->out + line0, &lines[bk], first[bk] > line0 ? first[bk] - line0 : 0, TL_SV_WC,
                   stream);
        }
      }
    }
    for (int64_t b = 0; b < nb; b++) { /* each bucket's partly filled last buffer */
      int64_t p = pos[b], line0 = p & ~(int64_t)(TL_SV_WC - 1);
      if (p & (TL_SV_WC - 1))
        sv_flush(c->out + line0, &lines[b], first[b] > line0 ? first[b] - line0 : 0,
                 p & (TL_SV_WC - 1), stream);
    }
  }
#if defined(__SSE2__)
  _mm_sfence(); /* streaming stores are weakly ordered: drain them */
#endif
done:
  free(lines);
  free(first);
}

/* Stable LSD sort of the n keys of a on their low `bits` bits (any n), in
 * passes of at most 11 bits through b; the result ends in a.  Two sets of
 * counters (even and odd keys) keep the histogram's increments from waiting
 * on each other; while the passes run in the cache, the next bucket
 * (next[0, nnext)), which the streaming scatter left in memory, is
 * prefetched a line per 16 keys. */
static void sv_lsd(uint32_t *a, uint32_t *b, int64_t n, int bits, const uint32_t *next,
                   int64_t nnext)
{
  int passes = (bits + 10) / 11, width = passes ? (bits + passes - 1) / passes : 0;
  uint32_t mask = (1u << width) - 1, count[3][2][2048];
  for (int p = 0; p < passes; p++) {
    memset(count[p][0], 0, sizeof(uint32_t) * (mask + 1));
    memset(count[p][1], 0, sizeof(uint32_t) * (mask + 1));
  }
  int64_t i = 0;
  if (passes == 2) { /* the common case, unrolled */
    for (; i + 1 < n; i += 2) {
      uint32_t x = a[i], y = a[i + 1];
      count[0][0][x & mask]++;
      count[1][0][(x >> width) & mask]++;
      count[0][1][y & mask]++;
      count[1][1][(y >> width) & mask]++;
    }
  }
  for (; i < n; i++)
    for (int p = 0; p < passes; p++)
      count[p][0][(a[i] >> (p * width)) & mask]++;
  uint32_t *s = a, *d = b;
  int64_t ahead = 0;
  for (int p = 0; p < passes; p++) {
    uint32_t sum = 0, *cnt = count[p][0], *odd = count[p][1];
    for (uint32_t g = 0; g <= mask; g++) {
      uint32_t t = cnt[g] + odd[g];
      cnt[g] = sum;
      sum += t;
    }
    const int shift = p * width;
    for (int64_t j = 0; j < n; j++) {
      if ((j & 15) == 0 && ahead < nnext) {
        __builtin_prefetch(next + ahead, 0, 2);
        ahead += 16;
      }
      d[cnt[(s[j] >> shift) & mask]++] = s[j];
    }
    uint32_t *t = s;
    s = d;
    d = t;
  }
  if (s != a)
    memcpy(a, s, sizeof(uint32_t) * (size_t)n);
}

/* [lo, hi) of the run of key k in the sorted keys a[0, n), or lo = hi = -1. */
static void sv_run(const uint32_t *a, int64_t n, uint32_t k, int64_t *lo, int64_t *hi)
{
  *lo = *hi = -1;
  if (n == 0 || k < a[0] || k > a[n - 1])
    return;
  int64_t j = 0;
  while (j < n && a[j] < k)
    j++;
  if (j == n || a[j] != k)
    return;
  *lo = j;
  while (j < n && a[j] == k)
    j++;
  *hi = j;
}

/* In place: keys back to float32 bits (the zero and NaN keys as +0.0 and a
 * NaN; see sv_refill), or to int32 values. */
TL_SIMD_CLONES static void sv_decode(uint32_t *a, int64_t n, bool f32)
{
  if (f32)
    for (int64_t j = 0; j < n; j++)
      a[j] = tl_unkey_f32(a[j]);
  else
    for (int64_t j = 0; j < n; j++)
      a[j] ^= 0x80000000u;
}

/* Sort each bucket of the task's groups in place, then decode it. */
static void sv_buckets(void *ctx, int64_t begin, int64_t end, int worker)
{
  (void)worker;
  vsort *c = ctx;
  int64_t most = 0;
  for (int64_t d = c->groups[begin]; d < c->groups[end]; d++)
    most = c->starts[d + 1] - c->starts[d] > most ? c->starts[d + 1] - c->starts[d] : most;
  uint32_t *b = malloc(sizeof(uint32_t) * (size_t)(most ? most : 1));
  if (!b) {
    __atomic_store_n(&c->failed, 1, __ATOMIC_RELAXED);
    return;
  }
  const uint32_t kz = 0x80000000u, kn = 0xffffffffu; /* the keys of zero and NaN */
  for (int64_t d = c->groups[begin]; d < c->groups[end]; d++) {
    int64_t s = c->starts[d], n = c->starts[d + 1] - s;
    uint32_t *a = c->out + s;
    /* the bucket's keys agree above its digits' span (as in sort.c) */
    uint32_t span = c->dfirst[d] ^ (c->dfirst[d + 1] - 1);
    int bits = c->shift + (span ? 32 - __builtin_clz(span) : 0);
    if (n > 1 && bits > 0) {
      int64_t ns = c->starts[d + 1], nn = d + 1 < c->groups[end] ? c->starts[d + 2] - ns : 0;
      sv_lsd(a, b, n, bits, c->out + ns, nn);
    }
    if (c->f32) { /* equal keys share a bucket: one task finds each run */
      int64_t lo, hi;
      sv_run(a, n, kz, &lo, &hi);
      if (lo >= 0) {
        c->zero[0] = s + lo;
        c->zero[1] = s + hi;
      }
      sv_run(a, n, kn, &lo, &hi);
      if (lo >= 0) {
        c->nan[0] = s + lo;
        c->nan[1] = s + hi;
      }
    }
    sv_decode(a, n, c->f32);
  }
  free(b);
}

/* The zero and NaN runs get the input's zeros and NaNs, in input order. */
static void sv_refill(vsort *c)
{
  int64_t z = c->zero[0], q = c->nan[0];
  if (z == c->zero[1] && q == c->nan[1])
    return;
  for (int64_t i = 0; i < c->n; i++) {
    uint32_t u;
    memcpy(&u, c->src + i * c->step, 4);
    /* (the runs hold exactly the input's zeros and NaNs; the bounds only
     * make sure that nothing outside them could ever be written) */
    if ((u & 0x7fffffffu) == 0 && z < c->zero[1])
      c->out[z++] = u;
    else if ((u & 0x7fffffffu) > 0x7f800000u && q < c->nan[1])
      c->out[q++] = u;
  }
}

tl_status tl_sort_values_lane(const char *src, int64_t step, int64_t n, tl_dtype dtype, uint32_t *out)
{
  int threads = tl_parallel_get_threads();
  vsort c = {.src = src, .step = step, .n = n, .f32 = dtype == TL_DTYPE_F32, .out = out};
  c.nchunks = 4 * threads;
  c.chunk = (n + c.nchunks - 1) / c.nchunks;
  tl_status st = TL_OK;
  uint32_t k[TL_SV_BLOCK];
  vkeys_load(src, step, 1, c.f32, k);
  c.first = k[0];
  /* Which key bits differ: guessed from a sample, checked by the histogram
   * pass, which is redone in the rare case that the sample missed some. */
  uint32_t diff = 0;
  int64_t every = n / TL_SV_BLOCK > 1 ? n / TL_SV_BLOCK : 1;
  int64_t m = (n + every - 1) / every;
  m = m < TL_SV_BLOCK ? m : TL_SV_BLOCK;
  vkeys_load(src, step * every, m, c.f32, k);
  for (int64_t i = 0; i < m; i++)
    diff |= k[i] ^ c.first;
  size_t nfine_max = (size_t)1 << TL_SV_FINE_BITS;
  c.diff = malloc(sizeof(uint32_t) * (size_t)c.nchunks);
  c.special = malloc(sizeof(uint32_t) * (size_t)c.nchunks);
  c.hist = malloc(sizeof(uint32_t) * (size_t)c.nchunks * nfine_max);
  c.map = malloc(sizeof(uint32_t) * nfine_max);
  c.dfirst = malloc(sizeof(uint32_t) * (nfine_max + 1));
  c.starts = malloc(sizeof(int64_t) * (nfine_max + 1));
  c.groups = malloc(sizeof(int64_t) * (size_t)(4 * threads + 2));
  if (!c.diff || !c.special || !c.hist || !c.map || !c.dfirst || !c.starts || !c.groups)
    goto oom;
  for (;;) {
    int bits = diff ? 32 - __builtin_clz(diff) : 0;
    int fine = bits < TL_SV_FINE_BITS ? bits : TL_SV_FINE_BITS;
    c.shift = bits - fine;
    c.fmask = (1u << fine) - 1;
    tl_parallel_for(c.nchunks, 1, sv_hist, &c);
    uint32_t exact = 0;
    for (int t = 0; t < c.nchunks; t++)
      exact |= c.diff[t];
    if ((exact | diff) == diff)
      break;
    diff |= exact;
  }
  int64_t nfine = (int64_t)c.fmask + 1;
  int64_t nb = tl_sort_plan_buckets(c.hist, c.nchunks, nfine, TL_SV_BUCKET, c.map, c.dfirst,
                                    c.starts);
  c.nb = nb;
  c.pos = malloc(sizeof(int64_t) * (size_t)(c.nchunks * nb));
  if (!c.pos)
    goto oom;
  tl_parallel_for(c.nchunks, 1, sv_counts, &c);
  tl_sort_chunk_offsets(c.pos, c.starts, c.nchunks, nb);
  tl_parallel_for(c.nchunks, 1, sv_scatter, &c);
  if (c.failed)
    goto oom;
  int g = tl_sort_group_buckets(c.starts, nb, n, 4 * threads, c.groups);
  tl_parallel_for(g, 1, sv_buckets, &c);
  if (c.failed)
    goto oom;
  uint32_t special = 0;
  for (int t = 0; t < c.nchunks; t++)
    special |= c.special[t];
  if (special) /* else every zero is +0.0, and there is no NaN: decoded right */
    sv_refill(&c);
  goto done;
oom:
  st = tl_error_set(TL_ERR_MEMORY, "out of memory sorting %lld elements", (long long)n);
done:
  free(c.diff);
  free(c.special);
  free(c.hist);
  free(c.map);
  free(c.dfirst);
  free(c.starts);
  free(c.pos);
  free(c.groups);
  return st;
}
