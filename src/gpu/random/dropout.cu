/* dropout.cu - dropout's fused forward and its backward on CUDA, the CPU's
 * (src/nn/dropout/dropout_cpu.c) value for value: mask element r keeps when
 * word r of the reserved counter blocks (block first + r / 4, slot r % 4)
 * is below the threshold; y = keep ? x * s1 + s0 : d0 in the work type
 * (float, or double for float64), the multiply and the add rounded apart
 * as the CPU's C does (no FMA); the backward is the CPU's two forms, which
 * differ in the sign of a dropped zero.  One thread per element of x; a
 * thread that starts a mask element's run also writes the mask.           */
#include <cuda_runtime.h>

#include "gpu/random/tl_gpu_random.h"
#include "gpu/tl_cuda_launch.cuh"

__device__ static inline float mul_rn(float a, float b) { return __fmul_rn(a, b); }
__device__ static inline double mul_rn(double a, double b) { return __dmul_rn(a, b); }
__device__ static inline float add_rn(float a, float b) { return __fadd_rn(a, b); }
__device__ static inline double add_rn(double a, double b) { return __dadd_rn(a, b); }

template <typename T>
__global__ void tl_dropout_kernel(const T *x, T *y, uint8_t *mask, int64_t n, int64_t inner,
                                  uint64_t seed, uint64_t first, uint64_t threshold, T s1, T s0,
                                  T d0)
{
  int64_t stride = (int64_t)gridDim.x * blockDim.x;
  for (int64_t e = (int64_t)blockIdx.x * blockDim.x + threadIdx.x; e < n; e += stride) {
    int64_t r = e / inner;
    uint32_t w[4];
    tl_px_block(seed, first + (uint64_t)(r / 4), w);
    bool keep = (uint64_t)w[r % 4] < threshold;
    if (e % inner == 0)
      mask[r] = keep;
    if (y) /* NULL: an empty x under a non-empty feature mask, the mask alone */
      y[e] = keep ? add_rn(mul_rn(x[e], s1), s0) : d0;
  }
}

template <typename T>
__global__ void tl_dropout_backward_kernel(const T *g, T *dx, const uint8_t *mask, int64_t n,
                                           int64_t inner, T s)
{
  int64_t stride = (int64_t)gridDim.x * blockDim.x;
  for (int64_t e = (int64_t)blockIdx.x * blockDim.x + threadIdx.x; e < n; e += stride) {
    bool m = mask[e / inner];
    dx[e] = inner == 1 ? (m ? mul_rn(g[e], s) : (T)0) : mul_rn(g[e], m ? s : (T)0);
  }
}

extern "C" int tl_gpu_dropout_launch(int f64, const void *x, void *y, uint8_t *mask, int64_t nmask,
                                     int64_t inner, uint64_t seed, uint64_t first,
                                     uint64_t threshold, double s1, double s0, double d0,
                                     void *stream)
{
  int64_t n = nmask * inner;
  if (nmask <= 0)
    return cudaSuccess;
  if (n == 0) { /* no element of x: draw the mask alone, as the CPU does */
    n = nmask;
    inner = 1;
    x = y = NULL;
  }
  cudaStream_t s = (cudaStream_t)stream;
  if (f64)
    tl_dropout_kernel<double><<<tl_gpu_blocks(n), TL_GPU_THREADS, 0, s>>>((const double *)x, (double *)y, mask, n,
                                                          inner, seed, first, threshold, s1, s0,
                                                          d0);
  else
    tl_dropout_kernel<float><<<tl_gpu_blocks(n), TL_GPU_THREADS, 0, s>>>((const float *)x, (float *)y, mask, n,
                                                         inner, seed, first, threshold, (float)s1,
                                                         (float)s0, (float)d0);
  return cudaGetLastError();
}

extern "C" int tl_gpu_dropout_backward_launch(int f64, const void *g, void *dx,
                                              const uint8_t *mask, int64_t nmask, int64_t inner,
                                              double scale, void *stream)
{
  int64_t n = nmask * inner;
  if (n <= 0)
    return cudaSuccess;
  cudaStream_t s = (cudaStream_t)stream;
  if (f64)
    tl_dropout_backward_kernel<double><<<tl_gpu_blocks(n), TL_GPU_THREADS, 0, s>>>(
        (const double *)g, (double *)dx, mask, n, inner, scale);
  else
    tl_dropout_backward_kernel<float><<<tl_gpu_blocks(n), TL_GPU_THREADS, 0, s>>>(
        (const float *)g, (float *)dx, mask, n, inner, (float)scale);
  return cudaGetLastError();
}
