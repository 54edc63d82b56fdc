/* py_formula.c - what a derivative formula sees: the saved call, its outputs,
 * the incoming gradients, and a way to call torchlike ops.
 *
 * Formulas (formulas_*.c) are written as nested calls, e.g.
 *   SEND(ARG(0, "input"), CALL("mul", "OO", G(0), R(0)));
 * Every helper returns a borrowed reference owned by the formula's scope and
 * returns NULL when an error is pending, so a formula needs no error checks:
 * the engine looks for a pending error once the formula returns.
 *
 * A gradient sent to an input is reduced to the input's shape (broadcasting
 * undone by summing) and cast to its dtype here, once for every formula.   */
#include <stdarg.h>

#include <Python.h>

#include "grad/py_grad.h"

tl_grad_formula tl_grad_formulas[TL_GRAD_COUNT];

void tl_grad_register(const int *ids, size_t n, tl_grad_formula fn, int drops)
{
  for (size_t i = 0; i < n; i++) {
    if (fn)
      tl_grad_formulas[ids[i]] = fn;
    if (drops)
      tl_grad_drops(ids[i], drops);
  }
}
bool tl_grad_nondifferentiable[TL_GRAD_COUNT];
bool tl_grad_writes_any_dtype[TL_GRAD_COUNT];

static PyObject *keep(tl_grad_ctx *c, PyObject *owned)
{
  if (!owned)
    return NULL;
  int r = PyList_Append(c->scope, owned);
  Py_DECREF(owned);
  return r < 0 ? NULL : owned;
}

PyObject *tl_grad_keep(tl_grad_ctx *c, PyObject *owned) { return keep(c, owned); }

PyObject *tl_grad_arg(tl_grad_ctx *c, int pos, const char *name)
{
  return PyErr_Occurred() ? NULL : tl_grad_node_arg(c->node, pos, name);
}

PyObject *tl_grad_node_arg(const tl_py_node *node, int pos, const char *name)
{
  if (pos >= 0 && pos < node->nargs)
    return node->args[pos];
  Py_ssize_t nkw = node->kwnames ? PyTuple_GET_SIZE(node->kwnames) : 0;
  for (Py_ssize_t k = 0; name && k < nkw; k++) {
    const char *key = PyUnicode_AsUTF8(PyTuple_GET_ITEM(node->kwnames, k));
    const char *alias = key ? tl_py_kw_alias(key) : NULL;
    if (key && (!strcmp(key, name) || (alias && !strcmp(alias, name))))
      return node->args[node->nargs + k];
  }
  return NULL;
}

static PyObject *version_error(tl_grad_ctx *c, PyObject *t, const char *what, uint32_t expected)
{
  char shape[128];
  const tl_tensor *v = tl_py_t(t);
  tl_shape_str(shape, sizeof shape, v->ndim, v->shape);
  PyErr_Format(PyExc_RuntimeError, "one of the variables needed for gradient computation has "
               "been modified by an inplace operation: [torchlike.Tensor %s, dtype %s], which is "
               "%s of %U, is at version %u; expected version %u instead.", shape,
               tl_dtype_names[v->dtype], what, c->node->name,
               (unsigned)tl_storage_version(v->storage), (unsigned)expected);
  return NULL;
}

PyObject *tl_grad_value(tl_grad_ctx *c, int pos, const char *name)
{
  PyObject *a = tl_grad_arg(c, pos, name);
  if (!a || !tl_py_is_tensor(a))
    return a;
  if (tl_grad_is_stub(a))
    return PyErr_Format(PyExc_SystemError, "%U: the formula reads an input it registered as "
                        "not needed (tl_grad_drops)", c->node->name);
  for (int i = 0; i < c->node->ninputs; i++)
    if (c->node->inputs[i].obj == a &&
        tl_storage_version(tl_py_t(a)->storage) != c->node->inputs[i].version)
      return version_error(c, a, "an input", c->node->inputs[i].version);
  return a;
}

