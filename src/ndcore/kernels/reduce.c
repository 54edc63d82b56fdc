/* reduce.c - the reduction engine and the reductions of ops.def.
 *
 * A pass (tl_reduce_pass) folds an input of any strides over any set of dims
 * into a contiguous accumulator `acc` shaped like the keepdim output:
 *
 *  1. Plan: drop size-1 dims; order the rest by the input's |stride|, largest
 *     outermost, so the innermost loop walks memory in order; merge
 *     neighbours that are both reduced or both kept and contiguous in every
 *     operand.  acc (and aux) have stride 0 along reduced dims, so the inner
 *     loop either folds a row into one accumulator (inner dim reduced) or
 *     accumulates a row of inputs into a row of accumulators (inner dim kept,
 *     e.g. summing a C-contiguous matrix over dim 0).  A short reduced inner
 *     dim is swapped for a long kept one, to make fewer, longer inner calls.
 *  2. Threads: with >= 16 outputs, the largest kept dim is cut into pieces;
 *     each output is then computed within one piece, in the same order as
 *     with one thread.  With fewer outputs, the largest reduced dim is cut
 *     into chunks whose number depends only on the size (never on the thread
 *     count); each chunk folds into a private accumulator and the chunks are
 *     merged in chunk order.  Threads claim pieces from a shared counter, so
 *     one held back by a busy machine delays only its own piece.  Results
 *     are the same, bit for bit, whatever the number of threads.
 *  3. Inputs whose dtype is not the pass's loop dtype are cast through
 *     small buffers, chunk by chunk.
 *
 * A sum of products (TL_RK_SUMPROD, einsum's fused contraction) is the
 * same pass with a second input in a fourth slot, shaped and typed as the
 * first: the plan orders dims by both inputs' strides, merges dims only
 * where both stay contiguous, and casts both through buffers.
 *
 * An op (tl_op_reduce) is one or two passes, then an elementwise finish on
 * acc (divide by the count, sqrt, log ...), then a cast into the result.
 * Accumulators: int64 for integers, double for real floats (float32 and the
 * half types included), complex128 for complex.                           */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "ndcore/dispatch/tl_dispatch.h"
#include "ndcore/dispatch/tl_parallel.h"
#include "ndcore/kernels/tl_reduce.h"

#define TL_REDUCE_CHUNK_WORK 65536 /* elements per chunk of a split reduced dim */
#define TL_REDUCE_MAX_CHUNKS 64
#define TL_REDUCE_MIN_STRIP 16     /* elements of a kept inner dim per piece, at least */
#define TL_REDUCE_BUF 1024         /* elements per cast buffer */
#define TL_REDUCE_SLOTS 4          /* acc, input, aux, input2 (TL_RK_SUMPROD's y) */

/* ---- the plan --------------------------------------------------------------- */

typedef struct {
  int nd;
  int64_t shape[TL_MAX_DIMS];
  int64_t strides[TL_REDUCE_SLOTS][TL_MAX_DIMS]; /* bytes: acc, input, aux, input2 */
  bool reduced[TL_MAX_DIMS];
  char *data[TL_REDUCE_SLOTS];
  tl_dtype in_dtype, loop_dtype;
  tl_loop_fn loop;
  void *params;
} reduce_plan;

static void plan_swap(reduce_plan *p, int a, int b)
{
  int64_t s = p->shape[a];
  p->shape[a] = p->shape[b];
  p->shape[b] = s;
  bool r = p->reduced[a];
  p->reduced[a] = p->reduced[b];
  p->reduced[b] = r;
  for (int k = 0; k < TL_REDUCE_SLOTS; k++) {
    int64_t t = p->strides[k][a];
    p->strides[k][a] = p->strides[k][b];
    p->strides[k][b] = t;
  }
}

static int64_t iabs64(int64_t x) { return x < 0 ? -x : x; }

