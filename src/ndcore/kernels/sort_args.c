/* sort_args.c - the sort family's argument checks, result shapes and small
 * tensor helpers, shared by the CPU's kernels (sort.c, search.c) and every
 * other device's (src/gpu/sort/sort_gpu.c), so that each op says the same
 * thing for the same bad input on every device.  No tensor data is read. */
#include <math.h>

#include "ndcore/kernels/tl_create.h"
#include "ndcore/kernels/tl_sort_args.h"
#include "ndcore/tensor/tl_views.h"

tl_status tl_sort_check_real(const char *op, const tl_tensor *t)
{
  if (tl_dtype_is_complex(t->dtype))
    return tl_error_set(TL_ERR_NOT_IMPLEMENTED, "%s(): not implemented for '%s' (complex numbers "
                        "have no order)", op, tl_dtype_names[t->dtype]);
  return TL_OK;
}

int tl_sort_reduced_shape(const tl_tensor *in, int dim, int64_t size, bool keep, int64_t *shape)
{
  int nd = 0;
  for (int i = 0; i < in->ndim; i++) {
    if (i != dim)
      shape[nd++] = in->shape[i];
    else if (keep)
      shape[nd++] = size;
  }
  return nd;
}

void tl_sort_release(tl_tensor *t)
{
  if (t && t->storage)
    tl_tensor_release(t);
}

tl_status tl_sort_alloc_pair(const tl_tensor *in, int nd, const int64_t *shape, tl_tensor *values,
                             tl_tensor *indices)
{
  if (values && tl_tensor_empty(values, in->dtype, nd, shape, tl_tensor_device(in)) != TL_OK)
    return tl_error_status();
  if (indices && tl_tensor_empty(indices, TL_DTYPE_I64, nd, shape, tl_tensor_device(in)) != TL_OK) {
    tl_sort_release(values);
    return tl_error_status();
  }
  return TL_OK;
}

tl_status tl_sort_contiguous(const tl_tensor *t, tl_tensor *out)
{
  if (tl_tensor_is_contiguous(t)) {
    tl_tensor_view_of(out, t);
    return TL_OK;
  }
  if (tl_tensor_empty(out, t->dtype, t->ndim, t->shape, tl_tensor_device(t)) != TL_OK)
    return tl_error_status();
  if (tl_tensor_copy(out, t) != TL_OK) {
    tl_tensor_release(out);
    return tl_error_status();
  }
  return TL_OK;
}

tl_status tl_sort_flatten(const tl_tensor *in, tl_tensor *flat)
{
  if (tl_sort_contiguous(in, flat) != TL_OK)
    return tl_error_status();
  flat->ndim = 1;
  flat->shape[0] = tl_tensor_numel(in);
  flat->strides[0] = 1;
  return TL_OK;
}

/* ---- per-op checks ------------------------------------------------------------------ */

static int64_t lane_length(const tl_tensor *t, int dim) { return t->ndim ? t->shape[dim] : 1; }

tl_status tl_sort_check_dim(const char *op, const tl_tensor *in, int64_t dim, int *d)
{
  if (tl_sort_check_real(op, in) != TL_OK || tl_dim_wrap(dim, in->ndim, d) != TL_OK)
    return tl_error_status();
  return TL_OK;
}

tl_status tl_topk_check(const tl_tensor *in, int64_t k, int64_t dim, int *d)
{
  if (tl_sort_check_dim("topk", in, dim, d) != TL_OK)
    return tl_error_status();
  int64_t n = lane_length(in, *d);
  if (k < 0 || k > n)
    return tl_error_set(TL_ERR_RUNTIME, "topk(): selected index k out of range: k is %lld but "
                        "dim %d has size %lld", (long long)k, *d, (long long)n);
  return TL_OK;
}

tl_status tl_kthvalue_check(const tl_tensor *in, int64_t k, int64_t dim, int *d)
{
  if (tl_sort_check_dim("kthvalue", in, dim, d) != TL_OK)
    return tl_error_status();
  int64_t n = lane_length(in, *d);
  if (k < 1 || k > n)
    return tl_error_set(TL_ERR_RUNTIME, "kthvalue(): selected number k out of range: k is %lld "
                        "but dim %d has size %lld", (long long)k, *d, (long long)n);
  return TL_OK;
}

tl_status tl_sort_check_reduced(const char *op, const tl_tensor *in, int64_t dim, int *d)
{
  if (tl_sort_check_dim(op, in, dim, d) != TL_OK)
    return tl_error_status();
  if (lane_length(in, *d) == 0)
    return tl_error_set(TL_ERR_INDEX, "%s(): Expected reduction dim %d to have non-zero size",
                        op, *d);
  return TL_OK;
}

