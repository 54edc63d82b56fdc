/* meta.c - the meta device's kernels: each does nothing.
 *
 * PyTorch's meta device runs ops for their shapes only.  Here the op layer
 * is device-neutral already (tl_op_map, the reductions' op layer, the index
 * ops over their primitives, the products' shape checks): it checks the
 * arguments, computes the result's shape, dtype and layout and allocates it
 * on the inputs' device, a meta storage of no memory (backend_meta.c), then
 * calls the device's kernel, which here returns at once.  So a family gets
 * the meta device by registering kernels that do nothing, family by family,
 * as emulate.c registers the fake device's.
 *
 * Kernels that allocate their own outputs (the sort family, the
 * decompositions) do it with the CPU's checks and shape helpers.  Ops whose
 * output shape depends on the data (nonzero, masked_select, unique,
 * bincount) refuse in PyTorch's words; lstsq, with no meta kernel (PyTorch
 * has none either), raises the kernel table's NotImplementedError naming the
 * op and the meta device.                                                   */
#include "ndcore/dispatch/tl_meta.h"

#include "gpu/fft/tl_gpu_fft.h"
#include "ndcore/dispatch/tl_kernel_sets.h"
#include "ndcore/kernels/tl_random_args.h"
#include "ndcore/kernels/tl_reduce.h"
#include "ndcore/kernels/tl_sort_args.h"
#include "ndcore/linalg/tl_lapack.h"

/* ---- elementwise, copy, creation, random: outputs arrive allocated ---------- */

static tl_status meta_run(const tl_iter_kernel *self, const tl_iter *it, const void *data)
{
  (void)self, (void)it, (void)data;
  return TL_OK;
}

static tl_status meta_copy(tl_tensor *dst, const tl_tensor *src)
{
  (void)dst, (void)src;
  return TL_OK;
}

static tl_status meta_fill(tl_tensor *t, tl_scalar v)
{
  (void)t, (void)v;
  return TL_OK;
}
static tl_status meta_arange(tl_tensor *out, tl_scalar start, tl_scalar step)
{
  (void)out, (void)start, (void)step;
  return TL_OK;
}
static tl_status meta_linspace(tl_tensor *out, tl_scalar start, tl_scalar end, bool log,
                               tl_scalar base)
{
  (void)out, (void)start, (void)end, (void)log, (void)base;
  return TL_OK;
}
static tl_status meta_eye(tl_tensor *out)
{
  (void)out;
  return TL_OK;
}

static tl_status meta_random_fill(tl_generator *g, tl_tensor *t, const tl_random_dist *d)
{
  (void)g, (void)t, (void)d;
  return TL_OK;
}
static tl_status meta_random_permutation(tl_generator *g, tl_tensor *out)
{
  (void)g, (void)out;
  return TL_OK;
}
/* poisson and multinomial allocate their draws: the CPU's checks that read
 * no data, then the result (the rates' dtype and shape; int64 [rows, n]) */
static tl_status meta_random_poisson(tl_generator *g, const tl_tensor *rates, tl_tensor *out)
{
  (void)g;
  if (tl_random_poisson_check(rates) != TL_OK)
    return tl_error_status();
  return tl_tensor_empty(out, rates->dtype, rates->ndim, rates->shape, tl_tensor_device(rates));
}
static tl_status meta_random_multinomial(tl_generator *g, const tl_tensor *probs, int64_t n,
                                         bool replacement, tl_tensor *out)
{
  (void)g;
  if (tl_random_multinomial_check(probs, n, replacement) != TL_OK)
    return tl_error_status();
  int64_t shape[2] = {probs->ndim == 2 ? probs->shape[0] : 1, n};
  return tl_tensor_empty(out, TL_DTYPE_I64, probs->ndim, probs->ndim == 2 ? shape : shape + 1,
                         tl_tensor_device(probs));
}
static tl_status meta_random_sample(tl_generator *g, const tl_random_sample_spec *spec,
                                    const tl_tensor *a, const tl_tensor *b, tl_tensor *out)
{
  (void)g, (void)spec, (void)a, (void)b, (void)out;
  return TL_OK;
}

