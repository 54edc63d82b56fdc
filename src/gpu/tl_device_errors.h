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
 * printing, data-dependent shapes) calls tl_device_errors_check, which
 * reads the record, clears it and raises the error in the CPU's wording,
 * naming the op.  The record is read only when a recording kernel was
 * launched since the last clean check, so other syncs pay nothing.
 *
 * The record's layout is plain data, read by the .cu files too.  The host
 * side is device-neutral: the fake device (emulated kernels, host memory)
 * records into a record of its own with tl_device_errors_record, so the
 * mechanism is tested without a GPU.                                       */
#ifndef TL_DEVICE_ERRORS_H
#define TL_DEVICE_ERRORS_H

#include <stdint.h>

typedef struct {
  int32_t flag;   /* 0: clear; 1: set by the first recorder (atomic CAS) */
  int32_t op;     /* the op, as tl_device_errors_op numbered it */
  int32_t dim;    /* the indexed dimension, for the message */
  int32_t status; /* the tl_status the CPU raises for this error */
  int64_t value;  /* the bad index, as given */
  int64_t size;   /* the size of the dimension it indexed */
} tl_device_error;

#ifndef __CUDACC__
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
 * switch, without the crash). */
const char *tl_device_errors_enter(const char *op);
tl_status tl_device_errors_leave(const char *previous, tl_device device, tl_status status);
const char *tl_device_errors_current(void);

/* The record kernels on `device` write to (device memory on CUDA, host
 * memory on the fake device), made on first use, and the next check armed.
 * Every kernel that may record calls this on the host before its launch. */
tl_status tl_device_errors_word(tl_device device, tl_device_error **word);

/* Record from host code running a device's kernel (the emulated fake
 * device): the first record wins, as on the device. */
void tl_device_errors_record(tl_device_error *word, int op, int dim, int64_t value, int64_t size,
                             tl_status status);

/* At a synchronization point of `device`: raise the first recorded error
 * (and clear it), or TL_OK.  Cheap when no recording kernel ran since the
 * last clean check. */
tl_status tl_device_errors_check(tl_device device);
#endif

#endif
