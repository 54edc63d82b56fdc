/* py_dispatch.c - the kernel table seen from Python, for tests and reports:
 *
 *   _C._dispatch_table()  {op name: (kind, {device type: [dtype names with a kernel]})}
 *   _C._dispatch_lend_cpu_kernels(device_type, lend)
 *       test hook: give a host-memory test device ("fake") the CPU's kernels,
 *       or take them all away (tl_dispatch_lend_cpu_kernels).              */
#include "ndcore/bindings/py_tensor.h"
#include "ndcore/dispatch/tl_dispatch.h"

static const char *const device_type_names[TL_DEVICE_COUNT] = {
    [TL_DEVICE_CPU] = "cpu", [TL_DEVICE_CUDA] = "cuda", [TL_DEVICE_FAKE] = "fake"};

static const char *const kind_names[] = {[TL_OPKIND_UNARY] = "unary",
                                         [TL_OPKIND_BINARY] = "binary",
                                         [TL_OPKIND_WHERE] = "where",
                                         [TL_OPKIND_REDUCE] = "reduce",
                                         [TL_OPKIND_REDUCE_PAIR] = "reduce_pair",
                                         [TL_OPKIND_SCAN] = "scan",
                                         [TL_OPKIND_MATMUL] = "matmul",
                                         [TL_OPKIND_SORT] = "sort",
                                         [TL_OPKIND_CLAMP] = "clamp",
                                         [TL_OPKIND_INDEX] = "index",
                                         [TL_OPKIND_NN] = "nn",
                                         [TL_OPKIND_SUBSCRIPT] = "subscript",
                                         [TL_OPKIND_LINALG] = "linalg",
                                         [TL_OPKIND_RANDOM] = "random",
                                         [TL_OPKIND_FILL] = "fill",
                                         [TL_OPKIND_COPY] = "copy"};

static PyObject *dispatch_table(PyObject *self, PyObject *unused)
{
  (void)self;
  (void)unused;
  PyObject *table = PyDict_New(), *row = NULL, *dtypes = NULL;
  if (!table)
    return NULL;
  for (int op = 0; op < TL_OP_COUNT; op++) {
    row = PyDict_New();
    if (!row)
      goto fail;
    for (int dev = 0; dev < TL_DEVICE_COUNT; dev++) {
      dtypes = PyList_New(0);
      if (!dtypes)
        goto fail;
      for (int d = 0; d < TL_DTYPE_COUNT; d++) {
        if (!tl_dispatch_has((tl_op)op, (tl_device_type)dev, (tl_dtype)d))
          continue;
        PyObject *name = PyUnicode_FromString(tl_dtype_names[d]);
        if (!name || PyList_Append(dtypes, name) < 0) {
          Py_XDECREF(name);
          goto fail;
        }
        Py_DECREF(name);
      }
      if (PyDict_SetItemString(row, device_type_names[dev], dtypes) < 0)
        goto fail;
      Py_CLEAR(dtypes);
    }
    PyObject *entry = Py_BuildValue("(sO)", kind_names[tl_op_infos[op].kind], row);
    if (!entry || PyDict_SetItemString(table, tl_op_infos[op].name, entry) < 0) {
      Py_XDECREF(entry);
      goto fail;
    }
    Py_DECREF(entry);
    Py_CLEAR(row);
  }
  return table;

fail:
  Py_XDECREF(dtypes);
  Py_XDECREF(row);
  Py_DECREF(table);
  return NULL;
}

static PyObject *dispatch_lend_cpu_kernels(PyObject *self, PyObject *args)
{
  (void)self;
  const char *name;
  int lend;
  if (!PyArg_ParseTuple(args, "sp:_dispatch_lend_cpu_kernels", &name, &lend))
    return NULL;
  for (int dev = 0; dev < TL_DEVICE_COUNT; dev++)
    if (!strcmp(name, device_type_names[dev])) {
      if (tl_dispatch_lend_cpu_kernels((tl_device_type)dev, lend) != TL_OK)
        return tl_py_raise();
      Py_RETURN_NONE;
    }
  return PyErr_Format(PyExc_ValueError, "unknown device type '%s'", name);
}

static PyMethodDef dispatch_functions[] = {
    {"_dispatch_table", dispatch_table, METH_NOARGS,
     "{op name: (kind, {device type: [dtype names with a kernel]})}"},
    {"_dispatch_lend_cpu_kernels", dispatch_lend_cpu_kernels, METH_VARARGS,
     "test hook: give a host-memory test device the CPU's kernels (or take them away)"},
    {NULL, NULL, 0, NULL},
};

int tl_py_dispatch_init(PyObject *module)
{
  return PyModule_AddFunctions(module, dispatch_functions);
}
