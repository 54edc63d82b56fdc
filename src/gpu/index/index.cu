/* index.cu - the CUDA index primitives: offsets, gather/scatter moves (with
 * atomic reductions), masked fill, scatter mean's division, index_add's
 * scale, and nonzero's selection (CUB) and coordinates.
 *
 * Every kernel walks a plan (tl_gpu_kernels.h) over the grid, one element a
 * thread, its operands' offsets from its coordinates (tl_gpu_offsets_at).
 * Scatters into repeated positions: a plain move keeps one of the values,
 * which one is unspecified (as in PyTorch); reductions are atomic, so sums
 * of floats depend on the order the threads arrive in and are not
 * bit-reproducible (as in PyTorch).  Native atomics where CUDA has them
 * (add for float32/64, float16, bfloat16, int32, int64, and complex part by
 * part); everything else is a compare-and-swap loop on the 32- or 64-bit
 * word that holds the element.  complex128 products have no 128-bit swap
 * and run on one thread, in order.
 *
 * A bad index in the offsets pass is recorded in the device's error record
 * (first one wins) and replaced by 0, so no kernel reads or writes outside
 * its tensors; the host raises it at the next synchronization.           */
#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <string.h>

#include <cub/device/device_select.cuh>
#include <thrust/iterator/counting_iterator.h>

#include "gpu/index/tl_gpu_index.h"
#include "gpu/tl_cuda_launch.cuh"

/* ---- the walk ----------------------------------------------------------------------- */

template <typename Body> __global__ void index_walk(const tl_gpu_plan p, bool index32, Body body)
{
  const int64_t step = (int64_t)gridDim.x * blockDim.x;
  for (int64_t i = (int64_t)blockIdx.x * blockDim.x + threadIdx.x; i < p.numel; i += step) {
    int64_t off[TL_GPU_MAX_OPERANDS];
    tl_gpu_offsets_at(p, i, off, index32);
    body(p, off);
  }
}

/* serial: one thread walks the whole plan, in order. */
template <typename Body>
static int walk(const tl_gpu_plan *p, Body body, void *stream, bool serial = false)
{
  if (p->numel == 0)
    return 0;
  const unsigned blocks = serial ? 1 : tl_gpu_blocks(p->numel);
  const unsigned threads = serial ? 1 : TL_GPU_THREADS;
  index_walk<<<blocks, threads, 0, (cudaStream_t)stream>>>(*p, tl_gpu_index32(p), body);
  return (int)cudaGetLastError();
}

TL_DEV int64_t load_i64(const char *p) { return *reinterpret_cast<const int64_t *>(p); }

/* Operand k's element: from memory, or its host scalar. */
TL_DEV const char *operand(const tl_gpu_plan &p, int k, const int64_t *off)
{
  return p.host_scalar & (1u << k) ? reinterpret_cast<const char *>(p.scalar[k])
                                   : p.data[k] + off[k];
}

/* ---- offsets ------------------------------------------------------------------------ */

struct offsets_body {
  tl_gpu_offsets_params a;
  TL_DEV void operator()(const tl_gpu_plan &p, const int64_t *off) const
  {
    const int64_t v = load_i64(operand(p, 1, off));
    int64_t w = v < 0 && a.wrap ? v + a.size : v;
    if ((uint64_t)w >= (uint64_t)a.size) {
      tl_device_error *e = a.err;
      if (atomicCAS(reinterpret_cast<int *>(&e->flag), 0, 1) == 0) {
        e->op = a.op;
        e->dim = a.dim;
        e->status = a.status;
        e->value = v;
        e->size = a.size;
      }
      w = 0;
    }
    int64_t *dst = reinterpret_cast<int64_t *>(p.data[0] + off[0]);
    *dst = a.first ? w * a.stride : *dst + w * a.stride;
  }
};

extern "C" int tl_gpu_index_offsets_launch(const tl_gpu_plan *plan, const tl_gpu_offsets_params *p,
                                           void *stream)
{
  return walk(plan, offsets_body{*p}, stream);
}

