/* norm.c - the device-neutral entry points of the normalisation ops
 * (tl_norm.h): shapes checked in PyTorch's words, results allocated on the
 * input's device, a missing weight or bias made ones or zeros, then the
 * device's kernel.  Also the CPU set's rows in the kernel table. */
#include <float.h>
#include <string.h>

#include "ndcore/kernels/tl_create.h"
#include "nn/norm/tl_norm.h"
#include "nn/tl_nn.h"

static tl_dtype work_of(tl_dtype d) { return d == TL_DTYPE_F64 ? TL_DTYPE_F64 : TL_DTYPE_F32; }

/* Floating inputs only, refused as PyTorch's NotImplementedError. */
static tl_status check_float(tl_op op, const tl_tensor *x)
{
  if (tl_dtype_is_float(x->dtype))
    return TL_OK;
  return tl_error_set(TL_ERR_NOT_IMPLEMENTED, "%s(): expected a floating point input, got %s",
                      tl_op_infos[op].name, tl_dtype_names[x->dtype]);
}

/* The parameters' dtypes (weight, bias; batch norm's running statistics
 * too), by PyTorch's CPU rule: all of the input's dtype, or all float32
 * beside a float16/bfloat16 input (the mixed-type kernels).  The first
 * given parameter decides which rule, as in PyTorch; its messages. */
static tl_status check_param_dtypes(const tl_tensor *x, const tl_tensor *const *p, int n)
{
  const tl_tensor *first = NULL;
  for (int i = 0; i < n && !first; i++)
    first = p[i];
  if (!first)
    return TL_OK;
  if (first->dtype == x->dtype) {
    for (int i = 0; i < n; i++)
      if (p[i] && p[i]->dtype != x->dtype)
        return tl_error_set(TL_ERR_RUNTIME, "expected scalar type %s but found %s",
                            tl_dtype_scalar_name(x->dtype), tl_dtype_scalar_name(p[i]->dtype));
    return TL_OK;
  }
  for (int i = 0; i < n; i++)
    if (p[i] && p[i]->dtype != TL_DTYPE_F32)
      return tl_error_set(TL_ERR_RUNTIME,
                          "mixed dtype (CPU): expect parameter to have scalar type of Float");
  if (x->dtype == TL_DTYPE_F16 || x->dtype == TL_DTYPE_BF16)
    return TL_OK;
  return tl_error_set(TL_ERR_RUNTIME, "mixed dtype (CPU): all inputs must share same datatype.");
}

/* `t` (when given) holds C elements, else "name should contain C elements not n". */
static tl_status check_numel(const char *name, const tl_tensor *t, int64_t C)
{
  if (!t || tl_tensor_numel(t) == C)
    return TL_OK;
  return tl_error_set(TL_ERR_RUNTIME, "%s should contain %lld elements not %lld", name,
                      (long long)C, (long long)tl_tensor_numel(t));
}

/* The given weight/bias as a flat (C,) view, or a new one filled with `fill`. */
static tl_status affine_or(const tl_tensor *t, int64_t C, double fill, tl_dtype dtype,
                           tl_device device, tl_tensor *out)
{
  if (t) {
    tl_tensor_view_of(out, t);
    if (tl_tensor_is_contiguous(t) || t->ndim == 1) {
      int64_t stride = t->ndim == 1 ? t->strides[0] : 1;
      out->ndim = 1;
      out->shape[0] = C;
      out->strides[0] = stride;
      return TL_OK;
    }
    tl_tensor_release(out);
    tl_tensor flat = {0};
    tl_status status = tl_tensor_to_dtype(&flat, t, t->dtype);
    if (status != TL_OK)
      return status;
    *out = flat;
    out->ndim = 1;
    out->shape[0] = C;
    out->strides[0] = 1;
    return TL_OK;
  }
  tl_status status = tl_tensor_empty(out, dtype, 1, &C, device);
  if (status == TL_OK)
    status = tl_tensor_fill(out, (tl_scalar){.kind = TL_KIND_FLOAT, .v.f = fill});
  return status;
}

