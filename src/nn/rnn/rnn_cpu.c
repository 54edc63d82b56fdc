/* rnn_cpu.c - the CPU's fused recurrent cells (tl_rnn.h).
 *
 * Every operand is contiguous in the work dtype (the entry point made it
 * so), so a batch row of each is one run of memory; rows are split across
 * the thread pool and each row is a handful of unit-stride loops over its H
 * (or G*H) elements.  Bias gradients are the column sums of the gate
 * gradients, done after the rows, split by columns.                      */
#include <math.h>
#include <stdlib.h>

#include "ndcore/dispatch/tl_parallel.h"
#include "ndcore/kernels/tl_vecmath.h"
#include "nn/rnn/tl_rnn.h"

/* Everything below inlines into the per-target clones of the row function
 * (TL_SIMD_CLONES), where the loops vectorise for that target. */
#define FORCE_INLINE static inline __attribute__((always_inline))


typedef struct {
  tl_rnn_rows rows;
  const void *zeros; /* h zeros: an absent gradient's row */
  /* colsum: the (n, cols) gradient, its rows ld apart, summed into sum_into */
  int64_t n, cols, ld;
  const void *sum_of;
  void *sum_into;
} cell_job;

/* Row r of in[k] / out[k]; a bias vector: each from the job's first unit
 * j0 on (every operand's gate blocks are h apart, unit j at j in each). */
#define ROW_IN(T, k)                                                                              \
  (job->rows.in[k] ? (const T *)job->rows.in[k] + r * job->rows.ld_in[k] + job->rows.j0 : NULL)
#define ROW_OUT(T, k) ((T *)job->rows.out[k] + r * job->rows.ld_out[k] + job->rows.j0)
#define VEC_IN(T, k) (job->rows.in[k] ? (const T *)job->rows.in[k] + job->rows.j0 : NULL)

/* ---- typed rows ---------------------------------------------------------------------
 * Written once per work type by TL_RNN_ROWS; a pointer argument that may be
 * NULL stands for zeros (an absent bias or gradient).  Each function does m
 * units of a row whose gate blocks are h apart (m < h: a block of units of
 * the layer loop's split step, the pointers at its first unit). */
TL_VECMATH_BEGIN
/* tanh from the sigmoid: tanh(x) = 2 sigmoid(2x) - 1 (absolute error ~1e-7,
 * which is float's own resolution around 1, and vectorisable). */
FORCE_INLINE float tanh_f32(float x) { return 2.0f * tl_sigmoidf(2.0f * x) - 1.0f; }
FORCE_INLINE double sigmoid_f64(double x) { return 1.0 / (1.0 + exp(-x)); }

