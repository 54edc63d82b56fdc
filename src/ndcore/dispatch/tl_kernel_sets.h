/* tl_kernel_sets.h - the kernel sets of the families whose ops have their own
 * signatures (reductions and scans, sort and search, index, linear algebra,
 * random, fill).  A set is a struct of typed function pointers, one per entry
 * point; the kernel table (tl_dispatch.h) holds a pointer to a device's set in
 * the slot of every (op, dtype) the set serves.  The entry point (entries.c)
 * finds the set for its operands' device and dtype and calls its member.  The
 * CPU's kernels are the tl_cpu_* functions below; a backend fills its own set.
 */
#ifndef TL_KERNEL_SETS_H
#define TL_KERNEL_SETS_H

#include "ndcore/dispatch/tl_dispatch.h"
#include "ndcore/kernels/tl_create.h"
#include "ndcore/kernels/tl_index.h"
#include "ndcore/kernels/tl_random.h"
#include "ndcore/kernels/tl_sort.h"
#include "ndcore/linalg/tl_linalg.h"

typedef struct {
  tl_status (*op_reduce)(tl_op op, const tl_tensor *in, const tl_reduce_args *a, tl_tensor *out,
                         tl_tensor *indices);
  tl_status (*op_scan)(tl_op op, const tl_tensor *in, int dim, int dtype, tl_tensor *out);
} tl_reduce_kernels;

/* The CPU's reduce kernels. */
tl_status tl_cpu_op_reduce(tl_op op, const tl_tensor *in, const tl_reduce_args *a, tl_tensor *out,
                           tl_tensor *indices);
tl_status tl_cpu_op_scan(tl_op op, const tl_tensor *in, int dim, int dtype, tl_tensor *out);

typedef struct {
  tl_status (*sort)(const tl_tensor *in, int64_t dim, bool descending, bool stable,
                    tl_tensor *values, tl_tensor *indices);
  tl_status (*topk)(const tl_tensor *in, int64_t k, int64_t dim, bool largest, tl_tensor *values,
                    tl_tensor *indices);
  tl_status (*kthvalue)(const tl_tensor *in, int64_t k, int64_t dim, bool keepdim,
                        tl_tensor *values, tl_tensor *indices);
  tl_status (*median_all)(const tl_tensor *in, bool ignore_nan, tl_tensor *out);
  tl_status (*median_dim)(const tl_tensor *in, int64_t dim, bool keepdim, bool ignore_nan,
                          tl_tensor *values, tl_tensor *indices);
  tl_status (*quantile)(const tl_tensor *in, const double *q, int64_t nq, bool q_scalar,
                        bool all_dims, int64_t dim, bool keepdim, tl_quantile_method method,
                        bool ignore_nan, tl_tensor *out);
  tl_status (*mode)(const tl_tensor *in, int64_t dim, bool keepdim, tl_tensor *values,
                    tl_tensor *indices);
  tl_status (*cummax)(const tl_tensor *in, int64_t dim, bool is_min, tl_tensor *values,
                      tl_tensor *indices);
  tl_status (*unique)(const tl_tensor *in, bool consecutive, tl_tensor *out, tl_tensor *inverse,
                      tl_tensor *counts);
  tl_status (*unique_dim)(const tl_tensor *in, int64_t dim, bool consecutive, tl_tensor *out,
                          tl_tensor *inverse, tl_tensor *counts);
  tl_status (*searchsorted)(const tl_tensor *seq, const tl_tensor *values, bool right,
                            const tl_tensor *sorter, bool out_int32, tl_tensor *out);
  tl_status (*bincount)(const tl_tensor *in, const tl_tensor *weights, int64_t minlength,
                        tl_tensor *out);
  tl_status (*histc)(const tl_tensor *in, int64_t bins, double min, double max, tl_tensor *out);
} tl_sort_kernels;

/* The CPU's sort kernels. */
tl_status tl_cpu_sort(const tl_tensor *in, int64_t dim, bool descending, bool stable,
                      tl_tensor *values, tl_tensor *indices);
tl_status tl_cpu_topk(const tl_tensor *in, int64_t k, int64_t dim, bool largest, tl_tensor *values,
                      tl_tensor *indices);
tl_status tl_cpu_kthvalue(const tl_tensor *in, int64_t k, int64_t dim, bool keepdim,
                          tl_tensor *values, tl_tensor *indices);
tl_status tl_cpu_median_all(const tl_tensor *in, bool ignore_nan, tl_tensor *out);
tl_status tl_cpu_median_dim(const tl_tensor *in, int64_t dim, bool keepdim, bool ignore_nan,
                            tl_tensor *values, tl_tensor *indices);
