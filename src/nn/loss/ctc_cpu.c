/* ctc_cpu.c - the CPU's ctc_loss and its backward (tl_loss.h): the alpha
 * and beta recursions of each sample in log space, samples split across the
 * thread pool.  Work is in the work dtype (tl_nn_work.h): float math for
 * float32 (and half) inputs, as PyTorch computes in the input's type, double
 * for float64; log_alpha is kept in it.
 *
 * Legend: T frames, N samples, C classes; sample n has Tn frames and the
 * extended labels ext (blank, l1, blank, ..., blank) of length L = 2 S_n + 1,
 * W = 2 max S_n + 1 wide in log_alpha.
 *
 * A time step is one branch-free loop over the L states (SIMD: tl_expf or
 * libmvec's exp and log, TL_SIMD_CLONES picks the machine's vectors), with
 * the blank/label structure held in a mask sk (0 where a state may be
 * entered from two states back, -inf where not) rather than tested.  The
 * backward keeps two rows of beta and writes each frame's gradient as soon
 * as its beta row is known, summing alpha * beta / p per class in linear
 * space (the occupancies, at most 1), so it needs no (T, L) table.  Scratch
 * is one block per range of samples. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "ndcore/dispatch/tl_parallel.h"
#include "ndcore/kernels/tl_vecmath.h"
#include "nn/loss/tl_loss.h"
#include "nn/tl_nn_work.h"

typedef struct {
  const tl_ctc_spec *s;
  const void *lp, *g, *nll; /* work dtype; g, nll: backward */
  const int64_t *tg;
  void *la, *out;           /* log_alpha; nll (forward) or grad_input (backward) */
  bool f64;
  volatile int failed; /* a range's scratch could not be allocated */
} ctc_job;

/* The states' loops run over L rounded up to a multiple of 16 (every
 * clone's vector width), on padded rows, so that no state falls to a scalar
 * remainder (a libm call each); P is that length for the widest sample. */
static int64_t padded(int64_t L)
{
  return (L + 15) / 16 * 16;
}

/* A range's scratch, for a work type of `size` bytes: ext (W int64), then
 * sk (P + 2), lpe (P), two rows (P + 4 each: two -inf before and after),
 * acc (C), and the backward's alpha row and e (P each). */
static size_t scratch_bytes(const tl_ctc_spec *s, size_t size)
{
  int64_t W = 2 * s->maxS + 1, P = padded(W);
  return (size_t)W * sizeof(int64_t) + (size_t)(6 * P + 10 + s->C) * size;
}

#define ROW static inline __attribute__((always_inline))

TL_VECMATH_BEGIN
/* exp for double whose vector forms stay on their fast path: libmvec hands
 * lanes below -708 (near the end of the normal range; -inf for every
 * unreachable state) to the scalar exp one by one.  Those give 0 here, not
 * a subnormal: at most 3e-308 off, an absolute error that the sums of
 * terms near 1 and the gradient do not see.  (float's tl_expf has no slow
 * path: it clamps.)  Log only ever sees lse3's sum in [1, 3], where
 * libmvec's log is fast too. */
ROW double exp_f64(double x)
{
  /* a product, not a select: the compiler may not drop the clamp as unused */
  return exp(x < -708.0 ? -708.0 : x) * (x < -708.0 ? 0.0 : 1.0);
}

/* Written once per work type R (EXP, LOG its functions):
 *   lse3    log(exp(a) + exp(b) + exp(c)) as PyTorch writes it: the largest
 *           term factored out (-inf when all are, not NaN; NaN when one is)
 *   extend  sample n's ext[0..L) and sk[0..P+2) (-inf past L, where the
 *           padded loops read it); returns L
 *   alpha   sample n's alpha into log_alpha[n] (-inf where unreached) and
 *           its loss
 *   beta    sample n's beta, and its gradient into grad_input[:, n, :]:
 *             grad[t, c] = g (exp(lp[t, c]) - sum_{q: ext[q] = c} e[q]),
 *             e[q] = exp(alpha[t, q] + beta[t, q] + nll - lp[t, c])
 *           (PyTorch's exp(lse_q(alpha + beta) + nll - lp), the sum taken
 *           after the exp) for t < Tn, 0 after
 * Past L the rows stay -inf: alpha's lpe is -inf there (state L has a
 * finite predecessor); beta's predecessors past L are all -inf, and its lpe
 * is 0 there so that the occupancies' exp sees -inf, not -inf - -inf. */
