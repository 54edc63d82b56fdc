/* tl_philox.h - Philox4x32-10 and the value of element v of a random draw,
 * as functions that compile both as host C (the CPU's kernels in
 * src/ndcore/kernels/random.c and a test hook) and as CUDA device code (the
 * GPU's kernels in src/gpu/random/).  One definition on both sides is what
 * makes a CUDA draw bit-identical to the CPU's for the same seed.
 *
 * The mapping (tl_random.h): value v of a draw reads counter block
 * first + v / per, slot v % per; narrow values take one 32-bit word (per 4),
 * wide ones two (per 2); a normal value is one half of the Box-Muller pair
 * made of its slot and its neighbour (slots v & ~1 and v | 1).
 *
 * Arithmetic that must match bit for bit goes through tl_px_add/mul/div
 * (tl_px_fadd/... in float32): plain operators on the host (ISO C mode
 * never contracts, so even the CPU loops' AVX2/AVX-512 clones emit no FMA;
 * tests/test_cuda_random.py compares them), the _rn intrinsics on the device so that
 * nvcc cannot fuse a multiply and an add.  The logarithm and the cosine of
 * Box-Muller are computed here from those operations (a polynomial after
 * exact range reduction), not taken from either side's math library, whose
 * last bits differ between glibc, libmvec and CUDA.                         */
#ifndef TL_PHILOX_H
#define TL_PHILOX_H

#include <math.h>
#include <stdbool.h>
#include <stdint.h>
#include <string.h>

#ifdef __CUDACC__
#define TL_PX_FN static __host__ __device__ inline
#else
#define TL_PX_FN static inline
#endif
/* Small loops over constants unrolled whole, so that a loop calling these
 * functions has no inner control flow and vectorizes. */
#if defined(__CUDA_ARCH__)
#define TL_PX_UNROLL _Pragma("unroll")
#elif defined(__CUDACC__) /* nvcc's host pass: the host compiler unrolls as it likes */
#define TL_PX_UNROLL
#elif defined(__GNUC__) && !defined(__clang__)
#define TL_PX_UNROLL _Pragma("GCC unroll 16")
#else
#define TL_PX_UNROLL
#endif

/* The draw kinds; tl_random_kind (tl_random.h) takes its values from these. */
enum {
  TL_PX_UNIFORM,
  TL_PX_NORMAL,
  TL_PX_INTEGER,
  TL_PX_BERNOULLI,
  TL_PX_EXPONENTIAL,
  TL_PX_CAUCHY,
  TL_PX_LOG_NORMAL,
  TL_PX_GEOMETRIC,
};

/* ---- arithmetic that never contracts ---------------------------------------------- */

/* Each rounds once, as IEEE 754 says, on both sides: plain operators on the
 * host (C11 never contracts them into an FMA here), the _rn intrinsics on the
 * device (where nvcc would). */
#ifdef __CUDA_ARCH__
#define TL_PX_ROUNDED(T, NAME, OP, DEVICE)                                                     \
  TL_PX_FN T NAME(T a, T b) { return DEVICE(a, b); }
#define TL_PX_SQRT(T, NAME, HOST, DEVICE)                                                      \
  TL_PX_FN T NAME(T a) { return DEVICE(a); }
#else
#define TL_PX_ROUNDED(T, NAME, OP, DEVICE)                                                     \
  TL_PX_FN T NAME(T a, T b) { return a OP b; }
#define TL_PX_SQRT(T, NAME, HOST, DEVICE) /* correctly rounded (IEEE 754) */                 \
  TL_PX_FN T NAME(T a) { return HOST(a); }
#endif
TL_PX_ROUNDED(double, tl_px_add, +, __dadd_rn)
TL_PX_ROUNDED(double, tl_px_mul, *, __dmul_rn)
TL_PX_ROUNDED(double, tl_px_div, /, __ddiv_rn)
TL_PX_SQRT(double, tl_px_sqrt, __builtin_sqrt, __dsqrt_rn)
/* The same in float32, for the narrow normals (tl_px_normal_pair_narrow). */
TL_PX_ROUNDED(float, tl_px_fadd, +, __fadd_rn)
TL_PX_ROUNDED(float, tl_px_fmul, *, __fmul_rn)
TL_PX_ROUNDED(float, tl_px_fdiv, /, __fdiv_rn)
TL_PX_SQRT(float, tl_px_fsqrt, __builtin_sqrtf, __fsqrt_rn)
#undef TL_PX_ROUNDED
#undef TL_PX_SQRT

