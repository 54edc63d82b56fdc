/* scan.cu - cumsum and cumprod on CUDA (scan.c's op layer hands over the
 * work tensor: contiguous, int64, float64 or complex128, as the CPU's).
 *
 * The lines are scanned in place, by one of three kernels picked from the
 * shape alone:
 *   - a few long contiguous lines: cub::DeviceScan, one call per line,
 *     which reads at memory speed;
 *   - many lines whose elements are adjacent across lines (the scanned dim
 *     is not the innermost, and there are enough lines to fill the device):
 *     one thread per line walks it in order; neighbouring threads read
 *     neighbouring elements, so every step is one coalesced load;
 *   - anything else: one block per line, cub::BlockScan over tiles of the
 *     line with the running total carried from tile to tile (32 threads for
 *     short lines, 256 for long ones).
 * Integer scans wrap, as the CPU's.  The block and thread kernels combine
 * in a fixed order; cub::DeviceScan's look-back may group a float sum
 * differently from run to run (in double: the last bits of float64 sums). */
#include <cub/block/block_scan.cuh>
#include <cub/device/device_scan.cuh>

#include "gpu/reduce/tl_gpu_reduce.h"
#include "gpu/tl_cuda_launch.cuh"

template <typename T, bool PROD> struct tl_scan_op {
  TL_HD T operator()(const T &a, const T &b) const
  {
    if constexpr (cuda::std::is_same_v<T, int64_t>)
      return (int64_t)(PROD ? (uint64_t)a * (uint64_t)b : (uint64_t)a + (uint64_t)b);
    else
      return PROD ? a * b : a + b;
  }
  static TL_HD T identity() { return T(PROD ? 1 : 0); }
};

/* Line k's first element: lines of len elements, inner apart, in a
 * contiguous (outer, len, inner) tensor. */
template <typename T> static __device__ T *tl_scan_line(T *x, int64_t k, int64_t len, int64_t inner)
{
  return x + (k / inner) * len * inner + k % inner;
}

template <typename T, typename Op>
__global__ void tl_scan_by_thread(T *x, int64_t lines, int64_t len, int64_t inner)
{
  const Op op;
  for (int64_t k = blockIdx.x * (int64_t)blockDim.x + threadIdx.x; k < lines;
       k += (int64_t)gridDim.x * blockDim.x) {
    T *row = tl_scan_line(x, k, len, inner);
    T a = row[0];
    for (int64_t i = 1; i < len; i++)
      row[i * inner] = a = op(a, row[i * inner]);
  }
}

template <typename T, typename Op, int THREADS>
__global__ void __launch_bounds__(THREADS) tl_scan_by_block(T *x, int64_t lines, int64_t len,
                                                            int64_t inner)
{
  constexpr int ITEMS = 4;
  using scan = cub::BlockScan<T, THREADS>;
  __shared__ typename scan::TempStorage tmp;
  const Op op;
  for (int64_t k = blockIdx.x; k < lines; k += gridDim.x) {
    T *row = tl_scan_line(x, k, len, inner);
    T carry = Op::identity();
    for (int64_t t0 = 0; t0 < len; t0 += THREADS * ITEMS) {
      T v[ITEMS], total;
      const int64_t first = t0 + (int64_t)threadIdx.x * ITEMS;
      for (int j = 0; j < ITEMS; j++)
        v[j] = first + j < len ? row[(first + j) * inner] : Op::identity();
      scan(tmp).InclusiveScan(v, v, op, total);
      for (int j = 0; j < ITEMS; j++)
        if (first + j < len)
          row[(first + j) * inner] = op(carry, v[j]);
      carry = op(carry, total);
      __syncthreads(); /* tmp is reused by the next tile */
    }
  }
}

static unsigned tl_scan_grid(int64_t n)
{
  return (unsigned)(n < TL_GPU_MAX_BLOCKS ? (n > 0 ? n : 1) : TL_GPU_MAX_BLOCKS);
}

