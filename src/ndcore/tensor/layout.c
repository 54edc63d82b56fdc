/* layout.c - the order of a tensor's dimensions in memory, and new tensors
 * laid out in a given order.
 *
 * A new result takes the layout of its operands, as PyTorch's and NumPy's
 * do: x.t() * 2 is column-major, a channels-last image stays channels-last
 * through relu, and clone()/empty_like() copy the input's strides.  Besides
 * the answer users can see (strides, is_contiguous), it keeps the loops
 * contiguous: an elementwise op on transposed operands into a row-major
 * result would read every operand across its strides.
 *
 * An order lists dims outermost first; the innermost has stride 1. */
#include <string.h>

#include "ndcore/tensor/tl_tensor.h"

static int64_t magnitude(int64_t v) { return v < 0 ? -v : v; }

/* The stride of result dim d in operand t (right-aligned as in broadcasting),
 * 0 where t is broadcast along d. */
static int64_t operand_stride(const tl_tensor *t, int ndim, const int64_t *shape, int d)
{
  int k = d - (ndim - t->ndim);
  if (k < 0 || (t->shape[k] == 1 && shape[d] != 1))
    return 0;
  return magnitude(t->strides[k]);
}

/* Does dim a, now placed just inside dim b, belong outside it?  1: yes (the
 * first operand that tells the two apart has the larger stride along a, or
 * equal strides and a is the longer dim), -1: no, 0: no operand tells. */
static int belongs_outside(int n, const tl_tensor *const *ts, int ndim, const int64_t *shape,
                           int a, int b)
{
  for (int i = 0; i < n; i++) {
    int64_t sa = operand_stride(ts[i], ndim, shape, a);
    int64_t sb = operand_stride(ts[i], ndim, shape, b);
    if (sa == 0 || sb == 0)
      continue;
    if (sa != sb)
      return sa > sb ? 1 : -1;
    if (shape[a] > shape[b])
      return 1;
  }
  return 0;
}

void tl_layout_order(int n, const tl_tensor *const *ts, int ndim, const int64_t *shape,
                     int *order)
{
  /* Insertion sort, innermost first, starting from row-major order; a pair no
   * operand tells apart keeps its place but does not stop the scan, so a
   * dim can still move past it to where a stride puts it. */
  int inner[TL_MAX_DIMS];
  for (int i = 0; i < ndim; i++)
    inner[i] = ndim - 1 - i;
  for (int i = 1; i < ndim; i++) {
    int cur = i;
    for (int j = i - 1; j >= 0; j--) {
      int c = belongs_outside(n, ts, ndim, shape, inner[j], inner[cur]);
      if (c < 0)
        break;
      if (c > 0) {
        int tmp = inner[j];
        inner[j] = inner[cur];
        inner[cur] = tmp;
        cur = j;
      }
    }
  }
  for (int i = 0; i < ndim; i++)
    order[i] = inner[ndim - 1 - i];
}

void tl_layout_strides(int ndim, const int64_t *shape, const int *order, int64_t *strides)
{
  uint64_t s = 1; /* unsigned, as in tl_shape_contiguous_strides */
  for (int i = ndim - 1; i >= 0; i--) {
    strides[order[i]] = (int64_t)s;
    s *= (uint64_t)(shape[order[i]] > 0 ? shape[order[i]] : 1);
  }
}

/* Its strides then describe a layout a new tensor can take as they are. */
bool tl_tensor_has_strides(const tl_tensor *t, const int64_t *strides)
{
  for (int i = 0; i < t->ndim; i++)
    if (t->shape[i] != 1 && t->strides[i] != strides[i])
      return false;
  return true;
}

static bool dense_in(const tl_tensor *t, const int *order)
{
  int64_t strides[TL_MAX_DIMS];
  tl_layout_strides(t->ndim, t->shape, order, strides);
  return tl_tensor_has_strides(t, strides);
}

bool tl_tensor_is_dense(const tl_tensor *t)
{
  int order[TL_MAX_DIMS];
  tl_layout_order(1, &t, t->ndim, t->shape, order);
  return dense_in(t, order);
}

bool tl_tensor_same_block(const tl_tensor *a, const tl_tensor *b)
{
  if (a->dtype != b->dtype || a->ndim != b->ndim ||
      memcmp(a->shape, b->shape, (size_t)a->ndim * sizeof *a->shape))
    return false;
  if (tl_tensor_is_contiguous(a) && tl_tensor_is_contiguous(b))
    return true;
  return !memcmp(a->strides, b->strides, (size_t)a->ndim * sizeof *a->strides) &&
         tl_tensor_is_dense(a);
}

