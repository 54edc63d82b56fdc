/* reduce_zero_sign.c - the sign of a whole-tensor max/min that came out zero,
 * as PyTorch's CPU kernels pick it among tied -0.0 and +0.0.
 *
 * Which zero PyTorch returns is decided by the shape of its reduction trees,
 * not by the data's order, and differs between its two kernels:
 *
 *   max()/min()/aminmax() (reduce_all): a vector accumulator of W lanes (8
 *   float lanes; 4 double lanes; 16 for float16/bfloat16, held as two float
 *   vectors) takes each W-element block, the remainder lanes last; the lanes
 *   then fold (floats: halves, quarters, pairs; doubles and a half-type input
 *   shorter than 16: lane 0 with each lane in turn); below W elements lane 0
 *   folds them in order.
 *   amax()/amin() (binary_kernel_reduce_vec): four vector accumulators take
 *   4W-element blocks (W = 8 float, 4 double, 16 half types), are folded
 *   pairwise, then lane 0 with each lane, then the tail element by element.
 *   Down the columns of a (R, C) block (a reduction over a leading run of
 *   dims) the first C - C % 4W columns run as vectors down the rows, the
 *   rest one element at a time.
 *
 * Their vector max/min return the second operand on a tie, their scalar
 * ones the first.  Over 32768 elements and with several threads, the input
 * is cut into min(threads, ceil(n / 32768)) equal chunks (the last shorter)
 * whose results fold in order with the scalar rule; torchlike's thread
 * count stands for PyTorch's.
 *
 * Called only when the value is zero (no NaN; for max no positive element,
 * for min no negative one), on a contiguous input in logical order; the
 * ordinary loops compute everything else.  Then a lane that folds under
 * "the later wins a tie" ends with its last zero, or with a value any zero
 * beats when it has none, so each lane's end is found by scanning back from
 * the end of the input to its last zero (a few elements when the input is
 * mostly zeros), and the trees are played on those ends. */
#include <stdbool.h>
#include <stdint.h>
#include <string.h>

#include "ndcore/kernels/tl_reduce.h"
#include "ndcore/tensor/tl_half.h"

#define PT_GRAIN 32768
#define PT_MAX_PERIOD 64 /* 4 vectors of 16 half-type lanes */

/* The input: contiguous data of a float dtype, element i read as a double. */
typedef struct {
  const void *data;
  tl_dtype dtype;
} zs_input;

static inline double load(zs_input in, int64_t i)
{
  switch (in.dtype) {
  case TL_DTYPE_F64: return ((const double *)in.data)[i];
  case TL_DTYPE_F32: return ((const float *)in.data)[i];
  case TL_DTYPE_BF16: return tl_bf16_to_f32(((const uint16_t *)in.data)[i]);
  default: return tl_f16_to_f32(((const uint16_t *)in.data)[i]);
  }
}

/* the vector op: b unless a is strictly better */
static inline double vec_op(double a, double b, bool hi) { return (hi ? a > b : a < b) ? a : b; }
/* the scalar op: a unless b is strictly better */
static inline double scalar_op(double a, double b, bool hi) { return (hi ? b > a : b < a) ? b : a; }

/* The end of each lane c < period of a vector fold over elements
 * [off, off + m) (lane c: the elements at off + c, off + c + period, ...):
 * its last zero, else `lose`. */
static void lane_ends(zs_input in, int64_t off, int64_t m, int period, double lose, double *lane)
{
  bool found[PT_MAX_PERIOD] = {false};
  int left = m < period ? (int)m : period;
  for (int c = 0; c < period; c++)
    lane[c] = lose;
  for (int64_t i = m - 1; i >= 0 && left > 0; i--) {
    int c = (int)(i % period);
    if (found[c])
      continue;
    double v = load(in, off + i);
    if (v == 0.0) {
      lane[c] = v;
      found[c] = true;
      left--;
    }
  }
}

static double fold_lanes(const double *v, int n, bool hi)
{
  double acc = v[0];
  for (int i = 1; i < n; i++)
    acc = vec_op(acc, v[i], hi);
  return acc;
}

