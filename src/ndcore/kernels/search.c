/* search.c - running extremes, uniqueness, searching and counting:
 * cummax/cummin, unique/unique_consecutive (flat and along a dim),
 * searchsorted/bucketize, bincount, histc.
 *
 * Order is the one sort.c uses, through the same keys (sort_keys.h): NaN is
 * the largest value and -0.0 equals 0.0.  Where PyTorch compares with `!=`
 * (unique, unique_consecutive) every NaN stays distinct, as it does there.
 * Outputs are allocated here; on error nothing is left allocated.          */
#include <math.h>
#include <stdlib.h>

#include "ndcore/kernels/sort_keys.h"
#include "ndcore/dispatch/tl_parallel.h"
#include "ndcore/kernels/tl_sort_args.h"
#include "ndcore/tensor/tl_views.h"

static inline int64_t load_i64(const char *p)
{
  int64_t v;
  memcpy(&v, p, 8);
  return v;
}

static inline void store_index(char *p, int64_t v, bool int32)
{
  if (int32) {
    int32_t w = (int32_t)v;
    memcpy(p, &w, 4);
  } else {
    memcpy(p, &v, 8);
  }
}

/* ---- cummax / cummin ------------------------------------------------------------ */

typedef struct {
  const tl_tensor *in;
  tl_tensor *values, *indices;
  int dim;
  bool is_min;
} cum_job;

static void cum_lanes(void *ctx, int64_t begin, int64_t end, int worker)
{
  (void)worker;
  const cum_job *j = ctx;
  const tl_tensor *in = j->in;
  tl_dtype d = in->dtype;
  size_t size = tl_dtype_size(d);
  int skip = in->ndim ? j->dim : -1;
  int64_t n = in->ndim ? in->shape[j->dim] : 1;
  int64_t s_in = in->ndim ? in->strides[j->dim] * (int64_t)size : 0;
  int64_t s_v = in->ndim ? j->values->strides[j->dim] * (int64_t)size : 0;
  int64_t s_i = in->ndim ? j->indices->strides[j->dim] * 8 : 0;
  uint64_t flip = j->is_min ? tl_sort_key_mask(d) : 0;
  for (int64_t lane = begin; lane < end; lane++) {
    const char *src = tl_lane_ptr(in, skip, lane);
    char *pv = tl_lane_ptr(j->values, skip, lane), *pi = tl_lane_ptr(j->indices, skip, lane);
    /* PyTorch's rule: a NaN always takes over; otherwise a value at least as
     * large (small) as the running one does, so ties move to the later index.
     * Once the running value is NaN only another NaN replaces it. */
    uint64_t best = 0;
    bool best_nan = false;
    int64_t at = 0;
    for (int64_t i = 0; i < n; i++) {
      const char *p = src + i * s_in;
      uint64_t k = tl_sort_key(d, p);
      bool nan = tl_sort_key_is_nan(d, k);
      if (i == 0 || nan || (!best_nan && (k ^ flip) >= (best ^ flip))) {
        best = k;
        best_nan = nan;
        at = i;
      }
      memcpy(pv + i * s_v, src + at * s_in, size);
      memcpy(pi + i * s_i, &at, 8);
    }
  }
}

tl_status tl_cpu_cummax(const tl_tensor *in, int64_t dim, bool is_min, tl_tensor *values,
                        tl_tensor *indices)
{
  const char *op = is_min ? "cummin" : "cummax";
  int d;
  if (tl_sort_check_dim(op, in, dim, &d) != TL_OK)
    return tl_error_status();
  if (tl_tensor_empty(values, in->dtype, in->ndim, in->shape, tl_tensor_device(in)) != TL_OK)
    return tl_error_status();
  if (tl_tensor_empty(indices, TL_DTYPE_I64, in->ndim, in->shape, tl_tensor_device(in)) != TL_OK) {
    tl_tensor_release(values);
    return tl_error_status();
  }
  int64_t numel = tl_tensor_numel(in), n = in->ndim ? in->shape[d] : 1;
  if (numel == 0)
    return TL_OK;
  cum_job j = {in, values, indices, d, is_min};
  tl_parallel_for(numel / n, n >= 4096 ? 1 : 4096 / n, cum_lanes, &j);
  return TL_OK;
}

