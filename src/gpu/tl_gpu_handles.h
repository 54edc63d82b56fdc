/* tl_gpu_handles.h - the CUDA libraries' handles (cuBLAS, cuSOLVER, cuDNN)
 * kept per (thread, device), as PyTorch keeps them (handle_pool.c).
 *
 * A library handle is bound to one stream at a time, and a call queues its
 * work on the handle's stream: two host threads sharing one handle could
 * interleave one's SetStream with the other's call.  Each thread therefore
 * asks for its own handle of each device; when a thread exits its handles go
 * back to a free list of that (library, device), and a new thread takes one
 * from there before making another (making a handle costs milliseconds and
 * device memory).  Handles are never destroyed: a process keeps at most as
 * many as it ever had threads using a library at once.
 *
 * The pool holds opaque pointers and calls no library, so it is built, and
 * tested (TL_GPU_HANDLE_TEST), without CUDA too.                          */
#ifndef TL_GPU_HANDLES_H
#define TL_GPU_HANDLES_H

#include "ndcore/tensor/tl_error.h"

typedef enum {
  TL_GPU_HANDLE_CUBLAS,
  TL_GPU_HANDLE_CUSOLVER,
  TL_GPU_HANDLE_CUDNN,
  TL_GPU_HANDLE_TEST, /* no library: made by _C._gpu_test_handle, for tests */
  TL_GPU_HANDLE_KIND_COUNT
} tl_gpu_handle_kind;

enum { TL_GPU_HANDLE_MAX_DEVICES = 64 };

/* The calling thread's handle of (kind, device): its own, else one that an
 * exited thread gave back (it becomes this thread's), else NULL: the caller
 * makes one and gives it with tl_gpu_handle_adopt.  `device` must be in
 * [0, TL_GPU_HANDLE_MAX_DEVICES). */
void *tl_gpu_handle_get(tl_gpu_handle_kind kind, int device);
/* Make `handle` the calling thread's handle of (kind, device); it goes back
 * to the free list when the thread exits.  MemoryError when the thread's
 * table cannot be made (the handle is then not kept). */
tl_status tl_gpu_handle_adopt(tl_gpu_handle_kind kind, int device, void *handle);
/* Handles of (kind, device) held by live threads, and on the free list. */
void tl_gpu_handle_counts(tl_gpu_handle_kind kind, int device, int *in_use, int *free_count);

#endif
