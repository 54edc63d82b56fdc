/* kernels_reduce.c - inner loops of the reduction passes (tl_reduce.h).
 *
 * Each pass is an accumulate step STEP(acc, x, aux, data) and a MERGE of two
 * accumulators, wrapped by TL_REDUCE_LOOP into the loop signature.  A row
 * folded into one accumulator runs in 16 independent lanes (so the compiler
 * can vectorise without reassociating, and summation error grows with n/16
 * rather than n), and rows longer than TL_REDUCE_BLOCK are split in halves
 * and merged pairwise, as NumPy's pairwise summation does.  float32 data sums
 * in double lanes, so a float32 sum is (nearly always) the correctly rounded
 * sum; half types reach these loops as float32 (the engine casts them).   */
#include <complex.h>
#include <math.h>
#include <string.h>

#include "ndcore/kernels/tl_reduce.h"

#define TL_REDUCE_BLOCK 2048
#define TL_REDUCE_LANES 16

/* The build targets baseline x86-64 (SSE2), where widening float32 lanes to
 * double costs more than the memory traffic; AVX2/AVX-512 clones of the
 * loops, picked at load time by the CPU, keep the sums at memory speed. */
#if defined(__x86_64__) && defined(__GNUC__) && !defined(__clang__) && !defined(TL_SANITIZE)
#define TL_REDUCE_CLONES __attribute__((target_clones("avx512f", "avx2", "default")))
#else
#define TL_REDUCE_CLONES
#endif

tl_loop_fn tl_reduce_loops[TL_RK_COUNT_][TL_DTYPE_COUNT];

