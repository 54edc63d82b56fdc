/* act_loss_gpu.c - the CUDA kernel sets of softmax, the activations,
 * embedding, the losses (nll_loss, the elementwise losses, cross_entropy,
 * the margin losses, ctc_loss) and the sampling grids, and their rows in
 * the kernel table (tl_gpu_nn_act_loss_register, called from
 * tl_gpu_kernels_register).
 *
 * Each set has the CPU set's signature (tl_softmax.h ...) and does what the
 * CPU's does around its loops: float operands become work-type tensors
 * (tl_nn_work.h: float16/bfloat16 computed in float32, cast on the device),
 * a result of another dtype is computed into a work-type twin and cast last.
 * The kernels are in softmax.cu, activation.cu, embedding.cu, loss.cu, ctc.cu
 * and grid.cu.
 *
 * Indices and class targets are checked on the device before they are read,
 * without a host wait (a wait per call would stall a training loop): a
 * kernel records a bad value in the device's error record, raised as the
 * CPU's error (its wording, the value, the op) at the next synchronization
 * (item(), .cpu(), synchronize; at the op itself with CUDA_LAUNCH_BLOCKING=1),
 * and writes the copy of the indices the op's kernels read, every bad one
 * replaced by 0, so that no kernel reads outside its tensors
 * (tl_device_errors.h).  Only where no index can be valid (0 rows, 0
 * classes) is the check read back at once.  Apart from that and ctc's
 * lengths, copied to the device, these ops do not wait for the device. */
#include "gpu/tl_gpu.h"

#ifdef TL_WITH_CUDA
#include "gpu/nn/tl_gpu_act_loss.h"
#include "gpu/tl_gpu_host.h"
#include "ndcore/kernels/tl_create.h"
#include "nn/activation/tl_activation.h"
#include "nn/embedding/tl_embedding.h"
#include "nn/grid/tl_grid.h"
#include "nn/loss/tl_loss.h"
#include "nn/softmax/tl_softmax.h"
#include "nn/tl_nn_work.h"

_Static_assert((int)TL_GPU_ACT_RELU == (int)TL_ACT_RELU && (int)TL_GPU_ACT_GELU == (int)TL_ACT_GELU &&
                   (int)TL_GPU_ACT_HARDTANH == (int)TL_ACT_HARDTANH &&
                   (int)TL_GPU_ACT_LOG_SIGMOID == (int)TL_ACT_LOG_SIGMOID &&
                   (int)TL_GPU_ACT_PRELU == (int)TL_ACT_PRELU && (int)TL_GPU_ACT_GLU == (int)TL_ACT_GLU &&
                   (int)TL_GPU_ACT_COUNT == (int)TL_ACT_COUNT,
               "tl_gpu_act_loss.h's activation kinds are tl_act_kind's");

/* ---- work tensors -------------------------------------------------------------------- */

/* Up to 6 inputs made work-type (views when they already are) and up to 3
 * results (themselves, or work-type twins copied back by work_finish). */
typedef struct {
  tl_tensor in_tmp[6], out_tmp[3];
  tl_tensor *out[3], *res[3];
} work_set;

/* *in as work type `work`: contiguous unless `strided` allows any layout. */
static const tl_tensor *work_in(work_set *w, int k, const tl_tensor *t, tl_dtype work, bool strided)
{
  if (!t)
    return NULL;
  if (t->dtype == work && (strided || tl_tensor_is_contiguous(t)))
    return t;
  return tl_tensor_to_dtype(&w->in_tmp[k], t, work) == TL_OK ? &w->in_tmp[k] : NULL;
}

/* The tensor a kernel writes for result t: t itself when contiguous and of
 * the work type, else a contiguous (zeroed) twin.  A result keeps its
 * input's layout (channels-last, transposed) and out= may be any view, while
 * the kernels write their elements in row-major order. */
static tl_tensor *work_out(work_set *w, int k, tl_tensor *t, tl_dtype work, bool zero)
{
  w->res[k] = t;
  if (!t || (t->dtype == work && tl_tensor_is_contiguous(t)))
    return w->out[k] = t;
  tl_status s = zero ? tl_tensor_zeros(&w->out_tmp[k], work, t->ndim, t->shape, tl_tensor_device(t))
                     : tl_tensor_empty(&w->out_tmp[k], work, t->ndim, t->shape, tl_tensor_device(t));
  return w->out[k] = s == TL_OK ? &w->out_tmp[k] : NULL;
}

/* Bump the results' versions (status TL_OK) and copy the twins back. */
static tl_status work_finish(work_set *w, tl_status status)
{
  for (int k = 0; k < 3 && status == TL_OK; k++) {
    if (!w->res[k])
      continue;
    tl_storage_bump(w->res[k]->storage);
    if (w->out[k] != w->res[k])
      status = tl_tensor_copy(w->res[k], w->out[k]);
  }
  for (int k = 0; k < 6; k++)
    tl_tensor_release(&w->in_tmp[k]);
  for (int k = 0; k < 3; k++)
    tl_tensor_release(&w->out_tmp[k]);
  return status;
}

static void *data_of(const tl_tensor *t) { return t ? tl_tensor_data(t) : NULL; }

/* ---- index checks ---------------------------------------------------------------------- */

/* Whose indices a check reads, for its error: the CPU's wording and type. */
typedef enum {
  BAD_EMBEDDING, BAD_BAG, BAD_BAG_MAX, BAD_CLASS, BAD_MULTI_MARGIN, BAD_MULTILABEL
} bad_index;

static const struct {
  tl_device_error_kind kind;
  tl_status status;
} bad_words[] = {
    [BAD_EMBEDDING] = {TL_DEVICE_ERROR_EMBEDDING, TL_ERR_INDEX},
    [BAD_BAG] = {TL_DEVICE_ERROR_BAG, TL_ERR_RUNTIME},
    [BAD_BAG_MAX] = {TL_DEVICE_ERROR_BAG_MAX, TL_ERR_RUNTIME},
    [BAD_CLASS] = {TL_DEVICE_ERROR_TARGET, TL_ERR_INDEX},
    [BAD_MULTI_MARGIN] = {TL_DEVICE_ERROR_MARGIN, TL_ERR_RUNTIME},
    [BAD_MULTILABEL] = {TL_DEVICE_ERROR_MULTILABEL, TL_ERR_RUNTIME},
};

/* embedding_bag's words (the position of the first bad index among them)
 * from a host copy of the indices, on the error path only. */
