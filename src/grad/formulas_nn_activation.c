/* formulas_nn_activation.c - derivatives of the activations (src/nn/activation)
 * and of their backward ops, for double backward.
 *
 * A forward op f sends g * f'(x) through its backward op (f_backward(g, x,
 * params...)); relu sends threshold_backward(g, y, 0) from its output.  A
 * backward op B(g, x) = g f'(x) is linear in g, so given the gradient gg of
 * its result:
 *   d g = B(gg, x)                 (the same backward op)
 *   d x = gg g f''(x)              (f'' composed of ops with derivatives)
 * f'' is 0 for the piecewise-linear ones (relu, threshold, leaky_relu,
 * hardtanh, hardsigmoid, the shrinks): they send zeros to x, as PyTorch
 * does, so that grad(.., x) finds x used rather than raising.
 * prelu's and glu's backward ops have two operands mixed; their terms are
 * written out below. */
#include <string.h>

#include "grad/py_grad.h"

#define TL_ACT_INV_SQRT_2PI 0.39894228040143267794
#define TL_ACT_SQRT_2_PI 0.79788456080286535588
#define TL_ACT_GELU_C 0.044715

/* Argument pos/name of the call as given, else `fallback` as a float. */
static PyObject *num(tl_grad_ctx *c, int pos, const char *name, double fallback)
{
  PyObject *v = ARG(pos, name);
  return v || PyErr_Occurred() ? v : tl_grad_keep(c, PyFloat_FromDouble(fallback));
}

/* glu's dim as given, else -1. */
static PyObject *glu_dim(tl_grad_ctx *c)
{
  PyObject *v = ARG(1, "dim");
  return v || PyErr_Occurred() ? v : tl_grad_keep(c, PyLong_FromLong(-1));
}

/* The keyword arguments of gelu's approximate= as a dict for CALL. */
static PyObject *approximate(tl_grad_ctx *c, int pos)
{
  PyObject *a = ARG(pos, "approximate");
  if (!a && !PyErr_Occurred())
    a = tl_grad_keep(c, PyUnicode_FromString("none"));
  return a;
}

static bool gelu_is_tanh(PyObject *a)
{
  return a && PyUnicode_Check(a) && PyUnicode_CompareWithASCIIString(a, "tanh") == 0;
}

static PyObject *mul(tl_grad_ctx *c, PyObject *a, PyObject *b) { return CALL("mul", "OO", a, b); }
static PyObject *muld(tl_grad_ctx *c, PyObject *a, double b) { return CALL("mul", "Od", a, b); }
static PyObject *rsubd(tl_grad_ctx *c, double a, PyObject *b) /* a - b */
{
  return CALL("add", "Od", CALL("neg", "O", b), a);
}
/* The float mask cond as the tensor's dtype (1 where true). */
static PyObject *mask(tl_grad_ctx *c, PyObject *cond, PyObject *like)
{
  return CALL("to", "OO", cond, tl_grad_keep(c, PyObject_GetAttrString(like, "dtype")));
}

/* ---- forward ops -------------------------------------------------------------------- */

static void forward_ops(tl_grad_ctx *c)
{
  PyObject *x = ARG(0, "input"), *g = G(0), *dx = NULL;
  switch (c->formula) {
  case TL_OP_RELU:
    dx = CALL("threshold_backward", "OOd", g, R(0), 0.0);
    break;
  case TL_OP_THRESHOLD:
    dx = CALL("threshold_backward", "OOO", g, X(0, "input"), ARG(1, "threshold"));
    break;
  case TL_OP_LEAKY_RELU:
    dx = CALL("leaky_relu_backward", "OOO", g, X(0, "input"), num(c, 1, "negative_slope", 0.01));
    break;
  case TL_OP_ELU:
    dx = CALL("elu_backward", "OOOOO", g, X(0, "input"), num(c, 1, "alpha", 1.0),
              num(c, 2, "scale", 1.0), num(c, 3, "input_scale", 1.0));
    break;
  case TL_OP_GELU:
    dx = CALL("gelu_backward", "OO|{s:O}", g, X(0, "input"), "approximate", approximate(c, -1));
    break;
  case TL_OP_SOFTPLUS:
    dx = CALL("softplus_backward", "OOOO", g, X(0, "input"), num(c, 1, "beta", 1.0),
              num(c, 2, "threshold", 20.0));
    break;
  case TL_OP_HARDTANH:
    dx = CALL("hardtanh_backward", "OOOO", g, X(0, "input"), num(c, 1, "min_val", -1.0),
              num(c, 2, "max_val", 1.0));
    break;
  case TL_OP_HARDSHRINK:
  case TL_OP_SOFTSHRINK:
    dx = CALL(c->formula == TL_OP_HARDSHRINK ? "hardshrink_backward" : "softshrink_backward",
              "OOO", g, X(0, "input"), num(c, 1, "lambd", 0.5));
    break;
  case TL_OP_GLU:
    dx = CALL("glu_backward", "OOO", g, X(0, "input"), glu_dim(c));
    break;
  case TL_OP_PRELU: {
    PyObject *w = ARG(1, "weight");
    PyObject *r = CALL("_prelu_kernel_backward", "OOO", g, X(0, "input"), X(1, "weight"));
    if (r) {
      SEND(x, PyTuple_GET_ITEM(r, 0));
      SEND(w, PyTuple_GET_ITEM(r, 1));
    }
    return;
  }
  default: { /* silu, mish ...: name_backward(g, x) */
    char name[64];
    snprintf(name, sizeof name, "%s_backward", tl_grad_formula_name(c->formula));
    dx = CALL(name, "OO", g, X(0, "input"));
  }
  }
  SEND(x, dx);
}

