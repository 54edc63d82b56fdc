/* tl_emulate.h - test hook (emulate.c): the fake device with kernels of its
 * own, the CPU's, so that the op layer's device paths run without a GPU. */
#ifndef TL_EMULATE_H
#define TL_EMULATE_H

#include "ndcore/tensor/tl_tensor.h"

/* Give the fake device whole-plan elementwise kernels, copy, creation,
 * reduction and index kernels that are the CPU's run on its (from now plain) memory.
 * One-way, for a test's own process; a RuntimeError while the CPU's kernels
 * are lent to it. */
tl_status tl_dispatch_emulate_device(void);

#endif
