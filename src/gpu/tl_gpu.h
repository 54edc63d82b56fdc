/* tl_gpu.h - the GPU layer's public face to the rest of the core. */
#ifndef TL_GPU_H
#define TL_GPU_H

/* CUDA devices usable by this process: 0 without CUDA in the build, or
 * without a driver or a GPU at run time. */
int tl_gpu_device_count(void);

#endif
