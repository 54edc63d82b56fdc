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

/* ---- amax()/amin() of any strided input ------------------------------------
 * PyTorch's reduction iterator first lays the dims out: the output's
 * reduced dims (stride 0) first, then by ascending stride, output before
 * input, an equal stride putting the smaller dim first (an insertion sort
 * from the reversed dims that stops at the first strict "before"); then it
 * merges neighbours that run on (size 1, or stride * size == the next
 * stride for both operands).  Each 2-d tile of that layout (dim 0 the
 * inner run, dim 1 the outer) takes one of three loops:
 *   contiguous reduction (output stride 0, input stride 1 in dim 0): each
 *     row as vec_chunk above, into its output;
 *   outer reduction (output stride 0 in dim 0, both strides 1 in dim 1):
 *     blocks of 4W columns as vectors down the rows (the later row wins a
 *     tie), each then folded with the output under the vector rule (the
 *     output wins), the remaining columns one element at a time;
 *   anything else: element by element under the scalar rule.
 * Here every output is played in full, from the identity; the caller keeps
 * the ones that came out zero.  dims[] are in elements. */
typedef struct {
  int ndim;
  int64_t shape[TL_MAX_DIMS];
  int64_t in[TL_MAX_DIMS];  /* input strides */
  int64_t out[TL_MAX_DIMS]; /* output strides, 0 on the reduced dims */
} pt_iter;

/* 1: d0 goes after d1, -1: before, 0: no opinion */
static int pt_should_swap(const pt_iter *it, int d0, int d1)
{
  for (int arg = 0; arg < 2; arg++) {
    const int64_t *s = arg == 0 ? it->out : it->in;
    int64_t s0 = s[d0], s1 = s[d1];
    if (arg == 0 && (s0 == 0) != (s1 == 0))
      return s1 == 0 ? 1 : -1;
    if (s0 == 0 || s1 == 0)
      continue;
    if (s0 != s1)
      return s0 < s1 ? -1 : 1;
    if (it->shape[d0] > it->shape[d1])
      return 1;
  }
  return 0;
}

static void pt_layout(pt_iter *it)
{
  int n = it->ndim, perm[TL_MAX_DIMS];
  for (int i = 0; i < n; i++)
    perm[i] = n - 1 - i;
  for (int i = 1; i < n; i++) {
    int d1 = i;
    for (int d0 = i - 1; d0 >= 0; d0--) {
      int c = pt_should_swap(it, perm[d0], perm[d1]);
      if (c > 0) {
        int t = perm[d0];
        perm[d0] = perm[d1];
        perm[d1] = t;
        d1 = d0;
      } else if (c < 0) {
        break;
      }
    }
  }
  pt_iter p = *it;
  for (int i = 0; i < n; i++) {
    p.shape[i] = it->shape[perm[i]];
    p.in[i] = it->in[perm[i]];
    p.out[i] = it->out[perm[i]];
  }
  /* merge the dims that run on */
  int prev = 0;
  for (int d = 1; d < n; d++) {
    bool merge = p.shape[prev] == 1 || p.shape[d] == 1 ||
                 (p.shape[prev] * p.in[prev] == p.in[d] && p.shape[prev] * p.out[prev] == p.out[d]);
    if (merge) {
      if (p.shape[prev] == 1) {
        p.in[prev] = p.in[d];
        p.out[prev] = p.out[d];
      }
      p.shape[prev] *= p.shape[d];
    } else {
      prev++;
      p.shape[prev] = p.shape[d];
      p.in[prev] = p.in[d];
      p.out[prev] = p.out[d];
    }
  }
  p.ndim = n > 0 ? prev + 1 : 0;
  *it = p;
}

typedef struct {
  zs_input in;
  int w;
  bool hi;
  double *out;
} pt_run;

