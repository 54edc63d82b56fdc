/* sort_simd.c - ascending in-place sorts of bare unsigned keys, 32 or 64
 * bits wide, for the sort family's whole-lane sorts (sort.c): the values-only
 * sort of any real dtype, and lanes of packed (key << 32 | position) words,
 * whose keys are all distinct, so that an unstable sort gives the stable
 * order.  The work is in sort_simd_t.h: a vector quicksort with bitonic
 * networks for short runs, made for AVX-512F and for AVX2 (the first the
 * CPU has).  Only where it has one of them (and TORCHLIKE_SORT_SIMD=0 does
 * not turn it off: the tests run both ways); elsewhere sort.c keeps its
 * radix sorts, which a scalar quicksort did not beat (2-7x slower,
 * measured).
 *
 * Compiled for the baseline; only the functions marked TL_SIMD_FN use
 * AVX-512 or AVX2, and they run only after the CPU check.                  */
#include <stdlib.h>
#include <string.h>

#include "ndcore/kernels/tl_sort_simd.h"

#if defined(__GNUC__) && defined(__x86_64__)
#define TL_SORT_SIMD 1
#include <immintrin.h>
#define TL_SIMD_FN __attribute__((target("avx512f,popcnt")))
#else
#define TL_SORT_SIMD 0
#endif

#if TL_SORT_SIMD
/* 2: AVX-512F, 1: AVX2, 0: neither (both with POPCNT). */
static int simd_level(void)
{
  static int level = -1;
  if (level < 0) {
    __builtin_cpu_init();
    bool popcnt = __builtin_cpu_supports("popcnt");
    level = popcnt && __builtin_cpu_supports("avx512f") ? 2 : popcnt && __builtin_cpu_supports("avx2") ? 1 : 0;
  }
  return level;
}
#endif

bool tl_sort_simd_available(void)
{
  /* Read on every sort (cheap next to one): the tests flip it between runs. */
  const char *env = getenv("TORCHLIKE_SORT_SIMD");
  if (env && strcmp(env, "0") == 0)
    return false;
#if TL_SORT_SIMD
  return simd_level() > 0;
#else
  return false;
#endif
}

#if TL_SORT_SIMD
/* The index vector l ^ x, mask of lanes whose bit `hi` is set, and the mask
 * of the first c lanes, for each lane width. */
TL_SIMD_FN __attribute__((always_inline)) static inline __m512i xor_index_u32(int x)
{
  return _mm512_xor_si512(_mm512_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15),
                          _mm512_set1_epi32(x));
}
TL_SIMD_FN __attribute__((always_inline)) static inline __m512i xor_index_u64(int x)
{
  return _mm512_xor_si512(_mm512_setr_epi64(0, 1, 2, 3, 4, 5, 6, 7), _mm512_set1_epi64(x));
}
static inline unsigned hi_mask_u32(int hi)
{
  return hi == 1 ? 0xaaaau : hi == 2 ? 0xccccu : hi == 4 ? 0xf0f0u : 0xff00u;
}
static inline unsigned hi_mask_u64(int hi) { return hi == 1 ? 0xaau : hi == 2 ? 0xccu : 0xf0u; }
/* Transposes for the networks that sort columns first (sort_simd_net.h):
 * afterwards c[j] holds what was lane j of c[0], c[1], ... in that order. */
