/* create.c - constant fills, ranges and the identity for the creation functions.
 *
 * Range values are computed in double (int64 for integral results, as PyTorch
 * does), then cast once to the output dtype, so float32 ranges carry no
 * accumulated rounding.  Outputs of the range fills are freshly allocated,
 * contiguous, 1-d tensors.                                                  */
#include <math.h>
#include <string.h>

#include "ndcore/kernels/tl_create.h"
#include "ndcore/kernels/tl_linspace.h"
#include "ndcore/kernels/tl_simd_clones.h"
#include "ndcore/dispatch/tl_iter.h"

static double as_double(tl_scalar s)
{
  switch (s.kind) {
  case TL_KIND_BOOL: return s.v.b;
  case TL_KIND_FLOAT: return s.v.f;
  case TL_KIND_COMPLEX: return creal(s.v.c);
  default: return (double)s.v.i;
  }
}

static double complex as_complex(tl_scalar s)
{
  return s.kind == TL_KIND_COMPLEX ? s.v.c : as_double(s);
}

/* Fill loops: args[0] the output, data the element's bytes.  One per element
 * width, so the contiguous case is a plain store loop the compiler vectorises. */
#define TL_FILL_LOOP(NAME, T)                                                 \
  static void NAME(char **args, int64_t n, const int64_t *steps, void *data) \
  {                                                                          \
    T v;                                                                     \
    memcpy(&v, data, sizeof v);                                              \
    if (steps[0] == sizeof(T)) {                                             \
      T *o = (T *)args[0];                                                   \
      for (int64_t i = 0; i < n; i++)                                        \
        o[i] = v;                                                            \
      return;                                                                \
    }                                                                        \
    for (int64_t i = 0; i < n; i++)                                          \
      memcpy(args[0] + i * steps[0], &v, sizeof v);                          \
  }
typedef struct {
  uint64_t lo, hi;
} fill16;
TL_FILL_LOOP(fill_1, uint8_t)
TL_FILL_LOOP(fill_2, uint16_t)
TL_FILL_LOOP(fill_4, uint32_t)
TL_FILL_LOOP(fill_8, uint64_t)
TL_FILL_LOOP(fill_16, fill16)

tl_status tl_cpu_tensor_fill(tl_tensor *t, tl_scalar value)
{
  if (t->storage->readonly)
    return tl_error_set(TL_ERR_VALUE, "cannot fill a read-only tensor");
  if (tl_storage_check_write(t->storage) != TL_OK)
    return tl_error_status();
  _Alignas(16) char data[16];
  tl_scalar_store(value, t->dtype, data);
  const tl_tensor *ops[1] = {t};
  tl_iter it;
  if (tl_iter_init(&it, 1, ops, NULL) != TL_OK)
    return tl_error_status();
  tl_storage_bump(t->storage);
  tl_loop_fn loop;
  switch (tl_dtype_size(t->dtype)) {
  case 1: loop = fill_1; break;
  case 2: loop = fill_2; break;
  case 4: loop = fill_4; break;
  case 8: loop = fill_8; break;
  default: loop = fill_16; break;
  }
  return tl_iter_run(&it, loop, data);
}

/* ---- arange ------------------------------------------------------------------- */

tl_status tl_arange_length(tl_scalar start, tl_scalar end, tl_scalar step, tl_dtype dtype,
                           int64_t *n)
{
  /* An integral result steps by the truncated step, which must not vanish. */
  bool integral = tl_dtype_is_integral(dtype);
  double sd = as_double(step);
  bool zero_step = step.kind == TL_KIND_INT ? step.v.i == 0 : integral ? fabs(sd) < 1 : sd == 0;
  if (zero_step)
    return tl_error_set(TL_ERR_RUNTIME, "arange(): step must be nonzero%s",
                        step.kind == TL_KIND_INT ? "" : " (after truncation to an integer)");
  if (start.kind == TL_KIND_INT && end.kind == TL_KIND_INT && step.kind == TL_KIND_INT) {
    if ((step.v.i > 0 && end.v.i < start.v.i) || (step.v.i < 0 && end.v.i > start.v.i))
      return tl_error_set(TL_ERR_RUNTIME, "arange(): upper bound %lld and lower bound %lld are "
                          "inconsistent with the sign of step %lld", (long long)end.v.i,
                          (long long)start.v.i, (long long)step.v.i);
    int64_t span;
    if (__builtin_sub_overflow(end.v.i, start.v.i, &span))
      return tl_error_set(TL_ERR_RUNTIME, "arange(): range %lld -> %lld is too large",
                          (long long)start.v.i, (long long)end.v.i);
    *n = span / step.v.i + (span % step.v.i != 0);
    return TL_OK;
  }
  double a = as_double(start), b = as_double(end), s = as_double(step);
  if (!isfinite(a) || !isfinite(b) || !isfinite(s) ||
      (integral && (fabs(a) >= 0x1p63 || fabs(b) >= 0x1p63 || fabs(s) >= 0x1p63)))
    return tl_error_set(TL_ERR_RUNTIME, "arange(): unsupported range: %g -> %g with step %g", a,
                        b, s);
  if ((s > 0 && b < a) || (s < 0 && b > a))
    return tl_error_set(TL_ERR_RUNTIME, "arange(): upper bound %g and lower bound %g are "
                        "inconsistent with the sign of step %g", b, a, s);
  double len = ceil((b - a) / s);
  if (len > (double)((int64_t)1 << 56))
    return tl_error_set(TL_ERR_RUNTIME, "arange(): a range of %g elements is too large", len);
  *n = (int64_t)len;
  return TL_OK;
}

