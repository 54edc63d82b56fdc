/* activation_cpu.c - the CPU's activations and their backward.
 *
 * One loop per kind and work type: the typed helpers below are written once
 * by TL_ACT_LOOPS for float (float32, float16, bfloat16 work in float) and
 * once for double, each a switch over the kind whose cases are unit-stride
 * `omp simd` loops (the math calls are libmvec's SIMD variants or
 * tl_vecmath.h's).  `omp simd` also makes y == x (the in-place spellings)
 * safe: every element is read before it is written at the same index.
 * Operands of another dtype or layout are made contiguous in the work type
 * first, a result of another dtype is cast last; ranges of elements are
 * split across the thread pool. */
#include <math.h>

#include "ndcore/dispatch/tl_parallel.h"
#include "ndcore/kernels/tl_vecmath.h"
#include "nn/activation/tl_activation.h"

typedef struct {
  tl_act_kind kind;
  tl_act_params p;
  const void *g, *x, *w; /* g NULL: the forward */
  void *y, *dw;          /* the result (dx in the backward), dw */
  bool f64;
} act_job;

#define TL_ACT_SQRT1_2 0.70710678118654752440
#define TL_ACT_INV_SQRT_2PI 0.39894228040143267794
#define TL_ACT_SQRT_2_PI 0.79788456080286535588 /* sqrt(2 / pi) */
#define TL_ACT_GELU_C 0.044715

TL_VECMATH_BEGIN
/* forward(kind, p, x, w, y, n) and backward(kind, p, g, x, w, dx, dw, n) for
 * one work type T; EXP ... ERF are T's math functions. */
