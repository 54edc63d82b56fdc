/* parallel.c - a small pthread pool behind tl_parallel_for, and the unlocked
 * regions of tl_parallel.h.
 *
 * One job at a time.  A caller first takes the pool (`busy`, under the
 * lock); a caller that finds it taken does not wait but runs its job on its
 * own thread: it is one more thread with work already, and two Python
 * threads calling in at once then use two cores with no hand-off.  The owner
 * publishes (fn, ctx, ranges), wakes the workers, runs ranges itself and
 * waits until every range is finished and no worker is still inside the job;
 * only then does it give the pool back, so no caller rewrites a job whose
 * workers have not woken yet.  Ranges are claimed with an atomic counter, so
 * a slow worker never holds up the others' work.  tl_parallel_set_threads
 * takes the pool the same way (waiting for the running job) before it stops
 * or starts workers.  After fork() the child has no workers; the pool is
 * rebuilt lazily there.                                                     */
#include <pthread.h>
#include <sched.h>
#include <stdint.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>

#include "ndcore/dispatch/tl_parallel.h"

#define TL_MAX_THREADS 256

static struct {
  pthread_mutex_t lock;
  pthread_cond_t wake, done;
  pthread_t threads[TL_MAX_THREADS];
  int nworkers; /* started worker threads (changed only by the pool's owner) */
  int nthreads; /* wanted, caller included; 0 until first asked (atomic) */
  uint64_t generation;
  bool stopping;
  bool busy; /* a caller owns the pool (under lock) */
  /* the current job, written by the owner under lock before a wake */
  tl_range_fn fn;
  void *ctx;
  int64_t n, chunk;
  int nranges;
  int next;    /* next range to claim (atomic) */
  int pending; /* ranges not finished (under lock) */
  int context; /* the caller's tl_parallel_context, for the workers */
  int active;  /* workers inside the current job (under lock); the next job
                  is published only when this is 0, so no worker ever mixes
                  two jobs' ranges */
} pool = {.lock = PTHREAD_MUTEX_INITIALIZER,
          .wake = PTHREAD_COND_INITIALIZER,
          .done = PTHREAD_COND_INITIALIZER};

static _Thread_local bool in_parallel_region;
_Thread_local int tl_parallel_context;

/* Before sleeping on a condition variable, a thread waits this long awake:
 * jobs often come back to back (a recurrent layer's steps: hundreds of small
 * jobs per call), and a sleeping worker costs a futex wake-up and a
 * reschedule per job, which a short spin saves.  Short enough that an idle
 * pool gives its cores back at once, as OpenMP's runtimes do after theirs. */
#define TL_SPIN_NS 50000

