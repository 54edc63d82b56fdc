/* philox_words.c - the words of runs of Philox4x32-10 counter blocks: the
 * bulk draws' source of bits (random.c, the samplers, dropout).
 *
 * Same words as tl_px_block (tl_philox.h) block by block; only the schedule
 * differs.  Blocks are independent, so several go through the ten rounds
 * side by side, one block per 64-bit vector lane: a 32 x 32 -> 64 multiply
 * (vpmuludq) then gives both halves a round needs, and the high words of the
 * lanes are left holding garbage that nothing reads (the multiplies read the
 * low 32 bits, the results keep the low 32).  Four vectors are in flight at
 * once, since one round's chain (multiply, shuffle, xor) is about three
 * times longer than the time the machine needs to issue it.
 *
 * Written with intrinsics: GCC's vectoriser turns the portable lane loop
 * (tl_px_rounds_lanes) into a full 64 x 64 multiply, three vpmuludq where
 * one does.  AVX-512F and AVX2 variants, picked once from the CPU; the
 * portable lanes elsewhere.  TORCHLIKE_PHILOX_SIMD=avx2 or =0 forces a
 * narrower path (read once), so the tests can compare all three.           */
#include <stdlib.h>
#include <string.h>

#include "gpu/random/tl_philox.h"
#include "ndcore/kernels/tl_random.h"
#include "ndcore/kernels/tl_simd_clones.h"

#if defined(__GNUC__) && !defined(__clang__) && defined(__x86_64__) && !defined(TL_SANITIZE)
#define PX_X86 1
#include <immintrin.h>
#else
#define PX_X86 0
#endif

/* The portable schedule: TL_PX_LANES blocks as structure of arrays. */
TL_SIMD_CLONES static int words_lanes(uint64_t seed, uint64_t first, int nblocks, uint32_t *w)
{
  int b = 0;
  for (; b + TL_PX_LANES <= nblocks; b += TL_PX_LANES) {
    uint32_t c0[TL_PX_LANES], c1[TL_PX_LANES], c2[TL_PX_LANES], c3[TL_PX_LANES];
    for (int l = 0; l < TL_PX_LANES; l++) {
      uint64_t ctr = first + (uint64_t)(b + l);
      c0[l] = (uint32_t)ctr, c1[l] = (uint32_t)(ctr >> 32), c2[l] = 0, c3[l] = 0;
    }
    tl_px_rounds_lanes(seed, c0, c1, c2, c3);
    for (int l = 0; l < TL_PX_LANES; l++) {
      uint32_t *o = w + 4 * (b + l);
      o[0] = c0[l], o[1] = c1[l], o[2] = c2[l], o[3] = c3[l];
    }
  }
  return b;
}

#if PX_X86

/* _MM_PERM_CDAB on 32-bit elements: swaps the halves of each 64-bit lane,
 * which brings a product's high word down to where the next step reads. */
#define PX_SWAP 0xB1

/* ---- AVX-512F: 8 blocks a vector, 4 vectors (32 blocks) a step ---- */

#define PX512_G 4

__attribute__((target("avx512f"))) static inline void
words512_store(__m512i c0, __m512i c1, __m512i c2, __m512i c3, uint32_t *w)
{
  /* Lane l of c0..c3 is block l; its 4 words go to w[4l .. 4l+3].  Pair the
   * words (c0 c1 and c2 c3 of a block side by side in one 64-bit lane), then
   * 128-bit blocks of even and odd lanes, then put the lanes in order. */
  __m512i c01 = _mm512_mask_shuffle_epi32(c0, 0xAAAA, c1, PX_SWAP);
  __m512i c23 = _mm512_mask_shuffle_epi32(c2, 0xAAAA, c3, PX_SWAP);
  __m512i even = _mm512_unpacklo_epi64(c01, c23); /* blocks 0 2 4 6 */
  __m512i odd = _mm512_unpackhi_epi64(c01, c23);  /* blocks 1 3 5 7 */
  const __m512i lo = _mm512_setr_epi64(0, 1, 8, 9, 2, 3, 10, 11);
  const __m512i hi = _mm512_setr_epi64(4, 5, 12, 13, 6, 7, 14, 15);
  _mm512_storeu_si512(w, _mm512_permutex2var_epi64(even, lo, odd));
  _mm512_storeu_si512(w + 16, _mm512_permutex2var_epi64(even, hi, odd));
}

__attribute__((target("avx512f"))) static int words512(uint64_t seed, uint64_t first,
                                                       int nblocks, uint32_t *w)
{
  const __m512i m0 = _mm512_set1_epi64(TL_PX_M0), m1 = _mm512_set1_epi64(TL_PX_M1);
  const __m512i iota = _mm512_setr_epi64(0, 1, 2, 3, 4, 5, 6, 7);
  int b = 0;
  for (; b + 8 * PX512_G <= nblocks; b += 8 * PX512_G) {
    __m512i c0[PX512_G], c1[PX512_G], c2[PX512_G], c3[PX512_G];
    for (int g = 0; g < PX512_G; g++) {
      /* The 64-bit counter: its low word in c0, its high word in c1. */
      c0[g] = _mm512_add_epi64(_mm512_set1_epi64((long long)(first + (uint64_t)(b + 8 * g))),
                               iota);
      c1[g] = _mm512_shuffle_epi32(c0[g], PX_SWAP);
      c2[g] = c3[g] = _mm512_setzero_si512();
    }
    uint32_t k0 = (uint32_t)seed, k1 = (uint32_t)(seed >> 32);
    for (int round = 0; round < 10; round++) {
      const __m512i key0 = _mm512_set1_epi32((int)k0), key1 = _mm512_set1_epi32((int)k1);
      for (int g = 0; g < PX512_G; g++) {
        __m512i p0 = _mm512_mul_epu32(c0[g], m0), p1 = _mm512_mul_epu32(c2[g], m1);
        /* 0x96: a ^ b ^ c */
        c0[g] = _mm512_ternarylogic_epi32(_mm512_shuffle_epi32(p1, PX_SWAP), c1[g], key0, 0x96);
        c2[g] = _mm512_ternarylogic_epi32(_mm512_shuffle_epi32(p0, PX_SWAP), c3[g], key1, 0x96);
        c1[g] = p1;
        c3[g] = p0;
      }
      k0 += TL_PX_W0;
      k1 += TL_PX_W1;
    }
    for (int g = 0; g < PX512_G; g++)
      words512_store(c0[g], c1[g], c2[g], c3[g], w + 4 * (b + 8 * g));
  }
  return b;
}

