/* search.cu - running extremes, unique groups, searching and counting on
 * CUDA: cummax/cummin, unique (flat and along a dim), searchsorted,
 * bincount, histc.  Order is the one sort.cu sorts by (tl_sort_device.cuh's
 * keys).  Counting uses atomics: integer counts are exact; float weights
 * sum in an order that varies from run to run (as PyTorch on CUDA).      */
#include <cub/device/device_scan.cuh>

#include "gpu/sort/tl_sort_device.cuh"

/* ---- cummax / cummin ---------------------------------------------------------------- *
 * PyTorch's rule: a NaN always takes over; otherwise a value at least as
 * large (small) as the running one does, so ties move to the later index;
 * once the running value is NaN only a NaN replaces it.  That is a running
 * maximum of (ord, position), ord being the order key (complemented for
 * cummin) and all ones for a NaN: tl_lane_max's scan. */

extern "C" int tl_gpu_lane_max_scan(void *items, int64_t total, int64_t n, void *temp,
                                    size_t *temp_bytes, void *stream)
{
  tl_lane_max_item *it = static_cast<tl_lane_max_item *>(items);
  return (int)cub::DeviceScan::InclusiveScan(temp, *temp_bytes, it, it, tl_lane_max{n ? n : 1},
                                             total, (cudaStream_t)stream);
}

__global__ void tl_cum_items_kernel(const tl_gpu_lanes in, int dtype, int esize, bool is_min,
                                    int64_t n, int64_t total, tl_lane_max_item *items)
{
  uint64_t mask = tl_sd_key_mask(esize);
  bool is_float = tl_sd_is_float(dtype);
  TL_SORT_FOR(t, total)
  {
    uint64_t k = tl_sd_key(dtype, tl_sd_lane(in, t / n) + t % n * in.step);
    uint64_t ord = is_float && k == mask ? ~0ull : is_min ? k ^ mask : k;
    items[t] = tl_lane_max_item{ord, t};
  }
}

__global__ void tl_cum_out_kernel(const tl_gpu_lanes in, int esize, const tl_gpu_lanes values,
                                  const tl_gpu_lanes indices, int64_t n, int64_t total,
                                  const tl_lane_max_item *items)
{
  TL_SORT_FOR(t, total)
  {
    int64_t lane = t / n, i = t % n, at = items[t].flat % n;
    tl_sd_copy(tl_sd_lane(values, lane) + i * values.step, tl_sd_lane(in, lane) + at * in.step,
               esize);
    *reinterpret_cast<int64_t *>(tl_sd_lane(indices, lane) + i * indices.step) = at;
  }
}

extern "C" int tl_gpu_cummax(const tl_gpu_lanes *in, int dtype, bool is_min,
                             const tl_gpu_lanes *values, const tl_gpu_lanes *indices,
                             int64_t lanes, int64_t n, void *items, void *temp,
                             size_t temp_bytes, void *stream)
{
  cudaStream_t s = (cudaStream_t)stream;
  int64_t total = lanes * n;
  tl_lane_max_item *it = static_cast<tl_lane_max_item *>(items);
  if (total == 0)
    return 0;
  int esize = (int)tl_dtype_sizes[dtype];
  unsigned blocks = tl_sort_blocks(total);
  tl_cum_items_kernel<<<blocks, TL_SORT_THREADS, 0, s>>>(*in, dtype, esize, is_min, n, total, it);
  int err = (int)cudaGetLastError();
  if (!err)
    err = tl_gpu_lane_max_scan(it, total, n, temp, &temp_bytes, stream);
  if (!err)
    tl_cum_out_kernel<<<blocks, TL_SORT_THREADS, 0, s>>>(*in, esize, *values, *indices, n, total, it);
  return err ? err : (int)cudaGetLastError();
}

/* ---- unique ------------------------------------------------------------------------- *
 * Rows are visited in perm's order; a NULL perm is the identity (consecutive
 * groups, nothing sorted). */

TL_SD int64_t row_at(const int32_t *perm, int64_t r) { return perm ? perm[r] : r; }

__global__ void tl_unique_column_kernel(const char *data, int dtype, int esize, int64_t width,
                                        int64_t c, const int32_t *perm, int64_t rows, void *keys)
{
  TL_SORT_FOR(r, rows)
  {
    int64_t row = row_at(perm, r);
    uint64_t k = tl_sd_key(dtype, data + (row * width + c) * esize);
    switch (esize) {
    case 1: static_cast<uint8_t *>(keys)[r] = (uint8_t)k; break;
    case 2: static_cast<uint16_t *>(keys)[r] = (uint16_t)k; break;
    case 4: static_cast<uint32_t *>(keys)[r] = (uint32_t)k; break;
    default: static_cast<uint64_t *>(keys)[r] = k; break;
    }
  }
}

