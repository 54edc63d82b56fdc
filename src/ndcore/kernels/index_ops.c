/* index_ops.c - the gather/scatter family, index_* ops, take/put and masks.
 *
 * Each op is written with the two kernels of index.c.  The ones that select
 * whole slices (index_select, index_add_, take, masks ...) are index
 * expressions handed to tl_index_get/put: ":" for every dim before `dim`,
 * then the index tensor.  gather and scatter index every element on its own:
 * their base is the tensor restrided to the index's shape with stride 0
 * along dim, and the offsets are index * stride(dim).  0-d tensors are
 * treated as 1-d of one element, as PyTorch does.                          */
#include <math.h>
#include <string.h>

#include "ndcore/dispatch/tl_dispatch.h"
#include "ndcore/kernels/tl_create.h"
#include "ndcore/kernels/tl_index.h"
#include "ndcore/dispatch/tl_iter.h"
#include "ndcore/dispatch/tl_parallel.h"
#include "ndcore/tensor/tl_backend.h"
#include "ndcore/tensor/tl_views.h"

/* A borrowed view of t with at least one dim. */
static tl_tensor at_least_1d(const tl_tensor *t)
{
  tl_tensor v = *t;
  if (v.ndim == 0) {
    v.ndim = 1;
    v.shape[0] = 1;
    v.strides[0] = 1;
  }
  return v;
}

static tl_status check_index_dtype(const char *op, const tl_tensor *index, tl_status err)
{
  if (!tl_dtype_is_integral(index->dtype) || index->dtype == TL_DTYPE_BOOL)
    return tl_error_set(err, "%s(): expected an integer index tensor (int64 or another integer "
                             "dtype), got %s", op, tl_dtype_names[index->dtype]);
  return TL_OK;
}

static tl_status check_writable(const char *op, const tl_tensor *self)
{
  if (self->storage->readonly)
    return tl_error_set(TL_ERR_VALUE, "%s(): the tensor written to is read-only", op);
  return tl_storage_check_write(self->storage);
}

/* ---- gather and scatter ------------------------------------------------------------- */

/* PyTorch's shape rule: index has self's ndim; index.size(d) <= self.size(d)
 * for d != dim, and <= src.size(d) for every d when there is a src. */
static tl_status check_gather_shapes(const char *op, const tl_tensor *self, int dim,
                                     const tl_tensor *index, const tl_tensor *src)
{
  char si[256], ss[256], sr[256];
  if (index->ndim != self->ndim || (src && src->ndim != self->ndim))
    return tl_error_set(TL_ERR_RUNTIME, "%s(): index tensor must have the same number of "
                                        "dimensions as %s tensor (%d vs %d)",
                        op, src ? "self and src" : "input", index->ndim, self->ndim);
  for (int d = 0; d < self->ndim; d++) {
    bool bad = (d != dim && index->shape[d] > self->shape[d]) ||
               (src && index->shape[d] > src->shape[d]);
    if (bad)
      return tl_error_set(TL_ERR_RUNTIME, "%s(): size does not match at dimension %d: expected "
                                          "index %s to be no larger than %s %s apart from "
                                          "dimension %d%s%s",
                          op, d, tl_shape_str(si, sizeof si, index->ndim, index->shape),
                          src ? "self" : "input",
                          tl_shape_str(ss, sizeof ss, self->ndim, self->shape), dim,
                          src ? " and no larger than src " : "",
                          src ? tl_shape_str(sr, sizeof sr, src->ndim, src->shape) : "");
  }
  return TL_OK;
}

/* Are t's elements distinct memory?  Sorted by stride, each dim's step must
 * pass the extent of the dims below it (a sufficient test: a layout it
 * refuses, only made by as_strided, is written on one thread). */
static bool distinct_elements(const tl_tensor *t)
{
  int64_t strides[TL_MAX_DIMS], shape[TL_MAX_DIMS];
  int n = 0;
  for (int d = 0; d < t->ndim; d++) {
    if (t->shape[d] == 0)
      return true;
    if (t->shape[d] == 1)
      continue;
    int64_t s = t->strides[d] < 0 ? -t->strides[d] : t->strides[d];
    int i = n++;
    for (; i > 0 && strides[i - 1] > s; i--) { /* insertion by stride */
      strides[i] = strides[i - 1];
      shape[i] = shape[i - 1];
    }
    strides[i] = s;
    shape[i] = t->shape[d];
  }
  int64_t extent = 0; /* the span of the dims so far, in elements */
  for (int i = 0; i < n; i++) {
    if (strides[i] <= extent)
      return false;
    extent += (shape[i] - 1) * strides[i];
  }
  return true;
}

/* A scatter into base, split across threads where `disjoint` (base's
 * elements are distinct memory, see distinct_elements). */
static tl_status scatter_into(bool disjoint, const tl_tensor *data, const tl_tensor *base,
                              const tl_tensor *off, tl_index_reduce reduce)
{
  return disjoint ? tl_index_scatter_disjoint(data, base, off, reduce)
                  : tl_index_move(true, data, base, off, reduce);
}

