/* copy_create.cu - copies with casts between any two dtypes, and the
 * creation kernels (full goes through the copy, with its value as a host
 * scalar; arange, linspace and eye's diagonal write contiguous or strided
 * runs directly).
 *
 * A copy of one dtype moves elements of its size through the elementwise
 * launcher (five instantiations serve every dtype).  A cast is one kernel
 * for all pairs: a switch on the source dtype loads the element as its
 * compute type, a switch on the destination converts and stores it, both
 * uniform across the grid.  The conversions are C's, as the CPU's cast
 * loops (cast.c) make them: float16, bfloat16 and float8 (tl_float8.h) go
 * through float32, a complex number to a real type keeps its real part,
 * anything to bool is "nonzero".  A float to an integer goes the way x86
 * code converts (tl_gpu_store), so negative floats wrap into unsigned types
 * as on the CPU; beyond the int64 (int32 for narrow types) range C leaves it
 * undefined: the CPU gives what x86 gives, CUDA saturates.                */
#include <cuda_bf16.h>
#include <cuda_fp16.h>

#include "gpu/tl_cuda_launch.cuh"
#include "ndcore/kernels/tl_linspace.h"
#include "ndcore/tensor/tl_float8.h"

/* ---- same-dtype moves ------------------------------------------------------------- */

struct alignas(16) tl_gpu_bytes16 {
  uint64_t lo, hi;
};

template <typename T> struct tl_gpu_move {
  using sig = T(T);
  TL_DEV T operator()(T x) const { return x; }
};

static int move_launch(const tl_gpu_plan *p, int itemsize, void *stream)
{
  const tl_gpu_params none = {};
  switch (itemsize) {
  case 1: return tl_gpu_launch<tl_gpu_move<uint8_t>>(p, &none, stream);
  case 2: return tl_gpu_launch<tl_gpu_move<uint16_t>>(p, &none, stream);
  case 4: return tl_gpu_launch<tl_gpu_move<uint32_t>>(p, &none, stream);
  case 8: return tl_gpu_launch<tl_gpu_move<uint64_t>>(p, &none, stream);
  default: return tl_gpu_launch<tl_gpu_move<tl_gpu_bytes16>>(p, &none, stream);
  }
}

/* ---- conversions ------------------------------------------------------------------ */

template <typename T> TL_DEV bool tl_gpu_nonzero(T x) { return x != 0; }
template <typename R> TL_DEV bool tl_gpu_nonzero(tl_cx<R> z) { return z.re != 0 || z.im != 0; }
template <typename T> TL_DEV T tl_gpu_real(T x) { return x; }
template <typename R> TL_DEV R tl_gpu_real(tl_cx<R> z) { return z.re; }

/* x (a compute type) stored as dtype `to` at p. */
template <typename S> TL_DEV void tl_gpu_store(int to, char *p, S x)
{
  /* A float to an integer converts as x86 code does C's cast (the CPU's
   * loops, and NumPy): narrow integers through int32, uint32 through int64
   * (cvttsd2si into a 64-bit register), uint64 through int64 below 2^63.  So
   * a negative float to an unsigned type wraps (-1.0 to 4294967295 for
   * uint32), where CUDA's own conversions to unsigned saturate to 0. */
  auto narrow = [](S v) {
    auto r = tl_gpu_real(v);
    if constexpr (cuda::std::is_floating_point_v<decltype(r)>)
      return (int32_t)r;
    else
      return r;
  };
  auto to_u32 = [](S v) {
    auto r = tl_gpu_real(v);
    if constexpr (cuda::std::is_floating_point_v<decltype(r)>)
      return (uint32_t)(int64_t)r;
    else
      return (uint32_t)r;
  };
  auto to_u64 = [](S v) {
    auto r = tl_gpu_real(v);
    if constexpr (cuda::std::is_floating_point_v<decltype(r)>)
      return r < (decltype(r))9223372036854775808.0 ? (uint64_t)(int64_t)r : (uint64_t)r;
    else
      return (uint64_t)r;
  };
  switch (to) {
  case TL_DTYPE_BOOL: *(bool *)p = tl_gpu_nonzero(x); break;
  case TL_DTYPE_U8: *(uint8_t *)p = (uint8_t)narrow(x); break;
  case TL_DTYPE_U16: *(uint16_t *)p = (uint16_t)narrow(x); break;
  case TL_DTYPE_U32: *(uint32_t *)p = to_u32(x); break;
  case TL_DTYPE_U64: *(uint64_t *)p = to_u64(x); break;
  case TL_DTYPE_I8: *(int8_t *)p = (int8_t)narrow(x); break;
  case TL_DTYPE_I16: *(int16_t *)p = (int16_t)narrow(x); break;
  case TL_DTYPE_I32: *(int32_t *)p = (int32_t)tl_gpu_real(x); break;
  case TL_DTYPE_I64: *(int64_t *)p = (int64_t)tl_gpu_real(x); break;
  case TL_DTYPE_F16: *(__half *)p = __float2half_rn((float)tl_gpu_real(x)); break;
  case TL_DTYPE_BF16: *(__nv_bfloat16 *)p = __float2bfloat16_rn((float)tl_gpu_real(x)); break;
  case TL_DTYPE_F32: *(float *)p = (float)tl_gpu_real(x); break;
  case TL_DTYPE_F64: *(double *)p = (double)tl_gpu_real(x); break;
  case TL_DTYPE_C64: *(tl_cfloat *)p = tl_cfloat(x); break;
  case TL_DTYPE_C128: *(tl_cdouble *)p = tl_cdouble(x); break;
  /* float8 from float32, as the CPU: a double is rounded to float first */
  case TL_DTYPE_F8E4M3FN: *(uint8_t *)p = tl_f32_to_f8e4m3fn((float)tl_gpu_real(x)); break;
  case TL_DTYPE_F8E5M2: *(uint8_t *)p = tl_f32_to_f8e5m2((float)tl_gpu_real(x)); break;
  case TL_DTYPE_F8E4M3FNUZ: *(uint8_t *)p = tl_f32_to_f8e4m3fnuz((float)tl_gpu_real(x)); break;
  case TL_DTYPE_F8E5M2FNUZ: *(uint8_t *)p = tl_f32_to_f8e5m2fnuz((float)tl_gpu_real(x)); break;
  default: *(uint8_t *)p = tl_f32_to_e8m0((float)tl_gpu_real(x)); break;
  }
}

