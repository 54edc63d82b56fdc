/* pool.cu - the CUDA pooling kernels (tl_gpu_pool.h): the windowed max, the
 * separable weighted passes and their transpose, the index scatter.  One
 * thread per output element (grid-stride), taps visited in the CPU's order
 * so that indices and sums come out as the CPU's: the first maximum in tap
 * order, NaN winning; weighted sums added tap by tap.  Only the scatter
 * writes one element from several threads (max pooling's backward, with
 * atomic adds; max_unpool's duplicate indices keep one of their values, as
 * PyTorch's CUDA kernel). */
#include "gpu/nn/tl_gpu_pool.h"
#include "gpu/nn/tl_cuda_grid.cuh"

namespace {

struct taps3 {
  tl_gpu_taps t[3];
};

template <typename R> __global__ void window_max(const R *x, R *y, int64_t *idx, int64_t B, taps3 T)
{
  const tl_gpu_taps &t0 = T.t[0], &t1 = T.t[1], &t2 = T.t[2];
  int64_t per_plane = t0.out * t1.out * t2.out, plane = t0.in * t1.in * t2.in;
  TL_GPU_GRID_LOOP(e, B * per_plane)
  {
    int64_t j2 = e % t2.out, j1 = e / t2.out % t1.out, j0 = e / (t2.out * t1.out) % t0.out;
    int64_t b = e / per_plane;
    const int64_t *x0 = t0.index + b * t0.plane_stride + j0 * t0.k;
    const int64_t *x1 = t1.index + b * t1.plane_stride + j1 * t1.k;
    const int64_t *x2 = t2.index + b * t2.plane_stride + j2 * t2.k;
    const R *xp = x + b * plane;
    R m = -(R)INFINITY;
    int64_t at = -1;
    for (int64_t q0 = 0; q0 < t0.k; q0++) {
      if (x0[q0] < 0)
        continue;
      for (int64_t q1 = 0; q1 < t1.k; q1++) {
        if (x1[q1] < 0)
          continue;
        int64_t row = (x0[q0] * t1.in + x1[q1]) * t2.in;
        for (int64_t q2 = 0; q2 < t2.k; q2++) {
          if (x2[q2] < 0)
            continue;
          R v = xp[row + x2[q2]];
          if (at < 0 || v > m || v != v) {
            m = v;
            at = row + x2[q2];
          }
        }
      }
    }
    y[e] = m;
    idx[e] = at;
  }
}

/* y[o, j, i] = sum_q w[j, q] x[o, index[j, q], i] */
template <typename R>
__global__ void pass_forward(const R *x, R *y, int64_t outer, int64_t inner, tl_gpu_taps t)
{
  TL_GPU_GRID_LOOP(e, outer * t.out * inner)
  {
    int64_t i = e % inner, j = e / inner % t.out, o = e / (inner * t.out);
    const R *xo = x + o * t.in * inner + i;
    R s = 0;
    for (int64_t q = 0; q < t.k; q++) {
      int64_t p = t.index[j * t.k + q];
      if (p >= 0)
        s += (R)t.weight[j * t.k + q] * xo[p * inner];
    }
    y[e] = s;
  }
}

/* y[o, p, i] = sum over the taps (j, q) reading position p of w[j, q] x[o, j, i] */
template <typename R>
__global__ void pass_transpose(const R *x, R *y, int64_t outer, int64_t inner, tl_gpu_taps t)
{
  TL_GPU_GRID_LOOP(e, outer * t.in * inner)
  {
    int64_t i = e % inner, p = e / inner % t.in, o = e / (inner * t.in);
    const R *xo = x + o * t.out * inner + i;
    R s = 0;
    for (int64_t r = t.rstart[p]; r < t.rstart[p + 1]; r++) {
      int64_t tap = t.rtap[r];
      s += (R)t.weight[tap] * xo[tap / t.k * inner];
    }
    y[e] = s;
  }
}

template <typename R>
__global__ void scatter(const R *x, const int64_t *idx, R *y, int64_t B, int64_t len, int64_t size,
                        bool accumulate, tl_gpu_pool_bad bad)
{
  TL_GPU_GRID_LOOP(e, B * len)
  {
    int64_t b = e / len, at = idx[e];
    if (at < 0 || at >= size) {
      tl_device_error *r = bad.err;
      if (atomicCAS(reinterpret_cast<int *>(&r->flag), 0, 1) == 0) {
        r->op = bad.op;
        r->dim = bad.n;
        r->status = bad.status;
        r->value = at;
        r->size = size;
        r->kind = TL_DEVICE_ERROR_POOL;
        for (int d = 0; d < 3; d++)
          r->extent[d] = bad.extent[d];
      }
      continue;
    }
    if (accumulate)
      atomicAdd(y + b * size + at, x[e]);
    else
      y[b * size + at] = x[e];
  }
}

} // namespace

