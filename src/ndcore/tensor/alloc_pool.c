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
 *     the caller's stream that is big enough is the best fit;
 *   - an expandable segment (tl_alloc_vm) is listed like a segment, by its
 *     first block, and its blocks cover its whole address range.  Its
 *     unmapped blocks start and end on page boundaries (counted from the
 *     range's base), are in no free list and merge only with each other;
 *     every byte outside them is mapped.
 * Every public function takes the pool's lock; the static ones assume it.  */
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "ndcore/tensor/tl_alloc.h"

#define TL_MIN_BLOCK ((size_t)512)         /* every size is a multiple of this */
#define TL_SMALL_SIZE ((size_t)1 << 20)    /* largest request served by the small pool */
#define TL_SMALL_SEGMENT ((size_t)2 << 20) /* the small pool's segments */
#define TL_LARGE_SEGMENT ((size_t)20 << 20) /* segments for large requests under ... */
#define TL_MIN_LARGE_ALLOC ((size_t)10 << 20) /* ... this size */
#define TL_ROUND_LARGE ((size_t)2 << 20)   /* other segments are rounded to this */

/* An expandable segment: an address range reserved once for one stream and
 * pool kind, whose pages are mapped as requests need them and unmapped when
 * the cache is released.  page is what one vm_map call maps: 2 MiB (small
 * pool) or 20 MiB (large pool), as PyTorch's expandable segments, rounded
 * to the device's granularity. */
typedef struct tl_alloc_vm {
  char *base;
  size_t size, page, mapped; /* bytes reserved, mapped at once, mapped now */
  tl_stream stream;
  bool small;
} tl_alloc_vm;

struct tl_alloc_pool {
  pthread_mutex_t lock;
  tl_alloc_raw raw;
  tl_alloc_config config;
  char device_name[32];
  tl_block *free_small, *free_large; /* sorted free lists */
  tl_block *pending;                 /* freed, waiting for events */
  tl_block *segments;                /* first block of every segment */
  size_t limit;                      /* cap on reserved bytes (set_fraction), SIZE_MAX if none */
  bool vm_failed; /* the device reserved no address range: ordinary segments from then on */
  tl_alloc_stats stats;
  /* history (_record_memory_history): the trace is a ring once it holds
   * max_entries; context is the id captured for the call in progress */
  tl_alloc_history history;
  tl_alloc_trace_entry *trace;
  size_t trace_len, trace_cap, trace_next;
  uint64_t context;
  /* read without the lock, to skip it when nothing is captured */
  atomic_bool capture_alloc, capture_free;
  uint64_t *live_ids; /* private pools whose cache empty_cache keeps */
  size_t nlive;
};

/* The private pool the calling thread routes its requests to, and whose. */
static _Thread_local const tl_alloc_pool *route_pool;
static _Thread_local uint64_t route_id;

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

/* ---- history ------------------------------------------------------------------- */

/* Append an entry to the trace and return it; NULL when no trace is kept
 * or there is no memory for it (dropped silently: the trace is a debugging
 * aid, never a reason to fail). */
static tl_alloc_trace_entry *trace_add(tl_alloc_pool *pool, int action, const void *address, size_t size,
                      tl_stream stream)
{
  size_t max = pool->history.max_entries;
  if (!pool->history.record_trace || !max)
    return NULL;
  struct timespec ts;
  clock_gettime(CLOCK_REALTIME, &ts);
  tl_alloc_trace_entry e = {.action = action, .address = (uintptr_t)address, .size = size,
                            .stream = stream, .context = pool->context,
                            .time_us = (int64_t)ts.tv_sec * 1000000 + ts.tv_nsec / 1000};
  if (pool->trace_len == max) { /* full: overwrite the oldest */
    tl_alloc_trace_entry *slot = &pool->trace[pool->trace_next];
    pool->trace_next = (pool->trace_next + 1) % max;
    *slot = e;
    return slot;
  }
  if (pool->trace_len == pool->trace_cap) {
    size_t cap = pool->trace_cap ? pool->trace_cap * 2 : 256;
    if (cap > max)
      cap = max;
    tl_alloc_trace_entry *t = realloc(pool->trace, cap * sizeof *t);
    if (!t)
      return NULL;
    pool->trace = t;
    pool->trace_cap = cap;
  }
  pool->trace[pool->trace_len] = e;
  return &pool->trace[pool->trace_len++];
}

/* The trace's i-th entry, oldest first. */
static const tl_alloc_trace_entry *trace_at(const tl_alloc_pool *pool, size_t i)
{
  return &pool->trace[(pool->trace_next + i) % pool->trace_len];
}

/* ---- free lists --------------------------------------------------------------- */

static bool block_less(const tl_block *a, const tl_block *b)
{
  if (a->pool_id != b->pool_id)
    return a->pool_id < b->pool_id;
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
   * PyTorch calls it an inactive split.  In an expandable segment its whole
   * pages can be, so PyTorch counts none there, and nor do we. */
  b->counted_split = (b->prev || b->next) && !b->vm;
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

/* r (fresh) becomes the bytes of b past its first `size`, linked after b in
 * its segment; b keeps the first `size`. */
static void split_after(tl_block *b, size_t size, tl_block *r)
{
  *r = (tl_block){.ptr = (char *)b->ptr + size, .size = b->size - size, .small = b->small,
                  .stream = b->stream, .vm = b->vm, .prev = b, .next = b->next,
                  .pool_id = b->pool_id};
  if (r->next)
    r->next->prev = r;
  b->next = r;
  b->size = size;
}

static void block_delete(tl_block *b)
{
  free(b->uses);
  free(b->events);
  free(b);
}

/* A new segment of `size` bytes as one block, or NULL (no error set). */
static tl_block *segment_new(tl_alloc_pool *pool, size_t size, bool small, tl_stream stream,
                             uint64_t pool_id)
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
  b->pool_id = pool_id;
  b->segment_next = pool->segments;
  b->segment_context = pool->context;
  pool->segments = b;
  trace_add(pool, TL_TRACE_SEGMENT_ALLOC, b->ptr, size, stream);
  pool->stats.num_device_alloc++;
  stat_update(pool->stats.segment, small, 1);
  stat_update(pool->stats.reserved_bytes, small, (int64_t)size);
  if (size >= pool->config.max_split_size)
    stat_move(&pool->stats.oversize_segments, 1);
  return b;
}

/* ---- freeing: merge, events ------------------------------------------------------- */

/* b heads the segment that old headed, in its place in the segment list. */
static void segment_replace(tl_alloc_pool *pool, tl_block *old, tl_block *b)
{
  b->segment_size = old->segment_size;
  b->segment_next = old->segment_next;
  b->segment_context = old->segment_context;
  for (tl_block **link = &pool->segments; *link; link = &(*link)->segment_next)
    if (*link == old) {
      *link = b;
      break;
    }
}

/* Absorb a neighbour in the same state (free, or unmapped) into b. */
static void merge(tl_alloc_pool *pool, tl_block *b, tl_block *n)
{
  if (n->is_free)
    free_list_remove(pool, n);
  if (n == b->prev) {
    b->ptr = n->ptr;
    b->prev = n->prev;
    if (b->prev)
      b->prev->next = b;
    else /* n headed the segment: b takes its place in the segment list */
      segment_replace(pool, n, b);
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
  trace_add(pool, TL_TRACE_FREE_COMPLETED, b->ptr, b->size, b->stream);
  b->context = 0;
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

/* ---- expandable segments ---------------------------------------------------------- */

static size_t round_up(size_t n, size_t unit) { return (n + unit - 1) / unit * unit; }

static bool vm_available(const tl_alloc_pool *pool)
{
  const tl_alloc_raw *r = &pool->raw;
  return pool->config.expandable_segments && !pool->vm_failed && r->vm_granularity &&
         r->vm_reserve && r->vm_map && r->vm_unmap && r->vm_release;
}

/* The page and the range size of a new expandable segment; false when the
 * device cannot say its granularity or its memory. */
static bool vm_geometry(tl_alloc_pool *pool, bool small, size_t *page, size_t *size)
{
  size_t gran = pool->raw.vm_granularity(pool->raw.ctx), free_bytes = 0, total = 0;
  pool->raw.mem_info(pool->raw.ctx, &free_bytes, &total);
  if (!gran || !total || total > SIZE_MAX / 2)
    return false;
  *page = round_up(small ? TL_SMALL_SEGMENT : TL_LARGE_SEGMENT, gran);
  /* an eighth more than the device holds, as PyTorch: the used pages may
   * lie apart, with unmapped holes between them, and still leave room to
   * map all of the device's memory */
  *size = round_up(total + total / 8, *page);
  return true;
}

/* A new expandable segment of (stream, small): one unmapped block over the
 * range, or NULL.  When the device reserves no range (or cannot say its
 * geometry) vm_failed is set and the pool makes ordinary segments. */
static tl_block *vm_new(tl_alloc_pool *pool, size_t page, size_t size, bool small,
                        tl_stream stream)
{
  tl_alloc_vm *vm = calloc(1, sizeof *vm);
  tl_block *b = block_new();
  if (!vm || !b)
    goto fail;
  vm->base = pool->raw.vm_reserve(pool->raw.ctx, size);
  if (!vm->base) {
    pool->vm_failed = true;
    goto fail;
  }
  vm->size = size;
  vm->page = page;
  vm->stream = stream;
  vm->small = small;
  b->ptr = vm->base;
  b->size = b->segment_size = size;
  b->small = small;
  b->stream = stream;
  b->vm = vm;
  b->unmapped = true;
  b->segment_next = pool->segments;
  pool->segments = b;
  return b;
fail:
  free(vm);
  free(b);
  return NULL;
}

/* Map [u->ptr, + nbytes) of the unmapped block u (nbytes: whole pages, at
 * most u->size), a page per vm_map call so that each can be unmapped alone.
 * Those bytes become a free block, merged with its free neighbours, which
 * is returned.  NULL when the device (or the memory fraction) has no room
 * for them: nothing has changed then. */
static tl_block *vm_map_block(tl_alloc_pool *pool, tl_block *u, size_t nbytes)
{
  tl_alloc_vm *vm = u->vm;
  size_t reserved = (size_t)pool->stats.reserved_bytes[TL_ALLOC_POOL_ALL].current;
  size_t offset = (size_t)((char *)u->ptr - vm->base), done = 0;
  tl_block *rest = NULL;
  if (nbytes > pool->limit || reserved > pool->limit - nbytes)
    return NULL;
  if (nbytes < u->size && !(rest = block_new()))
    return NULL;
  while (done < nbytes && pool->raw.vm_map(pool->raw.ctx, vm->base, offset + done, vm->page))
    done += vm->page;
  if (done < nbytes) { /* the device ran out part way: give back what this call took */
    while (done) {
      done -= vm->page;
      pool->raw.vm_unmap(pool->raw.ctx, vm->base, offset + done, vm->page);
    }
    free(rest);
    return NULL;
  }
  if (rest) { /* the unmapped remainder follows u */
    split_after(u, nbytes, rest);
    rest->unmapped = true;
  }
  u->unmapped = false;
  trace_add(pool, TL_TRACE_SEGMENT_MAP, u->ptr, nbytes, vm->stream);
  pool->stats.num_device_alloc += (int64_t)(nbytes / vm->page);
  if (!vm->mapped)
    stat_update(pool->stats.segment, vm->small, 1);
  vm->mapped += nbytes;
  stat_update(pool->stats.reserved_bytes, vm->small, (int64_t)nbytes);
  if (u->prev && u->prev->is_free)
    merge(pool, u, u->prev);
  if (u->next && u->next->is_free)
    merge(pool, u, u->next);
  free_list_insert(pool, u);
  return u;
}

/* Where nbytes fit in an expandable segment of (stream, small): the first
 * place, by address, where free and unmapped blocks that follow each other
 * add up to nbytes; its first block (free or unmapped) is returned.  A new
 * segment when no segment has room; NULL when none can be made. */
static tl_block *vm_find(tl_alloc_pool *pool, size_t nbytes, bool small, tl_stream stream)
{
  size_t page, size;
  for (tl_block *s = pool->segments; s; s = s->segment_next) {
    if (!s->vm || s->vm->stream != stream || s->vm->small != small)
      continue;
    for (tl_block *b = s; b; b = b->next) {
      if (!b->unmapped)
        continue;
      tl_block *start = b->prev && b->prev->is_free ? b->prev : b;
      size_t room = 0;
      for (tl_block *c = start; c && (c->is_free || c->unmapped) && room < nbytes; c = c->next)
        room += c->size;
      if (room >= nbytes)
        return start;
    }
  }
  if (!vm_geometry(pool, small, &page, &size)) {
    pool->vm_failed = true;
    return NULL;
  }
  return nbytes <= size ? vm_new(pool, page, size, small, stream) : NULL;
}

/* A free block of at least `size` bytes, taken out of its free list, made
 * by mapping pages of an expandable segment; NULL when the device has no
 * memory left (vm_failed tells whether it has no address ranges either). */
static tl_block *vm_grow(tl_alloc_pool *pool, size_t size, bool small, tl_stream stream)
{
  tl_block *b = vm_find(pool, size, small, stream);
  if (!b)
    return NULL;
  size_t page = b->vm->page;
  if (b->unmapped)
    b = vm_map_block(pool, b, b->size < round_up(size, page) ? b->size : round_up(size, page));
  /* b is free now; what follows it in the run vm_find found is unmapped
   * (free neighbours are merged): map what is missing of it */
  while (b && b->size < size && b->next && b->next->unmapped) {
    size_t need = round_up(size - b->size, page);
    b = vm_map_block(pool, b->next, need < b->next->size ? need : b->next->size);
  }
  if (!b || b->size < size)
    return NULL; /* pages mapped so far stay cached; the retry releases them */
  free_list_remove(pool, b);
  return b;
}

/* Wait for the work queued on an expandable segment's stream.  Unmapping,
 * unlike cudaFree, does not wait for the device, and that stream may still
 * use the pages of blocks freed on it (reuse is stream-ordered); blocks
 * used on other streams were waited for before they became free. */
static void vm_wait(tl_alloc_pool *pool, const tl_alloc_vm *vm)
{
  if (!pool->raw.event_record)
    return;
  void *e = pool->raw.event_record(pool->raw.ctx, vm->stream);
  pool->raw.event_synchronize(pool->raw.ctx, e);
  pool->raw.event_free(pool->raw.ctx, e);
}

/* Unmap the whole pages of the free block b of an expandable segment.  b
 * becomes the unmapped middle (merged with unmapped neighbours), with free
 * blocks before and after it for what is left of the pages at its ends,
 * which other blocks share.  *waited: whether the segment's stream was
 * waited for already in this release.  Returns the last block of what b
 * became, for a caller walking the segment. */
static tl_block *vm_unmap_free(tl_alloc_pool *pool, tl_block *b, bool *waited)
{
  tl_alloc_vm *vm = b->vm;
  size_t start = (size_t)((char *)b->ptr - vm->base), end = start + b->size;
  size_t first = round_up(start, vm->page), last = end / vm->page * vm->page;
  tl_block *head = NULL, *tail = NULL;
  if (last <= first)
    return b;
  if ((first > start && !(head = block_new())) || (end > last && !(tail = block_new()))) {
    free(head); /* no memory for the bookkeeping: the pages stay */
    return b;
  }
  if (!*waited)
    vm_wait(pool, vm);
  *waited = true;
  free_list_remove(pool, b);
  for (size_t off = first; off < last; off += vm->page)
    pool->raw.vm_unmap(pool->raw.ctx, vm->base, off, vm->page);
  trace_add(pool, TL_TRACE_SEGMENT_UNMAP, vm->base + first, last - first, vm->stream);
  pool->stats.num_device_free += (int64_t)((last - first) / vm->page);
  stat_update(pool->stats.reserved_bytes, vm->small, -(int64_t)(last - first));
  vm->mapped -= last - first;
  if (!vm->mapped)
    stat_update(pool->stats.segment, vm->small, -1);
  if (head) {
    *head = (tl_block){.ptr = b->ptr, .size = first - start, .small = b->small,
                       .stream = b->stream, .vm = vm, .prev = b->prev, .next = b};
    if (b->prev)
      b->prev->next = head;
    else
      segment_replace(pool, b, head);
    b->prev = head;
  }
  if (tail)
    split_after(b, last - start, tail);
  b->ptr = vm->base + first;
  b->size = last - first;
  b->unmapped = true;
  if (head)
    free_list_insert(pool, head);
  if (tail)
    free_list_insert(pool, tail);
  if (!head && b->prev && b->prev->unmapped)
    merge(pool, b, b->prev);
  if (!tail && b->next && b->next->unmapped)
    merge(pool, b, b->next);
  return tail ? tail : b;
}

/* Unmap every page of expandable segment s (its first block), release its
 * range and delete its blocks; true when some were still in use. */
static bool vm_delete(tl_alloc_pool *pool, tl_block *s)
{
  tl_alloc_vm *vm = s->vm;
  bool in_use = vm->mapped > 0;
  for (tl_block *b = s, *next; b; b = next) {
    next = b->next;
    if (!b->unmapped) { /* mapped pages: from here to the next unmapped block */
      char *from = b->ptr;
      while (next && !next->unmapped) {
        b = next;
        next = b->next;
      }
      size_t offset = (size_t)(from - vm->base), end = (size_t)((char *)b->ptr - vm->base) + b->size;
      for (size_t off = offset; off < end; off += vm->page)
        pool->raw.vm_unmap(pool->raw.ctx, vm->base, off, vm->page);
    }
  }
  for (tl_block *b = s, *next; b; b = next) {
    next = b->next;
    block_delete(b);
  }
  pool->raw.vm_release(pool->raw.ctx, vm->base, vm->size);
  free(vm);
  return in_use;
}

/* Is id a private pool whose cache is kept? */
static bool is_live(const tl_alloc_pool *pool, uint64_t id)
{
  for (size_t i = 0; id && i < pool->nlive; i++)
    if (pool->live_ids[i] == id)
      return true;
  return false;
}

/* Give the wholly free ordinary segment b, unlinked by the caller, back to
 * the raw allocator. */
static void segment_release(tl_alloc_pool *pool, tl_block *b)
{
  free_list_remove(pool, b);
  pool->raw.free(pool->raw.ctx, b->ptr, b->size);
  trace_add(pool, TL_TRACE_SEGMENT_FREE, b->ptr, b->size, b->stream);
  pool->stats.num_device_free++;
  stat_update(pool->stats.segment, b->small, -1);
  stat_update(pool->stats.reserved_bytes, b->small, -(int64_t)b->size);
  if (b->size >= pool->config.max_split_size)
    stat_move(&pool->stats.oversize_segments, -1);
  block_delete(b);
}

/* Release the wholly free ordinary segments of private pool `id` (every
 * one but the live private pools' when id is 0). */
static void release_segments(tl_alloc_pool *pool, uint64_t id)
{
  tl_block **link = &pool->segments;
  while (*link) {
    tl_block *b = *link;
    if (b->vm || !b->is_free || b->next || (id ? b->pool_id != id : is_live(pool, b->pool_id))) {
      link = &b->segment_next;
      continue;
    }
    *link = b->segment_next;
    segment_release(pool, b);
  }
}

/* Give every wholly free segment back to the raw allocator and unmap every
 * page of an expandable segment that no block uses. */
static void release_cached(tl_alloc_pool *pool)
{
  release_segments(pool, 0);
  for (tl_block *s = pool->segments, *next_segment; s; s = next_segment) {
    next_segment = s->segment_next; /* s itself may merge away below */
    bool waited = false;
    if (s->vm)
      for (tl_block *b = s; b; b = b->next)
        if (b->is_free)
          b = vm_unmap_free(pool, b, &waited);
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
    if (s->vm) {
      leaked += vm_delete(pool, s);
      continue;
    }
    leaked++;
    for (tl_block *b = s->next, *bn; b; b = bn) {
      bn = b->next;
      block_delete(b);
    }
    pool->raw.free(pool->raw.ctx, s->ptr, s->segment_size);
    block_delete(s);
  }
  pthread_mutex_destroy(&pool->lock);
  free(pool->trace);
  free(pool->live_ids);
  free(pool);
  return leaked;
}

/* The best cached block for a request, or NULL. */
static tl_block *find_free(tl_alloc_pool *pool, size_t size, bool small, tl_stream stream,
                           uint64_t pool_id)
{
  size_t max_split = pool->config.max_split_size;
  for (tl_block *b = *free_list(pool, small); b; b = b->free_next) {
    if (b->pool_id != pool_id) { /* the list is sorted by pool first */
      if (b->pool_id < pool_id)
        continue;
      return NULL;
    }
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
  tl_alloc_trace_entry *oom = trace_add(pool, TL_TRACE_OOM, NULL, nbytes, NULL);
  if (oom)
    oom->device_free = free_bytes;
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

/* New memory for a request of `size` bytes that no cached block serves:
 * pages mapped in an expandable segment, or a new segment; NULL when the
 * device has none left. */
static tl_block *grow(tl_alloc_pool *pool, size_t size, bool small, tl_stream stream,
                      uint64_t pool_id)
{
  if (!pool_id && vm_available(pool)) {
    tl_block *b = vm_grow(pool, size, small, stream);
    if (b || !pool->vm_failed)
      return b;
  }
  return segment_new(pool, tl_alloc_segment_size(size), small, stream, pool_id);
}

static tl_block *pool_malloc(tl_alloc_pool *pool, size_t nbytes, tl_stream stream,
                             uint64_t pool_id)
{
  if (nbytes > SIZE_MAX / 2) {
    pool->stats.num_ooms++;
    set_oom_error(pool, nbytes);
    return NULL;
  }
  size_t size = tl_alloc_round_size(nbytes);
  bool small = size <= TL_SMALL_SIZE;
  process_events(pool, false);
  tl_block *b = find_free(pool, size, small, stream, pool_id);
  if (b)
    free_list_remove(pool, b);
  else {
    size_t segment = tl_alloc_segment_size(size);
    double gc = pool->config.gc_threshold;
    if (gc > 0 && pool->limit != SIZE_MAX &&
        (double)pool->stats.reserved_bytes[TL_ALLOC_POOL_ALL].current + (double)segment >
            gc * (double)pool->limit)
      release_cached(pool); /* over the threshold: reclaim before growing */
    b = grow(pool, size, small, stream, pool_id);
    if (!b) { /* out of memory: give the cache back, wait for pending blocks, retry */
      pool->stats.num_alloc_retries++;
      process_events(pool, true);
      b = find_free(pool, size, small, stream, pool_id);
      if (b)
        free_list_remove(pool, b);
      else {
        release_cached(pool);
        b = grow(pool, size, small, stream, pool_id);
      }
    }
    if (!b) {
      pool->stats.num_ooms++;
      set_oom_error(pool, nbytes);
      return NULL;
    }
  }
  /* Split off what the request does not need and keep it.  In an
   * expandable segment any remainder is split off, as PyTorch does there:
   * its whole pages can be unmapped later, so a split strands nothing. */
  size_t rest = b->size - size;
  bool split = small || b->vm ? rest >= TL_MIN_BLOCK
                              : rest > TL_SMALL_SIZE && b->size < pool->config.max_split_size;
  if (split) {
    tl_block *r = block_new();
    if (r) {
      split_after(b, size, r);
      free_list_insert(pool, r);
    }
  }
  b->allocated = true;
  b->requested = nbytes;
  b->context = pool->history.record_state ? pool->context : 0;
  trace_add(pool, TL_TRACE_ALLOC, b->ptr, b->size, stream);
  stat_update(pool->stats.allocation, small, 1);
  stat_update(pool->stats.allocated_bytes, small, (int64_t)b->size);
  stat_update(pool->stats.requested_bytes, small, (int64_t)nbytes);
  stat_update(pool->stats.active, small, 1);
  stat_update(pool->stats.active_bytes, small, (int64_t)b->size);
  if (b->size >= pool->config.max_split_size)
    stat_move(&pool->stats.oversize_allocations, 1);
  return b;
}

/* A context id for the call about to run, captured outside the lock (the
 * capture may run Python, which may wait for a thread in this pool). */
static uint64_t capture_context(tl_alloc_pool *pool, bool freeing)
{
  if (!atomic_load_explicit(freeing ? &pool->capture_free : &pool->capture_alloc,
                            memory_order_relaxed))
    return 0;
  pthread_mutex_lock(&pool->lock);
  uint64_t (*capture)(void *) = pool->history.capture;
  void *arg = pool->history.arg;
  bool on = freeing ? pool->history.context_free : pool->history.context_alloc;
  pthread_mutex_unlock(&pool->lock);
  return on && capture ? capture(arg) : 0;
}

tl_block *tl_alloc_pool_malloc(tl_alloc_pool *pool, size_t nbytes, tl_stream stream)
{
  uint64_t context = capture_context(pool, false);
  uint64_t pool_id = route_pool == pool ? route_id : 0;
  pthread_mutex_lock(&pool->lock);
  pool->context = context;
  tl_block *b = pool_malloc(pool, nbytes, stream, pool_id);
  pool->context = 0;
  pthread_mutex_unlock(&pool->lock);
  return b;
}

static void pool_free(tl_alloc_pool *pool, tl_block *b)
{
  trace_add(pool, TL_TRACE_FREE_REQUESTED, b->ptr, b->size, b->stream);
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
  uint64_t context = capture_context(pool, true);
  pthread_mutex_lock(&pool->lock);
  pool->context = context;
  pool_free(pool, b);
  pool->context = 0;
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
  if (b->vm) {
    tl_error_set(TL_ERR_RUNTIME, "a block of an expandable segment cannot be shared across "
                                 "processes (CUDA IPC exports whole cudaMalloc allocations): "
                                 "set TORCHLIKE_CUDA_ALLOC_CONF=expandable_segments:False in "
                                 "the process that allocates it");
    return NULL;
  }
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

/* ---- snapshot and history ------------------------------------------------------- */

/* Keep the newest `keep` entries of the trace, oldest first from index 0. */
static tl_status trace_linearize(tl_alloc_pool *pool, size_t keep)
{
  size_t n = pool->trace_len < keep ? pool->trace_len : keep;
  tl_alloc_trace_entry *t = NULL;
  if (n && !(t = malloc(n * sizeof *t)))
    return tl_error_set(TL_ERR_MEMORY, "out of memory");
  for (size_t i = 0; i < n; i++)
    t[i] = *trace_at(pool, pool->trace_len - n + i);
  free(pool->trace);
  pool->trace = t;
  pool->trace_len = pool->trace_cap = n;
  pool->trace_next = 0;
  return TL_OK;
}

tl_status tl_alloc_pool_set_history(tl_alloc_pool *pool, const tl_alloc_history *history)
{
  tl_status s = TL_OK;
  pthread_mutex_lock(&pool->lock);
  s = trace_linearize(pool, history->clear ? 0 : history->max_entries);
  if (s != TL_OK)
    goto fail;
  pool->history = *history;
  bool on = history->record_state || history->record_trace;
  atomic_store(&pool->capture_alloc, on && history->context_alloc && history->capture);
  atomic_store(&pool->capture_free, on && history->context_free && history->capture);
fail:
  pthread_mutex_unlock(&pool->lock);
  return s;
}

static int segment_by_address(const void *a, const void *b)
{
  uintptr_t x = ((const tl_alloc_segment_info *)a)->address;
  uintptr_t y = ((const tl_alloc_segment_info *)b)->address;
  return x < y ? -1 : x > y;
}

/* Add block b to the segment being listed, opening one when seg is NULL. */
static tl_alloc_segment_info *snapshot_block(tl_alloc_snapshot *out, tl_alloc_segment_info *seg,
                                             const tl_block *b, uint64_t segment_context)
{
  if (!seg) {
    seg = &out->segments[out->nsegments++];
    *seg = (tl_alloc_segment_info){.address = (uintptr_t)b->ptr, .stream = b->stream,
                                   .small = b->small, .expandable = b->vm != NULL,
                                   .pool_id = b->pool_id,
                                   .context = segment_context, .first_block = out->nblocks};
  }
  int state = b->allocated ? TL_BLOCK_ACTIVE_ALLOCATED
              : b->is_free ? TL_BLOCK_INACTIVE
                           : TL_BLOCK_ACTIVE_PENDING_FREE;
  bool active = state != TL_BLOCK_INACTIVE;
  out->blocks[out->nblocks++] = (tl_alloc_block_info){
      .address = (uintptr_t)b->ptr, .size = b->size, .requested = active ? b->requested : 0,
      .state = state, .context = active ? b->context : 0};
  seg->nblocks++;
  seg->total_size += b->size;
  seg->allocated_size += b->allocated ? b->size : 0;
  seg->active_size += active ? b->size : 0;
  seg->requested_size += active ? b->requested : 0;
  return seg;
}

tl_status tl_alloc_pool_snapshot(tl_alloc_pool *pool, tl_alloc_snapshot *out)
{
  tl_status s = TL_OK;
  size_t nblocks = 0;
  *out = (tl_alloc_snapshot){0};
  pthread_mutex_lock(&pool->lock);
  /* an expandable segment lists a segment per run of mapped blocks: at
   * most one per block, as many as blocks bound both counts */
  for (tl_block *seg = pool->segments; seg; seg = seg->segment_next)
    for (tl_block *b = seg; b; b = b->next)
      nblocks++;
  out->segments = malloc((nblocks + 1) * sizeof *out->segments);
  out->blocks = malloc((nblocks + 1) * sizeof *out->blocks);
  out->trace = malloc((pool->trace_len + 1) * sizeof *out->trace);
  if (!out->segments || !out->blocks || !out->trace) {
    s = tl_error_set(TL_ERR_MEMORY, "out of memory");
    goto fail;
  }
  for (tl_block *first = pool->segments; first; first = first->segment_next) {
    tl_alloc_segment_info *open = NULL;
    for (tl_block *b = first; b; b = b->next)
      open = b->unmapped ? NULL : snapshot_block(out, open, b, first->segment_context);
  }
  for (size_t i = 0; i < pool->trace_len; i++)
    out->trace[out->ntrace++] = *trace_at(pool, i);
  qsort(out->segments, out->nsegments, sizeof *out->segments, segment_by_address);
fail:
  pthread_mutex_unlock(&pool->lock);
  if (s != TL_OK)
    tl_alloc_snapshot_free(out);
  return s;
}

void tl_alloc_snapshot_free(tl_alloc_snapshot *s)
{
  free(s->segments);
  free(s->blocks);
  free(s->trace);
  *s = (tl_alloc_snapshot){0};
}

/* ---- private pools ---------------------------------------------------------------- */

void tl_alloc_pool_route(tl_alloc_pool *pool, uint64_t id)
{
  route_pool = id ? pool : NULL;
  route_id = id;
}

tl_status tl_alloc_pool_private(tl_alloc_pool *pool, uint64_t id, bool live)
{
  tl_status s = TL_OK;
  pthread_mutex_lock(&pool->lock);
  size_t i = 0;
  while (i < pool->nlive && pool->live_ids[i] != id)
    i++;
  if (live && i == pool->nlive) {
    uint64_t *ids = realloc(pool->live_ids, (pool->nlive + 1) * sizeof *ids);
    if (!ids) {
      s = tl_error_set(TL_ERR_MEMORY, "out of memory");
      goto fail;
    }
    pool->live_ids = ids;
    pool->live_ids[pool->nlive++] = id;
  } else if (!live && i < pool->nlive) {
    pool->live_ids[i] = pool->live_ids[--pool->nlive];
    release_segments(pool, id); /* its wholly free segments go now */
  }
fail:
  pthread_mutex_unlock(&pool->lock);
  return s;
}
