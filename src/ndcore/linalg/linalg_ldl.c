/* linalg_ldl.c - the Bunch-Kaufman LDL factorization of symmetric (or
 * Hermitian) matrices and its solve: LAPACK's sytrf/hetrf and sytrs/hetrs on
 * the lower triangle, as torch.linalg.ldl_factor_ex and ldl_solve.
 *
 * Legend: A [B..., n, n]; LD packed column-major [B..., n, n] (L's unit lower
 * part below the diagonal, D's 1x1 and 2x2 blocks on and just below it, the
 * strict upper triangle zeroed as PyTorch returns it); pivots int32
 * [B..., n], LAPACK's: pivots[k] = p > 0, a 1x1 block with rows k and p
 * interchanged; pivots[k] = pivots[k + 1] = -p < 0, a 2x2 block with rows
 * k + 1 and p interchanged (1-based).  hermitian picks hetrf/hetrs for
 * complex dtypes (real ones are the same either way).
 *
 * Only the CPU has these kernels (register.c serves them from a set of their
 * own; docs/gpu.md lists them); the meta device allocates their outputs
 * with the same checks (dispatch/meta.c).                                   */
#include <stdlib.h>

#include "ndcore/linalg/tl_blas.h"
#include "ndcore/linalg/tl_lapack.h"
#include "ndcore/linalg/tl_linalg.h"

/* sytrf / hetrf on dtype d; lwork = -1 is LAPACK's workspace query (the
 * size lands in work[0]).  Returns LAPACK's info. */
static int lp_sytrf(tl_dtype d, bool herm, int n, void *a, int *ipiv, void *work, int lwork)
{
  int info = 0;
  const char lo = 'L';
  switch (d) {
  case TL_DTYPE_F32: TL_BLAS(ssytrf_)(&lo, &n, a, &n, ipiv, work, &lwork, &info, 1); break;
  case TL_DTYPE_F64: TL_BLAS(dsytrf_)(&lo, &n, a, &n, ipiv, work, &lwork, &info, 1); break;
  case TL_DTYPE_C64:
    if (herm)
      TL_BLAS(chetrf_)(&lo, &n, a, &n, ipiv, work, &lwork, &info, 1);
    else
      TL_BLAS(csytrf_)(&lo, &n, a, &n, ipiv, work, &lwork, &info, 1);
    break;
  default:
    if (herm)
      TL_BLAS(zhetrf_)(&lo, &n, a, &n, ipiv, work, &lwork, &info, 1);
    else
      TL_BLAS(zsytrf_)(&lo, &n, a, &n, ipiv, work, &lwork, &info, 1);
    break;
  }
  return info;
}

static void lp_sytrs(tl_dtype d, bool herm, int n, int nrhs, const void *a, const int *ipiv,
                     void *b)
{
  int info = 0;
  const char lo = 'L';
  switch (d) {
  case TL_DTYPE_F32: TL_BLAS(ssytrs_)(&lo, &n, &nrhs, a, &n, ipiv, b, &n, &info, 1); break;
  case TL_DTYPE_F64: TL_BLAS(dsytrs_)(&lo, &n, &nrhs, a, &n, ipiv, b, &n, &info, 1); break;
  case TL_DTYPE_C64:
    if (herm)
      TL_BLAS(chetrs_)(&lo, &n, &nrhs, a, &n, ipiv, b, &n, &info, 1);
    else
      TL_BLAS(csytrs_)(&lo, &n, &nrhs, a, &n, ipiv, b, &n, &info, 1);
    break;
  default:
    if (herm)
      TL_BLAS(zhetrs_)(&lo, &n, &nrhs, a, &n, ipiv, b, &n, &info, 1);
    else
      TL_BLAS(zsytrs_)(&lo, &n, &nrhs, a, &n, ipiv, b, &n, &info, 1);
    break;
  }
}

/* The workspace sytrf asks for, in elements of d (at least one). */
static int sytrf_lwork(tl_dtype d, bool herm, int n, void *a, int *ipiv)
{
  double query[2] = {0, 0}; /* room for one complex double */
  lp_sytrf(d, herm, n, a, ipiv, query, -1);
  return tl_lapack_work_size(d, query);
}

