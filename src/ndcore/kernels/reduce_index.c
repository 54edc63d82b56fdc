/* reduce_index.c - the max or min of each line along one dim, with its index
 * (max/min with dim, argmax/argmin).
 *
 * Semantics (NumPy's and PyTorch's): the first NaN wins; among equal values
 * the first index wins.  Lines are split across the pool;
 * each output is written by one thread.  float16/bfloat16 inputs are read
 * as float32 (a converted copy) and the values cast back, exactly.  Inputs
 * host code cannot read go to the device's index pass (tl_reduce.h).    */
#include <string.h>

#include "ndcore/tensor/tl_dtype.h"
#include "ndcore/dispatch/tl_dispatch.h"
#include "ndcore/dispatch/tl_parallel.h"
#include "ndcore/kernels/tl_reduce.h"
#include "ndcore/kernels/tl_simd_clones.h"

typedef void (*extreme_fn)(const char *x, int64_t n, int64_t step, bool is_max, char *value,
                           int64_t *index);

/* The first index of a contiguous line holding best (or the first NaN when
 * best is NaN; x != x only for NaN, which the compiler drops for integers).
 * Blocks of 32 are tested with a compare OR-ed into an integer as wide as T,
 * which the vectoriser turns into packed compares (a narrower flag, or a
 * branch per element, keeps it scalar); only the block that hits is walked
 * element by element. */
#define TL_FIRST_HOLDING(NAME, T, W)                                                     \
  TL_SIMD_CLONES static int64_t NAME(const T *p, int64_t n, T best)                      \
  {                                                                                      \
    int64_t at = 0;                                                                      \
    if (best != best) {                                                                  \
      for (; at + 32 <= n; at += 32) {                                                   \
        W hit = 0;                                                                       \
        for (int j = 0; j < 32; j++)                                                     \
          hit |= (W)(p[at + j] != p[at + j]);                                            \
        if (hit)                                                                         \
          break;                                                                         \
      }                                                                                  \
      while (at < n - 1 && p[at] == p[at])                                               \
        at++;                                                                            \
    } else {                                                                             \
      for (; at + 32 <= n; at += 32) {                                                   \
        W hit = 0;                                                                       \
        for (int j = 0; j < 32; j++)                                                     \
          hit |= (W)(p[at + j] == best);                                                 \
        if (hit)                                                                         \
          break;                                                                         \
      }                                                                                  \
      while (at < n - 1 && p[at] != best)                                                \
        at++;                                                                            \
    }                                                                                    \
    return at;                                                                           \
  }

/* Two passes over the line, both without data-dependent branches in the hot
 * loop: the extreme value (16 lanes, NaN wins), then the first index holding
 * it, or the first NaN.  A one-pass scan mispredicts on every new best. */
