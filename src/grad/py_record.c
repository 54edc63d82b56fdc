/* py_record.c - grad mode and the recorder.
 *
 * Every recorded call goes through tl_grad_record: op functions (py_ops.c)
 * call it when tl_py_grad_wanted says so, and the functions of grad_fns.def are
 * wrapped at import in a `recorded` object that does the same check.  The
 * recorder runs the call with grad mode off, then makes one node that keeps
 * the call and gives the differentiable outputs their history.
 *
 * In-place calls save a copy of the tensor they overwrite (the formula may
 * need its old value) and move the tensor's history onto the new node.  They
 * are refused on leaves that require grad, on views of them, and on views
 * made in no_grad or inference mode or by split/chunk/unbind (PyTorch's
 * rules).  Every view knows its root base, recorded or not (view_mark); a
 * write through a view gives the base a CopySlices node.                  */
#include <Python.h>
#include <structmember.h>

#include "grad/py_grad.h"
#include "ndcore/bindings/py_sig.h"
#include "ndcore/bindings/py_profiler.h"

PyObject *tl_py_tensor_alias(PyObject *t)
{
  tl_py_tensor *a = tl_py_tensor_alloc();
  if (!a)
    return NULL;
  tl_tensor_view_of(&a->t, tl_py_t(t));
  return (PyObject *)a;
}

int tl_grad_set_history(PyObject *out, tl_py_node *node, int nr)
{
  tl_py_tensor *t = (tl_py_tensor *)out;
  Py_XSETREF(t->grad_fn, Py_NewRef(node));
  t->output_nr = nr;
  t->requires_grad = true;
  return 0;
}

/* ---- views ------------------------------------------------------------------------
 * Every view (basic indexing, the TL_GRAD_F_VIEW functions) remembers its
 * root base, the tensor owning the memory, and the base's node at that
 * moment (view_mark), whether or not the call was recorded.  An in-place
 * write through the view gives the base a CopySlices node, so the base's
 * history sees the write.  A view whose base got a new node since (a write
 * through the base or through another view) is stale: when it is next
 * recorded or asked for its history (refresh_view), its history is rebuilt
 * as an as_strided view of the base's new history (PyTorch's view replay).
 * Views made in no_grad or inference mode are not rebuilt: using one after
 * such a write raises, as in PyTorch. */

static uint64_t fn_seq(PyObject *t)
{
  PyObject *fn = ((tl_py_tensor *)t)->grad_fn;
  return fn ? ((tl_py_node *)fn)->seq : 0;
}

static void view_mark(PyObject *view, PyObject *src, int how)
{
  tl_py_tensor *v = (tl_py_tensor *)view, *s = (tl_py_tensor *)src;
  PyObject *root = s->base ? s->base : src;
  if (view == src || view == root)
    return;
  /* a view of an inference tensor is no view but an inference tensor
   * itself, even made outside inference_mode (PyTorch) */
  if (((tl_py_tensor *)root)->inference) {
    v->inference = true;
    return;
  }
  int meta = how | (s->base ? s->view_meta : 0); /* a view of a view inherits its limits */
  if (tl_inference_mode)
    meta |= TL_PY_VIEW_INFERENCE;
  else if (!tl_py_grad_enabled)
    meta |= TL_PY_VIEW_NO_GRAD;
  Py_XSETREF(v->base, Py_NewRef(root));
  v->base_seq = fn_seq(root);
  v->view_meta = (uint8_t)meta;
  v->inference = false; /* a view of a normal tensor is none, even made in inference_mode */
}

/* Whether a view that does not require grad by itself needs recording: its
 * base requires grad and got a new history since (the view's is rebuilt), or
 * the view was made in no_grad or inference mode (PyTorch's such a view
 * requires grad with no history: an in-place write through it raises). */
static bool view_stale(PyObject *o)
{
  tl_py_tensor *t = (tl_py_tensor *)o;
  return ((tl_py_tensor *)t->base)->requires_grad &&
         (fn_seq(t->base) != t->base_seq ||
          (t->view_meta & (TL_PY_VIEW_NO_GRAD | TL_PY_VIEW_INFERENCE)));
}

static PyObject *stub_of(PyObject *t);

static PyObject *int_tuple(int n, const int64_t *v)
{
  PyObject *tuple = PyTuple_New(n);
  for (int d = 0; tuple && d < n; d++) {
    PyObject *item = PyLong_FromLongLong(v[d]);
    if (!item)
      Py_CLEAR(tuple);
    else
      PyTuple_SET_ITEM(tuple, d, item);
  }
  return tuple;
}

/* A node of `formula` with one output (a stub of `out`) made outside a
 * recorded call: the view machinery's own nodes (a rebuilt view, CopySlices).
 * args are new references, taken over (a NULL one is a failed build); the
 * first ninputs of them are the saved inputs, standing for sources. */
static tl_py_node *geometry_node(int formula, PyObject *name, PyObject **args, int nargs,
                                 tl_py_tensor **sources, int ninputs, tl_py_tensor *out)
{
  tl_py_node *node = name ? tl_py_node_new(TL_NODE_FORMULA, formula, name) : NULL;
  if (!node)
    goto fail;
  node->args = PyMem_Calloc((size_t)nargs, sizeof(PyObject *));
  node->inputs = PyMem_Calloc((size_t)ninputs, sizeof(tl_saved_input));
  node->outputs = PyMem_Calloc(1, sizeof(PyObject *));
  node->out_versions = PyMem_Calloc(1, sizeof(uint32_t));
  if (!node->args || !node->inputs || !node->outputs || !node->out_versions) {
    PyErr_NoMemory();
    goto fail;
  }
  node->nargs = node->nall = nargs;
  for (int i = 0; i < nargs; i++)
    node->args[i] = args[i];
  nargs = 0; /* the node owns them now */
  for (int i = 0; i < node->nargs; i++)
    if (!node->args[i])
      goto fail;
  node->noutputs = 1;
  if (!(node->outputs[0] = stub_of((PyObject *)out)))
    goto fail;
  node->out_versions[0] = tl_storage_version(out->t.storage);
  for (int i = 0; i < ninputs; i++, node->ninputs++)
    if (tl_py_saved_input_init(&node->inputs[i], node->args[i], sources[i]) < 0)
      goto fail;
  if (tl_py_node_created(node) < 0)
    goto fail;
  return node;
fail:
  for (int i = 0; i < nargs; i++)
    Py_XDECREF(args[i]);
  if (!PyErr_Occurred())
    PyErr_NoMemory();
  Py_XDECREF(node);
  return NULL;
}

/* A stale view's history rebuilt over its base's: a node of
 * as_strided(base, size, stride, offset) whose input is the base now. */
static int rebuild_view(tl_py_tensor *v)
{
  tl_py_tensor *b = (tl_py_tensor *)v->base;
  PyObject *args[4] = {stub_of((PyObject *)b), /* the formula reads geometry only */
                       int_tuple(v->t.ndim, v->t.shape), int_tuple(v->t.ndim, v->t.strides),
                       PyLong_FromLongLong(v->t.offset)};
  PyObject *name = tl_grad_node_name(TL_GRAD_AS_STRIDED, NULL, 0, NULL, NULL);
  tl_py_node *node = geometry_node(TL_GRAD_AS_STRIDED, name, args, 4, &b, 1, v);
  Py_XDECREF(name);
  if (!node)
    return -1;
  tl_grad_set_history((PyObject *)v, node, 0);
  v->base_seq = fn_seq(v->base);
  Py_DECREF(node);
  return 0;
}

