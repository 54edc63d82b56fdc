/* nn_emulate.c - test hook: the fake device given src/nn's CPU kernel sets
 * (conv, pool, norm, softmax, activations, embedding, the losses, the
 * sampling grids) as its device kernels, and the recurrent and attention
 * families' device-neutral drivers on host primitives, as src/ndcore/dispatch/emulate.c
 * does for the core's families.  Each kernel runs with fake memory counted
 * as host memory for the call only, so the op layers take their device
 * paths around it (checks, allocation on the input's device, work copies,
 * inputs cast on the device, embedding_bag's offsets read back and its
 * bounds moved to the device, ctc's targets read back, the derivatives),
 * as they do on CUDA.  Like a GPU set, the embedding wrappers check the
 * indices themselves (the op layer leaves that to the device).  Called by
 * _C._fake_emulate_device after the core's emulation, whose fake storages
 * hold plain host addresses; one-way. */
#include "ndcore/dispatch/tl_emulate.h"
#include "ndcore/linalg/tl_blas.h"
#include <string.h>

#include "nn/tl_nn.h"
#include "nn/tl_nn_device.h"
#include "nn/tl_nn_work.h"


static tl_status emu_conv(const tl_tensor *big, const tl_tensor *w, const tl_tensor *b,
                          const tl_nn_conv_geom *g, tl_tensor *small)
{
  TL_EMU_HOSTED(tl_cpu_conv_kernels.conv(big, w, b, g, small));
}
static tl_status emu_conv_t(const tl_tensor *small, const tl_tensor *w, const tl_tensor *b,
                            const tl_nn_conv_geom *g, tl_tensor *big)
{
  TL_EMU_HOSTED(tl_cpu_conv_kernels.conv_t(small, w, b, g, big));
}
static tl_status emu_conv_weight(const tl_tensor *small, const tl_tensor *big,
                                 const tl_nn_conv_geom *g, tl_tensor *dw)
{
  TL_EMU_HOSTED(tl_cpu_conv_kernels.weight(small, big, g, dw));
}
static tl_status emu_im2col(const tl_tensor *big, const tl_nn_conv_geom *g, tl_tensor *cols)
{
  TL_EMU_HOSTED(tl_cpu_conv_kernels.im2col(big, g, cols));
}
static tl_status emu_col2im(const tl_tensor *cols, const tl_nn_conv_geom *g, tl_tensor *big)
{
  TL_EMU_HOSTED(tl_cpu_conv_kernels.col2im(cols, g, big));
}

static tl_status emu_window_max(const tl_tensor *in, int n, const tl_nn_taps *taps, tl_tensor *out,
                                tl_tensor *indices)
{
  TL_EMU_HOSTED(tl_cpu_pool_window_max(in, n, taps, out, indices));
}
static tl_status emu_weighted(const tl_tensor *in, int n, const tl_nn_taps *taps, bool transpose,
                              tl_tensor *out)
{
  TL_EMU_HOSTED(tl_cpu_pool_weighted(in, n, taps, transpose, out));
}
static tl_status emu_scatter(const tl_tensor *src, const tl_tensor *indices, int n, bool accumulate,
                             tl_tensor *out)
{
  TL_EMU_HOSTED(tl_cpu_pool_scatter(src, indices, n, accumulate, out));
}

