/* margin.c - the device-neutral entry points of multi_margin_loss and
 * multilabel_margin_loss (tl_loss.h): shapes checked in PyTorch's words,
 * targets made contiguous int64, results allocated on the input's device. */
#include "ndcore/kernels/tl_create.h"
#include "nn/loss/tl_loss.h"
#include "nn/tl_nn_work.h"

/* input (N, C) with C > 0, (C,) or 0-d (one score): fills N and C. */
static tl_status check_scores(tl_op op, const tl_tensor *input, const tl_tensor *target,
                              int64_t reduction, tl_margin_spec *s)
{
  char si[256];
  const char *name = tl_op_infos[op].name;
  if (!tl_dtype_is_float(input->dtype))
    return tl_error_set(TL_ERR_RUNTIME, "%s(): expected a floating point input, got %s", name,
                        tl_dtype_names[input->dtype]);
  if (target->dtype != TL_DTYPE_I64)
    return tl_error_set(TL_ERR_RUNTIME, "expected scalar type Long but found %s",
                        tl_dtype_scalar_name(target->dtype));
  if (tl_nn_check_reduction(op, reduction) != TL_OK)
    return tl_error_status();
  int nd = input->ndim;
  if (!((nd == 2 && input->shape[1] != 0) || (nd == 1 && input->shape[0] != 0) || nd == 0))
    return tl_error_set(TL_ERR_RUNTIME, "Expected non-empty vector or matrix with optional 0-dim "
                                        "batch size, but got: %s",
                        tl_shape_str(si, sizeof si, nd, input->shape));
  s->N = nd == 2 ? input->shape[0] : 1;
  s->C = nd == 0 ? 1 : input->shape[nd - 1];
  s->reduction = (tl_reduction)reduction;
  return TL_OK;
}

static tl_status check_multi(tl_op op, const tl_tensor *input, const tl_tensor *target, int64_t p,
                             double margin, const tl_tensor *weight, int64_t reduction,
                             tl_margin_spec *s)
{
  char si[256], st[256];
  if (check_scores(op, input, target, reduction, s) != TL_OK)
    return tl_error_status();
  if (p != 1 && p != 2)
    return tl_error_set(TL_ERR_VALUE, "only p == 1 and p == 2 supported");
  s->p = (int)p;
  s->margin = margin;
  if (target->ndim > 1 || tl_tensor_numel(target) != s->N)
    return tl_error_set(TL_ERR_RUNTIME, "multi_margin_loss: target tensor should be 1-D with "
                                        "size equal to the number of input samples (batch "
                                        "size). Expected target size [%lld], but got %s. Input "
                                        "has shape %s.",
                        (long long)s->N, tl_shape_str(st, sizeof st, target->ndim, target->shape),
                        tl_shape_str(si, sizeof si, input->ndim, input->shape));
  if (weight && (weight->ndim > 1 || tl_tensor_numel(weight) != s->C))
    return tl_error_set(TL_ERR_RUNTIME, "inconsistent weight size, expected %lld but got %s",
                        (long long)s->C, tl_shape_str(st, sizeof st, weight->ndim, weight->shape));
  return TL_OK;
}

/* The loss's shape: (N,) for 'none' with a batched target, else (). */
static tl_status alloc_loss(const tl_margin_spec *s, const tl_tensor *input, bool batched,
                            tl_tensor *out)
{
  bool rows = s->reduction == TL_REDUCTION_NONE && batched;
  return tl_tensor_empty(out, input->dtype, rows ? 1 : 0, &s->N, tl_tensor_device(input));
}

/* The backward entry points' end: grad_input of the input's shape, from
 * multilabel's kernel when is_target is given, else multi's. */
static tl_status run_backward(const tl_nn_class_loss_kernels *set, const tl_margin_spec *s,
                              const tl_tensor *grad, const tl_tensor *input,
                              const tl_tensor *target, const tl_tensor *weight,
                              const tl_tensor *is_target, tl_tensor *grad_input)
{
  tl_tensor tt = {0};
  tl_status status;
  if ((status = tl_nn_index_target(target, &tt)) != TL_OK ||
      (status = tl_tensor_empty(grad_input, input->dtype, input->ndim, input->shape,
                                tl_tensor_device(input))) != TL_OK ||
      (status = is_target
                    ? set->multilabel_margin_backward(s, grad, input, &tt, is_target, grad_input)
                    : set->multi_margin_backward(s, grad, input, &tt, weight, grad_input)) !=
          TL_OK)
    tl_tensor_release(grad_input);
  tl_tensor_release(&tt);
  return status;
}

tl_status tl_nn_multi_margin_loss(const tl_tensor *input, const tl_tensor *target, int64_t p,
                                  double margin, const tl_tensor *weight, int64_t reduction,
                                  tl_tensor *out)
{
  const tl_tensor *devs[] = {input, target, weight ? weight : input};
  const tl_nn_class_loss_kernels *set =
      tl_dispatch_kernel(TL_OP_MULTI_MARGIN_LOSS, input->dtype, 3, devs);
  tl_margin_spec s;
  if (!set || check_multi(TL_OP_MULTI_MARGIN_LOSS, input, target, p, margin, weight, reduction,
                          &s) != TL_OK)
    return tl_error_status();
  tl_tensor tt = {0};
  tl_status status;
  if ((status = tl_nn_index_target(target, &tt)) != TL_OK ||
      (status = alloc_loss(&s, input, target->ndim > 0, out)) != TL_OK ||
      (status = set->multi_margin(&s, input, &tt, weight, out)) != TL_OK)
    tl_tensor_release(out);
  tl_tensor_release(&tt);
  return status;
}

