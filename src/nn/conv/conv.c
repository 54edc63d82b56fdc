/* conv.c - the device-neutral entry points of the convolution family
 * (tl_conv.h): argument and shape checks in PyTorch's words, the window
 * geometry, the outputs' allocation, and the CPU set's rows.             */
#include <stdio.h>
#include <string.h>

#include "nn/conv/tl_conv.h"
#include "nn/tl_nn_work.h"
#include "nn/tl_nn.h"

static const tl_dtype_set FLOATS = (tl_dtype_set)((1u << TL_DTYPE_F16) | (1u << TL_DTYPE_BF16) |
                                                  (1u << TL_DTYPE_F32) | (1u << TL_DTYPE_F64));

/* A list argument as nsp values: one value stands for every dim. */
static tl_status expand(const char *what, const int64_t *v, int n, int nsp, int64_t *out)
{
  if (n != 1 && n != nsp) {
    char got[128];
    return tl_error_set(TL_ERR_RUNTIME, "expected %s to be a single integer value or a list of %d "
                        "values to match the convolution dimensions, but got %s=%s", what, nsp,
                        what, tl_shape_str(got, sizeof got, n, v));
  }
  for (int d = 0; d < nsp; d++)
    out[d] = v[n == 1 ? 0 : d];
  return TL_OK;
}

/* "2 x 3": PyTorch's spelling of per-channel sizes. */
static const char *joined_str(char *buf, size_t size, int n, const int64_t *v, const char *sep)
{
  size_t used = 0;
  buf[0] = '\0';
  for (int d = 0; d < n && used < size; d++)
    used += (size_t)snprintf(buf + used, size - used, "%s%lld", d ? sep : "", (long long)v[d]);
  return buf;
}

static const char *sizes_str(char *buf, size_t size, int n, const int64_t *v)
{
  return joined_str(buf, size, n, v, " x ");
}

/* The geometry's lists from p, checked (the big/small sizes are the caller's). */
static tl_status geom_params(const tl_nn_conv_params *p, int nsp, tl_nn_conv_geom *g,
                             int64_t *output_padding)
{
  g->nsp = nsp;
  g->groups = p->groups;
  if (expand("stride", p->stride, p->nstride, nsp, g->stride) != TL_OK ||
      expand("padding", p->padding, p->npadding, nsp, g->padding) != TL_OK ||
      expand("dilation", p->dilation, p->ndilation, nsp, g->dilation) != TL_OK ||
      expand("output_padding", p->output_padding, p->noutput_padding, nsp,
             output_padding) != TL_OK)
    return tl_error_status();
  if (p->groups <= 0)
    return tl_error_set(TL_ERR_RUNTIME, "non-positive groups is not supported");
  for (int d = 0; d < nsp; d++) {
    if (g->stride[d] <= 0)
      return tl_error_set(TL_ERR_RUNTIME, "non-positive stride is not supported");
    if (g->padding[d] < 0)
      return tl_error_set(TL_ERR_RUNTIME, "negative padding is not supported");
    if (g->dilation[d] <= 0) {
      char sd[128];
      return tl_error_set(TL_ERR_RUNTIME, "dilation should be greater than zero, but got %s",
                          tl_shape_str(sd, sizeof sd, nsp, g->dilation));
    }
    if (output_padding[d] < 0)
      return tl_error_set(TL_ERR_RUNTIME, "negative output_padding is not supported");
  }
  return TL_OK;
}

/* "(3, 3)" */
static const char *tuple_str(char *buf, size_t size, int n, const int64_t *v)
{
  tl_shape_str(buf, size, n, v);
  buf[0] = '(';
  buf[strlen(buf) - 1] = ')';
  return buf;
}

