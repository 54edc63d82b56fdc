/* loss.cu - nll_loss, the elementwise losses and cross_entropy, with their
 * backward, on CUDA.
 *
 * Legend (tl_loss.h): input x (N, C, S) contiguous in the work type T, a row
 * r = (n, s) is its C class scores S elements apart; y (N*S) class indices
 * (in range or ignore_index: the C side checked them), or t (N, C, S)
 * probabilities; w (C) or NULL.
 *   forward   a row kernel writes each row's loss (and, for the class
 *             losses, its weight) as doubles into scratch, and the
 *             reduction='none' output; then one block (finish) adds the
 *             scratch in a fixed order, in double as the CPU does, into the
 *             0-d output and total_weight.  No atomics: results are the same
 *             run to run.
 *   backward  elementwise, or a row kernel; 'mean' reads total_weight on
 *             the device (no host sync).
 * cross_entropy takes a warp per row when S == 1 (the (N, C) case: lanes
 * stride over the contiguous classes) and a thread per row otherwise (then
 * neighbouring threads read neighbouring s). */
#include <cuda_runtime.h>

#include "gpu/nn/tl_cuda_rows.cuh"
#include "gpu/nn/tl_cuda_grid.cuh"
#include "gpu/nn/tl_gpu_act_loss.h"

/* the elementwise losses' element math: the CPU's own (loss_cpu.c) */
#define TL_LOSS_FN static __device__ __forceinline__
#include "nn/loss/tl_loss_elem.h"

