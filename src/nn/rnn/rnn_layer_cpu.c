/* rnn_layer_cpu.c - one direction of one recurrent layer over a whole
 * sequence on the CPU (tl_rnn.h has the layout and legend).
 *
 * Forward: GI = x W_ih^T, one GEMM over the rows of 64 steps at a time
 * (GI_STEPS); per step t
 * (n = batch_sizes[t] rows, in order or reversed) HG = h[:n] W_hh^T (LSTM:
 * added into GI's rows, after b_ih + b_hh) and the fused cell rows
 * (rnn_cpu.c), which add the other modes' biases and keep what backward
 * reads in the workspace; with a projection h = (o tanh c) W_hr^T is a
 * second GEMM per step.
 * Backward runs the steps the other way: per step the cell's backward rows
 * give the pre-activation gates' gradient (kept for all rows) and one GEMM
 * the previous hidden state's, dh[:n] = dG W_hh.  Then x's, W_ih's, W_hh's
 * and W_hr's gradients are one GEMM each over all R rows, the biases'
 * column sums.
 * Threads: only the pool's (BLAS on one thread for the whole call); each
 * step is one pool job over blocks of hidden units, each GEMM over all rows
 * one job over blocks of rows (below).
 * Every tensor is contiguous in the work dtype (float or double); the
 * states are (N, *) buffers whose first n rows step t reads and writes
 * (the forward reads h from the step before's output rows instead, below). */
#include <stdlib.h>
#include <string.h>

#include "ndcore/dispatch/tl_parallel.h"
#include "ndcore/linalg/tl_blas.h"
#include "ndcore/linalg/tl_linalg.h"
#include "nn/rnn/tl_rnn.h"
#include "nn/tl_nn_work.h"


/* The sizes of a call, in elements. */
typedef struct {
  const tl_rnn_layer_call *c;
  tl_rnn_sizes d;
} layer;

static void *at(const layer *l, const void *base, int64_t elements)
{
  return (char *)base + (size_t)elements * l->d.es;
}

/* dst rows (ld_dst apart) = src rows (ld_src apart), n rows of `cols` */
static void copy_rows(const layer *l, void *dst, int64_t ld_dst, const void *src, int64_t ld_src,
                      int64_t n, int64_t cols)
{
  for (int64_t r = 0; r < n; r++)
    memcpy(at(l, dst, r * ld_dst), at(l, src, r * ld_src), (size_t)cols * l->d.es);
}

/* dst (n, cols, contiguous) += src (contiguous) */
static void add_into(const layer *l, void *dst, const void *src, int64_t count)
{
  if (l->d.f64)
    for (int64_t i = 0; i < count; i++)
      ((double *)dst)[i] += ((const double *)src)[i];
  else
    for (int64_t i = 0; i < count; i++)
      ((float *)dst)[i] += ((const float *)src)[i];
}

/* dst rows (ld_dst apart) += the row src, n rows of `cols` */
static void add_row(const layer *l, void *dst, int64_t ld_dst, const void *src, int64_t n,
                    int64_t cols)
{
  for (int64_t r = 0; r < n; r++)
    if (l->d.f64)
      for (int64_t i = 0; i < cols; i++)
        ((double *)dst)[r * ld_dst + i] += ((const double *)src)[i];
    else
      for (int64_t i = 0; i < cols; i++)
        ((float *)dst)[r * ld_dst + i] += ((const float *)src)[i];
}

static tl_status setup(layer *l, const tl_rnn_layer_call *c)
{
  *l = (layer){.c = c};
  return tl_rnn_sizes_init(&l->d, c);
}

/* Scratch of `count` elements (at least one), or NULL with the error set.
 * Not zeroed: every scratch is written before it is read (and malloc
 * reuses freed heap blocks without the memset calloc would need). */
static void *scratch(const layer *l, int64_t count)
{
  void *p = malloc((size_t)(count > 0 ? count : 1) * l->d.es);
  if (!p)
    tl_error_set(TL_ERR_MEMORY, "_rnn_layer: out of memory");
  return p;
}

static const void *data(const tl_tensor *t) { return t ? tl_tensor_data(t) : NULL; }