/* The high 64 bits of x * y. */
TL_PX_FN uint64_t tl_px_mulhi(uint64_t x, uint64_t y)
{
#ifdef __CUDA_ARCH__
  return __umul64hi(x, y);
#else
  __extension__ typedef unsigned __int128 u128;
  return (uint64_t)(((u128)x * y) >> 64);
#endif
}

/* ---- Philox4x32-10 ------------------------------------------------------------------ */

#define TL_PX_M0 0xD2511F53u
#define TL_PX_M1 0xCD9E8D57u
#define TL_PX_W0 0x9E3779B9u /* key schedule: golden ratio */
#define TL_PX_W1 0xBB67AE85u /* key schedule: sqrt(3) - 1 */

/* The block of the 128-bit counter (c0 c1 c2 c3, low word first) under key
 * `seed`: four 32-bit words, as tl_philox4x32_10 (random.c) computes them. */
TL_PX_FN void tl_px_block4(uint64_t seed, uint32_t c0, uint32_t c1, uint32_t c2, uint32_t c3,
                           uint32_t w[4])
{
  uint32_t k0 = (uint32_t)seed, k1 = (uint32_t)(seed >> 32);
  for (int round = 0; round < 10; round++) {
    uint64_t p0 = (uint64_t)TL_PX_M0 * c0, p1 = (uint64_t)TL_PX_M1 * c2;
    uint32_t n0 = (uint32_t)(p1 >> 32) ^ c1 ^ k0;
    uint32_t n2 = (uint32_t)(p0 >> 32) ^ c3 ^ k1;
    c1 = (uint32_t)p1;
    c3 = (uint32_t)p0;
    c0 = n0;
    c2 = n2;
    k0 += TL_PX_W0;
    k1 += TL_PX_W1;
  }
  w[0] = c0, w[1] = c1, w[2] = c2, w[3] = c3;
}

#ifndef __CUDACC__
/* TL_PX_LANES counter blocks side by side, as structure of arrays (c0[l] ..
 * c3[l] are block l's words), so that the ten rounds vectorise: 16 blocks
 * are one AVX-512 vector per word.  Host only: the CPU's bulk draws
 * (random.c) and attention's dropout mask (attention_cpu.c); always inlined
 * so each of their target clones compiles it for its own vector width. */
#define TL_PX_LANES 16
__attribute__((always_inline)) static inline void
tl_px_rounds_lanes(uint64_t seed, uint32_t c0[TL_PX_LANES], uint32_t c1[TL_PX_LANES],
                   uint32_t c2[TL_PX_LANES], uint32_t c3[TL_PX_LANES])
{
  uint32_t k0 = (uint32_t)seed, k1 = (uint32_t)(seed >> 32);
  for (int round = 0; round < 10; round++) {
#pragma omp simd
    for (int l = 0; l < TL_PX_LANES; l++) {
      uint64_t p0 = (uint64_t)TL_PX_M0 * c0[l], p1 = (uint64_t)TL_PX_M1 * c2[l];
      uint32_t n0 = (uint32_t)(p1 >> 32) ^ c1[l] ^ k0;
      uint32_t n2 = (uint32_t)(p0 >> 32) ^ c3[l] ^ k1;
      c1[l] = (uint32_t)p1;
      c3[l] = (uint32_t)p0;
      c0[l] = n0;
      c2[l] = n2;
    }
    k0 += TL_PX_W0;
    k1 += TL_PX_W1;
  }
}
#endif

/* Block `counter` (the low 64 bits of the 128-bit counter; the high words
 * are 0) under key `seed`. */
TL_PX_FN void tl_px_block(uint64_t seed, uint64_t counter, uint32_t w[4])
{
  tl_px_block4(seed, (uint32_t)counter, (uint32_t)(counter >> 32), 0, 0, w);
}

/* ---- words to numbers ------------------------------------------------------------------ */

TL_PX_FN uint64_t tl_px_wide(const uint32_t *w) { return (uint64_t)w[1] << 32 | w[0]; }
/* (double)(x >> 11), the top 53 bits, as 2^22 times its top 31 bits plus its
 * low 22: every part and the sum are integers below 2^53, so the value is
 * exact and the same as the direct conversion; but int32 -> double
 * vectorises on every x86 width, where uint64 -> double needs AVX-512DQ and
 * is otherwise one scalar conversion a value. */
