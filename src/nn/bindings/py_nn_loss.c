/* py_nn_loss.c - torchlike._C.nll_loss_nd and nll_loss_backward
 * (src/nn/loss).  The arguments are bound by generated code
 * (signatures.txt, [nn_loss]); these run the entry points. */
#include "ndcore/bindings/generated/bindings.h"
#include "ndcore/bindings/py_tensor.h"
#include "nn/loss/tl_loss.h"

PyObject *tl_py_impl_nll_loss(tl_op op, const tl_py_args_nll_loss *a)
{
  (void)op;
  tl_tensor out = {0}, tw = {0};
  if (tl_nn_nll_loss(tl_py_t(a->input), tl_py_t(a->target), a->weight ? tl_py_t(a->weight) : NULL,
                     a->reduction, a->ignore_index, &out, &tw) != TL_OK)
    return tl_py_raise();
  PyObject *o = tl_py_tensor_from(&out), *t = o ? tl_py_tensor_from(&tw) : NULL;
  if (!t) {
    Py_XDECREF(o);
    tl_tensor_release(&tw);
    return NULL;
  }
  return Py_BuildValue("(NN)", o, t);
}

PyObject *tl_py_impl_nll_loss_backward(tl_op op, const tl_py_args_nll_loss_backward *a)
{
  (void)op;
  tl_py_tensor *r = tl_py_tensor_alloc();
  if (!r)
    return NULL;
  if (tl_nn_nll_loss_backward(tl_py_t(a->grad_output), tl_py_t(a->input), tl_py_t(a->target),
                              a->weight ? tl_py_t(a->weight) : NULL, a->reduction,
                              a->ignore_index, tl_py_t(a->total_weight), &r->t) != TL_OK) {
    Py_DECREF(r);
    return tl_py_raise();
  }
  return (PyObject *)r;
}

#define OPT(o) ((o) ? tl_py_t(o) : NULL)

PyObject *tl_py_impl_pointwise_loss(tl_op op, const tl_py_args_pointwise_loss *a)
{
  (void)op;
  tl_py_tensor *r = tl_py_tensor_alloc();
  if (!r)
    return NULL;
  if (tl_nn_pointwise_loss(tl_py_t(a->input), tl_py_t(a->target), OPT(a->weight),
                           OPT(a->pos_weight), a->kind, a->param, a->reduction, &r->t) != TL_OK) {
    Py_DECREF(r);
    return tl_py_raise();
  }
  return (PyObject *)r;
}

PyObject *tl_py_impl_pointwise_loss_backward(tl_op op, const tl_py_args_pointwise_loss_backward *a)
{
  (void)op;
  tl_tensor dx = {0}, dt = {0};
  if (tl_nn_pointwise_loss_backward(tl_py_t(a->grad_output), tl_py_t(a->input),
                                    tl_py_t(a->target), OPT(a->weight), OPT(a->pos_weight),
                                    a->kind, a->param, a->reduction, &dx, &dt) != TL_OK)
    return tl_py_raise();
  PyObject *x = tl_py_tensor_from(&dx), *t = x ? tl_py_tensor_from(&dt) : NULL;
  if (!t) {
    Py_XDECREF(x);
    tl_tensor_release(&dt);
    return NULL;
  }
  return Py_BuildValue("(NN)", x, t);
}