PyObject *tl_grad_result(tl_grad_ctx *c, int i)
{
  if (PyErr_Occurred())
    return NULL;
  PyObject *out = i < c->node->noutputs ? c->node->outputs[i] : NULL;
  if (!out || tl_grad_is_stub(out))
    return PyErr_Format(PyExc_SystemError, "%U: output %d was not saved", c->node->name, i);
  if (tl_storage_version(tl_py_t(out)->storage) != c->node->out_versions[i])
    return version_error(c, out, "an output", c->node->out_versions[i]);
  if (!c->create_graph)
    return out;
  /* Differentiating through the result: an alias that is this node's output. */
  const tl_tensor *t = tl_py_t(out);
  if (!tl_dtype_is_float(t->dtype) && !tl_dtype_is_complex(t->dtype))
    return out; /* indices: nothing to differentiate through */
  PyObject *linked = keep(c, tl_py_tensor_alias(out));
  if (linked)
    tl_grad_set_history(linked, c->node, i);
  return linked;
}

bool tl_grad_has_out(tl_grad_ctx *c, int i) { return i < c->node->noutputs && c->grads[i]; }

PyObject *tl_grad_out(tl_grad_ctx *c, int i)
{
  if (PyErr_Occurred())
    return NULL;
  if (i < c->node->noutputs && c->grads[i])
    return c->grads[i];
  PyObject *out = i < c->node->noutputs ? c->node->outputs[i] : NULL;
  if (!out)
    return PyErr_Format(PyExc_RuntimeError, "%U: no gradient for output %d", c->node->name, i);
  return tl_grad_call(c, "zeros_like", "O", out);
}

static int input_index(tl_grad_ctx *c, PyObject *input)
{
  for (int i = 0; i < c->node->ninputs; i++)
    if (c->node->inputs[i].obj == input)
      return c->node->inputs[i].edge.fn ? i : -1;
  return -1;
}

bool tl_grad_needs(tl_grad_ctx *c, PyObject *input)
{
  if (!input || PyErr_Occurred())
    return false;
  int i = input_index(c, input);
  return i >= 0 && (!c->wanted || c->wanted[i]);
}

/* The dims to sum so that a gradient of shape g becomes one of shape t. */
static PyObject *sum_to_shape(tl_grad_ctx *c, PyObject *grad, const tl_tensor *t)
{
  const tl_tensor *g = tl_py_t(grad);
  int lead = g->ndim - t->ndim;
  if (lead < 0)
    return PyErr_Format(PyExc_RuntimeError, "%U: gradient of rank %d for an input of rank %d",
                        c->node->name, g->ndim, t->ndim);
  PyObject *dims = PyList_New(0);
  for (int d = 0; dims && d < g->ndim; d++) {
    if (d < lead || (t->shape[d - lead] == 1 && g->shape[d] != 1)) {
      PyObject *v = PyLong_FromLong(d);
      if (!v || PyList_Append(dims, v) < 0)
        Py_CLEAR(dims);
      Py_XDECREF(v);
    }
  }
  if (!keep(c, dims))
    return NULL;
  PyObject *r = grad;
  if (PyList_GET_SIZE(dims))
    r = tl_grad_call(c, "sum", "O|{s:O,s:O}", grad, "dim", dims, "keepdim", Py_True);
  PyObject *shape = keep(c, tl_py_size_new(t->ndim, t->shape));
  return tl_grad_call(c, "reshape", "OO", r, shape);
}

void tl_grad_send(tl_grad_ctx *c, PyObject *input, PyObject *grad)
{
  if (!input || !grad || PyErr_Occurred() || grad == Py_None)
    return;
  int k = input_index(c, input);
  if (k < 0)
    return;
  if (!tl_py_is_tensor(grad)) {
    PyErr_Format(PyExc_TypeError, "%U: gradient is a %s, not a Tensor", c->node->name,
                 Py_TYPE(grad)->tp_name);
    return;
  }
  const tl_tensor *t = tl_py_t(input), *g = tl_py_t(grad);
  bool same_shape = g->ndim == t->ndim;
  for (int d = 0; same_shape && d < t->ndim; d++)
    same_shape = g->shape[d] == t->shape[d];
  if (!same_shape)
    grad = sum_to_shape(c, grad, t);
  /* t's dtype, unless the gradient goes into a leaf whose grad_dtype says else
   * (the saved object may be a stand-in: the leaf is the accumulator's) */
  tl_py_node *to = c->node->inputs[k].edge.fn;
  int want = to->kind == TL_NODE_ACCUMULATE ? tl_py_grad_dtype((tl_py_tensor *)to->ctx)
                                            : (int)t->dtype;
  if (grad && want >= 0 && tl_py_t(grad)->dtype != (tl_dtype)want) {
    if (tl_dtype_is_complex(tl_py_t(grad)->dtype) && !tl_dtype_is_complex((tl_dtype)want))
      grad = tl_grad_call(c, "real", "O", grad);
    grad = tl_grad_call(c, "to", "OO", grad, tl_py_dtype_obj((tl_dtype)want));
  }
  if (!grad)
    return;
  if (c->results[k])
    grad = tl_grad_call(c, "add", "OO", c->results[k], grad);
  if (grad)
    Py_XSETREF(c->results[k], Py_NewRef(grad));
}