static tl_status emu_norm_forward(const tl_norm_spec *s, const tl_tensor *x, const tl_tensor *w,
                                  const tl_tensor *b, tl_tensor *rm, tl_tensor *rv, tl_tensor *y,
                                  tl_tensor *mean, tl_tensor *rstd)
{
  TL_EMU_HOSTED(tl_cpu_norm_forward(s, x, w, b, rm, rv, y, mean, rstd));
}
static tl_status emu_norm_backward(const tl_norm_spec *s, const tl_tensor *g, const tl_tensor *x,
                                   const tl_tensor *mean, const tl_tensor *rstd, const tl_tensor *w,
                                   tl_tensor *dx, tl_tensor *dw, tl_tensor *db)
{
  TL_EMU_HOSTED(tl_cpu_norm_backward(s, g, x, mean, rstd, w, dx, dw, db));
}
static tl_status emu_lrn(const tl_lrn_spec *s, const tl_tensor *g, const tl_tensor *x,
                         tl_tensor *out)
{
  TL_EMU_HOSTED(tl_cpu_lrn(s, g, x, out));
}
static tl_status softmax(const tl_tensor *in, int dim, bool log, tl_tensor *out)
{
  TL_EMU_HOSTED(tl_cpu_softmax(in, dim, log, out));
}
static tl_status softmax_backward(const tl_tensor *g, const tl_tensor *y, int dim, bool log,
                                  tl_tensor *dx)
{
  TL_EMU_HOSTED(tl_cpu_softmax_backward(g, y, dim, log, dx));
}

static tl_status act(tl_act_kind kind, const tl_act_params *p, const tl_tensor *x,
                     const tl_tensor *w, tl_tensor *y)
{
  TL_EMU_HOSTED(tl_cpu_activation(kind, p, x, w, y));
}
static tl_status act_backward(tl_act_kind kind, const tl_act_params *p, const tl_tensor *g,
                              const tl_tensor *x, const tl_tensor *w, tl_tensor *dx, tl_tensor *dw)
{
  TL_EMU_HOSTED(tl_cpu_activation_backward(kind, p, g, x, w, dx, dw));
}

/* the indices checked (host-readable now), then the CPU's kernel */
static tl_status checked(const tl_tensor *idx, int64_t V, tl_status (*run)(const void *), const void *args)
{
  tl_status status = tl_nn_embedding_check_range(idx, V);
  return status == TL_OK ? run(args) : status;
}

/* embedding_bag's forward: the indices checked in its own words */
static tl_status bag_checked(const tl_tensor *idx, int64_t V, bool max_path,
                             tl_status (*run)(const void *), const void *args)
{
  tl_status status = tl_nn_embedding_bag_check_range(idx, V, max_path);
  return status == TL_OK ? run(args) : status;
}

typedef struct {
  const tl_tensor *a, *b, *c, *d, *e, *f;
  tl_tensor *o1, *o2, *o3;
  int64_t pad;
  bool freq;
  tl_bag_mode mode;
} emb_args;

static tl_status emb_forward_run(const void *p)
{
  const emb_args *a = p;
  return tl_cpu_embedding_kernels.forward(a->a, a->b, a->o1);
}
static tl_status emb_backward_run(const void *p)
{
  const emb_args *a = p;
  return tl_cpu_embedding_kernels.backward(a->a, a->b, a->pad, a->freq, a->o1);
}
static tl_status bag_forward_run(const void *p)
{
  const emb_args *a = p;
  return tl_cpu_embedding_kernels.bag_forward(a->a, a->b, a->c, a->d, a->mode, a->pad, a->o1,
                                              a->o2, a->o3);
}
static tl_status bag_backward_run(const void *p)
{
  const emb_args *a = p;
  return tl_cpu_embedding_kernels.bag_backward(a->a, a->b, a->c, a->d, a->e, a->f, a->mode,
                                               a->pad, a->o1);
}

