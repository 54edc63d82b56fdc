/* py_engine.c - backward: run the graph's nodes in dependency order.
 *
 * One run: (1) walk the graph from the roots, counting for every node how
 * many edges lead into it; (2) when only some inputs are wanted
 * (autograd.grad, backward(inputs=...)), mark the nodes that lead to them and
 * run only those; (3) run nodes whose count has reached zero, newest first
 * (the highest sequence number, as PyTorch does), summing the gradients that
 * arrive for each output in the node's buffer.  A node's saved call is freed
 * after it runs unless retain_graph.  Grad mode during the run is
 * create_graph, so formulas are recorded exactly when asked.             */
#include <Python.h>
#include <string.h>

#include "grad/py_grad.h"
#include "ndcore/bindings/py_profiler.h"
#include "ndcore/bindings/py_torch_function.h"

typedef struct {
  tl_py_node *node;
  PyObject **buf; /* one gradient per output (AccumulateGrad: one) */
  int nbuf;
  int deps;
  bool target; /* a wanted input's gradient is read here */
  bool needed; /* target, or leads to one: it is processed */
  bool runs;   /* leads to a target through its inputs: its formula runs */
} task;

typedef struct {
  task *tasks;
  int ntasks, cap;
  int *slots; /* open addressing: node pointer -> task index + 1 */
  int nslots;
} graph;

static size_t hash_ptr(const void *p) { return ((uintptr_t)p >> 4) * 0x9E3779B97F4A7C15u; }

static int find_task(graph *g, tl_py_node *node)
{
  size_t mask = (size_t)g->nslots - 1;
  for (size_t h = hash_ptr(node) & mask;; h = (h + 1) & mask) {
    int s = g->slots[h];
    if (!s)
      return -1;
    if (g->tasks[s - 1].node == node)
      return s - 1;
  }
}

static int grow(graph *g)
{
  int nslots = g->nslots ? 2 * g->nslots : 64;
  int *slots = PyMem_Calloc((size_t)nslots, sizeof(int));
  task *tasks = PyMem_Realloc(g->tasks, (size_t)(nslots / 2) * sizeof(task));
  if (!slots || !tasks) {
    PyMem_Free(slots);
    if (tasks)
      g->tasks = tasks;
    PyErr_NoMemory();
    return -1;
  }
  g->tasks = tasks;
  g->cap = nslots / 2;
  PyMem_Free(g->slots);
  g->slots = slots;
  g->nslots = nslots;
  size_t mask = (size_t)nslots - 1;
  for (int i = 0; i < g->ntasks; i++) {
    size_t h = hash_ptr(g->tasks[i].node) & mask;
    while (slots[h])
      h = (h + 1) & mask;
    slots[h] = i + 1;
  }
  return 0;
}

static int add_task(graph *g, tl_py_node *node)
{
  if (g->ntasks == g->cap && grow(g) < 0)
    return -1;
  int nbuf = node->kind == TL_NODE_ACCUMULATE ? 1 : node->noutputs;
  PyObject **buf = PyMem_Calloc((size_t)(nbuf ? nbuf : 1), sizeof(PyObject *));
  if (!buf) {
    PyErr_NoMemory();
    return -1;
  }
  int i = g->ntasks++;
  g->tasks[i] = (task){.node = node, .buf = buf, .nbuf = nbuf};
  size_t mask = (size_t)g->nslots - 1, h = hash_ptr(node) & mask;
  while (g->slots[h])
    h = (h + 1) & mask;
  g->slots[h] = i + 1;
  return i;
}

static void graph_free(graph *g)
{
  for (int i = 0; i < g->ntasks; i++) {
    for (int k = 0; k < g->tasks[i].nbuf; k++)
      Py_XDECREF(g->tasks[i].buf[k]);
    PyMem_Free(g->tasks[i].buf);
  }
  PyMem_Free(g->tasks);
  PyMem_Free(g->slots);
}

typedef struct {
  int *items, top, cap;
} int_stack;

/* The task of node, made (and pushed to be walked) the first time it is seen. */
static int visit(graph *g, int_stack *st, tl_py_node *node)
{
  int t = find_task(g, node);
  if (t >= 0)
    return t;
  if ((t = add_task(g, node)) < 0)
    return -1;
  if (st->top == st->cap) {
    int cap = st->cap ? 2 * st->cap : 64;
    int *grown = PyMem_Realloc(st->items, (size_t)cap * sizeof(int));
    if (!grown) {
      PyErr_NoMemory();
      return -1;
    }
    st->items = grown;
    st->cap = cap;
  }
  st->items[st->top++] = t;
  return t;
}

