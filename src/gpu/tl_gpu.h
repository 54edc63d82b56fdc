/* tl_gpu.h - the GPU layer's public face to the rest of the core. */
#ifndef TL_GPU_H
#define TL_GPU_H

#include <stdbool.h>
#include <stdint.h>

#include "ndcore/tensor/tl_tensor.h"

/* CUDA devices usable by this process: 0 without CUDA in the build, or
 * without a driver or a GPU at run time. */
int tl_gpu_device_count(void);
/* Register the CUDA backend and the pinned-host allocator when CUDA is built
 * in and a GPU is present (called once by tl_backend_init). */
void tl_gpu_init(void);
/* Device guards (runtime.c), as PyTorch's: the CUDA runtime's current
 * device is the caller's again once torchlike is done, so code that reads
 * it (CuPy, Numba, another extension) sees the device it set, not that of
 * torchlike's last launch.
 *
 * Scoped: guard_enter makes `device` current and puts the caller's in
 * *prev (-1 when it could not be read); guard_leave(device, prev) restores
 * it.  For calls that finish their CUDA work before they return.
 *
 * Op-scoped: an op's launches need its device current from its first
 * launch to its last, across kernel files.  tl_gpu_device_enter makes
 * `device` current (RuntimeError "CUDA error in what(): ..." when it
 * cannot); the first switch away from the caller's device on this thread
 * saves that device, and tl_gpu_device_restore (called by the Python
 * entries as an op returns: opfunc_vectorcall, the operators, indexing,
 * recorded functions, backward) makes it current again.  A restore in the
 * middle of an op costs only a switch back at its next launch; the entry
 * with nothing saved costs one thread-local read.  Without CUDA in the
 * build: check the device / nothing. */
tl_status tl_gpu_device_guard_enter(int device, int *prev);
void tl_gpu_device_guard_leave(int device, int prev);
tl_status tl_gpu_device_enter(int device, const char *what);
void tl_gpu_device_restore(void);
/* Fill the kernel table's CUDA rows (kernels_gpu.c; nothing without CUDA in
 * the build).  Called by tl_dispatch_init, after the CPU rows. */
void tl_gpu_kernels_register(void);
/* torchlike.backends.cuda.matmul.allow_tf32: may float32 GEMMs round their
 * inputs to TF32 on tensor cores?  Off by default, as in PyTorch
 * (src/gpu/linalg/cublas_handle.c; kept in builds without CUDA too). */
bool tl_gpu_matmul_allow_tf32(void);
/* Test hook: give a device type (the fake device) the linalg set that runs
 * every op on the host (src/gpu/linalg/hosted.c). */
void tl_gpu_linalg_register_hosted(tl_device_type type);
void tl_gpu_set_matmul_allow_tf32(bool allow);
/* NVTX ranges and marks (nvtx.c): NVTX3's calls with CUDA in the build,
 * no-ops answering as NVTX does with no profiler attached without it. */
int tl_gpu_nvtx_range_push(const char *message);
int tl_gpu_nvtx_range_pop(void);
void tl_gpu_nvtx_mark(const char *message);
uint64_t tl_gpu_nvtx_range_start(const char *message);
void tl_gpu_nvtx_range_end(uint64_t id);

#endif