/* ---- backward ops ------------------------------------------------------------------- */

/* f''(x) of the smooth activations, or NULL (nothing raised) where it is 0. */
static PyObject *second(tl_grad_ctx *c, PyObject *x)
{
  switch (c->formula) {
  case TL_OP_ELU_BACKWARD: { /* x <= 0: scale alpha is^2 exp(is x) */
    PyObject *is = num(c, 4, "input_scale", 1.0);
    PyObject *e = CALL("exp", "O", CALL("mul", "OO", x, is));
    PyObject *k = mul(c, mul(c, num(c, 2, "alpha", 1.0), num(c, 3, "scale", 1.0)),
                      mul(c, is, is));
    return mul(c, mul(c, e, k), mask(c, CALL("le", "Od", x, 0.0), x));
  }
  case TL_OP_GELU_BACKWARD: {
    PyObject *x2 = mul(c, x, x);
    if (!gelu_is_tanh(approximate(c, -1))) /* phi(x) (2 - x^2) */
      return mul(c, muld(c, CALL("exp", "O", muld(c, x2, -0.5)), TL_ACT_INV_SQRT_2PI),
                 rsubd(c, 2.0, x2));
    /* (1 - t^2) (u' + x/2 (u'' - 2 t u'^2)), u = k (x + C x^3) */
    PyObject *u = muld(c, CALL("add", "OO", x, muld(c, mul(c, x2, x), TL_ACT_GELU_C)), TL_ACT_SQRT_2_PI);
    PyObject *t = CALL("tanh", "O", u);
    PyObject *du = muld(c, CALL("add", "Od", muld(c, x2, 3 * TL_ACT_GELU_C), 1.0), TL_ACT_SQRT_2_PI);
    PyObject *d2u = muld(c, x, 6 * TL_ACT_GELU_C * TL_ACT_SQRT_2_PI);
    PyObject *inner = CALL("sub", "OO", d2u, muld(c, mul(c, t, mul(c, du, du)), 2.0));
    return mul(c, rsubd(c, 1.0, mul(c, t, t)),
               CALL("add", "OO", du, mul(c, muld(c, x, 0.5), inner)));
  }
  case TL_OP_SILU_BACKWARD: { /* s (1 - s) (2 + x (1 - 2 s)) */
    PyObject *s = CALL("sigmoid", "O", x);
    PyObject *q = CALL("add", "Od", mul(c, x, rsubd(c, 1.0, muld(c, s, 2.0))), 2.0);
    return mul(c, mul(c, s, rsubd(c, 1.0, s)), q);
  }
  case TL_OP_MISH_BACKWARD: { /* s (1 - t^2) (2 + x (1 - s - 2 t s)) */
    PyObject *s = CALL("sigmoid", "O", x);
    PyObject *t = CALL("tanh", "O", CALL("softplus", "O", x));
    PyObject *q = rsubd(c, 1.0, CALL("add", "OO", s, muld(c, mul(c, t, s), 2.0)));
    return mul(c, mul(c, s, rsubd(c, 1.0, mul(c, t, t))), CALL("add", "Od", mul(c, x, q), 2.0));
  }
  case TL_OP_SOFTPLUS_BACKWARD: { /* b s (1 - s) where b x <= threshold, s = sigmoid(b x) */
    PyObject *b = num(c, 2, "beta", 1.0), *bx = mul(c, x, b);
    PyObject *s = CALL("sigmoid", "O", bx);
    return mul(c, mul(c, mul(c, s, rsubd(c, 1.0, s)), b),
               mask(c, CALL("le", "OO", bx, num(c, 3, "threshold", 20.0)), x));
  }
  case TL_OP_SOFTSIGN_BACKWARD: { /* -2 sign(x) / (1 + |x|)^3 */
    PyObject *d = CALL("add", "Od", CALL("abs", "O", x), 1.0);
    return CALL("div", "OO", muld(c, CALL("sign", "O", x), -2.0), mul(c, d, mul(c, d, d)));
  }
  case TL_OP_HARDSWISH_BACKWARD: /* 1/3 on (-3, 3) */
    return muld(c, mask(c, CALL("lt", "Od", CALL("abs", "O", x), 3.0), x), 1.0 / 3.0);
  case TL_OP_TANHSHRINK_BACKWARD: { /* 2 t (1 - t^2) */
    PyObject *t = CALL("tanh", "O", x);
    return muld(c, mul(c, t, rsubd(c, 1.0, mul(c, t, t))), 2.0);
  }
  case TL_OP_LOG_SIGMOID_BACKWARD: { /* -s (1 - s) */
    PyObject *s = CALL("sigmoid", "O", x);
    return CALL("neg", "O", mul(c, s, rsubd(c, 1.0, s)));
  }
  default:
    return NULL;
  }
}

