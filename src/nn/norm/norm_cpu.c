/* norm_cpu.c - the CPU's normalisation kernels (tl_norm.h): operands made
 * contiguous in the work dtype (double for float64, float otherwise: float16
 * and bfloat16 accumulate in float), the typed loops of norm_loops.h split
 * across the thread pool by statistics group, then the small per-channel
 * epilogues (running statistics, dw and db) done here in double. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "ndcore/dispatch/tl_parallel.h"
#include "ndcore/tensor/tl_half.h"
#include "nn/norm/norm_job.h"
#include "nn/tl_nn_work.h"

enum { COLS = 64 }; /* norm_loops.h's column block */

/* The loops' rows: statistics groups, or blocks of COLS channels for
 * per-channel statistics with S == 1 (norm_loops.h). */
static int64_t row_count(const tl_norm_spec *s)
{
  if (s->per_channel)
    return s->S == 1 ? (s->C + COLS - 1) / COLS : s->C;
  return s->N * s->G;
}

typedef struct {
  tl_norm_job job;
  bool f64;
} typed_job;

/* Is t (N, C, *spatial) of dtype `work` laid out channels-last exactly
 * ((N, S, C) in memory)?  NULL counts as yes. */
static bool lies_channels_last(const tl_tensor *t, tl_dtype work)
{
  int64_t strides[TL_MAX_DIMS];
  if (!t)
    return true;
  if (t->dtype != work || (t->ndim != 4 && t->ndim != 5))
    return false;
  tl_format f = t->ndim == 4 ? TL_FORMAT_CHANNELS_LAST : TL_FORMAT_CHANNELS_LAST_3D;
  return tl_format_strides(f, t, strides) == TL_OK && tl_tensor_has_strides(t, strides);
}

static void run_cl_lines(void *ctx, int64_t begin, int64_t end, int worker)
{
  (void)worker;
  const typed_job *t = ctx;
  if (t->f64)
    tl_norm_cl_lines_f64(&t->job, begin, end);
  else
    tl_norm_cl_lines_f32(&t->job, begin, end);
}

static void run_cl_apply(void *ctx, int64_t begin, int64_t end, int worker)
{
  (void)worker;
  const typed_job *t = ctx;
  if (t->f64)
    tl_norm_cl_apply_f64(&t->job, begin, end);
  else
    tl_norm_cl_apply_f32(&t->job, begin, end);
}

/* One step of the channels-last loops (norm_job.h): the per-sample line
 * sums of `kind` (none for TL_NORM_CL_NONE) across the thread pool, then
 * their reduction in sample order. */
static void cl_step(typed_job *t, int kind)
{
  const tl_norm_spec *s = &t->job.s;
  t->job.cl_kind = kind;
  if (kind != TL_NORM_CL_NONE)
    tl_parallel_for(s->N * ((s->C + TL_NORM_CL_BLOCK - 1) / TL_NORM_CL_BLOCK), 1, run_cl_lines, t);
  if (t->f64)
    tl_norm_cl_reduce_f64(&t->job);
  else
    tl_norm_cl_reduce_f32(&t->job);
}

/* Channels-last batch norm (forward: g NULL), the job's pointers set but
 * lines and coef; TL_ERR_MEMORY when their buffers cannot be had. */
static tl_status run_channels_last(typed_job *t, bool backward)
{
  const tl_norm_spec *s = &t->job.s;
  size_t es = t->f64 ? sizeof(double) : sizeof(float);
  int64_t C = s->C ? s->C : 1, N = s->N ? s->N : 1;
  t->job.coef = malloc(3 * (size_t)C * es);
  t->job.lines = malloc((size_t)(N * C) * (backward ? 2 : 1) * sizeof(double));
  if (!t->job.coef || !t->job.lines) {
    free(t->job.coef);
    free(t->job.lines);
    return tl_error_set(TL_ERR_MEMORY, "batch_norm: out of memory");
  }
  if (backward) {
    cl_step(t, TL_NORM_CL_GRAD);
  } else if (s->train) {
    cl_step(t, TL_NORM_CL_SUM);
    cl_step(t, TL_NORM_CL_SQDEV);
  } else {
    cl_step(t, TL_NORM_CL_NONE);
  }
  if (t->job.y)
    tl_parallel_for(s->N * s->S, 1 + 32768 / C, run_cl_apply, t);
  free(t->job.coef);
  free(t->job.lines);
  return TL_OK;
}