/* ---- element types ---------------------------------------------------------------------
 * S: how dtype D lies in memory; C: the type the CPU's loops compute in. */

template <int D> struct dt;
#define TL_DT(D, STORE, COMPUTE)                                                             \
  template <> struct dt<D> {                                                                 \
    using S = STORE;                                                                         \
    using C = COMPUTE;                                                                       \
  };
TL_DT(TL_DTYPE_BOOL, bool, bool)
TL_DT(TL_DTYPE_U8, uint8_t, uint8_t)
TL_DT(TL_DTYPE_U16, uint16_t, uint16_t)
TL_DT(TL_DTYPE_U32, uint32_t, uint32_t)
TL_DT(TL_DTYPE_U64, uint64_t, uint64_t)
TL_DT(TL_DTYPE_I8, int8_t, int8_t)
TL_DT(TL_DTYPE_I16, int16_t, int16_t)
TL_DT(TL_DTYPE_I32, int32_t, int32_t)
TL_DT(TL_DTYPE_I64, int64_t, int64_t)
TL_DT(TL_DTYPE_F16, __half, float)
TL_DT(TL_DTYPE_BF16, __nv_bfloat16, float)
TL_DT(TL_DTYPE_F32, float, float)
TL_DT(TL_DTYPE_F64, double, double)
TL_DT(TL_DTYPE_C64, tl_cfloat, tl_cfloat)
TL_DT(TL_DTYPE_C128, tl_cdouble, tl_cdouble)
#undef TL_DT

template <typename C, typename S> TL_DEV C to_c(S s)
{
  if constexpr (cuda::std::is_same_v<S, __half>)
    return __half2float(s);
  else if constexpr (cuda::std::is_same_v<S, __nv_bfloat16>)
    return __bfloat162float(s);
  else
    return s;
}
template <typename S, typename C> TL_DEV S to_s(C c)
{
  if constexpr (cuda::std::is_same_v<S, __half>)
    return __float2half_rn(c);
  else if constexpr (cuda::std::is_same_v<S, __nv_bfloat16>)
    return __float2bfloat16_rn(c);
  else
    return c;
}

template <typename C> TL_DEV bool is_nan(C a)
{
  if constexpr (cuda::std::is_floating_point_v<C>)
    return isnan(a);
  else
    return false;
}

/* a (reduce)= b as the CPU's loops combine (index.c): amax/amin propagate
 * NaN; bool adds as or and multiplies as and; complex has no amax/amin (the
 * op layer refuses them). */
template <typename C> TL_DEV C combine(C a, C b, int reduce)
{
  if constexpr (cuda::std::is_same_v<C, bool>) {
    return reduce == TL_GPU_REDUCE_MUL || reduce == TL_GPU_REDUCE_AMIN ? (a && b) : (a || b);
  } else if constexpr (tl_is_cx<C>::value) {
    return reduce == TL_GPU_REDUCE_MUL ? a * b : a + b;
  } else {
    switch (reduce) {
    case TL_GPU_REDUCE_MUL: return (C)(a * b);
    case TL_GPU_REDUCE_AMAX: return is_nan(a) || a > b ? a : b;
    case TL_GPU_REDUCE_AMIN: return is_nan(a) || a < b ? a : b;
    default: return (C)(a + b);
    }
  }
}

/* *p = f(*p) atomically: a compare-and-swap loop on the 4- or 8-byte word
 * that holds the element (a 1- or 2-byte element never straddles a 4-byte
 * word, since it is aligned to its size).  16-byte elements have no swap:
 * their launches are serial. */