/* The element of dtype `from` at src, stored as dtype `to` at dst. */
TL_DEV void tl_gpu_convert(int to, char *dst, int from, const char *src)
{
  switch (from) {
  case TL_DTYPE_BOOL: tl_gpu_store(to, dst, *(const bool *)src); break;
  case TL_DTYPE_U8: tl_gpu_store(to, dst, *(const uint8_t *)src); break;
  case TL_DTYPE_U16: tl_gpu_store(to, dst, *(const uint16_t *)src); break;
  case TL_DTYPE_U32: tl_gpu_store(to, dst, *(const uint32_t *)src); break;
  case TL_DTYPE_U64: tl_gpu_store(to, dst, *(const uint64_t *)src); break;
  case TL_DTYPE_I8: tl_gpu_store(to, dst, *(const int8_t *)src); break;
  case TL_DTYPE_I16: tl_gpu_store(to, dst, *(const int16_t *)src); break;
  case TL_DTYPE_I32: tl_gpu_store(to, dst, *(const int32_t *)src); break;
  case TL_DTYPE_I64: tl_gpu_store(to, dst, *(const int64_t *)src); break;
  case TL_DTYPE_F16: tl_gpu_store(to, dst, __half2float(*(const __half *)src)); break;
  case TL_DTYPE_BF16: tl_gpu_store(to, dst, __bfloat162float(*(const __nv_bfloat16 *)src)); break;
  case TL_DTYPE_F32: tl_gpu_store(to, dst, *(const float *)src); break;
  case TL_DTYPE_F64: tl_gpu_store(to, dst, *(const double *)src); break;
  case TL_DTYPE_C64: tl_gpu_store(to, dst, *(const tl_cfloat *)src); break;
  case TL_DTYPE_C128: tl_gpu_store(to, dst, *(const tl_cdouble *)src); break;
  case TL_DTYPE_F8E4M3FN: tl_gpu_store(to, dst, tl_f8e4m3fn_to_f32(*(const uint8_t *)src)); break;
  case TL_DTYPE_F8E5M2: tl_gpu_store(to, dst, tl_f8e5m2_to_f32(*(const uint8_t *)src)); break;
  case TL_DTYPE_F8E4M3FNUZ: tl_gpu_store(to, dst, tl_f8e4m3fnuz_to_f32(*(const uint8_t *)src)); break;
  case TL_DTYPE_F8E5M2FNUZ: tl_gpu_store(to, dst, tl_f8e5m2fnuz_to_f32(*(const uint8_t *)src)); break;
  default: tl_gpu_store(to, dst, tl_e8m0_to_f32(*(const uint8_t *)src)); break;
  }
}

static __global__ void cast_kernel(const tl_gpu_plan p, int to, int from, bool index32)
{
  const int64_t step = (int64_t)gridDim.x * blockDim.x;
  for (int64_t i = (int64_t)blockIdx.x * blockDim.x + threadIdx.x; i < p.numel; i += step) {
    int64_t off[TL_GPU_MAX_OPERANDS];
    tl_gpu_offsets_at(p, i, off, index32);
    const char *src = p.host_scalar & 2u ? (const char *)p.scalar[1] : p.data[1] + off[1];
    tl_gpu_convert(to, p.data[0] + off[0], from, src);
  }
}

