/* svd_lstsq_gpu.c - CUDA's executors for svd and lstsq
 * (tl_gpu_svd_lstsq.h: the op layer, svd_lstsq.c, does the rest).
 *
 * svd: cuSOLVER's Jacobi SVD, one gesvdj per matrix (econ for
 * full_matrices=False), or one gesvdjBatched call for a batch of matrices
 * of at most 32 x 32 when U and V are wanted whole (full_matrices, or
 * square) and none is skipped.  Singular values sorted descending (the
 * solver's sort flag, set).
 *
 * lstsq ('gels'): Legend: A m x n, B m x k.  m >= n: Q R = A (geqrf),
 * Q^H B (ormqr/unmqr), R x = (Q^H B)[first n rows] (cuBLAS trsm), and the
 * rows past n stay for the residuals.  m < n: the minimum-norm solution
 * through A^H = Q R: R^H y = B (trsm), x = Q [y; 0] (ormqr/unmqr).       */
#include "gpu/tl_gpu.h"

#ifdef TL_WITH_CUDA
#include <math.h>

#include "gpu/linalg/tl_gpu_cublas.h"
#include "gpu/linalg/tl_gpu_solver.h"
#include "gpu/linalg/tl_gpu_svd_lstsq.h"
#include "gpu/tl_gpu_host.h"
#include "ndcore/linalg/tl_lapack.h"

/* ---- typed cuSOLVER calls -------------------------------------------------------- */

static int gesvdj_lwork(cusolverDnHandle_t h, tl_dtype d, cusolverEigMode_t jobz, int econ, int m,
                        int n, void *a, int lda, void *s, void *u, int ldu, void *v, int ldv,
                        int *lw, gesvdjInfo_t p)
{
  switch (d) {
  case TL_DTYPE_F32: return cusolverDnSgesvdj_bufferSize(h, jobz, econ, m, n, a, lda, s, u, ldu, v, ldv, lw, p);
  case TL_DTYPE_F64: return cusolverDnDgesvdj_bufferSize(h, jobz, econ, m, n, a, lda, s, u, ldu, v, ldv, lw, p);
  case TL_DTYPE_C64: return cusolverDnCgesvdj_bufferSize(h, jobz, econ, m, n, a, lda, s, u, ldu, v, ldv, lw, p);
  default: return cusolverDnZgesvdj_bufferSize(h, jobz, econ, m, n, a, lda, s, u, ldu, v, ldv, lw, p);
  }
}

static int gesvdj(cusolverDnHandle_t h, tl_dtype d, cusolverEigMode_t jobz, int econ, int m, int n,
                  void *a, int lda, void *s, void *u, int ldu, void *v, int ldv, void *w, int lw,
                  int *info, gesvdjInfo_t p)
{
  switch (d) {
  case TL_DTYPE_F32: return cusolverDnSgesvdj(h, jobz, econ, m, n, a, lda, s, u, ldu, v, ldv, w, lw, info, p);
  case TL_DTYPE_F64: return cusolverDnDgesvdj(h, jobz, econ, m, n, a, lda, s, u, ldu, v, ldv, w, lw, info, p);
  case TL_DTYPE_C64: return cusolverDnCgesvdj(h, jobz, econ, m, n, a, lda, s, u, ldu, v, ldv, w, lw, info, p);
  default: return cusolverDnZgesvdj(h, jobz, econ, m, n, a, lda, s, u, ldu, v, ldv, w, lw, info, p);
  }
}

static int gesvdj_batched_lwork(cusolverDnHandle_t h, tl_dtype d, cusolverEigMode_t jobz, int m,
                                int n, void *a, int lda, void *s, void *u, int ldu, void *v,
                                int ldv, int *lw, gesvdjInfo_t p, int batch)
{
  switch (d) {
  case TL_DTYPE_F32: return cusolverDnSgesvdjBatched_bufferSize(h, jobz, m, n, a, lda, s, u, ldu, v, ldv, lw, p, batch);
  case TL_DTYPE_F64: return cusolverDnDgesvdjBatched_bufferSize(h, jobz, m, n, a, lda, s, u, ldu, v, ldv, lw, p, batch);
  case TL_DTYPE_C64: return cusolverDnCgesvdjBatched_bufferSize(h, jobz, m, n, a, lda, s, u, ldu, v, ldv, lw, p, batch);
  default: return cusolverDnZgesvdjBatched_bufferSize(h, jobz, m, n, a, lda, s, u, ldu, v, ldv, lw, p, batch);
  }
}

