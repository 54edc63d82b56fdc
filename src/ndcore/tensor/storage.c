/* storage.c - refcounted byte buffers.
 *
 * A storage is made by its device's backend (tl_backend.h), which knows where
 * the bytes live and how to give them back; wrapped storage (NumPy arrays,
 * DLPack capsules) hands its bytes back through `release`.  Nothing here
 * touches the bytes of a storage that is not on the CPU.                     */
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#include "ndcore/tensor/tl_backend.h"

/* Zeroed CPU storages at least this big are fresh anonymous pages. */
#define TL_ZERO_MAP_MIN ((size_t)4 << 20)
#define TL_ZERO_MAP_ALIGN ((size_t)2 << 20)

_Thread_local bool tl_inference_mode = false;

void tl_storage_init(void) { tl_backend_init(); }

tl_status tl_storage_check_write(const tl_storage *s)
{
  if (s->inference && !tl_inference_mode) /* PyTorch's words, to the letter */
    return tl_error_set(TL_ERR_RUNTIME, "Inplace update to inference tensor outside "
                                        "InferenceMode is not allowed.You can make a clone to "
                                        "get a normal tensor before doing inplace update.See "
                                        "https://github.com/pytorch/rfcs/pull/17 for more "
                                        "details.");
  return TL_OK;
}

/* A storage made now is an inference storage if inference mode is on. */
static tl_storage *made_now(tl_storage *s)
{
  if (s)
    s->inference = tl_inference_mode;
  return s;
}

tl_storage *tl_storage_new(tl_device device, size_t nbytes)
{
  const tl_backend *b = tl_backend_get(device);
  return made_now(b ? b->storage_new(b, device, nbytes) : NULL);
}

static void release_mapping(void *ctx, void *data)
{
  munmap(data, (size_t)(uintptr_t)ctx);
}

tl_storage *tl_storage_new_zeroed(tl_device device, size_t nbytes)
{
  if (device.type != TL_DEVICE_CPU || nbytes < TL_ZERO_MAP_MIN) {
    const tl_backend *b = tl_backend_get(device);
    tl_storage *s = b ? b->storage_new(b, device, nbytes) : NULL;
    if (s && nbytes && b->memset(device, s->data, 0, nbytes, NULL) != TL_OK) {
      tl_storage_decref(s);
      return NULL;
    }
    return made_now(s);
  }
  /* Fresh anonymous pages are zero already: nothing is touched until used,
   * as with NumPy's calloc-backed zeros. */
  size_t length = (nbytes + TL_ZERO_MAP_ALIGN - 1) / TL_ZERO_MAP_ALIGN * TL_ZERO_MAP_ALIGN;
  void *data = mmap(NULL, length, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (data == MAP_FAILED) {
    tl_error_set(TL_ERR_MEMORY, "out of memory allocating %zu bytes on the CPU", nbytes);
    return NULL;
  }
#ifdef MADV_HUGEPAGE
  madvise(data, length, MADV_HUGEPAGE);
#endif
  tl_storage *s = tl_storage_wrap(data, nbytes, tl_device_cpu(), false, release_mapping,
                                  (void *)(uintptr_t)length);
  if (!s)
    munmap(data, length);
  return s;
}

tl_storage *tl_storage_wrap(void *data, size_t nbytes, tl_device device, bool readonly,
                            tl_release_fn release, void *ctx)
{
  tl_storage *s = malloc(sizeof *s);
  if (!s) {
    tl_error_set(TL_ERR_MEMORY, "out of memory");
    return NULL;
  }
  *s = (tl_storage){.refcount = 1, .data = data, .nbytes = nbytes, .device = device,
                    .readonly = readonly, .inference = tl_inference_mode, .release = release,
                    .release_ctx = ctx};
  return s;
}

void tl_storage_incref(tl_storage *s) { __atomic_add_fetch(&s->refcount, 1, __ATOMIC_RELAXED); }

void tl_storage_decref(tl_storage *s)
{
  if (!s || __atomic_sub_fetch(&s->refcount, 1, __ATOMIC_ACQ_REL) != 0)
    return;
  if (s->release)
    s->release(s->release_ctx, s->data);
  if (s->backend)
    s->backend->storage_free(s);
  else
    free(s);
}
