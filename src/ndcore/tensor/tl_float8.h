/* tl_float8.h - the five float8 formats <-> float32, round to nearest even.
 *
 * A format is its mantissa width M (the exponent takes the other 7 - M bits
 * of the magnitude), its exponent bias and how it spells what it lacks:
 *
 *   e4m3fn    M 3, bias 7: no inf; NaN is S.1111.111; a value past the
 *             largest (448), inf too, saturates to +-448
 *   e5m2      M 2, bias 15: IEEE-like (the top byte of a float16): inf and
 *             NaNs, a value past the largest (57344) rounds to inf
 *   e4m3fnuz  M 3, bias 8, and e5m2fnuz M 2, bias 16: one NaN, 0x80 (where
 *             -0 would be), no inf, no -0: past the largest (240, 57344),
 *             inf too, is NaN; a negative value that rounds to 0 is +0
 *   e8m0fnu   M 0, bias 127, no sign bit: the powers of two 2^-127..2^127;
 *             0xff is NaN, there is no zero
 *
 * These are PyTorch's (c10) conversions, checked against it bit for bit in
 * tests/test_float8.py.  Wider types reach float8 through float32 (a double
 * is rounded to float first), as PyTorch's casts do: every float8 value is a
 * float32, so the other direction is exact.                                  */
#ifndef TL_FLOAT8_H
#define TL_FLOAT8_H

#include <stdbool.h>
#include <stdint.h>
#include <string.h>

/* The same code runs in the CUDA copy kernel (src/gpu/copy_create.cu). */
#ifdef __CUDACC__
#define TL_F8_API static inline __host__ __device__
#else
#define TL_F8_API static inline
#endif

typedef enum { TL_F8_FN, TL_F8_IEEE, TL_F8_FNUZ } tl_f8_style;

TL_F8_API float tl_f8_bits_to_f32(uint32_t u)
{
  float f;
  memcpy(&f, &u, sizeof f);
  return f;
}
TL_F8_API uint32_t tl_f8_f32_to_bits(float f)
{
  uint32_t u;
  memcpy(&u, &f, sizeof u);
  return u;
}

/* One byte of format (M, BIAS, STYLE) as float32. */
TL_F8_API float tl_f8_to_f32(uint8_t b, int m, int bias, tl_f8_style style)
{
  const uint32_t sign = (uint32_t)(b & 0x80u) << 24;
  const uint32_t mag = b & 0x7fu;
  const uint32_t exp = mag >> m, man = mag & ((1u << m) - 1u);
  const uint32_t exp_max = 0x7fu >> m;
  if (style == TL_F8_FNUZ && b == 0x80u)
    return tl_f8_bits_to_f32(0x7f800001u); /* PyTorch's NaN for these: its bits, as it gives them */
  if ((style == TL_F8_FN && mag == 0x7fu) || (style == TL_F8_IEEE && exp == exp_max)) {
    if (style == TL_F8_IEEE && man == 0)
      return tl_f8_bits_to_f32(sign | 0x7f800000u);
    /* a NaN keeps its sign and mantissa, made quiet */
    return tl_f8_bits_to_f32(sign | 0x7fc00000u | (man << (23 - m)));
  }
  if (exp == 0) { /* zero or subnormal: man * 2^(1 - bias - m) */
    float v = (float)man * tl_f8_bits_to_f32((uint32_t)(128 - bias - m) << 23);
    return sign ? -v : v;
  }
  return tl_f8_bits_to_f32(sign | ((exp + 127u - (uint32_t)bias) << 23) | (man << (23 - m)));
}

