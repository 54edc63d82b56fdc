/* cross_entropy.c - the device-neutral entry points of the fused
 * cross_entropy (tl_loss.h): the target's kind read from its dtype (integer:
 * class indices, checked as nll_loss does; float: probabilities of the
 * input's shape and dtype), results allocated on the input's device. */
#include <string.h>

#include "ndcore/kernels/tl_create.h"
#include "nn/loss/tl_loss.h"
#include "nn/tl_nn_work.h"

static tl_status check_ce(tl_op op, const tl_tensor *input, const tl_tensor *target,
                          const tl_tensor *weight, int64_t reduction, int64_t ignore_index,
                          double label_smoothing, tl_ce_spec *s)
{
  char si[256];
  /* a float target of another shape is read as class indices, whose checks
   * then name the problem, as PyTorch does */
  bool same = target->ndim == input->ndim &&
              !memcmp(target->shape, input->shape, (size_t)input->ndim * sizeof *input->shape);
  *s = (tl_ce_spec){.reduction = (tl_reduction)reduction, .ignore_index = ignore_index,
                    .smoothing = label_smoothing > 0 ? label_smoothing : 0,
                    .probs = tl_dtype_is_float(target->dtype) && same};
  if (tl_nn_check_reduction(op, reduction) != TL_OK)
    return tl_error_status();
  /* PyTorch bounds it above only: a negative one smooths nothing */
  if (!(label_smoothing <= 1))
    return tl_error_set(TL_ERR_RUNTIME, "label_smoothing must be between 0.0 and 1.0. Got: %g",
                        label_smoothing);
  if (!s->probs || !tl_dtype_is_float(input->dtype) || input->ndim < 1)
    return tl_nn_check_class_target(op, input, target, weight, &s->N, &s->C, &s->S);
  if (target->dtype != input->dtype)
    return tl_error_set(TL_ERR_RUNTIME, "%s(): expected target of dtype %s, got %s",
                        tl_op_infos[op].name, tl_dtype_names[input->dtype],
                        tl_dtype_names[target->dtype]);
  s->N = input->ndim == 1 ? 1 : input->shape[0];
  s->C = input->shape[input->ndim == 1 ? 0 : 1];
  s->S = 1;
  for (int i = 2; i < input->ndim; i++)
    s->S *= input->shape[i];
  if (weight && tl_tensor_numel(weight) != s->C)
    return tl_error_set(TL_ERR_RUNTIME, "weight tensor should be defined either for all %lld "
                                        "classes or no classes but got weight tensor of shape: %s",
                        (long long)s->C, tl_shape_str(si, sizeof si, weight->ndim, weight->shape));
  return TL_OK;
}

/* The loss's shape for reduction 'none': the input's without its class dim. */
static int row_shape(const tl_tensor *input, int64_t *shape)
{
  int n = 0;
  for (int i = 0; i < input->ndim; i++)
    if (i != (input->ndim == 1 ? 0 : 1))
      shape[n++] = input->shape[i];
  return n;
}

tl_status tl_nn_cross_entropy(const tl_tensor *input, const tl_tensor *target,
                              const tl_tensor *weight, int64_t reduction, int64_t ignore_index,
                              double label_smoothing, tl_tensor *out, tl_tensor *lse,
                              tl_tensor *total_weight)
{
  const tl_tensor *devs[] = {input, target, weight ? weight : input};
  const tl_nn_class_loss_kernels *set =
      tl_dispatch_kernel(TL_OP_CROSS_ENTROPY, input->dtype, 3, devs);
  tl_ce_spec s;
  if (!set || check_ce(TL_OP_CROSS_ENTROPY, input, target, weight, reduction, ignore_index,
                       label_smoothing, &s) != TL_OK)
    return tl_error_status();
  tl_device dev = tl_tensor_device(input);
  tl_dtype work = tl_nn_work_dtype(input->dtype);
  int64_t shape[TL_MAX_DIMS], rows = s.N * s.S;
  int nd = reduction == TL_REDUCTION_NONE ? row_shape(input, shape) : 0;
  tl_tensor tt = {0};
  tl_status status;
  if ((status = s.probs ? (tl_tensor_view_of(&tt, target), TL_OK)
                        : tl_nn_index_target(target, &tt)) != TL_OK ||
      (status = tl_tensor_empty(out, input->dtype, nd, shape, dev)) != TL_OK ||
      (status = tl_tensor_empty(lse, work, 1, &rows, dev)) != TL_OK ||
      (status = tl_tensor_empty(total_weight, work, 0, NULL, dev)) != TL_OK ||
      (status = set->cross_entropy(&s, input, &tt, weight, out, lse, total_weight)) != TL_OK) {
    tl_tensor_release(out);
    tl_tensor_release(lse);
    tl_tensor_release(total_weight);
  }
  tl_tensor_release(&tt);
  return status;
}

tl_status tl_nn_cross_entropy_backward(const tl_tensor *grad, const tl_tensor *input,
                                       const tl_tensor *target, const tl_tensor *weight,
                                       int64_t reduction, int64_t ignore_index,
                                       double label_smoothing, const tl_tensor *lse,
                                       const tl_tensor *total_weight, tl_tensor *grad_input,
                                       tl_tensor *grad_target)
{
  const tl_tensor *devs[] = {grad, input, target, lse, total_weight};
  const tl_nn_class_loss_kernels *set =
      tl_dispatch_kernel(TL_OP_CROSS_ENTROPY_BACKWARD, input->dtype, 5, devs);
  tl_ce_spec s;
  char sg[256];
  if (!set || check_ce(TL_OP_CROSS_ENTROPY_BACKWARD, input, target, weight, reduction,
                       ignore_index, label_smoothing, &s) != TL_OK)
    return tl_error_status();
  if (reduction == TL_REDUCTION_NONE ? tl_tensor_numel(grad) != s.N * s.S
                                     : tl_tensor_numel(grad) != 1)
    return tl_error_set(TL_ERR_RUNTIME, "_cross_entropy_backward(): grad_output of shape %s "
                                        "does not match the loss",
                        tl_shape_str(sg, sizeof sg, grad->ndim, grad->shape));
  if (tl_tensor_numel(lse) != s.N * s.S || tl_tensor_numel(total_weight) != 1)
    return tl_error_set(TL_ERR_RUNTIME, "_cross_entropy_backward(): lse and total_weight do not "
                                        "come from _cross_entropy of this input");
  tl_device dev = tl_tensor_device(input);
  tl_tensor tt = {0};
  tl_status status;
  if ((status = s.probs ? (tl_tensor_view_of(&tt, target), TL_OK)
                        : tl_nn_index_target(target, &tt)) != TL_OK ||
      (status = tl_tensor_empty(grad_input, input->dtype, input->ndim, input->shape, dev)) !=
          TL_OK ||
      (s.probs && (status = tl_tensor_empty(grad_target, input->dtype, input->ndim,
                                            input->shape, dev)) != TL_OK) ||
      (status = set->cross_entropy_backward(&s, grad, input, &tt, weight, lse, total_weight,
                                            grad_input, s.probs ? grad_target : NULL)) != TL_OK) {
    tl_tensor_release(grad_input);
    tl_tensor_release(grad_target);
  }
  tl_tensor_release(&tt);
  return status;
}
