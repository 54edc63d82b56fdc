/* tl_loss.h - the losses: nll_loss, the elementwise losses, cross_entropy,
 * the margin losses of class scores and ctc_loss, each with its backward.
 *
 * Legend: input (N, C, d1, ...) seen as (N, C, S), or (C,) unbatched
 * (N = S = 1); target (N, d1, ...) of class indices; weight (C,) or none.
 *   loss[n, s] = -weight[t] * input[n, t, s],  t = target[n, s]
 * and 0 where t == ignore_index.  total_weight is the sum of weight[t] over
 * the targets not ignored; reduction 'mean' divides the sum by it (NaN when
 * it is 0, as PyTorch).  The backward scatters -weight[t] * grad (divided by
 * total_weight for 'mean') into zeros of input's shape.  nll_loss is linear
 * in its input, so the backward op's derivative in grad_output is nll_loss
 * itself (formulas_nn_loss.c). */
#ifndef TL_NN_LOSS_H
#define TL_NN_LOSS_H

#include "ndcore/dispatch/tl_dispatch.h"

typedef enum { TL_REDUCTION_NONE = 0, TL_REDUCTION_MEAN = 1, TL_REDUCTION_SUM = 2 } tl_reduction;

typedef struct {
  int64_t N, C, S;
  tl_reduction reduction;
  int64_t ignore_index;
} tl_nll_spec;

/* A device's kernels.  target is int64 and contiguous, weight (C,) of the
 * input's dtype (ones when none was given), outputs allocated contiguous by
 * the entry points: out (N, d...) or () and total_weight () of the input's
 * dtype; grad_input zeros of the input's shape. */
typedef struct {
  tl_status (*nll)(const tl_nll_spec *s, const tl_tensor *input, const tl_tensor *target,
                   const tl_tensor *weight, tl_tensor *out, tl_tensor *total_weight);
  tl_status (*nll_backward)(const tl_nll_spec *s, const tl_tensor *grad, const tl_tensor *target,
                            const tl_tensor *weight, const tl_tensor *total_weight,
                            tl_tensor *grad_input);
} tl_nn_loss_kernels;

tl_status tl_nn_nll_loss(const tl_tensor *input, const tl_tensor *target, const tl_tensor *weight,
                         int64_t reduction, int64_t ignore_index, tl_tensor *out,
                         tl_tensor *total_weight);
tl_status tl_nn_nll_loss_backward(const tl_tensor *grad, const tl_tensor *input,
                                  const tl_tensor *target, const tl_tensor *weight,
                                  int64_t reduction, int64_t ignore_index,
                                  const tl_tensor *total_weight, tl_tensor *grad_input);

/* ---- elementwise losses ----
 * One op for the losses that are a sum of a function of (input, target)
 * elements, of the same shape (broadcasting, weight and pos_weight are
 * expanded to it by the caller).  With d = x - t:
 *   MSE            d^2                         dx = 2 d
 *   L1             |d|                         dx = sign(d)
 *   SMOOTH_L1      |d| < b ? d^2 / 2b : |d| - b/2          (b = param)
 *   HUBER          |d| < b ? d^2 / 2 : b (|d| - b/2)       (b = param)
 *   BCE            -w (t log x + (1 - t) log(1 - x)), logs clamped at -100
 *   BCE_LOGITS     -w (p t log s(x) + (1 - t) log(1 - s(x))), s the sigmoid,
 *                  p the pos_weight
 *   KL_DIV         t (log t - x), or exp(t) (t - x) when param != 0 (log_target)
 * The backward returns the gradients of input and target (dt = -dx for the
 * first four). */
#include "nn/loss/tl_loss_elem.h" /* tl_loss_kind */

typedef struct {
  tl_loss_kind kind;
  double param;
  tl_reduction reduction;
} tl_loss_spec;

/* Kernels: every operand of the same shape, any layout and float dtype
 * (weight, pos_weight NULL when absent); out (elementwise, or 0-d), dx and
 * dt (the input's shape) allocated contiguous by the entry points. */
typedef struct {
  tl_status (*loss)(const tl_loss_spec *s, const tl_tensor *x, const tl_tensor *t,
                    const tl_tensor *w, const tl_tensor *p, tl_tensor *out);
  tl_status (*loss_backward)(const tl_loss_spec *s, const tl_tensor *g, const tl_tensor *x,
                             const tl_tensor *t, const tl_tensor *w, const tl_tensor *p,
                             tl_tensor *dx, tl_tensor *dt);
} tl_nn_pointwise_loss_kernels;