static tl_status bag_index_error(const tl_tensor *idx, int64_t hi, bool max_path)
{
  tl_tensor host = {0};
  tl_status status = tl_tensor_empty(&host, TL_DTYPE_I64, idx->ndim, idx->shape, tl_device_cpu());
  if (status == TL_OK)
    status = tl_tensor_copy(&host, idx);
  if (status == TL_OK)
    status = tl_nn_embedding_bag_check_range(&host, hi, max_path);
  tl_tensor_release(&host);
  return status;
}

/* Every idx (contiguous int64) in [0, hi), or == skip when has_skip; else
 * the error the CPU raises for `kind`, at once: the host waits for the
 * check (used where hi <= 0, when no index but `skip` can be valid). */
static tl_status check_indices_now(const tl_tensor *idx, int64_t hi, bool has_skip, int64_t skip,
                                   bad_index kind)
{
  int64_t n = tl_tensor_numel(idx), value = 0, one = 1;
  tl_tensor scratch = {0};
  void *stream = NULL;
  int bad = 0;
  if (n == 0)
    return TL_OK;
  tl_status status = tl_tensor_empty(&scratch, TL_DTYPE_I64, 1, &one, tl_tensor_device(idx));
  if (status == TL_OK && (status = tl_gpu_stream(tl_tensor_device(idx), "index check", &stream)) == TL_OK)
    status = tl_gpu_launched(tl_gpu_index_check(tl_tensor_data(idx), n, hi, skip, has_skip,
                                                tl_tensor_data(&scratch), &bad, &value, stream),
                             "index check");
  tl_tensor_release(&scratch);
  if (status != TL_OK || !bad)
    return status;
  switch (kind) {
  case BAD_EMBEDDING: return tl_error_set(TL_ERR_INDEX, "index out of range in self");
  case BAD_BAG:
  case BAD_BAG_MAX: return bag_index_error(idx, hi, kind == BAD_BAG_MAX);
  case BAD_CLASS: return tl_error_set(TL_ERR_INDEX, "Target %lld is out of bounds.", (long long)value);
  case BAD_MULTI_MARGIN: return tl_error_set(TL_ERR_RUNTIME, "target out of range");
  default: return tl_error_set(TL_ERR_RUNTIME, "argument #2 'target' is out of range");
  }
}

/* The indices the op's kernels read: idx (contiguous int64) checked against
 * [0, hi) (or == skip when has_skip) on the device without a wait, a bad
 * value recorded for the next synchronization under the running op's name
 * (tl_device_errors_enter), and *use = *safe, idx's copy with each bad value
 * replaced by 0.  The caller releases *safe. */
static tl_status check_indices(const tl_tensor *idx, int64_t hi, bool has_skip, int64_t skip,
                               bad_index kind, tl_tensor *safe, const tl_tensor **use)
{
  const tl_device device = tl_tensor_device(idx);
  int64_t n = tl_tensor_numel(idx);
  tl_device_error *word = NULL;
  void *stream = NULL;
  *use = idx;
  if (n == 0)
    return TL_OK;
  if (hi <= 0)
    return check_indices_now(idx, hi, has_skip, skip, kind);
  tl_status status = tl_tensor_empty(safe, TL_DTYPE_I64, idx->ndim, idx->shape, device);
  if (status == TL_OK)
    status = tl_gpu_stream(device, "index check", &stream);
  if (status == TL_OK)
    status = tl_device_errors_word(device, stream, &word);
  if (status == TL_OK)
    status = tl_gpu_launched(
        tl_gpu_index_defer(tl_tensor_data(idx), tl_tensor_data(safe), n, hi, skip, has_skip, word,
                           tl_device_errors_op(tl_device_errors_current()),
                           (int)bad_words[kind].status, (int)bad_words[kind].kind, stream),
        "index check");
  if (status == TL_OK)
    *use = safe;
  return status;
}

/* ---- softmax ----------------------------------------------------------------------------- */

/* The forward (g NULL) or the backward (x the forward's output) into out. */
static tl_status softmax_run(const tl_tensor *x, const tl_tensor *g, int dim, bool log, tl_tensor *out)
{
  tl_dtype work = tl_nn_work_dtype(x->dtype);
  work_set w = {0};
  void *stream = NULL;
  const tl_tensor *xw = work_in(&w, 0, x, work, false), *gw = work_in(&w, 1, g, work, false);
  tl_tensor *y = work_out(&w, 0, out, work, false);
  tl_status status = tl_error_status();
  if (xw && (!g || gw) && y && (status = tl_gpu_stream(tl_tensor_device(out), "softmax", &stream)) == TL_OK) {
    int64_t len = x->ndim ? x->shape[dim] : 1, inner = 1, numel = tl_tensor_numel(x);
    for (int i = dim + 1; i < x->ndim; i++)
      inner *= x->shape[i];
    int64_t outer = numel ? numel / (len * inner) : 0;
    status = tl_gpu_launched(tl_gpu_softmax_launch(tl_tensor_data(xw), data_of(gw), tl_tensor_data(y),
                                                   outer, len, inner, log, work == TL_DTYPE_F64, stream),
                             log ? "log_softmax" : "softmax");
  }
  return work_finish(&w, status);
}

static tl_status gpu_softmax(const tl_tensor *in, int dim, bool log, tl_tensor *out)
{
  return softmax_run(in, NULL, dim, log, out);
}

static tl_status gpu_softmax_backward(const tl_tensor *grad, const tl_tensor *output, int dim, bool log,
                                      tl_tensor *grad_input)
{
  return softmax_run(output, grad, dim, log, grad_input);
}

static const tl_nn_softmax_kernels gpu_softmax_set = {
    .softmax = gpu_softmax,
    .softmax_backward = gpu_softmax_backward,
};

/* ---- activations --------------------------------------------------------------------- */

/* One elementwise launch over out and the inputs ins[0..arity) (any
 * strides, broadcast allowed), through the plan of tl_iter_init. */
static tl_status act_launch(bool backward, int arity, int which, tl_act_kind kind,
                            const tl_act_params *p, tl_tensor *out, const tl_tensor *const *ins,
                            bool f64)
{
  const char *name = backward ? "activation backward" : "activation";
  const tl_tensor *ops[4] = {out};
  tl_iter it;
  tl_gpu_plan plan;
  tl_gpu_params params = {.real = {p->a, p->b, p->c}, .i = (int64_t)kind | (int64_t)which << 8};
  void *stream = NULL;
  for (int k = 0; k < arity; k++)
    ops[k + 1] = ins[k];
  if (tl_iter_init(&it, 1 + arity, ops, NULL) != TL_OK || tl_gpu_plan_from_iter(&plan, &it, name) != TL_OK ||
      tl_gpu_stream(it.device, name, &stream) != TL_OK)
    return tl_error_status();
  int err = backward ? tl_gpu_act_backward_launch(f64, arity, &plan, &params, stream)
                     : tl_gpu_act_forward_launch(f64, arity, &plan, &params, stream);
  return tl_gpu_launched(err, name);
}

