/* shape_ops.c - shape manipulation that computes: cat/stack, flip/roll/rot90,
 * repeat/tile/repeat_interleave, tril/triu, diag/diag_embed, pad; the split
 * plans; meshgrid and broadcast_tensors (which return views).
 *
 * No op here has an element loop of its own.  Each builds views of its input
 * and of a freshly allocated output (slices, flips as negative strides,
 * repeats as stride-0 dims) and moves data with tl_tensor_copy, the one
 * copy of the kernel table (ops.def COPY), so the device's copy kernel does
 * the strided work, the casting and the threading, and no host code touches
 * device memory here.  Outputs are contiguous and on the input's device;
 * bounds are checked before any view is built.                             */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ndcore/dispatch/tl_dispatch.h"
#include "ndcore/kernels/tl_shape_ops.h"
#include "ndcore/tensor/tl_views.h"

/* ---- helpers ------------------------------------------------------------------ */

/* Sizes and offsets from the user are checked against this before any
 * arithmetic, so sums and products of two of them cannot overflow int64. */
#define TL_SIZE_LIMIT ((int64_t)1 << 56)

static tl_status check_offset(const char *func, int64_t k)
{
  if (k > TL_SIZE_LIMIT || k < -TL_SIZE_LIMIT)
    return tl_error_set(TL_ERR_VALUE, "%s: %lld is out of range", func, (long long)k);
  return TL_OK;
}

static tl_status alloc_zeros(tl_tensor *out, tl_dtype dtype, int ndim, const int64_t *shape,
                             const tl_tensor *like)
{
  /* zero bits are 0 in every dtype; the device's backend writes them */
  return tl_tensor_zeros(out, dtype, ndim, shape, tl_tensor_device(like));
}

/* dst = src (broadcast), dst being (a view of) an output this file allocated. */
static tl_status copy_into(tl_tensor *dst, const tl_tensor *src)
{
  return tl_tensor_copy(dst, src);
}

/* dst[dim, start:start+length] = src (src broadcasts to that slice). */
static tl_status copy_to_slice(const tl_tensor *dst, int dim, int64_t start, int64_t length,
                               const tl_tensor *src)
{
  if (length == 0)
    return TL_OK;
  tl_tensor view;
  tl_tensor_view_of(&view, dst);
  tl_view_slice(&view, dim, start, length, 1);
  tl_status status = copy_into(&view, src);
  tl_tensor_release(&view);
  return status;
}

/* Reverse dim d of a view in place (a negative stride). */
static void reverse_dim(tl_tensor *t, int d)
{
  if (t->shape[d] > 0)
    t->offset += (t->shape[d] - 1) * t->strides[d];
  t->strides[d] = -t->strides[d];
}

/* A contiguous copy of a view. */
static tl_status materialize(tl_tensor *out, const tl_tensor *view)
{
  if (tl_tensor_empty(out, view->dtype, view->ndim, view->shape, tl_tensor_device(view)) != TL_OK)
    return tl_error_status();
  if (copy_into(out, view) != TL_OK) {
    tl_tensor_release(out);
    return tl_error_status();
  }
  return TL_OK;
}

/* ---- joining -------------------------------------------------------------------- */

static bool legacy_empty(const tl_tensor *t) { return t->ndim == 1 && t->shape[0] == 0; }

tl_status tl_shape_cat(tl_tensor *out, int n, const tl_tensor *const *ins, int64_t dim)
{
  if (n == 0)
    return tl_error_set(TL_ERR_VALUE, "torch.cat(): expected a non-empty list of Tensors");
  if (tl_check_same_device(n, ins) != TL_OK)
    return tl_error_status();
  /* PyTorch still accepts (0,)-shaped tensors next to anything and skips them;
   * the first other tensor sets the shape that the rest must match. */
  int ref = -1;
  tl_dtype dtype = ins[0]->dtype;
  for (int i = 0; i < n; i++) {
    if (ins[i]->ndim == 0)
      return tl_error_set(TL_ERR_RUNTIME, "zero-dimensional tensor (at position %d) cannot be "
                                          "concatenated", i);
    if (tl_promote_check(dtype, ins[i]->dtype) != TL_OK)
      return tl_error_status();
    dtype = tl_promote_types(dtype, ins[i]->dtype);
    if (ref < 0 && !legacy_empty(ins[i]))
      ref = i;
  }
  /* all of them (0,)-shaped: PyTorch wraps dim against none of them, so any
   * dim joins them (cat([empty, empty], dim=5) is one) */
  const bool all_empty = ref < 0;
  if (all_empty)
    ref = 0;
  const tl_tensor *r = ins[ref];
  int d = 0;
  if (!all_empty && tl_dim_wrap(dim, r->ndim, &d) != TL_OK)
    return tl_error_status();
  int64_t shape[TL_MAX_DIMS];
  memcpy(shape, r->shape, (size_t)r->ndim * sizeof *shape);
  shape[d] = 0;
  tl_format format = tl_tensor_suggest_format(r);
  for (int i = 0; i < n; i++) {
    const tl_tensor *t = ins[i];
    if (legacy_empty(t) && (i != ref || r->ndim != 1))
      continue;
    if (t->ndim != r->ndim)
      return tl_error_set(TL_ERR_RUNTIME, "Tensors must have same number of dimensions: got %d "
                                          "and %d", r->ndim, t->ndim);
    for (int k = 0; k < r->ndim; k++)
      if (k != d && t->shape[k] != r->shape[k])
        return tl_error_set(TL_ERR_RUNTIME, "Sizes of tensors must match except in dimension "
                                            "%d. Expected size %lld but got size %lld for "
                                            "tensor number %d in the list.",
                            d, (long long)r->shape[k], (long long)t->shape[k], i);
    if (__builtin_add_overflow(shape[d], t->shape[d], &shape[d])) /* huge empty tensors */
      return tl_error_set(TL_ERR_SIZE, "cat(): the joined size in dimension %d overflows "
                          "int64", d);
    /* channels-last when every joined tensor is (PyTorch's rule) */
    if (tl_tensor_suggest_format(t) != format)
      format = TL_FORMAT_CONTIGUOUS;
  }
  if (tl_tensor_empty_shaped(out, dtype, r->ndim, shape, tl_tensor_device(r), format) != TL_OK)
    return tl_error_status();
  int64_t at = 0;
  for (int i = 0; i < n; i++) {
    const tl_tensor *t = ins[i];
    if (legacy_empty(t) && r->ndim != 1)
      continue;
    if (copy_to_slice(out, d, at, t->shape[d], t) != TL_OK) {
      tl_tensor_release(out);
      return tl_error_status();
    }
    at += t->shape[d];
  }
  return TL_OK;
}

tl_status tl_shape_stack(tl_tensor *out, int n, const tl_tensor *const *ins, int64_t dim)
{
  char sa[256], sb[256];
  if (n == 0)
    return tl_error_set(TL_ERR_RUNTIME, "stack expects a non-empty TensorList");
  if (tl_check_same_device(n, ins) != TL_OK)
    return tl_error_status();
  const tl_tensor *r = ins[0];
  tl_dtype dtype = r->dtype;
  for (int i = 1; i < n; i++) {
    const tl_tensor *t = ins[i];
    if (t->ndim != r->ndim || memcmp(t->shape, r->shape, (size_t)r->ndim * sizeof *r->shape))
      return tl_error_set(TL_ERR_RUNTIME, "stack expects each tensor to be equal size, but got "
                                          "%s at entry 0 and %s at entry %d",
                          tl_shape_str(sa, sizeof sa, r->ndim, r->shape),
                          tl_shape_str(sb, sizeof sb, t->ndim, t->shape), i);
    if (tl_promote_check(dtype, t->dtype) != TL_OK)
      return tl_error_status();
    dtype = tl_promote_types(dtype, t->dtype);
  }
  int d;
  if (r->ndim + 1 > TL_MAX_DIMS)
    return tl_error_set(TL_ERR_VALUE, "tensors have at most %d dimensions", TL_MAX_DIMS);
  if (tl_dim_wrap(dim, r->ndim + 1, &d) != TL_OK)
    return tl_error_status();
  int64_t shape[TL_MAX_DIMS];
  for (int k = 0, j = 0; k <= r->ndim; k++)
    shape[k] = k == d ? n : r->shape[j++];
  if (tl_tensor_empty(out, dtype, r->ndim + 1, shape, tl_tensor_device(r)) != TL_OK)
    return tl_error_status();
  for (int i = 0; i < n; i++) {
    tl_tensor slot;
    tl_tensor_view_of(&slot, out);
    tl_status status = tl_view_select(&slot, d, i);
    if (status == TL_OK)
      status = copy_into(&slot, ins[i]);
    tl_tensor_release(&slot);
    if (status != TL_OK) {
      tl_tensor_release(out);
      return status;
    }
  }
  return TL_OK;
}

