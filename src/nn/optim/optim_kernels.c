/* optim_kernels.c - the multi-tensor optimizer steps declared in tl_optim.h:
 * the per-slot scalars and the split of the work.  The element loops are in
 * optim_loops.h (compiled for float and double by optim_loops_f32/f64.c).
 *
 * A prep pass advances each slot's scalars (step counters and the like, 0-d
 * float32 tensors as PyTorch keeps them) and computes its coefficients (k[],
 * in double, as the Python path computes them with Python floats); then the
 * elements of all slots, laid end to end, are split across the thread pool. */
#include <math.h>
#include <stdlib.h>

#include "nn/optim/optim_job.h"
#include "ndcore/dispatch/tl_parallel.h"

static const struct {
  int nbufs, nscalars;
} arity[TL_OPTIM_COUNT] = {
    [TL_OPTIM_SGD] = {1, 0},      /* momentum_buffer */
    [TL_OPTIM_ADAM] = {3, 1},     /* exp_avg, exp_avg_sq, max_exp_avg_sq; step */
    [TL_OPTIM_ADAMAX] = {2, 1},   /* exp_avg, exp_inf; step */
    [TL_OPTIM_NADAM] = {2, 2},    /* exp_avg, exp_avg_sq; step, mu_product */
    [TL_OPTIM_RADAM] = {2, 1},    /* exp_avg, exp_avg_sq; step */
    [TL_OPTIM_ADAGRAD] = {1, 1},  /* sum; step */
    [TL_OPTIM_ADADELTA] = {2, 1}, /* square_avg, acc_delta; step */
    [TL_OPTIM_RMSPROP] = {3, 1},  /* square_avg, momentum_buffer, grad_avg; step */
    [TL_OPTIM_RPROP] = {2, 1},    /* prev, step_size; step */
    [TL_OPTIM_ASGD] = {1, 3},     /* ax; step, eta, mu */
};

void tl_optim_arity(tl_optim_kind kind, int *nbufs, int *nscalars)
{
  *nbufs = arity[kind].nbufs;
  *nscalars = arity[kind].nscalars;
}

bool tl_optim_buf_required(tl_optim_kind kind, const tl_optim_hyper *h, int i)
{
  switch (kind) {
  case TL_OPTIM_SGD: return h->momentum != 0;
  case TL_OPTIM_ADAM: return i < 2 || h->amsgrad;
  case TL_OPTIM_RMSPROP: return i == 0 || (i == 1 && h->momentum > 0) || (i == 2 && h->centered);
  default: return true;
  }
}

/* ---- per-slot scalars -------------------------------------------------------------- */
static double step_advance(tl_optim_slot *s)
{
  if (!s->scalar[0])
    return 0;
  *s->scalar[0] = *s->scalar[0] + 1.0f;
  return *s->scalar[0];
}

