/* pool.c - the device-neutral entry points of the pooling and resampling
 * ops (tl_pool.h): argument and shape checks in PyTorch's wording, the tap
 * tables, the outputs' allocation on the inputs' device, then the device's
 * kernel; and the CPU set's rows in the kernel table.
 *
 * An input is (*, *spatial) with n spatial dims and one or two leading dims
 * (batched or not), as PyTorch's pooling ops take (C, H, W) and (N, C, H, W);
 * the kernels see B = the product of the leading dims planes.              */
#include <stdio.h>
#include <string.h>

#include "ndcore/tensor/tl_backend.h"
#include "nn/pool/tl_pool.h"
#include "nn/tl_nn.h"
#include "nn/tl_nn_work.h"

static tl_status check_float(const char *name, tl_dtype d)
{
  if (tl_dtype_is_float(d))
    return TL_OK;
  return tl_error_set(TL_ERR_NOT_IMPLEMENTED, "\"%s\" not implemented for '%s'", name, tl_dtype_names[d]);
}

/* A forward's dtypes: the floating ones and any the op also takes (`also`),
 * refused in PyTorch's words (torch_name: the kernel it names). */
static tl_status check_dtype(const char *torch_name, tl_dtype d, bool also)
{
  if (tl_dtype_is_float(d) || also)
    return TL_OK;
  return tl_error_set(TL_ERR_NOT_IMPLEMENTED, "\"%s\" not implemented for '%s'", torch_name,
                      tl_dtype_scalar_name(d));
}

/* Interpolation's: PyTorch's CPU kernels also take uint8, in every mode but
 * linear (1-d) and trilinear; bilinear and bicubic then run in fixed point. */
static tl_status check_resample_dtype(const tl_nn_resample *r, tl_dtype d)
{
  bool nearest = r->mode == TL_NN_RESAMPLE_NEAREST || r->mode == TL_NN_RESAMPLE_NEAREST_EXACT;
  return check_dtype(nearest                           ? "compute_indices_weights_nearest"
                     : r->mode == TL_NN_RESAMPLE_CUBIC ? "compute_indices_weights_cubic"
                                                       : "compute_indices_weights_linear",
                     d, d == TL_DTYPE_U8 && (nearest || r->n == 2));
}

/* The max pooling ops' dtypes, in PyTorch's words: its CPU kernels take
 * every real dtype but bool for max_pool2d/3d (max_pool1d with indices runs
 * max_pool2d), floating dtypes only for adaptive max pooling and max_unpool;
 * torch_name is the kernel PyTorch names in the message. */
static tl_status check_max_dtype(const char *torch_name, tl_dtype d, bool ints)
{
  bool ok = tl_dtype_is_float(d) || (ints && d != TL_DTYPE_BOOL && !tl_dtype_is_complex(d));
  if (ok)
    return TL_OK;
  return tl_error_set(TL_ERR_NOT_IMPLEMENTED, "\"%s\" not implemented for '%s'", torch_name,
                      tl_dtype_scalar_name(d));
}

/* (n+1)-d or (n+2)-d, the non-batch dims non-empty. */
static tl_status check_input(const char *name, const tl_tensor *in, int n)
{
  char s[256];
  bool ok = in->ndim == n + 1 || in->ndim == n + 2;
  for (int i = in->ndim == n + 2 ? 1 : 0; ok && i < in->ndim; i++)
    ok = in->shape[i] > 0;
  if (ok)
    return TL_OK;
  return tl_error_set(TL_ERR_RUNTIME, "%s: Expected %dD or %dD (batch mode) tensor with optional 0 "
                      "dim batch size for input, but got:%s", name, n + 1, n + 2,
                      tl_shape_str(s, sizeof s, in->ndim, in->shape));
}

/* "3x4x5" */
static const char *sizes_str(char *buf, size_t size, int n, const int64_t *v)
{
  size_t at = 0;
  buf[0] = 0;
  for (int i = 0; i < n && at < size; i++)
    at += (size_t)snprintf(buf + at, size - at, i ? "x%lld" : "%lld", (long long)v[i]);
  return buf;
}

