/* py_args.c - binding a vectorcall's arguments to named parameters.
 *
 * Every binding that is not generated from the registry parses its
 * arguments here, so a bad call gets the same TypeErrors everywhere:
 * too many positionals, an unknown or repeated keyword, a missing one.    */
#include "ndcore/bindings/py_tensor.h"

/* NumPy spellings PyTorch also accepts: dim may come as axis, keepdim as keepdims. */
const char *tl_py_kw_alias(const char *key)
{
  return !strcmp(key, "axis") ? "dim" : !strcmp(key, "keepdims") ? "keepdim" : NULL;
}

int tl_py_args_as_call(PyObject *const *args, size_t nargsf, PyObject *kwnames, PyObject **pos,
                       PyObject **kw)
{
  Py_ssize_t nargs = PyVectorcall_NARGS(nargsf);
  *pos = PyTuple_New(nargs);
  *kw = PyDict_New();
  if (!*pos || !*kw)
    goto fail;
  for (Py_ssize_t i = 0; i < nargs; i++)
    PyTuple_SET_ITEM(*pos, i, Py_NewRef(args[i]));
  for (Py_ssize_t k = 0; kwnames && k < PyTuple_GET_SIZE(kwnames); k++)
    if (PyDict_SetItem(*kw, PyTuple_GET_ITEM(kwnames, k), args[nargs + k]) < 0)
      goto fail;
  return 0;
fail:
  Py_CLEAR(*pos);
  Py_CLEAR(*kw);
  return -1;
}

int tl_py_bind_args(const char *func, PyObject *const *args, Py_ssize_t nargs, PyObject *kwnames,
                    const char *const *names, int npos, int nrequired, PyObject **values)
{
  int n = 0;
  while (names[n])
    n++;
  if (npos < 0 || npos > n)
    npos = n;
  for (int i = 0; i < n; i++)
    values[i] = i < nargs ? args[i] : NULL;
  if (nargs > npos) {
    PyErr_Format(PyExc_TypeError, "%s() takes at most %d positional arguments but %zd were given",
                 func, npos, nargs);
    return -1;
  }
  Py_ssize_t nkw = kwnames ? PyTuple_GET_SIZE(kwnames) : 0;
  for (Py_ssize_t k = 0; k < nkw; k++) {
    const char *key = PyUnicode_AsUTF8(PyTuple_GET_ITEM(kwnames, k));
    if (!key)
      return -1;
    int i = 0;
    while (i < n && strcmp(names[i], key))
      i++;
    const char *alias = i == n ? tl_py_kw_alias(key) : NULL;
    for (i = alias ? 0 : i; alias && i < n && strcmp(names[i], alias);)
      i++;
    if (i == n) {
      PyErr_Format(PyExc_TypeError, "%s() got an unexpected keyword argument '%s'", func, key);
      return -1;
    }
    if (values[i]) {
      PyErr_Format(PyExc_TypeError, "%s() got multiple values for argument '%s'", func, key);
      return -1;
    }
    values[i] = args[nargs + k];
  }
  for (int i = 0; i < nrequired; i++)
    if (!values[i]) {
      PyErr_Format(PyExc_TypeError, "%s() missing required argument '%s'", func, names[i]);
      return -1;
    }
  return 0;
}

/* torchlike.return_types, the namespace of the named tuples ops return:
 * found on the module or made there (and in sys.modules, so that pickle
 * finds the types by name).  A new reference. */
PyObject *tl_py_return_types(PyObject *module)
{
  PyObject *ns = PyObject_GetAttrString(module, "return_types");
  if (ns)
    return ns;
  PyErr_Clear();
  ns = PyModule_New("torchlike.return_types");
  if (!ns || PyModule_AddObjectRef(module, "return_types", ns) < 0 ||
      PyDict_SetItemString(PyImport_GetModuleDict(), "torchlike.return_types", ns) < 0) {
    Py_XDECREF(ns);
    return NULL;
  }
  return ns;
}

static PyStructSequence_Field pair_fields[] = {
    {"values", "the selected values"},
    {"indices", "where they were in the input, along the dim"},
    {NULL, NULL},
};

/* PyTorch's repr of a named result: each field on a line of its own, so
 * multi-line tensor reprs stay aligned. */
static PyObject *pair_repr(PyObject *self)
{
  return PyUnicode_FromFormat("%s(\nvalues=%R,\nindices=%R)", Py_TYPE(self)->tp_name,
                              PyStructSequence_GetItem(self, 0),
                              PyStructSequence_GetItem(self, 1));
}

PyTypeObject *tl_py_pair_type(PyObject *module, const char *qualname)
{
  PyObject *ns = tl_py_return_types(module);
  if (!ns)
    return NULL;
  PyStructSequence_Desc desc = {qualname, NULL, pair_fields, 2};
  PyTypeObject *type = PyStructSequence_NewType(&desc);
  if (type)
    type->tp_repr = pair_repr;
  if (type && PyObject_SetAttrString(ns, strrchr(qualname, '.') + 1, (PyObject *)type) < 0)
    Py_CLEAR(type);
  Py_DECREF(ns);
  return type;
}

PyObject *tl_py_pair(PyTypeObject *type, PyObject *values, PyObject *indices)
{
  PyObject *r = values && indices ? PyStructSequence_New(type) : NULL;
  if (!r) {
    Py_XDECREF(values);
    Py_XDECREF(indices);
    return NULL;
  }
  PyStructSequence_SetItem(r, 0, values);
  PyStructSequence_SetItem(r, 1, indices);
  return r;
}

int tl_py_int_arg(const char *func, const char *name, PyObject *o, int64_t *v)
{
  if (!o || o == Py_None)
    return 0;
  if (!PyIndex_Check(o) || PyBool_Check(o)) { /* 0-d int tensors pass: __index__ */
    PyErr_Format(PyExc_TypeError, "%s(): argument '%s' must be int, not %s", func, name,
                 Py_TYPE(o)->tp_name);
    return -1;
  }
  Py_ssize_t x = PyNumber_AsSsize_t(o, PyExc_OverflowError);
  if (x == -1 && PyErr_Occurred())
    return -1;
  *v = x;
  return 0;
}

int tl_py_bool_arg(PyObject *o, bool *v)
{
  if (!o || o == Py_None)
    return 0;
  int r = PyObject_IsTrue(o);
  if (r < 0)
    return -1;
  *v = r;
  return 0;
}

const tl_tensor *tl_py_tensor_arg(const char *func, const char *name, PyObject *o)
{
  if (!o) {
    PyErr_Format(PyExc_TypeError, "%s() missing required argument '%s'", func, name);
    return NULL;
  }
  if (!tl_py_is_tensor(o)) {
    PyErr_Format(PyExc_TypeError, "%s(): argument '%s' must be Tensor, not %s", func, name,
                 Py_TYPE(o)->tp_name);
    return NULL;
  }
  return tl_py_t(o);
}
