/* index.c - index expressions (NumPy's rules) and the two indexing kernels.
 *
 * An expression is resolved in two stages.  The basic items (ints, slices,
 * None, Ellipsis) become a view, exactly as NumPy builds one; each advanced
 * item (an index tensor, a mask, or an int when any tensor is present) is
 * recorded against the view dim it indexes, masks expanding into one index
 * tensor per dim through nonzero.  The advanced dims then either stay where
 * they are (their items were adjacent in the expression) or move to the
 * front (they were separated by a slice, None or Ellipsis).  Their index
 * tensors broadcast to one shape B, and the result has shape
 *     pre + B + post        (pre/post: the view dims before/after them).
 * tl_index_offsets folds the index tensors into one tensor of byte offsets,
 * checking every index before any memory is written; tl_index_move then
 * copies, with the trailing dims that are contiguous on both sides moved as
 * one block of bytes (a row of x[idx] is one memcpy).                       */
#include <stdio.h>
#include <string.h>

#include "ndcore/dispatch/tl_dispatch.h"
#include "ndcore/dispatch/tl_op.h"
#include "ndcore/kernels/tl_create.h"
#include "ndcore/kernels/tl_index.h"
#include "ndcore/kernels/tl_simd_clones.h"
#include "ndcore/tensor/tl_backend.h"
#include "ndcore/dispatch/tl_iter.h"
#include "ndcore/dispatch/tl_parallel.h"
#include "ndcore/tensor/tl_views.h"

/* ---- running an iteration ----------------------------------------------------- */

/* tl_iter_init does the broadcasting, ordering and coalescing; the walk is
 * ours because scatters must run in order on one thread and no operand ever
 * needs a cast buffer here. */
typedef struct {
  const tl_iter *it;
  tl_loop_fn loop;
  void *data;
} run_job;

static void run_range(void *ctx, int64_t begin, int64_t end, int worker)
{
  (void)worker;
  const run_job *job = ctx;
  const tl_iter *it = job->it;
  const int nd = it->ndim, nop = it->noperands;
  const int64_t inner = it->shape[nd - 1];
  int64_t idx[TL_MAX_DIMS], steps[TL_ITER_MAX_OPERANDS];
  int64_t row = begin / inner, col = begin % inner;
  for (int i = nd - 2; i >= 0; i--) {
    idx[i] = row % it->shape[i];
    row /= it->shape[i];
  }
  for (int k = 0; k < nop; k++)
    steps[k] = it->strides[k][nd - 1];
  while (begin < end) {
    char *ptrs[TL_ITER_MAX_OPERANDS];
    for (int k = 0; k < nop; k++) {
      char *p = it->data[k] + col * steps[k];
      for (int i = 0; i < nd - 1; i++)
        p += idx[i] * it->strides[k][i];
      ptrs[k] = p;
    }
    int64_t n = inner - col < end - begin ? inner - col : end - begin;
    job->loop(ptrs, n, steps, job->data);
    begin += n;
    col = 0;
    for (int i = nd - 2; i >= 0; i--) {
      if (++idx[i] < it->shape[i])
        break;
      idx[i] = 0;
    }
  }
}

/* grain <= 0: run in order on the calling thread. */
static void index_run(const tl_iter *it, tl_loop_fn loop, void *data, int64_t grain)
{
  run_job job = {.it = it, .loop = loop, .data = data};
  if (it->numel == 0)
    return;
  if (grain > 0) {
    tl_parallel_for(it->numel, grain, run_range, &job);
    return;
  }
  tl_unlocked unlocked = tl_parallel_unlock(it->numel); /* tl_parallel.h */
  run_range(&job, 0, it->numel, 0);
  tl_parallel_relock(&unlocked);
}

static inline int64_t load_i64(const char *p)
{
  int64_t v;
  memcpy(&v, p, sizeof v);
  return v;
}

/* ---- offsets ---------------------------------------------------------------------- */

typedef struct {
  int64_t size, stride;
  bool wrap, first;
  int bad;           /* set (atomically) when an index is out of range */
  int64_t bad_value;
} offsets_params;

/* args: off (int64), idx (int64). */
static void offsets_loop(char **args, int64_t n, const int64_t *steps, void *data)
{
  offsets_params *p = data;
  const int64_t size = p->size, stride = p->stride, s0 = steps[0], s1 = steps[1];
  for (int64_t i = 0; i < n; i++) {
    int64_t v = load_i64(args[1] + i * s1), w = v;
    if (w < 0 && p->wrap)
      w += size;
    if ((uint64_t)w >= (uint64_t)size) {
      __atomic_store_n(&p->bad_value, v, __ATOMIC_RELAXED);
      __atomic_store_n(&p->bad, 1, __ATOMIC_RELAXED);
      w = 0;
    }
    int64_t *dst = (int64_t *)(args[0] + i * s0);
    *dst = p->first ? w * stride : *dst + w * stride;
  }
}

tl_status tl_cpu_index_offsets_pass(const tl_tensor *off, const tl_tensor *idx,
                                    const tl_index_offsets_args *a, bool *bad, int64_t *bad_value)
{
  offsets_params p = {.size = a->size, .stride = a->stride, .wrap = a->wrap, .first = a->first};
  const tl_tensor *ops[2] = {off, idx};
  tl_iter it;
  if (tl_iter_init(&it, 2, ops, NULL) != TL_OK)
    return tl_error_status();
  index_run(&it, offsets_loop, &p, tl_tensor_numel(off) > 1 ? 1 << 16 : 0);
  *bad = p.bad != 0;
  *bad_value = p.bad_value;
  return TL_OK;
}

/* One index's pass: the CPU's loop (raising for a bad index), or the device's. */
static tl_status offsets_pass(const tl_tensor *off, const tl_tensor *idx,
                              const tl_index_offsets_args *a)
{
  tl_device device = tl_tensor_device(off);
  if (!tl_dispatch_host_memory(device)) {
    const tl_index_device_kernels *k = tl_index_device_prims("index", device, TL_DTYPE_I64);
    return k ? k->offsets(off, idx, a) : tl_error_status();
  }
  bool bad;
  int64_t value;
  if (tl_cpu_index_offsets_pass(off, idx, a, &bad, &value) != TL_OK)
    return tl_error_status();
  if (bad)
    return tl_error_set(a->err, "index %lld is out of bounds for dimension %d with size %lld",
                        (long long)value, a->dim, (long long)a->size);
  return TL_OK;
}

tl_status tl_index_offsets(tl_tensor *off, int ndim, const int64_t *shape, int k,
                           const tl_tensor *const *idx, const int64_t *sizes,
                           const int64_t *strides_bytes, const int *dims, bool wrap,
                           tl_status err)
{
  tl_device device = k > 0 ? tl_tensor_device(idx[0]) : tl_device_cpu();
  if (tl_tensor_empty(off, TL_DTYPE_I64, ndim, shape, device) != TL_OK)
    return tl_error_status();
  for (int j = 0; j < k; j++) {
    const tl_tensor *ix = idx[j];
    tl_tensor converted = {0};
    if (ix->dtype != TL_DTYPE_I64) {
      if (tl_tensor_to_dtype(&converted, ix, TL_DTYPE_I64) != TL_OK)
        goto fail;
      ix = &converted;
    }
    tl_index_offsets_args a = {.size = sizes[j], .stride = strides_bytes[j], .wrap = wrap,
                               .first = j == 0, .dim = dims[j], .err = err};
    tl_status status = TL_OK;
    if (tl_tensor_numel(off) > 0) {
      status = offsets_pass(off, ix, &a);
    } else if (ix->ndim == 0) {
      /* Nothing to fill, but NumPy checks an int (0-d) index eagerly; index
       * arrays it checks only over the broadcast shape, here empty. */
      tl_tensor scratch = {0};
      status = tl_tensor_empty(&scratch, TL_DTYPE_I64, ix->ndim, ix->shape, device);
      if (status == TL_OK)
        status = offsets_pass(&scratch, ix, &a);
      tl_tensor_release(&scratch);
    }
    tl_tensor_release(&converted);
    if (status != TL_OK)
      goto fail;
  }
  return TL_OK;
fail:
  tl_tensor_release(off);
  return tl_error_status();
}

