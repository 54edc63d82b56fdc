/* py_node.c - graph nodes (Tensor.grad_fn) and their Python face.
 *
 * A node owns: the saved call (arguments with their tensors), aliases of its
 * outputs, strong references to the nodes its edges lead to, and the hooks
 * registered on it or on its outputs.  Nothing points back from a node to the
 * tensors that came out of it, so tensor -> node -> older tensors is a chain,
 * never a cycle; leaves are reached through an AccumulateGrad node that holds
 * the leaf while the leaf only borrows it.                                  */
#include <Python.h>
#include <structmember.h>

#include "grad/py_grad.h"

PyTypeObject *tl_py_node_type;
static uint64_t next_seq;

/* torch.autograd.graph.node_creation_hook: this thread's hooks (a list,
 * outermost first; NULL when none), and whether one of them is running (a
 * hook may only look at its node: making another one then is refused). */
static _Thread_local PyObject *creation_hooks;
static _Thread_local bool in_creation_hook;

tl_py_node *tl_py_node_new(tl_node_kind kind, int formula, PyObject *name)
{
  if (in_creation_hook) {
    PyErr_Format(PyExc_RuntimeError, "Creating a new autograd node from inside a node creation "
                 "hook is not supported. Node creation hooks should only observe the node (e.g. "
                 "record it, stash metadata, or register backward hooks on it); got a new node "
                 "of type %U while a hook was running.", name);
    return NULL;
  }
  PyTypeObject *cls = tl_py_node_class(name);
  if (!cls)
    return NULL;
  tl_py_node *node = PyObject_GC_New(tl_py_node, cls);
  if (!node)
    return NULL;
  memset((char *)node + sizeof(PyObject), 0, sizeof *node - sizeof(PyObject));
  node->kind = kind;
  node->formula = formula;
  node->name = Py_NewRef(name);
  node->seq = ++next_seq;
  PyObject_GC_Track(node);
  if (tl_anomaly_enabled && tl_anomaly_record(node) < 0)
    Py_CLEAR(node);
  return node;
}

tl_py_node *tl_py_node_accumulator(tl_py_tensor *leaf)
{
  if (leaf->grad_acc)
    return (tl_py_node *)Py_NewRef(leaf->grad_acc);
  static PyObject *name;
  if (!name && !(name = PyUnicode_InternFromString("torch::autograd::AccumulateGrad")))
    return NULL;
  tl_py_node *node = tl_py_node_new(TL_NODE_ACCUMULATE, -1, name);
  if (!node)
    return NULL;
  node->ctx = Py_NewRef(leaf);
  leaf->grad_acc = (PyObject *)node; /* borrowed: cleared when the node goes */
  if (tl_py_node_created(node) < 0)
    Py_CLEAR(node);
  return node;
}

int tl_py_node_created(tl_py_node *node)
{
  if (!creation_hooks || PyList_GET_SIZE(creation_hooks) == 0)
    return 0;
  /* a copy: a hook that enters or leaves a node_creation_hook block does not
   * change the list being walked */
  PyObject *hooks = PyList_GetSlice(creation_hooks, 0, PyList_GET_SIZE(creation_hooks));
  int r = -1;
  if (!hooks)
    return -1;
  in_creation_hook = true;
  for (Py_ssize_t i = 0; i < PyList_GET_SIZE(hooks); i++) {
    PyObject *out = PyObject_CallOneArg(PyList_GET_ITEM(hooks, i), (PyObject *)node);
    if (!out)
      goto done;
    Py_DECREF(out);
  }
  r = 0;
done:
  in_creation_hook = false;
  Py_DECREF(hooks);
  return r;
}

/* _set_node_creation_hooks(list or None): this thread's hooks (graph.py). */
static PyObject *py_set_node_creation_hooks(PyObject *self, PyObject *hooks)
{
  (void)self;
  if (hooks != Py_None && !PyList_CheckExact(hooks))
    return PyErr_Format(PyExc_TypeError, "_set_node_creation_hooks: expected a list or None, "
                        "not %s", Py_TYPE(hooks)->tp_name);
  Py_XSETREF(creation_hooks, hooks == Py_None ? NULL : Py_NewRef(hooks));
  Py_RETURN_NONE;
}

static PyMethodDef node_functions[] = {
    {"_set_node_creation_hooks", py_set_node_creation_hooks, METH_O, NULL},
    {NULL, NULL, 0, NULL},
};

tl_edge tl_py_tensor_edge(tl_py_tensor *t)
{
  if (t->grad_fn)
    return (tl_edge){(tl_py_node *)Py_NewRef(t->grad_fn), t->output_nr};
  if (t->requires_grad)
    return (tl_edge){tl_py_node_accumulator(t), 0}; /* NULL on error */
  return (tl_edge){NULL, 0};
}

