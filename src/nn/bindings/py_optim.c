/* py_optim.c - torchlike._C._optim_step, the binding of the multi-tensor
 * optimizer steps (src/nn/tl_optim.h).
 *
 *   _optim_step(kind, group, params, grads, buffers, scalars, fresh)
 *
 * kind names the optimizer ("adam", "sgd", ...); group is its param_group
 * dict, read for the options; params and grads are lists of tensors;
 * buffers is a list of per-parameter lists of state tensors (None where an
 * option leaves one out); scalars a list of per-parameter lists of 0-d float32
 * state tensors (the step counter first); fresh (SGD) a list of bools or None.
 * Everything is checked here, then the step runs without the GIL.           */
#include "ndcore/bindings/py_tensor.h"
#include "nn/bindings/py_optim.h"
#include "nn/optim/tl_optim.h"

static const char *const kind_names[TL_OPTIM_COUNT] = {
    [TL_OPTIM_SGD] = "sgd",         [TL_OPTIM_ADAM] = "adam",
    [TL_OPTIM_ADAMAX] = "adamax",   [TL_OPTIM_NADAM] = "nadam",
    [TL_OPTIM_RADAM] = "radam",     [TL_OPTIM_ADAGRAD] = "adagrad",
    [TL_OPTIM_ADADELTA] = "adadelta", [TL_OPTIM_RMSPROP] = "rmsprop",
    [TL_OPTIM_RPROP] = "rprop",     [TL_OPTIM_ASGD] = "asgd",
};

/* group[key] as a double (0 when absent); item picks from a tuple option. */
static int group_double(PyObject *group, const char *key, Py_ssize_t item, double *out)
{
  PyObject *v = PyDict_GetItemString(group, key); /* borrowed */
  if (!v)
    return 0;
  if (item >= 0) {
    if (!PyTuple_Check(v) && !PyList_Check(v)) {
      PyErr_Format(PyExc_TypeError, "optimizer option %s must be a tuple", key);
      return -1;
    }
    if (PySequence_Size(v) <= item) {
      PyErr_Format(PyExc_ValueError, "optimizer option %s has too few values", key);
      return -1;
    }
    PyObject *x = PySequence_GetItem(v, item);
    if (!x)
      return -1;
    *out = PyFloat_AsDouble(x);
    Py_DECREF(x);
  } else {
    *out = PyFloat_AsDouble(v);
  }
  return *out == -1.0 && PyErr_Occurred() ? -1 : 0;
}

static int group_bool(PyObject *group, const char *key, bool *out)
{
  PyObject *v = PyDict_GetItemString(group, key); /* borrowed */
  int r = v ? PyObject_IsTrue(v) : 0;
  if (r < 0)
    return -1;
  *out = r;
  return 0;
}

static int parse_hyper(PyObject *group, tl_optim_hyper *h)
{
  static const struct {
    const char *key;
    Py_ssize_t item;
    size_t offset;
  } doubles[] = {
      {"lr", -1, offsetof(tl_optim_hyper, lr)},
      {"weight_decay", -1, offsetof(tl_optim_hyper, weight_decay)},
      {"eps", -1, offsetof(tl_optim_hyper, eps)},
      {"betas", 0, offsetof(tl_optim_hyper, beta1)},
      {"betas", 1, offsetof(tl_optim_hyper, beta2)},
      {"momentum", -1, offsetof(tl_optim_hyper, momentum)},
      {"dampening", -1, offsetof(tl_optim_hyper, dampening)},
      {"alpha", -1, offsetof(tl_optim_hyper, alpha)},
      {"rho", -1, offsetof(tl_optim_hyper, rho)},
      {"lr_decay", -1, offsetof(tl_optim_hyper, lr_decay)},
      {"momentum_decay", -1, offsetof(tl_optim_hyper, momentum_decay)},
      {"lambd", -1, offsetof(tl_optim_hyper, lambd)},
      {"t0", -1, offsetof(tl_optim_hyper, t0)},
      {"etas", 0, offsetof(tl_optim_hyper, etaminus)},
      {"etas", 1, offsetof(tl_optim_hyper, etaplus)},
      {"step_sizes", 0, offsetof(tl_optim_hyper, step_min)},
      {"step_sizes", 1, offsetof(tl_optim_hyper, step_max)},
  };
  static const struct {
    const char *key;
    size_t offset;
  } bools[] = {
      {"maximize", offsetof(tl_optim_hyper, maximize)},
      {"amsgrad", offsetof(tl_optim_hyper, amsgrad)},
      {"decoupled_weight_decay", offsetof(tl_optim_hyper, decoupled)},
      {"nesterov", offsetof(tl_optim_hyper, nesterov)},
      {"centered", offsetof(tl_optim_hyper, centered)},
  };
  memset(h, 0, sizeof *h);
  for (size_t i = 0; i < sizeof doubles / sizeof doubles[0]; i++)
    if (group_double(group, doubles[i].key, doubles[i].item,
                     (double *)((char *)h + doubles[i].offset)) < 0)
      return -1;
  for (size_t i = 0; i < sizeof bools / sizeof bools[0]; i++)
    if (group_bool(group, bools[i].key, (bool *)((char *)h + bools[i].offset)) < 0)
      return -1;
  return 0;
}

