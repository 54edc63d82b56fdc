/* solver_gpu.c - the CUDA factorizations and solves of the linalg set:
 * solve and inv (cuSOLVER getrf + getrs), det/slogdet/logdet (getrf and a
 * kernel over U's diagonal), eigh (syevd/heevd), cholesky (potrf; batches
 * of small matrices: potrfBatched, and getrf's: cuBLAS getrfBatched),
 * lu_factor (getrf), lu_solve (getrs), qr and geqrf (geqrf + orgqr/ungqr)
 * and solve_triangular (cuBLAS trsm).
 *
 * The op layer is the CPU's (linalg.c, linalg_lu.c through tl_lapack.h):
 * the same shape checks, broadcasting and packed column-major copies, made
 * on the device; only the per-matrix calls differ.  Every matrix of a batch
 * is queued on the op's stream with its own pivots and info slot, so a batch
 * runs without a host round trip; the info array is read on the host once,
 * at the end, and only where an error must be raised (the *_ex forms hand it
 * back on the device).  The error names the first failed matrix exactly as
 * the CPU does.  Legend: B... batch, n order, k right-hand sides.          */
#include "gpu/tl_gpu.h"

#ifdef TL_WITH_CUDA
#include <limits.h>
#include <stdlib.h>
#include <string.h>

#include <cuComplex.h>

#include "gpu/linalg/tl_gpu_cublas.h"
#include "gpu/linalg/tl_gpu_linalg.h"
#include "gpu/linalg/tl_gpu_linalg_kernels.h"
#include "gpu/linalg/tl_gpu_solver.h"
#include "gpu/tl_gpu_host.h"
#include "ndcore/dispatch/tl_op.h"
#include "ndcore/linalg/tl_lapack.h"
#include "ndcore/linalg/tl_linalg.h"
#include "ndcore/tensor/tl_backend.h"

/* ---- typed cuSOLVER calls -------------------------------------------------------- */

static int getrf_lwork(cusolverDnHandle_t h, tl_dtype d, int m, int n, void *a, int lda, int *lw)
{
  switch (d) {
  case TL_DTYPE_F32: return cusolverDnSgetrf_bufferSize(h, m, n, a, lda, lw);
  case TL_DTYPE_F64: return cusolverDnDgetrf_bufferSize(h, m, n, a, lda, lw);
  case TL_DTYPE_C64: return cusolverDnCgetrf_bufferSize(h, m, n, a, lda, lw);
  default: return cusolverDnZgetrf_bufferSize(h, m, n, a, lda, lw);
  }
}

static int getrf(cusolverDnHandle_t h, tl_dtype d, int m, int n, void *a, int lda, void *work,
                 int *ipiv, int *info)
{
  switch (d) {
  case TL_DTYPE_F32: return cusolverDnSgetrf(h, m, n, a, lda, work, ipiv, info);
  case TL_DTYPE_F64: return cusolverDnDgetrf(h, m, n, a, lda, work, ipiv, info);
  case TL_DTYPE_C64: return cusolverDnCgetrf(h, m, n, a, lda, work, ipiv, info);
  default: return cusolverDnZgetrf(h, m, n, a, lda, work, ipiv, info);
  }
}

static int getrs(cusolverDnHandle_t h, tl_dtype d, cublasOperation_t op, int n, int k,
                 const void *a, int lda, const int *ipiv, void *b, int ldb, int *info)
{
  switch (d) {
  case TL_DTYPE_F32: return cusolverDnSgetrs(h, op, n, k, a, lda, ipiv, b, ldb, info);
  case TL_DTYPE_F64: return cusolverDnDgetrs(h, op, n, k, a, lda, ipiv, b, ldb, info);
  case TL_DTYPE_C64: return cusolverDnCgetrs(h, op, n, k, a, lda, ipiv, b, ldb, info);
  default: return cusolverDnZgetrs(h, op, n, k, a, lda, ipiv, b, ldb, info);
  }
}

static int potrf_lwork(cusolverDnHandle_t h, tl_dtype d, cublasFillMode_t uplo, int n, void *a,
                       int lda, int *lw)
{
  switch (d) {
  case TL_DTYPE_F32: return cusolverDnSpotrf_bufferSize(h, uplo, n, a, lda, lw);
  case TL_DTYPE_F64: return cusolverDnDpotrf_bufferSize(h, uplo, n, a, lda, lw);
  case TL_DTYPE_C64: return cusolverDnCpotrf_bufferSize(h, uplo, n, a, lda, lw);
  default: return cusolverDnZpotrf_bufferSize(h, uplo, n, a, lda, lw);
  }
}

static int potrf(cusolverDnHandle_t h, tl_dtype d, cublasFillMode_t uplo, int n, void *a, int lda,
                 void *work, int lw, int *info)
{
  switch (d) {
  case TL_DTYPE_F32: return cusolverDnSpotrf(h, uplo, n, a, lda, work, lw, info);
  case TL_DTYPE_F64: return cusolverDnDpotrf(h, uplo, n, a, lda, work, lw, info);
  case TL_DTYPE_C64: return cusolverDnCpotrf(h, uplo, n, a, lda, work, lw, info);
  default: return cusolverDnZpotrf(h, uplo, n, a, lda, work, lw, info);
  }
}

