/* cast.c - dtype conversion loops, one per (from, to) pair, and scalar I/O.
 *
 * A cast is tl_store_<to>(tl_load_<from>(x)) element by element: C's own
 * conversion between the compute types does the rest (see tl_dtype.h).     */
#include <math.h>
#include <stdint.h>

#include "ndcore/tensor/tl_dtype.h"
#include "ndcore/tensor/tl_error.h"
#include "ndcore/dispatch/tl_iter.h"

/* NAME: the loop from one dtype to another: STORE((CT)LOAD(x)), CT the
 * destination's compute type; the storage sizes are constants so that the
 * contiguous path has constant strides. */
#define TL_CAST_LOOP(NAME, LOAD, FROM_SIZE, STORE, TO_SIZE, CT)                      \
  static void NAME(char **args, int64_t n, const int64_t *steps, void *data)        \
  {                                                                                 \
    (void)data;                                                                     \
    char *dst = args[0];                                                            \
    const char *src = args[1];                                                      \
    if (steps[0] == TO_SIZE && steps[1] == FROM_SIZE) {                             \
      for (int64_t i = 0; i < n; i++)                                               \
        STORE(dst + i * TO_SIZE, (CT)LOAD(src + i * FROM_SIZE));                    \
      return;                                                                       \
    }                                                                               \
    for (int64_t i = 0; i < n; i++)                                                 \
      STORE(dst + i * steps[0], (CT)LOAD(src + i * steps[1]));                      \
  }

/* NAME: a cast that goes through float32 (a float8 dtype's casts from and to
 * the dtypes but float32 and itself): FIRST into a float buffer, SECOND out
 * of it, a block at a time. */
static void cast_staged(tl_loop_fn first, tl_loop_fn second, char **args, int64_t n,
                        const int64_t *steps)
{
  enum { BLOCK = 256 };
  float buf[BLOCK];
  for (int64_t i = 0; i < n; i += BLOCK) {
    const int64_t k = n - i < BLOCK ? n - i : BLOCK;
    first((char *[]){(char *)buf, args[1] + i * steps[1]}, k, (int64_t[]){4, steps[1]}, NULL);
    second((char *[]){args[0] + i * steps[0], (char *)buf}, k, (int64_t[]){steps[0], 4}, NULL);
  }
}
#define TL_CAST_STAGED(NAME, FIRST, SECOND)                                     \
  static void NAME(char **args, int64_t n, const int64_t *steps, void *data)   \
  {                                                                             \
    (void)data;                                                                 \
    cast_staged(FIRST, SECOND, args, n, steps);                                 \
  }

/* A cast to the same dtype is a move: one memcpy for a contiguous run, one
 * value stored along it for a broadcast source (expand, repeat_interleave),
 * a walk down the source for a reversed one (flip), else fixed-width element
 * moves.  These replace the table's diagonal. */
#define TL_MOVE_DEFINE(NAME, W)                                                    \
  static void NAME(char **args, int64_t n, const int64_t *steps, void *data)      \
  {                                                                                \
    (void)data;                                                                    \
    char *dst = args[0];                                                           \
    const char *src = args[1];                                                     \
    if (steps[0] == W && steps[1] == W) {                                          \
      memcpy(dst, src, (size_t)(n * W));                                           \
      return;                                                                      \
    }                                                                              \
    if (steps[0] == W && steps[1] == 0) {                                          \
      char v[W];                                                                   \
      memcpy(v, src, W);                                                           \
      for (int64_t i = 0; i < n; i++)                                              \
        memcpy(dst + i * W, v, W);                                                 \
      return;                                                                      \
    }                                                                              \
    if (steps[0] == W && steps[1] == -W) {                                         \
      const char *last = src - (n - 1) * W;                                        \
      for (int64_t i = 0; i < n; i++)                                              \
        memcpy(dst + i * W, last + (n - 1 - i) * W, W);                            \
      return;                                                                      \
    }                                                                              \
    for (int64_t i = 0; i < n; i++)                                                \
      memcpy(dst + i * steps[0], src + i * steps[1], W);                           \
  }
