/* sort.c - sorting and selection along a dim: sort, argsort, topk,
 * kthvalue, median, quantile, mode.
 *
 * One engine serves them all.  A "lane" is the 1-d slice along the dim at one
 * position of the other dims.  For each lane the engine turns the elements
 * into order-preserving integer keys (sort_keys.h) paired with their lane
 * positions, lets the op choose which sorted positions [lo, hi) it needs
 * (`plan`), radix-sorts (sort_radix.h: a full sort, or a radix select when
 * [lo, hi) is narrow), and hands the sorted keys and positions to the op's
 * `emit`, which writes its outputs.  Many lanes are spread over the thread
 * pool one lane per task; a few long lanes are each sorted by the whole pool.
 *
 * Invariants: lanes hold fewer than 2^32 elements (positions are uint32_t);
 * the sorts are stable, so equal elements (all NaNs, -0.0 and 0.0 included)
 * keep their input order, in descending order too.                        */
#include <math.h>
#include <stdlib.h>
#include <sys/mman.h>
#if defined(__SSE2__)
#include <emmintrin.h>
#endif

#include "ndcore/kernels/sort_keys.h"
#include "ndcore/dispatch/tl_parallel.h"
#include "ndcore/kernels/tl_quantile.h"
#include "ndcore/kernels/tl_sort_args.h"
#include "ndcore/kernels/tl_sort_simd.h"
#include "ndcore/kernels/tl_vecmath.h"

#define TL_RADIX_BITS 11
#define TL_RADIX_MAX_PASSES 8
#define TL_SORT_SMALL 24
#define TL_SORT_LSD_MAX (1 << 16)
/* Selections within runs up to TL_SORT_SHORT long, and whole sorts of runs
 * up to TL_SORT_TINY, go MSD-first (sort_radix.h), with about
 * 2^TL_SORT_SHORT_SPARE elements per bucket of the first pass. */
#ifndef TL_SORT_SHORT
#define TL_SORT_SHORT 4096
#endif
#ifndef TL_SORT_TINY
#define TL_SORT_TINY 512
#endif
#ifndef TL_SORT_SHORT_SPARE
#define TL_SORT_SHORT_SPARE 1
#endif
/* Lanes at least this long are sorted by the whole thread pool. */
#define TL_SORT_PARALLEL_MIN (1 << 17)
#define TL_SORT_HUGE_MIN ((size_t)2 << 20)
/* The long-lane sort buckets by up to 16 top key bits, merged into buckets of
 * about this many elements, which then sort inside the core's caches. */
#define TL_SORT_FINE_BITS 16
#define TL_SORT_BUCKET 32768

#define TL_RK uint64_t
#define TL_RPAIRED 1
#define TL_RKEY(x) ((x) >> 32)
#define TL_R_RADIX_SORT radix_sort_p32
#define TL_R_INSERTION_SORT insertion_sort_p32
#define TL_R_LSD_SORT lsd_sort_p32
#define TL_R_MSD_SCATTER msd_scatter_p32
#define TL_R_SIGNIFICANT_BITS significant_bits_p32
#include "ndcore/kernels/sort_radix.h"

#define TL_RK uint64_t
#define TL_RPAIRED 0
#define TL_RKEY(x) (x)
#define TL_R_RADIX_SORT radix_sort_64
#define TL_R_INSERTION_SORT insertion_sort_64
#define TL_R_LSD_SORT lsd_sort_64
#define TL_R_MSD_SCATTER msd_scatter_64
#define TL_R_SIGNIFICANT_BITS significant_bits_64
#include "ndcore/kernels/sort_radix.h"

/* tl_lane_ptr without its divisions in the common case: lanes that are the
 * rows of a contiguous tensor (or, skip < 0, its elements).  Row sorts call
 * it three times per lane (input, values, indices), which cost about 1 ns
 * per element on rows of 100. */
static inline char *lane_ptr(const tl_tensor *t, int skip, int64_t lane)
{
  if ((skip < 0 || skip == t->ndim - 1) && tl_tensor_is_contiguous(t)) {
    int64_t len = skip < 0 ? 1 : t->shape[skip];
    return (char *)t->storage->data + (t->offset + lane * len) * (int64_t)tl_dtype_size(t->dtype);
  }
  return tl_lane_ptr(t, skip, lane);
}

/* Ask for the next lane's input while this one sorts: on short rows the
 * sort takes microseconds, and the rows' reads otherwise each start with
 * misses the hardware prefetcher only catches up with (1000x1000 float64
 * values only: the key load was about a tenth of the time).  Contiguous
 * lanes of up to 64 KiB. */
static inline void lane_prefetch(const char *src, int64_t step, int64_t n)
{
  if (step <= 0 || step > 8 || step * n > 65536) /* a hint only: never faults */
    return;
  for (int64_t off = 0; off < n * step; off += 64)
    __builtin_prefetch(src + off, 0, 3);
}

/* ---- keys in and values out ------------------------------------------------ *
 * These loops vectorise; TL_SIMD_CLONES compiles them for AVX-512 and AVX2
 * too (picked at load time), which halves the time of the long-lane sort's
 * histogram pass, where keys_load is most of the work. */

/* The sort elements of lane positions [base, base + n): for dtypes with
 * 32-bit keys a[i] = key << 32 | position; for int64/float64 a[i] = key and
 * ai[i] = position.  src points at position base; keys are complemented when
 * descending. */
TL_SIMD_CLONES static void keys_load(tl_dtype d, const char *src, int64_t step, int64_t n,
                                     int64_t base, bool desc, uint64_t *a, uint32_t *ai)
{
  uint32_t f32 = desc ? (uint32_t)tl_sort_key_mask(d) : 0;
  uint64_t f64 = desc ? ~(uint64_t)0 : 0;
  uint32_t b32 = (uint32_t)base;
  switch (d) {
  case TL_DTYPE_F32:
    if (step == 4) { /* the common case, spelled out so that it vectorises */
      const uint32_t *u = (const uint32_t *)src;
      for (int64_t i = 0; i < n; i++)
        a[i] = (uint64_t)(tl_key_f32(u[i]) ^ f32) << 32 | (b32 + (uint32_t)i);
      break;
    }
    for (int64_t i = 0; i < n; i++) {
      uint32_t u;
      memcpy(&u, src + i * step, 4);
      a[i] = (uint64_t)(tl_key_f32(u) ^ f32) << 32 | (b32 + (uint32_t)i);
    }
    break;
  case TL_DTYPE_I32:
    for (int64_t i = 0; i < n; i++) {
      uint32_t u;
      memcpy(&u, src + i * step, 4);
      a[i] = (uint64_t)(u ^ 0x80000000u ^ f32) << 32 | (b32 + (uint32_t)i);
    }
    break;
  case TL_DTYPE_F64:
    for (int64_t i = 0; i < n; i++) {
      uint64_t u;
      memcpy(&u, src + i * step, 8);
      a[i] = tl_key_f64(u) ^ f64;
      ai[i] = b32 + (uint32_t)i;
    }
    break;
  case TL_DTYPE_I64:
  case TL_DTYPE_U64: {
    const uint64_t sign = d == TL_DTYPE_I64 ? 0x8000000000000000ull : 0;
    for (int64_t i = 0; i < n; i++) {
      uint64_t u;
      memcpy(&u, src + i * step, 8);
      a[i] = u ^ sign ^ f64;
      ai[i] = b32 + (uint32_t)i;
    }
    break;
  }
  default:
    for (int64_t i = 0; i < n; i++)
      a[i] = (uint64_t)((uint32_t)tl_sort_key(d, src + i * step) ^ f32) << 32 | (b32 + (uint32_t)i);
    break;
  }
}

/* ---- the lane engine ---------------------------------------------------------- */

typedef struct {
  int64_t lane; /* which lane: row-major over the other dims */
  int64_t n;
  const char *src; /* the lane in the input; step in bytes */
  int64_t step;
  bool wide;            /* 64-bit keys: a holds keys and ai positions */
  const uint64_t *a;    /* sorted elements (see keys_load) */
  const uint32_t *ai;
  int64_t lo, hi;  /* sorted positions wanted; plan may narrow them */
  int64_t aux[2];  /* plan's notes to emit */
} lane;

/* The (descending-complemented) key and the lane position at sorted position j. */
static inline uint64_t lane_key(const lane *l, int64_t j) { return l->wide ? l->a[j] : l->a[j] >> 32; }
static inline uint32_t lane_pos(const lane *l, int64_t j) { return l->wide ? l->ai[j] : (uint32_t)l->a[j]; }

/* The NaN and zero keys of float dtypes stand for several values; those
 * elements are copied from the input instead of decoded. */
static inline bool key32_ambiguous(uint32_t k, uint32_t nan, uint32_t zero)
{
  return k == nan || k == zero;
}

/* Contiguous float32 values_store: decode every key (a loop that vectorises)
 * then copy the rare NaNs and zeros from the input.  Long runs (the long-lane
 * sort's buckets: outputs written once, not read again here) go out in whole
 * aligned tiles of streaming stores, which skip reading each destination line
 * first; short ones (lanes of a few thousand, the grouped path's rows, which
 * are read back at once) stay in the cache. */
#define TL_VALUES_TILE 256
#define TL_VALUES_STREAM_MIN 8192
static inline uint32_t values_f32_tile(const uint64_t *a, int64_t m, uint32_t flip, uint32_t *o)
{
  uint32_t any = 0;
  for (int64_t j = 0; j < m; j++) {
    uint32_t k = (uint32_t)(a[j] >> 32) ^ flip;
    o[j] = tl_unkey_f32(k);
    any |= key32_ambiguous(k, 0xffffffffu, 0x80000000u);
  }
  return any;
}

TL_SIMD_CLONES static void values_f32_store(const lane *l, int64_t j0, int64_t j1, uint32_t flip,
                                            uint32_t *o)
{
  const uint64_t *a = l->a + j0;
  int64_t n = j1 - j0, j = 0;
  uint32_t any = 0;
#if defined(__SSE2__)
  int64_t head = (int64_t)((16 - ((uintptr_t)o & 15)) & 15) / 4;
  if (((uintptr_t)o & 3) == 0 && n >= TL_VALUES_STREAM_MIN) {
    any |= values_f32_tile(a, head, flip, o);
    _Alignas(16) uint32_t tile[TL_VALUES_TILE];
    for (j = head; n - j >= TL_VALUES_TILE; j += TL_VALUES_TILE) {
      any |= values_f32_tile(a + j, TL_VALUES_TILE, flip, tile);
      __m128i *d = (__m128i *)(o + j);
      for (int t = 0; t < TL_VALUES_TILE / 4; t++)
        _mm_stream_si128(d + t, _mm_load_si128((const __m128i *)tile + t));
    }
    _mm_sfence();
  }
#endif
  any |= values_f32_tile(a + j, n - j, flip, o + j);
  for (j = 0; any && j < n; j++) {
    uint32_t k = (uint32_t)(a[j] >> 32) ^ flip;
    if (key32_ambiguous(k, 0xffffffffu, 0x80000000u))
      memcpy(o + j, l->src + (int64_t)(uint32_t)a[j] * l->step, 4);
  }
}