tl_status tl_shape_stack_kind(tl_tensor *out, int n, const tl_tensor *const *ins,
                              tl_stack_kind kind)
{
  static const char *const names[] = {"hstack", "vstack", "dstack", "column_stack"};
  if (n == 0)
    return tl_error_set(TL_ERR_RUNTIME, "%s expects a non-empty TensorList", names[kind]);
  tl_tensor *views = calloc((size_t)n, sizeof *views);
  const tl_tensor **ptrs = malloc((size_t)n * sizeof *ptrs);
  tl_status status = TL_OK;
  int made = 0;
  if (!views || !ptrs) {
    status = tl_error_set(TL_ERR_MEMORY, "%s: out of memory", names[kind]);
    goto done;
  }
  bool all_1d = true;
  for (; made < n; made++) {
    const tl_tensor *t = ins[made];
    if (kind == TL_STACK_COLUMN && t->ndim <= 1)
      status = tl_view_reshape(&views[made], t, 2, (int64_t[]){tl_tensor_numel(t), 1}, false);
    else
      status = tl_view_atleast(&views[made], t,
                               kind == TL_STACK_H ? 1 : kind == TL_STACK_V ? 2
                                                    : kind == TL_STACK_D ? 3 : 0);
    if (status != TL_OK)
      goto done;
    all_1d &= views[made].ndim == 1;
    ptrs[made] = &views[made];
  }
  int64_t dim = kind == TL_STACK_V ? 0 : kind == TL_STACK_D ? 2 : (kind == TL_STACK_H && all_1d) ? 0 : 1;
  status = tl_shape_cat(out, n, ptrs, dim);
done:
  for (int i = 0; i < made; i++)
    tl_tensor_release(&views[i]);
  free(views);
  free(ptrs);
  return status;
}

/* ---- split plans -------------------------------------------------------------- */

static tl_status spans_alloc(tl_span **spans, int64_t n)
{
  if (n > ((int64_t)1 << 30))
    return tl_error_set(TL_ERR_VALUE, "split: %lld pieces is too many", (long long)n);
  *spans = malloc((size_t)(n > 0 ? n : 1) * sizeof **spans);
  return *spans ? TL_OK : tl_error_set(TL_ERR_MEMORY, "split: out of memory for %lld pieces",
                                       (long long)n);
}

tl_status tl_split_by_size(int64_t size, int64_t split_size, tl_span **spans, int64_t *n)
{
  if (split_size < 0)
    return tl_error_set(TL_ERR_RUNTIME, "split expects split_size be non-negative, but got "
                                        "split_size=%lld", (long long)split_size);
  if (split_size == 0 && size != 0)
    return tl_error_set(TL_ERR_RUNTIME, "split_size can only be 0 if dimension size is 0, but "
                                        "got dimension size of %lld", (long long)size);
  /* ceil(size / split_size) without size + split_size, which leaves int64 for
   * split_size = 2**63-1 */
  *n = split_size == 0 || size == 0 ? 1 : size / split_size + (size % split_size != 0);
  if (spans_alloc(spans, *n) != TL_OK)
    return tl_error_status();
  for (int64_t i = 0; i < *n; i++) {
    int64_t start = i * split_size;
    (*spans)[i] = (tl_span){start, size - start < split_size ? size - start : split_size};
  }
  return TL_OK;
}

tl_status tl_split_by_sizes(int64_t size, int64_t n, const int64_t *sizes, tl_span **spans)
{
  char buf[256];
  int64_t total = 0;
  for (int64_t i = 0; i < n; i++) {
    if (sizes[i] < 0)
      return tl_error_set(TL_ERR_RUNTIME, "split_with_sizes expects split_sizes have only "
                                          "non-negative entries, but got split_sizes=%s",
                          tl_shape_str(buf, sizeof buf, (int)(n < 64 ? n : 64), sizes));
    total += sizes[i];
  }
  if (total != size)
    return tl_error_set(TL_ERR_RUNTIME, "split_with_sizes expects split_sizes to sum exactly to "
                                        "%lld (input tensor's size at dimension), but got "
                                        "split_sizes=%s", (long long)size,
                        tl_shape_str(buf, sizeof buf, (int)(n < 64 ? n : 64), sizes));
  if (spans_alloc(spans, n) != TL_OK)
    return tl_error_status();
  for (int64_t i = 0, at = 0; i < n; at += sizes[i], i++)
    (*spans)[i] = (tl_span){at, sizes[i]};
  return TL_OK;
}

tl_status tl_split_chunks(int64_t size, int64_t chunks, tl_span **spans, int64_t *n)
{
  if (chunks <= 0)
    return tl_error_set(TL_ERR_RUNTIME, "chunk expects `chunks` to be greater than 0, got: %lld",
                        (long long)chunks);
  int64_t split_size = size / chunks + (size % chunks != 0); /* ceil, without size + chunks */
  if (split_size == 0) { /* an empty dim gives `chunks` empty pieces */
    *n = chunks;
    if (spans_alloc(spans, chunks) != TL_OK)
      return tl_error_status();
    for (int64_t i = 0; i < chunks; i++)
      (*spans)[i] = (tl_span){0, 0};
    return TL_OK;
  }
  return tl_split_by_size(size, split_size, spans, n);
}

tl_status tl_split_sections(int64_t size, int64_t sections, tl_span **spans, int64_t *n)
{
  if (sections <= 0)
    return tl_error_set(TL_ERR_RUNTIME, "number of sections must be larger than 0, got %lld",
                        (long long)sections);
  *n = sections;
  if (spans_alloc(spans, sections) != TL_OK)
    return tl_error_status();
  int64_t base = size / sections, extra = size % sections;
  for (int64_t i = 0, at = 0; i < sections; i++) {
    int64_t len = base + (i < extra);
    (*spans)[i] = (tl_span){at, len};
    at += len;
  }
  return TL_OK;
}

/* Normalise a Python slice bound against size. */
static int64_t slice_bound(int64_t v, int64_t size)
{
  if (v < 0)
    v += size;
  return v < 0 ? 0 : v > size ? size : v;
}

tl_status tl_split_indices(int64_t size, int64_t n, const int64_t *indices, tl_span **spans)
{
  if (spans_alloc(spans, n + 1) != TL_OK)
    return tl_error_status();
  for (int64_t i = 0; i <= n; i++) {
    int64_t stop = i < n ? slice_bound(indices[i], size) : size;
    int64_t start = i > 0 ? slice_bound(indices[i - 1], size) : 0;
    (*spans)[i] = (tl_span){start, stop > start ? stop - start : 0};
  }
  return TL_OK;
}

/* ---- reordering ----------------------------------------------------------------- */

tl_status tl_shape_flip(tl_tensor *out, const tl_tensor *in, uint64_t dims)
{
  tl_tensor view = *in; /* borrowed: only read through */
  for (int d = 0; d < in->ndim; d++)
    if (dims >> d & 1)
      reverse_dim(&view, d);
  return materialize(out, &view);
}

