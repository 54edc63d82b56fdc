/* tl_cuda_rows.cuh - reductions along a row by a warp or a block, shared by
 * the row kernels of softmax.cu, loss.cu and attention.cu.
 *
 * A row is taken by one warp (lanes = 32) or one whole block (lanes =
 * blockDim.x, a multiple of 32, at most 1024); its threads stride over the
 * row and combine their partial values here.  The combination order is fixed
 * (butterfly shuffles, then the warps' values in order), so a result does
 * not vary from run to run.  Every thread of the warp (block) must call. */
#ifndef TL_CUDA_ROWS_CUH
#define TL_CUDA_ROWS_CUH

#include <cuda_runtime.h>

#include "gpu/tl_cuda_math.cuh"

struct tl_rows_sum {
  template <typename T> TL_DEV T operator()(T a, T b) const { return a + b; }
};
/* max that skips NaN as the CPU's loops' `x > m ? x : m` does */
struct tl_rows_max {
  template <typename T> TL_DEV T operator()(T a, T b) const { return b > a ? b : a; }
};

/* A thread's walk over the rows of a grid-strided row kernel: its warp
 * (WARP) or block takes rows first, first + step, ...; the thread strides
 * over a row from `lane` by `lanes`. */
template <bool WARP> struct tl_rows_walk {
  int lanes, lane;
  int64_t first, step;
  TL_DEV tl_rows_walk()
      : lanes(WARP ? 32 : blockDim.x), lane(WARP ? threadIdx.x % 32 : threadIdx.x),
        first((int64_t)blockIdx.x * (WARP ? blockDim.x / 32 : 1) + (WARP ? threadIdx.x / 32 : 0)),
        step((int64_t)gridDim.x * (WARP ? blockDim.x / 32 : 1))
  {
  }
};

template <typename T, typename Op> TL_DEV T tl_rows_warp(T v, Op op)
{
#pragma unroll
  for (int k = 16; k > 0; k >>= 1)
    v = op(v, __shfl_xor_sync(0xffffffffu, v, k));
  return v;
}

/* The row's value in every thread; identity: op's (0 for a sum, -inf for
 * max).  shared: 32 T of the block's shared memory (unused for a warp). */
template <bool WARP, typename T, typename Op>
TL_DEV T tl_rows_reduce(T v, Op op, T identity, T *shared)
{
  v = tl_rows_warp(v, op);
  if (WARP)
    return v;
  const int warp = threadIdx.x / 32, lane = threadIdx.x % 32, nwarps = blockDim.x / 32;
  if (lane == 0)
    shared[warp] = v;
  __syncthreads();
  if (warp == 0) {
    T w = tl_rows_warp(lane < nwarps ? shared[lane] : identity, op);
    if (lane == 0)
      shared[0] = w;
  }
  __syncthreads();
  v = shared[0];
  __syncthreads(); /* shared is free again for the next reduction */
  return v;
}

#endif