/* "D: 3, H: 4, W: 5": the last n of PyTorch's spatial letters with their
 * sizes (n <= 3; more are written as sizes_str does). */
static const char *spatial_sizes_str(char *buf, size_t size, int n, const int64_t *v)
{
  if (n > 3)
    return sizes_str(buf, size, n, v);
  size_t at = 0;
  buf[0] = 0;
  for (int i = 0; i < n && at < size; i++)
    at += (size_t)snprintf(buf + at, size - at, "%s%c: %lld", i ? ", " : "", "DHW"[3 - n + i],
                           (long long)v[i]);
  return buf;
}

/* out: in's shape with the last n dims replaced by sp. */
static void shape_with(const tl_tensor *in, int n, const int64_t *sp, int64_t *out)
{
  memcpy(out, in->shape, (size_t)in->ndim * sizeof *out);
  memcpy(out + in->ndim - n, sp, (size_t)n * sizeof *out);
}

/* Adaptive pooling's output_size: each at least `least`, and an output
 * (in's leading dims x size) whose element count fits in int64. */
static tl_status check_adaptive_size(const char *name, const tl_tensor *in, int n,
                                     const int64_t *size, int64_t least)
{
  int64_t shape[TL_MAX_DIMS], numel;
  char s[256];
  for (int d = 0; d < n; d++)
    if (size[d] < least)
      return tl_error_set(TL_ERR_RUNTIME, "%s: elements of output_size must be greater than or "
                          "equal to %lld but received %lld", name, (long long)least,
                          (long long)size[d]);
  shape_with(in, n, size, shape);
  if (tl_shape_numel(in->ndim, shape, &numel) != TL_OK) {
    tl_error_clear(); /* PyTorch's wording, with the op's name */
    return tl_error_set(TL_ERR_RUNTIME, "%s: Storage size calculation overflowed with sizes=%s",
                        name, tl_shape_str(s, sizeof s, in->ndim, shape));
  }
  return TL_OK;
}

/* The window's arguments and the output size, as PyTorch checks them. */
static tl_status check_window(const char *name, const tl_tensor *in, const tl_nn_pool_window *w,
                              int64_t *out_sp)
{
  const int64_t *sp = in->shape + in->ndim - w->n;
  char a[96], b[96];
  for (int d = 0; d < w->n; d++) {
    if (w->kernel[d] <= 0 || w->stride[d] <= 0 || w->dilation[d] <= 0)
      return tl_error_set(TL_ERR_RUNTIME, "%s: kernel_size, stride and dilation must be greater "
                          "than zero, but got kernel_size=%s, stride=%s and dilation=%lld", name,
                          sizes_str(a, sizeof a, w->n, w->kernel),
                          sizes_str(b, sizeof b, w->n, w->stride), (long long)w->dilation[d]);
    /* a window past 2**62 (or a stride) would wrap the output size's arithmetic */
    int64_t span;
    if (__builtin_mul_overflow(w->dilation[d], w->kernel[d] - 1, &span) ||
        span >= ((int64_t)1 << 62) || w->stride[d] >= ((int64_t)1 << 62))
      return tl_error_set(TL_ERR_RUNTIME, "%s: kernel_size=%s, stride=%s and dilation=%lld "
                          "overflow the output size's arithmetic", name,
                          sizes_str(a, sizeof a, w->n, w->kernel),
                          sizes_str(b, sizeof b, w->n, w->stride), (long long)w->dilation[d]);
    if (w->padding[d] < 0 || w->padding[d] > (span + 1) / 2)
      return tl_error_set(TL_ERR_RUNTIME, "pad should be at most half of effective kernel size, "
                          "but got pad=%lld, kernel_size=%lld and dilation=%lld",
                          (long long)w->padding[d], (long long)w->kernel[d],
                          (long long)w->dilation[d]);
  }
  bool small = false;
  for (int d = 0; d < w->n; d++) {
    out_sp[d] = tl_nn_pool_out_size(sp[d], w->kernel[d], w->stride[d], w->padding[d],
                                    w->dilation[d], w->ceil_mode);
    small |= out_sp[d] < 1;
  }
  if (!small)
    return TL_OK;
  int64_t c = in->ndim > w->n ? in->shape[in->ndim - w->n - 1] : 1;
  return tl_error_set(TL_ERR_RUNTIME, "Given input size: (%lldx%s). Calculated output size: "
                      "(%lldx%s). Output size is too small", (long long)c,
                      sizes_str(a, sizeof a, w->n, sp), (long long)c,
                      sizes_str(b, sizeof b, w->n, out_sp));
}

