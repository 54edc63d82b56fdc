/* iter.c - the strided N-d iteration engine (see tl_iter.h).
 *
 * Setup: broadcast every operand to the output's shape (stride 0 where it is
 * broadcast), drop size-1 dimensions, order dimensions so the one with the
 * smallest output stride is innermost, and merge neighbours that are
 * contiguous in every operand.  A contiguous tensor therefore runs as one
 * inner loop of numel elements, whatever its shape.
 *
 * Run: the flattened index range [0, numel) is split across threads; each
 * range walks its rows with an odometer and calls the inner loop once per row
 * piece, through cast buffers for operands whose dtype is not the loop's.   */
#include <string.h>

#include "ndcore/tensor/tl_dtype.h"
#include "ndcore/dispatch/tl_dispatch.h"
#include "ndcore/dispatch/tl_iter.h"
#include "ndcore/dispatch/tl_parallel.h"

/* Elements per cast buffer, and how much work makes a range worth a thread. */
#define TL_ITER_BUFSIZE 1024
#define TL_ITER_GRAIN 32768

static void iter_sort_dims(tl_iter *it)
{
  /* Insertion sort of dims by |output stride|, descending (innermost last),
   * stable so a C-contiguous output keeps its order. */
  for (int i = 1; i < it->ndim; i++) {
    for (int j = i; j > 0; j--) {
      int64_t a = it->strides[0][j - 1], b = it->strides[0][j];
      if ((a < 0 ? -a : a) >= (b < 0 ? -b : b))
        break;
      int64_t s = it->shape[j];
      it->shape[j] = it->shape[j - 1];
      it->shape[j - 1] = s;
      for (int k = 0; k < it->noperands; k++) {
        int64_t t = it->strides[k][j];
        it->strides[k][j] = it->strides[k][j - 1];
        it->strides[k][j - 1] = t;
      }
    }
  }
}

/* Products wrap (unsigned): an empty tensor's sizes and byte strides may
 * multiply past int64 (zeros((0, 2**62))); nothing is read through them. */
static int64_t iter_wrapping_mul(int64_t a, int64_t b)
{
  return (int64_t)((uint64_t)a * (uint64_t)b);
}

static void iter_coalesce(tl_iter *it)
{
  int nd = 0;
  for (int i = 0; i < it->ndim; i++) {
    if (it->shape[i] == 1)
      continue;
    bool merge = nd > 0;
    for (int k = 0; merge && k < it->noperands; k++)
      merge = it->strides[k][nd - 1] == iter_wrapping_mul(it->strides[k][i], it->shape[i]);
    if (merge) {
      it->shape[nd - 1] = iter_wrapping_mul(it->shape[nd - 1], it->shape[i]);
      for (int k = 0; k < it->noperands; k++)
        it->strides[k][nd - 1] = it->strides[k][i];
      continue;
    }
    it->shape[nd] = it->shape[i];
    for (int k = 0; k < it->noperands; k++)
      it->strides[k][nd] = it->strides[k][i];
    nd++;
  }
  if (nd == 0) { /* a single element */
    it->shape[0] = 1;
    for (int k = 0; k < it->noperands; k++)
      it->strides[k][0] = 0;
    nd = 1;
  }
  it->ndim = nd;
}

/* A CPU scalar (one element, maybe expanded) goes with any device's operands,
 * as in PyTorch: it is read on the host. */
static bool is_cpu_scalar(const tl_tensor *t)
{
  if (tl_tensor_device(t).type != TL_DEVICE_CPU)
    return false;
  for (int i = 0; i < t->ndim; i++)
    if (t->shape[i] != 1 && t->strides[i] != 0)
      return false;
  return true;
}