/* Every node reachable from the roots, with its count of incoming edges. */
static int discover(graph *g, int nroots, tl_edge *roots)
{
  int_stack st = {0};
  int r = -1;
  for (int i = 0; i < nroots; i++)
    if (visit(g, &st, roots[i].fn) < 0)
      goto done;
  while (st.top) {
    tl_py_node *node = g->tasks[st.items[--st.top]].node;
    for (int k = 0; k < node->ninputs; k++) {
      tl_py_node *next = node->inputs[k].edge.fn;
      int t = next ? visit(g, &st, next) : 0;
      if (t < 0)
        goto done;
      if (next)
        g->tasks[t].deps++;
    }
  }
  r = 0;
done:
  PyMem_Free(st.items);
  return r;
}

/* needed = leads to a wanted input.  Children come after parents in a
 * topological order, so one pass over its reverse settles every node. */
static int mark_needed(graph *g)
{
  int n = g->ntasks, head = 0, tail = 0, r = -1;
  int *order = PyMem_Malloc((size_t)(n ? n : 1) * sizeof(int));
  int *deps = PyMem_Malloc((size_t)(n ? n : 1) * sizeof(int));
  if (!order || !deps) {
    PyErr_NoMemory();
    goto done;
  }
  for (int i = 0; i < n; i++)
    if (!(deps[i] = g->tasks[i].deps))
      order[tail++] = i;
  while (head < tail) {
    tl_py_node *node = g->tasks[order[head++]].node;
    for (int k = 0; k < node->ninputs; k++)
      if (node->inputs[k].edge.fn) {
        int t = find_task(g, node->inputs[k].edge.fn);
        if (--deps[t] == 0)
          order[tail++] = t;
      }
  }
  for (int i = tail - 1; i >= 0; i--) {
    task *tk = &g->tasks[order[i]];
    for (int k = 0; !tk->runs && k < tk->node->ninputs; k++)
      if (tk->node->inputs[k].edge.fn)
        tk->runs = g->tasks[find_task(g, tk->node->inputs[k].edge.fn)].needed;
    tk->needed = tk->target || tk->runs;
  }
  r = 0;
done:
  PyMem_Free(order);
  PyMem_Free(deps);
  return r;
}

/* ---- the ready queue: a max-heap on node->seq ---- */
typedef struct {
  int *items, n;
  graph *g;
} heap;

static bool heap_less(heap *h, int a, int b)
{
  return h->g->tasks[h->items[a]].node->seq < h->g->tasks[h->items[b]].node->seq;
}

static void heap_push(heap *h, int t)
{
  int i = h->n++;
  h->items[i] = t;
  while (i > 0 && heap_less(h, (i - 1) / 2, i)) {
    int p = (i - 1) / 2, tmp = h->items[p];
    h->items[p] = h->items[i];
    h->items[i] = tmp;
    i = p;
  }
}

static int heap_pop(heap *h)
{
  int top = h->items[0];
  h->items[0] = h->items[--h->n];
  for (int i = 0;;) {
    int l = 2 * i + 1, r = l + 1, m = i;
    if (l < h->n && heap_less(h, m, l))
      m = l;
    if (r < h->n && heap_less(h, m, r))
      m = r;
    if (m == i)
      break;
    int tmp = h->items[m];
    h->items[m] = h->items[i];
    h->items[i] = tmp;
    i = m;
  }
  return top;
}

/* ---- running one node ---- */

/* A callback into user code (a hook, a custom Function's backward): run in
 * the __torch_function__ state backward() was called in (py_torch_function.h). */
static PyObject *call_user(PyObject *fn, PyObject *const *args, size_t n)
{
  int saved = tl_py_tf_user_enter();
  PyObject *r = PyObject_Vectorcall(fn, args, n, NULL);
  tl_py_tf_user_leave(saved);
  return r;
}

static int add_into(PyObject **slot, PyObject *grad)
{
  if (!*slot) {
    *slot = Py_NewRef(grad);
    return 0;
  }
  PyObject *ops[2] = {*slot, grad};
  tl_op_params p = {.s = {{.kind = TL_KIND_INT, .v.i = 1}}};
  PyObject *sum = tl_py_grad_enabled && tl_py_grad_wanted(ops, 2)
                      ? PyObject_CallMethod(*slot, "add", "O", grad)
                      : tl_py_map(TL_OP_ADD, 2, ops, NULL, &p);
  if (!sum)
    return -1;
  Py_SETREF(*slot, sum);
  return 0;
}

/* A hook's replacement must look like the gradient it replaces (PyTorch's
 * check): a leaf would otherwise get a .grad of another shape, and a node
 * would fail later with a message that names neither the hook nor the shapes. */