extern "C" int tl_gpu_pool_max_launch(const void *x, void *y, int64_t *idx, int64_t B,
                                      const tl_gpu_taps *t3, int f64, void *stream)
{
  taps3 T = {{t3[0], t3[1], t3[2]}};
  int64_t n = B * t3[0].out * t3[1].out * t3[2].out;
  if (n == 0)
    return 0;
  cudaStream_t s = (cudaStream_t)stream;
  if (f64)
    window_max<double>
        <<<tl_gpu_blocks(n), TL_GPU_THREADS, 0, s>>>((const double *)x, (double *)y, idx, B, T);
  else
    window_max<float>
        <<<tl_gpu_blocks(n), TL_GPU_THREADS, 0, s>>>((const float *)x, (float *)y, idx, B, T);
  return (int)cudaGetLastError();
}

extern "C" int tl_gpu_pool_pass_launch(const void *x, void *y, int64_t outer, int64_t inner,
                                       const tl_gpu_taps *t, int transpose, int f64, void *stream)
{
  int64_t n = outer * inner * (transpose ? t->in : t->out);
  if (n == 0)
    return 0;
  cudaStream_t s = (cudaStream_t)stream;
  unsigned g = tl_gpu_blocks(n);
  if (transpose && f64)
    pass_transpose<double>
        <<<g, TL_GPU_THREADS, 0, s>>>((const double *)x, (double *)y, outer, inner, *t);
  else if (transpose)
    pass_transpose<float>
        <<<g, TL_GPU_THREADS, 0, s>>>((const float *)x, (float *)y, outer, inner, *t);
  else if (f64)
    pass_forward<double>
        <<<g, TL_GPU_THREADS, 0, s>>>((const double *)x, (double *)y, outer, inner, *t);
  else
    pass_forward<float>
        <<<g, TL_GPU_THREADS, 0, s>>>((const float *)x, (float *)y, outer, inner, *t);
  return (int)cudaGetLastError();
}

extern "C" int tl_gpu_pool_scatter_launch(const void *x, const int64_t *idx, void *y, int64_t B,
                                          int64_t len, int64_t size, int accumulate, int f64,
                                          tl_gpu_pool_bad bad, void *stream)
{
  cudaStream_t s = (cudaStream_t)stream;
  size_t es = f64 ? sizeof(double) : sizeof(float);
  cudaError_t err = cudaMemsetAsync(y, 0, (size_t)(B * size) * es, s);
  if (err != cudaSuccess || B * len == 0)
    return (int)err;
  unsigned g = tl_gpu_blocks(B * len);
  if (f64)
    scatter<double><<<g, TL_GPU_THREADS, 0, s>>>((const double *)x, idx, (double *)y, B, len, size,
                                                 accumulate != 0, bad);
  else
    scatter<float><<<g, TL_GPU_THREADS, 0, s>>>((const float *)x, idx, (float *)y, B, len, size,
                                                accumulate != 0, bad);
  return (int)cudaGetLastError();
}