int tl_py_saved_input_init(tl_saved_input *in, PyObject *obj, tl_py_tensor *source)
{
  in->obj = obj;
  in->version = tl_storage_version(source->t.storage);
  in->edge = tl_py_tensor_edge(source);
  return source->requires_grad && !in->edge.fn ? -1 : 0;
}

void tl_py_node_release(tl_py_node *node)
{
  for (Py_ssize_t i = 0; i < node->nall; i++)
    Py_XDECREF(node->args[i]);
  PyMem_Free(node->args);
  node->args = NULL;
  node->nall = node->nargs = 0;
  Py_CLEAR(node->kwnames);
  for (int i = 0; i < node->noutputs; i++)
    Py_CLEAR(node->outputs[i]);
  if (node->kind == TL_NODE_PYTHON)
    Py_CLEAR(node->ctx);
  Py_CLEAR(node->packed);
  Py_CLEAR(node->unpack);
  node->released = true;
}

static int node_clear(PyObject *self)
{
  tl_py_node *node = (tl_py_node *)self;
  if (node->kind == TL_NODE_ACCUMULATE && node->ctx) {
    tl_py_tensor *leaf = (tl_py_tensor *)node->ctx;
    if (leaf->grad_acc == self)
      leaf->grad_acc = NULL;
  }
  tl_py_node_release(node);
  for (int i = 0; i < node->ninputs; i++)
    Py_CLEAR(node->inputs[i].edge.fn);
  Py_CLEAR(node->ctx);
  Py_CLEAR(node->pre_hooks);
  Py_CLEAR(node->retained);
  Py_CLEAR(node->hooks);
  Py_CLEAR(node->dict);
  return 0;
}

static void node_dealloc(PyObject *self)
{
  tl_py_node *node = (tl_py_node *)self;
  PyTypeObject *type = Py_TYPE(self);
  PyObject_GC_UnTrack(self);
  /* Long chains (an RNN unrolled for 10^5 steps) would recurse once per node
   * here; the trashcan turns that into a loop. */
  Py_TRASHCAN_BEGIN(self, node_dealloc)
  node_clear(self);
  PyMem_Free(node->inputs);
  PyMem_Free(node->outputs);
  PyMem_Free(node->out_versions);
  Py_CLEAR(node->name);
  type->tp_free(self);
  Py_DECREF(type);
  Py_TRASHCAN_END
}

static int node_traverse(PyObject *self, visitproc visit, void *arg)
{
  tl_py_node *node = (tl_py_node *)self;
  Py_VISIT(Py_TYPE(self));
  for (Py_ssize_t i = 0; i < node->nall; i++)
    Py_VISIT(node->args[i]);
  for (int i = 0; i < node->ninputs; i++)
    Py_VISIT(node->inputs[i].edge.fn);
  for (int i = 0; i < node->noutputs; i++)
    Py_VISIT(node->outputs[i]);
  Py_VISIT(node->ctx);
  Py_VISIT(node->pre_hooks);
  Py_VISIT(node->retained);
  Py_VISIT(node->hooks);
  Py_VISIT(node->dict);
  Py_VISIT(node->packed);
  Py_VISIT(node->unpack);
  return 0;
}

/* ---- Python face ------------------------------------------------------------- */

static PyObject *node_repr(PyObject *self)
{
  return PyUnicode_FromFormat("<%s object at %p>", Py_TYPE(self)->tp_name, self);
}

static PyObject *node_name_method(PyObject *self, PyObject *unused)
{
  (void)unused;
  return Py_NewRef(((tl_py_node *)self)->name);
}

/* ((node, nr), ...) per input, (None, 0) where no gradient flows. */
static PyObject *node_next_functions(PyObject *self, void *closure)
{
  (void)closure;
  tl_py_node *node = (tl_py_node *)self;
  int n = tl_grad_nslots(node); /* PyTorch's layout (edge_slots.c) */
  PyObject *r = PyTuple_New(n);
  for (int i = 0; r && i < n; i++) {
    int k = tl_grad_slot(node, i);
    tl_edge e = k < 0 ? (tl_edge){NULL, 0} : node->inputs[k].edge;
    PyObject *pair = Py_BuildValue("(Oi)", e.fn ? (PyObject *)e.fn : Py_None, e.nr);
    if (!pair)
      Py_CLEAR(r);
    else
      PyTuple_SET_ITEM(r, i, pair);
  }
  return r;
}

static PyObject *node_variable(PyObject *self, void *closure)
{
  (void)closure;
  tl_py_node *node = (tl_py_node *)self;
  if (node->kind != TL_NODE_ACCUMULATE)
    return PyErr_Format(PyExc_AttributeError, "'%U' object has no attribute 'variable'", node->name);
  return Py_NewRef(node->ctx);
}

