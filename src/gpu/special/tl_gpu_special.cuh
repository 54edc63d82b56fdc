/* tl_gpu_special.cuh - the functors that apply a scalar special function of
 * src/ndcore/kernels/tl_special_*.h (double in, double out) to the
 * launcher's elements of type T (float32 converts once each way, as the
 * CPU loops do).  F is a stateless struct whose operator() calls the
 * function: TL_GPU_SPECIAL_FN declares one.                              */
#ifndef TL_GPU_SPECIAL_CUH
#define TL_GPU_SPECIAL_CUH

#include "gpu/tl_cuda_launch.cuh"

template <typename T, typename F> struct tl_gpu_in_double {
  using sig = T(T);
  TL_DEV T operator()(T x) const { return (T)F()((double)x); }
};

template <typename T, typename F> struct tl_gpu_in_double2 {
  using sig = T(T, T);
  TL_DEV T operator()(T x, T y) const { return (T)F()((double)x, (double)y); }
};

/* struct NAME calling FN(x) or FN(x, y) in double */
#define TL_GPU_SPECIAL_FN(NAME, FN)                                                   \
  struct NAME {                                                                       \
    template <typename... A> TL_DEV double operator()(A... a) const { return FN(a...); } \
  };

/* the two rows (float32, float64) of op OP computing FN through functor NAME */
#define TL_GPU_SPECIAL_ROWS(OP, WRAP, NAME)                                            \
  {OP, TL_DTYPE_F32, &tl_gpu_launch<WRAP<float, NAME>>},                              \
  {OP, TL_DTYPE_F64, &tl_gpu_launch<WRAP<double, NAME>>}

#endif
