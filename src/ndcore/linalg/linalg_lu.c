/* linalg_lu.c - LU factorization and triangular solves: lu_factor, lu,
 * lu_solve (LAPACK getrf/getrs) and solve_triangular (BLAS trsm).
 *
 * Pivots are LAPACK's: 1-based int32 row interchanges, as PyTorch returns
 * them.  Inputs are copied into packed column-major tensors (tl_lapack.h), so
 * every layout, dtype and broadcast batch is handled the same way.          */
#include <stdlib.h>
#include <string.h>

#include "ndcore/linalg/tl_blas.h"
#include "ndcore/linalg/tl_lapack.h"
#include "ndcore/linalg/tl_linalg.h"

tl_status tl_cpu_linalg_lu_factor_ex(tl_tensor *lu, tl_tensor *pivots, tl_tensor *info,
                                    const tl_tensor *a)
{
  const char *fn = "linalg.lu_factor";
  tl_unlocked unlocked = {0};
  tl_status st;
  if ((st = tl_lapack_lu_factor_setup(fn, a, lu, pivots, info)) != TL_OK)
    return st;
  int nb = a->ndim - 2;
  int64_t m = a->shape[nb], n = a->shape[nb + 1], k = m < n ? m : n;
  int64_t count = tl_lapack_batch_count(nb, a->shape);
  tl_dtype d = tl_linalg_float_dtype(a->dtype);
  if (info)
    tl_lapack_zero(tl_tensor_data(info), sizeof(int32_t) * (size_t)count);
  unlocked = tl_lapack_unlock(count, m, n);
  for (int64_t i = 0; i < count && k > 0; i++) {
    int *piv = (int *)tl_tensor_data(pivots) + i * k;
    int err = tl_lapack_getrf(d, (int)m, (int)n, tl_lapack_matrix_at(lu, i, m, n), (int)m, piv);
    if (err > 0 && info) {
      ((int32_t *)tl_tensor_data(info))[i] = err;
    } else if (err > 0) {
      st = tl_lapack_lu_factor_error(fn, nb, i, err);
      goto fail;
    }
  }
  tl_parallel_relock(&unlocked);
  return TL_OK;
fail:
  tl_parallel_relock(&unlocked);
  tl_lapack_lu_factor_release(lu, pivots, info);
  return st;
}

tl_status tl_lapack_lu_factor_setup(const char *fn, const tl_tensor *a, tl_tensor *lu,
                                    tl_tensor *pivots, tl_tensor *info)
{
  tl_status st;
  if ((st = tl_lapack_check_matrix(fn, a, false)) != TL_OK)
    return st;
  const int nb = a->ndim - 2;
  const int64_t m = a->shape[nb], n = a->shape[nb + 1], k = m < n ? m : n;
  const tl_device dev = tl_tensor_device(a);
  if ((st = tl_lapack_colmajor_copy(lu, a, tl_linalg_float_dtype(a->dtype), nb, a->shape)) !=
      TL_OK)
    return st;
  if ((st = tl_lapack_empty(pivots, dev, TL_DTYPE_I32, nb, a->shape, 1, &k)) != TL_OK ||
      (info && (st = tl_lapack_empty(info, dev, TL_DTYPE_I32, nb, a->shape, 0, NULL)) != TL_OK))
    tl_lapack_lu_factor_release(lu, pivots, info);
  return st;
}

void tl_lapack_lu_factor_release(tl_tensor *lu, tl_tensor *pivots, tl_tensor *info)
{
  tl_tensor_release(lu);
  if (pivots->storage)
    tl_tensor_release(pivots);
  if (info && info->storage)
    tl_tensor_release(info);
}

tl_status tl_lapack_lu_factor_error(const char *fn, int nb, int64_t batch, int err)
{
  return tl_lapack_error(fn, nb, batch, "U[%d,%d] is zero and using it on lu_solve would result in "
                         "a division by zero. If you still want to perform the factorization, "
                         "consider calling linalg.lu(A, pivot) or linalg.lu_factor_ex(A, pivot)",
                         err, err);
}

tl_status tl_linalg_lu_factor(tl_tensor *lu, tl_tensor *pivots, const tl_tensor *a)
{
  return tl_linalg_lu_factor_ex(lu, pivots, NULL, a);
}