/* dst = src rolled by shift along d (same shapes; dst allocated). */
static tl_status roll_dim(tl_tensor *dst, const tl_tensor *src, int d, int64_t shift)
{
  int64_t size = src->shape[d];
  if (size == 0)
    return copy_into(dst, src);
  int64_t s = ((shift % size) + size) % size;
  tl_tensor head, tail;
  tl_tensor_view_of(&head, src);
  tl_tensor_view_of(&tail, src);
  tl_view_slice(&head, d, 0, size - s, 1);
  tl_view_slice(&tail, d, size - s, s, 1);
  tl_status status = copy_to_slice(dst, d, s, size - s, &head);
  if (status == TL_OK)
    status = copy_to_slice(dst, d, 0, s, &tail);
  tl_tensor_release(&head);
  tl_tensor_release(&tail);
  return status;
}

tl_status tl_shape_roll(tl_tensor *out, const tl_tensor *in, int n, const int64_t *shifts,
                        const int64_t *dims)
{
  if (!dims) {
    if (n != 1)
      return tl_error_set(TL_ERR_RUNTIME, "shifts and dimensions must align. shifts: %d, dims:0",
                          n);
    tl_tensor flat, rolled = {0};
    int64_t numel = tl_tensor_numel(in);
    if (tl_view_reshape(&flat, in, 1, &numel, true) != TL_OK)
      return tl_error_status();
    tl_status status = tl_tensor_empty(&rolled, in->dtype, 1, &numel, tl_tensor_device(in));
    if (status == TL_OK)
      status = roll_dim(&rolled, &flat, 0, shifts[0]);
    if (status == TL_OK)
      status = tl_view_reshape(out, &rolled, in->ndim, in->shape, false);
    if (rolled.storage)
      tl_tensor_release(&rolled);
    tl_tensor_release(&flat);
    return status;
  }
  if (n == 0)
    return tl_error_set(TL_ERR_RUNTIME, "`shifts` required");
  int wrapped[TL_MAX_DIMS];
  for (int i = 0; i < n; i++)
    if (tl_dim_wrap(dims[i], in->ndim, &wrapped[i]) != TL_OK)
      return tl_error_status();
  /* One pass per dim: in -> tmp -> ... -> out. */
  tl_tensor cur, next;
  tl_tensor_view_of(&cur, in);
  for (int i = 0; i < n; i++) {
    if (tl_tensor_empty(&next, in->dtype, in->ndim, in->shape, tl_tensor_device(in)) != TL_OK)
      goto fail;
    int d = in->ndim ? wrapped[i] : 0;
    tl_status status = in->ndim ? roll_dim(&next, &cur, d, shifts[i]) : copy_into(&next, &cur);
    tl_tensor_release(&cur);
    cur = next;
    if (status != TL_OK)
      goto fail;
  }
  *out = cur;
  return TL_OK;
fail:
  tl_tensor_release(&cur);
  return tl_error_status();
}

tl_status tl_shape_rot90(tl_tensor *out, const tl_tensor *in, int64_t k, int ndims,
                         const int64_t *dims)
{
  int a, b;
  if (ndims != 2)
    return tl_error_set(TL_ERR_RUNTIME, "expected total rotation dims == 2, but got dims = %d",
                        ndims);
  if (in->ndim < 2)
    return tl_error_set(TL_ERR_RUNTIME, "expected total dims >= 2, but got total dims = %d",
                        in->ndim);
  if (tl_dim_wrap(dims[0], in->ndim, &a) != TL_OK || tl_dim_wrap(dims[1], in->ndim, &b) != TL_OK)
    return tl_error_status();
  if (a == b)
    return tl_error_set(TL_ERR_RUNTIME, "expected rotation dims to be different, but got dim0 = "
                                        "%d and dim1 = %d", a, b);
  /* Rotating from a towards b: k=1 reverses b then swaps, k=2 reverses both,
   * k=3 reverses a then swaps; one copy materialises the result. */
  tl_tensor view = *in; /* borrowed */
  switch (((k % 4) + 4) % 4) {
  case 1:
    reverse_dim(&view, b);
    break;
  case 2:
    reverse_dim(&view, a);
    reverse_dim(&view, b);
    break;
  case 3:
    reverse_dim(&view, a);
    break;
  default:
    return materialize(out, &view);
  }
  if (((k % 4) + 4) % 4 != 2) {
    int64_t s = view.shape[a], st = view.strides[a];
    view.shape[a] = view.shape[b];
    view.strides[a] = view.strides[b];
    view.shape[b] = s;
    view.strides[b] = st;
  }
  return materialize(out, &view);
}

/* ---- repeating -------------------------------------------------------------- */

tl_status tl_shape_repeat(tl_tensor *out, const tl_tensor *in, int n, const int64_t *reps)
{
  char buf[256];
  if (n < in->ndim)
    return tl_error_set(TL_ERR_RUNTIME, "Number of dimensions of repeat dims can not be smaller "
                                        "than number of dimensions of tensor");
  if (n > TL_MAX_DIMS)
    return tl_error_set(TL_ERR_VALUE, "tensors have at most %d dimensions, got %d repeats",
                        TL_MAX_DIMS, n);
  int lead = n - in->ndim;
  int64_t shape[TL_MAX_DIMS];
  for (int i = 0; i < n; i++) {
    if (reps[i] < 0)
      return tl_error_set(TL_ERR_RUNTIME, "Trying to create tensor with negative dimension "
                                          "%lld: %s", (long long)reps[i],
                          tl_shape_str(buf, sizeof buf, n, reps));
    if (__builtin_mul_overflow(reps[i], i < lead ? 1 : in->shape[i - lead], &shape[i]))
      return tl_error_set(TL_ERR_VALUE, "repeat: repeats %s make the shape too large",
                          tl_shape_str(buf, sizeof buf, n, reps));
  }
  if (tl_tensor_empty(out, in->dtype, n, shape, tl_tensor_device(in)) != TL_OK)
    return tl_error_status();
  if (tl_tensor_numel(out) == 0)
    return TL_OK;
  /* out viewed as (r0, s0, r1, s1 ...) receives the input with stride-0 r dims;
   * dims repeated once need no split, which keeps the view within TL_MAX_DIMS. */
  tl_tensor dst = *out, src = *in; /* borrowed */
  int64_t ds[TL_MAX_DIMS], dst_strides[TL_MAX_DIMS], ss[TL_MAX_DIMS], src_strides[TL_MAX_DIMS];
  int nd = 0;
  bool fits = true;
  for (int i = 0; i < n; i++) {
    int64_t size = i < lead ? 1 : in->shape[i - lead];
    int64_t stride = i < lead ? 0 : in->strides[i - lead];
    bool split = reps[i] != 1 && size != 1;
    if (nd + 1 + split > TL_MAX_DIMS) {
      fits = false;
      break;
    }
    if (split) {
      ds[nd] = ss[nd] = reps[i];
      src_strides[nd++] = 0;
    }
    ds[nd] = ss[nd] = split ? size : reps[i] * size;
    src_strides[nd++] = size == 1 ? 0 : stride;
  }
  if (!fits) {
    tl_tensor_release(out);
    return tl_error_set(TL_ERR_VALUE, "repeat: too many repeated dims for %d dimensions",
                        TL_MAX_DIMS);
  }
  tl_shape_contiguous_strides(nd, ds, dst_strides);
  dst.ndim = src.ndim = nd;
  memcpy(dst.shape, ds, (size_t)nd * sizeof *ds);
  memcpy(dst.strides, dst_strides, (size_t)nd * sizeof *ds);
  memcpy(src.shape, ss, (size_t)nd * sizeof *ss);
  memcpy(src.strides, src_strides, (size_t)nd * sizeof *ss);
  if (copy_into(&dst, &src) != TL_OK) {
    tl_tensor_release(out);
    return tl_error_status();
  }
  return TL_OK;
}

tl_status tl_shape_tile(tl_tensor *out, const tl_tensor *in, int n, const int64_t *reps)
{
  int64_t full[TL_MAX_DIMS];
  if (n > TL_MAX_DIMS)
    return tl_error_set(TL_ERR_VALUE, "tensors have at most %d dimensions, got %d repeats",
                        TL_MAX_DIMS, n);
  int lead = in->ndim > n ? in->ndim - n : 0;
  for (int i = 0; i < lead; i++)
    full[i] = 1;
  memcpy(full + lead, reps, (size_t)n * sizeof *reps);
  return tl_shape_repeat(out, in, n + lead, full);
}

