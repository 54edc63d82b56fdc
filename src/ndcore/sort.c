/* sort.c - sorting and selection along a dim: sort, argsort, topk,
 * kthvalue, median, quantile, mode.
 *
 * One engine serves them all.  A "lane" is the 1-d slice along the dim at one
 * position of the other dims.  For each lane the engine turns the elements
 * into order-preserving integer keys (sort_keys.h) paired with their lane
 * positions, lets the op choose which sorted positions [lo, hi) it needs
 * (`plan`), radix-sorts (sort_radix.h: a full sort, or a radix select when
 * [lo, hi) is narrow), and hands the sorted keys and positions to the op's
 * `emit`, which writes its outputs.  Many lanes are spread over the thread
 * pool one lane per task; a few long lanes are each sorted by the whole pool.
 *
 * Invariants: lanes hold fewer than 2^32 elements (positions are uint32_t);
 * the sorts are stable, so equal elements (all NaNs, -0.0 and 0.0 included)
 * keep their input order, in descending order too.                        */
#include <math.h>
#include <stdlib.h>
#include <sys/mman.h>

#include "ndcore/sort_keys.h"
#include "ndcore/tl_parallel.h"
#include "ndcore/tl_sort.h"

#define TL_RADIX_BITS 11
#define TL_RADIX_MAX_PASSES 8
#define TL_SORT_SMALL 24
#define TL_SORT_LSD_MAX (1 << 16)
/* Lanes at least this long are sorted by the whole thread pool. */
#define TL_SORT_PARALLEL_MIN (1 << 17)
#define TL_SORT_HUGE_MIN ((size_t)2 << 20)

#define TL_RK uint32_t
#define TL_RS(name) name##_32
#include "ndcore/sort_radix.h"
#undef TL_RK
#undef TL_RS
#define TL_RK uint64_t
#define TL_RS(name) name##_64
#include "ndcore/sort_radix.h"
#undef TL_RK
#undef TL_RS

/* ---- keys in and values out ------------------------------------------------ */

/* keys[i] = key of src[i * step] (bytes), complemented when descending. */
static void keys_load(tl_dtype d, const char *src, int64_t step, int64_t n, bool desc, void *keys)
{
  uint32_t *k32 = keys;
  uint64_t *k64 = keys;
  uint32_t f32 = desc ? (uint32_t)tl_sort_key_mask(d) : 0;
  uint64_t f64 = desc ? ~(uint64_t)0 : 0;
  switch (d) {
  case TL_DTYPE_F32:
    for (int64_t i = 0; i < n; i++) {
      uint32_t u;
      memcpy(&u, src + i * step, 4);
      k32[i] = tl_key_f32(u) ^ f32;
    }
    break;
  case TL_DTYPE_F64:
    for (int64_t i = 0; i < n; i++) {
      uint64_t u;
      memcpy(&u, src + i * step, 8);
      k64[i] = tl_key_f64(u) ^ f64;
    }
    break;
  case TL_DTYPE_I32:
    for (int64_t i = 0; i < n; i++) {
      uint32_t u;
      memcpy(&u, src + i * step, 4);
      k32[i] = (u ^ 0x80000000u) ^ f32;
    }
    break;
  case TL_DTYPE_I64:
    for (int64_t i = 0; i < n; i++) {
      uint64_t u;
      memcpy(&u, src + i * step, 8);
      k64[i] = (u ^ 0x8000000000000000ull) ^ f64;
    }
    break;
  default:
    for (int64_t i = 0; i < n; i++)
      k32[i] = (uint32_t)tl_sort_key(d, src + i * step) ^ f32;
    break;
  }
}

/* The NaN and zero keys of float dtypes stand for several values; those
 * elements are copied from the input instead of decoded. */
static inline bool key32_ambiguous(uint32_t k, uint32_t nan, uint32_t zero)
{
  return k == nan || k == zero;
}

