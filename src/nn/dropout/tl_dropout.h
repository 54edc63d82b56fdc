/* tl_dropout.h - dropout, its feature (channel) and alpha variants, and the
 * backward that reuses the mask.
 *
 * One fused kernel draws the keep mask from the library's Philox generator
 * and writes the result in the same pass:
 *   kept:     y = x * keep_scale + keep_shift
 *   dropped:  y = drop_value
 * (dropout: 1/(1-p), 0, 0; alpha dropout: a, b, alpha' a + b).  Mask element
 * i is kept when word i of the reserved counter blocks, as a fraction of
 * 2^32, is below 1 - p: the same trial bernoulli_(1 - p) makes, so a seed
 * reproduces the mask whatever the thread count.
 * The mask has the input's shape, or for feature dropout its first
 * `batch_dims` dims followed by ones (one draw per sample and channel).
 * The backward is dx = g * mask * scale, mask broadcast over the trailing
 * dims. */
#ifndef TL_NN_DROPOUT_H
#define TL_NN_DROPOUT_H

#include "ndcore/dispatch/tl_dispatch.h"
#include "ndcore/kernels/tl_random.h"

typedef struct {
  double keep_prob; /* 1 - p */
  double keep_scale, keep_shift, drop_value;
} tl_dropout_params;

/* A device's kernels.  x and y have one shape (y may be x); mask is bool,
 * contiguous, its numel divides x's (each mask element covers a run of
 * numel(x) / numel(mask) consecutive elements of x in row-major order). */
typedef struct {
  tl_status (*forward)(tl_generator *gen, const tl_dropout_params *p, const tl_tensor *x,
                       tl_tensor *y, tl_tensor *mask);
  tl_status (*backward)(const tl_tensor *g, const tl_tensor *mask, double scale, tl_tensor *dx);
} tl_nn_dropout_kernels;

/* (y, mask) = dropout of x with probability p.  batch_dims 0: elementwise;
 * 1 or 2: one draw per index of x's first batch_dims dims.  alpha: alpha
 * dropout (SELU's mean and variance kept).  y: zeroed (allocated here), or
 * when `into` an existing tensor of x's shape (the in-place spelling). */
tl_status tl_nn_dropout(tl_generator *gen, const tl_tensor *x, double p, int batch_dims,
                        bool alpha, tl_tensor *y, bool into, tl_tensor *mask);
/* The scale the backward applies for this p (1/(1-p), alpha dropout's a). */
double tl_nn_dropout_scale(double p, bool alpha);
/* dx = g * mask * scale. */
tl_status tl_nn_dropout_backward(const tl_tensor *g, const tl_tensor *mask, double scale,
                                 tl_tensor *dx);

/* The CPU's kernels (dropout_cpu.c). */
tl_status tl_cpu_dropout(tl_generator *gen, const tl_dropout_params *p, const tl_tensor *x,
                         tl_tensor *y, tl_tensor *mask);
tl_status tl_cpu_dropout_backward(const tl_tensor *g, const tl_tensor *mask, double scale,
                                  tl_tensor *dx);

#endif
