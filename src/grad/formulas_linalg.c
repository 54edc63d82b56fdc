/* formulas_linalg.c - derivatives of torchlike.linalg (grad_fns.def).
 *
 * Legend: g is the gradient of the output, A the input matrix.            */
#include "grad/py_grad.h"

static void backward(tl_grad_ctx *c)
{
  (void)c;
}

void tl_grad_formulas_linalg_init(void)
{
  (void)backward;
}
