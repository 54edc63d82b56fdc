/* rnn_device.c - the recurrent cells and the layer loop on a device whose
 * memory host code cannot read (tl_rnn.h: tl_rnn_device_ops).  The steps
 * are rnn_layer_cpu.c's (its header comment has the algorithm and the
 * workspace legend), each element touched by the device's primitives: GEMMs,
 * the fused cell rows, row copies, an add and column sums.  Unlike the CPU's
 * loop, the biases are added by the cell rows of every step (hg given)
 * rather than folded into the input projection, which saves a bias pass.
 * The host holds only shapes and the batch sizes; the scratch is tensors on
 * the device, released on every path. */
#include <stdlib.h>

#include "nn/rnn/tl_rnn.h"

/* What a layer call shares: its sizes, its device's primitives and scratch. */
typedef struct {
  const tl_rnn_device_ops *ops;
  const tl_rnn_layer_call *c;
  tl_device dev;
  tl_rnn_sizes d;
  tl_tensor tmp[5]; /* scratch tensors */
} dev_layer;

/* element `elements` of base (NULL stays NULL: an empty tensor's data,
 * which no primitive reads) */
static char *at(const dev_layer *l, const void *base, int64_t elements)
{
  return base ? (char *)base + (size_t)elements * l->d.es : NULL;
}

static void *data(const tl_tensor *t) { return t ? tl_tensor_data(t) : NULL; }

/* n rows of `cols` elements, ld_* elements apart (src NULL: zeros) */
static tl_status copy(const dev_layer *l, void *dst, int64_t ld_dst, const void *src,
                      int64_t ld_src, int64_t n, int64_t cols)
{
  int64_t es = (int64_t)l->d.es;
  return l->ops->copy(l->dev, dst, ld_dst * es, src, ld_src * es, n, cols * es);
}

/* C (m, n) = op(A) op(B) + beta C, row-major, one product */
static tl_status gemm(const dev_layer *l, bool ta, bool tb, int64_t m, int64_t n, int64_t k,
                      const void *a, int64_t lda, const void *b, int64_t ldb, double beta,
                      void *c, int64_t ldc)
{
  return l->ops->gemm(l->dev, l->d.f64, ta, tb, m, n, k, 1.0, a, lda, 0, b, ldb, 0, beta, c, ldc,
                      0, 1);
}

/* *p = scratch k of (rows, cols) elements on the layer's device (NULL when
 * empty, which no primitive then reads). */
static tl_status scratch(dev_layer *l, int k, int64_t rows, int64_t cols, void **p)
{
  int64_t shape[2] = {rows, cols};
  tl_status s = tl_tensor_empty(&l->tmp[k], l->d.f64 ? TL_DTYPE_F64 : TL_DTYPE_F32, 2, shape, l->dev);
  *p = s == TL_OK ? tl_tensor_data(&l->tmp[k]) : NULL;
  return s;
}

static tl_status setup(dev_layer *l, const tl_rnn_device_ops *ops, const tl_rnn_layer_call *c)
{
  *l = (dev_layer){.ops = ops, .c = c, .dev = tl_tensor_device(c->x)};
  return tl_rnn_sizes_init(&l->d, c);
}

static tl_status finish(dev_layer *l, tl_status status)
{
  for (int k = 0; k < 5; k++)
    tl_tensor_release(&l->tmp[k]);
  free(l->d.off);
  return status;
}

/* ---- forward ------------------------------------------------------------------------
 * Step t's n rows, from gi (R, G) = x W_ih^T and the states h (N, P), c (N, H)
 * (updated in place); hg: (N, G) scratch. */