/* The forward (g NULL) or the backward, as the CPU's run() in activation_cpu.c. */
static tl_status act_run(tl_act_kind kind, const tl_act_params *p, const tl_tensor *g,
                         const tl_tensor *x, const tl_tensor *w, tl_tensor *y, tl_tensor *dw)
{
  tl_dtype work = tl_nn_work_dtype(y->dtype);
  bool f64 = work == TL_DTYPE_F64;
  work_set ws = {0};
  const tl_tensor *gw = work_in(&ws, 0, g, work, true), *xw = work_in(&ws, 1, x, work, true),
                  *ww = work_in(&ws, 2, w, work, true);
  tl_tensor *yw = work_out(&ws, 0, y, work, false), *dww = work_out(&ws, 1, dw, work, false);
  tl_status status = tl_error_status();
  if ((g && !gw) || !xw || (w && !ww) || !yw || (dw && !dww))
    return work_finish(&ws, status);
  if (!g) {
    const tl_tensor *ins[2] = {xw, ww};
    status = act_launch(false, w ? 2 : 1, 0, kind, p, yw, ins, f64);
  } else {
    const tl_tensor *ins[3] = {gw, xw, ww};
    status = act_launch(true, w ? 3 : 2, 0, kind, p, yw, ins, f64);
    if (status == TL_OK && dw)
      status = act_launch(true, 3, 1, kind, p, dww, ins, f64);
  }
  return work_finish(&ws, status);
}

static tl_status gpu_activation(tl_act_kind kind, const tl_act_params *p, const tl_tensor *x,
                                const tl_tensor *w, tl_tensor *y)
{
  return act_run(kind, p, NULL, x, w, y, NULL);
}

static tl_status gpu_activation_backward(tl_act_kind kind, const tl_act_params *p, const tl_tensor *g,
                                         const tl_tensor *x, const tl_tensor *w, tl_tensor *dx,
                                         tl_tensor *dw)
{
  return act_run(kind, p, g, x, w, dx, dw);
}

static const tl_nn_activation_kernels gpu_activation_set = {
    .forward = gpu_activation,
    .backward = gpu_activation_backward,
};

/* ---- embedding ----------------------------------------------------------------------- */

static tl_status gpu_embedding(const tl_tensor *weight, const tl_tensor *idx, tl_tensor *out)
{
  const char *outer = tl_device_errors_enter("embedding");
  tl_tensor safe = {0};
  const tl_tensor *ids = idx;
  void *stream = NULL;
  tl_status status = check_indices(idx, weight->shape[0], false, 0, BAD_EMBEDDING, &safe, &ids);
  if (status == TL_OK)
    status = tl_gpu_stream(tl_tensor_device(out), "embedding", &stream);
  if (status == TL_OK) {
    tl_storage_bump(out->storage);
    status = tl_gpu_launched(tl_gpu_embedding_gather(tl_tensor_data(weight), tl_tensor_data(ids),
                                                     tl_tensor_data(out), tl_tensor_numel(idx),
                                                     weight->shape[1],
                                                     (int)tl_dtype_size(weight->dtype), stream),
                             "embedding");
  }
  tl_tensor_release(&safe);
  return tl_device_errors_leave(outer, tl_tensor_device(out), status);
}

static tl_status gpu_embedding_backward(const tl_tensor *g, const tl_tensor *idx, int64_t padding_idx,
                                        bool freq, tl_tensor *dw)
{
  const char *name = "embedding_dense_backward", *outer = tl_device_errors_enter(name);
  tl_dtype work = tl_nn_work_dtype(g->dtype);
  int64_t V = dw->shape[0], n = tl_tensor_numel(idx);
  work_set ws = {0};
  tl_tensor count = {0}, safe = {0};
  void *stream = NULL;
  const tl_tensor *gw = work_in(&ws, 0, g, work, false);
  tl_tensor *d = work_out(&ws, 0, dw, work, true);
  tl_status status = gw && d ? check_indices(idx, V, false, 0, BAD_EMBEDDING, &safe, &idx)
                             : tl_error_status();
  if (status == TL_OK && freq)
    status = tl_tensor_zeros(&count, TL_DTYPE_I64, 1, &V, tl_tensor_device(dw));
  if (status == TL_OK)
    status = tl_gpu_stream(tl_tensor_device(dw), name, &stream);
  if (status == TL_OK && freq)
    status = tl_gpu_launched(tl_gpu_embedding_count(tl_tensor_data(idx), n, tl_tensor_data(&count),
                                                    stream), name);
  if (status == TL_OK)
    status = tl_gpu_launched(tl_gpu_embedding_scatter(tl_tensor_data(gw), tl_tensor_data(idx),
                                                      freq ? tl_tensor_data(&count) : NULL,
                                                      tl_tensor_data(d), n, dw->shape[1], padding_idx,
                                                      work == TL_DTYPE_F64, stream),
                             name);
  tl_tensor_release(&count);
  tl_tensor_release(&safe);
  return tl_device_errors_leave(outer, tl_tensor_device(dw), work_finish(&ws, status));
}

