/* lrn.c - the device-neutral entry points of local response normalisation
 * (tl_norm.h): the input seen as (N, C, S), checked, the result allocated on
 * its device, then the device's kernel. */
#include <string.h>

#include "nn/norm/tl_norm.h"

static tl_status lrn_spec(tl_op op, const tl_tensor *x, int64_t size, double alpha, double beta,
                          double k, tl_lrn_spec *s)
{
  const char *name = tl_op_infos[op].name;
  if (!tl_dtype_is_float(x->dtype))
    return tl_error_set(TL_ERR_NOT_IMPLEMENTED, "\"%s\" not implemented for '%s'", name,
                        tl_dtype_names[x->dtype]);
  if (x->ndim < 3)
    /* PyTorch's words, with the run of spaces its source's line break leaves in them */
    return tl_error_set(TL_ERR_VALUE, "Expected 3D or higher dimensionality%*sinput (got %d "
                        "dimensions)", 26, "", x->ndim);
  if (size < 1)
    return tl_error_set(TL_ERR_VALUE, "%s(): size must be positive, got %lld", name,
                        (long long)size);
  *s = (tl_lrn_spec){.N = x->shape[0], .C = x->shape[1], .S = 1, .size = size, .alpha = alpha,
                     .beta = beta, .k = k};
  for (int d = 2; d < x->ndim; d++)
    s->S *= x->shape[d];
  return TL_OK;
}

static tl_status run(tl_op op, const tl_tensor *g, const tl_tensor *x, int64_t size, double alpha,
                     double beta, double k, tl_tensor *out)
{
  const tl_tensor *devs[] = {x, g ? g : x};
  const tl_nn_norm_kernels *set = tl_dispatch_kernel(op, x->dtype, 2, devs);
  char a[256], b[256];
  tl_lrn_spec s;
  if (!set || lrn_spec(op, x, size, alpha, beta, k, &s) != TL_OK)
    return tl_error_status();
  if (g && (g->ndim != x->ndim || memcmp(g->shape, x->shape, (size_t)x->ndim * sizeof *x->shape)))
    return tl_error_set(TL_ERR_RUNTIME, "%s(): grad_output of shape %s does not match input of "
                        "shape %s", tl_op_infos[op].name, tl_shape_str(a, sizeof a, g->ndim, g->shape),
                        tl_shape_str(b, sizeof b, x->ndim, x->shape));
  tl_status status = tl_tensor_empty(out, x->dtype, x->ndim, x->shape, tl_tensor_device(x));
  if (status == TL_OK && tl_tensor_numel(x) > 0)
    status = set->lrn(&s, g, x, out);
  if (status != TL_OK)
    tl_tensor_release(out);
  /* PyTorch composes it of elementwise ops, which keep x's channels-last layout */
  if (status == TL_OK)
    status = tl_tensor_relayout(out, tl_tensor_suggest_format(x));
  return status;
}

tl_status tl_nn_local_response_norm(const tl_tensor *x, int64_t size, double alpha, double beta,
                                    double k, tl_tensor *y)
{
  return run(TL_OP_LOCAL_RESPONSE_NORM, NULL, x, size, alpha, beta, k, y);
}

tl_status tl_nn_local_response_norm_backward(const tl_tensor *g, const tl_tensor *x, int64_t size,
                                             double alpha, double beta, double k, tl_tensor *dx)
{
  return run(TL_OP_LOCAL_RESPONSE_NORM_BACKWARD, g, x, size, alpha, beta, k, dx);
}
