/* views.c - ops that return a view: new shape and strides on the same storage.
 *
 * Each function fills `out` with a view of `in` (taking a storage reference)
 * or returns an error naming the shapes involved; none copies data except
 * tl_view_reshape when asked to (allow_copy).                               */
#include <string.h>

#include "ndcore/tl_views.h"

static void view_init(tl_tensor *out, const tl_tensor *in, int ndim)
{
  out->storage = in->storage;
  out->dtype = in->dtype;
  out->offset = in->offset;
  out->ndim = ndim;
  tl_storage_incref(in->storage);
}

/* Resolve one -1 in a requested shape against numel. */
static tl_status infer_shape(const tl_tensor *in, int ndim, const int64_t *req, int64_t *shape)
{
  char buf[256];
  int64_t numel = tl_tensor_numel(in), known = 1;
  int infer = -1;
  if (ndim > TL_MAX_DIMS)
    return tl_error_set(TL_ERR_VALUE, "tensors have at most %d dimensions, got %d", TL_MAX_DIMS,
                        ndim);
  for (int i = 0; i < ndim; i++) {
    shape[i] = req[i];
    if (req[i] == -1 && infer < 0) {
      infer = i;
      continue;
    }
    if (req[i] < 0)
      goto invalid;
    known *= req[i];
  }
  if (infer >= 0) {
    if (known == 0 || numel % known != 0)
      goto invalid;
    shape[infer] = numel / known;
  } else if (known != numel) {
    goto invalid;
  }
  return TL_OK;
invalid:
  return tl_error_set(TL_ERR_RUNTIME, "shape '%s' is invalid for input of size %lld",
                      tl_shape_str(buf, sizeof buf, ndim, req), (long long)numel);
}

/* Strides for viewing `in` with `shape` without a copy, if they exist.  Size-1
 * dims carry no layout and are skipped; the rest are walked in chunks of equal
 * element count, and each old chunk must be contiguous within itself. */
static bool view_strides(const tl_tensor *in, int ndim, const int64_t *shape, int64_t *strides)
{
  int64_t os[TL_MAX_DIMS], ost[TL_MAX_DIMS];
  int ond = 0;
  for (int i = 0; i < ndim; i++)
    strides[i] = 1;
  if (tl_tensor_numel(in) == 0) {
    tl_shape_contiguous_strides(ndim, shape, strides);
    return true;
  }
  for (int i = 0; i < in->ndim; i++)
    if (in->shape[i] != 1) {
      os[ond] = in->shape[i];
      ost[ond++] = in->strides[i];
    }
  int oi = 0, ni = 0;
  while (oi < ond && ni < ndim) {
    if (shape[ni] == 1) {
      ni++;
      continue;
    }
    int64_t np = shape[ni], op = os[oi];
    int oj = oi, nj = ni;
    while (np != op) {
      if (np < op)
        np *= shape[++nj];
      else
        op *= os[++oj];
    }
    for (int k = oi; k < oj; k++)
      if (ost[k] != ost[k + 1] * os[k + 1])
        return false;
    int64_t stride = ost[oj];
    for (int k = nj; k >= ni; k--) {
      strides[k] = stride;
      stride *= shape[k];
    }
    oi = oj + 1;
    ni = nj + 1;
  }
  return true;
}

tl_status tl_view_reshape(tl_tensor *out, const tl_tensor *in, int ndim, const int64_t *req,
                          bool allow_copy)
{
  int64_t shape[TL_MAX_DIMS], strides[TL_MAX_DIMS];
  if (infer_shape(in, ndim, req, shape) != TL_OK)
    return tl_error_status();
  if (view_strides(in, ndim, shape, strides)) {
    view_init(out, in, ndim);
    memcpy(out->shape, shape, (size_t)ndim * sizeof *shape);
    memcpy(out->strides, strides, (size_t)ndim * sizeof *strides);
    return TL_OK;
  }
  if (!allow_copy)
    return tl_error_set(TL_ERR_RUNTIME, "view size is not compatible with input tensor's size "
                                        "and stride (at least one dimension spans across two "
                                        "contiguous subspaces). Use .reshape(...) instead.");
  tl_tensor tmp;
  if (tl_tensor_to_dtype(&tmp, in, in->dtype) != TL_OK)
    return tl_error_status();
  tl_status status = tl_view_reshape(out, &tmp, ndim, shape, false);
  tl_tensor_release(&tmp);
  return status;
}

tl_status tl_view_permute(tl_tensor *out, const tl_tensor *in, int ndim, const int64_t *dims)
{
  bool seen[TL_MAX_DIMS] = {false};
  int wrapped[TL_MAX_DIMS];
  if (ndim != in->ndim)
    return tl_error_set(TL_ERR_RUNTIME, "permute(sparse_coo): number of dimensions in the tensor "
                                        "input does not match the length of the desired ordering "
                                        "of dimensions i.e. input.dim() = %d is not equal to "
                                        "len(dims) = %d", in->ndim, ndim);
  for (int i = 0; i < ndim; i++) {
    if (tl_dim_wrap(dims[i], in->ndim, &wrapped[i]) != TL_OK)
      return tl_error_status();
    if (seen[wrapped[i]])
      return tl_error_set(TL_ERR_RUNTIME, "permute(): duplicate dims are not allowed.");
    seen[wrapped[i]] = true;
  }
  view_init(out, in, ndim);
  for (int i = 0; i < ndim; i++) {
    out->shape[i] = in->shape[wrapped[i]];
    out->strides[i] = in->strides[wrapped[i]];
  }
  return TL_OK;
}