static tl_status gpu_bag_forward(const tl_tensor *weight, const tl_tensor *idx, const tl_tensor *bounds,
                                 const tl_tensor *psw, tl_bag_mode mode, int64_t padding_idx,
                                 tl_tensor *out, tl_tensor *bag_size, tl_tensor *argmax)
{
  const char *outer = tl_device_errors_enter("embedding_bag");
  tl_dtype work = tl_nn_work_dtype(weight->dtype);
  work_set ws = {0};
  tl_tensor safe = {0};
  void *stream = NULL;
  const tl_tensor *w = work_in(&ws, 0, weight, work, false), *pw = work_in(&ws, 1, psw, work, false);
  tl_tensor *o = work_out(&ws, 0, out, work, true);
  bad_index kind = mode == TL_BAG_MAX || padding_idx >= 0 ? BAD_BAG_MAX : BAD_BAG;
  tl_status status = w && (!psw || pw) && o
                         ? check_indices(idx, weight->shape[0], false, 0, kind, &safe, &idx)
                         : tl_error_status();
  if (status == TL_OK)
    status = tl_gpu_stream(tl_tensor_device(out), "embedding_bag", &stream);
  if (status == TL_OK) {
    tl_gpu_bag_args a = {.w = tl_tensor_data(w), .psw = data_of(pw), .out = tl_tensor_data(o),
                         .idx = tl_tensor_data(idx), .bounds = tl_tensor_data(bounds),
                         .bag_size = tl_tensor_data(bag_size),
                         .argmax = mode == TL_BAG_MAX ? tl_tensor_data(argmax) : NULL,
                         .n = tl_tensor_numel(idx), .B = bag_size->shape[0], .E = weight->shape[1],
                         .pad = padding_idx, .mode = (int)mode, .f64 = work == TL_DTYPE_F64};
    tl_storage_bump(bag_size->storage);
    tl_storage_bump(argmax->storage);
    status = tl_gpu_launched(tl_gpu_embedding_bag_forward(&a, stream), "embedding_bag");
  }
  tl_tensor_release(&safe);
  return tl_device_errors_leave(outer, tl_tensor_device(out), work_finish(&ws, status));
}

static tl_status gpu_bag_backward(const tl_tensor *g, const tl_tensor *idx, const tl_tensor *bag_of,
                                  const tl_tensor *bag_size, const tl_tensor *argmax,
                                  const tl_tensor *psw, tl_bag_mode mode, int64_t padding_idx,
                                  tl_tensor *dw)
{
  const char *name = "_embedding_bag_dense_backward", *outer = tl_device_errors_enter(name);
  tl_dtype work = tl_nn_work_dtype(g->dtype);
  work_set ws = {0};
  tl_tensor safe = {0};
  void *stream = NULL;
  const tl_tensor *gw = work_in(&ws, 0, g, work, false), *pw = work_in(&ws, 1, psw, work, false);
  tl_tensor *d = work_out(&ws, 0, dw, work, true);
  tl_status status = gw && (!psw || pw) && d
                         ? check_indices(idx, dw->shape[0], false, 0, BAD_EMBEDDING, &safe, &idx)
                         : tl_error_status();
  if (status == TL_OK)
    status = tl_gpu_stream(tl_tensor_device(dw), name, &stream);
  if (status == TL_OK) {
    tl_gpu_bag_args a = {.g = tl_tensor_data(gw), .psw = data_of(pw), .dw = tl_tensor_data(d),
                         .idx = tl_tensor_data(idx), .bag_of = tl_tensor_data(bag_of),
                         .bag_size = tl_tensor_data(bag_size),
                         .argmax = mode == TL_BAG_MAX ? tl_tensor_data(argmax) : NULL,
                         .n = tl_tensor_numel(idx), .B = bag_size->shape[0], .E = dw->shape[1],
                         .pad = padding_idx, .mode = (int)mode, .f64 = work == TL_DTYPE_F64};
    status = tl_gpu_launched(tl_gpu_embedding_bag_backward(&a, stream), name);
  }
  tl_tensor_release(&safe);
  return tl_device_errors_leave(outer, tl_tensor_device(dw), work_finish(&ws, status));
}

static const tl_nn_embedding_kernels gpu_embedding_set = {
    .forward = gpu_embedding,
    .backward = gpu_embedding_backward,
    .bag_forward = gpu_bag_forward,
    .bag_backward = gpu_bag_backward,
};

/* ---- losses ------------------------------------------------------------------------------ */

/* scratch: n doubles on t's device. */
static tl_status scratch_of(tl_tensor *scratch, int64_t n, const tl_tensor *t)
{
  return tl_tensor_empty(scratch, TL_DTYPE_F64, 1, &n, tl_tensor_device(t));
}

static tl_status gpu_nll(const tl_nll_spec *s, const tl_tensor *input, const tl_tensor *target,
                         const tl_tensor *weight, tl_tensor *out, tl_tensor *total_weight)
{
  const char *outer = tl_device_errors_enter("nll_loss");
  tl_dtype work = tl_nn_work_dtype(input->dtype);
  work_set ws = {0};
  tl_tensor scratch = {0}, safe = {0};
  void *stream = NULL;
  int64_t rows = s->N * s->S;
  const tl_tensor *x = work_in(&ws, 0, input, work, false), *w = work_in(&ws, 1, weight, work, false);
  tl_tensor *o = work_out(&ws, 0, out, work, false), *tw = work_out(&ws, 1, total_weight, work, false);
  tl_status status = x && w && o && tw
                         ? check_indices(target, s->C, true, s->ignore_index, BAD_CLASS, &safe, &target)
                         : tl_error_status();
  if (status == TL_OK)
    status = scratch_of(&scratch, 2 * rows, input);
  if (status == TL_OK)
    status = tl_gpu_stream(tl_tensor_device(input), "nll_loss", &stream);
  if (status == TL_OK) {
    tl_gpu_class_loss a = {.N = s->N, .C = s->C, .S = s->S, .ignore_index = s->ignore_index,
                           .reduction = (int)s->reduction, .f64 = work == TL_DTYPE_F64,
                           .x = tl_tensor_data(x), .w = tl_tensor_data(w), .y = tl_tensor_data(target),
                           .out = tl_tensor_data(o), .tw = tl_tensor_data(tw),
                           .scratch = tl_tensor_data(&scratch)};
    status = tl_gpu_launched(tl_gpu_nll_launch(&a, stream), "nll_loss");
  }
  tl_tensor_release(&scratch);
  tl_tensor_release(&safe);
  return tl_device_errors_leave(outer, tl_tensor_device(input), work_finish(&ws, status));
}

