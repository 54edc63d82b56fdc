/* alloc_pool.c - the caching pool over a raw allocator (see tl_alloc.h for the rules).
 *
 * Invariants:
 *   - every block belongs to one segment; a segment's blocks form a list by
 *     address (prev/next) that covers the segment exactly;
 *   - a block is in exactly one state: allocated (handed out), pending (freed
 *     by the caller, waiting for events on the streams it was used on), or
 *     free (in its pool's free list, is_free set);
 *   - two free neighbours never coexist: freeing merges them;
 *   - a free list is sorted by (stream, size, address), so the first block of
 *     the caller's stream that is big enough is the best fit.
 * Every public function takes the pool's lock; the static ones assume it.  */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ndcore/tensor/tl_alloc.h"

#define TL_MIN_BLOCK ((size_t)512)         /* every size is a multiple of this */
#define TL_SMALL_SIZE ((size_t)1 << 20)    /* largest request served by the small pool */
#define TL_SMALL_SEGMENT ((size_t)2 << 20) /* the small pool's segments */
#define TL_LARGE_SEGMENT ((size_t)20 << 20) /* segments for large requests under ... */
#define TL_MIN_LARGE_ALLOC ((size_t)10 << 20) /* ... this size */
#define TL_ROUND_LARGE ((size_t)2 << 20)   /* other segments are rounded to this */

struct tl_alloc_pool {
  pthread_mutex_t lock;
  tl_alloc_raw raw;
  tl_alloc_config config;
  char device_name[32];
  tl_block *free_small, *free_large; /* sorted free lists */
  tl_block *pending;                 /* freed, waiting for events */
  tl_block *segments;                /* first block of every segment */
  size_t limit;                      /* cap on reserved bytes (set_fraction), SIZE_MAX if none */
  tl_alloc_stats stats;
};

size_t tl_alloc_round_size(size_t nbytes)
{
  if (nbytes < TL_MIN_BLOCK)
    return TL_MIN_BLOCK;
  return (nbytes + TL_MIN_BLOCK - 1) / TL_MIN_BLOCK * TL_MIN_BLOCK;
}

size_t tl_alloc_segment_size(size_t rounded)
{
  if (rounded <= TL_SMALL_SIZE)
    return TL_SMALL_SEGMENT;
  if (rounded < TL_MIN_LARGE_ALLOC)
    return TL_LARGE_SEGMENT;
  return (rounded + TL_ROUND_LARGE - 1) / TL_ROUND_LARGE * TL_ROUND_LARGE;
}

/* ---- configuration ---------------------------------------------------------- */

tl_status tl_alloc_config_parse(const char *text, tl_alloc_config *out)
{
  *out = (tl_alloc_config){.max_split_size = SIZE_MAX};
  char entry[128];
  for (const char *p = text; p && *p;) {
    size_t n = strcspn(p, ",");
    if (n >= sizeof entry)
      return tl_error_set(TL_ERR_VALUE, "TORCHLIKE_CUDA_ALLOC_CONF: entry too long: %.40s...", p);
    memcpy(entry, p, n);
    entry[n] = '\0';
    p += n + (p[n] == ',');
    char *colon = strchr(entry, ':');
    if (!n)
      continue;
    if (!colon)
      return tl_error_set(TL_ERR_VALUE, "TORCHLIKE_CUDA_ALLOC_CONF: expected key:value, got '%s'",
                          entry);
    *colon = '\0';
    const char *key = entry, *value = colon + 1;
    char *end = NULL;
    if (!strcmp(key, "max_split_size_mb")) {
      double mb = strtod(value, &end);
      /* PyTorch requires more than the large segment size (20 MiB) */
      if (end == value || *end || mb <= 20)
        return tl_error_set(TL_ERR_VALUE, "TORCHLIKE_CUDA_ALLOC_CONF: max_split_size_mb must be a "
                                          "number above 20, got '%s'", value);
      out->max_split_size = (size_t)(mb * 1024 * 1024);
    } else if (!strcmp(key, "garbage_collection_threshold")) {
      double t = strtod(value, &end);
      if (end == value || *end || t <= 0 || t >= 1)
        return tl_error_set(TL_ERR_VALUE, "TORCHLIKE_CUDA_ALLOC_CONF: "
                                          "garbage_collection_threshold must be in (0, 1), got "
                                          "'%s'", value);
      out->gc_threshold = t;
    } else if (!strcmp(key, "expandable_segments")) {
      if (strcmp(value, "True") && strcmp(value, "False"))
        return tl_error_set(TL_ERR_VALUE, "TORCHLIKE_CUDA_ALLOC_CONF: expandable_segments must be "
                                          "True or False, got '%s'", value);
      out->expandable_segments = !strcmp(value, "True");
    } else {
      return tl_error_set(TL_ERR_VALUE, "TORCHLIKE_CUDA_ALLOC_CONF: unknown option '%s' (known: "
                                        "max_split_size_mb, garbage_collection_threshold, "
                                        "expandable_segments)", key);
    }
  }
  return TL_OK;
}

