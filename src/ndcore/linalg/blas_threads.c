/* blas_threads.c - OpenBLAS's thread count: the user's setting
 * (torchlike.set_num_threads), the sections that run products on one BLAS
 * thread (the conv's per-sample products, small GEMMs), and the size below
 * which a GEMM is such a product.
 *
 * OpenBLAS's count is one process-wide setting: the first concurrent user of
 * a single-thread section sets one thread, the last puts the user's count
 * back, and a set_num_threads arriving meanwhile is what the last restores. */
#include <pthread.h>
#include <stdatomic.h>

#include "ndcore/linalg/tl_blas.h"
#include "ndcore/linalg/tl_linalg.h"

/* The count changes only under the lock, at a section's first entry and last
 * exit; entries and exits nested inside a running section (each of our pool
 * threads' products in a conv) only move blas_users, without the lock.
 * blas_user is the user's count, 0 until it is first read from OpenBLAS. */
static pthread_mutex_t blas_lock = PTHREAD_MUTEX_INITIALIZER;
static atomic_int blas_users, blas_user;

/* (under the lock) first read before any section lowers the count */
static int user_count_locked(void)
{
  int n = atomic_load(&blas_user);
  if (n == 0) {
    n = TL_BLAS(openblas_get_num_threads)();
    atomic_store(&blas_user, n);
  }
  return n;
}

void tl_linalg_set_blas_threads(int n)
{
  pthread_mutex_lock(&blas_lock);
  atomic_store(&blas_user, n);
  if (atomic_load(&blas_users) == 0)
    TL_BLAS(openblas_set_num_threads)(n);
  pthread_mutex_unlock(&blas_lock);
}

const char *tl_linalg_blas_corename(void) { return TL_BLAS(openblas_get_corename)(); }

int tl_linalg_blas_threads(void) { return TL_BLAS(openblas_get_num_threads)(); }

/* Not OpenBLAS's count now: a section on another thread has lowered it to 1,
 * and a product judged by it would run outside any section while that
 * section's end raised the count under it, which corrupts OpenBLAS's
 * results (four threads of 64 x 512 x 64 products disagreed). */
int tl_linalg_blas_user_threads(void)
{
  int n = atomic_load(&blas_user);
  if (n == 0) {
    pthread_mutex_lock(&blas_lock);
    n = user_count_locked();
    pthread_mutex_unlock(&blas_lock);
  }
  return n;
}

void tl_linalg_blas_single_begin(void)
{
  int users = atomic_load(&blas_users);
  while (users > 0) /* a section runs: the count is 1 already */
    if (atomic_compare_exchange_weak(&blas_users, &users, users + 1))
      return;
  pthread_mutex_lock(&blas_lock);
  user_count_locked();
  if (atomic_load(&blas_users) == 0) /* lowered before the section is seen */
    TL_BLAS(openblas_set_num_threads)(1);
  atomic_fetch_add(&blas_users, 1);
  pthread_mutex_unlock(&blas_lock);
}

void tl_linalg_blas_single_end(void)
{
  int users = atomic_load(&blas_users);
  while (users > 1) /* another section stays: the count stays 1 */
    if (atomic_compare_exchange_weak(&blas_users, &users, users - 1))
      return;
  pthread_mutex_lock(&blas_lock);
  if (atomic_fetch_sub(&blas_users, 1) == 1)
    TL_BLAS(openblas_set_num_threads)(atomic_load(&blas_user));
  pthread_mutex_unlock(&blas_lock);
}

void tl_linalg_parallel_products(int64_t n, int64_t grain, tl_range_fn fn, void *ctx)
{
  if (n <= 1) {
    fn(ctx, 0, n, 0);
    return;
  }
  tl_linalg_blas_single_begin();
  tl_parallel_for(n, grain, fn, ctx);
  tl_linalg_blas_single_end();
}

/* OpenBLAS splits a product across its threads from M*N*K > 262144 on, but
 * waking its threads costs more than they save up to a few MFLOP: on 2
 * cores, 32x256x256 and 128x128x128 (2.1e6) ran no faster on two threads
 * (0.83x-1.29x of one thread's time), and on a busy machine a thread that
 * has lost its core turns a 0.1 ms product into 16-100 ms (64x4096x10 and
 * 32x1024x256, seen at load 12).  Products up to 2^22 multiply-adds run on
 * one thread. */
enum { TL_GEMM_SINGLE_MNK = 1 << 22 };

bool tl_linalg_gemm_single_thread(int64_t M, int64_t N, int64_t K)
{
  return (double)M * (double)N * (double)K <= (double)TL_GEMM_SINGLE_MNK;
}
