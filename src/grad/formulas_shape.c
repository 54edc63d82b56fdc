/* formulas_shape.c - derivatives of views and shape ops (grad_fns.def).
 *
 * Legend: g is the gradient of the output, x the input.                   */
#include "grad/py_grad.h"

static void backward(tl_grad_ctx *c)
{
  PyObject *g = G(0);
  switch (c->formula) {
  case TL_GRAD_RESHAPE:
  case TL_GRAD_VIEW: {
    PyObject *x = ARG(0, "input"); /* only its shape: ARG, not X (no version check) */
    SEND(x, CALL("reshape", "OO", g, SHAPE(x)));
    break;
  }
  }
}

void tl_grad_formulas_shape_init(void)
{
  static const int ids[] = {TL_GRAD_RESHAPE, TL_GRAD_VIEW};
  for (size_t i = 0; i < sizeof ids / sizeof *ids; i++)
    tl_grad_formulas[ids[i]] = backward;
}
