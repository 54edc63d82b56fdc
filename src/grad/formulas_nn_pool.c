/* formulas_nn_pool.c - derivatives of the pooling and resampling ops
 * (src/nn/pool), and of their backward ops, for double backward.
 *
 * Shapes: x (*, *in) -> y (*, *out) over n spatial dims.
 *   max pooling (sliding, adaptive, fractional): dx = _max_pool_backward(g,
 *       indices, in), g added at each window's argmax;
 *   _max_pool_backward and _max_unpool, both scatters at indices: their
 *       derivative is the gather d(src) = gg[..., indices] (flattened dims);
 *   avg pooling, adaptive avg pooling and interpolation are linear maps:
 *       each forward's derivative is its backward op (the same taps, the
 *       transposed passes) and each backward op's is its forward.        */
#include "grad/py_grad.h"

/* An optional argument, or dflt when it was left out. */
static PyObject *opt(tl_grad_ctx *c, int pos, const char *name, PyObject *dflt)
{
  PyObject *v = ARG(pos, name);
  return v || PyErr_Occurred() ? v : dflt;
}

/* How many spatial dims an int-list argument names (an int: 1). */
static Py_ssize_t dims_of(PyObject *list)
{
  return list && PySequence_Check(list) ? PySequence_Size(list) : 1;
}

/* The last n entries of t's shape. */
static PyObject *spatial(tl_grad_ctx *c, PyObject *t, Py_ssize_t n)
{
  PyObject *shape = SHAPE(t);
  if (!shape)
    return NULL;
  Py_ssize_t len = PyTuple_Size(shape);
  return tl_grad_keep(c, PySequence_GetSlice(shape, len - n, len));
}

/* gg gathered at indices over the flattened last n dims: the derivative of
 * the scatter ops with respect to their source. */
static PyObject *gather_at(tl_grad_ctx *c, PyObject *gg, PyObject *indices, Py_ssize_t n)
{
  PyObject *flat = CALL("flatten", "Oi", gg, (int)-n);
  PyObject *at = CALL("flatten", "Oi", indices, (int)-n);
  return CALL("reshape", "OO", CALL("gather", "OiO", flat, -1, at), SHAPE(indices));
}

static void max_pool_ops(tl_grad_ctx *c)
{
  PyObject *x = ARG(0, "input");
  const char *sizes = c->formula == TL_OP_MAX_POOL ? "kernel_size" : "output_size";
  int pos = c->formula == TL_OP_FRACTIONAL_MAX_POOL ? 2 : 1;
  Py_ssize_t n = dims_of(ARG(c->formula == TL_OP_FRACTIONAL_MAX_POOL ? 1 : pos, sizes));
  if (tl_grad_needs(c, x))
    SEND(x, CALL("_max_pool_backward", "OOO", G(0), R(1), spatial(c, x, n)));
}

static void scatter_ops(tl_grad_ctx *c)
{
  bool unpool = c->formula == TL_OP_MAX_UNPOOL;
  PyObject *src = ARG(0, unpool ? "input" : "grad_output");
  Py_ssize_t n = dims_of(ARG(2, unpool ? "output_size" : "input_size"));
  if (tl_grad_needs(c, src))
    SEND(src, gather_at(c, G(0), X(1, "indices"), n));
}

static void avg_pool_ops(tl_grad_ctx *c)
{
  bool backward = c->formula == TL_OP_AVG_POOL_BACKWARD;
  int at = backward ? 2 : 1; /* where kernel_size is */
  PyObject *src = ARG(0, backward ? "grad_output" : "input");
  PyObject *k = ARG(at, "kernel_size"), *s = ARG(at + 1, "stride");
  PyObject *p = opt(c, at + 2, "padding", tl_grad_keep(c, PyLong_FromLong(0)));
  PyObject *ceil = opt(c, at + 3, "ceil_mode", Py_False);
  PyObject *cip = opt(c, at + 4, "count_include_pad", Py_True);
  PyObject *div = opt(c, at + 5, "divisor_override", Py_None);
  if (!tl_grad_needs(c, src))
    return;
  if (backward)
    SEND(src, CALL("_avg_pool", "OOOOOOO", G(0), k, s, p, ceil, cip, div));
  else
    SEND(src, CALL("_avg_pool_backward", "OOOOOOOO", G(0), spatial(c, src, dims_of(k)), k, s, p,
                   ceil, cip, div));
}

static void adaptive_avg_ops(tl_grad_ctx *c)
{
  bool backward = c->formula == TL_OP_ADAPTIVE_AVG_POOL_BACKWARD;
  PyObject *src = ARG(0, backward ? "grad_output" : "input");
  Py_ssize_t n = dims_of(ARG(1, backward ? "input_size" : "output_size"));
  if (tl_grad_needs(c, src))
    SEND(src, CALL(backward ? "_adaptive_avg_pool" : "_adaptive_avg_pool_backward", "OO", G(0),
                   spatial(c, src, n)));
}

static void upsample_ops(tl_grad_ctx *c)
{
  bool backward = c->formula == TL_OP_UPSAMPLE_BACKWARD;
  PyObject *src = ARG(0, backward ? "grad_output" : "input");
  Py_ssize_t n = dims_of(ARG(1, backward ? "input_size" : "output_size"));
  PyObject *mode = ARG(2, "mode");
  PyObject *ac = opt(c, 3, "align_corners", Py_False), *scales = opt(c, 4, "scales", Py_None);
  PyObject *aa = opt(c, 5, "antialias", Py_False);
  if (tl_grad_needs(c, src))
    SEND(src, CALL(backward ? "_upsample" : "_upsample_backward", "OOOOOO", G(0),
                   spatial(c, src, n), mode, ac, scales, aa));
}

void tl_grad_formulas_nn_pool_init(void)
{
  /* Max pooling reads its indices (kept: an integer output) and the
   * input's shape only; the linear maps read shapes and arguments only. */
  static const int max[] = {TL_OP_MAX_POOL, TL_OP_ADAPTIVE_MAX_POOL, TL_OP_FRACTIONAL_MAX_POOL};
  TL_GRAD_REGISTER(max, max_pool_ops, TL_GRAD_DROP_INPUTS | TL_GRAD_DROP_OUTPUTS);
  static const int scatter[] = {TL_OP_MAX_POOL_BACKWARD, TL_OP_MAX_UNPOOL};
  TL_GRAD_REGISTER(scatter, scatter_ops, TL_GRAD_DROP_OUTPUTS);
  static const int avg[] = {TL_OP_AVG_POOL, TL_OP_AVG_POOL_BACKWARD};
  TL_GRAD_REGISTER(avg, avg_pool_ops, TL_GRAD_DROP_INPUTS | TL_GRAD_DROP_OUTPUTS);
  static const int adaptive[] = {TL_OP_ADAPTIVE_AVG_POOL, TL_OP_ADAPTIVE_AVG_POOL_BACKWARD};
  TL_GRAD_REGISTER(adaptive, adaptive_avg_ops, TL_GRAD_DROP_INPUTS | TL_GRAD_DROP_OUTPUTS);
  static const int upsample[] = {TL_OP_UPSAMPLE, TL_OP_UPSAMPLE_BACKWARD};
  TL_GRAD_REGISTER(upsample, upsample_ops, TL_GRAD_DROP_INPUTS | TL_GRAD_DROP_OUTPUTS);
}
