/* optim_loops.h - the element loops of the multi-tensor optimizer steps,
 * written once over the element type `real` and compiled twice:
 * optim_loops_f32.c and optim_loops_f64.c define TL_OPTIM_REAL (float or
 * double), TL_SQRT/TL_FABS for it, and TL_OPTIM_RANGE, the name of the one
 * function this file defines; everything else here is static.
 *
 * Rounding: each operation below is one tensor op of the per-parameter
 * Python path (same order, same operands), rounding to `real`, with the
 * Python-float options converted to `real` where that path converts them.
 * The build uses -std=c11, where GCC does not contract a*b+c into an fma,
 * so the two paths are bit-identical.  Legend: P param, G grad, M/V first
 * and second moments, B momentum buffer; k[] the slot's coefficients. */
#include <math.h>

#include "nn/optim/optim_job.h"

typedef TL_OPTIM_REAL real;

/* Comparisons are the quiet ones (isgreater, isless): an ordered `>` may
 * raise on NaN, which keeps the compiler from vectorizing it. */
/* torchlike.maximum: NaN wins. */
static inline real maxnan(real a, real b)
{
  return isunordered(a, a) | isgreater(a, b) ? a : b;
}
static inline real sign(real x) { return isgreater(x, 0) ? 1 : isless(x, 0) ? -1 : x; }

/* The options every loop reads, copied out of the hyper struct: a store
 * through a double pointer could alias its fields, and then the compiler
 * would reload them in every iteration and not vectorize. */
typedef struct {
  bool maximize, l2, shrink_p; /* l2: add wd * p to g; shrink_p: p *= 1 - lr * wd */
  real wd, shrink;            /* shrink is 1 without shrink_p: p * 1 is p, bit for bit */
} grad_opts;

static inline grad_opts grad_opts_of(const tl_optim_hyper *h)
{
  bool shrink_p = h->weight_decay != 0 && h->decoupled;
  grad_opts o = {h->maximize, h->weight_decay != 0 && !h->decoupled, shrink_p,
                 (real)(h->weight_decay), shrink_p ? (real)(1 - h->lr * h->weight_decay) : 1};
  return o;
}

/* The gradient as the update sees it: negated under maximize, plus the L2
 * term (decoupled weight decay scales p instead, before this).  Both arms
 * are computed and one selected, so the loops have no branches and
 * vectorize (a conditional float op cannot be if-converted: it may trap). */
static inline real grad_in(grad_opts o, real g, real p)
{
  g = o.maximize ? -g : g;
  real with_l2 = g + (o.wd * p);
  return o.l2 ? with_l2 : g;
}
/* x + w * (end - x): lerp as PyTorch computes it for w < 0.5. */
static inline real lerp(real x, real end, real w)
{
  return (x + (w * (end - x)));
}
/* x + (value * a) * b and x + (value * a) / b, PyTorch's addcmul/addcdiv order. */
static inline real addcmul(real x, real a, real b, real value)
{
  return (x + ((value * a) * b));
}
static inline real addcdiv(real x, real a, real b, real value)
{
  return (x + ((value * a) / b));
}

/* ---- element loops ----------------------------------------------------------------- */

/* Each loop copies what it reads into locals (restrict pointers, options)
 * so that it vectorizes; options that decide which buffers are touched are
 * constants from the call site (TL_OPTIM_INLINE), each combination its own
 * loop. */
#define TL_OPTIM_INLINE static inline __attribute__((always_inline))

TL_OPTIM_INLINE void sgd_range(const tl_optim_hyper *h, const tl_optim_slot *s, int64_t lo,
                               int64_t hi, bool use_momentum, bool fresh)
{
  real *restrict P = s->param, *restrict B = s->buf[0];
  const real *restrict G = s->grad;
  const grad_opts o = grad_opts_of(h);
  const real lr = (real)(-h->lr), mom = (real)(h->momentum), damp = (real)(1 - h->dampening);
  const bool nesterov = h->nesterov;
  for (int64_t i = lo; i < hi; i++) {
    real p = P[i];
    real g = grad_in(o, G[i], p);
    if (use_momentum) {
      real b = fresh ? g : ((B[i] * mom) + (damp * g));
      B[i] = b;
      real with_nesterov = g + (mom * b);
      g = nesterov ? with_nesterov : b;
    }
    P[i] = p + (lr * g);
  }
}

