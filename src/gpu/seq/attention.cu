/* attention.cu - the row kernels of scaled dot-product attention on CUDA
 * (tl_gpu_seq.h), the device's part of the device-neutral driver
 * (src/nn/attention/attention_device.c, which runs cuBLAS's GEMMs between
 * them).  What each does to score x of key j (the masks and the dropout
 * rule are attention_tile.h's, shared with the host loops of the emulated
 * device, so both read the same mask elements and the same Philox words as
 * the CPU's kernel):
 *   forward   masked; p = exp(x - m) / l (m the row's max, l its sum of
 *             exp; a row with nothing to attend gives p = 0, lse = -inf),
 *             then dropped out (times 0 or 1 / (1 - p)); lse = m + log(l)
 *   backward  p = exp(x - lse) (0 where either is -inf); pd = p dropped
 *             out; dS = p (Z dP - D); D = rowsum(dO * O)
 * The forward takes a warp per row up to 1024 keys, else a block of 256
 * threads, combining partials in a fixed order (tl_cuda_rows.cuh); the
 * backward's kernels are elementwise, a thread per score; rowdot a warp a
 * row. */
#include <cuda_runtime.h>

#include "gpu/nn/tl_cuda_grid.cuh"
#include "gpu/nn/tl_cuda_rows.cuh"
#include "gpu/seq/tl_gpu_seq.h"

namespace {

/* score x of key j of row w after the masks */
template <typename T>
__device__ __forceinline__ T masked(const tl_attn_tile &t, tl_attn_where w, int64_t j, T x)
{
  int64_t add;
  if (tl_attn_removed(&t, w, j, &add))
    return -(T)INFINITY;
  return add >= 0 ? x + ((const T *)t.mask)[add] : x;
}

template <typename T>
__device__ __forceinline__ T multiplier(const tl_attn_tile &t, tl_attn_where w, int64_t j)
{
  return (T)tl_attn_multiplier(&t, w, j);
}

template <bool WARP, typename T> __global__ void softmax_rows(tl_attn_tile t, T *s, T *lse)
{
  __shared__ T shared[32];
  const tl_rows_walk<WARP> walk;
  const int lanes = walk.lanes, lane = walk.lane;
  const T inf = (T)INFINITY;
  for (int64_t r = walk.first; r < t.rows; r += walk.step) {
    const tl_attn_where w = tl_attn_locate(&t, r);
    T *row = s + r * t.S, m = -inf, l = 0;
    for (int64_t j = lane; j < t.S; j += lanes) {
      T x = masked(t, w, j, row[j]);
      row[j] = x;
      m = x > m ? x : m;
    }
    m = tl_rows_reduce<WARP>(m, tl_rows_max(), -inf, shared);
    for (int64_t j = lane; j < t.S; j += lanes) {
      T e = row[j] == -inf ? (T)0 : exp(row[j] - m);
      row[j] = e;
      l += e;
    }
    l = tl_rows_reduce<WARP>(l, tl_rows_sum(), (T)0, shared);
    const T inv = l > 0 ? 1 / l : (T)0;
    for (int64_t j = lane; j < t.S; j += lanes)
      row[j] = t.dropout_p > 0 ? row[j] * inv * multiplier<T>(t, w, j) : row[j] * inv;
    if (lane == 0)
      lse[w.at] = l > 0 ? m + log(l) : -inf;
  }
}

template <typename T> __global__ void probs(tl_attn_tile t, T *s, const T *lse, T *pd)
{
  TL_GPU_GRID_LOOP(e, t.rows * t.S)
  {
    const tl_attn_where w = tl_attn_locate(&t, e / t.S);
    int64_t j = e % t.S;
    T x = masked(t, w, j, s[e]), l = lse[w.at];
    T p = l == -(T)INFINITY || x == -(T)INFINITY ? (T)0 : exp(x - l);
    s[e] = p;
    if (pd)
      pd[e] = p * multiplier<T>(t, w, j);
  }
}

template <typename T> __global__ void dscores(tl_attn_tile t, const T *p, T *dp, const T *d)
{
  TL_GPU_GRID_LOOP(e, t.rows * t.S)
  {
    const tl_attn_where w = tl_attn_locate(&t, e / t.S);
    T g = t.dropout_p > 0 ? dp[e] * multiplier<T>(t, w, e % t.S) : dp[e];
    dp[e] = p[e] * (g - d[w.at]);
  }
}

template <typename T> __global__ void rowdot(const T *a, const T *b, int64_t n, int64_t ev, T *d)
{
  const int64_t per_block = blockDim.x / 32;
  for (int64_t r = (int64_t)blockIdx.x * per_block + threadIdx.x / 32; r < n;
       r += (int64_t)gridDim.x * per_block) {
    T s = 0;
    for (int64_t x = threadIdx.x % 32; x < ev; x += 32)
      s += a[r * ev + x] * b[r * ev + x];
    s = tl_rows_reduce<true>(s, tl_rows_sum(), (T)0, (T *)nullptr);
    if (threadIdx.x % 32 == 0)
      d[r] = s;
  }
}

template <typename T> int softmax_launch(const tl_attn_tile *t, T *s, T *lse, cudaStream_t st)
{
  const int warps = TL_GPU_THREADS / 32;
  if (t->S <= 1024)
    softmax_rows<true, T><<<tl_gpu_blocks_for(t->rows, warps), TL_GPU_THREADS, 0, st>>>(*t, s, lse);
  else
    softmax_rows<false, T><<<tl_gpu_blocks_for(t->rows, 1), TL_GPU_THREADS, 0, st>>>(*t, s, lse);
  return (int)cudaGetLastError();
}

} // namespace

