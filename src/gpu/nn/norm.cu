/* norm.cu - the CUDA normalisation kernels (tl_gpu_norm.h): batch, layer,
 * group and rms norm forward and backward, and local response norm.
 *
 * One block per statistics row (a (n, g) group, or a channel for batch
 * norm).  Its threads fold strided slices of the row in double, then a tree
 * in shared memory merges them in a fixed order, so results do not depend
 * on timing.  The mean is a first pass and the variance the second pass's
 * sum of squared deviations from it, as the CPU computes them (no
 * cancellation as in E[x^2] - E[x]^2, and the same roundings of mu and
 * rstd to the work type); rows are re-read from memory (L2) for each pass.
 * The work type R is float (float32, and float16/bfloat16 once the C side
 * has converted them) or double.                                          */
#include "gpu/nn/tl_cuda_grid.cuh"
#include "gpu/nn/tl_gpu_norm.h"

namespace {

constexpr int THREADS = TL_GPU_THREADS; /* the row kernels' block, a power of two */

/* Fold each of K per-thread partial sums over the block, in a fixed order;
 * every thread gets the totals. */
template <int K> __device__ void block_sums(double (&v)[K])
{
  __shared__ double part[K][THREADS];
  for (int k = 0; k < K; k++)
    part[k][threadIdx.x] = v[k];
  __syncthreads();
  for (int half = THREADS / 2; half > 0; half /= 2) {
    if ((int)threadIdx.x < half)
      for (int k = 0; k < K; k++)
        part[k][threadIdx.x] += part[k][threadIdx.x + half];
    __syncthreads();
  }
  for (int k = 0; k < K; k++)
    v[k] = part[k][0];
  __syncthreads(); /* part is reused by the next call */
}

/* Row r's element i and its channel. */
struct row_view {
  int64_t base, D, S, C, c0;
  bool per_channel;
  __device__ row_view(const tl_gpu_norm_job &j, int64_t r)
  {
    S = j.S;
    C = j.C;
    per_channel = j.per_channel;
    if (per_channel) {
      D = j.N * j.S;
      base = r * j.S;
      c0 = r;
    } else {
      D = j.C / j.G * j.S;
      base = r * D;
      c0 = (r % j.G) * (j.C / j.G);
    }
  }
  __device__ int64_t at(int64_t i) const { return per_channel ? base + i / S * C * S + i % S : base + i; }
  __device__ int64_t channel(int64_t i) const { return per_channel ? c0 : c0 + i / S; }
};

template <typename R> __global__ void norm_forward(tl_gpu_norm_job j, int64_t rows)
{
  const R *x = (const R *)j.x, *w = (const R *)j.w, *b = (const R *)j.b;
  R *y = (R *)j.y, *mean = (R *)j.mean, *rstd = (R *)j.rstd;
  for (int64_t r = blockIdx.x; r < rows; r += gridDim.x) {
    row_view v(j, r);
    R mu = 0, rs;
    if (j.per_channel && !j.train) { /* mean, rstd hold the running mean and var */
      mu = mean[r];
      rs = (R)(1 / sqrt((double)rstd[r] + j.eps));
      __syncthreads();
      if (threadIdx.x == 0)
        rstd[r] = rs;
    } else {
      double s[1] = {0};
      if (!j.rms) {
        for (int64_t i = threadIdx.x; i < v.D; i += THREADS)
          s[0] += (double)x[v.at(i)];
        block_sums(s);
        mu = (R)(s[0] / v.D);
        s[0] = 0;
      }
      for (int64_t i = threadIdx.x; i < v.D; i += THREADS) {
        R d = x[v.at(i)] - mu;
        s[0] += (double)(d * d);
      }
      block_sums(s);
      double var = s[0] / v.D;
      rs = (R)(1 / sqrt(var + j.eps));
      if (threadIdx.x == 0) {
        if (!j.rms)
          mean[r] = mu;
        rstd[r] = rs;
        if (j.batch) {
          j.batch[r] = (double)mu;
          j.batch[j.C + r] = var;
        }
      }
    }
    for (int64_t i = threadIdx.x; i < v.D; i += THREADS) {
      int64_t c = v.channel(i), at = v.at(i);
      R a = rs * w[c];
      y[at] = x[at] * a + (b[c] - mu * a);
    }
  }
}

/* dx = rstd * w * dy + c1 * x + c2 over the row (tl_norm.h's formula with
 * xhat expanded), with A = sum dy w and B = rstd sum dy w (x - mean):
 * c1 = -rstd^2 B / D, c2 = -rstd A / D - c1 mean (both 0 for constant
 * statistics, A's term dropped for rms).  Per channel the block also writes
 * dw = rstd sum dy (x - mean) and db = sum dy. */
template <typename R> __global__ void norm_backward(tl_gpu_norm_job j, int64_t rows)
{
  const R *x = (const R *)j.x, *g = (const R *)j.g, *w = (const R *)j.w;
  const R *mean = (const R *)j.mean, *rstd = (const R *)j.rstd;
  R *dx = (R *)j.y;
  for (int64_t r = blockIdx.x; r < rows; r += gridDim.x) {
    row_view v(j, r);
    R mu = j.rms ? (R)0 : mean[r], rs = rstd[r];
    double s[4] = {0, 0, 0, 0}; /* A, B / rstd, sum dy, sum dy (x - mean) */
    for (int64_t i = threadIdx.x; i < v.D; i += THREADS) {
      int64_t at = v.at(i);
      double gi = (double)g[at], wc = (double)w[v.channel(i)], xm = (double)(x[at] - mu);
      s[0] += gi * wc;
      s[1] += gi * wc * xm;
      s[2] += gi;
      s[3] += gi * xm;
    }
    block_sums(s);
    if (j.per_channel && j.batch && threadIdx.x == 0) {
      j.batch[r] = (double)rs * s[3];
      j.batch[j.C + r] = s[2];
    }
    R c1 = 0, c2 = 0;
    bool constant = j.per_channel && !j.train;
    if (!constant && v.D > 0) {
      double B = (double)rs * s[1];
      c1 = (R)(-(double)rs * rs * B / v.D);
      c2 = (R)(j.rms ? 0 : -(double)rs * s[0] / v.D) - c1 * mu;
    }
    for (int64_t i = threadIdx.x; i < v.D; i += THREADS) {
      int64_t at = v.at(i);
      dx[at] = g[at] * rs * w[v.channel(i)] + x[at] * c1 + c2;
    }
  }
}

/* Group statistics' dw, db: channel c sums over samples n of rstd[n, g] *
 * sum_s dy (x - mean[n, g]), and of sum_s dy.  One block per channel. */
template <typename R> __global__ void norm_affine(tl_gpu_norm_job j, double *dwdb)
{
  const R *x = (const R *)j.x, *g = (const R *)j.g, *mean = (const R *)j.mean,
          *rstd = (const R *)j.rstd;
  int64_t Cg = j.C / j.G, D = j.N * j.S;
  for (int64_t c = blockIdx.x; c < j.C; c += gridDim.x) {
    double s[2] = {0, 0};
    for (int64_t i = threadIdx.x; i < D; i += THREADS) {
      int64_t n = i / j.S, at = (n * j.C + c) * j.S + i % j.S, r = n * j.G + c / Cg;
      R mu = j.rms ? (R)0 : mean[r];
      s[0] += (double)g[at] * (double)(x[at] - mu) * (double)rstd[r];
      s[1] += (double)g[at];
    }
    block_sums(s);
    if (threadIdx.x == 0) {
      dwdb[c] = s[0];
      dwdb[j.C + c] = s[1];
    }
  }
}

/* The same for S == 1 (layer norm's weight): a thread per channel walks the
 * rows, neighbouring threads reading neighbouring elements. */
template <typename R> __global__ void norm_affine_cols(tl_gpu_norm_job j, double *dwdb)
{
  const R *x = (const R *)j.x, *g = (const R *)j.g, *mean = (const R *)j.mean,
          *rstd = (const R *)j.rstd;
  int64_t Cg = j.C / j.G;
  TL_GPU_GRID_LOOP(c, j.C) {
    double dw = 0, db = 0;
    for (int64_t n = 0; n < j.N; n++) {
      int64_t at = n * j.C + c, r = n * j.G + c / Cg;
      R mu = j.rms ? (R)0 : mean[r];
      dw += (double)g[at] * (double)((x[at] - mu) * rstd[r]);
      db += (double)g[at];
    }
    dwdb[c] = dw;
    dwdb[j.C + c] = db;
  }
}

template <typename R>
__global__ void norm_running(R *running, const double *batch, int64_t n, double scale,
                             double momentum)
{
  TL_GPU_GRID_LOOP(c, n)
    running[c] = (R)((1 - momentum) * (double)running[c] + momentum * batch[c] * scale);
}

/* ---- local response norm: a thread per element ---- */

template <typename R> __device__ R pow_of(R a, R b);
template <> __device__ float pow_of(float a, float b) { return powf(a, b); }
template <> __device__ double pow_of(double a, double b) { return pow(a, b); }

/* pass 0: y; pass 1: P = D^-beta and T = g x P / D; pass 2: dx from P, T. */
template <typename R> __global__ void lrn_pass(tl_gpu_lrn_job j, int pass)
{
  int64_t total = j.N * j.C * j.S, lo = j.size / 2, hi = (j.size - 1) / 2;
  R alpha = (R)j.alpha, beta = (R)j.beta, k = (R)j.k, size = (R)j.size;
  const R *x = (const R *)j.x, *g = (const R *)j.g;
  TL_GPU_GRID_LOOP(e, total) {
    int64_t s = e % j.S, c = e / j.S % j.C, n = e / (j.S * j.C);
    const R *xn = x + n * j.C * j.S;
    if (pass == 2) {
      const R *t = (const R *)j.t + n * j.C * j.S;
      int64_t c0 = c - hi < 0 ? 0 : c - hi, c1 = c + lo > j.C - 1 ? j.C - 1 : c + lo;
      R sum = 0;
      for (int64_t q = c0; q <= c1; q++)
        sum += t[q * j.S + s];
      ((R *)j.out)[e] = g[e] * ((const R *)j.p)[e] - 2 * alpha * beta / size * xn[c * j.S + s] * sum;
      continue;
    }
    int64_t c0 = c - lo < 0 ? 0 : c - lo, c1 = c + hi > j.C - 1 ? j.C - 1 : c + hi;
    R sq = 0;
    for (int64_t q = c0; q <= c1; q++)
      sq += xn[q * j.S + s] * xn[q * j.S + s];
    R d = sq / size * alpha + k;
    if (pass == 0) {
      ((R *)j.out)[e] = x[e] / pow_of(d, beta);
    } else {
      R p = pow_of(d, -beta);
      ((R *)j.p)[e] = p;
      ((R *)j.t)[e] = g[e] * x[e] * p / d;
    }
  }
}

/* One block per row, capped: the kernels stride over the rows. */
unsigned row_blocks(int64_t rows)
{
  return (unsigned)(rows < 1 ? 1 : rows > TL_GPU_MAX_BLOCKS ? TL_GPU_MAX_BLOCKS : rows);
}

} // namespace