extern "C" int tl_gpu_unique_column_keys(const char *data, int dtype, int64_t width, int64_t c,
                                         const int32_t *perm, int64_t rows, void *keys,
                                         void *stream)
{
  if (rows == 0)
    return 0;
  tl_unique_column_kernel<<<tl_sort_blocks(rows), TL_SORT_THREADS, 0, (cudaStream_t)stream>>>(
      data, dtype, (int)tl_dtype_sizes[dtype], width, c, perm, rows, keys);
  return (int)cudaGetLastError();
}

__global__ void tl_unique_flags_kernel(const char *data, int dtype, int esize, int64_t width,
                                       const int32_t *perm, int64_t rows, bool nan_distinct,
                                       int64_t *group)
{
  uint64_t nan = tl_sd_is_float(dtype) && nan_distinct ? tl_sd_key_mask(esize) : 0;
  TL_SORT_FOR(r, rows)
  {
    bool is_new = r == 0;
    const char *a = data + row_at(perm, r) * width * esize;
    const char *b = r ? data + row_at(perm, r - 1) * width * esize : a;
    for (int64_t c = 0; c < width && !is_new; c++) {
      uint64_t ka = tl_sd_key(dtype, a + c * esize), kb = tl_sd_key(dtype, b + c * esize);
      is_new = ka != kb || (nan && kb == nan);
    }
    group[r] = is_new;
  }
}

extern "C" int tl_gpu_unique_groups(const char *data, int dtype, int64_t width,
                                    const int32_t *perm, int64_t rows, bool nan_distinct,
                                    int64_t *group, void *temp, size_t *temp_bytes, void *stream)
{
  cudaStream_t s = (cudaStream_t)stream;
  if (!temp)
    return (int)cub::DeviceScan::InclusiveSum(temp, *temp_bytes, group, group, rows, s);
  if (rows == 0)
    return 0;
  tl_unique_flags_kernel<<<tl_sort_blocks(rows), TL_SORT_THREADS, 0, s>>>(
      data, dtype, (int)tl_dtype_sizes[dtype], width, perm, rows, nan_distinct, group);
  int err = (int)cudaGetLastError();
  if (err)
    return err;
  return (int)cub::DeviceScan::InclusiveSum(temp, *temp_bytes, group, group, rows, s);
}

/* First rows of groups: the row out, and their position into counts. */
__global__ void tl_unique_firsts_kernel(const char *data, int esize, int64_t width,
                                        const int32_t *perm, const int64_t *group, int64_t rows,
                                        char *out, int64_t *inverse, int64_t *counts)
{
  TL_SORT_FOR(r, rows)
  {
    int64_t g = group[r] - 1;
    if (inverse)
      inverse[row_at(perm, r)] = g;
    if (r && group[r - 1] == group[r])
      continue;
    if (counts)
      counts[g] = r;
    const char *src = data + row_at(perm, r) * width * esize;
    for (int64_t c = 0; c < width; c++)
      tl_sd_copy(out + (g * width + c) * esize, src + c * esize, esize);
  }
}

/* Last rows of groups: counts[g] = one past them minus the first. */
__global__ void tl_unique_counts_kernel(const int64_t *group, int64_t rows, int64_t *counts)
{
  TL_SORT_FOR(r, rows)
  {
    if (r + 1 < rows && group[r + 1] == group[r])
      continue;
    int64_t g = group[r] - 1;
    counts[g] = r + 1 - counts[g];
  }
}

extern "C" int tl_gpu_unique_emit(const char *data, int esize, int64_t width, const int32_t *perm,
                                  const int64_t *group, int64_t rows, char *out, int64_t *inverse,
                                  int64_t *counts, void *stream)
{
  cudaStream_t s = (cudaStream_t)stream;
  if (rows == 0)
    return 0;
  tl_unique_firsts_kernel<<<tl_sort_blocks(rows), TL_SORT_THREADS, 0, s>>>(
      data, esize, width, perm, group, rows, out, inverse, counts);
  if (counts)
    tl_unique_counts_kernel<<<tl_sort_blocks(rows), TL_SORT_THREADS, 0, s>>>(group, rows, counts);
  return (int)cudaGetLastError();
}

/* ---- searchsorted ------------------------------------------------------------------- */

