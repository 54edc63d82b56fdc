/* entries.c - the device-neutral entry points of the families with their own
 * signatures (tl_kernel_sets.h).  Each one finds the kernel set for its
 * operands' device and dtype through tl_dispatch_kernel(), which raises
 * PyTorch's error for tensors on two devices and NotImplementedError for a
 * device or dtype with no kernel, and calls the set's member.  Nothing here
 * reads tensor data.                                                      */
#include <string.h>

#include "ndcore/dispatch/tl_kernel_sets.h"

/* The registry op of this name (the index entry points that serve several
 * ops are told which by name), or `fallback`. */
static tl_op op_named(const char *name, tl_op fallback)
{
  for (int op = 0; name && op < TL_OP_COUNT; op++)
    if (!strcmp(tl_op_infos[op].name, name))
      return (tl_op)op;
  return fallback;
}

/* ---- reduce -------------------------------------------------------------------- */

/* A float8 input with dtype= given (x.sum(dtype=torch.float32)) is reduced
 * as that dtype, which PyTorch runs; without it, the reductions refuse
 * float8 (docs/dtypes.md). */
static bool float8_as(const tl_tensor *in, int dtype, tl_tensor *wide)
{
  if (!tl_dtype_is_float8(in->dtype) || dtype < 0 || tl_dtype_is_float8((tl_dtype)dtype))
    return false;
  return tl_tensor_to_dtype(wide, in, (tl_dtype)dtype) == TL_OK;
}

tl_status tl_op_reduce(tl_op op, const tl_tensor *in, const tl_reduce_args *a, tl_tensor *out,
                       tl_tensor *indices)
{
  tl_tensor wide;
  /* dtype= is read in the passes' loops, not cast first (scans cast first,
   * tl_tensor_to_dtype, which tells) */
  if (a->dtype >= 0 && tl_dtype_check_discard(in->dtype, (tl_dtype)a->dtype) != TL_OK)
    return TL_ERR_RAISED;
  if (float8_as(in, a->dtype, &wide)) {
    tl_status s = tl_op_reduce(op, &wide, a, out, indices);
    tl_tensor_release(&wide);
    return s;
  }
  const tl_tensor *devs[] = {in};
  const tl_reduce_kernels *set = tl_dispatch_kernel(op, in->dtype, 1, devs);
  return set ? set->op_reduce(op, in, a, out, indices) : tl_error_status();
}

tl_status tl_op_scan(tl_op op, const tl_tensor *in, int dim, int dtype, tl_tensor *out)
{
  tl_tensor wide;
  if (float8_as(in, dtype, &wide)) {
    tl_status s = tl_op_scan(op, &wide, dim, dtype, out);
    tl_tensor_release(&wide);
    return s;
  }
  const tl_tensor *devs[] = {in};
  const tl_reduce_kernels *set = tl_dispatch_kernel(op, in->dtype, 1, devs);
  return set ? set->op_scan(op, in, dim, dtype, out) : tl_error_status();
}

/* ---- sort ---------------------------------------------------------------------- */

tl_status tl_sort(const tl_tensor *in, int64_t dim, bool descending, bool stable, tl_tensor *values,
                  tl_tensor *indices)
{
  const tl_tensor *devs[] = {in};
  const tl_sort_kernels *set = tl_dispatch_kernel(TL_OP_SORT, in->dtype, 1, devs);
  return set ? set->sort(in, dim, descending, stable, values, indices) : tl_error_status();
}

tl_status tl_topk(const tl_tensor *in, int64_t k, int64_t dim, bool largest, tl_tensor *values,
                  tl_tensor *indices)
{
  const tl_tensor *devs[] = {in};
  const tl_sort_kernels *set = tl_dispatch_kernel(TL_OP_TOPK, in->dtype, 1, devs);
  return set ? set->topk(in, k, dim, largest, values, indices) : tl_error_status();
}

tl_status tl_kthvalue(const tl_tensor *in, int64_t k, int64_t dim, bool keepdim, tl_tensor *values,
                      tl_tensor *indices)
{
  const tl_tensor *devs[] = {in};
  const tl_sort_kernels *set = tl_dispatch_kernel(TL_OP_KTHVALUE, in->dtype, 1, devs);
  return set ? set->kthvalue(in, k, dim, keepdim, values, indices) : tl_error_status();
}