static int syevd_lwork(cusolverDnHandle_t h, tl_dtype d, cusolverEigMode_t jobz,
                       cublasFillMode_t uplo, int n, void *a, int lda, void *w, int *lw)
{
  switch (d) {
  case TL_DTYPE_F32: return cusolverDnSsyevd_bufferSize(h, jobz, uplo, n, a, lda, w, lw);
  case TL_DTYPE_F64: return cusolverDnDsyevd_bufferSize(h, jobz, uplo, n, a, lda, w, lw);
  case TL_DTYPE_C64: return cusolverDnCheevd_bufferSize(h, jobz, uplo, n, a, lda, w, lw);
  default: return cusolverDnZheevd_bufferSize(h, jobz, uplo, n, a, lda, w, lw);
  }
}

static int syevd(cusolverDnHandle_t h, tl_dtype d, cusolverEigMode_t jobz, cublasFillMode_t uplo,
                 int n, void *a, int lda, void *w, void *work, int lw, int *info)
{
  switch (d) {
  case TL_DTYPE_F32: return cusolverDnSsyevd(h, jobz, uplo, n, a, lda, w, work, lw, info);
  case TL_DTYPE_F64: return cusolverDnDsyevd(h, jobz, uplo, n, a, lda, w, work, lw, info);
  case TL_DTYPE_C64: return cusolverDnCheevd(h, jobz, uplo, n, a, lda, w, work, lw, info);
  default: return cusolverDnZheevd(h, jobz, uplo, n, a, lda, w, work, lw, info);
  }
}

int tl_gpu_geqrf_lwork(cusolverDnHandle_t h, tl_dtype d, int m, int n, void *a, int lda, int *lw)
{
  switch (d) {
  case TL_DTYPE_F32: return cusolverDnSgeqrf_bufferSize(h, m, n, a, lda, lw);
  case TL_DTYPE_F64: return cusolverDnDgeqrf_bufferSize(h, m, n, a, lda, lw);
  case TL_DTYPE_C64: return cusolverDnCgeqrf_bufferSize(h, m, n, a, lda, lw);
  default: return cusolverDnZgeqrf_bufferSize(h, m, n, a, lda, lw);
  }
}

int tl_gpu_geqrf(cusolverDnHandle_t h, tl_dtype d, int m, int n, void *a, int lda, void *tau,
                 void *work, int lw, int *info)
{
  switch (d) {
  case TL_DTYPE_F32: return cusolverDnSgeqrf(h, m, n, a, lda, tau, work, lw, info);
  case TL_DTYPE_F64: return cusolverDnDgeqrf(h, m, n, a, lda, tau, work, lw, info);
  case TL_DTYPE_C64: return cusolverDnCgeqrf(h, m, n, a, lda, tau, work, lw, info);
  default: return cusolverDnZgeqrf(h, m, n, a, lda, tau, work, lw, info);
  }
}

static int orgqr_lwork(cusolverDnHandle_t h, tl_dtype d, int m, int n, int k, void *a, int lda,
                       void *tau, int *lw)
{
  switch (d) {
  case TL_DTYPE_F32: return cusolverDnSorgqr_bufferSize(h, m, n, k, a, lda, tau, lw);
  case TL_DTYPE_F64: return cusolverDnDorgqr_bufferSize(h, m, n, k, a, lda, tau, lw);
  case TL_DTYPE_C64: return cusolverDnCungqr_bufferSize(h, m, n, k, a, lda, tau, lw);
  default: return cusolverDnZungqr_bufferSize(h, m, n, k, a, lda, tau, lw);
  }
}

static int orgqr(cusolverDnHandle_t h, tl_dtype d, int m, int n, int k, void *a, int lda,
                 const void *tau, void *work, int lw, int *info)
{
  switch (d) {
  case TL_DTYPE_F32: return cusolverDnSorgqr(h, m, n, k, a, lda, tau, work, lw, info);
  case TL_DTYPE_F64: return cusolverDnDorgqr(h, m, n, k, a, lda, tau, work, lw, info);
  case TL_DTYPE_C64: return cusolverDnCungqr(h, m, n, k, a, lda, tau, work, lw, info);
  default: return cusolverDnZungqr(h, m, n, k, a, lda, tau, work, lw, info);
  }
}

int tl_gpu_trsm(cublasHandle_t h, tl_dtype d, cublasSideMode_t side, cublasFillMode_t uplo,
                cublasOperation_t op, cublasDiagType_t diag, int m, int n, const void *a, int lda,
                void *b, int ldb)
{
  switch (d) {
  case TL_DTYPE_F32: {
    const float one = 1;
    return cublasStrsm(h, side, uplo, op, diag, m, n, &one, a, lda, b, ldb);
  }
  case TL_DTYPE_F64: {
    const double one = 1;
    return cublasDtrsm(h, side, uplo, op, diag, m, n, &one, a, lda, b, ldb);
  }
  case TL_DTYPE_C64: {
    const cuComplex one = make_cuComplex(1, 0);
    return cublasCtrsm(h, side, uplo, op, diag, m, n, &one, a, lda, b, ldb);
  }
  default: {
    const cuDoubleComplex one = make_cuDoubleComplex(1, 0);
    return cublasZtrsm(h, side, uplo, op, diag, m, n, &one, a, lda, b, ldb);
  }
  }
}

