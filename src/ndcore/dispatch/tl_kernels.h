/* tl_kernels.h - what the elementwise kernel files (kernels_*.c) share.
 *
 * A kernel is a `static inline` scalar function per compute type, named
 * <op>_<dtype> (neg_i32, exp_c64); the loop macros of tl_loops.h wrap it into
 * the tl_loop_fn <op>_<dtype>_loop, which the file's table of tl_k_entry rows
 * names as the CPU kernel of (op, dtype).  Every name is spelled out where it
 * is defined: the ops with a body per dtype family are written out per dtype
 * by scripts/gen_kernels.py (the .inc files of kernels/generated/), the
 * others by hand.
 * Floating bodies use <tgmath.h>, so `exp(x)` is expf, exp, cexpf or cexp by
 * the argument's type.  Integer bodies compute in the unsigned type of the
 * same width where signed overflow would be undefined, and wrap like NumPy. */
#ifndef TL_KERNELS_H
#define TL_KERNELS_H

#include <stdbool.h>
#include <stdint.h>
#include <string.h>
#include <tgmath.h>

#include "ndcore/tensor/tl_dtype.h"
#include "ndcore/dispatch/tl_loops.h"
#include "ndcore/dispatch/tl_dispatch.h"
#include "ndcore/kernels/tl_vecmath.h"

/* The loop macros of tl_loops.h, compiled for AVX-512, AVX2 and the baseline
 * (tl_vecmath.h): for float loops whose body vectorises (rounding, min/max,
 * comparisons) or calls libmvec. */
#define TL_K_UNARY_SIMD_LOOP(NAME, TI, TO, F) TL_UNARY_LOOP_ATTR(TL_SIMD_CLONES, NAME, TI, TO, F)
#define TL_K_BINARY_SIMD_LOOP(NAME, TI, TO, F) TL_BINARY_LOOP_ATTR(TL_SIMD_CLONES, NAME, TI, TO, F)

/* The CPU loop of op for one compute dtype; each kernel file lists its loops
 * in a table of these and registers them in the kernel table (tl_dispatch.h). */
typedef struct {
  tl_op op;
  tl_dtype dtype;
  tl_loop_fn loop;
} tl_k_entry;

static inline void tl_k_register(tl_op op, tl_dtype dtype, tl_loop_fn loop)
{
  tl_dispatch_register_loop(op, TL_DEVICE_CPU, TL_DTYPES_ONE(dtype), loop);
}

static inline void tl_k_register_all(const tl_k_entry *entries, size_t n)
{
  for (size_t i = 0; i < n; i++)
    tl_k_register(entries[i].op, entries[i].dtype, entries[i].loop);
}

/* Kernel files' registration, called from tl_cpu_unary/binary_register. */
void tl_cpu_special_register(void);
void tl_cpu_compare_register(void);
void tl_cpu_bessel_register(void);
void tl_cpu_polynomial_register(void);

/* x < 0 for any integer type, without "always false" warnings on unsigned ones. */
static inline bool tl_k_negative(int64_t x) { return x < 0; }
/* The same for the unsigned types, whose widest values int64_t would read as
 * negative (scripts/gen_kernels.py writes this one for them). */
static inline bool tl_k_negative_u(uint64_t x) { (void)x; return false; }

/* Reading an op's scalar parameter as a compute type. */
static inline double tl_k_param_f64(const tl_scalar *s)
{
  switch (s->kind) {
  case TL_KIND_BOOL: return s->v.b;
  case TL_KIND_INT: return (double)s->v.i;
  case TL_KIND_UINT: return (double)s->v.u;
  case TL_KIND_FLOAT: return s->v.f;
  default: return creal(s->v.c);
  }
}
static inline int64_t tl_k_param_i64(const tl_scalar *s)
{
  switch (s->kind) {
  case TL_KIND_BOOL: return s->v.b;
  case TL_KIND_INT:
  case TL_KIND_UINT: return s->v.i;
  case TL_KIND_FLOAT: return (int64_t)s->v.f;
  default: return (int64_t)creal(s->v.c);
  }
}
static inline double complex tl_k_param_c128(const tl_scalar *s)
{
  return s->kind == TL_KIND_COMPLEX ? s->v.c : (double complex)tl_k_param_f64(s);
}

#endif