namespace {

constexpr int THREADS = TL_GPU_THREADS;
constexpr int FINISH_THREADS = 1024;
enum { NONE = 0, MEAN = 1, SUM = 2 }; /* tl_reduction */

/* out[0] = sum(loss) (/ total for 'mean'), tw[0] = total: total is the sum
 * of wts, or `count` when wts is NULL.  One block. */
template <typename T>
__global__ void finish(const double *loss, const double *wts, int64_t rows, double count,
                       int reduction, T *out, T *tw)
{
  __shared__ double shared[32];
  double s = 0, ws = 0;
  for (int64_t i = threadIdx.x; i < rows; i += blockDim.x) {
    s += loss[i];
    if (wts)
      ws += wts[i];
  }
  s = tl_rows_reduce<false>(s, tl_rows_sum(), 0.0, shared);
  ws = wts ? tl_rows_reduce<false>(ws, tl_rows_sum(), 0.0, shared) : count;
  if (threadIdx.x == 0) {
    if (reduction != NONE)
      out[0] = (T)(reduction == MEAN ? s / ws : s);
    if (tw)
      tw[0] = (T)ws;
  }
}

template <typename T> int finish_launch(const tl_gpu_class_loss *a, int64_t rows, cudaStream_t s)
{
  finish<T><<<1, FINISH_THREADS, 0, s>>>(a->scratch, a->scratch + rows, rows, 0, a->reduction,
                                         (T *)a->out, (T *)a->tw);
  return (int)cudaGetLastError();
}

/* ---- nll_loss ---------------------------------------------------------------------- */

template <typename T> __global__ void nll_rows(tl_gpu_class_loss a)
{
  const T *x = (const T *)a.x, *w = (const T *)a.w;
  const int64_t rows = a.N * a.S;
  TL_GPU_GRID_LOOP(r, rows)
  {
    int64_t t = a.y[r];
    double v = 0, wc = 0;
    if (t != a.ignore_index) {
      wc = (double)w[t];
      v = -wc * (double)x[(r / a.S * a.C + t) * a.S + r % a.S];
    }
    if (a.reduction == NONE)
      ((T *)a.out)[r] = (T)v;
    a.scratch[r] = v;
    a.scratch[rows + r] = wc;
  }
}

template <typename T> __global__ void nll_backward_rows(tl_gpu_class_loss a)
{
  const T *w = (const T *)a.w, *g = (const T *)a.g;
  const double scale = a.reduction == MEAN ? 1 / (double)((const T *)a.tw_in)[0] : 1;
  TL_GPU_GRID_LOOP(r, a.N * a.S)
  {
    int64_t t = a.y[r];
    if (t == a.ignore_index)
      continue;
    double gv = (double)g[a.reduction == NONE ? r : 0];
    ((T *)a.dx)[(r / a.S * a.C + t) * a.S + r % a.S] = (T)(-(double)w[t] * gv * scale);
  }
}

/* ---- elementwise losses ------------------------------------------------------------- */

template <typename T> __global__ void pointwise(tl_gpu_pointwise_loss a)
{
  const T *x = (const T *)a.x, *t = (const T *)a.t, *w = (const T *)a.w, *p = (const T *)a.p;
  TL_GPU_GRID_LOOP(i, a.n)
  {
    double gx, gt;
    double l = tl_loss_elem(a.kind, a.param, (double)x[i], (double)t[i], w ? (double)w[i] : 1,
                            p ? (double)p[i] : 1, &gx, &gt);
    if (a.reduction == NONE)
      ((T *)a.out)[i] = (T)l;
    else
      a.scratch[i] = l;
  }
}

template <typename T> __global__ void pointwise_backward(tl_gpu_pointwise_loss a)
{
  const T *x = (const T *)a.x, *t = (const T *)a.t, *w = (const T *)a.w, *p = (const T *)a.p,
          *g = (const T *)a.g;
  const double scale = a.reduction == MEAN ? 1 / (double)a.n : 1;
  TL_GPU_GRID_LOOP(i, a.n)
  {
    double gx, gt, gv = (double)g[a.reduction == NONE ? i : 0] * scale;
    tl_loss_elem(a.kind, a.param, (double)x[i], (double)t[i], w ? (double)w[i] : 1,
                 p ? (double)p[i] : 1, &gx, &gt);
    ((T *)a.dx)[i] = (T)(gv * gx);
    ((T *)a.dt)[i] = (T)(gv * gt);
  }
}

/* ---- cross_entropy ------------------------------------------------------------------ */

/* A row's value across its LANES threads (32: a warp; 1: the thread itself). */
template <int LANES, typename T, typename Op> TL_DEV T row_reduce(T v, Op op)
{
  if constexpr (LANES == 32)
    return tl_rows_warp(v, op);
  else
    return v;
}

template <int LANES, typename T> __global__ void ce_rows(tl_gpu_class_loss a)
{
  const int64_t rows = a.N * a.S, C = a.C, st = a.S;
  const int lane = LANES == 32 ? threadIdx.x % 32 : 0;
  const int64_t per_block = blockDim.x / LANES;
  const T *w = (const T *)a.w, eps = (T)a.eps, uni = eps / (T)C;
  for (int64_t r = (int64_t)blockIdx.x * per_block + threadIdx.x / LANES; r < rows;
       r += (int64_t)gridDim.x * per_block) {
    const T *x = (const T *)a.x + r / a.S * C * a.S + r % a.S;
    T mx = -(T)INFINITY, sum = 0, loss = 0;
    double rw = 1;
    for (int64_t c = lane; c < C; c += LANES)
      mx = x[c * st] > mx ? x[c * st] : mx;
    mx = row_reduce<LANES>(mx, tl_rows_max());
    if (mx == -(T)INFINITY) /* every score -inf: the lse is -inf too, not NaN */
      mx = 0;
    for (int64_t c = lane; c < C; c += LANES)
      sum += exp(x[c * st] - mx);
    const T lse = mx + log(row_reduce<LANES>(sum, tl_rows_sum()));
    if (a.y) {
      const int64_t y = a.y[r];
      if (y == a.ignore_index) {
        rw = 0;
      } else {
        rw = w ? (double)w[y] : 1;
        loss = (1 - eps) * (w ? w[y] : (T)1) * (lse - x[y * st]);
        if (eps > 0) { /* eps / C sum_c w[c] (lse - x[c]) */
          T s = 0;
          for (int64_t c = lane; c < C; c += LANES)
            s += (w ? w[c] : (T)1) * (lse - x[c * st]);
          loss += uni * row_reduce<LANES>(s, tl_rows_sum());
        }
      }
    } else {
      const T *t = (const T *)a.t + r / a.S * C * a.S + r % a.S;
      for (int64_t c = lane; c < C; c += LANES)
        loss += (w ? w[c] : (T)1) * ((1 - eps) * t[c * st] + uni) * (lse - x[c * st]);
      loss = row_reduce<LANES>(loss, tl_rows_sum());
    }
    if (lane == 0) {
      ((T *)a.lse)[r] = lse;
      if (a.reduction == NONE)
        ((T *)a.out)[r] = loss;
      a.scratch[r] = (double)loss;
      a.scratch[rows + r] = rw;
    }
  }
}

template <int LANES, typename T> __global__ void ce_backward_rows(tl_gpu_class_loss a)
{
  const int64_t rows = a.N * a.S, C = a.C, st = a.S;
  const int lane = LANES == 32 ? threadIdx.x % 32 : 0;
  const int64_t per_block = blockDim.x / LANES;
  const T *w = (const T *)a.w, *g = (const T *)a.g, eps = (T)a.eps, uni = eps / (T)C;
  const double scale = a.reduction == MEAN ? 1 / (double)((const T *)a.tw_in)[0] : 1;
  for (int64_t r = (int64_t)blockIdx.x * per_block + threadIdx.x / LANES; r < rows;
       r += (int64_t)gridDim.x * per_block) {
    const int64_t at = r / a.S * C * a.S + r % a.S;
    const T *x = (const T *)a.x + at;
    T *dx = (T *)a.dx + at;
    const T k = (T)((double)g[a.reduction == NONE ? r : 0] * scale);
    const T lse = ((const T *)a.lse_in)[r];
    if (a.y) {
      const int64_t y = a.y[r];
      if (y == a.ignore_index) {
        for (int64_t c = lane; c < C; c += LANES)
          dx[c * st] = 0;
        continue;
      }
      T wsum = 0; /* sum of the weights over the classes (C without weight) */
      if (eps > 0) {
        for (int64_t c = lane; c < C; c += LANES)
          wsum += w ? w[c] : (T)1;
        wsum = row_reduce<LANES>(wsum, tl_rows_sum());
      }
      const T wy = w ? w[y] : (T)1, ka = k * ((1 - eps) * wy + uni * wsum), kb = k * uni;
      for (int64_t c = lane; c < C; c += LANES) {
        T d = ka * exp(x[c * st] - lse) - kb * (w ? w[c] : (T)1);
        dx[c * st] = c == y ? d - k * (1 - eps) * wy : d;
      }
      continue;
    }
    const T *t = (const T *)a.t + at;
    T s = 0;
    for (int64_t c = lane; c < C; c += LANES)
      s += (w ? w[c] : (T)1) * ((1 - eps) * t[c * st] + uni);
    s = row_reduce<LANES>(s, tl_rows_sum());
    for (int64_t c = lane; c < C; c += LANES) {
      const T wc = w ? w[c] : (T)1;
      dx[c * st] = k * (s * exp(x[c * st] - lse) - wc * ((1 - eps) * t[c * st] + uni));
      if (a.dt)
        ((T *)a.dt + at)[c * st] = k * (1 - eps) * wc * (lse - x[c * st]);
    }
  }
}

template <typename T> int ce_launch(const tl_gpu_class_loss *a, bool backward, cudaStream_t s)
{
  const int64_t rows = a->N * a->S;
  if (a->S == 1) {
    if (backward)
      ce_backward_rows<32, T><<<tl_gpu_blocks_for(rows, THREADS / 32), THREADS, 0, s>>>(*a);
    else
      ce_rows<32, T><<<tl_gpu_blocks_for(rows, THREADS / 32), THREADS, 0, s>>>(*a);
  } else {
    if (backward)
      ce_backward_rows<1, T><<<tl_gpu_blocks_for(rows), THREADS, 0, s>>>(*a);
    else
      ce_rows<1, T><<<tl_gpu_blocks_for(rows), THREADS, 0, s>>>(*a);
  }
  return (int)cudaGetLastError();
}

/* ---- margin losses ---------------------------------------------------------------------
 * A thread per row (rows are short: C class scores), margin_cpu.c's terms
 * in the same order. */

template <typename T> __global__ void margin_rows(tl_gpu_margin_loss a)
{
  const int64_t C = a.C;
  TL_GPU_GRID_LOOP(n, a.N)
  {
    const T *x = (const T *)a.x + n * C;
    double loss = 0;
    if (a.multi) {
      const int64_t y = a.y[n];
      const T xy = x[y], wy = a.w ? ((const T *)a.w)[y] : (T)1, margin = (T)a.margin;
      T sum = 0;
      for (int64_t i = 0; i < C; i++) {
        T z = margin - xy + x[i];
        sum += z > 0 && i != y ? (a.p == 1 ? z : z * z) : (T)0;
      }
      loss = (double)sum * (double)wy / (double)C;
    } else {
      const int64_t *t = a.y + n * C;
      T *is = (T *)a.is_out + n * C;
      for (int64_t i = 0; i < C; i++)
        is[i] = 0;
      for (int64_t q = 0; q < C && t[q] >= 0; q++)
        is[t[q]] = 1;
      for (int64_t q = 0; q < C && t[q] >= 0; q++) {
        T xt = x[t[q]], part = 0;
        for (int64_t i = 0; i < C; i++) {
          T z = 1 - xt + x[i];
          part += is[i] == 0 && z > 0 ? z : (T)0;
        }
        loss += (double)part;
      }
      loss /= (double)C;
    }
    if (a.reduction == NONE)
      ((T *)a.out)[n] = (T)loss;
    else
      a.scratch[n] = loss;
  }
}

template <typename T> __global__ void margin_backward_rows(tl_gpu_margin_loss a)
{
  const int64_t C = a.C;
  const double scale = a.reduction == MEAN ? 1 / (double)a.N : 1;
  TL_GPU_GRID_LOOP(n, a.N)
  {
    const T *x = (const T *)a.x + n * C;
    const double g = (double)((const T *)a.g)[a.reduction == NONE ? n : 0];
    T *dx = (T *)a.dx + n * C;
    if (a.multi) {
      const int64_t y = a.y[n];
      const T xy = x[y], wy = a.w ? ((const T *)a.w)[y] : (T)1, margin = (T)a.margin;
      const T k = (T)(g * scale) * wy / (T)C;
      T dy = 0;
      for (int64_t i = 0; i < C; i++) {
        T z = margin - xy + x[i];
        T d = z > 0 && i != y ? k * (a.p == 1 ? (T)1 : 2 * z) : (T)0;
        dx[i] = d;
        dy += d;
      }
      dx[y] = -dy;
      continue;
    }
    const int64_t *t = a.y + n * C;
    const T *is = (const T *)a.is_in + n * C;
    const T k = (T)(g * scale / (double)C);
    for (int64_t i = 0; i < C; i++)
      dx[i] = 0;
    for (int64_t q = 0; q < C && t[q] >= 0; q++) {
      T xt = x[t[q]], part = 0;
      for (int64_t i = 0; i < C; i++) {
        T on = is[i] == 0 && 1 - xt + x[i] > 0 ? k : (T)0;
        dx[i] += on;
        part += on;
      }
      dx[t[q]] -= part;
    }
  }
}

template <typename T> int margin_launch(const tl_gpu_margin_loss *a, cudaStream_t s)
{
  if (a->N > 0)
    margin_rows<T><<<tl_gpu_blocks_for(a->N), THREADS, 0, s>>>(*a);
  if (a->reduction != NONE)
    finish<T><<<1, FINISH_THREADS, 0, s>>>(a->scratch, nullptr, a->N, (double)a->N,
                                           a->reduction, (T *)a->out, nullptr);
  return (int)cudaGetLastError();
}

} // namespace

