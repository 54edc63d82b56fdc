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

/* ---- add, sub, mul, div ------------------------------------------------------------ */

static inline bool add_BOOL(bool a, bool b) { return a | b; }
static inline bool mul_BOOL(bool a, bool b) { return a & b; }
#define ARITH_INT(E, T, U, R, _)                                                         \
  static inline T add_##E(T a, T b) { return (T)(U)((U)a + (U)b); }                      \
  static inline T sub_##E(T a, T b) { return (T)(U)((U)a - (U)b); }                      \
  static inline T mul_##E(T a, T b) { return (T)(U)((U)a * (U)b); }                      \
  static inline T axpy_##E(T a, T alpha, T b) { return (T)(U)((U)a + (U)alpha * (U)b); }
#define ARITH_FLT(E, T, U, R, _)                                                         \
  static inline T add_##E(T a, T b) { return a + b; }                                    \
  static inline T sub_##E(T a, T b) { return a - b; }                                    \
  static inline T mul_##E(T a, T b) { return a * b; }                                    \
  static inline T div_##E(T a, T b) { return a / b; }                                   \
  static inline T axpy_##E(T a, T alpha, T b) { return a + alpha * b; }
static inline bool axpy_BOOL(bool a, bool alpha, bool b) { return a | (alpha & b); }
TL_K_INTS(ARITH_INT, _)
TL_K_FLOATS(ARITH_FLT, _)
TL_K_COMPLEX(ARITH_FLT, _)

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

/* add/sub: the plain loop when alpha is 1, otherwise a +- alpha * b with
 * alpha converted to the compute type once per call. */
