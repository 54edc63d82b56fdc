/* softmax_cpu.c - the CPU's softmax, log_softmax and their backward.
 *
 * The tensor is seen as (outer, len, inner) around `dim`.  When dim is the
 * last one (inner == 1) each line is a contiguous row and the loops run along
 * it; otherwise a block of up to BLOCK neighbouring lines is done at once, the
 * loops running across the block, so both cases are unit-stride SIMD loops.
 * Short contiguous rows (len <= SHORT) would spend their time on per-row
 * overheads (horizontal reductions, exps in scalar loop tails, a scalar log),
 * so they go by tiles of up to TILE elements: per-row partial reductions
 * finished across rows in SIMD, and the exps and elementwise passes as single
 * flat loops over the tile.
 * Work is in float for float32/float16/bfloat16 (log_softmax along the last
 * dim of the half types rounds each row's sum and its log to the dtype, as
 * PyTorch's kernel) and in double for float64;
 * operands of another dtype or layout are first made contiguous in the work
 * dtype, and a result in another dtype is cast last.  Rows are split across
 * the thread pool.                                                        */
#include <math.h>

#include "ndcore/dispatch/tl_parallel.h"
#include "ndcore/kernels/tl_vecmath.h"
#include "ndcore/tensor/tl_half.h"
#include "nn/softmax/tl_softmax.h"

/* TILE: the elements of a tile of short rows, up to BLOCK rows of len <= SHORT */
enum { BLOCK = 64, SHORT = 256, TILE = 4096, LANES = 8 };
/* the reductions of softmax: max, sum, sum of products (kind 0, 1, 2) */
#define COMBINE(kind, acc, v) ((kind) == 0 ? ((v) > (acc) ? (v) : (acc)) : (acc) + (v))

typedef struct {
  const void *x, *g; /* input (forward) or output (backward); grad_output */
  void *y;           /* result */
  int64_t len, inner, blocks; /* blocks per outer index */
  int64_t rows, tile;         /* contiguous rows and rows per tile, when tiled */
  int log; /* 0 softmax, 1 log_softmax, HALF_F16/HALF_BF16: log_softmax of that dtype */
  bool f64, tiled;
} softmax_job;

/* PyTorch's CPU log_softmax along the last dim of a float16/bfloat16 tensor
 * keeps the row's sum and its log in buffers of that dtype: both rounded to
 * it before the subtraction (along other dims it stays in float). */
enum { HALF_F16 = 2, HALF_BF16 = 3 };

static inline float round_half(float v, int kind)
{
  return kind == HALF_BF16 ? tl_bf16_to_f32(tl_f32_to_bf16(v))
                           : tl_f16_to_f32(tl_f32_to_f16(v));
}

/* Inlined into each clone of softmax_range: a function of their own would be
 * compiled for the baseline only, and rows would run in its narrow vectors. */
#define LINES static inline __attribute__((always_inline))

/* ---- typed lines -------------------------------------------------------------------
 * Written once per work type by TL_SOFTMAX_LINES(suffix, T, EXP, LOG); each
 * function handles `w` lines of `len` elements whose elements are `inner`
 * apart and whose starts are 1 apart (w == 1, inner == 1: one contiguous row). */
