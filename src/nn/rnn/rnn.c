/* rnn.c - the device-neutral entry points of the fused recurrent cells
 * (tl_rnn.h): shapes and dtypes checked in PyTorch's terms, operands brought
 * to the work dtype, outputs allocated on the inputs' device; and the CPU
 * set's rows in the kernel table. */
#include <stdlib.h>

#include "nn/rnn/tl_rnn.h"
#include "nn/tl_nn.h"
#include "nn/tl_nn_work.h"

tl_status tl_rnn_sizes_init(tl_rnn_sizes *d, const tl_rnn_layer_call *c)
{
  *d = (tl_rnn_sizes){.f64 = c->w_hh->dtype == TL_DTYPE_F64, .H = c->hidden, .P = c->out,
                      .G = tl_rnn_gates(c->mode) * c->hidden, .N = c->batch};
  d->es = d->f64 ? sizeof(double) : sizeof(float);
  d->W = tl_rnn_workspace_width(c->mode, d->H, d->P, c->w_hr != NULL);
  d->hprev = c->mode == TL_RNN_MODE_LSTM ? 6 * d->H : c->mode == TL_RNN_MODE_GRU ? 3 * d->H : d->H;
  if (!(d->off = malloc((size_t)(c->steps + 1) * sizeof(int64_t))))
    return tl_error_set(TL_ERR_MEMORY, "_rnn_layer: out of memory");
  d->off[0] = 0;
  for (int64_t t = 0; t < c->steps; t++)
    d->off[t + 1] = d->off[t] + c->batch_sizes[t];
  return TL_OK;
}

tl_status tl_rnn_check(const char *name, const char *what, const tl_tensor *t, tl_dtype dtype,
                       int64_t rows, int64_t cols)
{
  char got[128];
  if (!t)
    return TL_OK;
  if (!tl_dtype_is_float(t->dtype))
    return tl_error_set(TL_ERR_RUNTIME, "%s(): expected a floating point %s, got %s", name, what,
                        tl_dtype_names[t->dtype]);
  if (t->dtype != dtype)
    return tl_error_set(TL_ERR_RUNTIME, "%s(): expected %s to have dtype %s, got %s", name, what,
                        tl_dtype_names[dtype], tl_dtype_names[t->dtype]);
  bool ok = rows < 0 ? t->ndim == 1 && t->shape[0] == cols
                     : t->ndim == 2 && t->shape[0] == rows && t->shape[1] == cols;
  if (ok)
    return TL_OK;
  tl_shape_str(got, sizeof got, t->ndim, t->shape);
  if (rows < 0)
    return tl_error_set(TL_ERR_RUNTIME, "%s(): expected %s of shape [%lld], got %s", name, what,
                        (long long)cols, got);
  return tl_error_set(TL_ERR_RUNTIME, "%s(): expected %s of shape [%lld, %lld], got %s", name,
                      what, (long long)rows, (long long)cols, got);
}

/* The gate inputs' rows and hidden size: (N, G*H) each, the same shape. */
static tl_status gate_shape(const char *name, const tl_tensor *ig, const tl_tensor *hg, int gates,
                            int64_t *n, int64_t *h)
{
  char a[128], b[128];
  if (ig->ndim != 2 || ig->shape[1] % gates)
    return tl_error_set(TL_ERR_RUNTIME, "%s(): expected input_gates of shape [N, %d * H], got %s",
                        name, gates, tl_shape_str(a, sizeof a, ig->ndim, ig->shape));
  if (hg->ndim != 2 || hg->shape[0] != ig->shape[0] || hg->shape[1] != ig->shape[1])
    return tl_error_set(TL_ERR_RUNTIME, "%s(): hidden_gates of shape %s does not match "
                        "input_gates of shape %s", name,
                        tl_shape_str(a, sizeof a, hg->ndim, hg->shape),
                        tl_shape_str(b, sizeof b, ig->ndim, ig->shape));
  *n = ig->shape[0];
  *h = ig->shape[1] / gates;
  return TL_OK;
}

tl_status tl_rnn_run(tl_op op, const tl_tensor *const *ins, int nin, const tl_rnn_shape *shapes,
                     tl_tensor *const *outs, int nout, tl_dtype dtype, tl_rnn_invoke invoke,
                     void *ctx)
{
  tl_dtype work = tl_nn_work_dtype(dtype);
  tl_tensor in[TL_RNN_MAX_IO] = {{0}};
  const tl_tensor *work_in[TL_RNN_MAX_IO] = {0};
  tl_status status = TL_OK;
  const tl_nn_rnn_kernels *set = tl_dispatch_kernel(op, dtype, nin, ins);
  if (!set)
    return tl_error_status();
  tl_device device = {0};
  for (int k = 0; k < nin; k++)
    if (ins[k]) {
      device = tl_tensor_device(ins[k]);
      break;
    }
  for (int k = 0; k < nin && status == TL_OK; k++) {
    status = tl_nn_work_in(ins[k], work, &in[k]);
    work_in[k] = ins[k] ? &in[k] : NULL;
  }
  for (int k = 0; k < nout && status == TL_OK; k++)
    if (outs[k])
      status = tl_tensor_empty(outs[k], work, shapes[k].ndim, shapes[k].d, device);
  if (status == TL_OK)
    status = invoke(set, work_in, outs, ctx);
  for (int k = 0; k < nout && status == TL_OK; k++)
    if (outs[k])
      status = tl_nn_work_out(outs[k], dtype);
  for (int k = 0; k < nin; k++)
    tl_tensor_release(&in[k]);
  for (int k = 0; status != TL_OK && k < nout; k++)
    if (outs[k] && outs[k]->storage)
      tl_tensor_release(outs[k]);
  return status;
}

