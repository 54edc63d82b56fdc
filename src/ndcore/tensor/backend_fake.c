/* backend_fake.c - the fake device: host memory behind a device type of its own.
 *
 * It exists for tests.  It has no kernels, so an op that reaches it must
 * raise, and its data pointers are host addresses with TL_FAKE_TAG set in
 * the top bits: a non-canonical address on x86-64 and AArch64, so a CPU loop
 * that reads or writes fake memory by mistake faults at once instead of
 * quietly working.  Only this file turns them back (fake_host), in its copy
 * and memset functions, which also count what crosses, so tests can prove
 * that data moved through the backend and nowhere else.
 *
 * Memory comes from a caching pool (tl_alloc.h) over a raw allocator with a
 * settable capacity, and the device has streams: stream k > 0 is (tl_stream)k,
 * an event recorded on it completes when the test calls
 * tl_backend_fake_stream_finish(k).  This makes the pool's stream-ordered
 * reuse and out-of-memory paths testable without a GPU.  The raw allocator
 * has the virtual memory callbacks too (reserve a range, map and unmap
 * pages), so expandable segments are tested here as well.                  */
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "gpu/tl_device_errors.h"
#include "ndcore/tensor/tl_backend.h"

#define TL_FAKE_TAG ((uintptr_t)0xFA4E << 48)
#define TL_FAKE_STREAMS 64
#define TL_FAKE_DEFAULT_TOTAL ((size_t)16 << 30)

static struct {
  pthread_mutex_t lock; /* guards pool, total */
  tl_alloc_pool *pool;
  size_t total, used; /* the raw allocator's capacity and what it has handed out */
  uint64_t submitted[TL_FAKE_STREAMS], finished[TL_FAKE_STREAMS];
  tl_stream current;
  tl_fake_counters counters;
} fake = {.lock = PTHREAD_MUTEX_INITIALIZER, .total = TL_FAKE_DEFAULT_TOTAL};

static bool plain_pointers; /* tl_backend_fake_plain_pointers */


void *tl_backend_fake_host(const void *device_ptr)
{
  return (void *)((uintptr_t)device_ptr & ~((uintptr_t)0xFFFF << 48)); /* clears the tag */
}

static void *fake_device_ptr(void *host) { return (void *)((uintptr_t)host ^ TL_FAKE_TAG); }

static void count(int64_t *calls, int64_t *bytes, size_t n)
{
  __atomic_add_fetch(calls, 1, __ATOMIC_RELAXED);
  if (bytes)
    __atomic_add_fetch(bytes, (int64_t)n, __ATOMIC_RELAXED);
}

/* ---- the raw allocator -------------------------------------------------------- */

static void *raw_alloc(void *ctx, size_t nbytes)
{
  (void)ctx;
  void *host = NULL;
  if (nbytes > fake.total - fake.used || posix_memalign(&host, 512, nbytes) != 0)
    return NULL;
  fake.used += nbytes;
  return fake_device_ptr(host);
}

static void raw_free(void *ctx, void *ptr, size_t nbytes)
{
  (void)ctx;
  fake.used -= nbytes;
  free(tl_backend_fake_host(ptr));
}

static void raw_mem_info(void *ctx, size_t *free_bytes, size_t *total_bytes)
{
  (void)ctx;
  *free_bytes = fake.total - fake.used;
  *total_bytes = fake.total;
}

