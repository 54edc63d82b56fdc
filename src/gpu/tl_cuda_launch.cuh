/* tl_cuda_launch.cuh - the one elementwise launcher, and the hand-written
 * functors of the ops whose CPU loop is not a plain scalar body.
 *
 * A functor F has `using sig = TO(TI...)` and a const operator() of that
 * type; one that needs the op's arguments (alpha, decimals, bounds) also has
 * a constructor from tl_gpu_params, run once per thread.  tl_gpu_launch<F>
 * runs it over a plan (tl_gpu_kernels.h) in one of two kernels:
 *
 *   flat  the plan has one dimension (every contiguous or uniformly strided
 *         case after coalescing): element i of operand k is at
 *         data[k] + i * stride[k].  When every strided operand is
 *         contiguous and aligned, each thread moves VEC elements per operand
 *         with one vector load or store (16 bytes of the widest type).
 *   nd    anything else: the linear index is split into coordinates,
 *         innermost dimension last, in 32-bit arithmetic when the element
 *         count and every byte offset fit (the common case; 64-bit
 *         division is several times slower on the GPU), else in 64-bit.
 *
 * Host scalars (a Python number, a 0-d CPU tensor) travel in the plan by
 * value and are read once per thread.  Both kernels stride over the grid, so
 * the grid size is capped and any numel runs.                            */
#ifndef TL_CUDA_LAUNCH_CUH
#define TL_CUDA_LAUNCH_CUH

#include <stddef.h>
#include <stdint.h>

#include <cuda_runtime.h>
#include <cuda/std/tuple>
#include <cuda/std/type_traits>
#include <cuda/std/utility>

#include "gpu/tl_cuda_math.cuh"
#include "gpu/tl_gpu_kernels.h"
extern "C" { /* the dtype tables (tl_dtype_sizes ...) are C symbols */
#include "ndcore/tensor/tl_tensor.h"
}

#define TL_OP(E, name, kind, rule) TL_OP_##E,
enum tl_gpu_op {
#include "ndcore/dispatch/ops.def"
};
#undef TL_OP

static constexpr int TL_GPU_THREADS = 256;
static constexpr int64_t TL_GPU_MAX_BLOCKS = 1 << 16;

template <typename F> TL_DEV F tl_gpu_make(const tl_gpu_params &p)
{
  if constexpr (cuda::std::is_constructible_v<F, const tl_gpu_params &>)
    return F(p);
  else
    return F();
}

template <typename T> TL_DEV T tl_gpu_load(const char *p) { return *reinterpret_cast<const T *>(p); }

template <typename T, int N> struct alignas(sizeof(T) * N) tl_gpu_vec {
  T v[N];
};

/* The byte offset of every operand at a linear index: its coordinates,
 * innermost dimension last, in index type I. */
template <typename I> TL_DEV void tl_gpu_offsets(const tl_gpu_plan &p, int64_t linear, int64_t *off)
{
  I r = (I)linear;
  I o[TL_GPU_MAX_OPERANDS] = {0, 0, 0, 0};
  for (int d = p.ndim - 1; d >= 0; d--) {
    const I size = (I)p.shape[d];
    const I q = r / size, c = r - q * size;
    r = q;
    for (int k = 0; k < p.noperands; k++)
      o[k] += c * (I)p.strides[k][d];
  }
  for (int k = 0; k < p.noperands; k++)
    off[k] = (int64_t)o[k];
}

/* The offsets of element `linear`, in 32-bit math where tl_gpu_index32 allowed it. */
TL_DEV void tl_gpu_offsets_at(const tl_gpu_plan &p, int64_t linear, int64_t *off,
                              bool index32)
{
  if (index32)
    tl_gpu_offsets<int32_t>(p, linear, off);
  else
    tl_gpu_offsets<int64_t>(p, linear, off);
}

/* Can plan p use 32-bit offsets: the count and every operand's farthest byte fit? */
static inline bool tl_gpu_index32(const tl_gpu_plan *p)
{
  bool fits = p->numel <= INT32_MAX;
  for (int k = 0; k < p->noperands && fits; k++) {
    int64_t extent = 0;
    for (int d = 0; d < p->ndim; d++)
      extent += (p->shape[d] - 1) * (p->strides[k][d] < 0 ? -p->strides[k][d] : p->strides[k][d]);
    fits = extent <= INT32_MAX;
  }
  return fits;
}

/* Blocks for n threads' work, capped: the kernels stride over the grid. */
static inline unsigned tl_gpu_blocks(int64_t n)
{
  int64_t blocks = (n + TL_GPU_THREADS - 1) / TL_GPU_THREADS;
  return (unsigned)(blocks < TL_GPU_MAX_BLOCKS ? (blocks > 0 ? blocks : 1) : TL_GPU_MAX_BLOCKS);
}