/* ---- shared pieces ---------------------------------------------------------------- */


/* Safe to call twice: tl_gpu_solver_begin releases on its own failure, and its
 * callers release on every path. */
void tl_gpu_solver_release(tl_gpu_solver_call *c)
{
  if (c->work.storage)
    tl_tensor_release(&c->work);
  if (c->scratch.storage)
    tl_tensor_release(&c->scratch);
  c->work.storage = c->scratch.storage = NULL;
}

tl_status tl_gpu_solver_begin(tl_gpu_solver_call *c, const char *fn, tl_device dev, int64_t count)
{
  *c = (tl_gpu_solver_call){0};
  if (tl_gpu_stream(dev, fn, &c->stream) != TL_OK || !(c->h = tl_gpu_cusolver(dev, c->stream)))
    return tl_error_status();
  int64_t slots = count + 1;
  if (tl_tensor_empty(&c->scratch, TL_DTYPE_I32, 1, &slots, dev) != TL_OK)
    return tl_error_status();
  const tl_backend *b = tl_backend_get(dev);
  c->info = tl_tensor_data(&c->scratch);
  if (b->memset(dev, c->info, 0, sizeof(int) * (size_t)slots, NULL) != TL_OK) {
    tl_gpu_solver_release(c);
    return tl_error_status();
  }
  return TL_OK;
}

/* A device workspace of lwork elements of dtype d. */
tl_status tl_gpu_solver_work(tl_gpu_solver_call *c, tl_dtype d, int lwork, tl_device dev)
{
  int64_t n = lwork > 0 ? lwork : 1;
  return tl_tensor_empty(&c->work, d, 1, &n, dev);
}

/* ---- many small matrices: the batched calls --------------------------------------------- */

/* Matrices of at most this order, two or more of them, are factored by one
 * batched call (cuBLAS getrfBatched, cuSOLVER potrfBatched: one launch for
 * the batch) rather than one call each; larger ones gain from the per-matrix
 * blocked algorithms. */
#define TL_GPU_BATCHED_MAX 32

static bool use_batched(int n, int64_t count)
{
  return n > 0 && n <= TL_GPU_BATCHED_MAX && count > 1 && count <= INT_MAX;
}

/* The batched calls' array of matrix addresses (a0 + i * stride bytes), in
 * device memory: one small synchronous upload. */
static tl_status matrix_pointers(tl_tensor *ptrs, tl_device dev, char *a0, int64_t stride,
                                 int64_t count)
{
  char **host = malloc(sizeof(char *) * (size_t)count);
  if (!host)
    return tl_error_set(TL_ERR_MEMORY, "out of memory for %lld matrix addresses",
                        (long long)count);
  for (int64_t i = 0; i < count; i++)
    host[i] = a0 + i * stride;
  tl_status st = tl_tensor_empty(ptrs, TL_DTYPE_I64, 1, &count, dev);
  if (st == TL_OK &&
      (st = tl_backend_get(dev)->copy_from_host(dev, tl_tensor_data(ptrs), host,
                                                sizeof(char *) * (size_t)count, NULL, false)) !=
          TL_OK)
    tl_tensor_release(ptrs);
  free(host);
  return st;
}

static int getrf_batched(cublasHandle_t h, tl_dtype d, int n, void *ptrs, int *ipiv, int *info,
                         int batch)
{
  switch (d) {
  case TL_DTYPE_F32: return cublasSgetrfBatched(h, n, ptrs, n, ipiv, info, batch);
  case TL_DTYPE_F64: return cublasDgetrfBatched(h, n, ptrs, n, ipiv, info, batch);
  case TL_DTYPE_C64: return cublasCgetrfBatched(h, n, ptrs, n, ipiv, info, batch);
  default: return cublasZgetrfBatched(h, n, ptrs, n, ipiv, info, batch);
  }
}

static int potrf_batched(cusolverDnHandle_t h, tl_dtype d, cublasFillMode_t uplo, int n,
                         void *ptrs, int *info, int batch)
{
  switch (d) {
  case TL_DTYPE_F32: return cusolverDnSpotrfBatched(h, uplo, n, ptrs, n, info, batch);
  case TL_DTYPE_F64: return cusolverDnDpotrfBatched(h, uplo, n, ptrs, n, info, batch);
  case TL_DTYPE_C64: return cusolverDnCpotrfBatched(h, uplo, n, ptrs, n, info, batch);
  default: return cusolverDnZpotrfBatched(h, uplo, n, ptrs, n, info, batch);
  }
}

/* One batched call over count packed n x n matrices from a0: getrf (ipiv
 * n pivots each) or, with ipiv NULL, potrf; infos into c->info. */
