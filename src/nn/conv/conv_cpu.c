/* conv_cpu.c - the CPU's convolution kernels: im2col/col2im and OpenBLAS GEMM.
 *
 * Legend as in tl_conv.h: B = (N, Cb, *big), S = (N, Cs, L), W = (Cs, Cb/g, K).
 * Per sample, the columns of B are a (Cb*K, L) matrix whose row c*K + k holds
 * input channel c seen through kernel offset k at every window; a group's rows
 * are consecutive, so each group's product is one GEMM on sub-blocks.  The
 * columns are made a chunk of output lines at a time (about 1 MiB, kept in
 * cache for the GEMM that reads them).  A 1x1 kernel with stride 1 and no
 * padding needs no columns: B[n] is its own.  2-d stride-1 float32 work on
 * an AVX-512 CPU takes the direct path instead (conv_direct.h: no columns,
 * no GEMM) when run_direct finds it fits; 1-d stride-1 work with few
 * channels (float32 or float64) takes conv_line.h's path, where the GEMM
 * would have few rows and the columns would cost more than it.
 *
 * Work is in float for float32/float16/bfloat16 and in double for float64;
 * operands of another dtype or layout are first made contiguous in the work
 * dtype, and a result in another dtype is cast last.  Samples run one after
 * another with OpenBLAS threading each product; the column copies (memory
 * bound) are split across the thread pool by rows (im2col) or channels
 * (col2im, whose rows of one channel add into the same image).           */
#include <string.h>

#include "ndcore/dispatch/tl_parallel.h"
#include "ndcore/linalg/tl_blas.h"
#include "ndcore/linalg/tl_linalg.h"
#include "nn/conv/conv_direct.h"
#include "nn/conv/conv_line.h"
#include "nn/conv/conv_nhwc.h"
#include "nn/conv/tl_conv.h"
#include "nn/tl_nn_work.h"

/* ---- window geometry ----------------------------------------------------------------- */

static int64_t kernel_numel(const tl_nn_conv_geom *g)
{
  int64_t k = 1;
  for (int d = 0; d < g->nsp; d++)
    k *= g->kernel[d];
  return k;
}

static int64_t numel_of(int n, const int64_t *v)
{
  int64_t k = 1;
  for (int d = 0; d < n; d++)
    k *= v[d];
  return k;
}

/* No columns needed: every window is one pixel, every pixel one window. */
static bool is_pointwise(const tl_nn_conv_geom *g)
{
  for (int d = 0; d < g->nsp; d++)
    if (g->kernel[d] != 1 || g->stride[d] != 1 || g->padding[d] != 0)
      return false;
  return true;
}

/* One row of the columns, split at the last spatial dim.  Along the last dim
 * the row's kernel offset k reads, for window o, element o * stride + base of
 * an image line, and the windows [lo, hi) fall inside it: the same for every
 * line of the row.  Over the leading dims (at most two) a walk steps through
 * the grid lines, the image line each reads (false: one in the padding)
 * found without a division per line. */
typedef struct {
  int64_t lo, hi, base;
} window_span;

static window_span window_span_of(const tl_nn_conv_geom *g, int64_t k_last)
{
  int last = g->nsp - 1;
  int64_t s = g->stride[last], base = k_last * g->dilation[last] - g->padding[last];
  int64_t lo = base >= 0 ? 0 : (-base + s - 1) / s;
  if (lo > g->small[last]) /* a tap left of every window (padding past the grid) */
    lo = g->small[last];
  int64_t hi = g->big[last] - 1 - base < 0 ? 0 : (g->big[last] - 1 - base) / s + 1;
  window_span w = {.lo = lo, .hi = hi < g->small[last] ? hi : g->small[last], .base = base};
  if (w.hi < w.lo)
    w.hi = w.lo;
  return w;
}

typedef struct {
  const tl_nn_conv_geom *g;
  int64_t o[TL_NN_CONV_MAX_DIMS];     /* the grid line's index per leading dim */
  int64_t first[TL_NN_CONV_MAX_DIMS]; /* image index of window 0 per leading dim */
} line_walk;

/* Start at grid line q for kernel offsets koff. */
static void line_walk_start(line_walk *lw, const tl_nn_conv_geom *g, const int64_t *koff, int64_t q)
{
  lw->g = g;
  for (int d = g->nsp - 2; d >= 0; d--) {
    lw->o[d] = q % g->small[d];
    q /= g->small[d];
    lw->first[d] = koff[d] * g->dilation[d] - g->padding[d];
  }
}

/* The image offset of the current line's start (false: padding). */
static bool line_walk_offset(const line_walk *lw, int64_t *off)
{
  const tl_nn_conv_geom *g = lw->g;
  int last = g->nsp - 1;
  int64_t o = 0, step = g->big[last];
  for (int d = last - 1; d >= 0; d--) {
    int64_t i = lw->o[d] * g->stride[d] + lw->first[d];
    if (i < 0 || i >= g->big[d])
      return false;
    o += i * step;
    step *= g->big[d];
  }
  *off = o;
  return true;
}