static int gesvdj_batched(cusolverDnHandle_t h, tl_dtype d, cusolverEigMode_t jobz, int m, int n,
                          void *a, int lda, void *s, void *u, int ldu, void *v, int ldv, void *w,
                          int lw, int *info, gesvdjInfo_t p, int batch)
{
  switch (d) {
  case TL_DTYPE_F32: return cusolverDnSgesvdjBatched(h, jobz, m, n, a, lda, s, u, ldu, v, ldv, w, lw, info, p, batch);
  case TL_DTYPE_F64: return cusolverDnDgesvdjBatched(h, jobz, m, n, a, lda, s, u, ldu, v, ldv, w, lw, info, p, batch);
  case TL_DTYPE_C64: return cusolverDnCgesvdjBatched(h, jobz, m, n, a, lda, s, u, ldu, v, ldv, w, lw, info, p, batch);
  default: return cusolverDnZgesvdjBatched(h, jobz, m, n, a, lda, s, u, ldu, v, ldv, w, lw, info, p, batch);
  }
}

static int ormqr_lwork(cusolverDnHandle_t h, tl_dtype d, cublasOperation_t op, int m, int n, int k,
                       const void *a, int lda, const void *tau, const void *c, int ldc, int *lw)
{
  const cublasSideMode_t L = CUBLAS_SIDE_LEFT;
  switch (d) {
  case TL_DTYPE_F32: return cusolverDnSormqr_bufferSize(h, L, op, m, n, k, a, lda, tau, c, ldc, lw);
  case TL_DTYPE_F64: return cusolverDnDormqr_bufferSize(h, L, op, m, n, k, a, lda, tau, c, ldc, lw);
  case TL_DTYPE_C64: return cusolverDnCunmqr_bufferSize(h, L, op, m, n, k, a, lda, tau, c, ldc, lw);
  default: return cusolverDnZunmqr_bufferSize(h, L, op, m, n, k, a, lda, tau, c, ldc, lw);
  }
}

/* C <- op(Q) C, Q from geqrf's k reflectors in a and tau (C is m x n). */
static int ormqr(cusolverDnHandle_t h, tl_dtype d, cublasOperation_t op, int m, int n, int k,
                 const void *a, int lda, const void *tau, void *c, int ldc, void *w, int lw,
                 int *info)
{
  const cublasSideMode_t L = CUBLAS_SIDE_LEFT;
  switch (d) {
  case TL_DTYPE_F32: return cusolverDnSormqr(h, L, op, m, n, k, a, lda, tau, c, ldc, w, lw, info);
  case TL_DTYPE_F64: return cusolverDnDormqr(h, L, op, m, n, k, a, lda, tau, c, ldc, w, lw, info);
  case TL_DTYPE_C64: return cusolverDnCunmqr(h, L, op, m, n, k, a, lda, tau, c, ldc, w, lw, info);
  default: return cusolverDnZunmqr(h, L, op, m, n, k, a, lda, tau, c, ldc, w, lw, info);
  }
}

/* Q^H: the conjugate transpose for complex, the transpose for real. */
static cublasOperation_t op_h(tl_dtype d) { return tl_dtype_is_complex(d) ? CUBLAS_OP_C : CUBLAS_OP_T; }

