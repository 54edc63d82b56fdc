/* sort_simd_t.h - ascending sort of unsigned integer keys in place: a
 * template that sort_simd.c includes once per key width (32 and 64 bits).
 *
 *   #define TL_ST      uint32_t       the key type
 *   #define TL_SL      16             keys per 512-bit vector
 *   #define TL_SN(x)   x##_u32        this instance's function names
 *   and the vector operations TL_V* (see sort_simd.c).
 *
 * The sort is not stable; callers either cannot tell equal keys apart
 * (values only) or make every key unique (a position in the low bits).
 *
 * Shape: quicksort whose partition runs over whole vectors (a compare gives
 * a mask; the lanes below the pivot are compressed and stored at the left
 * end, the others at the right end), out of place, back and forth between
 * the keys and a scratch array, down to runs of at most 16 vectors, which a
 * bitonic network sorts inside the registers.  A pivot that turns out to
 * be the smallest key takes a second partition by <=, which sets all the
 * keys equal to it aside: many equal keys cost one pass, not a recursion
 * each.  Past a depth bound (an adversarial input) a
 * heap sort finishes the run (also the whole sort where the vector code
 * is not compiled; callers check tl_sort_simd_available() first).
 *
 * TL_VBITS (512 or 256) picks the instruction set: AVX-512 as described, or
 * AVX2, whose partition reorders each vector by a table lookup instead of
 * compressing it (there is no compress), and which sorts keys biased by
 * TL_VBIAS (the top bit flipped) so that its signed compares and min/max
 * order them as unsigned; the caller biases and unbiases.                 */

static void TL_SN(heap_sort)(TL_ST *a, int64_t n)
{
  for (int64_t i = n / 2 - 1, end = n; end > 1;) {
    int64_t root;
    if (i >= 0) {
      root = i--; /* building the heap */
    } else {
      TL_ST t = a[0]; /* the largest to the end */
      a[0] = a[--end];
      a[end] = t;
      root = 0;
    }
    for (int64_t c; (c = 2 * root + 1) < end; root = c) {
      if (c + 1 < end && a[c + 1] > a[c])
        c++;
      if (a[root] >= a[c])
        break;
      TL_ST t = a[root];
      a[root] = a[c];
      a[c] = t;
    }
  }
}

#if TL_SORT_SIMD

#if TL_VBITS == 512
/* ---- AVX-512 ---- */

/* Lane l's partner l ^ x: in-lane shuffles with an immediate where one
 * exists (shorter latency), a full permute otherwise. */
TL_SIMD_FN __attribute__((always_inline)) static inline __m512i TL_SN(partner)(__m512i v, int x)
{
#if TL_SL == 16
  if (x == 1)
    return _mm512_shuffle_epi32(v, (_MM_PERM_ENUM)0xb1);
  if (x == 2)
    return _mm512_shuffle_epi32(v, (_MM_PERM_ENUM)0x4e);
  if (x == 3)
    return _mm512_shuffle_epi32(v, (_MM_PERM_ENUM)0x1b);
  if (x == 4)
    return _mm512_shuffle_i64x2(v, v, 0xb1);
  if (x == 8)
    return _mm512_shuffle_i64x2(v, v, 0x4e);
#else
  if (x == 1)
    return _mm512_shuffle_epi32(v, (_MM_PERM_ENUM)0x4e);
  if (x == 2)
    return _mm512_permutex_epi64(v, 0x4e);
  if (x == 3)
    return _mm512_permutex_epi64(v, 0x1b);
  if (x == 4)
    return _mm512_shuffle_i64x2(v, v, 0x4e);
#endif
  return TL_VPERM(TL_SN(xor_index)(x), v);
}

/* Lane l takes the smaller of itself and lane l ^ x, or the larger where
 * l & hi (one bit) is set: one comparator layer of a network (a min, then
 * a max merged into the lanes that want it). */
TL_SIMD_FN __attribute__((always_inline)) static inline __m512i TL_SN(layer)(__m512i v, int x, int hi)
{
  __m512i p = TL_SN(partner)(v, x);
  return TL_VMASKMAX(TL_VMIN(v, p), TL_SN(hi_mask)(hi), v, p);
}

#else
/* ---- AVX2: 8 x 32 or 4 x 64 bits; no mask registers, so blends with
 * immediates (one function per partner distance, each a literal), and the
 * keys biased so that signed compares order them (sort_simd.c) ---- */

