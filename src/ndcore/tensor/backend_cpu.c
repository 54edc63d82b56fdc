/* backend_cpu.c - the CPU backend: host memory, memcpy, no streams.
 *
 * A CPU storage keeps its bytes in the same allocation as the header, the
 * data 64-byte aligned, so a small tensor costs one malloc.  Plain malloc,
 * aligned by hand, not posix_memalign: glibc serves a small malloc from its
 * per-thread cache, where memalign carves each block out of a larger chunk
 * and frees the ends (a third of the time of `x + y` on 4x4 tensors).
 *
 * A large storage (TL_HUGE_MIN bytes or more) is a block of whole 2 MiB
 * pages mapped for it alone, so that freeing it can give the memory back to
 * the kernel instead of leaving a hole in malloc's heap; freed ones are kept
 * in the bounded cache of tl_host_cache.h (never more than the peak of what
 * was in use, nor TL_CACHE_BYTES) and handed out again for a request of at
 * least half its size: loops allocate the same large outputs over and over,
 * and a fresh block costs a page fault and a kernel-zeroed page for every
 * page of it (a 120 MB sort output: ~25 ms).                                         */
#include <pthread.h>
#include <stdlib.h>
#ifdef __GLIBC__
#include <malloc.h>
#endif
#include <string.h>
#include <sys/mman.h>

#include "ndcore/tensor/tl_backend.h"
#include "ndcore/tensor/tl_host_cache.h"

#define TL_STORAGE_ALIGN 64
/* Large buffers are 2 MiB aligned and asked to use transparent huge pages:
 * a fresh 64 MiB output otherwise costs 16k page faults per op. */
#define TL_HUGE_ALIGN ((size_t)2 << 20)
#define TL_HUGE_MIN ((size_t)4 << 20)
#define TL_CACHE_BYTES ((size_t)1 << 30)
/* malloc's block for a small storage: the header, then room to align the data. */
#define TL_STORAGE_HEADER (sizeof(tl_storage) + TL_STORAGE_ALIGN - 1)

/* nbytes (a multiple of TL_HUGE_ALIGN) of fresh pages on a TL_HUGE_ALIGN
 * boundary: a mapping TL_HUGE_ALIGN longer, its ends cut off. */
static void *pages_alloc(void *ctx, size_t nbytes)
{
  (void)ctx;
  char *p = mmap(NULL, nbytes + TL_HUGE_ALIGN, PROT_READ | PROT_WRITE,
                 MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (p == MAP_FAILED)
    return NULL;
  char *start = (char *)(((uintptr_t)p + TL_HUGE_ALIGN - 1) & ~(uintptr_t)(TL_HUGE_ALIGN - 1));
  if (start > p)
    munmap(p, (size_t)(start - p));
  if (p + TL_HUGE_ALIGN > start)
    munmap(start + nbytes, (size_t)(p + TL_HUGE_ALIGN - start));
#ifdef MADV_HUGEPAGE
  /* the data: the first 2 MiB page holds only the storage header, and the
   * last stays in small pages: the data rarely fills it, and a huge page
   * there would be resident whole on the first touch of its first bytes
   * (a 24.5 MiB activation cost 26 MiB; up to 2 MiB more per tensor than
   * PyTorch's peak), where small pages cost only what the data covers */
  if (nbytes > 2 * TL_HUGE_ALIGN)
    madvise(start + TL_HUGE_ALIGN, nbytes - 2 * TL_HUGE_ALIGN, MADV_HUGEPAGE);
#endif
  return start;
}

static void pages_free(void *ctx, void *ptr, size_t nbytes)
{
  (void)ctx;
  munmap(ptr, nbytes);
}

static tl_host_cache cache =
    TL_HOST_CACHE_INIT(((tl_host_raw){.alloc = pages_alloc, .free = pages_free}), TL_CACHE_BYTES);
/* Bytes of every storage this backend made that is still alive. */
static size_t allocated_bytes, allocated_peak;

static void count_allocated(size_t nbytes)
{
  size_t now = __atomic_add_fetch(&allocated_bytes, nbytes, __ATOMIC_RELAXED);
  size_t peak = __atomic_load_n(&allocated_peak, __ATOMIC_RELAXED);
  while (now > peak &&
         !__atomic_compare_exchange_n(&allocated_peak, &peak, now, true, __ATOMIC_RELAXED,
                                      __ATOMIC_RELAXED))
    ;
}

void tl_backend_cpu_memory(tl_cpu_memory *out)
{
  out->allocated = __atomic_load_n(&allocated_bytes, __ATOMIC_RELAXED);
  out->peak = __atomic_load_n(&allocated_peak, __ATOMIC_RELAXED);
  tl_host_cache_stats_get(&cache, &out->large);
}

void tl_backend_cpu_empty_cache(void)
{
  tl_host_cache_empty(&cache);
  __atomic_store_n(&allocated_peak, __atomic_load_n(&allocated_bytes, __ATOMIC_RELAXED),
                   __ATOMIC_RELAXED);
#ifdef __GLIBC__
  malloc_trim(0);
#endif
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
  size_t size = (huge ? TL_HUGE_ALIGN : TL_STORAGE_HEADER) + (nbytes ? nbytes : 1);
  if (huge) {
    size = (size + TL_HUGE_ALIGN - 1) / TL_HUGE_ALIGN * TL_HUGE_ALIGN;
    block = tl_host_cache_alloc(&cache, size, &size);
  } else {
    block = malloc(size);
  }
  if (!block) {
    tl_error_set(TL_ERR_MEMORY, "out of memory allocating %zu bytes on the CPU", nbytes);
    return NULL;
  }
  tl_storage *s = block;
  memset(s, 0, sizeof *s);
  s->refcount = 1;
  uintptr_t after = (uintptr_t)(s + 1);
  s->data = huge ? (char *)block + TL_HUGE_ALIGN
                 : (char *)((after + TL_STORAGE_ALIGN - 1) & ~(uintptr_t)(TL_STORAGE_ALIGN - 1));
  s->nbytes = nbytes;
  s->device = tl_device_cpu();
  s->block_bytes = huge ? size : 0;
  s->backend = &tl_backend_cpu;
  count_allocated(nbytes);
  return s;
}

static void cpu_storage_free(tl_storage *s)
{
  __atomic_sub_fetch(&allocated_bytes, s->nbytes, __ATOMIC_RELAXED);
  if (s->block_bytes)
    tl_host_cache_free(&cache, s, s->block_bytes);
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