extern "C" int tl_gpu_margin_launch(const tl_gpu_margin_loss *a, void *stream)
{
  cudaStream_t s = (cudaStream_t)stream;
  return a->f64 ? margin_launch<double>(a, s) : margin_launch<float>(a, s);
}

extern "C" int tl_gpu_margin_backward_launch(const tl_gpu_margin_loss *a, void *stream)
{
  cudaStream_t s = (cudaStream_t)stream;
  if (a->N == 0 || a->C == 0)
    return 0;
  if (a->f64)
    margin_backward_rows<double><<<tl_gpu_blocks_for(a->N), THREADS, 0, s>>>(*a);
  else
    margin_backward_rows<float><<<tl_gpu_blocks_for(a->N), THREADS, 0, s>>>(*a);
  return (int)cudaGetLastError();
}

extern "C" int tl_gpu_nll_launch(const tl_gpu_class_loss *a, void *stream)
{
  cudaStream_t s = (cudaStream_t)stream;
  const int64_t rows = a->N * a->S;
  int err;
  if (rows > 0) {
    if (a->f64)
      nll_rows<double><<<tl_gpu_blocks_for(rows), THREADS, 0, s>>>(*a);
    else
      nll_rows<float><<<tl_gpu_blocks_for(rows), THREADS, 0, s>>>(*a);
    if ((err = (int)cudaGetLastError()))
      return err;
  }
  return a->f64 ? finish_launch<double>(a, rows, s) : finish_launch<float>(a, rows, s);
}

