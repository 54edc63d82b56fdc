/* pool_gpu.c - the CUDA set of the pooling and resampling ops (tl_pool.h):
 * the host's tap tables (taps.c) copied to the device in one buffer, the
 * operands made contiguous in the work dtype there (float for float32,
 * float16 and bfloat16, double for float64), the kernels of pool.cu on the
 * device's current stream, a result of a half dtype cast last.
 *
 * The tables go up with an asynchronous copy from pageable memory, which
 * CUDA stages before returning, so the host buffer may be freed at once and
 * the copy stays ordered on the stream (no host sync).  The scatter (max
 * pooling's backward, max_unpool) records an index out of range in the
 * device's error record, raised at the next synchronization in the CPU's
 * words (tl_device_errors.h), instead of reading a flag back on every call. */
#include "gpu/nn/tl_gpu_conv_pool_norm.h"

#ifdef TL_WITH_CUDA
#include <stdlib.h>
#include <string.h>

#include "gpu/nn/tl_gpu_pool.h"
#include "gpu/tl_gpu_host.h"
#include "ndcore/kernels/tl_create.h"
#include "ndcore/tensor/tl_backend.h"
#include "nn/pool/tl_pool.h"
#include "nn/tl_nn_work.h"

enum { D3 = TL_NN_POOL_MAX_DIMS };

static int64_t planes_of(const tl_tensor *t, int n)
{
  int64_t b = 1;
  for (int i = 0; i < t->ndim - n; i++)
    b *= t->shape[i];
  return b;
}

static int64_t index_count(const tl_nn_taps *t, int64_t B)
{
  return (t->plane_stride ? B : 1) * t->out * t->k;
}

/* taps[0..n) on the device as out[0..n) (all in one int64 buffer *buf):
 * their indices, weights (when weighted) and, when inverse, the inverted
 * tables of the transposed pass.  A unit dim's one tap {0} is appended, for
 * the padded dims of window_max. */
static tl_status upload_taps(const tl_nn_taps *taps, int n, int64_t B, bool inverse, tl_device dev,
                             tl_tensor *buf, tl_gpu_taps *out, const int64_t **unit)
{
  int64_t total = 1, at = 0;
  for (int d = 0; d < n; d++) {
    int64_t cnt = index_count(&taps[d], B);
    total += cnt * (taps[d].weight ? 2 : 1) + (inverse ? taps[d].in + 1 + cnt : 0);
  }
  int64_t *host = calloc((size_t)total, sizeof *host), *cursor = NULL;
  tl_status status = host ? TL_OK : tl_error_set(TL_ERR_MEMORY, "pooling: out of memory");
  if (status == TL_OK)
    status = tl_tensor_empty(buf, TL_DTYPE_I64, 1, &total, dev);
  if (status != TL_OK) {
    free(host);
    return status;
  }
  int64_t *base = tl_tensor_data(buf);
  size_t offs[D3][4] = {{0}};
  for (int d = 0; d < n; d++) {
    const tl_nn_taps *t = &taps[d];
    int64_t cnt = index_count(t, B);
    offs[d][0] = (size_t)at;
    memcpy(host + at, t->index, (size_t)cnt * sizeof *host);
    at += cnt;
    if (t->weight) {
      offs[d][1] = (size_t)at;
      memcpy(host + at, t->weight, (size_t)cnt * sizeof *host);
      at += cnt;
    }
    if (!inverse)
      continue;
    /* counting sort of the taps by the position they read, stable in tap order */
    int64_t *start = host + at, *list = start + t->in + 1;
    offs[d][2] = (size_t)at;
    offs[d][3] = (size_t)(at + t->in + 1);
    for (int64_t e = 0; e < cnt; e++)
      if (t->index[e] >= 0)
        start[t->index[e] + 1]++;
    for (int64_t p = 0; p < t->in; p++)
      start[p + 1] += start[p];
    if (!(cursor = malloc((size_t)(t->in + 1) * sizeof *cursor))) {
      status = tl_error_set(TL_ERR_MEMORY, "pooling: out of memory");
      goto done;
    }
    memcpy(cursor, start, (size_t)(t->in + 1) * sizeof *cursor);
    for (int64_t e = 0; e < cnt; e++)
      if (t->index[e] >= 0)
        list[cursor[t->index[e]]++] = e;
    free(cursor);
    cursor = NULL;
    at += t->in + 1 + cnt;
  }
  host[at] = 0; /* the unit dim's tap */
  for (int d = 0; d < n; d++)
    out[d] = (tl_gpu_taps){.in = taps[d].in,
                           .out = taps[d].out,
                           .k = taps[d].k,
                           .plane_stride = taps[d].plane_stride,
                           .index = base + offs[d][0],
                           .weight = taps[d].weight ? (const double *)(base + offs[d][1]) : NULL,
                           .rstart = inverse ? base + offs[d][2] : NULL,
                           .rtap = inverse ? base + offs[d][3] : NULL};
  *unit = base + at;
  void *stream = NULL;
  const tl_backend *b = tl_backend_get(dev);
  if (!b || tl_gpu_stream(dev, "pooling", &stream) != TL_OK) {
    status = tl_error_status();
    goto done;
  }
  status = b->copy_from_host(dev, base, host, (size_t)total * sizeof *host, stream, true);
done:
  free(host);
  if (status != TL_OK)
    tl_tensor_release(buf);
  return status;
}