static int check_hook_result(PyObject *hook, PyObject *grad, PyObject *r)
{
  const tl_tensor *g = tl_py_t(grad), *t = tl_py_t(r);
  PyObject *name = PyObject_GetAttrString(hook, "__name__");
  if (!name) {
    PyErr_Clear();
    name = PyObject_Repr(hook);
    if (!name)
      return -1;
  }
  /* PyTorch's words (torchlike/utils/hooks.py says the same of module hooks) */
  if (g->ndim != t->ndim || memcmp(g->shape, t->shape, (size_t)g->ndim * sizeof *g->shape))
    PyErr_Format(PyExc_RuntimeError, "hook '%U' has changed the size of value", name);
  else if (g->dtype != t->dtype)
    PyErr_Format(PyExc_RuntimeError, "hook '%U' has changed the type of value (was "
                 "torchlike.%sTensor got torchlike.%sTensor)", name,
                 tl_dtype_scalar_name(g->dtype), tl_dtype_scalar_name(t->dtype));
  else if (!tl_device_eq(tl_tensor_device(g), tl_tensor_device(t)))
    PyErr_Format(PyExc_RuntimeError, "hook '%U' has changed the device of value", name);
  Py_DECREF(name);
  return PyErr_Occurred() ? -1 : 0;
}

/* Call each (output_nr, hook) of a hook list on the matching gradient; a
 * hook returning a tensor replaces it. */
static int run_hooks(PyObject *hooks, PyObject **buf, int nbuf)
{
  if (!hooks)
    return 0;
  for (Py_ssize_t i = 0; i < PyList_GET_SIZE(hooks); i++) {
    PyObject *entry = PyList_GET_ITEM(hooks, i);
    int nr = (int)PyLong_AsLong(PyTuple_GET_ITEM(entry, 0));
    if (nr < 0 || nr >= nbuf || !buf[nr])
      continue;
    PyObject *r = call_user(PyTuple_GET_ITEM(entry, 1), &buf[nr], 1);
    if (!r)
      return -1;
    if (r == Py_None)
      Py_DECREF(r);
    else if (!tl_py_is_tensor(r)) {
      PyErr_Format(PyExc_TypeError, "expected Variable, but hook returned '%s'",
                   Py_TYPE(r)->tp_name);
      Py_DECREF(r);
      return -1;
    } else if (check_hook_result(PyTuple_GET_ITEM(entry, 1), buf[nr], r) < 0) {
      Py_DECREF(r);
      return -1;
    } else
      Py_SETREF(buf[nr], r);
  }
  return 0;
}

/* Node.register_prehook: entries (-1, hook) of the node's pre-hook list, run
 * after the tensor hooks; each gets the tuple of output gradients (None where
 * none arrived) and may return a tuple that replaces them. */
static int run_node_prehooks(PyObject *hooks, PyObject **buf, int nbuf)
{
  for (Py_ssize_t i = 0; hooks && i < PyList_GET_SIZE(hooks); i++) {
    PyObject *entry = PyList_GET_ITEM(hooks, i);
    if (PyLong_AsLong(PyTuple_GET_ITEM(entry, 0)) != -1)
      continue;
    PyObject *hook = Py_NewRef(PyTuple_GET_ITEM(entry, 1)), *grads = PyTuple_New(nbuf), *r = NULL;
    for (int k = 0; grads && k < nbuf; k++)
      PyTuple_SET_ITEM(grads, k, Py_NewRef(buf[k] ? buf[k] : Py_None));
    if (grads)
      r = call_user(hook, &grads, 1);
    Py_XDECREF(grads);
    int ok = r != NULL;
    if (r && r != Py_None) {
      if (!PyTuple_Check(r)) {
        PyErr_Format(PyExc_TypeError, "expected tuple, but hook returned '%s'",
                     Py_TYPE(r)->tp_name);
        ok = 0;
      } else if (PyTuple_GET_SIZE(r) != nbuf) {
        PyObject *name = PyObject_GetAttrString(hook, "__name__");
        if (name)
          PyErr_Format(PyExc_RuntimeError, "hook '%U' has returned an incorrect number of values "
                       "(got %zd, but expected %d)", name, PyTuple_GET_SIZE(r), nbuf);
        Py_XDECREF(name);
        ok = 0;
      }
      for (int k = 0; ok && k < nbuf; k++) {
        PyObject *g = PyTuple_GET_ITEM(r, k);
        if (g != Py_None &&
            (!tl_py_is_tensor(g) || (buf[k] && check_hook_result(hook, buf[k], g) < 0))) {
          if (!PyErr_Occurred())
            PyErr_Format(PyExc_TypeError, "expected Tensor or None, but hook returned '%s'",
                         Py_TYPE(g)->tp_name);
          ok = 0;
        }
      }
      for (int k = 0; ok && k < nbuf; k++) {
        PyObject *g = PyTuple_GET_ITEM(r, k);
        Py_XSETREF(buf[k], g == Py_None ? NULL : Py_NewRef(g));
      }
    }
    Py_XDECREF(r);
    Py_DECREF(hook);
    if (!ok)
      return -1;
  }
  return 0;
}