tl_status tl_nn_pointwise_loss(const tl_tensor *x, const tl_tensor *t, const tl_tensor *w,
                               const tl_tensor *p, int64_t kind, double param, int64_t reduction,
                               tl_tensor *out);
tl_status tl_nn_pointwise_loss_backward(const tl_tensor *g, const tl_tensor *x,
                                        const tl_tensor *t, const tl_tensor *w,
                                        const tl_tensor *p, int64_t kind, double param,
                                        int64_t reduction, tl_tensor *dx, tl_tensor *dt);

/* ---- cross_entropy (cross_entropy.c, cross_entropy_cpu.c) ----
 * input (N, C, d1, ...) seen as (N, C, S), or (C,) unbatched, as nll_loss.
 * Row (n, s) has a target distribution q over the classes, eps the
 * label smoothing:
 *   class index y (target (N, d1, ...)):  q = (1 - eps) onehot(y) + eps / C,
 *                                         the row is 0 where y == ignore_index
 *   probabilities t (the input's shape):  q = (1 - eps) t + eps / C
 *   loss[n, s] = sum_c weight[c] q[c] (lse - x[c]),  lse = log sum_c exp x[c]
 * total_weight: the sum of weight[y] over the targets not ignored (indices)
 * or N*S (probabilities); 'mean' divides the sum by it (PyTorch's rule for
 * either kind).  lse (N*S,) is kept for the backward.  With k = grad[n, s]
 * (or grad / total_weight for 'mean') and p = exp(x - lse):
 *   d x[c] = k (p[c] sum_j weight[j] q[j] - weight[c] q[c])
 *   d t[c] = k (1 - eps) weight[c] (lse - x[c])           (probabilities) */
typedef struct {
  int64_t N, C, S;
  tl_reduction reduction;
  int64_t ignore_index;
  double smoothing;
  bool probs; /* the target holds class probabilities */
} tl_ce_spec;

tl_status tl_nn_cross_entropy(const tl_tensor *input, const tl_tensor *target,
                              const tl_tensor *weight, int64_t reduction, int64_t ignore_index,
                              double label_smoothing, tl_tensor *out, tl_tensor *lse,
                              tl_tensor *total_weight);
/* grad_target is left unallocated for class-index targets. */
tl_status tl_nn_cross_entropy_backward(const tl_tensor *grad, const tl_tensor *input,
                                       const tl_tensor *target, const tl_tensor *weight,
                                       int64_t reduction, int64_t ignore_index,
                                       double label_smoothing, const tl_tensor *lse,
                                       const tl_tensor *total_weight, tl_tensor *grad_input,
                                       tl_tensor *grad_target);

/* ---- margin losses of class scores (margin.c, margin_cpu.c) ----
 * input (N, C), or (C,) unbatched (N = 1).
 *   multi_margin:      target (N,) of classes y;
 *     loss[n] = sum_{i != y} weight[y] max(0, margin - x[y] + x[i])^p / C
 *   multilabel_margin: target (N, C), the row's classes up to its first -1;
 *     is_target[n, i] = 1 where class i is one of them, and
 *     loss[n] = sum_{j targets} sum_{i not is_target} max(0, 1 - x[j] + x[i]) / C
 * 'mean' divides the sum by N.  The backward ops differentiate in input:
 * each positive hinge term adds its slope to x[i] and takes it from x[y]
 * (x[j]). */
typedef struct {
  int64_t N, C;
  tl_reduction reduction;
  int p;         /* multi_margin: 1 or 2 */
  double margin; /* multi_margin */
} tl_margin_spec;

tl_status tl_nn_multi_margin_loss(const tl_tensor *input, const tl_tensor *target, int64_t p,
                                  double margin, const tl_tensor *weight, int64_t reduction,
                                  tl_tensor *out);
tl_status tl_nn_multi_margin_loss_backward(const tl_tensor *grad, const tl_tensor *input,
                                           const tl_tensor *target, int64_t p, double margin,
                                           const tl_tensor *weight, int64_t reduction,
                                           tl_tensor *grad_input);
tl_status tl_nn_multilabel_margin_loss(const tl_tensor *input, const tl_tensor *target,
                                       int64_t reduction, tl_tensor *out, tl_tensor *is_target);
tl_status tl_nn_multilabel_margin_loss_backward(const tl_tensor *grad, const tl_tensor *input,
                                                const tl_tensor *target, int64_t reduction,
                                                const tl_tensor *is_target,
                                                tl_tensor *grad_input);

