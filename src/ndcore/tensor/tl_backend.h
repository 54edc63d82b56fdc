/* tl_backend.h - one backend table per device type.
 *
 * A backend owns its device's memory: it makes storages through its allocator
 * and is the only code that moves bytes in or out of them (memset and the
 * three copies).  The core never dereferences a non-CPU storage's data: a
 * host read goes through tl_backend_read_* below, which copies through the
 * backend.  Kernels are not here: they are looked up by (op, device, dtype)
 * in the dispatch layer.
 *
 * Registry: the CPU backend is always there; the CUDA backend registers itself
 * when it is built and a GPU is present; the fake backend (a test device in
 * host memory) when a test enables it.  Asking for a device type with no
 * backend is a RuntimeError naming the device.                               */
#ifndef TL_BACKEND_H
#define TL_BACKEND_H

#include "ndcore/tensor/tl_alloc.h"
#include "ndcore/tensor/tl_dtype.h"
#include "ndcore/tensor/tl_host_cache.h"
#include "ndcore/tensor/tl_tensor.h"

typedef struct tl_backend {
  tl_device_type type;
  const char *name;
  int (*device_count)(void);
  /* A new storage of nbytes on device, uninitialised; NULL with an error set.
   * storage_free gives its memory back (called when the refcount drops). */
  tl_storage *(*storage_new)(const struct tl_backend *self, tl_device device, size_t nbytes);
  void (*storage_free)(tl_storage *s);
  /* Byte operations on device memory, ordered on `stream` (NULL: the current
   * one).  `async` lets a copy return before it is done where the device can
   * (the host side must then be pinned memory); other devices ignore it. */
  tl_status (*memset)(tl_device device, void *dst, int byte, size_t n, tl_stream stream);
  tl_status (*copy_from_host)(tl_device device, void *dst, const void *src, size_t n,
                              tl_stream stream, bool async);
  tl_status (*copy_to_host)(tl_device device, void *dst, const void *src, size_t n,
                            tl_stream stream, bool async);
  tl_status (*copy_on_device)(tl_device device, void *dst, const void *src, size_t n,
                              tl_stream stream, bool async);
  tl_status (*synchronize)(tl_device device);
  tl_stream (*current_stream)(tl_device device);
  /* Its caching pool, NULL where it has none (the CPU). */
  tl_alloc_pool *(*pool)(tl_device device);
  /* Pinned host memory only, optional: the stream its pool records for an
   * async copy to `device` on `stream`, when the handle alone does not name
   * the device (CUDA's default stream is NULL on every device).  NULL: the
   * stream itself. */
  tl_stream (*copy_use)(tl_device device, tl_stream stream);
} tl_backend;

/* Set up the registry (the CPU backend, and CUDA when present); once, at import. */
void tl_backend_init(void);
void tl_backend_cpu_init(void); /* the CPU's part of it (malloc tuning) */
void tl_backend_register(const tl_backend *backend);
/* The backend of a device type, or NULL with a RuntimeError naming the device. */
const tl_backend *tl_backend_get(tl_device device);
/* Is there a backend for this type (no error set)? */
bool tl_backend_available(tl_device_type type);

/* Page-locked host memory: a backend of type CPU whose storages copies to a
 * GPU can read asynchronously.  Registered by the CUDA backend. */
void tl_backend_register_pinned(const tl_backend *backend);
const tl_backend *tl_backend_pinned(void);     /* NULL when there is none */
const tl_backend *tl_backend_get_pinned(void); /* NULL with a RuntimeError when there is none */

/* ---- backends ------------------------------------------------------------------ */
extern const tl_backend tl_backend_cpu;
/* The CPU's memory: bytes of its live storages (and their most since the
 * last tl_backend_cpu_empty_cache), and its cache of large blocks. */
typedef struct {
  size_t allocated, peak;
  tl_host_cache_stats large;
} tl_cpu_memory;
void tl_backend_cpu_memory(tl_cpu_memory *out);
/* Give cached large blocks and malloc's free heap back to the kernel. */
void tl_backend_cpu_empty_cache(void);
/* The meta device (backend_meta.c): storages of no memory, always registered. */
extern const tl_backend tl_backend_meta;
/* Register the fake device (idempotent); fails only when its pool cannot be made. */
tl_status tl_backend_fake_enable(void);
/* The fake device's counters: bytes moved by each copy direction and memsets,
 * so tests can prove data crossed only through the backend. */
