/* kernels_unary.c - CPU loops of the unary elementwise ops (ops.def, UNARY):
 * arithmetic, exponentials and logarithms, trigonometry, rounding, complex
 * parts, predicates, nan_to_num and the logical/bitwise nots.  The special
 * functions (erf, lgamma, digamma ...) are in kernels_special.c.
 *
 * Which dtypes get a loop follows each op's rule in op.c: a dtype with no loop
 * is refused with a TypeError, and float16/bfloat16 run the float32 loop
 * through cast buffers unless they have one here (nan_to_num: their limits
 * are not float32's).  Values follow NumPy, including NaN, infinities and
 * signed zeros; integers wrap.                                             */
#include "ndcore/dispatch/tl_kernels.h"
#include "ndcore/kernels/tl_vecmath.h"

static const double tl_ln2 = 0.693147180559945309417232121458176568;
static const double tl_ln10 = 2.30258509299404568401799145468436421;

/* ---- identity (ops that do nothing on some dtypes) ---------------------------------- */

#define ID(E, T, U, R, name) static inline T name##_##E(T x) { return x; }

/* ---- neg, positive, abs, sign, sgn --------------------------------------------------- */

#define NEG_INT(E, T, U, R, _) static inline T neg_##E(T x) { return (T)(U)(0u - (U)x); }
#define NEG_FLT(E, T, U, R, _) static inline T neg_##E(T x) { return -x; }
TL_K_INTS(NEG_INT, _)
TL_K_FLOATS(NEG_FLT, _)
TL_K_COMPLEX(NEG_FLT, _)

TL_K_INTS(ID, positive)
TL_K_FLOATS(ID, positive)
TL_K_COMPLEX(ID, positive)

#define ABS_INT(E, T, U, R, _) static inline T abs_##E(T x) { return x < 0 ? (T)(U)(0u - (U)x) : x; }
#define ABS_FLT(E, T, U, R, _) static inline R abs_##E(T x) { return fabs(x); }
TL_K_BOOL(ID, abs)
static inline uint8_t abs_U8(uint8_t x) { return x; }
TL_K_SINTS(ABS_INT, _)
TL_K_FLOATS(ABS_FLT, _)
TL_K_COMPLEX(ABS_FLT, _)

#define SIGN_INT(E, T, U, R, _) static inline T sign_##E(T x) { return (T)((x > 0) - tl_k_negative(x)); }
#define SIGN_FLT(E, T, U, R, _) \
  static inline T sign_##E(T x) { return x > 0 ? (T)1 : x < 0 ? (T)-1 : x == 0 ? (T)0 : x; }
TL_K_BOOL(ID, sign)
TL_K_INTS(SIGN_INT, _)
TL_K_FLOATS(SIGN_FLT, _)

/* sgn: sign for reals, z / |z| (0 at 0) for complex */
#define SGN_REAL(E, T, U, R, _) static inline T sgn_##E(T x) { return sign_##E(x); }
#define SGN_CPLX(E, T, U, R, _) \
  static inline T sgn_##E(T z) { R a = fabs(z); return a == 0 ? (T)0 : z / a; }
TL_K_BOOL(ID, sgn)
TL_K_INTS(SGN_REAL, _)
TL_K_FLOATS(SGN_REAL, _)
TL_K_COMPLEX(SGN_CPLX, _)

/* ---- reciprocal, square, sqrt, rsqrt ------------------------------------------------- */

#define RECIP(E, T, U, R, _) static inline T reciprocal_##E(T x) { return (T)1 / x; }
TL_K_FLOATS(RECIP, _)
TL_K_COMPLEX(RECIP, _)

static inline bool square_BOOL(bool x) { return x; }
#define SQUARE_INT(E, T, U, R, _) static inline T square_##E(T x) { return (T)(U)((U)x * (U)x); }
#define SQUARE_FLT(E, T, U, R, _) static inline T square_##E(T x) { return x * x; }
TL_K_INTS(SQUARE_INT, _)
TL_K_FLOATS(SQUARE_FLT, _)
TL_K_COMPLEX(SQUARE_FLT, _)

/* ---- the libm family: one generic body per op for float, double and complex -------- */

#define LIBM(E, T, U, R, name) static inline T name##_##E(T x) { return name(x); }
#define LIBM_OPS(X, family)                                                              \
  family(X, sqrt) family(X, log) family(X, sin) family(X, cos) family(X, tan)            \
  family(X, asin) family(X, acos) family(X, atan) family(X, sinh) family(X, cosh)        \
  family(X, tanh) family(X, asinh) family(X, acosh) family(X, atanh)
LIBM_OPS(LIBM, TL_K_FLOATS)
LIBM_OPS(LIBM, TL_K_COMPLEX)
static inline double exp_F64(double x) { return exp(x); }
static inline float complex exp_C64(float complex x) { return exp(x); }
static inline double complex exp_C128(double complex x) { return exp(x); }

/* Real-only in C; complex versions below. */
TL_K_FLOATS(LIBM, exp2)
TL_K_FLOATS(LIBM, expm1)
TL_K_FLOATS(LIBM, log2)
TL_K_FLOATS(LIBM, log10)
TL_K_FLOATS(LIBM, log1p)

#define RSQRT(E, T, U, R, _) static inline T rsqrt_##E(T x) { return (T)1 / sqrt(x); }
TL_K_FLOATS(RSQRT, _)
TL_K_COMPLEX(RSQRT, _)

