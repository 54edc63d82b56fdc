/* formulas_nn_embedding.c - derivatives of embedding and embedding_bag
 * (src/nn/embedding) and of their backward ops, for double backward.
 *
 *   embedding:                  dW = embedding_dense_backward(g, idx, V, pad, freq)
 *   embedding_dense_backward:   d g[i] = s(idx[i]) gg[idx[i]]   (s: 0 for the
 *                               padding row, 1 / count with freq, else 1)
 *   _embedding_bag:             dW = _embedding_bag_dense_backward(g, ...);
 *                               d psw[i] = <W[idx[i]], g[bag[i]]> (sum mode)
 *   _embedding_bag_dense_backward: its adjoint, a bag reduction of gg's rows
 *                               (sum/mean) or gg at the max rows (max); and
 *                               d psw[i] = <gg[idx[i]], g[bag[i]]>.
 * Entries that belong to no bag or to the padding row get nothing.         */
#include "grad/py_grad.h"

static PyObject *int_arg(tl_grad_ctx *c, int pos, const char *name, long fallback)
{
  PyObject *v = ARG(pos, name);
  return v || PyErr_Occurred() ? v : tl_grad_keep(c, PyLong_FromLong(fallback));
}

static PyObject *bool_arg(tl_grad_ctx *c, int pos, const char *name)
{
  PyObject *v = ARG(pos, name);
  return v || PyErr_Occurred() ? v : Py_False;
}

static PyObject *dtype_of(tl_grad_ctx *c, PyObject *t)
{
  return t ? tl_grad_keep(c, PyObject_GetAttrString(t, "dtype")) : NULL;
}

static PyObject *flat(tl_grad_ctx *c, PyObject *t) { return CALL("reshape", "Oi", t, -1); }

/* [t != pad] as dtype `like`'s (all ones when pad < 0). */
static PyObject *not_pad(tl_grad_ctx *c, PyObject *idx, PyObject *pad, PyObject *like)
{
  return CALL("to", "OO", CALL("ne", "OO", idx, pad), dtype_of(c, like));
}

static void embedding_ops(tl_grad_ctx *c)
{
  PyObject *w = ARG(0, "weight");
  if (!w || !NEEDS(w))
    return;
  PyObject *V = tl_grad_keep(c, PyLong_FromLongLong(tl_py_t(w)->shape[0]));
  SEND(w, CALL("embedding_dense_backward", "OOOOO", G(0), X(1, "indices"), V,
               int_arg(c, 2, "padding_idx", -1), bool_arg(c, 3, "scale_grad_by_freq")));
}

static void embedding_backward_ops(tl_grad_ctx *c)
{
  PyObject *g = ARG(0, "grad_output");
  if (!NEEDS(g))
    return;
  PyObject *idx = X(1, "indices"), *pad = ARG(3, "padding_idx"), *gg = G(0);
  PyObject *r = CALL("embedding", "OO", gg, idx);
  long padv = pad ? PyLong_AsLong(pad) : -1;
  int freq = PyObject_IsTrue(ARG(4, "scale_grad_by_freq"));
  if (padv >= 0 || freq > 0) {
    PyObject *f = padv >= 0 ? not_pad(c, idx, pad, gg) : CALL("ones_like", "OO", idx, dtype_of(c, gg));
    if (freq > 0) {
      PyObject *counts = CALL("bincount", "O|{s:O}", flat(c, idx), "minlength", ARG(2, "num_weights"));
      PyObject *per = CALL("index_select", "OiO", counts, 0, flat(c, idx));
      f = CALL("div", "OO", f, CALL("reshape", "OO", per, SHAPE(idx)));
    }
    r = CALL("mul", "OO", r, CALL("unsqueeze", "Oi", f, -1));
  }
  SEND(g, r);
}

/* The factor each index's row carries in a sum/mean bag: 0 for padding or
 * no bag, psw[i] and 1 / bag_size for mean. */
static PyObject *bag_factor(tl_grad_ctx *c, PyObject *idx, PyObject *bag_of, PyObject *bag_size,
                            PyObject *psw, long mode, PyObject *pad, PyObject *like)
{
  PyObject *f = CALL("mul", "OO", not_pad(c, idx, pad, like),
                     CALL("to", "OO", CALL("ge", "Oi", bag_of, 0), dtype_of(c, like)));
  if (psw && psw != Py_None)
    f = CALL("mul", "OO", f, flat(c, psw));
  if (mode == 1) {
    PyObject *sizes = CALL("index_select", "OiO", bag_size, 0, CALL("clamp", "O|{s:i}", bag_of, "min", 0));
    f = CALL("div", "OO", f, CALL("clamp", "O|{s:i}", sizes, "min", 1));
  }
  return f;
}