tl_status tl_cpu_linalg_lu(tl_tensor *p, tl_tensor *l, tl_tensor *u, const tl_tensor *a)
{
  const char *fn = "linalg.lu";
  tl_status st;
  tl_tensor f = {0};
  int *perm = NULL;
  if ((st = tl_lapack_check_matrix(fn, a, false)) != TL_OK)
    return st;
  int nb = a->ndim - 2;
  int64_t m = a->shape[nb], n = a->shape[nb + 1], k = m < n ? m : n;
  int64_t count = tl_lapack_batch_count(nb, a->shape);
  tl_dtype d = tl_linalg_float_dtype(a->dtype);
  const int64_t size = (int64_t)tl_dtype_size(d);
  const tl_scalar one = {.kind = TL_KIND_INT, .v.i = 1};
  if ((st = tl_lapack_colmajor_copy(&f, a, d, nb, a->shape)) != TL_OK)
    return st;
  if ((st = tl_lapack_colmajor_empty(p, tl_tensor_device(a), d, nb, a->shape, m, m)) != TL_OK ||
      (st = tl_lapack_colmajor_empty(l, tl_tensor_device(a), d, nb, a->shape, m, k)) != TL_OK ||
      (st = tl_lapack_colmajor_empty(u, tl_tensor_device(a), d, nb, a->shape, k, n)) != TL_OK)
    goto fail;
  if (!(perm = malloc(sizeof(int) * (size_t)(2 * m + 1)))) {
    st = tl_error_set(TL_ERR_MEMORY, "%s: out of memory", fn);
    goto fail;
  }
  int *ipiv = perm + m;
  tl_unlocked unlocked = tl_lapack_unlock(count, m, n);
  for (int64_t i = 0; i < count; i++) {
    char *fm = tl_lapack_matrix_at(&f, i, m, n);
    if (k > 0) /* a zero pivot still leaves a valid P L U (singular U) */
      tl_lapack_getrf(d, (int)m, (int)n, fm, (int)m, ipiv);
    /* A = P L U: row j of P^T A is row perm[j] of A, so P[perm[j], j] = 1. */
    for (int64_t j = 0; j < m; j++)
      perm[j] = (int)j;
    for (int64_t j = 0; j < k; j++) {
      int t = perm[j];
      perm[j] = perm[ipiv[j] - 1];
      perm[ipiv[j] - 1] = t;
    }
    char *pm = tl_lapack_matrix_at(p, i, m, m), *lm = tl_lapack_matrix_at(l, i, m, k);
    char *um = tl_lapack_matrix_at(u, i, k, n);
    tl_lapack_zero(pm, (size_t)(m * m * size));
    for (int64_t j = 0; j < m; j++)
      tl_scalar_store(one, d, pm + (j * m + perm[j]) * size);
    for (int64_t c = 0; c < k; c++)
      for (int64_t r = 0; r < m; r++) {
        char *dst = lm + (c * m + r) * size;
        if (r > c)
          memcpy(dst, fm + (c * m + r) * size, (size_t)size);
        else if (r == c)
          tl_scalar_store(one, d, dst);
        else
          memset(dst, 0, (size_t)size);
      }
    for (int64_t c = 0; c < n; c++)
      for (int64_t r = 0; r < k; r++) {
        char *dst = um + (c * k + r) * size;
        if (r <= c)
          memcpy(dst, fm + (c * m + r) * size, (size_t)size);
        else
          memset(dst, 0, (size_t)size);
      }
  }
  tl_parallel_relock(&unlocked);
  goto done;
fail:
  if (p->storage)
    tl_tensor_release(p);
  if (l->storage)
    tl_tensor_release(l);
  if (u->storage)
    tl_tensor_release(u);
done:
  free(perm);
  tl_tensor_release(&f);
  return st;
}

