/* loss.c - the device-neutral entry points of nll_loss (tl_loss.h): shapes
 * checked in PyTorch's words, the target made contiguous int64, a missing
 * weight made ones, results allocated on the input's device.  Also the CPU
 * set's rows in the kernel table; the same for the elementwise losses. */
#include <string.h>

#include "ndcore/kernels/tl_create.h"
#include "nn/loss/tl_loss.h"
#include "nn/tl_nn.h"
#include "nn/tl_nn_work.h"

tl_status tl_nn_check_reduction(tl_op op, int64_t reduction)
{
  if (reduction < 0 || reduction > 2)
    return tl_error_set(TL_ERR_VALUE, "%s(): reduction %lld is not 0 (none), 1 (mean) or 2 (sum)",
                        tl_op_infos[op].name, (long long)reduction);
  return TL_OK;
}

tl_status tl_nn_check_class_target(tl_op op, const tl_tensor *input, const tl_tensor *target,
                                   const tl_tensor *weight, int64_t *N, int64_t *C, int64_t *S)
{
  char si[256], st[256];
  if (!tl_dtype_is_float(input->dtype))
    return tl_error_set(TL_ERR_RUNTIME, "%s(): expected a floating point input, got %s",
                        tl_op_infos[op].name, tl_dtype_names[input->dtype]);
  if (input->ndim < 1)
    return tl_error_set(TL_ERR_VALUE, "Expected 1 or more dimensions (got 0)");
  *N = 1, *C = input->shape[input->ndim == 1 ? 0 : 1], *S = 1;
  /* PyTorch's order: the batch, then (up to 2-d inputs) the target's rank
   * and dtype, or (spatial inputs) its shape and dtype */
  /* an unbatched (C,) input takes a 0-d target or a 1-d one of one element */
  if (input->ndim == 1 && target->ndim > 1)
    return tl_error_set(TL_ERR_RUNTIME, "0D or 1D target tensor expected, multi-target not "
                                        "supported");
  if (input->ndim == 1 && target->ndim == 1 && target->shape[0] != 1)
    return tl_error_set(TL_ERR_VALUE, "For 1D input, 1D target must have size 1, but got target "
                                      "size: %lld", (long long)target->shape[0]);
  if (input->ndim > 1 && input->shape[0] != (target->ndim ? target->shape[0] : 0))
    return tl_error_set(TL_ERR_VALUE, "Expected input batch_size (%lld) to match target "
                                      "batch_size (%lld).", (long long)input->shape[0],
                        (long long)(target->ndim ? target->shape[0] : 0));
  if (input->ndim == 2 && target->ndim > 1)
    return tl_error_set(TL_ERR_RUNTIME, "0D or 1D target tensor expected, multi-target not "
                                        "supported");
  bool ok = input->ndim <= 2 || target->ndim == input->ndim - 1;
  for (int i = 2; ok && i < input->ndim; i++)
    ok = target->shape[i - 1] == input->shape[i];
  /* PyTorch words the 2-d spatial case (its nll_loss2d) apart: the rank
   * first, then the sizes, unbalanced as its message is */
  if (!ok && input->ndim == 4 && target->ndim != 3)
    return tl_error_set(TL_ERR_RUNTIME, "only batches of spatial targets supported (3D tensors) "
                                        "but got targets of dimension: %d", target->ndim);
  if (!ok && input->ndim == 4)
    return tl_error_set(TL_ERR_RUNTIME, "size mismatch (got input: %s , target: %s",
                        tl_shape_str(si, sizeof si, input->ndim, input->shape),
                        tl_shape_str(st, sizeof st, target->ndim, target->shape));
  if (!ok) {
    int64_t expected[TL_MAX_DIMS];
    expected[0] = input->shape[0];
    for (int i = 2; i < input->ndim; i++)
      expected[i - 1] = input->shape[i];
    return tl_error_set(TL_ERR_RUNTIME, "Expected target size %s, got %s",
                        tl_shape_str(si, sizeof si, input->ndim - 1, expected),
                        tl_shape_str(st, sizeof st, target->ndim, target->shape));
  }
  if (target->dtype != TL_DTYPE_I64 && target->dtype != TL_DTYPE_U8)
    return tl_error_set(TL_ERR_RUNTIME, "expected target dtype to be Long or Byte, but got %s",
                        tl_dtype_scalar_name(target->dtype));
  if (input->ndim > 1) {
    *N = input->shape[0];
    for (int i = 2; i < input->ndim; i++)
      *S *= input->shape[i];
  }
  if (weight && tl_tensor_numel(weight) != *C)
    return tl_error_set(TL_ERR_RUNTIME, "weight tensor should be defined either for all %lld "
                                        "classes or no classes but got weight tensor of shape: %s",
                        (long long)*C, tl_shape_str(si, sizeof si, weight->ndim, weight->shape));
  /* class weights in the input's dtype, as PyTorch's kernels read them */
  if (weight && weight->dtype != input->dtype)
    return tl_error_set(TL_ERR_RUNTIME, "expected scalar type %s but found %s",
                        tl_dtype_scalar_name(input->dtype), tl_dtype_scalar_name(weight->dtype));
  return TL_OK;
}