/* Bring a stale view's history up to date (a no-op for others). */
static int refresh_view(PyObject *o)
{
  tl_py_tensor *t = (tl_py_tensor *)o;
  if (!t->base || fn_seq(t->base) == t->base_seq)
    return 0;
  if (!((tl_py_tensor *)t->base)->requires_grad) {
    /* the base lost its history (detach_()): so does the view */
    Py_CLEAR(t->grad_fn);
    t->requires_grad = false;
    t->output_nr = 0;
    t->base_seq = fn_seq(t->base);
    return 0;
  }
  if (t->view_meta & (TL_PY_VIEW_NO_GRAD | TL_PY_VIEW_INFERENCE)) {
    bool inference = t->view_meta & TL_PY_VIEW_INFERENCE;
    PyErr_Format(PyExc_RuntimeError, "A view was created in %s and its base or another view "
                 "of its base has been modified inplace with grad mode enabled. Given that this "
                 "use case is ambiguous and error-prone, it is forbidden. You can clarify your "
                 "code by moving both the view and the inplace either both inside the %s block "
                 "(if you don't want the inplace to be tracked) or both outside (if you want the "
                 "inplace to be tracked).", inference ? "inference mode" : "no_grad mode",
                 inference ? "inference_mode" : "no_grad");
    return -1;
  }
  return rebuild_view(t);
}

int tl_grad_view_refresh(PyObject *t) { return refresh_view(t); }

void tl_grad_view_of_function(PyObject *o)
{
  tl_py_tensor *t = (tl_py_tensor *)o;
  if (!t->base)
    return;
  /* made with grad mode off inside forward, but recorded now: current, and
   * written in place only at PyTorch's refusal */
  t->view_meta = (uint8_t)((t->view_meta & ~TL_PY_VIEW_NO_GRAD) | TL_PY_VIEW_CUSTOM);
  t->base_seq = fn_seq(t->base);
}

/* refresh_view for every tensor among a call's arguments (lists included). */
static int refresh_views(PyObject *const *args, Py_ssize_t n)
{
  for (Py_ssize_t i = 0; i < n; i++) {
    if (tl_py_is_tensor(args[i])) {
      if (refresh_view(args[i]) < 0)
        return -1;
    } else if (PyList_CheckExact(args[i]) || PyTuple_CheckExact(args[i])) {
      for (Py_ssize_t k = 0; k < PySequence_Fast_GET_SIZE(args[i]); k++) {
        PyObject *item = PySequence_Fast_ITEMS(args[i])[k];
        if (tl_py_is_tensor(item) && refresh_view(item) < 0)
          return -1;
      }
    }
  }
  return 0;
}

PyObject *tl_grad_stub(PyObject *t) { return stub_of(t); }

/* The CopySlices node of an in-place write through `view` (its history
 * already moved to the write's node): the base's new history. */
static int copy_slices(PyObject *view)
{
  tl_py_tensor *v = (tl_py_tensor *)view, *b = (tl_py_tensor *)v->base;
  static PyObject *name;
  if (!name && !(name = PyUnicode_InternFromString("torch::autograd::CopySlices")))
    return -1;
  /* v's offset from b's first element, in v's elements: a real view
   * (.real, .imag) of a complex base counts two per element of b */
  size_t vsize = tl_dtype_size(v->t.dtype), bsize = tl_dtype_size(b->t.dtype);
  int64_t per = bsize > vsize ? (int64_t)(bsize / vsize) : 1;
  PyObject *args[5] = {stub_of((PyObject *)b), stub_of(view), /* the formula reads shapes only */
                       tl_py_size_new(v->t.ndim, v->t.shape), int_tuple(v->t.ndim, v->t.strides),
                       PyLong_FromLongLong(v->t.offset - b->t.offset * per)};
  tl_py_node *node = geometry_node(TL_GRAD_COPY_SLICES, name, args, 5,
                                   (tl_py_tensor *[]){b, v}, 2, b);
  if (!node)
    return -1;
  tl_grad_set_history((PyObject *)b, node, 0);
  v->base_seq = node->seq;
  Py_DECREF(node);
  return 0;
}

/* ---- the saved call ---------------------------------------------------------- */

/* ---- what a node keeps ----------------------------------------------------------
 * Most formulas read only some of the call back: add needs its inputs'
 * shapes, exp its result, reshape nothing but a shape.  A formula registered
 * with tl_grad_drops keeps metadata stubs instead (same shape, dtype and
 * strides over an empty storage), so the tape does not hold activations no
 * formula will read.  X()/R() refuse a stub: reading one is a formula bug. */

static uint8_t drops[TL_GRAD_COUNT];
/* A stub keeps its tensor's device (a formula builds its zeros and constants
 * on the device of what it reads), so there is one data-less storage per
 * device: [type][index + 1], the CPU's index being -1.  All are set up at
 * import; a device index past the table keeps no stub (the tensor is kept). */
#define TL_GRAD_META_INDICES 64
static tl_storage meta_storages[TL_DEVICE_COUNT][TL_GRAD_META_INDICES];

static tl_storage *meta_storage_of(tl_device d)
{
  if (d.type < 0 || d.type >= TL_DEVICE_COUNT || d.index + 1 < 0 ||
      d.index + 1 >= TL_GRAD_META_INDICES)
    return NULL;
  return &meta_storages[d.type][d.index + 1];
}

void tl_grad_drops(int formula, int what) { drops[formula] = (uint8_t)what; }

bool tl_grad_is_stub(PyObject *t)
{
  const tl_storage *s = tl_py_t(t)->storage;
  return s >= &meta_storages[0][0] &&
         s < &meta_storages[0][0] + TL_DEVICE_COUNT * TL_GRAD_META_INDICES;
}

static PyObject *stub_of(PyObject *t)
{
  tl_storage *meta = meta_storage_of(tl_tensor_device(tl_py_t(t)));
  if (!meta)
    return Py_NewRef(t);
  tl_py_tensor *m = tl_py_tensor_alloc();
  if (!m)
    return NULL;
  m->t = *tl_py_t(t);
  m->t.storage = meta;
  tl_storage_incref(meta);
  return (PyObject *)m;
}

/* The argument as the node keeps it: itself, or with its tensors stubbed. */
static PyObject *kept_form(PyObject *a, bool stub)
{
  if (!stub)
    return Py_NewRef(a);
  if (tl_py_is_tensor(a))
    return stub_of(a);
  if (!PyList_CheckExact(a) && !PyTuple_CheckExact(a))
    return Py_NewRef(a);
  Py_ssize_t n = PySequence_Fast_GET_SIZE(a);
  PyObject *copy = PyList_CheckExact(a) ? PyList_New(n) : PyTuple_New(n);
  for (Py_ssize_t k = 0; copy && k < n; k++) {
    PyObject *item = kept_form(PySequence_Fast_ITEMS(a)[k], true);
    if (!item)
      Py_CLEAR(copy);
    else if (PyList_Check(copy))
      PyList_SET_ITEM(copy, k, item);
    else
      PyTuple_SET_ITEM(copy, k, item);
  }
  return copy;
}

/* Add `kept` (the node's form of tensor `source`) to the inputs once: the
 * same object twice is one input whose gradients add up. */
