/* nn_work.c - operands in a kernel's work dtype (tl_nn_work.h). */
#include "nn/tl_nn_work.h"

tl_status tl_nn_work_in(const tl_tensor *t, tl_dtype work, tl_tensor *out)
{
  *out = (tl_tensor){0};
  if (!t)
    return TL_OK;
  if (t->dtype == work && tl_tensor_is_contiguous(t)) {
    tl_tensor_view_of(out, t);
    return TL_OK;
  }
  return tl_tensor_to_dtype(out, t, work);
}

tl_status tl_nn_work_out(tl_tensor *t, tl_dtype dtype)
{
  if (t->dtype == dtype)
    return TL_OK;
  tl_tensor cast = {0};
  tl_status status = tl_tensor_to_dtype(&cast, t, dtype);
  tl_tensor_release(t);
  *t = cast;
  return status;
}