static tl_status emb_forward(const tl_tensor *weight, const tl_tensor *idx, tl_tensor *out)
{
  emb_args a = {.a = weight, .b = idx, .o1 = out};
  TL_EMU_HOSTED(checked(idx, weight->shape[0], emb_forward_run, &a));
}
static tl_status emb_backward(const tl_tensor *g, const tl_tensor *idx, int64_t pad, bool freq,
                              tl_tensor *dw)
{
  emb_args a = {.a = g, .b = idx, .pad = pad, .freq = freq, .o1 = dw};
  TL_EMU_HOSTED(checked(idx, dw->shape[0], emb_backward_run, &a));
}
static tl_status bag_forward(const tl_tensor *weight, const tl_tensor *idx, const tl_tensor *bounds,
                             const tl_tensor *psw, tl_bag_mode mode, int64_t pad, tl_tensor *out,
                             tl_tensor *bag_size, tl_tensor *argmax)
{
  emb_args a = {.a = weight, .b = idx, .c = bounds, .d = psw, .mode = mode, .pad = pad,
                .o1 = out, .o2 = bag_size, .o3 = argmax};
  TL_EMU_HOSTED(bag_checked(idx, weight->shape[0], mode == TL_BAG_MAX || pad >= 0, bag_forward_run,
                            &a));
}
static tl_status bag_backward(const tl_tensor *g, const tl_tensor *idx, const tl_tensor *bag_of,
                              const tl_tensor *bag_size, const tl_tensor *argmax,
                              const tl_tensor *psw, tl_bag_mode mode, int64_t pad, tl_tensor *dw)
{
  emb_args a = {.a = g, .b = idx, .c = bag_of, .d = bag_size, .e = argmax, .f = psw,
                .mode = mode, .pad = pad, .o1 = dw};
  TL_EMU_HOSTED(checked(idx, dw->shape[0], bag_backward_run, &a));
}

static tl_status nll(const tl_nll_spec *s, const tl_tensor *x, const tl_tensor *t,
                     const tl_tensor *w, tl_tensor *out, tl_tensor *tw)
{
  TL_EMU_HOSTED(tl_cpu_nll_loss(s, x, t, w, out, tw));
}
static tl_status nll_backward(const tl_nll_spec *s, const tl_tensor *g, const tl_tensor *t,
                              const tl_tensor *w, const tl_tensor *tw, tl_tensor *dx)
{
  TL_EMU_HOSTED(tl_cpu_nll_loss_backward(s, g, t, w, tw, dx));
}

static tl_status pointwise(const tl_loss_spec *s, const tl_tensor *x, const tl_tensor *t,
                           const tl_tensor *w, const tl_tensor *p, tl_tensor *out)
{
  TL_EMU_HOSTED(tl_cpu_pointwise_loss(s, x, t, w, p, out));
}
static tl_status pointwise_backward(const tl_loss_spec *s, const tl_tensor *g, const tl_tensor *x,
                                    const tl_tensor *t, const tl_tensor *w, const tl_tensor *p,
                                    tl_tensor *dx, tl_tensor *dt)
{
  TL_EMU_HOSTED(tl_cpu_pointwise_loss_backward(s, g, x, t, w, p, dx, dt));
}

static tl_status ce(const tl_ce_spec *s, const tl_tensor *x, const tl_tensor *t, const tl_tensor *w,
                    tl_tensor *out, tl_tensor *lse, tl_tensor *tw)
{
  TL_EMU_HOSTED(tl_cpu_cross_entropy(s, x, t, w, out, lse, tw));
}
static tl_status ce_backward(const tl_ce_spec *s, const tl_tensor *g, const tl_tensor *x,
                             const tl_tensor *t, const tl_tensor *w, const tl_tensor *lse,
                             const tl_tensor *tw, tl_tensor *dx, tl_tensor *dt)
{
  TL_EMU_HOSTED(tl_cpu_cross_entropy_backward(s, g, x, t, w, lse, tw, dx, dt));
}
static tl_status multi(const tl_margin_spec *s, const tl_tensor *x, const tl_tensor *t,
                       const tl_tensor *w, tl_tensor *out)
{
  TL_EMU_HOSTED(tl_cpu_multi_margin(s, x, t, w, out));
}
static tl_status multi_backward(const tl_margin_spec *s, const tl_tensor *g, const tl_tensor *x,
                                const tl_tensor *t, const tl_tensor *w, tl_tensor *dx)
{
  TL_EMU_HOSTED(tl_cpu_multi_margin_backward(s, g, x, t, w, dx));
}
static tl_status multilabel(const tl_margin_spec *s, const tl_tensor *x, const tl_tensor *t,
                            tl_tensor *out, tl_tensor *is)
{
  TL_EMU_HOSTED(tl_cpu_multilabel_margin(s, x, t, out, is));
}
static tl_status multilabel_backward(const tl_margin_spec *s, const tl_tensor *g, const tl_tensor *x,
                                     const tl_tensor *t, const tl_tensor *is, tl_tensor *dx)
{
  TL_EMU_HOSTED(tl_cpu_multilabel_margin_backward(s, g, x, t, is, dx));
}
static tl_status ctc(const tl_ctc_spec *s, const tl_tensor *lp, const tl_tensor *t, tl_tensor *nll_out,
                     tl_tensor *la)
{
  TL_EMU_HOSTED(tl_cpu_ctc(s, lp, t, nll_out, la));
}
static tl_status ctc_backward(const tl_ctc_spec *s, const tl_tensor *g, const tl_tensor *lp,
                              const tl_tensor *t, const tl_tensor *nll_in, const tl_tensor *la,
                              tl_tensor *dx)
{
  TL_EMU_HOSTED(tl_cpu_ctc_backward(s, g, lp, t, nll_in, la, dx));
}