TL_PX_FN double tl_px_top53(uint64_t x)
{
  return tl_px_add(tl_px_mul((double)(int32_t)(x >> 33), 0x1p22),
                   (double)(int32_t)((x >> 11) & 0x3FFFFF));
}
/* Uniform on [0, 1) with 53 bits. */
TL_PX_FN double tl_px_unit_wide(uint64_t x) { return tl_px_mul(tl_px_top53(x), 0x1p-53); }
/* Uniform on the open interval (0, 1): safe under log(). */
TL_PX_FN double tl_px_open_narrow(uint32_t w) { return ((double)w + 0.5) * 0x1p-32; }
TL_PX_FN double tl_px_open_wide(uint64_t x)
{
  return tl_px_mul(tl_px_add(tl_px_top53(x), 0.5), 0x1p-53);
}
/* Uniform on [0, 1) with `bits` (<= 32) bits: float16 11, float32 24 ... */
TL_PX_FN double tl_px_unit_narrow(uint32_t w, int bits)
{
  return (double)(w >> (32 - bits)) / (double)((uint64_t)1 << bits); /* exact: a power of 2 */
}

/* ---- log and sincos from + - * / ----------------------------------------------------- */

/* log(x) for a normal double x in (0, 1] (the open uniforms it is called with):
 * x = m 2^e with m in [sqrt(1/2), sqrt(2)), found by exact scalings by
 * powers of two (compares and selects on doubles only, so the CPU's loops
 * vectorize with plain SSE2); log m = 2 atanh(s), s = (m - 1) / (m + 1),
 * |s| < 0.172, as an odd series to s^23 (the next term is below 2^-56 of
 * the sum); e ln 2 in two parts, the first with trailing zeros so that
 * e * ln2_hi is exact.  About 1.5 ulp. */
TL_PX_FN double tl_px_log(double x)
{
  double e = 0;
  TL_PX_UNROLL
  for (int i = 9; i >= 0; i--) { /* x to [1/2, 1]: steps of 2^512, 2^256 ... 2 */
    double step = (double)(1 << i), up = ldexp(1.0, 1 << i), below = ldexp(1.0, -(1 << i));
    bool small = x < below; /* selects of constants, then exact arithmetic */
    x = tl_px_mul(x, small ? up : 1.0);
    e = tl_px_add(e, small ? -step : 0.0);
  }
  bool low = x < 0x1.6a09e667f3bcdp-1; /* below sqrt(1/2): into [sqrt(1/2), sqrt(2)) */
  double m = tl_px_mul(x, low ? 2.0 : 1.0);
  e = tl_px_add(e, low ? -1.0 : 0.0);
  double s = tl_px_div(tl_px_add(m, -1.0), tl_px_add(m, 1.0)), z = tl_px_mul(s, s);
  const double c[] = {0x1.5555555555555p-1, 0x1.999999999999ap-2, 0x1.2492492492492p-2,
                      0x1.c71c71c71c71cp-3, 0x1.745d1745d1746p-3, 0x1.3b13b13b13b14p-3,
                      0x1.1111111111111p-3, 0x1.e1e1e1e1e1e1ep-4, 0x1.af286bca1af28p-4,
                      0x1.8618618618618p-4, 0x1.642c8590b2164p-4};
  double p = c[10];
  TL_PX_UNROLL
  for (int k = 9; k >= 0; k--)
    p = tl_px_add(c[k], tl_px_mul(z, p));
  double log_m = tl_px_add(tl_px_mul(2.0, s), tl_px_mul(tl_px_mul(s, z), p));
  const double ln2_hi = 0x1.62e42fee00000p-1, ln2_lo = 0x1.a39ef35793c76p-33;
  return tl_px_add(tl_px_mul(e, ln2_hi), tl_px_add(log_m, tl_px_mul(e, ln2_lo)));
}

/* cos and sin of t in [0, 2 pi]: t = k pi/2 + r with |r| <= pi/4 (k found
 * by compares, pi/2 in two parts, the first with trailing zeros so that
 * k * pio2_hi is exact), then the Taylor series of cos r and sin r to r^16
 * and r^17, and the quadrant by selects. */
