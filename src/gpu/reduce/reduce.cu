/* reduce.cu - the CUDA reduction pass: one launcher for the passes the
 * reductions of ops.def are built from (reduce.c, reduce_ops.c,
 * reduce_index.c).
 *
 * A pass folds `in` (any strides, already in the pass's loop dtype) over the
 * reduced dims into `acc`, contiguous and shaped like the keepdim output; aux
 * (var's mean, logsumexp's shift) has acc's layout.  Each output's reduced
 * range is cut into plan.chunks contiguous pieces (1 unless the outputs are
 * few and the range long: reduce_gpu.c picks the count from the sizes
 * alone), one block per piece: its threads fold strided slices of the piece,
 * then a tree in shared memory merges them, always in the same order; or,
 * when outputs lie next to each other in memory (plan.columns), one thread
 * per piece, so that a warp's loads are adjacent.  With
 * more than one piece, the pieces' partial accumulators go to scratch and a
 * second kernel merges each output's pieces, again in a fixed order, so
 * results do not depend on timing.  Accumulators are the CPU's
 * (tl_reduce_acc_dtype): int64 with wrapping for integers, double for real
 * floats, complex128 for complex; max and min keep the loop dtype and let
 * NaN win.  argmax/argmin accumulate (value, index) pairs whose merge does
 * not depend on order: the first NaN, else the extreme value at its first
 * index, as the CPU.                                                       */
#include "gpu/reduce/tl_gpu_reduce.h"
#include "gpu/tl_cuda_launch.cuh"

/* What a step reads besides the element: aux's element for the output, p. */
struct tl_red_ctx {
  const char *aux;
  double p;
};

/* ---- the kinds: identity, one step, merge of two partial results ------------------- */

/* Every kind stores its accumulator as acc's element; the index kinds override. */
template <typename A> struct tl_red_store {
  static TL_DEV void store(const tl_gpu_reduce_plan &p, int64_t o, A a)
  {
    *reinterpret_cast<A *>(p.acc + o * (int64_t)sizeof(A)) = a;
  }
};

/* sum and prod; int64 accumulators wrap, as the CPU's. */
template <typename X, typename A, bool PROD> struct tl_red_arith : tl_red_store<A> {
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
  static TL_DEV A step(A a, X x, const tl_red_ctx &, int64_t) { return merge(a, A(x)); }
};
template <typename X, typename A> using tl_red_sum = tl_red_arith<X, A, false>;
template <typename X, typename A> using tl_red_prod = tl_red_arith<X, A, true>;
template <typename X> struct tl_red_nansum : tl_red_sum<X, double> {
  static TL_DEV double step(double a, X x, const tl_red_ctx &, int64_t)
  {
    return x != x ? a : a + (double)x;
  }
};

/* The identity of max (MAX) or min over X. */
template <typename X, bool MAX> TL_DEV X tl_red_lowest()
{
  if constexpr (cuda::std::is_floating_point_v<X>)
    return MAX ? -(X)INFINITY : (X)INFINITY;
  else
    return MAX ? cuda::std::numeric_limits<X>::lowest() : cuda::std::numeric_limits<X>::max();
}
/* max/min where a NaN, once seen, is the answer (the CPU's TL_MAXNAN). */
template <typename X, bool MAX> TL_DEV X tl_red_pick(X a, X b)
{
  if (a != a)
    return a;
  if (b != b)
    return b;
  return MAX ? (b > a ? b : a) : (b < a ? b : a);
}
template <typename X, bool MAX> struct tl_red_extreme : tl_red_store<X> {
  using in = X;
  using acc = X;
  static TL_DEV X identity() { return tl_red_lowest<X, MAX>(); }
  static TL_DEV X merge(X a, X b) { return tl_red_pick<X, MAX>(a, b); }
  static TL_DEV X step(X a, X x, const tl_red_ctx &, int64_t) { return merge(a, x); }
};
template <bool ALL> struct tl_red_logical : tl_red_store<bool> {
  using in = bool;
  using acc = bool;
  static TL_DEV bool identity() { return ALL; }
  static TL_DEV bool merge(bool a, bool b) { return ALL ? a && b : a || b; }
  static TL_DEV bool step(bool a, bool x, const tl_red_ctx &, int64_t) { return merge(a, x); }
};
/* Counts: of nonzeros (WHICH 0), zeros (1), non-NaNs (2). */
template <typename X, int WHICH> struct tl_red_count : tl_red_store<int64_t> {
  using in = X;
  using acc = int64_t;
  static TL_DEV int64_t identity() { return 0; }
  static TL_DEV int64_t merge(int64_t a, int64_t b) { return a + b; }
  static TL_DEV int64_t step(int64_t a, X x, const tl_red_ctx &, int64_t)
  {
    return a + (int64_t)(WHICH == 0 ? x != 0 : WHICH == 1 ? x == 0 : x == x);
  }
};