static tl_status cuda_svd(const tl_svd_job *j)
{
  const tl_dtype d = j->a->dtype;
  const tl_device dev = tl_tensor_device(j->a);
  const int64_t size = (int64_t)tl_dtype_size(d), rsize = (int64_t)tl_dtype_size(j->s->dtype);
  const int64_t m = j->m, n = j->n, k = j->k;
  const int im = (int)m, in = (int)n;
  const cusolverEigMode_t jobz = j->compute_uv ? CUSOLVER_EIG_MODE_VECTOR
                                               : CUSOLVER_EIG_MODE_NOVECTOR;
  char *a0 = tl_tensor_data(j->a), *s0 = tl_tensor_data(j->s);
  char *u0 = j->compute_uv ? tl_tensor_data(j->u) : NULL;
  char *v0 = j->compute_uv ? tl_tensor_data(j->v) : NULL;
  int *info = tl_tensor_data(j->info);
  bool skips = false;
  for (int64_t i = 0; i < j->run; i++)
    skips = skips || isinf(j->max_abs[i]);
  tl_gpu_solver_call c = {0};
  gesvdjInfo_t params = NULL;
  int lwork = 0;
  tl_status st = tl_gpu_solver_begin(&c, j->fn, dev, 0);
  if (st == TL_OK)
    st = tl_gpu_cusolver_check(cusolverDnCreateGesvdjInfo(&params), "gesvdj");
  if (st == TL_OK)
    st = tl_gpu_cusolver_check(cusolverDnXgesvdjSetSortEig(params, 1), "gesvdj");
  if (st != TL_OK)
    goto done;
  if (m <= 32 && n <= 32 && j->run > 1 && j->run <= 1 << 30 && !skips &&
      (j->full_matrices || m == n)) {
    const int batch = (int)j->run;
    if ((st = tl_gpu_cusolver_check(gesvdj_batched_lwork(c.h, d, jobz, im, in, a0, im, s0, u0, im,
                                                         v0, in, &lwork, params, batch),
                                    "gesvdjBatched")) == TL_OK &&
        (st = tl_gpu_solver_work(&c, d, lwork, dev)) == TL_OK)
      st = tl_gpu_cusolver_check(gesvdj_batched(c.h, d, jobz, im, in, a0, im, s0, u0, im, v0, in,
                                                tl_tensor_data(&c.work), lwork, info, params,
                                                batch), "gesvdjBatched");
    goto done;
  }
  const int econ = !j->full_matrices;
  if ((st = tl_gpu_cusolver_check(gesvdj_lwork(c.h, d, jobz, econ, im, in, a0, im, s0, u0, im, v0,
                                               in, &lwork, params), "gesvdj")) != TL_OK ||
      (st = tl_gpu_solver_work(&c, d, lwork, dev)) != TL_OK)
    goto done;
  for (int64_t i = 0; i < j->run && st == TL_OK; i++)
    if (!isinf(j->max_abs[i])) /* NaN factors: the op layer's */
      st = tl_gpu_cusolver_check(
          gesvdj(c.h, d, jobz, econ, im, in, a0 + i * m * n * size, im, s0 + i * k * rsize,
                 j->compute_uv ? u0 + i * m * j->ucols * size : NULL, im,
                 j->compute_uv ? v0 + i * n * j->vcols * size : NULL, in, tl_tensor_data(&c.work),
                 lwork, info + i, params),
          "gesvdj");
done:
  if (params)
    cusolverDnDestroyGesvdjInfo(params);
  tl_gpu_solver_release(&c);
  return st;
}