static tl_status factor_batched(tl_gpu_solver_call *c, tl_dtype d, tl_device dev, int n,
                                int64_t count, char *a0, int *ipiv, cublasFillMode_t uplo)
{
  tl_tensor ptrs = {0};
  cublasHandle_t h = NULL;
  tl_status st;
  if (ipiv && !(h = tl_gpu_cublas(dev, c->stream)))
    return tl_error_status();
  if ((st = matrix_pointers(&ptrs, dev, a0, (int64_t)n * n * (int64_t)tl_dtype_size(d), count)) !=
      TL_OK)
    return st;
  st = ipiv ? tl_gpu_cublas_check(getrf_batched(h, d, n, tl_tensor_data(&ptrs), ipiv, c->info,
                                                (int)count), "getrfBatched")
            : tl_gpu_cusolver_check(potrf_batched(c->h, d, uplo, n, tl_tensor_data(&ptrs),
                                                  c->info, (int)count), "potrfBatched");
  tl_tensor_release(&ptrs);
  return st;
}

tl_status tl_gpu_getrf_batch(tl_gpu_solver_call *c, tl_dtype d, tl_device dev, int m, int n,
                             int64_t count, char *a0, int *ipiv)
{
  const int k = m < n ? m : n, ld = m > 0 ? m : 1;
  const int64_t size = (int64_t)tl_dtype_size(d);
  int lwork = 0;
  tl_status st = TL_OK;
  if (k == 0 || count == 0)
    return TL_OK;
  if (ipiv && m == n && use_batched(n, count)) /* (factor_batched reads no ipiv as potrf) */
    return factor_batched(c, d, dev, n, count, a0, ipiv, CUBLAS_FILL_MODE_LOWER);
  if ((st = tl_gpu_cusolver_check(getrf_lwork(c->h, d, m, n, a0, ld, &lwork), "getrf")) != TL_OK ||
      (st = tl_gpu_solver_work(c, d, lwork, dev)) != TL_OK)
    return st;
  for (int64_t i = 0; i < count && st == TL_OK; i++)
    st = tl_gpu_cusolver_check(getrf(c->h, d, m, n, a0 + i * (int64_t)m * n * size, ld,
                                     tl_tensor_data(&c->work), ipiv ? ipiv + i * k : NULL,
                                     c->info + i), "getrf");
  return st;
}

/* The first failed matrix of the batch (info read on the host: the sync an
 * error needs), or -1; its info in *err. */
tl_status tl_gpu_solver_first_failure(const tl_gpu_solver_call *c, int64_t count, int64_t *at, int *err)
{
  tl_tensor dev_info = c->scratch, host = {0};
  dev_info.shape[0] = count;
  *at = -1;
  if (count == 0)
    return TL_OK;
  if (tl_backend_tensor_to(&host, &dev_info, tl_device_cpu(), TL_DTYPE_I32, false) != TL_OK)
    return tl_error_status();
  const int32_t *v = tl_tensor_data(&host);
  for (int64_t i = 0; i < count; i++)
    if (v[i] > 0) {
      *at = i;
      *err = v[i];
      break;
    }
  tl_tensor_release(&host);
  return TL_OK;
}

/* Copy the scratch infos [count] into the caller's info tensor (batch-shaped). */
static tl_status hand_back_info(const tl_gpu_solver_call *c, tl_tensor *info)
{
  tl_tensor src = c->scratch;
  src.ndim = info->ndim;
  memcpy(src.shape, info->shape, sizeof src.shape);
  memcpy(src.strides, info->strides, sizeof src.strides);
  return tl_tensor_copy(info, &src);
}

/* The infos: handed back on the device (the *_ex forms, *at = -1), or read
 * on the host: the first failed matrix in *at (-1 for none), its info in *err. */
static tl_status finish_infos(const tl_gpu_solver_call *c, int64_t count, tl_tensor *info, int64_t *at,
                              int *err)
{
  *at = -1;
  if (info)
    return hand_back_info(c, info);
  return tl_gpu_solver_first_failure(c, count, at, err);
}

/* The same, the first failure raised as the CPU raises it (tl_lapack.h). */
typedef tl_status (*failure_error)(const char *fn, int nb, int64_t batch, int err);
static tl_status check_infos(const tl_gpu_solver_call *c, int64_t count, tl_tensor *info,
                             failure_error raise, const char *fn, int nb)
{
  int64_t at;
  int err = 0;
  if (finish_infos(c, count, info, &at, &err) != TL_OK)
    return tl_error_status();
  return at >= 0 ? raise(fn, nb, at, err) : TL_OK;
}

/* tl_gpu_solver_begin, then count * n device pivots in *piv (one at least); on
 * failure nothing is left held. */
static tl_status lu_begin(tl_gpu_solver_call *c, tl_tensor *piv, const char *fn, tl_device dev,
                          int64_t count, int n)
{
  tl_status st = tl_gpu_solver_begin(c, fn, dev, count);
  if (st != TL_OK)
    return st;
  int64_t npiv = count * (int64_t)(n > 0 ? n : 1);
  if ((st = tl_tensor_empty(piv, TL_DTYPE_I32, 1, &npiv, dev)) != TL_OK)
    tl_gpu_solver_release(c);
  return st;
}

