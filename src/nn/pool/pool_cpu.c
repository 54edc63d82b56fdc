/* pool_cpu.c - the CPU's pooling kernels (tl_pool.h): the windowed max, the
 * separable weighted passes and their transpose, and the index scatter.
 *
 * Operands are first made contiguous in the work dtype (double for float64,
 * float otherwise, as PyTorch's CPU kernels accumulate float16/bfloat16 in
 * float); a result of another dtype is cast last.  Spatial dims are padded to
 * three with a size-1 dim of one tap, so one loop serves 1, 2 and 3 dims.
 * Work is split across the thread pool by output rows (window_max, forward
 * passes) or by planes (transposed passes, scatter), so no two threads ever
 * write the same element.
 *
 * Channels-last: every kernel also takes results laid out channels-last
 * (tl_pool.h).  A channels-last input of the work dtype is
 * then read as it lies: one output position's channels are a contiguous
 * run, taken in blocks whose running maxima and taps stay in vector
 * registers over the window (scatter: an add per tap over the channels), in
 * the same tap order as the planar loops, so values and indices are the
 * same bits.
 * Any other input is pooled row-major into a temporary and copied over. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "ndcore/dispatch/tl_parallel.h"
#include "ndcore/kernels/tl_reduce.h"
#include "ndcore/kernels/tl_vecmath.h"
#include "nn/pool/tl_pool.h"

enum { D3 = TL_NN_POOL_MAX_DIMS };

/* The typed loops are inlined into their TL_SIMD_CLONES range function, so
 * that each clone compiles them for its vector width. */
#define INLINE static inline __attribute__((always_inline))

/* `t` as a contiguous tensor of dtype `work`: t itself or a copy in *tmp. */
static const tl_tensor *as_work(const tl_tensor *t, tl_dtype work, tl_tensor *tmp)
{
  if (t->dtype == work && tl_tensor_is_contiguous(t))
    return t;
  return tl_tensor_to_dtype(tmp, t, work) == TL_OK ? tmp : NULL;
}

static tl_dtype work_dtype(tl_dtype d) { return d == TL_DTYPE_F64 ? TL_DTYPE_F64 : TL_DTYPE_F32; }

/* The windowed max also takes integer inputs (PyTorch's CPU max pooling
 * does): they are compared as int64, exact for every integer dtype, where
 * float would round int32 and int64 values. */
static tl_dtype max_work_dtype(tl_dtype d)
{
  return tl_dtype_is_float(d) ? work_dtype(d) : TL_DTYPE_I64;
}

/* The kernels' operands in the work dtype: `in` as a contiguous work tensor
 * (itself or *xt) and where the result goes (out itself when it has the
 * work dtype, else the new *yt to cast from last); NULL on failure. */
static const tl_tensor *work_io(const tl_tensor *in, const tl_tensor *out, tl_dtype work,
                                tl_tensor *xt, tl_tensor *yt, void **ydata)
{
  const tl_tensor *xw = as_work(in, work, xt);
  bool direct = out->dtype == work;
  if (!xw || (!direct && tl_tensor_empty(yt, work, out->ndim, out->shape,
                                         tl_tensor_device(out)) != TL_OK))
    return NULL;
  *ydata = tl_tensor_data(direct ? out : yt);
  return xw;
}

/* The batch B: the product of the dims before the last n. */
static int64_t planes_of(const tl_tensor *t, int n)
{
  int64_t b = 1;
  for (int i = 0; i < t->ndim - n; i++)
    b *= t->shape[i];
  return b;
}

/* ---- window max ------------------------------------------------------------------------ */

typedef struct {
  const void *x;
  void *y;
  int64_t *idx;
  tl_nn_taps taps[D3]; /* padded to three dims */
  int64_t in[D3], out[D3];
  /* Outputs [lo, hi) of the last dim have regular taps, all inside: output
   * j2's tap q2 at base + j2 * s + q2 * dl (lo == hi: none). */
  int64_t lo, hi, base, s, dl;
  tl_dtype work; /* F32, F64 or I64 */
  bool failed; /* a range could not allocate its offsets */
} max_job;

/* Room for n tap offsets: the caller's stack[OFFS_STACK] when they fit, else
 * allocated (NULL when out of memory; the caller frees what is not stack). */
enum { OFFS_STACK = 64 };
static int64_t *offsets_scratch(int64_t n, int64_t *stack)
{
  return n <= OFFS_STACK ? stack : malloc((size_t)n * sizeof *stack);
}

/* The regular interior of the last dim's taps (see max_job), found from the
 * table itself so that every window (fractional ones included) can use it. */
static void regular_span(max_job *job)
{
  const tl_nn_taps *t = &job->taps[2];
  int64_t k = t->k, out = t->out, lo = 0;
  job->lo = job->hi = 0;
  if (t->plane_stride != 0 || k < 1)
    return;
  for (; lo < out; lo++) { /* the first output with all its taps inside */
    bool inside = true;
    for (int64_t q = 0; q < k; q++)
      inside = inside && t->index[lo * k + q] >= 0;
    if (inside)
      break;
  }
  if (lo == out)
    return;
  const int64_t *first = t->index + lo * k;
  int64_t dl = k > 1 ? first[1] - first[0] : 0;
  int64_t s = lo + 1 < out && first[k] >= 0 ? first[k] - first[0] : 1;
  if (s < 1)
    return;
  int64_t hi = lo;
  for (bool ok = true; ok && hi < out; hi += ok) /* extend while the pattern holds */
    for (int64_t q = 0; ok && q < k; q++)
      ok = t->index[hi * k + q] == first[0] + (hi - lo) * s + q * dl;
  job->lo = lo;
  job->hi = hi;
  job->base = first[0] - lo * s;
  job->s = s;
  job->dl = dl;
}

/* One tap of outputs [lo, hi) of a row whose last dim is regular: output j2
 * reads x[o + j2 * s]; the first tap sets the row, later ones replace a
 * smaller value (or with a NaN), as the scan below. */
#define TL_POOL_MAX_SPAN(T)                                                                 \
  INLINE void span_##T(const T *restrict x, int64_t o, int64_t s, int64_t lo, int64_t hi,  \
                       bool first, T *restrict y, int64_t *restrict yi)                     \
  {                                                                                         \
    if (first) {                                                                            \
      for (int64_t j2 = lo; j2 < hi; j2++) {                                                \
        y[j2] = x[o + j2 * s];                                                              \
        yi[j2] = o + j2 * s;                                                                \
      }                                                                                     \
      return;                                                                               \
    }                                                                                       \
    _Pragma("omp simd") for (int64_t j2 = lo; j2 < hi; j2++)                                \
    {                                                                                       \
      T v = x[o + j2 * s], m = y[j2];                                                       \
      bool take = v > m || v != v; /* v != v: a NaN (never, for int64) */                   \
      y[j2] = take ? v : m;                                                                 \
      yi[j2] = take ? o + j2 * s : yi[j2];                                                  \
    }                                                                                       \
  }
TL_POOL_MAX_SPAN(float)
TL_POOL_MAX_SPAN(double)
TL_POOL_MAX_SPAN(int64_t)

/* Output rows [begin, end), a row being (b, j0, j1) over j2.  The row's
 * (q0, q1) taps are the same for every j2: their offsets into the plane are
 * listed once (in tap order), then each output scans them and its q2 taps.
 * NaN wins and a later NaN replaces an earlier one, as PyTorch's
 * `val > max || isnan(val)`; otherwise the first maximum in tap order. */
#define TL_POOL_MAX_ROWS(name, T, LOWEST)                                                   \
  INLINE void name(const max_job *job, int64_t begin, int64_t end, int64_t *offs)          \
  {                                                                                         \
    const tl_nn_taps *t0 = &job->taps[0], *t1 = &job->taps[1], *t2 = &job->taps[2];         \
    int64_t plane = job->in[0] * job->in[1] * job->in[2];                                   \
    for (int64_t r = begin; r < end; r++) {                                                 \
      int64_t b = r / (job->out[0] * job->out[1]), j0 = r / job->out[1] % job->out[0];      \
      int64_t j1 = r % job->out[1], nr = 0;                                                 \
      const T *x = (const T *)job->x + b * plane;                                           \
      const int64_t *x0 = t0->index + b * t0->plane_stride + j0 * t0->k;                    \
      const int64_t *x1 = t1->index + b * t1->plane_stride + j1 * t1->k;                    \
      const int64_t *x2b = t2->index + b * t2->plane_stride;                                \
      T *y = (T *)job->y + r * job->out[2];                                                 \
      int64_t *yi = job->idx + r * job->out[2];                                             \
      for (int64_t q0 = 0; q0 < t0->k; q0++)                                                \
        for (int64_t q1 = 0; x0[q0] >= 0 && q1 < t1->k; q1++)                                \
          if (x1[q1] >= 0)                                                                  \
            offs[nr++] = (x0[q0] * job->in[1] + x1[q1]) * job->in[2];                       \
      int64_t lo = nr > 0 ? job->lo : 0, hi = nr > 0 ? job->hi : 0;                        \
      for (int64_t q = 0; q < nr; q++) /* tap-major, so that the loop over j2 vectorizes */ \
        for (int64_t q2 = 0; q2 < t2->k; q2++)                                              \
          span_##T(x, offs[q] + job->base + q2 * job->dl, job->s, lo, hi, q == 0 && q2 == 0,  \
                   y, yi);                                                                  \
      for (int64_t j2 = 0; j2 < job->out[2]; j2++) {                                        \
        if (j2 == lo && lo < hi)                                                            \
          j2 = hi;                                                                          \
        if (j2 == job->out[2])                                                              \
          break;                                                                            \
        const int64_t *x2 = x2b + j2 * t2->k;                                               \
        T m = LOWEST;                                                                       \
        int64_t at = -1;                                                                    \
        for (int64_t q = 0; q < nr; q++) {                                                  \
          const T *xr = x + offs[q];                                                        \
          for (int64_t q2 = 0; q2 < t2->k; q2++) {                                          \
            int64_t p = x2[q2];                                                             \
            if (p < 0)                                                                      \
              continue;                                                                     \
            T v = xr[p];                                                                    \
            if (at < 0 || v > m || v != v) {                                                \
              m = v;                                                                        \
              at = offs[q] + p;                                                             \
            }                                                                               \
          }                                                                                 \
        }                                                                                   \
        y[j2] = m;                                                                          \
        yi[j2] = at;                                                                        \
      }                                                                                     \
    }                                                                                       \
  }