#define TL_RNN_ROWS(row_fn, add_bias, lstm, lstm_bw, gru, gru_bw, plain, plain_bw, colsum, T, SIG, \
                    TANH)                                                                          \
  /* out's m units of `gates` blocks += b's when b is given */                                     \
  FORCE_INLINE void add_bias(T *restrict out, const T *restrict b, int gates, int64_t m,           \
                             int64_t h)                                                            \
  {                                                                                                \
    for (int q = 0; b && q < gates; q++)                                                           \
      _Pragma("omp simd") for (int64_t j = 0; j < m; j++) out[q * h + j] += b[q * h + j];          \
  }                                                                                                \
  /* hg NULL: ig already holds the whole pre-activation (the layer loop's    \
   * GEMM accumulated into it, biases included), read in place. */           \
  FORCE_INLINE void lstm(const T *restrict ig, const T *hg, const T *restrict cx,                  \
                   const T *bi, const T *bh, T *restrict hy, T *restrict cy,                       \
                   T *ws, int64_t m, int64_t h)                                                    \
  {                                                                                                \
    const T *pre = ig;                                                                             \
    if (hg) {                                                                                      \
      for (int q = 0; q < 4; q++)                                                                  \
        _Pragma("omp simd") for (int64_t j = 0; j < m; j++) ws[q * h + j] =                        \
          ig[q * h + j] + hg[q * h + j];                                                           \
      add_bias(ws, bi, 4, m, h);                                                                   \
      add_bias(ws, bh, 4, m, h);                                                                   \
      pre = ws;                                                                                    \
    }                                                                                              \
    /* pre may be ws: each j reads its four gates before writing them */                          \
    _Pragma("omp simd") for (int64_t j = 0; j < m; j++) {                                          \
      T i = SIG(pre[j]), f = SIG(pre[h + j]), g = TANH(pre[2 * h + j]), o = SIG(pre[3 * h + j]);   \
      T c = f * cx[j] + i * g;                                                                     \
      cy[j] = c;                                                                                   \
      hy[j] = o * TANH(c);                                                                         \
      ws[j] = i;                                                                                   \
      ws[h + j] = f;                                                                               \
      ws[2 * h + j] = g;                                                                           \
      ws[3 * h + j] = o;                                                                           \
    }                                                                                              \
  }                                                                                                \
  /* ghy, gcy: zeros when absent (the caller's zero row) */                                        \
  FORCE_INLINE void lstm_bw(const T *restrict ghy, const T *restrict gcy, const T *restrict cx,    \
                      const T *restrict cy, const T *restrict ws, T *restrict gg,                  \
                      T *restrict gcx, int64_t m, int64_t h)                                       \
  {                                                                                                \
    _Pragma("omp simd") for (int64_t j = 0; j < m; j++) {                                          \
      T i = ws[j], f = ws[h + j], g = ws[2 * h + j], o = ws[3 * h + j];                            \
      T tc = TANH(cy[j]), gh = ghy[j];                                                             \
      T gc = gcy[j] + gh * o * (1 - tc * tc);                                                      \
      gg[j] = gc * g * i * (1 - i);                                                                \
      gg[h + j] = gc * cx[j] * f * (1 - f);                                                        \
      gg[2 * h + j] = gc * i * (1 - g * g);                                                        \
      gg[3 * h + j] = gh * tc * o * (1 - o);                                                       \
      gcx[j] = gc * f;                                                                             \
    }                                                                                              \
  }                                                                                                \
  /* ws as scratch first: r z pre-activations, ig_n + b_in, (unused), hn */                        \
  FORCE_INLINE void gru(const T *restrict ig, const T *restrict hg, const T *restrict hx,          \
                  const T *bi, const T *bh, T *restrict hy, T *restrict ws, int64_t m, int64_t h)  \
  {                                                                                                \
    for (int q = 0; q < 2; q++)                                                                    \
      _Pragma("omp simd") for (int64_t j = 0; j < m; j++) ws[q * h + j] =                          \
        ig[q * h + j] + hg[q * h + j];                                                             \
    _Pragma("omp simd") for (int64_t j = 0; j < m; j++) {                                          \
      ws[2 * h + j] = ig[2 * h + j];                                                               \
      ws[4 * h + j] = hg[2 * h + j];                                                               \
    }                                                                                              \
    add_bias(ws, bi, 3, m, h);                                                                     \
    add_bias(ws, bh, 2, m, h);                                                                     \
    add_bias(ws + 4 * h, bh ? bh + 2 * h : NULL, 1, m, h);                                         \
    _Pragma("omp simd") for (int64_t j = 0; j < m; j++) {                                          \
      T r = SIG(ws[j]), z = SIG(ws[h + j]), hn = ws[4 * h + j];                                    \
      T n = TANH(ws[2 * h + j] + r * hn);                                                          \
      hy[j] = n + z * (hx[j] - n);                                                                 \
      ws[j] = r;                                                                                   \
      ws[h + j] = z;                                                                               \
      ws[2 * h + j] = n;                                                                           \
      ws[3 * h + j] = hx[j];                                                                       \
    }                                                                                              \
  }                                                                                                \
  FORCE_INLINE void gru_bw(const T *restrict ghy, const T *restrict ws, T *restrict gig,           \
                     T *restrict ghg, T *restrict ghx, int64_t m, int64_t h)                       \
  {                                                                                                \
    _Pragma("omp simd") for (int64_t j = 0; j < m; j++) {                                          \
      T r = ws[j], z = ws[h + j], n = ws[2 * h + j], hx = ws[3 * h + j], hn = ws[4 * h + j];       \
      T g = ghy[j];                                                                                \
      T gn = g * (1 - z) * (1 - n * n);                                                            \
      T gz = g * (hx - n) * z * (1 - z);                                                           \
      T gr = gn * hn * r * (1 - r);                                                                \
      gig[j] = ghg[j] = gr;                                                                        \
      gig[h + j] = ghg[h + j] = gz;                                                                \
      gig[2 * h + j] = gn;                                                                         \
      ghg[2 * h + j] = gn * r;                                                                     \
      ghx[j] = g * z;                                                                              \
    }                                                                                              \
  }                                                                                                \
  FORCE_INLINE void plain(const T *restrict ig, const T *restrict hg, const T *bi, const T *bh,    \
                    T *restrict hy, int64_t m, int64_t h, bool relu)                               \
  {                                                                                                \
    _Pragma("omp simd") for (int64_t j = 0; j < m; j++) hy[j] = ig[j] + hg[j];                     \
    add_bias(hy, bi, 1, m, h);                                                                     \
    add_bias(hy, bh, 1, m, h);                                                                     \
    if (relu)                                                                                      \
      _Pragma("omp simd") for (int64_t j = 0; j < m; j++) hy[j] = hy[j] > 0 ? hy[j] : 0;           \
    else                                                                                           \
      _Pragma("omp simd") for (int64_t j = 0; j < m; j++) hy[j] = TANH(hy[j]);                     \
  }                                                                                                \
  /* the pre-activation's gradient from hy's: tanh' = 1 - hy^2, relu' = [hy > 0] */                \
  FORCE_INLINE void plain_bw(const T *restrict ghy, const T *restrict hy, T *restrict gp,          \
                       int64_t m, bool relu)                                                       \
  {                                                                                                \
    if (relu)                                                                                      \
      _Pragma("omp simd") for (int64_t j = 0; j < m; j++) gp[j] = hy[j] > 0 ? ghy[j] : 0;          \
    else                                                                                           \
      _Pragma("omp simd") for (int64_t j = 0; j < m; j++) gp[j] = ghy[j] * (1 - hy[j] * hy[j]);    \
  }                                                                                                \
  static void colsum(const T *g, T *restrict out, int64_t n, int64_t ld, int64_t c0,               \
                     int64_t c1)                                                                   \
  {                                                                                                \
    for (int64_t c = c0; c < c1; c++)                                                              \
      out[c] = 0;                                                                                  \
    for (int64_t r = 0; r < n; r++)                                                                \
      _Pragma("omp simd") for (int64_t c = c0; c < c1; c++) out[c] += g[r * ld + c];               \
  }                                                                                                \
  /* batch row r of the job */                                                                     \
  TL_SIMD_CLONES static void row_fn(const cell_job *job, int64_t r)                                \
  {                                                                                                \
    int64_t h = job->rows.h, m = job->rows.m ? job->rows.m : h;                                   \
    switch (job->rows.kind) {                                                                      \
    case TL_RNN_LSTM:                                                                              \
      lstm(ROW_IN(T, 0), ROW_IN(T, 1), ROW_IN(T, 2), VEC_IN(T, 3), VEC_IN(T, 4),                   \
           ROW_OUT(T, 0), ROW_OUT(T, 1), ROW_OUT(T, 2), m, h);                                     \
      break;                                                                                       \
    case TL_RNN_LSTM_BACKWARD:                                                                     \
      lstm_bw(job->rows.in[0] ? ROW_IN(T, 0) : job->zeros,                                         \
              job->rows.in[1] ? ROW_IN(T, 1) : job->zeros, ROW_IN(T, 2), ROW_IN(T, 3),             \
              ROW_IN(T, 4), ROW_OUT(T, 0), ROW_OUT(T, 1), m, h);                                   \
      break;                                                                                       \
    case TL_RNN_GRU:                                                                               \
      gru(ROW_IN(T, 0), ROW_IN(T, 1), ROW_IN(T, 2), VEC_IN(T, 3), VEC_IN(T, 4),                    \
          ROW_OUT(T, 0), ROW_OUT(T, 1), m, h);                                                     \
      break;                                                                                       \
    case TL_RNN_GRU_BACKWARD:                                                                      \
      gru_bw(ROW_IN(T, 0), ROW_IN(T, 1), ROW_OUT(T, 0), ROW_OUT(T, 1), ROW_OUT(T, 2), m, h);       \
      break;                                                                                       \
    case TL_RNN_TANH:                                                                              \
    case TL_RNN_RELU:                                                                              \
      plain(ROW_IN(T, 0), ROW_IN(T, 1), VEC_IN(T, 3), VEC_IN(T, 4), ROW_OUT(T, 0), m, h,           \
            job->rows.kind == TL_RNN_RELU);                                                        \
      break;                                                                                       \
    case TL_RNN_TANH_BACKWARD:                                                                     \
    case TL_RNN_RELU_BACKWARD:                                                                     \
      plain_bw(ROW_IN(T, 0), ROW_IN(T, 1), ROW_OUT(T, 0), m,                                       \
               job->rows.kind == TL_RNN_RELU_BACKWARD);                                            \
      break;                                                                                       \
    }                                                                                              \
  }
