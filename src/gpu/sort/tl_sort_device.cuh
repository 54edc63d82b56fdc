/* tl_sort_device.cuh - device helpers of the CUDA sort family (sort.cu,
 * search.cu): order keys, lane addressing, element moves.
 *
 * Keys are sort_keys.h's order, computed on the device: integers flip their
 * sign bit; floats use the sign-magnitude trick, every NaN maps to the
 * all-ones key (after +inf, all NaNs equal) and -0.0 to +0.0's key, so a
 * stable sort keeps NaNs and zeros in input order, as NumPy and PyTorch
 * do.  Keys of floats are not one-to-one, so values always come from the
 * input elements (through sorted positions), never from decoded keys.    */
#ifndef TL_SORT_DEVICE_CUH
#define TL_SORT_DEVICE_CUH

#include <stdint.h>

#include <cuda_fp16.h>
#include <cuda_runtime.h>

#include "gpu/sort/tl_gpu_sort.h"
#include "ndcore/tensor/tl_float8.h"
extern "C" { /* the dtype enum and sizes */
#include "ndcore/tensor/tl_tensor.h"
}

#define TL_SD __device__ __forceinline__
static constexpr int TL_SORT_THREADS = 256;
static constexpr int64_t TL_SORT_MAX_BLOCKS = 1 << 16;

/* Blocks for a grid-stride loop over n items. */
static inline unsigned tl_sort_blocks(int64_t n)
{
  int64_t b = (n + TL_SORT_THREADS - 1) / TL_SORT_THREADS;
  return (unsigned)(b < 1 ? 1 : b > TL_SORT_MAX_BLOCKS ? TL_SORT_MAX_BLOCKS : b);
}
#define TL_SORT_FOR(i, n)                                                                    \
  for (int64_t i = blockIdx.x * (int64_t)blockDim.x + threadIdx.x; i < (n);                  \
       i += (int64_t)gridDim.x * blockDim.x)

template <typename U> TL_SD U tl_sd_load(const char *p) { return *reinterpret_cast<const U *>(p); }

TL_SD uint64_t tl_sd_key_mask(int bytes) { return bytes == 8 ? ~0ull : (1ull << (8 * bytes)) - 1; }

/* A half's key: exp_all is the exponent field of inf (0x7c00 half, 0x7f80 bf16). */
TL_SD uint64_t tl_sd_key16(uint16_t h, uint16_t exp_all)
{
  if ((h & 0x7fffu) > exp_all)
    return 0xffffu;
  if ((h & 0x7fffu) == 0)
    return 0x8000u;
  return (h & 0x8000u) ? (uint16_t)~h : (uint16_t)(h | 0x8000u);
}

/* The ascending order key of the element at p. */
TL_SD uint64_t tl_sd_key(int dtype, const char *p)
{
  switch (dtype) {
  case TL_DTYPE_BOOL: return tl_sd_load<uint8_t>(p) != 0;
  case TL_DTYPE_U8: return tl_sd_load<uint8_t>(p);
  case TL_DTYPE_U16: return tl_sd_load<uint16_t>(p);
  case TL_DTYPE_U32: return tl_sd_load<uint32_t>(p);
  case TL_DTYPE_U64: return tl_sd_load<uint64_t>(p);
  case TL_DTYPE_I8: return (uint8_t)(tl_sd_load<uint8_t>(p) ^ 0x80u);
  case TL_DTYPE_I16: return (uint16_t)(tl_sd_load<uint16_t>(p) ^ 0x8000u);
  case TL_DTYPE_I32: return tl_sd_load<uint32_t>(p) ^ 0x80000000u;
  case TL_DTYPE_I64: return tl_sd_load<uint64_t>(p) ^ 0x8000000000000000ull;
  case TL_DTYPE_F16: return tl_sd_key16(tl_sd_load<uint16_t>(p), 0x7c00u);
  case TL_DTYPE_BF16: return tl_sd_key16(tl_sd_load<uint16_t>(p), 0x7f80u);
  case TL_DTYPE_F32: {
    uint32_t u = tl_sd_load<uint32_t>(p), a = u & 0x7fffffffu;
    if (a > 0x7f800000u)
      return 0xffffffffu;
    return a == 0 ? 0x80000000u : u ^ ((uint32_t)((int32_t)u >> 31) | 0x80000000u);
  }
  case TL_DTYPE_F64: {
    uint64_t u = tl_sd_load<uint64_t>(p), a = u & 0x7fffffffffffffffull;
    if (a > 0x7ff0000000000000ull)
      return ~0ull;
    return a == 0 ? 0x8000000000000000ull : u ^ ((uint64_t)((int64_t)u >> 63) | (1ull << 63));
  }
  default: return 0; /* complex: refused on the host */
  }
}

TL_SD bool tl_sd_is_float(int dtype)
{
  return dtype == TL_DTYPE_F16 || dtype == TL_DTYPE_BF16 || dtype == TL_DTYPE_F32 ||
         dtype == TL_DTYPE_F64;
}