/* The walking order's key: the inputs' bytes per step along a dim. */
static int64_t plan_key(const reduce_plan *p, int i)
{
  return iabs64(p->strides[1][i]) + iabs64(p->strides[3][i]);
}

/* in2 (NULL but for TL_RK_SUMPROD) has in's shape and dtype; it moves along
 * reduced dims as in does. */
static void plan_init(reduce_plan *p, const tl_tensor *in, uint64_t mask, const tl_tensor *acc,
                      const tl_tensor *aux, const tl_tensor *in2)
{
  int64_t in_size = (int64_t)tl_dtype_size(in->dtype);
  int64_t acc_size = (int64_t)tl_dtype_size(acc->dtype);
  int64_t aux_size = aux ? (int64_t)tl_dtype_size(aux->dtype) : 0;
  int nd = 0;
  for (int i = 0; i < in->ndim; i++) {
    if (in->shape[i] == 1)
      continue;
    bool red = mask >> i & 1;
    p->shape[nd] = in->shape[i];
    p->reduced[nd] = red;
    p->strides[0][nd] = red ? 0 : acc->strides[i] * acc_size;
    p->strides[1][nd] = in->strides[i] * in_size;
    p->strides[2][nd] = red || !aux ? 0 : aux->strides[i] * aux_size;
    p->strides[3][nd] = in2 ? in2->strides[i] * in_size : 0;
    nd++;
  }
  p->nd = nd;
  /* Insertion sort by |input stride| (both inputs' for a sum of products),
   * descending: innermost last. */
  for (int i = 1; i < nd; i++)
    for (int j = i; j > 0 && plan_key(p, j - 1) < plan_key(p, j); j--)
      plan_swap(p, j, j - 1);
  int m = 0;
  for (int i = 0; i < nd; i++) {
    bool merge = m > 0 && p->reduced[m - 1] == p->reduced[i];
    for (int k = 0; merge && k < TL_REDUCE_SLOTS; k++)
      merge = p->strides[k][m - 1] == p->strides[k][i] * p->shape[i];
    if (merge) {
      p->shape[m - 1] *= p->shape[i];
      for (int k = 0; k < TL_REDUCE_SLOTS; k++)
        p->strides[k][m - 1] = p->strides[k][i];
      continue;
    }
    if (m != i) {
      p->shape[m] = p->shape[i];
      p->reduced[m] = p->reduced[i];
      for (int k = 0; k < TL_REDUCE_SLOTS; k++)
        p->strides[k][m] = p->strides[k][i];
    }
    m++;
  }
  if (m == 0) { /* a single element */
    p->shape[0] = 1;
    p->reduced[0] = false;
    for (int k = 0; k < TL_REDUCE_SLOTS; k++)
      p->strides[k][0] = 0;
    m = 1;
  }
  p->nd = m;
  /* A short reduced inner dim makes many tiny calls: let the longest kept dim
   * be innermost instead, so each call accumulates a whole row of outputs. */
  if (m > 1 && p->reduced[m - 1] && p->shape[m - 1] < TL_REDUCE_SHORT_INNER) {
    int best = -1;
    for (int i = 0; i < m - 1; i++)
      if (!p->reduced[i] && (best < 0 || p->shape[i] > p->shape[best]))
        best = i;
    if (best >= 0 && p->shape[best] >= 4 * p->shape[m - 1])
      plan_swap(p, best, m - 1);
  }
  p->data[0] = tl_tensor_data(acc);
  p->data[1] = tl_tensor_data(in);
  p->data[2] = aux ? tl_tensor_data(aux) : NULL;
  p->data[3] = in2 ? tl_tensor_data(in2) : NULL;
}

