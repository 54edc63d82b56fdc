/* margin_cpu.c - the CPU's multi_margin_loss, multilabel_margin_loss and
 * their backward (tl_loss.h).  Operands in the work dtype (tl_nn_work.h),
 * each row's hinge terms summed in it by SIMD loops; rows split across the
 * thread pool, and the per-row losses reduced in double in row order. */
#include <stdlib.h>
#include <string.h>

#include "ndcore/dispatch/tl_parallel.h"
#include "ndcore/kernels/tl_vecmath.h"
#include "nn/loss/tl_loss.h"
#include "nn/tl_nn_work.h"

typedef struct {
  const tl_margin_spec *s;
  const void *x, *w, *g, *is; /* work dtype; w, g, is NULL where unused */
  const int64_t *y;
  double *loss;      /* forward: the rows' losses */
  void *dx, *isout;  /* backward: grad_input; forward of multilabel: is_target */
  double scale;      /* backward: 1, or 1 / N for 'mean' */
  bool f64;
} margin_job;

/* The rows of both losses, written once per work type.  Row n's gradient,
 * times k, is k * slope for the hinge term of class i, with hinge(z) =
 * z^p and slope p z^(p-1); multilabel's targets are the row's entries
 * before the first -1. */
#define TL_MARGIN_ROWS(multi, multilabel, T)                                               \
  static void multi(const margin_job *j, int64_t n)                                        \
  {                                                                                        \
    const tl_margin_spec *s = j->s;                                                        \
    int64_t C = s->C, y = j->y[n];                                                         \
    const T *x = (const T *)j->x + n * C, *w = j->w;                                       \
    T xy = x[y], wy = w ? w[y] : 1, margin = (T)s->margin;                                 \
    if (!j->g) {                                                                           \
      T sum = 0;                                                                           \
      if (s->p == 1)                                                                       \
        _Pragma("omp simd reduction(+:sum)") for (int64_t i = 0; i < C; i++) {             \
          T z = margin - xy + x[i];                                                        \
          sum += z > 0 && i != y ? z : 0;                                                  \
        }                                                                                  \
      else                                                                                 \
        _Pragma("omp simd reduction(+:sum)") for (int64_t i = 0; i < C; i++) {             \
          T z = margin - xy + x[i];                                                        \
          sum += z > 0 && i != y ? z * z : 0;                                              \
        }                                                                                  \
      j->loss[n] = (double)sum * (double)wy / (double)C;                                   \
      return;                                                                              \
    }                                                                                      \
    T k = (T)(((const T *)j->g)[s->reduction == TL_REDUCTION_NONE ? n : 0] * j->scale) * wy / \
          (T)C;                                                                            \
    T *dx = (T *)j->dx + n * C, dy = 0;                                                    \
    _Pragma("omp simd reduction(+:dy)") for (int64_t i = 0; i < C; i++) {                  \
      T z = margin - xy + x[i];                                                            \
      T d = z > 0 && i != y ? k * (s->p == 1 ? 1 : 2 * z) : 0;                             \
      dx[i] = d;                                                                           \
      dy += d;                                                                             \
    }                                                                                      \
    dx[y] = -dy;                                                                           \
  }                                                                                        \
  static void multilabel(const margin_job *j, int64_t n)                                   \
  {                                                                                        \
    const tl_margin_spec *s = j->s;                                                        \
    int64_t C = s->C, at = n * C;                                                          \
    const int64_t *t = j->y + at;                                                          \
    const T *x = (const T *)j->x + at;                                                     \
    T *is = j->g ? (T *)j->is + at : (T *)j->isout + at, *dx = j->g ? (T *)j->dx + at : NULL; \
    T k = j->g ? (T)(((const T *)j->g)[s->reduction == TL_REDUCTION_NONE ? n : 0] *         \
                     j->scale / (double)C)                                                  \
               : 0;                                                                        \
    double sum = 0;                                                                        \
    if (dx)                                                                                \
      for (int64_t i = 0; i < C; i++)                                                      \
        dx[i] = 0;                                                                         \
    else {                                                                                 \
      for (int64_t i = 0; i < C; i++)                                                      \
        is[i] = 0;                                                                         \
      for (int64_t q = 0; q < C && t[q] >= 0; q++)                                         \
        is[t[q]] = 1;                                                                      \
    }                                                                                      \
    for (int64_t q = 0; q < C && t[q] >= 0; q++) {                                         \
      T xt = x[t[q]], part = 0;                                                            \
      if (dx) {                                                                            \
        _Pragma("omp simd reduction(+:part)") for (int64_t i = 0; i < C; i++) {            \
          T on = is[i] == 0 && 1 - xt + x[i] > 0 ? k : 0;                                  \
          dx[i] += on;                                                                     \
          part += on;                                                                      \
        }                                                                                  \
        dx[t[q]] -= part;                                                                  \
      } else {                                                                             \
        _Pragma("omp simd reduction(+:part)") for (int64_t i = 0; i < C; i++) {            \
          T z = 1 - xt + x[i];                                                             \
          part += is[i] == 0 && z > 0 ? z : 0;                                             \
        }                                                                                  \
        sum += part;                                                                       \
      }                                                                                    \
    }                                                                                      \
    if (!dx)                                                                               \
      j->loss[n] = sum / (double)C;                                                        \
  }
