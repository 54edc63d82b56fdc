/* kernels_compare.c - CPU loops of the comparing and selecting ops:
 * minimum/maximum (NaN-propagating), fmin/fmax (NaN-ignoring), eq ... ge,
 * the logical and bitwise binaries with the shifts, where(cond, a, b) and
 * clamp(x, min, max).
 *
 * Logical ops run on bool (the iterator casts their inputs: nonzero is true).
 * Shifts never reach C's undefined cases: a shift by a negative amount or by
 * >= the width gives 0, or -1 for a negative value shifted right, as in NumPy;
 * left shifts run in the unsigned type.  where() only moves bytes, so its
 * loops go by element size and serve every dtype, half types included.    */
#include "ndcore/dispatch/tl_kernels.h"

/* ---- minimum, maximum, fmin, fmax ----------------------------------------------------- */

#define MINMAX_INT(E, T, U, R, _)                                                        \
  static inline T minimum_##E(T a, T b) { return a < b ? a : b; }                        \
  static inline T maximum_##E(T a, T b) { return a > b ? a : b; }                        \
  static inline T fmin_##E(T a, T b) { return a < b ? a : b; }                           \
  static inline T fmax_##E(T a, T b) { return a > b ? a : b; }
/* A NaN on either side is the answer (the first one when both are). */
#define MINMAX_FLT(E, T, U, R, _)                                                        \
  static inline T minimum_##E(T a, T b) { return (a <= b || isnan(a)) ? a : b; }         \
  static inline T maximum_##E(T a, T b) { return (a >= b || isnan(a)) ? a : b; }         \
  static inline T fmin_##E(T a, T b) { return fmin(a, b); }                              \
  static inline T fmax_##E(T a, T b) { return fmax(a, b); }
TL_K_BOOL(MINMAX_INT, _)
TL_K_INTS(MINMAX_INT, _)
TL_K_FLOATS(MINMAX_FLT, _)

/* ---- comparisons ---------------------------------------------------------------------------- */

#define EQ_NE(E, T, U, R, _)                                                             \
  static inline bool eq_##E(T a, T b) { return a == b; }                                 \
  static inline bool ne_##E(T a, T b) { return a != b; }
#define ORDER(E, T, U, R, _)                                                             \
  static inline bool lt_##E(T a, T b) { return a < b; }                                  \
  static inline bool le_##E(T a, T b) { return a <= b; }                                 \
  static inline bool gt_##E(T a, T b) { return a > b; }                                  \
  static inline bool ge_##E(T a, T b) { return a >= b; }
TL_K_BOOL(EQ_NE, _) TL_K_INTS(EQ_NE, _) TL_K_FLOATS(EQ_NE, _) TL_K_COMPLEX(EQ_NE, _)
TL_K_BOOL(ORDER, _) TL_K_INTS(ORDER, _) TL_K_FLOATS(ORDER, _)

/* ---- logical and bitwise ---------------------------------------------------------------------- */

static inline bool logical_and_BOOL(bool a, bool b) { return a & b; }
static inline bool logical_or_BOOL(bool a, bool b) { return a | b; }
static inline bool logical_xor_BOOL(bool a, bool b) { return a ^ b; }

#define BITWISE(E, T, U, R, _)                                                           \
  static inline T bitwise_and_##E(T a, T b) { return (T)(a & b); }                       \
  static inline T bitwise_or_##E(T a, T b) { return (T)(a | b); }                        \
  static inline T bitwise_xor_##E(T a, T b) { return (T)(a ^ b); }
TL_K_BOOL(BITWISE, _)
TL_K_INTS(BITWISE, _)

/* (uint64_t)b turns a negative amount into a huge one: "too far" either way. */
#define SHIFTS(E, T, U, R, _)                                                            \
  static inline T bitwise_left_shift_##E(T a, T b)                                       \
  {                                                                                      \
    return (uint64_t)b < sizeof(T) * 8 ? (T)(U)((U)a << b) : 0;                          \
  }                                                                                      \
  static inline T bitwise_right_shift_##E(T a, T b)                                      \
  {                                                                                      \
    return (uint64_t)b < sizeof(T) * 8 ? (T)(a >> b) : tl_k_negative(a) ? (T)-1 : 0;              \
  }