#define ALPHA_LOOPS(E, T, U, R, _)                                                       \
  TL_K_BINARY_SIMD_LOOP(add_plain_##E##_loop, T, T, add_##E)                                    \
  static void add_##E##_loop(char **args, int64_t n, const int64_t *steps, void *data)   \
  {                                                                                      \
    if (alpha_is_one(data)) {                                                            \
      add_plain_##E##_loop(args, n, steps, NULL);                                        \
      return;                                                                            \
    }                                                                                    \
    T alpha;                                                                             \
    tl_scalar_store(((const tl_op_params *)data)->s[0], TL_DTYPE_##E, (char *)&alpha);   \
    for (int64_t i = 0; i < n; i++)                                                      \
      *(T *)(args[0] + i * steps[0]) = axpy_##E(*(const T *)(args[1] + i * steps[1]), alpha, \
                                                *(const T *)(args[2] + i * steps[2]));   \
  }
#define SUB_LOOPS(E, T, U, R, _)                                                         \
  TL_K_BINARY_SIMD_LOOP(sub_plain_##E##_loop, T, T, sub_##E)                                    \
  static void sub_##E##_loop(char **args, int64_t n, const int64_t *steps, void *data)   \
  {                                                                                      \
    if (alpha_is_one(data)) {                                                            \
      sub_plain_##E##_loop(args, n, steps, NULL);                                        \
      return;                                                                            \
    }                                                                                    \
    T alpha;                                                                             \
    tl_scalar_store(((const tl_op_params *)data)->s[0], TL_DTYPE_##E, (char *)&alpha);   \
    alpha = neg_alpha_##E(alpha);                                                        \
    for (int64_t i = 0; i < n; i++)                                                      \
      *(T *)(args[0] + i * steps[0]) = axpy_##E(*(const T *)(args[1] + i * steps[1]), alpha, \
                                                *(const T *)(args[2] + i * steps[2]));   \
  }
#define NEG_ALPHA_INT(E, T, U, R, _) static inline T neg_alpha_##E(T a) { return (T)(U)(0u - (U)a); }
#define NEG_ALPHA_FLT(E, T, U, R, _) static inline T neg_alpha_##E(T a) { return -a; }
TL_K_INTS(NEG_ALPHA_INT, _)
TL_K_FLOATS(NEG_ALPHA_FLT, _)
TL_K_COMPLEX(NEG_ALPHA_FLT, _)

/* ---- divisions and remainders ------------------------------------------------------- */

#define DIV_UINT(E, T, U, R, _)                                                          \
  static inline T trunc_divide_##E(T a, T b) { return b ? (T)(a / b) : 0; }              \
  static inline T floor_divide_##E(T a, T b) { return b ? (T)(a / b) : 0; }              \
  static inline T remainder_##E(T a, T b) { return b ? (T)(a % b) : 0; }                 \
  static inline T fmod_##E(T a, T b) { return b ? (T)(a % b) : 0; }
/* b == -1 is answered without dividing: INT_MIN / -1 traps on x86. */
#define DIV_SINT(E, T, U, R, _)                                                          \
  static inline T trunc_divide_##E(T a, T b)                                             \
  {                                                                                      \
    return b == 0 ? 0 : b == -1 ? (T)(U)(0u - (U)a) : (T)(a / b);                        \
  }                                                                                      \
  static inline T floor_divide_##E(T a, T b)                                             \
  {                                                                                      \
    if (b == 0 || b == -1)                                                               \
      return trunc_divide_##E(a, b);                                                     \
    T q = (T)(a / b);                                                                    \
    return (a % b != 0 && (a < 0) != (b < 0)) ? (T)(q - 1) : q;                          \
  }                                                                                      \
  static inline T remainder_##E(T a, T b)                                                \
  {                                                                                      \
    if (b == 0 || b == -1)                                                               \
      return 0;                                                                          \
    T r = (T)(a % b);                                                                    \
    return (r != 0 && (r < 0) != (b < 0)) ? (T)(r + b) : r;                              \
  }                                                                                      \
  static inline T fmod_##E(T a, T b) { return b == 0 || b == -1 ? 0 : (T)(a % b); }

/* Floats: the quotient is rounded from (a - fmod(a, b)) / b, which is exact up
 * to one rounding, so floor_divide and remainder satisfy a = q * b + r. */
#define DIV_FLT(E, T, U, R, _)                                                           \
  static inline T trunc_divide_##E(T a, T b) { return trunc(a / b); }                   \
  static inline T floor_divide_##E(T a, T b)                                             \
  {                                                                                      \
    if (b == 0)                                                                          \
      return a / b;                                                                      \
    T mod = fmod(a, b);                                                                  \
    T div = (a - mod) / b;                                                               \
    if (mod != 0 && (b < 0) != (mod < 0))                                                \
      div -= 1;                                                                          \
    if (div == 0)                                                                        \
      return copysign((T)0, a / b);                                                      \
    T q = floor(div);                                                                    \
    return div - q > (T)0.5 ? q + 1 : q;                                                 \
  }                                                                                      \
  static inline T remainder_##E(T a, T b)                                                \
  {                                                                                      \
    T mod = fmod(a, b);                                                                  \
    if (b == 0)                                                                          \
      return mod;                                                                        \
    if (mod == 0)                                                                        \
      return copysign((T)0, b);                                                          \
    return (b < 0) != (mod < 0) ? mod + b : mod;                                         \
  }                                                                                      \
  static inline T fmod_##E(T a, T b) { return fmod(a, b); }
DIV_UINT(U8, uint8_t, uint8_t, uint8_t, _)
TL_K_SINTS(DIV_SINT, _)
TL_K_FLOATS(DIV_FLT, _)

/* ---- powers ----------------------------------------------------------------------------- */

static inline bool pow_BOOL(bool a, bool b) { return b ? a : true; }
#define POW_INT(E, T, U, R, _)                                                           \
  static inline T pow_##E(T a, T b)                                                      \
  {                                                                                      \
    if (tl_k_negative(b)) /* refused before the loop; answered without looping anyway */ \
      return a == 1 ? 1 : 0;                                                             \
    U result = 1, base = (U)a;                                                           \
    for (uint64_t e = (uint64_t)b; e; e >>= 1) {                                         \
      if (e & 1)                                                                         \
        result = (U)(result * base);                                                     \
      base = (U)(base * base);                                                           \
    }                                                                                    \
    return (T)result;                                                                    \
  }
TL_K_INTS(POW_INT, _)
static inline float pow_F32(float a, float b) { return powf(a, b); }
static inline double pow_F64(double a, double b) { return pow(a, b); }

/* Complex: small integer exponents by repeated squaring (exact where cpow's
 * exp(b log a) is not, and defined at a = 0), the rest through cpow. */
#define POW_CPLX(E, T, U, R, _)                                                          \
  static inline T pow_##E(T a, T b)                                                      \
  {                                                                                      \
    R br = creal(b), bi = cimag(b);                                                      \
    if (bi == 0 && br == trunc(br) && fabs(br) <= 1024) {                               \
      long e = (long)fabs(br);                                                           \
      T result = 1, base = a;                                                            \
      for (; e; e >>= 1) {                                                               \
        if (e & 1)                                                                       \
          result *= base;                                                                \
        base *= base;                                                                    \
      }                                                                                  \
      return br < 0 ? 1 / result : result;                                               \
    }                                                                                    \
    if (a == 0 && bi == 0 && br > 0)                                                     \
      return 0;                                                                          \
    return pow(a, b);                                                                    \
  }
TL_K_COMPLEX(POW_CPLX, _)
static inline double float_power_F64(double a, double b) { return pow(a, b); }
static inline double complex float_power_C128(double complex a, double complex b)
{
  return pow_C128(a, b);
}

/* ---- two-argument float functions ------------------------------------------------------ */

#define FLT2(E, T, U, R, _)                                                              \
  static inline T atan2_##E(T a, T b) { return atan2(a, b); }                            \
  static inline T hypot_##E(T a, T b) { return hypot(a, b); }                            \
  static inline T copysign_##E(T a, T b) { return copysign(a, b); }                      \
  static inline T nextafter_##E(T a, T b) { return nextafter(a, b); }                    \
  /* log(e^a + e^b) = max + log1p(e^-|a - b|); equal infinities give themselves */       \
  static inline T logaddexp_##E(T a, T b)                                                \
  {                                                                                      \
    if (a == b)                                                                          \
      return a + (T)0.693147180559945309417232121458176568;                              \
    T d = a - b;                                                                         \
    return d > 0 ? a + log1p(exp(-d)) : d <= 0 ? b + log1p(exp(d)) : d;                  \
  }                                                                                      \
  static inline T logaddexp2_##E(T a, T b)                                               \
  {                                                                                      \
    const T inv_ln2 = (T)1.44269504088896340735992468100189214;                          \
    if (a == b)                                                                          \
      return a + 1;                                                                      \
    T d = a - b;                                                                         \
    return d > 0 ? a + log1p(exp2(-d)) * inv_ln2 : d <= 0 ? b + log1p(exp2(d)) * inv_ln2 : d; \
  }                                                                                      \
  /* x * log(y), 0 where x == 0 unless y is NaN */                                      \
  static inline T xlogy_##E(T a, T b)                                                    \
  {                                                                                      \
    if (isnan(b))                                                                        \
      return b;                                                                          \
    return a == 0 ? 0 : a * log(b);                                                      \
  }
TL_K_FLOATS(FLT2, _)

/* nextafter in half precision steps through the 16-bit patterns themselves:
 * the float32 loop would step by a float32 ulp and round straight back. */
static inline uint16_t next16(uint16_t a, uint16_t b, float fa, float fb)
{
  if (isnan(fa) || isnan(fb))
    return isnan(fa) ? a : b;
  if (fa == fb)
    return b;
  if (fa == 0) /* smallest subnormal with b's direction */
    return (uint16_t)((fb > 0 ? 0x0000 : 0x8000) | 1);
  bool up = (fb > fa) == (fa > 0); /* away from zero */
  return (uint16_t)(up ? a + 1 : a - 1);
}
#define NEXTAFTER_HALF(E)                                                                \
  static void nextafter_##E##_loop(char **args, int64_t n, const int64_t *steps, void *data) \
  {                                                                                      \
    (void)data;                                                                          \
    for (int64_t i = 0; i < n; i++) {                                                    \
      uint16_t a, b, r;                                                                  \
      memcpy(&a, args[1] + i * steps[1], 2);                                             \
      memcpy(&b, args[2] + i * steps[2], 2);                                             \
      r = next16(a, b, tl_load_##E((char *)&a), tl_load_##E((char *)&b));               \
      memcpy(args[0] + i * steps[0], &r, 2);                                             \
    }                                                                                    \
  }
NEXTAFTER_HALF(F16)
NEXTAFTER_HALF(BF16)

/* ---- loops -------------------------------------------------------------------------------- */

TL_K_BOOL(ALPHA_LOOPS, _) TL_K_INTS(ALPHA_LOOPS, _) TL_K_FLOATS(ALPHA_LOOPS, _)
TL_K_COMPLEX(ALPHA_LOOPS, _)
TL_K_INTS(SUB_LOOPS, _) TL_K_FLOATS(SUB_LOOPS, _) TL_K_COMPLEX(SUB_LOOPS, _)
TL_K_BOOL(TL_KB, mul) TL_K_INTS(TL_KB_SIMD, mul) TL_K_FLOATS(TL_KB_SIMD, mul)
TL_K_COMPLEX(TL_KB, mul)
TL_K_FLOATS(TL_KB_SIMD, div) TL_K_COMPLEX(TL_KB, div)
#define LOOPS_REAL(name) TL_K_INTS(TL_KB, name) TL_K_FLOATS(TL_KB, name)
LOOPS_REAL(trunc_divide) LOOPS_REAL(floor_divide) LOOPS_REAL(remainder) LOOPS_REAL(fmod)
TL_K_BOOL(TL_KB, pow) TL_K_INTS(TL_KB, pow) TL_K_FLOATS(TL_KB_SIMD, pow) TL_K_COMPLEX(TL_KB, pow)
TL_KB(F64, double, double, double, float_power)
TL_KB(C128, double complex, double complex, double, float_power)
TL_K_FLOATS(TL_KB_SIMD, atan2) TL_K_FLOATS(TL_KB_SIMD, hypot) TL_K_FLOATS(TL_KB_SIMD, copysign)
TL_K_FLOATS(TL_KB, nextafter) TL_K_FLOATS(TL_KB, logaddexp) TL_K_FLOATS(TL_KB, logaddexp2)
TL_K_FLOATS(TL_KB, xlogy)

/* The CPU loops of this file: (op, compute dtype, loop), registered in the
 * kernel table by tl_cpu_binary_register. */
static const tl_k_entry binary_loops[] = {
    {TL_OP_ADD, TL_DTYPE_BOOL, add_BOOL_loop},
    {TL_OP_ADD, TL_DTYPE_U8, add_U8_loop},
    {TL_OP_ADD, TL_DTYPE_I8, add_I8_loop},
    {TL_OP_ADD, TL_DTYPE_I16, add_I16_loop},
    {TL_OP_ADD, TL_DTYPE_I32, add_I32_loop},
    {TL_OP_ADD, TL_DTYPE_I64, add_I64_loop},
    {TL_OP_ADD, TL_DTYPE_F32, add_F32_loop},
    {TL_OP_ADD, TL_DTYPE_F64, add_F64_loop},
    {TL_OP_ADD, TL_DTYPE_C64, add_C64_loop},
    {TL_OP_ADD, TL_DTYPE_C128, add_C128_loop},
    {TL_OP_MUL, TL_DTYPE_BOOL, mul_BOOL_loop},
    {TL_OP_MUL, TL_DTYPE_U8, mul_U8_loop},
    {TL_OP_MUL, TL_DTYPE_I8, mul_I8_loop},
    {TL_OP_MUL, TL_DTYPE_I16, mul_I16_loop},
    {TL_OP_MUL, TL_DTYPE_I32, mul_I32_loop},
    {TL_OP_MUL, TL_DTYPE_I64, mul_I64_loop},
    {TL_OP_MUL, TL_DTYPE_F32, mul_F32_loop},
    {TL_OP_MUL, TL_DTYPE_F64, mul_F64_loop},
    {TL_OP_MUL, TL_DTYPE_C64, mul_C64_loop},
    {TL_OP_MUL, TL_DTYPE_C128, mul_C128_loop},
    {TL_OP_POW, TL_DTYPE_BOOL, pow_BOOL_loop},
    {TL_OP_POW, TL_DTYPE_U8, pow_U8_loop},
    {TL_OP_POW, TL_DTYPE_I8, pow_I8_loop},
    {TL_OP_POW, TL_DTYPE_I16, pow_I16_loop},
    {TL_OP_POW, TL_DTYPE_I32, pow_I32_loop},
    {TL_OP_POW, TL_DTYPE_I64, pow_I64_loop},
    {TL_OP_POW, TL_DTYPE_F32, pow_F32_loop},
    {TL_OP_POW, TL_DTYPE_F64, pow_F64_loop},
    {TL_OP_POW, TL_DTYPE_C64, pow_C64_loop},
    {TL_OP_POW, TL_DTYPE_C128, pow_C128_loop},
    {TL_OP_SUB, TL_DTYPE_U8, sub_U8_loop},
    {TL_OP_SUB, TL_DTYPE_I8, sub_I8_loop},
    {TL_OP_SUB, TL_DTYPE_I16, sub_I16_loop},
    {TL_OP_SUB, TL_DTYPE_I32, sub_I32_loop},
    {TL_OP_SUB, TL_DTYPE_I64, sub_I64_loop},
    {TL_OP_SUB, TL_DTYPE_F32, sub_F32_loop},
    {TL_OP_SUB, TL_DTYPE_F64, sub_F64_loop},
    {TL_OP_SUB, TL_DTYPE_C64, sub_C64_loop},
    {TL_OP_SUB, TL_DTYPE_C128, sub_C128_loop},
    {TL_OP_DIV, TL_DTYPE_F32, div_F32_loop},
    {TL_OP_DIV, TL_DTYPE_F64, div_F64_loop},
    {TL_OP_DIV, TL_DTYPE_C64, div_C64_loop},
    {TL_OP_DIV, TL_DTYPE_C128, div_C128_loop},
    {TL_OP_TRUNC_DIVIDE, TL_DTYPE_U8, trunc_divide_U8_loop},
    {TL_OP_TRUNC_DIVIDE, TL_DTYPE_I8, trunc_divide_I8_loop},
    {TL_OP_TRUNC_DIVIDE, TL_DTYPE_I16, trunc_divide_I16_loop},
    {TL_OP_TRUNC_DIVIDE, TL_DTYPE_I32, trunc_divide_I32_loop},
    {TL_OP_TRUNC_DIVIDE, TL_DTYPE_I64, trunc_divide_I64_loop},
    {TL_OP_TRUNC_DIVIDE, TL_DTYPE_F32, trunc_divide_F32_loop},
    {TL_OP_TRUNC_DIVIDE, TL_DTYPE_F64, trunc_divide_F64_loop},
    {TL_OP_FLOOR_DIVIDE, TL_DTYPE_U8, floor_divide_U8_loop},
    {TL_OP_FLOOR_DIVIDE, TL_DTYPE_I8, floor_divide_I8_loop},
    {TL_OP_FLOOR_DIVIDE, TL_DTYPE_I16, floor_divide_I16_loop},
    {TL_OP_FLOOR_DIVIDE, TL_DTYPE_I32, floor_divide_I32_loop},
    {TL_OP_FLOOR_DIVIDE, TL_DTYPE_I64, floor_divide_I64_loop},
    {TL_OP_FLOOR_DIVIDE, TL_DTYPE_F32, floor_divide_F32_loop},
    {TL_OP_FLOOR_DIVIDE, TL_DTYPE_F64, floor_divide_F64_loop},
    {TL_OP_REMAINDER, TL_DTYPE_U8, remainder_U8_loop},
    {TL_OP_REMAINDER, TL_DTYPE_I8, remainder_I8_loop},
    {TL_OP_REMAINDER, TL_DTYPE_I16, remainder_I16_loop},
    {TL_OP_REMAINDER, TL_DTYPE_I32, remainder_I32_loop},
    {TL_OP_REMAINDER, TL_DTYPE_I64, remainder_I64_loop},
    {TL_OP_REMAINDER, TL_DTYPE_F32, remainder_F32_loop},
    {TL_OP_REMAINDER, TL_DTYPE_F64, remainder_F64_loop},
    {TL_OP_FMOD, TL_DTYPE_U8, fmod_U8_loop},
    {TL_OP_FMOD, TL_DTYPE_I8, fmod_I8_loop},
    {TL_OP_FMOD, TL_DTYPE_I16, fmod_I16_loop},
    {TL_OP_FMOD, TL_DTYPE_I32, fmod_I32_loop},
    {TL_OP_FMOD, TL_DTYPE_I64, fmod_I64_loop},
    {TL_OP_FMOD, TL_DTYPE_F32, fmod_F32_loop},
    {TL_OP_FMOD, TL_DTYPE_F64, fmod_F64_loop},
    {TL_OP_FLOAT_POWER, TL_DTYPE_F64, float_power_F64_loop},
    {TL_OP_FLOAT_POWER, TL_DTYPE_C128, float_power_C128_loop},
    {TL_OP_ATAN2, TL_DTYPE_F32, atan2_F32_loop},
    {TL_OP_ATAN2, TL_DTYPE_F64, atan2_F64_loop},
    {TL_OP_HYPOT, TL_DTYPE_F32, hypot_F32_loop},
    {TL_OP_HYPOT, TL_DTYPE_F64, hypot_F64_loop},
    {TL_OP_COPYSIGN, TL_DTYPE_F32, copysign_F32_loop},
    {TL_OP_COPYSIGN, TL_DTYPE_F64, copysign_F64_loop},
    {TL_OP_NEXTAFTER, TL_DTYPE_F32, nextafter_F32_loop},
    {TL_OP_NEXTAFTER, TL_DTYPE_F64, nextafter_F64_loop},
    {TL_OP_LOGADDEXP, TL_DTYPE_F32, logaddexp_F32_loop},
    {TL_OP_LOGADDEXP, TL_DTYPE_F64, logaddexp_F64_loop},
    {TL_OP_LOGADDEXP2, TL_DTYPE_F32, logaddexp2_F32_loop},
    {TL_OP_LOGADDEXP2, TL_DTYPE_F64, logaddexp2_F64_loop},
    {TL_OP_XLOGY, TL_DTYPE_F32, xlogy_F32_loop},
    {TL_OP_XLOGY, TL_DTYPE_F64, xlogy_F64_loop},
};

void tl_cpu_binary_register(void)
{
  tl_k_register_all(binary_loops, sizeof binary_loops / sizeof *binary_loops);
  tl_k_register(TL_OP_NEXTAFTER, TL_DTYPE_F16, nextafter_F16_loop);
  tl_k_register(TL_OP_NEXTAFTER, TL_DTYPE_BF16, nextafter_BF16_loop);
  tl_cpu_compare_register();
}
