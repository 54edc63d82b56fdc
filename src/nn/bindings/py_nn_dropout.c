/* py_nn_dropout.c - torchlike._C._dropout and native_dropout_backward
 * (src/nn/dropout).  The arguments are bound by generated code
 * (signatures.txt, [nn_dropout]); these run the entry points. */
#include "ndcore/bindings/generated/args_nn_dropout.h"
#include "ndcore/bindings/py_tensor.h"
#include "nn/dropout/tl_dropout.h"

PyObject *tl_py_impl_dropout(tl_op op, const tl_py_args_dropout *a)
{
  (void)op;
  if (a->batch_dims < 0 || a->batch_dims > TL_MAX_DIMS)
    return PyErr_Format(PyExc_ValueError, "_fused_dropout(): batch_dims must be in [0, %d], got %lld",
                        TL_MAX_DIMS, (long long)a->batch_dims);
  tl_py_tensor *y = a->out ? NULL : tl_py_tensor_alloc(), *m = tl_py_tensor_alloc();
  if (!m || (!a->out && !y)) {
    Py_XDECREF(y);
    Py_XDECREF(m);
    return NULL;
  }
  tl_tensor *yt = a->out ? tl_py_t(a->out) : &y->t;
  tl_generator *g = tl_py_generator_for(a->generator, tl_tensor_device(tl_py_t(a->input)));
  if (!g || tl_nn_dropout(g, tl_py_t(a->input), a->p, (int)a->batch_dims, a->alpha, yt, a->out != NULL,
                    &m->t) != TL_OK) {
    Py_XDECREF(y);
    Py_DECREF(m);
    return tl_py_raise();
  }
  return a->out ? Py_BuildValue("(ON)", a->out, m) : Py_BuildValue("(NN)", y, m);
}

PyObject *tl_py_impl_dropout_backward(tl_op op, const tl_py_args_dropout_backward *a)
{
  (void)op;
  tl_py_tensor *r = tl_py_tensor_alloc();
  if (!r)
    return NULL;
  if (tl_nn_dropout_backward(tl_py_t(a->grad_output), tl_py_t(a->mask), a->scale, &r->t) != TL_OK) {
    Py_DECREF(r);
    return tl_py_raise();
  }
  return (PyObject *)r;
}
