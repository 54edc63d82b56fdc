/* tl_gpu_seq.h - what the C side (rnn_gpu.c, attention_gpu.c) hands the
 * CUDA kernels of the sequence families: the recurrent cells' fused rows
 * (rnn.cu) and attention's row kernels (attention.cu).
 *
 * Plain data only, read by C and by CUDA C++ (as tl_gpu_kernels.h): the .cu
 * side cannot include the op headers.  Every float operand is in the work
 * type, float (f64 == 0) or double, on the device.  Each launcher queues its
 * kernels on `stream` (a cudaStream_t) and returns the CUDA error code of the
 * launch (0 when queued); none waits for the device. */
#ifndef TL_GPU_SEQ_H
#define TL_GPU_SEQ_H

#include <stdint.h>

#include "nn/attention/attention_tile.h"

#ifdef __cplusplus
extern "C" {
#endif

/* The C side: register the CUDA rows of the recurrent and attention ops
 * (called once from tl_gpu_kernels_register). */
void tl_gpu_seq_register(void);

/* ---- recurrent cells (rnn.cu) ----
 * tl_rnn_rows of tl_rnn.h, field for field (rnn_gpu.c checks the kinds):
 * operand k's row r at in[k] + r * ld_in[k] elements; NULL biases are
 * zeros, and LSTM's hg NULL means in[0] is the whole pre-activation. */
enum {
  TL_GPU_RNN_LSTM,
  TL_GPU_RNN_LSTM_BACKWARD,
  TL_GPU_RNN_GRU,
  TL_GPU_RNN_GRU_BACKWARD,
  TL_GPU_RNN_TANH,
  TL_GPU_RNN_RELU,
  TL_GPU_RNN_TANH_BACKWARD,
  TL_GPU_RNN_RELU_BACKWARD
};
typedef struct {
  int kind;
  int64_t n, h;
  int f64;
  const void *in[5];
  int64_t ld_in[5];
  void *out[5];
  int64_t ld_out[5];
} tl_gpu_rnn_rows;

/* A thread per (row, hidden unit): the kind's gate math (rnn.cu). */
int tl_gpu_rnn_rows_launch(const tl_gpu_rnn_rows *rows, void *stream);
/* out[c] = sum over the n rows (ld elements apart) of g's column c, c < cols;
 * a thread per column adds its rows in order (n = 0: zeros). */
int tl_gpu_rnn_colsum_launch(int f64, const void *g, int64_t n, int64_t cols, int64_t ld,
                             void *out, void *stream);

/* ---- attention (attention.cu) ----
 * A tile of score rows (attention_tile.h: which query a row is, the masks,
 * dropout), rows * S scores contiguous; lse and d indexed as it says. */
/* Forward: s (rows, S) holds scale Q K^T; masks it, writes the softmax
 * probabilities (dropped out: times 0 or 1 / (1 - p)) in place and lse. */
int tl_gpu_attn_softmax_launch(const tl_attn_tile *t, void *s, void *lse, void *stream);
/* Backward, 1: s holds scale Q K^T; p = exp(s + mask - lse) in place, and
 * pd = p dropped out (when dropout_p > 0). */
int tl_gpu_attn_probs_launch(const tl_attn_tile *t, void *s, const void *lse, void *pd,
                             void *stream);
/* Backward, 2: dp holds dO V^T; dp = p (Z dp - D) in place (Z the dropout
 * multiplier, 1 without dropout). */
int tl_gpu_attn_dscores_launch(const tl_attn_tile *t, const void *p, void *dp, const void *d,
                               void *stream);
/* d[r] = sum_x dout[r, x] o[r, x] for rows r < n of Ev elements (a warp a row). */
int tl_gpu_attn_rowdot_launch(int f64, const void *dout, const void *o, int64_t n, int64_t ev,
                              void *d, void *stream);

#ifdef __cplusplus
}
#endif

#endif