#define CPLX_EXPLOG(E, T, U, R, _)                                                       \
  static inline T exp2_##E(T z) { return exp(z * (R)tl_ln2); }                           \
  static inline T log2_##E(T z) { return log(z) / (R)tl_ln2; }                           \
  static inline T log10_##E(T z) { return log(z) / (R)tl_ln10; }                         \
  /* exp(z) - 1 and log(1 + z) without the cancellation near z = 0 */                   \
  static inline T expm1_##E(T z)                                                         \
  {                                                                                      \
    R x = creal(z), y = cimag(z), s = sin(y / 2);                                        \
    return CMPLX(expm1(x) * cos(y) - 2 * s * s, exp(x) * sin(y));                        \
  }                                                                                      \
  static inline T log1p_##E(T z)                                                         \
  {                                                                                      \
    R x = creal(z), y = cimag(z);                                                        \
    if (!isfinite(x) || !isfinite(y) || fabs(x) > 0.5 || fabs(y) > 0.5)                  \
      return log(1 + z);                                                                 \
    return CMPLX(log1p(x * (2 + x) + y * y) / 2, atan2(y, 1 + x));                       \
  }
TL_K_COMPLEX(CPLX_EXPLOG, _)

/* sigmoid: 1 / (1 + exp(-x)) evaluated on the side that cannot overflow */
static inline float sigmoid_F32(float x) { return tl_sigmoidf(x); }
static inline double sigmoid_F64(double x)
{
  double e = exp(x < 0 ? x : -x);
  return x < 0 ? e / (1 + e) : 1 / (1 + e);
}
#define SIGMOID_CPLX(E, T, U, R, _) static inline T sigmoid_##E(T z) { return 1 / (1 + exp(-z)); }
TL_K_COMPLEX(SIGMOID_CPLX, _)

/* ---- rounding ------------------------------------------------------------------------ */

TL_K_BOOL(ID, floor) TL_K_INTS(ID, floor)
TL_K_BOOL(ID, ceil) TL_K_INTS(ID, ceil)
TL_K_BOOL(ID, trunc) TL_K_INTS(ID, trunc)
/* float versions, and their loops, where vector rounding is allowed */
TL_VECMATH_BEGIN
TL_K_FLOATS(LIBM, floor)
TL_K_FLOATS(LIBM, ceil)
TL_K_FLOATS(LIBM, trunc)
#define FRAC(E, T, U, R, _) static inline T frac_##E(T x) { return x - trunc(x); }
TL_K_FLOATS(FRAC, _)
TL_K_FLOATS(TL_KU_SIMD, floor) TL_K_FLOATS(TL_KU_SIMD, ceil) TL_K_FLOATS(TL_KU_SIMD, trunc)
TL_K_FLOATS(TL_KU_SIMD, frac)
TL_VECMATH_END

/* round(x, decimals): as NumPy, scale by 10^|decimals| in the tensor's own
 * precision, round half to even (rint), and scale back. */
static double pow10_of(int64_t d)
{
  double f = 1;
  for (int64_t i = 0; i < d && isfinite(f); i++)
    f *= 10;
  return f;
}

#define ROUND_FLT(E, T, U, R, _)                                                         \
  static void round_##E##_loop(char **args, int64_t n, const int64_t *steps, void *data) \
  {                                                                                      \
    int64_t d = data ? ((const tl_op_params *)data)->i : 0;                              \
    const T f = (T)pow10_of(d < 0 ? -d : d);                                             \
    for (int64_t i = 0; i < n; i++) {                                                    \
      T x = *(const T *)(args[1] + i * steps[1]);                                        \
      T y = d == 0 ? rint(x) : d > 0 ? rint(x * f) / f : rint(x / f) * f;                \
      *(T *)(args[0] + i * steps[0]) = y;                                                \
    }                                                                                    \
  }
TL_K_FLOATS(ROUND_FLT, _)

/* Integers: unchanged for decimals >= 0; otherwise rounded to a multiple of
 * 10^-decimals, half to even, computed in double as NumPy does. */
#define ROUND_INT(E, T, U, R, _)                                                         \
  static void round_##E##_loop(char **args, int64_t n, const int64_t *steps, void *data) \
  {                                                                                      \
    int64_t d = data ? ((const tl_op_params *)data)->i : 0;                              \
    const double f = pow10_of(d < 0 ? -d : 0);                                           \
    for (int64_t i = 0; i < n; i++) {                                                    \
      T x = *(const T *)(args[1] + i * steps[1]);                                        \
      if (d < 0) {                                                                       \
        double y = rint((double)x / f) * f;                                              \
        x = fabs(y) < 9.2e18 ? (T)(U)(int64_t)y : 0;                                     \
      }                                                                                  \
      *(T *)(args[0] + i * steps[0]) = x;                                                \
    }                                                                                    \
  }
TL_K_INTS(ROUND_INT, _)
TL_K_BOOL(ID, round) /* a bool is its own rounding at any number of decimals */
TL_K_BOOL(TL_KU, round)

/* ---- complex parts ------------------------------------------------------------------- */

TL_K_BOOL(ID, conj_physical)
TL_K_INTS(ID, conj_physical)
TL_K_FLOATS(ID, conj_physical)
#define CONJ(E, T, U, R, _) static inline T conj_physical_##E(T z) { return conj(z); }
TL_K_COMPLEX(CONJ, _)

/* angle of a real: atan2(0, x), so pi for negatives and -0.0, NaN for NaN */
#define ANGLE_REAL(E, T, U, R, _) static inline T angle_##E(T x) { return atan2((T)0, x); }
#define ANGLE_CPLX(E, T, U, R, _) static inline R angle_##E(T z) { return carg(z); }
TL_K_FLOATS(ANGLE_REAL, _)
TL_K_COMPLEX(ANGLE_CPLX, _)

/* ---- predicates ---------------------------------------------------------------------- */

#define PRED_CONST(E, T, U, R, name, value) static inline bool name##_##E(T x) { (void)x; return value; }
#define PRED_INTS(name, value) \
  PRED_CONST(BOOL, bool, bool, bool, name, value) TL_K_INTS(PRED_CONST, name, value)
PRED_INTS(isnan, false)
PRED_INTS(isinf, false)
PRED_INTS(isfinite, true)
PRED_INTS(isposinf, false)
PRED_INTS(isneginf, false)