PyObject *tl_grad_unreduce(tl_grad_ctx *c, PyObject *g, PyObject *x, PyObject *dim, PyObject *keepdim)
{
  if (!g || !x || PyErr_Occurred())
    return NULL;
  int kept = keepdim ? PyObject_IsTrue(keepdim) : 0;
  if (kept < 0)
    return NULL;
  if (kept)
    return g;
  const tl_tensor *t = tl_py_t(x);
  uint64_t mask;
  if (tl_py_parse_dims(dim, t->ndim, &mask) < 0)
    return NULL;
  int64_t shape[TL_MAX_DIMS];
  for (int d = 0; d < t->ndim; d++)
    shape[d] = mask >> d & 1 ? 1 : t->shape[d];
  PyObject *size = keep(c, tl_py_size_new(t->ndim, shape));
  return tl_grad_call(c, "reshape", "OO", g, size);
}

PyObject *tl_grad_shape(tl_grad_ctx *c, PyObject *x)
{
  if (!x || PyErr_Occurred())
    return NULL;
  const tl_tensor *t = tl_py_t(x);
  return keep(c, tl_py_size_new(t->ndim, t->shape));
}

/* ---- calling ops ------------------------------------------------------------ */

static PyObject *module_ref;

static PyObject *lookup(const char *name)
{
  static PyObject *cache;
  if (!cache && !(cache = PyDict_New()))
    return NULL;
  PyObject *fn = PyDict_GetItemString(cache, name);
  if (fn)
    return fn;
  fn = PyObject_GetAttrString(module_ref, name);
  if (!fn) {
    PyErr_Clear();
    fn = PyObject_GetAttrString((PyObject *)tl_py_tensor_type, name);
  }
  if (!fn)
    return PyErr_Format(PyExc_RuntimeError, "autograd formula: no torchlike function '%s'", name);
  int r = PyDict_SetItemString(cache, name, fn);
  Py_DECREF(fn);
  return r < 0 ? NULL : fn;
}

PyObject *tl_grad_call(tl_grad_ctx *c, const char *name, const char *fmt, ...)
{
  if (PyErr_Occurred())
    return NULL;
  PyObject *fn = lookup(name);
  if (!fn)
    return NULL;
  va_list ap;
  va_start(ap, fmt);
  size_t n = strspn(fmt, "O");
  if (fmt[n] == '\0' && n <= 4) {
    /* Tensors only (the common case): call without building a tuple. */
    PyObject *args[4];
    bool missing = false;
    for (size_t i = 0; i < n; i++)
      missing |= !(args[i] = va_arg(ap, PyObject *));
    va_end(ap);
    if (missing)
      return PyErr_Format(PyExc_SystemError, "autograd formula of %U: NULL argument to %s",
                          c->node->name, name);
    return keep(c, PyObject_Vectorcall(fn, args, n, NULL));
  }
  char full[64];
  const char *bar = strchr(fmt, '|');
  if (bar)
    snprintf(full, sizeof full, "((%.*s)%s)", (int)(bar - fmt), fmt, bar + 1);
  else
    snprintf(full, sizeof full, "(%s)", fmt);
  PyObject *built = Py_VaBuildValue(full, ap);
  va_end(ap);
  if (!built)
    return NULL;
  PyObject *r;
  if (bar)
    r = PyObject_Call(fn, PyTuple_GET_ITEM(built, 0), PyTuple_GET_ITEM(built, 1));
  else
    r = PyObject_Call(fn, built, NULL);
  Py_DECREF(built);
  return keep(c, r);
}

int tl_py_formula_module(PyObject *module)
{
  module_ref = module;
  return 0;
}
