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

void tl_cpu_binary_register(void)
{
  tl_k_register_all(binary_loops, sizeof binary_loops / sizeof *binary_loops);
  tl_k_register(TL_OP_NEXTAFTER, TL_DTYPE_F16, nextafter_f16_loop);
  tl_k_register(TL_OP_NEXTAFTER, TL_DTYPE_BF16, nextafter_bf16_loop);
  tl_cpu_compare_register();
}