static tl_status step_forward(const dev_layer *l, int64_t t, const void *gi, void *hg, void *h,
                              void *c)
{
  const tl_rnn_layer_call *k = l->c;
  int64_t n = k->batch_sizes[t], H = l->d.H, P = l->d.P, G = l->d.G, W = l->d.W;
  char *ws = at(l, data(k->workspace), l->d.off[t] * W);
  char *out = at(l, data(k->output), l->d.off[t] * P);
  tl_rnn_rows rows = {.n = n, .h = H, .f64 = l->d.f64,
                      .in = {at(l, gi, l->d.off[t] * G), hg, NULL, data(k->b_ih), data(k->b_hh)},
                      .ld_in = {G, G}};
  tl_status s = gemm(l, false, true, n, G, P, h, P, data(k->w_hh), P, 0.0, hg, G);
  switch (k->mode) {
  case TL_RNN_MODE_LSTM: { /* ws: i f g o | c_prev | c | h_prev | o tanh(c) */
    char *hcell = k->w_hr ? ws + (6 * H + P) * l->d.es : out;
    if (s == TL_OK)
      s = copy(l, ws + 4 * H * l->d.es, W, c, H, n, H);
    if (s == TL_OK)
      s = copy(l, ws + l->d.hprev * l->d.es, W, h, P, n, P);
    rows.kind = TL_RNN_LSTM;
    rows.in[2] = ws + 4 * H * l->d.es;
    rows.ld_in[2] = W;
    rows.out[0] = hcell;
    rows.ld_out[0] = k->w_hr ? W : P;
    rows.out[1] = ws + 5 * H * l->d.es;
    rows.out[2] = ws;
    rows.ld_out[1] = rows.ld_out[2] = W;
    if (s == TL_OK)
      s = l->ops->rows(l->dev, &rows);
    if (s == TL_OK && k->w_hr)
      s = gemm(l, false, true, n, P, H, hcell, W, data(k->w_hr), H, 0.0, out, P);
    if (s == TL_OK)
      s = copy(l, c, H, ws + 5 * H * l->d.es, W, n, H);
    break;
  }
  case TL_RNN_MODE_GRU: /* the cell keeps h_prev in ws itself */
    rows.kind = TL_RNN_GRU;
    rows.in[2] = h;
    rows.ld_in[2] = H;
    rows.out[0] = out;
    rows.out[1] = ws;
    rows.ld_out[0] = H;
    rows.ld_out[1] = W;
    if (s == TL_OK)
      s = l->ops->rows(l->dev, &rows);
    break;
  default: /* ws: h | h_prev */
    rows.kind = k->mode == TL_RNN_MODE_RELU ? TL_RNN_RELU : TL_RNN_TANH;
    rows.out[0] = out;
    rows.ld_out[0] = H;
    if (s == TL_OK)
      s = copy(l, ws + l->d.hprev * l->d.es, W, h, H, n, H);
    if (s == TL_OK)
      s = l->ops->rows(l->dev, &rows);
    if (s == TL_OK)
      s = copy(l, ws, W, out, H, n, H);
    break;
  }
  return s == TL_OK ? copy(l, h, P, out, P, n, P) : s;
}

tl_status tl_rnn_device_layer(const tl_rnn_device_ops *ops, const tl_rnn_layer_call *k)
{
  dev_layer l;
  tl_status s = setup(&l, ops, k);
  if (s != TL_OK)
    return finish(&l, s);
  void *gi = NULL, *hg = NULL;
  if ((s = scratch(&l, 0, k->rows, l.d.G, &gi)) != TL_OK || (s = scratch(&l, 1, l.d.N, l.d.G, &hg)) != TL_OK)
    return finish(&l, s);
  /* the states live in hy, cy from the start */
  void *h = data(k->hy), *c = data(k->cy);
  s = copy(&l, h, l.d.P, data(k->hx), l.d.P, l.d.N, l.d.P);
  if (s == TL_OK && c)
    s = copy(&l, c, l.d.H, data(k->cx), l.d.H, l.d.N, l.d.H);
  if (s == TL_OK)
    s = gemm(&l, false, true, k->rows, l.d.G, k->input, data(k->x), k->input, data(k->w_ih),
             k->input, 0.0, gi, l.d.G);
  for (int64_t i = 0; i < k->steps && s == TL_OK; i++) {
    int64_t t = k->reverse ? k->steps - 1 - i : i;
    if (k->batch_sizes[t] > 0)
      s = step_forward(&l, t, gi, hg, h, c);
  }
  return finish(&l, s);
}

/* ---- backward -----------------------------------------------------------------------
 * Step t's n rows: dh (N, P), dc (N, H) hold the gradients of the step's new
 * states; on return those of the states it started from.  The
 * pre-activation gradients go to dgi, dgh (R, G; the same but for GRU),
 * h's total gradient to dhy (R, P) with a projection; tmp, tmp2 (N, H). */
