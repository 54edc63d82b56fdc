/* intdiv_simd.c - 64-bit a // d and a % d over a contiguous line, d one
 * positive integer for the whole line, in vectors.
 *
 * tl_intdiv.h turns the divide into a multiply-high; for 32-bit dividends
 * the compiler vectorises that itself (the product of two 32-bit lanes is a
 * 64-bit lane), but a 64-bit multiply-high has no vector instruction, so a
 * scalar 128-bit multiply per element was the floor (NumPy, which splits the
 * product into 32-bit halves in vectors, ran `a // 7` faster).  Here the
 * product is built from four 32 x 32 -> 64 lane multiplies:
 *
 *   u = uh 2^32 + ul, m = mh 2^32 + ml (m the magic, fixed for the line)
 *   u m = hh 2^64 + (lh + hl) 2^32 + ll
 *   mulhi(u, m) = hh + lh >> 32 + hl >> 32 + (ll >> 32 + lo32(lh) + lo32(hl)) >> 32
 *
 * and the rest of tl_intdiv.h's steps follow lane by lane (the sign fold,
 * the add-and-halve correction, the shift), so each lane's answer is the
 * scalar tl_floordiv64_do's / tl_udiv64_do's bit for bit; the remainder is
 * a - q d in wrapping arithmetic, as the scalar loops.  AVX-512F and AVX2
 * forms, chosen at run time; other CPUs, and the tail, take the scalar
 * code; TORCHLIKE_INTDIV_SIMD=avx2 or =0 forces a narrower path (read
 * once). */
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "ndcore/kernels/tl_intdiv.h"

#if defined(__GNUC__) && defined(__x86_64__) && !defined(TL_SANITIZE)
#define TL_INTDIV_X86 1
#include <immintrin.h>
#endif

/* The scalar line: the tail of the vector ones, and every line elsewhere. */
static void intdiv_scalar(uint64_t *o, const uint64_t *x, int64_t n, uint64_t d, tl_udiv64 m,
                          bool is_signed, bool remainder)
{
  for (int64_t i = 0; i < n; i++) {
    uint64_t q = is_signed ? (uint64_t)tl_floordiv64_do((int64_t)x[i], m) : tl_udiv64_do(x[i], m);
    o[i] = remainder ? x[i] - q * d : q;
  }
}

#ifdef TL_INTDIV_X86
__attribute__((target("avx512f"))) static void intdiv_avx512(uint64_t *o, const uint64_t *x,
                                                             int64_t n, uint64_t d, tl_udiv64 m,
                                                             bool is_signed, bool remainder)
{
  const __m512i ml = _mm512_set1_epi64((int64_t)(m.magic & 0xffffffffu));
  const __m512i mh = _mm512_set1_epi64((int64_t)(m.magic >> 32));
  const __m512i dl = _mm512_set1_epi64((int64_t)(d & 0xffffffffu));
  const __m512i dh = _mm512_set1_epi64((int64_t)(d >> 32));
  const __m512i low32 = _mm512_set1_epi64(0xffffffff);
  const __m128i shift = _mm_cvtsi32_si128(m.shift);
  int64_t i = 0;
  for (; i + 8 <= n; i += 8) {
    __m512i a = _mm512_loadu_si512((const void *)(x + i));
    __m512i s = is_signed ? _mm512_srai_epi64(a, 63) : _mm512_setzero_si512();
    __m512i u = _mm512_xor_si512(a, s);
    __m512i uh = _mm512_srli_epi64(u, 32);
    /* _mm512_mul_epu32 reads the low 32 bits of each lane: ul and ml */
    __m512i ll = _mm512_mul_epu32(u, ml), lh = _mm512_mul_epu32(u, mh);
    __m512i hl = _mm512_mul_epu32(uh, ml), hh = _mm512_mul_epu32(uh, mh);
    __m512i mid = _mm512_add_epi64(_mm512_srli_epi64(ll, 32),
                                   _mm512_add_epi64(_mm512_and_si512(lh, low32),
                                                    _mm512_and_si512(hl, low32)));
    __m512i t = _mm512_add_epi64(_mm512_add_epi64(hh, _mm512_srli_epi64(lh, 32)),
                                 _mm512_add_epi64(_mm512_srli_epi64(hl, 32),
                                                  _mm512_srli_epi64(mid, 32)));
    __m512i q = _mm512_add_epi64(t, _mm512_srli_epi64(_mm512_sub_epi64(u, t), 1));
    q = _mm512_xor_si512(_mm512_srl_epi64(q, shift), s);
    if (remainder) { /* the low 64 bits of q d: ql dl + (qh dl + ql dh) 2^32 */
      __m512i qd = _mm512_add_epi64(_mm512_mul_epu32(_mm512_srli_epi64(q, 32), dl),
                                    _mm512_mul_epu32(q, dh));
      qd = _mm512_add_epi64(_mm512_mul_epu32(q, dl), _mm512_slli_epi64(qd, 32));
      q = _mm512_sub_epi64(a, qd);
    }
    _mm512_storeu_si512((void *)(o + i), q);
  }
  intdiv_scalar(o + i, x + i, n - i, d, m, is_signed, remainder);
}

