/* tl_sort.h - sorting, selection and searching on the CPU.
 *
 * Every function allocates its outputs (zeroed tl_tensor in, allocated
 * tensor out) and leaves them unallocated on error.  Dims are as the user
 * gave them (negative counts from the end); a 0-d input acts as one element
 * along dim 0 or -1, as in PyTorch.  Index outputs are int64.  Complex inputs
 * are refused: PyTorch orders no complex numbers.                           */
#ifndef TL_SORT_H
#define TL_SORT_H

#include "ndcore/tensor/tl_dtype.h"

/* values (may be NULL: argsort) and indices (may be NULL: values only, as
 * msort wants; not both NULL) along dim. */
tl_status tl_sort(const tl_tensor *in, int64_t dim, bool descending, bool stable, tl_tensor *values,
                  tl_tensor *indices);
/* For sort.c: the values only of one lane of n float32 or int32 elements at
 * src (step in bytes; n < 2^32), sorted ascending into the contiguous out. */
tl_status tl_sort_values_lane(const char *src, int64_t step, int64_t n, tl_dtype dtype, uint32_t *out);
/* The k largest (or smallest) along dim, in sorted order. */
tl_status tl_topk(const tl_tensor *in, int64_t k, int64_t dim, bool largest, tl_tensor *values,
                  tl_tensor *indices);
/* The k-th smallest (k from 1) along dim. */
tl_status tl_kthvalue(const tl_tensor *in, int64_t k, int64_t dim, bool keepdim, tl_tensor *values,
                      tl_tensor *indices);
/* The lower median of all elements (0-d), NaN if any is NaN (ignore_nan: of
 * the non-NaN ones, NaN if none). */
tl_status tl_median_all(const tl_tensor *in, bool ignore_nan, tl_tensor *out);
tl_status tl_median_dim(const tl_tensor *in, int64_t dim, bool keepdim, bool ignore_nan,
                        tl_tensor *values, tl_tensor *indices);

typedef enum {
  TL_QUANTILE_LINEAR,
  TL_QUANTILE_LOWER,
  TL_QUANTILE_HIGHER,
  TL_QUANTILE_MIDPOINT,
  TL_QUANTILE_NEAREST,
} tl_quantile_method;
/* q: nq values in [0, 1]; q_scalar: no leading q dim in the result.  all_dims:
 * over the flattened input (dim ignored; keepdim keeps every dim as 1). */
tl_status tl_quantile(const tl_tensor *in, const double *q, int64_t nq, bool q_scalar, bool all_dims,
                      int64_t dim, bool keepdim, tl_quantile_method method, bool ignore_nan,
                      tl_tensor *out);
/* The most frequent value along dim (the smallest among equally frequent
 * ones) and the index of its last occurrence. */
tl_status tl_mode(const tl_tensor *in, int64_t dim, bool keepdim, tl_tensor *values,
                  tl_tensor *indices);
/* Running max (or min) along dim and where it was taken; NaN propagates, ties
 * take the later index (PyTorch's rule). */
tl_status tl_cummax(const tl_tensor *in, int64_t dim, bool is_min, tl_tensor *values,
                    tl_tensor *indices);

/* Unique values of the flattened input, sorted.  inverse (may be NULL) has the
 * input's shape; counts (may be NULL) the output's.  NaNs are each unique. */
tl_status tl_unique(const tl_tensor *in, bool consecutive, tl_tensor *out, tl_tensor *inverse,
                    tl_tensor *counts);
/* Unique slices along dim, in lexicographic order unless consecutive. */
tl_status tl_unique_dim(const tl_tensor *in, int64_t dim, bool consecutive, tl_tensor *out,
                        tl_tensor *inverse, tl_tensor *counts);
/* Insertion points of values in the sorted last dim of seq (1-d, or with the
 * same leading dims as values).  sorter (may be NULL) is seq's argsort. */
tl_status tl_searchsorted(const tl_tensor *seq, const tl_tensor *values, bool right,
                          const tl_tensor *sorter, bool out_int32, tl_tensor *out);
/* weights may be NULL. */
tl_status tl_bincount(const tl_tensor *in, const tl_tensor *weights, int64_t minlength,
                      tl_tensor *out);
tl_status tl_histc(const tl_tensor *in, int64_t bins, double min, double max, tl_tensor *out);

#endif