/* The bit a signed narrow dtype's key flips (keys order as unsigned). */
static inline uint32_t narrow_sign(tl_dtype d)
{
  return d == TL_DTYPE_I8 ? 0x80u : d == TL_DTYPE_I16 ? 0x8000u : d == TL_DTYPE_I32 ? 0x80000000u : 0;
}

/* The low `size` bytes (1, 2 or 4) of a decoded 32-bit value, at p. */
static inline void store_narrow(char *p, uint32_t u, size_t size)
{
  if (size == 1) {
    uint8_t b = (uint8_t)u;
    memcpy(p, &b, 1);
  } else if (size == 2) {
    uint16_t h = (uint16_t)u;
    memcpy(p, &h, 2);
  } else {
    memcpy(p, &u, 4);
  }
}

/* dst[(j - j0) * dstep] = the value at sorted position j, for j in [j0, j1). */
TL_SIMD_CLONES static void values_store(tl_dtype d, const lane *l, int64_t j0, int64_t j1, bool desc,
                                        char *dst, int64_t dstep)
{
  uint32_t f32 = desc ? (uint32_t)tl_sort_key_mask(d) : 0;
  uint64_t f64 = desc ? ~(uint64_t)0 : 0;
  const uint64_t *a = l->a;
  const char *src = l->src;
  int64_t step = l->step;
  char *p = dst;
  switch (d) {
  case TL_DTYPE_F32:
    if (dstep == 4) {
      values_f32_store(l, j0, j1, f32, (uint32_t *)dst);
      break;
    }
    for (int64_t j = j0; j < j1; j++, p += dstep) {
      uint32_t k = (uint32_t)(a[j] >> 32) ^ f32, u = tl_unkey_f32(k);
      if (key32_ambiguous(k, 0xffffffffu, 0x80000000u))
        memcpy(&u, src + (int64_t)(uint32_t)a[j] * step, 4);
      memcpy(p, &u, 4);
    }
    break;
  case TL_DTYPE_F64:
    if (dstep == 8) { /* decode all in a loop that vectorises, then fix the few */
      uint64_t *o = (uint64_t *)dst, any = 0;
      for (int64_t j = j0; j < j1; j++) {
        uint64_t k = a[j] ^ f64;
        o[j - j0] = tl_unkey_f64(k);
        any |= (uint64_t)(k == ~(uint64_t)0 || k == 0x8000000000000000ull);
      }
      for (int64_t j = j0; any && j < j1; j++) {
        uint64_t k = a[j] ^ f64;
        if (k == ~(uint64_t)0 || k == 0x8000000000000000ull)
          memcpy(o + (j - j0), src + (int64_t)l->ai[j] * step, 8);
      }
      break;
    }
    for (int64_t j = j0; j < j1; j++, p += dstep) {
      uint64_t k = a[j] ^ f64, u = tl_unkey_f64(k);
      if (k == ~(uint64_t)0 || k == 0x8000000000000000ull)
        memcpy(&u, src + (int64_t)l->ai[j] * step, 8);
      memcpy(p, &u, 8);
    }
    break;
  case TL_DTYPE_F16:
  case TL_DTYPE_BF16:
    for (int64_t j = j0; j < j1; j++, p += dstep) {
      uint32_t k = (uint32_t)(a[j] >> 32) ^ f32;
      uint16_t u = (uint16_t)tl_unkey_16(k);
      if (key32_ambiguous(k, 0xffffu, 0x8000u))
        memcpy(&u, src + (int64_t)(uint32_t)a[j] * step, 2);
      memcpy(p, &u, 2);
    }
    break;
  case TL_DTYPE_I64:
  case TL_DTYPE_U64: {
    const uint64_t sign = d == TL_DTYPE_I64 ? 0x8000000000000000ull : 0;
    for (int64_t j = j0; j < j1; j++, p += dstep) {
      uint64_t u = a[j] ^ f64 ^ sign;
      memcpy(p, &u, 8);
    }
    break;
  }
  default: {
    /* Integers: the key is the value with its sign bit flipped. */
    size_t size = tl_dtype_size(d);
    uint32_t sign = narrow_sign(d);
    for (int64_t j = j0; j < j1; j++, p += dstep) {
      uint32_t u = (uint32_t)(a[j] >> 32) ^ f32 ^ sign;
      store_narrow(p, u, size);
    }
    break;
  }
  }
}

/* Positions [j0, j1) as int64 at dst.  dst may be the very memory that holds
 * l->a[j0..j1) (the long-lane sort works inside the indices output): each
 * slot is read before it is overwritten. */
static void indices_store(const lane *l, int64_t j0, int64_t j1, char *dst, int64_t dstep)
{
  if (dstep == 8 && !l->wide) {
    uint64_t *o = (uint64_t *)dst;
    const uint64_t *a = l->a + j0;
    for (int64_t j = 0; j < j1 - j0; j++)
      o[j] = (uint32_t)a[j];
    return;
  }
  if (dstep == 8) {
    uint64_t *o = (uint64_t *)dst;
    const uint32_t *ai = l->ai + j0;
    for (int64_t j = 0; j < j1 - j0; j++)
      o[j] = ai[j];
    return;
  }
  for (int64_t j = j0; j < j1; j++, dst += dstep) {
    int64_t v = lane_pos(l, j);
    memcpy(dst, &v, 8);
  }
}

typedef struct lane_job lane_job;
struct lane_job {
  const tl_tensor *in;
  int dim; /* wrapped; for a 0-d input, 0 */
  bool desc;
  /* Keys are loaded; set lo/hi (default [0, n)) and aux.  May be NULL. */
  void (*plan)(const lane_job *job, lane *l);
  /* Write outputs from sorted positions [j0, j1) within [lo, hi). */
  void (*emit)(const lane_job *job, const lane *l, int64_t j0, int64_t j1);
  bool emit_chunks; /* emit may run on parts of [lo, hi) in parallel */
  /* sort's outputs (values may be NULL), for the grouped path below. */
  tl_tensor *group_values, *group_indices;
  /* Where the long-lane sort may keep its 8-byte elements: the lane's own
   * int64 indices output, when it is contiguous and emit writes it (sort,
   * argsort).  NULL: use scratch. */
  uint64_t *(*inplace)(const lane_job *job, int64_t lane);
  void *ctx;
  bool simd;  /* tl_sort_simd_available(), read once per op */
  int failed; /* set by a task that ran out of memory */
};

static int64_t lane_length(const tl_tensor *t, int dim) { return t->ndim ? t->shape[dim] : 1; }
static int64_t lane_step(const tl_tensor *t, int dim)
{
  return t->ndim ? t->strides[dim] * (int64_t)tl_dtype_size(t->dtype) : 0;
}

/* How many of the lane's elements are NaN (keys loaded, not yet sorted). */
static int64_t lane_count_nan(const lane_job *job, const lane *l)
{
  tl_dtype d = job->in->dtype;
  if (!tl_dtype_is_float(d))
    return 0;
  uint64_t nan = tl_sort_key_mask(d) ^ (job->desc ? tl_sort_key_mask(d) : 0);
  int64_t c = 0;
  for (int64_t i = 0; i < l->n; i++)
    c += lane_key(l, i) == nan;
  return c;
}

/* Lane position of the first NaN (input order), or -1. */
static int64_t lane_first_nan(const lane_job *job, const lane *l)
{
  tl_dtype d = job->in->dtype;
  if (!tl_dtype_is_float(d))
    return -1;
  for (int64_t i = 0; i < l->n; i++)
    if (tl_sort_key_is_nan(d, tl_sort_key(d, l->src + i * l->step)))
      return i;
  return -1;
}

/* n elements and, for wide keys, n positions; huge pages when large, since
 * scatters write to many places at once and 4 KiB pages would miss the TLB. */
static void *sort_alloc(int64_t n, bool wide)
{
  size_t bytes = (size_t)(n ? n : 1) * (wide ? 12 : 8);
  void *p = NULL;
  if (bytes < TL_SORT_HUGE_MIN)
    return malloc(bytes);
  if (posix_memalign(&p, TL_SORT_HUGE_MIN, bytes) != 0)
    return NULL;
#ifdef MADV_HUGEPAGE
  madvise(p, bytes, MADV_HUGEPAGE);
#endif
  return p;
}

/* Scratch for lanes of n elements: the elements, twice (ping-pong), and for
 * 64-bit keys n more words (the vector sort's scratch, wide_sort_packed). */
typedef struct {
  uint64_t *a, *b, *c;
  uint32_t *ai, *bi;
  void *mem_a, *mem_b;
} lane_scratch;

static bool scratch_alloc(lane_scratch *s, int64_t n, bool wide)
{
  s->mem_a = sort_alloc(n, wide);
  s->mem_b = sort_alloc(n, wide);
  s->c = wide ? malloc(sizeof(uint64_t) * (size_t)(n ? n : 1)) : NULL;
  if (!s->mem_a || !s->mem_b || (wide && !s->c)) {
    free(s->mem_a);
    free(s->mem_b);
    free(s->c);
    return false;
  }
  s->a = s->mem_a;
  s->b = s->mem_b;
  s->ai = wide ? (uint32_t *)(s->a + (n ? n : 1)) : NULL;
  s->bi = wide ? (uint32_t *)(s->b + (n ? n : 1)) : NULL;
  return true;
}

static void scratch_free(lane_scratch *s)
{
  free(s->mem_a);
  free(s->mem_b);
  free(s->c);
}

static void lane_begin(const lane_job *job, lane *l, int64_t which)
{
  const tl_tensor *in = job->in;
  l->lane = which;
  l->n = lane_length(in, job->dim);
  l->step = lane_step(in, job->dim);
  l->src = lane_ptr(in, in->ndim ? job->dim : -1, which);
  l->wide = tl_sort_key_wide(in->dtype);
  l->lo = 0;
  l->hi = l->n;
  l->aux[0] = l->aux[1] = 0;
}

static int radix_sort_any(bool wide, uint64_t *a, uint32_t *ai, uint64_t *b, uint32_t *bi,
                          int64_t n, int64_t lo, int64_t hi)
{
  return wide ? radix_sort_64(a, ai, b, bi, n, lo, hi) : radix_sort_p32(a, NULL, b, NULL, n, lo, hi);
}

/* radix_sort_any for one whole lane.  A lane of 64-bit keys whose keys all
 * lie within 2^32 of the smallest (int64 labels, counts, indices...) is
 * sorted packed instead, ((key - min) << 32 | position) as the 32-bit
 * dtypes are: one 8-byte word moved per element instead of 12, and at most
 * 4 digits instead of 8.  The result is unpacked back into a and ai (so
 * this returns 0 then); equal keys keep their order, as positions only
 * travel along.  1000x1000 int64 in +-10^9, one thread: 16 ms -> 8 ms. */
