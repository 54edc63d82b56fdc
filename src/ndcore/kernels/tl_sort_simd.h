/* tl_sort_simd.h - in-place ascending sorts of bare unsigned keys (private
 * to the sort files; sort_simd.c).  Not stable: for keys that are all
 * distinct, or whose equal copies nobody can tell apart.                  */
#ifndef TL_SORT_SIMD_H
#define TL_SORT_SIMD_H

#include <stdbool.h>
#include <stdint.h>

/* Whether the vector sorts may run: the CPU has AVX-512F or AVX2, and the
 * environment variable TORCHLIKE_SORT_SIMD is not "0" (read at each call). */
bool tl_sort_simd_available(void);
/* The longest lane the vector sort should take, where it may run: 2^22 keys
 * with AVX-512, 2^21 with AVX2 (past that the radix sorts' two passes over
 * memory win, measured); and whether it is AVX-512's. */
int64_t tl_sort_simd_max_lane(void);
bool tl_sort_simd_avx512(void);
/* The n keys of a, sorted in place; scratch holds n keys (the vector sort
 * partitions back and forth).  Only when tl_sort_simd_available(): a build
 * without the vector code falls back on a heap sort, correct but slow. */
void tl_sort_keys_u32(uint32_t *a, int64_t n, uint32_t *scratch);
void tl_sort_keys_u64(uint64_t *a, int64_t n, uint64_t *scratch);

#endif
