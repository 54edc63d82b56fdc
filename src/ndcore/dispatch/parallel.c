/* parallel.c - a small pthread pool behind tl_parallel_for.
 *
 * One job at a time: the caller publishes (fn, ctx, ranges), wakes the
 * workers, runs range 0 itself and waits for the rest.  Ranges are claimed with
 * an atomic counter, so a slow worker never holds up the others' work.  After
 * fork() the child has no workers; the pool is rebuilt lazily there.         */
#include <pthread.h>
#include <stdbool.h>
#include <sched.h>
#include <stdlib.h>
#include <unistd.h>

#include "ndcore/dispatch/tl_parallel.h"

#define TL_MAX_THREADS 256

static struct {
  pthread_mutex_t lock;
  pthread_cond_t wake, done;
  pthread_t threads[TL_MAX_THREADS];
  int nworkers; /* started worker threads */
  int nthreads; /* wanted, caller included */
  uint64_t generation;
  bool stopping;
  /* the current job */
  tl_range_fn fn;
  void *ctx;
  int64_t n, chunk;
  int nranges;
  int next;    /* next range to claim (atomic) */
  int pending; /* ranges not finished (under lock) */
  int active;  /* workers inside the current job (under lock); the next job
                  is published only when this is 0, so no worker ever mixes
                  two jobs' ranges */
} pool = {.lock = PTHREAD_MUTEX_INITIALIZER,
          .wake = PTHREAD_COND_INITIALIZER,
          .done = PTHREAD_COND_INITIALIZER};

static _Thread_local bool in_parallel_region;

/* Returns how many ranges this thread ran. */
static int run_ranges(int worker)
{
  int finished = 0;
  for (;;) {
    int r = __atomic_fetch_add(&pool.next, 1, __ATOMIC_ACQ_REL);
    if (r >= pool.nranges)
      break;
    int64_t begin = r * pool.chunk;
    int64_t end = begin + pool.chunk < pool.n ? begin + pool.chunk : pool.n;
    pool.fn(pool.ctx, begin, end, worker);
    finished++;
  }
  return finished;
}

static void *worker_main(void *arg)
{
  int worker = (int)(intptr_t)arg;
  uint64_t seen = 0;
  in_parallel_region = true;
  pthread_mutex_lock(&pool.lock);
  for (;;) {
    while (pool.generation == seen && !pool.stopping)
      pthread_cond_wait(&pool.wake, &pool.lock);
    if (pool.stopping)
      break;
    seen = pool.generation;
    pool.active++;
    pthread_mutex_unlock(&pool.lock);
    int finished = run_ranges(worker);
    pthread_mutex_lock(&pool.lock);
    pool.pending -= finished;
    pool.active--;
    if (pool.pending == 0 && pool.active == 0)
      pthread_cond_signal(&pool.done);
  }
  pthread_mutex_unlock(&pool.lock);
  return NULL;
}

static int default_threads(void)
{
  cpu_set_t set;
  if (sched_getaffinity(0, sizeof set, &set) == 0)
    return CPU_COUNT(&set);
  long n = sysconf(_SC_NPROCESSORS_ONLN);
  return n > 0 ? (int)n : 1;
}

static void stop_workers(void)
{
  pthread_mutex_lock(&pool.lock);
  pool.stopping = true;
  pthread_cond_broadcast(&pool.wake);
  pthread_mutex_unlock(&pool.lock);
  for (int i = 0; i < pool.nworkers; i++)
    pthread_join(pool.threads[i], NULL);
  pool.nworkers = 0;
  pool.stopping = false;
}

static void after_fork_in_child(void)
{
  /* The threads did not survive the fork; forget them. */
  pthread_mutex_init(&pool.lock, NULL);
  pthread_cond_init(&pool.wake, NULL);
  pthread_cond_init(&pool.done, NULL);
  pool.nworkers = 0;
  pool.stopping = false;
}

static void ensure_workers(void)
{
  static bool atfork_done;
  if (!atfork_done) {
    pthread_atfork(NULL, NULL, after_fork_in_child);
    atfork_done = true;
  }
  if (pool.nthreads == 0)
    pool.nthreads = default_threads();
  while (pool.nworkers < pool.nthreads - 1) {
    if (pthread_create(&pool.threads[pool.nworkers], NULL, worker_main,
                       (void *)(intptr_t)(pool.nworkers + 1)) != 0) {
      pool.nthreads = pool.nworkers + 1; /* run with what we have */
      break;
    }
    pool.nworkers++;
  }
}

int tl_parallel_get_threads(void)
{
  if (pool.nthreads == 0)
    pool.nthreads = default_threads();
  return pool.nthreads;
}

void tl_parallel_set_threads(int n)
{
  if (n < 1)
    n = 1;
  if (n > TL_MAX_THREADS)
    n = TL_MAX_THREADS;
  if (pool.nworkers > n - 1)
    stop_workers();
  pool.nthreads = n;
}

void tl_parallel_for(int64_t n, int64_t grain, tl_range_fn fn, void *ctx)
{
  if (n <= 0)
    return;
  if (grain < 1)
    grain = 1;
  int threads = tl_parallel_get_threads();
  int64_t max_ranges = (n + grain - 1) / grain;
  if (in_parallel_region || threads == 1 || max_ranges < 2) {
    fn(ctx, 0, n, 0);
    return;
  }
  ensure_workers();
  /* Several ranges per thread, claimed as threads come free: a thread whose
   * core is busy with another process then holds up only its current range. */
  int64_t want = 4 * (int64_t)(pool.nworkers + 1);
  int nranges = (int)(max_ranges < want ? max_ranges : want);
  pthread_mutex_lock(&pool.lock);
  while (pool.active > 0) /* a late worker still leaving the previous job */
    pthread_cond_wait(&pool.done, &pool.lock);
  pool.fn = fn;
  pool.ctx = ctx;
  pool.n = n;
  pool.chunk = (n + nranges - 1) / nranges;
  pool.nranges = (int)((n + pool.chunk - 1) / pool.chunk);
  pool.next = 0;
  pool.pending = pool.nranges;
  pool.generation++;
  pthread_cond_broadcast(&pool.wake);
  pthread_mutex_unlock(&pool.lock);

  in_parallel_region = true;
  int finished = run_ranges(0);
  in_parallel_region = false;

  pthread_mutex_lock(&pool.lock);
  pool.pending -= finished;
  while (pool.pending > 0 || pool.active > 0)
    pthread_cond_wait(&pool.done, &pool.lock);
  pthread_mutex_unlock(&pool.lock);
}