/* ---- reductions and scans: the op layer allocates, the passes do nothing ---- */

static tl_status meta_pass(tl_rkind kind, const tl_tensor *in, uint64_t mask, tl_dtype loop,
                           tl_tensor *acc, const tl_tensor *aux, void *data)
{
  (void)kind, (void)in, (void)mask, (void)loop, (void)acc, (void)aux, (void)data;
  return TL_OK;
}
static tl_status meta_index_pass(bool is_max, const tl_tensor *in, int dim, tl_tensor *values,
                                 tl_tensor *indices)
{
  (void)is_max, (void)in, (void)dim, (void)values, (void)indices;
  return TL_OK;
}
static tl_status meta_scan(bool prod, tl_tensor *work, int64_t len, int64_t inner)
{
  (void)prod, (void)work, (void)len, (void)inner;
  return TL_OK;
}

/* ---- the sort family: the CPU's checks and result shapes (tl_sort_args.h) ---- */

static tl_status meta_sort(const tl_tensor *in, int64_t dim, bool desc, bool stable, tl_tensor *v,
                           tl_tensor *i)
{
  int d;
  (void)desc, (void)stable;
  if (tl_sort_check_dim(v ? "sort" : "argsort", in, dim, &d) != TL_OK)
    return tl_error_status();
  return tl_sort_alloc_pair(in, in->ndim, in->shape, v, i);
}
static tl_status meta_topk(const tl_tensor *in, int64_t k, int64_t dim, bool largest, tl_tensor *v,
                           tl_tensor *i)
{
  int d;
  int64_t shape[TL_MAX_DIMS];
  (void)largest;
  if (tl_topk_check(in, k, dim, &d) != TL_OK)
    return tl_error_status();
  int nd = tl_sort_reduced_shape(in, d, in->ndim ? k : 1, true, shape);
  return tl_sort_alloc_pair(in, nd, shape, v, i);
}
/* One element per lane along d: kthvalue, median, mode. */
static tl_status select_one(const tl_tensor *in, int d, bool keepdim, tl_tensor *v, tl_tensor *i)
{
  int64_t shape[TL_MAX_DIMS];
  int nd = tl_sort_reduced_shape(in, d, 1, keepdim, shape);
  return tl_sort_alloc_pair(in, nd, shape, v, i);
}
static tl_status meta_kthvalue(const tl_tensor *in, int64_t k, int64_t dim, bool keepdim,
                               tl_tensor *v, tl_tensor *i)
{
  int d;
  if (tl_kthvalue_check(in, k, dim, &d) != TL_OK)
    return tl_error_status();
  return select_one(in, d, keepdim, v, i);
}
static tl_status meta_median_dim(const tl_tensor *in, int64_t dim, bool keepdim, bool ignore_nan,
                                 tl_tensor *v, tl_tensor *i)
{
  int d;
  if (tl_sort_check_reduced(ignore_nan ? "nanmedian" : "median", in, dim, &d) != TL_OK)
    return tl_error_status();
  return select_one(in, d, keepdim, v, i);
}
static tl_status meta_mode(const tl_tensor *in, int64_t dim, bool keepdim, tl_tensor *v,
                           tl_tensor *i)
{
  int d;
  if (tl_sort_check_reduced("mode", in, dim, &d) != TL_OK)
    return tl_error_status();
  return select_one(in, d, keepdim, v, i);
}
static tl_status meta_quantile(const tl_tensor *in, const double *q, int64_t nq, bool q_scalar,
                               bool all_dims, int64_t dim, bool keepdim, tl_quantile_method method,
                               bool ignore_nan, tl_tensor *out)
{
  int d;
  tl_tensor flat = {0};
  const tl_tensor *src;
  (void)method;
  if (tl_quantile_begin(ignore_nan ? "nanquantile" : "quantile", in, q, nq, q_scalar, all_dims,
                        dim, keepdim, &d, out, &flat, &src) != TL_OK)
    return tl_error_status();
  tl_sort_release(&flat);
  return TL_OK;
}
static tl_status meta_cummax(const tl_tensor *in, int64_t dim, bool is_min, tl_tensor *v,
                             tl_tensor *i)
{
  int d;
  if (tl_sort_check_dim(is_min ? "cummin" : "cummax", in, dim, &d) != TL_OK)
    return tl_error_status();
  return tl_sort_alloc_pair(in, in->ndim, in->shape, v, i);
}
static tl_status meta_searchsorted(const tl_tensor *seq, const tl_tensor *values, bool right,
                                   const tl_tensor *sorter, bool out_int32, tl_tensor *out)
{
  (void)right;
  if (tl_searchsorted_check(seq, values, sorter, out_int32) != TL_OK)
    return tl_error_status();
  return tl_tensor_empty(out, out_int32 ? TL_DTYPE_I32 : TL_DTYPE_I64, values->ndim, values->shape,
                         tl_tensor_device(values));
}
static tl_status meta_histc(const tl_tensor *in, int64_t bins, double min, double max,
                            tl_tensor *out)
{
  if (tl_histc_check(in, bins, min, max) != TL_OK)
    return tl_error_status();
  return tl_tensor_empty(out, in->dtype, 1, &bins, tl_tensor_device(in));
}
/* Shapes that are counts of the data: PyTorch's meta device refuses them too. */
static tl_status no_meta_kernel(const char *aten)
{
  return tl_error_set(TL_ERR_NOT_IMPLEMENTED, "aten::%s: attempted to run this operator with "
                      "Meta tensors, but there was no fake impl or Meta kernel registered.", aten);
}
static tl_status meta_unique(const tl_tensor *in, bool consecutive, tl_tensor *out, tl_tensor *inv,
                             tl_tensor *counts)
{
  (void)in, (void)out, (void)inv, (void)counts;
  return no_meta_kernel(consecutive ? "unique_consecutive" : "_unique2");
}
static tl_status meta_unique_dim(const tl_tensor *in, int64_t dim, bool consecutive,
                                 tl_tensor *out, tl_tensor *inv, tl_tensor *counts)
{
  (void)in, (void)dim, (void)out, (void)inv, (void)counts;
  return no_meta_kernel(consecutive ? "unique_dim_consecutive" : "unique_dim");
}
static tl_status meta_bincount(const tl_tensor *in, const tl_tensor *w, int64_t minlength,
                               tl_tensor *out)
{
  (void)in, (void)w, (void)minlength, (void)out;
  return no_meta_kernel("bincount");
}

