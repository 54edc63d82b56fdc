/* tl_iter.h - the strided N-d iteration engine every CPU elementwise kernel uses.
 *
 * Operands (outputs first) are broadcast to one iteration shape; dimensions that
 * are contiguous in every operand are coalesced; the innermost dimension is
 * handed to an inner loop of one signature (NumPy's):
 *
 *     loop(args, n, steps, data)   args[i]: operand i's first element,
 *                                  steps[i]: its stride in bytes, n: count.
 *
 * Operands whose dtype differs from the loop's are cast through small
 * contiguous buffers, chunk by chunk.  Large iterations are split across the
 * thread pool by ranges of the flattened index.
 *
 * The plan (tl_iter_init: broadcast, dims sorted and coalesced, byte strides,
 * data pointers) knows nothing of the CPU and is what a device launcher
 * consumes: building it reads shapes and strides only, never the operands'
 * data, so it is built the same way for any device.  A CPU scalar among
 * another device's operands is marked in host_scalar: its pointer is host
 * memory, which a device launcher reads on the host and passes by value.
 * tl_iter_run is the CPU's launcher and refuses operands that host code
 * cannot read (tl_dispatch_host_memory); a device runs the whole plan
 * through its tl_iter_kernel.                                                */
#ifndef TL_ITER_H
#define TL_ITER_H

#include "ndcore/kernels/tl_extrema_rule.h"
#include "ndcore/tensor/tl_tensor.h"

typedef void (*tl_loop_fn)(char **args, int64_t n, const int64_t *steps, void *data);

#define TL_ITER_MAX_OPERANDS 4

typedef struct {
  int noperands;
  int noutputs; /* the first noutputs operands are written; 1 unless set */
  int ndim;
  int64_t numel;
  int64_t shape[TL_MAX_DIMS];
  int64_t strides[TL_ITER_MAX_OPERANDS][TL_MAX_DIMS]; /* bytes */
  char *data[TL_ITER_MAX_OPERANDS];
  tl_dtype dtype[TL_ITER_MAX_OPERANDS];      /* operand dtype in memory */
  tl_dtype loop_dtype[TL_ITER_MAX_OPERANDS]; /* dtype the loop reads/writes */
  int64_t cost;                              /* rough work per element, >= 1 */
  bool pytorch_chunks; /* threads split the range as PyTorch's would (tl_iter_run) */
  tl_device device;                          /* where the operands live */
  uint32_t host_scalar; /* bit k: operand k is a CPU scalar with a device's operands */
} tl_iter;

/* A device's elementwise kernel, in the kernel table's `set` slot: it runs a
 * whole plan at once (the CPU's are inner loops that tl_iter_run drives).
 * ctx is the device's own row; data is the op's tl_op_params, or NULL. */
typedef struct tl_iter_kernel {
  tl_status (*run)(const struct tl_iter_kernel *self, const tl_iter *it, const void *data);
  const void *ctx;
} tl_iter_kernel;

/* Set up an iteration over `ops` (noutputs first).  Every operand broadcasts to
 * the first output's shape.  loop_dtypes may be NULL (no casting). */
tl_status tl_iter_init(tl_iter *it, int noperands, const tl_tensor *const *ops,
                       const tl_dtype *loop_dtypes);
/* Run `loop` over the whole iteration on the CPU, threaded when it is large
 * enough; a RuntimeError when the operands are not in host memory. */
tl_status tl_iter_run(tl_iter *it, tl_loop_fn loop, void *data);

/* Float maximum/minimum on a device: where the CPU's loop calls over this
 * iteration would begin and end (tl_extrema_rule.h; the chunks are the
 * threads' ranges tl_iter_run makes with pytorch_chunks, for this process's
 * thread count), for elements of `size` bytes.  `buffered`: the CPU would
 * have cast an operand through its buffers, which the device cast before
 * (TL_OP_EXTREMA_BUFFERED).  numel must be positive. */
void tl_iter_extrema_runs(const tl_iter *it, int64_t size, bool buffered, tl_extrema_runs *r);

/* The loop that casts args[1] (dtype from) into args[0] (dtype to). */
tl_loop_fn tl_cast_loop(tl_dtype from, tl_dtype to);

#endif