/* repeats as an int64 list: one value broadcast to `count`, or one per index.
 * A device's repeats tensor is read through a host copy: the output's shape
 * depends on its values, so this is a sync PyTorch makes too. */
static tl_status repeat_counts(const tl_tensor *repeats_t, int64_t repeats, int64_t count,
                               int dim, int64_t *counts, int64_t *total)
{
  tl_tensor host = {0};
  tl_status st = TL_OK;
  *total = 0;
  int64_t len = repeats_t ? tl_tensor_numel(repeats_t) : 1;
  if (repeats_t && len != 1 && len != count)
    return tl_error_set(TL_ERR_RUNTIME, "repeats must have the same size as input along dim, but "
                                        "got repeats.size(0) = %lld and input.size(%d) = %lld",
                        (long long)len, dim, (long long)count);
  if (repeats_t && tl_tensor_device(repeats_t).type == TL_DEVICE_META) /* PyTorch's words */
    return tl_error_set(TL_ERR_RUNTIME, "cannot repeat_interleave a meta tensor without "
                                        "output_size");
  if (repeats_t && (st = tl_dispatch_host_view(&host, repeats_t)) != TL_OK)
    return st;
  for (int64_t i = 0; i < count; i++) {
    int64_t r = repeats;
    if (repeats_t) {
      int64_t j = len == 1 ? 0 : i;
      const char *p = (const char *)tl_tensor_data(&host) +
                      j * (host.ndim ? host.strides[0] : 0) * (int64_t)tl_dtype_size(host.dtype);
      r = tl_scalar_load(host.dtype, p).v.i;
    }
    if (r < 0) {
      st = tl_error_set(TL_ERR_RUNTIME, "repeats can not be negative");
      break;
    }
    counts[i] = r;
    if (__builtin_add_overflow(*total, r, total) || *total > TL_SIZE_LIMIT) {
      st = tl_error_set(TL_ERR_VALUE, "repeat_interleave: the repeats sum to more than %lld "
                                      "elements", (long long)TL_SIZE_LIMIT);
      break;
    }
  }
  if (repeats_t)
    tl_tensor_release(&host);
  return st;
}

tl_status tl_shape_repeat_interleave(tl_tensor *out, const tl_tensor *in,
                                     const tl_tensor *repeats_t, int64_t repeats,
                                     const int64_t *dim)
{
  tl_tensor src;
  int d = 0;
  int64_t *counts = NULL;
  bool allocated = false;
  tl_status status;
  if (repeats_t && (repeats_t->ndim > 1 || !tl_dtype_is_integral(repeats_t->dtype) ||
                    repeats_t->dtype == TL_DTYPE_BOOL))
    return tl_error_set(TL_ERR_RUNTIME, "repeat_interleave: repeats must be a 0-dim or 1-dim "
                                        "integer tensor, got %d-dim %s", repeats_t->ndim,
                        tl_dtype_names[repeats_t->dtype]);
  if (dim) {
    if (tl_dim_wrap(*dim, in->ndim, &d) != TL_OK)
      return tl_error_status();
    tl_tensor_view_of(&src, in);
    if (in->ndim == 0) { /* a 0-d input acts as shape (1,) */
      src.ndim = 1;
      src.shape[0] = 1;
      src.strides[0] = 1;
    }
  } else {
    int64_t numel = tl_tensor_numel(in);
    if (tl_view_reshape(&src, in, 1, &numel, true) != TL_OK)
      return tl_error_status();
  }
  int64_t size = src.shape[d], total;
  counts = malloc((size_t)(size > 0 ? size : 1) * sizeof *counts);
  if (!counts) {
    status = tl_error_set(TL_ERR_MEMORY, "repeat_interleave: out of memory");
    goto done;
  }
  if ((status = repeat_counts(repeats_t, repeats, size, d, counts, &total)) != TL_OK)
    goto done;
  int64_t shape[TL_MAX_DIMS];
  memcpy(shape, src.shape, (size_t)src.ndim * sizeof *shape);
  shape[d] = total;
  if ((status = tl_tensor_empty(out, in->dtype, src.ndim, shape, tl_tensor_device(in))) != TL_OK)
    goto done;
  allocated = true;
  if (!repeats_t || tl_tensor_numel(repeats_t) == 1) {
    /* One count for all: out viewed with dim d split as (size, r) takes the
     * input with a stride-0 r dim, in one copy. */
    int64_t r = size ? counts[0] : 0;
    tl_tensor dst = *out, from = src; /* borrowed */
    if (src.ndim + 1 > TL_MAX_DIMS || size * r == 0)
      goto per_index;
    memmove(dst.shape + d + 2, dst.shape + d + 1, (size_t)(src.ndim - d - 1) * sizeof(int64_t));
    memmove(from.shape + d + 2, from.shape + d + 1, (size_t)(src.ndim - d - 1) * sizeof(int64_t));
    memmove(from.strides + d + 2, from.strides + d + 1,
            (size_t)(src.ndim - d - 1) * sizeof(int64_t));
    dst.ndim = from.ndim = src.ndim + 1;
    dst.shape[d] = from.shape[d] = size;
    dst.shape[d + 1] = from.shape[d + 1] = r;
    from.strides[d + 1] = 0;
    tl_shape_contiguous_strides(dst.ndim, dst.shape, dst.strides);
    int64_t inner = 1;
    for (int i = d + 1; i < src.ndim; i++)
      inner *= src.shape[i];
    if (inner >= 16 || r >= size) {
      status = copy_into(&dst, &from);
      goto done;
    }
    /* Few repeats of a last dim: the iterator's rows would be r long, so
     * copy the input r times into strided slots instead (rows of size). */
    for (int64_t j = 0; j < r && status == TL_OK; j++) {
      tl_tensor slot = dst; /* borrowed */
      if ((status = tl_view_select(&slot, d + 1, j)) == TL_OK)
        status = copy_into(&slot, &src);
    }
    goto done;
  }
per_index:
  for (int64_t i = 0, at = 0; i < size && status == TL_OK; at += counts[i], i++) {
    if (counts[i] == 0)
      continue;
    tl_tensor piece;
    tl_tensor_view_of(&piece, &src);
    tl_view_slice(&piece, d, i, 1, 1);
    status = copy_to_slice(out, d, at, counts[i], &piece);
    tl_tensor_release(&piece);
  }
done:
  if (status != TL_OK && allocated)
    tl_tensor_release(out);
  tl_tensor_release(&src);
  free(counts);
  return status;
}

/* ---- triangles and diagonals ----------------------------------------------- */

tl_status tl_shape_tril(tl_tensor *out, const tl_tensor *in, int64_t diagonal, bool upper)
{
  if (in->ndim < 2)
    return tl_error_set(TL_ERR_RUNTIME, "%s: input tensor must have at least 2 dimensions",
                        upper ? "triu" : "tril");
  if (alloc_zeros(out, in->dtype, in->ndim, in->shape, in) != TL_OK)
    return tl_error_status();
  int rd = in->ndim - 2, cd = in->ndim - 1;
  int64_t rows = in->shape[rd], cols = in->shape[cd];
  /* Beyond +-(rows + cols) every diagonal keeps all or nothing: clamp, so
   * i + diagonal below cannot overflow. */
  if (diagonal > rows + cols)
    diagonal = rows + cols;
  if (diagonal < -(rows + cols))
    diagonal = -(rows + cols);
  if (tl_tensor_numel(in) == 0)
    return TL_OK;
  /* Row i keeps columns [0, i + k] (tril) or [i + k, cols) (triu): one copy per
   * row, each over the whole batch. */
  for (int64_t i = 0; i < rows; i++) {
    int64_t lo, hi;
    if (upper) {
      lo = i + diagonal < 0 ? 0 : i + diagonal > cols ? cols : i + diagonal;
      hi = cols;
    } else {
      lo = 0;
      hi = i + diagonal + 1 < 0 ? 0 : i + diagonal + 1 > cols ? cols : i + diagonal + 1;
    }
    if (hi <= lo)
      continue;
    tl_tensor src, dst;
    tl_tensor_view_of(&src, in);
    tl_tensor_view_of(&dst, out);
    tl_view_slice(&src, rd, i, 1, 1);
    tl_view_slice(&dst, rd, i, 1, 1);
    tl_view_slice(&src, cd, lo, hi - lo, 1);
    tl_view_slice(&dst, cd, lo, hi - lo, 1);
    tl_status status = copy_into(&dst, &src);
    tl_tensor_release(&src);
    tl_tensor_release(&dst);
    if (status != TL_OK) {
      tl_tensor_release(out);
      return status;
    }
  }
  return TL_OK;
}

