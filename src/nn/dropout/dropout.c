/* dropout.c - the device-neutral entry points of dropout (tl_dropout.h), and
 * the CPU set's rows in the kernel table. */
#include <math.h>
#include <string.h>

#include "nn/dropout/tl_dropout.h"
#include "nn/tl_nn.h"

/* SELU's fixed point: alpha' = -alpha * scale */
#define TL_SELU_ALPHA_P (-1.6732632423543772848170429916717 * 1.0507009873554804934193349852946)

double tl_nn_dropout_scale(double p, bool alpha)
{
  if (p >= 1)
    return 0;
  if (!alpha)
    return 1 / (1 - p);
  return 1 / sqrt((TL_SELU_ALPHA_P * TL_SELU_ALPHA_P * p + 1) * (1 - p));
}

static const tl_nn_dropout_kernels *kernels(tl_op op, const tl_tensor *x, const tl_tensor *other)
{
  const tl_tensor *devs[] = {x, other};
  const tl_nn_dropout_kernels *set = tl_dispatch_kernel(op, x->dtype, 2, devs);
  if (set && !tl_dtype_is_float(x->dtype)) {
    tl_error_set(TL_ERR_RUNTIME, "%s(): expected a floating point input, got %s",
                 tl_op_infos[op].name, tl_dtype_names[x->dtype]);
    return NULL;
  }
  return set;
}

tl_status tl_nn_dropout(tl_generator *gen, const tl_tensor *x, double p, int batch_dims,
                        bool alpha, tl_tensor *y, bool into, tl_tensor *mask)
{
  char sx[256], sy[256];
  const tl_nn_dropout_kernels *set = kernels(TL_OP_DROPOUT, x, into ? y : x);
  if (!set)
    return tl_error_status();
  if (!(p >= 0 && p <= 1))
    return tl_error_set(TL_ERR_VALUE, "dropout probability has to be between 0 and 1, but got %g", p);
  if (batch_dims < 0 || batch_dims > x->ndim)
    return tl_error_set(TL_ERR_RUNTIME, "dropout: batch_dims %d out of range for a %dD input",
                        batch_dims, x->ndim);
  if (into && (y->ndim != x->ndim || memcmp(y->shape, x->shape, (size_t)x->ndim * sizeof *x->shape)))
    return tl_error_set(TL_ERR_RUNTIME, "dropout(): out of shape %s does not match input of shape %s",
                        tl_shape_str(sy, sizeof sy, y->ndim, y->shape),
                        tl_shape_str(sx, sizeof sx, x->ndim, x->shape));
  int64_t mshape[TL_MAX_DIMS];
  for (int d = 0; d < x->ndim; d++)
    mshape[d] = batch_dims == 0 || d < batch_dims ? x->shape[d] : 1;
  tl_dropout_params prm = {.keep_prob = 1 - p, .keep_scale = tl_nn_dropout_scale(p, alpha)};
  if (alpha && p < 1) {
    prm.keep_shift = -prm.keep_scale * TL_SELU_ALPHA_P * p;
    prm.drop_value = TL_SELU_ALPHA_P * prm.keep_scale + prm.keep_shift;
  }
  tl_status status = tl_tensor_empty(mask, TL_DTYPE_BOOL, x->ndim, mshape, tl_tensor_device(x));
  if (status == TL_OK && !into)
    status = tl_tensor_empty(y, x->dtype, x->ndim, x->shape, tl_tensor_device(x));
  if (status == TL_OK)
    status = set->forward(gen, &prm, x, y, mask);
  if (status != TL_OK) {
    tl_tensor_release(mask);
    if (!into)
      tl_tensor_release(y);
  }
  /* y keeps a channels-last x's layout, as PyTorch's elementwise dropout does */
  if (status == TL_OK && !into &&
      (status = tl_tensor_relayout(y, tl_tensor_suggest_format(x))) != TL_OK)
    tl_tensor_release(mask);
  return status;
}

tl_status tl_nn_dropout_backward(const tl_tensor *g, const tl_tensor *mask, double scale,
                                 tl_tensor *dx)
{
  char sg[256], sm[256];
  const tl_nn_dropout_kernels *set = kernels(TL_OP_DROPOUT_BACKWARD, g, mask);
  if (!set)
    return tl_error_status();
  /* the mask: g's shape, or g's leading dims then ones */
  bool ok = mask->dtype == TL_DTYPE_BOOL && mask->ndim == g->ndim;
  for (int d = 0, ones = 0; ok && d < g->ndim; d++) {
    ones |= mask->shape[d] != g->shape[d];
    ok = mask->shape[d] == g->shape[d] ? !ones || g->shape[d] == 1 : mask->shape[d] == 1;
  }
  if (!ok)
    return tl_error_set(TL_ERR_RUNTIME, "native_dropout_backward(): mask of shape %s and dtype %s "
                                        "does not fit grad_output of shape %s (a bool mask of its "
                                        "shape, or of its leading dims then ones)",
                        tl_shape_str(sm, sizeof sm, mask->ndim, mask->shape),
                        tl_dtype_names[mask->dtype], tl_shape_str(sg, sizeof sg, g->ndim, g->shape));
  tl_status status = tl_tensor_empty(dx, g->dtype, g->ndim, g->shape, tl_tensor_device(g));
  if (status == TL_OK)
    status = set->backward(g, mask, scale, dx);
  if (status != TL_OK)
    tl_tensor_release(dx);
  if (status == TL_OK)
    status = tl_tensor_relayout(dx, tl_tensor_suggest_format(g));
  return status;
}

static const tl_nn_dropout_kernels cpu_dropout = {
    .forward = tl_cpu_dropout,
    .backward = tl_cpu_dropout_backward,
};

void tl_nn_dropout_register(void)
{
  tl_dispatch_register_set(TL_OP_DROPOUT, TL_DEVICE_CPU, TL_DTYPES_ALL, &cpu_dropout);
  tl_dispatch_register_set(TL_OP_DROPOUT_BACKWARD, TL_DEVICE_CPU, TL_DTYPES_ALL, &cpu_dropout);
}
