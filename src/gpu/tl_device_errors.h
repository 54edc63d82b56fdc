/* tl_device_errors.h - errors that kernels find on a device, raised at the
 * next synchronization.
 *
 * A kernel cannot raise, and the host does not wait for it.  PyTorch's
 * kernels assert and the whole process dies; ours record the first bad
 * value in a small per-device error record kept in that device's memory
 * (the first recorder wins a compare-and-swap on `flag`) and carry on with
 * a safe stand-in (index 0), so no memory outside the tensors is touched.
 * Every point where the host waits for the device anyway (synchronize, a
 * device-to-host copy the host waits for: item(), .cpu(), .numpy(),
 * printing, data-dependent shapes) calls tl_device_errors_check (or
 * _check_stream), which reads the record, clears it and raises the error in
 * the CPU's wording, naming the op.  The record is read only when a
 * recording kernel was launched since the last clean check, so other syncs
 * pay nothing.
 *
 * The record's layout is plain data, read by the .cu files too.  The host
 * side is device-neutral: the fake device (emulated kernels, host memory)
 * records into a record of its own with tl_device_errors_record, so the
 * mechanism is tested without a GPU.                                       */
#ifndef TL_DEVICE_ERRORS_H
#define TL_DEVICE_ERRORS_H

#include <stdint.h>

/* The wording of a recorded error: the CPU's message for the op's bad
 * value (tl_device_errors_check adds the value, the op and the device). */
typedef enum {
  TL_DEVICE_ERROR_BOUNDS,     /* "index v is out of bounds for dimension d with size n" */
  TL_DEVICE_ERROR_EMBEDDING,  /* embedding's "index out of range in self" */
  TL_DEVICE_ERROR_BAG,        /* embedding_bag's sum/mean: "... not in the valid range [0, n)" */
  TL_DEVICE_ERROR_BAG_MAX,    /* embedding_bag's max: "Expected idx >= 0 && idx < num_embeddings" */
  TL_DEVICE_ERROR_TARGET,     /* nll_loss, cross_entropy: "Target v is out of bounds." */
  TL_DEVICE_ERROR_MARGIN,     /* multi_margin_loss: "target out of range" */
  TL_DEVICE_ERROR_MULTILABEL, /* multilabel_margin_loss: "argument #2 'target' is out of range" */
  TL_DEVICE_ERROR_POOL,       /* max_unpool, max pooling's backward: "Found an invalid max index" */
} tl_device_error_kind;

typedef struct {
  int32_t flag;   /* 0: clear; 1: set by the first recorder (atomic CAS) */
  int32_t op;     /* the op, as tl_device_errors_op numbered it */
  int32_t dim;    /* the indexed dimension, for the message (BAG: the position) */
  int32_t status; /* the tl_status the CPU raises for this error */
  int64_t value;  /* the bad index, as given */
  int64_t size;   /* the size of the dimension it indexed */
  int32_t kind;   /* a tl_device_error_kind: the message's wording (a cleared
                   * record's 0 is BOUNDS, for recorders that leave it) */
  int32_t unused;
  int64_t extent[3]; /* POOL: the output's last `dim` sizes, for the message */
} tl_device_error;

#ifndef __CUDACC__
#include "ndcore/tensor/tl_alloc.h" /* tl_stream */
#include "ndcore/tensor/tl_tensor.h"

/* A small number for an op name (a string that lives as long as the
 * process, as the op tables' do); -1 when the table is full. */
int tl_device_errors_op(const char *name);

/* The op whose kernels run on this thread, for the records they make: an
 * entry point names itself unless an outer one already did (take calls
 * index, and a bad index of take is take's).  enter returns what leave
 * restores.  leave passes the op's status on; with CUDA_LAUNCH_BLOCKING=1
 * the outermost op on a device also waits for that device and raises its
 * recorded error there, naming the op that made it (PyTorch's debugging
 * switch, without the crash); an nn op's error there is the CPU's message
 * alone, as the CPU raises it at the call. */
const char *tl_device_errors_enter(const char *op);
tl_status tl_device_errors_leave(const char *previous, tl_device device, tl_status status);
const char *tl_device_errors_current(void);

/* The record kernels on `device` write to (device memory on CUDA, host
 * memory on the fake device), made on first use, and `stream`'s count of
 * armed launches raised by one.  Every kernel that may record calls this on
 * the host before its launch, naming the stream it is queued on. */
tl_status tl_device_errors_word(tl_device device, tl_stream stream, tl_device_error **word);

/* Record from host code running a device's kernel (the emulated fake
 * device): the first record wins, as on the device. */
void tl_device_errors_record(tl_device_error *word, int op, int dim, int64_t value, int64_t size,
                             tl_status status, tl_device_error_kind kind);

/* After a wait for the whole device (synchronize): raise the first recorded
 * error (and clear it), or TL_OK.  Cheap when no recording kernel ran since
 * the last clean check. */
tl_status tl_device_errors_check(tl_device device);

/* After a wait for one stream of `device` only (a copy to the host, a
 * stream's synchronize): as tl_device_errors_check, but the record is read
 * only when no other stream may still have a recording launch queued
 * (device_errors.c says why); otherwise it stays armed for a later check. */
tl_status tl_device_errors_check_stream(tl_device device, tl_stream stream);

/* A stream about to be destroyed: its armed launches (which may still be
 * queued) are kept for the next whole-device check. */
void tl_device_errors_stream_retire(tl_device device, tl_stream stream);
#endif

#endif
