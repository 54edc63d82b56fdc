/* py_ufunc.c - the fast path of Tensor.__array_ufunc__ (NEP 13).
 *
 * np.sin(t) reaches Tensor.__array_ufunc__(np.sin, "__call__", t).  The full
 * protocol (reduce, accumulate, outer, out=, dtype=, the NumPy fallback) is
 * Python (torchlike/_ufunc.py); a plain call of a ufunc that maps to a
 * torchlike op is served here, so NumPy-style code pays one dict lookup over
 * calling the op itself.  The table is filled by _ufunc.py as it resolves
 * ufuncs: only calls the Python path would answer with op(*inputs) go in.
 * Calls with an operand that is neither a tensor nor a Python scalar (an
 * ndarray, a list; a Python int past int64) take the Python path, which
 * decides whether host data may meet a device tensor (docs/numpy.md,
 * "Devices") and what NumPy makes of such an int. */
#include <string.h>

#include <Python.h>

#include "ndcore/bindings/py_tensor.h"

static PyObject *fast_table; /* {ufunc: torchlike op} */
static PyObject *slow_path;  /* _ufunc.array_ufunc(self, ufunc, method, *inputs, **kw) */
static PyObject *call_str;   /* "__call__", interned */

/* Tensors and Python scalars only: what op(*inputs) takes on any device
 * (op takes a NumPy scalar as a weak Python number, PyTorch's rule, so
 * np.float64 and np.complex128, subclasses of float and complex, are not
 * plain: NumPy's ufuncs promote them as arrays).
 * A Python int past int64 is not plain: NumPy's answer for it depends on
 * the ufunc and the other operand's dtype (NEP 50: a comparison is exact,
 * a float array takes it as a float, an integer array's arithmetic
 * refuses it), which the Python path works out (_ufunc.py). */
int tl_py_plain_operands(PyObject *const *inputs, Py_ssize_t n)
{
  for (Py_ssize_t i = 0; i < n; i++) {
    PyObject *o = inputs[i];
    if (PyLong_CheckExact(o)) {
      int overflow = 0;
      (void)PyLong_AsLongLongAndOverflow(o, &overflow); /* cannot fail on an int */
      if (overflow)
        return 0;
      continue;
    }
    /* NumPy's float64/complex128 scalars subclass float/complex but are
     * arrays to NumPy's ufuncs (NEP 50), not weak Python numbers */
    if (!tl_py_is_tensor(o) && !PyFloat_CheckExact(o) && !PyBool_Check(o) &&
        !PyComplex_CheckExact(o))
      return 0;
  }
  return 1;
}

/* The tensor NumPy hands as out= ((tensor,) with the one keyword "out"),
 * or NULL: the Python path answers every other keyword. */
static PyObject *single_out(PyObject *const *args, Py_ssize_t nargs, PyObject *kwnames)
{
  if (!kwnames)
    return NULL;
  if (PyTuple_GET_SIZE(kwnames) != 1 || !PyUnicode_Check(PyTuple_GET_ITEM(kwnames, 0)) ||
      PyUnicode_CompareWithASCIIString(PyTuple_GET_ITEM(kwnames, 0), "out") != 0)
    return NULL;
  PyObject *out = args[nargs];
  if (!PyTuple_Check(out) || PyTuple_GET_SIZE(out) != 1 || !tl_py_is_tensor(PyTuple_GET_ITEM(out, 0)))
    return NULL;
  return PyTuple_GET_ITEM(out, 0);
}

/* Whether an operand has out's shape and none has more dimensions: their
 * broadcast is then out's shape (or the op's own error).  This is the first
 * test of NumPy's out= rule in torchlike/_ufunc.py (out_broadcast); every
 * other call goes there, which broadcasts the operands to a larger out or
 * refuses it in NumPy's words. */
static int out_shape_met(PyObject *const *inputs, Py_ssize_t n, PyObject *out)
{
  const tl_tensor *o = tl_py_t(out);
  int met = 0;
  for (Py_ssize_t i = 0; i < n; i++) {
    if (!tl_py_is_tensor(inputs[i]))
      continue;
    const tl_tensor *t = tl_py_t(inputs[i]);
    if (t->ndim > o->ndim)
      return 0;
    met |= t->ndim == o->ndim &&
           memcmp(t->shape, o->shape, (size_t)o->ndim * sizeof *o->shape) == 0;
  }
  return met;
}

