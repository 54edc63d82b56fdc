/* nn_meta.c - the meta device's kernels for src/nn's families: each does
 * nothing.  Every family's op layer checks its arguments and allocates its
 * outputs on the input's device before calling the device's set (conv.c,
 * pool.c, norm.c, softmax.c, activation.c, embedding.c, loss.c,
 * cross_entropy.c, grid.c, dropout.c), so these give the CPU's shapes, dtypes and
 * layouts (the flags below are the CPU sets'); embedding_bag's op layer
 * only allocates its bags there (embedding.c).  Not served, so that it
 * raises the kernel table's NotImplementedError naming the meta device, as
 * PyTorch has no meta kernel for it either: the CTC loss.  The
 * recurrent and attention families run their device-neutral drivers
 * (rnn_device.c, attention_device.c), which allocate on the device and
 * touch elements only through primitives: here primitives that do nothing,
 * over the meta device's NULL pointers, which nothing dereferences. */
#include "ndcore/dispatch/tl_dispatch.h"
#include "nn/tl_nn.h"
#include "nn/tl_nn_device.h"
#include "nn/tl_nn_work.h"

static tl_status conv(const tl_tensor *big, const tl_tensor *w, const tl_tensor *b,
                      const tl_nn_conv_geom *g, tl_tensor *small)
{
  (void)big, (void)w, (void)b, (void)g, (void)small;
  return TL_OK;
}
static tl_status conv_weight(const tl_tensor *small, const tl_tensor *big,
                             const tl_nn_conv_geom *g, tl_tensor *dw)
{
  (void)small, (void)big, (void)g, (void)dw;
  return TL_OK;
}
static tl_status cols(const tl_tensor *in, const tl_nn_conv_geom *g, tl_tensor *out)
{
  (void)in, (void)g, (void)out;
  return TL_OK;
}

static tl_status window_max(const tl_tensor *in, int n, const tl_nn_taps *taps, tl_tensor *out,
                            tl_tensor *indices)
{
  (void)in, (void)n, (void)taps, (void)out, (void)indices;
  return TL_OK;
}
static tl_status weighted(const tl_tensor *in, int n, const tl_nn_taps *taps, bool transpose,
                          tl_tensor *out)
{
  (void)in, (void)n, (void)taps, (void)transpose, (void)out;
  return TL_OK;
}
static tl_status pool_scatter(const tl_tensor *src, const tl_tensor *indices, int n,
                              bool accumulate, tl_tensor *out)
{
  (void)src, (void)indices, (void)n, (void)accumulate, (void)out;
  return TL_OK;
}

static tl_status norm_forward(const tl_norm_spec *s, const tl_tensor *x, const tl_tensor *w,
                              const tl_tensor *b, tl_tensor *rm, tl_tensor *rv, tl_tensor *y,
                              tl_tensor *mean, tl_tensor *rstd)
{
  (void)s, (void)x, (void)w, (void)b, (void)rm, (void)rv, (void)y, (void)mean, (void)rstd;
  return TL_OK;
}
static tl_status norm_backward(const tl_norm_spec *s, const tl_tensor *g, const tl_tensor *x,
                               const tl_tensor *mean, const tl_tensor *rstd, const tl_tensor *w,
                               tl_tensor *dx, tl_tensor *dw, tl_tensor *db)
{
  (void)s, (void)g, (void)x, (void)mean, (void)rstd, (void)w, (void)dx, (void)dw, (void)db;
  return TL_OK;
}
static tl_status lrn(const tl_lrn_spec *s, const tl_tensor *g, const tl_tensor *x, tl_tensor *out)
{
  (void)s, (void)g, (void)x, (void)out;
  return TL_OK;
}

static tl_status softmax(const tl_tensor *in, int dim, bool log, tl_tensor *out)
{
  (void)in, (void)dim, (void)log, (void)out;
  return TL_OK;
}
static tl_status softmax_backward(const tl_tensor *g, const tl_tensor *y, int dim, bool log,
                                  tl_tensor *dx)
{
  (void)g, (void)y, (void)dim, (void)log, (void)dx;
  return TL_OK;
}

static tl_status act(tl_act_kind kind, const tl_act_params *p, const tl_tensor *x,
                     const tl_tensor *w, tl_tensor *y)
{
  (void)kind, (void)p, (void)x, (void)w, (void)y;
  return TL_OK;
}
static tl_status act_backward(tl_act_kind kind, const tl_act_params *p, const tl_tensor *g,
                              const tl_tensor *x, const tl_tensor *w, tl_tensor *dx, tl_tensor *dw)
{
  (void)kind, (void)p, (void)g, (void)x, (void)w, (void)dx, (void)dw;
  return TL_OK;
}

