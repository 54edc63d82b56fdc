/* tl_dtype.h - promotion rules, per-dtype load/store, and dtype casting loops.
 *
 * Each dtype has a compute type (tl_ct_<E>): its own C type, except float16,
 * bfloat16 and the float8 formats, which compute in float.  tl_load_<E>/tl_store_<E> move one element
 * between memory and its compute type; conversions between compute types are C
 * assignments, whose rules (truncation to int, real part of a complex, nonzero
 * to bool) are the ones NumPy and PyTorch use.                               */
#ifndef TL_DTYPE_H
#define TL_DTYPE_H

#include <complex.h>
#include <string.h>

#include "ndcore/tensor/tl_float8.h"
#include "ndcore/tensor/tl_half.h"
#include "ndcore/tensor/tl_tensor.h"

tl_dtype tl_promote_types(tl_dtype a, tl_dtype b);
tl_dtype tl_promote_weak(tl_dtype tensor, tl_kind scalar);
bool tl_can_cast(tl_dtype from, tl_dtype to);
/* PyTorch promotes a float8 dtype with no other dtype: the RuntimeError it
 * raises, or TL_OK (tl_promote_types itself answers float32 for such a pair). */
tl_status tl_promote_check(tl_dtype a, tl_dtype b);

typedef bool tl_ct_BOOL;
typedef uint8_t tl_ct_U8;
typedef uint16_t tl_ct_U16;
typedef uint32_t tl_ct_U32;
typedef uint64_t tl_ct_U64;
typedef int8_t tl_ct_I8;
typedef int16_t tl_ct_I16;
typedef int32_t tl_ct_I32;
typedef int64_t tl_ct_I64;
typedef float tl_ct_F16;
typedef float tl_ct_BF16;
typedef float tl_ct_F32;
typedef double tl_ct_F64;
typedef float complex tl_ct_C64;
typedef double complex tl_ct_C128;
typedef float tl_ct_F8E4M3FN;
typedef float tl_ct_F8E5M2;
typedef float tl_ct_F8E4M3FNUZ;
typedef float tl_ct_F8E5M2FNUZ;
typedef float tl_ct_F8E8M0FNU;

/* LOAD and STORE for a dtype whose compute type T is its storage type. */
#define TL_PLAIN_LOADSTORE(LOAD, STORE, T)                                            \
  static inline T LOAD(const char *p) { T v; memcpy(&v, p, sizeof v); return v; }    \
  static inline void STORE(char *p, T v) { memcpy(p, &v, sizeof v); }
TL_PLAIN_LOADSTORE(tl_load_BOOL, tl_store_BOOL, bool)
TL_PLAIN_LOADSTORE(tl_load_U8, tl_store_U8, uint8_t)
TL_PLAIN_LOADSTORE(tl_load_U16, tl_store_U16, uint16_t)
TL_PLAIN_LOADSTORE(tl_load_U32, tl_store_U32, uint32_t)
TL_PLAIN_LOADSTORE(tl_load_U64, tl_store_U64, uint64_t)
TL_PLAIN_LOADSTORE(tl_load_I8, tl_store_I8, int8_t)
TL_PLAIN_LOADSTORE(tl_load_I16, tl_store_I16, int16_t)
TL_PLAIN_LOADSTORE(tl_load_I32, tl_store_I32, int32_t)
TL_PLAIN_LOADSTORE(tl_load_I64, tl_store_I64, int64_t)
TL_PLAIN_LOADSTORE(tl_load_F32, tl_store_F32, float)
TL_PLAIN_LOADSTORE(tl_load_F64, tl_store_F64, double)
TL_PLAIN_LOADSTORE(tl_load_C64, tl_store_C64, float complex)
TL_PLAIN_LOADSTORE(tl_load_C128, tl_store_C128, double complex)
#undef TL_PLAIN_LOADSTORE

static inline float tl_load_F16(const char *p) { uint16_t h; memcpy(&h, p, 2); return tl_f16_to_f32(h); }
static inline void tl_store_F16(char *p, float v) { uint16_t h = tl_f32_to_f16(v); memcpy(p, &h, 2); }
static inline float tl_load_BF16(const char *p) { uint16_t h; memcpy(&h, p, 2); return tl_bf16_to_f32(h); }
static inline void tl_store_BF16(char *p, float v) { uint16_t h = tl_f32_to_bf16(v); memcpy(p, &h, 2); }
/* float8: one byte through float (tl_float8.h) */
#define TL_F8_LOADSTORE(E, TO_F32, FROM_F32)                                          \
  static inline float tl_load_##E(const char *p) { return TO_F32((uint8_t)*p); }     \
  static inline void tl_store_##E(char *p, float v) { *p = (char)FROM_F32(v); }
TL_F8_LOADSTORE(F8E4M3FN, tl_f8e4m3fn_to_f32, tl_f32_to_f8e4m3fn)
TL_F8_LOADSTORE(F8E5M2, tl_f8e5m2_to_f32, tl_f32_to_f8e5m2)
TL_F8_LOADSTORE(F8E4M3FNUZ, tl_f8e4m3fnuz_to_f32, tl_f32_to_f8e4m3fnuz)
TL_F8_LOADSTORE(F8E5M2FNUZ, tl_f8e5m2fnuz_to_f32, tl_f32_to_f8e5m2fnuz)
TL_F8_LOADSTORE(F8E8M0FNU, tl_e8m0_to_f32, tl_f32_to_e8m0)
#undef TL_F8_LOADSTORE

/* A value of any dtype, wide enough for all: how scalars cross the API.
 * Integers are INT (int64).  UINT (uint64 in u) is only a Python int above
 * int64's range; a uint64 element loads as INT with its bits, which store
 * back unchanged (readers that show the value, item() and tolist(), look at
 * the dtype). */
typedef struct {
  tl_kind kind; /* BOOL, INT, UINT, FLOAT (double) or COMPLEX */
  union {
    bool b;
    int64_t i;
    uint64_t u;
    double f;
    double complex c;
  } v;
} tl_scalar;

/* Write a scalar into memory of dtype d (same conversion rules as casting). */
void tl_scalar_store(tl_scalar s, tl_dtype d, char *dst);
/* Read one element of dtype d as a scalar of d's kind (half types as float). */
tl_scalar tl_scalar_load(tl_dtype d, const char *src);
/* An integer dtype's smallest and largest values (uint64's largest within
 * int64: those above are the UINT scalars); false for the other dtypes. */
bool tl_dtype_int_range(tl_dtype d, int64_t *lo, int64_t *hi);
/* Does an integer scalar fit dtype d (an int dtype)? */
bool tl_scalar_fits(tl_scalar s, tl_dtype d);
/* May a user's scalar be written into dtype d (fill_, full, masked_fill ...)?
 * PyTorch's rule (c10::overflows) instead of a silent wrap; the check says so
 * in PyTorch's words ("value cannot be converted to type uint8_t without
 * overflow"). */
bool tl_scalar_store_fits(tl_scalar s, tl_dtype d);
tl_status tl_scalar_check_store(tl_scalar s, tl_dtype d);

#endif
