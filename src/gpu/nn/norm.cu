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
  __device__ int64_t at(int64_t i) const
  {
    return per_channel ? base + i / S * C * S + i % S : base + i;
  }
  __device__ int64_t channel(int64_t i) const { return per_channel ? c0 : c0 + i / S; }
};

/* ---- the row math, shared by the one-block and the shared-row kernels ----
 * A block works on elements [i0, i1) of row r (the whole row, or its part). */

/* This thread's share of sum x (kind 0), sum (x - mu)^2 (1) or sum x^2 (2). */
template <typename R>
__device__ double row_sum(const tl_gpu_norm_job &j, const row_view &v, int64_t i0, int64_t i1,
                          int kind, R mu)
{
  const R *x = (const R *)j.x;
  double s = 0;
  for (int64_t i = i0 + threadIdx.x; i < i1; i += THREADS) {
    R e = x[v.at(i)];
    if (kind == 0) {
      s += (double)e;
    } else {
      R d = e - mu; /* mu is 0 for kind 2 */
      s += (double)(d * d);
    }
  }
  return s;
}

/* y = x * a + (b - mu a), a = rstd w per channel */
template <typename R>
__device__ void row_apply(const tl_gpu_norm_job &j, const row_view &v, int64_t i0, int64_t i1, R mu,
                          R rs)
{
  const R *x = (const R *)j.x, *w = (const R *)j.w, *b = (const R *)j.b;
  R *y = (R *)j.y;
  for (int64_t i = i0 + threadIdx.x; i < i1; i += THREADS) {
    int64_t c = v.channel(i), at = v.at(i);
    R a = rs * w[c];
    y[at] = x[at] * a + (b[c] - mu * a);
  }
}

/* mean, rstd (and batch norm's batch statistics) of row r, by thread 0 */
template <typename R>
__device__ void row_store_stats(const tl_gpu_norm_job &j, int64_t r, R mu, R rs, double var)
{
  if (threadIdx.x != 0)
    return;
  if (!j.rms)
    ((R *)j.mean)[r] = mu;
  ((R *)j.rstd)[r] = rs;
  if (j.batch) {
    j.batch[r] = (double)mu;
    j.batch[j.C + r] = var;
  }
}

/* Backward: this thread's share of A = sum dy w, B / rstd = sum dy w (x - mean),
 * sum dy and sum dy (x - mean). */
template <typename R>
__device__ void row_grad_sums(const tl_gpu_norm_job &j, const row_view &v, int64_t i0, int64_t i1,
                              R mu, double (&s)[4])
{
  const R *x = (const R *)j.x, *g = (const R *)j.g, *w = (const R *)j.w;
  for (int64_t i = i0 + threadIdx.x; i < i1; i += THREADS) {
    int64_t at = v.at(i);
    double gi = (double)g[at], wc = (double)w[v.channel(i)], xm = (double)(x[at] - mu);
    s[0] += gi * wc;
    s[1] += gi * wc * xm;
    s[2] += gi;
    s[3] += gi * xm;
  }
}

/* dx = rstd * w * dy + c1 * x + c2 over the row (tl_norm.h's formula with
 * xhat expanded), from the row's totals s: c1 = -rstd^2 B / D, c2 = -rstd A
 * / D - c1 mean (both 0 for constant statistics, A's term dropped for rms).
 * Per channel, thread 0 of part 0 also writes dw = rstd sum dy (x - mean)
 * and db = sum dy. */
template <typename R>
__device__ void row_grad_apply(const tl_gpu_norm_job &j, const row_view &v, int64_t r, bool first,
                               int64_t i0, int64_t i1, R mu, R rs, const double (&s)[4])
{
  const R *x = (const R *)j.x, *g = (const R *)j.g, *w = (const R *)j.w;
  R *dx = (R *)j.y;
  if (j.per_channel && j.batch && first && threadIdx.x == 0) {
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
  for (int64_t i = i0 + threadIdx.x; i < i1; i += THREADS) {
    int64_t at = v.at(i);
    dx[at] = g[at] * rs * w[v.channel(i)] + x[at] * c1 + c2;
  }
}

/* ---- one block per row ---- */

template <typename R> __global__ void norm_forward(tl_gpu_norm_job j, int64_t rows)
{
  R *mean = (R *)j.mean, *rstd = (R *)j.rstd;
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
        s[0] = row_sum<R>(j, v, 0, v.D, 0, 0);
        block_sums(s);
        mu = (R)(s[0] / v.D);
      }
      s[0] = row_sum<R>(j, v, 0, v.D, j.rms ? 2 : 1, mu);
      block_sums(s);
      double var = s[0] / v.D;
      rs = (R)(1 / sqrt(var + j.eps));
      row_store_stats<R>(j, r, mu, rs, var);
    }
    row_apply<R>(j, v, 0, v.D, mu, rs);
  }
}

