/* formulas_elementwise.c - derivatives of the elementwise ops of ops.def
 * (UNARY, BINARY, WHERE, CLAMP) and of copies and casts (grad_fns.def).
 *
 * Legend: g is the gradient of the output, x/y the inputs, r the result.
 * Broadcasting is undone by SEND (it sums g down to each input's shape and
 * casts it to the input's dtype, taking the real part for a real input).
 *
 * Complex inputs follow PyTorch's convention: the gradient is
 * dL/d(re) + i dL/d(im), so a holomorphic f sends g * conj(f'(z)).  The
 * `chain` helper does that multiplication and skips the conj for real
 * derivatives.  Any operand may be a Python scalar (2 - x records sub(2, x));
 * SEND ignores non-tensors and every op called here accepts them.
 *
 * Piecewise ops follow PyTorch at their kinks: abs'(0) = 0, maximum/minimum
 * and fmax/fmin split ties evenly, atan2'(0, 0) = 0, clamp passes
 * the gradient where min < x < max (ties: clamp_backward), floor/ceil/round/trunc/sign and the
 * rounding divisions have zero gradients, 0**0 has zero gradients.        */
#include <math.h>

#include <Python.h>

#include "grad/py_grad.h"

static bool is_complex(PyObject *o)
{
  if (!o)
    return false;
  if (tl_py_is_tensor(o))
    return tl_dtype_is_complex(tl_py_t(o)->dtype);
  return PyComplex_Check(o);
}

static PyObject *conj_of(tl_grad_ctx *c, PyObject *o)
{
  if (!o || !is_complex(o))
    return o;
  if (tl_py_is_tensor(o))
    return CALL("conj_physical", "O", o);
  Py_complex v = PyComplex_AsCComplex(o);
  return tl_grad_keep(c, PyComplex_FromDoubles(v.real, -v.imag));
}

/* g * conj(d): the chain rule for a (holomorphic) derivative d. */
static PyObject *chain(tl_grad_ctx *c, PyObject *g, PyObject *d)
{
  return CALL("mul", "OO", g, conj_of(c, d));
}

static PyObject *zeros(tl_grad_ctx *c, PyObject *like) { return CALL("zeros_like", "O", like); }

/* where(mask, g, 0) */
static PyObject *keep_where(tl_grad_ctx *c, PyObject *mask, PyObject *g)
{
  return CALL("where", "OOd", mask, g, 0.0);
}

/* where(mask, 0, g) */
static PyObject *drop_where(tl_grad_ctx *c, PyObject *mask, PyObject *g)
{
  return CALL("where", "OdO", mask, 0.0, g);
}

/* log of a base that is a Python number, computed in double (a 0-d tensor
 * would be computed in the default dtype). */
static PyObject *scalar_log(tl_grad_ctx *c, PyObject *v)
{
  if (PyComplex_Check(v)) {
    Py_complex z = PyComplex_AsCComplex(v);
    return tl_grad_keep(c, PyComplex_FromDoubles(log(hypot(z.real, z.imag)), atan2(z.imag, z.real)));
  }
  double d = PyFloat_AsDouble(v);
  if (d == -1.0 && PyErr_Occurred())
    return NULL;
  return tl_grad_keep(c, PyFloat_FromDouble(d == 0 ? -INFINITY : d < 0 ? NAN : log(d)));
}

static bool scalar_is_zero(PyObject *v)
{
  if (PyComplex_Check(v)) {
    Py_complex z = PyComplex_AsCComplex(v);
    return z.real == 0 && z.imag == 0;
  }
  return PyFloat_AsDouble(v) == 0.0;
}