void tl_alloc_config_from_env(tl_alloc_config *out)
{
  if (tl_alloc_config_parse(getenv("TORCHLIKE_CUDA_ALLOC_CONF"), out) != TL_OK) {
    tl_error_clear();
    tl_alloc_config_parse(NULL, out);
  }
}

/* ---- statistics ------------------------------------------------------------- */

static void stat_move(tl_alloc_stat *s, int64_t delta)
{
  s->current += delta;
  if (delta > 0)
    s->allocated += delta;
  else
    s->freed -= delta;
  if (s->current > s->peak)
    s->peak = s->current;
}

/* Apply delta to the all-pools entry and to the block's own pool. */
static void stat_update(tl_alloc_stat *stat, bool small, int64_t delta)
{
  stat_move(&stat[TL_ALLOC_POOL_ALL], delta);
  stat_move(&stat[small ? TL_ALLOC_POOL_SMALL : TL_ALLOC_POOL_LARGE], delta);
}

/* ---- free lists --------------------------------------------------------------- */

static bool block_less(const tl_block *a, const tl_block *b)
{
  if (a->stream != b->stream)
    return (uintptr_t)a->stream < (uintptr_t)b->stream;
  if (a->size != b->size)
    return a->size < b->size;
  return (uintptr_t)a->ptr < (uintptr_t)b->ptr;
}

static tl_block **free_list(tl_alloc_pool *pool, bool small)
{
  return small ? &pool->free_small : &pool->free_large;
}

static void free_list_insert(tl_alloc_pool *pool, tl_block *b)
{
  tl_block **head = free_list(pool, b->small), *prev = NULL, *cur = *head;
  while (cur && block_less(cur, b)) {
    prev = cur;
    cur = cur->free_next;
  }
  b->free_prev = prev;
  b->free_next = cur;
  if (cur)
    cur->free_prev = b;
  if (prev)
    prev->free_next = b;
  else
    *head = b;
  b->is_free = true;
  /* A free piece of a segment that is not wholly free cannot be released:
   * PyTorch calls it an inactive split. */
  b->counted_split = b->prev || b->next;
  if (b->counted_split) {
    stat_update(pool->stats.inactive_split, b->small, 1);
    stat_update(pool->stats.inactive_split_bytes, b->small, (int64_t)b->size);
  }
}

static void free_list_remove(tl_alloc_pool *pool, tl_block *b)
{
  if (b->free_prev)
    b->free_prev->free_next = b->free_next;
  else
    *free_list(pool, b->small) = b->free_next;
  if (b->free_next)
    b->free_next->free_prev = b->free_prev;
  b->free_prev = b->free_next = NULL;
  b->is_free = false;
  if (b->counted_split) {
    stat_update(pool->stats.inactive_split, b->small, -1);
    stat_update(pool->stats.inactive_split_bytes, b->small, -(int64_t)b->size);
    b->counted_split = false;
  }
}

/* ---- segments ----------------------------------------------------------------- */

static tl_block *block_new(void)
{
  tl_block *b = calloc(1, sizeof *b);
  return b;
}

static void block_delete(tl_block *b)
{
  free(b->uses);
  free(b->events);
  free(b);
}