TL_SIMD_FN __attribute__((always_inline)) static inline __m256i TL_SN(partner)(__m256i v, int x)
{
#if TL_SL == 8
  if (x == 1)
    return _mm256_shuffle_epi32(v, 0xb1);
  if (x == 2)
    return _mm256_shuffle_epi32(v, 0x4e);
  if (x == 3)
    return _mm256_shuffle_epi32(v, 0x1b);
  if (x == 4)
    return _mm256_permute4x64_epi64(v, 0x4e);
#else
  if (x == 1)
    return _mm256_shuffle_epi32(v, 0x4e);
  if (x == 2)
    return _mm256_permute4x64_epi64(v, 0x4e);
  if (x == 3)
    return _mm256_permute4x64_epi64(v, 0x1b);
#endif
  return TL_VPERM(TL_SN(xor_index)(x), v);
}

/* As above: the min everywhere, the max blended into the lanes l & hi. */
TL_SIMD_FN __attribute__((always_inline)) static inline __m256i TL_SN(layer)(__m256i v, int x, int hi)
{
  __m256i p = TL_SN(partner)(v, x);
#if TL_SL == 8
  __m256i lo = TL_VMIN(v, p), up = TL_VMAX(v, p);
  if (hi == 1)
    return _mm256_blend_epi32(lo, up, 0xaa);
  if (hi == 2)
    return _mm256_blend_epi32(lo, up, 0xcc);
  return _mm256_blend_epi32(lo, up, 0xf0);
#else
  /* 64 bits: the min and max are blends on one compare, so blend once, on
   * the compare flipped in the lanes that want the max */
  __m256i gt = _mm256_cmpgt_epi64(v, p);
  if (hi == 1)
    return _mm256_blendv_epi8(v, p, _mm256_xor_si256(gt, _mm256_setr_epi64x(0, -1, 0, -1)));
  return _mm256_blendv_epi8(v, p, _mm256_xor_si256(gt, _mm256_setr_epi64x(0, 0, -1, -1)));
#endif
}
#endif

/* A vector that is two sorted halves merged by a flip (or any bitonic
 * sequence in that form), sorted: the half-cleaners. */
TL_SIMD_FN __attribute__((always_inline)) static inline TL_VT TL_SN(clean)(TL_VT v)
{
#if TL_SL == 16
  v = TL_SN(layer)(v, 8, 8);
#endif
#if TL_SL >= 8
  v = TL_SN(layer)(v, 4, 4);
#endif
  v = TL_SN(layer)(v, 2, 2);
  return TL_SN(layer)(v, 1, 1);
}

/* One vector sorted: bitonic merges of blocks of 2, 4, 8 (16) lanes, each a
 * flip (lane l against l ^ (s - 1)) then half-cleaners. */
TL_SIMD_FN __attribute__((always_inline)) static inline TL_VT TL_SN(sort_vec)(TL_VT v)
{
  v = TL_SN(layer)(v, 1, 1);
  v = TL_SN(layer)(v, 3, 2);
  v = TL_SN(layer)(v, 1, 1);
#if TL_SL >= 8
  v = TL_SN(layer)(v, 7, 4);
  v = TL_SN(layer)(v, 2, 2);
  v = TL_SN(layer)(v, 1, 1);
#endif
#if TL_SL == 16
  v = TL_SN(layer)(v, 15, 8);
  v = TL_SN(layer)(v, 4, 4);
  v = TL_SN(layer)(v, 2, 2);
  v = TL_SN(layer)(v, 1, 1);
#endif
  return v;
}

TL_SIMD_FN __attribute__((always_inline)) static inline TL_VT TL_SN(reverse)(TL_VT v)
{
  return TL_VPERM(TL_SN(xor_index)(TL_SL - 1), v);
}

/* The lanes of vector i that hold keys of a run of n: a load/store mask. */
static inline unsigned TL_SN(lanes)(int64_t n, int i)
{
  int64_t c = n - (int64_t)i * TL_SL;
  return TL_SN(low_mask)(c < 0 ? 0 : c > TL_SL ? TL_SL : (int)c);
}

#define TL_FLIP(p, q)                                                                             \
  (x = (p), y = TL_SN(reverse)(q), (p) = TL_VMIN(x, y), (q) = TL_SN(reverse)(TL_VMAX(x, y)))
