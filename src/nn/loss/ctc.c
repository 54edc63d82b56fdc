/* ctc.c - the device-neutral entry points of ctc_loss (tl_loss.h): the
 * arguments checked in PyTorch's words, each target's start in the
 * (contiguous int64) targets found, results allocated on log_probs'
 * device. */
#include <stdlib.h>

#include "ndcore/kernels/tl_create.h"
#include "nn/loss/tl_loss.h"
#include "nn/tl_nn_work.h"

#define CHECKING " (while checking arguments for ctc_loss_allocate_outputs)"

/* Check the arguments, fill the spec; *offsets is allocated (N entries) and
 * *tt holds the targets as contiguous int64. */
static tl_status check_ctc(tl_op op, const tl_tensor *lp, const tl_tensor *targets,
                           const int64_t *in_len, int64_t n_in, const int64_t *tg_len,
                           int64_t n_tg, int64_t blank, bool zero_infinity, tl_ctc_spec *s,
                           int64_t **offsets, tl_tensor *tt)
{
  const char *name = tl_op_infos[op].name;
  *offsets = NULL;
  if (!tl_dtype_is_float(lp->dtype))
    return tl_error_set(TL_ERR_RUNTIME, "%s(): expected floating point log_probs, got %s", name,
                        tl_dtype_names[lp->dtype]);
  if (targets->dtype != TL_DTYPE_I64 && targets->dtype != TL_DTYPE_I32)
    return tl_error_set(TL_ERR_RUNTIME, "%s(): expected targets of dtype int64 or int32, got %s",
                        name, tl_dtype_names[targets->dtype]);
  if (lp->ndim != 3)
    return tl_error_set(TL_ERR_RUNTIME, "Expected %d-dimensional tensor, but got %d-dimensional "
                                        "tensor for argument #1 'log_probs'" CHECKING,
                        3, lp->ndim);
  if (targets->ndim < 1 || targets->ndim > 2)
    return tl_error_set(TL_ERR_RUNTIME, "Expected 1 to 2 dimensions, but got %d-dimensional "
                                        "tensor for argument #2 'targets'" CHECKING,
                        targets->ndim);
  *s = (tl_ctc_spec){.T = lp->shape[0], .N = lp->shape[1], .C = lp->shape[2], .blank = blank,
                     .input_lengths = in_len, .target_lengths = tg_len,
                     .zero_infinity = zero_infinity};
  if (blank < 0 || blank >= s->C)
    return tl_error_set(TL_ERR_RUNTIME, "blank must be in label range");
  if (n_in != s->N)
    return tl_error_set(TL_ERR_RUNTIME, "input_lengths must be of size batch_size");
  if (n_tg != s->N)
    return tl_error_set(TL_ERR_RUNTIME, "target_lengths must be of size batch_size");
  if (!(*offsets = malloc((size_t)(s->N ? s->N : 1) * sizeof **offsets)))
    return tl_error_set(TL_ERR_MEMORY, "ctc_loss: out of memory");
  int64_t pos = 0;
  for (int64_t n = 0; n < s->N; n++) {
    if (tg_len[n] < 0)
      return tl_error_set(TL_ERR_RUNTIME, "Expected target_lengths to have value at least 0, "
                                          "but got value %lld" CHECKING,
                          (long long)tg_len[n]);
    (*offsets)[n] = targets->ndim == 1 ? pos : n * targets->shape[1];
    pos += tg_len[n];
    s->maxS = tg_len[n] > s->maxS ? tg_len[n] : s->maxS;
  }
  if (targets->ndim == 1 && targets->shape[0] != pos)
    return tl_error_set(TL_ERR_RUNTIME, "Expected tensor to have size %lld at dimension 0, but "
                                        "got size %lld for argument #2 'targets'" CHECKING,
                        (long long)pos, (long long)targets->shape[0]);
  if (targets->ndim == 2 && targets->shape[0] != s->N)
    return tl_error_set(TL_ERR_RUNTIME, "Expected tensor to have size %lld at dimension 0, but "
                                        "got size %lld for argument #2 'targets'" CHECKING,
                        (long long)s->N, (long long)targets->shape[0]);
  if (targets->ndim == 2 && targets->shape[1] < s->maxS)
    return tl_error_set(TL_ERR_RUNTIME, "Expected tensor to have size at least %lld at "
                                        "dimension 1, but got size %lld for argument #2 "
                                        "'targets'" CHECKING,
                        (long long)s->maxS, (long long)targets->shape[1]);
  for (int64_t n = 0; n < s->N; n++) {
    if (in_len[n] < 0)
      return tl_error_set(TL_ERR_RUNTIME, "Expected input_lengths to have value at least 0, but "
                                          "got value %lld" CHECKING,
                          (long long)in_len[n]);
    if (in_len[n] > s->T)
      return tl_error_set(TL_ERR_RUNTIME, "Expected input_lengths to have value at most %lld, "
                                          "but got value %lld" CHECKING,
                          (long long)s->T, (long long)in_len[n]);
  }
  s->offsets = *offsets;
  tl_status status = tl_nn_index_target(targets, tt);
  if (status != TL_OK)
    return status;
  /* labels read by the recursion must be classes: checked on the host, from
   * a copy when the targets live in a device's memory (one sync) */
  tl_tensor host = {0};
  const tl_tensor *th = tt;
  if (!tl_dispatch_host_memory(tl_tensor_device(tt))) {
    if ((status = tl_tensor_empty(&host, TL_DTYPE_I64, tt->ndim, tt->shape, tl_device_cpu())) != TL_OK ||
        (status = tl_tensor_copy(&host, tt)) != TL_OK) {
      tl_tensor_release(&host);
      return status;
    }
    th = &host;
  }
  const int64_t *tg = tl_tensor_data(th);
  for (int64_t n = 0; n < s->N && status == TL_OK; n++)
    for (int64_t i = 0; i < tg_len[n]; i++)
      if (tg[s->offsets[n] + i] < 0 || tg[s->offsets[n] + i] >= s->C) {
        status = tl_error_set(TL_ERR_INDEX, "Target %lld is out of bounds.",
                              (long long)tg[s->offsets[n] + i]);
        break;
      }
  tl_tensor_release(&host);
  return status;
}