#define TL_ACT_LOOPS(forward, backward, T, EXP, EXPM1, LOG1P, TANH, ERF)                       \
  TL_SIMD_CLONES static void forward(tl_act_kind kind, const tl_act_params *p, const T *x,      \
                                     const T *w, T *y,                                          \
                      int64_t n)                                                                \
  {                                                                                             \
    const T a = (T)p->a, b = (T)p->b, c = (T)p->c;                                              \
    switch (kind) {                                                                             \
    case TL_ACT_RELU:                                                                           \
      _Pragma("omp simd") for (int64_t i = 0; i < n; i++) y[i] = x[i] < 0 ? 0 : x[i];           \
      break;                                                                                    \
    case TL_ACT_THRESHOLD:                                                                      \
      _Pragma("omp simd") for (int64_t i = 0; i < n; i++) y[i] = x[i] <= a ? b : x[i];          \
      break;                                                                                    \
    case TL_ACT_LEAKY_RELU:                                                                     \
      _Pragma("omp simd") for (int64_t i = 0; i < n; i++) y[i] = x[i] > 0 ? x[i] : x[i] * a;    \
      break;                                                                                    \
    case TL_ACT_ELU:                                                                            \
      _Pragma("omp simd") for (int64_t i = 0; i < n; i++)                                       \
          y[i] = x[i] > 0 ? b * x[i] : b * a * EXPM1(x[i] * c);                                 \
      break;                                                                                    \
    case TL_ACT_GELU:                                                                           \
      if (a != 0) {                                                                             \
        _Pragma("omp simd") for (int64_t i = 0; i < n; i++) {                                   \
          T v = x[i], u = (T)TL_ACT_SQRT_2_PI * (v + (T)TL_ACT_GELU_C * v * v * v);             \
          y[i] = (T)0.5 * v * (1 + TANH(u));                                                    \
        }                                                                                       \
      } else {                                                                                  \
        _Pragma("omp simd") for (int64_t i = 0; i < n; i++)                                     \
            y[i] = (T)0.5 * x[i] * (1 + ERF(x[i] * (T)TL_ACT_SQRT1_2));                         \
      }                                                                                         \
      break;                                                                                    \
    case TL_ACT_SILU:                                                                           \
      _Pragma("omp simd") for (int64_t i = 0; i < n; i++) y[i] = x[i] / (1 + EXP(-x[i]));       \
      break;                                                                                    \
    case TL_ACT_MISH:                                                                           \
      _Pragma("omp simd") for (int64_t i = 0; i < n; i++) {                                     \
        T sp = x[i] > 20 ? x[i] : LOG1P(EXP(x[i]));                                             \
        y[i] = x[i] * TANH(sp);                                                                 \
      }                                                                                         \
      break;                                                                                    \
    case TL_ACT_SOFTPLUS:                                                                       \
      _Pragma("omp simd") for (int64_t i = 0; i < n; i++)                                       \
          y[i] = x[i] * a > b ? x[i] : LOG1P(EXP(x[i] * a)) / a;                                \
      break;                                                                                    \
    case TL_ACT_SOFTSIGN:                                                                       \
      _Pragma("omp simd") for (int64_t i = 0; i < n; i++) y[i] = x[i] / (1 + (x[i] < 0 ? -x[i] : x[i])); \
      break;                                                                                    \
    case TL_ACT_HARDTANH:                                                                       \
      _Pragma("omp simd") for (int64_t i = 0; i < n; i++)                                       \
          y[i] = x[i] < a ? a : (x[i] > b ? b : x[i]);                                          \
      break;                                                                                    \
    case TL_ACT_HARDSIGMOID:                                                                    \
      _Pragma("omp simd") for (int64_t i = 0; i < n; i++) {                                     \
        T v = x[i] / 6 + (T)0.5;                                                                \
        y[i] = v < 0 ? 0 : (v > 1 ? 1 : v);                                                     \
      }                                                                                         \
      break;                                                                                    \
    case TL_ACT_HARDSWISH:                                                                      \
      _Pragma("omp simd") for (int64_t i = 0; i < n; i++) {                                     \
        T v = x[i] + 3;                                                                         \
        y[i] = x[i] * (v < 0 ? 0 : (v > 6 ? 6 : v)) / 6;                                        \
      }                                                                                         \
      break;                                                                                    \
    case TL_ACT_HARDSHRINK:                                                                     \
      _Pragma("omp simd") for (int64_t i = 0; i < n; i++)                                       \
          y[i] = x[i] >= -a && x[i] <= a ? 0 : x[i];                                            \
      break;                                                                                    \
    case TL_ACT_SOFTSHRINK:                                                                     \
      _Pragma("omp simd") for (int64_t i = 0; i < n; i++)                                       \
          y[i] = x[i] > a ? x[i] - a : (x[i] < -a ? x[i] + a : (x[i] == x[i] ? 0 : x[i]));      \
      break;                                                                                    \
    case TL_ACT_TANHSHRINK:                                                                     \
      _Pragma("omp simd") for (int64_t i = 0; i < n; i++) y[i] = x[i] - TANH(x[i]);             \
      break;                                                                                    \
    case TL_ACT_LOG_SIGMOID:                                                                    \
      _Pragma("omp simd") for (int64_t i = 0; i < n; i++) {                                     \
        T v = x[i], e = EXP(v < 0 ? v : -v);                                                    \
        y[i] = (v < 0 ? v : 0) - LOG1P(e);                                                      \
      }                                                                                         \
      break;                                                                                    \
    case TL_ACT_PRELU:                                                                          \
      _Pragma("omp simd") for (int64_t i = 0; i < n; i++) y[i] = x[i] > 0 ? x[i] : w[i] * x[i]; \
      break;                                                                                    \
    case TL_ACT_GLU:                                                                            \
      _Pragma("omp simd") for (int64_t i = 0; i < n; i++) y[i] = x[i] / (1 + EXP(-w[i]));       \
      break;                                                                                    \
    default:                                                                                    \
      break;                                                                                    \
    }                                                                                           \
  }                                                                                             \
  TL_SIMD_CLONES static void backward(tl_act_kind kind, const tl_act_params *p, const T *g,      \
                                      const T *x,                                               \
                       const T *w, T *dx, T *dw, int64_t n)                                     \
  {                                                                                             \
    const T a = (T)p->a, b = (T)p->b, c = (T)p->c;                                              \
    switch (kind) {                                                                             \
    case TL_ACT_RELU: /* threshold_backward(g, y, 0) */                                         \
    case TL_ACT_THRESHOLD:                                                                      \
      _Pragma("omp simd") for (int64_t i = 0; i < n; i++) {                                     \
        T gv = g[i]; /* loaded unconditionally: a select, not a branch */                       \
        dx[i] = x[i] <= a ? 0 : gv;                                                             \
      }                                                                                         \
      break;                                                                                    \
    case TL_ACT_LEAKY_RELU:                                                                     \
      _Pragma("omp simd") for (int64_t i = 0; i < n; i++) {                                     \
        T gv = g[i];                                                                            \
        dx[i] = x[i] > 0 ? gv : gv * a;                                                         \
      }                                                                                         \
      break;                                                                                    \
    case TL_ACT_ELU:                                                                            \
      _Pragma("omp simd") for (int64_t i = 0; i < n; i++) {                                     \
        T gv = g[i] * b, e = EXP(x[i] * c);                                                     \
        dx[i] = x[i] > 0 ? gv : gv * a * c * e;                                                 \
      }                                                                                         \
      break;                                                                                    \
    case TL_ACT_GELU:                                                                           \
      if (a != 0) {                                                                             \
        _Pragma("omp simd") for (int64_t i = 0; i < n; i++) {                                   \
          T v = x[i], k = (T)TL_ACT_SQRT_2_PI;                                                  \
          T t = TANH(k * (v + (T)TL_ACT_GELU_C * v * v * v));                                   \
          T du = k * (1 + 3 * (T)TL_ACT_GELU_C * v * v);                                        \
          dx[i] = g[i] * ((T)0.5 * (1 + t) + (T)0.5 * v * (1 - t * t) * du);                   \
        }                                                                                       \
      } else {                                                                                  \
        _Pragma("omp simd") for (int64_t i = 0; i < n; i++) {                                   \
          T v = x[i];                                                                           \
          T cdf = (T)0.5 * (1 + ERF(v * (T)TL_ACT_SQRT1_2));                                    \
          dx[i] = g[i] * (cdf + v * (T)TL_ACT_INV_SQRT_2PI * EXP((T)-0.5 * v * v));             \
        }                                                                                       \
      }                                                                                         \
      break;                                                                                    \
    case TL_ACT_SILU:                                                                           \
      _Pragma("omp simd") for (int64_t i = 0; i < n; i++) {                                     \
        T s = 1 / (1 + EXP(-x[i]));                                                             \
        dx[i] = g[i] * s * (1 + x[i] * (1 - s));                                                \
      }                                                                                         \
      break;                                                                                    \
    case TL_ACT_MISH:                                                                           \
      _Pragma("omp simd") for (int64_t i = 0; i < n; i++) {                                     \
        T v = x[i], s = 1 / (1 + EXP(-v));                                                      \
        T t = TANH(v > 20 ? v : LOG1P(EXP(v)));                                                 \
        dx[i] = g[i] * (t + v * s * (1 - t * t));                                               \
      }                                                                                         \
      break;                                                                                    \
    case TL_ACT_SOFTPLUS:                                                                       \
      _Pragma("omp simd") for (int64_t i = 0; i < n; i++) {                                     \
        T gv = g[i], s = gv / (1 + EXP(-x[i] * a));                                             \
        dx[i] = x[i] * a > b ? gv : s;                                                          \
      }                                                                                         \
      break;                                                                                    \
    case TL_ACT_SOFTSIGN:                                                                       \
      _Pragma("omp simd") for (int64_t i = 0; i < n; i++) {                                     \
        T d = 1 + (x[i] < 0 ? -x[i] : x[i]);                                                    \
        dx[i] = g[i] / (d * d);                                                                 \
      }                                                                                         \
      break;                                                                                    \
    case TL_ACT_HARDTANH:                                                                       \
      _Pragma("omp simd") for (int64_t i = 0; i < n; i++) {                                     \
        T gv = g[i];                                                                            \
        dx[i] = x[i] <= a || x[i] >= b ? 0 : gv;                                                \
      }                                                                                         \
      break;                                                                                    \
    case TL_ACT_HARDSIGMOID:                                                                    \
      _Pragma("omp simd") for (int64_t i = 0; i < n; i++) {                                     \
        T gv = g[i] / 6;                                                                        \
        dx[i] = x[i] > -3 && x[i] < 3 ? gv : 0;                                                 \
      }                                                                                         \
      break;                                                                                    \
    case TL_ACT_HARDSWISH:                                                                      \
      _Pragma("omp simd") for (int64_t i = 0; i < n; i++) {                                     \
        T gv = g[i], v = x[i];                                                                  \
        dx[i] = v <= -3 ? 0 : (v < 3 ? gv * (v / 3 + (T)0.5) : gv); /* PyTorch's kinks */       \
      }                                                                                         \
      break;                                                                                    \
    case TL_ACT_HARDSHRINK:                                                                     \
    case TL_ACT_SOFTSHRINK:                                                                     \
      _Pragma("omp simd") for (int64_t i = 0; i < n; i++) {                                     \
        T gv = g[i];                                                                            \
        dx[i] = x[i] >= -a && x[i] <= a ? 0 : gv;                                               \
      }                                                                                         \
      break;                                                                                    \
    case TL_ACT_TANHSHRINK:                                                                     \
      _Pragma("omp simd") for (int64_t i = 0; i < n; i++) {                                     \
        T t = TANH(x[i]);                                                                       \
        dx[i] = g[i] * t * t;                                                                   \
      }                                                                                         \
      break;                                                                                    \
    case TL_ACT_LOG_SIGMOID: /* g sigmoid(-x) */                                                \
      _Pragma("omp simd") for (int64_t i = 0; i < n; i++) {                                     \
        T v = x[i], e = EXP(v < 0 ? v : -v);                                                    \
        dx[i] = g[i] * (v < 0 ? 1 : e) / (1 + e);                                               \
      }                                                                                         \
      break;                                                                                    \
    case TL_ACT_PRELU:                                                                          \
      _Pragma("omp simd") for (int64_t i = 0; i < n; i++) {                                     \
        T gv = g[i], v = x[i];                                                                  \
        dx[i] = v > 0 ? gv : w[i] * gv;                                                         \
        dw[i] = v > 0 ? 0 : v * gv;                                                             \
      }                                                                                         \
      break;                                                                                    \
    case TL_ACT_GLU:                                                                            \
      _Pragma("omp simd") for (int64_t i = 0; i < n; i++) {                                     \
        T s = 1 / (1 + EXP(-w[i])), gv = g[i], av = x[i];                                       \
        dx[i] = gv * s;                                                                         \
        dw[i] = gv * av * s * (1 - s);                                                          \
      }                                                                                         \
      break;                                                                                    \
    default:                                                                                    \
      break;                                                                                    \
    }                                                                                           \
  }