#define TL_CX(p, q) (x = (p), (p) = TL_VMIN(x, (q)), (q) = TL_VMAX(x, (q)))
#include "ndcore/kernels/sort_simd_net.h"
#undef TL_FLIP
#undef TL_CX

#if TL_VBITS == 512
/* One partition step of vector v (lanes in `valid`): lanes below the pivot
 * to *l upwards, the others to just below *r. */
TL_SIMD_FN __attribute__((always_inline)) static inline void TL_SN(split)(TL_ST *a, __m512i v, __m512i pv, bool le,
                                           unsigned valid, int64_t *l, int64_t *r)
{
  unsigned m = (le ? TL_VCMPLE(v, pv) : TL_VCMPLT(v, pv)) & valid;
  int c = __builtin_popcount(m), all = __builtin_popcount(valid);
  /* compress in registers, then masked stores: a compress straight to
   * memory measured several times slower */
  TL_VSTORE(a + *l, TL_SN(low_mask)(c), TL_VCOMPRESS(m, v));
  *l += c;
  *r -= all - c;
  TL_VSTORE(a + *r, TL_SN(low_mask)(all - c), TL_VCOMPRESS(~m & valid, v));
}

#else
/* AVX2: the lanes reordered (tl_sort_perm32/64: those going left first,
 * each group in order), then stored whole at both ends: the left store's
 * tail and the right store's head fall in the gap between the two ends,
 * which later vectors fill, as long as that gap holds two vectors; the last
 * vectors store masked (and the tail also loads masked). */
TL_SIMD_FN __attribute__((always_inline)) static inline __m256i TL_SN(order)(unsigned m)
{
#if TL_SL == 8
  return _mm256_cvtepu8_epi32(_mm_cvtsi64_si128((long long)tl_sort_perm32[m]));
#else
  return _mm256_cvtepu8_epi32(_mm_cvtsi64_si128((long long)tl_sort_perm64[m]));
#endif
}
TL_SIMD_FN __attribute__((always_inline)) static inline unsigned TL_SN(below)(__m256i v, __m256i pv,
                                                                         bool le)
{
  unsigned full = TL_SN(low_mask)(TL_SL);
  return le ? ~TL_VGTMASK(v, pv) & full : TL_VGTMASK(pv, v);
}
TL_SIMD_FN __attribute__((always_inline)) static inline void TL_SN(split)(TL_ST *a, __m256i v, __m256i pv,
                                                                     bool le, int64_t *l, int64_t *r)
{
  unsigned m = TL_SN(below)(v, pv, le);
  int c = __builtin_popcount(m);
  __m256i w = _mm256_permutevar8x32_epi32(v, TL_SN(order)(m));
  _mm256_storeu_si256((__m256i *)(a + *l), w);
  _mm256_storeu_si256((__m256i *)(a + *r - TL_SL), w);
  *l += c;
  *r -= TL_SL - c;
}
TL_SIMD_FN __attribute__((always_inline)) static inline void TL_SN(split_last)(TL_ST *a, __m256i v, __m256i pv,
                                                                          bool le, unsigned valid,
                                                                          int64_t *l, int64_t *r)
{
  unsigned m = TL_SN(below)(v, pv, le) & valid;
  int c = __builtin_popcount(m), all = __builtin_popcount(valid);
  /* the invalid lanes are the last ones, so they stay after the valid */
  __m256i w = _mm256_permutevar8x32_epi32(v, TL_SN(order)(m));
  TL_VSTORE(a + *l, TL_SN(low_mask)(c), w);
  TL_VSTORE(a + *r - all, TL_SN(low_mask)(all) & ~TL_SN(low_mask)(c), w);
  *l += c;
  *r -= all - c;
}
#endif

/* The n keys of src into dst: [0, result) < pivot (le: <= pivot), the rest
 * not.  Out of place, so each vector is read in order and split between the
 * two ends of dst, with no data-dependent choice of where to read next (an
 * in-place version, reading from whichever end had less room, measured
 * slower: that branch is random). */