/* base: t over index's shape, stride 0 along dim; off: index * stride(dim). */
static tl_status along_dim(const tl_tensor *t, int dim, const tl_tensor *index, tl_tensor *base,
                           tl_tensor *off)
{
  tl_tensor moved = {0}; /* a 0-d CPU index goes with a tensor of any device */
  if (!tl_device_eq(tl_tensor_device(index), tl_tensor_device(t))) {
    if (tl_backend_tensor_to(&moved, index, tl_tensor_device(t), index->dtype, false) != TL_OK)
      return tl_error_status();
    index = &moved;
  }
  *base = *t;
  base->ndim = index->ndim;
  memcpy(base->shape, index->shape, sizeof base->shape);
  base->strides[dim] = 0;
  int64_t size = t->shape[dim];
  int64_t stride = t->strides[dim] * (int64_t)tl_dtype_size(t->dtype);
  /* An expanded index (stride 0 on a dim other than dim: idx.unsqueeze(-1)
   * .expand_as(src), one index spread over a slice) has one offset per
   * element it really holds: compute those and expand them back, so that
   * the move sees whole slices where it would see one offset per element. */
  tl_tensor compact = *index, few = {0};
  const bool empty = tl_tensor_numel(index) == 0; /* (its strides may all be 0: no element) */
  for (int d = 0; d < index->ndim && !empty; d++)
    if (d != dim && index->strides[d] == 0)
      compact.shape[d] = 1;
  const tl_tensor *c = &compact;
  tl_status status = tl_index_offsets(&few, compact.ndim, compact.shape, 1, &c, &size, &stride,
                                      &dim, true, TL_ERR_RUNTIME);
  if (status == TL_OK)
    status = tl_view_expand(off, &few, index->ndim, index->shape);
  tl_tensor_release(&few);
  tl_tensor_release(&moved);
  return status;
}

tl_status tl_cpu_index_gather(tl_tensor *out, const tl_tensor *in_, int64_t dim_,
                              const tl_tensor *index_)
{
  const tl_tensor in = at_least_1d(in_), index = at_least_1d(index_);
  tl_tensor base, off = {0};
  int dim;
  if (check_index_dtype("gather", index_, TL_ERR_RUNTIME) != TL_OK ||
      tl_dim_wrap(dim_, in.ndim, &dim) != TL_OK ||
      check_gather_shapes("gather", &in, dim, &index, NULL) != TL_OK)
    return tl_error_status();
  if (tl_tensor_empty(out, in.dtype, index_->ndim, index_->shape, tl_tensor_device(in_)) != TL_OK)
    return tl_error_status();
  const tl_tensor o = at_least_1d(out);
  tl_status status = along_dim(&in, dim, &index, &base, &off);
  if (status == TL_OK)
    status = tl_index_move(false, &o, &base, &off, TL_INDEX_REDUCE_NONE);
  tl_tensor_release(&off);
  if (status != TL_OK)
    tl_tensor_release(out);
  return status;
}

/* The value a reduction starts from where include_self is false. */
static tl_scalar reduce_identity(tl_index_reduce r, tl_dtype d)
{
  bool max = r == TL_INDEX_REDUCE_AMAX;
  switch (r) {
  case TL_INDEX_REDUCE_MUL: return (tl_scalar){.kind = TL_KIND_INT, .v.i = 1};
  case TL_INDEX_REDUCE_AMAX:
  case TL_INDEX_REDUCE_AMIN:
    switch (d) {
    case TL_DTYPE_BOOL: return (tl_scalar){.kind = TL_KIND_BOOL, .v.b = !max};
    case TL_DTYPE_U8: return (tl_scalar){.kind = TL_KIND_INT, .v.i = max ? 0 : UINT8_MAX};
    case TL_DTYPE_U16: return (tl_scalar){.kind = TL_KIND_INT, .v.i = max ? 0 : UINT16_MAX};
    case TL_DTYPE_U32: return (tl_scalar){.kind = TL_KIND_INT, .v.i = max ? 0 : UINT32_MAX};
    case TL_DTYPE_U64: return (tl_scalar){.kind = TL_KIND_UINT, .v.u = max ? 0 : UINT64_MAX};
    case TL_DTYPE_I8: return (tl_scalar){.kind = TL_KIND_INT, .v.i = max ? INT8_MIN : INT8_MAX};
    case TL_DTYPE_I16: return (tl_scalar){.kind = TL_KIND_INT, .v.i = max ? INT16_MIN : INT16_MAX};
    case TL_DTYPE_I32: return (tl_scalar){.kind = TL_KIND_INT, .v.i = max ? INT32_MIN : INT32_MAX};
    case TL_DTYPE_I64: return (tl_scalar){.kind = TL_KIND_INT, .v.i = max ? INT64_MIN : INT64_MAX};
    default: return (tl_scalar){.kind = TL_KIND_FLOAT, .v.f = max ? -INFINITY : INFINITY};
    }
  default: return (tl_scalar){.kind = TL_KIND_INT, .v.i = 0};
  }
}

/* t = s in dtype d on `device`, spread over `shape` (index's) to scatter
 * along dim: a buffer holding the dims after dim (when they are few: the
 * scatter then moves whole rows of it, not one element at a time), stride 0
 * along the others.  Filled through the device's fill kernel: host code
 * never writes device memory. */
#define TL_FILL_ROW_MAX 65536
static tl_status filled_over(tl_tensor *t, tl_scalar s, tl_dtype d, tl_device device, int ndim,
                             const int64_t *shape, int dim)
{
  int64_t row[TL_MAX_DIMS], numel = 1;
  for (int i = 0; i < ndim; i++) {
    row[i] = i > dim ? shape[i] : 1;
    numel *= row[i];
  }
  tl_tensor buf;
  if (tl_tensor_empty(&buf, d, numel <= TL_FILL_ROW_MAX ? ndim : 0, row, device) != TL_OK)
    return tl_error_status();
  tl_status status = tl_tensor_fill(&buf, s);
  if (status == TL_OK)
    status = tl_view_expand(t, &buf, ndim, shape);
  tl_tensor_release(&buf);
  return status;
}
#undef TL_FILL_ROW_MAX