TL_ACT_LOOPS(act_forward_f32, act_backward_f32, float, tl_expf, expm1f, log1pf, tanhf, tl_erff)
TL_ACT_LOOPS(act_forward_f64, act_backward_f64, double, exp, expm1, log1p, tanh, erf)
TL_VECMATH_END

/* Elements [begin, end) of the job (the typed helpers are cloned per
 * instruction set: too large to inline into one clone here). */
static void act_range(void *ctx, int64_t begin, int64_t end, int worker)
{
  (void)worker;
  const act_job *j = ctx;
  int64_t n = end - begin;
  bool binary = j->kind == TL_ACT_PRELU || j->kind == TL_ACT_GLU;
  if (j->f64) {
    const double *x = (const double *)j->x + begin, *w = binary ? (const double *)j->w + begin : NULL;
    double *y = (double *)j->y + begin, *dw = j->dw ? (double *)j->dw + begin : NULL;
    if (j->g)
      act_backward_f64(j->kind, &j->p, (const double *)j->g + begin, x, w, y, dw, n);
    else
      act_forward_f64(j->kind, &j->p, x, w, y, n);
  } else {
    const float *x = (const float *)j->x + begin, *w = binary ? (const float *)j->w + begin : NULL;
    float *y = (float *)j->y + begin, *dw = j->dw ? (float *)j->dw + begin : NULL;
    if (j->g)
      act_backward_f32(j->kind, &j->p, (const float *)j->g + begin, x, w, y, dw, n);
    else
      act_forward_f32(j->kind, &j->p, x, w, y, n);
  }
}