/* pow and float_power: x ** y. */
static void pow_backward(tl_grad_ctx *c, PyObject *g, const char *pow_name)
{
  PyObject *x = X(0, "input"), *y = X(1, "other");
  /* An exponent given as an array or a list (x ** np.array([...])) was a
   * tensor to the forward op, and is one here too: on the gradients' device,
   * not the default device, which need not be x's. */
  if (y && !tl_py_is_tensor(y) && !PyLong_Check(y) && !PyFloat_Check(y) && !PyComplex_Check(y))
    y = CALL("as_tensor", "O|{s:O}", y, "device", tl_grad_device(c));
  if (NEEDS(x)) {
    PyObject *gx;
    if (!tl_py_is_tensor(y)) {
      if (scalar_is_zero(y)) {
        gx = zeros(c, x);
      } else {
        PyObject *one = tl_grad_keep(c, PyLong_FromLong(1));
        PyObject *ym1 = one ? tl_grad_keep(c, PyNumber_Subtract(y, one)) : NULL;
        gx = chain(c, g, CALL("mul", "OO", CALL(pow_name, "OO", x, ym1), y));
      }
    } else {
      PyObject *d = CALL("mul", "OO", y, CALL(pow_name, "OO", x, CALL("sub", "Oi", y, 1)));
      gx = drop_where(c, CALL("eq", "Oi", y, 0), chain(c, g, d));
    }
    SEND(x, gx);
  }
  if (NEEDS(y)) {
    /* d/dy x**y = x**y log x; zero where x == 0 and y >= 0 (0**0 included) */
    PyObject *yre = is_complex(y) ? CALL("real", "O", y) : y;
    PyObject *r = R(0), *lx, *zero_base;
    if (tl_py_is_tensor(x)) {
      lx = CALL("log", "O", x);
      zero_base = CALL("logical_and", "OO", CALL("eq", "Oi", x, 0), CALL("ge", "Oi", yre, 0));
    } else {
      lx = scalar_log(c, x);
      zero_base = scalar_is_zero(x) ? CALL("ge", "Oi", yre, 0) : NULL;
    }
    PyObject *gy = chain(c, g, CALL("mul", "OO", r, lx));
    if (zero_base)
      gy = drop_where(c, zero_base, gy);
    SEND(y, gy);
  }
}

/* maximum/minimum and fmax/fmin: ties split evenly (PyTorch's rule for
 * both); in fmax/fmin a NaN loses. */
static void extremum_backward(tl_grad_ctx *c, PyObject *g)
{
  PyObject *x = X(0, "input"), *y = X(1, "other");
  switch (c->formula) {
  case TL_OP_MAXIMUM:
  case TL_OP_MINIMUM: {
    bool max = c->formula == TL_OP_MAXIMUM;
    PyObject *split = CALL("where", "OOO", CALL("eq", "OO", x, y), CALL("div", "Oi", g, 2), g);
    if (NEEDS(x))
      SEND(x, drop_where(c, CALL(max ? "lt" : "gt", "OO", x, y), split));
    if (NEEDS(y))
      SEND(y, drop_where(c, CALL(max ? "gt" : "lt", "OO", x, y), split));
    break;
  }
  default: {
    /* fmax/fmin: the number wins over a NaN (both NaN: x), a tie splits g */
    bool max = c->formula == TL_OP_FMAX;
    PyObject *split = CALL("where", "OOO", CALL("eq", "OO", x, y), CALL("div", "Oi", g, 2), g);
    PyObject *nan_y = CALL("isnan", "O", y);
    if (NEEDS(x))
      SEND(x, keep_where(c, CALL("logical_or", "OO", CALL(max ? "ge" : "le", "OO", x, y), nan_y),
                         split));
    if (NEEDS(y))
      SEND(y, drop_where(c, CALL("logical_or", "OO", CALL(max ? "gt" : "lt", "OO", x, y), nan_y),
                         split));
    break;
  }
  }
}

/* clamp(x, min, max), PyTorch's rule at the kinks: x gets g where
 * min < x < max.  A tie with a number bound sends nothing; a tie with a
 * tensor bound is split evenly between x and that bound (as maximum and
 * minimum do), except that x == min == max gives x all of g.  A tensor min
 * gets g where x < min <= max, a tensor max where x > max or min > max (the
 * result is max there).  Absent bounds are None. */