/* ---- products: the shapes are checked, out arrives allocated ----------------- */

static tl_status meta_gemm(tl_tensor *out, const tl_tensor *a, const tl_tensor *b,
                           tl_scalar alpha, tl_scalar beta, bool reduce_batch)
{
  tl_gemm_shape g;
  (void)alpha, (void)beta;
  return tl_linalg_gemm_shape(out, a, b, reduce_batch, &g);
}

/* ---- linear algebra: the drivers every device shares (tl_lapack.h) with runs
 * that do nothing, or the CPU kernel's setup without its loop --------------- */

static tl_status meta_lu_run(const tl_lapack_solve *p, tl_tensor *lu, tl_tensor *x,
                             tl_tensor *info)
{
  (void)p, (void)lu, (void)x, (void)info;
  return TL_OK;
}
static tl_status meta_det_run(const tl_lapack_det *p, tl_tensor *lu)
{
  (void)p, (void)lu;
  return TL_OK;
}
TL_LAPACK_DET_ENTRIES(tl_meta, meta_det_run)

static tl_status meta_solve_ex(tl_tensor *x, tl_tensor *info, const tl_tensor *a,
                               const tl_tensor *b, bool left)
{
  return tl_lapack_solve_ex(x, info, a, b, left, meta_lu_run);
}
static tl_status meta_inv_ex(tl_tensor *out, tl_tensor *info, const tl_tensor *a)
{
  return tl_lapack_inv_ex(out, info, a, meta_lu_run);
}
/* as the CPU's: the factor in a's layout (potrf on row-major data), info [B...] */
static tl_status meta_cholesky_ex(tl_tensor *out, tl_tensor *info, const tl_tensor *a, bool upper)
{
  (void)upper;
  if (tl_lapack_check_matrix("linalg.cholesky", a, true) != TL_OK ||
      tl_tensor_to_dtype(out, a, tl_linalg_float_dtype(a->dtype)) != TL_OK)
    return tl_error_status();
  if (info && tl_lapack_empty(info, tl_tensor_device(a), TL_DTYPE_I32, a->ndim - 2, a->shape, 0,
                              NULL) != TL_OK) {
    tl_tensor_release(out);
    return tl_error_status();
  }
  return TL_OK;
}
static tl_status meta_qr(tl_tensor *q, tl_tensor *r, const tl_tensor *a, char mode)
{
  tl_tensor f = {0}, tau = {0};
  tl_lapack_qr p;
  if (tl_lapack_qr_setup(&p, &f, &tau, q, r, a, mode) != TL_OK)
    return tl_error_status();
  tl_tensor_release(&f);
  tl_tensor_release(&tau);
  return TL_OK;
}
static tl_status meta_lu_factor_ex(tl_tensor *lu, tl_tensor *pivots, tl_tensor *info,
                                   const tl_tensor *a)
{
  return tl_lapack_lu_factor_setup("linalg.lu_factor", a, lu, pivots, info);
}
/* P [B..., m, m], L [B..., m, k], U [B..., k, n], column-major as the CPU's */
static tl_status meta_lu(tl_tensor *p, tl_tensor *l, tl_tensor *u, const tl_tensor *a)
{
  if (tl_lapack_check_matrix("linalg.lu", a, false) != TL_OK)
    return tl_error_status();
  int nb = a->ndim - 2;
  int64_t m = a->shape[nb], n = a->shape[nb + 1], k = m < n ? m : n;
  tl_dtype d = tl_linalg_float_dtype(a->dtype);
  tl_device dev = tl_tensor_device(a);
  if (tl_lapack_colmajor_empty(p, dev, d, nb, a->shape, m, m) != TL_OK)
    return tl_error_status();
  if (tl_lapack_colmajor_empty(l, dev, d, nb, a->shape, m, k) != TL_OK) {
    tl_tensor_release(p);
    return tl_error_status();
  }
  if (tl_lapack_colmajor_empty(u, dev, d, nb, a->shape, k, n) != TL_OK) {
    tl_tensor_release(p);
    tl_tensor_release(l);
    return tl_error_status();
  }
  return TL_OK;
}
static tl_status meta_lu_solve(tl_tensor *x, const tl_tensor *lu, const tl_tensor *pivots,
                               const tl_tensor *b, bool left, bool adjoint)
{
  tl_tensor f = {0}, piv = {0};
  tl_lapack_lu_solve p;
  if (tl_lapack_lu_solve_setup(&p, &f, &piv, x, lu, pivots, b, left, adjoint) != TL_OK)
    return tl_error_status();
  if (!left)
    tl_lapack_swap_last(x);
  tl_tensor_release(&f);
  tl_tensor_release(&piv);
  return TL_OK;
}
static tl_status meta_solve_triangular(tl_tensor *x, const tl_tensor *a, const tl_tensor *b,
                                       bool upper, bool left, bool unitriangular)
{
  tl_tensor f = {0};
  int64_t count;
  (void)upper, (void)unitriangular;
  if (tl_lapack_triangular_setup(&f, x, a, b, left, &count) != TL_OK)
    return tl_error_status();
  tl_tensor_release(&f);
  return TL_OK;
}
/* The spectral decompositions: their outputs as the CPU's kernels lay them
 * out (linalg.c), without values.  S and eigh's W are real [B..., k]; U
 * [B..., m, m or k] and Vh [B..., n or k, n] column-major; eig's W and V
 * complex. */
