/* py_nn_loss.c - torchlike._C.nll_loss_nd, nll_loss_backward, _cross_entropy,
 * _multi_margin_loss, _multilabel_margin_loss, _ctc_loss (and their backward),
 * _pointwise_loss and _pointwise_loss_backward (src/nn/loss).  The arguments
 * are bound by generated code (signatures.txt, [nn_loss]); these run the
 * entry points. */
#include "ndcore/bindings/generated/args_nn_loss.h"
#include "ndcore/bindings/py_tensor.h"
#include "nn/bindings/py_nn_results.h"
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

/* ---- cross_entropy, the margin losses, ctc_loss ---- */

PyObject *tl_py_impl_cross_entropy(tl_op op, const tl_py_args_cross_entropy *a)
{
  (void)op;
  tl_py_tensor *r[3];
  if (tl_py_nn_alloc(r, 3) < 0)
    return NULL;
  tl_status status = tl_nn_cross_entropy(tl_py_t(a->input), tl_py_t(a->target), OPT(a->weight),
                                         a->reduction, a->ignore_index, a->label_smoothing,
                                         &r[0]->t, &r[1]->t, &r[2]->t);
  return tl_py_nn_pack(r, 3, status);
}

PyObject *tl_py_impl_cross_entropy_backward(tl_op op, const tl_py_args_cross_entropy_backward *a)
{
  (void)op;
  tl_py_tensor *r[2];
  if (tl_py_nn_alloc(r, 2) < 0)
    return NULL;
  tl_status status = tl_nn_cross_entropy_backward(
      tl_py_t(a->grad_output), tl_py_t(a->input), tl_py_t(a->target), OPT(a->weight),
      a->reduction, a->ignore_index, a->label_smoothing, tl_py_t(a->lse), tl_py_t(a->total_weight),
      &r[0]->t, &r[1]->t);
  return tl_py_nn_pack(r, 2, status);
}

PyObject *tl_py_impl_multi_margin_loss(tl_op op, const tl_py_args_multi_margin_loss *a)
{
  (void)op;
  tl_py_tensor *r[1];
  if (tl_py_nn_alloc(r, 1) < 0)
    return NULL;
  tl_status status = tl_nn_multi_margin_loss(tl_py_t(a->input), tl_py_t(a->target), a->p,
                                             a->margin, OPT(a->weight), a->reduction, &r[0]->t);
  return status == TL_OK ? (PyObject *)r[0] : (Py_DECREF(r[0]), tl_py_raise());
}

PyObject *tl_py_impl_multi_margin_loss_backward(tl_op op,
                                                const tl_py_args_multi_margin_loss_backward *a)
{
  (void)op;
  tl_py_tensor *r[1];
  if (tl_py_nn_alloc(r, 1) < 0)
    return NULL;
  tl_status status = tl_nn_multi_margin_loss_backward(
      tl_py_t(a->grad_output), tl_py_t(a->input), tl_py_t(a->target), a->p, a->margin,
      OPT(a->weight), a->reduction, &r[0]->t);
  return status == TL_OK ? (PyObject *)r[0] : (Py_DECREF(r[0]), tl_py_raise());
}

PyObject *tl_py_impl_multilabel_margin_loss(tl_op op, const tl_py_args_multilabel_margin_loss *a)
{
  (void)op;
  tl_py_tensor *r[2];
  if (tl_py_nn_alloc(r, 2) < 0)
    return NULL;
  tl_status status = tl_nn_multilabel_margin_loss(tl_py_t(a->input), tl_py_t(a->target),
                                                  a->reduction, &r[0]->t, &r[1]->t);
  return tl_py_nn_pack(r, 2, status);
}

PyObject *tl_py_impl_multilabel_margin_loss_backward(
    tl_op op, const tl_py_args_multilabel_margin_loss_backward *a)
{
  (void)op;
  tl_py_tensor *r[1];
  if (tl_py_nn_alloc(r, 1) < 0)
    return NULL;
  tl_status status = tl_nn_multilabel_margin_loss_backward(
      tl_py_t(a->grad_output), tl_py_t(a->input), tl_py_t(a->target), a->reduction,
      tl_py_t(a->is_target), &r[0]->t);
  return status == TL_OK ? (PyObject *)r[0] : (Py_DECREF(r[0]), tl_py_raise());
}

PyObject *tl_py_impl_ctc_loss(tl_op op, const tl_py_args_ctc_loss *a)
{
  (void)op;
  tl_py_tensor *r[2];
  if (tl_py_nn_alloc(r, 2) < 0)
    return NULL;
  tl_status status = tl_nn_ctc_loss(tl_py_t(a->log_probs), tl_py_t(a->targets),
                                    a->input_lengths.v, a->input_lengths.n, a->target_lengths.v,
                                    a->target_lengths.n, a->blank, a->zero_infinity, &r[0]->t,
                                    &r[1]->t);
  return tl_py_nn_pack(r, 2, status);
}

PyObject *tl_py_impl_ctc_loss_backward(tl_op op, const tl_py_args_ctc_loss_backward *a)
{
  (void)op;
  tl_py_tensor *r[1];
  if (tl_py_nn_alloc(r, 1) < 0)
    return NULL;
  tl_status status = tl_nn_ctc_loss_backward(
      tl_py_t(a->grad), tl_py_t(a->log_probs), tl_py_t(a->targets), a->input_lengths.v,
      a->input_lengths.n, a->target_lengths.v, a->target_lengths.n, tl_py_t(a->neg_log_likelihood),
      tl_py_t(a->log_alpha), a->blank, a->zero_infinity, &r[0]->t);
  return status == TL_OK ? (PyObject *)r[0] : (Py_DECREF(r[0]), tl_py_raise());
}
