/* rnn.cu - the recurrent cells' fused rows on CUDA (tl_gpu_seq.h), the
 * device twin of rnn_cpu.c's rows: everything elementwise of one time step
 * for n batch rows, a thread per (row, hidden unit j), each reading its
 * gates j, h + j, 2h + j (, 3h + j) and writing its outputs.  The formulas
 * (tl_rnn.h) are rnn_cpu.c's term for term, additions in its order; float
 * computes in float with CUDA's expf/tanhf (the CPU's float tanh is
 * 2 sigmoid(2x) - 1: the two agree to about an ulp of float).
 *
 *   LSTM        in: ig hg cx bi bh (hg NULL: ig is the pre-activation)
 *               out: hy cy ws = i f g o
 *   LSTM bw     in: ghy gcy cx cy ws          out: gates (4h) gcx
 *   GRU         in: ig hg hx bi bh            out: hy ws = r z n hx hn
 *   GRU bw      in: ghy ws                    out: gig ghg ghx
 *   TANH/RELU   in: ig hg - bi bh             out: hy
 *   their bw    in: ghy hy                    out: gates
 * Bias gradients are column sums (colsum below), a thread per column
 * adding the rows in order, so they do not vary from run to run. */
#include <cuda_runtime.h>

#include "gpu/nn/tl_cuda_grid.cuh"
#include "gpu/seq/tl_gpu_seq.h"

