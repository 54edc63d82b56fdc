/* shape.c - shapes, strides, broadcasting and the view bookkeeping of tl_tensor. */
#include <stdio.h>
#include <stdint.h>
#include <string.h>

#include "ndcore/tensor/tl_tensor.h"

int64_t tl_tensor_numel(const tl_tensor *t)
{
  /* unsigned: an empty tensor's sizes before its 0 may multiply past int64
   * ([2^62, 3, 0]); tl_shape_numel let no product pass uint64 */
  uint64_t n = 1;
  for (int i = 0; i < t->ndim; i++)
    n *= (uint64_t)t->shape[i];
  return (int64_t)n;
}

bool tl_tensor_is_contiguous(const tl_tensor *t)
{
  int64_t expected = 1;
  if (tl_tensor_numel(t) == 0) /* no element, no layout */
    return true;
  for (int i = t->ndim - 1; i >= 0; i--) {
    if (t->shape[i] != 1 && t->strides[i] != expected)
      return false;
    expected *= t->shape[i];
  }
  return true;
}

bool tl_tensor_has_internal_overlap(const tl_tensor *t)
{
  /* A tensor with no elements has none to share, whatever its strides (NumPy
   * hands empty arrays over with zero strides: np.zeros((0, 3))[:, None]). */
  bool overlap = false;
  for (int i = 0; i < t->ndim; i++) {
    if (t->shape[i] == 0)
      return false;
    if (t->strides[i] == 0 && t->shape[i] > 1)
      overlap = true;
  }
  return overlap;
}

void tl_shape_contiguous_strides(int ndim, const int64_t *shape, int64_t *strides)
{
  /* unsigned: the product past the first dim is never stored, and callers have
   * checked the stored ones with tl_shape_numel */
  uint64_t s = 1;
  for (int i = ndim - 1; i >= 0; i--) {
    strides[i] = (int64_t)s;
    s *= (uint64_t)(shape[i] > 0 ? shape[i] : 1);
  }
}

const char *tl_shape_str(char *buf, size_t size, int ndim, const int64_t *shape)
{
  size_t used = (size_t)snprintf(buf, size, "[");
  for (int i = 0; i < ndim && used < size; i++)
    used += (size_t)snprintf(buf + used, size - used, i ? ", %lld" : "%lld", (long long)shape[i]);
  if (used < size)
    snprintf(buf + used, size - used, "]");
  return buf;
}

const char *tl_device_type_name(tl_device_type type)
{
  static const char *const names[TL_DEVICE_COUNT] = {
      [TL_DEVICE_CPU] = "cpu", [TL_DEVICE_CUDA] = "cuda", [TL_DEVICE_FAKE] = "fake",
      [TL_DEVICE_META] = "meta"};
  return names[type];
}

const char *tl_device_str(char *buf, size_t size, tl_device d)
{
  if (d.index < 0)
    snprintf(buf, size, "%s", tl_device_type_name(d.type));
  else
    snprintf(buf, size, "%s:%d", tl_device_type_name(d.type), d.index);
  return buf;
}

/* The element count of a shape as PyTorch counts it: the sizes multiplied
 * in order, an overflow on the way sticking (so [2^62, 2^62, 0] overflows
 * and [2^62, 0, 2^62] is empty), the product an int64. */
static bool numel_overflows(int ndim, const int64_t *shape, uint64_t *n)
{
  bool overflow = false;
  *n = 1;
  for (int i = 0; i < ndim; i++)
    overflow |= __builtin_mul_overflow(*n, (uint64_t)shape[i], n);
  return overflow || *n > (uint64_t)INT64_MAX;
}

tl_status tl_shape_count(int ndim, const int64_t *shape, int64_t *numel)
{
  char buf[256];
  uint64_t n;
  if (ndim > TL_MAX_DIMS)
    return tl_error_set(TL_ERR_VALUE, "tensors have at most %d dimensions, got %d", TL_MAX_DIMS,
                        ndim);
  for (int i = 0; i < ndim; i++)
    if (shape[i] < 0)
      return tl_error_set(TL_ERR_VALUE, "negative dimension %lld in shape %s",
                          (long long)shape[i], tl_shape_str(buf, sizeof buf, ndim, shape));
  if (numel_overflows(ndim, shape, &n))
    return tl_error_set(TL_ERR_SIZE, "numel: integer multiplication overflow (shape %s)",
                        tl_shape_str(buf, sizeof buf, ndim, shape));
  /* torchlike's own limit: any element's byte offset stays in int64 (16-byte
   * elements), so no kernel need guard its index arithmetic */
  if (n > ((uint64_t)1 << 56))
    return tl_error_set(TL_ERR_SIZE, "shape %s is too large: torchlike holds at most 2^56 "
                        "elements", tl_shape_str(buf, sizeof buf, ndim, shape));
  *numel = (int64_t)n;
  return TL_OK;
}