static void clamp_backward(tl_grad_ctx *c, PyObject *g)
{
  PyObject *x = X(0, "input"), *lo = X(1, "min"), *hi = X(2, "max");
  if (lo == Py_None)
    lo = NULL;
  if (hi == Py_None)
    hi = NULL;
  if (PyErr_Occurred())
    return;
  bool lo_tensor = lo && tl_py_is_tensor(lo), hi_tensor = hi && tl_py_is_tensor(hi);
  PyObject *half = CALL("mul", "Od", g, 0.5);
  /* x == min < max and min < x == max: the ties that split g */
  PyObject *tie_lo = NULL, *tie_hi = NULL;
  if (lo_tensor) {
    tie_lo = CALL("eq", "OO", x, lo);
    if (hi)
      tie_lo = CALL("logical_and", "OO", tie_lo, CALL("lt", "OO", x, hi));
  }
  if (hi_tensor) {
    tie_hi = CALL("eq", "OO", x, hi);
    if (lo)
      tie_hi = CALL("logical_and", "OO", tie_hi, CALL("gt", "OO", x, lo));
  }
  if (NEEDS(x)) {
    PyObject *inside = lo ? CALL("gt", "OO", x, lo) : NULL;
    if (hi)
      inside = inside ? CALL("logical_and", "OO", inside, CALL("lt", "OO", x, hi))
                      : CALL("lt", "OO", x, hi);
    PyObject *gx = keep_where(c, inside, g);
    if (tie_lo)
      gx = CALL("where", "OOO", tie_lo, half, gx);
    if (tie_hi)
      gx = CALL("where", "OOO", tie_hi, half, gx);
    if (lo_tensor && hi_tensor)
      gx = CALL("where", "OOO", CALL("logical_and", "OO", CALL("eq", "OO", x, lo),
                                     CALL("eq", "OO", x, hi)), g, gx);
    SEND(x, gx);
  }
  if (lo && NEEDS(lo)) {
    PyObject *below = CALL("lt", "OO", x, lo);
    if (hi)
      below = CALL("logical_and", "OO", below, CALL("le", "OO", lo, hi));
    SEND(lo, CALL("where", "OOO", tie_lo, half, keep_where(c, below, g)));
  }
  if (hi && NEEDS(hi)) {
    PyObject *above = CALL("gt", "OO", x, hi);
    if (lo)
      above = CALL("logical_or", "OO", above, CALL("gt", "OO", lo, hi));
    SEND(hi, CALL("where", "OOO", tie_hi, half, keep_where(c, above, g)));
  }
}

/* A copy or cast: the gradient goes back unchanged to the input's device and
 * dtype (the real part for a real input), as PyTorch's _to_copy backward: a
 * leaf whose grad_dtype is None still gets its own dtype through a cast. */
static PyObject *to_input(tl_grad_ctx *c, PyObject *g, PyObject *x)
{
  if (!g || !x || !tl_py_is_tensor(x) || PyErr_Occurred())
    return NULL;
  const tl_tensor *gt = tl_py_t(g), *xt = tl_py_t(x);
  if (is_complex(g) && !is_complex(x))
    g = CALL("real", "O", g);
  if (g && gt->dtype != xt->dtype)
    g = CALL("to", "OO", g, tl_py_dtype_obj(xt->dtype));
  if (g && !tl_device_eq(gt->storage->device, xt->storage->device))
    g = CALL("to", "OO", g, tl_grad_keep(c, tl_py_device_obj(xt->storage->device)));
  return g;
}

