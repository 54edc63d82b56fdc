/* tl_host_cache.h - a bounded cache of large host blocks over a raw allocator.
 *
 * The CPU backend makes every storage of TL_HOST_CACHE_MIN bytes or more a
 * block of its own (whole pages straight from the kernel) and keeps freed
 * ones here, because loops and training steps free and make the same large
 * outputs over and over, and a fresh block costs a page fault and a zeroed
 * page for each of its pages.  What may be kept is bounded twice:
 *
 *   - by the peak: the bytes in use plus the bytes cached never exceed the
 *     most bytes ever in use at once (`peak`).  A request the cache cannot
 *     serve first gives cached blocks back to the raw allocator (oldest
 *     first) until the new block fits under that bound, so the cache never
 *     raises the process's high-water mark above what its live blocks needed;
 *   - by `cap` bytes and TL_HOST_CACHE_SLOTS blocks in all.
 *
 * A request takes the smallest cached block of at least its size and at most
 * twice it.  A training step makes blocks of a few sizes in an order that
 * changes between forward and backward; with a tighter fit (a quarter more)
 * most requests missed, and each miss under the peak bound gave back a
 * resident block and page-faulted a fresh one (small CNN step: 6 fresh
 * blocks a step, a sixth of its time in the kernel zeroing pages; with
 * twice, none after the first step, 23 -> 16 ms).  When the raw allocator fails, the cache is emptied and the
 * request tried once more.  Sizes are the caller's (whole blocks); the cache
 * neither rounds nor splits.  One lock per cache, taken by every function.  The
 * raw interface is plain, so the fake device tests the rule with counted raw
 * calls (tests/test_host_cache.py).                                          */
#ifndef TL_HOST_CACHE_H
#define TL_HOST_CACHE_H

#include <pthread.h>
#include <stddef.h>
#include <stdint.h>

#define TL_HOST_CACHE_SLOTS 32

typedef struct {
  void *ctx;
  void *(*alloc)(void *ctx, size_t nbytes); /* NULL when there is no memory (no error) */
  void (*free)(void *ctx, void *ptr, size_t nbytes);
} tl_host_raw;

typedef struct {
  size_t live, peak, cached; /* bytes in blocks handed out, their most, bytes kept */
  int64_t nlive, ncached;    /* blocks */
  int64_t raw_allocs, raw_frees, hits;
  size_t cap;
} tl_host_cache_stats;

typedef struct {
  pthread_mutex_t lock;
  tl_host_raw raw;
  size_t cap;
  int n;                                 /* cached blocks, oldest first */
  void *blocks[TL_HOST_CACHE_SLOTS];
  size_t sizes[TL_HOST_CACHE_SLOTS];
  tl_host_cache_stats st;
} tl_host_cache;

#define TL_HOST_CACHE_INIT(raw_, cap_) \
  {.lock = PTHREAD_MUTEX_INITIALIZER, .raw = raw_, .cap = cap_, .st = {.cap = cap_}}

/* A block of at least `size` bytes, its own size in *got; NULL when the raw
 * allocator has none even with the cache emptied (no error is set). */
void *tl_host_cache_alloc(tl_host_cache *c, size_t size, size_t *got);
/* Give back a block of the cache's (`size` as *got said). */
void tl_host_cache_free(tl_host_cache *c, void *block, size_t size);
/* Return every cached block to the raw allocator and start the peak again
 * from the bytes in use. */
void tl_host_cache_empty(tl_host_cache *c);
void tl_host_cache_stats_get(tl_host_cache *c, tl_host_cache_stats *out);

#endif