/* dst[(j - j0) * dstep] = the value at sorted position j, for j in [j0, j1). */
static void values_store(tl_dtype d, const void *keys, const uint32_t *idx, int64_t j0, int64_t j1,
                         bool desc, const char *src, int64_t step, char *dst, int64_t dstep)
{
  const uint32_t *k32 = keys;
  const uint64_t *k64 = keys;
  uint32_t f32 = desc ? (uint32_t)tl_sort_key_mask(d) : 0;
  uint64_t f64 = desc ? ~(uint64_t)0 : 0;
  char *p = dst;
  switch (d) {
  case TL_DTYPE_F32:
    for (int64_t j = j0; j < j1; j++, p += dstep) {
      uint32_t k = k32[j] ^ f32, u = tl_unkey_f32(k);
      if (key32_ambiguous(k, 0xffffffffu, 0x80000000u))
        memcpy(&u, src + idx[j] * step, 4);
      memcpy(p, &u, 4);
    }
    break;
  case TL_DTYPE_F64:
    for (int64_t j = j0; j < j1; j++, p += dstep) {
      uint64_t k = k64[j] ^ f64, u = tl_unkey_f64(k);
      if (k == ~(uint64_t)0 || k == 0x8000000000000000ull)
        memcpy(&u, src + idx[j] * step, 8);
      memcpy(p, &u, 8);
    }
    break;
  case TL_DTYPE_F16:
  case TL_DTYPE_BF16:
    for (int64_t j = j0; j < j1; j++, p += dstep) {
      uint32_t k = k32[j] ^ f32;
      uint16_t u = (uint16_t)tl_unkey_16(k);
      if (key32_ambiguous(k, 0xffffu, 0x8000u))
        memcpy(&u, src + idx[j] * step, 2);
      memcpy(p, &u, 2);
    }
    break;
  case TL_DTYPE_I64:
    for (int64_t j = j0; j < j1; j++, p += dstep) {
      uint64_t u = k64[j] ^ f64 ^ 0x8000000000000000ull;
      memcpy(p, &u, 8);
    }
    break;
  default: {
    /* Integers: the key is the value with its sign bit flipped. */
    size_t size = tl_dtype_size(d);
    uint32_t sign = d == TL_DTYPE_I8 ? 0x80u : d == TL_DTYPE_I16 ? 0x8000u
                    : d == TL_DTYPE_I32 ? 0x80000000u : 0;
    for (int64_t j = j0; j < j1; j++, p += dstep) {
      uint32_t u = k32[j] ^ f32 ^ sign;
      if (size == 1) {
        uint8_t b = (uint8_t)u;
        memcpy(p, &b, 1);
      } else if (size == 2) {
        uint16_t h = (uint16_t)u;
        memcpy(p, &h, 2);
      } else {
        memcpy(p, &u, 4);
      }
    }
    break;
  }
  }
}

static void indices_store(const uint32_t *idx, int64_t j0, int64_t j1, char *dst, int64_t dstep)
{
  if (dstep == 8) {
    int64_t *o = (int64_t *)dst;
    for (int64_t j = j0; j < j1; j++)
      o[j - j0] = idx[j];
    return;
  }
  for (int64_t j = j0; j < j1; j++, dst += dstep) {
    int64_t v = idx[j];
    memcpy(dst, &v, 8);
  }
}

/* ---- the lane engine ---------------------------------------------------------- */

typedef struct {
  int64_t lane; /* which lane: row-major over the other dims */
  int64_t n;
  const char *src; /* the lane in the input; step in bytes */
  int64_t step;
  const void *keys; /* sorted keys (uint32_t or uint64_t, see `wide`) */
  const uint32_t *idx;
  bool wide;
  int64_t lo, hi;  /* sorted positions wanted; plan may narrow them */
  int64_t aux[2];  /* plan's notes to emit */
} lane;

typedef struct lane_job lane_job;
struct lane_job {
  const tl_tensor *in;
  int dim; /* wrapped; for a 0-d input, 0 */
  bool desc;
  /* Keys are loaded; set lo/hi (default [0, n)) and aux.  May be NULL. */
  void (*plan)(const lane_job *job, lane *l);
  /* Write outputs from sorted positions [j0, j1) within [lo, hi). */
  void (*emit)(const lane_job *job, const lane *l, int64_t j0, int64_t j1);
  bool emit_chunks; /* emit may run on parts of [lo, hi) in parallel */
  void *ctx;
  int failed; /* set by a task that ran out of memory */
};

static int64_t lane_length(const tl_tensor *t, int dim) { return t->ndim ? t->shape[dim] : 1; }
static int64_t lane_step(const tl_tensor *t, int dim)
{
  return t->ndim ? t->strides[dim] * (int64_t)tl_dtype_size(t->dtype) : 0;
}

/* Count of keys that are NaN (ascending keys: the all-ones key). */
static int64_t lane_count_nan(const lane_job *job, const lane *l, const void *keys)
{
  tl_dtype d = job->in->dtype;
  if (!tl_dtype_is_float(d))
    return 0;
  int64_t c = 0;
  if (l->wide) {
    const uint64_t *k = keys;
    for (int64_t i = 0; i < l->n; i++)
      c += k[i] == ~(uint64_t)0;
  } else {
    const uint32_t *k = keys;
    uint32_t nan = (uint32_t)tl_sort_key_mask(d);
    for (int64_t i = 0; i < l->n; i++)
      c += k[i] == nan;
  }
  return c;
}