static tl_status gpu_window_max(const tl_tensor *in, int n, const tl_nn_taps *taps, tl_tensor *out,
                                tl_tensor *indices)
{
  tl_dtype work = tl_nn_work_dtype(in->dtype);
  tl_tensor xt = {0}, yt = {0}, buf = {0};
  tl_gpu_taps t3[D3], tn[D3];
  const int64_t *unit = NULL;
  bool direct = out->dtype == work;
  void *stream = NULL;
  int64_t B = planes_of(out, n);
  tl_status status;
  if ((status = tl_nn_work_in(in, work, &xt)) != TL_OK ||
      (!direct && (status = tl_tensor_empty(&yt, work, out->ndim, out->shape,
                                            tl_tensor_device(out))) != TL_OK) ||
      (status = upload_taps(taps, n, B, false, tl_tensor_device(in), &buf, tn, &unit)) != TL_OK ||
      (status = tl_gpu_stream(tl_tensor_device(in), "max pooling", &stream)) != TL_OK)
    goto done;
  for (int d = 0; d < D3; d++) { /* padded to three dims, the first 3 - n of size 1 */
    int s = d - (D3 - n);
    t3[d] = s >= 0 ? tn[s] : (tl_gpu_taps){.in = 1, .out = 1, .k = 1, .index = unit};
  }
  tl_storage_bump(out->storage);
  tl_storage_bump(indices->storage);
  if ((status = tl_gpu_launched(
           tl_gpu_pool_max_launch(tl_tensor_data(&xt), tl_tensor_data(direct ? out : &yt),
                                  tl_tensor_data(indices), B, t3, work == TL_DTYPE_F64, stream),
           "max pooling")) != TL_OK)
    goto done;
  if (!direct)
    status = tl_tensor_copy(out, &yt);
done:
  tl_tensor_release(&xt);
  tl_tensor_release(&yt);
  tl_tensor_release(&buf);
  return status;
}

