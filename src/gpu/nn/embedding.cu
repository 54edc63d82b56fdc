/* embedding.cu - embedding lookups, bags, their backward and the index
 * check, on CUDA.
 *
 * Legend: weight (V, E), indices (n,) int64 (already checked), grad (n, E)
 * or (B, E) for bags, dw (V, E) zeroed, all contiguous; float operands in
 * the work type T.
 *   gather     a thread per output element, moving the element's bytes
 *   scatter    a thread per (index, column): atomicAdd into dw, so rows
 *              that repeat an index are summed in no fixed order (the last
 *              bits vary run to run; PyTorch's default CUDA path does the same)
 *   bag        a thread per (bag, column) walks the bag's indices in order:
 *              sums and maxima as the CPU's loops make them, no atomics
 *   check      a thread per index; the lowest bad position wins an atomicMin,
 *              and the host reads it back (only where no index can be
 *              valid: hi <= 0)
 *   defer      a thread per index: a bad one is recorded in the device's
 *              error record (raised at the next synchronization) and
 *              replaced by 0 in the copy the op's kernels read; no sync */
#include <cuda_runtime.h>

#include "gpu/nn/tl_cuda_grid.cuh"
#include "gpu/nn/tl_gpu_act_loss.h"

namespace {

constexpr int THREADS = TL_GPU_THREADS;


__global__ void index_check(const int64_t *idx, int64_t n, int64_t hi, int64_t skip,
                            bool has_skip, unsigned long long *first)
{
  TL_GPU_GRID_LOOP(i, n)
  {
    int64_t v = idx[i];
    if ((v < 0 || v >= hi) && !(has_skip && v == skip))
      atomicMin(first, (unsigned long long)i);
  }
}

__global__ void index_defer(const int64_t *idx, int64_t *safe, int64_t n, int64_t hi, int64_t skip,
                            bool has_skip, tl_device_error *e, int op, int status, int kind)
{
  TL_GPU_GRID_LOOP(i, n)
  {
    int64_t v = idx[i];
    bool bad = (v < 0 || v >= hi) && !(has_skip && v == skip);
    if (bad && atomicCAS(reinterpret_cast<int *>(&e->flag), 0, 1) == 0) {
      e->op = op;
      e->dim = i <= 0x7fffffff ? (int32_t)i : -1;
      e->status = status;
      e->value = v;
      e->size = hi;
      e->kind = kind;
    }
    safe[i] = bad ? 0 : v;
  }
}

/* elements of U (the element's size) */
template <typename U>
__global__ void gather(const U *w, const int64_t *idx, U *out, int64_t n, int64_t E)
{
  TL_GPU_GRID_LOOP(i, n * E) { out[i] = w[idx[i / E] * E + i % E]; }
}

struct alignas(16) bytes16 {
  unsigned long long lo, hi;
};

__global__ void count_indices(const int64_t *idx, int64_t n, unsigned long long *count)
{
  TL_GPU_GRID_LOOP(i, n) { atomicAdd(&count[idx[i]], 1ull); }
}

template <typename T>
__global__ void scatter(const T *g, const int64_t *idx, const int64_t *count, T *dw, int64_t n,
                        int64_t E, int64_t pad)
{
  TL_GPU_GRID_LOOP(i, n * E)
  {
    int64_t r = i / E, k = i % E, v = idx[r];
    if (v == pad)
      continue;
    T f = count ? (T)1 / (T)count[v] : (T)1;
    atomicAdd(&dw[v * E + k], g[i] * f);
  }
}

template <typename T> __global__ void bag_forward(tl_gpu_bag_args a)
{
  const T *w = (const T *)a.w, *psw = (const T *)a.psw;
  T *out = (T *)a.out;
  const int64_t E = a.E, EE = E > 0 ? E : 1; /* E == 0: bag_size still counts */
  TL_GPU_GRID_LOOP(o, a.B * EE)
  {
    int64_t b = o / EE, k = o % EE, count = 0, arg = -1;
    T acc = 0;
    for (int64_t i = a.bounds[b]; i < a.bounds[b + 1]; i++) {
      int64_t v = a.idx[i];
      if (v == a.pad)
        continue;
      count++;
      T x = E ? w[v * E + k] : (T)0;
      if (a.mode == 2) { /* NaN wins, as PyTorch's max */
        if (arg < 0 || x > acc || x != x) {
          acc = x;
          arg = v;
        }
      } else {
        acc += (psw ? psw[i] : (T)1) * x;
      }
    }
    if (a.mode == 1 && count > 0)
      acc /= (T)count;
    if (E) {
      out[o] = acc;
      if (a.mode == 2)
        a.argmax[o] = arg;
    }
    if (k == 0)
      a.bag_size[b] = count;
  }
}

template <typename T> __global__ void bag_backward(tl_gpu_bag_args a)
{
  const T *g = (const T *)a.g, *psw = (const T *)a.psw;
  T *dw = (T *)a.dw;
  const int64_t E = a.E;
  if (a.mode == 2) {
    TL_GPU_GRID_LOOP(o, a.B * E)
    {
      int64_t v = a.argmax[o];
      if (v >= 0)
        atomicAdd(&dw[v * E + o % E], g[o]);
    }
    return;
  }
  TL_GPU_GRID_LOOP(j, a.n * E)
  {
    int64_t i = j / E, k = j % E, v = a.idx[i], b = a.bag_of[i];
    if (v == a.pad || b < 0)
      continue;
    T f = psw ? psw[i] : (T)1;
    if (a.mode == 1)
      f /= (T)a.bag_size[b];
    atomicAdd(&dw[v * E + k], g[b * E + k] * f);
  }
}

} // namespace