/* ---- the guard: device memory the host cannot read ----------------------------------
 * On the emulated device (the CPU's kernels run as its kernels on plain
 * pointers, each inside TL_EMU_HOSTED) a host read of the fake device's
 * memory outside a kernel would quietly work, where on a GPU it is a
 * segfault.  TORCHLIKE_FAKE_GUARD=1 (read when the emulation starts) makes
 * the pool's segments page-aligned mappings kept PROT_NONE except while a
 * kernel, copy or memset runs (tl_backend_fake_open/close, which
 * TL_EMU_HOSTED calls), so such a read faults in the tests too.
 * The segments are placed in one reserved address range, so that opening
 * and closing is one mprotect over the range in use, not one per segment
 * (gradchecks make thousands of kernel calls with many tensors alive); a
 * freed segment's pages go back to the reservation.  An mprotect costs about
 * a quarter of a microsecond per resident page (page-table entries changed,
 * TLBs flushed), which with tens of MB alive made each op milliseconds: the
 * segments are therefore whole 2 MiB huge-page frames (MADV_HUGEPAGE), so
 * a frame is one entry to change.  Where the kernel gives no huge pages the
 * guard still works, at the small pages' cost. */
enum { GUARD_MAX = 8192 };
#define GUARD_RESERVE ((size_t)64 << 30) /* address space only (MAP_NORESERVE) */
#define GUARD_FRAME ((size_t)2 << 20)    /* x86-64's and AArch64's huge page */

static struct {
  pthread_mutex_t lock;
  bool on;
  int depth; /* nested opens */
  char *base; /* the reservation, made on the first guarded segment */
  int n;
  struct {
    char *p;
    size_t len;
  } seg[GUARD_MAX]; /* by address */
} guard = {.lock = PTHREAD_MUTEX_INITIALIZER};

void tl_backend_fake_plain_pointers(bool plain) { plain_pointers = plain; }

void tl_backend_fake_guard_from_env(void)
{
  const char *env = getenv("TORCHLIKE_FAKE_GUARD");
  guard.on = plain_pointers && env && env[0] == '1';
}

static size_t frame_round(size_t n) { return (n + GUARD_FRAME - 1) / GUARD_FRAME * GUARD_FRAME; }

static void guard_protect_all(int prot) /* with guard.lock held */
{
  if (guard.n)
    mprotect(guard.base, (size_t)(guard.seg[guard.n - 1].p + guard.seg[guard.n - 1].len -
                                  guard.base), prot);
}

void tl_backend_fake_open(void)
{
  if (!guard.on)
    return;
  pthread_mutex_lock(&guard.lock);
  if (guard.depth++ == 0)
    guard_protect_all(PROT_READ | PROT_WRITE);
  pthread_mutex_unlock(&guard.lock);
}

void tl_backend_fake_close(void)
{
  if (!guard.on)
    return;
  pthread_mutex_lock(&guard.lock);
  if (--guard.depth == 0)
    guard_protect_all(PROT_NONE);
  pthread_mutex_unlock(&guard.lock);
}

/* Frames of the reservation at p, fresh, with protection prot (MAP_FIXED
 * replaces what was mapped there), asking for huge pages (a hint: the
 * guard is right without them). */
static bool guard_map(char *p, size_t len, int prot)
{
  int flags = MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED | (prot == PROT_NONE ? MAP_NORESERVE : 0);
  if (mmap(p, len, prot, flags, -1, 0) == MAP_FAILED)
    return false;
  madvise(p, len, MADV_HUGEPAGE);
  return true;
}

/* A pool segment: a guarded mapping at the first gap of the reservation that
 * fits (NULL when the guard is off or has no room). */