TL_MOVE_DEFINE(move_1, 1)
TL_MOVE_DEFINE(move_2, 2)
TL_MOVE_DEFINE(move_4, 4)
TL_MOVE_DEFINE(move_8, 8)
TL_MOVE_DEFINE(move_16, 16)

/* The loops of every pair, and cast_table (scripts/gen_kernels.py). */
#include "ndcore/kernels/generated/cast.inc"

tl_loop_fn tl_cast_loop(tl_dtype from, tl_dtype to)
{
  if (from != to)
    return cast_table[from][to];
  switch (tl_dtype_size(from)) {
  case 1: return move_1;
  case 2: return move_2;
  case 4: return move_4;
  case 8: return move_8;
  default: return move_16;
  }
}

/* ---- scalars ----------------------------------------------------------------- */

void tl_scalar_store(tl_scalar s, tl_dtype d, char *dst)
{
  /* Go through the widest value of the scalar's kind, then the cast loop. */
  char buf[16];
  tl_dtype from;
  switch (s.kind) {
  case TL_KIND_BOOL: from = TL_DTYPE_BOOL; memcpy(buf, &s.v.b, sizeof s.v.b); break;
  case TL_KIND_FLOAT: from = TL_DTYPE_F64; memcpy(buf, &s.v.f, sizeof s.v.f); break;
  case TL_KIND_COMPLEX: from = TL_DTYPE_C128; memcpy(buf, &s.v.c, sizeof s.v.c); break;
  case TL_KIND_UINT: from = TL_DTYPE_U64; memcpy(buf, &s.v.u, sizeof s.v.u); break;
  default: from = TL_DTYPE_I64; memcpy(buf, &s.v.i, sizeof s.v.i); break;
  }
  char *args[2] = {dst, buf};
  int64_t steps[2] = {0, 0};
  cast_table[from][d](args, 1, steps, NULL);
}

tl_scalar tl_scalar_load(tl_dtype d, const char *src)
{
  tl_scalar s = {.kind = tl_dtype_kind(d)};
  tl_dtype to;
  char *dst;
  switch (s.kind) {
  case TL_KIND_BOOL: to = TL_DTYPE_BOOL; dst = (char *)&s.v.b; break;
  case TL_KIND_FLOAT: to = TL_DTYPE_F64; dst = (char *)&s.v.f; break;
  case TL_KIND_COMPLEX: to = TL_DTYPE_C128; dst = (char *)&s.v.c; break;
  default: s.kind = TL_KIND_INT; to = TL_DTYPE_I64; dst = (char *)&s.v.i; break;
  }
  char *args[2] = {dst, (char *)src};
  int64_t steps[2] = {0, 0};
  cast_table[d][to](args, 1, steps, NULL);
  if (d == TL_DTYPE_U64 && s.v.i < 0) /* above int64's range: C's wrap kept the bits */
    s.kind = TL_KIND_UINT;
  return s;
}

bool tl_scalar_fits(tl_scalar s, tl_dtype d)
{
  if (s.kind == TL_KIND_UINT) /* above int64's range */
    return !tl_dtype_is_integral(d) || d == TL_DTYPE_U64;
  int64_t lo, hi;
  if (s.kind != TL_KIND_INT || !tl_dtype_int_range(d, &lo, &hi))
    return true;
  return s.v.i >= lo && s.v.i <= hi;
}

/* c10::overflows, for a scalar of any kind written into d: an int into an
 * unsigned type may wrap from -max (uint8 takes -255..255, as two's
 * complement arithmetic would); a float must lie in the type's range (NaN and
 * inf never fit an integer type; they fit every float type); a complex needs
 * a zero imaginary part for a real type; bool takes anything. */
