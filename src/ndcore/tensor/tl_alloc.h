/* tl_alloc.h - the allocator interface and the caching pool written against it.
 *
 * A raw allocator (tl_alloc_raw) hands out whole segments of device memory and
 * knows the device's events; it caches nothing.  The caching pool
 * (tl_alloc_pool) carves blocks out of those segments and keeps freed blocks
 * for reuse, as PyTorch's CUDA caching allocator does:
 *
 *   - sizes are rounded up to 512 bytes;
 *   - small requests (<= 1 MiB) come from 2 MiB segments, large ones from
 *     segments of their own (20 MiB for requests under 10 MiB, else the size
 *     rounded to 2 MiB); a block bigger than the request is split and the
 *     remainder kept (small pool: when >= 512 bytes are left, large pool: when
 *     more than 1 MiB is left);
 *   - free blocks are kept per stream: a block allocated on stream s serves
 *     only requests on s, and a freed block merges with free neighbours of
 *     the same segment;
 *   - a block used on other streams (tl_alloc_pool_record_stream) is not
 *     reused before an event recorded on each of them at free time completes;
 *   - when the raw allocator fails, cached segments are released and the
 *     request retried; only then is it an out-of-memory error naming the
 *     request, what the pool has allocated and reserved, and the device's
 *     free and total memory;
 *   - with expandable_segments and a raw allocator that has the virtual
 *     memory callbacks, there are no fixed-size segments: per stream and
 *     pool kind the pool reserves one address range (the device's memory
 *     and an eighth) and maps physical pages into it as requests need them
 *     (2 MiB pages for the small pool, 20 MiB for the large one, both
 *     rounded to the device's granularity).  Freeing merges as before;
 *     releasing the cache unmaps every page no block uses, wherever it is,
 *     and keeps the range, so a later request can map pages there again:
 *     free holes strand no physical memory.
 *
 * The pool is plain C: the fake device tests it on the CPU, and the CUDA
 * backend runs it over cudaMalloc.  Each pool has a lock, taken by every
 * function below.                                                            */
#ifndef TL_ALLOC_H
#define TL_ALLOC_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "ndcore/tensor/tl_error.h"

/* A stream is the device's own handle; NULL is the default stream. */
typedef void *tl_stream;

/* ---- the raw interface ------------------------------------------------------ */
typedef struct {
  void *ctx;
  /* nbytes of device memory, or NULL when the device has none left (no error). */
  void *(*alloc)(void *ctx, size_t nbytes);
  void (*free)(void *ctx, void *ptr, size_t nbytes);
  /* Free and total bytes of the device; zeros when unknown. */
  void (*mem_info)(void *ctx, size_t *free_bytes, size_t *total_bytes);
  /* Events, for stream-ordered reuse.  A device without streams leaves them
   * NULL and every block is reusable as soon as it is freed. */
  void *(*event_record)(void *ctx, tl_stream stream);
  bool (*event_query)(void *ctx, void *event);     /* has the work before it ended? */
  void (*event_synchronize)(void *ctx, void *event); /* wait until it has */
  void (*event_free)(void *ctx, void *event);
  /* Virtual memory, for expandable segments: all five or none (NULL: the
   * pool makes ordinary segments whatever the configuration says).
   *   vm_granularity: the unit of mapping (a power of two);
   *   vm_reserve: an address range of nbytes (a multiple of the granularity)
   *     with nothing behind it, or NULL;
   *   vm_map: new physical memory for [range + offset, + nbytes) (both
   *     multiples of the granularity), one allocation of its own; false
   *     when the device has none left (no error);
   *   vm_unmap: gives back exactly a range that one vm_map call mapped
   *     (the pool has waited for the range's stream with an event first);
   *   vm_release: the range, with nothing mapped in it any more. */
  size_t (*vm_granularity)(void *ctx);
  void *(*vm_reserve)(void *ctx, size_t nbytes);
  bool (*vm_map)(void *ctx, void *range, size_t offset, size_t nbytes);
  void (*vm_unmap)(void *ctx, void *range, size_t offset, size_t nbytes);
  void (*vm_release)(void *ctx, void *range, size_t nbytes);
} tl_alloc_raw;

/* ---- configuration ---------------------------------------------------------- */
typedef struct {
  size_t max_split_size;          /* blocks at least this big are never split; SIZE_MAX: no limit */
  double gc_threshold;            /* 0: off; else free cached segments above this share of the limit */
  bool expandable_segments;       /* grow mapped address ranges instead of making segments */
} tl_alloc_config;

/* Parse PyTorch-style "key:value,key:value" (max_split_size_mb,
 * garbage_collection_threshold, expandable_segments).  NULL or "" gives the
 * defaults.  TL_ERR_VALUE naming the bad entry otherwise. */
tl_status tl_alloc_config_parse(const char *text, tl_alloc_config *out);
/* The configuration TORCHLIKE_CUDA_ALLOC_CONF asks for; the defaults when it
 * does not parse (torchlike.cuda warns about that at import). */