static int retain(tl_py_node *node, PyObject **buf, int nbuf)
{
  if (!node->retained)
    return 0;
  for (Py_ssize_t i = 0; i < PyList_GET_SIZE(node->retained); i++) {
    PyObject *entry = PyList_GET_ITEM(node->retained, i);
    int nr = (int)PyLong_AsLong(PyTuple_GET_ITEM(entry, 0));
    PyObject *t = PyWeakref_GetObject(PyTuple_GET_ITEM(entry, 1));
    if (nr < 0 || nr >= nbuf || !buf[nr] || t == Py_None)
      continue;
    tl_py_tensor *tt = (tl_py_tensor *)t;
    if (!tt->grad) {
      /* under create_graph the gradient has a history, which the retained
       * copy keeps (a recorded clone, as PyTorch's), else an alias will do */
      tt->grad = ((tl_py_tensor *)buf[nr])->requires_grad
                     ? PyObject_CallMethod(buf[nr], "clone", NULL)
                     : tl_py_tensor_alias(buf[nr]);
      if (!tt->grad)
        return -1;
    } else if (add_into(&tt->grad, buf[nr]) < 0)
      return -1;
  }
  return 0;
}

/* PyTorch's layout contract for .grad: a dense leaf's gradient has the
 * leaf's strides (a channels-last weight gets a channels-last gradient, and
 * an optimizer's flat updates pair the two up element by element), any
 * other leaf's is row-major.  Does g keep it for leaf? */
static bool obeys_layout(const tl_tensor *g, const tl_tensor *leaf)
{
  if (!tl_tensor_is_dense(leaf) || tl_tensor_is_contiguous(leaf))
    return tl_tensor_is_contiguous(g);
  return tl_tensor_has_strides(g, leaf->strides);
}

/* leaf.grad += grad (or = grad the first time). */
static int accumulate(tl_py_tensor *leaf, PyObject *grad, bool create_graph)
{
  if (!leaf->grad) {
    /* The gradient may be held elsewhere (the caller's backward(g), another
     * input's gradient, a view of one): .grad is later added to in place, so
     * the leaf gets its own copy unless nothing else can see this one. */
    const tl_tensor *g = tl_py_t(grad), *l = &leaf->t;
    bool shaped = g->ndim == l->ndim && !memcmp(g->shape, l->shape, (size_t)g->ndim * sizeof *g->shape);
    bool laid_out = shaped ? obeys_layout(g, l) : tl_tensor_is_contiguous(g);
    bool own = Py_REFCNT(grad) == 1 && g->storage->refcount == 1 && laid_out;
    if (!own && !create_graph) {
      /* the copy in the contract's layout: g's when it keeps it, else the
       * dense leaf's strides, else row-major */
      tl_tensor copy = {0};
      bool as_leaf = !laid_out && shaped && tl_tensor_is_dense(l);
      const tl_tensor *like = as_leaf ? l : g;
      tl_format format = laid_out || as_leaf ? TL_FORMAT_PRESERVE : TL_FORMAT_CONTIGUOUS;
      if (tl_tensor_empty_format(&copy, like, g->dtype, tl_tensor_device(g), format) != TL_OK)
        return tl_py_raise_int();
      if (tl_tensor_copy(&copy, g) != TL_OK) {
        tl_tensor_release(&copy);
        return tl_py_raise_int();
      }
      leaf->grad = tl_py_tensor_from(&copy);
    } else
      leaf->grad = Py_NewRef(grad);
    return leaf->grad ? 0 : -1;
  }
  if (create_graph || ((tl_py_tensor *)leaf->grad)->requires_grad) {
    PyObject *sum = PyNumber_Add(leaf->grad, grad);
    if (!sum)
      return -1;
    Py_SETREF(leaf->grad, sum);
    return 0;
  }
  PyObject *ops[2] = {leaf->grad, grad};
  tl_op_params p = {.s = {{.kind = TL_KIND_INT, .v.i = 1}}};
  PyObject *r = tl_py_map(TL_OP_ADD, 2, ops, leaf->grad, &p);
  Py_XDECREF(r);
  return r ? 0 : -1;
}