namespace {

template <typename T> struct rows_of {
  const T *in[5];
  int64_t ld_in[5];
  T *out[5];
  int64_t ld_out[5];
};

template <typename T> __device__ __forceinline__ T sig(T x) { return (T)1 / ((T)1 + exp(-x)); }

/* in[k]'s row r from column c; a NULL operand (a bias) reads 0 */
template <typename T>
__device__ __forceinline__ T arg(const rows_of<T> &a, int k, int64_t r, int64_t c)
{
  return a.in[k] ? a.in[k][r * a.ld_in[k] + c] : (T)0;
}
/* a bias vector's element c, 0 when absent */
template <typename T> __device__ __forceinline__ T bias(const rows_of<T> &a, int k, int64_t c)
{
  return a.in[k] ? a.in[k][c] : (T)0;
}
template <typename T>
__device__ __forceinline__ T &res(const rows_of<T> &a, int k, int64_t r, int64_t c)
{
  return a.out[k][r * a.ld_out[k] + c];
}

template <typename T> __device__ void lstm(const rows_of<T> &a, int64_t r, int64_t j, int64_t h)
{
  T pre[4];
#pragma unroll
  for (int q = 0; q < 4; q++) {
    int64_t c = q * h + j;
    pre[q] = a.in[1] ? a.in[0][r * a.ld_in[0] + c] + a.in[1][r * a.ld_in[1] + c] + bias(a, 3, c) +
                           bias(a, 4, c)
                     : a.in[0][r * a.ld_in[0] + c];
  }
  T i = sig(pre[0]), f = sig(pre[1]), g = tanh(pre[2]), o = sig(pre[3]);
  T c = f * arg(a, 2, r, j) + i * g;
  res(a, 1, r, j) = c;
  res(a, 0, r, j) = o * tanh(c);
  res(a, 2, r, j) = i;
  res(a, 2, r, h + j) = f;
  res(a, 2, r, 2 * h + j) = g;
  res(a, 2, r, 3 * h + j) = o;
}

template <typename T> __device__ void lstm_bw(const rows_of<T> &a, int64_t r, int64_t j, int64_t h)
{
  const T *ws = a.in[4] + r * a.ld_in[4];
  T i = ws[j], f = ws[h + j], g = ws[2 * h + j], o = ws[3 * h + j];
  T tc = tanh(arg(a, 3, r, j)), gh = arg(a, 0, r, j);
  T gc = arg(a, 1, r, j) + gh * o * (1 - tc * tc);
  res(a, 0, r, j) = gc * g * i * (1 - i);
  res(a, 0, r, h + j) = gc * arg(a, 2, r, j) * f * (1 - f);
  res(a, 0, r, 2 * h + j) = gc * i * (1 - g * g);
  res(a, 0, r, 3 * h + j) = gh * tc * o * (1 - o);
  res(a, 1, r, j) = gc * f;
}

template <typename T> __device__ void gru(const rows_of<T> &a, int64_t r, int64_t j, int64_t h)
{
  T pr = arg(a, 0, r, j) + arg(a, 1, r, j) + bias(a, 3, j) + bias(a, 4, j);
  T pz = arg(a, 0, r, h + j) + arg(a, 1, r, h + j) + bias(a, 3, h + j) + bias(a, 4, h + j);
  T in = arg(a, 0, r, 2 * h + j) + bias(a, 3, 2 * h + j);
  T hn = arg(a, 1, r, 2 * h + j) + bias(a, 4, 2 * h + j), hx = arg(a, 2, r, j);
  T rr = sig(pr), z = sig(pz), n = tanh(in + rr * hn);
  res(a, 0, r, j) = n + z * (hx - n);
  res(a, 1, r, j) = rr;
  res(a, 1, r, h + j) = z;
  res(a, 1, r, 2 * h + j) = n;
  res(a, 1, r, 3 * h + j) = hx;
  res(a, 1, r, 4 * h + j) = hn;
}

template <typename T> __device__ void gru_bw(const rows_of<T> &a, int64_t r, int64_t j, int64_t h)
{
  const T *ws = a.in[1] + r * a.ld_in[1];
  T rr = ws[j], z = ws[h + j], n = ws[2 * h + j], hx = ws[3 * h + j], hn = ws[4 * h + j];
  T g = arg(a, 0, r, j);
  T gn = g * (1 - z) * (1 - n * n);
  T gz = g * (hx - n) * z * (1 - z);
  T gr = gn * hn * rr * (1 - rr);
  res(a, 0, r, j) = res(a, 1, r, j) = gr;
  res(a, 0, r, h + j) = res(a, 1, r, h + j) = gz;
  res(a, 0, r, 2 * h + j) = gn;
  res(a, 1, r, 2 * h + j) = gn * rr;
  res(a, 2, r, j) = g * z;
}

template <typename T>
__global__ void rnn_rows(rows_of<T> a, int kind, int64_t n, int64_t h)
{
  TL_GPU_GRID_LOOP(e, n * h)
  {
    int64_t r = e / h, j = e % h;
    switch (kind) {
    case TL_GPU_RNN_LSTM: lstm(a, r, j, h); break;
    case TL_GPU_RNN_LSTM_BACKWARD: lstm_bw(a, r, j, h); break;
    case TL_GPU_RNN_GRU: gru(a, r, j, h); break;
    case TL_GPU_RNN_GRU_BACKWARD: gru_bw(a, r, j, h); break;
    case TL_GPU_RNN_TANH:
    case TL_GPU_RNN_RELU: {
      T p = arg(a, 0, r, j) + arg(a, 1, r, j) + bias(a, 3, j) + bias(a, 4, j);
      res(a, 0, r, j) = kind == TL_GPU_RNN_RELU ? (p > 0 ? p : (T)0) : tanh(p);
      break;
    }
    default: { /* tanh' = 1 - hy^2, relu' = [hy > 0] */
      T g = arg(a, 0, r, j), y = arg(a, 1, r, j);
      res(a, 0, r, j) = kind == TL_GPU_RNN_RELU_BACKWARD ? (y > 0 ? g : (T)0) : g * (1 - y * y);
      break;
    }
    }
  }
}

template <typename T> int rows_launch(const tl_gpu_rnn_rows *p, cudaStream_t s)
{
  rows_of<T> a;
  for (int k = 0; k < 5; k++) {
    a.in[k] = (const T *)p->in[k];
    a.ld_in[k] = p->ld_in[k];
    a.out[k] = (T *)p->out[k];
    a.ld_out[k] = p->ld_out[k];
  }
  rnn_rows<T><<<tl_gpu_blocks_for(p->n * p->h), TL_GPU_THREADS, 0, s>>>(a, p->kind, p->n, p->h);
  return (int)cudaGetLastError();
}

template <typename T>
__global__ void colsum(const T *g, int64_t n, int64_t cols, int64_t ld, T *out)
{
  TL_GPU_GRID_LOOP(c, cols)
  {
    T s = 0;
    for (int64_t r = 0; r < n; r++)
      s += g[r * ld + c];
    out[c] = s;
  }
}

} // namespace

extern "C" int tl_gpu_rnn_rows_launch(const tl_gpu_rnn_rows *rows, void *stream)
{
  if (rows->n <= 0 || rows->h <= 0)
    return 0;
  cudaStream_t s = (cudaStream_t)stream;
  return rows->f64 ? rows_launch<double>(rows, s) : rows_launch<float>(rows, s);
}

extern "C" int tl_gpu_rnn_colsum_launch(int f64, const void *g, int64_t n, int64_t cols,
                                        int64_t ld, void *out, void *stream)
{
  if (cols <= 0)
    return 0;
  cudaStream_t s = (cudaStream_t)stream;
  if (f64)
    colsum<double><<<tl_gpu_blocks_for(cols), TL_GPU_THREADS, 0, s>>>((const double *)g, n, cols,
                                                                      ld, (double *)out);
  else
    colsum<float><<<tl_gpu_blocks_for(cols), TL_GPU_THREADS, 0, s>>>((const float *)g, n, cols,
                                                                     ld, (float *)out);
  return (int)cudaGetLastError();
}