TL_PX_FN void tl_px_sincos(double t, double *sin_t, double *cos_t)
{
  const double pio2_hi = 0x1.921fb54400000p0, pio2_lo = 0x1.0b4611a626331p-34;
  double y = tl_px_add(tl_px_mul(t, 0x1.45f306dc9c883p-1), 0.5); /* t 2/pi + 1/2, below 4.5 */
  double k = (y >= 1.0 ? 1.0 : 0.0) + (y >= 2.0 ? 1.0 : 0.0) + (y >= 3.0 ? 1.0 : 0.0) +
             (y >= 4.0 ? 1.0 : 0.0); /* round(t 2/pi), exact small integers */
  double r = tl_px_add(tl_px_add(t, -tl_px_mul(k, pio2_hi)), -tl_px_mul(k, pio2_lo));
  double z = tl_px_mul(r, r);
  const double cc[] = {-0x1.0000000000000p-1, 0x1.5555555555555p-5, -0x1.6c16c16c16c17p-10,
                       0x1.a01a01a01a01ap-16, -0x1.27e4fb7789f5cp-22, 0x1.1eed8eff8d898p-29,
                       -0x1.93974a8c07c9dp-37, 0x1.ae7f3e733b81fp-45};
  const double sc[] = {-0x1.5555555555555p-3, 0x1.1111111111111p-7, -0x1.a01a01a01a01ap-13,
                       0x1.71de3a556c734p-19, -0x1.ae64567f544e4p-26, 0x1.6124613a86d09p-33,
                       -0x1.ae7f3e733b81fp-41, 0x1.952c77030ad4ap-49};
  double pc = cc[7], ps = sc[7];
  TL_PX_UNROLL
  for (int j = 6; j >= 0; j--) {
    pc = tl_px_add(cc[j], tl_px_mul(z, pc));
    ps = tl_px_add(sc[j], tl_px_mul(z, ps));
  }
  double c = tl_px_add(1.0, tl_px_mul(z, pc)), s = tl_px_add(r, tl_px_mul(tl_px_mul(r, z), ps));
  /* quadrant k mod 4: cos t = (c, -s, -c, s), sin t = (s, c, -s, -c) */
  bool odd = (k == 1.0) | (k == 3.0); /* | not ||: no branch */
  double cos_r = odd ? s : c, sin_r = odd ? c : s;
  *cos_t = tl_px_mul(cos_r, (k == 1.0) | (k == 2.0) ? -1.0 : 1.0);
  *sin_t = tl_px_mul(sin_r, (k == 2.0) | (k == 3.0) ? -1.0 : 1.0);
}

/* Box-Muller: two independent standard normals from u1 in (0, 1) and u2 in
 * [0, 1). */
TL_PX_FN void tl_px_box_muller(double u1, double u2, double *z0, double *z1)
{
  double r = tl_px_sqrt(tl_px_mul(-2.0, tl_px_log(u1)));
  double s, c;
  tl_px_sincos(tl_px_mul(0x1.921fb54442d18p+2, u2), &s, &c); /* 2 pi u2 */
  *z0 = tl_px_mul(r, c);
  *z1 = tl_px_mul(r, s);
}

/* ---- the narrow normals in float32 ---------------------------------------------------- */

/* Narrow outputs (float32, float16, bfloat16) hold 24 bits or fewer, so their
 * normals are made in float32 arithmetic: twice the SIMD lanes of double and
 * shorter polynomials.  Within 4 ulp of float32 of Box-Muller computed in
 * double from the same uniforms (tests/test_cuda_random.py checks it). */

/* log(x) for x in [2^-24, 1], the same steps as tl_px_log in float32: the
 * series of 2 atanh(s) to s^9 (the next term is below 2^-27 of the sum). */
