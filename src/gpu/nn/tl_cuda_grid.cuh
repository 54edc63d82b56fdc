/* tl_cuda_grid.cuh - the grid-stride loop of the nn kernels and their block
 * counts (every .cu of src/gpu/nn): block size and the cap on blocks are the
 * elementwise launcher's (tl_cuda_launch.cuh). */
#ifndef TL_CUDA_GRID_CUH
#define TL_CUDA_GRID_CUH

#include "gpu/tl_cuda_launch.cuh"

/* e over [0, n), each thread taking every gridDim * blockDim-th */
#define TL_GPU_GRID_LOOP(e, n)                                                                     \
  for (int64_t e = blockIdx.x * (int64_t)blockDim.x + threadIdx.x; e < (n);                        \
       e += (int64_t)gridDim.x * blockDim.x)

/* Blocks for n items of per_block items a block (a warp a row takes
 * TL_GPU_THREADS / 32): at least one, at most the launcher's cap, the rest
 * walked by the grid-stride loop. */
static inline unsigned tl_gpu_blocks_for(int64_t n, int64_t per_block = TL_GPU_THREADS)
{
  int64_t b = (n + per_block - 1) / per_block;
  return (unsigned)(b < 1 ? 1 : b > TL_GPU_MAX_BLOCKS ? TL_GPU_MAX_BLOCKS : b);
}

#endif
