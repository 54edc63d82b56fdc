/* tl_parallel.h - the CPU thread pool.
 *
 * tl_parallel_for splits [0, n) into at most tl_parallel_get_threads() ranges
 * of at least `grain` items and runs fn on them, the caller taking one range.
 * Nested calls from inside a range run inline.                              */
#ifndef TL_PARALLEL_H
#define TL_PARALLEL_H

#include <stdint.h>

typedef void (*tl_range_fn)(void *ctx, int64_t begin, int64_t end, int worker);

void tl_parallel_for(int64_t n, int64_t grain, tl_range_fn fn, void *ctx);
int tl_parallel_get_threads(void);
void tl_parallel_set_threads(int n);

#endif