__attribute__((target("avx2"))) static void intdiv_avx2(uint64_t *o, const uint64_t *x,
                                                        int64_t n, uint64_t d, tl_udiv64 m,
                                                        bool is_signed, bool remainder)
{
  const __m256i ml = _mm256_set1_epi64x((int64_t)(m.magic & 0xffffffffu));
  const __m256i mh = _mm256_set1_epi64x((int64_t)(m.magic >> 32));
  const __m256i dl = _mm256_set1_epi64x((int64_t)(d & 0xffffffffu));
  const __m256i dh = _mm256_set1_epi64x((int64_t)(d >> 32));
  const __m256i low32 = _mm256_set1_epi64x(0xffffffff);
  const __m256i zero = _mm256_setzero_si256();
  const __m128i shift = _mm_cvtsi32_si128(m.shift);
  int64_t i = 0;
  for (; i + 4 <= n; i += 4) {
    __m256i a = _mm256_loadu_si256((const __m256i *)(x + i));
    /* AVX2 has no 64-bit arithmetic shift: the sign as a comparison */
    __m256i s = is_signed ? _mm256_cmpgt_epi64(zero, a) : zero;
    __m256i u = _mm256_xor_si256(a, s);
    __m256i uh = _mm256_srli_epi64(u, 32);
    __m256i ll = _mm256_mul_epu32(u, ml), lh = _mm256_mul_epu32(u, mh);
    __m256i hl = _mm256_mul_epu32(uh, ml), hh = _mm256_mul_epu32(uh, mh);
    __m256i mid = _mm256_add_epi64(_mm256_srli_epi64(ll, 32),
                                   _mm256_add_epi64(_mm256_and_si256(lh, low32),
                                                    _mm256_and_si256(hl, low32)));
    __m256i t = _mm256_add_epi64(_mm256_add_epi64(hh, _mm256_srli_epi64(lh, 32)),
                                 _mm256_add_epi64(_mm256_srli_epi64(hl, 32),
                                                  _mm256_srli_epi64(mid, 32)));
    __m256i q = _mm256_add_epi64(t, _mm256_srli_epi64(_mm256_sub_epi64(u, t), 1));
    q = _mm256_xor_si256(_mm256_srl_epi64(q, shift), s);
    if (remainder) {
      __m256i qd = _mm256_add_epi64(_mm256_mul_epu32(_mm256_srli_epi64(q, 32), dl),
                                    _mm256_mul_epu32(q, dh));
      qd = _mm256_add_epi64(_mm256_mul_epu32(q, dl), _mm256_slli_epi64(qd, 32));
      q = _mm256_sub_epi64(a, qd);
    }
    _mm256_storeu_si256((__m256i *)(o + i), q);
  }
  intdiv_scalar(o + i, x + i, n - i, d, m, is_signed, remainder);
}

#endif

typedef enum { INTDIV_SCALAR, INTDIV_AVX2, INTDIV_AVX512 } intdiv_path;

/* The widest path the CPU has, chosen once; TORCHLIKE_INTDIV_SIMD=avx2 or
 * =0 forces a narrower one, so the tests can compare all three. */
static intdiv_path intdiv_path_get(void)
{
  static int path = -1;
  if (path >= 0)
    return (intdiv_path)path;
  const char *env = getenv("TORCHLIKE_INTDIV_SIMD");
  bool allow256 = !env || strcmp(env, "0") != 0;
  bool allow512 = allow256 && !(env && strcmp(env, "avx2") == 0);
  path = INTDIV_SCALAR;
#ifdef TL_INTDIV_X86
  __builtin_cpu_init();
  if (allow512 && __builtin_cpu_supports("avx512f"))
    path = INTDIV_AVX512;
  else if (allow256 && __builtin_cpu_supports("avx2"))
    path = INTDIV_AVX2;
#else
  (void)allow256, (void)allow512;
#endif
  return (intdiv_path)path;
}

void tl_intdiv64_line(uint64_t *o, const uint64_t *x, int64_t n, uint64_t d, bool is_signed,
                      bool remainder)
{
  tl_udiv64 m = tl_udiv64_new(d);
  intdiv_path path = m.one ? INTDIV_SCALAR : intdiv_path_get();
#ifdef TL_INTDIV_X86
  if (path == INTDIV_AVX512) {
    intdiv_avx512(o, x, n, d, m, is_signed, remainder);
    return;
  }
  if (path == INTDIV_AVX2) {
    intdiv_avx2(o, x, n, d, m, is_signed, remainder);
    return;
  }
#endif
  intdiv_scalar(o, x, n, d, m, is_signed, remainder);
}