static void line_walk_next(line_walk *lw)
{
  for (int d = lw->g->nsp - 2; d >= 0; d--) {
    if (++lw->o[d] < lw->g->small[d])
      return;
    lw->o[d] = 0;
  }
}

static void kernel_offsets(const tl_nn_conv_geom *g, int64_t k, int64_t *koff)
{
  for (int d = g->nsp - 1; d >= 0; d--) {
    koff[d] = k % g->kernel[d];
    k /= g->kernel[d];
  }
}

/* ---- im2col: a pure copy, written for any element size ---------------------------- */

typedef struct {
  const tl_nn_conv_geom *g;
  const char *x; /* (C, *big) */
  char *cols;    /* (C*K, Lc): the windows of lines [q0, q1), Lc = (q1 - q0) * width */
  size_t es;
  int64_t K, Lc, image, q0, q1;
} im2col_job;

static void strided_copy(char *dst, const char *src, int64_t n, int64_t s, size_t es)
{
  switch (es) {
  case 8:
    for (int64_t i = 0; i < n; i++)
      ((double *)dst)[i] = ((const double *)src)[i * s];
    break;
  case 4:
    for (int64_t i = 0; i < n; i++)
      ((float *)dst)[i] = ((const float *)src)[i * s];
    break;
  default:
    for (int64_t i = 0; i < n; i++)
      memcpy(dst + (size_t)i * es, src + (size_t)(i * s) * es, es);
  }
}

static void im2col_range(void *ctx, int64_t begin, int64_t end, int worker)
{
  (void)worker;
  const im2col_job *j = ctx;
  const tl_nn_conv_geom *g = j->g;
  int last = g->nsp - 1;
  int64_t width = g->small[last], s = g->stride[last];
  size_t es = j->es;
  int64_t koff[TL_NN_CONV_MAX_DIMS];
  for (int64_t r = begin; r < end; r++) {
    const char *xc = j->x + (size_t)((r / j->K) * j->image) * es;
    kernel_offsets(g, r % j->K, koff);
    window_span w = window_span_of(g, koff[last]);
    line_walk lw;
    line_walk_start(&lw, g, koff, j->q0);
    for (int64_t q = j->q0; q < j->q1; q++, line_walk_next(&lw)) {
      char *dst = j->cols + (size_t)(r * j->Lc + (q - j->q0) * width) * es;
      int64_t off;
      if (!line_walk_offset(&lw, &off)) {
        memset(dst, 0, (size_t)width * es);
        continue;
      }
      memset(dst, 0, (size_t)w.lo * es);
      memset(dst + (size_t)w.hi * es, 0, (size_t)(width - w.hi) * es);
      const char *src = xc + (size_t)(off + w.lo * s + w.base) * es;
      if (s == 1)
        memcpy(dst + (size_t)w.lo * es, src, (size_t)(w.hi - w.lo) * es);
      else
        strided_copy(dst + (size_t)w.lo * es, src, w.hi - w.lo, s, es);
    }
  }
}

/* Lines of windows: all but the last spatial dim of the grid side. */
static int64_t grid_lines(const tl_nn_conv_geom *g)
{
  return numel_of(g->nsp - 1, g->small);
}

/* x (C, *big) -> cols (C*K, Lc), the windows of lines [q0, q1) */
static void im2col_lines(const tl_nn_conv_geom *g, const void *x, void *cols, int64_t C, size_t es,
                         int64_t q0, int64_t q1)
{
  im2col_job j = {.g = g, .x = x, .cols = cols, .es = es, .K = kernel_numel(g),
                  .Lc = (q1 - q0) * g->small[g->nsp - 1], .image = numel_of(g->nsp, g->big),
                  .q0 = q0, .q1 = q1};
  tl_parallel_for(C * j.K, 1 + 32768 / (j.Lc ? j.Lc : 1), im2col_range, &j);
}

/* x (C, *big) -> cols (C*K, L) */
static void im2col(const tl_nn_conv_geom *g, const void *x, void *cols, int64_t C, size_t es)
{
  im2col_lines(g, x, cols, C, es, 0, grid_lines(g));
}

/* ---- col2im: sums, typed ------------------------------------------------------------ */

typedef struct {
  const tl_nn_conv_geom *g;
  const void *cols; /* (C*K, Lc): the windows of lines [q0, q1) */
  void *x;          /* (C, *big), zeroed by the caller */
  bool f64;
  int64_t K, Lc, image, q0, q1;
} col2im_job;