/* The layout of y and dx: batch and group norm keep a channels-last x's
 * (PyTorch's CPU kernels do), layer and rms norm are row-major. */
static tl_format norm_format(tl_op op, const tl_tensor *x)
{
  bool keeps = op == TL_OP_NATIVE_BATCH_NORM || op == TL_OP_NATIVE_BATCH_NORM_BACKWARD ||
               op == TL_OP_NATIVE_GROUP_NORM || op == TL_OP_NATIVE_GROUP_NORM_BACKWARD;
  return keeps ? tl_tensor_suggest_format(x) : TL_FORMAT_CONTIGUOUS;
}

/* A new y or dx of x's shape and `dtype`, laid out in f when the set writes
 * that layout itself (channels_last), else row-major (laid out after). */
static tl_status alloc_result(const tl_nn_norm_kernels *set, const tl_tensor *x, tl_dtype dtype,
                              tl_format f, tl_tensor *out)
{
  return tl_tensor_empty_shaped(out, dtype, x->ndim, x->shape, tl_tensor_device(x),
                                set->channels_last ? f : TL_FORMAT_CONTIGUOUS);
}

/* The forward common to every op: allocate y (x's shape and dtype), mean and
 * rstd (shape nstat/stat_shape, work dtype; mean skipped when NULL), fill in
 * the missing affine terms, run the kernel. */
static tl_status run_forward(tl_op op, const tl_norm_spec *s, const tl_tensor *x,
                             const tl_tensor *w, const tl_tensor *b, tl_tensor *rm, tl_tensor *rv,
                             int nstat, const int64_t *stat_shape, tl_tensor *y, tl_tensor *mean,
                             tl_tensor *rstd)
{
  const tl_tensor *devs[] = {x, w ? w : x, b ? b : x, rm ? rm : x, rv ? rv : x};
  const tl_nn_norm_kernels *set = tl_dispatch_kernel(op, x->dtype, 5, devs);
  tl_tensor wt = {0}, bt = {0};
  tl_dtype work = work_of(x->dtype);
  tl_device dev;
  tl_status status;
  if (!set)
    return tl_error_status();
  dev = tl_tensor_device(x);
  if ((status = affine_or(w, s->C, 1, work, dev, &wt)) != TL_OK ||
      (status = affine_or(b, s->C, 0, work, dev, &bt)) != TL_OK ||
      (status = alloc_result(set, x, x->dtype, norm_format(op, x), y)) != TL_OK ||
      (mean && (status = tl_tensor_empty(mean, work, nstat, stat_shape, dev)) != TL_OK) ||
      (status = tl_tensor_empty(rstd, work, nstat, stat_shape, dev)) != TL_OK)
    goto done;
  if (s->per_channel && !s->train && /* the kernel reads the running stats from mean, rstd */
      ((status = tl_tensor_copy(mean, rm)) != TL_OK || (status = tl_tensor_copy(rstd, rv)) != TL_OK))
    goto done;
  status = set->forward(s, x, &wt, &bt, s->train ? rm : NULL, s->train ? rv : NULL, y, mean, rstd);
  if (status == TL_OK)
    status = tl_tensor_relayout(y, norm_format(op, x));
done:
  if (status != TL_OK) {
    tl_tensor_release(y);
    tl_tensor_release(mean);
    tl_tensor_release(rstd);
  }
  tl_tensor_release(&wt);
  tl_tensor_release(&bt);
  return status;
}

/* The backward common to every op: dx of x's shape, dw and db of the
 * weight's shape and dtype (the bias's, else (C,) of the work dtype, when no
 * weight was given: PyTorch's ops take an output mask instead).  db NULL: the
 * op returns none (rms_norm). */