/* ---- solve and inv: getrf + getrs -------------------------------------------------- */

static tl_status gpu_lu_run(const tl_lapack_solve *p, tl_tensor *lu, tl_tensor *x,
                            tl_tensor *info)
{
  const tl_device dev = tl_tensor_device(lu);
  const tl_dtype d = lu->dtype;
  const int n = (int)p->n, k = (int)p->k;
  const int64_t size = (int64_t)tl_dtype_size(d);
  tl_gpu_solver_call c;
  tl_tensor piv = {0};
  tl_status st;
  if ((st = lu_begin(&c, &piv, p->fn, dev, p->count, n)) != TL_OK)
    return st;
  char *a0 = tl_tensor_data(lu), *b0 = tl_tensor_data(x);
  int *ipiv = tl_tensor_data(&piv);
  if ((st = tl_gpu_getrf_batch(&c, d, dev, n, n, p->count, a0, ipiv)) != TL_OK)
    goto done;
  for (int64_t i = 0; i < p->count && n > 0 && k > 0 && st == TL_OK; i++)
    st = tl_gpu_cusolver_check(getrs(c.h, d, CUBLAS_OP_N, n, k, a0 + i * n * n * size, n,
                                     ipiv + i * n, b0 + i * n * (int64_t)k * size, n,
                                     c.info + p->count), "getrs");
  if (st != TL_OK)
    goto done;
  int64_t at;
  int err = 0;
  if ((st = finish_infos(&c, p->count, info, &at, &err)) == TL_OK && at >= 0)
    st = tl_lapack_singular_error(p, at, err);
done:
  if (piv.storage)
    tl_tensor_release(&piv);
  tl_gpu_solver_release(&c);
  return st;
}

tl_status tl_gpu_linalg_solve_ex(tl_tensor *x, tl_tensor *info, const tl_tensor *a,
                                 const tl_tensor *b, bool left)
{
  return tl_lapack_solve_ex(x, info, a, b, left, gpu_lu_run);
}

tl_status tl_gpu_linalg_inv_ex(tl_tensor *out, tl_tensor *info, const tl_tensor *a)
{
  return tl_lapack_inv_ex(out, info, a, gpu_lu_run);
}


/* ---- lu_solve: getrs ------------------------------------------------------------------- */

/* x <- conj(x) in place, by the conj op on x's device. */
tl_status tl_gpu_conj_in_place(tl_tensor *x)
{
  const tl_arg in = {.t = x};
  return tl_op_map(TL_OP_CONJ_PHYSICAL, 1, &in, x, NULL);
}

/* As the CPU (linalg_lu.c) but for the pivots' range check, which would
 * need a host read of the pivots: out-of-range pivots are not caught. */
tl_status tl_gpu_linalg_lu_solve(tl_tensor *x, const tl_tensor *lu, const tl_tensor *pivots,
                                 const tl_tensor *b, bool left, bool adjoint)
{
  const char *fn = "linalg.lu_solve";
  tl_tensor f = {0}, piv = {0};
  tl_lapack_lu_solve p;
  tl_gpu_solver_call c = {0};
  if (tl_lapack_lu_solve_setup(&p, &f, &piv, x, lu, pivots, b, left, adjoint) != TL_OK)
    return tl_error_status();
  const tl_device dev = tl_tensor_device(&f);
  const tl_dtype d = f.dtype;
  const int n = (int)p.n, k = (int)p.k;
  const int64_t size = (int64_t)tl_dtype_size(d);
  const cublasOperation_t op = p.trans == 'N' ? CUBLAS_OP_N : p.trans == 'T' ? CUBLAS_OP_T
                                                                            : CUBLAS_OP_C;
  tl_status st = tl_gpu_solver_begin(&c, fn, dev, 0);
  if (st == TL_OK && p.conj_rhs)
    st = tl_gpu_conj_in_place(x);
  char *a0 = tl_tensor_data(&f), *b0 = tl_tensor_data(x);
  const int *ip = tl_tensor_data(&piv);
  for (int64_t i = 0; i < p.count && n > 0 && k > 0 && st == TL_OK; i++)
    st = tl_gpu_cusolver_check(getrs(c.h, d, op, n, k, a0 + i * n * n * size, n, ip + i * n,
                                     b0 + i * n * (int64_t)k * size, n, c.info), "getrs");
  if (st == TL_OK && p.conj_rhs)
    st = tl_gpu_conj_in_place(x);
  if (st == TL_OK && !left)
    tl_lapack_swap_last(x);
  if (st != TL_OK)
    tl_tensor_release(x);
  tl_gpu_solver_release(&c);
  tl_tensor_release(&f);
  tl_tensor_release(&piv);
  return st;
}

/* ---- qr and geqrf: geqrf + orgqr/ungqr ------------------------------------------------ */

/* As the CPU (linalg.c): geqrf in place on the packed buffer f (grown to
 * wcols columns), R copied from its top rows with the strict lower
 * triangle zeroed on the device, then orgqr/ungqr turns f into Q. */