static PyObject *node_get_ctx(PyObject *self, void *closure)
{
  (void)closure;
  tl_py_node *node = (tl_py_node *)self;
  return Py_NewRef(node->kind == TL_NODE_PYTHON && node->ctx ? node->ctx : Py_None);
}

static PyObject *node_get_metadata(PyObject *self, void *closure)
{
  (void)closure;
  tl_py_node *node = (tl_py_node *)self;
  if (!node->dict && !(node->dict = PyDict_New()))
    return NULL;
  return Py_NewRef(node->dict);
}

/* Add t to list unless it is a stub (kept for its metadata only). */
static int add_saved(PyObject *list, PyObject *t)
{
  return t && tl_py_is_tensor(t) && !tl_grad_is_stub(t) ? PyList_Append(list, t) : 0;
}

/* node._saved_tensors: the tensors whose data the node keeps for its formula
 * (saved arguments, in lists too, then outputs); stubs are left out.  Empty
 * once a backward has released the node. */
static PyObject *node_saved_tensors(PyObject *self, void *closure)
{
  (void)closure;
  tl_py_node *node = (tl_py_node *)self;
  PyObject *list = PyList_New(0);
  for (Py_ssize_t i = 0; list && node->args && i < node->nall; i++) {
    PyObject *a = node->args[i];
    int r = add_saved(list, a);
    if (a && (PyList_CheckExact(a) || PyTuple_CheckExact(a)))
      for (Py_ssize_t k = 0; r == 0 && k < PySequence_Fast_GET_SIZE(a); k++)
        r = add_saved(list, PySequence_Fast_ITEMS(a)[k]);
    if (r < 0)
      Py_CLEAR(list);
  }
  for (int i = 0; list && node->outputs && i < node->noutputs; i++)
    if (add_saved(list, node->outputs[i]) < 0)
      Py_CLEAR(list);
  PyObject *r = list ? PyList_AsTuple(list) : NULL;
  Py_XDECREF(list);
  return r;
}

/* The list the engine reads a kind of hook from, made on first use. */
static PyObject *hook_list(PyObject **slot)
{
  if (!*slot && !(*slot = PyList_New(0)))
    return NULL;
  return Py_NewRef(*slot);
}

/* node._hook_lists() -> (pre_hooks, retained, hooks): Python builds handles on these. */
static PyObject *node_hook_lists(PyObject *self, PyObject *unused)
{
  (void)unused;
  tl_py_node *node = (tl_py_node *)self;
  PyObject *a = hook_list(&node->pre_hooks), *b = a ? hook_list(&node->retained) : NULL,
           *c = b ? hook_list(&node->hooks) : NULL;
  PyObject *r = c ? PyTuple_Pack(3, a, b, c) : NULL;
  Py_XDECREF(a);
  Py_XDECREF(b);
  Py_XDECREF(c);
  return r;
}

static PyMethodDef node_methods[] = {
    {"name", node_name_method, METH_NOARGS, "the node's name, e.g. 'MulBackward0'"},
    {"_hook_lists", node_hook_lists, METH_NOARGS, NULL},
    {NULL, NULL, 0, NULL},
};
static PyGetSetDef node_getset[] = {
    {"next_functions", node_next_functions, NULL, "(node, output_nr) for each input", NULL},
    {"variable", node_variable, NULL, "the leaf an AccumulateGrad node adds into", NULL},
    {"_ctx", node_get_ctx, NULL, NULL, NULL},
    {"metadata", node_get_metadata, NULL, NULL, NULL},
    {"_saved_tensors", node_saved_tensors, NULL, NULL, NULL},
    {NULL, NULL, NULL, NULL, NULL},
};
static PyType_Slot node_slots[] = {
    {Py_tp_dealloc, node_dealloc},
    {Py_tp_traverse, node_traverse},
    {Py_tp_clear, node_clear},
    {Py_tp_repr, node_repr},
    {Py_tp_methods, node_methods},
    {Py_tp_getset, node_getset},
    {0, NULL},
};
static PyType_Spec node_spec = {
    .name = "torchlike._C.Node",
    .basicsize = sizeof(tl_py_node),
    .flags = Py_TPFLAGS_DEFAULT | Py_TPFLAGS_HAVE_GC | Py_TPFLAGS_BASETYPE |
             Py_TPFLAGS_DISALLOW_INSTANTIATION,
    .slots = node_slots,
};

int tl_py_node_init(PyObject *module)
{
  tl_py_node_type = (PyTypeObject *)PyType_FromSpec(&node_spec);
  if (!tl_py_node_type)
    return -1;
  if (PyModule_AddObjectRef(module, "Node", (PyObject *)tl_py_node_type) < 0)
    return -1;
  return PyModule_AddFunctions(module, node_functions);
}
