/* formulas_reduce.c - derivatives of reductions, scans, sorting and
 * selection, and matrix products (ops.def REDUCE, REDUCE_PAIR, SCAN, SORT,
 * MATMUL).
 *
 * Legend: g is the gradient of the output, x the input, r the result; gu and
 * ru are g and r "unreduced" (reduced dims put back as size 1) so that they
 * broadcast against x.
 *
 * Conventions (PyTorch's): amax/amin and max/min/median without a dim split
 * the gradient evenly between ties; max/min/median/kthvalue/mode with a dim,
 * sort, topk and cummax send it to the index the op returned, which the
 * node keeps (R(1): integer outputs get no history but are saved).  Complex
 * gradients are
 * conj-Wirtinger: g times the conjugate of the derivative.
 *
 * Argument positions follow the parsers: py_reduce.c (reductions, scans),
 * py_sort.c (sort family) and py_linalg.c (products).                      */
#include <math.h>

#include "grad/py_grad.h"

/* ---- helpers ------------------------------------------------------------------- */

static PyObject *or_none(PyObject *o) { return o ? o : Py_None; }

static bool truthy(PyObject *o, bool dflt)
{
  if (!o || o == Py_None)
    return dflt;
  return PyObject_IsTrue(o) > 0;
}

static bool is_complex(PyObject *t)
{
  return t && tl_py_is_tensor(t) && tl_dtype_is_complex(tl_py_t(t)->dtype);
}

/* conj(t) for complex tensors, t itself for real ones. */
static PyObject *cj(tl_grad_ctx *c, PyObject *t)
{
  return is_complex(t) ? CALL("conj_physical", "O", t) : t;
}

/* An operand given as a list or number, made a tensor. */
static PyObject *tens(tl_grad_ctx *c, PyObject *o)
{
  if (!o || PyErr_Occurred())
    return NULL;
  return tl_py_is_tensor(o) ? o : CALL("tensor", "O|{s:O}", o, "device", tl_grad_device(c));
}

static PyObject *pyint(tl_grad_ctx *c, long long v)
{
  return tl_grad_keep(c, PyLong_FromLongLong(v));
}

/* A reduction's dim argument with "every dim" spelled None (dim=() and dim=[]
 * also mean every dim, as in PyTorch). */
static PyObject *dims_arg(PyObject *dim)
{
  if (!dim || dim == Py_None)
    return Py_None;
  if ((PyTuple_Check(dim) || PyList_Check(dim)) && PySequence_Size(dim) == 0)
    return Py_None;
  return dim;
}

static PyObject *unreduce(tl_grad_ctx *c, PyObject *g, PyObject *x, PyObject *dim,
                          PyObject *keepdim)
{
  return tl_grad_unreduce(c, g, x, dims_arg(dim), keepdim ? keepdim : Py_False);
}

/* How many elements of x each output element reduces. */
static int64_t reduced_count(PyObject *x, PyObject *dim)
{
  const tl_tensor *t = tl_py_t(x);
  uint64_t mask;
  if (tl_py_parse_dims(dims_arg(dim), t->ndim, &mask) < 0)
    return -1;
  int64_t n = 1;
  for (int d = 0; d < t->ndim; d++)
    if (mask >> d & 1)
      n *= t->shape[d];
  return n;
}

/* A reduction over dim with keepdim=True (the shape of gu). */
static PyObject *sum_keep(tl_grad_ctx *c, PyObject *t, PyObject *dim)
{
  return CALL("sum", "O|{s:O,s:O}", t, "dim", dims_arg(dim), "keepdim", Py_True);
}

static PyObject *item(tl_grad_ctx *c, PyObject *seq, Py_ssize_t i)
{
  if (!seq || PyErr_Occurred())
    return NULL;
  return tl_grad_keep(c, PySequence_GetItem(seq, i));
}

static PyObject *detached(tl_grad_ctx *c, PyObject *x) { return CALL("detach", "O", x); }

static bool any_zero(tl_grad_ctx *c, PyObject *x)
{
  PyObject *a = CALL("any", "O", CALL("eq", "Oi", x, 0));
  return a && PyObject_IsTrue(a) > 0;
}

/* Where x equals r (both NaN counts as equal), the gradient gu split evenly
 * over the equal elements of each reduced slice. */
static PyObject *distribute(tl_grad_ctx *c, PyObject *gu, PyObject *x, PyObject *ru, PyObject *dim)
{
  PyObject *mask = CALL("logical_or", "OO", CALL("eq", "OO", x, ru),
                        CALL("logical_and", "OO", CALL("isnan", "O", x), CALL("isnan", "O", ru)));
  return CALL("mul", "OO", CALL("div", "OO", gu, sum_keep(c, mask, dim)), mask);
}

/* The gradient through values that were picked from x at indices idx along
 * dim (a value-selecting reduction, sort, topk ...): g scattered back. */
static PyObject *select_back(tl_grad_ctx *c, PyObject *g, PyObject *x, PyObject *dim, PyObject *idx)
{
  return CALL("scatter_add", "OOOO", CALL("zeros_like", "O", x), dim, idx, g);
}

/* flip(cumsum(flip(t))) along dim: the sums of t from each position to the end. */
static PyObject *reverse_cumsum(tl_grad_ctx *c, PyObject *t, PyObject *dim)
{
  PyObject *dims = tl_grad_keep(c, Py_BuildValue("[O]", dim));
  return CALL("flip", "OO", CALL("cumsum", "OO", CALL("flip", "OO", t, dims), dim), dims);
}

/* ---- reductions ------------------------------------------------------------------ */

/* var/std: (input, dim, unbiased, keepdim, *, correction), or the legacy
 * (input, unbiased[, keepdim]) with a bool second. */