/* A whole lane of 64-bit keys (a, positions ai[i] = i) whose range
 * [mn, mx] is wider than 2^32, sorted by the vector sort as packed words:
 * the top 64 - pbits bits of the relative key above the lane position
 * (pbits: what n positions need, 10 for lanes of 1000).  Keys that agree
 * in those bits but not below (values within a few ulps of each other,
 * rare in practice) are sorted afterwards by the full key, in runs that
 * are short; a run over 64 long sends the lane to the radix sort instead.
 * The result is in (b, bi): returns 1.  c is scratch of n words.
 * 1000x1000 float64, one thread: ~15 ms -> ~6 ms. */
static int wide_sort_packed(uint64_t *a, uint32_t *ai, uint64_t *b, uint32_t *bi, uint64_t *c,
                            int64_t n, uint64_t mn, uint64_t mx)
{
  int pbits = 64 - __builtin_clzll((unsigned long long)(n - 1) | 1);
  int rbits = 64 - __builtin_clzll((unsigned long long)(mx - mn));
  int shift = rbits > 64 - pbits ? rbits - (64 - pbits) : 0;
  const uint64_t pmask = ((uint64_t)1 << pbits) - 1;
  for (int64_t i = 0; i < n; i++)
    b[i] = ((a[i] - mn) >> shift) << pbits | (uint64_t)i;
  tl_sort_keys_u64(b, n, c);
  if (shift) {
    for (int64_t j0 = 0, j1; j0 < n; j0 = j1) {
      for (j1 = j0 + 1; j1 < n && (b[j1] ^ b[j0]) <= pmask; j1++)
        ;
      if (j1 - j0 > 64)
        return radix_sort_64(a, ai, b, bi, n, 0, n);
      /* positions ascend within the run: a stable insertion sort by key */
      for (int64_t j = j0 + 1; j < j1; j++) {
        uint64_t x = b[j], kx = a[x & pmask];
        int64_t k = j - 1;
        for (; k >= j0 && a[b[k] & pmask] > kx; k--)
          b[k + 1] = b[k];
        b[k + 1] = x;
      }
    }
  }
  for (int64_t j = 0; j < n; j++) {
    uint32_t pos = (uint32_t)(b[j] & pmask);
    bi[j] = pos;
    b[j] = a[pos];
  }
  return 1;
}

static int radix_sort_lane(bool wide, uint64_t *a, uint32_t *ai, uint64_t *b, uint32_t *bi,
                           uint64_t *c, int64_t n, int64_t lo, int64_t hi, bool simd)
{
  /* Whole sorts of packed words take the vector quicksort (sort_simd.c):
   * the positions in the low bits make every word distinct, so its order
   * is the stable one.  1000x1000 float32, one thread: ~7 ms -> ~3 ms. */
  bool packed_sort = simd && lo == 0 && hi == n && n <= tl_sort_simd_max_lane(); /* see sort_values_only */
  if (!wide && packed_sort) {
    tl_sort_keys_u64(a, n, b);
    return 0;
  }
  if (!wide || n <= TL_SORT_SMALL)
    return radix_sort_any(wide, a, ai, b, bi, n, lo, hi);
  /* The range, block by block: most float64 lanes show a range over 2^32
   * in the first block, and then cost no more than before (the radix path;
   * the vector sort wants the whole range). */
  bool wide_packed = packed_sort && c && n <= ((int64_t)1 << 31);
  uint64_t mn = a[0], mx = a[0];
  for (int64_t i0 = 0; i0 < n; i0 += 64) {
    int64_t i1 = n - i0 < 64 ? n : i0 + 64;
    for (int64_t i = i0; i < i1; i++) {
      mn = a[i] < mn ? a[i] : mn;
      mx = a[i] > mx ? a[i] : mx;
    }
    if (mx - mn > 0xffffffffull && !wide_packed)
      return radix_sort_64(a, ai, b, bi, n, lo, hi);
  }
  if (mx - mn > 0xffffffffull)
    return wide_sort_packed(a, ai, b, bi, c, n, mn, mx);
  for (int64_t i = 0; i < n; i++)
    b[i] = (a[i] - mn) << 32 | ai[i];
  const uint64_t *p = b;
  if (packed_sort)
    tl_sort_keys_u64(b, n, a);
  else
    p = radix_sort_p32(b, NULL, a, NULL, n, lo, hi) ? a : b;
  /* p may be a itself: each slot is read before it is written. */
  for (int64_t i = 0; i < n; i++) {
    uint64_t x = p[i];
    a[i] = (x >> 32) + mn;
    ai[i] = (uint32_t)x;
  }
  return 0;
}

/* Sort one lane on this thread, then emit. */
static void lane_sort_serial(lane_job *job, lane *l, lane_scratch *s)
{
  keys_load(job->in->dtype, l->src, l->step, l->n, 0, job->desc, s->a, s->ai);
  l->a = s->a;
  l->ai = s->ai;
  if (job->plan)
    job->plan(job, l);
  int side = 0;
  if (l->hi > l->lo)
    side = radix_sort_lane(l->wide, s->a, s->ai, s->b, s->bi, s->c, l->n, l->lo, l->hi, job->simd);
  l->a = side ? s->b : s->a;
  l->ai = side ? s->bi : s->ai;
  job->emit(job, l, l->lo, l->hi);
}

/* ---- lanes across the last dim, in groups ----------------------------------------
 * Sorting along a dim other than the last one, consecutive lanes sit side by
 * side in memory, one element apart.  Reading or writing one lane at a time
 * then touches a new cache line per element; instead a group of adjacent
 * lanes is transposed into contiguous rows, sorted row by row, and the
 * results transposed back, so every line is read and written whole.        */
#define TL_SORT_GROUP 16

/* dst[r * dst_rs + c * dst_cs] = src[r * src_rs + c * src_cs] (bytes) for an
 * rows x cols block of esize-byte elements. */
static void transpose_block(char *dst, int64_t dst_rs, int64_t dst_cs, const char *src, int64_t src_rs,
                            int64_t src_cs, int64_t rows, int64_t cols, size_t esize)
{
  for (int64_t r = 0; r < rows; r++)
    for (int64_t c = 0; c < cols; c++) {
      char *d = dst + r * dst_rs + c * dst_cs;
      const char *s = src + r * src_rs + c * src_cs;
      switch (esize) {
      case 1: memcpy(d, s, 1); break;
      case 2: memcpy(d, s, 2); break;
      case 4: memcpy(d, s, 4); break;
      default: memcpy(d, s, 8); break;
      }
    }
}

/* Can lanes be grouped?  Only for sort, along a dim other than the last, with
 * the last dim contiguous in the input and the outputs. */
static bool lanes_groupable(const lane_job *job)
{
  const tl_tensor *in = job->in;
  int last = in->ndim - 1;
  if (!job->group_indices || in->ndim < 2 || job->dim == last || in->strides[last] != 1)
    return false;
  if (job->group_values && job->group_values->strides[last] != 1)
    return false;
  return job->group_indices->strides[last] == 1;
}

static void lanes_task_grouped(lane_job *job, int64_t begin, int64_t end, lane_scratch *s)
{
  const tl_tensor *in = job->in;
  tl_dtype dt = in->dtype;
  size_t esize = tl_dtype_size(dt);
  int64_t n = lane_length(in, job->dim), width = in->shape[in->ndim - 1];
  char *tmp = malloc((size_t)TL_SORT_GROUP * (size_t)n * (2 * esize + 8));
  if (!tmp) {
    __atomic_store_n(&job->failed, 1, __ATOMIC_RELAXED);
    return;
  }
  char *rows_in = tmp, *rows_v = tmp + TL_SORT_GROUP * n * (int64_t)esize;
  char *rows_i = rows_v + TL_SORT_GROUP * n * (int64_t)esize;
  for (int64_t i = begin; i < end;) {
    int64_t g = TL_SORT_GROUP;
    g = g < end - i ? g : end - i;
    g = g < width - i % width ? g : width - i % width;
    lane first;
    lane_begin(job, &first, i);
    /* rows_in[k][p] = lane i + k at position p */
    transpose_block(rows_in, (int64_t)esize, n * (int64_t)esize, first.src, first.step,
                    (int64_t)esize, n, g, esize);
    for (int64_t k = 0; k < g; k++) {
      lane l = first;
      l.lane = i + k;
      l.src = rows_in + k * n * (int64_t)esize;
      l.step = (int64_t)esize;
      keys_load(dt, l.src, l.step, n, 0, job->desc, s->a, s->ai);
      int side = radix_sort_lane(l.wide, s->a, s->ai, s->b, s->bi, s->c, n, 0, n, job->simd);
      l.a = side ? s->b : s->a;
      l.ai = side ? s->bi : s->ai;
      if (job->group_values)
        values_store(dt, &l, 0, n, job->desc, rows_v + k * n * (int64_t)esize, (int64_t)esize);
      indices_store(&l, 0, n, rows_i + k * n * 8, 8);
    }
    const tl_tensor *vo = job->group_values, *io = job->group_indices;
    int d = job->dim;
    if (vo)
      transpose_block(lane_ptr(vo, d, i), vo->strides[d] * (int64_t)esize, (int64_t)esize, rows_v,
                      (int64_t)esize, n * (int64_t)esize, n, g, esize);
    transpose_block(lane_ptr(io, d, i), io->strides[d] * 8, 8, rows_i, 8, n * 8, n, g, 8);
    i += g;
  }
  free(tmp);
}

static void lanes_task(void *ctx, int64_t begin, int64_t end, int worker)
{
  (void)worker;
  lane_job *job = ctx;
  lane_scratch s;
  if (!scratch_alloc(&s, lane_length(job->in, job->dim), tl_sort_key_wide(job->in->dtype))) {
    __atomic_store_n(&job->failed, 1, __ATOMIC_RELAXED);
    return;
  }
  if (lanes_groupable(job)) {
    lanes_task_grouped(job, begin, end, &s);
  } else {
    for (int64_t i = begin; i < end; i++) {
      lane l;
      lane_begin(job, &l, i);
      if (i + 1 < end)
        lane_prefetch(l.src + l.n * l.step, l.step, l.n); /* contiguous rows: the next one */
      lane_sort_serial(job, &l, &s);
    }
  }
  scratch_free(&s);
}

/* ---- one long lane on the whole pool ---------------------------------------------
 * Keys go from the input straight into buckets: a histogram of the top
 * TL_SORT_FINE_BITS differing key bits per input chunk, adjacent fine digits
 * merged into buckets of about TL_SORT_BUCKET elements, one stable scatter
 * (chunk offsets laid out bucket-major, then chunk), then each bucket sorted
 * and emitted by one thread while it is still in that core's cache.  Buckets
 * go to tasks in groups of about equal element counts.
 * Where the time goes (10^7 float32, one thread, after tuning): histogram
 * 12 ms, scatter 25 ms, buckets 38 ms; two passes over memory (histogram,
 * scatter) beat one pass that appends to blocks of a separate pool, which
 * was measured slower: the extra 80 MB it touches cost more than the
 * histogram pass it saves.                                                 */
