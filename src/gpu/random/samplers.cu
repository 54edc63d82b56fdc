/* samplers.cu - the CUDA gamma and binomial draws: one thread per element,
 * each running tl_px_sample_one (tl_px_samplers.h) from the element's own
 * counter rounds, the function the CPU's chunked kernel (random_samplers.c)
 * is tested to equal, so the same generator state gives the same draws on
 * both devices (up to the last bits of CUDA's log, exp and lgamma where a
 * rejection test lands on its boundary, and of the boost below gamma shape
 * 1).  Rejected elements loop in their own thread; with acceptance above
 * 80% per attempt, warps rarely wait long.                                 */
#include <cuda_runtime.h>

#include "gpu/random/tl_gpu_random.h"
#include "gpu/tl_cuda_launch.cuh"

__global__ void tl_sample_kernel(int kind, double floor_value, const tl_px_rounds r, int64_t n,
                                 const double *a, const double *b, double *out)
{
  int64_t stride = (int64_t)gridDim.x * blockDim.x;
  for (int64_t e = (int64_t)blockIdx.x * blockDim.x + threadIdx.x; e < n; e += stride)
    out[e] = tl_px_sample_one(kind, floor_value, &r, e, a[e], b ? b[e] : 0.0);
}

extern "C" int tl_gpu_random_sample_launch(int kind, double floor_value, const tl_px_rounds *r,
                                           int64_t n, const double *a, const double *b,
                                           double *out, void *stream)
{
  if (n <= 0)
    return cudaSuccess;
  tl_sample_kernel<<<tl_gpu_blocks(n), TL_GPU_THREADS, 0, (cudaStream_t)stream>>>(
      kind, floor_value, *r, n, a, b, out);
  return cudaGetLastError();
}