/* Advance a slot's scalars and compute k[] (before rounding to the dtype). */
static void slot_prep(tl_optim_kind kind, const tl_optim_hyper *h, tl_optim_slot *s,
                      double *k)
{
  double step = step_advance(s);
  double b1 = h->beta1, b2 = h->beta2;
  switch (kind) {
  case TL_OPTIM_SGD:
    break;
  case TL_OPTIM_ADAM:
    k[0] = -(h->lr / (1 - pow(b1, step)));   /* -step_size */
    k[1] = sqrt(1 - pow(b2, step));          /* bias_correction2_sqrt */
    break;
  case TL_OPTIM_ADAMAX:
    k[0] = -(h->lr / (1 - pow(b1, step)));   /* -clr */
    break;
  case TL_OPTIM_NADAM: {
    double mu = b1 * (1. - 0.5 * pow(0.96, step * h->momentum_decay));
    double mu_next = b1 * (1. - 0.5 * pow(0.96, (step + 1) * h->momentum_decay));
    *s->scalar[1] = *s->scalar[1] * (float)mu;
    double mu_product = *s->scalar[1];
    k[0] = 1 - pow(b2, step); /* bias_correction2 */
    k[1] = -h->lr * (1. - mu) / (1. - mu_product);
    k[2] = (-h->lr * mu_next) / (1. - mu_product * mu_next);
    break;
  }
  case TL_OPTIM_RADAM: {
    double bc1 = 1 - pow(b1, step), bc2 = 1 - pow(b2, step);
    double rho_inf = 2 / (1 - b2) - 1;
    double rho_t = rho_inf - 2 * step * pow(b2, step) / bc2;
    k[0] = bc1;
    k[1] = rho_t > 5. ? 1 : 0; /* rectified? */
    k[2] = sqrt(bc2);
    k[3] = sqrt((rho_t - 4) * (rho_t - 2) * rho_inf / ((rho_inf - 4) * (rho_inf - 2) * rho_t));
    break;
  }
  case TL_OPTIM_ADAGRAD:
    k[0] = -(h->lr / (1 + (step - 1) * h->lr_decay)); /* -clr */
    break;
  case TL_OPTIM_ASGD: {
    double eta = *s->scalar[1];
    k[0] = 1 - h->lambd * eta;
    k[1] = -eta;
    k[2] = *s->scalar[2]; /* mu */
    *s->scalar[1] = (float)(h->lr / pow(1 + h->lambd * h->lr * step, h->alpha));
    *s->scalar[2] = (float)(1 / fmax(1, step - h->t0));
    break;
  }
  default:
    break;
  }
}

/* A range of the end-to-end element space: find the first slot, then walk. */
static void step_range(void *ctx, int64_t begin, int64_t end, int worker)
{
  (void)worker;
  const tl_optim_job *job = ctx;
  int64_t lo = 0, hi = job->count;
  while (hi - lo > 1) { /* the last slot starting at or before begin */
    int64_t mid = (lo + hi) / 2;
    if (job->start[mid] <= begin)
      lo = mid;
    else
      hi = mid;
  }
  for (int64_t j = lo; j < job->count && job->start[j] < end; j++) {
    int64_t a = begin > job->start[j] ? begin - job->start[j] : 0;
    int64_t b = (end < job->start[j + 1] ? end : job->start[j + 1]) - job->start[j];
    if (a >= b)
      continue;
    if (job->f32)
      tl_optim_range_f32(job, j, a, b);
    else
      tl_optim_range_f64(job, j, a, b);
  }
}

tl_status tl_optim_step(tl_optim_kind kind, const tl_optim_hyper *h, tl_optim_slot *slots,
                        int64_t count, tl_dtype dtype)
{
  tl_status status = TL_OK;
  double *k = NULL;
  int64_t *start = NULL;
  if ((unsigned)kind >= TL_OPTIM_COUNT) {
    status = tl_error_set(TL_ERR_VALUE, "unknown optimizer kind %d", (int)kind);
    goto done;
  }
  if (dtype != TL_DTYPE_F32 && dtype != TL_DTYPE_F64) {
    status = tl_error_set(TL_ERR_TYPE, "the multi-tensor optimizer step takes float32 or "
                                       "float64 tensors");
    goto done;
  }
  k = calloc((size_t)(count ? count : 1) * TL_OPTIM_NK, sizeof *k);
  start = malloc((size_t)(count + 1) * sizeof *start);
  if (!k || !start) {
    status = tl_error_set(TL_ERR_MEMORY, "out of memory in the optimizer step");
    goto done;
  }
  start[0] = 0;
  for (int64_t j = 0; j < count; j++) {
    slot_prep(kind, h, &slots[j], k + j * TL_OPTIM_NK);
    start[j + 1] = start[j] + slots[j].n;
  }
  tl_optim_job job = {kind, h, slots, k, start, count, dtype == TL_DTYPE_F32};
  if (start[count] > 0)
    tl_parallel_for(start[count], 1 << 15, step_range, &job);
done:
  free(k);
  free(start);
  return status;
}
