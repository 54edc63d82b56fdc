/* formulas_nn_dropout.c - derivatives of dropout (src/nn/dropout) and of its
 * backward op.  Both are linear in their tensor operand:
 *   _dropout:                 dx = native_dropout_backward(g, mask, scale)
 *   native_dropout_backward:  d grad = native_dropout_backward(gg, mask, scale)
 * with mask the forward's second output.  Alpha dropout's shift does not
 * depend on x, so the same formula holds with its scale.  The tape keeps the
 * mask (the second output, bytes), neither the input nor the dropped-out
 * output. */
#include "grad/py_grad.h"
#include "nn/dropout/tl_dropout.h"

static void dropout_ops(tl_grad_ctx *c)
{
  PyObject *x = ARG(0, "input"), *p = ARG(1, "p"), *alpha = ARG(3, "alpha");
  double pv = p ? PyFloat_AsDouble(p) : 0;
  int is_alpha = alpha ? PyObject_IsTrue(alpha) : 0;
  if (PyErr_Occurred() || is_alpha < 0)
    return;
  double scale = tl_nn_dropout_scale(pv, is_alpha);
  SEND(x, CALL("native_dropout_backward", "OOd", G(0), R(1), scale));
}

static void dropout_backward_ops(tl_grad_ctx *c)
{
  PyObject *g = ARG(0, "grad_output");
  SEND(g, CALL("native_dropout_backward", "OOO", G(0), X(1, "mask"), ARG(2, "scale")));
}

void tl_grad_formulas_nn_dropout_init(void)
{
  static const int forward[] = {TL_OP_DROPOUT};
  TL_GRAD_REGISTER(forward, dropout_ops, TL_GRAD_DROP_INPUTS | TL_GRAD_DROP_FIRST_OUTPUT);
  static const int backward[] = {TL_OP_DROPOUT_BACKWARD};
  TL_GRAD_REGISTER(backward, dropout_backward_ops, TL_GRAD_DROP_OUTPUTS);
}