/* Copy src into the diagonal (offset, d1, d2) of the zeroed out. */
static tl_status fill_diagonal(tl_tensor *out, const tl_tensor *src, int64_t offset, int64_t d1,
                               int64_t d2)
{
  tl_tensor diag;
  if (tl_view_diagonal(&diag, out, offset, d1, d2) != TL_OK)
    return tl_error_status();
  tl_status status = copy_into(&diag, src);
  tl_tensor_release(&diag);
  return status;
}

tl_status tl_shape_diag(tl_tensor *out, const tl_tensor *in, int64_t k)
{
  if (in->ndim == 2) {
    tl_tensor diag;
    if (tl_view_diagonal(&diag, in, k, 0, 1) != TL_OK)
      return tl_error_status();
    tl_status status = materialize(out, &diag);
    tl_tensor_release(&diag);
    return status;
  }
  if (in->ndim != 1)
    return tl_error_set(TL_ERR_RUNTIME, "diag(): Supports 1D or 2D tensors. Got %dD", in->ndim);
  if (check_offset("diag: diagonal", k) != TL_OK)
    return tl_error_status();
  int64_t n = in->shape[0] + (k < 0 ? -k : k);
  if (alloc_zeros(out, in->dtype, 2, (int64_t[]){n, n}, in) != TL_OK)
    return tl_error_status();
  if (fill_diagonal(out, in, k, 0, 1) != TL_OK) {
    tl_tensor_release(out);
    return tl_error_status();
  }
  return TL_OK;
}

tl_status tl_shape_diag_embed(tl_tensor *out, const tl_tensor *in, int64_t offset, int64_t dim1,
                              int64_t dim2)
{
  int a, b, nd = in->ndim + 1;
  if (in->ndim == 0)
    return tl_error_set(TL_ERR_RUNTIME, "diag_embed(): input must have at least 1 dimension");
  if (nd > TL_MAX_DIMS)
    return tl_error_set(TL_ERR_VALUE, "tensors have at most %d dimensions", TL_MAX_DIMS);
  if (tl_dim_wrap(dim1, nd, &a) != TL_OK || tl_dim_wrap(dim2, nd, &b) != TL_OK)
    return tl_error_status();
  if (a == b)
    return tl_error_set(TL_ERR_RUNTIME, "diagonal dimensions cannot be identical %lld, %lld",
                        (long long)dim1, (long long)dim2);
  if (check_offset("diag_embed: offset", offset) != TL_OK)
    return tl_error_status();
  int64_t n = in->shape[in->ndim - 1] + (offset < 0 ? -offset : offset), shape[TL_MAX_DIMS];
  for (int i = 0, j = 0; i < nd; i++)
    shape[i] = i == a || i == b ? n : in->shape[j++];
  if (alloc_zeros(out, in->dtype, nd, shape, in) != TL_OK)
    return tl_error_status();
  if (fill_diagonal(out, in, offset, a, b) != TL_OK) {
    tl_tensor_release(out);
    return tl_error_status();
  }
  return TL_OK;
}

tl_status tl_shape_block_diag(tl_tensor *out, int n, const tl_tensor *const *ins)
{
  if (n > 0 && tl_check_same_device(n, ins) != TL_OK)
    return tl_error_status();
  int64_t rows = 0, cols = 0;
  tl_dtype dtype = n ? ins[0]->dtype : TL_DTYPE_F32;
  for (int i = 0; i < n; i++) {
    const tl_tensor *t = ins[i];
    if (t->ndim > 2)
      return tl_error_set(TL_ERR_RUNTIME, "torch.block_diag: Input tensors must have 2 or fewer "
                                          "dimensions. Input %d has %d dimensions", i, t->ndim);
    rows += t->ndim == 2 ? t->shape[0] : 1;
    cols += t->ndim == 2 ? t->shape[1] : t->ndim == 1 ? t->shape[0] : 1;
    dtype = tl_promote_types(dtype, t->dtype);
  }
  if (n == 0) /* PyTorch gives a (1, 0) matrix for no inputs */
    rows = 1;
  tl_device device = n ? tl_tensor_device(ins[0]) : tl_device_cpu();
  if (tl_tensor_zeros(out, dtype, 2, (int64_t[]){rows, cols}, device) != TL_OK)
    return tl_error_status();
  int64_t r = 0, c = 0;
  for (int i = 0; i < n; i++) {
    tl_tensor block, src;
    const tl_tensor *t = ins[i];
    int64_t h = t->ndim == 2 ? t->shape[0] : 1;
    int64_t w = t->ndim == 2 ? t->shape[1] : t->ndim == 1 ? t->shape[0] : 1;
    if (tl_view_reshape(&src, t, 2, (int64_t[]){h, w}, false) != TL_OK)
      goto fail;
    tl_tensor_view_of(&block, out);
    tl_view_slice(&block, 0, r, h, 1);
    tl_view_slice(&block, 1, c, w, 1);
    tl_status status = h > 0 && w > 0 ? copy_into(&block, &src) : TL_OK;
    tl_tensor_release(&block);
    tl_tensor_release(&src);
    if (status != TL_OK)
      goto fail;
    r += h;
    c += w;
  }
  return TL_OK;
fail:
  tl_tensor_release(out);
  return tl_error_status();
}

/* Columns of row i kept by the triangle: [lo, hi). */
static void tri_row(int64_t i, int64_t col, int64_t offset, bool upper, int64_t *lo, int64_t *hi)
{
  int64_t edge = i + offset; /* the diagonal's column in row i */
  if (upper) {
    *lo = edge < 0 ? 0 : edge > col ? col : edge;
    *hi = col;
  } else {
    *lo = 0;
    *hi = edge + 1 < 0 ? 0 : edge + 1 > col ? col : edge + 1;
  }
}

tl_status tl_shape_tri_indices(tl_tensor *out, int64_t row, int64_t col, int64_t offset,
                               bool upper)
{
  if (row < 0 || col < 0)
    return tl_error_set(TL_ERR_RUNTIME, "%s_indices: row must be non-negative, got %lld and col "
                                        "%lld", upper ? "triu" : "tril", (long long)row,
                        (long long)col);
  if (row > TL_SIZE_LIMIT || col > TL_SIZE_LIMIT ||
      check_offset(upper ? "triu_indices: offset" : "tril_indices: offset", offset) != TL_OK)
    return tl_error_set(TL_ERR_VALUE, "%s_indices: arguments out of range",
                        upper ? "triu" : "tril");
  int64_t count = 0;
  for (int64_t i = 0; i < row; i++) {
    int64_t lo, hi;
    tri_row(i, col, offset, upper, &lo, &hi);
    count += hi > lo ? hi - lo : 0;
    if (count > TL_SIZE_LIMIT)
      return tl_error_set(TL_ERR_VALUE, "%s_indices: too many indices", upper ? "triu" : "tril");
  }
  if (tl_tensor_empty(out, TL_DTYPE_I64, 2, (int64_t[]){2, count}, tl_device_cpu()) != TL_OK)
    return tl_error_status();
  int64_t *rows = out->storage->data, *cols = rows + count, k = 0;
  for (int64_t i = 0; i < row; i++) {
    int64_t lo, hi;
    tri_row(i, col, offset, upper, &lo, &hi);
    for (int64_t j = lo; j < hi; j++, k++) {
      rows[k] = i;
      cols[k] = j;
    }
  }
  return TL_OK;
}

