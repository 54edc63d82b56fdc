/* softmax.c - the device-neutral entry points of softmax and log_softmax
 * (tl_softmax.h), and the CPU set's rows in the kernel table. */
#include <string.h>

#include "nn/softmax/tl_softmax.h"
#include "nn/tl_nn.h"

/* Floating dtypes only (the backward's operands), refused as a
 * NotImplementedError. */
static tl_status check_float(const char *name, const char *what, tl_dtype d)
{
  if (tl_dtype_is_float(d))
    return TL_OK;
  return tl_error_set(TL_ERR_NOT_IMPLEMENTED, "%s(): expected a floating point %s, got %s", name, what,
                      tl_dtype_names[d]);
}

tl_status tl_nn_softmax(tl_op op, const tl_tensor *in, int64_t dim, int dtype, tl_tensor *out)
{
  tl_dtype result = dtype >= 0 ? (tl_dtype)dtype : in->dtype;
  const tl_tensor *devs[] = {in};
  tl_tensor cast = {0};
  int d;
  const tl_nn_softmax_kernels *set = tl_dispatch_kernel(op, result, 1, devs);
  if (!set || tl_dim_wrap(dim, in->ndim, &d) != TL_OK)
    return tl_error_status();
  /* A result dtype that is not floating: PyTorch's words name the CPU kernel
   * it dispatched to, the last-dim one when dim is the last (or the input 0-d). */
  if (!tl_dtype_is_float(result))
    return tl_error_set(TL_ERR_NOT_IMPLEMENTED, "\"%s%s_kernel_impl\" not implemented for '%s'",
                        op == TL_OP_LOG_SOFTMAX ? "log_softmax" : "softmax",
                        in->ndim == 0 || d == in->ndim - 1 ? "_lastdim" : "",
                        tl_dtype_scalar_name(result));
  if (result != in->dtype) { /* dtype= casts the input first */
    if (tl_tensor_to_dtype(&cast, in, result) != TL_OK)
      return tl_error_status();
    in = &cast;
  }
  tl_status status = tl_tensor_empty(out, result, in->ndim, in->shape, tl_tensor_device(in));
  if (status == TL_OK)
    status = set->softmax(in, d, op == TL_OP_LOG_SOFTMAX, out);
  if (status != TL_OK && out->storage)
    tl_tensor_release(out);
  if (cast.storage)
    tl_tensor_release(&cast);
  return status;
}

tl_status tl_nn_softmax_backward(tl_op op, const tl_tensor *grad, const tl_tensor *output,
                                 int64_t dim, tl_dtype input_dtype, tl_tensor *grad_input)
{
  const char *name = tl_op_infos[op].name;
  const tl_tensor *devs[] = {grad, output};
  char sg[256], so[256];
  int d;
  const tl_nn_softmax_kernels *set = tl_dispatch_kernel(op, output->dtype, 2, devs);
  if (!set || check_float(name, "output", output->dtype) != TL_OK ||
      check_float(name, "input_dtype", input_dtype) != TL_OK ||
      tl_dim_wrap(dim, output->ndim, &d) != TL_OK)
    return tl_error_status();
  if (grad->ndim != output->ndim ||
      memcmp(grad->shape, output->shape, (size_t)grad->ndim * sizeof *grad->shape))
    return tl_error_set(TL_ERR_RUNTIME, "%s(): grad_output of shape %s does not match output of "
                                        "shape %s", name,
                        tl_shape_str(sg, sizeof sg, grad->ndim, grad->shape),
                        tl_shape_str(so, sizeof so, output->ndim, output->shape));
  tl_status status = tl_tensor_empty(grad_input, input_dtype, output->ndim, output->shape,
                                     tl_tensor_device(output));
  if (status == TL_OK)
    status = set->softmax_backward(grad, output, d, op == TL_OP_LOG_SOFTMAX_BACKWARD, grad_input);
  if (status != TL_OK && grad_input->storage)
    tl_tensor_release(grad_input);
  return status;
}

static const tl_nn_softmax_kernels cpu_softmax = {
    .softmax = tl_cpu_softmax,
    .softmax_backward = tl_cpu_softmax_backward,
};

void tl_nn_softmax_register(void)
{
  static const tl_op ops[] = {TL_OP_SOFTMAX, TL_OP_LOG_SOFTMAX, TL_OP_SOFTMAX_BACKWARD,
                              TL_OP_LOG_SOFTMAX_BACKWARD};
  for (size_t i = 0; i < sizeof ops / sizeof *ops; i++)
    tl_dispatch_register_set(ops[i], TL_DEVICE_CPU, TL_DTYPES_ALL, &cpu_softmax);
}