/* self /= count where count > 0 (floor division for integers): the end of a
 * scatter mean.  count is int64 with self's shape. */
#define TL_MEAN_DIVIDE(NAME, T, LOAD, STORE, DIV)                                          \
  static void NAME(char **args, int64_t n, const int64_t *steps, void *data)               \
  {                                                                                        \
    (void)data;                                                                            \
    for (int64_t i = 0; i < n; i++) {                                                      \
      int64_t c;                                                                           \
      memcpy(&c, args[1] + i * steps[1], sizeof c);                                        \
      if (c <= 0)                                                                          \
        continue;                                                                          \
      T a = LOAD(args[0] + i * steps[0]);                                                  \
      STORE(args[0] + i * steps[0], DIV);                                                  \
    }                                                                                      \
  }
/* Floor division by a positive count. */
#define TL_FLOOR_DIV (int64_t)(a / c - ((a % c != 0) && (a < 0)))
TL_MEAN_DIVIDE(mean_divide_BOOL, bool, tl_load_BOOL, tl_store_BOOL, a)
TL_MEAN_DIVIDE(mean_divide_U8, uint8_t, tl_load_U8, tl_store_U8, a / c)
TL_MEAN_DIVIDE(mean_divide_U16, uint16_t, tl_load_U16, tl_store_U16, a / c)
TL_MEAN_DIVIDE(mean_divide_U32, uint32_t, tl_load_U32, tl_store_U32, a / c)
TL_MEAN_DIVIDE(mean_divide_U64, uint64_t, tl_load_U64, tl_store_U64, a / (uint64_t)c)
TL_MEAN_DIVIDE(mean_divide_I8, int8_t, tl_load_I8, tl_store_I8, TL_FLOOR_DIV)
TL_MEAN_DIVIDE(mean_divide_I16, int16_t, tl_load_I16, tl_store_I16, TL_FLOOR_DIV)
TL_MEAN_DIVIDE(mean_divide_I32, int32_t, tl_load_I32, tl_store_I32, TL_FLOOR_DIV)
TL_MEAN_DIVIDE(mean_divide_I64, int64_t, tl_load_I64, tl_store_I64, TL_FLOOR_DIV)
TL_MEAN_DIVIDE(mean_divide_F16, float, tl_load_F16, tl_store_F16, a / (float)c)
TL_MEAN_DIVIDE(mean_divide_BF16, float, tl_load_BF16, tl_store_BF16, a / (float)c)
TL_MEAN_DIVIDE(mean_divide_F32, float, tl_load_F32, tl_store_F32, a / (float)c)
TL_MEAN_DIVIDE(mean_divide_F64, double, tl_load_F64, tl_store_F64, a / (double)c)
TL_MEAN_DIVIDE(mean_divide_C64, float complex, tl_load_C64, tl_store_C64, a / (float)c)
TL_MEAN_DIVIDE(mean_divide_C128, double complex, tl_load_C128, tl_store_C128, a / (double)c)
#undef TL_FLOOR_DIV
#undef TL_MEAN_DIVIDE

static tl_loop_fn mean_divide_loop(tl_dtype d)
{
  static const tl_loop_fn loops[TL_DTYPE_COUNT] = {
      [TL_DTYPE_BOOL] = mean_divide_BOOL, [TL_DTYPE_U8] = mean_divide_U8,
      [TL_DTYPE_I8] = mean_divide_I8,     [TL_DTYPE_I16] = mean_divide_I16,
      [TL_DTYPE_I32] = mean_divide_I32,   [TL_DTYPE_I64] = mean_divide_I64,
      [TL_DTYPE_F16] = mean_divide_F16,   [TL_DTYPE_BF16] = mean_divide_BF16,
      [TL_DTYPE_F32] = mean_divide_F32,   [TL_DTYPE_F64] = mean_divide_F64,
      [TL_DTYPE_C64] = mean_divide_C64,   [TL_DTYPE_C128] = mean_divide_C128,
      [TL_DTYPE_U16] = mean_divide_U16,   [TL_DTYPE_U32] = mean_divide_U32,
      [TL_DTYPE_U64] = mean_divide_U64,
  };
  return loops[d];
}

tl_status tl_cpu_index_mean_divide(tl_tensor *self, const tl_tensor *count)
{
  const tl_tensor *ops[2] = {self, count};
  tl_iter it;
  tl_status status = tl_iter_init(&it, 2, ops, NULL);
  if (status == TL_OK)
    status = tl_iter_run(&it, mean_divide_loop(self->dtype), NULL);
  return status;
}

static tl_status mean_divide(tl_tensor *self, const tl_tensor *count)
{
  tl_device device = tl_tensor_device(self);
  if (tl_dispatch_host_memory(device))
    return tl_cpu_index_mean_divide(self, count);
  const tl_index_device_kernels *k = tl_index_device_prims("scatter_reduce", device, self->dtype);
  return k ? k->mean_divide(self, count) : tl_error_status();
}

/* scatter mean: the sums as an ADD scatter, the counts as an ADD scatter of
 * ones into an int64 tensor shaped like self, then a division. */
