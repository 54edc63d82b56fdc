/* index_device.c - the index ops on devices other than the CPU.
 *
 * The ops are the CPU's (index.c, index_ops.c: plans, checks, shapes),
 * whose element passes go to the device's primitives (tl_index.h).  Each
 * entry of the set below names its op for the device's error record
 * (gpu/tl_device_errors.h), so a bad index found by a kernel is reported
 * as gather's, take's ..., not as the inner index op's.                    */
#include "gpu/tl_device_errors.h"
#include "ndcore/dispatch/tl_kernel_sets.h"

static const tl_index_device_kernels *prims[TL_DEVICE_COUNT];

const tl_index_device_kernels *tl_index_device_prims(const char *what, tl_device device,
                                                     tl_dtype dtype)
{
  const tl_index_device_kernels *k = prims[device.type];
  if (!k)
    tl_dispatch_no_kernel(what, device, dtype);
  return k;
}

/* Run CALL on tensor T's device with the op named NAME (unless an outer
 * entry named one). */
#define NAMED(NAME, T, CALL)                                                                 \
  do {                                                                                       \
    const char *outer = tl_device_errors_enter(NAME);                                        \
    tl_status status = CALL;                                                                 \
    return tl_device_errors_leave(outer, tl_tensor_device(T), status);                       \
  } while (0)

static tl_status get(tl_tensor *out, const tl_tensor *self, int n, const tl_index_item *items,
                     bool *is_view)
{
  NAMED("index", self, tl_cpu_index_get(out, self, n, items, is_view));
}
static tl_status put(tl_tensor *self, int n, const tl_index_item *items, const tl_tensor *value,
                     bool accumulate)
{
  NAMED("index_put_", self, tl_cpu_index_put(self, n, items, value, accumulate));
}
static tl_status nonzero(tl_tensor *out, const tl_tensor *in)
{
  NAMED("nonzero", in, tl_cpu_index_nonzero(out, in));
}
static tl_status gather(tl_tensor *out, const tl_tensor *in, int64_t dim, const tl_tensor *index)
{
  NAMED("gather", in, tl_cpu_index_gather(out, in, dim, index));
}
static tl_status scatter(const char *op, tl_tensor *self, int64_t dim, const tl_tensor *index,
                         const tl_tensor *src, tl_index_reduce reduce, bool include_self)
{
  NAMED(op, self, tl_cpu_index_scatter(op, self, dim, index, src, reduce, include_self));
}
static tl_status select(tl_tensor *out, const tl_tensor *in, int64_t dim, const tl_tensor *index)
{
  NAMED("index_select", in, tl_cpu_index_select(out, in, dim, index));
}
static tl_status put_along(const char *op, tl_tensor *self, int64_t dim, const tl_tensor *index,
                           const tl_tensor *src, tl_index_reduce reduce)
{
  NAMED(op, self, tl_cpu_index_put_along(op, self, dim, index, src, reduce));
}
static tl_status take(tl_tensor *out, const tl_tensor *in, const tl_tensor *index)
{
  NAMED("take", in, tl_cpu_index_take(out, in, index));
}
static tl_status put_flat(tl_tensor *self, const tl_tensor *index, const tl_tensor *src,
                          bool accumulate)
{
  NAMED("put_", self, tl_cpu_index_put_flat(self, index, src, accumulate));
}
static tl_status take_along_dim(tl_tensor *out, const tl_tensor *in, const tl_tensor *index,
                                int64_t dim, bool has_dim)
{
  NAMED("take_along_dim", in, tl_cpu_index_take_along_dim(out, in, index, dim, has_dim));
}
#undef NAMED

static const tl_index_kernels device_set = {
    .index_get = get,
    .index_put = put,
    .index_nonzero = nonzero,
    .index_gather = gather,
    .index_scatter = scatter,
    .index_select = select,
    .index_put_along = put_along,
    .index_take = take,
    .index_put_flat = put_flat,
    .index_take_along_dim = take_along_dim,
    .index_masked_fill = tl_cpu_index_masked_fill,
    .index_masked_scatter = tl_cpu_index_masked_scatter,
    .index_masked_select = tl_cpu_index_masked_select,
};

void tl_index_register_device(tl_device_type type, const tl_index_device_kernels *k)
{
  prims[type] = k;
  for (size_t i = 0; i < tl_index_op_count; i++)
    tl_dispatch_register_set(tl_index_ops[i], type, TL_DTYPES_ALL, &device_set);
}