static int run_python(tl_py_node *node, PyObject **buf, PyObject **results)
{
  PyObject *grads = PyTuple_New(node->noutputs), *r = NULL;
  if (!grads)
    return -1;
  for (int i = 0; i < node->noutputs; i++)
    PyTuple_SET_ITEM(grads, i, Py_NewRef(buf[i] ? buf[i] : Py_None));
  PyObject *run = PyObject_GetAttrString(node->ctx, "_run_backward");
  if (run)
    r = call_user(run, (PyObject *[]){grads, (PyObject *)node}, 2);
  Py_XDECREF(run);
  Py_DECREF(grads);
  if (!r)
    return -1;
  /* _run_backward returns one gradient (or None) per saved input */
  if (!PyTuple_Check(r) || PyTuple_GET_SIZE(r) != node->ninputs) {
    PyErr_Format(PyExc_RuntimeError, "%U: backward returned the wrong number of gradients", node->name);
    Py_DECREF(r);
    return -1;
  }
  for (int k = 0; k < node->ninputs; k++) {
    PyObject *gk = PyTuple_GET_ITEM(r, k);
    results[k] = gk == Py_None ? NULL : Py_NewRef(gk);
  }
  Py_DECREF(r);
  return 0;
}

static int run_formula(tl_py_node *node, PyObject **buf, PyObject **results, const bool *wanted,
                       bool create_graph)
{
  tl_grad_formula f = tl_grad_formulas[node->formula];
  if (!f) {
    tl_grad_not_implemented(tl_grad_formula_name(node->formula), true);
    return -1;
  }
  tl_grad_ctx c = {.node = node, .formula = node->formula, .grads = buf, .results = results,
                   .wanted = wanted, .scope = PyList_New(0), .create_graph = create_graph};
  if (!c.scope)
    return -1;
  PyObject *swapped = NULL; /* saved-tensor hooks: the unpacked tensors of this run */
  if (node->packed && (!(swapped = PyList_New(0)) || tl_grad_unpack_node(node, swapped, false) < 0)) {
    if (swapped)
      tl_grad_unpack_node(node, swapped, true);
    Py_XDECREF(swapped);
    Py_DECREF(c.scope);
    return -1;
  }
  f(&c);
  if (swapped) {
    tl_grad_unpack_node(node, swapped, true);
    Py_DECREF(swapped);
  }
  Py_DECREF(c.scope);
  return PyErr_Occurred() ? -1 : 0;
}

static const char *freed_message =
    "Trying to backward through the graph a second time (or directly access saved tensors "
    "after they have already been freed). Saved intermediate values of the graph are freed "
    "when you call .backward() or autograd.grad(). Specify retain_graph=True if you need to "
    "backward through the graph a second time or if you need to access saved tensors after "
    "calling backward.";

/* What one run was asked for. */
typedef struct {
  bool keep_graph, create_graph;
  bool all_leaves;      /* backward() without inputs: every leaf accumulates */
  int ntargets;
  int *target_task;     /* per wanted input: its task (-1: not in the graph) */
  int *target_nr;
  PyObject **target_tensor;
  PyObject **captured;  /* autograd.grad: the gradients found; NULL for backward */
} run_spec;

/* A leaf's .grad is accumulated, then its post-accumulate-grad hooks run:
 * register_post_accumulate_grad_hook puts them on the leaf's hook list as
 * (-1, hook) (run_hooks skips them), and each is called with the leaf. */
static int accumulate_leaf(tl_py_tensor *leaf, PyObject *grad, bool create_graph)
{
  if (accumulate(leaf, grad, create_graph) < 0)
    return -1;
  for (Py_ssize_t i = 0; leaf->hooks && i < PyList_GET_SIZE(leaf->hooks); i++) {
    PyObject *entry = Py_NewRef(PyList_GET_ITEM(leaf->hooks, i)); /* a hook may remove it */
    PyObject *r = PyLong_AsLong(PyTuple_GET_ITEM(entry, 0)) == -1
                      ? call_user(PyTuple_GET_ITEM(entry, 1), (PyObject *[]){(PyObject *)leaf}, 1)
                      : Py_NewRef(Py_None);
    Py_DECREF(entry);
    if (r && r != Py_None) { /* PyTorch's two errors for a hook that returns something */
      if (tl_py_is_tensor(r))
        PyErr_SetString(PyExc_RuntimeError,
                        "Tensor post accumulate grad hooks should return None.");
      else
        PyErr_Format(PyExc_TypeError, "expected Variable, but hook returned '%s'",
                     Py_TYPE(r)->tp_name);
      Py_CLEAR(r);
    }
    if (!r)
      return -1;
    Py_DECREF(r);
  }
  return 0;
}