TL_PX_FN float tl_px_logf(float x)
{
  float e = 0;
  TL_PX_UNROLL
  for (int i = 4; i >= 0; i--) { /* x to [1/2, 1]: steps of 2^16, 2^8 ... 2 */
    float step = (float)(1 << i), up = (float)(1 << (1 << i)), below = 1.0f / up;
    bool small = x < below; /* exact: powers of two */
    x = tl_px_fmul(x, small ? up : 1.0f);
    e = tl_px_fadd(e, small ? -step : 0.0f);
  }
  bool low = x < 0x1.6a09e6p-1f; /* into [sqrt(1/2), sqrt(2)) */
  float m = tl_px_fmul(x, low ? 2.0f : 1.0f);
  e = tl_px_fadd(e, low ? -1.0f : 0.0f);
  float s = tl_px_fdiv(tl_px_fadd(m, -1.0f), tl_px_fadd(m, 1.0f)), z = tl_px_fmul(s, s);
  float p = tl_px_fadd(0x1.24924ap-2f, tl_px_fmul(z, 0x1.c71c72p-3f));
  p = tl_px_fadd(0x1.99999ap-2f, tl_px_fmul(z, p));
  p = tl_px_fadd(0x1.555556p-1f, tl_px_fmul(z, p));
  float log_m = tl_px_fadd(tl_px_fmul(2.0f, s), tl_px_fmul(tl_px_fmul(s, z), p));
  const float ln2_hi = 0x1.62e4p-1f, ln2_lo = 0x1.7f7d1cp-20f; /* e ln2_hi exact */
  return tl_px_fadd(tl_px_fmul(e, ln2_hi), tl_px_fadd(log_m, tl_px_fmul(e, ln2_lo)));
}

/* cos and sin of 2 pi u for u in [0, 1) a multiple of 2^-24: the quadrant k
 * = round(4 u) and u - k/4 are exact, so the reduced angle r = 2 pi (u - k/4),
 * |r| <= pi/4, has one rounding; Taylor series of cos r to r^12 and sin r to
 * r^11. */
TL_PX_FN void tl_px_sincos_turnf(float u, float *sin_t, float *cos_t)
{
  float y = tl_px_fadd(tl_px_fmul(u, 4.0f), 0.5f);
  float k = (y >= 1.0f ? 1.0f : 0.0f) + (y >= 2.0f ? 1.0f : 0.0f) + (y >= 3.0f ? 1.0f : 0.0f) +
            (y >= 4.0f ? 1.0f : 0.0f);
  float r = tl_px_fmul(tl_px_fadd(u, tl_px_fmul(k, -0.25f)), 0x1.921fb6p+2f);
  float z = tl_px_fmul(r, r);
  const float cc[] = {-0x1p-1f, 0x1.555556p-5f, -0x1.6c16c2p-10f, 0x1.a01a02p-16f,
                      -0x1.27e4fcp-22f, 0x1.1eed8ep-29f};
  const float sc[] = {-0x1.555556p-3f, 0x1.111112p-7f, -0x1.a01a02p-13f, 0x1.71de3ap-19f,
                      -0x1.ae6456p-26f};
  float pc = cc[5], ps = sc[4];
  TL_PX_UNROLL
  for (int j = 4; j >= 0; j--)
    pc = tl_px_fadd(cc[j], tl_px_fmul(z, pc));
  TL_PX_UNROLL
  for (int j = 3; j >= 0; j--)
    ps = tl_px_fadd(sc[j], tl_px_fmul(z, ps));
  float c = tl_px_fadd(1.0f, tl_px_fmul(z, pc)), s = tl_px_fadd(r, tl_px_fmul(tl_px_fmul(r, z), ps));
  /* quadrant k mod 4: cos t = (c, -s, -c, s), sin t = (s, c, -s, -c) */
  bool odd = (k == 1.0f) | (k == 3.0f);
  float cos_r = odd ? s : c, sin_r = odd ? c : s;
  *cos_t = tl_px_fmul(cos_r, (k == 1.0f) | (k == 2.0f) ? -1.0f : 1.0f);
  *sin_t = tl_px_fmul(sin_r, (k == 2.0f) | (k == 3.0f) ? -1.0f : 1.0f);
}

/* The normal pair of two words (slots 0, 1 or 2, 3) in float32: u1 = 1 - a
 * 24-bit uniform, in (0, 1] and exact; u2 a 24-bit uniform in [0, 1). */
TL_PX_FN void tl_px_normal_pair_narrow(uint32_t w0, uint32_t w1, float *z0, float *z1)
{
  float u1 = tl_px_fadd(1.0f, -(float)(w0 >> 8) * 0x1p-24f), u2 = (float)(w1 >> 8) * 0x1p-24f;
  float r = tl_px_fsqrt(tl_px_fmul(-2.0f, tl_px_logf(u1)));
  float s, c;
  tl_px_sincos_turnf(u2, &s, &c);
  *z0 = tl_px_fmul(r, c);
  *z1 = tl_px_fmul(r, s);
}

