/* optim_kernels.c - the multi-tensor optimizer steps declared in tl_optim.h.
 *
 * Rounding.  The Python path does one tensor op at a time, each rounding its
 * result to the parameter dtype, with Python-float options converted to that
 * dtype first.  Here one loop body serves float32 and float64: elements are
 * loaded as double and every operation's result is rounded with R() when the
 * dtype is float32.  Rounding an exact +, -, *, / or sqrt to double and then
 * to float gives the float result (double carries more than 2*24+2 bits), so
 * this is float arithmetic, operation for operation.  Options go through R()
 * where the Python path would convert them (`x.mul_(beta2)` -> R(beta2)).
 * The build uses -std=c11, where GCC does not contract a*b+c into an fma.
 *
 * Work.  A prep pass advances each slot's scalars and computes its
 * coefficients (k[], in double, as the Python path computes them); then the
 * elements of all slots, laid end to end, are split across the thread pool. */
#include <math.h>
#include <stdlib.h>

#include "nn/tl_optim.h"
#include "ndcore/dispatch/tl_parallel.h"

#define NK 8 /* coefficients per slot */

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

/* ---- rounding, loads and stores (f32 is a constant after inlining) ---------------- */
static inline double R(double x, bool f32) { return f32 ? (double)(float)x : x; }
static inline double ld(const void *a, int64_t i, bool f32)
{
  return f32 ? (double)((const float *)a)[i] : ((const double *)a)[i];
}
static inline void st(void *a, int64_t i, double x, bool f32)
{
  if (f32)
    ((float *)a)[i] = (float)x;
  else
    ((double *)a)[i] = x;
}
/* torchlike.maximum: NaN wins. */
static inline double maxnan(double a, double b) { return a != a || a > b ? a : b; }
static inline double sign(double x) { return x > 0 ? 1.0 : x < 0 ? -1.0 : x; }

/* The gradient as the update sees it: negated under maximize, plus the L2
 * term unless weight decay is decoupled (that one scales p, in the kernel). */