/* dst (cols, rows) = src (rows, cols) transposed, both contiguous */
static void transpose(const layer *l, void *dst, const void *src, int64_t rows, int64_t cols)
{
  if (rows <= 0 || cols <= 0) /* BLAS would reject the leading dimension */
    return;
  if (l->d.f64)
    TL_BLAS(cblas_domatcopy)(CblasRowMajor, CblasTrans, (int)rows, (int)cols, 1.0, src,
                             (int)cols, dst, (int)rows);
  else
    TL_BLAS(cblas_somatcopy)(CblasRowMajor, CblasTrans, (int)rows, (int)cols, 1.0f, src,
                             (int)cols, dst, (int)rows);
}

/* row (G) = b_ih + b_hh (either may be NULL: zeros) */
#define BIAS_SUM(T)                                                                               \
  for (int64_t j = 0; j < l->d.G; j++)                                                            \
    ((T *)row)[j] = (bi ? ((const T *)bi)[j] : 0) + (bh ? ((const T *)bh)[j] : 0);
static void bias_sum(const layer *l, void *row, const void *bi, const void *bh)
{
  if (l->d.f64) {
    BIAS_SUM(double)
  } else {
    BIAS_SUM(float)
  }
}
#undef BIAS_SUM

/* ---- the large products ---------------------------------------------------------------
 * The products over all R rows (dx, dW_ih, dW_hh, dW_hr backward) run as
 * blocks of C's rows across the thread pool, each one
 * single-threaded BLAS call, like the steps below: so no BLAS thread is ever
 * woken during a layer.  BLAS's threads, once woken, keep spinning for tens
 * of milliseconds after their product, and on 2 cores that took the core
 * the pool's second thread needed for the steps (profile at 2 threads: a
 * third of the samples in BLAS's idle worker and its waiting caller). */

typedef struct {
  const layer *l;
  bool ta, tb;
  int64_t M, N, K, lda, ldb, ldc, rows; /* rows: of C per block */
  const void *A, *B;
  void *C;
} gemm_job;

static void gemm_rows(void *ctx, int64_t b0, int64_t b1, int worker)
{
  (void)worker;
  const gemm_job *g = ctx;
  int64_t r0 = b0 * g->rows, r1 = b1 * g->rows < g->M ? b1 * g->rows : g->M;
  /* A's rows r0.. are its columns when A is given transposed */
  tl_nn_gemm(g->l->d.f64, g->ta, g->tb, r1 - r0, g->N, g->K, at(g->l, g->A, g->ta ? r0 : r0 * g->lda),
             g->lda, g->B, g->ldb, 0.0, at(g->l, g->C, r0 * g->ldc), g->ldc);
}

/* C (M, N) = op(A) op(B), as tl_nn_gemm, in blocks of rows: about two per
 * thread (each packs B again), multiples of 16 rows. */
static void pool_gemm(const layer *l, bool ta, bool tb, int64_t M, int64_t N, int64_t K,
                      const void *A, int64_t lda, const void *B, int64_t ldb, void *C, int64_t ldc)
{
  int64_t parts = 2 * (int64_t)tl_parallel_get_threads();
  int64_t rows = (M + parts - 1) / parts;
  rows = rows > 0 ? (rows + 15) / 16 * 16 : 1;
  gemm_job g = {.l = l, .ta = ta, .tb = tb, .M = M, .N = N, .K = K, .lda = lda, .ldb = ldb,
                .ldc = ldc, .rows = rows, .A = A, .B = B, .C = C};
  if (M <= 0 || N <= 0)
    return;
  tl_parallel_for((M + rows - 1) / rows, 1, gemm_rows, &g);
}

/* BLAS on one thread for the whole layer call (see above) */
static bool blas_single_begin(void)
{
  bool single = tl_linalg_blas_user_threads() > 1;
  if (single)
    tl_linalg_blas_single_begin();
  return single;
}

static void blas_single_end(bool single)
{
  if (single)
    tl_linalg_blas_single_end();
}

/* ---- a step split by units -----------------------------------------------------------
 * Everything a step does for hidden unit j reads and writes column j of its
 * gate blocks, of the states and of the rows it keeps, except the GEMMs,
 * which read the whole previous state (forward) or the whole gate gradient
 * (backward).  So a step is split into blocks of units across the thread
 * pool, each block doing its own columns of the step's GEMM (one
 * single-threaded BLAS call per gate) and then its cell: one hand-off per
 * step instead of BLAS's threads for the GEMM and the pool's for the cell,
 * which on 2 cores fought each other (a product of 0.2 ms took several ms
 * when a BLAS thread had lost its core).  The states the GEMMs read are
 * written only after the step, by the caller. */