template <typename S, typename F> TL_DEV void cas_update(S *p, F f)
{
  if constexpr (sizeof(S) == 4 || sizeof(S) == 8) {
    using W = cuda::std::conditional_t<sizeof(S) == 4, unsigned int, unsigned long long>;
    W *w = reinterpret_cast<W *>(p);
    W old = *w, assumed;
    do {
      assumed = old;
      S cur, next;
      memcpy(&cur, &assumed, sizeof cur);
      next = f(cur);
      W bits;
      memcpy(&bits, &next, sizeof next);
      old = atomicCAS(w, assumed, bits);
    } while (old != assumed);
  } else if constexpr (sizeof(S) < 4) {
    unsigned int *w = reinterpret_cast<unsigned int *>((uintptr_t)p & ~(uintptr_t)3);
    const unsigned shift = (unsigned)((uintptr_t)p & 3) * 8;
    const unsigned mask = (sizeof(S) == 1 ? 0xFFu : 0xFFFFu) << shift;
    unsigned old = *w, assumed;
    do {
      assumed = old;
      unsigned bits = (assumed & mask) >> shift, nbits = 0;
      S cur, next;
      memcpy(&cur, &bits, sizeof cur);
      next = f(cur);
      memcpy(&nbits, &next, sizeof next);
      old = atomicCAS(w, assumed, (assumed & ~mask) | (nbits << shift));
    } while (old != assumed);
  } else {
    *p = f(*p);
  }
}

template <int D> struct reduce_with {
  using S = typename dt<D>::S;
  using C = typename dt<D>::C;
  C b;
  int reduce;
  TL_DEV S operator()(S a) const { return to_s<S>(combine<C>(to_c<C>(a), b, reduce)); }
};

/* *dst (reduce)= b, atomically unless serial. */
template <int D> TL_DEV void reduce_at(char *dst, typename dt<D>::C b, int reduce, bool serial)
{
  using S = typename dt<D>::S;
  using C = typename dt<D>::C;
  S *p = reinterpret_cast<S *>(dst);
  if (serial) {
    *p = reduce_with<D>{b, reduce}(*p);
    return;
  }
  if (reduce == TL_GPU_REDUCE_ADD) {
    if constexpr (D == TL_DTYPE_F32 || D == TL_DTYPE_F64) {
      atomicAdd(p, b);
      return;
    } else if constexpr (D == TL_DTYPE_F16 || D == TL_DTYPE_BF16) {
      atomicAdd(p, to_s<S>(b)); /* b came from this dtype: exact, one rounding as the CPU's */
      return;
    } else if constexpr (D == TL_DTYPE_I32) {
      atomicAdd(p, b);
      return;
    } else if constexpr (D == TL_DTYPE_I64) {
      atomicAdd(reinterpret_cast<unsigned long long *>(p), (unsigned long long)b);
      return;
    } else if constexpr (tl_is_cx<C>::value) {
      atomicAdd(&p->re, b.re);
      atomicAdd(&p->im, b.im);
      return;
    }
  }
  cas_update(p, reduce_with<D>{b, reduce});
}

/* ---- moves -------------------------------------------------------------------------- */

/* Bytes of one element, moved as one value. */
struct alignas(8) tl_b16 {
  uint64_t lo, hi;
};

template <typename S> struct gather_body {
  TL_DEV void operator()(const tl_gpu_plan &p, const int64_t *off) const
  {
    const int64_t at = load_i64(p.data[2] + off[2]);
    *reinterpret_cast<S *>(p.data[0] + off[0]) =
        *reinterpret_cast<const S *>(p.data[1] + off[1] + at);
  }
};

template <typename S> struct scatter_body {
  TL_DEV void operator()(const tl_gpu_plan &p, const int64_t *off) const
  {
    const int64_t at = load_i64(p.data[0] + off[0]);
    *reinterpret_cast<S *>(p.data[1] + off[1] + at) =
        *reinterpret_cast<const S *>(operand(p, 2, off));
  }
};

template <int D> struct scatter_reduce_body {
  int reduce;
  bool serial;
  TL_DEV void operator()(const tl_gpu_plan &p, const int64_t *off) const
  {
    using S = typename dt<D>::S;
    using C = typename dt<D>::C;
    const int64_t at = load_i64(p.data[0] + off[0]);
    const C b = to_c<C>(*reinterpret_cast<const S *>(operand(p, 2, off)));
    reduce_at<D>(p.data[1] + off[1] + at, b, reduce, serial);
  }
};

template <typename S> static int move_sized(const tl_gpu_plan *plan, int scatter, void *stream)
{
  return scatter ? walk(plan, scatter_body<S>{}, stream) : walk(plan, gather_body<S>{}, stream);
}

