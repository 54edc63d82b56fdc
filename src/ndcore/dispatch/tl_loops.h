/* tl_loops.h - macros that turn a scalar function into an inner loop.
 *
 * Kernels are written as static inline functions on compute types
 * (`static inline float exp_f32(float x)`); these macros wrap one into the
 * tl_loop_fn signature, with a contiguous path the compiler can vectorise and
 * a strided path for everything else.  Loop operands: output first.        */
#ifndef TL_LOOPS_H
#define TL_LOOPS_H

#include "ndcore/dispatch/tl_iter.h"

/* out = F(a).  The _ATTR forms put an attribute (e.g. TL_SIMD_CLONES) on the loop. */
#define TL_UNARY_LOOP(NAME, TI, TO, F) TL_UNARY_LOOP_ATTR(, NAME, TI, TO, F)
#define TL_UNARY_LOOP_ATTR(ATTR, NAME, TI, TO, F)                                   \
  ATTR static void NAME(char **args, int64_t n, const int64_t *steps, void *data)  \
  {                                                                                 \
    (void)data;                                                                     \
    if (steps[0] == sizeof(TO) && steps[1] == sizeof(TI)) {                         \
      TO *o = (TO *)args[0];                                                        \
      const TI *a = (const TI *)args[1];                                            \
      for (int64_t i = 0; i < n; i++)                                               \
        o[i] = F(a[i]);                                                             \
      return;                                                                       \
    }                                                                               \
    for (int64_t i = 0; i < n; i++)                                                 \
      *(TO *)(args[0] + i * steps[0]) = F(*(const TI *)(args[1] + i * steps[1]));   \
  }

/* out = F(a, b); the contiguous paths include a broadcast scalar on either side. */
#define TL_BINARY_LOOP(NAME, TI, TO, F) TL_BINARY_LOOP_ATTR(, NAME, TI, TO, F)
#define TL_BINARY_LOOP_ATTR(ATTR, NAME, TI, TO, F)                                  \
  ATTR static void NAME(char **args, int64_t n, const int64_t *steps, void *data)  \
  {                                                                                 \
    (void)data;                                                                     \
    TO *o = (TO *)args[0];                                                          \
    const TI *a = (const TI *)args[1], *b = (const TI *)args[2];                    \
    if (steps[0] == sizeof(TO)) {                                                   \
      if (steps[1] == sizeof(TI) && steps[2] == sizeof(TI)) {                       \
        for (int64_t i = 0; i < n; i++)                                             \
          o[i] = F(a[i], b[i]);                                                     \
        return;                                                                     \
      }                                                                             \
      if (steps[1] == sizeof(TI) && steps[2] == 0) {                                \
        const TI bs = *b;                                                           \
        for (int64_t i = 0; i < n; i++)                                             \
          o[i] = F(a[i], bs);                                                       \
        return;                                                                     \
      }                                                                             \
      if (steps[1] == 0 && steps[2] == sizeof(TI)) {                                \
        const TI as = *a;                                                           \
        for (int64_t i = 0; i < n; i++)                                             \
          o[i] = F(as, b[i]);                                                       \
        return;                                                                     \
      }                                                                             \
    }                                                                               \
    for (int64_t i = 0; i < n; i++)                                                 \
      *(TO *)(args[0] + i * steps[0]) =                                             \
          F(*(const TI *)(args[1] + i * steps[1]), *(const TI *)(args[2] + i * steps[2])); \
  }

#endif