/* Lane position of the first NaN (input order), or -1. */
static int64_t lane_first_nan(const lane_job *job, const lane *l)
{
  tl_dtype d = job->in->dtype;
  if (!tl_dtype_is_float(d))
    return -1;
  for (int64_t i = 0; i < l->n; i++)
    if (tl_sort_key_is_nan(d, tl_sort_key(d, l->src + i * l->step)))
      return i;
  return -1;
}

/* Scratch for one lane: keys and positions, twice (ping-pong). */
typedef struct {
  void *ak, *bk;
  uint32_t *ai, *bi;
  void *mem;
} lane_scratch;

static bool scratch_alloc(lane_scratch *s, int64_t n, bool wide)
{
  size_t ks = wide ? 8 : 4, m = (size_t)(n ? n : 1), bytes = m * (2 * ks + 8);
  s->mem = NULL;
  if (bytes >= TL_SORT_HUGE_MIN) {
    /* Scattering to 2^11 buckets touches that many pages at once: huge pages
     * keep those writes out of TLB misses. */
    if (posix_memalign(&s->mem, TL_SORT_HUGE_MIN, bytes) != 0)
      return false;
#ifdef MADV_HUGEPAGE
    madvise(s->mem, bytes, MADV_HUGEPAGE);
#endif
  } else {
    s->mem = malloc(bytes);
  }
  if (!s->mem)
    return false;
  s->ak = s->mem;
  s->bk = (char *)s->mem + m * ks;
  s->ai = (uint32_t *)((char *)s->mem + 2 * m * ks);
  s->bi = s->ai + m;
  return true;
}

static void lane_begin(const lane_job *job, lane *l, int64_t which, lane_scratch *s)
{
  const tl_tensor *in = job->in;
  l->lane = which;
  l->n = lane_length(in, job->dim);
  l->step = lane_step(in, job->dim);
  l->src = tl_lane_ptr(in, in->ndim ? job->dim : -1, which);
  l->wide = tl_sort_key_wide(in->dtype);
  l->lo = 0;
  l->hi = l->n;
  l->aux[0] = l->aux[1] = 0;
  l->keys = s->ak;
  l->idx = s->ai;
}

/* Sort one lane on this thread, then emit. */
static void lane_sort_serial(lane_job *job, lane *l, lane_scratch *s)
{
  keys_load(job->in->dtype, l->src, l->step, l->n, job->desc, s->ak);
  for (int64_t i = 0; i < l->n; i++)
    s->ai[i] = (uint32_t)i;
  if (job->plan)
    job->plan(job, l);
  int side = 0;
  if (l->hi > l->lo)
    side = l->wide ? radix_sort_64(s->ak, s->ai, s->bk, s->bi, l->n, l->lo, l->hi)
                   : radix_sort_32(s->ak, s->ai, s->bk, s->bi, l->n, l->lo, l->hi);
  l->keys = side ? s->bk : s->ak;
  l->idx = side ? s->bi : s->ai;
  job->emit(job, l, l->lo, l->hi);
}

static void lanes_task(void *ctx, int64_t begin, int64_t end, int worker)
{
  (void)worker;
  lane_job *job = ctx;
  lane_scratch s;
  if (!scratch_alloc(&s, lane_length(job->in, job->dim), tl_sort_key_wide(job->in->dtype))) {
    __atomic_store_n(&job->failed, 1, __ATOMIC_RELAXED);
    return;
  }
  for (int64_t i = begin; i < end; i++) {
    lane l;
    lane_begin(job, &l, i, &s);
    lane_sort_serial(job, &l, &s);
  }
  free(s.mem);
}

/* ---- one long lane on the whole pool ---- */

typedef struct {
  lane_job *job;
  lane *l;
  lane_scratch *s;
} par_lane;

static void par_load(void *ctx, int64_t begin, int64_t end, int worker)
{
  (void)worker;
  par_lane *p = ctx;
  size_t ks = p->l->wide ? 8 : 4;
  keys_load(p->job->in->dtype, p->l->src + begin * p->l->step, p->l->step, end - begin,
            p->job->desc, (char *)p->s->ak + begin * ks);
  for (int64_t i = begin; i < end; i++)
    p->s->ai[i] = (uint32_t)i;
}

static void par_emit(void *ctx, int64_t begin, int64_t end, int worker)
{
  (void)worker;
  par_lane *p = ctx;
  p->job->emit(p->job, p->l, p->l->lo + begin, p->l->lo + end);
}