enum { MAX_BLOCKS = 1024 };
/* The forward's input product runs over this many steps' rows at a time:
 * large GEMMs, and GI's scratch bounded (64 x N x G) on long sequences. */
enum { GI_STEPS = 64 };

typedef struct step_job step_job;
struct step_job {
  const layer *l;
  int64_t t, prev;   /* the step; backward: the step whose dh GEMM comes first (-1: none) */
  int64_t units;     /* per block */
  int64_t blocks;    /* per step */
  int threads;
  void (*block)(const step_job *j, int64_t j0, int64_t j1); /* units [j0, j1) of a step */
  char taken[MAX_BLOCKS]; /* this step's blocks already claimed (atomic) */
  void *gi, *hg, *h, *c, *dhy, *tmp, *tmp2; /* forward: gi holds GI's rows from gi_row on */
  int64_t gi_row;
  /* forward: W_hh transposed, (P, G); the LSTM's b_ih + b_hh (G), or NULL */
  const void *wht, *bias;
};

/* Forward: C[:n, every gate block's columns j0..j1) (+)= A (n, K) times
 * those columns of w (K, G), a weight transposed; backward: C[:n, j0..j1) =
 * A (n, G) times w's columns j0..j1 (w (G, ldc): C's width).  All units:
 * one call.  Neither operand is transposed, so that these products of few
 * rows run as tiles BLAS does not pack (tl_linalg_gemm_tiles: a third
 * faster than the packed call; transposed, the tiles measured no gain). */
static void step_gemm(const layer *l, bool forward, int64_t n, int64_t j0, int64_t j1,
                      const void *A, int64_t K, const void *w, double beta, void *C, int64_t ldc)
{
  int64_t H = l->d.H, G = l->d.G;
  if (forward && (j0 > 0 || j1 < H)) {
    for (int64_t q = 0; q < G / H; q++)
      tl_nn_gemm(l->d.f64, false, false, n, j1 - j0, K, A, K, at(l, w, q * H + j0), G, beta,
                 at(l, C, q * H + j0), ldc);
  } else if (forward) {
    tl_nn_gemm(l->d.f64, false, false, n, G, K, A, K, w, G, beta, C, ldc);
  } else {
    tl_nn_gemm(l->d.f64, false, false, n, j1 - j0, G, A, G, at(l, w, j0), ldc, beta,
               at(l, C, j0), ldc);
  }
}

/* ---- forward ------------------------------------------------------------------------- */

/* Step t's n rows, units [j0, j1): the hidden product, then the cell from
 * the input gates git (step t's rows of GI, x_t W_ih^T), the hidden state
 * h and cell state c (N, *), writing its outputs' rows and the new cell
 * state; the caller copies the outputs to h after all blocks.
 * The input product is not run here per step: a step's two products then
 * read W_ih^T and W_hh^T, two megabytes at hidden size 256, which is a
 * core's whole L2, and both came from L3 at every step (measured at 256:
 * 50 steps' products 40% slower alternating the two weights than with
 * one).  Done first over many steps' rows, it is one large GEMM, and each
 * step's product keeps its weight in cache. */