/* ---- the move kernels ----------------------------------------------------------------
 * Operands: gather (out, base, off), scatter (off, base, data).  A block is
 * `bytes` bytes, `nelem` elements of `dtype`.  A gather through one index
 * tensor reads it raw (no offsets pass): the loop wraps and checks each
 * index against `size` and scales it by `stride`; its output is discarded
 * when one is out of range.                                                 */

typedef void (*block_fn)(void *d, const void *v, int64_t n);

typedef struct {
  size_t bytes;
  int64_t nelem;
  tl_index_reduce reduce;
  block_fn block;       /* reducing scatters of aligned blocks (or NULL) */
  int64_t size, stride; /* raw gathers */
  int bad;
  int64_t bad_value;
} move_params;

/* A raw index for index_move: the dim it indexes, for messages. */
typedef struct {
  int64_t size, stride;
  int dim;
} raw_index;

static inline __attribute__((always_inline)) void gather_blocks(char **args, int64_t n,
                                                                const int64_t *steps, size_t size)
{
  /* Steps live in locals: stores through char * could alias steps[]. */
  char *out = args[0];
  const char *base = args[1], *off = args[2];
  const int64_t s0 = steps[0], s1 = steps[1], s2 = steps[2];
  for (int64_t i = 0; i < n; i++)
    memcpy(out + i * s0, base + i * s1 + load_i64(off + i * s2), size);
}

static inline __attribute__((always_inline)) void gather_raw_blocks(char **args, int64_t n,
                                                                    const int64_t *steps,
                                                                    size_t size, move_params *p)
{
  char *out = args[0];
  const char *base = args[1], *off = args[2];
  const int64_t dim_size = p->size, stride = p->stride, s0 = steps[0], s1 = steps[1],
                s2 = steps[2];
  bool bad = dim_size == 0; /* no element 0 to stand in: every index is bad */
  /* Branch-free: a bad index reads element 0 instead and is reported after. */
  for (int64_t i = 0; i < n && !bad; i++) {
    int64_t v = load_i64(off + i * s2), w = v < 0 ? v + dim_size : v;
    bool ok = (uint64_t)w < (uint64_t)dim_size;
    bad |= !ok;
    w = ok ? w : 0;
    memcpy(out + i * s0, base + i * s1 + w * stride, size);
  }
  for (int64_t i = 0; bad && i < n; i++) {
    int64_t v = load_i64(off + i * s2), w = v < 0 ? v + dim_size : v;
    if ((uint64_t)w >= (uint64_t)dim_size) {
      __atomic_store_n(&p->bad_value, v, __ATOMIC_RELAXED);
      __atomic_store_n(&p->bad, 1, __ATOMIC_RELAXED);
      break;
    }
  }
}

static inline __attribute__((always_inline)) void scatter_blocks(char **args, int64_t n,
                                                                 const int64_t *steps, size_t size)
{
  const char *off = args[0], *data = args[2];
  char *base = args[1];
  const int64_t s0 = steps[0], s1 = steps[1], s2 = steps[2];
  for (int64_t i = 0; i < n; i++)
    memcpy(base + i * s1 + load_i64(off + i * s0), data + i * s2, size);
}

/* Fixed sizes let the compiler turn each memcpy into one load and store. */
#define TL_MOVE_SIZED(GATHER, GATHER_RAW, SCATTER, SIZE)                                     \
  static void GATHER(char **args, int64_t n, const int64_t *steps, void *data)              \
  {                                                                                         \
    (void)data;                                                                             \
    gather_blocks(args, n, steps, SIZE);                                                    \
  }                                                                                         \
  static void GATHER_RAW(char **args, int64_t n, const int64_t *steps, void *data)          \
  {                                                                                         \
    gather_raw_blocks(args, n, steps, SIZE, data);                                          \
  }                                                                                         \
  static void SCATTER(char **args, int64_t n, const int64_t *steps, void *data)             \
  {                                                                                         \
    (void)data;                                                                             \
    scatter_blocks(args, n, steps, SIZE);                                                   \
  }
TL_MOVE_SIZED(gather_1, gather_raw_1, scatter_1, 1)
TL_MOVE_SIZED(gather_2, gather_raw_2, scatter_2, 2)
TL_MOVE_SIZED(gather_4, gather_raw_4, scatter_4, 4)
TL_MOVE_SIZED(gather_8, gather_raw_8, scatter_8, 8)
TL_MOVE_SIZED(gather_16, gather_raw_16, scatter_16, 16)
#undef TL_MOVE_SIZED

static void gather_any(char **args, int64_t n, const int64_t *steps, void *data)
{
  gather_blocks(args, n, steps, ((const move_params *)data)->bytes);
}

static void gather_raw_any(char **args, int64_t n, const int64_t *steps, void *data)
{
  gather_raw_blocks(args, n, steps, ((const move_params *)data)->bytes, data);
}

static void scatter_any(char **args, int64_t n, const int64_t *steps, void *data)
{
  scatter_blocks(args, n, steps, ((const move_params *)data)->bytes);
}

/* Reducing scatters: one loop per dtype, the reduction chosen per call.
 * amax/amin propagate NaN like maximum/minimum; complex has no order.  T is
 * the dtype's compute type, LOAD/STORE move one element of it. */
#define TL_REDUCE_BODY(T, LOAD, STORE, COMBINE)                                     \
  for (int64_t i = 0; i < n; i++) {                                                 \
    char *d = base + i * steps[1] + load_i64(off + i * steps[0]);                   \
    const char *v = src + i * steps[2];                                             \
    for (int64_t e = 0; e < nelem; e++, d += size, v += size) {                     \
      T a = LOAD(d), b = LOAD(v);                                                   \
      STORE(d, COMBINE);                                                            \
    }                                                                               \
  }
#define TL_REDUCE_LOOP(NAME, DTYPE, T, LOAD, STORE, MUL, MAX, MIN)                  \
  static void NAME(char **args, int64_t n, const int64_t *steps, void *data)        \
  {                                                                                 \
    const move_params *p = data;                                                    \
    const char *off = args[0], *src = args[2];                                      \
    char *base = args[1];                                                           \
    const int64_t nelem = p->nelem, size = (int64_t)tl_dtype_size(DTYPE);           \
    switch (p->reduce) {                                                            \
    case TL_INDEX_REDUCE_MUL: TL_REDUCE_BODY(T, LOAD, STORE, MUL) break;            \
    case TL_INDEX_REDUCE_AMAX: TL_REDUCE_BODY(T, LOAD, STORE, MAX) break;           \
    case TL_INDEX_REDUCE_AMIN: TL_REDUCE_BODY(T, LOAD, STORE, MIN) break;           \
    default: TL_REDUCE_BODY(T, LOAD, STORE, a + b) break;                           \
    }                                                                               \
  }