/* ---- ctc_loss (ctc.c, ctc_cpu.c) ----
 * log_probs (T, N, C); targets padded (N, >= max target length) or the
 * targets of the batch concatenated (sum of target_lengths,), int64 (made
 * contiguous: target n starts at offsets[n]).  On the extended labels
 * l' = (blank, l1, blank, l2, ..., blank) of length L = 2 S_n + 1, in log
 * space (Graves et al. 2006, eq. 6-16):
 *   alpha[0, 0..1] = lp[0, l'_0..1]
 *   alpha[t, s] = lse(alpha[t-1, s], alpha[t-1, s-1], alpha[t-1, s-2] where
 *                 l'_s != l'_{s-2}) + lp[t, l'_s]
 *   nll[n] = -lse(alpha[T_n - 1, L-1], alpha[T_n - 1, L-2])
 * log_alpha (N, T, 2 max S_n + 1) is kept for the backward, which runs
 * beta the same way from the end and returns, as PyTorch,
 *   grad[t, n, c] = g[n] (exp(lp[t, c]) - exp(lse_{s: l'_s = c}(alpha + beta)[t, s]
 *                                            + nll[n] - lp[t, c]))
 * for t < T_n, 0 after: the gradient of the loss in the logits that
 * log_softmax made log_probs of (the exp(lp) term cancels through it).
 * With zero_infinity a sample of infinite loss gets a zero gradient;
 * without, exp(lp) g (PyTorch: NaN), and an lp of -inf a 0 entry (its
 * states are on no path; PyTorch: NaN).  NaN log_probs give a NaN loss. */
typedef struct {
  int64_t T, N, C, maxS, blank;
  const int64_t *input_lengths, *target_lengths, *offsets;
  bool zero_infinity;
} tl_ctc_spec;

tl_status tl_nn_ctc_loss(const tl_tensor *log_probs, const tl_tensor *targets,
                         const int64_t *input_lengths, int64_t n_input_lengths,
                         const int64_t *target_lengths, int64_t n_target_lengths, int64_t blank,
                         bool zero_infinity, tl_tensor *nll, tl_tensor *log_alpha);
tl_status tl_nn_ctc_loss_backward(const tl_tensor *grad, const tl_tensor *log_probs,
                                  const tl_tensor *targets, const int64_t *input_lengths,
                                  int64_t n_input_lengths, const int64_t *target_lengths,
                                  int64_t n_target_lengths, const tl_tensor *nll,
                                  const tl_tensor *log_alpha, int64_t blank, bool zero_infinity,
                                  tl_tensor *grad_input);

/* The kernels of the ops above, one set for the CPU.  Operands as the
 * entry points hand them over: class-index targets contiguous int64
 * (ctc's targets too), probabilities of the input's dtype, weight (C,) or
 * NULL; outputs allocated contiguous (lse, total_weight and log_alpha in
 * the work dtype, tl_nn_work.h; the others in the input's). */
typedef struct {
  tl_status (*cross_entropy)(const tl_ce_spec *s, const tl_tensor *input, const tl_tensor *target,
                             const tl_tensor *weight, tl_tensor *out, tl_tensor *lse,
                             tl_tensor *total_weight);
  tl_status (*cross_entropy_backward)(const tl_ce_spec *s, const tl_tensor *grad,
                                      const tl_tensor *input, const tl_tensor *target,
                                      const tl_tensor *weight, const tl_tensor *lse,
                                      const tl_tensor *total_weight, tl_tensor *grad_input,
                                      tl_tensor *grad_target);
  tl_status (*multi_margin)(const tl_margin_spec *s, const tl_tensor *input,
                            const tl_tensor *target, const tl_tensor *weight, tl_tensor *out);
  tl_status (*multi_margin_backward)(const tl_margin_spec *s, const tl_tensor *grad,
                                     const tl_tensor *input, const tl_tensor *target,
                                     const tl_tensor *weight, tl_tensor *grad_input);
  tl_status (*multilabel_margin)(const tl_margin_spec *s, const tl_tensor *input,
                                 const tl_tensor *target, tl_tensor *out, tl_tensor *is_target);
  tl_status (*multilabel_margin_backward)(const tl_margin_spec *s, const tl_tensor *grad,
                                          const tl_tensor *input, const tl_tensor *target,
                                          const tl_tensor *is_target, tl_tensor *grad_input);
  tl_status (*ctc)(const tl_ctc_spec *s, const tl_tensor *log_probs, const tl_tensor *targets,
                   tl_tensor *nll, tl_tensor *log_alpha);
  tl_status (*ctc_backward)(const tl_ctc_spec *s, const tl_tensor *grad,
                            const tl_tensor *log_probs, const tl_tensor *targets,
                            const tl_tensor *nll, const tl_tensor *log_alpha,
                            tl_tensor *grad_input);
} tl_nn_class_loss_kernels;

