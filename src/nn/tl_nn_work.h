/* tl_nn_work.h - small helpers shared by src/nn's CPU kernels: the work
 * dtype a kernel computes in (double for float64, float otherwise: float16
 * and bfloat16 accumulate in float), operands made contiguous in it, and
 * element access to small contiguous float/double tensors (per-channel
 * statistics, scalars). */
#ifndef TL_NN_WORK_H
#define TL_NN_WORK_H

#include "ndcore/tensor/tl_tensor.h"

static inline tl_dtype tl_nn_work_dtype(tl_dtype d)
{
  return d == TL_DTYPE_F64 ? TL_DTYPE_F64 : TL_DTYPE_F32;
}

/* `t` as a contiguous tensor of dtype `work`: t itself when it already is
 * one, else a converted copy in *tmp (NULL with the error set on failure). */
static inline const tl_tensor *tl_nn_as_work(const tl_tensor *t, tl_dtype work, tl_tensor *tmp)
{
  if (t->dtype == work && tl_tensor_is_contiguous(t))
    return t;
  return tl_tensor_to_dtype(tmp, t, work) == TL_OK ? tmp : NULL;
}

/* Element i of a contiguous float or double tensor, as double. */
static inline double tl_nn_get(const tl_tensor *t, int64_t i)
{
  return t->dtype == TL_DTYPE_F64 ? ((const double *)tl_tensor_data(t))[i]
                                  : ((const float *)tl_tensor_data(t))[i];
}

static inline void tl_nn_set(tl_tensor *t, int64_t i, double v)
{
  if (t->dtype == TL_DTYPE_F64)
    ((double *)tl_tensor_data(t))[i] = v;
  else
    ((float *)tl_tensor_data(t))[i] = (float)v;
}

#endif
