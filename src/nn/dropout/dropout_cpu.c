/* dropout_cpu.c - the CPU's dropout and its backward.
 *
 * The forward runs over the mask in chunks of CHUNK elements (a multiple of
 * the 4 words per Philox block, so a chunk starts on a block): per chunk, the
 * words of its blocks (tl_philox_words, which runs blocks side by side), the
 * keep decisions into the mask, and, when the mask covers single elements,
 * the output of the same elements while they are in cache; a feature mask
 * (one draw per channel) is drawn first and applied to the channels' runs
 * after.  Work is in float for float32/float16/bfloat16 and in double for
 * float64 (other layouts and dtypes through contiguous work copies). */
#include <math.h>

#include "ndcore/dispatch/tl_parallel.h"
#include "ndcore/kernels/tl_vecmath.h"
#include "nn/dropout/tl_dropout.h"

enum { CHUNK = 2048 };

typedef struct {
  const void *x;
  void *y;
  uint8_t *m;
  int64_t nmask, inner; /* inner: elements of x per mask element */
  uint64_t seed, first, threshold; /* keep when word < threshold */
  double s1, s0, d0;
  bool f64, draw;       /* draw: make the mask (else read it) */
} dropout_job;

TL_VECMATH_BEGIN
/* apply(x, y, m, n, inner, s1, s0, d0): y = m ? x s1 + s0 : d0, one mask
 * entry per `inner` consecutive elements; and the backward's
 * dx = m ? g s : 0 likewise. */
#define TL_DROPOUT_LOOPS(apply, backward, T)                                                    \
  static void apply(const T *x, T *y, const uint8_t *m, int64_t n, int64_t inner, T s1, T s0,   \
                    T d0)                                                                       \
  {                                                                                             \
    if (inner == 1) {                                                                           \
      _Pragma("omp simd") for (int64_t i = 0; i < n; i++) y[i] = m[i] ? x[i] * s1 + s0 : d0;    \
      return;                                                                                   \
    }                                                                                           \
    for (int64_t r = 0; r < n; r++) {                                                           \
      const T *xr = x + r * inner;                                                              \
      T *yr = y + r * inner;                                                                    \
      if (m[r])                                                                                 \
        _Pragma("omp simd") for (int64_t i = 0; i < inner; i++) yr[i] = xr[i] * s1 + s0;        \
      else                                                                                      \
        _Pragma("omp simd") for (int64_t i = 0; i < inner; i++) yr[i] = d0;                     \
    }                                                                                           \
  }                                                                                             \
  static void backward(const T *g, T *dx, const uint8_t *m, int64_t n, int64_t inner, T s)      \
  {                                                                                             \
    if (inner == 1) {                                                                           \
      _Pragma("omp simd") for (int64_t i = 0; i < n; i++) dx[i] = m[i] ? g[i] * s : 0;          \
      return;                                                                                   \
    }                                                                                           \
    for (int64_t r = 0; r < n; r++) {                                                           \
      T k = m[r] ? s : 0;                                                                       \
      _Pragma("omp simd") for (int64_t i = 0; i < inner; i++) dx[r * inner + i] = g[r * inner + i] * k; \
    }                                                                                           \
  }
TL_DROPOUT_LOOPS(apply_f32, backward_f32, float)
TL_DROPOUT_LOOPS(apply_f64, backward_f64, double)
TL_VECMATH_END

/* Mask elements [b, b + n) of chunk-aligned b: their keep decisions. */
static void draw(const dropout_job *j, int64_t b, int64_t n)
{
  uint32_t w[CHUNK];
  tl_philox_words(j->seed, j->first + (uint64_t)b / 4, (int)((n + 3) / 4), w);
  for (int64_t i = 0; i < n; i++)
    j->m[b + i] = (uint64_t)w[i] < j->threshold;
}

/* Chunks [begin, end) of mask elements (draw) or rows of the mask (apply). */
TL_SIMD_CLONES
static void dropout_range(void *ctx, int64_t begin, int64_t end, int worker)
{
  (void)worker;
  const dropout_job *j = ctx;
  int64_t step = j->draw ? CHUNK : 1;
  int64_t lo = begin * step, hi = end * step < j->nmask ? end * step : j->nmask;
  for (int64_t b = lo; b < hi; b += j->draw ? CHUNK : hi - lo) {
    int64_t n = j->draw ? (hi - b < CHUNK ? hi - b : CHUNK) : hi - lo;
    if (j->draw)
      draw(j, b, n);
    if (j->draw && j->inner != 1)
      continue; /* a feature mask is applied after it is whole */
    int64_t at = b * j->inner;
    if (j->f64)
      apply_f64((const double *)j->x + at, (double *)j->y + at, j->m + b, n, j->inner, j->s1,
                j->s0, j->d0);
    else
      apply_f32((const float *)j->x + at, (float *)j->y + at, j->m + b, n, j->inner,
                (float)j->s1, (float)j->s0, (float)j->d0);
  }
}