tl_status tl_cpu_quantile(const tl_tensor *in, const double *q, int64_t nq, bool q_scalar,
                          bool all_dims, int64_t dim, bool keepdim, tl_quantile_method method,
                          bool ignore_nan, tl_tensor *out);
tl_status tl_cpu_mode(const tl_tensor *in, int64_t dim, bool keepdim, tl_tensor *values,
                      tl_tensor *indices);
tl_status tl_cpu_cummax(const tl_tensor *in, int64_t dim, bool is_min, tl_tensor *values,
                        tl_tensor *indices);
tl_status tl_cpu_unique(const tl_tensor *in, bool consecutive, tl_tensor *out, tl_tensor *inverse,
                        tl_tensor *counts);
tl_status tl_cpu_unique_dim(const tl_tensor *in, int64_t dim, bool consecutive, tl_tensor *out,
                            tl_tensor *inverse, tl_tensor *counts);
tl_status tl_cpu_searchsorted(const tl_tensor *seq, const tl_tensor *values, bool right,
                              const tl_tensor *sorter, bool out_int32, tl_tensor *out);
tl_status tl_cpu_bincount(const tl_tensor *in, const tl_tensor *weights, int64_t minlength,
                          tl_tensor *out);
tl_status tl_cpu_histc(const tl_tensor *in, int64_t bins, double min, double max, tl_tensor *out);

typedef struct {
  tl_status (*index_get)(tl_tensor *out, const tl_tensor *self, int n, const tl_index_item *items,
                         bool *is_view);
  tl_status (*index_put)(tl_tensor *self, int n, const tl_index_item *items, const tl_tensor *value,
                         bool accumulate);
  tl_status (*index_nonzero)(tl_tensor *out, const tl_tensor *in);
  tl_status (*index_gather)(tl_tensor *out, const tl_tensor *in, int64_t dim,
                            const tl_tensor *index);
  tl_status (*index_scatter)(const char *op, tl_tensor *self, int64_t dim, const tl_tensor *index,
                             const tl_tensor *src, tl_index_reduce reduce, bool include_self);
  tl_status (*index_select)(tl_tensor *out, const tl_tensor *in, int64_t dim,
                            const tl_tensor *index);
  tl_status (*index_put_along)(const char *op, tl_tensor *self, int64_t dim, const tl_tensor *index,
                               const tl_tensor *src, tl_index_reduce reduce);
  tl_status (*index_take)(tl_tensor *out, const tl_tensor *in, const tl_tensor *index);
  tl_status (*index_put_flat)(tl_tensor *self, const tl_tensor *index, const tl_tensor *src,
                              bool accumulate);
  tl_status (*index_take_along_dim)(tl_tensor *out, const tl_tensor *in, const tl_tensor *index,
                                    int64_t dim, bool has_dim);
  tl_status (*index_masked_fill)(tl_tensor *self, const tl_tensor *mask, const tl_tensor *value);
  tl_status (*index_masked_scatter)(tl_tensor *self, const tl_tensor *mask, const tl_tensor *src);
  tl_status (*index_masked_select)(tl_tensor *out, const tl_tensor *in, const tl_tensor *mask);
} tl_index_kernels;

/* The ops the index kernel sets serve (register.c). */
extern const tl_op tl_index_ops[];
extern const size_t tl_index_op_count;

/* The CPU's index kernels. */
tl_status tl_cpu_index_get(tl_tensor *out, const tl_tensor *self, int n, const tl_index_item *items,
                           bool *is_view);
tl_status tl_cpu_index_put(tl_tensor *self, int n, const tl_index_item *items,
                           const tl_tensor *value, bool accumulate);
tl_status tl_cpu_index_nonzero(tl_tensor *out, const tl_tensor *in);
tl_status tl_cpu_index_gather(tl_tensor *out, const tl_tensor *in, int64_t dim,
                              const tl_tensor *index);
tl_status tl_cpu_index_scatter(const char *op, tl_tensor *self, int64_t dim, const tl_tensor *index,
                               const tl_tensor *src, tl_index_reduce reduce, bool include_self);
tl_status tl_cpu_index_select(tl_tensor *out, const tl_tensor *in, int64_t dim,
                              const tl_tensor *index);
tl_status tl_cpu_index_put_along(const char *op, tl_tensor *self, int64_t dim,
                                 const tl_tensor *index, const tl_tensor *src,
                                 tl_index_reduce reduce);
tl_status tl_cpu_index_take(tl_tensor *out, const tl_tensor *in, const tl_tensor *index);
tl_status tl_cpu_index_put_flat(tl_tensor *self, const tl_tensor *index, const tl_tensor *src,
                                bool accumulate);
tl_status tl_cpu_index_take_along_dim(tl_tensor *out, const tl_tensor *in, const tl_tensor *index,
                                      int64_t dim, bool has_dim);