#define PRED_FLT(E, T, U, R, _)                                                          \
  static inline bool isnan_##E(T x) { return isnan(x); }                                 \
  static inline bool isinf_##E(T x) { return isinf(x); }                                 \
  static inline bool isfinite_##E(T x) { return isfinite(x); }                           \
  static inline bool isposinf_##E(T x) { return x == (T)INFINITY; }                      \
  static inline bool isneginf_##E(T x) { return x == -(T)INFINITY; }                     \
  static inline bool signbit_##E(T x) { return signbit(x); }
TL_K_FLOATS(PRED_FLT, _)
#define PRED_CPLX(E, T, U, R, _)                                                         \
  static inline bool isnan_##E(T z) { return isnan(creal(z)) || isnan(cimag(z)); }       \
  static inline bool isinf_##E(T z) { return isinf(creal(z)) || isinf(cimag(z)); }       \
  static inline bool isfinite_##E(T z) { return isfinite(creal(z)) && isfinite(cimag(z)); }
TL_K_COMPLEX(PRED_CPLX, _)
static inline bool signbit_BOOL(bool x) { (void)x; return false; }
static inline bool signbit_U8(uint8_t x) { (void)x; return false; }
#define SIGNBIT_INT(E, T, U, R, _) static inline bool signbit_##E(T x) { return x < 0; }
TL_K_SINTS(SIGNBIT_INT, _)

/* ---- nan_to_num ----------------------------------------------------------------------
 * params s[0]: NaN's replacement; s[1], s[2]: +inf's and -inf's, where a
 * bool-kind scalar means "the dtype's largest / lowest finite value". */
typedef struct {
  double nan, posinf, neginf;
} nan_to_num_values;

static nan_to_num_values nan_to_num_params(const void *data, double max)
{
  nan_to_num_values v = {0.0, max, -max};
  const tl_op_params *p = data;
  if (!p)
    return v;
  v.nan = tl_k_param_f64(&p->s[0]);
  if (p->s[1].kind != TL_KIND_BOOL)
    v.posinf = tl_k_param_f64(&p->s[1]);
  if (p->s[2].kind != TL_KIND_BOOL)
    v.neginf = tl_k_param_f64(&p->s[2]);
  return v;
}

static inline double nan_to_num_one(double x, const nan_to_num_values *v)
{
  return isnan(x) ? v->nan : x == INFINITY ? v->posinf : x == -INFINITY ? v->neginf : x;
}

/* One loop per memory dtype: E's load/store, and its limit. */
#define NAN_TO_NUM_REAL(E, T, MAX)                                                       \
  static void nan_to_num_##E##_loop(char **args, int64_t n, const int64_t *steps, void *data) \
  {                                                                                      \
    nan_to_num_values v = nan_to_num_params(data, MAX);                                  \
    T nan = (T)v.nan, pos = (T)v.posinf, neg = (T)v.neginf;                              \
    for (int64_t i = 0; i < n; i++) {                                                    \
      T x = tl_load_##E(args[1] + i * steps[1]);                                         \
      tl_store_##E(args[0] + i * steps[0],                                               \
                   isnan(x) ? nan : x == (T)INFINITY ? pos : x == -(T)INFINITY ? neg : x); \
    }                                                                                    \
  }
NAN_TO_NUM_REAL(F16, float, 65504.0)
NAN_TO_NUM_REAL(BF16, float, 3.38953138925153547590470800371487867e38)
NAN_TO_NUM_REAL(F32, float, 3.40282346638528859811704183484516925e38)
NAN_TO_NUM_REAL(F64, double, 1.79769313486231570814527423731704357e308)

#define NAN_TO_NUM_CPLX(E, T, R, MAX)                                                    \
  static void nan_to_num_##E##_loop(char **args, int64_t n, const int64_t *steps, void *data) \
  {                                                                                      \
    nan_to_num_values v = nan_to_num_params(data, MAX);                                  \
    for (int64_t i = 0; i < n; i++) {                                                    \
      T z = tl_load_##E(args[1] + i * steps[1]);                                         \
      R re = (R)nan_to_num_one(creal(z), &v), im = (R)nan_to_num_one(cimag(z), &v);      \
      tl_store_##E(args[0] + i * steps[0], CMPLX(re, im));                               \
    }                                                                                    \
  }
NAN_TO_NUM_CPLX(C64, float complex, float, 3.40282346638528859811704183484516925e38)
NAN_TO_NUM_CPLX(C128, double complex, double, 1.79769313486231570814527423731704357e308)
TL_K_BOOL(ID, nan_to_num)
TL_K_INTS(ID, nan_to_num)

/* ---- logical_not, bitwise_not -------------------------------------------------------- */

static inline bool logical_not_BOOL(bool x) { return !x; }
static inline bool bitwise_not_BOOL(bool x) { return !x; }
#define BNOT(E, T, U, R, _) static inline T bitwise_not_##E(T x) { return (T)~x; }
TL_K_INTS(BNOT, _)

/* ---- loops ------------------------------------------------------------------------- */

/* exp in float32 is the vectorised polynomial; the others are scalar libm. */
TL_VECMATH_BEGIN
TL_SIMD_CLONES static void exp_F32_loop(char **args, int64_t n, const int64_t *steps, void *data)
{
  (void)data;
  if (steps[0] == sizeof(float) && steps[1] == sizeof(float)) {
    float *o = (float *)args[0];
    const float *a = (const float *)args[1];
    for (int64_t i = 0; i < n; i++)
      o[i] = tl_expf(a[i]);
    return;
  }
  for (int64_t i = 0; i < n; i++)
    *(float *)(args[0] + i * steps[0]) = tl_expf(*(const float *)(args[1] + i * steps[1]));
}

TL_SIMD_CLONES static void sigmoid_F32_loop(char **args, int64_t n, const int64_t *steps,
                                            void *data)
{
  (void)data;
  if (steps[0] == sizeof(float) && steps[1] == sizeof(float)) {
    float *o = (float *)args[0];
    const float *a = (const float *)args[1];
    /* tl_sigmoidf, not sigmoid_F32: a function compiled outside this region's
     * optimize options cannot be inlined here, and a call per element made
     * this loop 40x slower than exp's. */
    for (int64_t i = 0; i < n; i++)
      o[i] = tl_sigmoidf(a[i]);
    return;
  }
  for (int64_t i = 0; i < n; i++)
    *(float *)(args[0] + i * steps[0]) = tl_sigmoidf(*(const float *)(args[1] + i * steps[1]));
}
TL_VECMATH_END