/* One inner row, through cast buffers when the inputs need converting. */
static void run_inner(const reduce_plan *p, char **ptrs, int64_t n)
{
  const int last = p->nd - 1;
  int64_t steps[TL_REDUCE_SLOTS];
  for (int k = 0; k < TL_REDUCE_SLOTS; k++)
    steps[k] = p->strides[k][last];
  if (p->in_dtype == p->loop_dtype) {
    p->loop(ptrs, n, steps, p->params);
    return;
  }
  _Alignas(64) char buf[2][TL_REDUCE_BUF * 16];
  tl_loop_fn cast = tl_cast_loop(p->in_dtype, p->loop_dtype);
  int64_t lsize = (int64_t)tl_dtype_size(p->loop_dtype);
  for (int64_t done = 0; done < n; done += TL_REDUCE_BUF) {
    int64_t m = n - done < TL_REDUCE_BUF ? n - done : TL_REDUCE_BUF;
    int64_t csteps[2] = {lsize, steps[1]};
    char *cargs[2] = {buf[0], ptrs[1] + done * steps[1]};
    cast(cargs, m, csteps, NULL);
    if (ptrs[3]) {
      csteps[1] = steps[3];
      cargs[0] = buf[1];
      cargs[1] = ptrs[3] + done * steps[3];
      cast(cargs, m, csteps, NULL);
    }
    char *args[TL_REDUCE_SLOTS] = {ptrs[0] + done * steps[0], buf[0],
                                   ptrs[2] ? ptrs[2] + done * steps[2] : NULL,
                                   ptrs[3] ? buf[1] : NULL};
    int64_t lsteps[TL_REDUCE_SLOTS] = {steps[0], lsize, steps[2], lsize};
    p->loop(args, m, lsteps, p->params);
  }
}

/* Walk a box of the plan (its own shape and base pointers). */
static void walk(const reduce_plan *p, const int64_t *shape, char *const *data)
{
  const int nd = p->nd;
  int64_t idx[TL_MAX_DIMS] = {0};
  for (int i = 0; i < nd; i++)
    if (shape[i] == 0)
      return;
  for (;;) {
    char *ptrs[TL_REDUCE_SLOTS];
    for (int k = 0; k < TL_REDUCE_SLOTS; k++) {
      char *q = data[k];
      for (int i = 0; q && i < nd - 1; i++)
        q += idx[i] * p->strides[k][i];
      ptrs[k] = q;
    }
    run_inner(p, ptrs, shape[nd - 1]);
    int i = nd - 2;
    for (; i >= 0; i--) { /* odometer */
      if (++idx[i] < shape[i])
        break;
      idx[i] = 0;
    }
    if (i < 0)
      break;
  }
}

typedef struct {
  const reduce_plan *p;
  int dim;
  int nchunks;
  char *parts;       /* nchunks private accumulators, acc_bytes each */
  int64_t acc_bytes;
  int64_t kept_chunks; /* pieces of the kept dim (kept split) */
  int64_t next;        /* next piece to claim (atomic) */
} split_job;

/* Piece c of the kept dim: its outputs, whole. */
static void kept_piece(const split_job *job, int64_t c)
{
  const reduce_plan *p = job->p;
  const int64_t len = p->shape[job->dim];
  int64_t begin = c * len / job->kept_chunks, end = (c + 1) * len / job->kept_chunks;
  int64_t shape[TL_MAX_DIMS];
  char *data[TL_REDUCE_SLOTS];
  memcpy(shape, p->shape, sizeof shape);
  shape[job->dim] = end - begin;
  for (int k = 0; k < TL_REDUCE_SLOTS; k++)
    data[k] = p->data[k] ? p->data[k] + begin * p->strides[k][job->dim] : NULL;
  walk(p, shape, data);
}

