/* tl_gpu.h - the GPU layer's public face to the rest of the core. */
#ifndef TL_GPU_H
#define TL_GPU_H

/* CUDA devices usable by this process: 0 without CUDA in the build, or
 * without a driver or a GPU at run time. */
int tl_gpu_device_count(void);
/* Register the CUDA backend and the pinned-host allocator when CUDA is built
 * in and a GPU is present (called once by tl_backend_init). */
void tl_gpu_init(void);
/* Fill the kernel table's CUDA rows (kernels_gpu.c; nothing without CUDA in
 * the build).  Called by tl_dispatch_init, after the CPU rows. */
void tl_gpu_kernels_register(void);

#endif