tl_status tl_sort_median_all(const tl_tensor *in, bool ignore_nan, tl_tensor *out)
{
  const char *op = ignore_nan ? "nanmedian" : "median";
  if (tl_sort_check_real(op, in) != TL_OK)
    return tl_error_status();
  if (tl_tensor_numel(in) == 0) {
    if (!tl_dtype_is_float(in->dtype))
      return tl_error_set(TL_ERR_RUNTIME, "%s(): cannot compute the median of an empty %s "
                          "tensor (the result would be NaN)", op, tl_dtype_names[in->dtype]);
    if (tl_tensor_empty(out, in->dtype, 0, NULL, tl_tensor_device(in)) != TL_OK)
      return tl_error_status();
    if (tl_tensor_fill(out, (tl_scalar){.kind = TL_KIND_FLOAT, .v.f = NAN}) != TL_OK) {
      tl_tensor_release(out);
      return tl_error_status();
    }
    return TL_OK;
  }
  tl_tensor flat = {0}, indices = {0};
  if (tl_sort_flatten(in, &flat) != TL_OK)
    return tl_error_status();
  tl_status st = tl_median_dim(&flat, 0, false, ignore_nan, out, &indices);
  tl_tensor_release(&flat);
  if (st == TL_OK)
    tl_tensor_release(&indices);
  return st;
}

tl_status tl_quantile_check(const char *op, const tl_tensor *in, const double *q, int64_t nq,
                            bool q_scalar, bool all_dims, int64_t dim, bool keepdim, int *d, int *nd,
                            int64_t *shape)
{
  if (tl_sort_check_real(op, in) != TL_OK)
    return tl_error_status();
  if (in->dtype != TL_DTYPE_F32 && in->dtype != TL_DTYPE_F64)
    return tl_error_set(TL_ERR_RUNTIME, "%s() input tensor must be either float or double dtype, "
                        "but got %s", op, tl_dtype_names[in->dtype]);
  for (int64_t i = 0; i < nq; i++)
    if (!(q[i] >= 0 && q[i] <= 1))
      return tl_error_set(TL_ERR_RUNTIME, "%s() q values must be in the range [0, 1], but got %g",
                          op, q[i]);
  *d = 0;
  if (!all_dims && tl_dim_wrap(dim, in->ndim, d) != TL_OK)
    return tl_error_status();
  /* [nq] (unless q is a scalar) + the reduced shape. */
  int64_t s[TL_MAX_DIMS + 1];
  int n = 0;
  if (!q_scalar)
    s[n++] = nq;
  if (all_dims) {
    for (int i = 0; keepdim && i < in->ndim; i++)
      s[n++] = 1;
  } else {
    n += tl_sort_reduced_shape(in, *d, 1, keepdim, s + n);
  }
  if (n > TL_MAX_DIMS)
    return tl_error_set(TL_ERR_VALUE, "%s(): result would have more than %d dims", op, TL_MAX_DIMS);
  memcpy(shape, s, sizeof(int64_t) * (size_t)n);
  *nd = n;
  return TL_OK;
}

tl_status tl_quantile_begin(const char *op, const tl_tensor *in, const double *q, int64_t nq,
                            bool q_scalar, bool all_dims, int64_t dim, bool keepdim, int *d,
                            tl_tensor *out, tl_tensor *flat, const tl_tensor **src)
{
  int64_t shape[TL_MAX_DIMS];
  int nd;
  if (tl_quantile_check(op, in, q, nq, q_scalar, all_dims, dim, keepdim, d, &nd, shape) != TL_OK ||
      tl_tensor_empty(out, in->dtype, nd, shape, tl_tensor_device(in)) != TL_OK)
    return tl_error_status();
  *src = in;
  if (all_dims) {
    if (tl_sort_flatten(in, flat) != TL_OK) {
      tl_tensor_release(out);
      return tl_error_status();
    }
    *src = flat;
  }
  return TL_OK;
}

void tl_quantile_lanes_view(const tl_tensor *out, bool q_scalar, bool all_dims, tl_tensor *view,
                            int64_t *q_step)
{
  *view = *out;
  *q_step = q_scalar ? 0 : out->strides[0] * (int64_t)tl_dtype_size(out->dtype);
  if (!q_scalar) {
    view->ndim--;
    memmove(view->shape, view->shape + 1, sizeof(int64_t) * (size_t)view->ndim);
    memmove(view->strides, view->strides + 1, sizeof(int64_t) * (size_t)view->ndim);
  }
  if (all_dims)
    view->ndim = 0; /* one lane */
}

tl_status tl_unique_dim_check(const char *op, const tl_tensor *in, int64_t dim, int *d,
                              int64_t *rows)
{
  if (tl_sort_check_dim(op, in, dim, d) != TL_OK)
    return tl_error_status();
  *rows = lane_length(in, *d);
  if (tl_tensor_numel(in) == 0 && *rows > 0)
    return tl_error_set(TL_ERR_RUNTIME, "%s(): number of elements along the other dims is 0 "
                        "for an input of %d dims; cannot take unique slices along dim %d",
                        op, in->ndim, *d);
  return TL_OK;
}

tl_status tl_unique_dim_rows(const tl_tensor *in, int d, tl_tensor *packed)
{
  int64_t src = d, dst = 0;
  tl_tensor moved = {0};
  if (!in->ndim)
    tl_tensor_view_of(&moved, in);
  else if (tl_view_movedim(&moved, in, 1, &src, &dst) != TL_OK)
    return tl_error_status();
  tl_status status = tl_sort_contiguous(&moved, packed);
  tl_sort_release(&moved);
  return status;
}