tl_status tl_shape_numel(int ndim, const int64_t *shape, int64_t *numel)
{
  char buf[256];
  int64_t span = 1;
  if (tl_shape_count(ndim, shape, numel) != TL_OK)
    return tl_error_status();
  /* The row-major strides multiply the sizes after each dim (0 counts as 1)
   * and must be int64s, as PyTorch's: an empty tensor may have strides far
   * past the element limit ([0, 2^62] has stride 2^62), which no kernel
   * reads, as it has no element to read. */
  for (int i = 1; i < ndim; i++)
    if (__builtin_mul_overflow(span, shape[i] > 1 ? shape[i] : 1, &span))
      return tl_error_set(TL_ERR_SIZE, "Stride calculation overflowed (shape %s)",
                          tl_shape_str(buf, sizeof buf, ndim, shape));
  return TL_OK;
}

tl_status tl_dim_wrap(int64_t dim, int ndim, int *out)
{
  int64_t n = ndim > 0 ? ndim : 1; /* a 0-d tensor accepts dim 0 and -1, as in PyTorch */
  if (dim < -n || dim >= n)
    return tl_error_set(TL_ERR_AXIS,
                        "Dimension out of range (expected to be in range of [%lld, %lld], but got %lld)",
                        (long long)-n, (long long)(n - 1), (long long)dim);
  *out = (int)(dim < 0 ? dim + n : dim);
  return TL_OK;
}

tl_status tl_shape_broadcast(int nda, const int64_t *a, int ndb, const int64_t *b, int *ndout,
                             int64_t *out)
{
  int nd = nda > ndb ? nda : ndb;
  int64_t result[TL_MAX_DIMS];
  for (int i = nd - 1; i >= 0; i--) { /* from the last dim: PyTorch names the last mismatch */
    int64_t da = i < nd - nda ? 1 : a[i - (nd - nda)];
    int64_t db = i < nd - ndb ? 1 : b[i - (nd - ndb)];
    if (da != db && da != 1 && db != 1) {
      char sa[256], sb[256];
      return tl_error_set(TL_ERR_BROADCAST, "The size of tensor a (%lld) must match the size of "
                          "tensor b (%lld) at non-singleton dimension %d: shapes %s and %s cannot "
                          "be broadcast together", (long long)da, (long long)db, i,
                          tl_shape_str(sa, sizeof sa, nda, a), tl_shape_str(sb, sizeof sb, ndb, b));
    }
    result[i] = da == 1 ? db : da;
  }
  memcpy(out, result, (size_t)nd * sizeof *out);
  *ndout = nd;
  return TL_OK;
}

static tl_status tensor_alloc(tl_tensor *t, tl_dtype dtype, int ndim, const int64_t *shape,
                              tl_device device, bool zeroed)
{
  int64_t numel;
  if (tl_shape_numel(ndim, shape, &numel) != TL_OK)
    return tl_error_status();
  size_t nbytes = (size_t)numel * tl_dtype_size(dtype);
  tl_storage *s = zeroed ? tl_storage_new_zeroed(device, nbytes) : tl_storage_new(device, nbytes);
  if (!s)
    return tl_error_status();
  t->storage = s;
  t->dtype = dtype;
  t->ndim = ndim;
  t->offset = 0;
  if (ndim > 0) /* 0-d callers may pass shape == NULL */
    memcpy(t->shape, shape, (size_t)ndim * sizeof *shape);
  tl_shape_contiguous_strides(ndim, shape, t->strides);
  return TL_OK;
}

tl_status tl_tensor_empty(tl_tensor *t, tl_dtype dtype, int ndim, const int64_t *shape,
                          tl_device device)
{
  return tensor_alloc(t, dtype, ndim, shape, device, false);
}

tl_status tl_tensor_zeros(tl_tensor *t, tl_dtype dtype, int ndim, const int64_t *shape,
                          tl_device device)
{
  return tensor_alloc(t, dtype, ndim, shape, device, true);
}

void tl_tensor_view_of(tl_tensor *out, const tl_tensor *src)
{
  *out = *src;
  tl_storage_incref(src->storage);
}

void tl_tensor_release(tl_tensor *t)
{
  tl_storage_decref(t->storage);
  t->storage = NULL;
}

void tl_tensor_release_n(int n, tl_tensor *ts)
{
  for (int i = 0; i < n; i++)
    tl_tensor_release(&ts[i]);
}
