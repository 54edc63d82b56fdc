/* linalg.c - LAPACK-backed decompositions: solve, inv, det, slogdet, cholesky,
 * qr, svd, eigh, eig, lstsq (tl_linalg.h).
 *
 * Every function follows one pattern: check shapes, broadcast batch dims,
 * copy the input (cast to the compute dtype) into a fresh *column-major*
 * tensor whose matrices are packed one after another, run the LAPACK routine
 * on each matrix in place, and hand back results that keep LAPACK's layout
 * (a column-major result is a transposed view of a packed buffer, as in
 * PyTorch).  Workspace sizes are queried once per call (lwork = -1) since all
 * matrices of a batch share their shape.
 *
 * The typed LAPACK calls sit behind small lp_* wrappers that switch on the
 * compute dtype (F32, F64, C64, C128).  A failure on one matrix raises
 * TL_ERR_LINALG as "linalg.<fn>: (Batch element i): <why>", the batch part
 * only when the input has batch dims.                                        */
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ndcore/linalg/tl_blas.h"
#include "ndcore/kernels/tl_create.h"
#include "ndcore/linalg/tl_lapack.h"
#include "ndcore/linalg/tl_linalg.h"
#include "ndcore/tensor/tl_backend.h"

/* ---- dtypes, buffers, errors --------------------------------------------------------- */

tl_dtype tl_linalg_float_dtype(tl_dtype d)
{
  switch (d) {
  case TL_DTYPE_F32:
  case TL_DTYPE_F64:
  case TL_DTYPE_C64:
  case TL_DTYPE_C128: return d;
  case TL_DTYPE_F16:
  case TL_DTYPE_BF16: return TL_DTYPE_F32;
  default: return tl_dtype_default_float();
  }
}

static bool is_cplx(tl_dtype d) { return d == TL_DTYPE_C64 || d == TL_DTYPE_C128; }

tl_status tl_lapack_error(const char *fn, int nb, int64_t batch, const char *fmt, ...)
{
  char msg[384];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(msg, sizeof msg, fmt, ap);
  va_end(ap);
  if (nb > 0)
    return tl_error_set(TL_ERR_LINALG, "%s: (Batch element %lld): %s", fn, (long long)batch, msg);
  return tl_error_set(TL_ERR_LINALG, "%s: %s", fn, msg);
}

tl_status tl_lapack_check_matrix(const char *fn, const tl_tensor *a, bool square)
{
  if (a->ndim < 2)
    return tl_error_set(TL_ERR_RUNTIME, "%s: The input tensor A must have at least 2 dimensions.",
                        fn);
  int64_t m = a->shape[a->ndim - 2], n = a->shape[a->ndim - 1];
  if (square && m != n)
    return tl_error_set(TL_ERR_RUNTIME, "%s: A must be batches of square matrices, but they are "
                        "%lld by %lld matrices", fn, (long long)m, (long long)n);
  if (m > INT32_MAX || n > INT32_MAX)
    return tl_error_set(TL_ERR_VALUE, "%s: matrices of %lldx%lld are too large for LAPACK", fn,
                        (long long)m, (long long)n);
  return TL_OK;
}

int64_t tl_lapack_batch_count(int nb, const int64_t *bshape)
{
  int64_t n = 1;
  for (int d = 0; d < nb; d++)
    n *= bshape[d];
  return n;
}

tl_unlocked tl_lapack_unlock(int64_t count, int64_t m, int64_t n)
{
  double work = (double)count * (double)m * (double)n * (double)(m < n ? m : n);
  return tl_parallel_unlock(work < 0x1p62 ? (int64_t)work : INT64_MAX);
}

/* A new [B..., m, n] tensor whose matrices are column-major and packed. */
tl_status tl_lapack_colmajor_empty(tl_tensor *t, tl_device device, tl_dtype d, int nb, const int64_t *bshape,
                                int64_t m, int64_t n)
{
  int64_t shape[TL_MAX_DIMS];
  if (nb > 0)
    memcpy(shape, bshape, sizeof(int64_t) * (size_t)nb);
  shape[nb] = n;
  shape[nb + 1] = m;
  if (tl_tensor_empty(t, d, nb + 2, shape, device) != TL_OK)
    return tl_error_status();
  t->shape[nb] = m;
  t->shape[nb + 1] = n;
  int64_t s = t->strides[nb];
  t->strides[nb] = t->strides[nb + 1];
  t->strides[nb + 1] = s;
  return TL_OK;
}

/* a's matrices, batch-broadcast to bshape and cast to d, column-major packed. */
tl_status tl_lapack_colmajor_copy(tl_tensor *t, const tl_tensor *a, tl_dtype d, int nb,
                               const int64_t *bshape)
{
  if (tl_lapack_colmajor_empty(t, tl_tensor_device(a), d, nb, bshape, a->shape[a->ndim - 2], a->shape[a->ndim - 1]) != TL_OK)
    return tl_error_status();
  if (tl_tensor_copy(t, a) != TL_OK) {
    tl_tensor_release(t);
    return tl_error_status();
  }
  return TL_OK;
}

tl_status tl_lapack_empty(tl_tensor *t, tl_device device, tl_dtype d, int nb, const int64_t *bshape, int extra,
                             const int64_t *tail)
{
  int64_t shape[TL_MAX_DIMS];
  if (nb > 0)
    memcpy(shape, bshape, sizeof(int64_t) * (size_t)nb);
  if (extra > 0)
    memcpy(shape + nb, tail, sizeof(int64_t) * (size_t)extra);
  return tl_tensor_empty(t, d, nb + extra, shape, device);
}

char *tl_lapack_matrix_at(const tl_tensor *t, int64_t i, int64_t m, int64_t n)
{
  return (char *)tl_tensor_data(t) + i * m * n * (int64_t)tl_dtype_size(t->dtype);
}

/* Workspace size LAPACK reported in work[0] (lwork = -1 query). */
int tl_lapack_work_size(tl_dtype d, const void *w)
{
  double v;
  switch (d) {
  case TL_DTYPE_F32: v = *(const float *)w; break;
  case TL_DTYPE_F64: v = *(const double *)w; break;
  case TL_DTYPE_C64: v = crealf(*(const float complex *)w); break;
  default: v = creal(*(const double complex *)w); break;
  }
  return v < 1 ? 1 : (int)(v * 1.0001) + 1;
}

/* Non-finite entries of count packed elements of dtype d: LAPACK's drivers
 * scale by the matrix norm first, and a NaN or inf norm makes them report an
 * "illegal value" on stdout (xerbla), leave the outputs unwritten, or loop
 * forever (gesdd with -inf).  They are screened out before the call. */
enum { NONFINITE_INF = 1, NONFINITE_NAN = 2 };

static unsigned nonfinite_bits(tl_dtype d, const void *p, int64_t count)
{
  unsigned bits = 0;
  if (is_cplx(d)) {
    count *= 2; /* (re, im) pairs are two reals */
    d = tl_dtype_to_real(d);
  }
  for (int64_t i = 0; i < count; i++) {
    double v = d == TL_DTYPE_F32 ? ((const float *)p)[i] : ((const double *)p)[i];
    if (isnan(v))
      return NONFINITE_INF | NONFINITE_NAN; /* nothing worse to find */
    if (isinf(v))
      bits |= NONFINITE_INF;
  }
  return bits;
}

/* Fill count elements of dtype d with NaN (NaN + NaN i for complex). */
static void fill_nan(tl_dtype d, char *p, int64_t count)
{
  const int64_t size = (int64_t)tl_dtype_size(d);
  tl_scalar nan = is_cplx(d) ? (tl_scalar){.kind = TL_KIND_COMPLEX, .v.c = CMPLX(NAN, NAN)}
                             : (tl_scalar){.kind = TL_KIND_FLOAT, .v.f = NAN};
  for (int64_t i = 0; i < count; i++)
    tl_scalar_store(nan, d, p + i * size);
}

/* A zeroed block of count elements of dtype d (NULL and an error on failure). */
static void *work_alloc(tl_dtype d, int64_t count)
{
  void *p = calloc((size_t)(count < 1 ? 1 : count), tl_dtype_size(d));
  if (!p)
    tl_error_set(TL_ERR_MEMORY, "linalg: out of memory for a LAPACK workspace");
  return p;
}

/* ---- typed LAPACK wrappers (return info) ------------------------------------------------ */

