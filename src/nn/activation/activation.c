/* activation.c - the device-neutral entry points of the activations
 * (tl_activation.h), and the CPU set's rows in the kernel table. */
#include <string.h>

#include "ndcore/tensor/tl_views.h"
#include "nn/activation/tl_activation.h"
#include "nn/tl_nn.h"

/* op -> kind, for the forward and the backward ops. */
static const struct {
  tl_op forward, backward;
  tl_act_kind kind;
} kinds[] = {
    {TL_OP_RELU, TL_OP_THRESHOLD_BACKWARD, TL_ACT_RELU},
    {TL_OP_THRESHOLD, TL_OP_THRESHOLD_BACKWARD, TL_ACT_THRESHOLD},
    {TL_OP_LEAKY_RELU, TL_OP_LEAKY_RELU_BACKWARD, TL_ACT_LEAKY_RELU},
    {TL_OP_ELU, TL_OP_ELU_BACKWARD, TL_ACT_ELU},
    {TL_OP_GELU, TL_OP_GELU_BACKWARD, TL_ACT_GELU},
    {TL_OP_SILU, TL_OP_SILU_BACKWARD, TL_ACT_SILU},
    {TL_OP_MISH, TL_OP_MISH_BACKWARD, TL_ACT_MISH},
    {TL_OP_SOFTPLUS, TL_OP_SOFTPLUS_BACKWARD, TL_ACT_SOFTPLUS},
    {TL_OP_SOFTSIGN, TL_OP_SOFTSIGN_BACKWARD, TL_ACT_SOFTSIGN},
    {TL_OP_HARDTANH, TL_OP_HARDTANH_BACKWARD, TL_ACT_HARDTANH},
    {TL_OP_HARDSIGMOID, TL_OP_HARDSIGMOID_BACKWARD, TL_ACT_HARDSIGMOID},
    {TL_OP_HARDSWISH, TL_OP_HARDSWISH_BACKWARD, TL_ACT_HARDSWISH},
    {TL_OP_HARDSHRINK, TL_OP_HARDSHRINK_BACKWARD, TL_ACT_HARDSHRINK},
    {TL_OP_SOFTSHRINK, TL_OP_SOFTSHRINK_BACKWARD, TL_ACT_SOFTSHRINK},
    {TL_OP_TANHSHRINK, TL_OP_TANHSHRINK_BACKWARD, TL_ACT_TANHSHRINK},
    {TL_OP_LOG_SIGMOID, TL_OP_LOG_SIGMOID_BACKWARD, TL_ACT_LOG_SIGMOID},
    {TL_OP_PRELU, TL_OP_PRELU_BACKWARD, TL_ACT_PRELU},
    {TL_OP_GLU, TL_OP_GLU_BACKWARD, TL_ACT_GLU},
};

tl_act_kind tl_nn_activation_kind(tl_op op)
{
  for (size_t i = 0; i < sizeof kinds / sizeof *kinds; i++)
    if (kinds[i].forward == op || (kinds[i].backward == op && op != TL_OP_THRESHOLD_BACKWARD))
      return kinds[i].kind;
  return TL_ACT_THRESHOLD; /* threshold_backward */
}

/* Floating dtypes only, in PyTorch's words ("not implemented for 'Long'") and
 * as its NotImplementedError. */
static tl_status check_float(const char *name, tl_dtype d)
{
  if (tl_dtype_is_float(d))
    return TL_OK;
  return tl_error_set(TL_ERR_NOT_IMPLEMENTED, "\"%s\" not implemented for '%s'", name,
                      tl_dtype_is_complex(d) ? tl_dtype_names[d] : tl_dtype_scalar_name(d));
}

static tl_status check_same_shape(const char *name, const char *what, const tl_tensor *a,
                                  const tl_tensor *b)
{
  char sa[256], sb[256];
  if (a->ndim == b->ndim && !memcmp(a->shape, b->shape, (size_t)a->ndim * sizeof *a->shape))
    return TL_OK;
  return tl_error_set(TL_ERR_RUNTIME, "%s(): grad_output of shape %s does not match %s of shape %s",
                      name, tl_shape_str(sa, sizeof sa, a->ndim, a->shape), what,
                      tl_shape_str(sb, sizeof sb, b->ndim, b->shape));
}

/* The kernel set for op over the tensors devs, after the dtype check. */
static const tl_nn_activation_kernels *kernels(tl_op op, tl_dtype dtype, int n,
                                               const tl_tensor *const *devs)
{
  const tl_nn_activation_kernels *set = tl_dispatch_kernel(op, dtype, n, devs);
  if (!set || check_float(tl_op_infos[op].name, dtype) != TL_OK)
    return NULL;
  return set;
}