/* ---- unique ---------------------------------------------------------------------- */

/* Do the elements at p and q start a new group?  Keys decide, but a NaN is
 * never equal to anything (PyTorch compares with !=). */
static inline bool differs(tl_dtype d, uint64_t ka, uint64_t kb)
{
  return ka != kb || tl_sort_key_is_nan(d, ka);
}

/* The first index of each run of equal elements of vals into start[], with
 * start[runs] = n; the number of runs.  Instantiated per dtype (run_starts)
 * so that the key is computed inline rather than through a switch per
 * element, which cost unique more than its sort. */
static inline __attribute__((always_inline)) int64_t run_starts_of(tl_dtype d, const char *vals,
                                                                   int64_t n, int64_t *start)
{
  const int64_t size = (int64_t)tl_dtype_size(d);
  int64_t runs = 0;
  uint64_t prev = 0;
  for (int64_t i = 0; i < n; i++) {
    uint64_t k = tl_sort_key(d, vals + i * size);
    if (i == 0 || differs(d, prev, k))
      start[runs++] = i;
    prev = k;
  }
  start[runs] = n;
  return runs;
}

static int64_t run_starts(tl_dtype d, const char *vals, int64_t n, int64_t *start)
{
  switch (d) {
#define TL_RUN_STARTS_CASE(D)                                                            \
  case D:                                                                                \
    return run_starts_of(D, vals, n, start);
    TL_RUN_STARTS_CASE(TL_DTYPE_BOOL)
    TL_RUN_STARTS_CASE(TL_DTYPE_U8)
    TL_RUN_STARTS_CASE(TL_DTYPE_U16)
    TL_RUN_STARTS_CASE(TL_DTYPE_U32)
    TL_RUN_STARTS_CASE(TL_DTYPE_U64)
    TL_RUN_STARTS_CASE(TL_DTYPE_I8)
    TL_RUN_STARTS_CASE(TL_DTYPE_I16)
    TL_RUN_STARTS_CASE(TL_DTYPE_I32)
    TL_RUN_STARTS_CASE(TL_DTYPE_I64)
    TL_RUN_STARTS_CASE(TL_DTYPE_F16)
    TL_RUN_STARTS_CASE(TL_DTYPE_BF16)
    TL_RUN_STARTS_CASE(TL_DTYPE_F32)
    TL_RUN_STARTS_CASE(TL_DTYPE_F64)
#undef TL_RUN_STARTS_CASE
  default:
    return run_starts_of(d, vals, n, start);
  }
}

/* dst[g] = vals[start[g]] for elements of `size` bytes, with the size fixed
 * per loop: a memcpy of a run-time size per element is a `rep movs`, whose
 * start-up cost dominated unique. */
static void gather_runs(char *dst, const char *vals, const int64_t *start, int64_t runs,
                        size_t size)
{
#define TL_GATHER_RUNS(T)                                                                \
  for (int64_t g = 0; g < runs; g++)                                                     \
    memcpy(dst + g * (int64_t)sizeof(T), vals + start[g] * (int64_t)sizeof(T), sizeof(T)); \
  return;
  switch (size) {
  case 1: TL_GATHER_RUNS(uint8_t)
  case 2: TL_GATHER_RUNS(uint16_t)
  case 4: TL_GATHER_RUNS(uint32_t)
  default: TL_GATHER_RUNS(uint64_t)
  }
#undef TL_GATHER_RUNS
}

/* unique's counts: the size of each of the `groups` runs that start[] bounds
 * (start[groups] is the end), on `device`. */
static tl_status group_counts(tl_tensor *counts, const int64_t *start, int64_t groups,
                              tl_device device)
{
  if (tl_tensor_empty(counts, TL_DTYPE_I64, 1, &groups, device) != TL_OK)
    return tl_error_status();
  int64_t *c = tl_tensor_data(counts);
  for (int64_t g = 0; g < groups; g++)
    c[g] = start[g + 1] - start[g];
  return TL_OK;
}