static bool lane_sort_parallel(lane_job *job, lane *l, lane_scratch *s)
{
  par_lane p = {job, l, s};
  tl_parallel_for(l->n, 1 << 15, par_load, &p);
  if (job->plan)
    job->plan(job, l);
  int side = 0;
  if (l->hi > l->lo) {
    int bits = l->wide ? significant_bits_64(s->ak, l->n) : significant_bits_32(s->ak, l->n);
    if (bits <= TL_RADIX_BITS)
      side = l->wide ? radix_sort_64(s->ak, s->ai, s->bk, s->bi, l->n, l->lo, l->hi)
                     : radix_sort_32(s->ak, s->ai, s->bk, s->bi, l->n, l->lo, l->hi);
    else
      side = l->wide ? radix_sort_parallel_64(s->ak, s->ai, s->bk, s->bi, l->n, l->lo, l->hi, bits)
                     : radix_sort_parallel_32(s->ak, s->ai, s->bk, s->bi, l->n, l->lo, l->hi, bits);
    if (side < 0)
      return false;
  }
  l->keys = side ? s->bk : s->ak;
  l->idx = side ? s->bi : s->ai;
  if (job->emit_chunks)
    tl_parallel_for(l->hi - l->lo, 1 << 15, par_emit, &p);
  else
    job->emit(job, l, l->lo, l->hi);
  return true;
}

static tl_status lanes_run(lane_job *job)
{
  const tl_tensor *in = job->in;
  int64_t n = lane_length(in, job->dim), numel = tl_tensor_numel(in);
  if (n == 0 || numel == 0)
    return TL_OK;
  if (n > (int64_t)UINT32_MAX)
    return tl_error_set(TL_ERR_NOT_IMPLEMENTED, "sorting a dim of %lld elements (over 2^32) is "
                        "not supported", (long long)n);
  int64_t nlanes = numel / n;
  job->failed = 0;
  if (n >= TL_SORT_PARALLEL_MIN && nlanes < tl_parallel_get_threads()) {
    lane_scratch s;
    if (!scratch_alloc(&s, n, tl_sort_key_wide(in->dtype)))
      return tl_error_set(TL_ERR_MEMORY, "out of memory sorting %lld elements", (long long)n);
    bool ok = true;
    for (int64_t i = 0; i < nlanes && ok; i++) {
      lane l;
      lane_begin(job, &l, i, &s);
      ok = lane_sort_parallel(job, &l, &s);
    }
    free(s.mem);
    if (!ok)
      return tl_error_set(TL_ERR_MEMORY, "out of memory sorting %lld elements", (long long)n);
    return TL_OK;
  }
  int64_t grain = n >= 4096 ? 1 : 4096 / n;
  tl_parallel_for(nlanes, grain, lanes_task, job);
  if (job->failed)
    return tl_error_set(TL_ERR_MEMORY, "out of memory sorting lanes of %lld elements",
                        (long long)n);
  return TL_OK;
}

/* ---- argument checks and outputs ------------------------------------------------ */

static tl_status check_sortable(const char *op, const tl_tensor *in)
{
  if (tl_tensor_device(in).type != TL_DEVICE_CPU)
    return tl_error_set(TL_ERR_NOT_IMPLEMENTED, "%s(): only CPU tensors are supported", op);
  if (tl_dtype_is_complex(in->dtype))
    return tl_error_set(TL_ERR_NOT_IMPLEMENTED, "%s(): not implemented for '%s' (complex numbers "
                        "have no order)", op, tl_dtype_names[in->dtype]);
  return TL_OK;
}

/* The input's shape with dim's size set to size (keep) or dim removed. */
static int reduced_shape(const tl_tensor *in, int dim, int64_t size, bool keep, int64_t *shape)
{
  int nd = 0;
  for (int i = 0; i < in->ndim; i++) {
    if (i != dim)
      shape[nd++] = in->shape[i];
    else if (keep)
      shape[nd++] = size;
  }
  return nd;
}

/* Allocate values (dtype of in) and indices (int64), either may be NULL. */
static tl_status alloc_pair(const tl_tensor *in, int nd, const int64_t *shape, tl_tensor *values,
                            tl_tensor *indices)
{
  if (values && tl_tensor_empty(values, in->dtype, nd, shape, tl_tensor_device(in)) != TL_OK)
    return tl_error_status();
  if (indices && tl_tensor_empty(indices, TL_DTYPE_I64, nd, shape, tl_tensor_device(in)) != TL_OK) {
    if (values)
      tl_tensor_release(values);
    return tl_error_status();
  }
  return TL_OK;
}

static void release_pair(tl_tensor *values, tl_tensor *indices)
{
  if (values && values->storage)
    tl_tensor_release(values);
  if (indices && indices->storage)
    tl_tensor_release(indices);
}