static tl_status scatter_mean(tl_tensor *self, int dim, const tl_tensor *index,
                              const tl_tensor *base, const tl_tensor *off, const tl_tensor *data,
                              bool include_self, bool disjoint)
{
  tl_tensor count = {0}, cbase, coff = {0}, ones = {0};
  const tl_scalar s_one = {.kind = TL_KIND_INT, .v.i = 1};
  tl_status status = tl_tensor_empty(&count, TL_DTYPE_I64, self->ndim, self->shape,
                                     tl_tensor_device(self));
  if (status == TL_OK)
    status = tl_tensor_fill(&count, include_self ? s_one : (tl_scalar){.kind = TL_KIND_INT});
  if (status == TL_OK)
    status = along_dim(&count, dim, index, &cbase, &coff);
  if (status == TL_OK)
    status = filled_over(&ones, s_one, TL_DTYPE_I64, tl_tensor_device(self), index->ndim,
                         index->shape, dim);
  if (status == TL_OK)
    status = scatter_into(true, &ones, &cbase, &coff, TL_INDEX_REDUCE_ADD); /* a new tensor */
  if (status == TL_OK)
    status = scatter_into(disjoint, data, base, off, TL_INDEX_REDUCE_ADD);
  if (status == TL_OK)
    status = mean_divide(self, &count);
  tl_tensor_release(&ones);
  tl_tensor_release(&coff);
  tl_tensor_release(&count);
  return status;
}

tl_status tl_cpu_index_scatter(const char *op, tl_tensor *self_, int64_t dim_,
                               const tl_tensor *index_, const tl_tensor *src_,
                               tl_index_reduce reduce, bool include_self)
{
  tl_tensor self = at_least_1d(self_), index = at_least_1d(index_), base, off = {0},
            data = {0}, copy = {0}, moved = {0};
  const bool fill = src_->ndim == 0 && self_->ndim > 0;
  tl_tensor src = fill ? *src_ : at_least_1d(src_);
  int dim;
  if (check_writable(op, self_) != TL_OK || check_index_dtype(op, index_, TL_ERR_RUNTIME) != TL_OK ||
      tl_dim_wrap(dim_, self.ndim, &dim) != TL_OK ||
      check_gather_shapes(op, &self, dim, &index, fill ? NULL : &src) != TL_OK)
    return tl_error_status();
  if (src.dtype != self.dtype)
    return tl_error_set(TL_ERR_RUNTIME, "%s(): expected self.dtype to be equal to src.dtype "
                                        "(%s vs %s)", op, tl_dtype_names[self.dtype],
                        tl_dtype_names[src.dtype]);
  if (tl_dtype_is_complex(self.dtype) &&
      (reduce == TL_INDEX_REDUCE_AMAX || reduce == TL_INDEX_REDUCE_AMIN))
    return tl_error_set(TL_ERR_RUNTIME, "%s(): reduce='%s' is not supported for complex dtype %s",
                        op, reduce == TL_INDEX_REDUCE_AMAX ? "amax" : "amin",
                        tl_dtype_names[self.dtype]);
  if (tl_tensor_numel(&index) == 0)
    return TL_OK;
  /* The data: src cut to the index's shape, or the fill value broadcast (a
   * CPU scalar moved to self's device first). */
  if (fill && !tl_device_eq(tl_tensor_device(&src), tl_tensor_device(&self))) {
    if (tl_backend_tensor_to(&moved, &src, tl_tensor_device(&self), src.dtype, false) != TL_OK)
      return tl_error_status();
    src = moved;
  }
  if (fill) {
    tl_view_expand(&data, &src, index.ndim, index.shape);
  } else {
    tl_tensor_view_of(&data, &src);
    memcpy(data.shape, index.shape, sizeof data.shape);
  }
  if (data.storage == self.storage) { /* src may alias self: read it first */
    if (tl_tensor_to_dtype(&copy, &data, data.dtype) != TL_OK)
      goto fail;
    tl_tensor_release(&data);
    data = copy;
    copy.storage = NULL;
  }
  if (along_dim(&self, dim, &index, &base, &off) != TL_OK)
    goto fail;
  const bool disjoint = distinct_elements(&self);
  tl_storage_bump(self.storage);
  if (!include_self) { /* start every scattered-to element from the identity */
    tl_tensor ids = {0};
    tl_status s = filled_over(&ids, reduce_identity(reduce, self.dtype), self.dtype,
                              tl_tensor_device(&self), index.ndim, index.shape, dim);
    if (s == TL_OK)
      s = scatter_into(disjoint, &ids, &base, &off, TL_INDEX_REDUCE_NONE);
    tl_tensor_release(&ids);
    if (s != TL_OK)
      goto fail;
  }
  tl_status status = reduce == TL_INDEX_REDUCE_MEAN
                         ? scatter_mean(&self, dim, &index, &base, &off, &data, include_self,
                                        disjoint)
                         : scatter_into(disjoint, &data, &base, &off, reduce);
  if (status != TL_OK)
    goto fail;
  tl_tensor_release(&off);
  tl_tensor_release(&data);
  tl_tensor_release(&moved);
  return TL_OK;
fail:
  tl_tensor_release(&off);
  tl_tensor_release(&data);
  tl_tensor_release(&copy);
  tl_tensor_release(&moved);
  return tl_error_status();
}

/* ---- index_select, index_copy_, index_add_, index_fill_ ----------------------------- */

/* Items ":" * dim + index: the slices of a tensor along dim. */
static int along_items(tl_index_item *items, int dim, const tl_tensor *index)
{
  for (int d = 0; d < dim; d++)
    items[d] = (tl_index_item){.kind = TL_INDEX_SLICE, .start = 0, .stop = INT64_MAX, .step = 1};
  items[dim] = (tl_index_item){.kind = TL_INDEX_TENSOR, .tensor = index};
  return dim + 1;
}