tl_status tl_cpu_unique(const tl_tensor *in, bool consecutive, tl_tensor *out, tl_tensor *inverse,
                        tl_tensor *counts)
{
  const char *op = consecutive ? "unique_consecutive" : "unique";
  if (tl_sort_check_real(op, in) != TL_OK)
    return tl_error_status();
  tl_dtype d = in->dtype;
  size_t size = tl_dtype_size(d);
  int64_t n = tl_tensor_numel(in);
  tl_tensor flat = {0}, sorted = {0}, order = {0};
  int64_t *group_start = NULL;
  if (tl_sort_contiguous(in, &flat) != TL_OK)
    return tl_error_status();
  flat.ndim = 1;
  flat.shape[0] = n;
  flat.strides[0] = 1;
  /* Sorted values and where each came from (the identity when consecutive). */
  const char *vals = tl_tensor_data(&flat);
  const int64_t *from = NULL;
  if (!consecutive && n > 0) {
    if (tl_sort(&flat, 0, false, true, &sorted, &order) != TL_OK)
      goto fail;
    vals = tl_tensor_data(&sorted);
    from = tl_tensor_data(&order);
  }
  group_start = malloc(sizeof(int64_t) * (size_t)(n + 1));
  if (!group_start) {
    tl_error_set(TL_ERR_MEMORY, "%s(): out of memory", op);
    goto fail;
  }
  int64_t groups = run_starts(d, vals, n, group_start);
  if (tl_tensor_empty(out, d, 1, &groups, tl_tensor_device(in)) != TL_OK)
    goto fail;
  gather_runs(tl_tensor_data(out), vals, group_start, groups, size);
  if (inverse) {
    if (tl_tensor_empty(inverse, TL_DTYPE_I64, in->ndim, in->shape, tl_tensor_device(in)) != TL_OK)
      goto fail;
    int64_t *inv = tl_tensor_data(inverse);
    for (int64_t g = 0; g < groups; g++)
      for (int64_t i = group_start[g]; i < group_start[g + 1]; i++)
        inv[from ? from[i] : i] = g;
  }
  if (counts && group_counts(counts, group_start, groups, tl_tensor_device(in)) != TL_OK)
    goto fail;
  free(group_start);
  tl_sort_release(&flat);
  tl_sort_release(&sorted);
  tl_sort_release(&order);
  return TL_OK;
fail:
  free(group_start);
  tl_sort_release(&flat);
  tl_sort_release(&sorted);
  tl_sort_release(&order);
  tl_sort_release(out);
  tl_sort_release(inverse);
  tl_sort_release(counts);
  return tl_error_status();
}

/* Slices along a dim, each flattened to `width` keys in a row. */
typedef struct {
  const uint64_t *keys;
  int64_t width;
} rows_ctx;

static int rows_cmp(const void *a, const void *b, void *vctx)
{
  const rows_ctx *c = vctx;
  int64_t ra = *(const int64_t *)a, rb = *(const int64_t *)b;
  const uint64_t *ka = c->keys + ra * c->width, *kb = c->keys + rb * c->width;
  for (int64_t i = 0; i < c->width; i++)
    if (ka[i] != kb[i])
      return ka[i] < kb[i] ? -1 : 1;
  return ra < rb ? -1 : ra > rb;
}

