/* special.cu - CUDA launchers of the elementwise (op, dtype) pairs whose CPU
 * loop is hand-written (tl_gpu_special.h), all through the one launcher
 * (tl_cuda_launch.cuh):
 *
 *   digamma, _polygamma, i0e, i1e (float32, float64): the CPU's own series,
 *       from the header both devices compile (tl_special_scalar.h), in double;
 *       float32 converts once each way, as the CPU loops do.
 *   nan_to_num (float16, bfloat16): on the 16-bit patterns, with the C
 *       side's replacements (kernels_gpu.c defaults the infinities to the
 *       half type's own limits), rounded to the half type once, as the CPU.
 *   nextafter (float16, bfloat16): the next 16-bit pattern (tl_next16).
 *
 * Half types travel as uint16_t (the launcher moves them as such); the
 * conversions to and from float are exact one way and round to nearest
 * even the other, as the CPU's (tl_half.h). */
#include <cuda_bf16.h>
#include <cuda_fp16.h>

#include "gpu/special/tl_gpu_special.cuh"
#include "gpu/special/tl_gpu_special.h"
#include "ndcore/kernels/tl_special_scalar.h"

/* ---- the special functions, in double -------------------------------------------- */

struct tl_gpu_digamma_fn {
  TL_DEV double operator()(double x) const { return tl_digamma(x); }
};
struct tl_gpu_i0e_fn {
  TL_DEV double operator()(double x) const { return tl_i0e(x); }
};
struct tl_gpu_i1e_fn {
  TL_DEV double operator()(double x) const { return tl_i1e(x); }
};

/* _polygamma(x, n): the order n arrives in x's type (usually a host scalar). */
template <typename T> struct tl_gpu_polygamma {
  using sig = T(T, T);
  TL_DEV T operator()(T x, T n) const { return (T)tl_polygamma((double)x, (double)n); }
};

/* ---- float16 and bfloat16 as bit patterns --------------------------------------------- */

template <typename H> struct tl_gpu_half_bits;
template <> struct tl_gpu_half_bits<__half> {
  static TL_DEV float value(uint16_t b) { return __half2float(__ushort_as_half(b)); }
  static TL_DEV uint16_t bits(float f) { return __half_as_ushort(__float2half_rn(f)); }
};
template <> struct tl_gpu_half_bits<__nv_bfloat16> {
  static TL_DEV float value(uint16_t b) { return __bfloat162float(__ushort_as_bfloat16(b)); }
  static TL_DEV uint16_t bits(float f) { return __bfloat16_as_ushort(__float2bfloat16_rn(f)); }
};

/* nan_to_num in float, as tl_gpu_nan_to_num<float> (the replacements are
 * rounded to float first, as the CPU's half loops round them), stored as H. */
template <typename H> struct tl_gpu_nan_to_num_half : tl_gpu_nan_to_num<float> {
  using sig = uint16_t(uint16_t);
  using B = tl_gpu_half_bits<H>;
  TL_DEV explicit tl_gpu_nan_to_num_half(const tl_gpu_params &p) : tl_gpu_nan_to_num<float>(p) {}
  TL_DEV uint16_t operator()(uint16_t x) const { return B::bits(one(B::value(x))); }
};

template <typename H> struct tl_gpu_nextafter_half {
  using sig = uint16_t(uint16_t, uint16_t);
  using B = tl_gpu_half_bits<H>;
  TL_DEV uint16_t operator()(uint16_t a, uint16_t b) const
  {
    return tl_next16(a, b, B::value(a), B::value(b));
  }
};

/* ---- the rows --------------------------------------------------------------------- */

extern "C" const tl_gpu_entry tl_gpu_special_entries[] = {
    {TL_OP_DIGAMMA, TL_DTYPE_F32, &tl_gpu_launch<tl_gpu_in_double<float, tl_gpu_digamma_fn>>},
    {TL_OP_DIGAMMA, TL_DTYPE_F64, &tl_gpu_launch<tl_gpu_in_double<double, tl_gpu_digamma_fn>>},
    {TL_OP_POLYGAMMA, TL_DTYPE_F32, &tl_gpu_launch<tl_gpu_polygamma<float>>},
    {TL_OP_POLYGAMMA, TL_DTYPE_F64, &tl_gpu_launch<tl_gpu_polygamma<double>>},
    {TL_OP_I0E, TL_DTYPE_F32, &tl_gpu_launch<tl_gpu_in_double<float, tl_gpu_i0e_fn>>},
    {TL_OP_I0E, TL_DTYPE_F64, &tl_gpu_launch<tl_gpu_in_double<double, tl_gpu_i0e_fn>>},
    {TL_OP_I1E, TL_DTYPE_F32, &tl_gpu_launch<tl_gpu_in_double<float, tl_gpu_i1e_fn>>},
    {TL_OP_I1E, TL_DTYPE_F64, &tl_gpu_launch<tl_gpu_in_double<double, tl_gpu_i1e_fn>>},
    {TL_OP_NAN_TO_NUM, TL_DTYPE_F16, &tl_gpu_launch<tl_gpu_nan_to_num_half<__half>>},
    {TL_OP_NAN_TO_NUM, TL_DTYPE_BF16, &tl_gpu_launch<tl_gpu_nan_to_num_half<__nv_bfloat16>>},
    {TL_OP_NEXTAFTER, TL_DTYPE_F16, &tl_gpu_launch<tl_gpu_nextafter_half<__half>>},
    {TL_OP_NEXTAFTER, TL_DTYPE_BF16, &tl_gpu_launch<tl_gpu_nextafter_half<__nv_bfloat16>>},
    {0, 0, NULL},
};