tl_status tl_median_all(const tl_tensor *in, bool ignore_nan, tl_tensor *out)
{
  const tl_tensor *devs[] = {in};
  const tl_sort_kernels *set = tl_dispatch_kernel(TL_OP_MEDIAN, in->dtype, 1, devs);
  return set ? set->median_all(in, ignore_nan, out) : tl_error_status();
}

tl_status tl_median_dim(const tl_tensor *in, int64_t dim, bool keepdim, bool ignore_nan,
                        tl_tensor *values, tl_tensor *indices)
{
  const tl_tensor *devs[] = {in};
  const tl_sort_kernels *set = tl_dispatch_kernel(TL_OP_MEDIAN, in->dtype, 1, devs);
  return set ? set->median_dim(in, dim, keepdim, ignore_nan, values, indices) : tl_error_status();
}

tl_status tl_quantile(const tl_tensor *in, const double *q, int64_t nq, bool q_scalar,
                      bool all_dims, int64_t dim, bool keepdim, tl_quantile_method method,
                      bool ignore_nan, tl_tensor *out)
{
  const tl_tensor *devs[] = {in};
  const tl_sort_kernels *set = tl_dispatch_kernel(TL_OP_QUANTILE, in->dtype, 1, devs);
  return set ? set->quantile(in, q, nq, q_scalar, all_dims, dim, keepdim, method, ignore_nan, out)
             : tl_error_status();
}

tl_status tl_mode(const tl_tensor *in, int64_t dim, bool keepdim, tl_tensor *values,
                  tl_tensor *indices)
{
  const tl_tensor *devs[] = {in};
  const tl_sort_kernels *set = tl_dispatch_kernel(TL_OP_MODE, in->dtype, 1, devs);
  return set ? set->mode(in, dim, keepdim, values, indices) : tl_error_status();
}

tl_status tl_cummax(const tl_tensor *in, int64_t dim, bool is_min, tl_tensor *values,
                    tl_tensor *indices)
{
  const tl_tensor *devs[] = {in};
  const tl_sort_kernels *set = tl_dispatch_kernel(TL_OP_CUMMAX, in->dtype, 1, devs);
  return set ? set->cummax(in, dim, is_min, values, indices) : tl_error_status();
}

tl_status tl_unique(const tl_tensor *in, bool consecutive, tl_tensor *out, tl_tensor *inverse,
                    tl_tensor *counts)
{
  const tl_tensor *devs[] = {in};
  const tl_sort_kernels *set = tl_dispatch_kernel(TL_OP_UNIQUE, in->dtype, 1, devs);
  return set ? set->unique(in, consecutive, out, inverse, counts) : tl_error_status();
}

tl_status tl_unique_dim(const tl_tensor *in, int64_t dim, bool consecutive, tl_tensor *out,
                        tl_tensor *inverse, tl_tensor *counts)
{
  const tl_tensor *devs[] = {in};
  const tl_sort_kernels *set = tl_dispatch_kernel(TL_OP_UNIQUE, in->dtype, 1, devs);
  return set ? set->unique_dim(in, dim, consecutive, out, inverse, counts) : tl_error_status();
}

tl_status tl_searchsorted(const tl_tensor *seq, const tl_tensor *values, bool right,
                          const tl_tensor *sorter, bool out_int32, tl_tensor *out)
{
  const tl_tensor *devs[] = {seq, values, sorter};
  const tl_sort_kernels *set = tl_dispatch_kernel(TL_OP_SEARCHSORTED, seq->dtype, 3, devs);
  return set ? set->searchsorted(seq, values, right, sorter, out_int32, out) : tl_error_status();
}

tl_status tl_bincount(const tl_tensor *in, const tl_tensor *weights, int64_t minlength,
                      tl_tensor *out)
{
  const tl_tensor *devs[] = {in, weights};
  const tl_sort_kernels *set = tl_dispatch_kernel(TL_OP_BINCOUNT, in->dtype, 2, devs);
  return set ? set->bincount(in, weights, minlength, out) : tl_error_status();
}

