/* dispatch.c - the (op, device type, dtype) kernel table and its one check
 * (see tl_dispatch.h).  The table is written at import, before any op runs,
 * and by the fake device's test hook; it is read without locks. */
#include <stdio.h>
#include <string.h>

#include "gpu/tl_gpu.h"
#include "ndcore/dispatch/tl_dispatch.h"
#include "ndcore/tensor/tl_backend.h"

tl_kernel tl_dispatch_table[TL_OP_COUNT][TL_DEVICE_COUNT][TL_DTYPE_COUNT];

/* Devices whose memory host code may read (tl_dispatch_host_memory). */
bool tl_dispatch_host_memory_table[TL_DEVICE_COUNT] = {[TL_DEVICE_CPU] = true};

/* The ops other than the elementwise ones (which compute float8 in float32,
 * tl_op_map) that take the float8 dtypes: PyTorch's list on the CPU, and
 * all of them move or cast bytes, or compute in float32.  A kernel set that
 * serves every dtype serves float8 for these only; the others refuse float8
 * with PyTorch's NotImplementedError (tl_dispatch_no_kernel).             */
static bool float8_takes(tl_op op)
{
  switch (op) {
  case TL_OP_COPY:
  case TL_OP_FILL:
  case TL_OP_EYE:
  case TL_OP_INDEX_GET:
  case TL_OP_INDEX_PUT:
  case TL_OP_INDEX_SELECT:
  case TL_OP_MASKED_SELECT:
  case TL_OP_ANY:
  case TL_OP_ALL:
  case TL_OP_MM:
  case TL_OP_MATMUL:
  case TL_OP_ADDMM:
  case TL_OP_OUTER:
  case TL_OP_KRON:
  case TL_OP_TENSORDOT:
    return true;
  default:
    return tl_opkind_is_elementwise(tl_op_infos[op].kind);
  }
}

static tl_dtype_set dtypes_of(tl_op op, tl_dtype_set dtypes)
{
  for (int d = 0; d < TL_DTYPE_COUNT && !float8_takes(op); d++)
    if (tl_dtype_is_float8((tl_dtype)d))
      dtypes &= ~TL_DTYPES_ONE(d);
  return dtypes;
}

void tl_dispatch_register_loop(tl_op op, tl_device_type device, tl_dtype_set dtypes,
                               tl_loop_fn loop)
{
  dtypes = dtypes_of(op, dtypes);
  for (int d = 0; d < TL_DTYPE_COUNT; d++)
    if (dtypes & TL_DTYPES_ONE(d))
      tl_dispatch_table[op][device][d].loop = loop;
}

void tl_dispatch_register_set(tl_op op, tl_device_type device, tl_dtype_set dtypes, const void *set)
{
  dtypes = dtypes_of(op, dtypes);
  for (int d = 0; d < TL_DTYPE_COUNT; d++)
    if (dtypes & TL_DTYPES_ONE(d))
      tl_dispatch_table[op][device][d].set = set;
}

void tl_dispatch_register_family(tl_op like, tl_device_type device, const void *set)
{
  const void *cpu = tl_dispatch_table[like][TL_DEVICE_CPU][TL_DTYPE_F32].set;
  for (int op = 0; cpu && op < TL_OP_COUNT; op++)
    if (tl_dispatch_table[op][TL_DEVICE_CPU][TL_DTYPE_F32].set == cpu)
      tl_dispatch_register_set((tl_op)op, device, TL_DTYPES_ALL, set);
}

void tl_dispatch_init(void)
{
  tl_elementwise_register();
  tl_reduce_register();
  tl_index_register();
  tl_sort_register();
  tl_linalg_register();
  tl_random_register();
  tl_create_register();
  tl_copy_register();
  tl_gpu_kernels_register(); /* the CUDA rows, over the backend's byte copy */
}

