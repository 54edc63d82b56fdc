/* formulas_bessel.c - derivatives of the Bessel functions (kernels_bessel.c):
 * the modified i0, i0e, i1, i1e, k0, k1 and torch.special's bessel_j0, j1,
 * y0, y1.
 *
 *   i0'  = i1                      i0e' = i1e - sgn(x) i0e
 *   i1'  = i0 - i1 / x             i1e' = i0e - i1e (sgn(x) + 1 / x)
 *   j0'  = -j1      j1' = j0 - j1 / x      y0' = -y1      y1' = y0 - y1 / x
 *   k0'  = -k1      k1' = -k0 - k1 / x
 * At x = 0, i1 / x, i1e / x and j1 / x tend to 1/2: the division is done
 * with 1 in place of 0 and the limit put back by where(), so neither branch
 * makes a NaN that would reach the gradient.  As in PyTorch, the scaled k0
 * and k1, spherical_bessel_j0 and airy_ai record no graph (their outputs do
 * not require grad).                                                      */
#include "grad/py_grad.h"

/* f(x) / x with its limit 1/2 at 0 (fn: "i1", "i1e" or "bessel_j1"). */
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
  case TL_OP_BESSEL_J0:
    d = CALL("neg", "O", CALL("bessel_j1", "O", x));
    break;
  case TL_OP_BESSEL_J1:
    d = CALL("sub", "OO", CALL("bessel_j0", "O", x), over_x(c, x, "bessel_j1"));
    break;
  case TL_OP_BESSEL_Y0:
    d = CALL("neg", "O", CALL("bessel_y1", "O", x));
    break;
  case TL_OP_BESSEL_Y1: /* y1 / x has no finite limit at 0: no where() */
    d = CALL("sub", "OO", CALL("bessel_y0", "O", x), CALL("div", "OO", R(0), x));
    break;
  case TL_OP_MODIFIED_BESSEL_K0:
    d = CALL("neg", "O", CALL("modified_bessel_k1", "O", x));
    break;
  case TL_OP_MODIFIED_BESSEL_K1:
    d = CALL("neg", "O", CALL("add", "OO", CALL("modified_bessel_k0", "O", x),
                               CALL("div", "OO", R(0), x)));
    break;
  }
  SEND(ARG(0, "input"), CALL("mul", "OO", g, d));
}

void tl_grad_formulas_bessel_init(void)
{
  static const int ids[] = {TL_OP_I0, TL_OP_I0E, TL_OP_I1, TL_OP_I1E, TL_OP_BESSEL_J0,
                            TL_OP_BESSEL_J1, TL_OP_BESSEL_Y0, TL_OP_BESSEL_Y1,
                            TL_OP_MODIFIED_BESSEL_K0, TL_OP_MODIFIED_BESSEL_K1};
  TL_GRAD_REGISTER(ids, backward, 0);
  /* not differentiable in PyTorch: no graph, as there; the orthogonal
   * polynomials (kernels_polynomial.c) neither */
  static const int none[] = {
      TL_OP_SCALED_MODIFIED_BESSEL_K0, TL_OP_SCALED_MODIFIED_BESSEL_K1, TL_OP_SPHERICAL_BESSEL_J0,
      TL_OP_AIRY_AI, TL_OP_CHEBYSHEV_POLYNOMIAL_T, TL_OP_CHEBYSHEV_POLYNOMIAL_U,
      TL_OP_CHEBYSHEV_POLYNOMIAL_V, TL_OP_CHEBYSHEV_POLYNOMIAL_W,
      TL_OP_SHIFTED_CHEBYSHEV_POLYNOMIAL_T, TL_OP_SHIFTED_CHEBYSHEV_POLYNOMIAL_U,
      TL_OP_SHIFTED_CHEBYSHEV_POLYNOMIAL_V, TL_OP_SHIFTED_CHEBYSHEV_POLYNOMIAL_W,
      TL_OP_HERMITE_POLYNOMIAL_H, TL_OP_HERMITE_POLYNOMIAL_HE, TL_OP_LAGUERRE_POLYNOMIAL_L,
      TL_OP_LEGENDRE_POLYNOMIAL_P};
  for (size_t i = 0; i < sizeof none / sizeof *none; i++)
    tl_grad_nondifferentiable[none[i]] = true;
}