/* A new segment of `size` bytes as one block, or NULL (no error set). */
static tl_block *segment_new(tl_alloc_pool *pool, size_t size, bool small, tl_stream stream)
{
  size_t reserved = (size_t)pool->stats.reserved_bytes[TL_ALLOC_POOL_ALL].current;
  if (size > pool->limit || reserved > pool->limit - size)
    return NULL;
  tl_block *b = block_new();
  if (!b)
    return NULL;
  b->ptr = pool->raw.alloc(pool->raw.ctx, size);
  if (!b->ptr) {
    free(b);
    return NULL;
  }
  b->size = b->segment_size = size;
  b->small = small;
  b->stream = stream;
  b->segment_next = pool->segments;
  pool->segments = b;
  pool->stats.num_device_alloc++;
  stat_update(pool->stats.segment, small, 1);
  stat_update(pool->stats.reserved_bytes, small, (int64_t)size);
  if (size >= pool->config.max_split_size)
    stat_move(&pool->stats.oversize_segments, 1);
  return b;
}

/* Give every wholly free segment back to the raw allocator. */
static void release_cached(tl_alloc_pool *pool)
{
  tl_block **link = &pool->segments;
  while (*link) {
    tl_block *b = *link;
    if (!b->is_free || b->next) {
      link = &b->segment_next;
      continue;
    }
    *link = b->segment_next;
    free_list_remove(pool, b);
    pool->raw.free(pool->raw.ctx, b->ptr, b->size);
    pool->stats.num_device_free++;
    stat_update(pool->stats.segment, b->small, -1);
    stat_update(pool->stats.reserved_bytes, b->small, -(int64_t)b->size);
    if (b->size >= pool->config.max_split_size)
      stat_move(&pool->stats.oversize_segments, -1);
    block_delete(b);
  }
}

/* ---- freeing: merge, events ------------------------------------------------------- */

/* Absorb a free neighbour into b (both in the same segment). */
static void merge(tl_alloc_pool *pool, tl_block *b, tl_block *n)
{
  free_list_remove(pool, n);
  if (n == b->prev) {
    b->ptr = n->ptr;
    b->prev = n->prev;
    if (b->prev)
      b->prev->next = b;
    else { /* n headed the segment: b takes its place in the segment list */
      b->segment_size = n->segment_size;
      b->segment_next = n->segment_next;
      for (tl_block **link = &pool->segments; *link; link = &(*link)->segment_next)
        if (*link == n) {
          *link = b;
          break;
        }
    }
  } else {
    b->next = n->next;
    if (b->next)
      b->next->prev = b;
  }
  b->size += n->size;
  block_delete(n);
}

/* b is no longer used by anyone: merge it with free neighbours and keep it. */
static void block_release(tl_alloc_pool *pool, tl_block *b)
{
  stat_update(pool->stats.active, b->small, -1);
  stat_update(pool->stats.active_bytes, b->small, -(int64_t)b->size);
  b->nuses = 0;
  if (b->prev && b->prev->is_free)
    merge(pool, b, b->prev);
  if (b->next && b->next->is_free)
    merge(pool, b, b->next);
  free_list_insert(pool, b);
}

/* Move pending blocks whose events have all completed (or all of them when
 * `wait`, after waiting) into the free lists. */
static void process_events(tl_alloc_pool *pool, bool wait)
{
  tl_block **link = &pool->pending;
  if (wait && pool->pending)
    pool->stats.num_sync_all_streams++;
  while (*link) {
    tl_block *b = *link;
    bool done = true;
    for (int i = 0; i < b->nevents && done; i++) {
      if (wait)
        pool->raw.event_synchronize(pool->raw.ctx, b->events[i]);
      done = pool->raw.event_query(pool->raw.ctx, b->events[i]);
    }
    if (!done) {
      link = &b->pending_next;
      continue;
    }
    *link = b->pending_next;
    b->pending_next = NULL;
    for (int i = 0; i < b->nevents; i++)
      pool->raw.event_free(pool->raw.ctx, b->events[i]);
    b->nevents = 0;
    block_release(pool, b);
  }
}

/* ---- the pool ------------------------------------------------------------------- */

