/* conv_line.h - 1-d convolution of stride 1 without columns, for few
 * channels (conv_line.c), private to src/nn/conv: float32 and float64.
 *
 * Legend: per sample X (G*Ci, L) -> Y (G*Co, Lo), G groups of Ci input and
 * Co output channels, K taps of dilation d, stride 1:
 *   Y[o][t] = bias[o] + sum_{c,k} Wk[o][c][k] * Xp[c][t + k*d]
 * with Xp the line X with pl zeros before it (pl < 0: its first -pl samples
 * skipped) and zeros after.  A convolution has Wk = its weight and pl its
 * padding; a transposed convolution of stride 1 (every stride-1
 * convolution's input gradient) is the same sum over the kernel flipped
 * with its channel dims swapped and pl = (K-1)*d - padding.  The weight
 * gradient is the sum read the other way:
 *   dW[o][c][k] += sum_t gY[o][t] * Xp[c][t + k*d].                        */
#ifndef TL_NN_CONV_LINE_H
#define TL_NN_CONV_LINE_H

#include <stdbool.h>
#include <stdint.h>

#include "nn/conv/tl_conv.h"

typedef struct {
  int64_t G, Ci, Co, L, K, d, pl, Lo;
  int64_t Lr, Lp;        /* Lo rounded up to a block of positions; a padded line's length */
  int64_t scratch_numel; /* per thread: the padded lines, then gY's rows padded */
  bool transposed, f64;
  void *wk;              /* the packed weight [G][Co][Ci][K] (work dtype) */
} tl_conv_line;

/* Whether the path takes this geometry, filling p (as tl_conv_direct_plan:
 * a convolution reads cin channels and writes cout; transposed, the
 * reverse); weight_grad: for the weight gradient of a convolution's
 * geometry. */
bool tl_conv_line_plan(tl_conv_line *p, const tl_nn_conv_geom *g, bool transposed,
                       bool weight_grad, int64_t cin, int64_t cout, bool f64);
/* Pack the weight (NULL for the weight gradient); false: out of memory. */
bool tl_conv_line_pack(tl_conv_line *p, const void *weight);
void tl_conv_line_free(tl_conv_line *p);
/* One sample: x (G*Ci, L) -> y (G*Co, Lo) (+ bias (G*Co) when not NULL). */
void tl_conv_line_sample(const tl_conv_line *p, const void *x, const void *bias, void *y,
                         void *scratch);
/* dw (G*Co, Ci, K) += gy (G*Co, Lo) correlated with x (G*Ci, L). */
void tl_conv_line_weight_sample(const tl_conv_line *p, const void *x, const void *gy, void *dw,
                                void *scratch);

#endif
