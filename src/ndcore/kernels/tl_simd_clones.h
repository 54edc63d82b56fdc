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

#endif