/* unfold/fold's words for a window that does not fit. */
static tl_status fold_too_small(const tl_nn_conv_geom *g)
{
  char a[128], b[128], c[128], d[128], e[128];
  int64_t blocks[TL_NN_CONV_MAX_DIMS];
  for (int i = 0; i < g->nsp; i++)
    blocks[i] = (g->big[i] + 2 * g->padding[i] - g->dilation[i] * (g->kernel[i] - 1) - 1) /
                    g->stride[i] + 1;
  return tl_error_set(TL_ERR_RUNTIME, "Given input with spatial size %s, kernel_size=%s, "
                      "dilation=%s, padding=%s, calculated shape of the array of sliding blocks as "
                      "%s, but its components must be at least one.",
                      tuple_str(a, sizeof a, g->nsp, g->big), tuple_str(b, sizeof b, g->nsp, g->kernel),
                      tuple_str(c, sizeof c, g->nsp, g->dilation),
                      tuple_str(d, sizeof d, g->nsp, g->padding), tuple_str(e, sizeof e, g->nsp, blocks));
}

/* The sizes' arithmetic left int64 (padding, stride or dilation near 2**62). */
static tl_status geom_overflow(const tl_nn_conv_geom *g, const int64_t *size)
{
  char a[128], b[128], c[128], d[128], e[128];
  return tl_error_set(TL_ERR_RUNTIME, "convolution sizes overflow int64: input size per channel "
                      "%s, kernel_size=%s, stride=%s, padding=%s, dilation=%s",
                      tuple_str(a, sizeof a, g->nsp, size), tuple_str(b, sizeof b, g->nsp, g->kernel),
                      tuple_str(c, sizeof c, g->nsp, g->stride),
                      tuple_str(d, sizeof d, g->nsp, g->padding),
                      tuple_str(e, sizeof e, g->nsp, g->dilation));
}

/* The padded input and the dilated window along dim d, false on overflow. */
static bool padded_and_span(const tl_nn_conv_geom *g, int d, int64_t big, int64_t *padded,
                            int64_t *span)
{
  return !__builtin_mul_overflow(g->padding[d], 2, padded) &&
         !__builtin_add_overflow(*padded, big, padded) &&
         !__builtin_mul_overflow(g->dilation[d], g->kernel[d] - 1, span) &&
         !__builtin_add_overflow(*span, 1, span);
}

/* small from big (a convolution's output size), with PyTorch's errors
 * (unfold/fold's when fold). */
static tl_status geom_small(tl_nn_conv_geom *g, bool fold)
{
  int64_t padded[TL_NN_CONV_MAX_DIMS], span[TL_NN_CONV_MAX_DIMS];
  char a[128], b[128];
  bool ok = true;
  for (int d = 0; d < g->nsp; d++) {
    if (!padded_and_span(g, d, g->big[d], &padded[d], &span[d]))
      return geom_overflow(g, g->big);
    ok = ok && padded[d] >= span[d];
    g->small[d] = padded[d] >= span[d] ? (padded[d] - span[d]) / g->stride[d] + 1 : 0;
  }
  if (!ok && fold)
    return fold_too_small(g);
  if (!ok)
    return tl_error_set(TL_ERR_RUNTIME, "Calculated padded input size per channel: (%s). Kernel "
                        "size: (%s). Kernel size can't be greater than actual input size",
                        sizes_str(a, sizeof a, g->nsp, padded), sizes_str(b, sizeof b, g->nsp, span));
  return TL_OK;
}

/* PyTorch's words, each list per dim (1-d as 2-d with a height of 1). */
static tl_status output_padding_error(const tl_nn_conv_geom *g, const int64_t *output_padding)
{
  static const char *const names[] = {"depth", "height", "width"};
  const char *what[] = {"output_padding", "stride", "dilation"};
  const int64_t *lists[] = {output_padding, g->stride, g->dilation};
  char buf[512];
  size_t used = 0;
  int n = g->nsp < 2 ? 2 : g->nsp;
  for (int l = 0; l < 3; l++)
    for (int d = 0; d < n; d++) {
      int64_t v = g->nsp < 2 ? (d == 0 ? l > 0 : lists[l][0]) : lists[l][d];
      used += (size_t)snprintf(buf + used, used < sizeof buf ? sizeof buf - used : 0,
                               "%s%s_%s: %lld", l || d ? " " : "", what[l], names[3 - n + d],
                               (long long)v);
    }
  return tl_error_set(TL_ERR_RUNTIME, "output padding must be smaller than either stride or "
                      "dilation, but got %s", buf);
}