tl_status tl_cpu_unique_dim(const tl_tensor *in, int64_t dim, bool consecutive, tl_tensor *out,
                            tl_tensor *inverse, tl_tensor *counts)
{
  const char *op = consecutive ? "unique_consecutive" : "unique";
  int d;
  int64_t rows, numel = tl_tensor_numel(in);
  if (tl_unique_dim_check(op, in, dim, &d, &rows) != TL_OK)
    return tl_error_status();
  int64_t width = rows ? numel / rows : 0;
  size_t size = tl_dtype_size(in->dtype);
  tl_tensor packed = {0}, result = {0};
  uint64_t *keys = NULL;
  int64_t *order = NULL, *group_of = NULL, *starts = NULL;
  if (tl_unique_dim_rows(in, d, &packed) != TL_OK)
    return tl_error_status();
  keys = malloc(sizeof(uint64_t) * (size_t)(numel ? numel : 1));
  order = malloc(sizeof(int64_t) * (size_t)(rows + 1));
  group_of = malloc(sizeof(int64_t) * (size_t)(rows + 1));
  starts = malloc(sizeof(int64_t) * (size_t)(rows + 1));
  if (!keys || !order || !group_of || !starts) {
    tl_error_set(TL_ERR_MEMORY, "%s(): out of memory", op);
    goto fail;
  }
  const char *pv = tl_tensor_data(&packed);
  for (int64_t i = 0; i < numel; i++)
    keys[i] = tl_sort_key(in->dtype, pv + i * (int64_t)size);
  for (int64_t r = 0; r < rows; r++)
    order[r] = r;
  rows_ctx rc = {keys, width};
  if (!consecutive)
    qsort_r(order, (size_t)rows, sizeof *order, rows_cmp, &rc);
  int64_t groups = 0;
  for (int64_t r = 0; r < rows; r++) {
    bool is_new = r == 0 || memcmp(keys + order[r] * width, keys + order[r - 1] * width,
                                   sizeof(uint64_t) * (size_t)width) != 0;
    if (is_new)
      starts[groups++] = r;
    group_of[order[r]] = groups - 1;
  }
  starts[groups] = rows;
  /* The unique rows, dim first, then moved back to the input's dim order. */
  int64_t shape[TL_MAX_DIMS];
  memcpy(shape, packed.shape, sizeof(int64_t) * (size_t)packed.ndim);
  if (packed.ndim)
    shape[0] = groups;
  if (tl_tensor_empty(&result, in->dtype, packed.ndim, shape, tl_tensor_device(in)) != TL_OK)
    goto fail;
  for (int64_t g = 0; g < groups; g++)
    memcpy((char *)tl_tensor_data(&result) + g * width * (int64_t)size,
           pv + order[starts[g]] * width * (int64_t)size, (size_t)width * size);
  if (!in->ndim)
    tl_tensor_view_of(out, &result);
  else if (tl_unique_dim_unrows(&result, d, out) != TL_OK)
    goto fail;
  if (inverse) {
    if (tl_tensor_empty(inverse, TL_DTYPE_I64, 1, &rows, tl_tensor_device(in)) != TL_OK)
      goto fail;
    memcpy(tl_tensor_data(inverse), group_of, sizeof(int64_t) * (size_t)rows);
  }
  if (counts && group_counts(counts, starts, groups, tl_tensor_device(in)) != TL_OK)
    goto fail;
  free(keys);
  free(order);
  free(group_of);
  free(starts);
  tl_sort_release(&packed);
  tl_sort_release(&result);
  return TL_OK;
fail:
  free(keys);
  free(order);
  free(group_of);
  free(starts);
  tl_sort_release(&packed);
  tl_sort_release(&result);
  tl_sort_release(out);
  tl_sort_release(inverse);
  tl_sort_release(counts);
  return tl_error_status();
}

/* ---- searchsorted / bucketize --------------------------------------------------------- */

typedef struct {
  const tl_tensor *seq, *values, *sorter;
  tl_tensor *out;
  bool right, out_int32, seq_1d;
  int64_t n;       /* seq's last dim */
  int64_t nvalues; /* values per row (values' last dim, 1 for 0-d) */
  uint64_t *shared_keys; /* a 1-d sequence's keys, made once for all rows */
  int failed;
} search_job;

/* The keys of one row of the sequence, in sorter order when there is one. */
static void row_keys(const search_job *j, int64_t row, uint64_t *keys)
{
  tl_dtype d = j->seq->dtype;
  int ss = j->seq->ndim - 1;
  int64_t sstep = j->seq->strides[ss] * (int64_t)tl_dtype_size(d);
  int64_t rstep = j->sorter ? j->sorter->strides[ss] * 8 : 0;
  const char *seq = tl_lane_ptr(j->seq, ss, j->seq_1d ? 0 : row);
  const char *sorter = j->sorter ? tl_lane_ptr(j->sorter, ss, j->seq_1d ? 0 : row) : NULL;
  for (int64_t i = 0; i < j->n; i++) {
    int64_t at = sorter ? load_i64(sorter + i * rstep) : i;
    keys[i] = tl_sort_key(d, seq + at * sstep);
  }
}