static tl_status gpu_nll_backward(const tl_nll_spec *s, const tl_tensor *grad, const tl_tensor *target,
                                  const tl_tensor *weight, const tl_tensor *total_weight,
                                  tl_tensor *grad_input)
{
  const char *outer = tl_device_errors_enter("nll_loss_backward");
  tl_dtype work = tl_nn_work_dtype(grad_input->dtype);
  work_set ws = {0};
  tl_tensor safe = {0};
  void *stream = NULL;
  const tl_tensor *g = work_in(&ws, 0, grad, work, false), *w = work_in(&ws, 1, weight, work, false),
                  *tw = work_in(&ws, 2, total_weight, work, false);
  tl_tensor *d = work_out(&ws, 0, grad_input, work, true);
  tl_status status = g && w && tw && d
                         ? check_indices(target, s->C, true, s->ignore_index, BAD_CLASS, &safe, &target)
                         : tl_error_status();
  if (status == TL_OK)
    status = tl_gpu_stream(tl_tensor_device(grad_input), "nll_loss_backward", &stream);
  if (status == TL_OK) {
    tl_gpu_class_loss a = {.N = s->N, .C = s->C, .S = s->S, .ignore_index = s->ignore_index,
                           .reduction = (int)s->reduction, .f64 = work == TL_DTYPE_F64,
                           .g = tl_tensor_data(g), .w = tl_tensor_data(w), .tw_in = tl_tensor_data(tw),
                           .y = tl_tensor_data(target), .dx = tl_tensor_data(d)};
    status = tl_gpu_launched(tl_gpu_nll_backward_launch(&a, stream), "nll_loss_backward");
  }
  tl_tensor_release(&safe);
  return tl_device_errors_leave(outer, tl_tensor_device(grad_input), work_finish(&ws, status));
}

static const tl_nn_loss_kernels gpu_nll_set = {
    .nll = gpu_nll,
    .nll_backward = gpu_nll_backward,
};

static tl_status gpu_pointwise(const tl_loss_spec *s, const tl_tensor *x, const tl_tensor *t,
                               const tl_tensor *w, const tl_tensor *p, tl_tensor *out)
{
  tl_dtype work = tl_nn_work_dtype(x->dtype);
  work_set ws = {0};
  tl_tensor scratch = {0};
  void *stream = NULL;
  int64_t n = tl_tensor_numel(x);
  const tl_tensor *xw = work_in(&ws, 0, x, work, false), *tw = work_in(&ws, 1, t, work, false),
                  *ww = work_in(&ws, 2, w, work, false), *pw = work_in(&ws, 3, p, work, false);
  tl_tensor *o = work_out(&ws, 0, out, work, false);
  tl_status status = xw && tw && (!w || ww) && (!p || pw) && o ? TL_OK : tl_error_status();
  if (status == TL_OK && s->reduction != TL_REDUCTION_NONE)
    status = scratch_of(&scratch, n, x);
  if (status == TL_OK)
    status = tl_gpu_stream(tl_tensor_device(x), "pointwise_loss", &stream);
  if (status == TL_OK) {
    tl_gpu_pointwise_loss a = {.kind = (int)s->kind, .reduction = (int)s->reduction,
                               .f64 = work == TL_DTYPE_F64, .param = s->param, .n = n,
                               .x = tl_tensor_data(xw), .t = tl_tensor_data(tw), .w = data_of(ww),
                               .p = data_of(pw), .out = tl_tensor_data(o),
                               .scratch = scratch.storage ? tl_tensor_data(&scratch) : NULL};
    status = tl_gpu_launched(tl_gpu_pointwise_loss_launch(&a, stream), "pointwise_loss");
  }
  tl_tensor_release(&scratch);
  return work_finish(&ws, status);
}

static tl_status gpu_pointwise_backward(const tl_loss_spec *s, const tl_tensor *g, const tl_tensor *x,
                                        const tl_tensor *t, const tl_tensor *w, const tl_tensor *p,
                                        tl_tensor *dx, tl_tensor *dt)
{
  tl_dtype work = tl_nn_work_dtype(x->dtype);
  work_set ws = {0};
  void *stream = NULL;
  const tl_tensor *gw = work_in(&ws, 0, g, work, false), *xw = work_in(&ws, 1, x, work, false),
                  *tw = work_in(&ws, 2, t, work, false), *ww = work_in(&ws, 3, w, work, false),
                  *pw = work_in(&ws, 4, p, work, false);
  /* dt in x's work type too: work_finish casts it to dt's dtype */
  tl_tensor *rx = work_out(&ws, 0, dx, work, false), *rt = work_out(&ws, 1, dt, work, false);
  tl_status status = gw && xw && tw && (!w || ww) && (!p || pw) && rx && rt ? TL_OK : tl_error_status();
  if (status == TL_OK)
    status = tl_gpu_stream(tl_tensor_device(x), "pointwise_loss_backward", &stream);
  if (status == TL_OK) {
    tl_gpu_pointwise_loss a = {.kind = (int)s->kind, .reduction = (int)s->reduction,
                               .f64 = work == TL_DTYPE_F64, .param = s->param,
                               .n = tl_tensor_numel(x), .g = tl_tensor_data(gw),
                               .x = tl_tensor_data(xw), .t = tl_tensor_data(tw), .w = data_of(ww),
                               .p = data_of(pw), .dx = tl_tensor_data(rx), .dt = tl_tensor_data(rt)};
    status = tl_gpu_launched(tl_gpu_pointwise_loss_backward_launch(&a, stream),
                             "pointwise_loss_backward");
  }
  return work_finish(&ws, status);
}

static const tl_nn_pointwise_loss_kernels gpu_pointwise_set = {
    .loss = gpu_pointwise,
    .loss_backward = gpu_pointwise_backward,
};

static tl_status gpu_cross_entropy(const tl_ce_spec *s, const tl_tensor *input, const tl_tensor *target,
                                   const tl_tensor *weight, tl_tensor *out, tl_tensor *lse,
                                   tl_tensor *total_weight)
{
  const char *outer = tl_device_errors_enter("cross_entropy");
  tl_dtype work = tl_nn_work_dtype(input->dtype);
  work_set ws = {0};
  tl_tensor scratch = {0}, safe = {0};
  void *stream = NULL;
  int64_t rows = s->N * s->S;
  const tl_tensor *x = work_in(&ws, 0, input, work, false),
                  *t = s->probs ? work_in(&ws, 1, target, work, false) : NULL,
                  *w = work_in(&ws, 2, weight, work, false);
  tl_tensor *o = work_out(&ws, 0, out, work, false), *l = work_out(&ws, 1, lse, work, false),
            *tw = work_out(&ws, 2, total_weight, work, false);
  tl_status status = x && (!s->probs || t) && (!weight || w) && o && l && tw ? TL_OK : tl_error_status();
  if (status == TL_OK && !s->probs)
    status = check_indices(target, s->C, true, s->ignore_index, BAD_CLASS, &safe, &target);
  if (status == TL_OK) /* zeroed: with no classes the rows' kernel does not run */
    status = tl_tensor_zeros(&scratch, TL_DTYPE_F64, 1, (int64_t[]){2 * rows}, tl_tensor_device(input));
  if (status == TL_OK)
    status = tl_gpu_stream(tl_tensor_device(input), "cross_entropy", &stream);
  if (status == TL_OK) {
    tl_gpu_class_loss a = {.N = s->N, .C = s->C, .S = s->S, .ignore_index = s->ignore_index,
                           .reduction = (int)s->reduction, .f64 = work == TL_DTYPE_F64,
                           .eps = s->smoothing, .x = tl_tensor_data(x), .t = data_of(t),
                           .w = data_of(w), .y = s->probs ? NULL : tl_tensor_data(target),
                           .out = tl_tensor_data(o), .lse = tl_tensor_data(l), .tw = tl_tensor_data(tw),
                           .scratch = tl_tensor_data(&scratch)};
    status = tl_gpu_launched(tl_gpu_cross_entropy_launch(&a, stream), "cross_entropy");
  }
  tl_tensor_release(&scratch);
  tl_tensor_release(&safe);
  return tl_device_errors_leave(outer, tl_tensor_device(input), work_finish(&ws, status));
}

