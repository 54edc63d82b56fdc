/* formulas_index.c - derivatives of indexing: __getitem__, __setitem__ and
 * the gather/scatter/index/masked family (ops.def INDEX).
 *
 * Legend: g is the gradient of the output, x the input.                   */
#include "grad/py_grad.h"

static void backward(tl_grad_ctx *c)
{
  (void)c;
}

void tl_grad_formulas_index_init(void)
{
  (void)backward;
}