void tl_alloc_config_from_env(tl_alloc_config *out);

/* ---- statistics -------------------------------------------------------------
 * Each statistic is kept for all blocks, the small pool and the large pool,
 * with PyTorch's four aggregates.                                             */
typedef struct {
  int64_t current, peak, allocated, freed;
} tl_alloc_stat;

enum { TL_ALLOC_POOL_ALL, TL_ALLOC_POOL_SMALL, TL_ALLOC_POOL_LARGE, TL_ALLOC_POOL_KINDS };

typedef struct {
  tl_alloc_stat allocation[TL_ALLOC_POOL_KINDS];     /* blocks handed out */
  tl_alloc_stat segment[TL_ALLOC_POOL_KINDS];        /* segments from the raw allocator */
  tl_alloc_stat active[TL_ALLOC_POOL_KINDS];         /* blocks in use or waiting on events */
  tl_alloc_stat inactive_split[TL_ALLOC_POOL_KINDS]; /* free blocks that are part of a split segment */
  tl_alloc_stat allocated_bytes[TL_ALLOC_POOL_KINDS];
  tl_alloc_stat reserved_bytes[TL_ALLOC_POOL_KINDS];
  tl_alloc_stat active_bytes[TL_ALLOC_POOL_KINDS];
  tl_alloc_stat inactive_split_bytes[TL_ALLOC_POOL_KINDS];
  tl_alloc_stat requested_bytes[TL_ALLOC_POOL_KINDS];
  int64_t num_alloc_retries, num_ooms, num_sync_all_streams;
  int64_t num_device_alloc, num_device_free;
  tl_alloc_stat oversize_allocations, oversize_segments;
  size_t max_split_size;
} tl_alloc_stats;

/* ---- the pool --------------------------------------------------------------- */
typedef struct tl_alloc_pool tl_alloc_pool;

/* What the pool hands out.  ptr/size/stream are read-only to the caller. */
typedef struct tl_block {
  void *ptr;
  size_t size;      /* rounded, what the block spans */
  size_t requested; /* what the caller asked for */
  tl_stream stream; /* the stream it was allocated on */
  /* the pool's own bookkeeping */
  struct tl_block *prev, *next;          /* neighbours in the segment, by address */
  struct tl_block *free_prev, *free_next; /* in a free list */
  struct tl_block *pending_next;         /* waiting for events */
  struct tl_block *segment_next;         /* next segment (on a segment's first block) */
  tl_stream *uses;                        /* other streams it was used on */
  int nuses, cap_uses;
  void **events;
  int nevents;
  size_t segment_size; /* whole segment's size, set on the segment's first block */
  struct tl_alloc_vm *vm; /* the expandable segment it lies in, or NULL */
  bool allocated, small, is_free, counted_split;
  bool unmapped; /* a range of an expandable segment with no memory behind it */
  uint64_t pool_id;         /* the private pool (MemPool) its segment belongs to; 0: none */
  uint64_t context;         /* history: who allocated it (0: not recorded) */
  uint64_t segment_context; /* history: who made the segment (on its first block) */
} tl_block;

tl_alloc_pool *tl_alloc_pool_new(const tl_alloc_raw *raw, const tl_alloc_config *config,
                                 const char *device_name);
/* Releases every cached segment; blocks still in use are leaked (they are the
 * caller's bug) and counted in the return value. */
int tl_alloc_pool_delete(tl_alloc_pool *pool);
/* A block of at least nbytes for use on stream, or NULL with an
 * out-of-memory error (TL_ERR_MEMORY) set. */
tl_block *tl_alloc_pool_malloc(tl_alloc_pool *pool, size_t nbytes, tl_stream stream);
void tl_alloc_pool_free(tl_alloc_pool *pool, tl_block *block);
/* Mark block as used on stream too (Tensor.record_stream). */
tl_status tl_alloc_pool_record_stream(tl_alloc_pool *pool, tl_block *block, tl_stream stream);
/* The block that starts at ptr and is in use, or NULL. */
tl_block *tl_alloc_pool_find(tl_alloc_pool *pool, void *ptr);
/* The start of the raw allocation (segment) that block b was carved from:
 * what CUDA IPC exports, the block being at ptr - base inside it.  NULL
 * with TL_ERR_RUNTIME set for a block of an expandable segment, whose pages
 * are separate allocations that one IPC handle cannot name. */
void *tl_alloc_pool_segment_base(tl_alloc_pool *pool, const tl_block *b);
/* Give every cached, wholly free segment back to the raw allocator, and
 * unmap every page of an expandable segment that no block uses, waiting for
 * the events of blocks freed under other streams first. */
void tl_alloc_pool_empty_cache(tl_alloc_pool *pool);
void tl_alloc_pool_stats(tl_alloc_pool *pool, tl_alloc_stats *out);
/* The device's free and total bytes as its driver counts them (not the
 * pool's: its cached blocks count as used), for torchlike.cuda.mem_get_info. */