static tl_status cuda_gels(const tl_lstsq_job *j)
{
  const tl_dtype d = j->a->dtype;
  const tl_device dev = tl_tensor_device(j->a);
  const int64_t size = (int64_t)tl_dtype_size(d), m = j->m, n = j->n, k = j->k, ldb = j->ldb;
  const bool tall = m >= n;
  const int64_t mn = tall ? n : m, ntau = j->count * mn;
  /* the matrix factored: A when tall, else A^H (a packed copy) */
  const int rows = (int)(tall ? m : n), cols = (int)mn, ik = (int)k, ild = (int)ldb;
  const cublasOperation_t qop = tall ? op_h(d) : CUBLAS_OP_N;
  tl_tensor ah = {0}, tau = {0};
  tl_gpu_solver_call c = {0};
  cublasHandle_t h = NULL;
  int lw1 = 0, lw2 = 0;
  tl_status st = tl_gpu_solver_begin(&c, j->fn, dev, j->count);
  if (st == TL_OK)
    st = tl_tensor_empty(&tau, d, 1, &ntau, dev);
  if (st == TL_OK && !tall) {
    tl_tensor at = *j->a; /* A^T, packed: conjugated in place below */
    tl_lapack_swap_last(&at);
    if ((st = tl_lapack_colmajor_copy(&ah, &at, d, j->nb, j->bshape)) == TL_OK &&
        tl_dtype_is_complex(d))
      st = tl_gpu_conj_in_place(&ah);
  }
  if (st != TL_OK || !(h = tl_gpu_cublas(dev, c.stream)))
    goto done;
  char *f0 = tl_tensor_data(tall ? j->a : &ah), *t0 = tl_tensor_data(&tau);
  char *b0 = tl_tensor_data(j->qb);
  if ((st = tl_gpu_cusolver_check(tl_gpu_geqrf_lwork(c.h, d, rows, cols, f0, rows, &lw1),
                                  "geqrf")) != TL_OK ||
      (st = tl_gpu_cusolver_check(ormqr_lwork(c.h, d, qop, rows, ik, cols, f0, rows, t0, b0, ild,
                                              &lw2), "ormqr")) != TL_OK ||
      (st = tl_gpu_solver_work(&c, d, lw1 > lw2 ? lw1 : lw2, dev)) != TL_OK)
    goto done;
  void *w = tl_tensor_data(&c.work);
  const int lwork = lw1 > lw2 ? lw1 : lw2;
  for (int64_t i = 0; i < j->count && st == TL_OK; i++) {
    char *fi = f0 + i * rows * mn * size, *ti = t0 + i * mn * size, *bi = b0 + i * ldb * k * size;
    st = tl_gpu_cusolver_check(tl_gpu_geqrf(c.h, d, rows, cols, fi, rows, ti, w, lwork,
                                            c.info + i), "geqrf");
    if (tall) { /* Q^H B, then R x = (Q^H B)[:n] */
      if (st == TL_OK)
        st = tl_gpu_cusolver_check(ormqr(c.h, d, qop, rows, ik, cols, fi, rows, ti, bi, ild, w,
                                         lwork, c.info + i), "ormqr");
      if (st == TL_OK)
        st = tl_gpu_cublas_check(tl_gpu_trsm(h, d, CUBLAS_SIDE_LEFT, CUBLAS_FILL_MODE_UPPER,
                                             CUBLAS_OP_N, CUBLAS_DIAG_NON_UNIT, cols, ik, fi, rows,
                                             bi, ild), "trsm");
    } else { /* R^H y = B, then x = Q [y; 0] */
      if (st == TL_OK)
        st = tl_gpu_cublas_check(tl_gpu_trsm(h, d, CUBLAS_SIDE_LEFT, CUBLAS_FILL_MODE_UPPER,
                                             op_h(d), CUBLAS_DIAG_NON_UNIT, cols, ik, fi, rows, bi,
                                             ild), "trsm");
      if (st == TL_OK)
        st = tl_gpu_cusolver_check(ormqr(c.h, d, qop, rows, ik, cols, fi, rows, ti, bi, ild, w,
                                         lwork, c.info + i), "ormqr");
    }
  }
done:
  if (st == TL_OK && !h)
    st = tl_error_status();
  tl_gpu_solver_release(&c);
  if (ah.storage)
    tl_tensor_release(&ah);
  if (tau.storage)
    tl_tensor_release(&tau);
  return st;
}

void tl_gpu_svd_lstsq_register(void)
{
  static const tl_svd_lstsq_exec exec = {.svd = cuda_svd, .lstsq_gels = cuda_gels};
  tl_svd_lstsq_register_device(TL_DEVICE_CUDA, &exec);
}
#endif