tl_status tl_histc(const tl_tensor *in, int64_t bins, double min, double max, tl_tensor *out)
{
  const tl_tensor *devs[] = {in};
  const tl_sort_kernels *set = tl_dispatch_kernel(TL_OP_HISTC, in->dtype, 1, devs);
  return set ? set->histc(in, bins, min, max, out) : tl_error_status();
}

/* ---- index --------------------------------------------------------------------- */

tl_status tl_index_get(tl_tensor *out, const tl_tensor *self, int n, const tl_index_item *items,
                       bool *is_view)
{
  const tl_tensor *devs[] = {self};
  const tl_index_kernels *set = tl_dispatch_kernel(TL_OP_INDEX_GET, self->dtype, 1, devs);
  return set ? set->index_get(out, self, n, items, is_view) : tl_error_status();
}

tl_status tl_index_put(tl_tensor *self, int n, const tl_index_item *items, const tl_tensor *value,
                       bool accumulate)
{
  const tl_tensor *devs[] = {self, value};
  const tl_index_kernels *set = tl_dispatch_kernel(TL_OP_INDEX_PUT, self->dtype, 2, devs);
  return set ? set->index_put(self, n, items, value, accumulate) : tl_error_status();
}

tl_status tl_index_nonzero(tl_tensor *out, const tl_tensor *in)
{
  const tl_tensor *devs[] = {in};
  const tl_index_kernels *set = tl_dispatch_kernel(TL_OP_NONZERO, in->dtype, 1, devs);
  return set ? set->index_nonzero(out, in) : tl_error_status();
}

tl_status tl_index_gather(tl_tensor *out, const tl_tensor *in, int64_t dim, const tl_tensor *index)
{
  const tl_tensor *devs[] = {in, index};
  const tl_index_kernels *set = tl_dispatch_kernel(TL_OP_GATHER, in->dtype, 2, devs);
  return set ? set->index_gather(out, in, dim, index) : tl_error_status();
}

tl_status tl_index_scatter(const char *op, tl_tensor *self, int64_t dim, const tl_tensor *index,
                           const tl_tensor *src, tl_index_reduce reduce, bool include_self)
{
  const tl_tensor *devs[] = {self, index, src};
  const tl_index_kernels *set =
      tl_dispatch_kernel(op_named(op, TL_OP_SCATTER), self->dtype, 3, devs);
  return set ? set->index_scatter(op, self, dim, index, src, reduce, include_self)
             : tl_error_status();
}

tl_status tl_index_select(tl_tensor *out, const tl_tensor *in, int64_t dim, const tl_tensor *index)
{
  const tl_tensor *devs[] = {in, index};
  const tl_index_kernels *set = tl_dispatch_kernel(TL_OP_INDEX_SELECT, in->dtype, 2, devs);
  return set ? set->index_select(out, in, dim, index) : tl_error_status();
}

tl_status tl_index_put_along(const char *op, tl_tensor *self, int64_t dim, const tl_tensor *index,
                             const tl_tensor *src, tl_index_reduce reduce)
{
  const tl_tensor *devs[] = {self, index, src};
  const tl_index_kernels *set =
      tl_dispatch_kernel(op_named(op, TL_OP_INDEX_ADD), self->dtype, 3, devs);
  return set ? set->index_put_along(op, self, dim, index, src, reduce) : tl_error_status();
}

tl_status tl_index_take(tl_tensor *out, const tl_tensor *in, const tl_tensor *index)
{
  const tl_tensor *devs[] = {in, index};
  const tl_index_kernels *set = tl_dispatch_kernel(TL_OP_TAKE, in->dtype, 2, devs);
  return set ? set->index_take(out, in, index) : tl_error_status();
}

tl_status tl_index_put_flat(tl_tensor *self, const tl_tensor *index, const tl_tensor *src,
                            bool accumulate)
{
  const tl_tensor *devs[] = {self, index, src};
  const tl_index_kernels *set = tl_dispatch_kernel(TL_OP_PUT, self->dtype, 3, devs);
  return set ? set->index_put_flat(self, index, src, accumulate) : tl_error_status();
}

tl_status tl_index_take_along_dim(tl_tensor *out, const tl_tensor *in, const tl_tensor *index,
                                  int64_t dim, bool has_dim)
{
  const tl_tensor *devs[] = {in, index};
  const tl_index_kernels *set = tl_dispatch_kernel(TL_OP_TAKE_ALONG_DIM, in->dtype, 2, devs);
  return set ? set->index_take_along_dim(out, in, index, dim, has_dim) : tl_error_status();
}

