/* kernels_compare.c - CPU loops of the comparing and selecting ops:
 * minimum/maximum (NaN-propagating), fmin/fmax (NaN-ignoring), eq ... ge,
 * the logical and bitwise binaries with the shifts, where(cond, a, b) and
 * clamp(x, min, max).
 *
 * Logical ops run on bool (the iterator casts their inputs: nonzero is true).
 * Shifts never reach C's undefined cases: a shift by a negative amount or by
 * >= the width gives 0, or -1 for a negative value shifted right, as in NumPy;
 * left shifts run in the unsigned type.  where() only moves bytes, so its
 * loops go by element size and serve every dtype, half types included.    */
#include "ndcore/dispatch/tl_kernels.h"

/* The 16-byte element of where()'s widest loop (complex128). */
typedef struct {
  uint64_t lo, hi;
} where16_t;

/* float32/float64 maximum and minimum give PyTorch's bits: its CPU kernel,
 * on the AVX2 machines its answers were recorded on, runs a contiguous run
 * (output contiguous, each input contiguous or a broadcast scalar, not both
 * scalars) in blocks of two vectors, 64 bytes, whose max_ps/min_ps give the
 * second operand of a tie (0.0 against -0.0) and a NaN of all one bits, and
 * the rest of the run, or a whole run of other strides, with std::max/min:
 * the first operand of a tie and the default quiet NaN.  So which zero comes
 * out depends on the element's place, and this says how many of a run's
 * leading elements take the vector rule. */
static inline int64_t extrema_vector_count(int64_t n, const int64_t *steps, int64_t size)
{
  bool vector = steps[0] == size && (steps[1] == size || steps[1] == 0) &&
                (steps[2] == size || steps[2] == 0) && (steps[1] || steps[2]);
  int64_t block = 64 / size;
  return vector ? n - n % block : 0;
}

/* The NaN of the vector rule: the unordered-compare mask, all bits set. */
static inline float nan_ones_f32(void)
{
  uint32_t bits = UINT32_MAX;
  float f;
  memcpy(&f, &bits, sizeof f);
  return f;
}
static inline double nan_ones_f64(void)
{
  uint64_t bits = UINT64_MAX;
  double d;
  memcpy(&d, &bits, sizeof d);
  return d;
}

/* The typed helpers and loops, and the table compare_loops[] (scripts/gen_kernels.py). */
#include "ndcore/kernels/generated/compare.inc"

/* bfloat16 fmax/fmin have loops of their own: PyTorch's CPU kernel gives the
 * second operand where the two compare equal (fmax(0.0, -0.0) is -0.0 in
 * bfloat16, 0.0 in its other float dtypes, as in the float32 loop).  NaN is
 * ignored as in every fmax: the other operand, or NaN when both are.  The
 * result is one of the operands' bits, so nothing is rounded. */
static inline uint16_t fmax_bf16(uint16_t a, uint16_t b)
{
  float x = tl_bf16_to_f32(a), y = tl_bf16_to_f32(b);
  return x > y || y != y ? a : b;
}
static inline uint16_t fmin_bf16(uint16_t a, uint16_t b)
{
  float x = tl_bf16_to_f32(a), y = tl_bf16_to_f32(b);
  return x < y || y != y ? a : b;
}
TL_BINARY_LOOP(fmax_bf16_loop, uint16_t, uint16_t, fmax_bf16)
TL_BINARY_LOOP(fmin_bf16_loop, uint16_t, uint16_t, fmin_bf16)

void tl_cpu_compare_register(void)
{
  tl_k_register_all(compare_loops, sizeof compare_loops / sizeof *compare_loops);
  tl_k_register(TL_OP_FMAX, TL_DTYPE_BF16, fmax_bf16_loop);
  tl_k_register(TL_OP_FMIN, TL_DTYPE_BF16, fmin_bf16_loop);
  for (int d = 0; d < TL_DTYPE_COUNT; d++) {
    static const tl_loop_fn by_size[17] = {[1] = where_1_loop, [2] = where_2_loop,
                                           [4] = where_4_loop, [8] = where_8_loop,
                                           [16] = where_16_loop};
    tl_k_register(TL_OP_WHERE, (tl_dtype)d, by_size[tl_dtype_size((tl_dtype)d)]);
  }
}