/* The Adam family's first half (Adam, NAdam, RAdam): p's decoupled shrink,
 * the gradient, and the moments m = lerp(m, g, 1 - beta1) and
 * v = beta2 * v + (1 - beta2) * g * g, stored. */
typedef struct {
  grad_opts o;
  real w1, b2, w2;
} moment_opts;

static inline moment_opts moment_opts_of(const tl_optim_hyper *h)
{
  moment_opts c = {grad_opts_of(h), (real)(1 - h->beta1), (real)h->beta2,
                   (real)(1 - h->beta2)};
  return c;
}

TL_OPTIM_INLINE void adam_moments(const moment_opts *c, const real *P, const real *G, real *M,
                                  real *V, int64_t i, real *p, real *g, real *m, real *v)
{
  *p = P[i] * c->o.shrink;
  *g = grad_in(c->o, G[i], *p);
  *m = lerp(M[i], *g, c->w1);
  *v = addcmul(V[i] * c->b2, *g, *g, c->w2);
  M[i] = *m;
  V[i] = *v;
}

TL_OPTIM_INLINE void adam_range(const tl_optim_hyper *h, const tl_optim_slot *s,
                                const double *k, int64_t lo, int64_t hi, bool amsgrad)
{
  real *restrict P = s->param, *restrict M = s->buf[0], *restrict V = s->buf[1];
  real *restrict VMAX = s->buf[2];
  const real *restrict G = s->grad;
  const moment_opts c = moment_opts_of(h);
  const real eps = (real)(h->eps), step_size = (real)(k[0]), bc2_sqrt = (real)(k[1]);
  for (int64_t i = lo; i < hi; i++) {
    real p, g, m, v;
    adam_moments(&c, P, G, M, V, i, &p, &g, &m, &v);
    if (amsgrad) {
      v = maxnan(VMAX[i], v);
      VMAX[i] = v;
    }
    real denom = (TL_SQRT(v) / bc2_sqrt) + eps;
    P[i] = addcdiv(p, m, denom, step_size);
  }
}

TL_OPTIM_INLINE void adamax_range(const tl_optim_hyper *h, const tl_optim_slot *s,
                                  const double *k, int64_t lo, int64_t hi)
{
  real *restrict P = s->param, *restrict M = s->buf[0], *restrict U = s->buf[1];
  const real *restrict G = s->grad;
  const grad_opts o = grad_opts_of(h);
  const real w1 = (real)(1 - h->beta1), b2 = (real)(h->beta2), eps = (real)(h->eps);
  const real clr = (real)(k[0]);
  for (int64_t i = lo; i < hi; i++) {
    real p = P[i];
    real g = grad_in(o, G[i], p);
    real m = lerp(M[i], g, w1);
    real u = maxnan((U[i] * b2), (TL_FABS(g) + eps));
    M[i] = m;
    U[i] = u;
    P[i] = addcdiv(p, m, u, clr);
  }
}

TL_OPTIM_INLINE void nadam_range(const tl_optim_hyper *h, const tl_optim_slot *s,
                                 const double *k, int64_t lo, int64_t hi)
{
  real *restrict P = s->param, *restrict M = s->buf[0], *restrict V = s->buf[1];
  const real *restrict G = s->grad;
  const moment_opts c = moment_opts_of(h);
  const real eps = (real)(h->eps), bc2 = (real)(k[0]), cg = (real)(k[1]), cm = (real)(k[2]);
  for (int64_t i = lo; i < hi; i++) {
    real p, g, m, v;
    adam_moments(&c, P, G, M, V, i, &p, &g, &m, &v);
    real denom = (TL_SQRT((v / bc2))) + eps;
    p = addcdiv(p, g, denom, cg);
    P[i] = addcdiv(p, m, denom, cm);
  }
}