tl_status tl_index_masked_fill(tl_tensor *self, const tl_tensor *mask, const tl_tensor *value)
{
  const tl_tensor *devs[] = {self, mask, value};
  const tl_index_kernels *set = tl_dispatch_kernel(TL_OP_MASKED_FILL, self->dtype, 3, devs);
  return set ? set->index_masked_fill(self, mask, value) : tl_error_status();
}

tl_status tl_index_masked_scatter(tl_tensor *self, const tl_tensor *mask, const tl_tensor *src)
{
  const tl_tensor *devs[] = {self, mask, src};
  const tl_index_kernels *set = tl_dispatch_kernel(TL_OP_MASKED_SCATTER, self->dtype, 3, devs);
  return set ? set->index_masked_scatter(self, mask, src) : tl_error_status();
}

tl_status tl_index_masked_select(tl_tensor *out, const tl_tensor *in, const tl_tensor *mask)
{
  const tl_tensor *devs[] = {in, mask};
  const tl_index_kernels *set = tl_dispatch_kernel(TL_OP_MASKED_SELECT, in->dtype, 2, devs);
  return set ? set->index_masked_select(out, in, mask) : tl_error_status();
}

/* ---- linalg -------------------------------------------------------------------- */

tl_status tl_linalg_gemm(tl_tensor *out, const tl_tensor *a, const tl_tensor *b, tl_scalar alpha,
                         tl_scalar beta, bool reduce_batch)
{
  const tl_tensor *devs[] = {out, a, b};
  const tl_linalg_kernels *set = tl_dispatch_kernel(TL_OP_MM, a->dtype, 3, devs);
  return set ? set->linalg_gemm(out, a, b, alpha, beta, reduce_batch) : tl_error_status();
}

tl_status tl_linalg_solve_ex(tl_tensor *x, tl_tensor *info, const tl_tensor *a, const tl_tensor *b,
                             bool left)
{
  const tl_tensor *devs[] = {a, b};
  const tl_linalg_kernels *set = tl_dispatch_kernel(TL_OP_SOLVE, a->dtype, 2, devs);
  return set ? set->linalg_solve_ex(x, info, a, b, left) : tl_error_status();
}

tl_status tl_linalg_inv_ex(tl_tensor *out, tl_tensor *info, const tl_tensor *a)
{
  const tl_tensor *devs[] = {a};
  const tl_linalg_kernels *set = tl_dispatch_kernel(TL_OP_INV, a->dtype, 1, devs);
  return set ? set->linalg_inv_ex(out, info, a) : tl_error_status();
}

tl_status tl_linalg_cholesky_ex(tl_tensor *out, tl_tensor *info, const tl_tensor *a, bool upper)
{
  const tl_tensor *devs[] = {a};
  const tl_linalg_kernels *set = tl_dispatch_kernel(TL_OP_CHOLESKY, a->dtype, 1, devs);
  return set ? set->linalg_cholesky_ex(out, info, a, upper) : tl_error_status();
}

tl_status tl_linalg_det(tl_tensor *out, const tl_tensor *a)
{
  const tl_tensor *devs[] = {a};
  const tl_linalg_kernels *set = tl_dispatch_kernel(TL_OP_DET, a->dtype, 1, devs);
  return set ? set->linalg_det(out, a) : tl_error_status();
}

tl_status tl_linalg_slogdet(tl_tensor *sign, tl_tensor *logabsdet, const tl_tensor *a)
{
  const tl_tensor *devs[] = {a};
  const tl_linalg_kernels *set = tl_dispatch_kernel(TL_OP_SLOGDET, a->dtype, 1, devs);
  return set ? set->linalg_slogdet(sign, logabsdet, a) : tl_error_status();
}

tl_status tl_linalg_logdet(tl_tensor *out, const tl_tensor *a)
{
  const tl_tensor *devs[] = {a};
  const tl_linalg_kernels *set = tl_dispatch_kernel(TL_OP_LOGDET, a->dtype, 1, devs);
  return set ? set->linalg_logdet(out, a) : tl_error_status();
}