/* The layout of a pooling or resampling result from its input `in` (n
 * spatial dims), as PyTorch's CPU kernels give it: channels-last for a
 * channels-last batched input; `also_3d` false for the ops whose 3-d
 * kernels write row-major whatever the input (avg and adaptive pooling). */
static tl_format pool_format(const tl_tensor *in, int n, bool also_3d)
{
  if (in->ndim != n + 2 || (n == 3 && !also_3d))
    return TL_FORMAT_CONTIGUOUS;
  return tl_tensor_suggest_format(in);
}

/* Lay out a result pair (values and indices) in format. */
static tl_status relayout_pair(tl_tensor *out, tl_tensor *indices, tl_format f)
{
  if (tl_tensor_relayout(out, f) != TL_OK) {
    tl_tensor_release(indices);
    return tl_error_status();
  }
  if (tl_tensor_relayout(indices, f) != TL_OK) {
    tl_tensor_release(out);
    return tl_error_status();
  }
  return TL_OK;
}

/* A new result of `dtype` and `shape` on in's device, laid out in format f
 * when the set writes that layout itself (channels_last), else row-major
 * (laid out after the kernel). */
static tl_status alloc_for(const tl_nn_pool_kernels *set, const tl_tensor *in, tl_dtype dtype,
                           int ndim, const int64_t *shape, tl_format f, tl_tensor *out)
{
  return tl_tensor_empty_shaped(out, dtype, ndim, shape, tl_tensor_device(in),
                                set->channels_last ? f : TL_FORMAT_CONTIGUOUS);
}

/* Run window_max with taps into new out/indices laid out in f; releases
 * them on failure. */
static tl_status run_max(const tl_nn_pool_kernels *set, const tl_tensor *in, int n,
                         const tl_nn_taps *taps, tl_format f, tl_tensor *out, tl_tensor *indices)
{
  int64_t shape[TL_MAX_DIMS], sp[TL_NN_POOL_MAX_DIMS];
  for (int d = 0; d < n; d++)
    sp[d] = taps[d].out;
  shape_with(in, n, sp, shape);
  tl_status status = alloc_for(set, in, in->dtype, in->ndim, shape, f, out);
  if (status == TL_OK)
    status = alloc_for(set, in, TL_DTYPE_I64, in->ndim, shape, f, indices);
  if (status == TL_OK)
    status = set->window_max(in, n, taps, out, indices);
  if (status == TL_OK)
    return relayout_pair(out, indices, f);
  tl_tensor_release(out);
  tl_tensor_release(indices);
  return status;
}

tl_status tl_nn_max_pool(tl_op op, const tl_tensor *in, const tl_nn_pool_window *w,
                         tl_tensor *out, tl_tensor *indices)
{
  const char *name = tl_op_infos[op].name;
  const tl_tensor *devs[] = {in};
  tl_nn_taps taps[TL_NN_POOL_MAX_DIMS] = {0};
  int64_t out_sp[TL_NN_POOL_MAX_DIMS];
  tl_status status = TL_OK;
  const tl_nn_pool_kernels *set = tl_dispatch_kernel(op, in->dtype, 1, devs);
  if (!set || check_max_dtype(w->n == 3 ? "max_pool3d" : "max_pool2d", in->dtype, true) != TL_OK ||
      check_input(name, in, w->n) != TL_OK || check_window(name, in, w, out_sp) != TL_OK)
    return tl_error_status();
  for (int d = 0; d < w->n && status == TL_OK; d++)
    status = tl_nn_taps_window(&taps[d], in->shape[in->ndim - w->n + d], w, d, false);
  if (status == TL_OK)
    status = run_max(set, in, w->n, taps, pool_format(in, w->n, true), out, indices);
  tl_nn_taps_release(taps, w->n);
  return status;
}