/* Shared by the entry points: reduction in 0..2 (else a ValueError naming
 * the op), and an input of class scores checked against a class-index
 * target as nll_loss does, filling N, C, S (loss.c). */
tl_status tl_nn_check_reduction(tl_op op, int64_t reduction);
tl_status tl_nn_check_class_target(tl_op op, const tl_tensor *input, const tl_tensor *target,
                                   const tl_tensor *weight, int64_t *N, int64_t *C, int64_t *S);
/* t as a contiguous int64 tensor in *out (a view when it is one). */
tl_status tl_nn_index_target(const tl_tensor *t, tl_tensor *out);

/* Every loss op's kernel set of one device (loss.c; the CUDA sets register
 * through it too, so both devices serve the same ops). */
void tl_nn_loss_register_sets(tl_device_type device, const tl_nn_loss_kernels *nll,
                              const tl_nn_pointwise_loss_kernels *pointwise,
                              const tl_nn_class_loss_kernels *cls);

/* Shared by the CPU kernels (loss_cpu.c): `out` itself when it has the work
 * dtype, else a work-dtype twin in *tmp (zeroed when `zero`; NULL with the
 * error set on failure), copied into out by tl_loss_finish. */
tl_tensor *tl_loss_work_out(tl_tensor *out, tl_dtype work, bool zero, tl_tensor *tmp);
tl_status tl_loss_finish(tl_tensor *out, tl_tensor *w);

/* The CPU's kernels (loss_cpu.c and the *_cpu.c files named above). */
tl_status tl_cpu_cross_entropy(const tl_ce_spec *s, const tl_tensor *input,
                               const tl_tensor *target, const tl_tensor *weight, tl_tensor *out,
                               tl_tensor *lse, tl_tensor *total_weight);
tl_status tl_cpu_cross_entropy_backward(const tl_ce_spec *s, const tl_tensor *grad,
                                        const tl_tensor *input, const tl_tensor *target,
                                        const tl_tensor *weight, const tl_tensor *lse,
                                        const tl_tensor *total_weight, tl_tensor *grad_input,
                                        tl_tensor *grad_target);
tl_status tl_cpu_multi_margin(const tl_margin_spec *s, const tl_tensor *input,
                              const tl_tensor *target, const tl_tensor *weight, tl_tensor *out);
tl_status tl_cpu_multi_margin_backward(const tl_margin_spec *s, const tl_tensor *grad,
                                       const tl_tensor *input, const tl_tensor *target,
                                       const tl_tensor *weight, tl_tensor *grad_input);
tl_status tl_cpu_multilabel_margin(const tl_margin_spec *s, const tl_tensor *input,
                                   const tl_tensor *target, tl_tensor *out, tl_tensor *is_target);
tl_status tl_cpu_multilabel_margin_backward(const tl_margin_spec *s, const tl_tensor *grad,
                                            const tl_tensor *input, const tl_tensor *target,
                                            const tl_tensor *is_target, tl_tensor *grad_input);
tl_status tl_cpu_ctc(const tl_ctc_spec *s, const tl_tensor *log_probs, const tl_tensor *targets,
                     tl_tensor *nll, tl_tensor *log_alpha);
tl_status tl_cpu_ctc_backward(const tl_ctc_spec *s, const tl_tensor *grad,
                              const tl_tensor *log_probs, const tl_tensor *targets,
                              const tl_tensor *nll, const tl_tensor *log_alpha,
                              tl_tensor *grad_input);

/* The CPU's kernels (loss_cpu.c). */
tl_status tl_cpu_nll_loss(const tl_nll_spec *s, const tl_tensor *input, const tl_tensor *target,
                          const tl_tensor *weight, tl_tensor *out, tl_tensor *total_weight);
tl_status tl_cpu_nll_loss_backward(const tl_nll_spec *s, const tl_tensor *grad,
                                   const tl_tensor *target, const tl_tensor *weight,
                                   const tl_tensor *total_weight, tl_tensor *grad_input);
tl_status tl_cpu_pointwise_loss(const tl_loss_spec *s, const tl_tensor *x, const tl_tensor *t,
                                const tl_tensor *w, const tl_tensor *p, tl_tensor *out);
tl_status tl_cpu_pointwise_loss_backward(const tl_loss_spec *s, const tl_tensor *g,
                                         const tl_tensor *x, const tl_tensor *t,
                                         const tl_tensor *w, const tl_tensor *p, tl_tensor *dx,
                                         tl_tensor *dt);

#endif