/* The double sums of var, logsumexp and the norms: F(x, ctx) added up. */
template <typename X, typename F> struct tl_red_dsum : tl_red_store<double> {
  using in = X;
  using acc = double;
  static TL_DEV double identity() { return 0; }
  static TL_DEV double merge(double a, double b) { return a + b; }
  static TL_DEV double step(double a, X x, const tl_red_ctx &c, int64_t) { return a + F()(x, c); }
};
/* |x| and |x|^2 in double, complex moduli as the CPU's cabs. */
template <typename X> TL_DEV double tl_red_abs(X x)
{
  if constexpr (tl_is_cx<X>::value)
    return fabs(tl_cdouble(x));
  else
    return fabs((double)x);
}
template <typename X> TL_DEV double tl_red_sqabs(X x)
{
  if constexpr (tl_is_cx<X>::value) {
    tl_cdouble z(x);
    return z.re * z.re + z.im * z.im;
  } else {
    return (double)x * (double)x;
  }
}
/* var: squared deviations from the mean in aux (double, or complex128). */
struct tl_f_sqdev {
  template <typename X> TL_DEV double operator()(X x, const tl_red_ctx &c) const
  {
    if constexpr (tl_is_cx<X>::value)
      return tl_red_sqabs(tl_cdouble(x) - *reinterpret_cast<const tl_cdouble *>(c.aux));
    else
      return tl_red_sqabs((double)x - *reinterpret_cast<const double *>(c.aux));
  }
};
/* logsumexp: exp(x - shift); float32 data takes expf, as the CPU. */
struct tl_f_expsum {
  template <typename X> TL_DEV double operator()(X x, const tl_red_ctx &c) const
  {
    double d = (double)x - *reinterpret_cast<const double *>(c.aux);
    if constexpr (cuda::std::is_same_v<X, float>)
      return (double)expf((float)d);
    else
      return exp(d);
  }
};
struct tl_f_abs {
  template <typename X> TL_DEV double operator()(X x, const tl_red_ctx &) const { return tl_red_abs(x); }
};
struct tl_f_sqabs {
  template <typename X> TL_DEV double operator()(X x, const tl_red_ctx &) const { return tl_red_sqabs(x); }
};
struct tl_f_nonzero {
  template <typename X> TL_DEV double operator()(X x, const tl_red_ctx &) const
  {
    if constexpr (tl_is_cx<X>::value)
      return (double)(x.re != 0 || x.im != 0);
    else
      return (double)(x != 0);
  }
};
struct tl_f_pow {
  template <typename X> TL_DEV double operator()(X x, const tl_red_ctx &c) const
  {
    return pow(tl_red_abs(x), c.p);
  }
};
/* The inf and -inf norms: max/min of |x| in double, NaN wins. */
template <typename X, bool MAX> struct tl_red_absextreme : tl_red_store<double> {
  using in = X;
  using acc = double;
  static TL_DEV double identity() { return MAX ? 0.0 : (double)INFINITY; }
  static TL_DEV double merge(double a, double b) { return tl_red_pick<double, MAX>(a, b); }
  static TL_DEV double step(double a, X x, const tl_red_ctx &, int64_t)
  {
    return merge(a, tl_red_abs(x));
  }
};