/* A vector index (0-d becomes one element).  A float index is PyTorch's
 * RuntimeError for index_select/copy_/add_/reduce_ and its IndexError for
 * index_fill_. */
static tl_status vector_index(const char *op, const tl_tensor *index, tl_tensor *v)
{
  const bool fill = strncmp(op, "index_fill", 10) == 0;
  if (check_index_dtype(op, index, fill ? TL_ERR_INDEX : TL_ERR_RUNTIME) != TL_OK)
    return tl_error_status();
  if (index->ndim > 1)
    return tl_error_set(TL_ERR_INDEX, "%s(): index is supposed to be a vector, got a %d-d "
                                      "tensor", op, index->ndim);
  *v = at_least_1d(index);
  return TL_OK;
}

tl_status tl_cpu_index_select(tl_tensor *out, const tl_tensor *in_, int64_t dim_,
                              const tl_tensor *index_)
{
  tl_tensor in = at_least_1d(in_), index;
  tl_index_item items[TL_MAX_DIMS];
  int dim;
  bool is_view;
  if (vector_index("index_select", index_, &index) != TL_OK ||
      tl_dim_wrap(dim_, in.ndim, &dim) != TL_OK)
    return tl_error_status();
  /* PyTorch's check of a matrix or more, before the bounds' (a vector's is an IndexError) */
  if (in_->ndim > 1 && in.shape[dim] == 0 && tl_tensor_numel(&index) > 0)
    return tl_error_set(TL_ERR_RUNTIME, "index_select(): self indexing axis dim should be "
                                        "positive");
  if (tl_index_get(out, &in, along_items(items, dim, &index), items, &is_view) != TL_OK)
    return tl_error_status();
  if (in_->ndim == 0 && tl_tensor_numel(out) == 1) /* a 0-d input stays 0-d */
    out->ndim = 0;
  return TL_OK;
}

tl_status tl_cpu_index_put_along(const char *op, tl_tensor *self_, int64_t dim_,
                                 const tl_tensor *index_, const tl_tensor *src_,
                                 tl_index_reduce reduce)
{
  char ss[256], sr[256];
  tl_tensor self = at_least_1d(self_), index;
  tl_index_item items[TL_MAX_DIMS];
  int dim;
  if (check_writable(op, self_) != TL_OK || vector_index(op, index_, &index) != TL_OK ||
      tl_dim_wrap(dim_, self.ndim, &dim) != TL_OK)
    return tl_error_status();
  if (src_->dtype != self.dtype)
    return tl_error_set(TL_ERR_RUNTIME, "%s(): self (%s) and source (%s) must have the same "
                                        "scalar type", op, tl_dtype_names[self.dtype],
                        tl_dtype_names[src_->dtype]);
  tl_tensor src = *src_;
  if (src_->ndim > 0 || self_->ndim == 0) { /* a tensor of slices, not a fill value */
    src = at_least_1d(src_);
    bool same = src.ndim == self.ndim && src.shape[dim] == index.shape[0];
    for (int d = 0; same && d < self.ndim; d++)
      same = d == dim || src.shape[d] == self.shape[d];
    if (!same)
      return tl_error_set(TL_ERR_RUNTIME, "%s(): source %s must have the shape of self %s with "
                                          "dimension %d of size %lld (the number of indices)",
                          op, tl_shape_str(ss, sizeof ss, src_->ndim, src_->shape),
                          tl_shape_str(sr, sizeof sr, self_->ndim, self_->shape), dim,
                          (long long)index.shape[0]);
  }
  return tl_index_put(&self, along_items(items, dim, &index), items, &src,
                      reduce == TL_INDEX_REDUCE_ADD);
}

/* ---- take, put_, take_along_dim ---------------------------------------------------- */

tl_status tl_cpu_index_take(tl_tensor *out, const tl_tensor *in, const tl_tensor *index)
{
  tl_tensor flat;
  bool is_view;
  if (check_index_dtype("take", index, TL_ERR_RUNTIME) != TL_OK ||
      tl_view_reshape(&flat, in, 1, (int64_t[]){-1}, true) != TL_OK)
    return tl_error_status();
  tl_index_item item = {.kind = TL_INDEX_TENSOR, .tensor = index};
  tl_status status = tl_index_get(out, &flat, 1, &item, &is_view);
  tl_tensor_release(&flat);
  return status;
}

tl_status tl_cpu_index_put_flat(tl_tensor *self, const tl_tensor *index, const tl_tensor *src,
                                bool accumulate)
{
  tl_tensor work = {0}, flat = {0}, values = {0};
  if (check_writable("put_", self) != TL_OK || check_index_dtype("put_", index, TL_ERR_RUNTIME) != TL_OK)
    return tl_error_status();
  if (src->dtype != self->dtype)
    return tl_error_set(TL_ERR_RUNTIME, "put_(): self (%s) and source (%s) expected to have the "
                                        "same dtype", tl_dtype_names[self->dtype],
                        tl_dtype_names[src->dtype]);
  if (tl_tensor_numel(src) != tl_tensor_numel(index))
    return tl_error_set(TL_ERR_RUNTIME, "put_(): expected source and index to have the same "
                                        "number of elements, but got source with %lld and index "
                                        "with %lld", (long long)tl_tensor_numel(src),
                        (long long)tl_tensor_numel(index));
  /* A layout that cannot be flattened in place is written through a copy,
   * copied back once every index has been checked and written. */
  bool direct = tl_tensor_is_contiguous(self);
  tl_status status = TL_OK;
  if (direct)
    tl_tensor_view_of(&work, self);
  else
    status = tl_tensor_to_dtype(&work, self, self->dtype);
  if (status == TL_OK)
    status = tl_view_reshape(&flat, &work, 1, (int64_t[]){-1}, false);
  if (status == TL_OK)
    status = tl_view_reshape(&values, src, index->ndim, index->shape, true);
  if (status == TL_OK) {
    tl_index_item item = {.kind = TL_INDEX_TENSOR, .tensor = index};
    status = tl_index_put(&flat, 1, &item, &values, accumulate);
  }
  if (status == TL_OK && !direct)
    status = tl_tensor_copy(self, &work);
  tl_tensor_release(&values);
  tl_tensor_release(&flat);
  tl_tensor_release(&work);
  return status;
}