/* Chunk c of the reduced dim, into its private accumulator. */
static void reduced_piece(const split_job *job, int64_t c)
{
  const reduce_plan *p = job->p;
  const int64_t len = p->shape[job->dim];
  int64_t lo = c * len / job->nchunks, hi = (c + 1) * len / job->nchunks;
  int64_t shape[TL_MAX_DIMS];
  memcpy(shape, p->shape, sizeof shape);
  shape[job->dim] = hi - lo;
  /* acc and aux have stride 0 along a reduced dim: only the inputs move. */
  char *data[TL_REDUCE_SLOTS] = {job->parts + c * job->acc_bytes,
                                 p->data[1] + lo * p->strides[1][job->dim], p->data[2],
                                 p->data[3] ? p->data[3] + lo * p->strides[3][job->dim] : NULL};
  walk(p, shape, data);
}

/* Each thread claims pieces until none is left, so a thread that the OS
 * holds back (a busy machine) costs its share, not everyone's wait; which
 * thread runs a piece never changes the result. */
static void claim_pieces(void *ctx, int64_t begin, int64_t end, int worker)
{
  (void)begin;
  (void)end;
  (void)worker;
  split_job *job = ctx;
  int64_t count = job->parts ? job->nchunks : job->kept_chunks;
  for (;;) {
    int64_t c = __atomic_fetch_add(&job->next, 1, __ATOMIC_RELAXED);
    if (c >= count)
      break;
    if (job->parts)
      reduced_piece(job, c);
    else
      kept_piece(job, c);
  }
}

static void fill_identity(tl_rkind kind, tl_tensor *acc)
{
  size_t size = tl_dtype_size(acc->dtype);
  int64_t n = tl_tensor_numel(acc);
  char *d = tl_tensor_data(acc);
  if (n == 0)
    return;
  tl_reduce_identity(kind, acc->dtype, d);
  /* Doubling copies: one memcpy per element cost more than a 200 x 200
   * sum's reading (a `rep movs` start-up each). */
  for (int64_t have = 1; have < n;) {
    int64_t k = have < n - have ? have : n - have;
    memcpy(d + have * (int64_t)size, d, (size_t)(k * (int64_t)size));
    have += k;
  }
}

/* How many pieces the kept dim `dim` is cut into; any number gives the same
 * results (each output is folded within one piece, in the same order).  When
 * it is the innermost dim (x.sum(0) of a C-contiguous matrix), each piece
 * reads a strip of every row: the narrower the strips, the more the reads
 * jump a row stride for a few cache lines, which the prefetcher does not
 * follow (64 strips of 32 floats summed a 2048 x 2048 float32 matrix in
 * 8.5 ms on one thread, one strip in 0.9 ms, 8 strips in 2.2 ms).  So one
 * strip per thread, the threads together reading every row whole. */
static int64_t kept_pieces(const reduce_plan *p, int dim)
{
  int64_t len = p->shape[dim];
  if (dim < p->nd - 1)
    return len < TL_REDUCE_MAX_CHUNKS ? len : TL_REDUCE_MAX_CHUNKS;
  int64_t strips = len / TL_REDUCE_MIN_STRIP, threads = tl_parallel_get_threads();
  return strips < 1 ? 1 : strips < threads ? strips : threads;
}

tl_reduce_pass_fn tl_reduce_device_pass[TL_DEVICE_COUNT];