/* Copies of lu's factors and pivots broadcast to the batch bshape. */
tl_status tl_lapack_lu_solve_setup(tl_lapack_lu_solve *p, tl_tensor *f, tl_tensor *piv,
                                   tl_tensor *x, const tl_tensor *lu, const tl_tensor *pivots,
                                   const tl_tensor *b, bool left, bool adjoint)
{
  const char *fn = "linalg.lu_solve";
  char s1[128], s2[128];
  tl_status st;
  if ((st = tl_lapack_check_matrix(fn, lu, true)) != TL_OK)
    return st;
  if (b->ndim < 2)
    return tl_error_set(TL_ERR_RUNTIME, "%s: B must have at least 2 dimensions", fn);
  int64_t n = lu->shape[lu->ndim - 1];
  if (pivots->dtype != TL_DTYPE_I32 || pivots->ndim != lu->ndim - 1 ||
      pivots->shape[pivots->ndim - 1] != n)
    return tl_error_set(TL_ERR_RUNTIME, "%s: expected int32 pivots of shape [..., %lld], got %s "
                        "of shape %s", fn, (long long)n, tl_dtype_names[pivots->dtype],
                        tl_shape_str(s1, sizeof s1, pivots->ndim, pivots->shape));
  /* left=False: X A = B  <=>  A^T X^T = B^T (adjoint: A X^H = B^H) */
  tl_tensor vb = *b;
  p->trans = adjoint ? (tl_dtype_is_complex(lu->dtype) ? 'C' : 'T') : 'N';
  if (!left) {
    tl_lapack_swap_last(&vb);
    p->trans = adjoint ? 'N' : 'T';
  }
  int64_t k = vb.shape[vb.ndim - 1];
  if (vb.shape[vb.ndim - 2] != n)
    return tl_error_set(TL_ERR_RUNTIME, "%s: Incompatible shapes of A and B for the equation %s "
                        "(%s and %s)", fn, left ? "AX = B" : "XA = B",
                        tl_shape_str(s1, sizeof s1, lu->ndim, lu->shape),
                        tl_shape_str(s2, sizeof s2, b->ndim, b->shape));
  int nb;
  int64_t bshape[TL_MAX_DIMS];
  if (tl_shape_broadcast(lu->ndim - 2, lu->shape, vb.ndim - 2, vb.shape, &nb, bshape) != TL_OK)
    return tl_error_status();
  tl_dtype d = tl_linalg_float_dtype(tl_promote_types(lu->dtype, b->dtype));
  p->n = n;
  p->k = k;
  p->count = tl_lapack_batch_count(nb, bshape);
  p->conj_rhs = !left && adjoint && tl_dtype_is_complex(d);
  return tl_lapack_pack_factor_solve(f, piv, x, lu, pivots, &vb, d, nb, bshape);
}

tl_status tl_lapack_pack_factor_solve(tl_tensor *f, tl_tensor *piv, tl_tensor *x,
                                      const tl_tensor *factor, const tl_tensor *pivots,
                                      const tl_tensor *b, tl_dtype d, int nb,
                                      const int64_t *bshape)
{
  tl_status st;
  tl_tensor pv = *pivots;
  pv.shape[pv.ndim] = 1; /* as [..., n, 1] so it broadcasts like a matrix */
  pv.strides[pv.ndim] = 1;
  pv.ndim++;
  if ((st = tl_lapack_colmajor_copy(f, factor, d, nb, bshape)) != TL_OK ||
      (st = tl_lapack_colmajor_copy(piv, &pv, TL_DTYPE_I32, nb, bshape)) != TL_OK ||
      (st = tl_lapack_colmajor_copy(x, b, d, nb, bshape)) != TL_OK) {
    if (f->storage)
      tl_tensor_release(f);
    if (piv->storage)
      tl_tensor_release(piv);
  }
  return st;
}

tl_status tl_cpu_linalg_lu_solve(tl_tensor *x, const tl_tensor *lu, const tl_tensor *pivots,
                                 const tl_tensor *b, bool left, bool adjoint)
{
  const char *fn = "linalg.lu_solve";
  tl_tensor f = {0}, piv = {0};
  tl_lapack_lu_solve p;
  tl_status st = TL_OK;
  if (tl_lapack_lu_solve_setup(&p, &f, &piv, x, lu, pivots, b, left, adjoint) != TL_OK)
    return tl_error_status();
  const int64_t n = p.n, k = p.k;
  const tl_dtype d = f.dtype;
  if (p.conj_rhs)
    tl_lapack_conj(x);
  tl_unlocked unlocked = tl_lapack_unlock(p.count, n, k);
  for (int64_t i = 0; i < p.count && n > 0 && k > 0; i++) {
    const int *ip = (const int *)tl_tensor_data(&piv) + i * n;
    for (int64_t j = 0; j < n; j++)
      if (ip[j] < 1 || ip[j] > n) {
        tl_tensor_release(x);
        st = tl_error_set(TL_ERR_RUNTIME, "%s: pivot %d out of range [1, %lld]", fn, ip[j],
                          (long long)n);
        goto done;
      }
    tl_lapack_getrs(d, p.trans, (int)n, (int)k, tl_lapack_matrix_at(&f, i, n, n), (int)n, ip,
                    tl_lapack_matrix_at(x, i, n, k), (int)n);
  }
  if (p.conj_rhs)
    tl_lapack_conj(x);
  if (!left)
    tl_lapack_swap_last(x);
done:
  tl_parallel_relock(&unlocked);
  tl_tensor_release(&f);
  tl_tensor_release(&piv);
  return st;
}