static inline void add_line_f32(float *restrict x, const float *restrict c, int64_t n, int64_t s)
{
  for (int64_t i = 0; i < n; i++)
    x[i * s] += c[i];
}

static inline void add_line_f64(double *restrict x, const double *restrict c, int64_t n, int64_t s)
{
  for (int64_t i = 0; i < n; i++)
    x[i * s] += c[i];
}

static void col2im_range(void *ctx, int64_t begin, int64_t end, int worker)
{
  (void)worker;
  const col2im_job *j = ctx;
  const tl_nn_conv_geom *g = j->g;
  int last = g->nsp - 1;
  int64_t width = g->small[last], s = g->stride[last];
  int64_t koff[TL_NN_CONV_MAX_DIMS];
  for (int64_t c = begin; c < end; c++) {
    for (int64_t k = 0; k < j->K; k++) {
      int64_t r = c * j->K + k;
      kernel_offsets(g, k, koff);
      window_span w = window_span_of(g, koff[last]);
      line_walk lw;
      line_walk_start(&lw, g, koff, j->q0);
      for (int64_t q = j->q0; q < j->q1; q++, line_walk_next(&lw)) {
        int64_t off;
        if (!line_walk_offset(&lw, &off))
          continue;
        int64_t src = r * j->Lc + (q - j->q0) * width + w.lo;
        int64_t dst = c * j->image + off + w.lo * s + w.base;
        if (j->f64)
          add_line_f64((double *)j->x + dst, (const double *)j->cols + src, w.hi - w.lo, s);
        else
          add_line_f32((float *)j->x + dst, (const float *)j->cols + src, w.hi - w.lo, s);
      }
    }
  }
}

/* x (C, *big) += the windows of lines [q0, q1) in cols (C*K, Lc) */
static void col2im_lines(const tl_nn_conv_geom *g, const void *cols, void *x, int64_t C, bool f64,
                         int64_t q0, int64_t q1)
{
  col2im_job j = {.g = g, .cols = cols, .x = x, .f64 = f64, .K = kernel_numel(g),
                  .Lc = (q1 - q0) * g->small[g->nsp - 1], .image = numel_of(g->nsp, g->big),
                  .q0 = q0, .q1 = q1};
  tl_parallel_for(C, 1 + 32768 / (j.K * j.Lc > 0 ? j.K * j.Lc : 1), col2im_range, &j);
}

/* x (C, *big) = sum of cols (C*K, L) over the windows */
static void col2im(const tl_nn_conv_geom *g, const void *cols, void *x, int64_t C, bool f64)
{
  memset(x, 0, (size_t)(C * numel_of(g->nsp, g->big)) * (f64 ? 8 : 4));
  col2im_lines(g, cols, x, C, f64, 0, grid_lines(g));
}

/* ---- GEMM and the work layout ------------------------------------------------------- */

/* The work dtype's contiguous copy of t (t itself when it already is one). */
static const tl_tensor *as_work(const tl_tensor *t, tl_dtype work, tl_tensor *tmp)
{
  if (!t || (t->dtype == work && tl_tensor_is_contiguous(t)))
    return t;
  return tl_tensor_to_dtype(tmp, t, work) == TL_OK ? tmp : NULL;
}

/* Everything a kernel works on: contiguous work-dtype operands, a result in
 * the work dtype (out itself, or a temporary cast into out at the end) and
 * a scratch buffer for one sample's columns. */
typedef struct {
  tl_tensor tmp[3], res, scratch;
  const tl_tensor *in[3];
  tl_tensor *out, *final; /* where the kernel writes; the caller's result */
  bool f64;
  size_t es;
} work_set;

static tl_status work_begin(work_set *w, const tl_tensor *a, const tl_tensor *b, const tl_tensor *c,
                            tl_tensor *out, int64_t scratch_numel)
{
  tl_dtype work = out->dtype == TL_DTYPE_F64 ? TL_DTYPE_F64 : TL_DTYPE_F32;
  const tl_tensor *src[3] = {a, b, c};
  memset(w, 0, sizeof *w);
  w->f64 = work == TL_DTYPE_F64;
  w->es = w->f64 ? 8 : 4;
  for (int i = 0; i < 3; i++) {
    w->in[i] = as_work(src[i], work, &w->tmp[i]);
    if (src[i] && !w->in[i])
      return tl_error_status();
  }
  w->out = w->final = out;
  /* a result of another dtype, or laid out channels-last (conv.c allocates it so), is
   * computed row-major in the work dtype and copied in at the end */
  bool direct = out->dtype == work && tl_tensor_is_contiguous(out);
  if (!direct &&
      tl_tensor_empty(&w->res, work, out->ndim, out->shape, tl_tensor_device(out)) != TL_OK)
    return tl_error_status();
  if (!direct)
    w->out = &w->res;
  if (scratch_numel > 0 && tl_tensor_empty(&w->scratch, work, 1, &scratch_numel,
                                           tl_tensor_device(out)) != TL_OK)
    return tl_error_status();
  tl_storage_bump(out->storage);
  return TL_OK;
}