tl_status tl_nn_adaptive_max_pool(tl_op op, const tl_tensor *in, int n, const int64_t *out_size,
                                  tl_tensor *out, tl_tensor *indices)
{
  const char *name = tl_op_infos[op].name;
  const tl_tensor *devs[] = {in};
  tl_nn_taps taps[TL_NN_POOL_MAX_DIMS] = {0};
  tl_status status = TL_OK;
  const tl_nn_pool_kernels *set = tl_dispatch_kernel(op, in->dtype, 1, devs);
  if (!set ||
      check_max_dtype(n == 3 ? "adaptive_max_pool3d_cpu" : "adaptive_max_pool2d", in->dtype,
                      false) != TL_OK ||
      check_input(name, in, n) != TL_OK || check_adaptive_size(name, in, n, out_size, 0) != TL_OK)
    return tl_error_status();
  for (int d = 0; d < n && status == TL_OK; d++)
    status = tl_nn_taps_adaptive(&taps[d], in->shape[in->ndim - n + d], out_size[d], false);
  if (status == TL_OK)
    status = run_max(set, in, n, taps, pool_format(in, n, false), out, indices);
  tl_nn_taps_release(taps, n);
  return status;
}

tl_status tl_nn_fractional_max_pool(tl_op op, const tl_tensor *in, int n, const int64_t *kernel,
                                    const int64_t *out_size, const tl_tensor *samples,
                                    tl_tensor *out, tl_tensor *indices)
{
  const char *name = tl_op_infos[op].name;
  const tl_tensor *devs[] = {in, samples};
  tl_nn_taps taps[TL_NN_POOL_MAX_DIMS] = {0};
  tl_tensor st = {0};
  tl_status status = TL_OK;
  char s[256];
  const tl_nn_pool_kernels *set = tl_dispatch_kernel(op, in->dtype, 2, devs);
  if (!set)
    return tl_error_status();
  if (samples->dtype != in->dtype) /* PyTorch's first check */
    return tl_error_set(TL_ERR_RUNTIME, "Expect _random_samples to have the same dtype as input");
  if (check_float(name, in->dtype) != TL_OK || check_input(name, in, n) != TL_OK)
    return tl_error_status();
  int64_t planes = 1;
  for (int i = 0; i < in->ndim - n; i++)
    planes *= in->shape[i];
  int64_t want[2] = {planes, n};
  if (tl_tensor_numel(samples) != planes * n || samples->shape[samples->ndim - 1] != n)
    return tl_error_set(TL_ERR_RUNTIME, "%s: expected _random_samples of %lld planes x %d "
                        "samples, got %s", name, (long long)want[0], n,
                        tl_shape_str(s, sizeof s, samples->ndim, samples->shape));
  /* PyTorch's own checks and words first: the 2-d kernel checks height then
   * width (output + pool - 1 <= input), the 3-d one time, width, height with
   * a strict < (so it refuses an output that would just fit) */
  static const char *const dim_names[] = {"time", "height", "width"};
  static const int order2[] = {0, 1}, order3[] = {0, 2, 1};
  for (int i = 0; i < n && n >= 2; i++) {
    int d = n == 3 ? order3[i] : order2[i];
    int64_t size = in->shape[in->ndim - n + d];
    if (kernel[d] > 0 && out_size[d] > 0 &&
        (out_size[d] > size - kernel[d] + 1 || (n == 3 && out_size[d] == size - kernel[d] + 1))) {
      const char *what = dim_names[d + 3 - n];
      return tl_error_set(TL_ERR_RUNTIME, "fractional_max_pool%dd%s(): pool %s %lld too large "
                          "relative to input %s %lld", n, n == 3 ? "_out" : "", what,
                          (long long)kernel[d], what, (long long)size);
    }
  }
  for (int d = 0; d < n; d++) {
    int64_t size = in->shape[in->ndim - n + d];
    if (kernel[d] <= 0 || out_size[d] <= 0 || out_size[d] > size - kernel[d] + 1) /* no overflow */
      return tl_error_set(TL_ERR_RUNTIME, "%s: output_size %lld with pool size %lld is too large "
                          "for an input of size %lld along spatial dim %d (need output_size + "
                          "kernel_size - 1 <= input size)", name, (long long)out_size[d],
                          (long long)kernel[d], (long long)size, d);
  }
  /* the samples are few (two or three a plane): read on the host, copied
   * there from a device (a sync: the tap tables are built from them) */
  if (!tl_dispatch_host_memory(tl_tensor_device(samples))
          ? tl_backend_tensor_to(&st, samples, tl_device_cpu(), TL_DTYPE_F64, false) != TL_OK
          : tl_tensor_to_dtype(&st, samples, TL_DTYPE_F64) != TL_OK)
    return tl_error_status();
  for (int d = 0; d < n && status == TL_OK; d++)
    status = tl_nn_taps_fractional(&taps[d], in->shape[in->ndim - n + d], out_size[d], kernel[d],
                                   tl_tensor_data(&st), planes, n, d, in->dtype != TL_DTYPE_F64);
  if (status == TL_OK) /* PyTorch's fractional pooling is row-major whatever the input */
    status = run_max(set, in, n, taps, TL_FORMAT_CONTIGUOUS, out, indices);
  tl_nn_taps_release(taps, n);
  tl_tensor_release(&st);
  return status;
}

