/* views.c - ops that return a view: new shape and strides on the same storage.
 *
 * Each function fills `out` with a view of `in` (taking a storage reference)
 * or returns an error naming the shapes involved; none copies data except
 * tl_view_reshape when asked to (allow_copy).                               */
#include <string.h>

#include "ndcore/kernels/tl_shape_ops.h"
#include "ndcore/tensor/tl_views.h"

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
    if (req[i] == -1 && infer >= 0)
      return tl_error_set(TL_ERR_RUNTIME, "only one dimension can be inferred");
    if (req[i] == -1) {
      infer = i;
      continue;
    }
    if (req[i] < 0)
      return tl_error_set(TL_ERR_RUNTIME, "invalid shape dimension %lld at index %d of shape %s",
                          (long long)req[i], i, tl_shape_str(buf, sizeof buf, ndim, req));
    if (__builtin_mul_overflow(known, req[i], &known))
      goto invalid;
  }
  if (infer >= 0) {
    if (known == 0)
      return tl_error_set(TL_ERR_RUNTIME, "cannot reshape tensor of 0 elements into shape %s "
                                          "because the unspecified dimension size -1 can be any "
                                          "value and is ambiguous",
                          tl_shape_str(buf, sizeof buf, ndim, req));
    if (numel % known != 0)
      goto invalid;
    shape[infer] = numel / known;
  } else if (known != numel) {
    goto invalid;
  }
  return tl_shape_numel(ndim, shape, &known); /* strides that fit, with 0 sizes too */
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
  /* Size-1 dims: the stride PyTorch gives them (code reads .stride() and
   * view_as_complex checks it): the extent of the dim to the right, and the
   * old last stride for a last dim. */
  for (int i = ndim - 1; i >= 0; i--)
    if (shape[i] == 1)
      strides[i] = i == ndim - 1 ? (in->ndim ? in->strides[in->ndim - 1] : 1)
                                 : strides[i + 1] * shape[i + 1];
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
  if (tl_shape_clone(&tmp, in) != TL_OK) /* same-dtype copy, no cast loop */
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
  int64_t numel; /* a view too large to index is refused like an allocation */
  if (tl_shape_count(ndim, new_shape, &numel) != TL_OK)
    return tl_error_status();
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
  /* A slice of at most one element never steps, so it keeps its stride: with
   * x[::2**62] the product would leave int64 (here, and as bytes in NumPy's
   * view).  A longer slice's step is below the dim's size: no overflow. */
  if (length > 1)
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

/* ---- the rest of the view family (movedim, diagonal, narrow, unfold ...) ---- */

tl_status tl_view_movedim(tl_tensor *out, const tl_tensor *in, int n, const int64_t *src,
                          const int64_t *dst)
{
  char ss[256], sd[256];
  int s[TL_MAX_DIMS], d[TL_MAX_DIMS], perm[TL_MAX_DIMS];
  bool src_used[TL_MAX_DIMS] = {false}, dst_used[TL_MAX_DIMS] = {false};
  if (n > in->ndim && in->ndim > 0)
    return tl_error_set(TL_ERR_RUNTIME, "movedim: Invalid source or destination dims: source "
                                        "(%s dims) and destination (%s dims) must not have more "
                                        "entries than the tensor has dimensions (%d)",
                        tl_shape_str(ss, sizeof ss, n, src), tl_shape_str(sd, sizeof sd, n, dst),
                        in->ndim);
  for (int i = 0; i < n; i++) {
    if (tl_dim_wrap(src[i], in->ndim, &s[i]) != TL_OK || tl_dim_wrap(dst[i], in->ndim, &d[i]) != TL_OK)
      return tl_error_status();
    if (src_used[s[i]] || dst_used[d[i]])
      return tl_error_set(TL_ERR_RUNTIME, "movedim: repeated dim in `%s` (%s)",
                          src_used[s[i]] ? "source" : "destination",
                          src_used[s[i]] ? tl_shape_str(ss, sizeof ss, n, src)
                                         : tl_shape_str(sd, sizeof sd, n, dst));
    src_used[s[i]] = dst_used[d[i]] = true;
  }
  if (in->ndim == 0) {
    tl_tensor_view_of(out, in);
    return TL_OK;
  }
  for (int i = 0; i < in->ndim; i++)
    perm[i] = -1;
  for (int i = 0; i < n; i++)
    perm[d[i]] = s[i];
  /* The dims not moved keep their order in the free destination slots. */
  for (int i = 0, next = 0; i < in->ndim; i++) {
    if (perm[i] >= 0)
      continue;
    while (src_used[next])
      next++;
    perm[i] = next++;
  }
  view_init(out, in, in->ndim);
  for (int i = 0; i < in->ndim; i++) {
    out->shape[i] = in->shape[perm[i]];
    out->strides[i] = in->strides[perm[i]];
  }
  return TL_OK;
}