extern "C" int tl_gpu_copy_launch(const tl_gpu_plan *plan, int to, int from, void *stream)
{
  if (plan->numel == 0)
    return 0;
  if (to == from)
    return move_launch(plan, tl_dtype_sizes[to], stream);
  cast_kernel<<<tl_gpu_blocks(plan->numel), TL_GPU_THREADS, 0, (cudaStream_t)stream>>>(
      *plan, to, from, tl_gpu_index32(plan));
  return (int)cudaGetLastError();
}

/* ---- arange, linspace, eye ---------------------------------------------------------- */

/* Integral dtypes step in wrapping int64 from the truncated start and step;
 * the others in double (real part only, as the CPU). */
static __global__ void arange_kernel(char *out, int dtype, int64_t n, int64_t istart,
                                     int64_t istep, double start, double step, int itemsize,
                                     bool integral)
{
  const int64_t stride = (int64_t)gridDim.x * blockDim.x;
  for (int64_t i = (int64_t)blockIdx.x * blockDim.x + threadIdx.x; i < n; i += stride) {
    char *p = out + i * itemsize;
    if (integral)
      tl_gpu_store(dtype, p, (int64_t)((uint64_t)istart + (uint64_t)i * (uint64_t)istep));
    else
      tl_gpu_store(dtype, p, start + (double)i * step);
  }
}

extern "C" int tl_gpu_arange_launch(char *out, int dtype, int64_t n, int64_t istart,
                                    int64_t istep, const double start[2], const double step[2],
                                    void *stream)
{
  if (n == 0)
    return 0;
  bool integral = tl_dtype_kinds[dtype] <= TL_KIND_INT;
  arange_kernel<<<tl_gpu_blocks(n), TL_GPU_THREADS, 0, (cudaStream_t)stream>>>(
      out, dtype, n, istart, istep, start[0], step[0], tl_dtype_sizes[dtype], integral);
  return (int)cudaGetLastError();
}

/* linspace/logspace: value i of n evenly spaced ones, in the CPU kernel's
 * arithmetic (ndcore/kernels/tl_linspace.h, shared): the same bits on both
 * devices. */
static __global__ void linspace_kernel(char *out, int dtype, int64_t n, tl_cdouble a, tl_cdouble b,
                                       bool log, double base, int itemsize, bool complex)
{
  const int64_t stride = (int64_t)gridDim.x * blockDim.x;
  const bool f32 = dtype == TL_DTYPE_F32 || dtype == TL_DTYPE_C64;
  for (int64_t i = (int64_t)blockIdx.x * blockDim.x + threadIdx.x; i < n; i += stride) {
    char *p = out + i * itemsize;
    if (complex && log) { /* the exponent's parts, then base ** exponent */
      tl_cdouble x(tl_logspace_exponent(a.re, b.re, tl_linspace_step(a.re, b.re, n), i, n),
                   tl_logspace_exponent(a.im, b.im, tl_linspace_step(a.im, b.im, n), i, n));
      tl_gpu_store(dtype, p, pow(tl_cdouble(base), x));
    } else if (complex) {
      tl_gpu_store(dtype, p, tl_cdouble(tl_linspace_value(false, f32, a.re, b.re, 0, i, n),
                                        tl_linspace_value(false, f32, a.im, b.im, 0, i, n)));
    } else {
      tl_gpu_store(dtype, p, tl_linspace_value(log, f32, a.re, b.re, base, i, n));
    }
  }
}

extern "C" int tl_gpu_linspace_launch(char *out, int dtype, int64_t n, const double start[2],
                                      const double end[2], int log, double base, void *stream)
{
  if (n == 0)
    return 0;
  linspace_kernel<<<tl_gpu_blocks(n), TL_GPU_THREADS, 0, (cudaStream_t)stream>>>(
      out, dtype, n, tl_cdouble(start[0], start[1]), tl_cdouble(end[0], end[1]), log != 0, base,
      tl_dtype_sizes[dtype], tl_dtype_kinds[dtype] == TL_KIND_COMPLEX);
  return (int)cudaGetLastError();
}

static __global__ void scatter_value_kernel(char *out, int64_t stride, int64_t n, int itemsize,
                                            tl_gpu_bytes16 value)
{
  const int64_t step = (int64_t)gridDim.x * blockDim.x;
  for (int64_t i = (int64_t)blockIdx.x * blockDim.x + threadIdx.x; i < n; i += step)
    memcpy(out + i * stride, &value, (size_t)itemsize);
}

extern "C" int tl_gpu_scatter_value_launch(char *out, int64_t stride, int64_t n, int itemsize,
                                           const unsigned char *one, void *stream)
{
  if (n == 0)
    return 0;
  tl_gpu_bytes16 value;
  memcpy(&value, one, sizeof value);
  scatter_value_kernel<<<tl_gpu_blocks(n), TL_GPU_THREADS, 0, (cudaStream_t)stream>>>(
      out, stride, n, itemsize, value);
  return (int)cudaGetLastError();
}