/* A tensor the kernel may read (and write, when `writes`): a contiguous CPU
 * tensor of the given dtype and element count. */
static tl_tensor *check_tensor(PyObject *o, const char *what, Py_ssize_t j, tl_dtype dtype,
                               int64_t n, bool writes)
{
  if (!tl_py_is_tensor(o)) {
    PyErr_Format(PyExc_TypeError, "_optim_step: %s %zd is a %s, not a Tensor", what, j,
                 Py_TYPE(o)->tp_name);
    return NULL;
  }
  tl_tensor *t = tl_py_t(o);
  if (t->dtype != dtype || tl_tensor_device(t).type != TL_DEVICE_CPU ||
      !tl_tensor_is_contiguous(t) || tl_tensor_numel(t) != n) {
    PyErr_Format(PyExc_ValueError,
                 "_optim_step: %s %zd must be a contiguous CPU tensor of %lld elements with "
                 "its parameter's dtype",
                 what, j, (long long)n);
    return NULL;
  }
  if (writes && t->storage->readonly) {
    PyErr_Format(PyExc_ValueError, "_optim_step: %s %zd is read-only", what, j);
    return NULL;
  }
  if (writes && tl_storage_check_write(t->storage) != TL_OK) {
    tl_py_raise();
    return NULL;
  }
  return t;
}

/* list[j] of a list of per-parameter lists, or NULL with an error. */
static PyObject *list_item(PyObject *lists, Py_ssize_t i, Py_ssize_t j, Py_ssize_t count,
                           const char *what)
{
  PyObject *list = PyList_GetItem(lists, i);
  if (!list || !PyList_Check(list) || PyList_GET_SIZE(list) != count) {
    PyErr_Clear();
    PyErr_Format(PyExc_ValueError, "_optim_step: %s %zd must be a list of %zd entries", what,
                 i, count);
    return NULL;
  }
  return PyList_GET_ITEM(list, j);
}