typedef struct {
  lane_job *job;
  lane *l;
  uint64_t *a; /* n elements: the scatter's destination */
  uint32_t *ai;
  int nchunks;
  int64_t chunk;
  int shift;
  uint32_t fmask;
  uint64_t *diff;   /* [nchunks]: OR of key ^ first key */
  uint64_t first;
  /* From the histogram on, keys are taken relative to key_off (so that the
   * differing bits are few, see range_base), and a lane of 64-bit keys
   * whose relative keys fit 32 bits is sorted packed, (key << 32 | position)
   * as the narrower dtypes are: one 8-byte word moved per element.  Both
   * are undone per bucket before emitting. */
  uint64_t key_off;
  bool ranged; /* key_off is the exact smallest key (range_base) */
  bool packed_wide;
  uint64_t *lo_key, *hi_key; /* [nchunks]: range_base's per-chunk extremes */
  uint32_t *hist;   /* [nchunks][fmask + 1] */
  uint32_t *map;    /* fine digit -> bucket */
  uint32_t *dfirst; /* [nbuckets + 1]: each bucket's first fine digit */
  int64_t *pos;     /* [nchunks][nbuckets] */
  int64_t *starts;  /* [nbuckets + 1] */
  int64_t nbuckets;
  int64_t *groups;  /* bucket boundaries of the sorting tasks */
  int failed;
} big_sort;

static inline uint64_t elem_key(bool wide, uint64_t x) { return wide ? x : x >> 32; }

#define TL_SORT_BLOCK 4096

/* Are this sort's elements packed (key << 32 | position)? */
static inline bool big_packed(const big_sort *c) { return !c->l->wide || c->packed_wide; }

/* Loaded elements (a, ai from keys_load) as the sort moves them: keys less
 * key_off, packed when big_packed; the relative keys' bits that differ from
 * first's go into *diff.  Computed in 64 bits before packing, so a key that
 * the sample's guess of key_off does not fit shows in *diff. */
static inline void big_elements(const big_sort *c, uint64_t *a, const uint32_t *ai, int64_t m,
                                uint64_t *diff)
{
  const uint64_t off = c->key_off, first = c->first - off;
  uint64_t d = 0;
  if (!c->l->wide && !off) { /* the common case: the elements as loaded */
    for (int64_t i = 0; i < m; i++)
      d |= (a[i] >> 32) ^ first;
  } else if (!c->l->wide) {
    for (int64_t i = 0; i < m; i++) {
      uint64_t r = (a[i] >> 32) - off;
      d |= r ^ first;
      a[i] = r << 32 | (uint32_t)a[i];
    }
  } else if (c->packed_wide) {
    for (int64_t i = 0; i < m; i++) {
      uint64_t r = a[i] - off;
      d |= r ^ first;
      a[i] = r << 32 | ai[i];
    }
  } else {
    for (int64_t i = 0; i < m; i++) {
      a[i] -= off;
      d |= a[i] ^ first;
    }
  }
  *diff |= d;
}

/* The fine histogram of each chunk, and (in diff[]) the exact differing bits,
 * which tell whether the shift guessed from a sample was right. */
static void big_hist(void *ctx, int64_t begin, int64_t end, int worker)
{
  (void)worker;
  big_sort *c = ctx;
  uint64_t a[TL_SORT_BLOCK];
  uint32_t ai[TL_SORT_BLOCK];
  /* Locals: the counters are uint32_t, as are these fields, and the compiler
   * would reload them after every increment. */
  const int shift = c->shift + (big_packed(c) ? 32 : 0);
  const uint32_t fmask = c->fmask;
  for (int64_t t = begin; t < end; t++) {
    uint32_t *h = c->hist + t * (int64_t)(fmask + 1);
    memset(h, 0, sizeof *h * (fmask + 1));
    uint64_t diff = 0;
    int64_t i0 = t * c->chunk, i1 = i0 + c->chunk < c->l->n ? i0 + c->chunk : c->l->n;
    for (int64_t b = i0; b < i1; b += TL_SORT_BLOCK) {
      int64_t m = i1 - b < TL_SORT_BLOCK ? i1 - b : TL_SORT_BLOCK;
      keys_load(c->job->in->dtype, c->l->src + b * c->l->step, c->l->step, m, b, c->job->desc, a, ai);
      big_elements(c, a, ai, m, &diff);
      for (int64_t i = 0; i < m; i++)
        h[(uint32_t)(a[i] >> shift) & fmask]++;
    }
    c->diff[t] = diff;
  }
}

/* Each chunk's count of elements in each bucket (into pos). */
static void big_counts(void *ctx, int64_t begin, int64_t end, int worker)
{
  (void)worker;
  big_sort *c = ctx;
  int64_t nb = c->nbuckets, nfine = (int64_t)c->fmask + 1;
  for (int64_t t = begin; t < end; t++) {
    int64_t *row = c->pos + t * nb;
    const uint32_t *h = c->hist + t * nfine;
    memset(row, 0, sizeof(int64_t) * (size_t)nb);
    for (int64_t dgt = 0; dgt < nfine; dgt++)
      row[c->map[dgt]] += h[dgt];
  }
}

/* Packed elements are scattered through a buffer of TL_WC elements (four
 * cache lines) per bucket: a full buffer goes out in streaming stores, which
 * skip reading the destination first and keep the 8-byte writes to hundreds
 * of buckets from thrashing the cache.  Four lines rather than one: the
 * "buffer full" branch is taken at random, and mispredicted, once per
 * TL_WC elements (measured: 8 -> 32 cut the scatter by a quarter).  Slots
 * that a bucket shares with a neighbouring region (its first and last
 * buffers) are written element by element. */
#define TL_WC 32
typedef struct {
  _Alignas(64) uint64_t v[TL_WC];
} wc_line;

static inline void wc_flush(uint64_t *dst, const wc_line *line, int64_t first, int64_t end)
{
  /* dst: the 64-byte aligned destination line; slots [first, end) are ours */
#if defined(__SSE2__)
  if (first == 0 && end == TL_WC) {
    const __m128i *s = (const __m128i *)line->v;
    __m128i *d = (__m128i *)dst;
    for (int k = 0; k < TL_WC / 2; k++)
      _mm_stream_si128(d + k, _mm_load_si128(s + k));
    return;
  }
#endif
  for (int64_t k = first; k < end; k++)
    dst[k] = line->v[k];
}

static void big_scatter(void *ctx, int64_t begin, int64_t end, int worker)
{
  (void)worker;
  big_sort *c = ctx;
  uint64_t a[TL_SORT_BLOCK];
  uint32_t ai[TL_SORT_BLOCK];
  bool wide = !big_packed(c);
  const uint32_t *map = c->map;
  uint64_t *dst = c->a;
  uint32_t *dst_i = c->ai;
  int shift = c->shift + (wide ? 0 : 32);
  uint64_t ignored = 0;
  uint32_t fmask = c->fmask;
  int64_t nb = c->nbuckets;
  /* Streaming needs a line-aligned destination; the scratch and the storage
   * allocator give one, anything else takes the plain path. */
  bool stream = !wide && ((uintptr_t)dst & 63) == 0;
  wc_line *lines = stream ? aligned_alloc(64, sizeof(wc_line) * (size_t)nb) : NULL;
  int64_t *first = stream ? malloc(sizeof(int64_t) * (size_t)nb) : NULL;
  if (stream && (!lines || !first)) {
    free(lines);
    free(first);
    lines = NULL;
    first = NULL;
    stream = false;
  }
  for (int64_t t = begin; t < end; t++) {
    int64_t *pos = c->pos + t * nb;
    int64_t i0 = t * c->chunk, i1 = i0 + c->chunk < c->l->n ? i0 + c->chunk : c->l->n;
    if (stream)
      for (int64_t b = 0; b < nb; b++)
        first[b] = pos[b];
    for (int64_t b = i0; b < i1; b += TL_SORT_BLOCK) {
      int64_t m = i1 - b < TL_SORT_BLOCK ? i1 - b : TL_SORT_BLOCK;
      keys_load(c->job->in->dtype, c->l->src + b * c->l->step, c->l->step, m, b, c->job->desc, a, ai);
      big_elements(c, a, ai, m, &ignored);
      if (wide) {
        for (int64_t i = 0; i < m; i++) {
          int64_t p = pos[map[(uint32_t)(a[i] >> shift) & fmask]]++;
          dst[p] = a[i];
          dst_i[p] = ai[i];
        }
      } else if (stream) {
        for (int64_t i = 0; i < m; i++) {
          uint32_t bk = map[(uint32_t)(a[i] >> shift) & fmask];
          int64_t p = pos[bk]++;
          lines[bk].v[p & (TL_WC - 1)] = a[i];
          if ((p & (TL_WC - 1)) == TL_WC - 1) {
            int64_t line0 = p - (TL_WC - 1);
            wc_flush(dst + line0, &lines[bk], first[bk] > line0 ? first[bk] - line0 : 0, TL_WC);
          }
        }
      } else {
        for (int64_t i = 0; i < m; i++) {
          int64_t p = pos[map[(uint32_t)(a[i] >> shift) & fmask]]++;
          dst[p] = a[i];
        }
      }
    }
    if (stream) /* the partly filled last line of each bucket */
      for (int64_t b = 0; b < nb; b++) {
        int64_t p = pos[b], line0 = p & ~(int64_t)(TL_WC - 1);
        if (p & (TL_WC - 1))
          wc_flush(dst + line0, &lines[b], first[b] > line0 ? first[b] - line0 : 0, p & (TL_WC - 1));
      }
  }
#if defined(__SSE2__)
  if (stream)
    _mm_sfence(); /* streaming stores are weakly ordered: drain them */
#endif
  free(lines);
  free(first);
}

/* The common bucket of the long-lane sort: packed elements whose keys differ
 * only in their low `bits` bits (12 to 22), sorted by two LSD passes, a to b
 * and b back to a (lsd_sort_p32 with the pass count fixed, so the digit
 * loops are simple).  The bucket arrives from memory (the scatter's
 * streaming stores bypass the caches), so while its passes run in the cache
 * the next bucket (next[0, nnext)) is prefetched, a line per 8 elements. */