#define TL_CTC_SAMPLES(lse3, extend, alpha, beta, R, EXP, LOG)                                \
  ROW R lse3(R a, R b, R c)                                                                  \
  {                                                                                          \
    R hi = a > b ? a : b, lo = a > b ? b : a; /* a NaN ends up in one of the three */        \
    R m = c > hi ? c : hi, mid = c > hi ? hi : c;                                            \
    bool none = m == -INFINITY && lo + mid == -INFINITY; /* not when the NaN is lo or mid */ \
    m = none ? 0 : m;                                                                        \
    /* exp(m - m) is 1: two exps, and log's argument in [1, 3] (its fast lanes) */           \
    R lr = LOG(1 + EXP(lo - m) + EXP(mid - m));                                              \
    return none ? -INFINITY : lr + m;                                                        \
  }                                                                                          \
  ROW int64_t extend(const ctc_job *j, int64_t n, int64_t *ext, R *sk)                       \
  {                                                                                          \
    const tl_ctc_spec *s = j->s;                                                             \
    const int64_t *tg = j->tg + s->offsets[n];                                               \
    int64_t S = s->target_lengths[n], P = padded(2 * s->maxS + 1);                          \
    ext[0] = s->blank;                                                                       \
    sk[0] = -INFINITY;                                                                       \
    for (int64_t i = 0; i < S; i++) {                                                        \
      ext[2 * i + 1] = tg[i];                                                                \
      sk[2 * i + 1] = i > 0 && tg[i] != tg[i - 1] ? 0 : -INFINITY;                           \
      ext[2 * i + 2] = s->blank;                                                             \
      sk[2 * i + 2] = -INFINITY; /* a blank follows the blank two back */                    \
    }                                                                                        \
    for (int64_t q = 2 * S + 1; q < P + 2; q++)                                              \
      sk[q] = -INFINITY;                                                                     \
    return 2 * S + 1;                                                                        \
  }                                                                                          \
  ROW void alpha(ctc_job *j, int64_t n, void *scratch)                                       \
  {                                                                                          \
    const tl_ctc_spec *s = j->s;                                                             \
    int64_t Tn = s->input_lengths[n], W = 2 * s->maxS + 1, NC = s->N * s->C, P = padded(W);  \
    int64_t *ext = scratch;                                                                  \
    R *sk = (R *)(ext + W), *lpe = sk + P + 2; /* lpe[q] = lp[t, ext[q]] */                  \
    R *prev = lpe + P + 2, *row = prev + P + 4; /* (P) each, from [-2] to [P + 1] */         \
    int64_t L = extend(j, n, ext, sk), Lp = padded(L);                                       \
    R *la = (R *)j->la + n * s->T * W, *out = j->out; /* la (T, W) */                        \
    const R *lp = (const R *)j->lp + n * s->C;        /* frame t at lp + t * NC */           \
    for (int64_t i = 0; i < s->T * W; i++)                                                   \
      la[i] = -INFINITY;                                                                     \
    if (Tn == 0) { /* no frame: only the empty target has an alignment */                    \
      out[n] = L == 1 ? 0 : INFINITY;                                                        \
      return;                                                                                \
    }                                                                                        \
    for (int64_t q = 0; q < 2 * P + 8; q++)                                                  \
      prev[q - 2] = -INFINITY;                                                               \
    for (int64_t q = L; q < Lp; q++)                                                         \
      lpe[q] = -INFINITY;                                                                    \
    prev[0] = lp[ext[0]];                                                                    \
    if (L > 1)                                                                               \
      prev[1] = lp[ext[1]];                                                                  \
    memcpy(la, prev, (size_t)L * sizeof *prev);                                              \
    for (int64_t t = 1; t < Tn; t++) {                                                       \
      const R *lpt = lp + t * NC;                                                            \
      _Pragma("omp simd") for (int64_t q = 0; q < L; q++)                                    \
        lpe[q] = lpt[ext[q]];                                                                \
      /* states 0 and 1 read the -inf before the row: one or two terms */                   \
      _Pragma("omp simd") for (int64_t q = 0; q < Lp; q++)                                   \
        row[q] = lse3(prev[q], prev[q - 1], prev[q - 2] + sk[q]) + lpe[q];                   \
      memcpy(la + t * W, row, (size_t)L * sizeof *row);                                      \
      R *swap = prev;                                                                        \
      prev = row;                                                                            \
      row = swap;                                                                            \
    }                                                                                        \
    out[n] = -(L == 1 ? prev[0] : lse3(prev[L - 1], prev[L - 2], -INFINITY));                \
  }                                                                                          \
  ROW void beta(ctc_job *j, int64_t n, void *scratch)                                        \
  {                                                                                          \
    const tl_ctc_spec *s = j->s;                                                             \
    int64_t Tn = s->input_lengths[n], W = 2 * s->maxS + 1, C = s->C, NC = s->N * C;          \
    int64_t P = padded(W), *ext = scratch;                                                   \
    R *sk = (R *)(ext + W), *lpe = sk + P + 2;                                               \
    R *next = lpe + P + 2, *cur = next + P + 4; /* (P) each, from [-2] to [P + 1] */         \
    R *acc = cur + P + 2, *at = acc + C, *e = at + P; /* acc (C): occupancy per class */    \
    const R *la = (const R *)j->la + n * s->T * W, *lp = (const R *)j->lp + n * C;           \
    R *out = (R *)j->out + n * C, nll = ((const R *)j->nll)[n], gr = ((const R *)j->g)[n];   \
    if (s->zero_infinity && nll == INFINITY)                                                 \
      Tn = 0; /* the whole gradient is zero */                                               \
    for (int64_t t = Tn; t < s->T; t++) /* 0 past the input, even for a NaN g */            \
      for (int64_t c = 0; c < C; c++)                                                        \
        out[t * NC + c] = 0;                                                                 \
    if (Tn == 0)                                                                             \
      return;                                                                                \
    int64_t L = extend(j, n, ext, sk), Lp = padded(L);                                       \
    /* no alignment (infinite loss): no state is on a path, nothing to subtract */           \
    bool reached = nll != INFINITY;                                                          \
    /* past L: beta reads only -inf there (its pads), so lpe's pad of 0 keeps them       \
     * -inf, and e is exp(-inf) = 0 on them (no -inf - -inf) */                             \
    for (int64_t q = 0; q < 2 * P + 8; q++)                                                  \
      next[q - 2] = -INFINITY;                                                               \
    for (int64_t q = L; q < Lp; q++) {                                                       \
      lpe[q] = 0;                                                                            \
      at[q] = -INFINITY;                                                                     \
    }                                                                                        \
    for (int64_t t = Tn - 1; t >= 0; t--) {                                                  \
      const R *lpt = lp + t * NC;                                                            \
      R *grow = out + t * NC;                                                                \
      _Pragma("omp simd") for (int64_t q = 0; q < L; q++)                                    \
        lpe[q] = lpt[ext[q]];                                                                \
      if (t == Tn - 1) {                                                                     \
        cur[L - 1] = lpe[L - 1];                                                             \
        if (L > 1)                                                                           \
          cur[L - 2] = lpe[L - 2];                                                           \
      } else {                                                                               \
        _Pragma("omp simd") for (int64_t q = 0; q < Lp; q++)                                 \
          cur[q] = lse3(next[q], next[q + 1], next[q + 2] + sk[q + 2]) + lpe[q];             \
      }                                                                                      \
      for (int64_t c = 0; c < C; c++)                                                        \
        acc[c] = 0;                                                                          \
      if (reached) {                                                                         \
        memcpy(at, la + t * W, (size_t)L * sizeof *at);                                      \
        /* lp = -inf (a class of probability 0): alpha and beta are -inf there too and  \
         * the state's occupancy is 0, where -inf - -inf would be NaN */                     \
        _Pragma("omp simd") for (int64_t q = 0; q < Lp; q++) {                               \
          R l = lpe[q] == -INFINITY ? 0 : lpe[q];                                            \
          e[q] = EXP(at[q] + cur[q] + nll - l);                                              \
        }                                                                                    \
        /* the blanks (even q) summed apart: one chain in a register, where adding     \
         * them into acc[blank] would wait on each store */                                  \
        R eb = 0;                                                                            \
        _Pragma("omp simd reduction(+:eb)") for (int64_t q = 0; q < Lp; q += 2)              \
          eb += e[q];                                                                        \
        acc[s->blank] = eb;                                                                  \
        for (int64_t q = 1; q < L; q += 2)                                                   \
          acc[ext[q]] += e[q];                                                               \
      }                                                                                      \
      _Pragma("omp simd") for (int64_t c = 0; c < C; c++)                                    \
        grow[c] = (EXP(lpt[c]) - acc[c]) * gr;                                               \
      R *swap = next;                                                                        \
      next = cur;                                                                            \
      cur = swap;                                                                            \
    }                                                                                        \
  }