tl_status tl_gpu_linalg_qr(tl_tensor *q, tl_tensor *r, const tl_tensor *a, char mode)
{
  tl_tensor f = {0}, tau = {0};
  tl_lapack_qr p;
  tl_gpu_solver_call c = {0};
  tl_status st;
  if ((st = tl_lapack_qr_setup(&p, &f, &tau, q, r, a, mode)) != TL_OK)
    return st;
  const tl_device dev = tl_tensor_device(&f);
  const tl_dtype d = f.dtype;
  const int64_t size = (int64_t)tl_dtype_size(d);
  const int m = (int)p.m, n = (int)p.n, k = (int)p.k, qcols = (int)p.qcols;
  const int lda = m > 0 ? m : 1;
  const bool raw = mode == 'g', want_q = mode != 'R' && !raw;
  const int nb = f.ndim - 2;
  char *f0 = tl_tensor_data(&f), *t0 = tl_tensor_data(&tau);
  int lwork = 1, lw;
  if ((st = tl_gpu_solver_begin(&c, p.fn, dev, p.count)) != TL_OK)
    goto fail;
  if (p.count > 0 && m > 0 && n > 0) {
    if ((st = tl_gpu_cusolver_check(tl_gpu_geqrf_lwork(c.h, d, m, n, f0, lda, &lw), "geqrf")) != TL_OK)
      goto fail;
    lwork = lw > lwork ? lw : lwork;
  }
  if (p.count > 0 && want_q && m > 0 && qcols > 0) {
    if ((st = tl_gpu_cusolver_check(orgqr_lwork(c.h, d, m, qcols, k, f0, lda, t0, &lw),
                                    "orgqr")) != TL_OK)
      goto fail;
    lwork = lw > lwork ? lw : lwork;
  }
  if ((st = tl_gpu_solver_work(&c, d, lwork, dev)) != TL_OK)
    goto fail;
  for (int64_t i = 0; i < p.count && m > 0 && n > 0 && st == TL_OK; i++)
    st = tl_gpu_cusolver_check(tl_gpu_geqrf(c.h, d, m, n, f0 + i * m * p.wcols * size, lda,
                                     t0 + i * k * size, tl_tensor_data(&c.work), lwork, c.info),
                               "geqrf");
  tl_tensor src = f; /* views of f (no reference of their own) */
  if (st == TL_OK && raw) { /* geqrf: the factored matrix and tau as they are */
    src.shape[nb + 1] = n;
    if ((st = tl_tensor_copy(q, &src)) == TL_OK)
      st = tl_tensor_copy(r, &tau);
  } else if (st == TL_OK) {
    /* R: the first rrows rows, strict lower triangle zeroed (r is packed
     * column-major, so row-major n x rrows matrices keeping their lower). */
    src.shape[nb] = p.rrows;
    src.shape[nb + 1] = n;
    if ((st = tl_tensor_copy(r, &src)) == TL_OK)
      st = tl_gpu_launched(tl_gpu_keep_triangle(tl_tensor_data(r), p.count, n, p.rrows,
                                                (int)size, true, c.stream), p.fn);
  }
  for (int64_t i = 0; want_q && i < p.count && m > 0 && qcols > 0 && st == TL_OK; i++)
    st = tl_gpu_cusolver_check(orgqr(c.h, d, m, qcols, k, f0 + i * m * p.wcols * size, lda,
                                     t0 + i * k * size, tl_tensor_data(&c.work), lwork, c.info),
                               "orgqr");
  if (st == TL_OK && want_q) {
    src = f;
    src.shape[nb + 1] = qcols;
    st = tl_tensor_copy(q, &src);
  }
  if (st == TL_OK) {
    tl_gpu_solver_release(&c);
    tl_tensor_release(&f);
    tl_tensor_release(&tau);
    return TL_OK;
  }
fail:
  tl_gpu_solver_release(&c);
  tl_tensor_release(&f);
  tl_tensor_release(&tau);
  tl_tensor_release(q);
  tl_tensor_release(r);
  return st;
}

/* ---- det, slogdet, logdet: getrf, then the diagonal and pivots on the device ---------- */

static int det_kind(tl_dtype d)
{
  return d == TL_DTYPE_F32 ? 0 : d == TL_DTYPE_F64 ? 1 : d == TL_DTYPE_C64 ? 2 : 3;
}

static tl_status gpu_det_run(const tl_lapack_det *p, tl_tensor *lu)
{
  const tl_device dev = tl_tensor_device(lu);
  const tl_dtype d = lu->dtype;
  const int n = (int)p->n;
  tl_gpu_solver_call c;
  tl_tensor piv = {0};
  tl_status st;
  if ((st = lu_begin(&c, &piv, p->fn, dev, p->count, n)) != TL_OK)
    return st;
  char *a0 = tl_tensor_data(lu);
  int *ipiv = tl_tensor_data(&piv);
  /* A singular matrix is no error here: its zero pivot makes det 0. */
  if ((st = tl_gpu_getrf_batch(&c, d, dev, n, n, p->count, a0, ipiv)) == TL_OK) {
    void *out[4] = {NULL, NULL, NULL, NULL};
    tl_tensor *ts[4] = {p->det, p->logdet, p->sign, p->logabs};
    for (int j = 0; j < 4; j++)
      out[j] = ts[j] ? tl_tensor_data(ts[j]) : NULL;
    st = tl_gpu_launched(tl_gpu_lu_det(det_kind(d), a0, ipiv, p->count, n, out[0], out[1], out[2],
                                       out[3], c.stream), p->fn);
  }
  if (piv.storage)
    tl_tensor_release(&piv);
  tl_gpu_solver_release(&c);
  return st;
}

