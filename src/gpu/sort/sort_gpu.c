/* sort_gpu.c - the CUDA row of the sort family (tl_sort_kernels): sort,
 * argsort, msort, topk, kthvalue, median, nanmedian, quantile, nanquantile,
 * mode, cummax, cummin, unique, unique_consecutive, searchsorted,
 * bucketize, bincount, histc.
 *
 * The CPU's contracts (tl_sort.h), and its checks and error messages
 * (sort_args.c, shared): outputs are allocated here on the input's device
 * and left unallocated on error; median of all elements is sort_args.c's
 * (the median along one dim of the flattened input).  The kernels are in sort.cu and search.cu; this file
 * turns tensors into their plain lanes (tl_gpu_sort.h) and scratch buffers
 * (tensors of bytes from the device's caching pool, on the current stream).
 *
 * Host reads of device memory happen only where the result needs them:
 * unique's group count (its output shape), bincount's largest value (its
 * length) and a negative input (an error), histc's data range when min ==
 * max (and a non-finite one is an error), a searchsorted sorter index out
 * of range (an error).  Each is one synchronous copy of a few bytes.      */
#include "gpu/tl_gpu.h"

#ifdef TL_WITH_CUDA
#include <math.h>
#include <string.h>

#include "gpu/sort/tl_gpu_sort.h"
#include "gpu/tl_gpu_host.h"
#include "ndcore/dispatch/tl_kernel_sets.h"
#include "ndcore/kernels/sort_keys.h"
#include "ndcore/kernels/tl_sort_args.h"
#include "ndcore/tensor/tl_backend.h"
#include "ndcore/tensor/tl_views.h"

/* ---- lanes, scratch, host reads ------------------------------------------------------- */

/* t's lanes along skip (-1: every dim is a lane dim, one element a lane). */
static tl_status lanes_of(const char *op, const tl_tensor *t, int skip, tl_gpu_lanes *l)
{
  int64_t size = (int64_t)tl_dtype_size(t->dtype);
  memset(l, 0, sizeof *l);
  l->data = tl_tensor_data(t);
  for (int i = 0; i < t->ndim; i++) {
    if (i == skip || t->shape[i] == 1)
      continue;
    if (l->ndim == TL_GPU_MAX_DIMS)
      return tl_error_set(TL_ERR_NOT_IMPLEMENTED, "%s(): CUDA kernels index at most %d "
                          "dimensions besides the sorted one (make the input contiguous and "
                          "merge dims first)", op, TL_GPU_MAX_DIMS);
    l->shape[l->ndim] = t->shape[i];
    l->strides[l->ndim++] = t->strides[i] * size;
  }
  l->step = skip >= 0 && t->ndim ? t->strides[skip] * size : 0;
  return TL_OK;
}

static int64_t lane_length(const tl_tensor *t, int dim) { return t->ndim ? t->shape[dim] : 1; }

static int64_t lane_count(const tl_tensor *t, int dim)
{
  int64_t lanes = 1;
  for (int i = 0; i < t->ndim; i++)
    lanes *= i == dim ? 1 : t->shape[i];
  return lanes;
}

/* Bytes of scratch on the device (at least one). */
static tl_status scratch(tl_tensor *t, tl_device device, int64_t nbytes)
{
  nbytes = nbytes > 0 ? nbytes : 1;
  return tl_tensor_empty(t, TL_DTYPE_U8, 1, &nbytes, device);
}

/* n bytes of device memory to the host: a synchronous copy on the current
 * stream (the one sync of a data-dependent result). */
static tl_status read_back(tl_device device, void *dst, const void *src, size_t n)
{
  const tl_backend *b = tl_backend_get(device);
  return b ? b->copy_to_host(device, dst, src, n, NULL, false) : tl_error_status();
}

static tl_status launched(int err, const char *op) { return tl_gpu_launched(err, op); }

/* ---- sorted lanes ------------------------------------------------------------------------ */

/* Every lane of a tensor sorted: keys and positions, [lanes, n]. */
typedef struct {
  tl_tensor keys, pos;
  int64_t lanes, n;
  int kbytes;
} sorted_lanes;

static void sorted_release(sorted_lanes *s)
{
  tl_sort_release(&s->keys);
  tl_sort_release(&s->pos);
}