TL_VECMATH_BEGIN
TL_MARGIN_ROWS(multi_row_f32, multilabel_row_f32, float)
TL_MARGIN_ROWS(multi_row_f64, multilabel_row_f64, double)

TL_SIMD_CLONES
static void multi_range(void *ctx, int64_t begin, int64_t end, int worker)
{
  (void)worker;
  const margin_job *j = ctx;
  for (int64_t n = begin; n < end; n++)
    j->f64 ? multi_row_f64(j, n) : multi_row_f32(j, n);
}

TL_SIMD_CLONES
static void multilabel_range(void *ctx, int64_t begin, int64_t end, int worker)
{
  (void)worker;
  const margin_job *j = ctx;
  for (int64_t n = begin; n < end; n++)
    j->f64 ? multilabel_row_f64(j, n) : multilabel_row_f32(j, n);
}
TL_VECMATH_END

/* Targets in range: multi's in [0, C), multilabel's in [-1, C). */
static tl_status check_targets(const tl_margin_spec *s, const int64_t *y, int64_t n, bool multi)
{
  for (int64_t i = 0; i < n; i++)
    if (y[i] >= s->C || y[i] < (multi ? 0 : -1))
      return tl_error_set(TL_ERR_RUNTIME, multi ? "target out of range"
                                                : "argument #2 'target' is out of range");
  return TL_OK;
}

/* The work-dtype operands of a job, and the output twins. */
typedef struct {
  tl_tensor tmp[6];
} margin_temps;

static void temps_release(margin_temps *t)
{
  for (int i = 0; i < 6; i++)
    tl_tensor_release(&t->tmp[i]);
}

/* Run job over its rows (forward: loss[] filled, then reduced into out). */
static tl_status run(margin_job *j, tl_range_fn fn, tl_tensor *out)
{
  int64_t N = j->s->N;
  double sum = 0;
  if (N > 0)
    tl_parallel_for(N, 1 + 8192 / (j->s->C + 1), fn, j);
  if (!out)
    return TL_OK;
  for (int64_t n = 0; n < N; n++) {
    if (j->s->reduction == TL_REDUCTION_NONE)
      tl_nn_set(out, n, j->loss[n]);
    sum += j->loss[n];
  }
  if (j->s->reduction != TL_REDUCTION_NONE) /* 'mean' of no rows: NaN */
    tl_nn_set(out, 0, j->s->reduction == TL_REDUCTION_MEAN ? sum / (double)N : sum);
  return TL_OK;
}

