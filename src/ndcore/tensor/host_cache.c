/* host_cache.c - the bounded cache of large host blocks (tl_host_cache.h).
 *
 * The cached blocks are an array, oldest first: eviction takes from the
 * front.  Blocks leaving the cache are collected under the lock and handed
 * to the raw allocator after it is released (munmap is not free).          */
#include <string.h>

#include "ndcore/tensor/tl_host_cache.h"

typedef struct {
  int n;
  void *blocks[TL_HOST_CACHE_SLOTS];
  size_t sizes[TL_HOST_CACHE_SLOTS];
} evicted;

/* Take cached block i out of the cache; its size in *size. */
static void *take(tl_host_cache *c, int i, size_t *size)
{
  void *block = c->blocks[i];
  *size = c->sizes[i];
  c->st.cached -= *size;
  c->st.ncached--;
  c->n--;
  memmove(&c->blocks[i], &c->blocks[i + 1], (size_t)(c->n - i) * sizeof *c->blocks);
  memmove(&c->sizes[i], &c->sizes[i + 1], (size_t)(c->n - i) * sizeof *c->sizes);
  return block;
}

static void drop(tl_host_cache *c, int i, evicted *out)
{
  out->blocks[out->n] = take(c, i, &out->sizes[out->n]);
  out->n++;
}

/* Drop the oldest blocks until at most `bytes` are cached in at most `slots` blocks. */
static void shrink(tl_host_cache *c, size_t bytes, int slots, evicted *out)
{
  while (c->n > 0 && (c->st.cached > bytes || c->n > slots))
    drop(c, 0, out);
}

static void release(tl_host_cache *c, evicted *e)
{
  for (int i = 0; i < e->n; i++)
    c->raw.free(c->raw.ctx, e->blocks[i], e->sizes[i]);
  pthread_mutex_lock(&c->lock);
  c->st.raw_frees += e->n;
  pthread_mutex_unlock(&c->lock);
  e->n = 0;
}

static void count_live(tl_host_cache *c, size_t size)
{
  c->st.live += size;
  c->st.nlive++;
  if (c->st.live > c->st.peak)
    c->st.peak = c->st.live;
}

void *tl_host_cache_alloc(tl_host_cache *c, size_t size, size_t *got)
{
  evicted e = {0};
  void *block = NULL;
  pthread_mutex_lock(&c->lock);
  int best = -1;
  for (int i = 0; i < c->n; i++)
    if (c->sizes[i] >= size && c->sizes[i] - size <= size &&
        (best < 0 || c->sizes[i] < c->sizes[best]))
      best = i;
  if (best >= 0) {
    block = take(c, best, got);
    c->st.hits++;
    count_live(c, *got);
    pthread_mutex_unlock(&c->lock);
    return block;
  }
  /* a miss: what is in use after it plus what stays cached fits under the
   * peak (or under the new block's own peak, which it sets) */
  size_t after = c->st.live + size;
  size_t bound = c->st.peak > after ? c->st.peak : after;
  shrink(c, bound - after, TL_HOST_CACHE_SLOTS, &e);
  pthread_mutex_unlock(&c->lock);
  release(c, &e);
  block = c->raw.alloc(c->raw.ctx, size);
  if (!block) { /* the cache's blocks may be what the request needs */
    tl_host_cache_empty(c);
    block = c->raw.alloc(c->raw.ctx, size);
  }
  pthread_mutex_lock(&c->lock);
  if (block) {
    c->st.raw_allocs++;
    count_live(c, size);
    *got = size;
  }
  pthread_mutex_unlock(&c->lock);
  return block;
}

void tl_host_cache_free(tl_host_cache *c, void *block, size_t size)
{
  evicted e = {0};
  pthread_mutex_lock(&c->lock);
  c->st.live -= size;
  c->st.nlive--;
  if (size > c->cap) {
    e.blocks[e.n] = block;
    e.sizes[e.n++] = size;
  } else {
    /* the newest block is the likeliest to be asked for again: older ones
     * make room for it */
    shrink(c, c->cap - size, TL_HOST_CACHE_SLOTS - 1, &e);
    c->blocks[c->n] = block;
    c->sizes[c->n++] = size;
    c->st.cached += size;
    c->st.ncached++;
  }
  pthread_mutex_unlock(&c->lock);
  release(c, &e);
}

void tl_host_cache_empty(tl_host_cache *c)
{
  evicted e = {0};
  pthread_mutex_lock(&c->lock);
  shrink(c, 0, 0, &e);
  c->st.peak = c->st.live;
  pthread_mutex_unlock(&c->lock);
  release(c, &e);
}

void tl_host_cache_stats_get(tl_host_cache *c, tl_host_cache_stats *out)
{
  pthread_mutex_lock(&c->lock);
  *out = c->st;
  pthread_mutex_unlock(&c->lock);
}
