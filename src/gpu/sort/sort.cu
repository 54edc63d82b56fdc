/* sort.cu - sorted lanes on CUDA and what sort, topk, kthvalue, median,
 * quantile and mode read from them.
 *
 * Lanes become (key, position) pairs (tl_sort_device.cuh's keys), CUB's
 * radix sort orders them (stable: equal keys keep input order, which gives
 * the CPU's and PyTorch's order for ties, NaNs and zeros, descending
 * included), and small kernels read the sorted positions back into the
 * outputs.  CUB is instantiated once per key width (1, 2, 4, 8 bytes) and
 * algorithm (segmented, and device-wide for one long lane), not per dtype:
 * every dtype's keys are one of those four unsigned types.              */
#include <cub/device/device_radix_sort.cuh>
#include <cub/device/device_segmented_radix_sort.cuh>

#include "gpu/sort/tl_sort_device.cuh"
#include "ndcore/kernels/tl_quantile.h"

extern "C" int tl_gpu_sort_key_bytes(int dtype) { return (int)tl_dtype_sizes[dtype]; }

/* ---- keys in ------------------------------------------------------------------------ */

template <typename K>
__global__ void tl_sort_keys_kernel(const tl_gpu_lanes in, int dtype, K flip, int64_t n,
                                    int64_t total, K *keys, int32_t *pos)
{
  TL_SORT_FOR(t, total)
  {
    int64_t lane = t / n, i = t % n;
    keys[t] = (K)tl_sd_key(dtype, tl_sd_lane(in, lane) + i * in.step) ^ flip;
    pos[t] = (int32_t)i;
  }
}

template <typename K>
static int keys_launch(const tl_gpu_lanes *in, int dtype, bool desc, int64_t lanes, int64_t n,
                       void *keys, int32_t *pos, cudaStream_t s)
{
  int64_t total = lanes * n;
  K flip = desc ? (K)~(K)0 : (K)0;
  tl_sort_keys_kernel<K><<<tl_sort_blocks(total), TL_SORT_THREADS, 0, s>>>(
      *in, dtype, flip, n, total, static_cast<K *>(keys), pos);
  return (int)cudaGetLastError();
}

extern "C" int tl_gpu_sort_keys(const tl_gpu_lanes *in, int dtype, bool desc, int64_t lanes,
                                int64_t n, void *keys, int32_t *pos, void *stream)
{
  cudaStream_t s = (cudaStream_t)stream;
  if (lanes * n == 0)
    return 0;
  switch (tl_gpu_sort_key_bytes(dtype)) {
  case 1: return keys_launch<uint8_t>(in, dtype, desc, lanes, n, keys, pos, s);
  case 2: return keys_launch<uint16_t>(in, dtype, desc, lanes, n, keys, pos, s);
  case 4: return keys_launch<uint32_t>(in, dtype, desc, lanes, n, keys, pos, s);
  default: return keys_launch<uint64_t>(in, dtype, desc, lanes, n, keys, pos, s);
  }
}

__global__ void tl_sort_offsets_kernel(int32_t *offsets, int64_t count, int64_t n)
{
  TL_SORT_FOR(i, count + 1) offsets[i] = (int32_t)(i * n);
}

extern "C" int tl_gpu_sort_offsets(int32_t *offsets, int64_t count, int64_t n, void *stream)
{
  tl_sort_offsets_kernel<<<tl_sort_blocks(count + 1), TL_SORT_THREADS, 0, (cudaStream_t)stream>>>(
      offsets, count, n);
  return (int)cudaGetLastError();
}

/* ---- CUB's sort ----------------------------------------------------------------------- */