/* A pass over host memory: in2 is NULL but for TL_RK_SUMPROD. */
static tl_status host_pass(tl_rkind kind, const tl_tensor *in, const tl_tensor *in2, uint64_t mask,
                           tl_dtype loop, tl_tensor *acc, const tl_tensor *aux, void *data)
{
  reduce_plan p;
  p.loop = tl_reduce_loops[kind][loop];
  if (!p.loop)
    return tl_error_set(TL_ERR_NOT_IMPLEMENTED, "reduction kernel %d has no loop for dtype %s",
                        (int)kind, tl_dtype_names[loop]);
  p.in_dtype = in->dtype;
  p.loop_dtype = loop;
  p.params = data;
  fill_identity(kind, acc);
  int64_t total = tl_tensor_numel(in), outputs = tl_tensor_numel(acc);
  if (total == 0 || outputs == 0)
    return TL_OK;
  plan_init(&p, in, mask, acc, aux, in2);

  int kept = -1, red = -1;
  for (int i = 0; i < p.nd; i++) {
    int *best = p.reduced[i] ? &red : &kept;
    if (*best < 0 || p.shape[i] > p.shape[*best])
      *best = i;
  }
  split_job job = {.p = &p};
  if (total < TL_REDUCE_GRAIN || (kept < 0 && red < 0)) {
    walk(&p, p.shape, p.data);
    return TL_OK;
  }
  if (kept >= 0 && (outputs >= TL_REDUCE_MIN_OUTPUTS || red < 0 || p.shape[red] < 2)) {
    job.dim = kept;
    job.kept_chunks = kept_pieces(&p, kept);
    tl_parallel_for(tl_parallel_get_threads(), 1, claim_pieces, &job);
    return TL_OK;
  }
  int64_t nchunks = total / TL_REDUCE_CHUNK_WORK;
  nchunks = nchunks < 2 ? 2 : nchunks > TL_REDUCE_MAX_CHUNKS ? TL_REDUCE_MAX_CHUNKS : nchunks;
  if (nchunks > p.shape[red])
    nchunks = p.shape[red];
  job.dim = red;
  job.nchunks = (int)nchunks;
  job.acc_bytes = outputs * (int64_t)tl_dtype_size(acc->dtype);
  job.parts = malloc((size_t)(nchunks * job.acc_bytes));
  if (!job.parts)
    return tl_error_set(TL_ERR_MEMORY, "out of memory for %lld partial reductions",
                        (long long)nchunks);
  tl_tensor part = *acc;
  tl_storage part_storage = {.refcount = 1, .data = job.parts, .nbytes = (size_t)job.acc_bytes,
                            .device = tl_device_cpu()}; /* host scratch */
  part.storage = &part_storage;
  part.offset = 0;
  fill_identity(kind, &part);
  for (int64_t c = 1; c < nchunks; c++)
    memcpy(job.parts + c * job.acc_bytes, job.parts, (size_t)job.acc_bytes);
  tl_parallel_for(tl_parallel_get_threads(), 1, claim_pieces, &job);
  tl_loop_fn merge = tl_reduce_loops[tl_reduce_merge_kind(kind)][acc->dtype];
  int64_t size = (int64_t)tl_dtype_size(acc->dtype);
  for (int64_t c = 0; c < nchunks; c++) {
    char *args[3] = {tl_tensor_data(acc), job.parts + c * job.acc_bytes, NULL};
    int64_t steps[3] = {size, size, 0};
    merge(args, outputs, steps, NULL);
  }
  free(job.parts);
  return TL_OK;
}

tl_status tl_reduce_pass(tl_rkind kind, const tl_tensor *in, uint64_t mask, tl_dtype loop,
                         tl_tensor *acc, const tl_tensor *aux, void *data)
{
  tl_device device = tl_tensor_device(in);
  if (!tl_dispatch_host_memory(device)) {
    tl_reduce_pass_fn pass = tl_reduce_device_pass[device.type];
    if (!pass)
      return tl_dispatch_no_kernel("reduction", device, loop);
    return pass(kind, in, mask, loop, acc, aux, data);
  }
  return host_pass(kind, in, NULL, mask, loop, acc, aux, data);
}

tl_status tl_reduce_sumprod_pass(const tl_tensor *a, const tl_tensor *b, uint64_t mask,
                                 tl_dtype loop, tl_tensor *acc)
{
  tl_device device = tl_tensor_device(a);
  if (!tl_dispatch_host_memory(device) || !tl_dispatch_host_memory(tl_tensor_device(b)))
    return tl_dispatch_no_kernel("sum of products", device, loop);
  return host_pass(TL_RK_SUMPROD, a, b, mask, loop, acc, NULL, NULL);
}
