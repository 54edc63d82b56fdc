/* py_nn_grid.c - torchlike._C's grid_sampler, affine_grid_generator and
 * their backward ops (src/nn/grid).  The arguments are bound by generated
 * code (signatures.txt, [nn_grid]); these run the entry points. */
#include "ndcore/bindings/generated/args_nn_grid.h"
#include "nn/bindings/py_nn_results.h"
#include "nn/grid/tl_grid.h"

static PyObject *one(tl_py_tensor *r, tl_status status)
{
  if (status != TL_OK) {
    Py_DECREF(r);
    return tl_py_raise();
  }
  return (PyObject *)r;
}

PyObject *tl_py_impl_grid_sampler(tl_op op, const tl_py_args_grid_sampler *a)
{
  (void)op;
  tl_py_tensor *r = tl_py_tensor_alloc();
  return r ? one(r, tl_nn_grid_sampler(tl_py_t(a->input), tl_py_t(a->grid), a->interpolation_mode,
                                       a->padding_mode, a->align_corners, &r->t))
           : NULL;
}

PyObject *tl_py_impl_grid_sampler_backward(tl_op op, const tl_py_args_grid_sampler_backward *a)
{
  (void)op;
  tl_py_tensor *r[2]; /* grad_input, grad_grid */
  if (tl_py_nn_alloc(r, 2) < 0)
    return NULL;
  return tl_py_nn_pack(r, 2, tl_nn_grid_sampler_backward(
                                 tl_py_t(a->grad_output), tl_py_t(a->input), tl_py_t(a->grid),
                                 a->interpolation_mode, a->padding_mode, a->align_corners,
                                 &r[0]->t, &r[1]->t));
}

PyObject *tl_py_impl_affine_grid_generator(tl_op op, const tl_py_args_affine_grid_generator *a)
{
  (void)op;
  tl_py_tensor *r = tl_py_tensor_alloc();
  return r ? one(r, tl_nn_affine_grid(tl_py_t(a->theta), a->size.n, a->size.v, a->align_corners,
                                      &r->t))
           : NULL;
}

PyObject *tl_py_impl_affine_grid_generator_backward(
    tl_op op, const tl_py_args_affine_grid_generator_backward *a)
{
  (void)op;
  tl_py_tensor *r = tl_py_tensor_alloc();
  return r ? one(r, tl_nn_affine_grid_backward(tl_py_t(a->grad), a->size.n, a->size.v,
                                               a->align_corners, &r->t))
           : NULL;
}