static tl_status emb_forward(const tl_tensor *weight, const tl_tensor *idx, tl_tensor *out)
{
  (void)weight, (void)idx, (void)out;
  return TL_OK;
}
static tl_status emb_backward(const tl_tensor *g, const tl_tensor *idx, int64_t pad, bool freq,
                              tl_tensor *dw)
{
  (void)g, (void)idx, (void)pad, (void)freq, (void)dw;
  return TL_OK;
}
static tl_status bag_forward(const tl_tensor *weight, const tl_tensor *idx, const tl_tensor *bounds,
                             const tl_tensor *psw, tl_bag_mode mode, int64_t pad, tl_tensor *out,
                             tl_tensor *bag_size, tl_tensor *argmax)
{
  (void)weight, (void)idx, (void)bounds, (void)psw, (void)mode, (void)pad, (void)out,
      (void)bag_size, (void)argmax;
  return TL_OK;
}
static tl_status bag_backward(const tl_tensor *g, const tl_tensor *idx, const tl_tensor *bag_of,
                              const tl_tensor *bag_size, const tl_tensor *argmax,
                              const tl_tensor *psw, tl_bag_mode mode, int64_t pad, tl_tensor *dw)
{
  (void)g, (void)idx, (void)bag_of, (void)bag_size, (void)argmax, (void)psw, (void)mode,
      (void)pad, (void)dw;
  return TL_OK;
}

static tl_status nll(const tl_nll_spec *s, const tl_tensor *x, const tl_tensor *t,
                     const tl_tensor *w, tl_tensor *out, tl_tensor *tw)
{
  (void)s, (void)x, (void)t, (void)w, (void)out, (void)tw;
  return TL_OK;
}
static tl_status nll_backward(const tl_nll_spec *s, const tl_tensor *g, const tl_tensor *t,
                              const tl_tensor *w, const tl_tensor *tw, tl_tensor *dx)
{
  (void)s, (void)g, (void)t, (void)w, (void)tw, (void)dx;
  return TL_OK;
}
static tl_status pointwise(const tl_loss_spec *s, const tl_tensor *x, const tl_tensor *t,
                           const tl_tensor *w, const tl_tensor *p, tl_tensor *out)
{
  (void)s, (void)x, (void)t, (void)w, (void)p, (void)out;
  return TL_OK;
}
static tl_status pointwise_backward(const tl_loss_spec *s, const tl_tensor *g, const tl_tensor *x,
                                    const tl_tensor *t, const tl_tensor *w, const tl_tensor *p,
                                    tl_tensor *dx, tl_tensor *dt)
{
  (void)s, (void)g, (void)x, (void)t, (void)w, (void)p, (void)dx, (void)dt;
  return TL_OK;
}
static tl_status ce(const tl_ce_spec *s, const tl_tensor *x, const tl_tensor *t, const tl_tensor *w,
                    tl_tensor *out, tl_tensor *lse, tl_tensor *tw)
{
  (void)s, (void)x, (void)t, (void)w, (void)out, (void)lse, (void)tw;
  return TL_OK;
}
static tl_status ce_backward(const tl_ce_spec *s, const tl_tensor *g, const tl_tensor *x,
                             const tl_tensor *t, const tl_tensor *w, const tl_tensor *lse,
                             const tl_tensor *tw, tl_tensor *dx, tl_tensor *dt)
{
  (void)s, (void)g, (void)x, (void)t, (void)w, (void)lse, (void)tw, (void)dx, (void)dt;
  return TL_OK;
}
static tl_status multi(const tl_margin_spec *s, const tl_tensor *x, const tl_tensor *t,
                       const tl_tensor *w, tl_tensor *out)
{
  (void)s, (void)x, (void)t, (void)w, (void)out;
  return TL_OK;
}
static tl_status multi_backward(const tl_margin_spec *s, const tl_tensor *g, const tl_tensor *x,
                                const tl_tensor *t, const tl_tensor *w, tl_tensor *dx)
{
  (void)s, (void)g, (void)x, (void)t, (void)w, (void)dx;
  return TL_OK;
}
static tl_status multilabel(const tl_margin_spec *s, const tl_tensor *x, const tl_tensor *t,
                            tl_tensor *out, tl_tensor *is)
{
  (void)s, (void)x, (void)t, (void)out, (void)is;
  return TL_OK;
}
static tl_status multilabel_backward(const tl_margin_spec *s, const tl_tensor *g, const tl_tensor *x,
                                     const tl_tensor *t, const tl_tensor *is, tl_tensor *dx)
{
  (void)s, (void)g, (void)x, (void)t, (void)is, (void)dx;
  return TL_OK;
}
/* CTC's op layer reads the target lengths on the host: no meta kernel */
static tl_status ctc(const tl_ctc_spec *s, const tl_tensor *lp, const tl_tensor *t,
                     tl_tensor *nll_out, tl_tensor *la)
{
  (void)s, (void)t, (void)nll_out, (void)la;
  return tl_dispatch_no_kernel("ctc_loss", tl_tensor_device(lp), lp->dtype);
}
static tl_status ctc_backward(const tl_ctc_spec *s, const tl_tensor *g, const tl_tensor *lp,
                              const tl_tensor *t, const tl_tensor *nll_in, const tl_tensor *la,
                              tl_tensor *dx)
{
  (void)s, (void)g, (void)t, (void)nll_in, (void)la, (void)dx;
  return tl_dispatch_no_kernel("ctc_loss_backward", tl_tensor_device(lp), lp->dtype);
}

