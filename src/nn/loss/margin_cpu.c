/* margin_cpu.c - the CPU's multi_margin_loss, multilabel_margin_loss and
 * their backward (tl_loss.h).  Operands in the work dtype (tl_nn_work.h),
 * the hinge terms summed in double; rows split across the thread pool, and
 * the per-row losses reduced in row order. */
#include <stdlib.h>
#include <string.h>

#include "ndcore/dispatch/tl_parallel.h"
#include "nn/loss/tl_loss.h"
#include "nn/tl_nn_work.h"

typedef struct {
  const tl_margin_spec *s;
  const tl_tensor *x, *w, *g, *is; /* w, g, is NULL where unused */
  const int64_t *y;
  double *loss;      /* forward: the rows' losses */
  tl_tensor *dx, *isout; /* backward: grad_input; forward of multilabel: is_target */
  double scale;      /* backward: 1, or 1 / N for 'mean' */
} margin_job;

/* The gradient of row n's loss, times k, is k * slope for the term of
 * class i; hinge(z) = z^p and its slope p z^(p-1). */
static void multi_row(const margin_job *j, int64_t n)
{
  const tl_margin_spec *s = j->s;
  int64_t C = s->C, y = j->y[n], at = n * C;
  double xy = tl_nn_get(j->x, at + y), wy = j->w ? tl_nn_get(j->w, y) : 1, sum = 0, k = 0;
  if (j->g)
    k = tl_nn_get(j->g, s->reduction == TL_REDUCTION_NONE ? n : 0) * j->scale * wy / (double)C;
  double dy = 0;
  for (int64_t i = 0; i < C; i++) {
    double z = s->margin - xy + tl_nn_get(j->x, at + i);
    bool on = i != y && z > 0;
    if (!j->g) {
      sum += on ? (s->p == 1 ? z : z * z) : 0;
      continue;
    }
    double d = on ? k * (s->p == 1 ? 1 : 2 * z) : 0;
    tl_nn_set(j->dx, at + i, d);
    dy -= d;
  }
  if (j->g)
    tl_nn_set(j->dx, at + y, dy);
  else
    j->loss[n] = sum * wy / (double)C;
}

/* Row n's targets are its entries before the first -1. */
static void multilabel_row(const margin_job *j, int64_t n)
{
  const tl_margin_spec *s = j->s;
  int64_t C = s->C, at = n * C;
  const int64_t *t = j->y + at;
  const tl_tensor *is = j->g ? j->is : j->isout;
  double sum = 0, k = 0;
  if (j->g) {
    k = tl_nn_get(j->g, s->reduction == TL_REDUCTION_NONE ? n : 0) * j->scale / (double)C;
    for (int64_t i = 0; i < C; i++)
      tl_nn_set(j->dx, at + i, 0);
  } else {
    for (int64_t i = 0; i < C; i++)
      tl_nn_set(j->isout, at + i, 0);
    for (int64_t q = 0; q < C && t[q] >= 0; q++)
      tl_nn_set(j->isout, at + t[q], 1);
  }
  for (int64_t q = 0; q < C && t[q] >= 0; q++) {
    double xt = tl_nn_get(j->x, at + t[q]), dt = 0;
    for (int64_t i = 0; i < C; i++) {
      double z = 1 - xt + tl_nn_get(j->x, at + i);
      if (tl_nn_get(is, at + i) != 0 || z <= 0)
        continue;
      if (j->g) {
        tl_nn_set(j->dx, at + i, tl_nn_get(j->dx, at + i) + k);
        dt -= k;
      } else {
        sum += z;
      }
    }
    if (j->g)
      tl_nn_set(j->dx, at + t[q], tl_nn_get(j->dx, at + t[q]) + dt);
  }
  if (!j->g)
    j->loss[n] = sum / (double)C;
}

static void multi_range(void *ctx, int64_t begin, int64_t end, int worker)
{
  (void)worker;
  for (int64_t n = begin; n < end; n++)
    multi_row(ctx, n);
}

static void multilabel_range(void *ctx, int64_t begin, int64_t end, int worker)
{
  (void)worker;
  for (int64_t n = begin; n < end; n++)
    multilabel_row(ctx, n);
}

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
  margin_job j = {.s = s, .y = tl_tensor_data(target)};
  tl_tensor *o = NULL, *io = NULL;
  tl_status status;
  j.x = tl_nn_as_work(input, work, &t.tmp[0]);
  j.w = weight && j.x ? tl_nn_as_work(weight, work, &t.tmp[1]) : NULL;
  j.g = grad && j.x ? tl_nn_as_work(grad, work, &t.tmp[2]) : NULL;
  j.is = is_target && j.x ? tl_nn_as_work(is_target, work, &t.tmp[3]) : NULL;
  if (j.x)
    o = tl_loss_work_out(out, work, false, &t.tmp[4]);
  if (o && is_out)
    io = tl_loss_work_out(is_out, work, false, &t.tmp[5]);
  if (!j.x || (weight && !j.w) || (grad && !j.g) || (is_target && !j.is) || !o ||
      (is_out && !io)) {
    status = tl_error_status();
    goto done;
  }
  if (grad) {
    j.dx = o;
    j.scale = s->reduction == TL_REDUCTION_MEAN ? 1 / (double)s->N : 1;
  } else if (!(j.loss = malloc((size_t)(s->N ? s->N : 1) * sizeof *j.loss))) {
    status = tl_error_set(TL_ERR_MEMORY, "margin loss: out of memory");
    goto done;
  }
  j.isout = io;
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
