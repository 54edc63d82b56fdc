/* dtype.c - the dtype tables and type promotion.
 *
 * Promotion between tensors follows the Array API table within a kind (bool,
 * unsigned, signed, float, complex); across kinds the higher kind wins, as in
 * PyTorch (int32 tensor + float16 tensor -> float16).  Python scalars are weak
 * (NEP 50): they take the tensor's dtype unless they are of a higher kind, in
 * which case the default dtype of their kind is used (an int tensor with a
 * Python float gives the default float dtype).                               */
#include "ndcore/tensor/tl_dtype.h"

const char *const tl_dtype_names[TL_DTYPE_COUNT] = {
#define TL_X(E, name, size, ctype, kind) name,
    TL_DTYPE_LIST(TL_X)
#undef TL_X
};
const uint8_t tl_dtype_sizes[TL_DTYPE_COUNT] = {
#define TL_X(E, name, size, ctype, kind) size,
    TL_DTYPE_LIST(TL_X)
#undef TL_X
};
const uint8_t tl_dtype_kinds[TL_DTYPE_COUNT] = {
#define TL_X(E, name, size, ctype, kind) kind,
    TL_DTYPE_LIST(TL_X)
#undef TL_X
};

static tl_dtype default_float = TL_DTYPE_F32;
/* This thread's override of the process-wide default (TL_DTYPE_COUNT: none).
 * NumPy's own Python code run on tensors sets float64 while it runs: it was
 * written for NumPy's promotion (int array + 0.0, int / int are float64),
 * and other threads running PyTorch code must not see that. */
static _Thread_local tl_dtype local_default_float = TL_DTYPE_COUNT;

tl_dtype tl_dtype_default_float(void)
{
  return local_default_float != TL_DTYPE_COUNT ? local_default_float : default_float;
}

tl_dtype tl_dtype_local_default_float_swap(tl_dtype d)
{
  tl_dtype previous = local_default_float;
  local_default_float = d;
  return previous;
}

tl_status tl_dtype_set_default_float(tl_dtype d)
{
  if (!tl_dtype_is_float(d))
    return tl_error_set(TL_ERR_TYPE, "only floating-point types are supported as the default "
                                     "type, got %s", tl_dtype_names[d]);
  default_float = d;
  return TL_OK;
}

tl_dtype tl_dtype_to_complex(tl_dtype d)
{
  if (tl_dtype_is_complex(d))
    return d;
  return d == TL_DTYPE_F64 ? TL_DTYPE_C128 : TL_DTYPE_C64;
}

tl_dtype tl_dtype_to_real(tl_dtype d)
{
  if (d == TL_DTYPE_C64)
    return TL_DTYPE_F32;
  if (d == TL_DTYPE_C128)
    return TL_DTYPE_F64;
  return d;
}

/* Precision rank within the float kind; f16 and bf16 meet at f32. */
static int float_rank(tl_dtype d)
{
  switch (d) {
  case TL_DTYPE_F16:
  case TL_DTYPE_BF16:
    return 0;
  case TL_DTYPE_F32:
  case TL_DTYPE_C64:
    return 1;
  default:
    return 2;
  }
}

static tl_dtype promote_int(tl_dtype a, tl_dtype b)
{
  /* Both integer (bool handled by the caller).  Unsigned uint8 with a signed
   * type needs one more bit: uint8 + int8 -> int16. */
  if (a == TL_DTYPE_U8 && b == TL_DTYPE_U8)
    return TL_DTYPE_U8;
  if (a == TL_DTYPE_U8)
    return b == TL_DTYPE_I8 ? TL_DTYPE_I16 : b;
  if (b == TL_DTYPE_U8)
    return a == TL_DTYPE_I8 ? TL_DTYPE_I16 : a;
  return a > b ? a : b; /* signed ints are listed by width */
}

tl_dtype tl_promote_types(tl_dtype a, tl_dtype b)
{
  if (a == b)
    return a;
  tl_kind ka = tl_dtype_kind(a), kb = tl_dtype_kind(b);
  if (ka == TL_KIND_BOOL)
    return b;
  if (kb == TL_KIND_BOOL)
    return a;
  if (ka <= TL_KIND_INT && kb <= TL_KIND_INT)
    return promote_int(a, b);
  if (ka <= TL_KIND_INT)
    return b;
  if (kb <= TL_KIND_INT)
    return a;
  /* floats and complex */
  int r = float_rank(a) > float_rank(b) ? float_rank(a) : float_rank(b);
  if (ka == TL_KIND_COMPLEX || kb == TL_KIND_COMPLEX)
    return r == 2 ? TL_DTYPE_C128 : TL_DTYPE_C64;
  if (r == 0) /* one is f16, the other bf16 */
    return TL_DTYPE_F32;
  return r == 1 ? TL_DTYPE_F32 : TL_DTYPE_F64;
}

tl_dtype tl_promote_weak(tl_dtype tensor, tl_kind scalar)
{
  tl_kind kt = tl_dtype_kind(tensor);
  if (kt == TL_KIND_UINT)
    kt = TL_KIND_INT;
  if ((tl_kind)scalar <= kt)
    return tensor;
  switch (scalar) {
  case TL_KIND_INT:
  case TL_KIND_UINT:
    return TL_DTYPE_I64;
  case TL_KIND_FLOAT:
    return tl_dtype_default_float();
  case TL_KIND_COMPLEX:
    return tl_dtype_is_float(tensor) ? tl_dtype_to_complex(tensor)
                                     : tl_dtype_to_complex(tl_dtype_default_float());
  default:
    return tensor;
  }
}

bool tl_can_cast(tl_dtype from, tl_dtype to)
{
  /* "same kind" casting, as in-place ops and out= require in PyTorch. */
  tl_kind kf = tl_dtype_kind(from), kt = tl_dtype_kind(to);
  if (kf == TL_KIND_UINT)
    kf = TL_KIND_INT;
  if (kt == TL_KIND_UINT)
    kt = TL_KIND_INT;
  return kf <= kt;
}
