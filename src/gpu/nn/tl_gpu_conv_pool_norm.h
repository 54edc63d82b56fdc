/* tl_gpu_conv_pool_norm.h - the CUDA sets of three src/nn families:
 * convolution (cuDNN, conv_cudnn.c; im2col/col2im, im2col.cu), pooling and
 * resampling (pool_gpu.c, pool.cu) and normalisation (norm_gpu.c,
 * norm.cu).  C only; each .cu file has its own plain-data header. */
#ifndef TL_GPU_CONV_POOL_NORM_H
#define TL_GPU_CONV_POOL_NORM_H

#include <stdbool.h>

/* Fill the kernel table's CUDA rows of the three families (called once by
 * tl_gpu_kernels_register). */
void tl_gpu_conv_pool_norm_register(void);
void tl_gpu_nn_conv_register(void);
void tl_gpu_nn_pool_register(void);
void tl_gpu_nn_norm_register(void);

/* torchlike.backends.cudnn's flags, as PyTorch's defaults until set. */
typedef struct {
  bool enabled, benchmark, deterministic, allow_tf32;
} tl_gpu_cudnn_flags;
void tl_gpu_cudnn_flags_set(tl_gpu_cudnn_flags flags);
tl_gpu_cudnn_flags tl_gpu_cudnn_flags_get(void);
/* cuDNN's version (e.g. 91900), 0 when the build has no cuDNN. */
long tl_gpu_cudnn_version(void);

#endif