tl_status tl_view_diagonal(tl_tensor *out, const tl_tensor *in, int64_t offset, int64_t dim1,
                           int64_t dim2)
{
  int a, b;
  /* Below 2 dims the two wrapped dims cannot differ, so the checks here
   * (IndexError for the range, as PyTorch) also refuse 0-d and 1-d input. */
  if (tl_dim_wrap(dim1, in->ndim, &a) != TL_OK || tl_dim_wrap(dim2, in->ndim, &b) != TL_OK)
    return tl_error_status();
  if (a == b)
    return tl_error_set(TL_ERR_RUNTIME, "diagonal dimensions cannot be identical %lld, %lld",
                        (long long)dim1, (long long)dim2);
  int64_t rows = in->shape[a], cols = in->shape[b], size;
  int64_t start = 0;
  if (offset >= cols || offset <= -rows) /* empty; also keeps the arithmetic below in range */
    size = 0;
  else if (offset >= 0) {
    size = cols - offset < rows ? cols - offset : rows;
    start = offset * in->strides[b];
  } else {
    size = rows + offset < cols ? rows + offset : cols;
    start = -offset * in->strides[a];
  }
  if (size <= 0) { /* an empty diagonal must not point past the storage */
    size = 0;
    start = 0;
  }
  view_init(out, in, in->ndim - 1);
  out->offset += start;
  int nd = 0;
  for (int i = 0; i < in->ndim; i++)
    if (i != a && i != b) {
      out->shape[nd] = in->shape[i];
      out->strides[nd++] = in->strides[i];
    }
  out->shape[nd] = size;
  out->strides[nd] = in->strides[a] + in->strides[b];
  return TL_OK;
}

tl_status tl_view_narrow(tl_tensor *out, const tl_tensor *in, int64_t dim, int64_t start,
                         int64_t length)
{
  int d;
  if (in->ndim == 0)
    return tl_error_set(TL_ERR_RUNTIME, "narrow() cannot be applied to a 0-dim tensor.");
  if (tl_dim_wrap(dim, in->ndim, &d) != TL_OK)
    return tl_error_status();
  int64_t size = in->shape[d];
  if (length < 0)
    return tl_error_set(TL_ERR_RUNTIME, "narrow(): length must be non-negative.");
  if (start < -size || start > size)
    return tl_error_set(TL_ERR_INDEX, "start out of range (expected to be in range of [%lld, "
                                      "%lld], but got %lld)",
                        (long long)-size, (long long)size, (long long)start);
  if (start < 0)
    start += size;
  if (start > size - length)
    return tl_error_set(TL_ERR_RUNTIME, "start (%lld) + length (%lld) exceeds dimension size "
                                        "(%lld).", (long long)start, (long long)length,
                        (long long)size);
  tl_tensor_view_of(out, in);
  tl_view_slice(out, d, start, length, 1);
  return TL_OK;
}

tl_status tl_view_unfold(tl_tensor *out, const tl_tensor *in, int64_t dim, int64_t size,
                         int64_t step)
{
  int d;
  if (tl_dim_wrap(dim, in->ndim, &d) != TL_OK)
    return tl_error_status();
  if (in->ndim + 1 > TL_MAX_DIMS)
    return tl_error_set(TL_ERR_VALUE, "tensors have at most %d dimensions", TL_MAX_DIMS);
  /* A 0-d tensor unfolds as if it had one dim of size 1. */
  int64_t len = in->ndim ? in->shape[d] : 1, stride = in->ndim ? in->strides[d] : 1;
  if (size < 0 || size > len)
    return tl_error_set(TL_ERR_RUNTIME, "maximum size for tensor at dimension %d is %lld but "
                                        "size is %lld", d, (long long)len, (long long)size);
  if (step <= 0)
    return tl_error_set(TL_ERR_RUNTIME, "step is %lld but must be > 0", (long long)step);
  tl_tensor_view_of(out, in);
  if (in->ndim == 0) {
    out->ndim = 1;
    out->shape[0] = size;
    out->strides[0] = 1;
    return TL_OK;
  }
  out->shape[d] = (len - size) / step + 1;
  out->strides[d] = stride * step;
  out->shape[in->ndim] = size;
  out->strides[in->ndim] = stride;
  out->ndim = in->ndim + 1;
  return TL_OK;
}