int tl_lapack_getrf(tl_dtype d, int m, int n, void *a, int lda, int *ipiv)
{
  int info = 0;
  switch (d) {
  case TL_DTYPE_F32: TL_BLAS(sgetrf_)(&m, &n, a, &lda, ipiv, &info); break;
  case TL_DTYPE_F64: TL_BLAS(dgetrf_)(&m, &n, a, &lda, ipiv, &info); break;
  case TL_DTYPE_C64: TL_BLAS(cgetrf_)(&m, &n, a, &lda, ipiv, &info); break;
  default: TL_BLAS(zgetrf_)(&m, &n, a, &lda, ipiv, &info); break;
  }
  return info;
}

int tl_lapack_getrs(tl_dtype d, char t, int n, int nrhs, const void *a, int lda, const int *ipiv,
                    void *b, int ldb)
{
  int info = 0;
  switch (d) {
  case TL_DTYPE_F32: TL_BLAS(sgetrs_)(&t, &n, &nrhs, a, &lda, ipiv, b, &ldb, &info, 1); break;
  case TL_DTYPE_F64: TL_BLAS(dgetrs_)(&t, &n, &nrhs, a, &lda, ipiv, b, &ldb, &info, 1); break;
  case TL_DTYPE_C64: TL_BLAS(cgetrs_)(&t, &n, &nrhs, a, &lda, ipiv, b, &ldb, &info, 1); break;
  default: TL_BLAS(zgetrs_)(&t, &n, &nrhs, a, &lda, ipiv, b, &ldb, &info, 1); break;
  }
  return info;
}

static int lp_potrf(tl_dtype d, char uplo, int n, void *a, int lda)
{
  int info = 0;
  switch (d) {
  case TL_DTYPE_F32: TL_BLAS(spotrf_)(&uplo, &n, a, &lda, &info, 1); break;
  case TL_DTYPE_F64: TL_BLAS(dpotrf_)(&uplo, &n, a, &lda, &info, 1); break;
  case TL_DTYPE_C64: TL_BLAS(cpotrf_)(&uplo, &n, a, &lda, &info, 1); break;
  default: TL_BLAS(zpotrf_)(&uplo, &n, a, &lda, &info, 1); break;
  }
  return info;
}

static int lp_geqrf(tl_dtype d, int m, int n, void *a, int lda, void *tau, void *work, int lwork)
{
  int info = 0;
  switch (d) {
  case TL_DTYPE_F32: TL_BLAS(sgeqrf_)(&m, &n, a, &lda, tau, work, &lwork, &info); break;
  case TL_DTYPE_F64: TL_BLAS(dgeqrf_)(&m, &n, a, &lda, tau, work, &lwork, &info); break;
  case TL_DTYPE_C64: TL_BLAS(cgeqrf_)(&m, &n, a, &lda, tau, work, &lwork, &info); break;
  default: TL_BLAS(zgeqrf_)(&m, &n, a, &lda, tau, work, &lwork, &info); break;
  }
  return info;
}

static int lp_orgqr(tl_dtype d, int m, int n, int k, void *a, int lda, const void *tau, void *work,
                    int lwork)
{
  int info = 0;
  switch (d) {
  case TL_DTYPE_F32: TL_BLAS(sorgqr_)(&m, &n, &k, a, &lda, tau, work, &lwork, &info); break;
  case TL_DTYPE_F64: TL_BLAS(dorgqr_)(&m, &n, &k, a, &lda, tau, work, &lwork, &info); break;
  case TL_DTYPE_C64: TL_BLAS(cungqr_)(&m, &n, &k, a, &lda, tau, work, &lwork, &info); break;
  default: TL_BLAS(zungqr_)(&m, &n, &k, a, &lda, tau, work, &lwork, &info); break;
  }
  return info;
}

/* gesdd; rwork is ignored for real dtypes. */
static int lp_gesdd(tl_dtype d, char jobz, int m, int n, void *a, int lda, void *s, void *u,
                    int ldu, void *vt, int ldvt, void *work, int lwork, void *rwork, int *iwork)
{
  int info = 0;
  switch (d) {
  case TL_DTYPE_F32:
    TL_BLAS(sgesdd_)(&jobz, &m, &n, a, &lda, s, u, &ldu, vt, &ldvt, work, &lwork, iwork, &info, 1);
    break;
  case TL_DTYPE_F64:
    TL_BLAS(dgesdd_)(&jobz, &m, &n, a, &lda, s, u, &ldu, vt, &ldvt, work, &lwork, iwork, &info, 1);
    break;
  case TL_DTYPE_C64:
    TL_BLAS(cgesdd_)(&jobz, &m, &n, a, &lda, s, u, &ldu, vt, &ldvt, work, &lwork, rwork, iwork,
                     &info, 1);
    break;
  default:
    TL_BLAS(zgesdd_)(&jobz, &m, &n, a, &lda, s, u, &ldu, vt, &ldvt, work, &lwork, rwork, iwork,
                     &info, 1);
    break;
  }
  return info;
}

static int lp_syevd(tl_dtype d, char jobz, char uplo, int n, void *a, int lda, void *w, void *work,
                    int lwork, void *rwork, int lrwork, int *iwork, int liwork)
{
  int info = 0;
  switch (d) {
  case TL_DTYPE_F32:
    TL_BLAS(ssyevd_)(&jobz, &uplo, &n, a, &lda, w, work, &lwork, iwork, &liwork, &info, 1, 1);
    break;
  case TL_DTYPE_F64:
    TL_BLAS(dsyevd_)(&jobz, &uplo, &n, a, &lda, w, work, &lwork, iwork, &liwork, &info, 1, 1);
    break;
  case TL_DTYPE_C64:
    TL_BLAS(cheevd_)(&jobz, &uplo, &n, a, &lda, w, work, &lwork, rwork, &lrwork, iwork, &liwork,
                     &info, 1, 1);
    break;
  default:
    TL_BLAS(zheevd_)(&jobz, &uplo, &n, a, &lda, w, work, &lwork, rwork, &lrwork, iwork, &liwork,
                     &info, 1, 1);
    break;
  }
  return info;
}

/* geev, right eigenvectors only.  Real dtypes: w holds wr then wi (2n). */
static int lp_geev(tl_dtype d, char jobvr, int n, void *a, int lda, void *w, void *vr, int ldvr,
                   void *work, int lwork, void *rwork)
{
  int info = 0, one = 1;
  const char nv = 'N';
  switch (d) {
  case TL_DTYPE_F32:
    TL_BLAS(sgeev_)(&nv, &jobvr, &n, a, &lda, w, (float *)w + n, NULL, &one, vr, &ldvr, work,
                    &lwork, &info, 1, 1);
    break;
  case TL_DTYPE_F64:
    TL_BLAS(dgeev_)(&nv, &jobvr, &n, a, &lda, w, (double *)w + n, NULL, &one, vr, &ldvr, work,
                    &lwork, &info, 1, 1);
    break;
  case TL_DTYPE_C64:
    TL_BLAS(cgeev_)(&nv, &jobvr, &n, a, &lda, w, NULL, &one, vr, &ldvr, work, &lwork, rwork,
                    &info, 1, 1);
    break;
  default:
    TL_BLAS(zgeev_)(&nv, &jobvr, &n, a, &lda, w, NULL, &one, vr, &ldvr, work, &lwork, rwork,
                    &info, 1, 1);
    break;
  }
  return info;
}

/* ---- solve, inv ------------------------------------------------------------------------ */

/* Is b a batch of vectors for the system a x = b (PyTorch's rule)? */
static bool rhs_is_vector(const tl_tensor *a, const tl_tensor *b)
{
  if (b->ndim == 1)
    return true;
  if (b->ndim != a->ndim - 1)
    return false;
  for (int d = 0; d < b->ndim; d++)
    if (b->shape[d] != a->shape[d])
      return false;
  return true;
}

/* x = a^-1 b for square a [B..., n, n] and b [B..., n, k] (already matrices):
 * the shape checks and packed copies every device shares, then the device's
 * LU factor-and-solve `run` (cpu_lu_run below, solver_gpu.c on CUDA).
 * With `info` (an unallocated tensor), failures are recorded per matrix as
 * LAPACK's info (int32, batch-shaped) instead of raised: the *_ex functions. */