static tl_status grid_sample(const tl_grid_spec *s, const tl_tensor *x, const tl_tensor *grid,
                             tl_tensor *y)
{
  TL_EMU_HOSTED(tl_cpu_grid_kernels.sample(s, x, grid, y));
}
static tl_status grid_backward(const tl_grid_spec *s, const tl_tensor *g, const tl_tensor *x,
                               const tl_tensor *grid, tl_tensor *dx, tl_tensor *dgrid)
{
  TL_EMU_HOSTED(tl_cpu_grid_kernels.sample_backward(s, g, x, grid, dx, dgrid));
}
static tl_status affine(int n, const int64_t *size, bool align, bool transpose, const tl_tensor *in,
                        tl_tensor *out)
{
  TL_EMU_HOSTED(tl_cpu_grid_kernels.affine(n, size, align, transpose, in, out));
}

/* The recurrent and attention families: their device-neutral drivers
 * (rnn_device.c, attention_device.c) on primitives that are host loops, so
 * the drivers' own steps (row offsets, workspace columns, tiles, grouped
 * heads, device scratch) run as they do on CUDA.  Attention's tiles are
 * kept small here (4096 scores) so that tests of a few hundred keys cross
 * tile and batch-chunk boundaries. */
static tl_status gemm_run(bool f64, bool ta, bool tb, int64_t m, int64_t n, int64_t k,
                          double alpha, const void *a, int64_t lda, int64_t sa, const void *b,
                          int64_t ldb, int64_t sb, double beta, void *c, int64_t ldc, int64_t sc,
                          int64_t batch)
{
  size_t es = f64 ? sizeof(double) : sizeof(float);
  CBLAS_TRANSPOSE oa = ta ? CblasTrans : CblasNoTrans, ob = tb ? CblasTrans : CblasNoTrans;
  for (int64_t i = 0; i < batch && m > 0 && n > 0; i++) {
    const char *ai = (const char *)a + (size_t)(i * sa) * es, *bi = (const char *)b + (size_t)(i * sb) * es;
    char *ci = (char *)c + (size_t)(i * sc) * es;
    if (k == 0) /* an empty sum: BLAS may leave C alone */
      for (int64_t r = 0; beta == 0 && r < m; r++)
        memset(ci + (size_t)(r * ldc) * es, 0, (size_t)n * es);
    else if (f64)
      TL_BLAS(cblas_dgemm)(CblasRowMajor, oa, ob, (int)m, (int)n, (int)k, alpha,
                           (const double *)ai, (int)lda, (const double *)bi, (int)ldb, beta,
                           (double *)ci, (int)ldc);
    else
      TL_BLAS(cblas_sgemm)(CblasRowMajor, oa, ob, (int)m, (int)n, (int)k, (float)alpha,
                           (const float *)ai, (int)lda, (const float *)bi, (int)ldb, (float)beta,
                           (float *)ci, (int)ldc);
  }
  return TL_OK;
}
static tl_status emu_gemm(tl_device dev, bool f64, bool ta, bool tb, int64_t m, int64_t n,
                          int64_t k, double alpha, const void *a, int64_t lda, int64_t sa,
                          const void *b, int64_t ldb, int64_t sb, double beta, void *c,
                          int64_t ldc, int64_t sc, int64_t batch)
{
  (void)dev;
  TL_EMU_HOSTED(gemm_run(f64, ta, tb, m, n, k, alpha, a, lda, sa, b, ldb, sb, beta, c, ldc, sc,
                         batch));
}