tl_status tl_linalg_qr(tl_tensor *q, tl_tensor *r, const tl_tensor *a, char mode)
{
  const tl_tensor *devs[] = {a};
  const tl_linalg_kernels *set = tl_dispatch_kernel(TL_OP_QR, a->dtype, 1, devs);
  return set ? set->linalg_qr(q, r, a, mode) : tl_error_status();
}

tl_status tl_linalg_geqrf(tl_tensor *a_out, tl_tensor *tau, const tl_tensor *a)
{
  const tl_tensor *devs[] = {a};
  const tl_linalg_kernels *set = tl_dispatch_kernel(TL_OP_GEQRF, a->dtype, 1, devs);
  return set ? set->linalg_qr(a_out, tau, a, 'g') : tl_error_status();
}

tl_status tl_linalg_svd(tl_tensor *u, tl_tensor *s, tl_tensor *vh, const tl_tensor *a,
                        bool full_matrices, bool compute_uv)
{
  const tl_tensor *devs[] = {a};
  const tl_linalg_kernels *set = tl_dispatch_kernel(TL_OP_SVD, a->dtype, 1, devs);
  return set ? set->linalg_svd(u, s, vh, a, full_matrices, compute_uv) : tl_error_status();
}

tl_status tl_linalg_eigh(tl_tensor *w, tl_tensor *v, const tl_tensor *a, bool upper, bool compute_v)
{
  const tl_tensor *devs[] = {a};
  const tl_linalg_kernels *set = tl_dispatch_kernel(TL_OP_EIGH, a->dtype, 1, devs);
  return set ? set->linalg_eigh(w, v, a, upper, compute_v) : tl_error_status();
}

tl_status tl_linalg_eig(tl_tensor *w, tl_tensor *v, const tl_tensor *a, bool compute_v)
{
  const tl_tensor *devs[] = {a};
  const tl_linalg_kernels *set = tl_dispatch_kernel(TL_OP_EIG, a->dtype, 1, devs);
  return set ? set->linalg_eig(w, v, a, compute_v) : tl_error_status();
}

tl_status tl_linalg_lu_factor_ex(tl_tensor *lu, tl_tensor *pivots, tl_tensor *info,
                                 const tl_tensor *a)
{
  const tl_tensor *devs[] = {a};
  const tl_linalg_kernels *set = tl_dispatch_kernel(TL_OP_LU_FACTOR, a->dtype, 1, devs);
  return set ? set->linalg_lu_factor_ex(lu, pivots, info, a) : tl_error_status();
}

tl_status tl_linalg_ldl_factor_ex(tl_tensor *ld, tl_tensor *pivots, tl_tensor *info,
                                  const tl_tensor *a, bool hermitian)
{
  const tl_tensor *devs[] = {a};
  const tl_linalg_kernels *set = tl_dispatch_kernel(TL_OP_LDL_FACTOR, a->dtype, 1, devs);
  return set ? set->linalg_ldl_factor_ex(ld, pivots, info, a, hermitian) : tl_error_status();
}

tl_status tl_linalg_ldl_solve(tl_tensor *x, const tl_tensor *ld, const tl_tensor *pivots,
                              const tl_tensor *b, bool hermitian)
{
  const tl_tensor *devs[] = {ld, pivots, b};
  const tl_linalg_kernels *set = tl_dispatch_kernel(TL_OP_LDL_SOLVE, ld->dtype, 3, devs);
  return set ? set->linalg_ldl_solve(x, ld, pivots, b, hermitian) : tl_error_status();
}

tl_status tl_linalg_lu(tl_tensor *p, tl_tensor *l, tl_tensor *u, const tl_tensor *a)
{
  const tl_tensor *devs[] = {a};
  const tl_linalg_kernels *set = tl_dispatch_kernel(TL_OP_LU, a->dtype, 1, devs);
  return set ? set->linalg_lu(p, l, u, a) : tl_error_status();
}

tl_status tl_linalg_lu_solve(tl_tensor *x, const tl_tensor *lu, const tl_tensor *pivots,
                             const tl_tensor *b, bool left, bool adjoint)
{
  const tl_tensor *devs[] = {lu, pivots, b};
  const tl_linalg_kernels *set = tl_dispatch_kernel(TL_OP_LU_SOLVE, lu->dtype, 3, devs);
  return set ? set->linalg_lu_solve(x, lu, pivots, b, left, adjoint) : tl_error_status();
}