static tl_status lu_solve(const char *fn, const char *singular, tl_tensor *x, const tl_tensor *a,
                          const tl_tensor *b, int nb_err, tl_tensor *info, tl_lapack_lu_run run)
{
  char sa[128], sb[128];
  tl_tensor lu = {0};
  tl_status st;
  int64_t n = a->shape[a->ndim - 1], k = b->shape[b->ndim - 1];
  if (b->shape[b->ndim - 2] != n)
    return tl_error_set(TL_ERR_RUNTIME, "%s: Incompatible shapes of A and B for the equation AX = "
                        "B (%lldx%lld and %lldx%lld)", fn, (long long)n, (long long)n,
                        (long long)b->shape[b->ndim - 2], (long long)k);
  if (k > INT32_MAX)
    return tl_error_set(TL_ERR_VALUE, "%s: too many right-hand sides", fn);
  tl_lapack_solve p = {.fn = fn, .singular = singular, .nb_err = nb_err, .n = n, .k = k};
  if (tl_shape_broadcast(a->ndim - 2, a->shape, b->ndim - 2, b->shape, &p.nb, p.bshape) != TL_OK) {
    tl_error_clear();
    return tl_error_set(TL_ERR_RUNTIME, "%s: batch dimensions of A %s and B %s do not broadcast",
                        fn, tl_shape_str(sa, sizeof sa, a->ndim, a->shape),
                        tl_shape_str(sb, sizeof sb, b->ndim, b->shape));
  }
  p.count = tl_lapack_batch_count(p.nb, p.bshape);
  tl_dtype d = tl_linalg_float_dtype(tl_promote_types(a->dtype, b->dtype));
  if ((st = tl_lapack_colmajor_copy(&lu, a, d, p.nb, p.bshape)) != TL_OK)
    return st;
  if ((st = tl_lapack_colmajor_copy(x, b, d, p.nb, p.bshape)) != TL_OK)
    goto done;
  if (info && (st = tl_lapack_empty(info, tl_tensor_device(a), TL_DTYPE_I32, p.nb, p.bshape, 0,
                                    NULL)) != TL_OK)
    goto done;
  st = run(&p, &lu, x, info);
done:
  if (st != TL_OK) {
    if (x->storage)
      tl_tensor_release(x);
    if (info && info->storage)
      tl_tensor_release(info);
  }
  tl_tensor_release(&lu);
  return st;
}

/* The CPU's run: getrf then getrs, matrix by matrix. */
static tl_status cpu_lu_run(const tl_lapack_solve *p, tl_tensor *lu, tl_tensor *x, tl_tensor *info)
{
  const int64_t n = p->n, k = p->k;
  tl_status st = TL_OK;
  int *ipiv = malloc(sizeof(int) * (size_t)(n > 0 ? n : 1));
  if (!ipiv)
    return tl_error_set(TL_ERR_MEMORY, "%s: out of memory", p->fn);
  if (info)
    tl_lapack_zero(tl_tensor_data(info), sizeof(int32_t) * (size_t)p->count);
  tl_unlocked unlocked = tl_lapack_unlock(p->count, n, n + k);
  for (int64_t i = 0; i < p->count && n > 0; i++) {
    char *am = tl_lapack_matrix_at(lu, i, n, n), *bm = tl_lapack_matrix_at(x, i, n, k);
    int err = tl_lapack_getrf(lu->dtype, (int)n, (int)n, am, (int)n, ipiv);
    if (err > 0 && info) {
      ((int32_t *)tl_tensor_data(info))[i] = err;
      continue;
    }
    if (err > 0) {
      st = tl_lapack_singular_error(p, i, err);
      break;
    }
    if (k > 0)
      tl_lapack_getrs(lu->dtype, 'N', (int)n, (int)k, am, (int)n, ipiv, bm, (int)n);
  }
  tl_parallel_relock(&unlocked);
  free(ipiv);
  return st;
}

tl_status tl_lapack_singular_error(const tl_lapack_solve *p, int64_t batch, int err)
{
  if (p->singular)
    return tl_lapack_error(p->fn, p->nb_err, batch, "%s", p->singular);
  return tl_lapack_error(p->fn, p->nb_err, batch, "The diagonal element %d is zero, the inversion "
                         "could not be completed because the input matrix is singular.", err);
}

void tl_lapack_conj(tl_tensor *t)
{
  int64_t n = tl_tensor_numel(t);
  if (t->dtype == TL_DTYPE_C64) {
    float complex *z = (float complex *)t->storage->data;
    for (int64_t i = 0; i < n; i++)
      z[i] = conjf(z[i]);
  } else if (t->dtype == TL_DTYPE_C128) {
    double complex *z = (double complex *)t->storage->data;
    for (int64_t i = 0; i < n; i++)
      z[i] = conj(z[i]);
  }
}

void tl_lapack_swap_last(tl_tensor *t)
{
  int d = t->ndim;
  int64_t s = t->shape[d - 1];
  t->shape[d - 1] = t->shape[d - 2];
  t->shape[d - 2] = s;
  s = t->strides[d - 1];
  t->strides[d - 1] = t->strides[d - 2];
  t->strides[d - 2] = s;
}

tl_status tl_lapack_solve_ex(tl_tensor *x, tl_tensor *info, const tl_tensor *a, const tl_tensor *b,
                             bool left, tl_lapack_lu_run run)
{
  const char *fn = "linalg.solve";
  if (tl_lapack_check_matrix(fn, a, true) != TL_OK)
    return tl_error_status();
  tl_tensor va = *a, vb = *b;
  bool vec = rhs_is_vector(a, b);
  if (vec) { /* b [B..., n] -> [B..., n, 1] */
    vb.shape[vb.ndim] = 1;
    vb.strides[vb.ndim] = 1;
    vb.ndim++;
  } else if (b->ndim < 2) {
    return tl_error_set(TL_ERR_RUNTIME, "%s: B must have at least 1 dimension", fn);
  }
  if (!left) { /* x a = b  <=>  a^T x^T = b^T */
    if (vec)
      return tl_error_set(TL_ERR_RUNTIME, "%s: Vector broadcasting of the left hand side is not "
                          "supported for left=False. In this case linalg.solve is equivalent to B "
                          "/ A.squeeze(-1)", fn);
    tl_lapack_swap_last(&va);
    tl_lapack_swap_last(&vb);
  }
  if (lu_solve(fn, "The solver failed because the input matrix is singular.", x, &va, &vb,
               a->ndim - 2, info, run) != TL_OK)
    return tl_error_status();
  if (!left)
    tl_lapack_swap_last(x);
  if (vec)
    x->ndim--;
  return TL_OK;
}

tl_status tl_cpu_linalg_solve_ex(tl_tensor *x, tl_tensor *info, const tl_tensor *a,
                                 const tl_tensor *b, bool left)
{
  return tl_lapack_solve_ex(x, info, a, b, left, cpu_lu_run);
}

tl_status tl_linalg_solve(tl_tensor *x, const tl_tensor *a, const tl_tensor *b, bool left)
{
  return tl_linalg_solve_ex(x, NULL, a, b, left);
}

tl_status tl_lapack_inv_ex(tl_tensor *out, tl_tensor *info, const tl_tensor *a,
                           tl_lapack_lu_run run)
{
  const char *fn = "linalg.inv";
  tl_tensor eye = {0};
  if (tl_lapack_check_matrix(fn, a, true) != TL_OK)
    return tl_error_status();
  int64_t n = a->shape[a->ndim - 1];
  tl_dtype d = tl_linalg_float_dtype(a->dtype);
  if (tl_tensor_empty(&eye, d, 2, (int64_t[]){n, n}, tl_tensor_device(a)) != TL_OK ||
      tl_tensor_eye_fill(&eye) != TL_OK) {
    if (eye.storage)
      tl_tensor_release(&eye);
    return tl_error_status();
  }
  tl_status st = lu_solve(fn, NULL, out, a, &eye, a->ndim - 2, info, run);
  tl_tensor_release(&eye);
  return st;
}

tl_status tl_cpu_linalg_inv_ex(tl_tensor *out, tl_tensor *info, const tl_tensor *a)
{
  return tl_lapack_inv_ex(out, info, a, cpu_lu_run);
}

tl_status tl_linalg_inv(tl_tensor *out, const tl_tensor *a)
{
  return tl_linalg_inv_ex(out, NULL, a);
}

/* ---- det, slogdet -------------------------------------------------------------------- */

/* The CPU's determinants: per matrix its LU, then sign/phase of det and
 * log|det| (or the exact det) from U's diagonal and the pivots. */
