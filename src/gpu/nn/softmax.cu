/* softmax.cu - softmax, log_softmax and their backward on CUDA.
 *
 * Legend: the tensor is (outer, len, inner) around the softmax dim, in the
 * work type T (float or double; the C side casts half types).  Stable: the
 * row's max is subtracted before exp.
 *   inner == 1  each row is contiguous: a warp takes a row of up to 1024
 *               elements (8 rows per block), a block of 256 or 512 threads
 *               a longer one; the threads stride along the row, so loads are
 *               coalesced, and tl_cuda_rows.cuh combines their partials.
 *   inner > 1   a thread per (outer, inner) column walks its len elements
 *               `inner` apart: neighbouring threads read neighbouring
 *               elements, so these loads are coalesced too.
 * Forward (g NULL) reads x three times (max, sum of exp, write); backward
 * (x the forward's output y) twice:
 *   softmax      dx = y (g - sum(g y))       log_softmax  dx = g - exp(y) sum(g) */
#include <cuda_runtime.h>

#include "gpu/nn/tl_cuda_rows.cuh"
#include "gpu/nn/tl_cuda_grid.cuh"
#include "gpu/nn/tl_gpu_act_loss.h"

namespace {

constexpr int THREADS = TL_GPU_THREADS;

template <bool WARP, typename T>
__global__ void softmax_rows(const T *x, const T *g, T *y, int64_t rows, int64_t len, bool log)
{
  __shared__ T shared[32];
  const tl_rows_walk<WARP> walk;
  const int lanes = walk.lanes, lane = walk.lane;
  const T inf = (T)INFINITY;
  /* the loop is uniform over the warp (block): every thread reduces */
  for (int64_t r = walk.first; r < rows; r += walk.step) {
    const T *xr = x + r * len;
    T *yr = y + r * len;
    if (g) {
      const T *gr = g + r * len;
      T s = 0;
      for (int64_t i = lane; i < len; i += lanes)
        s += log ? gr[i] : gr[i] * xr[i];
      s = tl_rows_reduce<WARP>(s, tl_rows_sum(), (T)0, shared);
      for (int64_t i = lane; i < len; i += lanes)
        yr[i] = log ? gr[i] - exp(xr[i]) * s : xr[i] * (gr[i] - s);
      continue;
    }
    T m = -inf, s = 0;
    for (int64_t i = lane; i < len; i += lanes)
      m = xr[i] > m ? xr[i] : m;
    m = tl_rows_reduce<WARP>(m, tl_rows_max(), -inf, shared);
    for (int64_t i = lane; i < len; i += lanes)
      s += exp(xr[i] - m);
    s = tl_rows_reduce<WARP>(s, tl_rows_sum(), (T)0, shared);
    if (log) {
      const T c = m + ::log(s);
      for (int64_t i = lane; i < len; i += lanes)
        yr[i] = xr[i] - c;
    } else {
      const T inv = 1 / s;
      for (int64_t i = lane; i < len; i += lanes)
        yr[i] = exp(xr[i] - m) * inv;
    }
  }
}

template <typename T>
__global__ void softmax_columns(const T *x, const T *g, T *y, int64_t outer, int64_t len,
                                int64_t inner, bool log)
{
  const int64_t cols = outer * inner, step = (int64_t)gridDim.x * blockDim.x;
  for (int64_t c = (int64_t)blockIdx.x * blockDim.x + threadIdx.x; c < cols; c += step) {
    const int64_t at = c / inner * len * inner + c % inner;
    const T *xc = x + at;
    T *yc = y + at;
    if (g) {
      const T *gc = g + at;
      T s = 0;
      for (int64_t i = 0; i < len; i++)
        s += log ? gc[i * inner] : gc[i * inner] * xc[i * inner];
      for (int64_t i = 0; i < len; i++)
        yc[i * inner] = log ? gc[i * inner] - exp(xc[i * inner]) * s
                            : xc[i * inner] * (gc[i * inner] - s);
      continue;
    }
    T m = -(T)INFINITY, s = 0;
    for (int64_t i = 0; i < len; i++)
      m = xc[i * inner] > m ? xc[i * inner] : m;
    for (int64_t i = 0; i < len; i++)
      s += exp(xc[i * inner] - m);
    const T k = log ? m + ::log(s) : 1 / s;
    for (int64_t i = 0; i < len; i++)
      yc[i * inner] = log ? xc[i * inner] - k : exp(xc[i * inner] - m) * k;
  }
}

template <typename T>
int launch(const T *x, const T *g, T *y, int64_t outer, int64_t len, int64_t inner, bool log,
           cudaStream_t s)
{
  if (outer == 0 || len == 0 || inner == 0)
    return 0;
  if (inner > 1)
    softmax_columns<T><<<tl_gpu_blocks_for(outer * inner, THREADS), THREADS, 0, s>>>(x, g, y, outer, len,
                                                                             inner, log);
  else if (len <= 1024)
    softmax_rows<true, T><<<tl_gpu_blocks_for(outer, THREADS / 32), THREADS, 0, s>>>(x, g, y, outer,
                                                                            len, log);
  else {
    const int threads = len > 8192 ? 512 : THREADS;
    softmax_rows<false, T><<<tl_gpu_blocks_for(outer, 1), threads, 0, s>>>(x, g, y, outer, len, log);
  }
  return (int)cudaGetLastError();
}

} // namespace

extern "C" int tl_gpu_softmax_launch(const void *x, const void *g, void *y, int64_t outer,
                                     int64_t len, int64_t inner, int log, int f64, void *stream)
{
  cudaStream_t s = (cudaStream_t)stream;
  if (f64)
    return launch((const double *)x, (const double *)g, (double *)y, outer, len, inner, log, s);
  return launch((const float *)x, (const float *)g, (float *)y, outer, len, inner, log, s);
}