tl_status tl_dispatch_no_kernel(const char *name, tl_device device, tl_dtype dtype)
{
  if (tl_dtype_is_float8(dtype)) /* PyTorch's words (docs/dtypes.md) */
    return tl_error_set(TL_ERR_NOT_IMPLEMENTED, "\"%s\" not implemented for '%s'", name,
                        tl_dtype_scalar_name(dtype));
  char sd[32];
  return tl_error_set(TL_ERR_NOT_IMPLEMENTED, "%s(): no kernel for device %s and dtype %s", name,
                      tl_device_str(sd, sizeof sd, device), tl_dtype_names[dtype]);
}

const tl_kernel *tl_dispatch_refuse(tl_op op, tl_device device, tl_dtype dtype)
{
  tl_dispatch_no_kernel(tl_op_infos[op].name, device, dtype);
  return NULL;
}

static bool is_cpu_scalar(const tl_tensor *t)
{
  return t->ndim == 0 && tl_tensor_device(t).type == TL_DEVICE_CPU;
}

tl_status tl_dispatch_device(int n, const tl_tensor *const *ts, tl_device *device)
{
  const tl_tensor *first = NULL;
  *device = tl_device_cpu();
  /* All on the CPU, the common case: nothing to compare, no scalar to find. */
  int cpu = 0;
  while (cpu < n && (!ts[cpu] || !ts[cpu]->storage || ts[cpu]->storage->device.type ==
                                                          TL_DEVICE_CPU))
    cpu++;
  if (cpu == n)
    return TL_OK;
  for (int i = 0; i < n; i++) {
    if (!ts[i] || !ts[i]->storage || is_cpu_scalar(ts[i]))
      continue;
    if (!first) {
      first = ts[i];
      *device = tl_tensor_device(first);
      continue;
    }
    if (!tl_device_eq(*device, tl_tensor_device(ts[i]))) {
      const tl_tensor *pair[2] = {first, ts[i]};
      return tl_check_same_device(2, pair);
    }
  }
  return TL_OK;
}

const void *tl_dispatch_kernel(tl_op op, tl_dtype dtype, int n, const tl_tensor *const *ts)
{
  tl_device device;
  if (tl_dispatch_device(n, ts, &device) != TL_OK)
    return NULL;
  const tl_kernel *k = tl_dispatch_supports(op, device, dtype);
  return k ? k->set : NULL;
}

tl_status tl_dispatch_lend_cpu_kernels(tl_device_type device, bool lend)
{
  /* The device's own row, kept while it holds the CPU's. */
  static tl_kernel own[TL_OP_COUNT][TL_DTYPE_COUNT];
  if (device != TL_DEVICE_FAKE)
    return tl_error_set(TL_ERR_VALUE, "only the fake test device can borrow the CPU kernels");
  if (lend == tl_dispatch_host_memory_table[device])
    return TL_OK;
  for (int op = 0; op < TL_OP_COUNT; op++)
    for (int d = 0; d < TL_DTYPE_COUNT; d++) {
      if (lend)
        own[op][d] = tl_dispatch_table[op][device][d];
      tl_dispatch_table[op][device][d] =
          lend ? tl_dispatch_table[op][TL_DEVICE_CPU][d] : own[op][d];
    }
  /* Fake memory is host memory behind tagged addresses; the CPU kernels need
   * the plain ones. */
  tl_backend_fake_plain_pointers(lend);
  tl_dispatch_host_memory_table[device] = lend;
  return TL_OK;
}

int tl_dispatch_count_ops(tl_device_type device)
{
  int count = 0;
  for (int op = 0; op < TL_OP_COUNT; op++) {
    bool any = false;
    for (int d = 0; d < TL_DTYPE_COUNT; d++)
      any |= tl_dispatch_has((tl_op)op, device, (tl_dtype)d);
    count += any;
  }
  return count;
}

tl_status tl_dispatch_host_view(tl_tensor *out, const tl_tensor *t)
{
  if (tl_dispatch_host_memory(tl_tensor_device(t))) {
    tl_tensor_view_of(out, t);
    return TL_OK;
  }
  return tl_backend_tensor_to(out, t, tl_device_cpu(), t->dtype, false);
}