template <typename K>
static int pairs(void *temp, size_t *temp_bytes, const void *kin, void *kout, const int32_t *pin,
                 int32_t *pout, int64_t items, int64_t segments, const int32_t *offsets,
                 cudaStream_t s)
{
  const K *ki = static_cast<const K *>(kin);
  K *ko = static_cast<K *>(kout);
  cudaError_t err;
  if (segments == 1)
    err = cub::DeviceRadixSort::SortPairs(temp, *temp_bytes, ki, ko, pin, pout, items, 0,
                                          (int)sizeof(K) * 8, s);
  else
    err = cub::DeviceSegmentedRadixSort::SortPairs(temp, *temp_bytes, ki, ko, pin, pout,
                                                   (int)items, (int)segments, offsets,
                                                   offsets + 1, 0, (int)sizeof(K) * 8, s);
  return (int)err;
}

extern "C" int tl_gpu_sort_pairs(int key_bytes, void *temp, size_t *temp_bytes,
                                 const void *keys_in, void *keys_out, const int32_t *pos_in,
                                 int32_t *pos_out, int64_t items, int64_t segments,
                                 const int32_t *offsets, void *stream)
{
  cudaStream_t s = (cudaStream_t)stream;
  switch (key_bytes) {
  case 1: return pairs<uint8_t>(temp, temp_bytes, keys_in, keys_out, pos_in, pos_out, items, segments, offsets, s);
  case 2: return pairs<uint16_t>(temp, temp_bytes, keys_in, keys_out, pos_in, pos_out, items, segments, offsets, s);
  case 4: return pairs<uint32_t>(temp, temp_bytes, keys_in, keys_out, pos_in, pos_out, items, segments, offsets, s);
  default: return pairs<uint64_t>(temp, temp_bytes, keys_in, keys_out, pos_in, pos_out, items, segments, offsets, s);
  }
}

/* ---- values out ------------------------------------------------------------------------ */

__global__ void tl_sort_gather_kernel(const tl_gpu_lanes in, int esize, const tl_gpu_lanes values,
                                      const tl_gpu_lanes indices, const int32_t *pos, int64_t n,
                                      int64_t k, int64_t total)
{
  TL_SORT_FOR(t, total)
  {
    int64_t lane = t / k, j = t % k;
    int32_t p = pos[lane * n + j];
    if (values.data)
      tl_sd_copy(tl_sd_lane(values, lane) + j * values.step,
                 tl_sd_lane(in, lane) + (int64_t)p * in.step, esize);
    if (indices.data)
      *reinterpret_cast<int64_t *>(tl_sd_lane(indices, lane) + j * indices.step) = p;
  }
}

extern "C" int tl_gpu_sort_gather(const tl_gpu_lanes *in, int esize, const tl_gpu_lanes *values,
                                  const tl_gpu_lanes *indices, const int32_t *pos, int64_t lanes,
                                  int64_t n, int64_t k, void *stream)
{
  int64_t total = lanes * k;
  if (total == 0)
    return 0;
  tl_sort_gather_kernel<<<tl_sort_blocks(total), TL_SORT_THREADS, 0, (cudaStream_t)stream>>>(
      *in, esize, *values, *indices, pos, n, k, total);
  return (int)cudaGetLastError();
}

/* NaNs in an ascending-sorted lane: its trailing all-ones keys (floats only). */
TL_SD int64_t lane_nans(int dtype, const void *keys, int kbytes, int64_t first, int64_t n)
{
  if (!tl_sd_is_float(dtype))
    return 0;
  uint64_t nan = tl_sd_key_mask(kbytes);
  int64_t lo = 0, hi = n;
  while (lo < hi) {
    int64_t mid = lo + (hi - lo) / 2;
    if (tl_sd_key_at(keys, kbytes, first + mid) < nan)
      lo = mid + 1;
    else
      hi = mid;
  }
  return n - lo;
}

/* One position per lane: the k-th; the lower median of the non-NaNs (a
 * NaN's position when one wins: the first NaN in input order, which a
 * stable sort puts first among the NaNs). */