/* CUB's sort of one call's pairs, its temp storage grown as needed. */
static tl_status sort_call(const char *op, tl_device dev, int kbytes, tl_tensor *temp,
                           const void *kin, void *kout, const int32_t *pin, int32_t *pout,
                           int64_t items, int64_t segments, const int32_t *offsets, void *stream)
{
  size_t bytes = 0;
  if (launched(tl_gpu_sort_pairs(kbytes, NULL, &bytes, kin, kout, pin, pout, items, segments,
                                 offsets, stream), op) != TL_OK)
    return tl_error_status();
  if (!temp->storage || (size_t)temp->shape[0] < bytes) {
    tl_sort_release(temp);
    if (scratch(temp, dev, (int64_t)bytes) != TL_OK)
      return tl_error_status();
  }
  bytes = (size_t)temp->shape[0];
  return launched(tl_gpu_sort_pairs(kbytes, tl_tensor_data(temp), &bytes, kin, kout, pin, pout,
                                    items, segments, offsets, stream), op);
}

/* Lanes this long, when there are few of them, take the device-wide sort
 * one lane at a time: the segmented sort gives a lane one block. */
#define TL_GPU_SORT_LONG (1 << 16)
#define TL_GPU_SORT_FEW 16

static tl_status sort_lanes(const char *op, const tl_tensor *in, int d, bool desc, sorted_lanes *s,
                            void *stream)
{
  tl_device dev = tl_tensor_device(in);
  tl_tensor kin = {0}, pin = {0}, offsets = {0}, temp = {0};
  tl_gpu_lanes l;
  memset(s, 0, sizeof *s);
  s->n = lane_length(in, d);
  s->lanes = lane_count(in, d);
  s->kbytes = tl_gpu_sort_key_bytes(in->dtype);
  if (s->n > INT32_MAX)
    return tl_error_set(TL_ERR_NOT_IMPLEMENTED, "%s(): CUDA sorts lanes of fewer than 2^31 "
                        "elements, this one has %lld", op, (long long)s->n);
  int64_t total = s->lanes * s->n;
  if (lanes_of(op, in, in->ndim ? d : -1, &l) != TL_OK || scratch(&kin, dev, total * s->kbytes) != TL_OK ||
      scratch(&s->keys, dev, total * s->kbytes) != TL_OK || scratch(&pin, dev, total * 4) != TL_OK ||
      scratch(&s->pos, dev, total * 4) != TL_OK)
    goto fail;
  char *ki = tl_tensor_data(&kin), *ko = tl_tensor_data(&s->keys);
  int32_t *pi = tl_tensor_data(&pin), *po = tl_tensor_data(&s->pos);
  if (total == 0)
    goto done;
  if (launched(tl_gpu_sort_keys(&l, in->dtype, desc, s->lanes, s->n, ki, pi, stream), op) != TL_OK)
    goto fail;
  if (s->lanes == 1 || (s->n >= TL_GPU_SORT_LONG && s->lanes <= TL_GPU_SORT_FEW)) {
    for (int64_t i = 0; i < s->lanes; i++) {
      int64_t at = i * s->n;
      if (sort_call(op, dev, s->kbytes, &temp, ki + at * s->kbytes, ko + at * s->kbytes, pi + at,
                    po + at, s->n, 1, NULL, stream) != TL_OK)
        goto fail;
    }
    goto done;
  }
  /* Segmented: as many lanes a call as keep its item count an int. */
  int64_t chunk = INT32_MAX / s->n < s->lanes ? INT32_MAX / s->n : s->lanes;
  if (scratch(&offsets, dev, (chunk + 1) * 4) != TL_OK ||
      launched(tl_gpu_sort_offsets(tl_tensor_data(&offsets), chunk, s->n, stream), op) != TL_OK)
    goto fail;
  for (int64_t c = 0; c < s->lanes; c += chunk) {
    int64_t segs = s->lanes - c < chunk ? s->lanes - c : chunk, at = c * s->n;
    if (sort_call(op, dev, s->kbytes, &temp, ki + at * s->kbytes, ko + at * s->kbytes, pi + at,
                  po + at, segs * s->n, segs, tl_tensor_data(&offsets), stream) != TL_OK)
      goto fail;
  }
done:
  tl_sort_release(&kin);
  tl_sort_release(&pin);
  tl_sort_release(&offsets);
  tl_sort_release(&temp);
  return TL_OK;
fail:
  tl_sort_release(&kin);
  tl_sort_release(&pin);
  tl_sort_release(&offsets);
  tl_sort_release(&temp);
  sorted_release(s);
  return tl_error_status();
}

/* Scratch of a running maximum along lanes (tl_gpu_lane_max_scan): total
 * items and CUB's temp storage (*bytes). */
