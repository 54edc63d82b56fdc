/* backend.c - the backend registry, storages made through a caching pool, and
 * moving tensors between devices.
 *
 * Crossing devices always stages through host memory and the backends' copy
 * functions: the host side is an ordinary CPU tensor, so broadcasting and
 * casting run there, and the device side is only ever touched by its
 * backend.  A view that is not contiguous on a device is moved as the span
 * of bytes it covers ([lo, hi) of its storage) and re-viewed on the host.   */
#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

#include "gpu/tl_gpu.h"
#include "ndcore/tensor/tl_backend.h"

static const tl_backend *registry[TL_DEVICE_COUNT];

void tl_backend_register(const tl_backend *backend)
{
  __atomic_store_n(&registry[backend->type], backend, __ATOMIC_RELEASE);
}

void tl_backend_init(void)
{
  tl_backend_cpu_init();
  tl_backend_register(&tl_backend_cpu);
  tl_backend_register(&tl_backend_meta);
}

/* CUDA is set up on its first use, not at import, as in PyTorch: a process
 * that never touches the GPU does not pay for the driver's start, and a
 * process forked before that use (a DataLoader worker) can still use CUDA.
 * tl_gpu_init registers the CUDA and pinned backends when built with CUDA
 * and a GPU is there. */
static pthread_once_t gpu_once = PTHREAD_ONCE_INIT;

static const tl_backend *registered(tl_device_type type)
{
  if (type >= TL_DEVICE_COUNT)
    return NULL;
  if (type == TL_DEVICE_CUDA)
    pthread_once(&gpu_once, tl_gpu_init);
  return __atomic_load_n(&registry[type], __ATOMIC_ACQUIRE);
}

static const tl_backend *pinned_backend;

void tl_backend_register_pinned(const tl_backend *backend)
{
  __atomic_store_n(&pinned_backend, backend, __ATOMIC_RELEASE);
}

const tl_backend *tl_backend_pinned(void) { return __atomic_load_n(&pinned_backend, __ATOMIC_ACQUIRE); }

const tl_backend *tl_backend_get_pinned(void)
{
  pthread_once(&gpu_once, tl_gpu_init); /* pinning is a use of CUDA */
  const tl_backend *b = tl_backend_pinned();
  if (!b)
    tl_error_set(TL_ERR_RUNTIME, "Found no NVIDIA driver on your system: pinned memory needs a "
                                 "CUDA GPU (torchlike was built without CUDA, or this machine has "
                                 "no GPU or driver)");
  return b;
}

bool tl_backend_available(tl_device_type type) { return registered(type) != NULL; }

const tl_backend *tl_backend_get(tl_device device)
{
  char name[32];
  const tl_backend *b = registered(device.type);
  if (!b) {
    tl_device_str(name, sizeof name, device);
    if (device.type == TL_DEVICE_CUDA)
      tl_error_set(TL_ERR_RUNTIME, "cannot use device %s: no CUDA GPU is available (torchlike "
                                   "was built without CUDA, or this machine has no GPU or driver)",
                   name);
    else
      tl_error_set(TL_ERR_RUNTIME, "cannot use device %s: its backend is not enabled", name);
    return NULL;
  }
  if (device.type != TL_DEVICE_CPU && device.type != TL_DEVICE_META && (device.index < 0 || device.index >= b->device_count())) {
    tl_error_set(TL_ERR_RUNTIME, "cannot use device %s: invalid device ordinal (%d %s device%s "
                                 "available)", tl_device_str(name, sizeof name, device),
                 b->device_count(), b->name, b->device_count() == 1 ? "" : "s");
    return NULL;
  }
  return b;
}

/* ---- storages made through a pool ------------------------------------------------ */

tl_storage *tl_backend_pool_storage_new(const tl_backend *b, tl_device device, size_t nbytes)
{
  tl_storage *s = malloc(sizeof *s);
  tl_block *block = NULL;
  if (!s) {
    tl_error_set(TL_ERR_MEMORY, "out of memory");
    return NULL;
  }
  if (nbytes) { /* an empty storage holds no block, as in PyTorch */
    block = tl_alloc_pool_malloc(b->pool(device), nbytes, b->current_stream(device));
    if (!block) {
      free(s);
      return NULL;
    }
  }
  *s = (tl_storage){.refcount = 1, .data = block ? block->ptr : NULL, .nbytes = nbytes,
                    .device = device, .backend = b, .block = block};
  return s;
}

void tl_backend_pool_storage_free(tl_storage *s)
{
  if (s->block)
    tl_alloc_pool_free(s->backend->pool(s->device), s->block);
  free(s);
}

/* ---- moving tensors between devices --------------------------------------------- */

