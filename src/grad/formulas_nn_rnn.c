/* formulas_nn_rnn.c - derivatives of the fused recurrent cells (src/nn/rnn).
 *
 * A plain backward runs the fused backward kernels, which read the saved
 * workspace (activated gates) and states.  With create_graph=True the
 * gradients are instead composed from ops that have derivatives themselves
 * (the gates recomputed from the saved inputs), so double backward goes
 * through that composed path, as PyTorch's _thnn_differentiable_*_backward
 * do; the fused backward ops are therefore not differentiable.
 *
 * Notation (LSTM): i f o = sigmoid, g = tanh of the gate blocks, cy = f cx +
 * i g, tc = tanh(cy).  With the gradients ghy, gcy of hy, cy:
 *   gc = gcy + ghy o (1 - tc^2)
 *   d i = gc g i(1-i)   d f = gc cx f(1-f)   d g = gc i (1-g^2)   d o = ghy tc o(1-o)
 *   d cx = gc f;  both gate inputs get (d i, d f, d g, d o); each bias its column sums.
 * GRU (r z sigmoid, hn = hg_n + b_hn, n = tanh(ig_n + b_in + r hn), hy = n + z (hx - n)):
 *   d n = ghy (1-z) (1-n^2)   d z = ghy (hx-n) z(1-z)   d r = d n hn r(1-r)   d hx = ghy z
 *   input gates (d r, d z, d n), hidden gates (d r, d z, d n r).
 * RNN: d pre = ghy (1 - hy^2) (tanh) or ghy [hy > 0] (relu).
 *
 * The layer op (_rnn_layer: one direction over a whole sequence) likewise:
 * its backward op (_rnn_layer_backward, the reverse recursion in C) is not
 * differentiable; with create_graph=True the layer is re-run step by step on
 * the tape from the saved inputs and that graph is differentiated
 * (torchlike/nn/modules/_rnn_layer.py, taped_layer_grads), so double
 * backward is exact. */
#include "grad/py_grad.h"

static PyObject *item(PyObject *tuple, int k)
{
  return tuple ? PyTuple_GetItem(tuple, k) : NULL;
}

/* An optional argument: NULL when absent or None. */
static PyObject *given(PyObject *o)
{
  return o == Py_None ? NULL : o;
}

static PyObject *add(tl_grad_ctx *c, PyObject *a, PyObject *b)
{
  return b ? CALL("add", "OO", a, b) : a;
}

static PyObject *mul(tl_grad_ctx *c, PyObject *a, PyObject *b) { return CALL("mul", "OO", a, b); }

/* s (1 - s) for a sigmoid s; 1 - t^2 for a tanh t */
static PyObject *dsigmoid(tl_grad_ctx *c, PyObject *s) { return CALL("sub", "OO", s, mul(c, s, s)); }
static PyObject *dtanh(tl_grad_ctx *c, PyObject *t) { return CALL("sub", "dO", 1.0, mul(c, t, t)); }

static PyObject *col_sum(tl_grad_ctx *c, PyObject *g) { return CALL("sum", "Oi", g, 0); }

static PyObject *grad_or_none(tl_grad_ctx *c, int i) { return tl_grad_has_out(c, i) ? G(i) : Py_None; }