static tl_status run_backward(tl_op op, const tl_norm_spec *s, const tl_tensor *g,
                              const tl_tensor *x, const tl_tensor *mean, const tl_tensor *rstd,
                              const tl_tensor *w, const tl_tensor *b, tl_tensor *dx, tl_tensor *dw,
                              tl_tensor *db)
{
  const tl_tensor *devs[] = {g, x, rstd, w ? w : x};
  const tl_nn_norm_kernels *set = tl_dispatch_kernel(op, x->dtype, 4, devs);
  const tl_tensor *like = w ? w : b;
  char sg[256], sx[256];
  tl_tensor wt = {0}, scratch = {0};
  tl_status status;
  if (!set)
    return tl_error_status();
  if (g->ndim != x->ndim || memcmp(g->shape, x->shape, (size_t)x->ndim * sizeof *x->shape))
    return tl_error_set(TL_ERR_RUNTIME, "%s(): grad_out of shape %s does not match input of "
                                        "shape %s", tl_op_infos[op].name,
                        tl_shape_str(sg, sizeof sg, g->ndim, g->shape),
                        tl_shape_str(sx, sizeof sx, x->ndim, x->shape));
  if (tl_tensor_numel(rstd) != (s->per_channel ? s->C : s->N * s->G) ||
      (mean && tl_tensor_numel(mean) != tl_tensor_numel(rstd)))
    return tl_error_set(TL_ERR_RUNTIME, "%s(): mean and rstd should contain %lld elements",
                        tl_op_infos[op].name, (long long)(s->per_channel ? s->C : s->N * s->G));
  tl_device dev = tl_tensor_device(x);
  tl_dtype adt = like ? like->dtype : work_of(x->dtype);
  int nd = like ? like->ndim : 1;
  const int64_t *ashape = like ? like->shape : &s->C;
  if ((status = affine_or(w, s->C, 1, work_of(x->dtype), dev, &wt)) != TL_OK ||
      (status = alloc_result(set, x, x->dtype, norm_format(op, x), dx)) != TL_OK ||
      (status = tl_tensor_empty(dw, adt, nd, ashape, dev)) != TL_OK ||
      (status = tl_tensor_empty(db ? db : &scratch, adt, nd, ashape, dev)) != TL_OK)
    goto done;
  status = set->backward(s, g, x, mean, rstd, &wt, dx, dw, db ? db : &scratch);
  if (status == TL_OK)
    status = tl_tensor_relayout(dx, norm_format(op, x));
done:
  if (status != TL_OK) {
    tl_tensor_release(dx);
    tl_tensor_release(dw);
    tl_tensor_release(db);
  }
  tl_tensor_release(&scratch);
  tl_tensor_release(&wt);
  return status;
}

/* ---- layer_norm and rms_norm: x as (M, K), K = prod(normalized_shape) ---- */

/* layer: layer_norm's words, "[*, 4]"; else rms_norm's, whose PyTorch
 * message has no comma after the star ("[*4]", "[*2, 3]"). */
static tl_status check_normalized(const tl_tensor *x, int nshape, const int64_t *shape,
                                  const tl_tensor *w, const tl_tensor *b, bool layer,
                                  tl_norm_spec *s)
{
  char sn[256], sx[256], sw[256];
  if (nshape < 1)
    return tl_error_set(TL_ERR_RUNTIME, "Expected normalized_shape to be at least 1-dimensional, "
                                        "i.e., containing at least one element, but got "
                                        "normalized_shape = []");
  bool ok = nshape <= x->ndim;
  for (int i = 0; ok && i < nshape; i++)
    ok = x->shape[x->ndim - nshape + i] == shape[i];
  tl_shape_str(sn, sizeof sn, nshape, shape);
  if (!ok) {
    /* "[*, 4]": the normalized shape after a star */
    return tl_error_set(TL_ERR_RUNTIME, "Given normalized_shape=%s, expected input with shape "
                                        "[*%s%.*s, but got input of size%s", sn, layer ? ", " : "",
                        (int)strlen(sn) - 1, sn + 1, tl_shape_str(sx, sizeof sx, x->ndim, x->shape));
  }
  for (int k = 0; k < 2; k++) {
    const tl_tensor *t = k ? b : w;
    if (t && (t->ndim != nshape || memcmp(t->shape, shape, (size_t)nshape * sizeof *shape)))
      return tl_error_set(TL_ERR_RUNTIME, "Expected %s to be of same shape as normalized_shape, "
                                          "but got %s of shape %s and normalized_shape = %s",
                          k ? "bias" : "weight", k ? "bias" : "weight",
                          tl_shape_str(sw, sizeof sw, t->ndim, t->shape), sn);
  }
  int64_t K = 1, M = 1;
  for (int i = 0; i < x->ndim; i++)
    *(i < x->ndim - nshape ? &M : &K) *= x->shape[i];
  *s = (tl_norm_spec){.N = M, .C = K, .S = 1, .G = 1};
  return TL_OK;
}