static int64_t norm_rows(const tl_gpu_norm_job *j) { return j->per_channel ? j->C : j->N * j->G; }

extern "C" int tl_gpu_norm_forward_launch(const tl_gpu_norm_job *job, void *stream)
{
  int64_t rows = norm_rows(job);
  if (rows == 0)
    return 0;
  cudaStream_t s = (cudaStream_t)stream;
  if (job->f64)
    norm_forward<double><<<row_blocks(rows), THREADS, 0, s>>>(*job, rows);
  else
    norm_forward<float><<<row_blocks(rows), THREADS, 0, s>>>(*job, rows);
  return (int)cudaGetLastError();
}

extern "C" int tl_gpu_norm_backward_launch(const tl_gpu_norm_job *job, void *stream)
{
  int64_t rows = norm_rows(job);
  if (rows == 0)
    return 0;
  cudaStream_t s = (cudaStream_t)stream;
  if (job->f64)
    norm_backward<double><<<row_blocks(rows), THREADS, 0, s>>>(*job, rows);
  else
    norm_backward<float><<<row_blocks(rows), THREADS, 0, s>>>(*job, rows);
  return (int)cudaGetLastError();
}

extern "C" int tl_gpu_norm_affine_launch(const tl_gpu_norm_job *job, double *dwdb, void *stream)
{
  if (job->C == 0)
    return 0;
  cudaStream_t s = (cudaStream_t)stream;
  if (job->S == 1 && job->f64)
    norm_affine_cols<double><<<tl_gpu_blocks(job->C), THREADS, 0, s>>>(*job, dwdb);
  else if (job->S == 1)
    norm_affine_cols<float><<<tl_gpu_blocks(job->C), THREADS, 0, s>>>(*job, dwdb);
  else if (job->f64)
    norm_affine<double><<<row_blocks(job->C), THREADS, 0, s>>>(*job, dwdb);
  else
    norm_affine<float><<<row_blocks(job->C), THREADS, 0, s>>>(*job, dwdb);
  return (int)cudaGetLastError();
}