static tl_status gpu_cross_entropy_backward(const tl_ce_spec *s, const tl_tensor *grad,
                                            const tl_tensor *input, const tl_tensor *target,
                                            const tl_tensor *weight, const tl_tensor *lse,
                                            const tl_tensor *total_weight, tl_tensor *grad_input,
                                            tl_tensor *grad_target)
{
  const char *outer = tl_device_errors_enter("cross_entropy_backward");
  tl_dtype work = tl_nn_work_dtype(input->dtype);
  work_set ws = {0};
  tl_tensor safe = {0};
  void *stream = NULL;
  const tl_tensor *x = work_in(&ws, 0, input, work, false),
                  *t = s->probs ? work_in(&ws, 1, target, work, false) : NULL,
                  *w = work_in(&ws, 2, weight, work, false), *g = work_in(&ws, 3, grad, work, false),
                  *l = work_in(&ws, 4, lse, work, false), *tw = work_in(&ws, 5, total_weight, work, false);
  tl_tensor *dx = work_out(&ws, 0, grad_input, work, false),
            *dt = work_out(&ws, 1, grad_target, work, false);
  tl_status status = x && (!s->probs || t) && (!weight || w) && g && l && tw && dx &&
                             (!grad_target || dt)
                         ? TL_OK
                         : tl_error_status();
  if (status == TL_OK && !s->probs)
    status = check_indices(target, s->C, true, s->ignore_index, BAD_CLASS, &safe, &target);
  if (status == TL_OK)
    status = tl_gpu_stream(tl_tensor_device(input), "cross_entropy_backward", &stream);
  if (status == TL_OK) {
    tl_gpu_class_loss a = {.N = s->N, .C = s->C, .S = s->S, .ignore_index = s->ignore_index,
                           .reduction = (int)s->reduction, .f64 = work == TL_DTYPE_F64,
                           .eps = s->smoothing, .x = tl_tensor_data(x), .t = data_of(t),
                           .w = data_of(w), .g = tl_tensor_data(g), .lse_in = tl_tensor_data(l),
                           .tw_in = tl_tensor_data(tw), .y = s->probs ? NULL : tl_tensor_data(target),
                           .dx = tl_tensor_data(dx), .dt = data_of(dt)};
    status = tl_gpu_launched(tl_gpu_cross_entropy_backward_launch(&a, stream), "cross_entropy_backward");
  }
  tl_tensor_release(&safe);
  return tl_device_errors_leave(outer, tl_tensor_device(input), work_finish(&ws, status));
}

/* The four margin kernels: operands to the work type, targets checked
 * (multi: classes in [0, C); multilabel: in [-1, C)), then one launch. */
static tl_status margin_run(const tl_margin_spec *s, bool multi, const tl_tensor *grad,
                            const tl_tensor *input, const tl_tensor *target, const tl_tensor *weight,
                            const tl_tensor *is_target, tl_tensor *out, tl_tensor *is_out)
{
  const char *name = multi ? "multi_margin_loss" : "multilabel_margin_loss";
  const char *outer = tl_device_errors_enter(name);
  tl_dtype work = tl_nn_work_dtype(input->dtype);
  work_set ws = {0};
  tl_tensor scratch = {0}, safe = {0};
  void *stream = NULL;
  const tl_tensor *x = work_in(&ws, 0, input, work, false), *w = work_in(&ws, 1, weight, work, false),
                  *g = work_in(&ws, 2, grad, work, false), *is = work_in(&ws, 3, is_target, work, false);
  tl_tensor *o = work_out(&ws, 0, out, work, false), *io = work_out(&ws, 1, is_out, work, false);
  tl_status status = x && (!weight || w) && (!grad || g) && (!is_target || is) && o && (!is_out || io)
                         ? check_indices(target, s->C, !multi, -1,
                                         multi ? BAD_MULTI_MARGIN : BAD_MULTILABEL, &safe, &target)
                         : tl_error_status();
  if (status == TL_OK && !grad && s->reduction != TL_REDUCTION_NONE)
    status = scratch_of(&scratch, s->N, input);
  if (status == TL_OK)
    status = tl_gpu_stream(tl_tensor_device(input), name, &stream);
  if (status == TL_OK) {
    tl_gpu_margin_loss a = {.N = s->N, .C = s->C, .reduction = (int)s->reduction, .p = s->p,
                            .f64 = work == TL_DTYPE_F64, .multi = multi, .margin = s->margin,
                            .x = tl_tensor_data(x), .w = data_of(w), .g = data_of(g),
                            .is_in = data_of(is), .y = tl_tensor_data(target),
                            .out = grad ? NULL : tl_tensor_data(o), .dx = grad ? tl_tensor_data(o) : NULL,
                            .is_out = data_of(io),
                            .scratch = scratch.storage ? tl_tensor_data(&scratch) : NULL};
    status = tl_gpu_launched(grad ? tl_gpu_margin_backward_launch(&a, stream) : tl_gpu_margin_launch(&a, stream),
                             name);
  }
  tl_tensor_release(&scratch);
  tl_tensor_release(&safe);
  return tl_device_errors_leave(outer, tl_tensor_device(input), work_finish(&ws, status));
}

static tl_status gpu_multi_margin(const tl_margin_spec *s, const tl_tensor *input,
                                  const tl_tensor *target, const tl_tensor *weight, tl_tensor *out)
{
  return margin_run(s, true, NULL, input, target, weight, NULL, out, NULL);
}