tl_status tl_cpu_index_take_along_dim(tl_tensor *out, const tl_tensor *in, const tl_tensor *index,
                                      int64_t dim_, bool has_dim)
{
  char si[256], sx[256];
  tl_tensor a = {0}, b = {0};
  tl_status status;
  if (check_index_dtype("take_along_dim", index, TL_ERR_RUNTIME) != TL_OK)
    return tl_error_status();
  if (!has_dim) {
    status = tl_view_reshape(&a, in, 1, (int64_t[]){-1}, true);
    if (status == TL_OK)
      status = tl_view_reshape(&b, index, 1, (int64_t[]){-1}, true);
    if (status == TL_OK)
      status = tl_index_gather(out, &a, 0, &b);
    goto done;
  }
  if (in->ndim != index->ndim)
    return tl_error_set(TL_ERR_RUNTIME, "take_along_dim(): input and indices should have the "
                                        "same number of dimensions, but got %d dimensions for "
                                        "input, and %d dimensions for indices",
                        in->ndim, index->ndim);
  int dim;
  const tl_tensor x = at_least_1d(in), ix = at_least_1d(index);
  if (tl_dim_wrap(dim_, x.ndim, &dim) != TL_OK)
    return tl_error_status();
  /* Broadcast every dim but `dim`, each side keeping its own size there. */
  int64_t xs[TL_MAX_DIMS], is[TL_MAX_DIMS];
  for (int d = 0; d < x.ndim; d++) {
    int64_t p = x.shape[d], q = ix.shape[d];
    if (d != dim && p != q && p != 1 && q != 1)
      return tl_error_set(TL_ERR_RUNTIME, "take_along_dim(): input %s and indices %s cannot be "
                                          "broadcast apart from dimension %d",
                          tl_shape_str(sx, sizeof sx, in->ndim, in->shape),
                          tl_shape_str(si, sizeof si, index->ndim, index->shape), dim);
    xs[d] = is[d] = p == 1 ? q : p;
    xs[d] = d == dim ? p : xs[d];
    is[d] = d == dim ? q : is[d];
  }
  status = tl_view_expand(&a, &x, x.ndim, xs);
  if (status == TL_OK)
    status = tl_view_expand(&b, &ix, ix.ndim, is);
  if (status == TL_OK)
    status = tl_index_gather(out, &a, dim, &b);
  if (status == TL_OK && index->ndim == 0)
    out->ndim = 0;
done:
  tl_tensor_release(&a);
  tl_tensor_release(&b);
  return status;
}

/* ---- masks ------------------------------------------------------------------------- */

static tl_status check_mask(const char *op, const tl_tensor *mask)
{
  if (mask->dtype != TL_DTYPE_BOOL)
    return tl_error_set(TL_ERR_RUNTIME, "%s only supports boolean masks, but got mask with "
                                        "dtype %s", op, tl_dtype_names[mask->dtype]);
  return TL_OK;
}

/* mask expanded to self's shape (a copy when it shares self's memory). */
static tl_status mask_for(const char *op, const tl_tensor *self, const tl_tensor *mask,
                          tl_tensor *out)
{
  char sm[256], ss[256];
  int nd;
  int64_t shape[TL_MAX_DIMS];
  if (check_mask(op, mask) != TL_OK)
    return tl_error_status();
  bool ok = tl_shape_broadcast(self->ndim, self->shape, mask->ndim, mask->shape, &nd, shape) ==
            TL_OK;
  ok = ok && nd == self->ndim && !memcmp(shape, self->shape, (size_t)nd * sizeof *shape);
  if (!ok) {
    tl_error_clear();
    return tl_error_set(TL_ERR_RUNTIME, "%s: the mask of shape %s cannot be broadcast to the "
                                        "shape %s of self", op,
                        tl_shape_str(sm, sizeof sm, mask->ndim, mask->shape),
                        tl_shape_str(ss, sizeof ss, self->ndim, self->shape));
  }
  if (mask->storage == self->storage) {
    tl_tensor copy;
    if (tl_tensor_to_dtype(&copy, mask, TL_DTYPE_BOOL) != TL_OK)
      return tl_error_status();
    tl_status status = tl_view_expand(out, &copy, self->ndim, self->shape);
    tl_tensor_release(&copy);
    return status;
  }
  return tl_view_expand(out, mask, self->ndim, self->shape);
}

typedef struct {
  size_t size;
  _Alignas(16) char value[16];
} fill_params;

/* args: self, mask.  Every element is rewritten (with itself where the mask
 * is false): no branch to mispredict, and the loop vectorizes as a blend. */
