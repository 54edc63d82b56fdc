/* svd_lstsq_gpu.c - svd/svdvals (cuSOLVER gesvdj) and lstsq (driver 'gels':
 * cuSOLVER geqrf + ormqr, cuBLAS trsm) for CUDA tensors.
 *
 * The checks, messages, packed column-major copies and output shapes are
 * the CPU's (linalg.c, through tl_lapack.h); the work stays on the device.
 *
 * svd: one Jacobi SVD per matrix (gesvdj; econ for full_matrices=False),
 * or one gesvdjBatched call for a batch of matrices of at most 32 x 32
 * when U and V are wanted whole (full_matrices, or square).  Singular
 * values descending (the solver sorts them, as LAPACK does); singular
 * vectors are unique only up to a unit factor per pair, as on the CPU.
 * Non-finite input is handled as on the CPU: each matrix's max |a| is
 * reduced on the device and read on the host with the convergence infos
 * (one sync per call, which raising needs anyway): a NaN raises naming its
 * batch element, an inf gives NaN factors.  The solver returns V; V^H is
 * V conjugated in place, returned as its transposed view.
 *
 * lstsq: 'gels' only, as PyTorch's CUDA lstsq (its message for other
 * drivers).  Legend: A m x n, B m x k, Q R = A (m >= n): x = R^-1 (Q^H B)
 * [first n rows], residuals the squared norms of rows n .. m-1 of Q^H B;
 * m < n: A^H = Q R, x = Q [R^-H B; 0], the minimum-norm solution.  A is
 * assumed of full rank, and neither it nor B is screened for infs or NaNs
 * (PyTorch's CUDA path does not either), so nothing syncs.               */
#include "gpu/tl_gpu.h"

#ifdef TL_WITH_CUDA
#include <math.h>
#include <string.h>

#include "gpu/linalg/tl_gpu_cublas.h"
#include "gpu/linalg/tl_gpu_linalg.h"
#include "gpu/linalg/tl_gpu_solver.h"
#include "gpu/tl_gpu_host.h"
#include "ndcore/kernels/tl_create.h"
#include "ndcore/kernels/tl_reduce.h"
#include "ndcore/linalg/tl_lapack.h"
#include "ndcore/linalg/tl_linalg.h"
#include "ndcore/tensor/tl_backend.h"

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

/* Elements [at, at + len) of t's storage (t packed), as a 1-d view without a
 * reference of its own. */
static tl_tensor flat_part(const tl_tensor *t, int64_t at, int64_t len)
{
  tl_tensor v = *t;
  v.ndim = 1;
  v.offset += at;
  v.shape[0] = len;
  v.strides[0] = 1;
  return v;
}

/* ---- svd ------------------------------------------------------------------------------ */

/* Each packed matrix's max |a| (NaN where it holds a NaN), on the host. */
static tl_status max_abs_per_matrix(tl_tensor *host, const tl_tensor *tmp, int nb)
{
  tl_tensor acc = {0};
  int64_t shape[TL_MAX_DIMS];
  memcpy(shape, tmp->shape, sizeof shape);
  shape[nb] = shape[nb + 1] = 1;
  tl_status st = tl_tensor_empty(&acc, tl_reduce_acc_dtype(TL_RK_ABSMAX, tmp->dtype), nb + 2,
                                 shape, tl_tensor_device(tmp));
  if (st == TL_OK)
    st = tl_reduce_pass(TL_RK_ABSMAX, tmp, 3ull << nb, tmp->dtype, &acc, NULL, NULL);
  if (st == TL_OK)
    st = tl_backend_tensor_to(host, &acc, tl_device_cpu(), TL_DTYPE_F64, false);
  if (acc.storage)
    tl_tensor_release(&acc);
  return st;
}

static tl_status fill_nan(tl_tensor *part)
{
  tl_scalar nan = tl_dtype_is_complex(part->dtype)
                      ? (tl_scalar){.kind = TL_KIND_COMPLEX, .v.c = CMPLX(NAN, NAN)}
                      : (tl_scalar){.kind = TL_KIND_FLOAT, .v.f = NAN};
  return tl_tensor_fill(part, nan);
}