/* The bytes [*lo, *hi) of t's storage that its view touches; empty views touch none. */
static void view_span(const tl_tensor *t, int64_t *lo, int64_t *hi)
{
  int64_t a = t->offset, b = t->offset;
  if (tl_tensor_numel(t) == 0) { /* before any extent: an empty view's may overflow */
    *lo = *hi = 0;
    return;
  }
  for (int i = 0; i < t->ndim; i++) {
    int64_t extent = (t->shape[i] - 1) * t->strides[i];
    if (extent < 0)
      a += extent;
    else
      b += extent;
  }
  int64_t size = (int64_t)tl_dtype_size(t->dtype);
  *lo = a * size;
  *hi = (b + 1) * size;
}

/* ---- synchronization debugging ------------------------------------------------ */

static atomic_int sync_debug_mode;
static int (*sync_warn)(const char *message);

void tl_backend_set_sync_debug_mode(int mode) { atomic_store(&sync_debug_mode, mode); }
int tl_backend_sync_debug_mode(void) { return atomic_load(&sync_debug_mode); }
void tl_backend_set_sync_warn(int (*warn)(const char *message)) { sync_warn = warn; }

/* The host is about to wait for device: warn or fail as the mode says
 * (PyTorch's words). */
static tl_status sync_point(tl_device device)
{
  static const char message[] = "called a synchronizing CUDA operation";
  int mode = atomic_load(&sync_debug_mode);
  if (device.type == TL_DEVICE_CPU || !mode)
    return TL_OK;
  if (mode == 1 && (!sync_warn || sync_warn(message) == 0))
    return TL_OK;
  return tl_error_set(TL_ERR_RUNTIME, "%s", message);
}

/* host = a CPU copy of the bytes t's view covers, viewed as t is. */
static tl_status download(const tl_tensor *t, tl_tensor *host)
{
  int64_t lo, hi;
  const tl_backend *b = tl_backend_get(tl_tensor_device(t));
  if (!b || sync_point(tl_tensor_device(t)) != TL_OK)
    return tl_error_status();
  view_span(t, &lo, &hi);
  tl_storage *s = tl_storage_new(tl_device_cpu(), (size_t)(hi - lo));
  if (!s)
    return tl_error_status();
  if (hi > lo && b->copy_to_host(tl_tensor_device(t), s->data, (char *)t->storage->data + lo,
                                 (size_t)(hi - lo), NULL, false) != TL_OK) {
    tl_storage_decref(s);
    return tl_error_status();
  }
  *host = *t;
  host->storage = s;
  host->offset = t->offset - lo / (int64_t)tl_dtype_size(t->dtype);
  return TL_OK;
}

/* Write back what download() fetched for the device view t. */
static tl_status upload_span(const tl_tensor *t, const tl_tensor *host)
{
  int64_t lo, hi;
  const tl_backend *b = tl_backend_get(tl_tensor_device(t));
  if (!b)
    return tl_error_status();
  view_span(t, &lo, &hi);
  if (hi == lo)
    return TL_OK;
  return b->copy_from_host(tl_tensor_device(t), (char *)t->storage->data + lo, host->storage->data,
                           (size_t)(hi - lo), NULL, false);
}

/* An async copy from pinned memory reads it later, on `stream`: the pinned
 * pool must not hand its block out again before then (pageable sources are
 * copied before the call returns). */
static tl_status record_pinned_use(const tl_tensor *src, tl_device device, tl_stream stream)
{
  const tl_backend *pinned = tl_backend_pinned();
  tl_storage *s = src->storage;
  if (!pinned || s->backend != pinned || !s->block)
    return TL_OK;
  if (pinned->copy_use) /* the stream with its device (CUDA's default stream) */
    stream = pinned->copy_use(device, stream);
  return tl_alloc_pool_record_stream(pinned->pool(s->device), s->block, stream);
}

/* dst (on a device) <- src (a CPU tensor): cast and broadcast on the host. */
static tl_status copy_from_cpu(tl_tensor *dst, const tl_tensor *src, bool non_blocking)
{
  tl_device device = tl_tensor_device(dst);
  const tl_backend *b = tl_backend_get(device);
  tl_tensor host = {0};
  tl_status status;
  if (!b)
    return tl_error_status();
  if (tl_tensor_is_dense(dst)) {
    /* A pinned source of the right dtype and shape laid out as dst goes as
     * it is (asynchronously when asked); anything else is staged first, in
     * dst's layout, so that one block moves. */
    bool direct = tl_tensor_same_block(src, dst);
    if (!direct) {
      status = tl_tensor_empty_format(&host, dst, dst->dtype, tl_device_cpu(),
                                      TL_FORMAT_PRESERVE);
      if (status != TL_OK || (status = tl_tensor_copy(&host, src)) != TL_OK)
        goto done;
      src = &host;
    }
    size_t nbytes = (size_t)tl_tensor_numel(dst) * tl_dtype_size(dst->dtype);
    status = nbytes ? b->copy_from_host(device, tl_tensor_data(dst), tl_tensor_data(src), nbytes,
                                        NULL, non_blocking && direct)
                    : TL_OK;
    if (status == TL_OK && nbytes && non_blocking && direct)
      status = record_pinned_use(src, device, b->current_stream(device));
    goto done;
  }
  if (tl_tensor_has_internal_overlap(dst)) {
    status = tl_error_set(TL_ERR_RUNTIME, "unsupported operation: more than one element of the "
                                          "written-to tensor refers to a single memory location. "
                                          "Please clone() the tensor before performing the "
                                          "operation.");
    goto done;
  }
  /* A strided device view: fetch the bytes it covers, write into them on the
   * host, send them back (the bytes between its elements go back unchanged). */
  if ((status = download(dst, &host)) != TL_OK)
    goto done;
  if ((status = tl_tensor_copy(&host, src)) == TL_OK)
    status = upload_span(dst, &host);
done:
  if (host.storage)
    tl_tensor_release(&host);
  return status;
}

