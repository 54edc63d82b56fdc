/* tl_create.h - filling new tensors: constants, ranges, random numbers. */
#ifndef TL_CREATE_H
#define TL_CREATE_H

#include "ndcore/tl_dtype.h"

/* Write `value` (cast to t's dtype) into every element of t. */
tl_status tl_tensor_fill(tl_tensor *t, tl_scalar value);
/* out[i] = start + i * step for i < out's numel (out is 1-d, allocated). */
tl_status tl_tensor_arange_fill(tl_tensor *out, tl_scalar start, tl_scalar step);
/* The element count of arange(start, end, step), or an error naming them. */
tl_status tl_arange_length(tl_scalar start, tl_scalar end, tl_scalar step, int64_t *n);

#endif