extern "C" int tl_gpu_index_check(const int64_t *idx, int64_t n, int64_t hi, int64_t skip,
                                  int has_skip, unsigned long long *scratch, int *bad,
                                  int64_t *value, void *stream)
{
  cudaStream_t s = (cudaStream_t)stream;
  unsigned long long first = ~0ull;
  int err;
  *bad = 0;
  if (n == 0)
    return 0;
  if ((err = cudaMemcpyAsync(scratch, &first, sizeof first, cudaMemcpyHostToDevice, s)))
    return err;
  index_check<<<tl_gpu_blocks_for(n), THREADS, 0, s>>>(idx, n, hi, skip, has_skip != 0, scratch);
  if ((err = cudaGetLastError()) ||
      (err = cudaMemcpyAsync(&first, scratch, sizeof first, cudaMemcpyDeviceToHost, s)) ||
      (err = cudaStreamSynchronize(s)))
    return err;
  if (first == ~0ull)
    return 0;
  *bad = 1;
  if ((err = cudaMemcpyAsync(value, idx + first, sizeof *value, cudaMemcpyDeviceToHost, s)))
    return err;
  return cudaStreamSynchronize(s);
}

extern "C" int tl_gpu_index_defer(const int64_t *idx, int64_t *safe, int64_t n, int64_t hi,
                                  int64_t skip, int has_skip, tl_device_error *err, int op,
                                  int status, int kind, void *stream)
{
  cudaStream_t s = (cudaStream_t)stream;
  if (n == 0)
    return 0;
  index_defer<<<tl_gpu_blocks_for(n), THREADS, 0, s>>>(idx, safe, n, hi, skip, has_skip != 0, err,
                                                       op, status, kind);
  return cudaGetLastError();
}

extern "C" int tl_gpu_embedding_gather(const char *w, const int64_t *idx, char *out, int64_t n,
                                       int64_t E, int itemsize, void *stream)
{
  cudaStream_t s = (cudaStream_t)stream;
  unsigned blocks = tl_gpu_blocks_for(n * E);
  if (n == 0 || E == 0)
    return 0;
  switch (itemsize) {
  case 1: gather<<<blocks, THREADS, 0, s>>>((const unsigned char *)w, idx, (unsigned char *)out, n, E); break;
  case 2: gather<<<blocks, THREADS, 0, s>>>((const unsigned short *)w, idx, (unsigned short *)out, n, E); break;
  case 4: gather<<<blocks, THREADS, 0, s>>>((const unsigned *)w, idx, (unsigned *)out, n, E); break;
  case 8: gather<<<blocks, THREADS, 0, s>>>((const unsigned long long *)w, idx, (unsigned long long *)out, n, E); break;
  default: gather<<<blocks, THREADS, 0, s>>>((const bytes16 *)w, idx, (bytes16 *)out, n, E); break;
  }
  return (int)cudaGetLastError();
}

extern "C" int tl_gpu_embedding_count(const int64_t *idx, int64_t n, int64_t *count, void *stream)
{
  if (n == 0)
    return 0;
  count_indices<<<tl_gpu_blocks_for(n), THREADS, 0, (cudaStream_t)stream>>>(
      idx, n, (unsigned long long *)count);
  return (int)cudaGetLastError();
}

extern "C" int tl_gpu_embedding_scatter(const void *g, const int64_t *idx, const int64_t *count,
                                        void *dw, int64_t n, int64_t E, int64_t pad, int f64,
                                        void *stream)
{
  cudaStream_t s = (cudaStream_t)stream;
  if (n == 0 || E == 0)
    return 0;
  if (f64)
    scatter<<<tl_gpu_blocks_for(n * E), THREADS, 0, s>>>((const double *)g, idx, count, (double *)dw, n,
                                                  E, pad);
  else
    scatter<<<tl_gpu_blocks_for(n * E), THREADS, 0, s>>>((const float *)g, idx, count, (float *)dw, n, E,
                                                  pad);
  return (int)cudaGetLastError();
}

extern "C" int tl_gpu_embedding_bag_forward(const tl_gpu_bag_args *a, void *stream)
{
  cudaStream_t s = (cudaStream_t)stream;
  if (a->B == 0)
    return 0;
  if (a->f64)
    bag_forward<double><<<tl_gpu_blocks_for(a->B * (a->E > 0 ? a->E : 1)), THREADS, 0, s>>>(*a);
  else
    bag_forward<float><<<tl_gpu_blocks_for(a->B * (a->E > 0 ? a->E : 1)), THREADS, 0, s>>>(*a);
  return (int)cudaGetLastError();
}

extern "C" int tl_gpu_embedding_bag_backward(const tl_gpu_bag_args *a, void *stream)
{
  cudaStream_t s = (cudaStream_t)stream;
  int64_t work = (a->mode == 2 ? a->B : a->n) * a->E;
  if (work == 0)
    return 0;
  if (a->f64)
    bag_backward<double><<<tl_gpu_blocks_for(work), THREADS, 0, s>>>(*a);
  else
    bag_backward<float><<<tl_gpu_blocks_for(work), THREADS, 0, s>>>(*a);
  return (int)cudaGetLastError();
}