static tl_status lane_scan_scratch(const char *op, const tl_tensor *in, int64_t total, int64_t n,
                                   tl_tensor *items, tl_tensor *temp, size_t *bytes)
{
  tl_device dev = tl_tensor_device(in);
  if (launched(tl_gpu_lane_max_scan(NULL, total, n, NULL, bytes, NULL), op) != TL_OK ||
      scratch(items, dev, total * TL_GPU_LANE_MAX_ITEM) != TL_OK)
    return tl_error_status();
  if (scratch(temp, dev, (int64_t)*bytes) != TL_OK) {
    tl_tensor_release(items);
    return tl_error_status();
  }
  return TL_OK;
}

/* ---- what each op reads from its sorted lanes ------------------------------------------------ */

/* Every lane of in sorted along d (desc: largest first), then either
 *   kind < 0: sorted positions [0, k) to values and indices (either may be
 *             NULL), allocated with dim d of size k (sort, topk);
 *   else:     one position a lane (TL_GPU_SELECT_*, k for kthvalue; the
 *             mode through two lane scans) to values and indices, dim d
 *             kept as 1 or removed. */
static tl_status from_sorted(const char *op, const tl_tensor *in, int d, bool desc, int kind,
                             int64_t k, bool keepdim, tl_tensor *values, tl_tensor *indices)
{
  int64_t shape[TL_MAX_DIMS];
  bool prefix = kind < 0;
  int nd = tl_sort_reduced_shape(in, d, prefix ? k : 1, prefix || keepdim, shape);
  int skip = in->ndim ? d : -1, oskip = prefix || keepdim ? skip : -1;
  sorted_lanes s = {0};
  tl_gpu_lanes li, lv = {0}, lx = {0};
  tl_tensor items = {0}, temp = {0};
  void *stream = NULL;
  if (tl_sort_alloc_pair(in, nd, shape, values, indices) != TL_OK)
    return tl_error_status();
  if (lanes_of(op, in, skip, &li) != TL_OK || (values && lanes_of(op, values, oskip, &lv) != TL_OK) ||
      (indices && lanes_of(op, indices, oskip, &lx) != TL_OK) ||
      tl_gpu_stream(tl_tensor_device(in), op, &stream) != TL_OK ||
      sort_lanes(op, in, d, desc, &s, stream) != TL_OK)
    goto fail;
  int err;
  if (prefix) {
    err = tl_gpu_sort_gather(&li, (int)tl_dtype_size(in->dtype), &lv, &lx, tl_tensor_data(&s.pos),
                             s.lanes, s.n, k, stream);
  } else if (kind == TL_GPU_SELECT_MODE) {
    size_t bytes = 0;
    if (lane_scan_scratch(op, in, s.lanes * s.n, s.n, &items, &temp, &bytes) != TL_OK)
      goto fail;
    err = tl_gpu_sort_mode(&li, in->dtype, &lv, &lx, tl_tensor_data(&s.keys), tl_tensor_data(&s.pos),
                           s.lanes, s.n, tl_tensor_data(&items), tl_tensor_data(&temp), bytes, stream);
  } else {
    err = tl_gpu_sort_select(kind, k, &li, in->dtype, &lv, &lx, tl_tensor_data(&s.keys),
                             tl_tensor_data(&s.pos), s.lanes, s.n, stream);
  }
  if (launched(err, op) != TL_OK)
    goto fail;
  sorted_release(&s);
  tl_sort_release(&items);
  tl_sort_release(&temp);
  return TL_OK;
fail:
  sorted_release(&s);
  tl_sort_release(&items);
  tl_sort_release(&temp);
  tl_sort_release(values);
  tl_sort_release(indices);
  return tl_error_status();
}

static tl_status cuda_sort(const tl_tensor *in, int64_t dim, bool descending, bool stable,
                           tl_tensor *values, tl_tensor *indices)
{
  (void)stable; /* radix sorts are stable */
  const char *op = values ? "sort" : "argsort";
  int d;
  if (tl_sort_check_dim(op, in, dim, &d) != TL_OK)
    return tl_error_status();
  return from_sorted(op, in, d, descending, -1, lane_length(in, d), true, values, indices);
}

static tl_status cuda_topk(const tl_tensor *in, int64_t k, int64_t dim, bool largest,
                           tl_tensor *values, tl_tensor *indices)
{
  int d;
  if (tl_topk_check(in, k, dim, &d) != TL_OK)
    return tl_error_status();
  /* A 0-d input's result is 0-d whatever k (PyTorch): its one element. */
  return from_sorted("topk", in, d, largest, -1, in->ndim ? k : 1, true, values, indices);
}