tl_status tl_nn_pool_scatter(tl_op op, const tl_tensor *src, const tl_tensor *indices, int n,
                             const int64_t *size, tl_tensor *out)
{
  const char *name = tl_op_infos[op].name;
  const tl_tensor *devs[] = {src, indices};
  char a[256], b[256];
  int64_t shape[TL_MAX_DIMS];
  const tl_nn_pool_kernels *set = tl_dispatch_kernel(op, src->dtype, 2, devs);
  if (!set)
    return tl_error_status();
  if ((op == TL_OP_MAX_UNPOOL
           ? check_max_dtype(n == 3 ? "max_unpool3d" : "max_unpool2d", src->dtype, false)
           : check_float(name, src->dtype)) != TL_OK)
    return tl_error_status();
  if (tl_dtype_is_float(indices->dtype) || tl_dtype_is_complex(indices->dtype))
    return tl_error_set(TL_ERR_RUNTIME, "%s: expected indices to have an integer dtype, got %s",
                        name, tl_dtype_names[indices->dtype]);
  if (src->ndim < n || src->ndim != indices->ndim ||
      memcmp(src->shape, indices->shape, (size_t)src->ndim * sizeof *src->shape))
    return tl_error_set(TL_ERR_RUNTIME, "Expected shape of indices to be same as that of the "
                        "input tensor (%s) but got indices tensor with shape: %s",
                        tl_shape_str(a, sizeof a, src->ndim, src->shape),
                        tl_shape_str(b, sizeof b, indices->ndim, indices->shape));
  for (int d = 0; d < n; d++)
    if (size[d] < 0)
      return tl_error_set(TL_ERR_RUNTIME, "%s: the output size must be non-negative, got %s", name,
                          sizes_str(a, sizeof a, n, size));
  shape_with(src, n, size, shape);
  /* max pooling's input gradient takes the layout of the output's */
  tl_format f = op == TL_OP_MAX_POOL_BACKWARD ? pool_format(src, n, true) : TL_FORMAT_CONTIGUOUS;
  tl_status status = alloc_for(set, src, src->dtype, src->ndim, shape, f, out);
  if (status == TL_OK && (status = set->scatter(src, indices, n, op == TL_OP_MAX_POOL_BACKWARD,
                                                out)) != TL_OK)
    tl_tensor_release(out);
  if (status == TL_OK)
    status = tl_tensor_relayout(out, f);
  return status;
}

/* Run the weighted passes over taps: forward (in -> taps' out) or
 * transpose, into a new out laid out in f. */
