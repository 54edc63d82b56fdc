/* emulate.c - test hook: the fake device as a device with kernels of its own.
 *
 * Device kernels cannot run without their device, but the code around them
 * can: the op layer's paths for memory host code cannot read (tl_op_map
 * casting inputs on the device, computing into a scratch output, handing
 * CPU scalars over by value; the reductions' device passes and elementwise
 * finishes; copies through tl_copy_through).  This hook gives the fake
 * device whole-plan kernels (tl_iter_kernel), a copy kernel, creation
 * kernels and the reductions' and scans' passes that are the CPU's, each run with the fake
 * device's memory counted as host memory for the duration of the kernel
 * only: everything outside a kernel takes the device paths, as on CUDA.
 * Fake storages hold plain host addresses from then on.  One-way: for a
 * test's own process (tests/test_cuda_kernels.py).                       */
#include "ndcore/dispatch/tl_emulate.h"
#include "ndcore/dispatch/tl_kernel_sets.h"
#include "ndcore/kernels/tl_reduce.h"
#include "ndcore/tensor/tl_backend.h"

/* Host code may read fake memory while a kernel runs; restored after. */
static bool *host_flag(void) { return &tl_dispatch_host_memory_table[TL_DEVICE_FAKE]; }

static tl_status run_elementwise(const tl_iter_kernel *self, const tl_iter *it, const void *data)
{
  const tl_kernel *cpu = self->ctx;
  bool was = *host_flag();
  *host_flag() = true;
  tl_status status = tl_iter_run((tl_iter *)it, cpu->loop, (void *)data);
  *host_flag() = was;
  return status;
}

static tl_status run_copy(const tl_iter *it)
{
  bool was = *host_flag();
  *host_flag() = true;
  tl_status status = tl_iter_run((tl_iter *)it, tl_cast_loop(it->dtype[1], it->dtype[0]), NULL);
  *host_flag() = was;
  return status;
}

static tl_status emu_copy(tl_tensor *dst, const tl_tensor *src)
{
  return tl_copy_through(dst, src, run_copy);
}

static tl_status emu_pass(tl_rkind kind, const tl_tensor *in, uint64_t mask, tl_dtype loop,
                          tl_tensor *acc, const tl_tensor *aux, void *data)
{
  bool was = *host_flag();
  *host_flag() = true;
  tl_status status = tl_reduce_pass(kind, in, mask, loop, acc, aux, data);
  *host_flag() = was;
  return status;
}

static tl_status emu_index(bool is_max, const tl_tensor *in, int dim, tl_tensor *values,
                           tl_tensor *indices)
{
  bool was = *host_flag();
  *host_flag() = true;
  tl_status status = tl_reduce_index_pass(is_max, in, dim, values, indices);
  *host_flag() = was;
  return status;
}

static tl_status emu_scan(bool prod, tl_tensor *work, int64_t len, int64_t inner)
{
  bool was = *host_flag();
  *host_flag() = true;
  tl_status status = tl_scan_pass(prod, work, len, inner);
  *host_flag() = was;
  return status;
}

/* The CPU's creation kernels, each as a kernel of the fake device. */
#define HOSTED(CALL)                                                                           \
  do {                                                                                         \
    bool was = *host_flag();                                                                   \
    *host_flag() = true;                                                                       \
    tl_status status = CALL;                                                                   \
    *host_flag() = was;                                                                        \
    return status;                                                                             \
  } while (0)
static tl_status emu_fill(tl_tensor *t, tl_scalar v) { HOSTED(tl_cpu_tensor_fill(t, v)); }
static tl_status emu_arange(tl_tensor *out, tl_scalar start, tl_scalar step)
{
  HOSTED(tl_cpu_tensor_arange_fill(out, start, step));
}
static tl_status emu_linspace(tl_tensor *out, tl_scalar start, tl_scalar end, bool log,
                              tl_scalar base)
{
  HOSTED(tl_cpu_tensor_linspace_fill(out, start, end, log, base));
}
static tl_status emu_eye(tl_tensor *out) { HOSTED(tl_cpu_tensor_eye_fill(out)); }
#undef HOSTED

tl_status tl_dispatch_emulate_device(void)
{
  static tl_iter_kernel kernels[TL_OP_COUNT][TL_DTYPE_COUNT];
  static const tl_copy_kernels copy = {.copy = emu_copy};
  static const tl_create_kernels create = {.tensor_fill = emu_fill,
                                           .tensor_arange_fill = emu_arange,
                                           .tensor_linspace_fill = emu_linspace,
                                           .tensor_eye_fill = emu_eye};
  static const tl_op create_ops[] = {TL_OP_FILL, TL_OP_ARANGE, TL_OP_LINSPACE, TL_OP_EYE};
  if (*host_flag())
    return tl_error_set(TL_ERR_RUNTIME, "the fake device has the CPU's kernels lent already");
  tl_backend_fake_plain_pointers(true);
  for (int op = 0; op < TL_OP_COUNT; op++) {
    tl_opkind kind = tl_op_infos[op].kind;
    if (kind != TL_OPKIND_UNARY && kind != TL_OPKIND_BINARY && kind != TL_OPKIND_WHERE &&
        kind != TL_OPKIND_CLAMP)
      continue;
    for (int d = 0; d < TL_DTYPE_COUNT; d++) {
      const tl_kernel *cpu = &tl_dispatch_table[op][TL_DEVICE_CPU][d];
      if (!cpu->loop)
        continue;
      kernels[op][d] = (tl_iter_kernel){.run = run_elementwise, .ctx = cpu};
      tl_dispatch_register_set((tl_op)op, TL_DEVICE_FAKE, TL_DTYPES_ONE(d), &kernels[op][d]);
    }
  }
  tl_dispatch_register_set(TL_OP_COPY, TL_DEVICE_FAKE, TL_DTYPES_ALL, &copy);
  for (size_t i = 0; i < sizeof create_ops / sizeof *create_ops; i++)
    tl_dispatch_register_set(create_ops[i], TL_DEVICE_FAKE, TL_DTYPES_ALL, &create);
  /* The reductions and scans, as CUDA runs them (reduce_gpu.c): the op
   * layer is shared, the passes are the CPU's. */
  tl_reduce_serve(TL_DEVICE_FAKE);
  tl_reduce_device_pass[TL_DEVICE_FAKE] = emu_pass;
  tl_reduce_index_device[TL_DEVICE_FAKE] = emu_index;
  tl_scan_device[TL_DEVICE_FAKE] = emu_scan;
  return TL_OK;
}
