/* embedding_cpu.c - the CPU's embedding lookups, bags and their backward.
 *
 * Lookups copy rows (any dtype).  Sums work in float for float32, float16
 * and bfloat16 and in double for float64 (other dtypes through contiguous
 * work copies, the result cast last).  The backward ops scatter-add rows
 * with the vocabulary split across the thread pool: each thread scans every
 * index and adds only those of its own rows, so rows are written by one
 * thread and in index order, whatever the thread count. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "ndcore/dispatch/tl_parallel.h"
#include "ndcore/kernels/tl_vecmath.h"
#include "nn/embedding/tl_embedding.h"

/* ---- typed row helpers ------------------------------------------------------------ */
TL_VECMATH_BEGIN
#define TL_EMB_ROWS(axpy, rmax, T)                                                              \
  /* y += a x over e elements */                                                                \
  static inline void axpy(T *restrict y, const T *restrict x, T a, int64_t e)                   \
  {                                                                                             \
    _Pragma("omp simd") for (int64_t k = 0; k < e; k++) y[k] += a * x[k];                       \
  }                                                                                             \
  /* y = max(y, x) elementwise, arg = v where x won (NaN wins, as PyTorch's max) */            \
  static inline void rmax(T *restrict y, int64_t *restrict arg, const T *restrict x, int64_t v, \
                          int64_t e)                                                            \
  {                                                                                             \
    for (int64_t k = 0; k < e; k++)                                                             \
      if (arg[k] < 0 || x[k] > y[k] || x[k] != x[k]) {                                          \
        y[k] = x[k];                                                                            \
        arg[k] = v;                                                                             \
      }                                                                                         \
  }
TL_EMB_ROWS(axpy_f32, rmax_f32, float)
TL_EMB_ROWS(axpy_f64, rmax_f64, double)
TL_VECMATH_END

static const tl_tensor *as_work(const tl_tensor *t, tl_dtype work, tl_tensor *tmp)
{
  if (!t || (t->dtype == work && tl_tensor_is_contiguous(t)))
    return t;
  return tl_tensor_to_dtype(tmp, t, work) == TL_OK ? tmp : NULL;
}

/* ---- lookup ------------------------------------------------------------------------- */

typedef struct {
  const char *w;
  char *out;
  const int64_t *idx;
  size_t row; /* bytes */
} lookup_job;

static void lookup_range(void *ctx, int64_t begin, int64_t end, int worker)
{
  (void)worker;
  const lookup_job *j = ctx;
  for (int64_t i = begin; i < end; i++)
    memcpy(j->out + (size_t)i * j->row, j->w + (size_t)j->idx[i] * j->row, j->row);
}

static tl_status cpu_forward(const tl_tensor *weight, const tl_tensor *idx, tl_tensor *out)
{
  int64_t n = tl_tensor_numel(idx);
  lookup_job j = {.w = tl_tensor_data(weight), .out = tl_tensor_data(out),
                  .idx = tl_tensor_data(idx),
                  .row = (size_t)weight->shape[1] * tl_dtype_size(weight->dtype)};
  if (n > 0 && j.row > 0) {
    tl_storage_bump(out->storage);
    tl_parallel_for(n, 1 + 65536 / (int64_t)(j.row + 1), lookup_range, &j);
  }
  return TL_OK;
}

/* ---- scatter-add backward ----------------------------------------------------------- */

typedef struct {
  const void *g, *psw;
  void *dw;
  const int64_t *idx, *bag_of, *bag_size, *argmax, *count;
  int64_t n, e, pad, nbags;
  tl_bag_mode mode;
  bool bags, f64;
} scatter_job;

/* The factor index i's row of g is added with. */
static inline double factor(const scatter_job *j, int64_t i, int64_t *row)
{
  double f = 1;
  *row = i;
  if (j->bags) {
    *row = j->bag_of[i];
    if (j->mode == TL_BAG_MEAN)
      f = 1.0 / (double)j->bag_size[*row];
    if (j->psw)
      f *= j->f64 ? ((const double *)j->psw)[i] : ((const float *)j->psw)[i];
  } else if (j->count) {
    f = 1.0 / (double)j->count[j->idx[i]];
  }
  return f;
}