static tl_status cpu_det_run(const tl_lapack_det *p, tl_tensor *lu)
{
  const int64_t n = p->n;
  const tl_dtype d = lu->dtype, r = tl_dtype_to_real(d);
  tl_tensor *det = p->det, *sign = p->sign, *logabs = p->logabs, *logdet = p->logdet;
  int *ipiv = malloc(sizeof(int) * (size_t)(n > 0 ? n : 1));
  if (!ipiv)
    return tl_error_set(TL_ERR_MEMORY, "%s: out of memory", p->fn);
  const int64_t size = (int64_t)tl_dtype_size(d);
  tl_unlocked unlocked = tl_lapack_unlock(p->count, n, n);
  for (int64_t i = 0; i < p->count; i++) {
    char *m = tl_lapack_matrix_at(lu, i, n, n);
    if (n > 0)
      tl_lapack_getrf(d, (int)n, (int)n, m, (int)n, ipiv);
    double complex phase = 1, prod = 1;
    double logsum = 0;
    for (int64_t j = 0; j < n; j++) {
      tl_scalar u = tl_scalar_load(d, m + (j * n + j) * size);
      double complex v = u.kind == TL_KIND_COMPLEX ? u.v.c : u.v.f;
      if (ipiv[j] != j + 1) {
        phase = -phase;
        prod = -prod;
      }
      prod *= v;
      double av = cabs(v);
      phase = av == 0 ? 0 : phase * (v / av);
      logsum += log(av);
    }
    char *at;
    if (det) {
      at = (char *)tl_tensor_data(det) + i * size;
      tl_scalar_store((tl_scalar){.kind = TL_KIND_COMPLEX, .v.c = prod}, d, at);
      if (!is_cplx(d))
        tl_scalar_store((tl_scalar){.kind = TL_KIND_FLOAT, .v.f = creal(prod)}, d, at);
    }
    if (logdet) { /* log(det): NaN for a negative real det, -inf for a zero one */
      at = (char *)tl_tensor_data(logdet) + i * size;
      double complex v = phase == 0 ? -INFINITY : CMPLX(logsum, carg(phase));
      if (is_cplx(d))
        tl_scalar_store((tl_scalar){.kind = TL_KIND_COMPLEX, .v.c = v}, d, at);
      else
        tl_scalar_store((tl_scalar){.kind = TL_KIND_FLOAT,
                                    .v.f = creal(phase) < 0 ? NAN : creal(v)}, d, at);
    }
    if (sign) {
      at = (char *)tl_tensor_data(sign) + i * size;
      if (is_cplx(d))
        tl_scalar_store((tl_scalar){.kind = TL_KIND_COMPLEX, .v.c = phase}, d, at);
      else
        tl_scalar_store((tl_scalar){.kind = TL_KIND_FLOAT, .v.f = creal(phase)}, d, at);
      tl_scalar_store((tl_scalar){.kind = TL_KIND_FLOAT, .v.f = phase == 0 ? -INFINITY : logsum},
                      r, (char *)tl_tensor_data(logabs) + i * (int64_t)tl_dtype_size(r));
    }
  }
  tl_parallel_relock(&unlocked);
  free(ipiv);
  return TL_OK;
}

tl_status tl_lapack_lu_det(tl_lapack_det *p, const tl_tensor *a, tl_lapack_det_run run)
{
  tl_tensor lu = {0};
  tl_status st;
  if ((st = tl_lapack_check_matrix(p->fn, a, true)) != TL_OK)
    return st;
  int nb = a->ndim - 2;
  p->n = a->shape[a->ndim - 1];
  p->count = tl_lapack_batch_count(nb, a->shape);
  tl_dtype d = tl_linalg_float_dtype(a->dtype), r = tl_dtype_to_real(d);
  tl_device dev = tl_tensor_device(a);
  if ((st = tl_lapack_colmajor_copy(&lu, a, d, nb, a->shape)) != TL_OK)
    return st;
  if ((p->det && (st = tl_lapack_empty(p->det, dev, d, nb, a->shape, 0, NULL)) != TL_OK) ||
      (p->logdet && (st = tl_lapack_empty(p->logdet, dev, d, nb, a->shape, 0, NULL)) != TL_OK) ||
      (p->sign && ((st = tl_lapack_empty(p->sign, dev, d, nb, a->shape, 0, NULL)) != TL_OK ||
                   (st = tl_lapack_empty(p->logabs, dev, r, nb, a->shape, 0, NULL)) != TL_OK)))
    goto done;
  st = run(p, &lu);
done:
  if (st != TL_OK) {
    tl_tensor *outs[] = {p->det, p->sign, p->logabs, p->logdet};
    for (int i = 0; i < 4; i++)
      if (outs[i] && outs[i]->storage)
        tl_tensor_release(outs[i]);
  }
  tl_tensor_release(&lu);
  return st;
}

TL_LAPACK_DET_ENTRIES(tl_cpu, cpu_det_run)

/* ---- cholesky --------------------------------------------------------------------------- */

/* Zero the strict upper (keep_lower) or strict lower triangle of a row-major
 * n x n matrix, a row at a time. */
static void keep_triangle(tl_dtype d, char *m, int64_t n, bool keep_lower)
{
  const int64_t size = (int64_t)tl_dtype_size(d);
  for (int64_t r = 0; r < n; r++) {
    char *row = m + r * n * size;
    if (keep_lower)
      memset(row + (r + 1) * size, 0, (size_t)((n - r - 1) * size));
    else
      memset(row, 0, (size_t)(r * size));
  }
}

/* LAPACK sees a row-major copy of A as A^T = conj(A) (A is Hermitian).  potrf
 * with the opposite triangle on that buffer reads exactly the triangle of A
 * we are asked to, and its factor, read back row-major, is the one we want:
 * conj(A) = U^H U gives A = U^T conj(U) = L L^H with L = U^T, which is U's
 * buffer read row-major.  No transposing copies either way. */
tl_status tl_cpu_linalg_cholesky_ex(tl_tensor *out, tl_tensor *info, const tl_tensor *a, bool upper)
{
  const char *fn = "linalg.cholesky";
  if (tl_lapack_check_matrix(fn, a, true) != TL_OK)
    return tl_error_status();
  int nb = a->ndim - 2;
  int64_t n = a->shape[a->ndim - 1], count = tl_lapack_batch_count(nb, a->shape);
  tl_dtype d = tl_linalg_float_dtype(a->dtype);
  if (tl_tensor_to_dtype(out, a, d) != TL_OK)
    return tl_error_status();
  if (info) {
    if (tl_lapack_empty(info, tl_tensor_device(a), TL_DTYPE_I32, nb, a->shape, 0, NULL) != TL_OK) {
      tl_tensor_release(out);
      return tl_error_status();
    }
    tl_lapack_zero(tl_tensor_data(info), sizeof(int32_t) * (size_t)count);
  }
  tl_status st = TL_OK;
  tl_unlocked unlocked = tl_lapack_unlock(count, n, n);
  for (int64_t i = 0; i < count && n > 0; i++) {
    char *m = tl_lapack_matrix_at(out, i, n, n);
    int err = lp_potrf(d, upper ? 'L' : 'U', (int)n, m, (int)n);
    /* OpenBLAS's potrf takes a NaN pivot (sqrt of NaN) where reference LAPACK
     * and MKL stop: report it as the minor that is not positive-definite. */
    const int64_t size = (int64_t)tl_dtype_size(d);
    for (int64_t j = 0; err == 0 && j < n; j++)
      if (nonfinite_bits(d, m + (j * n + j) * size, 1) & NONFINITE_NAN)
        err = (int)j + 1;
    if (err > 0 && info) {
      ((int32_t *)tl_tensor_data(info))[i] = err;
    } else if (err > 0) {
      tl_tensor_release(out);
      st = tl_lapack_cholesky_error(fn, nb, i, err);
      break;
    }
    keep_triangle(d, m, n, !upper);
  }
  tl_parallel_relock(&unlocked);
  return st;
}

tl_status tl_lapack_cholesky_error(const char *fn, int nb, int64_t batch, int err)
{
  return tl_lapack_error(fn, nb, batch, "The factorization could not be completed because the "
                         "input is not positive-definite (the leading minor of order %d is not "
                         "positive-definite).", err);
}

tl_status tl_linalg_cholesky(tl_tensor *out, const tl_tensor *a, bool upper)
{
  return tl_linalg_cholesky_ex(out, NULL, a, upper);
}

/* ---- qr --------------------------------------------------------------------------------- */

