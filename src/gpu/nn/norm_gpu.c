/* norm_gpu.c - the CUDA set of the normalisation ops (tl_norm.h): operands
 * made contiguous in the work dtype on the device (float for float32,
 * float16 and bfloat16, double for float64, as the CPU's kernels), the
 * kernels of norm.cu on the device's current stream, a result of a half
 * dtype cast last.  Per-channel batch statistics, dw and db come back from
 * the kernels as doubles on the device and are cast into their tensors
 * there; the running statistics are updated in place on the device.  No
 * step reads device memory on the host. */
#include "gpu/nn/tl_gpu_conv_pool_norm.h"

#ifdef TL_WITH_CUDA
#include <math.h>

#include "gpu/nn/tl_gpu_norm.h"
#include "gpu/tl_gpu_host.h"
#include "nn/norm/tl_norm.h"
#include "nn/tl_nn_work.h"

/* A (C,)-element slice of a contiguous double buffer, seen with `like`'s shape. */
static void slice_as(tl_tensor *out, const tl_tensor *buf, int64_t offset, const tl_tensor *like)
{
  tl_tensor_view_of(out, buf);
  out->offset += offset;
  out->ndim = like->ndim;
  for (int i = 0; i < like->ndim; i++)
    out->shape[i] = like->shape[i];
  tl_shape_contiguous_strides(out->ndim, out->shape, out->strides);
}

/* The job of spec s in the work dtype, every pointer NULL: the forward and
 * the backward set the operands they pass. */
static tl_gpu_norm_job norm_job(const tl_norm_spec *s, tl_dtype work)
{
  return (tl_gpu_norm_job){.N = s->N,
                           .C = s->C,
                           .S = s->S,
                           .G = s->G,
                           .per_channel = s->per_channel,
                           .rms = s->rms,
                           .train = s->train,
                           .f64 = work == TL_DTYPE_F64,
                           .eps = s->eps};
}

/* The job's shared-row split (tl_gpu_norm_parts) and its scratch *part. */
static tl_status plan_parts(tl_gpu_norm_job *job, tl_device dev, tl_tensor *part)
{
  int64_t rows = job->per_channel ? job->C : job->N * job->G;
  int64_t D = job->per_channel ? job->N * job->S : (job->G ? job->C / job->G : 0) * job->S;
  job->parts = tl_gpu_norm_parts(rows, D);
  if (job->parts <= 1)
    return TL_OK;
  int64_t n = rows * job->parts * 4;
  tl_status status = tl_tensor_empty(part, TL_DTYPE_F64, 1, &n, dev);
  job->part = status == TL_OK ? tl_tensor_data(part) : NULL;
  return status;
}

/* running = (1 - momentum) running + momentum * scale * batch, on the device,
 * through a work copy when running has another dtype or layout. */
static tl_status update_running(tl_tensor *running, const double *batch, double scale,
                                double momentum, void *stream)
{
  tl_tensor r = {0};
  tl_dtype work = tl_nn_work_dtype(running->dtype);
  tl_status status = tl_nn_work_in(running, work, &r);
  if (status == TL_OK)
    status =
        tl_gpu_launched(tl_gpu_norm_running_launch(tl_tensor_data(&r), work == TL_DTYPE_F64, batch,
                                                   tl_tensor_numel(&r), scale, momentum, stream),
                        "batch_norm");
  if (status == TL_OK && tl_tensor_data(&r) != tl_tensor_data(running))
    status = tl_tensor_copy(running, &r);
  tl_storage_bump(running->storage);
  tl_tensor_release(&r);
  return status;
}