/* big from small (a transposed convolution's output size). */
static tl_status geom_big(tl_nn_conv_geom *g, const int64_t *output_padding)
{
  char a[128], b[128];
  bool ok = true;
  for (int d = 0; d < g->nsp; d++)
    if (output_padding[d] >= g->stride[d] && output_padding[d] >= g->dilation[d])
      return output_padding_error(g, output_padding);
  for (int d = 0; d < g->nsp; d++) {
    /* (small - 1) * stride - 2 * padding + span + output_padding, each step checked */
    int64_t padding2, span, big;
    if (!padded_and_span(g, d, 0, &padding2, &span) ||
        __builtin_mul_overflow(g->small[d] - 1, g->stride[d], &big) ||
        __builtin_sub_overflow(big, padding2, &big) || __builtin_add_overflow(big, span, &big) ||
        __builtin_add_overflow(big, output_padding[d], &big))
      return geom_overflow(g, g->small);
    g->big[d] = big;
    ok = ok && g->big[d] > 0;
  }
  /* PyTorch's 1-d transposed convolution is its 2-d one over a height of 1,
   * whose words show that height */
  const char *one = g->nsp == 1 ? "1 x " : "";
  if (!ok)
    return tl_error_set(TL_ERR_RUNTIME, "Given input size per channel: (%s%s). Calculated output "
                        "size per channel: (%s%s). Output size is too small", one,
                        sizes_str(a, sizeof a, g->nsp, g->small), one,
                        sizes_str(b, sizeof b, g->nsp, g->big));
  return TL_OK;
}

static tl_status check_dtypes(const tl_tensor *input, const tl_tensor *other)
{
  if (other && other->dtype != input->dtype)
    return tl_error_set(TL_ERR_RUNTIME, "expected scalar type %s but found %s",
                        tl_dtype_scalar_name(input->dtype), tl_dtype_scalar_name(other->dtype));
  return TL_OK;
}

/* A bias of another dtype than the input: PyTorch's own wording, with the
 * C++ type names ("long int", "c10::Half" ...). */
static tl_status check_bias_dtype(const tl_tensor *input, const tl_tensor *bias)
{
  if (bias && bias->dtype != input->dtype)
    return tl_error_set(TL_ERR_RUNTIME, "Input type (%s) and bias type (%s) should be the same",
                        tl_dtype_cpp_name(input->dtype), tl_dtype_cpp_name(bias->dtype));
  return TL_OK;
}

/* The checks shared by convolution and its weight gradient: ranks, groups and
 * channels.  Fills g (all but the big/small sizes). */
