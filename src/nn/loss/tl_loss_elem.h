/* tl_loss_elem.h - the elementwise losses' kinds (tl_loss.h's table) and
 * the loss of one element with its derivatives: the arithmetic shared by
 * the CPU's loops (loss_cpu.c) and the CUDA kernels (src/gpu/nn/loss.cu),
 * so both devices compute the same values.  Element math in double: these
 * are memory-bound passes, and double keeps the log/exp terms of the
 * cross-entropies exact for float inputs.
 *
 * The kinds need nothing; the functions are compiled only where the
 * includer defines TL_LOSS_FN (their qualifiers: static inline on the CPU,
 * a device function on CUDA) and has included <math.h>. */
#ifndef TL_NN_LOSS_ELEM_H
#define TL_NN_LOSS_ELEM_H

typedef enum {
  TL_LOSS_MSE,
  TL_LOSS_L1,
  TL_LOSS_SMOOTH_L1,
  TL_LOSS_HUBER,
  TL_LOSS_BCE,
  TL_LOSS_BCE_LOGITS,
  TL_LOSS_KL_DIV,
  TL_LOSS_KIND_COUNT
} tl_loss_kind;

#endif

#if defined(TL_LOSS_FN) && !defined(TL_NN_LOSS_ELEM_FNS)
#define TL_NN_LOSS_ELEM_FNS

TL_LOSS_FN double tl_loss_sign(double d) { return d > 0 ? 1 : d < 0 ? -1 : 0; }

/* log(sigmoid(x)), stable */
TL_LOSS_FN double tl_loss_log_sigmoid(double x)
{
  return x < 0 ? x - log1p(exp(x)) : -log1p(exp(-x));
}

/* The loss of one element, and (when dx is not NULL) its derivatives in x
 * and t; b is the spec's param. */
TL_LOSS_FN double tl_loss_elem(int kind, double b, double x, double t, double w, double p,
                              double *dx, double *dt)
{
  double d = x - t, ad = fabs(d), l, gx, gt;
  switch (kind) {
  case TL_LOSS_MSE:
    l = d * d, gx = 2 * d, gt = -gx;
    break;
  case TL_LOSS_L1:
    l = ad, gx = tl_loss_sign(d), gt = -gx;
    break;
  case TL_LOSS_SMOOTH_L1:
    l = ad < b ? 0.5 * d * d / b : ad - 0.5 * b;
    gx = ad < b ? d / b : tl_loss_sign(d), gt = -gx;
    break;
  case TL_LOSS_HUBER:
    l = ad < b ? 0.5 * d * d : b * (ad - 0.5 * b);
    gx = ad < b ? d : b * tl_loss_sign(d), gt = -gx;
    break;
  case TL_LOSS_BCE: {
    double lx = fmax(log(x), -100.0), l1x = fmax(log1p(-x), -100.0);
    l = -w * (t * lx + (1 - t) * l1x);
    gx = w * (x - t) / fmax((1 - x) * x, 1e-12); /* PyTorch's clamp of the denominator */
    gt = w * (l1x - lx);
    break;
  }
  case TL_LOSS_BCE_LOGITS: {
    double ls = tl_loss_log_sigmoid(x), l1s = tl_loss_log_sigmoid(-x), sg = exp(ls);
    l = -w * (p * t * ls + (1 - t) * l1s);
    gx = w * (sg * (p * t + 1 - t) - p * t);
    gt = -w * (p * ls - l1s);
    break;
  }
  default: /* TL_LOSS_KL_DIV */
    if (b != 0) { /* log_target */
      double e = exp(t);
      l = e * (t - x), gx = -e, gt = e * (t - x + 1);
    } else {
      l = t > 0 ? t * (log(t) - x) : t == 0 ? 0 : NAN;
      gx = -t, gt = t > 0 ? log(t) + 1 - x : t == 0 ? -x : NAN;
    }
    break;
  }
  if (dx) {
    *dx = gx;
    *dt = gt;
  }
  return l;
}

#endif
