/* linalg_kernels.cu - the few device kernels the linalg family needs besides
 * cuBLAS and cuSOLVER (tl_gpu_linalg_kernels.h).  Kernels move elements as
 * opaque words of their size, so one instantiation serves every dtype of
 * that size: 3 kernels in all.                                              */
#include <cuda_runtime.h>

#include "gpu/linalg/tl_gpu_linalg_kernels.h"

namespace {

template <typename W>
__global__ void keep_triangle_kernel(W *m, int64_t total, int64_t n, bool keep_lower)
{
  const int64_t nn = n * n;
  for (int64_t i = (int64_t)blockIdx.x * blockDim.x + threadIdx.x; i < total;
       i += (int64_t)gridDim.x * blockDim.x) {
    int64_t e = i % nn, r = e / n, c = e % n;
    if (keep_lower ? c > r : c < r)
      m[i] = W{};
  }
}

template <typename W>
int launch_keep_triangle(void *data, int64_t count, int64_t n, bool keep_lower, cudaStream_t s)
{
  const int64_t total = count * n * n;
  const int threads = 256;
  int64_t blocks = (total + threads - 1) / threads;
  if (blocks > 65535)
    blocks = 65535; /* the grid-stride loop covers the rest */
  keep_triangle_kernel<W><<<(unsigned)blocks, threads, 0, s>>>((W *)data, total, n, keep_lower);
  return (int)cudaGetLastError();
}

} // namespace

extern "C" int tl_gpu_keep_triangle(void *data, int64_t count, int64_t n, int elem_size,
                                    bool keep_lower, void *stream)
{
  if (count <= 0 || n <= 1)
    return 0;
  cudaStream_t s = (cudaStream_t)stream;
  switch (elem_size) {
  case 4: return launch_keep_triangle<uint32_t>(data, count, n, keep_lower, s);
  case 8: return launch_keep_triangle<uint64_t>(data, count, n, keep_lower, s);
  default: return launch_keep_triangle<uint4>(data, count, n, keep_lower, s);
  }
}