tl_status tl_view_as_strided(tl_tensor *out, const tl_tensor *in, int ndim, const int64_t *shape,
                             const int64_t *strides, int64_t offset)
{
  char sh[256], st[256];
  int64_t numel;
  for (int i = 0; i < ndim; i++)
    if (shape[i] < 0)
      return tl_error_set(TL_ERR_RUNTIME, "Trying to create tensor with negative dimension %lld: "
                                          "%s", (long long)shape[i],
                          tl_shape_str(sh, sizeof sh, ndim, shape));
  if (tl_shape_count(ndim, shape, &numel) != TL_OK)
    return tl_error_status();
  if (offset < 0)
    return tl_error_set(TL_ERR_RUNTIME, "as_strided: Negative storage offset %lld is not "
                                        "supported", (long long)offset);
  int64_t last = offset; /* the furthest element the view can reach */
  for (int i = 0; i < ndim; i++) {
    if (strides[i] < 0)
      return tl_error_set(TL_ERR_RUNTIME, "as_strided: Negative strides are not supported at "
                                          "the moment, got strides: %s",
                          tl_shape_str(st, sizeof st, ndim, strides));
    int64_t reach;
    if (numel && (__builtin_mul_overflow(shape[i] - 1, strides[i], &reach) ||
                  __builtin_add_overflow(last, reach, &last)))
      return tl_error_set(TL_ERR_RUNTIME, "as_strided: sizes %s, strides %s and storage offset "
                                          "%lld reach an element past int64's range",
                          tl_shape_str(sh, sizeof sh, ndim, shape),
                          tl_shape_str(st, sizeof st, ndim, strides), (long long)offset);
  }
  int64_t capacity = (int64_t)(in->storage->nbytes / tl_dtype_size(in->dtype));
  if (numel && last >= capacity)
    goto out_of_bounds;
  view_init(out, in, ndim);
  out->offset = offset;
  memcpy(out->shape, shape, (size_t)ndim * sizeof *shape);
  memcpy(out->strides, strides, (size_t)ndim * sizeof *strides);
  return TL_OK;
out_of_bounds:
  return tl_error_set(TL_ERR_RUNTIME, "setStorage: sizes %s, strides %s, storage offset %lld "
                                      "require a storage of at least %llu elements, but the "
                                      "storage holds only %lld",
                      tl_shape_str(sh, sizeof sh, ndim, shape),
                      tl_shape_str(st, sizeof st, ndim, strides), (long long)offset,
                      (unsigned long long)last + 1, /* last may be INT64_MAX */
                      (long long)(in->storage->nbytes / tl_dtype_size(in->dtype)));
}

tl_status tl_view_unflatten(tl_tensor *out, const tl_tensor *in, int64_t dim, int n,
                            const int64_t *sizes)
{
  char buf[256];
  int d;
  if (in->ndim == 0)
    return tl_error_set(TL_ERR_RUNTIME, "unflatten: Dimension size must be non-zero");
  if (tl_dim_wrap(dim, in->ndim, &d) != TL_OK)
    return tl_error_status();
  if (n == 0)
    return tl_error_set(TL_ERR_RUNTIME, "unflatten: sizes must be non-empty");
  if (in->ndim - 1 + n > TL_MAX_DIMS)
    return tl_error_set(TL_ERR_VALUE, "tensors have at most %d dimensions", TL_MAX_DIMS);
  int64_t shape[TL_MAX_DIMS], known = 1;
  int infer = -1;
  for (int i = 0; i < n; i++) {
    if (sizes[i] == -1 && infer < 0) {
      infer = i;
      continue;
    }
    if (sizes[i] < 0)
      return tl_error_set(TL_ERR_RUNTIME, "unflatten: only one dimension can be inferred, got "
                                          "sizes %s", tl_shape_str(buf, sizeof buf, n, sizes));
    if (__builtin_mul_overflow(known, sizes[i], &known))
      return tl_error_set(TL_ERR_RUNTIME, "unflatten: sizes %s are too large",
                          tl_shape_str(buf, sizeof buf, n, sizes));
  }
  int64_t size = in->shape[d];
  bool ok = infer >= 0 ? known != 0 && size % known == 0 : known == size;
  if (!ok)
    return tl_error_set(TL_ERR_RUNTIME, "unflatten: Provided sizes %s don't multiply up to the "
                                        "size of dim %lld (%lld) in the input tensor",
                        tl_shape_str(buf, sizeof buf, n, sizes), (long long)dim, (long long)size);
  int nd = 0;
  for (int i = 0; i < d; i++)
    shape[nd++] = in->shape[i];
  for (int i = 0; i < n; i++)
    shape[nd++] = i == infer ? size / known : sizes[i];
  for (int i = d + 1; i < in->ndim; i++)
    shape[nd++] = in->shape[i];
  return tl_view_reshape(out, in, nd, shape, false);
}