/* A float64 order key back to its value (exact but for NaN and -0.0). */
TL_SD double tl_sd_unkey_f64(uint64_t k)
{
  uint64_t u = (k >> 63) ? (k & 0x7fffffffffffffffull) : ~k;
  return __longlong_as_double((long long)u);
}

/* Any real element as a double: every dtype the CPU's loads read as one
 * (search.c's load_real), float8 included, which bincount takes as weights
 * (its dispatch looks at the input's dtype only). */
TL_SD double tl_sd_real(int dtype, const char *p)
{
  switch (dtype) {
  case TL_DTYPE_BOOL: return tl_sd_load<uint8_t>(p) != 0;
  case TL_DTYPE_U8: return tl_sd_load<uint8_t>(p);
  case TL_DTYPE_U16: return tl_sd_load<uint16_t>(p);
  case TL_DTYPE_U32: return tl_sd_load<uint32_t>(p);
  case TL_DTYPE_U64: return (double)tl_sd_load<uint64_t>(p);
  case TL_DTYPE_I8: return tl_sd_load<int8_t>(p);
  case TL_DTYPE_I16: return tl_sd_load<int16_t>(p);
  case TL_DTYPE_I32: return tl_sd_load<int32_t>(p);
  case TL_DTYPE_I64: return (double)tl_sd_load<int64_t>(p);
  case TL_DTYPE_F16: {
    uint16_t h = tl_sd_load<uint16_t>(p);
    return __half2float(__ushort_as_half(h));
  }
  case TL_DTYPE_BF16: return __uint_as_float((uint32_t)tl_sd_load<uint16_t>(p) << 16);
  case TL_DTYPE_F32: return tl_sd_load<float>(p);
  case TL_DTYPE_F64: return tl_sd_load<double>(p);
  case TL_DTYPE_F8E4M3FN: return tl_f8e4m3fn_to_f32(tl_sd_load<uint8_t>(p));
  case TL_DTYPE_F8E5M2: return tl_f8e5m2_to_f32(tl_sd_load<uint8_t>(p));
  case TL_DTYPE_F8E4M3FNUZ: return tl_f8e4m3fnuz_to_f32(tl_sd_load<uint8_t>(p));
  case TL_DTYPE_F8E5M2FNUZ: return tl_f8e5m2fnuz_to_f32(tl_sd_load<uint8_t>(p));
  case TL_DTYPE_F8E8M0FNU: return tl_e8m0_to_f32(tl_sd_load<uint8_t>(p));
  default: return 0; /* complex: refused on the host */
  }
}

/* Where lane `lane` starts. */
TL_SD char *tl_sd_lane(const tl_gpu_lanes &l, int64_t lane)
{
  int64_t off = 0;
  for (int d = l.ndim - 1; d >= 0; d--) {
    off += lane % l.shape[d] * l.strides[d];
    lane /= l.shape[d];
  }
  return l.data + off;
}

TL_SD void tl_sd_copy(char *dst, const char *src, int esize)
{
  switch (esize) {
  case 1: *dst = *src; break;
  case 2: *reinterpret_cast<uint16_t *>(dst) = tl_sd_load<uint16_t>(src); break;
  case 4: *reinterpret_cast<uint32_t *>(dst) = tl_sd_load<uint32_t>(src); break;
  default: *reinterpret_cast<uint64_t *>(dst) = tl_sd_load<uint64_t>(src); break;
  }
}

/* Key j of a [.., n] key array of `bytes` bytes a key. */
TL_SD uint64_t tl_sd_key_at(const void *keys, int bytes, int64_t j)
{
  switch (bytes) {
  case 1: return static_cast<const uint8_t *>(keys)[j];
  case 2: return static_cast<const uint16_t *>(keys)[j];
  case 4: return static_cast<const uint32_t *>(keys)[j];
  default: return static_cast<const uint64_t *>(keys)[j];
  }
}

/* A running maximum along lanes laid out one after another ([lanes, n]):
 * the larger ord wins, a tie goes to the later element, and an element of
 * another lane restarts it.  Associative (not commutative), so CUB's scan
 * runs every lane at once (tl_gpu_lane_max_scan, search.cu). */
struct tl_lane_max_item {
  uint64_t ord;
  int64_t flat; /* lane * n + position */
};

struct tl_lane_max {
  int64_t n;
  TL_SD tl_lane_max_item operator()(const tl_lane_max_item &a, const tl_lane_max_item &b) const
  {
    if (a.flat / n != b.flat / n) /* b starts a lane (inputs come in order) */
      return b;
    return b.ord > a.ord || (b.ord == a.ord && b.flat > a.flat) ? b : a;
  }
};
static_assert(sizeof(tl_lane_max_item) == TL_GPU_LANE_MAX_ITEM, "tl_gpu_sort.h's item size");

#endif