/* argmax/argmin: (value, index) pairs.  The merge looks at the indices, so it
 * gives the CPU's answer whatever the order: the first NaN, else the
 * extreme value at its first index. */
template <typename X> struct tl_red_pair {
  X v;
  int64_t i;
};
template <typename X, bool MAX> struct tl_red_arg {
  using in = X;
  using acc = tl_red_pair<X>;
  static TL_DEV acc identity() { return {tl_red_lowest<X, MAX>(), INT64_MAX}; }
  static TL_DEV acc merge(acc a, acc b)
  {
    bool an = a.v != a.v, bn = b.v != b.v;
    if (an || bn)
      return an && bn ? (b.i < a.i ? b : a) : an ? a : b;
    if (MAX ? b.v > a.v : b.v < a.v)
      return b;
    return a.v == b.v && b.i < a.i ? b : a;
  }
  static TL_DEV acc step(acc a, X x, const tl_red_ctx &, int64_t i) { return merge(a, {x, i}); }
  static TL_DEV void store(const tl_gpu_reduce_plan &p, int64_t o, acc a)
  {
    if (p.acc)
      reinterpret_cast<X *>(p.acc)[o] = a.v;
    p.index[o] = a.i;
  }
};
static_assert(sizeof(tl_red_pair<double>) <= TL_GPU_REDUCE_PART, "scratch holds a pair");

/* ---- the launcher ------------------------------------------------------------------- */

/* The block's threads' accumulators merged by a tree in shared memory (raw
 * bytes: the accumulator types have constructors); thread 0 gets the sum. */
template <typename Op> static __device__ typename Op::acc tl_red_tree(typename Op::acc a)
{
  using A = typename Op::acc;
  __shared__ alignas(16) unsigned char raw[TL_GPU_THREADS * sizeof(A)];
  A *partial = reinterpret_cast<A *>(raw);
  const int tid = threadIdx.x;
  partial[tid] = a;
  __syncthreads();
  for (int s = blockDim.x / 2; s > 0; s /= 2) {
    if (tid < s)
      partial[tid] = Op::merge(partial[tid], partial[tid + s]);
    __syncthreads();
  }
  a = partial[0];
  __syncthreads(); /* partial is reused by the block's next output */
  return a;
}

/* Byte offset of the reduced dims' linear position i. */
static __device__ __forceinline__ int64_t tl_red_offset(const tl_gpu_reduce_plan &p, int64_t i)
{
  if (p.nred == 1) /* the common case, without a division */
    return i * p.red_strides[0];
  int64_t off = 0;
  for (int d = p.nred - 1; d >= 0; d--) {
    off += (i % p.red_shape[d]) * p.red_strides[d];
    i /= p.red_shape[d];
  }
  return off;
}

/* Byte offset of output o's first element (the kept dims' position o). */
static __device__ __forceinline__ int64_t tl_red_output_offset(const tl_gpu_reduce_plan &p,
                                                               int64_t o)
{
  int64_t base = 0;
  for (int d = p.nkept - 1; d >= 0; d--) {
    base += (o % p.kept_shape[d]) * p.kept_strides[d];
    o /= p.kept_shape[d];
  }
  return base;
}

