/* gpu_device.c - how many CUDA devices this process can use.
 * Without CUDA in the build, or without a driver or GPU at run time, zero. */
#include "gpu/tl_gpu.h"

#ifdef TL_WITH_CUDA
#include <cuda_runtime_api.h>

int tl_gpu_device_count(void)
{
  int n = 0;
  if (cudaGetDeviceCount(&n) != cudaSuccess) {
    cudaGetLastError(); /* clear the sticky "no driver" error */
    return 0;
  }
  return n;
}
#else
int tl_gpu_device_count(void) { return 0; }
#endif

#ifndef TL_WITH_CUDA
void tl_gpu_init(void) {} /* nothing to register: backend_cuda.c is empty without CUDA */
#endif