tl_status tl_nn_activation(tl_op op, const tl_act_params *p, const tl_tensor *x, tl_tensor *out,
                           bool into)
{
  const char *name = tl_op_infos[op].name;
  const tl_tensor *devs[] = {x, into ? out : x};
  const tl_nn_activation_kernels *set = kernels(op, x->dtype, 2, devs);
  char sx[256], so[256];
  if (!set)
    return tl_error_status();
  if (into) {
    if (out->ndim != x->ndim || memcmp(out->shape, x->shape, (size_t)x->ndim * sizeof *x->shape))
      return tl_error_set(TL_ERR_RUNTIME, "%s(): out of shape %s does not match input of shape %s",
                          name, tl_shape_str(so, sizeof so, out->ndim, out->shape),
                          tl_shape_str(sx, sizeof sx, x->ndim, x->shape));
    if (tl_tensor_has_internal_overlap(out))
      return tl_error_set(TL_ERR_RUNTIME, "unsupported operation: more than one element of the "
                                          "written-to tensor refers to a single memory location. "
                                          "Please clone() the tensor before performing the "
                                          "operation.");
    return set->forward(tl_nn_activation_kind(op), p, x, NULL, out);
  }
  /* the result keeps x's layout, as PyTorch's does (a channels-last
   * activation stays channels-last) */
  tl_status status = tl_tensor_empty_format(out, x, x->dtype, tl_tensor_device(x),
                                            TL_FORMAT_PRESERVE);
  if (status == TL_OK)
    status = set->forward(tl_nn_activation_kind(op), p, x, NULL, out);
  if (status != TL_OK && out->storage)
    tl_tensor_release(out);
  return status;
}

tl_status tl_nn_activation_backward(tl_op op, const tl_act_params *p, const tl_tensor *g,
                                    const tl_tensor *x, tl_tensor *dx)
{
  const tl_tensor *devs[] = {g, x};
  const tl_nn_activation_kernels *set = kernels(op, x->dtype, 2, devs);
  if (!set || check_same_shape(tl_op_infos[op].name, "input", g, x) != TL_OK)
    return tl_error_status();
  tl_status status = tl_tensor_empty_format(dx, x, x->dtype, tl_tensor_device(x),
                                            TL_FORMAT_PRESERVE);
  if (status == TL_OK)
    status = set->backward(tl_nn_activation_kind(op), p, g, x, NULL, dx, NULL);
  if (status != TL_OK && dx->storage)
    tl_tensor_release(dx);
  return status;
}

/* w broadcast to x's shape (a view), in x's dtype (a copy when it differs). */
static tl_status weight_as(const char *name, const tl_tensor *x, const tl_tensor *w, tl_tensor *out)
{
  char sx[256], sw[256];
  tl_tensor view = {0};
  if (w->dtype != x->dtype)
    return tl_error_set(TL_ERR_RUNTIME, "%s(): expected weight of dtype %s like the input, got %s",
                        name, tl_dtype_names[x->dtype], tl_dtype_names[w->dtype]);
  tl_status status = tl_view_expand(&view, w, x->ndim, x->shape);
  if (status != TL_OK) {
    tl_error_clear();
    return tl_error_set(TL_ERR_RUNTIME, "%s(): weight of shape %s does not broadcast to the input's "
                                        "shape %s", name,
                        tl_shape_str(sw, sizeof sw, w->ndim, w->shape),
                        tl_shape_str(sx, sizeof sx, x->ndim, x->shape));
  }
  *out = view;
  return TL_OK;
}

tl_status tl_nn_prelu(const tl_tensor *x, const tl_tensor *w, tl_tensor *y)
{
  const tl_tensor *devs[] = {x, w};
  const tl_nn_activation_kernels *set = kernels(TL_OP_PRELU, x->dtype, 2, devs);
  tl_tensor wx = {0};
  if (!set || weight_as("_prelu_kernel", x, w, &wx) != TL_OK)
    return tl_error_status();
  tl_act_params p = {0};
  tl_status status = tl_tensor_empty(y, x->dtype, x->ndim, x->shape, tl_tensor_device(x));
  if (status == TL_OK)
    status = set->forward(TL_ACT_PRELU, &p, x, &wx, y);
  if (status != TL_OK && y->storage)
    tl_tensor_release(y);
  tl_tensor_release(&wx);
  return status;
}