static tl_status meta_spectral(tl_tensor *w, tl_dtype wd, int64_t k, tl_tensor *v, tl_dtype vd,
                               int64_t rows, int64_t cols, tl_tensor *v2, int64_t rows2,
                               int64_t cols2, const tl_tensor *a)
{
  int nb = a->ndim - 2;
  tl_device dev = tl_tensor_device(a);
  if (tl_lapack_empty(w, dev, wd, nb, a->shape, 1, &k) != TL_OK ||
      (v && tl_lapack_colmajor_empty(v, dev, vd, nb, a->shape, rows, cols) != TL_OK) ||
      (v2 && tl_lapack_colmajor_empty(v2, dev, vd, nb, a->shape, rows2, cols2) != TL_OK)) {
    tl_tensor *made[] = {w, v, v2};
    for (int i = 0; i < 3; i++)
      if (made[i] && made[i]->storage)
        tl_tensor_release(made[i]);
    return tl_error_status();
  }
  return TL_OK;
}
static tl_status meta_svd(tl_tensor *u, tl_tensor *s, tl_tensor *vh, const tl_tensor *a,
                          bool full_matrices, bool compute_uv)
{
  if (tl_lapack_check_matrix(compute_uv ? "linalg.svd" : "linalg.svdvals", a, false) != TL_OK)
    return tl_error_status();
  int64_t m = a->shape[a->ndim - 2], n = a->shape[a->ndim - 1], k = m < n ? m : n;
  tl_dtype d = tl_linalg_float_dtype(a->dtype);
  return meta_spectral(s, tl_dtype_to_real(d), k, compute_uv ? u : NULL, d, m,
                       full_matrices ? m : k, compute_uv ? vh : NULL, full_matrices ? n : k, n, a);
}
static tl_status meta_eigh(tl_tensor *w, tl_tensor *v, const tl_tensor *a, bool upper,
                           bool compute_v)
{
  (void)upper;
  if (tl_lapack_check_matrix(compute_v ? "linalg.eigh" : "linalg.eigvalsh", a, true) != TL_OK)
    return tl_error_status();
  int64_t n = a->shape[a->ndim - 1];
  tl_dtype d = tl_linalg_float_dtype(a->dtype);
  return meta_spectral(w, tl_dtype_to_real(d), n, compute_v ? v : NULL, d, n, n, NULL, 0, 0, a);
}
static tl_status meta_eig(tl_tensor *w, tl_tensor *v, const tl_tensor *a, bool compute_v)
{
  if (tl_lapack_check_matrix(compute_v ? "linalg.eig" : "linalg.eigvals", a, true) != TL_OK)
    return tl_error_status();
  int64_t n = a->shape[a->ndim - 1];
  tl_dtype cd = tl_dtype_to_complex(tl_linalg_float_dtype(a->dtype));
  return meta_spectral(w, cd, n, compute_v ? v : NULL, cd, n, n, NULL, 0, 0, a);
}
/* LDL as the CPU's (linalg_ldl.c): LD column-major [B..., n, n], pivots
 * int32 [B..., n], info int32 [B...]; the solve's X column-major [B..., n, k]. */