/* A cell's kernel call: the work inputs and the outputs in call's slots. */
static tl_status invoke_cell(const tl_nn_rnn_kernels *set, const tl_tensor *const *in,
                             tl_tensor *const *out, void *ctx)
{
  tl_rnn_call *call = ctx;
  for (int k = 0; k < 5; k++) {
    call->in[k] = in[k];
    call->out[k] = out[k];
  }
  return set->cell(call);
}

static tl_status run(tl_op op, tl_rnn_call *call, const tl_tensor *const *ins, int nin,
                     const tl_rnn_shape *shapes, tl_tensor *const *outs, int nout, tl_dtype dtype)
{
  tl_tensor *out5[5] = {0};
  for (int k = 0; k < nout; k++)
    out5[k] = outs[k];
  return tl_rnn_run(op, ins, nin, shapes, out5, 5, dtype, invoke_cell, call);
}

tl_status tl_nn_lstm_cell(const tl_tensor *ig, const tl_tensor *hg, const tl_tensor *cx,
                          const tl_tensor *bi, const tl_tensor *bh, tl_tensor *hy, tl_tensor *cy,
                          tl_tensor *workspace)
{
  const char *name = tl_op_infos[TL_OP_FUSED_LSTM_CELL].name;
  int64_t n = 0, h = 0;
  if (gate_shape(name, ig, hg, 4, &n, &h) != TL_OK ||
      tl_rnn_check(name, "input_gates", ig, ig->dtype, n, 4 * h) != TL_OK ||
      tl_rnn_check(name, "hidden_gates", hg, ig->dtype, n, 4 * h) != TL_OK ||
      tl_rnn_check(name, "cx", cx, ig->dtype, n, h) != TL_OK ||
      tl_rnn_check(name, "input_bias", bi, ig->dtype, -1, 4 * h) != TL_OK ||
      tl_rnn_check(name, "hidden_bias", bh, ig->dtype, -1, 4 * h) != TL_OK)
    return tl_error_status();
  tl_rnn_call call = {.kind = TL_RNN_LSTM, .n = n, .h = h};
  const tl_tensor *ins[] = {ig, hg, cx, bi, bh};
  const tl_rnn_shape shapes[] = {{2, {n, h}}, {2, {n, h}}, {2, {n, 4 * h}}};
  tl_tensor *outs[] = {hy, cy, workspace};
  return run(TL_OP_FUSED_LSTM_CELL, &call, ins, 5, shapes, outs, 3, ig->dtype);
}

tl_status tl_nn_lstm_cell_backward(const tl_tensor *ghy, const tl_tensor *gcy, const tl_tensor *cx,
                                   const tl_tensor *cy, const tl_tensor *workspace, bool has_bias,
                                   tl_tensor *ggates, tl_tensor *gcx, tl_tensor *gbias)
{
  const char *name = tl_op_infos[TL_OP_FUSED_LSTM_CELL_BACKWARD].name;
  tl_dtype dtype = cx->dtype;
  int64_t n = cx->ndim == 2 ? cx->shape[0] : 0, h = cx->ndim == 2 ? cx->shape[1] : 0;
  if (tl_rnn_check(name, "cx", cx, dtype, n, h) != TL_OK ||
      tl_rnn_check(name, "cy", cy, dtype, n, h) != TL_OK ||
      tl_rnn_check(name, "workspace", workspace, dtype, n, 4 * h) != TL_OK ||
      tl_rnn_check(name, "grad_hy", ghy, dtype, n, h) != TL_OK ||
      tl_rnn_check(name, "grad_cy", gcy, dtype, n, h) != TL_OK)
    return tl_error_status();
  tl_rnn_call call = {.kind = TL_RNN_LSTM_BACKWARD, .n = n, .h = h};
  const tl_tensor *ins[] = {ghy, gcy, cx, cy, workspace};
  const tl_rnn_shape shapes[] = {{2, {n, 4 * h}}, {2, {n, h}}, {1, {4 * h}}};
  tl_tensor *outs[] = {ggates, gcx, has_bias ? gbias : NULL};
  return run(TL_OP_FUSED_LSTM_CELL_BACKWARD, &call, ins, 5, shapes, outs, 3, dtype);
}

