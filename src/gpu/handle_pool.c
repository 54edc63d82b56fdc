/* handle_pool.c - library handles per (thread, device), and the free lists
 * of handles whose threads exited (tl_gpu_handles.h).
 *
 * Invariants: a handle is either in exactly one live thread's table or on
 * its (kind, device) free list; in_use counts the first kind, and only the
 * thread that owns a table reads or writes it (the lock guards the free
 * lists and the counts).  A thread's table is made on its first adopt and
 * given back by the pthread key's destructor when the thread exits.     */
#include "gpu/tl_gpu_handles.h"

#include <pthread.h>
#include <stdbool.h>
#include <stdlib.h>

typedef struct {
  void *handles[TL_GPU_HANDLE_KIND_COUNT][TL_GPU_HANDLE_MAX_DEVICES];
} thread_table;

typedef struct {
  void **items;
  int n, cap;
  int in_use;
} handle_list;

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static handle_list lists[TL_GPU_HANDLE_KIND_COUNT][TL_GPU_HANDLE_MAX_DEVICES];
static pthread_key_t table_key;
static pthread_once_t key_once = PTHREAD_ONCE_INIT;
static _Thread_local thread_table *mine;

/* At a thread's exit: its handles to the free lists.  A list that cannot
 * grow drops the handle (it is not destroyed, only no longer reused). */
static void give_back(void *arg)
{
  thread_table *t = arg;
  pthread_mutex_lock(&lock);
  for (int k = 0; k < TL_GPU_HANDLE_KIND_COUNT; k++)
    for (int d = 0; d < TL_GPU_HANDLE_MAX_DEVICES; d++) {
      void *h = t->handles[k][d];
      handle_list *l = &lists[k][d];
      if (!h)
        continue;
      l->in_use--;
      if (l->n == l->cap) {
        int cap = l->cap ? 2 * l->cap : 4;
        void **items = realloc(l->items, (size_t)cap * sizeof *items);
        if (!items)
          continue;
        l->items = items;
        l->cap = cap;
      }
      l->items[l->n++] = h;
    }
  pthread_mutex_unlock(&lock);
  free(t);
  mine = NULL; /* a later destructor of this thread that asks makes a new table */
}

static bool have_key;

static void make_key(void) { have_key = pthread_key_create(&table_key, give_back) == 0; }

/* The calling thread's table, made on first use; NULL with a MemoryError. */
static thread_table *my_table(void)
{
  if (mine)
    return mine;
  pthread_once(&key_once, make_key);
  thread_table *t = calloc(1, sizeof *t);
  if (!t) {
    tl_error_set(TL_ERR_MEMORY, "out of memory for a thread's library handles");
    return NULL;
  }
  /* without a key (none left) the table lives on with its thread's handles,
   * which are then never reused */
  if (have_key)
    pthread_setspecific(table_key, t);
  return mine = t;
}

void *tl_gpu_handle_get(tl_gpu_handle_kind kind, int device)
{
  if (mine && mine->handles[kind][device])
    return mine->handles[kind][device];
  thread_table *t = my_table();
  if (!t) {
    tl_error_clear(); /* the caller's tl_gpu_handle_adopt says it */
    return NULL;
  }
  pthread_mutex_lock(&lock);
  handle_list *l = &lists[kind][device];
  void *h = l->n ? l->items[--l->n] : NULL;
  if (h) {
    t->handles[kind][device] = h;
    l->in_use++;
  }
  pthread_mutex_unlock(&lock);
  return h;
}

tl_status tl_gpu_handle_adopt(tl_gpu_handle_kind kind, int device, void *handle)
{
  thread_table *t = my_table();
  if (!t)
    return tl_error_status();
  t->handles[kind][device] = handle;
  pthread_mutex_lock(&lock);
  lists[kind][device].in_use++;
  pthread_mutex_unlock(&lock);
  return TL_OK;
}

void tl_gpu_handle_counts(tl_gpu_handle_kind kind, int device, int *in_use, int *free_count)
{
  pthread_mutex_lock(&lock);
  *in_use = lists[kind][device].in_use;
  *free_count = lists[kind][device].n;
  pthread_mutex_unlock(&lock);
}
