/* nn_emulate.c - test hook: the fake device given src/nn's CPU kernel sets
 * (conv, pool, norm, softmax, activations, embedding, the losses, the
 * sampling grids) as its device kernels, and the recurrent and attention
 * families' device-neutral drivers on host primitives, as src/ndcore/dispatch/emulate.c
 * does for the core's families.  Each kernel runs with fake memory counted
 * as host memory for the call only, so the op layers take their device
 * paths around it (checks, allocation on the input's device, work copies,
 * inputs cast on the device, embedding_bag's offsets read back and its
 * bounds moved to the device, ctc's targets read back, the derivatives),
 * as they do on CUDA.  Like a GPU set, the embedding and class-loss
 * wrappers check the indices themselves, deferring the error to the next
 * synchronization as CUDA's kernels do (the op layer leaves that to the
 * device).  Called by
 * _C._fake_emulate_device after the core's emulation, whose fake storages
 * hold plain host addresses; one-way. */
#include "ndcore/dispatch/tl_emulate.h"
#include "ndcore/linalg/tl_blas.h"
#include <stdint.h>
#include <string.h>

#include "gpu/tl_device_errors.h"
#include "ndcore/tensor/tl_backend.h"

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
                             tl_tensor *out); /* below, with the index checks */

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

/* ---- indices and class targets: checked as a CUDA kernel set checks them ----
 * act_loss_gpu.c checks them on the device without a wait: a bad value is
 * recorded in the device's error record (raised at the next
 * synchronization, naming the op) and the op's kernels read a copy with each
 * bad value replaced by 0.  Here the same, on the host: the CPU's kernel
 * runs on that copy, so its own immediate check never fires.  Where no
 * index can be valid (hi <= 0) CUDA checks at once, and so does this. */

typedef struct {
  const char *op;
  int64_t hi, skip;
  bool has_skip;
  tl_device_error_kind kind;
  tl_status status;
  int n;             /* POOL: how many output sizes the message shows */
  int64_t extent[3]; /* POOL: those sizes */
} emu_check;

typedef struct {
  const void *spec;
  const tl_tensor *a, *b, *c, *d, *e, *f;
  tl_tensor *o1, *o2, *o3;
  int64_t pad;
  bool freq;
  tl_bag_mode mode;
} emb_args;

typedef tl_status (*emu_run)(const emb_args *a, const tl_tensor *idx);

/* The copy with bad values replaced, the first bad one recorded (host
 * memory readable: called hosted). */
static tl_status screen_run(const tl_tensor *idx, const emu_check *c, tl_device_error *word,
                            tl_tensor *safe)
{
  const int64_t *v = tl_tensor_data(idx);
  int64_t *out = tl_tensor_data(safe), n = tl_tensor_numel(idx);
  for (int64_t i = 0; i < n; i++) {
    bool bad = (v[i] < 0 || v[i] >= c->hi) && !(c->has_skip && v[i] == c->skip);
    if (bad && c->kind == TL_DEVICE_ERROR_POOL && !word->flag) {
      tl_device_errors_record(word, tl_device_errors_op(tl_device_errors_current()), c->n, v[i],
                              c->hi, c->status, c->kind);
      memcpy(word->extent, c->extent, sizeof word->extent);
    } else if (bad) {
      tl_device_errors_record(word, tl_device_errors_op(tl_device_errors_current()),
                              i <= INT32_MAX ? (int)i : -1, v[i], c->hi, c->status, c->kind);
    }
    out[i] = bad ? 0 : v[i];
  }
  return TL_OK;
}
static tl_status screen(const tl_tensor *idx, const emu_check *c, tl_device_error *word,
                        tl_tensor *safe)
{
  TL_EMU_HOSTED(screen_run(idx, c, word, safe));
}

