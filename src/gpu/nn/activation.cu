/* activation.cu - the activations and their backward on CUDA.
 *
 * The activation family's kernel set is one kind (tl_act_kind) and a block
 * of scalars (a, b, c); here each of its two entries is one templated
 * functor that switches on the kind, run by tl_cuda_launch.cuh's
 * elementwise launcher (any strides, broadcast weights, vector loads when
 * contiguous).  The kind is the same for every thread of a launch, so the
 * switch does not diverge.  Formulas are activation_cpu.c's, term for term,
 * in the work type T (float or double). */
#include "gpu/nn/tl_gpu_act_loss.h"
#include "gpu/tl_cuda_launch.cuh"

namespace {

constexpr double SQRT1_2 = 0.70710678118654752440;
constexpr double INV_SQRT_2PI = 0.39894228040143267794;
constexpr double SQRT_2_PI = 0.79788456080286535588; /* sqrt(2 / pi) */
constexpr double GELU_C = 0.044715;

template <typename T> struct act_args {
  T a, b, c;
  int kind, which;
  TL_DEV explicit act_args(const tl_gpu_params &p)
      : a((T)p.real[0]), b((T)p.real[1]), c((T)p.real[2]), kind((int)(p.i & 0xff)),
        which((int)(p.i >> 8))
  {
  }
};

/* y = f(x) (w: prelu's weight, glu's second half) */
template <typename T> TL_DEV T act_forward(const act_args<T> &k, T x, T w)
{
  const T a = k.a, b = k.b, c = k.c;
  switch (k.kind) {
  case TL_GPU_ACT_RELU: return x < 0 ? (T)0 : x;
  case TL_GPU_ACT_THRESHOLD: return x <= a ? b : x;
  case TL_GPU_ACT_LEAKY_RELU: return x > 0 ? x : x * a;
  case TL_GPU_ACT_ELU: return x > 0 ? b * x : b * a * expm1(x * c);
  case TL_GPU_ACT_GELU:
    if (a != 0)
      return (T)0.5 * x * (1 + tanh((T)SQRT_2_PI * (x + (T)GELU_C * x * x * x)));
    return (T)0.5 * x * (1 + erf(x * (T)SQRT1_2));
  case TL_GPU_ACT_SILU: return x / (1 + exp(-x));
  case TL_GPU_ACT_MISH: return x * tanh(x > 20 ? x : log1p(exp(x)));
  case TL_GPU_ACT_SOFTPLUS: return x * a > b ? x : log1p(exp(x * a)) / a;
  case TL_GPU_ACT_SOFTSIGN: return x / (1 + (x < 0 ? -x : x));
  case TL_GPU_ACT_HARDTANH: return x < a ? a : (x > b ? b : x);
  case TL_GPU_ACT_HARDSIGMOID: {
    T v = x / 6 + (T)0.5;
    return v < 0 ? (T)0 : (v > 1 ? (T)1 : v);
  }
  case TL_GPU_ACT_HARDSWISH: {
    T v = x + 3;
    return x * (v < 0 ? (T)0 : (v > 6 ? (T)6 : v)) / 6;
  }
  case TL_GPU_ACT_HARDSHRINK: return x >= -a && x <= a ? (T)0 : x;
  case TL_GPU_ACT_SOFTSHRINK: return x > a ? x - a : (x < -a ? x + a : (x == x ? (T)0 : x));
  case TL_GPU_ACT_TANHSHRINK: return x - tanh(x);
  case TL_GPU_ACT_LOG_SIGMOID: return (x < 0 ? x : (T)0) - log1p(exp(x < 0 ? x : -x));
  case TL_GPU_ACT_PRELU: return x > 0 ? x : w * x;
  case TL_GPU_ACT_GLU: return x / (1 + exp(-w));
  default: return x;
  }
}

/* dx = g f'(x) for the kinds of one operand (relu: x is the output) */
template <typename T> TL_DEV T act_backward(const act_args<T> &k, T g, T x)
{
  const T a = k.a, b = k.b, c = k.c;
  switch (k.kind) {
  case TL_GPU_ACT_RELU:
  case TL_GPU_ACT_THRESHOLD: return x <= a ? (T)0 : g;
  case TL_GPU_ACT_LEAKY_RELU: return x > 0 ? g : g * a;
  case TL_GPU_ACT_ELU: return x > 0 ? g * b : g * b * a * c * exp(x * c);
  case TL_GPU_ACT_GELU:
    if (a != 0) {
      T kk = (T)SQRT_2_PI, t = tanh(kk * (x + (T)GELU_C * x * x * x));
      T du = kk * (1 + 3 * (T)GELU_C * x * x);
      return g * ((T)0.5 * (1 + t) + (T)0.5 * x * (1 - t * t) * du);
    } else {
      T cdf = (T)0.5 * (1 + erf(x * (T)SQRT1_2));
      return g * (cdf + x * (T)INV_SQRT_2PI * exp((T)-0.5 * x * x));
    }
  case TL_GPU_ACT_SILU: {
    T s = 1 / (1 + exp(-x));
    return g * s * (1 + x * (1 - s));
  }
  case TL_GPU_ACT_MISH: {
    T s = 1 / (1 + exp(-x)), t = tanh(x > 20 ? x : log1p(exp(x)));
    return g * (t + x * s * (1 - t * t));
  }
  case TL_GPU_ACT_SOFTPLUS: return x * a > b ? g : g / (1 + exp(-x * a));
  case TL_GPU_ACT_SOFTSIGN: {
    T d = 1 + (x < 0 ? -x : x);
    return g / (d * d);
  }
  case TL_GPU_ACT_HARDTANH: return x <= a || x >= b ? (T)0 : g;
  case TL_GPU_ACT_HARDSIGMOID: return x > -3 && x < 3 ? g / 6 : (T)0;
  case TL_GPU_ACT_HARDSWISH: return x <= -3 ? (T)0 : (x < 3 ? g * (x / 3 + (T)0.5) : g);
  case TL_GPU_ACT_HARDSHRINK:
  case TL_GPU_ACT_SOFTSHRINK: return x >= -a && x <= a ? (T)0 : g;
  case TL_GPU_ACT_TANHSHRINK: {
    T t = tanh(x);
    return g * t * t;
  }
  case TL_GPU_ACT_LOG_SIGMOID: {
    T e = exp(x < 0 ? x : -x);
    return g * (x < 0 ? (T)1 : e) / (1 + e);
  }
  default: return g;
  }
}

/* prelu and glu: the gradient of x (which 0) or of w (which 1) */
template <typename T> TL_DEV T act_backward2(const act_args<T> &k, T g, T x, T w)
{
  if (k.kind == TL_GPU_ACT_PRELU)
    return k.which ? (x > 0 ? (T)0 : x * g) : (x > 0 ? g : w * g);
  T s = 1 / (1 + exp(-w)); /* glu: x = a, w = b */
  return k.which ? g * x * s * (1 - s) : g * s;
}

template <typename T> struct act_unary : act_args<T> {
  using sig = T(T);
  TL_DEV explicit act_unary(const tl_gpu_params &p) : act_args<T>(p) {}
  TL_DEV T operator()(T x) const { return act_forward(*this, x, x); }
};
template <typename T> struct act_binary : act_args<T> {
  using sig = T(T, T);
  TL_DEV explicit act_binary(const tl_gpu_params &p) : act_args<T>(p) {}
  TL_DEV T operator()(T x, T w) const { return act_forward(*this, x, w); }
};
template <typename T> struct act_grad : act_args<T> {
  using sig = T(T, T);
  TL_DEV explicit act_grad(const tl_gpu_params &p) : act_args<T>(p) {}
  TL_DEV T operator()(T g, T x) const { return act_backward(*this, g, x); }
};
template <typename T> struct act_grad2 : act_args<T> {
  using sig = T(T, T, T);
  TL_DEV explicit act_grad2(const tl_gpu_params &p) : act_args<T>(p) {}
  TL_DEV T operator()(T g, T x, T w) const { return act_backward2(*this, g, x, w); }
};

} // namespace

extern "C" int tl_gpu_act_forward_launch(int f64, int arity, const tl_gpu_plan *plan,
                                         const tl_gpu_params *params, void *stream)
{
  if (arity == 2)
    return f64 ? tl_gpu_launch<act_binary<double>>(plan, params, stream)
               : tl_gpu_launch<act_binary<float>>(plan, params, stream);
  return f64 ? tl_gpu_launch<act_unary<double>>(plan, params, stream)
             : tl_gpu_launch<act_unary<float>>(plan, params, stream);
}

extern "C" int tl_gpu_act_backward_launch(int f64, int arity, const tl_gpu_plan *plan,
                                          const tl_gpu_params *params, void *stream)
{
  if (arity == 3)
    return f64 ? tl_gpu_launch<act_grad2<double>>(plan, params, stream)
               : tl_gpu_launch<act_grad2<float>>(plan, params, stream);
  return f64 ? tl_gpu_launch<act_grad<double>>(plan, params, stream)
             : tl_gpu_launch<act_grad<float>>(plan, params, stream);
}