/* Work item w: piece w % chunks of output w / chunks. */
template <typename Op> __global__ void tl_red_kernel(const tl_gpu_reduce_plan p)
{
  using A = typename Op::acc;
  using X = typename Op::in;
  const int64_t items = p.outputs * p.chunks;
  for (int64_t w = blockIdx.x; w < items; w += gridDim.x) {
    int64_t o = w / p.chunks, c = w % p.chunks;
    const int64_t base = tl_red_output_offset(p, o);
    const tl_red_ctx ctx = {p.aux ? p.aux + o * p.aux_size : nullptr, p.p};
    const int64_t lo = c * p.per_output / p.chunks, hi = (c + 1) * p.per_output / p.chunks;
    A a = Op::identity();
    for (int64_t i = lo + threadIdx.x; i < hi; i += blockDim.x)
      a = Op::step(a, tl_gpu_load<X>(p.in + base + tl_red_offset(p, i)), ctx, i);
    a = tl_red_tree<Op>(a);
    if (threadIdx.x == 0) {
      if (p.chunks > 1)
        reinterpret_cast<A *>(p.scratch)[w] = a;
      else
        Op::store(p, o, a);
    }
  }
}

/* Outputs adjacent in memory (the innermost kept dim contiguous, the reduced
 * dims further apart: a sum over dim 0 of a C-contiguous matrix): a thread
 * per (output, piece) walks its piece in order, and neighbouring threads
 * read neighbouring elements, so each step is one coalesced load per warp
 * where a block per output would read a scattered element per thread.
 * Work item t: output t % outputs, piece t / outputs. */
template <typename Op> __global__ void tl_red_columns_kernel(const tl_gpu_reduce_plan p)
{
  using A = typename Op::acc;
  using X = typename Op::in;
  const int64_t items = p.outputs * p.chunks;
  for (int64_t t = blockIdx.x * (int64_t)blockDim.x + threadIdx.x; t < items;
       t += (int64_t)gridDim.x * blockDim.x) {
    int64_t o = t % p.outputs, c = t / p.outputs;
    const int64_t base = tl_red_output_offset(p, o);
    const tl_red_ctx ctx = {p.aux ? p.aux + o * p.aux_size : nullptr, p.p};
    const int64_t lo = c * p.per_output / p.chunks, hi = (c + 1) * p.per_output / p.chunks;
    A a = Op::identity();
    for (int64_t i = lo; i < hi; i++)
      a = Op::step(a, tl_gpu_load<X>(p.in + base + tl_red_offset(p, i)), ctx, i);
    if (p.chunks > 1)
      reinterpret_cast<A *>(p.scratch)[o * p.chunks + c] = a;
    else
      Op::store(p, o, a);
  }
}

/* The second stage: each output's pieces merged, in the same order every run. */
template <typename Op> __global__ void tl_red_merge_kernel(const tl_gpu_reduce_plan p)
{
  using A = typename Op::acc;
  const A *part = reinterpret_cast<const A *>(p.scratch);
  for (int64_t o = blockIdx.x; o < p.outputs; o += gridDim.x) {
    A a = Op::identity();
    for (int64_t c = threadIdx.x; c < p.chunks; c += blockDim.x)
      a = Op::merge(a, part[o * p.chunks + c]);
    a = tl_red_tree<Op>(a);
    if (threadIdx.x == 0)
      Op::store(p, o, a);
  }
}

static unsigned tl_red_grid(int64_t n) { return (unsigned)(n < TL_GPU_MAX_BLOCKS ? n : TL_GPU_MAX_BLOCKS); }

template <typename Op> static int tl_red_launch(const tl_gpu_reduce_plan *p, cudaStream_t s)
{
  const int64_t piece = p->per_output / p->chunks, items = p->outputs * p->chunks;
  if (p->columns) {
    tl_red_columns_kernel<Op><<<tl_red_grid((items + TL_GPU_THREADS - 1) / TL_GPU_THREADS),
                                TL_GPU_THREADS, 0, s>>>(*p);
  } else {
    /* Threads: a power of two (the tree halves), no more than a piece needs. */
    int threads = 32;
    while (threads < TL_GPU_THREADS && threads < piece)
      threads *= 2;
    tl_red_kernel<Op><<<tl_red_grid(items), threads, 0, s>>>(*p);
  }
  if (p->chunks > 1) {
    int merge_threads = 32;
    while (merge_threads < TL_GPU_THREADS && merge_threads < p->chunks)
      merge_threads *= 2;
    tl_red_merge_kernel<Op><<<tl_red_grid(p->outputs), merge_threads, 0, s>>>(*p);
  }
  return (int)cudaGetLastError();
}

