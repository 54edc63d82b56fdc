/* rnn_layer.c - the device-neutral entry points of the layer op and its
 * backward (tl_rnn.h): the sequence's steps from batch_sizes, every shape
 * checked in PyTorch's terms, then the device's kernel through tl_rnn_run. */
#include <stdlib.h>

#include "nn/rnn/tl_rnn.h"

/* The sequence of x: its steps, batch (the first step's) and rows, and each
 * step's batch size (*sizes, malloc'ed) from batch_sizes or x's shape. */
static tl_status sequence(const char *name, const tl_tensor *x, const tl_tensor *batch_sizes,
                          tl_rnn_layer_call *call, int64_t **sizes)
{
  char got[128];
  *sizes = NULL;
  if (!tl_dtype_is_float(x->dtype))
    return tl_error_set(TL_ERR_RUNTIME, "%s(): expected a floating point input, got %s", name,
                        tl_dtype_names[x->dtype]);
  int want = batch_sizes ? 2 : 3;
  if (x->ndim != want)
    return tl_error_set(TL_ERR_RUNTIME, "%s(): expected input of %d dimensions (%s), got %s",
                        name, want, batch_sizes ? "rows of a packed sequence" : "L, N, input",
                        tl_shape_str(got, sizeof got, x->ndim, x->shape));
  call->input = x->shape[want - 1];
  if (batch_sizes && (batch_sizes->dtype != TL_DTYPE_I64 || batch_sizes->ndim != 1 ||
                      tl_tensor_device(batch_sizes).type != TL_DEVICE_CPU)) {
    char where[32];
    return tl_error_set(TL_ERR_RUNTIME, "%s(): batch_sizes must be a 1-d int64 tensor on the "
                        "CPU, got %s of %d dimensions on %s", name,
                        tl_dtype_names[batch_sizes->dtype], batch_sizes->ndim,
                        tl_device_str(where, sizeof where, tl_tensor_device(batch_sizes)));
  }
  call->steps = batch_sizes ? batch_sizes->shape[0] : x->shape[0];
  if (!(*sizes = malloc((size_t)(call->steps + 1) * sizeof(int64_t))))
    return tl_error_set(TL_ERR_MEMORY, "%s(): out of memory", name);
  call->rows = 0;
  for (int64_t t = 0; t < call->steps; t++) {
    const int64_t *given = batch_sizes ? tl_tensor_data(batch_sizes) : NULL;
    int64_t b = given ? given[t * batch_sizes->strides[0]] : x->shape[1];
    if (b < 0 || (t && b > (*sizes)[t - 1]))
      return tl_error_set(TL_ERR_RUNTIME, "%s(): batch_sizes must not grow and be >= 0, got %lld "
                          "after %lld", name, (long long)b, (long long)(t ? (*sizes)[t - 1] : 0));
    (*sizes)[t] = b;
    call->rows += b;
  }
  call->batch = batch_sizes ? (call->steps ? (*sizes)[0] : 0) : x->shape[1];
  if (batch_sizes && call->rows != x->shape[0])
    return tl_error_set(TL_ERR_RUNTIME, "%s(): batch_sizes sum to %lld but the input has %lld "
                        "rows", name, (long long)call->rows, (long long)x->shape[0]);
  call->batch_sizes = *sizes;
  return TL_OK;
}

/* The mode, and H, P from the weights (w_ih (G*H, I), w_hh (G*H, P), w_hr
 * (P, H)), all checked against each other. */
static tl_status weights(const char *name, int64_t mode, const tl_tensor *w_ih,
                         const tl_tensor *w_hh, const tl_tensor *w_hr, tl_dtype dtype,
                         tl_rnn_layer_call *call)
{
  char got[128];
  if (mode < 0 || mode > TL_RNN_MODE_RELU)
    return tl_error_set(TL_ERR_VALUE, "%s(): mode must be 0 (LSTM), 1 (GRU), 2 (RNN_TANH) or 3 "
                        "(RNN_RELU), got %lld", name, (long long)mode);
  call->mode = (tl_rnn_mode)mode;
  int g = tl_rnn_gates(call->mode);
  if (w_ih->ndim != 2 || w_ih->shape[0] % g || w_ih->shape[1] != call->input)
    return tl_error_set(TL_ERR_RUNTIME, "%s(): expected weight_ih of shape [%d * hidden_size, "
                        "%lld], got %s", name, g, (long long)call->input,
                        tl_shape_str(got, sizeof got, w_ih->ndim, w_ih->shape));
  call->hidden = w_ih->shape[0] / g;
  if (w_hr && mode != TL_RNN_MODE_LSTM)
    return tl_error_set(TL_ERR_VALUE, "%s(): proj_size argument is only supported for LSTM, not "
                        "RNN or GRU", name);
  call->out = w_hr && w_hr->ndim == 2 ? w_hr->shape[0] : call->hidden;
  if (tl_rnn_check(name, "weight_ih", w_ih, dtype, g * call->hidden, call->input) != TL_OK ||
      tl_rnn_check(name, "weight_hh", w_hh, dtype, g * call->hidden, call->out) != TL_OK ||
      tl_rnn_check(name, "weight_hr", w_hr, dtype, call->out, call->hidden) != TL_OK)
    return tl_error_status();
  return TL_OK;
}

