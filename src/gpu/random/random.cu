/* random.cu - the CUDA random fill kernel: one thread per value, each
 * computing tl_px_value (tl_philox.h), the function the CPU's chunked loops
 * compute, so a draw on the GPU is the CPU's draw bit for bit (the values
 * that go through CUDA's exp, tan, log or log1p - log_normal, cauchy,
 * geometric - may differ in their last bits).  Blocks of 256 threads in a
 * grid-stride loop; a value's counter block depends only on its index.    */
#include <cuda_runtime.h>
#include <cuda/std/type_traits>

#include "gpu/random/tl_gpu_random.h"
#include "gpu/tl_cuda_launch.cuh"

template <typename T> __global__ void tl_random_fill_kernel(const tl_px_draw f, int64_t n, T *dst)
{
  int64_t stride = (int64_t)gridDim.x * blockDim.x;
  for (int64_t v = (int64_t)blockIdx.x * blockDim.x + threadIdx.x; v < n; v += stride) {
    double d = 0;
    int64_t i = 0;
    tl_px_value(&f, v, &d, &i);
    if constexpr (cuda::std::is_same_v<T, int64_t>)
      dst[v] = i;
    else
      dst[v] = (T)d;
  }
}

template <typename T> static int launch(const tl_px_draw *f, int64_t n, void *dst, cudaStream_t s)
{
  if (n <= 0)
    return cudaSuccess;
  tl_random_fill_kernel<T><<<tl_gpu_blocks(n), TL_GPU_THREADS, 0, s>>>(*f, n, (T *)dst);
  return cudaGetLastError();
}

extern "C" int tl_gpu_random_fill_launch(const tl_px_draw *f, int64_t n, int store, void *dst,
                                         void *stream)
{
  cudaStream_t s = (cudaStream_t)stream;
  switch (store) {
  case TL_GPU_RANDOM_F32: return launch<float>(f, n, dst, s);
  case TL_GPU_RANDOM_I64: return launch<int64_t>(f, n, dst, s);
  default: return launch<double>(f, n, dst, s);
  }
}
