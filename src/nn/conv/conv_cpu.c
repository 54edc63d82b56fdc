/* conv_cpu.c - the CPU's convolution kernels: im2col/col2im and OpenBLAS GEMM.
 *
 * Legend as in tl_conv.h: B = (N, Cb, *big), S = (N, Cs, L), W = (Cs, Cb/g, K).
 * Per sample, the columns of B are a (Cb*K, L) matrix whose row c*K + k holds
 * input channel c seen through kernel offset k at every window; a group's rows
 * are consecutive, so each group's product is one GEMM on sub-blocks.  A 1x1
 * kernel with stride 1 and no padding needs no columns: B[n] is its own.
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
#include "nn/conv/tl_conv.h"

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

/* One row of the columns, split at the last spatial dim: kernel offset koff
 * (per dim), and q, the index of the window over the leading dims.  Gives the
 * image offset of the line its windows read (false: that line lies in the
 * padding), and along the last dim the windows [lo, hi) that fall inside the
 * image, window o reading element o * stride + base of that line. */
typedef struct {
  int64_t lo, hi, base, off;
} window_line;

static bool window_line_of(const tl_nn_conv_geom *g, const int64_t *koff, int64_t q, window_line *w)
{
  int last = g->nsp - 1;
  int64_t off = 0, step = g->big[last];
  for (int d = last - 1; d >= 0; d--) {
    int64_t o = q % g->small[d];
    q /= g->small[d];
    int64_t i = o * g->stride[d] - g->padding[d] + koff[d] * g->dilation[d];
    if (i < 0 || i >= g->big[d])
      return false;
    off += i * step;
    step *= g->big[d];
  }
  int64_t s = g->stride[last], base = koff[last] * g->dilation[last] - g->padding[last];
  int64_t lo = base >= 0 ? 0 : (-base + s - 1) / s;
  int64_t hi = g->big[last] - 1 - base < 0 ? 0 : (g->big[last] - 1 - base) / s + 1;
  w->lo = lo;
  w->hi = hi < g->small[last] ? hi : g->small[last];
  if (w->hi < w->lo)
    w->hi = w->lo;
  w->base = base;
  w->off = off;
  return true;
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
  char *cols;    /* (C*K, L) */
  size_t es;
  int64_t K, L, image;
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
  int64_t width = g->small[last], lines = j->L / (width ? width : 1);
  int64_t koff[TL_NN_CONV_MAX_DIMS];
  for (int64_t r = begin; r < end; r++) {
    const char *xc = j->x + (size_t)((r / j->K) * j->image) * j->es;
    kernel_offsets(g, r % j->K, koff);
    for (int64_t q = 0; q < lines; q++) {
      char *dst = j->cols + (size_t)(r * j->L + q * width) * j->es;
      window_line w;
      if (!window_line_of(g, koff, q, &w)) {
        memset(dst, 0, (size_t)width * j->es);
        continue;
      }
      memset(dst, 0, (size_t)w.lo * j->es);
      memset(dst + (size_t)w.hi * j->es, 0, (size_t)(width - w.hi) * j->es);
      const char *src = xc + (size_t)(w.off + w.lo * g->stride[last] + w.base) * j->es;
      if (g->stride[last] == 1)
        memcpy(dst + (size_t)w.lo * j->es, src, (size_t)(w.hi - w.lo) * j->es);
      else
        strided_copy(dst + (size_t)w.lo * j->es, src, w.hi - w.lo, g->stride[last], j->es);
    }
  }
}

/* x (C, *big) -> cols (C*K, L) */
static void im2col(const tl_nn_conv_geom *g, const void *x, void *cols, int64_t C, size_t es)
{
  im2col_job j = {.g = g, .x = x, .cols = cols, .es = es, .K = kernel_numel(g),
                  .L = numel_of(g->nsp, g->small), .image = numel_of(g->nsp, g->big)};
  tl_parallel_for(C * j.K, 1 + 32768 / (j.L ? j.L : 1), im2col_range, &j);
}

/* ---- col2im: sums, typed ------------------------------------------------------------ */

typedef struct {
  const tl_nn_conv_geom *g;
  const void *cols; /* (C*K, L) */
  void *x;          /* (C, *big), zeroed by the caller */
  bool f64;
  int64_t K, L, image;
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
  int64_t width = g->small[last], lines = j->L / (width ? width : 1), s = g->stride[last];
  int64_t koff[TL_NN_CONV_MAX_DIMS];
  for (int64_t c = begin; c < end; c++) {
    for (int64_t k = 0; k < j->K; k++) {
      int64_t r = c * j->K + k;
      kernel_offsets(g, k, koff);
      for (int64_t q = 0; q < lines; q++) {
        window_line w;
        if (!window_line_of(g, koff, q, &w))
          continue;
        int64_t src = r * j->L + q * width + w.lo;
        int64_t dst = c * j->image + w.off + w.lo * s + w.base;
        if (j->f64)
          add_line_f64((double *)j->x + dst, (const double *)j->cols + src, w.hi - w.lo, s);
        else
          add_line_f32((float *)j->x + dst, (const float *)j->cols + src, w.hi - w.lo, s);
      }
    }
  }
}