extern "C" int tl_gpu_attn_softmax_launch(const tl_attn_tile *t, void *s, void *lse,
                                          void *stream)
{
  if (t->rows <= 0)
    return 0;
  cudaStream_t st = (cudaStream_t)stream;
  return t->f64 ? softmax_launch(t, (double *)s, (double *)lse, st)
                : softmax_launch(t, (float *)s, (float *)lse, st);
}

extern "C" int tl_gpu_attn_probs_launch(const tl_attn_tile *t, void *s, const void *lse,
                                        void *pd, void *stream)
{
  if (t->rows <= 0 || t->S <= 0)
    return 0;
  cudaStream_t st = (cudaStream_t)stream;
  unsigned blocks = tl_gpu_blocks_for(t->rows * t->S);
  if (t->f64)
    probs<double><<<blocks, TL_GPU_THREADS, 0, st>>>(*t, (double *)s, (const double *)lse,
                                                      (double *)pd);
  else
    probs<float><<<blocks, TL_GPU_THREADS, 0, st>>>(*t, (float *)s, (const float *)lse,
                                                     (float *)pd);
  return (int)cudaGetLastError();
}

extern "C" int tl_gpu_attn_dscores_launch(const tl_attn_tile *t, const void *p, void *dp,
                                          const void *d, void *stream)
{
  if (t->rows <= 0 || t->S <= 0)
    return 0;
  cudaStream_t st = (cudaStream_t)stream;
  unsigned blocks = tl_gpu_blocks_for(t->rows * t->S);
  if (t->f64)
    dscores<double><<<blocks, TL_GPU_THREADS, 0, st>>>(*t, (const double *)p, (double *)dp,
                                                        (const double *)d);
  else
    dscores<float><<<blocks, TL_GPU_THREADS, 0, st>>>(*t, (const float *)p, (float *)dp,
                                                       (const float *)d);
  return (int)cudaGetLastError();
}

extern "C" int tl_gpu_attn_rowdot_launch(int f64, const void *dout, const void *o, int64_t n,
                                         int64_t ev, void *d, void *stream)
{
  if (n <= 0)
    return 0;
  cudaStream_t st = (cudaStream_t)stream;
  unsigned blocks = tl_gpu_blocks_for(n, TL_GPU_THREADS / 32);
  if (f64)
    rowdot<double><<<blocks, TL_GPU_THREADS, 0, st>>>((const double *)dout, (const double *)o, n,
                                                       ev, (double *)d);
  else
    rowdot<float><<<blocks, TL_GPU_THREADS, 0, st>>>((const float *)dout, (const float *)o, n, ev,
                                                      (float *)d);
  return (int)cudaGetLastError();
}