TL_SIMD_FN __attribute__((always_inline)) static inline void transpose_u32(__m512i *c)
{
  /* 4x4 blocks inside each 128-bit lane: s[4g + k] holds, in lane q, element
   * 4q + k of rows 4g .. 4g+3 */
  __m512i s[16];
#define TL_T4(g)                                                                                  \
  do {                                                                                            \
    __m512i t0 = _mm512_unpacklo_epi32(c[4 * g], c[4 * g + 1]);                                   \
    __m512i t1 = _mm512_unpackhi_epi32(c[4 * g], c[4 * g + 1]);                                   \
    __m512i t2 = _mm512_unpacklo_epi32(c[4 * g + 2], c[4 * g + 3]);                               \
    __m512i t3 = _mm512_unpackhi_epi32(c[4 * g + 2], c[4 * g + 3]);                               \
    s[4 * g] = _mm512_unpacklo_epi64(t0, t2);                                                     \
    s[4 * g + 1] = _mm512_unpackhi_epi64(t0, t2);                                                 \
    s[4 * g + 2] = _mm512_unpacklo_epi64(t1, t3);                                                 \
    s[4 * g + 3] = _mm512_unpackhi_epi64(t1, t3);                                                 \
  } while (0)
  TL_T4(0);
  TL_T4(1);
  TL_T4(2);
  TL_T4(3);
#undef TL_T4
  /* then the 128-bit blocks: column 4q + k is block q of s[k], s[4 + k],
   * s[8 + k], s[12 + k] */
#define TL_B4(k)                                                                                  \
  do {                                                                                            \
    __m512i x0 = _mm512_shuffle_i32x4(s[k], s[4 + k], 0x44);                                      \
    __m512i x1 = _mm512_shuffle_i32x4(s[k], s[4 + k], 0xee);                                      \
    __m512i y0 = _mm512_shuffle_i32x4(s[8 + k], s[12 + k], 0x44);                                 \
    __m512i y1 = _mm512_shuffle_i32x4(s[8 + k], s[12 + k], 0xee);                                 \
    c[k] = _mm512_shuffle_i32x4(x0, y0, 0x88);                                                    \
    c[4 + k] = _mm512_shuffle_i32x4(x0, y0, 0xdd);                                                \
    c[8 + k] = _mm512_shuffle_i32x4(x1, y1, 0x88);                                                \
    c[12 + k] = _mm512_shuffle_i32x4(x1, y1, 0xdd);                                               \
  } while (0)
  TL_B4(0);
  TL_B4(1);
  TL_B4(2);
  TL_B4(3);
#undef TL_B4
}

TL_SIMD_FN __attribute__((always_inline)) static inline void transpose_u64(__m512i *c)
{
  /* pairs of rows: t[2i] = elements 0, 2, 4, 6 of rows 2i, 2i+1 interleaved,
   * t[2i+1] the odd ones */
  __m512i t[8], u[8];
  for (int i = 0; i < 8; i += 2) {
    t[i] = _mm512_unpacklo_epi64(c[i], c[i + 1]);
    t[i + 1] = _mm512_unpackhi_epi64(c[i], c[i + 1]);
  }
  /* u[4h + e]: element e (and e + 4) of rows 4h .. 4h+3 */
  const __m512i lo = _mm512_setr_epi64(0, 1, 8, 9, 4, 5, 12, 13);
  const __m512i hi = _mm512_setr_epi64(2, 3, 10, 11, 6, 7, 14, 15);
  for (int h = 0; h < 2; h++) {
    u[4 * h] = _mm512_permutex2var_epi64(t[4 * h], lo, t[4 * h + 2]);
    u[4 * h + 2] = _mm512_permutex2var_epi64(t[4 * h], hi, t[4 * h + 2]);
    u[4 * h + 1] = _mm512_permutex2var_epi64(t[4 * h + 1], lo, t[4 * h + 3]);
    u[4 * h + 3] = _mm512_permutex2var_epi64(t[4 * h + 1], hi, t[4 * h + 3]);
  }
  const __m512i first = _mm512_setr_epi64(0, 1, 2, 3, 8, 9, 10, 11);
  const __m512i second = _mm512_setr_epi64(4, 5, 6, 7, 12, 13, 14, 15);
  for (int e = 0; e < 4; e++) {
    c[e] = _mm512_permutex2var_epi64(u[e], first, u[4 + e]);
    c[4 + e] = _mm512_permutex2var_epi64(u[e], second, u[4 + e]);
  }
}

/* c is at most the lane count (16), so the shift stays in range; no branch,
 * which the partition's random counts would mispredict. */
static inline unsigned low_mask_u32(int c) { return (1u << c) - 1; }
static inline unsigned low_mask_u64(int c) { return (1u << c) - 1; }
#endif