TL_OPTIM_INLINE void radam_range(const tl_optim_hyper *h, const tl_optim_slot *s,
                                 const double *k, int64_t lo, int64_t hi)
{
  real *restrict P = s->param, *restrict M = s->buf[0], *restrict V = s->buf[1];
  const real *restrict G = s->grad;
  const moment_opts c = moment_opts_of(h);
  const real eps = (real)(h->eps), bc1 = (real)(k[0]), lr = (real)(h->lr);
  const real bc2_sqrt = (real)(k[2]), rect = (real)(k[3]);
  const bool rectified = k[1] != 0;
  for (int64_t i = lo; i < hi; i++) {
    real p, g, m, v;
    adam_moments(&c, P, G, M, V, i, &p, &g, &m, &v);
    real u = (m / bc1) * lr;
    real adaptive = bc2_sqrt / (TL_SQRT(v) + eps);
    real u_rect = (u * adaptive) * rect;
    P[i] = p - (rectified ? u_rect : u);
  }
}

TL_OPTIM_INLINE void adagrad_range(const tl_optim_hyper *h, const tl_optim_slot *s,
                                   const double *k, int64_t lo, int64_t hi)
{
  real *restrict P = s->param, *restrict SUM = s->buf[0];
  const real *restrict G = s->grad;
  const grad_opts o = grad_opts_of(h);
  const real eps = (real)(h->eps), clr = (real)(k[0]);
  for (int64_t i = lo; i < hi; i++) {
    real p = P[i];
    real g = grad_in(o, G[i], p);
    real sum = SUM[i] + (g * g);
    SUM[i] = sum;
    real std = TL_SQRT(sum) + eps;
    P[i] = addcdiv(p, g, std, clr);
  }
}

TL_OPTIM_INLINE void adadelta_range(const tl_optim_hyper *h, const tl_optim_slot *s,
                                    int64_t lo, int64_t hi)
{
  real *restrict P = s->param, *restrict SQ = s->buf[0], *restrict ACC = s->buf[1];
  const real *restrict G = s->grad;
  const grad_opts o = grad_opts_of(h);
  const real rho = (real)(h->rho), w = (real)(1 - h->rho), eps = (real)(h->eps);
  const real lr = (real)(-h->lr);
  for (int64_t i = lo; i < hi; i++) {
    real p = P[i];
    real g = grad_in(o, G[i], p);
    real sq = addcmul((SQ[i] * rho), g, g, w);
    real std = TL_SQRT((sq + eps));
    real acc = ACC[i];
    real delta = TL_SQRT((acc + eps));
    delta = (delta / std) * g;
    acc = addcmul((acc * rho), delta, delta, w);
    SQ[i] = sq;
    ACC[i] = acc;
    P[i] = p + (lr * delta);
  }
}

TL_OPTIM_INLINE void rmsprop_range(const tl_optim_hyper *h, const tl_optim_slot *s,
                                   int64_t lo, int64_t hi, bool centered,
                                   bool use_momentum)
{
  real *restrict P = s->param, *restrict SQ = s->buf[0], *restrict B = s->buf[1];
  real *restrict GA = s->buf[2];
  const real *restrict G = s->grad;
  const grad_opts o = grad_opts_of(h);
  const real a = (real)(h->alpha), w = (real)(1 - h->alpha), eps = (real)(h->eps);
  const real lr = (real)(-h->lr), mom = (real)(h->momentum);
  for (int64_t i = lo; i < hi; i++) {
    real p = P[i];
    real g = grad_in(o, G[i], p);
    real sq = addcmul((SQ[i] * a), g, g, w);
    SQ[i] = sq;
    real avg;
    if (centered) {
      real ga = lerp(GA[i], g, w);
      GA[i] = ga;
      avg = TL_SQRT((sq - (ga * ga)));
    } else {
      avg = TL_SQRT(sq);
    }
    avg = avg + eps;
    if (use_momentum) {
      real b = (B[i] * mom) + (g / avg);
      B[i] = b;
      p = p + (lr * b);
    } else {
      p = addcdiv(p, g, avg, lr);
    }
    P[i] = p;
  }
}

