/* tl_nn_work.h - operands in a kernel's work dtype, shared by src/nn's CPU
 * kernels: float16/bfloat16/float32 compute in float, float64 in double;
 * operands are made contiguous in it, a result of a half dtype is cast once
 * at the end, and small contiguous float/double tensors (per-channel
 * statistics, scalars) are read and written element by element. */
#ifndef TL_NN_WORK_H
#define TL_NN_WORK_H

#include "ndcore/tensor/tl_tensor.h"

/* The dtype a kernel computes in for tensors of dtype d. */
static inline tl_dtype tl_nn_work_dtype(tl_dtype d)
{
  return d == TL_DTYPE_F64 ? TL_DTYPE_F64 : TL_DTYPE_F32;
}

/* *out = t as a contiguous tensor of dtype `work`: a view of t when it
 * already is one, else a converted copy.  A NULL t gives a zeroed *out.
 * *out is owned by the caller either way (tl_tensor_release). */
tl_status tl_nn_work_in(const tl_tensor *t, tl_dtype work, tl_tensor *out);

/* Replace *t (a work-dtype result) by its cast to `dtype` when they differ. */
tl_status tl_nn_work_out(tl_tensor *t, tl_dtype dtype);

/* `t` as a contiguous tensor of dtype `work`: t itself when it already is
 * one, else a converted copy in *tmp (NULL with the error set on failure). */
static inline const tl_tensor *tl_nn_as_work(const tl_tensor *t, tl_dtype work, tl_tensor *tmp)
{
  if (t->dtype == work && tl_tensor_is_contiguous(t))
    return t;
  return tl_tensor_to_dtype(tmp, t, work) == TL_OK ? tmp : NULL;
}


/* C (M x N) = A (M x K, or K x M if ta) @ B (K x N, or N x K if tb) + beta C,
 * row-major with leading dimensions lda ldb ldc, float (f64 false) or
 * double: OpenBLAS's GEMM; with K = 0 it is C = beta C. */
void tl_nn_gemm(bool f64, bool ta, bool tb, int64_t M, int64_t N, int64_t K, const void *A,
                int64_t lda, const void *B, int64_t ldb, double beta, void *C, int64_t ldc);

/* A device's row-major strided-batched GEMM on its own memory, lent to the
 * device-neutral drivers (src/nn/rnn/rnn_device.c, attention_device.c): for
 * b < batch, C_b (m, n) = alpha op(A_b) op(B_b) + beta C_b with A_b = A + b
 * sa elements (B, C alike), float (f64 false) or double; m, n or batch 0:
 * nothing; k 0: C = beta C (beta 0 or 1). */
typedef tl_status (*tl_nn_device_gemm)(tl_device dev, bool f64, bool ta, bool tb, int64_t m,
                                       int64_t n, int64_t k, double alpha, const void *a,
                                       int64_t lda, int64_t sa, const void *b, int64_t ldb,
                                       int64_t sb, double beta, void *c, int64_t ldc, int64_t sc,
                                       int64_t batch);

/* Element i of a contiguous float or double tensor, as double. */
static inline double tl_nn_get(const tl_tensor *t, int64_t i)
{
  return t->dtype == TL_DTYPE_F64 ? ((const double *)tl_tensor_data(t))[i]
                                  : ((const float *)tl_tensor_data(t))[i];
}

static inline void tl_nn_set(tl_tensor *t, int64_t i, double v)
{
  if (t->dtype == TL_DTYPE_F64)
    ((double *)tl_tensor_data(t))[i] = v;
  else
    ((float *)tl_tensor_data(t))[i] = (float)v;
}

#endif
