/* ctc_cpu.c - the CPU's ctc_loss and its backward (tl_loss.h): the alpha
 * and beta recursions of each sample in log space, samples split across the
 * thread pool.  Work is in the work dtype (tl_nn_work.h): float math for
 * float32 (and half) inputs, as PyTorch computes in the input's type, double
 * for float64; log_alpha is kept in it. */
#include <math.h>
#include <stdlib.h>

#include "ndcore/dispatch/tl_parallel.h"
#include "nn/loss/tl_loss.h"
#include "nn/tl_nn_work.h"

typedef struct {
  const tl_ctc_spec *s;
  const void *lp, *g, *nll; /* work dtype; g, nll: backward */
  const int64_t *tg;
  void *la, *out;           /* log_alpha; nll (forward) or grad_input (backward) */
  bool f64;
  volatile int failed; /* a sample's scratch could not be allocated */
} ctc_job;

/* Label s of sample n's extended sequence (blank, l1, blank, l2, ..., blank). */
static inline int64_t label(const ctc_job *j, int64_t n, int64_t s)
{
  return s % 2 == 0 ? j->s->blank : j->tg[j->s->offsets[n] + s / 2];
}

/* Written once per work type R (EXP, LOG its functions):
 *   lse3   log(exp(a) + exp(b) + exp(c)), -inf when all are: the largest
 *          term factored out, no exp spent on -inf terms (unreachable states)
 *   alpha  sample n's alpha into log_alpha[n] (-inf where unreached) and its
 *          loss
 *   beta   sample n's beta, then its gradient into grad_input[:, n, :] */
#define TL_CTC_SAMPLES(lse3, alpha, beta, R, EXP, LOG)                                   \
  static inline R lse3(R a, R b, R c)                                                      \
  {                                                                                        \
    R m = a > b ? a : b;                                                                   \
    m = m > c ? m : c;                                                                     \
    if (m == -INFINITY)                                                                    \
      return -INFINITY;                                                                    \
    R r = (R)((a == m) + (b == m) + (c == m) - 1); /* ties with the max */                 \
    if (a != m && a != -INFINITY)                                                          \
      r += EXP(a - m);                                                                     \
    if (b != m && b != -INFINITY)                                                          \
      r += EXP(b - m);                                                                     \
    if (c != m && c != -INFINITY)                                                          \
      r += EXP(c - m);                                                                     \
    /* one term alone (the common case of a first lcab sum or a state with    \
     * one reachable predecessor): log(1) is 0, so skip the log, exactly */               \
    return r == 0 ? m + 0 : m + LOG(1 + r);                                                \
  }                                                                                        \
  static void alpha(const ctc_job *j, int64_t n)                                           \
  {                                                                                        \
    const tl_ctc_spec *s = j->s;                                                           \
    int64_t Tn = s->input_lengths[n], L = 2 * s->target_lengths[n] + 1;                    \
    int64_t W = 2 * s->maxS + 1, NC = s->N * s->C;                                         \
    R *la = (R *)j->la + n * s->T * W, *out = j->out;                                      \
    const R *lp = (const R *)j->lp + n * s->C; /* frame t at lp + t * NC */                \
    for (int64_t i = 0; i < s->T * W; i++)                                                 \
      la[i] = -INFINITY;                                                                   \
    if (Tn == 0) { /* no frame: only the empty target has an alignment */                  \
      out[n] = L == 1 ? 0 : INFINITY;                                                      \
      return;                                                                              \
    }                                                                                      \
    la[0] = lp[s->blank];                                                                  \
    if (L > 1)                                                                             \
      la[1] = lp[label(j, n, 1)];                                                          \
    for (int64_t t = 1; t < Tn; t++) {                                                     \
      const R *prev = la + (t - 1) * W, *lpt = lp + t * NC;                                \
      R *row = la + t * W;                                                                 \
      for (int64_t q = 0; q < L; q++) {                                                    \
        int64_t l = label(j, n, q);                                                        \
        R a2 = q > 0 ? prev[q - 1] : -INFINITY;                                            \
        R a3 = q > 1 && l != label(j, n, q - 2) ? prev[q - 2] : -INFINITY;                 \
        row[q] = lse3(prev[q], a2, a3) + lpt[l];                                           \
      }                                                                                    \
    }                                                                                      \
    const R *last = la + (Tn - 1) * W;                                                     \
    out[n] = -(L == 1 ? last[0] : lse3(last[L - 1], last[L - 2], -INFINITY));              \
  }                                                                                        \
  static void beta(ctc_job *j, int64_t n)                                                  \
  {                                                                                        \
    const tl_ctc_spec *s = j->s;                                                           \
    int64_t Tn = s->input_lengths[n], L = 2 * s->target_lengths[n] + 1;                    \
    int64_t W = 2 * s->maxS + 1, C = s->C, NC = s->N * C;                                  \
    const R *la = (const R *)j->la + n * s->T * W, *lp = (const R *)j->lp + n * C;         \
    R *out = (R *)j->out + n * C, nll = ((const R *)j->nll)[n], gr = ((const R *)j->g)[n]; \
    if (s->zero_infinity && nll == INFINITY)                                               \
      Tn = 0; /* the whole gradient is zero */                                             \
    R *lb = malloc((size_t)(Tn * (L + C) + 1) * sizeof *lb), *lcab = lb + Tn * L;          \
    if (!lb) {                                                                             \
      j->failed = 1;                                                                       \
      return;                                                                              \
    }                                                                                      \
    for (int64_t i = 0; i < Tn * (L + C); i++)                                             \
      lb[i] = -INFINITY;                                                                   \
    for (int64_t t = Tn - 1; t >= 0; t--) {                                                \
      R *row = lb + t * L, *next = row + L;                                                \
      const R *lpt = lp + t * NC;                                                          \
      if (t == Tn - 1) {                                                                   \
        row[L - 1] = lpt[s->blank];                                                        \
        if (L > 1)                                                                         \
          row[L - 2] = lpt[label(j, n, L - 2)];                                            \
      } else {                                                                             \
        for (int64_t q = L - 1; q >= 0; q--) {                                             \
          int64_t l = label(j, n, q);                                                      \
          R b2 = q < L - 1 ? next[q + 1] : -INFINITY;                                      \
          R b3 = q < L - 2 && label(j, n, q + 2) != l ? next[q + 2] : -INFINITY;           \
          row[q] = lse3(next[q], b2, b3) + lpt[l];                                         \
        }                                                                                  \
      }                                                                                    \
      /* lcab[t, c]: log sum over the positions of label c of alpha * beta */             \
      for (int64_t q = 0; q < L; q++) {                                                    \
        R *acc = lcab + t * C + label(j, n, q);                                            \
        *acc = lse3(*acc, la[t * W + q] + row[q], -INFINITY);                              \
      }                                                                                    \
    }                                                                                      \
    for (int64_t t = 0; t < s->T; t++)                                                     \
      for (int64_t c = 0; c < C; c++) {                                                    \
        R v = 0; /* 0 past the input, even for a NaN g */                                  \
        if (t < Tn) {                                                                      \
          R l = lp[t * NC + c], ab = lcab[t * C + c];                                      \
          v = (ab == -INFINITY ? EXP(l) : EXP(l) - EXP(ab + nll - l)) * gr;                \
        }                                                                                  \
        out[t * NC + c] = v;                                                               \
      }                                                                                    \
    free(lb);                                                                              \
  }
