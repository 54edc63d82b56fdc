/* py_function.c - the node of a custom autograd.Function.
 *
 * Function.apply (torchlike/autograd/function.py) runs forward with grad
 * mode off, then calls _function_record: one PYTHON node whose edges are the
 * tensor arguments and whose outputs are the differentiable results.  At
 * backward the engine calls ctx._run_backward(grads, node) (engine.c), which
 * returns one gradient per edge.                                            */
#include <Python.h>

#include "grad/py_grad.h"

/* _function_record(ctx, name, inputs, outputs, differentiable) -> None
 * inputs: the tensor arguments, in order (an edge each, repeats allowed);
 * outputs: every output tensor; differentiable: a bool per output. */
static PyObject *py_function_record(PyObject *self, PyObject *args)
{
  (void)self;
  PyObject *ctx, *name, *inputs, *outputs, *diff;
  if (!PyArg_ParseTuple(args, "OUO!O!O!:_function_record", &ctx, &name, &PyTuple_Type, &inputs,
                        &PyTuple_Type, &outputs, &PyTuple_Type, &diff))
    return NULL;
  Py_ssize_t nin = PyTuple_GET_SIZE(inputs), nout = PyTuple_GET_SIZE(outputs);
  if (PyTuple_GET_SIZE(diff) != nout)
    return PyErr_Format(PyExc_ValueError, "_function_record: %zd outputs, %zd flags", nout,
                        PyTuple_GET_SIZE(diff));
  for (Py_ssize_t i = 0; i < nin + nout; i++) {
    PyObject *t = i < nin ? PyTuple_GET_ITEM(inputs, i) : PyTuple_GET_ITEM(outputs, i - nin);
    if (!tl_py_is_tensor(t))
      return PyErr_Format(PyExc_TypeError, "_function_record: %s %zd is not a Tensor",
                          i < nin ? "input" : "output", i < nin ? i : i - nin);
  }
  tl_py_node *node = tl_py_node_new(TL_NODE_PYTHON, -1, name);
  if (!node)
    return NULL;
  node->ctx = Py_NewRef(ctx);
  node->inputs = PyMem_Calloc((size_t)(nin ? nin : 1), sizeof(tl_saved_input));
  node->outputs = PyMem_Calloc((size_t)(nout ? nout : 1), sizeof(PyObject *));
  node->out_versions = PyMem_Calloc((size_t)(nout ? nout : 1), sizeof(uint32_t));
  if (!node->inputs || !node->outputs || !node->out_versions) {
    PyErr_NoMemory();
    goto fail;
  }
  for (Py_ssize_t i = 0; i < nin; i++, node->ninputs++) {
    /* identity only: the ctx holds what backward needs */
    PyObject *t = PyTuple_GET_ITEM(inputs, i);
    if (tl_py_saved_input_init(&node->inputs[i], t, (tl_py_tensor *)t) < 0)
      goto fail;
  }
  node->noutputs = (int)nout;
  for (Py_ssize_t i = 0; i < nout; i++) {
    PyObject *o = PyTuple_GET_ITEM(outputs, i);
    int d = PyObject_IsTrue(PyTuple_GET_ITEM(diff, i));
    if (d < 0)
      goto fail;
    if (!d)
      continue;
    if (!(node->outputs[i] = tl_py_tensor_alias(o)))
      goto fail;
    node->out_versions[i] = tl_storage_version(tl_py_t(o)->storage);
    tl_grad_set_history(o, node, (int)i);
    tl_grad_view_of_function(o);
  }
  if (tl_py_node_created(node) < 0)
    goto fail;
  Py_DECREF(node);
  Py_RETURN_NONE;
fail:
  Py_DECREF(node);
  return NULL;
}

/* _function_saved_output(node, alias, nr) -> a new alias of `alias` whose
 * history is output nr of node.  ctx.saved_tensors hands saved outputs out
 * this way while a create_graph backward runs: the ctx cannot keep the node
 * (node -> ctx -> node would be a cycle), the engine passes it in instead. */
static PyObject *py_function_saved_output(PyObject *self, PyObject *args)
{
  (void)self;
  PyObject *node, *alias;
  int nr;
  if (!PyArg_ParseTuple(args, "O!Oi:_function_saved_output", tl_py_node_type, &node, &alias, &nr))
    return NULL;
  if (!tl_py_is_tensor(alias))
    return PyErr_Format(PyExc_TypeError, "_function_saved_output: alias is not a Tensor");
  if (nr < 0 || nr >= ((tl_py_node *)node)->noutputs)
    return PyErr_Format(PyExc_IndexError, "_function_saved_output: %U has no output %d",
                        ((tl_py_node *)node)->name, nr);
  PyObject *linked = tl_py_tensor_alias(alias);
  if (linked)
    tl_grad_set_history(linked, (tl_py_node *)node, nr);
  return linked;
}

static PyMethodDef function_functions[] = {
    {"_function_record", py_function_record, METH_VARARGS, NULL},
    {"_function_saved_output", py_function_saved_output, METH_VARARGS, NULL},
    {NULL, NULL, 0, NULL},
};

int tl_py_function_init(PyObject *module)
{
  return PyModule_AddFunctions(module, function_functions);
}