/* batch_norm statistics over x, g and the result as they lie, channels-last
 * (norm_loops.h's cl rows): when the result was allocated so and the
 * operands are so already, in the work dtype.  g NULL: the forward. */
static bool channels_last_job(const tl_norm_spec *s, const tl_tensor *x, const tl_tensor *g,
                              const tl_tensor *out, tl_dtype work)
{
  return s->per_channel && s->S > 1 && out && !tl_tensor_is_contiguous(out) &&
         lies_channels_last(out, work) && lies_channels_last(x, work) &&
         lies_channels_last(g, work);
}

static void run_forward(void *ctx, int64_t begin, int64_t end, int worker)
{
  (void)worker;
  const typed_job *t = ctx;
  if (t->f64)
    tl_norm_forward_f64(&t->job, begin, end);
  else
    tl_norm_forward_f32(&t->job, begin, end);
}

static void run_backward(void *ctx, int64_t begin, int64_t end, int worker)
{
  (void)worker;
  const typed_job *t = ctx;
  if (t->f64)
    tl_norm_backward_f64(&t->job, begin, end, NULL);
  else
    tl_norm_backward_f32(&t->job, begin, end, NULL);
}

/* layer_norm / rms_norm backward with dw, db wanted: the rows split in
 * nchunk fixed chunks, each adding its rows' dw, db terms into its own 2C
 * doubles, summed in chunk order afterwards (the same result whichever
 * thread runs which chunk). */
typedef struct {
  typed_job t;
  int64_t rows, nchunk;
  double *acc;
} chunked_job;

static void run_backward_chunks(void *ctx, int64_t begin, int64_t end, int worker)
{
  (void)worker;
  const chunked_job *c = ctx;
  for (int64_t i = begin; i < end; i++) {
    int64_t r0 = i * c->rows / c->nchunk, r1 = (i + 1) * c->rows / c->nchunk;
    double *acc = c->acc + i * 2 * c->t.job.s.C;
    if (c->t.f64)
      tl_norm_backward_f64(&c->t.job, r0, r1, acc);
    else
      tl_norm_backward_f32(&c->t.job, r0, r1, acc);
  }
}

/* g (of the work dtype) as M rows of K elements without a copy: its data,
 * with *row the elements from one row to the next, when each row is
 * contiguous (a slice, or rows broadcast: *row = 0); else NULL.  A scalar
 * broadcast to every element (the gradient of sum()) is written out once as
 * one row in *line (*row = 0). */
static const void *rows_of(const tl_tensor *g, int64_t K, int64_t *row, void **line)
{
  int i = g->ndim - 1;
  int64_t inner = 1, stride = -1, span = 1;
  bool scalar = true;
  for (int d = 0; d < g->ndim; d++)
    scalar &= g->shape[d] <= 1 || g->strides[d] == 0;
  if (scalar && K > 0) {
    size_t es = tl_dtype_size(g->dtype);
    char *p = *line = malloc((size_t)K * es);
    if (!p)
      return NULL;
    for (int64_t k = 0; k < K; k++)
      memcpy(p + k * (int64_t)es, tl_tensor_data(g), es);
    *row = 0;
    return p;
  }
  for (; i >= 0 && inner < K; i--) {
    if (g->shape[i] != 1 && g->strides[i] != inner)
      return NULL;
    inner *= g->shape[i];
  }
  if (inner != K)
    return NULL;
  for (; i >= 0; i--) {
    if (g->shape[i] == 1)
      continue;
    if (stride < 0)
      stride = g->strides[i];
    else if (g->strides[i] != stride * span)
      return NULL;
    span *= g->shape[i];
  }
  *row = stride < 0 ? K : stride;
  return tl_tensor_data(g);
}

