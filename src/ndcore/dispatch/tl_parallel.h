/* tl_parallel.h - the CPU thread pool, and the stretches of pure C work
 * during which the host interpreter's lock is let go.
 *
 * tl_parallel_for splits [0, n) into at most tl_parallel_get_threads() ranges
 * of at least `grain` items and runs fn on them, the caller taking one range.
 * Nested calls from inside a range run inline.  Any number of threads may
 * call it at once: one of them has the pool, the others run their job on
 * their own thread.  tl_parallel_set_threads waits for the running job.
 *
 * Unlocked regions: the core never calls Python, yet it runs inside a Python
 * call that holds the GIL.  The bindings install two hooks that let go of the
 * GIL and take it back; the core calls them around work long enough to be
 * worth it (tl_parallel_for does so itself when a job has at least one grain
 * of work, whatever the thread count; BLAS, LAPACK and sort do so around
 * their whole computation).  Inside a region the core may allocate, copy and
 * compute, but must not release the last reference of a storage it did not
 * make (its release callback may be Python's; those callbacks take the GIL
 * themselves as a second line of defence).  Regions nest: the innermost
 * ones inside an unlocked region do nothing.                               */
#ifndef TL_PARALLEL_H
#define TL_PARALLEL_H

#include <stdbool.h>
#include <stdint.h>

typedef void (*tl_range_fn)(void *ctx, int64_t begin, int64_t end, int worker);

void tl_parallel_for(int64_t n, int64_t grain, tl_range_fn fn, void *ctx);

/* A word of this thread's state that a job's pool workers take on from its
 * caller while they run its ranges: how many emulated device kernels the
 * thread is inside (TL_EMU_HOSTED, tl_dispatch_host_memory), so a kernel's
 * pieces on the pool read the memory the kernel may read, and only they. */
extern _Thread_local int tl_parallel_context;
int tl_parallel_get_threads(void);
/* How many jobs the pool's workers have been handed so far (a test's proof
 * that an op split its work, not ran it on the caller alone). */
int64_t tl_parallel_jobs(void);
void tl_parallel_set_threads(int n);

/* Work (about one simple operation per element, ~10 us in all) from which a
 * region lets go of the lock: below it, taking the lock back could cost more
 * than the work, and a thread waiting for it would wait behind Python code. */
#define TL_PARALLEL_UNLOCK_MIN 32768

/* unlock returns the state that relock needs; either may be NULL (no host). */
typedef void *(*tl_unlock_fn)(void);
typedef void (*tl_relock_fn)(void *state);
void tl_parallel_set_lock_hooks(tl_unlock_fn unlock, tl_relock_fn relock);

typedef struct {
  void *state;
  bool unlocked; /* this region let go of the lock and must take it back */
} tl_unlocked;

/* Begin a region of about `work` simple operations (nothing happens below
 * TL_PARALLEL_UNLOCK_MIN or inside another region). */
tl_unlocked tl_parallel_unlock(int64_t work);
/* End it; safe to call twice (the second call does nothing), so a function
 * may end its region at its one exit label. */
void tl_parallel_relock(tl_unlocked *u);

#endif