static tl_status gpu_multi_margin_backward(const tl_margin_spec *s, const tl_tensor *grad,
                                           const tl_tensor *input, const tl_tensor *target,
                                           const tl_tensor *weight, tl_tensor *grad_input)
{
  return margin_run(s, true, grad, input, target, weight, NULL, grad_input, NULL);
}

static tl_status gpu_multilabel_margin(const tl_margin_spec *s, const tl_tensor *input,
                                       const tl_tensor *target, tl_tensor *out, tl_tensor *is_target)
{
  return margin_run(s, false, NULL, input, target, NULL, NULL, out, is_target);
}

static tl_status gpu_multilabel_margin_backward(const tl_margin_spec *s, const tl_tensor *grad,
                                                const tl_tensor *input, const tl_tensor *target,
                                                const tl_tensor *is_target, tl_tensor *grad_input)
{
  return margin_run(s, false, grad, input, target, NULL, is_target, grad_input, NULL);
}

/* ctc: the lengths and each target's start (host arrays of the spec) as
 * one device tensor of 3 N int64, then a block per sample (ctc.cu). */
static tl_status ctc_run(const tl_ctc_spec *s, const tl_tensor *grad, const tl_tensor *log_probs,
                         const tl_tensor *targets, const tl_tensor *nll, const tl_tensor *log_alpha,
                         tl_tensor *out)
{
  const char *name = grad ? "_ctc_loss_backward" : "_ctc_loss";
  tl_dtype work = tl_nn_work_dtype(log_probs->dtype);
  tl_device dev = tl_tensor_device(log_probs);
  int64_t n3 = 3 * s->N, W = 2 * s->maxS + 1;
  work_set ws = {0};
  tl_tensor lens_h = {0}, lens = {0}, scratch = {0};
  void *stream = NULL;
  const tl_tensor *lp = work_in(&ws, 0, log_probs, work, false), *g = work_in(&ws, 1, grad, work, false),
                  *nl = work_in(&ws, 2, nll, work, false), *la = work_in(&ws, 3, log_alpha, work, false);
  /* the forward writes log_alpha (allocated in the work type by the op layer) and nll */
  tl_tensor *o = work_out(&ws, 0, out, work, false);
  tl_status status = lp && (!grad || (g && nl)) && la && o ? TL_OK : tl_error_status();
  if (status == TL_OK)
    status = tl_tensor_empty(&lens_h, TL_DTYPE_I64, 1, &n3, tl_device_cpu());
  if (status == TL_OK) {
    int64_t *h = tl_tensor_data(&lens_h);
    for (int64_t n = 0; n < s->N; n++) {
      h[n] = s->input_lengths[n];
      h[s->N + n] = s->target_lengths[n];
      h[2 * s->N + n] = s->offsets[n];
    }
    status = tl_tensor_empty(&lens, TL_DTYPE_I64, 1, &n3, dev);
  }
  if (status == TL_OK)
    status = tl_tensor_copy(&lens, &lens_h);
  if (status == TL_OK && grad)
    status = tl_tensor_empty(&scratch, work, 1, (int64_t[]){s->N * s->T * (W + s->C)}, dev);
  if (status == TL_OK)
    status = tl_gpu_stream(dev, name, &stream);
  if (status == TL_OK) {
    const int64_t *d = tl_tensor_data(&lens);
    tl_gpu_ctc a = {.T = s->T, .N = s->N, .C = s->C, .maxS = s->maxS, .blank = s->blank,
                    .zero_infinity = s->zero_infinity, .f64 = work == TL_DTYPE_F64,
                    .tg = tl_tensor_data(targets), .in_len = d, .tg_len = d + s->N,
                    .offsets = d + 2 * s->N, .lp = tl_tensor_data(lp), .g = data_of(g),
                    .nll = data_of(nl), .la = tl_tensor_data(la), .out = tl_tensor_data(o),
                    .scratch = data_of(scratch.storage ? &scratch : NULL)};
    if (!grad)
      tl_storage_bump(log_alpha->storage);
    status = tl_gpu_launched(grad ? tl_gpu_ctc_backward_launch(&a, stream) : tl_gpu_ctc_launch(&a, stream),
                             name);
  }
  tl_tensor_release(&lens_h);
  tl_tensor_release(&lens);
  tl_tensor_release(&scratch);
  return work_finish(&ws, status);
}

static tl_status gpu_ctc(const tl_ctc_spec *s, const tl_tensor *log_probs, const tl_tensor *targets,
                         tl_tensor *nll, tl_tensor *log_alpha)
{
  return ctc_run(s, NULL, log_probs, targets, NULL, log_alpha, nll);
}

static tl_status gpu_ctc_backward(const tl_ctc_spec *s, const tl_tensor *grad,
                                  const tl_tensor *log_probs, const tl_tensor *targets,
                                  const tl_tensor *nll, const tl_tensor *log_alpha,
                                  tl_tensor *grad_input)
{
  return ctc_run(s, grad, log_probs, targets, nll, log_alpha, grad_input);
}

static const tl_nn_class_loss_kernels gpu_class_set = {
    .cross_entropy = gpu_cross_entropy,
    .cross_entropy_backward = gpu_cross_entropy_backward,
    .multi_margin = gpu_multi_margin,
    .multi_margin_backward = gpu_multi_margin_backward,
    .multilabel_margin = gpu_multilabel_margin,
    .multilabel_margin_backward = gpu_multilabel_margin_backward,
    .ctc = gpu_ctc,
    .ctc_backward = gpu_ctc_backward,
};

/* ---- sampling grids ---------------------------------------------------------------------- */

