/* op_policy.c - the hook selective activation checkpointing runs every
 * recorded op call through (torchlike/utils/checkpoint.py:
 * create_selective_checkpoint_contexts).
 *
 * While a policy is set on this thread, the recorder hands each out-of-place
 * call it records to policy(name, impl, args, kwargs) instead of calling
 * impl(*args, **kwargs) itself; the policy returns the op's result: computed
 * (and kept, when the op is to be saved) in the checkpoint's forward, or the
 * kept result in its recomputation, so a saved op does not run twice.  The
 * node is recorded as usual from that result.  Unset, the recorder tests one
 * pointer.                                                                  */
#include <Python.h>

#include "grad/py_grad.h"

_Thread_local PyObject *tl_grad_op_policy;
int tl_grad_op_policies; /* threads with a policy set: the recorder's first test is a
                          * plain load, not a thread-local one */

PyObject *tl_grad_policy_call(int formula, PyObject *impl, PyObject *const *args, size_t nargsf,
                              PyObject *kwnames)
{
  PyObject *policy = Py_NewRef(tl_grad_op_policy), *result = NULL, *pos = NULL, *kw = NULL;
  PyObject *name = PyUnicode_FromString(tl_grad_formula_name(formula));
  if (!name || tl_py_args_as_call(args, nargsf, kwnames, &pos, &kw) < 0)
    goto fail;
  result = PyObject_CallFunctionObjArgs(policy, name, impl, pos, kw, NULL);
fail:
  Py_DECREF(policy);
  Py_XDECREF(name);
  Py_XDECREF(pos);
  Py_XDECREF(kw);
  return result;
}

/* _set_op_policy(fn or None) -> the previous one (None when none) */
static PyObject *py_set_op_policy(PyObject *self, PyObject *fn)
{
  (void)self;
  if (fn != Py_None && !PyCallable_Check(fn))
    return PyErr_Format(PyExc_TypeError, "_set_op_policy expects a callable or None, not %s",
                        Py_TYPE(fn)->tp_name);
  PyObject *prev = tl_grad_op_policy ? tl_grad_op_policy : Py_NewRef(Py_None);
  tl_grad_op_policies += (fn != Py_None) - (prev != Py_None);
  tl_grad_op_policy = fn == Py_None ? NULL : Py_NewRef(fn);
  return prev;
}

static PyMethodDef policy_functions[] = {
    {"_set_op_policy", py_set_op_policy, METH_O, NULL},
    {NULL, NULL, 0, NULL},
};

int tl_py_op_policy_init(PyObject *module)
{
  return PyModule_AddFunctions(module, policy_functions);
}