tl_status tl_shape_cartesian_prod(tl_tensor *out, int n, const tl_tensor *const *ins)
{
  if (n == 0)
    return tl_error_set(TL_ERR_RUNTIME, "cartesian_prod expects a non-empty TensorList");
  for (int i = 0; i < n; i++)
    if (ins[i]->ndim != 1)
      return tl_error_set(TL_ERR_RUNTIME, "Expect a 1D vector, but got shape %s",
                          tl_shape_str((char[256]){0}, 256, ins[i]->ndim, ins[i]->shape));
  if (n == 1)
    return materialize(out, ins[0]);
  tl_tensor grids[TL_MAX_DIMS], flat[TL_MAX_DIMS];
  const tl_tensor *ptrs[TL_MAX_DIMS];
  int made = 0;
  tl_status status = tl_shape_meshgrid(grids, n, ins, false);
  if (status != TL_OK)
    return status;
  for (; made < n; made++) {
    int64_t numel = tl_tensor_numel(&grids[made]);
    if ((status = tl_view_reshape(&flat[made], &grids[made], 1, &numel, true)) != TL_OK)
      break;
    ptrs[made] = &flat[made];
  }
  if (status == TL_OK)
    status = tl_shape_stack(out, n, ptrs, 1);
  for (int i = 0; i < made; i++)
    tl_tensor_release(&flat[i]);
  for (int i = 0; i < n; i++)
    tl_tensor_release(&grids[i]);
  return status;
}

tl_status tl_shape_clone(tl_tensor *out, const tl_tensor *in) { return materialize(out, in); }

tl_status tl_shape_view_scatter(tl_tensor *out, const tl_tensor *in, const tl_tensor *src,
                                tl_scatter_kind kind, const int64_t *args)
{
  static const char *const names[] = {"select_scatter", "slice_scatter", "diagonal_scatter"};
  char ss[256], sv[256];
  tl_tensor view = {0};
  if (materialize(out, in) != TL_OK)
    return tl_error_status();
  tl_status status = TL_OK;
  int d;
  switch (kind) {
  case TL_SCATTER_SELECT:
    if (in->ndim == 0) {
      status = tl_error_set(TL_ERR_INDEX, "select() cannot be applied to a 0-dim tensor.");
      break;
    }
    if ((status = tl_dim_wrap(args[0], in->ndim, &d)) != TL_OK)
      break;
    tl_tensor_view_of(&view, out);
    status = tl_view_select(&view, d, args[1]);
    break;
  case TL_SCATTER_SLICE:
    if (in->ndim == 0) {
      status = tl_error_set(TL_ERR_INDEX, "slice() cannot be applied to a 0-dim tensor.");
      break;
    }
    if ((status = tl_dim_wrap(args[0], in->ndim, &d)) != TL_OK)
      break;
    if (args[3] <= 0) {
      status = tl_error_set(TL_ERR_RUNTIME, "slice step must be positive, got %lld",
                            (long long)args[3]);
      break;
    }
    tl_tensor_view_of(&view, out);
    {
      int64_t len = args[2] > args[1] ? (args[2] - args[1] + args[3] - 1) / args[3] : 0;
      tl_view_slice(&view, d, args[1], len, args[3]);
    }
    break;
  case TL_SCATTER_DIAGONAL:
    status = tl_view_diagonal(&view, out, args[0], args[1], args[2]);
    break;
  }
  if (status == TL_OK && (view.ndim != src->ndim ||
                          memcmp(view.shape, src->shape, (size_t)src->ndim * sizeof *src->shape)))
    status = tl_error_set(TL_ERR_RUNTIME, "%s: expected src to have a size equal to the slice of "
                                          "self. src size = %s, slice size = %s", names[kind],
                          tl_shape_str(ss, sizeof ss, src->ndim, src->shape),
                          tl_shape_str(sv, sizeof sv, view.ndim, view.shape));
  if (status == TL_OK)
    status = copy_into(&view, src);
  if (view.storage)
    tl_tensor_release(&view);
  if (status != TL_OK)
    tl_tensor_release(out);
  return status;
}

/* ---- padding ------------------------------------------------------------------- */

/* dst (padded along d by l, r >= 0 around src's extent) gets its borders. */
static tl_status pad_borders(const tl_tensor *dst, const tl_tensor *src, int d, int64_t l,
                             int64_t r, tl_pad_mode mode)
{
  int64_t n = src->shape[d];
  tl_tensor left, right;
  tl_tensor_view_of(&left, src);
  tl_tensor_view_of(&right, src);
  if (mode == TL_PAD_REFLECT) { /* mirror without repeating the edge */
    tl_view_slice(&left, d, 1, l, 1);
    tl_view_slice(&right, d, n - 1 - r, r, 1);
    reverse_dim(&left, d);
    reverse_dim(&right, d);
  } else { /* replicate: the edge element, stride 0 */
    tl_view_slice(&left, d, 0, 1, 1);
    tl_view_slice(&right, d, n - 1, 1, 1);
    left.shape[d] = l;
    left.strides[d] = 0;
    right.shape[d] = r;
    right.strides[d] = 0;
  }
  tl_status status = copy_to_slice(dst, d, 0, l, &left);
  if (status == TL_OK)
    status = copy_to_slice(dst, d, l + n, r, &right);
  tl_tensor_release(&left);
  tl_tensor_release(&right);
  return status;
}

/* pad_borders for the last dim of a CPU tensor with unit stride there: each
 * row's few border elements are written directly, where the copy iterator
 * would take one call per row and side.  dst's rows hold l border, n middle
 * and r border elements; the middle is filled already. */
static void pad_row_borders(const tl_tensor *dst, int64_t l, int64_t n, int64_t r,
                            tl_pad_mode mode)
{
  const int last = dst->ndim - 1;
  const size_t size = tl_dtype_size(dst->dtype);
  int64_t rows = 1, idx[TL_MAX_DIMS] = {0};
  for (int e = 0; e < last; e++)
    rows *= dst->shape[e];
  char *row = (char *)tl_tensor_data(dst);
  for (int64_t k = 0; k < rows; k++) {
    for (int64_t i = 0; i < l; i++) /* reflect: l - i past the edge; replicate: the edge */
      memcpy(row + (size_t)i * size, row + (size_t)(mode == TL_PAD_REFLECT ? 2 * l - i : l) * size,
             size);
    for (int64_t i = 0; i < r; i++)
      memcpy(row + (size_t)(l + n + i) * size,
             row + (size_t)(mode == TL_PAD_REFLECT ? l + n - 2 - i : l + n - 1) * size, size);
    for (int e = last - 1; e >= 0; e--) { /* the next row: an odometer over the leading dims */
      row += dst->strides[e] * (int64_t)size;
      if (++idx[e] < dst->shape[e])
        break;
      row -= dst->strides[e] * dst->shape[e] * (int64_t)size;
      idx[e] = 0;
    }
  }
}

/* dst along d is src taken circularly from index -l (|l|, |r| <= n). */
static tl_status pad_circular(const tl_tensor *dst, const tl_tensor *src, int d, int64_t l)
{
  int64_t n = src->shape[d], len = dst->shape[d];
  for (int64_t i = 0; i < len;) {
    int64_t from = ((i - l) % n + n) % n;
    int64_t count = n - from < len - i ? n - from : len - i;
    tl_tensor piece;
    tl_tensor_view_of(&piece, src);
    tl_view_slice(&piece, d, from, count, 1);
    tl_status status = copy_to_slice(dst, d, i, count, &piece);
    tl_tensor_release(&piece);
    if (status != TL_OK)
      return status;
    i += count;
  }
  return TL_OK;
}

/* A non-constant pad whose negative amounts leave a dimension empty, in
 * PyTorch's words: its kernels pad the last one to three dims, named W, H
 * and D, and want every output size >= 1 (circular: >= 0).  More padded
 * dims than three (which only torchlike takes) are refused alike, in words
 * of our own. */