static void bucket_sort2_p32(uint64_t *a, uint64_t *b, int64_t n, int bits, const uint64_t *next,
                             int64_t nnext)
{
  const int w0 = bits / 2, w1 = bits - w0;
  const uint32_t m0 = (1u << w0) - 1, m1 = (1u << w1) - 1;
  /* Two sets of counters, for even and odd elements: equal digits close
   * together then update different counters, which keeps the increments
   * from waiting on each other. */
  uint32_t c0[2][1 << TL_RADIX_BITS], c1[2][1 << TL_RADIX_BITS];
  memset(c0[0], 0, sizeof(uint32_t) * (m0 + 1));
  memset(c0[1], 0, sizeof(uint32_t) * (m0 + 1));
  memset(c1[0], 0, sizeof(uint32_t) * (m1 + 1));
  memset(c1[1], 0, sizeof(uint32_t) * (m1 + 1));
  int64_t pair = 0;
  for (; pair + 1 < n; pair += 2) {
    uint32_t k = (uint32_t)(a[pair] >> 32), q = (uint32_t)(a[pair + 1] >> 32);
    c0[0][k & m0]++;
    c1[0][(k >> w0) & m1]++;
    c0[1][q & m0]++;
    c1[1][(q >> w0) & m1]++;
  }
  if (pair < n) {
    uint32_t k = (uint32_t)(a[pair] >> 32);
    c0[0][k & m0]++;
    c1[0][(k >> w0) & m1]++;
  }
  uint32_t s0 = 0, s1 = 0;
  for (uint32_t d = 0; d <= m0; d++) {
    uint32_t t = c0[0][d] + c0[1][d];
    c0[0][d] = s0;
    s0 += t;
  }
  for (uint32_t d = 0; d <= m1; d++) {
    uint32_t t = c1[0][d] + c1[1][d];
    c1[0][d] = s1;
    s1 += t;
  }
  for (int64_t i = 0; i < n; i++) {
    if ((i & 7) == 0 && i < nnext)
      __builtin_prefetch(next + i, 0, 2);
    uint64_t x = a[i];
    b[c0[0][(uint32_t)(x >> 32) & m0]++] = x;
  }
  for (int64_t i = 0; i < n; i++) {
    if ((i & 7) == 0 && n + i < nnext)
      __builtin_prefetch(next + n + i, 0, 2);
    uint64_t x = b[i];
    a[c1[0][(uint32_t)(x >> (32 + w0)) & m1]++] = x;
  }
}

/* Bucket [s, s + n) back in the lane's own form (what big_elements did, undone). */
static void big_restore(const big_sort *c, int64_t s, int64_t n)
{
  uint64_t *a = c->a + s;
  const uint64_t off = c->key_off;
  if (c->packed_wide) {
    for (int64_t i = 0; i < n; i++) {
      c->ai[s + i] = (uint32_t)a[i];
      a[i] = (a[i] >> 32) + off;
    }
  } else if (off) {
    const uint64_t add = c->l->wide ? off : off << 32;
    for (int64_t i = 0; i < n; i++)
      a[i] += add;
  }
}

static void big_buckets(void *ctx, int64_t begin, int64_t end, int worker)
{
  (void)worker;
  big_sort *c = ctx;
  lane *l = c->l;
  bool wide = !big_packed(c);
  int64_t most = 0;
  for (int64_t d = c->groups[begin]; d < c->groups[end]; d++)
    most = c->starts[d + 1] - c->starts[d] > most ? c->starts[d + 1] - c->starts[d] : most;
  void *mem = sort_alloc(most, wide);
  if (!mem) {
    __atomic_store_n(&c->failed, 1, __ATOMIC_RELAXED);
    return;
  }
  uint64_t *b = mem;
  uint32_t *bi = wide ? (uint32_t *)(b + (most ? most : 1)) : NULL;
  for (int64_t d = c->groups[begin]; d < c->groups[end]; d++) {
    int64_t s = c->starts[d], n = c->starts[d + 1] - s;
    if (n == 0 || s + n <= l->lo || s >= l->hi)
      continue;
    int64_t blo = l->lo > s ? l->lo - s : 0, bhi = l->hi - s < n ? l->hi - s : n;
    /* The bucket's keys agree above its digits' span: that bounds the bits
     * to sort, and saves the pass that would measure them. */
    uint32_t span = c->dfirst[d] ^ (c->dfirst[d + 1] - 1);
    int bits = c->shift + (span ? 32 - __builtin_clz(span) : 0);
    int side = 0;
    if (!wide && n > TL_SORT_SMALL && n <= TL_SORT_LSD_MAX && bits > TL_RADIX_BITS &&
        bits <= 2 * TL_RADIX_BITS) {
      int64_t ns = c->starts[d + 1], nn = d + 1 < c->groups[end] ? c->starts[d + 2] - ns : 0;
      bucket_sort2_p32(c->a + s, b, n, bits, c->a + ns, nn);
    } else if (n > TL_SORT_SMALL && n <= TL_SORT_LSD_MAX && bits > 0)
      side = wide ? lsd_sort_64(c->a + s, c->ai + s, b, bi, n, bits)
                  : lsd_sort_p32(c->a + s, NULL, b, NULL, n, bits);
    else
      side = radix_sort_any(wide, c->a + s, wide ? c->ai + s : NULL, b, bi, n, blo, bhi);
    if (side == 1) {
      memcpy(c->a + s, b, (size_t)n * sizeof *b);
      if (wide)
        memcpy(c->ai + s, bi, (size_t)n * sizeof *bi);
    }
    big_restore(c, s, n);
    if (c->job->emit_chunks)
      c->job->emit(c->job, l, s + blo, s + bhi);
  }
  free(mem);
}

/* Each chunk's smallest and largest key. */
static void big_range(void *ctx, int64_t begin, int64_t end, int worker)
{
  (void)worker;
  big_sort *c = ctx;
  uint64_t a[TL_SORT_BLOCK];
  uint32_t ai[TL_SORT_BLOCK];
  for (int64_t t = begin; t < end; t++) {
    uint64_t lo = UINT64_MAX, hi = 0;
    int64_t i0 = t * c->chunk, i1 = i0 + c->chunk < c->l->n ? i0 + c->chunk : c->l->n;
    for (int64_t b = i0; b < i1; b += TL_SORT_BLOCK) {
      int64_t m = i1 - b < TL_SORT_BLOCK ? i1 - b : TL_SORT_BLOCK;
      keys_load(c->job->in->dtype, c->l->src + b * c->l->step, c->l->step, m, b, c->job->desc, a, ai);
      for (int64_t i = 0; i < m; i++) {
        uint64_t k = elem_key(c->l->wide, a[i]);
        lo = k < lo ? k : lo;
        hi = k > hi ? k : hi;
      }
    }
    c->lo_key[t] = lo;
    c->hi_key[t] = hi;
  }
}

/* Keys that straddle a power of two differ in bits far above their range:
 * int64 values in +-1e9 have sign-flipped keys 0x7fff... and 0x8000...,
 * which share no top bits, so bucketing by the top differing bits would
 * make two buckets.  When a sample says the range (max - min) is at least
 * four bits narrower than the differing bits, one more pass finds the exact
 * smallest key, which becomes the base all keys are taken relative to; the
 * differing bits returned are then the range's. */
static uint64_t range_base(big_sort *c, const uint64_t *sample, int64_t m, uint64_t diff)
{
  uint64_t lo = UINT64_MAX, hi = 0;
  for (int64_t i = 0; i < m; i++) {
    uint64_t k = elem_key(c->l->wide, sample[i]);
    lo = k < lo ? k : lo;
    hi = k > hi ? k : hi;
  }
  int bits = diff ? 64 - __builtin_clzll((unsigned long long)diff) : 0;
  int range = hi > lo ? 64 - __builtin_clzll((unsigned long long)(hi - lo)) : 0;
  if (bits - range < 4 || !(c->lo_key = malloc(sizeof(uint64_t) * 2 * (size_t)c->nchunks)))
    return diff;
  c->hi_key = c->lo_key + c->nchunks;
  tl_parallel_for(c->nchunks, 1, big_range, c);
  lo = UINT64_MAX;
  hi = 0;
  for (int t = 0; t < c->nchunks; t++) {
    lo = c->lo_key[t] < lo ? c->lo_key[t] : lo;
    hi = c->hi_key[t] > hi ? c->hi_key[t] : hi;
  }
  free(c->lo_key);
  c->lo_key = c->hi_key = NULL;
  c->key_off = lo;
  c->ranged = true;
  range = hi > lo ? 64 - __builtin_clzll((unsigned long long)(hi - lo)) : 0;
  return range ? ~(uint64_t)0 >> (64 - range) : 0;
}

/* Sort and emit lane l with the pool; a (and ai when wide) hold n elements. */
static bool lane_sort_parallel(lane_job *job, lane *l, uint64_t *a, uint32_t *ai)
{
  int threads = tl_parallel_get_threads();
  big_sort c = {.job = job, .l = l, .a = a, .ai = ai};
  c.nchunks = 4 * threads;
  c.chunk = (l->n + c.nchunks - 1) / c.nchunks;
  /* Plans look at the keys; they get them before the sort, in input order. */
  if (job->plan) {
    keys_load(job->in->dtype, l->src, l->step, l->n, 0, job->desc, a, ai);
    l->a = a;
    l->ai = ai;
    job->plan(job, l);
    if (l->hi <= l->lo) {
      job->emit(job, l, l->lo, l->hi);
      return true;
    }
  }
  uint64_t first[1];
  uint32_t first_i[1];
  keys_load(job->in->dtype, l->src, l->step, 1, 0, job->desc, first, first_i);
  c.first = elem_key(l->wide, first[0]);
  /* Which key bits differ: guessed from a sample, checked by the histogram
   * pass, which is redone in the rare case that the sample missed some. */
  uint64_t diffs[4 * 256], diff = 0;
  c.diff = diffs;
  {
    uint64_t sample[TL_SORT_BLOCK];
    uint32_t sample_i[TL_SORT_BLOCK];
    int64_t every = l->n / TL_SORT_BLOCK > 1 ? l->n / TL_SORT_BLOCK : 1;
    int64_t m = (l->n + every - 1) / every;
    m = m < TL_SORT_BLOCK ? m : TL_SORT_BLOCK;
    keys_load(job->in->dtype, l->src, l->step * every, m, 0, job->desc, sample, sample_i);
    for (int64_t i = 0; i < m; i++)
      diff |= elem_key(l->wide, sample[i]) ^ c.first;
    diff = range_base(&c, sample, m, diff);
  }
  bool ok = false;
  c.hist = malloc(sizeof(uint32_t) * ((size_t)c.nchunks << TL_SORT_FINE_BITS));
  c.map = malloc(sizeof(uint32_t) * ((size_t)1 << TL_SORT_FINE_BITS));
  c.dfirst = malloc(sizeof(uint32_t) * (((size_t)1 << TL_SORT_FINE_BITS) + 1));
  c.starts = malloc(sizeof(int64_t) * (((size_t)1 << TL_SORT_FINE_BITS) + 1));
  c.pos = malloc(sizeof(int64_t) * ((size_t)c.nchunks << TL_SORT_FINE_BITS));
  c.groups = malloc(sizeof(int64_t) * (size_t)(4 * threads + 2));
  if (!c.hist || !c.map || !c.dfirst || !c.starts || !c.pos || !c.groups)
    goto done;
  for (;;) {
    int bits = diff ? 64 - __builtin_clzll((unsigned long long)diff) : 0;
    int fine = bits < TL_SORT_FINE_BITS ? bits : TL_SORT_FINE_BITS;
    c.shift = bits - fine;
    c.fmask = (1u << fine) - 1;
    /* 64-bit keys that differ in at most 32 bits go packed, relative to the
     * exact smallest key or else to the bits all keys share with the first */
    c.packed_wide = l->wide && bits <= 32;
    if (!c.ranged)
      c.key_off = c.packed_wide ? c.first & ~((UINT64_C(1) << bits) - 1) : 0;
    tl_parallel_for(c.nchunks, 1, big_hist, &c);
    uint64_t exact = 0;
    for (int t = 0; t < c.nchunks; t++)
      exact |= diffs[t];
    if ((exact | diff) == diff)
      break;
    /* The sample missed some bits.  Relative to a guessed key_off, the bits
     * measured are not those of the keys themselves: take them all. */
    diff = c.key_off && !c.ranged ? ~UINT64_C(0) : diff | exact;
  }
  int64_t nfine = (int64_t)c.fmask + 1;
  int64_t nb = tl_sort_plan_buckets(c.hist, c.nchunks, nfine, TL_SORT_BUCKET, c.map, c.dfirst,
                                    c.starts);
  c.nbuckets = nb;
  tl_parallel_for(c.nchunks, 1, big_counts, &c);
  tl_sort_chunk_offsets(c.pos, c.starts, c.nchunks, nb);
  tl_parallel_for(c.nchunks, 1, big_scatter, &c);
  l->a = a;
  l->ai = ai;
  int g = tl_sort_group_buckets(c.starts, nb, l->n, 4 * threads, c.groups);
  tl_parallel_for(g, 1, big_buckets, &c);
  if (c.failed)
    goto done;
  if (!job->emit_chunks)
    job->emit(job, l, l->lo, l->hi);
  ok = true;
done:
  free(c.hist);
  free(c.map);
  free(c.dfirst);
  free(c.starts);
  free(c.pos);
  free(c.groups);
  return ok;
}