/* The same backward op applied to gg, the other arguments as in the call. */
static PyObject *same_op(tl_grad_ctx *c, PyObject *gg)
{
  const char *name = tl_grad_formula_name(c->formula);
  PyObject *x = X(1, "input");
  switch (c->formula) {
  case TL_OP_THRESHOLD_BACKWARD:
    return CALL(name, "OOO", gg, x, ARG(2, "threshold"));
  case TL_OP_LEAKY_RELU_BACKWARD:
    return CALL(name, "OOO", gg, x, ARG(2, "negative_slope"));
  case TL_OP_HARDSHRINK_BACKWARD:
  case TL_OP_SOFTSHRINK_BACKWARD:
    return CALL(name, "OOO", gg, x, ARG(2, "lambd"));
  case TL_OP_SOFTPLUS_BACKWARD:
    return CALL(name, "OOOO", gg, x, ARG(2, "beta"), ARG(3, "threshold"));
  case TL_OP_HARDTANH_BACKWARD:
    return CALL(name, "OOOO", gg, x, ARG(2, "min_val"), ARG(3, "max_val"));
  case TL_OP_ELU_BACKWARD:
    return CALL(name, "OOOOO", gg, x, ARG(2, "alpha"), ARG(3, "scale"), ARG(4, "input_scale"));
  case TL_OP_GELU_BACKWARD:
    return CALL(name, "OO|{s:O}", gg, x, "approximate", approximate(c, -1));
  default:
    return CALL(name, "OO", gg, x);
  }
}

static void backward_ops(tl_grad_ctx *c)
{
  PyObject *g = ARG(0, "grad_output"), *x = ARG(1, "input"), *gg = G(0);
  if (NEEDS(g))
    SEND(g, same_op(c, gg));
  if (!NEEDS(x))
    return;
  PyObject *f2 = c->formula == TL_OP_THRESHOLD_BACKWARD ? NULL : second(c, X(1, "input"));
  if (f2)
    SEND(x, mul(c, mul(c, gg, X(0, "grad_output")), f2));
  else if (!PyErr_Occurred()) /* f'' = 0: zeros, as PyTorch sends, so x stays reachable */
    SEND(x, CALL("zeros_like", "O", X(1, "input")));
}

/* prelu: dx = m g + (1 - m) w g,  dw = (1 - m) x g,  m = [x > 0] */
static void prelu_backward_ops(tl_grad_ctx *c)
{
  PyObject *g = ARG(0, "grad_output"), *x = ARG(1, "input"), *w = ARG(2, "weight");
  PyObject *ggx = G(0), *ggw = G(1);
  PyObject *xv = X(1, "input"), *notm = mask(c, CALL("le", "Od", xv, 0.0), xv);
  if (NEEDS(g)) {
    PyObject *m = rsubd(c, 1.0, notm);
    PyObject *kx = mul(c, ggx, CALL("add", "OO", m, mul(c, notm, X(2, "weight"))));
    SEND(g, CALL("add", "OO", kx, mul(c, mul(c, ggw, xv), notm)));
  }
  if (NEEDS(x))
    SEND(x, mul(c, mul(c, ggw, X(0, "grad_output")), notm));
  if (NEEDS(w))
    SEND(w, mul(c, mul(c, ggx, X(0, "grad_output")), notm));
}

