/* py_storage.c - the few storage accessors that pickling and torchlike.save
 * need (torchlike/serialization.py does the rest in Python).
 *
 *   _storage_id(t)      an int naming t's storage: equal for two tensors
 *                       exactly when they share storage (valid while alive)
 *   _storage_bytes(t)   a 1-d uint8 tensor over all of t's storage, offset 0:
 *                       the bytes a checkpoint records, zero-copy.  Any view
 *                       of the storage is rebuilt from it with
 *                       .view(dtype).as_strided(size, stride, offset).
 *   _make_subclass(cls, data, require_grad=False)
 *                       a `cls` instance (a Tensor subclass) sharing data's
 *                       view, as a fresh leaf: how a Parameter or any other
 *                       subclass is rebuilt around loaded storage.
 *   _untracked_alias(t) t's view over a second storage object aliasing the
 *                       same memory (and keeping it alive), with a version
 *                       counter of its own: writes through it are not seen
 *                       by autograd's checks on t, as writes through
 *                       PyTorch's .data are not.  gradcheck perturbs its
 *                       inputs through one.  For short-lived use: an op that
 *                       moves t's storage (share_memory_) leaves it behind.
 *   _grow_storage(t, nbytes)
 *                       resize_'s growth: t (this tensor object alone) gets a
 *                       new storage of nbytes whose prefix is a copy of its
 *                       old storage's bytes.  Other views keep the old one:
 *                       PyTorch grows the shared storage itself, which a
 *                       storage here cannot do (its header sits inside its
 *                       block).
 *   _check_write(t)     raises if t may not be written now (an inference
 *                       tensor outside inference mode): for the Python-written
 *                       in-place ops that change a tensor's storage (set_). */
#include "ndcore/bindings/py_tensor.h"
#include "ndcore/bindings/py_torch_function.h"

static PyObject *py_storage_id(PyObject *self, PyObject *arg)
{
  (void)self;
  const tl_tensor *t = tl_py_tensor_arg("_storage_id", "tensor", arg);
  if (!t)
    return NULL;
  return PyLong_FromVoidPtr(t->storage);
}

static PyObject *py_storage_bytes(PyObject *self, PyObject *arg)
{
  (void)self;
  const tl_tensor *t = tl_py_tensor_arg("_storage_bytes", "tensor", arg);
  if (!t)
    return NULL;
  tl_tensor out;
  tl_tensor_view_of(&out, t);
  out.dtype = TL_DTYPE_U8;
  out.ndim = 1;
  out.offset = 0;
  out.shape[0] = (int64_t)t->storage->nbytes;
  out.strides[0] = 1;
  return tl_py_tensor_from(&out);
}

static PyObject *py_make_subclass(PyObject *self, PyObject *const *args, Py_ssize_t nargs,
                                  PyObject *kwnames)
{
  (void)self;
  static const char *const names[] = {"cls", "data", "require_grad", NULL};
  PyObject *v[3] = {NULL, NULL, NULL};
  bool require_grad = false;
  if (tl_py_bind_args("_make_subclass", args, nargs, kwnames, names, 3, 2, v) < 0)
    return NULL;
  if (!PyType_Check(v[0]) || !PyType_IsSubtype((PyTypeObject *)v[0], tl_py_tensor_type))
    return tl_py_not_a_subclass();
  const tl_tensor *data = tl_py_tensor_arg("_make_subclass", "data", v[1]);
  if (!data || tl_py_bool_arg(v[2], &require_grad) < 0)
    return NULL;
  if (require_grad && !tl_dtype_is_float(data->dtype) && !tl_dtype_is_complex(data->dtype))
    return PyErr_Format(PyExc_RuntimeError, "Only Tensors of floating point and complex dtype "
                        "can require gradients (got %s)", tl_dtype_names[data->dtype]);
  if (require_grad && ((tl_py_tensor *)v[1])->inference && !tl_inference_mode)
    return PyErr_Format(PyExc_RuntimeError, "Setting requires_grad=True on inference tensor "
                        "outside InferenceMode is not allowed.");   /* Parameter(t), as PyTorch */
  PyTypeObject *type = (PyTypeObject *)v[0];
  tl_py_tensor *out = (tl_py_tensor *)type->tp_alloc(type, 0);
  if (!out)
    return NULL;
  tl_tensor_view_of(&out->t, data);
  out->requires_grad = require_grad;
  out->inference = ((tl_py_tensor *)v[1])->inference; /* the same tensor, another class */
  return (PyObject *)out;
}