static void var_std(tl_grad_ctx *c, PyObject *g)
{
  PyObject *x = X(0, "input");
  bool legacy = c->node->nargs >= 2 && PyBool_Check(c->node->args[1]);
  PyObject *dim = legacy ? Py_None : dims_arg(ARG(1, "dim"));
  PyObject *unbiased = legacy ? c->node->args[1] : ARG(2, "unbiased");
  PyObject *keepdim = legacy ? ARG(2, "keepdim") : ARG(3, "keepdim");
  PyObject *corr = legacy ? NULL : ARG(-1, "correction");
  double correction = 1.0;
  if (unbiased && unbiased != Py_None)
    correction = truthy(unbiased, true) ? 1.0 : 0.0;
  else if (corr && corr != Py_None && (correction = PyFloat_AsDouble(corr)) == -1.0 &&
           PyErr_Occurred())
    return;
  int64_t n = x ? reduced_count(x, dim) : -1;
  if (n < 0)
    return;
  double dof = (double)n - correction;
  if (dof < 0)
    dof = 0;
  PyObject *gu = unreduce(c, g, x, dim, keepdim);
  if (c->formula == TL_OP_STD) { /* d std = d var / (2 std); 0 where std is 0 */
    PyObject *ru = unreduce(c, R(0), x, dim, keepdim);
    gu = CALL("where", "OdO", CALL("eq", "Oi", ru, 0), 0.0,
              CALL("div", "OO", gu, CALL("mul", "Oi", ru, 2)));
  }
  PyObject *centered =
      CALL("sub", "OO", x, CALL("mean", "O|{s:O,s:O}", x, "dim", dim, "keepdim", Py_True));
  SEND(x, CALL("mul", "OO", CALL("mul", "Od", gu, 2.0 / dof), centered));
}

/* prod: g r / x, or, where a slice holds zeros, the product of the others
 * (non-zero only at a slice's single zero). */
static void prod(tl_grad_ctx *c, PyObject *g)
{
  PyObject *x = X(0, "input"), *dim = dims_arg(ARG(1, "dim")), *keepdim = ARG(2, "keepdim");
  PyObject *gu = unreduce(c, g, x, dim, keepdim), *ru = unreduce(c, R(0), x, dim, keepdim);
  if (!any_zero(c, x)) {
    SEND(x, CALL("div", "OO", CALL("mul", "OO", gu, cj(c, ru)), cj(c, x)));
    return;
  }
  PyObject *zero = CALL("eq", "Oi", x, 0);
  PyObject *count = sum_keep(c, zero, dim);
  PyObject *safe = CALL("where", "OiO", zero, 1, x);
  PyObject *others = CALL("prod", "O|{s:O,s:O}", safe, "dim", dim, "keepdim", Py_True);
  PyObject *lone = CALL("logical_and", "OO", zero, CALL("eq", "Oi", count, 1));
  PyObject *grad = CALL("where", "OOd", lone, CALL("mul", "OO", gu, cj(c, others)), 0.0);
  PyObject *plain = CALL("div", "OO", CALL("mul", "OO", gu, cj(c, ru)), cj(c, safe));
  SEND(x, CALL("where", "OOO", CALL("eq", "Oi", count, 0), plain, grad));
}

/* The gradient of a p-norm of x over dim, shared with linalg.vector_norm.
 * Zeros are guarded by substituting 1 before dividing rather than by
 * masking a quotient afterwards, so second derivatives stay finite too. */
PyObject *tl_grad_norm_backward(tl_grad_ctx *c, PyObject *gu, PyObject *x, PyObject *ru, double p,
                                PyObject *dim)
{
  if (!gu || !x || !ru || PyErr_Occurred())
    return NULL;
  if (p == 0.0)
    return CALL("zeros_like", "O", x);
  PyObject *sg = CALL("sgn", "O", x);
  if (p == 1.0)
    return CALL("mul", "OO", sg, gu);
  PyObject *ax = CALL("abs", "O", x);
  if (isinf(p)) { /* like amax of |x|: ties split evenly, NaNs count as picked */
    PyObject *mask = CALL("logical_or", "OO", CALL("eq", "OO", ax, ru), CALL("isnan", "O", ax));
    PyObject *share = CALL("div", "OO", gu, sum_keep(c, mask, dim));
    return CALL("mul", "OO", CALL("mul", "OO", sg, mask), share);
  }
  PyObject *r_safe = CALL("where", "OdO", CALL("eq", "Oi", ru, 0), 1.0, ru);
  if (p == 2.0)
    return CALL("mul", "OO", x, CALL("div", "OO", gu, r_safe));
  /* |x|^(p-1) at x = 0: 0 for p > 1, and the derivative is taken as 0 for p < 1 */
  PyObject *ax_safe = CALL("where", "OdO", CALL("eq", "Oi", ax, 0), 1.0, ax);
  PyObject *scale = CALL("div", "OO", gu, CALL("pow", "Od", r_safe, p - 1.0));
  return CALL("mul", "OO", CALL("mul", "OO", sg, CALL("pow", "Od", ax_safe, p - 1.0)), scale);
}

/* norm(input, p='fro', dim=None, keepdim=False, out=None, dtype=None) */
static void norm(tl_grad_ctx *c, PyObject *g)
{
  PyObject *x = X(0, "input"), *po = ARG(1, "p"), *dim = dims_arg(ARG(2, "dim"));
  PyObject *keepdim = ARG(3, "keepdim");
  double p = 2.0;
  if (po && po != Py_None && !PyUnicode_Check(po) && (p = PyFloat_AsDouble(po)) == -1.0 &&
      PyErr_Occurred())
    return;
  PyObject *gu = unreduce(c, g, x, dim, keepdim), *ru = unreduce(c, R(0), x, dim, keepdim);
  SEND(x, tl_grad_norm_backward(c, gu, x, ru, p, dim));
}