/* glu: dx = cat(g s, g a s (1 - s)), s = sigmoid(b), (a, b) = halves of x */
static void glu_backward_ops(tl_grad_ctx *c)
{
  PyObject *g = ARG(0, "grad_output"), *x = ARG(1, "input"), *dim = ARG(2, "dim");
  PyObject *gv = X(0, "grad_output"), *xv = X(1, "input");
  PyObject *halves = CALL("chunk", "OiO", xv, 2, dim), *ggs = CALL("chunk", "OiO", G(0), 2, dim);
  if (!halves || !ggs)
    return;
  PyObject *a = PyTuple_GET_ITEM(halves, 0), *b = PyTuple_GET_ITEM(halves, 1);
  PyObject *gga = PyTuple_GET_ITEM(ggs, 0), *ggb = PyTuple_GET_ITEM(ggs, 1);
  PyObject *s = CALL("sigmoid", "O", b), *ds = mul(c, s, rsubd(c, 1.0, s));
  if (NEEDS(g))
    SEND(g, CALL("add", "OO", mul(c, gga, s), mul(c, mul(c, ggb, a), ds)));
  if (NEEDS(x)) {
    PyObject *da = mul(c, mul(c, ggb, gv), ds);
    PyObject *db = mul(c, mul(c, gv, ds),
                       CALL("add", "OO", gga, mul(c, mul(c, ggb, a), rsubd(c, 1.0, muld(c, s, 2.0)))));
    PyObject *parts = tl_grad_keep(c, PyTuple_Pack(2, da, db));
    SEND(x, parts ? CALL("cat", "OO", parts, dim) : NULL);
  }
}

void tl_grad_formulas_nn_activation_init(void)
{
  static const int relu[] = {TL_OP_RELU};
  TL_GRAD_REGISTER(relu, forward_ops, TL_GRAD_DROP_INPUTS);
  static const int forward[] = {
      TL_OP_THRESHOLD, TL_OP_LEAKY_RELU, TL_OP_ELU, TL_OP_GELU, TL_OP_SILU, TL_OP_MISH,
      TL_OP_SOFTPLUS, TL_OP_SOFTSIGN, TL_OP_HARDTANH, TL_OP_HARDSIGMOID, TL_OP_HARDSWISH,
      TL_OP_HARDSHRINK, TL_OP_SOFTSHRINK, TL_OP_TANHSHRINK, TL_OP_LOG_SIGMOID, TL_OP_PRELU,
      TL_OP_GLU};
  TL_GRAD_REGISTER(forward, forward_ops, TL_GRAD_DROP_OUTPUTS);
  static const int backward[] = {
      TL_OP_THRESHOLD_BACKWARD, TL_OP_LEAKY_RELU_BACKWARD, TL_OP_ELU_BACKWARD,
      TL_OP_GELU_BACKWARD, TL_OP_SILU_BACKWARD, TL_OP_MISH_BACKWARD, TL_OP_SOFTPLUS_BACKWARD,
      TL_OP_SOFTSIGN_BACKWARD, TL_OP_HARDTANH_BACKWARD, TL_OP_HARDSIGMOID_BACKWARD,
      TL_OP_HARDSWISH_BACKWARD, TL_OP_HARDSHRINK_BACKWARD, TL_OP_SOFTSHRINK_BACKWARD,
      TL_OP_TANHSHRINK_BACKWARD, TL_OP_LOG_SIGMOID_BACKWARD};
  TL_GRAD_REGISTER(backward, backward_ops, TL_GRAD_DROP_OUTPUTS);
  static const int prelu[] = {TL_OP_PRELU_BACKWARD};
  TL_GRAD_REGISTER(prelu, prelu_backward_ops, TL_GRAD_DROP_OUTPUTS);
  static const int glu[] = {TL_OP_GLU_BACKWARD};
  TL_GRAD_REGISTER(glu, glu_backward_ops, TL_GRAD_DROP_OUTPUTS);
}