#define TL_VT __m512i
#define TL_VBITS 512
#define TL_VLOADU(p) _mm512_loadu_si512(p)
#define TL_VSTOREU(p, v) _mm512_storeu_si512(p, v)
#define TL_VMAXKEY _mm512_set1_epi32(-1)
#define TL_ST uint32_t
#define TL_SL 16
#define TL_SN(x) x##_u32
#define TL_VPERM(i, v) _mm512_permutexvar_epi32(i, v)
#define TL_VBLEND(m, a, b) _mm512_mask_blend_epi32((__mmask16)(m), a, b)
#define TL_VMIN(a, b) _mm512_min_epu32(a, b)
#define TL_VMAX(a, b) _mm512_max_epu32(a, b)
#define TL_VMASKMAX(s, m, a, b) _mm512_mask_max_epu32(s, (__mmask16)(m), a, b)
#define TL_VSORTLOAD(fill, m, p) _mm512_mask_loadu_epi32(fill, (__mmask16)(m), p)
#define TL_VSTORE(p, m, v) _mm512_mask_storeu_epi32(p, (__mmask16)(m), v)
#define TL_VCMPLT(a, b) _mm512_cmplt_epu32_mask(a, b)
#define TL_VCMPLE(a, b) _mm512_cmple_epu32_mask(a, b)
#define TL_VCOMPRESS(m, v) _mm512_maskz_compress_epi32((__mmask16)(m), v)
#define TL_VSET1(x) _mm512_set1_epi32((int)(x))
#include "ndcore/kernels/sort_simd_t.h"

#define TL_VT __m512i
#define TL_VBITS 512
#define TL_VLOADU(p) _mm512_loadu_si512(p)
#define TL_VSTOREU(p, v) _mm512_storeu_si512(p, v)
#define TL_VMAXKEY _mm512_set1_epi32(-1)
#define TL_ST uint64_t
#define TL_SL 8
#define TL_SN(x) x##_u64
#define TL_VPERM(i, v) _mm512_permutexvar_epi64(i, v)
#define TL_VBLEND(m, a, b) _mm512_mask_blend_epi64((__mmask8)(m), a, b)
#define TL_VMIN(a, b) _mm512_min_epu64(a, b)
#define TL_VMAX(a, b) _mm512_max_epu64(a, b)
#define TL_VMASKMAX(s, m, a, b) _mm512_mask_max_epu64(s, (__mmask8)(m), a, b)
#define TL_VSORTLOAD(fill, m, p) _mm512_mask_loadu_epi64(fill, (__mmask8)(m), p)
#define TL_VSTORE(p, m, v) _mm512_mask_storeu_epi64(p, (__mmask8)(m), v)
#define TL_VCMPLT(a, b) _mm512_cmplt_epu64_mask(a, b)
#define TL_VCMPLE(a, b) _mm512_cmple_epu64_mask(a, b)
#define TL_VCOMPRESS(m, v) _mm512_maskz_compress_epi64((__mmask8)(m), v)
#define TL_VSET1(x) _mm512_set1_epi64((long long)(x))
#include "ndcore/kernels/sort_simd_t.h"

#if TL_SORT_SIMD
/* ---- AVX2 ----
 * The same template on 256-bit vectors, for CPUs without AVX-512 (most
 * machines).  AVX2 compares and (for 64 bits) orders only signed integers:
 * the keys are biased (top bit flipped) for the sort and back after it, so
 * that signed order is their unsigned order; the largest key is then the
 * signed maximum.  No masked compress: see the template's partition. */
#undef TL_SIMD_FN
#define TL_SIMD_FN __attribute__((target("avx2,popcnt")))

TL_SIMD_FN __attribute__((always_inline)) static inline __m256i xor_index_u32_avx2(int x)
{
  return _mm256_xor_si256(_mm256_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7), _mm256_set1_epi32(x));
}
/* 64-bit lane l ^ x as the pair of 32-bit lanes that hold it */
TL_SIMD_FN __attribute__((always_inline)) static inline __m256i xor_index_u64_avx2(int x)
{
  return _mm256_xor_si256(_mm256_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7), _mm256_set1_epi32(2 * x));
}
static inline unsigned low_mask_u32_avx2(int c) { return (1u << c) - 1; }
static inline unsigned low_mask_u64_avx2(int c) { return (1u << c) - 1; }