/* x[i] = start + i * step in double, rounded once to T.  The index goes to
 * double from an int32 where the length allows: x86 converts 32-bit ints to
 * double in vectors on every level, 64-bit ones only with AVX-512DQ, so an
 * int64 index kept the loop scalar (arange(2^20) at 0.75x of NumPy).  The
 * same values: every int32 is exact in double. */
#define TL_ARANGE_FLOAT(NAME, T)                                                         \
  TL_SIMD_CLONES static void NAME(T *x, int64_t n, double a, double s)                   \
  {                                                                                      \
    if (n <= INT32_MAX) {                                                                \
      for (int32_t i = 0; i < (int32_t)n; i++)                                           \
        x[i] = (T)(a + (double)i * s);                                                   \
      return;                                                                            \
    }                                                                                    \
    for (int64_t i = 0; i < n; i++)                                                      \
      x[i] = (T)(a + (double)i * s);                                                     \
  }
TL_ARANGE_FLOAT(arange_f32, float)
TL_ARANGE_FLOAT(arange_f64, double)

tl_status tl_cpu_tensor_arange_fill(tl_tensor *out, tl_scalar start, tl_scalar step)
{
  int64_t n = tl_tensor_numel(out);
  char *p = tl_tensor_data(out);
  size_t size = tl_dtype_size(out->dtype);
  if (tl_dtype_is_integral(out->dtype)) {
    int64_t a = start.kind == TL_KIND_INT ? start.v.i : (int64_t)as_double(start);
    int64_t s = step.kind == TL_KIND_INT ? step.v.i : (int64_t)as_double(step);
    /* computed in int64 (wrapping) and narrowed as a cast does; a store per
     * element through tl_scalar_store cost 70x this loop */
#define TL_ARANGE_INT(D, T)                                                              \
  case D:                                                                                \
    for (int64_t i = 0; i < n; i++)                                                      \
      ((T *)(void *)p)[i] = (T)((uint64_t)a + (uint64_t)i * (uint64_t)s);                \
    return TL_OK;
    switch (out->dtype) {
      TL_ARANGE_INT(TL_DTYPE_U8, uint8_t)
      TL_ARANGE_INT(TL_DTYPE_U16, uint16_t)
      TL_ARANGE_INT(TL_DTYPE_U32, uint32_t)
      TL_ARANGE_INT(TL_DTYPE_U64, uint64_t)
      TL_ARANGE_INT(TL_DTYPE_I8, int8_t)
      TL_ARANGE_INT(TL_DTYPE_I16, int16_t)
      TL_ARANGE_INT(TL_DTYPE_I32, int32_t)
      TL_ARANGE_INT(TL_DTYPE_I64, int64_t)
    default:
      for (int64_t i = 0; i < n; i++) {
        tl_scalar v = {.kind = TL_KIND_INT,
                       .v.i = (int64_t)((uint64_t)a + (uint64_t)i * (uint64_t)s)};
        tl_scalar_store(v, out->dtype, p + (size_t)i * size);
      }
      return TL_OK;
    }
#undef TL_ARANGE_INT
  }
  double a = as_double(start), s = as_double(step);
  switch (out->dtype) {
  case TL_DTYPE_F32:
    arange_f32((float *)(void *)p, n, a, s);
    break;
  case TL_DTYPE_F64:
    arange_f64((double *)(void *)p, n, a, s);
    break;
  default:
    for (int64_t i = 0; i < n; i++) {
      tl_scalar v = {.kind = TL_KIND_FLOAT, .v.f = a + (double)i * s};
      tl_scalar_store(v, out->dtype, p + (size_t)i * size);
    }
  }
  return TL_OK;
}

/* ---- linspace / logspace ------------------------------------------------------- */

/* Value i of a complex linspace/logspace: tl_linspace_value's arithmetic on
 * each part (complex64's in float), the exponent's parts for logspace. */
