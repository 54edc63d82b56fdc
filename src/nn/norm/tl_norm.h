/* tl_norm.h - batch_norm, layer_norm, group_norm and rms_norm, and their
 * backward.  instance_norm is batch_norm of a (1, N*C, *) view (Python).
 *
 * Legend: the input x is seen as (N, C, S): N samples, C channels, S
 * positions per channel.  The affine weight w and bias b have one value per
 * channel.  Statistics (mean, rstd = 1/sqrt(var + eps), var biased) are taken
 *   per (n, g) over the C/G channels of group g and their S positions
 *     (group_norm; layer_norm is G = 1, S = 1, C = prod(normalized_shape);
 *      rms_norm is the same with the mean taken as 0), or
 *   per channel over (N, S) (batch_norm, training); in evaluation batch_norm
 *     uses the running statistics instead.
 *   y = (x - mean) * rstd * w + b
 * Backward, over the elements of one statistics group (D of them), with
 * xhat = (x - mean) * rstd and dxhat = dy * w:
 *   dx = rstd * (dxhat - sum(dxhat) / D - xhat * sum(dxhat * xhat) / D)
 *   dw = sum over (N, S) of dy * xhat,  db = sum over (N, S) of dy
 * (the two sums in dx are dropped for statistics that are constants: the
 * running ones of evaluation; the first for rms_norm).  Forward returns mean
 * and rstd so that the backward does not recompute them.
 *
 * Local response normalisation (lrn.c, lrn_cpu.c), x as (N, C, S):
 *   y[n, c, s] = x[n, c, s] / D^beta,
 *   D = k + alpha / size * sum of x[n, c', s]^2 over c' in [c - size/2, c + (size-1)/2]
 * (channels outside the input count as zeros, the divisor is always size:
 * PyTorch's composition of avg_pool over the padded squares). */
#ifndef TL_NN_NORM_H
#define TL_NN_NORM_H

#include "ndcore/dispatch/tl_dispatch.h"

typedef struct {
  int64_t N, C, S, G; /* x as (N, C, S); G groups of channels (per-group stats) */
  bool per_channel;   /* batch_norm: stats per channel over (N, S) */
  bool rms;           /* rms_norm: the mean is 0 */
  bool train;         /* batch_norm: batch statistics, else the running ones */
  /* batch_norm training on the CPU, input and parameters of one half dtype:
   * the statistics rounded to it as PyTorch's CPU kernel keeps them
   * (norm_loops.h, half_stats); TL_NORM_STATS_FLOAT otherwise */
  enum { TL_NORM_STATS_FLOAT, TL_NORM_STATS_BF16, TL_NORM_STATS_F16 } stats;
  double eps, momentum;
} tl_norm_spec;

typedef struct {
  int64_t N, C, S, size;
  double alpha, beta, k;
} tl_lrn_spec;

/* A device's kernels.  Every tensor is allocated by the entry points: x, g
 * and y/dx of the input's shape and dtype (y, dx contiguous, or channels-last:
 * see channels_last), w and b of C
 * elements (ones and zeros when the caller gave none), mean and rstd
 * contiguous of N*G (or C) elements of the work dtype (float64 for float64,
 * else float32).  forward: in training with running stats given, they are
 * updated in place (running = (1 - momentum) running + momentum batch, the
 * variance unbiased); in evaluation mean and rstd are computed from them.
 * backward: dw and db may be NULL (not wanted). */
typedef struct {
  tl_status (*forward)(const tl_norm_spec *s, const tl_tensor *x, const tl_tensor *w,
                       const tl_tensor *b, tl_tensor *running_mean, tl_tensor *running_var,
                       tl_tensor *y, tl_tensor *mean, tl_tensor *rstd);
  tl_status (*backward)(const tl_norm_spec *s, const tl_tensor *g, const tl_tensor *x,
                        const tl_tensor *mean, const tl_tensor *rstd, const tl_tensor *w,
                        tl_tensor *dx, tl_tensor *dw, tl_tensor *db);
  /* local response norm: y (g NULL), or dx of the gradient g */
  tl_status (*lrn)(const tl_lrn_spec *s, const tl_tensor *g, const tl_tensor *x, tl_tensor *out);
  /* forward and backward take a y and dx laid out channels-last, not only
   * contiguous: the entry points then allocate batch and group norm's
   * results so when they take that layout, instead of laying a row-major
   * result out after the kernel. */
  bool channels_last;
} tl_nn_norm_kernels;