TL_VECMATH_BEGIN
#define TL_SOFTMAX_LINES(forward, backward, reduce, tile, T, EXP, LOG, ROUND)              \
  LINES void forward(const T *restrict x, T *restrict y, int64_t len, int64_t inner,        \
                     int64_t w, int take_log)                                                \
  {                                                                                        \
    T m[BLOCK], s[BLOCK];                                                                  \
    if (inner == 1) { /* one contiguous row: the loops run along it */                     \
      T mx = -INFINITY, sum = 0;                                                           \
      _Pragma("omp simd reduction(max:mx)") for (int64_t i = 0; i < len; i++)              \
        mx = x[i] > mx ? x[i] : mx;                                                        \
      _Pragma("omp simd reduction(+:sum)") for (int64_t i = 0; i < len; i++) {             \
        T e = EXP(x[i] - mx);                                                              \
        sum += e;                                                                          \
        y[i] = e;                                                                          \
      }                                                                                    \
      if (take_log) { /* (x - max) - log(sum): max + log(sum) would round away a small  \
                         * spread of large inputs (PyTorch keeps this order too) */         \
        T c = take_log > 1 ? ROUND(LOG(ROUND(sum, take_log)), take_log) : LOG(sum);        \
        _Pragma("omp simd") for (int64_t i = 0; i < len; i++) y[i] = (x[i] - mx) - c;      \
      } else {                                                                             \
        T r = 1 / sum;                                                                     \
        _Pragma("omp simd") for (int64_t i = 0; i < len; i++) y[i] *= r;                   \
      }                                                                                    \
      return;                                                                              \
    }                                                                                      \
    for (int64_t j = 0; j < w; j++) {                                                      \
      m[j] = -INFINITY;                                                                    \
      s[j] = 0;                                                                            \
    }                                                                                      \
    for (int64_t i = 0; i < len; i++) {                                                    \
      const T *xi = x + i * inner;                                                         \
      _Pragma("omp simd") for (int64_t j = 0; j < w; j++) m[j] = xi[j] > m[j] ? xi[j] : m[j]; \
    }                                                                                      \
    for (int64_t i = 0; i < len; i++) {                                                    \
      const T *xi = x + i * inner;                                                         \
      T *yi = y + i * inner;                                                               \
      _Pragma("omp simd") for (int64_t j = 0; j < w; j++) {                                \
        T e = EXP(xi[j] - m[j]);                                                           \
        s[j] += e;                                                                         \
        yi[j] = e;                                                                         \
      }                                                                                    \
    }                                                                                      \
    _Pragma("omp simd") for (int64_t j = 0; j < w; j++)                                    \
      s[j] = take_log ? LOG(s[j]) : 1 / s[j];                                              \
    for (int64_t i = 0; i < len; i++) {                                                    \
      const T *xi = x + i * inner;                                                         \
      T *yi = y + i * inner;                                                               \
      if (take_log)                                                                        \
        _Pragma("omp simd") for (int64_t j = 0; j < w; j++) yi[j] = (xi[j] - m[j]) - s[j]; \
      else                                                                                 \
        _Pragma("omp simd") for (int64_t j = 0; j < w; j++) yi[j] *= s[j];                 \
    }                                                                                      \
  }                                                                                        \
  /* dx = y * (g - sum(g * y))  or  dx = g - exp(y) * sum(g) */                           \
  LINES void backward(const T *restrict yv, const T *restrict g, T *restrict dx,            \
                      int64_t len, int64_t inner, int64_t w, bool take_log)                  \
  {                                                                                        \
    T s[BLOCK];                                                                            \
    if (inner == 1) { /* one contiguous row */                                             \
      T sum = 0; /* two loops: a select inside the reduction kept it scalar */            \
      if (take_log)                                                                        \
        _Pragma("omp simd reduction(+:sum)") for (int64_t i = 0; i < len; i++) sum += g[i]; \
      else                                                                                 \
        _Pragma("omp simd reduction(+:sum)") for (int64_t i = 0; i < len; i++)             \
          sum += g[i] * yv[i];                                                             \
      if (take_log)                                                                        \
        _Pragma("omp simd") for (int64_t i = 0; i < len; i++) dx[i] = g[i] - EXP(yv[i]) * sum; \
      else                                                                                 \
        _Pragma("omp simd") for (int64_t i = 0; i < len; i++) dx[i] = yv[i] * (g[i] - sum); \
      return;                                                                              \
    }                                                                                      \
    for (int64_t j = 0; j < w; j++)                                                        \
      s[j] = 0;                                                                            \
    for (int64_t i = 0; i < len; i++) {                                                    \
      const T *gi = g + i * inner, *yi = yv + i * inner;                                   \
      if (take_log)                                                                           \
        _Pragma("omp simd") for (int64_t j = 0; j < w; j++) s[j] += gi[j];                 \
      else                                                                                 \
        _Pragma("omp simd") for (int64_t j = 0; j < w; j++) s[j] += gi[j] * yi[j];         \
    }                                                                                      \
    for (int64_t i = 0; i < len; i++) {                                                    \
      const T *gi = g + i * inner, *yi = yv + i * inner;                                   \
      T *di = dx + i * inner;                                                              \
      if (take_log)                                                                           \
        _Pragma("omp simd") for (int64_t j = 0; j < w; j++) di[j] = gi[j] - EXP(yi[j]) * s[j]; \
      else                                                                                 \
        _Pragma("omp simd") for (int64_t j = 0; j < w; j++) di[j] = yi[j] * (gi[j] - s[j]); \
    }                                                                                      \
  }                                                                                        \
  /* c[j] = the max (kind 0), the sum (1) or the sum of products with b (2) of           \
   * row j of the w rows of len at a.  Each row is reduced to LANES partials             \
   * and the partials across rows by SIMD loops: the horizontal step GCC emits           \
   * for an omp simd reduction is a serial chain, too slow on short rows. */             \
  LINES void reduce(const T *restrict a, const T *restrict b, T *restrict c, int64_t len, \
                    int64_t w, int kind)                                                 \
  {                                                                                      \
    T p[LANES * BLOCK]; /* (LANES, BLOCK): row j's partials at p[l * BLOCK + j] */       \
    int64_t full = len - len % LANES;                                                    \
    for (int64_t j = 0; j < w; j++) {                                                    \
      const T *aj = a + j * len, *bj = b + j * len;                                      \
      T q[LANES];                                                                        \
      for (int l = 0; l < LANES; l++)                                                    \
        q[l] = kind == 0 ? -INFINITY : 0;                                                \
      for (int64_t i = 0; i < full; i += LANES)                                          \
        _Pragma("omp simd") for (int l = 0; l < LANES; l++)                              \
          q[l] = COMBINE(kind, q[l], kind == 2 ? aj[i + l] * bj[i + l] : aj[i + l]);     \
      if (full < len) { /* the tail, padded with the neutral element */                  \
        T t[LANES];                                                                      \
        for (int l = 0; l < LANES; l++)                                                  \
          t[l] = full + l >= len ? (kind == 0 ? -INFINITY : 0)                           \
                 : kind == 2 ? aj[full + l] * bj[full + l] : aj[full + l];               \
        for (int l = 0; l < LANES; l++)                                                  \
          q[l] = COMBINE(kind, q[l], t[l]);                                              \
      }                                                                                  \
      for (int l = 0; l < LANES; l++)                                                    \
        p[l * BLOCK + j] = q[l];                                                         \
    }                                                                                    \
    _Pragma("omp simd") for (int64_t j = 0; j < w; j++) {                                \
      T r = p[j];                                                                        \
      for (int l = 1; l < LANES; l++)                                                    \
        r = COMBINE(kind, r, p[l * BLOCK + j]);                                          \
      c[j] = r;                                                                          \
    }                                                                                    \
  }                                                                                      \
  /* w contiguous rows of len (<= SHORT) at a, forward (g NULL) or backward              \
   * into out: the per-row reductions by reduce, the exps and the elementwise            \
   * passes as flat loops over the whole tile, reading each row's constant from          \
   * a copy spread over its elements (cf), so no loop has a per-row tail. */             \
  LINES void tile(const T *restrict a, const T *restrict g, T *restrict out, int64_t len, \
                  int64_t w, int take_log)                                               \
  {                                                                                      \
    T c[BLOCK], cf[TILE];                                                                \
    int64_t n = w * len;                                                                 \
    if (g && take_log) /* literal kinds: each call is compiled for its own */            \
      reduce(g, a, c, len, w, 1);                                                        \
    else if (g)                                                                          \
      reduce(g, a, c, len, w, 2);                                                        \
    else                                                                                 \
      reduce(a, a, c, len, w, 0);                                                        \
    for (int64_t j = 0; j < w; j++)                                                      \
      _Pragma("omp simd") for (int64_t i = 0; i < len; i++) cf[j * len + i] = c[j];      \
    if (g) {                                                                             \
      if (take_log)                                                                      \
        _Pragma("omp simd") for (int64_t k = 0; k < n; k++) out[k] = g[k] - EXP(a[k]) * cf[k]; \
      else                                                                               \
        _Pragma("omp simd") for (int64_t k = 0; k < n; k++) out[k] = a[k] * (g[k] - cf[k]); \
      return;                                                                            \
    }                                                                                    \
    if (take_log) { /* out = x - max, cf its exps; then out -= log(sum) */               \
      _Pragma("omp simd") for (int64_t k = 0; k < n; k++) out[k] = a[k] - cf[k];         \
      _Pragma("omp simd") for (int64_t k = 0; k < n; k++) cf[k] = EXP(out[k]);           \
      reduce(cf, cf, c, len, w, 1);                                                      \
    } else {                                                                             \
      _Pragma("omp simd") for (int64_t k = 0; k < n; k++) out[k] = EXP(a[k] - cf[k]);    \
      reduce(out, out, c, len, w, 1);                                                    \
    }                                                                                    \
    if (take_log > 1) /* a half dtype's rounded sums and logs (round_half) */           \
      for (int64_t j = 0; j < w; j++)                                                    \
        c[j] = ROUND(LOG(ROUND(c[j], take_log)), take_log);                              \
    else                                                                                 \
      _Pragma("omp simd") for (int64_t j = 0; j < w; j++) /* SIMD logs, not one per row */ \
        c[j] = take_log ? LOG(c[j]) : 1 / c[j];                                          \
    for (int64_t j = 0; j < w; j++)                                                      \
      _Pragma("omp simd") for (int64_t i = 0; i < len; i++) cf[j * len + i] = c[j];      \
    if (take_log)                                                                        \
      _Pragma("omp simd") for (int64_t k = 0; k < n; k++) out[k] -= cf[k];               \
    else                                                                                 \
      _Pragma("omp simd") for (int64_t k = 0; k < n; k++) out[k] *= cf[k];               \
  }
