/* tl_softmax.h - softmax and log_softmax along one dim, and their backward.
 *
 *   softmax(x)_i     = exp(x_i - m) / sum_j exp(x_j - m),   m = max_j x_j
 *   log_softmax(x)_i = x_i - m - log(sum_j exp(x_j - m))
 *
 * Backward, from the output y and its gradient g (all along `dim`):
 *   softmax:      dx = y * (g - sum(g * y))
 *   log_softmax:  dx = g - exp(y) * sum(g)
 * The backward ops read only y, so the tape keeps the output, not the input. */
#ifndef TL_NN_SOFTMAX_H
#define TL_NN_SOFTMAX_H

#include "ndcore/dispatch/tl_dispatch.h"

/* A device's kernels.  Shapes are checked and `out` allocated (contiguous,
 * on the inputs' device, of the result dtype) by the entry points; `dim` is
 * wrapped; 0-d tensors come as one-element lines. */
typedef struct {
  tl_status (*softmax)(const tl_tensor *in, int dim, bool log, tl_tensor *out);
  tl_status (*softmax_backward)(const tl_tensor *grad, const tl_tensor *output, int dim, bool log,
                                tl_tensor *grad_input);
} tl_nn_softmax_kernels;

/* op: TL_OP_SOFTMAX or TL_OP_LOG_SOFTMAX.  dtype: the result dtype (the input
 * is cast to it first, as PyTorch's dtype= does), or -1 for the input's. */
tl_status tl_nn_softmax(tl_op op, const tl_tensor *in, int64_t dim, int dtype, tl_tensor *out);
/* op: TL_OP_SOFTMAX_BACKWARD or TL_OP_LOG_SOFTMAX_BACKWARD.  grad_input has
 * dtype input_dtype (the forward input's, before any dtype= cast). */
tl_status tl_nn_softmax_backward(tl_op op, const tl_tensor *grad, const tl_tensor *output,
                                 int64_t dim, tl_dtype input_dtype, tl_tensor *grad_input);

/* The CPU's kernels (softmax_cpu.c). */
tl_status tl_cpu_softmax(const tl_tensor *in, int dim, bool log, tl_tensor *out);
tl_status tl_cpu_softmax_backward(const tl_tensor *grad, const tl_tensor *output, int dim, bool log,
                                  tl_tensor *grad_input);

#endif
