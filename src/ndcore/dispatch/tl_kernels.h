/* tl_kernels.h - what the elementwise kernel files (kernels_*.c) share.
 *
 * A kernel is a `static inline` scalar function per compute type, named
 * <op>_<E> with E the dtype's enum suffix (neg_I32, exp_C64).  Loop macros
 * wrap it into the tl_loop_fn <op>_<E>_loop, which the file's table of
 * tl_k_entry rows names as the CPU kernel of (op, E).  The type families below instantiate one generic body for
 * several dtypes; each entry is (E, T, U, R):
 *   E  dtype suffix          T  compute type
 *   U  unsigned type of T's width (integers; T otherwise)
 *   R  real type of T (complex -> its component; T otherwise)
 * Generic floating bodies use <tgmath.h>, so `exp(x)` is expf, exp, cexpf or
 * cexp by the argument's type.  Integer bodies compute in U where signed
 * overflow would be undefined, and wrap like NumPy.                        */
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

#define TL_K_BOOL(X, ...) X(BOOL, bool, bool, bool, __VA_ARGS__)
#define TL_K_INTS(X, ...)                                                               \
  X(U8, uint8_t, uint8_t, uint8_t, __VA_ARGS__) X(I8, int8_t, uint8_t, int8_t, __VA_ARGS__) \
  X(I16, int16_t, uint16_t, int16_t, __VA_ARGS__)                                       \
  X(I32, int32_t, uint32_t, int32_t, __VA_ARGS__)                                       \
  X(I64, int64_t, uint64_t, int64_t, __VA_ARGS__)
#define TL_K_SINTS(X, ...)                                                              \
  X(I8, int8_t, uint8_t, int8_t, __VA_ARGS__) X(I16, int16_t, uint16_t, int16_t, __VA_ARGS__) \
  X(I32, int32_t, uint32_t, int32_t, __VA_ARGS__)                                       \
  X(I64, int64_t, uint64_t, int64_t, __VA_ARGS__)
#define TL_K_FLOATS(X, ...) X(F32, float, float, float, __VA_ARGS__) X(F64, double, double, double, __VA_ARGS__)
#define TL_K_COMPLEX(X, ...)                                                            \
  X(C64, float complex, float complex, float, __VA_ARGS__)                              \
  X(C128, double complex, double complex, double, __VA_ARGS__)

/* The loop macros of tl_loops.h, compiled for AVX-512, AVX2 and the baseline
 * (tl_vecmath.h): for float loops whose body vectorises (rounding, min/max,
 * comparisons) or calls libmvec. */
#define TL_K_UNARY_SIMD_LOOP(NAME, TI, TO, F) TL_UNARY_LOOP_ATTR(TL_SIMD_CLONES, NAME, TI, TO, F)
#define TL_K_BINARY_SIMD_LOOP(NAME, TI, TO, F) TL_BINARY_LOOP_ATTR(TL_SIMD_CLONES, NAME, TI, TO, F)

/* out = name_E(a): loop name_E_loop, same type in and out */
#define TL_KU(E, T, U, R, name) TL_UNARY_LOOP(name##_##E##_loop, T, T, name##_##E)
/* out (bool) = name_E(a) */
#define TL_KU_PRED(E, T, U, R, name) TL_UNARY_LOOP(name##_##E##_loop, T, bool, name##_##E)
/* out (real type) = name_E(a) */
#define TL_KU_REAL(E, T, U, R, name) TL_UNARY_LOOP(name##_##E##_loop, T, R, name##_##E)
/* the same, compiled for several instruction sets */
#define TL_KU_SIMD(E, T, U, R, name) TL_K_UNARY_SIMD_LOOP(name##_##E##_loop, T, T, name##_##E)
#define TL_KB_SIMD(E, T, U, R, name) TL_K_BINARY_SIMD_LOOP(name##_##E##_loop, T, T, name##_##E)
#define TL_KB_PRED_SIMD(E, T, U, R, name) TL_K_BINARY_SIMD_LOOP(name##_##E##_loop, T, bool, name##_##E)
/* out = name_E(a, b) */
#define TL_KB(E, T, U, R, name) TL_BINARY_LOOP(name##_##E##_loop, T, T, name##_##E)
/* out (bool) = name_E(a, b) */
#define TL_KB_PRED(E, T, U, R, name) TL_BINARY_LOOP(name##_##E##_loop, T, bool, name##_##E)
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

/* x < 0 for any integer type, without "always false" warnings on unsigned ones. */
static inline bool tl_k_negative(int64_t x) { return x < 0; }

/* Reading an op's scalar parameter as a compute type. */
static inline double tl_k_param_f64(const tl_scalar *s)
{
  switch (s->kind) {
  case TL_KIND_BOOL: return s->v.b;
  case TL_KIND_INT:
  case TL_KIND_UINT: return (double)s->v.i;
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
