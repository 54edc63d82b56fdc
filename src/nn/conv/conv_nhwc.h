/* conv_nhwc.h - 2-d convolutions on channels-last tensors (conv_nhwc.c),
 * private to src/nn/conv: the CPU's kernels for operands already laid out
 * (N, H, W, C) in memory, so that no operand or result is copied to or from
 * row-major.
 *
 * A channels-last image is a row-major matrix of N*H*W pixel rows by C
 * columns, so each kernel is a GEMM on such matrices:
 *   conv    S (N*Ho*Wo, Cs) = patches(B) (N*Ho*Wo, K*Cb) @ W'^T + bias
 *   conv_t  B = scatter(S @ W' (N*Ho*Wo, K*Cb)) + bias
 *   weight  W' (Cs, K*Cb) = S^T @ patches(B)
 * with W' the weight (Cs, Cb, kh, kw) seen as (Cs, kh, kw, Cb): a pixel's
 * patch row is kh*kw runs of Cb contiguous channels.  One group, float32 or
 * float64 operands of the result's dtype; anything else stays on
 * conv_cpu.c's row-major path. */
#ifndef TL_NN_CONV_NHWC_H
#define TL_NN_CONV_NHWC_H

#include "nn/conv/tl_conv.h"

/* Each runs the kernel when the operands fit (*done true, the status the
 * kernel's), else leaves everything as it is (*done false, TL_OK). */
tl_status tl_conv_nhwc_conv(const tl_tensor *big, const tl_tensor *weight, const tl_tensor *bias,
                            const tl_nn_conv_geom *g, tl_tensor *small, bool *done);
tl_status tl_conv_nhwc_conv_t(const tl_tensor *small, const tl_tensor *weight,
                              const tl_tensor *bias, const tl_nn_conv_geom *g, tl_tensor *big,
                              bool *done);
tl_status tl_conv_nhwc_weight(const tl_tensor *small, const tl_tensor *big,
                              const tl_nn_conv_geom *g, tl_tensor *grad_weight, bool *done);

#endif