tl_status tl_lapack_qr_setup(tl_lapack_qr *p, tl_tensor *f, tl_tensor *tau, tl_tensor *q,
                             tl_tensor *r, const tl_tensor *a, char mode)
{
  p->fn = mode == 'g' ? "geqrf" : "linalg.qr";
  p->mode = mode;
  tl_status st;
  if ((st = tl_lapack_check_matrix(p->fn, a, false)) != TL_OK)
    return st;
  int nb = a->ndim - 2;
  int64_t m = a->shape[a->ndim - 2], n = a->shape[a->ndim - 1], k = m < n ? m : n;
  p->m = m;
  p->n = n;
  p->k = k;
  p->count = tl_lapack_batch_count(nb, a->shape);
  /* mode 'g' (geqrf): q is the factored matrix itself (Householder vectors
   * below the diagonal, R on and above it), r the scalar factors tau. */
  bool raw = mode == 'g';
  p->qcols = mode == 'c' ? m : raw ? n : k;
  p->rrows = mode == 'c' ? m : k;
  p->wcols = p->qcols > n ? p->qcols : n; /* the factored matrix grows to hold Q */
  tl_dtype d = tl_linalg_float_dtype(a->dtype);
  tl_device dev = tl_tensor_device(a);
  if ((st = tl_lapack_colmajor_empty(f, dev, d, nb, a->shape, m, p->wcols)) != TL_OK)
    return st;
  const tl_backend *b = tl_backend_get(dev);
  tl_tensor view = *f;
  view.shape[nb + 1] = n;
  if ((st = b ? b->memset(dev, f->storage->data, 0, f->storage->nbytes, NULL) : tl_error_status()) !=
          TL_OK ||
      (st = tl_tensor_copy(&view, a)) != TL_OK ||
      (st = tl_lapack_empty(tau, dev, d, nb, a->shape, 1, &k)) != TL_OK ||
      (st = raw ? tl_lapack_empty(r, dev, d, nb, a->shape, 1, &k)
                : tl_lapack_colmajor_empty(r, dev, d, nb, a->shape, p->rrows, n)) != TL_OK ||
      /* mode 'r' returns an empty Q, as PyTorch does */
      (st = mode == 'R' ? tl_tensor_empty(q, d, 1, (int64_t[]){0}, dev)
                        : tl_lapack_colmajor_empty(q, dev, d, nb, a->shape, m, p->qcols)) != TL_OK) {
    tl_tensor *made[] = {f, tau, r, q};
    for (int i = 0; i < 4; i++)
      if (made[i]->storage)
        tl_tensor_release(made[i]);
  }
  return st;
}

tl_status tl_cpu_linalg_qr(tl_tensor *q, tl_tensor *r, const tl_tensor *a, char mode)
{
  tl_tensor tmp[2] = {{0}}; /* factored a, tau */
  void *work = NULL;
  tl_lapack_qr p;
  tl_status st;
  if ((st = tl_lapack_qr_setup(&p, &tmp[0], &tmp[1], q, r, a, mode)) != TL_OK)
    return st;
  const int64_t m = p.m, n = p.n, k = p.k, count = p.count;
  const int64_t qcols = p.qcols, rrows = p.rrows, wcols = p.wcols;
  const bool raw = mode == 'g';
  const tl_dtype d = tmp[0].dtype;
  const int64_t size = (int64_t)tl_dtype_size(d);
  const int lda = (int)(m > 0 ? m : 1);
  int lwork = (int)(wcols > 1 ? wcols : 1);
  char query[16];
  if (m > 0 && n > 0) {
    lp_geqrf(d, (int)m, (int)n, tmp[0].storage->data, lda, query, query, -1);
    int l1 = tl_lapack_work_size(d, query);
    lwork = l1 > lwork ? l1 : lwork;
  }
  if (mode != 'R' && !raw && m > 0 && qcols > 0) {
    lp_orgqr(d, (int)m, (int)qcols, (int)k, tmp[0].storage->data, lda, query, query, -1);
    int l2 = tl_lapack_work_size(d, query);
    lwork = l2 > lwork ? l2 : lwork;
  }
  if (!(work = work_alloc(d, lwork))) {
    st = tl_error_status();
    goto done;
  }
  tl_unlocked unlocked = tl_lapack_unlock(count, m, n);
  for (int64_t i = 0; i < count; i++) {
    char *am = tl_lapack_matrix_at(&tmp[0], i, m, wcols), *tau = (char *)tl_tensor_data(&tmp[1]) + i * k * size;
    if (m > 0 && n > 0)
      lp_geqrf(d, (int)m, (int)n, am, lda, tau, work, lwork);
    if (raw) {
      tl_lapack_copy(tl_lapack_matrix_at(q, i, m, n), am, (size_t)(m * n * size));
      tl_lapack_copy((char *)tl_tensor_data(r) + i * k * size, tau, (size_t)(k * size));
      continue;
    }
    /* R: the upper triangle of the first rrows rows. */
    char *rm = tl_lapack_matrix_at(r, i, rrows, n);
    for (int64_t j = 0; j < n; j++)
      for (int64_t row = 0; row < rrows; row++) {
        char *dst = rm + (j * rrows + row) * size;
        if (row <= j && row < m)
          memcpy(dst, am + (j * m + row) * size, (size_t)size);
        else
          memset(dst, 0, (size_t)size);
      }
    if (mode == 'R')
      continue;
    if (m > 0 && qcols > 0)
      lp_orgqr(d, (int)m, (int)qcols, (int)k, am, lda, tau, work, lwork);
    tl_lapack_copy(tl_lapack_matrix_at(q, i, m, qcols), am, (size_t)(m * qcols * size));
  }
  tl_parallel_relock(&unlocked);
done:
  if (st != TL_OK && r->storage)
    tl_tensor_release(r);
  if (st != TL_OK && q->storage)
    tl_tensor_release(q);
  free(work);
  tl_tensor_release_n(2, tmp);
  return st;
}

/* ---- svd -------------------------------------------------------------------------------- */

/* Write the identity into a packed column-major rows x cols matrix. */
static void set_eye(tl_dtype d, char *m, int64_t rows, int64_t cols)
{
  const int64_t size = (int64_t)tl_dtype_size(d);
  tl_scalar one = {.kind = TL_KIND_INT, .v.i = 1};
  tl_lapack_zero(m, (size_t)(rows * cols * size));
  for (int64_t i = 0; i < rows && i < cols; i++)
    tl_scalar_store(one, d, m + (i * rows + i) * size);
}