static tl_status cuda_kthvalue(const tl_tensor *in, int64_t k, int64_t dim, bool keepdim,
                               tl_tensor *values, tl_tensor *indices)
{
  int d;
  if (tl_kthvalue_check(in, k, dim, &d) != TL_OK)
    return tl_error_status();
  return from_sorted("kthvalue", in, d, false, TL_GPU_SELECT_KTH, k, keepdim, values, indices);
}

static tl_status cuda_median_dim(const tl_tensor *in, int64_t dim, bool keepdim, bool ignore_nan,
                                 tl_tensor *values, tl_tensor *indices)
{
  const char *op = ignore_nan ? "nanmedian" : "median";
  int d;
  if (tl_sort_check_reduced(op, in, dim, &d) != TL_OK)
    return tl_error_status();
  return from_sorted(op, in, d, false, ignore_nan ? TL_GPU_SELECT_NANMEDIAN : TL_GPU_SELECT_MEDIAN, 0,
                     keepdim, values, indices);
}

static tl_status cuda_mode(const tl_tensor *in, int64_t dim, bool keepdim, tl_tensor *values,
                           tl_tensor *indices)
{
  int d;
  if (tl_sort_check_reduced("mode", in, dim, &d) != TL_OK)
    return tl_error_status();
  return from_sorted("mode", in, d, false, TL_GPU_SELECT_MODE, 0, keepdim, values, indices);
}

/* ---- quantile ------------------------------------------------------------------------------- */

static tl_status cuda_quantile(const tl_tensor *in, const double *q, int64_t nq, bool q_scalar,
                               bool all_dims, int64_t dim, bool keepdim, tl_quantile_method method,
                               bool ignore_nan, tl_tensor *out)
{
  const char *op = ignore_nan ? "nanquantile" : "quantile";
  int d;
  tl_device dev = tl_tensor_device(in);
  tl_tensor flat = {0}, qd = {0};
  sorted_lanes s = {0};
  void *stream = NULL;
  const tl_tensor *src;
  if (tl_quantile_begin(op, in, q, nq, q_scalar, all_dims, dim, keepdim, &d, out, &flat, &src) !=
      TL_OK)
    return tl_error_status();
  int sd = all_dims ? 0 : d;
  if (lane_length(src, sd) == 0) { /* empty lanes: every result is NaN */
    if (tl_tensor_fill(out, (tl_scalar){.kind = TL_KIND_FLOAT, .v.f = NAN}) != TL_OK)
      goto fail;
    goto done;
  }
  tl_tensor view;
  int64_t q_step;
  tl_quantile_lanes_view(out, q_scalar, all_dims, &view, &q_step);
  int oskip = !all_dims && keepdim && in->ndim ? d : -1;
  tl_gpu_lanes li, lo;
  const tl_backend *b = tl_backend_get(dev);
  if (!b || lanes_of(op, src, src->ndim ? sd : -1, &li) != TL_OK ||
      lanes_of(op, &view, oskip, &lo) != TL_OK ||
      tl_tensor_empty(&qd, TL_DTYPE_F64, 1, &nq, dev) != TL_OK ||
      b->copy_from_host(dev, tl_tensor_data(&qd), q, sizeof(double) * (size_t)nq, NULL, false) != TL_OK ||
      tl_gpu_stream(dev, op, &stream) != TL_OK || sort_lanes(op, src, sd, false, &s, stream) != TL_OK)
    goto fail;
  if (launched(tl_gpu_sort_quantile(&li, src->dtype, &lo, q_step, tl_tensor_data(&qd), nq, (int)method,
                                    ignore_nan, tl_tensor_data(&s.keys), tl_tensor_data(&s.pos),
                                    s.lanes, s.n, stream), op) != TL_OK)
    goto fail;
done:
  sorted_release(&s);
  tl_sort_release(&flat);
  tl_sort_release(&qd);
  return TL_OK;
fail:
  sorted_release(&s);
  tl_sort_release(&flat);
  tl_sort_release(&qd);
  tl_tensor_release(out);
  return tl_error_status();
}

/* ---- cummax / cummin -------------------------------------------------------------------------- */

