/* tl_activation.h - the elementwise activations and their backward ops.
 *
 * Every activation is one op of the registry (relu, gelu, elu ...) and has a
 * backward op (gelu_backward(grad, x) = grad * gelu'(x) ...), each with its
 * own derivative (src/grad/formulas_nn_activation.c).  All of them run
 * through one kernel shape: a kind (tl_act_kind), a block of scalar
 * parameters, and contiguous operands in the work type (float for
 * float32/float16/bfloat16, double for float64).
 *
 *   forward   y  = f(x)            (prelu and rrelu: f(x, w), w per element)
 *   backward  dx = g * f'(x)       (prelu: also dw = g * df/dw, per element)
 *
 * relu's backward is threshold_backward(g, y, 0): it reads the output, so
 * relu keeps its output on the tape and not its input, as PyTorch.
 * glu splits its input along a dim and is a binary f(a, b) = a * sigmoid(b). */
#ifndef TL_NN_ACTIVATION_H
#define TL_NN_ACTIVATION_H

#include "ndcore/dispatch/tl_dispatch.h"

typedef enum {
  TL_ACT_RELU,        /* max(x, 0) */
  TL_ACT_THRESHOLD,   /* x > a ? x : b               (threshold, value) */
  TL_ACT_LEAKY_RELU,  /* x > 0 ? x : a x             (negative_slope) */
  TL_ACT_ELU,         /* x > 0 ? b x : b a (exp(c x) - 1)   (alpha, scale, input_scale) */
  TL_ACT_GELU,        /* x Phi(x)                     a != 0: the tanh approximation */
  TL_ACT_SILU,        /* x sigmoid(x) */
  TL_ACT_MISH,        /* x tanh(softplus(x)) */
  TL_ACT_SOFTPLUS,    /* log1p(exp(a x)) / a, x where a x > b   (beta, threshold) */
  TL_ACT_SOFTSIGN,    /* x / (1 + |x|) */
  TL_ACT_HARDTANH,    /* clamp(x, a, b)              (min_val, max_val) */
  TL_ACT_HARDSIGMOID, /* clamp(x / 6 + 1/2, 0, 1) */
  TL_ACT_HARDSWISH,   /* x clamp(x + 3, 0, 6) / 6 */
  TL_ACT_HARDSHRINK,  /* |x| > a ? x : 0             (lambd) */
  TL_ACT_SOFTSHRINK,  /* x - a, x + a or 0           (lambd) */
  TL_ACT_TANHSHRINK,  /* x - tanh(x) */
  TL_ACT_LOG_SIGMOID, /* -softplus(-x) */
  TL_ACT_PRELU,       /* x > 0 ? x : w x             (w per element) */
  TL_ACT_GLU,         /* a sigmoid(b), (a, b) the halves along a dim */
  TL_ACT_COUNT
} tl_act_kind;

typedef struct {
  double a, b, c;
} tl_act_params;

/* A device's kernels.  Operands are contiguous, of one shape and of the work
 * dtype's family (the entry points make them so); w/dw are NULL but for
 * PRELU and GLU (GLU: x is the first half a, w the second half b, dx/dw
 * their gradients).  n elements. */
typedef struct {
  tl_status (*forward)(tl_act_kind kind, const tl_act_params *p, const tl_tensor *x,
                       const tl_tensor *w, tl_tensor *y);
  tl_status (*backward)(tl_act_kind kind, const tl_act_params *p, const tl_tensor *g,
                        const tl_tensor *x, const tl_tensor *w, tl_tensor *dx, tl_tensor *dw);
} tl_nn_activation_kernels;

/* The kind of a forward or backward op (TL_OP_GELU, TL_OP_GELU_BACKWARD ...). */
tl_act_kind tl_nn_activation_kind(tl_op op);

/* y = f(x).  out: a zeroed tensor (allocated here, x's shape and dtype) or,
 * when `into`, an existing tensor of x's shape to write (the in-place and
 * out= spellings; it may be x itself).  Floating dtypes only. */
tl_status tl_nn_activation(tl_op op, const tl_act_params *p, const tl_tensor *x, tl_tensor *out,
                           bool into);
/* dx = g * f'(x) (the backward ops; g and x of one shape). */
tl_status tl_nn_activation_backward(tl_op op, const tl_act_params *p, const tl_tensor *g,
                                    const tl_tensor *x, tl_tensor *dx);
/* prelu: y = x > 0 ? x : w x, w broadcastable to x. */
tl_status tl_nn_prelu(const tl_tensor *x, const tl_tensor *w, tl_tensor *y);
/* prelu's backward: dx, and dw with x's shape (the caller sums it to w's). */
tl_status tl_nn_prelu_backward(const tl_tensor *g, const tl_tensor *x, const tl_tensor *w,
                               tl_tensor *dx, tl_tensor *dw);
/* glu along dim: y = a * sigmoid(b); backward dx = cat(g sigmoid(b), g a s(1 - s)). */
tl_status tl_nn_glu(const tl_tensor *x, int64_t dim, tl_tensor *y);
tl_status tl_nn_glu_backward(const tl_tensor *g, const tl_tensor *x, int64_t dim, tl_tensor *dx);

/* The CPU's kernels (activation_cpu.c). */
tl_status tl_cpu_activation(tl_act_kind kind, const tl_act_params *p, const tl_tensor *x,
                            const tl_tensor *w, tl_tensor *y);
tl_status tl_cpu_activation_backward(tl_act_kind kind, const tl_act_params *p, const tl_tensor *g,
                                     const tl_tensor *x, const tl_tensor *w, tl_tensor *dx,
                                     tl_tensor *dw);

#endif