#define TL_MASKED_FILL_LOOP(NAME, UINT)                                                     \
  static void NAME(char **args, int64_t n, const int64_t *steps, void *data)                \
  {                                                                                         \
    const fill_params *p = data;                                                            \
    const int64_t s0 = steps[0], s1 = steps[1];                                             \
    char *dst = args[0];                                                                    \
    const char *mask = args[1];                                                             \
    UINT value;                                                                             \
    memcpy(&value, p->value, sizeof value);                                                 \
    for (int64_t i = 0; i < n; i++) {                                                       \
      UINT cur, m = (UINT)-(UINT)(mask[i * s1] != 0);                                       \
      memcpy(&cur, dst + i * s0, sizeof cur);                                               \
      cur = (UINT)((value & m) | (cur & ~m));                                               \
      memcpy(dst + i * s0, &cur, sizeof cur);                                               \
    }                                                                                       \
  }
TL_MASKED_FILL_LOOP(masked_fill_8, uint8_t)
TL_MASKED_FILL_LOOP(masked_fill_16, uint16_t)
TL_MASKED_FILL_LOOP(masked_fill_32, uint32_t)
TL_MASKED_FILL_LOOP(masked_fill_64, uint64_t)
#undef TL_MASKED_FILL_LOOP

static void masked_fill_128(char **args, int64_t n, const int64_t *steps, void *data)
{
  const fill_params *p = data;
  for (int64_t i = 0; i < n; i++)
    if (*(const bool *)(args[1] + i * steps[1]))
      memcpy(args[0] + i * steps[0], p->value, 16);
}

tl_status tl_cpu_index_masked_fill(tl_tensor *self, const tl_tensor *mask, const tl_tensor *value)
{
  tl_tensor m;
  if (check_writable("masked_fill_", self) != TL_OK)
    return tl_error_status();
  if (value->ndim != 0)
    return tl_error_set(TL_ERR_RUNTIME, "masked_fill_ only supports a 0-dimensional value "
                                        "tensor, but got tensor with %d dimension(s)",
                        value->ndim);
  if (mask_for("masked_fill_", self, mask, &m) != TL_OK)
    return tl_error_status();
  tl_device device = tl_tensor_device(self);
  tl_tensor v = {0};
  tl_status status = TL_OK;
  if (tl_dispatch_host_memory(device)) {
    status = tl_cpu_index_masked_fill_pass(self, &m, value);
  } else {
    /* The value in self's dtype, where it is (a CPU scalar travels by value). */
    const tl_index_device_kernels *k = tl_index_device_prims("masked_fill_", device, self->dtype);
    if (!k || tl_tensor_to_dtype(&v, value, self->dtype) != TL_OK)
      status = tl_error_status();
    else
      status = k->masked_fill(self, &m, &v);
  }
  tl_tensor_release(&v);
  tl_tensor_release(&m);
  return status;
}

tl_status tl_cpu_index_masked_fill_pass(tl_tensor *self, const tl_tensor *mask,
                                        const tl_tensor *value)
{
  fill_params p = {.size = tl_dtype_size(self->dtype)};
  tl_scalar_store(tl_scalar_load(value->dtype, tl_tensor_data(value)), self->dtype, p.value);
  const tl_tensor *ops[2] = {self, mask};
  tl_iter it;
  tl_status status = tl_iter_init(&it, 2, ops, NULL);
  if (status == TL_OK) {
    tl_storage_bump(self->storage);
    tl_loop_fn loop = p.size == 1   ? masked_fill_8
                      : p.size == 2 ? masked_fill_16
                      : p.size == 4 ? masked_fill_32
                      : p.size == 8 ? masked_fill_64
                                    : masked_fill_128;
    status = tl_iter_run(&it, loop, &p);
  }
  return status;
}

tl_status tl_cpu_index_masked_scatter(tl_tensor *self, const tl_tensor *mask, const tl_tensor *src)
{
  tl_tensor m = {0}, flat = {0}, coords = {0};
  tl_status status;
  if (check_writable("masked_scatter_", self) != TL_OK ||
      mask_for("masked_scatter_", self, mask, &m) != TL_OK)
    return tl_error_status();
  if (src->dtype != self->dtype) {
    status = tl_error_set(TL_ERR_RUNTIME, "masked_scatter_: expected self and source to have "
                                          "the same dtype, but got self %s and source %s",
                          tl_dtype_names[self->dtype], tl_dtype_names[src->dtype]);
    goto done;
  }
  status = tl_index_nonzero(&coords, &m);
  if (status != TL_OK)
    goto done;
  int64_t nnz = coords.shape[0];
  if (tl_tensor_numel(src) < nnz) {
    status = tl_error_set(TL_ERR_RUNTIME, "masked_scatter_: expected source to have at least "
                                          "%lld elements (the number of true values in the "
                                          "mask), but got %lld",
                          (long long)nnz, (long long)tl_tensor_numel(src));
    goto done;
  }
  status = tl_view_reshape(&flat, src, 1, (int64_t[]){-1}, true);
  if (status != TL_OK)
    goto done;
  tl_view_slice(&flat, 0, 0, nnz, 1);
  tl_index_item item = {.kind = TL_INDEX_TENSOR, .tensor = &m};
  status = tl_index_put(self, 1, &item, &flat, false);
done:
  tl_tensor_release(&coords);
  tl_tensor_release(&flat);
  tl_tensor_release(&m);
  return status;
}