TL_K_INTS(TL_KU, neg) TL_K_FLOATS(TL_KU_SIMD, neg) TL_K_COMPLEX(TL_KU, neg)
TL_K_INTS(TL_KU, positive) TL_K_FLOATS(TL_KU, positive) TL_K_COMPLEX(TL_KU, positive)
TL_K_BOOL(TL_KU, abs) TL_K_INTS(TL_KU, abs) TL_K_FLOATS(TL_KU_SIMD, abs) TL_K_COMPLEX(TL_KU_REAL, abs)
TL_K_BOOL(TL_KU, sign) TL_K_INTS(TL_KU, sign) TL_K_FLOATS(TL_KU_SIMD, sign)
TL_K_BOOL(TL_KU, sgn) TL_K_INTS(TL_KU, sgn) TL_K_FLOATS(TL_KU, sgn) TL_K_COMPLEX(TL_KU, sgn)
TL_K_FLOATS(TL_KU_SIMD, reciprocal) TL_K_COMPLEX(TL_KU, reciprocal)
TL_K_BOOL(TL_KU, square) TL_K_INTS(TL_KU, square) TL_K_FLOATS(TL_KU_SIMD, square)
TL_K_COMPLEX(TL_KU, square)
/* float loops through libmvec (tl_vecmath.h), complex ones scalar */
#define LOOPS_INEXACT(X, name) TL_K_FLOATS(X##_SIMD, name) TL_K_COMPLEX(X, name)
LIBM_OPS(TL_KU, LOOPS_INEXACT)
TL_KU_SIMD(F64, double, double, double, exp) TL_K_COMPLEX(TL_KU, exp)
LOOPS_INEXACT(TL_KU, exp2)
LOOPS_INEXACT(TL_KU, expm1)
LOOPS_INEXACT(TL_KU, log2)
LOOPS_INEXACT(TL_KU, log10)
LOOPS_INEXACT(TL_KU, log1p)
LOOPS_INEXACT(TL_KU, rsqrt)
TL_KU_SIMD(F64, double, double, double, sigmoid) TL_K_COMPLEX(TL_KU, sigmoid)
TL_K_BOOL(TL_KU, floor) TL_K_INTS(TL_KU, floor)
TL_K_BOOL(TL_KU, ceil) TL_K_INTS(TL_KU, ceil)
TL_K_BOOL(TL_KU, trunc) TL_K_INTS(TL_KU, trunc)

TL_K_BOOL(TL_KU, conj_physical) TL_K_INTS(TL_KU, conj_physical)
TL_K_FLOATS(TL_KU, conj_physical) TL_K_COMPLEX(TL_KU, conj_physical)
TL_K_FLOATS(TL_KU, angle) TL_K_COMPLEX(TL_KU_REAL, angle)
#define TL_KU_PRED_SIMD(E, T, U, R, name) TL_K_UNARY_SIMD_LOOP(name##_##E##_loop, T, bool, name##_##E)
#define LOOPS_PRED(X, name) TL_K_BOOL(X, name) TL_K_INTS(X, name) TL_K_FLOATS(X##_SIMD, name)
LOOPS_PRED(TL_KU_PRED, isnan) TL_K_COMPLEX(TL_KU_PRED, isnan)
LOOPS_PRED(TL_KU_PRED, isinf) TL_K_COMPLEX(TL_KU_PRED, isinf)
LOOPS_PRED(TL_KU_PRED, isfinite) TL_K_COMPLEX(TL_KU_PRED, isfinite)
LOOPS_PRED(TL_KU_PRED, isposinf)
LOOPS_PRED(TL_KU_PRED, isneginf)
LOOPS_PRED(TL_KU_PRED, signbit)
TL_K_BOOL(TL_KU, nan_to_num) TL_K_INTS(TL_KU, nan_to_num)
TL_K_BOOL(TL_KU, logical_not)
TL_K_BOOL(TL_KU, bitwise_not) TL_K_INTS(TL_KU, bitwise_not)

/* The CPU loops of this file: (op, compute dtype, loop), registered in the
 * kernel table by tl_cpu_unary_register. */