/* Cast the work result into the caller's (when they differ) and free the rest. */
static tl_status work_end(work_set *w, tl_status status)
{
  if (status == TL_OK && w->out != w->final)
    status = tl_tensor_copy(w->final, w->out);
  for (int i = 0; i < 3; i++)
    tl_tensor_release(&w->tmp[i]);
  tl_tensor_release(&w->res);
  tl_tensor_release(&w->scratch);
  return status;
}

static void *at(const work_set *w, const void *base, int64_t elems)
{
  return (char *)base + (size_t)elems * w->es;
}

/* rows x L of x (C-contiguous) += bias[row] */
static void add_bias(const work_set *w, void *x, const void *bias, int64_t rows, int64_t L)
{
  for (int64_t r = 0; r < rows; r++) {
    if (w->f64) {
      double *p = (double *)x + r * L, b = ((const double *)bias)[r];
      for (int64_t i = 0; i < L; i++)
        p[i] += b;
    } else {
      float *p = (float *)x + r * L, b = ((const float *)bias)[r];
      for (int64_t i = 0; i < L; i++)
        p[i] += b;
    }
  }
}

/* ---- the kernels ---------------------------------------------------------------------- */

/* Columns are made a chunk of grid lines at a time, about CHUNK_BYTES, so
 * that the GEMM reads them back from cache rather than memory; but at least
 * CHUNK_COLUMNS windows, so that the weight, which the GEMM packs again for
 * every chunk, is reused over enough columns to make that cost negligible. */
enum { CHUNK_BYTES = 1 << 20, CHUNK_COLUMNS = 512 };

typedef struct {
  int64_t N, Cb, Cs, K, L, image, Cbg, Csg, G; /* Cbg, Csg: channels per group */
  int64_t width, lines, chunk;                 /* grid lines of `width` windows, per chunk */
  bool pointwise;
} conv_dims;

static conv_dims dims_of(const tl_nn_conv_geom *g, const tl_tensor *big, const tl_tensor *small)
{
  conv_dims d = {.N = big->shape[0], .Cb = big->shape[1], .Cs = small->shape[1],
                 .K = kernel_numel(g), .L = numel_of(g->nsp, g->small),
                 .image = numel_of(g->nsp, g->big), .G = g->groups,
                 .pointwise = is_pointwise(g)};
  d.Cbg = d.Cb / d.G;
  d.Csg = d.Cs / d.G;
  d.width = g->small[g->nsp - 1];
  d.lines = grid_lines(g);
  int64_t line_bytes = d.Cb * d.K * d.width * (int64_t)tl_dtype_size(small->dtype);
  int64_t least = d.width > 0 ? (CHUNK_COLUMNS + d.width - 1) / d.width : 1;
  d.chunk = line_bytes > 0 ? CHUNK_BYTES / line_bytes : d.lines;
  d.chunk = d.chunk < least ? least : d.chunk > d.lines ? d.lines : d.chunk;
  d.chunk = d.chunk < 1 ? 1 : d.chunk; /* no lines (an empty grid): one empty chunk */
  return d;
}

/* ---- samples across threads ----------------------------------------------------------
 * Two ways to use the cores on a batch: one sample after another with
 * OpenBLAS threading each product, or the samples split across the thread
 * pool, each thread with its own columns and single-threaded products.  The
 * second wins whenever there are samples for every thread (ResNet-18's
 * 64x56x56 layer, batch 32, 2 threads: 1.6 s -> 0.15 s forward on a loaded
 * machine, where OpenBLAS's spinning threads lose their cores), so it is the
 * rule with a batch of at least two samples per thread. */

typedef struct conv_job conv_job;
/* Grid lines [q0, q1) of sample n, with a slot's columns buffer and weight
 * accumulator. */
typedef void (*sample_fn)(const conv_job *j, int64_t n, int64_t q0, int64_t q1, void *cols,
                          void *acc);

struct conv_job {
  const tl_nn_conv_geom *g;
  conv_dims d;
  const work_set *w;
  const void *a, *b, *bias; /* the kernel's two operands and bias (work dtype) */
  void *out;
  sample_fn sample;
  void (*slot_end)(const conv_job *j, void *cols, void *acc); /* after a slot's last sample */
  tl_conv_direct *direct; /* the direct path's plan (conv_direct.h), or NULL */
  bool direct_weight;     /* ... for the weight gradient */
  tl_conv_line *line;     /* the 1-d few-channel path's plan (conv_line.h), or NULL */
  bool splits;  /* a sample's chunks may run on different slots (their outputs do not overlap) */
  int64_t per;  /* work units per sample: its chunks when split, else 1 */
  int64_t slots, cols_numel, acc_numel;
  char *scratch; /* slots x columns, then slots - 1 accumulators */
};

