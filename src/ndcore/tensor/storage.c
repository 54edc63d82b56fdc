/* storage.c - refcounted byte buffers.
 *
 * Storage made here keeps its bytes in the same allocation as the header,
 * 64-byte aligned, so a small tensor costs one malloc.  Wrapped storage
 * (NumPy arrays, DLPack capsules) hands its bytes back through `release`.
 *
 * Freed large blocks are kept in a small cache and handed out again for a
 * request of about the same size: loops allocate the same large outputs
 * over and over, and a fresh block costs a page fault and a kernel-zeroed
 * page for every page of it (a 120 MB sort output: ~25 ms).  The cache is
 * bounded (TL_CACHE_SLOTS blocks, TL_CACHE_BYTES in all).                    */
#include <pthread.h>
#include <stdlib.h>
#ifdef __GLIBC__
#include <malloc.h>
#endif
#include <string.h>
#include <sys/mman.h>

#include "ndcore/tensor/tl_tensor.h"

#define TL_STORAGE_ALIGN 64
/* Large buffers are 2 MiB aligned and asked to use transparent huge pages:
 * a fresh 64 MiB output otherwise costs 16k page faults per op. */
#define TL_HUGE_ALIGN ((size_t)2 << 20)
#define TL_HUGE_MIN ((size_t)4 << 20)
#define TL_CACHE_SLOTS 8
#define TL_CACHE_BYTES ((size_t)1 << 30)
/* The header rounded up so that the bytes after it stay aligned. */
#define TL_STORAGE_HEADER \
  ((sizeof(tl_storage) + TL_STORAGE_ALIGN - 1) / TL_STORAGE_ALIGN * TL_STORAGE_ALIGN)

static struct {
  pthread_mutex_t lock;
  void *blocks[TL_CACHE_SLOTS];
  size_t sizes[TL_CACHE_SLOTS]; /* whole block, header included */
  size_t total;
} cache = {.lock = PTHREAD_MUTEX_INITIALIZER};

/* A cached block of at least *size bytes and at most a quarter more, or
 * NULL; *size becomes the block's own size. */
static void *cache_take(size_t *size)
{
  void *block = NULL;
  pthread_mutex_lock(&cache.lock);
  for (int i = 0; i < TL_CACHE_SLOTS && !block; i++)
    if (cache.blocks[i] && cache.sizes[i] >= *size && cache.sizes[i] - *size <= *size / 4) {
      block = cache.blocks[i];
      cache.blocks[i] = NULL;
      cache.total -= cache.sizes[i];
      *size = cache.sizes[i];
    }
  pthread_mutex_unlock(&cache.lock);
  return block;
}

/* Keep a freed block for reuse, or free it when the cache is full. */
static void cache_put(void *block, size_t size)
{
  pthread_mutex_lock(&cache.lock);
  for (int i = 0; i < TL_CACHE_SLOTS && block; i++)
    if (!cache.blocks[i] && cache.total + size <= TL_CACHE_BYTES) {
      cache.blocks[i] = block;
      cache.sizes[i] = size;
      cache.total += size;
      block = NULL;
    }
  pthread_mutex_unlock(&cache.lock);
  free(block);
}

void tl_storage_init(void)
{
#ifdef __GLIBC__
  /* Blocks below the huge size come from malloc.  glibc's defaults map each
   * one above 128 KiB afresh and give the heap's top back to the kernel
   * soon after, so a loop making 1-4 MB tensors page-faults every byte of
   * every output (a chain of ops on 10^6 floats ran 3.5x slower; a training
   * step that frees its activations and makes them again, 3x).  Keeping freed
   * blocks in the heap makes them reusable: the process keeps up to 1 GiB of
   * free heap for the next step instead of returning it at once. */
  mallopt(M_MMAP_THRESHOLD, 32 << 20);
  mallopt(M_TRIM_THRESHOLD, 1 << 30);
#endif
}

tl_storage *tl_storage_new(size_t nbytes)
{
  if (nbytes > SIZE_MAX - TL_HUGE_ALIGN * 2) {
    tl_error_set(TL_ERR_MEMORY, "cannot allocate %zu bytes", nbytes);
    return NULL;
  }
  void *block = NULL;
  bool huge = nbytes >= TL_HUGE_MIN;
  /* A huge block keeps its header on a separate 2 MiB prefix so the data
   * itself starts on a 2 MiB boundary; its size is rounded to whole 2 MiB
   * pages so that blocks are interchangeable in the cache. */
  size_t header = huge ? TL_HUGE_ALIGN : TL_STORAGE_HEADER;
  size_t size = header + (nbytes ? nbytes : 1);
  if (huge) {
    size = (size + TL_HUGE_ALIGN - 1) / TL_HUGE_ALIGN * TL_HUGE_ALIGN;
    block = cache_take(&size);
  }
  if (!block) {
    if (posix_memalign(&block, huge ? TL_HUGE_ALIGN : TL_STORAGE_ALIGN, size) != 0) {
      tl_error_set(TL_ERR_MEMORY, "out of memory allocating %zu bytes on the CPU", nbytes);
      return NULL;
    }
#ifdef MADV_HUGEPAGE
    if (huge)
      madvise((char *)block + header, size - header, MADV_HUGEPAGE);
#endif
  }
  tl_storage *s = block;
  memset(s, 0, sizeof *s);
  s->refcount = 1;
  s->data = (char *)block + header;
  s->nbytes = nbytes;
  s->device = tl_device_cpu();
  s->block_bytes = huge ? size : 0;
  return s;
}

static void release_mapping(void *ctx, void *data)
{
  munmap(data, (size_t)(uintptr_t)ctx);
}

tl_storage *tl_storage_new_zeroed(size_t nbytes)
{
  if (nbytes < TL_HUGE_MIN) {
    tl_storage *s = tl_storage_new(nbytes);
    if (s)
      memset(s->data, 0, nbytes);
    return s;
  }
  /* Fresh anonymous pages are zero already: nothing is touched until used,
   * as with NumPy's calloc-backed zeros. */
  size_t length = (nbytes + TL_HUGE_ALIGN - 1) / TL_HUGE_ALIGN * TL_HUGE_ALIGN;
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
                    .readonly = readonly, .release = release, .release_ctx = ctx};
  return s;
}

void tl_storage_incref(tl_storage *s) { __atomic_add_fetch(&s->refcount, 1, __ATOMIC_RELAXED); }

void tl_storage_decref(tl_storage *s)
{
  if (!s || __atomic_sub_fetch(&s->refcount, 1, __ATOMIC_ACQ_REL) != 0)
    return;
  if (s->release)
    s->release(s->release_ctx, s->data);
  if (s->block_bytes)
    cache_put(s, s->block_bytes);
  else
    free(s);
}