tl_status tl_unique_dim_unrows(const tl_tensor *rows, int d, tl_tensor *out)
{
  int64_t src = 0, dst = d;
  tl_tensor back = {0};
  if (tl_view_movedim(&back, rows, 1, &src, &dst) != TL_OK)
    return tl_error_status();
  tl_status status = tl_sort_contiguous(&back, out);
  tl_sort_release(&back);
  return status;
}

tl_status tl_searchsorted_check(const tl_tensor *seq, const tl_tensor *values,
                                const tl_tensor *sorter, bool out_int32)
{
  char s1[96], s2[96];
  if (tl_sort_check_real("searchsorted", seq) != TL_OK ||
      tl_sort_check_real("searchsorted", values) != TL_OK)
    return tl_error_status();
  if (seq->ndim == 0)
    return tl_error_set(TL_ERR_RUNTIME, "searchsorted(): boundaries tensor should have 1 or more "
                        "dimensions, but got a 0-d tensor");
  if (seq->ndim != 1 && (values->ndim != seq->ndim ||
                         memcmp(values->shape, seq->shape, sizeof(int64_t) * (size_t)(seq->ndim - 1))))
    return tl_error_set(TL_ERR_RUNTIME, "searchsorted(): boundaries tensor should be 1 dimension or "
                        "the first N-1 dimensions of boundaries tensor and input value tensor must "
                        "match, but we got boundaries tensor %s and input value tensor %s",
                        tl_shape_str(s1, sizeof s1, seq->ndim, seq->shape),
                        tl_shape_str(s2, sizeof s2, values->ndim, values->shape));
  if (sorter) {
    if (sorter->dtype != TL_DTYPE_I64)
      return tl_error_set(TL_ERR_RUNTIME, "searchsorted(): sorter must be a tensor of long dtype "
                          "but got dtype %s", tl_dtype_names[sorter->dtype]);
    if (sorter->ndim != seq->ndim || memcmp(sorter->shape, seq->shape, sizeof(int64_t) * (size_t)seq->ndim))
      return tl_error_set(TL_ERR_RUNTIME, "searchsorted(): boundary and sorter must have the same "
                          "size, but got boundary tensor %s and sorter tensor %s",
                          tl_shape_str(s1, sizeof s1, seq->ndim, seq->shape),
                          tl_shape_str(s2, sizeof s2, sorter->ndim, sorter->shape));
  }
  int64_t n = seq->shape[seq->ndim - 1];
  if (out_int32 && n >= INT32_MAX)
    return tl_error_set(TL_ERR_RUNTIME, "searchsorted(): the size of boundaries' last dimension "
                        "(%lld) is too large for out_int32=True", (long long)n);
  return TL_OK;
}

tl_status tl_bincount_check(const tl_tensor *in, const tl_tensor *weights, int64_t minlength,
                            tl_dtype *od)
{
  char s1[96], s2[96];
  /* another dtype is PyTorch's NotImplementedError and NumPy's TypeError */
  if (in->ndim != 1 || !tl_dtype_is_integral(in->dtype) || in->dtype == TL_DTYPE_BOOL)
    return tl_error_set(in->ndim == 1 ? TL_ERR_DTYPE : TL_ERR_RUNTIME, "bincount only supports 1-d non-negative integral inputs; "
                        "got a %dD %s tensor", in->ndim, tl_dtype_names[in->dtype]);
  if (minlength < 0)
    return tl_error_set(TL_ERR_RUNTIME, "bincount(): minlength should be >= 0, got %lld",
                        (long long)minlength);
  if (weights && (weights->ndim != 1 || weights->shape[0] != in->shape[0]))
    return tl_error_set(TL_ERR_RUNTIME, "bincount(): weights should be 1-d and have the same "
                        "length as input, but got input %s and weights %s",
                        tl_shape_str(s1, sizeof s1, in->ndim, in->shape),
                        tl_shape_str(s2, sizeof s2, weights->ndim, weights->shape));
  if (weights && tl_dtype_is_complex(weights->dtype))
    return tl_error_set(TL_ERR_DTYPE, "bincount(): complex weights (%s) are not supported",
                        tl_dtype_names[weights->dtype]);
  *od = !weights ? TL_DTYPE_I64 : weights->dtype == TL_DTYPE_F32 ? TL_DTYPE_F32 : TL_DTYPE_F64;
  return TL_OK;
}

tl_status tl_histc_check(const tl_tensor *in, int64_t bins, double min, double max)
{
  if (!tl_dtype_is_float(in->dtype))
    return tl_error_set(TL_ERR_NOT_IMPLEMENTED, "histc(): not implemented for '%s' (floating "
                        "point inputs only)", tl_dtype_names[in->dtype]);
  if (bins <= 0)
    return tl_error_set(TL_ERR_RUNTIME, "histc(): bins must be > 0, but got %lld", (long long)bins);
  if (max < min)
    return tl_error_set(TL_ERR_RUNTIME, "histc(): max must be larger than min, but got min %g and "
                        "max %g", min, max);
  return TL_OK;
}