#define KEEP(v, kind) (v)
TL_SOFTMAX_LINES(softmax_lines_f32, softmax_backward_lines_f32, softmax_reduce_f32,
                 softmax_tile_f32, float, tl_expf, logf, round_half)
TL_SOFTMAX_LINES(softmax_lines_f64, softmax_backward_lines_f64, softmax_reduce_f64,
                 softmax_tile_f64, double, exp, log, KEEP)

/* Rows [begin, end) of the job: row r is block r % blocks of outer index r / blocks. */
TL_SIMD_CLONES
static void softmax_range(void *ctx, int64_t begin, int64_t end, int worker)
{
  (void)worker;
  const softmax_job *job = ctx;
  if (job->tiled) { /* unit r: rows [r * tile, r * tile + w) */
    for (int64_t r = begin; r < end; r++) {
      int64_t w = job->rows - r * job->tile < job->tile ? job->rows - r * job->tile : job->tile;
      int64_t at = r * job->tile * job->len;
      if (job->f64)
        softmax_tile_f64((const double *)job->x + at, job->g ? (const double *)job->g + at : NULL,
                         (double *)job->y + at, job->len, w, job->log);
      else
        softmax_tile_f32((const float *)job->x + at, job->g ? (const float *)job->g + at : NULL,
                         (float *)job->y + at, job->len, w, job->log);
    }
    return;
  }
  int64_t line = job->len * job->inner, step = job->inner == 1 ? 1 : BLOCK;
  for (int64_t r = begin; r < end; r++) {
    int64_t o = r / job->blocks, j0 = (r % job->blocks) * step;
    int64_t w = job->inner - j0 < step ? job->inner - j0 : step, at = o * line + j0;
    if (job->f64 && job->g)
      softmax_backward_lines_f64((const double *)job->x + at, (const double *)job->g + at,
                                 (double *)job->y + at, job->len, job->inner, w, job->log);
    else if (job->f64)
      softmax_lines_f64((const double *)job->x + at, (double *)job->y + at, job->len, job->inner,
                        w, job->log);
    else if (job->g)
      softmax_backward_lines_f32((const float *)job->x + at, (const float *)job->g + at,
                                 (float *)job->y + at, job->len, job->inner, w, job->log);
    else
      softmax_lines_f32((const float *)job->x + at, (float *)job->y + at, job->len, job->inner, w,
                        job->log);
  }
}
TL_VECMATH_END /* the lines inline into the clones of softmax_range */