/* Outputs of the sort family: where lane `lane` starts and its step (bytes). */
typedef struct {
  tl_tensor *values, *indices;
  int skip; /* the sorted dim in the outputs, or -1 when it was removed */
  int64_t k;
  bool ignore_nan;
} pair_out;

static void out_lane(const tl_tensor *t, const pair_out *o, int64_t lane, char **p, int64_t *step)
{
  *p = tl_lane_ptr(t, o->skip, lane);
  *step = (o->skip >= 0 && t->ndim) ? t->strides[o->skip] * (int64_t)tl_dtype_size(t->dtype) : 0;
}

/* sort and topk: sorted positions j land at output position j. */
static void emit_sorted(const lane_job *job, const lane *l, int64_t j0, int64_t j1)
{
  const pair_out *o = job->ctx;
  char *p;
  int64_t step;
  if (o->values) {
    out_lane(o->values, o, l->lane, &p, &step);
    values_store(job->in->dtype, l->keys, l->idx, j0, j1, job->desc, l->src, l->step,
                 p + j0 * step, step);
  }
  if (o->indices) {
    out_lane(o->indices, o, l->lane, &p, &step);
    indices_store(l->idx, j0, j1, p + j0 * step, step);
  }
}

tl_status tl_sort(const tl_tensor *in, int64_t dim, bool descending, bool stable, tl_tensor *values,
                  tl_tensor *indices)
{
  (void)stable; /* every sort here is stable */
  int d;
  if (check_sortable(values ? "sort" : "argsort", in) != TL_OK || tl_dim_wrap(dim, in->ndim, &d) != TL_OK)
    return tl_error_status();
  if (alloc_pair(in, in->ndim, in->shape, values, indices) != TL_OK)
    return tl_error_status();
  pair_out o = {values, indices, in->ndim ? d : -1, 0, false};
  lane_job job = {.in = in, .dim = d, .desc = descending, .emit = emit_sorted,
                  .emit_chunks = true, .ctx = &o};
  if (lanes_run(&job) != TL_OK) {
    release_pair(values, indices);
    return tl_error_status();
  }
  return TL_OK;
}

static void plan_topk(const lane_job *job, lane *l)
{
  const pair_out *o = job->ctx;
  l->lo = 0;
  l->hi = o->k;
}

tl_status tl_topk(const tl_tensor *in, int64_t k, int64_t dim, bool largest, tl_tensor *values,
                  tl_tensor *indices)
{
  int d;
  if (check_sortable("topk", in) != TL_OK || tl_dim_wrap(dim, in->ndim, &d) != TL_OK)
    return tl_error_status();
  int64_t n = lane_length(in, d);
  if (k < 0 || k > n)
    return tl_error_set(TL_ERR_RUNTIME, "topk(): selected index k out of range: k is %lld but "
                        "dim %d has size %lld", (long long)k, d, (long long)n);
  int64_t shape[TL_MAX_DIMS];
  int nd = reduced_shape(in, d, k, true, shape);
  if (alloc_pair(in, nd, shape, values, indices) != TL_OK)
    return tl_error_status();
  pair_out o = {values, indices, in->ndim ? d : -1, k, false};
  lane_job job = {.in = in, .dim = d, .desc = largest, .plan = plan_topk, .emit = emit_sorted,
                  .emit_chunks = true, .ctx = &o};
  if (k > 0 && lanes_run(&job) != TL_OK) {
    release_pair(values, indices);
    return tl_error_status();
  }
  return TL_OK;
}

/* One selected position per lane; plan has put it in aux[0] and sorted it
 * (lo = aux[0]), or found a NaN answer (aux[1] = 1, aux[0] = its position). */
static void emit_one(const lane_job *job, const lane *l, int64_t j0, int64_t j1)
{
  (void)j0;
  (void)j1;
  const pair_out *o = job->ctx;
  char *pv, *pi;
  int64_t step;
  int64_t pos = l->aux[0];
  out_lane(o->values, o, l->lane, &pv, &step);
  out_lane(o->indices, o, l->lane, &pi, &step);
  size_t size = tl_dtype_size(job->in->dtype);
  int64_t at = l->aux[1] ? pos : l->idx[pos];
  memcpy(pv, l->src + at * l->step, size);
  memcpy(pi, &at, 8);
}

static void plan_kth(const lane_job *job, lane *l)
{
  const pair_out *o = job->ctx;
  l->aux[0] = l->lo = o->k - 1;
  l->hi = o->k;
}

