/* dropout_gpu.c - the CUDA row of dropout and its backward (src/nn/dropout):
 * the CPU's work dtypes (float, double for float64) through contiguous work
 * copies, the counters reserved exactly as the CPU reserves them, and the
 * kernels of dropout.cu, so a generator state gives the CPU's mask.        */
#include "gpu/tl_gpu.h"

#ifdef TL_WITH_CUDA
#include <math.h>

#include "gpu/random/tl_gpu_random.h"
#include "gpu/tl_gpu_host.h"
#include "nn/dropout/tl_dropout.h"

/* t itself when it is already a contiguous `work` tensor, else a work copy
 * in tmp (NULL with the error on failure); `fresh` leaves the copy's values
 * unset (an output). */
static tl_tensor *work_of(const tl_tensor *t, tl_dtype work, bool fresh, tl_tensor *tmp)
{
  if (t->dtype == work && tl_tensor_is_contiguous(t))
    return (tl_tensor *)t;
  tl_status s = fresh ? tl_tensor_empty(tmp, work, t->ndim, t->shape, tl_tensor_device(t))
                      : tl_tensor_to_dtype(tmp, t, work);
  return s == TL_OK ? tmp : NULL;
}

static tl_dtype work_dtype(const tl_tensor *t)
{
  return t->dtype == TL_DTYPE_F64 ? TL_DTYPE_F64 : TL_DTYPE_F32;
}

static tl_status gpu_dropout(tl_generator *gen, const tl_dropout_params *p, const tl_tensor *x,
                             tl_tensor *y, tl_tensor *mask)
{
  tl_dtype work = work_dtype(x);
  tl_tensor xt = {0}, yt = {0};
  void *stream = NULL;
  tl_status status = TL_OK;
  const tl_tensor *xw = work_of(x, work, false, &xt);
  tl_tensor *yw = xw ? work_of(y, work, true, &yt) : NULL;
  int64_t nmask = tl_tensor_numel(mask);
  if (!yw || tl_gpu_stream(tl_tensor_device(x), "dropout", &stream) != TL_OK) {
    status = tl_error_status();
    goto done;
  }
  if (nmask > 0) {
    /* keep when word / 2^32 < keep_prob, as the CPU (and bernoulli_) decide */
    uint64_t seed, threshold = (uint64_t)ceil(p->keep_prob * 4294967296.0);
    uint64_t first = tl_generator_reserve(gen, (uint64_t)(nmask + 3) / 4, &seed);
    tl_storage_bump(y->storage);
    tl_storage_bump(mask->storage);
    status = tl_gpu_launched(
        tl_gpu_dropout_launch(work == TL_DTYPE_F64, tl_tensor_data(xw), tl_tensor_data(yw),
                              tl_tensor_data(mask), nmask, tl_tensor_numel(x) / nmask, seed,
                              first, threshold, p->keep_scale, p->keep_shift, p->drop_value,
                              stream),
        "dropout");
  }
  if (status == TL_OK && yw != y)
    status = tl_tensor_copy(y, yw);
done:
  tl_tensor_release(&xt);
  tl_tensor_release(&yt);
  return status;
}

static tl_status gpu_dropout_backward(const tl_tensor *g, const tl_tensor *mask, double scale,
                                      tl_tensor *dx)
{
  tl_dtype work = work_dtype(g);
  tl_tensor gt = {0}, mt = {0}, dt = {0};
  void *stream = NULL;
  tl_status status = TL_OK;
  const tl_tensor *gw = work_of(g, work, false, &gt);
  const tl_tensor *mw = gw ? work_of(mask, TL_DTYPE_BOOL, false, &mt) : NULL;
  tl_tensor *dw = mw ? work_of(dx, work, true, &dt) : NULL;
  int64_t nmask = tl_tensor_numel(mask);
  if (!dw || tl_gpu_stream(tl_tensor_device(g), "native_dropout_backward", &stream) != TL_OK) {
    status = tl_error_status();
    goto done;
  }
  if (nmask > 0) {
    tl_storage_bump(dx->storage);
    status = tl_gpu_launched(
        tl_gpu_dropout_backward_launch(work == TL_DTYPE_F64, tl_tensor_data(gw),
                                       tl_tensor_data(dw), tl_tensor_data(mw), nmask,
                                       tl_tensor_numel(g) / nmask, scale, stream),
        "native_dropout_backward");
  }
  if (status == TL_OK && dw != dx)
    status = tl_tensor_copy(dx, dw);
done:
  tl_tensor_release(&gt);
  tl_tensor_release(&mt);
  tl_tensor_release(&dt);
  return status;
}

void tl_gpu_dropout_register(void)
{
  static const tl_nn_dropout_kernels set = {
      .forward = gpu_dropout,
      .backward = gpu_dropout_backward,
  };
  tl_dispatch_register_set(TL_OP_DROPOUT, TL_DEVICE_CUDA, TL_DTYPES_ALL, &set);
  tl_dispatch_register_set(TL_OP_DROPOUT_BACKWARD, TL_DEVICE_CUDA, TL_DTYPES_ALL, &set);
}
#endif