static int add_input(tl_py_node *node, PyObject *kept, PyObject *source, int *cap)
{
  for (int i = 0; i < node->ninputs; i++)
    if (node->inputs[i].obj == kept)
      return 0;
  if (node->ninputs == *cap) {
    *cap = *cap ? 2 * *cap : 4;
    tl_saved_input *grown = PyMem_Realloc(node->inputs, (size_t)*cap * sizeof *grown);
    if (!grown) {
      PyErr_NoMemory();
      return -1;
    }
    node->inputs = grown;
  }
  tl_py_tensor *t = (tl_py_tensor *)source;
  if (tl_py_saved_input_init(&node->inputs[node->ninputs], kept, t) < 0)
    return -1;
  node->ninputs++;
  return 0;
}

/* An inference tensor's values cannot be kept for backward: they may be
 * written in inference mode behind the tape's back (PyTorch's rule). */
static int check_keepable(PyObject *a)
{
  bool inference = false;
  if (tl_py_is_tensor(a))
    inference = ((tl_py_tensor *)a)->inference;
  else if (PyList_CheckExact(a) || PyTuple_CheckExact(a))
    for (Py_ssize_t k = 0; k < PySequence_Fast_GET_SIZE(a); k++) {
      PyObject *item = PySequence_Fast_ITEMS(a)[k];
      inference |= tl_py_is_tensor(item) && ((tl_py_tensor *)item)->inference;
    }
  if (!inference || tl_inference_mode)
    return 0;
  PyErr_SetString(PyExc_RuntimeError, "Inference tensors cannot be saved for backward. Please "
                  "do not use Tensors created in inference mode in computation tracked by "
                  "autograd. To work around this, you can make a clone to get a normal tensor "
                  "and use it in autograd, or use `torch.no_grad()` instead of "
                  "`torch.inference_mode()`.");
  return -1;
}

static int save_call(tl_py_node *node, PyObject *const *args, Py_ssize_t nargs, PyObject *kwnames,
                     PyObject *replaced, PyObject *replacement, int flags)
{
  bool stub = drops[node->formula] & TL_GRAD_DROP_INPUTS;
  Py_ssize_t nall = nargs + (kwnames ? PyTuple_GET_SIZE(kwnames) : 0);
  Py_ssize_t inputs = flags & TL_GRAD_F_FIRST ? 1 : nall; /* the arguments that are inputs */
  int wanting = 0; /* tensor arguments that require grad */
  for (Py_ssize_t i = 0; i < inputs; i++)
    wanting += tl_py_is_tensor(args[i]) && ((tl_py_tensor *)args[i])->requires_grad;
  node->args = PyMem_Calloc((size_t)(nall ? nall : 1), sizeof(PyObject *));
  if (!node->args) {
    PyErr_NoMemory();
    return -1;
  }
  node->nargs = nargs;
  node->nall = nall;
  node->kwnames = Py_XNewRef(kwnames);
  int cap = 0;
  for (Py_ssize_t i = 0; i < nall; i++) {
    PyObject *a = replacement && args[i] == replaced ? replacement : args[i];
    bool unpaired = (drops[node->formula] & TL_GRAD_DROP_UNPAIRED) && tl_py_is_tensor(a) &&
                    wanting - ((tl_py_tensor *)a)->requires_grad == 0;
    bool whole = !(stub || unpaired || i >= inputs); /* its values are kept */
    if ((whole && check_keepable(a) < 0) || !(node->args[i] = kept_form(a, !whole)))
      return -1;
    PyObject *kept = node->args[i];
    if (i >= inputs)
      continue;
    if (tl_py_is_tensor(a)) {
      if (add_input(node, kept, a, &cap) < 0)
        return -1;
    } else if (PyList_CheckExact(a) || PyTuple_CheckExact(a)) {
      for (Py_ssize_t k = 0; k < PySequence_Fast_GET_SIZE(a); k++) {
        PyObject *item = PySequence_Fast_ITEMS(a)[k];
        if (tl_py_is_tensor(item) &&
            add_input(node, PySequence_Fast_ITEMS(kept)[k], item, &cap) < 0)
          return -1;
      }
    }
  }
  return 0;
}

/* The outputs of a call: a tensor, or the tensors of a tuple/list/structseq. */
static PyObject *output_list(PyObject *result)
{
  if (tl_py_is_tensor(result))
    return PyTuple_Pack(1, result);
  if (PyTuple_Check(result) || PyList_Check(result))
    return PySequence_Tuple(result);
  return PyTuple_New(0);
}

static bool differentiable(PyObject *o)
{
  return tl_py_is_tensor(o) && (tl_dtype_is_float(tl_py_t(o)->dtype) ||
                                tl_dtype_is_complex(tl_py_t(o)->dtype));
}

/* The input whose memory a view output shows, or NULL. */
static tl_py_tensor *viewed_input(PyObject *const *args, Py_ssize_t n, PyObject *out)
{
  for (Py_ssize_t i = 0; i < n; i++) {
    PyObject *const *items = &args[i];
    Py_ssize_t m = 1;
    if (PyList_CheckExact(args[i]) || PyTuple_CheckExact(args[i])) {
      items = PySequence_Fast_ITEMS(args[i]);
      m = PySequence_Fast_GET_SIZE(args[i]);
    }
    for (Py_ssize_t k = 0; k < m; k++)
      if (tl_py_is_tensor(items[k]) && tl_py_t(items[k])->storage == tl_py_t(out)->storage)
        return (tl_py_tensor *)items[k];
  }
  return NULL;
}

/* Give the outputs their history and keep aliases of them in the node. */
/* Is o one of the call's arguments (or inside a list argument)? */
static bool is_argument(PyObject *o, PyObject *const *args, Py_ssize_t n)
{
  for (Py_ssize_t i = 0; i < n; i++) {
    if (args[i] == o)
      return true;
    if (PyList_CheckExact(args[i]) || PyTuple_CheckExact(args[i]))
      for (Py_ssize_t k = 0; k < PySequence_Fast_GET_SIZE(args[i]); k++)
        if (PySequence_Fast_ITEMS(args[i])[k] == o)
          return true;
  }
  return false;
}

static int attach_outputs(tl_py_node *node, PyObject *outs, PyObject *target,
                          PyObject *const *args, Py_ssize_t nall)
{
  Py_ssize_t n = PyTuple_GET_SIZE(outs);
  node->outputs = PyMem_Calloc((size_t)(n ? n : 1), sizeof(PyObject *));
  node->out_versions = PyMem_Calloc((size_t)(n ? n : 1), sizeof(uint32_t));
  if (!node->outputs || !node->out_versions) {
    PyErr_NoMemory();
    return -1;
  }
  node->noutputs = (int)n;
  for (Py_ssize_t i = 0; i < n; i++) {
    PyObject *o = PyTuple_GET_ITEM(outs, i);
    if (!differentiable(o)) {
      /* Integer outputs (the indices of sort, topk, max with a dim) get no
       * history, but their formulas read them: kept as they are. */
      if (tl_py_is_tensor(o) && !is_argument(o, args, nall)) {
        if (!(node->outputs[i] = tl_py_tensor_alias(o)))
          return -1;
        node->out_versions[i] = tl_storage_version(tl_py_t(o)->storage);
      }
      continue;
    }
    if (o != target && is_argument(o, args, nall))
      continue; /* returned unchanged (contiguous() of a contiguous tensor): keeps its history */
    bool stub = (drops[node->formula] & TL_GRAD_DROP_OUTPUTS) ||
                (i == 0 && (drops[node->formula] & TL_GRAD_DROP_FIRST_OUTPUT));
    if (!(node->outputs[i] = stub ? stub_of(o) : tl_py_tensor_alias(o)))
      return -1;
    node->out_versions[i] = tl_storage_version(tl_py_t(o)->storage);
    tl_grad_set_history(o, node, (int)i);
  }
  return 0;
}