extern "C" int tl_gpu_nll_backward_launch(const tl_gpu_class_loss *a, void *stream)
{
  cudaStream_t s = (cudaStream_t)stream;
  const int64_t rows = a->N * a->S;
  if (rows == 0)
    return 0;
  if (a->f64)
    nll_backward_rows<double><<<tl_gpu_blocks_for(rows), THREADS, 0, s>>>(*a);
  else
    nll_backward_rows<float><<<tl_gpu_blocks_for(rows), THREADS, 0, s>>>(*a);
  return (int)cudaGetLastError();
}

extern "C" int tl_gpu_cross_entropy_launch(const tl_gpu_class_loss *a, void *stream)
{
  cudaStream_t s = (cudaStream_t)stream;
  const int64_t rows = a->N * a->S;
  int err;
  if (rows > 0 && a->C > 0 &&
      (err = a->f64 ? ce_launch<double>(a, false, s) : ce_launch<float>(a, false, s)))
    return err;
  if (a->t) { /* probabilities: total_weight is the row count */
    if (a->f64)
      finish<double><<<1, FINISH_THREADS, 0, s>>>(a->scratch, nullptr, rows, (double)rows,
                                                  a->reduction, (double *)a->out, (double *)a->tw);
    else
      finish<float><<<1, FINISH_THREADS, 0, s>>>(a->scratch, nullptr, rows, (double)rows,
                                                 a->reduction, (float *)a->out, (float *)a->tw);
    return (int)cudaGetLastError();
  }
  return a->f64 ? finish_launch<double>(a, rows, s) : finish_launch<float>(a, rows, s);
}

