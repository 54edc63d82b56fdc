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
#include "ndcore/kernels/tl_simd_clones.h"


/* The build targets baseline x86-64 (SSE2), where widening float32 lanes to
 * double costs more than the memory traffic; AVX2/AVX-512 clones of the
 * loops, picked at load time by the CPU, keep the sums at memory speed. */
#define TL_REDUCE_CLONES TL_SIMD_CLONES

tl_loop_fn tl_reduce_loops[TL_RK_COUNT_][TL_DTYPE_COUNT];

/* NAME: loop name, ROW: its row helper's; TI input, TA accumulator, TX aux
 * type; HAS_AUX 0/1. */
#define TL_REDUCE_LOOP(NAME, ROW, TI, TA, TX, HAS_AUX, IDENT, STEP, MERGE)                 \
  TL_REDUCE_CLONES static TA ROW(const char *x, int64_t n, int64_t s, TX m, const void *data) \
  {                                                                                        \
    if (n > TL_REDUCE_BLOCK) {                                                             \
      int64_t h = (n / 2) & ~(int64_t)(TL_REDUCE_LANES - 1);                               \
      TA a = ROW(x, h, s, m, data);                                                        \
      TA b = ROW(x + h * s, n - h, s, m, data);                                            \
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
      *acc = MERGE(*acc, ROW(args[1], n, steps[1], m, data));                              \
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
#define S_AND(a, x, m, d) ((bool)((a) & (x))) /* bitwise: no branch per element */
#define S_OR(a, x, m, d) ((bool)((a) | (x)))
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

/* float max/min of a contiguous row into one accumulator.  Two forms:
 *
 * ROW##_exact, on GCC vector extensions (compilers do not vectorise the
 * NaN-aware select written on scalars: two compares OR-ed into a blend), is
 * the reference: which NaN, and which of tied zeros, it returns follows its
 * four accumulators' lanes, and other code (and PyTorch's goldens) read it.
 *
 * ROW, the fast form, keeps TL_EXTREME_LANES lanes of `x CMP a ? x : a`,
 * which is exactly x86's max/min instruction (second operand on a tie or a
 * NaN: one instruction where the NaN-aware select takes four), and notes NaN
 * separately.  Its answer is taken only where it cannot differ from the
 * reference's: no NaN in the row and a non-zero extreme (a non-zero value
 * has one bit pattern, so the lane order does not matter); otherwise the row
 * is read again by the reference.  f32 rows of 2000: 0.55 -> ~0.32 ms per
 * 4M elements on AVX-512.
 *
 * Both are inlined into the cloned loop, so each CPU clone gets its own
 * vector code. */
typedef float tl_vf32 __attribute__((vector_size(32)));
typedef int32_t tl_vi32 __attribute__((vector_size(32)));
typedef double tl_vf64 __attribute__((vector_size(32)));
typedef int64_t tl_vi64 __attribute__((vector_size(32)));

/* Four 64-byte vectors of lanes: enough independent chains to hide the
 * max instruction's latency. */
#define TL_EXTREME_LANES(T) ((int64_t)(256 / sizeof(T)))

/* NAME: loop name, ROW: its row helper's, GENERIC: the TL_REDUCE_LOOP for the
 * other cases. */
#define TL_EXTREME_LOOP(NAME, ROW, GENERIC, T, VF, VI, CMP)                                \
  static inline __attribute__((always_inline)) T ROW##_exact(const T *p, int64_t n, T best) \
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
  static inline __attribute__((always_inline)) T ROW(const T *p, int64_t n, T best)        \
  {                                                                                        \
    enum { L = TL_EXTREME_LANES(T) };                                                      \
    typedef __typeof__(((VI){0})[0]) flag; /* as wide as T: the OR vectorises */          \
    if (n < 2 * L)                                                                         \
      return ROW##_exact(p, n, best);                                                      \
    T a[L];                                                                                \
    flag nan[L];                                                                           \
    for (int j = 0; j < L; j++) {                                                          \
      a[j] = p[j];                                                                         \
      nan[j] = p[j] != p[j];                                                               \
    }                                                                                      \
    int64_t i = L;                                                                         \
    for (; i + L <= n; i += L)                                                             \
      for (int j = 0; j < L; j++) {                                                        \
        T x = p[i + j];                                                                    \
        a[j] = x CMP a[j] ? x : a[j];                                                      \
        nan[j] |= x != x;                                                                  \
      }                                                                                    \
    T r = a[0];                                                                            \
    flag any = 0;                                                                          \
    for (int j = 0; j < L; j++) {                                                          \
      r = a[j] CMP r ? a[j] : r;                                                           \
      any |= nan[j];                                                                       \
    }                                                                                      \
    for (; i < n; i++) {                                                                   \
      r = p[i] CMP r ? p[i] : r;                                                           \
      any |= p[i] != p[i];                                                                 \
    }                                                                                      \
    if (any || r == 0)                                                                     \
      return ROW##_exact(p, n, best);                                                      \
    return r CMP best ? r : best; /* a NaN best stays, as in the reference */             \
  }                                                                                        \
  TL_REDUCE_CLONES static void NAME(char **args, int64_t n, const int64_t *steps, void *data) \
  {                                                                                        \
    if (steps[0] == 0 && steps[1] == sizeof(T)) {                                          \
      T *acc = (T *)args[0];                                                               \
      *acc = ROW((const T *)args[1], n, *acc);                                             \
      return;                                                                              \
    }                                                                                      \
    GENERIC(args, n, steps, data);                                                         \
  }
/* A reduction loop of the table: (kind, loop dtype, loop). */
typedef struct {
  tl_rkind kind;
  tl_dtype dtype;
  tl_loop_fn loop;
} tl_reduce_entry;

/* The loops, from the macros above, and the table reduce_loops[]
 * (scripts/gen_kernels.py). */
#include "ndcore/kernels/generated/reduce.inc"

tl_dtype tl_reduce_acc_dtype(tl_rkind kind, tl_dtype loop)
{
  switch (kind) {
  case TL_RK_SUM:
  case TL_RK_NANSUM:
  case TL_RK_PROD:
  case TL_RK_SUMPROD:
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
    case TL_DTYPE_U16: s.v.i = hi ? UINT16_MAX : 0; break;
    case TL_DTYPE_U32: s.v.i = hi ? UINT32_MAX : 0; break;
    case TL_DTYPE_U64: s = (tl_scalar){.kind = TL_KIND_UINT, .v.u = hi ? UINT64_MAX : 0}; break;
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

/* count_nonzero of a contiguous run of bools folded into one count: bytes
 * (0 or 1) summed in uint8 lanes, flushed into the int64 count every 255
 * rounds before they can wrap.  The generated loop widens each byte to an
 * int64 lane first, which costs 4x. */
TL_REDUCE_CLONES static void count_bool_bytes(char **args, int64_t n, const int64_t *steps,
                                              void *data)
{
  if (steps[0] != 0 || steps[1] != 1) {
    count_bool(args, n, steps, data);
    return;
  }
  const uint8_t *x = (const uint8_t *)args[1];
  int64_t total = 0, i = 0;
  while (n - i >= 64) {
    uint8_t lane[64] = {0};
    int64_t rounds = (n - i) / 64 < 255 ? (n - i) / 64 : 255;
    for (int64_t r = 0; r < rounds; r++, i += 64)
      for (int j = 0; j < 64; j++)
        lane[j] = (uint8_t)(lane[j] + x[i + j]);
    for (int j = 0; j < 64; j++)
      total += lane[j];
  }
  for (; i < n; i++)
    total += x[i];
  *(int64_t *)args[0] += total;
}

/* ---- einsum's sum of products (TL_RK_SUMPROD) ----------------------------------
 *
 * acc += x * y with y in args[3]: the product is formed in the accumulator's
 * type (float32's in float32, as the elementwise product rounds it, then
 * widened: the conversions bound the loop) and never stored.  A row folded into one accumulator runs in lanes
 * and pairwise blocks as the sums above (a dot product); a row of
 * accumulators takes one product each (einsum 'ij,ij->j').  Complex
 * products are written out on the parts: C's `*` on complex values calls a
 * library routine per element to sort out infinities, which NumPy's einsum
 * and matmul do not do either. */
/* PROD(T, x, y): the product of two inputs in accumulator type T. */
#define P_MUL(T, x, y) ((T)(x) * (T)(y))
#define P_IMUL(T, x, y) TL_IMUL(x, y)
/* float32: the product rounded to float32, as the elementwise product's */
#define P_MULF(T, x, y) ((T)((x) * (y)))
#define P_CMUL(T, x, y)                                                                    \
  CMPLX(creal(x) * creal(y) - cimag(x) * cimag(y), creal(x) * cimag(y) + cimag(x) * creal(y))

/* NAME: loop name, ROW: its row helper's; TI input, TA accumulator type. */
#define TL_SUMPROD_LOOP(NAME, ROW, TI, TA, PROD, ADD)                                      \
  TL_REDUCE_CLONES static TA ROW(const char *x, int64_t sx, const char *y, int64_t sy,     \
                                 int64_t n)                                                \
  {                                                                                        \
    if (n > TL_REDUCE_BLOCK) {                                                             \
      int64_t h = (n / 2) & ~(int64_t)(TL_REDUCE_LANES - 1);                               \
      TA a = ROW(x, sx, y, sy, h);                                                         \
      TA b = ROW(x + h * sx, sx, y + h * sy, sy, n - h);                                   \
      return ADD(a, b);                                                                    \
    }                                                                                      \
    TA lane[TL_REDUCE_LANES];                                                              \
    for (int j = 0; j < TL_REDUCE_LANES; j++)                                              \
      lane[j] = 0;                                                                         \
    int64_t i = 0;                                                                         \
    if (sx == (int64_t)sizeof(TI) && sy == (int64_t)sizeof(TI)) {                          \
      const TI *p = (const TI *)x, *q = (const TI *)y;                                     \
      for (; i + TL_REDUCE_LANES <= n; i += TL_REDUCE_LANES)                               \
        for (int j = 0; j < TL_REDUCE_LANES; j++)                                          \
          lane[j] = ADD(lane[j], PROD(TA, p[i + j], q[i + j]));                            \
    } else {                                                                               \
      for (; i + TL_REDUCE_LANES <= n; i += TL_REDUCE_LANES)                               \
        for (int j = 0; j < TL_REDUCE_LANES; j++)                                          \
          lane[j] = ADD(lane[j], PROD(TA, *(const TI *)(x + (i + j) * sx),                 \
                                      *(const TI *)(y + (i + j) * sy)));                   \
    }                                                                                      \
    for (int j = 0; i < n; i++, j++)                                                       \
      lane[j] = ADD(lane[j], PROD(TA, *(const TI *)(x + i * sx), *(const TI *)(y + i * sy))); \
    for (int w = TL_REDUCE_LANES / 2; w > 0; w /= 2)                                       \
      for (int j = 0; j < w; j++)                                                          \
        lane[j] = ADD(lane[j], lane[j + w]);                                               \
    return lane[0];                                                                        \
  }                                                                                        \
  TL_REDUCE_CLONES static void NAME(char **args, int64_t n, const int64_t *steps, void *data) \
  {                                                                                        \
    (void)data;                                                                            \
    TA *acc = (TA *)args[0];                                                               \
    if (steps[0] == 0) {                                                                   \
      *acc = ADD(*acc, ROW(args[1], steps[1], args[3], steps[3], n));                      \
      return;                                                                              \
    }                                                                                      \
    if (steps[0] == sizeof(TA) && steps[1] == sizeof(TI) && steps[3] == sizeof(TI)) {      \
      const TI *x = (const TI *)args[1], *y = (const TI *)args[3];                         \
      for (int64_t i = 0; i < n; i++)                                                      \
        acc[i] = ADD(acc[i], PROD(TA, x[i], y[i]));                                        \
      return;                                                                              \
    }                                                                                      \
    for (int64_t i = 0; i < n; i++) {                                                      \
      TA *a = (TA *)(args[0] + i * steps[0]);                                              \
      *a = ADD(*a, PROD(TA, *(const TI *)(args[1] + i * steps[1]),                         \
                        *(const TI *)(args[3] + i * steps[3])));                           \
    }                                                                                      \
  }

TL_SUMPROD_LOOP(sumprod_i64, sumprod_i64_row, int64_t, int64_t, P_IMUL, TL_IADD)
TL_SUMPROD_LOOP(sumprod_f32_generic, sumprod_f32_row, float, double, P_MULF, TL_ADD)
TL_SUMPROD_LOOP(sumprod_f64_generic, sumprod_f64_row, double, double, P_MUL, TL_ADD)
TL_SUMPROD_LOOP(sumprod_c64, sumprod_c64_row, cfloat, cdouble, P_CMUL, TL_ADD)
TL_SUMPROD_LOOP(sumprod_c128, sumprod_c128_row, cdouble, cdouble, P_CMUL, TL_ADD)

/* Real dot products of rows (einsum 'ij,ij->i', 'i,i->', 'bij,bji->b') on GCC
 * vector extensions: 16 double lanes as four vectors of four, pairwise
 * above TL_REDUCE_BLOCK, the lanes merged in registers.  The generic row's
 * lanes go through the stack for their final tree, and the stores that
 * feed narrower loads stall: on 200-element rows that cost as much as the
 * products.  Strided rows gather their vectors element by element.  The
 * last n % 16 products sum apart and join at the end. */
/* Four products as doubles into *v (an out-parameter: a vector returned by
 * value changes the ABI between the clones).  float32 products are rounded
 * to float32, as the elementwise product's, then widened: one conversion
 * per four products rather than two per four inputs, which bound the loop. */
typedef float tl_vf32x4 __attribute__((vector_size(16)));

static inline __attribute__((always_inline)) void prod4_f64(tl_vf64 *v, const double *a,
                                                             const double *b)
{
  tl_vf64 x, y;
  memcpy(&x, a, sizeof x);
  memcpy(&y, b, sizeof y);
  *v = x * y;
}

static inline __attribute__((always_inline)) void prod4_f32(tl_vf64 *v, const float *a,
                                                             const float *b)
{
  tl_vf32x4 x, y;
  memcpy(&x, a, sizeof x);
  memcpy(&y, b, sizeof y);
  tl_vf32x4 m = x * y;
  *v = (tl_vf64){m[0], m[1], m[2], m[3]}; /* __builtin_convertvector splits in halves */
}

/* NAME: the dot's name, GENERIC: the TL_SUMPROD_LOOP for the other cases,
 * LOOP: the loop's name; TI input type, PROD4(&v, a, b): four products of
 * contiguous inputs as doubles. */
#define TL_SUMPROD_DOT_LOOP(LOOP, NAME, GENERIC, TI, PROD4)                                \
  TL_REDUCE_CLONES static double NAME(const TI *p, int64_t sp, const TI *q, int64_t sq,    \
                                      int64_t n)                                           \
  {                                                                                        \
    if (n > TL_REDUCE_BLOCK) {                                                             \
      int64_t h = (n / 2) & ~(int64_t)(TL_REDUCE_LANES - 1);                               \
      double a = NAME(p, sp, q, sq, h);                                                    \
      return a + NAME(p + h * sp, sp, q + h * sq, sq, n - h);                              \
    }                                                                                      \
    tl_vf64 v[4] = {{0}};                                                                  \
    int64_t i = 0;                                                                         \
    if (sp == 1 && sq == 1) {                                                              \
      for (; i + TL_REDUCE_LANES <= n; i += TL_REDUCE_LANES)                               \
        for (int k = 0; k < 4; k++) {                                                      \
          tl_vf64 m;                                                                       \
          PROD4(&m, p + i + 4 * k, q + i + 4 * k);                                         \
          v[k] += m;                                                                       \
        }                                                                                  \
    } else {                                                                               \
      for (; i + TL_REDUCE_LANES <= n; i += TL_REDUCE_LANES)                               \
        for (int k = 0; k < 4; k++) {                                                      \
          const TI *a = p + (i + 4 * k) * sp, *b = q + (i + 4 * k) * sq;                   \
          TI x[4] = {a[0], a[sp], a[2 * sp], a[3 * sp]};                                   \
          TI y[4] = {b[0], b[sq], b[2 * sq], b[3 * sq]};                                   \
          tl_vf64 m;                                                                       \
          PROD4(&m, x, y);                                                                 \
          v[k] += m;                                                                       \
        }                                                                                  \
    }                                                                                      \
    double tail = 0;                                                                       \
    for (; i < n; i++)                                                                     \
      tail += (double)(p[i * sp] * q[i * sq]);                                             \
    tl_vf64 u = (v[0] + v[2]) + (v[1] + v[3]);                                             \
    return ((u[0] + u[2]) + (u[1] + u[3])) + tail;                                         \
  }                                                                                        \
  TL_REDUCE_CLONES static void LOOP(char **args, int64_t n, const int64_t *steps, void *data) \
  {                                                                                        \
    /* element strides (the engine's are whole elements, 0 for broadcast) */               \
    if (steps[0] == 0 && steps[1] % (int64_t)sizeof(TI) == 0 &&                            \
        steps[3] % (int64_t)sizeof(TI) == 0) {                                             \
      *(double *)args[0] += NAME((const TI *)args[1], steps[1] / (int64_t)sizeof(TI),      \
                                 (const TI *)args[3], steps[3] / (int64_t)sizeof(TI), n);  \
      return;                                                                              \
    }                                                                                      \
    GENERIC(args, n, steps, data);                                                         \
  }

TL_SUMPROD_DOT_LOOP(sumprod_f32, dot_f32, sumprod_f32_generic, float, prod4_f32)
TL_SUMPROD_DOT_LOOP(sumprod_f64, dot_f64, sumprod_f64_generic, double, prod4_f64)

void tl_cpu_reduce_kernels_init(void)
{
  for (size_t i = 0; i < sizeof reduce_loops / sizeof *reduce_loops; i++)
    tl_reduce_loops[reduce_loops[i].kind][reduce_loops[i].dtype] = reduce_loops[i].loop;
  tl_reduce_loops[TL_RK_COUNT][TL_DTYPE_BOOL] = count_bool_bytes;
  tl_reduce_loops[TL_RK_SUMPROD][TL_DTYPE_I64] = sumprod_i64;
  tl_reduce_loops[TL_RK_SUMPROD][TL_DTYPE_F32] = sumprod_f32;
  tl_reduce_loops[TL_RK_SUMPROD][TL_DTYPE_F64] = sumprod_f64;
  tl_reduce_loops[TL_RK_SUMPROD][TL_DTYPE_C64] = sumprod_c64;
  tl_reduce_loops[TL_RK_SUMPROD][TL_DTYPE_C128] = sumprod_c128;
}
