/* formulas_nn_loss.c - derivatives of nll_loss (src/nn/loss) and of its
 * backward op.
 *   nll_loss_nd:        d input = nll_loss_backward(g, ...)  (total_weight saved)
 *   nll_loss_backward:  linear in grad_output with the transposed map of
 *                       nll_loss, so d grad_output = nll_loss_nd(gg, ...)[0];
 *                       it does not depend on input (d input = 0).
 *   _pointwise_loss:    its backward op, for the input and the target;
 *   _pointwise_loss_backward: the composed VJP (tl_grad_nn_composed_vjp).
 *   _cross_entropy, _multi_margin_loss, _multilabel_margin_loss, _ctc_loss:
 *                       their backward ops (input, and a probabilities target);
 *   _cross_entropy_backward, _multi_margin_loss_backward: the composed VJP;
 *   _multilabel_margin_loss_backward, _ctc_loss_backward: none, as in
 *                       PyTorch (a RuntimeError in its words). */
#include "grad/py_grad.h"

static PyObject *or_none(PyObject *o) { return o ? o : Py_None; }

/* An argument, or its default (a new reference) when the call left it out. */
static PyObject *arg_or(tl_grad_ctx *c, int pos, const char *name, PyObject *dflt)
{
  PyObject *a = ARG(pos, name);
  if (a || PyErr_Occurred()) {
    Py_XDECREF(dflt);
    return a;
  }
  return tl_grad_keep(c, dflt);
}

static PyObject *int_arg(tl_grad_ctx *c, int pos, const char *name, long dflt)
{
  return arg_or(c, pos, name, PyLong_FromLong(dflt));
}

static void forward_ops(tl_grad_ctx *c)
{
  PyObject *x = X(0, "input");
  if (!NEEDS(x))
    return;
  SEND(x, CALL("nll_loss_backward", "OOOOOOO", G(0), x, X(1, "target"),
               or_none(X(2, "weight")), int_arg(c, 3, "reduction", 1),
               int_arg(c, 4, "ignore_index", -100), R(1)));
}

static void backward_ops(tl_grad_ctx *c)
{
  PyObject *g = ARG(0, "grad_output");
  if (!NEEDS(g))
    return;
  PyObject *r = CALL("nll_loss_nd", "OOOOO", G(0), X(2, "target"), or_none(X(3, "weight")),
                     ARG(4, "reduction"), ARG(5, "ignore_index"));
  if (r)
    SEND(g, CALL("reshape", "OO", PyTuple_GET_ITEM(r, 0), SHAPE(g)));
}

/* _pointwise_loss: the backward op gives the input's and the target's gradients. */
static void pointwise_ops(tl_grad_ctx *c)
{
  PyObject *x = X(0, "input"), *t = X(1, "target");
  if (!NEEDS(x) && !NEEDS(t))
    return;
  PyObject *r = CALL("_pointwise_loss_backward", "OOOOOOOO", G(0), x, t, or_none(X(2, "weight")),
                     or_none(X(3, "pos_weight")), ARG(4, "kind"), ARG(5, "param"),
                     ARG(6, "reduction"));
  if (!r)
    return;
  if (NEEDS(x))
    SEND(x, PyTuple_GET_ITEM(r, 0));
  if (NEEDS(t))
    SEND(t, PyTuple_GET_ITEM(r, 1));
}

static void pointwise_backward_ops(tl_grad_ctx *c)
{
  static const char *const params[] = {"grad_output", "input", "target", "weight", "pos_weight",
                                       "kind", "param", "reduction", NULL};
  tl_grad_nn_composed_vjp(c, params);
}

/* Send the backward op's results r[i] to the inputs x[i] that need them. */
static void send_each(tl_grad_ctx *c, PyObject *r, PyObject *const *x, int n)
{
  if (!r)
    return;
  for (int i = 0; i < n; i++) {
    PyObject *g = PyTuple_Check(r) ? PyTuple_GET_ITEM(r, i) : i == 0 ? r : NULL;
    if (x[i] && NEEDS(x[i]) && g && g != Py_None)
      SEND(x[i], g);
  }
}

static void cross_entropy_ops(tl_grad_ctx *c)
{
  PyObject *x[2] = {X(0, "input"), X(1, "target")};
  if (!NEEDS(x[0]) && !NEEDS(x[1]))
    return;
  send_each(c,
            CALL("_cross_entropy_backward", "OOOOOOOOO", G(0), x[0], x[1],
                 or_none(X(2, "weight")), int_arg(c, 3, "reduction", 1),
                 int_arg(c, 4, "ignore_index", -100),
                 arg_or(c, 5, "label_smoothing", PyFloat_FromDouble(0)), R(1), R(2)),
            x, 2);
}

