/* formulas_nn_softmax.c - derivatives of softmax and log_softmax
 * (src/nn/softmax), and of their backward ops, for double backward.
 *
 * Shapes: every tensor here has the input's shape; sums run along `dim`
 * with keepdim.  With y the forward output and g its gradient:
 *   softmax:                 dx = y * (g - sum(g y))     _softmax_backward_data
 *   log_softmax:             dx = g - exp(y) sum(g)      _log_softmax_backward_data
 * and for the backward ops, given the gradient gg of their result dx:
 *   _softmax_backward_data:      d g = y (gg - sum(gg y))
 *                                d y = gg (g - sum(g y)) - g sum(gg y)
 *   _log_softmax_backward_data:  d g = gg - sum(gg exp(y))
 *                                d y = -gg exp(y) sum(g)                  */
#include "grad/py_grad.h"

/* sum(t, dim, keepdim=True) */
static PyObject *dim_sum(tl_grad_ctx *c, PyObject *t, PyObject *dim)
{
  return CALL("sum", "OO|{s:O}", t, dim, "keepdim", Py_True);
}

static PyObject *dtype_of(tl_grad_ctx *c, PyObject *t)
{
  return t ? tl_grad_keep(c, PyObject_GetAttrString(t, "dtype")) : NULL;
}

static void forward_ops(tl_grad_ctx *c)
{
  PyObject *x = ARG(0, "input");
  const char *backward = c->formula == TL_OP_SOFTMAX ? "_softmax_backward_data"
                                                     : "_log_softmax_backward_data";
  SEND(x, CALL(backward, "OOOO", G(0), R(0), ARG(1, "dim"), dtype_of(c, x)));
}

static void backward_ops(tl_grad_ctx *c)
{
  PyObject *g = ARG(0, "grad_output"), *y = ARG(1, "output"), *dim = ARG(2, "dim");
  PyObject *gg = G(0);
  if (c->formula == TL_OP_SOFTMAX_BACKWARD) {
    if (tl_grad_needs(c, g))
      SEND(g, CALL("_softmax_backward_data", "OOOO", gg, X(1, "output"), dim, dtype_of(c, g)));
    if (tl_grad_needs(c, y)) {
      PyObject *gv = X(0, "grad_output"), *yv = X(1, "output");
      PyObject *a = CALL("mul", "OO", gg, CALL("sub", "OO", gv, dim_sum(c, CALL("mul", "OO", gv, yv), dim)));
      SEND(y, CALL("sub", "OO", a, CALL("mul", "OO", gv, dim_sum(c, CALL("mul", "OO", gg, yv), dim))));
    }
    return;
  }
  PyObject *e = CALL("exp", "O", X(1, "output"));
  if (tl_grad_needs(c, g))
    SEND(g, CALL("sub", "OO", gg, dim_sum(c, CALL("mul", "OO", gg, e), dim)));
  if (tl_grad_needs(c, y))
    SEND(y, CALL("neg", "O", CALL("mul", "OO", CALL("mul", "OO", gg, e),
                                  dim_sum(c, X(0, "grad_output"), dim))));
}

void tl_grad_formulas_nn_softmax_init(void)
{
  /* The forward ops read their output and the input's dtype only. */
  static const int forward[] = {TL_OP_SOFTMAX, TL_OP_LOG_SOFTMAX};
  TL_GRAD_REGISTER(forward, forward_ops, TL_GRAD_DROP_INPUTS);
  static const int backward[] = {TL_OP_SOFTMAX_BACKWARD, TL_OP_LOG_SOFTMAX_BACKWARD};
  TL_GRAD_REGISTER(backward, backward_ops, TL_GRAD_DROP_OUTPUTS);
}