static tl_status lanes_sort(lane_job *job)
{
  const tl_tensor *in = job->in;
  int64_t n = lane_length(in, job->dim), numel = tl_tensor_numel(in);
  if (n == 0 || numel == 0)
    return TL_OK;
  if (n > (int64_t)UINT32_MAX)
    return tl_error_set(TL_ERR_NOT_IMPLEMENTED, "sorting a dim of %lld elements (over 2^32) is "
                        "not supported", (long long)n);
  int64_t nlanes = numel / n;
  bool wide = tl_sort_key_wide(in->dtype);
  job->failed = 0;
  /* One thread sorting a whole lane of 64-bit keys: the vector sort of
   * packed words (radix_sort_lane) beats the long-lane plan, which is built
   * to spread one lane over the pool (10^6 float64, values and indices:
   * ~27 ms -> ~22 ms).  Up to 2^21 elements: past that its partitions
   * stream more memory than the plan's two passes (4 * 10^6: ~150 ms
   * against ~110), and its scratch is 32 bytes an element, the plan's 12.
   * AVX-512 only: AVX2's vector sort is no faster than the plan here
   * (10^6 float64: ~49 ms against ~40). */
  bool vector_lane = wide && job->simd && tl_sort_simd_avx512() && !job->plan &&
                     tl_parallel_get_threads() == 1 && n <= ((int64_t)1 << 21);
  if (n >= TL_SORT_PARALLEL_MIN && nlanes <= tl_parallel_get_threads() && !vector_lane) {
    void *mem = NULL;
    bool ok = true;
    for (int64_t i = 0; i < nlanes && ok; i++) {
      lane l;
      lane_begin(job, &l, i);
      uint64_t *a = !wide && job->inplace ? job->inplace(job, i) : NULL;
      uint32_t *ai = NULL;
      if (!a) {
        if (!mem && !(mem = sort_alloc(n, wide))) {
          ok = false;
          break;
        }
        a = mem;
        ai = wide ? (uint32_t *)(a + n) : NULL;
      }
      ok = lane_sort_parallel(job, &l, a, ai);
    }
    free(mem);
    if (!ok)
      return tl_error_set(TL_ERR_MEMORY, "out of memory sorting %lld elements", (long long)n);
    return TL_OK;
  }
  int64_t grain = n >= 4096 ? 1 : 4096 / n;
  tl_parallel_for(nlanes, grain, lanes_task, job);
  if (job->failed)
    return tl_error_set(TL_ERR_MEMORY, "out of memory sorting lanes of %lld elements",
                        (long long)n);
  return TL_OK;
}

/* Every sort of the family runs here, without the GIL when long enough. */
static tl_status lanes_run(lane_job *job)
{
  tl_unlocked unlocked = tl_parallel_unlock(tl_tensor_numel(job->in));
  job->simd = tl_sort_simd_available();
  tl_status st = lanes_sort(job);
  tl_parallel_relock(&unlocked);
  return st;
}

/* ---- outputs -------------------------------------------------------------------- */

/* Outputs of the sort family: where lane `lane` starts and its step (bytes). */
typedef struct {
  tl_tensor *values, *indices;
  int skip; /* the sorted dim in the outputs, or -1 when it was removed */
  int64_t k;
  bool ignore_nan;
} pair_out;

static void out_lane(const tl_tensor *t, const pair_out *o, int64_t lane, char **p, int64_t *step)
{
  *p = lane_ptr(t, o->skip, lane);
  *step = (o->skip >= 0 && t->ndim) ? t->strides[o->skip] * (int64_t)tl_dtype_size(t->dtype) : 0;
}

/* sort and topk: sorted positions j land at output position j. */
static void emit_sorted(const lane_job *job, const lane *l, int64_t j0, int64_t j1)
{
  const pair_out *o = job->ctx;
  char *p;
  int64_t step;
  if (o->values) {
    out_lane(o->values, o, l->lane, &p, &step);
    values_store(job->in->dtype, l, j0, j1, job->desc, p + j0 * step, step);
  }
  if (o->indices) {
    out_lane(o->indices, o, l->lane, &p, &step);
    indices_store(l, j0, j1, p + j0 * step, step);
  }
}

/* The long-lane sort may work inside the lane's int64 indices output. */
static uint64_t *sort_inplace(const lane_job *job, int64_t lane)
{
  const pair_out *o = job->ctx;
  char *p;
  int64_t step;
  out_lane(o->indices, o, lane, &p, &step);
  return step == 8 ? (uint64_t *)p : NULL;
}

/* ---- values only ------------------------------------------------------------------
 * NumPy's np.sort and torch.msort want no positions.  Each lane's keys go
 * into a scratch array of bare 32- or 64-bit keys (half or two thirds of
 * the bytes of (key, position) pairs, and no index output), which
 * sort_simd.c sorts in place (unstable: equal keys are indistinguishable),
 * and are decoded into the output, reversed when descending.  Float keys
 * are not one-to-one (every NaN has the all-ones key, -0.0 the key of
 * +0.0: sort_keys.h), so a lane that holds a NaN or a -0.0 has the runs of
 * those two keys refilled from the input in input order: exactly what a
 * stable sort gives, bit for bit. */

/* Is the float element's bit pattern lost in its key (a NaN or -0.0)? */
static inline uint32_t special_f32(uint32_t u) { return (u == 0x80000000u) | ((u & 0x7fffffffu) > 0x7f800000u); }
static inline uint64_t special_f64(uint64_t u)
{
  return (u == 0x8000000000000000ull) | ((u & 0x7fffffffffffffffull) > 0x7ff0000000000000ull);
}

/* Keys of the n elements at src; returns whether any is special. */
TL_SIMD_CLONES static bool vkeys32(tl_dtype d, const char *src, int64_t step, int64_t n, uint32_t *k)
{
  uint32_t special = 0;
  if (d == TL_DTYPE_F32 && step == 4) { /* spelled out so that it vectorises */
    const uint32_t *u = (const uint32_t *)src;
    for (int64_t i = 0; i < n; i++) {
      k[i] = tl_key_f32(u[i]);
      special |= special_f32(u[i]);
    }
  } else if (d == TL_DTYPE_I32 && step == 4) {
    const uint32_t *u = (const uint32_t *)src;
    for (int64_t i = 0; i < n; i++)
      k[i] = u[i] ^ 0x80000000u;
  } else if (d == TL_DTYPE_F32) {
    for (int64_t i = 0; i < n; i++) {
      uint32_t u;
      memcpy(&u, src + i * step, 4);
      k[i] = tl_key_f32(u);
      special |= special_f32(u);
    }
  } else {
    /* f16/bf16 keys: the zero key is 0x8000, NaN's 0xffff */
    bool half = d == TL_DTYPE_F16 || d == TL_DTYPE_BF16;
    for (int64_t i = 0; i < n; i++) {
      k[i] = (uint32_t)tl_sort_key(d, src + i * step);
      if (half) {
        uint16_t u;
        memcpy(&u, src + i * step, 2);
        special |= k[i] == 0xffffu || u == 0x8000u;
      }
    }
  }
  return special != 0;
}

TL_SIMD_CLONES static bool vkeys64(tl_dtype d, const char *src, int64_t step, int64_t n, uint64_t *k)
{
  uint64_t special = 0;
  const uint64_t sign = d == TL_DTYPE_I64 ? 0x8000000000000000ull : 0;
  if (d == TL_DTYPE_F64 && step == 8) {
    const uint64_t *u = (const uint64_t *)src;
    for (int64_t i = 0; i < n; i++) {
      k[i] = tl_key_f64(u[i]);
      special |= special_f64(u[i]);
    }
  } else if (d == TL_DTYPE_F64) {
    for (int64_t i = 0; i < n; i++) {
      uint64_t u;
      memcpy(&u, src + i * step, 8);
      k[i] = tl_key_f64(u);
      special |= special_f64(u);
    }
  } else if (step == 8) {
    const uint64_t *u = (const uint64_t *)src;
    for (int64_t i = 0; i < n; i++)
      k[i] = u[i] ^ sign;
  } else {
    for (int64_t i = 0; i < n; i++) {
      uint64_t u;
      memcpy(&u, src + i * step, 8);
      k[i] = u ^ sign;
    }
  }
  return special != 0;
}

/* The sorted keys k[0..n) as values at dst (step dstep), reversed when desc. */
TL_SIMD_CLONES static void vdecode32(tl_dtype d, const uint32_t *k, int64_t n, bool desc, char *dst,
                                     int64_t dstep)
{
  size_t size = tl_dtype_size(d);
  if (size == 4 && dstep == 4 && !desc) { /* the common cases, in loops that vectorise */
    uint32_t *o = (uint32_t *)dst;
    if (d == TL_DTYPE_F32)
      for (int64_t j = 0; j < n; j++)
        o[j] = tl_unkey_f32(k[j]);
    else
      for (int64_t j = 0; j < n; j++)
        o[j] = k[j] ^ (d == TL_DTYPE_I32 ? 0x80000000u : 0);
    return;
  }
  uint32_t sign = narrow_sign(d);
  bool half = d == TL_DTYPE_F16 || d == TL_DTYPE_BF16;
  for (int64_t j = 0; j < n; j++) {
    uint32_t u = d == TL_DTYPE_F32 ? tl_unkey_f32(k[j]) : half ? tl_unkey_16(k[j]) : k[j] ^ sign;
    char *p = dst + (desc ? n - 1 - j : j) * dstep;
    store_narrow(p, u, size);
  }
}

