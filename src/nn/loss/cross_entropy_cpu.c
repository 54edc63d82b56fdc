/* cross_entropy_cpu.c - the CPU's fused cross_entropy and its backward
 * (tl_loss.h).
 *
 * A row is the C class scores of one (n, s), `S` elements apart (1 for the
 * usual (N, C) input: then the loops are unit-stride SIMD loops).  The
 * forward makes two sweeps of a row (its max, then the sum of exponentials
 * with the target's terms) and keeps lse; the backward one sweep (p =
 * exp(x - lse) is the softmax).  Work is in float for float32/float16/
 * bfloat16 and double for float64 (tl_nn_work.h); rows are split across
 * the thread pool, and the reduction adds the per-row losses in double in
 * row order, so the result does not depend on the thread count. */
#include <math.h>
#include <stdlib.h>

#include "ndcore/dispatch/tl_parallel.h"
#include "ndcore/kernels/tl_vecmath.h"
#include "nn/loss/tl_loss.h"
#include "nn/tl_nn_work.h"

typedef struct {
  const tl_ce_spec *s;
  const void *x, *t, *w; /* input; probabilities or NULL; weight or NULL (work dtype) */
  const int64_t *y;      /* class indices or NULL */
  void *lse;             /* (N*S) */
  double *loss;          /* forward: the rows' losses */
  const void *g;         /* backward: grad_output */
  void *dx, *dt;         /* backward: grad_input, grad_target (or NULL) */
  double scale;          /* backward: 1, or 1 / total_weight for 'mean' */
  double wsum;           /* sum of the weights over the classes (C without weight) */
  bool f64;
} ce_job;

#define ROW static inline __attribute__((always_inline))

TL_VECMATH_BEGIN
/* The forward and backward of one row, written once per work type; `st` is
 * the class stride (a literal 1 at the contiguous call site). */
#define TL_CE_ROWS(fwd, bwd, T, EXP, LOG)                                                  \
  ROW void fwd(const ce_job *j, int64_t r, int64_t st)                                     \
  {                                                                                        \
    const tl_ce_spec *s = j->s;                                                            \
    int64_t C = s->C, at = r / s->S * C * s->S + r % s->S;                                 \
    const T *x = (const T *)j->x + at, *w = j->w;                                          \
    T mx = -INFINITY, sum = 0, eps = (T)s->smoothing, uni = eps / (T)C;                   \
    _Pragma("omp simd reduction(max:mx)") for (int64_t c = 0; c < C; c++)                 \
      mx = x[c * st] > mx ? x[c * st] : mx;                                                \
    if (mx == -INFINITY) /* every score -inf: the lse is -inf too, not NaN */             \
      mx = 0;                                                                              \
    _Pragma("omp simd reduction(+:sum)") for (int64_t c = 0; c < C; c++)                  \
      sum += EXP(x[c * st] - mx);                                                          \
    /* -log p[c] = ls - (x[c] - mx), in this order: lse - x[c] would round away a   \
     * small spread of large scores (as PyTorch's log_softmax keeps it too) */      \
    T ls = LOG(sum), loss = 0;                                                             \
    ((T *)j->lse)[r] = mx + ls;                                                            \
    if (j->y) {                                                                            \
      int64_t y = j->y[r];                                                                 \
      if (y != s->ignore_index) {                                                          \
        loss = (1 - eps) * (w ? w[y] : 1) * (ls - (x[y * st] - mx));                       \
        if (eps > 0) { /* eps / C sum_c w[c] (lse - x[c]) */                               \
          T a = 0;                                                                         \
          if (w)                                                                           \
            _Pragma("omp simd reduction(+:a)") for (int64_t c = 0; c < C; c++)             \
              a += w[c] * (ls - (x[c * st] - mx));                                         \
          else                                                                             \
            _Pragma("omp simd reduction(+:a)") for (int64_t c = 0; c < C; c++)             \
              a += ls - (x[c * st] - mx);                                                  \
          loss += uni * a;                                                                 \
        }                                                                                  \
      }                                                                                    \
    } else {                                                                               \
      const T *t = (const T *)j->t + at;                                                   \
      _Pragma("omp simd reduction(+:loss)") for (int64_t c = 0; c < C; c++)                \
        loss += (w ? w[c] : 1) * ((1 - eps) * t[c * st] + uni) * (ls - (x[c * st] - mx));  \
    }                                                                                      \
    j->loss[r] = loss;                                                                     \
  }                                                                                        \
  ROW void bwd(const ce_job *j, int64_t r, int64_t st)                                     \
  {                                                                                        \
    const tl_ce_spec *s = j->s;                                                            \
    int64_t C = s->C, at = r / s->S * C * s->S + r % s->S;                                 \
    const T *x = (const T *)j->x + at, *w = j->w, *g = j->g;                               \
    T *dx = (T *)j->dx + at, eps = (T)s->smoothing, uni = eps / (T)C;                      \
    T k = (T)(g[s->reduction == TL_REDUCTION_NONE ? r : 0] * j->scale);                    \
    T lse = ((const T *)j->lse)[r];                                                        \
    if (j->y) {                                                                            \
      int64_t y = j->y[r];                                                                 \
      if (y == s->ignore_index) {                                                          \
        for (int64_t c = 0; c < C; c++)                                                    \
          dx[c * st] = 0;                                                                  \
        return;                                                                            \
      }                                                                                    \
      T wy = w ? w[y] : 1, a = k * ((1 - eps) * wy + uni * (T)j->wsum), b = k * uni;       \
      if (w)                                                                               \
        _Pragma("omp simd") for (int64_t c = 0; c < C; c++)                                \
          dx[c * st] = a * EXP(x[c * st] - lse) - b * w[c];                                \
      else                                                                                 \
        _Pragma("omp simd") for (int64_t c = 0; c < C; c++)                                \
          dx[c * st] = a * EXP(x[c * st] - lse) - b;                                       \
      dx[y * st] -= k * (1 - eps) * wy;                                                    \
      return;                                                                              \
    }                                                                                      \
    const T *t = (const T *)j->t + at;                                                     \
    T a = 0;                                                                               \
    _Pragma("omp simd reduction(+:a)") for (int64_t c = 0; c < C; c++)                     \
      a += (w ? w[c] : 1) * ((1 - eps) * t[c * st] + uni);                                 \
    _Pragma("omp simd") for (int64_t c = 0; c < C; c++) {                                  \
      T wq = (w ? w[c] : 1) * ((1 - eps) * t[c * st] + uni);                               \
      dx[c * st] = k * (a * EXP(x[c * st] - lse) - wq);                                    \
    }                                                                                      \
    if (j->dt) {                                                                           \
      T *dt = (T *)j->dt + at;                                                             \
      _Pragma("omp simd") for (int64_t c = 0; c < C; c++)                                  \
        dt[c * st] = k * (1 - eps) * (w ? w[c] : 1) * (lse - x[c * st]);                   \
    }                                                                                      \
  }
