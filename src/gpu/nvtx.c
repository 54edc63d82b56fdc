/* nvtx.c - NVTX ranges and marks for torchlike.cuda.nvtx.
 *
 * With CUDA in the build these call NVTX3 (header-only in the toolkit: the
 * calls do nothing until a profiler such as Nsight Systems injects itself).
 * Without CUDA they are no-ops answering what NVTX answers with no profiler
 * attached (-2 for push and pop, range id 0), so code annotated for
 * profiling runs unchanged on a CPU-only build.                              */
#include "gpu/tl_gpu.h"

#ifdef TL_WITH_CUDA
#include <nvtx3/nvToolsExt.h>

int tl_gpu_nvtx_range_push(const char *message) { return nvtxRangePushA(message); }
int tl_gpu_nvtx_range_pop(void) { return nvtxRangePop(); }
void tl_gpu_nvtx_mark(const char *message) { nvtxMarkA(message); }
uint64_t tl_gpu_nvtx_range_start(const char *message) { return nvtxRangeStartA(message); }
void tl_gpu_nvtx_range_end(uint64_t id) { nvtxRangeEnd(id); }
#else
int tl_gpu_nvtx_range_push(const char *message)
{
  (void)message;
  return -2;
}
int tl_gpu_nvtx_range_pop(void) { return -2; }
void tl_gpu_nvtx_mark(const char *message) { (void)message; }
uint64_t tl_gpu_nvtx_range_start(const char *message)
{
  (void)message;
  return 0;
}
void tl_gpu_nvtx_range_end(uint64_t id) { (void)id; }
#endif