/* A lane mask (bit k: lane k) as a vector of all-ones lanes. */
TL_SIMD_FN __attribute__((always_inline)) static inline __m256i lane_vec_u32(unsigned m)
{
  const __m256i bit = _mm256_setr_epi32(1, 2, 4, 8, 16, 32, 64, 128);
  return _mm256_cmpeq_epi32(_mm256_and_si256(_mm256_set1_epi32((int)m), bit), bit);
}
TL_SIMD_FN __attribute__((always_inline)) static inline __m256i lane_vec_u64(unsigned m)
{
  const __m256i bit = _mm256_setr_epi64x(1, 2, 4, 8);
  return _mm256_cmpeq_epi64(_mm256_and_si256(_mm256_set1_epi64x(m), bit), bit);
}
/* Masked loads (lanes outside m take fill) and stores; whole vectors, the
 * common case in the networks, plain. */
TL_SIMD_FN __attribute__((always_inline)) static inline __m256i load_u32_avx2(__m256i fill, unsigned m,
                                                                            const uint32_t *p)
{
  if (m == 0xffu)
    return _mm256_loadu_si256((const __m256i *)p);
  __m256i k = lane_vec_u32(m);
  return _mm256_blendv_epi8(fill, _mm256_maskload_epi32((const int *)p, k), k);
}
TL_SIMD_FN __attribute__((always_inline)) static inline void store_u32_avx2(uint32_t *p, unsigned m, __m256i v)
{
  if (m == 0xffu)
    _mm256_storeu_si256((__m256i *)p, v);
  else
    _mm256_maskstore_epi32((int *)p, lane_vec_u32(m), v);
}
TL_SIMD_FN __attribute__((always_inline)) static inline __m256i load_u64_avx2(__m256i fill, unsigned m,
                                                                            const uint64_t *p)
{
  if (m == 0xfu)
    return _mm256_loadu_si256((const __m256i *)p);
  __m256i k = lane_vec_u64(m);
  return _mm256_blendv_epi8(fill, _mm256_maskload_epi64((const long long *)p, k), k);
}
TL_SIMD_FN __attribute__((always_inline)) static inline void store_u64_avx2(uint64_t *p, unsigned m, __m256i v)
{
  if (m == 0xfu)
    _mm256_storeu_si256((__m256i *)p, v);
  else
    _mm256_maskstore_epi64((long long *)p, lane_vec_u64(m), v);
}
TL_SIMD_FN __attribute__((always_inline)) static inline __m256i min_u64_avx2(__m256i a, __m256i b)
{
  return _mm256_blendv_epi8(a, b, _mm256_cmpgt_epi64(a, b));
}
TL_SIMD_FN __attribute__((always_inline)) static inline __m256i max_u64_avx2(__m256i a, __m256i b)
{
  return _mm256_blendv_epi8(b, a, _mm256_cmpgt_epi64(a, b));
}
/* 8 x 8 keys: afterwards c[j] holds lane j of c[0] .. c[7] */
TL_SIMD_FN __attribute__((always_inline)) static inline void transpose_u32_avx2(__m256i *c)
{
  __m256i t[8], s[8];
  for (int h = 0; h < 8; h += 4) {
    t[h] = _mm256_unpacklo_epi32(c[h], c[h + 1]);
    t[h + 1] = _mm256_unpackhi_epi32(c[h], c[h + 1]);
    t[h + 2] = _mm256_unpacklo_epi32(c[h + 2], c[h + 3]);
    t[h + 3] = _mm256_unpackhi_epi32(c[h + 2], c[h + 3]);
    /* s[h + k]: element k (low half) and k + 4 (high half) of rows h .. h+3 */
    s[h] = _mm256_unpacklo_epi64(t[h], t[h + 2]);
    s[h + 1] = _mm256_unpackhi_epi64(t[h], t[h + 2]);
    s[h + 2] = _mm256_unpacklo_epi64(t[h + 1], t[h + 3]);
    s[h + 3] = _mm256_unpackhi_epi64(t[h + 1], t[h + 3]);
  }
  for (int k = 0; k < 4; k++) {
    c[k] = _mm256_permute2x128_si256(s[k], s[4 + k], 0x20);
    c[4 + k] = _mm256_permute2x128_si256(s[k], s[4 + k], 0x31);
  }
}

