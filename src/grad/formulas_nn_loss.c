/* formulas_nn_loss.c - derivatives of nll_loss (src/nn/loss) and of its
 * backward op.
 *   nll_loss_nd:        d input = nll_loss_backward(g, ...)  (total_weight saved)
 *   nll_loss_backward:  linear in grad_output with the transposed map of
 *                       nll_loss, so d grad_output = nll_loss_nd(gg, ...)[0];
 *                       it does not depend on input (d input = 0).
 *   _pointwise_loss:    its backward op, for the input and the target;
 *   _pointwise_loss_backward: the composed VJP (tl_grad_nn_composed_vjp). */
#include "grad/py_grad.h"

static PyObject *or_none(PyObject *o) { return o ? o : Py_None; }

/* An int argument, or its default when the call left it out. */
static PyObject *int_arg(tl_grad_ctx *c, int pos, const char *name, long dflt)
{
  PyObject *a = ARG(pos, name);
  return a || PyErr_Occurred() ? a : tl_grad_keep(c, PyLong_FromLong(dflt));
}

static void forward_ops(tl_grad_ctx *c)
{
  PyObject *x = X(0, "input");
  if (!NEEDS(x))
    return;
  SEND(x, CALL("nll_loss_backward", "OOOOOOO", G(0), x, X(1, "target"),
               or_none(X(2, "weight")), int_arg(c, 3, "reduction", 1),
               int_arg(c, 4, "ignore_index", -100), R(1)));
}

static void backward_ops(tl_grad_ctx *c)
{
  PyObject *g = ARG(0, "grad_output");
  if (!NEEDS(g))
    return;
  PyObject *r = CALL("nll_loss_nd", "OOOOO", G(0), X(2, "target"), or_none(X(3, "weight")),
                     ARG(4, "reduction"), ARG(5, "ignore_index"));
  if (r)
    SEND(g, CALL("reshape", "OO", PyTuple_GET_ITEM(r, 0), SHAPE(g)));
}

/* _pointwise_loss: the backward op gives the input's and the target's gradients. */
static void pointwise_ops(tl_grad_ctx *c)
{
  PyObject *x = X(0, "input"), *t = X(1, "target");
  if (!NEEDS(x) && !NEEDS(t))
    return;
  PyObject *r = CALL("_pointwise_loss_backward", "OOOOOOOO", G(0), x, t, or_none(X(2, "weight")),
                     or_none(X(3, "pos_weight")), ARG(4, "kind"), ARG(5, "param"),
                     ARG(6, "reduction"));
  if (!r)
    return;
  if (NEEDS(x))
    SEND(x, PyTuple_GET_ITEM(r, 0));
  if (NEEDS(t))
    SEND(t, PyTuple_GET_ITEM(r, 1));
}

static void pointwise_backward_ops(tl_grad_ctx *c)
{
  static const char *const params[] = {"grad_output", "input", "target", "weight", "pos_weight",
                                       "kind", "param", "reduction", NULL};
  tl_grad_nn_composed_vjp(c, params);
}

void tl_grad_formulas_nn_loss_init(void)
{
  static const int pointwise[] = {TL_OP_POINTWISE_LOSS};
  TL_GRAD_REGISTER(pointwise, pointwise_ops, TL_GRAD_DROP_OUTPUTS);
  static const int pointwise_backward[] = {TL_OP_POINTWISE_LOSS_BACKWARD};
  TL_GRAD_REGISTER(pointwise_backward, pointwise_backward_ops, TL_GRAD_DROP_OUTPUTS);
  static const int forward[] = {TL_OP_NLL_LOSS_ND};
  TL_GRAD_REGISTER(forward, forward_ops, 0);
  static const int backward[] = {TL_OP_NLL_LOSS_BACKWARD};
  TL_GRAD_REGISTER(backward, backward_ops, TL_GRAD_DROP_OUTPUTS);
}
