/* py_nn_embedding.c - torchlike._C.embedding, _embedding_bag and their
 * backward ops (src/nn/embedding).  The arguments are bound by generated
 * code (signatures.txt, [nn_embedding]); these run the entry points. */
#include "ndcore/bindings/generated/args_nn_embedding.h"
#include "ndcore/bindings/py_tensor.h"
#include "nn/embedding/tl_embedding.h"

static PyObject *one(tl_py_tensor *r, tl_status status)
{
  if (status != TL_OK) {
    Py_DECREF(r);
    return tl_py_raise();
  }
  return (PyObject *)r;
}

PyObject *tl_py_impl_embedding(tl_op op, const tl_py_args_embedding *a)
{
  (void)op;
  tl_py_tensor *r = tl_py_tensor_alloc();
  return r ? one(r, tl_nn_embedding(tl_py_t(a->weight), tl_py_t(a->indices), &r->t)) : NULL;
}

PyObject *tl_py_impl_embedding_backward(tl_op op, const tl_py_args_embedding_backward *a)
{
  (void)op;
  tl_py_tensor *r = tl_py_tensor_alloc();
  return r ? one(r, tl_nn_embedding_backward(tl_py_t(a->grad_output), tl_py_t(a->indices),
                                             a->num_weights, a->padding_idx,
                                             a->scale_grad_by_freq, &r->t))
           : NULL;
}

static int bag_mode(int64_t mode, tl_bag_mode *m)
{
  if (mode < 0 || mode > 2) {
    PyErr_Format(PyExc_ValueError, "_embedding_bag(): mode must be 0 (sum), 1 (mean) or 2 (max), "
                                   "got %lld", (long long)mode);
    return -1;
  }
  *m = mode == 0 ? TL_BAG_SUM : mode == 1 ? TL_BAG_MEAN : TL_BAG_MAX;
  return 0;
}

PyObject *tl_py_impl_embedding_bag(tl_op op, const tl_py_args_embedding_bag *a)
{
  (void)op;
  tl_bag_mode mode;
  if (bag_mode(a->mode, &mode) < 0)
    return NULL;
  tl_py_tensor *r[4] = {NULL};
  for (int i = 0; i < 4; i++)
    if (!(r[i] = tl_py_tensor_alloc()))
      goto fail;
  if (tl_nn_embedding_bag(tl_py_t(a->weight), tl_py_t(a->indices),
                          a->offsets ? tl_py_t(a->offsets) : NULL, mode,
                          a->per_sample_weights ? tl_py_t(a->per_sample_weights) : NULL,
                          a->include_last_offset, a->padding_idx, &r[0]->t, &r[1]->t, &r[2]->t,
                          &r[3]->t) != TL_OK) {
    tl_py_raise();
    goto fail;
  }
  return Py_BuildValue("(NNNN)", r[0], r[1], r[2], r[3]);
fail:
  for (int i = 0; i < 4; i++)
    Py_XDECREF(r[i]);
  return NULL;
}

PyObject *tl_py_impl_embedding_bag_backward(tl_op op, const tl_py_args_embedding_bag_backward *a)
{
  (void)op;
  tl_bag_mode mode;
  if (bag_mode(a->mode, &mode) < 0)
    return NULL;
  tl_py_tensor *r = tl_py_tensor_alloc();
  return r ? one(r, tl_nn_embedding_bag_backward(
                        tl_py_t(a->grad), tl_py_t(a->indices), tl_py_t(a->offset2bag),
                        tl_py_t(a->bag_size), tl_py_t(a->max_indices),
                        a->per_sample_weights ? tl_py_t(a->per_sample_weights) : NULL,
                        a->num_weights, mode, a->padding_idx, &r->t))
           : NULL;
}
