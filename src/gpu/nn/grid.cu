/* grid.cu - grid_sampler, affine_grid_generator and their backward on CUDA
 * (tl_grid.h's legend).
 *
 * The taps of a grid point (pixels, weights, derivatives) are
 * nn/grid/grid_taps.h's, the CPU's own arithmetic compiled here once per
 * work type, so both devices read the same pixels.
 *   sample     a thread per output point: its taps once, then every
 *              channel (writes are coalesced across neighbouring points)
 *   backward   a thread per output point: dx by atomicAdd (points share
 *              pixels; the order of those adds varies run to run), dgrid
 *              summed over the channels in order by the point's thread
 *   affine     a thread per grid point; the transpose (dtheta) a block per
 *              sample, each of its n (n + 1) sums over the points in double
 *              combined in a fixed order (tl_cuda_rows.cuh) */
#include <math.h>

#include <cuda_runtime.h>

#include "gpu/nn/tl_cuda_rows.cuh"
#include "gpu/nn/tl_cuda_grid.cuh"
#include "gpu/nn/tl_gpu_act_loss.h"
#include "nn/grid/tl_grid_spec.h"

#define TL_GRID_FN static __device__ __forceinline__
namespace grid_f32 {
typedef float real;
#include "nn/grid/grid_taps.h"
} // namespace grid_f32
namespace grid_f64 {
typedef double real;
#include "nn/grid/grid_taps.h"
} // namespace grid_f64

namespace {

constexpr int THREADS = TL_GPU_THREADS;


/* The work type's taps and base coordinates. */
template <typename R> struct grid_math;
template <> struct grid_math<float> {
  using taps = grid_f32::taps_t;
  static TL_DEV void of(const tl_grid_spec *s, const float *gp, taps *t, bool dw)
  {
    grid_f32::taps_of(s, gp, t, dw);
  }
  static TL_DEV float base(int64_t i, int64_t steps, bool align)
  {
    return grid_f32::base_coord(i, steps, align);
  }
};
template <> struct grid_math<double> {
  using taps = grid_f64::taps_t;
  static TL_DEV void of(const tl_grid_spec *s, const double *gp, taps *t, bool dw)
  {
    grid_f64::taps_of(s, gp, t, dw);
  }
  static TL_DEV double base(int64_t i, int64_t steps, bool align)
  {
    return grid_f64::base_coord(i, steps, align);
  }
};

template <typename R>
__global__ void sample(const tl_grid_spec s, const R *x, const R *grid, R *y)
{
  const int64_t P = s.out[0] * s.out[1] * s.out[2], plane = s.in[0] * s.in[1] * s.in[2];
  TL_GPU_GRID_LOOP(p, s.N * P)
  {
    const int64_t b = p / P, o = p % P;
    typename grid_math<R>::taps t;
    grid_math<R>::of(&s, grid + p * s.n, &t, false);
    for (int64_t c = 0; c < s.C; c++) {
      const R *xc = x + (b * s.C + c) * plane;
      R v = 0;
      if (s.mode == TL_GRID_BICUBIC && t.count) { /* rows first, as PyTorch */
        for (int j = 0; j < 4; j++) {
          R row = 0;
          for (int k = 0; k < 4; k++)
            row += (t.off[j * 4 + k] >= 0 ? xc[t.off[j * 4 + k]] : (R)0) * t.wx[k];
          v += row * t.wy[j];
        }
      } else {
        for (int q = 0; q < t.count; q++)
          if (t.off[q] >= 0)
            v += xc[t.off[q]] * t.w[q];
      }
      y[(b * s.C + c) * P + o] = v;
    }
  }
}

template <typename R>
__global__ void sample_backward(const tl_grid_spec s, const R *g, const R *x, const R *grid, R *dx,
                                R *dgrid)
{
  const int64_t P = s.out[0] * s.out[1] * s.out[2], plane = s.in[0] * s.in[1] * s.in[2];
  TL_GPU_GRID_LOOP(p, s.N * P)
  {
    const int64_t b = p / P, o = p % P;
    typename grid_math<R>::taps t;
    grid_math<R>::of(&s, grid + p * s.n, &t, dgrid != nullptr);
    R sum[3] = {0, 0, 0};
    for (int64_t c = 0; c < s.C; c++) {
      const int64_t at = (b * s.C + c) * plane;
      const R gv = g[(b * s.C + c) * P + o];
      for (int q = 0; q < t.count; q++) {
        if (t.off[q] < 0)
          continue;
        if (dx)
          atomicAdd(dx + at + t.off[q], t.w[q] * gv);
        if (dgrid) {
          R v = x[at + t.off[q]] * gv;
          for (int d = 0; d < s.n; d++)
            sum[d] += t.dw[d][q] * v;
        }
      }
    }
    if (dgrid)
      for (int d = 0; d < s.n; d++)
        dgrid[p * s.n + d] = t.count ? sum[d] * t.mult[d] : (R)0;
  }
}

/* (x, y[, z], 1) of grid point pt of a (D, H, W) grid */
template <typename R>
TL_DEV void base_of(int n, const int64_t *out, bool align, int64_t pt, R *base)
{
  const int64_t D = out[0], H = out[1], W = out[2];
  const int64_t x = pt % W, y = pt / W % H, z = pt / (W * H) % D;
  base[0] = grid_math<R>::base(x, W, align);
  base[1] = grid_math<R>::base(y, H, align);
  base[2] = n == 3 ? grid_math<R>::base(z, D, align) : (R)1;
  base[3] = 1;
}

struct affine_shape {
  int n;
  int64_t N, out[3];
  bool align;
};

template <typename R> __global__ void affine(const affine_shape a, const R *theta, R *grid)
{
  const int n = a.n, m = n + 1;
  const int64_t P = a.out[0] * a.out[1] * a.out[2];
  TL_GPU_GRID_LOOP(i, a.N * P)
  {
    const int64_t b = i / P;
    R base[4];
    base_of(n, a.out, a.align, i % P, base);
    for (int j = 0; j < n; j++) {
      R v = 0;
      for (int k = 0; k < m; k++)
        v += base[k] * theta[(b * n + j) * m + k];
      grid[i * n + j] = v;
    }
  }
}

/* dtheta[b, j, k] = sum over the points of dgrid[b, pt, j] base(pt)[k] */
template <typename R> __global__ void affine_transpose(const affine_shape a, const R *dgrid, R *dtheta)
{
  __shared__ double shared[32];
  const int n = a.n, m = n + 1;
  const int64_t P = a.out[0] * a.out[1] * a.out[2], b = blockIdx.x;
  double acc[3][4] = {{0}};
  for (int64_t pt = threadIdx.x; pt < P; pt += blockDim.x) {
    R base[4];
    base_of(n, a.out, a.align, pt, base);
    for (int j = 0; j < n; j++)
      for (int k = 0; k < m; k++)
        acc[j][k] += (double)dgrid[(b * P + pt) * n + j] * (double)base[k];
  }
  for (int j = 0; j < n; j++)
    for (int k = 0; k < m; k++) {
      double v = tl_rows_reduce<false>(acc[j][k], tl_rows_sum(), 0.0, shared);
      if (threadIdx.x == 0)
        dtheta[(b * n + j) * m + k] = (R)v;
    }
}

} // namespace

