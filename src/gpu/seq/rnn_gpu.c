/* rnn_gpu.c - the CUDA set of the recurrent cells and layers, and the rows
 * of the sequence families (recurrent, attention) in the kernel table
 * (tl_gpu_seq_register, called from tl_gpu_kernels_register).
 *
 * The cells and the layer loop are the device-neutral driver of
 * src/nn/rnn/rnn_device.c; this file lends it CUDA's primitives: cuBLAS
 * GEMMs on the current stream (the step's hidden projection, the input
 * projection of the whole sequence, the weight gradients over all rows),
 * the fused gate rows and the column sums of rnn.cu, 2-d copies and
 * memsets, and cuBLAS's axpy for the output gradient's add.  Nothing
 * waits for the device: the host loop only queues work, a handful of
 * launches per step (the hidden GEMM, the gate kernel, the 2-d copies of
 * the states into the workspace and back), in a row on the stream. */
#include "gpu/tl_gpu.h"

#ifdef TL_WITH_CUDA
#include <limits.h>

#include <cuda_runtime_api.h>

#include "gpu/linalg/tl_gpu_cublas.h"
#include "gpu/seq/tl_gpu_seq.h"
#include "gpu/seq/tl_gpu_seq_host.h"
#include "gpu/tl_gpu_host.h"
#include "nn/rnn/tl_rnn.h"

_Static_assert((int)TL_GPU_RNN_LSTM == (int)TL_RNN_LSTM &&
                   (int)TL_GPU_RNN_GRU_BACKWARD == (int)TL_RNN_GRU_BACKWARD &&
                   (int)TL_GPU_RNN_RELU == (int)TL_RNN_RELU &&
                   (int)TL_GPU_RNN_RELU_BACKWARD == (int)TL_RNN_RELU_BACKWARD,
               "tl_gpu_seq.h's cell kinds are tl_rnn_kind's");

static bool fits_int(int64_t v) { return v >= 0 && v <= INT_MAX; }

tl_status tl_gpu_seq_gemm(tl_device device, bool f64, bool ta, bool tb, int64_t m, int64_t n,
                          int64_t k, double alpha, const void *a, int64_t lda, int64_t sa,
                          const void *b, int64_t ldb, int64_t sb, double beta, void *c,
                          int64_t ldc, int64_t sc, int64_t batch)
{
  void *stream = NULL;
  if (m == 0 || n == 0 || batch == 0)
    return TL_OK;
  if (!fits_int(m) || !fits_int(n) || !fits_int(k) || !fits_int(lda) || !fits_int(ldb) ||
      !fits_int(ldc) || !fits_int(batch))
    return tl_error_set(TL_ERR_NOT_IMPLEMENTED, "CUDA products of sizes past 2^31 - 1 (%lld x "
                        "%lld x %lld, batch %lld) are not supported", (long long)m, (long long)n,
                        (long long)k, (long long)batch);
  if (tl_gpu_stream(device, "gemm", &stream) != TL_OK)
    return tl_error_status();
  size_t es = f64 ? sizeof(double) : sizeof(float);
  if (k == 0) { /* an empty sum: C = beta C, for the beta of 0 or 1 the callers pass */
    if (beta == 1.0)
      return TL_OK;
    if (beta != 0.0)
      return tl_error_set(TL_ERR_NOT_IMPLEMENTED, "gemm: k = 0 with beta %g", beta);
    for (int64_t i = 0; i < batch; i++)
      if (tl_gpu_launched(cudaMemset2DAsync((char *)c + (size_t)(i * sc) * es, (size_t)ldc * es,
                                            0, (size_t)n * es, (size_t)m, stream),
                          "gemm") != TL_OK)
        return tl_error_status();
    return TL_OK;
  }
  cublasHandle_t h = tl_gpu_cublas(device, stream);
  if (!h)
    return tl_error_status();
  /* row-major C = op(A) op(B) is column-major C^T = op(B)^T op(A)^T, and a
   * row-major operand read column-major is its transpose: each goes as it
   * lies, transposed by cuBLAS exactly when op transposes it */
  cublasOperation_t opa = ta ? CUBLAS_OP_T : CUBLAS_OP_N, opb = tb ? CUBLAS_OP_T : CUBLAS_OP_N;
  cublasStatus_t st;
  if (f64)
    st = cublasDgemmStridedBatched(h, opb, opa, (int)n, (int)m, (int)k, &alpha, b, (int)ldb, sb,
                                   a, (int)lda, sa, &beta, c, (int)ldc, sc, (int)batch);
  else {
    float al = (float)alpha, be = (float)beta;
    if (tl_gpu_matmul_allow_tf32())
      st = cublasGemmStridedBatchedEx(h, opb, opa, (int)n, (int)m, (int)k, &al, b, CUDA_R_32F,
                                      (int)ldb, sb, a, CUDA_R_32F, (int)lda, sa, &be, c,
                                      CUDA_R_32F, (int)ldc, sc, (int)batch,
                                      CUBLAS_COMPUTE_32F_FAST_TF32, CUBLAS_GEMM_DEFAULT);
    else
      st = cublasSgemmStridedBatched(h, opb, opa, (int)n, (int)m, (int)k, &al, b, (int)ldb, sb,
                                     a, (int)lda, sa, &be, c, (int)ldc, sc, (int)batch);
  }
  return tl_gpu_cublas_check(st, "gemm");
}