/* `t` in dtype `work`, laid out as y: t itself when it already is, else a
 * converted copy in *tmp. */
static const tl_tensor *as_work(const tl_tensor *t, const tl_tensor *y, tl_dtype work,
                                tl_tensor *tmp)
{
  if (!t || tl_tensor_same_block(t, y)) /* y: dense, of dtype work */
    return t;
  if (tl_tensor_empty_format(tmp, y, work, tl_tensor_device(t), TL_FORMAT_PRESERVE) != TL_OK)
    return NULL;
  return tl_tensor_copy(tmp, t) == TL_OK ? tmp : NULL;
}

/* `out` itself when the kernel can write it (of the work dtype, one dense
 * block: a result keeps its input's layout, channels-last or transposed; laid
 * out as `like` too when given), else a fresh work tensor in *tmp, in out's
 * (like's) dims order, copied back by the caller. */
static tl_tensor *writable(tl_tensor *out, const tl_tensor *like, tl_dtype work, tl_tensor *tmp)
{
  if (!out || (like ? tl_tensor_same_block(out, like)
                    : out->dtype == work && tl_tensor_is_dense(out)))
    return out;
  if (tl_tensor_empty_format(tmp, like ? like : out, work, tl_tensor_device(out),
                             TL_FORMAT_PRESERVE) != TL_OK)
    return NULL;
  return tmp;
}

