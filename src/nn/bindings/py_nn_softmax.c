/* py_nn_softmax.c - torchlike._C.softmax, log_softmax and their backward ops
 * (src/nn/softmax).  The arguments are bound by generated code
 * (signatures.txt, [nn_softmax]); these run the entry points. */
#include "ndcore/bindings/generated/args_nn_softmax.h"
#include "ndcore/bindings/py_tensor.h"
#include "nn/softmax/tl_softmax.h"

PyObject *tl_py_impl_softmax(tl_op op, const tl_py_args_softmax *a)
{
  tl_py_tensor *r = tl_py_tensor_alloc();
  if (!r)
    return NULL;
  if (tl_nn_softmax(op, tl_py_t(a->input), a->dim, a->dtype, &r->t) != TL_OK) {
    Py_DECREF(r);
    return tl_py_raise();
  }
  return (PyObject *)r;
}

PyObject *tl_py_impl_softmax_backward(tl_op op, const tl_py_args_softmax_backward *a)
{
  if (a->input_dtype < 0)
    return PyErr_Format(PyExc_TypeError, "%s(): argument 'input_dtype' must be a dtype, not None",
                        tl_op_infos[op].name);
  tl_py_tensor *r = tl_py_tensor_alloc();
  if (!r)
    return NULL;
  if (tl_nn_softmax_backward(op, tl_py_t(a->grad_output), tl_py_t(a->output), a->dim,
                             (tl_dtype)a->input_dtype, &r->t) != TL_OK) {
    Py_DECREF(r);
    return tl_py_raise();
  }
  return (PyObject *)r;
}
