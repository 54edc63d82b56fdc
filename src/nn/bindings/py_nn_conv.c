/* py_nn_conv.c - torchlike._C.convolution, _convolution_backward_weight,
 * im2col and col2im (src/nn/conv).  The arguments are bound by generated
 * code (signatures.txt, [nn_conv]); these run the entry points. */
#include "ndcore/bindings/generated/args_nn_conv.h"
#include "ndcore/bindings/py_tensor.h"
#include "nn/conv/tl_conv.h"

/* The new tensor of a successful entry point, or the raised error. */
static PyObject *finish(tl_py_tensor *r, tl_status status)
{
  if (status == TL_OK)
    return (PyObject *)r;
  Py_DECREF(r);
  return tl_py_raise();
}

static tl_nn_conv_params conv_params(const tl_py_ints *stride, const tl_py_ints *padding,
                                     const tl_py_ints *dilation, const tl_py_ints *output_padding,
                                     bool transposed, int64_t groups)
{
  static const int64_t zero = 0;
  tl_nn_conv_params p = {.stride = stride->v, .nstride = stride->n, .padding = padding->v,
                         .npadding = padding->n, .dilation = dilation->v,
                         .ndilation = dilation->n, .output_padding = &zero, .noutput_padding = 1,
                         .transposed = transposed, .groups = groups};
  if (output_padding) {
    p.output_padding = output_padding->v;
    p.noutput_padding = output_padding->n;
  }
  return p;
}

PyObject *tl_py_impl_convolution(tl_op op, const tl_py_args_convolution *a)
{
  (void)op;
  tl_nn_conv_params p = conv_params(&a->stride, &a->padding, &a->dilation, &a->output_padding,
                                    a->transposed, a->groups);
  tl_py_tensor *r = tl_py_tensor_alloc();
  if (!r)
    return NULL;
  return finish(r, tl_nn_convolution(tl_py_t(a->input), tl_py_t(a->weight),
                                     a->bias ? tl_py_t(a->bias) : NULL, &p, &r->t));
}

PyObject *tl_py_impl_convolution_backward_weight(tl_op op,
                                                 const tl_py_args_convolution_backward_weight *a)
{
  (void)op;
  tl_nn_conv_params p = conv_params(&a->stride, &a->padding, &a->dilation, NULL, a->transposed,
                                    a->groups);
  tl_py_tensor *r = tl_py_tensor_alloc();
  if (!r)
    return NULL;
  return finish(r, tl_nn_convolution_backward_weight(tl_py_t(a->grad_output), tl_py_t(a->input),
                                                     a->weight_size.v, a->weight_size.n, &p,
                                                     &r->t));
}

/* im2col's and col2im's shared lists (output_size: col2im's, or NULL). */
static tl_nn_fold_params fold_params(const tl_py_ints *output_size, const tl_py_ints *kernel_size,
                                     const tl_py_ints *dilation, const tl_py_ints *padding,
                                     const tl_py_ints *stride)
{
  tl_nn_fold_params p = {.kernel = kernel_size->v, .nkernel = kernel_size->n,
                         .dilation = dilation->v, .ndilation = dilation->n,
                         .padding = padding->v, .npadding = padding->n,
                         .stride = stride->v, .nstride = stride->n};
  if (output_size) {
    p.output_size = output_size->v;
    p.noutput_size = output_size->n;
  }
  return p;
}

PyObject *tl_py_impl_im2col(tl_op op, const tl_py_args_im2col *a)
{
  (void)op;
  tl_nn_fold_params p = fold_params(NULL, &a->kernel_size, &a->dilation, &a->padding, &a->stride);
  tl_py_tensor *r = tl_py_tensor_alloc();
  if (!r)
    return NULL;
  return finish(r, tl_nn_im2col(tl_py_t(a->input), &p, &r->t));
}

PyObject *tl_py_impl_col2im(tl_op op, const tl_py_args_col2im *a)
{
  (void)op;
  tl_nn_fold_params p = fold_params(&a->output_size, &a->kernel_size, &a->dilation, &a->padding,
                                    &a->stride);
  tl_py_tensor *r = tl_py_tensor_alloc();
  if (!r)
    return NULL;
  return finish(r, tl_nn_col2im(tl_py_t(a->input), &p, &r->t));
}