static tl_status check_conv(const char *name, const tl_tensor *input, int wdim, const int64_t *wshape,
                            const tl_nn_conv_params *p, tl_nn_conv_geom *g, int64_t *output_padding)
{
  char si[256], sw[256];
  int nsp = input->ndim - 2;
  tl_shape_str(si, sizeof si, input->ndim, input->shape);
  tl_shape_str(sw, sizeof sw, wdim, wshape);
  if (wdim < 3) /* PyTorch's words, its shape added */
    return tl_error_set(TL_ERR_RUNTIME, "weight should have at least three dimensions (%s(): got "
                        "weight of size %s)", name, sw);
  if (wdim > TL_NN_CONV_MAX_DIMS + 2)
    return tl_error_set(TL_ERR_RUNTIME, "%s(): expected a weight of 3 to %d dimensions, but got "
                        "weight of size %s", name, TL_NN_CONV_MAX_DIMS + 2, sw);
  if (input->ndim != wdim)
    return tl_error_set(TL_ERR_RUNTIME, "Expected %d-dimensional input for %d-dimensional weight "
                        "%s, but got %d-dimensional input of size %s instead", wdim, wdim, sw,
                        input->ndim, si);
  if (geom_params(p, nsp, g, output_padding) != TL_OK)
    return tl_error_status();
  if (!p->transposed && wshape[0] < p->groups) /* no output channels: PyTorch refuses */
    return tl_error_set(TL_ERR_RUNTIME, "Given groups=%lld, expected weight to be at least %lld "
                        "at dimension 0, but got weight of size %s instead",
                        (long long)p->groups, (long long)p->groups, sw);
  if (wshape[0] % p->groups)
    return tl_error_set(TL_ERR_RUNTIME, "Given groups=%lld, expected weight to be divisible by "
                        "%lld at dimension 0, but got weight of size %s instead",
                        (long long)p->groups, (long long)p->groups, sw);
  int64_t want = p->transposed ? wshape[0] : wshape[1] * p->groups;
  if (input->shape[1] != want) {
    if (p->transposed)
      return tl_error_set(TL_ERR_RUNTIME, "Given transposed=1, weight of size %s, expected "
                          "input%s to have %lld channels, but got %lld channels instead", sw, si,
                          (long long)want, (long long)input->shape[1]);
    return tl_error_set(TL_ERR_RUNTIME, "Given groups=%lld, weight of size %s, expected input%s "
                        "to have %lld channels, but got %lld channels instead",
                        (long long)p->groups, sw, si, (long long)want,
                        (long long)input->shape[1]);
  }
  for (int d = 0; d < nsp; d++)
    g->kernel[d] = wshape[2 + d];
  return TL_OK;
}

/* The layout of a convolution's result, as PyTorch's CPU convolutions give
 * it: channels-last when the input or the weight is (so a weight converted by
 * nn.utils.convert_conv2d_weight_memory_format carries a whole network over);
 * PyTorch's 3-d float64 convolutions (no oneDNN kernel) stay row-major. */
static tl_format conv_format(const tl_tensor *input, const tl_tensor *weight)
{
  tl_format f = tl_tensor_suggest_format(input);
  if (f == TL_FORMAT_CONTIGUOUS)
    f = tl_tensor_suggest_format(weight);
  if (f == TL_FORMAT_CHANNELS_LAST_3D && input->dtype == TL_DTYPE_F64)
    return TL_FORMAT_CONTIGUOUS;
  return f;
}

