/* tl_emulate.h - test hook (emulate.c): the fake device with kernels of its
 * own, the CPU's, so that the op layer's device paths run without a GPU. */
#ifndef TL_EMULATE_H
#define TL_EMULATE_H

#include "ndcore/dispatch/tl_dispatch.h"
#include "ndcore/tensor/tl_backend.h"
#include "ndcore/tensor/tl_tensor.h"

/* Return CALL's status, CALL run with the fake device's memory readable by
 * host code for its duration only: how every emulated kernel (emulate.c,
 * src/nn/nn_emulate.c) runs the CPU's. */
#define TL_EMU_HOSTED(CALL)                                                                    \
  do {                                                                                         \
    tl_parallel_context++; /* this thread's mark (tl_dispatch_host_memory) */                  \
    tl_backend_fake_open();                                                                    \
    tl_status status_ = CALL;                                                                  \
    tl_backend_fake_close();                                                                   \
    tl_parallel_context--;                                                                     \
    return status_;                                                                            \
  } while (0)

/* Give the fake device whole-plan elementwise kernels, copy, creation,
 * reduction and index kernels that are the CPU's run on its (from now plain) memory.
 * One-way, for a test's own process; a RuntimeError while the CPU's kernels
 * are lent to it. */
tl_status tl_dispatch_emulate_device(void);

#endif
