/* elementwise_unary.cu - the CUDA launchers of the ops whose CPU loops are in
 * kernels_unary.c: the generated bodies (scripts/gen_kernels.py) as device
 * functors, run by the one launcher (tl_cuda_launch.cuh).  The table
 * tl_gpu_unary_entries is registered by kernels_gpu.c.               */
#include "gpu/tl_cuda_launch.cuh"

#include "ndcore/kernels/generated/cuda_unary.inc"
