/* tl_rnn.h - the fused gate kernels of one recurrent time step, and the
 * layer op that runs them over a whole sequence.
 *
 * A layer (one direction of one layer, all time steps: _rnn_layer) runs
 * the input projection of many steps as one GEMM (on the CPU 64 at a
 * time, on CUDA the whole sequence), then per step the hidden projection
 * (a GEMM of the step's rows) and one of these kernels for everything
 * elementwise; its backward op runs the steps in reverse and the weight
 * gradients as one GEMM each at the end (rnn_layer_cpu.c, rnn_device.c).
 * The driver (torchlike/nn/modules/rnn.py) stacks layers and directions.
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
#include "nn/tl_nn_work.h"

typedef enum {
  TL_RNN_LSTM,          /* in: ig hg cx bi bh     out: hy cy ws */
  TL_RNN_LSTM_BACKWARD, /* in: ghy gcy cx cy ws   out: gates gcx gbias */
  TL_RNN_GRU,           /* in: ig hg hx bi bh     out: hy ws */
  TL_RNN_GRU_BACKWARD,  /* in: ghy ws             out: gig ghg ghx gbi gbh */
  TL_RNN_TANH,          /* in: ig hg - bi bh      out: hy */
  TL_RNN_RELU,
  TL_RNN_TANH_BACKWARD, /* in: ghy hy             out: gates */
  TL_RNN_RELU_BACKWARD,
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

/* ---- the layer op -------------------------------------------------------------------
 * Shapes: L steps, N batch (the first step's), R rows of the sequence, I
 * input size, H hidden size, P output size (proj_size, else H), G gates * H.
 * The sequence is R rows of I: step t's rows are batch_sizes[t] rows from
 * offset sum(batch_sizes[:t]) (PyTorch's PackedSequence data; an unpacked
 * (L, N, I) input is L steps of N).  Batch sizes do not grow, so step t
 * reads and writes the first batch_sizes[t] rows of the (N, *) state: a
 * finished sequence keeps its state, and in reverse one not yet started
 * still holds its initial state.
 * Workspace rows (R, W), what backward reads per row:
 *   LSTM  i f g o (4H) | c_prev (H) | c (H) | h_prev (P) | o tanh(c) (H, proj only)
 *   GRU   r z n h_prev hn (5H, the cell's workspace)
 *   RNN   h (H) | h_prev (H)                                                  */
typedef enum { TL_RNN_MODE_LSTM, TL_RNN_MODE_GRU, TL_RNN_MODE_TANH, TL_RNN_MODE_RELU } tl_rnn_mode;

typedef struct {
  tl_rnn_mode mode;
  bool reverse;
  int64_t steps, batch, rows, input, hidden, out; /* L N R I H P */
  const int64_t *batch_sizes;                     /* L entries */
  /* forward: in x hx cx w_ih w_hh b_ih b_hh w_hr; out output hy cy workspace */
  const tl_tensor *x, *hx, *cx, *w_ih, *w_hh, *b_ih, *b_hh, *w_hr;
  tl_tensor *output, *hy, *cy, *workspace;
  /* backward: in (with x and w_*) the forward's workspace and the gradients
   * of output hy cy (NULL: zeros); out the gradients of x hx cx w_ih w_hh
   * b_ih b_hh w_hr (NULL: not wanted) */
  const tl_tensor *saved, *g_output, *g_hy, *g_cy;
  tl_tensor *d_x, *d_hx, *d_cx, *d_w_ih, *d_w_hh, *d_b_ih, *d_b_hh, *d_w_hr;
} tl_rnn_layer_call;

/* G / H: the gate blocks of a mode */
static inline int tl_rnn_gates(tl_rnn_mode mode)
{
  return mode == TL_RNN_MODE_LSTM ? 4 : mode == TL_RNN_MODE_GRU ? 3 : 1;
}

/* Workspace row width W of a layer (above). */
static inline int64_t tl_rnn_workspace_width(tl_rnn_mode mode, int64_t h, int64_t p, bool proj)
{
  return mode == TL_RNN_MODE_LSTM ? 6 * h + p + (proj ? h : 0) : mode == TL_RNN_MODE_GRU ? 5 * h
                                                                                         : 2 * h;
}