tl_status tl_nn_convolution(const tl_tensor *input, const tl_tensor *weight, const tl_tensor *bias,
                            const tl_nn_conv_params *p, tl_tensor *out)
{
  const char *name = "convolution";
  const tl_tensor *devs[] = {input, weight, bias};
  tl_nn_conv_geom g = {0};
  int64_t output_padding[TL_NN_CONV_MAX_DIMS], shape[TL_MAX_DIMS];
  /* a convolution's bias is checked first (PyTorch names it even when the weight's dtype
   * differs too), a transposed one's after the weight; both before the kernel is looked
   * up, so that an integer input into a float layer is named as a mismatch */
  bool bias_first = !p->transposed;
  if ((bias_first && check_bias_dtype(input, bias) != TL_OK) ||
      check_dtypes(input, weight) != TL_OK || check_bias_dtype(input, bias) != TL_OK)
    return tl_error_status();
  const tl_nn_conv_kernels *set =
      tl_dispatch_kernel(TL_OP_CONVOLUTION, input->dtype, bias ? 3 : 2, devs);
  if (!set || check_conv(name, input, weight->ndim, weight->shape, p, &g, output_padding) != TL_OK)
    return tl_error_status();
  int64_t out_channels = p->transposed ? weight->shape[1] * p->groups : weight->shape[0];
  if (bias && (bias->ndim != 1 || bias->shape[0] != out_channels)) {
    char sw[256], sb[256];
    return tl_error_set(TL_ERR_RUNTIME, "Given weight of size %s, expected bias to be "
                        "1-dimensional with %lld elements, but got bias of size %s instead",
                        tl_shape_str(sw, sizeof sw, weight->ndim, weight->shape),
                        (long long)out_channels,
                        tl_shape_str(sb, sizeof sb, bias->ndim, bias->shape));
  }
  for (int d = 0; d < g.nsp; d++)
    (p->transposed ? g.small : g.big)[d] = input->shape[2 + d];
  if ((p->transposed ? geom_big(&g, output_padding) : geom_small(&g, false)) != TL_OK)
    return tl_error_status();
  for (int d = 0; d < g.nsp; d++)
    if (input->shape[2 + d] == 0) {
      char si[256];
      return tl_error_set(TL_ERR_RUNTIME, "Only zero batch or zero channel inputs are supported, "
                          "but got input shape: %s",
                          tl_shape_str(si, sizeof si, input->ndim, input->shape));
    }
  shape[0] = input->shape[0];
  shape[1] = out_channels;
  memcpy(shape + 2, p->transposed ? g.big : g.small, (size_t)g.nsp * sizeof *shape);
  /* a set that writes any layout gets the result in its final one: no copy after */
  tl_format format = conv_format(input, weight);
  tl_status status = tl_tensor_empty_shaped(out, input->dtype, input->ndim, shape,
                                            tl_tensor_device(input),
                                            set->any_layout ? format : TL_FORMAT_CONTIGUOUS);
  if (status == TL_OK)
    status = p->transposed ? set->conv_t(input, weight, bias, &g, out)
                           : set->conv(input, weight, bias, &g, out);
  if (status != TL_OK && out->storage)
    tl_tensor_release(out);
  if (status == TL_OK && !set->any_layout)
    status = tl_tensor_relayout(out, format);
  return status;
}

tl_status tl_nn_convolution_backward_weight(const tl_tensor *grad_output, const tl_tensor *input,
                                            const int64_t *weight_size, int nweight,
                                            const tl_nn_conv_params *p, tl_tensor *grad_weight)
{
  const char *name = "_convolution_backward_weight";
  const tl_tensor *devs[] = {grad_output, input};
  tl_nn_conv_geom g = {0};
  int64_t output_padding[TL_NN_CONV_MAX_DIMS], want[TL_MAX_DIMS];
  const tl_nn_conv_kernels *set =
      tl_dispatch_kernel(TL_OP_CONVOLUTION_BACKWARD_WEIGHT, input->dtype, 2, devs);
  if (!set || check_dtypes(input, grad_output) != TL_OK ||
      check_conv(name, input, nweight, weight_size, p, &g, output_padding) != TL_OK)
    return tl_error_status();
  for (int d = 0; d < g.nsp; d++)
    (p->transposed ? g.small : g.big)[d] = input->shape[2 + d];
  /* the transposed output's size is grad_output's: output_padding is implied */
  for (int d = 0; d < g.nsp && p->transposed; d++)
    output_padding[d] = grad_output->ndim == input->ndim ? grad_output->shape[2 + d] : 0;
  if (p->transposed) {
    for (int d = 0; d < g.nsp; d++)
      output_padding[d] -= (g.small[d] - 1) * g.stride[d] - 2 * g.padding[d] +
                           g.dilation[d] * (g.kernel[d] - 1) + 1;
  }
  if ((p->transposed ? geom_big(&g, output_padding) : geom_small(&g, false)) != TL_OK)
    return tl_error_status();
  want[0] = input->shape[0];
  want[1] = p->transposed ? weight_size[1] * p->groups : weight_size[0];
  memcpy(want + 2, p->transposed ? g.big : g.small, (size_t)g.nsp * sizeof *want);
  if (grad_output->ndim != input->ndim ||
      memcmp(grad_output->shape, want, (size_t)input->ndim * sizeof *want)) {
    char sg[256], sw[256];
    return tl_error_set(TL_ERR_RUNTIME, "%s(): expected grad_output of size %s, but got %s", name,
                        tl_shape_str(sw, sizeof sw, input->ndim, want),
                        tl_shape_str(sg, sizeof sg, grad_output->ndim, grad_output->shape));
  }
  tl_status status = tl_tensor_empty(grad_weight, input->dtype, nweight, weight_size,
                                     tl_tensor_device(input));
  if (status == TL_OK)
    status = p->transposed ? set->weight(input, grad_output, &g, grad_weight)
                           : set->weight(grad_output, input, &g, grad_weight);
  if (status != TL_OK && grad_weight->storage)
    tl_tensor_release(grad_weight);
  return status;
}