/* One element of arithmetic costs 1 (relu) to ~30 (gelu, mish): enough per
 * range that the thread pool pays off. */
static int64_t grain_of(tl_act_kind kind)
{
  switch (kind) {
  case TL_ACT_RELU: case TL_ACT_THRESHOLD: case TL_ACT_LEAKY_RELU: case TL_ACT_HARDTANH:
  case TL_ACT_HARDSIGMOID: case TL_ACT_HARDSWISH: case TL_ACT_HARDSHRINK: case TL_ACT_SOFTSHRINK:
  case TL_ACT_PRELU: case TL_ACT_SOFTSIGN:
    return 65536;
  default:
    return 8192;
  }
}

/* The forward (g NULL) or the backward over contiguous-or-not operands of one
 * shape, into y (and dw). */
static tl_status run(tl_act_kind kind, const tl_act_params *p, const tl_tensor *g,
                     const tl_tensor *x, const tl_tensor *w, tl_tensor *y, tl_tensor *dw)
{
  tl_dtype work = y->dtype == TL_DTYPE_F64 ? TL_DTYPE_F64 : TL_DTYPE_F32;
  tl_tensor gt = {0}, xt = {0}, wt = {0}, yt = {0}, dwt = {0};
  tl_status status = TL_OK;
  tl_tensor *yw = writable(y, NULL, work, &yt), *dww = yw ? writable(dw, yw, work, &dwt) : NULL;
  if (!yw || (dw && !dww)) {
    status = tl_error_status();
    goto done;
  }
  const tl_tensor *gw = as_work(g, yw, work, &gt), *xw = as_work(x, yw, work, &xt),
                  *ww = as_work(w, yw, work, &wt);
  if ((g && !gw) || !xw || (w && !ww)) {
    status = tl_error_status();
    goto done;
  }
  int64_t n = tl_tensor_numel(x);
  if (n > 0) {
    act_job job = {.kind = kind, .p = *p, .g = gw ? tl_tensor_data(gw) : NULL,
                   .x = tl_tensor_data(xw), .w = ww ? tl_tensor_data(ww) : NULL,
                   .y = tl_tensor_data(yw), .dw = dww ? tl_tensor_data(dww) : NULL,
                   .f64 = work == TL_DTYPE_F64};
    tl_storage_bump(y->storage);
    if (dw)
      tl_storage_bump(dw->storage);
    tl_parallel_for(n, grain_of(kind), act_range, &job);
  }
  if (yw != y)
    status = tl_tensor_copy(y, yw);
  if (status == TL_OK && dww != dw)
    status = tl_tensor_copy(dw, dww);
done:
  tl_tensor_release(&gt);
  tl_tensor_release(&xt);
  tl_tensor_release(&wt);
  tl_tensor_release(&yt);
  tl_tensor_release(&dwt);
  return status;
}

tl_status tl_cpu_activation(tl_act_kind kind, const tl_act_params *p, const tl_tensor *x,
                            const tl_tensor *w, tl_tensor *y)
{
  return run(kind, p, NULL, x, w, y, NULL);
}

tl_status tl_cpu_activation_backward(tl_act_kind kind, const tl_act_params *p, const tl_tensor *g,
                                     const tl_tensor *x, const tl_tensor *w, tl_tensor *dx,
                                     tl_tensor *dw)
{
  return run(kind, p, g, x, w, dx, dw);
}
