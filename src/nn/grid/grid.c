/* grid.c - the device-neutral entry points of grid_sampler and
 * affine_grid_generator (tl_grid.h): arguments checked in PyTorch's words,
 * results allocated on the inputs' device, then the device's kernel; and the
 * CPU set's rows in the kernel table. */
#include <string.h>

#include "ndcore/kernels/tl_create.h"
#include "nn/grid/tl_grid.h"
#include "nn/tl_nn.h"

static tl_status check_float(const char *name, tl_dtype d)
{
  if (tl_dtype_is_float(d))
    return TL_OK;
  return tl_error_set(TL_ERR_NOT_IMPLEMENTED, "\"%s\" not implemented for '%s'", name, tl_dtype_names[d]);
}

/* PyTorch's grid_sampler checks, then the spec. */
static tl_status grid_spec(const tl_tensor *x, const tl_tensor *grid, int64_t mode,
                           int64_t padding, bool align_corners, tl_grid_spec *s)
{
  char a[256], b[256];
  tl_shape_str(a, sizeof a, x->ndim, x->shape);
  tl_shape_str(b, sizeof b, grid->ndim, grid->shape);
  if (check_float("grid_sampler", x->dtype) != TL_OK)
    return tl_error_status();
  if (x->dtype != grid->dtype)
    return tl_error_set(TL_ERR_RUNTIME, "grid_sampler(): expected input and grid to have same "
                        "dtype, but input has %s and grid has %s", tl_dtype_names[x->dtype],
                        tl_dtype_names[grid->dtype]);
  if (mode < 0 || mode > 2 || padding < 0 || padding > 2)
    return tl_error_set(TL_ERR_VALUE, "grid_sampler(): interpolation_mode must be 0 (bilinear), 1 "
                        "(nearest) or 2 (bicubic) and padding_mode 0 (zeros), 1 (border) or 2 "
                        "(reflection), got %lld and %lld", (long long)mode, (long long)padding);
  if ((x->ndim != 4 && x->ndim != 5) || grid->ndim != x->ndim)
    return tl_error_set(TL_ERR_RUNTIME, "grid_sampler(): expected 4D or 5D input and grid with same "
                        "number of dimensions, but got input with sizes %s and grid with sizes %s",
                        a, b);
  int n = x->ndim - 2;
  if (grid->shape[0] != x->shape[0])
    return tl_error_set(TL_ERR_RUNTIME, "grid_sampler(): expected grid and input to have same batch "
                        "size, but got input with sizes %s and grid with sizes %s", a, b);
  if (grid->shape[grid->ndim - 1] != n)
    return tl_error_set(TL_ERR_RUNTIME, "grid_sampler(): expected grid to have size %d in last "
                        "dimension, but got grid with sizes %s", n, b);
  for (int d = 2; d < x->ndim; d++)
    if (x->shape[d] == 0)
      return tl_error_set(TL_ERR_RUNTIME, "grid_sampler(): expected input to have non-empty spatial "
                          "dimensions, but input has sizes %s with dimension %d being empty", a, d);
  if (mode == TL_GRID_BICUBIC && n != 2)
    return tl_error_set(TL_ERR_RUNTIME, "grid_sampler(): bicubic interpolation only supports 4D "
                        "input");
  *s = (tl_grid_spec){.n = n, .N = x->shape[0], .C = x->shape[1], .in = {1, 1, 1},
                      .out = {1, 1, 1}, .mode = (tl_grid_mode)mode,
                      .padding = (tl_grid_padding)padding, .align_corners = align_corners};
  for (int d = 0; d < n; d++) {
    s->in[3 - n + d] = x->shape[2 + d];
    s->out[3 - n + d] = grid->shape[1 + d];
  }
  return TL_OK;
}