__global__ void tl_search_kernel(const tl_gpu_lanes seq, const tl_gpu_lanes sorter,
                                 int64_t seq_rows, int64_t n, const tl_gpu_lanes values,
                                 int64_t nvalues, int64_t total, int dtype, bool right,
                                 const tl_gpu_lanes out, bool out_int32)
{
  TL_SORT_FOR(t, total)
  {
    int64_t row = t / nvalues, i = t % nvalues, srow = seq_rows == 1 ? 0 : row;
    const char *s = tl_sd_lane(seq, srow);
    const char *so = sorter.data ? tl_sd_lane(sorter, srow) : nullptr;
    uint64_t key = tl_sd_key(dtype, tl_sd_lane(values, row) + i * values.step);
    int64_t lo = 0, hi = n;
    while (lo < hi) {
      int64_t mid = lo + (hi - lo) / 2;
      int64_t at = so ? tl_sd_load<int64_t>(so + mid * sorter.step) : mid;
      uint64_t k = tl_sd_key(dtype, s + at * seq.step);
      if (right ? k <= key : k < key)
        lo = mid + 1;
      else
        hi = mid;
    }
    char *o = tl_sd_lane(out, row) + i * out.step;
    if (out_int32)
      *reinterpret_cast<int32_t *>(o) = (int32_t)lo;
    else
      *reinterpret_cast<int64_t *>(o) = lo;
  }
}

extern "C" int tl_gpu_searchsorted(const tl_gpu_lanes *seq, const tl_gpu_lanes *sorter,
                                   int64_t seq_rows, int64_t n, const tl_gpu_lanes *values,
                                   int64_t rows, int64_t nvalues, int dtype, bool right,
                                   const tl_gpu_lanes *out, bool out_int32, void *stream)
{
  int64_t total = rows * nvalues;
  if (total == 0)
    return 0;
  tl_search_kernel<<<tl_sort_blocks(total), TL_SORT_THREADS, 0, (cudaStream_t)stream>>>(
      *seq, *sorter, seq_rows, n, *values, nvalues, total, dtype, right, *out, out_int32);
  return (int)cudaGetLastError();
}

/* ---- checks that must reach the host: the first offending element -------------------- */

/* An integer element as int64, exactly: int64 and uint64 as their bits (so a
 * uint64 past int64's range reads negative, a bad bin, and the host reads
 * the bits back as uint64 for its message, as the CPU's load_int refuses
 * it); the narrower ones through tl_sd_real, exact for them. */
TL_SD int64_t tl_sd_int(int dtype, const char *p)
{
  if (dtype == TL_DTYPE_I64 || dtype == TL_DTYPE_U64)
    return tl_sd_load<int64_t>(p);
  return (int64_t)tl_sd_real(dtype, p);
}

/* bad[0] = the smallest flat index whose value v fails lo <= v < hi (the
 * sentinel INT64_MAX when none), bad[1] = that value; bad[2] = the largest
 * value (bincount's length).  Elements are lanes of n (flat index L * n + i). */
__global__ void tl_first_bad_init(int64_t *bad)
{
  bad[0] = INT64_MAX;
  bad[1] = 0;
  bad[2] = -1;
}

__global__ void tl_first_bad_kernel(const tl_gpu_lanes t, int dtype, int64_t rows, int64_t n,
                                    int64_t lo, int64_t hi, int64_t *bad)
{
  TL_SORT_FOR(f, rows * n)
  {
    const char *p = tl_sd_lane(t, f / n) + f % n * t.step;
    int64_t v = tl_sd_int(dtype, p);
    if (v < lo || v >= hi)
      atomicMin(reinterpret_cast<long long *>(bad), (long long)f);
    if (v >= 0)
      atomicMax(reinterpret_cast<long long *>(bad + 2), (long long)v);
  }
}

__global__ void tl_first_bad_value(const tl_gpu_lanes t, int dtype, int64_t n, int64_t *bad)
{
  if (bad[0] == INT64_MAX)
    return;
  const char *p = tl_sd_lane(t, bad[0] / n) + bad[0] % n * t.step;
  bad[1] = tl_sd_int(dtype, p);
}

static int first_bad(const tl_gpu_lanes *t, int dtype, int64_t rows, int64_t n, int64_t lo,
                     int64_t hi, int64_t *bad, cudaStream_t s)
{
  tl_first_bad_init<<<1, 1, 0, s>>>(bad);
  if (rows * n > 0)
    tl_first_bad_kernel<<<tl_sort_blocks(rows * n), TL_SORT_THREADS, 0, s>>>(*t, dtype, rows, n,
                                                                             lo, hi, bad);
  tl_first_bad_value<<<1, 1, 0, s>>>(*t, dtype, n ? n : 1, bad);
  return (int)cudaGetLastError();
}