/* max/min: (input) | (input, dim, keepdim) | (input, other) elementwise. */
static void max_min(tl_grad_ctx *c, PyObject *g)
{
  PyObject *x = ARG(0, "input"), *dim = ARG(1, "dim"), *other = ARG(4, "other");
  bool is_max = c->formula == TL_OP_MAX;
  bool by_index = dim && dim != Py_None && !tl_py_is_tensor(dim) && !other;
  if (!by_index)
    x = X(0, "input"); /* values compared below; with a dim only the indices are read */
  if (!other && dim && tl_py_is_tensor(dim)) {
    other = X(1, "dim");
    dim = NULL;
  }
  if (other) { /* the elementwise maximum: ties split evenly */
    PyObject *y = other;
    PyObject *half = CALL("where", "OOO", CALL("eq", "OO", x, y), CALL("div", "Oi", g, 2), g);
    if (NEEDS(x))
      SEND(x, CALL("where", "OdO", CALL(is_max ? "lt" : "gt", "OO", x, y), 0.0, half));
    if (NEEDS(y))
      SEND(y, CALL("where", "OdO", CALL(is_max ? "gt" : "lt", "OO", x, y), 0.0, half));
    return;
  }
  if (!dim || dim == Py_None) {
    SEND(x, distribute(c, g, x, R(0), Py_None));
    return;
  }
  PyObject *keepdim = ARG(2, "keepdim");
  PyObject *idx = unreduce(c, R(1), x, dim, keepdim);
  SEND(x, select_back(c, unreduce(c, g, x, dim, keepdim), x, dim, idx));
}

/* ---- scans --------------------------------------------------------------------------- */

/* cumprod: sum over k >= i of g_k y_k / x_i; with zeros, positions before a
 * slice's first zero keep that formula, the first zero gets the sums of g_k
 * times the products with it left out, and later positions get nothing. */
static void cumprod(tl_grad_ctx *c, PyObject *g)
{
  PyObject *x = X(0, "input"), *dim = ARG(1, "dim");
  if (!x || PyErr_Occurred())
    return;
  if (tl_py_t(x)->ndim == 0) {
    SEND(x, g);
    return;
  }
  PyObject *y = R(0);
  PyObject *gy = reverse_cumsum(c, CALL("mul", "OO", g, cj(c, y)), dim);
  if (!any_zero(c, x)) {
    SEND(x, CALL("div", "OO", gy, cj(c, x)));
    return;
  }
  PyObject *zero = CALL("eq", "Oi", x, 0);
  PyObject *seen = CALL("cumsum", "OO", zero, dim);
  PyObject *before = CALL("eq", "Oi", seen, 0);
  PyObject *first = CALL("logical_and", "OO", zero, CALL("eq", "Oi", seen, 1));
  PyObject *y1 = CALL("cumprod", "OO", CALL("where", "OiO", first, 1, x), dim);
  PyObject *at_first = reverse_cumsum(c, CALL("mul", "OO", g, cj(c, y1)), dim);
  PyObject *plain = CALL("div", "OO", gy, cj(c, CALL("where", "OOi", before, x, 1)));
  SEND(x, CALL("where", "OOO", before, plain, CALL("where", "OOd", first, at_first, 0.0)));
}

/* ---- sort family ------------------------------------------------------------------------ */

/* quantile/nanquantile(input, q, dim=None, keepdim=False, interpolation='linear'):
 * each result is a mix of the sorted values at floor(rank) and ceil(rank),
 * rank = q (n - 1) with n the (non-NaN) count; the weights go back to where
 * those sorted values came from.  A q tensor gets the slope of the linear
 * interpolation (the other modes are flat in q). */