/* (N, C, *out): the output's (and grad_output's) shape. */
static void out_shape(const tl_grid_spec *s, int64_t *shape)
{
  shape[0] = s->N;
  shape[1] = s->C;
  for (int d = 0; d < s->n; d++)
    shape[2 + d] = s->out[3 - s->n + d];
}

static const tl_nn_grid_kernels *kernels(tl_op op, tl_dtype dtype, int n, const tl_tensor **devs)
{
  return tl_dispatch_kernel(op, dtype, n, devs);
}

tl_status tl_nn_grid_sampler(const tl_tensor *x, const tl_tensor *grid, int64_t mode,
                             int64_t padding, bool align_corners, tl_tensor *y)
{
  const tl_tensor *devs[] = {x, grid};
  const tl_nn_grid_kernels *set = kernels(TL_OP_GRID_SAMPLER, x->dtype, 2, devs);
  tl_grid_spec s;
  int64_t shape[5];
  if (!set || grid_spec(x, grid, mode, padding, align_corners, &s) != TL_OK)
    return tl_error_status();
  out_shape(&s, shape);
  tl_status status = tl_tensor_empty(y, x->dtype, x->ndim, shape, tl_tensor_device(x));
  if (status == TL_OK && tl_tensor_numel(y) > 0)
    status = set->sample(&s, x, grid, y);
  if (status != TL_OK)
    tl_tensor_release(y);
  return status;
}

tl_status tl_nn_grid_sampler_backward(const tl_tensor *g, const tl_tensor *x,
                                      const tl_tensor *grid, int64_t mode, int64_t padding,
                                      bool align_corners, tl_tensor *dx, tl_tensor *dgrid)
{
  const tl_tensor *devs[] = {g, x, grid};
  const tl_nn_grid_kernels *set = kernels(TL_OP_GRID_SAMPLER_BACKWARD, x->dtype, 3, devs);
  tl_grid_spec s;
  int64_t shape[5];
  char a[256], b[256];
  if (!set || grid_spec(x, grid, mode, padding, align_corners, &s) != TL_OK)
    return tl_error_status();
  out_shape(&s, shape);
  if (g->ndim != x->ndim || memcmp(g->shape, shape, (size_t)x->ndim * sizeof *shape))
    return tl_error_set(TL_ERR_RUNTIME, "grid_sampler_backward(): expected grad_output of shape %s, "
                        "got %s", tl_shape_str(a, sizeof a, x->ndim, shape),
                        tl_shape_str(b, sizeof b, g->ndim, g->shape));
  tl_device dev = tl_tensor_device(x);
  tl_status status = tl_tensor_empty(dx, x->dtype, x->ndim, x->shape, dev);
  if (status == TL_OK)
    status = tl_tensor_empty(dgrid, grid->dtype, grid->ndim, grid->shape, dev);
  if (status == TL_OK && tl_tensor_numel(g) == 0) { /* nothing sampled: zero gradients */
    tl_scalar zero = {.kind = TL_KIND_FLOAT, .v.f = 0};
    status = tl_tensor_fill(dx, zero);
    if (status == TL_OK)
      status = tl_tensor_fill(dgrid, zero);
  } else if (status == TL_OK) {
    status = set->sample_backward(&s, g, x, grid, dx, dgrid);
  }
  if (status != TL_OK) {
    tl_tensor_release(dx);
    tl_tensor_release(dgrid);
  }
  return status;
}

/* PyTorch's affine_grid checks: size (N, C, *out) of 2 or 3 spatial dims,
 * theta (N, n, n + 1) of a float dtype. */
static tl_status affine_check(const char *name, const tl_tensor *t, int nsize, const int64_t *size,
                              int *n)
{
  char a[256];
  tl_shape_str(a, sizeof a, nsize, size);
  if (nsize != 4 && nsize != 5)
    return tl_error_set(TL_ERR_NOT_IMPLEMENTED, "affine_grid only supports 4D and 5D sizes, for 2D "
                        "and 3D affine transforms, respectively. Got size %s.", a);
  if (check_float(name, t->dtype) != TL_OK)
    return tl_error_status();
  for (int d = 0; d < nsize; d++)
    if (size[d] <= 0 && !(d == 0 && size[d] == 0))
      return tl_error_set(TL_ERR_VALUE, "Expected non-zero, positive output size. Got %s", a);
  *n = nsize - 2;
  return TL_OK;
}

