/* formulas_nn_conv.c - derivatives of the convolution family (src/nn/conv),
 * each written with the family's own ops so that double backward works.
 *
 * conv(x, W) and conv_transpose(x, W) are each other's input gradient, and
 * both weight gradients are one op, linear in each argument:
 *   convolution(x, W, b, transposed=t):
 *     dx = convolution(g, W, transposed=!t)   (output_padding restores x's size)
 *     dW = _convolution_backward_weight(g, x, t)
 *     db = sum of g over every dim but the channels
 *   _convolution_backward_weight(g, x, t) = dW, given gg of dW's shape:
 *     d g = convolution(x, gg, transposed=t)   <gg, dW> = <g, convolution(x, gg)>
 *     d x = convolution(g, gg, transposed=!t)
 *   im2col and col2im are each other's adjoint (and so gradient).         */
#include "grad/py_grad.h"

/* Entry d of an int-or-list argument (one entry stands for every dim). */
static int64_t list_at(PyObject *v, int d)
{
  if (PyLong_Check(v))
    return PyLong_AsLongLong(v);
  Py_ssize_t n = PySequence_Size(v);
  PyObject *item = n > 0 ? PySequence_GetItem(v, n == 1 ? 0 : d) : NULL;
  int64_t r = item ? PyLong_AsLongLong(item) : 0;
  Py_XDECREF(item);
  return r;
}

/* The output_padding that makes a transposed convolution of `small` (the
 * window grid) come out with `big`'s spatial size, for kernel sizes taken
 * from `wshape` (weight dims 2...). */
static PyObject *padding_for(tl_grad_ctx *c, const tl_tensor *small, const tl_tensor *big,
                             const int64_t *wshape, PyObject *stride, PyObject *padding,
                             PyObject *dilation)
{
  if (!stride || !padding || !dilation)
    return NULL;
  int nsp = big->ndim - 2;
  PyObject *out = tl_grad_keep(c, PyList_New(nsp));
  for (int d = 0; out && d < nsp; d++) {
    int64_t s = list_at(stride, d), p = list_at(padding, d), dil = list_at(dilation, d);
    int64_t base = (small->shape[2 + d] - 1) * s - 2 * p + dil * (wshape[2 + d] - 1) + 1;
    PyList_SET_ITEM(out, d, PyLong_FromLongLong(big->shape[2 + d] - base));
  }
  return PyErr_Occurred() ? NULL : out;
}

static PyObject *flag(bool v) { return v ? Py_True : Py_False; }

/* A convolution's result cut to `like`'s spatial size.  A transposed
 * convolution's output_padding may reach past its stride (it need only be
 * below the dilation), and the plain convolution that is its adjoint then
 * gives those positions back: x's own windows are the first ones. */
static PyObject *fit_to(tl_grad_ctx *c, PyObject *r, const tl_tensor *like)
{
  for (int d = 2; r && !PyErr_Occurred() && d < like->ndim; d++)
    if (tl_py_t(r)->shape[d] > like->shape[d])
      r = CALL("narrow", "OiiL", r, d, 0, (long long)like->shape[d]);
  return PyErr_Occurred() ? NULL : r;
}

static void convolution_ops(tl_grad_ctx *c)
{
  PyObject *x = ARG(0, "input"), *w = ARG(1, "weight"), *b = ARG(2, "bias");
  PyObject *stride = ARG(3, "stride"), *padding = ARG(4, "padding");
  PyObject *dilation = ARG(5, "dilation"), *tr = ARG(6, "transposed"), *groups = ARG(8, "groups");
  PyObject *g = G(0);
  if (!x || !w || !tr || !g)
    return;
  bool transposed = PyObject_IsTrue(tr);
  if (NEEDS(x)) {
    PyObject *op = transposed ? tl_grad_keep(c, PyLong_FromLong(0))
                              : padding_for(c, tl_py_t(g), tl_py_t(x), tl_py_t(w)->shape, stride,
                                            padding, dilation);
    SEND(x, fit_to(c, CALL("convolution", "OOOOOOOOO", g, X(1, "weight"), Py_None, stride,
                           padding, dilation, flag(!transposed), op, groups), tl_py_t(x)));
  }
  if (NEEDS(w))
    SEND(w, CALL("_convolution_backward_weight", "OOOOOOOO", g, X(0, "input"), SHAPE(w), stride,
                 padding, dilation, tr, groups));
  if (b && b != Py_None && NEEDS(b)) {
    int nd = tl_py_t(g)->ndim;
    PyObject *dims = tl_grad_keep(c, PyList_New(nd - 1));
    for (int d = 0, i = 0; dims && d < nd; d++)
      if (d != 1)
        PyList_SET_ITEM(dims, i++, PyLong_FromLong(d));
    SEND(b, CALL("sum", "OO", g, dims));
  }
}