void tl_alloc_pool_mem_info(tl_alloc_pool *pool, size_t *free_bytes, size_t *total_bytes);
void tl_alloc_pool_reset_peaks(tl_alloc_pool *pool);
void tl_alloc_pool_reset_accumulated(tl_alloc_pool *pool);
/* Cap reserved memory at fraction * the device's total (0 < fraction <= 1). */
tl_status tl_alloc_pool_set_fraction(tl_alloc_pool *pool, double fraction);
/* A readable table of the statistics, written into buf (always terminated). */
void tl_alloc_pool_summary(tl_alloc_pool *pool, char *buf, size_t size);
/* ---- snapshot and history ----------------------------------------------------
 * What torch.cuda.memory._snapshot shows: every segment (sorted by address)
 * with its blocks in address order, and, while history is recorded, a trace
 * of what the pool did.  An expandable segment appears as one segment per
 * run of mapped pages.  Contexts are the caller's ids (0: none): the pool
 * asks history.capture for one before it takes its lock, so capture may run
 * anything (Python, which needs the GIL) except this pool's functions.      */
enum { TL_BLOCK_ACTIVE_ALLOCATED, TL_BLOCK_ACTIVE_PENDING_FREE, TL_BLOCK_INACTIVE };
enum {
  TL_TRACE_ALLOC, TL_TRACE_FREE_REQUESTED, TL_TRACE_FREE_COMPLETED, TL_TRACE_SEGMENT_ALLOC,
  TL_TRACE_SEGMENT_FREE, TL_TRACE_SEGMENT_MAP, TL_TRACE_SEGMENT_UNMAP, TL_TRACE_OOM
};

typedef struct {
  uintptr_t address;
  size_t size, requested;
  int state; /* TL_BLOCK_* */
  uint64_t context;
} tl_alloc_block_info;

typedef struct {
  uintptr_t address;
  size_t total_size, allocated_size, active_size, requested_size;
  tl_stream stream;
  bool small, expandable;
  uint64_t context;
  uint64_t pool_id; /* its private pool, 0 for the device's own */
  size_t first_block, nblocks; /* its blocks in the snapshot's block array */
} tl_alloc_segment_info;

typedef struct {
  int action; /* TL_TRACE_* */
  uintptr_t address;
  size_t size;      /* the block's or segment's bytes; the request for an OOM */
  tl_stream stream;
  uint64_t context;
  int64_t time_us;  /* CLOCK_REALTIME */
  size_t device_free; /* for an OOM: what the device reported free */
} tl_alloc_trace_entry;

typedef struct {
  tl_alloc_segment_info *segments;
  tl_alloc_block_info *blocks;
  tl_alloc_trace_entry *trace; /* oldest first */
  size_t nsegments, nblocks, ntrace;
} tl_alloc_snapshot;

typedef struct {
  bool record_state;   /* keep each block's allocation context */
  bool record_trace;   /* keep the trace (up to max_entries, the oldest dropped) */
  bool context_alloc;  /* capture a context for allocations */
  bool context_free;   /* ... and for frees */
  bool clear;          /* drop the trace kept so far */
  size_t max_entries;
  uint64_t (*capture)(void *arg);
  void *arg;
} tl_alloc_history;

/* Start, change or stop (record_state and record_trace false) the history;
 * stopping keeps the trace unless clear.  TL_ERR_MEMORY on no memory. */
tl_status tl_alloc_pool_set_history(tl_alloc_pool *pool, const tl_alloc_history *history);
/* The pool's segments, blocks and trace, copied (out freed by
 * tl_alloc_snapshot_free).  TL_ERR_MEMORY on no memory. */
tl_status tl_alloc_pool_snapshot(tl_alloc_pool *pool, tl_alloc_snapshot *out);
void tl_alloc_snapshot_free(tl_alloc_snapshot *s);

/* ---- private pools (torch.cuda.MemPool) ----------------------------------------
 * A private pool is an id (> 0) whose segments serve only the requests made
 * while the calling thread routes to it: its free blocks sort apart from the
 * device's own (the id leads the free lists' order, before the stream), so
 * neither side ever takes the other's blocks.  A private pool makes ordinary
 * segments even with expandable_segments.  While the id is live its cached
 * segments survive empty_cache; when it dies its wholly free segments are
 * released at once, and the rest as their blocks come back and the cache is
 * emptied.                                                                   */
/* Route the calling thread's requests to pool to private pool id (id 0, or
 * another pool: the device's own blocks); one route per thread. */
void tl_alloc_pool_route(tl_alloc_pool *pool, uint64_t id);
/* Mark id live (its cache kept) or dead (released).  TL_ERR_MEMORY. */
tl_status tl_alloc_pool_private(tl_alloc_pool *pool, uint64_t id, bool live);

/* Rounding and segment sizes, exposed for the tests. */
size_t tl_alloc_round_size(size_t nbytes);
size_t tl_alloc_segment_size(size_t rounded);

#endif