/* Thresholds (elements and lines), from the shape only. */
static constexpr int64_t TL_SCAN_LONG = 1 << 16;      /* a line cub::DeviceScan takes */
static constexpr int64_t TL_SCAN_FEW = 8;             /* ... when there are at most this many */
static constexpr int64_t TL_SCAN_MANY = 1 << 13;      /* lines for one thread each */

/* The one long-line case cub::DeviceScan takes (it alone needs scratch). */
static bool tl_scan_long(int64_t lines, int64_t len, int64_t inner)
{
  return inner == 1 && lines <= TL_SCAN_FEW && len >= TL_SCAN_LONG;
}

template <typename T, bool PROD>
static int tl_scan_run(T *x, int64_t lines, int64_t len, int64_t inner, void *temp, size_t *bytes,
                       cudaStream_t s)
{
  using Op = tl_scan_op<T, PROD>;
  if (tl_scan_long(lines, len, inner)) {
    if (!temp) /* sizing only */
      return (int)cub::DeviceScan::InclusiveScan(nullptr, *bytes, x, x, Op(), len, s);
    for (int64_t k = 0; k < lines; k++) { /* in place: d_in == d_out, which CUB allows */
      T *line = x + k * len;
      cudaError_t err = cub::DeviceScan::InclusiveScan(temp, *bytes, line, line, Op(), len, s);
      if (err != cudaSuccess)
        return (int)err;
    }
  } else if (inner > 1 && lines >= TL_SCAN_MANY) {
    tl_scan_by_thread<T, Op><<<tl_scan_grid((lines + TL_GPU_THREADS - 1) / TL_GPU_THREADS),
                               TL_GPU_THREADS, 0, s>>>(x, lines, len, inner);
  } else if (len <= 128) {
    tl_scan_by_block<T, Op, 32><<<tl_scan_grid(lines), 32, 0, s>>>(x, lines, len, inner);
  } else {
    tl_scan_by_block<T, Op, 256><<<tl_scan_grid(lines), 256, 0, s>>>(x, lines, len, inner);
  }
  return (int)cudaGetLastError();
}

template <typename T>
static int tl_scan_by_kind(bool prod, char *x, int64_t lines, int64_t len, int64_t inner, void *temp,
                           size_t *bytes, cudaStream_t s)
{
  T *p = reinterpret_cast<T *>(x);
  return prod ? tl_scan_run<T, true>(p, lines, len, inner, temp, bytes, s)
              : tl_scan_run<T, false>(p, lines, len, inner, temp, bytes, s);
}

static int tl_scan_dispatch(int work, int prod, char *data, int64_t lines, int64_t len,
                            int64_t inner, void *temp, size_t *bytes, cudaStream_t s)
{
  switch (work) {
  case TL_DTYPE_I64: return tl_scan_by_kind<int64_t>(prod, data, lines, len, inner, temp, bytes, s);
  case TL_DTYPE_F64: return tl_scan_by_kind<double>(prod, data, lines, len, inner, temp, bytes, s);
  case TL_DTYPE_C128: return tl_scan_by_kind<tl_cdouble>(prod, data, lines, len, inner, temp, bytes, s);
  default: return -1;
  }
}

extern "C" size_t tl_gpu_scan_scratch(int work, int64_t lines, int64_t len, int64_t inner)
{
  size_t bytes = 0;
  if (lines > 0 && len > 1 && tl_scan_long(lines, len, inner) &&
      tl_scan_dispatch(work, 0, nullptr, lines, len, inner, nullptr, &bytes, nullptr) != 0)
    return 0;
  return bytes;
}

extern "C" int tl_gpu_scan_launch(int work, int prod, char *data, int64_t lines, int64_t len,
                                  int64_t inner, void *temp, size_t temp_bytes, void *stream)
{
  if (lines == 0 || len <= 1) /* nothing to combine */
    return 0;
  if (tl_scan_long(lines, len, inner) && !temp)
    return (int)cudaErrorInvalidValue;
  return tl_scan_dispatch(work, prod, data, lines, len, inner, temp, &temp_bytes,
                          (cudaStream_t)stream);
}