static tl_status meta_ldl_factor_ex(tl_tensor *ld, tl_tensor *pivots, tl_tensor *info,
                                    const tl_tensor *a, bool hermitian)
{
  (void)hermitian;
  if (tl_lapack_check_matrix("torch.linalg.ldl_factor_ex", a, true) != TL_OK)
    return tl_error_status();
  int nb = a->ndim - 2;
  int64_t n = a->shape[nb];
  tl_device dev = tl_tensor_device(a);
  if (tl_lapack_colmajor_empty(ld, dev, tl_linalg_float_dtype(a->dtype), nb, a->shape, n, n) != TL_OK ||
      tl_lapack_empty(pivots, dev, TL_DTYPE_I32, nb, a->shape, 1, &n) != TL_OK ||
      tl_lapack_empty(info, dev, TL_DTYPE_I32, nb, a->shape, 0, NULL) != TL_OK) {
    tl_lapack_lu_factor_release(ld, pivots, info);
    return tl_error_status();
  }
  return TL_OK;
}
static tl_status meta_ldl_solve(tl_tensor *x, const tl_tensor *ld, const tl_tensor *pivots,
                                const tl_tensor *b, bool hermitian)
{
  int nb;
  int64_t bshape[TL_MAX_DIMS];
  tl_dtype d;
  (void)hermitian;
  if (tl_lapack_ldl_solve_check(ld, pivots, b, &nb, bshape, &d) != TL_OK)
    return tl_error_status();
  return tl_lapack_colmajor_empty(x, tl_tensor_device(b), d, nb, bshape, ld->shape[ld->ndim - 1],
                                  b->shape[b->ndim - 1]);
}

