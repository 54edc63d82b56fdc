/* reduce.cu - the CUDA reduction pass: one launcher for the passes the
 * reductions of ops.def are built from (reduce.c, reduce_ops.c).
 *
 * A pass folds `in` (any strides, already in the pass's loop dtype) over the
 * reduced dims into `acc`, contiguous and shaped like the keepdim output; aux
 * (var's mean) has acc's layout.  One block per output (grid-stride over the
 * outputs): its threads fold strided slices of the reduced elements, then a
 * tree in shared memory merges them, always in the same order, so results
 * do not depend on timing.  Accumulators are the CPU's (tl_reduce_acc_dtype):
 * int64 with wrapping for integers, double for real floats, complex128 for
 * complex; max and min keep the loop dtype and let NaN win.
 *
 * A single output (a full reduction) is one block: correct, and far from the
 * device's bandwidth; a two-stage split of the reduced range is the next
 * step (docs/gpu.md).                                                      */
#include "gpu/tl_cuda_launch.cuh"

/* ---- the kinds: identity, one step, merge of two partial results ------------------- */

/* sum and prod; int64 accumulators wrap, as the CPU's. */
template <typename X, typename A, bool PROD> struct tl_red_arith {
  using in = X;
  using acc = A;
  static TL_DEV A identity() { return A(PROD ? 1 : 0); }
  static TL_DEV A merge(A a, A b)
  {
    if constexpr (cuda::std::is_same_v<A, int64_t>)
      return (int64_t)(PROD ? (uint64_t)a * (uint64_t)b : (uint64_t)a + (uint64_t)b);
    else
      return PROD ? a * b : a + b;
  }
  static TL_DEV A step(A a, X x, const char *) { return merge(a, A(x)); }
};
template <typename X, typename A> using tl_red_sum = tl_red_arith<X, A, false>;
template <typename X, typename A> using tl_red_prod = tl_red_arith<X, A, true>;
template <typename X> struct tl_red_nansum : tl_red_sum<X, double> {
  static TL_DEV double step(double a, X x, const char *) { return x != x ? a : a + (double)x; }
};
/* max/min: a NaN, once seen, is the answer (the CPU's TL_MAXNAN). */
template <typename X, bool MAX> struct tl_red_extreme {
  using in = X;
  using acc = X;
  static TL_DEV X identity()
  {
    if constexpr (cuda::std::is_floating_point_v<X>)
      return MAX ? -(X)INFINITY : (X)INFINITY;
    else
      return MAX ? cuda::std::numeric_limits<X>::lowest() : cuda::std::numeric_limits<X>::max();
  }
  static TL_DEV X merge(X a, X b)
  {
    if (a != a)
      return a;
    if (b != b)
      return b;
    return MAX ? (b > a ? b : a) : (b < a ? b : a);
  }
  static TL_DEV X step(X a, X x, const char *) { return merge(a, x); }
};
template <bool ALL> struct tl_red_logical {
  using in = bool;
  using acc = bool;
  static TL_DEV bool identity() { return ALL; }
  static TL_DEV bool merge(bool a, bool b) { return ALL ? a && b : a || b; }
  static TL_DEV bool step(bool a, bool x, const char *) { return merge(a, x); }
};
/* Counts: of nonzeros (WHICH 0), zeros (1), non-NaNs (2). */
template <typename X, int WHICH> struct tl_red_count {
  using in = X;
  using acc = int64_t;
  static TL_DEV int64_t identity() { return 0; }
  static TL_DEV int64_t merge(int64_t a, int64_t b) { return a + b; }
  static TL_DEV int64_t step(int64_t a, X x, const char *)
  {
    return a + (int64_t)(WHICH == 0 ? x != 0 : WHICH == 1 ? x == 0 : x == x);
  }
};
/* var's squared deviations from the mean in aux (double, or complex128). */
template <typename X> struct tl_red_sqdev {
  using in = X;
  using acc = double;
  static TL_DEV double identity() { return 0; }
  static TL_DEV double merge(double a, double b) { return a + b; }
  static TL_DEV double step(double a, X x, const char *aux)
  {
    if constexpr (tl_is_cx<X>::value) {
      tl_cdouble d = tl_cdouble(x) - *reinterpret_cast<const tl_cdouble *>(aux);
      return a + (d.re * d.re + d.im * d.im);
    } else {
      double d = (double)x - *reinterpret_cast<const double *>(aux);
      return a + d * d;
    }
  }
};

/* ---- the launcher ------------------------------------------------------------------- */

/* Shared memory as raw bytes: the accumulator types have constructors. */
template <typename Op> __global__ void tl_red_kernel(const tl_gpu_reduce_plan p)
{
  using A = typename Op::acc;
  using X = typename Op::in;
  __shared__ alignas(16) unsigned char raw[TL_GPU_THREADS * sizeof(A)];
  A *partial = reinterpret_cast<A *>(raw);
  const int tid = threadIdx.x;
  for (int64_t o = blockIdx.x; o < p.outputs; o += gridDim.x) {
    int64_t base = 0, r = o;
    for (int d = p.nkept - 1; d >= 0; d--) {
      base += (r % p.kept_shape[d]) * p.kept_strides[d];
      r /= p.kept_shape[d];
    }
    const char *aux = p.aux ? p.aux + o * p.aux_size : nullptr;
    A a = Op::identity();
    for (int64_t i = tid; i < p.per_output; i += blockDim.x) {
      int64_t off = base, q = i;
      for (int d = p.nred - 1; d >= 0; d--) {
        off += (q % p.red_shape[d]) * p.red_strides[d];
        q /= p.red_shape[d];
      }
      a = Op::step(a, tl_gpu_load<X>(p.in + off), aux);
    }
    partial[tid] = a;
    __syncthreads();
    for (int s = blockDim.x / 2; s > 0; s /= 2) {
      if (tid < s)
        partial[tid] = Op::merge(partial[tid], partial[tid + s]);
      __syncthreads();
    }
    if (tid == 0)
      *reinterpret_cast<A *>(p.acc + o * (int64_t)sizeof(A)) = partial[0];
    __syncthreads();
  }
}

