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

/* The CPU's kernels (loss_cpu.c). */
tl_status tl_cpu_nll_loss(const tl_nll_spec *s, const tl_tensor *input, const tl_tensor *target,
                          const tl_tensor *weight, tl_tensor *out, tl_tensor *total_weight);
tl_status tl_cpu_nll_loss_backward(const tl_nll_spec *s, const tl_tensor *grad,
                                   const tl_tensor *target, const tl_tensor *weight,
                                   const tl_tensor *total_weight, tl_tensor *grad_input);

#endif
