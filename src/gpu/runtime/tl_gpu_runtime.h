/* tl_gpu_runtime.h - streams, events and devices for torchlike.cuda
 * (runtime.c), as plain handles: a stream is a cudaStream_t, an event a
 * cudaEvent_t, both as void *; NULL is the legacy default stream.
 *
 * Without CUDA in the build, or without a GPU, every call that needs one
 * fails with a RuntimeError saying so; the current-device and
 * current-stream bookkeeping works everywhere (one per thread, as in
 * PyTorch).                                                                */
#ifndef TL_GPU_RUNTIME_H
#define TL_GPU_RUNTIME_H

#include <stdbool.h>
#include <stddef.h>

#include "ndcore/tensor/tl_tensor.h"

/* True when the extension was built with CUDA (a GPU may still be absent). */
bool tl_gpu_compiled(void);

/* The calling thread's current CUDA device (0 until set); set checks it. */
int tl_gpu_current_device(void);
tl_status tl_gpu_set_device(int device);

/* The calling thread's current stream on device (NULL: the default stream),
 * where every kernel and copy on that device is queued (backend_cuda.c). */
void *tl_gpu_current_stream(int device);
tl_status tl_gpu_set_current_stream(int device, void *stream);

/* Streams: priority is clamped to the device's range (lower is higher, as
 * in CUDA); *least and *greatest give that range. */
tl_status tl_gpu_stream_create(int device, int priority, void **stream);
tl_status tl_gpu_stream_destroy(int device, void *stream);
/* Calls on a stream of `device` run with that device current (and the
 * caller's restored after): NULL names the legacy default stream of the
 * runtime's current device, which need not be the stream's. */
tl_status tl_gpu_stream_query(int device, void *stream, bool *done);
tl_status tl_gpu_stream_synchronize(int device, void *stream);
tl_status tl_gpu_stream_wait_event(int device, void *stream, void *event);
tl_status tl_gpu_stream_priority_range(int *least, int *greatest);

/* Events: timing off by default (cheaper), blocking makes synchronize sleep
 * instead of spinning, interprocess allows IPC handles. */
tl_status tl_gpu_event_create(int device, bool timing, bool blocking, bool interprocess,
                              void **event);
void tl_gpu_event_destroy(void *event);
/* Record on `stream` of `device`, the event's device. */
tl_status tl_gpu_event_record(int device, void *event, void *stream);
tl_status tl_gpu_event_query(void *event, bool *done);
tl_status tl_gpu_event_synchronize(void *event);
/* Milliseconds from start to end, both recorded with timing and complete. */
tl_status tl_gpu_event_elapsed(void *start, void *end, float *ms);

/* Make later work on `waiter` wait for the work queued on `producer` so
 * far (an event recorded on producer, waited on by waiter; no host wait).
 * Nothing to do when they are the same stream.  Streams of device. */
tl_status tl_gpu_stream_order(int device, void *waiter, void *producer);

/* The device a CUDA pointer's memory lives on (device or managed memory);
 * a ValueError for host memory or a pointer CUDA does not know. */
tl_status tl_gpu_pointer_device(const void *ptr, int *device);

/* Wait on the host for all work on device; a synchronization point: it
 * raises a bad index a kernel recorded (tl_device_errors.h). */
tl_status tl_gpu_device_synchronize(int device);

typedef struct {
  char name[256];
  size_t total_memory;
  int major, minor, multi_processor_count;
  int is_integrated, is_multi_gpu_board, warp_size, max_threads_per_multi_processor;
  size_t l2_cache_size;
  char uuid[48]; /* "GPU-xxxxxxxx-xxxx-xxxx-xxxx-xxxxxxxxxxxx" */
} tl_gpu_properties;
tl_status tl_gpu_device_properties(int device, tl_gpu_properties *p);

/* Whether `device` can map `peer`'s memory (cudaDeviceCanAccessPeer); both
 * must be valid device indices. */
tl_status tl_gpu_can_access_peer(int device, int peer, bool *can);

/* Tell t's storage's caching pool that `stream` uses it (Tensor.record_stream):
 * its block is not reused before that stream's work queued so far is done.
 * Any device with a pool (CUDA, the fake device); a no-op for storages
 * outside a pool. */
tl_status tl_storage_record_stream(tl_storage *s, void *stream);

#endif