#define TL_EXTREME_LINE(NAME, T, W)                                                      \
  TL_FIRST_HOLDING(NAME##_first, T, W)                                                   \
  TL_SIMD_CLONES static void NAME(const char *x, int64_t n, int64_t step, bool is_max,   \
                                  char *value, int64_t *index)                           \
  {                                                                                      \
    T lane[16];                                                                          \
    for (int j = 0; j < 16; j++)                                                         \
      lane[j] = *(const T *)x;                                                           \
    int64_t i = 0;                                                                       \
    const bool dense = step == (int64_t)sizeof(T);                                       \
    if (dense) {                                                                         \
      const T *p = (const T *)x;                                                         \
      if (is_max)                                                                        \
        for (; i + 16 <= n; i += 16)                                                     \
          for (int j = 0; j < 16; j++)                                                   \
            lane[j] = ((p[i + j] > lane[j]) | (p[i + j] != p[i + j])) ? p[i + j] : lane[j]; \
      else                                                                               \
        for (; i + 16 <= n; i += 16)                                                     \
          for (int j = 0; j < 16; j++)                                                   \
            lane[j] = ((p[i + j] < lane[j]) | (p[i + j] != p[i + j])) ? p[i + j] : lane[j]; \
    }                                                                                    \
    for (int j = 0; i < n; i++, j = (j + 1) % 16) {                                      \
      T v = *(const T *)(x + i * step);                                                  \
      if ((is_max ? v > lane[j] : v < lane[j]) | (v != v))                               \
        lane[j] = v;                                                                     \
    }                                                                                    \
    T best = lane[0];                                                                    \
    for (int j = 1; j < 16; j++)                                                         \
      if ((is_max ? lane[j] > best : lane[j] < best) | (lane[j] != lane[j]))             \
        best = lane[j];                                                                  \
    int64_t at = 0;                                                                      \
    if (dense) {                                                                         \
      at = NAME##_first((const T *)x, n, best);                                          \
    } else if (best != best) {                                                           \
      while (at < n - 1 && *(const T *)(x + at * step) == *(const T *)(x + at * step))   \
        at++;                                                                            \
    } else {                                                                             \
      while (at < n - 1 && *(const T *)(x + at * step) != best)                          \
        at++;                                                                            \
    }                                                                                    \
    if (value)                                                                           \
      *(T *)value = best;                                                                \
    *index = at;                                                                         \
  }
/* The dtypes with index lines: (suffix, C type, unsigned type of its width).
 * Floats' dense lines go through the reduction loops (below). */
#define TL_INDEX_INTS(X)                                                                 \
  X(BOOL, bool, uint8_t) X(U8, uint8_t, uint8_t) X(U16, uint16_t, uint16_t)              \
  X(U32, uint32_t, uint32_t) X(U64, uint64_t, uint64_t) X(I8, int8_t, uint8_t)           \
  X(I16, int16_t, uint16_t) X(I32, int32_t, uint32_t) X(I64, int64_t, uint64_t)
#define TL_INDEX_FLOATS(X) X(F32, float, uint32_t) X(F64, double, uint64_t)
#define TL_INDEX_DTYPES(X) TL_INDEX_INTS(X) TL_INDEX_FLOATS(X)

#define TL_INT_LINE(S, T, W) TL_EXTREME_LINE(extreme_##S, T, W)
#define TL_FLOAT_LANES(S, T, W) TL_EXTREME_LINE(extreme_##S##_lanes, T, W)
TL_INDEX_INTS(TL_INT_LINE)
TL_INDEX_FLOATS(TL_FLOAT_LANES)

/* Floats: a contiguous line's extreme comes from the max/min pass loop
 * instead (kernels_reduce.c's NaN-aware select vectorises; the lanes' form
 * of it does not, for floats), then the first index holding it. */
#define TL_EXTREME_FLOAT_LINE(NAME, LANES, T, DTYPE)                                     \
  static void NAME(const char *x, int64_t n, int64_t step, bool is_max, char *value,     \
                   int64_t *index)                                                       \
  {                                                                                      \
    if (step != (int64_t)sizeof(T)) {                                                    \
      LANES(x, n, step, is_max, value, index);                                           \
      return;                                                                            \
    }                                                                                    \
    T best = *(const T *)x;                                                              \
    char *args[3] = {(char *)&best, (char *)x, NULL};                                    \
    int64_t steps[3] = {0, sizeof(T), 0};                                                \
    tl_reduce_loops[is_max ? TL_RK_MAX : TL_RK_MIN][DTYPE](args, n, steps, NULL);       \
    if (value)                                                                           \
      *(T *)value = best;                                                                \
    *index = LANES##_first((const T *)x, n, best);                                       \
  }
#define TL_FLOAT_LINE(S, T, W) TL_EXTREME_FLOAT_LINE(extreme_##S, extreme_##S##_lanes, T, TL_DTYPE_##S)
TL_INDEX_FLOATS(TL_FLOAT_LINE)

/* One pass over a dense line of a 32- or 64-bit dtype: 256 bytes of lanes,
 * each holding its best value and the block it came from (a strictly better
 * value moves it, so each lane keeps the first of its equal values), the
 * lanes then combined by value and position.  Compare-and-select on values
 * and block numbers alike vectorises, and the line is read once where the
 * two-pass form reads it up to twice (NumPy's argmax is one pass: rows of
 * 2000 ran at 0.5-0.7x of it).  It declines (false) where its answer could
 * differ from the two-pass form's: a NaN (which NaN comes first), a float
 * extreme of zero (which zero's bits the value takes), or more blocks than
 * the block numbers hold; the caller then runs that form. */
#define TL_EXTREME_ONE_PASS(NAME, T, VT, VI, IX, IX_MAX, FLOAT)                          \
  TL_SIMD_CLONES static bool NAME(const T *p, int64_t n, bool is_max, char *value,       \
                                  int64_t *index)                                        \
  {                                                                                      \
    enum { W = sizeof(VT) / sizeof(T), L = 4 * W };                                      \
    const int64_t blocks = n / L;                                                        \
    if (blocks < 2 || n > (int64_t)IX_MAX) /* positions are IX too */                    \
      return false;                                                                      \
    VT a[4];                                                                             \
    VI from[4], nan[4];                                                                  \
    for (int k = 0; k < 4; k++) {                                                        \
      memcpy(&a[k], p + k * W, sizeof a[k]);                                             \
      from[k] = (VI){0};                                                                 \
      nan[k] = (VI)(a[k] != a[k]);                                                       \
    }                                                                                    \
    for (IX b = 1; b < (IX)blocks; b++) {                                                \
      const VI at = (VI){0} + b;                                                         \
      for (int k = 0; k < 4; k++) {                                                      \
        VT x;                                                                            \
        memcpy(&x, p + (int64_t)b * L + k * W, sizeof x);                                \
        VI take = is_max ? (VI)(x > a[k]) : (VI)(x < a[k]);                              \
        a[k] = (VT)(((VI)x & take) | ((VI)a[k] & ~take));                                \
        from[k] = (at & take) | (from[k] & ~take);                                       \
        nan[k] |= (VI)(x != x);                                                          \
      }                                                                                  \
    }                                                                                    \
    /* the lanes' best value, then the first position holding it */                      \
    VT m = a[0];                                                                         \
    VI bad = nan[0];                                                                     \
    for (int k = 1; k < 4; k++) {                                                        \
      VI take = is_max ? (VI)(a[k] > m) : (VI)(a[k] < m);                                \
      m = (VT)(((VI)a[k] & take) | ((VI)m & ~take));                                     \
      bad |= nan[k];                                                                     \
    }                                                                                    \
    T r = m[0];                                                                          \
    bool any = false;                                                                    \
    for (int j = 0; j < W; j++) {                                                        \
      r = (is_max ? m[j] > r : m[j] < r) ? m[j] : r;                                     \
      any |= bad[j] != 0;                                                                \
    }                                                                                    \
    VI first = (VI){0} + (IX)IX_MAX;                                                     \
    for (int k = 0; k < 4; k++) {                                                        \
      VI lane;                                                                           \
      for (int j = 0; j < W; j++)                                                        \
        lane[j] = (IX)(k * W + j);                                                       \
      VI pos = from[k] * (IX)L + lane, hold = (VI)(a[k] == r);                           \
      pos = (pos & hold) | (first & ~hold);                                              \
      first = ((VI)(pos < first) & pos) | (~(VI)(pos < first) & first);                  \
    }                                                                                    \
    int64_t at = IX_MAX;                                                                 \
    for (int j = 0; j < W; j++)                                                          \
      at = first[j] < at ? first[j] : at;                                                \
    for (int64_t i = blocks * L; i < n; i++) {                                           \
      if (is_max ? p[i] > r : p[i] < r) {                                                \
        r = p[i];                                                                        \
        at = i;                                                                          \
      }                                                                                  \
      any |= p[i] != p[i];                                                               \
    }                                                                                    \
    if (any || (FLOAT && r == 0))                                                        \
      return false;                                                                      \
    if (value)                                                                           \
      *(T *)value = r;                                                                   \
    *index = at;                                                                         \
    return true;                                                                         \
  }
typedef float one_pass_vf32 __attribute__((vector_size(64)));
typedef double one_pass_vf64 __attribute__((vector_size(64)));
typedef int32_t one_pass_vi32 __attribute__((vector_size(64)));
typedef uint32_t one_pass_vu32 __attribute__((vector_size(64)));
typedef int64_t one_pass_vi64 __attribute__((vector_size(64)));
typedef uint64_t one_pass_vu64 __attribute__((vector_size(64)));
TL_EXTREME_ONE_PASS(one_pass_F32, float, one_pass_vf32, one_pass_vi32, int32_t, INT32_MAX, true)
TL_EXTREME_ONE_PASS(one_pass_F64, double, one_pass_vf64, one_pass_vi64, int64_t, INT64_MAX, true)
TL_EXTREME_ONE_PASS(one_pass_I32, int32_t, one_pass_vi32, one_pass_vi32, int32_t, INT32_MAX, false)
TL_EXTREME_ONE_PASS(one_pass_U32, uint32_t, one_pass_vu32, one_pass_vi32, int32_t, INT32_MAX,
                    false)
TL_EXTREME_ONE_PASS(one_pass_I64, int64_t, one_pass_vi64, one_pass_vi64, int64_t, INT64_MAX, false)
TL_EXTREME_ONE_PASS(one_pass_U64, uint64_t, one_pass_vu64, one_pass_vi64, int64_t, INT64_MAX,
                    false)
/* The narrower dtypes' lanes would need block numbers too narrow to count. */
#define TL_NO_ONE_PASS(S, T)                                                             \
  static bool one_pass_##S(const T *p, int64_t n, bool is_max, char *value, int64_t *index) \
  {                                                                                      \
    (void)p, (void)n, (void)is_max, (void)value, (void)index;                            \
    return false;                                                                        \
  }
TL_NO_ONE_PASS(BOOL, bool)
TL_NO_ONE_PASS(U8, uint8_t)
TL_NO_ONE_PASS(U16, uint16_t)
TL_NO_ONE_PASS(I8, int8_t)
TL_NO_ONE_PASS(I16, int16_t)

/* Long dense lines in blocks of 16 KiB: each block's extreme and its first
 * index from one call of LINE, whose second pass then reads the block from
 * L1 instead of the whole line from memory again; the blocks are combined
 * in order (a strictly better value, or the first NaN, moves the answer to
 * a later block), so the answer is the line's. */
#define TL_EXTREME_BLOCK_BYTES 16384
#define TL_EXTREME_BLOCKED(NAME, LINE, ONE_PASS, T)                                      \
  static void NAME(const char *x, int64_t n, int64_t step, bool is_max, char *value,     \
                   int64_t *index)                                                       \
  {                                                                                      \
    const int64_t block = TL_EXTREME_BLOCK_BYTES / (int64_t)sizeof(T);                   \
    if (step == (int64_t)sizeof(T) && ONE_PASS((const T *)x, n, is_max, value, index))   \
      return;                                                                            \
    if (step != (int64_t)sizeof(T) || n <= 2 * block) {                                  \
      LINE(x, n, step, is_max, value, index);                                            \
      return;                                                                            \
    }                                                                                    \
    T best = 0;                                                                          \
    int64_t at = 0;                                                                      \
    for (int64_t b = 0; b < n; b += block) {                                             \
      T v;                                                                               \
      int64_t i;                                                                         \
      LINE(x + b * (int64_t)sizeof(T), n - b < block ? n - b : block, step, is_max,      \
           (char *)&v, &i);                                                              \
      if (b == 0 || (best == best && ((is_max ? v > best : v < best) || v != v))) {      \
        best = v;                                                                        \
        at = b + i;                                                                      \
      }                                                                                  \
    }                                                                                    \
    if (value)                                                                           \
      *(T *)value = best;                                                                \
    *index = at;                                                                         \
  }
#define TL_BLOCKED(S, T, W) TL_EXTREME_BLOCKED(blocked_##S, extreme_##S, one_pass_##S, T)
TL_INDEX_DTYPES(TL_BLOCKED)

/* Many lines side by side: m contiguous columns, the reduced dim n rows
 * `step` bytes apart (max(0) of a row-major matrix).  Walking each column
 * alone would read one element per cache line; this walks the rows, each a
 * vectorisable compare-and-select over the columns.  A NaN, once held, stays
 * (the first NaN wins) and only a strictly better value replaces the best (the
 * first index wins among equal ones), as in the line scan. */
#define TL_EXTREME_COLUMNS(NAME, T)                                                      \
  static void NAME(const char *x, int64_t n, int64_t step, int64_t m, bool is_max,       \
                   char *values, int64_t *index)                                         \
  {                                                                                      \
    T *best = (T *)values;                                                               \
    const T *row = (const T *)x;                                                         \
    for (int64_t j = 0; j < m; j++) {                                                    \
      best[j] = row[j];                                                                  \
      index[j] = 0;                                                                      \
    }                                                                                    \
    for (int64_t k = 1; k < n; k++) {                                                    \
      row = (const T *)(x + k * step);                                                   \
      if (is_max)                                                                        \
        for (int64_t j = 0; j < m; j++) {                                                \
          T v = row[j], b = best[j];                                                     \
          bool take = (b == b) & ((v > b) | (v != v));                                   \
          best[j] = take ? v : b;                                                        \
          index[j] = take ? k : index[j];                                                \
        }                                                                                \
      else                                                                               \
        for (int64_t j = 0; j < m; j++) {                                                \
          T v = row[j], b = best[j];                                                     \
          bool take = (b == b) & ((v < b) | (v != v));                                   \
          best[j] = take ? v : b;                                                        \
          index[j] = take ? k : index[j];                                                \
        }                                                                                \
    }                                                                                    \
  }
#define TL_COLUMNS(S, T, W) TL_EXTREME_COLUMNS(columns_##S, T)
TL_INDEX_DTYPES(TL_COLUMNS)

typedef void (*columns_fn)(const char *x, int64_t n, int64_t step, int64_t m, bool is_max,
                           char *values, int64_t *index);

static columns_fn columns_for(tl_dtype d)
{
#define TL_CASE(S, T, W)                                                                 \
  case TL_DTYPE_##S:                                                                     \
    return columns_##S;
  switch (d) {
    TL_INDEX_DTYPES(TL_CASE)
  default:
    return NULL;
  }
#undef TL_CASE
}

static extreme_fn extreme_for(tl_dtype d)
{
#define TL_CASE(S, T, W)                                                                 \
  case TL_DTYPE_##S:                                                                     \
    return blocked_##S;
  switch (d) {
    TL_INDEX_DTYPES(TL_CASE)
  default:
    return NULL;
  }
#undef TL_CASE
}

typedef struct {
  const tl_tensor *src;
  int64_t len, step; /* the line: elements, bytes between them */
  const int64_t *out_shape;
  extreme_fn fn;
  bool is_max;
  char *values;
  int64_t *indices;
} index_job;

/* The input element output o's line starts at: o decomposed over the output's
 * shape (row-major, the reduced dim's size 1), through the input's strides. */
static int64_t line_start(const tl_tensor *src, const int64_t *out_shape, int64_t o)
{
  int64_t off = 0;
  for (int i = src->ndim - 1; i >= 0; i--) {
    off += o % out_shape[i] * src->strides[i];
    o /= out_shape[i];
  }
  return off;
}

static void index_range(void *ctx, int64_t begin, int64_t end, int worker)
{
  (void)worker;
  const index_job *job = ctx;
  const tl_tensor *src = job->src;
  const int64_t size = (int64_t)tl_dtype_size(src->dtype);
  const char *base = tl_tensor_data(src);
  for (int64_t o = begin; o < end; o++) {
    int64_t off = line_start(src, job->out_shape, o);
    job->fn(base + off * size, job->len, job->step, job->is_max,
            job->values ? job->values + o * size : NULL, job->indices + o);
  }
}

/* Columns a task takes: their running bests fit in a small stack buffer,
 * and a row of them is a few cache lines. */
#define TL_COLUMNS_CHUNK 256

typedef struct {
  const tl_tensor *src;
  int64_t len, step;      /* the reduced dim: rows, bytes between them */
  int64_t cols, nchunks;  /* the last dim (unit stride), in chunks of TL_COLUMNS_CHUNK */
  const int64_t *out_shape;
  columns_fn fn;
  bool is_max;
  char *values;
  int64_t *indices;
} columns_job;

static void columns_range(void *ctx, int64_t begin, int64_t end, int worker)
{
  (void)worker;
  const columns_job *job = ctx;
  const tl_tensor *src = job->src;
  const int64_t size = (int64_t)tl_dtype_size(src->dtype);
  const char *base = tl_tensor_data(src);
  _Alignas(16) char scratch[TL_COLUMNS_CHUNK * 8];
  for (int64_t t = begin; t < end; t++) {
    int64_t outer = t / job->nchunks, j0 = t % job->nchunks * TL_COLUMNS_CHUNK;
    int64_t m = job->cols - j0 < TL_COLUMNS_CHUNK ? job->cols - j0 : TL_COLUMNS_CHUNK;
    int64_t o = outer * job->cols + j0;
    job->fn(base + line_start(src, job->out_shape, o) * size, job->len, job->step, m, job->is_max,
            job->values ? job->values + o * size : scratch, job->indices + o);
  }
}

/* Lines side by side: the reduced dim is not the last, the last runs with
 * unit stride and is long enough to fill vector lanes. */
static bool side_by_side(const tl_tensor *in, int dim)
{
  int last = in->ndim - 1;
  return in->ndim >= 2 && dim != last && in->strides[last] == 1 && in->shape[last] >= 8 &&
         in->shape[dim] > 1;
}

static tl_status refuse(bool is_max, tl_dtype d)
{
  return tl_error_set(TL_ERR_DTYPE, "%s() does not support dtype %s", is_max ? "max" : "min",
                      tl_dtype_names[d]);
}

tl_reduce_index_fn tl_reduce_index_device[TL_DEVICE_COUNT];

tl_status tl_reduce_index_pass(bool is_max, const tl_tensor *in, int dim, tl_tensor *values,
                               tl_tensor *indices)
{
  tl_device device = tl_tensor_device(in);
  if (!tl_dispatch_host_memory(device)) {
    tl_reduce_index_fn pass = tl_reduce_index_device[device.type];
    if (!pass)
      return tl_dispatch_no_kernel(is_max ? "max" : "min", device, in->dtype);
    return pass(is_max, in, dim, values, indices);
  }
  int64_t shape[TL_MAX_DIMS];
  for (int i = 0; i < in->ndim; i++)
    shape[i] = i == dim ? 1 : in->shape[i];
  index_job job = {.src = in, .is_max = is_max, .fn = extreme_for(in->dtype),
                   .out_shape = shape, .indices = tl_tensor_data(indices),
                   .values = values ? tl_tensor_data(values) : NULL};
  if (!job.fn)
    return refuse(is_max, in->dtype);
  if (tl_tensor_numel(indices) == 0) /* before any plan: an empty input's other sizes */
    return TL_OK;                    /* may be huge, and their products wrap */
  job.len = in->ndim ? in->shape[dim] : 1;
  job.step = in->ndim ? in->strides[dim] * (int64_t)tl_dtype_size(in->dtype) : 0;
  if (side_by_side(in, dim)) {
    int64_t cols = in->shape[in->ndim - 1];
    columns_job cj = {.src = in, .len = job.len, .step = job.step, .cols = cols,
                      .nchunks = (cols + TL_COLUMNS_CHUNK - 1) / TL_COLUMNS_CHUNK,
                      .out_shape = shape, .fn = columns_for(in->dtype), .is_max = is_max,
                      .values = job.values, .indices = job.indices};
    int64_t tasks = tl_tensor_numel(indices) / cols * cj.nchunks;
    int64_t per_task = job.len * TL_COLUMNS_CHUNK;
    int64_t grain = per_task < 32768 ? 32768 / per_task : 1;
    tl_parallel_for(tasks, grain, columns_range, &cj);
    return TL_OK;
  }
  int64_t lines = tl_tensor_numel(indices);
  int64_t grain = job.len > 0 ? 32768 / job.len : 1;
  if (job.len > 0)
    tl_parallel_for(lines, grain > 1 ? grain : 1, index_range, &job);
  return TL_OK;
}

tl_status tl_reduce_index(bool is_max, const tl_tensor *in, int dim, tl_tensor *values,
                          tl_tensor *indices)
{
  tl_dtype d = in->dtype;
  tl_tensor conv = {0}, vals = {0};
  const tl_tensor *src = in;
  tl_status status = TL_OK;
  if (d == TL_DTYPE_F16 || d == TL_DTYPE_BF16) {
    if (tl_tensor_to_dtype(&conv, in, TL_DTYPE_F32) != TL_OK)
      return tl_error_status();
    src = &conv;
  }
  if (!extreme_for(src->dtype)) {
    status = refuse(is_max, d);
    goto done;
  }
  int64_t shape[TL_MAX_DIMS];
  for (int i = 0; i < in->ndim; i++)
    shape[i] = i == dim ? 1 : in->shape[i];
  if ((status = tl_tensor_empty(indices, TL_DTYPE_I64, in->ndim, shape, tl_tensor_device(in))) != TL_OK)
    goto done;
  if (values && (status = tl_tensor_empty(&vals, src->dtype, in->ndim, shape,
                                          tl_tensor_device(in))) != TL_OK)
    goto done;
  if ((status = tl_reduce_index_pass(is_max, src, dim, values ? &vals : NULL, indices)) != TL_OK)
    goto done;
  if (values) {
    if (vals.dtype == d) {
      *values = vals;
      vals.storage = NULL;
    } else {
      status = tl_tensor_to_dtype(values, &vals, d);
    }
  }
done:
  if (status != TL_OK && indices->storage)
    tl_tensor_release(indices);
  if (vals.storage)
    tl_tensor_release(&vals);
  if (conv.storage)
    tl_tensor_release(&conv);
  return status;
}