static tl_status gpu_grid_run(const tl_grid_spec *s, const tl_tensor *g, const tl_tensor *x,
                              const tl_tensor *grid, tl_tensor *y, tl_tensor *dx, tl_tensor *dgrid)
{
  const char *name = g ? "grid_sampler_backward" : "grid_sampler";
  tl_dtype work = tl_nn_work_dtype(x->dtype);
  work_set ws = {0};
  void *stream = NULL;
  const tl_tensor *xw = work_in(&ws, 0, x, work, false), *gr = work_in(&ws, 1, grid, work, false),
                  *gw = work_in(&ws, 2, g, work, false);
  tl_tensor *yw = work_out(&ws, 0, y, work, false), *dxw = work_out(&ws, 1, dx, work, true),
            *dgw = work_out(&ws, 2, dgrid, work, false);
  tl_status status = xw && gr && (!g || gw) && (!y || yw) && (!dx || dxw) && (!dgrid || dgw)
                         ? tl_gpu_stream(tl_tensor_device(x), name, &stream)
                         : tl_error_status();
  /* the op layer's dx is not zeroed (the CPU's kernel zeroes it), and the
   * kernel adds into it; a work-type twin is zeroed already */
  if (status == TL_OK && dx && dxw == dx)
    status = tl_tensor_fill(dx, (tl_scalar){.kind = TL_KIND_INT, .v.i = 0});
  if (status == TL_OK) {
    struct tl_gpu_grid_args a = {.spec = s, .x = tl_tensor_data(xw), .grid = tl_tensor_data(gr),
                                 .g = data_of(gw), .y = data_of(yw), .dx = data_of(dxw),
                                 .dgrid = data_of(dgw), .f64 = work == TL_DTYPE_F64};
    status = tl_gpu_launched(g ? tl_gpu_grid_backward_launch(&a, stream) : tl_gpu_grid_sample_launch(&a, stream),
                             name);
  }
  return work_finish(&ws, status);
}

static tl_status gpu_grid_sample(const tl_grid_spec *s, const tl_tensor *x, const tl_tensor *grid,
                                 tl_tensor *y)
{
  return gpu_grid_run(s, NULL, x, grid, y, NULL, NULL);
}

static tl_status gpu_grid_sample_backward(const tl_grid_spec *s, const tl_tensor *g, const tl_tensor *x,
                                          const tl_tensor *grid, tl_tensor *dx, tl_tensor *dgrid)
{
  return gpu_grid_run(s, g, x, grid, NULL, dx, dgrid);
}

static tl_status gpu_affine(int n, const int64_t *size, bool align_corners, bool transpose,
                            const tl_tensor *in, tl_tensor *out)
{
  const char *name = transpose ? "affine_grid_generator_backward" : "affine_grid_generator";
  tl_dtype work = tl_nn_work_dtype(in->dtype);
  work_set ws = {0};
  void *stream = NULL;
  const tl_tensor *iw = work_in(&ws, 0, in, work, false);
  tl_tensor *o = work_out(&ws, 0, out, work, false);
  tl_status status = iw && o ? tl_gpu_stream(tl_tensor_device(in), name, &stream) : tl_error_status();
  if (status == TL_OK) {
    int64_t shape[3] = {n == 3 ? size[2] : 1, size[n], size[n + 1]};
    status = tl_gpu_launched(tl_gpu_affine_grid_launch(n, size[0], shape, align_corners, transpose,
                                                       tl_tensor_data(iw), tl_tensor_data(o),
                                                       work == TL_DTYPE_F64, stream),
                             name);
  }
  return work_finish(&ws, status);
}

static const tl_nn_grid_kernels gpu_grid_set = {
    .sample = gpu_grid_sample,
    .sample_backward = gpu_grid_sample_backward,
    .affine = gpu_affine,
};

/* ---- registration ------------------------------------------------------------------------ */

void tl_gpu_nn_act_loss_register(void)
{
  static const tl_op softmax_ops[] = {TL_OP_SOFTMAX, TL_OP_LOG_SOFTMAX, TL_OP_SOFTMAX_BACKWARD,
                                      TL_OP_LOG_SOFTMAX_BACKWARD};
  static const tl_op act_ops[] = {
      TL_OP_RELU, TL_OP_THRESHOLD, TL_OP_THRESHOLD_BACKWARD, TL_OP_LEAKY_RELU,
      TL_OP_LEAKY_RELU_BACKWARD, TL_OP_ELU, TL_OP_ELU_BACKWARD, TL_OP_GELU, TL_OP_GELU_BACKWARD,
      TL_OP_SILU, TL_OP_SILU_BACKWARD, TL_OP_MISH, TL_OP_MISH_BACKWARD, TL_OP_SOFTPLUS,
      TL_OP_SOFTPLUS_BACKWARD, TL_OP_SOFTSIGN, TL_OP_SOFTSIGN_BACKWARD, TL_OP_HARDTANH,
      TL_OP_HARDTANH_BACKWARD, TL_OP_HARDSIGMOID, TL_OP_HARDSIGMOID_BACKWARD, TL_OP_HARDSWISH,
      TL_OP_HARDSWISH_BACKWARD, TL_OP_HARDSHRINK, TL_OP_HARDSHRINK_BACKWARD, TL_OP_SOFTSHRINK,
      TL_OP_SOFTSHRINK_BACKWARD, TL_OP_TANHSHRINK, TL_OP_TANHSHRINK_BACKWARD, TL_OP_LOG_SIGMOID,
      TL_OP_LOG_SIGMOID_BACKWARD, TL_OP_PRELU, TL_OP_PRELU_BACKWARD, TL_OP_GLU, TL_OP_GLU_BACKWARD};
  static const tl_op embedding_ops[] = {TL_OP_EMBEDDING, TL_OP_EMBEDDING_BACKWARD,
                                        TL_OP_EMBEDDING_BAG, TL_OP_EMBEDDING_BAG_BACKWARD};
  for (size_t i = 0; i < sizeof softmax_ops / sizeof *softmax_ops; i++)
    tl_dispatch_register_set(softmax_ops[i], TL_DEVICE_CUDA, TL_DTYPES_ALL, &gpu_softmax_set);
  for (size_t i = 0; i < sizeof act_ops / sizeof *act_ops; i++)
    tl_dispatch_register_set(act_ops[i], TL_DEVICE_CUDA, TL_DTYPES_ALL, &gpu_activation_set);
  for (size_t i = 0; i < sizeof embedding_ops / sizeof *embedding_ops; i++)
    tl_dispatch_register_set(embedding_ops[i], TL_DEVICE_CUDA, TL_DTYPES_ALL, &gpu_embedding_set);
  tl_nn_loss_register_sets(TL_DEVICE_CUDA, &gpu_nll_set, &gpu_pointwise_set, &gpu_class_set);
  static const tl_op grid_ops[] = {TL_OP_GRID_SAMPLER, TL_OP_GRID_SAMPLER_BACKWARD,
                                   TL_OP_AFFINE_GRID_GENERATOR, TL_OP_AFFINE_GRID_GENERATOR_BACKWARD};
  for (size_t i = 0; i < sizeof grid_ops / sizeof *grid_ops; i++)
    tl_dispatch_register_set(grid_ops[i], TL_DEVICE_CUDA, TL_DTYPES_ALL, &gpu_grid_set);
}
#endif