tl_alloc_pool *tl_alloc_pool_new(const tl_alloc_raw *raw, const tl_alloc_config *config,
                                 const char *device_name)
{
  tl_alloc_pool *pool = calloc(1, sizeof *pool);
  if (!pool) {
    tl_error_set(TL_ERR_MEMORY, "out of memory");
    return NULL;
  }
  pthread_mutex_init(&pool->lock, NULL);
  pool->raw = *raw;
  pool->config = *config;
  pool->limit = SIZE_MAX;
  pool->stats.max_split_size = config->max_split_size;
  snprintf(pool->device_name, sizeof pool->device_name, "%s", device_name);
  return pool;
}

int tl_alloc_pool_delete(tl_alloc_pool *pool)
{
  if (!pool)
    return 0;
  process_events(pool, true);
  release_cached(pool);
  int leaked = 0;
  for (tl_block *s = pool->segments, *next; s; s = next) {
    next = s->segment_next;
    leaked++;
    for (tl_block *b = s->next, *bn; b; b = bn) {
      bn = b->next;
      block_delete(b);
    }
    pool->raw.free(pool->raw.ctx, s->ptr, s->segment_size);
    block_delete(s);
  }
  pthread_mutex_destroy(&pool->lock);
  free(pool);
  return leaked;
}

/* The best cached block for a request, or NULL. */
static tl_block *find_free(tl_alloc_pool *pool, size_t size, bool small, tl_stream stream)
{
  size_t max_split = pool->config.max_split_size;
  for (tl_block *b = *free_list(pool, small); b; b = b->free_next) {
    if ((uintptr_t)b->stream < (uintptr_t)stream || (b->stream == stream && b->size < size))
      continue;
    if (b->stream != stream)
      return NULL;
    /* An oversize block serves only oversize requests that waste little of it. */
    if (size < max_split && b->size >= max_split)
      return NULL;
    if (size >= max_split && b->size - size >= TL_LARGE_SEGMENT)
      return NULL;
    return b;
  }
  return NULL;
}

static const char *format_bytes(char *buf, size_t n, double bytes)
{
  static const char *const units[] = {"bytes", "KiB", "MiB", "GiB", "TiB"};
  int u = 0;
  while (bytes >= 1024 && u < 4) {
    bytes /= 1024;
    u++;
  }
  snprintf(buf, n, u ? "%.2f %s" : "%.0f %s", bytes, units[u]);
  return buf;
}

static void set_oom_error(tl_alloc_pool *pool, size_t nbytes)
{
  size_t free_bytes = 0, total = 0;
  char req[32], tot[32], fr[32], al[32], un[32], lim[96] = "";
  pool->raw.mem_info(pool->raw.ctx, &free_bytes, &total);
  int64_t allocated = pool->stats.allocated_bytes[TL_ALLOC_POOL_ALL].current;
  int64_t reserved = pool->stats.reserved_bytes[TL_ALLOC_POOL_ALL].current;
  if (pool->limit != SIZE_MAX) {
    char l[32];
    snprintf(lim, sizeof lim, " (limited to %s by the memory fraction)",
             format_bytes(l, sizeof l, (double)pool->limit));
  }
  tl_error_set(TL_ERR_OUT_OF_MEMORY,
               "%s out of memory. Tried to allocate %s. The device has a total capacity of %s of "
               "which %s is free%s. Of the allocated memory %s is allocated by torchlike, and %s "
               "is reserved by torchlike but unallocated.",
               pool->device_name, format_bytes(req, sizeof req, (double)nbytes),
               format_bytes(tot, sizeof tot, (double)total),
               format_bytes(fr, sizeof fr, (double)free_bytes), lim,
               format_bytes(al, sizeof al, (double)allocated),
               format_bytes(un, sizeof un, (double)(reserved - allocated)));
}

