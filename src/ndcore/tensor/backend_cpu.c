/* backend_cpu.c - the CPU backend: host memory, memcpy, no streams.
 *
 * A CPU storage keeps its bytes in the same allocation as the header,
 * 64-byte aligned, so a small tensor costs one malloc.
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

#include "ndcore/tensor/tl_backend.h"

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

static int cpu_device_count(void) { return 1; }

static tl_storage *cpu_storage_new(const tl_backend *self, tl_device device, size_t nbytes)
{
  (void)self;
  (void)device;
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
  s->backend = &tl_backend_cpu;
  return s;
}

static void cpu_storage_free(tl_storage *s)
{
  if (s->block_bytes)
    cache_put(s, s->block_bytes);
  else
    free(s);
}

static tl_status cpu_memset(tl_device device, void *dst, int byte, size_t n, tl_stream stream)
{
  (void)device;
  (void)stream;
  memset(dst, byte, n);
  return TL_OK;
}

static tl_status cpu_copy(tl_device device, void *dst, const void *src, size_t n,
                          tl_stream stream, bool async)
{
  (void)device;
  (void)stream;
  (void)async;
  memmove(dst, src, n);
  return TL_OK;
}

static tl_status cpu_synchronize(tl_device device)
{
  (void)device;
  return TL_OK;
}

static tl_stream cpu_current_stream(tl_device device)
{
  (void)device;
  return NULL;
}

const tl_backend tl_backend_cpu = {
    .type = TL_DEVICE_CPU,
    .name = "cpu",
    .device_count = cpu_device_count,
    .storage_new = cpu_storage_new,
    .storage_free = cpu_storage_free,
    .memset = cpu_memset,
    .copy_from_host = cpu_copy,
    .copy_to_host = cpu_copy,
    .copy_on_device = cpu_copy,
    .synchronize = cpu_synchronize,
    .current_stream = cpu_current_stream,
};

/* Set the process allocator up for tensor-sized blocks (called by tl_backend_init). */
void tl_backend_cpu_init(void)
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