static void quantile(tl_grad_ctx *c, PyObject *g)
{
  PyObject *x = X(0, "input"), *q = ARG(1, "q"), *dim = ARG(2, "dim"), *keepdim = ARG(3, "keepdim");
  PyObject *interp = ARG(4, "interpolation");
  if (!x || PyErr_Occurred())
    return;
  const char *mode = interp && PyUnicode_Check(interp) ? PyUnicode_AsUTF8(interp) : "linear";
  if (!mode)
    return;
  bool flat = !dim || dim == Py_None;
  PyObject *xs = flat ? CALL("reshape", "O(i)", detached(c, x), -1) : detached(c, x);
  PyObject *d = flat ? pyint(c, 0) : dim;
  PyObject *order = CALL("argsort", "O|{s:O,s:O}", xs, "dim", d, "stable", Py_True);
  if (!order)
    return;
  const tl_tensor *xt = tl_py_t(xs);
  int wd;
  if (tl_dim_wrap(PyLong_AsLongLong(d), xt->ndim, &wd) != TL_OK) {
    tl_py_raise();
    return;
  }
  int64_t n = xt->ndim ? xt->shape[wd] : 1;
  /* count: the non-NaN values of each slice (nanquantile), else n; a slice
   * holding a NaN has result NaN and takes it from its last sorted place. */
  PyObject *nan = sum_keep(c, CALL("isnan", "O", xs), d);
  PyObject *count = c->formula == TL_OP_NANQUANTILE
                        ? CALL("add", "OL", CALL("neg", "O", nan), (long long)n)
                        : NULL;
  PyObject *qs = tl_py_is_tensor(q) ? CALL("tolist", "O", q) : q;
  bool many = qs && PyList_Check(qs);
  Py_ssize_t nq = many ? PyList_GET_SIZE(qs) : 1;
  PyObject *grad = CALL("zeros_like", "O", xs), *f64 = tl_py_dtype_obj(TL_DTYPE_F64);
  /* q given as a tensor that requires grad: one gradient per q value */
  PyObject *gq = tl_py_is_tensor(q) && NEEDS(q) ? tl_grad_keep(c, PyList_New(0)) : NULL;
  for (Py_ssize_t i = 0; i < nq && !PyErr_Occurred(); i++) {
    double qi = PyFloat_AsDouble(many ? PyList_GET_ITEM(qs, i) : qs);
    if (qi == -1.0 && PyErr_Occurred())
      return;
    PyObject *gi = many ? CALL("select", "Oin", g, 0, i) : g;
    gi = flat ? CALL("reshape", "O(i)", gi, 1) : unreduce(c, gi, xs, d, keepdim);
    PyObject *rank; /* in float64, as the forward computes it */
    if (count) /* max(q (count - 1), 0) */
      rank = CALL("clamp", "O|{s:d}",
                  CALL("mul", "Od", CALL("sub", "Oi", CALL("to", "OO", count, f64), 1), qi), "min",
                  0.0);
    else
      rank = CALL("add", "Od",
                  CALL("mul", "Od", CALL("to", "OO", CALL("gt", "Oi", nan, 0), f64),
                       (1.0 - qi) * (double)(n - 1)),
                  qi * (double)(n - 1));
    PyObject *lo = CALL("floor", "O", rank), *hi = CALL("ceil", "O", rank);
    PyObject *w; /* the weight of hi; lo gets 1 - w */
    if (!strcmp(mode, "lower"))
      w = CALL("zeros_like", "O", rank);
    else if (!strcmp(mode, "higher"))
      w = CALL("ones_like", "O", rank);
    else if (!strcmp(mode, "midpoint"))
      w = CALL("full_like", "Od", rank, 0.5);
    else if (!strcmp(mode, "nearest"))
      w = CALL("sub", "OO", CALL("round", "O", rank), lo);
    else
      w = CALL("sub", "OO", rank, lo);
    w = CALL("to", "OO", w, tl_py_dtype_obj(tl_py_t(x)->dtype));
    PyObject *ilo = CALL("gather", "OOO", order, d, CALL("long", "O", lo));
    PyObject *ihi = CALL("gather", "OOO", order, d, CALL("long", "O", hi));
    grad = CALL("scatter_add", "OOOO", grad, d, ilo,
                CALL("mul", "OO", gi, CALL("add", "Oi", CALL("neg", "O", w), 1)));
    grad = CALL("scatter_add", "OOOO", grad, d, ihi, CALL("mul", "OO", gi, w));
    if (gq && !strcmp(mode, "linear")) {
      /* d result / d q = (hi value - lo value) d rank / d q, where rank moves with q */
      PyObject *vals = flat ? CALL("reshape", "O(i)", x, -1) : x;
      PyObject *diff = CALL("sub", "OO", CALL("gather", "OOO", vals, d, ihi),
                            CALL("gather", "OOO", vals, d, ilo));
      PyObject *slope =
          count ? CALL("mul", "OO", CALL("sub", "Oi", count, 1), CALL("gt", "Oi", rank, 0))
                : CALL("mul", "OL", CALL("eq", "Oi", nan, 0), (long long)(n - 1));
      PyObject *gqi = CALL("sum", "O", CALL("mul", "OO", CALL("mul", "OO", gi, diff), slope));
      if (gqi && PyList_Append(gq, gqi) < 0)
        return;
    } else if (gq) {
      if (PyList_Append(gq, CALL("zeros_like", "O", g ? CALL("sum", "O", g) : NULL)) < 0)
        return;
    }
  }
  SEND(x, flat ? CALL("reshape", "OO", grad, SHAPE(x)) : grad);
  if (gq && !PyErr_Occurred())
    SEND(q, many ? CALL("stack", "O", gq) : PyList_GET_ITEM(gq, 0));
}

/* sort, msort, topk, kthvalue, median/nanmedian/mode with a dim, cummax/cummin:
 * the values came from the indices the op returns. */
static void selected(tl_grad_ctx *c, PyObject *g)
{
  PyObject *x = ARG(0, "input"); /* its shape; msort and median without a dim read values */
  if (!x || PyErr_Occurred())
    return;
  PyObject *m1 = pyint(c, -1), *idx = NULL, *dim = NULL;
  switch (c->formula) {
  case TL_OP_SORT:
    dim = or_none(ARG(1, "dim"));
    dim = dim == Py_None ? m1 : dim;
    idx = R(1);
    break;
  case TL_OP_MSORT: /* values only: the order is found again */
    dim = pyint(c, 0);
    idx = item(c, CALL("sort", "O|{s:O}", detached(c, X(0, "input")), "dim", dim), 1);
    break;
  case TL_OP_SORT_VALUES: /* the same, along dim, maybe descending */
    dim = or_none(ARG(1, "dim"));
    dim = dim == Py_None ? m1 : dim;
    idx = item(c, CALL("sort", "O|{s:O,s:O,s:O}", detached(c, X(0, "input")), "dim", dim,
                       "descending", ARG(2, "descending") ? ARG(2, "descending") : Py_False,
                       "stable", Py_True), 1);
    break;
  case TL_OP_TOPK:
    dim = ARG(2, "dim") ? ARG(2, "dim") : m1;
    idx = R(1);
    break;
  case TL_OP_KTHVALUE:
    dim = ARG(2, "dim") ? ARG(2, "dim") : m1;
    g = unreduce(c, g, x, dim, ARG(3, "keepdim"));
    idx = unreduce(c, R(1), x, dim, ARG(3, "keepdim"));
    break;
  case TL_OP_CUMMAX:
  case TL_OP_CUMMIN:
    dim = ARG(1, "dim");
    idx = R(1);
    break;
  default: /* median, nanmedian, mode */
    dim = or_none(ARG(1, "dim"));
    if (dim == Py_None && c->formula != TL_OP_MODE) {
      SEND(x, distribute(c, g, X(0, "input"), R(0), Py_None));
      return;
    }
    dim = dim == Py_None ? m1 : dim;
    g = unreduce(c, g, x, dim, ARG(2, "keepdim"));
    idx = unreduce(c, R(1), x, dim, ARG(2, "keepdim"));
    break;
  }
  SEND(x, select_back(c, g, x, dim, idx));
}

/* ---- matrix products ------------------------------------------------------------------------ */

static PyObject *mT(tl_grad_ctx *c, PyObject *t) { return CALL("transpose", "Oii", t, -2, -1); }
/* The conjugate transpose of the last two dims. */
static PyObject *mH(tl_grad_ctx *c, PyObject *t) { return cj(c, mT(c, t)); }