TL_CE_ROWS(ce_row_f32, ce_row_backward_f32, float, tl_expf, logf)
TL_CE_ROWS(ce_row_f64, ce_row_backward_f64, double, exp, log)

/* Rows [begin, end) of the job, forward (no g) or backward. */
TL_SIMD_CLONES
static void ce_range(void *ctx, int64_t begin, int64_t end, int worker)
{
  (void)worker;
  const ce_job *j = ctx;
  bool unit = j->s->S == 1;
  for (int64_t r = begin; r < end; r++) {
    if (j->g && j->f64)
      unit ? ce_row_backward_f64(j, r, 1) : ce_row_backward_f64(j, r, j->s->S);
    else if (j->g)
      unit ? ce_row_backward_f32(j, r, 1) : ce_row_backward_f32(j, r, j->s->S);
    else if (j->f64)
      unit ? ce_row_f64(j, r, 1) : ce_row_f64(j, r, j->s->S);
    else
      unit ? ce_row_f32(j, r, 1) : ce_row_f32(j, r, j->s->S);
  }
}
TL_VECMATH_END

/* Check the class indices and sum the weights: of the targets not ignored
 * into *total, of all the classes into *wsum. */
static tl_status target_weights(const tl_ce_spec *s, const int64_t *y, const tl_tensor *w,
                                double *total, double *wsum)
{
  *total = 0, *wsum = 0;
  for (int64_t c = 0; c < s->C; c++)
    *wsum += w ? tl_nn_get(w, c) : 1;
  if (!y) {
    *total = (double)(s->N * s->S);
    return TL_OK;
  }
  for (int64_t r = 0; r < s->N * s->S; r++) {
    if (y[r] == s->ignore_index)
      continue;
    if (y[r] < 0 || y[r] >= s->C)
      return tl_error_set(TL_ERR_INDEX, "Target %lld is out of bounds.", (long long)y[r]);
    *total += w ? tl_nn_get(w, y[r]) : 1;
  }
  return TL_OK;
}

static void run(ce_job *job)
{
  int64_t rows = job->s->N * job->s->S;
  if (rows > 0 && job->s->C > 0)
    tl_parallel_for(rows, 1 + 32768 / job->s->C, ce_range, job);
}

