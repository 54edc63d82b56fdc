/* tl_gpu_host.h - what the C side of every CUDA kernel family shares
 * (kernels_gpu.c defines them): turning a CUDA error code into the core's
 * error, the device and stream a launch runs on, and the plain plan a
 * launcher reads.  C only (it sees tl_tensor and tl_iter); the .cu files
 * read tl_gpu_kernels.h.                                                   */
#ifndef TL_GPU_HOST_H
#define TL_GPU_HOST_H

#ifdef TL_WITH_CUDA
#include "gpu/tl_gpu_kernels.h"
#include "ndcore/dispatch/tl_iter.h"
#include "ndcore/tensor/tl_error.h"

/* TL_OK for cudaSuccess (0), else a RuntimeError "CUDA error in what(): ...". */
tl_status tl_gpu_launched(int err, const char *what);
/* Make device current and give its current stream (a cudaStream_t): every
 * kernel and copy of an op runs there. */
tl_status tl_gpu_stream(tl_device device, const char *what, void **stream);
/* The device-neutral iterator plan as the plain plan a launcher reads;
 * NotImplementedError past TL_GPU_MAX_DIMS dimensions. */
tl_status tl_gpu_plan_from_iter(tl_gpu_plan *plan, const tl_iter *it, const char *what);
#endif

#endif