TL_SIMD_FN static int64_t TL_SN(partition)(const TL_ST *src, TL_ST *dst, int64_t n, TL_ST pivot,
                                           bool le)
{
#if TL_VBITS == 512
  const __m512i pv = TL_VSET1(pivot);
  const unsigned full = TL_SN(low_mask)(TL_SL);
  int64_t l = 0, r = n, i = 0;
  for (; i + TL_SL <= n; i += TL_SL)
    TL_SN(split)(dst, _mm512_loadu_si512(src + i), pv, le, full, &l, &r);
  unsigned rest = TL_SN(low_mask)((int)(n - i));
  TL_SN(split)(dst, TL_VSORTLOAD(_mm512_setzero_si512(), rest, src + i), pv, le, rest, &l, &r);
#else
  const __m256i pv = TL_VSET1(pivot);
  int64_t l = 0, r = n, i = 0;
  for (; i + 2 * TL_SL <= n; i += TL_SL)
    TL_SN(split)(dst, _mm256_loadu_si256((const __m256i *)(src + i)), pv, le, &l, &r);
  for (; i < n; i += TL_SL) {
    int64_t c = n - i;
    unsigned valid = TL_SN(low_mask)(c > TL_SL ? TL_SL : (int)c);
    TL_SN(split_last)(dst, TL_VSORTLOAD(pv, valid, src + i), pv, le, valid, &l, &r);
  }
#endif
  return l;
}

/* The median of keys spread evenly over the run: one vector's worth, or 64
 * on long runs, where a better balanced split saves more than the sample
 * costs. */
TL_SIMD_FN static TL_ST TL_SN(pivot)(const TL_ST *a, int64_t n)
{
  TL_ST s[64];
  int m = n > 4096 ? 64 : TL_SL < 8 ? 16 : TL_SL;
  int64_t step = n / m;
  for (int i = 0; i < m; i++)
    s[i] = a[i * step + step / 2];
  if (m == TL_SL) {
    TL_VT v = TL_SN(sort_vec)(TL_VLOADU(s));
    TL_VSTOREU(s, v);
  } else {
    TL_SN(network_any)(s, s, m);
  }
  return s[m / 2];
}

/* Sort the n keys of a; t is scratch of n keys.  The partitions go back and
 * forth between a and t (in_t: the keys are in t now); the networks at the
 * leaves read either and write a. */
TL_SIMD_FN static void TL_SN(sort_simd)(TL_ST *a, TL_ST *t, int64_t n, bool in_t, int depth)
{
  while (n > 16 * TL_SL) {
    TL_ST *src = in_t ? t : a, *dst = in_t ? a : t;
    if (depth-- == 0) {
      if (in_t)
        memcpy(a, t, sizeof *a * (size_t)n);
#ifdef TL_VBIAS /* the heap sort orders them unbiased */
      for (int64_t i = 0; i < n; i++)
        a[i] ^= TL_VBIAS;
      TL_SN(heap_sort)(a, n);
      for (int64_t i = 0; i < n; i++)
        a[i] ^= TL_VBIAS;
#else
      TL_SN(heap_sort)(a, n);
#endif
      return;
    }
    TL_ST pivot = TL_SN(pivot)(src, n);
    int64_t m = TL_SN(partition)(src, dst, n, pivot, false);
    in_t = !in_t;
    if (m == 0) { /* the pivot is the smallest key: set its copies aside */
      m = TL_SN(partition)(dst, src, n, pivot, true);
      in_t = !in_t;
      if (in_t)
        memcpy(a, t, sizeof *a * (size_t)m);
      a += m;
      t += m;
      n -= m;
      continue;
    }
    if (m < n - m) {
      TL_SN(sort_simd)(a, t, m, in_t, depth);
      a += m;
      t += m;
      n -= m;
    } else {
      TL_SN(sort_simd)(a + m, t + m, n - m, in_t, depth);
      n = m;
    }
  }
  if (n > 1)
    TL_SN(network_any)(a, in_t ? t : a, n);
  else if (n == 1 && in_t)
    a[0] = t[0];
}

#endif /* TL_SORT_SIMD */

#undef TL_ST
#undef TL_SL
#undef TL_SN
#undef TL_VPERM
#undef TL_VBLEND
#undef TL_VMIN
#undef TL_VMAX
#undef TL_VMASKMAX
#undef TL_VSORTLOAD
#undef TL_VSTORE
#undef TL_VCMPLT
#undef TL_VCMPLE
#undef TL_VCOMPRESS
#undef TL_VSET1
#undef TL_VT
#undef TL_VBITS
#undef TL_VLOADU
#undef TL_VSTOREU
#undef TL_VMAXKEY
#undef TL_VGTMASK
#undef TL_VBIAS