TL_CTC_SAMPLES(lse3_f32, alpha_f32, beta_f32, float, expf, logf)
TL_CTC_SAMPLES(lse3_f64, alpha_f64, beta_f64, double, exp, log)

static void alpha_range(void *ctx, int64_t begin, int64_t end, int worker)
{
  (void)worker;
  const ctc_job *j = ctx;
  for (int64_t n = begin; n < end; n++)
    j->f64 ? alpha_f64(j, n) : alpha_f32(j, n);
}

static void beta_range(void *ctx, int64_t begin, int64_t end, int worker)
{
  (void)worker;
  ctc_job *j = ctx;
  for (int64_t n = begin; n < end; n++)
    j->f64 ? beta_f64(j, n) : beta_f32(j, n);
}

tl_status tl_cpu_ctc(const tl_ctc_spec *s, const tl_tensor *log_probs, const tl_tensor *targets,
                     tl_tensor *nll, tl_tensor *log_alpha)
{
  tl_dtype work = tl_nn_work_dtype(log_probs->dtype);
  tl_tensor lt = {0}, ot = {0};
  ctc_job j = {.s = s, .tg = tl_tensor_data(targets), .la = tl_tensor_data(log_alpha),
               .f64 = work == TL_DTYPE_F64};
  const tl_tensor *lp = tl_nn_as_work(log_probs, work, &lt);
  tl_tensor *out = lp ? tl_loss_work_out(nll, work, false, &ot) : NULL;
  tl_status status;
  if (!out) {
    status = tl_error_status();
    goto done;
  }
  j.lp = tl_tensor_data(lp);
  j.out = tl_tensor_data(out);
  tl_storage_bump(log_alpha->storage);
  if (s->N > 0)
    tl_parallel_for(s->N, 1, alpha_range, &j);
  status = tl_loss_finish(nll, out);
done:
  tl_tensor_release(&lt);
  tl_tensor_release(&ot);
  return status;
}

tl_status tl_cpu_ctc_backward(const tl_ctc_spec *s, const tl_tensor *grad,
                              const tl_tensor *log_probs, const tl_tensor *targets,
                              const tl_tensor *nll, const tl_tensor *log_alpha,
                              tl_tensor *grad_input)
{
  tl_dtype work = tl_nn_work_dtype(log_probs->dtype);
  tl_tensor lt = {0}, gt = {0}, nt = {0}, at = {0}, ot = {0};
  ctc_job j = {.s = s, .tg = tl_tensor_data(targets), .f64 = work == TL_DTYPE_F64};
  const tl_tensor *lp = tl_nn_as_work(log_probs, work, &lt);
  const tl_tensor *g = lp ? tl_nn_as_work(grad, work, &gt) : NULL;
  const tl_tensor *nl = g ? tl_nn_as_work(nll, work, &nt) : NULL;
  const tl_tensor *la = nl ? tl_nn_as_work(log_alpha, work, &at) : NULL;
  tl_tensor *out = la ? tl_loss_work_out(grad_input, work, false, &ot) : NULL;
  tl_status status;
  if (!out) {
    status = tl_error_status();
    goto done;
  }
  j.lp = tl_tensor_data(lp);
  j.g = tl_tensor_data(g);
  j.nll = tl_tensor_data(nl);
  j.la = (void *)tl_tensor_data(la);
  j.out = tl_tensor_data(out);
  if (s->N > 0)
    tl_parallel_for(s->N, 1, beta_range, &j);
  status = j.failed ? tl_error_set(TL_ERR_MEMORY, "_ctc_loss_backward(): out of memory")
                    : tl_loss_finish(grad_input, out);
done:
  tl_tensor_release(&lt);
  tl_tensor_release(&gt);
  tl_tensor_release(&nt);
  tl_tensor_release(&at);
  tl_tensor_release(&ot);
  return status;
}