__global__ void tl_sort_select_kernel(int kind, int64_t k, const tl_gpu_lanes in, int dtype,
                                      const tl_gpu_lanes values, const tl_gpu_lanes indices,
                                      const void *keys, int kbytes, const int32_t *pos,
                                      int64_t lanes, int64_t n)
{
  TL_SORT_FOR(lane, lanes)
  {
    int64_t first = lane * n, j = 0;
    if (kind == TL_GPU_SELECT_KTH) {
      j = k - 1;
    } else {
      int64_t nan = lane_nans(dtype, keys, kbytes, first, n), m = n - nan;
      j = (nan && kind == TL_GPU_SELECT_MEDIAN) || m == 0 ? m : (m - 1) / 2;
    }
    int32_t p = pos[first + j];
    /* element bytes are key bytes */
    tl_sd_copy(tl_sd_lane(values, lane), tl_sd_lane(in, lane) + (int64_t)p * in.step, kbytes);
    *reinterpret_cast<int64_t *>(tl_sd_lane(indices, lane)) = p;
  }
}

extern "C" int tl_gpu_sort_select(int kind, int64_t k, const tl_gpu_lanes *in, int dtype,
                                  const tl_gpu_lanes *values, const tl_gpu_lanes *indices,
                                  const void *keys, const int32_t *pos, int64_t lanes, int64_t n,
                                  void *stream)
{
  if (lanes == 0 || n == 0)
    return 0;
  tl_sort_select_kernel<<<tl_sort_blocks(lanes), TL_SORT_THREADS, 0, (cudaStream_t)stream>>>(
      kind, k, *in, dtype, *values, *indices, keys, tl_gpu_sort_key_bytes(dtype), pos, lanes, n);
  return (int)cudaGetLastError();
}

/* ---- mode ----------------------------------------------------------------------------------- *
 * Two running maxima along the sorted lanes (tl_lane_max): the first gives
 * each position the start of its run of equal keys, the second the best
 * run end so far, ordered by run length, then by the earlier position (the
 * smaller value); the lane's last item is its mode's run end. */

__global__ void tl_mode_starts_kernel(const void *keys, int kbytes, int64_t n, int64_t total,
                                      tl_lane_max_item *items)
{
  TL_SORT_FOR(t, total)
  {
    int64_t j = t % n;
    bool start = j == 0 || tl_sd_key_at(keys, kbytes, t) != tl_sd_key_at(keys, kbytes, t - 1);
    items[t] = tl_lane_max_item{start ? (uint64_t)j : 0, t};
  }
}

__global__ void tl_mode_runs_kernel(int64_t n, int64_t total, tl_lane_max_item *items)
{
  TL_SORT_FOR(t, total)
  {
    uint64_t j = (uint64_t)(t % n), len = j - items[t].ord + 1; /* j < 2^31 */
    items[t] = tl_lane_max_item{len << 32 | (0xffffffffu - j), t};
  }
}

__global__ void tl_mode_out_kernel(const tl_gpu_lanes in, int esize, const tl_gpu_lanes values,
                                   const tl_gpu_lanes indices, const int32_t *pos, int64_t lanes,
                                   int64_t n, const tl_lane_max_item *items)
{
  TL_SORT_FOR(lane, lanes)
  {
    int64_t at = pos[items[lane * n + n - 1].flat];
    tl_sd_copy(tl_sd_lane(values, lane), tl_sd_lane(in, lane) + at * in.step, esize);
    *reinterpret_cast<int64_t *>(tl_sd_lane(indices, lane)) = at;
  }
}