TL_K_INTS(SHIFTS, _)
/* bool as a one-bit integer: True << 1 is nonzero, True >> 1 is not */
static inline bool bitwise_left_shift_BOOL(bool a, bool b) { (void)b; return a; }
static inline bool bitwise_right_shift_BOOL(bool a, bool b) { return a & !b; }

/* ---- where(cond, a, b): by element size ----------------------------------------------- */

typedef struct {
  uint64_t lo, hi;
} where16_t;
/* Contiguous output and condition with each value side contiguous or a
 * broadcast scalar (where(mask, x, 0.0)) is the common case: a branch-free
 * select the compiler vectorises. */
#define WHERE(BYTES, T)                                                                  \
  TL_SIMD_CLONES static void where_##BYTES##_loop(char **args, int64_t n, const int64_t *steps, \
                                                  void *data)                            \
  {                                                                                      \
    (void)data;                                                                          \
    if (steps[0] == sizeof(T) && steps[1] == 1 && (steps[2] == sizeof(T) || !steps[2]) && \
        (steps[3] == sizeof(T) || !steps[3])) {                                          \
      T *o = (T *)args[0];                                                               \
      const uint8_t *c = (const uint8_t *)args[1];                                       \
      const T *a = (const T *)args[2], *b = (const T *)args[3];                          \
      const int64_t ia = steps[2] ? 1 : 0, ib = steps[3] ? 1 : 0;                        \
      if (ia && ib)                                                                      \
        for (int64_t i = 0; i < n; i++)                                                  \
          o[i] = c[i] ? a[i] : b[i];                                                     \
      else if (ia)                                                                       \
        for (int64_t i = 0; i < n; i++)                                                  \
          o[i] = c[i] ? a[i] : b[0];                                                     \
      else if (ib)                                                                       \
        for (int64_t i = 0; i < n; i++)                                                  \
          o[i] = c[i] ? a[0] : b[i];                                                     \
      else                                                                               \
        for (int64_t i = 0; i < n; i++)                                                  \
          o[i] = c[i] ? a[0] : b[0];                                                     \
      return;                                                                            \
    }                                                                                    \
    for (int64_t i = 0; i < n; i++) {                                                    \
      bool c = *(const bool *)(args[1] + i * steps[1]);                                  \
      *(T *)(args[0] + i * steps[0]) = *(const T *)(args[c ? 2 : 3] + i * steps[c ? 2 : 3]); \
    }                                                                                    \
  }
WHERE(1, uint8_t)
WHERE(2, uint16_t)
WHERE(4, uint32_t)
WHERE(8, uint64_t)
WHERE(16, where16_t)

/* ---- clamp(x, lo, hi) --------------------------------------------------------------------
 * params i: bit 0 set when lo is given, bit 1 when hi is (an absent bound's
 * operand is x itself and is not read).  lo is applied first, so lo > hi
 * gives hi everywhere, as in PyTorch; NaN in x or in a bound propagates.  */
#define CLAMP_INT(E, T, U, R, _)                                                         \
  static inline T clamp_lo_##E(T x, T lo) { return x < lo ? lo : x; }                    \
  static inline T clamp_hi_##E(T x, T hi) { return x > hi ? hi : x; }
#define CLAMP_FLT(E, T, U, R, _)                                                         \
  static inline T clamp_lo_##E(T x, T lo) { return (x < lo || isnan(lo)) ? lo : x; }     \
  static inline T clamp_hi_##E(T x, T hi) { return (x > hi || isnan(hi)) ? hi : x; }