static tl_status rnn_rows_run(const tl_rnn_rows *rows)
{
  tl_cpu_rnn_rows(rows);
  return TL_OK;
}
static tl_status rnn_rows(tl_device dev, const tl_rnn_rows *rows)
{
  (void)dev;
  TL_EMU_HOSTED(rnn_rows_run(rows));
}
static tl_status rnn_copy_run(void *dst, int64_t ld_dst, const void *src, int64_t ld_src,
                              int64_t n, int64_t bytes)
{
  for (int64_t r = 0; r < n && bytes > 0; r++) {
    if (src)
      memcpy((char *)dst + r * ld_dst, (const char *)src + r * ld_src, (size_t)bytes);
    else
      memset((char *)dst + r * ld_dst, 0, (size_t)bytes);
  }
  return TL_OK;
}
static tl_status rnn_copy(tl_device dev, void *dst, int64_t ld_dst, const void *src,
                          int64_t ld_src, int64_t n, int64_t bytes)
{
  (void)dev;
  TL_EMU_HOSTED(rnn_copy_run(dst, ld_dst, src, ld_src, n, bytes));
}
static tl_status rnn_add_run(bool f64, void *dst, const void *src, int64_t count)
{
  for (int64_t i = 0; i < count; i++) {
    if (f64)
      ((double *)dst)[i] += ((const double *)src)[i];
    else
      ((float *)dst)[i] += ((const float *)src)[i];
  }
  return TL_OK;
}
static tl_status rnn_add(tl_device dev, bool f64, void *dst, const void *src, int64_t count)
{
  (void)dev;
  TL_EMU_HOSTED(rnn_add_run(f64, dst, src, count));
}
static tl_status rnn_colsum_run(bool f64, const void *g, int64_t n, int64_t cols, int64_t ld,
                                void *out)
{
  tl_cpu_rnn_colsum(f64, g, n, cols, ld, out);
  return TL_OK;
}
static tl_status rnn_colsum(tl_device dev, bool f64, const void *g, int64_t n, int64_t cols,
                            int64_t ld, void *out)
{
  (void)dev;
  TL_EMU_HOSTED(rnn_colsum_run(f64, g, n, cols, ld, out));
}
static const tl_rnn_device_ops rnn_ops = {.gemm = emu_gemm, .rows = rnn_rows, .copy = rnn_copy,
                                          .add = rnn_add, .colsum = rnn_colsum};
static tl_status rnn_cell(const tl_rnn_call *call)
{
  return tl_rnn_device_cell(&rnn_ops, call);
}
static tl_status rnn_layer(const tl_rnn_layer_call *call)
{
  return tl_rnn_device_layer(&rnn_ops, call);
}
static tl_status rnn_layer_backward(const tl_rnn_layer_call *call)
{
  return tl_rnn_device_layer_backward(&rnn_ops, call);
}