tl_status tl_gpu_linalg_svd(tl_tensor *u, tl_tensor *s, tl_tensor *vh, const tl_tensor *a,
                            bool full_matrices, bool compute_uv)
{
  const char *fn = compute_uv ? "linalg.svd" : "linalg.svdvals";
  tl_status st;
  if ((st = tl_lapack_check_matrix(fn, a, false)) != TL_OK)
    return st;
  const int nb = a->ndim - 2;
  const int64_t m = a->shape[nb], n = a->shape[nb + 1], k = m < n ? m : n;
  const int64_t count = tl_lapack_batch_count(nb, a->shape);
  if (k == 0 || count == 0) /* nothing to factor: the CPU's identities */
    return tl_gpu_hosted_svd(u, s, vh, a, full_matrices, compute_uv);
  const int64_t ucols = full_matrices ? m : k, vcols = full_matrices ? n : k;
  const tl_dtype d = tl_linalg_float_dtype(a->dtype), rd = tl_dtype_to_real(d);
  const int64_t size = (int64_t)tl_dtype_size(d), rsize = (int64_t)tl_dtype_size(rd);
  const tl_device dev = tl_tensor_device(a);
  const cusolverEigMode_t jobz = compute_uv ? CUSOLVER_EIG_MODE_VECTOR : CUSOLVER_EIG_MODE_NOVECTOR;
  tl_tensor tmp = {0}, v = {0}, big = {0};
  tl_gpu_solver_call c = {0};
  gesvdjInfo_t params = NULL;
  int64_t first_nan = -1, at = -1;
  bool any_inf = false;
  int lwork = 0, err = 0;

  if ((st = tl_lapack_colmajor_copy(&tmp, a, d, nb, a->shape)) != TL_OK ||
      (st = max_abs_per_matrix(&big, &tmp, nb)) != TL_OK)
    goto fail;
  const double *mx = tl_tensor_data(&big);
  for (int64_t i = 0; i < count; i++) {
    if (isnan(mx[i]) && first_nan < 0)
      first_nan = i;
    any_inf = any_inf || isinf(mx[i]);
  }
  /* the matrices before the first NaN are factored: one of them may fail first */
  const int64_t run = first_nan >= 0 ? first_nan : count;
  if ((st = tl_lapack_empty(s, dev, rd, nb, a->shape, 1, &k)) != TL_OK ||
      (compute_uv && ((st = tl_lapack_colmajor_empty(u, dev, d, nb, a->shape, m, ucols)) != TL_OK ||
                      (st = tl_lapack_colmajor_empty(&v, dev, d, nb, a->shape, n, vcols)) != TL_OK)) ||
      (st = tl_gpu_solver_begin(&c, fn, dev, count)) != TL_OK ||
      (st = tl_gpu_cusolver_check(cusolverDnCreateGesvdjInfo(&params), "gesvdj")) != TL_OK ||
      (st = tl_gpu_cusolver_check(cusolverDnXgesvdjSetSortEig(params, 1), "gesvdj")) != TL_OK)
    goto fail;
  char *a0 = tl_tensor_data(&tmp), *s0 = tl_tensor_data(s);
  char *u0 = compute_uv ? tl_tensor_data(u) : NULL, *v0 = compute_uv ? tl_tensor_data(&v) : NULL;
  const int im = (int)m, in = (int)n;
  /* gesvdjBatched: matrices of at most 32 x 32, whole U and V, all finite */
  if (m <= 32 && n <= 32 && count > 1 && !any_inf && run == count && (full_matrices || m == n)) {
    if ((st = tl_gpu_cusolver_check(gesvdj_batched_lwork(c.h, d, jobz, im, in, a0, im, s0, u0, im,
                                                         v0, in, &lwork, params, (int)count),
                                    "gesvdjBatched")) != TL_OK ||
        (st = tl_gpu_solver_work(&c, d, lwork, dev)) != TL_OK ||
        (st = tl_gpu_cusolver_check(gesvdj_batched(c.h, d, jobz, im, in, a0, im, s0, u0, im, v0, in,
                                                   tl_tensor_data(&c.work), lwork, c.info, params,
                                                   (int)count),
                                    "gesvdjBatched")) != TL_OK)
      goto fail;
  } else {
    const int econ = !full_matrices;
    if ((st = tl_gpu_cusolver_check(gesvdj_lwork(c.h, d, jobz, econ, im, in, a0, im, s0, u0, im,
                                                 v0, in, &lwork, params), "gesvdj")) != TL_OK ||
        (st = tl_gpu_solver_work(&c, d, lwork, dev)) != TL_OK)
      goto fail;
    for (int64_t i = 0; i < run && st == TL_OK; i++) {
      if (isinf(mx[i]))
        continue; /* NaN factors, below */
      st = tl_gpu_cusolver_check(
          gesvdj(c.h, d, jobz, econ, im, in, a0 + i * m * n * size, im, s0 + i * k * rsize,
                 compute_uv ? u0 + i * m * ucols * size : NULL, im,
                 compute_uv ? v0 + i * n * vcols * size : NULL, in, tl_tensor_data(&c.work),
                 lwork, c.info + i, params),
          "gesvdj");
    }
    if (st != TL_OK)
      goto fail;
  }
  /* the first failure in batch order: a matrix that did not converge, or
   * the first NaN one (nothing after it ran) */
  if ((st = tl_gpu_solver_first_failure(&c, run, &at, &err)) != TL_OK)
    goto fail;
  if (at >= 0) {
    st = tl_lapack_error(fn, nb, at, "The algorithm failed to converge because the input matrix "
                         "is ill-conditioned or has too many repeated singular values (error "
                         "code: %d).", err);
    goto fail;
  }
  if (first_nan >= 0) {
    st = tl_lapack_error(fn, nb, first_nan, "The algorithm failed to converge because the input "
                         "matrix contained non-finite values.");
    goto fail;
  }
  for (int64_t i = 0; any_inf && i < count && st == TL_OK; i++) {
    if (!isinf(mx[i]))
      continue;
    tl_tensor part = flat_part(s, i * k, k);
    st = fill_nan(&part);
    if (st == TL_OK && compute_uv) {
      part = flat_part(u, i * m * ucols, m * ucols);
      st = fill_nan(&part);
    }
    if (st == TL_OK && compute_uv) {
      part = flat_part(&v, i * n * vcols, n * vcols);
      st = fill_nan(&part);
    }
  }
  if (st == TL_OK && compute_uv && tl_dtype_is_complex(d))
    st = tl_gpu_conj_in_place(&v);
  if (st != TL_OK)
    goto fail;
  if (compute_uv) { /* V^H: V's transposed view */
    *vh = v;
    v.storage = NULL;
    tl_lapack_swap_last(vh);
  }
  cusolverDnDestroyGesvdjInfo(params);
  tl_gpu_solver_release(&c);
  tl_tensor_release(&tmp);
  tl_tensor_release(&big);
  return TL_OK;
fail:
  if (params)
    cusolverDnDestroyGesvdjInfo(params);
  tl_gpu_solver_release(&c);
  tl_tensor *held[] = {&tmp, &big, &v, s, u};
  for (size_t i = 0; i < sizeof held / sizeof *held; i++)
    if (held[i]->storage)
      tl_tensor_release(held[i]);
  return st;
}