tl_status tl_cpu_index_masked_fill(tl_tensor *self, const tl_tensor *mask, const tl_tensor *value);
tl_status tl_cpu_index_masked_scatter(tl_tensor *self, const tl_tensor *mask, const tl_tensor *src);
tl_status tl_cpu_index_masked_select(tl_tensor *out, const tl_tensor *in, const tl_tensor *mask);

typedef struct {
  tl_status (*linalg_gemm)(tl_tensor *out, const tl_tensor *a, const tl_tensor *b, tl_scalar alpha,
                           tl_scalar beta, bool reduce_batch);
  tl_status (*linalg_solve_ex)(tl_tensor *x, tl_tensor *info, const tl_tensor *a,
                               const tl_tensor *b, bool left);
  tl_status (*linalg_inv_ex)(tl_tensor *out, tl_tensor *info, const tl_tensor *a);
  tl_status (*linalg_cholesky_ex)(tl_tensor *out, tl_tensor *info, const tl_tensor *a, bool upper);
  tl_status (*linalg_det)(tl_tensor *out, const tl_tensor *a);
  tl_status (*linalg_slogdet)(tl_tensor *sign, tl_tensor *logabsdet, const tl_tensor *a);
  tl_status (*linalg_logdet)(tl_tensor *out, const tl_tensor *a);
  tl_status (*linalg_qr)(tl_tensor *q, tl_tensor *r, const tl_tensor *a, char mode);
  tl_status (*linalg_svd)(tl_tensor *u, tl_tensor *s, tl_tensor *vh, const tl_tensor *a,
                          bool full_matrices, bool compute_uv);
  tl_status (*linalg_eigh)(tl_tensor *w, tl_tensor *v, const tl_tensor *a, bool upper,
                           bool compute_v);
  tl_status (*linalg_eig)(tl_tensor *w, tl_tensor *v, const tl_tensor *a, bool compute_v);
  tl_status (*linalg_lu_factor_ex)(tl_tensor *lu, tl_tensor *pivots, tl_tensor *info,
                                   const tl_tensor *a);
  tl_status (*linalg_lu)(tl_tensor *p, tl_tensor *l, tl_tensor *u, const tl_tensor *a);
  tl_status (*linalg_lu_solve)(tl_tensor *x, const tl_tensor *lu, const tl_tensor *pivots,
                               const tl_tensor *b, bool left, bool adjoint);
  tl_status (*linalg_solve_triangular)(tl_tensor *x, const tl_tensor *a, const tl_tensor *b,
                                       bool upper, bool left, bool unitriangular);
  tl_status (*linalg_lstsq)(tl_tensor *x, tl_tensor *residuals, tl_tensor *rank, tl_tensor *sv,
                            const tl_tensor *a, const tl_tensor *b, double rcond,
                            const char *driver);
  tl_status (*linalg_vector_norm)(tl_tensor *out, const tl_tensor *x, double ord, uint64_t mask,
                                  bool keepdim, int dtype);
  tl_status (*linalg_cross)(tl_tensor *out, const tl_tensor *a, const tl_tensor *b, int64_t dim);
  /* LDL (linalg_ldl.c): served from a set of their own, so the family's
   * devices (register_family) do not take them; only the CPU has them. */
  tl_status (*linalg_ldl_factor_ex)(tl_tensor *ld, tl_tensor *pivots, tl_tensor *info,
                                    const tl_tensor *a, bool hermitian);
  tl_status (*linalg_ldl_solve)(tl_tensor *x, const tl_tensor *ld, const tl_tensor *pivots,
                                const tl_tensor *b, bool hermitian);
} tl_linalg_kernels;

/* The CPU's linalg kernels. */
tl_status tl_cpu_linalg_gemm(tl_tensor *out, const tl_tensor *a, const tl_tensor *b,
                             tl_scalar alpha, tl_scalar beta, bool reduce_batch);
tl_status tl_cpu_linalg_solve_ex(tl_tensor *x, tl_tensor *info, const tl_tensor *a,
                                 const tl_tensor *b, bool left);
tl_status tl_cpu_linalg_inv_ex(tl_tensor *out, tl_tensor *info, const tl_tensor *a);
tl_status tl_cpu_linalg_cholesky_ex(tl_tensor *out, tl_tensor *info, const tl_tensor *a,
                                    bool upper);
tl_status tl_cpu_linalg_det(tl_tensor *out, const tl_tensor *a);
tl_status tl_cpu_linalg_slogdet(tl_tensor *sign, tl_tensor *logabsdet, const tl_tensor *a);
tl_status tl_cpu_linalg_logdet(tl_tensor *out, const tl_tensor *a);
tl_status tl_cpu_linalg_qr(tl_tensor *q, tl_tensor *r, const tl_tensor *a, char mode);
tl_status tl_cpu_linalg_svd(tl_tensor *u, tl_tensor *s, tl_tensor *vh, const tl_tensor *a,
                            bool full_matrices, bool compute_uv);