tl_status tl_nn_affine_grid(const tl_tensor *theta, int nsize, const int64_t *size,
                            bool align_corners, tl_tensor *grid)
{
  const tl_tensor *devs[] = {theta};
  const tl_nn_grid_kernels *set = kernels(TL_OP_AFFINE_GRID_GENERATOR, theta->dtype, 1, devs);
  char a[256], b[256];
  int n;
  if (!set || affine_check("affine_grid_generator", theta, nsize, size, &n) != TL_OK)
    return tl_error_status();
  if (theta->ndim != 3 || theta->shape[0] != size[0] || theta->shape[1] != n ||
      theta->shape[2] != n + 1)
    return tl_error_set(TL_ERR_VALUE, "Expected a batch of %dD affine matrices of shape Nx%dx%d "
                        "for size %s. Got %s.", n, n, n + 1, tl_shape_str(a, sizeof a, nsize, size),
                        tl_shape_str(b, sizeof b, theta->ndim, theta->shape));
  int64_t shape[5] = {size[0]};
  for (int d = 0; d < n; d++)
    shape[1 + d] = size[2 + d];
  shape[1 + n] = n;
  tl_status status = tl_tensor_empty(grid, theta->dtype, n + 2, shape, tl_tensor_device(theta));
  if (status == TL_OK && size[0] > 0)
    status = set->affine(n, size, align_corners, false, theta, grid);
  if (status != TL_OK)
    tl_tensor_release(grid);
  return status;
}

tl_status tl_nn_affine_grid_backward(const tl_tensor *grad, int nsize, const int64_t *size,
                                     bool align_corners, tl_tensor *dtheta)
{
  const tl_tensor *devs[] = {grad};
  const tl_nn_grid_kernels *set =
      kernels(TL_OP_AFFINE_GRID_GENERATOR_BACKWARD, grad->dtype, 1, devs);
  char a[256], b[256];
  int n;
  if (!set || affine_check("affine_grid_generator_backward", grad, nsize, size, &n) != TL_OK)
    return tl_error_status();
  int64_t want[5] = {size[0]};
  for (int d = 0; d < n; d++)
    want[1 + d] = size[2 + d];
  want[1 + n] = n;
  if (grad->ndim != n + 2 || memcmp(grad->shape, want, (size_t)(n + 2) * sizeof *want))
    return tl_error_set(TL_ERR_RUNTIME, "affine_grid_generator_backward(): expected grad of shape "
                        "%s, got %s", tl_shape_str(a, sizeof a, n + 2, want),
                        tl_shape_str(b, sizeof b, grad->ndim, grad->shape));
  int64_t shape[3] = {size[0], n, n + 1};
  tl_status status = tl_tensor_empty(dtheta, grad->dtype, 3, shape, tl_tensor_device(grad));
  if (status == TL_OK && size[0] > 0)
    status = set->affine(n, size, align_corners, true, grad, dtheta);
  if (status != TL_OK)
    tl_tensor_release(dtheta);
  return status;
}

void tl_nn_grid_register(void)
{
  static const tl_op ops[] = {TL_OP_GRID_SAMPLER, TL_OP_GRID_SAMPLER_BACKWARD,
                              TL_OP_AFFINE_GRID_GENERATOR, TL_OP_AFFINE_GRID_GENERATOR_BACKWARD};
  for (size_t i = 0; i < sizeof ops / sizeof *ops; i++)
    tl_dispatch_register_set(ops[i], TL_DEVICE_CPU, TL_DTYPES_ALL, &tl_cpu_grid_kernels);
}