/* mean/rstd's shape: the batch dims, then nshape ones. */
static int stat_shape_of(const tl_tensor *x, int nshape, int64_t *out)
{
  for (int i = 0; i < x->ndim; i++)
    out[i] = i < x->ndim - nshape ? x->shape[i] : 1;
  return x->ndim;
}

tl_status tl_nn_layer_norm(const tl_tensor *x, int nshape, const int64_t *shape,
                           const tl_tensor *w, const tl_tensor *b, double eps, tl_tensor *y,
                           tl_tensor *mean, tl_tensor *rstd)
{
  tl_norm_spec s;
  int64_t st[TL_MAX_DIMS];
  const tl_tensor *params[] = {w, b};
  if (check_float(TL_OP_NATIVE_LAYER_NORM, x) != TL_OK || check_param_dtypes(x, params, 2) != TL_OK ||
      check_normalized(x, nshape, shape, w, b, true, &s) != TL_OK)
    return tl_error_status();
  s.eps = eps;
  return run_forward(TL_OP_NATIVE_LAYER_NORM, &s, x, w, b, NULL, NULL, stat_shape_of(x, nshape, st),
                     st, y, mean, rstd);
}

tl_status tl_nn_layer_norm_backward(const tl_tensor *g, const tl_tensor *x, int nshape,
                                    const int64_t *shape, const tl_tensor *mean,
                                    const tl_tensor *rstd, const tl_tensor *w, const tl_tensor *b,
                                    tl_tensor *dx, tl_tensor *dw, tl_tensor *db)
{
  tl_norm_spec s;
  if (check_float(TL_OP_NATIVE_LAYER_NORM_BACKWARD, x) != TL_OK ||
      check_normalized(x, nshape, shape, w, b, true, &s) != TL_OK)
    return tl_error_status();
  return run_backward(TL_OP_NATIVE_LAYER_NORM_BACKWARD, &s, g, x, mean, rstd, w, b, dx, dw, db);
}

tl_status tl_nn_rms_norm(const tl_tensor *x, int nshape, const int64_t *shape, const tl_tensor *w,
                         double eps, tl_tensor *y, tl_tensor *rstd)
{
  tl_norm_spec s;
  int64_t st[TL_MAX_DIMS];
  if (check_float(TL_OP_FUSED_RMS_NORM, x) != TL_OK ||
      check_normalized(x, nshape, shape, w, NULL, false, &s) != TL_OK)
    return tl_error_status();
  s.rms = true;
  s.eps = eps >= 0                     ? eps
          : x->dtype == TL_DTYPE_F64  ? DBL_EPSILON
          : x->dtype == TL_DTYPE_F16  ? 0x1p-10
          : x->dtype == TL_DTYPE_BF16 ? 0x1p-7
                                      : FLT_EPSILON;
  return run_forward(TL_OP_FUSED_RMS_NORM, &s, x, w, NULL, NULL, NULL, stat_shape_of(x, nshape, st),
                     st, y, NULL, rstd);
}

