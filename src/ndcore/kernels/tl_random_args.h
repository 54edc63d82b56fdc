/* tl_random_args.h - what every device's random kernels share (private to
 * the kernel files: random.c, dispatch/meta.c): the argument checks that
 * read no data, with their messages.                                      */
#ifndef TL_RANDOM_ARGS_H
#define TL_RANDOM_ARGS_H

#include "ndcore/tensor/tl_tensor.h"

/* poisson: floating-point rates. */
tl_status tl_random_poisson_check(const tl_tensor *rates);
/* multinomial: probs of 1 or 2 dims and a float dtype, n > 0 samples of a
 * distribution with categories, at most their number without replacement. */
tl_status tl_random_multinomial_check(const tl_tensor *probs, int64_t n, bool replacement);

#endif