static int deliver_targets(run_spec *spec, int ti, PyObject **buf, int nbuf)
{
  for (int j = 0; j < spec->ntargets; j++) {
    if (spec->target_task[j] != ti || spec->target_nr[j] >= nbuf || !buf[spec->target_nr[j]])
      continue;
    PyObject *grad = buf[spec->target_nr[j]];
    if (spec->captured) {
      if (add_into(&spec->captured[j], grad) < 0)
        return -1;
      continue;
    }
    tl_py_tensor *target = (tl_py_tensor *)spec->target_tensor[j];
    if (target->grad_fn && target->retains_grad)
      continue; /* a non-leaf input of backward retains its grad: retain() added it */
    if (accumulate_leaf(target, grad, spec->create_graph) < 0)
      return -1;
  }
  return 0;
}

static int run_node(graph *g, heap *h, int ti, run_spec *spec)
{
  task *tk = &g->tasks[ti];
  tl_py_node *node = tk->node;
  if (run_hooks(node->pre_hooks, tk->buf, tk->nbuf) < 0 || retain(node, tk->buf, tk->nbuf) < 0 ||
      run_node_prehooks(node->pre_hooks, tk->buf, tk->nbuf) < 0)
    return -1;
  if (node->kind == TL_NODE_ACCUMULATE) {
    PyObject *hooks = ((tl_py_tensor *)node->ctx)->hooks;
    if (!tk->buf[0] || run_hooks(hooks, tk->buf, 1) < 0)
      return tk->buf[0] ? -1 : 0;
    if (tk->target)
      return deliver_targets(spec, ti, tk->buf, 1);
    if (!spec->all_leaves)
      return 0;
    return accumulate_leaf((tl_py_tensor *)node->ctx, tk->buf[0], spec->create_graph);
  }
  if (tk->target && deliver_targets(spec, ti, tk->buf, tk->nbuf) < 0)
    return -1;
  if (!tk->runs)
    return 0;
  if (node->released) {
    PyErr_SetString(PyExc_RuntimeError, freed_message);
    return -1;
  }
  /* results, each input's task (-1: none; looked up once, used again to
   * deliver), then which inputs lead to a wanted gradient: a formula computes
   * no other (and raises for no other, as PyTorch prunes: zeta's missing
   * derivative in x does not stop autograd.grad wrt q).  One block. */
  size_t nin = (size_t)(node->ninputs ? node->ninputs : 1);
  PyObject **results = PyMem_Calloc(1, nin * (sizeof(PyObject *) + sizeof(int) + sizeof(bool)));
  if (!results) {
    PyErr_NoMemory();
    return -1;
  }
  int *child_task = (int *)(results + nin);
  bool *wanted = (bool *)(child_task + nin);
  for (int k = 0; k < node->ninputs; k++) {
    child_task[k] = node->inputs[k].edge.fn ? find_task(g, node->inputs[k].edge.fn) : -1;
    wanted[k] = child_task[k] >= 0 && g->tasks[child_task[k]].needed;
  }
  /* profiled as PyTorch's engine: evaluate_function around the node's own event */
  tl_prof_mark outer = {.index = -1}, inner = {.index = -1};
  if (TL_PROF_UNLIKELY(tl_prof_on) && node->name) {
    outer = tl_prof_begin(TL_PROF_EVALUATE, node->name, NULL, 0);
    inner = tl_prof_begin(TL_PROF_NODE, node->name, NULL, 0);
  }
  /* anomaly mode: nodes the formula records name this one as their parent_ */
  bool anomaly = tl_anomaly_enabled;
  tl_py_node *outer_node = anomaly ? tl_anomaly_enter(node) : NULL;
  int r = node->kind == TL_NODE_PYTHON ? run_python(node, tk->buf, results)
                                       : run_formula(node, tk->buf, results, wanted, spec->create_graph);
  if (TL_PROF_UNLIKELY(inner.index >= 0))
    tl_prof_end(inner);
  if (r == 0 && node->hooks) {
    /* grad_inputs follow next_functions (edge_slots.c): a None edge's is None */
    int nslot = tl_grad_nslots(node);
    PyObject *gin = PyTuple_New(nslot), *gout = PyTuple_New(tk->nbuf);
    for (int k = 0; gin && k < nslot; k++) {
      int slot = tl_grad_slot(node, k);
      PyObject *gk = slot >= 0 ? results[slot] : NULL;
      PyTuple_SET_ITEM(gin, k, Py_NewRef(gk ? gk : Py_None));
    }
    for (int k = 0; gout && k < tk->nbuf; k++)
      PyTuple_SET_ITEM(gout, k, Py_NewRef(tk->buf[k] ? tk->buf[k] : Py_None));
    for (Py_ssize_t i = 0; gin && gout && r == 0 && i < PyList_GET_SIZE(node->hooks); i++) {
      PyObject *hr = call_user(PyList_GET_ITEM(node->hooks, i), (PyObject *[]){gin, gout}, 2);
      r = hr ? 0 : -1;
      if (hr && hr != Py_None) {
        /* Node.register_hook: a returned tuple replaces the input gradients */
        if (!PyTuple_Check(hr) || PyTuple_GET_SIZE(hr) != nslot) {
          PyErr_Format(PyExc_RuntimeError, "hook '%U' returned %R, expected None or a tuple "
                       "of %d gradients", node->name, hr, nslot);
          r = -1;
        }
        for (int k = 0; r == 0 && k < nslot; k++) {
          PyObject *gk = PyTuple_GET_ITEM(hr, k);
          int slot = tl_grad_slot(node, k);
          if (slot >= 0)
            Py_XSETREF(results[slot], gk == Py_None ? NULL : Py_NewRef(gk));
        }
      }
      Py_XDECREF(hr);
    }
    if (!gin || !gout)
      r = -1;
    Py_XDECREF(gin);
    Py_XDECREF(gout);
  }
  if (anomaly) {
    tl_anomaly_leave(outer_node);
    if (r == 0 && tl_anomaly_check_nan)
      r = tl_anomaly_check_nan_results(node, results, node->ninputs);
  }
  for (int k = 0; k < node->ninputs; k++) {
    tl_edge e = node->inputs[k].edge;
    int t = child_task[k];
    if (r == 0 && t >= 0) {
      task *child = &g->tasks[t];
      if (wanted[k]) {
        if (results[k] && e.nr < child->nbuf && add_into(&child->buf[e.nr], results[k]) < 0)
          r = -1;
        if (--child->deps == 0)
          heap_push(h, t);
      }
    }
    Py_XDECREF(results[k]);
  }
  if (TL_PROF_UNLIKELY(outer.index >= 0))
    tl_prof_end(outer);
  PyMem_Free(results);
  if (r == 0 && !spec->keep_graph)
    tl_py_node_release(node);
  return r;
}