tl_status tl_lapack_triangular_setup(tl_tensor *f, tl_tensor *x, const tl_tensor *a,
                                     const tl_tensor *b, bool left, int64_t *count)
{
  const char *fn = "linalg.solve_triangular";
  char s1[128], s2[128];
  tl_status st;
  if ((st = tl_lapack_check_matrix(fn, a, true)) != TL_OK)
    return st;
  if (b->ndim < 2)
    return tl_error_set(TL_ERR_RUNTIME, "%s: The input tensor B must have at least 2 dimensions.",
                        fn);
  int64_t n = a->shape[a->ndim - 1], m = b->shape[b->ndim - 2], k = b->shape[b->ndim - 1];
  if ((left ? m : k) != n)
    return tl_error_set(TL_ERR_RUNTIME, "%s: Incompatible shapes of A and B for the equation %s "
                        "(%s and %s)", fn, left ? "AX = B" : "XA = B",
                        tl_shape_str(s1, sizeof s1, a->ndim, a->shape),
                        tl_shape_str(s2, sizeof s2, b->ndim, b->shape));
  if (m > INT32_MAX || k > INT32_MAX)
    return tl_error_set(TL_ERR_VALUE, "%s: B is too large for BLAS", fn);
  int nb;
  int64_t bshape[TL_MAX_DIMS];
  if (tl_shape_broadcast(a->ndim - 2, a->shape, b->ndim - 2, b->shape, &nb, bshape) != TL_OK)
    return tl_error_status();
  tl_dtype d = tl_linalg_float_dtype(tl_promote_types(a->dtype, b->dtype));
  *count = tl_lapack_batch_count(nb, bshape);
  if ((st = tl_lapack_colmajor_copy(f, a, d, nb, bshape)) != TL_OK)
    return st;
  if ((st = tl_lapack_colmajor_copy(x, b, d, nb, bshape)) != TL_OK)
    tl_tensor_release(f);
  return st;
}

tl_status tl_cpu_linalg_solve_triangular(tl_tensor *x, const tl_tensor *a, const tl_tensor *b,
                                         bool upper, bool left, bool unitriangular)
{
  tl_tensor f = {0};
  int64_t count;
  if (tl_lapack_triangular_setup(&f, x, a, b, left, &count) != TL_OK)
    return tl_error_status();
  const tl_dtype d = f.dtype;
  const int64_t n = f.shape[f.ndim - 1], m = x->shape[x->ndim - 2], k = x->shape[x->ndim - 1];
  const CBLAS_SIDE side = left ? CblasLeft : CblasRight;
  const CBLAS_UPLO uplo = upper ? CblasUpper : CblasLower;
  const CBLAS_DIAG diag = unitriangular ? CblasUnit : CblasNonUnit;
  const int M = (int)m, N = (int)k, lda = (int)(n > 0 ? n : 1), ldb = (int)(m > 0 ? m : 1);
  tl_unlocked unlocked = tl_lapack_unlock(count, m, k);
  for (int64_t i = 0; i < count && m > 0 && k > 0; i++) {
    void *am = tl_lapack_matrix_at(&f, i, n, n), *bm = tl_lapack_matrix_at(x, i, m, k);
    switch (d) {
    case TL_DTYPE_F32:
      TL_BLAS(cblas_strsm)(CblasColMajor, side, uplo, CblasNoTrans, diag, M, N, 1.0f, am, lda, bm, ldb);
      break;
    case TL_DTYPE_F64:
      TL_BLAS(cblas_dtrsm)(CblasColMajor, side, uplo, CblasNoTrans, diag, M, N, 1.0, am, lda, bm, ldb);
      break;
    case TL_DTYPE_C64: {
      const float complex one = 1;
      TL_BLAS(cblas_ctrsm)(CblasColMajor, side, uplo, CblasNoTrans, diag, M, N, &one, am, lda, bm, ldb);
      break;
    }
    default: {
      const double complex one = 1;
      TL_BLAS(cblas_ztrsm)(CblasColMajor, side, uplo, CblasNoTrans, diag, M, N, &one, am, lda, bm, ldb);
      break;
    }
    }
  }
  tl_parallel_relock(&unlocked);
  tl_tensor_release(&f);
  return TL_OK;
}