static int64_t now_ns(void)
{
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

static inline void cpu_relax(void)
{
#if defined(__x86_64__) || defined(__i386__)
  __builtin_ia32_pause();
#endif
}

/* Spin (the lock released) until ready(arg) or the budget is spent; ready
 * reads the pool's fields atomically, as a hint: the caller re-checks them
 * under the lock.  Called and returns with the lock held. */
static void spin_unlocked(bool (*ready)(uint64_t), uint64_t arg)
{
  pthread_mutex_unlock(&pool.lock);
  int64_t deadline = now_ns() + TL_SPIN_NS;
  for (int i = 1; !ready(arg); i++)
    if (i % 64 == 0 && now_ns() > deadline)
      break;
    else
      cpu_relax();
  pthread_mutex_lock(&pool.lock);
}

static bool job_published(uint64_t seen)
{
  return __atomic_load_n(&pool.generation, __ATOMIC_ACQUIRE) != seen ||
         __atomic_load_n(&pool.stopping, __ATOMIC_ACQUIRE);
}

static bool job_finished(uint64_t unused)
{
  (void)unused;
  return __atomic_load_n(&pool.pending, __ATOMIC_ACQUIRE) == 0 &&
         __atomic_load_n(&pool.active, __ATOMIC_ACQUIRE) == 0;
}

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
  seen = pool.generation;
  for (;;) {
    if (pool.generation == seen && !pool.stopping)
      spin_unlocked(job_published, seen);
    while (pool.generation == seen && !pool.stopping)
      pthread_cond_wait(&pool.wake, &pool.lock);
    if (pool.stopping)
      break;
    seen = pool.generation;
    tl_parallel_context = pool.context;
    __atomic_add_fetch(&pool.active, 1, __ATOMIC_RELEASE); /* atomic: read by spinners */
    pthread_mutex_unlock(&pool.lock);
    int finished = run_ranges(worker);
    pthread_mutex_lock(&pool.lock);
    tl_parallel_context = 0;
    __atomic_sub_fetch(&pool.pending, finished, __ATOMIC_RELEASE);
    __atomic_sub_fetch(&pool.active, 1, __ATOMIC_RELEASE);
    if (pool.pending == 0 && pool.active == 0)
      pthread_cond_broadcast(&pool.done);
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

/* Take the pool: at once (returns false if taken) or after the running job. */
static bool pool_take(bool wait)
{
  pthread_mutex_lock(&pool.lock);
  while (wait && pool.busy)
    pthread_cond_wait(&pool.done, &pool.lock);
  bool taken = !pool.busy;
  pool.busy = true;
  while (taken && pool.active > 0) /* a late worker still leaving the previous job */
    pthread_cond_wait(&pool.done, &pool.lock);
  pthread_mutex_unlock(&pool.lock);
  return taken;
}

static void pool_give_back(void)
{
  pthread_mutex_lock(&pool.lock);
  pool.busy = false;
  pthread_cond_broadcast(&pool.done);
  pthread_mutex_unlock(&pool.lock);
}

/* Owner only; no job is running. */
static void stop_workers(void)
{
  pthread_mutex_lock(&pool.lock);
  __atomic_store_n(&pool.stopping, true, __ATOMIC_RELEASE);
  pthread_cond_broadcast(&pool.wake);
  pthread_mutex_unlock(&pool.lock);
  for (int i = 0; i < pool.nworkers; i++)
    pthread_join(pool.threads[i], NULL);
  pthread_mutex_lock(&pool.lock);
  pool.nworkers = 0;
  __atomic_store_n(&pool.stopping, false, __ATOMIC_RELEASE);
  pthread_mutex_unlock(&pool.lock);
}

static void after_fork_in_child(void)
{
  /* The threads did not survive the fork, nor did any job or owner. */
  pthread_mutex_init(&pool.lock, NULL);
  pthread_cond_init(&pool.wake, NULL);
  pthread_cond_init(&pool.done, NULL);
  pool.nworkers = 0;
  __atomic_store_n(&pool.stopping, false, __ATOMIC_RELEASE);
  pool.busy = false;
  pool.active = 0;
  pool.pending = 0;
}

static pthread_once_t atfork_once = PTHREAD_ONCE_INIT;
static void install_atfork(void) { pthread_atfork(NULL, NULL, after_fork_in_child); }

/* Owner only. */
static void ensure_workers(void)
{
  pthread_once(&atfork_once, install_atfork);
  int want = tl_parallel_get_threads();
  while (pool.nworkers < want - 1) {
    if (pthread_create(&pool.threads[pool.nworkers], NULL, worker_main,
                       (void *)(intptr_t)(pool.nworkers + 1)) != 0) {
      /* run with what we have */
      __atomic_store_n(&pool.nthreads, pool.nworkers + 1, __ATOMIC_RELAXED);
      break;
    }
    pool.nworkers++;
  }
}

int64_t tl_parallel_jobs(void)
{
  return (int64_t)__atomic_load_n(&pool.generation, __ATOMIC_ACQUIRE); /* one per job */
}

int tl_parallel_get_threads(void)
{
  int n = __atomic_load_n(&pool.nthreads, __ATOMIC_RELAXED);
  if (n == 0) {
    int zero = 0;
    n = default_threads();
    if (!__atomic_compare_exchange_n(&pool.nthreads, &zero, n, false, __ATOMIC_RELAXED,
                                     __ATOMIC_RELAXED))
      n = zero; /* another thread (or set_threads) got there first */
  }
  return n;
}

void tl_parallel_set_threads(int n)
{
  if (n < 1)
    n = 1;
  if (n > TL_MAX_THREADS)
    n = TL_MAX_THREADS;
  pool_take(true);
  if (pool.nworkers > n - 1)
    stop_workers();
  __atomic_store_n(&pool.nthreads, n, __ATOMIC_RELAXED);
  pool_give_back();
}

/* ---- unlocked regions ------------------------------------------------------------ */

static tl_unlock_fn unlock_hook;
static tl_relock_fn relock_hook;
static _Thread_local bool unlocked_now; /* this thread is inside an unlocked region */

void tl_parallel_set_lock_hooks(tl_unlock_fn unlock, tl_relock_fn relock)
{
  unlock_hook = unlock;
  relock_hook = relock;
}

/* Pool workers never hold the host's lock: only a calling thread lets go. */
static tl_unlocked unlock_if(bool worth)
{
  tl_unlocked u = {NULL, false};
  if (!worth || unlocked_now || in_parallel_region || !unlock_hook)
    return u;
  u.state = unlock_hook();
  u.unlocked = unlocked_now = true;
  return u;
}

tl_unlocked tl_parallel_unlock(int64_t work) { return unlock_if(work >= TL_PARALLEL_UNLOCK_MIN); }

void tl_parallel_relock(tl_unlocked *u)
{
  if (!u->unlocked)
    return;
  u->unlocked = unlocked_now = false;
  relock_hook(u->state);
}

/* ---- running a job ---------------------------------------------------------------- */

void tl_parallel_for(int64_t n, int64_t grain, tl_range_fn fn, void *ctx)
{
  if (n <= 0)
    return;
  if (grain < 1)
    grain = 1;
  if (n < grain || in_parallel_region) { /* less than a grain: no thread, no unlocking */
    fn(ctx, 0, n, 0);
    return;
  }
  /* A job worth a second thread is worth letting go of the lock for, even
   * when it runs on one: other Python threads run meanwhile. */
  tl_unlocked u = unlock_if(true);
  int threads = tl_parallel_get_threads();
  int64_t max_ranges = (n + grain - 1) / grain;
  if (threads == 1 || max_ranges < 2 || !pool_take(false)) {
    in_parallel_region = true;
    fn(ctx, 0, n, 0);
    in_parallel_region = false;
    tl_parallel_relock(&u);
    return;
  }
  ensure_workers();
  /* Several ranges per thread, claimed as threads come free: a thread whose
   * core is busy with another process then holds up only its current range. */
  int64_t want = 4 * (int64_t)(pool.nworkers + 1);
  int nranges = (int)(max_ranges < want ? max_ranges : want);
  pthread_mutex_lock(&pool.lock);
  pool.fn = fn;
  pool.ctx = ctx;
  pool.n = n;
  pool.chunk = (n + nranges - 1) / nranges;
  pool.nranges = (int)((n + pool.chunk - 1) / pool.chunk);
  pool.next = 0;
  pool.pending = pool.nranges;
  pool.context = tl_parallel_context;
  __atomic_add_fetch(&pool.generation, 1, __ATOMIC_RELEASE);
  pthread_cond_broadcast(&pool.wake);
  pthread_mutex_unlock(&pool.lock);

  in_parallel_region = true;
  int finished = run_ranges(0);
  in_parallel_region = false;

  pthread_mutex_lock(&pool.lock);
  __atomic_sub_fetch(&pool.pending, finished, __ATOMIC_RELEASE);
  if (pool.pending > 0 || pool.active > 0)
    spin_unlocked(job_finished, 0);
  while (pool.pending > 0 || pool.active > 0)
    pthread_cond_wait(&pool.done, &pool.lock);
  pool.busy = false;
  pthread_cond_broadcast(&pool.done);
  pthread_mutex_unlock(&pool.lock);
  tl_parallel_relock(&u);
}