static tl_status pad_check_cropped(const tl_tensor *in, int npad, const int64_t *pad,
                                   tl_pad_mode mode)
{
  static const char names[] = "WHD";
  int k = npad / 2, emptied = -1;
  int64_t out[TL_MAX_DIMS];
  if (mode == TL_PAD_CONSTANT)
    return TL_OK;
  for (int j = 0; j < k; j++) {
    int64_t l = pad[2 * j], r = pad[2 * j + 1];
    if (check_offset("pad: padding", l) != TL_OK || check_offset("pad: padding", r) != TL_OK)
      return tl_error_status();
    out[j] = in->shape[in->ndim - 1 - j] + l + r;
    if ((l < 0 || r < 0) && out[j] < (mode == TL_PAD_CIRCULAR ? 0 : 1) && emptied < 0)
      emptied = j;
  }
  if (emptied < 0)
    return TL_OK;
  if (mode == TL_PAD_CIRCULAR)
    return tl_error_set(TL_ERR_RUNTIME, "Negative padding value is resulting in an empty "
                                        "dimension");
  if (k > 3)
    return tl_error_set(TL_ERR_RUNTIME, "pad: negative padding (%lld, %lld) leaves dimension %d "
                                        "of size %lld with %lld elements, where %s padding "
                                        "needs at least 1", (long long)pad[2 * emptied],
                        (long long)pad[2 * emptied + 1], in->ndim - 1 - emptied,
                        (long long)in->shape[in->ndim - 1 - emptied], (long long)out[emptied],
                        mode == TL_PAD_REFLECT ? "reflect" : "replicate");
  if (k == 1)
    return tl_error_set(TL_ERR_RUNTIME, "input (W: %lld) is too small. Calculated output W: %lld",
                        (long long)in->shape[in->ndim - 1], (long long)out[0]);
  char outs[96] = "", ins[96] = "";
  size_t no = 0, ni = 0;
  for (int j = k - 1; j >= 0; j--) {
    no += (size_t)snprintf(outs + no, sizeof outs - no, "%s%c: %lld", j == k - 1 ? "" : " ",
                           names[j], (long long)out[j]);
    ni += (size_t)snprintf(ins + ni, sizeof ins - ni, "%s%c: %lld", j == k - 1 ? "" : ", ",
                           names[j], (long long)in->shape[in->ndim - 1 - j]);
  }
  return tl_error_set(TL_ERR_RUNTIME, "Calculated output %s must be >= 1 in every dimension "
                                      "(input %s)", outs, ins);
}

static tl_status pad_check(const tl_tensor *in, int npad, const int64_t *pad, tl_pad_mode mode)
{
  char buf[256];
  if (npad % 2)
    return tl_error_set(TL_ERR_RUNTIME, "Padding length must be divisible by 2");
  if (npad / 2 > in->ndim)
    return tl_error_set(TL_ERR_RUNTIME, "Padding length should be less than or equal to two "
                                        "times the input dimension but got padding length %d "
                                        "and input of dimension %d", npad, in->ndim);
  if (pad_check_cropped(in, npad, pad, mode) != TL_OK)
    return tl_error_status();
  for (int j = 0; j < npad / 2; j++) {
    int d = in->ndim - 1 - j;
    int64_t n = in->shape[d], l = pad[2 * j], r = pad[2 * j + 1];
    if (check_offset("pad: padding", l) != TL_OK || check_offset("pad: padding", r) != TL_OK)
      return tl_error_status();
    if (n + l + r < 0)
      return tl_error_set(TL_ERR_RUNTIME, "The input size %lld, plus negative padding %lld and "
                                          "%lld resulted in a negative output size, which is "
                                          "invalid. Check dimension %d of your input.",
                          (long long)n, (long long)l, (long long)r, d);
    /* cropping both sides must leave a non-negative middle, whatever the
     * other side adds back: (-3, 2) on 1 element is not 1 - 3 + 2 = 0 */
    if (n + (l < 0 ? l : 0) + (r < 0 ? r : 0) < 0)
      return tl_error_set(TL_ERR_RUNTIME, "pad: negative padding (%lld, %lld) crops more than "
                                          "the %lld elements of dimension %d of your input",
                          (long long)l, (long long)r, (long long)n, d);
    if (mode == TL_PAD_CONSTANT || (l <= 0 && r <= 0))
      continue;
    if (mode == TL_PAD_REFLECT && (l >= n || r >= n))
      return tl_error_set(TL_ERR_RUNTIME, "Argument #4: Padding size should be less than the "
                                          "corresponding input dimension, but got: padding "
                                          "(%lld, %lld) at dimension %d of input %s",
                          (long long)l, (long long)r, d,
                          tl_shape_str(buf, sizeof buf, in->ndim, in->shape));
    if (mode == TL_PAD_REPLICATE && n == 0)
      return tl_error_set(TL_ERR_RUNTIME, "padding size %lld, %lld at dimension %d cannot "
                                          "replicate an empty input of shape %s",
                          (long long)l, (long long)r, d,
                          tl_shape_str(buf, sizeof buf, in->ndim, in->shape));
    if (mode == TL_PAD_CIRCULAR && (l > n || r > n))
      return tl_error_set(TL_ERR_RUNTIME, "Padding value causes wrapping around more than once. "
                                          "(padding (%lld, %lld) at dimension %d of size %lld)",
                          (long long)l, (long long)r, d, (long long)n);
  }
  return TL_OK;
}

/* A new tensor laid out in format f (from tl_tensor_suggest_format, so of
 * a rank it fits). */
static tl_status empty_in_format(tl_tensor *t, tl_dtype dtype, int ndim, const int64_t *shape,
                                 tl_device device, tl_format f)
{
  if (tl_tensor_empty(t, dtype, ndim, shape, device) != TL_OK)
    return tl_error_status();
  if (f != TL_FORMAT_CONTIGUOUS && tl_format_strides(f, t, t->strides) != TL_OK) {
    tl_tensor_release(t);
    return tl_error_status();
  }
  return TL_OK;
}

/* Circular padding, one dim at a time, last dim first: each step a new
 * tensor taken modulo the previous one's size along its dim. */
static tl_status pad_circular_dims(tl_tensor *out, const tl_tensor *in, int npad,
                                   const int64_t *pad, const int64_t *shape)
{
  tl_tensor cur;
  tl_tensor_view_of(&cur, in);
  for (int j = 0; j < npad / 2; j++) {
    int d = in->ndim - 1 - j;
    if (pad[2 * j] == 0 && pad[2 * j + 1] == 0)
      continue;
    tl_tensor next;
    int64_t next_shape[TL_MAX_DIMS];
    memcpy(next_shape, cur.shape, (size_t)cur.ndim * sizeof *next_shape);
    next_shape[d] = shape[d];
    if (tl_tensor_empty(&next, in->dtype, cur.ndim, next_shape, tl_tensor_device(in)) != TL_OK)
      goto fail;
    tl_status status = tl_tensor_numel(&next) ? pad_circular(&next, &cur, d, pad[2 * j]) : TL_OK;
    tl_tensor_release(&cur);
    cur = next;
    if (status != TL_OK)
      goto fail;
  }
  if (cur.storage == in->storage) { /* nothing padded: still return a new tensor */
    tl_status status = materialize(out, &cur);
    tl_tensor_release(&cur);
    return status;
  }
  *out = cur;
  return TL_OK;
fail:
  tl_tensor_release(&cur);
  return tl_error_status();
}

