/* backend_cuda.c - placeholder until the CUDA backend lands. */
#include "gpu/tl_gpu.h"
#ifdef TL_WITH_CUDA
void tl_gpu_init(void) {}
#endif