static const tl_tensor *as_work(const tl_tensor *t, tl_dtype work, tl_tensor *tmp)
{
  if (t->dtype == work && tl_tensor_is_contiguous(t))
    return t;
  return tl_tensor_to_dtype(tmp, t, work) == TL_OK ? tmp : NULL;
}

static tl_tensor *writable(tl_tensor *out, tl_dtype work, tl_tensor *tmp)
{
  if (out->dtype == work && tl_tensor_is_contiguous(out))
    return out;
  return tl_tensor_empty(tmp, work, out->ndim, out->shape, tl_tensor_device(out)) == TL_OK ? tmp
                                                                                          : NULL;
}

tl_status tl_cpu_dropout(tl_generator *gen, const tl_dropout_params *p, const tl_tensor *x,
                         tl_tensor *y, tl_tensor *mask)
{
  tl_dtype work = x->dtype == TL_DTYPE_F64 ? TL_DTYPE_F64 : TL_DTYPE_F32;
  tl_tensor xt = {0}, yt = {0};
  tl_status status = TL_OK;
  const tl_tensor *xw = as_work(x, work, &xt);
  tl_tensor *yw = xw ? writable(y, work, &yt) : NULL;
  if (!xw || !yw) {
    status = tl_error_status();
    goto done;
  }
  dropout_job j = {.x = tl_tensor_data(xw), .y = tl_tensor_data(yw), .m = tl_tensor_data(mask),
                   .nmask = tl_tensor_numel(mask), .s1 = p->keep_scale, .s0 = p->keep_shift,
                   .d0 = p->drop_value, .f64 = work == TL_DTYPE_F64, .draw = true};
  if (j.nmask > 0) {
    j.inner = tl_tensor_numel(x) / j.nmask;
    /* keep when word / 2^32 < keep_prob, as bernoulli_ decides */
    j.threshold = (uint64_t)ceil(p->keep_prob * 4294967296.0);
    j.first = tl_generator_reserve(gen, (uint64_t)(j.nmask + 3) / 4, &j.seed);
    tl_storage_bump(y->storage);
    tl_storage_bump(mask->storage);
    int64_t chunks = (j.nmask + CHUNK - 1) / CHUNK;
    tl_parallel_for(chunks, j.inner == 1 ? 8 : 64, dropout_range, &j);
    if (j.inner != 1) {
      j.draw = false;
      tl_parallel_for(j.nmask, 1 + 32768 / j.inner, dropout_range, &j);
    }
  }
  if (yw != y)
    status = tl_tensor_copy(y, yw);
done:
  tl_tensor_release(&xt);
  tl_tensor_release(&yt);
  return status;
}

typedef struct {
  const void *g;
  void *dx;
  const uint8_t *m;
  int64_t inner;
  double scale;
  bool f64;
} backward_job;

TL_SIMD_CLONES
static void backward_range(void *ctx, int64_t begin, int64_t end, int worker)
{
  (void)worker;
  const backward_job *j = ctx;
  int64_t at = begin * j->inner;
  if (j->f64)
    backward_f64((const double *)j->g + at, (double *)j->dx + at, j->m + begin, end - begin,
                 j->inner, j->scale);
  else
    backward_f32((const float *)j->g + at, (float *)j->dx + at, j->m + begin, end - begin,
                 j->inner, (float)j->scale);
}

tl_status tl_cpu_dropout_backward(const tl_tensor *g, const tl_tensor *mask, double scale,
                                  tl_tensor *dx)
{
  tl_dtype work = g->dtype == TL_DTYPE_F64 ? TL_DTYPE_F64 : TL_DTYPE_F32;
  tl_tensor gt = {0}, mt = {0}, dt = {0};
  tl_status status = TL_OK;
  const tl_tensor *gw = as_work(g, work, &gt), *mw = as_work(mask, TL_DTYPE_BOOL, &mt);
  tl_tensor *dw = gw && mw ? writable(dx, work, &dt) : NULL;
  if (!dw) {
    status = tl_error_status();
    goto done;
  }
  int64_t nmask = tl_tensor_numel(mask);
  if (nmask > 0) {
    backward_job j = {.g = tl_tensor_data(gw), .dx = tl_tensor_data(dw), .m = tl_tensor_data(mw),
                      .inner = tl_tensor_numel(g) / nmask, .scale = scale,
                      .f64 = work == TL_DTYPE_F64};
    tl_storage_bump(dx->storage);
    tl_parallel_for(nmask, 1 + 32768 / j.inner, backward_range, &j);
  }
  if (dw != dx)
    status = tl_tensor_copy(dx, dw);
done:
  tl_tensor_release(&gt);
  tl_tensor_release(&mt);
  tl_tensor_release(&dt);
  return status;
}
