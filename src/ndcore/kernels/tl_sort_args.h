/* tl_sort_args.h - what every device's sort-family kernels share (private to
 * the kernel files: sort.c, search.c, and src/gpu/sort/sort_gpu.c): argument
 * checks with PyTorch's messages, result shapes and allocation, and small
 * tensor helpers.  None of it reads tensor data.                           */
#ifndef TL_SORT_ARGS_H
#define TL_SORT_ARGS_H

#include "ndcore/kernels/tl_sort.h"

/* NotImplementedError for complex inputs (no order). */
tl_status tl_sort_check_real(const char *op, const tl_tensor *t);
/* The input's shape with dim's size set to size (keep) or dim removed;
 * returns the result's ndim. */
int tl_sort_reduced_shape(const tl_tensor *in, int dim, int64_t size, bool keep, int64_t *shape);
/* values (in's dtype) and indices (int64) of that shape on in's device;
 * either may be NULL; neither left allocated on error. */
tl_status tl_sort_alloc_pair(const tl_tensor *in, int nd, const int64_t *shape, tl_tensor *values,
                             tl_tensor *indices);
/* Release t if it holds a storage (t may be NULL). */
void tl_sort_release(tl_tensor *t);
/* A contiguous copy of t on its device, or a new reference when it is one. */
tl_status tl_sort_contiguous(const tl_tensor *t, tl_tensor *out);
/* All of in's elements as a contiguous 1-d tensor (a view or a copy). */
tl_status tl_sort_flatten(const tl_tensor *in, tl_tensor *flat);

/* Each op's checks, in the CPU's order; *d is the wrapped dim. */
tl_status tl_sort_check_dim(const char *op, const tl_tensor *in, int64_t dim, int *d);
tl_status tl_topk_check(const tl_tensor *in, int64_t k, int64_t dim, int *d);
tl_status tl_kthvalue_check(const tl_tensor *in, int64_t k, int64_t dim, int *d);
/* median/nanmedian/mode: the reduced dim must not be empty. */
tl_status tl_sort_check_reduced(const char *op, const tl_tensor *in, int64_t dim, int *d);
/* median/nanmedian of all elements on any device: the median of the
 * flattened input through tl_median_dim (the device's kernel); NaN (0-d)
 * for no elements of a float dtype, an error for other dtypes. */
tl_status tl_sort_median_all(const tl_tensor *in, bool ignore_nan, tl_tensor *out);
/* quantile: checks, then the result's shape ([nq] unless q_scalar, then
 * the reduced shape) in *nd, shape. */
tl_status tl_quantile_check(const char *op, const tl_tensor *in, const double *q, int64_t nq,
                            bool q_scalar, bool all_dims, int64_t dim, bool keepdim, int *d, int *nd,
                            int64_t *shape);
/* quantile's start on any device: the checks, out allocated on in's device
 * (*d the wrapped dim), and *src the lanes' source: in, or all of it
 * flattened into *flat when all_dims.  Nothing is left held on error. */
tl_status tl_quantile_begin(const char *op, const tl_tensor *in, const double *q, int64_t nq,
                            bool q_scalar, bool all_dims, int64_t dim, bool keepdim, int *d,
                            tl_tensor *out, tl_tensor *flat, const tl_tensor **src);
/* quantile's output seen per lane: the q dim dropped (*q_step, bytes,
 * walks it; 0 when q_scalar), no dims for all_dims (one lane). */
void tl_quantile_lanes_view(const tl_tensor *out, bool q_scalar, bool all_dims, tl_tensor *view,
                            int64_t *q_step);
/* unique(dim=): *rows, the slices along dim. */
tl_status tl_unique_dim_check(const char *op, const tl_tensor *in, int64_t dim, int *d,
                              int64_t *rows);
/* unique(dim=)'s slices as rows: in with dim d moved first, contiguous (a
 * view or a copy); and back: the unique rows (dim first) of an input with
 * dims, moved to dim d, into a contiguous out. */
tl_status tl_unique_dim_rows(const tl_tensor *in, int d, tl_tensor *packed);
tl_status tl_unique_dim_unrows(const tl_tensor *rows, int d, tl_tensor *out);
/* searchsorted: the checks that read no data (the sorter's range is the
 * kernel's). */
tl_status tl_searchsorted_check(const tl_tensor *seq, const tl_tensor *values,
                                const tl_tensor *sorter, bool out_int32);
/* bincount: the checks that read no data; *od the result dtype (PyTorch:
 * int64 counts; float32 weights sum in float32, others in float64). */
tl_status tl_bincount_check(const tl_tensor *in, const tl_tensor *weights, int64_t minlength,
                            tl_dtype *od);
tl_status tl_histc_check(const tl_tensor *in, int64_t bins, double min, double max);

#endif