tl_status tl_view_atleast(tl_tensor *out, const tl_tensor *in, int ndim)
{
  /* NumPy's atleast_{1,2,3}d: 0-d -> (1,)*, 1-d (n) -> (1, n) / (1, n, 1), 2-d (m, n) ->
   * (m, n, 1). */
  tl_tensor_view_of(out, in);
  if (in->ndim >= ndim)
    return TL_OK;
  int64_t shape[3] = {1, 1, 1};
  if (in->ndim == 1)
    shape[1] = in->shape[0];
  else if (in->ndim == 2) {
    shape[0] = in->shape[0];
    shape[1] = in->shape[1];
  }
  tl_tensor_release(out);
  return tl_view_reshape(out, in, ndim, shape, false);
}

tl_status tl_view_dtype(tl_tensor *out, const tl_tensor *in, tl_dtype dtype)
{
  /* Refusals are TL_ERR_VIEW: NumPy raises ValueError for them, PyTorch
   * RuntimeError, and x.view(dtype) is both libraries' spelling. */
  /* PyTorch's words name its scalar types: "view Int as Long" */
  const char *from = tl_dtype_scalar_name(in->dtype), *to = tl_dtype_scalar_name(dtype);
  int64_t old_size = (int64_t)tl_dtype_size(in->dtype), new_size = (int64_t)tl_dtype_size(dtype);
  if (old_size == new_size) {
    tl_tensor_view_of(out, in);
    out->dtype = dtype;
    return TL_OK;
  }
  /* Different widths: the last dim must be contiguous and hold whole elements
   * of the new dtype, and every other stride and the offset must, too. */
  int last = in->ndim - 1;
  if (in->ndim == 0)
    return tl_error_set(TL_ERR_VIEW, "self.dim() cannot be 0 to view %s as %s (different "
                                     "element sizes)", from, to);
  /* An empty tensor reads no memory: only its last dim's bytes must divide
   * (NumPy views zeros((2, 0), int32) as int64; PyTorch refuses its strides). */
  bool empty = tl_tensor_numel(in) == 0;
  if (!empty && in->strides[last] != 1 && in->shape[last] != 1)
    return tl_error_set(TL_ERR_VIEW, "self.stride(-1) must be 1 to view %s as %s (different "
                                     "element sizes), but got %lld",
                        from, to, (long long)in->strides[last]);
  int64_t last_bytes = in->shape[last] * old_size;
  if (last_bytes % new_size)
    return tl_error_set(TL_ERR_VIEW, "self.size(-1) must be divisible by %lld to view %s as "
                                     "%s (different element sizes), but got %lld",
                        (long long)(new_size / old_size > 1 ? new_size / old_size : 1), from, to,
                        (long long)in->shape[last]);
  if (empty) {
    tl_tensor_view_of(out, in);
    out->dtype = dtype;
    out->offset = in->offset * old_size / new_size;
    out->shape[last] = last_bytes / new_size;
    tl_shape_contiguous_strides(out->ndim, out->shape, out->strides);
    return TL_OK;
  }
  if (in->offset * old_size % new_size)
    return tl_error_set(TL_ERR_VIEW, "self.storage_offset() must be divisible by %lld to view "
                                     "%s as %s (different element sizes), but got %lld",
                        (long long)(new_size / old_size), from, to, (long long)in->offset);
  for (int i = 0; i < last; i++)
    if (in->strides[i] * old_size % new_size)
      return tl_error_set(TL_ERR_VIEW, "self.stride(%d) must be divisible by %lld to view %s "
                                       "as %s (different element sizes), but got %lld",
                          i, (long long)(new_size / old_size), from, to,
                          (long long)in->strides[i]);
  tl_tensor_view_of(out, in);
  out->dtype = dtype;
  out->offset = in->offset * old_size / new_size;
  for (int i = 0; i < last; i++)
    out->strides[i] = in->strides[i] * old_size / new_size;
  out->shape[last] = last_bytes / new_size;
  out->strides[last] = 1;
  return TL_OK;
}

tl_status tl_view_complex_part(tl_tensor *out, const tl_tensor *in, bool imag)
{
  if (!tl_dtype_is_complex(in->dtype))
    return tl_error_set(TL_ERR_RUNTIME, "%s is not implemented for tensors with non-complex "
                                        "dtypes.", imag ? "imag" : "real");
  /* A complex element is two reals side by side: double every stride and the
   * offset, and step one real further for the imaginary part. */
  tl_tensor_view_of(out, in);
  out->dtype = tl_dtype_to_real(in->dtype);
  out->offset = 2 * in->offset + (imag ? 1 : 0);
  for (int i = 0; i < in->ndim; i++)
    out->strides[i] = 2 * in->strides[i];
  return TL_OK;
}