extern "C" int tl_gpu_grid_sample_launch(const struct tl_gpu_grid_args *a, void *stream)
{
  const tl_grid_spec s = *(const tl_grid_spec *)a->spec;
  const int64_t work = s.N * s.out[0] * s.out[1] * s.out[2];
  cudaStream_t st = (cudaStream_t)stream;
  if (work == 0 || s.C == 0)
    return 0;
  if (a->f64)
    sample<double><<<tl_gpu_blocks_for(work), THREADS, 0, st>>>(s, (const double *)a->x,
                                                         (const double *)a->grid, (double *)a->y);
  else
    sample<float><<<tl_gpu_blocks_for(work), THREADS, 0, st>>>(s, (const float *)a->x,
                                                        (const float *)a->grid, (float *)a->y);
  return (int)cudaGetLastError();
}

extern "C" int tl_gpu_grid_backward_launch(const struct tl_gpu_grid_args *a, void *stream)
{
  const tl_grid_spec s = *(const tl_grid_spec *)a->spec;
  const int64_t work = s.N * s.out[0] * s.out[1] * s.out[2];
  cudaStream_t st = (cudaStream_t)stream;
  if (work == 0)
    return 0;
  if (a->f64)
    sample_backward<double><<<tl_gpu_blocks_for(work), THREADS, 0, st>>>(
        s, (const double *)a->g, (const double *)a->x, (const double *)a->grid, (double *)a->dx,
        (double *)a->dgrid);
  else
    sample_backward<float><<<tl_gpu_blocks_for(work), THREADS, 0, st>>>(
        s, (const float *)a->g, (const float *)a->x, (const float *)a->grid, (float *)a->dx,
        (float *)a->dgrid);
  return (int)cudaGetLastError();
}

extern "C" int tl_gpu_affine_grid_launch(int n, int64_t N, const int64_t out[3], int align_corners,
                                         int transpose, const void *in, void *result, int f64,
                                         void *stream)
{
  const affine_shape a = {n, N, {out[0], out[1], out[2]}, align_corners != 0};
  const int64_t P = out[0] * out[1] * out[2];
  cudaStream_t st = (cudaStream_t)stream;
  if (N == 0)
    return 0;
  if (transpose) { /* every dtheta entry is written, zero when there are no points */
    if (f64)
      affine_transpose<double><<<(unsigned)N, THREADS, 0, st>>>(a, (const double *)in, (double *)result);
    else
      affine_transpose<float><<<(unsigned)N, THREADS, 0, st>>>(a, (const float *)in, (float *)result);
  } else {
    if (P == 0)
      return 0;
    if (f64)
      affine<double><<<tl_gpu_blocks_for(N * P), THREADS, 0, st>>>(a, (const double *)in, (double *)result);
    else
      affine<float><<<tl_gpu_blocks_for(N * P), THREADS, 0, st>>>(a, (const float *)in, (float *)result);
  }
  return (int)cudaGetLastError();
}