static void release_aliased(void *ctx, void *data)
{
  (void)data;
  tl_storage_decref(ctx);
}

static PyObject *py_untracked_alias(PyObject *self, PyObject *arg)
{
  (void)self;
  const tl_tensor *t = tl_py_tensor_arg("_untracked_alias", "tensor", arg);
  if (!t)
    return NULL;
  tl_storage *base = t->storage;
  tl_storage *alias = tl_storage_wrap(base->data, base->nbytes, base->device, base->readonly,
                                      release_aliased, base);
  if (!alias)
    return tl_py_raise();
  alias->inference = base->inference;
  tl_storage_incref(base);
  tl_tensor out = *t;
  out.storage = alias; /* the new reference is out's */
  return tl_py_tensor_from(&out);
}

static PyObject *py_grow_storage(PyObject *self, PyObject *args)
{
  (void)self;
  PyObject *obj;
  Py_ssize_t nbytes;
  tl_tensor fresh = {0}, prefix, old;
  if (!PyArg_ParseTuple(args, "On:_grow_storage", &obj, &nbytes) ||
      !tl_py_tensor_arg("_grow_storage", "tensor", obj))
    return NULL;
  tl_tensor *t = tl_py_t(obj);
  int64_t had = (int64_t)t->storage->nbytes;
  if (tl_storage_check_write(t->storage) != TL_OK)
    return tl_py_raise();
  if (nbytes <= had)
    Py_RETURN_NONE;
  /* both storages as flat bytes: the copy runs on their device */
  old = (tl_tensor){.storage = t->storage, .dtype = TL_DTYPE_U8, .ndim = 1, .shape = {had},
                    .strides = {1}};
  if (tl_tensor_empty(&fresh, TL_DTYPE_U8, 1, (int64_t[]){nbytes}, tl_tensor_device(t)) != TL_OK)
    goto fail;
  prefix = fresh;
  prefix.shape[0] = had;
  if (had && tl_tensor_copy(&prefix, &old) != TL_OK)
    goto fail;
  fresh.storage->inference = t->storage->inference; /* the same storage, grown */
  tl_storage_decref(t->storage);
  t->storage = fresh.storage; /* fresh's reference moves to t */
  Py_RETURN_NONE;
fail:
  tl_tensor_release(&fresh);
  return tl_py_raise();
}

static PyObject *py_check_write(PyObject *self, PyObject *arg)
{
  (void)self;
  const tl_tensor *t = tl_py_tensor_arg("_check_write", "tensor", arg);
  if (!t)
    return NULL;
  if (tl_storage_check_write(t->storage) != TL_OK)
    return tl_py_raise();
  Py_RETURN_NONE;
}

PyMethodDef tl_py_storage_functions[] = {
    {"_check_write", py_check_write, METH_O,
     "_check_write(t): raises if t may not be written now (an inference tensor)"},
    {"_grow_storage", py_grow_storage, METH_VARARGS,
     "_grow_storage(t, nbytes): t alone on a larger storage starting with its old bytes"},
    {"_untracked_alias", py_untracked_alias, METH_O,
     "_untracked_alias(t): t's view over an aliasing storage with its own version counter"},
    {"_storage_id", py_storage_id, METH_O, "_storage_id(t): an int naming t's storage"},
    {"_storage_bytes", py_storage_bytes, METH_O,
     "_storage_bytes(t): a uint8 tensor over all of t's storage (zero-copy)"},
    {"_make_subclass", (PyCFunction)(void (*)(void))py_make_subclass,
     METH_FASTCALL | METH_KEYWORDS,
     "_make_subclass(cls, data, require_grad=False): a cls instance sharing data's view"},
    {NULL, NULL, 0, NULL},
};