extern "C" int tl_gpu_sort_mode(const tl_gpu_lanes *in, int dtype, const tl_gpu_lanes *values,
                                const tl_gpu_lanes *indices, const void *keys, const int32_t *pos,
                                int64_t lanes, int64_t n, void *items, void *temp,
                                size_t temp_bytes, void *stream)
{
  cudaStream_t s = (cudaStream_t)stream;
  int64_t total = lanes * n;
  tl_lane_max_item *it = static_cast<tl_lane_max_item *>(items);
  if (total == 0)
    return 0;
  int kbytes = tl_gpu_sort_key_bytes(dtype);
  unsigned blocks = tl_sort_blocks(total);
  tl_mode_starts_kernel<<<blocks, TL_SORT_THREADS, 0, s>>>(keys, kbytes, n, total, it);
  int err = (int)cudaGetLastError();
  if (!err)
    err = tl_gpu_lane_max_scan(it, total, n, temp, &temp_bytes, stream);
  if (!err) {
    tl_mode_runs_kernel<<<blocks, TL_SORT_THREADS, 0, s>>>(n, total, it);
    err = (int)cudaGetLastError();
  }
  if (!err)
    err = tl_gpu_lane_max_scan(it, total, n, temp, &temp_bytes, stream);
  if (!err)
    tl_mode_out_kernel<<<tl_sort_blocks(lanes), TL_SORT_THREADS, 0, s>>>(*in, kbytes, *values,
                                                                        *indices, pos, lanes, n, it);
  return err ? err : (int)cudaGetLastError();
}

/* ---- quantile --------------------------------------------------------------------------- */

/* The rank and the lerp: the CPU kernel's arithmetic (ndcore/kernels/tl_quantile.h). */
__global__ void tl_sort_quantile_kernel(const tl_gpu_lanes in, int dtype, const tl_gpu_lanes out,
                                        int64_t q_step, const double *q, int64_t nq, int method,
                                        bool ignore_nan, const void *keys, int kbytes,
                                        const int32_t *pos, int64_t lanes, int64_t n)
{
  TL_SORT_FOR(t, lanes * nq)
  {
    int64_t lane = t / nq, qi = t % nq, first = lane * n;
    int64_t nan = lane_nans(dtype, keys, kbytes, first, n), m = n - nan;
    const char *src = tl_sd_lane(in, lane);
    double r = __longlong_as_double(0x7ff8000000000000ll); /* NaN */
    if (!((nan && !ignore_nan) || m == 0)) {
      bool f32 = dtype == TL_DTYPE_F32;
      double rank = tl_quantile_rank(q[qi], m, f32);
      int64_t below = (int64_t)floor(rank), above = (int64_t)ceil(rank);
      below = below < 0 ? 0 : below > m - 1 ? m - 1 : below;
      above = above < 0 ? 0 : above > m - 1 ? m - 1 : above;
      auto at = [&](int64_t j) { return tl_sd_real(dtype, src + (int64_t)pos[first + j] * in.step); };
      double a = at(below), b = at(above);
      switch (method) {
      case 1: r = a; break;                           /* lower */
      case 2: r = b; break;                           /* higher */
      case 3: r = tl_quantile_lerp(a, b, 0.5, f32); break;             /* midpoint */
      case 4: r = at((int64_t)rint(rank)); break;     /* nearest: half to even */
      default: r = tl_quantile_lerp(a, b, rank - (double)below, f32); /* linear */
      }
    }
    char *dst = tl_sd_lane(out, lane) + qi * q_step;
    if (dtype == TL_DTYPE_F32)
      *reinterpret_cast<float *>(dst) = (float)r;
    else
      *reinterpret_cast<double *>(dst) = r;
  }
}

extern "C" int tl_gpu_sort_quantile(const tl_gpu_lanes *in, int dtype, const tl_gpu_lanes *out,
                                    int64_t q_step, const double *q, int64_t nq, int method,
                                    bool ignore_nan, const void *keys, const int32_t *pos,
                                    int64_t lanes, int64_t n, void *stream)
{
  if (lanes * nq == 0)
    return 0;
  tl_sort_quantile_kernel<<<tl_sort_blocks(lanes * nq), TL_SORT_THREADS, 0,
                            (cudaStream_t)stream>>>(*in, dtype, *out, q_step, q, nq, method,
                                                    ignore_nan, keys, tl_gpu_sort_key_bytes(dtype),
                                                    pos, lanes, n);
  return (int)cudaGetLastError();
}