template <typename R> __global__ void norm_backward(tl_gpu_norm_job j, int64_t rows)
{
  const R *mean = (const R *)j.mean, *rstd = (const R *)j.rstd;
  for (int64_t r = blockIdx.x; r < rows; r += gridDim.x) {
    row_view v(j, r);
    R mu = j.rms ? (R)0 : mean[r], rs = rstd[r];
    double s[4] = {0, 0, 0, 0};
    row_grad_sums<R>(j, v, 0, v.D, mu, s);
    block_sums(s);
    row_grad_apply<R>(j, v, r, true, 0, v.D, mu, rs, s);
  }
}

/* ---- rows shared by P = j.parts blocks: unit u = (row u / P, part u % P) ----
 * Partial sums go to j.part[u * 4 + k]; every block of a row folds its row's
 * P partials itself, in part order, so all get the same totals. */

__device__ void unit_range(const row_view &v, int64_t P, int64_t p, int64_t &i0, int64_t &i1)
{
  i0 = v.D * p / P;
  i1 = v.D * (p + 1) / P;
}

__device__ double fold_parts(const double *part, int64_t r, int64_t P, int k)
{
  double t = 0;
  for (int64_t p = 0; p < P; p++)
    t += part[(r * P + p) * 4 + k];
  return t;
}

/* Forward partials: slot 0 sum x (kind 0), slot 1 sum (x - mean)^2 with the
 * mean folded from slot 0 (kind 1), or sum x^2 (kind 2, rms). */
template <typename R> __global__ void norm_forward_part(tl_gpu_norm_job j, int64_t rows, int kind)
{
  int64_t P = j.parts;
  for (int64_t u = blockIdx.x; u < rows * P; u += gridDim.x) {
    int64_t r = u / P, i0, i1;
    row_view v(j, r);
    unit_range(v, P, u % P, i0, i1);
    R mu = kind == 1 ? (R)(fold_parts(j.part, r, P, 0) / v.D) : (R)0;
    double s[1] = {row_sum<R>(j, v, i0, i1, kind, mu)};
    block_sums(s);
    if (threadIdx.x == 0)
      j.part[u * 4 + (kind == 0 ? 0 : 1)] = s[0];
  }
}

/* The elementwise pass: statistics from the partials (part 0 stores them),
 * or, for constant statistics, from mean and rstd (already 1/sqrt(var + eps)). */
template <typename R> __global__ void norm_forward_apply(tl_gpu_norm_job j, int64_t rows)
{
  int64_t P = j.parts;
  bool constant = j.per_channel && !j.train;
  for (int64_t u = blockIdx.x; u < rows * P; u += gridDim.x) {
    int64_t r = u / P, i0, i1;
    row_view v(j, r);
    unit_range(v, P, u % P, i0, i1);
    R mu, rs;
    if (constant) {
      mu = ((const R *)j.mean)[r];
      rs = ((const R *)j.rstd)[r];
    } else {
      mu = j.rms ? (R)0 : (R)(fold_parts(j.part, r, P, 0) / v.D);
      double var = fold_parts(j.part, r, P, 1) / v.D;
      rs = (R)(1 / sqrt(var + j.eps));
      if (u % P == 0)
        row_store_stats<R>(j, r, mu, rs, var);
    }
    row_apply<R>(j, v, i0, i1, mu, rs);
  }
}

/* Evaluation with shared rows: rstd = 1 / sqrt(running var + eps) first. */
template <typename R> __global__ void norm_eval_rstd(tl_gpu_norm_job j)
{
  TL_GPU_GRID_LOOP(c, j.C)
  {
    R *rstd = (R *)j.rstd;
    rstd[c] = (R)(1 / sqrt((double)rstd[c] + j.eps));
  }
}

template <typename R> __global__ void norm_backward_part(tl_gpu_norm_job j, int64_t rows)
{
  int64_t P = j.parts;
  for (int64_t u = blockIdx.x; u < rows * P; u += gridDim.x) {
    int64_t r = u / P, i0, i1;
    row_view v(j, r);
    unit_range(v, P, u % P, i0, i1);
    R mu = j.rms ? (R)0 : ((const R *)j.mean)[r];
    double s[4] = {0, 0, 0, 0};
    row_grad_sums<R>(j, v, i0, i1, mu, s);
    block_sums(s);
    if (threadIdx.x == 0)
      for (int k = 0; k < 4; k++)
        j.part[u * 4 + k] = s[k];
  }
}