static PyObject *tensor_array_ufunc(PyObject *self, PyObject *const *args, Py_ssize_t nargs,
                                    PyObject *kwnames)
{
  /* np.exp(t) and np.exp(t, out=t): op(t) and op(t, out=t), and the out
   * tensor itself back, as the Python path answers them */
  PyObject *out = single_out(args, nargs, kwnames);
  if (nargs >= 2 && (!kwnames || out) && fast_table && (args[1] == call_str ||
      (PyUnicode_Check(args[1]) && PyUnicode_Compare(args[1], call_str) == 0))) {
    PyObject *op = PyDict_GetItemWithError(fast_table, args[0]); /* borrowed */
    if (op && tl_py_plain_operands(args + 2, nargs - 2)) {
      if (!out)
        return PyObject_Vectorcall(op, args + 2, (size_t)(nargs - 2), NULL);
      PyObject *call[4]; /* the operands, then out's tensor (ufuncs take 1 to 3) */
      const Py_ssize_t nin = nargs - 2;
      if (nin <= 3 && out_shape_met(args + 2, nin, out)) {
        memcpy(call, args + 2, (size_t)nin * sizeof *call);
        call[nin] = out;
        PyObject *r = PyObject_Vectorcall(op, call, (size_t)nin, kwnames);
        if (r) {
          Py_DECREF(r);
          return Py_NewRef(out); /* NumPy hands back the caller's own out object */
        }
        /* a dtype out cannot take: the op's TypeError checks before it writes;
         * the slow path raises it in NumPy's words */
        if (!PyErr_ExceptionMatches(PyExc_TypeError))
          return NULL;
        PyErr_Clear();
      }
    }
    if (PyErr_Occurred())
      return NULL;
  }
  if (!slow_path)
    return PyErr_Format(PyExc_RuntimeError, "torchlike's __array_ufunc__ is not initialised");
  Py_ssize_t nkw = kwnames ? PyTuple_GET_SIZE(kwnames) : 0;
  PyObject **all = PyMem_Malloc((size_t)(1 + nargs + nkw) * sizeof(PyObject *));
  if (!all)
    return PyErr_NoMemory();
  all[0] = self;
  memcpy(all + 1, args, (size_t)(nargs + nkw) * sizeof(PyObject *));
  PyObject *r = PyObject_Vectorcall(slow_path, all, (size_t)(1 + nargs), kwnames);
  PyMem_Free(all);
  return r;
}

/* _set_array_ufunc(table, slow_path) */
static PyObject *set_array_ufunc(PyObject *module, PyObject *const *args, Py_ssize_t nargs)
{
  (void)module;
  if (nargs != 2 || !PyDict_Check(args[0]) || !PyCallable_Check(args[1]))
    return PyErr_Format(PyExc_TypeError, "_set_array_ufunc(table: dict, slow_path: callable)");
  Py_XSETREF(fast_table, Py_NewRef(args[0]));
  Py_XSETREF(slow_path, Py_NewRef(args[1]));
  Py_RETURN_NONE;
}

/* The first tensor off the CPU in o (a tensor, or a list or tuple searched
 * depth first), or else the first instance of `also` (a type, or NULL);
 * *found stays NULL when there is neither.  -1 after an error. */
int tl_py_find_offhost(PyObject *o, PyTypeObject *also, PyObject **found)
{
  if (tl_py_is_tensor(o)) {
    if (tl_tensor_device(tl_py_t(o)).type != TL_DEVICE_CPU)
      *found = o;
    return 0;
  }
  if (also && PyObject_TypeCheck(o, also)) {
    *found = o;
    return 0;
  }
  if (!PyList_Check(o) && !PyTuple_Check(o))
    return 0;
  if (Py_EnterRecursiveCall(" in _offhost_device"))
    return -1;
  int err = 0;
  for (Py_ssize_t i = 0; !err && !*found && i < PySequence_Fast_GET_SIZE(o); i++)
    err = tl_py_find_offhost(PySequence_Fast_GET_ITEM(o, i), also, found);
  Py_LeaveRecursiveCall();
  return err;
}

/* _offhost_device(args, kwargs): the device of the first tensor off the CPU
 * among a NumPy call's arguments (lists and tuples searched too), or None.
 * Every NumPy call on tensors asks (torchlike/_array_function.py), so the
 * common answer, all on the CPU, costs a pass over the arguments. */
static PyObject *offhost_device(PyObject *module, PyObject *const *args, Py_ssize_t nargs)
{
  (void)module;
  if (nargs != 2 || !PyTuple_Check(args[0]) || (args[1] != Py_None && !PyDict_Check(args[1])))
    return PyErr_Format(PyExc_TypeError, "_offhost_device(args: tuple, kwargs: dict | None)");
  PyObject *found = NULL, *key, *value;
  if (tl_py_find_offhost(args[0], NULL, &found) < 0)
    return NULL;
  for (Py_ssize_t pos = 0; !found && args[1] != Py_None && PyDict_Next(args[1], &pos, &key, &value);)
    if (tl_py_find_offhost(value, NULL, &found) < 0)
      return NULL;
  if (!found)
    Py_RETURN_NONE;
  return PyObject_GetAttrString(found, "device");
}

static PyMethodDef ufunc_methods[] = {
    {"__array_ufunc__", (PyCFunction)(void (*)(void))tensor_array_ufunc,
     METH_FASTCALL | METH_KEYWORDS, "NEP 13: NumPy ufuncs on tensors run torchlike ops"},
    {NULL, NULL, 0, NULL},
};
static PyMethodDef ufunc_functions[] = {
    {"_set_array_ufunc", (PyCFunction)(void (*)(void))set_array_ufunc, METH_FASTCALL, NULL},
    {"_offhost_device", (PyCFunction)(void (*)(void))offhost_device, METH_FASTCALL,
     "_offhost_device(args, kwargs): the first off-CPU tensor's device, or None"},
    {NULL, NULL, 0, NULL},
};

int tl_py_ufunc_init(PyObject *module)
{
  if (!(call_str = PyUnicode_InternFromString("__call__")))
    return -1;
  if (PyModule_AddFunctions(module, ufunc_functions) < 0)
    return -1;
  return tl_py_tensor_add_methods(ufunc_methods);
}