constexpr size_t tl_gpu_widest(size_t a) { return a; }
template <typename... S> constexpr size_t tl_gpu_widest(size_t a, S... rest)
{
  return a > tl_gpu_widest(rest...) ? a : tl_gpu_widest(rest...);
}

template <typename F, typename Sig> struct tl_gpu_launcher;
template <typename F> __global__ void tl_gpu_flat(const tl_gpu_plan p, const tl_gpu_params params,
                                                  bool vector)
{
  tl_gpu_launcher<F, typename F::sig>::flat(p, params, vector);
}
template <typename F> __global__ void tl_gpu_nd(const tl_gpu_plan p, const tl_gpu_params params,
                                                bool index32)
{
  tl_gpu_launcher<F, typename F::sig>::nd(p, params, index32);
}

template <typename F, typename TO, typename... TI> struct tl_gpu_launcher<F, TO(TI...)> {
  static constexpr int NIN = sizeof...(TI);
  static constexpr size_t WIDEST = tl_gpu_widest(sizeof(TO), sizeof(TI)...);
  static constexpr int VEC = WIDEST >= 16 ? 1 : (int)(16 / WIDEST) > 8 ? 8 : (int)(16 / WIDEST);
  using Index = cuda::std::make_index_sequence<sizeof...(TI)>;

  /* Operand k + 1's values at element offsets: from memory, or its scalar. */
  template <size_t... K>
  static TL_DEV TO apply(const F &f, const tl_gpu_plan &p, const int64_t *off,
                         cuda::std::index_sequence<K...>)
  {
    return f((p.host_scalar & (2u << K) ? *reinterpret_cast<const TI *>(p.scalar[K + 1])
                                         : tl_gpu_load<TI>(p.data[K + 1] + off[K + 1]))...);
  }

  static TL_DEV void flat(const tl_gpu_plan &p, const tl_gpu_params &params, bool vector)
  {
    const F f = tl_gpu_make<F>(params);
    const int64_t n = p.numel;
    const int64_t step = (int64_t)gridDim.x * blockDim.x;
    int64_t i = (int64_t)blockIdx.x * blockDim.x + threadIdx.x;
    if (vector) {
      /* VEC elements per thread and round; the tail element by element below. */
      const int64_t nvec = n / VEC;
      for (int64_t v = i; v < nvec; v += step)
        flat_vector(f, p, v * VEC, Index{});
      i += nvec * VEC;
    }
    for (; i < n; i += step) {
      int64_t off[TL_GPU_MAX_OPERANDS];
      for (int k = 0; k < p.noperands; k++)
        off[k] = i * p.strides[k][0];
      *reinterpret_cast<TO *>(p.data[0] + off[0]) = apply(f, p, off, Index{});
    }
  }

  template <size_t... K>
  static TL_DEV void flat_vector(const F &f, const tl_gpu_plan &p, int64_t first,
                                 cuda::std::index_sequence<K...>)
  {
    /* Each input as VEC values: one vector load, or its scalar VEC times. */
    const auto in = cuda::std::make_tuple(load_vector<TI, K>(p, first)...);
    tl_gpu_vec<TO, VEC> out;
#pragma unroll
    for (int j = 0; j < VEC; j++)
      out.v[j] = f(cuda::std::get<K>(in).v[j]...);
    *reinterpret_cast<tl_gpu_vec<TO, VEC> *>(p.data[0] + first * (int64_t)sizeof(TO)) = out;
  }

  template <typename T, size_t K>
  static TL_DEV tl_gpu_vec<T, VEC> load_vector(const tl_gpu_plan &p, int64_t first)
  {
    tl_gpu_vec<T, VEC> x;
    if (p.host_scalar & (2u << K)) {
      const T s = *reinterpret_cast<const T *>(p.scalar[K + 1]);
#pragma unroll
      for (int j = 0; j < VEC; j++)
        x.v[j] = s;
      return x;
    }
    return *reinterpret_cast<const tl_gpu_vec<T, VEC> *>(p.data[K + 1] + first * (int64_t)sizeof(T));
  }

  static TL_DEV void nd(const tl_gpu_plan &p, const tl_gpu_params &params, bool index32)
  {
    const F f = tl_gpu_make<F>(params);
    const int64_t step = (int64_t)gridDim.x * blockDim.x;
    for (int64_t i = (int64_t)blockIdx.x * blockDim.x + threadIdx.x; i < p.numel; i += step) {
      int64_t off[TL_GPU_MAX_OPERANDS];
      tl_gpu_offsets_at(p, i, off, index32);
      *reinterpret_cast<TO *>(p.data[0] + off[0]) = apply(f, p, off, Index{});
    }
  }

  static int launch(const tl_gpu_plan *p, const tl_gpu_params *params, void *stream)
  {
    if (p->numel == 0)
      return 0;
    const size_t sizes[TL_GPU_MAX_OPERANDS] = {sizeof(TO), sizeof(TI)...};
    cudaStream_t s = (cudaStream_t)stream;
    if (p->ndim == 1) {
      bool vector = VEC > 1 && p->numel >= VEC;
      for (int k = 0; k < p->noperands && vector; k++)
        vector = (p->host_scalar & (1u << k)) ||
                 (p->strides[k][0] == (int64_t)sizes[k] &&
                  (uintptr_t)p->data[k] % (sizes[k] * VEC) == 0);
      int64_t work = vector ? (p->numel + VEC - 1) / VEC : p->numel;
      tl_gpu_flat<F><<<tl_gpu_blocks(work), TL_GPU_THREADS, 0, s>>>(*p, *params, vector);
      return (int)cudaGetLastError();
    }
    tl_gpu_nd<F><<<tl_gpu_blocks(p->numel), TL_GPU_THREADS, 0, s>>>(*p, *params, tl_gpu_index32(p));
    return (int)cudaGetLastError();
  }
};