/* g (of the work dtype, x's shape (N, C, *spatial), S > 1) as lines of S
 * contiguous elements without a copy: its data, with the steps *gn, *gc
 * from one sample's and one channel's line to the next, when its spatial
 * dims are one contiguous run; else NULL.  A scalar broadcast to every
 * element (the gradient of sum()) is written out once as one line in
 * *line (*gn = *gc = 0): a contiguous copy of it would cost a whole
 * activation, which PyTorch does not spend. */
static const void *lines_of(const tl_tensor *g, int64_t S, int64_t *gn, int64_t *gc, void **line)
{
  int64_t inner = 1;
  bool scalar = true;
  for (int d = 0; d < g->ndim; d++)
    scalar &= g->shape[d] <= 1 || g->strides[d] == 0;
  if (scalar) {
    *gn = *gc = 0;
    return rows_of(g, S, gn, line);
  }
  if (g->ndim < 3)
    return NULL;
  for (int d = g->ndim - 1; d >= 2; d--) {
    if (g->shape[d] != 1 && g->strides[d] != inner)
      return NULL;
    inner *= g->shape[d];
  }
  *gn = g->shape[0] == 1 ? 0 : g->strides[0];
  *gc = g->shape[1] == 1 ? 0 : g->strides[1];
  return inner == S ? tl_tensor_data(g) : NULL;
}

/* running = (1 - momentum) running + momentum batch, through a work copy
 * when the running tensor is of another dtype or layout. */
static tl_status update_running(tl_tensor *running, const double *batch, double scale,
                                double momentum)
{
  tl_tensor tmp = {0};
  tl_status status;
  const tl_tensor *r = tl_nn_as_work(running, tl_nn_work_dtype(running->dtype), &tmp);
  if (!r)
    return tl_error_status();
  for (int64_t c = 0; c < tl_tensor_numel(r); c++)
    tl_nn_set((tl_tensor *)r, c, (1 - momentum) * tl_nn_get(r, c) + momentum * batch[c] * scale);
  status = r == running ? TL_OK : tl_tensor_copy(running, r);
  tl_storage_bump(running->storage);
  tl_tensor_release(&tmp);
  return status;
}

/* The half dtype whose statistics PyTorch's CPU batch norm keeps in training
 * (TL_NORM_STATS_FLOAT for none): x's, when x is float16/bfloat16 and every
 * parameter given is of that dtype too.  With one float32 (autocast's
 * float32 weights) PyTorch's kernel is the mixed-type one, all in float. */
static int half_stats_of(const tl_norm_spec *s, const tl_tensor *x, const tl_tensor *w,
                         const tl_tensor *b, const tl_tensor *rm, const tl_tensor *rv)
{
  if (!s->per_channel || !s->train || (x->dtype != TL_DTYPE_BF16 && x->dtype != TL_DTYPE_F16))
    return TL_NORM_STATS_FLOAT;
  const tl_tensor *params[] = {w, b, rm, rv};
  for (int i = 0; i < 4; i++)
    if (params[i] && params[i]->dtype != x->dtype)
      return TL_NORM_STATS_FLOAT;
  return x->dtype == TL_DTYPE_BF16 ? TL_NORM_STATS_BF16 : TL_NORM_STATS_F16;
}

static double round_to(tl_dtype d, double v)
{
  float f = (float)v;
  return d == TL_DTYPE_BF16 ? tl_bf16_to_f32(tl_f32_to_bf16(f)) : tl_f16_to_f32(tl_f32_to_f16(f));
}

/* The running statistics updated as PyTorch's CPU kernel does in bfloat16
 * (c10::BFloat16 arithmetic, each product and sum rounded): m = momentum
 * rounded, mean' = (m mean) + ((1 - m) mean'), the variance's first term in
 * float: var' = m * (var_sum / (D - 1)) + ((1 - m) var').  var holds
 * var_sum / D (norm_loops.h, half_stats). */