static void lstm_cell(tl_grad_ctx *c)
{
  PyObject *ig = ARG(0, "input_gates"), *hg = ARG(1, "hidden_gates"), *cx = ARG(2, "cx");
  PyObject *bi = given(ARG(3, "input_bias")), *bh = given(ARG(4, "hidden_bias"));
  PyObject *gates, *gcx, *gb = NULL;
  if (!c->create_graph) {
    PyObject *r = CALL("_thnn_fused_lstm_cell_backward_impl", "OOOOOO", grad_or_none(c, 0),
                       grad_or_none(c, 1), X(2, "cx"), R(1), R(2), bi || bh ? Py_True : Py_False);
    gates = item(r, 0);
    gcx = item(r, 1);
    gb = item(r, 2);
  } else {
    PyObject *pre = add(c, add(c, add(c, X(0, "input_gates"), X(1, "hidden_gates")),
                               bi ? X(3, "input_bias") : NULL), bh ? X(4, "hidden_bias") : NULL);
    PyObject *ch = CALL("chunk", "Oii", pre, 4, 1), *cxv = X(2, "cx");
    PyObject *i = CALL("sigmoid", "O", item(ch, 0)), *f = CALL("sigmoid", "O", item(ch, 1));
    PyObject *g = CALL("tanh", "O", item(ch, 2)), *o = CALL("sigmoid", "O", item(ch, 3));
    PyObject *tc = CALL("tanh", "O", add(c, mul(c, f, cxv), mul(c, i, g)));
    PyObject *ghy = G(0), *gc = add(c, G(1), mul(c, mul(c, ghy, o), dtanh(c, tc)));
    PyObject *parts = Py_BuildValue("[OOOO]", mul(c, mul(c, gc, g), dsigmoid(c, i)),
                                    mul(c, mul(c, gc, cxv), dsigmoid(c, f)),
                                    mul(c, mul(c, gc, i), dtanh(c, g)),
                                    mul(c, mul(c, ghy, tc), dsigmoid(c, o)));
    gates = CALL("cat", "Oi", tl_grad_keep(c, parts), 1);
    gcx = mul(c, gc, f);
    if (bi || bh)
      gb = col_sum(c, gates);
  }
  SEND(ig, gates);
  SEND(hg, gates);
  SEND(cx, gcx);
  SEND(bi, gb);
  SEND(bh, gb);
}

static void gru_cell(tl_grad_ctx *c)
{
  PyObject *ig = ARG(0, "input_gates"), *hg = ARG(1, "hidden_gates"), *hx = ARG(2, "hx");
  PyObject *bi = given(ARG(3, "input_bias")), *bh = given(ARG(4, "hidden_bias"));
  PyObject *gig, *ghg, *ghx, *gbi = NULL, *gbh = NULL;
  if (!c->create_graph) {
    PyObject *r = CALL("_thnn_fused_gru_cell_backward", "OOO", G(0), R(1),
                       bi || bh ? Py_True : Py_False);
    gig = item(r, 0);
    ghg = item(r, 1);
    ghx = item(r, 2);
    gbi = item(r, 3);
    gbh = item(r, 4);
  } else {
    PyObject *ic = CALL("chunk", "Oii", add(c, X(0, "input_gates"), bi ? X(3, "input_bias") : NULL), 3, 1);
    PyObject *hc = CALL("chunk", "Oii", add(c, X(1, "hidden_gates"), bh ? X(4, "hidden_bias") : NULL), 3, 1);
    PyObject *r = CALL("sigmoid", "O", add(c, item(ic, 0), item(hc, 0)));
    PyObject *z = CALL("sigmoid", "O", add(c, item(ic, 1), item(hc, 1)));
    PyObject *hn = item(hc, 2), *n = CALL("tanh", "O", add(c, item(ic, 2), mul(c, r, hn)));
    PyObject *g = G(0), *hxv = X(2, "hx");
    PyObject *gn = mul(c, mul(c, g, CALL("sub", "dO", 1.0, z)), dtanh(c, n));
    PyObject *gz = mul(c, mul(c, g, CALL("sub", "OO", hxv, n)), dsigmoid(c, z));
    PyObject *gr = mul(c, mul(c, gn, hn), dsigmoid(c, r));
    gig = CALL("cat", "Oi", tl_grad_keep(c, Py_BuildValue("[OOO]", gr, gz, gn)), 1);
    ghg = CALL("cat", "Oi", tl_grad_keep(c, Py_BuildValue("[OOO]", gr, gz, mul(c, gn, r))), 1);
    ghx = mul(c, g, z);
    if (bi || bh) {
      gbi = col_sum(c, gig);
      gbh = col_sum(c, ghg);
    }
  }
  SEND(ig, gig);
  SEND(hg, ghg);
  SEND(hx, ghx);
  SEND(bi, gbi);
  SEND(bh, gbh);
}

static void rnn_cell(tl_grad_ctx *c)
{
  PyObject *relu = ARG(4, "relu"), *hy = R(0), *g = G(0);
  PyObject *gp = relu && PyObject_IsTrue(relu) == 1 ? mul(c, g, CALL("gt", "Od", hy, 0.0))
                                                     : mul(c, g, dtanh(c, hy));
  SEND(ARG(0, "input_gates"), gp);
  SEND(ARG(1, "hidden_gates"), gp);
  PyObject *bi = given(ARG(2, "input_bias")), *bh = given(ARG(3, "hidden_bias"));
  if (bi || bh) {
    PyObject *gb = col_sum(c, gp);
    SEND(bi, gb);
    SEND(bh, gb);
  }
}

