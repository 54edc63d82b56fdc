/* tl_extrema_rule.h - which bits float32/float64 maximum and minimum give on
 * a tie of 0.0 and -0.0 or a NaN, element by element, as the CPU's loops
 * give them (kernels_compare.c, compare.inc), for the kernels that compute
 * elements one at a time: CUDA's (elementwise_compare.cu) and the emulated
 * device's (emulate.c).  Plain C, read by C and by CUDA C++.
 *
 * The CPU follows PyTorch's CPU kernel: each thread's chunk of the range
 * (tl_iter_pytorch_chunk), cut at the rows of the iterator's innermost
 * dimension (and at buffer pieces when an operand is cast), is one call of
 * the loop; a call whose steps allow it computes its first n - n % block
 * elements by the vector rule (block: 64 bytes of elements) and the rest by
 * the scalar rule:
 *   vector: a NaN on either side gives the all-ones NaN, else a > b ? a : b
 *           (maximum; a < b ? a : b for minimum): the second of a tie;
 *   scalar: a NaN on either side gives the default quiet NaN, else
 *           a < b ? b : a (maximum; b < a ? b : a for minimum): the first.
 * The plain rule (TL_OP_EXTREMA_PLAIN: _C._maximum_plain, and the
 * numpy-namespace maximum, which swaps its operands into it) is
 * (a >= b || isnan(a)) ? a : b everywhere. */
#ifndef TL_EXTREMA_RULE_H
#define TL_EXTREMA_RULE_H

#include <stdint.h>

#ifdef __CUDACC__
#define TL_EXTREMA_FN static __host__ __device__ inline
#else
#include <stdbool.h>
#define TL_EXTREMA_FN static inline
#endif

/* Where the CPU's loop calls begin and end, for one iteration: the rows of
 * its innermost dimension (inner elements), each thread's chunk of the
 * range (chunk elements), the buffer pieces when an operand is cast through
 * buffers (buffer elements; 0: none); vector says whether the calls' steps
 * allow the vector rule at all; block is 64 bytes of the compute type. */
typedef struct {
  int64_t numel, inner, chunk, buffer;
  int32_t vector, block;
} tl_extrema_runs;

/* Does element i (linear, innermost dimension last) take the vector rule? */
TL_EXTREMA_FN bool tl_extrema_vector_place(const tl_extrema_runs *r, int64_t i)
{
  if (!r->vector)
    return false;
  int64_t row = i - i % r->inner, chunk = i - i % r->chunk;
  int64_t start = row > chunk ? row : chunk;
  int64_t end = row + r->inner;
  if (chunk + r->chunk < end)
    end = chunk + r->chunk;
  if (r->numel < end)
    end = r->numel;
  if (r->buffer) { /* the call's buffer piece */
    start += (i - start) / r->buffer * r->buffer;
    if (start + r->buffer < end)
      end = start + r->buffer;
  }
  int64_t n = end - start;
  return i - start < n - n % r->block;
}

/* The NaNs of the two rules, by their bits. */
TL_EXTREMA_FN float tl_extrema_nan_ones_f32(void)
{
  union { uint32_t u; float f; } v = {UINT32_MAX};
  return v.f;
}
TL_EXTREMA_FN double tl_extrema_nan_ones_f64(void)
{
  union { uint64_t u; double d; } v = {UINT64_MAX};
  return v.d;
}
TL_EXTREMA_FN float tl_extrema_nan_f32(void)
{
  union { uint32_t u; float f; } v = {0x7fc00000u};
  return v.f;
}
TL_EXTREMA_FN double tl_extrema_nan_f64(void)
{
  union { uint64_t u; double d; } v = {0x7ff8000000000000ull};
  return v.d;
}

/* maximum (is_max) or minimum of a and b at a place of the given rule. */
TL_EXTREMA_FN float tl_extrema_f32(bool is_max, bool vector, float a, float b)
{
  if (a != a || b != b)
    return vector ? tl_extrema_nan_ones_f32() : tl_extrema_nan_f32();
  if (vector)
    return is_max ? (a > b ? a : b) : (a < b ? a : b);
  return is_max ? (a < b ? b : a) : (b < a ? b : a);
}
TL_EXTREMA_FN double tl_extrema_f64(bool is_max, bool vector, double a, double b)
{
  if (a != a || b != b)
    return vector ? tl_extrema_nan_ones_f64() : tl_extrema_nan_f64();
  if (vector)
    return is_max ? (a > b ? a : b) : (a < b ? a : b);
  return is_max ? (a < b ? b : a) : (b < a ? b : a);
}

#endif