static tl_status cuda_cummax(const tl_tensor *in, int64_t dim, bool is_min, tl_tensor *values,
                             tl_tensor *indices)
{
  const char *op = is_min ? "cummin" : "cummax";
  int d;
  if (tl_sort_check_dim(op, in, dim, &d) != TL_OK ||
      tl_sort_alloc_pair(in, in->ndim, in->shape, values, indices) != TL_OK)
    return tl_error_status();
  int skip = in->ndim ? d : -1;
  int64_t lanes = lane_count(in, d), n = lane_length(in, d);
  tl_gpu_lanes li, lv, lx;
  tl_tensor items = {0}, temp = {0};
  size_t bytes = 0;
  void *stream = NULL;
  if (lanes_of(op, in, skip, &li) != TL_OK || lanes_of(op, values, skip, &lv) != TL_OK ||
      lanes_of(op, indices, skip, &lx) != TL_OK ||
      tl_gpu_stream(tl_tensor_device(in), op, &stream) != TL_OK ||
      lane_scan_scratch(op, in, lanes * n, n, &items, &temp, &bytes) != TL_OK ||
      launched(tl_gpu_cummax(&li, in->dtype, is_min, &lv, &lx, lanes, n, tl_tensor_data(&items),
                             tl_tensor_data(&temp), bytes, stream), op) != TL_OK) {
    tl_sort_release(&items);
    tl_sort_release(&temp);
    tl_sort_release(values);
    tl_sort_release(indices);
    return tl_error_status();
  }
  tl_sort_release(&items);
  tl_sort_release(&temp);
  return TL_OK;
}

/* ---- unique ------------------------------------------------------------------------------------ */

/* Groups of equal rows (width elements each) of the contiguous data, visited
 * in perm's order (NULL: as they lie): the group count read back, the first
 * row of each group to out (allocated: dtype, nd, shape with shape[0] set to
 * the count), inverse[row] (allocated with inv_nd/inv_shape) and counts. */
static tl_status unique_groups(const char *op, const tl_tensor *data, int64_t rows, int64_t width,
                               const int32_t *perm, bool nan_distinct, int nd, int64_t *shape,
                               int inv_nd, const int64_t *inv_shape, tl_tensor *out,
                               tl_tensor *inverse, tl_tensor *counts, void *stream)
{
  tl_device dev = tl_tensor_device(data);
  tl_tensor group = {0}, temp = {0};
  size_t bytes = 0;
  int64_t groups = 0;
  if (scratch(&group, dev, rows * 8) != TL_OK ||
      launched(tl_gpu_unique_groups(NULL, 0, 0, NULL, rows, false, NULL, NULL, &bytes, stream), op) != TL_OK ||
      scratch(&temp, dev, (int64_t)bytes) != TL_OK)
    goto fail;
  int64_t *g = tl_tensor_data(&group);
  if (rows > 0 &&
      (launched(tl_gpu_unique_groups(tl_tensor_data(data), data->dtype, width, perm, rows, nan_distinct,
                                     g, tl_tensor_data(&temp), &bytes, stream), op) != TL_OK ||
       read_back(dev, &groups, g + rows - 1, sizeof groups) != TL_OK))
    goto fail;
  shape[0] = groups;
  if (tl_tensor_empty(out, data->dtype, nd, shape, dev) != TL_OK ||
      (inverse && tl_tensor_empty(inverse, TL_DTYPE_I64, inv_nd, inv_shape, dev) != TL_OK) ||
      (counts && tl_tensor_empty(counts, TL_DTYPE_I64, 1, &groups, dev) != TL_OK))
    goto fail;
  if (launched(tl_gpu_unique_emit(tl_tensor_data(data), (int)tl_dtype_size(data->dtype), width, perm,
                                  g, rows, tl_tensor_data(out),
                                  inverse ? tl_tensor_data(inverse) : NULL,
                                  counts ? tl_tensor_data(counts) : NULL, stream), op) != TL_OK)
    goto fail;
  tl_sort_release(&group);
  tl_sort_release(&temp);
  return TL_OK;
fail:
  tl_sort_release(&group);
  tl_sort_release(&temp);
  tl_sort_release(out);
  tl_sort_release(inverse);
  tl_sort_release(counts);
  return tl_error_status();
}

static tl_status cuda_unique(const tl_tensor *in, bool consecutive, tl_tensor *out,
                             tl_tensor *inverse, tl_tensor *counts)
{
  const char *op = consecutive ? "unique_consecutive" : "unique";
  if (tl_sort_check_real(op, in) != TL_OK)
    return tl_error_status();
  int64_t n = tl_tensor_numel(in), shape[1];
  tl_tensor flat = {0};
  sorted_lanes s = {0};
  void *stream = NULL;
  if (tl_sort_flatten(in, &flat) != TL_OK)
    return tl_error_status();
  if (tl_gpu_stream(tl_tensor_device(in), op, &stream) != TL_OK ||
      (!consecutive && n > 0 && sort_lanes(op, &flat, 0, false, &s, stream) != TL_OK))
    goto fail;
  if (unique_groups(op, &flat, n, 1, s.pos.storage ? tl_tensor_data(&s.pos) : NULL, true, 1, shape,
                    in->ndim, in->shape, out, inverse, counts, stream) != TL_OK)
    goto fail;
  sorted_release(&s);
  tl_sort_release(&flat);
  return TL_OK;
fail:
  sorted_release(&s);
  tl_sort_release(&flat);
  return tl_error_status();
}