/* x (C, *big) = sum of cols (C*K, L) over the windows (x zeroed first) */
static void col2im(const tl_nn_conv_geom *g, const void *cols, void *x, int64_t C, bool f64)
{
  col2im_job j = {.g = g, .cols = cols, .x = x, .f64 = f64, .K = kernel_numel(g),
                  .L = numel_of(g->nsp, g->small), .image = numel_of(g->nsp, g->big)};
  memset(x, 0, (size_t)(C * j.image) * (f64 ? 8 : 4));
  tl_parallel_for(C, 1 + 32768 / (j.K * j.L > 0 ? j.K * j.L : 1), col2im_range, &j);
}

/* ---- GEMM and the work layout ------------------------------------------------------- */

/* C (M x N) = A (M x K, or K x M if ta) @ B (K x N, or N x K if tb) + beta C,
 * row-major, in the work dtype. */
static void gemm(bool f64, bool ta, bool tb, int64_t M, int64_t N, int64_t K, const void *A,
                 int64_t lda, const void *B, int64_t ldb, double beta, void *C, int64_t ldc)
{
  if (M == 0 || N == 0)
    return;
  CBLAS_TRANSPOSE a = ta ? CblasTrans : CblasNoTrans, b = tb ? CblasTrans : CblasNoTrans;
  if (f64)
    TL_BLAS(cblas_dgemm)(CblasRowMajor, a, b, (int)M, (int)N, (int)K, 1.0, A, (int)lda, B,
                         (int)ldb, beta, C, (int)ldc);
  else
    TL_BLAS(cblas_sgemm)(CblasRowMajor, a, b, (int)M, (int)N, (int)K, 1.0f, A, (int)lda, B,
                         (int)ldb, (float)beta, C, (int)ldc);
}

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
  if (out->dtype != work &&
      tl_tensor_empty(&w->res, work, out->ndim, out->shape, tl_tensor_device(out)) != TL_OK)
    return tl_error_status();
  if (out->dtype != work)
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

typedef struct {
  int64_t N, Cb, Cs, K, L, image, Cbg, Csg, G; /* Cbg, Csg: channels per group */
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
  return d;
}

/* S[n] (Cs, L) = W (Cs, Cb/g*K) @ im2col(B[n]) + bias */
static tl_status cpu_conv(const tl_tensor *big, const tl_tensor *weight, const tl_tensor *bias,
                          const tl_nn_conv_geom *g, tl_tensor *small)
{
  conv_dims d = dims_of(g, big, small);
  work_set w;
  tl_status status = work_begin(&w, big, weight, bias, small, d.pointwise ? 0 : d.Cb * d.K * d.L);
  if (status != TL_OK)
    return work_end(&w, status);
  const void *x = tl_tensor_data(w.in[0]), *wt = tl_tensor_data(w.in[1]);
  void *y = tl_tensor_data(w.out);
  int64_t work = d.N * d.Cs * d.L * d.Cbg * d.K;
  tl_unlocked unlocked = tl_parallel_unlock(work);
  for (int64_t n = 0; n < d.N; n++) {
    const void *xn = at(&w, x, n * d.Cb * d.image);
    void *yn = at(&w, y, n * d.Cs * d.L);
    const void *cols = xn;
    if (!d.pointwise) {
      im2col(g, xn, tl_tensor_data(&w.scratch), d.Cb, w.es);
      cols = tl_tensor_data(&w.scratch);
    }
    if (bias || d.Cbg * d.K == 0) /* the products add to the bias (or to nothing) */
      memset(yn, 0, (size_t)(d.Cs * d.L) * w.es);
    if (bias)
      add_bias(&w, yn, tl_tensor_data(w.in[2]), d.Cs, d.L);
    for (int64_t gi = 0; gi < d.G; gi++)
      gemm(w.f64, false, false, d.Csg, d.L, d.Cbg * d.K, at(&w, wt, gi * d.Csg * d.Cbg * d.K),
           d.Cbg * d.K, at(&w, cols, gi * d.Cbg * d.K * d.L), d.L, bias || d.Cbg * d.K == 0 ? 1.0 : 0.0,
           at(&w, yn, gi * d.Csg * d.L), d.L);
  }
  tl_parallel_relock(&unlocked);
  return work_end(&w, status);
}

