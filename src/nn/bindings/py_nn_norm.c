/* py_nn_norm.c - torchlike._C.native_batch_norm, native_layer_norm,
 * native_group_norm, _fused_rms_norm and their backward ops (src/nn/norm).
 * The arguments are bound by generated code (signatures.txt, [nn_norm]);
 * these run the entry points and return their results as a tuple, None for
 * a result not computed (grad_weight/grad_bias without a weight). */
#include "ndcore/bindings/generated/args_nn_norm.h"
#include "ndcore/bindings/py_tensor.h"
#include "nn/norm/tl_norm.h"

#define OPT(o) ((o) ? tl_py_t(o) : NULL)

/* The n results as a tuple; on failure (status) they are released and the
 * error raised. */
static PyObject *results(tl_status status, tl_tensor *r, int n)
{
  PyObject *tuple = status == TL_OK ? PyTuple_New(n) : NULL;
  for (int i = 0; i < n; i++) {
    if (!tuple || !r[i].storage) {
      tl_tensor_release(&r[i]);
      if (tuple)
        PyTuple_SET_ITEM(tuple, i, Py_NewRef(Py_None));
      continue;
    }
    PyObject *t = tl_py_tensor_from(&r[i]);
    if (!t) {
      Py_CLEAR(tuple);
      continue;
    }
    PyTuple_SET_ITEM(tuple, i, t);
  }
  return tuple || PyErr_Occurred() ? tuple : tl_py_raise();
}

PyObject *tl_py_impl_batch_norm(tl_op op, const tl_py_args_batch_norm *a)
{
  (void)op;
  tl_tensor r[3] = {{0}};
  tl_status s = tl_nn_batch_norm(tl_py_t(a->input), OPT(a->weight), OPT(a->bias),
                                 OPT(a->running_mean), OPT(a->running_var), a->training,
                                 a->momentum, a->eps, &r[0], &r[1], &r[2]);
  return results(s, r, 3);
}

PyObject *tl_py_impl_batch_norm_backward(tl_op op, const tl_py_args_batch_norm_backward *a)
{
  (void)op;
  tl_tensor r[3] = {{0}};
  tl_status s = tl_nn_batch_norm_backward(tl_py_t(a->grad_out), tl_py_t(a->input), OPT(a->weight),
                                          tl_py_t(a->save_mean), tl_py_t(a->save_invstd),
                                          a->train, &r[0], &r[1], &r[2]);
  return results(s, r, 3);
}

PyObject *tl_py_impl_layer_norm(tl_op op, const tl_py_args_layer_norm *a)
{
  (void)op;
  tl_tensor r[3] = {{0}};
  tl_status s = tl_nn_layer_norm(tl_py_t(a->input), a->normalized_shape.n,
                                 a->normalized_shape.v, OPT(a->weight), OPT(a->bias), a->eps,
                                 &r[0], &r[1], &r[2]);
  return results(s, r, 3);
}

PyObject *tl_py_impl_layer_norm_backward(tl_op op, const tl_py_args_layer_norm_backward *a)
{
  (void)op;
  tl_tensor r[3] = {{0}};
  tl_status s = tl_nn_layer_norm_backward(
      tl_py_t(a->grad_out), tl_py_t(a->input), a->normalized_shape.n, a->normalized_shape.v,
      tl_py_t(a->mean), tl_py_t(a->rstd), OPT(a->weight), OPT(a->bias), &r[0], &r[1], &r[2]);
  return results(s, r, 3);
}

PyObject *tl_py_impl_group_norm(tl_op op, const tl_py_args_group_norm *a)
{
  (void)op;
  tl_tensor r[3] = {{0}};
  tl_status s = tl_nn_group_norm(tl_py_t(a->input), OPT(a->weight), OPT(a->bias), a->N, a->C,
                                 a->HxW, a->group, a->eps, &r[0], &r[1], &r[2]);
  return results(s, r, 3);
}

PyObject *tl_py_impl_group_norm_backward(tl_op op, const tl_py_args_group_norm_backward *a)
{
  (void)op;
  tl_tensor r[3] = {{0}};
  tl_status s = tl_nn_group_norm_backward(tl_py_t(a->grad_out), tl_py_t(a->input),
                                          tl_py_t(a->mean), tl_py_t(a->rstd), OPT(a->weight),
                                          a->N, a->C, a->HxW, a->group, &r[0], &r[1], &r[2]);
  return results(s, r, 3);
}

PyObject *tl_py_impl_rms_norm(tl_op op, const tl_py_args_rms_norm *a)
{
  (void)op;
  tl_tensor r[2] = {{0}};
  tl_status s = tl_nn_rms_norm(tl_py_t(a->input), a->normalized_shape.n, a->normalized_shape.v,
                               OPT(a->weight), a->has_eps ? a->eps : -1, &r[0], &r[1]);
  return results(s, r, 2);
}

PyObject *tl_py_impl_rms_norm_backward(tl_op op, const tl_py_args_rms_norm_backward *a)
{
  (void)op;
  tl_tensor r[2] = {{0}};
  tl_status s = tl_nn_rms_norm_backward(tl_py_t(a->grad_out), tl_py_t(a->input),
                                        a->normalized_shape.n, a->normalized_shape.v,
                                        tl_py_t(a->rstd), OPT(a->weight), &r[0], &r[1]);
  return results(s, r, 2);
}

PyObject *tl_py_impl_local_response_norm(tl_op op, const tl_py_args_local_response_norm *a)
{
  (void)op;
  tl_py_tensor *r = tl_py_tensor_alloc();
  if (!r)
    return NULL;
  if (tl_nn_local_response_norm(tl_py_t(a->input), a->size, a->alpha, a->beta, a->k, &r->t) !=
      TL_OK) {
    Py_DECREF(r);
    return tl_py_raise();
  }
  return (PyObject *)r;
}

PyObject *tl_py_impl_local_response_norm_backward(tl_op op,
                                                  const tl_py_args_local_response_norm_backward *a)
{
  (void)op;
  tl_py_tensor *r = tl_py_tensor_alloc();
  if (!r)
    return NULL;
  if (tl_nn_local_response_norm_backward(tl_py_t(a->grad_output), tl_py_t(a->input), a->size,
                                         a->alpha, a->beta, a->k, &r->t) != TL_OK) {
    Py_DECREF(r);
    return tl_py_raise();
  }
  return (PyObject *)r;
}