/* The checks that raise at once (hi <= 0): embedding's own, the losses' in their CPU kernels. */
static tl_status check_now_run(const tl_tensor *idx, const emu_check *c)
{
  if (c->kind == TL_DEVICE_ERROR_EMBEDDING)
    return tl_nn_embedding_check_range(idx, c->hi);
  if (c->kind == TL_DEVICE_ERROR_BAG || c->kind == TL_DEVICE_ERROR_BAG_MAX)
    return tl_nn_embedding_bag_check_range(idx, c->hi, c->kind == TL_DEVICE_ERROR_BAG_MAX);
  return TL_OK;
}
static tl_status check_now(const tl_tensor *idx, const emu_check *c)
{
  TL_EMU_HOSTED(check_now_run(idx, c));
}

static tl_status run_hosted(emu_run run, const emb_args *a, const tl_tensor *idx)
{
  TL_EMU_HOSTED(run(a, idx));
}

/* run(a, the screened indices) as the op c->op, with idx checked as above. */
static tl_status deferred(const emu_check *c, const tl_tensor *idx, emu_run run, const emb_args *a)
{
  const tl_device device = tl_tensor_device(idx);
  const char *outer = tl_device_errors_enter(c->op);
  const tl_backend *b = tl_backend_get(device);
  tl_tensor safe = {0};
  tl_device_error *word = NULL;
  tl_status status = b ? TL_OK : tl_error_status();
  bool screened = tl_tensor_numel(idx) > 0 && c->hi > 0 && idx->dtype == TL_DTYPE_I64 &&
                  tl_tensor_is_contiguous(idx);
  if (status == TL_OK && !screened)
    status = check_now(idx, c);
  if (status == TL_OK && screened)
    status = tl_device_errors_word(device, b->current_stream(device), &word);
  if (status == TL_OK && screened)
    status = tl_tensor_empty(&safe, TL_DTYPE_I64, idx->ndim, idx->shape, device);
  if (status == TL_OK && screened)
    status = screen(idx, c, word, &safe);
  if (status == TL_OK)
    status = run_hosted(run, a, screened ? &safe : idx);
  tl_tensor_release(&safe);
  return tl_device_errors_leave(outer, device, status);
}

static tl_status emb_forward_run(const emb_args *a, const tl_tensor *idx)
{
  return tl_cpu_embedding_kernels.forward(a->a, idx, a->o1);
}
static tl_status emb_backward_run(const emb_args *a, const tl_tensor *idx)
{
  return tl_cpu_embedding_kernels.backward(a->a, idx, a->pad, a->freq, a->o1);
}
static tl_status bag_forward_run(const emb_args *a, const tl_tensor *idx)
{
  return tl_cpu_embedding_kernels.bag_forward(a->a, idx, a->c, a->d, a->mode, a->pad, a->o1,
                                              a->o2, a->o3);
}
static tl_status bag_backward_run(const emb_args *a, const tl_tensor *idx)
{
  return tl_cpu_embedding_kernels.bag_backward(a->a, idx, a->c, a->d, a->e, a->f, a->mode,
                                               a->pad, a->o1);
}

/* max pooling's backward and max_unpool: in-plane indices in [0, the
 * output plane's size), the error in the CPU's words (CUDA's scatter skips
 * a bad index; here it reads the stand-in 0: either way what the op wrote
 * is unspecified once it has an error). */
static tl_status pool_scatter_run(const emb_args *a, const tl_tensor *idx)
{
  return tl_cpu_pool_scatter(a->a, idx, (int)a->pad, a->freq, a->o1);
}
static tl_status emu_scatter(const tl_tensor *src, const tl_tensor *indices, int n, bool accumulate,
                             tl_tensor *out)
{
  emb_args a = {.a = src, .pad = n, .freq = accumulate, .o1 = out};
  emu_check c = {.op = accumulate ? "max_pool_backward" : "max_unpool", .hi = 1,
                 .kind = TL_DEVICE_ERROR_POOL, .status = TL_ERR_RUNTIME, .n = n};
  for (int d = 0; d < n && d < 3; d++) {
    c.extent[d] = out->shape[out->ndim - n + d];
    c.hi *= c.extent[d];
  }
  return deferred(&c, indices, pool_scatter_run, &a);
}

static emu_check embedding_check(const char *op, int64_t V)
{
  return (emu_check){.op = op, .hi = V, .kind = TL_DEVICE_ERROR_EMBEDDING, .status = TL_ERR_INDEX};
}