tl_status tl_backend_tensor_copy(tl_tensor *dst, const tl_tensor *src, bool non_blocking)
{
  tl_device dd = tl_tensor_device(dst), sd = tl_tensor_device(src);
  tl_tensor host = {0};
  tl_status status;
  if (dst->storage->readonly)
    return tl_error_set(TL_ERR_VALUE, "assignment destination is read-only");
  if (tl_storage_check_write(dst->storage) != TL_OK)
    return tl_error_status();
  if (!tl_backend_get(dd) || !tl_backend_get(sd))
    return tl_error_status();
  /* The meta device holds no data: nothing comes out of it, even an empty
   * view (PyTorch's error), and what goes in is dropped. */
  if (sd.type == TL_DEVICE_META && dd.type != TL_DEVICE_META)
    return tl_error_set(TL_ERR_NOT_IMPLEMENTED, "Cannot copy out of meta tensor; no data!");
  if (dd.type == TL_DEVICE_META && sd.type != TL_DEVICE_META) {
    tl_storage_bump(dst->storage);
    return TL_OK;
  }
  if (tl_device_eq(dd, sd)) {
    /* One device: a byte copy needs no kernel; a cast or a strided copy is
     * the device's copy kernel's (Tensor.to(dtype), contiguous() on CUDA). */
    const tl_backend *b = tl_backend_get(dd);
    if (!tl_tensor_same_block(dst, src))
      return tl_tensor_copy(dst, src);
    size_t nbytes = (size_t)tl_tensor_numel(dst) * tl_dtype_size(dst->dtype);
    tl_storage_bump(dst->storage);
    if (!nbytes || tl_tensor_data(dst) == tl_tensor_data(src))
      return TL_OK;
    return b->copy_on_device(dd, tl_tensor_data(dst), tl_tensor_data(src), nbytes, NULL,
                             non_blocking);
  }
  if (sd.type != TL_DEVICE_CPU) {
    if ((status = download(src, &host)) != TL_OK)
      return status;
    src = &host;
  }
  if (dd.type == TL_DEVICE_CPU)
    status = tl_tensor_copy(dst, src); /* CPU to CPU now: the host loop casts and broadcasts */
  else {
    tl_storage_bump(dst->storage);
    status = copy_from_cpu(dst, src, non_blocking && sd.type == TL_DEVICE_CPU);
  }
  if (host.storage)
    tl_tensor_release(&host);
  return status;
}

tl_status tl_backend_tensor_to(tl_tensor *out, const tl_tensor *src, tl_device device,
                               tl_dtype dtype, bool non_blocking)
{
  return tl_backend_tensor_to_format(out, src, device, dtype, TL_FORMAT_CONTIGUOUS, non_blocking);
}

tl_status tl_backend_tensor_to_format(tl_tensor *out, const tl_tensor *src, tl_device device,
                                      tl_dtype dtype, tl_format format, bool non_blocking)
{
  if (tl_tensor_empty_format(out, src, dtype, device, format) != TL_OK)
    return tl_error_status();
  if (tl_backend_tensor_copy(out, src, non_blocking) != TL_OK) {
    tl_tensor_release(out);
    return tl_error_status();
  }
  return TL_OK;
}

tl_status tl_backend_read_scalar(const tl_tensor *t, tl_scalar *out)
{
  _Alignas(16) char bytes[16];
  tl_device device = tl_tensor_device(t);
  if (device.type == TL_DEVICE_CPU) {
    *out = tl_scalar_load(t->dtype, tl_tensor_data(t));
    return TL_OK;
  }
  if (device.type == TL_DEVICE_META)
    return tl_error_set(TL_ERR_RUNTIME, "Tensor.item() cannot be called on meta tensors");
  const tl_backend *b = tl_backend_get(device);
  if (!b || sync_point(device) != TL_OK ||
      b->copy_to_host(device, bytes, tl_tensor_data(t), tl_dtype_size(t->dtype), NULL,
                            false) != TL_OK)
    return tl_error_status();
  *out = tl_scalar_load(t->dtype, bytes);
  return TL_OK;
}