TL_POOL_MAX_ROWS(max_rows_f32, float, -INFINITY)
TL_POOL_MAX_ROWS(max_rows_f64, double, -INFINITY)
TL_POOL_MAX_ROWS(max_rows_i64, int64_t, INT64_MIN)

TL_SIMD_CLONES static void max_range(void *ctx, int64_t begin, int64_t end, int worker)
{
  (void)worker;
  max_job *job = ctx;
  int64_t stack[OFFS_STACK], *offs = offsets_scratch(job->taps[0].k * job->taps[1].k, stack);
  if (!offs) {
    job->failed = true; /* reported by the caller */
    return;
  }
  if (job->work == TL_DTYPE_F64)
    max_rows_f64(job, begin, end, offs);
  else if (job->work == TL_DTYPE_I64)
    max_rows_i64(job, begin, end, offs);
  else
    max_rows_f32(job, begin, end, offs);
  if (offs != stack)
    free(offs);
}

/* A size-1 dim's one tap, for the dims n..2 of the padded job. */
static int64_t unit_index[1] = {0};

/* The taps padded to three dims (the first 3 - n being size-1 dims). */
static void pad_taps(const tl_nn_taps *taps, int n, tl_nn_taps *t3, int64_t *in, int64_t *out)
{
  for (int d = 0; d < D3; d++) {
    int s = d - (D3 - n);
    t3[d] = s >= 0 ? taps[s] : (tl_nn_taps){.in = 1, .out = 1, .k = 1, .index = unit_index};
    in[d] = t3[d].in;
    out[d] = t3[d].out;
  }
}

/* ---- channels-last window max and scatter ------------------------------------------------ */

/* Is t (batch, channels, n spatial dims) laid out channels-last exactly, so
 * that element (b, c, sp) lies at (b * S + sp) * C + c? */
static bool lies_channels_last(const tl_tensor *t, int n)
{
  int64_t strides[TL_MAX_DIMS];
  if (t->ndim != n + 2 || (t->ndim != 4 && t->ndim != 5))
    return false;
  tl_format f = t->ndim == 4 ? TL_FORMAT_CHANNELS_LAST : TL_FORMAT_CHANNELS_LAST_3D;
  return tl_format_strides(f, t, strides) == TL_OK && tl_tensor_has_strides(t, strides);
}

typedef struct {
  const void *x;
  void *y;
  int64_t *idx;
  tl_nn_taps taps[D3]; /* padded to three dims */
  int64_t in[D3], out[D3], C;
  tl_dtype work;
  bool failed; /* a range could not allocate its offsets */
} max_cl_job;

/* The channels-last max keeps a block of channels' running maxima and their
 * taps in vector registers, on GCC vector extensions: compilers do not
 * vectorise the NaN-aware select written on scalars (two compares OR-ed into
 * a blend), nor keep a scalar array of maxima in registers across the taps.
 * Vectors are 32 bytes (GCC 12 turns a 64-byte vector compare into scalar
 * ones) and a block is MAX_CL_VECS of them; a channel's tap is a lane of the
 * compare's mask type (int32 for float, so a sample must have under 2^31
 * positions), widened when stored. */
enum { MAX_CL_VECS = 2 };
#define TL_POOL_CL_VECTORS(T, K)                                                            \
  typedef K vclk_##T; /* the mask's lane */                                                 \
  typedef T vcl_##T __attribute__((vector_size(32)));                                       \
  typedef T vclu_##T __attribute__((vector_size(32), aligned(sizeof(T)), may_alias));       \
  typedef K vclm_##T __attribute__((vector_size(32)));
TL_POOL_CL_VECTORS(float, int32_t)
TL_POOL_CL_VECTORS(double, int64_t)
TL_POOL_CL_VECTORS(int64_t, int64_t)

/* A vector of taps stored as int64: float's int32 lanes widened a half at a
 * time (a plain loop over the lanes is not vectorised there). */
typedef int64_t vcl_i64u __attribute__((vector_size(32), aligned(8), may_alias));
#define WIDEN_float(a, p)                                                                   \
  do {                                                                                      \
    *(vcl_i64u *)(p) = __builtin_convertvector(                                             \
        __builtin_shufflevector(a, a, 0, 1, 2, 3), vcl_i64u);                               \
    *(vcl_i64u *)((p) + 4) = __builtin_convertvector(                                       \
        __builtin_shufflevector(a, a, 4, 5, 6, 7), vcl_i64u);                               \
  } while (0)
#define WIDEN_double(a, p) (*(vcl_i64u *)(p) = (a))
#define WIDEN_int64_t(a, p) (*(vcl_i64u *)(p) = (a))

/* One block of MAX_CL_VECS * 32 / sizeof(T) channels of an output position:
 * the planar loops' scan (first maximum in tap order, a NaN wins, a later
 * NaN replaces it) over the position's nt taps, whose offsets are offs. */