static tl_status select_one(const char *op, const tl_tensor *in, int d, bool keepdim,
                            void (*plan)(const lane_job *, lane *), pair_out *o)
{
  int64_t shape[TL_MAX_DIMS];
  int nd = reduced_shape(in, d, 1, keepdim, shape);
  (void)op;
  if (alloc_pair(in, nd, shape, o->values, o->indices) != TL_OK)
    return tl_error_status();
  o->skip = in->ndim && keepdim ? d : -1;
  lane_job job = {.in = in, .dim = d, .desc = false, .plan = plan, .emit = emit_one, .ctx = o};
  if (lanes_run(&job) != TL_OK) {
    release_pair(o->values, o->indices);
    return tl_error_status();
  }
  return TL_OK;
}

tl_status tl_kthvalue(const tl_tensor *in, int64_t k, int64_t dim, bool keepdim, tl_tensor *values,
                      tl_tensor *indices)
{
  int d;
  if (check_sortable("kthvalue", in) != TL_OK || tl_dim_wrap(dim, in->ndim, &d) != TL_OK)
    return tl_error_status();
  int64_t n = lane_length(in, d);
  if (k < 1 || k > n)
    return tl_error_set(TL_ERR_RUNTIME, "kthvalue(): selected number k out of range: k is %lld "
                        "but dim %d has size %lld", (long long)k, d, (long long)n);
  pair_out o = {values, indices, -1, k, false};
  return select_one("kthvalue", in, d, keepdim, plan_kth, &o);
}

/* median: NaN wins unless ignored; otherwise the lower median of the rest. */
static void plan_median(const lane_job *job, lane *l)
{
  const pair_out *o = job->ctx;
  int64_t nan = lane_count_nan(job, l, l->keys);
  int64_t m = l->n - nan;
  if ((nan && !o->ignore_nan) || m == 0) {
    l->aux[0] = lane_first_nan(job, l);
    l->aux[1] = 1;
    l->lo = l->hi = 0;
    return;
  }
  l->aux[0] = l->lo = (m - 1) / 2;
  l->hi = l->lo + 1;
}

tl_status tl_median_dim(const tl_tensor *in, int64_t dim, bool keepdim, bool ignore_nan,
                        tl_tensor *values, tl_tensor *indices)
{
  const char *op = ignore_nan ? "nanmedian" : "median";
  int d;
  if (check_sortable(op, in) != TL_OK || tl_dim_wrap(dim, in->ndim, &d) != TL_OK)
    return tl_error_status();
  if (lane_length(in, d) == 0)
    return tl_error_set(TL_ERR_INDEX, "%s(): Expected reduction dim %d to have non-zero size",
                        op, d);
  pair_out o = {values, indices, -1, 0, ignore_nan};
  return select_one(op, in, d, keepdim, plan_median, &o);
}

/* A contiguous 1-d view (or copy) of all of in's elements. */
static tl_status flatten_all(const tl_tensor *in, tl_tensor *flat)
{
  int64_t n = tl_tensor_numel(in);
  if (tl_tensor_is_contiguous(in)) {
    tl_tensor_view_of(flat, in);
    flat->ndim = 1;
    flat->shape[0] = n;
    flat->strides[0] = 1;
    return TL_OK;
  }
  if (tl_tensor_empty(flat, in->dtype, in->ndim, in->shape, tl_tensor_device(in)) != TL_OK)
    return tl_error_status();
  if (tl_tensor_copy(flat, in) != TL_OK) {
    tl_tensor_release(flat);
    return tl_error_status();
  }
  flat->ndim = 1;
  flat->shape[0] = n;
  flat->strides[0] = 1;
  return TL_OK;
}

tl_status tl_median_all(const tl_tensor *in, bool ignore_nan, tl_tensor *out)
{
  const char *op = ignore_nan ? "nanmedian" : "median";
  if (check_sortable(op, in) != TL_OK)
    return tl_error_status();
  if (tl_tensor_numel(in) == 0) {
    if (!tl_dtype_is_float(in->dtype))
      return tl_error_set(TL_ERR_RUNTIME, "%s(): cannot compute the median of an empty %s "
                          "tensor (the result would be NaN)", op, tl_dtype_names[in->dtype]);
    if (tl_tensor_empty(out, in->dtype, 0, NULL, tl_tensor_device(in)) != TL_OK)
      return tl_error_status();
    tl_scalar nan = {.kind = TL_KIND_FLOAT, .v.f = NAN};
    tl_scalar_store(nan, in->dtype, tl_tensor_data(out));
    return TL_OK;
  }
  tl_tensor flat = {0}, indices = {0};
  if (flatten_all(in, &flat) != TL_OK)
    return tl_error_status();
  tl_status st = tl_median_dim(&flat, 0, false, ignore_nan, out, &indices);
  tl_tensor_release(&flat);
  if (st == TL_OK)
    tl_tensor_release(&indices);
  return st;
}