/* prod(v[0..n)) into *out; false when it leaves int64 (kernel_size 2**62 in
 * two dims, or a padding of 2**31 making 2**32 blocks per dim). */
static bool checked_prod(int n, const int64_t *v, int64_t *out)
{
  *out = 1;
  for (int d = 0; d < n; d++)
    if (__builtin_mul_overflow(*out, v[d], out))
      return false;
  return true;
}

/* fold/unfold's geometry: kernel, dilation, padding, stride for nsp dims. */
static tl_status fold_geom(const char *name, const tl_nn_fold_params *p, int nsp, tl_nn_conv_geom *g)
{
  g->nsp = nsp;
  g->groups = 1;
  if (expand("kernel_size", p->kernel, p->nkernel, nsp, g->kernel) != TL_OK ||
      expand("dilation", p->dilation, p->ndilation, nsp, g->dilation) != TL_OK ||
      expand("padding", p->padding, p->npadding, nsp, g->padding) != TL_OK ||
      expand("stride", p->stride, p->nstride, nsp, g->stride) != TL_OK)
    return tl_error_status();
  for (int d = 0; d < nsp; d++) {
    if (g->kernel[d] <= 0 || g->dilation[d] <= 0 || g->stride[d] <= 0 || g->padding[d] < 0)
      return tl_error_set(TL_ERR_RUNTIME, "%s(): expected kernel_size, dilation and stride to be "
                          "greater than zero and padding non-negative", name);
  }
  return TL_OK;
}

tl_status tl_nn_im2col(const tl_tensor *input, const tl_nn_fold_params *p, tl_tensor *out)
{
  const char *name = "im2col";
  const tl_tensor *devs[] = {input};
  tl_nn_conv_geom g = {0};
  const tl_nn_conv_kernels *set = tl_dispatch_kernel(TL_OP_IM2COL, input->dtype, 1, devs);
  if (!set)
    return tl_error_status();
  if (input->ndim < 3 || input->ndim > TL_NN_CONV_MAX_DIMS + 2) {
    char s[256];
    return tl_error_set(TL_ERR_RUNTIME, "%s(): expected a batched input of 1 to %d spatial dims, "
                        "but got input of size %s", name, TL_NN_CONV_MAX_DIMS,
                        tl_shape_str(s, sizeof s, input->ndim, input->shape));
  }
  if (fold_geom(name, p, input->ndim - 2, &g) != TL_OK)
    return tl_error_status();
  memcpy(g.big, input->shape + 2, (size_t)g.nsp * sizeof *g.big);
  if (geom_small(&g, true) != TL_OK)
    return tl_error_status();
  int64_t K, L, CK;
  if (!checked_prod(g.nsp, g.kernel, &K) || !checked_prod(g.nsp, g.small, &L) ||
      __builtin_mul_overflow(input->shape[1], K, &CK))
    return geom_overflow(&g, g.big);
  int64_t shape[3] = {input->shape[0], CK, L};
  tl_status status = tl_tensor_empty(out, input->dtype, 3, shape, tl_tensor_device(input));
  if (status == TL_OK)
    status = set->im2col(input, &g, out);
  if (status != TL_OK && out->storage)
    tl_tensor_release(out);
  return status;
}

