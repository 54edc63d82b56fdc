/* py_dispatch.c - the kernel table seen from Python, for tests and reports:
 *
 *   _C._dispatch_table()  {op name: (kind, {device type: [dtype names with a kernel]})}
 *   _C._dispatch_lend_cpu_kernels(device_type, lend)
 *       test hook: give a host-memory test device ("fake") the CPU's kernels,
 *       or take them all away (tl_dispatch_lend_cpu_kernels).
 *   _C._dispatch_lookup(op, device_type, dtype)
 *       what an op call finds in the table, without running it: "loop" (an
 *       inner loop the CPU iterator drives), "set" (a kernel set, or a
 *       device's whole-plan elementwise kernel), or the NotImplementedError.
 *   _C._fake_emulate_device()
 *       test hook, one-way: the fake device gets kernels of its own that are
 *       the CPU's (tl_emulate.h; nn's conv, pool and norm families:
 *       tl_nn_emulate_device), so the device paths run without a GPU.
 *   _C._hosted_calls()
 *       test hook: {wrapper name: calls} of the linalg ops run on the host
 *       for a device's tensors (src/gpu/linalg/hosted.c), so tests can tell
 *       which ops took a device path.
 *   _C._iter_plan(tensors)
 *       the iterator plan (tl_iter_init) over tensors, output first: shape,
 *       byte strides per operand, byte offsets of the first elements in their
 *       storages, and the host-scalar mask.  Pure index math: it works on any
 *       device and never reads the tensors' data.                         */
#include "ndcore/bindings/py_tensor.h"
#include "gpu/linalg/tl_gpu_linalg.h"
#include "ndcore/dispatch/tl_dispatch.h"
#include "ndcore/dispatch/tl_emulate.h"
#include "nn/tl_nn.h"
#include "ndcore/tensor/tl_dtype.h"
#include "nn/tl_nn.h"


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
      if (PyDict_SetItemString(row, tl_device_type_name(dev), dtypes) < 0)
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
    if (!strcmp(name, tl_device_type_name(dev))) {
      if (tl_dispatch_lend_cpu_kernels((tl_device_type)dev, lend) != TL_OK)
        return tl_py_raise();
      Py_RETURN_NONE;
    }
  return PyErr_Format(PyExc_ValueError, "unknown device type '%s'", name);
}

static PyObject *dispatch_lookup(PyObject *self, PyObject *args)
{
  (void)self;
  const char *op_name, *device_name, *dtype_name;
  int op = -1, dev = -1, dtype = -1;
  if (!PyArg_ParseTuple(args, "sss:_dispatch_lookup", &op_name, &device_name, &dtype_name))
    return NULL;
  for (int i = 0; i < TL_OP_COUNT && op < 0; i++)
    if (!strcmp(op_name, tl_op_infos[i].name))
      op = i;
  for (int i = 0; i < TL_DEVICE_COUNT && dev < 0; i++)
    if (!strcmp(device_name, tl_device_type_name(i)))
      dev = i;
  for (int i = 0; i < TL_DTYPE_COUNT && dtype < 0; i++)
    if (!strcmp(dtype_name, tl_dtype_names[i]))
      dtype = i;
  if (op < 0 || dev < 0 || dtype < 0)
    return PyErr_Format(PyExc_ValueError, "unknown op, device type or dtype: %s, %s, %s", op_name,
                        device_name, dtype_name);
  const tl_kernel *k = tl_dispatch_supports((tl_op)op, (tl_device){(tl_device_type)dev, 0},
                                            (tl_dtype)dtype);
  if (!k)
    return tl_py_raise();
  return PyUnicode_FromString(k->loop ? "loop" : "set");
}

static PyObject *fake_emulate_device(PyObject *self, PyObject *unused)
{
  (void)self;
  (void)unused;
  if (tl_dispatch_emulate_device() != TL_OK)
    return tl_py_raise();
  tl_nn_emulate_device(); /* src/nn's families too */
  tl_py_fft_emulate_device(); /* and the FFT primitives (py_fft.c) */
  Py_RETURN_NONE;
}