/* Rows in lexicographic order: one stable sort of the row numbers by each
 * column, last column first (an LSD sort whose digits are columns). */
static tl_status sort_rows(const char *op, const tl_tensor *packed, int64_t rows, int64_t width,
                           tl_tensor *perm, void *stream)
{
  tl_device dev = tl_tensor_device(packed);
  int kbytes = tl_gpu_sort_key_bytes(packed->dtype);
  tl_tensor kin = {0}, kout = {0}, other = {0}, temp = {0};
  if (scratch(perm, dev, rows * 4) != TL_OK || scratch(&other, dev, rows * 4) != TL_OK ||
      scratch(&kin, dev, rows * kbytes) != TL_OK || scratch(&kout, dev, rows * kbytes) != TL_OK ||
      launched(tl_gpu_sort_offsets(tl_tensor_data(perm), rows - 1, 1, stream), op) != TL_OK)
    goto fail;
  for (int64_t c = width - 1; c >= 0; c--) {
    if (launched(tl_gpu_unique_column_keys(tl_tensor_data(packed), packed->dtype, width, c,
                                           tl_tensor_data(perm), rows, tl_tensor_data(&kin), stream),
                 op) != TL_OK ||
        sort_call(op, dev, kbytes, &temp, tl_tensor_data(&kin), tl_tensor_data(&kout),
                  tl_tensor_data(perm), tl_tensor_data(&other), rows, 1, NULL, stream) != TL_OK)
      goto fail;
    tl_tensor t = *perm;
    *perm = other;
    other = t;
  }
  tl_sort_release(&kin);
  tl_sort_release(&kout);
  tl_sort_release(&other);
  tl_sort_release(&temp);
  return TL_OK;
fail:
  tl_sort_release(&kin);
  tl_sort_release(&kout);
  tl_sort_release(&other);
  tl_sort_release(&temp);
  tl_sort_release(perm);
  return tl_error_status();
}

static tl_status cuda_unique_dim(const tl_tensor *in, int64_t dim, bool consecutive, tl_tensor *out,
                                 tl_tensor *inverse, tl_tensor *counts)
{
  const char *op = consecutive ? "unique_consecutive" : "unique";
  int d;
  int64_t rows, numel = tl_tensor_numel(in);
  if (tl_unique_dim_check(op, in, dim, &d, &rows) != TL_OK)
    return tl_error_status();
  if (rows > INT32_MAX)
    return tl_error_set(TL_ERR_NOT_IMPLEMENTED, "%s(): CUDA takes fewer than 2^31 slices, got "
                        "%lld", op, (long long)rows);
  int64_t width = rows ? numel / rows : 0;
  tl_tensor packed = {0}, result = {0}, perm = {0};
  void *stream = NULL;
  if (tl_unique_dim_rows(in, d, &packed) != TL_OK)
    return tl_error_status();
  if (tl_gpu_stream(tl_tensor_device(in), op, &stream) != TL_OK ||
      (!consecutive && rows > 0 && sort_rows(op, &packed, rows, width, &perm, stream) != TL_OK))
    goto fail;
  int64_t shape[TL_MAX_DIMS];
  memcpy(shape, packed.shape, sizeof(int64_t) * (size_t)packed.ndim);
  if (unique_groups(op, &packed, rows, width, perm.storage ? tl_tensor_data(&perm) : NULL, false,
                    packed.ndim ? packed.ndim : 1, shape, 1, &rows, &result, inverse, counts,
                    stream) != TL_OK)
    goto fail;
  if (!in->ndim) { /* one slice: the 0-d input itself */
    result.ndim = 0;
    tl_tensor_view_of(out, &result);
  } else if (tl_unique_dim_unrows(&result, d, out) != TL_OK) {
    tl_sort_release(inverse);
    tl_sort_release(counts);
    goto fail;
  }
  tl_sort_release(&packed);
  tl_sort_release(&result);
  tl_sort_release(&perm);
  return TL_OK;
fail:
  tl_sort_release(&packed);
  tl_sort_release(&result);
  tl_sort_release(&perm);
  return tl_error_status();
}