/* Every real loop dtype, as its C++ type, for the kinds that take them all. */
template <template <typename> class K> static int by_real(int loop, const tl_gpu_reduce_plan *p,
                                                          cudaStream_t s)
{
  switch (loop) {
  case TL_DTYPE_BOOL: return tl_red_launch<K<bool>>(p, s);
  case TL_DTYPE_U8: return tl_red_launch<K<uint8_t>>(p, s);
  case TL_DTYPE_U16: return tl_red_launch<K<uint16_t>>(p, s);
  case TL_DTYPE_U32: return tl_red_launch<K<uint32_t>>(p, s);
  case TL_DTYPE_U64: return tl_red_launch<K<uint64_t>>(p, s);
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
template <typename X> using tl_red_argmax = tl_red_arg<X, true>;
template <typename X> using tl_red_argmin = tl_red_arg<X, false>;
template <typename X> using tl_red_absmax = tl_red_absextreme<X, true>;
template <typename X> using tl_red_absmin = tl_red_absextreme<X, false>;
template <typename X> using tl_red_sqdev = tl_red_dsum<X, tl_f_sqdev>;
template <typename X> using tl_red_expsum = tl_red_dsum<X, tl_f_expsum>;
template <typename X> using tl_red_abssum = tl_red_dsum<X, tl_f_abs>;
template <typename X> using tl_red_sqsum = tl_red_dsum<X, tl_f_sqabs>;
template <typename X> using tl_red_nonzero = tl_red_dsum<X, tl_f_nonzero>;
template <typename X> using tl_red_powsum = tl_red_dsum<X, tl_f_pow>;

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

/* The float and complex loop dtypes (var and the norms). */
template <template <typename> class K, bool COMPLEX>
static int by_float(int loop, const tl_gpu_reduce_plan *p, cudaStream_t s)
{
  switch (loop) {
  case TL_DTYPE_F32: return tl_red_launch<K<float>>(p, s);
  case TL_DTYPE_F64: return tl_red_launch<K<double>>(p, s);
  default:
    if constexpr (COMPLEX) {
      if (loop == TL_DTYPE_C64)
        return tl_red_launch<K<tl_cfloat>>(p, s);
      if (loop == TL_DTYPE_C128)
        return tl_red_launch<K<tl_cdouble>>(p, s);
    }
    return -1;
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
  case TL_GPU_RK_SQDEV: return by_float<tl_red_sqdev, true>(loop, p, s);
  case TL_GPU_RK_EXPSUM: return by_float<tl_red_expsum, false>(loop, p, s);
  case TL_GPU_RK_ABSSUM: return by_float<tl_red_abssum, true>(loop, p, s);
  case TL_GPU_RK_SQSUM: return by_float<tl_red_sqsum, true>(loop, p, s);
  case TL_GPU_RK_ABSMAX: return by_float<tl_red_absmax, true>(loop, p, s);
  case TL_GPU_RK_ABSMIN: return by_float<tl_red_absmin, true>(loop, p, s);
  case TL_GPU_RK_NONZERO: return by_float<tl_red_nonzero, true>(loop, p, s);
  case TL_GPU_RK_POWSUM: return by_float<tl_red_powsum, true>(loop, p, s);
  case TL_GPU_RK_ARGMAX: return by_real<tl_red_argmax>(loop, p, s);
  case TL_GPU_RK_ARGMIN: return by_real<tl_red_argmin>(loop, p, s);
  default: return -1;
  }
}