/* Check input against target and fill the spec. */
static tl_status check_nll(tl_op op, const tl_tensor *input, const tl_tensor *target,
                           const tl_tensor *weight, int64_t reduction, int64_t ignore_index,
                           tl_nll_spec *s)
{
  *s = (tl_nll_spec){.reduction = (tl_reduction)reduction, .ignore_index = ignore_index};
  if (tl_nn_check_class_target(op, input, target, weight, &s->N, &s->C, &s->S) != TL_OK)
    return tl_error_status();
  return tl_nn_check_reduction(op, reduction);
}

tl_status tl_nn_index_target(const tl_tensor *t, tl_tensor *out)
{
  if (t->dtype == TL_DTYPE_I64 && tl_tensor_is_contiguous(t)) {
    tl_tensor_view_of(out, t);
    return TL_OK;
  }
  return tl_tensor_to_dtype(out, t, TL_DTYPE_I64);
}

/* The target as contiguous int64 and the weight as (C,) of dtype `dtype`
 * (ones when none): views when they already are, else copies. */
static tl_status prepare(const tl_tensor *target, const tl_tensor *weight, int64_t C,
                         tl_dtype dtype, tl_device dev, tl_tensor *tt, tl_tensor *wt)
{
  tl_status status;
  if ((status = tl_nn_index_target(target, tt)) != TL_OK)
    return status;
  if (!weight) {
    status = tl_tensor_empty(wt, dtype, 1, &C, dev);
    return status == TL_OK ? tl_tensor_fill(wt, (tl_scalar){.kind = TL_KIND_FLOAT, .v.f = 1})
                           : status;
  }
  if ((status = tl_tensor_to_dtype(wt, weight, dtype)) != TL_OK)
    return status;
  wt->ndim = 1;
  wt->shape[0] = C;
  wt->strides[0] = 1;
  return TL_OK;
}

tl_status tl_nn_nll_loss(const tl_tensor *input, const tl_tensor *target, const tl_tensor *weight,
                         int64_t reduction, int64_t ignore_index, tl_tensor *out,
                         tl_tensor *total_weight)
{
  const tl_tensor *devs[] = {input, target, weight ? weight : input};
  const tl_nn_loss_kernels *set = tl_dispatch_kernel(TL_OP_NLL_LOSS_ND, input->dtype, 3, devs);
  tl_tensor tt = {0}, wt = {0};
  tl_nll_spec s;
  tl_status status;
  if (!set || check_nll(TL_OP_NLL_LOSS_ND, input, target, weight, reduction, ignore_index, &s) != TL_OK)
    return tl_error_status();
  tl_device dev = tl_tensor_device(input);
  bool none = reduction == TL_REDUCTION_NONE;
  if ((status = prepare(target, weight, s.C, input->dtype, dev, &tt, &wt)) != TL_OK ||
      (status = tl_tensor_empty(out, input->dtype, none ? target->ndim : 0, target->shape, dev)) !=
          TL_OK ||
      (status = tl_tensor_empty(total_weight, input->dtype, 0, NULL, dev)) != TL_OK)
    goto done;
  status = set->nll(&s, input, &tt, &wt, out, total_weight);
done:
  if (status != TL_OK) {
    tl_tensor_release(out);
    tl_tensor_release(total_weight);
  }
  tl_tensor_release(&tt);
  tl_tensor_release(&wt);
  return status;
}

