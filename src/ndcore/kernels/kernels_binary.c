/* kernels_binary.c - CPU loops of the binary arithmetic ops (ops.def, BINARY):
 * add/sub (with alpha), mul, the divisions and remainders, powers, and the
 * two-argument float functions (atan2, hypot, logaddexp, copysign, nextafter,
 * xlogy).  Comparisons, min/max and the logical/bitwise ops are in
 * kernels_compare.c.
 *
 * Integers never trap: x / 0, x % 0 and INT_MIN / -1 give NumPy's answers (0
 * for the quotients and remainders by zero, INT_MIN / -1 wraps to INT_MIN),
 * and all integer arithmetic wraps through the unsigned type.  Negative
 * integer exponents are refused before the loop runs (op.c), so the integer
 * pow here only sees exponents >= 0.  Float division and remainder follow
 * NumPy (and Python): floor_divide and remainder agree with each other,
 * the remainder takes the divisor's sign, fmod the dividend's.             */
#include "ndcore/dispatch/tl_kernels.h"
#include "ndcore/kernels/tl_intdiv.h"         /* fixed divisors: a multiply-high */
#include "ndcore/kernels/tl_special_scalar.h" /* tl_next16: nextafter in float16/bfloat16 */

/* Is alpha absent or exactly 1 (the plain add/sub)? */
static bool alpha_is_one(const void *data)
{
  const tl_op_params *p = data;
  if (!p)
    return true;
  switch (p->s[0].kind) {
  case TL_KIND_BOOL: return p->s[0].v.b;
  case TL_KIND_FLOAT: return p->s[0].v.f == 1.0;
  case TL_KIND_COMPLEX: return p->s[0].v.c == 1.0;
  default: return p->s[0].v.i == 1;
  }
}

/* The typed helpers and loops, and the table binary_loops[] (scripts/gen_kernels.py). */
#include "ndcore/kernels/generated/binary.inc"

/* float16/bfloat16 floor and trunc divisions of two tensors, PyTorch's CPU
 * way: each step of the float formula (floor_divide_f32) is rounded to the
 * half dtype, as its kernels compute in the half type itself (bfloat16 65504
 * // 60 is 1096 there, where the float32 loop rounded once gives 1088; trunc
 * takes the rounded quotient: float16 2.9995 is 3).  A divisor that is one
 * value for the whole loop (a Python number, a 0-d tensor) is read in float
 * and the quotient rounded once: op.c takes the float32 loop then, and
 * NumPy's float16 floor_divide, which rounds once, is computed in float32 by
 * torchlike.numpy.  `bf` picks bfloat16. */
static inline float half_value(uint16_t h, bool bf)
{
  return bf ? tl_bf16_to_f32(h) : tl_f16_to_f32(h);
}
static inline uint16_t half_bits(float x, bool bf)
{
  return bf ? tl_f32_to_bf16(x) : tl_f32_to_f16(x);
}
static inline float half_round(float x, bool bf) { return half_value(half_bits(x, bf), bf); }

static inline uint16_t floor_divide_half(uint16_t ha, uint16_t hb, bool bf)
{
  float a = half_value(ha, bf), b = half_value(hb, bf);
  if (b == 0)
    return half_bits(a / b, bf);
  float mod = fmodf(a, b); /* exact: a half value */
  float div = half_round(half_round(a - mod, bf) / b, bf);
  if (mod != 0 && (b < 0) != (mod < 0))
    div = half_round(div - 1, bf);
  if (div == 0)
    return half_bits(copysignf(0.0f, a / b), bf);
  float q = floorf(div);
  return half_bits(half_round(div - q, bf) > 0.5f ? q + 1 : q, bf);
}

static inline uint16_t trunc_divide_half(uint16_t a, uint16_t b, bool bf)
{
  return half_bits(truncf(half_round(half_value(a, bf) / half_value(b, bf), bf)), bf);
}

static inline uint16_t floor_divide_f16(uint16_t a, uint16_t b)
{
  return floor_divide_half(a, b, false);
}
static inline uint16_t floor_divide_bf16(uint16_t a, uint16_t b)
{
  return floor_divide_half(a, b, true);
}
static inline uint16_t trunc_divide_f16(uint16_t a, uint16_t b)
{
  return trunc_divide_half(a, b, false);
}
static inline uint16_t trunc_divide_bf16(uint16_t a, uint16_t b)
{
  return trunc_divide_half(a, b, true);
}
TL_BINARY_LOOP(floor_divide_f16_loop, uint16_t, uint16_t, floor_divide_f16)
TL_BINARY_LOOP(floor_divide_bf16_loop, uint16_t, uint16_t, floor_divide_bf16)
TL_BINARY_LOOP(trunc_divide_f16_loop, uint16_t, uint16_t, trunc_divide_f16)
TL_BINARY_LOOP(trunc_divide_bf16_loop, uint16_t, uint16_t, trunc_divide_bf16)

void tl_cpu_binary_register(void)
{
  tl_k_register_all(binary_loops, sizeof binary_loops / sizeof *binary_loops);
  tl_k_register(TL_OP_FLOOR_DIVIDE, TL_DTYPE_F16, floor_divide_f16_loop);
  tl_k_register(TL_OP_FLOOR_DIVIDE, TL_DTYPE_BF16, floor_divide_bf16_loop);
  tl_k_register(TL_OP_TRUNC_DIVIDE, TL_DTYPE_F16, trunc_divide_f16_loop);
  tl_k_register(TL_OP_TRUNC_DIVIDE, TL_DTYPE_BF16, trunc_divide_bf16_loop);
  tl_k_register(TL_OP_NEXTAFTER, TL_DTYPE_F16, nextafter_f16_loop);
  tl_k_register(TL_OP_NEXTAFTER, TL_DTYPE_BF16, nextafter_bf16_loop);
  tl_cpu_compare_register();
}