tl_status tl_cpu_linalg_svd(tl_tensor *u, tl_tensor *s, tl_tensor *vh, const tl_tensor *a,
                            bool full_matrices, bool compute_uv)
{
  const char *fn = compute_uv ? "linalg.svd" : "linalg.svdvals";
  tl_tensor tmp[1] = {{0}};
  void *work = NULL, *rwork = NULL;
  int *iwork = NULL;
  tl_unlocked unlocked = {0};
  tl_status st;
  if ((st = tl_lapack_check_matrix(fn, a, false)) != TL_OK)
    return st;
  int nb = a->ndim - 2;
  int64_t m = a->shape[a->ndim - 2], n = a->shape[a->ndim - 1], k = m < n ? m : n;
  int64_t count = tl_lapack_batch_count(nb, a->shape);
  int64_t ucols = full_matrices ? m : k, vrows = full_matrices ? n : k;
  tl_dtype d = tl_linalg_float_dtype(a->dtype), rd = tl_dtype_to_real(d);
  const int64_t rsize = (int64_t)tl_dtype_size(rd);
  char jobz = !compute_uv ? 'N' : full_matrices ? 'A' : 'S';

  if ((st = tl_lapack_colmajor_copy(&tmp[0], a, d, nb, a->shape)) != TL_OK)
    return st;
  if ((st = tl_lapack_empty(s, tl_tensor_device(a), rd, nb, a->shape, 1, &k)) != TL_OK)
    goto done;
  if (compute_uv && ((st = tl_lapack_colmajor_empty(u, tl_tensor_device(a), d, nb, a->shape, m, ucols)) != TL_OK ||
                     (st = tl_lapack_colmajor_empty(vh, tl_tensor_device(a), d, nb, a->shape, vrows, n)) != TL_OK))
    goto done;
  if (k == 0) { /* nothing to factor: U and V are identities */
    for (int64_t i = 0; compute_uv && i < count; i++) {
      set_eye(d, tl_lapack_matrix_at(u, i, m, ucols), m, ucols);
      set_eye(d, tl_lapack_matrix_at(vh, i, vrows, n), vrows, n);
    }
    goto done;
  }
  int lwork;
  int64_t lrwork = jobz == 'N' ? 7 * k : k * (5 * k + 7 > 2 * (m > n ? m : n) + 2 * k + 1
                                                  ? 5 * k + 7
                                                  : 2 * (m > n ? m : n) + 2 * k + 1);
  const int ldu = (int)m, ldvt = (int)(vrows > 0 ? vrows : 1);
  char query[16];
  if (!(iwork = malloc(sizeof(int) * (size_t)(8 * k))) ||
      !(rwork = work_alloc(rd, is_cplx(d) ? lrwork : 1))) {
    st = iwork ? tl_error_status() : tl_error_set(TL_ERR_MEMORY, "%s: out of memory", fn);
    goto fail;
  }
  /* u/vt may be unused ('N'): LAPACK still wants valid leading dimensions. */
  char *sdata = tl_tensor_data(s);
  lp_gesdd(d, jobz, (int)m, (int)n, tmp[0].storage->data, (int)m, sdata,
           compute_uv ? tl_tensor_data(u) : NULL, ldu, compute_uv ? tl_tensor_data(vh) : NULL,
           ldvt, query, -1, rwork, iwork);
  lwork = tl_lapack_work_size(d, query);
  if (!(work = work_alloc(d, lwork))) {
    st = tl_error_status();
    goto fail;
  }
  unlocked = tl_lapack_unlock(count, m, n);
  for (int64_t i = 0; i < count; i++) {
    /* NaN: no decomposition (PyTorch and NumPy raise).  inf without NaN: the
     * singular values are NaN (as in PyTorch and NumPy), and so are U and V,
     * which LAPACK would not finish computing. */
    unsigned bad = nonfinite_bits(d, tl_lapack_matrix_at(&tmp[0], i, m, n), m * n);
    if (bad & NONFINITE_NAN) {
      st = tl_lapack_error(fn, nb, i, "The algorithm failed to converge because the input matrix "
                           "contained non-finite values.");
      goto fail;
    }
    if (bad) {
      fill_nan(rd, sdata + i * k * rsize, k);
      if (compute_uv) {
        fill_nan(d, tl_lapack_matrix_at(u, i, m, ucols), m * ucols);
        fill_nan(d, tl_lapack_matrix_at(vh, i, vrows, n), vrows * n);
      }
      continue;
    }
    int info = lp_gesdd(d, jobz, (int)m, (int)n, tl_lapack_matrix_at(&tmp[0], i, m, n), (int)m,
                        sdata + i * k * rsize, compute_uv ? tl_lapack_matrix_at(u, i, m, ucols) : NULL, ldu,
                        compute_uv ? tl_lapack_matrix_at(vh, i, vrows, n) : NULL, ldvt, work, lwork, rwork,
                        iwork);
    if (info > 0) {
      st = tl_lapack_error(fn, nb, i, "The algorithm failed to converge because the input matrix "
                        "is ill-conditioned or has too many repeated singular values (error "
                        "code: %d).", info);
      goto fail;
    }
  }
  goto done;
fail:
  if (u->storage)
    tl_tensor_release(u);
  if (vh->storage)
    tl_tensor_release(vh);
done:
  tl_parallel_relock(&unlocked);
  if (st != TL_OK && s->storage)
    tl_tensor_release(s);
  free(work);
  free(rwork);
  free(iwork);
  tl_tensor_release_n(1, tmp);
  return st;
}

/* ---- eigh, eig ------------------------------------------------------------------------- */

tl_status tl_lapack_eigh_error(const char *fn, int nb, int64_t batch, int info)
{
  return tl_lapack_error(fn, nb, batch, "The algorithm failed to converge because the input "
                         "matrix is ill-conditioned or has too many repeated eigenvalues (error "
                         "code: %d).", info);
}

tl_status tl_cpu_linalg_eigh(tl_tensor *w, tl_tensor *v, const tl_tensor *a, bool upper,
                             bool compute_v)
{
  const char *fn = compute_v ? "linalg.eigh" : "linalg.eigvalsh";
  tl_tensor tmp[1] = {{0}};
  void *work = NULL, *rwork = NULL;
  int *iwork = NULL;
  tl_unlocked unlocked = {0};
  tl_status st;
  if ((st = tl_lapack_check_matrix(fn, a, true)) != TL_OK)
    return st;
  int nb = a->ndim - 2;
  int64_t n = a->shape[a->ndim - 1], count = tl_lapack_batch_count(nb, a->shape);
  tl_dtype d = tl_linalg_float_dtype(a->dtype), rd = tl_dtype_to_real(d);
  const int64_t rsize = (int64_t)tl_dtype_size(rd);
  const char jobz = compute_v ? 'V' : 'N', uplo = upper ? 'U' : 'L';
  tl_tensor *vecs = compute_v ? v : &tmp[0];

  if ((st = tl_lapack_colmajor_copy(vecs, a, d, nb, a->shape)) != TL_OK)
    return st;
  if ((st = tl_lapack_empty(w, tl_tensor_device(a), rd, nb, a->shape, 1, &n)) != TL_OK)
    goto fail;
  if (n == 0)
    goto done;
  char q[16], rq[16];
  int iq = 0;
  lp_syevd(d, jobz, uplo, (int)n, vecs->storage->data, (int)n, tl_tensor_data(w), q, -1, rq, -1,
           &iq, -1);
  int lwork = tl_lapack_work_size(d, q), lrwork = tl_lapack_work_size(rd, rq), liwork = iq > 1 ? iq : 1;
  if (!(work = work_alloc(d, lwork)) || !(rwork = work_alloc(rd, lrwork)) ||
      !(iwork = malloc(sizeof(int) * (size_t)liwork))) {
    st = (work && rwork) ? tl_error_set(TL_ERR_MEMORY, "%s: out of memory", fn) : tl_error_status();
    goto fail;
  }
  unlocked = tl_lapack_unlock(count, n, n);
  for (int64_t i = 0; i < count; i++) {
    int info = lp_syevd(d, jobz, uplo, (int)n, tl_lapack_matrix_at(vecs, i, n, n), (int)n,
                        (char *)tl_tensor_data(w) + i * n * rsize, work, lwork, rwork, lrwork,
                        iwork, liwork);
    if (info > 0) {
      st = tl_lapack_eigh_error(fn, nb, i, info);
      goto fail;
    }
  }
  goto done;
fail:
  if (w->storage)
    tl_tensor_release(w);
  if (compute_v && v->storage)
    tl_tensor_release(v);
done:
  tl_parallel_relock(&unlocked);
  free(work);
  free(rwork);
  free(iwork);
  tl_tensor_release_n(1, tmp);
  return st;
}

