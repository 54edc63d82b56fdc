/* tl_gpu_conv.h - what conv_cudnn.c hands the im2col/col2im kernels of
 * im2col.cu: plain data only (read by C and CUDA C++).  Legend as in
 * src/nn/conv/tl_conv.h: the image (N, C, *big), the columns (N, C*K, L),
 * row c*K + k holding channel c seen through kernel offset k at each of
 * the L = prod(small) windows. */
#ifndef TL_GPU_CONV_H
#define TL_GPU_CONV_H

#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef struct {
  int nsp;
  int64_t N, C;
  int64_t kernel[3], stride[3], padding[3], dilation[3], big[3], small[3];
} tl_gpu_fold;

/* cols from a contiguous image of elements of esize bytes (2, 4 or 8): a copy,
 * zeros where a window reads the padding. */
int tl_gpu_im2col_launch(const tl_gpu_fold *f, const void *image, void *cols, int esize,
                         void *stream);
/* image = the sum of the columns' elements over the windows that read each
 * pixel (a gather: no atomics), float (f64 0) or double. */
int tl_gpu_col2im_launch(const tl_gpu_fold *f, const void *cols, void *image, int f64,
                         void *stream);

#ifdef __cplusplus
}
#endif
#endif
