/* linalg_kernels.cu - the few device kernels the linalg family needs besides
 * cuBLAS and cuSOLVER (tl_gpu_linalg_kernels.h).  Kernels move elements as
 * opaque words of their size, so one instantiation serves every dtype of
 * that size: 3 kernels; the determinants one per compute dtype: 4.         */
#include <cuda_runtime.h>

#include "gpu/linalg/tl_gpu_linalg_kernels.h"

namespace {

template <typename W>
__global__ void keep_triangle_kernel(W *m, int64_t total, int64_t rows, int64_t cols,
                                     bool keep_lower)
{
  const int64_t size = rows * cols;
  for (int64_t i = (int64_t)blockIdx.x * blockDim.x + threadIdx.x; i < total;
       i += (int64_t)gridDim.x * blockDim.x) {
    int64_t e = i % size, r = e / cols, c = e % cols;
    if (keep_lower ? c > r : c < r)
      m[i] = W{};
  }
}

template <typename W>
int launch_keep_triangle(void *data, int64_t count, int64_t rows, int64_t cols, bool keep_lower,
                         cudaStream_t s)
{
  const int64_t total = count * rows * cols;
  const int threads = 256;
  int64_t blocks = (total + threads - 1) / threads;
  if (blocks > 65535)
    blocks = 65535; /* the grid-stride loop covers the rest */
  keep_triangle_kernel<W><<<(unsigned)blocks, threads, 0, s>>>((W *)data, total, rows, cols,
                                                               keep_lower);
  return (int)cudaGetLastError();
}

/* ---- determinants from LU ---------------------------------------------------------- */

/* Elements as (re, im) in double, and back. */
__device__ double2 load(float v) { return make_double2(v, 0); }
__device__ double2 load(double v) { return make_double2(v, 0); }
__device__ double2 load(float2 v) { return make_double2(v.x, v.y); }
__device__ double2 load(double2 v) { return v; }
__device__ void store(double2 v, float *p) { *p = (float)v.x; }
__device__ void store(double2 v, double *p) { *p = v.x; }
__device__ void store(double2 v, float2 *p) { *p = make_float2((float)v.x, (float)v.y); }
__device__ void store(double2 v, double2 *p) { *p = v; }

__device__ double2 cmul(double2 a, double2 b)
{
  return make_double2(a.x * b.x - a.y * b.y, a.x * b.y + a.y * b.x);
}

/* T: the element type; R: its real type; C: is T complex. */
template <typename T, typename R, bool C>
__global__ void lu_det_kernel(const T *lu, const int *ipiv, int64_t count, int64_t n, T *det,
                              T *logdet, T *sign, R *logabs)
{
  for (int64_t i = (int64_t)blockIdx.x * blockDim.x + threadIdx.x; i < count;
       i += (int64_t)gridDim.x * blockDim.x) {
    const T *m = lu + i * n * n;
    const int *ip = ipiv + i * n;
    double2 phase = make_double2(1, 0), prod = make_double2(1, 0);
    double logsum = 0;
    for (int64_t j = 0; j < n; j++) {
      double2 v = load(m[j * n + j]);
      if (ip[j] != j + 1) { /* each row interchange flips the sign */
        phase = make_double2(-phase.x, -phase.y);
        prod = make_double2(-prod.x, -prod.y);
      }
      prod = cmul(prod, v);
      double av = hypot(v.x, v.y);
      phase = av == 0 ? make_double2(0, 0) : cmul(phase, make_double2(v.x / av, v.y / av));
      logsum += log(av);
    }
    const bool zero = phase.x == 0 && phase.y == 0;
    if (det)
      store(prod, det + i);
    if (logdet) { /* log(det): NaN for a negative real det, -inf for a zero one */
      double2 v = zero ? make_double2(-INFINITY, 0) : make_double2(logsum, atan2(phase.y, phase.x));
      if (!C && !zero && phase.x < 0)
        v.x = NAN;
      store(v, logdet + i);
    }
    if (sign) {
      store(phase, sign + i);
      logabs[i] = (R)(zero ? -INFINITY : logsum);
    }
  }
}

template <typename T, typename R, bool C>
int launch_lu_det(const void *lu, const int *ipiv, int64_t count, int64_t n, void *det,
                  void *logdet, void *sign, void *logabs, cudaStream_t s)
{
  const int threads = 128;
  int64_t blocks = (count + threads - 1) / threads;
  if (blocks > 65535)
    blocks = 65535;
  lu_det_kernel<T, R, C><<<(unsigned)blocks, threads, 0, s>>>(
      (const T *)lu, ipiv, count, n, (T *)det, (T *)logdet, (T *)sign, (R *)logabs);
  return (int)cudaGetLastError();
}

} // namespace

extern "C" int tl_gpu_lu_det(int kind, const void *lu, const int *ipiv, int64_t count, int64_t n,
                             void *det, void *logdet, void *sign, void *logabs, void *stream)
{
  if (count <= 0)
    return 0;
  cudaStream_t s = (cudaStream_t)stream;
  switch (kind) {
  case 0: return launch_lu_det<float, float, false>(lu, ipiv, count, n, det, logdet, sign, logabs, s);
  case 1: return launch_lu_det<double, double, false>(lu, ipiv, count, n, det, logdet, sign, logabs, s);
  case 2: return launch_lu_det<float2, float, true>(lu, ipiv, count, n, det, logdet, sign, logabs, s);
  default: return launch_lu_det<double2, double, true>(lu, ipiv, count, n, det, logdet, sign, logabs, s);
  }
}

extern "C" int tl_gpu_keep_triangle(void *data, int64_t count, int64_t rows, int64_t cols,
                                    int elem_size, bool keep_lower, void *stream)
{
  if (count <= 0 || rows * cols <= 1)
    return 0;
  cudaStream_t s = (cudaStream_t)stream;
  switch (elem_size) {
  case 4: return launch_keep_triangle<uint32_t>(data, count, rows, cols, keep_lower, s);
  case 8: return launch_keep_triangle<uint64_t>(data, count, rows, cols, keep_lower, s);
  default: return launch_keep_triangle<uint4>(data, count, rows, cols, keep_lower, s);
  }
}