static void unary_backward(tl_grad_ctx *c, PyObject *g)
{
  PyObject *x = ARG(0, "input");
  if (!NEEDS(x))
    return;
  PyObject *gx = NULL;
  switch (c->formula) {
  case TL_OP_NEG:
    gx = CALL("neg", "O", g);
    break;
  case TL_OP_POSITIVE:
  case TL_OP_FRAC:
    gx = g;
    break;
  case TL_OP_ABS: /* g * sgn(x): real g, complex gradient for complex x */
    gx = CALL("mul", "OO", g, CALL("sgn", "O", X(0, "input")));
    break;
  case TL_OP_SGN:
    if (is_complex(x)) {
      /* The tangential part of g, over |z|; zero at z == 0. */
      PyObject *z = X(0, "input"), *s = R(0), *a = CALL("abs", "O", z);
      PyObject *radial = CALL("real", "O", CALL("mul", "OO", conj_of(c, g), s));
      PyObject *t = CALL("div", "OO", CALL("sub", "OO", g, CALL("mul", "OO", s, radial)), a);
      gx = drop_where(c, CALL("eq", "Oi", a, 0), t);
    } else {
      gx = zeros(c, g);
    }
    break;
  case TL_OP_SIGN:
  case TL_OP_FLOOR:
  case TL_OP_CEIL:
  case TL_OP_ROUND:
  case TL_OP_TRUNC:
    gx = zeros(c, g);
    break;
  case TL_OP_RECIPROCAL: { /* -1/x^2 = -r^2 */
    PyObject *r = R(0);
    gx = chain(c, g, CALL("neg", "O", CALL("mul", "OO", r, r)));
    break;
  }
  case TL_OP_SQUARE:
    gx = chain(c, g, CALL("mul", "Oi", X(0, "input"), 2));
    break;
  case TL_OP_SQRT: /* 1/(2 sqrt x): inf at 0, as PyTorch */
    gx = CALL("div", "OO", g, CALL("mul", "Oi", conj_of(c, R(0)), 2));
    break;
  case TL_OP_RSQRT: { /* -x^(-3/2)/2 = -r^3/2 */
    PyObject *r = R(0);
    gx = chain(c, g, CALL("mul", "Od", CALL("mul", "OO", r, CALL("mul", "OO", r, r)), -0.5));
    break;
  }
  case TL_OP_EXP:
    gx = chain(c, g, R(0));
    break;
  case TL_OP_EXP2:
    gx = chain(c, g, CALL("mul", "Od", R(0), M_LN2));
    break;
  case TL_OP_EXPM1:
    gx = chain(c, g, CALL("add", "Oi", R(0), 1));
    break;
  case TL_OP_LOG:
    gx = CALL("div", "OO", g, conj_of(c, X(0, "input")));
    break;
  case TL_OP_LOG2:
    gx = CALL("div", "OO", g, conj_of(c, CALL("mul", "Od", X(0, "input"), M_LN2)));
    break;
  case TL_OP_LOG10:
    gx = CALL("div", "OO", g, conj_of(c, CALL("mul", "Od", X(0, "input"), M_LN10)));
    break;
  case TL_OP_LOG1P:
    gx = CALL("div", "OO", g, conj_of(c, CALL("add", "Oi", X(0, "input"), 1)));
    break;
  case TL_OP_SIN:
    gx = chain(c, g, CALL("cos", "O", X(0, "input")));
    break;
  case TL_OP_COS:
    gx = chain(c, g, CALL("neg", "O", CALL("sin", "O", X(0, "input"))));
    break;
  case TL_OP_TAN: { /* 1 + tan^2 */
    PyObject *r = R(0);
    gx = chain(c, g, CALL("add", "Oi", CALL("mul", "OO", r, r), 1));
    break;
  }
  case TL_OP_ASIN:
  case TL_OP_ACOS: { /* +-1/sqrt(1 - x^2) */
    PyObject *v = X(0, "input");
    PyObject *d = CALL("reciprocal", "O", CALL("sqrt", "O", CALL("sub", "iO", 1, CALL("mul", "OO", v, v))));
    gx = chain(c, g, c->formula == TL_OP_ACOS ? CALL("neg", "O", d) : d);
    break;
  }
  case TL_OP_ATAN: { /* 1/(1 + x^2) */
    PyObject *v = X(0, "input");
    gx = CALL("div", "OO", g, conj_of(c, CALL("add", "Oi", CALL("mul", "OO", v, v), 1)));
    break;
  }
  case TL_OP_SINH:
    gx = chain(c, g, CALL("cosh", "O", X(0, "input")));
    break;
  case TL_OP_COSH:
    gx = chain(c, g, CALL("sinh", "O", X(0, "input")));
    break;
  case TL_OP_TANH: { /* 1 - tanh^2 */
    PyObject *r = R(0);
    gx = chain(c, g, CALL("sub", "iO", 1, CALL("mul", "OO", r, r)));
    break;
  }
  case TL_OP_ASINH: { /* 1/sqrt(x^2 + 1) */
    PyObject *v = X(0, "input");
    gx = CALL("div", "OO", g, conj_of(c, CALL("sqrt", "O", CALL("add", "Oi", CALL("mul", "OO", v, v), 1))));
    break;
  }
  case TL_OP_ACOSH: { /* 1/(sqrt(x - 1) sqrt(x + 1)), right on the complex plane too */
    PyObject *v = X(0, "input");
    PyObject *d = CALL("mul", "OO", CALL("sqrt", "O", CALL("sub", "Oi", v, 1)),
                       CALL("sqrt", "O", CALL("add", "Oi", v, 1)));
    gx = CALL("div", "OO", g, conj_of(c, d));
    break;
  }
  case TL_OP_ATANH: { /* 1/(1 - x^2) */
    PyObject *v = X(0, "input");
    gx = CALL("div", "OO", g, conj_of(c, CALL("sub", "iO", 1, CALL("mul", "OO", v, v))));
    break;
  }
  case TL_OP_SIGMOID: { /* r (1 - r) */
    PyObject *r = R(0);
    gx = chain(c, g, CALL("mul", "OO", r, CALL("sub", "iO", 1, r)));
    break;
  }
  case TL_OP_ERF:
  case TL_OP_ERFC: { /* +-2/sqrt(pi) exp(-x^2) */
    PyObject *v = X(0, "input");
    double k = (c->formula == TL_OP_ERF ? 2.0 : -2.0) / sqrt(M_PI);
    gx = CALL("mul", "OO", g, CALL("mul", "Od", CALL("exp", "O", CALL("neg", "O", CALL("mul", "OO", v, v))), k));
    break;
  }
  case TL_OP_ERFINV: { /* sqrt(pi)/2 exp(r^2) */
    PyObject *r = R(0);
    gx = CALL("mul", "OO", g, CALL("mul", "Od", CALL("exp", "O", CALL("mul", "OO", r, r)), sqrt(M_PI) / 2));
    break;
  }
  case TL_OP_LGAMMA:
    gx = CALL("mul", "OO", g, CALL("digamma", "O", X(0, "input")));
    break;
  case TL_OP_DIGAMMA:
    gx = CALL("mul", "OO", g, CALL("_polygamma", "Oi", X(0, "input"), 1));
    break;
  case TL_OP_CONJ_PHYSICAL:
    gx = conj_of(c, g);
    break;
  case TL_OP_ANGLE:
    if (is_complex(x)) {
      /* atan2(im, re): g * i z / |z|^2, zero at z == 0 */
      PyObject *z = X(0, "input"), *a = CALL("abs", "O", z);
      PyObject *iz = CALL("mul", "OO", z, tl_grad_keep(c, PyComplex_FromDoubles(0.0, 1.0)));
      PyObject *t = CALL("div", "OO", CALL("mul", "OO", g, iz), CALL("mul", "OO", a, a));
      gx = drop_where(c, CALL("eq", "Oi", a, 0), t);
    } else {
      gx = zeros(c, g);
    }
    break;
  case TL_OP_NAN_TO_NUM:
    gx = CALL("mul", "OO", g, CALL("isfinite", "O", X(0, "input")));
    break;
  case TL_OP_SINC: { /* (cos(pi x) - r) / x, 0 at x == 0 (PyTorch's) */
    PyObject *v = X(0, "input");
    PyObject *d = CALL("div", "OO", CALL("sub", "OO", CALL("cos", "O", CALL("mul", "Od", v, M_PI)), R(0)), v);
    gx = drop_where(c, CALL("eq", "Oi", v, 0), chain(c, g, d));
    break;
  }
  case TL_OP_CBRT: /* 1 / (3 r^2) */
    gx = CALL("div", "OO", g, CALL("mul", "Oi", CALL("mul", "OO", R(0), R(0)), 3));
    break;
  case TL_OP_FREXP_MANTISSA: { /* 2^-exponent = r / x; 1 where the exponent is 0 (PyTorch's) */
    PyObject *v = X(0, "input");
    PyObject *scaled = CALL("logical_and", "OO", CALL("isfinite", "O", v), CALL("ne", "Oi", v, 0));
    gx = CALL("where", "OOO", scaled, CALL("mul", "OO", g, CALL("div", "OO", R(0), v)), g);
    break;
  }
  }
  SEND(x, gx);
}