tl_status tl_nn_nll_loss_backward(const tl_tensor *grad, const tl_tensor *input,
                                  const tl_tensor *target, const tl_tensor *weight,
                                  int64_t reduction, int64_t ignore_index,
                                  const tl_tensor *total_weight, tl_tensor *grad_input)
{
  const tl_tensor *devs[] = {grad, input, target, total_weight};
  const tl_nn_loss_kernels *set =
      tl_dispatch_kernel(TL_OP_NLL_LOSS_BACKWARD, input->dtype, 4, devs);
  tl_tensor tt = {0}, wt = {0};
  tl_nll_spec s;
  tl_status status;
  char sg[256];
  if (!set || check_nll(TL_OP_NLL_LOSS_BACKWARD, input, target, weight, reduction, ignore_index,
                        &s) != TL_OK)
    return tl_error_status();
  if (reduction == TL_REDUCTION_NONE ? tl_tensor_numel(grad) != s.N * s.S
                                     : tl_tensor_numel(grad) != 1)
    return tl_error_set(TL_ERR_RUNTIME, "nll_loss_backward(): grad_output of shape %s does not "
                                        "match the loss",
                        tl_shape_str(sg, sizeof sg, grad->ndim, grad->shape));
  tl_device dev = tl_tensor_device(input);
  if ((status = prepare(target, weight, s.C, input->dtype, dev, &tt, &wt)) != TL_OK ||
      (status = tl_tensor_zeros(grad_input, input->dtype, input->ndim, input->shape, dev)) != TL_OK)
    goto done;
  status = set->nll_backward(&s, grad, &tt, &wt, total_weight, grad_input);
done:
  if (status != TL_OK)
    tl_tensor_release(grad_input);
  tl_tensor_release(&tt);
  tl_tensor_release(&wt);
  return status;
}

/* ---- elementwise losses ---- */

static tl_status check_pointwise(tl_op op, const tl_tensor *x, const tl_tensor *const *others,
                                 const char *const *names, int n, int64_t kind, int64_t reduction)
{
  char sx[256], so[256];
  const char *name = tl_op_infos[op].name;
  if (kind < 0 || kind >= TL_LOSS_KIND_COUNT)
    return tl_error_set(TL_ERR_VALUE, "%s(): unknown loss kind %lld", name, (long long)kind);
  if (tl_nn_check_reduction(op, reduction) != TL_OK)
    return tl_error_status();
  for (int i = -1; i < n; i++) {
    const tl_tensor *t = i < 0 ? x : others[i];
    if (t && !tl_dtype_is_float(t->dtype))
      return tl_error_set(TL_ERR_RUNTIME, "%s(): expected a floating point %s, got %s", name,
                          i < 0 ? "input" : names[i], tl_dtype_names[t->dtype]);
    if (t && (t->ndim != x->ndim || memcmp(t->shape, x->shape, (size_t)x->ndim * sizeof *x->shape)))
      return tl_error_set(TL_ERR_RUNTIME, "%s(): %s of shape %s does not match input of shape %s",
                          name, names[i], tl_shape_str(so, sizeof so, t->ndim, t->shape),
                          tl_shape_str(sx, sizeof sx, x->ndim, x->shape));
  }
  return TL_OK;
}

tl_status tl_nn_pointwise_loss(const tl_tensor *x, const tl_tensor *t, const tl_tensor *w,
                               const tl_tensor *p, int64_t kind, double param, int64_t reduction,
                               tl_tensor *out)
{
  static const char *const names[] = {"target", "weight", "pos_weight"};
  const tl_tensor *others[] = {t, w, p}, *devs[] = {x, t, w ? w : x, p ? p : x};
  const tl_nn_pointwise_loss_kernels *set =
      tl_dispatch_kernel(TL_OP_POINTWISE_LOSS, x->dtype, 4, devs);
  if (!set ||
      check_pointwise(TL_OP_POINTWISE_LOSS, x, others, names, 3, kind, reduction) != TL_OK)
    return tl_error_status();
  tl_loss_spec s = {(tl_loss_kind)kind, param, (tl_reduction)reduction};
  tl_status status = tl_tensor_empty(out, x->dtype, reduction ? 0 : x->ndim, x->shape,
                                     tl_tensor_device(x));
  if (status == TL_OK && (status = set->loss(&s, x, t, w, p, out)) != TL_OK)
    tl_tensor_release(out);
  return status;
}

