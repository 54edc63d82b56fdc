/* index_gpu.c - the CUDA index primitives' C side: each pass's plan, stream
 * and parameters, and their registration (the index ops on CUDA are the
 * CPU's op layer over these passes; tl_index.h, index_device.c).        */
#include "gpu/index/tl_gpu_index.h"

#ifdef TL_WITH_CUDA
#include "gpu/tl_gpu_host.h"
#include "ndcore/dispatch/tl_kernel_sets.h"
#include "ndcore/tensor/tl_backend.h"

_Static_assert((int)TL_GPU_REDUCE_NONE == (int)TL_INDEX_REDUCE_NONE &&
                   (int)TL_GPU_REDUCE_ADD == (int)TL_INDEX_REDUCE_ADD &&
                   (int)TL_GPU_REDUCE_MUL == (int)TL_INDEX_REDUCE_MUL &&
                   (int)TL_GPU_REDUCE_AMAX == (int)TL_INDEX_REDUCE_AMAX &&
                   (int)TL_GPU_REDUCE_AMIN == (int)TL_INDEX_REDUCE_AMIN,
               "tl_gpu_index.h's reductions are tl_index_reduce's");

/* The plan of n operands on the device of ops[0], and that device's stream. */
static tl_status plan_of(tl_gpu_plan *plan, int n, const tl_tensor *const *ops, const char *what,
                         void **stream)
{
  tl_iter it;
  if (tl_iter_init(&it, n, ops, NULL) != TL_OK || tl_gpu_plan_from_iter(plan, &it, what) != TL_OK)
    return tl_error_status();
  return tl_gpu_stream(it.device, what, stream);
}

/* A launcher's answer: -1 is a dtype it has no kernel for. */
static tl_status launched(int err, const char *what, const tl_tensor *t)
{
  if (err < 0)
    return tl_dispatch_no_kernel(what, tl_tensor_device(t), t->dtype);
  return tl_gpu_launched(err, what);
}

static tl_status gpu_offsets(const tl_tensor *off, const tl_tensor *idx,
                             const tl_index_offsets_args *a)
{
  const char *what = tl_device_errors_current();
  const tl_tensor *ops[2] = {off, idx};
  tl_gpu_plan plan;
  void *stream;
  tl_device_error *word;
  if (plan_of(&plan, 2, ops, what, &stream) != TL_OK ||
      tl_device_errors_word(tl_tensor_device(off), stream, &word) != TL_OK)
    return tl_error_status();
  tl_gpu_offsets_params p = {.size = a->size, .stride = a->stride, .wrap = a->wrap,
                             .first = a->first, .dim = a->dim,
                             .op = tl_device_errors_op(what), .status = (int)a->err,
                             .err = word};
  return launched(tl_gpu_index_offsets_launch(&plan, &p, stream), what, off);
}

static tl_status gpu_move(bool scatter, const tl_tensor *data, const tl_tensor *base,
                          const tl_tensor *off, tl_index_reduce reduce)
{
  const char *what = tl_device_errors_current();
  const tl_tensor *gather_ops[3] = {data, base, off}, *scatter_ops[3] = {off, base, data};
  tl_gpu_plan plan;
  void *stream;
  if (plan_of(&plan, 3, scatter ? scatter_ops : gather_ops, what, &stream) != TL_OK)
    return tl_error_status();
  return launched(tl_gpu_index_move_launch(&plan, scatter, data->dtype, (int)reduce, stream), what,
                  data);
}

/* The flagged positions through CUB, their count read by the host (the one
 * synchronization: the result's shape depends on it), then coordinates. */