static tl_status emb_forward(const tl_tensor *weight, const tl_tensor *idx, tl_tensor *out)
{
  emb_args a = {.a = weight, .o1 = out};
  emu_check c = embedding_check("embedding", weight->shape[0]);
  return deferred(&c, idx, emb_forward_run, &a);
}
static tl_status emb_backward(const tl_tensor *g, const tl_tensor *idx, int64_t pad, bool freq,
                              tl_tensor *dw)
{
  emb_args a = {.a = g, .pad = pad, .freq = freq, .o1 = dw};
  emu_check c = embedding_check("embedding_dense_backward", dw->shape[0]);
  return deferred(&c, idx, emb_backward_run, &a);
}
static tl_status bag_forward(const tl_tensor *weight, const tl_tensor *idx, const tl_tensor *bounds,
                             const tl_tensor *psw, tl_bag_mode mode, int64_t pad, tl_tensor *out,
                             tl_tensor *bag_size, tl_tensor *argmax)
{
  emb_args a = {.a = weight, .c = bounds, .d = psw, .mode = mode, .pad = pad,
                .o1 = out, .o2 = bag_size, .o3 = argmax};
  bool max_path = mode == TL_BAG_MAX || pad >= 0;
  emu_check c = {.op = "embedding_bag", .hi = weight->shape[0],
                 .kind = max_path ? TL_DEVICE_ERROR_BAG_MAX : TL_DEVICE_ERROR_BAG,
                 .status = TL_ERR_RUNTIME};
  return deferred(&c, idx, bag_forward_run, &a);
}
static tl_status bag_backward(const tl_tensor *g, const tl_tensor *idx, const tl_tensor *bag_of,
                              const tl_tensor *bag_size, const tl_tensor *argmax,
                              const tl_tensor *psw, tl_bag_mode mode, int64_t pad, tl_tensor *dw)
{
  emb_args a = {.a = g, .c = bag_of, .d = bag_size, .e = argmax, .f = psw,
                .mode = mode, .pad = pad, .o1 = dw};
  emu_check c = embedding_check("_embedding_bag_dense_backward", dw->shape[0]);
  return deferred(&c, idx, bag_backward_run, &a);
}

static emu_check class_check(const char *op, int64_t C, int64_t ignore_index)
{
  return (emu_check){.op = op, .hi = C, .skip = ignore_index, .has_skip = true,
                     .kind = TL_DEVICE_ERROR_TARGET, .status = TL_ERR_INDEX};
}