tl_status tl_nn_prelu_backward(const tl_tensor *g, const tl_tensor *x, const tl_tensor *w,
                               tl_tensor *dx, tl_tensor *dw)
{
  const tl_tensor *devs[] = {g, x, w};
  const tl_nn_activation_kernels *set = kernels(TL_OP_PRELU_BACKWARD, x->dtype, 3, devs);
  tl_tensor wx = {0};
  if (!set || check_same_shape("_prelu_kernel_backward", "input", g, x) != TL_OK ||
      weight_as("_prelu_kernel_backward", x, w, &wx) != TL_OK)
    return tl_error_status();
  tl_act_params p = {0};
  tl_status status = tl_tensor_empty(dx, x->dtype, x->ndim, x->shape, tl_tensor_device(x));
  if (status == TL_OK)
    status = tl_tensor_empty(dw, x->dtype, x->ndim, x->shape, tl_tensor_device(x));
  if (status == TL_OK)
    status = set->backward(TL_ACT_PRELU, &p, g, x, &wx, dx, dw);
  if (status != TL_OK) {
    tl_tensor_release(dx);
    tl_tensor_release(dw);
  }
  tl_tensor_release(&wx);
  return status;
}

/* The halves a and b of x along d (views); the error of PyTorch otherwise. */
static tl_status glu_halves(const tl_tensor *x, int64_t dim, int *d, tl_tensor *a, tl_tensor *b)
{
  if (x->ndim == 0)
    return tl_error_set(TL_ERR_RUNTIME, "glu does not support scalars because halving size must "
                                        "be even");
  if (tl_dim_wrap(dim, x->ndim, d) != TL_OK)
    return tl_error_status();
  int64_t n = x->shape[*d];
  if (n % 2)
    return tl_error_set(TL_ERR_RUNTIME, "Halving dimension must be even, but dimension %d is size "
                                        "%lld", *d, (long long)n);
  if (tl_view_narrow(a, x, *d, 0, n / 2) != TL_OK || tl_view_narrow(b, x, *d, n / 2, n / 2) != TL_OK)
    return tl_error_status();
  return TL_OK;
}

tl_status tl_nn_glu(const tl_tensor *x, int64_t dim, tl_tensor *y)
{
  const tl_tensor *devs[] = {x};
  const tl_nn_activation_kernels *set = kernels(TL_OP_GLU, x->dtype, 1, devs);
  tl_tensor a = {0}, b = {0};
  int d;
  tl_status status = set ? glu_halves(x, dim, &d, &a, &b) : tl_error_status();
  tl_act_params p = {0};
  if (status == TL_OK)
    status = tl_tensor_empty(y, x->dtype, a.ndim, a.shape, tl_tensor_device(x));
  if (status == TL_OK)
    status = set->forward(TL_ACT_GLU, &p, &a, &b, y);
  if (status != TL_OK && y->storage)
    tl_tensor_release(y);
  tl_tensor_release(&a);
  tl_tensor_release(&b);
  return status;
}

tl_status tl_nn_glu_backward(const tl_tensor *g, const tl_tensor *x, int64_t dim, tl_tensor *dx)
{
  const tl_tensor *devs[] = {g, x};
  const tl_nn_activation_kernels *set = kernels(TL_OP_GLU_BACKWARD, x->dtype, 2, devs);
  tl_tensor a = {0}, b = {0}, da = {0}, db = {0};
  int d;
  tl_status status = set ? glu_halves(x, dim, &d, &a, &b) : tl_error_status();
  tl_act_params p = {0};
  if (status == TL_OK)
    status = check_same_shape("glu_backward", "half of the input", g, &a);
  if (status == TL_OK)
    status = tl_tensor_empty(dx, x->dtype, x->ndim, x->shape, tl_tensor_device(x));
  /* the kernel writes the halves of dx (strided views unless d is 0) */
  if (status == TL_OK)
    status = tl_view_narrow(&da, dx, d, 0, a.shape[d]);
  if (status == TL_OK)
    status = tl_view_narrow(&db, dx, d, a.shape[d], a.shape[d]);
  if (status == TL_OK)
    status = set->backward(TL_ACT_GLU, &p, g, &a, &b, &da, &db);
  if (status != TL_OK && dx->storage)
    tl_tensor_release(dx);
  tl_tensor_release(&a);
  tl_tensor_release(&b);
  tl_tensor_release(&da);
  tl_tensor_release(&db);
  return status;
}

static const tl_nn_activation_kernels cpu_activation = {
    .forward = tl_cpu_activation,
    .backward = tl_cpu_activation_backward,
};

void tl_nn_activation_register(void)
{
  for (size_t i = 0; i < sizeof kinds / sizeof *kinds; i++) {
    tl_dispatch_register_set(kinds[i].forward, TL_DEVICE_CPU, TL_DTYPES_ALL, &cpu_activation);
    tl_dispatch_register_set(kinds[i].backward, TL_DEVICE_CPU, TL_DTYPES_ALL, &cpu_activation);
  }
}