tl_status tl_cpu_linalg_eigh(tl_tensor *w, tl_tensor *v, const tl_tensor *a, bool upper,
                             bool compute_v);
tl_status tl_cpu_linalg_eig(tl_tensor *w, tl_tensor *v, const tl_tensor *a, bool compute_v);
tl_status tl_cpu_linalg_lu_factor_ex(tl_tensor *lu, tl_tensor *pivots, tl_tensor *info,
                                     const tl_tensor *a);
tl_status tl_cpu_linalg_lu(tl_tensor *p, tl_tensor *l, tl_tensor *u, const tl_tensor *a);
tl_status tl_cpu_linalg_lu_solve(tl_tensor *x, const tl_tensor *lu, const tl_tensor *pivots,
                                 const tl_tensor *b, bool left, bool adjoint);
tl_status tl_cpu_linalg_solve_triangular(tl_tensor *x, const tl_tensor *a, const tl_tensor *b,
                                         bool upper, bool left, bool unitriangular);
tl_status tl_cpu_linalg_lstsq(tl_tensor *x, tl_tensor *residuals, tl_tensor *rank, tl_tensor *sv,
                              const tl_tensor *a, const tl_tensor *b, double rcond,
                              const char *driver);
tl_status tl_cpu_linalg_cross(tl_tensor *out, const tl_tensor *a, const tl_tensor *b, int64_t dim);
tl_status tl_cpu_linalg_ldl_factor_ex(tl_tensor *ld, tl_tensor *pivots, tl_tensor *info,
                                      const tl_tensor *a, bool hermitian);
tl_status tl_cpu_linalg_ldl_solve(tl_tensor *x, const tl_tensor *ld, const tl_tensor *pivots,
                                  const tl_tensor *b, bool hermitian);

typedef struct {
  tl_status (*random_fill)(tl_generator *g, tl_tensor *t, const tl_random_dist *d);
  tl_status (*random_permutation)(tl_generator *g, tl_tensor *out);
  tl_status (*random_poisson)(tl_generator *g, const tl_tensor *rates, tl_tensor *out);
  tl_status (*random_multinomial)(tl_generator *g, const tl_tensor *probs, int64_t n,
                                  bool replacement, tl_tensor *out);
  /* a, b (or NULL) and out: contiguous float64 of one shape */
  tl_status (*random_sample)(tl_generator *g, const tl_random_sample_spec *spec,
                             const tl_tensor *a, const tl_tensor *b, tl_tensor *out);
} tl_random_kernels;

/* The CPU's random kernels. */
tl_status tl_cpu_random_fill(tl_generator *g, tl_tensor *t, const tl_random_dist *d);
tl_status tl_cpu_random_permutation(tl_generator *g, tl_tensor *out);
tl_status tl_cpu_random_poisson(tl_generator *g, const tl_tensor *rates, tl_tensor *out);
tl_status tl_cpu_random_multinomial(tl_generator *g, const tl_tensor *probs, int64_t n,
                                    bool replacement, tl_tensor *out);
tl_status tl_cpu_random_sample(tl_generator *g, const tl_random_sample_spec *spec,
                               const tl_tensor *a, const tl_tensor *b, tl_tensor *out);

typedef struct {
  tl_status (*tensor_fill)(tl_tensor *t, tl_scalar value);
  tl_status (*tensor_arange_fill)(tl_tensor *out, tl_scalar start, tl_scalar step);
  tl_status (*tensor_linspace_fill)(tl_tensor *out, tl_scalar start, tl_scalar end, bool log,
                                    tl_scalar base);
  tl_status (*tensor_eye_fill)(tl_tensor *out);
} tl_create_kernels;

/* The CPU's create kernels. */
tl_status tl_cpu_tensor_fill(tl_tensor *t, tl_scalar value);
tl_status tl_cpu_tensor_arange_fill(tl_tensor *out, tl_scalar start, tl_scalar step);
tl_status tl_cpu_tensor_linspace_fill(tl_tensor *out, tl_scalar start, tl_scalar end, bool log,
                                      tl_scalar base);
tl_status tl_cpu_tensor_eye_fill(tl_tensor *out);

typedef struct {
  tl_status (*copy)(tl_tensor *dst, const tl_tensor *src);
} tl_copy_kernels;

/* The CPU's copy kernel (op.c). */
tl_status tl_cpu_tensor_copy(tl_tensor *dst, const tl_tensor *src);

#endif