/* The two uniforms of a wide normal pair, the whole block: two 53-bit
 * uniforms, u1 open on (0, 1). */
TL_PX_FN void tl_px_pair_uniforms(const uint32_t *w, double *u1, double *u2)
{
  *u1 = tl_px_open_wide(tl_px_wide(w));
  *u2 = tl_px_unit_wide(tl_px_wide(w + 2));
}

/* The normal pair of those words: a wide pair from the whole block, a narrow
 * one from two words. */
TL_PX_FN void tl_px_normal_pair(const uint32_t *w, int wide, double *z0, double *z1)
{
  if (wide) {
    double u1, u2;
    tl_px_pair_uniforms(w, &u1, &u2);
    tl_px_box_muller(u1, u2, z0, z1);
  } else {
    float f0, f1;
    tl_px_normal_pair_narrow(w[0], w[1], &f0, &f1);
    *z0 = f0, *z1 = f1;
  }
}

/* ---- one value of a draw --------------------------------------------------------------- */

/* A draw as the kernels see it (plain data: host C, device C++). */
typedef struct {
  int kind;       /* TL_PX_* */
  int wide;       /* two words a value */
  int per;        /* values per counter block: 2 wide, 4 narrow */
  int bits;       /* precision of narrow uniforms */
  int pshift;     /* value index >> pshift = parameter index (1: complex output) */
  double a, b;    /* the distribution's parameters */
  double scale_b; /* multiplies b (normal on complex: 1/sqrt(2)) */
  int64_t low;    /* INTEGER: low + K, K < range */
  uint64_t range; /* 0 stands for 2^64 */
  const double *pa, *pb; /* per-element a and b, or NULL (memory the code can read) */
  uint64_t seed, first;  /* the key and the first counter block of the draw */
} tl_px_draw;

TL_PX_FN double tl_px_param(const double *p, double fallback, int64_t e)
{
  return p ? p[e] : fallback;
}

/* Value v of draw f: a double in *d, or for INTEGER an int64 in *iv.  The
 * CPU's chunked loops (random.c) compute exactly this; the GPU's kernel
 * calls it per element; tests compare the two through a host hook. */
TL_PX_FN void tl_px_value(const tl_px_draw *f, int64_t v, double *d, int64_t *iv)
{
  uint32_t w[4];
  int slot = (int)(v % f->per);
  tl_px_block(f->seed, f->first + (uint64_t)(v / f->per), w);
  int64_t e = v >> f->pshift;
  double a = tl_px_param(f->pa, f->a, e), b = tl_px_param(f->pb, f->b, e);
  switch (f->kind) {
  case TL_PX_INTEGER: {
    uint64_t x = tl_px_wide(w + 2 * slot);
    *iv = (int64_t)((uint64_t)f->low + (f->range ? tl_px_mulhi(x, f->range) : x));
    return;
  }
  case TL_PX_BERNOULLI: *d = (double)w[slot] * 0x1p-32 < a; return;
  case TL_PX_UNIFORM: {
    double u = f->wide ? tl_px_unit_wide(tl_px_wide(w + 2 * slot)) : tl_px_unit_narrow(w[slot], f->bits);
    *d = tl_px_add(a, tl_px_mul(tl_px_add(b, -a), u));
    return;
  }
  case TL_PX_NORMAL:
  case TL_PX_LOG_NORMAL: {
    double z0, z1;
    tl_px_normal_pair(f->wide ? w : w + (slot & 2), f->wide, &z0, &z1);
    double x = tl_px_add(a, tl_px_mul(tl_px_mul(b, f->scale_b), v & 1 ? z1 : z0));
    *d = f->kind == TL_PX_LOG_NORMAL ? exp(x) : x;
    return;
  }
  default: { /* the rest invert a CDF at an open uniform */
    double u = f->wide ? tl_px_open_wide(tl_px_wide(w + 2 * slot)) : tl_px_open_narrow(w[slot]);
    switch (f->kind) {
    case TL_PX_EXPONENTIAL: *d = tl_px_div(-tl_px_log(u), a); return;
    case TL_PX_CAUCHY: *d = a + b * tan(3.14159265358979323846 * (u - 0.5)); return;
    default: *d = a >= 1.0 ? 1.0 : ceil(log(u) / log1p(-a)); return; /* GEOMETRIC */
    }
  }
  }
}

#endif