bool tl_scalar_store_fits(tl_scalar s, tl_dtype d)
{
  static const double float_max[TL_DTYPE_COUNT] = {
      [TL_DTYPE_F16] = 65504.0, [TL_DTYPE_BF16] = 3.3895313892515355e38,
      [TL_DTYPE_F32] = 3.4028234663852886e38, [TL_DTYPE_C64] = 3.4028234663852886e38};
  double re = s.kind == TL_KIND_COMPLEX ? creal(s.v.c) : s.v.f;
  double im = s.kind == TL_KIND_COMPLEX ? cimag(s.v.c) : 0.0;
  bool ok = true;
  if (d == TL_DTYPE_BOOL || s.kind == TL_KIND_BOOL) {
    ok = true;
  } else if (s.kind == TL_KIND_UINT) {
    ok = tl_scalar_fits(s, d);
  } else if (tl_dtype_is_float8(d)) {
    /* c10::overflows with float8's limits: inf fits e5m2 alone, the one
     * with an inf; e8m0fnu's lowest value is 2^-127 (no sign, no zero) */
    static const double max8[] = {448.0, 57344.0, 240.0, 57344.0, 0x1p127};
    const double max = max8[d - TL_DTYPE_F8E4M3FN];
    const double lowest = d == TL_DTYPE_F8E8M0FNU ? 0x1p-127 : -max;
    if (s.kind == TL_KIND_INT)
      re = (double)s.v.i;
    ok = im == 0.0 && (isnan(re) || (isinf(re) ? d == TL_DTYPE_F8E5M2 : re >= lowest && re <= max));
  } else if (s.kind == TL_KIND_INT && tl_dtype_kind(d) == TL_KIND_UINT) {
    int64_t lo, hi; /* -max..max: two's complement wraps -x to max + 1 - x */
    tl_dtype_int_range(d, &lo, &hi);
    ok = d == TL_DTYPE_U64 || (s.v.i <= hi && s.v.i >= -hi);
  } else if (s.kind == TL_KIND_INT) {
    ok = tl_scalar_fits(s, d) && (d != TL_DTYPE_F16 || (s.v.i <= 65504 && s.v.i >= -65504));
  } else if (tl_dtype_is_integral(d)) {
    int64_t lo, hi;
    tl_dtype_int_range(d, &lo, &hi);
    double t = trunc(re); /* 255.5 fits uint8: the conversion truncates */
    /* the 64-bit maxima are no doubles: below 2^63 and 2^64, which are */
    bool ends = d == TL_DTYPE_I64 || d == TL_DTYPE_U64;
    double top = d == TL_DTYPE_U64 ? 0x1p64 : 0x1p63;
    ok = im == 0.0 && t >= (double)lo && (ends ? t < top : t <= (double)hi); /* false for NaN */
  } else {
    double max = float_max[d];
    bool fits_re = isnan(re) || isinf(re) || !max || fabs(re) <= max;
    bool fits_im = isnan(im) || isinf(im) || !max || fabs(im) <= max;
    ok = fits_re && fits_im && (tl_dtype_is_complex(d) || im == 0.0);
  }
  return ok;
}

tl_status tl_scalar_check_store(tl_scalar s, tl_dtype d)
{
  static const char *const cpp_names[TL_DTYPE_COUNT] = {
      "bool", "uint8_t", "int8_t", "int16_t", "int", "int64_t", "c10::Half", "c10::BFloat16",
      "float", "double", "c10::complex<float>", "c10::complex<double>", "uint16_t", "uint32_t",
      "uint64_t", "c10::Float8_e4m3fn", "c10::Float8_e5m2", "c10::Float8_e4m3fnuz",
      "c10::Float8_e5m2fnuz", "c10::Float8_e8m0fnu"};
  if (tl_scalar_store_fits(s, d))
    return TL_OK;
  return tl_error_set(TL_ERR_RUNTIME, "value cannot be converted to type %s without overflow",
                      cpp_names[d]);
}
