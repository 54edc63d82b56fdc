/* ctc.cu - ctc_loss and its backward on CUDA (tl_loss.h's legend and
 * recursions, ctc_cpu.c's terms in its order).
 *
 * A block per sample.  Time steps are sequential: the block's threads take
 * the extended-label positions q of one step, then synchronise before the
 * next.  The backward runs beta the same way from the last frame, adds
 * alpha * beta per label with a thread per class (each class walks the
 * positions in order, so the sums are the CPU's), then writes the gradient
 * of every (t, c) of the sample. */
#include <cuda_runtime.h>

#include "gpu/nn/tl_gpu_act_loss.h"
#include "gpu/tl_cuda_math.cuh"

namespace {

constexpr int THREADS = 256;

/* log(exp(a) + exp(b) + exp(c)), -inf when all are, NaN when one is
 * (ctc_cpu.c's lse3; the maximum below would skip a NaN beside two -inf) */
template <typename R> TL_DEV R lse3(R a, R b, R c)
{
  const R inf = (R)INFINITY;
  if (a != a || b != b || c != c)
    return a + b + c;
  R m = a > b ? a : b;
  m = m > c ? m : c;
  if (m == -inf)
    return -inf;
  R r = (R)((a == m) + (b == m) + (c == m) - 1);
  if (a != m && a != -inf)
    r += exp(a - m);
  if (b != m && b != -inf)
    r += exp(b - m);
  if (c != m && c != -inf)
    r += exp(c - m);
  return r == 0 ? m + 0 : m + log(1 + r);
}

/* label q of sample n's extended sequence (blank, l1, blank, ..., blank) */
TL_DEV int64_t label(const tl_gpu_ctc &a, int64_t n, int64_t q)
{
  return q % 2 == 0 ? a.blank : a.tg[a.offsets[n] + q / 2];
}

template <typename R> __global__ void ctc_alpha(tl_gpu_ctc a)
{
  const int64_t n = blockIdx.x, W = 2 * a.maxS + 1, NC = a.N * a.C;
  const int64_t Tn = a.in_len[n], L = 2 * a.tg_len[n] + 1;
  R *la = (R *)a.la + n * a.T * W, *out = (R *)a.out;
  const R *lp = (const R *)a.lp + n * a.C;
  const R inf = (R)INFINITY;
  for (int64_t i = threadIdx.x; i < a.T * W; i += blockDim.x)
    la[i] = -inf;
  __syncthreads();
  if (Tn == 0) {
    if (threadIdx.x == 0)
      out[n] = L == 1 ? (R)0 : inf;
    return;
  }
  if (threadIdx.x == 0) {
    la[0] = lp[a.blank];
    if (L > 1)
      la[1] = lp[label(a, n, 1)];
  }
  __syncthreads();
  for (int64_t t = 1; t < Tn; t++) {
    const R *prev = la + (t - 1) * W, *lpt = lp + t * NC;
    R *row = la + t * W;
    for (int64_t q = threadIdx.x; q < L; q += blockDim.x) {
      int64_t l = label(a, n, q);
      R a2 = q > 0 ? prev[q - 1] : -inf;
      R a3 = q > 1 && l != label(a, n, q - 2) ? prev[q - 2] : -inf;
      row[q] = lse3(prev[q], a2, a3) + lpt[l];
    }
    __syncthreads();
  }
  if (threadIdx.x == 0) {
    const R *last = la + (Tn - 1) * W;
    out[n] = -(L == 1 ? last[0] : lse3(last[L - 1], last[L - 2], -inf));
  }
}

template <typename R> __global__ void ctc_beta(tl_gpu_ctc a)
{
  const int64_t n = blockIdx.x, W = 2 * a.maxS + 1, C = a.C, NC = a.N * C;
  const int64_t L = 2 * a.tg_len[n] + 1;
  const R *la = (const R *)a.la + n * a.T * W, *lp = (const R *)a.lp + n * C;
  R *out = (R *)a.out + n * C;
  /* this sample's scratch: beta (T, W), then lcab (T, C) */
  R *lb = (R *)a.scratch + n * a.T * (W + C), *lcab = lb + a.T * W;
  const R nll = ((const R *)a.nll)[n], gr = ((const R *)a.g)[n], inf = (R)INFINITY;
  int64_t Tn = a.in_len[n];
  if (a.zero_infinity && nll == inf)
    Tn = 0; /* the whole gradient is zero */
  for (int64_t t = Tn - 1; t >= 0; t--) {
    R *row = lb + t * W;
    const R *next = row + W, *lpt = lp + t * NC;
    for (int64_t q = threadIdx.x; q < L; q += blockDim.x) {
      int64_t l = label(a, n, q);
      if (t == Tn - 1) {
        row[q] = q == L - 1 ? lpt[a.blank] : q == L - 2 ? lpt[l] : -inf;
      } else {
        R b2 = q < L - 1 ? next[q + 1] : -inf;
        R b3 = q < L - 2 && label(a, n, q + 2) != l ? next[q + 2] : -inf;
        row[q] = lse3(next[q], b2, b3) + lpt[l];
      }
    }
    __syncthreads();
    /* lcab[t, c]: the positions of label c, in order */
    for (int64_t c = threadIdx.x; c < C; c += blockDim.x) {
      R acc = -inf;
      for (int64_t q = 0; q < L; q++)
        if (label(a, n, q) == c)
          acc = lse3(acc, la[t * W + q] + row[q], -inf);
      lcab[t * C + c] = acc;
    }
  }
  __syncthreads();
  for (int64_t i = threadIdx.x; i < a.T * C; i += blockDim.x) {
    int64_t t = i / C, c = i % C;
    R v = 0; /* 0 past the input, even for a NaN g */
    if (t < Tn) {
      R l = lp[t * NC + c], ab = lcab[t * C + c];
      v = (ab == -inf ? exp(l) : exp(l) - exp(ab + nll - l)) * gr;
    }
    out[t * NC + c] = v;
  }
}

} // namespace

extern "C" int tl_gpu_ctc_launch(const tl_gpu_ctc *a, void *stream)
{
  cudaStream_t s = (cudaStream_t)stream;
  if (a->N == 0)
    return 0;
  if (a->f64)
    ctc_alpha<double><<<(unsigned)a->N, THREADS, 0, s>>>(*a);
  else
    ctc_alpha<float><<<(unsigned)a->N, THREADS, 0, s>>>(*a);
  return (int)cudaGetLastError();
}

extern "C" int tl_gpu_ctc_backward_launch(const tl_gpu_ctc *a, void *stream)
{
  cudaStream_t s = (cudaStream_t)stream;
  if (a->N == 0)
    return 0;
  if (a->f64)
    ctc_beta<double><<<(unsigned)a->N, THREADS, 0, s>>>(*a);
  else
    ctc_beta<float><<<(unsigned)a->N, THREADS, 0, s>>>(*a);
  return (int)cudaGetLastError();
}
