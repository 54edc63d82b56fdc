/* formulas_nn_norm.c - derivatives of the normalisation ops (src/nn/norm)
 * and of their backward ops, for double backward.
 *
 * The forward ops' gradient is their backward op, called with the mean and
 * rstd that the forward returned (so nothing is recomputed); only the first
 * output (the normalised tensor) carries a gradient: the mean and rstd
 * outputs are saved statistics, as in PyTorch's native_* ops, and gradients
 * sent into them are not propagated.
 *
 * The backward ops' derivative is the vector-Jacobian product of the
 * backward written with generic ops (torchlike/nn/_backward_vjp.py, installed
 * on the module as _nn_backward_vjp): there the statistics are recomputed
 * from the input so that their dependence on it is differentiated.  That
 * product is taken on detached copies of the saved arguments, so it is not
 * itself recorded: a third derivative is zero rather than wrong-looking. */
#include "grad/py_grad.h"

/* The first output's gradient through the backward op, sent to the inputs
 * (input, weight, bias at argument positions 0, wpos, wpos + 1). */
static void send_results(tl_grad_ctx *c, PyObject *r, PyObject *x, PyObject *w, PyObject *b)
{
  if (!r)
    return;
  PyObject *targets[3] = {x, w, b};
  for (int i = 0; i < 3 && i < PyTuple_GET_SIZE(r); i++)
    if (targets[i] && targets[i] != Py_None && NEEDS(targets[i]) &&
        PyTuple_GET_ITEM(r, i) != Py_None)
      SEND(targets[i], PyTuple_GET_ITEM(r, i));
}

static PyObject *or_none(PyObject *o) { return o ? o : Py_None; }

static void forward_ops(tl_grad_ctx *c)
{
  PyObject *x = X(0, "input"), *g = G(0), *r = NULL, *w, *b = NULL;
  switch (c->formula) {
  case TL_OP_NATIVE_BATCH_NORM:
    w = or_none(X(1, "weight"));
    b = ARG(2, "bias");
    r = CALL("native_batch_norm_backward", "OOOOOOO", g, x, w, R(1), R(2), ARG(5, "training"),
             ARG(7, "eps"));
    break;
  case TL_OP_NATIVE_LAYER_NORM:
    w = or_none(X(2, "weight"));
    b = or_none(X(3, "bias"));
    r = CALL("native_layer_norm_backward", "OOOOOOO", g, x, ARG(1, "normalized_shape"), R(1),
             R(2), w, b);
    break;
  case TL_OP_NATIVE_GROUP_NORM:
    w = or_none(X(1, "weight"));
    b = ARG(2, "bias");
    r = CALL("native_group_norm_backward", "OOOOOOOOO", g, x, R(1), R(2), w, ARG(3, "N"),
             ARG(4, "C"), ARG(5, "HxW"), ARG(6, "group"));
    break;
  default: /* TL_OP_FUSED_RMS_NORM */
    w = or_none(X(2, "weight"));
    r = CALL("_fused_rms_norm_backward", "OOOOO", g, x, ARG(1, "normalized_shape"), R(1), w);
    break;
  }
  send_results(c, r, x, w, b);
}

/* The positional parameters of each backward op (signatures.txt, [nn_norm]). */
static const char *const batch_params[] = {"grad_out", "input", "weight", "save_mean",
                                           "save_invstd", "train", "eps", NULL};
static const char *const layer_params[] = {"grad_out", "input", "normalized_shape", "mean",
                                           "rstd", "weight", "bias", NULL};
static const char *const group_params[] = {"grad_out", "input", "mean", "rstd", "weight",
                                           "N", "C", "HxW", "group", NULL};
static const char *const rms_params[] = {"grad_out", "input", "normalized_shape", "rstd",
                                         "weight", NULL};

