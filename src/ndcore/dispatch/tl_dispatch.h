/* tl_dispatch.h - kernel tables keyed by (op, device type, dtype), and the one
 * check every family entry point makes before it runs anything.
 *
 * Every op of ops.def (elementwise, reductions and scans, index, sort and
 * search, matrix products and linear algebra, random, fill and creation, copy
 * and cast) has one row per device type and one slot per dtype.  A slot holds
 * the kernel that runs the op on that device for that dtype, or NULL.
 *
 * Kernels are stored type-erased (tl_kernel_fn) because each family, and in
 * the heterogeneous families each op, has its own kernel signature; the
 * family's entry point casts the pointer back to the signature it declares in
 * its header (tl_loop_fn for elementwise ops, tl_reduce_kernel, tl_sort_kernel
 * ...).  The kernel files fill the CPU rows at import; a device backend fills
 * its own row when it registers.
 *
 * The rule: an entry point asks tl_dispatch_kernel() for its kernel before it
 * touches any data.  Tensors on two devices raise PyTorch's RuntimeError; a
 * device or dtype with no kernel raises NotImplementedError in one wording,
 * "sum(): no kernel for device fake:0 and dtype float32".  No op falls back
 * to running a host kernel on another device's memory.                     */
#ifndef TL_DISPATCH_H
#define TL_DISPATCH_H

#include "ndcore/dispatch/tl_op.h"
#include "ndcore/dispatch/tl_parallel.h"

/* One slot of the table.  Elementwise ops store the inner loop that the
 * device's iterator runs; the other families store a pointer to their kernel
 * set, a struct of typed function pointers declared in the family's header
 * (tl_reduce_kernels, tl_sort_kernels ...), one member per entry point. */
typedef struct {
  tl_loop_fn loop;
  const void *set;
} tl_kernel;

/* A set of dtypes: bit (1u << TL_DTYPE_x) for each member. */
typedef uint32_t tl_dtype_set;
#define TL_DTYPES_ALL ((tl_dtype_set)((1u << TL_DTYPE_COUNT) - 1))
#define TL_DTYPES_ONE(d) ((tl_dtype_set)(1u << (d)))

extern tl_kernel tl_dispatch_table[TL_OP_COUNT][TL_DEVICE_COUNT][TL_DTYPE_COUNT];

/* Make `loop` (elementwise) or `set` (other families) op's kernel on device
 * type `device` for every dtype in `dtypes`. */
void tl_dispatch_register_loop(tl_op op, tl_device_type device, tl_dtype_set dtypes,
                               tl_loop_fn loop);
void tl_dispatch_register_set(tl_op op, tl_device_type device, tl_dtype_set dtypes,
                              const void *set);
/* Make `set` device's kernel, for every dtype, of each op the CPU serves
 * with the same set as `like`: a device's set of a family (sort, linalg,
 * softmax, ...) covers the ops the CPU's registration lists, which stays
 * the one list.  After the CPU rows (tl_dispatch_init). */
void tl_dispatch_register_family(tl_op like, tl_device_type device, const void *set);

/* Fill the CPU rows; once, at import.  Each family's kernel files register
 * their CPU kernels in one function: */
void tl_dispatch_init(void);
void tl_elementwise_register(void); /* kernels_*.c: loops (tl_loop_fn) */
void tl_reduce_register(void);      /* reduce_ops.c, scan.c */
void tl_index_register(void);       /* index.c, index_ops.c */
void tl_sort_register(void);        /* sort.c, search.c */
void tl_linalg_register(void);      /* matmul.c, linalg*.c */
void tl_random_register(void);      /* random.c */
void tl_create_register(void);      /* create.c */
void tl_copy_register(void);        /* op.c: copy and cast */

/* Is there a kernel?  No error is set: for enumerations and fallbacks. */
static inline bool tl_dispatch_has(tl_op op, tl_device_type device, tl_dtype dtype)
{
  const tl_kernel *k = &tl_dispatch_table[op][device][dtype];
  return k->loop || k->set;
}

/* op's kernel for (device, dtype), or NULL with NotImplementedError
 * "name(): no kernel for device D and dtype T".  Inline: every op call asks. */
const tl_kernel *tl_dispatch_refuse(tl_op op, tl_device device, tl_dtype dtype);
static inline const tl_kernel *tl_dispatch_supports(tl_op op, tl_device device, tl_dtype dtype)
{
  return tl_dispatch_has(op, device.type, dtype) ? &tl_dispatch_table[op][device.type][dtype]
                                                 : tl_dispatch_refuse(op, device, dtype);
}

/* The one NotImplementedError, for code that must read device data on the
 * host and finds it cannot (tl_dispatch_host_memory): "name(): no kernel for
 * device D and dtype T". */
tl_status tl_dispatch_no_kernel(const char *name, tl_device device, tl_dtype dtype);

/* The device the n tensors share (NULL entries and unallocated outputs are
 * skipped), or PyTorch's RuntimeError naming two of them.  As in PyTorch, a
 * 0-d CPU tensor (a scalar) goes with tensors of any device: the kernel
 * reads it on the host.  `*device` is the CPU when no tensor has storage. */
tl_status tl_dispatch_device(int n, const tl_tensor *const *ts, tl_device *device);

/* What a family entry point calls first: the shared device of ts[0..n),
 * then op's kernel set for that device and `dtype`.  NULL with the error set. */
const void *tl_dispatch_kernel(tl_op op, tl_dtype dtype, int n, const tl_tensor *const *ts);

/* Can host code read this device's memory?  The CPU's, always; another
 * device's only while a test has lent it the CPU kernels (below), since its
 * memory is then host memory by construction; and the emulated fake
 * device's while this thread runs one of its kernels (TL_EMU_HOSTED), or a
 * piece of one on the pool: a per-thread count, as other Python threads run
 * ops of their own while a kernel has let go of the GIL, and theirs must
 * keep their device paths.  The CPU iterator refuses every other pointer.
 * Inline: the CPU iterator asks on every run. */
extern bool tl_dispatch_host_memory_table[TL_DEVICE_COUNT];
static inline bool tl_dispatch_host_memory(tl_device device)
{
  return tl_dispatch_host_memory_table[device.type] ||
         (device.type == TL_DEVICE_FAKE && tl_parallel_context > 0);
}

/* t readable by host code: a view of t itself when its memory is the host's,
 * else a contiguous host copy (one sync).  Released by the caller. */
tl_status tl_dispatch_host_view(tl_tensor *out, const tl_tensor *t);

/* Test hook: give the fake device (host memory) the CPU's kernels for every
 * op (lend = true), or give it its own row back (lend = false).  While lent,
 * its new storages hold plain host addresses (tl_backend.h). */
tl_status tl_dispatch_lend_cpu_kernels(tl_device_type device, bool lend);

/* How many (op) rows have at least one kernel on `device`. */
int tl_dispatch_count_ops(tl_device_type device);

#endif