tl_status tl_cpu_linalg_eig(tl_tensor *w, tl_tensor *v, const tl_tensor *a, bool compute_v)
{
  const char *fn = compute_v ? "linalg.eig" : "linalg.eigvals";
  tl_tensor tmp[3] = {{0}}; /* a's copy, real eigenvectors, real eigenvalues (wr, wi) */
  void *work = NULL, *rwork = NULL;
  tl_unlocked unlocked = {0};
  tl_status st;
  if ((st = tl_lapack_check_matrix(fn, a, true)) != TL_OK)
    return st;
  int nb = a->ndim - 2;
  int64_t n = a->shape[a->ndim - 1], count = tl_lapack_batch_count(nb, a->shape);
  tl_dtype d = tl_linalg_float_dtype(a->dtype), cd = tl_dtype_to_complex(d);
  const bool real = !is_cplx(d);
  const int64_t size = (int64_t)tl_dtype_size(d), csize = (int64_t)tl_dtype_size(cd);
  const int ldvr = (int)(n > 0 ? n : 1);

  if ((st = tl_lapack_colmajor_copy(&tmp[0], a, d, nb, a->shape)) != TL_OK)
    return st;
  if ((st = tl_lapack_empty(w, tl_tensor_device(a), cd, nb, a->shape, 1, &n)) != TL_OK)
    goto fail;
  if (compute_v && (st = tl_lapack_colmajor_empty(v, tl_tensor_device(a), cd, nb, a->shape, n, n)) != TL_OK)
    goto fail;
  if (real && ((st = tl_tensor_empty(&tmp[1], d, 2, (int64_t[]){n, n}, tl_tensor_device(a))) != TL_OK ||
               (st = tl_tensor_empty(&tmp[2], d, 1, (int64_t[]){2 * n}, tl_tensor_device(a))) != TL_OK))
    goto fail;
  if (n == 0)
    goto done;
  char q[16];
  void *wbuf = real ? tl_tensor_data(&tmp[2]) : tl_tensor_data(w);
  void *vbuf = !compute_v ? NULL : real ? tl_tensor_data(&tmp[1]) : tl_tensor_data(v);
  const char jobvr = compute_v ? 'V' : 'N';
  if (!(rwork = work_alloc(tl_dtype_to_real(d), 2 * n))) {
    st = tl_error_status();
    goto fail;
  }
  lp_geev(d, jobvr, (int)n, tmp[0].storage->data, (int)n, wbuf, vbuf, ldvr, q, -1, rwork);
  int lwork = tl_lapack_work_size(d, q);
  if (!(work = work_alloc(d, lwork))) {
    st = tl_error_status();
    goto fail;
  }
  unlocked = tl_lapack_unlock(count, n, n);
  for (int64_t i = 0; i < count; i++) {
    char *wi = real ? wbuf : (char *)tl_tensor_data(w) + i * n * csize;
    char *vi = !compute_v ? NULL : real ? vbuf : tl_lapack_matrix_at(v, i, n, n);
    if (nonfinite_bits(d, tl_lapack_matrix_at(&tmp[0], i, n, n), n * n)) {
      /* LAPACK would print to stdout and leave w unwritten (see nonfinite_bits).
       * PyTorch's eig refuses such input, its eigvals answers NaN. */
      if (compute_v) {
        st = tl_lapack_error(fn, nb, i, "input tensor should not contain infs or NaNs.");
        goto fail;
      }
      fill_nan(cd, (char *)tl_tensor_data(w) + i * n * csize, n);
      continue;
    }
    int info = lp_geev(d, jobvr, (int)n, tl_lapack_matrix_at(&tmp[0], i, n, n), (int)n, wi, vi, ldvr, work,
                       lwork, rwork);
    if (info > 0) {
      st = tl_lapack_eigh_error(fn, nb, i, info);
      goto fail;
    }
    if (!real)
      continue;
    /* Real LAPACK gives (wr, wi) and packs a conjugate pair's vector as two
     * real columns (re, im): spell both out as complex. */
    char *wout = (char *)tl_tensor_data(w) + i * n * csize;
    char *vout = compute_v ? tl_lapack_matrix_at(v, i, n, n) : NULL;
    for (int64_t j = 0; j < n; j++) {
      double re = tl_scalar_load(d, (char *)wbuf + j * size).v.f;
      double im = tl_scalar_load(d, (char *)wbuf + (n + j) * size).v.f;
      tl_scalar_store((tl_scalar){.kind = TL_KIND_COMPLEX, .v.c = CMPLX(re, im)}, cd,
                      wout + j * csize);
      if (!vout)
        continue;
      for (int64_t row = 0; row < n; row++) {
        double complex x;
        double vr = tl_scalar_load(d, (char *)vbuf + (j * n + row) * size).v.f;
        if (im == 0)
          x = vr;
        else if (im > 0 && j + 1 < n)
          x = CMPLX(vr, tl_scalar_load(d, (char *)vbuf + ((j + 1) * n + row) * size).v.f);
        else
          x = CMPLX(tl_scalar_load(d, (char *)vbuf + ((j - 1) * n + row) * size).v.f,
                    -vr);
        tl_scalar_store((tl_scalar){.kind = TL_KIND_COMPLEX, .v.c = x}, cd,
                        vout + (j * n + row) * csize);
      }
    }
  }
  goto done;
fail:
  if (w->storage)
    tl_tensor_release(w);
  if (compute_v && v->storage)
    tl_tensor_release(v);
done:
  tl_parallel_relock(&unlocked);
  free(work);
  free(rwork);
  tl_tensor_release_n(3, tmp);
  return st;
}

/* ---- lstsq ----------------------------------------------------------------------------- */

typedef struct {
  char driver; /* 'g' gels, 'y' gelsy, 'd' gelsd, 's' gelss */
  tl_dtype d;
  int m, n, k, lda, ldb;
  double rcond;
} lsq_args;

/* One least-squares solve; work sizes come from a call with lwork = -1.
 * rank and s may be NULL when the driver gives none. */
static int lp_lstsq(const lsq_args *p, void *a, void *b, void *s, int *rank, int *jpvt, void *work,
                    int lwork, void *rwork, int *iwork)
{
  int info = 0, r = 0;
  const char t = 'N';
  const float rf = (float)p->rcond;
  const double rd = p->rcond;
  const int m = p->m, n = p->n, k = p->k, lda = p->lda, ldb = p->ldb;
  switch (p->driver) {
  case 'g':
    switch (p->d) {
    case TL_DTYPE_F32: TL_BLAS(sgels_)(&t, &m, &n, &k, a, &lda, b, &ldb, work, &lwork, &info, 1); break;
    case TL_DTYPE_F64: TL_BLAS(dgels_)(&t, &m, &n, &k, a, &lda, b, &ldb, work, &lwork, &info, 1); break;
    case TL_DTYPE_C64: TL_BLAS(cgels_)(&t, &m, &n, &k, a, &lda, b, &ldb, work, &lwork, &info, 1); break;
    default: TL_BLAS(zgels_)(&t, &m, &n, &k, a, &lda, b, &ldb, work, &lwork, &info, 1); break;
    }
    break;
  case 'y':
    switch (p->d) {
    case TL_DTYPE_F32: TL_BLAS(sgelsy_)(&m, &n, &k, a, &lda, b, &ldb, jpvt, &rf, &r, work, &lwork, &info); break;
    case TL_DTYPE_F64: TL_BLAS(dgelsy_)(&m, &n, &k, a, &lda, b, &ldb, jpvt, &rd, &r, work, &lwork, &info); break;
    case TL_DTYPE_C64: TL_BLAS(cgelsy_)(&m, &n, &k, a, &lda, b, &ldb, jpvt, &rf, &r, work, &lwork, rwork, &info); break;
    default: TL_BLAS(zgelsy_)(&m, &n, &k, a, &lda, b, &ldb, jpvt, &rd, &r, work, &lwork, rwork, &info); break;
    }
    break;
  case 'd':
    switch (p->d) {
    case TL_DTYPE_F32: TL_BLAS(sgelsd_)(&m, &n, &k, a, &lda, b, &ldb, s, &rf, &r, work, &lwork, iwork, &info); break;
    case TL_DTYPE_F64: TL_BLAS(dgelsd_)(&m, &n, &k, a, &lda, b, &ldb, s, &rd, &r, work, &lwork, iwork, &info); break;
    case TL_DTYPE_C64: TL_BLAS(cgelsd_)(&m, &n, &k, a, &lda, b, &ldb, s, &rf, &r, work, &lwork, rwork, iwork, &info); break;
    default: TL_BLAS(zgelsd_)(&m, &n, &k, a, &lda, b, &ldb, s, &rd, &r, work, &lwork, rwork, iwork, &info); break;
    }
    break;
  default:
    switch (p->d) {
    case TL_DTYPE_F32: TL_BLAS(sgelss_)(&m, &n, &k, a, &lda, b, &ldb, s, &rf, &r, work, &lwork, &info); break;
    case TL_DTYPE_F64: TL_BLAS(dgelss_)(&m, &n, &k, a, &lda, b, &ldb, s, &rd, &r, work, &lwork, &info); break;
    case TL_DTYPE_C64: TL_BLAS(cgelss_)(&m, &n, &k, a, &lda, b, &ldb, s, &rf, &r, work, &lwork, rwork, &info); break;
    default: TL_BLAS(zgelss_)(&m, &n, &k, a, &lda, b, &ldb, s, &rd, &r, work, &lwork, rwork, &info); break;
    }
    break;
  }
  if (rank)
    *rank = r;
  return info;
}

tl_status tl_lapack_lstsq_setup(tl_lapack_lstsq *p, const char *fn, const tl_tensor *a,
                                const tl_tensor *b)
{
  char sa[128], sb[128];
  p->vb = *b;
  p->vec = b->ndim == a->ndim - 1;
  if (p->vec) {
    p->vb.shape[p->vb.ndim] = 1;
    p->vb.strides[p->vb.ndim] = 1;
    p->vb.ndim++;
  }
  p->m = a->shape[a->ndim - 2];
  p->n = a->shape[a->ndim - 1];
  if (p->vb.ndim < 2 || p->vb.shape[p->vb.ndim - 2] != p->m)
    return tl_error_set(TL_ERR_RUNTIME, "%s: input.size(-2) should match other.size(-2) (A %s, B "
                        "%s)", fn, tl_shape_str(sa, sizeof sa, a->ndim, a->shape),
                        tl_shape_str(sb, sizeof sb, b->ndim, b->shape));
  p->k = p->vb.shape[p->vb.ndim - 1];
  p->ldb = p->m > p->n ? p->m : p->n;
  if (tl_shape_broadcast(a->ndim - 2, a->shape, p->vb.ndim - 2, p->vb.shape, &p->nb, p->bshape) !=
      TL_OK)
    return tl_error_status();
  p->d = tl_linalg_float_dtype(tl_promote_types(a->dtype, b->dtype));
  p->count = tl_lapack_batch_count(p->nb, p->bshape);
  return TL_OK;
}

