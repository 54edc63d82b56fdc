/* formulas_elementwise.c - derivatives of the elementwise ops of ops.def
 * (UNARY, BINARY, WHERE, CLAMP) and of copies and casts.
 *
 * Legend: g is the gradient of the output, x/y the inputs, r the result.
 * Broadcasting is undone by SEND (it sums g down to each input's shape).  */
#include "grad/py_grad.h"

static void backward(tl_grad_ctx *c)
{
  PyObject *g = G(0);
  switch (c->formula) {
  case TL_OP_NEG:
    SEND(ARG(0, "input"), CALL("neg", "O", g));
    break;
  case TL_OP_ADD:
  case TL_OP_SUB: {
    PyObject *alpha = ARG(-1, "alpha");
    PyObject *gy = alpha ? CALL("mul", "OO", g, alpha) : g;
    SEND(ARG(0, "input"), g);
    SEND(ARG(1, "other"), c->formula == TL_OP_SUB ? CALL("neg", "O", gy) : gy);
    break;
  }
  case TL_OP_MUL:
    if (NEEDS(ARG(0, "input")))
      SEND(ARG(0, "input"), CALL("mul", "OO", g, X(1, "other")));
    if (NEEDS(ARG(1, "other")))
      SEND(ARG(1, "other"), CALL("mul", "OO", g, X(0, "input")));
    break;
  case TL_OP_EXP:
    SEND(ARG(0, "input"), CALL("mul", "OO", g, R(0)));
    break;
  }
}

void tl_grad_formulas_elementwise_init(void)
{
  static const int ids[] = {TL_OP_NEG, TL_OP_ADD, TL_OP_SUB, TL_OP_MUL, TL_OP_EXP};
  for (size_t i = 0; i < sizeof ids / sizeof *ids; i++)
    tl_grad_formulas[ids[i]] = backward;
}