static tl_status grid_sample(const tl_grid_spec *s, const tl_tensor *x, const tl_tensor *grid,
                             tl_tensor *y)
{
  (void)s, (void)x, (void)grid, (void)y;
  return TL_OK;
}
static tl_status grid_backward(const tl_grid_spec *s, const tl_tensor *g, const tl_tensor *x,
                               const tl_tensor *grid, tl_tensor *dx, tl_tensor *dgrid)
{
  (void)s, (void)g, (void)x, (void)grid, (void)dx, (void)dgrid;
  return TL_OK;
}
static tl_status affine(int n, const int64_t *size, bool align, bool transpose, const tl_tensor *in,
                        tl_tensor *out)
{
  (void)n, (void)size, (void)align, (void)transpose, (void)in, (void)out;
  return TL_OK;
}

static tl_status dropout(tl_generator *gen, const tl_dropout_params *p, const tl_tensor *x,
                         tl_tensor *y, tl_tensor *mask)
{
  (void)gen, (void)p, (void)x, (void)y, (void)mask;
  return TL_OK;
}
static tl_status dropout_backward(const tl_tensor *g, const tl_tensor *mask, double scale,
                                  tl_tensor *dx)
{
  (void)g, (void)mask, (void)scale, (void)dx;
  return TL_OK;
}

/* the recurrent and attention drivers' primitives */
static tl_status gemm(tl_device dev, bool f64, bool ta, bool tb, int64_t m, int64_t n, int64_t k,
                      double alpha, const void *a, int64_t lda, int64_t sa, const void *b,
                      int64_t ldb, int64_t sb, double beta, void *c, int64_t ldc, int64_t sc,
                      int64_t batch)
{
  (void)dev, (void)f64, (void)ta, (void)tb, (void)m, (void)n, (void)k, (void)alpha, (void)a;
  (void)lda, (void)sa, (void)b, (void)ldb, (void)sb, (void)beta, (void)c, (void)ldc, (void)sc;
  (void)batch;
  return TL_OK;
}
static tl_status rnn_rows(tl_device dev, const tl_rnn_rows *rows)
{
  (void)dev, (void)rows;
  return TL_OK;
}
static tl_status rnn_copy(tl_device dev, void *dst, int64_t ld_dst, const void *src,
                          int64_t ld_src, int64_t n, int64_t bytes)
{
  (void)dev, (void)dst, (void)ld_dst, (void)src, (void)ld_src, (void)n, (void)bytes;
  return TL_OK;
}
static tl_status rnn_add(tl_device dev, bool f64, void *dst, const void *src, int64_t count)
{
  (void)dev, (void)f64, (void)dst, (void)src, (void)count;
  return TL_OK;
}
static tl_status rnn_colsum(tl_device dev, bool f64, const void *g, int64_t n, int64_t cols,
                            int64_t ld, void *out)
{
  (void)dev, (void)f64, (void)g, (void)n, (void)cols, (void)ld, (void)out;
  return TL_OK;
}
static const tl_rnn_device_ops rnn_ops = {.gemm = gemm, .rows = rnn_rows, .copy = rnn_copy,
                                          .add = rnn_add, .colsum = rnn_colsum};