static tl_status run_weighted(const tl_nn_pool_kernels *set, const tl_tensor *in, int n,
                              const tl_nn_taps *taps, bool transpose, tl_format f, tl_tensor *out)
{
  int64_t shape[TL_MAX_DIMS], sp[TL_NN_POOL_MAX_DIMS];
  for (int d = 0; d < n; d++)
    sp[d] = transpose ? taps[d].in : taps[d].out;
  shape_with(in, n, sp, shape);
  tl_status status = alloc_for(set, in, in->dtype, in->ndim, shape, f, out);
  if (status == TL_OK && (status = set->weighted(in, n, taps, transpose, out)) != TL_OK)
    tl_tensor_release(out);
  if (status == TL_OK)
    status = tl_tensor_relayout(out, f);
  return status;
}

/* A backward op's grad_output against the size its forward would give. */
static tl_status check_grad(const char *name, const tl_tensor *grad, int n, const int64_t *want)
{
  char a[256], b[256];
  if (grad->ndim >= n && !memcmp(grad->shape + grad->ndim - n, want, (size_t)n * sizeof *want))
    return TL_OK;
  return tl_error_set(TL_ERR_RUNTIME, "%s: expected grad_output of spatial size %s, got %s", name,
                      sizes_str(a, sizeof a, n, want),
                      tl_shape_str(b, sizeof b, grad->ndim, grad->shape));
}

tl_status tl_nn_avg_pool(tl_op op, const tl_tensor *in, const tl_nn_pool_window *w,
                         const int64_t *input_size, tl_tensor *out)
{
  const char *name = tl_op_infos[op].name;
  const tl_tensor *devs[] = {in};
  tl_nn_taps taps[TL_NN_POOL_MAX_DIMS] = {0};
  int64_t out_sp[TL_NN_POOL_MAX_DIMS];
  tl_status status = TL_OK;
  tl_tensor shape_of = *in; /* the forward input's shape, for the checks */
  int64_t fshape[TL_MAX_DIMS];
  const tl_nn_pool_kernels *set = tl_dispatch_kernel(op, in->dtype, 1, devs);
  /* PyTorch's CPU kernels average int64 too (sums divided, truncating) */
  if (!set || (input_size ? check_float(name, in->dtype)
                          : check_dtype(w->n == 3 ? "avg_pool3d_out_frame" : "avg_pool2d",
                                        in->dtype, in->dtype == TL_DTYPE_I64)) != TL_OK)
    return tl_error_status();
  if (input_size) {
    if (in->ndim < w->n)
      return check_grad(name, in, w->n, input_size);
    shape_with(in, w->n, input_size, fshape);
    memcpy(shape_of.shape, fshape, sizeof fshape[0] * (size_t)in->ndim);
  }
  if (check_input(name, &shape_of, w->n) != TL_OK || check_window(name, &shape_of, w, out_sp) != TL_OK ||
      (input_size && check_grad(name, in, w->n, out_sp) != TL_OK))
    return tl_error_status();
  for (int d = 0; d < w->n && status == TL_OK; d++)
    status = tl_nn_taps_window(&taps[d], shape_of.shape[in->ndim - w->n + d], w, d, true);
  if (status == TL_OK)
    status = run_weighted(set, in, w->n, taps, input_size != NULL, pool_format(in, w->n, false),
                          out);
  tl_nn_taps_release(taps, w->n);
  return status;
}

/* Adaptive average pooling to size 1: PyTorch's mean over the n spatial
 * dims (keepdim), laid out as pooling's results are.  The set's plane_mean
 * gives mean's bits where it takes the input; otherwise the forward is the
 * mean op itself, and the backward (input_size given: in is the gradient)
 * the weighted passes'. */