/* Rows [v0, v1) of dw. */
TL_SIMD_CLONES
static void scatter_range(void *ctx, int64_t v0, int64_t v1, int worker)
{
  (void)worker;
  const scatter_job *j = ctx;
  int64_t e = j->e;
  if (j->bags && j->mode == TL_BAG_MAX) {
    for (int64_t b = 0; b < j->nbags; b++)
      for (int64_t k = 0; k < e; k++) {
        int64_t v = j->argmax[b * e + k];
        if (v < v0 || v >= v1)
          continue;
        if (j->f64)
          ((double *)j->dw)[v * e + k] += ((const double *)j->g)[b * e + k];
        else
          ((float *)j->dw)[v * e + k] += ((const float *)j->g)[b * e + k];
      }
    return;
  }
  for (int64_t i = 0; i < j->n; i++) {
    int64_t v = j->idx[i], row;
    if (v < v0 || v >= v1 || v == j->pad || (j->bags && j->bag_of[i] < 0))
      continue;
    double f = factor(j, i, &row);
    if (j->f64)
      axpy_f64((double *)j->dw + v * e, (const double *)j->g + row * e, f, e);
    else
      axpy_f32((float *)j->dw + v * e, (const float *)j->g + row * e, (float)f, e);
  }
}

/* dw (zeroed, V x E, of g's dtype) += the job's rows. */
static tl_status scatter(scatter_job *j, const tl_tensor *g, const tl_tensor *psw, tl_tensor *dw)
{
  tl_dtype work = g->dtype == TL_DTYPE_F64 ? TL_DTYPE_F64 : TL_DTYPE_F32;
  tl_tensor gt = {0}, pt = {0}, dt = {0};
  tl_status status = TL_OK;
  const tl_tensor *gw = as_work(g, work, &gt), *pw = as_work(psw, work, &pt);
  tl_tensor *dww = dw;
  if (gw && (!psw || pw) && dw->dtype != work) {
    dww = tl_tensor_zeros(&dt, work, dw->ndim, dw->shape, tl_tensor_device(dw)) == TL_OK ? &dt : NULL;
  }
  if (!gw || (psw && !pw) || !dww) {
    status = tl_error_status();
    goto done;
  }
  j->g = tl_tensor_data(gw);
  j->psw = pw ? tl_tensor_data(pw) : NULL;
  j->dw = tl_tensor_data(dww);
  j->f64 = work == TL_DTYPE_F64;
  int64_t V = dw->shape[0];
  if (V > 0 && j->e > 0) {
    tl_storage_bump(dw->storage);
    tl_parallel_for(V, 1 + V / 64, scatter_range, j);
  }
  if (dww != dw)
    status = tl_tensor_copy(dw, dww);
done:
  tl_tensor_release(&gt);
  tl_tensor_release(&pt);
  tl_tensor_release(&dt);
  return status;
}

static tl_status cpu_backward(const tl_tensor *g, const tl_tensor *idx, int64_t padding_idx,
                              bool freq, tl_tensor *dw)
{
  int64_t n = tl_tensor_numel(idx), V = dw->shape[0];
  int64_t *count = NULL;
  const int64_t *iv = tl_tensor_data(idx);
  if (freq) {
    if (!(count = calloc((size_t)(V > 0 ? V : 1), sizeof *count)))
      return tl_error_set(TL_ERR_MEMORY, "embedding_dense_backward(): out of memory");
    for (int64_t i = 0; i < n; i++)
      count[iv[i]]++;
  }
  scatter_job j = {.idx = iv, .count = count, .n = n, .e = dw->shape[1], .pad = padding_idx};
  tl_status status = scatter(&j, g, NULL, dw);
  free(count);
  return status;
}

/* ---- bags --------------------------------------------------------------------------- */

typedef struct {
  const void *w, *psw;
  void *out;
  const int64_t *idx, *bounds;
  int64_t *bag_size, *argmax;
  int64_t e, pad;
  tl_bag_mode mode;
  bool f64;
} bag_job;