static int engine_run(int nroots, tl_edge *roots, PyObject **root_grads, run_spec *spec)
{
  graph g = {0};
  heap h = {0};
  int r = -1;
  if (grow(&g) < 0 || discover(&g, nroots, roots) < 0)
    goto done;
  for (int j = 0; j < spec->ntargets; j++) {
    tl_py_tensor *t = (tl_py_tensor *)spec->target_tensor[j];
    tl_py_node *at = t->grad_fn ? (tl_py_node *)t->grad_fn : (tl_py_node *)t->grad_acc;
    spec->target_task[j] = at ? find_task(&g, at) : -1;
    spec->target_nr[j] = t->grad_fn ? t->output_nr : 0;
    if (spec->target_task[j] >= 0)
      g.tasks[spec->target_task[j]].target = true;
  }
  if (spec->ntargets) {
    if (mark_needed(&g) < 0)
      goto done;
  } else
    for (int i = 0; i < g.ntasks; i++)
      g.tasks[i].needed = g.tasks[i].runs = true;
  if (!(h.items = PyMem_Malloc((size_t)g.ntasks * sizeof(int)))) {
    PyErr_NoMemory();
    goto done;
  }
  h.g = &g;
  for (int i = 0; i < nroots; i++) {
    task *tk = &g.tasks[find_task(&g, roots[i].fn)];
    if (root_grads[i] && add_into(&tk->buf[roots[i].nr], root_grads[i]) < 0)
      goto done;
  }
  for (int i = 0; i < g.ntasks; i++)
    if (g.tasks[i].deps == 0 && g.tasks[i].needed)
      heap_push(&h, i);
  while (h.n) {
    int t = heap_pop(&h);
    int rn = run_node(&g, &h, t, spec);
    for (int k = 0; k < g.tasks[t].nbuf; k++)
      Py_CLEAR(g.tasks[t].buf[k]);
    if (rn < 0) {
      if (tl_anomaly_enabled)
        tl_anomaly_report(g.tasks[t].node);
      goto done;
    }
  }
  r = 0;
done:
  PyMem_Free(h.items);
  graph_free(&g);
  return r;
}

/* Whether the backward running on this thread accumulates into every leaf
 * (backward() without inputs): reentrant checkpointing needs that. */
static _Thread_local bool all_leaves_run;

/* _is_checkpoint_valid() -> False inside an autograd.grad() or
 * backward(inputs=...) run (torch.autograd._is_checkpoint_valid). */