template <typename F> int tl_gpu_launch(const tl_gpu_plan *p, const tl_gpu_params *params, void *stream)
{
  return tl_gpu_launcher<F, typename F::sig>::launch(p, params, stream);
}

/* ---- hand-written functors (their rows are generated with the others) ---------- */

/* add/sub: a + b when alpha is one (params.i), else a + alpha * b with alpha
 * already in the compute type (params.value[0]); sub negates alpha once. */
template <typename T, typename Plain, typename Axpy> struct tl_gpu_add {
  using sig = T(T, T);
  T alpha;
  bool one;
  TL_DEV explicit tl_gpu_add(const tl_gpu_params &p)
      : alpha(*reinterpret_cast<const T *>(p.value[0])), one(p.i != 0) {}
  TL_DEV T operator()(T a, T b) const { return one ? Plain()(a, b) : Axpy()(a, alpha, b); }
};
template <typename T, typename Plain, typename Axpy, typename Neg>
struct tl_gpu_sub : tl_gpu_add<T, Plain, Axpy> {
  TL_DEV explicit tl_gpu_sub(const tl_gpu_params &p) : tl_gpu_add<T, Plain, Axpy>(p)
  {
    this->alpha = Neg()(this->alpha);
  }
};

/* round(x, decimals): params.i decimals, params.real[0] 10^|decimals|
 * (inf once it overflows); half to even, as the CPU loops. */
template <typename T> struct tl_gpu_round_float {
  using sig = T(T);
  int64_t d;
  T f;
  TL_DEV explicit tl_gpu_round_float(const tl_gpu_params &p) : d(p.i), f((T)p.real[0]) {}
  TL_DEV T operator()(T x) const
  {
    return d == 0 ? rint(x) : d > 0 ? rint(x * f) / f : rint(x / f) * f;
  }
};
template <typename T> struct tl_gpu_round_int {
  using sig = T(T);
  int64_t d;
  double f;
  TL_DEV explicit tl_gpu_round_int(const tl_gpu_params &p) : d(p.i), f(p.real[0]) {}
  TL_DEV T operator()(T x) const
  {
    if (d >= 0)
      return x;
    double y = rint((double)x / f) * f;
    return fabs(y) < 9.2e18 ? (T)(int64_t)y : 0;
  }
};

/* nan_to_num: params.real = nan, posinf, neginf, defaulted by the C side to
 * the limits of the output dtype (which may be a half type computed here in
 * float32); complex numbers part by part. */
template <typename T> struct tl_gpu_nan_to_num {
  using sig = T(T);
  double nan, pos, neg;
  TL_DEV explicit tl_gpu_nan_to_num(const tl_gpu_params &p)
      : nan(p.real[0]), pos(p.real[1]), neg(p.real[2]) {}
  template <typename R> TL_DEV R one(R x) const
  {
    return isnan(x) ? (R)nan : isinf(x) ? (R)(x > 0 ? pos : neg) : x;
  }
  TL_DEV T operator()(T x) const
  {
    if constexpr (tl_is_cx<T>::value)
      return T(one(x.re), one(x.im));
    else
      return one(x);
  }
};

/* where(cond, a, b) moves bytes: T is any type of the element's size. */
template <typename T> struct tl_gpu_where {
  using sig = T(bool, T, T);
  TL_DEV T operator()(bool c, T a, T b) const { return c ? a : b; }
};

/* clamp(x, lo, hi): params.i bit 0 when lo is given, bit 1 when hi is; lo
 * first, so lo > hi gives hi, as on the CPU. */
template <typename T, typename Lo, typename Hi> struct tl_gpu_clamp {
  using sig = T(T, T, T);
  bool has_lo, has_hi;
  TL_DEV explicit tl_gpu_clamp(const tl_gpu_params &p) : has_lo(p.i & 1), has_hi(p.i & 2) {}
  TL_DEV T operator()(T x, T lo, T hi) const
  {
    if (has_lo)
      x = Lo()(x, lo);
    if (has_hi)
      x = Hi()(x, hi);
    return x;
  }
};

#endif