TL_LAPACK_DET_ENTRIES(tl_gpu, gpu_det_run)

/* ---- eigh: syevd / heevd --------------------------------------------------------------- */

/* As the CPU: a packed column-major copy (the eigenvectors' buffer when
 * asked for) factored in place, eigenvalues ascending into w [B..., n]. */
tl_status tl_gpu_linalg_eigh(tl_tensor *w, tl_tensor *v, const tl_tensor *a, bool upper,
                             bool compute_v)
{
  const char *fn = compute_v ? "linalg.eigh" : "linalg.eigvalsh";
  const tl_device dev = tl_tensor_device(a);
  tl_gpu_solver_call c = {0};
  tl_tensor tmp = {0};
  tl_status st;
  if ((st = tl_lapack_check_matrix(fn, a, true)) != TL_OK)
    return st;
  const int nb = a->ndim - 2;
  const int64_t n = a->shape[nb + 1], count = tl_lapack_batch_count(nb, a->shape);
  const tl_dtype d = tl_linalg_float_dtype(a->dtype), rd = tl_dtype_to_real(d);
  const int64_t size = (int64_t)tl_dtype_size(d), rsize = (int64_t)tl_dtype_size(rd);
  const cusolverEigMode_t jobz = compute_v ? CUSOLVER_EIG_MODE_VECTOR : CUSOLVER_EIG_MODE_NOVECTOR;
  const cublasFillMode_t uplo = upper ? CUBLAS_FILL_MODE_UPPER : CUBLAS_FILL_MODE_LOWER;
  tl_tensor *vecs = compute_v ? v : &tmp;
  if ((st = tl_lapack_colmajor_copy(vecs, a, d, nb, a->shape)) != TL_OK)
    return st;
  if ((st = tl_lapack_empty(w, dev, rd, nb, a->shape, 1, &n)) != TL_OK)
    goto fail;
  if (n == 0 || count == 0)
    goto done;
  if ((st = tl_gpu_solver_begin(&c, fn, dev, count)) != TL_OK)
    goto fail;
  char *a0 = tl_tensor_data(vecs), *w0 = tl_tensor_data(w);
  int lwork = 0;
  if ((st = tl_gpu_cusolver_check(syevd_lwork(c.h, d, jobz, uplo, (int)n, a0, (int)n, w0, &lwork),
                                  "syevd")) != TL_OK ||
      (st = tl_gpu_solver_work(&c, d, lwork, dev)) != TL_OK)
    goto fail;
  for (int64_t i = 0; i < count && st == TL_OK; i++)
    st = tl_gpu_cusolver_check(syevd(c.h, d, jobz, uplo, (int)n, a0 + i * n * n * size, (int)n,
                                     w0 + i * n * rsize, tl_tensor_data(&c.work), lwork,
                                     c.info + i), "syevd");
  if (st == TL_OK)
    st = check_infos(&c, count, NULL, tl_lapack_eigh_error, fn, nb);
  if (st != TL_OK)
    goto fail;
done:
  tl_gpu_solver_release(&c);
  if (tmp.storage)
    tl_tensor_release(&tmp);
  return TL_OK;
fail:
  tl_gpu_solver_release(&c);
  if (tmp.storage)
    tl_tensor_release(&tmp);
  if (w->storage)
    tl_tensor_release(w);
  if (compute_v && v->storage)
    tl_tensor_release(v);
  return st;
}

/* ---- cholesky: potrf ------------------------------------------------------------------ */

/* As the CPU (linalg.c): potrf with the opposite triangle on a row-major
 * copy, which cuSOLVER reads as conj(A); its factor read back row-major is
 * the one asked for, and the other triangle is zeroed on the device. */