extern "C" int tl_gpu_cross_entropy_backward_launch(const tl_gpu_class_loss *a, void *stream)
{
  cudaStream_t s = (cudaStream_t)stream;
  if (a->N * a->S == 0 || a->C == 0)
    return 0;
  return a->f64 ? ce_launch<double>(a, true, s) : ce_launch<float>(a, true, s);
}

extern "C" int tl_gpu_pointwise_loss_launch(const tl_gpu_pointwise_loss *a, void *stream)
{
  cudaStream_t s = (cudaStream_t)stream;
  if (a->n > 0) {
    if (a->f64)
      pointwise<double><<<tl_gpu_blocks_for(a->n), THREADS, 0, s>>>(*a);
    else
      pointwise<float><<<tl_gpu_blocks_for(a->n), THREADS, 0, s>>>(*a);
  }
  if (a->reduction == NONE)
    return (int)cudaGetLastError();
  if (a->f64)
    finish<double><<<1, FINISH_THREADS, 0, s>>>(a->scratch, nullptr, a->n, (double)a->n,
                                                a->reduction, (double *)a->out, nullptr);
  else
    finish<float><<<1, FINISH_THREADS, 0, s>>>(a->scratch, nullptr, a->n, (double)a->n,
                                               a->reduction, (float *)a->out, nullptr);
  return (int)cudaGetLastError();
}

extern "C" int tl_gpu_pointwise_loss_backward_launch(const tl_gpu_pointwise_loss *a, void *stream)
{
  cudaStream_t s = (cudaStream_t)stream;
  if (a->n == 0)
    return 0;
  if (a->f64)
    pointwise_backward<double><<<tl_gpu_blocks_for(a->n), THREADS, 0, s>>>(*a);
  else
    pointwise_backward<float><<<tl_gpu_blocks_for(a->n), THREADS, 0, s>>>(*a);
  return (int)cudaGetLastError();
}