static tl_status invoke_layer(const tl_nn_rnn_kernels *set, const tl_tensor *const *in,
                              tl_tensor *const *out, void *ctx)
{
  tl_rnn_layer_call *call = ctx;
  call->x = in[0];
  call->hx = in[1];
  call->cx = in[2];
  call->w_ih = in[3];
  call->w_hh = in[4];
  call->b_ih = in[5];
  call->b_hh = in[6];
  call->w_hr = in[7];
  call->output = out[0];
  call->hy = out[1];
  call->cy = out[2];
  call->workspace = out[3];
  return set->layer(call);
}

tl_status tl_nn_rnn_layer(const tl_tensor *x, const tl_tensor *hx, const tl_tensor *cx,
                          const tl_tensor *w_ih, const tl_tensor *w_hh, const tl_tensor *b_ih,
                          const tl_tensor *b_hh, const tl_tensor *w_hr,
                          const tl_tensor *batch_sizes, int64_t mode, bool reverse,
                          tl_tensor *output, tl_tensor *hy, tl_tensor *cy, tl_tensor *workspace)
{
  const char *name = tl_op_infos[TL_OP_RNN_LAYER].name;
  tl_rnn_layer_call call = {.reverse = reverse};
  int64_t *sizes = NULL;
  tl_status status = sequence(name, x, batch_sizes, &call, &sizes);
  if (status != TL_OK || (status = weights(name, mode, w_ih, w_hh, w_hr, x->dtype, &call)) != TL_OK)
    goto fail;
  bool lstm = call.mode == TL_RNN_MODE_LSTM;
  int64_t N = call.batch, H = call.hidden, P = call.out, G = tl_rnn_gates(call.mode) * H;
  if (lstm && !cx) {
    status = tl_error_set(TL_ERR_RUNTIME, "%s(): LSTM needs the initial cell state cx", name);
    goto fail;
  }
  if ((status = tl_rnn_check(name, "hx", hx, x->dtype, N, P)) != TL_OK ||
      (status = tl_rnn_check(name, "cx", lstm ? cx : NULL, x->dtype, N, H)) != TL_OK ||
      (status = tl_rnn_check(name, "bias_ih", b_ih, x->dtype, -1, G)) != TL_OK ||
      (status = tl_rnn_check(name, "bias_hh", b_hh, x->dtype, -1, G)) != TL_OK)
    goto fail;
  int64_t W = tl_rnn_workspace_width(call.mode, H, P, w_hr != NULL);
  const tl_rnn_shape shapes[] = {
    batch_sizes ? (tl_rnn_shape){2, {call.rows, P}} : (tl_rnn_shape){3, {call.steps, N, P}},
    {2, {N, P}}, {2, {N, H}}, {2, {call.rows, W}}};
  const tl_tensor *ins[] = {x, hx, lstm ? cx : NULL, w_ih, w_hh, b_ih, b_hh, w_hr};
  tl_tensor *outs[] = {output, hy, lstm ? cy : NULL, workspace};
  status = tl_rnn_run(TL_OP_RNN_LAYER, ins, 8, shapes, outs, 4, x->dtype, invoke_layer, &call);
fail:
  free(sizes);
  return status;
}

static tl_status invoke_layer_backward(const tl_nn_rnn_kernels *set, const tl_tensor *const *in,
                                       tl_tensor *const *out, void *ctx)
{
  tl_rnn_layer_call *call = ctx;
  call->g_output = in[0];
  call->g_hy = in[1];
  call->g_cy = in[2];
  call->x = in[3];
  call->w_ih = in[4];
  call->w_hh = in[5];
  call->w_hr = in[6];
  call->saved = in[7];
  call->d_x = out[0];
  call->d_hx = out[1];
  call->d_cx = out[2];
  call->d_w_ih = out[3];
  call->d_w_hh = out[4];
  call->d_b_ih = out[5];
  call->d_b_hh = out[6];
  call->d_w_hr = out[7];
  return set->layer_backward(call);
}