static void binary_backward(tl_grad_ctx *c, PyObject *g)
{
  PyObject *x = ARG(0, "input"), *y = ARG(1, "other");
  switch (c->formula) {
  case TL_OP_ADD:
  case TL_OP_SUB: {
    PyObject *alpha = ARG(-1, "alpha");
    if (alpha && tl_py_is_tensor(alpha)) { /* the node kept only its shape */
      PyErr_Format(PyExc_RuntimeError, "%s(): an alpha given as a Tensor is not supported by "
                   "autograd; pass a Python number", tl_grad_formula_name(c->formula));
      return;
    }
    PyObject *gy = alpha ? chain(c, g, alpha) : g;
    SEND(x, g);
    SEND(y, c->formula == TL_OP_SUB ? CALL("neg", "O", gy) : gy);
    break;
  }
  case TL_OP_MUL:
    if (NEEDS(x))
      SEND(x, chain(c, g, X(1, "other")));
    if (NEEDS(y))
      SEND(y, chain(c, g, X(0, "input")));
    break;
  case TL_OP_DIV: {
    PyObject *mode = ARG(-1, "rounding_mode");
    if (mode && mode != Py_None) { /* floor/trunc division: piecewise constant */
      if (NEEDS(x))
        SEND(x, zeros(c, g));
      if (NEEDS(y))
        SEND(y, zeros(c, g));
      break;
    }
    /* x's value is read (and its version checked) only for y's gradient,
     * as PyTorch saves it only then: x may be updated in place after */
    y = X(1, "other");
    if (NEEDS(x))
      SEND(x, CALL("div", "OO", g, conj_of(c, y)));
    if (NEEDS(y)) /* -x/y^2 */
      SEND(y, CALL("neg", "O", chain(c, g, CALL("div", "OO", X(0, "input"),
                                                CALL("mul", "OO", y, y)))));
    break;
  }
  case TL_OP_TRUNC_DIVIDE:
  case TL_OP_FLOOR_DIVIDE:
    if (NEEDS(x))
      SEND(x, zeros(c, g));
    if (NEEDS(y))
      SEND(y, zeros(c, g));
    break;
  case TL_OP_REMAINDER:
  case TL_OP_FMOD: /* x - y * rounded(x / y) */
    SEND(x, g);
    if (NEEDS(y)) {
      const char *mode = c->formula == TL_OP_REMAINDER ? "floor" : "trunc";
      PyObject *q = CALL("div", "OO|{s:s}", X(0, "input"), X(1, "other"), "rounding_mode", mode);
      SEND(y, CALL("neg", "O", CALL("mul", "OO", g, q)));
    }
    break;
  case TL_OP_POW:
    pow_backward(c, g, "pow");
    break;
  case TL_OP_FLOAT_POWER:
    pow_backward(c, g, "float_power");
    break;
  case TL_OP_ATAN2: { /* atan2(x, y): d/dx = y/(x^2+y^2), d/dy = -x/(x^2+y^2) */
    x = X(0, "input");
    y = X(1, "other");
    PyObject *den = CALL("add", "OO", CALL("mul", "OO", x, x), CALL("mul", "OO", y, y));
    /* zero where x^2 + y^2 is 0 (the origin, or underflow), as PyTorch's */
    PyObject *gden = drop_where(c, CALL("eq", "Od", den, 0.0), CALL("div", "OO", g, den));
    if (NEEDS(x))
      SEND(x, CALL("mul", "OO", gden, y));
    if (NEEDS(y))
      SEND(y, CALL("neg", "O", CALL("mul", "OO", gden, x)));
    break;
  }
  case TL_OP_HYPOT: {
    PyObject *gr = CALL("div", "OO", g, R(0));
    if (NEEDS(x))
      SEND(x, CALL("mul", "OO", gr, X(0, "input")));
    if (NEEDS(y))
      SEND(y, CALL("mul", "OO", gr, X(1, "other")));
    break;
  }
  case TL_OP_LOGADDEXP:
  case TL_OP_LOGADDEXP2: { /* the softmax weight of each side: b^(x - r) */
    const char *expf = c->formula == TL_OP_LOGADDEXP ? "exp" : "exp2";
    PyObject *r = R(0);
    if (NEEDS(x))
      SEND(x, CALL("mul", "OO", g, CALL(expf, "O", CALL("sub", "OO", X(0, "input"), r))));
    if (NEEDS(y))
      SEND(y, CALL("mul", "OO", g, CALL(expf, "O", CALL("sub", "OO", X(1, "other"), r))));
    break;
  }
  case TL_OP_COPYSIGN: /* r/x = sign(x) sign(r) where x != 0, 0 at x == 0 */
    if (NEEDS(x))
      SEND(x, CALL("mul", "OO", g, CALL("mul", "OO", CALL("sign", "O", X(0, "input")),
                                        CALL("sign", "O", R(0)))));
    if (NEEDS(y))
      SEND(y, zeros(c, g));
    break;
  case TL_OP_NEXTAFTER: /* one step towards y: PyTorch passes g to x and zeros to y */
    if (NEEDS(x))
      SEND(x, g);
    if (NEEDS(y))
      SEND(y, zeros(c, g));
    break;
  case TL_OP_LDEXP: /* x * 2^y: 2^y for x, r ln 2 for y */
    if (NEEDS(x))
      SEND(x, CALL("mul", "OO", g, CALL("exp2", "O", X(1, "other"))));
    if (NEEDS(y))
      SEND(y, CALL("mul", "OO", g, CALL("mul", "Od", R(0), M_LN2)));
    break;
  case TL_OP_XLOGY:
    x = X(0, "input");
    y = X(1, "other");
    if (NEEDS(x)) /* log y, also at x == 0 (PyTorch's); 0 where x == 0 and y <= 0 */
      SEND(x, CALL("masked_fill", "OOd", CALL("xlogy", "OO", g, y),
                   CALL("logical_and", "OO", CALL("eq", "Oi", x, 0), CALL("le", "Oi", y, 0)),
                   0.0));
    if (NEEDS(y))
      SEND(y, CALL("mul", "OO", g, CALL("div", "OO", x, y)));
    break;
  case TL_OP_POLYGAMMA: /* d/dx polygamma(n, x) = polygamma(n + 1, x); n is an integer */
    if (NEEDS(x)) {
      PyObject *n = X(1, "other");
      PyObject *one = tl_grad_keep(c, PyLong_FromLong(1));
      PyObject *n1 = one ? tl_grad_keep(c, PyNumber_Add(n, one)) : NULL;
      SEND(x, CALL("mul", "OO", g, CALL("_polygamma", "OO", X(0, "input"), n1)));
    }
    break;
  case TL_OP_MINIMUM:
  case TL_OP_MAXIMUM:
  case TL_OP_FMIN:
  case TL_OP_FMAX:
    extremum_backward(c, g);
    break;
  }
}

