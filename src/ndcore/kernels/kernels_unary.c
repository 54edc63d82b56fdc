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

#include <float.h>

static const double tl_ln2 = 0.693147180559945309417232121458176568;
static const double tl_ln10 = 2.30258509299404568401799145468436421;

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

/* 10^d, or inf once it overflows (round). */
static double pow10_of(int64_t d)
{
  double f = 1;
  for (int64_t i = 0; i < d && isfinite(f); i++)
    f *= 10;
  return f;
}

/* exp in float32 is the vectorised polynomial; the others are scalar libm. */
TL_VECMATH_BEGIN
TL_SIMD_CLONES static void exp_f32_loop(char **args, int64_t n, const int64_t *steps, void *data)
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

TL_SIMD_CLONES static void sigmoid_f32_loop(char **args, int64_t n, const int64_t *steps,
                                            void *data)
{
  (void)data;
  if (steps[0] == sizeof(float) && steps[1] == sizeof(float)) {
    float *o = (float *)args[0];
    const float *a = (const float *)args[1];
    /* tl_sigmoidf, not a scalar helper: a function compiled outside this region's
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

/* The typed helpers and loops of the other ops, and the table unary_loops[]
 * (scripts/gen_kernels.py). */
#include "ndcore/kernels/generated/unary.inc"

void tl_cpu_unary_register(void)
{
  tl_k_register_all(unary_loops, sizeof unary_loops / sizeof *unary_loops);
  tl_k_register(TL_OP_NAN_TO_NUM, TL_DTYPE_F16, nan_to_num_f16_loop);
  tl_k_register(TL_OP_NAN_TO_NUM, TL_DTYPE_BF16, nan_to_num_bf16_loop);
  tl_cpu_special_register();
  tl_cpu_bessel_register();
  tl_cpu_polynomial_register();
}