/* Make the outputs of a TL_GRAD_F_VIEW call that show an argument's memory
 * views of it (an argument returned as it is stays itself). */
static void mark_views(PyObject *result, PyObject *const *args, Py_ssize_t n, int flags)
{
  int how = flags & TL_GRAD_F_MULTI ? TL_PY_VIEW_MULTI : 0;
  PyObject *const *items = &result;
  Py_ssize_t m = 1;
  if (PyTuple_Check(result) || PyList_Check(result)) {
    items = PySequence_Fast_ITEMS(result);
    m = PySequence_Fast_GET_SIZE(result);
  }
  for (Py_ssize_t k = 0; k < m; k++) {
    PyObject *o = items[k];
    if (!tl_py_is_tensor(o) || is_argument(o, args, n))
      continue;
    tl_py_tensor *src = viewed_input(args, n, o);
    if (src)
      view_mark(o, (PyObject *)src, how);
  }
}

static bool same_geometry(const tl_tensor *a, const tl_tensor *b)
{
  if (a->storage != b->storage || a->dtype != b->dtype || a->ndim != b->ndim ||
      a->offset != b->offset)
    return false;
  for (int d = 0; d < a->ndim; d++)
    if (a->shape[d] != b->shape[d] || a->strides[d] != b->strides[d])
      return false;
  return true;
}

/* TL_GRAD_F_SAME: output i that shows tensor argument i as it is becomes
 * that argument (a new reference to the result, or NULL with an error).
 * The arguments are spread (f(a, b)) or one list (f([a, b])). */
static PyObject *same_as_arguments(PyObject *result, PyObject *const *args, Py_ssize_t nargs)
{
  PyObject *const *ins = args;
  Py_ssize_t nin = nargs;
  if (nargs == 1 && (PyList_CheckExact(args[0]) || PyTuple_CheckExact(args[0]))) {
    ins = PySequence_Fast_ITEMS(args[0]);
    nin = PySequence_Fast_GET_SIZE(args[0]);
  }
  if (tl_py_is_tensor(result))
    return Py_NewRef(nin >= 1 && tl_py_is_tensor(ins[0]) &&
                     same_geometry(tl_py_t(result), tl_py_t(ins[0])) ? ins[0] : result);
  if (!PyTuple_CheckExact(result))
    return Py_NewRef(result);
  Py_ssize_t n = PyTuple_GET_SIZE(result);
  PyObject *out = PyTuple_New(n);
  for (Py_ssize_t i = 0; out && i < n; i++) {
    PyObject *o = PyTuple_GET_ITEM(result, i);
    bool same = i < nin && tl_py_is_tensor(o) && tl_py_is_tensor(ins[i]) &&
                same_geometry(tl_py_t(o), tl_py_t(ins[i]));
    PyTuple_SET_ITEM(out, i, Py_NewRef(same ? ins[i] : o));
  }
  return out;
}

/* view(dtype) reinterprets the bytes: neither differentiable nor a view, as
 * in PyTorch. */
static bool is_dtype_view(int formula, PyObject *const *args, Py_ssize_t nargs, PyObject *kwnames)
{
  if (formula != TL_GRAD_VIEW)
    return false;
  if (nargs == 2)
    return !PyLong_Check(args[1]) && tl_py_is_dtype_like(args[1]);
  return nargs == 1 && kwnames && PyTuple_GET_SIZE(kwnames) == 1 &&
         PyUnicode_CompareWithASCIIString(PyTuple_GET_ITEM(kwnames, 0), "dtype") == 0;
}

/* Whether each element of a non-contiguous base sits at its own storage
 * position at or after the first (non-negative strides, no overlap): what
 * CopySlices' formula needs to address the base by storage positions.
 * Dims sorted by stride, each must step past everything the smaller ones
 * span. */
static bool addressable(const tl_tensor *t)
{
  int order[TL_MAX_DIMS], n = 0;
  for (int d = 0; d < t->ndim; d++) {
    if (t->shape[d] == 0)
      return true; /* no elements */
    if (t->strides[d] < 0)
      return false;
    if (t->shape[d] > 1)
      order[n++] = d;
  }
  for (int i = 1; i < n; i++) /* insertion sort by stride: at most TL_MAX_DIMS dims */
    for (int k = i; k > 0 && t->strides[order[k]] < t->strides[order[k - 1]]; k--) {
      int tmp = order[k];
      order[k] = order[k - 1];
      order[k - 1] = tmp;
    }
  int64_t reach = 0; /* the furthest position the dims so far reach */
  for (int i = 0; i < n; i++) {
    int d = order[i];
    if (t->strides[d] <= reach)
      return false;
    reach += (t->shape[d] - 1) * t->strides[d];
  }
  return true;
}

/* "Output 1 of SplitWithSizes": PyTorch's name of the multi-output call that
 * made a recorded view. */
static void multi_output_error(tl_py_tensor *t)
{
  tl_py_node *fn = (tl_py_node *)t->grad_fn;
  const char *name = "Unbind";
  if (fn->formula == TL_GRAD_SPLIT || fn->formula == TL_GRAD_CHUNK)
    name = fn->nargs > 1 && (PyList_Check(fn->args[1]) || PyTuple_Check(fn->args[1]))
               ? "SplitWithSizes" : "Split";
  PyErr_Format(PyExc_RuntimeError, "Output %d of %s is a view and is being modified inplace. "
               "This view is the output of a function that returns multiple views. Such "
               "functions do not allow the output views to be modified inplace. You should "
               "replace the inplace operation by an out-of-place one.", t->output_nr, name);
}