tl_status tl_nn_rms_norm_backward(const tl_tensor *g, const tl_tensor *x, int nshape,
                                  const int64_t *shape, const tl_tensor *rstd, const tl_tensor *w,
                                  tl_tensor *dx, tl_tensor *dw)
{
  tl_norm_spec s;
  if (check_float(TL_OP_FUSED_RMS_NORM_BACKWARD, x) != TL_OK ||
      check_normalized(x, nshape, shape, w, NULL, false, &s) != TL_OK)
    return tl_error_status();
  s.rms = true;
  return run_backward(TL_OP_FUSED_RMS_NORM_BACKWARD, &s, g, x, NULL, rstd, w, NULL, dx, dw, NULL);
}

/* ---- group_norm: x as (N, C, HxW), G groups ---- */

static tl_status check_group(const tl_tensor *x, const tl_tensor *w, const tl_tensor *b, int64_t N,
                             int64_t C, int64_t HxW, int64_t G, tl_norm_spec *s)
{
  char sx[256], sw[256];
  tl_shape_str(sx, sizeof sx, x->ndim, x->shape);
  if (G <= 0 || C % G)
    return tl_error_set(TL_ERR_RUNTIME, "Expected number of channels in input to be divisible by "
                                        "num_groups, but got input of shape %s and num_groups=%lld",
                        sx, (long long)G);
  if (tl_tensor_numel(x) != N * C * HxW || N < 0 || C < 0 || HxW < 0)
    return tl_error_set(TL_ERR_RUNTIME, "Expected the input of shape %s to hold N * C * HxW = "
                                        "%lld * %lld * %lld elements", sx, (long long)N,
                        (long long)C, (long long)HxW);
  for (int k = 0; k < 2; k++) {
    const tl_tensor *t = k ? b : w;
    if (t && (t->ndim != 1 || t->shape[0] != C))
      return tl_error_set(TL_ERR_RUNTIME, "Expected %s to be a vector of size equal to the number "
                                          "of channels in input, but got %s of shape %s and input "
                                          "of shape %s", k ? "bias" : "weight", k ? "bias" : "weight",
                          tl_shape_str(sw, sizeof sw, t->ndim, t->shape), sx);
  }
  *s = (tl_norm_spec){.N = N, .C = C, .S = HxW, .G = G};
  return TL_OK;
}

tl_status tl_nn_group_norm(const tl_tensor *x, const tl_tensor *w, const tl_tensor *b, int64_t N,
                           int64_t C, int64_t HxW, int64_t G, double eps, tl_tensor *y,
                           tl_tensor *mean, tl_tensor *rstd)
{
  tl_norm_spec s;
  const tl_tensor *params[] = {w, b};
  if (check_float(TL_OP_NATIVE_GROUP_NORM, x) != TL_OK ||
      check_group(x, w, b, N, C, HxW, G, &s) != TL_OK || check_param_dtypes(x, params, 2) != TL_OK)
    return tl_error_status();
  s.eps = eps;
  int64_t st[2] = {N, G};
  return run_forward(TL_OP_NATIVE_GROUP_NORM, &s, x, w, b, NULL, NULL, 2, st, y, mean, rstd);
}

tl_status tl_nn_group_norm_backward(const tl_tensor *g, const tl_tensor *x, const tl_tensor *mean,
                                    const tl_tensor *rstd, const tl_tensor *w, int64_t N,
                                    int64_t C, int64_t HxW, int64_t G, tl_tensor *dx,
                                    tl_tensor *dw, tl_tensor *db)
{
  tl_norm_spec s;
  if (check_float(TL_OP_NATIVE_GROUP_NORM_BACKWARD, x) != TL_OK ||
      check_group(x, w, NULL, N, C, HxW, G, &s) != TL_OK)
    return tl_error_status();
  return run_backward(TL_OP_NATIVE_GROUP_NORM_BACKWARD, &s, g, x, mean, rstd, w, NULL, dx, dw, db);
}

/* ---- batch_norm: x as (N, C, prod(rest)), stats per channel ---- */

static tl_status check_batch(const tl_tensor *x, tl_norm_spec *s)
{
  if (x->ndim < 2)
    return tl_error_set(TL_ERR_VALUE, "expected 2D or more input (got %dD input)", x->ndim);
  int64_t S = 1;
  for (int i = 2; i < x->ndim; i++)
    S *= x->shape[i];
  *s = (tl_norm_spec){.N = x->shape[0], .C = x->shape[1], .S = S, .G = 1, .per_channel = true};
  return TL_OK;
}

