/* tl_simd_clones.h - TL_SIMD_CLONES: compile a function for AVX-512, AVX2
 * and the baseline, the variant picked once at load time (an ifunc), so a
 * vectorisable loop gets the machine's widest vectors and the build stays
 * portable.  Apart from tl_vecmath.h so that code which must not call
 * libmvec (bit-exact kernels) can take the attribute alone.                */
#ifndef TL_SIMD_CLONES_H
#define TL_SIMD_CLONES_H

#if defined(__GNUC__) && !defined(__clang__) && defined(__x86_64__) && !defined(TL_SANITIZE)
#define TL_SIMD_CLONES __attribute__((target_clones("avx512f", "avx2", "default")))
#else
#define TL_SIMD_CLONES
#endif

#include <stdbool.h>

/* Whether the CPU runs AVX-512F, asked once (per file that asks): for
 * kernels written with intrinsics under target("avx512f"), which no clone
 * picks, so each chooses its path at run time. */
static inline bool tl_cpu_has_avx512(void)
{
#if defined(__GNUC__) && defined(__x86_64__)
  static int has = -1;
  if (has < 0)
    has = __builtin_cpu_supports("avx512f") ? 1 : 0;
  return has == 1;
#else
  return false;
#endif
}

#endif
