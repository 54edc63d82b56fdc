/* tl_cuda_math.cuh - the scalar vocabulary of the generated kernel bodies, on
 * the device.
 *
 * scripts/gen_kernels.py holds each elementwise op's body once, as C text over
 * the element types (T, U, R), and writes it out for the CPU (C11 with
 * <tgmath.h>) and for CUDA (generated/cuda_*.inc).  The CPU spelling uses C's
 * complex types and functions (creal, cimag, CMPLX, carg, conj, cexp through
 * tgmath); this header gives the same names on the device:
 *   tl_cx<R>   a complex number whose arithmetic mixes with any real or
 *              integer operand as C's does (cuda::std::complex does not:
 *              `1 + z` fails to deduce there), with C's Annex G products and
 *              quotients from cuda::std::complex;
 *   creal, cimag, conj, carg, CMPLX, and exp, log, sqrt, the trigonometric
 *   and hyperbolic functions, pow and fabs (the modulus) for tl_cx;
 *   tl_k_negative(_u), tl_ln2, tl_ln10 as in tl_kernels.h.
 * Real float and double functions are CUDA's own overloads.             */
#ifndef TL_CUDA_MATH_CUH
#define TL_CUDA_MATH_CUH

#include <stdint.h>

#include <cuda/std/complex>
#include <cuda/std/type_traits>

#define TL_DEV __device__ __forceinline__
#define TL_HD __host__ __device__ __forceinline__

static constexpr double tl_ln2 = 0.693147180559945309417232121458176568;
static constexpr double tl_ln10 = 2.30258509299404568401799145468436421;

/* x < 0 for any integer type, without "always false" warnings on unsigned ones. */
TL_DEV bool tl_k_negative(int64_t x) { return x < 0; }
TL_DEV bool tl_k_negative_u(uint64_t x) { (void)x; return false; }

template <typename R> struct alignas(2 * sizeof(R)) tl_cx {
  R re, im;
  using std_type = cuda::std::complex<R>;
  tl_cx() = default;
  TL_HD tl_cx(R r, R i) : re(r), im(i) {}
  template <typename S, typename = cuda::std::enable_if_t<cuda::std::is_arithmetic_v<S>>>
  TL_HD tl_cx(S r) : re((R)r), im(0) {}
  template <typename R2> TL_HD tl_cx(tl_cx<R2> z) : re((R)z.re), im((R)z.im) {}
  TL_HD tl_cx(std_type z) : re(z.real()), im(z.imag()) {}
  TL_HD std_type std() const { return std_type(re, im); }
  TL_DEV tl_cx &operator*=(tl_cx b) { return *this = tl_cx(std() * b.std()); }
};

typedef tl_cx<float> tl_cfloat;
typedef tl_cx<double> tl_cdouble;

template <typename T> struct tl_is_cx : cuda::std::false_type {};
template <typename R> struct tl_is_cx<tl_cx<R>> : cuda::std::true_type {};
/* An operand that mixes with tl_cx<R>: a real or integer scalar. */
template <typename S>
using tl_if_real = cuda::std::enable_if_t<cuda::std::is_arithmetic_v<S>, int>;

template <typename R> TL_DEV tl_cx<R> operator-(tl_cx<R> a) { return tl_cx<R>(-a.re, -a.im); }
template <typename R> TL_DEV tl_cx<R> operator+(tl_cx<R> a, tl_cx<R> b) { return tl_cx<R>(a.re + b.re, a.im + b.im); }
template <typename R> TL_DEV tl_cx<R> operator-(tl_cx<R> a, tl_cx<R> b) { return tl_cx<R>(a.re - b.re, a.im - b.im); }
template <typename R> TL_DEV tl_cx<R> operator*(tl_cx<R> a, tl_cx<R> b) { return tl_cx<R>(a.std() * b.std()); }
template <typename R> TL_DEV tl_cx<R> operator/(tl_cx<R> a, tl_cx<R> b) { return tl_cx<R>(a.std() / b.std()); }
template <typename R> TL_DEV bool operator==(tl_cx<R> a, tl_cx<R> b) { return a.re == b.re && a.im == b.im; }
template <typename R> TL_DEV bool operator!=(tl_cx<R> a, tl_cx<R> b) { return !(a == b); }
/* A real operand on either side: C converts it to the complex type first. */
#define TL_CX_MIXED(OP, RET)                                                                      \
  template <typename R, typename S, tl_if_real<S> = 0> TL_DEV RET operator OP(tl_cx<R> a, S b)    \
  {                                                                                               \
    return a OP tl_cx<R>(b);                                                                      \
  }                                                                                               \
  template <typename R, typename S, tl_if_real<S> = 0> TL_DEV RET operator OP(S a, tl_cx<R> b)    \
  {                                                                                               \
    return tl_cx<R>(a) OP b;                                                                      \
  }
TL_CX_MIXED(+, tl_cx<R>)
TL_CX_MIXED(-, tl_cx<R>)
TL_CX_MIXED(*, tl_cx<R>)
TL_CX_MIXED(/, tl_cx<R>)
TL_CX_MIXED(==, bool)
TL_CX_MIXED(!=, bool)
#undef TL_CX_MIXED

template <typename R> TL_DEV R creal(tl_cx<R> z) { return z.re; }
template <typename R> TL_DEV R cimag(tl_cx<R> z) { return z.im; }
template <typename R> TL_DEV tl_cx<R> conj(tl_cx<R> z) { return tl_cx<R>(z.re, -z.im); }
template <typename R> TL_DEV R carg(tl_cx<R> z) { return atan2(z.im, z.re); }
/* tgmath's fabs of a complex is its modulus (cabs). */
template <typename R> TL_DEV R fabs(tl_cx<R> z) { return hypot(z.re, z.im); }
/* C's CMPLX(re, im): the complex of the parts' common type. */
template <typename A, typename B>
TL_DEV tl_cx<cuda::std::common_type_t<A, B>> CMPLX(A re, B im)
{
  typedef cuda::std::common_type_t<A, B> R;
  return tl_cx<R>((R)re, (R)im);
}

#define TL_CX_FN(NAME)                                                                            \
  template <typename R> TL_DEV tl_cx<R> NAME(tl_cx<R> z) { return tl_cx<R>(cuda::std::NAME(z.std())); }
TL_CX_FN(exp)
TL_CX_FN(log)
TL_CX_FN(sqrt)
TL_CX_FN(sin)
TL_CX_FN(cos)
TL_CX_FN(tan)
TL_CX_FN(asin)
TL_CX_FN(acos)
TL_CX_FN(atan)
TL_CX_FN(sinh)
TL_CX_FN(cosh)
TL_CX_FN(tanh)
TL_CX_FN(asinh)
TL_CX_FN(acosh)
TL_CX_FN(atanh)
#undef TL_CX_FN
template <typename R> TL_DEV tl_cx<R> pow(tl_cx<R> a, tl_cx<R> b)
{
  return tl_cx<R>(cuda::std::pow(a.std(), b.std()));
}

#endif