extern "C" int tl_gpu_sorter_check(const tl_gpu_lanes *sorter, int64_t rows, int64_t n,
                                   int64_t *bad, void *stream)
{
  return first_bad(sorter, TL_DTYPE_I64, rows, n, 0, n, bad, (cudaStream_t)stream);
}

extern "C" int tl_gpu_bincount_stats(const char *in, int64_t step, int dtype, int64_t n,
                                     int64_t *bad, void *stream)
{
  tl_gpu_lanes t = {};
  t.data = const_cast<char *>(in);
  t.step = step;
  return first_bad(&t, dtype, 1, n, 0, INT64_MAX, bad, (cudaStream_t)stream);
}

/* ---- bincount / histc ---------------------------------------------------------------- */

__global__ void tl_bincount_kernel(const char *in, int64_t step, int dtype, int64_t n,
                                   const char *w, int64_t wstep, int wdtype, char *out, int odtype)
{
  TL_SORT_FOR(i, n)
  {
    const char *p = in + i * step;
    int64_t b = tl_sd_int(dtype, p);
    if (!w)
      atomicAdd(reinterpret_cast<unsigned long long *>(out) + b, 1ull);
    else if (odtype == TL_DTYPE_F32)
      atomicAdd(reinterpret_cast<float *>(out) + b, (float)tl_sd_real(wdtype, w + i * wstep));
    else
      atomicAdd(reinterpret_cast<double *>(out) + b, tl_sd_real(wdtype, w + i * wstep));
  }
}

extern "C" int tl_gpu_bincount(const char *in, int64_t step, int dtype, int64_t n,
                               const char *weights, int64_t wstep, int wdtype, char *out,
                               int odtype, void *stream)
{
  if (n == 0)
    return 0;
  tl_bincount_kernel<<<tl_sort_blocks(n), TL_SORT_THREADS, 0, (cudaStream_t)stream>>>(
      in, step, dtype, n, weights, wstep, wdtype, out, odtype);
  return (int)cudaGetLastError();
}

/* Order keys of the values as float64 (NaN the largest), min and max by atomics. */
__global__ void tl_histc_range_init(uint64_t *keys)
{
  keys[0] = ~0ull;
  keys[1] = 0;
}

__global__ void tl_histc_range_kernel(const char *in, int dtype, int esize, int64_t n,
                                      uint64_t *keys)
{
  TL_SORT_FOR(i, n)
  {
    double v = tl_sd_real(dtype, in + i * esize);
    uint64_t k = tl_sd_key(TL_DTYPE_F64, reinterpret_cast<const char *>(&v));
    atomicMin(reinterpret_cast<unsigned long long *>(keys), (unsigned long long)k);
    atomicMax(reinterpret_cast<unsigned long long *>(keys) + 1, (unsigned long long)k);
  }
}

extern "C" int tl_gpu_histc_range(const char *in, int dtype, int64_t n, uint64_t *keys,
                                  void *stream)
{
  cudaStream_t s = (cudaStream_t)stream;
  tl_histc_range_init<<<1, 1, 0, s>>>(keys);
  if (n)
    tl_histc_range_kernel<<<tl_sort_blocks(n), TL_SORT_THREADS, 0, s>>>(
        in, dtype, (int)tl_dtype_sizes[dtype], n, keys);
  return (int)cudaGetLastError();
}

__global__ void tl_histc_kernel(const char *in, int dtype, int esize, int64_t n, int64_t bins,
                                double min, double max, int64_t *counts)
{
  double scale = (double)bins / (max - min);
  TL_SORT_FOR(i, n)
  {
    double v = tl_sd_real(dtype, in + i * esize);
    if (!(v >= min && v <= max)) /* outside the range, or NaN */
      continue;
    int64_t b = (int64_t)((v - min) * scale);
    atomicAdd(reinterpret_cast<unsigned long long *>(counts) + (b < bins ? b : bins - 1), 1ull);
  }
}

extern "C" int tl_gpu_histc(const char *in, int dtype, int64_t n, int64_t bins, double min,
                            double max, int64_t *counts, void *stream)
{
  if (n == 0)
    return 0;
  tl_histc_kernel<<<tl_sort_blocks(n), TL_SORT_THREADS, 0, (cudaStream_t)stream>>>(
      in, dtype, (int)tl_dtype_sizes[dtype], n, bins, min, max, counts);
  return (int)cudaGetLastError();
}