static void backward_ops(tl_grad_ctx *c)
{
  tl_grad_nn_composed_vjp(c, c->formula == TL_OP_NATIVE_BATCH_NORM_BACKWARD   ? batch_params
                             : c->formula == TL_OP_NATIVE_LAYER_NORM_BACKWARD ? layer_params
                             : c->formula == TL_OP_NATIVE_GROUP_NORM_BACKWARD ? group_params
                                                                              : rms_params);
}

void tl_grad_nn_composed_vjp(tl_grad_ctx *c, const char *const *params)
{
  int n = 0, nout = c->node->noutputs;
  while (params[n])
    n++;
  PyObject *args = tl_grad_keep(c, PyTuple_New(n));
  PyObject *grads = tl_grad_keep(c, PyTuple_New(nout));
  if (!args || !grads)
    return;
  for (int i = 0; i < n; i++)
    PyTuple_SET_ITEM(args, i, Py_NewRef(or_none(X(i, params[i]))));
  for (int i = 0; i < nout; i++)
    PyTuple_SET_ITEM(grads, i, Py_NewRef(c->grads[i] ? c->grads[i] : Py_None));
  if (PyErr_Occurred())
    return;
  PyObject *r = CALL("_nn_backward_vjp", "sOO", tl_grad_formula_name(c->formula), args, grads);
  if (!r)
    return;
  for (int i = 0; i < n && i < PyTuple_GET_SIZE(r); i++) {
    PyObject *a = PyTuple_GET_ITEM(args, i);
    if (tl_py_is_tensor(a) && NEEDS(a) && PyTuple_GET_ITEM(r, i) != Py_None)
      SEND(a, PyTuple_GET_ITEM(r, i));
  }
}

/* local response norm: the forward's derivative is its backward op; the
 * backward's the composed VJP (the composed forward differentiated twice). */
static PyObject *float_or(tl_grad_ctx *c, int pos, const char *name, double dflt)
{
  PyObject *v = ARG(pos, name);
  return v || PyErr_Occurred() ? v : tl_grad_keep(c, PyFloat_FromDouble(dflt));
}

static void lrn_ops(tl_grad_ctx *c)
{
  PyObject *x = ARG(0, "input");
  if (NEEDS(x))
    SEND(x, CALL("_local_response_norm_backward", "OOOOOO", G(0), X(0, "input"), ARG(1, "size"),
                 float_or(c, 2, "alpha", 1e-4), float_or(c, 3, "beta", 0.75),
                 float_or(c, 4, "k", 1.0)));
}

static const char *const lrn_params[] = {"grad_output", "input", "size", "alpha", "beta", "k",
                                         NULL};

static void lrn_backward_ops(tl_grad_ctx *c) { tl_grad_nn_composed_vjp(c, lrn_params); }

void tl_grad_formulas_nn_norm_init(void)
{
  static const int lrn[] = {TL_OP_LOCAL_RESPONSE_NORM};
  TL_GRAD_REGISTER(lrn, lrn_ops, TL_GRAD_DROP_OUTPUTS);
  static const int lrn_backward[] = {TL_OP_LOCAL_RESPONSE_NORM_BACKWARD};
  TL_GRAD_REGISTER(lrn_backward, lrn_backward_ops, TL_GRAD_DROP_OUTPUTS);
  static const int forward[] = {TL_OP_NATIVE_BATCH_NORM, TL_OP_NATIVE_LAYER_NORM,
                                TL_OP_NATIVE_GROUP_NORM, TL_OP_FUSED_RMS_NORM};
  /* the normalised output is not read back (its backward op takes the input
   * and the statistics), so the node keeps it as a stub, as PyTorch does */
  TL_GRAD_REGISTER(forward, forward_ops, TL_GRAD_DROP_FIRST_OUTPUT);
  static const int backward[] = {TL_OP_NATIVE_BATCH_NORM_BACKWARD, TL_OP_NATIVE_LAYER_NORM_BACKWARD,
                                 TL_OP_NATIVE_GROUP_NORM_BACKWARD, TL_OP_FUSED_RMS_NORM_BACKWARD};
  TL_GRAD_REGISTER(backward, backward_ops, TL_GRAD_DROP_OUTPUTS);
}