static void search_rows(void *ctx, int64_t begin, int64_t end, int worker)
{
  (void)worker;
  search_job *j = ctx;
  tl_dtype d = j->seq->dtype;
  size_t size = tl_dtype_size(d);
  int sv = j->values->ndim ? j->values->ndim - 1 : -1;
  int64_t vstep = j->values->ndim ? j->values->strides[sv] * (int64_t)size : 0;
  int64_t ostep = j->out->ndim ? j->out->strides[j->out->ndim - 1] * (int64_t)tl_dtype_size(j->out->dtype) : 0;
  uint64_t *keys = j->shared_keys;
  if (!keys && !(keys = malloc(sizeof(uint64_t) * (size_t)(j->n ? j->n : 1)))) {
    __atomic_store_n(&j->failed, 1, __ATOMIC_RELAXED);
    return;
  }
  for (int64_t row = begin; row < end; row++) {
    if (!j->shared_keys)
      row_keys(j, row, keys);
    const char *vals = tl_lane_ptr(j->values, sv, row);
    char *out = tl_lane_ptr(j->out, j->out->ndim ? j->out->ndim - 1 : -1, row);
    for (int64_t i = 0; i < j->nvalues; i++) {
      uint64_t key = tl_sort_key(d, vals + i * vstep);
      int64_t lo = 0, hi = j->n;
      if (j->right) {
        while (lo < hi) {
          int64_t mid = lo + (hi - lo) / 2;
          if (keys[mid] <= key)
            lo = mid + 1;
          else
            hi = mid;
        }
      } else {
        while (lo < hi) {
          int64_t mid = lo + (hi - lo) / 2;
          if (keys[mid] < key)
            lo = mid + 1;
          else
            hi = mid;
        }
      }
      store_index(out + i * ostep, lo, j->out_int32);
    }
  }
  if (!j->shared_keys)
    free(keys);
}

tl_status tl_cpu_searchsorted(const tl_tensor *seq, const tl_tensor *values, bool right,
                              const tl_tensor *sorter, bool out_int32, tl_tensor *out)
{
  if (tl_searchsorted_check(seq, values, sorter, out_int32) != TL_OK)
    return tl_error_status();
  bool seq_1d = seq->ndim == 1;
  int64_t n = seq->shape[seq->ndim - 1];
  if (sorter) { /* every sorter index must point into its row */
    int64_t total = tl_tensor_numel(sorter);
    for (int64_t i = 0; i < total; i++) {
      int64_t v = load_i64(tl_lane_ptr(sorter, -1, i));
      if (v < 0 || v >= n)
        return tl_error_set(TL_ERR_RUNTIME, "searchsorted(): sorter index out of range: got %lld "
                            "for a boundaries dim of size %lld", (long long)v, (long long)n);
    }
  }
  /* Both sides are compared in their common dtype. */
  tl_dtype common = tl_promote_types(seq->dtype, values->dtype);
  tl_tensor cs = {0}, cv = {0};
  if ((seq->dtype != common && tl_tensor_to_dtype(&cs, seq, common) != TL_OK) ||
      (values->dtype != common && tl_tensor_to_dtype(&cv, values, common) != TL_OK)) {
    tl_sort_release(&cs);
    return tl_error_status();
  }
  if (tl_tensor_empty(out, out_int32 ? TL_DTYPE_I32 : TL_DTYPE_I64, values->ndim, values->shape,
                      tl_tensor_device(values)) != TL_OK) {
    tl_sort_release(&cs);
    tl_sort_release(&cv);
    return tl_error_status();
  }
  search_job j = {.seq = cs.storage ? &cs : seq, .values = cv.storage ? &cv : values,
                  .sorter = sorter, .out = out, .right = right, .out_int32 = out_int32,
                  .seq_1d = seq_1d, .n = n};
  j.nvalues = values->ndim ? values->shape[values->ndim - 1] : 1;
  int64_t total = tl_tensor_numel(values);
  if (total > 0 && j.nvalues > 0) {
    int64_t rows = total / j.nvalues;
    if (seq_1d) {
      if (!(j.shared_keys = malloc(sizeof(uint64_t) * (size_t)(n ? n : 1))))
        j.failed = 1;
      else
        row_keys(&j, 0, j.shared_keys);
    }
    if (!j.failed)
      tl_parallel_for(rows, j.nvalues >= 1024 ? 1 : 1024 / j.nvalues, search_rows, &j);
    free(j.shared_keys);
  }
  tl_sort_release(&cs);
  tl_sort_release(&cv);
  if (j.failed) {
    tl_tensor_release(out);
    return tl_error_set(TL_ERR_MEMORY, "searchsorted(): out of memory");
  }
  return TL_OK;
}