static void *slot_cols(const conv_job *j, int64_t slot)
{
  return at(j->w, j->scratch, slot * j->cols_numel);
}

static void *slot_acc(const conv_job *j, int64_t slot)
{
  return slot == 0 ? j->out : at(j->w, j->scratch, j->slots * j->cols_numel +
                                                     (slot - 1) * j->acc_numel);
}

static void slots_range(void *ctx, int64_t begin, int64_t end, int worker)
{
  (void)worker;
  const conv_job *j = ctx;
  int64_t units = j->d.N * j->per;
  for (int64_t s = begin; s < end; s++)
    for (int64_t u = s * units / j->slots; u < (s + 1) * units / j->slots; u++) {
      int64_t n = u / j->per, q0 = j->per == 1 ? 0 : (u % j->per) * j->d.chunk;
      int64_t q1 = j->per == 1 || q0 + j->d.chunk > j->d.lines ? j->d.lines : q0 + j->d.chunk;
      j->sample(j, n, q0, q1, slot_cols(j, s), slot_acc(j, s));
    }
  for (int64_t s = begin; s < end && j->slot_end; s++)
    j->slot_end(j, slot_cols(j, s), slot_acc(j, s));
}

/* How many slots (threads with their own buffers) `units` of work get. */
static int64_t slots_for(int64_t units)
{
  int64_t t = tl_parallel_get_threads();
  return t > 1 && units >= 2 * t ? t : 1;
}

/* Set the job's work buffers up (columns per slot, plus accumulators of
 * acc_numel for the slots after the first) and run every sample. */
static tl_status run_samples(conv_job *j, work_set *w, const tl_tensor *a, const tl_tensor *b,
                             const tl_tensor *bias, tl_tensor *out, int64_t acc_numel)
{
  /* A batch too small to give every thread two samples is split by chunks
   * where the kernel allows it (a lone image on a busy machine). */
  int64_t t = tl_parallel_get_threads(), chunks = (j->d.lines + j->d.chunk - 1) / j->d.chunk;
  j->per = j->splits && j->d.N < 2 * t && chunks > 1 ? chunks : 1;
  j->slots = slots_for(j->d.N * j->per);
  j->cols_numel = j->line ? j->line->scratch_numel
                 : j->direct ? (j->direct_weight ? j->direct->weight_scratch_numel
                                                 : j->direct->scratch_numel)
                 : j->d.pointwise ? 0 : j->d.Cb * j->d.K * j->d.chunk * j->d.width;
  j->acc_numel = acc_numel;
  tl_status status = work_begin(w, a, b, bias, out, j->slots * j->cols_numel +
                                                     (j->slots - 1) * acc_numel);
  if (status != TL_OK)
    return work_end(w, status);
  j->w = w;
  j->a = tl_tensor_data(w->in[0]);
  j->b = tl_tensor_data(w->in[1]);
  j->bias = bias ? tl_tensor_data(w->in[2]) : NULL;
  j->out = tl_tensor_data(w->out);
  j->scratch = w->scratch.storage ? tl_tensor_data(&w->scratch) : NULL;
  if ((j->direct && !tl_conv_direct_pack(j->direct, j->direct_weight ? NULL : j->b)) ||
      (j->line && !tl_conv_line_pack(j->line, j->direct_weight ? NULL : j->b)))
    return work_end(w, tl_error_set(TL_ERR_MEMORY, "convolution: out of memory"));
  for (int64_t s = 0; s < j->slots && j->direct; s++)
    tl_conv_direct_scratch_init(slot_cols(j, s), j->cols_numel);
  if (acc_numel) /* every slot adds its samples into its accumulator */
    for (int64_t s = 0; s < j->slots; s++)
      memset(slot_acc(j, s), 0, (size_t)acc_numel * w->es);
  tl_unlocked unlocked = tl_parallel_unlock(j->d.N * j->d.Cs * j->d.L * j->d.Cbg * j->d.K);
  tl_linalg_parallel_products(j->slots, 1, slots_range, j);
  for (int64_t s = 1; s < j->slots && acc_numel; s++) { /* the slots' sums into the first */
    if (w->f64) {
      double *o = j->out;
      const double *p = slot_acc(j, s);
      for (int64_t i = 0; i < acc_numel; i++)
        o[i] += p[i];
    } else {
      float *o = j->out;
      const float *p = slot_acc(j, s);
      for (int64_t i = 0; i < acc_numel; i++)
        o[i] += p[i];
    }
  }
  tl_parallel_relock(&unlocked);
  return work_end(w, status);
}

/* ---- the kernels ----------------------------------------------------------------------- */