/* A layer call's sizes, as every device's layer driver reads them. */
typedef struct {
  bool f64;
  size_t es;        /* element size */
  int64_t H, P, G, W, N;
  int64_t hprev;    /* column of h_prev in a workspace row */
  int64_t *off;     /* off[t]: step t's first row (steps + 1 entries) */
} tl_rnn_sizes;

/* d for call c; d->off is malloc'd (free it), or the error is set. */
tl_status tl_rnn_sizes_init(tl_rnn_sizes *d, const tl_rnn_layer_call *c);

typedef struct {
  tl_status (*cell)(const tl_rnn_call *call);
  tl_status (*layer)(const tl_rnn_layer_call *call);
  tl_status (*layer_backward)(const tl_rnn_layer_call *call);
} tl_nn_rnn_kernels;

/* Register `set` as device's kernels of the family's seven ops (the CPU's at
 * import, CUDA's from tl_gpu_kernels_register, which runs first). */
void tl_nn_rnn_register_set(tl_device_type device, const tl_nn_rnn_kernels *set);

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

/* One direction of one layer over the sequence (see above).  batch_sizes
 * NULL: x is (L, N, I) and output (L, N, P); else x is (R, I), output (R, P)
 * and batch_sizes a 1-d int64 CPU tensor.  cx, cy: LSTM only (cy left
 * unallocated otherwise); w_hr: LSTM with proj_size only. */
tl_status tl_nn_rnn_layer(const tl_tensor *x, const tl_tensor *hx, const tl_tensor *cx,
                          const tl_tensor *w_ih, const tl_tensor *w_hh, const tl_tensor *b_ih,
                          const tl_tensor *b_hh, const tl_tensor *w_hr,
                          const tl_tensor *batch_sizes, int64_t mode, bool reverse,
                          tl_tensor *output, tl_tensor *hy, tl_tensor *cy, tl_tensor *workspace);
/* Its gradients: d_x only when input_grad, the biases' when has_bias, d_cx
 * for LSTM, d_w_hr with w_hr (the others left unallocated). */
tl_status tl_nn_rnn_layer_backward(const tl_tensor *g_output, const tl_tensor *g_hy,
                                   const tl_tensor *g_cy, const tl_tensor *x,
                                   const tl_tensor *w_ih, const tl_tensor *w_hh,
                                   const tl_tensor *w_hr, const tl_tensor *workspace,
                                   const tl_tensor *batch_sizes, int64_t mode, bool reverse,
                                   bool has_bias, bool input_grad, tl_tensor *d_x,
                                   tl_tensor *d_hx, tl_tensor *d_cx, tl_tensor *d_w_ih,
                                   tl_tensor *d_w_hh, tl_tensor *d_b_ih, tl_tensor *d_b_hh,
                                   tl_tensor *d_w_hr);

/* rnn.c's check of an operand: t (if given) must be a floating tensor of
 * `dtype` with shape (rows, cols), or (cols) when rows < 0; the error names
 * op `name` and the operand `what`. */
tl_status tl_rnn_check(const char *name, const char *what, const tl_tensor *t, tl_dtype dtype,
                       int64_t rows, int64_t cols);

/* rnn.c's runner of an entry point: inputs (NULL: absent) to the work dtype
 * and contiguous, outputs (NULL: not wanted) allocated in it with shapes[k]
 * on the inputs' device, invoke() with the device's kernel set, then each
 * output cast to `dtype`. */
enum { TL_RNN_MAX_IO = 9 };
typedef struct {
  int ndim;
  int64_t d[3];
} tl_rnn_shape;
typedef tl_status (*tl_rnn_invoke)(const tl_nn_rnn_kernels *set, const tl_tensor *const *in,
                                   tl_tensor *const *out, void *ctx);
tl_status tl_rnn_run(tl_op op, const tl_tensor *const *ins, int nin, const tl_rnn_shape *shapes,
                     tl_tensor *const *outs, int nout, tl_dtype dtype, tl_rnn_invoke invoke,
                     void *ctx);