template <typename R> __global__ void norm_backward_apply(tl_gpu_norm_job j, int64_t rows)
{
  int64_t P = j.parts;
  for (int64_t u = blockIdx.x; u < rows * P; u += gridDim.x) {
    int64_t r = u / P, i0, i1;
    row_view v(j, r);
    unit_range(v, P, u % P, i0, i1);
    R mu = j.rms ? (R)0 : ((const R *)j.mean)[r], rs = ((const R *)j.rstd)[r];
    double s[4];
    for (int k = 0; k < 4; k++)
      s[k] = fold_parts(j.part, r, P, k);
    row_grad_apply<R>(j, v, r, u % P == 0, i0, i1, mu, rs, s);
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
  TL_GPU_GRID_LOOP(c, j.C)
  {
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
  {
    running[c] = (R)((1 - momentum) * (double)running[c] + momentum * batch[c] * scale);
  }
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
  TL_GPU_GRID_LOOP(e, total)
  {
    int64_t s = e % j.S, c = e / j.S % j.C, n = e / (j.S * j.C);
    const R *xn = x + n * j.C * j.S;
    if (pass == 2) {
      const R *t = (const R *)j.t + n * j.C * j.S;
      int64_t c0 = c - hi < 0 ? 0 : c - hi, c1 = c + lo > j.C - 1 ? j.C - 1 : c + lo;
      R sum = 0;
      for (int64_t q = c0; q <= c1; q++)
        sum += t[q * j.S + s];
      ((R *)j.out)[e] =
          g[e] * ((const R *)j.p)[e] - 2 * alpha * beta / size * xn[c * j.S + s] * sum;
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
unsigned row_blocks(int64_t rows) { return tl_gpu_blocks_for(rows, 1); }

int64_t norm_rows(const tl_gpu_norm_job *j) { return j->per_channel ? j->C : j->N * j->G; }

template <typename R> int forward_launch(const tl_gpu_norm_job *job, int64_t rows, cudaStream_t s)
{
  if (job->parts <= 1) {
    norm_forward<R><<<row_blocks(rows), THREADS, 0, s>>>(*job, rows);
    return (int)cudaGetLastError();
  }
  unsigned units = row_blocks(rows * job->parts);
  if (job->per_channel && !job->train) {
    norm_eval_rstd<R><<<tl_gpu_blocks(job->C), THREADS, 0, s>>>(*job);
  } else {
    if (!job->rms)
      norm_forward_part<R><<<units, THREADS, 0, s>>>(*job, rows, 0);
    norm_forward_part<R><<<units, THREADS, 0, s>>>(*job, rows, job->rms ? 2 : 1);
  }
  norm_forward_apply<R><<<units, THREADS, 0, s>>>(*job, rows);
  return (int)cudaGetLastError();
}

template <typename R> int backward_launch(const tl_gpu_norm_job *job, int64_t rows, cudaStream_t s)
{
  if (job->parts <= 1) {
    norm_backward<R><<<row_blocks(rows), THREADS, 0, s>>>(*job, rows);
    return (int)cudaGetLastError();
  }
  unsigned units = row_blocks(rows * job->parts);
  norm_backward_part<R><<<units, THREADS, 0, s>>>(*job, rows);
  norm_backward_apply<R><<<units, THREADS, 0, s>>>(*job, rows);
  return (int)cudaGetLastError();
}

} // namespace

extern "C" int tl_gpu_norm_forward_launch(const tl_gpu_norm_job *job, void *stream)
{
  int64_t rows = norm_rows(job);
  if (rows == 0)
    return 0;
  cudaStream_t s = (cudaStream_t)stream;
  return job->f64 ? forward_launch<double>(job, rows, s) : forward_launch<float>(job, rows, s);
}

extern "C" int tl_gpu_norm_backward_launch(const tl_gpu_norm_job *job, void *stream)
{
  int64_t rows = norm_rows(job);
  if (rows == 0)
    return 0;
  cudaStream_t s = (cudaStream_t)stream;
  return job->f64 ? backward_launch<double>(job, rows, s) : backward_launch<float>(job, rows, s);
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
    norm_running<double>
        <<<tl_gpu_blocks(n), THREADS, 0, s>>>((double *)running, batch, n, scale, momentum);
  else
    norm_running<float>
        <<<tl_gpu_blocks(n), THREADS, 0, s>>>((float *)running, batch, n, scale, momentum);
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