static tl_status rnn_cell(const tl_rnn_call *call) { return tl_rnn_device_cell(&rnn_ops, call); }
static tl_status rnn_layer(const tl_rnn_layer_call *call)
{
  return tl_rnn_device_layer(&rnn_ops, call);
}
static tl_status rnn_layer_backward(const tl_rnn_layer_call *call)
{
  return tl_rnn_device_layer_backward(&rnn_ops, call);
}

static tl_status tile_softmax(tl_device dev, const tl_attn_tile *t, void *s, void *lse)
{
  (void)dev, (void)t, (void)s, (void)lse;
  return TL_OK;
}
static tl_status tile_probs(tl_device dev, const tl_attn_tile *t, void *s, const void *lse,
                            void *pd)
{
  (void)dev, (void)t, (void)s, (void)lse, (void)pd;
  return TL_OK;
}
static tl_status tile_dscores(tl_device dev, const tl_attn_tile *t, const void *p, void *dp,
                              const void *d)
{
  (void)dev, (void)t, (void)p, (void)dp, (void)d;
  return TL_OK;
}
static tl_status tile_rowdot(tl_device dev, bool f64, const void *a, const void *b, int64_t n,
                             int64_t ev, void *d)
{
  (void)dev, (void)f64, (void)a, (void)b, (void)n, (void)ev, (void)d;
  return TL_OK;
}
/* one tile for the whole score matrix: its scratch costs no memory here */
static const tl_attn_device_ops attn_ops = {.tile_scores = (int64_t)1 << 50, .gemm = gemm,
                                            .softmax = tile_softmax, .probs = tile_probs,
                                            .dscores = tile_dscores, .rowdot = tile_rowdot};
static tl_status attention(const tl_attn_call *call)
{
  return tl_attn_device_forward(&attn_ops, call);
}
static tl_status attention_backward(const tl_attn_call *call)
{
  return tl_attn_device_backward(&attn_ops, call);
}

void tl_nn_meta_register(void)
{
  static const tl_nn_conv_kernels conv_set = {.conv = conv, .conv_t = conv, .weight = conv_weight,
                                              .im2col = cols, .col2im = cols, .any_layout = true};
  static const tl_nn_pool_kernels pool_set = {.window_max = window_max, .weighted = weighted,
                                              .scatter = pool_scatter, .channels_last = true};
  static const tl_nn_norm_kernels norm_set = {.forward = norm_forward, .backward = norm_backward,
                                              .lrn = lrn, .channels_last = true};
  static const tl_nn_softmax_kernels softmax_set = {.softmax = softmax,
                                                    .softmax_backward = softmax_backward};
  static const tl_nn_activation_kernels act_set = {.forward = act, .backward = act_backward};
  static const tl_nn_embedding_kernels emb_set = {.forward = emb_forward, .backward = emb_backward,
                                                  .bag_forward = bag_forward,
                                                  .bag_backward = bag_backward};
  static const tl_nn_loss_kernels nll_set = {.nll = nll, .nll_backward = nll_backward};
  static const tl_nn_pointwise_loss_kernels pointwise_set = {.loss = pointwise,
                                                             .loss_backward = pointwise_backward};
  static const tl_nn_class_loss_kernels class_set = {
      .cross_entropy = ce, .cross_entropy_backward = ce_backward, .multi_margin = multi,
      .multi_margin_backward = multi_backward, .multilabel_margin = multilabel,
      .multilabel_margin_backward = multilabel_backward, .ctc = ctc, .ctc_backward = ctc_backward};
  static const tl_nn_grid_kernels grid_set = {.sample = grid_sample,
                                              .sample_backward = grid_backward, .affine = affine};
  static const tl_nn_rnn_kernels rnn_set = {.cell = rnn_cell, .layer = rnn_layer,
                                             .layer_backward = rnn_layer_backward};
  static const tl_nn_attention_kernels attention_set = {.forward = attention,
                                                        .backward = attention_backward};
  static const tl_nn_dropout_kernels dropout_set = {.forward = dropout,
                                                    .backward = dropout_backward};
  tl_nn_register_device(TL_DEVICE_META,
                        &(tl_nn_device_sets){.conv = &conv_set, .pool = &pool_set,
                                             .norm = &norm_set, .softmax = &softmax_set,
                                             .activation = &act_set, .embedding = &emb_set,
                                             .nll = &nll_set, .pointwise_loss = &pointwise_set,
                                             .class_loss = &class_set, .grid = &grid_set,
                                             .rnn = &rnn_set, .attention = &attention_set,
                                             .dropout = &dropout_set});
}