/* g times a scalar argument (beta, alpha), conjugated; absent means 1. */
static PyObject *scaled(tl_grad_ctx *c, PyObject *g, PyObject *s)
{
  if (!s || s == Py_None || !g)
    return g;
  if (PyComplex_Check(s))
    return CALL("mul", "OO", g, tl_grad_keep(c, PyObject_CallMethod(s, "conjugate", NULL)));
  return CALL("mul", "OO", g, s);
}

/* matmul with NumPy's rules: a 1-D operand is a row (left) or column (right)
 * vector whose added dim is dropped from the result; batch dims broadcast
 * (SEND sums the broadcast away). */
/* Is t a matrix stored column by column (a transposed contiguous matrix, as
 * Linear's weight.t())?  Its gradient is then computed as the transpose of a
 * row-major product, (g^T conj(a))^T instead of a^H g, so that the gradient
 * has t's layout: its transpose (the weight's gradient) is contiguous and
 * accumulates into .grad without a transposing copy (PyTorch's mm backward
 * does the same). */
static bool column_major(PyObject *t)
{
  const tl_tensor *m = tl_py_t(t);
  return m->ndim == 2 && m->shape[0] > 1 && m->shape[1] > 1 && m->strides[0] == 1 &&
         m->strides[1] == m->shape[0];
}

static void matmul(tl_grad_ctx *c, PyObject *g, PyObject *a, PyObject *b)
{
  int na = tl_py_t(a)->ndim, nb = tl_py_t(b)->ndim;
  if (na == 1 && nb == 1) {
    if (NEEDS(a))
      SEND(a, CALL("mul", "OO", g, cj(c, b)));
    if (NEEDS(b))
      SEND(b, CALL("mul", "OO", g, cj(c, a)));
    return;
  }
  PyObject *a2 = na == 1 ? CALL("unsqueeze", "Oi", a, 0) : a;
  PyObject *b2 = nb == 1 ? CALL("unsqueeze", "Oi", b, -1) : b;
  PyObject *g2 = na == 1 ? CALL("unsqueeze", "Oi", g, -2) : g;
  g2 = nb == 1 ? CALL("unsqueeze", "Oi", g2, -1) : g2;
  if (NEEDS(a)) {
    PyObject *ga = CALL("matmul", "OO", g2, mH(c, b2));
    SEND(a, na == 1 ? CALL("squeeze", "Oi", ga, -2) : ga);
  }
  if (NEEDS(b) && nb == 2 && na >= 3) {
    /* b is shared by every matrix of a's batch (linear layers on (N, L, in)):
     * one product of the batch folded into rows, (k, N*L) @ (N*L, n), instead
     * of a batch of (k, n) products summed afterwards, which held N of them */
    int64_t k = tl_py_t(a)->shape[na - 1], n = tl_py_t(g)->shape[na - 1];
    PyObject *af = CALL("reshape", "O(LL)", a, -1LL, (long long)k);
    PyObject *gf = CALL("reshape", "O(LL)", g, -1LL, (long long)n);
    SEND(b, column_major(b) ? mT(c, CALL("matmul", "OO", mT(c, gf), cj(c, af)))
                            : CALL("matmul", "OO", mH(c, af), gf));
  } else if (NEEDS(b) && na == 2 && column_major(b)) {
    SEND(b, mT(c, CALL("matmul", "OO", mT(c, g2), cj(c, a2))));
  } else if (NEEDS(b)) {
    PyObject *gb = CALL("matmul", "OO", mH(c, a2), g2);
    SEND(b, nb == 1 ? CALL("squeeze", "Oi", gb, -1) : gb);
  }
}

/* inner: a contraction of the last dims; as a matrix product of the
 * operands flattened to (rows, k). */
static void inner(tl_grad_ctx *c, PyObject *g, PyObject *a, PyObject *b)
{
  const tl_tensor *ta = tl_py_t(a), *tb = tl_py_t(b);
  if (ta->ndim == 0 || tb->ndim == 0) {
    if (NEEDS(a))
      SEND(a, CALL("mul", "OO", g, cj(c, b)));
    if (NEEDS(b))
      SEND(b, CALL("mul", "OO", g, cj(c, a)));
    return;
  }
  int64_t k = ta->shape[ta->ndim - 1], ma = 1, mb = 1;
  for (int d = 0; d < ta->ndim - 1; d++)
    ma *= ta->shape[d];
  for (int d = 0; d < tb->ndim - 1; d++)
    mb *= tb->shape[d];
  PyObject *a2 = CALL("reshape", "O(LL)", a, (long long)ma, (long long)k);
  PyObject *b2 = CALL("reshape", "O(LL)", b, (long long)mb, (long long)k);
  PyObject *g2 = CALL("reshape", "O(LL)", g, (long long)ma, (long long)mb);
  if (NEEDS(a))
    SEND(a, CALL("reshape", "OO", CALL("matmul", "OO", g2, cj(c, b2)), SHAPE(a)));
  if (NEEDS(b))
    SEND(b, CALL("reshape", "OO", CALL("matmul", "OO", mT(c, g2), cj(c, a2)), SHAPE(b)));
}

/* tensordot's dims argument, parsed as the op parsed it, then wrapped. */
static int tensordot_dims(PyObject *dims, const tl_tensor *a, const tl_tensor *b, int *n, int *da,
                          int *db)
{
  int64_t ra[TL_MAX_DIMS], rb[TL_MAX_DIMS];
  if (tl_py_tensordot_dims(dims == Py_None ? NULL : dims, a, b, n, ra, rb) < 0)
    return -1;
  for (int i = 0; i < *n; i++)
    if (tl_dim_wrap(ra[i], a->ndim, &da[i]) != TL_OK || tl_dim_wrap(rb[i], b->ndim, &db[i]) != TL_OK)
      return tl_py_raise_int();
  return 0;
}

static PyObject *int_list(tl_grad_ctx *c, int n, const int *v)
{
  PyObject *l = PyList_New(n);
  for (int i = 0; l && i < n; i++)
    PyList_SET_ITEM(l, i, PyLong_FromLong(v[i]));
  return tl_grad_keep(c, l);
}