/* ---- bincount / histc ------------------------------------------------------------------
 * Both walk a flat run of elements; these typed loads keep the per-element
 * work inline (a switch the branch predictor settles on). */
static inline int64_t load_int(tl_dtype d, const char *p)
{
  switch (d) {
  case TL_DTYPE_U8: return *(const uint8_t *)p;
  case TL_DTYPE_U16: return tl_load_U16(p);
  case TL_DTYPE_U32: return tl_load_U32(p);
  case TL_DTYPE_U64: { /* above int64's range: past any bin, and refused like a negative */
    uint64_t v = tl_load_U64(p);
    return v > INT64_MAX ? -1 : (int64_t)v;
  }
  case TL_DTYPE_I8: return *(const int8_t *)p;
  case TL_DTYPE_I16: { int16_t v; memcpy(&v, p, 2); return v; }
  case TL_DTYPE_I32: { int32_t v; memcpy(&v, p, 4); return v; }
  default: return load_i64(p);
  }
}

static inline double load_real(tl_dtype d, const char *p)
{
  switch (d) {
  case TL_DTYPE_F32: return tl_load_F32(p);
  case TL_DTYPE_F64: return tl_load_F64(p);
  case TL_DTYPE_F16: return tl_load_F16(p);
  case TL_DTYPE_BF16: return tl_load_BF16(p);
  case TL_DTYPE_BOOL: return tl_load_BOOL(p);
  case TL_DTYPE_U64: return (double)tl_load_U64(p);
  default: /* float8 weights (PyTorch takes them) through float; integers as such */
    return tl_dtype_is_float8(d) ? tl_scalar_load(d, p).v.f : (double)load_int(d, p);
  }
}

/* The largest of n int64 values s elements apart (-1 for none), and whether
 * any is negative: branch-free, so it vectorises. */
static int64_t bins_top(const int64_t *v, int64_t n, int64_t s, bool *negative)
{
  int64_t top = -1, low = 0;
  for (int64_t i = 0; i < n; i++) {
    top = v[i * s] > top ? v[i * s] : top;
    low = v[i * s] < low ? v[i * s] : low;
  }
  *negative = low < 0;
  return top;
}