static tl_status step_backward(const dev_layer *l, int64_t t, void *dgi, void *dgh, void *dhy,
                               void *dh, void *dc, void *tmp, void *tmp2)
{
  const tl_rnn_layer_call *k = l->c;
  int64_t n = k->batch_sizes[t], H = l->d.H, P = l->d.P, G = l->d.G, W = l->d.W;
  const char *ws = at(l, data(k->saved), l->d.off[t] * W);
  char *gi = at(l, dgi, l->d.off[t] * G), *gh = at(l, dgh, l->d.off[t] * G);
  tl_status s = k->g_output ? l->ops->add(l->dev, l->d.f64, dh,
                                          at(l, data(k->g_output), l->d.off[t] * P), n * P)
                            : TL_OK;
  tl_rnn_rows rows = {.n = n, .h = H, .f64 = l->d.f64, .in = {dh}, .ld_in = {P}, .out = {gi},
                      .ld_out = {G}};
  if (s != TL_OK)
    return s;
  switch (k->mode) {
  case TL_RNN_MODE_LSTM:
    if (k->w_hr) { /* h = hcell W_hr^T: hcell's gradient dh W_hr */
      s = copy(l, at(l, dhy, l->d.off[t] * P), P, dh, P, n, P);
      if (s == TL_OK)
        s = gemm(l, false, false, n, H, P, dh, P, data(k->w_hr), H, 0.0, tmp, H);
      rows.in[0] = tmp;
      rows.ld_in[0] = H;
    }
    rows.kind = TL_RNN_LSTM_BACKWARD;
    rows.in[1] = dc;
    rows.in[2] = ws + 4 * H * l->d.es;
    rows.in[3] = ws + 5 * H * l->d.es;
    rows.in[4] = ws;
    rows.ld_in[1] = H;
    rows.ld_in[2] = rows.ld_in[3] = rows.ld_in[4] = W;
    rows.out[1] = tmp2;
    rows.ld_out[1] = H;
    if (s == TL_OK)
      s = l->ops->rows(l->dev, &rows);
    if (s == TL_OK)
      s = copy(l, dc, H, tmp2, H, n, H);
    return s == TL_OK ? gemm(l, false, false, n, P, G, gi, G, data(k->w_hh), P, 0.0, dh, P) : s;
  case TL_RNN_MODE_GRU: /* h_prev's gradient: z dh directly, plus through W_hh */
    rows.kind = TL_RNN_GRU_BACKWARD;
    rows.in[1] = ws;
    rows.ld_in[1] = W;
    rows.out[1] = gh;
    rows.out[2] = tmp;
    rows.ld_out[1] = G;
    rows.ld_out[2] = H;
    s = l->ops->rows(l->dev, &rows);
    if (s == TL_OK)
      s = copy(l, dh, H, tmp, H, n, H);
    return s == TL_OK ? gemm(l, false, false, n, H, G, gh, G, data(k->w_hh), H, 1.0, dh, H) : s;
  default:
    rows.kind = k->mode == TL_RNN_MODE_RELU ? TL_RNN_RELU_BACKWARD : TL_RNN_TANH_BACKWARD;
    rows.in[1] = ws;
    rows.ld_in[1] = W;
    s = l->ops->rows(l->dev, &rows);
    return s == TL_OK ? gemm(l, false, false, n, H, G, gi, G, data(k->w_hh), H, 0.0, dh, H) : s;
  }
}