extern "C" int tl_gpu_norm_running_launch(void *running, int f64, const double *batch, int64_t n,
                                          double scale, double momentum, void *stream)
{
  if (n == 0)
    return 0;
  cudaStream_t s = (cudaStream_t)stream;
  if (f64)
    norm_running<double><<<tl_gpu_blocks(n), THREADS, 0, s>>>((double *)running, batch, n,
                                                                  scale, momentum);
  else
    norm_running<float><<<tl_gpu_blocks(n), THREADS, 0, s>>>((float *)running, batch, n,
                                                                 scale, momentum);
  return (int)cudaGetLastError();
}

extern "C" int tl_gpu_lrn_launch(const tl_gpu_lrn_job *job, void *stream)
{
  int64_t total = job->N * job->C * job->S;
  if (total == 0)
    return 0;
  cudaStream_t s = (cudaStream_t)stream;
  unsigned grid = tl_gpu_blocks(total);
  int first = job->g ? 1 : 0;
  for (int pass = first; pass <= (job->g ? 2 : 0); pass++) {
    if (job->f64)
      lrn_pass<double><<<grid, THREADS, 0, s>>>(*job, pass);
    else
      lrn_pass<float><<<grid, THREADS, 0, s>>>(*job, pass);
    int err = (int)cudaGetLastError();
    if (err)
      return err;
  }
  return 0;
}