tl_status tl_cpu_bincount(const tl_tensor *in, const tl_tensor *weights, int64_t minlength,
                          tl_tensor *out)
{
  tl_dtype od;
  tl_tensor wide = {0};
  tl_status status = TL_OK;
  if (tl_bincount_check(in, weights, minlength, &od) != TL_OK)
    return tl_error_status();
  /* int64 values, read in place or from one converted copy (uint64 keeps its
   * own loads: values past int64 are refused with their own words) */
  const bool as_i64 = in->dtype != TL_DTYPE_U64;
  if (as_i64 && in->dtype != TL_DTYPE_I64 && tl_tensor_to_dtype(&wide, in, TL_DTYPE_I64) != TL_OK)
    return tl_error_status();
  const tl_tensor *v = wide.storage ? &wide : in;
  int64_t n = v->shape[0], top = -1;
  const char *src = tl_tensor_data(v), *wsrc = weights ? tl_tensor_data(weights) : NULL;
  int64_t step = v->strides[0] * (int64_t)tl_dtype_size(v->dtype);
  int64_t wstep = weights ? weights->strides[0] * (int64_t)tl_dtype_size(weights->dtype) : 0;
  bool negative = !as_i64;
  if (as_i64)
    top = bins_top((const int64_t *)(const void *)src, n, v->strides[0], &negative);
  for (int64_t i = 0; negative && i < n; i++) { /* the first bad value, for the message */
    int64_t x = load_int(v->dtype, src + i * step);
    if (x < 0 && v->dtype == TL_DTYPE_U64) { /* past int64: no count array is that long */
      status = tl_error_set(TL_ERR_RUNTIME, "bincount(): input[%lld] is %llu, too large a bin",
                            (long long)i, (unsigned long long)tl_load_U64(src + i * step));
      goto done;
    }
    if (x < 0) {
      status = tl_error_set(TL_ERR_RUNTIME, "bincount only supports 1-d non-negative integral "
                            "inputs; input[%lld] is %lld", (long long)i, (long long)x);
      goto done;
    }
    top = x > top ? x : top;
  }
  int64_t len = top + 1 > minlength ? top + 1 : minlength;
  if ((status = tl_tensor_empty(out, od, 1, &len, tl_tensor_device(in))) != TL_OK)
    goto done;
  char *o = tl_tensor_data(out);
  memset(o, 0, (size_t)len * tl_dtype_size(od));
  if (!weights && as_i64) {
    const int64_t *x = (const int64_t *)(const void *)src;
    int64_t *count = (int64_t *)(void *)o;
    for (int64_t i = 0; i < n; i++)
      count[x[i * v->strides[0]]]++;
    goto done;
  }
  for (int64_t i = 0; i < n; i++) {
    int64_t b = load_int(v->dtype, src + i * step);
    if (!weights) {
      ((int64_t *)(void *)o)[b]++;
      continue;
    }
    double wv = load_real(weights->dtype, wsrc + i * wstep);
    if (od == TL_DTYPE_F32)
      ((float *)(void *)o)[b] += (float)wv;
    else
      ((double *)(void *)o)[b] += wv;
  }
done:
  if (wide.storage)
    tl_tensor_release(&wide);
  return status;
}

tl_status tl_cpu_histc(const tl_tensor *in, int64_t bins, double min, double max, tl_tensor *out)
{
  if (tl_histc_check(in, bins, min, max) != TL_OK)
    return tl_error_status();
  int64_t n = tl_tensor_numel(in);
  tl_tensor flat = {0};
  if (tl_sort_contiguous(in, &flat) != TL_OK)
    return tl_error_status();
  const char *src = tl_tensor_data(&flat);
  int64_t esize = (int64_t)tl_dtype_size(in->dtype);
  if (min == max && n > 0) { /* the data's own range */
    min = INFINITY;
    max = -INFINITY;
    for (int64_t i = 0; i < n; i++) {
      double v = load_real(in->dtype, src + i * esize);
      min = v < min || isnan(v) ? v : min;
      max = v > max || isnan(v) ? v : max;
    }
  }
  if (min == max) {
    min -= 1;
    max += 1;
  }
  if (!isfinite(min) || !isfinite(max)) {
    tl_sort_release(&flat);
    return tl_error_set(TL_ERR_RUNTIME, "histc(): range of [%g, %g] is not finite", min, max);
  }
  if (tl_tensor_empty(out, in->dtype, 1, &bins, tl_tensor_device(in)) != TL_OK) {
    tl_sort_release(&flat);
    return tl_error_status();
  }
  int64_t *count = calloc((size_t)bins, sizeof *count);
  if (!count) {
    tl_sort_release(&flat);
    tl_tensor_release(out);
    return tl_error_set(TL_ERR_MEMORY, "histc(): out of memory for %lld bins", (long long)bins);
  }
  double scale = (double)bins / (max - min);
  for (int64_t i = 0; i < n; i++) {
    double v = load_real(in->dtype, src + i * esize);
    if (!(v >= min && v <= max)) /* outside the range, or NaN */
      continue;
    int64_t b = (int64_t)((v - min) * scale);
    count[b < bins ? b : bins - 1]++;
  }
  tl_sort_release(&flat);
  for (int64_t b = 0; b < bins; b++) {
    tl_scalar s = {.kind = TL_KIND_FLOAT, .v.f = (double)count[b]};
    tl_scalar_store(s, in->dtype, (char *)tl_tensor_data(out) + b * (int64_t)tl_dtype_size(in->dtype));
  }
  free(count);
  return TL_OK;
}