/* The gradient of one operand t of a tensordot with the other operand o:
 * contract g with conj(o) over o's free dims, then put the axes back in t's
 * order.  t_first: t is the left operand (its free dims lead g). */
static PyObject *tensordot_back(tl_grad_ctx *c, PyObject *g, PyObject *t, PyObject *o, int n,
                                const int *dt, const int *dof, bool t_first)
{
  const tl_tensor *tt = tl_py_t(t), *to = tl_py_t(o);
  int nft = tt->ndim - n, nfo = to->ndim - n;
  bool contracted_o[TL_MAX_DIMS] = {0};
  for (int i = 0; i < n; i++)
    contracted_o[dof[i]] = true;
  int gdims[TL_MAX_DIMS], odims[TL_MAX_DIMS], k = 0;
  for (int d = 0; d < to->ndim; d++)
    if (!contracted_o[d]) {
      gdims[k] = t_first ? nft + k : k;
      odims[k] = d;
      k++;
    }
  PyObject *gl = int_list(c, nfo, gdims), *ol = int_list(c, nfo, odims);
  PyObject *dims =
      gl && ol ? tl_grad_keep(c, Py_BuildValue("(OO)", t_first ? gl : ol, t_first ? ol : gl))
               : NULL;
  /* result axes: t's free dims (in order), then o's contracted dims in o's order */
  PyObject *res = t_first ? CALL("tensordot", "OO|{s:O}", g, cj(c, o), "dims", dims)
                          : CALL("tensordot", "OO|{s:O}", cj(c, o), g, "dims", dims);
  int pos[TL_MAX_DIMS], axis = 0;
  bool contracted_t[TL_MAX_DIMS] = {0};
  for (int i = 0; i < n; i++)
    contracted_t[dt[i]] = true;
  if (t_first) {
    for (int d = 0; d < tt->ndim; d++)
      if (!contracted_t[d])
        pos[d] = axis++;
  }
  for (int d = 0; d < to->ndim; d++)
    for (int i = 0; i < n; i++)
      if (dof[i] == d)
        pos[dt[i]] = axis++;
  if (!t_first)
    for (int d = 0; d < tt->ndim; d++)
      if (!contracted_t[d])
        pos[d] = axis++;
  return CALL("permute", "OO", res, int_list(c, tt->ndim, pos));
}

static void kron(tl_grad_ctx *c, PyObject *g, PyObject *a, PyObject *b)
{
  const tl_tensor *ta = tl_py_t(a), *tb = tl_py_t(b);
  int n = ta->ndim > tb->ndim ? ta->ndim : tb->ndim;
  int64_t as[TL_MAX_DIMS], bs[TL_MAX_DIMS];
  for (int d = 0; d < n; d++) {
    as[d] = d < n - ta->ndim ? 1 : ta->shape[d - (n - ta->ndim)];
    bs[d] = d < n - tb->ndim ? 1 : tb->shape[d - (n - tb->ndim)];
  }
  /* g viewed as (a0, b0, a1, b1, ...); a spread on the even axes, b on the odd */
  int64_t gs[2 * TL_MAX_DIMS], ae[2 * TL_MAX_DIMS], be[2 * TL_MAX_DIMS];
  int even[TL_MAX_DIMS], odd[TL_MAX_DIMS];
  if (2 * n > TL_MAX_DIMS) {
    PyErr_Format(PyExc_NotImplementedError,
                 "kron backward: operands of %d dims are more than "
                 "the %d dims the interleaved gradient needs",
                 n, TL_MAX_DIMS / 2);
    return;
  }
  for (int d = 0; d < n; d++) {
    gs[2 * d] = as[d], gs[2 * d + 1] = bs[d];
    ae[2 * d] = as[d], ae[2 * d + 1] = 1;
    be[2 * d] = 1, be[2 * d + 1] = bs[d];
    even[d] = 2 * d, odd[d] = 2 * d + 1;
  }
  PyObject *g2 = CALL("reshape", "OO", g, tl_grad_keep(c, tl_py_size_new(2 * n, gs)));
  if (NEEDS(a)) {
    PyObject *bx = CALL("reshape", "OO", cj(c, b), tl_grad_keep(c, tl_py_size_new(2 * n, be)));
    PyObject *s = CALL("sum", "O|{s:O}", CALL("mul", "OO", g2, bx), "dim", int_list(c, n, odd));
    SEND(a, CALL("reshape", "OO", s, SHAPE(a)));
  }
  if (NEEDS(b)) {
    PyObject *ax = CALL("reshape", "OO", cj(c, a), tl_grad_keep(c, tl_py_size_new(2 * n, ae)));
    PyObject *s = CALL("sum", "O|{s:O}", CALL("mul", "OO", g2, ax), "dim", int_list(c, n, even));
    SEND(b, CALL("reshape", "OO", s, SHAPE(b)));
  }
}