tl_status tl_linalg_solve_triangular(tl_tensor *x, const tl_tensor *a, const tl_tensor *b,
                                     bool upper, bool left, bool unitriangular)
{
  const tl_tensor *devs[] = {a, b};
  const tl_linalg_kernels *set = tl_dispatch_kernel(TL_OP_SOLVE_TRIANGULAR, a->dtype, 2, devs);
  return set ? set->linalg_solve_triangular(x, a, b, upper, left, unitriangular)
             : tl_error_status();
}

tl_status tl_linalg_lstsq(tl_tensor *x, tl_tensor *residuals, tl_tensor *rank, tl_tensor *sv,
                          const tl_tensor *a, const tl_tensor *b, double rcond, const char *driver)
{
  const tl_tensor *devs[] = {a, b};
  const tl_linalg_kernels *set = tl_dispatch_kernel(TL_OP_LSTSQ, a->dtype, 2, devs);
  return set ? set->linalg_lstsq(x, residuals, rank, sv, a, b, rcond, driver) : tl_error_status();
}

tl_status tl_linalg_vector_norm(tl_tensor *out, const tl_tensor *x, double ord, uint64_t mask,
                                bool keepdim, int dtype)
{
  const tl_tensor *devs[] = {x};
  const tl_linalg_kernels *set = tl_dispatch_kernel(TL_OP_VECTOR_NORM, x->dtype, 1, devs);
  return set ? set->linalg_vector_norm(out, x, ord, mask, keepdim, dtype) : tl_error_status();
}

tl_status tl_linalg_cross(tl_tensor *out, const tl_tensor *a, const tl_tensor *b, int64_t dim)
{
  const tl_tensor *devs[] = {a, b};
  const tl_linalg_kernels *set = tl_dispatch_kernel(TL_OP_CROSS, a->dtype, 2, devs);
  return set ? set->linalg_cross(out, a, b, dim) : tl_error_status();
}

/* ---- random -------------------------------------------------------------------- */

/* In-place draws: one op per distribution. */
static tl_op dist_op(const tl_random_dist *d)
{
  static const tl_op ops[] = {
      [TL_RANDOM_UNIFORM] = TL_OP_UNIFORM,         [TL_RANDOM_NORMAL] = TL_OP_NORMAL,
      [TL_RANDOM_INTEGER] = TL_OP_RANDOM_INTEGER,  [TL_RANDOM_BERNOULLI] = TL_OP_BERNOULLI,
      [TL_RANDOM_EXPONENTIAL] = TL_OP_EXPONENTIAL, [TL_RANDOM_CAUCHY] = TL_OP_CAUCHY,
      [TL_RANDOM_LOG_NORMAL] = TL_OP_LOG_NORMAL,   [TL_RANDOM_GEOMETRIC] = TL_OP_GEOMETRIC};
  return ops[d->kind];
}

tl_status tl_random_fill(tl_generator *g, tl_tensor *t, const tl_random_dist *d)
{
  const tl_tensor *devs[] = {t};
  const tl_random_kernels *set = tl_dispatch_kernel(dist_op(d), t->dtype, 1, devs);
  return set ? set->random_fill(g, t, d) : tl_error_status();
}

tl_status tl_random_permutation(tl_generator *g, tl_tensor *out)
{
  const tl_tensor *devs[] = {out};
  const tl_random_kernels *set = tl_dispatch_kernel(TL_OP_RANDPERM, out->dtype, 1, devs);
  return set ? set->random_permutation(g, out) : tl_error_status();
}

tl_status tl_random_poisson(tl_generator *g, const tl_tensor *rates, tl_tensor *out)
{
  const tl_tensor *devs[] = {rates};
  const tl_random_kernels *set = tl_dispatch_kernel(TL_OP_POISSON, rates->dtype, 1, devs);
  return set ? set->random_poisson(g, rates, out) : tl_error_status();
}

tl_status tl_random_multinomial(tl_generator *g, const tl_tensor *probs, int64_t n,
                                bool replacement, tl_tensor *out)
{
  const tl_tensor *devs[] = {probs};
  const tl_random_kernels *set = tl_dispatch_kernel(TL_OP_MULTINOMIAL, probs->dtype, 1, devs);
  return set ? set->random_multinomial(g, probs, n, replacement, out) : tl_error_status();
}