/* F<D>::run(a...) for dtype D; -1 for a dtype it does not know. */
template <template <int> class F, typename... A> static int by_dtype(int dtype, A... a)
{
  switch (dtype) {
  case TL_DTYPE_BOOL: return F<TL_DTYPE_BOOL>::run(a...);
  case TL_DTYPE_U8: return F<TL_DTYPE_U8>::run(a...);
  case TL_DTYPE_U16: return F<TL_DTYPE_U16>::run(a...);
  case TL_DTYPE_U32: return F<TL_DTYPE_U32>::run(a...);
  case TL_DTYPE_U64: return F<TL_DTYPE_U64>::run(a...);
  case TL_DTYPE_I8: return F<TL_DTYPE_I8>::run(a...);
  case TL_DTYPE_I16: return F<TL_DTYPE_I16>::run(a...);
  case TL_DTYPE_I32: return F<TL_DTYPE_I32>::run(a...);
  case TL_DTYPE_I64: return F<TL_DTYPE_I64>::run(a...);
  case TL_DTYPE_F16: return F<TL_DTYPE_F16>::run(a...);
  case TL_DTYPE_BF16: return F<TL_DTYPE_BF16>::run(a...);
  case TL_DTYPE_F32: return F<TL_DTYPE_F32>::run(a...);
  case TL_DTYPE_F64: return F<TL_DTYPE_F64>::run(a...);
  case TL_DTYPE_C64: return F<TL_DTYPE_C64>::run(a...);
  case TL_DTYPE_C128: return F<TL_DTYPE_C128>::run(a...);
  default: return -1;
  }
}

template <int D> struct scatter_reduce {
  static int run(const tl_gpu_plan *plan, int reduce, void *stream)
  {
    const bool serial = sizeof(typename dt<D>::S) == 16 && reduce != TL_GPU_REDUCE_ADD;
    return walk(plan, scatter_reduce_body<D>{reduce, serial}, stream, serial);
  }
};

extern "C" int tl_gpu_index_move_launch(const tl_gpu_plan *plan, int scatter, int dtype,
                                        int reduce, void *stream)
{
  if (reduce == TL_GPU_REDUCE_NONE) {
    switch (tl_dtype_size((tl_dtype)dtype)) {
    case 1: return move_sized<uint8_t>(plan, scatter, stream);
    case 2: return move_sized<uint16_t>(plan, scatter, stream);
    case 4: return move_sized<uint32_t>(plan, scatter, stream);
    case 8: return move_sized<uint64_t>(plan, scatter, stream);
    case 16: return move_sized<tl_b16>(plan, scatter, stream);
    default: return -1;
    }
  }
  return scatter ? by_dtype<scatter_reduce>(dtype, plan, reduce, stream) : -1;
}

/* ---- masked fill, mean, scale ------------------------------------------------------- */

/* self = mask ? value : self: where's functor over element-sized values. */
extern "C" int tl_gpu_index_masked_fill_launch(const tl_gpu_plan *plan, int itemsize, void *stream)
{
  tl_gpu_params params;
  memset(&params, 0, sizeof params);
  switch (itemsize) {
  case 1: return tl_gpu_launch<tl_gpu_where<uint8_t>>(plan, &params, stream);
  case 2: return tl_gpu_launch<tl_gpu_where<uint16_t>>(plan, &params, stream);
  case 4: return tl_gpu_launch<tl_gpu_where<uint32_t>>(plan, &params, stream);
  case 8: return tl_gpu_launch<tl_gpu_where<uint64_t>>(plan, &params, stream);
  case 16: return tl_gpu_launch<tl_gpu_where<tl_b16>>(plan, &params, stream);
  default: return -1;
  }
}