static void multi_margin_ops(tl_grad_ctx *c)
{
  PyObject *x = X(0, "input");
  if (!NEEDS(x))
    return;
  send_each(c,
            CALL("_multi_margin_loss_backward", "OOOOOOO", G(0), x, X(1, "target"),
                 int_arg(c, 2, "p", 1), arg_or(c, 3, "margin", PyFloat_FromDouble(1)),
                 or_none(X(4, "weight")), int_arg(c, 5, "reduction", 1)),
            &x, 1);
}

static void multilabel_margin_ops(tl_grad_ctx *c)
{
  PyObject *x = X(0, "input");
  if (!NEEDS(x))
    return;
  send_each(c,
            CALL("_multilabel_margin_loss_backward", "OOOOO", G(0), x, X(1, "target"),
                 int_arg(c, 2, "reduction", 1), R(1)),
            &x, 1);
}

static void ctc_ops(tl_grad_ctx *c)
{
  PyObject *x = X(0, "log_probs");
  if (!NEEDS(x))
    return;
  send_each(c,
            CALL("_ctc_loss_backward", "OOOOOOOOO", G(0), x, X(1, "targets"),
                 ARG(2, "input_lengths"), ARG(3, "target_lengths"), R(0), R(1),
                 int_arg(c, 4, "blank", 0), arg_or(c, 5, "zero_infinity", Py_NewRef(Py_False))),
            &x, 1);
}

static void class_backward_ops(tl_grad_ctx *c)
{
  static const char *const ce[] = {"grad_output", "input", "target", "weight", "reduction",
                                   "ignore_index", "label_smoothing", "lse", "total_weight",
                                   NULL};
  static const char *const multi[] = {"grad_output", "input", "target", "p", "margin", "weight",
                                      "reduction", NULL};
  tl_grad_nn_composed_vjp(c, c->formula == TL_OP_CROSS_ENTROPY_BACKWARD ? ce : multi);
}

/* PyTorch has no derivative for these backward ops: say so in its words. */
static void no_double_backward(tl_grad_ctx *c)
{
  tl_grad_not_implemented(c->formula == TL_OP_CTC_LOSS_BACKWARD ? "_ctc_loss_backward"
                                                                : "multilabel_margin_loss_backward",
                          false);
}

void tl_grad_formulas_nn_loss_init(void)
{
  static const int ce[] = {TL_OP_CROSS_ENTROPY};
  TL_GRAD_REGISTER(ce, cross_entropy_ops, 0);
  static const int multi[] = {TL_OP_MULTI_MARGIN_LOSS};
  TL_GRAD_REGISTER(multi, multi_margin_ops, TL_GRAD_DROP_OUTPUTS);
  static const int multilabel[] = {TL_OP_MULTILABEL_MARGIN_LOSS};
  TL_GRAD_REGISTER(multilabel, multilabel_margin_ops, 0);
  static const int ctc[] = {TL_OP_CTC_LOSS};
  TL_GRAD_REGISTER(ctc, ctc_ops, 0);
  static const int class_backward[] = {TL_OP_CROSS_ENTROPY_BACKWARD,
                                       TL_OP_MULTI_MARGIN_LOSS_BACKWARD};
  TL_GRAD_REGISTER(class_backward, class_backward_ops, TL_GRAD_DROP_OUTPUTS);
  static const int none[] = {TL_OP_MULTILABEL_MARGIN_LOSS_BACKWARD, TL_OP_CTC_LOSS_BACKWARD};
  TL_GRAD_REGISTER(none, no_double_backward, TL_GRAD_DROP_OUTPUTS);
  static const int pointwise[] = {TL_OP_POINTWISE_LOSS};
  TL_GRAD_REGISTER(pointwise, pointwise_ops, TL_GRAD_DROP_OUTPUTS);
  static const int pointwise_backward[] = {TL_OP_POINTWISE_LOSS_BACKWARD};
  TL_GRAD_REGISTER(pointwise_backward, pointwise_backward_ops, TL_GRAD_DROP_OUTPUTS);
  static const int forward[] = {TL_OP_NLL_LOSS_ND};
  TL_GRAD_REGISTER(forward, forward_ops, 0);
  static const int backward[] = {TL_OP_NLL_LOSS_BACKWARD};
  TL_GRAD_REGISTER(backward, backward_ops, TL_GRAD_DROP_OUTPUTS);
}