#define TL_VT __m256i
#define TL_VBITS 256
#define TL_VLOADU(p) _mm256_loadu_si256((const __m256i *)(p))
#define TL_VSTOREU(p, v) _mm256_storeu_si256((__m256i *)(p), v)
#define TL_VMAXKEY _mm256_set1_epi32(INT32_MAX)
#define TL_VBIAS 0x80000000u
#define TL_ST uint32_t
#define TL_SL 8
#define TL_SN(x) x##_u32_avx2
#define TL_VPERM(i, v) _mm256_permutevar8x32_epi32(v, i)
#define TL_VMIN(a, b) _mm256_min_epi32(a, b)
#define TL_VMAX(a, b) _mm256_max_epi32(a, b)
#define TL_VSORTLOAD(fill, m, p) load_u32_avx2(fill, m, p)
#define TL_VSTORE(p, m, v) store_u32_avx2(p, m, v)
#define TL_VGTMASK(a, b) (unsigned)_mm256_movemask_ps(_mm256_castsi256_ps(_mm256_cmpgt_epi32(a, b)))
#define TL_VSET1(x) _mm256_set1_epi32((int)(x))
#include "ndcore/kernels/sort_simd_t.h"

#define TL_VT __m256i
#define TL_VBITS 256
#define TL_VLOADU(p) _mm256_loadu_si256((const __m256i *)(p))
#define TL_VSTOREU(p, v) _mm256_storeu_si256((__m256i *)(p), v)
#define TL_VMAXKEY _mm256_set1_epi64x(INT64_MAX)
#define TL_VBIAS 0x8000000000000000ull
#define TL_ST uint64_t
#define TL_SL 4
#define TL_SN(x) x##_u64_avx2
#define TL_VPERM(i, v) _mm256_permutevar8x32_epi32(v, i)
#define TL_VMIN(a, b) min_u64_avx2(a, b)
#define TL_VMAX(a, b) max_u64_avx2(a, b)
#define TL_VSORTLOAD(fill, m, p) load_u64_avx2(fill, m, p)
#define TL_VSTORE(p, m, v) store_u64_avx2(p, m, v)
#define TL_VGTMASK(a, b) (unsigned)_mm256_movemask_pd(_mm256_castsi256_pd(_mm256_cmpgt_epi64(a, b)))
#define TL_VSET1(x) _mm256_set1_epi64x((long long)(x))
#include "ndcore/kernels/sort_simd_t.h"

/* The bias, both ways (vectorised by the compiler). */
TL_SIMD_FN static void bias_u32(uint32_t *a, int64_t n)
{
  for (int64_t i = 0; i < n; i++)
    a[i] ^= 0x80000000u;
}
TL_SIMD_FN static void bias_u64(uint64_t *a, int64_t n)
{
  for (int64_t i = 0; i < n; i++)
    a[i] ^= 0x8000000000000000ull;
}
#endif

bool tl_sort_simd_avx512(void)
{
#if TL_SORT_SIMD
  return simd_level() == 2;
#else
  return false;
#endif
}

int64_t tl_sort_simd_max_lane(void) { return tl_sort_simd_avx512() ? (int64_t)1 << 22 : (int64_t)1 << 21; }

void tl_sort_keys_u32(uint32_t *a, int64_t n, uint32_t *scratch)
{
#if TL_SORT_SIMD
  int depth = 2 * (64 - __builtin_clzll((unsigned long long)n | 1)) + 8;
  if (simd_level() == 2) {
    sort_simd_u32(a, scratch, n, false, depth);
  } else {
    bias_u32(a, n);
    sort_simd_u32_avx2(a, scratch, n, false, depth);
    bias_u32(a, n);
  }
#else
  (void)scratch;
  heap_sort_u32(a, n);
#endif
}

void tl_sort_keys_u64(uint64_t *a, int64_t n, uint64_t *scratch)
{
#if TL_SORT_SIMD
  int depth = 2 * (64 - __builtin_clzll((unsigned long long)n | 1)) + 8;
  if (simd_level() == 2) {
    sort_simd_u64(a, scratch, n, false, depth);
  } else {
    bias_u64(a, n);
    sort_simd_u64_avx2(a, scratch, n, false, depth);
    bias_u64(a, n);
  }
#else
  (void)scratch;
  heap_sort_u64(a, n);
#endif
}