/* halves, quarters, then pairs of 8 float lanes: lane 0 of the result */
static double tree8(const double *a, bool hi)
{
  double h[4], q[2];
  for (int k = 0; k < 4; k++)
    h[k] = vec_op(a[k], a[k + 4], hi);
  for (int k = 0; k < 2; k++)
    q[k] = vec_op(h[k], h[k + 2], hi);
  return vec_op(q[0], q[1], hi);
}

/* reduce_all over [off, off + n); w lanes (half types: 16 as two vectors of 8) */
static double all_chunk(zs_input in, int64_t off, int64_t n, int w, bool hi, double lose)
{
  double a[16];
  bool half = w == 16;
  if (n < (half ? 9 : w)) { /* lane 0 folds the elements in order */
    for (int64_t i = 0; i < n; i++)
      a[i] = load(in, off + i);
    return fold_lanes(a, (int)n, hi);
  }
  if (half && n < 16) { /* the second vector's lanes folded into the first's, in turn */
    lane_ends(in, off, n, 8, lose, a);
    return fold_lanes(a, 8, hi);
  }
  lane_ends(in, off, n, w, lose, a);
  if (half)
    for (int j = 0; j < 8; j++)
      a[j] = vec_op(a[j], a[j + 8], hi);
  return w == 4 ? fold_lanes(a, 4, hi) : tree8(a, hi);
}

/* binary_kernel_reduce_vec over [off, off + n), into dst */
static double vec_chunk(zs_input in, int64_t off, int64_t n, int w, bool hi, double lose,
                        double dst)
{
  int64_t count = n / (4 * w);
  if (count > 0) {
    double acc[PT_MAX_PERIOD];
    lane_ends(in, off, count * 4 * w, 4 * w, lose, acc);
    double b0 = 0.0;
    for (int j = 0; j < w; j++) {
      double r = vec_op(vec_op(acc[j], acc[w + j], hi), vec_op(acc[2 * w + j], acc[3 * w + j], hi),
                        hi);
      b0 = j == 0 ? r : scalar_op(b0, r, hi);
    }
    dst = scalar_op(dst, b0, hi);
  }
  for (int64_t i = count * 4 * w; i < n; i++)
    dst = scalar_op(dst, load(in, off + i), hi);
  return dst;
}

double tl_reduce_zero_sign(const void *x, tl_dtype dtype, int64_t n, bool hi, bool amax_kernel,
                           int threads)
{
  zs_input in = {x, dtype};
  bool half = dtype == TL_DTYPE_F16 || dtype == TL_DTYPE_BF16;
  int w = dtype == TL_DTYPE_F64 ? 4 : half ? 16 : 8;
  double ident = hi ? -1.0 / 0.0 : 1.0 / 0.0;
  double lose = hi ? -1.0 : 1.0; /* stands for a lane with no zero: every zero beats it */
  int64_t chunks = 1;
  if (threads > 1 && (amax_kernel ? n >= PT_GRAIN : n > PT_GRAIN)) {
    chunks = (n + PT_GRAIN - 1) / PT_GRAIN;
    if (chunks > threads)
      chunks = threads;
  }
  int64_t size = (n + chunks - 1) / chunks;
  double acc = ident;
  for (int64_t b = 0; b < n; b += size) {
    int64_t m = n - b < size ? n - b : size;
    double part = amax_kernel ? vec_chunk(in, b, m, w, hi, lose, ident)
                              : all_chunk(in, b, m, w, hi, lose);
    acc = scalar_op(acc, part, hi);
  }
  return acc;
}

double tl_reduce_zero_sign_column(const void *x, tl_dtype dtype, int64_t rows, int64_t stride,
                                  int64_t col, int64_t cols)
{
  zs_input in = {x, dtype};
  int w = dtype == TL_DTYPE_F64 ? 4 : dtype == TL_DTYPE_F32 ? 8 : 16;
  bool vector = col < cols - cols % (4 * w);
  /* a vector column ends with its last zero (the later row wins a tie),
   * a scalar one with its first */
  for (int64_t k = 0; k < rows; k++) {
    int64_t r = vector ? rows - 1 - k : k;
    double v = load(in, r * stride);
    if (v == 0.0)
      return v;
  }
  return 0.0; /* not reached: the column's value is zero */
}