tl_status tl_cpu_cross_entropy(const tl_ce_spec *s, const tl_tensor *input,
                               const tl_tensor *target, const tl_tensor *weight, tl_tensor *out,
                               tl_tensor *lse, tl_tensor *total_weight)
{
  tl_dtype work = tl_nn_work_dtype(input->dtype);
  tl_tensor xt = {0}, tt = {0}, wt = {0}, ot = {0};
  const tl_tensor *x = tl_nn_as_work(input, work, &xt);
  const tl_tensor *t = s->probs && x ? tl_nn_as_work(target, work, &tt) : NULL;
  const tl_tensor *w = weight && x ? tl_nn_as_work(weight, work, &wt) : NULL;
  tl_tensor *o = x ? tl_loss_work_out(out, work, false, &ot) : NULL;
  int64_t rows = s->N * s->S;
  double *loss = malloc((size_t)(rows ? rows : 1) * sizeof *loss), total, sum = 0;
  tl_status status;
  if (!x || (s->probs && !t) || (weight && !w) || !o) {
    status = tl_error_status();
    goto done;
  }
  if (!loss) {
    status = tl_error_set(TL_ERR_MEMORY, "_cross_entropy(): out of memory");
    goto done;
  }
  ce_job job = {.s = s, .x = tl_tensor_data(x), .t = t ? tl_tensor_data(t) : NULL,
                .w = w ? tl_tensor_data(w) : NULL,
                .y = s->probs ? NULL : tl_tensor_data(target), .lse = tl_tensor_data(lse),
                .loss = loss, .f64 = work == TL_DTYPE_F64};
  if ((status = target_weights(s, job.y, w, &total, &job.wsum)) != TL_OK)
    goto done;
  tl_storage_bump(lse->storage);
  run(&job);
  for (int64_t r = 0; r < rows; r++) {
    if (s->reduction == TL_REDUCTION_NONE)
      tl_nn_set(o, r, loss[r]);
    sum += loss[r];
  }
  if (s->reduction != TL_REDUCTION_NONE) /* 'mean' of nothing: 0 / 0, NaN as PyTorch */
    tl_nn_set(o, 0, s->reduction == TL_REDUCTION_MEAN ? sum / total : sum);
  tl_nn_set(total_weight, 0, total);
  tl_storage_bump(total_weight->storage);
  status = tl_loss_finish(out, o);
done:
  free(loss);
  tl_tensor_release(&xt);
  tl_tensor_release(&tt);
  tl_tensor_release(&wt);
  tl_tensor_release(&ot);
  return status;
}

tl_status tl_cpu_cross_entropy_backward(const tl_ce_spec *s, const tl_tensor *grad,
                                        const tl_tensor *input, const tl_tensor *target,
                                        const tl_tensor *weight, const tl_tensor *lse,
                                        const tl_tensor *total_weight, tl_tensor *grad_input,
                                        tl_tensor *grad_target)
{
  tl_dtype work = tl_nn_work_dtype(input->dtype);
  tl_tensor xt = {0}, tt = {0}, wt = {0}, gt = {0}, lt = {0}, twt = {0}, dxt = {0}, dtt = {0};
  const tl_tensor *x = tl_nn_as_work(input, work, &xt);
  const tl_tensor *t = s->probs && x ? tl_nn_as_work(target, work, &tt) : NULL;
  const tl_tensor *w = weight && x ? tl_nn_as_work(weight, work, &wt) : NULL;
  const tl_tensor *g = x ? tl_nn_as_work(grad, work, &gt) : NULL;
  const tl_tensor *l = g ? tl_nn_as_work(lse, work, &lt) : NULL;
  const tl_tensor *tw = l ? tl_nn_as_work(total_weight, work, &twt) : NULL;
  tl_tensor *dx = tw ? tl_loss_work_out(grad_input, work, false, &dxt) : NULL;
  tl_tensor *dt = dx && grad_target ? tl_loss_work_out(grad_target, work, false, &dtt) : NULL;
  tl_status status;
  double total;
  if (!x || (s->probs && !t) || (weight && !w) || !tw || !dx || (grad_target && !dt)) {
    status = tl_error_status();
    goto done;
  }
  ce_job job = {.s = s, .x = tl_tensor_data(x), .t = t ? tl_tensor_data(t) : NULL,
                .w = w ? tl_tensor_data(w) : NULL,
                .y = s->probs ? NULL : tl_tensor_data(target), .lse = (void *)tl_tensor_data(l),
                .g = tl_tensor_data(g), .dx = tl_tensor_data(dx),
                .dt = dt ? tl_tensor_data(dt) : NULL, .f64 = work == TL_DTYPE_F64};
  if ((status = target_weights(s, job.y, w, &total, &job.wsum)) != TL_OK)
    goto done;
  job.scale = s->reduction == TL_REDUCTION_MEAN ? 1 / tl_nn_get(tw, 0) : 1;
  run(&job);
  if ((status = tl_loss_finish(grad_input, dx)) == TL_OK && dt)
    status = tl_loss_finish(grad_target, dt);
done:
  tl_tensor_release(&xt);
  tl_tensor_release(&tt);
  tl_tensor_release(&wt);
  tl_tensor_release(&gt);
  tl_tensor_release(&lt);
  tl_tensor_release(&twt);
  tl_tensor_release(&dxt);
  tl_tensor_release(&dtt);
  return status;
}