/* `t` as a contiguous tensor of dtype `work`: t itself when it already is one,
 * else a converted copy in *tmp. */
static const tl_tensor *as_work(const tl_tensor *t, tl_dtype work, tl_tensor *tmp)
{
  if (t->dtype == work && tl_tensor_is_contiguous(t))
    return t;
  return tl_tensor_to_dtype(tmp, t, work) == TL_OK ? tmp : NULL;
}

/* Run the forward (g NULL) or backward job over x (and g) into out. */
static tl_status run(const tl_tensor *x, const tl_tensor *g, int dim, bool log, tl_tensor *out)
{
  tl_dtype work = x->dtype == TL_DTYPE_F64 ? TL_DTYPE_F64 : TL_DTYPE_F32;
  tl_tensor xt = {0}, gt = {0}, yt = {0};
  tl_status status;
  const tl_tensor *xw = as_work(x, work, &xt), *gw = g ? as_work(g, work, &gt) : NULL;
  bool direct = out->dtype == work; /* out is contiguous: the entry point made it */
  if (!xw || (g && !gw) || (!direct && tl_tensor_empty(&yt, work, out->ndim, out->shape,
                                                       tl_tensor_device(out)) != TL_OK)) {
    status = tl_error_status();
    goto done;
  }
  int64_t numel = tl_tensor_numel(x);
  if (numel > 0) {
    softmax_job job = {.x = tl_tensor_data(xw), .g = gw ? tl_tensor_data(gw) : NULL,
                       .y = tl_tensor_data(direct ? out : &yt), .log = log,
                       .f64 = work == TL_DTYPE_F64};
    if (log && !g && x->dtype == TL_DTYPE_F16)
      job.log = HALF_F16;
    else if (log && !g && x->dtype == TL_DTYPE_BF16)
      job.log = HALF_BF16;
    job.len = x->ndim ? x->shape[dim] : 1;
    job.inner = 1;
    for (int i = dim + 1; i < x->ndim; i++)
      job.inner *= x->shape[i];
    job.blocks = job.inner == 1 ? 1 : (job.inner + BLOCK - 1) / BLOCK;
    int64_t rows = numel / (job.len * job.inner) * job.blocks;
    int64_t per_row = job.len * (job.inner == 1 ? 1 : BLOCK);
    if (job.inner == 1 && job.len <= SHORT && rows > 1) { /* tiles of short rows */
      job.tiled = true;
      job.rows = rows;
      job.tile = TILE / job.len < BLOCK ? TILE / job.len : BLOCK;
      rows = (rows + job.tile - 1) / job.tile;
      per_row = job.len * job.tile;
    }
    tl_storage_bump(out->storage);
    tl_parallel_for(rows, 1 + 16384 / per_row, softmax_range, &job);
  }
  status = direct ? TL_OK : tl_tensor_copy(out, &yt);
done:
  tl_tensor_release(&xt);
  tl_tensor_release(&gt);
  tl_tensor_release(&yt);
  return status;
}

tl_status tl_cpu_softmax(const tl_tensor *in, int dim, bool log, tl_tensor *out)
{
  return run(in, NULL, dim, log, out);
}

tl_status tl_cpu_softmax_backward(const tl_tensor *grad, const tl_tensor *output, int dim, bool log,
                                  tl_tensor *grad_input)
{
  return run(output, grad, dim, log, grad_input);
}
