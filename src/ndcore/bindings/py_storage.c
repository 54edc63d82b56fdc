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
 *                       subclass is rebuilt around loaded storage.        */
#include "ndcore/bindings/py_tensor.h"

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
    return PyErr_Format(PyExc_TypeError, "_make_subclass(): cls must be a Tensor subclass, "
                        "not %R", v[0]);
  const tl_tensor *data = tl_py_tensor_arg("_make_subclass", "data", v[1]);
  if (!data || tl_py_bool_arg(v[2], &require_grad) < 0)
    return NULL;
  if (require_grad && !tl_dtype_is_float(data->dtype) && !tl_dtype_is_complex(data->dtype))
    return PyErr_Format(PyExc_RuntimeError, "only Tensors of floating point and complex dtype "
                        "can require gradients (got %s)", tl_dtype_names[data->dtype]);
  PyTypeObject *type = (PyTypeObject *)v[0];
  tl_py_tensor *out = (tl_py_tensor *)type->tp_alloc(type, 0);
  if (!out)
    return NULL;
  tl_tensor_view_of(&out->t, data);
  out->requires_grad = require_grad;
  return (PyObject *)out;
}

PyMethodDef tl_py_storage_functions[] = {
    {"_storage_id", py_storage_id, METH_O, "_storage_id(t): an int naming t's storage"},
    {"_storage_bytes", py_storage_bytes, METH_O,
     "_storage_bytes(t): a uint8 tensor over all of t's storage (zero-copy)"},
    {"_make_subclass", (PyCFunction)(void (*)(void))py_make_subclass,
     METH_FASTCALL | METH_KEYWORDS,
     "_make_subclass(cls, data, require_grad=False): a cls instance sharing data's view"},
    {NULL, NULL, 0, NULL},
};
