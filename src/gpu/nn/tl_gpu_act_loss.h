/* tl_gpu_act_loss.h - what the C side (act_loss_gpu.c) hands the CUDA
 * kernels of softmax, the activations, embedding and the losses
 * (softmax.cu, activation.cu, embedding.cu, loss.cu).
 *
 * Plain data only, read by C and by CUDA C++ (as tl_gpu_kernels.h).  Every
 * float operand is in the work type: float (f64 == 0; float32, and float16/
 * bfloat16 cast by the C side) or double; indices are contiguous int64.
 * Each launcher queues its kernels on `stream` (a cudaStream_t) and returns
 * the CUDA error code of the launches (0 when queued).  Only
 * tl_gpu_index_check waits for the device: it returns data (a bad index);
 * the ops use tl_gpu_index_defer, which does not. */
#ifndef TL_GPU_ACT_LOSS_H
#define TL_GPU_ACT_LOSS_H

#include <stdint.h>

#include "gpu/tl_device_errors.h"
#include "gpu/tl_gpu_kernels.h"

#ifdef __cplusplus
extern "C" {
#endif

/* The C side: register these kernel sets as the CUDA rows of their ops
 * (called once from tl_gpu_kernels_register). */
void tl_gpu_nn_act_loss_register(void);

/* ---- softmax (softmax.cu) ----
 * x (outer, len, inner) contiguous; g NULL: y = softmax or log_softmax of x
 * along len; else x is the forward's output and y its input's gradient. */
int tl_gpu_softmax_launch(const void *x, const void *g, void *y, int64_t outer, int64_t len,
                          int64_t inner, int log, int f64, void *stream);

/* ---- activations (activation.cu) ----
 * The kinds are tl_act_kind's (tl_activation.h), checked at compile time by
 * act_loss_gpu.c: the .cu side cannot include the op headers (its own op
 * enum, tl_cuda_launch.cuh's, would clash with tl_dispatch.h's). */
enum {
  TL_GPU_ACT_RELU,
  TL_GPU_ACT_THRESHOLD,
  TL_GPU_ACT_LEAKY_RELU,
  TL_GPU_ACT_ELU,
  TL_GPU_ACT_GELU,
  TL_GPU_ACT_SILU,
  TL_GPU_ACT_MISH,
  TL_GPU_ACT_SOFTPLUS,
  TL_GPU_ACT_SOFTSIGN,
  TL_GPU_ACT_HARDTANH,
  TL_GPU_ACT_HARDSIGMOID,
  TL_GPU_ACT_HARDSWISH,
  TL_GPU_ACT_HARDSHRINK,
  TL_GPU_ACT_SOFTSHRINK,
  TL_GPU_ACT_TANHSHRINK,
  TL_GPU_ACT_LOG_SIGMOID,
  TL_GPU_ACT_PRELU,
  TL_GPU_ACT_GLU,
  TL_GPU_ACT_COUNT
};
/* Elementwise through tl_cuda_launch.cuh's launcher over a plan whose
 * operands are in the work type.  params.real[0..2]: the kind's scalars
 * a, b, c; params.i: the kind (tl_act_kind) | which << 8.
 *   forward   arity 1: (y, x);  arity 2 (prelu, glu): (y, x, w)
 *   backward  arity 2: (dx, g, x);  arity 3 (prelu, glu): (d, g, x, w),
 *             which 0: the gradient of x (glu: of a), 1: of w (glu: of b) */
int tl_gpu_act_forward_launch(int f64, int arity, const tl_gpu_plan *plan,
                              const tl_gpu_params *params, void *stream);
int tl_gpu_act_backward_launch(int f64, int arity, const tl_gpu_plan *plan,
                               const tl_gpu_params *params, void *stream);

/* ---- index checks (embedding.cu) ----
 * Is every idx[i] (i < n) in [0, hi), or equal to `skip` when has_skip?
 * scratch: one device uint64.  Waits for the stream; *bad = 1 and *value =
 * the first bad index (lowest position) when not, else *bad = 0. */
int tl_gpu_index_check(const int64_t *idx, int64_t n, int64_t hi, int64_t skip, int has_skip,
                       unsigned long long *scratch, int *bad, int64_t *value, void *stream);
/* The same test without a wait: safe (n int64) = idx with every bad index
 * replaced by 0 (hi > 0), for the op's kernels to read; a bad index is
 * recorded in *err (the device's error record, tl_device_errors.h: the
 * first recorder wins) with op, status and kind, its position as `dim`
 * (-1 past int32) and hi as the size. */
int tl_gpu_index_defer(const int64_t *idx, int64_t *safe, int64_t n, int64_t hi, int64_t skip,
                       int has_skip, tl_device_error *err, int op, int status, int kind,
                       void *stream);

/* ---- embedding (embedding.cu) ----
 * gather: out (n, E) = w[idx] rows, any dtype of itemsize bytes.
 * count: count[v] += 1 for each idx (count: V zeroed int64).
 * scatter: dw (V, E, zeroed) += g (n, E) rows at idx, skipping `pad`,
 * each divided by count[idx] when count is not NULL.  Atomic adds: the
 * order of the additions (and the last bits of a sum) varies run to run. */
int tl_gpu_embedding_gather(const char *w, const int64_t *idx, char *out, int64_t n, int64_t E,
                            int itemsize, void *stream);
int tl_gpu_embedding_count(const int64_t *idx, int64_t n, int64_t *count, void *stream);
int tl_gpu_embedding_scatter(const void *g, const int64_t *idx, const int64_t *count, void *dw,
                             int64_t n, int64_t E, int64_t pad, int f64, void *stream);

/* bags: bounds (B + 1,), out (B, E) zeroed, bag_size (B,), argmax (B, E)
 * for max (mode 2; else NULL), psw (n,) or NULL; mode 0 sum, 1 mean. */
typedef struct {
  const void *w, *psw, *g;
  void *out, *dw;
  const int64_t *idx, *bounds, *bag_of;
  int64_t *bag_size, *argmax;
  int64_t n, B, E, pad;
  int mode, f64;
} tl_gpu_bag_args;

int tl_gpu_embedding_bag_forward(const tl_gpu_bag_args *a, void *stream);
/* dw (V, E, zeroed) from g (B, E): idx, bag_of, bag_size, argmax, psw as
 * the forward made them. */
int tl_gpu_embedding_bag_backward(const tl_gpu_bag_args *a, void *stream);

/* ---- losses (loss.cu) ----
 * The class losses' operands (tl_loss.h's legend): x (N, C, S), y (N*S)
 * class indices (checked by the C side) or t (N, C, S) probabilities, w (C)
 * or NULL.  scratch: 2 N*S doubles (the rows' losses and weights), summed
 * in a fixed order by one block, so results do not vary run to run. */
typedef struct {
  int64_t N, C, S, ignore_index;
  int reduction; /* tl_reduction */
  int f64;
  double eps; /* cross_entropy's label smoothing */
  const void *x, *t, *w, *g, *lse_in, *tw_in;
  const int64_t *y;
  void *out, *tw, *lse, *dx, *dt;
  double *scratch;
} tl_gpu_class_loss;

int tl_gpu_nll_launch(const tl_gpu_class_loss *a, void *stream);
int tl_gpu_nll_backward_launch(const tl_gpu_class_loss *a, void *stream);
int tl_gpu_cross_entropy_launch(const tl_gpu_class_loss *a, void *stream);
int tl_gpu_cross_entropy_backward_launch(const tl_gpu_class_loss *a, void *stream);

/* The elementwise losses (tl_loss_kind), n elements of contiguous x, t and
 * w, p (or NULL); scratch: n doubles for a reduction. */
typedef struct {
  int kind, reduction, f64;
  double param;
  int64_t n;
  const void *g, *x, *t, *w, *p;
  void *out, *dx, *dt;
  double *scratch;
} tl_gpu_pointwise_loss;

/* The margin losses (tl_loss.h): x (N, C) contiguous, y (N,) classes
 * (multi) or (N, C) targets ended by -1 (multilabel), checked by the C
 * side; w (C) or NULL; is (N, C): multilabel's is_target, written by the
 * forward (is_out), read by the backward (is_in).  scratch: N doubles. */
typedef struct {
  int64_t N, C;
  int reduction, p, f64, multi;
  double margin;
  const void *x, *w, *g, *is_in;
  const int64_t *y;
  void *out, *dx, *is_out;
  double *scratch;
} tl_gpu_margin_loss;

int tl_gpu_margin_launch(const tl_gpu_margin_loss *a, void *stream);
int tl_gpu_margin_backward_launch(const tl_gpu_margin_loss *a, void *stream);

/* ctc_loss (tl_loss.h's legend): lp (T, N, C) contiguous, tg the targets
 * (checked), target n at tg + offsets[n]; in_len, tg_len, offsets: N int64
 * each, on the device; la (N, T, W = 2 maxS + 1) log_alpha; out: nll (N)
 * forward, grad_input (T, N, C) backward; scratch (backward): N T (W + C)
 * work-type values for beta and the per-label sums. */
typedef struct {
  int64_t T, N, C, maxS, blank;
  int zero_infinity, f64;
  const int64_t *tg, *in_len, *tg_len, *offsets;
  const void *lp, *g, *nll;
  void *la, *out, *scratch;
} tl_gpu_ctc;

int tl_gpu_ctc_launch(const tl_gpu_ctc *a, void *stream);
int tl_gpu_ctc_backward_launch(const tl_gpu_ctc *a, void *stream);

/* ---- sampling grids (grid.cu) ----
 * spec: tl_grid_spec's fields (nn/grid/tl_grid_spec.h), passed as its
 * bytes' owner; x (N, C, *in), grid (N, *out, n), g and y (N, C, *out), dx
 * (zeroed) and dgrid, all contiguous in the work type; dx or dgrid NULL
 * when not wanted.  affine: theta (N, n, n + 1) -> grid, or with transpose
 * dgrid -> dtheta; out = (D, H, W) of the grid (D = 1 for n = 2). */
struct tl_gpu_grid_args {
  const void *spec; /* const tl_grid_spec * */
  const void *x, *grid, *g;
  void *y, *dx, *dgrid;
  int f64;
};
int tl_gpu_grid_sample_launch(const struct tl_gpu_grid_args *a, void *stream);
int tl_gpu_grid_backward_launch(const struct tl_gpu_grid_args *a, void *stream);
int tl_gpu_affine_grid_launch(int n, int64_t N, const int64_t out[3], int align_corners,
                              int transpose, const void *in, void *result, int f64, void *stream);

int tl_gpu_pointwise_loss_launch(const tl_gpu_pointwise_loss *a, void *stream);
int tl_gpu_pointwise_loss_backward_launch(const tl_gpu_pointwise_loss *a, void *stream);

#ifdef __cplusplus
}
#endif
#endif