static tl_status update_running_half(tl_dtype d, tl_tensor *running_mean, tl_tensor *running_var,
                                     const double *mean, const double *var, int64_t D,
                                     double momentum)
{
  tl_tensor tm = {0}, tv = {0};
  tl_status status = TL_OK;
  const tl_tensor *rm = tl_nn_as_work(running_mean, TL_DTYPE_F32, &tm);
  const tl_tensor *rv = running_var ? tl_nn_as_work(running_var, TL_DTYPE_F32, &tv) : NULL;
  if (!rm || (running_var && !rv)) {
    status = tl_error_status();
    goto done;
  }
  double m = round_to(d, momentum), keep = round_to(d, 1 - m);
  for (int64_t c = 0; c < tl_tensor_numel(rm); c++) {
    double batch = mean[c];
    tl_nn_set((tl_tensor *)rm, c, round_to(d, round_to(d, m * batch) +
                                                   round_to(d, keep * tl_nn_get(rm, c))));
    if (rv) {
      double sum = round_to(d, var[c] * (double)D); /* exact: var[c] is a rounded sum / D */
      double unbiased = D > 1 ? round_to(d, sum / round_to(d, (double)(D - 1))) : NAN;
      tl_nn_set((tl_tensor *)rv, c,
                round_to(d, (float)(m * unbiased) + (float)round_to(d, keep * tl_nn_get(rv, c))));
    }
  }
  if (rm != running_mean)
    status = tl_tensor_copy(running_mean, rm);
  if (status == TL_OK && rv && rv != running_var)
    status = tl_tensor_copy(running_var, rv);
  tl_storage_bump(running_mean->storage);
  if (running_var)
    tl_storage_bump(running_var->storage);
done:
  tl_tensor_release(&tm);
  tl_tensor_release(&tv);
  return status;
}

tl_status tl_cpu_norm_forward(const tl_norm_spec *spec, const tl_tensor *x, const tl_tensor *w,
                              const tl_tensor *b, tl_tensor *running_mean, tl_tensor *running_var,
                              tl_tensor *y, tl_tensor *mean, tl_tensor *rstd)
{
  tl_norm_spec half = *spec;
  half.stats = half_stats_of(spec, x, w, b, running_mean, running_var);
  const tl_norm_spec *s = &half;
  tl_dtype work = tl_nn_work_dtype(x->dtype);
  tl_tensor xt = {0}, wt = {0}, bt = {0}, yt = {0};
  double *var = NULL;
  tl_status status = TL_OK;
  bool cl = channels_last_job(s, x, NULL, y, work);
  const tl_tensor *xw = cl ? x : tl_nn_as_work(x, work, &xt), *ww = tl_nn_as_work(w, work, &wt),
                  *bw = tl_nn_as_work(b, work, &bt);
  /* a result of another dtype, or laid out channels-last for the planar
   * loops, is written to a row-major work tensor and copied over */
  bool direct = y->dtype == work && (cl || tl_tensor_is_contiguous(y));
  int64_t rows = row_count(s);
  if (!xw || !ww || !bw ||
      (!direct && tl_tensor_empty(&yt, work, y->ndim, y->shape, tl_tensor_device(y)) != TL_OK) ||
      (s->per_channel && !(var = calloc((size_t)(2 * (s->C ? s->C : 1)), sizeof *var)))) {
    status = var || !s->per_channel ? tl_error_status()
                                    : tl_error_set(TL_ERR_MEMORY, "batch_norm: out of memory");
    goto done;
  }
  if (s->per_channel && !s->train) /* mean, rstd hold the running mean and var */
    for (int64_t c = 0; c < s->C; c++)
      tl_nn_set(rstd, c, 1 / sqrt(tl_nn_get(rstd, c) + s->eps));
  typed_job t = {.job = {.s = *s, .x = tl_tensor_data(xw), .w = tl_tensor_data(ww),
                         .b = tl_tensor_data(bw), .y = tl_tensor_data(direct ? y : &yt),
                         .mean = mean ? tl_tensor_data(mean) : NULL,
                         .rstd = tl_tensor_data(rstd), .var = var,
                         .batch_mean = var ? var + (s->C ? s->C : 1) : NULL},
                 .f64 = work == TL_DTYPE_F64};
  int64_t per_row = tl_tensor_numel(x) / (rows ? rows : 1) + 1;
  if (cl && (status = run_channels_last(&t, false)) != TL_OK)
    goto done;
  if (!cl)
    tl_parallel_for(rows, 1 + 32768 / per_row, run_forward, &t);
  if (s->per_channel && s->train && running_mean) {
    int64_t D = s->N * s->S;
    double *m = malloc((size_t)(s->C ? s->C : 1) * sizeof *m);
    if (!m) {
      status = tl_error_set(TL_ERR_MEMORY, "batch_norm: out of memory");
      goto done;
    }
    for (int64_t c = 0; c < s->C; c++)
      m[c] = s->stats == TL_NORM_STATS_FLOAT ? tl_nn_get(mean, c) : t.job.batch_mean[c];
    if (s->stats == TL_NORM_STATS_BF16) {
      status = update_running_half(x->dtype, running_mean, running_var, m, var, D,
                                   s->momentum);
      free(m);
      if (status != TL_OK)
        goto done;
      running_var = NULL; /* done */
    } else {
      status = update_running(running_mean, m, 1, s->momentum);
      free(m);
    }
    if (status == TL_OK && running_var)
      status = update_running(running_var, var, D > 1 ? (double)D / (D - 1) : NAN, s->momentum);
    if (status != TL_OK)
      goto done;
  }
  if (!direct)
    status = tl_tensor_copy(y, &yt);
done:
  free(var);
  tl_tensor_release(&xt);
  tl_tensor_release(&wt);
  tl_tensor_release(&bt);
  tl_tensor_release(&yt);
  return status;
}