static PyObject *py_is_checkpoint_valid(PyObject *self, PyObject *unused)
{
  (void)self;
  (void)unused;
  return PyBool_FromLong(all_leaves_run);
}

/* _run_backward(tensors, grad_tensors, keep_graph, create_graph, inputs, capture)
 * tensors: the roots; grad_tensors: one gradient each (checked by Python);
 * inputs: () for "every leaf", else the tensors wanted; capture: return their
 * gradients (autograd.grad) instead of accumulating into .grad.           */
static PyObject *py_run_backward(PyObject *self, PyObject *args)
{
  (void)self;
  PyObject *tensors, *grads, *inputs;
  int keep_graph, create_graph, capture;
  if (!PyArg_ParseTuple(args, "O!O!ppO!p:_run_backward", &PyTuple_Type, &tensors, &PyTuple_Type,
                        &grads, &keep_graph, &create_graph, &PyTuple_Type, &inputs, &capture))
    return NULL;
  int nroots = (int)PyTuple_GET_SIZE(tensors), ntargets = (int)PyTuple_GET_SIZE(inputs);
  PyObject *result = NULL;
  tl_edge *roots = PyMem_Calloc((size_t)(nroots ? nroots : 1), sizeof(tl_edge));
  int *ints = PyMem_Calloc((size_t)(2 * ntargets + 1), sizeof(int));
  PyObject **captured = PyMem_Calloc((size_t)(ntargets + 1), sizeof(PyObject *));
  run_spec spec = {.keep_graph = keep_graph, .create_graph = create_graph,
                   .all_leaves = ntargets == 0, .ntargets = ntargets, .target_task = ints,
                   .target_nr = ints + ntargets, .target_tensor = &PyTuple_GET_ITEM(inputs, 0),
                   .captured = capture ? captured : NULL};
  int nmade = 0;
  if (!roots || !ints || !captured) {
    PyErr_NoMemory();
    goto done;
  }
  if (PyTuple_GET_SIZE(grads) != nroots) {
    PyErr_Format(PyExc_RuntimeError, "got %zd tensors and %zd gradients", (Py_ssize_t)nroots,
                 PyTuple_GET_SIZE(grads));
    goto done;
  }
  for (int j = 0; j < ntargets; j++) {
    PyObject *t = PyTuple_GET_ITEM(inputs, j);
    if (!tl_py_is_tensor(t) || !((tl_py_tensor *)t)->requires_grad) {
      PyErr_SetString(PyExc_RuntimeError, "One of the differentiated Tensors does not require grad");
      goto done;
    }
  }
  for (int i = 0; i < nroots; i++, nmade++) {
    PyObject *t = PyTuple_GET_ITEM(tensors, i);
    if (!tl_py_is_tensor(t) || !((tl_py_tensor *)t)->requires_grad) {
      PyErr_Format(PyExc_RuntimeError, "element %d of tensors does not require grad and does "
                   "not have a grad_fn", i);
      goto done;
    }
    roots[i] = tl_py_tensor_edge((tl_py_tensor *)t);
    if (!roots[i].fn)
      goto done;
  }
  bool was = tl_py_grad_enabled, was_all = all_leaves_run;
  tl_py_grad_enabled = create_graph;
  all_leaves_run = spec.all_leaves && !capture;
  tl_py_tf_saved tf = tl_py_tf_engine_enter();
  int r = engine_run(nroots, roots, &PyTuple_GET_ITEM(grads, 0), &spec);
  tl_py_tf_engine_leave(tf);
  tl_py_grad_enabled = was;
  all_leaves_run = was_all;
  if (r < 0)
    goto done;
  if (!capture) {
    result = Py_NewRef(Py_None);
    goto done;
  }
  if (!(result = PyTuple_New(ntargets)))
    goto done;
  for (int j = 0; j < ntargets; j++) {
    PyTuple_SET_ITEM(result, j, captured[j] ? captured[j] : Py_NewRef(Py_None));
    captured[j] = NULL;
  }
done:
  for (int i = 0; i < nmade; i++)
    Py_XDECREF(roots[i].fn);
  for (int j = 0; j < ntargets; j++)
    Py_XDECREF(captured[j]);
  PyMem_Free(roots);
  PyMem_Free(ints);
  PyMem_Free(captured);
  return tl_py_op_return(result);
}

static PyMethodDef engine_functions[] = {
    {"_run_backward", py_run_backward, METH_VARARGS, NULL},
    {"_is_checkpoint_valid", py_is_checkpoint_valid, METH_NOARGS, NULL},
    {NULL, NULL, 0, NULL},
};

int tl_py_engine_init(PyObject *module)
{
  return tl_py_formula_module(module) < 0 ? -1 : PyModule_AddFunctions(module, engine_functions);
}