tl_status tl_cpu_index_masked_select(tl_tensor *out, const tl_tensor *in, const tl_tensor *mask)
{
  tl_tensor a = {0}, m = {0};
  int nd;
  int64_t shape[TL_MAX_DIMS];
  bool is_view;
  if (check_mask("masked_select", mask) != TL_OK)
    return tl_error_status();
  if (tl_shape_broadcast(in->ndim, in->shape, mask->ndim, mask->shape, &nd, shape) != TL_OK) {
    char sa[256], sm[256];
    tl_error_clear();
    return tl_error_set(TL_ERR_RUNTIME, "masked_select(): the shape of the mask %s and the "
                                        "shape of input %s cannot be broadcast together",
                        tl_shape_str(sm, sizeof sm, mask->ndim, mask->shape),
                        tl_shape_str(sa, sizeof sa, in->ndim, in->shape));
  }
  tl_status status = tl_view_expand(&a, in, nd, shape);
  if (status == TL_OK)
    status = tl_view_expand(&m, mask, nd, shape);
  if (status == TL_OK) {
    tl_index_item item = {.kind = TL_INDEX_TENSOR, .tensor = &m};
    status = tl_index_get(out, &a, 1, &item, &is_view);
  }
  tl_tensor_release(&a);
  tl_tensor_release(&m);
  return status;
}

/* ---- alpha -------------------------------------------------------------------------- */

/* out = alpha * src, alpha (data) stored in src's dtype */
#define TL_SCALE_LOOP(NAME, T, LOAD, STORE, MUL)                                          \
  static void NAME(char **args, int64_t n, const int64_t *steps, void *data)              \
  {                                                                                       \
    const T a = LOAD(data);                                                               \
    for (int64_t i = 0; i < n; i++) {                                                     \
      T b = LOAD(args[1] + i * steps[1]);                                                 \
      STORE(args[0] + i * steps[0], MUL);                                                 \
    }                                                                                     \
  }
TL_SCALE_LOOP(scale_BOOL, bool, tl_load_BOOL, tl_store_BOOL, a && b)
TL_SCALE_LOOP(scale_U8, uint8_t, tl_load_U8, tl_store_U8, a * b)
TL_SCALE_LOOP(scale_U16, uint16_t, tl_load_U16, tl_store_U16, 1u * a * b) /* not int's: it overflows */
TL_SCALE_LOOP(scale_U32, uint32_t, tl_load_U32, tl_store_U32, a * b)
TL_SCALE_LOOP(scale_U64, uint64_t, tl_load_U64, tl_store_U64, a * b)
TL_SCALE_LOOP(scale_I8, int8_t, tl_load_I8, tl_store_I8, a * b)
TL_SCALE_LOOP(scale_I16, int16_t, tl_load_I16, tl_store_I16, a * b)
TL_SCALE_LOOP(scale_I32, int32_t, tl_load_I32, tl_store_I32, a * b)
TL_SCALE_LOOP(scale_I64, int64_t, tl_load_I64, tl_store_I64, a * b)
TL_SCALE_LOOP(scale_F16, float, tl_load_F16, tl_store_F16, a * b)
TL_SCALE_LOOP(scale_BF16, float, tl_load_BF16, tl_store_BF16, a * b)
TL_SCALE_LOOP(scale_F32, float, tl_load_F32, tl_store_F32, a * b)
TL_SCALE_LOOP(scale_F64, double, tl_load_F64, tl_store_F64, a * b)
TL_SCALE_LOOP(scale_C64, float complex, tl_load_C64, tl_store_C64, a * b)
TL_SCALE_LOOP(scale_C128, double complex, tl_load_C128, tl_store_C128, a * b)
#undef TL_SCALE_LOOP

tl_status tl_cpu_index_scale(tl_tensor *out, const tl_tensor *src, tl_scalar alpha)
{
  static const tl_loop_fn loops[TL_DTYPE_COUNT] = {
      [TL_DTYPE_BOOL] = scale_BOOL, [TL_DTYPE_U8] = scale_U8,   [TL_DTYPE_I8] = scale_I8,
      [TL_DTYPE_I16] = scale_I16,   [TL_DTYPE_I32] = scale_I32, [TL_DTYPE_I64] = scale_I64,
      [TL_DTYPE_F16] = scale_F16,   [TL_DTYPE_BF16] = scale_BF16, [TL_DTYPE_F32] = scale_F32,
      [TL_DTYPE_F64] = scale_F64,   [TL_DTYPE_C64] = scale_C64, [TL_DTYPE_C128] = scale_C128,
      [TL_DTYPE_U16] = scale_U16,   [TL_DTYPE_U32] = scale_U32, [TL_DTYPE_U64] = scale_U64,
  };
  _Alignas(16) char value[16];
  tl_scalar_store(alpha, src->dtype, value);
  const tl_tensor *ops[2] = {out, src};
  tl_iter it;
  tl_status status = tl_iter_init(&it, 2, ops, NULL);
  if (status == TL_OK)
    status = tl_iter_run(&it, loops[src->dtype], value);
  return status;
}

tl_status tl_index_scaled(tl_tensor *out, const tl_tensor *src, tl_scalar alpha)
{
  tl_device device = tl_tensor_device(src);
  const tl_index_device_kernels *k = NULL;
  if (tl_dtype_is_integral(src->dtype) && alpha.kind > TL_KIND_INT)
    return tl_error_set(TL_ERR_RUNTIME, "for integral input tensors, argument alpha must not be "
                                        "a floating point number");
  if (!tl_dispatch_host_memory(device) && !(k = tl_index_device_prims("index_add", device,
                                                                       src->dtype)))
    return tl_error_status();
  if (tl_tensor_empty(out, src->dtype, src->ndim, src->shape, device) != TL_OK)
    return tl_error_status();
  tl_status status = k ? k->scale(out, src, alpha) : tl_cpu_index_scale(out, src, alpha);
  if (status != TL_OK)
    tl_tensor_release(out);
  return status;
}