TL_SIMD_CLONES static void vdecode64(tl_dtype d, const uint64_t *k, int64_t n, bool desc, char *dst,
                                     int64_t dstep)
{
  const uint64_t sign = d == TL_DTYPE_I64 ? 0x8000000000000000ull : 0;
  if (dstep == 8 && !desc) {
    uint64_t *o = (uint64_t *)dst;
    if (d == TL_DTYPE_F64)
      for (int64_t j = 0; j < n; j++)
        o[j] = tl_unkey_f64(k[j]);
    else
      for (int64_t j = 0; j < n; j++)
        o[j] = k[j] ^ sign;
    return;
  }
  for (int64_t j = 0; j < n; j++) {
    uint64_t u = d == TL_DTYPE_F64 ? tl_unkey_f64(k[j]) : k[j] ^ sign;
    memcpy(dst + (desc ? n - 1 - j : j) * dstep, &u, 8);
  }
}

/* The runs of the zero and NaN keys, refilled from the input in input order:
 * ascending, a lane is [negatives][zeros][positives][NaNs]; descending, the
 * reverse, each run still in input order. */
static void vrefill(tl_dtype d, const char *src, int64_t step, int64_t n, bool desc, char *dst,
                    int64_t dstep)
{
  const uint64_t nan = tl_sort_key_mask(d), zero = nan ^ (nan >> 1);
  const size_t size = tl_dtype_size(d);
  int64_t nneg = 0, npos = 0, nnan = 0;
  for (int64_t i = 0; i < n; i++) {
    uint64_t k = tl_sort_key(d, src + i * step);
    nnan += k == nan;
    nneg += k < zero;
    npos += k > zero && k != nan;
  }
  int64_t z = desc ? nnan + npos : nneg, q = desc ? 0 : n - nnan;
  for (int64_t i = 0; i < n; i++) {
    uint64_t k = tl_sort_key(d, src + i * step);
    if (k == zero)
      memcpy(dst + z++ * dstep, src + i * step, size);
    else if (k == nan)
      memcpy(dst + q++ * dstep, src + i * step, size);
  }
}

typedef struct {
  const tl_tensor *in;
  tl_tensor *out;
  int dim; /* wrapped; for a 0-d input, 0 */
  bool desc;
  int failed;
} vlanes_job;

/* One lane: n elements at src (step bytes) sorted into dst (dstep bytes);
 * keys holds 2n keys (the keys, then the sort's scratch). */
static void vlane_sort(const vlanes_job *job, const char *src, int64_t step, int64_t n, char *dst,
                       int64_t dstep, void *keys)
{
  tl_dtype d = job->in->dtype;
  bool special;
  if (tl_sort_key_wide(d)) {
    special = vkeys64(d, src, step, n, keys);
    tl_sort_keys_u64(keys, n, (uint64_t *)keys + n);
    vdecode64(d, keys, n, job->desc, dst, dstep);
  } else {
    special = vkeys32(d, src, step, n, keys);
    tl_sort_keys_u32(keys, n, (uint32_t *)keys + n);
    vdecode32(d, keys, n, job->desc, dst, dstep);
  }
  if (special)
    vrefill(d, src, step, n, job->desc, dst, dstep);
}

/* Lanes along a dim other than the last, whose neighbours sit one element
 * apart: read one at a time, each element would cost a cache line.  As in
 * lanes_task_grouped, TL_SORT_GROUP adjacent lanes are transposed into
 * contiguous rows, sorted, and transposed back (1000x1000 float32 along dim
 * 0: ~2.5x faster).  Only for lanes of up to 64 KiB: the rows are scratch. */
static bool vlanes_groupable(const vlanes_job *job)
{
  const tl_tensor *in = job->in;
  int last = in->ndim - 1;
  return in->ndim >= 2 && job->dim != last && in->strides[last] == 1 &&
         job->out->strides[last] == 1 &&
         in->shape[job->dim] * (int64_t)tl_dtype_size(in->dtype) <= 65536;
}

static void vlanes_task(void *ctx, int64_t begin, int64_t end, int worker)
{
  (void)worker;
  vlanes_job *job = ctx;
  const tl_tensor *in = job->in, *out = job->out;
  int skip = in->ndim ? job->dim : -1;
  int64_t n = lane_length(in, job->dim), step = lane_step(in, job->dim);
  int64_t dstep = lane_step(out, job->dim);
  int64_t esize = (int64_t)tl_dtype_size(in->dtype);
  bool grouped = vlanes_groupable(job);
  size_t key_bytes = (size_t)n * (tl_sort_key_wide(in->dtype) ? 16 : 8);
  size_t row_bytes = grouped ? (size_t)(TL_SORT_GROUP * n * esize) : 0;
  char *mem = malloc(key_bytes + 2 * row_bytes);
  if (!mem) {
    __atomic_store_n(&job->failed, 1, __ATOMIC_RELAXED);
    return;
  }
  void *keys = mem;
  char *rows_in = mem + key_bytes, *rows_out = rows_in + row_bytes;
  int64_t width = in->ndim ? in->shape[in->ndim - 1] : 1;
  for (int64_t i = begin; i < end;) {
    const char *src = lane_ptr(in, skip, i);
    char *dst = lane_ptr(out, skip, i);
    if (!grouped) {
      if (i + 1 < end && skip == in->ndim - 1)
        lane_prefetch(src + n * step, step, n); /* contiguous rows: the next one */
      vlane_sort(job, src, step, n, dst, dstep, keys);
      i++;
      continue;
    }
    /* lanes i .. i+g-1 are adjacent along the last dim */
    int64_t g = TL_SORT_GROUP;
    g = g < end - i ? g : end - i;
    g = g < width - i % width ? g : width - i % width;
    transpose_block(rows_in, esize, n * esize, src, step, esize, n, g, (size_t)esize);
    for (int64_t k = 0; k < g; k++)
      vlane_sort(job, rows_in + k * n * esize, esize, n, rows_out + k * n * esize, esize, keys);
    transpose_block(dst, dstep, esize, rows_out, esize, n * esize, n, g, (size_t)esize);
    i += g;
  }
  free(mem);
}

/* Values only.  A few long float32 or int32 lanes, ascending, with more
 * than one thread, take the long-lane plan of sort_values.c (the whole pool
 * on each lane).  Lanes of up to 2^22 elements (AVX2: 2^21) take the per-lane key sort
 * above, unless they are a few long lanes the pool could share; those, the
 * longer ones, and every lane without the vector sort, take the radix
 * engine with positions, into an indices tensor of its own: its long-lane
 * plan runs on the whole pool, and past ~2^22 elements its two passes over
 * memory beat the quicksort's partitions (10^7 float32, one thread: ~80 ms
 * against ~97), as it beat a scalar quicksort everywhere (2-7x). */
static tl_status sort_values_only(const tl_tensor *in, int d, bool desc, tl_tensor *values)
{
  int64_t n = lane_length(in, d), numel = tl_tensor_numel(in);
  if (n == 0 || numel == 0)
    return TL_OK;
  if (n > (int64_t)UINT32_MAX)
    return tl_error_set(TL_ERR_NOT_IMPLEMENTED, "sorting a dim of %lld elements (over 2^32) is "
                        "not supported", (long long)n);
  bool pool_lanes = (in->dtype == TL_DTYPE_F32 || in->dtype == TL_DTYPE_I32) && in->ndim && !desc &&
                    n >= TL_SORT_PARALLEL_MIN && tl_parallel_get_threads() > 1 &&
                    numel / n <= tl_parallel_get_threads() && values->strides[d] == 1;
  bool few_long = n >= TL_SORT_PARALLEL_MIN && numel / n <= tl_parallel_get_threads() &&
                  tl_parallel_get_threads() > 1;
  if (!pool_lanes && (!tl_sort_simd_available() || n > tl_sort_simd_max_lane() || few_long)) {
    tl_tensor indices = {0};
    if (tl_tensor_empty(&indices, TL_DTYPE_I64, in->ndim, in->shape, tl_tensor_device(in)) != TL_OK)
      return tl_error_status();
    pair_out o = {values, &indices, in->ndim ? d : -1, 0, false};
    lane_job job = {.in = in, .dim = d, .desc = desc, .emit = emit_sorted, .emit_chunks = true,
                    .inplace = sort_inplace, .ctx = &o, .group_values = values,
                    .group_indices = &indices};
    tl_status st = lanes_run(&job);
    tl_tensor_release(&indices);
    return st;
  }
  tl_status st = TL_OK;
  tl_unlocked unlocked = tl_parallel_unlock(numel);
  if (pool_lanes) {
    for (int64_t i = 0; i < numel / n && st == TL_OK; i++)
      st = tl_sort_values_lane(lane_ptr(in, d, i), lane_step(in, d), n, in->dtype,
                               (uint32_t *)lane_ptr(values, d, i));
  } else {
    vlanes_job job = {.in = in, .out = values, .dim = d, .desc = desc};
    tl_parallel_for(numel / n, n >= 4096 ? 1 : 4096 / n, vlanes_task, &job);
    if (job.failed)
      st = tl_error_set(TL_ERR_MEMORY, "out of memory sorting lanes of %lld elements", (long long)n);
  }
  tl_parallel_relock(&unlocked);
  return st;
}

tl_status tl_cpu_sort(const tl_tensor *in, int64_t dim, bool descending, bool stable,
                      tl_tensor *values, tl_tensor *indices)
{
  (void)stable; /* every sort here is stable */
  int d;
  if (tl_sort_check_dim(values ? "sort" : "argsort", in, dim, &d) != TL_OK)
    return tl_error_status();
  if (tl_sort_alloc_pair(in, in->ndim, in->shape, values, indices) != TL_OK)
    return tl_error_status();
  if (!indices) {
    if (sort_values_only(in, d, descending, values) != TL_OK) {
      tl_sort_release(values);
      return tl_error_status();
    }
    return TL_OK;
  }
  pair_out o = {values, indices, in->ndim ? d : -1, 0, false};
  lane_job job = {.in = in, .dim = d, .desc = descending, .emit = emit_sorted,
                  .emit_chunks = true, .inplace = sort_inplace, .ctx = &o,
                  .group_values = values, .group_indices = indices};
  if (lanes_run(&job) != TL_OK) {
    tl_sort_release(values);
    tl_sort_release(indices);
    return tl_error_status();
  }
  return TL_OK;
}

static void plan_topk(const lane_job *job, lane *l)
{
  const pair_out *o = job->ctx;
  l->lo = 0;
  l->hi = o->k;
}

