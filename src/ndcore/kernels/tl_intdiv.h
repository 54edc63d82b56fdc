/* tl_intdiv.h - division of 64-bit unsigned integers by a divisor fixed for
 * a whole loop, as a multiply-high and shifts (Granlund and Montgomery,
 * "Division by invariant integers using multiplication", 1994, section 4).
 * x86's 64-bit divide takes tens of cycles; `a // 7` over an array spent
 * its time there.
 *
 * For d >= 2 with l = ceil(log2 d): m = floor(2^64 (2^l - d) / d) + 1, and
 * for every 64-bit n, with t = mulhi(m, n): n / d = (t + (n - t) / 2) >> (l - 1).
 * Signed floor division by a positive d folds the sign: for a < 0,
 * floor(a / d) = -1 - (-a - 1) / d = ~(~a / d), so with s = a >> 63 (all
 * ones when negative) floor(a / d) = s ^ ((a ^ s) / d), never overflowing. */
#ifndef TL_INTDIV_H
#define TL_INTDIV_H

#include <stdbool.h>
#include <stdint.h>

typedef struct {
  uint64_t magic;
  int shift; /* l - 1 */
  bool one;  /* d == 1: n itself */
} tl_udiv64;

static inline tl_udiv64 tl_udiv64_new(uint64_t d)
{
  tl_udiv64 r = {.one = d == 1};
  if (r.one)
    return r;
  int l = 64 - __builtin_clzll(d - 1); /* ceil(log2 d), d >= 2 */
  /* 2^l - d < 2^64; for l = 64 the wrapped 0 - d is exactly that */
  uint64_t excess = (l == 64 ? 0 : (uint64_t)1 << l) - d;
  r.magic = (uint64_t)(((unsigned __int128)excess << 64) / d) + 1;
  r.shift = l - 1;
  return r;
}

static inline uint64_t tl_udiv64_do(uint64_t n, tl_udiv64 m)
{
  if (m.one)
    return n;
  uint64_t t = (uint64_t)(((unsigned __int128)m.magic * n) >> 64);
  return (t + ((n - t) >> 1)) >> m.shift;
}

/* floor(a / d) for a divisor d >= 1 (as tl_udiv64_new(d)). */
static inline int64_t tl_floordiv64_do(int64_t a, tl_udiv64 m)
{
  uint64_t s = (uint64_t)(a >> 63);
  return (int64_t)(s ^ tl_udiv64_do((uint64_t)a ^ s, m));
}

/* The same for 32-bit unsigned n and d: the magic fits 32 bits and the
 * multiply-high is a 64-bit product, which vectorises (the 64-bit one does
 * not).  Signed 8-, 16- and 32-bit dividends are folded as above. */
typedef struct {
  uint32_t magic;
  int shift;
  bool one;
} tl_udiv32;

static inline tl_udiv32 tl_udiv32_new(uint32_t d)
{
  tl_udiv32 r = {.one = d == 1};
  if (r.one)
    return r;
  int l = 32 - __builtin_clz(d - 1);
  uint32_t excess = (l == 32 ? 0 : (uint32_t)1 << l) - d;
  r.magic = (uint32_t)(((uint64_t)excess << 32) / d) + 1;
  r.shift = l - 1;
  return r;
}

static inline uint32_t tl_udiv32_do(uint32_t n, tl_udiv32 m)
{
  if (m.one)
    return n;
  uint32_t t = (uint32_t)(((uint64_t)m.magic * n) >> 32);
  return (t + ((n - t) >> 1)) >> m.shift;
}

static inline int32_t tl_floordiv32_do(int32_t a, tl_udiv32 m)
{
  uint32_t s = (uint32_t)(a >> 31);
  return (int32_t)(s ^ tl_udiv32_do((uint32_t)a ^ s, m));
}

/* The 64-bit loops' contiguous lines, in vectors (intdiv_simd.c): o[i] =
 * x[i] // d (floor for signed x, which then needs d <= INT64_MAX), or with
 * remainder the wrapping x[i] - (x[i] // d) d; d >= 1.  Bits as the scalar
 * forms above. */
void tl_intdiv64_line(uint64_t *o, const uint64_t *x, int64_t n, uint64_t d, bool is_signed,
                      bool remainder);

#endif