static int check_inplace(int formula, PyObject *target)
{
  tl_py_tensor *t = (tl_py_tensor *)target;
  if (t->requires_grad && !t->grad_fn) {
    PyErr_SetString(PyExc_RuntimeError, "a leaf Variable that requires grad is being used in an "
                                        "in-place operation.");
    return -1;
  }
  if (!t->base)
    return 0;
  tl_py_tensor *b = (tl_py_tensor *)t->base;
  if (t->view_meta & TL_PY_VIEW_INFERENCE) {
    PyErr_SetString(PyExc_RuntimeError, "A view was created in inference mode and is being "
                    "modified inplace in normal mode. Given that this use case is ambiguous and "
                    "error-prone, it is forbidden. You can clarify your code by moving both the "
                    "view and the inplace either both inside the inference_mode block (if you "
                    "don't want the inplace to be tracked) or both outside (if you want the "
                    "inplace to be tracked).");
    return -1;
  }
  if (t->view_meta & TL_PY_VIEW_NO_GRAD) {
    PyErr_SetString(PyExc_RuntimeError, "A view was created in no_grad mode and is being "
                    "modified inplace with grad mode enabled. Given that this use case is "
                    "ambiguous and error-prone, it is forbidden. You can clarify your code by "
                    "moving both the view and the inplace either both inside the no_grad block "
                    "(if you don't want the inplace to be tracked) or both outside (if you want "
                    "the inplace to be tracked).");
    return -1;
  }
  if ((t->view_meta & TL_PY_VIEW_CUSTOM) && t->grad_fn &&
      ((tl_py_node *)t->grad_fn)->kind == TL_NODE_PYTHON) {
    PyObject *name = ((tl_py_node *)t->grad_fn)->name;
    Py_ssize_t n = PyUnicode_GetLength(name);
    PyObject *tail = PyUnicode_FromString("Backward");
    int strip = tail ? PyUnicode_Tailmatch(name, tail, 0, n, 1) : -1;
    Py_XDECREF(tail);
    PyObject *shown = strip < 0 ? NULL : PyUnicode_Substring(name, 0, strip ? n - 8 : n);
    if (shown)
      PyErr_Format(PyExc_RuntimeError, "Output %d of %U is a view and is being modified inplace. "
                   "This view was created inside a custom Function (or because an input was "
                   "returned as-is) and the autograd logic to handle view+inplace would override "
                   "the custom backward associated with the custom Function, leading to incorrect "
                   "gradients. This behavior is forbidden. You can fix this by cloning the output "
                   "of the custom Function.", t->output_nr, shown);
    Py_XDECREF(shown);
    return -1;
  }
  if (t->view_meta & TL_PY_VIEW_MULTI) {
    if (t->grad_fn && t->base_seq == fn_seq(t->base))
      multi_output_error(t);
    else /* PyTorch's words for an untracked output of a multi-output view */
      PyErr_SetString(PyExc_RuntimeError, "A view was created in no_grad mode and is being "
                      "modified inplace with grad mode enabled. This view is the output of a "
                      "function that returns multiple views. Such functions do not allow the "
                      "output views to be modified inplace. You should replace the inplace "
                      "operation by an out-of-place one.");
    return -1;
  }
  if (b->requires_grad && !b->grad_fn) {
    PyErr_SetString(PyExc_RuntimeError, "a view of a leaf Variable that requires grad is being "
                    "used in an in-place operation.");
    return -1;
  }
  if (!tl_tensor_is_contiguous(&b->t) && !addressable(&b->t)) {
    PyErr_Format(PyExc_RuntimeError, "%s(): in-place operation with autograd on a view of a "
                 "tensor whose elements overlap or run backwards in memory (negative strides) is "
                 "not supported; clone() the view first", tl_grad_formula_name(formula));
    return -1;
  }
  return 0;
}

static const char *const fn_names[] = {
#define TL_GRAD_FN(ID, name, flags) name,
#include "grad/grad_fns.def"
#undef TL_GRAD_FN
};
static const int fn_flags[] = {
#define TL_GRAD_FN(ID, name, flags) flags,
#include "grad/grad_fns.def"
#undef TL_GRAD_FN
};

/* A copy standing for tensor `t`'s value and history now (before an
 * in-place call writes). */
static PyObject *stand_in(PyObject *t)
{
  tl_tensor copy = {0};
  if (tl_tensor_to_dtype(&copy, tl_py_t(t), tl_py_t(t)->dtype) != TL_OK)
    return tl_py_raise();
  PyObject *o = tl_py_tensor_from(&copy);
  if (!o)
    return NULL;
  tl_py_tensor *c = (tl_py_tensor *)o, *src = (tl_py_tensor *)t;
  c->grad_fn = Py_XNewRef(src->grad_fn);
  c->output_nr = src->output_nr;
  c->requires_grad = src->requires_grad;
  return o;
}

/* Whether argument a (not the target itself) shares the target's memory.
 * A leaf that requires grad keeps its own object, which its gradient is
 * accumulated for (x.detach().mul_(x): the version check answers). */
static bool aliases(PyObject *a, PyObject *target, const tl_storage *mem)
{
  if (a == target || !tl_py_is_tensor(a) || tl_py_t(a)->storage != mem)
    return false;
  const tl_py_tensor *t = (const tl_py_tensor *)a;
  return t->grad_fn || !t->requires_grad;
}

/* The arguments an in-place call on `target` is saved with: another
 * argument that shares target's memory (y *= y[::-1], y.mul_(y.T), a
 * column of y) is read by the call before the write lands, so the formula
 * must see that value, not the one the write leaves there (which the
 * version check cannot catch: the view's version is its base's, taken
 * after the call).  NULL when no argument aliases target (*err set on
 * failure); else an array of nall new references, to free with
 * free_stand_ins. */
static PyObject **alias_stand_ins(PyObject *target, PyObject *const *args, Py_ssize_t nall,
                                  bool *err)
{
  *err = false;
  const tl_storage *mem = tl_py_t(target)->storage;
  Py_ssize_t i = 1;
  while (i < nall && !aliases(args[i], target, mem))
    i++;
  if (i == nall)
    return NULL;
  PyObject **saved = PyMem_Calloc((size_t)nall, sizeof(PyObject *));
  if (!saved) {
    *err = true;
    PyErr_NoMemory();
    return NULL;
  }
  for (Py_ssize_t k = 0; k < nall; k++) {
    PyObject *a = args[k];
    bool alias = k > 0 && aliases(a, target, mem);
    saved[k] = alias ? stand_in(a) : Py_NewRef(a);
    if (!saved[k]) {
      for (Py_ssize_t j = 0; j < k; j++)
        Py_DECREF(saved[j]);
      PyMem_Free(saved);
      *err = true;
      return NULL;
    }
  }
  return saved;
}

static void free_stand_ins(PyObject **saved, Py_ssize_t nall)
{
  if (!saved)
    return;
  for (Py_ssize_t k = 0; k < nall; k++)
    Py_XDECREF(saved[k]);
  PyMem_Free(saved);
}