static inline double grad_in(const tl_optim_hyper *h, double g, double p, bool f32)
{
  if (h->maximize)
    g = -g;
  if (h->weight_decay != 0 && !h->decoupled)
    g = R(g + R(R(h->weight_decay, f32) * p, f32), f32);
  return g;
}
/* x + w * (end - x): lerp as PyTorch computes it for w < 0.5. */
static inline double lerp(double x, double end, double w, bool f32)
{
  return R(x + R(w * R(end - x, f32), f32), f32);
}
/* x + (value * a) * b and x + (value * a) / b, PyTorch's addcmul/addcdiv order. */
static inline double addcmul(double x, double a, double b, double value, bool f32)
{
  return R(x + R(R(value * a, f32) * b, f32), f32);
}
static inline double addcdiv(double x, double a, double b, double value, bool f32)
{
  return R(x + R(R(value * a, f32) / b, f32), f32);
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

/* ---- element loops ----------------------------------------------------------------- */
typedef struct {
  tl_optim_kind kind;
  const tl_optim_hyper *h;
  tl_optim_slot *slots;
  const double *k;      /* [count][NK] */
  const int64_t *start; /* [count + 1]: where each slot begins end to end */
  int64_t count;
  bool f32;
} step_job;

static inline void sgd_range(const tl_optim_hyper *h, const tl_optim_slot *s, int64_t lo,
                             int64_t hi, bool f32)
{
  double lr = R(-h->lr, f32), mom = R(h->momentum, f32), damp = R(1 - h->dampening, f32);
  for (int64_t i = lo; i < hi; i++) {
    double p = ld(s->param, i, f32);
    double g = grad_in(h, ld(s->grad, i, f32), p, f32);
    if (h->momentum != 0) {
      double b = g;
      if (!s->fresh) {
        b = R(ld(s->buf[0], i, f32) * mom, f32);
        b = R(b + R(damp * g, f32), f32);
      }
      st(s->buf[0], i, b, f32);
      g = h->nesterov ? R(g + R(mom * b, f32), f32) : b;
    }
    st(s->param, i, R(p + R(lr * g, f32), f32), f32);
  }
}

static inline void adam_range(const tl_optim_hyper *h, const tl_optim_slot *s, const double *k,
                              int64_t lo, int64_t hi, bool f32)
{
  double w1 = R(1 - h->beta1, f32), b2 = R(h->beta2, f32), w2 = R(1 - h->beta2, f32);
  double eps = R(h->eps, f32), step_size = R(k[0], f32), bc2_sqrt = R(k[1], f32);
  double shrink = R(1 - h->lr * h->weight_decay, f32);
  bool decay_p = h->decoupled && h->weight_decay != 0;
  for (int64_t i = lo; i < hi; i++) {
    double p = ld(s->param, i, f32);
    if (decay_p)
      p = R(p * shrink, f32);
    double g = grad_in(h, ld(s->grad, i, f32), p, f32);
    double m = lerp(ld(s->buf[0], i, f32), g, w1, f32);
    double v = addcmul(R(ld(s->buf[1], i, f32) * b2, f32), g, g, w2, f32);
    st(s->buf[0], i, m, f32);
    st(s->buf[1], i, v, f32);
    if (h->amsgrad) {
      v = maxnan(ld(s->buf[2], i, f32), v);
      st(s->buf[2], i, v, f32);
    }
    double denom = R(R(R(sqrt(v), f32) / bc2_sqrt, f32) + eps, f32);
    st(s->param, i, addcdiv(p, m, denom, step_size, f32), f32);
  }
}

static inline void adamax_range(const tl_optim_hyper *h, const tl_optim_slot *s,
                                const double *k, int64_t lo, int64_t hi, bool f32)
{
  double w1 = R(1 - h->beta1, f32), b2 = R(h->beta2, f32), eps = R(h->eps, f32);
  double clr = R(k[0], f32);
  for (int64_t i = lo; i < hi; i++) {
    double p = ld(s->param, i, f32);
    double g = grad_in(h, ld(s->grad, i, f32), p, f32);
    double m = lerp(ld(s->buf[0], i, f32), g, w1, f32);
    double u = maxnan(R(ld(s->buf[1], i, f32) * b2, f32), R(fabs(g) + eps, f32));
    st(s->buf[0], i, m, f32);
    st(s->buf[1], i, u, f32);
    st(s->param, i, addcdiv(p, m, u, clr, f32), f32);
  }
}

static inline void nadam_range(const tl_optim_hyper *h, const tl_optim_slot *s,
                               const double *k, int64_t lo, int64_t hi, bool f32)
{
  double w1 = R(1 - h->beta1, f32), b2 = R(h->beta2, f32), w2 = R(1 - h->beta2, f32);
  double eps = R(h->eps, f32), bc2 = R(k[0], f32), cg = R(k[1], f32), cm = R(k[2], f32);
  double shrink = R(1 - h->lr * h->weight_decay, f32);
  bool decay_p = h->decoupled && h->weight_decay != 0;
  for (int64_t i = lo; i < hi; i++) {
    double p = ld(s->param, i, f32);
    if (decay_p)
      p = R(p * shrink, f32);
    double g = grad_in(h, ld(s->grad, i, f32), p, f32);
    double m = lerp(ld(s->buf[0], i, f32), g, w1, f32);
    double v = addcmul(R(ld(s->buf[1], i, f32) * b2, f32), g, g, w2, f32);
    st(s->buf[0], i, m, f32);
    st(s->buf[1], i, v, f32);
    double denom = R(R(sqrt(R(v / bc2, f32)), f32) + eps, f32);
    p = addcdiv(p, g, denom, cg, f32);
    st(s->param, i, addcdiv(p, m, denom, cm, f32), f32);
  }
}

static inline void radam_range(const tl_optim_hyper *h, const tl_optim_slot *s,
                               const double *k, int64_t lo, int64_t hi, bool f32)
{
  double w1 = R(1 - h->beta1, f32), b2 = R(h->beta2, f32), w2 = R(1 - h->beta2, f32);
  double eps = R(h->eps, f32), bc1 = R(k[0], f32), lr = R(h->lr, f32);
  double bc2_sqrt = R(k[2], f32), rect = R(k[3], f32);
  bool rectified = k[1] != 0;
  double shrink = R(1 - h->lr * h->weight_decay, f32);
  bool decay_p = h->decoupled && h->weight_decay != 0;
  for (int64_t i = lo; i < hi; i++) {
    double p = ld(s->param, i, f32);
    if (decay_p)
      p = R(p * shrink, f32);
    double g = grad_in(h, ld(s->grad, i, f32), p, f32);
    double m = lerp(ld(s->buf[0], i, f32), g, w1, f32);
    double v = addcmul(R(ld(s->buf[1], i, f32) * b2, f32), g, g, w2, f32);
    st(s->buf[0], i, m, f32);
    st(s->buf[1], i, v, f32);
    double u = R(R(m / bc1, f32) * lr, f32);
    if (rectified) {
      double adaptive = R(bc2_sqrt / R(R(sqrt(v), f32) + eps, f32), f32);
      u = R(R(u * adaptive, f32) * rect, f32);
    }
    st(s->param, i, R(p - u, f32), f32);
  }
}

static inline void adagrad_range(const tl_optim_hyper *h, const tl_optim_slot *s,
                                 const double *k, int64_t lo, int64_t hi, bool f32)
{
  double eps = R(h->eps, f32), clr = R(k[0], f32);
  for (int64_t i = lo; i < hi; i++) {
    double p = ld(s->param, i, f32);
    double g = grad_in(h, ld(s->grad, i, f32), p, f32);
    double sum = R(ld(s->buf[0], i, f32) + R(g * g, f32), f32);
    st(s->buf[0], i, sum, f32);
    double std = R(R(sqrt(sum), f32) + eps, f32);
    st(s->param, i, addcdiv(p, g, std, clr, f32), f32);
  }
}

static inline void adadelta_range(const tl_optim_hyper *h, const tl_optim_slot *s, int64_t lo,
                                  int64_t hi, bool f32)
{
  double rho = R(h->rho, f32), w = R(1 - h->rho, f32), eps = R(h->eps, f32);
  double lr = R(-h->lr, f32);
  for (int64_t i = lo; i < hi; i++) {
    double p = ld(s->param, i, f32);
    double g = grad_in(h, ld(s->grad, i, f32), p, f32);
    double sq = addcmul(R(ld(s->buf[0], i, f32) * rho, f32), g, g, w, f32);
    double std = R(sqrt(R(sq + eps, f32)), f32);
    double acc = ld(s->buf[1], i, f32);
    double delta = R(sqrt(R(acc + eps, f32)), f32);
    delta = R(R(delta / std, f32) * g, f32);
    acc = addcmul(R(acc * rho, f32), delta, delta, w, f32);
    st(s->buf[0], i, sq, f32);
    st(s->buf[1], i, acc, f32);
    st(s->param, i, R(p + R(lr * delta, f32), f32), f32);
  }
}

static inline void rmsprop_range(const tl_optim_hyper *h, const tl_optim_slot *s, int64_t lo,
                                 int64_t hi, bool f32)
{
  double a = R(h->alpha, f32), w = R(1 - h->alpha, f32), eps = R(h->eps, f32);
  double lr = R(-h->lr, f32), mom = R(h->momentum, f32);
  for (int64_t i = lo; i < hi; i++) {
    double p = ld(s->param, i, f32);
    double g = grad_in(h, ld(s->grad, i, f32), p, f32);
    double sq = addcmul(R(ld(s->buf[0], i, f32) * a, f32), g, g, w, f32);
    st(s->buf[0], i, sq, f32);
    double avg;
    if (h->centered) {
      double ga = lerp(ld(s->buf[2], i, f32), g, w, f32);
      st(s->buf[2], i, ga, f32);
      avg = R(sqrt(R(sq - R(ga * ga, f32), f32)), f32);
    } else {
      avg = R(sqrt(sq), f32);
    }
    avg = R(avg + eps, f32);
    if (h->momentum > 0) {
      double b = R(R(ld(s->buf[1], i, f32) * mom, f32) + R(g / avg, f32), f32);
      st(s->buf[1], i, b, f32);
      p = R(p + R(lr * b, f32), f32);
    } else {
      p = addcdiv(p, g, avg, lr, f32);
    }
    st(s->param, i, p, f32);
  }
}

static inline void rprop_range(const tl_optim_hyper *h, const tl_optim_slot *s, int64_t lo,
                               int64_t hi, bool f32)
{
  double up = R(h->etaplus, f32), down = R(h->etaminus, f32);
  double lo_step = R(h->step_min, f32), hi_step = R(h->step_max, f32);
  for (int64_t i = lo; i < hi; i++) {
    double g = ld(s->grad, i, f32);
    if (h->maximize)
      g = -g;
    double d = sign(R(g * ld(s->buf[0], i, f32), f32));
    double factor = d > 0 ? up : d < 0 ? down : d == 0 ? 1.0 : d;
    double size = R(ld(s->buf[1], i, f32) * factor, f32);
    size = size < lo_step ? lo_step : size > hi_step ? hi_step : size; /* NaN stays */
    if (factor == down)
      g = 0;
    st(s->buf[1], i, size, f32);
    st(s->buf[0], i, g, f32);
    double p = ld(s->param, i, f32);
    st(s->param, i, R(p - R(sign(g) * size, f32), f32), f32);
  }
}

static inline void asgd_range(const tl_optim_hyper *h, const tl_optim_slot *s, const double *k,
                              int64_t lo, int64_t hi, bool f32)
{
  double shrink = R(k[0], f32), eta = R(k[1], f32), mu = R(k[2], f32);
  for (int64_t i = lo; i < hi; i++) {
    double p = ld(s->param, i, f32);
    double g = grad_in(h, ld(s->grad, i, f32), p, f32);
    p = R(p * shrink, f32);
    p = R(p + R(eta * g, f32), f32);
    st(s->param, i, p, f32);
    double ax = ld(s->buf[0], i, f32);
    st(s->buf[0], i, k[2] != 1 ? R(ax + R(R(p - ax, f32) * mu, f32), f32) : p, f32);
  }
}

static inline void slot_range(const step_job *job, int64_t j, int64_t lo, int64_t hi, bool f32)
{
  const tl_optim_hyper *h = job->h;
  const tl_optim_slot *s = &job->slots[j];
  const double *k = job->k + j * NK;
  switch (job->kind) {
  case TL_OPTIM_SGD: sgd_range(h, s, lo, hi, f32); break;
  case TL_OPTIM_ADAM: adam_range(h, s, k, lo, hi, f32); break;
  case TL_OPTIM_ADAMAX: adamax_range(h, s, k, lo, hi, f32); break;
  case TL_OPTIM_NADAM: nadam_range(h, s, k, lo, hi, f32); break;
  case TL_OPTIM_RADAM: radam_range(h, s, k, lo, hi, f32); break;
  case TL_OPTIM_ADAGRAD: adagrad_range(h, s, k, lo, hi, f32); break;
  case TL_OPTIM_ADADELTA: adadelta_range(h, s, lo, hi, f32); break;
  case TL_OPTIM_RMSPROP: rmsprop_range(h, s, lo, hi, f32); break;
  case TL_OPTIM_RPROP: rprop_range(h, s, lo, hi, f32); break;
  case TL_OPTIM_ASGD: asgd_range(h, s, k, lo, hi, f32); break;
  default: break;
  }
}

/* A range of the end-to-end element space: find the first slot, then walk. */
static void step_range(void *ctx, int64_t begin, int64_t end, int worker)
{
  (void)worker;
  const step_job *job = ctx;
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
      slot_range(job, j, a, b, true);
    else
      slot_range(job, j, a, b, false);
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
  k = calloc((size_t)(count ? count : 1) * NK, sizeof *k);
  start = malloc((size_t)(count + 1) * sizeof *start);
  if (!k || !start) {
    status = tl_error_set(TL_ERR_MEMORY, "out of memory in the optimizer step");
    goto done;
  }
  start[0] = 0;
  for (int64_t j = 0; j < count; j++) {
    slot_prep(kind, h, &slots[j], k + j * NK);
    start[j + 1] = start[j] + slots[j].n;
  }
  step_job job = {kind, h, slots, k, start, count, dtype == TL_DTYPE_F32};
  if (start[count] > 0)
    tl_parallel_for(start[count], 1 << 15, step_range, &job);
done:
  free(k);
  free(start);
  return status;
}
