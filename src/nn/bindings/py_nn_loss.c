/* py_nn_loss.c - torchlike._C.nll_loss_nd, nll_loss_backward,
 * _pointwise_loss and _pointwise_loss_backward (src/nn/loss).  The arguments are bound by generated code
 * (signatures.txt, [nn_loss]); these run the entry points. */
#include "ndcore/bindings/generated/args_nn_loss.h"
#include "ndcore/bindings/py_tensor.h"
#include "nn/loss/tl_loss.h"

/* (a, b) as a tuple of new tensor objects, which take over their storage. */
static PyObject *pair_of(tl_tensor *a, tl_tensor *b)
{
  PyObject *x = tl_py_tensor_from(a), *y = x ? tl_py_tensor_from(b) : NULL;
  if (!y) {
    Py_XDECREF(x);
    tl_tensor_release(b);
    return NULL;
  }
  return Py_BuildValue("(NN)", x, y);
}

PyObject *tl_py_impl_nll_loss(tl_op op, const tl_py_args_nll_loss *a)
{
  (void)op;
  tl_tensor out = {0}, tw = {0};
  if (tl_nn_nll_loss(tl_py_t(a->input), tl_py_t(a->target), a->weight ? tl_py_t(a->weight) : NULL,
                     a->reduction, a->ignore_index, &out, &tw) != TL_OK)
    return tl_py_raise();
  return pair_of(&out, &tw);
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
  return pair_of(&dx, &dt);
}