TL_OPTIM_INLINE void rprop_range(const tl_optim_hyper *h, const tl_optim_slot *s, int64_t lo,
                                 int64_t hi)
{
  real *restrict P = s->param, *restrict PREV = s->buf[0], *restrict SIZE = s->buf[1];
  const real *restrict G = s->grad;
  const real up = (real)(h->etaplus), down = (real)(h->etaminus);
  const real lo_step = (real)(h->step_min), hi_step = (real)(h->step_max);
  const bool maximize = h->maximize;
  for (int64_t i = lo; i < hi; i++) {
    real g = G[i];
    g = maximize ? -g : g;
    real d = sign((g * PREV[i]));
    real factor = isgreater(d, 0) ? up : isless(d, 0) ? down : d == 0 ? 1.0 : d;
    real size = SIZE[i] * factor;
    /* clamp; NaN stays */
    size = isless(size, lo_step) ? lo_step : isgreater(size, hi_step) ? hi_step : size;
    g = factor == down ? 0 : g;
    SIZE[i] = size;
    PREV[i] = g;
    P[i] = P[i] - (sign(g) * size);
  }
}

TL_OPTIM_INLINE void asgd_range(const tl_optim_hyper *h, const tl_optim_slot *s,
                                const double *k, int64_t lo, int64_t hi)
{
  real *restrict P = s->param, *restrict AX = s->buf[0];
  const real *restrict G = s->grad;
  const grad_opts o = grad_opts_of(h);
  const real shrink = (real)(k[0]), eta = (real)(k[1]), mu = (real)(k[2]);
  const bool average = k[2] != 1;
  for (int64_t i = lo; i < hi; i++) {
    real p = P[i];
    real g = grad_in(o, G[i], p);
    p = p * shrink;
    p = p + (eta * g);
    P[i] = p;
    real ax = AX[i];
    real averaged = ax + ((p - ax) * mu);
    AX[i] = average ? averaged : p;
  }
}

void TL_OPTIM_RANGE(const tl_optim_job *job, int64_t j, int64_t lo, int64_t hi)
{
  const tl_optim_hyper *h = job->h;
  const tl_optim_slot *s = &job->slots[j];
  const double *k = job->k + j * TL_OPTIM_NK;
  switch (job->kind) {
  /* Options that decide which buffers are touched become constants here,
   * each combination its own loop. */
  case TL_OPTIM_SGD:
    if (h->momentum == 0)
      sgd_range(h, s, lo, hi, false, false);
    else if (s->fresh)
      sgd_range(h, s, lo, hi, true, true);
    else
      sgd_range(h, s, lo, hi, true, false);
    break;
  case TL_OPTIM_ADAM:
    if (h->amsgrad)
      adam_range(h, s, k, lo, hi, true);
    else
      adam_range(h, s, k, lo, hi, false);
    break;
  case TL_OPTIM_ADAMAX: adamax_range(h, s, k, lo, hi); break;
  case TL_OPTIM_NADAM: nadam_range(h, s, k, lo, hi); break;
  case TL_OPTIM_RADAM: radam_range(h, s, k, lo, hi); break;
  case TL_OPTIM_ADAGRAD: adagrad_range(h, s, k, lo, hi); break;
  case TL_OPTIM_ADADELTA: adadelta_range(h, s, lo, hi); break;
  case TL_OPTIM_RMSPROP:
    if (h->centered && h->momentum > 0)
      rmsprop_range(h, s, lo, hi, true, true);
    else if (h->centered)
      rmsprop_range(h, s, lo, hi, true, false);
    else if (h->momentum > 0)
      rmsprop_range(h, s, lo, hi, false, true);
    else
      rmsprop_range(h, s, lo, hi, false, false);
    break;
  case TL_OPTIM_RPROP: rprop_range(h, s, lo, hi); break;
  case TL_OPTIM_ASGD: asgd_range(h, s, k, lo, hi); break;
  default: break;
  }
}