/* *dst = src broadcast to shape, as a contiguous float64 tensor: a view of
 * src when it is one already. */
static tl_status wide_copy(const tl_tensor *src, int ndim, const int64_t *shape, tl_tensor *dst)
{
  if (src->dtype == TL_DTYPE_F64 && src->ndim == ndim && tl_tensor_is_contiguous(src) &&
      !memcmp(src->shape, shape, sizeof(int64_t) * (size_t)ndim)) {
    tl_tensor_view_of(dst, src);
    return TL_OK;
  }
  if (tl_tensor_empty(dst, TL_DTYPE_F64, ndim, shape, tl_tensor_device(src)) != TL_OK)
    return tl_error_status();
  return tl_tensor_copy(dst, src);
}

tl_status tl_random_sample(tl_generator *g, const tl_random_sample_spec *spec, const tl_tensor *a,
                           const tl_tensor *b, tl_dtype dtype, tl_tensor *out)
{
  tl_tensor wa = {0}, wb = {0}, wide = {0};
  int64_t shape[TL_MAX_DIMS];
  int ndim = a->ndim;
  tl_op op = spec->kind == TL_RANDOM_SAMPLE_BINOMIAL ? TL_OP_BINOMIAL : TL_OP_STANDARD_GAMMA;
  const tl_tensor *devs[] = {a, b};
  const tl_random_kernels *set = tl_dispatch_kernel(op, a->dtype, b ? 2 : 1, devs);
  tl_status s = set ? TL_OK : tl_error_status();
  memcpy(shape, a->shape, sizeof(int64_t) * (size_t)a->ndim);
  if (s == TL_OK && b)
    s = tl_shape_broadcast(a->ndim, a->shape, b->ndim, b->shape, &ndim, shape);
  if (s == TL_OK)
    s = wide_copy(a, ndim, shape, &wa);
  if (s == TL_OK && b)
    s = wide_copy(b, ndim, shape, &wb);
  if (s == TL_OK && tl_tensor_empty(&wide, TL_DTYPE_F64, ndim, shape, tl_tensor_device(a)) != TL_OK)
    s = tl_error_status();
  if (s == TL_OK)
    s = set->random_sample(g, spec, &wa, b ? &wb : NULL, &wide);
  if (s == TL_OK && dtype == TL_DTYPE_F64) { /* the draws are the result */
    *out = wide;
    wide = (tl_tensor){0};
  } else if (s == TL_OK) {
    s = tl_tensor_to_dtype(out, &wide, dtype);
  }
  tl_tensor_release(&wa);
  tl_tensor_release(&wb);
  tl_tensor_release(&wide);
  return s;
}

/* ---- create -------------------------------------------------------------------- */

tl_status tl_tensor_fill(tl_tensor *t, tl_scalar value)
{
  const tl_tensor *devs[] = {t};
  const tl_create_kernels *set = tl_dispatch_kernel(TL_OP_FILL, t->dtype, 1, devs);
  return set ? set->tensor_fill(t, value) : tl_error_status();
}

tl_status tl_tensor_arange_fill(tl_tensor *out, tl_scalar start, tl_scalar step)
{
  const tl_tensor *devs[] = {out};
  const tl_create_kernels *set = tl_dispatch_kernel(TL_OP_ARANGE, out->dtype, 1, devs);
  return set ? set->tensor_arange_fill(out, start, step) : tl_error_status();
}

tl_status tl_tensor_linspace_fill(tl_tensor *out, tl_scalar start, tl_scalar end, bool log,
                                  tl_scalar base)
{
  const tl_tensor *devs[] = {out};
  const tl_create_kernels *set = tl_dispatch_kernel(TL_OP_LINSPACE, out->dtype, 1, devs);
  return set ? set->tensor_linspace_fill(out, start, end, log, base) : tl_error_status();
}

tl_status tl_tensor_eye_fill(tl_tensor *out)
{
  const tl_tensor *devs[] = {out};
  const tl_create_kernels *set = tl_dispatch_kernel(TL_OP_EYE, out->dtype, 1, devs);
  return set ? set->tensor_eye_fill(out) : tl_error_status();
}