static tl_status gpu_nonzero(tl_tensor *out, const tl_tensor *mask)
{
  const tl_device device = tl_tensor_device(mask);
  const int64_t n = tl_tensor_numel(mask);
  tl_tensor linear = {0}, count = {0}, temp = {0};
  size_t temp_bytes = 0;
  void *stream;
  tl_scalar nnz = {.kind = TL_KIND_INT, .v.i = 0};
  tl_status status = tl_gpu_stream(device, "nonzero", &stream);
  if (status == TL_OK && n > 0) {
    status = tl_tensor_empty(&linear, TL_DTYPE_I64, 1, &n, device);
    if (status == TL_OK)
      status = tl_tensor_empty(&count, TL_DTYPE_I64, 0, NULL, device);
    if (status == TL_OK)
      status = tl_gpu_launched(tl_gpu_index_select_flagged(NULL, &temp_bytes, tl_tensor_data(mask),
                                                           tl_tensor_data(&linear),
                                                           tl_tensor_data(&count), n, stream),
                               "nonzero");
    int64_t tb = (int64_t)temp_bytes > 0 ? (int64_t)temp_bytes : 1;
    if (status == TL_OK)
      status = tl_tensor_empty(&temp, TL_DTYPE_U8, 1, &tb, device);
    if (status == TL_OK)
      status = tl_gpu_launched(tl_gpu_index_select_flagged(tl_tensor_data(&temp), &temp_bytes,
                                                           tl_tensor_data(mask),
                                                           tl_tensor_data(&linear),
                                                           tl_tensor_data(&count), n, stream),
                               "nonzero");
    if (status == TL_OK)
      status = tl_backend_read_scalar(&count, &nnz);
  }
  if (status == TL_OK)
    status = tl_tensor_empty(out, TL_DTYPE_I64, 2, (int64_t[]){nnz.v.i, mask->ndim}, device);
  if (status == TL_OK && nnz.v.i > 0) {
    status = tl_gpu_launched(tl_gpu_index_coords_launch(tl_tensor_data(out), tl_tensor_data(&linear),
                                                        nnz.v.i, mask->ndim, mask->shape, stream),
                             "nonzero");
    if (status != TL_OK)
      tl_tensor_release(out);
  }
  tl_tensor_release(&temp);
  tl_tensor_release(&count);
  tl_tensor_release(&linear);
  return status;
}

static tl_status gpu_masked_fill(tl_tensor *self, const tl_tensor *mask, const tl_tensor *value)
{
  const tl_tensor *ops[4] = {self, mask, value, self};
  tl_gpu_plan plan;
  void *stream;
  if (plan_of(&plan, 4, ops, "masked_fill_", &stream) != TL_OK)
    return tl_error_status();
  tl_storage_bump(self->storage);
  return launched(tl_gpu_index_masked_fill_launch(&plan, (int)tl_dtype_size(self->dtype), stream),
                  "masked_fill_", self);
}

static tl_status gpu_mean_divide(tl_tensor *self, const tl_tensor *count)
{
  const tl_tensor *ops[2] = {self, count};
  tl_gpu_plan plan;
  void *stream;
  if (plan_of(&plan, 2, ops, "scatter_reduce", &stream) != TL_OK)
    return tl_error_status();
  return launched(tl_gpu_index_mean_divide_launch(&plan, self->dtype, stream), "scatter_reduce",
                  self);
}

static tl_status gpu_scale(tl_tensor *out, const tl_tensor *src, tl_scalar alpha)
{
  const tl_tensor *ops[2] = {out, src};
  tl_gpu_plan plan;
  void *stream;
  TL_GPU_ALIGN16 unsigned char value[16] = {0};
  if (plan_of(&plan, 2, ops, "index_add", &stream) != TL_OK)
    return tl_error_status();
  tl_scalar_store(alpha, src->dtype, (char *)value);
  return launched(tl_gpu_index_scale_launch(&plan, src->dtype, value, stream), "index_add", src);
}

void tl_gpu_index_register(void)
{
  static const tl_index_device_kernels prims = {
      .offsets = gpu_offsets,         .move = gpu_move,
      .nonzero = gpu_nonzero,         .masked_fill = gpu_masked_fill,
      .mean_divide = gpu_mean_divide, .scale = gpu_scale,
  };
  tl_index_register_device(TL_DEVICE_CUDA, &prims);
}
#else
void tl_gpu_index_register(void) {} /* no CUDA in the build */
#endif