/* The columns of lines [q0, q1) of x (Cb, *big), a chunk at a time: cols
 * and its row length (x itself for a pointwise kernel, else the buffer). */
static const void *chunk_cols(const conv_job *j, const void *xn, void *scratch, int64_t q0,
                              int64_t q1, int64_t *ld)
{
  const conv_dims *d = &j->d;
  if (d->pointwise) {
    *ld = d->L;
    return at(j->w, xn, q0 * d->width);
  }
  *ld = (q1 - q0) * d->width;
  im2col_lines(j->g, xn, scratch, d->Cb, j->w->es, q0, q1);
  return scratch;
}

static int64_t chunk_end(const conv_dims *d, int64_t q0, int64_t q1)
{
  return q0 + d->chunk < q1 ? q0 + d->chunk : q1;
}

/* S[n] (Cs, L) = W (Cs, Cb/g*K) @ im2col(B[n]) + bias;  a = B, b = W, out = S */
static void conv_sample(const conv_job *j, int64_t n, int64_t qb, int64_t qe, void *scratch,
                        void *acc)
{
  (void)acc;
  const conv_dims *d = &j->d;
  const work_set *w = j->w;
  const void *xn = at(w, j->a, n * d->Cb * d->image);
  void *yn = at(w, j->out, n * d->Cs * d->L);
  bool add = j->bias || d->Cbg * d->K == 0; /* the products add to the bias (or to nothing) */
  for (int64_t q0 = qb; q0 < qe; q0 = chunk_end(d, q0, qe)) {
    int64_t q1 = chunk_end(d, q0, qe), l0 = q0 * d->width, Lc = (q1 - q0) * d->width, ld;
    for (int64_t r = 0; r < d->Cs && add; r++) { /* this chunk's columns of every row */
      memset(at(w, yn, r * d->L + l0), 0, (size_t)Lc * w->es);
      if (j->bias)
        add_bias(w, at(w, yn, r * d->L + l0), at(w, j->bias, r), 1, Lc);
    }
    const void *cols = chunk_cols(j, xn, scratch, q0, q1, &ld);
    for (int64_t gi = 0; gi < d->G; gi++)
      tl_nn_gemm(w->f64, false, false, d->Csg, Lc, d->Cbg * d->K,
           at(w, j->b, gi * d->Csg * d->Cbg * d->K), d->Cbg * d->K,
           at(w, cols, gi * d->Cbg * d->K * ld), ld, add ? 1.0 : 0.0,
           at(w, yn, gi * d->Csg * d->L + l0), d->L);
  }
}

/* B[n] (Cb, *big) = col2im(W^T (Cb/g*K, Cs/g) @ S[n]) + bias;  a = S, b = W, out = B.
 * Chunks of one sample add into the same image: never split across slots. */
static void conv_t_sample(const conv_job *j, int64_t n, int64_t qb, int64_t qe, void *scratch,
                          void *acc)
{
  (void)acc;
  const conv_dims *d = &j->d;
  const work_set *w = j->w;
  const void *sn = at(w, j->a, n * d->Cs * d->L);
  void *xn = at(w, j->out, n * d->Cb * d->image);
  if (!d->pointwise || d->Csg == 0) /* chunks add into the image (no product: it stays 0) */
    memset(xn, 0, (size_t)(d->Cb * d->image) * w->es);
  for (int64_t q0 = qb; q0 < qe && d->Csg > 0; q0 = chunk_end(d, q0, qe)) {
    int64_t q1 = chunk_end(d, q0, qe), l0 = q0 * d->width, Lc = (q1 - q0) * d->width;
    int64_t ld = d->pointwise ? d->L : Lc;
    void *cols = d->pointwise ? at(w, xn, l0) : scratch;
    for (int64_t gi = 0; gi < d->G; gi++)
      tl_nn_gemm(w->f64, true, false, d->Cbg * d->K, Lc, d->Csg,
           at(w, j->b, gi * d->Csg * d->Cbg * d->K), d->Cbg * d->K,
           at(w, sn, gi * d->Csg * d->L + l0), d->L, 0.0, at(w, cols, gi * d->Cbg * d->K * ld), ld);
    if (!d->pointwise)
      col2im_lines(j->g, cols, xn, d->Cb, w->f64, q0, q1);
  }
  if (j->bias)
    add_bias(w, xn, j->bias, d->Cb, d->image);
}