tl_status tl_cpu_linalg_ldl_factor_ex(tl_tensor *ld, tl_tensor *pivots, tl_tensor *info,
                                      const tl_tensor *a, bool hermitian)
{
  const char *fn = "torch.linalg.ldl_factor_ex";
  tl_status st;
  void *work = NULL;
  tl_unlocked unlocked = {0};
  if ((st = tl_lapack_check_matrix(fn, a, true)) != TL_OK)
    return st;
  const int nb = a->ndim - 2;
  const int64_t n = a->shape[nb];
  const int64_t count = tl_lapack_batch_count(nb, a->shape);
  const tl_device dev = tl_tensor_device(a);
  const tl_dtype d = tl_linalg_float_dtype(a->dtype);
  const size_t size = tl_dtype_size(d);
  const bool herm = hermitian && tl_dtype_is_complex(d);
  if ((st = tl_lapack_colmajor_copy(ld, a, d, nb, a->shape)) != TL_OK)
    return st;
  if ((st = tl_lapack_empty(pivots, dev, TL_DTYPE_I32, nb, a->shape, 1, &n)) != TL_OK ||
      (st = tl_lapack_empty(info, dev, TL_DTYPE_I32, nb, a->shape, 0, NULL)) != TL_OK)
    goto fail;
  int32_t *inf = (int32_t *)tl_tensor_data(info);
  tl_lapack_zero(inf, sizeof(int32_t) * (size_t)count);
  if (n == 0 || count == 0)
    return TL_OK;
  int *piv = (int *)tl_tensor_data(pivots);
  const int lwork = sytrf_lwork(d, herm, (int)n, tl_lapack_matrix_at(ld, 0, n, n), piv);
  if (!(work = malloc(size * (size_t)lwork))) {
    st = tl_error_set(TL_ERR_MEMORY, "%s: out of memory", fn);
    goto fail;
  }
  unlocked = tl_lapack_unlock(count, n, n);
  for (int64_t i = 0; i < count; i++) {
    char *m = tl_lapack_matrix_at(ld, i, n, n);
    inf[i] = lp_sytrf(d, herm, (int)n, m, piv + i * n, work, lwork);
    for (int64_t c = 1; c < n; c++) /* column c's rows above the diagonal */
      tl_lapack_zero(m + (size_t)(c * n) * size, size * (size_t)c);
  }
  tl_parallel_relock(&unlocked);
  free(work);
  return TL_OK;
fail:
  free(work);
  tl_lapack_lu_factor_release(ld, pivots, info); /* the same three outputs as lu's */
  return st;
}

/* ldl_solve's argument checks on every device: LD square, B [B..., n, k]
 * with batch dims broadcasting against LD's, pivots int32 of LD's shape
 * but the last; *nb and bshape the broadcast batch, *d the dtype solved in. */
tl_status tl_lapack_ldl_solve_check(const tl_tensor *ld, const tl_tensor *pivots,
                                    const tl_tensor *b, int *nb, int64_t *bshape, tl_dtype *d)
{
  const char *fn = "torch.linalg.ldl_solve";
  char s1[128];
  if (tl_lapack_check_matrix(fn, ld, true) != TL_OK)
    return tl_error_status();
  const int64_t n = ld->shape[ld->ndim - 1];
  if (b->ndim < 2)
    return tl_error_set(TL_ERR_RUNTIME, "%s: The input tensor B must have at least 2 "
                        "dimensions.", fn);
  if (b->shape[b->ndim - 2] != n)
    return tl_error_set(TL_ERR_RUNTIME, "Incompatible matrix sizes for %s: each A matrix is %lld "
                        "by %lld but each b matrix is %lld by %lld", fn, (long long)n,
                        (long long)n, (long long)b->shape[b->ndim - 2],
                        (long long)b->shape[b->ndim - 1]);
  bool same = pivots->dtype == TL_DTYPE_I32 && pivots->ndim == ld->ndim - 1;
  for (int dim = 0; same && dim < pivots->ndim; dim++)
    same = pivots->shape[dim] == ld->shape[dim];
  if (!same)
    return tl_error_set(TL_ERR_RUNTIME, "%s: Expected LD.shape[:-1] and pivots.shape to be the "
                        "same, but got pivots with shape %s instead", fn,
                        tl_shape_str(s1, sizeof s1, pivots->ndim, pivots->shape));
  if (tl_shape_broadcast(ld->ndim - 2, ld->shape, b->ndim - 2, b->shape, nb, bshape) != TL_OK)
    return tl_error_status();
  *d = tl_linalg_float_dtype(tl_promote_types(ld->dtype, b->dtype));
  return TL_OK;
}

tl_status tl_cpu_linalg_ldl_solve(tl_tensor *x, const tl_tensor *ld, const tl_tensor *pivots,
                                  const tl_tensor *b, bool hermitian)
{
  tl_status st;
  tl_tensor f = {0}, piv = {0};
  tl_unlocked unlocked = {0};
  int nb;
  int64_t bshape[TL_MAX_DIMS];
  tl_dtype d;
  if ((st = tl_lapack_ldl_solve_check(ld, pivots, b, &nb, bshape, &d)) != TL_OK)
    return st;
  const int64_t n = ld->shape[ld->ndim - 1];
  const bool herm = hermitian && tl_dtype_is_complex(d);
  const int64_t k = b->shape[b->ndim - 1];
  const int64_t count = tl_lapack_batch_count(nb, bshape);
  if ((st = tl_lapack_pack_factor_solve(&f, &piv, x, ld, pivots, b, d, nb, bshape)) != TL_OK)
    return st;
  const int *ip = (const int *)tl_tensor_data(&piv);
  for (int64_t j = 0; j < count * n; j++)
    if (ip[j] == 0 || ip[j] > n || ip[j] < -n) {
      tl_tensor_release(x);
      st = tl_error_set(TL_ERR_RUNTIME, "Pivots given to ldl_solve must all satisfy |pivot| <= "
                        "LD.size(-2). Did you properly pass the result of ldl_factor?");
      goto done;
    }
  unlocked = tl_lapack_unlock(count, n, k);
  for (int64_t i = 0; i < count && n > 0 && k > 0; i++)
    lp_sytrs(d, herm, (int)n, (int)k, tl_lapack_matrix_at(&f, i, n, n), ip + i * n,
             tl_lapack_matrix_at(x, i, n, k));
  tl_parallel_relock(&unlocked);
done:
  if (f.storage)
    tl_tensor_release(&f);
  if (piv.storage)
    tl_tensor_release(&piv);
  return st;
}
