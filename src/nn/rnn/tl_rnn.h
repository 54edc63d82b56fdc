/* tl_rnn.h - the fused gate kernels of one recurrent time step.
 *
 * A layer's driver (torchlike/nn/modules/rnn.py) computes the input
 * projection of a whole sequence as one GEMM, then per step one GEMM for the
 * hidden projection and one of these kernels for everything elementwise.
 * Shapes: N batch rows, H hidden size, G gates (LSTM 4: i f g o; GRU 3:
 * r z n; RNN 1), gates (N, G*H) in PyTorch's block order.
 *
 *   LSTM:  i, f, o = sigmoid, g = tanh of ig + hg + b_ih + b_hh
 *          cy = f cx + i g,  hy = o tanh(cy);  workspace (N, 4H) = i f g o
 *   GRU:   r, z = sigmoid(ig + hg + b),  hn = hg_n + b_hn (b_hn inside r*)
 *          n = tanh(ig_n + b_in + r hn),  hy = n + z (hx - n)
 *          workspace (N, 5H) = r z n hx hn
 *   RNN:   hy = tanh or relu(ig + hg + b_ih + b_hh)
 * The backward kernels read the workspace (and cx, cy), not the inputs:
 * the gradient of the pre-activation gates, which is also that of both
 * gate inputs, and of the previous state. */
#ifndef TL_NN_RNN_H
#define TL_NN_RNN_H

#include "ndcore/dispatch/tl_dispatch.h"

typedef enum {
  TL_RNN_LSTM,          /* in: ig hg cx bi bh     out: hy cy ws */
  TL_RNN_LSTM_BACKWARD, /* in: ghy gcy cx cy ws   out: gates gcx gbias */
  TL_RNN_GRU,           /* in: ig hg hx bi bh     out: hy ws */
  TL_RNN_GRU_BACKWARD,  /* in: ghy ws             out: gig ghg ghx gbi gbh */
  TL_RNN_TANH,          /* in: ig hg - bi bh      out: hy */
  TL_RNN_RELU,
} tl_rnn_kind;

/* One kernel call: every tensor contiguous, of the work dtype (float or
 * double, tl_nn_work.h); NULL for absent inputs (biases, a gradient that did
 * not arrive: zeros) and for outputs not asked for (bias gradients). */
typedef struct {
  tl_rnn_kind kind;
  int64_t n, h;
  const tl_tensor *in[5];
  tl_tensor *out[5];
} tl_rnn_call;

typedef struct {
  tl_status (*cell)(const tl_rnn_call *call);
} tl_nn_rnn_kernels;

/* Entry points: outputs in the inputs' dtype, on their device. */
tl_status tl_nn_lstm_cell(const tl_tensor *ig, const tl_tensor *hg, const tl_tensor *cx,
                          const tl_tensor *bi, const tl_tensor *bh, tl_tensor *hy, tl_tensor *cy,
                          tl_tensor *workspace);
/* gbias (4H) only when has_bias; ghy/gcy may be NULL (zeros). */
tl_status tl_nn_lstm_cell_backward(const tl_tensor *ghy, const tl_tensor *gcy, const tl_tensor *cx,
                                   const tl_tensor *cy, const tl_tensor *workspace, bool has_bias,
                                   tl_tensor *ggates, tl_tensor *gcx, tl_tensor *gbias);
tl_status tl_nn_gru_cell(const tl_tensor *ig, const tl_tensor *hg, const tl_tensor *hx,
                         const tl_tensor *bi, const tl_tensor *bh, tl_tensor *hy,
                         tl_tensor *workspace);
/* gbi, gbh (3H) only when has_bias. */
tl_status tl_nn_gru_cell_backward(const tl_tensor *ghy, const tl_tensor *workspace, bool has_bias,
                                  tl_tensor *gig, tl_tensor *ghg, tl_tensor *ghx, tl_tensor *gbi,
                                  tl_tensor *gbh);
tl_status tl_nn_rnn_cell(const tl_tensor *ig, const tl_tensor *hg, const tl_tensor *bi,
                         const tl_tensor *bh, bool relu, tl_tensor *hy);

/* The CPU's kernel (rnn_cpu.c). */
tl_status tl_cpu_rnn_cell(const tl_rnn_call *call);

#endif