/* ---- the recurrent driver's primitives (tl_rnn_device_ops) ---------------------------- */

static tl_status rnn_rows(tl_device dev, const tl_rnn_rows *rows)
{
  tl_gpu_rnn_rows g = {.kind = (int)rows->kind, .n = rows->n, .h = rows->h, .f64 = rows->f64};
  void *stream = NULL;
  for (int k = 0; k < 5; k++) {
    g.in[k] = rows->in[k];
    g.ld_in[k] = rows->ld_in[k];
    g.out[k] = rows->out[k];
    g.ld_out[k] = rows->ld_out[k];
  }
  if (tl_gpu_stream(dev, "rnn", &stream) != TL_OK)
    return tl_error_status();
  return tl_gpu_launched(tl_gpu_rnn_rows_launch(&g, stream), "rnn");
}

static tl_status rnn_copy(tl_device dev, void *dst, int64_t ld_dst, const void *src,
                          int64_t ld_src, int64_t n, int64_t bytes)
{
  void *stream = NULL;
  if (n <= 0 || bytes <= 0)
    return TL_OK;
  if (tl_gpu_stream(dev, "rnn", &stream) != TL_OK)
    return tl_error_status();
  int err = src ? cudaMemcpy2DAsync(dst, (size_t)ld_dst, src, (size_t)ld_src, (size_t)bytes,
                                    (size_t)n, cudaMemcpyDeviceToDevice, stream)
                : cudaMemset2DAsync(dst, (size_t)ld_dst, 0, (size_t)bytes, (size_t)n, stream);
  return tl_gpu_launched(err, "rnn");
}

static tl_status rnn_add(tl_device dev, bool f64, void *dst, const void *src, int64_t count)
{
  void *stream = NULL;
  if (count <= 0)
    return TL_OK;
  if (tl_gpu_stream(dev, "rnn", &stream) != TL_OK)
    return tl_error_status();
  cublasHandle_t h = tl_gpu_cublas(dev, stream);
  if (!h)
    return tl_error_status();
  const double one = 1.0;
  const float onef = 1.0f;
  size_t es = f64 ? sizeof(double) : sizeof(float);
  for (int64_t i = 0; i < count; i += INT_MAX) { /* axpy counts in int */
    int len = (int)(count - i < INT_MAX ? count - i : INT_MAX);
    const void *x = (const char *)src + (size_t)i * es;
    void *y = (char *)dst + (size_t)i * es;
    cublasStatus_t st = f64 ? cublasDaxpy(h, len, &one, x, 1, y, 1)
                            : cublasSaxpy(h, len, &onef, x, 1, y, 1);
    if (tl_gpu_cublas_check(st, "rnn") != TL_OK)
      return tl_error_status();
  }
  return TL_OK;
}

static tl_status rnn_colsum(tl_device dev, bool f64, const void *g, int64_t n, int64_t cols,
                            int64_t ld, void *out)
{
  void *stream = NULL;
  if (tl_gpu_stream(dev, "rnn", &stream) != TL_OK)
    return tl_error_status();
  return tl_gpu_launched(tl_gpu_rnn_colsum_launch(f64, g, n, cols, ld, out, stream), "rnn");
}

static const tl_rnn_device_ops cuda_ops = {.gemm = tl_gpu_seq_gemm, .rows = rnn_rows, .copy = rnn_copy,
                                           .add = rnn_add, .colsum = rnn_colsum};

static tl_status cuda_cell(const tl_rnn_call *call) { return tl_rnn_device_cell(&cuda_ops, call); }
static tl_status cuda_layer(const tl_rnn_layer_call *call)
{
  return tl_rnn_device_layer(&cuda_ops, call);
}
static tl_status cuda_layer_backward(const tl_rnn_layer_call *call)
{
  return tl_rnn_device_layer_backward(&cuda_ops, call);
}

void tl_gpu_seq_register(void)
{
  static const tl_nn_rnn_kernels rnn_set = {
      .cell = cuda_cell, .layer = cuda_layer, .layer_backward = cuda_layer_backward};
  tl_nn_rnn_register_set(TL_DEVICE_CUDA, &rnn_set);
  tl_nn_attention_register_set(TL_DEVICE_CUDA, &tl_gpu_attention_set);
}
#endif