/* acc (Cs, Cb/g*K) += S[n] (Cs/g, L) @ im2col(B[n])^T per group;  a = S, b = B */
static void weight_sample(const conv_job *j, int64_t n, int64_t qb, int64_t qe, void *scratch,
                          void *acc)
{
  const conv_dims *d = &j->d;
  const work_set *w = j->w;
  const void *xn = at(w, j->b, n * d->Cb * d->image);
  for (int64_t q0 = qb; q0 < qe && d->L > 0; q0 = chunk_end(d, q0, qe)) {
    int64_t q1 = chunk_end(d, q0, qe), l0 = q0 * d->width, Lc = (q1 - q0) * d->width, ld;
    const void *cols = chunk_cols(j, xn, scratch, q0, q1, &ld);
    for (int64_t gi = 0; gi < d->G; gi++)
      tl_nn_gemm(w->f64, false, true, d->Csg, d->Cbg * d->K, Lc,
           at(w, j->a, (n * d->Cs + gi * d->Csg) * d->L + l0), d->L,
           at(w, cols, gi * d->Cbg * d->K * ld), ld, 1.0,
           at(w, acc, gi * d->Csg * d->Cbg * d->K), d->Cbg * d->K);
  }
}

/* Y[n] = the direct correlation of X[n] (conv_direct.h);  a = X, b = W, out = Y */
static void direct_sample(const conv_job *j, int64_t n, int64_t qb, int64_t qe, void *scratch,
                          void *acc)
{
  (void)qb, (void)qe, (void)acc;
  const tl_conv_direct *p = j->direct;
  tl_conv_direct_sample(p, (const float *)j->a + n * p->G * p->Ci * p->H * p->W, j->bias,
                        (float *)j->out + n * p->G * p->Co * p->Ho * p->Wo, scratch);
}

/* The slot's sums += S[n] correlated with B[n], directly;  a = S, b = B */
static void direct_weight_sample(const conv_job *j, int64_t n, int64_t qb, int64_t qe,
                                 void *scratch, void *acc)
{
  (void)qb, (void)qe, (void)acc;
  const tl_conv_direct *p = j->direct;
  tl_conv_direct_weight_sample(p, (const float *)j->b + n * p->G * p->Ci * p->H * p->W,
                               (const float *)j->a + n * p->G * p->Co * p->Ho * p->Wo, scratch);
}

/* acc (Cs, Cb/g*K) += the slot's sums */
static void direct_weight_end(const conv_job *j, void *scratch, void *acc)
{
  tl_conv_direct_weight_flush(j->direct, scratch, acc);
}

/* Y[n] from X[n] by the 1-d few-channel path;  a = X, b = W, out = Y */
static void line_sample(const conv_job *j, int64_t n, int64_t qb, int64_t qe, void *scratch,
                        void *acc)
{
  (void)qb, (void)qe, (void)acc;
  const tl_conv_line *p = j->line;
  tl_conv_line_sample(p, at(j->w, j->a, n * p->G * p->Ci * p->L), j->bias,
                      at(j->w, j->out, n * p->G * p->Co * p->Lo), scratch);
}

/* acc += S[n] correlated with B[n] by the 1-d path;  a = S, b = B */
static void line_weight_sample(const conv_job *j, int64_t n, int64_t qb, int64_t qe,
                               void *scratch, void *acc)
{
  (void)qb, (void)qe;
  const tl_conv_line *p = j->line;
  tl_conv_line_weight_sample(p, at(j->w, j->b, n * p->G * p->Ci * p->L),
                             at(j->w, j->a, n * p->G * p->Co * p->Lo), acc, scratch);
}

/* The 1-d few-channel path when it takes the geometry; arguments as
 * run_direct's.  A sample runs on one thread. */
static tl_status run_line(conv_job *j, bool transposed, bool weight_grad, int64_t cin,
                          int64_t cout, const tl_tensor *a, const tl_tensor *b,
                          const tl_tensor *bias, tl_tensor *out, int64_t acc_numel, bool *done)
{
  tl_conv_line plan;
  *done = false;
  if (!tl_conv_line_plan(&plan, j->g, transposed, weight_grad, cin, cout,
                         out->dtype == TL_DTYPE_F64))
    return TL_OK;
  work_set w;
  *done = true;
  j->line = &plan;
  j->direct_weight = weight_grad;
  j->sample = weight_grad ? line_weight_sample : line_sample;
  j->slot_end = NULL;
  j->splits = false;
  tl_status status = run_samples(j, &w, a, b, bias, out, acc_numel);
  tl_conv_line_free(&plan);
  return status;
}

/* The direct path when it takes the geometry (the plan for cin -> cout
 * channels; transposed: a transposed convolution's weight): float work, and
 * a batch that gives every thread samples (a sample runs on one thread).
 * *done says whether it ran; a, b, bias, out, acc_numel as run_samples. */