static tl_status gpu_weighted(const tl_tensor *in, int n, const tl_nn_taps *taps, bool transpose,
                              tl_tensor *out)
{
  tl_dtype work = tl_nn_work_dtype(in->dtype);
  tl_tensor xt = {0}, yt = {0}, buf = {0}, steps[2] = {{0}};
  tl_gpu_taps tn[D3];
  const int64_t *unit = NULL;
  bool direct = out->dtype == work;
  void *stream = NULL;
  tl_device dev = tl_tensor_device(in);
  tl_status status;
  /* PyTorch's CUDA kernels take neither (its CPU's do: pool_cpu.c) */
  if (in->dtype == TL_DTYPE_I64)
    return tl_error_set(TL_ERR_NOT_IMPLEMENTED, "\"avg_pool%dd_out_cuda_frame\" not implemented "
                        "for 'Long'", n == 3 ? 3 : 2);
  if (taps[0].precision > 0)
    return tl_error_set(TL_ERR_NOT_IMPLEMENTED, "uint8 bilinear and bicubic interpolation have "
                        "no CUDA kernel (nor in PyTorch): convert the input to a floating dtype");
  if ((status = tl_nn_work_in(in, work, &xt)) != TL_OK ||
      (!direct && (status = tl_tensor_empty(&yt, work, out->ndim, out->shape, dev)) != TL_OK))
    goto done;
  tl_tensor *y = direct ? out : &yt;
  int64_t B = planes_of(in, n), cur[D3];
  tl_storage_bump(out->storage);
  if (B == 0 || tl_tensor_numel(out) == 0 || tl_tensor_numel(in) == 0) {
    /* an empty input spreads nothing: zeros */
    if (tl_tensor_numel(out) > 0)
      status = tl_tensor_fill(y, (tl_scalar){.kind = TL_KIND_INT, .v.i = 0});
    goto copy;
  }
  if ((status = upload_taps(taps, n, B, transpose, dev, &buf, tn, &unit)) != TL_OK ||
      (status = tl_gpu_stream(dev, "pooling", &stream)) != TL_OK)
    goto done;
  for (int d = 0; d < n; d++)
    cur[d] = transpose ? taps[d].out : taps[d].in;
  int order[D3]; /* the CPU's order, so that sums round as the CPU's */
  tl_nn_taps_pass_order(n, taps, transpose, cur, order);
  const void *src = tl_tensor_data(&xt);
  for (int step = 0; step < n; step++) {
    int d = order[step];
    int64_t outer, inner;
    tl_nn_taps_pass_step(n, taps, transpose, d, B, cur, &outer, &inner);
    tl_tensor *dst = y;
    if (step < n - 1) {
      dst = &steps[step % 2];
      int64_t size = outer * cur[d] * inner;
      tl_tensor_release(dst); /* the pass before last's source, queued before on the stream */
      if ((status = tl_tensor_empty(dst, work, 1, &size, dev)) != TL_OK)
        goto done;
    }
    if ((status =
             tl_gpu_launched(tl_gpu_pool_pass_launch(src, tl_tensor_data(dst), outer, inner, &tn[d],
                                                     transpose, work == TL_DTYPE_F64, stream),
                             "pooling")) != TL_OK)
      goto done;
    src = tl_tensor_data(dst);
  }
copy:
  if (status == TL_OK && !direct)
    status = tl_tensor_copy(out, &yt);
done:
  tl_tensor_release(&xt);
  tl_tensor_release(&yt);
  tl_tensor_release(&buf);
  tl_tensor_release(&steps[0]);
  tl_tensor_release(&steps[1]);
  return status;
}

static tl_status gpu_scatter(const tl_tensor *src, const tl_tensor *indices, int n, bool accumulate,
                             tl_tensor *out)
{
  const char *outer = tl_device_errors_enter(accumulate ? "max_pool_backward" : "max_unpool");
  tl_dtype work = tl_nn_work_dtype(src->dtype);
  tl_tensor xt = {0}, it = {0}, yt = {0};
  bool direct = out->dtype == work;
  void *stream = NULL;
  tl_device dev = tl_tensor_device(src);
  int64_t len = 1, size = 1, B = planes_of(out, n);
  tl_gpu_pool_bad bad = {.n = n, .status = (int)TL_ERR_RUNTIME};
  tl_status status = TL_OK;
  for (int d = 0; d < n; d++) {
    len *= src->shape[src->ndim - n + d];
    size *= out->shape[out->ndim - n + d];
    bad.extent[d < 3 ? d : 2] = out->shape[out->ndim - n + d];
  }
  if ((status = tl_nn_work_in(src, work, &xt)) != TL_OK ||
      (status = tl_nn_work_in(indices, TL_DTYPE_I64, &it)) != TL_OK ||
      (!direct && (status = tl_tensor_empty(&yt, work, out->ndim, out->shape, dev)) != TL_OK) ||
      (status = tl_gpu_stream(dev, "max_unpool", &stream)) != TL_OK)
    goto done;
  if (B * size == 0)
    goto done;
  if ((status = tl_device_errors_word(dev, stream, &bad.err)) != TL_OK)
    goto done;
  bad.op = tl_device_errors_op(tl_device_errors_current());
  tl_storage_bump(out->storage);
  if ((status = tl_gpu_launched(
           tl_gpu_pool_scatter_launch(tl_tensor_data(&xt), tl_tensor_data(&it),
                                      tl_tensor_data(direct ? out : &yt), B, len, size, accumulate,
                                      work == TL_DTYPE_F64, bad, stream),
           "max_unpool")) != TL_OK)
    goto done;
  if (!direct)
    status = tl_tensor_copy(out, &yt);
done:
  tl_tensor_release(&xt);
  tl_tensor_release(&it);
  tl_tensor_release(&yt);
  return tl_device_errors_leave(outer, dev, status);
}

void tl_gpu_nn_pool_register(void)
{
  static const tl_nn_pool_kernels set = {
      .window_max = gpu_window_max,
      .weighted = gpu_weighted,
      .scatter = gpu_scatter,
  };
  tl_nn_pool_register_set(TL_DEVICE_CUDA, &set);
}
#endif