static double complex spaced_complex(bool log, bool c64, double complex a, double complex b,
                                     double base, int64_t i, int64_t n)
{
  double ar = creal(a), ai = cimag(a), br = creal(b), bi = cimag(b);
  if (log)
    return cpow(base, CMPLX(tl_logspace_exponent(ar, br, tl_linspace_step(ar, br, n), i, n),
                            tl_logspace_exponent(ai, bi, tl_linspace_step(ai, bi, n), i, n)));
  return CMPLX(tl_linspace_value(false, c64, ar, br, 0, i, n),
               tl_linspace_value(false, c64, ai, bi, 0, i, n));
}

/* tl_linspace_f64/f32 over a whole float64/float32 result, the two halves
 * in loops of their own: cloned for AVX-512, whose FMA instruction makes
 * the fused steps a vector op where the baseline calls fma() per element. */
#define TL_LINSPACE_FILL(NAME, T, FMA)                                                   \
  TL_SIMD_CLONES static void NAME(char *p, int64_t n, T a, T b, T step)                  \
  {                                                                                      \
    T *x = (T *)(void *)p;                                                               \
    if (n == 1) {                                                                        \
      x[0] = a;                                                                          \
      return;                                                                            \
    }                                                                                    \
    for (int64_t i = 0; i < n / 2; i++)                                                  \
      x[i] = FMA(step, (T)i, a);                                                         \
    for (int64_t i = n / 2; i < n; i++)                                                  \
      x[i] = FMA(-step, (T)(n - 1 - i), b);                                              \
  }
TL_LINSPACE_FILL(linspace_f64, double, fma)
TL_LINSPACE_FILL(linspace_f32, float, fmaf)

tl_status tl_cpu_tensor_linspace_fill(tl_tensor *out, tl_scalar start, tl_scalar end, bool log,
                                      tl_scalar base)
{
  int64_t n = tl_tensor_numel(out);
  char *p = tl_tensor_data(out);
  size_t size = tl_dtype_size(out->dtype);
  bool is_complex = tl_dtype_is_complex(out->dtype);
  if (!is_complex && (start.kind == TL_KIND_COMPLEX || end.kind == TL_KIND_COMPLEX))
    return tl_error_set(TL_ERR_TYPE, "%s(): complex start or end needs a complex dtype, got %s",
                        log ? "logspace" : "linspace", tl_dtype_names[out->dtype]);
  double bs = as_double(base);
  if (!log && out->dtype == TL_DTYPE_F64) {
    double a = as_double(start), b = as_double(end);
    linspace_f64(p, n, a, b, tl_linspace_step(a, b, n));
    return TL_OK;
  }
  if (!log && out->dtype == TL_DTYPE_F32) {
    float a = (float)as_double(start), b = (float)as_double(end);
    linspace_f32(p, n, a, b, tl_linspace_step_f32(a, b, n));
    return TL_OK;
  }
  if (!is_complex) { /* direct stores for float32/64 */
    double a = as_double(start), b = as_double(end);
    bool f32 = out->dtype == TL_DTYPE_F32;
    for (int64_t i = 0; i < n; i++) {
      double x = tl_linspace_value(log, f32, a, b, bs, i, n);
      if (f32)
        ((float *)(void *)p)[i] = (float)x;
      else if (out->dtype == TL_DTYPE_F64)
        ((double *)(void *)p)[i] = x;
      else
        tl_scalar_store((tl_scalar){.kind = TL_KIND_FLOAT, .v.f = x}, out->dtype,
                        p + (size_t)i * size);
    }
    return TL_OK;
  }
  double complex a = as_complex(start), b = as_complex(end);
  for (int64_t i = 0; i < n; i++) {
    tl_scalar v = {.kind = TL_KIND_COMPLEX,
                   .v.c = spaced_complex(log, out->dtype == TL_DTYPE_C64, a, b, bs, i, n)};
    tl_scalar_store(v, out->dtype, p + (size_t)i * size);
  }
  return TL_OK;
}

/* ---- eye ------------------------------------------------------------------------ */

tl_status tl_cpu_tensor_eye_fill(tl_tensor *out)
{
  tl_scalar zero = {.kind = TL_KIND_INT, .v.i = 0};
  tl_scalar one = {.kind = TL_KIND_INT, .v.i = 1};
  if (tl_tensor_fill(out, zero) != TL_OK)
    return tl_error_status();
  int64_t k = out->shape[0] < out->shape[1] ? out->shape[0] : out->shape[1];
  int64_t step = (out->strides[0] + out->strides[1]) * (int64_t)tl_dtype_size(out->dtype);
  char *p = tl_tensor_data(out);
  for (int64_t i = 0; i < k; i++)
    tl_scalar_store(one, out->dtype, p + i * step);
  return TL_OK;
}