/* dw/db from the (N, C, 2) per-channel sums of dy and dy*x (group stats). */
static void affine_from_parts(const tl_norm_spec *s, const double *part, const tl_tensor *mean,
                              const tl_tensor *rstd, double *dw, double *db)
{
  int64_t Cg = s->C / s->G;
  for (int64_t c = 0; c < s->C; c++)
    dw[c] = db[c] = 0;
  for (int64_t n = 0; n < s->N; n++)
    for (int64_t c = 0; c < s->C; c++) {
      int64_t r = n * s->G + c / Cg;
      double sg = part[(n * s->C + c) * 2], sgx = part[(n * s->C + c) * 2 + 1];
      double mu = s->rms ? 0 : tl_nn_get(mean, r);
      dw[c] += tl_nn_get(rstd, r) * (sgx - mu * sg);
      db[c] += sg;
    }
}

/* A (C,) double array into the output tensor (of the weight's dtype). */
static tl_status store_affine(tl_tensor *out, const double *v, tl_dtype work)
{
  tl_tensor tmp = {0};
  tl_status status = tl_tensor_empty(&tmp, work, out->ndim, out->shape, tl_tensor_device(out));
  if (status != TL_OK)
    return status;
  for (int64_t c = 0; c < tl_tensor_numel(out); c++)
    tl_nn_set(&tmp, c, v[c]);
  status = tl_tensor_copy(out, &tmp);
  tl_tensor_release(&tmp);
  return status;
}