static PyObject *optim_step(PyObject *self, PyObject *args)
{
  (void)self;
  const char *name;
  PyObject *group, *params, *grads, *buffers, *scalars, *fresh;
  tl_optim_slot *slots = NULL;
  PyObject *result = NULL;
  if (!PyArg_ParseTuple(args, "sO!O!O!O!O!O:_optim_step", &name, &PyDict_Type, &group,
                        &PyList_Type, &params, &PyList_Type, &grads, &PyList_Type, &buffers,
                        &PyList_Type, &scalars, &fresh))
    return NULL;
  int kind = 0;
  while (kind < TL_OPTIM_COUNT && strcmp(kind_names[kind], name) != 0)
    kind++;
  if (kind == TL_OPTIM_COUNT) {
    PyErr_Format(PyExc_ValueError, "_optim_step: unknown optimizer '%s'", name);
    return NULL;
  }
  tl_optim_hyper h;
  if (parse_hyper(group, &h) < 0)
    return NULL;
  int nbufs, nscalars;
  tl_optim_arity(kind, &nbufs, &nscalars);
  Py_ssize_t count = PyList_GET_SIZE(params);
  if (PyList_GET_SIZE(grads) != count || PyList_GET_SIZE(buffers) != nbufs ||
      PyList_GET_SIZE(scalars) != nscalars || (fresh != Py_None && !PyList_Check(fresh))) {
    PyErr_Format(PyExc_ValueError,
                 "_optim_step: %s takes %d buffer lists and %d scalar lists over %zd "
                 "parameters and as many gradients",
                 name, nbufs, nscalars, count);
    return NULL;
  }
  if (fresh != Py_None && PyList_GET_SIZE(fresh) != count) {
    PyErr_Format(PyExc_ValueError, "_optim_step: fresh must have %zd entries", count);
    return NULL;
  }
  slots = PyMem_Calloc(count ? count : 1, sizeof *slots);
  if (!slots)
    return PyErr_NoMemory();
  tl_dtype dtype = TL_DTYPE_F32;
  for (Py_ssize_t j = 0; j < count; j++) {
    PyObject *po = PyList_GET_ITEM(params, j);
    if (!tl_py_is_tensor(po)) {
      PyErr_Format(PyExc_TypeError, "_optim_step: param %zd is not a Tensor", j);
      goto fail;
    }
    if (j == 0)
      dtype = tl_py_t(po)->dtype;
    int64_t n = tl_tensor_numel(tl_py_t(po));
    tl_tensor *p = check_tensor(po, "param", j, dtype, n, true);
    tl_tensor *g = p ? check_tensor(PyList_GET_ITEM(grads, j), "grad", j, dtype, n, false) : NULL;
    if (!g)
      goto fail;
    tl_optim_slot *s = &slots[j];
    s->n = n;
    s->param = tl_tensor_data(p);
    s->grad = tl_tensor_data(g);
    for (int i = 0; i < nbufs; i++) {
      PyObject *bo = list_item(buffers, i, j, count, "buffer list");
      if (!bo)
        goto fail;
      if (bo == Py_None) {
        if (tl_optim_buf_required(kind, &h, i)) {
          PyErr_Format(PyExc_ValueError, "_optim_step: %s needs state buffer %d of param %zd",
                       name, i, j);
          goto fail;
        }
        continue;
      }
      tl_tensor *b = check_tensor(bo, "state buffer", j, dtype, n, true);
      if (!b)
        goto fail;
      s->buf[i] = tl_tensor_data(b);
    }
    for (int i = 0; i < nscalars; i++) {
      PyObject *so = list_item(scalars, i, j, count, "scalar list");
      if (!so)
        goto fail;
      tl_tensor *t = check_tensor(so, "state scalar", j, TL_DTYPE_F32, 1, true);
      if (!t)
        goto fail;
      s->scalar[i] = tl_tensor_data(t);
    }
    if (fresh != Py_None) {
      int r = PyObject_IsTrue(PyList_GET_ITEM(fresh, j));
      if (r < 0)
        goto fail;
      s->fresh = r;
    }
  }
  /* Everything written counts as an in-place write for autograd's checks. */
  for (Py_ssize_t j = 0; j < count; j++) {
    tl_storage_bump(tl_py_t(PyList_GET_ITEM(params, j))->storage);
    for (int i = 0; i < nbufs; i++) {
      PyObject *bo = PyList_GET_ITEM(PyList_GET_ITEM(buffers, i), j);
      if (bo != Py_None)
        tl_storage_bump(tl_py_t(bo)->storage);
    }
    for (int i = 0; i < nscalars; i++)
      tl_storage_bump(tl_py_t(PyList_GET_ITEM(PyList_GET_ITEM(scalars, i), j))->storage);
  }
  tl_status status;
  Py_BEGIN_ALLOW_THREADS
  status = tl_optim_step(kind, &h, slots, count, dtype);
  Py_END_ALLOW_THREADS
  if (status != TL_OK) {
    tl_py_raise();
    goto fail;
  }
  result = Py_NewRef(Py_None);
fail:
  PyMem_Free(slots);
  return result;
}

static PyMethodDef optim_functions[] = {
    {"_optim_step", optim_step, METH_VARARGS,
     "One multi-tensor optimizer step over a parameter group (torchlike.optim's fast path)."},
    {NULL, NULL, 0, NULL},
};

int tl_py_optim_init(PyObject *module) { return PyModule_AddFunctions(module, optim_functions); }