/* NAME: loop name; TI input, TA accumulator, TX aux type; HAS_AUX 0/1. */
#define TL_REDUCE_LOOP(NAME, TI, TA, TX, HAS_AUX, IDENT, STEP, MERGE)                     \
  TL_REDUCE_CLONES static TA NAME##_row(const char *x, int64_t n, int64_t s, TX m, const void *data)       \
  {                                                                                        \
    if (n > TL_REDUCE_BLOCK) {                                                             \
      int64_t h = (n / 2) & ~(int64_t)(TL_REDUCE_LANES - 1);                               \
      TA a = NAME##_row(x, h, s, m, data);                                                 \
      TA b = NAME##_row(x + h * s, n - h, s, m, data);                                     \
      return MERGE(a, b);                                                                  \
    }                                                                                      \
    TA lane[TL_REDUCE_LANES];                                                              \
    for (int j = 0; j < TL_REDUCE_LANES; j++)                                              \
      lane[j] = IDENT;                                                                     \
    int64_t i = 0;                                                                         \
    if (s == (int64_t)sizeof(TI)) {                                                        \
      const TI *p = (const TI *)x;                                                         \
      for (; i + TL_REDUCE_LANES <= n; i += TL_REDUCE_LANES)                               \
        for (int j = 0; j < TL_REDUCE_LANES; j++)                                          \
          lane[j] = STEP(lane[j], p[i + j], m, data);                                      \
    } else {                                                                               \
      for (; i + TL_REDUCE_LANES <= n; i += TL_REDUCE_LANES)                               \
        for (int j = 0; j < TL_REDUCE_LANES; j++)                                          \
          lane[j] = STEP(lane[j], *(const TI *)(x + (i + j) * s), m, data);                \
    }                                                                                      \
    for (int j = 0; i < n; i++, j++)                                                       \
      lane[j] = STEP(lane[j], *(const TI *)(x + i * s), m, data);                          \
    for (int w = TL_REDUCE_LANES / 2; w > 0; w /= 2)                                       \
      for (int j = 0; j < w; j++)                                                          \
        lane[j] = MERGE(lane[j], lane[j + w]);                                             \
    return lane[0];                                                                        \
  }                                                                                        \
  TL_REDUCE_CLONES static void NAME(char **args, int64_t n, const int64_t *steps, void *data) \
  {                                                                                        \
    if (steps[0] == 0) {                                                                   \
      TX m = HAS_AUX ? *(const TX *)args[2] : (TX)0;                                       \
      TA *acc = (TA *)args[0];                                                             \
      *acc = MERGE(*acc, NAME##_row(args[1], n, steps[1], m, data));                       \
      return;                                                                              \
    }                                                                                      \
    if (steps[0] == sizeof(TA) && steps[1] == sizeof(TI) &&                               \
        (!HAS_AUX || steps[2] == sizeof(TX))) {                                            \
      TA *acc = (TA *)args[0];                                                             \
      const TI *x = (const TI *)args[1];                                                   \
      const TX *mx = (const TX *)args[2];                                                  \
      (void)mx;                                                                            \
      for (int64_t i = 0; i < n; i++)                                                      \
        acc[i] = STEP(acc[i], x[i], HAS_AUX ? mx[i] : (TX)0, data);                        \
      return;                                                                              \
    }                                                                                      \
    for (int64_t i = 0; i < n; i++) {                                                      \
      TA *acc = (TA *)(args[0] + i * steps[0]);                                            \
      TX m = HAS_AUX ? *(const TX *)(args[2] + i * steps[2]) : (TX)0;                      \
      (void)m;                                                                             \
      *acc = STEP(*acc, *(const TI *)(args[1] + i * steps[1]), m, data);                   \
    }                                                                                      \
  }

/* ---- steps and merges --------------------------------------------------------- */

#define TL_ADD(a, b) ((a) + (b))
#define TL_MUL(a, b) ((a) * (b))
#define TL_AND(a, b) ((a) && (b))
#define TL_OR(a, b) ((a) || (b))
/* max/min where a NaN wins (x != x only for NaN), as NumPy and PyTorch.
 * `|`, not `||`: both tests always run, so the select has no branch to
 * mispredict on random data and the lanes vectorise as compare + blend. */
#define TL_MAXNAN(a, b) ((((b) > (a)) | ((b) != (b))) ? (b) : (a))
#define TL_MINNAN(a, b) ((((b) < (a)) | ((b) != (b))) ? (b) : (a))
#define TL_MAXINT(a, b) ((b) > (a) ? (b) : (a))
#define TL_MININT(a, b) ((b) < (a) ? (b) : (a))
/* Integer sums and products wrap, as in NumPy and PyTorch. */
#define TL_IADD(a, b) ((int64_t)((uint64_t)(a) + (uint64_t)(b)))
#define TL_IMUL(a, b) ((int64_t)((uint64_t)(a) * (uint64_t)(b)))

#define S_ADD(a, x, m, d) ((a) + (x))
#define S_IADD(a, x, m, d) TL_IADD(a, x)
#define S_MUL(a, x, m, d) ((a) * (x))
#define S_IMUL(a, x, m, d) TL_IMUL(a, x)
#define S_NANADD(a, x, m, d) ((x) != (x) ? (a) : (a) + (x))
#define S_MAXNAN(a, x, m, d) TL_MAXNAN(a, x)
#define S_MINNAN(a, x, m, d) TL_MINNAN(a, x)
#define S_MAXINT(a, x, m, d) TL_MAXINT(a, x)
#define S_MININT(a, x, m, d) TL_MININT(a, x)
#define S_AND(a, x, m, d) ((a) && (x))
#define S_OR(a, x, m, d) ((a) || (x))
/* all/any/count_nonzero read any real dtype directly: x != 0 (NaN is true). */
#define S_ALLNZ(a, x, m, d) ((bool)((a) & ((x) != 0)))
#define S_ANYNZ(a, x, m, d) ((bool)((a) | ((x) != 0)))
#define S_COUNTNZ(a, x, m, d) ((a) + (int64_t)((x) != 0))
#define S_COUNTZ(a, x, m, d) ((a) + (int64_t)((x) == 0))
#define S_COUNT(a, x, m, d) ((a) + (int64_t)(x))
#define S_NOTNAN(a, x, m, d) ((a) + (int64_t)((x) == (x)))
#define S_SQDEV(a, x, m, d) ((a) + ((double)(x) - (m)) * ((double)(x) - (m)))
#define S_SQDEV_C(a, x, m, d) ((a) + sqabs_c((double complex)(x) - (m)))
#define S_EXPSUM(a, x, m, d) ((a) + exp((double)(x) - (m)))
/* float32 data: exp in float (the result is float32; the sum stays double). */
#define S_EXPSUMF(a, x, m, d) ((a) + (double)expf((float)((double)(x) - (m))))
#define S_ABSSUM(a, x, m, d) ((a) + fabs((double)(x)))
#define S_ABSSUM_C(a, x, m, d) ((a) + cabs((double complex)(x)))
#define S_SQSUM(a, x, m, d) ((a) + (double)(x) * (double)(x))
#define S_SQSUM_C(a, x, m, d) ((a) + sqabs_c((double complex)(x)))
#define S_ABSMAX(a, x, m, d) TL_MAXNAN(a, fabs((double)(x)))
#define S_ABSMAX_C(a, x, m, d) TL_MAXNAN(a, cabs((double complex)(x)))
#define S_ABSMIN(a, x, m, d) TL_MINNAN(a, fabs((double)(x)))
#define S_ABSMIN_C(a, x, m, d) TL_MINNAN(a, cabs((double complex)(x)))
#define S_NONZERO(a, x, m, d) ((a) + (double)((x) != 0))
#define S_POWSUM(a, x, m, d) ((a) + pow(fabs((double)(x)), *(const double *)(d)))
#define S_POWSUM_C(a, x, m, d) ((a) + pow(cabs((double complex)(x)), *(const double *)(d)))

static inline double sqabs_c(double complex z)
{
  return creal(z) * creal(z) + cimag(z) * cimag(z);
}

typedef double complex cdouble;
typedef float complex cfloat;

/* ---- the loops ---------------------------------------------------------------- */

TL_REDUCE_LOOP(sum_I64, int64_t, int64_t, int64_t, 0, 0, S_IADD, TL_IADD)
TL_REDUCE_LOOP(sum_F32, float, double, double, 0, 0.0, S_ADD, TL_ADD)
TL_REDUCE_LOOP(sum_F64, double, double, double, 0, 0.0, S_ADD, TL_ADD)
TL_REDUCE_LOOP(sum_C64, cfloat, cdouble, cdouble, 0, 0.0, S_ADD, TL_ADD)
TL_REDUCE_LOOP(sum_C128, cdouble, cdouble, cdouble, 0, 0.0, S_ADD, TL_ADD)

TL_REDUCE_LOOP(nansum_F32, float, double, double, 0, 0.0, S_NANADD, TL_ADD)
TL_REDUCE_LOOP(nansum_F64, double, double, double, 0, 0.0, S_NANADD, TL_ADD)

TL_REDUCE_LOOP(prod_I64, int64_t, int64_t, int64_t, 0, 1, S_IMUL, TL_IMUL)
TL_REDUCE_LOOP(prod_F32, float, double, double, 0, 1.0, S_MUL, TL_MUL)
TL_REDUCE_LOOP(prod_F64, double, double, double, 0, 1.0, S_MUL, TL_MUL)
TL_REDUCE_LOOP(prod_C64, cfloat, cdouble, cdouble, 0, 1.0, S_MUL, TL_MUL)
TL_REDUCE_LOOP(prod_C128, cdouble, cdouble, cdouble, 0, 1.0, S_MUL, TL_MUL)

TL_REDUCE_LOOP(max_BOOL, bool, bool, bool, 0, false, S_OR, TL_OR)
TL_REDUCE_LOOP(max_U8, uint8_t, uint8_t, uint8_t, 0, 0, S_MAXINT, TL_MAXINT)
TL_REDUCE_LOOP(max_I8, int8_t, int8_t, int8_t, 0, INT8_MIN, S_MAXINT, TL_MAXINT)
TL_REDUCE_LOOP(max_I16, int16_t, int16_t, int16_t, 0, INT16_MIN, S_MAXINT, TL_MAXINT)
TL_REDUCE_LOOP(max_I32, int32_t, int32_t, int32_t, 0, INT32_MIN, S_MAXINT, TL_MAXINT)
TL_REDUCE_LOOP(max_I64, int64_t, int64_t, int64_t, 0, INT64_MIN, S_MAXINT, TL_MAXINT)
TL_REDUCE_LOOP(max_F32_generic, float, float, float, 0, -INFINITY, S_MAXNAN, TL_MAXNAN)
TL_REDUCE_LOOP(max_F64_generic, double, double, double, 0, -INFINITY, S_MAXNAN, TL_MAXNAN)

TL_REDUCE_LOOP(min_BOOL, bool, bool, bool, 0, true, S_AND, TL_AND)
TL_REDUCE_LOOP(min_U8, uint8_t, uint8_t, uint8_t, 0, UINT8_MAX, S_MININT, TL_MININT)
TL_REDUCE_LOOP(min_I8, int8_t, int8_t, int8_t, 0, INT8_MAX, S_MININT, TL_MININT)
TL_REDUCE_LOOP(min_I16, int16_t, int16_t, int16_t, 0, INT16_MAX, S_MININT, TL_MININT)
TL_REDUCE_LOOP(min_I32, int32_t, int32_t, int32_t, 0, INT32_MAX, S_MININT, TL_MININT)
TL_REDUCE_LOOP(min_I64, int64_t, int64_t, int64_t, 0, INT64_MAX, S_MININT, TL_MININT)
TL_REDUCE_LOOP(min_F32_generic, float, float, float, 0, INFINITY, S_MINNAN, TL_MINNAN)
TL_REDUCE_LOOP(min_F64_generic, double, double, double, 0, INFINITY, S_MINNAN, TL_MINNAN)

TL_REDUCE_LOOP(all_BOOL, bool, bool, bool, 0, true, S_AND, TL_AND)
TL_REDUCE_LOOP(any_BOOL, bool, bool, bool, 0, false, S_OR, TL_OR)
TL_REDUCE_LOOP(count_BOOL, bool, int64_t, int64_t, 0, 0, S_COUNT, TL_ADD)
#define TL_LOGICAL_LOOPS(T, SUF)                                                        \
  TL_REDUCE_LOOP(all_##SUF, T, bool, bool, 0, true, S_ALLNZ, TL_AND)                    \
  TL_REDUCE_LOOP(any_##SUF, T, bool, bool, 0, false, S_ANYNZ, TL_OR)                    \
  TL_REDUCE_LOOP(count_##SUF, T, int64_t, int64_t, 0, 0, S_COUNTNZ, TL_ADD)             \
  TL_REDUCE_LOOP(countz_##SUF, T, int64_t, int64_t, 0, 0, S_COUNTZ, TL_ADD)
TL_LOGICAL_LOOPS(uint8_t, U8)
TL_LOGICAL_LOOPS(int8_t, I8)
TL_LOGICAL_LOOPS(int16_t, I16)
TL_LOGICAL_LOOPS(int32_t, I32)
TL_LOGICAL_LOOPS(int64_t, I64)
TL_LOGICAL_LOOPS(float, F32)
TL_LOGICAL_LOOPS(double, F64)
TL_REDUCE_LOOP(notnan_F32, float, int64_t, int64_t, 0, 0, S_NOTNAN, TL_ADD)
TL_REDUCE_LOOP(notnan_F64, double, int64_t, int64_t, 0, 0, S_NOTNAN, TL_ADD)

TL_REDUCE_LOOP(sqdev_F32, float, double, double, 1, 0.0, S_SQDEV, TL_ADD)
TL_REDUCE_LOOP(sqdev_F64, double, double, double, 1, 0.0, S_SQDEV, TL_ADD)
TL_REDUCE_LOOP(sqdev_C64, cfloat, double, cdouble, 1, 0.0, S_SQDEV_C, TL_ADD)
TL_REDUCE_LOOP(sqdev_C128, cdouble, double, cdouble, 1, 0.0, S_SQDEV_C, TL_ADD)
TL_REDUCE_LOOP(expsum_F32, float, double, double, 1, 0.0, S_EXPSUMF, TL_ADD)
TL_REDUCE_LOOP(expsum_F64, double, double, double, 1, 0.0, S_EXPSUM, TL_ADD)

/* Norm passes: one loop per (norm kind, dtype), all accumulating in double. */
#define TL_NORM_LOOPS(T, SUF, ABSSUM, SQSUM, ABSMAX, ABSMIN, POWSUM)                         \
  TL_REDUCE_LOOP(abssum_##SUF, T, double, double, 0, 0.0, ABSSUM, TL_ADD)                   \
  TL_REDUCE_LOOP(sqsum_##SUF, T, double, double, 0, 0.0, SQSUM, TL_ADD)                     \
  TL_REDUCE_LOOP(absmax_##SUF, T, double, double, 0, 0.0, ABSMAX, TL_MAXNAN)                \
  TL_REDUCE_LOOP(absmin_##SUF, T, double, double, 0, INFINITY, ABSMIN, TL_MINNAN)           \
  TL_REDUCE_LOOP(nonzero_##SUF, T, double, double, 0, 0.0, S_NONZERO, TL_ADD)               \
  TL_REDUCE_LOOP(powsum_##SUF, T, double, double, 0, 0.0, POWSUM, TL_ADD)
TL_NORM_LOOPS(float, F32, S_ABSSUM, S_SQSUM, S_ABSMAX, S_ABSMIN, S_POWSUM)
TL_NORM_LOOPS(double, F64, S_ABSSUM, S_SQSUM, S_ABSMAX, S_ABSMIN, S_POWSUM)
TL_NORM_LOOPS(cfloat, C64, S_ABSSUM_C, S_SQSUM_C, S_ABSMAX_C, S_ABSMIN_C, S_POWSUM_C)
TL_NORM_LOOPS(cdouble, C128, S_ABSSUM_C, S_SQSUM_C, S_ABSMAX_C, S_ABSMIN_C, S_POWSUM_C)

/* float max/min of a contiguous row into one accumulator, on GCC vector
 * extensions: compilers do not vectorise the NaN-aware select written on
 * scalars (two compares OR-ed into a blend).  The row helper is inlined
 * into the cloned loop, so each CPU clone gets its own vector code. */
typedef float tl_vf32 __attribute__((vector_size(32)));
typedef int32_t tl_vi32 __attribute__((vector_size(32)));
typedef double tl_vf64 __attribute__((vector_size(32)));
typedef int64_t tl_vi64 __attribute__((vector_size(32)));

#define TL_EXTREME_LOOP(NAME, T, VF, VI, CMP)                                             \
  static inline __attribute__((always_inline)) T NAME##_row(const T *p, int64_t n, T best) \
  {                                                                                        \
    enum { W = sizeof(VF) / sizeof(T) };                                                   \
    int64_t i = 0;                                                                         \
    if (n >= 4 * W) {                                                                      \
      VF a[4];                                                                             \
      memcpy(a, p, sizeof a);                                                              \
      for (i = 4 * W; i + 4 * W <= n; i += 4 * W) {                                        \
        VF x[4];                                                                           \
        memcpy(x, p + i, sizeof x);                                                        \
        for (int k = 0; k < 4; k++) {                                                      \
          VI take = (x[k] CMP a[k]) | (x[k] != x[k]);                                      \
          a[k] = (VF)(((VI)x[k] & take) | ((VI)a[k] & ~take));                             \
        }                                                                                  \
      }                                                                                    \
      for (int k = 0; k < 4; k++)                                                          \
        for (int j = 0; j < W; j++)                                                        \
          if ((a[k][j] CMP best) | (a[k][j] != a[k][j]))                                   \
            best = a[k][j];                                                                \
    }                                                                                      \
    for (; i < n; i++)                                                                     \
      if ((p[i] CMP best) | (p[i] != p[i]))                                                \
        best = p[i];                                                                       \
    return best;                                                                           \
  }                                                                                        \
  TL_REDUCE_CLONES static void NAME(char **args, int64_t n, const int64_t *steps, void *data) \
  {                                                                                        \
    if (steps[0] == 0 && steps[1] == sizeof(T)) {                                          \
      T *acc = (T *)args[0];                                                               \
      *acc = NAME##_row((const T *)args[1], n, *acc);                                      \
      return;                                                                              \
    }                                                                                      \
    NAME##_generic(args, n, steps, data);                                                  \
  }
TL_EXTREME_LOOP(max_F32, float, tl_vf32, tl_vi32, >)
TL_EXTREME_LOOP(min_F32, float, tl_vf32, tl_vi32, <)
TL_EXTREME_LOOP(max_F64, double, tl_vf64, tl_vi64, >)
TL_EXTREME_LOOP(min_F64, double, tl_vf64, tl_vi64, <)

tl_dtype tl_reduce_acc_dtype(tl_rkind kind, tl_dtype loop)
{
  switch (kind) {
  case TL_RK_SUM:
  case TL_RK_NANSUM:
  case TL_RK_PROD:
    return loop == TL_DTYPE_I64 ? TL_DTYPE_I64 : tl_dtype_is_complex(loop) ? TL_DTYPE_C128 : TL_DTYPE_F64;
  case TL_RK_MAX:
  case TL_RK_MIN:
    return loop;
  case TL_RK_ALL:
  case TL_RK_ANY:
    return TL_DTYPE_BOOL;
  case TL_RK_COUNT:
  case TL_RK_COUNT_NOTNAN:
  case TL_RK_COUNT_ZERO:
    return TL_DTYPE_I64;
  default:
    return TL_DTYPE_F64;
  }
}

tl_dtype tl_reduce_aux_dtype(tl_rkind kind, tl_dtype loop)
{
  if (kind == TL_RK_SQDEV && tl_dtype_is_complex(loop))
    return TL_DTYPE_C128;
  return TL_DTYPE_F64;
}

void tl_reduce_identity(tl_rkind kind, tl_dtype acc, char *dst)
{
  tl_scalar s = {.kind = TL_KIND_INT, .v.i = 0};
  switch (kind) {
  case TL_RK_PROD: s.v.i = 1; break;
  case TL_RK_ALL: s = (tl_scalar){.kind = TL_KIND_BOOL, .v.b = true}; break;
  case TL_RK_ABSMIN: s = (tl_scalar){.kind = TL_KIND_FLOAT, .v.f = INFINITY}; break;
  case TL_RK_MAX:
  case TL_RK_MIN: {
    bool hi = kind == TL_RK_MIN;
    switch (acc) {
    case TL_DTYPE_BOOL: s = (tl_scalar){.kind = TL_KIND_BOOL, .v.b = hi}; break;
    case TL_DTYPE_U8: s.v.i = hi ? UINT8_MAX : 0; break;
    case TL_DTYPE_I8: s.v.i = hi ? INT8_MAX : INT8_MIN; break;
    case TL_DTYPE_I16: s.v.i = hi ? INT16_MAX : INT16_MIN; break;
    case TL_DTYPE_I32: s.v.i = hi ? INT32_MAX : INT32_MIN; break;
    case TL_DTYPE_I64: s.v.i = hi ? INT64_MAX : INT64_MIN; break;
    default: s = (tl_scalar){.kind = TL_KIND_FLOAT, .v.f = hi ? INFINITY : -INFINITY}; break;
    }
    break;
  }
  default: break;
  }
  tl_scalar_store(s, acc, dst);
}

tl_rkind tl_reduce_merge_kind(tl_rkind kind)
{
  switch (kind) {
  case TL_RK_PROD:
  case TL_RK_MAX:
  case TL_RK_MIN:
  case TL_RK_ALL:
  case TL_RK_ANY:
    return kind;
  case TL_RK_ABSMAX:
    return TL_RK_MAX;
  case TL_RK_ABSMIN:
    return TL_RK_MIN;
  default:
    return TL_RK_SUM;
  }
}

void tl_cpu_reduce_kernels_init(void)
{
  tl_loop_fn(*t)[TL_DTYPE_COUNT] = tl_reduce_loops;
  t[TL_RK_SUM][TL_DTYPE_I64] = sum_I64;
  t[TL_RK_SUM][TL_DTYPE_F32] = sum_F32;
  t[TL_RK_SUM][TL_DTYPE_F64] = sum_F64;
  t[TL_RK_SUM][TL_DTYPE_C64] = sum_C64;
  t[TL_RK_SUM][TL_DTYPE_C128] = sum_C128;
  t[TL_RK_NANSUM][TL_DTYPE_F32] = nansum_F32;
  t[TL_RK_NANSUM][TL_DTYPE_F64] = nansum_F64;
  t[TL_RK_PROD][TL_DTYPE_I64] = prod_I64;
  t[TL_RK_PROD][TL_DTYPE_F32] = prod_F32;
  t[TL_RK_PROD][TL_DTYPE_F64] = prod_F64;
  t[TL_RK_PROD][TL_DTYPE_C64] = prod_C64;
  t[TL_RK_PROD][TL_DTYPE_C128] = prod_C128;

  t[TL_RK_MAX][TL_DTYPE_BOOL] = max_BOOL;
  t[TL_RK_MAX][TL_DTYPE_U8] = max_U8;
  t[TL_RK_MAX][TL_DTYPE_I8] = max_I8;
  t[TL_RK_MAX][TL_DTYPE_I16] = max_I16;
  t[TL_RK_MAX][TL_DTYPE_I32] = max_I32;
  t[TL_RK_MAX][TL_DTYPE_I64] = max_I64;
  t[TL_RK_MAX][TL_DTYPE_F32] = max_F32;
  t[TL_RK_MAX][TL_DTYPE_F64] = max_F64;
  t[TL_RK_MIN][TL_DTYPE_BOOL] = min_BOOL;
  t[TL_RK_MIN][TL_DTYPE_U8] = min_U8;
  t[TL_RK_MIN][TL_DTYPE_I8] = min_I8;
  t[TL_RK_MIN][TL_DTYPE_I16] = min_I16;
  t[TL_RK_MIN][TL_DTYPE_I32] = min_I32;
  t[TL_RK_MIN][TL_DTYPE_I64] = min_I64;
  t[TL_RK_MIN][TL_DTYPE_F32] = min_F32;
  t[TL_RK_MIN][TL_DTYPE_F64] = min_F64;

  t[TL_RK_ALL][TL_DTYPE_BOOL] = all_BOOL;
  t[TL_RK_ANY][TL_DTYPE_BOOL] = any_BOOL;
  t[TL_RK_COUNT][TL_DTYPE_BOOL] = count_BOOL;
#define TL_LOGICAL_ENTRIES(SUF)                       \
  t[TL_RK_ALL][TL_DTYPE_##SUF] = all_##SUF;           \
  t[TL_RK_ANY][TL_DTYPE_##SUF] = any_##SUF;           \
  t[TL_RK_COUNT][TL_DTYPE_##SUF] = count_##SUF;       \
  t[TL_RK_COUNT_ZERO][TL_DTYPE_##SUF] = countz_##SUF;
  TL_LOGICAL_ENTRIES(U8)
  TL_LOGICAL_ENTRIES(I8)
  TL_LOGICAL_ENTRIES(I16)
  TL_LOGICAL_ENTRIES(I32)
  TL_LOGICAL_ENTRIES(I64)
  TL_LOGICAL_ENTRIES(F32)
  TL_LOGICAL_ENTRIES(F64)
#undef TL_LOGICAL_ENTRIES
  t[TL_RK_COUNT_NOTNAN][TL_DTYPE_F32] = notnan_F32;
  t[TL_RK_COUNT_NOTNAN][TL_DTYPE_F64] = notnan_F64;

  t[TL_RK_SQDEV][TL_DTYPE_F32] = sqdev_F32;
  t[TL_RK_SQDEV][TL_DTYPE_F64] = sqdev_F64;
  t[TL_RK_SQDEV][TL_DTYPE_C64] = sqdev_C64;
  t[TL_RK_SQDEV][TL_DTYPE_C128] = sqdev_C128;
  t[TL_RK_EXPSUM][TL_DTYPE_F32] = expsum_F32;
  t[TL_RK_EXPSUM][TL_DTYPE_F64] = expsum_F64;

#define TL_NORM_ENTRIES(SUF)                                     \
  t[TL_RK_ABSSUM][TL_DTYPE_##SUF] = abssum_##SUF;                \
  t[TL_RK_SQSUM][TL_DTYPE_##SUF] = sqsum_##SUF;                  \
  t[TL_RK_ABSMAX][TL_DTYPE_##SUF] = absmax_##SUF;                \
  t[TL_RK_ABSMIN][TL_DTYPE_##SUF] = absmin_##SUF;                \
  t[TL_RK_NONZERO][TL_DTYPE_##SUF] = nonzero_##SUF;              \
  t[TL_RK_POWSUM][TL_DTYPE_##SUF] = powsum_##SUF;
  TL_NORM_ENTRIES(F32)
  TL_NORM_ENTRIES(F64)
  TL_NORM_ENTRIES(C64)
  TL_NORM_ENTRIES(C128)
#undef TL_NORM_ENTRIES
}
