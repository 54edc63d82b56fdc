/* py_nn_rnn.c - torchlike._C's fused recurrent cells and their backward ops
 * (src/nn/rnn).  The arguments are bound by generated code (signatures.txt,
 * [nn_rnn]); these run the entry points. */
#include "ndcore/bindings/generated/args_nn_rnn.h"
#include "nn/bindings/py_nn_results.h"
#include "nn/rnn/tl_rnn.h"

PyObject *tl_py_impl_fused_lstm_cell(tl_op op, const tl_py_args_fused_lstm_cell *a)
{
  (void)op;
  tl_py_tensor *r[3];
  if (tl_py_nn_alloc(r, 3) < 0)
    return NULL;
  tl_status s = tl_nn_lstm_cell(tl_py_t(a->input_gates), tl_py_t(a->hidden_gates), tl_py_t(a->cx),
                                tl_py_nn_opt(a->input_bias), tl_py_nn_opt(a->hidden_bias),
                                &r[0]->t, &r[1]->t, &r[2]->t);
  return tl_py_nn_pack(r, 3, s);
}

PyObject *tl_py_impl_fused_lstm_cell_backward(tl_op op,
                                              const tl_py_args_fused_lstm_cell_backward *a)
{
  (void)op;
  tl_py_tensor *r[3];
  if (tl_py_nn_alloc(r, 3) < 0)
    return NULL;
  tl_status s = tl_nn_lstm_cell_backward(tl_py_nn_opt(a->grad_hy), tl_py_nn_opt(a->grad_cy),
                                         tl_py_t(a->cx), tl_py_t(a->cy), tl_py_t(a->workspace),
                                         a->has_bias, &r[0]->t, &r[1]->t, &r[2]->t);
  return tl_py_nn_pack(r, 3, s);
}

PyObject *tl_py_impl_fused_gru_cell(tl_op op, const tl_py_args_fused_gru_cell *a)
{
  (void)op;
  tl_py_tensor *r[2];
  if (tl_py_nn_alloc(r, 2) < 0)
    return NULL;
  tl_status s = tl_nn_gru_cell(tl_py_t(a->input_gates), tl_py_t(a->hidden_gates), tl_py_t(a->hx),
                               tl_py_nn_opt(a->input_bias), tl_py_nn_opt(a->hidden_bias),
                               &r[0]->t, &r[1]->t);
  return tl_py_nn_pack(r, 2, s);
}

PyObject *tl_py_impl_fused_gru_cell_backward(tl_op op, const tl_py_args_fused_gru_cell_backward *a)
{
  (void)op;
  tl_py_tensor *r[5];
  if (tl_py_nn_alloc(r, 5) < 0)
    return NULL;
  tl_status s = tl_nn_gru_cell_backward(tl_py_t(a->grad_hy), tl_py_t(a->workspace), a->has_bias,
                                        &r[0]->t, &r[1]->t, &r[2]->t, &r[3]->t, &r[4]->t);
  return tl_py_nn_pack(r, 5, s);
}

PyObject *tl_py_impl_fused_rnn_cell(tl_op op, const tl_py_args_fused_rnn_cell *a)
{
  (void)op;
  tl_py_tensor *r = tl_py_tensor_alloc();
  if (!r)
    return NULL;
  if (tl_nn_rnn_cell(tl_py_t(a->input_gates), tl_py_t(a->hidden_gates),
                     tl_py_nn_opt(a->input_bias), tl_py_nn_opt(a->hidden_bias), a->relu,
                     &r->t) != TL_OK) {
    Py_DECREF(r);
    return tl_py_raise();
  }
  return (PyObject *)r;
}

PyObject *tl_py_impl_rnn_layer(tl_op op, const tl_py_args_rnn_layer *a)
{
  (void)op;
  tl_py_tensor *r[4];
  if (tl_py_nn_alloc(r, 4) < 0)
    return NULL;
  tl_status s = tl_nn_rnn_layer(tl_py_t(a->input), tl_py_t(a->hx), tl_py_nn_opt(a->cx),
                                tl_py_t(a->weight_ih), tl_py_t(a->weight_hh),
                                tl_py_nn_opt(a->bias_ih), tl_py_nn_opt(a->bias_hh),
                                tl_py_nn_opt(a->weight_hr), tl_py_nn_opt(a->batch_sizes), a->mode,
                                a->reverse, &r[0]->t, &r[1]->t, &r[2]->t, &r[3]->t);
  return tl_py_nn_pack(r, 4, s);
}

PyObject *tl_py_impl_rnn_layer_backward(tl_op op, const tl_py_args_rnn_layer_backward *a)
{
  (void)op;
  tl_py_tensor *r[8];
  if (tl_py_nn_alloc(r, 8) < 0)
    return NULL;
  tl_status s = tl_nn_rnn_layer_backward(
      tl_py_nn_opt(a->grad_output), tl_py_nn_opt(a->grad_hy), tl_py_nn_opt(a->grad_cy),
      tl_py_t(a->input), tl_py_t(a->weight_ih), tl_py_t(a->weight_hh), tl_py_nn_opt(a->weight_hr),
      tl_py_t(a->workspace), tl_py_nn_opt(a->batch_sizes), a->mode, a->reverse, a->has_bias,
      a->input_grad, &r[0]->t, &r[1]->t, &r[2]->t, &r[3]->t, &r[4]->t, &r[5]->t, &r[6]->t,
      &r[7]->t);
  return tl_py_nn_pack(r, 8, s);
}