/* a != a is NaN for floats and never true for integers. */
#define TL_MAX (a != a || a > b) ? a : b
#define TL_MIN (a != a || a < b) ? a : b
TL_REDUCE_LOOP(scatter_reduce_BOOL, TL_DTYPE_BOOL, bool, tl_load_BOOL, tl_store_BOOL, a && b, a || b, a && b)
TL_REDUCE_LOOP(scatter_reduce_U8, TL_DTYPE_U8, uint8_t, tl_load_U8, tl_store_U8, a * b, TL_MAX, TL_MIN)
TL_REDUCE_LOOP(scatter_reduce_U16, TL_DTYPE_U16, uint16_t, tl_load_U16, tl_store_U16, 1u * a * b, TL_MAX, TL_MIN)
TL_REDUCE_LOOP(scatter_reduce_U32, TL_DTYPE_U32, uint32_t, tl_load_U32, tl_store_U32, a * b, TL_MAX, TL_MIN)
TL_REDUCE_LOOP(scatter_reduce_U64, TL_DTYPE_U64, uint64_t, tl_load_U64, tl_store_U64, a * b, TL_MAX, TL_MIN)
TL_REDUCE_LOOP(scatter_reduce_I8, TL_DTYPE_I8, int8_t, tl_load_I8, tl_store_I8, a * b, TL_MAX, TL_MIN)
TL_REDUCE_LOOP(scatter_reduce_I16, TL_DTYPE_I16, int16_t, tl_load_I16, tl_store_I16, a * b, TL_MAX, TL_MIN)
TL_REDUCE_LOOP(scatter_reduce_I32, TL_DTYPE_I32, int32_t, tl_load_I32, tl_store_I32, a * b, TL_MAX, TL_MIN)
TL_REDUCE_LOOP(scatter_reduce_I64, TL_DTYPE_I64, int64_t, tl_load_I64, tl_store_I64, a * b, TL_MAX, TL_MIN)
TL_REDUCE_LOOP(scatter_reduce_F16, TL_DTYPE_F16, float, tl_load_F16, tl_store_F16, a * b, TL_MAX, TL_MIN)
TL_REDUCE_LOOP(scatter_reduce_BF16, TL_DTYPE_BF16, float, tl_load_BF16, tl_store_BF16, a * b, TL_MAX, TL_MIN)
TL_REDUCE_LOOP(scatter_reduce_F32, TL_DTYPE_F32, float, tl_load_F32, tl_store_F32, a * b, TL_MAX, TL_MIN)
TL_REDUCE_LOOP(scatter_reduce_F64, TL_DTYPE_F64, double, tl_load_F64, tl_store_F64, a * b, TL_MAX, TL_MIN)
/* Complex has no order: tl_index_move refuses amax/amin before we get here. */
TL_REDUCE_LOOP(scatter_reduce_C64, TL_DTYPE_C64, float complex, tl_load_C64, tl_store_C64, a * b,
               ((void)b, a), ((void)b, a))
TL_REDUCE_LOOP(scatter_reduce_C128, TL_DTYPE_C128, double complex, tl_load_C128, tl_store_C128,
               a * b, ((void)b, a), ((void)b, a))
/* float8: index_put_(accumulate=True), which PyTorch runs on float8, adds
 * in float and rounds each sum (the other reducing scatters refuse float8). */
#define TL_F8_REDUCE_LOOP(E)                                                         \
  TL_REDUCE_LOOP(scatter_reduce_##E, TL_DTYPE_##E, float, tl_load_##E, tl_store_##E, a * b, \
                 TL_MAX, TL_MIN)
TL_F8_REDUCE_LOOP(F8E4M3FN)
TL_F8_REDUCE_LOOP(F8E5M2)
TL_F8_REDUCE_LOOP(F8E4M3FNUZ)
TL_F8_REDUCE_LOOP(F8E5M2FNUZ)
TL_F8_REDUCE_LOOP(F8E8M0FNU)
#undef TL_F8_REDUCE_LOOP
#undef TL_MAX
#undef TL_MIN
#undef TL_REDUCE_LOOP
#undef TL_REDUCE_BODY

/* A reducing scatter whose block is more than one element: each row is a
 * contiguous run of elements in both base and data (move_run's block), so
 * the row is one call of a typed loop that vectorizes.  Its elements are
 * distinct, so vectors change no result: each still takes one combine per
 * row, rows in order.  d and v never overlap (a src sharing self's memory
 * is copied first).  F16/BF16, complex and bool keep the element loops. */
#define TL_BLOCK_REDUCE(NAME, T, COMBINE)                                           \
  TL_SIMD_CLONES static void NAME(void *d_, const void *v_, int64_t n)              \
  {                                                                                 \
    T *restrict d = d_;                                                             \
    const T *restrict v = v_;                                                       \
    for (int64_t e = 0; e < n; e++) {                                               \
      T a = d[e], b = v[e];                                                         \
      d[e] = COMBINE;                                                               \
    }                                                                               \
  }