static void product(tl_grad_ctx *c, PyObject *g)
{
  switch (c->formula) {
  case TL_OP_TRACE: {
    PyObject *x = ARG(0, "input");
    const tl_tensor *t = x ? tl_py_t(x) : NULL;
    if (!t || t->ndim != 2)
      return;
    PyObject *device = g ? tl_grad_keep(c, PyObject_GetAttrString(g, "device")) : NULL;
    PyObject *eye =
        device ? CALL("eye", "LL|{s:O,s:O}", (long long)t->shape[0], (long long)t->shape[1],
                      "dtype", tl_py_dtype_obj(tl_py_t(g)->dtype), "device", device)
               : NULL;
    SEND(x, CALL("mul", "OO", eye, g));
    return;
  }
  case TL_OP_ADDMM:
  case TL_OP_ADDBMM:
  case TL_OP_BADDBMM:
  case TL_OP_ADDMV:
  case TL_OP_ADDR: {
    static const char *const n1[] = {"mat1", "batch1", "batch1", "mat", "vec1"};
    static const char *const n2[] = {"mat2", "batch2", "batch2", "vec", "vec2"};
    int k = c->formula == TL_OP_ADDMM     ? 0
            : c->formula == TL_OP_ADDBMM  ? 1
            : c->formula == TL_OP_BADDBMM ? 2
            : c->formula == TL_OP_ADDMV   ? 3
                                          : 4;
    PyObject *input = ARG(0, "input"), *beta = ARG(3, "beta"), *alpha = ARG(4, "alpha");
    PyObject *m1 = tens(c, X(1, n1[k])), *m2 = tens(c, X(2, n2[k]));
    if (NEEDS(input))
      SEND(input, scaled(c, g, beta ? beta : NULL));
    PyObject *ga = scaled(c, g, alpha);
    if (c->formula == TL_OP_ADDBMM) /* the batch sum: every product sees the same g */
      ga = CALL("unsqueeze", "Oi", ga, 0);
    if (m1 && m2 && !PyErr_Occurred()) {
      if (c->formula == TL_OP_ADDR) {
        if (NEEDS(ARG(1, n1[k])))
          SEND(ARG(1, n1[k]), CALL("mv", "OO", ga, cj(c, m2)));
        if (NEEDS(ARG(2, n2[k])))
          SEND(ARG(2, n2[k]), CALL("mv", "OO", mT(c, ga), cj(c, m1)));
      } else {
        /* addbmm's unsqueezed g broadcasts over the batch; SEND sums nothing
         * there since the batch operands have the batch dim themselves */
        PyObject *save_g = ga;
        if (c->formula == TL_OP_ADDBMM) {
          const tl_tensor *t1 = tl_py_t(m1);
          PyObject *shape =
              tl_grad_keep(c, Py_BuildValue("(Lii)", (long long)t1->shape[0], -1, -1));
          save_g = CALL("expand", "OO", ga, shape);
        }
        if (NEEDS(ARG(1, n1[k])) || NEEDS(ARG(2, n2[k])))
          matmul(c, save_g, m1, m2);
        /* matmul SENDs to m1/m2: when they were converted from lists they are
         * not inputs and nothing is sent */
      }
    }
    return;
  }
  default:
    break;
  }
  const char *aname = c->formula == TL_OP_TENSORDOT ? "a" : "input";
  const char *bname = c->formula == TL_OP_MM || c->formula == TL_OP_BMM      ? "mat2"
                      : c->formula == TL_OP_MV                               ? "vec"
                      : c->formula == TL_OP_OUTER || c->formula == TL_OP_GER ? "vec2"
                      : c->formula == TL_OP_TENSORDOT                        ? "b"
                                                                             : "other";
  /* Each operand's value goes only into the other's gradient: its version is
   * checked only when that gradient is wanted (PyTorch saves it only then),
   * so an operand updated in place after (a differentiable optimizer's
   * step) does not fail a backward that does not read it. */
  PyObject *a_arg = ARG(0, aname), *b_arg = ARG(1, bname);
  bool a_read = NEEDS(b_arg), b_read = NEEDS(a_arg);
  PyObject *a = tens(c, a_read ? X(0, aname) : a_arg);
  PyObject *b = tens(c, b_read ? X(1, bname) : b_arg);
  if (!a || !b || PyErr_Occurred())
    return;
  switch (c->formula) {
  case TL_OP_MATMUL:
  case TL_OP_MM:
  case TL_OP_BMM:
  case TL_OP_MV:
  case TL_OP_DOT:
    matmul(c, g, a, b);
    break;
  case TL_OP_VDOT: /* sum(conj(a) b) */
    if (NEEDS(a))
      SEND(a, CALL("mul", "OO", cj(c, g), b));
    if (NEEDS(b))
      SEND(b, CALL("mul", "OO", g, a));
    break;
  case TL_OP_INNER:
    inner(c, g, a, b);
    break;
  case TL_OP_OUTER:
  case TL_OP_GER:
    if (NEEDS(a))
      SEND(a, CALL("mv", "OO", g, cj(c, b)));
    if (NEEDS(b))
      SEND(b, CALL("mv", "OO", mT(c, g), cj(c, a)));
    break;
  case TL_OP_KRON:
    kron(c, g, a, b);
    break;
  case TL_OP_TENSORDOT: {
    int n = 0, da[TL_MAX_DIMS], db[TL_MAX_DIMS];
    if (tensordot_dims(ARG(2, "dims"), tl_py_t(a), tl_py_t(b), &n, da, db) < 0)
      return;
    if (NEEDS(a))
      SEND(a, tensordot_back(c, g, a, b, n, da, db, true));
    if (NEEDS(b))
      SEND(b, tensordot_back(c, g, b, a, n, db, da, false));
    break;
  }
  default:
    break;
  }
}

/* ---- dispatch ----------------------------------------------------------------------------- */