TL_K_BOOL(CLAMP_INT, _)
TL_K_INTS(CLAMP_INT, _)
TL_K_FLOATS(CLAMP_FLT, _)
#define CLAMP_LOOP(E, T, U, R, _)                                                        \
  TL_SIMD_CLONES static void clamp_##E##_loop(char **args, int64_t n, const int64_t *steps, \
                                              void *data)                                \
  {                                                                                      \
    int64_t which = data ? ((const tl_op_params *)data)->i : 3;                          \
    bool has_lo = which & 1, has_hi = which & 2;                                         \
    if (steps[0] == sizeof(T) && steps[1] == sizeof(T) && (!has_lo || !steps[2]) &&       \
        (!has_hi || !steps[3])) {                                                        \
      /* contiguous x, scalar bounds: the common case, vectorised */                    \
      T *o = (T *)args[0];                                                               \
      const T *x = (const T *)args[1], lo = *(const T *)args[2], hi = *(const T *)args[3]; \
      if (has_lo && has_hi)                                                              \
        for (int64_t i = 0; i < n; i++)                                                  \
          o[i] = clamp_hi_##E(clamp_lo_##E(x[i], lo), hi);                               \
      else if (has_lo)                                                                   \
        for (int64_t i = 0; i < n; i++)                                                  \
          o[i] = clamp_lo_##E(x[i], lo);                                                 \
      else                                                                               \
        for (int64_t i = 0; i < n; i++)                                                  \
          o[i] = clamp_hi_##E(x[i], hi);                                                 \
      return;                                                                            \
    }                                                                                    \
    for (int64_t i = 0; i < n; i++) {                                                    \
      T x = *(const T *)(args[1] + i * steps[1]);                                        \
      if (has_lo)                                                                        \
        x = clamp_lo_##E(x, *(const T *)(args[2] + i * steps[2]));                       \
      if (has_hi)                                                                        \
        x = clamp_hi_##E(x, *(const T *)(args[3] + i * steps[3]));                       \
      *(T *)(args[0] + i * steps[0]) = x;                                                \
    }                                                                                    \
  }
TL_K_BOOL(CLAMP_LOOP, _)
TL_K_INTS(CLAMP_LOOP, _)
TL_K_FLOATS(CLAMP_LOOP, _)

/* ---- loops ---------------------------------------------------------------------------------- */

#define LOOPS_REAL_SIMD(X, name) TL_K_BOOL(X, name) TL_K_INTS(X, name) TL_K_FLOATS(X##_SIMD, name)
LOOPS_REAL_SIMD(TL_KB, minimum) LOOPS_REAL_SIMD(TL_KB, maximum)
LOOPS_REAL_SIMD(TL_KB, fmin) LOOPS_REAL_SIMD(TL_KB, fmax)
LOOPS_REAL_SIMD(TL_KB_PRED, eq) TL_K_COMPLEX(TL_KB_PRED, eq)
LOOPS_REAL_SIMD(TL_KB_PRED, ne) TL_K_COMPLEX(TL_KB_PRED, ne)
LOOPS_REAL_SIMD(TL_KB_PRED, lt) LOOPS_REAL_SIMD(TL_KB_PRED, le)
LOOPS_REAL_SIMD(TL_KB_PRED, gt) LOOPS_REAL_SIMD(TL_KB_PRED, ge)
TL_K_BOOL(TL_KB, logical_and) TL_K_BOOL(TL_KB, logical_or) TL_K_BOOL(TL_KB, logical_xor)
#define LOOPS_INT(name) TL_K_BOOL(TL_KB, name) TL_K_INTS(TL_KB, name)
LOOPS_INT(bitwise_and) LOOPS_INT(bitwise_or) LOOPS_INT(bitwise_xor)
LOOPS_INT(bitwise_left_shift) LOOPS_INT(bitwise_right_shift)

/* The CPU loops of this file: (op, compute dtype, loop), registered in the
 * kernel table by tl_cpu_compare_register. */