static tl_status gpu_norm_forward(const tl_norm_spec *s, const tl_tensor *x, const tl_tensor *w,
                                  const tl_tensor *b, tl_tensor *running_mean,
                                  tl_tensor *running_var, tl_tensor *y, tl_tensor *mean,
                                  tl_tensor *rstd)
{
  tl_dtype work = tl_nn_work_dtype(x->dtype);
  tl_tensor xt = {0}, wt = {0}, bt = {0}, yt = {0}, batch = {0}, part = {0};
  bool direct = y->dtype == work, stats = s->per_channel && s->train;
  void *stream = NULL;
  int64_t two_c = 2 * s->C;
  tl_status status;
  if ((status = tl_nn_work_in(x, work, &xt)) != TL_OK ||
      (status = tl_nn_work_in(w, work, &wt)) != TL_OK ||
      (status = tl_nn_work_in(b, work, &bt)) != TL_OK ||
      (!direct &&
       (status = tl_tensor_empty(&yt, work, y->ndim, y->shape, tl_tensor_device(y))) != TL_OK) ||
      (stats &&
       (status = tl_tensor_empty(&batch, TL_DTYPE_F64, 1, &two_c, tl_tensor_device(x))) != TL_OK) ||
      (status = tl_gpu_stream(tl_tensor_device(x), "normalization", &stream)) != TL_OK)
    goto done;
  tl_gpu_norm_job job = norm_job(s, work);
  job.x = tl_tensor_data(&xt);
  job.w = tl_tensor_data(&wt);
  job.b = tl_tensor_data(&bt);
  job.y = tl_tensor_data(direct ? y : &yt);
  job.mean = mean ? tl_tensor_data(mean) : NULL;
  job.rstd = tl_tensor_data(rstd);
  job.batch = stats ? tl_tensor_data(&batch) : NULL;
  if ((status = plan_parts(&job, tl_tensor_device(x), &part)) != TL_OK ||
      (status = tl_gpu_launched(tl_gpu_norm_forward_launch(&job, stream), "normalization")) !=
          TL_OK)
    goto done;
  if (stats && running_mean) {
    int64_t D = s->N * s->S;
    double *bm = tl_tensor_data(&batch);
    if ((status = update_running(running_mean, bm, 1, s->momentum, stream)) != TL_OK ||
        (running_var &&
         (status = update_running(running_var, bm + s->C, D > 1 ? (double)D / (D - 1) : NAN,
                                  s->momentum, stream)) != TL_OK))
      goto done;
  }
  if (!direct)
    status = tl_tensor_copy(y, &yt);
done:
  tl_tensor_release(&xt);
  tl_tensor_release(&wt);
  tl_tensor_release(&bt);
  tl_tensor_release(&yt);
  tl_tensor_release(&batch);
  tl_tensor_release(&part);
  return status;
}

static tl_status gpu_norm_backward(const tl_norm_spec *s, const tl_tensor *g, const tl_tensor *x,
                                   const tl_tensor *mean, const tl_tensor *rstd, const tl_tensor *w,
                                   tl_tensor *dx, tl_tensor *dw, tl_tensor *db)
{
  tl_dtype work = tl_nn_work_dtype(x->dtype);
  tl_tensor xt = {0}, gt = {0}, wt = {0}, mt = {0}, rt = {0}, dxt = {0}, sums = {0}, part = {0};
  bool direct = dx->dtype == work;
  void *stream = NULL;
  int64_t two_c = 2 * s->C;
  tl_status status;
  if ((status = tl_nn_work_in(x, work, &xt)) != TL_OK ||
      (status = tl_nn_work_in(g, work, &gt)) != TL_OK ||
      (status = tl_nn_work_in(w, work, &wt)) != TL_OK ||
      (status = tl_nn_work_in(mean, work, &mt)) != TL_OK ||
      (status = tl_nn_work_in(rstd, work, &rt)) != TL_OK ||
      (!direct && (status = tl_tensor_empty(&dxt, work, dx->ndim, dx->shape,
                                            tl_tensor_device(dx))) != TL_OK) ||
      (dw &&
       (status = tl_tensor_empty(&sums, TL_DTYPE_F64, 1, &two_c, tl_tensor_device(x))) != TL_OK) ||
      (status = tl_gpu_stream(tl_tensor_device(x), "normalization backward", &stream)) != TL_OK)
    goto done;
  tl_gpu_norm_job job = norm_job(s, work);
  job.x = tl_tensor_data(&xt);
  job.g = tl_tensor_data(&gt);
  job.w = tl_tensor_data(&wt);
  job.y = tl_tensor_data(direct ? dx : &dxt);
  job.mean = mean ? tl_tensor_data(&mt) : NULL;
  job.rstd = tl_tensor_data(&rt);
  job.batch = dw && s->per_channel ? tl_tensor_data(&sums) : NULL;
  if ((status = plan_parts(&job, tl_tensor_device(x), &part)) != TL_OK ||
      (status = tl_gpu_launched(tl_gpu_norm_backward_launch(&job, stream),
                                "normalization backward")) != TL_OK ||
      (dw && !s->per_channel &&
       (status = tl_gpu_launched(tl_gpu_norm_affine_launch(&job, tl_tensor_data(&sums), stream),
                                 "normalization backward")) != TL_OK))
    goto done;
  if (dw) {
    tl_tensor vw, vb;
    slice_as(&vw, &sums, 0, dw);
    slice_as(&vb, &sums, s->C, db);
    status = tl_tensor_copy(dw, &vw);
    if (status == TL_OK)
      status = tl_tensor_copy(db, &vb);
    tl_tensor_release(&vw);
    tl_tensor_release(&vb);
    if (status != TL_OK)
      goto done;
  }
  if (!direct)
    status = tl_tensor_copy(dx, &dxt);
done:
  tl_tensor_release(&xt);
  tl_tensor_release(&gt);
  tl_tensor_release(&wt);
  tl_tensor_release(&mt);
  tl_tensor_release(&rt);
  tl_tensor_release(&dxt);
  tl_tensor_release(&sums);
  tl_tensor_release(&part);
  return status;
}