tl_status tl_view_transpose(tl_tensor *out, const tl_tensor *in, int64_t d0, int64_t d1)
{
  int a, b;
  if (tl_dim_wrap(d0, in->ndim, &a) != TL_OK || tl_dim_wrap(d1, in->ndim, &b) != TL_OK)
    return tl_error_status();
  tl_tensor_view_of(out, in);
  if (in->ndim == 0)
    return TL_OK;
  out->shape[a] = in->shape[b];
  out->shape[b] = in->shape[a];
  out->strides[a] = in->strides[b];
  out->strides[b] = in->strides[a];
  return TL_OK;
}

tl_status tl_view_expand(tl_tensor *out, const tl_tensor *in, int ndim, const int64_t *shape)
{
  char st[256], si[256];
  int lead = ndim - in->ndim;
  if (lead < 0 || ndim > TL_MAX_DIMS)
    return tl_error_set(TL_ERR_RUNTIME, "expand: the number of sizes provided (%d) must be "
                                        "greater or equal to the number of dimensions in the "
                                        "tensor (%d)", ndim, in->ndim);
  int64_t new_shape[TL_MAX_DIMS], new_strides[TL_MAX_DIMS];
  for (int i = 0; i < ndim; i++) {
    int64_t size = i < lead ? 1 : in->shape[i - lead];
    int64_t want = shape[i];
    if (want == -1) {
      if (i < lead)
        return tl_error_set(TL_ERR_RUNTIME, "expand: -1 is not allowed in a leading, "
                                            "non-existing dimension %d", i);
      want = size;
    }
    if (want < 0 || (size != want && size != 1))
      return tl_error_set(TL_ERR_RUNTIME, "The expanded size of the tensor (%lld) must match "
                                          "the existing size (%lld) at non-singleton dimension "
                                          "%d.  Target sizes: %s.  Tensor sizes: %s",
                          (long long)want, (long long)size, i,
                          tl_shape_str(st, sizeof st, ndim, shape),
                          tl_shape_str(si, sizeof si, in->ndim, in->shape));
    new_shape[i] = want;
    new_strides[i] = i < lead || (size == 1 && want != 1) ? 0 : in->strides[i - lead];
  }
  view_init(out, in, ndim);
  memcpy(out->shape, new_shape, (size_t)ndim * sizeof *new_shape);
  memcpy(out->strides, new_strides, (size_t)ndim * sizeof *new_strides);
  return TL_OK;
}

tl_status tl_view_squeeze(tl_tensor *out, const tl_tensor *in, uint64_t dims)
{
  int nd = 0;
  view_init(out, in, 0);
  for (int i = 0; i < in->ndim; i++) {
    if (in->shape[i] == 1 && (dims >> i & 1))
      continue;
    out->shape[nd] = in->shape[i];
    out->strides[nd] = in->strides[i];
    nd++;
  }
  out->ndim = nd;
  return TL_OK;
}

tl_status tl_view_unsqueeze(tl_tensor *out, const tl_tensor *in, int64_t dim)
{
  int d;
  if (in->ndim + 1 > TL_MAX_DIMS)
    return tl_error_set(TL_ERR_VALUE, "tensors have at most %d dimensions", TL_MAX_DIMS);
  if (tl_dim_wrap(dim, in->ndim + 1, &d) != TL_OK)
    return tl_error_status();
  view_init(out, in, in->ndim + 1);
  for (int i = 0, j = 0; i < out->ndim; i++) {
    if (i == d) {
      out->shape[i] = 1;
      out->strides[i] = d < in->ndim ? in->shape[d] * in->strides[d] : 1;
      continue;
    }
    out->shape[i] = in->shape[j];
    out->strides[i] = in->strides[j];
    j++;
  }
  return TL_OK;
}

tl_status tl_view_flatten(tl_tensor *out, const tl_tensor *in, int64_t start, int64_t end)
{
  int s, e;
  if (tl_dim_wrap(start, in->ndim, &s) != TL_OK || tl_dim_wrap(end, in->ndim, &e) != TL_OK)
    return tl_error_status();
  if (s > e)
    return tl_error_set(TL_ERR_RUNTIME, "flatten() has invalid args: start_dim cannot come after "
                                        "end_dim");
  if (in->ndim == 0)
    return tl_view_reshape(out, in, 1, (int64_t[]){1}, true);
  int64_t shape[TL_MAX_DIMS];
  int nd = 0;
  for (int i = 0; i < s; i++)
    shape[nd++] = in->shape[i];
  int64_t merged = 1;
  for (int i = s; i <= e; i++)
    merged *= in->shape[i];
  shape[nd++] = merged;
  for (int i = e + 1; i < in->ndim; i++)
    shape[nd++] = in->shape[i];
  return tl_view_reshape(out, in, nd, shape, true);
}

void tl_view_slice(tl_tensor *out, int dim, int64_t start, int64_t length, int64_t step)
{
  /* start/length/step already normalised (PySlice_AdjustIndices semantics). */
  if (length > 0)
    out->offset += start * out->strides[dim];
  out->shape[dim] = length;
  out->strides[dim] *= step;
}

tl_status tl_view_select(tl_tensor *out, int dim, int64_t index)
{
  int64_t size = out->shape[dim];
  if (index < -size || index >= size)
    return tl_error_set(TL_ERR_INDEX, "index %lld is out of bounds for dimension %d with size %lld",
                        (long long)index, dim, (long long)size);
  if (index < 0)
    index += size;
  out->offset += index * out->strides[dim];
  memmove(out->shape + dim, out->shape + dim + 1, (size_t)(out->ndim - dim - 1) * sizeof(int64_t));
  memmove(out->strides + dim, out->strides + dim + 1,
          (size_t)(out->ndim - dim - 1) * sizeof(int64_t));
  out->ndim--;
  return TL_OK;
}