static void backward_weight_ops(tl_grad_ctx *c)
{
  PyObject *g = ARG(0, "grad_output"), *x = ARG(1, "input"), *wsize = ARG(2, "weight_size");
  PyObject *stride = ARG(3, "stride"), *padding = ARG(4, "padding");
  PyObject *dilation = ARG(5, "dilation"), *tr = ARG(6, "transposed"), *groups = ARG(7, "groups");
  PyObject *gg = G(0);
  if (!g || !x || !wsize || !tr || !gg)
    return;
  bool transposed = PyObject_IsTrue(tr);
  const int64_t *wshape = tl_py_t(gg)->shape;
  if (NEEDS(g)) { /* d g = convolution(x, gg, t), sized like g */
    PyObject *op = transposed ? padding_for(c, tl_py_t(x), tl_py_t(g), wshape, stride, padding,
                                            dilation)
                              : tl_grad_keep(c, PyLong_FromLong(0));
    SEND(g, CALL("convolution", "OOOOOOOOO", X(1, "input"), gg, Py_None, stride, padding,
                 dilation, tr, op, groups));
  }
  if (NEEDS(x)) { /* d x = convolution(g, gg, !t), sized like x */
    PyObject *op = transposed ? tl_grad_keep(c, PyLong_FromLong(0))
                              : padding_for(c, tl_py_t(g), tl_py_t(x), wshape, stride, padding,
                                            dilation);
    SEND(x, fit_to(c, CALL("convolution", "OOOOOOOOO", X(0, "grad_output"), gg, Py_None, stride,
                           padding, dilation, flag(!transposed), op, groups), tl_py_t(x)));
  }
}

static void fold_ops(tl_grad_ctx *c)
{
  PyObject *x = ARG(0, "input"), *g = G(0);
  if (!x || !g)
    return;
  if (c->formula == TL_OP_IM2COL) { /* x (N, C, *sp) <- col2im(g, sp) */
    const tl_tensor *t = tl_py_t(x);
    PyObject *size = tl_grad_keep(c, tl_py_size_new(t->ndim - 2, t->shape + 2));
    SEND(x, CALL("col2im", "OOOOOO", g, size, ARG(1, "kernel_size"), ARG(2, "dilation"),
                 ARG(3, "padding"), ARG(4, "stride")));
    return;
  }
  SEND(x, CALL("im2col", "OOOOO", g, ARG(2, "kernel_size"), ARG(3, "dilation"), ARG(4, "padding"),
               ARG(5, "stride")));
}

void tl_grad_formulas_nn_conv_init(void)
{
  /* x is read for dW only and W for dx only: each is kept only when the
   * other needs a gradient; the output never is. */
  static const int conv[] = {TL_OP_CONVOLUTION};
  TL_GRAD_REGISTER(conv, convolution_ops, TL_GRAD_DROP_OUTPUTS | TL_GRAD_DROP_UNPAIRED);
  static const int weight[] = {TL_OP_CONVOLUTION_BACKWARD_WEIGHT};
  TL_GRAD_REGISTER(weight, backward_weight_ops, TL_GRAD_DROP_OUTPUTS | TL_GRAD_DROP_UNPAIRED);
  /* linear maps: only shapes are read */
  static const int fold[] = {TL_OP_IM2COL, TL_OP_COL2IM};
  TL_GRAD_REGISTER(fold, fold_ops, TL_GRAD_DROP_INPUTS | TL_GRAD_DROP_OUTPUTS);
}
