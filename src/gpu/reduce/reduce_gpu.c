/* reduce_gpu.c - the CUDA rows of the reduce family, and the C side of its
 * launches: the reduction engine's device pass (reduce.cu), the index pass
 * of max/min along a dim and argmax/argmin (reduce.cu's index kinds), and
 * the scans' line pass (scan.cu).
 *
 * The op layer is the CPU's (reduce_ops.c, reduce_index.c, scan.c: result
 * dtypes, checks, errors, finishes as elementwise ops on the device), so the
 * CUDA rows are the CPU's kernel set; what differs is the three hooks set
 * here, through which that layer reaches memory host code cannot read.  */
#include "gpu/tl_gpu.h"

#ifdef TL_WITH_CUDA
#include "gpu/reduce/tl_gpu_reduce.h"
#include "gpu/tl_gpu_host.h"
#include "ndcore/dispatch/tl_dispatch.h"
#include "ndcore/kernels/tl_reduce.h"

_Static_assert((int)TL_GPU_RK_SUM == (int)TL_RK_SUM && (int)TL_GPU_RK_NANSUM == (int)TL_RK_NANSUM &&
                   (int)TL_GPU_RK_PROD == (int)TL_RK_PROD && (int)TL_GPU_RK_MAX == (int)TL_RK_MAX &&
                   (int)TL_GPU_RK_MIN == (int)TL_RK_MIN && (int)TL_GPU_RK_ALL == (int)TL_RK_ALL &&
                   (int)TL_GPU_RK_ANY == (int)TL_RK_ANY && (int)TL_GPU_RK_COUNT == (int)TL_RK_COUNT &&
                   (int)TL_GPU_RK_COUNT_NOTNAN == (int)TL_RK_COUNT_NOTNAN &&
                   (int)TL_GPU_RK_COUNT_ZERO == (int)TL_RK_COUNT_ZERO &&
                   (int)TL_GPU_RK_SQDEV == (int)TL_RK_SQDEV && (int)TL_GPU_RK_EXPSUM == (int)TL_RK_EXPSUM &&
                   (int)TL_GPU_RK_ABSSUM == (int)TL_RK_ABSSUM && (int)TL_GPU_RK_SQSUM == (int)TL_RK_SQSUM &&
                   (int)TL_GPU_RK_ABSMAX == (int)TL_RK_ABSMAX && (int)TL_GPU_RK_ABSMIN == (int)TL_RK_ABSMIN &&
                   (int)TL_GPU_RK_NONZERO == (int)TL_RK_NONZERO &&
                   (int)TL_GPU_RK_POWSUM == (int)TL_RK_POWSUM &&
                   (int)TL_GPU_RK_SUMPROD == (int)TL_RK_SUMPROD &&
                   (int)TL_GPU_RK_ARGMAX == (int)TL_RK_COUNT_,
               "tl_gpu_reduce.h's pass kinds are tl_rkind's, then the index kinds");

/* The split of a long reduced range (tl_gpu_reduce_plan.chunks): pieces of at
 * least TL_GPU_PIECE elements, about TL_GPU_WANT_BLOCKS blocks in all, enough
 * to keep every SM of a large GPU streaming.  Sizes alone decide, so a
 * reduction groups its sums the same way on every run (and every GPU). */
#define TL_GPU_PIECE 16384
#define TL_GPU_WANT_BLOCKS 2048

static int64_t chunks_for(int64_t outputs, int64_t per_output)
{
  if (outputs == 0 || outputs > TL_GPU_WANT_BLOCKS / 2 || per_output < 2 * TL_GPU_PIECE)
    return 1;
  int64_t c = per_output / TL_GPU_PIECE, cap = TL_GPU_WANT_BLOCKS / outputs;
  return c < cap ? c : cap;
}

