/* formulas_bessel.c - derivatives of the modified Bessel functions i0, i0e,
 * i1, i1e (kernels_bessel.c).
 *
 *   i0'  = i1                      i0e' = i1e - sgn(x) i0e
 *   i1'  = i0 - i1 / x             i1e' = i0e - i1e (sgn(x) + 1 / x)
 * At x = 0, i1 / x and i1e / x tend to 1/2: the division is done with 1 in
 * place of 0 and the limit put back by where(), so neither branch makes a
 * NaN that would reach the gradient.                                       */
#include "grad/py_grad.h"

/* i_nu(x) / x with its limit 1/2 at 0 (fn: "i1" or "i1e"). */
static PyObject *over_x(tl_grad_ctx *c, PyObject *x, const char *fn)
{
  PyObject *zero = CALL("eq", "Od", x, 0.0);
  PyObject *safe = CALL("where", "OdO", zero, 1.0, x);
  return CALL("where", "OdO", zero, 0.5, CALL("div", "OO", CALL(fn, "O", safe), safe));
}

static void backward(tl_grad_ctx *c)
{
  PyObject *g = G(0), *x = X(0, "input"), *d = NULL;
  /* sgn(x) is piecewise constant: taken without history, so that a second
   * derivative does not ask for one of it */
  PyObject *sign = c->formula == TL_OP_I0E || c->formula == TL_OP_I1E
                       ? CALL("sgn", "O", CALL("detach", "O", x)) : NULL;
  switch (c->formula) {
  case TL_OP_I0:
    d = CALL("i1", "O", x);
    break;
  case TL_OP_I0E:
    d = CALL("sub", "OO", CALL("i1e", "O", x), CALL("mul", "OO", sign, R(0)));
    break;
  case TL_OP_I1:
    d = CALL("sub", "OO", CALL("i0", "O", x), over_x(c, x, "i1"));
    break;
  case TL_OP_I1E:
    d = CALL("sub", "OO", CALL("i0e", "O", x),
             CALL("add", "OO", CALL("mul", "OO", sign, R(0)), over_x(c, x, "i1e")));
    break;
  }
  SEND(ARG(0, "input"), CALL("mul", "OO", g, d));
}

void tl_grad_formulas_bessel_init(void)
{
  static const int ids[] = {TL_OP_I0, TL_OP_I0E, TL_OP_I1, TL_OP_I1E};
  TL_GRAD_REGISTER(ids, backward, 0);
}