/* ---- quantile ------------------------------------------------------------------ */

typedef struct {
  tl_tensor *out;
  const double *q;
  int64_t nq;
  bool ignore_nan, keep_lanes_dim;
  int skip;
  tl_quantile_method method;
  int64_t q_step; /* bytes between results of successive q in out */
} quantile_out;

/* The (fractional) sorted position of quantile q among m values, computed in
 * the input's precision as PyTorch does. */
static double quantile_rank(double q, int64_t m, bool f32)
{
  return f32 ? (double)((float)q * (float)(m - 1)) : q * (double)(m - 1);
}

static void plan_quantile(const lane_job *job, lane *l)
{
  const quantile_out *o = job->ctx;
  int64_t nan = lane_count_nan(job, l, l->keys), m = l->n - nan;
  l->aux[0] = m;
  if ((nan && !o->ignore_nan) || m == 0) {
    l->aux[1] = 1; /* the answer is NaN */
    l->lo = l->hi = 0;
    return;
  }
  bool f32 = job->in->dtype == TL_DTYPE_F32;
  l->lo = m;
  l->hi = 0;
  for (int64_t i = 0; i < o->nq; i++) {
    double rank = quantile_rank(o->q[i], m, f32);
    int64_t below = (int64_t)floor(rank), above = (int64_t)ceil(rank) + 1;
    l->lo = below < l->lo ? below : l->lo;
    l->hi = above > l->hi ? above : l->hi;
  }
  l->lo = l->lo < 0 ? 0 : l->lo;
  l->hi = l->hi > m ? m : l->hi;
}

static double lane_value(const lane_job *job, const lane *l, int64_t pos)
{
  tl_scalar s = tl_scalar_load(job->in->dtype, l->src + (int64_t)l->idx[pos] * l->step);
  return s.v.f;
}

/* NumPy's and PyTorch's lerp: exact at both ends, symmetric around 0.5. */
static double lerp(double a, double b, double t)
{
  return t < 0.5 ? a + (b - a) * t : b - (b - a) * (1 - t);
}

static void emit_quantile(const lane_job *job, const lane *l, int64_t j0, int64_t j1)
{
  (void)j0;
  (void)j1;
  const quantile_out *o = job->ctx;
  tl_dtype d = job->in->dtype;
  char *base = tl_lane_ptr(o->out, o->skip, l->lane);
  bool f32 = d == TL_DTYPE_F32;
  for (int64_t i = 0; i < o->nq; i++) {
    double r = NAN;
    if (!l->aux[1]) {
      int64_t m = l->aux[0];
      double rank = quantile_rank(o->q[i], m, f32);
      int64_t below = (int64_t)floor(rank), above = (int64_t)ceil(rank);
      below = below < 0 ? 0 : below > m - 1 ? m - 1 : below;
      above = above < 0 ? 0 : above > m - 1 ? m - 1 : above;
      double a = lane_value(job, l, below), b = lane_value(job, l, above);
      switch (o->method) {
      case TL_QUANTILE_LOWER: r = a; break;
      case TL_QUANTILE_HIGHER: r = b; break;
      case TL_QUANTILE_MIDPOINT: r = lerp(a, b, 0.5); break;
      case TL_QUANTILE_NEAREST: r = lane_value(job, l, (int64_t)nearbyint(rank)); break;
      default:
        r = lerp(a, b, rank - (double)below);
        break;
      }
    }
    tl_scalar s = {.kind = TL_KIND_FLOAT, .v.f = r};
    tl_scalar_store(s, d, base + i * o->q_step);
  }
}