static tl_status plane_mean(const tl_nn_pool_kernels *set, const tl_tensor *in, int n,
                            const int64_t *input_size, tl_tensor *out)
{
  int64_t shape[TL_MAX_DIMS], ones[TL_NN_POOL_MAX_DIMS] = {1, 1, 1};
  tl_format f = pool_format(in, n, false);
  shape_with(in, n, input_size ? input_size : ones, shape);
  bool taken = false;
  tl_status status = TL_OK;
  if (set->plane_mean) {
    if ((status = alloc_for(set, in, in->dtype, in->ndim, shape, f, out)) != TL_OK)
      return status;
    status = set->plane_mean(in, n, input_size != NULL, out, &taken);
    if (status == TL_OK && taken)
      return tl_tensor_relayout(out, f);
    tl_tensor_release(out);
    if (status != TL_OK)
      return status;
  }
  if (input_size) {
    tl_nn_taps taps[TL_NN_POOL_MAX_DIMS] = {0};
    for (int d = 0; d < n && status == TL_OK; d++)
      status = tl_nn_taps_adaptive(&taps[d], input_size[d], 1, true);
    if (status == TL_OK)
      status = run_weighted(set, in, n, taps, true, f, out);
    tl_nn_taps_release(taps, n);
    return status;
  }
  tl_reduce_args a = {.keepdim = true, .dtype = -1};
  for (int d = in->ndim - n; d < in->ndim; d++)
    a.dims |= (uint64_t)1 << d;
  *out = (tl_tensor){0};
  if (tl_op_reduce(TL_OP_MEAN, in, &a, out, NULL) != TL_OK)
    return tl_error_status();
  return tl_tensor_relayout(out, f);
}

tl_status tl_nn_adaptive_avg_pool(tl_op op, const tl_tensor *in, int n, const int64_t *size,
                                  tl_tensor *out)
{
  const char *name = tl_op_infos[op].name;
  const tl_tensor *devs[] = {in};
  tl_nn_taps taps[TL_NN_POOL_MAX_DIMS] = {0};
  tl_status status = TL_OK;
  bool backward = op == TL_OP_ADAPTIVE_AVG_POOL_BACKWARD;
  const tl_nn_pool_kernels *set = tl_dispatch_kernel(op, in->dtype, 1, devs);
  if (!set ||
      (backward ? check_float(name, in->dtype)
                : check_dtype(n == 3 ? "adaptive_avg_pool3d_cpu" : "adaptive_avg_pool2d", in->dtype,
                              false)) != TL_OK ||
      (!backward && check_input(name, in, n) != TL_OK))
    return tl_error_status();
  if (in->ndim < n)
    return check_input(name, in, n);
  if (check_adaptive_size(name, in, n, size, backward ? 1 : 0) != TL_OK)
    return tl_error_status();
  const int64_t *sp = in->shape + in->ndim - n;
  bool ones = true; /* to size 1 (forward), or its gradient */
  for (int d = 0; d < n; d++)
    ones &= (backward ? sp[d] : size[d]) == 1;
  if (ones)
    return plane_mean(set, in, n, backward ? size : NULL, out);
  for (int d = 0; d < n && status == TL_OK; d++)
    status = backward ? tl_nn_taps_adaptive(&taps[d], size[d], sp[d], true)
                      : tl_nn_taps_adaptive(&taps[d], sp[d], size[d], true);
  if (status == TL_OK)
    status = run_weighted(set, in, n, taps, backward, pool_format(in, n, false), out);
  tl_nn_taps_release(taps, n);
  return status;
}