/* ---- the CPU's kernels ---------------------------------------------------------------
 * rnn_cpu.c: the cell kernel, and its rows on raw memory for the layer loop:
 * operand k's row r at in[k] + r * ld_in[k] elements (NULL in: zeros for
 * biases, absent otherwise; LSTM's hg absent: in[0] is the whole
 * pre-activation, biases included), no bias gradients.  m > 0: only units
 * [j0, j0 + m) of each row (of every gate block; the layer loop splits a
 * step by units), else all h. */
typedef struct {
  tl_rnn_kind kind;
  int64_t n, h;
  int64_t j0, m;
  bool f64;
  const void *in[5];
  int64_t ld_in[5];
  void *out[5];
  int64_t ld_out[5];
} tl_rnn_rows;

/* Row widths of the cell kernels' operands (tl_rnn_call's in and out), in
 * units of h (0: a vector): the CPU's cell and the device-neutral one. */
static const int8_t tl_rnn_in_width[][5] = {
  [TL_RNN_LSTM] = {4, 4, 1, 0, 0},          [TL_RNN_LSTM_BACKWARD] = {1, 1, 1, 1, 4},
  [TL_RNN_GRU] = {3, 3, 1, 0, 0},           [TL_RNN_GRU_BACKWARD] = {1, 5},
  [TL_RNN_TANH] = {1, 1, 0, 0, 0},          [TL_RNN_RELU] = {1, 1, 0, 0, 0},
  [TL_RNN_TANH_BACKWARD] = {1, 1},          [TL_RNN_RELU_BACKWARD] = {1, 1},
};
static const int8_t tl_rnn_out_width[][5] = {
  [TL_RNN_LSTM] = {1, 1, 4},   [TL_RNN_LSTM_BACKWARD] = {4, 1}, [TL_RNN_GRU] = {1, 5},
  [TL_RNN_GRU_BACKWARD] = {3, 3, 1}, [TL_RNN_TANH] = {1}, [TL_RNN_RELU] = {1},
  [TL_RNN_TANH_BACKWARD] = {1}, [TL_RNN_RELU_BACKWARD] = {1},
};

tl_status tl_cpu_rnn_cell(const tl_rnn_call *call);
void tl_cpu_rnn_rows(const tl_rnn_rows *rows);
/* out[c] = sum over the n rows (ld elements apart) of g's column c, c < cols */
void tl_cpu_rnn_colsum(bool f64, const void *g, int64_t n, int64_t cols, int64_t ld, void *out);
/* rnn_layer_cpu.c */
tl_status tl_cpu_rnn_layer(const tl_rnn_layer_call *call);
tl_status tl_cpu_rnn_layer_backward(const tl_rnn_layer_call *call);

/* ---- the device-neutral driver (rnn_device.c) ------------------------------------------
 * The layer loop and the cell for a device whose memory host code cannot
 * read: every element is touched by the device's primitives below, every
 * pointer is the device's (raw, row-major, the work dtype), the scratch is
 * device tensors, and only the shapes and batch sizes live on the host.
 * CUDA lends cuBLAS and its kernels (src/gpu/seq); the emulated fake device
 * the CPU's loops, so the driver runs without a GPU too. */
typedef struct {
  tl_nn_device_gemm gemm; /* tl_nn_work.h */
  /* the cell rows, as tl_cpu_rnn_rows (no NULL gradients) */
  tl_status (*rows)(tl_device dev, const tl_rnn_rows *rows);
  /* n rows of `bytes` bytes, ld_* bytes apart: dst = src, or zeros when src is NULL */
  tl_status (*copy)(tl_device dev, void *dst, int64_t ld_dst, const void *src, int64_t ld_src,
                    int64_t n, int64_t bytes);
  /* dst[i] += src[i], i < count */
  tl_status (*add)(tl_device dev, bool f64, void *dst, const void *src, int64_t count);
  /* as tl_cpu_rnn_colsum */
  tl_status (*colsum)(tl_device dev, bool f64, const void *g, int64_t n, int64_t cols,
                      int64_t ld, void *out);
} tl_rnn_device_ops;

tl_status tl_rnn_device_cell(const tl_rnn_device_ops *ops, const tl_rnn_call *call);
tl_status tl_rnn_device_layer(const tl_rnn_device_ops *ops, const tl_rnn_layer_call *call);
tl_status tl_rnn_device_layer_backward(const tl_rnn_device_ops *ops, const tl_rnn_layer_call *call);

#endif