static PyObject *record(int formula, PyObject *impl, PyObject *const *args, size_t nargsf,
                        PyObject *kwnames, int flags)
{
  Py_ssize_t nargs = PyVectorcall_NARGS(nargsf);
  if (formula >= TL_OP_COUNT) /* a grad_fns.def function: its flags are declared there */
    flags |= fn_flags[formula - TL_OP_COUNT];
  PyObject *target = (flags & TL_GRAD_F_INPLACE) && nargs > 0 && tl_py_is_tensor(args[0]) ? args[0] : NULL;
  PyObject *old = NULL, *result = NULL, *outs = NULL;
  tl_py_node *node = NULL;
  Py_ssize_t nall = nargs + (kwnames ? PyTuple_GET_SIZE(kwnames) : 0);
  bool dtype_view = is_dtype_view(formula, args, nargs, kwnames);
  if ((tl_grad_nondifferentiable[formula] || dtype_view) && !target) {
    tl_py_grad_enabled = false;
    result = PyObject_Vectorcall(impl, args, nargsf, kwnames);
    tl_py_grad_enabled = true;
    if (result && (flags & TL_GRAD_F_VIEW) && !dtype_view)
      mark_views(result, args, nall, flags);
    return result;
  }
  if (refresh_views(args, nall) < 0)
    return NULL;
  for (Py_ssize_t k = 0; kwnames && k < PyTuple_GET_SIZE(kwnames); k++)
    if (PyUnicode_CompareWithASCIIString(PyTuple_GET_ITEM(kwnames, k), "out") == 0 &&
        args[nargs + k] != Py_None)
      return PyErr_Format(PyExc_RuntimeError, "%s(): functions with out=... arguments don't "
                          "support automatic differentiation, but one of the arguments "
                          "requires grad.", tl_grad_formula_name(formula));
  if (target && check_inplace(formula, target) < 0)
    return NULL;
  PyObject **stand_ins = NULL; /* arguments aliasing the target, as they were */
  if (target && !(drops[formula] & TL_GRAD_DROP_INPUTS)) {
    /* the copy stands for the target's old value and history */
    if (!(old = stand_in(target)))
      return NULL;
    bool err;
    stand_ins = alias_stand_ins(target, args, nall, &err);
    if (err) {
      Py_DECREF(old);
      return NULL;
    }
  }
  tl_py_grad_enabled = false;
  result = tl_grad_op_policies && tl_grad_op_policy && !target
               ? tl_grad_policy_call(formula, impl, args, nargsf, kwnames)
               : PyObject_Vectorcall(impl, args, nargsf, kwnames);
  tl_py_grad_enabled = true;
  if (!result)
    goto fail;
  if (flags & TL_GRAD_F_SAME)
    Py_SETREF(result, same_as_arguments(result, args, nargs));
  if (!result)
    goto fail;
  if (flags & TL_GRAD_F_VIEW)
    mark_views(result, args, nall, flags);
  /* an in-place call's one output is its target (__setitem__ returns None) */
  if (!(outs = target ? PyTuple_Pack(1, target) : output_list(result)))
    goto fail;
  bool any = false;
  for (Py_ssize_t i = 0; i < PyTuple_GET_SIZE(outs); i++)
    any |= differentiable(PyTuple_GET_ITEM(outs, i));
  if (!any && !target)
    goto done; /* comparisons, argmax, integer results: no graph */
  if (target && !differentiable(target) && tl_grad_writes_any_dtype[formula])
    goto done; /* a bool mask drawn from probabilities that require grad */
  PyObject *name = tl_grad_node_name(formula, args, nargs, kwnames, target ? target : result);
  node = name ? tl_py_node_new(TL_NODE_FORMULA, formula, name) : NULL;
  Py_XDECREF(name);
  if (!node)
    goto fail;
  if (save_call(node, stand_ins ? stand_ins : args, nargs, kwnames, target, old, flags) < 0)
    goto fail;
  tl_grad_edge_slots(node);
  if (target && !differentiable(target)) {
    PyErr_Format(PyExc_RuntimeError, "%s(): an in-place result of dtype %s cannot require grad",
                 tl_grad_formula_name(formula), tl_dtype_names[tl_py_t(target)->dtype]);
    goto fail;
  }
  if (attach_outputs(node, outs, target, args, node->nall) < 0)
    goto fail;
  if (tl_saved_hooks && tl_grad_pack_node(node, outs) < 0)
    goto fail;
  if (target && ((tl_py_tensor *)target)->base && copy_slices(target) < 0)
    goto fail;
  if (tl_py_node_created(node) < 0)
    goto fail;
done:
  Py_XDECREF(node);
  Py_XDECREF(outs);
  Py_XDECREF(old);
  free_stand_ins(stand_ins, nall);
  return result;
fail:
  Py_CLEAR(result);
  goto done;
}

/* Each op's declared signature (signatures.txt), NULL for those with none. */
static const tl_py_sig *sig_of[TL_GRAD_COUNT];

/* The call is normalised once, before it runs: an int given as a 0-d tensor
 * or a NumPy int reaches the op, and the tape, as a Python int.  (Kept as a
 * tensor, the tape would hold it as an input stub whose data formulas then
 * read.) */
PyObject *tl_grad_record(int formula, PyObject *impl, PyObject *const *args, size_t nargsf,
                         PyObject *kwnames, int flags)
{
  Py_ssize_t nargs = PyVectorcall_NARGS(nargsf);
  PyObject **normal = NULL;
  if (sig_of[formula] && tl_py_sig_normalize(sig_of[formula], args, nargs, kwnames, &normal) < 0)
    return NULL;
  if (!normal)
    return record(formula, impl, args, nargsf, kwnames, flags);
  PyObject *r = record(formula, impl, normal, (size_t)nargs, kwnames, flags);
  tl_py_sig_args_free(normal, nargs + (kwnames ? PyTuple_GET_SIZE(kwnames) : 0));
  return r;
}

/* ---- wrapped functions (grad_fns.def) ----------------------------------------------- */

const char *tl_grad_formula_name(int id)
{
  return id < TL_OP_COUNT ? tl_op_infos[id].name : fn_names[id - TL_OP_COUNT];
}

typedef struct {
  PyObject_HEAD
  vectorcallfunc vectorcall;
  int formula;
  PyObject *impl;
  PyObject *name; /* the profiler's event name */
} recorded_fn;

static PyObject *recorded_body(PyObject *self, PyObject *const *args, size_t nargsf, PyObject *kwnames)
{
  recorded_fn *f = (recorded_fn *)self;
  Py_ssize_t n = PyVectorcall_NARGS(nargsf) + (kwnames ? PyTuple_GET_SIZE(kwnames) : 0);
  /* torchlike.triu(x) is Tensor.triu: say which argument is wrong rather than
   * CPython's "descriptor 'triu' ... doesn't apply to a 'NoneType' object" */
  if (Py_IS_TYPE(f->impl, &PyMethodDescr_Type) && PyVectorcall_NARGS(nargsf) == 0)
    return PyErr_Format(PyExc_TypeError, "%s() missing required positional argument 'input' "
                        "(position 1), a Tensor", tl_grad_formula_name(f->formula));
  if (Py_IS_TYPE(f->impl, &PyMethodDescr_Type) && !tl_py_is_tensor(args[0]))
    return PyErr_Format(PyExc_TypeError, "%s(): argument 'input' (position 1) must be Tensor, "
                        "not %s", tl_grad_formula_name(f->formula), Py_TYPE(args[0])->tp_name);
  int flags = f->formula >= TL_OP_COUNT ? fn_flags[f->formula - TL_OP_COUNT] : 0;
  if (tl_py_grad_wanted(args, flags & TL_GRAD_F_FIRST ? 1 : n))
    return tl_grad_record(f->formula, f->impl, args, nargsf, kwnames, 0);
  PyObject *result = PyObject_Vectorcall(f->impl, args, nargsf, kwnames);
  if (result && (flags & TL_GRAD_F_SAME))
    Py_SETREF(result, same_as_arguments(result, args, PyVectorcall_NARGS(nargsf)));
  if (result && (flags & TL_GRAD_F_VIEW) &&
      !is_dtype_view(f->formula, args, PyVectorcall_NARGS(nargsf), kwnames))
    mark_views(result, args, n, flags);
  return result;
}

static PyObject *recorded_call(PyObject *self, PyObject *const *args, size_t nargsf, PyObject *kwnames)
{
  if (TL_PROF_UNLIKELY(tl_prof_on))
    return tl_py_op_return(
        tl_prof_call(((recorded_fn *)self)->name, recorded_body, self, args, nargsf, kwnames));
  return tl_py_op_return(recorded_body(self, args, nargsf, kwnames));
}

static PyObject *recorded_descr_get(PyObject *self, PyObject *obj, PyObject *type)
{
  (void)type;
  if (obj == NULL || obj == Py_None)
    return Py_NewRef(self);
  return PyMethod_New(self, obj);
}

static PyObject *recorded_repr(PyObject *self)
{
  return PyUnicode_FromFormat("<torchlike function %s>",
                              tl_grad_formula_name(((recorded_fn *)self)->formula));
}

static PyObject *recorded_get_name(PyObject *self, void *closure)
{
  (void)closure;
  return PyUnicode_FromString(tl_grad_formula_name(((recorded_fn *)self)->formula));
}

static PyObject *recorded_get_doc(PyObject *self, void *closure)
{
  (void)closure;
  return PyObject_GetAttrString(((recorded_fn *)self)->impl, "__doc__");
}

static int recorded_traverse(PyObject *self, visitproc visit, void *arg)
{
  Py_VISIT(((recorded_fn *)self)->impl);
  return 0;
}

