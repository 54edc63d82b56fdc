/* formulas_special.c - derivatives of torch.special's normal-distribution,
 * entropy and gamma-family ops (kernels_special.c, tl_special_normal.h).
 *
 * Legend: g is the gradient of the output, x (y) the input(s), r the result.
 *
 *   erfcx'    = 2 x r - 2/sqrt(pi)       ndtr'  = phi(x) = e^(-x^2/2) / sqrt(2 pi)
 *   log_ndtr' = e^(-x^2/2 - r) / sqrt(2 pi)             ndtri' = sqrt(2 pi) e^(r^2/2)
 *   entr'     = -(1 + log x)
 *   xlog1py:  d/dx = log1p(y) (0 where x == 0 and y <= -1), d/dy = x / (1 + y)
 *   zeta(x, q):    d/dq = -x zeta(x + 1, q); d/dx is not implemented (PyTorch's neither)
 *   igamma(a, x):  d/dx = x^(a-1) e^-x / Gamma(a), igammac the negative; d/da
 *                  is not implemented (PyTorch's neither).
 * The missing derivatives raise PyTorch's NotImplementedError when backward
 * asks for them; a graph that only needs the other input runs.            */
#include <math.h>

#include <Python.h>

#include "grad/py_grad.h"

/* PyTorch's words for a derivative it does not implement (formulas_missing.c) */
static void not_implemented(const char *what) { tl_grad_not_implemented(what, true); }

/* k v^2 */
static PyObject *half_square(tl_grad_ctx *c, PyObject *v, double k)
{
  return CALL("mul", "Od", CALL("mul", "OO", v, v), k);
}

static void backward(tl_grad_ctx *c)
{
  PyObject *g = G(0), *x = ARG(0, "input"), *d = NULL;
  const double sqrt_2pi = sqrt(2 * M_PI);
  switch (c->formula) {
  case TL_OP_ERFCX:
    d = CALL("sub", "Od", CALL("mul", "OO", CALL("mul", "dO", 2.0, X(0, "input")), R(0)),
             2 / sqrt(M_PI));
    break;
  case TL_OP_NDTR: {
    PyObject *v = X(0, "input");
    d = CALL("div", "Od", CALL("exp", "O", half_square(c, v, -0.5)), sqrt_2pi);
    break;
  }
  case TL_OP_LOG_NDTR: { /* -x^2/2 - r, formed before exp: phi(x) / ndtr(x) without underflow */
    PyObject *v = X(0, "input");
    PyObject *e = CALL("sub", "OO", half_square(c, v, -0.5), R(0));
    d = CALL("div", "Od", CALL("exp", "O", e), sqrt_2pi);
    break;
  }
  case TL_OP_NDTRI: {
    PyObject *r = R(0);
    d = CALL("mul", "Od", CALL("exp", "O", half_square(c, r, 0.5)), sqrt_2pi);
    break;
  }
  case TL_OP_ENTR:
    d = CALL("neg", "O", CALL("add", "Oi", CALL("log", "O", X(0, "input")), 1));
    break;
  case TL_OP_XLOG1PY: {
    PyObject *y = ARG(1, "other"), *xv = X(0, "input"), *yv = X(1, "other");
    if (NEEDS(x)) {
      PyObject *gx = CALL("xlog1py", "OO", g, yv);
      PyObject *mask = CALL("logical_and", "OO", CALL("eq", "Oi", xv, 0), CALL("le", "Oi", yv, -1));
      SEND(x, CALL("where", "OdO", mask, 0.0, gx));
    }
    if (NEEDS(y))
      SEND(y, CALL("mul", "OO", g, CALL("div", "OO", xv, CALL("add", "Oi", yv, 1))));
    return;
  }
  case TL_OP_ZETA: {
    PyObject *q = ARG(1, "other");
    if (NEEDS(x))
      return not_implemented("zeta");
    if (NEEDS(q)) {
      PyObject *s = X(0, "input");
      PyObject *z = CALL("zeta", "OO", CALL("add", "Oi", s, 1), X(1, "other"));
      SEND(q, CALL("mul", "OO", g, CALL("neg", "O", CALL("mul", "OO", s, z))));
    }
    return;
  }
  case TL_OP_IGAMMA:
  case TL_OP_IGAMMAC: {
    PyObject *xa = ARG(1, "other");
    if (NEEDS(x))
      return not_implemented(c->formula == TL_OP_IGAMMA ? "igamma: input" : "igammac: input");
    if (NEEDS(xa)) {
      PyObject *a = X(0, "input"), *xv = X(1, "other");
      /* exp((a - 1) log x - x - lgamma(a)) */
      PyObject *e = CALL("sub", "OO", CALL("sub", "OO", CALL("mul", "OO", CALL("sub", "Oi", a, 1),
                                                            CALL("log", "O", xv)), xv),
                         CALL("lgamma", "O", a));
      PyObject *dx = CALL("exp", "O", e);
      if (c->formula == TL_OP_IGAMMAC)
        dx = CALL("neg", "O", dx);
      SEND(xa, CALL("mul", "OO", g, dx));
    }
    return;
  }
  }
  SEND(x, CALL("mul", "OO", g, d));
}

void tl_grad_formulas_special_init(void)
{
  static const int ids[] = {TL_OP_ERFCX, TL_OP_NDTR, TL_OP_LOG_NDTR, TL_OP_NDTRI, TL_OP_ENTR,
                            TL_OP_XLOG1PY, TL_OP_ZETA, TL_OP_IGAMMA, TL_OP_IGAMMAC};
  TL_GRAD_REGISTER(ids, backward, 0);
  static const int inputs_only[] = {TL_OP_NDTR, TL_OP_ENTR, TL_OP_XLOG1PY, TL_OP_ZETA,
                                    TL_OP_IGAMMA, TL_OP_IGAMMAC};
  static const int result_only[] = {TL_OP_NDTRI};
  TL_GRAD_DROP(inputs_only, TL_GRAD_DROP_OUTPUTS);
  TL_GRAD_DROP(result_only, TL_GRAD_DROP_INPUTS);
}