TL_SIMD_CLONES
static void bag_range(void *ctx, int64_t begin, int64_t end, int worker)
{
  (void)worker;
  const bag_job *j = ctx;
  int64_t e = j->e;
  for (int64_t b = begin; b < end; b++) {
    int64_t count = 0;
    int64_t *arg = j->mode == TL_BAG_MAX ? j->argmax + b * e : NULL;
    if (arg)
      for (int64_t k = 0; k < e; k++)
        arg[k] = -1;
    for (int64_t i = j->bounds[b]; i < j->bounds[b + 1]; i++) {
      int64_t v = j->idx[i];
      if (v == j->pad)
        continue;
      count++;
      if (j->f64) {
        const double *row = (const double *)j->w + v * e;
        double *o = (double *)j->out + b * e;
        if (arg)
          rmax_f64(o, arg, row, v, e);
        else
          axpy_f64(o, row, j->psw ? ((const double *)j->psw)[i] : 1.0, e);
      } else {
        const float *row = (const float *)j->w + v * e;
        float *o = (float *)j->out + b * e;
        if (arg)
          rmax_f32(o, arg, row, v, e);
        else
          axpy_f32(o, row, j->psw ? ((const float *)j->psw)[i] : 1.0f, e);
      }
    }
    j->bag_size[b] = count;
    if (j->mode == TL_BAG_MEAN && count > 0) {
      for (int64_t k = 0; k < e; k++) {
        if (j->f64)
          ((double *)j->out)[b * e + k] /= (double)count;
        else
          ((float *)j->out)[b * e + k] /= (float)count;
      }
    }
  }
}

static tl_status cpu_bag_forward(const tl_tensor *weight, const tl_tensor *idx,
                                 const tl_tensor *bounds, const tl_tensor *psw, tl_bag_mode mode,
                                 int64_t padding_idx, tl_tensor *out, tl_tensor *bag_size,
                                 tl_tensor *argmax)
{
  tl_dtype work = weight->dtype == TL_DTYPE_F64 ? TL_DTYPE_F64 : TL_DTYPE_F32;
  tl_tensor wt = {0}, pt = {0}, ot = {0};
  tl_status status = TL_OK;
  const tl_tensor *ww = as_work(weight, work, &wt), *pw = as_work(psw, work, &pt);
  tl_tensor *ow = out;
  if (ww && (!psw || pw) && out->dtype != work)
    ow = tl_tensor_zeros(&ot, work, out->ndim, out->shape, tl_tensor_device(out)) == TL_OK ? &ot : NULL;
  if (!ww || (psw && !pw) || !ow) {
    status = tl_error_status();
    goto done;
  }
  bag_job j = {.w = tl_tensor_data(ww), .psw = pw ? tl_tensor_data(pw) : NULL,
               .out = tl_tensor_data(ow), .idx = tl_tensor_data(idx),
               .bounds = tl_tensor_data(bounds), .bag_size = tl_tensor_data(bag_size),
               .argmax = mode == TL_BAG_MAX ? tl_tensor_data(argmax) : NULL,
               .e = weight->shape[1], .pad = padding_idx, .mode = mode,
               .f64 = work == TL_DTYPE_F64};
  int64_t B = bag_size->shape[0];
  if (B > 0) {
    tl_storage_bump(out->storage);
    tl_parallel_for(B, 1 + 4096 / (j.e + 1), bag_range, &j);
  }
  if (ow != out)
    status = tl_tensor_copy(out, ow);
done:
  tl_tensor_release(&wt);
  tl_tensor_release(&pt);
  tl_tensor_release(&ot);
  return status;
}

static tl_status cpu_bag_backward(const tl_tensor *g, const tl_tensor *idx, const tl_tensor *bag_of,
                                  const tl_tensor *bag_size, const tl_tensor *argmax,
                                  const tl_tensor *psw, tl_bag_mode mode, int64_t padding_idx,
                                  tl_tensor *dw)
{
  scatter_job j = {.idx = tl_tensor_data(idx), .bag_of = tl_tensor_data(bag_of),
                   .bag_size = tl_tensor_data(bag_size),
                   .argmax = mode == TL_BAG_MAX ? tl_tensor_data(argmax) : NULL,
                   .n = tl_tensor_numel(idx), .e = dw->shape[1], .pad = padding_idx,
                   .nbags = bag_size->shape[0], .mode = mode, .bags = true};
  return scatter(&j, g, psw, dw);
}

const tl_nn_embedding_kernels tl_cpu_embedding_kernels = {
    .forward = cpu_forward,
    .backward = cpu_backward,
    .bag_forward = cpu_bag_forward,
    .bag_backward = cpu_bag_backward,
};
