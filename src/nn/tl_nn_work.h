/* tl_nn_work.h - operands in a kernel's work dtype, for the families of
 * src/nn whose kernels read contiguous float or double only (rnn,
 * attention): float16/bfloat16/float32 compute in float, float64 in double,
 * and a result of a half dtype is cast once at the end. */
#ifndef TL_NN_WORK_H
#define TL_NN_WORK_H

#include "ndcore/tensor/tl_tensor.h"

/* The dtype a kernel computes in for tensors of dtype d. */
static inline tl_dtype tl_nn_work_dtype(tl_dtype d)
{
  return d == TL_DTYPE_F64 ? TL_DTYPE_F64 : TL_DTYPE_F32;
}

/* *out = t as a contiguous tensor of dtype `work`: a view of t when it
 * already is one, else a converted copy.  A NULL t gives a zeroed *out.
 * *out is owned by the caller either way (tl_tensor_release). */
tl_status tl_nn_work_in(const tl_tensor *t, tl_dtype work, tl_tensor *out);

/* Replace *t (a work-dtype result) by its cast to `dtype` when they differ. */
tl_status tl_nn_work_out(tl_tensor *t, tl_dtype dtype);

#endif