/* Columns (tl_gpu_reduce_plan.columns): outputs side by side in memory, a
 * thread per piece of each; a piece of at least TL_GPU_COLUMN_RUN elements,
 * about TL_GPU_COLUMN_THREADS threads in all.  A warp's 32 outputs are the
 * least that makes its loads one transaction. */
#define TL_GPU_COLUMN_RUN 64
#define TL_GPU_COLUMN_THREADS (1 << 17)

static bool columns_for(const tl_gpu_reduce_plan *plan, int64_t itemsize)
{
  if (plan->nkept == 0 || plan->outputs < 32 || plan->kept_strides[plan->nkept - 1] != itemsize)
    return false;
  for (int d = 0; d < plan->nred; d++)
    if (plan->red_strides[d] < plan->kept_shape[plan->nkept - 1] * itemsize &&
        plan->red_strides[d] > -plan->kept_shape[plan->nkept - 1] * itemsize)
      return false; /* a reduced dim inside the contiguous row: the block kernel's case */
  return true;
}

static int64_t column_chunks(int64_t outputs, int64_t per_output)
{
  int64_t c = per_output / TL_GPU_COLUMN_RUN, cap = (TL_GPU_COLUMN_THREADS + outputs - 1) / outputs;
  c = c < cap ? c : cap;
  return c > 1 ? c : 1;
}

/* in's dims split into kept and reduced (mask), size-1 dims dropped. */
static tl_status plan_dims(tl_gpu_reduce_plan *plan, const tl_tensor *in, uint64_t mask)
{
  int64_t size = (int64_t)tl_dtype_size(in->dtype);
  for (int i = 0; i < in->ndim; i++) {
    bool reduced = mask >> i & 1;
    int *n = reduced ? &plan->nred : &plan->nkept;
    if (in->shape[i] == 1)
      continue;
    if (*n == TL_GPU_MAX_DIMS)
      return tl_error_set(TL_ERR_NOT_IMPLEMENTED, "reductions on CUDA index at most %d kept "
                          "and %d reduced dimensions", TL_GPU_MAX_DIMS, TL_GPU_MAX_DIMS);
    (reduced ? plan->red_shape : plan->kept_shape)[*n] = in->shape[i];
    (reduced ? plan->red_strides : plan->kept_strides)[*n] = in->strides[i] * size;
    ++*n;
  }
  plan->per_output = plan->outputs ? tl_tensor_numel(in) / plan->outputs : 0;
  if (tl_tensor_numel(in) == 0) /* an empty reduced dim: identity everywhere */
    plan->per_output = 0;
  plan->in = tl_tensor_data(in);
  plan->columns = columns_for(plan, size);
  plan->chunks = plan->columns ? column_chunks(plan->outputs, plan->per_output)
                               : chunks_for(plan->outputs, plan->per_output);
  return TL_OK;
}

/* One launch of kind over plan (dims and outputs set), with its scratch. */
static tl_status launch(int kind, tl_dtype loop, tl_gpu_reduce_plan *plan, tl_device device)
{
  tl_tensor scratch = {0};
  void *stream = NULL;
  if (tl_gpu_stream(device, "reduction", &stream) != TL_OK)
    return tl_error_status();
  if (plan->chunks > 1) {
    int64_t bytes = plan->outputs * plan->chunks * TL_GPU_REDUCE_PART;
    if (tl_tensor_empty(&scratch, TL_DTYPE_U8, 1, &bytes, device) != TL_OK)
      return tl_error_status();
    plan->scratch = tl_tensor_data(&scratch);
  }
  int err = tl_gpu_reduce_launch(kind, loop, plan, stream);
  /* The pool reuses scratch only after this stream's work on it is done. */
  if (scratch.storage)
    tl_tensor_release(&scratch);
  return err < 0 ? tl_dispatch_no_kernel("reduction", device, loop) : tl_gpu_launched(err, "reduction");
}

/* The engine's pass on CUDA: the input cast to the loop dtype on the device
 * when it differs, then one launch. */
