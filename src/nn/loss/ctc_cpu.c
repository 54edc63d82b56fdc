/* ctc_cpu.c - the CPU's ctc_loss and its backward (tl_loss.h): the alpha
 * and beta recursions of each sample in log space, samples split across the
 * thread pool.  log_probs in the work dtype (tl_nn_work.h), each step's
 * log-sum-exp in double; log_alpha is stored in the work dtype, as
 * PyTorch keeps it in the input's. */
#include <math.h>
#include <stdlib.h>

#include "ndcore/dispatch/tl_parallel.h"
#include "nn/loss/tl_loss.h"
#include "nn/tl_nn_work.h"

typedef struct {
  const tl_ctc_spec *s;
  const tl_tensor *lp, *g, *nll; /* g, nll: backward */
  const int64_t *tg;
  tl_tensor *la, *out; /* log_alpha; nll (forward) or grad_input (backward) */
  volatile int failed; /* a sample's scratch could not be allocated */
} ctc_job;

/* log(exp(a) + exp(b) + exp(c)), -inf when all are: the largest term
 * factored out, and no exp spent on -inf terms (the unreachable states). */
static inline double lse3(double a, double b, double c)
{
  double m = fmax(a, fmax(b, c));
  if (m == -INFINITY)
    return -INFINITY;
  double r = 0; /* the sum of the two smaller terms' exp(. - m) */
  if (a != m && a != -INFINITY)
    r += exp(a - m);
  if (b != m && b != -INFINITY)
    r += exp(b - m);
  if (c != m && c != -INFINITY)
    r += exp(c - m);
  /* terms equal to the max other than the first count once more each */
  r += (a == m) + (b == m) + (c == m) - 1;
  return m + log1p(r);
}

/* Label s of sample n's extended sequence (blank, l1, blank, l2, ..., blank). */
static inline int64_t label(const ctc_job *j, int64_t n, int64_t s)
{
  return s % 2 == 0 ? j->s->blank : j->tg[j->s->offsets[n] + s / 2];
}

static inline double lp_at(const ctc_job *j, int64_t t, int64_t n, int64_t c)
{
  return tl_nn_get(j->lp, (t * j->s->N + n) * j->s->C + c);
}

/* alpha of sample n into log_alpha[n] (-inf where unreached), and its loss. */
static void alpha_sample(const ctc_job *j, int64_t n)
{
  const tl_ctc_spec *s = j->s;
  int64_t Tn = s->input_lengths[n], L = 2 * s->target_lengths[n] + 1, W = 2 * s->maxS + 1;
  int64_t base = n * s->T * W;
  for (int64_t i = 0; i < s->T * W; i++)
    tl_nn_set(j->la, base + i, -INFINITY);
  if (Tn == 0) { /* no frame: only the empty target has an alignment */
    tl_nn_set(j->out, n, L == 1 ? 0 : INFINITY);
    return;
  }
  tl_nn_set(j->la, base, lp_at(j, 0, n, s->blank));
  if (L > 1)
    tl_nn_set(j->la, base + 1, lp_at(j, 0, n, label(j, n, 1)));
  for (int64_t t = 1; t < Tn; t++) {
    int64_t prev = base + (t - 1) * W;
    for (int64_t q = 0; q < L; q++) {
      int64_t l = label(j, n, q);
      double a1 = tl_nn_get(j->la, prev + q);
      double a2 = q > 0 ? tl_nn_get(j->la, prev + q - 1) : -INFINITY;
      double a3 = q > 1 && l != label(j, n, q - 2) ? tl_nn_get(j->la, prev + q - 2) : -INFINITY;
      tl_nn_set(j->la, prev + W + q, lse3(a1, a2, a3) + lp_at(j, t, n, l));
    }
  }
  int64_t last = base + (Tn - 1) * W;
  double ll = L == 1 ? tl_nn_get(j->la, last)
                     : lse3(tl_nn_get(j->la, last + L - 1), tl_nn_get(j->la, last + L - 2),
                            -INFINITY);
  tl_nn_set(j->out, n, -ll);
}

