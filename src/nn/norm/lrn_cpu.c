/* lrn_cpu.c - the CPU's local response normalisation (tl_norm.h): x as
 * (N, C, S) contiguous in the work dtype, one row (n, c) of S positions at a
 * time across the thread pool, the window's squares summed in channel order
 * (the order of PyTorch's composed avg_pool).
 *
 * Backward, with P_c = D_c^-beta and j in the window of c exactly when c is
 * in the mirrored window W'(j) = [j - (size - 1) / 2, j + size / 2]:
 *   dx_j = g_j P_j - (2 alpha beta / size) x_j sum over c in W'(j) of g_c x_c P_c / D_c
 * computed in two passes: P and T = g x P / D per row, then dx. */
#include <math.h>
#include <stdlib.h>

#include "ndcore/dispatch/tl_parallel.h"
#include "ndcore/kernels/tl_vecmath.h"
#include "nn/norm/tl_norm.h"
#include "nn/tl_nn_work.h"

typedef struct {
  const tl_lrn_spec *s;
  const void *x, *g;
  void *y;    /* forward: y; backward: dx */
  void *p, *t; /* backward: P and T (N, C, S) */
  int pass;   /* backward: 1 (P, T) or 2 (dx) */
  bool f64;
} lrn_job;

TL_VECMATH_BEGIN
/* Rows r = (n, c) in [begin, end). */
#define TL_LRN_ROWS(name, T, POW)                                                           \
  static inline __attribute__((always_inline)) void name(const lrn_job *job, int64_t begin, \
                                                          int64_t end)                    \
  {                                                                                         \
    const tl_lrn_spec *s = job->s;                                                          \
    int64_t C = s->C, S = s->S, lo = s->size / 2, hi = (s->size - 1) / 2;                   \
    T alpha = (T)s->alpha, beta = (T)s->beta, k = (T)s->k, size = (T)s->size;               \
    for (int64_t r = begin; r < end; r++) {                                                 \
      int64_t n = r / C, c = r % C;                                                         \
      const T *x = (const T *)job->x + n * C * S;                                           \
      T *restrict out = (T *)job->y + r * S;                                                \
      if (job->pass == 2) { /* dx from P and T */                                           \
        const T *p = (const T *)job->p + r * S, *t = (const T *)job->t + n * C * S;         \
        const T *g = (const T *)job->g + r * S;                                             \
        T coeff = 2 * alpha * beta / size;                                                  \
        int64_t c0 = c - hi < 0 ? 0 : c - hi, c1 = c + lo > C - 1 ? C - 1 : c + lo;         \
        _Pragma("omp simd") for (int64_t i = 0; i < S; i++)                                 \
        {                                                                                   \
          T sum = 0;                                                                        \
          for (int64_t q = c0; q <= c1; q++)                                                \
            sum += t[q * S + i];                                                            \
          out[i] = g[i] * p[i] - coeff * x[c * S + i] * sum;                                \
        }                                                                                   \
        continue;                                                                           \
      }                                                                                     \
      int64_t c0 = c - lo < 0 ? 0 : c - lo, c1 = c + hi > C - 1 ? C - 1 : c + hi;           \
      const T *xc = x + c * S;                                                              \
      T *restrict tt = job->t ? (T *)job->t + r * S : NULL;                                 \
      const T *g = job->g ? (const T *)job->g + r * S : NULL;                               \
      _Pragma("omp simd") for (int64_t i = 0; i < S; i++)                                   \
      {                                                                                     \
        T sq = 0;                                                                           \
        for (int64_t q = c0; q <= c1; q++)                                                  \
          sq += x[q * S + i] * x[q * S + i];                                                \
        T d = sq / size * alpha + k;                                                        \
        if (job->pass == 0) {                                                               \
          out[i] = xc[i] / POW(d, beta);                                                    \
        } else {                                                                            \
          T p = POW(d, -beta);                                                              \
          out[i] = p;                                                                       \
          tt[i] = g[i] * xc[i] * p / d;                                                     \
        }                                                                                   \
      }                                                                                     \
    }                                                                                       \
  }
TL_LRN_ROWS(lrn_rows_f32, float, powf)
TL_LRN_ROWS(lrn_rows_f64, double, pow)
TL_VECMATH_END

TL_SIMD_CLONES
static void lrn_range(void *ctx, int64_t begin, int64_t end, int worker)
{
  (void)worker;
  const lrn_job *job = ctx;
  if (job->f64) /* a direct call, so that the rows inline into each clone */
    lrn_rows_f64(job, begin, end);
  else
    lrn_rows_f32(job, begin, end);
}

/* One parallel pass over the N * C rows. */
static void run_pass(lrn_job *job, int pass)
{
  const tl_lrn_spec *s = job->s;
  job->pass = pass;
  /* a window past the channels costs C per row (and size may be near 2**63) */
  int64_t window = s->size < s->C ? s->size : s->C;
  tl_parallel_for(s->N * s->C, 1 + 8192 / (s->S * (window + 4) + 1), lrn_range, job);
}

tl_status tl_cpu_lrn(const tl_lrn_spec *s, const tl_tensor *g, const tl_tensor *x, tl_tensor *out)
{
  tl_dtype work = tl_nn_work_dtype(x->dtype);
  size_t es = tl_dtype_size(work);
  tl_tensor xt = {0}, gt = {0}, ot = {0};
  void *p = NULL, *t = NULL;
  tl_status status = TL_OK;
  bool direct = out->dtype == work;
  const tl_tensor *xw = tl_nn_as_work(x, work, &xt), *gw = g ? tl_nn_as_work(g, work, &gt) : NULL;
  size_t count = (size_t)(s->N * s->C * s->S);
  if (!xw || (g && !gw) ||
      (!direct && tl_tensor_empty(&ot, work, out->ndim, out->shape, tl_tensor_device(out)) != TL_OK))
    goto fail;
  if (g && (!(p = malloc(count * es + 1)) || !(t = malloc(count * es + 1)))) {
    tl_error_set(TL_ERR_MEMORY, "local_response_norm backward: out of memory");
    goto fail;
  }
  lrn_job job = {.s = s, .x = tl_tensor_data(xw), .g = gw ? tl_tensor_data(gw) : NULL,
                 .y = tl_tensor_data(direct ? out : &ot), .f64 = work == TL_DTYPE_F64};
  tl_storage_bump(out->storage);
  if (!g) {
    run_pass(&job, 0);
  } else {
    job.y = p; /* pass 1 writes P there, T into t */
    job.t = t;
    run_pass(&job, 1);
    job.p = p;
    job.y = tl_tensor_data(direct ? out : &ot);
    run_pass(&job, 2);
  }
  if (!direct && tl_tensor_copy(out, &ot) != TL_OK)
    goto fail;
  goto done;
fail:
  status = tl_error_status();
done:
  free(p);
  free(t);
  tl_tensor_release(&xt);
  tl_tensor_release(&gt);
  tl_tensor_release(&ot);
  return status;
}