static void backward(tl_grad_ctx *c)
{
  PyObject *g = G(0);
  switch (c->formula) {
  case TL_OP_SUM:
  case TL_OP_NANSUM:
  case TL_OP_MEAN: {
    PyObject *x = ARG(0, "input"), *dim = dims_arg(ARG(1, "dim"));
    g = unreduce(c, g, x, dim, ARG(2, "keepdim"));
    if (c->formula == TL_OP_MEAN) {
      int64_t n = x ? reduced_count(x, dim) : -1;
      if (n < 0)
        return;
      g = CALL("div", "OL", g, (long long)n);
    }
    g = CALL("expand", "OO", g, SHAPE(x));
    if (c->formula == TL_OP_NANSUM)
      g = CALL("where", "OdO", CALL("isnan", "O", X(0, "input")), 0.0, g);
    SEND(x, g);
    break;
  }
  case TL_OP_NANMEAN: {
    PyObject *x = X(0, "input"), *dim = dims_arg(ARG(1, "dim"));
    PyObject *nan = CALL("isnan", "O", x);
    PyObject *count = sum_keep(c, CALL("logical_not", "O", nan), dim);
    g = CALL("div", "OO", unreduce(c, g, x, dim, ARG(2, "keepdim")), count);
    SEND(x, CALL("where", "OdO", nan, 0.0, g));
    break;
  }
  case TL_OP_PROD:
    prod(c, g);
    break;
  case TL_OP_VAR:
  case TL_OP_STD:
    var_std(c, g);
    break;
  case TL_OP_AMAX:
  case TL_OP_AMIN: {
    PyObject *x = X(0, "input"), *dim = dims_arg(ARG(1, "dim")), *keepdim = ARG(2, "keepdim");
    /* the extremum recomputed from x, not read from the result: code such as
     * SciPy's log_softmax overwrites non-finite maxima in place */
    PyObject *r = CALL(c->formula == TL_OP_AMAX ? "amax" : "amin", "O|{s:O,s:O}", x, "dim", dim,
                       "keepdim", Py_True);
    SEND(x, distribute(c, unreduce(c, g, x, dim, keepdim), x, r, dim));
    break;
  }
  case TL_OP_LOGSUMEXP: {
    PyObject *x = X(0, "input"), *dim = dims_arg(ARG(1, "dim")), *keepdim = ARG(2, "keepdim");
    PyObject *ru = unreduce(c, R(0), x, dim, keepdim);
    SEND(x, CALL("mul", "OO", unreduce(c, g, x, dim, keepdim),
                 cj(c, CALL("exp", "O", CALL("sub", "OO", x, ru)))));
    break;
  }
  case TL_OP_NORM:
    norm(c, g);
    break;
  case TL_OP_MAX:
  case TL_OP_MIN:
    max_min(c, g);
    break;
  case TL_OP_CUMSUM: {
    PyObject *x = ARG(0, "input"), *dim = ARG(1, "dim");
    if (x && tl_py_t(x)->ndim == 0)
      SEND(x, g);
    else
      SEND(x, reverse_cumsum(c, g, dim));
    break;
  }
  case TL_OP_CUMPROD:
    cumprod(c, g);
    break;
  case TL_OP_QUANTILE:
  case TL_OP_NANQUANTILE:
    quantile(c, g);
    break;
  case TL_OP_SORT:
  case TL_OP_MSORT:
  case TL_OP_SORT_VALUES:
  case TL_OP_TOPK:
  case TL_OP_KTHVALUE:
  case TL_OP_MEDIAN:
  case TL_OP_NANMEDIAN:
  case TL_OP_MODE:
  case TL_OP_CUMMAX:
  case TL_OP_CUMMIN:
    selected(c, g);
    break;
  default:
    product(c, g);
    break;
  }
}

void tl_grad_formulas_reduce_init(void)
{
  /* argmax, argmin, all, any, count_nonzero, argsort, searchsorted, bucketize
   * return integers or bools: no graph.  unique, unique_consecutive and
   * bincount (with float weights) have no derivative, as in PyTorch: their
   * backward raises NotImplementedError.  histc's result has no graph at all
   * (PyTorch declares it non-differentiable). */
  static const int ids[] = {
      TL_OP_SUM,       TL_OP_NANSUM,   TL_OP_PROD,        TL_OP_MEAN,     TL_OP_NANMEAN,
      TL_OP_VAR,       TL_OP_STD,      TL_OP_AMAX,        TL_OP_AMIN,     TL_OP_LOGSUMEXP,
      TL_OP_NORM,      TL_OP_MAX,      TL_OP_MIN,         TL_OP_CUMSUM,   TL_OP_CUMPROD,
      TL_OP_SORT,      TL_OP_MSORT,    TL_OP_TOPK,        TL_OP_KTHVALUE, TL_OP_MEDIAN,
      TL_OP_NANMEDIAN, TL_OP_QUANTILE, TL_OP_NANQUANTILE, TL_OP_MODE,     TL_OP_CUMMAX,
      TL_OP_CUMMIN,    TL_OP_SORT_VALUES, TL_OP_MATMUL,   TL_OP_MM,          TL_OP_BMM,      TL_OP_MV,
      TL_OP_DOT,       TL_OP_VDOT,     TL_OP_INNER,       TL_OP_OUTER,    TL_OP_GER,
      TL_OP_ADDMM,     TL_OP_ADDBMM,   TL_OP_BADDBMM,     TL_OP_ADDMV,    TL_OP_ADDR,
      TL_OP_TENSORDOT, TL_OP_KRON,     TL_OP_TRACE};
  TL_GRAD_REGISTER(ids, backward, 0);
  tl_grad_nondifferentiable[TL_OP_HISTC] = true;
  /* What the tape need not keep: these formulas read only shapes ... */
  static const int shapes_only[] = {TL_OP_SUM,  TL_OP_MEAN,     TL_OP_CUMSUM, TL_OP_TRACE,
                                    TL_OP_SORT, TL_OP_TOPK,     TL_OP_MODE,   TL_OP_CUMMAX,
                                    TL_OP_CUMMIN, TL_OP_KTHVALUE};
  TL_GRAD_DROP(shapes_only, TL_GRAD_DROP_INPUTS | TL_GRAD_DROP_OUTPUTS);
  /* ... and these never read their results (products, msort, which finds its
   * order again, sums that mask by the input).  Indices are kept whatever the
   * flags say: the recorder saves integer outputs as they are. */
  static const int inputs_only[] = {TL_OP_NANSUM, TL_OP_NANMEAN, TL_OP_VAR,       TL_OP_MSORT, TL_OP_SORT_VALUES,
                                    TL_OP_QUANTILE,  TL_OP_NANQUANTILE,
                                    TL_OP_MATMUL, TL_OP_MM,      TL_OP_BMM,       TL_OP_MV,
                                    TL_OP_DOT,    TL_OP_VDOT,    TL_OP_INNER,     TL_OP_OUTER,
                                    TL_OP_GER,    TL_OP_ADDMM,   TL_OP_ADDBMM,    TL_OP_BADDBMM,
                                    TL_OP_ADDMV,  TL_OP_ADDR,    TL_OP_TENSORDOT, TL_OP_KRON};
  TL_GRAD_DROP(inputs_only, TL_GRAD_DROP_OUTPUTS);
}