static void step_forward(const layer *l, int64_t t, int64_t j0, int64_t j1, const step_job *j)
{
  const tl_rnn_layer_call *k = l->c;
  int64_t n = k->batch_sizes[t], H = l->d.H, P = l->d.P, G = l->d.G, W = l->d.W, m = j1 - j0;
  void *ws = at(l, tl_tensor_data(k->workspace), l->d.off[t] * W);
  void *out = at(l, tl_tensor_data(k->output), l->d.off[t] * P);
  void *git = at(l, j->gi, (l->d.off[t] - j->gi_row) * G), *hg = j->hg, *c = j->c;
  const void *h = j->h;
  bool lstm = k->mode == TL_RNN_MODE_LSTM;
  /* LSTM: GI = b_ih + b_hh + x W_ih^T + h W_hh^T, which the cell reads as
   * it is; the other modes keep HG apart and the cell adds their biases. */
  if (j->bias)
    for (int64_t q = 0; q < G / H; q++)
      add_row(l, at(l, git, q * H + j0), G, at(l, j->bias, q * H + j0), n, m);
  step_gemm(l, true, n, j0, j1, h, P, j->wht, lstm ? 1.0 : 0.0, lstm ? git : hg, G);
  tl_rnn_rows rows = {.n = n, .h = H, .j0 = j0, .m = m, .f64 = l->d.f64,
                      .in = {git, hg, NULL, data(k->b_ih), data(k->b_hh)},
                      .ld_in = {G, G}};
  switch (k->mode) {
  case TL_RNN_MODE_LSTM: { /* with a projection: one block, all units */
    rows.in[1] = rows.in[3] = rows.in[4] = NULL;
    void *hcell = k->w_hr ? at(l, ws, 6 * H + P) : out;
    copy_rows(l, at(l, ws, 4 * H + j0), W, at(l, c, j0), H, n, m);
    if (k->w_hr)
      copy_rows(l, at(l, ws, l->d.hprev), W, h, P, n, P);
    else
      copy_rows(l, at(l, ws, l->d.hprev + j0), W, at(l, h, j0), P, n, m);
    rows.kind = TL_RNN_LSTM;
    rows.in[2] = at(l, ws, 4 * H);
    rows.ld_in[2] = W;
    rows.out[0] = hcell;
    rows.ld_out[0] = k->w_hr ? W : P;
    rows.out[1] = at(l, ws, 5 * H);
    rows.out[2] = ws;
    rows.ld_out[1] = rows.ld_out[2] = W;
    tl_cpu_rnn_rows(&rows);
    if (k->w_hr)
      tl_nn_gemm(l->d.f64, false, true, n, P, H, hcell, W, tl_tensor_data(k->w_hr), H, 0.0, out, P);
    copy_rows(l, at(l, c, j0), H, at(l, ws, 5 * H + j0), W, n, m);
    break;
  }
  case TL_RNN_MODE_GRU: /* the cell keeps h_prev itself */
    rows.kind = TL_RNN_GRU;
    rows.in[2] = h;
    rows.ld_in[2] = H;
    rows.out[0] = out;
    rows.out[1] = ws;
    rows.ld_out[0] = H;
    rows.ld_out[1] = W;
    tl_cpu_rnn_rows(&rows);
    break;
  default:
    copy_rows(l, at(l, ws, l->d.hprev + j0), W, at(l, h, j0), H, n, m);
    rows.kind = k->mode == TL_RNN_MODE_RELU ? TL_RNN_RELU : TL_RNN_TANH;
    rows.out[0] = out;
    rows.ld_out[0] = H;
    tl_cpu_rnn_rows(&rows);
    copy_rows(l, at(l, ws, j0), W, at(l, out, j0), H, n, m);
    break;
  }
}

static void forward_block(const step_job *j, int64_t j0, int64_t j1)
{
  step_forward(j->l, j->t, j0, j1, j);
}

/* Units per block of a step: one block when the pool has one thread (or
 * with a projection, whose GEMM needs every unit), else blocks of a
 * multiple of 16 units, about two per thread so that a thread that has
 * lost its core holds up little. */
static void plan_blocks(step_job *j)
{
  const layer *l = j->l;
  j->threads = tl_parallel_get_threads();
  if (j->threads == 1 || l->c->w_hr || l->d.H < 32) {
    j->units = l->d.H > 0 ? l->d.H : 1;
  } else {
    j->units = (l->d.H + 2 * j->threads - 1) / (2 * j->threads);
    j->units = (j->units + 15) / 16 * 16;
  }
  j->blocks = (l->d.H + j->units - 1) / j->units;
  j->blocks = j->blocks > 0 ? j->blocks : 1;
  if (j->blocks > MAX_BLOCKS) { /* thousands of threads: blocks of more units */
    j->units = (l->d.H + MAX_BLOCKS - 1) / MAX_BLOCKS;
    j->blocks = (l->d.H + j->units - 1) / j->units;
  }
}

/* One thread's visit to a step: it first takes its own blocks, the same
 * ones at every step, so that their columns of the weights stay in its
 * core's cache (a block's share of W_ih and W_hh is a quarter of a megabyte
 * at hidden size 256), then any block a thread that has not come yet left. */
static void visit_blocks(void *ctx, int64_t b0, int64_t b1, int worker)
{
  (void)b0, (void)b1;
  step_job *j = ctx;
  int64_t own = (j->blocks + j->threads - 1) / j->threads;
  for (int64_t i = 0; i < j->blocks; i++) {
    int64_t b = (worker * own + i) % j->blocks;
    if (__atomic_exchange_n(&j->taken[b], 1, __ATOMIC_ACQ_REL))
      continue;
    int64_t j1 = (b + 1) * j->units < j->l->d.H ? (b + 1) * j->units : j->l->d.H;
    j->block(j, b * j->units, j1);
  }
}