tl_status tl_nn_pointwise_loss_backward(const tl_tensor *g, const tl_tensor *x,
                                        const tl_tensor *t, const tl_tensor *w,
                                        const tl_tensor *p, int64_t kind, double param,
                                        int64_t reduction, tl_tensor *dx, tl_tensor *dt)
{
  static const char *const names[] = {"target", "weight", "pos_weight"};
  const tl_tensor *others[] = {t, w, p}, *devs[] = {g, x, t, w ? w : x, p ? p : x};
  const tl_nn_pointwise_loss_kernels *set =
      tl_dispatch_kernel(TL_OP_POINTWISE_LOSS_BACKWARD, x->dtype, 5, devs);
  char sg[256];
  if (!set || check_pointwise(TL_OP_POINTWISE_LOSS_BACKWARD, x, others, names, 3, kind,
                              reduction) != TL_OK)
    return tl_error_status();
  if (reduction ? tl_tensor_numel(g) != 1
                : g->ndim != x->ndim || memcmp(g->shape, x->shape, (size_t)x->ndim * sizeof *x->shape))
    return tl_error_set(TL_ERR_RUNTIME, "_pointwise_loss_backward(): grad_output of shape %s "
                                        "does not match the loss",
                        tl_shape_str(sg, sizeof sg, g->ndim, g->shape));
  tl_loss_spec s = {(tl_loss_kind)kind, param, (tl_reduction)reduction};
  tl_device dev = tl_tensor_device(x);
  tl_status status;
  if ((status = tl_tensor_empty(dx, x->dtype, x->ndim, x->shape, dev)) != TL_OK ||
      (status = tl_tensor_empty(dt, t->dtype, t->ndim, t->shape, dev)) != TL_OK ||
      (status = set->loss_backward(&s, g, x, t, w, p, dx, dt)) != TL_OK) {
    tl_tensor_release(dx);
    tl_tensor_release(dt);
  }
  return status;
}

static const tl_nn_pointwise_loss_kernels cpu_pointwise = {
    .loss = tl_cpu_pointwise_loss,
    .loss_backward = tl_cpu_pointwise_loss_backward,
};

static const tl_nn_loss_kernels cpu_loss = {
    .nll = tl_cpu_nll_loss,
    .nll_backward = tl_cpu_nll_loss_backward,
};

static const tl_nn_class_loss_kernels cpu_class = {
    .cross_entropy = tl_cpu_cross_entropy,
    .cross_entropy_backward = tl_cpu_cross_entropy_backward,
    .multi_margin = tl_cpu_multi_margin,
    .multi_margin_backward = tl_cpu_multi_margin_backward,
    .multilabel_margin = tl_cpu_multilabel_margin,
    .multilabel_margin_backward = tl_cpu_multilabel_margin_backward,
    .ctc = tl_cpu_ctc,
    .ctc_backward = tl_cpu_ctc_backward,
};

void tl_nn_loss_register_sets(tl_device_type device, const tl_nn_loss_kernels *nll,
                              const tl_nn_pointwise_loss_kernels *pointwise,
                              const tl_nn_class_loss_kernels *cls)
{
  static const tl_op ops[] = {TL_OP_NLL_LOSS_ND, TL_OP_NLL_LOSS_BACKWARD};
  for (size_t i = 0; i < sizeof ops / sizeof *ops; i++)
    tl_dispatch_register_set(ops[i], device, TL_DTYPES_ALL, nll);
  tl_dispatch_register_set(TL_OP_POINTWISE_LOSS, device, TL_DTYPES_ALL, pointwise);
  tl_dispatch_register_set(TL_OP_POINTWISE_LOSS_BACKWARD, device, TL_DTYPES_ALL, pointwise);
  static const tl_op class_ops[] = {TL_OP_CROSS_ENTROPY, TL_OP_CROSS_ENTROPY_BACKWARD,
                                    TL_OP_MULTI_MARGIN_LOSS, TL_OP_MULTI_MARGIN_LOSS_BACKWARD,
                                    TL_OP_MULTILABEL_MARGIN_LOSS,
                                    TL_OP_MULTILABEL_MARGIN_LOSS_BACKWARD, TL_OP_CTC_LOSS,
                                    TL_OP_CTC_LOSS_BACKWARD};
  for (size_t i = 0; i < sizeof class_ops / sizeof *class_ops; i++)
    tl_dispatch_register_set(class_ops[i], device, TL_DTYPES_ALL, cls);
}

void tl_nn_loss_register(void)
{
  tl_nn_loss_register_sets(TL_DEVICE_CPU, &cpu_loss, &cpu_pointwise, &cpu_class);
}