TL_RNN_ROWS(cell_rows_f32, add_bias_f32, lstm_f32, lstm_bw_f32, gru_f32, gru_bw_f32, plain_f32,
            plain_bw_f32, colsum_f32, float, tl_sigmoidf, tanh_f32)
TL_RNN_ROWS(cell_rows_f64, add_bias_f64, lstm_f64, lstm_bw_f64, gru_f64, gru_bw_f64, plain_f64,
            plain_bw_f64, colsum_f64, double, sigmoid_f64, tanh)
TL_VECMATH_END

static void cell_range(void *ctx, int64_t begin, int64_t end, int worker)
{
  (void)worker;
  const cell_job *job = ctx;
  for (int64_t r = begin; r < end; r++) {
    if (job->rows.f64)
      cell_rows_f64(job, r);
    else
      cell_rows_f32(job, r);
  }
}

TL_SIMD_CLONES
static void colsum_range(void *ctx, int64_t begin, int64_t end, int worker)
{
  (void)worker;
  const cell_job *job = ctx;
  if (job->rows.f64)
    colsum_f64(job->sum_of, job->sum_into, job->n, job->ld, begin, end);
  else
    colsum_f32(job->sum_of, job->sum_into, job->n, job->ld, begin, end);
}

void tl_cpu_rnn_colsum(bool f64, const void *g, int64_t n, int64_t cols, int64_t ld, void *out)
{
  cell_job job = {.rows = {.f64 = f64}, .n = n, .cols = cols, .ld = ld, .sum_of = g,
                  .sum_into = out};
  tl_parallel_for(cols, 1 + 16384 / (n + 1), colsum_range, &job);
}

