/* py_saved_hooks.c - saved-tensor hooks (torchlike.autograd.graph.saved_tensors_hooks).
 *
 * While a (pack, unpack) pair is set on this thread, the recorder hands every
 * tensor a new node keeps for its formula (its saved arguments, in lists too,
 * and its saved outputs; never a metadata stub) to pack, keeps what pack
 * returns, and puts a stub in the tensor's slot, so the node holds no tensor
 * data of its own.  Each time the node runs in a backward, unpack is called on
 * every packed value, its results stand in the slots while the formula runs
 * (carrying the saved input's history, so create_graph differentiates through
 * them), and the stubs go back afterwards: a retain_graph backward unpacks
 * again, as PyTorch does.  A tensor saved twice (mul(x, x)) is packed twice.
 * As in PyTorch, there is no version check on what unpack returns.
 *
 * node->packed is a list of (slot, item, packed): slot >= 0 is args[slot]
 * (item >= 0: that item of a list argument), slot < 0 is outputs[-1 - slot].
 *
 * Python keeps the stack of hooks per thread (torchlike/autograd/graph.py)
 * and sets its top here; the recorder only tests a thread-local pointer.  */
#include <Python.h>

#include "grad/py_grad.h"
#include "ndcore/bindings/py_torch_function.h"

_Thread_local PyObject *tl_saved_hooks; /* (pack, unpack) or NULL */

/* The slot a packed entry refers to. */
static PyObject **slot_of(tl_py_node *node, Py_ssize_t slot, Py_ssize_t item)
{
  if (slot < 0)
    return &node->outputs[-1 - slot];
  if (item < 0)
    return &node->args[slot];
  return &PySequence_Fast_ITEMS(node->args[slot])[item];
}

/* Point the inputs that are `from` at `to` (the kept object changes form). */
static void retarget_inputs(tl_py_node *node, PyObject *from, PyObject *to)
{
  for (int i = 0; i < node->ninputs; i++)
    if (node->inputs[i].obj == from)
      node->inputs[i].obj = to;
}

/* Pack the tensor in *slot: `real` is the tensor pack sees (the output
 * itself rather than the node's alias of it).  seen maps tensors packed
 * already to their stubs, so a tensor in two slots keeps one identity. */
static int pack_slot(tl_py_node *node, PyObject *pack, Py_ssize_t s, Py_ssize_t k,
                     PyObject *real, PyObject *seen)
{
  PyObject **slot = slot_of(node, s, k), *kept = *slot;
  if (!kept || !tl_py_is_tensor(kept) || tl_grad_is_stub(kept))
    return 0;
  /* pack runs with grad mode off, as in PyTorch: the ops it calls (a copy
   * to the host) are not recorded, so they do not pack in turn */
  bool was = tl_py_grad_enabled;
  tl_py_grad_enabled = false;
  PyObject *packed = PyObject_CallOneArg(pack, real ? real : kept), *stub = NULL, *entry = NULL;
  tl_py_grad_enabled = was;
  if (!packed)
    return -1;
  int r = -1;
  PyObject *key = PyLong_FromVoidPtr(kept);
  if (!key)
    goto done;
  stub = Py_XNewRef(PyDict_GetItemWithError(seen, key));
  if (!stub && PyErr_Occurred())
    goto done;
  if (!stub) {
    if (!(stub = tl_grad_stub(kept)) || PyDict_SetItem(seen, key, stub) < 0)
      goto done;
    if (tl_grad_is_stub(stub) == false) { /* no stub for this device: keep the tensor */
      r = 0;
      goto done;
    }
    retarget_inputs(node, kept, stub);
  }
  if (!(entry = Py_BuildValue("(nnO)", s, k, packed)) || PyList_Append(node->packed, entry) < 0)
    goto done;
  Py_SETREF(*slot, Py_NewRef(stub));
  r = 0;
done:
  Py_XDECREF(key);
  Py_XDECREF(stub);
  Py_XDECREF(entry);
  Py_DECREF(packed);
  return r;
}

int tl_grad_pack_node(tl_py_node *node, PyObject *outs)
{
  PyObject *pack = PyTuple_GET_ITEM(tl_saved_hooks, 0), *seen = PyDict_New();
  if (!seen || !(node->packed = PyList_New(0)))
    goto fail;
  node->unpack = Py_NewRef(PyTuple_GET_ITEM(tl_saved_hooks, 1));
  for (Py_ssize_t i = 0; i < node->nall; i++) {
    PyObject *a = node->args[i];
    if (tl_py_is_tensor(a)) {
      if (pack_slot(node, pack, i, -1, NULL, seen) < 0)
        goto fail;
    } else if (PyList_CheckExact(a) || PyTuple_CheckExact(a)) {
      /* the node's own copy of the list: its items are swapped at backward */
      PyObject *copy = PyList_CheckExact(a) ? PyList_GetSlice(a, 0, PY_SSIZE_T_MAX)
                                            : PyTuple_GetSlice(a, 0, PY_SSIZE_T_MAX);
      if (!copy)
        goto fail;
      Py_SETREF(node->args[i], copy);
      for (Py_ssize_t k = 0; k < PySequence_Fast_GET_SIZE(copy); k++)
        if (pack_slot(node, pack, i, k, NULL, seen) < 0)
          goto fail;
    }
  }
  for (int i = 0; i < node->noutputs; i++)
    if (pack_slot(node, pack, -1 - i, -1,
                  outs && i < PyTuple_GET_SIZE(outs) ? PyTuple_GET_ITEM(outs, i) : NULL, seen) < 0)
      goto fail;
  Py_DECREF(seen);
  return 0;
fail:
  Py_XDECREF(seen);
  return -1;
}

