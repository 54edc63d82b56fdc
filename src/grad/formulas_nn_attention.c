/* formulas_nn_attention.c - the derivative of the blocked scaled dot-product
 * attention (src/nn/attention).
 *
 * A plain backward runs the fused backward op, which recomputes the score
 * blocks from the saved logsumexp (O(T) memory).  With create_graph=True,
 * or when the float attn_mask itself wants a gradient, the gradients are
 * composed from matmul and softmax ops instead (the math path, O(T^2), as
 * PyTorch's double backward of SDPA goes through its math kernel):
 *   P = softmax(scale Q K^T + mask),  dV = P^T dO,  dS = P * (dO V^T - rowsum(...))
 *   dQ = scale dS K,  dK = scale dS^T Q,  d mask = dS
 * The math path has no dropout (its mask would have to be materialised):
 * double backward with dropout_p > 0 raises.  Grouped heads: K and V are
 * repeated over the group and their gradients summed back.  The fused
 * backward op is not differentiable itself. */
#include <math.h>

#include "grad/py_grad.h"

static PyObject *or_default(PyObject *o, PyObject *fallback) { return o ? o : fallback; }

/* t (..., Hk, S, E) repeated `group` times along dim -3, or its gradient
 * (..., Hk * group, S, E) summed back to t's shape. */
static PyObject *grouped(tl_grad_ctx *c, PyObject *t, int64_t group, PyObject *grad)
{
  if (group == 1)
    return grad ? grad : t;
  if (!grad)
    return CALL("repeat_interleave", "OL|{s:i}", t, (long long)group, "dim", -3);
  const tl_tensor *v = tl_py_t(t);
  int64_t shape[TL_MAX_DIMS + 1];
  int n = v->ndim;
  for (int d = 0; d < n - 2; d++)
    shape[d] = v->shape[d];
  shape[n - 2] = group;
  shape[n - 1] = v->shape[n - 2];
  shape[n] = v->shape[n - 1];
  PyObject *size = tl_grad_keep(c, tl_py_size_new(n + 1, shape));
  return CALL("sum", "Oi", CALL("reshape", "OO", grad, size), -3);
}

static void math_path(tl_grad_ctx *c, PyObject *mask, double p, bool causal, PyObject *scale)
{
  PyObject *q = X(0, "query"), *k = X(1, "key"), *v = X(2, "value"), *g = G(0);
  if (PyErr_Occurred())
    return;
  if (p > 0) {
    PyErr_SetString(PyExc_NotImplementedError, "scaled_dot_product_attention: double backward "
                    "(create_graph=True) and a float attn_mask that requires grad are not "
                    "supported with dropout_p > 0");
    return;
  }
  const tl_tensor *qt = tl_py_t(q), *kt = tl_py_t(k);
  int n = qt->ndim;
  int64_t group = n >= 3 && kt->shape[n - 3] ? qt->shape[n - 3] / kt->shape[n - 3] : 1;
  double s = scale && scale != Py_None ? PyFloat_AsDouble(scale)
                                       : 1.0 / sqrt((double)(qt->shape[n - 1] ? qt->shape[n - 1] : 1));
  PyObject *kr = grouped(c, k, group, NULL), *vr = grouped(c, v, group, NULL);
  PyObject *scores = CALL("mul", "Od", CALL("matmul", "OO", q, CALL("transpose", "Oii", kr, -2, -1)), s);
  PyObject *ninf = tl_grad_keep(c, PyFloat_FromDouble(-INFINITY));
  if (causal) {
    PyObject *ones = CALL("ones_like", "O|{s:O}", scores, "dtype", tl_py_dtype_obj(TL_DTYPE_BOOL));
    scores = CALL("masked_fill", "OOO", scores, CALL("triu", "Oi", ones, 1), ninf);
  }
  if (mask && tl_py_t(mask)->dtype == TL_DTYPE_BOOL)
    scores = CALL("masked_fill", "OOO", scores, CALL("logical_not", "O", mask), ninf);
  else if (mask)
    scores = CALL("add", "OO", scores, X(-1, "attn_mask"));
  PyObject *prob = CALL("softmax", "Oi", scores, -1);
  PyObject *dtype = prob ? tl_py_dtype_obj(tl_py_t(prob)->dtype) : NULL;
  PyObject *ds = CALL("_softmax_backward_data", "OOiO",
                      CALL("matmul", "OO", g, CALL("transpose", "Oii", vr, -2, -1)), prob, -1, dtype);
  SEND(q, CALL("mul", "Od", CALL("matmul", "OO", ds, kr), s));
  if (NEEDS(k))
    SEND(k, grouped(c, k, group, CALL("mul", "Od", CALL("matmul", "OO",
                                                      CALL("transpose", "Oii", ds, -2, -1), q), s)));
  if (NEEDS(v))
    SEND(v, grouped(c, v, group, CALL("matmul", "OO", CALL("transpose", "Oii", prob, -2, -1), g)));
  SEND(mask, ds);
}

static void flash_attention(tl_grad_ctx *c)
{
  PyObject *mask = ARG(-1, "attn_mask"), *scale = ARG(-1, "scale"), *rng = ARG(-1, "rng_state");
  PyObject *pobj = or_default(ARG(3, "dropout_p"), NULL), *cobj = ARG(4, "is_causal");
  mask = mask == Py_None ? NULL : mask;
  double p = pobj ? PyFloat_AsDouble(pobj) : 0.0;
  bool causal = cobj && PyObject_IsTrue(cobj) == 1;
  if (PyErr_Occurred())
    return;
  if (c->create_graph || NEEDS(mask)) {
    math_path(c, mask, p, causal, scale);
    return;
  }
  PyObject *pf = tl_grad_keep(c, PyFloat_FromDouble(p));
  PyObject *r = CALL("_scaled_dot_product_flash_attention_for_cpu_backward",
                     "OOOOOOOO|{s:O,s:O,s:O}", G(0), X(0, "query"), X(1, "key"), X(2, "value"),
                     R(0), R(1), pf, causal ? Py_True : Py_False, "attn_mask",
                     mask ? X(-1, "attn_mask") : Py_None, "scale", or_default(scale, Py_None),
                     "rng_state", or_default(rng, Py_None));
  if (!r)
    return;
  SEND(ARG(0, "query"), PyTuple_GetItem(r, 0));
  SEND(ARG(1, "key"), PyTuple_GetItem(r, 1));
  SEND(ARG(2, "value"), PyTuple_GetItem(r, 2));
}

void tl_grad_formulas_nn_attention_init(void)
{
  static const int forward[] = {TL_OP_FLASH_ATTENTION};
  TL_GRAD_REGISTER(forward, flash_attention, 0);
  tl_grad_nondifferentiable[TL_OP_FLASH_ATTENTION_BACKWARD] = true;
}
