/* eig_pairs.cu - real geev's eigenvalues and eigenvectors spelled out as
 * complex (tl_gpu_eig_pairs.h), the CPU's loop (linalg.c) with one thread
 * per element of V (per eigenvalue without vectors): instantiated for
 * float and double only, 2 kernels.                                      */
#include <cuda_runtime.h>

#include "gpu/linalg/tl_gpu_eig_pairs.h"

namespace {

template <typename R> struct complex_of;
template <> struct complex_of<float> { using type = float2; };
template <> struct complex_of<double> { using type = double2; };

template <typename R, typename C>
__global__ void eig_pairs_kernel(const R *wri, const R *vr, int64_t count, int64_t n, C *w, C *v)
{
  const int64_t rows = v ? n : 1, total = count * n * rows;
  for (int64_t t = (int64_t)blockIdx.x * blockDim.x + threadIdx.x; t < total;
       t += (int64_t)gridDim.x * blockDim.x) {
    const int64_t i = t / (n * rows), e = t - i * n * rows, j = e / rows, row = e - j * rows;
    const R *wr = wri + i * 2 * n, *wi = wr + n;
    const R im = wi[j];
    if (row == 0)
      w[i * n + j] = C{wr[j], im};
    if (!v)
      continue;
    const R *col = vr + i * n * n; /* column c of matrix i: col + c * n */
    C x;
    if (im == 0)
      x = C{col[j * n + row], 0};
    else if (im > 0 && j + 1 < n) /* the pair's first member: re + i im */
      x = C{col[j * n + row], col[(j + 1) * n + row]};
    else /* its second: the conjugate, re - i im, from the columns before */
      x = C{col[(j > 0 ? j - 1 : 0) * n + row], -col[j * n + row]};
    v[(i * n + j) * n + row] = x;
  }
}

template <typename R>
int launch(const void *wri, const void *vr, int64_t count, int64_t n, void *w, void *v,
           cudaStream_t s)
{
  using C = typename complex_of<R>::type;
  const int64_t total = count * n * (v ? n : 1);
  const int threads = 256;
  int64_t blocks = (total + threads - 1) / threads;
  if (blocks > 65535)
    blocks = 65535; /* the grid-stride loop covers the rest */
  eig_pairs_kernel<R, C><<<(unsigned)blocks, threads, 0, s>>>((const R *)wri, (const R *)vr,
                                                              count, n, (C *)w, (C *)v);
  return (int)cudaGetLastError();
}

} // namespace

extern "C" int tl_gpu_eig_pairs(bool dbl, const void *wri, const void *vr, int64_t count,
                                int64_t n, void *w, void *v, void *stream)
{
  if (count <= 0 || n <= 0)
    return 0;
  cudaStream_t s = (cudaStream_t)stream;
  return dbl ? launch<double>(wri, vr, count, n, w, v, s) : launch<float>(wri, vr, count, n, w, v, s);
}