tl_status tl_cpu_linalg_lstsq(tl_tensor *x, tl_tensor *residuals, tl_tensor *rank, tl_tensor *sv,
                              const tl_tensor *a, const tl_tensor *b, double rcond,
                              const char *driver)
{
  const char *fn = "linalg.lstsq";
  tl_tensor tmp[2] = {{0}}; /* a's copy, b's buffer (max(m, n) rows) */
  void *work = NULL, *rwork = NULL, *sbuf = NULL;
  int *iwork = NULL, *jpvt = NULL;
  tl_unlocked unlocked = {0};
  tl_status st;
  lsq_args p = {0};
  if ((st = tl_lapack_check_matrix(fn, a, false)) != TL_OK)
    return st;
  if (!strcmp(driver, "gels"))
    p.driver = 'g';
  else if (!strcmp(driver, "gelsy"))
    p.driver = 'y';
  else if (!strcmp(driver, "gelsd"))
    p.driver = 'd';
  else if (!strcmp(driver, "gelss"))
    p.driver = 's';
  else
    return tl_error_set(TL_ERR_RUNTIME, "%s: parameter `driver` should be one of (gels, gelsy, "
                        "gelsd, gelss), but got %s", fn, driver);
  tl_lapack_lstsq q;
  if ((st = tl_lapack_lstsq_setup(&q, fn, a, b)) != TL_OK)
    return st;
  tl_tensor vb = q.vb;
  const bool vec = q.vec;
  const int64_t m = q.m, n = q.n, mn = m < n ? m : n, k = q.k, ldb = q.ldb, count = q.count;
  const int nb = q.nb;
  const int64_t *bshape = q.bshape;
  tl_dtype d = q.d, rd = tl_dtype_to_real(d);
  const int64_t size = (int64_t)tl_dtype_size(d), rsize = (int64_t)tl_dtype_size(rd);
  p.d = d;
  p.m = (int)m;
  p.n = (int)n;
  p.k = (int)k;
  p.lda = (int)(m > 1 ? m : 1);
  p.ldb = (int)(ldb > 1 ? ldb : 1);
  p.rcond = rcond >= 0 ? rcond : (rd == TL_DTYPE_F32 ? 1.1920929e-07 : 2.220446049250313e-16) *
                                      (double)(m > n ? m : n);

  if ((st = tl_lapack_colmajor_copy(&tmp[0], a, d, nb, bshape)) != TL_OK ||
      (st = tl_lapack_colmajor_empty(&tmp[1], tl_tensor_device(a), d, nb, bshape, ldb, k)) != TL_OK)
    goto done;
  tl_lapack_zero(tl_tensor_data(&tmp[1]), (size_t)(count * ldb * k * size));
  tl_tensor top = tmp[1];
  top.shape[nb] = m;
  if ((st = tl_tensor_copy(&top, &vb)) != TL_OK)
    goto done;
  bool has_rank = p.driver != 'g', has_sv = p.driver == 'd' || p.driver == 's';
  if ((st = has_rank ? tl_lapack_empty(rank, tl_tensor_device(a), TL_DTYPE_I64, nb, bshape, 0, NULL)
                     : tl_tensor_empty(rank, TL_DTYPE_I64, 1, (int64_t[]){0}, tl_tensor_device(a))) != TL_OK ||
      (st = has_sv ? tl_lapack_empty(sv, tl_tensor_device(a), rd, nb, bshape, 1, &mn)
                   : tl_tensor_empty(sv, rd, 1, (int64_t[]){0}, tl_tensor_device(a))) != TL_OK)
    goto done;
  if (!(sbuf = work_alloc(rd, mn)) || !(jpvt = calloc((size_t)(n > 0 ? n : 1), sizeof(int)))) {
    st = sbuf ? tl_error_set(TL_ERR_MEMORY, "%s: out of memory", fn) : tl_error_status();
    goto done;
  }
  int lwork = 1, liwork = 1;
  if (mn > 0) {
    char q[16], rq[16] = {0};
    int iq = 1;
    lp_lstsq(&p, tmp[0].storage->data, tmp[1].storage->data, sbuf, NULL, jpvt, q, -1, rq, &iq);
    lwork = tl_lapack_work_size(d, q);
    liwork = iq > 1 ? iq : 1;
    int64_t lrwork = p.driver == 'y' ? 2 * n : p.driver == 's' ? 5 * mn : tl_lapack_work_size(rd, rq);
    if (p.driver == 'd' && lrwork < 1)
      lrwork = 1;
    if (!(work = work_alloc(d, lwork)) || !(rwork = work_alloc(rd, lrwork)) ||
        !(iwork = calloc((size_t)(p.driver == 'd' ? liwork + 3 * mn * 32 : 1), sizeof(int)))) {
      st = work && rwork ? tl_error_set(TL_ERR_MEMORY, "%s: out of memory", fn) : tl_error_status();
      goto done;
    }
  }
  bool full_rank = true;
  unlocked = tl_lapack_unlock(count, m, n + k);
  for (int64_t i = 0; i < count; i++) {
    int r = (int)mn, info = 0;
    /* Every driver scales A and B by their norms first (see nonfinite_bits). */
    if (nonfinite_bits(d, tl_lapack_matrix_at(&tmp[0], i, m, n), m * n) ||
        nonfinite_bits(d, tl_lapack_matrix_at(&tmp[1], i, ldb, k), ldb * k)) {
      st = tl_lapack_error(fn, nb, i, "The input matrices A and B must not contain infs or NaNs.");
      goto done;
    }
    if (mn > 0) {
      memset(jpvt, 0, sizeof(int) * (size_t)n);
      info = lp_lstsq(&p, tl_lapack_matrix_at(&tmp[0], i, m, n), tl_lapack_matrix_at(&tmp[1], i, ldb, k), sbuf, &r,
                      jpvt, work, lwork, rwork, iwork);
    }
    if (info > 0) {
      st = p.driver == 'g'
               ? tl_lapack_error(fn, nb, i, "The least squares solution could not be computed because "
                              "the input matrix does not have full rank (error code: %d).", info)
               : tl_lapack_error(fn, nb, i, "The algorithm failed to converge because the input "
                              "matrix is ill-conditioned (error code: %d).", info);
      goto done;
    }
    full_rank = full_rank && r == n;
    if (has_rank)
      ((int64_t *)tl_tensor_data(rank))[i] = r;
    if (has_sv)
      tl_lapack_copy((char *)tl_tensor_data(sv) + i * mn * rsize, sbuf, (size_t)(mn * rsize));
  }
  /* Residuals: squared norms of the rows past n, when m > n and A has full
   * rank (gelsy leaves them out, as PyTorch does). */
  if (m > n && p.driver != 'y' && (p.driver == 'g' || full_rank)) {
    int64_t tail = vec ? 0 : 1;
    if ((st = tl_lapack_empty(residuals, tl_tensor_device(a), rd, nb, bshape, (int)tail, &k)) != TL_OK)
      goto done;
    for (int64_t i = 0; i < count; i++)
      for (int64_t j = 0; j < k; j++) {
        double sum = 0;
        char *col = tl_lapack_matrix_at(&tmp[1], i, ldb, k) + j * ldb * size;
        for (int64_t row = n; row < m; row++) {
          tl_scalar v = tl_scalar_load(d, col + row * size);
          double av = v.kind == TL_KIND_COMPLEX ? cabs(v.v.c) : fabs(v.v.f);
          sum += av * av;
        }
        tl_scalar_store((tl_scalar){.kind = TL_KIND_FLOAT, .v.f = sum}, rd,
                        (char *)tl_tensor_data(residuals) + (i * k + j) * rsize);
      }
  } else if ((st = tl_tensor_empty(residuals, rd, 1, (int64_t[]){0}, tl_tensor_device(a))) != TL_OK) {
    goto done;
  }
  /* The solution: the first n rows of b's buffer, a view in LAPACK's layout. */
  *x = tmp[1];
  tmp[1].storage = NULL;
  x->shape[nb] = n;
  if (vec)
    x->ndim--;
done:
  tl_parallel_relock(&unlocked);
  if (st != TL_OK) {
    tl_tensor *outs[4] = {x, residuals, rank, sv};
    for (int i = 0; i < 4; i++)
      if (outs[i]->storage)
        tl_tensor_release(outs[i]);
  }
  free(work);
  free(rwork);
  free(iwork);
  free(jpvt);
  free(sbuf);
  tl_tensor_release_n(2, tmp);
  return st;
}
