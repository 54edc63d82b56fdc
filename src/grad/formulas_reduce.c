/* formulas_reduce.c - derivatives of reductions, scans, sorting and
 * selection, and matrix products (ops.def REDUCE, REDUCE_PAIR, SCAN, SORT,
 * MATMUL).
 *
 * Legend: g is the gradient of the output, x the input, r the result.    */
#include "grad/py_grad.h"

static void backward(tl_grad_ctx *c)
{
  PyObject *g = G(0);
  switch (c->formula) {
  case TL_OP_SUM: {
    PyObject *x = ARG(0, "input");
    g = tl_grad_unreduce(c, g, x, ARG(1, "dim"), ARG(2, "keepdim"));
    SEND(x, CALL("expand", "OO", g, SHAPE(x)));
    break;
  }
  }
}

void tl_grad_formulas_reduce_init(void)
{
  static const int ids[] = {TL_OP_SUM};
  for (size_t i = 0; i < sizeof ids / sizeof *ids; i++)
    tl_grad_formulas[ids[i]] = backward;
}