/* Run a step's blocks, one visit per thread (BLAS on one thread inside
 * them: the caller's tl_linalg_blas_single_begin). */
static void run_blocks(step_job *j)
{
  memset(j->taken, 0, (size_t)j->blocks);
  tl_parallel_for(j->threads, 1, visit_blocks, j);
}

tl_status tl_cpu_rnn_layer(const tl_rnn_layer_call *k)
{
  layer l;
  void *gi = NULL, *hg = NULL, *wht = NULL, *bias = NULL;
  tl_status status = setup(&l, k);
  if (status != TL_OK)
    return status;
  int64_t In = k->input, G = l.d.G, P = l.d.P;
  /* W_hh transposed once, (P, G), so that a step's product takes neither
   * operand transposed (step_gemm); the one large product reads W_ih as it
   * lies. */
  bool lstm_bias = k->mode == TL_RNN_MODE_LSTM && (k->b_ih || k->b_hh);
  int64_t R = l.d.off[k->steps], gi_rows = R < GI_STEPS * l.d.N ? R : GI_STEPS * l.d.N;
  if (!(gi = scratch(&l, gi_rows * G)) || !(hg = scratch(&l, l.d.N * G)) ||
      !(wht = scratch(&l, P * G)) ||
      (lstm_bias && !(bias = scratch(&l, G)))) {
    status = tl_error_status();
    goto fail;
  }
  transpose(&l, wht, tl_tensor_data(k->w_hh), G, P);
  if (lstm_bias)
    bias_sum(&l, bias, data(k->b_ih), data(k->b_hh));
  /* the states live in hy, cy from the start */
  void *h = tl_tensor_data(k->hy), *c = k->cy ? tl_tensor_data(k->cy) : NULL;
  memcpy(h, tl_tensor_data(k->hx), (size_t)(l.d.N * P) * l.d.es);
  if (c)
    memcpy(c, tl_tensor_data(k->cx), (size_t)(l.d.N * l.d.H) * l.d.es);
  bool single = blas_single_begin();
  step_job job = {.l = &l, .block = forward_block, .gi = gi, .hg = hg, .h = h, .c = c,
                  .wht = wht, .bias = bias};
  plan_blocks(&job);
  /* A step reads the hidden state from the step before's output rows, where
   * both threads wrote their units: a copy to h (by one thread, read back by
   * all) cost a serial pass and twice the traffic between cores.  Only a
   * step with more rows than the one before (packed sequences, reversed:
   * the new rows' state is still hx's) gathers h first. */
  const void *out = tl_tensor_data(k->output);
  for (int64_t s = 0; s < k->steps; s++) {
    int64_t prev = job.t;
    job.t = k->reverse ? k->steps - 1 - s : s;
    if (s % GI_STEPS == 0) { /* the next GI_STEPS steps' rows, in order of t */
      int64_t t0 = k->reverse ? (job.t + 1 > GI_STEPS ? job.t + 1 - GI_STEPS : 0) : job.t;
      int64_t t1 = k->reverse ? job.t + 1 : (job.t + GI_STEPS < k->steps ? job.t + GI_STEPS
                                                                           : k->steps);
      job.gi_row = l.d.off[t0];
      pool_gemm(&l, false, true, l.d.off[t1] - l.d.off[t0], G, In,
                at(&l, tl_tensor_data(k->x), l.d.off[t0] * In), In, tl_tensor_data(k->w_ih), In,
                gi, G);
    }
    if (s > 0 && k->batch_sizes[job.t] <= k->batch_sizes[prev]) {
      job.h = at(&l, out, l.d.off[prev] * P);
    } else if (s > 0) {
      copy_rows(&l, h, P, at(&l, out, l.d.off[prev] * P), P, k->batch_sizes[prev], P);
      job.h = h;
    }
    run_blocks(&job);
  }
  /* hy: each row's state after its last step, the rows no later step has */
  for (int64_t s = 0; s < k->steps; s++) {
    int64_t t = k->reverse ? k->steps - 1 - s : s, next = k->reverse ? t - 1 : t + 1;
    int64_t from = s + 1 < k->steps ? k->batch_sizes[next] : 0, n = k->batch_sizes[t];
    if (from < n)
      copy_rows(&l, at(&l, h, from * P), P, at(&l, out, (l.d.off[t] + from) * P), P, n - from,
                P);
  }
  blas_single_end(single);
fail:
  free(gi);
  free(hg);
  free(wht);
  free(bias);
  free(l.d.off);
  return status;
}