/* The shared body of the four kernels: operands to the work dtype, the
 * targets checked, the job run, results cast back. */
static tl_status margin_kernel(const tl_margin_spec *s, bool multi, const tl_tensor *grad,
                               const tl_tensor *input, const tl_tensor *target,
                               const tl_tensor *weight, const tl_tensor *is_target,
                               tl_tensor *out, tl_tensor *is_out)
{
  tl_dtype work = tl_nn_work_dtype(input->dtype);
  margin_temps t = {0};
  margin_job j = {.s = s, .y = tl_tensor_data(target), .f64 = work == TL_DTYPE_F64};
  const tl_tensor *x = tl_nn_as_work(input, work, &t.tmp[0]);
  const tl_tensor *w = weight && x ? tl_nn_as_work(weight, work, &t.tmp[1]) : NULL;
  const tl_tensor *g = grad && x ? tl_nn_as_work(grad, work, &t.tmp[2]) : NULL;
  const tl_tensor *is = is_target && x ? tl_nn_as_work(is_target, work, &t.tmp[3]) : NULL;
  tl_tensor *o = x ? tl_loss_work_out(out, work, false, &t.tmp[4]) : NULL;
  tl_tensor *io = o && is_out ? tl_loss_work_out(is_out, work, false, &t.tmp[5]) : NULL;
  tl_status status;
  if (!x || (weight && !w) || (grad && !g) || (is_target && !is) || !o || (is_out && !io)) {
    status = tl_error_status();
    goto done;
  }
  j.x = tl_tensor_data(x);
  j.w = w ? tl_tensor_data(w) : NULL;
  j.g = g ? tl_tensor_data(g) : NULL;
  j.is = is ? tl_tensor_data(is) : NULL;
  j.isout = io ? tl_tensor_data(io) : NULL;
  if (grad) {
    j.dx = tl_tensor_data(o);
    j.scale = s->reduction == TL_REDUCTION_MEAN ? 1 / (double)s->N : 1;
  } else if (!(j.loss = malloc((size_t)(s->N ? s->N : 1) * sizeof *j.loss))) {
    status = tl_error_set(TL_ERR_MEMORY, "margin loss: out of memory");
    goto done;
  }
  if ((status = check_targets(s, j.y, tl_tensor_numel(target), multi)) != TL_OK)
    goto done;
  run(&j, multi ? multi_range : multilabel_range, grad ? NULL : o);
  if ((status = tl_loss_finish(out, o)) == TL_OK && is_out)
    status = tl_loss_finish(is_out, io);
done:
  free(j.loss);
  temps_release(&t);
  return status;
}

tl_status tl_cpu_multi_margin(const tl_margin_spec *s, const tl_tensor *input,
                              const tl_tensor *target, const tl_tensor *weight, tl_tensor *out)
{
  return margin_kernel(s, true, NULL, input, target, weight, NULL, out, NULL);
}

tl_status tl_cpu_multi_margin_backward(const tl_margin_spec *s, const tl_tensor *grad,
                                       const tl_tensor *input, const tl_tensor *target,
                                       const tl_tensor *weight, tl_tensor *grad_input)
{
  return margin_kernel(s, true, grad, input, target, weight, NULL, grad_input, NULL);
}

tl_status tl_cpu_multilabel_margin(const tl_margin_spec *s, const tl_tensor *input,
                                   const tl_tensor *target, tl_tensor *out, tl_tensor *is_target)
{
  return margin_kernel(s, false, NULL, input, target, NULL, NULL, out, is_target);
}

tl_status tl_cpu_multilabel_margin_backward(const tl_margin_spec *s, const tl_tensor *grad,
                                            const tl_tensor *input, const tl_tensor *target,
                                            const tl_tensor *is_target, tl_tensor *grad_input)
{
  return margin_kernel(s, false, grad, input, target, NULL, is_target, grad_input, NULL);
}