/* ---- lstsq ---------------------------------------------------------------------------- */

/* residuals [B..., k] (or [B...] for a vector b): the squared norms of
 * rows n .. m-1 of each k-column matrix of the packed buffer qb (ldb rows). */
static tl_status tail_norms(tl_tensor *residuals, const tl_tensor *qb, int nb, int64_t n,
                            int64_t m, bool vec, tl_dtype rd)
{
  tl_tensor rows = *qb, acc = {0}, flat;
  int64_t shape[TL_MAX_DIMS];
  rows.offset += n * rows.strides[nb];
  rows.shape[nb] = m - n;
  memcpy(shape, rows.shape, sizeof shape);
  shape[nb] = 1;
  tl_status st = tl_tensor_empty(&acc, tl_reduce_acc_dtype(TL_RK_SQSUM, qb->dtype), nb + 2, shape,
                                 tl_tensor_device(qb));
  if (st == TL_OK)
    st = tl_reduce_pass(TL_RK_SQSUM, &rows, 1ull << nb, qb->dtype, &acc, NULL, NULL);
  if (st == TL_OK) {
    flat = acc; /* [B..., 1, k] -> [B..., k] */
    flat.shape[nb] = acc.shape[nb + 1];
    flat.strides[nb] = acc.strides[nb + 1];
    flat.ndim = vec ? nb : nb + 1; /* a vector b: k is 1, and the dim goes */
    st = tl_lapack_empty(residuals, tl_tensor_device(qb), rd, nb, qb->shape, vec ? 0 : 1,
                         &qb->shape[nb + 1]);
    if (st == TL_OK && (st = tl_tensor_copy(residuals, &flat)) != TL_OK)
      tl_tensor_release(residuals);
  }
  if (acc.storage)
    tl_tensor_release(&acc);
  return st;
}