/* ---- AVX2: 4 blocks a vector, 4 vectors (16 blocks) a step ---- */

#define PX256_G 4

__attribute__((target("avx2"))) static inline void
words256_store(__m256i c0, __m256i c1, __m256i c2, __m256i c3, uint32_t *w)
{
  __m256i c01 = _mm256_blend_epi32(c0, _mm256_shuffle_epi32(c1, PX_SWAP), 0xAA);
  __m256i c23 = _mm256_blend_epi32(c2, _mm256_shuffle_epi32(c3, PX_SWAP), 0xAA);
  __m256i even = _mm256_unpacklo_epi64(c01, c23); /* blocks 0 2 */
  __m256i odd = _mm256_unpackhi_epi64(c01, c23);  /* blocks 1 3 */
  _mm256_storeu_si256((__m256i *)w, _mm256_permute2x128_si256(even, odd, 0x20));
  _mm256_storeu_si256((__m256i *)(w + 8), _mm256_permute2x128_si256(even, odd, 0x31));
}

__attribute__((target("avx2"))) static int words256(uint64_t seed, uint64_t first, int nblocks,
                                                     uint32_t *w)
{
  const __m256i m0 = _mm256_set1_epi64x(TL_PX_M0), m1 = _mm256_set1_epi64x(TL_PX_M1);
  const __m256i iota = _mm256_setr_epi64x(0, 1, 2, 3);
  int b = 0;
  for (; b + 4 * PX256_G <= nblocks; b += 4 * PX256_G) {
    __m256i c0[PX256_G], c1[PX256_G], c2[PX256_G], c3[PX256_G];
    for (int g = 0; g < PX256_G; g++) {
      c0[g] = _mm256_add_epi64(_mm256_set1_epi64x((long long)(first + (uint64_t)(b + 4 * g))),
                               iota);
      c1[g] = _mm256_shuffle_epi32(c0[g], PX_SWAP);
      c2[g] = c3[g] = _mm256_setzero_si256();
    }
    uint32_t k0 = (uint32_t)seed, k1 = (uint32_t)(seed >> 32);
    for (int round = 0; round < 10; round++) {
      const __m256i key0 = _mm256_set1_epi32((int)k0), key1 = _mm256_set1_epi32((int)k1);
      for (int g = 0; g < PX256_G; g++) {
        __m256i p0 = _mm256_mul_epu32(c0[g], m0), p1 = _mm256_mul_epu32(c2[g], m1);
        c0[g] = _mm256_xor_si256(_mm256_xor_si256(_mm256_shuffle_epi32(p1, PX_SWAP), c1[g]), key0);
        c2[g] = _mm256_xor_si256(_mm256_xor_si256(_mm256_shuffle_epi32(p0, PX_SWAP), c3[g]), key1);
        c1[g] = p1;
        c3[g] = p0;
      }
      k0 += TL_PX_W0;
      k1 += TL_PX_W1;
    }
    for (int g = 0; g < PX256_G; g++)
      words256_store(c0[g], c1[g], c2[g], c3[g], w + 4 * (b + 4 * g));
  }
  return b;
}

#endif /* PX_X86 */

typedef int (*words_fn)(uint64_t seed, uint64_t first, int nblocks, uint32_t *w);

/* The widest schedule the CPU runs and the environment allows. */
static words_fn pick_words(void)
{
  const char *env = getenv("TORCHLIKE_PHILOX_SIMD"); /* "0", "avx2"; else the widest */
  bool allow256 = !env || strcmp(env, "0") != 0;
  bool allow512 = allow256 && !(env && strcmp(env, "avx2") == 0);
#if PX_X86
  __builtin_cpu_init();
  if (allow512 && __builtin_cpu_supports("avx512f"))
    return words512;
  if (allow256 && __builtin_cpu_supports("avx2"))
    return words256;
#else
  (void)allow256, (void)allow512;
#endif
  return words_lanes;
}

void tl_philox_words(uint64_t seed, uint64_t first, int nblocks, uint32_t *w)
{
  static words_fn words; /* set once; every thread picks the same one */
  words_fn fn = __atomic_load_n(&words, __ATOMIC_RELAXED);
  if (!fn) {
    fn = pick_words();
    __atomic_store_n(&words, fn, __ATOMIC_RELAXED);
  }
  int b = fn(seed, first, nblocks, w);
  for (; b < nblocks; b++)
    tl_px_block(seed, first + (uint64_t)b, w + 4 * b);
}