/* ---- searchsorted / bucketize --------------------------------------------------------------- */

static tl_status cuda_searchsorted(const tl_tensor *seq, const tl_tensor *values, bool right,
                                   const tl_tensor *sorter, bool out_int32, tl_tensor *out)
{
  const char *op = "searchsorted";
  if (tl_searchsorted_check(seq, values, sorter, out_int32) != TL_OK)
    return tl_error_status();
  bool seq_1d = seq->ndim == 1;
  int64_t n = seq->shape[seq->ndim - 1];
  tl_device dev = tl_tensor_device(values);
  int ss = seq->ndim - 1, sv = values->ndim ? values->ndim - 1 : -1;
  int64_t seq_rows = lane_count(seq, ss);
  tl_gpu_lanes lseq, lsort = {0}, lval, lout;
  tl_tensor cs = {0}, cv = {0}, bad = {0};
  void *stream = NULL;
  if (tl_gpu_stream(dev, op, &stream) != TL_OK)
    return tl_error_status();
  if (sorter) { /* every sorter index must point into its row: an error to raise */
    int64_t b[3];
    if (lanes_of(op, sorter, ss, &lsort) != TL_OK || scratch(&bad, dev, sizeof b) != TL_OK ||
        launched(tl_gpu_sorter_check(&lsort, seq_rows, n, tl_tensor_data(&bad), stream), op) != TL_OK ||
        read_back(dev, b, tl_tensor_data(&bad), sizeof b) != TL_OK)
      goto fail;
    if (b[0] != INT64_MAX) {
      tl_error_set(TL_ERR_RUNTIME, "searchsorted(): sorter index out of range: got %lld for a "
                   "boundaries dim of size %lld", (long long)b[1], (long long)n);
      goto fail;
    }
  }
  /* Both sides are compared in their common dtype. */
  tl_dtype common = tl_promote_types(seq->dtype, values->dtype);
  if ((seq->dtype != common && tl_tensor_to_dtype(&cs, seq, common) != TL_OK) ||
      (values->dtype != common && tl_tensor_to_dtype(&cv, values, common) != TL_OK))
    goto fail;
  const tl_tensor *sq = cs.storage ? &cs : seq, *vl = cv.storage ? &cv : values;
  if (tl_tensor_empty(out, out_int32 ? TL_DTYPE_I32 : TL_DTYPE_I64, values->ndim, values->shape,
                      dev) != TL_OK)
    goto fail;
  int64_t nvalues = values->ndim ? values->shape[sv] : 1;
  if (lanes_of(op, sq, ss, &lseq) != TL_OK || lanes_of(op, vl, sv, &lval) != TL_OK ||
      lanes_of(op, out, sv, &lout) != TL_OK ||
      launched(tl_gpu_searchsorted(&lseq, &lsort, seq_1d ? 1 : seq_rows, n, &lval,
                                   lane_count(values, sv), nvalues, common, right, &lout, out_int32,
                                   stream), op) != TL_OK) {
    tl_tensor_release(out);
    goto fail;
  }
  tl_sort_release(&cs);
  tl_sort_release(&cv);
  tl_sort_release(&bad);
  return TL_OK;
fail:
  tl_sort_release(&cs);
  tl_sort_release(&cv);
  tl_sort_release(&bad);
  return tl_error_status();
}

/* ---- bincount / histc --------------------------------------------------------------------- */