static void copy_backward(tl_grad_ctx *c, PyObject *g)
{
  switch (c->formula) {
  case TL_GRAD_CLONE:
  case TL_GRAD_CONTIGUOUS:
  case TL_GRAD_TO:
  case TL_GRAD_CPU:
  case TL_GRAD_FLOAT:
  case TL_GRAD_DOUBLE:
  case TL_GRAD_HALF:
  case TL_GRAD_BFLOAT16:
  case TL_GRAD_CFLOAT:
  case TL_GRAD_CDOUBLE: {
    PyObject *x = ARG(0, "input");
    SEND(x, to_input(c, g, x));
    break;
  }
  case TL_GRAD_COPY_: { /* the old value of self is overwritten: zero gradient */
    PyObject *self = ARG(0, "self"), *src = ARG(1, "other");
    SEND(self, zeros(c, g));
    if (src && tl_py_is_tensor(src))
      SEND(src, to_input(c, g, src));
    break;
  }
  case TL_GRAD_FILL_: {
    PyObject *self = ARG(0, "self"), *value = ARG(1, "value");
    SEND(self, zeros(c, g));
    if (value && tl_py_is_tensor(value))
      SEND(value, to_input(c, CALL("sum", "O", g), value));
    break;
  }
  case TL_GRAD_REAL: /* SEND makes g complex again */
    SEND(ARG(0, "input"), g);
    break;
  case TL_GRAD_IMAG: /* d(re)/d(im) -> i */
    SEND(ARG(0, "input"), CALL("mul", "OO", g, tl_grad_keep(c, PyComplex_FromDoubles(0.0, 1.0))));
    break;
  case TL_GRAD_ZERO_: {
    SEND(ARG(0, "self"), zeros(c, g));
    break;
  }
  }
}