static void *guarded_alloc(size_t nbytes)
{
  char *p = NULL;
  pthread_mutex_lock(&guard.lock);
  if (guard.on && !guard.base) {
    void *r = mmap(NULL, GUARD_RESERVE + GUARD_FRAME, PROT_NONE,
                   MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
    guard.base = r == MAP_FAILED ? NULL : (char *)frame_round((uintptr_t)r); /* frame-aligned */
  }
  if (guard.on && guard.base && guard.n < GUARD_MAX) {
    size_t len = frame_round(nbytes ? nbytes : 1);
    char *at = guard.base, *end = guard.base + GUARD_RESERVE;
    int i = 0;
    for (; i < guard.n && (size_t)(guard.seg[i].p - at) < len; i++)
      at = guard.seg[i].p + guard.seg[i].len;
    if ((size_t)(end - at) >= len &&
        guard_map(at, len, guard.depth ? PROT_READ | PROT_WRITE : PROT_NONE)) {
      memmove(&guard.seg[i + 1], &guard.seg[i], (size_t)(guard.n - i) * sizeof guard.seg[0]);
      guard.seg[i].p = at, guard.seg[i].len = len;
      guard.n++;
      p = at;
    }
  }
  pthread_mutex_unlock(&guard.lock);
  return p;
}

/* Frees host if it is a guarded segment; false if it is not one. */
static bool guarded_free(void *host)
{
  bool found = false;
  pthread_mutex_lock(&guard.lock);
  for (int i = 0; i < guard.n && !found; i++)
    if (guard.seg[i].p == host) {
      guard_map(guard.seg[i].p, guard.seg[i].len, PROT_NONE); /* the pages go, the range stays */
      memmove(&guard.seg[i], &guard.seg[i + 1], (size_t)(guard.n - i - 1) * sizeof guard.seg[0]);
      guard.n--;
      found = true;
    }
  pthread_mutex_unlock(&guard.lock);
  return found;
}

static void *pool_alloc(void *ctx, size_t nbytes)
{
  void *host = guarded_alloc(nbytes);
  if (!host)
    return raw_alloc(ctx, nbytes);
  if (nbytes > fake.total - fake.used) {
    guarded_free(host);
    return NULL;
  }
  fake.used += nbytes;
  return fake_device_ptr(host);
}

static void pool_free(void *ctx, void *ptr, size_t nbytes)
{
  if (!guarded_free(tl_backend_fake_host(ptr))) {
    raw_free(ctx, ptr, nbytes);
    return;
  }
  fake.used -= nbytes;
}

/* ---- virtual memory: the expandable segments' callbacks -----------------------------
 * A range is a reservation of host address space with nothing behind it
 * (PROT_NONE, MAP_NORESERVE), tagged as the device's addresses are; mapping
 * a page puts fresh memory there (MAP_FIXED), unmapping puts PROT_NONE back,
 * so that a host access to an unmapped page faults, as a GPU's would.
 * Mapped pages count against the device's capacity as segments do.  Tests
 * can leave the callbacks out of the next pool, make reservations or maps
 * fail, and read the counts (tl_backend_fake_vm_control/_counters).  With
 * TORCHLIKE_FAKE_GUARD=1 no range is reserved (the guard protects only its
 * own reservation) and the pool makes ordinary segments. */
#define TL_FAKE_GRANULARITY ((size_t)2 << 20) /* a GPU's, usually */

static struct {
  bool off;                     /* the next pool gets no callbacks */
  int fail_reserves, fail_maps; /* the next ones that fail */
  tl_fake_vm_counters counters;
} vm;

static size_t vm_granularity(void *ctx)
{
  (void)ctx;
  return TL_FAKE_GRANULARITY;
}

static void *vm_reserve(void *ctx, size_t nbytes)
{
  (void)ctx;
  if (guard.on || nbytes % TL_FAKE_GRANULARITY)
    return NULL;
  if (vm.fail_reserves > 0) {
    vm.fail_reserves--;
    return NULL;
  }
  void *r = mmap(NULL, nbytes, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
  if (r == MAP_FAILED)
    return NULL;
  vm.counters.ranges++;
  vm.counters.range_bytes += (int64_t)nbytes;
  return fake_device_ptr(r);
}

static bool vm_map(void *ctx, void *range, size_t offset, size_t nbytes)
{
  (void)ctx;
  char *at = (char *)tl_backend_fake_host(range) + offset;
  if (offset % TL_FAKE_GRANULARITY || nbytes % TL_FAKE_GRANULARITY)
    return false;
  if (vm.fail_maps > 0) {
    vm.fail_maps--;
    return false;
  }
  if (fake.used > fake.total || nbytes > fake.total - fake.used ||
      mmap(at, nbytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED, -1, 0) ==
          MAP_FAILED)
    return false;
  fake.used += nbytes;
  vm.counters.maps++;
  vm.counters.mapped_bytes += (int64_t)nbytes;
  return true;
}

static void vm_unmap(void *ctx, void *range, size_t offset, size_t nbytes)
{
  (void)ctx;
  char *at = (char *)tl_backend_fake_host(range) + offset;
  /* the pages go back to the system, the addresses stay reserved */
  mmap(at, nbytes, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED | MAP_NORESERVE, -1, 0);
  fake.used -= nbytes;
  vm.counters.unmaps++;
  vm.counters.mapped_bytes -= (int64_t)nbytes;
}

static void vm_release(void *ctx, void *range, size_t nbytes)
{
  (void)ctx;
  munmap(tl_backend_fake_host(range), nbytes);
  vm.counters.ranges--;
  vm.counters.range_bytes -= (int64_t)nbytes;
}

void tl_backend_fake_vm_control(bool enabled, int fail_reserves, int fail_maps)
{
  vm.off = !enabled;
  vm.fail_reserves = fail_reserves;
  vm.fail_maps = fail_maps;
  vm.counters.maps = vm.counters.unmaps = 0; /* a test counts its own calls */
}

void tl_backend_fake_vm_counters(tl_fake_vm_counters *out) { *out = vm.counters; }

/* An event is (stream, sequence number) packed in a pointer-sized integer. */
static size_t stream_slot(tl_stream stream) { return (uintptr_t)stream % TL_FAKE_STREAMS; }

static void *event_record(void *ctx, tl_stream stream)
{
  (void)ctx;
  size_t k = stream_slot(stream);
  uint64_t seq = __atomic_add_fetch(&fake.submitted[k], 1, __ATOMIC_ACQ_REL);
  return (void *)(uintptr_t)(seq * TL_FAKE_STREAMS + k);
}

static bool event_query(void *ctx, void *event)
{
  (void)ctx;
  uintptr_t e = (uintptr_t)event;
  return __atomic_load_n(&fake.finished[e % TL_FAKE_STREAMS], __ATOMIC_ACQUIRE) >=
         e / TL_FAKE_STREAMS;
}

static void event_synchronize(void *ctx, void *event)
{
  (void)ctx;
  uintptr_t e = (uintptr_t)event;
  tl_backend_fake_stream_finish((tl_stream)(e % TL_FAKE_STREAMS));
}

static void event_free(void *ctx, void *event)
{
  (void)ctx;
  (void)event;
}

static const tl_alloc_raw fake_raw = {
    .alloc = pool_alloc,
    .free = pool_free,
    .mem_info = raw_mem_info,
    .event_record = event_record,
    .event_query = event_query,
    .event_synchronize = event_synchronize,
    .event_free = event_free,
    .vm_granularity = vm_granularity,
    .vm_reserve = vm_reserve,
    .vm_map = vm_map,
    .vm_unmap = vm_unmap,
    .vm_release = vm_release,
};

/* The raw allocator a new pool gets: without the virtual memory callbacks
 * when a test turned them off. */
static tl_alloc_raw fake_pool_raw(void)
{
  tl_alloc_raw raw = fake_raw;
  if (vm.off) {
    raw.vm_granularity = NULL;
    raw.vm_reserve = NULL;
    raw.vm_map = NULL;
    raw.vm_unmap = NULL;
    raw.vm_release = NULL;
  }
  return raw;
}

/* ---- the host block cache's test instance ---------------------------------------- */

static tl_host_cache host_cache =
    TL_HOST_CACHE_INIT(((tl_host_raw){.alloc = raw_alloc, .free = raw_free}), 0);

tl_host_cache *tl_backend_fake_host_cache(void) { return &host_cache; }

tl_status tl_backend_fake_reset_host_cache(size_t cap)
{
  tl_host_cache_empty(&host_cache);
  pthread_mutex_lock(&host_cache.lock);
  int64_t in_use = host_cache.st.nlive;
  if (!in_use) {
    host_cache.st = (tl_host_cache_stats){.cap = cap};
    host_cache.cap = cap;
  }
  pthread_mutex_unlock(&host_cache.lock);
  return in_use ? tl_error_set(TL_ERR_RUNTIME, "the host cache still has %lld blocks in use",
                               (long long)in_use)
                : TL_OK;
}

void tl_backend_fake_stream_finish(tl_stream stream)
{
  size_t k = stream_slot(stream);
  __atomic_store_n(&fake.finished[k], __atomic_load_n(&fake.submitted[k], __ATOMIC_ACQUIRE),
                   __ATOMIC_RELEASE);
}

void tl_backend_fake_set_total(size_t total)
{
  pthread_mutex_lock(&fake.lock);
  fake.total = total ? total : TL_FAKE_DEFAULT_TOTAL;
  pthread_mutex_unlock(&fake.lock);
}

void tl_backend_fake_set_stream(tl_stream stream) { fake.current = stream; }

void tl_backend_fake_counters(tl_fake_counters *out)
{
  out->copies_in = __atomic_load_n(&fake.counters.copies_in, __ATOMIC_RELAXED);
  out->copies_out = __atomic_load_n(&fake.counters.copies_out, __ATOMIC_RELAXED);
  out->copies_on = __atomic_load_n(&fake.counters.copies_on, __ATOMIC_RELAXED);
  out->memsets = __atomic_load_n(&fake.counters.memsets, __ATOMIC_RELAXED);
  out->bytes_in = __atomic_load_n(&fake.counters.bytes_in, __ATOMIC_RELAXED);
  out->bytes_out = __atomic_load_n(&fake.counters.bytes_out, __ATOMIC_RELAXED);
  out->bytes_on = __atomic_load_n(&fake.counters.bytes_on, __ATOMIC_RELAXED);
}

/* ---- the backend table -------------------------------------------------------- */

static int fake_device_count(void) { return 1; }

static tl_alloc_pool *fake_pool(tl_device device)
{
  (void)device;
  return fake.pool;
}

static tl_status fake_memset(tl_device device, void *dst, int byte, size_t n, tl_stream stream)
{
  (void)device;
  (void)stream;
  count(&fake.counters.memsets, NULL, n);
  tl_backend_fake_open();
  if (n) /* an empty tensor's pointer may be NULL, which memset must not get */
    memset(tl_backend_fake_host(dst), byte, n);
  tl_backend_fake_close();
  return TL_OK;
}

static tl_status fake_copy_from_host(tl_device device, void *dst, const void *src, size_t n,
                                     tl_stream stream, bool async)
{
  (void)device;
  (void)stream;
  (void)async;
  count(&fake.counters.copies_in, &fake.counters.bytes_in, n);
  tl_backend_fake_open();
  if (n) /* as in fake_memset */
    memcpy(tl_backend_fake_host(dst), src, n);
  tl_backend_fake_close();
  return TL_OK;
}

static tl_status fake_copy_to_host(tl_device device, void *dst, const void *src, size_t n,
                                   tl_stream stream, bool async)
{
  (void)async;
  count(&fake.counters.copies_out, &fake.counters.bytes_out, n);
  tl_backend_fake_open();
  if (n)
    memcpy(dst, tl_backend_fake_host(src), n);
  tl_backend_fake_close();
  /* the host waited for the copy's stream */
  return tl_device_errors_check_stream(device, stream ? stream : fake.current);
}

static tl_status fake_copy_on_device(tl_device device, void *dst, const void *src, size_t n,
                                     tl_stream stream, bool async)
{
  (void)device;
  (void)stream;
  (void)async;
  count(&fake.counters.copies_on, &fake.counters.bytes_on, n);
  tl_backend_fake_open();
  memmove(tl_backend_fake_host(dst), tl_backend_fake_host(src), n);
  tl_backend_fake_close();
  return TL_OK;
}

static tl_status fake_synchronize(tl_device device)
{
  for (uintptr_t k = 0; k < TL_FAKE_STREAMS; k++)
    tl_backend_fake_stream_finish((tl_stream)k);
  return tl_device_errors_check(device);
}

static tl_stream fake_current_stream(tl_device device)
{
  (void)device;
  return fake.current;
}

/* Storages from the pool; while the CPU's kernels are lent to the fake device
 * (tl_backend_fake_plain_pointers) they hold plain host addresses. */
static tl_storage *fake_storage_new(const tl_backend *self, tl_device device, size_t nbytes)
{
  /* an empty storage's address for the lent kernels: never NULL, as the CPU
   * backend's are not, since those kernels may pass it to memcpy/memset
   * with a size of 0 (which must not get NULL); nothing is read there */
  static _Alignas(64) char empty[64];
  tl_storage *s = tl_backend_pool_storage_new(self, device, nbytes);
  if (s && plain_pointers)
    s->data = nbytes ? tl_backend_fake_host(s->data) : empty;
  return s;
}

static const tl_backend fake_backend = {
    .type = TL_DEVICE_FAKE,
    .name = "fake",
    .device_count = fake_device_count,
    .storage_new = fake_storage_new,
    .storage_free = tl_backend_pool_storage_free,
    .memset = fake_memset,
    .copy_from_host = fake_copy_from_host,
    .copy_to_host = fake_copy_to_host,
    .copy_on_device = fake_copy_on_device,
    .synchronize = fake_synchronize,
    .current_stream = fake_current_stream,
    .pool = fake_pool,
};

/* The pool is configured like CUDA's, from TORCHLIKE_CUDA_ALLOC_CONF, so the
 * environment variable is testable without a GPU. */
tl_status tl_backend_fake_enable(void)
{
  pthread_mutex_lock(&fake.lock);
  if (!fake.pool) {
    tl_alloc_config config;
    tl_alloc_config_from_env(&config);
    tl_alloc_raw raw = fake_pool_raw();
    fake.pool = tl_alloc_pool_new(&raw, &config, "fake:0");
  }
  bool made = fake.pool != NULL;
  pthread_mutex_unlock(&fake.lock);
  if (!made)
    return tl_error_status(); /* the pool's out of memory, for the caller to raise */
  tl_backend_register(&fake_backend);
  return TL_OK;
}

tl_status tl_backend_fake_reset_pool(const char *config_text)
{
  tl_alloc_config config;
  tl_alloc_stats st;
  tl_status status = TL_OK;
  if (tl_alloc_config_parse(config_text, &config) != TL_OK)
    return tl_error_status();
  pthread_mutex_lock(&fake.lock);
  if (fake.pool) {
    tl_alloc_pool_empty_cache(fake.pool);
    tl_alloc_pool_stats(fake.pool, &st);
  }
  if (fake.pool && st.active[TL_ALLOC_POOL_ALL].current > 0) {
    status = tl_error_set(TL_ERR_RUNTIME, "the fake device still has %lld blocks in use",
                          (long long)st.active[TL_ALLOC_POOL_ALL].current);
  } else {
    tl_alloc_raw raw = fake_pool_raw();
    tl_alloc_pool *pool = tl_alloc_pool_new(&raw, &config, "fake:0");
    if (!pool)
      status = tl_error_status();
    else {
      tl_alloc_pool_delete(fake.pool);
      fake.pool = pool;
    }
  }
  pthread_mutex_unlock(&fake.lock);
  if (status == TL_OK)
    tl_backend_register(&fake_backend);
  return status;
}