/* ---- FFTs: fft.c's op layer allocates each pass's result ------------------- */

static tl_status meta_fft(const tl_fft_desc *d, tl_tensor *in, tl_tensor *out)
{
  (void)d, (void)in, (void)out;
  return TL_OK;
}

/* ---- index primitives: offsets and moves do nothing; nonzero has no shape ---- */

static tl_status meta_offsets(const tl_tensor *off, const tl_tensor *idx,
                              const tl_index_offsets_args *a)
{
  (void)off, (void)idx, (void)a;
  return TL_OK;
}
static tl_status meta_move(bool scatter, const tl_tensor *data, const tl_tensor *base,
                           const tl_tensor *off, tl_index_reduce reduce)
{
  (void)scatter, (void)data, (void)base, (void)off, (void)reduce;
  return TL_OK;
}
/* PyTorch's words: its meta nonzero refuses for the same reason. */
static tl_status meta_nonzero(tl_tensor *out, const tl_tensor *mask)
{
  (void)out, (void)mask;
  return tl_error_set(TL_ERR_NOT_IMPLEMENTED,
                      "The register_meta function for torch.nonzero() raises unimplemented by "
                      "default, as a correct data-independent implementation does not exist.");
}
static tl_status meta_masked_fill(tl_tensor *self, const tl_tensor *mask, const tl_tensor *value)
{
  (void)self, (void)mask, (void)value;
  return TL_OK;
}
static tl_status meta_mean_divide(tl_tensor *self, const tl_tensor *count)
{
  (void)self, (void)count;
  return TL_OK;
}
static tl_status meta_scale(tl_tensor *out, const tl_tensor *src, tl_scalar alpha)
{
  (void)alpha;
  return tl_tensor_empty(out, src->dtype, src->ndim, src->shape, tl_tensor_device(src));
}

/* Ops whose output shape is the count of the mask's true elements: the index
 * set's members for them refuse before reading the mask (PyTorch's words). */
static tl_status meta_index_nonzero(tl_tensor *out, const tl_tensor *in)
{
  return meta_nonzero(out, in);
}
static tl_status meta_masked_select(tl_tensor *out, const tl_tensor *in, const tl_tensor *mask)
{
  (void)out, (void)in, (void)mask;
  return tl_error_set(TL_ERR_NOT_IMPLEMENTED,
                      "aten::masked_select: attempted to run this operator with Meta tensors, "
                      "but there was no fake impl or Meta kernel registered.");
}
static tl_status meta_masked_scatter(tl_tensor *self, const tl_tensor *mask, const tl_tensor *src)
{
  (void)mask, (void)src, (void)self;
  return TL_OK;
}