#define TL_BLOCK_REDUCE_SET(SUFFIX, T, MAX, MIN)                                    \
  TL_BLOCK_REDUCE(block_add_##SUFFIX, T, a + b)                                     \
  TL_BLOCK_REDUCE(block_mul_##SUFFIX, T, a * b)                                     \
  TL_BLOCK_REDUCE(block_max_##SUFFIX, T, MAX)                                       \
  TL_BLOCK_REDUCE(block_min_##SUFFIX, T, MIN)
/* As TL_MAX/TL_MIN: NaN propagates (a != a never holds for integers). */
TL_BLOCK_REDUCE_SET(F32, float, (a != a || a > b) ? a : b, (a != a || a < b) ? a : b)
TL_BLOCK_REDUCE_SET(F64, double, (a != a || a > b) ? a : b, (a != a || a < b) ? a : b)
TL_BLOCK_REDUCE_SET(I32, int32_t, a > b ? a : b, a < b ? a : b)
TL_BLOCK_REDUCE_SET(I64, int64_t, a > b ? a : b, a < b ? a : b)
#undef TL_BLOCK_REDUCE_SET
#undef TL_BLOCK_REDUCE

/* The typed row loop for dtype d and a reduction, or NULL. */
static block_fn block_reduce_fn(tl_dtype d, tl_index_reduce r)
{
  static const block_fn fns[4][4] = {
      {block_add_F32, block_mul_F32, block_max_F32, block_min_F32},
      {block_add_F64, block_mul_F64, block_max_F64, block_min_F64},
      {block_add_I32, block_mul_I32, block_max_I32, block_min_I32},
      {block_add_I64, block_mul_I64, block_max_I64, block_min_I64},
  };
  int t = d == TL_DTYPE_F32 ? 0 : d == TL_DTYPE_F64 ? 1 : d == TL_DTYPE_I32 ? 2
        : d == TL_DTYPE_I64 ? 3 : -1;
  int op = r == TL_INDEX_REDUCE_ADD ? 0 : r == TL_INDEX_REDUCE_MUL ? 1
         : r == TL_INDEX_REDUCE_AMAX ? 2 : r == TL_INDEX_REDUCE_AMIN ? 3 : -1;
  return t < 0 || op < 0 ? NULL : fns[t][op];
}

/* args: off, base, data; one block of p->nelem elements per index. */
static void scatter_reduce_block(char **args, int64_t n, const int64_t *steps, void *data)
{
  const move_params *p = data;
  const char *off = args[0], *src = args[2];
  char *base = args[1];
  const int64_t s0 = steps[0], s1 = steps[1], s2 = steps[2], nelem = p->nelem;
  for (int64_t i = 0; i < n; i++)
    p->block(base + i * s1 + load_i64(off + i * s0), src + i * s2, nelem);
}

static tl_loop_fn reduce_loop(tl_dtype d)
{
  switch (d) {
  case TL_DTYPE_BOOL: return scatter_reduce_BOOL;
  case TL_DTYPE_U8: return scatter_reduce_U8;
  case TL_DTYPE_U16: return scatter_reduce_U16;
  case TL_DTYPE_U32: return scatter_reduce_U32;
  case TL_DTYPE_U64: return scatter_reduce_U64;
  case TL_DTYPE_I8: return scatter_reduce_I8;
  case TL_DTYPE_I16: return scatter_reduce_I16;
  case TL_DTYPE_I32: return scatter_reduce_I32;
  case TL_DTYPE_I64: return scatter_reduce_I64;
  case TL_DTYPE_F16: return scatter_reduce_F16;
  case TL_DTYPE_BF16: return scatter_reduce_BF16;
  case TL_DTYPE_F32: return scatter_reduce_F32;
  case TL_DTYPE_F64: return scatter_reduce_F64;
  case TL_DTYPE_C64: return scatter_reduce_C64;
  case TL_DTYPE_F8E4M3FN: return scatter_reduce_F8E4M3FN;
  case TL_DTYPE_F8E5M2: return scatter_reduce_F8E5M2;
  case TL_DTYPE_F8E4M3FNUZ: return scatter_reduce_F8E4M3FNUZ;
  case TL_DTYPE_F8E5M2FNUZ: return scatter_reduce_F8E5M2FNUZ;
  case TL_DTYPE_F8E8M0FNU: return scatter_reduce_F8E8M0FNU;
  default: return scatter_reduce_C128;
  }
}

/* A byte view of t's first ndim dims (strides in bytes). */
static tl_tensor byte_view(const tl_tensor *t, int ndim)
{
  const int64_t size = (int64_t)tl_dtype_size(t->dtype);
  tl_tensor v = {.storage = t->storage, .dtype = TL_DTYPE_U8, .ndim = ndim,
                 .offset = t->offset * size};
  for (int i = 0; i < ndim; i++) {
    v.shape[i] = t->shape[i];
    v.strides[i] = t->strides[i] * size;
  }
  return v;
}

/* Complex numbers have no order. */
static tl_status refuse_reduce(const tl_tensor *data, tl_index_reduce reduce)
{
  if (tl_dtype_is_complex(data->dtype) &&
      (reduce == TL_INDEX_REDUCE_AMAX || reduce == TL_INDEX_REDUCE_AMIN))
    return tl_error_set(TL_ERR_RUNTIME, "amax/amin reductions are not supported for complex "
                                        "dtype %s", tl_dtype_names[data->dtype]);
  return TL_OK;
}

/* The loop that moves p's blocks (p->bytes, p->nelem, p->reduce, p->block
 * set; raw: a gather reading its one index raw). */
static tl_loop_fn move_loop(bool scatter, const move_params *p, tl_dtype dtype, bool raw)
{
  if (p->reduce != TL_INDEX_REDUCE_NONE)
    return p->block ? scatter_reduce_block : reduce_loop(dtype);
  if (raw) {
    switch (p->bytes) {
    case 1: return gather_raw_1;
    case 2: return gather_raw_2;
    case 4: return gather_raw_4;
    case 8: return gather_raw_8;
    case 16: return gather_raw_16;
    default: return gather_raw_any;
    }
  }
  switch (p->bytes) {
  case 1: return scatter ? scatter_1 : gather_1;
  case 2: return scatter ? scatter_2 : gather_2;
  case 4: return scatter ? scatter_4 : gather_4;
  case 8: return scatter ? scatter_8 : gather_8;
  case 16: return scatter ? scatter_16 : gather_16;
  default: return scatter ? scatter_any : gather_any;
  }
}

/* ---- scatters across threads -----------------------------------------------------------
 * In a scatter into a tensor whose elements are distinct memory, an element
 * is written only by the iterations that share its coordinates along the
 * dims where base has a nonzero stride (the dims no index selects: an
 * element's coordinates there are its own).  Threads that split those
 * coordinates, each walking its share in the serial order, give every
 * element the writes of the serial walk in the same order: the same last
 * value, the same sums bit for bit.  The split is over the block's columns
 * when a block is wide enough (each thread walks every index, moving its
 * columns), else over the longest such dim of the iteration.              */
typedef struct {
  const tl_iter *it;
  const move_params *p;
  tl_dtype dtype;
  int dim;           /* the iteration dim split, or -1: the block's columns */
  int64_t n, parts;  /* n coordinates (or columns) in `parts` shares */
  int64_t align;     /* shares start at multiples of this many */
} split_job;

/* Where share i starts: shares are equal, rounded to `align`. */
static int64_t split_bound(const split_job *job, int64_t i)
{
  if (i >= job->parts)
    return job->n;
  int64_t b = job->n * i / job->parts;
  return b - b % job->align;
}

static void split_range(void *ctx, int64_t first, int64_t last, int worker)
{
  const split_job *job = ctx;
  const int64_t begin = split_bound(job, first), end = split_bound(job, last);
  if (begin >= end)
    return;
  tl_iter sub = *job->it;
  move_params p = *job->p;
  if (job->dim < 0) { /* columns [begin, end) of every block, in base and data */
    const int64_t size = (int64_t)tl_dtype_size(job->dtype);
    sub.data[1] += begin * size;
    sub.data[2] += begin * size;
    p.nelem = end - begin;
    p.bytes = (size_t)(p.nelem * size);
  } else {
    sub.numel = sub.numel / sub.shape[job->dim] * (end - begin);
    sub.shape[job->dim] = end - begin;
    for (int k = 0; k < sub.noperands; k++)
      sub.data[k] += begin * sub.strides[k][job->dim];
  }
  run_job run = {.it = &sub, .loop = move_loop(true, &p, job->dtype, false), .data = &p};
  run_range(&run, 0, sub.numel, worker);
}

/* Elements of work below which a scatter stays on one thread, and the
 * bytes of a row a thread takes at least when it splits rows: a cache line,
 * so that no two threads write one line (each thread takes one share, whole:
 * the pool's finer ranges would interleave the threads along a row). */
#define TL_SCATTER_SPLIT_MIN 32768
#define TL_SCATTER_SPLIT_BYTES 64

/* Run the scatter over `it` split across threads; false (nothing run) when
 * it is too small or has nothing to split. */
static bool scatter_split(const tl_iter *it, const move_params *p, tl_dtype dtype)
{
  const int64_t work = it->numel * p->nelem, size = (int64_t)tl_dtype_size(dtype);
  const int threads = tl_parallel_get_threads();
  if (threads < 2 || work < 2 * TL_SCATTER_SPLIT_MIN)
    return false;
  split_job job = {.it = it, .p = p, .dtype = dtype, .dim = -1, .n = p->nelem};
  int64_t step = size; /* bytes between neighbouring coordinates in base */
  if (p->nelem * size < 2 * TL_SCATTER_SPLIT_BYTES) {
    job.dim = -2;
    for (int d = 0; d < it->ndim; d++) /* base is operand 1 */
      if (it->strides[1][d] != 0 && it->shape[d] > 1 &&
          (job.dim < 0 || it->shape[d] > it->shape[job.dim]))
        job.dim = d;
    if (job.dim < 0)
      return false;
    job.n = it->shape[job.dim];
    step = it->strides[1][job.dim] < 0 ? -it->strides[1][job.dim] : it->strides[1][job.dim];
  }
  job.align = step < TL_SCATTER_SPLIT_BYTES ? TL_SCATTER_SPLIT_BYTES / step : 1;
  const int64_t per = work / job.n; /* work per coordinate */
  int64_t min_share = (TL_SCATTER_SPLIT_MIN + per - 1) / per;
  if (min_share < job.align)
    min_share = job.align;
  job.parts = job.n / min_share < threads ? job.n / min_share : threads;
  if (job.parts < 2)
    return false;
  tl_parallel_for(job.parts, 1, split_range, &job);
  return true;
}

/* disjoint: a scatter's base is a tensor whose elements are distinct memory
 * (the split above may run). */
static tl_status move_run(bool scatter, const tl_tensor *data, const tl_tensor *base,
                          const tl_tensor *off, tl_index_reduce reduce, const raw_index *raw,
                          bool disjoint)
{
  const int nd = data->ndim;
  const size_t size = tl_dtype_size(data->dtype);
  if (tl_tensor_numel(data) == 0)
    return TL_OK;
  if (refuse_reduce(data, reduce) != TL_OK)
    return tl_error_status();
  /* The block: trailing dims with no index, laid out alike and contiguously in
   * data and base. */
  int64_t block = 1;
  int cut = nd;
  for (int d = nd - 1; d >= 0; d--) {
    if (data->shape[d] != 1 && (off->strides[d] != 0 || data->strides[d] != block ||
                                base->strides[d] != block))
      break;
    block *= data->shape[d];
    cut = d;
  }
  tl_tensor data_b = byte_view(data, cut), base_b = byte_view(base, cut), off_b = *off;
  off_b.ndim = cut;
  move_params p = {.bytes = (size_t)block * size, .nelem = block, .reduce = reduce};
  if (raw) {
    p.size = raw->size;
    p.stride = raw->stride;
  }
  /* Rows start at multiples of the element size from base and data (offsets
   * and strides are such multiples): aligned starts make every row aligned. */
  if (reduce != TL_INDEX_REDUCE_NONE && block > 1 &&
      ((uintptr_t)tl_tensor_data(data) | (uintptr_t)tl_tensor_data(base)) % size == 0)
    p.block = block_reduce_fn(data->dtype, reduce);
  /* Gathers iterate in the output's order; scatters in the offsets' order,
   * which is the index's C order, so a repeated index keeps its last value. */
  const tl_tensor *ops[3];
  if (scatter) {
    ops[0] = &off_b;
    ops[1] = &base_b;
    ops[2] = &data_b;
  } else {
    ops[0] = &data_b;
    ops[1] = &base_b;
    ops[2] = &off_b;
  }
  tl_iter it;
  if (tl_iter_init(&it, 3, ops, NULL) != TL_OK)
    return tl_error_status();
  if (scatter && disjoint && it.numel > 0 && scatter_split(&it, &p, data->dtype))
    return TL_OK;
  int64_t grain = (int64_t)((256 << 10) / p.bytes);
  index_run(&it, move_loop(scatter, &p, data->dtype, raw != NULL), &p,
            scatter ? 0 : (grain > 64 ? grain : 64));
  if (p.bad)
    return tl_error_set(TL_ERR_INDEX, "index %lld is out of bounds for dimension %d with size "
                        "%lld", (long long)p.bad_value, raw->dim, (long long)raw->size);
  return TL_OK;
}

tl_status tl_cpu_index_move(bool scatter, const tl_tensor *data, const tl_tensor *base,
                            const tl_tensor *off, tl_index_reduce reduce)
{
  return move_run(scatter, data, base, off, reduce, NULL, false);
}

tl_status tl_index_move(bool scatter, const tl_tensor *data, const tl_tensor *base,
                        const tl_tensor *off, tl_index_reduce reduce)
{
  tl_device device = tl_tensor_device(data);
  if (tl_dispatch_host_memory(device))
    return move_run(scatter, data, base, off, reduce, NULL, false);
  if (tl_tensor_numel(data) == 0)
    return TL_OK;
  if (refuse_reduce(data, reduce) != TL_OK)
    return tl_error_status();
  const tl_index_device_kernels *k = tl_index_device_prims("index", device, data->dtype);
  return k ? k->move(scatter, data, base, off, reduce) : tl_error_status();
}

tl_status tl_index_scatter_disjoint(const tl_tensor *data, const tl_tensor *base,
                                    const tl_tensor *off, tl_index_reduce reduce)
{
  if (tl_dispatch_host_memory(tl_tensor_device(data)))
    return move_run(true, data, base, off, reduce, NULL, true);
  return tl_index_move(true, data, base, off, reduce);
}

/* ---- nonzero ---------------------------------------------------------------------- */

/* The mask as a contiguous bool tensor, then its coordinates on the CPU or the device. */
tl_status tl_cpu_index_nonzero(tl_tensor *out, const tl_tensor *in)
{
  tl_tensor mask = {0};
  const tl_tensor *m = in;
  tl_status status;
  if (in->dtype != TL_DTYPE_BOOL || !tl_tensor_is_contiguous(in)) {
    if (tl_tensor_to_dtype(&mask, in, TL_DTYPE_BOOL) != TL_OK)
      return tl_error_status();
    m = &mask;
  }
  tl_device device = tl_tensor_device(in);
  if (tl_dispatch_host_memory(device)) {
    status = tl_cpu_index_nonzero_bool(out, m);
  } else {
    const tl_index_device_kernels *k = tl_index_device_prims("nonzero", device, in->dtype);
    status = k ? k->nonzero(out, m) : tl_error_status();
  }
  tl_tensor_release(&mask);
  return status;
}

/* Coordinates are written for every element and the write position advances
 * only past nonzero ones: no branch to mispredict on random masks.  The
 * output has one spare row for the writes past the last nonzero element. */
tl_status tl_cpu_index_nonzero_bool(tl_tensor *out, const tl_tensor *m)
{
  const tl_tensor *in = m;
  const int nd = in->ndim;
  const int64_t numel = tl_tensor_numel(m);
  const uint8_t *b = numel ? tl_tensor_data(m) : NULL;
  int64_t nnz = 0;
  for (int64_t i = 0; i < numel; i++)
    nnz += b[i];
  if (tl_tensor_empty(out, TL_DTYPE_I64, 2, (int64_t[]){nnz + 1, nd}, tl_tensor_device(in)) !=
      TL_OK)
    return tl_error_status();
  out->shape[0] = nnz;
  int64_t *dst = tl_tensor_data(out);
  if (nd == 1) {
    for (int64_t i = 0, k = 0; i < numel; i++) {
      dst[k] = i;
      k += b[i];
    }
  } else if (nd > 1 && numel > 0) {
    /* Rows of the last dim; the outer coordinates advance by odometer. */
    const int64_t inner = in->shape[nd - 1];
    int64_t coord[TL_MAX_DIMS] = {0}, k = 0;
    for (int64_t row = 0; row < numel / inner; row++) {
      const uint8_t *br = b + row * inner;
      for (int64_t j = 0; j < inner; j++) {
        int64_t *c = dst + k * nd;
        memcpy(c, coord, (size_t)(nd - 1) * sizeof *coord);
        c[nd - 1] = j;
        k += br[j];
      }
      for (int d = nd - 2; d >= 0; d--) {
        if (++coord[d] < in->shape[d])
          break;
        coord[d] = 0;
      }
    }
  }
  return TL_OK;
}

/* ---- index expressions ------------------------------------------------------------ */

typedef struct {
  tl_tensor view;                /* self after the basic items */
  bool advanced;
  bool adjacent;                 /* advanced items next to each other */
  int n;                         /* index tensors */
  int dims[TL_MAX_DIMS];         /* the view dim each one indexes */
  int self_dims[TL_MAX_DIMS];    /* that dim in self, for messages */
  tl_tensor idx[TL_MAX_DIMS];    /* owned views */
} index_plan;

static void plan_release(index_plan *p)
{
  tl_tensor_release(&p->view);
  for (int j = 0; j < p->n; j++)
    tl_tensor_release(&p->idx[j]);
  p->n = 0;
}

/* Python's slice rules (PySlice_AdjustIndices): clamp start/stop into the
 * dim and return the number of elements. */
static int64_t slice_length(int64_t length, int64_t *start, int64_t *stop, int64_t step)
{
  int64_t *ends[2] = {start, stop};
  for (int e = 0; e < 2; e++) {
    int64_t *v = ends[e];
    if (*v < 0) {
      *v += length;
      if (*v < 0)
        *v = step < 0 ? -1 : 0;
    } else if (*v >= length) {
      *v = step < 0 ? length - 1 : length;
    }
  }
  if (step < 0)
    return *stop < *start ? (*start - *stop - 1) / -step + 1 : 0;
  return *start < *stop ? (*stop - *start - 1) / step + 1 : 0;
}

static bool item_is_mask(const tl_index_item *it)
{
  return it->kind == TL_INDEX_BOOL ||
         (it->kind == TL_INDEX_TENSOR && it->tensor->dtype == TL_DTYPE_BOOL);
}

/* A size-1 dim inserted at `dim` of the view. */
static tl_status plan_unsqueeze(index_plan *p, int dim)
{
  tl_tensor tmp;
  if (tl_view_unsqueeze(&tmp, &p->view, dim) != TL_OK)
    return tl_error_status();
  tl_tensor_release(&p->view);
  p->view = tmp;
  return TL_OK;
}

static tl_status plan_add(index_plan *p, tl_tensor *idx, int dim, int self_dim)
{
  p->idx[p->n] = *idx;
  p->dims[p->n] = dim;
  p->self_dims[p->n] = self_dim;
  p->n++;
  return TL_OK;
}

/* t = idx on self's device: index tensors on the CPU are moved there first, as
 * PyTorch does (a view when idx is there already). */
static tl_status index_on_device(tl_tensor *t, const tl_tensor *idx, const tl_tensor *self)
{
  if (tl_device_eq(tl_tensor_device(idx), tl_tensor_device(self))) {
    tl_tensor_view_of(t, idx);
    return TL_OK;
  }
  return tl_backend_tensor_to(t, idx, tl_tensor_device(self), idx->dtype, false);
}

/* A mask over view dims [dim, dim + m): one index tensor per dim. */
static tl_status plan_add_mask(index_plan *p, const tl_tensor *mask, int dim, int self_dim)
{
  const int m = mask->ndim;
  char sm[256], sv[256];
  /* As in NumPy, an empty mask dim selects nothing from a dim of any size. */
  for (int i = 0; i < m; i++)
    if (mask->shape[i] != p->view.shape[dim + i] && mask->shape[i] != 0)
      return tl_error_set(TL_ERR_INDEX, "the shape of the mask %s does not match the shape %s "
                                        "of the indexed dimensions starting at dimension %d",
                          tl_shape_str(sm, sizeof sm, m, mask->shape),
                          tl_shape_str(sv, sizeof sv, m, p->view.shape + dim), self_dim);
  tl_tensor coords;
  if (tl_index_nonzero(&coords, mask) != TL_OK)
    return tl_error_status();
  for (int i = 0; i < m; i++) { /* column i of the (nnz, m) coordinates */
    tl_tensor col;
    tl_tensor_view_of(&col, &coords);
    col.ndim = 1;
    col.shape[0] = coords.shape[0];
    col.strides[0] = m;
    col.offset = coords.offset + i;
    plan_add(p, &col, dim + i, self_dim + i);
  }
  tl_tensor_release(&coords);
  return TL_OK;
}

/* A 0-d int64 index holding v (length < 0), or [v] (length 1), or [] (0). */
static tl_status scalar_index(tl_tensor *t, tl_device device, int64_t v, int64_t length)
{
  if (tl_tensor_empty(t, TL_DTYPE_I64, length < 0 ? 0 : 1, &length, device) != TL_OK)
    return tl_error_status();
  if (tl_tensor_numel(t) == 0)
    return TL_OK;
  if (tl_dispatch_host_memory(device)) {
    memcpy(tl_tensor_data(t), &v, sizeof v);
    return TL_OK;
  }
  tl_status status = tl_tensor_fill(t, (tl_scalar){.kind = TL_KIND_INT, .v.i = v});
  if (status != TL_OK)
    tl_tensor_release(t);
  return status;
}

static tl_status plan_build(index_plan *p, const tl_tensor *self, int n, const tl_index_item *items)
{
  int consumed = 0, ellipses = 0, first_adv = -1, last_adv = -1, nadv = 0;
  memset(p, 0, sizeof *p);
  if (n > TL_INDEX_MAX_ITEMS)
    return tl_error_set(TL_ERR_INDEX, "too many indices for tensor of dimension %d", self->ndim);
  for (int i = 0; i < n; i++) {
    const tl_index_item *it = &items[i];
    switch (it->kind) {
    case TL_INDEX_TENSOR:
      if (!tl_dtype_is_integral(it->tensor->dtype))
        return tl_error_set(TL_ERR_INDEX, "tensors used as indices must be long, int, byte or "
                                          "bool tensors, got %s",
                            tl_dtype_names[it->tensor->dtype]);
      if (tl_tensor_device(it->tensor).type != TL_DEVICE_CPU &&
          !tl_device_eq(tl_tensor_device(it->tensor), tl_tensor_device(self))) {
        char si[32], ss[32];
        return tl_error_set(TL_ERR_RUNTIME, "indices should be either on cpu or on the same "
                                            "device as the indexed tensor (%s), got %s",
                            tl_device_str(ss, sizeof ss, tl_tensor_device(self)),
                            tl_device_str(si, sizeof si, tl_tensor_device(it->tensor)));
      }
      consumed += it->tensor->dtype == TL_DTYPE_BOOL ? it->tensor->ndim : 1;
      p->advanced = true;
      break;
    case TL_INDEX_BOOL:
      p->advanced = true;
      break;
    case TL_INDEX_INT:
    case TL_INDEX_SLICE:
      consumed++;
      break;
    case TL_INDEX_ELLIPSIS:
      ellipses++;
      break;
    default:
      break;
    }
  }
  if (ellipses > 1)
    return tl_error_set(TL_ERR_INDEX, "an index can only have a single ellipsis ('...')");
  if (consumed > self->ndim)
    return tl_error_set(TL_ERR_INDEX, "too many indices for tensor of dimension %d", self->ndim);
  /* With any tensor present, ints count as advanced (0-d) indices. */
  for (int i = 0; i < n; i++) {
    tl_index_kind k = items[i].kind;
    if (k == TL_INDEX_TENSOR || k == TL_INDEX_BOOL || (p->advanced && k == TL_INDEX_INT)) {
      if (first_adv < 0)
        first_adv = i;
      last_adv = i;
      nadv++;
    }
  }
  p->adjacent = nadv == 0 || last_adv - first_adv + 1 == nadv;

  tl_tensor_view_of(&p->view, self);
  int dim = 0, self_dim = 0;
  for (int i = 0; i < n; i++) {
    const tl_index_item *it = &items[i];
    tl_tensor t;
    if (p->view.ndim >= TL_MAX_DIMS &&
        (it->kind == TL_INDEX_NONE || it->kind == TL_INDEX_BOOL ||
         (it->kind == TL_INDEX_TENSOR && it->tensor->dtype == TL_DTYPE_BOOL &&
          it->tensor->ndim == 0))) {
      tl_error_set(TL_ERR_INDEX, "indexing would give more than %d dimensions", TL_MAX_DIMS);
      goto fail;
    }
    switch (it->kind) {
    case TL_INDEX_NONE:
      if (plan_unsqueeze(p, dim) != TL_OK)
        goto fail;
      dim++;
      break;
    case TL_INDEX_ELLIPSIS:
      dim += self->ndim - consumed;
      self_dim += self->ndim - consumed;
      break;
    case TL_INDEX_SLICE: {
      int64_t start = it->start, stop = it->stop;
      if (it->step == 0) {
        tl_error_set(TL_ERR_VALUE, "slice step cannot be zero");
        goto fail;
      }
      int64_t len = slice_length(p->view.shape[dim], &start, &stop, it->step);
      tl_view_slice(&p->view, dim, start, len, it->step);
      dim++;
      self_dim++;
      break;
    }
    case TL_INDEX_INT:
      if (!p->advanced) {
        int64_t size = p->view.shape[dim];
        if (it->value < -size || it->value >= size) {
          tl_error_set(TL_ERR_INDEX, "index %lld is out of bounds for dimension %d with size "
                                     "%lld", (long long)it->value, self_dim, (long long)size);
          goto fail;
        }
        tl_view_select(&p->view, dim, it->value);
      } else {
        if (scalar_index(&t, tl_tensor_device(self), it->value, -1) != TL_OK)
          goto fail;
        plan_add(p, &t, dim++, self_dim);
      }
      self_dim++;
      break;
    case TL_INDEX_BOOL:
    case TL_INDEX_TENSOR:
      if (item_is_mask(it) && (it->kind == TL_INDEX_BOOL || it->tensor->ndim == 0)) {
        /* A 0-d mask indexes a new size-1 dim: [0] when true, [] when false. */
        tl_scalar s = {.kind = TL_KIND_BOOL, .v.b = it->value != 0};
        if (it->kind != TL_INDEX_BOOL && tl_backend_read_scalar(it->tensor, &s) != TL_OK)
          goto fail;
        bool v = s.v.b;
        if (plan_unsqueeze(p, dim) != TL_OK || scalar_index(&t, tl_tensor_device(self), 0, v ? 1 : 0) != TL_OK)
          goto fail;
        plan_add(p, &t, dim++, -1);
      } else if (item_is_mask(it)) {
        tl_status st = index_on_device(&t, it->tensor, self);
        if (st == TL_OK) {
          st = plan_add_mask(p, &t, dim, self_dim);
          tl_tensor_release(&t);
        }
        if (st != TL_OK)
          goto fail;
        dim += it->tensor->ndim;
        self_dim += it->tensor->ndim;
      } else {
        if (index_on_device(&t, it->tensor, self) != TL_OK)
          goto fail;
        plan_add(p, &t, dim++, self_dim++);
      }
      break;
    }
  }
  return TL_OK;
fail:
  plan_release(p);
  return tl_error_status();
}

/* The advanced part of a plan, ready to move:
 *   shape  pre + B + post (the result of a get, the target of a put)
 *   base   the view restrided over that shape (stride 0 along B)
 *   off    byte offsets over that shape (stride 0 along pre and post) */
typedef struct {
  int ndim;
  int64_t shape[TL_MAX_DIMS];
  tl_tensor base; /* borrows the plan's view */
  tl_tensor off;  /* owns the offsets, or the raw index */
  bool raw;       /* off holds the one index tensor as it is */
  raw_index ri;
} index_move;

/* Whether value broadcasts to a put's target `shape` (leading size-1 dims
 * of value may be dropped); v: value without them. */
static tl_status value_fits(tl_tensor *v, const tl_tensor *value, int ndim, const int64_t *shape)
{
  char sv[256], sr[256];
  *v = *value;
  while (v->ndim > ndim && v->shape[0] == 1) {
    v->ndim--;
    memmove(v->shape, v->shape + 1, (size_t)v->ndim * sizeof *v->shape);
    memmove(v->strides, v->strides + 1, (size_t)v->ndim * sizeof *v->strides);
  }
  bool fits = v->ndim <= ndim;
  for (int i = 0; fits && i < v->ndim; i++) {
    int64_t have = v->shape[v->ndim - 1 - i], want = shape[ndim - 1 - i];
    fits = have == want || have == 1;
  }
  if (!fits)
    return tl_error_set(TL_ERR_RUNTIME, "shape mismatch: value tensor of shape %s cannot be "
                                        "broadcast to indexing result of shape %s",
                        tl_shape_str(sv, sizeof sv, value->ndim, value->shape),
                        tl_shape_str(sr, sizeof sr, ndim, shape));
  return TL_OK;
}

/* raw_ok: a gather may read a single int64 index tensor raw.  value: a put's
 * value, checked against the target's shape before any index is read, as
 * PyTorch does: on a device the offsets pass records a bad index for the
 * next synchronization, and an error raised after it would leave that
 * record to a later, unrelated op. */
static tl_status plan_resolve(index_plan *p, index_move *mv, bool raw_ok, const tl_tensor *value)
{
  const int k = p->n;
  char sa[256], sb[256];
  if (!p->adjacent) { /* advanced dims first, the others after in order */
    int64_t perm[TL_MAX_DIMS];
    bool taken[TL_MAX_DIMS] = {false};
    int np = 0;
    for (int j = 0; j < k; j++) {
      perm[np++] = p->dims[j];
      taken[p->dims[j]] = true;
    }
    for (int d = 0; d < p->view.ndim; d++)
      if (!taken[d])
        perm[np++] = d;
    tl_tensor tmp;
    if (tl_view_permute(&tmp, &p->view, np, perm) != TL_OK)
      return tl_error_status();
    tl_tensor_release(&p->view);
    p->view = tmp;
    for (int j = 0; j < k; j++)
      p->dims[j] = j;
  }
  const int first = p->dims[0];
  const tl_tensor *v = &p->view;

  int bnd = 0;
  int64_t bshape[TL_MAX_DIMS];
  for (int j = 0; j < k; j++) {
    if (tl_shape_broadcast(bnd, bshape, p->idx[j].ndim, p->idx[j].shape, &bnd, bshape) != TL_OK) {
      tl_error_clear();
      int used = 0;
      for (int i = 0; i < k && used < (int)sizeof sa - 1; i++)
        used += snprintf(sa + used, sizeof sa - (size_t)used, i ? ", %s" : "%s",
                         tl_shape_str(sb, sizeof sb, p->idx[i].ndim, p->idx[i].shape));
      return tl_error_set(TL_ERR_INDEX, "shape mismatch: indexing tensors could not be "
                                        "broadcast together with shapes %s", sa);
    }
  }
  mv->ndim = v->ndim - k + bnd;
  if (mv->ndim > TL_MAX_DIMS)
    return tl_error_set(TL_ERR_INDEX, "indexing would give more than %d dimensions", TL_MAX_DIMS);
  int r = 0;
  for (int d = 0; d < first; d++)
    mv->shape[r++] = v->shape[d];
  for (int b = 0; b < bnd; b++)
    mv->shape[r++] = bshape[b];
  for (int d = first + k; d < v->ndim; d++)
    mv->shape[r++] = v->shape[d];
  tl_tensor fitted;
  if (value && value_fits(&fitted, value, mv->ndim, mv->shape) != TL_OK)
    return tl_error_status();

  int64_t sizes[TL_MAX_DIMS], strides[TL_MAX_DIMS];
  const tl_tensor *idx[TL_MAX_DIMS];
  int dims[TL_MAX_DIMS];
  for (int j = 0; j < k; j++) {
    sizes[j] = v->shape[first + j];
    strides[j] = v->strides[first + j] * (int64_t)tl_dtype_size(v->dtype);
    idx[j] = &p->idx[j];
    dims[j] = p->self_dims[j] >= 0 ? p->self_dims[j] : first + j;
  }
  /* The raw loop checks indices as it moves, so an empty pre/post (nothing
   * moved) keeps the offsets pass, which checks them anyway. */
  int64_t rest = 1;
  for (int d = 0; d < v->ndim; d++)
    rest *= d < first || d >= first + k ? v->shape[d] : 1;
  /* Devices check indices in their offsets pass only (the raw loop is the CPU's). */
  raw_ok = raw_ok && tl_dispatch_host_memory(tl_tensor_device(v));
  mv->raw = raw_ok && k == 1 && p->idx[0].dtype == TL_DTYPE_I64 && rest > 0;
  if (mv->raw) {
    tl_tensor_view_of(&mv->off, &p->idx[0]);
    mv->ri = (raw_index){.size = sizes[0], .stride = strides[0], .dim = dims[0]};
  } else if (tl_index_offsets(&mv->off, bnd, bshape, k, idx, sizes, strides, dims, true,
                              TL_ERR_INDEX) != TL_OK) {
    return tl_error_status();
  }

  /* Lay base and off over pre + B + post. */
  tl_tensor off = mv->off;
  mv->base = *v;
  mv->base.ndim = mv->ndim;
  memcpy(mv->base.shape, mv->shape, (size_t)mv->ndim * sizeof *mv->shape);
  r = 0;
  for (int d = 0; d < first; d++, r++) {
    mv->base.strides[r] = v->strides[d];
    mv->off.shape[r] = v->shape[d];
    mv->off.strides[r] = 0;
  }
  for (int b = 0; b < bnd; b++, r++) {
    mv->base.strides[r] = 0;
    mv->off.shape[r] = bshape[b];
    mv->off.strides[r] = off.strides[b];
  }
  for (int d = first + k; d < v->ndim; d++, r++) {
    mv->base.strides[r] = v->strides[d];
    mv->off.shape[r] = v->shape[d];
    mv->off.strides[r] = 0;
  }
  mv->off.ndim = mv->ndim;
  return TL_OK;
}

tl_status tl_cpu_index_get(tl_tensor *out, const tl_tensor *self, int n, const tl_index_item *items,
                           bool *is_view)
{
  index_plan p;
  index_move mv = {0};
  *is_view = false;
  if (plan_build(&p, self, n, items) != TL_OK)
    return tl_error_status();
  if (!p.advanced) {
    *out = p.view;
    *is_view = true;
    return TL_OK;
  }
  tl_status status = TL_OK;
  if (plan_resolve(&p, &mv, true, NULL) != TL_OK ||
      tl_tensor_empty(out, self->dtype, mv.ndim, mv.shape, tl_tensor_device(self)) != TL_OK) {
    status = tl_error_status();
    goto done;
  }
  /* the raw loop is the host's only; a device's move goes to its primitive */
  if ((mv.raw ? move_run(false, out, &mv.base, &mv.off, TL_INDEX_REDUCE_NONE, &mv.ri, false)
              : tl_index_move(false, out, &mv.base, &mv.off, TL_INDEX_REDUCE_NONE)) != TL_OK) {
    status = tl_error_status();
    tl_tensor_release(out);
  }
done:
  tl_tensor_release(&mv.off);
  plan_release(&p);
  return status;
}

/* value as the data of a put over `shape`: self's dtype, not sharing self's
 * memory, broadcast (leading size-1 dims of value may be dropped). */
static tl_status put_value(tl_tensor *data, const tl_tensor *value, const tl_tensor *self,
                           int ndim, const int64_t *shape)
{
  tl_tensor v;
  if (value_fits(&v, value, ndim, shape) != TL_OK)
    return tl_error_status();
  tl_tensor cast = {0};
  if (!tl_device_eq(tl_tensor_device(&v), tl_tensor_device(self))) { /* a CPU scalar */
    if (tl_backend_tensor_to(&cast, &v, tl_tensor_device(self), self->dtype, false) != TL_OK)
      return tl_error_status();
    v = cast;
  } else if (v.dtype != self->dtype || v.storage == self->storage) {
    if (tl_tensor_to_dtype(&cast, &v, self->dtype) != TL_OK)
      return tl_error_status();
    v = cast;
  }
  tl_status status = tl_view_expand(data, &v, ndim, shape);
  tl_tensor_release(&cast);
  return status;
}

tl_status tl_cpu_index_put(tl_tensor *self, int n, const tl_index_item *items,
                           const tl_tensor *value, bool accumulate)
{
  index_plan p;
  index_move mv = {0};
  tl_tensor data = {0};
  tl_status status = TL_OK;
  if (self->storage->readonly)
    return tl_error_set(TL_ERR_VALUE, "assignment destination is read-only");
  if (tl_storage_check_write(self->storage) != TL_OK)
    return tl_error_status();
  const tl_tensor *mask = n == 1 && items[0].kind == TL_INDEX_TENSOR ? items[0].tensor : NULL;
  if (mask && mask->dtype == TL_DTYPE_BOOL && !accumulate && mask->ndim == self->ndim &&
      tl_device_eq(tl_tensor_device(mask), tl_tensor_device(self)) &&
      mask->ndim > 0 && !memcmp(mask->shape, self->shape, (size_t)self->ndim * sizeof(int64_t)) &&
      tl_tensor_numel(value) == 1 &&
      tl_device_eq(tl_tensor_device(mask), tl_tensor_device(self)) &&
      tl_device_eq(tl_tensor_device(value), tl_tensor_device(self))) {
    /* t[mask] = scalar over every dim: a masked fill, no coordinates needed.
     * Only with mask and value on self's device (a masked fill takes one
     * device); a host mask on a device tensor goes the general way below. */
    tl_tensor v0 = *value;
    v0.ndim = 0;
    return tl_index_masked_fill(self, mask, &v0);
  }
  if (plan_build(&p, self, n, items) != TL_OK)
    return tl_error_status();
  if (!p.advanced) { /* a view: copy or add into it */
    status = put_value(&data, value, self, p.view.ndim, p.view.shape);
    if (status == TL_OK && !accumulate) {
      status = tl_tensor_copy(&p.view, &data);
    } else if (status == TL_OK) { /* every offset 0: one int64 behind all-zero strides */
      tl_tensor zero, zeros = {0};
      status = scalar_index(&zero, tl_tensor_device(self), 0, -1);
      if (status == TL_OK) {
        status = tl_view_expand(&zeros, &zero, p.view.ndim, p.view.shape);
        tl_tensor_release(&zero);
      }
      if (status == TL_OK) {
        tl_storage_bump(self->storage);
        status = tl_index_move(true, &data, &p.view, &zeros, TL_INDEX_REDUCE_ADD);
      }
      tl_tensor_release(&zeros);
    }
    goto done;
  }
  /* Everything that can fail is checked before the first write. */
  if (plan_resolve(&p, &mv, false, value) != TL_OK ||
      put_value(&data, value, self, mv.ndim, mv.shape) != TL_OK) {
    status = tl_error_status();
    goto done;
  }
  tl_storage_bump(self->storage);
  status = tl_index_move(true, &data, &mv.base, &mv.off,
                         accumulate ? TL_INDEX_REDUCE_ADD : TL_INDEX_REDUCE_NONE);
done:
  tl_tensor_release(&data);
  tl_tensor_release(&mv.off);
  plan_release(&p);
  return status;
}