tl_status tl_gpu_linalg_lstsq(tl_tensor *x, tl_tensor *residuals, tl_tensor *rank, tl_tensor *sv,
                              const tl_tensor *a, const tl_tensor *b, double rcond,
                              const char *driver)
{
  const char *fn = "linalg.lstsq";
  tl_tensor f = {0}, qb = {0}, tau = {0};
  tl_gpu_solver_call c = {0};
  tl_status st;
  (void)rcond; /* gels has no rank decisions */
  if ((st = tl_lapack_check_matrix(fn, a, false)) != TL_OK)
    return st;
  if (strcmp(driver, "gels")) {
    if (!strcmp(driver, "gelsy") || !strcmp(driver, "gelsd") || !strcmp(driver, "gelss"))
      return tl_error_set(TL_ERR_RUNTIME, "torch.linalg.lstsq: `driver` other than `gels` is not "
                          "supported on CUDA");
    return tl_error_set(TL_ERR_RUNTIME, "%s: parameter `driver` should be one of (gels, gelsy, "
                        "gelsd, gelss), but got %s", fn, driver);
  }
  tl_lapack_lstsq q;
  if ((st = tl_lapack_lstsq_setup(&q, fn, a, b)) != TL_OK)
    return st;
  tl_tensor at = *a;
  const bool vec = q.vec;
  const int64_t m = q.m, n = q.n, mn = m < n ? m : n, k = q.k, ldb = q.ldb, count = q.count;
  const int nb = q.nb;
  const int64_t *bshape = q.bshape;
  const tl_dtype d = q.d, rd = tl_dtype_to_real(d);
  const int64_t size = (int64_t)tl_dtype_size(d);
  const tl_device dev = tl_tensor_device(a);
  const bool tall = m >= n;
  /* f: A (m x n) when tall, else A^H (n x m), packed; qb: B over ldb rows, zero below */
  if (!tall)
    tl_lapack_swap_last(&at);
  if ((st = tl_lapack_colmajor_copy(&f, &at, d, nb, bshape)) != TL_OK ||
      (!tall && tl_dtype_is_complex(d) && (st = tl_gpu_conj_in_place(&f)) != TL_OK) ||
      (st = tl_lapack_colmajor_empty(&qb, dev, d, nb, bshape, ldb, k)) != TL_OK)
    goto fail;
  if (count * ldb * k > 0) {
    const tl_backend *be = tl_backend_get(dev);
    if ((st = be->memset(dev, tl_tensor_data(&qb), 0, (size_t)(count * ldb * k * size), NULL)) !=
        TL_OK)
      goto fail;
  }
  tl_tensor top = qb;
  top.shape[nb] = m;
  if ((st = tl_tensor_copy(&top, &q.vb)) != TL_OK ||
      (st = tl_tensor_empty(rank, TL_DTYPE_I64, 1, (int64_t[]){0}, dev)) != TL_OK ||
      (st = tl_tensor_empty(sv, rd, 1, (int64_t[]){0}, dev)) != TL_OK)
    goto fail;
  if (mn > 0 && k > 0 && count > 0) {
    const int64_t ntau = count * mn;
    const int rows = (int)(tall ? m : n), cols = (int)mn, ik = (int)k, ild = (int)ldb;
    const cublasOperation_t qop = tall ? op_h(d) : CUBLAS_OP_N;
    char *f0, *t0, *b0 = tl_tensor_data(&qb);
    int lw1 = 0, lw2 = 0;
    cublasHandle_t h;
    if ((st = tl_gpu_solver_begin(&c, fn, dev, count)) != TL_OK ||
        (st = tl_tensor_empty(&tau, d, 1, &ntau, dev)) != TL_OK)
      goto fail;
    if (!(h = tl_gpu_cublas(dev, c.stream))) {
      st = tl_error_status();
      goto fail;
    }
    f0 = tl_tensor_data(&f);
    t0 = tl_tensor_data(&tau);
    if ((st = tl_gpu_cusolver_check(tl_gpu_geqrf_lwork(c.h, d, rows, cols, f0, rows, &lw1),
                                    "geqrf")) != TL_OK ||
        (st = tl_gpu_cusolver_check(ormqr_lwork(c.h, d, qop, ild, ik, cols, f0, rows, t0, b0, ild,
                                                &lw2), "ormqr")) != TL_OK ||
        (st = tl_gpu_solver_work(&c, d, lw1 > lw2 ? lw1 : lw2, dev)) != TL_OK)
      goto fail;
    void *w = tl_tensor_data(&c.work);
    const int lwork = lw1 > lw2 ? lw1 : lw2;
    for (int64_t i = 0; i < count && st == TL_OK; i++) {
      char *fi = f0 + i * rows * mn * size, *ti = t0 + i * mn * size, *bi = b0 + i * ldb * k * size;
      st = tl_gpu_cusolver_check(tl_gpu_geqrf(c.h, d, rows, cols, fi, rows, ti, w, lwork,
                                              c.info + i), "geqrf");
      if (tall) { /* Q^H B, then R x = (Q^H B)[:n] */
        if (st == TL_OK)
          st = tl_gpu_cusolver_check(ormqr(c.h, d, qop, rows, ik, cols, fi, rows, ti, bi, ild, w,
                                           lwork, c.info + i), "ormqr");
        if (st == TL_OK)
          st = tl_gpu_cublas_check(tl_gpu_trsm(h, d, CUBLAS_SIDE_LEFT, CUBLAS_FILL_MODE_UPPER,
                                               CUBLAS_OP_N, CUBLAS_DIAG_NON_UNIT, cols, ik, fi,
                                               rows, bi, ild), "trsm");
      } else { /* R^H y = B, then x = Q [y; 0] */
        if (st == TL_OK)
          st = tl_gpu_cublas_check(tl_gpu_trsm(h, d, CUBLAS_SIDE_LEFT, CUBLAS_FILL_MODE_UPPER,
                                               op_h(d), CUBLAS_DIAG_NON_UNIT, cols, ik, fi, rows,
                                               bi, ild), "trsm");
        if (st == TL_OK)
          st = tl_gpu_cusolver_check(ormqr(c.h, d, qop, rows, ik, cols, fi, rows, ti, bi, ild, w,
                                           lwork, c.info + i), "ormqr");
      }
    }
    if (st != TL_OK)
      goto fail;
  }
  /* residuals when m > n, as the CPU's gels (the rows past n of Q^H B) */
  if (m > n ? (st = tail_norms(residuals, &qb, nb, n, m, vec, rd)) != TL_OK
            : (st = tl_tensor_empty(residuals, rd, 1, (int64_t[]){0}, dev)) != TL_OK)
    goto fail;
  *x = qb; /* the solution: the first n rows, in the packed layout */
  qb.storage = NULL;
  x->shape[nb] = n;
  if (vec)
    x->ndim--;
  tl_gpu_solver_release(&c);
  tl_tensor_release(&f);
  if (tau.storage)
    tl_tensor_release(&tau);
  return TL_OK;
fail:
  tl_gpu_solver_release(&c);
  tl_tensor *held[] = {&f, &qb, &tau, rank, sv, residuals};
  for (size_t i = 0; i < sizeof held / sizeof *held; i++)
    if (held[i]->storage)
      tl_tensor_release(held[i]);
  return st;
}
#endif
