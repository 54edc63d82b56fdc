/* tl_cuda_grid.cuh - the grid-stride loop of the nn kernels that run one
 * thread per element (pool.cu, im2col.cu, norm.cu): block size and block
 * count are the elementwise launcher's (tl_cuda_launch.cuh). */
#ifndef TL_CUDA_GRID_CUH
#define TL_CUDA_GRID_CUH

#include "gpu/tl_cuda_launch.cuh"

/* e over [0, n), each thread taking every gridDim * blockDim-th */
#define TL_GPU_GRID_LOOP(e, n)                                                                     \
  for (int64_t e = blockIdx.x * (int64_t)blockDim.x + threadIdx.x; e < (n);                        \
       e += (int64_t)gridDim.x * blockDim.x)

#endif