static const tl_k_entry unary_loops[] = {
    {TL_OP_NEG, TL_DTYPE_U8, neg_U8_loop},
    {TL_OP_NEG, TL_DTYPE_I8, neg_I8_loop},
    {TL_OP_NEG, TL_DTYPE_I16, neg_I16_loop},
    {TL_OP_NEG, TL_DTYPE_I32, neg_I32_loop},
    {TL_OP_NEG, TL_DTYPE_I64, neg_I64_loop},
    {TL_OP_NEG, TL_DTYPE_F32, neg_F32_loop},
    {TL_OP_NEG, TL_DTYPE_F64, neg_F64_loop},
    {TL_OP_NEG, TL_DTYPE_C64, neg_C64_loop},
    {TL_OP_NEG, TL_DTYPE_C128, neg_C128_loop},
    {TL_OP_POSITIVE, TL_DTYPE_U8, positive_U8_loop},
    {TL_OP_POSITIVE, TL_DTYPE_I8, positive_I8_loop},
    {TL_OP_POSITIVE, TL_DTYPE_I16, positive_I16_loop},
    {TL_OP_POSITIVE, TL_DTYPE_I32, positive_I32_loop},
    {TL_OP_POSITIVE, TL_DTYPE_I64, positive_I64_loop},
    {TL_OP_POSITIVE, TL_DTYPE_F32, positive_F32_loop},
    {TL_OP_POSITIVE, TL_DTYPE_F64, positive_F64_loop},
    {TL_OP_POSITIVE, TL_DTYPE_C64, positive_C64_loop},
    {TL_OP_POSITIVE, TL_DTYPE_C128, positive_C128_loop},
    {TL_OP_ABS, TL_DTYPE_BOOL, abs_BOOL_loop},
    {TL_OP_ABS, TL_DTYPE_U8, abs_U8_loop},
    {TL_OP_ABS, TL_DTYPE_I8, abs_I8_loop},
    {TL_OP_ABS, TL_DTYPE_I16, abs_I16_loop},
    {TL_OP_ABS, TL_DTYPE_I32, abs_I32_loop},
    {TL_OP_ABS, TL_DTYPE_I64, abs_I64_loop},
    {TL_OP_ABS, TL_DTYPE_F32, abs_F32_loop},
    {TL_OP_ABS, TL_DTYPE_F64, abs_F64_loop},
    {TL_OP_ABS, TL_DTYPE_C64, abs_C64_loop},
    {TL_OP_ABS, TL_DTYPE_C128, abs_C128_loop},
    {TL_OP_SIGN, TL_DTYPE_BOOL, sign_BOOL_loop},
    {TL_OP_SIGN, TL_DTYPE_U8, sign_U8_loop},
    {TL_OP_SIGN, TL_DTYPE_I8, sign_I8_loop},
    {TL_OP_SIGN, TL_DTYPE_I16, sign_I16_loop},
    {TL_OP_SIGN, TL_DTYPE_I32, sign_I32_loop},
    {TL_OP_SIGN, TL_DTYPE_I64, sign_I64_loop},
    {TL_OP_SIGN, TL_DTYPE_F32, sign_F32_loop},
    {TL_OP_SIGN, TL_DTYPE_F64, sign_F64_loop},
    {TL_OP_SGN, TL_DTYPE_BOOL, sgn_BOOL_loop},
    {TL_OP_SGN, TL_DTYPE_U8, sgn_U8_loop},
    {TL_OP_SGN, TL_DTYPE_I8, sgn_I8_loop},
    {TL_OP_SGN, TL_DTYPE_I16, sgn_I16_loop},
    {TL_OP_SGN, TL_DTYPE_I32, sgn_I32_loop},
    {TL_OP_SGN, TL_DTYPE_I64, sgn_I64_loop},
    {TL_OP_SGN, TL_DTYPE_F32, sgn_F32_loop},
    {TL_OP_SGN, TL_DTYPE_F64, sgn_F64_loop},
    {TL_OP_SGN, TL_DTYPE_C64, sgn_C64_loop},
    {TL_OP_SGN, TL_DTYPE_C128, sgn_C128_loop},
    {TL_OP_RECIPROCAL, TL_DTYPE_F32, reciprocal_F32_loop},
    {TL_OP_RECIPROCAL, TL_DTYPE_F64, reciprocal_F64_loop},
    {TL_OP_RECIPROCAL, TL_DTYPE_C64, reciprocal_C64_loop},
    {TL_OP_RECIPROCAL, TL_DTYPE_C128, reciprocal_C128_loop},
    {TL_OP_SQUARE, TL_DTYPE_BOOL, square_BOOL_loop},
    {TL_OP_SQUARE, TL_DTYPE_U8, square_U8_loop},
    {TL_OP_SQUARE, TL_DTYPE_I8, square_I8_loop},
    {TL_OP_SQUARE, TL_DTYPE_I16, square_I16_loop},
    {TL_OP_SQUARE, TL_DTYPE_I32, square_I32_loop},
    {TL_OP_SQUARE, TL_DTYPE_I64, square_I64_loop},
    {TL_OP_SQUARE, TL_DTYPE_F32, square_F32_loop},
    {TL_OP_SQUARE, TL_DTYPE_F64, square_F64_loop},
    {TL_OP_SQUARE, TL_DTYPE_C64, square_C64_loop},
    {TL_OP_SQUARE, TL_DTYPE_C128, square_C128_loop},
    {TL_OP_SQRT, TL_DTYPE_F32, sqrt_F32_loop},
    {TL_OP_SQRT, TL_DTYPE_F64, sqrt_F64_loop},
    {TL_OP_SQRT, TL_DTYPE_C64, sqrt_C64_loop},
    {TL_OP_SQRT, TL_DTYPE_C128, sqrt_C128_loop},
    {TL_OP_RSQRT, TL_DTYPE_F32, rsqrt_F32_loop},
    {TL_OP_RSQRT, TL_DTYPE_F64, rsqrt_F64_loop},
    {TL_OP_RSQRT, TL_DTYPE_C64, rsqrt_C64_loop},
    {TL_OP_RSQRT, TL_DTYPE_C128, rsqrt_C128_loop},
    {TL_OP_EXP, TL_DTYPE_F32, exp_F32_loop},
    {TL_OP_EXP, TL_DTYPE_F64, exp_F64_loop},
    {TL_OP_EXP, TL_DTYPE_C64, exp_C64_loop},
    {TL_OP_EXP, TL_DTYPE_C128, exp_C128_loop},
    {TL_OP_EXP2, TL_DTYPE_F32, exp2_F32_loop},
    {TL_OP_EXP2, TL_DTYPE_F64, exp2_F64_loop},
    {TL_OP_EXP2, TL_DTYPE_C64, exp2_C64_loop},
    {TL_OP_EXP2, TL_DTYPE_C128, exp2_C128_loop},
    {TL_OP_EXPM1, TL_DTYPE_F32, expm1_F32_loop},
    {TL_OP_EXPM1, TL_DTYPE_F64, expm1_F64_loop},
    {TL_OP_EXPM1, TL_DTYPE_C64, expm1_C64_loop},
    {TL_OP_EXPM1, TL_DTYPE_C128, expm1_C128_loop},
    {TL_OP_LOG, TL_DTYPE_F32, log_F32_loop},
    {TL_OP_LOG, TL_DTYPE_F64, log_F64_loop},
    {TL_OP_LOG, TL_DTYPE_C64, log_C64_loop},
    {TL_OP_LOG, TL_DTYPE_C128, log_C128_loop},
    {TL_OP_LOG2, TL_DTYPE_F32, log2_F32_loop},
    {TL_OP_LOG2, TL_DTYPE_F64, log2_F64_loop},
    {TL_OP_LOG2, TL_DTYPE_C64, log2_C64_loop},
    {TL_OP_LOG2, TL_DTYPE_C128, log2_C128_loop},
    {TL_OP_LOG10, TL_DTYPE_F32, log10_F32_loop},
    {TL_OP_LOG10, TL_DTYPE_F64, log10_F64_loop},
    {TL_OP_LOG10, TL_DTYPE_C64, log10_C64_loop},
    {TL_OP_LOG10, TL_DTYPE_C128, log10_C128_loop},
    {TL_OP_LOG1P, TL_DTYPE_F32, log1p_F32_loop},
    {TL_OP_LOG1P, TL_DTYPE_F64, log1p_F64_loop},
    {TL_OP_LOG1P, TL_DTYPE_C64, log1p_C64_loop},
    {TL_OP_LOG1P, TL_DTYPE_C128, log1p_C128_loop},
    {TL_OP_SIN, TL_DTYPE_F32, sin_F32_loop},
    {TL_OP_SIN, TL_DTYPE_F64, sin_F64_loop},
    {TL_OP_SIN, TL_DTYPE_C64, sin_C64_loop},
    {TL_OP_SIN, TL_DTYPE_C128, sin_C128_loop},
    {TL_OP_COS, TL_DTYPE_F32, cos_F32_loop},
    {TL_OP_COS, TL_DTYPE_F64, cos_F64_loop},
    {TL_OP_COS, TL_DTYPE_C64, cos_C64_loop},
    {TL_OP_COS, TL_DTYPE_C128, cos_C128_loop},
    {TL_OP_TAN, TL_DTYPE_F32, tan_F32_loop},
    {TL_OP_TAN, TL_DTYPE_F64, tan_F64_loop},
    {TL_OP_TAN, TL_DTYPE_C64, tan_C64_loop},
    {TL_OP_TAN, TL_DTYPE_C128, tan_C128_loop},
    {TL_OP_ASIN, TL_DTYPE_F32, asin_F32_loop},
    {TL_OP_ASIN, TL_DTYPE_F64, asin_F64_loop},
    {TL_OP_ASIN, TL_DTYPE_C64, asin_C64_loop},
    {TL_OP_ASIN, TL_DTYPE_C128, asin_C128_loop},
    {TL_OP_ACOS, TL_DTYPE_F32, acos_F32_loop},
    {TL_OP_ACOS, TL_DTYPE_F64, acos_F64_loop},
    {TL_OP_ACOS, TL_DTYPE_C64, acos_C64_loop},
    {TL_OP_ACOS, TL_DTYPE_C128, acos_C128_loop},
    {TL_OP_ATAN, TL_DTYPE_F32, atan_F32_loop},
    {TL_OP_ATAN, TL_DTYPE_F64, atan_F64_loop},
    {TL_OP_ATAN, TL_DTYPE_C64, atan_C64_loop},
    {TL_OP_ATAN, TL_DTYPE_C128, atan_C128_loop},
    {TL_OP_SINH, TL_DTYPE_F32, sinh_F32_loop},
    {TL_OP_SINH, TL_DTYPE_F64, sinh_F64_loop},
    {TL_OP_SINH, TL_DTYPE_C64, sinh_C64_loop},
    {TL_OP_SINH, TL_DTYPE_C128, sinh_C128_loop},
    {TL_OP_COSH, TL_DTYPE_F32, cosh_F32_loop},
    {TL_OP_COSH, TL_DTYPE_F64, cosh_F64_loop},
    {TL_OP_COSH, TL_DTYPE_C64, cosh_C64_loop},
    {TL_OP_COSH, TL_DTYPE_C128, cosh_C128_loop},
    {TL_OP_TANH, TL_DTYPE_F32, tanh_F32_loop},
    {TL_OP_TANH, TL_DTYPE_F64, tanh_F64_loop},
    {TL_OP_TANH, TL_DTYPE_C64, tanh_C64_loop},
    {TL_OP_TANH, TL_DTYPE_C128, tanh_C128_loop},
    {TL_OP_ASINH, TL_DTYPE_F32, asinh_F32_loop},
    {TL_OP_ASINH, TL_DTYPE_F64, asinh_F64_loop},
    {TL_OP_ASINH, TL_DTYPE_C64, asinh_C64_loop},
    {TL_OP_ASINH, TL_DTYPE_C128, asinh_C128_loop},
    {TL_OP_ACOSH, TL_DTYPE_F32, acosh_F32_loop},
    {TL_OP_ACOSH, TL_DTYPE_F64, acosh_F64_loop},
    {TL_OP_ACOSH, TL_DTYPE_C64, acosh_C64_loop},
    {TL_OP_ACOSH, TL_DTYPE_C128, acosh_C128_loop},
    {TL_OP_ATANH, TL_DTYPE_F32, atanh_F32_loop},
    {TL_OP_ATANH, TL_DTYPE_F64, atanh_F64_loop},
    {TL_OP_ATANH, TL_DTYPE_C64, atanh_C64_loop},
    {TL_OP_ATANH, TL_DTYPE_C128, atanh_C128_loop},
    {TL_OP_SIGMOID, TL_DTYPE_F32, sigmoid_F32_loop},
    {TL_OP_SIGMOID, TL_DTYPE_F64, sigmoid_F64_loop},
    {TL_OP_SIGMOID, TL_DTYPE_C64, sigmoid_C64_loop},
    {TL_OP_SIGMOID, TL_DTYPE_C128, sigmoid_C128_loop},
    {TL_OP_FLOOR, TL_DTYPE_BOOL, floor_BOOL_loop},
    {TL_OP_FLOOR, TL_DTYPE_U8, floor_U8_loop},
    {TL_OP_FLOOR, TL_DTYPE_I8, floor_I8_loop},
    {TL_OP_FLOOR, TL_DTYPE_I16, floor_I16_loop},
    {TL_OP_FLOOR, TL_DTYPE_I32, floor_I32_loop},
    {TL_OP_FLOOR, TL_DTYPE_I64, floor_I64_loop},
    {TL_OP_FLOOR, TL_DTYPE_F32, floor_F32_loop},
    {TL_OP_FLOOR, TL_DTYPE_F64, floor_F64_loop},
    {TL_OP_CEIL, TL_DTYPE_BOOL, ceil_BOOL_loop},
    {TL_OP_CEIL, TL_DTYPE_U8, ceil_U8_loop},
    {TL_OP_CEIL, TL_DTYPE_I8, ceil_I8_loop},
    {TL_OP_CEIL, TL_DTYPE_I16, ceil_I16_loop},
    {TL_OP_CEIL, TL_DTYPE_I32, ceil_I32_loop},
    {TL_OP_CEIL, TL_DTYPE_I64, ceil_I64_loop},
    {TL_OP_CEIL, TL_DTYPE_F32, ceil_F32_loop},
    {TL_OP_CEIL, TL_DTYPE_F64, ceil_F64_loop},
    {TL_OP_TRUNC, TL_DTYPE_BOOL, trunc_BOOL_loop},
    {TL_OP_TRUNC, TL_DTYPE_U8, trunc_U8_loop},
    {TL_OP_TRUNC, TL_DTYPE_I8, trunc_I8_loop},
    {TL_OP_TRUNC, TL_DTYPE_I16, trunc_I16_loop},
    {TL_OP_TRUNC, TL_DTYPE_I32, trunc_I32_loop},
    {TL_OP_TRUNC, TL_DTYPE_I64, trunc_I64_loop},
    {TL_OP_TRUNC, TL_DTYPE_F32, trunc_F32_loop},
    {TL_OP_TRUNC, TL_DTYPE_F64, trunc_F64_loop},
    {TL_OP_ROUND, TL_DTYPE_BOOL, round_BOOL_loop},
    {TL_OP_ROUND, TL_DTYPE_U8, round_U8_loop},
    {TL_OP_ROUND, TL_DTYPE_I8, round_I8_loop},
    {TL_OP_ROUND, TL_DTYPE_I16, round_I16_loop},
    {TL_OP_ROUND, TL_DTYPE_I32, round_I32_loop},
    {TL_OP_ROUND, TL_DTYPE_I64, round_I64_loop},
    {TL_OP_ROUND, TL_DTYPE_F32, round_F32_loop},
    {TL_OP_ROUND, TL_DTYPE_F64, round_F64_loop},
    {TL_OP_FRAC, TL_DTYPE_F32, frac_F32_loop},
    {TL_OP_FRAC, TL_DTYPE_F64, frac_F64_loop},
    {TL_OP_CONJ_PHYSICAL, TL_DTYPE_BOOL, conj_physical_BOOL_loop},
    {TL_OP_CONJ_PHYSICAL, TL_DTYPE_U8, conj_physical_U8_loop},
    {TL_OP_CONJ_PHYSICAL, TL_DTYPE_I8, conj_physical_I8_loop},
    {TL_OP_CONJ_PHYSICAL, TL_DTYPE_I16, conj_physical_I16_loop},
    {TL_OP_CONJ_PHYSICAL, TL_DTYPE_I32, conj_physical_I32_loop},
    {TL_OP_CONJ_PHYSICAL, TL_DTYPE_I64, conj_physical_I64_loop},
    {TL_OP_CONJ_PHYSICAL, TL_DTYPE_F32, conj_physical_F32_loop},
    {TL_OP_CONJ_PHYSICAL, TL_DTYPE_F64, conj_physical_F64_loop},
    {TL_OP_CONJ_PHYSICAL, TL_DTYPE_C64, conj_physical_C64_loop},
    {TL_OP_CONJ_PHYSICAL, TL_DTYPE_C128, conj_physical_C128_loop},
    {TL_OP_ANGLE, TL_DTYPE_F32, angle_F32_loop},
    {TL_OP_ANGLE, TL_DTYPE_F64, angle_F64_loop},
    {TL_OP_ANGLE, TL_DTYPE_C64, angle_C64_loop},
    {TL_OP_ANGLE, TL_DTYPE_C128, angle_C128_loop},
    {TL_OP_ISNAN, TL_DTYPE_BOOL, isnan_BOOL_loop},
    {TL_OP_ISNAN, TL_DTYPE_U8, isnan_U8_loop},
    {TL_OP_ISNAN, TL_DTYPE_I8, isnan_I8_loop},
    {TL_OP_ISNAN, TL_DTYPE_I16, isnan_I16_loop},
    {TL_OP_ISNAN, TL_DTYPE_I32, isnan_I32_loop},
    {TL_OP_ISNAN, TL_DTYPE_I64, isnan_I64_loop},
    {TL_OP_ISNAN, TL_DTYPE_F32, isnan_F32_loop},
    {TL_OP_ISNAN, TL_DTYPE_F64, isnan_F64_loop},
    {TL_OP_ISNAN, TL_DTYPE_C64, isnan_C64_loop},
    {TL_OP_ISNAN, TL_DTYPE_C128, isnan_C128_loop},
    {TL_OP_ISINF, TL_DTYPE_BOOL, isinf_BOOL_loop},
    {TL_OP_ISINF, TL_DTYPE_U8, isinf_U8_loop},
    {TL_OP_ISINF, TL_DTYPE_I8, isinf_I8_loop},
    {TL_OP_ISINF, TL_DTYPE_I16, isinf_I16_loop},
    {TL_OP_ISINF, TL_DTYPE_I32, isinf_I32_loop},
    {TL_OP_ISINF, TL_DTYPE_I64, isinf_I64_loop},
    {TL_OP_ISINF, TL_DTYPE_F32, isinf_F32_loop},
    {TL_OP_ISINF, TL_DTYPE_F64, isinf_F64_loop},
    {TL_OP_ISINF, TL_DTYPE_C64, isinf_C64_loop},
    {TL_OP_ISINF, TL_DTYPE_C128, isinf_C128_loop},
    {TL_OP_ISFINITE, TL_DTYPE_BOOL, isfinite_BOOL_loop},
    {TL_OP_ISFINITE, TL_DTYPE_U8, isfinite_U8_loop},
    {TL_OP_ISFINITE, TL_DTYPE_I8, isfinite_I8_loop},
    {TL_OP_ISFINITE, TL_DTYPE_I16, isfinite_I16_loop},
    {TL_OP_ISFINITE, TL_DTYPE_I32, isfinite_I32_loop},
    {TL_OP_ISFINITE, TL_DTYPE_I64, isfinite_I64_loop},
    {TL_OP_ISFINITE, TL_DTYPE_F32, isfinite_F32_loop},
    {TL_OP_ISFINITE, TL_DTYPE_F64, isfinite_F64_loop},
    {TL_OP_ISFINITE, TL_DTYPE_C64, isfinite_C64_loop},
    {TL_OP_ISFINITE, TL_DTYPE_C128, isfinite_C128_loop},
    {TL_OP_ISPOSINF, TL_DTYPE_BOOL, isposinf_BOOL_loop},
    {TL_OP_ISPOSINF, TL_DTYPE_U8, isposinf_U8_loop},
    {TL_OP_ISPOSINF, TL_DTYPE_I8, isposinf_I8_loop},
    {TL_OP_ISPOSINF, TL_DTYPE_I16, isposinf_I16_loop},
    {TL_OP_ISPOSINF, TL_DTYPE_I32, isposinf_I32_loop},
    {TL_OP_ISPOSINF, TL_DTYPE_I64, isposinf_I64_loop},
    {TL_OP_ISPOSINF, TL_DTYPE_F32, isposinf_F32_loop},
    {TL_OP_ISPOSINF, TL_DTYPE_F64, isposinf_F64_loop},
    {TL_OP_ISNEGINF, TL_DTYPE_BOOL, isneginf_BOOL_loop},
    {TL_OP_ISNEGINF, TL_DTYPE_U8, isneginf_U8_loop},
    {TL_OP_ISNEGINF, TL_DTYPE_I8, isneginf_I8_loop},
    {TL_OP_ISNEGINF, TL_DTYPE_I16, isneginf_I16_loop},
    {TL_OP_ISNEGINF, TL_DTYPE_I32, isneginf_I32_loop},
    {TL_OP_ISNEGINF, TL_DTYPE_I64, isneginf_I64_loop},
    {TL_OP_ISNEGINF, TL_DTYPE_F32, isneginf_F32_loop},
    {TL_OP_ISNEGINF, TL_DTYPE_F64, isneginf_F64_loop},
    {TL_OP_SIGNBIT, TL_DTYPE_BOOL, signbit_BOOL_loop},
    {TL_OP_SIGNBIT, TL_DTYPE_U8, signbit_U8_loop},
    {TL_OP_SIGNBIT, TL_DTYPE_I8, signbit_I8_loop},
    {TL_OP_SIGNBIT, TL_DTYPE_I16, signbit_I16_loop},
    {TL_OP_SIGNBIT, TL_DTYPE_I32, signbit_I32_loop},
    {TL_OP_SIGNBIT, TL_DTYPE_I64, signbit_I64_loop},
    {TL_OP_SIGNBIT, TL_DTYPE_F32, signbit_F32_loop},
    {TL_OP_SIGNBIT, TL_DTYPE_F64, signbit_F64_loop},
    {TL_OP_NAN_TO_NUM, TL_DTYPE_BOOL, nan_to_num_BOOL_loop},
    {TL_OP_NAN_TO_NUM, TL_DTYPE_U8, nan_to_num_U8_loop},
    {TL_OP_NAN_TO_NUM, TL_DTYPE_I8, nan_to_num_I8_loop},
    {TL_OP_NAN_TO_NUM, TL_DTYPE_I16, nan_to_num_I16_loop},
    {TL_OP_NAN_TO_NUM, TL_DTYPE_I32, nan_to_num_I32_loop},
    {TL_OP_NAN_TO_NUM, TL_DTYPE_I64, nan_to_num_I64_loop},
    {TL_OP_NAN_TO_NUM, TL_DTYPE_F32, nan_to_num_F32_loop},
    {TL_OP_NAN_TO_NUM, TL_DTYPE_F64, nan_to_num_F64_loop},
    {TL_OP_NAN_TO_NUM, TL_DTYPE_C64, nan_to_num_C64_loop},
    {TL_OP_NAN_TO_NUM, TL_DTYPE_C128, nan_to_num_C128_loop},
    {TL_OP_LOGICAL_NOT, TL_DTYPE_BOOL, logical_not_BOOL_loop},
    {TL_OP_BITWISE_NOT, TL_DTYPE_BOOL, bitwise_not_BOOL_loop},
    {TL_OP_BITWISE_NOT, TL_DTYPE_U8, bitwise_not_U8_loop},
    {TL_OP_BITWISE_NOT, TL_DTYPE_I8, bitwise_not_I8_loop},
    {TL_OP_BITWISE_NOT, TL_DTYPE_I16, bitwise_not_I16_loop},
    {TL_OP_BITWISE_NOT, TL_DTYPE_I32, bitwise_not_I32_loop},
    {TL_OP_BITWISE_NOT, TL_DTYPE_I64, bitwise_not_I64_loop},
};

void tl_cpu_unary_register(void)
{
  tl_k_register_all(unary_loops, sizeof unary_loops / sizeof *unary_loops);
  tl_k_register(TL_OP_NAN_TO_NUM, TL_DTYPE_F16, nan_to_num_F16_loop);
  tl_k_register(TL_OP_NAN_TO_NUM, TL_DTYPE_BF16, nan_to_num_BF16_loop);
  tl_cpu_special_register();
  tl_cpu_bessel_register();
}