tl_status tl_quantile(const tl_tensor *in, const double *q, int64_t nq, bool q_scalar, bool all_dims,
                      int64_t dim, bool keepdim, tl_quantile_method method, bool ignore_nan,
                      tl_tensor *out)
{
  const char *op = ignore_nan ? "nanquantile" : "quantile";
  if (check_sortable(op, in) != TL_OK)
    return tl_error_status();
  if (in->dtype != TL_DTYPE_F32 && in->dtype != TL_DTYPE_F64)
    return tl_error_set(TL_ERR_RUNTIME, "%s() input tensor must be either float or double dtype, "
                        "but got %s", op, tl_dtype_names[in->dtype]);
  for (int64_t i = 0; i < nq; i++)
    if (!(q[i] >= 0 && q[i] <= 1))
      return tl_error_set(TL_ERR_RUNTIME, "%s() q values must be in the range [0, 1], but got %g",
                          op, q[i]);
  int d = 0;
  if (!all_dims && tl_dim_wrap(dim, in->ndim, &d) != TL_OK)
    return tl_error_status();
  /* Result shape: [nq] (unless q is a scalar) + the reduced shape. */
  int64_t shape[TL_MAX_DIMS + 1];
  int nd = 0;
  if (!q_scalar)
    shape[nd++] = nq;
  if (all_dims) {
    for (int i = 0; keepdim && i < in->ndim; i++)
      shape[nd++] = 1;
  } else {
    nd += reduced_shape(in, d, 1, keepdim, shape + nd);
  }
  if (nd > TL_MAX_DIMS)
    return tl_error_set(TL_ERR_VALUE, "%s(): result would have more than %d dims", op, TL_MAX_DIMS);
  if (tl_tensor_empty(out, in->dtype, nd, shape, tl_tensor_device(in)) != TL_OK)
    return tl_error_status();
  tl_tensor flat = {0};
  const tl_tensor *src = in;
  if (all_dims) {
    if (flatten_all(in, &flat) != TL_OK)
      goto fail;
    src = &flat;
  }
  /* The output viewed per lane: drop the q dim (q_step walks it) and walk the
   * reduced dims as lanes. */
  tl_tensor view = *out;
  quantile_out o = {.out = &view, .q = q, .nq = nq, .ignore_nan = ignore_nan, .method = method};
  o.q_step = q_scalar ? 0 : out->strides[0] * (int64_t)tl_dtype_size(out->dtype);
  if (!q_scalar) {
    view.ndim--;
    memmove(view.shape, view.shape + 1, sizeof(int64_t) * (size_t)view.ndim);
    memmove(view.strides, view.strides + 1, sizeof(int64_t) * (size_t)view.ndim);
  }
  if (all_dims) {
    view.ndim = 0; /* one lane */
    o.skip = -1;
  } else {
    o.skip = keepdim && in->ndim ? d : -1;
  }
  int64_t n = lane_length(src, all_dims ? 0 : d);
  if (n == 0) {
    /* Empty lanes: every result is NaN. */
    tl_scalar nan = {.kind = TL_KIND_FLOAT, .v.f = NAN};
    char *p = tl_tensor_data(out);
    for (int64_t i = 0, total = tl_tensor_numel(out); i < total; i++)
      tl_scalar_store(nan, out->dtype, p + i * (int64_t)tl_dtype_size(out->dtype));
  } else {
    lane_job job = {.in = src, .dim = all_dims ? 0 : d, .plan = plan_quantile,
                    .emit = emit_quantile, .ctx = &o};
    if (lanes_run(&job) != TL_OK)
      goto fail;
  }
  if (flat.storage)
    tl_tensor_release(&flat);
  return TL_OK;
fail:
  if (flat.storage)
    tl_tensor_release(&flat);
  tl_tensor_release(out);
  return tl_error_status();
}

/* ---- mode -------------------------------------------------------------------------- */

static void emit_mode(const lane_job *job, const lane *l, int64_t j0, int64_t j1)
{
  (void)j0;
  (void)j1;
  int64_t best = 0, best_count = 0, run = 0;
  for (int64_t j = 0; j < l->n; j++) {
    run++;
    bool last = j == l->n - 1;
    if (!last) {
      bool same = l->wide ? ((const uint64_t *)l->keys)[j] == ((const uint64_t *)l->keys)[j + 1]
                          : ((const uint32_t *)l->keys)[j] == ((const uint32_t *)l->keys)[j + 1];
      if (same)
        continue;
    }
    if (run > best_count) {
      best_count = run;
      best = j; /* the run's last element: the latest occurrence, sorts being stable */
    }
    run = 0;
  }
  lane one = *l;
  one.aux[0] = best;
  one.aux[1] = 0;
  emit_one(job, &one, 0, 0);
}

tl_status tl_mode(const tl_tensor *in, int64_t dim, bool keepdim, tl_tensor *values,
                  tl_tensor *indices)
{
  int d;
  if (check_sortable("mode", in) != TL_OK || tl_dim_wrap(dim, in->ndim, &d) != TL_OK)
    return tl_error_status();
  if (lane_length(in, d) == 0)
    return tl_error_set(TL_ERR_INDEX, "mode(): Expected reduction dim %d to have non-zero size", d);
  int64_t shape[TL_MAX_DIMS];
  int nd = reduced_shape(in, d, 1, keepdim, shape);
  if (alloc_pair(in, nd, shape, values, indices) != TL_OK)
    return tl_error_status();
  pair_out o = {values, indices, in->ndim && keepdim ? d : -1, 0, false};
  lane_job job = {.in = in, .dim = d, .emit = emit_mode, .ctx = &o};
  if (lanes_run(&job) != TL_OK) {
    release_pair(values, indices);
    return tl_error_status();
  }
  return TL_OK;
}
