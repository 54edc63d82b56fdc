/* nn_work.c - operands in a kernel's work dtype, PyTorch's dtype names
 * and the GEMM the kernels share (tl_nn_work.h). */
#include "nn/tl_nn_work.h"

#include <string.h>

#include "ndcore/linalg/tl_blas.h"
#include "ndcore/linalg/tl_linalg.h"

tl_status tl_nn_work_in(const tl_tensor *t, tl_dtype work, tl_tensor *out)
{
  *out = (tl_tensor){0};
  if (!t)
    return TL_OK;
  if (t->dtype == work && tl_tensor_is_contiguous(t)) {
    tl_tensor_view_of(out, t);
    return TL_OK;
  }
  return tl_tensor_to_dtype(out, t, work);
}

tl_status tl_nn_work_out(tl_tensor *t, tl_dtype dtype)
{
  if (t->dtype == dtype)
    return TL_OK;
  tl_tensor cast = {0};
  tl_status status = tl_tensor_to_dtype(&cast, t, dtype);
  tl_tensor_release(t);
  *t = cast;
  return status;
}

void tl_nn_gemm(bool f64, bool ta, bool tb, int64_t M, int64_t N, int64_t K, const void *A,
                int64_t lda, const void *B, int64_t ldb, double beta, void *C, int64_t ldc)
{
  size_t size = f64 ? sizeof(double) : sizeof(float);
  if (M == 0 || N == 0)
    return;
  if (K == 0) { /* BLAS may not touch C then; only beta 0 and 1 are used */
    for (int64_t r = 0; beta == 0 && r < M; r++)
      memset((char *)C + (size_t)(r * ldc) * size, 0, (size_t)N * size);
    return;
  }
  /* on one BLAS thread, as unpacked tiles where those measured faster */
  if (tl_linalg_gemm_tiles_fit(ta, tb, M, N, K)) {
    tl_linalg_gemm_tiles(f64, 1.0, M, N, K, A, lda, B, ldb, beta, C, ldc);
    return;
  }
  CBLAS_TRANSPOSE a = ta ? CblasTrans : CblasNoTrans, b = tb ? CblasTrans : CblasNoTrans;
  /* a small product on one BLAS thread, as tl_linalg_gemm's */
  bool single = tl_linalg_gemm_single_thread(M, N, K) && tl_linalg_blas_user_threads() > 1;
  if (single)
    tl_linalg_blas_single_begin();
  if (f64)
    TL_BLAS(cblas_dgemm)(CblasRowMajor, a, b, (int)M, (int)N, (int)K, 1.0, A, (int)lda, B,
                         (int)ldb, beta, C, (int)ldc);
  else
    TL_BLAS(cblas_sgemm)(CblasRowMajor, a, b, (int)M, (int)N, (int)K, 1.0f, A, (int)lda, B,
                         (int)ldb, (float)beta, C, (int)ldc);
  if (single)
    tl_linalg_blas_single_end();
}