tl_status tl_cpu_topk(const tl_tensor *in, int64_t k, int64_t dim, bool largest, tl_tensor *values,
                      tl_tensor *indices)
{
  int d;
  if (tl_topk_check(in, k, dim, &d) != TL_OK)
    return tl_error_status();
  int64_t n = lane_length(in, d);
  /* A 0-d input's result is 0-d whatever k (PyTorch): its one element. */
  if (in->ndim == 0)
    k = n;
  int64_t shape[TL_MAX_DIMS];
  int nd = tl_sort_reduced_shape(in, d, k, true, shape);
  if (tl_sort_alloc_pair(in, nd, shape, values, indices) != TL_OK)
    return tl_error_status();
  pair_out o = {values, indices, in->ndim ? d : -1, k, false};
  lane_job job = {.in = in, .dim = d, .desc = largest, .plan = plan_topk, .emit = emit_sorted,
                  .emit_chunks = true, .ctx = &o};
  if (k > 0 && lanes_run(&job) != TL_OK) {
    tl_sort_release(values);
    tl_sort_release(indices);
    return tl_error_status();
  }
  return TL_OK;
}

/* One selected position per lane; plan has put it in aux[0] and sorted it
 * (lo = aux[0]), or found a NaN answer (aux[1] = 1, aux[0] = its position). */
static void emit_one(const lane_job *job, const lane *l, int64_t j0, int64_t j1)
{
  (void)j0;
  (void)j1;
  const pair_out *o = job->ctx;
  char *pv, *pi;
  int64_t step;
  int64_t pos = l->aux[0];
  out_lane(o->values, o, l->lane, &pv, &step);
  out_lane(o->indices, o, l->lane, &pi, &step);
  size_t size = tl_dtype_size(job->in->dtype);
  int64_t at = l->aux[1] ? pos : lane_pos(l, pos);
  memcpy(pv, l->src + at * l->step, size);
  memcpy(pi, &at, 8);
}

static void plan_kth(const lane_job *job, lane *l)
{
  const pair_out *o = job->ctx;
  l->aux[0] = l->lo = o->k - 1;
  l->hi = o->k;
}

static tl_status select_one(const tl_tensor *in, int d, bool keepdim,
                            void (*plan)(const lane_job *, lane *), pair_out *o)
{
  int64_t shape[TL_MAX_DIMS];
  int nd = tl_sort_reduced_shape(in, d, 1, keepdim, shape);
  if (tl_sort_alloc_pair(in, nd, shape, o->values, o->indices) != TL_OK)
    return tl_error_status();
  o->skip = in->ndim && keepdim ? d : -1;
  lane_job job = {.in = in, .dim = d, .desc = false, .plan = plan, .emit = emit_one, .ctx = o};
  if (lanes_run(&job) != TL_OK) {
    tl_sort_release(o->values);
    tl_sort_release(o->indices);
    return tl_error_status();
  }
  return TL_OK;
}

tl_status tl_cpu_kthvalue(const tl_tensor *in, int64_t k, int64_t dim, bool keepdim,
                          tl_tensor *values, tl_tensor *indices)
{
  int d;
  if (tl_kthvalue_check(in, k, dim, &d) != TL_OK)
    return tl_error_status();
  pair_out o = {values, indices, -1, k, false};
  return select_one(in, d, keepdim, plan_kth, &o);
}

/* median: NaN wins unless ignored; otherwise the lower median of the rest. */
static void plan_median(const lane_job *job, lane *l)
{
  const pair_out *o = job->ctx;
  int64_t nan = lane_count_nan(job, l);
  int64_t m = l->n - nan;
  if ((nan && !o->ignore_nan) || m == 0) {
    l->aux[0] = lane_first_nan(job, l);
    l->aux[1] = 1;
    l->lo = l->hi = 0;
    return;
  }
  l->aux[0] = l->lo = (m - 1) / 2;
  l->hi = l->lo + 1;
}

tl_status tl_cpu_median_dim(const tl_tensor *in, int64_t dim, bool keepdim, bool ignore_nan,
                            tl_tensor *values, tl_tensor *indices)
{
  const char *op = ignore_nan ? "nanmedian" : "median";
  int d;
  if (tl_sort_check_reduced(op, in, dim, &d) != TL_OK)
    return tl_error_status();
  pair_out o = {values, indices, -1, 0, ignore_nan};
  return select_one(in, d, keepdim, plan_median, &o);
}

tl_status tl_cpu_median_all(const tl_tensor *in, bool ignore_nan, tl_tensor *out)
{
  return tl_sort_median_all(in, ignore_nan, out);
}

/* ---- quantile ------------------------------------------------------------------ */

typedef struct {
  tl_tensor *out;
  const double *q;
  int64_t nq;
  bool ignore_nan, keep_lanes_dim;
  int skip;
  tl_quantile_method method;
  int64_t q_step; /* bytes between results of successive q in out */
} quantile_out;

static void plan_quantile(const lane_job *job, lane *l)
{
  const quantile_out *o = job->ctx;
  int64_t nan = lane_count_nan(job, l), m = l->n - nan;
  l->aux[0] = m;
  if ((nan && !o->ignore_nan) || m == 0) {
    l->aux[1] = 1; /* the answer is NaN */
    l->lo = l->hi = 0;
    return;
  }
  bool f32 = job->in->dtype == TL_DTYPE_F32;
  l->lo = m;
  l->hi = 0;
  for (int64_t i = 0; i < o->nq; i++) {
    double rank = tl_quantile_rank(o->q[i], m, f32);
    int64_t below = (int64_t)floor(rank), above = (int64_t)ceil(rank) + 1;
    l->lo = below < l->lo ? below : l->lo;
    l->hi = above > l->hi ? above : l->hi;
  }
  l->lo = l->lo < 0 ? 0 : l->lo;
  l->hi = l->hi > m ? m : l->hi;
}

static double lane_value(const lane_job *job, const lane *l, int64_t pos)
{
  tl_scalar s = tl_scalar_load(job->in->dtype, l->src + (int64_t)lane_pos(l, pos) * l->step);
  return s.v.f;
}

static void emit_quantile(const lane_job *job, const lane *l, int64_t j0, int64_t j1)
{
  (void)j0;
  (void)j1;
  const quantile_out *o = job->ctx;
  tl_dtype d = job->in->dtype;
  char *base = lane_ptr(o->out, o->skip, l->lane);
  bool f32 = d == TL_DTYPE_F32;
  for (int64_t i = 0; i < o->nq; i++) {
    double r = NAN;
    if (!l->aux[1]) {
      int64_t m = l->aux[0];
      double rank = tl_quantile_rank(o->q[i], m, f32);
      int64_t below = (int64_t)floor(rank), above = (int64_t)ceil(rank);
      below = below < 0 ? 0 : below > m - 1 ? m - 1 : below;
      above = above < 0 ? 0 : above > m - 1 ? m - 1 : above;
      double a = lane_value(job, l, below), b = lane_value(job, l, above);
      switch (o->method) {
      case TL_QUANTILE_LOWER: r = a; break;
      case TL_QUANTILE_HIGHER: r = b; break;
      case TL_QUANTILE_MIDPOINT: r = tl_quantile_lerp(a, b, 0.5, f32); break;
      case TL_QUANTILE_NEAREST: r = lane_value(job, l, (int64_t)nearbyint(rank)); break;
      default:
        r = tl_quantile_lerp(a, b, rank - (double)below, f32);
        break;
      }
    }
    tl_scalar s = {.kind = TL_KIND_FLOAT, .v.f = r};
    tl_scalar_store(s, d, base + i * o->q_step);
  }
}

tl_status tl_cpu_quantile(const tl_tensor *in, const double *q, int64_t nq, bool q_scalar,
                          bool all_dims, int64_t dim, bool keepdim, tl_quantile_method method,
                          bool ignore_nan, tl_tensor *out)
{
  const char *op = ignore_nan ? "nanquantile" : "quantile";
  int d;
  tl_tensor flat = {0};
  const tl_tensor *src;
  if (tl_quantile_begin(op, in, q, nq, q_scalar, all_dims, dim, keepdim, &d, out, &flat, &src) !=
      TL_OK)
    return tl_error_status();
  /* The output viewed per lane: drop the q dim (q_step walks it) and walk the
   * reduced dims as lanes. */
  tl_tensor view;
  quantile_out o = {.out = &view, .q = q, .nq = nq, .ignore_nan = ignore_nan, .method = method};
  tl_quantile_lanes_view(out, q_scalar, all_dims, &view, &o.q_step);
  o.skip = !all_dims && keepdim && in->ndim ? d : -1;
  int64_t n = lane_length(src, all_dims ? 0 : d);
  if (n == 0) {
    /* Empty lanes: every result is NaN. */
    tl_scalar nan = {.kind = TL_KIND_FLOAT, .v.f = NAN};
    char *p = tl_tensor_data(out);
    for (int64_t i = 0, total = tl_tensor_numel(out); i < total; i++)
      tl_scalar_store(nan, out->dtype, p + i * (int64_t)tl_dtype_size(out->dtype));
  } else {
    lane_job job = {.in = src, .dim = all_dims ? 0 : d, .plan = plan_quantile,
                    .emit = emit_quantile, .ctx = &o};
    if (lanes_run(&job) != TL_OK)
      goto fail;
  }
  if (flat.storage)
    tl_tensor_release(&flat);
  return TL_OK;
fail:
  if (flat.storage)
    tl_tensor_release(&flat);
  tl_tensor_release(out);
  return tl_error_status();
}

/* ---- mode -------------------------------------------------------------------------- */

static void emit_mode(const lane_job *job, const lane *l, int64_t j0, int64_t j1)
{
  (void)j0;
  (void)j1;
  int64_t best = 0, best_count = 0, run = 0;
  for (int64_t j = 0; j < l->n; j++) {
    run++;
    bool last = j == l->n - 1;
    if (!last) {
      bool same = lane_key(l, j) == lane_key(l, j + 1);
      if (same)
        continue;
    }
    if (run > best_count) {
      best_count = run;
      best = j; /* the run's last element: the latest occurrence, sorts being stable */
    }
    run = 0;
  }
  lane one = *l;
  one.aux[0] = best;
  one.aux[1] = 0;
  emit_one(job, &one, 0, 0);
}

tl_status tl_cpu_mode(const tl_tensor *in, int64_t dim, bool keepdim, tl_tensor *values,
                      tl_tensor *indices)
{
  int d;
  if (tl_sort_check_reduced("mode", in, dim, &d) != TL_OK)
    return tl_error_status();
  int64_t shape[TL_MAX_DIMS];
  int nd = tl_sort_reduced_shape(in, d, 1, keepdim, shape);
  if (tl_sort_alloc_pair(in, nd, shape, values, indices) != TL_OK)
    return tl_error_status();
  pair_out o = {values, indices, in->ndim && keepdim ? d : -1, 0, false};
  lane_job job = {.in = in, .dim = d, .emit = emit_mode, .ctx = &o};
  if (lanes_run(&job) != TL_OK) {
    tl_sort_release(values);
    tl_sort_release(indices);
    return tl_error_status();
  }
  return TL_OK;
}