/* Bias gradient `into` = column sums of the (n, cols) gradient `of`. */
static void bias_grad(bool f64, const tl_tensor *of, tl_tensor *into)
{
  if (into)
    tl_cpu_rnn_colsum(f64, tl_tensor_data(of), of->shape[0], of->shape[1], of->shape[1],
                      tl_tensor_data(into));
}

static void run_rows(cell_job *job)
{
  tl_parallel_for(job->rows.n, 1 + 4096 / (job->rows.h + 1), cell_range, job);
}

void tl_cpu_rnn_rows(const tl_rnn_rows *rows)
{
  cell_job job = {.rows = *rows};
  run_rows(&job);
}

tl_status tl_cpu_rnn_cell(const tl_rnn_call *call)
{
  cell_job job = {.rows = {.kind = call->kind, .n = call->n, .h = call->h}};
  for (int k = 0; k < 5; k++) {
    job.rows.in[k] = call->in[k] ? tl_tensor_data(call->in[k]) : NULL;
    job.rows.ld_in[k] = tl_rnn_in_width[call->kind][k] * call->h;
    job.rows.out[k] = call->out[k] ? tl_tensor_data(call->out[k]) : NULL;
    job.rows.ld_out[k] = tl_rnn_out_width[call->kind][k] * call->h;
    if (call->out[k])
      job.rows.f64 = call->out[k]->dtype == TL_DTYPE_F64;
  }
  void *zeros = NULL;
  if (call->kind == TL_RNN_LSTM_BACKWARD && (!call->in[0] || !call->in[1])) {
    if (!(zeros = calloc((size_t)(call->h ? call->h : 1), job.rows.f64 ? 8 : 4)))
      return tl_error_set(TL_ERR_MEMORY, "rnn cell: out of memory");
    job.zeros = zeros;
  }
  run_rows(&job);
  free(zeros);
  if (call->kind == TL_RNN_LSTM_BACKWARD)
    bias_grad(job.rows.f64, call->out[0], call->out[2]);
  if (call->kind == TL_RNN_GRU_BACKWARD) {
    bias_grad(job.rows.f64, call->out[0], call->out[3]);
    bias_grad(job.rows.f64, call->out[1], call->out[4]);
  }
  return TL_OK;
}