static tl_status gpu_reduce_pass(tl_rkind kind, const tl_tensor *in, uint64_t mask, tl_dtype loop,
                                 tl_tensor *acc, const tl_tensor *aux, void *data)
{
  tl_tensor cast = {0};
  tl_gpu_reduce_plan plan = {0};
  tl_status status = TL_OK;
  if (in->dtype != loop) {
    if (tl_tensor_to_dtype(&cast, in, loop) != TL_OK)
      return tl_error_status();
    in = &cast;
  }
  plan.outputs = tl_tensor_numel(acc);
  if ((status = plan_dims(&plan, in, mask)) != TL_OK)
    goto done;
  plan.acc = tl_tensor_data(acc);
  plan.aux = aux ? tl_tensor_data(aux) : NULL;
  plan.aux_size = aux ? (int64_t)tl_dtype_size(aux->dtype) : 0;
  plan.p = kind == TL_RK_POWSUM ? *(const double *)data : 0.0;
  tl_storage_bump(acc->storage);
  status = launch((int)kind, loop, &plan, tl_tensor_device(acc));
done:
  if (cast.storage)
    tl_tensor_release(&cast);
  return status;
}

/* max/min along dim with the index (reduce_index.c): in is a real dtype the
 * kinds run (half types arrive as float32); values may be NULL. */
static tl_status gpu_index_pass(bool is_max, const tl_tensor *in, int dim, tl_tensor *values,
                                tl_tensor *indices)
{
  tl_gpu_reduce_plan plan = {0};
  plan.outputs = tl_tensor_numel(indices);
  if (plan_dims(&plan, in, in->ndim ? (uint64_t)1 << dim : 0) != TL_OK)
    return tl_error_status();
  plan.acc = values ? tl_tensor_data(values) : NULL;
  plan.index = tl_tensor_data(indices);
  tl_storage_bump(indices->storage);
  if (values)
    tl_storage_bump(values->storage);
  return launch(is_max ? TL_GPU_RK_ARGMAX : TL_GPU_RK_ARGMIN, in->dtype, &plan,
                tl_tensor_device(indices));
}

/* cumsum/cumprod's lines (scan.c), in place in the contiguous work tensor. */
static tl_status gpu_scan_pass(bool prod, tl_tensor *work, int64_t len, int64_t inner)
{
  tl_device device = tl_tensor_device(work);
  int64_t lines = len ? tl_tensor_numel(work) / len : 0;
  tl_tensor scratch = {0};
  void *stream = NULL;
  const char *name = prod ? "cumprod" : "cumsum";
  if (tl_gpu_stream(device, name, &stream) != TL_OK)
    return tl_error_status();
  int64_t bytes = (int64_t)tl_gpu_scan_scratch(work->dtype, lines, len, inner);
  if (bytes > 0 && tl_tensor_empty(&scratch, TL_DTYPE_U8, 1, &bytes, device) != TL_OK)
    return tl_error_status();
  tl_storage_bump(work->storage);
  int err = tl_gpu_scan_launch(work->dtype, prod, tl_tensor_data(work), lines, len, inner,
                               bytes > 0 ? tl_tensor_data(&scratch) : NULL, (size_t)bytes, stream);
  if (scratch.storage)
    tl_tensor_release(&scratch);
  return err < 0 ? tl_dispatch_no_kernel(name, device, work->dtype) : tl_gpu_launched(err, name);
}

void tl_gpu_reduce_register(void)
{
  tl_reduce_device_pass[TL_DEVICE_CUDA] = gpu_reduce_pass;
  tl_reduce_index_device[TL_DEVICE_CUDA] = gpu_index_pass;
  tl_scan_device[TL_DEVICE_CUDA] = gpu_scan_pass;
  tl_reduce_serve(TL_DEVICE_CUDA); /* the op layer is device-neutral: the CPU's set */
}
#endif