static void recorded_dealloc(PyObject *self)
{
  PyTypeObject *type = Py_TYPE(self);
  PyObject_GC_UnTrack(self);
  Py_CLEAR(((recorded_fn *)self)->impl);
  Py_CLEAR(((recorded_fn *)self)->name);
  type->tp_free(self);
  Py_DECREF(type);
}

static PyMemberDef recorded_members[] = {
    {"__vectorcalloffset__", T_PYSSIZET, offsetof(recorded_fn, vectorcall), READONLY, NULL},
    {"__wrapped__", T_OBJECT, offsetof(recorded_fn, impl), READONLY, NULL},
    {NULL, 0, 0, 0, NULL},
};
static PyGetSetDef recorded_getset[] = {
    {"__name__", recorded_get_name, NULL, NULL, NULL},
    {"__qualname__", recorded_get_name, NULL, NULL, NULL},
    {"__doc__", recorded_get_doc, NULL, NULL, NULL},
    {NULL, NULL, NULL, NULL, NULL},
};
static PyType_Slot recorded_slots[] = {
    {Py_tp_call, PyVectorcall_Call},
    {Py_tp_descr_get, recorded_descr_get},
    {Py_tp_repr, recorded_repr},
    {Py_tp_members, recorded_members},
    {Py_tp_getset, recorded_getset},
    {Py_tp_traverse, recorded_traverse},
    {Py_tp_dealloc, recorded_dealloc},
    {0, NULL},
};
static PyType_Spec recorded_spec = {
    .name = "torchlike._C.recorded",
    .basicsize = sizeof(recorded_fn),
    .flags = Py_TPFLAGS_DEFAULT | Py_TPFLAGS_HAVE_VECTORCALL | Py_TPFLAGS_METHOD_DESCRIPTOR |
             Py_TPFLAGS_DISALLOW_INSTANTIATION | Py_TPFLAGS_HAVE_GC,
    .slots = recorded_slots,
};
static PyTypeObject *recorded_type;

static PyObject *recorded_new(int formula, PyObject *impl)
{
  recorded_fn *f = PyObject_GC_New(recorded_fn, recorded_type);
  if (!f)
    return NULL;
  f->vectorcall = recorded_call;
  f->formula = formula;
  f->impl = Py_NewRef(impl);
  f->name = PyUnicode_FromString(tl_grad_formula_name(formula));
  PyObject_GC_Track(f);
  if (!f->name) {
    Py_DECREF(f);
    return NULL;
  }
  return (PyObject *)f;
}

/* Wrap Tensor.<name> and _C.<name> where they exist.  A module function that
 * is the method's own descriptor (torchlike.permute is Tensor.permute), or
 * calls it (py_shape_ops.c's export_method), gets the same wrapper; a
 * separate builtin gets its own. */
static int wrap(PyObject *module, int formula)
{
  const char *name = tl_grad_formula_name(formula);
  PyObject *method = PyDict_GetItemString(tl_py_tensor_type->tp_dict, name); /* borrowed */
  PyObject *fn = PyObject_GetAttrString(module, name), *wrapped = NULL;
  int r = -1;
  if (!fn)
    PyErr_Clear();
  if (method) {
    Py_INCREF(method); /* setattr below drops the type's reference */
    if (!(wrapped = recorded_new(formula, method)) ||
        PyObject_SetAttrString((PyObject *)tl_py_tensor_type, name, wrapped) < 0)
      goto done;
  }
  bool calls_method = fn && PyCFunction_Check(fn) && PyCFunction_GET_SELF(fn) == method;
  if (fn && method && (fn == method || calls_method)) {
    if (PyObject_SetAttrString(module, name, wrapped) < 0)
      goto done;
  } else if (fn && PyCFunction_Check(fn)) { /* _C.float is a dtype, not a cast */
    Py_XSETREF(wrapped, recorded_new(formula, fn));
    if (!wrapped || PyObject_SetAttrString(module, name, wrapped) < 0)
      goto done;
  }
  r = 0;
done:
  Py_XDECREF(method);
  Py_XDECREF(fn);
  Py_XDECREF(wrapped);
  return r;
}

/* ---- grad mode from Python ----------------------------------------------------- */

static PyObject *py_set_grad_enabled(PyObject *self, PyObject *arg)
{
  (void)self;
  int on = PyObject_IsTrue(arg);
  if (on < 0)
    return NULL;
  tl_py_grad_enabled = on;
  Py_RETURN_NONE;
}

/* _set_inference_mode(on) -> whether it was on: inference_mode's enter/exit. */
static PyObject *py_set_inference_mode(PyObject *self, PyObject *arg)
{
  (void)self;
  int on = PyObject_IsTrue(arg);
  if (on < 0)
    return NULL;
  bool was = tl_inference_mode;
  tl_inference_mode = on;
  return PyBool_FromLong(was);
}

static PyObject *py_is_grad_enabled(PyObject *self, PyObject *unused)
{
  (void)self;
  (void)unused;
  return PyBool_FromLong(tl_py_grad_enabled);
}

static PyObject *py_formula_names(PyObject *self, PyObject *unused)
{
  (void)self;
  (void)unused;
  PyObject *d = PyDict_New();
  for (int i = 0; d && i < TL_GRAD_COUNT; i++) {
    if (i < TL_OP_COUNT && !tl_opkind_has_function(tl_op_infos[i].kind))
      continue; /* kernel-table rows only: their functions are grad_fns.def's */
    if (PyDict_SetItemString(d, tl_grad_formula_name(i), tl_grad_formulas[i] ? Py_True : Py_False) < 0)
      Py_CLEAR(d);
  }
  return d;
}

/* _as_view(view, src): make view (sharing src's memory) a view of src's
 * base, for views made in Python (view_as_real: a dtype view, which is no
 * view by itself); _as_view(t, None): t is no view (forward AD's dual, whose
 * writes its own node records). */
static PyObject *py_as_view(PyObject *self, PyObject *const *args, Py_ssize_t nargs)
{
  (void)self;
  if (nargs == 2 && tl_py_is_tensor(args[0]) && args[1] == Py_None) {
    tl_py_tensor *t = (tl_py_tensor *)args[0];
    Py_CLEAR(t->base);
    t->view_meta = 0;
    return Py_NewRef(args[0]);
  }
  if (nargs != 2 || !tl_py_is_tensor(args[0]) || !tl_py_is_tensor(args[1]) ||
      tl_py_t(args[0])->storage != tl_py_t(args[1])->storage)
    return PyErr_Format(PyExc_TypeError, "_as_view(view, src): two tensors sharing memory "
                        "(src None: view is no view)");
  view_mark(args[0], args[1], 0);
  return Py_NewRef(args[0]);
}

/* ---- in-place forms of out= ops ------------------------------------------------
 * F.relu(x, inplace=True), F.elu_(x) ...: the nn activations have no in-place
 * kernel form, only out=.  _inplace_op(op, input, *args) runs
 * op(input, *args, out=input); when that needs recording it is recorded as an
 * in-place call of op's own formula, so x gets PyTorch's node (ReluBackward0
 * over x's old history, not a copy's) and the formula reads x's old value
 * from the copy the recorder keeps. */

