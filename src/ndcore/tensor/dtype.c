/* dtype.c - the dtype tables and type promotion.
 *
 * Promotion between tensors follows the Array API table within a kind (bool,
 * unsigned, signed, float, complex); across kinds the higher kind wins, as in
 * PyTorch (int32 tensor + float16 tensor -> float16).  Python scalars are weak
 * (NEP 50): they take the tensor's dtype unless they are of a higher kind, in
 * which case the default dtype of their kind is used (an int tensor with a
 * Python float gives the default float dtype).  A float8 dtype promotes with
 * no other dtype (tl_promote_check raises PyTorch's RuntimeError; callers
 * that cannot fail get float32 from tl_promote_types).                       */
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

const char *tl_dtype_scalar_name(tl_dtype d)
{
  static const char *const names[TL_DTYPE_COUNT] = {
      [TL_DTYPE_BOOL] = "Bool",         [TL_DTYPE_U8] = "Byte",       [TL_DTYPE_I8] = "Char",
      [TL_DTYPE_I16] = "Short",         [TL_DTYPE_I32] = "Int",       [TL_DTYPE_I64] = "Long",
      [TL_DTYPE_F16] = "Half",          [TL_DTYPE_BF16] = "BFloat16", [TL_DTYPE_F32] = "Float",
      [TL_DTYPE_F64] = "Double",        [TL_DTYPE_C64] = "ComplexFloat",
      [TL_DTYPE_C128] = "ComplexDouble", [TL_DTYPE_U16] = "UInt16",  [TL_DTYPE_U32] = "UInt32",
      [TL_DTYPE_U64] = "UInt64",        [TL_DTYPE_F8E4M3FN] = "Float8_e4m3fn",
      [TL_DTYPE_F8E5M2] = "Float8_e5m2", [TL_DTYPE_F8E4M3FNUZ] = "Float8_e4m3fnuz",
      [TL_DTYPE_F8E5M2FNUZ] = "Float8_e5m2fnuz", [TL_DTYPE_F8E8M0FNU] = "Float8_e8m0fnu"};
  return (unsigned)d < TL_DTYPE_COUNT ? names[d] : "Undefined";
}

const char *tl_dtype_cpp_name(tl_dtype d)
{
  static const char *const names[TL_DTYPE_COUNT] = {
      [TL_DTYPE_BOOL] = "bool",          [TL_DTYPE_U8] = "unsigned char",
      [TL_DTYPE_I8] = "signed char",     [TL_DTYPE_I16] = "short int",
      [TL_DTYPE_I32] = "int",            [TL_DTYPE_I64] = "long int",
      [TL_DTYPE_F16] = "c10::Half",      [TL_DTYPE_BF16] = "c10::BFloat16",
      [TL_DTYPE_F32] = "float",          [TL_DTYPE_F64] = "double",
      [TL_DTYPE_C64] = "c10::complex<float>", [TL_DTYPE_C128] = "c10::complex<double>",
      [TL_DTYPE_U16] = "short unsigned int", [TL_DTYPE_U32] = "unsigned int",
      [TL_DTYPE_U64] = "long unsigned int", [TL_DTYPE_F8E4M3FN] = "c10::Float8_e4m3fn",
      [TL_DTYPE_F8E5M2] = "c10::Float8_e5m2", [TL_DTYPE_F8E4M3FNUZ] = "c10::Float8_e4m3fnuz",
      [TL_DTYPE_F8E5M2FNUZ] = "c10::Float8_e5m2fnuz", [TL_DTYPE_F8E8M0FNU] = "c10::Float8_e8m0fnu"};
  return (unsigned)d < TL_DTYPE_COUNT ? names[d] : "Undefined";
}

bool tl_dtype_int_range(tl_dtype d, int64_t *lo, int64_t *hi)
{
  if (!tl_dtype_is_integral(d) || d == TL_DTYPE_BOOL)
    return false;
  size_t bits = 8 * tl_dtype_size(d);
  bool is_unsigned = tl_dtype_kind(d) == TL_KIND_UINT;
  *lo = is_unsigned ? 0 : bits == 64 ? INT64_MIN : -((int64_t)1 << (bits - 1));
  *hi = bits == 64 ? INT64_MAX : ((int64_t)1 << (bits - !is_unsigned)) - 1;
  return true;
}

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
                                     "type");
  if (tl_dtype_is_float8(d)) /* PyTorch's words: it looks for a legacy storage class */
    return tl_error_set(TL_ERR_TYPE, "couldn't find storage object %sStorage",
                        tl_dtype_scalar_name(d));
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

/* The integer type of a signedness and width (bytes), or -1 past int64. */
static int int_of(bool is_unsigned, size_t width)
{
  switch (width) {
  case 1: return is_unsigned ? TL_DTYPE_U8 : TL_DTYPE_I8;
  case 2: return is_unsigned ? TL_DTYPE_U16 : TL_DTYPE_I16;
  case 4: return is_unsigned ? TL_DTYPE_U32 : TL_DTYPE_I32;
  case 8: return is_unsigned ? TL_DTYPE_U64 : TL_DTYPE_I64;
  default: return -1;
  }
}

static tl_dtype promote_int(tl_dtype a, tl_dtype b)
{
  /* Both integer (bool handled by the caller).  The same signedness takes
   * the wider; an unsigned type with a signed one needs one more bit than
   * the unsigned one has (uint8 + int8 -> int16, uint32 + int32 -> int64),
   * and uint64 with any signed type has no integer home: float64, as in
   * NumPy (PyTorch refuses to promote its wide unsigned types at all). */
  bool ua = tl_dtype_kind(a) == TL_KIND_UINT, ub = tl_dtype_kind(b) == TL_KIND_UINT;
  size_t wa = tl_dtype_size(a), wb = tl_dtype_size(b);
  if (ua == ub)
    return wa >= wb ? a : b;
  size_t wu = ua ? wa : wb, ws = ua ? wb : wa;
  int d = int_of(false, ws > wu ? ws : 2 * wu);
  return d < 0 ? TL_DTYPE_F64 : (tl_dtype)d;
}

tl_status tl_promote_check(tl_dtype a, tl_dtype b)
{
  if (a == b || (!tl_dtype_is_float8(a) && !tl_dtype_is_float8(b)))
    return TL_OK;
  return tl_error_set(TL_ERR_RUNTIME, "Promotion for Float8 Types is not supported, attempted to "
                                      "promote %s and %s", tl_dtype_scalar_name(a),
                      tl_dtype_scalar_name(b));
}

tl_dtype tl_promote_types(tl_dtype a, tl_dtype b)
{
  if (a == b)
    return a;
  if (tl_dtype_is_float8(a) || tl_dtype_is_float8(b)) /* callers that care ask tl_promote_check */
    return TL_DTYPE_F32;
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
