/* optim_job.h - what optim_kernels.c hands the element loops (private to
 * src/nn's optimizer files). */
#ifndef TL_OPTIM_JOB_H
#define TL_OPTIM_JOB_H

#include "nn/optim/tl_optim.h"

#define TL_OPTIM_NK 8 /* coefficients per slot */

typedef struct {
  tl_optim_kind kind;
  const tl_optim_hyper *h;
  tl_optim_slot *slots;
  const double *k;      /* [count][TL_OPTIM_NK], from the prep pass */
  const int64_t *start; /* [count + 1]: where each slot begins, end to end */
  int64_t count;
  bool f32;
} tl_optim_job;

/* Update elements [lo, hi) of slot j. */
void tl_optim_range_f32(const tl_optim_job *job, int64_t j, int64_t lo, int64_t hi);
void tl_optim_range_f64(const tl_optim_job *job, int64_t j, int64_t lo, int64_t hi);

#endif