#define TL_POOL_MAX_CL_BLOCK(T)                                                             \
  INLINE void max_cl_block_##T(const T *x, int64_t C, const int64_t *offs, int64_t nt,      \
                               T *y, int64_t *restrict yi)                                  \
  {                                                                                         \
    enum { W = 32 / sizeof(T) };                                                            \
    vcl_##T m[MAX_CL_VECS];                                                                 \
    vclm_##T at[MAX_CL_VECS] = {{0}}; /* (zeroed only to quiet GCC's maybe-uninitialized) */ \
    for (int k = 0; k < MAX_CL_VECS; k++) {                                                 \
      m[k] = *(const vclu_##T *)(x + offs[0] * C + k * W);                                  \
      at[k] += (vclk_##T)offs[0];                                                           \
    }                                                                                       \
    for (int64_t q = 1; q < nt; q++)                                                        \
      for (int k = 0; k < MAX_CL_VECS; k++) {                                               \
        vcl_##T v = *(const vclu_##T *)(x + offs[q] * C + k * W);                           \
        vclm_##T take = (v > m[k]) | (v != v);                                              \
        m[k] = (vcl_##T)(((vclm_##T)v & take) | ((vclm_##T)m[k] & ~take));                 \
        at[k] = ((vclk_##T)offs[q] & take) | (at[k] & ~take);                               \
      }                                                                                     \
    for (int k = 0; k < MAX_CL_VECS; k++) {                                                 \
      *(vclu_##T *)(y + k * W) = m[k];                                                      \
      WIDEN_##T(at[k], yi + k * W);                                                         \
    }                                                                                       \
  }
TL_POOL_MAX_CL_BLOCK(float)
TL_POOL_MAX_CL_BLOCK(double)
TL_POOL_MAX_CL_BLOCK(int64_t)

/* The channels [c0, C) left over from the blocks, scanned tap by tap over
 * y and yi in memory. */
#define TL_POOL_MAX_CL_TAIL(T)                                                              \
  INLINE void max_cl_tail_##T(const T *x, int64_t C, const int64_t *offs, int64_t nt,       \
                              int64_t c0, T *restrict y, int64_t *restrict yi)              \
  {                                                                                         \
    for (int64_t c = c0; c < C; c++) {                                                      \
      y[c] = x[offs[0] * C + c];                                                            \
      yi[c] = offs[0];                                                                      \
    }                                                                                       \
    for (int64_t q = 1; q < nt; q++)                                                        \
      for (int64_t c = c0; c < C; c++) {                                                    \
        T v = x[offs[q] * C + c];                                                           \
        if (v > y[c] || v != v) {                                                          \
          y[c] = v;                                                                         \
          yi[c] = offs[q];                                                                  \
        }                                                                                   \
      }                                                                                     \
  }
TL_POOL_MAX_CL_TAIL(float)
TL_POOL_MAX_CL_TAIL(double)
TL_POOL_MAX_CL_TAIL(int64_t)

/* Output positions [begin, end) (b, j0, j1, j2), each C channels: the
 * position's taps inside the input are listed (in tap order) into offs, then
 * each block of channels runs over all of them in registers, so y and yi are
 * written once rather than read and written per tap. */
#define TL_POOL_MAX_CL(name, T, LOWEST)                                                     \
  INLINE void name(const max_cl_job *job, int64_t begin, int64_t end, int64_t *offs)        \
  {                                                                                         \
    const tl_nn_taps *t0 = &job->taps[0], *t1 = &job->taps[1], *t2 = &job->taps[2];         \
    int64_t C = job->C, plane = job->in[0] * job->in[1] * job->in[2];                       \
    int64_t o12 = job->out[1] * job->out[2], osp = job->out[0] * o12;                       \
    for (int64_t r = begin; r < end; r++) {                                                 \
      int64_t b = r / osp, j0 = r % osp / o12, j1 = r % o12 / job->out[2];                  \
      int64_t j2 = r % job->out[2], nt = 0;                                                 \
      const T *x = (const T *)job->x + b * plane * C;                                       \
      T *restrict y = (T *)job->y + r * C;                                                  \
      int64_t *restrict yi = job->idx + r * C;                                              \
      for (int64_t q0 = 0; q0 < t0->k; q0++) {                                              \
        int64_t i0 = t0->index[j0 * t0->k + q0];                                            \
        for (int64_t q1 = 0; i0 >= 0 && q1 < t1->k; q1++) {                                 \
          int64_t i1 = t1->index[j1 * t1->k + q1];                                          \
          for (int64_t q2 = 0; i1 >= 0 && q2 < t2->k; q2++) {                               \
            int64_t i2 = t2->index[j2 * t2->k + q2];                                        \
            if (i2 >= 0)                                                                    \
              offs[nt++] = (i0 * job->in[1] + i1) * job->in[2] + i2;                        \
          }                                                                                 \
        }                                                                                   \
      }                                                                                     \
      if (nt == 0) { /* no tap inside, as the planar loops */                               \
        for (int64_t c = 0; c < C; c++) {                                                   \
          y[c] = LOWEST;                                                                    \
          yi[c] = -1;                                                                       \
        }                                                                                   \
        continue;                                                                           \
      }                                                                                     \
      int64_t c0 = 0, cb = MAX_CL_VECS * 32 / sizeof(T);                                    \
      for (; c0 + cb <= C && plane <= INT32_MAX; c0 += cb)                                  \
        max_cl_block_##T(x + c0, C, offs, nt, y + c0, yi + c0);                             \
      max_cl_tail_##T(x, C, offs, nt, c0, y, yi);                                           \
    }                                                                                       \
  }
TL_POOL_MAX_CL(max_cl_f32, float, -INFINITY)
TL_POOL_MAX_CL(max_cl_f64, double, -INFINITY)
TL_POOL_MAX_CL(max_cl_i64, int64_t, INT64_MIN)

TL_SIMD_CLONES static void max_cl_range(void *ctx, int64_t begin, int64_t end, int worker)
{
  (void)worker;
  max_cl_job *job = ctx;
  int64_t stack[OFFS_STACK];
  int64_t *offs = offsets_scratch(job->taps[0].k * job->taps[1].k * job->taps[2].k, stack);
  if (!offs) {
    job->failed = true; /* reported by the caller */
    return;
  }
  if (job->work == TL_DTYPE_F64)
    max_cl_f64(job, begin, end, offs);
  else if (job->work == TL_DTYPE_I64)
    max_cl_i64(job, begin, end, offs);
  else
    max_cl_f32(job, begin, end, offs);
  if (offs != stack)
    free(offs);
}

/* A result laid out channels-last that the planar loops cannot write: pool
 * into row-major temporaries, then copy them over. */
static tl_status through_row_major(tl_status (*run)(const tl_tensor *, const tl_tensor *, int,
                                                    const tl_nn_taps *, bool, tl_tensor *,
                                                    tl_tensor *),
                                   const tl_tensor *a, const tl_tensor *b, int n,
                                   const tl_nn_taps *taps, bool flag, tl_tensor *out,
                                   tl_tensor *indices)
{
  tl_tensor yt = {0}, it = {0};
  tl_status status = tl_tensor_empty(&yt, out->dtype, out->ndim, out->shape, tl_tensor_device(out));
  if (status == TL_OK && indices)
    status = tl_tensor_empty(&it, indices->dtype, indices->ndim, indices->shape,
                             tl_tensor_device(indices));
  if (status == TL_OK)
    status = run(a, b, n, taps, flag, &yt, indices ? &it : NULL);
  if (status == TL_OK)
    status = tl_tensor_copy(out, &yt);
  if (status == TL_OK && indices)
    status = tl_tensor_copy(indices, &it);
  tl_tensor_release(&yt);
  tl_tensor_release(&it);
  return status;
}

static tl_status window_max_row_major(const tl_tensor *in, const tl_tensor *unused, int n,
                                      const tl_nn_taps *taps, bool flag, tl_tensor *out,
                                      tl_tensor *indices)
{
  (void)unused;
  (void)flag;
  return tl_cpu_pool_window_max(in, n, taps, out, indices);
}

static tl_status window_max_cl(const tl_tensor *in, int n, const tl_nn_taps *taps,
                               tl_tensor *out, tl_tensor *indices)
{
  tl_dtype work = max_work_dtype(in->dtype);
  bool regular = true;
  for (int d = 0; d < n; d++)
    regular = regular && taps[d].plane_stride == 0;
  if (in->dtype != work || !regular || !lies_channels_last(in, n) ||
      !lies_channels_last(out, n) || !lies_channels_last(indices, n))
    return through_row_major(window_max_row_major, in, NULL, n, taps, false, out, indices);
  max_cl_job job = {.x = tl_tensor_data(in), .y = tl_tensor_data(out),
                    .idx = tl_tensor_data(indices), .C = in->shape[1], .work = work};
  pad_taps(taps, n, job.taps, job.in, job.out);
  int64_t rows = out->shape[0] * job.out[0] * job.out[1] * job.out[2];
  if (rows * job.C > 0) {
    int64_t per_row = job.C * job.taps[0].k * job.taps[1].k * job.taps[2].k;
    tl_storage_bump(out->storage);
    tl_storage_bump(indices->storage);
    tl_parallel_for(rows, 1 + 16384 / (per_row + 1), max_cl_range, &job);
  }
  return job.failed ? tl_error_set(TL_ERR_MEMORY, "max pooling: out of memory") : TL_OK;
}

tl_status tl_cpu_pool_window_max(const tl_tensor *in, int n, const tl_nn_taps *taps,
                                 tl_tensor *out, tl_tensor *indices)
{
  if (!tl_tensor_is_contiguous(out) || !tl_tensor_is_contiguous(indices))
    return window_max_cl(in, n, taps, out, indices);
  tl_dtype work = max_work_dtype(in->dtype);
  tl_tensor xt = {0}, yt = {0};
  tl_status status = TL_OK;
  void *ydata;
  bool direct = out->dtype == work;
  const tl_tensor *xw = work_io(in, out, work, &xt, &yt, &ydata);
  if (!xw) {
    status = tl_error_status();
    goto done;
  }
  max_job job = {.x = tl_tensor_data(xw), .y = ydata, .idx = tl_tensor_data(indices),
                 .work = work};
  pad_taps(taps, n, job.taps, job.in, job.out);
  regular_span(&job);
  int64_t rows = planes_of(out, n) * job.out[0] * job.out[1];
  if (rows * job.out[2] > 0) {
    int64_t per_row = job.out[2] * job.taps[0].k * job.taps[1].k * job.taps[2].k;
    tl_storage_bump(out->storage);
    tl_storage_bump(indices->storage);
    tl_parallel_for(rows, 1 + 16384 / (per_row + 1), max_range, &job);
  }
  if (job.failed) {
    status = tl_error_set(TL_ERR_MEMORY, "max pooling: out of memory");
    goto done;
  }
  status = direct ? TL_OK : tl_tensor_copy(out, &yt);
done:
  tl_tensor_release(&xt);
  tl_tensor_release(&yt);
  return status;
}

/* ---- separable weighted passes ------------------------------------------------------------ */

/* One pass along a dim: (outer, in, inner) <-> (outer, out, inner). */
typedef struct {
  const void *x;
  void *y;
  const tl_nn_taps *t;
  int64_t inner;
  bool f64, transpose; /* transpose: rows are planes o, scattered */
} pass_job;

TL_VECMATH_BEGIN
/* y[0, L) = the sum over entries e, in order, of w[e] * the row src[e] of
 * base (row length L; src[e] taken modulo mod when mod > 0, a cache slot;
 * entries with src[e] < 0 are none), added as 0 + w0 x0 + w1 x1 + ...
 * left to right.  The first product is stored (plus 0, which rounds as the
 * sum from 0 would, -0 included) rather than added to a zeroed row, and the
 * rest go two to a sweep: the same sums with a third of the row's loads
 * and stores, and no memset call per short row. */
#define TL_POOL_GATHER(name, T)                                                             \
  INLINE void name(T *restrict y, int64_t L, const T *base, const int64_t *src,             \
                   const double *w, int64_t entries, int64_t mod)                           \
  {                                                                                         \
    int64_t e = 0;                                                                          \
    while (e < entries && src[e] < 0)                                                       \
      e++;                                                                                  \
    if (e == entries) {                                                                     \
      memset(y, 0, (size_t)L * sizeof *y);                                                  \
      return;                                                                               \
    }                                                                                       \
    const T *restrict x0 = base + (mod > 0 ? src[e] % mod : src[e]) * L;                    \
    T w0 = (T)w[e++];                                                                       \
    _Pragma("omp simd") for (int64_t i = 0; i < L; i++) y[i] = w0 * x0[i] + (T)0;           \
    for (;;) {                                                                              \
      while (e < entries && src[e] < 0)                                                     \
        e++;                                                                                \
      if (e >= entries)                                                                     \
        break;                                                                              \
      int64_t f = e + 1;                                                                    \
      while (f < entries && src[f] < 0)                                                     \
        f++;                                                                                \
      const T *restrict xa = base + (mod > 0 ? src[e] % mod : src[e]) * L;                  \
      T wa = (T)w[e];                                                                       \
      if (f >= entries) {                                                                   \
        _Pragma("omp simd") for (int64_t i = 0; i < L; i++) y[i] += wa * xa[i];             \
        break;                                                                              \
      }                                                                                     \
      const T *restrict xb = base + (mod > 0 ? src[f] % mod : src[f]) * L;                  \
      T wb = (T)w[f];                                                                       \
      _Pragma("omp simd") for (int64_t i = 0; i < L; i++) y[i] = y[i] + wa * xa[i] + wb * xb[i]; \
      e = f + 1;                                                                            \
    }                                                                                       \
  }
TL_POOL_GATHER(gather_f32, float)
TL_POOL_GATHER(gather_f64, double)

/* forward: rows (o, j) of y = sum_q w[j, q] x[o, index[j, q], :] */
#define TL_POOL_PASS(forward, transpose, T, gather)                                         \
  INLINE void forward(const pass_job *job, int64_t begin, int64_t end)                      \
  {                                                                                         \
    const tl_nn_taps *t = job->t;                                                           \
    int64_t inner = job->inner;                                                             \
    /* (o, j) stepped along, not divided out of r: with inner == 1 a row is \
     * one output, and a division per output cost more than its taps.  That \
     * case has a loop of its own, whose registers the gather's do not \
     * crowd onto the stack (6% of a planar bilinear forward). */                           \
    if (inner == 1) {                                                                       \
      for (int64_t r = begin, o = begin / t->out, j = begin % t->out; r < end;              \
           r++, j = j + 1 == t->out ? 0 : j + 1, o += j == 0) {                             \
        const T *x = (const T *)job->x + o * t->in;                                         \
        const int64_t *ix = t->index + j * t->k;                                            \
        const double *w = t->weight + j * t->k;                                             \
        T s = 0;                                                                            \
        for (int64_t q = 0; q < t->k; q++)                                                  \
          if (ix[q] >= 0)                                                                   \
            s += (T)w[q] * x[ix[q]];                                                        \
        ((T *)job->y)[r] = s;                                                               \
      }                                                                                     \
      return;                                                                               \
    }                                                                                       \
    for (int64_t r = begin, o = begin / t->out, j = begin % t->out; r < end;                \
         r++, j = j + 1 == t->out ? 0 : j + 1, o += j == 0) {                               \
      const T *x = (const T *)job->x + o * t->in * inner;                                   \
      T *restrict y = (T *)job->y + r * inner;                                              \
      const int64_t *ix = t->index + j * t->k;                                              \
      const double *w = t->weight + j * t->k;                                               \
      gather(y, inner, x, ix, w, t->k, 0);                                                  \
    }                                                                                       \
  }                                                                                         \
  /* transpose: planes o of y (outer, in, inner) += w x (outer, out, inner) */              \
  INLINE void transpose(const pass_job *job, int64_t begin, int64_t end)                    \
  {                                                                                         \
    const tl_nn_taps *t = job->t;                                                           \
    int64_t inner = job->inner;                                                             \
    for (int64_t o = begin; o < end; o++) {                                                 \
      const T *x = (const T *)job->x + o * t->out * inner;                                  \
      T *y = (T *)job->y + o * t->in * inner;                                               \
      memset(y, 0, (size_t)(t->in * inner) * sizeof *y);                                    \
      for (int64_t j = 0; j < t->out; j++) {                                                \
        const int64_t *ix = t->index + j * t->k;                                            \
        const double *w = t->weight + j * t->k;                                             \
        const T *restrict xr = x + j * inner;                                               \
        if (inner == 1) { /* one element a tap: no loop to set up */                        \
          for (int64_t q = 0; q < t->k; q++)                                                \
            if (ix[q] >= 0)                                                                 \
              y[ix[q]] += (T)w[q] * xr[0];                                                  \
          continue;                                                                         \
        }                                                                                   \
        for (int64_t q = 0; q < t->k; q++) {                                                \
          if (ix[q] < 0)                                                                    \
            continue;                                                                       \
          T *restrict yr = y + ix[q] * inner;                                               \
          T wq = (T)w[q];                                                                   \
          _Pragma("omp simd") for (int64_t i = 0; i < inner; i++) yr[i] += wq * xr[i];      \
        }                                                                                   \
      }                                                                                     \
    }                                                                                       \
  }
TL_POOL_PASS(pass_f32, pass_transpose_f32, float, gather_f32)
TL_POOL_PASS(pass_f64, pass_transpose_f64, double, gather_f64)
TL_VECMATH_END

TL_SIMD_CLONES
static void pass_range(void *ctx, int64_t begin, int64_t end, int worker)
{
  (void)worker;
  const pass_job *job = ctx;
  if (job->transpose && job->f64)
    pass_transpose_f64(job, begin, end);
  else if (job->transpose)
    pass_transpose_f32(job, begin, end);
  else if (job->f64)
    pass_f64(job, begin, end);
  else
    pass_f32(job, begin, end);
}

/* ---- passes a plane at a time ---------------------------------------------------------
 * With planes for every thread, each plane runs all its passes in a row,
 * the intermediate results in two plane-sized scratch buffers of its
 * thread: a whole-batch intermediate (bilinear x2: half the output) would
 * raise the peak memory above PyTorch's, whose kernels interpolate every
 * dim at once. */

typedef struct {
  const void *x;
  void *y;
  const tl_nn_taps *taps;
  int n, order[D3];
  int64_t outer[D3], inner[D3]; /* per step, within one plane */
  int64_t in_plane, out_plane, scratch; /* elements */
  size_t esize;
  bool f64, transpose;
  bool failed; /* a range could not allocate its scratch */
} plane_job;

static void plane_range(void *ctx, int64_t begin, int64_t end, int worker)
{
  plane_job *job = ctx;
  char *buf = malloc(2 * (size_t)job->scratch * job->esize + 1);
  if (!buf) {
    job->failed = true; /* reported by the caller */
    return;
  }
  for (int64_t b = begin; b < end; b++) {
    const char *src = (const char *)job->x + (size_t)(b * job->in_plane) * job->esize;
    for (int step = 0; step < job->n; step++) {
      const tl_nn_taps *t = &job->taps[job->order[step]];
      char *dst = step == job->n - 1
                      ? (char *)job->y + (size_t)(b * job->out_plane) * job->esize
                      : buf + (size_t)(step % 2) * (size_t)job->scratch * job->esize;
      pass_job pass = {.x = src, .y = dst, .t = t, .inner = job->inner[step], .f64 = job->f64,
                       .transpose = job->transpose};
      int64_t outer = job->outer[step];
      pass_range(&pass, 0, job->transpose ? outer : outer * t->out, worker);
      src = dst;
    }
  }
  free(buf);
}

/* ---- whole-plane averages ------------------------------------------------------------
 * Taps that reduce every dim to one output reading all of it with one weight
 * (adaptive average pooling to 1, a window as large as the input): the
 * passes would run short strided loops; this sums each contiguous plane in
 * double instead (forward) or fills it with its one gradient (transpose). */

typedef struct {
  const void *x;
  void *y;
  int64_t plane;
  double weight; /* the product of the dims' tap weights */
  bool f64, transpose;
} mean_job;

TL_VECMATH_BEGIN
#define TL_POOL_MEAN(name, T)                                                               \
  INLINE void name(const mean_job *job, int64_t begin, int64_t end)                         \
  {                                                                                         \
    int64_t P = job->plane;                                                                 \
    for (int64_t b = begin; b < end; b++) {                                                 \
      if (job->transpose) {                                                                 \
        T v = (T)(((const T *)job->x)[b] * job->weight), *restrict y = (T *)job->y + b * P; \
        _Pragma("omp simd") for (int64_t i = 0; i < P; i++) y[i] = v;                       \
        continue;                                                                           \
      }                                                                                     \
      const T *restrict x = (const T *)job->x + b * P;                                      \
      double s = 0;                                                                         \
      _Pragma("omp simd reduction(+ : s)") for (int64_t i = 0; i < P; i++) s += x[i];       \
      ((T *)job->y)[b] = (T)(s * job->weight);                                              \
    }                                                                                       \
  }
TL_POOL_MEAN(mean_f32, float)
TL_POOL_MEAN(mean_f64, double)
TL_VECMATH_END

TL_SIMD_CLONES
static void mean_range(void *ctx, int64_t begin, int64_t end, int worker)
{
  (void)worker;
  const mean_job *job = ctx;
  if (job->f64)
    mean_f64(job, begin, end);
  else
    mean_f32(job, begin, end);
}

/* The taps' weight product when they average whole planes (see above), else 0. */
static double whole_plane_weight(int n, const tl_nn_taps *taps)
{
  double w = 1;
  for (int d = 0; d < n; d++) {
    const tl_nn_taps *t = &taps[d];
    if (t->out != 1 || t->k != t->in || t->in < 1)
      return 0;
    for (int64_t q = 0; q < t->k; q++)
      if (t->index[q] != q || t->weight[q] != t->weight[0])
        return 0;
    w *= t->weight[0];
  }
  return w;
}

/* ---- means of whole planes -------------------------------------------------------------
 * Adaptive average pooling to size 1 is PyTorch's x.mean(spatial dims), and
 * these kernels give the bits of torchlike's mean (src/ndcore/kernels:
 * reduce.c plans, kernels_reduce.c sums), without its per-row calls, its
 * double accumulator tensor and its passes to divide and cast:
 *   ROW  a contiguous plane is one row of the engine: 16 double lanes, lane
 *        j taking elements j, j + 16, ...; the tail's elements go to lanes
 *        0, 1, ...; then the lanes are added in halves (8, 4, 2, 1).  Rows
 *        longer than 2048 are split at an even block and their halves
 *        added.  The lanes live in four 4-double vectors here, and the tail
 *        is a zero-padded block: a lane is never -0 (it starts at +0, and a
 *        sum rounds to +0), so adding +0 to the lanes past the tail leaves
 *        them as they were.
 *   SEQ  planes shorter than 16 in a batch at least 4 times their size:
 *        the engine walks the batch innermost instead, so each plane is
 *        summed in order from 0.
 *   CL   channels-last planes: the channels are innermost, each summed in
 *        order over the positions.
 * Each sum is then divided by the plane's size and rounded once.  The one
 * order this does not follow is the engine's split of a long reduction
 * across threads (fewer than 16 planes, 32768 elements or more): those
 * inputs are not taken.  The transpose (the backward) fills each plane of
 * the gradient with g / size, divided in g's dtype (float for the half
 * types), as mean's derivative divides. */

enum { MEAN_ROW, MEAN_SEQ, MEAN_CL };
enum { MEAN_GROUP = 64 };
#define MEAN_LANES TL_REDUCE_LANES /* the engine's order (tl_reduce.h) */
#define MEAN_BLOCK TL_REDUCE_BLOCK

typedef struct {
  const void *x;
  void *y;
  int64_t B, P, C; /* planes, plane size; C: channels (MEAN_CL) */
  int mode;
  bool f64, transpose;
  bool failed; /* a range could not allocate its accumulators */
} mean1_job;

typedef double mean_v4d __attribute__((vector_size(32)));

/* *a += 4 elements at p, as doubles (by pointer: a vector returned by value
 * would change the baseline clone's ABI).  Element by element: GCC widens a
 * whole float vector 2 elements at a time. */
INLINE void mean_add_f32(mean_v4d *a, const float *p)
{
  *a += (mean_v4d){p[0], p[1], p[2], p[3]};
}

INLINE void mean_add_f64(mean_v4d *a, const double *p)
{
  mean_v4d d;
  memcpy(&d, p, sizeof d);
  *a += d;
}

/* The same, the elements from the r-th on read as +0 (all read: the caller
 * knows them readable). */
#define MEAN_KEEP(j) (r > (j) ? d[j] : 0.0)
INLINE void mean_add_first_f32(mean_v4d *a, const float *p, int64_t r)
{
  mean_v4d d = {p[0], p[1], p[2], p[3]};
  *a += (mean_v4d){MEAN_KEEP(0), MEAN_KEEP(1), MEAN_KEEP(2), MEAN_KEEP(3)};
}

INLINE void mean_add_first_f64(mean_v4d *a, const double *p, int64_t r)
{
  mean_v4d d;
  memcpy(&d, p, sizeof d);
  *a += (mean_v4d){MEAN_KEEP(0), MEAN_KEEP(1), MEAN_KEEP(2), MEAN_KEEP(3)};
}

/* One row of at most MEAN_BLOCK elements, in the engine's lane order: the
 * element k goes to lane k % 16, the tail's too.  The tail is a whole block
 * whose lanes past the row are taken as +0 when `avail` (the elements
 * readable from x) reaches that far, else built lane by lane (a copy to the
 * stack would stall the loads that follow it). */
#define MEAN_TAIL(j) ((j) < r ? (double)t[j] : 0.0)
#define TL_POOL_ROW_SUM(name, T, add, add_first)                                                      \
  INLINE double name(const T *x, int64_t n, int64_t avail)                                  \
  {                                                                                         \
    mean_v4d a0 = {0, 0, 0, 0}, a1 = a0, a2 = a0, a3 = a0;                                  \
    int64_t i = 0;                                                                          \
    for (; i + MEAN_LANES <= n; i += MEAN_LANES) {                                          \
      add(&a0, x + i);                                                                      \
      add(&a1, x + i + 4);                                                                  \
      add(&a2, x + i + 8);                                                                  \
      add(&a3, x + i + 12);                                                                 \
    }                                                                                       \
    int64_t r = n - i;                                                                      \
    if (r > 0 && avail - i >= MEAN_LANES) {                                                 \
      add_first(&a0, x + i, r);                                                             \
      add_first(&a1, x + i + 4, r - 4);                                                     \
      add_first(&a2, x + i + 8, r - 8);                                                     \
      add_first(&a3, x + i + 12, r - 12);                                                   \
    } else if (r > 0) {                                                                     \
      const T *t = x + i;                                                                   \
      a0 += (mean_v4d){MEAN_TAIL(0), MEAN_TAIL(1), MEAN_TAIL(2), MEAN_TAIL(3)};             \
      if (r > 4)                                                                            \
        a1 += (mean_v4d){MEAN_TAIL(4), MEAN_TAIL(5), MEAN_TAIL(6), MEAN_TAIL(7)};           \
      if (r > 8)                                                                            \
        a2 += (mean_v4d){MEAN_TAIL(8), MEAN_TAIL(9), MEAN_TAIL(10), MEAN_TAIL(11)};         \
      if (r > 12)                                                                           \
        a3 += (mean_v4d){MEAN_TAIL(12), MEAN_TAIL(13), MEAN_TAIL(14), 0};                   \
    }                                                                                       \
    a0 += a2; /* lanes j += j + 8 */                                                        \
    a1 += a3;                                                                               \
    a0 += a1; /* j += j + 4 */                                                              \
    return (a0[0] + a0[2]) + (a0[1] + a0[3]);                                               \
  }
TL_POOL_ROW_SUM(row_block_f32, float, mean_add_f32, mean_add_first_f32)
TL_POOL_ROW_SUM(row_block_f64, double, mean_add_f64, mean_add_first_f64)

/* A row of any length: halves split as the engine splits them. */
#define TL_POOL_ROW_SPLIT(name, T, block)                                                   \
  static double name(const T *x, int64_t n, int64_t avail)                                  \
  {                                                                                         \
    if (n <= MEAN_BLOCK)                                                                    \
      return block(x, n, avail);                                                            \
    int64_t h = (n / 2) & ~(int64_t)(MEAN_LANES - 1);                                       \
    double a = name(x, h, avail);                                                           \
    return a + name(x + h, n - h, avail - h);                                               \
  }
TL_POOL_ROW_SPLIT(row_split_f32, float, row_block_f32)
TL_POOL_ROW_SPLIT(row_split_f64, double, row_block_f64)

/* Samples or planes [begin, end) of the forward, or planes of the transpose. */
#define TL_POOL_MEAN1(name, T, block, split)                                                \
  INLINE void name(mean1_job *job, int64_t begin, int64_t end)                              \
  {                                                                                         \
    const T *x = job->x;                                                                    \
    T *y = job->y;                                                                          \
    int64_t P = job->P, C = job->C;                                                         \
    if (job->transpose) {                                                                   \
      for (int64_t b = begin; b < end; b++) {                                               \
        if (job->mode == MEAN_CL) { /* sample b: its positions' channels */                 \
          const T *restrict g = x + b * C;                                                  \
          for (int64_t i = 0; i < P; i++) {                                                 \
            T *restrict yr = y + (b * P + i) * C;                                           \
            _Pragma("omp simd") for (int64_t c = 0; c < C; c++) yr[c] = g[c] / (T)P;        \
          }                                                                                 \
          continue;                                                                         \
        }                                                                                   \
        T v = x[b] / (T)P, *restrict yr = y + b * P;                                        \
        _Pragma("omp simd") for (int64_t i = 0; i < P; i++) yr[i] = v;                      \
      }                                                                                     \
      return;                                                                               \
    }                                                                                       \
    if (job->mode == MEAN_CL) {                                                             \
      double *acc = malloc((size_t)C * sizeof *acc);                                        \
      if (!acc) {                                                                           \
        job->failed = true;                                                                 \
        return;                                                                             \
      }                                                                                     \
      for (int64_t b = begin; b < end; b++) {                                               \
        memset(acc, 0, (size_t)C * sizeof *acc);                                            \
        for (int64_t i = 0; i < P; i++) {                                                   \
          const T *restrict xr = x + (b * P + i) * C;                                       \
          _Pragma("omp simd") for (int64_t c = 0; c < C; c++) acc[c] += xr[c];              \
        }                                                                                   \
        for (int64_t c = 0; c < C; c++)                                                     \
          y[b * C + c] = (T)(acc[c] / (double)P);                                           \
      }                                                                                     \
      free(acc);                                                                            \
      return;                                                                               \
    }                                                                                       \
    /* sums a group of planes at a time, then their divisions as vectors */                \
    for (int64_t b0 = begin; b0 < end; b0 += MEAN_GROUP) {                                  \
      int64_t nb = end - b0 < MEAN_GROUP ? end - b0 : MEAN_GROUP;                           \
      double sums[MEAN_GROUP];                                                              \
      for (int64_t k = 0; k < nb; k++) {                                                    \
        int64_t b = b0 + k;                                                                 \
        const T *xr = x + b * P;                                                            \
        int64_t avail = (job->B - b) * P; /* to the end of the input */                     \
        double s = 0;                                                                       \
        if (job->mode == MEAN_SEQ)                                                          \
          for (int64_t i = 0; i < P; i++)                                                   \
            s += xr[i];                                                                     \
        else                                                                                \
          s = P <= MEAN_BLOCK ? block(xr, P, avail) : split(xr, P, avail);                  \
        sums[k] = s;                                                                        \
      }                                                                                     \
      _Pragma("omp simd") for (int64_t k = 0; k < nb; k++) y[b0 + k] = (T)(sums[k] / (double)P); \
    }                                                                                       \
  }
TL_POOL_MEAN1(mean1_f32, float, row_block_f32, row_split_f32)
TL_POOL_MEAN1(mean1_f64, double, row_block_f64, row_split_f64)

TL_SIMD_CLONES
static void mean1_range(void *ctx, int64_t begin, int64_t end, int worker)
{
  (void)worker;
  mean1_job *job = ctx;
  if (job->f64)
    mean1_f64(job, begin, end);
  else
    mean1_f32(job, begin, end);
}

tl_status tl_cpu_pool_plane_mean(const tl_tensor *in, int n, bool transpose, tl_tensor *out,
                                 bool *taken)
{
  const tl_tensor *x = transpose ? out : in; /* the planes' tensor */
  int64_t B = planes_of(x, n), numel = tl_tensor_numel(x);
  int64_t P = B > 0 ? numel / B : 0;
  bool cl = !tl_tensor_is_contiguous(x);
  int64_t C = cl ? x->shape[1] : 0;
  *taken = false;
  if (cl && (!lies_channels_last(x, n) || C < 2 || P < 2))
    return TL_OK;
  if (numel == 0) {
    *taken = true;
    return TL_OK;
  }
  mean1_job job = {.B = B, .P = P, .C = C, .transpose = transpose,
                   .mode = cl ? MEAN_CL : MEAN_ROW};
  tl_tensor xt = {0}, yt = {0};
  tl_status status = TL_OK;
  if (transpose) {
    /* g / P in g's dtype: float for the half types, cast last */
    tl_dtype work = work_dtype(in->dtype);
    void *ydata;
    const tl_tensor *gw = work_io(in, out, work, &xt, &yt, &ydata);
    if (!gw) {
      status = tl_error_status();
      goto done;
    }
    if (out->dtype != work)
      job.mode = MEAN_ROW; /* yt is row-major; the copy lays it out */
    job.x = tl_tensor_data(gw);
    job.y = ydata;
    job.f64 = work == TL_DTYPE_F64;
    *taken = true;
    tl_storage_bump(out->storage);
    tl_parallel_for(job.mode == MEAN_CL ? B / C : B, 1 + 16384 / (P + 1), mean1_range, &job);
    if (out->dtype != work)
      status = tl_tensor_copy(out, &yt);
    goto done;
  }
  /* the forward reads float32 and float64 as they lie, in the engine's orders */
  if (in->dtype != TL_DTYPE_F32 && in->dtype != TL_DTYPE_F64)
    return TL_OK;
  if (B < TL_REDUCE_MIN_OUTPUTS && P > 1 && numel >= TL_REDUCE_GRAIN)
    return TL_OK;
  if (!cl && P > 1 && P < TL_REDUCE_SHORT_INNER && B > 1 && B >= 4 * P)
    job.mode = MEAN_SEQ;
  job.x = tl_tensor_data(in);
  job.y = tl_tensor_data(out);
  job.f64 = in->dtype == TL_DTYPE_F64;
  *taken = true;
  tl_storage_bump(out->storage);
  tl_parallel_for(cl ? B / C : B, 1 + 16384 / (P * (cl ? C : 1) + 1), mean1_range, &job);
  if (job.failed)
    status = tl_error_set(TL_ERR_MEMORY, "adaptive_avg_pool: out of memory");
done:
  tl_tensor_release(&xt);
  tl_tensor_release(&yt);
  return status;
}

/* ---- integer passes ------------------------------------------------------------------
 * PyTorch's two integer weighted ops, neither of which rounds through float:
 *   int64 average pooling   window sums in int64 (wrapping), then one
 *                           truncating division by the window's divisor, the
 *                           product of the dims' divisors (1 / tap weight);
 *   uint8 bilinear/bicubic  fixed-point weights of taps->precision bits, each
 *                           pass rounded and clamped to uint8 before the next.
 * Both run the passes last dim first (PyTorch's order: it matters for uint8,
 * whose intermediate results round), skipping identity dims. */

typedef struct {
  const void *x;
  void *y;
  const tl_nn_taps *t;
  int64_t inner;
} int_pass_job;

/* rows (o, j): y[o, j, i] = the taps' sum over x[o, index[j, q], i] */
static void int_pass_range(void *ctx, int64_t begin, int64_t end, int worker)
{
  (void)worker;
  const int_pass_job *job = ctx;
  const tl_nn_taps *t = job->t;
  int64_t inner = job->inner;
  for (int64_t r = begin; r < end; r++) {
    int64_t o = r / t->out, j = r % t->out;
    const int64_t *ix = t->index + j * t->k;
    const double *w = t->weight + j * t->k;
    for (int64_t i = 0; i < inner; i++) {
      if (t->precision > 0) {
        const uint8_t *x = (const uint8_t *)job->x + o * t->in * inner + i;
        int32_t acc = (int32_t)1 << (t->precision - 1); /* rounds the shift below */
        for (int64_t q = 0; q < t->k; q++)
          if (ix[q] >= 0)
            acc += (int32_t)w[q] * x[ix[q] * inner];
        acc = acc < 0 ? 0 : acc >> t->precision;
        ((uint8_t *)job->y)[r * inner + i] = (uint8_t)(acc > 255 ? 255 : acc);
      } else {
        const int64_t *x = (const int64_t *)job->x + o * t->in * inner + i;
        uint64_t acc = 0; /* unsigned: wraps as PyTorch's int64 sum, without overflow */
        for (int64_t q = 0; q < t->k; q++)
          if (ix[q] >= 0)
            acc += (uint64_t)x[ix[q] * inner];
        ((int64_t *)job->y)[r * inner + i] = (int64_t)acc;
      }
    }
  }
}

static bool taps_identity(const tl_nn_taps *t)
{
  if (t->k != 1 || t->in != t->out)
    return false;
  for (int64_t j = 0; j < t->out; j++)
    if (t->index[j] != j)
      return false;
  return true;
}

/* avg pooling's divisor of output row j along one dim: 1 / its taps' weight */
static int64_t taps_divisor(const tl_nn_taps *t, int64_t j)
{
  for (int64_t q = 0; q < t->k; q++)
    if (t->index[j * t->k + q] >= 0)
      return llround(1.0 / t->weight[j * t->k + q]);
  return 1; /* no tap: the sum is 0 */
}

/* out (contiguous, in's dtype) = the integer passes over in (contiguous) */
static tl_status int_weighted(const void *x, int n, const tl_nn_taps *taps, int64_t B,
                              size_t esize, tl_tensor *out)
{
  void *bufs[2] = {NULL, NULL}, *y = tl_tensor_data(out);
  tl_status status = TL_OK;
  int64_t cur[D3], left = 0, step = 0;
  for (int d = 0; d < n; d++) {
    cur[d] = taps[d].in;
    left += !taps_identity(&taps[d]);
  }
  if (left == 0)
    memcpy(y, x, (size_t)tl_tensor_numel(out) * esize);
  for (int d = n - 1; d >= 0; d--) {
    if (taps_identity(&taps[d]))
      continue;
    int64_t outer, inner;
    tl_nn_taps_pass_step(n, taps, false, d, B, cur, &outer, &inner);
    void *dst = y;
    if (--left > 0) {
      free(bufs[step % 2]);
      if (!(dst = bufs[step++ % 2] = malloc((size_t)(outer * cur[d] * inner) * esize + 1))) {
        status = tl_error_set(TL_ERR_MEMORY, "pooling: out of memory");
        goto done;
      }
    }
    int_pass_job job = {.x = x, .y = dst, .t = &taps[d], .inner = inner};
    tl_parallel_for(outer * taps[d].out, 1 + 16384 / (taps[d].k * inner + 1), int_pass_range,
                    &job);
    x = dst;
  }
  if (taps[0].precision == 0) { /* int64 averages: divide the sums */
    tl_nn_taps t3[D3];
    int64_t in3[D3], out3[D3], plane = tl_tensor_numel(out) / (B ? B : 1);
    pad_taps(taps, n, t3, in3, out3);
    int64_t *yi = y;
    for (int64_t e = 0; e < tl_tensor_numel(out); e++) {
      int64_t p = e % plane, j2 = p % out3[2], j1 = p / out3[2] % out3[1];
      int64_t j0 = p / (out3[2] * out3[1]);
      int64_t div = (n > 2 ? taps_divisor(&t3[0], j0) : 1) *
                    (n > 1 ? taps_divisor(&t3[1], j1) : 1) * taps_divisor(&t3[2], j2);
      yi[e] /= div; /* C's division truncates, as PyTorch's */
    }
  }
done:
  free(bufs[0]);
  free(bufs[1]);
  return status;
}

/* ---- channels-last weighted passes ------------------------------------------------------
 * A channels-last (N, *spatial, C) input is the planar layout of N planes
 * with one more, innermost dim that no pass touches: each pass along dim d
 * is (outer, d, inner * C), the same per-element sums in the same pass
 * order, vectorized over the channels.  Whole-plane averages (their
 * vectorized reduction has an order of its own), integer and uint8 passes
 * go through the planar loops. */

static tl_status weighted_row_major(const tl_tensor *in, const tl_tensor *unused, int n,
                                    const tl_nn_taps *taps, bool transpose, tl_tensor *out,
                                    tl_tensor *none)
{
  (void)unused;
  (void)none;
  return tl_cpu_pool_weighted(in, n, taps, transpose, out);
}

/* ---- channels-last 2-d passes, a row at a time ----------------------------------------
 * The whole-batch passes above write an intermediate as large as half the
 * output (bilinear x2) and read it back from memory.  With two spatial dims
 * each final row r of dim 0 (the output's row, or the input gradient's) is
 * made here from rows that stay in cache:
 *   rows first     tmp = the dim-0 pass's row r, a gather of source rows;
 *                  the dim-1 pass then maps tmp to the final row;
 *   columns first  the dim-1 pass maps each source row r reads into a
 *                  cache of S rows (slot: row % S, S the widest span of
 *                  one final row's sources, so a row's sources never share
 *                  a slot); the final row is the gather of the cached rows.
 * A gather is the dim-0 pass as sums over sources: the forward's taps in
 * tap order, or (transpose) every (j, q) whose tap reads row r in order of
 * j then q, which is the order the scatter-adds reach that row in.  So
 * every element gets the same products added in the same order as in the
 * passes (the same bits), in the pass order tl_nn_taps_pass_order picks. */

typedef struct {
  const void *x;
  void *y;
  const tl_nn_taps *cols;  /* dim 1's taps */
  const int64_t *start;    /* [rows + 1]: final row r's sources are entries start[r]..start[r+1] */
  const int64_t *src;      /* a source row of dim 0 per entry */
  const double *w;         /* its weight */
  int64_t rows, src_rows;  /* final and source rows of dim 0 */
  int64_t C, in_row, out_row, mid_row; /* elements of an input, output and intermediate row */
  int64_t slots;           /* columns first: cached rows; 0: rows first */
  bool f64, transpose;
  bool failed;             /* a range could not allocate its scratch */
} rows_job;

TL_VECMATH_BEGIN

/* One row's dim-1 pass, x (in1, C) -> y (out1, C): the forward as the
 * pass's gathers, without its loop for C == 1 (the same sums, and that
 * loop inlined here slowed the others). */
#define TL_POOL_COLS(name, T, gather, pass_transpose)                                       \
  INLINE void name(const rows_job *job, const T *x, T *y)                                   \
  {                                                                                         \
    const tl_nn_taps *t = job->cols;                                                        \
    if (job->transpose) {                                                                   \
      pass_job cols = {.x = x, .y = y, .t = t, .inner = job->C, .f64 = job->f64,            \
                       .transpose = true};                                                  \
      pass_transpose(&cols, 0, 1);                                                          \
      return;                                                                               \
    }                                                                                       \
    for (int64_t q = 0; q < t->out; q++)                                                    \
      gather(y + q * job->C, job->C, x, t->index + q * t->k, t->weight + q * t->k, t->k, 0); \
  }
TL_POOL_COLS(cols_f32, float, gather_f32, pass_transpose_f32)
TL_POOL_COLS(cols_f64, double, gather_f64, pass_transpose_f64)

/* final rows u = (b, r) in [begin, end); scratch: a row (rows first) or
 * the cache's slots and their tags (the source row b * src_rows + s held) */
#define TL_POOL_ROWS(name, T, gather, cols)                                                 \
  INLINE void name(const rows_job *job, int64_t begin, int64_t end, T *scratch,             \
                   int64_t *tags)                                                           \
  {                                                                                         \
    for (int64_t u = begin; u < end; u++) {                                                 \
      int64_t b = u / job->rows, r = u % job->rows, e0 = job->start[r];                     \
      int64_t entries = job->start[r + 1] - e0;                                             \
      const T *x = (const T *)job->x + b * job->src_rows * job->in_row;                     \
      T *y = (T *)job->y + u * job->out_row;                                                \
      if (job->slots == 0) {                                                                \
        gather(scratch, job->mid_row, x, job->src + e0, job->w + e0, entries, 0);           \
        cols(job, scratch, y);                                                              \
        continue;                                                                           \
      }                                                                                     \
      for (int64_t e = e0; e < e0 + entries; e++) {                                         \
        int64_t s = job->src[e], slot = s % job->slots, tag = b * job->src_rows + s;        \
        if (tags[slot] != tag) {                                                            \
          tags[slot] = tag;                                                                 \
          cols(job, x + s * job->in_row, scratch + slot * job->mid_row);                    \
        }                                                                                   \
      }                                                                                     \
      gather(y, job->out_row, scratch, job->src + e0, job->w + e0, entries, job->slots);    \
    }                                                                                       \
  }
TL_POOL_ROWS(rows_f32, float, gather_f32, cols_f32)
TL_POOL_ROWS(rows_f64, double, gather_f64, cols_f64)
TL_VECMATH_END

TL_SIMD_CLONES
static void rows_range(void *ctx, int64_t begin, int64_t end, int worker)
{
  (void)worker;
  rows_job *job = ctx;
  int64_t n_tags = job->slots, scratch = job->slots > 0 ? job->slots * job->mid_row : job->mid_row;
  size_t esize = job->f64 ? sizeof(double) : sizeof(float);
  int64_t *tags = malloc((size_t)n_tags * sizeof *tags + (size_t)scratch * esize + 1);
  if (!tags) {
    job->failed = true; /* reported by the caller */
    return;
  }
  for (int64_t i = 0; i < n_tags; i++)
    tags[i] = -1;
  if (job->f64)
    rows_f64(job, begin, end, (double *)(tags + n_tags), tags);
  else
    rows_f32(job, begin, end, (float *)(tags + n_tags), tags);
  free(tags);
}

/* Dim 0's pass as gathers (see rows_job): the entries of each final row,
 * *slots the widest span of one row's sources; false: out of memory. */
static bool gather_lists(const tl_nn_taps *t, bool transpose, int64_t **start, int64_t **src,
                         double **w, int64_t *slots)
{
  int64_t rows = transpose ? t->in : t->out, taps = t->out * t->k;
  *start = calloc((size_t)rows + 1, sizeof **start);
  *src = malloc((size_t)taps * sizeof **src + 1);
  *w = malloc((size_t)taps * sizeof **w + 1);
  if (!*start || !*src || !*w)
    return false;
  for (int64_t e = 0; e < taps; e++) /* entries per row, counted at start[row + 1] */
    if (t->index[e] >= 0)
      (*start)[(transpose ? t->index[e] : e / t->k) + 1]++;
  for (int64_t r = 0; r < rows; r++)
    (*start)[r + 1] += (*start)[r];
  int64_t *fill = malloc((size_t)rows * sizeof *fill + 1);
  if (!fill)
    return false;
  memcpy(fill, *start, (size_t)rows * sizeof *fill);
  for (int64_t e = 0; e < taps; e++) { /* e = j * k + q: the scatter's order */
    if (t->index[e] < 0)
      continue;
    int64_t r = transpose ? t->index[e] : e / t->k, at = fill[r]++;
    (*src)[at] = transpose ? e / t->k : t->index[e];
    (*w)[at] = t->weight[e];
  }
  free(fill);
  *slots = 1;
  for (int64_t r = 0; r < rows; r++) {
    int64_t lo = INT64_MAX, hi = -1;
    for (int64_t e = (*start)[r]; e < (*start)[r + 1]; e++) {
      lo = (*src)[e] < lo ? (*src)[e] : lo;
      hi = (*src)[e] > hi ? (*src)[e] : hi;
    }
    if (hi >= lo && hi - lo + 1 > *slots)
      *slots = hi - lo + 1;
  }
  return true;
}

/* The 2-d passes a row at a time (see rows_job); *taken false when this
 * geometry is left to the whole-batch passes (a cache too large). */
static tl_status weighted_cl_rows(const tl_tensor *in, const tl_nn_taps *taps, bool transpose,
                                  const int *order, tl_tensor *out, bool *taken)
{
  const tl_nn_taps *t0 = &taps[0], *t1 = &taps[1];
  int64_t B = in->shape[0], C = in->shape[1];
  int64_t in1 = transpose ? t1->out : t1->in, out1 = transpose ? t1->in : t1->out;
  rows_job job = {.x = tl_tensor_data(in), .y = tl_tensor_data(out), .cols = t1,
                  .rows = transpose ? t0->in : t0->out, .src_rows = transpose ? t0->out : t0->in,
                  .C = C, .in_row = in1 * C, .out_row = out1 * C,
                  .mid_row = (order[0] == 0 ? in1 : out1) * C,
                  .f64 = in->dtype == TL_DTYPE_F64, .transpose = transpose};
  int64_t *start = NULL, *src = NULL, slots = 0;
  double *w = NULL;
  tl_status status = TL_OK;
  *taken = false;
  if (!gather_lists(t0, transpose, &start, &src, &w, &slots)) {
    status = tl_error_set(TL_ERR_MEMORY, "pooling: out of memory");
    goto done;
  }
  job.slots = order[0] == 0 ? 0 : slots;
  /* a thread's cache beyond a few MB would not stay in cache either */
  if (job.slots * job.mid_row * (int64_t)tl_dtype_size(in->dtype) > ((int64_t)4 << 20))
    goto done;
  job.start = start;
  job.src = src;
  job.w = w;
  int64_t per_row = (start[job.rows] / (job.rows ? job.rows : 1) + 1) * job.mid_row +
                    t1->k * (transpose ? in1 : out1) * C;
  tl_storage_bump(out->storage);
  tl_parallel_for(B * job.rows, 1 + 16384 / (per_row + 1), rows_range, &job);
  if (job.failed) {
    status = tl_error_set(TL_ERR_MEMORY, "pooling: out of memory");
    goto done;
  }
  *taken = true;
done:
  free(start);
  free(src);
  free(w);
  return status;
}

static tl_status weighted_cl(const tl_tensor *in, int n, const tl_nn_taps *taps, bool transpose,
                             tl_tensor *out)
{
  tl_dtype work = work_dtype(in->dtype);
  if (in->dtype != work || taps[0].precision > 0 || whole_plane_weight(n, taps) != 0 ||
      tl_tensor_numel(in) == 0 || tl_tensor_numel(out) == 0 || !lies_channels_last(in, n) ||
      !lies_channels_last(out, n))
    return through_row_major(weighted_row_major, in, NULL, n, taps, transpose, out, NULL);
  size_t esize = tl_dtype_size(work);
  int64_t B = in->shape[0], C = in->shape[1], cur[D3];
  void *bufs[2] = {NULL, NULL};
  const void *src = tl_tensor_data(in);
  int order[D3];
  for (int d = 0; d < n; d++)
    cur[d] = transpose ? taps[d].out : taps[d].in;
  tl_nn_taps_pass_order(n, taps, transpose, cur, order);
  if (n == 2) {
    bool taken;
    tl_status status = weighted_cl_rows(in, taps, transpose, order, out, &taken);
    if (status != TL_OK || taken)
      return status;
  }
  tl_storage_bump(out->storage);
  for (int step = 0; step < n; step++) {
    int d = order[step];
    int64_t outer, inner;
    tl_nn_taps_pass_step(n, taps, transpose, d, B, cur, &outer, &inner);
    inner *= C;
    void *dst = tl_tensor_data(out);
    if (step < n - 1) {
      free(bufs[step % 2]);
      if (!(dst = bufs[step % 2] = malloc((size_t)(outer * cur[d] * inner) * esize + 1))) {
        free(bufs[(step + 1) % 2]);
        return tl_error_set(TL_ERR_MEMORY, "pooling: out of memory");
      }
    }
    pass_job job = {.x = src, .y = dst, .t = &taps[d], .inner = inner,
                    .f64 = work == TL_DTYPE_F64, .transpose = transpose};
    int64_t rows = transpose ? outer : outer * taps[d].out;
    int64_t per_row = (transpose ? taps[d].out : 1) * taps[d].k * inner;
    tl_parallel_for(rows, 1 + 16384 / (per_row + 1), pass_range, &job);
    src = dst;
  }
  free(bufs[0]);
  free(bufs[1]);
  return TL_OK;
}

tl_status tl_cpu_pool_weighted(const tl_tensor *in, int n, const tl_nn_taps *taps, bool transpose,
                               tl_tensor *out)
{
  if (!tl_tensor_is_contiguous(out))
    return weighted_cl(in, n, taps, transpose, out);
  if (in->dtype == TL_DTYPE_I64 || taps[0].precision > 0) { /* no transpose: no gradients */
    tl_tensor xt = {0};
    const tl_tensor *xc = as_work(in, in->dtype, &xt);
    tl_status status = xc ? TL_OK : tl_error_status();
    if (status == TL_OK && tl_tensor_numel(out) > 0) {
      tl_storage_bump(out->storage);
      status = int_weighted(tl_tensor_data(xc), n, taps, planes_of(in, n),
                            tl_dtype_size(in->dtype), out);
    }
    tl_tensor_release(&xt);
    return status;
  }
  tl_dtype work = work_dtype(in->dtype);
  size_t esize = tl_dtype_size(work);
  tl_tensor xt = {0}, yt = {0};
  void *bufs[2] = {NULL, NULL}, *ydata;
  tl_status status = TL_OK;
  bool direct = out->dtype == work;
  const tl_tensor *xw = work_io(in, out, work, &xt, &yt, &ydata);
  if (!xw) {
    status = tl_error_status();
    goto done;
  }
  int64_t B = planes_of(in, n), cur[D3];
  for (int d = 0; d < n; d++)
    cur[d] = transpose ? taps[d].out : taps[d].in;
  if (B == 0 || tl_tensor_numel(out) == 0 || tl_tensor_numel(in) == 0) {
    if (tl_tensor_numel(out) > 0) /* an empty input spreads nothing: zeros */
      memset(ydata, 0, (size_t)tl_tensor_numel(out) * esize);
    goto copy;
  }
  tl_storage_bump(out->storage);
  const void *src = tl_tensor_data(xw);
  double whole = whole_plane_weight(n, taps);
  if (whole != 0) {
    int64_t plane = tl_tensor_numel(transpose ? out : in) / B;
    mean_job job = {.x = src, .y = ydata, .plane = plane, .weight = whole,
                    .f64 = work == TL_DTYPE_F64, .transpose = transpose};
    tl_parallel_for(B, 1 + 16384 / (plane + 1), mean_range, &job);
    goto copy;
  }
  int order[D3];
  tl_nn_taps_pass_order(n, taps, transpose, cur, order);
  if (n > 1 && B >= 2 * (int64_t)tl_parallel_get_threads()) {
    plane_job job = {.x = src, .y = ydata, .taps = taps, .n = n, .esize = esize,
                     .in_plane = tl_tensor_numel(in) / B, .out_plane = tl_tensor_numel(out) / B,
                     .f64 = work == TL_DTYPE_F64, .transpose = transpose};
    int64_t work_per_plane = 0;
    memcpy(job.order, order, sizeof order);
    for (int step = 0; step < n; step++) {
      int d = order[step];
      /* one plane: B = 1 */
      tl_nn_taps_pass_step(n, taps, transpose, d, 1, cur, &job.outer[step], &job.inner[step]);
      int64_t size = job.outer[step] * cur[d] * job.inner[step];
      if (step < n - 1 && size > job.scratch)
        job.scratch = size;
      work_per_plane += size * taps[d].k;
    }
    tl_parallel_for(B, 1 + 16384 / (work_per_plane + 1), plane_range, &job);
    if (job.failed) {
      status = tl_error_set(TL_ERR_MEMORY, "pooling: out of memory");
      goto done;
    }
    goto copy;
  }
  for (int step = 0; step < n; step++) {
    int d = order[step];
    int64_t outer, inner;
    tl_nn_taps_pass_step(n, taps, transpose, d, B, cur, &outer, &inner);
    void *dst;
    if (step == n - 1) {
      dst = ydata;
    } else {
      free(bufs[step % 2]);
      bufs[step % 2] = malloc((size_t)(outer * cur[d] * inner) * esize + 1);
      if (!(dst = bufs[step % 2])) {
        status = tl_error_set(TL_ERR_MEMORY, "pooling: out of memory");
        goto done;
      }
    }
    pass_job job = {.x = src, .y = dst, .t = &taps[d], .inner = inner,
                    .f64 = work == TL_DTYPE_F64, .transpose = transpose};
    int64_t rows = transpose ? outer : outer * taps[d].out;
    int64_t per_row = (transpose ? taps[d].out : 1) * taps[d].k * inner;
    tl_parallel_for(rows, 1 + 16384 / (per_row + 1), pass_range, &job);
    src = dst;
  }
copy:
  status = direct ? TL_OK : tl_tensor_copy(out, &yt);
done:
  free(bufs[0]);
  free(bufs[1]);
  tl_tensor_release(&xt);
  tl_tensor_release(&yt);
  return status;
}

/* ---- scatter ---------------------------------------------------------------------------- */

typedef struct {
  const void *x;
  const int64_t *idx;
  void *y;
  int64_t len, size; /* per plane: source elements, destination elements */
  int64_t C;         /* channels-last: channels per position */
  bool accumulate, f64;
  int64_t bad; /* an out-of-range index seen (the last one), or -1 */
  bool has_bad;
} scatter_job;

#define TL_POOL_SCATTER(name, T)                                                            \
  static void name(scatter_job *job, int64_t begin, int64_t end)                            \
  {                                                                                         \
    for (int64_t b = begin; b < end; b++) {                                                 \
      const T *x = (const T *)job->x + b * job->len;                                        \
      const int64_t *ix = job->idx + b * job->len;                                          \
      T *y = (T *)job->y + b * job->size;                                                   \
      memset(y, 0, (size_t)job->size * sizeof *y);                                          \
      for (int64_t j = 0; j < job->len; j++) {                                              \
        int64_t at = ix[j];                                                                 \
        if (at < 0 || at >= job->size) {                                                    \
          job->bad = at;                                                                    \
          job->has_bad = true;                                                              \
          continue;                                                                         \
        }                                                                                   \
        if (job->accumulate)                                                                \
          y[at] += x[j];                                                                    \
        else                                                                                \
          y[at] = x[j];                                                                     \
      }                                                                                     \
    }                                                                                       \
  }
TL_POOL_SCATTER(scatter_f32, float)
TL_POOL_SCATTER(scatter_f64, double)

static void scatter_range(void *ctx, int64_t begin, int64_t end, int worker)
{
  (void)worker;
  scatter_job *job = ctx;
  if (job->f64)
    scatter_f64(job, begin, end);
  else
    scatter_f32(job, begin, end);
}

/* Channels-last scatter: per sample b, out[b, idx[b, j, c], c] (+)= src[b,
 * j, c] over positions j in order, so each element sums as the planar loop. */
#define TL_POOL_SCATTER_CL(name, T)                                                         \
  static void name(scatter_job *job, int64_t begin, int64_t end)                            \
  {                                                                                         \
    int64_t C = job->C;                                                                     \
    for (int64_t b = begin; b < end; b++) {                                                 \
      const T *x = (const T *)job->x + b * job->len * C;                                    \
      const int64_t *ix = job->idx + b * job->len * C;                                      \
      T *y = (T *)job->y + b * job->size * C;                                               \
      memset(y, 0, (size_t)(job->size * C) * sizeof *y);                                    \
      for (int64_t j = 0; j < job->len; j++, x += C, ix += C)                               \
        for (int64_t c = 0; c < C; c++) {                                                   \
          int64_t at = ix[c];                                                               \
          if (at < 0 || at >= job->size) {                                                  \
            job->bad = at;                                                                  \
            job->has_bad = true;                                                            \
            continue;                                                                       \
          }                                                                                 \
          if (job->accumulate)                                                              \
            y[at * C + c] += x[c];                                                          \
          else                                                                              \
            y[at * C + c] = x[c];                                                           \
        }                                                                                   \
    }                                                                                       \
  }
TL_POOL_SCATTER_CL(scatter_cl_f32, float)
TL_POOL_SCATTER_CL(scatter_cl_f64, double)

static void scatter_cl_range(void *ctx, int64_t begin, int64_t end, int worker)
{
  (void)worker;
  scatter_job *job = ctx;
  if (job->f64)
    scatter_cl_f64(job, begin, end);
  else
    scatter_cl_f32(job, begin, end);
}

static tl_status scatter_row_major(const tl_tensor *src, const tl_tensor *indices, int n,
                                   const tl_nn_taps *unused, bool accumulate, tl_tensor *out,
                                   tl_tensor *none)
{
  (void)unused;
  (void)none;
  return tl_cpu_pool_scatter(src, indices, n, accumulate, out);
}

static tl_status scatter_cl(const tl_tensor *src, const tl_tensor *indices, int n,
                            bool accumulate, tl_tensor *out)
{
  if (src->dtype != work_dtype(src->dtype) || indices->dtype != TL_DTYPE_I64 ||
      !lies_channels_last(src, n) || !lies_channels_last(indices, n) ||
      !lies_channels_last(out, n))
    return through_row_major(scatter_row_major, src, indices, n, NULL, accumulate, out, NULL);
  scatter_job job = {.x = tl_tensor_data(src), .idx = tl_tensor_data(indices),
                     .y = tl_tensor_data(out), .len = 1, .size = 1, .C = src->shape[1],
                     .accumulate = accumulate, .f64 = src->dtype == TL_DTYPE_F64};
  for (int d = 0; d < n; d++) {
    job.len *= src->shape[2 + d];
    job.size *= out->shape[2 + d];
  }
  if (tl_tensor_numel(out) > 0) {
    tl_storage_bump(out->storage);
    tl_parallel_for(out->shape[0], 1, scatter_cl_range, &job);
  }
  return job.has_bad ? tl_nn_pool_bad_index(out, n, job.bad) : TL_OK;
}

tl_status tl_cpu_pool_scatter(const tl_tensor *src, const tl_tensor *indices, int n,
                              bool accumulate, tl_tensor *out)
{
  if (!tl_tensor_is_contiguous(out))
    return scatter_cl(src, indices, n, accumulate, out);
  tl_dtype work = work_dtype(src->dtype);
  tl_tensor xt = {0}, it = {0}, yt = {0};
  tl_status status = TL_OK;
  void *ydata;
  bool direct = out->dtype == work;
  const tl_tensor *xw = work_io(src, out, work, &xt, &yt, &ydata);
  const tl_tensor *iw = xw ? as_work(indices, TL_DTYPE_I64, &it) : NULL;
  if (!iw) {
    status = tl_error_status();
    goto done;
  }
  int64_t B = planes_of(out, n);
  scatter_job job = {.x = tl_tensor_data(xw), .idx = tl_tensor_data(iw), .y = ydata,
                     .len = 1, .size = 1,
                     .accumulate = accumulate, .f64 = work == TL_DTYPE_F64};
  for (int d = 0; d < n; d++) {
    job.len *= src->shape[src->ndim - n + d];
    job.size *= out->shape[out->ndim - n + d];
  }
  if (B * job.size > 0) {
    tl_storage_bump(out->storage);
    tl_parallel_for(B, 1 + 16384 / (job.len + job.size), scatter_range, &job);
  }
  if (job.has_bad) {
    status = tl_nn_pool_bad_index(out, n, job.bad);
    goto done;
  }
  status = direct ? TL_OK : tl_tensor_copy(out, &yt);
done:
  tl_tensor_release(&xt);
  tl_tensor_release(&it);
  tl_tensor_release(&yt);
  return status;
}