/* d psw[i] = <rows[i], g[bag[i]]>, masked, in psw's shape. */
static PyObject *psw_grad(tl_grad_ctx *c, PyObject *rows, PyObject *g, PyObject *idx,
                          PyObject *bag_of, PyObject *pad, PyObject *psw)
{
  PyObject *gb = CALL("index_select", "OiO", g, 0, CALL("clamp", "O|{s:i}", bag_of, "min", 0));
  PyObject *dot = CALL("sum", "Oi", CALL("mul", "OO", rows, gb), -1);
  PyObject *m = bag_factor(c, idx, bag_of, NULL, NULL, 0, pad, g);
  return CALL("reshape", "OO", CALL("mul", "OO", dot, m), SHAPE(psw));
}

static void embedding_bag_ops(tl_grad_ctx *c)
{
  PyObject *w = ARG(0, "weight"), *psw = ARG(4, "per_sample_weights");
  PyObject *idx = X(1, "indices"), *pad = int_arg(c, 6, "padding_idx", -1);
  PyObject *mode = int_arg(c, 3, "mode", 0), *g = G(0);
  if (psw == Py_None)
    psw = NULL;
  if (w && NEEDS(w)) {
    PyObject *V = tl_grad_keep(c, PyLong_FromLongLong(tl_py_t(w)->shape[0]));
    SEND(w, CALL("_embedding_bag_dense_backward", "OOOOOOOOO", g, idx, R(1), R(2), R(3), V, mode,
                 psw ? X(4, "per_sample_weights") : Py_None, pad));
  }
  if (psw && NEEDS(psw)) {
    PyObject *rows = CALL("embedding", "OO", X(0, "weight"), flat(c, idx));
    SEND(psw, psw_grad(c, rows, g, flat(c, idx), R(1), pad, psw));
  }
}

static void embedding_bag_backward_ops(tl_grad_ctx *c)
{
  PyObject *g = ARG(0, "grad"), *psw = ARG(7, "per_sample_weights"), *gg = G(0);
  PyObject *idx = flat(c, X(1, "indices")), *bag_of = X(2, "offset2bag");
  PyObject *pad = int_arg(c, 8, "padding_idx", -1), *modeo = ARG(6, "mode");
  long mode = modeo ? PyLong_AsLong(modeo) : 0;
  if (psw == Py_None)
    psw = NULL;
  if (NEEDS(g)) {
    if (mode == 2) {
      PyObject *am = X(4, "max_indices");
      PyObject *valid = CALL("to", "OO", CALL("ge", "Oi", am, 0), dtype_of(c, gg));
      SEND(g, CALL("mul", "OO", CALL("gather", "OiO", gg, 0, CALL("clamp", "O|{s:i}", am, "min", 0)),
                   valid));
    } else {
      PyObject *f = bag_factor(c, idx, bag_of, X(3, "bag_size"),
                               psw ? X(7, "per_sample_weights") : NULL, mode, pad, gg);
      PyObject *rows = CALL("mul", "OO", CALL("index_select", "OiO", gg, 0, idx),
                            CALL("unsqueeze", "Oi", f, -1));
      PyObject *zero = CALL("zeros_like", "O", X(0, "grad"));
      SEND(g, CALL("index_add", "OiOO", zero, 0, CALL("clamp", "O|{s:i}", bag_of, "min", 0), rows));
    }
  }
  if (psw && NEEDS(psw)) {
    PyObject *rows = CALL("index_select", "OiO", gg, 0, idx);
    SEND(psw, psw_grad(c, rows, X(0, "grad"), idx, bag_of, pad, psw));
  }
}

void tl_grad_formulas_nn_embedding_init(void)
{
  static const int embedding[] = {TL_OP_EMBEDDING};
  TL_GRAD_REGISTER(embedding, embedding_ops, TL_GRAD_DROP_OUTPUTS);
  static const int backward[] = {TL_OP_EMBEDDING_BACKWARD};
  TL_GRAD_REGISTER(backward, embedding_backward_ops, TL_GRAD_DROP_OUTPUTS);
  static const int bag[] = {TL_OP_EMBEDDING_BAG};
  TL_GRAD_REGISTER(bag, embedding_bag_ops, 0);
  static const int bag_backward[] = {TL_OP_EMBEDDING_BAG_BACKWARD};
  TL_GRAD_REGISTER(bag_backward, embedding_bag_backward_ops, TL_GRAD_DROP_OUTPUTS);
}