/* attention's row kernels; each returns TL_OK */
typedef struct {
  const tl_attn_tile *t;
  void *x, *y;
  const void *a, *b;
  bool f64;
  int64_t n, ev;
} tile_args;
enum { TILE_SOFTMAX, TILE_PROBS, TILE_DSCORES, TILE_ROWDOT };
static tl_status tile_run(int kind, const tile_args *g)
{
  switch (kind) {
  case TILE_SOFTMAX: tl_attn_tile_softmax_host(g->t, g->x, g->y); break;
  case TILE_PROBS: tl_attn_tile_probs_host(g->t, g->x, g->a, g->y); break;
  case TILE_DSCORES: tl_attn_tile_dscores_host(g->t, g->a, g->x, g->b); break;
  default: tl_attn_rowdot_host(g->f64, g->a, g->b, g->n, g->ev, g->x); break;
  }
  return TL_OK;
}
static tl_status tile_softmax(tl_device dev, const tl_attn_tile *t, void *s, void *lse)
{
  (void)dev;
  tile_args g = {.t = t, .x = s, .y = lse};
  TL_EMU_HOSTED(tile_run(TILE_SOFTMAX, &g));
}
static tl_status tile_probs(tl_device dev, const tl_attn_tile *t, void *s, const void *lse,
                            void *pd)
{
  (void)dev;
  tile_args g = {.t = t, .x = s, .a = lse, .y = pd};
  TL_EMU_HOSTED(tile_run(TILE_PROBS, &g));
}
static tl_status tile_dscores(tl_device dev, const tl_attn_tile *t, const void *p, void *dp,
                              const void *d)
{
  (void)dev;
  tile_args g = {.t = t, .a = p, .x = dp, .b = d};
  TL_EMU_HOSTED(tile_run(TILE_DSCORES, &g));
}
static tl_status tile_rowdot(tl_device dev, bool f64, const void *a, const void *b, int64_t n,
                             int64_t ev, void *d)
{
  (void)dev;
  tile_args g = {.f64 = f64, .a = a, .b = b, .n = n, .ev = ev, .x = d};
  TL_EMU_HOSTED(tile_run(TILE_ROWDOT, &g));
}
static const tl_attn_device_ops attn_ops = {.tile_scores = 4096, .gemm = emu_gemm,
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

/* Dropout: the CPU's fused kernel draws what CUDA's draws (tl_dropout.h). */
static tl_status dropout(tl_generator *gen, const tl_dropout_params *p, const tl_tensor *x,
                         tl_tensor *y, tl_tensor *mask)
{
  TL_EMU_HOSTED(tl_cpu_dropout(gen, p, x, y, mask));
}
static tl_status dropout_backward(const tl_tensor *g, const tl_tensor *mask, double scale,
                                  tl_tensor *dx)
{
  TL_EMU_HOSTED(tl_cpu_dropout_backward(g, mask, scale, dx));
}

void tl_nn_emulate_device(void)
{
  static const tl_nn_conv_kernels conv = {.conv = emu_conv,
                                          .conv_t = emu_conv_t,
                                          .weight = emu_conv_weight,
                                          .im2col = emu_im2col,
                                          .col2im = emu_col2im};
  static const tl_nn_pool_kernels pool = {
      .window_max = emu_window_max, .weighted = emu_weighted, .scatter = emu_scatter};
  static const tl_nn_norm_kernels norm = {
      .forward = emu_norm_forward, .backward = emu_norm_backward, .lrn = emu_lrn};
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
  static const tl_nn_grid_kernels grid_set = {.sample = grid_sample, .sample_backward = grid_backward,
                                              .affine = affine};
  static const tl_nn_rnn_kernels rnn_set = {.cell = rnn_cell, .layer = rnn_layer,
                                             .layer_backward = rnn_layer_backward};
  static const tl_nn_attention_kernels attention_set = {.forward = attention,
                                                        .backward = attention_backward};
  static const tl_nn_dropout_kernels dropout_set = {.forward = dropout,
                                                    .backward = dropout_backward};
  tl_nn_register_device(TL_DEVICE_FAKE,
                        &(tl_nn_device_sets){.conv = &conv, .pool = &pool, .norm = &norm,
                                             .softmax = &softmax_set, .activation = &act_set,
                                             .embedding = &emb_set, .nll = &nll_set,
                                             .pointwise_loss = &pointwise_set,
                                             .class_loss = &class_set, .grid = &grid_set,
                                             .rnn = &rnn_set, .attention = &attention_set,
                                             .dropout = &dropout_set});
}