template <typename Op> static int tl_red_launch(const tl_gpu_reduce_plan *p, cudaStream_t s)
{
  /* Threads: a power of two (the tree halves), no more than the slice needs. */
  int threads = 32;
  while (threads < TL_GPU_THREADS && threads < p->per_output)
    threads *= 2;
  int64_t blocks = p->outputs < TL_GPU_MAX_BLOCKS ? p->outputs : TL_GPU_MAX_BLOCKS;
  tl_red_kernel<Op><<<(unsigned)blocks, threads, 0, s>>>(*p);
  return (int)cudaGetLastError();
}

/* Every real loop dtype, as its C++ type, for the kinds that take them all. */
template <template <typename> class K> static int by_real(int loop, const tl_gpu_reduce_plan *p,
                                                          cudaStream_t s)
{
  switch (loop) {
  case TL_DTYPE_BOOL: return tl_red_launch<K<bool>>(p, s);
  case TL_DTYPE_U8: return tl_red_launch<K<uint8_t>>(p, s);
  case TL_DTYPE_I8: return tl_red_launch<K<int8_t>>(p, s);
  case TL_DTYPE_I16: return tl_red_launch<K<int16_t>>(p, s);
  case TL_DTYPE_I32: return tl_red_launch<K<int32_t>>(p, s);
  case TL_DTYPE_I64: return tl_red_launch<K<int64_t>>(p, s);
  case TL_DTYPE_F32: return tl_red_launch<K<float>>(p, s);
  case TL_DTYPE_F64: return tl_red_launch<K<double>>(p, s);
  default: return -1;
  }
}
template <typename X> using tl_red_max = tl_red_extreme<X, true>;
template <typename X> using tl_red_min = tl_red_extreme<X, false>;
template <typename X> using tl_red_nonzeros = tl_red_count<X, 0>;
template <typename X> using tl_red_zeros = tl_red_count<X, 1>;

/* sum/prod loop dtypes: int64, float32/64 (in double), complex64/128 (in complex128). */
template <template <typename, typename> class K>
static int by_sum_type(int loop, const tl_gpu_reduce_plan *p, cudaStream_t s)
{
  switch (loop) {
  case TL_DTYPE_I64: return tl_red_launch<K<int64_t, int64_t>>(p, s);
  case TL_DTYPE_F32: return tl_red_launch<K<float, double>>(p, s);
  case TL_DTYPE_F64: return tl_red_launch<K<double, double>>(p, s);
  case TL_DTYPE_C64: return tl_red_launch<K<tl_cfloat, tl_cdouble>>(p, s);
  case TL_DTYPE_C128: return tl_red_launch<K<tl_cdouble, tl_cdouble>>(p, s);
  default: return -1;
  }
}

extern "C" int tl_gpu_reduce_launch(int kind, int loop, const tl_gpu_reduce_plan *p, void *stream)
{
  cudaStream_t s = (cudaStream_t)stream;
  if (p->outputs == 0)
    return 0;
  switch (kind) {
  case TL_GPU_RK_SUM: return by_sum_type<tl_red_sum>(loop, p, s);
  case TL_GPU_RK_PROD: return by_sum_type<tl_red_prod>(loop, p, s);
  case TL_GPU_RK_NANSUM:
    return loop == TL_DTYPE_F32   ? tl_red_launch<tl_red_nansum<float>>(p, s)
           : loop == TL_DTYPE_F64 ? tl_red_launch<tl_red_nansum<double>>(p, s)
                                  : -1;
  case TL_GPU_RK_MAX: return by_real<tl_red_max>(loop, p, s);
  case TL_GPU_RK_MIN: return by_real<tl_red_min>(loop, p, s);
  case TL_GPU_RK_ALL: return loop == TL_DTYPE_BOOL ? tl_red_launch<tl_red_logical<true>>(p, s) : -1;
  case TL_GPU_RK_ANY: return loop == TL_DTYPE_BOOL ? tl_red_launch<tl_red_logical<false>>(p, s) : -1;
  case TL_GPU_RK_COUNT: return by_real<tl_red_nonzeros>(loop, p, s);
  case TL_GPU_RK_COUNT_ZERO: return loop == TL_DTYPE_BOOL ? -1 : by_real<tl_red_zeros>(loop, p, s);
  case TL_GPU_RK_COUNT_NOTNAN:
    return loop == TL_DTYPE_F32   ? tl_red_launch<tl_red_count<float, 2>>(p, s)
           : loop == TL_DTYPE_F64 ? tl_red_launch<tl_red_count<double, 2>>(p, s)
                                  : -1;
  case TL_GPU_RK_SQDEV:
    switch (loop) {
    case TL_DTYPE_F32: return tl_red_launch<tl_red_sqdev<float>>(p, s);
    case TL_DTYPE_F64: return tl_red_launch<tl_red_sqdev<double>>(p, s);
    case TL_DTYPE_C64: return tl_red_launch<tl_red_sqdev<tl_cfloat>>(p, s);
    case TL_DTYPE_C128: return tl_red_launch<tl_red_sqdev<tl_cdouble>>(p, s);
    default: return -1;
    }
  default: return -1;
  }
}