static tl_status cuda_bincount(const tl_tensor *in, const tl_tensor *weights, int64_t minlength,
                               tl_tensor *out)
{
  const char *op = "bincount";
  tl_dtype od;
  if (tl_bincount_check(in, weights, minlength, &od) != TL_OK)
    return tl_error_status();
  tl_device dev = tl_tensor_device(in);
  int64_t n = in->shape[0], b[3];
  int64_t step = in->strides[0] * (int64_t)tl_dtype_size(in->dtype);
  int64_t wstep = weights ? weights->strides[0] * (int64_t)tl_dtype_size(weights->dtype) : 0;
  tl_tensor bad = {0};
  void *stream = NULL;
  /* The length is the largest value (a data-dependent shape) and a negative
   * value is an error: one read of both. */
  if (tl_gpu_stream(dev, op, &stream) != TL_OK || scratch(&bad, dev, sizeof b) != TL_OK ||
      launched(tl_gpu_bincount_stats(tl_tensor_data(in), step, in->dtype, n, tl_tensor_data(&bad),
                                     stream), op) != TL_OK ||
      read_back(dev, b, tl_tensor_data(&bad), sizeof b) != TL_OK)
    goto fail;
  tl_sort_release(&bad);
  if (b[0] != INT64_MAX && in->dtype == TL_DTYPE_U64) /* past int64: the CPU's words */
    return tl_error_set(TL_ERR_RUNTIME, "bincount(): input[%lld] is %llu, too large a bin",
                        (long long)b[0], (unsigned long long)b[1]);
  if (b[0] != INT64_MAX)
    return tl_error_set(TL_ERR_RUNTIME, "bincount only supports 1-d non-negative integral "
                        "inputs; input[%lld] is %lld", (long long)b[0], (long long)b[1]);
  int64_t len = b[2] + 1 > minlength ? b[2] + 1 : minlength;
  if (tl_tensor_zeros(out, od, 1, &len, dev) != TL_OK)
    return tl_error_status();
  if (launched(tl_gpu_bincount(tl_tensor_data(in), step, in->dtype, n,
                               weights ? tl_tensor_data(weights) : NULL, wstep,
                               weights ? (int)weights->dtype : 0, tl_tensor_data(out), od, stream),
               op) != TL_OK) {
    tl_tensor_release(out);
    return tl_error_status();
  }
  return TL_OK;
fail:
  tl_sort_release(&bad);
  return tl_error_status();
}

static tl_status cuda_histc(const tl_tensor *in, int64_t bins, double min, double max,
                            tl_tensor *out)
{
  const char *op = "histc";
  if (tl_histc_check(in, bins, min, max) != TL_OK)
    return tl_error_status();
  tl_device dev = tl_tensor_device(in);
  int64_t n = tl_tensor_numel(in);
  tl_tensor flat = {0}, range = {0}, counts = {0};
  void *stream = NULL;
  if (tl_sort_flatten(in, &flat) != TL_OK)
    return tl_error_status();
  if (tl_gpu_stream(dev, op, &stream) != TL_OK)
    goto fail;
  if (min == max && n > 0) { /* the data's own range: read back, its bounds decide an error */
    uint64_t k[2];
    if (scratch(&range, dev, sizeof k) != TL_OK ||
        launched(tl_gpu_histc_range(tl_tensor_data(&flat), in->dtype, n, tl_tensor_data(&range),
                                    stream), op) != TL_OK ||
        read_back(dev, k, tl_tensor_data(&range), sizeof k) != TL_OK)
      goto fail;
    /* A NaN anywhere makes both bounds NaN (the CPU's running min and max). */
    bool nan = k[1] == ~(uint64_t)0;
    uint64_t lo = tl_unkey_f64(k[0]), hi = tl_unkey_f64(k[1]);
    memcpy(&min, &lo, 8);
    memcpy(&max, &hi, 8);
    if (nan)
      min = max = NAN;
  }
  if (min == max) {
    min -= 1;
    max += 1;
  }
  if (!isfinite(min) || !isfinite(max)) {
    tl_error_set(TL_ERR_RUNTIME, "histc(): range of [%g, %g] is not finite", min, max);
    goto fail;
  }
  if (tl_tensor_zeros(&counts, TL_DTYPE_I64, 1, &bins, dev) != TL_OK ||
      launched(tl_gpu_histc(tl_tensor_data(&flat), in->dtype, n, bins, min, max,
                            tl_tensor_data(&counts), stream), op) != TL_OK ||
      tl_tensor_to_dtype(out, &counts, in->dtype) != TL_OK)
    goto fail;
  tl_sort_release(&flat);
  tl_sort_release(&range);
  tl_sort_release(&counts);
  return TL_OK;
fail:
  tl_sort_release(&flat);
  tl_sort_release(&range);
  tl_sort_release(&counts);
  return tl_error_status();
}

/* ---- registration ------------------------------------------------------------------------- */

void tl_gpu_sort_register(void)
{
  static const tl_sort_kernels set = {
      .sort = cuda_sort,
      .topk = cuda_topk,
      .kthvalue = cuda_kthvalue,
      .median_all = tl_sort_median_all,
      .median_dim = cuda_median_dim,
      .quantile = cuda_quantile,
      .mode = cuda_mode,
      .cummax = cuda_cummax,
      .unique = cuda_unique,
      .unique_dim = cuda_unique_dim,
      .searchsorted = cuda_searchsorted,
      .bincount = cuda_bincount,
      .histc = cuda_histc,
  };
  tl_dispatch_register_family(TL_OP_SORT, TL_DEVICE_CUDA, &set);
}
#endif