static tl_status gpu_lrn(const tl_lrn_spec *s, const tl_tensor *g, const tl_tensor *x,
                         tl_tensor *out)
{
  tl_dtype work = tl_nn_work_dtype(x->dtype);
  tl_tensor xt = {0}, gt = {0}, ot = {0}, p = {0}, t = {0};
  bool direct = out->dtype == work;
  void *stream = NULL;
  tl_device dev = tl_tensor_device(x);
  tl_status status;
  if ((status = tl_nn_work_in(x, work, &xt)) != TL_OK ||
      (status = tl_nn_work_in(g, work, &gt)) != TL_OK ||
      (!direct && (status = tl_tensor_empty(&ot, work, out->ndim, out->shape, dev)) != TL_OK) ||
      (g && ((status = tl_tensor_empty(&p, work, x->ndim, x->shape, dev)) != TL_OK ||
             (status = tl_tensor_empty(&t, work, x->ndim, x->shape, dev)) != TL_OK)) ||
      (status = tl_gpu_stream(dev, "local_response_norm", &stream)) != TL_OK)
    goto done;
  tl_gpu_lrn_job job = {.N = s->N,
                        .C = s->C,
                        .S = s->S,
                        .size = s->size,
                        .alpha = s->alpha,
                        .beta = s->beta,
                        .k = s->k,
                        .f64 = work == TL_DTYPE_F64,
                        .x = tl_tensor_data(&xt),
                        .g = g ? tl_tensor_data(&gt) : NULL,
                        .out = tl_tensor_data(direct ? out : &ot),
                        .p = g ? tl_tensor_data(&p) : NULL,
                        .t = g ? tl_tensor_data(&t) : NULL};
  if ((status = tl_gpu_launched(tl_gpu_lrn_launch(&job, stream), "local_response_norm")) != TL_OK)
    goto done;
  if (!direct)
    status = tl_tensor_copy(out, &ot);
done:
  tl_tensor_release(&xt);
  tl_tensor_release(&gt);
  tl_tensor_release(&ot);
  tl_tensor_release(&p);
  tl_tensor_release(&t);
  return status;
}

void tl_gpu_nn_norm_register(void)
{
  static const tl_nn_norm_kernels set = {
      .forward = gpu_norm_forward,
      .backward = gpu_norm_backward,
      .lrn = gpu_lrn,
  };
  tl_nn_norm_register_set(TL_DEVICE_CUDA, &set);
}
#endif