typedef struct {
  int64_t copies_in, copies_out, copies_on, memsets;
  int64_t bytes_in, bytes_out, bytes_on;
} tl_fake_counters;
void tl_backend_fake_counters(tl_fake_counters *out);
/* Host address of fake device memory: the only translation there is. */
void *tl_backend_fake_host(const void *device_ptr);
/* While a test lends the fake device the CPU's kernels (tl_dispatch.h), its new
 * storages hold plain host addresses, so that those kernels can run on them;
 * tl_backend_fake_host() takes either kind. */
void tl_backend_fake_plain_pointers(bool plain);
/* Host code may touch the fake device's memory between these (nested); on
 * the emulated device with TORCHLIKE_FAKE_GUARD=1 (tl_backend_fake_guard_from_env)
 * it is unreadable outside them, as a GPU's is (backend_fake.c). */
void tl_backend_fake_open(void);
void tl_backend_fake_close(void);
void tl_backend_fake_guard_from_env(void);
/* Fake streams: stream k > 0 is (tl_stream)k; events recorded on a stream
 * complete when the test says its work finished (tl_backend_fake_stream_finish). */
void tl_backend_fake_stream_finish(tl_stream stream);
/* Cap the fake device's memory (total bytes; 0 restores the default). */
void tl_backend_fake_set_total(size_t total);
void tl_backend_fake_set_stream(tl_stream stream);
/* A fresh pool for the fake device, configured by config_text (as
 * TORCHLIKE_CUDA_ALLOC_CONF); RuntimeError while blocks are in use. */
tl_status tl_backend_fake_reset_pool(const char *config_text);
/* The fake raw allocator's virtual memory (expandable segments): whether the
 * next pool gets the callbacks, how many of the next reservations and page
 * maps fail (and the call counts start from zero again); and what is
 * reserved and mapped now, with the map and unmap calls made since. */
void tl_backend_fake_vm_control(bool enabled, int fail_reserves, int fail_maps);
typedef struct {
  int64_t ranges, range_bytes, mapped_bytes, maps, unmaps;
} tl_fake_vm_counters;
void tl_backend_fake_vm_counters(tl_fake_vm_counters *out);
/* A host block cache (tl_host_cache.h) over the fake device's raw allocator,
 * for tests of its rule; reset gives it a fresh state with `cap` bytes
 * (RuntimeError while blocks are in use). */
tl_host_cache *tl_backend_fake_host_cache(void);
tl_status tl_backend_fake_reset_host_cache(size_t cap);

/* ---- storages made through a pool ------------------------------------------------ */
/* storage_new/storage_free of backends that keep a caching pool (fake, CUDA,
 * pinned): the header is malloc'ed, the bytes are a pool block on the
 * current stream. */
tl_storage *tl_backend_pool_storage_new(const tl_backend *b, tl_device device, size_t nbytes);
void tl_backend_pool_storage_free(tl_storage *s);

/* ---- synchronization debugging (torchlike.cuda.set_sync_debug_mode) ------------- */
/* At each blocking read of a device's memory by the host (item(), cpu(), a
 * strided write into a device view: tl_backend_read_scalar and the download
 * under tl_backend_tensor_copy), for every device but the CPU: mode 0 does
 * nothing, 1 warns through the hook below, 2 fails with a RuntimeError. */
void tl_backend_set_sync_debug_mode(int mode);
int tl_backend_sync_debug_mode(void);
/* Mode 1's warning: the Python layer's UserWarning; < 0 when the warning was
 * turned into an error (the read then fails as in mode 2). */
void tl_backend_set_sync_warn(int (*warn)(const char *message));

/* ---- moving tensors between devices --------------------------------------------- */
/* dst <- src (broadcast, cast) where either is off the CPU.  Crossing devices
 * goes through the host; on one device a plain byte copy (same dtype, one
 * block each laid out alike: tl_tensor_same_block) is the backend's, anything else the device's copy kernel
 * (tl_tensor_copy), a NotImplementedError naming the device without one. */
tl_status tl_backend_tensor_copy(tl_tensor *dst, const tl_tensor *src, bool non_blocking);
/* out = src on `device` with `dtype`, a new contiguous tensor. */
tl_status tl_backend_tensor_to(tl_tensor *out, const tl_tensor *src, tl_device device,
                               tl_dtype dtype, bool non_blocking);
/* The same, out laid out in format (Tensor.to's memory_format=). */
tl_status tl_backend_tensor_to_format(tl_tensor *out, const tl_tensor *src, tl_device device,
                                      tl_dtype dtype, tl_format format, bool non_blocking);
/* The first element of t's view, read to the host through its backend.  Every
 * host read of tensor data (item, bool, printing, data-dependent shapes) goes
 * through this or tl_backend_tensor_to(cpu). */
tl_status tl_backend_read_scalar(const tl_tensor *t, tl_scalar *out);

#endif