tl_status tl_nn_batch_norm(const tl_tensor *x, const tl_tensor *w, const tl_tensor *b,
                           tl_tensor *running_mean, tl_tensor *running_var, bool train,
                           double momentum, double eps, tl_tensor *y, tl_tensor *mean,
                           tl_tensor *rstd)
{
  tl_norm_spec s;
  if (check_float(TL_OP_NATIVE_BATCH_NORM, x) != TL_OK || check_batch(x, &s) != TL_OK ||
      check_numel("running_mean", running_mean, s.C) != TL_OK || /* PyTorch's order */
      check_numel("running_var", running_var, s.C) != TL_OK ||
      check_numel("weight", w, s.C) != TL_OK || check_numel("bias", b, s.C) != TL_OK)
    return tl_error_status();
  const tl_tensor *params[] = {w, b, running_mean, running_var};
  if (check_param_dtypes(x, params, 4) != TL_OK)
    return tl_error_status();
  /* PyTorch's checks and words: in training the statistics go together, in
   * evaluation each is needed (the mean named first) */
  if (train && !running_mean != !running_var)
    return tl_error_set(TL_ERR_VALUE,
                        "running_mean and running_var must either both be None or neither be None");
  if (!train && !running_mean)
    return tl_error_set(TL_ERR_RUNTIME, "running_mean must be defined in evaluation mode");
  if (!train && !running_var)
    return tl_error_set(TL_ERR_RUNTIME, "running_var must be defined in evaluation mode");
  s.train = train;
  s.eps = eps;
  s.momentum = momentum;
  return run_forward(TL_OP_NATIVE_BATCH_NORM, &s, x, w, b, running_mean, running_var, 1, &s.C, y,
                     mean, rstd);
}

tl_status tl_nn_batch_norm_backward(const tl_tensor *g, const tl_tensor *x, const tl_tensor *w,
                                    const tl_tensor *mean, const tl_tensor *rstd, bool train,
                                    tl_tensor *dx, tl_tensor *dw, tl_tensor *db)
{
  tl_norm_spec s;
  if (check_float(TL_OP_NATIVE_BATCH_NORM_BACKWARD, x) != TL_OK || check_batch(x, &s) != TL_OK ||
      check_numel("weight", w, s.C) != TL_OK)
    return tl_error_status();
  s.train = train;
  return run_backward(TL_OP_NATIVE_BATCH_NORM_BACKWARD, &s, g, x, mean, rstd, w, NULL, dx, dw, db);
}

static const tl_nn_norm_kernels cpu_norm = {
    .forward = tl_cpu_norm_forward,
    .backward = tl_cpu_norm_backward,
    .lrn = tl_cpu_lrn,
    .channels_last = true,
};

void tl_nn_norm_register_set(tl_device_type device, const tl_nn_norm_kernels *set)
{
  static const tl_op ops[] = {
      TL_OP_NATIVE_LAYER_NORM, TL_OP_NATIVE_LAYER_NORM_BACKWARD, TL_OP_FUSED_RMS_NORM,
      TL_OP_FUSED_RMS_NORM_BACKWARD, TL_OP_NATIVE_GROUP_NORM, TL_OP_NATIVE_GROUP_NORM_BACKWARD,
      TL_OP_NATIVE_BATCH_NORM, TL_OP_NATIVE_BATCH_NORM_BACKWARD, TL_OP_LOCAL_RESPONSE_NORM,
      TL_OP_LOCAL_RESPONSE_NORM_BACKWARD};
  for (size_t i = 0; i < sizeof ops / sizeof *ops; i++)
    tl_dispatch_register_set(ops[i], device, TL_DTYPES_ALL, set);
}

void tl_nn_norm_register(void) { tl_nn_norm_register_set(TL_DEVICE_CPU, &cpu_norm); }