static tl_status run_direct(conv_job *j, bool transposed, bool weight_grad, int64_t cin,
                            int64_t cout, const tl_tensor *a, const tl_tensor *b,
                            const tl_tensor *bias, tl_tensor *out, int64_t acc_numel, bool *done)
{
  int64_t t = tl_parallel_get_threads();
  tl_conv_direct plan;
  *done = false;
  if (out->dtype == TL_DTYPE_F64 || (t > 1 && j->d.N < 2 * t) ||
      !tl_conv_direct_plan(&plan, j->g, transposed, cin, cout))
    return TL_OK;
  work_set w;
  *done = true;
  j->direct = &plan;
  j->direct_weight = weight_grad;
  j->sample = weight_grad ? direct_weight_sample : direct_sample;
  j->slot_end = weight_grad ? direct_weight_end : NULL;
  j->splits = false;
  tl_status status = run_samples(j, &w, a, b, bias, out, acc_numel);
  tl_conv_direct_free(&plan);
  return status;
}

static tl_status cpu_conv(const tl_tensor *big, const tl_tensor *weight, const tl_tensor *bias,
                          const tl_nn_conv_geom *g, tl_tensor *small)
{
  work_set w;
  bool done;
  conv_job j = {.g = g, .d = dims_of(g, big, small), .sample = conv_sample, .splits = true};
  tl_status status = tl_conv_nhwc_conv(big, weight, bias, g, small, &done);
  if (done)
    return status;
  status = run_line(&j, false, false, big->shape[1], small->shape[1], big, weight,
                              bias, small, 0, &done);
  if (!done)
    status = run_direct(&j, false, false, big->shape[1], small->shape[1], big, weight, bias,
                        small, 0, &done);
  return done ? status : run_samples(&j, &w, big, weight, bias, small, 0);
}

static tl_status cpu_conv_t(const tl_tensor *small, const tl_tensor *weight, const tl_tensor *bias,
                            const tl_nn_conv_geom *g, tl_tensor *big)
{
  work_set w;
  bool done;
  conv_job j = {.g = g, .d = dims_of(g, big, small), .sample = conv_t_sample};
  tl_status status = tl_conv_nhwc_conv_t(small, weight, bias, g, big, &done);
  if (done)
    return status;
  status = run_line(&j, true, false, small->shape[1], big->shape[1], small, weight,
                              bias, big, 0, &done);
  if (!done)
    status = run_direct(&j, true, false, small->shape[1], big->shape[1], small, weight, bias,
                        big, 0, &done);
  return done ? status : run_samples(&j, &w, small, weight, bias, big, 0);
}

static tl_status cpu_weight(const tl_tensor *small, const tl_tensor *big, const tl_nn_conv_geom *g,
                            tl_tensor *grad_weight)
{
  work_set w;
  bool done;
  int64_t acc = tl_tensor_numel(grad_weight);
  conv_job j = {.g = g, .d = dims_of(g, big, small), .sample = weight_sample, .splits = true};
  tl_status status = tl_conv_nhwc_weight(small, big, g, grad_weight, &done);
  if (done)
    return status;
  status = run_line(&j, false, true, big->shape[1], small->shape[1], small, big, NULL,
                              grad_weight, acc, &done);
  if (!done)
    status = run_direct(&j, false, true, big->shape[1], small->shape[1], small, big, NULL,
                        grad_weight, acc, &done);
  return done ? status : run_samples(&j, &w, small, big, NULL, grad_weight, acc);
}

/* im2col (to_cols: B (N, C, *big) -> (N, C*K, L)) or col2im (back), per sample. */
static tl_status fold_run(const tl_tensor *in, const tl_nn_conv_geom *g, tl_tensor *out,
                          bool to_cols)
{
  work_set w;
  tl_status status = work_begin(&w, in, NULL, NULL, out, 0);
  if (status != TL_OK)
    return work_end(&w, status);
  const tl_tensor *big = to_cols ? in : out, *cols = to_cols ? out : in;
  int64_t N = big->shape[0], C = big->shape[1], image = numel_of(g->nsp, g->big);
  int64_t per = cols->shape[1] * cols->shape[2];
  const void *src = tl_tensor_data(w.in[0]);
  void *dst = tl_tensor_data(w.out);
  for (int64_t n = 0; n < N; n++) {
    if (to_cols)
      im2col(g, at(&w, src, n * C * image), at(&w, dst, n * per), C, w.es);
    else
      col2im(g, at(&w, src, n * per), at(&w, dst, n * C * image), C, w.f64);
  }
  return work_end(&w, status);
}

static tl_status cpu_im2col(const tl_tensor *big, const tl_nn_conv_geom *g, tl_tensor *cols)
{
  return fold_run(big, g, cols, true);
}

static tl_status cpu_col2im(const tl_tensor *cols, const tl_nn_conv_geom *g, tl_tensor *big)
{
  return fold_run(cols, g, big, false);
}

const tl_nn_conv_kernels tl_cpu_conv_kernels = {
    .conv = cpu_conv,
    .conv_t = cpu_conv_t,
    .weight = cpu_weight,
    .im2col = cpu_im2col,
    .col2im = cpu_col2im,
    .any_layout = true,
};