tl_status tl_nn_rnn_layer_backward(const tl_tensor *g_output, const tl_tensor *g_hy,
                                   const tl_tensor *g_cy, const tl_tensor *x,
                                   const tl_tensor *w_ih, const tl_tensor *w_hh,
                                   const tl_tensor *w_hr, const tl_tensor *workspace,
                                   const tl_tensor *batch_sizes, int64_t mode, bool reverse,
                                   bool has_bias, bool input_grad, tl_tensor *d_x,
                                   tl_tensor *d_hx, tl_tensor *d_cx, tl_tensor *d_w_ih,
                                   tl_tensor *d_w_hh, tl_tensor *d_b_ih, tl_tensor *d_b_hh,
                                   tl_tensor *d_w_hr)
{
  const char *name = tl_op_infos[TL_OP_RNN_LAYER_BACKWARD].name;
  tl_rnn_layer_call call = {.reverse = reverse};
  int64_t *sizes = NULL;
  tl_status status = sequence(name, x, batch_sizes, &call, &sizes);
  if (status != TL_OK || (status = weights(name, mode, w_ih, w_hh, w_hr, x->dtype, &call)) != TL_OK)
    goto fail;
  bool lstm = call.mode == TL_RNN_MODE_LSTM;
  int64_t N = call.batch, H = call.hidden, P = call.out, R = call.rows;
  int64_t G = tl_rnn_gates(call.mode) * H;
  int64_t W = tl_rnn_workspace_width(call.mode, H, P, w_hr != NULL);
  tl_rnn_shape out_shape = batch_sizes ? (tl_rnn_shape){2, {R, P}}
                                       : (tl_rnn_shape){3, {call.steps, N, P}};
  char got[128];
  if (g_output && (g_output->ndim != out_shape.ndim || g_output->shape[0] != out_shape.d[0] ||
                   g_output->shape[1] != out_shape.d[1] ||
                   (out_shape.ndim == 3 && g_output->shape[2] != out_shape.d[2]))) {
    status = tl_error_set(TL_ERR_RUNTIME, "%s(): grad_output of shape %s does not match the "
                          "output's", name, tl_shape_str(got, sizeof got, g_output->ndim,
                                                         g_output->shape));
    goto fail;
  }
  if ((status = tl_rnn_check(name, "grad_output", g_output && g_output->ndim == 2 ? g_output : NULL,
                             x->dtype, R, P)) != TL_OK ||
      (status = tl_rnn_check(name, "grad_hy", g_hy, x->dtype, N, P)) != TL_OK ||
      (status = tl_rnn_check(name, "grad_cy", lstm ? g_cy : NULL, x->dtype, N, H)) != TL_OK ||
      (status = tl_rnn_check(name, "workspace", workspace, x->dtype, R, W)) != TL_OK)
    goto fail;
  if (g_output && g_output->dtype != x->dtype) {
    status = tl_error_set(TL_ERR_RUNTIME, "%s(): expected grad_output to have dtype %s, got %s",
                          name, tl_dtype_names[x->dtype], tl_dtype_names[g_output->dtype]);
    goto fail;
  }
  const tl_rnn_shape shapes[] = {
    batch_sizes ? (tl_rnn_shape){2, {R, call.input}}
                : (tl_rnn_shape){3, {call.steps, N, call.input}},
    {2, {N, P}}, {2, {N, H}}, {2, {G, call.input}}, {2, {G, P}}, {1, {G}}, {1, {G}},
    {2, {P, H}}};
  const tl_tensor *ins[] = {g_output, g_hy, lstm ? g_cy : NULL, x, w_ih, w_hh, w_hr, workspace};
  tl_tensor *outs[] = {input_grad ? d_x : NULL, d_hx, lstm ? d_cx : NULL, d_w_ih, d_w_hh,
                       has_bias ? d_b_ih : NULL, has_bias ? d_b_hh : NULL, w_hr ? d_w_hr : NULL};
  status = tl_rnn_run(TL_OP_RNN_LAYER_BACKWARD, ins, 8, shapes, outs, 8, x->dtype,
                      invoke_layer_backward, &call);
fail:
  free(sizes);
  return status;
}