/* The ops' entry points.  Results are zeroed tl_tensors filled here; the
 * optional ones (weight, bias, running stats) are NULL when not given. */
tl_status tl_nn_layer_norm(const tl_tensor *x, int nshape, const int64_t *shape,
                           const tl_tensor *w, const tl_tensor *b, double eps, tl_tensor *y,
                           tl_tensor *mean, tl_tensor *rstd);
tl_status tl_nn_layer_norm_backward(const tl_tensor *g, const tl_tensor *x, int nshape,
                                    const int64_t *shape, const tl_tensor *mean,
                                    const tl_tensor *rstd, const tl_tensor *w, const tl_tensor *b,
                                    tl_tensor *dx, tl_tensor *dw, tl_tensor *db);
/* eps < 0: the machine epsilon of x's dtype. */
tl_status tl_nn_rms_norm(const tl_tensor *x, int nshape, const int64_t *shape, const tl_tensor *w,
                         double eps, tl_tensor *y, tl_tensor *rstd);
tl_status tl_nn_rms_norm_backward(const tl_tensor *g, const tl_tensor *x, int nshape,
                                  const int64_t *shape, const tl_tensor *rstd, const tl_tensor *w,
                                  tl_tensor *dx, tl_tensor *dw);
tl_status tl_nn_group_norm(const tl_tensor *x, const tl_tensor *w, const tl_tensor *b, int64_t N,
                           int64_t C, int64_t HxW, int64_t G, double eps, tl_tensor *y,
                           tl_tensor *mean, tl_tensor *rstd);
tl_status tl_nn_group_norm_backward(const tl_tensor *g, const tl_tensor *x, const tl_tensor *mean,
                                    const tl_tensor *rstd, const tl_tensor *w, int64_t N,
                                    int64_t C, int64_t HxW, int64_t G, tl_tensor *dx,
                                    tl_tensor *dw, tl_tensor *db);
tl_status tl_nn_batch_norm(const tl_tensor *x, const tl_tensor *w, const tl_tensor *b,
                           tl_tensor *running_mean, tl_tensor *running_var, bool train,
                           double momentum, double eps, tl_tensor *y, tl_tensor *mean,
                           tl_tensor *rstd);
tl_status tl_nn_batch_norm_backward(const tl_tensor *g, const tl_tensor *x, const tl_tensor *w,
                                    const tl_tensor *mean, const tl_tensor *rstd, bool train,
                                    tl_tensor *dx, tl_tensor *dw, tl_tensor *db);

tl_status tl_nn_local_response_norm(const tl_tensor *x, int64_t size, double alpha, double beta,
                                    double k, tl_tensor *y);
tl_status tl_nn_local_response_norm_backward(const tl_tensor *g, const tl_tensor *x, int64_t size,
                                             double alpha, double beta, double k, tl_tensor *dx);

/* Register `set` as device's kernels of every op of the family. */
void tl_nn_norm_register_set(tl_device_type device, const tl_nn_norm_kernels *set);

/* The CPU's kernels (norm_cpu.c, lrn_cpu.c). */
tl_status tl_cpu_lrn(const tl_lrn_spec *s, const tl_tensor *g, const tl_tensor *x, tl_tensor *out);
tl_status tl_cpu_norm_forward(const tl_norm_spec *s, const tl_tensor *x, const tl_tensor *w,
                              const tl_tensor *b, tl_tensor *running_mean, tl_tensor *running_var,
                              tl_tensor *y, tl_tensor *mean, tl_tensor *rstd);
tl_status tl_cpu_norm_backward(const tl_norm_spec *s, const tl_tensor *g, const tl_tensor *x,
                               const tl_tensor *mean, const tl_tensor *rstd, const tl_tensor *w,
                               tl_tensor *dx, tl_tensor *dw, tl_tensor *db);

#endif
