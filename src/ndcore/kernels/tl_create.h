/* tl_create.h - filling new tensors: constants, ranges, the identity. */
#ifndef TL_CREATE_H
#define TL_CREATE_H

#include "ndcore/tensor/tl_dtype.h"

/* Write `value` (cast to t's dtype) into every element of t. */
tl_status tl_tensor_fill(tl_tensor *t, tl_scalar value);
/* The element count of arange(start, end, step) into `dtype`, or a
 * RuntimeError naming them (zero step, wrong sign, non-finite, too large). */
tl_status tl_arange_length(tl_scalar start, tl_scalar end, tl_scalar step, tl_dtype dtype,
                           int64_t *n);
/* out[i] = start + i * step for i < out's numel (out: 1-d, contiguous, fresh).
 * Integral outputs step in int64 from the truncated start and step. */
tl_status tl_tensor_arange_fill(tl_tensor *out, tl_scalar start, tl_scalar step);
/* out = numel evenly spaced values from start to end inclusive; with log,
 * base ** those values.  out: 1-d, contiguous, fresh. */
tl_status tl_tensor_linspace_fill(tl_tensor *out, tl_scalar start, tl_scalar end, bool log,
                                  tl_scalar base);
/* out (2-d) = ones on the main diagonal, zeros elsewhere. */
tl_status tl_tensor_eye_fill(tl_tensor *out);

#endif