/* ---- backward ------------------------------------------------------------------------ */

/* Units [j0, j1) of step t's n rows: dh, dc (N, *) hold the gradients of
 * the step's new states (plus the output's gradient, added here); on return
 * (after the next call's GEMM, see below) those of the states it started
 * from.  The pre-activation gradients go to dgi, dgh (R, G; the same for all
 * but GRU), h's total gradient to dhy (R, P, with a projection).  tmp, tmp2:
 * (N, H) scratch.
 * The GEMM that carries the gate gradients to h_prev's, dh = dG W_hh, needs
 * all of dG: a block first does its columns of that GEMM for the step
 * before (`prev`, -1: none), then the cell of step t (-1: none). */
static void step_backward(const layer *l, int64_t prev, int64_t t, int64_t j0, int64_t j1,
                          void *dgi, void *dgh, void *dhy, void *dh, void *dc, void *tmp,
                          void *tmp2)
{
  const tl_rnn_layer_call *k = l->c;
  int64_t H = l->d.H, P = l->d.P, G = l->d.G, W = l->d.W, m = j1 - j0;
  const void *w_hh = tl_tensor_data(k->w_hh);
  bool gru = k->mode == TL_RNN_MODE_GRU;
  if (prev >= 0) /* GRU: dh holds the cell's direct part (z dh) already */
    step_gemm(l, false, k->batch_sizes[prev], k->w_hr ? 0 : j0, k->w_hr ? P : j1,
              at(l, gru ? dgh : dgi, l->d.off[prev] * G), G, w_hh, gru ? 1.0 : 0.0, dh, P);
  if (t < 0)
    return;
  int64_t n = k->batch_sizes[t];
  const void *ws = at(l, tl_tensor_data(k->saved), l->d.off[t] * W);
  void *gi = at(l, dgi, l->d.off[t] * G), *gh = at(l, dgh, l->d.off[t] * G);
  if (k->g_output) /* P == H without a projection: a block's columns; else one block */
    for (int64_t r = 0; r < n; r++)
      add_into(l, at(l, dh, r * P + (k->w_hr ? 0 : j0)),
               at(l, tl_tensor_data(k->g_output), (l->d.off[t] + r) * P + (k->w_hr ? 0 : j0)),
               k->w_hr ? P : m);
  tl_rnn_rows rows = {.n = n, .h = H, .j0 = j0, .m = m, .f64 = l->d.f64, .in = {dh},
                      .ld_in = {P}, .out = {gi}, .ld_out = {G}};
  switch (k->mode) {
  case TL_RNN_MODE_LSTM:
    if (k->w_hr) { /* h = hcell W_hr^T: hcell's gradient dh W_hr */
      copy_rows(l, at(l, dhy, l->d.off[t] * P), P, dh, P, n, P);
      tl_nn_gemm(l->d.f64, false, false, n, H, P, dh, P, tl_tensor_data(k->w_hr), H, 0.0, tmp, H);
      rows.in[0] = tmp;
      rows.ld_in[0] = H;
    }
    rows.kind = TL_RNN_LSTM_BACKWARD;
    rows.in[1] = dc;
    rows.in[2] = at(l, ws, 4 * H);
    rows.in[3] = at(l, ws, 5 * H);
    rows.in[4] = ws;
    rows.ld_in[1] = H;
    rows.ld_in[2] = rows.ld_in[3] = rows.ld_in[4] = W;
    rows.out[1] = tmp2;
    rows.ld_out[1] = H;
    tl_cpu_rnn_rows(&rows);
    copy_rows(l, at(l, dc, j0), H, at(l, tmp2, j0), H, n, m);
    break;
  case TL_RNN_MODE_GRU: /* h_prev's gradient: z dh directly, plus through W_hh */
    rows.kind = TL_RNN_GRU_BACKWARD;
    rows.in[1] = ws;
    rows.ld_in[1] = W;
    rows.out[1] = gh;
    rows.out[2] = tmp;
    rows.ld_out[1] = G;
    rows.ld_out[2] = H;
    tl_cpu_rnn_rows(&rows);
    copy_rows(l, at(l, dh, j0), H, at(l, tmp, j0), H, n, m);
    break;
  default:
    rows.kind = k->mode == TL_RNN_MODE_RELU ? TL_RNN_RELU_BACKWARD : TL_RNN_TANH_BACKWARD;
    rows.in[1] = ws;
    rows.ld_in[1] = W;
    tl_cpu_rnn_rows(&rows);
    break;
  }
}