/* B[n] (Cb, *big) = col2im(W^T (Cb/g*K, Cs/g) @ S[n]) + bias */
static tl_status cpu_conv_t(const tl_tensor *small, const tl_tensor *weight, const tl_tensor *bias,
                            const tl_nn_conv_geom *g, tl_tensor *big)
{
  conv_dims d = dims_of(g, big, small);
  work_set w;
  tl_status status = work_begin(&w, small, weight, bias, big, d.pointwise ? 0 : d.Cb * d.K * d.L);
  if (status != TL_OK)
    return work_end(&w, status);
  const void *s = tl_tensor_data(w.in[0]), *wt = tl_tensor_data(w.in[1]);
  void *x = tl_tensor_data(w.out);
  int64_t work = d.N * d.Cs * d.L * d.Cbg * d.K;
  tl_unlocked unlocked = tl_parallel_unlock(work);
  for (int64_t n = 0; n < d.N; n++) {
    const void *sn = at(&w, s, n * d.Cs * d.L);
    void *xn = at(&w, x, n * d.Cb * d.image);
    void *cols = d.pointwise ? xn : tl_tensor_data(&w.scratch);
    for (int64_t gi = 0; gi < d.G; gi++)
      gemm(w.f64, true, false, d.Cbg * d.K, d.L, d.Csg, at(&w, wt, gi * d.Csg * d.Cbg * d.K),
           d.Cbg * d.K, at(&w, sn, gi * d.Csg * d.L), d.L, 0.0,
           at(&w, cols, gi * d.Cbg * d.K * d.L), d.L);
    if (d.Csg == 0) /* no product wrote the columns */
      memset(cols, 0, (size_t)(d.Cb * d.K * d.L) * w.es);
    if (!d.pointwise)
      col2im(g, cols, xn, d.Cb, w.f64);
    if (bias)
      add_bias(&w, xn, tl_tensor_data(w.in[2]), d.Cb, d.image);
  }
  tl_parallel_relock(&unlocked);
  return work_end(&w, status);
}

/* dW (Cs, Cb/g*K) = sum_n S[n] (Cs/g, L) @ im2col(B[n])^T, per group */
static tl_status cpu_weight(const tl_tensor *small, const tl_tensor *big, const tl_nn_conv_geom *g,
                            tl_tensor *grad_weight)
{
  conv_dims d = dims_of(g, big, small);
  work_set w;
  tl_status status = work_begin(&w, small, big, NULL, grad_weight,
                                d.pointwise ? 0 : d.Cb * d.K * d.L);
  if (status != TL_OK)
    return work_end(&w, status);
  const void *s = tl_tensor_data(w.in[0]), *x = tl_tensor_data(w.in[1]);
  void *dw = tl_tensor_data(w.out);
  int64_t work = d.N * d.Cs * d.L * d.Cbg * d.K;
  memset(dw, 0, (size_t)(d.Cs * d.Cbg * d.K) * w.es);
  tl_unlocked unlocked = tl_parallel_unlock(work);
  for (int64_t n = 0; n < d.N && d.L > 0; n++) {
    const void *xn = at(&w, x, n * d.Cb * d.image);
    const void *cols = xn;
    if (!d.pointwise) {
      im2col(g, xn, tl_tensor_data(&w.scratch), d.Cb, w.es);
      cols = tl_tensor_data(&w.scratch);
    }
    for (int64_t gi = 0; gi < d.G; gi++)
      gemm(w.f64, false, true, d.Csg, d.Cbg * d.K, d.L, at(&w, s, (n * d.Cs + gi * d.Csg) * d.L),
           d.L, at(&w, cols, gi * d.Cbg * d.K * d.L), d.L, 1.0,
           at(&w, dw, gi * d.Csg * d.Cbg * d.K), d.Cbg * d.K);
  }
  tl_parallel_relock(&unlocked);
  return work_end(&w, status);
}

static tl_status cpu_im2col(const tl_tensor *big, const tl_nn_conv_geom *g, tl_tensor *cols)
{
  work_set w;
  tl_status status = work_begin(&w, big, NULL, NULL, cols, 0);
  if (status != TL_OK)
    return work_end(&w, status);
  int64_t N = big->shape[0], C = big->shape[1], image = numel_of(g->nsp, g->big);
  int64_t per = cols->shape[1] * cols->shape[2];
  for (int64_t n = 0; n < N; n++)
    im2col(g, at(&w, tl_tensor_data(w.in[0]), n * C * image),
           at(&w, tl_tensor_data(w.out), n * per), C, w.es);
  return work_end(&w, status);
}

static tl_status cpu_col2im(const tl_tensor *cols, const tl_nn_conv_geom *g, tl_tensor *big)
{
  work_set w;
  tl_status status = work_begin(&w, cols, NULL, NULL, big, 0);
  if (status != TL_OK)
    return work_end(&w, status);
  int64_t N = big->shape[0], C = big->shape[1], image = numel_of(g->nsp, g->big);
  int64_t per = cols->shape[1] * cols->shape[2];
  for (int64_t n = 0; n < N; n++)
    col2im(g, at(&w, tl_tensor_data(w.in[0]), n * per),
           at(&w, tl_tensor_data(w.out), n * C * image), C, w.f64);
  return work_end(&w, status);
}

const tl_nn_conv_kernels tl_cpu_conv_kernels = {
    .conv = cpu_conv,
    .conv_t = cpu_conv_t,
    .weight = cpu_weight,
    .im2col = cpu_im2col,
    .col2im = cpu_col2im,
};