static tl_status nll_run(const emb_args *a, const tl_tensor *t)
{
  return tl_cpu_nll_loss(a->spec, a->a, t, a->b, a->o1, a->o2);
}
static tl_status nll(const tl_nll_spec *s, const tl_tensor *x, const tl_tensor *t,
                     const tl_tensor *w, tl_tensor *out, tl_tensor *tw)
{
  emb_args a = {.spec = s, .a = x, .b = w, .o1 = out, .o2 = tw};
  emu_check c = class_check("nll_loss", s->C, s->ignore_index);
  return deferred(&c, t, nll_run, &a);
}
static tl_status nll_backward_run(const emb_args *a, const tl_tensor *t)
{
  return tl_cpu_nll_loss_backward(a->spec, a->a, t, a->b, a->c, a->o1);
}
static tl_status nll_backward(const tl_nll_spec *s, const tl_tensor *g, const tl_tensor *t,
                              const tl_tensor *w, const tl_tensor *tw, tl_tensor *dx)
{
  emb_args a = {.spec = s, .a = g, .b = w, .c = tw, .o1 = dx};
  emu_check c = class_check("nll_loss_backward", s->C, s->ignore_index);
  return deferred(&c, t, nll_backward_run, &a);
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

static tl_status ce_run(const emb_args *a, const tl_tensor *t)
{
  return tl_cpu_cross_entropy(a->spec, a->a, t, a->b, a->o1, a->o2, a->o3);
}
static tl_status ce(const tl_ce_spec *s, const tl_tensor *x, const tl_tensor *t, const tl_tensor *w,
                    tl_tensor *out, tl_tensor *lse, tl_tensor *tw)
{
  emb_args a = {.spec = s, .a = x, .b = w, .o1 = out, .o2 = lse, .o3 = tw};
  if (s->probs) /* class probabilities: nothing to check */
    return run_hosted(ce_run, &a, t);
  emu_check c = class_check("cross_entropy", s->C, s->ignore_index);
  return deferred(&c, t, ce_run, &a);
}
static tl_status ce_backward_run(const emb_args *a, const tl_tensor *t)
{
  return tl_cpu_cross_entropy_backward(a->spec, a->a, a->b, t, a->c, a->d, a->e, a->o1, a->o2);
}
static tl_status ce_backward(const tl_ce_spec *s, const tl_tensor *g, const tl_tensor *x,
                             const tl_tensor *t, const tl_tensor *w, const tl_tensor *lse,
                             const tl_tensor *tw, tl_tensor *dx, tl_tensor *dt)
{
  emb_args a = {.spec = s, .a = g, .b = x, .c = w, .d = lse, .e = tw, .o1 = dx, .o2 = dt};
  if (s->probs)
    return run_hosted(ce_backward_run, &a, t);
  emu_check c = class_check("cross_entropy_backward", s->C, s->ignore_index);
  return deferred(&c, t, ce_backward_run, &a);
}

static emu_check margin_check(bool multi, bool backward, int64_t C)
{
  return (emu_check){.op = multi ? (backward ? "multi_margin_loss_backward" : "multi_margin_loss")
                                 : (backward ? "multilabel_margin_loss_backward"
                                             : "multilabel_margin_loss"),
                     .hi = C, .skip = -1, .has_skip = !multi,
                     .kind = multi ? TL_DEVICE_ERROR_MARGIN : TL_DEVICE_ERROR_MULTILABEL,
                     .status = TL_ERR_RUNTIME};
}
static tl_status multi_run(const emb_args *a, const tl_tensor *t)
{
  return tl_cpu_multi_margin(a->spec, a->a, t, a->b, a->o1);
}
static tl_status multi(const tl_margin_spec *s, const tl_tensor *x, const tl_tensor *t,
                       const tl_tensor *w, tl_tensor *out)
{
  emb_args a = {.spec = s, .a = x, .b = w, .o1 = out};
  emu_check c = margin_check(true, false, s->C);
  return deferred(&c, t, multi_run, &a);
}
static tl_status multi_backward_run(const emb_args *a, const tl_tensor *t)
{
  return tl_cpu_multi_margin_backward(a->spec, a->a, a->b, t, a->c, a->o1);
}
static tl_status multi_backward(const tl_margin_spec *s, const tl_tensor *g, const tl_tensor *x,
                                const tl_tensor *t, const tl_tensor *w, tl_tensor *dx)
{
  emb_args a = {.spec = s, .a = g, .b = x, .c = w, .o1 = dx};
  emu_check c = margin_check(true, true, s->C);
  return deferred(&c, t, multi_backward_run, &a);
}
static tl_status multilabel_run(const emb_args *a, const tl_tensor *t)
{
  return tl_cpu_multilabel_margin(a->spec, a->a, t, a->o1, a->o2);
}
static tl_status multilabel(const tl_margin_spec *s, const tl_tensor *x, const tl_tensor *t,
                            tl_tensor *out, tl_tensor *is)
{
  emb_args a = {.spec = s, .a = x, .o1 = out, .o2 = is};
  emu_check c = margin_check(false, false, s->C);
  return deferred(&c, t, multilabel_run, &a);
}
static tl_status multilabel_backward_run(const emb_args *a, const tl_tensor *t)
{
  return tl_cpu_multilabel_margin_backward(a->spec, a->a, a->b, t, a->c, a->o1);
}
static tl_status multilabel_backward(const tl_margin_spec *s, const tl_tensor *g, const tl_tensor *x,
                                     const tl_tensor *t, const tl_tensor *is, tl_tensor *dx)
{
  emb_args a = {.spec = s, .a = g, .b = x, .c = is, .o1 = dx};
  emu_check c = margin_check(false, true, s->C);
  return deferred(&c, t, multilabel_backward_run, &a);
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