/* one 2-d tile: element offsets o (output) and x (input) of its first element */
static void pt_tile(const pt_run *r, const pt_iter *it, int64_t o, int64_t x, int64_t size0,
                    int64_t size1)
{
  int64_t os0 = it->out[0], is0 = it->in[0];
  int64_t os1 = it->ndim > 1 ? it->out[1] : 0, is1 = it->ndim > 1 ? it->in[1] : 0;
  bool hi = r->hi;
  int64_t block = 4 * r->w;
  if (os0 == 0 && is0 == 1) {
    for (int64_t j = 0; j < size1; j++) {
      double *dst = &r->out[o + j * os1];
      int64_t count = size0 / block;
      if (count > 0) {
        double acc[PT_MAX_PERIOD];
        for (int64_t k = 0; k < block; k++)
          acc[k] = load(r->in, x + j * is1 + k);
        for (int64_t i = 1; i < count; i++)
          for (int64_t k = 0; k < block; k++)
            acc[k] = vec_op(acc[k], load(r->in, x + j * is1 + i * block + k), hi);
        double b0 = 0.0;
        for (int k = 0; k < r->w; k++) {
          double v = vec_op(vec_op(acc[k], acc[r->w + k], hi),
                            vec_op(acc[2 * r->w + k], acc[3 * r->w + k], hi), hi);
          b0 = k == 0 ? v : scalar_op(b0, v, hi);
        }
        *dst = scalar_op(*dst, b0, hi);
      }
      for (int64_t i = count * block; i < size0; i++)
        *dst = scalar_op(*dst, load(r->in, x + j * is1 + i), hi);
    }
  } else if (os0 == 0 && os1 == 1 && is1 == 1) {
    int64_t vec_cols = size1 - size1 % block;
    for (int64_t c = 0; c < size1; c++) {
      double *dst = &r->out[o + c];
      if (c < vec_cols) {
        double acc = load(r->in, x + c);
        for (int64_t i = 1; i < size0; i++)
          acc = vec_op(acc, load(r->in, x + i * is0 + c), hi);
        *dst = vec_op(acc, *dst, hi);
      } else {
        for (int64_t i = 0; i < size0; i++)
          *dst = scalar_op(*dst, load(r->in, x + i * is0 + c), hi);
      }
    }
  } else {
    for (int64_t j = 0; j < size1; j++)
      for (int64_t i = 0; i < size0; i++) {
        double *dst = &r->out[o + i * os0 + j * os1];
        *dst = scalar_op(*dst, load(r->in, x + i * is0 + j * is1), hi);
      }
  }
}

/* the tiles over the flat range [begin, end) of the layout, in order:
 * a partial first row, then whole rows up to the end of dim 1, ... */
static void pt_range(const pt_run *r, const pt_iter *it, int64_t begin, int64_t end)
{
  if (it->ndim <= 1) {
    pt_tile(r, it, begin * (it->ndim ? it->out[0] : 0), begin * (it->ndim ? it->in[0] : 0),
            end - begin, 1);
    return;
  }
  int64_t off = begin;
  while (off < end) {
    int64_t o = 0, x = 0, rest = off, v0 = 0, v1 = 0;
    for (int d = 0; d < it->ndim; d++) {
      int64_t v = rest % it->shape[d];
      rest /= it->shape[d];
      o += v * it->out[d];
      x += v * it->in[d];
      if (d == 0)
        v0 = v;
      if (d == 1)
        v1 = v;
    }
    int64_t step0 = it->shape[0] - v0 < end - off ? it->shape[0] - v0 : end - off, step1 = 1;
    if (v0 == 0 && step0 == it->shape[0]) {
      step1 = (end - off) / it->shape[0];
      if (step1 > it->shape[1] - v1)
        step1 = it->shape[1] - v1;
    }
    pt_tile(r, it, o, x, step0, step1);
    off += step0 * step1;
  }
}

void tl_reduce_zero_sign_strided(const void *x, tl_dtype dtype, int ndim, const int64_t *shape,
                                 const int64_t *strides, uint64_t mask, bool keepdim, bool hi,
                                 int threads, double *out)
{
  pt_iter it = {.ndim = ndim};
  int64_t n = 1, outs = 1, kept = 1;
  for (int d = ndim - 1; d >= 0; d--) {
    bool reduced = mask >> d & 1;
    it.shape[d] = shape[d];
    it.in[d] = strides[d];
    /* the output: contiguous over its kept dims; a reduced dim has stride
     * 0 unless keepdim holds it as a dim of size 1 that the input has too */
    it.out[d] = reduced && !(keepdim && shape[d] == 1) ? 0 : kept;
    if (!reduced)
      kept *= shape[d];
    n *= shape[d];
  }
  outs = kept;
  pt_layout(&it);
  pt_run r = {{x, dtype}, dtype == TL_DTYPE_F64 ? 4 : dtype == TL_DTYPE_F32 ? 8 : 16, hi, out};
  double ident = hi ? -1.0 / 0.0 : 1.0 / 0.0;
  for (int64_t o = 0; o < outs; o++)
    out[o] = ident;
  if (outs > 1 || threads <= 1 || n < PT_GRAIN) {
    pt_range(&r, &it, 0, n);
    return;
  }
  /* two passes: each thread's chunk of the flat range into its own
   * output, then those folded in order */
  int64_t chunks = (n + PT_GRAIN - 1) / PT_GRAIN;
  if (chunks > threads)
    chunks = threads;
  int64_t size = (n + chunks - 1) / chunks;
  double acc = ident;
  for (int64_t b = 0; b < n; b += size) {
    double part = ident;
    r.out = &part;
    pt_range(&r, &it, b, n - b < size ? n : b + size);
    acc = scalar_op(acc, part, hi);
  }
  out[0] = acc;
}