tl_status tl_iter_init(tl_iter *it, int noperands, const tl_tensor *const *ops,
                       const tl_dtype *loop_dtypes)
{
  const tl_tensor *out = ops[0];
  int bad = 0;
  it->noperands = noperands;
  it->noutputs = 1;
  it->ndim = out->ndim;
  it->cost = 1;
  it->pytorch_chunks = false;
  it->device = tl_tensor_device(out);
  it->host_scalar = 0;
  memcpy(it->shape, out->shape, (size_t)out->ndim * sizeof *out->shape);
  for (int k = 0; k < noperands; k++) {
    const tl_tensor *t = ops[k];
    /* ops[0] is out, whose device it->device is. */
    if (k > 0 && !tl_device_eq(tl_tensor_device(t), it->device)) {
      if (!is_cpu_scalar(t))
        return tl_check_same_device(2, (const tl_tensor *[]){out, t});
      it->host_scalar |= 1u << k;
    }
    int64_t itemsize = (int64_t)tl_dtype_size(t->dtype);
    int lead = out->ndim - t->ndim;
    bad = k;
    if (lead < 0)
      goto mismatch;
    for (int i = 0; i < out->ndim; i++) {
      int64_t size = i < lead ? 1 : t->shape[i - lead];
      if (size != 1 && size != out->shape[i])
        goto mismatch;
      /* in bytes (an empty tensor's may wrap: iter_wrapping_mul) */
      it->strides[k][i] = size == 1 ? 0 : iter_wrapping_mul(t->strides[i - lead], itemsize);
    }
    it->data[k] = tl_tensor_data(t);
    it->dtype[k] = t->dtype;
    it->loop_dtype[k] = loop_dtypes ? loop_dtypes[k] : t->dtype;
  }
  it->numel = tl_tensor_numel(out);
  iter_sort_dims(it);
  iter_coalesce(it);
  return TL_OK;

mismatch:;
  char so[256], st[256];
  return tl_error_set(TL_ERR_RUNTIME, "output with shape %s doesn't match the broadcast shape of "
                                      "an operand of shape %s",
                      tl_shape_str(so, sizeof so, out->ndim, out->shape),
                      tl_shape_str(st, sizeof st, ops[bad]->ndim, ops[bad]->shape));
}

/* ---- running ------------------------------------------------------------------ */

typedef struct {
  const tl_iter *it;
  tl_loop_fn loop;
  void *data;
  int noutputs;
  bool buffered;
} iter_job;

/* One inner row piece; casts through buffers when an operand needs it. */
static void run_piece(const iter_job *job, char **ptrs, int64_t n)
{
  const tl_iter *it = job->it;
  const int nop = it->noperands;
  int64_t steps[TL_ITER_MAX_OPERANDS];
  for (int k = 0; k < nop; k++)
    steps[k] = it->strides[k][it->ndim - 1];
  if (!job->buffered) {
    job->loop(ptrs, n, steps, job->data);
    return;
  }
  _Alignas(64) char buffers[TL_ITER_MAX_OPERANDS][TL_ITER_BUFSIZE * 16];
  for (int64_t done = 0; done < n; done += TL_ITER_BUFSIZE) {
    int64_t m = n - done < TL_ITER_BUFSIZE ? n - done : TL_ITER_BUFSIZE;
    char *args[TL_ITER_MAX_OPERANDS];
    int64_t loop_steps[TL_ITER_MAX_OPERANDS];
    for (int k = 0; k < nop; k++) {
      char *p = ptrs[k] + done * steps[k];
      if (it->dtype[k] == it->loop_dtype[k]) {
        args[k] = p;
        loop_steps[k] = steps[k];
        continue;
      }
      args[k] = buffers[k];
      loop_steps[k] = (int64_t)tl_dtype_size(it->loop_dtype[k]);
      if (k >= job->noutputs) {
        char *cargs[2] = {buffers[k], p};
        int64_t csteps[2] = {loop_steps[k], steps[k]};
        tl_cast_loop(it->dtype[k], it->loop_dtype[k])(cargs, m, csteps, NULL);
      }
    }
    job->loop(args, m, loop_steps, job->data);
    for (int k = 0; k < job->noutputs; k++) {
      if (it->dtype[k] == it->loop_dtype[k])
        continue;
      char *cargs[2] = {ptrs[k] + done * steps[k], buffers[k]};
      int64_t csteps[2] = {steps[k], loop_steps[k]};
      tl_cast_loop(it->loop_dtype[k], it->dtype[k])(cargs, m, csteps, NULL);
    }
  }
}