void tl_dispatch_meta_register(void)
{
  static const tl_iter_kernel elementwise = {.run = meta_run};
  static const tl_copy_kernels copy = {.copy = meta_copy};
  static const tl_create_kernels create = {.tensor_fill = meta_fill,
                                           .tensor_arange_fill = meta_arange,
                                           .tensor_linspace_fill = meta_linspace,
                                           .tensor_eye_fill = meta_eye};
  static const tl_op create_ops[] = {TL_OP_FILL, TL_OP_ARANGE, TL_OP_LINSPACE, TL_OP_EYE};
  static const tl_random_kernels random = {.random_fill = meta_random_fill,
                                           .random_permutation = meta_random_permutation,
                                           .random_poisson = meta_random_poisson,
                                           .random_multinomial = meta_random_multinomial,
                                           .random_sample = meta_random_sample};
  static const tl_op random_ops[] = {
      TL_OP_UNIFORM,     TL_OP_NORMAL,   TL_OP_RANDOM_INTEGER, TL_OP_BERNOULLI,
      TL_OP_EXPONENTIAL, TL_OP_CAUCHY,   TL_OP_LOG_NORMAL,     TL_OP_GEOMETRIC,
      TL_OP_RANDPERM,    TL_OP_POISSON,  TL_OP_MULTINOMIAL,    TL_OP_STANDARD_GAMMA,
      TL_OP_BINOMIAL};
  static const tl_sort_kernels sort = {
      .sort = meta_sort, .topk = meta_topk, .kthvalue = meta_kthvalue,
      .median_all = tl_sort_median_all, .median_dim = meta_median_dim,
      .quantile = meta_quantile, .mode = meta_mode, .cummax = meta_cummax,
      .unique = meta_unique, .unique_dim = meta_unique_dim, .searchsorted = meta_searchsorted,
      .bincount = meta_bincount, .histc = meta_histc};
  static const tl_linalg_kernels products = {.linalg_gemm = meta_gemm,
                                             .linalg_vector_norm = tl_linalg_device_vector_norm};
  /* the decompositions above; lstsq has no meta kernel (nor in PyTorch) */
  static const tl_linalg_kernels linalg = {
      .linalg_gemm = meta_gemm, .linalg_solve_ex = meta_solve_ex, .linalg_inv_ex = meta_inv_ex,
      .linalg_cholesky_ex = meta_cholesky_ex, .linalg_det = tl_meta_linalg_det,
      .linalg_slogdet = tl_meta_linalg_slogdet, .linalg_logdet = tl_meta_linalg_logdet,
      .linalg_qr = meta_qr, .linalg_lu_factor_ex = meta_lu_factor_ex, .linalg_lu = meta_lu,
      .linalg_lu_solve = meta_lu_solve, .linalg_solve_triangular = meta_solve_triangular,
      .linalg_svd = meta_svd, .linalg_eigh = meta_eigh, .linalg_eig = meta_eig,
      .linalg_ldl_factor_ex = meta_ldl_factor_ex, .linalg_ldl_solve = meta_ldl_solve,
      .linalg_vector_norm = tl_linalg_device_vector_norm,
      .linalg_cross = tl_linalg_device_cross};
  static const tl_op linalg_ops[] = {
      TL_OP_SOLVE, TL_OP_INV, TL_OP_CHOLESKY, TL_OP_DET, TL_OP_SLOGDET, TL_OP_LOGDET, TL_OP_QR,
      TL_OP_GEQRF, TL_OP_LU_FACTOR, TL_OP_LU, TL_OP_LU_SOLVE, TL_OP_SOLVE_TRIANGULAR, TL_OP_CROSS,
      TL_OP_SVD, TL_OP_EIGH, TL_OP_EIG, TL_OP_LDL_FACTOR, TL_OP_LDL_SOLVE};
  /* the products, all through gemm (matmul.c), and vector_norm, made of
   * elementwise ops and reductions; the decompositions allocate their own
   * outputs and have no meta kernel */
  static const tl_op product_ops[] = {
      TL_OP_MM,    TL_OP_MATMUL, TL_OP_BMM,     TL_OP_MV,     TL_OP_DOT,
      TL_OP_VDOT,  TL_OP_INNER,  TL_OP_OUTER,   TL_OP_GER,    TL_OP_ADDMM,
      TL_OP_ADDBMM, TL_OP_BADDBMM, TL_OP_ADDMV, TL_OP_ADDR,   TL_OP_TENSORDOT,
      TL_OP_KRON,  TL_OP_TRACE,  TL_OP_VECTOR_NORM};
  static const tl_index_device_kernels prims = {
      .offsets = meta_offsets,         .move = meta_move,
      .nonzero = meta_nonzero,         .masked_fill = meta_masked_fill,
      .mean_divide = meta_mean_divide, .scale = meta_scale,
  };
  static tl_index_kernels index;

  for (int op = 0; op < TL_OP_COUNT; op++) {
    if (!tl_opkind_is_elementwise(tl_op_infos[op].kind))
      continue;
    for (int d = 0; d < TL_DTYPE_COUNT; d++)
      if (tl_dispatch_table[op][TL_DEVICE_CPU][d].loop) /* the CPU's dtypes: same TypeErrors */
        tl_dispatch_register_set((tl_op)op, TL_DEVICE_META, TL_DTYPES_ONE(d), &elementwise);
  }
  tl_dispatch_register_set(TL_OP_COPY, TL_DEVICE_META, TL_DTYPES_ALL, &copy);
  for (size_t i = 0; i < sizeof create_ops / sizeof *create_ops; i++)
    tl_dispatch_register_set(create_ops[i], TL_DEVICE_META, TL_DTYPES_ALL, &create);
  for (size_t i = 0; i < sizeof random_ops / sizeof *random_ops; i++)
    tl_dispatch_register_set(random_ops[i], TL_DEVICE_META, TL_DTYPES_ALL, &random);
  tl_dispatch_register_family(TL_OP_SORT, TL_DEVICE_META, &sort);
  for (size_t i = 0; i < sizeof product_ops / sizeof *product_ops; i++)
    tl_dispatch_register_set(product_ops[i], TL_DEVICE_META, TL_DTYPES_ALL, &products);
  for (size_t i = 0; i < sizeof linalg_ops / sizeof *linalg_ops; i++)
    tl_dispatch_register_set(linalg_ops[i], TL_DEVICE_META, TL_DTYPES_ALL, &linalg);
  tl_reduce_serve(TL_DEVICE_META);
  tl_reduce_device_pass[TL_DEVICE_META] = meta_pass;
  tl_reduce_index_device[TL_DEVICE_META] = meta_index_pass;
  tl_scan_device[TL_DEVICE_META] = meta_scan;
  /* The index ops over the primitives above, but for the ops whose output
   * shape is a count of the data: they refuse before reading it. */
  tl_index_register_device(TL_DEVICE_META, &prims);
  index = *(const tl_index_kernels *)tl_dispatch_table[TL_OP_INDEX_GET][TL_DEVICE_META][0].set;
  index.index_nonzero = meta_index_nonzero;
  index.index_masked_select = meta_masked_select;
  index.index_masked_scatter = meta_masked_scatter;
  for (size_t i = 0; i < tl_index_op_count; i++)
    tl_dispatch_register_set(tl_index_ops[i], TL_DEVICE_META, TL_DTYPES_ALL, &index);
  tl_fft_register_device(TL_DEVICE_META, meta_fft);
}