tl_status tl_rnn_device_layer_backward(const tl_rnn_device_ops *ops, const tl_rnn_layer_call *k)
{
  dev_layer l;
  tl_status s = setup(&l, ops, k);
  if (s != TL_OK)
    return finish(&l, s);
  int64_t R = k->rows, In = k->input, H = l.d.H, P = l.d.P, G = l.d.G, N = l.d.N;
  bool gru = k->mode == TL_RNN_MODE_GRU;
  void *dgi = NULL, *dgh = NULL, *dhy = NULL, *tmp = NULL, *tmp2 = NULL;
  if ((s = scratch(&l, 0, R, G, &dgi)) != TL_OK ||
      (gru && (s = scratch(&l, 1, R, G, &dgh)) != TL_OK) ||
      (k->w_hr && (s = scratch(&l, 2, R, P, &dhy)) != TL_OK) ||
      (s = scratch(&l, 3, N, H, &tmp)) != TL_OK || (s = scratch(&l, 4, N, H, &tmp2)) != TL_OK)
    return finish(&l, s);
  if (!gru)
    dgh = dgi;
  /* the running gradients live in d_hx, d_cx; absent ones start at zero */
  void *dh = data(k->d_hx), *dc = data(k->d_cx);
  s = copy(&l, dh, P, data(k->g_hy), P, N, P);
  if (s == TL_OK && dc)
    s = copy(&l, dc, H, data(k->g_cy), H, N, H);
  for (int64_t i = 0; i < k->steps && s == TL_OK; i++) {
    int64_t t = k->reverse ? i : k->steps - 1 - i;
    if (k->batch_sizes[t] > 0)
      s = step_backward(&l, t, dgi, dgh, dhy, dh, dc, tmp, tmp2);
  }
  const char *ws = data(k->saved);
  if (s == TL_OK && k->d_x)
    s = gemm(&l, false, false, R, In, G, dgi, G, data(k->w_ih), In, 0.0, data(k->d_x), In);
  if (s == TL_OK)
    s = gemm(&l, true, false, G, In, R, dgi, G, data(k->x), In, 0.0, data(k->d_w_ih), In);
  if (s == TL_OK)
    s = gemm(&l, true, false, G, P, R, dgh, G, at(&l, ws, l.d.hprev), l.d.W, 0.0, data(k->d_w_hh), P);
  if (s == TL_OK && k->d_w_hr)
    s = gemm(&l, true, false, P, H, R, dhy, P, at(&l, ws, 6 * H + P), l.d.W, 0.0, data(k->d_w_hr),
             H);
  if (s == TL_OK && k->d_b_ih)
    s = ops->colsum(l.dev, l.d.f64, dgi, R, G, G, data(k->d_b_ih));
  /* all but GRU: both biases have the same gradient, summed once */
  if (s == TL_OK && k->d_b_hh && k->d_b_ih && !gru)
    s = copy(&l, data(k->d_b_hh), G, data(k->d_b_ih), G, 1, G);
  else if (s == TL_OK && k->d_b_hh)
    s = ops->colsum(l.dev, l.d.f64, dgh, R, G, G, data(k->d_b_hh));
  return finish(&l, s);
}

/* ---- the cell ------------------------------------------------------------------------ */

/* One cell call (tl_rnn_call): its rows over the whole batch, then the bias
 * gradients as column sums.  An absent gradient of LSTM's backward is a
 * zeroed (n, h) tensor: the rows primitive reads every operand it is given. */
tl_status tl_rnn_device_cell(const tl_rnn_device_ops *ops, const tl_rnn_call *call)
{
  tl_rnn_rows rows = {.kind = call->kind, .n = call->n, .h = call->h};
  tl_tensor zeros = {0};
  tl_device dev = {0};
  tl_status s = TL_OK;
  for (int k = 0; k < 5; k++) {
    rows.in[k] = data(call->in[k]);
    rows.ld_in[k] = tl_rnn_in_width[call->kind][k] * call->h;
    rows.out[k] = data(call->out[k]);
    rows.ld_out[k] = tl_rnn_out_width[call->kind][k] * call->h;
    if (call->out[k]) {
      rows.f64 = call->out[k]->dtype == TL_DTYPE_F64;
      dev = tl_tensor_device(call->out[k]);
    }
  }
  if (call->kind == TL_RNN_LSTM_BACKWARD && (!call->in[0] || !call->in[1])) {
    int64_t shape[2] = {call->n, call->h};
    s = tl_tensor_zeros(&zeros, rows.f64 ? TL_DTYPE_F64 : TL_DTYPE_F32, 2, shape, dev);
    for (int k = 0; k < 2 && s == TL_OK; k++)
      if (!rows.in[k])
        rows.in[k] = tl_tensor_data(&zeros);
  }
  if (s == TL_OK && call->n > 0 && call->h > 0)
    s = ops->rows(dev, &rows);
  /* bias gradients: LSTM's of its gates (out 0 -> 2), GRU's of both (0 -> 3, 1 -> 4) */
  int64_t g = 3 * call->h;
  if (s == TL_OK && call->kind == TL_RNN_LSTM_BACKWARD && call->out[2])
    s = ops->colsum(dev, rows.f64, rows.out[0], call->n, 4 * call->h, 4 * call->h, rows.out[2]);
  if (s == TL_OK && call->kind == TL_RNN_GRU_BACKWARD && call->out[3])
    s = ops->colsum(dev, rows.f64, rows.out[0], call->n, g, g, rows.out[3]);
  if (s == TL_OK && call->kind == TL_RNN_GRU_BACKWARD && call->out[4])
    s = ops->colsum(dev, rows.f64, rows.out[1], call->n, g, g, rows.out[4]);
  tl_tensor_release(&zeros);
  return s;
}
