/* tl_optim.h - multi-tensor optimizer steps (torchlike.optim's fast path).
 *
 * One call updates every parameter of a group: the per-parameter scalars
 * (step counters, bias corrections) are advanced and computed first, then
 * every element of every parameter is updated in one pass over memory, split
 * across the thread pool.
 *
 * Each kernel performs exactly the float operations, in the same order and
 * with the same rounding, as the per-parameter Python path of the same
 * optimizer (the modules of torchlike.optim), so the two are bit-identical. */
#ifndef TL_OPTIM_H
#define TL_OPTIM_H

#include <stdbool.h>
#include <stdint.h>

#include "ndcore/tensor/tl_error.h"
#include "ndcore/tensor/tl_tensor.h"

typedef enum {
  TL_OPTIM_SGD,
  TL_OPTIM_ADAM, /* and AdamW (decoupled) */
  TL_OPTIM_ADAMAX,
  TL_OPTIM_NADAM,
  TL_OPTIM_RADAM,
  TL_OPTIM_ADAGRAD,
  TL_OPTIM_ADADELTA,
  TL_OPTIM_RMSPROP,
  TL_OPTIM_RPROP,
  TL_OPTIM_ASGD,
  TL_OPTIM_COUNT
} tl_optim_kind;

/* The group's options; each kind reads the ones it has. */
typedef struct {
  double lr, weight_decay, eps;
  double beta1, beta2;        /* Adam family */
  double momentum, dampening; /* SGD, RMSprop */
  double alpha;               /* RMSprop's smoothing, ASGD's power */
  double rho;                 /* Adadelta */
  double lr_decay;            /* Adagrad */
  double momentum_decay;      /* NAdam */
  double lambd, t0;           /* ASGD */
  double etaminus, etaplus, step_min, step_max; /* Rprop */
  bool maximize, amsgrad, decoupled, nesterov, centered;
} tl_optim_hyper;

#define TL_OPTIM_MAX_BUFS 3
#define TL_OPTIM_MAX_SCALARS 3

/* One parameter: its elements, its gradient's, its state buffers (same
 * length and dtype; NULL where an option leaves one out) and its 0-d float32
 * state scalars (the step counter first).  fresh: SGD's momentum buffer is
 * new and takes the gradient. */
typedef struct {
  void *param;
  const void *grad;
  void *buf[TL_OPTIM_MAX_BUFS];
  float *scalar[TL_OPTIM_MAX_SCALARS];
  int64_t n;
  bool fresh;
} tl_optim_slot;

/* How many state buffers and scalars a kind takes (the binding checks the
 * lists it is given against these). */
void tl_optim_arity(tl_optim_kind kind, int *nbufs, int *nscalars);
/* Is buffer i required, given the options (amsgrad's maximum, RMSprop's
 * momentum and centered averages are optional)? */
bool tl_optim_buf_required(tl_optim_kind kind, const tl_optim_hyper *h, int i);

/* Step all slots; dtype is float32 or float64, shared by every buffer. */
tl_status tl_optim_step(tl_optim_kind kind, const tl_optim_hyper *h, tl_optim_slot *slots,
                        int64_t count, tl_dtype dtype);

#endif