TL_CTC_SAMPLES(lse3_f32, extend_f32, alpha_f32, beta_f32, float, tl_expf, logf)
TL_CTC_SAMPLES(lse3_f64, extend_f64, alpha_f64, beta_f64, double, exp_f64, log)

/* Samples [begin, end) of the job: their alpha (forward, no g) or beta and
 * gradient (backward), with one scratch block. */
TL_SIMD_CLONES
static void ctc_range(void *ctx, int64_t begin, int64_t end, int worker)
{
  (void)worker;
  ctc_job *j = ctx;
  void *scratch = malloc(scratch_bytes(j->s, j->f64 ? sizeof(double) : sizeof(float)));
  if (!scratch) {
    j->failed = 1;
    return;
  }
  for (int64_t n = begin; n < end; n++) {
    if (j->g)
      j->f64 ? beta_f64(j, n, scratch) : beta_f32(j, n, scratch);
    else
      j->f64 ? alpha_f64(j, n, scratch) : alpha_f32(j, n, scratch);
  }
  free(scratch);
}
TL_VECMATH_END

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
    tl_parallel_for(s->N, 1, ctc_range, &j);
  status = j.failed ? tl_error_set(TL_ERR_MEMORY, "_ctc_loss(): out of memory")
                    : tl_loss_finish(nll, out);
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
    tl_parallel_for(s->N, 1, ctc_range, &j);
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