static PyObject *flag(bool b) { return b ? Py_True : Py_False; }

/* The gradients with create_graph: the taped re-run in Python. */
static PyObject *taped_layer_grads(tl_grad_ctx *c, PyObject *inputs, PyObject *grads,
                                   PyObject *needs, PyObject *batch_sizes, PyObject *mode,
                                   PyObject *reverse)
{
  if (PyErr_Occurred() || !inputs || !grads || !needs)
    return NULL;
  PyObject *module = PyImport_ImportModule("torchlike.nn.modules._rnn_layer");
  if (!module)
    return NULL;
  PyObject *r = PyObject_CallMethod(module, "taped_layer_grads", "OOOOOO", inputs, grads, needs,
                                    batch_sizes, mode, reverse);
  Py_DECREF(module);
  return r ? tl_grad_keep(c, r) : NULL;
}

/* _rnn_layer(input, hx, cx, weight_ih, weight_hh, bias_ih, bias_hh, weight_hr, batch_sizes,
 * mode, reverse) -> output, hy, cy, workspace */
static void rnn_layer(tl_grad_ctx *c)
{
  static const char *names[] = {"input", "hx", "cx", "weight_ih", "weight_hh", "bias_ih",
                                "bias_hh", "weight_hr"};
  PyObject *in[8];
  for (int k = 0; k < 8; k++)
    in[k] = given(ARG(k, names[k]));
  PyObject *bs = given(ARG(8, "batch_sizes")), *mode = ARG(9, "mode"), *rev = ARG(10, "reverse");
  bs = bs ? bs : Py_None;
  mode = mode ? mode : tl_grad_keep(c, PyLong_FromLong(0));
  rev = rev ? rev : Py_False;
  PyObject *r;
  if (!c->create_graph) {
    r = CALL("_rnn_layer_backward", "OOOOOOOOOOOOO", grad_or_none(c, 0), grad_or_none(c, 1),
             grad_or_none(c, 2), X(0, "input"), X(3, "weight_ih"), X(4, "weight_hh"),
             in[7] ? X(7, "weight_hr") : Py_None, R(3), bs, mode, rev,
             flag(in[5] || in[6]), flag(NEEDS(in[0])));
  } else {
    PyObject *values = tl_grad_keep(c, PyTuple_New(8));
    PyObject *needs = tl_grad_keep(c, PyTuple_New(8));
    PyObject *grads = tl_grad_keep(c, PyTuple_New(3));
    for (int k = 0; values && needs && k < 8; k++) {
      PyObject *v = in[k] ? X(k, names[k]) : Py_None;
      PyTuple_SET_ITEM(values, k, Py_NewRef(v ? v : Py_None));
      PyTuple_SET_ITEM(needs, k, Py_NewRef(flag(in[k] && NEEDS(in[k]))));
    }
    for (int k = 0; grads && k < 3; k++)
      PyTuple_SET_ITEM(grads, k, Py_NewRef(grad_or_none(c, k)));
    r = taped_layer_grads(c, values, grads, needs, bs, mode, rev);
  }
  for (int k = 0; r && k < 8; k++)
    SEND(in[k], item(r, k));
}

void tl_grad_formulas_nn_rnn_init(void)
{
  static const int lstm[] = {TL_OP_FUSED_LSTM_CELL};
  TL_GRAD_REGISTER(lstm, lstm_cell, 0);
  static const int gru[] = {TL_OP_FUSED_GRU_CELL};
  TL_GRAD_REGISTER(gru, gru_cell, 0);
  /* reads its output only */
  static const int rnn[] = {TL_OP_FUSED_RNN_CELL};
  TL_GRAD_REGISTER(rnn, rnn_cell, TL_GRAD_DROP_INPUTS);
  static const int layer[] = {TL_OP_RNN_LAYER};
  TL_GRAD_REGISTER(layer, rnn_layer, 0);
  /* double backward goes through the composed path (above) */
  tl_grad_nondifferentiable[TL_OP_FUSED_LSTM_CELL_BACKWARD] = true;
  tl_grad_nondifferentiable[TL_OP_FUSED_GRU_CELL_BACKWARD] = true;
  tl_grad_nondifferentiable[TL_OP_RNN_LAYER_BACKWARD] = true;
}
