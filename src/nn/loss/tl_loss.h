/* tl_loss.h - nll_loss and its backward (cross_entropy is nll_loss of
 * log_softmax, in Python).
 *
 * Legend: input (N, C, d1, ...) seen as (N, C, S), or (C,) unbatched
 * (N = S = 1); target (N, d1, ...) of class indices; weight (C,) or none.
 *   loss[n, s] = -weight[t] * input[n, t, s],  t = target[n, s]
 * and 0 where t == ignore_index.  total_weight is the sum of weight[t] over
 * the targets not ignored; reduction 'mean' divides the sum by it (NaN when
 * it is 0, as PyTorch).  The backward scatters -weight[t] * grad (divided by
 * total_weight for 'mean') into zeros of input's shape.  nll_loss is linear
 * in its input, so the backward op's derivative in grad_output is nll_loss
 * itself (formulas_nn_loss.c). */
#ifndef TL_NN_LOSS_H
#define TL_NN_LOSS_H

#include "ndcore/dispatch/tl_dispatch.h"

typedef enum { TL_REDUCTION_NONE = 0, TL_REDUCTION_MEAN = 1, TL_REDUCTION_SUM = 2 } tl_reduction;

typedef struct {
  int64_t N, C, S;
  tl_reduction reduction;
  int64_t ignore_index;
} tl_nll_spec;

/* A device's kernels.  target is int64 and contiguous, weight (C,) of the
 * input's dtype (ones when none was given), outputs allocated contiguous by
 * the entry points: out (N, d...) or () and total_weight () of the input's
 * dtype; grad_input zeros of the input's shape. */
typedef struct {
  tl_status (*nll)(const tl_nll_spec *s, const tl_tensor *input, const tl_tensor *target,
                   const tl_tensor *weight, tl_tensor *out, tl_tensor *total_weight);
  tl_status (*nll_backward)(const tl_nll_spec *s, const tl_tensor *grad, const tl_tensor *target,
                            const tl_tensor *weight, const tl_tensor *total_weight,
                            tl_tensor *grad_input);
} tl_nn_loss_kernels;

tl_status tl_nn_nll_loss(const tl_tensor *input, const tl_tensor *target, const tl_tensor *weight,
                         int64_t reduction, int64_t ignore_index, tl_tensor *out,
                         tl_tensor *total_weight);
tl_status tl_nn_nll_loss_backward(const tl_tensor *grad, const tl_tensor *input,
                                  const tl_tensor *target, const tl_tensor *weight,
                                  int64_t reduction, int64_t ignore_index,
                                  const tl_tensor *total_weight, tl_tensor *grad_input);

/* ---- elementwise losses ----
 * One op for the losses that are a sum of a function of (input, target)
 * elements, of the same shape (broadcasting, weight and pos_weight are
 * expanded to it by the caller).  With d = x - t:
 *   MSE            d^2                         dx = 2 d
 *   L1             |d|                         dx = sign(d)
 *   SMOOTH_L1      |d| < b ? d^2 / 2b : |d| - b/2          (b = param)
 *   HUBER          |d| < b ? d^2 / 2 : b (|d| - b/2)       (b = param)
 *   BCE            -w (t log x + (1 - t) log(1 - x)), logs clamped at -100
 *   BCE_LOGITS     -w (p t log s(x) + (1 - t) log(1 - s(x))), s the sigmoid,
 *                  p the pos_weight
 *   KL_DIV         t (log t - x), or exp(t) (t - x) when param != 0 (log_target)
 * The backward returns the gradients of input and target (dt = -dx for the
 * first four). */
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

typedef struct {
  tl_loss_kind kind;
  double param;
  tl_reduction reduction;
} tl_loss_spec;

/* Kernels: every operand of the same shape, any layout and float dtype
 * (weight, pos_weight NULL when absent); out (elementwise, or 0-d), dx and
 * dt (the input's shape) allocated contiguous by the entry points. */
typedef struct {
  tl_status (*loss)(const tl_loss_spec *s, const tl_tensor *x, const tl_tensor *t,
                    const tl_tensor *w, const tl_tensor *p, tl_tensor *out);
  tl_status (*loss_backward)(const tl_loss_spec *s, const tl_tensor *g, const tl_tensor *x,
                             const tl_tensor *t, const tl_tensor *w, const tl_tensor *p,
                             tl_tensor *dx, tl_tensor *dt);
} tl_nn_pointwise_loss_kernels;

tl_status tl_nn_pointwise_loss(const tl_tensor *x, const tl_tensor *t, const tl_tensor *w,
                               const tl_tensor *p, int64_t kind, double param, int64_t reduction,
                               tl_tensor *out);
tl_status tl_nn_pointwise_loss_backward(const tl_tensor *g, const tl_tensor *x,
                                        const tl_tensor *t, const tl_tensor *w,
                                        const tl_tensor *p, int64_t kind, double param,
                                        int64_t reduction, tl_tensor *dx, tl_tensor *dt);

/* The CPU's kernels (loss_cpu.c). */
tl_status tl_cpu_nll_loss(const tl_nll_spec *s, const tl_tensor *input, const tl_tensor *target,
                          const tl_tensor *weight, tl_tensor *out, tl_tensor *total_weight);
tl_status tl_cpu_nll_loss_backward(const tl_nll_spec *s, const tl_tensor *grad,
                                   const tl_tensor *target, const tl_tensor *weight,
                                   const tl_tensor *total_weight, tl_tensor *grad_input);
tl_status tl_cpu_pointwise_loss(const tl_loss_spec *s, const tl_tensor *x, const tl_tensor *t,
                                const tl_tensor *w, const tl_tensor *p, tl_tensor *out);
tl_status tl_cpu_pointwise_loss_backward(const tl_loss_spec *s, const tl_tensor *g,
                                         const tl_tensor *x, const tl_tensor *t,
                                         const tl_tensor *w, const tl_tensor *p, tl_tensor *dx,
                                         tl_tensor *dt);

#endif