static PyObject *hosted_calls(PyObject *self, PyObject *unused)
{
  (void)self;
  (void)unused;
  const char *names[64];
  int64_t calls[64];
  int n = tl_gpu_hosted_calls(names, calls, 64);
  PyObject *d = PyDict_New();
  for (int i = 0; d && i < n; i++) {
    PyObject *v = PyLong_FromLongLong(calls[i]);
    if (!v || PyDict_SetItemString(d, names[i], v) < 0) {
      Py_XDECREF(v);
      Py_CLEAR(d);
      break;
    }
    Py_DECREF(v);
  }
  return d;
}

static PyObject *iter_plan(PyObject *self, PyObject *arg)
{
  (void)self;
  const tl_tensor *ops[TL_ITER_MAX_OPERANDS];
  PyObject *seq = PySequence_Fast(arg, "_iter_plan() takes a sequence of tensors");
  PyObject *shape = NULL, *strides = NULL, *offsets = NULL, *result = NULL;
  tl_iter it;
  if (!seq)
    return NULL;
  Py_ssize_t n = PySequence_Fast_GET_SIZE(seq);
  if (n < 1 || n > TL_ITER_MAX_OPERANDS) {
    PyErr_Format(PyExc_ValueError, "_iter_plan() takes 1 to %d tensors", TL_ITER_MAX_OPERANDS);
    goto fail;
  }
  for (Py_ssize_t k = 0; k < n; k++) {
    PyObject *o = PySequence_Fast_GET_ITEM(seq, k);
    if (!tl_py_is_tensor(o)) {
      PyErr_SetString(PyExc_TypeError, "_iter_plan() takes tensors");
      goto fail;
    }
    ops[k] = tl_py_t(o);
  }
  if (tl_iter_init(&it, (int)n, ops, NULL) != TL_OK) {
    tl_py_raise();
    goto fail;
  }
  if (!(shape = PyTuple_New(it.ndim)) || !(strides = PyTuple_New(n)) || !(offsets = PyTuple_New(n)))
    goto fail;
  for (int d = 0; d < it.ndim; d++)
    PyTuple_SET_ITEM(shape, d, PyLong_FromLongLong(it.shape[d]));
  for (Py_ssize_t k = 0; k < n; k++) {
    PyObject *row = PyTuple_New(it.ndim);
    if (!row)
      goto fail;
    for (int d = 0; d < it.ndim; d++)
      PyTuple_SET_ITEM(row, d, PyLong_FromLongLong(it.strides[k][d]));
    PyTuple_SET_ITEM(strides, k, row);
    PyTuple_SET_ITEM(offsets, k,
                     PyLong_FromLongLong((long long)(it.data[k] - (char *)ops[k]->storage->data)));
  }
  result = Py_BuildValue("{sisOsOsOsI}", "ndim", it.ndim, "shape", shape, "strides", strides,
                         "offsets", offsets, "host_scalar", (unsigned)it.host_scalar);
fail:
  Py_XDECREF(shape);
  Py_XDECREF(strides);
  Py_XDECREF(offsets);
  Py_DECREF(seq);
  return result;
}

static PyMethodDef dispatch_functions[] = {
    {"_dispatch_table", dispatch_table, METH_NOARGS,
     "{op name: (kind, {device type: [dtype names with a kernel]})}"},
    {"_dispatch_lend_cpu_kernels", dispatch_lend_cpu_kernels, METH_VARARGS,
     "test hook: give a host-memory test device the CPU's kernels (or take them away)"},
    {"_dispatch_lookup", dispatch_lookup, METH_VARARGS,
     "what an op call finds in the kernel table: 'loop', 'set', or the NotImplementedError"},
    {"_fake_emulate_device", fake_emulate_device, METH_NOARGS,
     "test hook, one-way: the fake device runs the CPU's kernels through the device paths"},
    {"_hosted_calls", hosted_calls, METH_NOARGS,
     "test hook: {name: calls} of the linalg wrappers run on the host for device tensors"},
    {"_iter_plan", iter_plan, METH_O,
     "the iterator plan over tensors (output first): shape, byte strides and offsets"},
    {NULL, NULL, 0, NULL},
};

int tl_py_dispatch_init(PyObject *module)
{
  return PyModule_AddFunctions(module, dispatch_functions);
}