tl_status tl_nn_upsample(tl_op op, const tl_tensor *in, const tl_nn_resample *r,
                         const int64_t *size, tl_tensor *out)
{
  const char *name = tl_op_infos[op].name;
  const tl_tensor *devs[] = {in};
  tl_nn_taps taps[TL_NN_POOL_MAX_DIMS] = {0};
  tl_status status = TL_OK;
  char s[256], a[96];
  bool backward = op == TL_OP_UPSAMPLE_BACKWARD;
  const tl_nn_pool_kernels *set = tl_dispatch_kernel(op, in->dtype, 1, devs);
  if (!set || (backward ? check_float(name, in->dtype) : check_resample_dtype(r, in->dtype)) != TL_OK)
    return tl_error_status();
  if (in->ndim < r->n + 1)
    return tl_error_set(TL_ERR_RUNTIME, "%s: expected an input with %d spatial dims and a "
                        "channel dim, got %s", name, r->n,
                        tl_shape_str(s, sizeof s, in->ndim, in->shape));
  const int64_t *sp = in->shape + in->ndim - r->n;
  for (int d = 0; d < r->n; d++)
    if (size[d] <= 0 || (!backward && sp[d] <= 0))
      /* PyTorch's words: its 1-d kernels put an "and" between the two */
      return tl_error_set(TL_ERR_RUNTIME, "Input and output sizes should be greater than 0, but got "
                          "input (%s)%s output (%s)",
                          spatial_sizes_str(s, sizeof s, r->n, backward ? size : sp),
                          r->n == 1 ? " and" : "",
                          spatial_sizes_str(a, sizeof a, r->n, backward ? sp : size));
  /* the result's shape (the gradient's, backward) is checked before the tap
   * tables: a size of 2**31 x 2**31 would build (and fill) 2**31 taps a dim
   * before the output's allocation found the shape too large */
  int64_t result[TL_MAX_DIMS], numel;
  shape_with(in, r->n, size, result);
  if (tl_shape_numel(in->ndim, result, &numel) != TL_OK)
    return tl_error_status();
  bool single = in->dtype != TL_DTYPE_F64;
  bool fixed = in->dtype == TL_DTYPE_U8 && r->mode != TL_NN_RESAMPLE_NEAREST &&
               r->mode != TL_NN_RESAMPLE_NEAREST_EXACT;
  for (int d = 0; d < r->n && status == TL_OK; d++)
    status = backward ? tl_nn_taps_resample(&taps[d], size[d], sp[d], r, d, single)
             : fixed  ? tl_nn_taps_resample_fixed(&taps[d], sp[d], size[d], r, d)
                      : tl_nn_taps_resample(&taps[d], sp[d], size[d], r, d, single);
  /* every mode keeps a channels-last input's layout; PyTorch's backward
   * kernels of bicubic and of 3-d nearest write row-major gradients */
  bool row_major_grad = r->mode == TL_NN_RESAMPLE_CUBIC ||
                        (r->n == 3 && r->mode != TL_NN_RESAMPLE_LINEAR);
  tl_format f = backward && row_major_grad ? TL_FORMAT_CONTIGUOUS : pool_format(in, r->n, true);
  if (status == TL_OK)
    status = run_weighted(set, in, r->n, taps, backward, f, out);
  tl_nn_taps_release(taps, r->n);
  return status;
}

static const tl_nn_pool_kernels cpu_pool = {
    .window_max = tl_cpu_pool_window_max,
    .weighted = tl_cpu_pool_weighted,
    .scatter = tl_cpu_pool_scatter,
    .plane_mean = tl_cpu_pool_plane_mean,
    .channels_last = true,
};

tl_status tl_nn_pool_bad_index(const tl_tensor *out, int n, int64_t bad)
{
  char s[96] = "";
  for (int d = 0, at = 0; d < n && at < (int)sizeof s; d++)
    at += snprintf(s + at, sizeof s - (size_t)at, d ? "x%lld" : "%lld",
                   (long long)out->shape[out->ndim - n + d]);
  /* PyTorch's 1-d unpooling is its 2-d one over a width of 1, which its words show */
  return tl_error_set(TL_ERR_RUNTIME, "Found an invalid max index: %lld (output volumes are of "
                      "size %s%s)", (long long)bad, s, n == 1 ? "x1" : "");
}

void tl_nn_pool_register_set(tl_device_type device, const tl_nn_pool_kernels *set)
{
  static const tl_op ops[] = {TL_OP_MAX_POOL,          TL_OP_ADAPTIVE_MAX_POOL,
                              TL_OP_FRACTIONAL_MAX_POOL, TL_OP_MAX_POOL_BACKWARD,
                              TL_OP_MAX_UNPOOL,        TL_OP_AVG_POOL,
                              TL_OP_AVG_POOL_BACKWARD, TL_OP_ADAPTIVE_AVG_POOL,
                              TL_OP_ADAPTIVE_AVG_POOL_BACKWARD, TL_OP_UPSAMPLE,
                              TL_OP_UPSAMPLE_BACKWARD};
  for (size_t i = 0; i < sizeof ops / sizeof *ops; i++)
    tl_dispatch_register_set(ops[i], device, TL_DTYPES_ALL, set);
}

void tl_nn_pool_register(void) { tl_nn_pool_register_set(TL_DEVICE_CPU, &cpu_pool); }
