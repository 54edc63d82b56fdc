/* tl_half.h - float16 and bfloat16 <-> float32, round to nearest even.
 * Written as branch-light integer code so loops over it vectorise.          */
#ifndef TL_HALF_H
#define TL_HALF_H

#include <stdint.h>
#include <string.h>

static inline float tl_bits_to_f32(uint32_t u)
{
  float f;
  memcpy(&f, &u, sizeof f);
  return f;
}
static inline uint32_t tl_f32_to_bits(float f)
{
  uint32_t u;
  memcpy(&u, &f, sizeof u);
  return u;
}

static inline float tl_bf16_to_f32(uint16_t h) { return tl_bits_to_f32((uint32_t)h << 16); }

static inline uint16_t tl_f32_to_bf16(float f)
{
  uint32_t u = tl_f32_to_bits(f);
  if ((u & 0x7fffffffu) > 0x7f800000u) /* NaN: keep it quiet and a NaN */
    return (uint16_t)((u >> 16) | 0x40);
  u += 0x7fffu + ((u >> 16) & 1u);
  return (uint16_t)(u >> 16);
}

static inline float tl_f16_to_f32(uint16_t h)
{
  uint32_t sign = (uint32_t)(h & 0x8000u) << 16;
  uint32_t exp = (h >> 10) & 0x1fu;
  uint32_t man = h & 0x3ffu;
  if (exp == 0x1f) /* inf or NaN */
    return tl_bits_to_f32(sign | 0x7f800000u | (man << 13));
  if (exp == 0) { /* zero or subnormal: man * 2^-24 */
    float v = (float)man * 5.9604644775390625e-08f;
    return sign ? -v : v;
  }
  return tl_bits_to_f32(sign | ((exp + 112u) << 23) | (man << 13));
}

static inline uint16_t tl_f32_to_f16(float f)
{
  uint32_t u = tl_f32_to_bits(f);
  uint16_t sign = (uint16_t)((u >> 16) & 0x8000u);
  uint32_t a = u & 0x7fffffffu;
  if (a > 0x7f800000u) /* NaN */
    return sign | 0x7e00u;
  if (a >= 0x477ff000u) /* rounds to >= 65520: infinity */
    return sign | 0x7c00u;
  if (a < 0x38800000u) { /* below the smallest normal half: subnormal or zero */
    /* Adding 0.5 (2^-1) aligns the half subnormal ulp (2^-24) to the float's
     * last mantissa bit, so the float adder does the rounding for us. */
    float v = tl_bits_to_f32(a) + 0.5f;
    return sign | (uint16_t)(tl_f32_to_bits(v) - 0x3f000000u);
  }
  uint32_t odd = (a >> 13) & 1u;
  a += 0xc8000fffu + odd; /* rebias the exponent (-112 << 23) and round */
  return sign | (uint16_t)(a >> 13);
}

#endif