tl_status tl_nn_multi_margin_loss_backward(const tl_tensor *grad, const tl_tensor *input,
                                           const tl_tensor *target, int64_t p, double margin,
                                           const tl_tensor *weight, int64_t reduction,
                                           tl_tensor *grad_input)
{
  const tl_tensor *devs[] = {grad, input, target, weight ? weight : input};
  const tl_nn_class_loss_kernels *set =
      tl_dispatch_kernel(TL_OP_MULTI_MARGIN_LOSS_BACKWARD, input->dtype, 4, devs);
  tl_margin_spec s;
  char sg[256];
  if (!set || check_multi(TL_OP_MULTI_MARGIN_LOSS_BACKWARD, input, target, p, margin, weight,
                          reduction, &s) != TL_OK)
    return tl_error_status();
  if (tl_tensor_numel(grad) != (reduction == TL_REDUCTION_NONE ? s.N : 1))
    return tl_error_set(TL_ERR_RUNTIME, "_multi_margin_loss_backward(): grad_output of shape %s "
                                        "does not match the loss",
                        tl_shape_str(sg, sizeof sg, grad->ndim, grad->shape));
  return run_backward(set, &s, grad, input, target, weight, NULL, grad_input);
}

static tl_status check_multilabel(tl_op op, const tl_tensor *input, const tl_tensor *target,
                                  int64_t reduction, tl_margin_spec *s)
{
  char si[256], st[256];
  if (check_scores(op, input, target, reduction, s) != TL_OK)
    return tl_error_status();
  bool ok = input->ndim <= 1 ? target->ndim <= 1 && tl_tensor_numel(target) == s->C
                             : target->ndim == 2 && target->shape[0] == s->N &&
                                   target->shape[1] == s->C;
  if (!ok)
    return tl_error_set(TL_ERR_RUNTIME, "inconsistent target size: %s for input of size: %s",
                        tl_shape_str(st, sizeof st, target->ndim, target->shape),
                        tl_shape_str(si, sizeof si, input->ndim, input->shape));
  return TL_OK;
}

tl_status tl_nn_multilabel_margin_loss(const tl_tensor *input, const tl_tensor *target,
                                       int64_t reduction, tl_tensor *out, tl_tensor *is_target)
{
  const tl_tensor *devs[] = {input, target};
  const tl_nn_class_loss_kernels *set =
      tl_dispatch_kernel(TL_OP_MULTILABEL_MARGIN_LOSS, input->dtype, 2, devs);
  tl_margin_spec s = {0};
  if (!set || check_multilabel(TL_OP_MULTILABEL_MARGIN_LOSS, input, target, reduction, &s) !=
                  TL_OK)
    return tl_error_status();
  tl_tensor tt = {0};
  tl_status status;
  if ((status = tl_nn_index_target(target, &tt)) != TL_OK ||
      (status = alloc_loss(&s, input, target->ndim > 1, out)) != TL_OK ||
      (status = tl_tensor_empty(is_target, input->dtype, target->ndim, target->shape,
                                tl_tensor_device(input))) != TL_OK ||
      (status = set->multilabel_margin(&s, input, &tt, out, is_target)) != TL_OK) {
    tl_tensor_release(out);
    tl_tensor_release(is_target);
  }
  tl_tensor_release(&tt);
  return status;
}

tl_status tl_nn_multilabel_margin_loss_backward(const tl_tensor *grad, const tl_tensor *input,
                                                const tl_tensor *target, int64_t reduction,
                                                const tl_tensor *is_target,
                                                tl_tensor *grad_input)
{
  const tl_tensor *devs[] = {grad, input, target, is_target};
  const tl_nn_class_loss_kernels *set =
      tl_dispatch_kernel(TL_OP_MULTILABEL_MARGIN_LOSS_BACKWARD, input->dtype, 4, devs);
  tl_margin_spec s = {0};
  char sg[256];
  if (!set || check_multilabel(TL_OP_MULTILABEL_MARGIN_LOSS_BACKWARD, input, target, reduction,
                               &s) != TL_OK)
    return tl_error_status();
  if (tl_tensor_numel(grad) != (reduction == TL_REDUCTION_NONE && target->ndim > 1 ? s.N : 1) ||
      tl_tensor_numel(is_target) != s.N * s.C)
    return tl_error_set(TL_ERR_RUNTIME, "_multilabel_margin_loss_backward(): grad_output of "
                                        "shape %s does not match the loss",
                        tl_shape_str(sg, sizeof sg, grad->ndim, grad->shape));
  return run_backward(set, &s, grad, input, target, NULL, is_target, grad_input);
}
