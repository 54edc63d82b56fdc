/* tl_conv.h - convolution, transposed convolution and their weight gradient,
 * over 1 to 3 spatial dims, and im2col/col2im (unfold/fold) on their own.
 *
 * Legend: N batch, g groups, K = prod(kernel), and two sides of one window
 * geometry (kernel, stride, padding, dilation):
 *   the image side   B = (N, Cb, *big)     the input of a convolution
 *   the grid side    S = (N, Cs, *small)   one position per window, L = prod(small)
 *   the weight       W = (Cs, Cb/g, *kernel)
 * Three kernels cover the family, each per sample and group a GEMM:
 *   conv     S = W @ im2col(B) + bias          convolution; conv_transpose's dx
 *   conv_t   B = col2im(W^T @ S) + bias        conv_transpose; convolution's dx
 *   weight   W = sum_n S[n] @ im2col(B[n])^T   both weight gradients
 * A convolution reads B = input and writes S; a transposed convolution reads
 * S = input (its weight is (C_in, C_out/g, *k): the same layout) and writes B.
 * The weight gradient is (S, B) = (grad_output, input) for a convolution and
 * (input, grad_output) for a transposed one.                               */
#ifndef TL_NN_CONV_H
#define TL_NN_CONV_H

#include "ndcore/dispatch/tl_dispatch.h"

#define TL_NN_CONV_MAX_DIMS 3

/* One window geometry, every array of nsp entries. */
typedef struct {
  int nsp;
  int64_t groups;
  int64_t kernel[TL_NN_CONV_MAX_DIMS], stride[TL_NN_CONV_MAX_DIMS];
  int64_t padding[TL_NN_CONV_MAX_DIMS], dilation[TL_NN_CONV_MAX_DIMS];
  int64_t big[TL_NN_CONV_MAX_DIMS], small[TL_NN_CONV_MAX_DIMS];
} tl_nn_conv_geom;

/* The arguments of convolution as given (each list of n entries: one entry
 * stands for every spatial dim).  output_padding is read when transposed. */
typedef struct {
  const int64_t *stride, *padding, *dilation, *output_padding;
  int nstride, npadding, ndilation, noutput_padding;
  bool transposed;
  int64_t groups;
} tl_nn_conv_params;

/* A device's kernels.  Shapes are checked and outputs allocated (on the
 * inputs' device, of the input's dtype; contiguous but for any_layout's) by
 * the entry points; bias may be NULL. */
typedef struct {
  tl_status (*conv)(const tl_tensor *big, const tl_tensor *weight, const tl_tensor *bias,
                    const tl_nn_conv_geom *g, tl_tensor *small);
  tl_status (*conv_t)(const tl_tensor *small, const tl_tensor *weight, const tl_tensor *bias,
                      const tl_nn_conv_geom *g, tl_tensor *big);
  tl_status (*weight)(const tl_tensor *small, const tl_tensor *big, const tl_nn_conv_geom *g,
                      tl_tensor *grad_weight);
  /* (N, C, *big) -> (N, C*K, L) and back (overlaps summed) */
  tl_status (*im2col)(const tl_tensor *big, const tl_nn_conv_geom *g, tl_tensor *cols);
  tl_status (*col2im)(const tl_tensor *cols, const tl_nn_conv_geom *g, tl_tensor *big);
  /* conv and conv_t take a result laid out as PyTorch returns it (channels-last
   * for a channels-last input or weight) and write it in place; otherwise the
   * entry point hands them a row-major one and lays it out afterwards (a copy) */
  bool any_layout;
} tl_nn_conv_kernels;

/* convolution(input, weight, bias, stride, padding, dilation, transposed,
 * output_padding, groups), PyTorch's checks and messages. */
tl_status tl_nn_convolution(const tl_tensor *input, const tl_tensor *weight, const tl_tensor *bias,
                            const tl_nn_conv_params *p, tl_tensor *out);
/* The gradient of convolution's weight (of shape weight_size). */
tl_status tl_nn_convolution_backward_weight(const tl_tensor *grad_output, const tl_tensor *input,
                                            const int64_t *weight_size, int nweight,
                                            const tl_nn_conv_params *p, tl_tensor *grad_weight);
/* im2col(input (N, C, *sp), kernel_size, dilation, padding, stride) and
 * col2im(input (N, C*K, L), output_size, kernel_size, dilation, padding,
 * stride): each list of n entries (one entry stands for every dim). */
typedef struct {
  const int64_t *output_size, *kernel, *dilation, *padding, *stride;
  int noutput_size, nkernel, ndilation, npadding, nstride;
} tl_nn_fold_params;
tl_status tl_nn_im2col(const tl_tensor *input, const tl_nn_fold_params *p, tl_tensor *out);
tl_status tl_nn_col2im(const tl_tensor *input, const tl_nn_fold_params *p, tl_tensor *out);

/* Register `set` as device's kernels of every op of the family (the float dtypes). */
void tl_nn_conv_register_set(tl_device_type device, const tl_nn_conv_kernels *set);

/* The CPU's kernels (conv_cpu.c). */
extern const tl_nn_conv_kernels tl_cpu_conv_kernels;

#endif