/* The tensor a formula reads in place of a stub: unpack's result (checked to
 * be a tensor) as a new alias carrying the saved input's history. */
static PyObject *unpacked_alias(tl_py_node *node, PyObject *stub, PyObject *value)
{
  if (!tl_py_is_tensor(value)) {
    PyErr_Format(PyExc_TypeError, "Output of saved tensor unpack_hook expected to be a Tensor "
                 "but got result of type %s", Py_TYPE(value)->tp_name);
    return NULL;
  }
  PyObject *alias = tl_py_tensor_alias(value);
  if (!alias)
    return NULL;
  for (int i = 0; i < node->ninputs; i++)
    if (node->inputs[i].obj == stub && node->inputs[i].edge.fn) {
      /* a leaf's edge is its AccumulateGrad node: a formula recorded on the
       * alias (create_graph) then still sends its gradient to the leaf */
      tl_grad_set_history(alias, node->inputs[i].edge.fn, node->inputs[i].edge.nr);
      break;
    }
  return alias;
}

/* Swap unpacked tensors in for the stubs (restore = false), or the stubs
 * back (restore = true).  swapped holds (stub, alias) pairs in the order of
 * node->packed; it owns the aliases until restore. */
int tl_grad_unpack_node(tl_py_node *node, PyObject *swapped, bool restore)
{
  Py_ssize_t n = PyList_GET_SIZE(node->packed);
  for (Py_ssize_t e = 0; e < n && (restore || e == PyList_GET_SIZE(swapped)); e++) {
    PyObject *entry = PyList_GET_ITEM(node->packed, e);
    Py_ssize_t s = PyLong_AsSsize_t(PyTuple_GET_ITEM(entry, 0));
    PyObject **slot = slot_of(node, s, PyLong_AsSsize_t(PyTuple_GET_ITEM(entry, 1)));
    if (restore) {
      if (e >= PyList_GET_SIZE(swapped))
        break;
      PyObject *pair = PyList_GET_ITEM(swapped, e);
      PyObject *stub = PyTuple_GET_ITEM(pair, 0), *alias = PyTuple_GET_ITEM(pair, 1);
      retarget_inputs(node, alias, stub);
      Py_SETREF(*slot, Py_NewRef(stub));
      continue;
    }
    PyObject *stub = *slot, *alias = NULL;
    /* the same stub unpacked earlier (a tensor saved twice): one object, as the
     * formula finds its inputs by identity; unpack is still called for each */
    for (Py_ssize_t p = 0; p < e; p++) {
      PyObject *pair = PyList_GET_ITEM(swapped, p);
      if (PyTuple_GET_ITEM(pair, 0) == stub)
        alias = Py_NewRef(PyTuple_GET_ITEM(pair, 1));
    }
    int tf = tl_py_tf_user_enter(); /* the user's unpack hook */
    PyObject *value = PyObject_CallOneArg(node->unpack, PyTuple_GET_ITEM(entry, 2));
    tl_py_tf_user_leave(tf);
    if (!value) {
      Py_XDECREF(alias);
      return -1;
    }
    if (!alias)
      alias = unpacked_alias(node, stub, value);
    Py_DECREF(value);
    PyObject *pair = alias ? PyTuple_Pack(2, stub, alias) : NULL;
    if (!pair || PyList_Append(swapped, pair) < 0) {
      Py_XDECREF(pair);
      Py_XDECREF(alias);
      return -1;
    }
    Py_DECREF(pair);
    /* unpack's result is not version-checked (PyTorch): the saved versions
     * are those of the new storage for this run */
    uint32_t version = tl_storage_version(tl_py_t(alias)->storage);
    for (int i = 0; i < node->ninputs; i++)
      if (node->inputs[i].obj == stub)
        node->inputs[i].version = version;
    if (s < 0)
      node->out_versions[-1 - s] = version;
    retarget_inputs(node, stub, alias);
    Py_SETREF(*slot, alias);
  }
  return 0;
}

/* _set_saved_tensors_hooks(pair or None): the top of this thread's stack. */
static PyObject *py_set_saved_tensors_hooks(PyObject *self, PyObject *pair)
{
  (void)self;
  if (pair != Py_None && (!PyTuple_CheckExact(pair) || PyTuple_GET_SIZE(pair) != 2 ||
                          !PyCallable_Check(PyTuple_GET_ITEM(pair, 0)) ||
                          !PyCallable_Check(PyTuple_GET_ITEM(pair, 1))))
    return PyErr_Format(PyExc_TypeError, "_set_saved_tensors_hooks: expected None or a pair of "
                        "callables (pack_hook, unpack_hook)");
  Py_XSETREF(tl_saved_hooks, pair == Py_None ? NULL : Py_NewRef(pair));
  Py_RETURN_NONE;
}

/* _increment_version(t): what an in-place write does to t's version counter
 * (autograd.graph.increment_version). */
static PyObject *py_increment_version(PyObject *self, PyObject *t)
{
  (void)self;
  if (!tl_py_is_tensor(t))
    return PyErr_Format(PyExc_TypeError, "increment_version: expected a Tensor, got %s",
                        Py_TYPE(t)->tp_name);
  tl_storage_bump(tl_py_t(t)->storage);
  Py_RETURN_NONE;
}

static PyMethodDef saved_hooks_functions[] = {
    {"_set_saved_tensors_hooks", py_set_saved_tensors_hooks, METH_O, NULL},
    {"_increment_version", py_increment_version, METH_O, NULL},
    {NULL, NULL, 0, NULL},
};

int tl_py_saved_hooks_init(PyObject *module)
{
  return PyModule_AddFunctions(module, saved_hooks_functions);
}
