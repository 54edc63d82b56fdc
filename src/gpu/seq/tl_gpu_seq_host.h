/* tl_gpu_seq_host.h - what the C files of src/gpu/seq share: the row-major
 * strided-batched GEMM on raw device memory (rnn_gpu.c; the drivers'
 * tl_nn_device_gemm) and attention's CUDA set (attention_gpu.c). */
#ifndef TL_GPU_SEQ_HOST_H
#define TL_GPU_SEQ_HOST_H

#ifdef TL_WITH_CUDA
#include "ndcore/tensor/tl_tensor.h"
#include "nn/attention/tl_attention.h"

/* For b < batch: C_b (m, n) = alpha op(A_b) op(B_b) + beta C_b, row-major
 * with leading dimensions ld* and A_b = A + b sa elements (B, C alike),
 * float (f64 false) or double, on device's current stream through cuBLAS
 * (float32 on TF32 tensor cores only under allow_tf32, as every product).
 * m, n or batch 0: nothing; k 0: C = beta C.  NotImplementedError past
 * cuBLAS's int sizes. */
tl_status tl_gpu_seq_gemm(tl_device device, bool f64, bool ta, bool tb, int64_t m, int64_t n,
                          int64_t k, double alpha, const void *a, int64_t lda, int64_t sa,
                          const void *b, int64_t ldb, int64_t sb, double beta, void *c,
                          int64_t ldc, int64_t sc, int64_t batch);

extern const tl_nn_attention_kernels tl_gpu_attention_set;
#endif

#endif