tl_status tl_nn_col2im(const tl_tensor *input, const tl_nn_fold_params *p, tl_tensor *out)
{
  const char *name = "col2im";
  const tl_tensor *devs[] = {input};
  tl_nn_conv_geom g = {0};
  char s[256], a[128];
  const tl_nn_conv_kernels *set = tl_dispatch_kernel(TL_OP_COL2IM, input->dtype, 1, devs);
  if (!set)
    return tl_error_status();
  int nsp = p->noutput_size;
  if (input->ndim != 3 || nsp < 1 || nsp > TL_NN_CONV_MAX_DIMS)
    return tl_error_set(TL_ERR_RUNTIME, "%s(): expected a 3-D input (N, C * prod(kernel_size), L) "
                        "and 1 to %d output sizes, but got input of size %s",
                        name, TL_NN_CONV_MAX_DIMS, tl_shape_str(s, sizeof s, input->ndim, input->shape));
  if (fold_geom(name, p, nsp, &g) != TL_OK)
    return tl_error_status();
  memcpy(g.big, p->output_size, (size_t)nsp * sizeof *g.big);
  int64_t K, L;
  if (!checked_prod(nsp, g.kernel, &K))
    return geom_overflow(&g, g.big);
  if (input->shape[1] % K)
    return tl_error_set(TL_ERR_RUNTIME, "Expected size of input's dimension 1 to be divisible by "
                        "the product of kernel_size, but got input.size(1)=%lld and "
                        "kernel_size=%s.", (long long)input->shape[1],
                        tuple_str(a, sizeof a, nsp, g.kernel));
  if (geom_small(&g, true) != TL_OK)
    return tl_error_status();
  if (!checked_prod(nsp, g.small, &L))
    return geom_overflow(&g, g.big);
  if (input->shape[2] != L) {
    char o[128], b[128], dl[128], pd[128], st[128];
    return tl_error_set(TL_ERR_RUNTIME, "Given output_size=%s, kernel_size=%s, dilation=%s, "
                        "padding=%s, stride=%s, expected size of input's dimension 2 to match the "
                        "calculated number of sliding blocks %s = %lld, but got input.size(2)=%lld.",
                        tuple_str(o, sizeof o, nsp, g.big), tuple_str(a, sizeof a, nsp, g.kernel),
                        tuple_str(dl, sizeof dl, nsp, g.dilation),
                        tuple_str(pd, sizeof pd, nsp, g.padding),
                        tuple_str(st, sizeof st, nsp, g.stride),
                        joined_str(b, sizeof b, nsp, g.small, " * "), (long long)L,
                        (long long)input->shape[2]);
  }
  int64_t shape[2 + TL_NN_CONV_MAX_DIMS] = {input->shape[0], input->shape[1] / K};
  memcpy(shape + 2, g.big, (size_t)nsp * sizeof *shape);
  tl_status status = tl_tensor_empty(out, input->dtype, 2 + nsp, shape, tl_tensor_device(input));
  if (status == TL_OK)
    status = set->col2im(input, &g, out);
  if (status != TL_OK && out->storage)
    tl_tensor_release(out);
  return status;
}

void tl_nn_conv_register_set(tl_device_type device, const tl_nn_conv_kernels *set)
{
  static const tl_op ops[] = {TL_OP_CONVOLUTION, TL_OP_CONVOLUTION_BACKWARD_WEIGHT, TL_OP_IM2COL,
                              TL_OP_COL2IM};
  for (size_t i = 0; i < sizeof ops / sizeof *ops; i++)
    tl_dispatch_register_set(ops[i], device, FLOATS, set);
}

void tl_nn_conv_register(void) { tl_nn_conv_register_set(TL_DEVICE_CPU, &tl_cpu_conv_kernels); }