tl_status tl_shape_pad(tl_tensor *out, const tl_tensor *in, int npad, const int64_t *pad,
                       tl_pad_mode mode, tl_scalar value)
{
  /* a channels-last input pads into a channels-last result, circular
   * padding excepted, as PyTorch's pad kernels do */
  tl_format format = mode == TL_PAD_CIRCULAR ? TL_FORMAT_CONTIGUOUS : tl_tensor_suggest_format(in);
  if (pad_check(in, npad, pad, mode) != TL_OK)
    return tl_error_status();
  int64_t shape[TL_MAX_DIMS];
  memcpy(shape, in->shape, (size_t)in->ndim * sizeof *shape);
  for (int j = 0; j < npad / 2; j++)
    shape[in->ndim - 1 - j] += pad[2 * j] + pad[2 * j + 1];

  if (mode == TL_PAD_CONSTANT) {
    /* Fill the border slabs of each padded dim, then copy the (cropped) input
     * into the middle, so every output element is written about once. */
    _Alignas(16) char bytes[16];
    tl_scalar_store(value, in->dtype, bytes);
    tl_storage cell = {.refcount = 1, .data = bytes, .nbytes = sizeof bytes,
                       .device = tl_tensor_device(in)};
    tl_tensor fill = {.storage = &cell, .dtype = in->dtype, .ndim = 0};
    if (empty_in_format(out, in->dtype, in->ndim, shape, tl_tensor_device(in), format) != TL_OK)
      return tl_error_status();
    tl_tensor src = *in, dst = *out; /* borrowed */
    for (int j = 0; j < npad / 2; j++) {
      int d = in->ndim - 1 - j;
      int64_t l = pad[2 * j], r = pad[2 * j + 1];
      int64_t keep = in->shape[d] + (l < 0 ? l : 0) + (r < 0 ? r : 0);
      keep = keep < 0 ? 0 : keep;
      tl_view_slice(&src, d, l < 0 ? -l : 0, keep, 1);
      tl_view_slice(&dst, d, l > 0 ? l : 0, keep, 1);
    }
    tl_status status = TL_OK;
    for (int j = 0; j < npad / 2 && status == TL_OK; j++) {
      int d = in->ndim - 1 - j;
      int64_t l = pad[2 * j] > 0 ? pad[2 * j] : 0, r = pad[2 * j + 1] > 0 ? pad[2 * j + 1] : 0;
      status = copy_to_slice(out, d, 0, l, &fill);
      if (status == TL_OK)
        status = copy_to_slice(out, d, out->shape[d] - r, r, &fill);
    }
    if (status == TL_OK && tl_tensor_numel(&dst) > 0)
      status = copy_into(&dst, &src);
    if (status != TL_OK)
      tl_tensor_release(out);
    return status;
  }

  if (mode == TL_PAD_CIRCULAR)
    return pad_circular_dims(out, in, npad, pad, shape);

  /* Reflect and replicate: crop the negative amounts off a view of the
   * input, copy it once into the middle of the result, then fill each padded
   * dim's borders from the result itself, last dim first, so that a corner
   * mirrors the already padded rows as padding one dim at a time would. */
  tl_tensor src = *in; /* borrowed */
  int64_t lo[TL_MAX_DIMS] = {0}, keep[TL_MAX_DIMS];
  memcpy(keep, in->shape, (size_t)in->ndim * sizeof *keep);
  for (int j = 0; j < npad / 2; j++) {
    int d = in->ndim - 1 - j;
    int64_t l = pad[2 * j], r = pad[2 * j + 1];
    keep[d] = in->shape[d] + (l < 0 ? l : 0) + (r < 0 ? r : 0);
    lo[d] = l > 0 ? l : 0;
    tl_view_slice(&src, d, l < 0 ? -l : 0, keep[d], 1);
    l = lo[d];
    r = r > 0 ? r : 0;
    /* Cropping the other side may leave too little to mirror or copy. */
    if ((mode == TL_PAD_REFLECT && ((l > 0 && l >= keep[d]) || (r > 0 && r >= keep[d]))) ||
        (mode == TL_PAD_REPLICATE && keep[d] == 0 && l + r > 0))
      return tl_error_set(TL_ERR_RUNTIME, "padding (%lld, %lld) at dimension %d is too large "
                                          "for the %lld elements left after cropping",
                          (long long)pad[2 * j], (long long)pad[2 * j + 1], d,
                          (long long)keep[d]);
  }
  if (empty_in_format(out, in->dtype, in->ndim, shape, tl_tensor_device(in), format) != TL_OK)
    return tl_error_status();
  if (tl_tensor_numel(out) == 0)
    return TL_OK;
  tl_tensor mid = *out; /* borrowed, as are the views below */
  for (int d = 0; d < in->ndim; d++)
    tl_view_slice(&mid, d, lo[d], keep[d], 1);
  tl_status status = copy_into(&mid, &src);
  for (int j = 0; j < npad / 2 && status == TL_OK; j++) {
    int d = in->ndim - 1 - j;
    tl_tensor whole = *out, inner;
    for (int e = 0; e < d; e++) /* the dims before d are not padded yet */
      tl_view_slice(&whole, e, lo[e], keep[e], 1);
    inner = whole;
    tl_view_slice(&inner, d, lo[d], keep[d], 1);
    int64_t r = shape[d] - lo[d] - keep[d];
    if (lo[d] == 0 && r == 0)
      continue;
    if (d == in->ndim - 1 && whole.strides[d] == 1 &&
        tl_tensor_device(out).type == TL_DEVICE_CPU)
      pad_row_borders(&whole, lo[d], keep[d], r, mode);
    else
      status = pad_borders(&whole, &inner, d, lo[d], r, mode);
  }
  if (status != TL_OK)
    tl_tensor_release(out);
  return status;
}

/* ---- groups of views -------------------------------------------------------- */

tl_status tl_shape_meshgrid(tl_tensor *outs, int n, const tl_tensor *const *ins, bool xy)
{
  char buf[256];
  if (n == 0)
    return tl_error_set(TL_ERR_RUNTIME, "meshgrid expects a non-empty TensorList");
  if (n > TL_MAX_DIMS)
    return tl_error_set(TL_ERR_VALUE, "meshgrid: at most %d tensors, got %d", TL_MAX_DIMS, n);
  if (tl_check_same_device(n, ins) != TL_OK)
    return tl_error_status();
  int64_t shape[TL_MAX_DIMS];
  for (int i = 0; i < n; i++) {
    if (ins[i]->ndim > 1)
      return tl_error_set(TL_ERR_RUNTIME, "torch.meshgrid: Expected 0D or 1D tensor in the "
                                          "tensor list but got: %s",
                          tl_shape_str(buf, sizeof buf, ins[i]->ndim, ins[i]->shape));
    if (ins[i]->dtype != ins[0]->dtype)
      return tl_error_set(TL_ERR_RUNTIME, "torch.meshgrid: Expected all tensors in the tensor "
                                          "list to have the same dtype, got %s and %s",
                          tl_dtype_names[ins[0]->dtype], tl_dtype_names[ins[i]->dtype]);
  }
  /* 'xy' is 'ij' with the first two inputs' axes swapped. */
  int pos[TL_MAX_DIMS];
  for (int i = 0; i < n; i++)
    pos[i] = i;
  if (xy && n >= 2) {
    pos[0] = 1;
    pos[1] = 0;
  }
  for (int i = 0; i < n; i++)
    shape[pos[i]] = tl_tensor_numel(ins[i]);
  for (int i = 0; i < n; i++) {
    tl_tensor_view_of(&outs[i], ins[i]);
    outs[i].ndim = n;
    for (int k = 0; k < n; k++) {
      outs[i].shape[k] = shape[k];
      outs[i].strides[k] = 0;
    }
    if (ins[i]->ndim == 1)
      outs[i].strides[pos[i]] = ins[i]->strides[0];
  }
  return TL_OK;
}

tl_status tl_shape_broadcast_tensors(tl_tensor *outs, int n, const tl_tensor *const *ins)
{
  int nd = 0;
  int64_t shape[TL_MAX_DIMS];
  for (int i = 0; i < n; i++)
    if (tl_shape_broadcast(nd, shape, ins[i]->ndim, ins[i]->shape, &nd, shape) != TL_OK)
      return tl_error_status();
  for (int i = 0; i < n; i++)
    if (tl_view_expand(&outs[i], ins[i], nd, shape) != TL_OK) {
      while (i--)
        tl_tensor_release(&outs[i]);
      return tl_error_status();
    }
  return TL_OK;
}
