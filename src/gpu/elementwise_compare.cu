/* elementwise_compare.cu - the CUDA launchers of the ops whose CPU loops are in
 * kernels_compare.c: the generated bodies (scripts/gen_kernels.py) as device
 * functors, run by the one launcher (tl_cuda_launch.cuh).  The table
 * tl_gpu_compare_entries is registered by kernels_gpu.c.  Its float
 * maximum/minimum rows are the plain rule (_C._maximum_plain); the public
 * ops' PyTorch rule runs in tl_gpu_extrema_launch below, which needs each
 * element's index.                                                       */
#include "gpu/tl_cuda_launch.cuh"

#include "ndcore/kernels/generated/cuda_compare.inc"

/* ---- float maximum/minimum by the CPU's rule (tl_extrema_rule.h) ------------------- */

template <typename T>
__global__ void tl_gpu_extrema(const tl_gpu_plan p, const tl_extrema_runs r, bool is_max,
                               bool index32)
{
  const int64_t step = (int64_t)gridDim.x * blockDim.x;
  for (int64_t i = (int64_t)blockIdx.x * blockDim.x + threadIdx.x; i < p.numel; i += step) {
    int64_t off[TL_GPU_MAX_OPERANDS];
    tl_gpu_offsets_at(p, i, off, index32);
    const T a = p.host_scalar & 2u ? *reinterpret_cast<const T *>(p.scalar[1])
                                   : tl_gpu_load<T>(p.data[1] + off[1]);
    const T b = p.host_scalar & 4u ? *reinterpret_cast<const T *>(p.scalar[2])
                                   : tl_gpu_load<T>(p.data[2] + off[2]);
    const bool vector = tl_extrema_vector_place(&r, i);
    T *out = reinterpret_cast<T *>(p.data[0] + off[0]);
    if constexpr (sizeof(T) == 8)
      *out = tl_extrema_f64(is_max, vector, a, b);
    else
      *out = tl_extrema_f32(is_max, vector, a, b);
  }
}

extern "C" int tl_gpu_extrema_launch(const tl_gpu_plan *plan, const tl_extrema_runs *runs,
                                     int is_max, int f64, void *stream)
{
  if (plan->numel == 0)
    return 0;
  cudaStream_t s = (cudaStream_t)stream;
  const unsigned blocks = tl_gpu_blocks(plan->numel);
  const bool index32 = tl_gpu_index32(plan);
  if (f64)
    tl_gpu_extrema<double><<<blocks, TL_GPU_THREADS, 0, s>>>(*plan, *runs, is_max != 0, index32);
  else
    tl_gpu_extrema<float><<<blocks, TL_GPU_THREADS, 0, s>>>(*plan, *runs, is_max != 0, index32);
  return (int)cudaGetLastError();
}
