/* im2col.cu - im2col and col2im (unfold and fold) on CUDA (tl_gpu_conv.h),
 * over 1 to 3 spatial dims: one thread per element written.  im2col is a
 * copy, so it moves elements of their own size (no work dtype); col2im sums
 * the windows overlapping each pixel in kernel-offset order, reading the
 * columns as a gather, so that no two threads write one element. */
#include "gpu/nn/tl_gpu_conv.h"
#include "gpu/nn/tl_cuda_grid.cuh"

namespace {

/* The fold's window size K, window count L and image plane P, each a
 * product over the spatial dims. */
__device__ __forceinline__ void fold_sizes(const tl_gpu_fold &f, int64_t &K, int64_t &L,
                                           int64_t &P)
{
  K = L = P = 1;
  for (int d = 0; d < f.nsp; d++) {
    K *= f.kernel[d];
    L *= f.small[d];
    P *= f.big[d];
  }
}

/* cols[n, c*K + k, l] = image[n, c, l's window start + k's offset], or 0 */
template <typename E> __global__ void im2col(tl_gpu_fold f, const E *image, E *cols)
{
  int64_t K, L, P;
  fold_sizes(f, K, L, P);
  TL_GPU_GRID_LOOP(e, f.N * f.C * K * L)
  {
    int64_t l = e % L, k = e / L % K, nc = e / (L * K), off = 0;
    bool inside = true;
    for (int d = f.nsp - 1; d >= 0; d--) {
      int64_t o = l % f.small[d], q = k % f.kernel[d];
      l /= f.small[d];
      k /= f.kernel[d];
      int64_t i = o * f.stride[d] + q * f.dilation[d] - f.padding[d];
      inside = inside && i >= 0 && i < f.big[d];
      int64_t step = 1;
      for (int e2 = d + 1; e2 < f.nsp; e2++)
        step *= f.big[e2];
      off += i * step;
    }
    cols[e] = inside ? image[nc * P + off] : E(0);
  }
}

/* image[n, c, p] = sum over k of cols[n, c*K + k, the window reading p at k] */
template <typename R> __global__ void col2im(tl_gpu_fold f, const R *cols, R *image)
{
  int64_t K, L, P;
  fold_sizes(f, K, L, P);
  TL_GPU_GRID_LOOP(e, f.N * f.C * P)
  {
    int64_t p = e % P, nc = e / P, pos[3];
    for (int d = f.nsp - 1; d >= 0; d--) {
      pos[d] = p % f.big[d];
      p /= f.big[d];
    }
    R s = 0;
    for (int64_t k = 0; k < K; k++) {
      int64_t rest = k, l = 0, step = 1;
      bool hit = true;
      for (int d = f.nsp - 1; d >= 0 && hit; d--) {
        int64_t q = rest % f.kernel[d];
        rest /= f.kernel[d];
        int64_t t = pos[d] + f.padding[d] - q * f.dilation[d];
        hit = t >= 0 && t % f.stride[d] == 0 && t / f.stride[d] < f.small[d];
        l += (hit ? t / f.stride[d] : 0) * step;
        step *= f.small[d];
      }
      if (hit)
        s += cols[(nc * K + k) * L + l];
    }
    image[e] = s;
  }
}

} // namespace

extern "C" int tl_gpu_im2col_launch(const tl_gpu_fold *f, const void *image, void *cols, int esize,
                                    void *stream)
{
  int64_t n = f->N * f->C;
  for (int d = 0; d < f->nsp; d++)
    n *= f->kernel[d] * f->small[d];
  if (n == 0)
    return 0;
  cudaStream_t s = (cudaStream_t)stream;
  unsigned g = tl_gpu_blocks(n);
  switch (esize) {
  case 2:
    im2col<uint16_t><<<g, TL_GPU_THREADS, 0, s>>>(*f, (const uint16_t *)image, (uint16_t *)cols);
    break;
  case 4:
    im2col<uint32_t><<<g, TL_GPU_THREADS, 0, s>>>(*f, (const uint32_t *)image, (uint32_t *)cols);
    break;
  default:
    im2col<uint64_t><<<g, TL_GPU_THREADS, 0, s>>>(*f, (const uint64_t *)image, (uint64_t *)cols);
    break;
  }
  return (int)cudaGetLastError();
}

extern "C" int tl_gpu_col2im_launch(const tl_gpu_fold *f, const void *cols, void *image, int f64,
                                    void *stream)
{
  int64_t n = f->N * f->C;
  for (int d = 0; d < f->nsp; d++)
    n *= f->big[d];
  if (n == 0)
    return 0;
  cudaStream_t s = (cudaStream_t)stream;
  if (f64)
    col2im<double>
        <<<tl_gpu_blocks(n), TL_GPU_THREADS, 0, s>>>(*f, (const double *)cols, (double *)image);
  else
    col2im<float>
        <<<tl_gpu_blocks(n), TL_GPU_THREADS, 0, s>>>(*f, (const float *)cols, (float *)image);
  return (int)cudaGetLastError();
}