static tl_block *pool_malloc(tl_alloc_pool *pool, size_t nbytes, tl_stream stream)
{
  if (nbytes > SIZE_MAX / 2) {
    pool->stats.num_ooms++;
    set_oom_error(pool, nbytes);
    return NULL;
  }
  size_t size = tl_alloc_round_size(nbytes);
  bool small = size <= TL_SMALL_SIZE;
  process_events(pool, false);
  tl_block *b = find_free(pool, size, small, stream);
  if (b)
    free_list_remove(pool, b);
  else {
    size_t segment = tl_alloc_segment_size(size);
    double gc = pool->config.gc_threshold;
    if (gc > 0 && pool->limit != SIZE_MAX &&
        (double)pool->stats.reserved_bytes[TL_ALLOC_POOL_ALL].current + (double)segment >
            gc * (double)pool->limit)
      release_cached(pool); /* over the threshold: reclaim before growing */
    b = segment_new(pool, segment, small, stream);
    if (!b) { /* out of memory: give the cache back, wait for pending blocks, retry */
      pool->stats.num_alloc_retries++;
      process_events(pool, true);
      b = find_free(pool, size, small, stream);
      if (b)
        free_list_remove(pool, b);
      else {
        release_cached(pool);
        b = segment_new(pool, segment, small, stream);
      }
    }
    if (!b) {
      pool->stats.num_ooms++;
      set_oom_error(pool, nbytes);
      return NULL;
    }
  }
  /* Split off what the request does not need and keep it. */
  size_t rest = b->size - size;
  bool split = small ? rest >= TL_MIN_BLOCK
                     : rest > TL_SMALL_SIZE && b->size < pool->config.max_split_size;
  if (split) {
    tl_block *r = block_new();
    if (r) {
      r->ptr = (char *)b->ptr + size;
      r->size = rest;
      r->small = small;
      r->stream = stream;
      r->prev = b;
      r->next = b->next;
      if (r->next)
        r->next->prev = r;
      b->next = r;
      b->size = size;
      free_list_insert(pool, r);
    }
  }
  b->allocated = true;
  b->requested = nbytes;
  stat_update(pool->stats.allocation, small, 1);
  stat_update(pool->stats.allocated_bytes, small, (int64_t)b->size);
  stat_update(pool->stats.requested_bytes, small, (int64_t)nbytes);
  stat_update(pool->stats.active, small, 1);
  stat_update(pool->stats.active_bytes, small, (int64_t)b->size);
  if (b->size >= pool->config.max_split_size)
    stat_move(&pool->stats.oversize_allocations, 1);
  return b;
}

tl_block *tl_alloc_pool_malloc(tl_alloc_pool *pool, size_t nbytes, tl_stream stream)
{
  pthread_mutex_lock(&pool->lock);
  tl_block *b = pool_malloc(pool, nbytes, stream);
  pthread_mutex_unlock(&pool->lock);
  return b;
}

static void pool_free(tl_alloc_pool *pool, tl_block *b)
{
  b->allocated = false;
  stat_update(pool->stats.allocation, b->small, -1);
  stat_update(pool->stats.allocated_bytes, b->small, -(int64_t)b->size);
  stat_update(pool->stats.requested_bytes, b->small, -(int64_t)b->requested);
  if (b->size >= pool->config.max_split_size)
    stat_move(&pool->stats.oversize_allocations, -1);
  if (b->nuses && pool->raw.event_record) {
    /* Other streams may still read it: wait for what they have queued so far. */
    void **events = realloc(b->events, (size_t)b->nuses * sizeof *events);
    if (events) {
      b->events = events;
      for (int i = 0; i < b->nuses; i++)
        events[b->nevents++] = pool->raw.event_record(pool->raw.ctx, b->uses[i]);
      b->pending_next = pool->pending;
      pool->pending = b;
      return;
    }
    /* no memory for the events: wait for the streams instead */
    for (int i = 0; i < b->nuses; i++) {
      void *e = pool->raw.event_record(pool->raw.ctx, b->uses[i]);
      pool->raw.event_synchronize(pool->raw.ctx, e);
      pool->raw.event_free(pool->raw.ctx, e);
    }
  }
  block_release(pool, b);
}

void tl_alloc_pool_free(tl_alloc_pool *pool, tl_block *b)
{
  pthread_mutex_lock(&pool->lock);
  pool_free(pool, b);
  pthread_mutex_unlock(&pool->lock);
}

