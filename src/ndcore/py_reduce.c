/* py_reduce.c - argument parsing of reductions and scans (ops.def REDUCE,
 * REDUCE_PAIR, SCAN).  Placeholder until the reduction engine lands.       */
#include "ndcore/py_tensor.h"

PyObject *tl_py_reduce_call(tl_op op, PyObject *const *args, Py_ssize_t nargs, PyObject *kwnames)
{
  (void)args; (void)nargs; (void)kwnames;
  return PyErr_Format(PyExc_NotImplementedError, "%s() is not implemented yet", tl_op_infos[op].name);
}