tl_status tl_nn_gru_cell(const tl_tensor *ig, const tl_tensor *hg, const tl_tensor *hx,
                         const tl_tensor *bi, const tl_tensor *bh, tl_tensor *hy,
                         tl_tensor *workspace)
{
  const char *name = tl_op_infos[TL_OP_FUSED_GRU_CELL].name;
  int64_t n = 0, h = 0;
  if (gate_shape(name, ig, hg, 3, &n, &h) != TL_OK ||
      tl_rnn_check(name, "input_gates", ig, ig->dtype, n, 3 * h) != TL_OK ||
      tl_rnn_check(name, "hidden_gates", hg, ig->dtype, n, 3 * h) != TL_OK ||
      tl_rnn_check(name, "hx", hx, ig->dtype, n, h) != TL_OK ||
      tl_rnn_check(name, "input_bias", bi, ig->dtype, -1, 3 * h) != TL_OK ||
      tl_rnn_check(name, "hidden_bias", bh, ig->dtype, -1, 3 * h) != TL_OK)
    return tl_error_status();
  tl_rnn_call call = {.kind = TL_RNN_GRU, .n = n, .h = h};
  const tl_tensor *ins[] = {ig, hg, hx, bi, bh};
  const tl_rnn_shape shapes[] = {{2, {n, h}}, {2, {n, 5 * h}}};
  tl_tensor *outs[] = {hy, workspace};
  return run(TL_OP_FUSED_GRU_CELL, &call, ins, 5, shapes, outs, 2, ig->dtype);
}

tl_status tl_nn_gru_cell_backward(const tl_tensor *ghy, const tl_tensor *workspace, bool has_bias,
                                  tl_tensor *gig, tl_tensor *ghg, tl_tensor *ghx, tl_tensor *gbi,
                                  tl_tensor *gbh)
{
  const char *name = tl_op_infos[TL_OP_FUSED_GRU_CELL_BACKWARD].name;
  tl_dtype dtype = ghy->dtype;
  int64_t n = ghy->ndim == 2 ? ghy->shape[0] : 0, h = ghy->ndim == 2 ? ghy->shape[1] : 0;
  if (tl_rnn_check(name, "grad_hy", ghy, dtype, n, h) != TL_OK ||
      tl_rnn_check(name, "workspace", workspace, dtype, n, 5 * h) != TL_OK)
    return tl_error_status();
  tl_rnn_call call = {.kind = TL_RNN_GRU_BACKWARD, .n = n, .h = h};
  const tl_tensor *ins[] = {ghy, workspace};
  const tl_rnn_shape shapes[] = {{2, {n, 3 * h}}, {2, {n, 3 * h}}, {2, {n, h}}, {1, {3 * h}},
                                 {1, {3 * h}}};
  tl_tensor *outs[] = {gig, ghg, ghx, has_bias ? gbi : NULL, has_bias ? gbh : NULL};
  return run(TL_OP_FUSED_GRU_CELL_BACKWARD, &call, ins, 2, shapes, outs, 5, dtype);
}

tl_status tl_nn_rnn_cell(const tl_tensor *ig, const tl_tensor *hg, const tl_tensor *bi,
                         const tl_tensor *bh, bool relu, tl_tensor *hy)
{
  const char *name = tl_op_infos[TL_OP_FUSED_RNN_CELL].name;
  int64_t n = 0, h = 0;
  if (gate_shape(name, ig, hg, 1, &n, &h) != TL_OK ||
      tl_rnn_check(name, "input_gates", ig, ig->dtype, n, h) != TL_OK ||
      tl_rnn_check(name, "hidden_gates", hg, ig->dtype, n, h) != TL_OK ||
      tl_rnn_check(name, "input_bias", bi, ig->dtype, -1, h) != TL_OK ||
      tl_rnn_check(name, "hidden_bias", bh, ig->dtype, -1, h) != TL_OK)
    return tl_error_status();
  tl_rnn_call call = {.kind = relu ? TL_RNN_RELU : TL_RNN_TANH, .n = n, .h = h};
  const tl_tensor *ins[] = {ig, hg, NULL, bi, bh};
  const tl_rnn_shape shapes[] = {{2, {n, h}}};
  tl_tensor *outs[] = {hy};
  return run(TL_OP_FUSED_RNN_CELL, &call, ins, 5, shapes, outs, 1, ig->dtype);
}

static const tl_nn_rnn_kernels cpu_rnn = {.cell = tl_cpu_rnn_cell,
                                          .layer = tl_cpu_rnn_layer,
                                          .layer_backward = tl_cpu_rnn_layer_backward};

void tl_nn_rnn_register_set(tl_device_type device, const tl_nn_rnn_kernels *set)
{
  static const tl_op ops[] = {TL_OP_FUSED_LSTM_CELL, TL_OP_FUSED_LSTM_CELL_BACKWARD,
                              TL_OP_FUSED_GRU_CELL, TL_OP_FUSED_GRU_CELL_BACKWARD,
                              TL_OP_FUSED_RNN_CELL, TL_OP_RNN_LAYER, TL_OP_RNN_LAYER_BACKWARD};
  for (size_t i = 0; i < sizeof ops / sizeof *ops; i++)
    tl_dispatch_register_set(ops[i], device, TL_DTYPES_ALL, set);
}

void tl_nn_rnn_register(void) { tl_nn_rnn_register_set(TL_DEVICE_CPU, &cpu_rnn); }