static tl_status record_stream(tl_block *b, tl_stream stream)
{
  if (stream == b->stream)
    return TL_OK;
  for (int i = 0; i < b->nuses; i++)
    if (b->uses[i] == stream)
      return TL_OK;
  if (b->nuses == b->cap_uses) {
    int cap = b->cap_uses ? b->cap_uses * 2 : 4;
    tl_stream *uses = realloc(b->uses, (size_t)cap * sizeof *uses);
    if (!uses)
      return tl_error_set(TL_ERR_MEMORY, "out of memory");
    b->uses = uses;
    b->cap_uses = cap;
  }
  b->uses[b->nuses++] = stream;
  return TL_OK;
}

tl_status tl_alloc_pool_record_stream(tl_alloc_pool *pool, tl_block *b, tl_stream stream)
{
  pthread_mutex_lock(&pool->lock);
  tl_status s = record_stream(b, stream);
  pthread_mutex_unlock(&pool->lock);
  return s;
}

tl_block *tl_alloc_pool_find(tl_alloc_pool *pool, void *ptr)
{
  tl_block *found = NULL;
  pthread_mutex_lock(&pool->lock);
  for (tl_block *s = pool->segments; s && !found; s = s->segment_next)
    for (tl_block *b = s; b && !found; b = b->next)
      if (b->ptr == ptr && b->allocated)
        found = b;
  pthread_mutex_unlock(&pool->lock);
  return found;
}

void *tl_alloc_pool_segment_base(tl_alloc_pool *pool, const tl_block *b)
{
  pthread_mutex_lock(&pool->lock); /* splits and merges relink the neighbours */
  while (b->prev)
    b = b->prev;
  void *base = b->ptr;
  pthread_mutex_unlock(&pool->lock);
  return base;
}

void tl_alloc_pool_empty_cache(tl_alloc_pool *pool)
{
  pthread_mutex_lock(&pool->lock);
  process_events(pool, true);
  release_cached(pool);
  pthread_mutex_unlock(&pool->lock);
}

void tl_alloc_pool_stats(tl_alloc_pool *pool, tl_alloc_stats *out)
{
  pthread_mutex_lock(&pool->lock);
  *out = pool->stats;
  pthread_mutex_unlock(&pool->lock);
}

void tl_alloc_pool_mem_info(tl_alloc_pool *pool, size_t *free_bytes, size_t *total_bytes)
{
  pool->raw.mem_info(pool->raw.ctx, free_bytes, total_bytes);
}

static void reset_peak(tl_alloc_stat *s) { s->peak = s->current; }
static void reset_accumulated(tl_alloc_stat *s) { s->allocated = s->freed = 0; }

/* Apply f to every statistic with aggregates. */
static void stats_each(tl_alloc_stats *st, void (*f)(tl_alloc_stat *))
{
  tl_alloc_stat *groups[] = {st->allocation, st->segment, st->active, st->inactive_split,
                             st->allocated_bytes, st->reserved_bytes, st->active_bytes,
                             st->inactive_split_bytes, st->requested_bytes};
  for (size_t g = 0; g < sizeof groups / sizeof *groups; g++)
    for (int k = 0; k < TL_ALLOC_POOL_KINDS; k++)
      f(&groups[g][k]);
  f(&st->oversize_allocations);
  f(&st->oversize_segments);
}

void tl_alloc_pool_reset_peaks(tl_alloc_pool *pool)
{
  pthread_mutex_lock(&pool->lock);
  stats_each(&pool->stats, reset_peak);
  pthread_mutex_unlock(&pool->lock);
}

void tl_alloc_pool_reset_accumulated(tl_alloc_pool *pool)
{
  pthread_mutex_lock(&pool->lock);
  stats_each(&pool->stats, reset_accumulated);
  pool->stats.num_alloc_retries = pool->stats.num_ooms = pool->stats.num_sync_all_streams = 0;
  pool->stats.num_device_alloc = pool->stats.num_device_free = 0;
  pthread_mutex_unlock(&pool->lock);
}

tl_status tl_alloc_pool_set_fraction(tl_alloc_pool *pool, double fraction)
{
  size_t free_bytes = 0, total = 0;
  if (!(fraction > 0 && fraction <= 1))
    return tl_error_set(TL_ERR_VALUE, "set_per_process_memory_fraction: fraction must be in "
                                      "(0, 1], got %g", fraction);
  pool->raw.mem_info(pool->raw.ctx, &free_bytes, &total);
  pthread_mutex_lock(&pool->lock);
  pool->limit = (size_t)(fraction * (double)total);
  pthread_mutex_unlock(&pool->lock);
  return TL_OK;
}