tl_status tl_gpu_linalg_cholesky_ex(tl_tensor *out, tl_tensor *info, const tl_tensor *a,
                                    bool upper)
{
  const char *fn = "linalg.cholesky";
  const tl_device dev = tl_tensor_device(a);
  tl_gpu_solver_call c = {0};
  tl_status st;
  if ((st = tl_lapack_check_matrix(fn, a, true)) != TL_OK)
    return st;
  const int nb = a->ndim - 2;
  const int n = (int)a->shape[nb + 1];
  const int64_t count = tl_lapack_batch_count(nb, a->shape);
  const tl_dtype d = tl_linalg_float_dtype(a->dtype);
  const int64_t size = (int64_t)tl_dtype_size(d);
  const cublasFillMode_t uplo = upper ? CUBLAS_FILL_MODE_LOWER : CUBLAS_FILL_MODE_UPPER;
  if ((st = tl_tensor_to_dtype(out, a, d)) != TL_OK)
    return st;
  if (info && (st = tl_lapack_empty(info, dev, TL_DTYPE_I32, nb, a->shape, 0, NULL)) != TL_OK)
    goto fail;
  if ((st = tl_gpu_solver_begin(&c, fn, dev, count)) != TL_OK)
    goto fail;
  char *a0 = tl_tensor_data(out);
  int lwork = 0;
  const bool batched = use_batched(n, count);
  if (batched)
    st = factor_batched(&c, d, dev, n, count, a0, NULL, uplo);
  if (st == TL_OK && !batched && n > 0 && count > 0 &&
      ((st = tl_gpu_cusolver_check(potrf_lwork(c.h, d, uplo, n, a0, n, &lwork), "potrf")) != TL_OK ||
       (st = tl_gpu_solver_work(&c, d, lwork, dev)) != TL_OK))
    goto fail;
  for (int64_t i = 0; !batched && i < count && n > 0 && st == TL_OK; i++)
    st = tl_gpu_cusolver_check(potrf(c.h, d, uplo, n, a0 + i * n * n * size, n,
                                     tl_tensor_data(&c.work), lwork, c.info + i), "potrf");
  if (st == TL_OK && n > 0)
    st = tl_gpu_launched(tl_gpu_keep_triangle(a0, count, n, n, (int)size, !upper, c.stream),
                         "cholesky");
  if (st == TL_OK)
    st = check_infos(&c, count, info, tl_lapack_cholesky_error, fn, nb);
  if (st == TL_OK) {
    tl_gpu_solver_release(&c);
    return TL_OK;
  }
fail:
  tl_gpu_solver_release(&c);
  tl_tensor_release(out);
  if (info && info->storage)
    tl_tensor_release(info);
  return st;
}

/* ---- lu_factor: getrf ------------------------------------------------------------------- */

tl_status tl_gpu_linalg_lu_factor_ex(tl_tensor *lu, tl_tensor *pivots, tl_tensor *info,
                                     const tl_tensor *a)
{
  const char *fn = "linalg.lu_factor";
  const tl_device dev = tl_tensor_device(a);
  tl_gpu_solver_call c = {0};
  tl_status st;
  if ((st = tl_lapack_lu_factor_setup(fn, a, lu, pivots, info)) != TL_OK)
    return st;
  const int nb = a->ndim - 2;
  const int m = (int)a->shape[nb], n = (int)a->shape[nb + 1];
  const int64_t count = tl_lapack_batch_count(nb, a->shape);
  if ((st = tl_gpu_solver_begin(&c, fn, dev, count)) == TL_OK &&
      (st = tl_gpu_getrf_batch(&c, tl_linalg_float_dtype(a->dtype), dev, m, n, count,
                        tl_tensor_data(lu), tl_tensor_data(pivots))) == TL_OK)
    st = check_infos(&c, count, info, tl_lapack_lu_factor_error, fn, nb);
  tl_gpu_solver_release(&c);
  if (st != TL_OK)
    tl_lapack_lu_factor_release(lu, pivots, info);
  return st;
}

/* ---- solve_triangular: trsm --------------------------------------------------------------- */

tl_status tl_gpu_linalg_solve_triangular(tl_tensor *x, const tl_tensor *a, const tl_tensor *b,
                                         bool upper, bool left, bool unitriangular)
{
  tl_tensor f = {0};
  int64_t count;
  void *stream;
  if (tl_lapack_triangular_setup(&f, x, a, b, left, &count) != TL_OK)
    return tl_error_status();
  const tl_dtype d = f.dtype;
  const tl_device dev = tl_tensor_device(&f);
  const int64_t n = f.shape[f.ndim - 1], m = x->shape[x->ndim - 2], k = x->shape[x->ndim - 1];
  const int64_t size = (int64_t)tl_dtype_size(d);
  const int lda = (int)(n > 0 ? n : 1), ldb = (int)(m > 0 ? m : 1);
  tl_status st = tl_gpu_stream(dev, "solve_triangular", &stream);
  cublasHandle_t h = st == TL_OK ? tl_gpu_cublas(dev, stream) : NULL;
  if (!h)
    st = tl_error_status();
  char *a0 = tl_tensor_data(&f), *b0 = tl_tensor_data(x);
  for (int64_t i = 0; i < count && m > 0 && k > 0 && st == TL_OK; i++)
    st = tl_gpu_cublas_check(tl_gpu_trsm(h, d, left ? CUBLAS_SIDE_LEFT : CUBLAS_SIDE_RIGHT,
                                  upper ? CUBLAS_FILL_MODE_UPPER : CUBLAS_FILL_MODE_LOWER,
                                  CUBLAS_OP_N, unitriangular ? CUBLAS_DIAG_UNIT : CUBLAS_DIAG_NON_UNIT,
                                  (int)m, (int)k, a0 + i * n * n * size, lda,
                                  b0 + i * m * k * size, ldb),
                             "trsm");
  tl_tensor_release(&f);
  if (st != TL_OK)
    tl_tensor_release(x);
  return st;
}
#endif