TL_F8_API uint8_t tl_f32_to_f8(float f, int m, int bias, tl_f8_style style)
{
  const uint32_t u = tl_f8_f32_to_bits(f);
  const uint8_t sign = (uint8_t)((u >> 24) & 0x80u);
  uint32_t a = u & 0x7fffffffu;
  /* the largest finite byte: S.1111.110 for fn, S.11110.11 for IEEE, 0x7f for fnuz */
  const uint32_t max = style == TL_F8_FN ? 0x7eu : style == TL_F8_IEEE ? 0x7fu - (1u << m) : 0x7fu;
  if (a > 0x7f800000u) /* NaN */
    return style == TL_F8_FNUZ ? 0x80u : (uint8_t)(sign | 0x7fu);
  uint32_t code;
  if (a < (uint32_t)(128 - bias) << 23) {
    /* Below the smallest normal: adding 2^(24 - bias - m) puts the format's
     * subnormal step on float32's last mantissa bit, so the float adder
     * rounds (to even); the bits above that constant's count the steps. */
    const float c = tl_f8_bits_to_f32((uint32_t)(151 - bias - m) << 23);
    code = tl_f8_f32_to_bits(tl_f8_bits_to_f32(a) + c) - tl_f8_f32_to_bits(c);
  } else {
    a -= (uint32_t)(127 - bias) << 23; /* rebias the exponent */
    const int drop = 23 - m;
    code = (a + (1u << (drop - 1)) - 1u + ((a >> drop) & 1u)) >> drop;
  }
  if (code > max) /* past the largest value, or inf */
    return style == TL_F8_FN ? (uint8_t)(sign | 0x7eu)
           : style == TL_F8_IEEE ? (uint8_t)(sign | (max + 1u))
                                 : 0x80u;
  if (style == TL_F8_FNUZ && code == 0)
    return 0; /* no -0 */
  return (uint8_t)(sign | code);
}

/* e8m0fnu: the float32 exponent byte, rounded up from 1.5 * 2^e (ties up,
 * except a subnormal float32's, which PyTorch rounds down); 0xff is NaN. */
TL_F8_API float tl_e8m0_to_f32(uint8_t b)
{
  if (b == 0xffu)
    return tl_f8_bits_to_f32(0x7f800001u);
  return tl_f8_bits_to_f32(b ? (uint32_t)b << 23 : 0x00400000u); /* 2^-127 is a subnormal */
}

TL_F8_API uint8_t tl_f32_to_e8m0(float f)
{
  const uint32_t u = tl_f8_f32_to_bits(f);
  const uint32_t exp = (u >> 23) & 0xffu, man = u & 0x7fffffu;
  if (exp == 0xffu)
    return 0xffu;
  const bool up = man > 0x400000u || (man == 0x400000u && exp > 0);
  return (uint8_t)(exp + up); /* 2^127 * 1.5 and up reach 0xff: NaN */
}

/* The formats by name, as tl_dtype.h's loads and stores use them. */
TL_F8_API float tl_f8e4m3fn_to_f32(uint8_t b) { return tl_f8_to_f32(b, 3, 7, TL_F8_FN); }
TL_F8_API uint8_t tl_f32_to_f8e4m3fn(float f) { return tl_f32_to_f8(f, 3, 7, TL_F8_FN); }
TL_F8_API float tl_f8e5m2_to_f32(uint8_t b) { return tl_f8_to_f32(b, 2, 15, TL_F8_IEEE); }
TL_F8_API uint8_t tl_f32_to_f8e5m2(float f) { return tl_f32_to_f8(f, 2, 15, TL_F8_IEEE); }
TL_F8_API float tl_f8e4m3fnuz_to_f32(uint8_t b) { return tl_f8_to_f32(b, 3, 8, TL_F8_FNUZ); }
TL_F8_API uint8_t tl_f32_to_f8e4m3fnuz(float f) { return tl_f32_to_f8(f, 3, 8, TL_F8_FNUZ); }
TL_F8_API float tl_f8e5m2fnuz_to_f32(uint8_t b) { return tl_f8_to_f32(b, 2, 16, TL_F8_FNUZ); }
TL_F8_API uint8_t tl_f32_to_f8e5m2fnuz(float f) { return tl_f32_to_f8(f, 2, 16, TL_F8_FNUZ); }

#endif