static void backward_block(const step_job *j, int64_t j0, int64_t j1)
{
  step_backward(j->l, j->prev, j->t, j0, j1, j->gi, j->hg, j->dhy, j->h, j->c, j->tmp, j->tmp2);
}

tl_status tl_cpu_rnn_layer_backward(const tl_rnn_layer_call *k)
{
  layer l;
  void *dgi = NULL, *dgh = NULL, *dhy = NULL, *tmp = NULL, *tmp2 = NULL;
  tl_status status = setup(&l, k);
  if (status != TL_OK)
    return status;
  int64_t R = k->rows, In = k->input, H = l.d.H, P = l.d.P, G = l.d.G, N = l.d.N;
  bool gru = k->mode == TL_RNN_MODE_GRU;
  if (!(dgi = scratch(&l, R * G)) || (gru && !(dgh = scratch(&l, R * G))) ||
      (k->w_hr && !(dhy = scratch(&l, R * P))) || !(tmp = scratch(&l, N * H)) ||
      !(tmp2 = scratch(&l, N * H))) {
    status = tl_error_status();
    goto fail;
  }
  /* the running gradients live in d_hx, d_cx */
  void *dh = tl_tensor_data(k->d_hx), *dc = k->d_cx ? tl_tensor_data(k->d_cx) : NULL;
  if (k->g_hy)
    memcpy(dh, tl_tensor_data(k->g_hy), (size_t)(N * P) * l.d.es);
  else
    memset(dh, 0, (size_t)(N * P) * l.d.es);
  if (dc && k->g_cy)
    memcpy(dc, tl_tensor_data(k->g_cy), (size_t)(N * H) * l.d.es);
  else if (dc)
    memset(dc, 0, (size_t)(N * H) * l.d.es);
  step_job job = {.l = &l, .prev = -1, .block = backward_block, .gi = dgi,
                  .hg = gru ? dgh : dgi, .h = dh, .c = dc, .dhy = dhy, .tmp = tmp, .tmp2 = tmp2};
  plan_blocks(&job);
  bool single = blas_single_begin();
  for (int64_t s = 0; s <= k->steps; s++) { /* the last round: the first step's GEMM */
    job.t = s == k->steps ? -1 : k->reverse ? s : k->steps - 1 - s;
    run_blocks(&job);
    job.prev = job.t;
  }
  const void *gh = gru ? dgh : dgi, *ws = tl_tensor_data(k->saved);
  if (k->d_x)
    pool_gemm(&l, false, false, R, In, G, dgi, G, tl_tensor_data(k->w_ih), In,
              tl_tensor_data(k->d_x), In);
  pool_gemm(&l, true, false, G, In, R, dgi, G, tl_tensor_data(k->x), In,
            tl_tensor_data(k->d_w_ih), In);
  pool_gemm(&l, true, false, G, P, R, gh, G, at(&l, ws, l.d.hprev), l.d.W,
            tl_tensor_data(k->d_w_hh), P);
  if (k->d_w_hr)
    pool_gemm(&l, true, false, P, H, R, dhy, P, at(&l, ws, 6 * H + P), l.d.W,
              tl_tensor_data(k->d_w_hr), H);
  if (k->d_b_ih)
    tl_cpu_rnn_colsum(l.d.f64, dgi, R, G, G, tl_tensor_data(k->d_b_ih));
  /* all but GRU: both biases have the same gradient, summed once */
  if (k->d_b_hh && k->d_b_ih && gh == dgi)
    memcpy(tl_tensor_data(k->d_b_hh), tl_tensor_data(k->d_b_ih), (size_t)G * l.d.es);
  else if (k->d_b_hh)
    tl_cpu_rnn_colsum(l.d.f64, gh, R, G, G, tl_tensor_data(k->d_b_hh));
  blas_single_end(single);
fail:
  free(dgi);
  free(dgh);
  free(dhy);
  free(tmp);
  free(tmp2);
  free(l.d.off);
  return status;
}