tl_status tl_nn_ctc_loss(const tl_tensor *log_probs, const tl_tensor *targets,
                         const int64_t *input_lengths, int64_t n_input_lengths,
                         const int64_t *target_lengths, int64_t n_target_lengths, int64_t blank,
                         bool zero_infinity, tl_tensor *nll, tl_tensor *log_alpha)
{
  const tl_tensor *devs[] = {log_probs, targets};
  const tl_nn_class_loss_kernels *set =
      tl_dispatch_kernel(TL_OP_CTC_LOSS, log_probs->dtype, 2, devs);
  if (!set)
    return tl_error_status();
  tl_ctc_spec s = {0};
  int64_t *offsets;
  tl_tensor tt = {0};
  tl_device dev = tl_tensor_device(log_probs);
  tl_status status = check_ctc(TL_OP_CTC_LOSS, log_probs, targets, input_lengths,
                               n_input_lengths, target_lengths, n_target_lengths, blank,
                               zero_infinity, &s, &offsets, &tt);
  int64_t shape[3] = {s.N, s.T, 2 * s.maxS + 1};
  if (status != TL_OK ||
      (status = tl_tensor_empty(nll, log_probs->dtype, 1, &s.N, dev)) != TL_OK ||
      (status = tl_tensor_empty(log_alpha, tl_nn_work_dtype(log_probs->dtype), 3, shape, dev)) !=
          TL_OK ||
      (status = set->ctc(&s, log_probs, &tt, nll, log_alpha)) != TL_OK) {
    tl_tensor_release(nll);
    tl_tensor_release(log_alpha);
  }
  free(offsets);
  tl_tensor_release(&tt);
  return status;
}

tl_status tl_nn_ctc_loss_backward(const tl_tensor *grad, const tl_tensor *log_probs,
                                  const tl_tensor *targets, const int64_t *input_lengths,
                                  int64_t n_input_lengths, const int64_t *target_lengths,
                                  int64_t n_target_lengths, const tl_tensor *nll,
                                  const tl_tensor *log_alpha, int64_t blank, bool zero_infinity,
                                  tl_tensor *grad_input)
{
  const tl_tensor *devs[] = {grad, log_probs, targets, nll, log_alpha};
  const tl_nn_class_loss_kernels *set =
      tl_dispatch_kernel(TL_OP_CTC_LOSS_BACKWARD, log_probs->dtype, 5, devs);
  if (!set)
    return tl_error_status();
  tl_ctc_spec s = {0};
  int64_t *offsets;
  tl_tensor tt = {0};
  tl_status status = check_ctc(TL_OP_CTC_LOSS_BACKWARD, log_probs, targets, input_lengths,
                               n_input_lengths, target_lengths, n_target_lengths, blank,
                               zero_infinity, &s, &offsets, &tt);
  if (status == TL_OK &&
      (tl_tensor_numel(grad) != s.N || tl_tensor_numel(nll) != s.N || log_alpha->ndim != 3 ||
       log_alpha->shape[0] != s.N || log_alpha->shape[1] != s.T ||
       log_alpha->shape[2] != 2 * s.maxS + 1))
    status = tl_error_set(TL_ERR_RUNTIME, "_ctc_loss_backward(): grad, neg_log_likelihood and "
                                          "log_alpha do not come from _ctc_loss of these "
                                          "arguments");
  if (status != TL_OK ||
      (status = tl_tensor_empty(grad_input, log_probs->dtype, 3, log_probs->shape,
                                tl_tensor_device(log_probs))) != TL_OK ||
      (status = set->ctc_backward(&s, grad, log_probs, &tt, nll, log_alpha, grad_input)) != TL_OK)
    tl_tensor_release(grad_input);
  free(offsets);
  tl_tensor_release(&tt);
  return status;
}