/* a / c for a count c > 0, as the CPU's loops: floor division for signed integers. */
template <typename C> TL_DEV C mean_of(C a, int64_t c)
{
  if constexpr (cuda::std::is_same_v<C, bool>) {
    return a;
  } else if constexpr (tl_is_cx<C>::value) {
    using R = decltype(a.re);
    return C(a.re / (R)c, a.im / (R)c);
  } else if constexpr (cuda::std::is_floating_point_v<C>) {
    return a / (C)c;
  } else if constexpr (cuda::std::is_unsigned_v<C>) {
    return (C)(a / c);
  } else {
    const int64_t x = a;
    return (C)(x / c - ((x % c != 0) && (x < 0)));
  }
}

template <int D> struct mean_body {
  TL_DEV void operator()(const tl_gpu_plan &p, const int64_t *off) const
  {
    using S = typename dt<D>::S;
    using C = typename dt<D>::C;
    const int64_t c = load_i64(p.data[1] + off[1]);
    if (c <= 0)
      return;
    S *a = reinterpret_cast<S *>(p.data[0] + off[0]);
    *a = to_s<S>(mean_of<C>(to_c<C>(*a), c));
  }
};

template <int D> struct scale_body {
  typename dt<D>::C alpha;
  TL_DEV void operator()(const tl_gpu_plan &p, const int64_t *off) const
  {
    using S = typename dt<D>::S;
    using C = typename dt<D>::C;
    const C b = to_c<C>(*reinterpret_cast<const S *>(operand(p, 1, off)));
    *reinterpret_cast<S *>(p.data[0] + off[0]) = to_s<S>(combine<C>(alpha, b, TL_GPU_REDUCE_MUL));
  }
};

/* alpha NULL: the mean's division; else the scale. */
template <int D> struct mean_or_scale {
  static int run(const tl_gpu_plan *plan, const unsigned char *alpha, void *stream)
  {
    using S = typename dt<D>::S;
    using C = typename dt<D>::C;
    if (!alpha)
      return walk(plan, mean_body<D>{}, stream);
    S a;
    memcpy(&a, alpha, sizeof a);
    return walk(plan, scale_body<D>{to_c<C>(a)}, stream);
  }
};

extern "C" int tl_gpu_index_mean_divide_launch(const tl_gpu_plan *plan, int dtype, void *stream)
{
  return by_dtype<mean_or_scale>(dtype, plan, (const unsigned char *)NULL, stream);
}

extern "C" int tl_gpu_index_scale_launch(const tl_gpu_plan *plan, int dtype,
                                         const unsigned char *alpha, void *stream)
{
  return by_dtype<mean_or_scale>(dtype, plan, alpha, stream);
}

/* ---- nonzero ------------------------------------------------------------------------ */

extern "C" int tl_gpu_index_select_flagged(void *temp, size_t *temp_bytes, const bool *flags,
                                           int64_t *linear, int64_t *count, int64_t n,
                                           void *stream)
{
  return (int)cub::DeviceSelect::Flagged(temp, *temp_bytes, thrust::counting_iterator<int64_t>(0),
                                         flags, linear, count, n, (cudaStream_t)stream);
}

struct coords_shape {
  int ndim;
  int64_t shape[TL_MAX_DIMS];
};

__global__ void coords_kernel(int64_t *out, const int64_t *linear, int64_t nnz, coords_shape s)
{
  const int64_t step = (int64_t)gridDim.x * blockDim.x;
  for (int64_t i = (int64_t)blockIdx.x * blockDim.x + threadIdx.x; i < nnz; i += step) {
    int64_t r = linear[i];
    for (int d = s.ndim - 1; d >= 0; d--) {
      out[i * s.ndim + d] = r % s.shape[d];
      r /= s.shape[d];
    }
  }
}

extern "C" int tl_gpu_index_coords_launch(int64_t *out, const int64_t *linear, int64_t nnz,
                                          int ndim, const int64_t *shape, void *stream)
{
  coords_shape s;
  s.ndim = ndim;
  for (int d = 0; d < ndim; d++)
    s.shape[d] = shape[d];
  if (nnz == 0 || ndim == 0)
    return 0;
  coords_kernel<<<tl_gpu_blocks(nnz), TL_GPU_THREADS, 0, (cudaStream_t)stream>>>(out, linear,
                                                                                 nnz, s);
  return (int)cudaGetLastError();
}