/* beta of sample n, then its gradient into grad_input[:, n, :]. */
static void beta_sample(ctc_job *j, int64_t n)
{
  const tl_ctc_spec *s = j->s;
  int64_t Tn = s->input_lengths[n], L = 2 * s->target_lengths[n] + 1, W = 2 * s->maxS + 1;
  int64_t base = n * s->T * W, C = s->C;
  double nll = tl_nn_get(j->nll, n), gr = tl_nn_get(j->g, n);
  if (s->zero_infinity && nll == INFINITY)
    Tn = 0; /* the whole gradient is zero */
  double *lb = malloc((size_t)(Tn * (L + C) + 1) * sizeof *lb), *lcab = lb + Tn * L;
  if (!lb) {
    j->failed = 1;
    return;
  }
  for (int64_t i = 0; i < Tn * (L + C); i++)
    lb[i] = -INFINITY;
  for (int64_t t = Tn - 1; t >= 0; t--) {
    double *row = lb + t * L, *next = row + L;
    if (t == Tn - 1) {
      row[L - 1] = lp_at(j, t, n, s->blank);
      if (L > 1)
        row[L - 2] = lp_at(j, t, n, label(j, n, L - 2));
    } else {
      for (int64_t q = L - 1; q >= 0; q--) {
        int64_t l = label(j, n, q);
        double b2 = q < L - 1 ? next[q + 1] : -INFINITY;
        double b3 = q < L - 2 && label(j, n, q + 2) != l ? next[q + 2] : -INFINITY;
        row[q] = lse3(next[q], b2, b3) + lp_at(j, t, n, l);
      }
    }
    /* lcab[t, c]: log sum over the positions of label c of alpha * beta */
    for (int64_t q = 0; q < L; q++) {
      double *acc = lcab + t * C + label(j, n, q);
      double ab = tl_nn_get(j->la, base + t * W + q) + row[q];
      *acc = *acc == -INFINITY ? ab : lse3(*acc, ab, -INFINITY);
    }
  }
  for (int64_t t = 0; t < s->T; t++)
    for (int64_t c = 0; c < C; c++) {
      int64_t at = (t * s->N + n) * C + c;
      double lp = tl_nn_get(j->lp, at), ab = t < Tn ? lcab[t * C + c] : -INFINITY;
      double v = t >= Tn ? 0 : ab == -INFINITY ? exp(lp) : exp(lp) - exp(ab + nll - lp);
      tl_nn_set(j->out, at, t < Tn ? v * gr : 0); /* 0 past the input, even for a NaN g */
    }
  free(lb);
}

static void alpha_range(void *ctx, int64_t begin, int64_t end, int worker)
{
  (void)worker;
  for (int64_t n = begin; n < end; n++)
    alpha_sample(ctx, n);
}

static void beta_range(void *ctx, int64_t begin, int64_t end, int worker)
{
  (void)worker;
  for (int64_t n = begin; n < end; n++)
    beta_sample(ctx, n);
}

tl_status tl_cpu_ctc(const tl_ctc_spec *s, const tl_tensor *log_probs, const tl_tensor *targets,
                     tl_tensor *nll, tl_tensor *log_alpha)
{
  tl_dtype work = tl_nn_work_dtype(log_probs->dtype);
  tl_tensor lt = {0}, ot = {0};
  ctc_job j = {.s = s, .tg = tl_tensor_data(targets), .la = log_alpha};
  j.lp = tl_nn_as_work(log_probs, work, &lt);
  j.out = j.lp ? tl_loss_work_out(nll, work, false, &ot) : NULL;
  tl_status status;
  if (!j.out) {
    status = tl_error_status();
    goto done;
  }
  tl_storage_bump(log_alpha->storage);
  if (s->N > 0)
    tl_parallel_for(s->N, 1, alpha_range, &j);
  status = tl_loss_finish(nll, j.out);
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
  ctc_job j = {.s = s, .tg = tl_tensor_data(targets)};
  j.lp = tl_nn_as_work(log_probs, work, &lt);
  j.g = j.lp ? tl_nn_as_work(grad, work, &gt) : NULL;
  j.nll = j.g ? tl_nn_as_work(nll, work, &nt) : NULL;
  j.la = j.nll ? (tl_tensor *)tl_nn_as_work(log_alpha, work, &at) : NULL;
  j.out = j.la ? tl_loss_work_out(grad_input, work, false, &ot) : NULL;
  tl_status status;
  if (!j.out) {
    status = tl_error_status();
    goto done;
  }
  if (s->N > 0)
    tl_parallel_for(s->N, 1, beta_range, &j);
  status = j.failed ? tl_error_set(TL_ERR_MEMORY, "_ctc_loss_backward(): out of memory")
                    : tl_loss_finish(grad_input, j.out);
done:
  tl_tensor_release(&lt);
  tl_tensor_release(&gt);
  tl_tensor_release(&nt);
  tl_tensor_release(&at);
  tl_tensor_release(&ot);
  return status;
}