static PyObject *write_into(PyObject *op, PyObject *const *args, Py_ssize_t nargs, PyObject *kwnames)
{
  Py_ssize_t nkw = kwnames ? PyTuple_GET_SIZE(kwnames) : 0;
  /* py_inplace_op passes the input first: nargs >= 1 */
  PyObject **all = PyMem_Malloc((size_t)(nargs + nkw + 1) * sizeof(PyObject *));
  PyObject *names = all ? PyTuple_New(nkw + 1) : NULL, *r = NULL;
  if (!all)
    PyErr_NoMemory();
  if (!names)
    goto done;
  for (Py_ssize_t i = 0; i < nargs + nkw; i++)
    all[i] = args[i];
  all[nargs + nkw] = args[0];
  for (Py_ssize_t k = 0; k < nkw; k++)
    PyTuple_SET_ITEM(names, k, Py_NewRef(PyTuple_GET_ITEM(kwnames, k)));
  PyObject *out = PyUnicode_InternFromString("out");
  if (!out)
    goto done;
  PyTuple_SET_ITEM(names, nkw, out);
  r = PyObject_Vectorcall(op, all, (size_t)nargs, names);
done:
  PyMem_Free(all);
  Py_XDECREF(names);
  return r;
}

static PyMethodDef write_into_def = {"_write_into", (PyCFunction)(void (*)(void))write_into,
                                     METH_FASTCALL | METH_KEYWORDS, NULL};

/* The formula of an op function, by its name; -1 when none has it.  A scan
 * of the op names, paid only by in-place activations that are recorded. */
static int formula_of(PyObject *op)
{
  PyObject *name = PyObject_GetAttrString(op, "__name__");
  const char *s = name ? PyUnicode_AsUTF8(name) : NULL;
  int found = -1;
  for (int i = 0; s && found < 0 && i < TL_OP_COUNT; i++)
    if (!strcmp(tl_op_infos[i].name, s))
      found = i;
  Py_XDECREF(name);
  if (found < 0 && !PyErr_Occurred())
    PyErr_Format(PyExc_TypeError, "_inplace_op: %R is no registry op", op);
  return found;
}

static PyObject *py_inplace_op(PyObject *self, PyObject *const *args, Py_ssize_t nargs,
                               PyObject *kwnames)
{
  (void)self;
  if (nargs < 2 || !tl_py_is_tensor(args[1]))
    return PyErr_Format(PyExc_TypeError, "_inplace_op(op, input, *args): input must be a Tensor");
  PyObject *impl = PyCFunction_New(&write_into_def, args[0]);
  if (!impl)
    return NULL;
  PyObject *r;
  Py_ssize_t n = nargs - 1 + (kwnames ? PyTuple_GET_SIZE(kwnames) : 0);
  int formula = tl_py_grad_wanted(args + 1, n) ? formula_of(args[0]) : -2;
  if (formula == -1)
    r = NULL;
  else if (formula >= 0)
    r = tl_grad_record(formula, impl, args + 1, (size_t)(nargs - 1), kwnames, TL_GRAD_F_INPLACE);
  else
    r = PyObject_Vectorcall(impl, args + 1, (size_t)(nargs - 1), kwnames);
  Py_DECREF(impl);
  /* the call's result is the written input */
  if (r && r != args[1])
    Py_SETREF(r, Py_NewRef(args[1]));
  return r;
}

/* _recorded(name, fn): fn, a Python function, as the recorded function of
 * grad_fns.def's entry `name` (wrap() above does this for _C's own at import). */
static PyObject *py_recorded(PyObject *self, PyObject *const *args, Py_ssize_t nargs)
{
  (void)self;
  const char *name = nargs == 2 && PyUnicode_Check(args[0]) ? PyUnicode_AsUTF8(args[0]) : NULL;
  if (!name)
    return PyErr_Occurred() ? NULL : PyErr_Format(PyExc_TypeError, "_recorded(name, fn)");
  for (int i = TL_OP_COUNT; i < TL_GRAD_COUNT; i++)
    if (!strcmp(fn_names[i - TL_OP_COUNT], name))
      return recorded_new(i, args[1]);
  return PyErr_Format(PyExc_ValueError, "_recorded: no grad_fns.def entry '%s'", name);
}

static PyMethodDef record_functions[] = {
    {"_as_view", (PyCFunction)(void (*)(void))py_as_view, METH_FASTCALL, NULL},
    {"_recorded", (PyCFunction)(void (*)(void))py_recorded, METH_FASTCALL, NULL},
    {"_inplace_op", (PyCFunction)(void (*)(void))py_inplace_op, METH_FASTCALL | METH_KEYWORDS,
     "_inplace_op(op, input, *args): op(input, *args, out=input), recorded as op's in-place call"},
    {"_set_grad_enabled", py_set_grad_enabled, METH_O, NULL},
    {"_set_inference_mode", py_set_inference_mode, METH_O, NULL},
    {"is_grad_enabled", py_is_grad_enabled, METH_NOARGS, "whether ops are being recorded"},
    {"_grad_formulas", py_formula_names, METH_NOARGS,
     "{function name: has a derivative} for every op and grad_fns.def function"},
    {NULL, NULL, 0, NULL},
};

int tl_py_grad_init(PyObject *module)
{
  recorded_type = (PyTypeObject *)PyType_FromSpec(&recorded_spec);
  tl_py_record = tl_grad_record;
  tl_py_view_mark = view_mark;
  tl_py_view_stale = view_stale;
  for (int type = 0; type < TL_DEVICE_COUNT; type++)
    for (int i = 0; i < TL_GRAD_META_INDICES; i++)
      meta_storages[type][i] = (tl_storage){.refcount = INT64_MAX / 2, .readonly = true,
                                            .device = {(tl_device_type)type, i - 1}};
  if (!recorded_type || tl_py_tensor_grad_init() < 0 || tl_py_function_init(module) < 0 || tl_py_node_init(module) < 0 || tl_py_engine_init(module) < 0 ||
      tl_py_anomaly_init(module) < 0 || tl_py_op_policy_init(module) < 0 ||
      tl_py_saved_hooks_init(module) < 0 ||
      PyModule_AddFunctions(module, record_functions) < 0)
    return -1;
  tl_py_formula_getitem = TL_GRAD_GETITEM;
  tl_py_formula_setitem = TL_GRAD_SETITEM;
  for (int i = 0; i < TL_GRAD_COUNT; i++)
    sig_of[i] = tl_py_sig_find(tl_grad_formula_name(i));
  for (int i = TL_OP_COUNT; i < TL_GRAD_COUNT; i++) {
    if (!(fn_flags[i - TL_OP_COUNT] & TL_GRAD_F_SLOT) && wrap(module, i) < 0)
      return -1;
  }
  tl_grad_formulas_elementwise_init();
  tl_grad_formulas_reduce_init();
  tl_grad_formulas_shape_init();
  tl_grad_formulas_index_init();
  tl_grad_formulas_linalg_init();
  tl_grad_formulas_inplace_init();
  tl_grad_formulas_bessel_init();
  tl_grad_formulas_special_init();
  tl_grad_formulas_random_init();
  tl_grad_formulas_missing_init();
  tl_grad_formulas_nn_softmax_init();
  tl_grad_formulas_nn_activation_init();
  tl_grad_formulas_nn_dropout_init();
  tl_grad_formulas_nn_embedding_init();
  tl_grad_formulas_nn_grid_init();
  tl_grad_formulas_nn_pool_init();
  tl_grad_formulas_nn_rnn_init();
  tl_grad_formulas_nn_attention_init();
  tl_grad_formulas_nn_conv_init();
  tl_grad_formulas_nn_norm_init();
  tl_grad_formulas_nn_loss_init();
  return 0;
}