static void run_range(void *ctx, int64_t begin, int64_t end, int worker)
{
  (void)worker;
  const iter_job *job = ctx;
  const tl_iter *it = job->it;
  const int nd = it->ndim, nop = it->noperands;
  const int64_t inner = it->shape[nd - 1];
  int64_t idx[TL_MAX_DIMS];
  int64_t row = begin / inner, col = begin % inner;
  /* Decompose the row number into the outer multi-index. */
  for (int i = nd - 2; i >= 0; i--) {
    idx[i] = row % it->shape[i];
    row /= it->shape[i];
  }
  while (begin < end) {
    char *ptrs[TL_ITER_MAX_OPERANDS];
    for (int k = 0; k < nop; k++) {
      char *p = it->data[k] + col * it->strides[k][nd - 1];
      for (int i = 0; i < nd - 1; i++)
        p += idx[i] * it->strides[k][i];
      ptrs[k] = p;
    }
    int64_t n = inner - col < end - begin ? inner - col : end - begin;
    run_piece(job, ptrs, n);
    begin += n;
    col = 0;
    for (int i = nd - 2; i >= 0; i--) { /* odometer */
      if (++idx[i] < it->shape[i])
        break;
      idx[i] = 0;
    }
  }
}

/* The grain that makes tl_parallel_for cut n elements as PyTorch's
 * at::parallel_for cuts an elementwise op: serial below 32768 elements, else
 * min(threads, ceil(n / 32768)) chunks of ceil(n / chunks) each.  Loops whose
 * bits depend on where a run starts (float maximum/minimum: a vector block
 * or the scalar remainder of each thread's chunk) ask for it; the others keep
 * tl_parallel_for's finer ranges, which balance busy cores better. */
static int64_t pytorch_grain(int64_t n)
{
  int64_t threads = tl_parallel_get_threads();
  int64_t chunks = (n + TL_ITER_GRAIN - 1) / TL_ITER_GRAIN;
  if (n < TL_ITER_GRAIN || threads <= 1)
    return n + 1; /* one serial run */
  if (chunks > threads)
    chunks = threads;
  return (n + chunks - 1) / chunks;
}

/* The length of each thread's range when tl_iter_run cuts n elements with
 * pytorch_grain (tl_parallel_for: ranges of ceil(n / ranges) elements, at
 * most four per thread); n when they run as one. */
static int64_t pytorch_chunk(int64_t n)
{
  int64_t grain = pytorch_grain(n);
  int64_t threads = tl_parallel_get_threads();
  if (grain < 1024)
    grain = 1024;
  if (n < grain || threads <= 1)
    return n;
  int64_t max_ranges = (n + grain - 1) / grain, want = 4 * threads;
  if (max_ranges < 2)
    return n;
  int64_t ranges = max_ranges < want ? max_ranges : want;
  return (n + ranges - 1) / ranges;
}

void tl_iter_extrema_runs(const tl_iter *it, int64_t size, bool buffered, tl_extrema_runs *r)
{
  const int nd = it->ndim;
  const int64_t s0 = it->strides[0][nd - 1], s1 = it->strides[1][nd - 1],
                s2 = it->strides[2][nd - 1];
  r->numel = it->numel;
  r->inner = it->shape[nd - 1];
  r->chunk = pytorch_chunk(it->numel);
  r->buffer = buffered ? TL_ITER_BUFSIZE : 0;
  r->block = (int32_t)(64 / size);
  /* kernels_compare.c's extrema_vector_count */
  r->vector = s0 == size && (s1 == size || s1 == 0) && (s2 == size || s2 == 0) && (s1 || s2);
}

tl_status tl_iter_run(tl_iter *it, tl_loop_fn loop, void *data)
{
  char sd[32];
  if (!tl_dispatch_host_memory(it->device))
    return tl_error_set(TL_ERR_RUNTIME, "internal error: a CPU loop was asked to run on memory "
                                        "of device %s", tl_device_str(sd, sizeof sd, it->device));
  if (it->numel == 0)
    return TL_OK;
  iter_job job = {.it = it, .loop = loop, .data = data, .noutputs = it->noutputs};
  for (int k = 0; k < it->noperands; k++)
    job.buffered |= it->dtype[k] != it->loop_dtype[k];
  int64_t grain = TL_ITER_GRAIN / (it->cost > 0 ? it->cost : 1);
  if (it->pytorch_chunks)
    grain = pytorch_grain(it->numel);
  tl_parallel_for(it->numel, grain > 1024 ? grain : 1024, run_range, &job);
  return TL_OK;
}