tl_status tl_format_order(tl_format format, const tl_tensor *like, int *order)
{
  int ndim = like->ndim;
  switch (format) {
  case TL_FORMAT_PRESERVE:
    tl_layout_order(1, &like, ndim, like->shape, order);
    return TL_OK;
  case TL_FORMAT_CHANNELS_LAST:
  case TL_FORMAT_CHANNELS_LAST_3D: {
    int want = format == TL_FORMAT_CHANNELS_LAST ? 4 : 5;
    if (ndim != want)
      return tl_error_set(TL_ERR_RUNTIME, "required rank %d tensor to use %s format", want,
                          want == 4 ? "channels_last" : "channels_last_3d");
    /* batch, the spatial dims, then channels innermost */
    order[0] = 0;
    for (int i = 2; i < ndim; i++)
      order[i - 1] = i;
    order[ndim - 1] = 1;
    return TL_OK;
  }
  case TL_FORMAT_CONTIGUOUS:
  default:
    for (int i = 0; i < ndim; i++)
      order[i] = i;
    return TL_OK;
  }
}

tl_status tl_tensor_empty_ordered(tl_tensor *t, tl_dtype dtype, int ndim, const int64_t *shape,
                                  tl_device device, const int *order)
{
  if (tl_tensor_empty(t, dtype, ndim, shape, device) != TL_OK)
    return tl_error_status();
  if (order)
    tl_layout_strides(ndim, shape, order, t->strides);
  return TL_OK;
}

tl_status tl_format_strides(tl_format format, const tl_tensor *like, int64_t *strides)
{
  int order[TL_MAX_DIMS];
  if (tl_format_order(format, like, order) != TL_OK)
    return tl_error_status();
  /* preserve_format keeps a dense input's strides exactly, those of its
   * size-1 dims included */
  if (format == TL_FORMAT_PRESERVE && dense_in(like, order))
    memcpy(strides, like->strides, (size_t)like->ndim * sizeof *like->strides);
  else
    tl_layout_strides(like->ndim, like->shape, order, strides);
  return TL_OK;
}

tl_status tl_tensor_empty_format(tl_tensor *t, const tl_tensor *like, tl_dtype dtype,
                                 tl_device device, tl_format format)
{
  int64_t strides[TL_MAX_DIMS];
  if (tl_format_strides(format, like, strides) != TL_OK ||
      tl_tensor_empty(t, dtype, like->ndim, like->shape, device) != TL_OK)
    return tl_error_status();
  memcpy(t->strides, strides, (size_t)like->ndim * sizeof *strides);
  return TL_OK;
}

tl_status tl_tensor_empty_shaped(tl_tensor *t, tl_dtype dtype, int ndim, const int64_t *shape,
                                 tl_device device, tl_format format)
{
  tl_tensor like = {.ndim = ndim};
  memcpy(like.shape, shape, (size_t)ndim * sizeof *shape);
  tl_shape_contiguous_strides(ndim, like.shape, like.strides);
  return tl_tensor_empty_format(t, &like, dtype, device, format);
}

tl_format tl_tensor_suggest_format(const tl_tensor *t)
{
  if ((t->ndim != 4 && t->ndim != 5) || t->strides[1] == 0)
    return TL_FORMAT_CONTIGUOUS;
  /* walk the dims innermost first (channels, the spatial dims from the
   * last, the batch): each stride at least the extent of those inside it */
  int inner[5] = {1};
  for (int i = 1; i < t->ndim - 1; i++)
    inner[i] = t->ndim - i;
  inner[t->ndim - 1] = 0;
  int64_t extent = 0;
  for (int i = 0; i < t->ndim; i++) {
    int d = inner[i];
    if (t->shape[d] == 0 || t->strides[d] < extent)
      return TL_FORMAT_CONTIGUOUS;
    /* (N, 1, 1, 1) row-major, or (N, 1, 1, W) sliced to one column: the
     * batch's stride equals the channels' and nothing tells; row-major */
    if (d == 0 && extent == t->strides[1])
      return TL_FORMAT_CONTIGUOUS;
    extent = t->strides[d] * (t->shape[d] > 1 ? t->shape[d] : 1);
  }
  return t->ndim == 4 ? TL_FORMAT_CHANNELS_LAST : TL_FORMAT_CHANNELS_LAST_3D;
}