static const tl_k_entry compare_loops[] = {
    {TL_OP_MINIMUM, TL_DTYPE_BOOL, minimum_BOOL_loop},
    {TL_OP_MINIMUM, TL_DTYPE_U8, minimum_U8_loop},
    {TL_OP_MINIMUM, TL_DTYPE_I8, minimum_I8_loop},
    {TL_OP_MINIMUM, TL_DTYPE_I16, minimum_I16_loop},
    {TL_OP_MINIMUM, TL_DTYPE_I32, minimum_I32_loop},
    {TL_OP_MINIMUM, TL_DTYPE_I64, minimum_I64_loop},
    {TL_OP_MINIMUM, TL_DTYPE_F32, minimum_F32_loop},
    {TL_OP_MINIMUM, TL_DTYPE_F64, minimum_F64_loop},
    {TL_OP_MAXIMUM, TL_DTYPE_BOOL, maximum_BOOL_loop},
    {TL_OP_MAXIMUM, TL_DTYPE_U8, maximum_U8_loop},
    {TL_OP_MAXIMUM, TL_DTYPE_I8, maximum_I8_loop},
    {TL_OP_MAXIMUM, TL_DTYPE_I16, maximum_I16_loop},
    {TL_OP_MAXIMUM, TL_DTYPE_I32, maximum_I32_loop},
    {TL_OP_MAXIMUM, TL_DTYPE_I64, maximum_I64_loop},
    {TL_OP_MAXIMUM, TL_DTYPE_F32, maximum_F32_loop},
    {TL_OP_MAXIMUM, TL_DTYPE_F64, maximum_F64_loop},
    {TL_OP_FMIN, TL_DTYPE_BOOL, fmin_BOOL_loop},
    {TL_OP_FMIN, TL_DTYPE_U8, fmin_U8_loop},
    {TL_OP_FMIN, TL_DTYPE_I8, fmin_I8_loop},
    {TL_OP_FMIN, TL_DTYPE_I16, fmin_I16_loop},
    {TL_OP_FMIN, TL_DTYPE_I32, fmin_I32_loop},
    {TL_OP_FMIN, TL_DTYPE_I64, fmin_I64_loop},
    {TL_OP_FMIN, TL_DTYPE_F32, fmin_F32_loop},
    {TL_OP_FMIN, TL_DTYPE_F64, fmin_F64_loop},
    {TL_OP_FMAX, TL_DTYPE_BOOL, fmax_BOOL_loop},
    {TL_OP_FMAX, TL_DTYPE_U8, fmax_U8_loop},
    {TL_OP_FMAX, TL_DTYPE_I8, fmax_I8_loop},
    {TL_OP_FMAX, TL_DTYPE_I16, fmax_I16_loop},
    {TL_OP_FMAX, TL_DTYPE_I32, fmax_I32_loop},
    {TL_OP_FMAX, TL_DTYPE_I64, fmax_I64_loop},
    {TL_OP_FMAX, TL_DTYPE_F32, fmax_F32_loop},
    {TL_OP_FMAX, TL_DTYPE_F64, fmax_F64_loop},
    {TL_OP_EQ, TL_DTYPE_BOOL, eq_BOOL_loop},
    {TL_OP_EQ, TL_DTYPE_U8, eq_U8_loop},
    {TL_OP_EQ, TL_DTYPE_I8, eq_I8_loop},
    {TL_OP_EQ, TL_DTYPE_I16, eq_I16_loop},
    {TL_OP_EQ, TL_DTYPE_I32, eq_I32_loop},
    {TL_OP_EQ, TL_DTYPE_I64, eq_I64_loop},
    {TL_OP_EQ, TL_DTYPE_F32, eq_F32_loop},
    {TL_OP_EQ, TL_DTYPE_F64, eq_F64_loop},
    {TL_OP_EQ, TL_DTYPE_C64, eq_C64_loop},
    {TL_OP_EQ, TL_DTYPE_C128, eq_C128_loop},
    {TL_OP_NE, TL_DTYPE_BOOL, ne_BOOL_loop},
    {TL_OP_NE, TL_DTYPE_U8, ne_U8_loop},
    {TL_OP_NE, TL_DTYPE_I8, ne_I8_loop},
    {TL_OP_NE, TL_DTYPE_I16, ne_I16_loop},
    {TL_OP_NE, TL_DTYPE_I32, ne_I32_loop},
    {TL_OP_NE, TL_DTYPE_I64, ne_I64_loop},
    {TL_OP_NE, TL_DTYPE_F32, ne_F32_loop},
    {TL_OP_NE, TL_DTYPE_F64, ne_F64_loop},
    {TL_OP_NE, TL_DTYPE_C64, ne_C64_loop},
    {TL_OP_NE, TL_DTYPE_C128, ne_C128_loop},
    {TL_OP_LT, TL_DTYPE_BOOL, lt_BOOL_loop},
    {TL_OP_LT, TL_DTYPE_U8, lt_U8_loop},
    {TL_OP_LT, TL_DTYPE_I8, lt_I8_loop},
    {TL_OP_LT, TL_DTYPE_I16, lt_I16_loop},
    {TL_OP_LT, TL_DTYPE_I32, lt_I32_loop},
    {TL_OP_LT, TL_DTYPE_I64, lt_I64_loop},
    {TL_OP_LT, TL_DTYPE_F32, lt_F32_loop},
    {TL_OP_LT, TL_DTYPE_F64, lt_F64_loop},
    {TL_OP_LE, TL_DTYPE_BOOL, le_BOOL_loop},
    {TL_OP_LE, TL_DTYPE_U8, le_U8_loop},
    {TL_OP_LE, TL_DTYPE_I8, le_I8_loop},
    {TL_OP_LE, TL_DTYPE_I16, le_I16_loop},
    {TL_OP_LE, TL_DTYPE_I32, le_I32_loop},
    {TL_OP_LE, TL_DTYPE_I64, le_I64_loop},
    {TL_OP_LE, TL_DTYPE_F32, le_F32_loop},
    {TL_OP_LE, TL_DTYPE_F64, le_F64_loop},
    {TL_OP_GT, TL_DTYPE_BOOL, gt_BOOL_loop},
    {TL_OP_GT, TL_DTYPE_U8, gt_U8_loop},
    {TL_OP_GT, TL_DTYPE_I8, gt_I8_loop},
    {TL_OP_GT, TL_DTYPE_I16, gt_I16_loop},
    {TL_OP_GT, TL_DTYPE_I32, gt_I32_loop},
    {TL_OP_GT, TL_DTYPE_I64, gt_I64_loop},
    {TL_OP_GT, TL_DTYPE_F32, gt_F32_loop},
    {TL_OP_GT, TL_DTYPE_F64, gt_F64_loop},
    {TL_OP_GE, TL_DTYPE_BOOL, ge_BOOL_loop},
    {TL_OP_GE, TL_DTYPE_U8, ge_U8_loop},
    {TL_OP_GE, TL_DTYPE_I8, ge_I8_loop},
    {TL_OP_GE, TL_DTYPE_I16, ge_I16_loop},
    {TL_OP_GE, TL_DTYPE_I32, ge_I32_loop},
    {TL_OP_GE, TL_DTYPE_I64, ge_I64_loop},
    {TL_OP_GE, TL_DTYPE_F32, ge_F32_loop},
    {TL_OP_GE, TL_DTYPE_F64, ge_F64_loop},
    {TL_OP_CLAMP, TL_DTYPE_BOOL, clamp_BOOL_loop},
    {TL_OP_CLAMP, TL_DTYPE_U8, clamp_U8_loop},
    {TL_OP_CLAMP, TL_DTYPE_I8, clamp_I8_loop},
    {TL_OP_CLAMP, TL_DTYPE_I16, clamp_I16_loop},
    {TL_OP_CLAMP, TL_DTYPE_I32, clamp_I32_loop},
    {TL_OP_CLAMP, TL_DTYPE_I64, clamp_I64_loop},
    {TL_OP_CLAMP, TL_DTYPE_F32, clamp_F32_loop},
    {TL_OP_CLAMP, TL_DTYPE_F64, clamp_F64_loop},
    {TL_OP_LOGICAL_AND, TL_DTYPE_BOOL, logical_and_BOOL_loop},
    {TL_OP_LOGICAL_OR, TL_DTYPE_BOOL, logical_or_BOOL_loop},
    {TL_OP_LOGICAL_XOR, TL_DTYPE_BOOL, logical_xor_BOOL_loop},
    {TL_OP_BITWISE_AND, TL_DTYPE_BOOL, bitwise_and_BOOL_loop},
    {TL_OP_BITWISE_AND, TL_DTYPE_U8, bitwise_and_U8_loop},
    {TL_OP_BITWISE_AND, TL_DTYPE_I8, bitwise_and_I8_loop},
    {TL_OP_BITWISE_AND, TL_DTYPE_I16, bitwise_and_I16_loop},
    {TL_OP_BITWISE_AND, TL_DTYPE_I32, bitwise_and_I32_loop},
    {TL_OP_BITWISE_AND, TL_DTYPE_I64, bitwise_and_I64_loop},
    {TL_OP_BITWISE_OR, TL_DTYPE_BOOL, bitwise_or_BOOL_loop},
    {TL_OP_BITWISE_OR, TL_DTYPE_U8, bitwise_or_U8_loop},
    {TL_OP_BITWISE_OR, TL_DTYPE_I8, bitwise_or_I8_loop},
    {TL_OP_BITWISE_OR, TL_DTYPE_I16, bitwise_or_I16_loop},
    {TL_OP_BITWISE_OR, TL_DTYPE_I32, bitwise_or_I32_loop},
    {TL_OP_BITWISE_OR, TL_DTYPE_I64, bitwise_or_I64_loop},
    {TL_OP_BITWISE_XOR, TL_DTYPE_BOOL, bitwise_xor_BOOL_loop},
    {TL_OP_BITWISE_XOR, TL_DTYPE_U8, bitwise_xor_U8_loop},
    {TL_OP_BITWISE_XOR, TL_DTYPE_I8, bitwise_xor_I8_loop},
    {TL_OP_BITWISE_XOR, TL_DTYPE_I16, bitwise_xor_I16_loop},
    {TL_OP_BITWISE_XOR, TL_DTYPE_I32, bitwise_xor_I32_loop},
    {TL_OP_BITWISE_XOR, TL_DTYPE_I64, bitwise_xor_I64_loop},
    {TL_OP_BITWISE_LEFT_SHIFT, TL_DTYPE_BOOL, bitwise_left_shift_BOOL_loop},
    {TL_OP_BITWISE_LEFT_SHIFT, TL_DTYPE_U8, bitwise_left_shift_U8_loop},
    {TL_OP_BITWISE_LEFT_SHIFT, TL_DTYPE_I8, bitwise_left_shift_I8_loop},
    {TL_OP_BITWISE_LEFT_SHIFT, TL_DTYPE_I16, bitwise_left_shift_I16_loop},
    {TL_OP_BITWISE_LEFT_SHIFT, TL_DTYPE_I32, bitwise_left_shift_I32_loop},
    {TL_OP_BITWISE_LEFT_SHIFT, TL_DTYPE_I64, bitwise_left_shift_I64_loop},
    {TL_OP_BITWISE_RIGHT_SHIFT, TL_DTYPE_BOOL, bitwise_right_shift_BOOL_loop},
    {TL_OP_BITWISE_RIGHT_SHIFT, TL_DTYPE_U8, bitwise_right_shift_U8_loop},
    {TL_OP_BITWISE_RIGHT_SHIFT, TL_DTYPE_I8, bitwise_right_shift_I8_loop},
    {TL_OP_BITWISE_RIGHT_SHIFT, TL_DTYPE_I16, bitwise_right_shift_I16_loop},
    {TL_OP_BITWISE_RIGHT_SHIFT, TL_DTYPE_I32, bitwise_right_shift_I32_loop},
    {TL_OP_BITWISE_RIGHT_SHIFT, TL_DTYPE_I64, bitwise_right_shift_I64_loop},
};

void tl_cpu_compare_register(void)
{
  tl_k_register_all(compare_loops, sizeof compare_loops / sizeof *compare_loops);
  for (int d = 0; d < TL_DTYPE_COUNT; d++) {
    static const tl_loop_fn by_size[17] = {[1] = where_1_loop, [2] = where_2_loop,
                                           [4] = where_4_loop, [8] = where_8_loop,
                                           [16] = where_16_loop};
    tl_k_register(TL_OP_WHERE, (tl_dtype)d, by_size[tl_dtype_size((tl_dtype)d)]);
  }
}