tl_status tl_cpu_norm_backward(const tl_norm_spec *s, const tl_tensor *g, const tl_tensor *x,
                               const tl_tensor *mean, const tl_tensor *rstd, const tl_tensor *w,
                               tl_tensor *dx, tl_tensor *dw, tl_tensor *db)
{
  tl_dtype work = tl_nn_work_dtype(x->dtype);
  tl_tensor xt = {0}, gt = {0}, wt = {0}, dxt = {0}, mt = {0}, rt = {0};
  double *sums = NULL, *part = NULL, *acc = NULL;
  void *line = NULL;
  tl_status status = TL_OK;
  bool cl = channels_last_job(s, x, g, dx, work);
  bool direct = !dx || (dx->dtype == work && (cl || tl_tensor_is_contiguous(dx)));
  bool cols = !s->per_channel && s->G == 1 && s->S == 1;
  int64_t rows = row_count(s), C = s->C ? s->C : 1, g_row = s->C;
  int64_t g_n = s->C * s->S, g_c = s->S;
  /* layer_norm's g is read in place when its rows are contiguous, batch_norm's
   * when its lines are */
  bool lines = s->per_channel && s->S > 1 && g->dtype == work && !cl;
  const void *gdata = cl                         ? tl_tensor_data(g)
                      : cols && g->dtype == work ? rows_of(g, s->C, &g_row, &line)
                      : lines                  ? lines_of(g, s->S, &g_n, &g_c, &line)
                                               : NULL;
  const tl_tensor *xw = cl ? x : tl_nn_as_work(x, work, &xt),
                  *gw = gdata ? g : tl_nn_as_work(g, work, &gt), *ww = tl_nn_as_work(w, work, &wt),
                  *rw = tl_nn_as_work(rstd, work, &rt);
  const tl_tensor *mw = mean ? tl_nn_as_work(mean, work, &mt) : NULL;
  if (!xw || !gw || !ww || !rw || (mean && !mw) ||
      (!direct && tl_tensor_empty(&dxt, work, dx->ndim, dx->shape, tl_tensor_device(dx)) != TL_OK))
    goto fail;
  int64_t per_row = tl_tensor_numel(x) / (rows ? rows : 1) + 1;
  /* cols with dw wanted: chunks of at least 16k elements, a few per thread,
   * their accumulators (2C doubles each) within 32 MB */
  int64_t nchunk = 4 * tl_parallel_get_threads();
  if (nchunk > rows * per_row / 16384 + 1)
    nchunk = rows * per_row / 16384 + 1;
  if (nchunk > (1 << 21) / C)
    nchunk = (1 << 21) / C;
  nchunk = nchunk < 1 ? 1 : nchunk > rows ? (rows ? rows : 1) : nchunk;
  if ((dw && !(sums = calloc((size_t)(2 * C), sizeof *sums))) ||
      (!s->per_channel && !cols &&
       !(part = calloc((size_t)(2 * C * (s->N ? s->N : 1)), sizeof *part))) ||
      (cols && dw && !(acc = calloc((size_t)(2 * C * nchunk), sizeof *acc)))) {
    tl_error_set(TL_ERR_MEMORY, "norm backward: out of memory");
    goto fail;
  }
  typed_job t = {.job = {.s = *s, .x = tl_tensor_data(xw), .g = gdata ? gdata : tl_tensor_data(gw),
                         .w = tl_tensor_data(ww), .y = dx ? tl_tensor_data(direct ? dx : &dxt) : NULL,
                         .mean = mw ? tl_tensor_data(mw) : NULL, .rstd = tl_tensor_data(rw),
                         .part = part, .dw = sums, .db = sums ? sums + C : NULL, .cols = cols,
                         .g_row = g_row, .g_n = gdata ? g_n : s->C * s->S,
                         .g_c = gdata ? g_c : s->S},
                 .f64 = work == TL_DTYPE_F64};
  if (cl) {
    if (run_channels_last(&t, true) != TL_OK)
      goto fail;
  } else if (acc) {
    chunked_job cj = {.t = t, .rows = rows, .nchunk = nchunk, .acc = acc};
    tl_parallel_for(nchunk, 1, run_backward_chunks, &cj);
    for (int64_t i = 0; i < nchunk; i++)
      for (int64_t k = 0; k < 2 * s->C; k++)
        sums[k] += acc[i * 2 * s->C + k];
  } else if (dx || !cols) {
    tl_parallel_for(rows, 1 + 32768 / per_row, run_backward, &t);
  }
  if (dw) {
    if (part)
      affine_from_parts(s, part, mw, rw, sums, sums + C);
    if (store_affine(dw, sums, work) != TL_OK || store_affine(db, sums + C, work) != TL_OK)
      goto fail;
  }
  if (!direct && tl_tensor_copy(dx, &dxt) != TL_OK)
    goto fail;
  goto done;
fail:
  status = tl_error_status();
done:
  free(sums);
  free(part);
  free(acc);
  free(line);
  tl_tensor_release(&xt);
  tl_tensor_release(&gt);
  tl_tensor_release(&wt);
  tl_tensor_release(&dxt);
  tl_tensor_release(&mt);
  tl_tensor_release(&rt);
  return status;
}
