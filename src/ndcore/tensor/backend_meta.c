/* backend_meta.c - the meta device: storages that hold no memory.
 *
 * As PyTorch's meta device: a storage keeps its byte count (so
 * untyped_storage().nbytes() and views answer as anywhere else) and a NULL
 * data pointer (data_ptr() is 0); nothing is ever allocated.  Byte
 * operations on the device do nothing, bytes may come in (t.to("meta"),
 * copy_ from a CPU tensor: they are dropped), and none can come out: the
 * copy to the host raises PyTorch's NotImplementedError.  The kernels that
 * do nothing are registered by dispatch/meta.c.                             */
#include <stdlib.h>

#include "ndcore/tensor/tl_backend.h"

static int meta_device_count(void) { return 1; }

static tl_storage *meta_storage_new(const tl_backend *self, tl_device device, size_t nbytes)
{
  tl_storage *s = malloc(sizeof *s);
  if (!s) {
    tl_error_set(TL_ERR_MEMORY, "out of memory");
    return NULL;
  }
  *s = (tl_storage){.refcount = 1, .data = NULL, .nbytes = nbytes,
                    .device = (tl_device){TL_DEVICE_META, -1}, .backend = self};
  (void)device;
  return s;
}

static void meta_storage_free(tl_storage *s) { free(s); }

static tl_status meta_memset(tl_device device, void *dst, int byte, size_t n, tl_stream stream)
{
  (void)device, (void)dst, (void)byte, (void)n, (void)stream;
  return TL_OK;
}

static tl_status meta_copy_in(tl_device device, void *dst, const void *src, size_t n,
                              tl_stream stream, bool async)
{
  (void)device, (void)dst, (void)src, (void)n, (void)stream, (void)async;
  return TL_OK;
}

static tl_status meta_copy_to_host(tl_device device, void *dst, const void *src, size_t n,
                                   tl_stream stream, bool async)
{
  (void)device, (void)dst, (void)src, (void)n, (void)stream, (void)async;
  return tl_error_set(TL_ERR_NOT_IMPLEMENTED, "Cannot copy out of meta tensor; no data!");
}

static tl_status meta_synchronize(tl_device device)
{
  (void)device;
  return TL_OK;
}

static tl_stream meta_current_stream(tl_device device)
{
  (void)device;
  return NULL;
}

const tl_backend tl_backend_meta = {
    .type = TL_DEVICE_META,
    .name = "meta",
    .device_count = meta_device_count,
    .storage_new = meta_storage_new,
    .storage_free = meta_storage_free,
    .memset = meta_memset,
    .copy_from_host = meta_copy_in,
    .copy_to_host = meta_copy_to_host,
    .copy_on_device = meta_copy_in,
    .synchronize = meta_synchronize,
    .current_stream = meta_current_stream,
    .pool = NULL,
};