/* One row: current, peak, total allocated, total freed (bytes or counts). */
static size_t summary_row(char *buf, size_t size, const char *label, const tl_alloc_stat *s,
                          bool bytes)
{
  char c[4][32];
  const int64_t v[4] = {s->current, s->peak, s->allocated, s->freed};
  for (int i = 0; i < 4; i++) {
    if (bytes)
      format_bytes(c[i], sizeof c[i], (double)v[i]);
    else
      snprintf(c[i], sizeof c[i], "%lld", (long long)v[i]);
  }
  int n = snprintf(buf, size, "| %-26s | %12s | %12s | %12s | %12s |\n", label, c[0], c[1], c[2],
                   c[3]);
  return n < 0 ? 0 : (size_t)n;
}

void tl_alloc_pool_summary(tl_alloc_pool *pool, char *buf, size_t size)
{
  static const char *const rule =
      "|===========================================================================================|\n";
  tl_alloc_stats copy;
  tl_alloc_pool_stats(pool, &copy);
  const tl_alloc_stats *st = &copy;
  const struct {
    const char *label;
    const tl_alloc_stat *stat;
    bool bytes;
  } rows[] = {
      {"Allocated memory", st->allocated_bytes, true},
      {"Active memory", st->active_bytes, true},
      {"Requested memory", st->requested_bytes, true},
      {"Reserved memory", st->reserved_bytes, true},
      {"Non-releasable memory", st->inactive_split_bytes, true},
      {"Allocations", st->allocation, false},
      {"Active allocs", st->active, false},
      {"Reserved segments", st->segment, false},
      {"Non-releasable allocs", st->inactive_split, false},
  };
  size_t used = 0;
#define TL_PUT(...)                                                      \
  do {                                                                   \
    int n_ = snprintf(buf + used, used < size ? size - used : 0, __VA_ARGS__); \
    used += n_ > 0 ? (size_t)n_ : 0;                                     \
  } while (0)
  if (!size)
    return;
  buf[0] = '\0';
  TL_PUT("%s", rule);
  TL_PUT("| %-89s |\n", "torchlike caching allocator memory summary");
  TL_PUT("| device %-82s |\n", pool->device_name);
  TL_PUT("| %-89s |\n", "");
  TL_PUT("| %-89s |\n", "");
  TL_PUT("| OOMs: %-12lld cudaMalloc retries: %-51lld |\n", (long long)st->num_ooms,
         (long long)st->num_alloc_retries);
  TL_PUT("%s", rule);
  TL_PUT("| %-26s | %12s | %12s | %12s | %12s |\n", "Metric", "Cur Usage", "Peak Usage",
         "Tot Alloc", "Tot Freed");
  for (size_t r = 0; r < sizeof rows / sizeof *rows; r++) {
    TL_PUT("%s", rule);
    if (used < size)
      used += summary_row(buf + used, size - used, rows[r].label, &rows[r].stat[0], rows[r].bytes);
    if (used < size)
      used += summary_row(buf + used, size - used, "      from large pool",
                          &rows[r].stat[TL_ALLOC_POOL_LARGE], rows[r].bytes);
    if (used < size)
      used += summary_row(buf + used, size - used, "      from small pool",
                          &rows[r].stat[TL_ALLOC_POOL_SMALL], rows[r].bytes);
  }
  TL_PUT("%s", rule);
  TL_PUT("| %-26s | %12lld | %12lld | %12lld | %12lld |\n", "Oversize allocations",
         (long long)st->oversize_allocations.current, (long long)st->oversize_allocations.peak,
         (long long)st->oversize_allocations.allocated, (long long)st->oversize_allocations.freed);
  TL_PUT("| %-26s | %12lld | %12lld | %12lld | %12lld |\n", "Oversize GPU segments",
         (long long)st->oversize_segments.current, (long long)st->oversize_segments.peak,
         (long long)st->oversize_segments.allocated, (long long)st->oversize_segments.freed);
  TL_PUT("%s", rule);
#undef TL_PUT
  buf[size - 1] = '\0';
}