static void backward(tl_grad_ctx *c)
{
  PyObject *g = G(0);
  if (!g)
    return;
  if (c->formula >= TL_OP_COUNT) {
    copy_backward(c, g);
    return;
  }
  switch (tl_op_infos[c->formula].kind) {
  case TL_OPKIND_UNARY:
    unary_backward(c, g);
    break;
  case TL_OPKIND_BINARY:
    binary_backward(c, g);
    break;
  case TL_OPKIND_WHERE: { /* the condition gets nothing */
    PyObject *cond = X(0, "condition"), *a = ARG(1, "input"), *b = ARG(2, "other");
    if (NEEDS(a))
      SEND(a, keep_where(c, cond, g));
    if (NEEDS(b))
      SEND(b, drop_where(c, cond, g));
    break;
  }
  case TL_OPKIND_CLAMP:
    clamp_backward(c, g);
    break;
  default:
    break;
  }
}

void tl_grad_formulas_elementwise_init(void)
{
  static const int ids[] = {
      /* unary */
      TL_OP_NEG, TL_OP_POSITIVE, TL_OP_ABS, TL_OP_SIGN, TL_OP_SGN, TL_OP_RECIPROCAL, TL_OP_SQUARE,
      TL_OP_SQRT, TL_OP_RSQRT, TL_OP_EXP, TL_OP_EXP2, TL_OP_EXPM1, TL_OP_LOG, TL_OP_LOG2,
      TL_OP_LOG10, TL_OP_LOG1P, TL_OP_SIN, TL_OP_COS, TL_OP_TAN, TL_OP_ASIN, TL_OP_ACOS,
      TL_OP_ATAN, TL_OP_SINH, TL_OP_COSH, TL_OP_TANH, TL_OP_ASINH, TL_OP_ACOSH, TL_OP_ATANH,
      TL_OP_SIGMOID, TL_OP_ERF, TL_OP_ERFC, TL_OP_ERFINV, TL_OP_LGAMMA, TL_OP_DIGAMMA,
      TL_OP_FLOOR, TL_OP_CEIL, TL_OP_ROUND, TL_OP_TRUNC, TL_OP_FRAC, TL_OP_CONJ_PHYSICAL,
      TL_OP_ANGLE, TL_OP_NAN_TO_NUM, TL_OP_SINC, TL_OP_CBRT, TL_OP_FREXP_MANTISSA,
      /* binary */
      TL_OP_ADD, TL_OP_SUB, TL_OP_MUL, TL_OP_DIV, TL_OP_TRUNC_DIVIDE, TL_OP_FLOOR_DIVIDE,
      TL_OP_REMAINDER, TL_OP_FMOD, TL_OP_POW, TL_OP_FLOAT_POWER, TL_OP_ATAN2, TL_OP_HYPOT,
      TL_OP_LOGADDEXP, TL_OP_LOGADDEXP2, TL_OP_COPYSIGN, TL_OP_XLOGY, TL_OP_MINIMUM,
      TL_OP_MAXIMUM, TL_OP_FMIN, TL_OP_FMAX, TL_OP_POLYGAMMA, TL_OP_LDEXP, TL_OP_NEXTAFTER,
      /* where, clamp */
      TL_OP_WHERE, TL_OP_CLAMP,
      /* copies and casts */
      TL_GRAD_CLONE, TL_GRAD_CONTIGUOUS, TL_GRAD_TO, TL_GRAD_CPU, TL_GRAD_FLOAT, TL_GRAD_DOUBLE,
      TL_GRAD_HALF, TL_GRAD_BFLOAT16, TL_GRAD_CFLOAT, TL_GRAD_CDOUBLE, TL_GRAD_COPY_,
      TL_GRAD_FILL_, TL_GRAD_ZERO_, TL_GRAD_REAL, TL_GRAD_IMAG};
  TL_GRAD_REGISTER(ids, backward, 0);

  /* What each formula never reads back: the node keeps only shapes of it.
   * Stubs lose the device, so formulas that move a gradient to an input's
   * device (casts, copy_, fill_) keep their inputs. */
  static const int nothing[] = {TL_OP_NEG, TL_OP_POSITIVE, TL_OP_SIGN, TL_OP_FLOOR, TL_OP_CEIL,
                                TL_OP_ROUND, TL_OP_TRUNC, TL_OP_FRAC, TL_OP_CONJ_PHYSICAL,
                                TL_OP_ADD, TL_OP_SUB, TL_OP_TRUNC_DIVIDE, TL_OP_FLOOR_DIVIDE,
                                TL_GRAD_ZERO_, TL_GRAD_REAL, TL_GRAD_IMAG};
  static const int result_only[] = {TL_OP_RECIPROCAL, TL_OP_SQRT, TL_OP_RSQRT, TL_OP_EXP,
                                    TL_OP_EXP2, TL_OP_EXPM1, TL_OP_TAN, TL_OP_TANH,
                                    TL_OP_SIGMOID, TL_OP_ERFINV, TL_OP_CBRT};
  static const int inputs_only[] = {
      TL_OP_ABS, TL_OP_SQUARE, TL_OP_LOG, TL_OP_LOG2, TL_OP_LOG10, TL_OP_LOG1P, TL_OP_SIN,
      TL_OP_COS, TL_OP_ASIN, TL_OP_ACOS, TL_OP_ATAN, TL_OP_SINH, TL_OP_COSH, TL_OP_ASINH,
      TL_OP_ACOSH, TL_OP_ATANH, TL_OP_ERF, TL_OP_ERFC, TL_OP_LGAMMA, TL_OP_DIGAMMA, TL_OP_ANGLE,
      TL_OP_NAN_TO_NUM, TL_OP_MUL, TL_OP_DIV, TL_OP_REMAINDER, TL_OP_FMOD, TL_OP_ATAN2,
      TL_OP_XLOGY, TL_OP_POLYGAMMA, TL_OP_MINIMUM, TL_OP_MAXIMUM, TL_OP_FMIN, TL_OP_FMAX,
      TL_OP_WHERE, TL_OP_CLAMP, TL_GRAD_CLONE, TL_GRAD_CONTIGUOUS, TL_GRAD_TO, TL_GRAD_CPU,
      TL_GRAD_FLOAT, TL_GRAD_DOUBLE, TL_GRAD_HALF, TL_GRAD_BFLOAT16, TL_GRAD_CFLOAT,
      TL_GRAD_CDOUBLE, TL_GRAD_COPY_, TL_GRAD_FILL_};
  TL_GRAD_DROP(nothing, TL_GRAD_DROP_INPUTS | TL_GRAD_DROP_OUTPUTS);
  TL_GRAD_DROP(result_only, TL_GRAD_DROP_INPUTS);
  TL_GRAD_DROP(inputs_only, TL_GRAD_DROP_OUTPUTS);
  /* mul reads x only for y's gradient and y only for x's: x * 2.0 keeps
   * nothing, so a chain of such ops does not hold every intermediate */
  tl_grad_drops(TL_OP_MUL, TL_GRAD_DROP_OUTPUTS | TL_GRAD_DROP_UNPAIRED);
}
