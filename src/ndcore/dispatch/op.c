/* op.c - the op registry's tables and the elementwise call path.
 *
 * Promotion, in order:
 *  1. The tensors' dtypes are promoted with tl_promote_types (dtype.c).
 *  2. Each weak Python scalar may lift that to its kind (tl_promote_weak);
 *     an integer scalar that does not fit the result raises OverflowError.
 *  3. The op's rule turns the promoted dtype into the result dtype and the
 *     compute dtype the loop runs in:
 *       SAME, ARITH      result = compute = promoted
 *       ARITH_NOBOOL     as ARITH, but bool is refused (sub, neg)
 *       FLOAT            integral -> default float (true division, exp ...)
 *       FLOAT_REAL       FLOAT, complex refused (erf, atan2 ...)
 *       FLOAT_ONLY       real floating dtypes only (frac, nextafter)
 *       DOUBLE           float64, or complex128 for complex (float_power)
 *       REAL             complex refused (floor_divide, minimum, floor ...)
 *       INT              bool and integers only (bitwise ops)
 *       ABS              complex -> its real dtype, computed in the complex one
 *       ABS_FLOAT        as ABS, integral -> default float (angle)
 *       COMPARE          result bool, computed in the promoted dtype
 *       COMPARE_ORDER    COMPARE, complex refused (lt, le, gt, ge)
 *       LOGICAL          result bool, inputs read as bool
 *       PREDICATE(_REAL) result bool, computed in the input dtype
 *       EXPONENT         FLOAT_ONLY, result int32 (frexp's exponent)
 *  4. float16/bfloat16 compute in float32 when the op has no loop of their
 *     own (on the call's device), and the float8 dtypes always (they have
 *     none): the iterator casts through buffers.  An out= of another dtype
 *     gets those values rounded to the half dtype first, as if computed in it.
 *     A float8 dtype meets no other tensor dtype (tl_promote_check), as in
 *     PyTorch.
 *
 * Off the host (a device whose memory host code cannot read), the device's
 * kernel runs the whole plan (tl_iter_kernel) in the compute dtype: inputs of
 * another dtype are cast on the device first (its copy kernel), and a result
 * of another dtype is computed into a scratch tensor and cast into out.    */
#include <string.h>

#include "ndcore/dispatch/tl_kernel_sets.h"
#include "ndcore/tensor/tl_backend.h"

const tl_op_info tl_op_infos[TL_OP_COUNT] = {
#define TL_OP(E, name, kind, rule) [TL_OP_##E] = {name, TL_OPKIND_##kind, TL_RULE_##rule},
#include "ndcore/dispatch/ops.def"
#undef TL_OP
};

void tl_elementwise_register(void)
{
  tl_cpu_unary_register();
  tl_cpu_binary_register();
}

static tl_status refuse(tl_op op, tl_dtype d)
{
  return tl_error_set(TL_ERR_DTYPE, "%s() does not support dtype %s", tl_op_infos[op].name,
                      tl_dtype_names[d]);
}

tl_status tl_op_result_dtype(tl_op op, int nin, const tl_arg *in, tl_dtype *result,
                             tl_dtype *compute)
{
  int first = -1;
  for (int i = 0; i < nin; i++) /* where()'s condition takes no part */
    if (!in[i].weak && !(tl_op_infos[op].kind == TL_OPKIND_WHERE && i == 0)) {
      first = i;
      break;
    }
  tl_dtype p = first >= 0 ? in[first].t->dtype : TL_DTYPE_BOOL;
  for (int i = first + 1; first >= 0 && i < nin; i++)
    if (!in[i].weak && !(tl_op_infos[op].kind == TL_OPKIND_WHERE && i == 0)) {
      if (tl_promote_check(p, in[i].t->dtype) != TL_OK)
        return tl_error_status();
      p = tl_promote_types(p, in[i].t->dtype);
    }
  for (int i = 0; i < nin; i++) {
    if (!in[i].weak || (tl_op_infos[op].kind == TL_OPKIND_WHERE && i == 0))
      continue;
    tl_dtype scalar_dtype = in[i].t->dtype;
    /* scalars only (where(c, 2j, 1)): a Python float or complex is the
     * default float or its complex, as PyTorch's wrapped numbers */
    if (scalar_dtype == TL_DTYPE_F64)
      scalar_dtype = tl_dtype_default_float();
    else if (scalar_dtype == TL_DTYPE_C128)
      scalar_dtype = tl_dtype_to_complex(tl_dtype_default_float());
    if (first >= 0 && tl_dtype_is_float8(p) && tl_dtype_is_complex(scalar_dtype))
      return tl_error_set(TL_ERR_RUNTIME, "Unknown Complex ScalarType for %s", /* PyTorch's */
                          tl_dtype_scalar_name(p));
    p = first >= 0 ? tl_promote_weak(p, tl_dtype_kind(scalar_dtype))
                   : tl_promote_types(p, scalar_dtype);
  }
  for (int i = 0; i < nin; i++) {
    tl_dtype sd = in[i].t->dtype; /* int64, or uint64 past int64's range */
    if (!in[i].weak || !tl_dtype_is_integral(p) || (sd != TL_DTYPE_I64 && sd != TL_DTYPE_U64))
      continue;
    tl_scalar s = tl_scalar_load(sd, tl_tensor_data(in[i].t));
    tl_dtype_rule rule = tl_op_infos[op].rule;
    /* An op that computes integers in a float or in bool (arctan2, true
     * division, copysign, logical_and ...) takes any int, as NumPy's float and
     * bool loops do: np.arctan2(uint8_array, -5), np.logical_and(-2, uint8). */
    if (rule == TL_RULE_FLOAT || rule == TL_RULE_FLOAT_REAL || rule == TL_RULE_MEAN ||
        rule == TL_RULE_ABS_FLOAT || rule == TL_RULE_DOUBLE || rule == TL_RULE_LOGICAL)
      continue;
    if (!tl_scalar_fits(s, p) && (rule == TL_RULE_COMPARE || rule == TL_RULE_COMPARE_ORDER)) {
      /* uint8 < 300 is simply true, as in NumPy and PyTorch: compare in a
       * type holding both (float64 for uint64 with a negative number, or
       * any integer with one past int64, where only the sign matters) */
      p = p == TL_DTYPE_U64 || sd == TL_DTYPE_U64 ? TL_DTYPE_F64 : TL_DTYPE_I64;
      continue;
    }
    if (!tl_scalar_fits(s, p)) {
      if (s.kind == TL_KIND_UINT)
        return tl_error_set(TL_ERR_OVERFLOW, "Python integer %llu out of bounds for %s",
                            (unsigned long long)s.v.u, tl_dtype_names[p]);
      return tl_error_set(TL_ERR_OVERFLOW, "Python integer %lld out of bounds for %s",
                          (long long)s.v.i, tl_dtype_names[p]);
    }
  }

  tl_kind k = tl_dtype_kind(p);
  bool integral = k <= TL_KIND_INT, cplx = k == TL_KIND_COMPLEX;
  *result = *compute = p;
  switch (tl_op_infos[op].rule) {
  case TL_RULE_ARITH_NOBOOL:
    /* PyTorch raises NotImplementedError here, NumPy TypeError: the two-class
     * DtypeError is caught by either's except clause */
    if (p == TL_DTYPE_BOOL)
      return tl_error_set(TL_ERR_DTYPE, "%s() with bool tensors is not supported; use the `~` or "
                                       "logical_not() operator to invert a mask",
                          tl_op_infos[op].name);
    break;
  case TL_RULE_FLOAT_REAL:
    if (cplx)
      return refuse(op, p);
    /* fall through */
  case TL_RULE_FLOAT:
  case TL_RULE_MEAN:
    if (integral)
      *result = *compute = tl_dtype_default_float();
    break;
  case TL_RULE_FLOAT_ONLY:
    if (integral || cplx)
      return refuse(op, p);
    break;
  case TL_RULE_DOUBLE:
    *result = *compute = cplx ? TL_DTYPE_C128 : TL_DTYPE_F64;
    break;
  case TL_RULE_REAL:
    if (cplx)
      return refuse(op, p);
    break;
  case TL_RULE_INT:
    if (!integral)
      return refuse(op, p);
    break;
  case TL_RULE_ABS_FLOAT:
    if (integral)
      *result = *compute = tl_dtype_default_float();
    /* fall through */
  case TL_RULE_ABS:
    *result = tl_dtype_to_real(*compute);
    break;
  case TL_RULE_COMPARE_ORDER:
  case TL_RULE_PREDICATE_REAL:
    if (cplx)
      return refuse(op, p);
    /* fall through */
  case TL_RULE_COMPARE:
  case TL_RULE_PREDICATE:
    *result = TL_DTYPE_BOOL;
    break;
  case TL_RULE_LOGICAL:
    *result = *compute = TL_DTYPE_BOOL;
    break;
  case TL_RULE_EXPONENT:
    if (integral || cplx)
      return refuse(op, p);
    *result = TL_DTYPE_I32;
    break;
  default:
    break;
  }
  return TL_OK;
}

/* Do two views of one storage touch the same bytes without being the same view? */
static bool partial_overlap(const tl_tensor *a, const tl_tensor *b)
{
  if (a->storage != b->storage)
    return false;
  if (a->offset == b->offset && a->ndim == b->ndim && a->dtype == b->dtype &&
      !memcmp(a->shape, b->shape, (size_t)a->ndim * sizeof *a->shape) &&
      !memcmp(a->strides, b->strides, (size_t)a->ndim * sizeof *a->strides))
    return false;
  int64_t lo[2], hi[2];
  const tl_tensor *t[2] = {a, b};
  for (int k = 0; k < 2; k++) {
    int64_t size = (int64_t)tl_dtype_size(t[k]->dtype);
    lo[k] = hi[k] = t[k]->offset * size;
    for (int i = 0; i < t[k]->ndim; i++) {
      int64_t extent = (t[k]->shape[i] - 1) * t[k]->strides[i] * size;
      if (t[k]->shape[i] == 0)
        return false;
      if (extent < 0)
        lo[k] += extent;
      else
        hi[k] += extent;
    }
    hi[k] += size;
  }
  return lo[0] < hi[1] && lo[1] < hi[0];
}

tl_status tl_check_same_device(int n, const tl_tensor *const *ts)
{
  for (int i = 1; i < n; i++) {
    tl_device a = tl_tensor_device(ts[0]), b = tl_tensor_device(ts[i]);
    char sa[32], sb[32];
    if (!tl_device_eq(a, b) && (a.type == TL_DEVICE_META || b.type == TL_DEVICE_META))
      return tl_error_set(TL_ERR_RUNTIME, "Tensor on device %s is not on the expected device %s!",
                          tl_device_str(sb, sizeof sb, b), tl_device_str(sa, sizeof sa, a));
    if (!tl_device_eq(a, b))
      return tl_error_set(TL_ERR_RUNTIME, "Expected all tensors to be on the same device, but "
                                          "found at least two devices, %s and %s!",
                          tl_device_str(sa, sizeof sa, a), tl_device_str(sb, sizeof sb, b));
  }
  return TL_OK;
}

/* Check or allocate the output of an elementwise op. */
static tl_status prepare_output(tl_op op, tl_tensor *out, tl_dtype result, int ndim,
                                const int64_t *shape, tl_device device, const int *order)
{
  char so[256], sb[256];
  if (!out->storage)
    return tl_tensor_empty_ordered(out, result, ndim, shape, device, order);
  if (!tl_can_cast(result, out->dtype))
    return tl_error_set(TL_ERR_CAST, "%s(): result type %s can't be cast to the desired output "
                                     "type %s",
                        tl_op_infos[op].name, tl_dtype_names[result], tl_dtype_names[out->dtype]);
  if (out->ndim != ndim || memcmp(out->shape, shape, (size_t)ndim * sizeof *shape))
    return tl_error_set(TL_ERR_RUNTIME, "%s(): output with shape %s doesn't match the broadcast "
                                        "shape %s",
                        tl_op_infos[op].name, tl_shape_str(so, sizeof so, out->ndim, out->shape),
                        tl_shape_str(sb, sizeof sb, ndim, shape));
  if (out->storage->readonly)
    return tl_error_set(TL_ERR_VALUE, "%s(): output tensor is read-only", tl_op_infos[op].name);
  if (tl_storage_check_write(out->storage) != TL_OK)
    return tl_error_status();
  if (tl_tensor_has_internal_overlap(out))
    return tl_error_set(TL_ERR_RUNTIME, "%s(): unsupported operation: more than one element of "
                                        "the written-to tensor refers to a single memory "
                                        "location. Please clone() the tensor before performing "
                                        "the operation.", tl_op_infos[op].name);
  tl_storage_bump(out->storage);
  return TL_OK;
}

/* ---- argument checks that need values, before anything is written ---------------- */

typedef struct {
  tl_dtype dtype;
  bool zero; /* looking for a zero, else for a negative value */
  bool found;
} int_search;

static void find_int_loop(char **args, int64_t n, const int64_t *steps, void *data)
{
  int_search *search = data;
  bool found = false;
  for (int64_t i = 0; i < n; i++) {
    const char *x = args[0] + i * steps[0];
    int64_t v = 1;
    switch (search->dtype) {
    case TL_DTYPE_BOOL: v = *(const uint8_t *)x != 0; break;
    case TL_DTYPE_U8: v = *(const uint8_t *)x; break;
    case TL_DTYPE_U16: v = tl_load_U16(x); break;
    case TL_DTYPE_U32: v = tl_load_U32(x); break;
    case TL_DTYPE_U64: v = tl_load_U64(x) != 0; break; /* never negative: only zero matters */
    case TL_DTYPE_I8: v = *(const int8_t *)x; break;
    case TL_DTYPE_I16: v = *(const int16_t *)x; break;
    case TL_DTYPE_I32: v = *(const int32_t *)x; break;
    case TL_DTYPE_I64: v = *(const int64_t *)x; break;
    default: break;
    }
    found |= search->zero ? v == 0 : v < 0;
  }
  if (found)
    __atomic_store_n(&search->found, true, __ATOMIC_RELAXED);
}

/* Does t (of any dtype) hold an integer zero (zero) or a negative integer?
 * A bool divisor counts (int // False divides by zero: PyTorch raises).
 * A device's memory is read through a host copy: one sync, where the answer
 * decides whether the op raises (reading it in place would dereference
 * device memory). */
static tl_status holds(const tl_tensor *t, bool zero, bool *found)
{
  int_search search = {.dtype = t->dtype, .zero = zero};
  tl_tensor host = {0};
  tl_iter it;
  tl_status st = TL_OK;
  tl_kind k = tl_dtype_kind(t->dtype);
  *found = false;
  if (k != TL_KIND_INT && k != TL_KIND_UINT && k != TL_KIND_BOOL)
    return TL_OK;
  if ((st = tl_dispatch_host_view(&host, t)) != TL_OK)
    return st;
  const tl_tensor *h = &host;
  if ((st = tl_iter_init(&it, 1, &h, NULL)) == TL_OK) {
    tl_iter_run(&it, find_int_loop, &search);
    *found = search.found;
  }
  tl_tensor_release(&host);
  return st;
}

static bool integer_division(tl_op op)
{
  return op == TL_OP_FLOOR_DIVIDE || op == TL_OP_TRUNC_DIVIDE || op == TL_OP_REMAINDER ||
         op == TL_OP_FMOD;
}

/* pow: integers to negative integer powers are refused, as in NumPy (the
 * answer would be a fraction).  Integer division and remainder by zero raise
 * PyTorch's CPU error (not for an empty result: there is no division, as in
 * PyTorch); a divisor on a device is not looked at (a sync per
 * division), as PyTorch's CUDA does not, and NumPy's rule (0 and a warning)
 * is torchlike.numpy's (_numpy_division.py).  add/sub: alpha must fit the
 * compute kind, as in PyTorch.  heaviside: two tensors must share a dtype, as
 * in PyTorch (a Python scalar combines as usual, as NumPy's heaviside takes
 * one). */
static tl_status check_elementwise_args(tl_op op, int nin, const tl_arg *in, tl_dtype compute,
                                        const tl_op_params *p)
{
  tl_kind k = tl_dtype_kind(compute);
  bool integral = k == TL_KIND_INT || k == TL_KIND_UINT, negative = false, zero = false;
  /* (an empty result raises nothing, as in NumPy's loop) */
  bool empty = nin == 2 && (tl_tensor_numel(in[0].t) == 0 || tl_tensor_numel(in[1].t) == 0);
  if (op == TL_OP_POW && nin == 2 && integral && !empty &&
      holds(in[1].t, false, &negative) != TL_OK)
    return tl_error_status();
  if (negative)
    return tl_error_set(TL_ERR_VALUE, "Integers to negative integer powers are not allowed.");
  if (integer_division(op) && nin == 2 && integral && !empty &&
      tl_dispatch_host_memory(tl_tensor_device(in[1].t)) && holds(in[1].t, true, &zero) != TL_OK)
    return tl_error_status();
  if (zero)
    return tl_error_set(TL_ERR_RUNTIME, "ZeroDivisionError");
  if (op == TL_OP_HEAVISIDE && !in[0].weak && !in[1].weak && in[0].t->dtype != in[1].t->dtype)
    return tl_error_set(TL_ERR_RUNTIME, "heaviside is not yet implemented for tensors with "
                                        "different dtypes.");
  if ((op == TL_OP_ADD || op == TL_OP_SUB) && p) {
    tl_kind alpha = p->s[0].kind;
    if (alpha == TL_KIND_BOOL && k != TL_KIND_BOOL)
      return tl_error_set(TL_ERR_RUNTIME, "Boolean alpha only supported for Boolean results.");
    if (alpha >= TL_KIND_FLOAT && k <= TL_KIND_INT)
      return tl_error_set(TL_ERR_RUNTIME, "For integral input tensors, argument alpha must not "
                                          "be a floating point number.");
    if (alpha == TL_KIND_COMPLEX && k != TL_KIND_COMPLEX)
      return tl_error_set(TL_ERR_RUNTIME, "For non-complex input tensors, argument alpha must "
                                          "not be a complex number.");
  }
  return TL_OK;
}

/* x ** 2, x ** 0.5 and x ** -1 for a Python-number exponent and a floating
 * base: square, sqrt and reciprocal, as NumPy and PyTorch compute them.  pow's
 * loop costs 4x theirs; the values are the same (x * x and 1 / x are what a
 * correctly rounded pow gives; sqrt is what both libraries return for 0.5,
 * -0.0 and -inf included, but for PyTorch's float16).  Integer bases keep pow (their ** 2 is already
 * exact, and ** -1 must raise).  Only for a new result: an out= keeps pow's
 * messages. */
static tl_op pow_shortcut(tl_op op, int nin, const tl_arg *in, const tl_tensor *out)
{
  if (op != TL_OP_POW || nin != 2 || out->storage || !in[1].weak || in[0].weak ||
      !tl_dtype_is_float(in[0].t->dtype) || tl_tensor_numel(in[1].t) != 1 ||
      tl_tensor_device(in[1].t).type != TL_DEVICE_CPU)
    return op;
  tl_scalar e = tl_scalar_load(in[1].t->dtype, tl_tensor_data(in[1].t));
  double v = e.kind == TL_KIND_FLOAT ? e.v.f : e.kind == TL_KIND_INT ? (double)e.v.i : 0.0;
  if (e.kind != TL_KIND_FLOAT && e.kind != TL_KIND_INT)
    return op;
  /* PyTorch's float16 ** 0.5 is pow (+0 at -0.0, +inf at -inf) */
  if (v == 0.5 && in[0].t->dtype == TL_DTYPE_F16)
    return op;
  return v == 2.0 ? TL_OP_SQUARE : v == 0.5 ? TL_OP_SQRT : v == -1.0 ? TL_OP_RECIPROCAL : op;
}

/* Whether PyTorch's half-precision kernel of op reads the Python scalar at
 * input i with its full value rather than rounded: on the CPU, a product or
 * quotient by a scalar (x * 0.1, x / 3, x // 0.7); on CUDA, sums and
 * products on either side (its kernels "with scalars"). */
static bool keeps_scalar(tl_op op, int i, tl_device device)
{
  if (device.type == TL_DEVICE_CPU)
    return i == 1 && (op == TL_OP_MUL || op == TL_OP_DIV || op == TL_OP_TRUNC_DIVIDE ||
                      op == TL_OP_FLOOR_DIVIDE);
  return op == TL_OP_ADD || op == TL_OP_SUB || op == TL_OP_MUL || op == TL_OP_DIV;
}

/* PyTorch's CPU half-precision floor and trunc divisions read a divisor that
 * is one value for the whole loop (a Python number, a 0-d or one-element
 * tensor, one value of the half dtype expanded) in float and round the
 * quotient once: the float32 loop, not the half one that rounds each step as
 * its kernel for two tensors does (kernels_binary.c).  A divisor of another
 * dtype is first cast there, into a tensor of its own shape, dense: one
 * value only if it has one element. */
static bool divides_in_float(tl_op op, int nin, const tl_arg *in, tl_dtype compute)
{
  if ((op != TL_OP_FLOOR_DIVIDE && op != TL_OP_TRUNC_DIVIDE) || nin != 2)
    return false;
  const tl_tensor *b = in[1].t;
  if (b->dtype != compute)
    return tl_tensor_numel(b) == 1;
  for (int d = 0; d < b->ndim; d++)
    if (b->shape[d] != 1 && b->strides[d] != 0)
      return false;
  return true;
}

/* The elementwise path of every op; a new result is row-major, or laid out
 * as its operands are (keep_layout). */
static tl_status op_map(tl_op op, int nin, const tl_arg *in, tl_tensor *out,
                        const tl_op_params *p, bool keep_layout)
{
  const tl_tensor *ops[TL_ITER_MAX_OPERANDS];
  tl_dtype loop_dtypes[TL_ITER_MAX_OPERANDS];
  /* Inputs that change before the loop runs: cast scalars, overlap copies. */
  tl_tensor local[TL_ITER_MAX_OPERANDS - 1];
  bool local_owned[TL_ITER_MAX_OPERANDS - 1] = {false};
  /* a device result in the loop's dtype, cast into out; only .storage is
   * read until it is made (zeroing all of its ~530 bytes cost a small call
   * a tenth of op_map's own time) */
  tl_tensor scratch;
  scratch.storage = NULL;
  tl_storage scalar_storage[TL_ITER_MAX_OPERANDS - 1];
  _Alignas(16) char scalar_bytes[TL_ITER_MAX_OPERANDS - 1][16];
  tl_dtype result, compute;
  tl_status status = TL_OK;
  bool allocated = !out->storage;
  const tl_op shortcut = pow_shortcut(op, nin, in, out);
  if (shortcut != op) { /* a unary op of the base */
    op = shortcut;
    nin = 1;
    p = NULL;
  }

  const tl_tensor *devs[TL_ITER_MAX_OPERANDS];
  int ndevs = 0;
  for (int i = 0; i < nin; i++)
    if (!in[i].weak)
      devs[ndevs++] = in[i].t;
  if (!allocated)
    devs[ndevs++] = out;
  tl_device device;
  if (tl_dispatch_device(ndevs, devs, &device) != TL_OK)
    return tl_error_status();
  if (!allocated && !tl_device_eq(tl_tensor_device(out), device)) /* a CPU scalar as out */
    return tl_check_same_device(2, (const tl_tensor *[]){out, devs[0]});

  if (tl_op_result_dtype(op, nin, in, &result, &compute) != TL_OK)
    return tl_error_status();
  tl_dtype loop = compute;
  if (tl_dtype_is_reduced_float(loop) &&
      (!tl_dispatch_has(op, TL_DEVICE_CPU, loop) || !tl_dispatch_has(op, device.type, loop) ||
       divides_in_float(op, nin, in, compute)))
    loop = TL_DTYPE_F32;
  /* A float16/bfloat16 op computed in float takes an operand of another
   * dtype (a Python scalar, integers) rounded to the half dtype first, as
   * PyTorch (whose iterator casts it to the common dtype) and NumPy (NEP 50:
   * np.float16(x) % 2.77 uses float16(2.77)) do: remainder(x, 2.77) and
   * 70000.0 % x give their bits.  PyTorch's kernels that read a scalar's
   * original value are the exceptions (keeps_scalar), and CPU add/sub round
   * alpha too. */
  tl_op_params rounded;
  const tl_op_params *given = p; /* alpha's checks read its kind as given (True stays bool) */
  const bool round_half = loop != compute &&
                          tl_dtype_is_reduced_float(compute);
  if (round_half && p && (op == TL_OP_ADD || op == TL_OP_SUB) &&
      device.type == TL_DEVICE_CPU) {
    _Alignas(16) char half[16];
    rounded = *p;
    tl_scalar_store(p->s[0], compute, half);
    rounded.s[0] = tl_scalar_load(compute, half);
    p = &rounded;
  }
  if (!tl_dispatch_has(op, TL_DEVICE_CPU, loop)) /* the CPU covers every dtype an op takes */
    return refuse(op, compute);
  const tl_kernel *kernel = tl_dispatch_supports(op, device, loop);
  if (!kernel)
    return tl_error_status();
  bool host = tl_dispatch_host_memory(device);
  bool cast = false; /* a device path cast an operand the CPU's iterator would buffer */
  if (check_elementwise_args(op, nin, in, compute, given) != TL_OK)
    return tl_error_status();

  int ndim = in[0].t->ndim;
  int64_t shape[TL_MAX_DIMS];
  memcpy(shape, in[0].t->shape, (size_t)ndim * sizeof *shape);
  for (int i = 1; i < nin; i++) {
    const tl_tensor *t = in[i].t;
    if (t->ndim == ndim && !memcmp(t->shape, shape, (size_t)ndim * sizeof *shape))
      continue; /* the same shape (the common case): nothing to broadcast */
    if (tl_shape_broadcast(ndim, shape, t->ndim, t->shape, &ndim, shape) != TL_OK)
      return tl_error_status();
  }
  int order[TL_MAX_DIMS];
  if (allocated && keep_layout) {
    const tl_tensor *operands[TL_ITER_MAX_OPERANDS];
    int n = 0;
    for (int i = 0; i < nin; i++)
      if (!in[i].weak)
        operands[n++] = in[i].t;
    tl_layout_order(n, operands, ndim, shape, order);
  }
  const int *layout = allocated && keep_layout ? order : NULL;
  if (prepare_output(op, out, result, ndim, shape, device, layout) != TL_OK)
    return tl_error_status();

  tl_dtype out_loop = loop;
  if (result == TL_DTYPE_BOOL || tl_op_infos[op].rule == TL_RULE_EXPONENT)
    out_loop = result; /* bool, or int32 for frexp's exponent */
  else if (result != compute) /* abs, angle: the real dtype of a complex loop */
    out_loop = tl_dtype_to_real(loop);
  ops[0] = out;
  loop_dtypes[0] = out_loop;
  for (int i = 0; i < nin; i++) {
    const tl_tensor *t = in[i].t;
    tl_dtype want = tl_op_infos[op].kind == TL_OPKIND_WHERE && i == 0 ? TL_DTYPE_BOOL : loop;
    /* an operand of another dtype (a Python number, integers) meets
     * half-precision data computed in float: rounded to the half dtype
     * first, as PyTorch's iterator casts it to the common dtype */
    const bool through_half = round_half && want == loop && t->dtype != compute;
    if (t->storage && (t->dtype != want || !tl_device_eq(tl_tensor_device(t), device)) &&
        tl_tensor_numel(t) == 1 &&
        (tl_tensor_device(t).type == TL_DEVICE_CPU || tl_dispatch_host_memory(device))) {
      /* Cast a single element once, not once per buffer chunk; a CPU scalar
       * with another device's tensors is handed over as such a value. */
      tl_scalar s = tl_scalar_load(t->dtype, tl_tensor_data(t));
      if (through_half && !keeps_scalar(op, i, device)) {
        tl_scalar_store(s, compute, scalar_bytes[i]);
        s = tl_scalar_load(compute, scalar_bytes[i]);
      }
      tl_scalar_store(s, want, scalar_bytes[i]);
      /* A CPU scalar stays on the CPU: a device's plan reads it on the host. */
      tl_device where = tl_tensor_device(t).type == TL_DEVICE_CPU ? tl_device_cpu() : device;
      scalar_storage[i] = (tl_storage){.refcount = 1, .data = scalar_bytes[i], .nbytes = 16,
                                       .device = where};
      local[i] = *t;
      local[i].storage = &scalar_storage[i];
      local[i].offset = 0;
      local[i].dtype = want;
      t = &local[i];
    } else if ((!allocated && partial_overlap(out, t)) || (!host && t->dtype != want) ||
               through_half) {
      const tl_dtype first = through_half ? compute : want;
      cast |= !host && t->dtype != want && tl_tensor_numel(t) != 1; /* the CPU casts one element once */
      if (tl_tensor_to_dtype(&local[i], t, first) != TL_OK) {
        status = tl_error_status();
        goto done;
      }
      local_owned[i] = true;
      if (first != want && !host) { /* a device kernel reads want's dtype only */
        tl_tensor wide;
        status = tl_tensor_to_dtype(&wide, &local[i], want);
        tl_tensor_release(&local[i]);
        local[i] = wide;
        local_owned[i] = status == TL_OK;
        if (status != TL_OK)
          goto done;
      }
      t = &local[i];
    }
    ops[i + 1] = t;
    loop_dtypes[i + 1] = want;
  }

  /* An out= of another dtype than a half-precision result computed in float
   * receives the values rounded to the result dtype first, as PyTorch and
   * NumPy compute in the inputs' dtype and cast (square(float16 65504,
   * out=float64) is inf): through a scratch tensor of the result dtype.  A
   * device's kernels write their loop's dtype only: scratch holds that, and
   * the copy into out goes through the result dtype. */
  const bool half_result = (result == TL_DTYPE_F16 || result == TL_DTYPE_BF16) &&
                           out_loop != result && out->dtype != result;
  if ((!host && out->dtype != out_loop) || half_result) {
    tl_dtype held = host ? result : out_loop;
    cast |= !host && out->dtype != out_loop;
    if (tl_tensor_empty_ordered(&scratch, held, ndim, shape, device, layout) != TL_OK) {
      status = tl_error_status();
      goto done;
    }
    ops[0] = &scratch;
  }

  tl_iter it;
  if (tl_iter_init(&it, nin + 1, ops, loop_dtypes) != TL_OK) {
    status = tl_error_status();
    goto done;
  }
  it.cost = tl_op_infos[op].rule == TL_RULE_FLOAT || tl_op_infos[op].rule == TL_RULE_FLOAT_REAL ? 8 : 1;
  /* which of two equal zeros float maximum/minimum give follows PyTorch's
   * chunks (kernels_compare.c's extrema_vector_count); float16 and bfloat16,
   * computed here in float32 buffers, keep the plain rule */
  const bool extrema = op == TL_OP_MAXIMUM || op == TL_OP_MINIMUM;
  const tl_op_params plain = {.i = TL_OP_EXTREMA_PLAIN};
  const tl_op_params buffered = {.i = TL_OP_EXTREMA_BUFFERED};
  it.pytorch_chunks = extrema;
  if (extrema && loop != compute)
    p = &plain;
  else if (extrema && cast && !(p && p->i == TL_OP_EXTREMA_PLAIN))
    p = &buffered; /* a device kernel follows the CPU's buffer pieces (tl_extrema_rule.h) */
  if (kernel->loop) {
    status = tl_iter_run(&it, kernel->loop, (void *)p);
  } else {
    const tl_iter_kernel *device_kernel = kernel->set;
    status = device_kernel->run(device_kernel, &it, p);
  }
  if (status == TL_OK && scratch.storage && half_result && scratch.dtype != result) {
    tl_tensor rounded;
    if ((status = tl_tensor_to_dtype(&rounded, &scratch, result)) == TL_OK) {
      status = tl_tensor_copy(out, &rounded);
      tl_tensor_release(&rounded);
    }
  } else if (status == TL_OK && scratch.storage) {
    status = tl_tensor_copy(out, &scratch);
  }

done:
  if (scratch.storage)
    tl_tensor_release(&scratch);
  for (int i = 0; i < nin; i++)
    if (local_owned[i])
      tl_tensor_release(&local[i]);
  if (status != TL_OK && allocated)
    tl_tensor_release(out);
  return status;
}

tl_status tl_op_map(tl_op op, int nin, const tl_arg *in, tl_tensor *out, const tl_op_params *p)
{
  return op_map(op, nin, in, out, p, false);
}

tl_status tl_op_map_like_inputs(tl_op op, int nin, const tl_arg *in, tl_tensor *out,
                                const tl_op_params *p)
{
  return op_map(op, nin, in, out, p, true);
}

/* ---- copies ---------------------------------------------------------------------- */

/* The entry point of the copy family: device-neutral checks, then the device's
 * copy kernel. */
tl_status tl_tensor_copy(tl_tensor *dst, const tl_tensor *src)
{
  /* Between devices, bytes move only through the devices' backends. */
  if (!tl_device_eq(tl_tensor_device(dst), tl_tensor_device(src)))
    return tl_backend_tensor_copy(dst, src, false);
  const tl_tensor *devs[2] = {dst, src};
  const tl_copy_kernels *set = tl_dispatch_kernel(TL_OP_COPY, dst->dtype, 2, devs);
  if (!set)
    return tl_error_status();
  if (dst->storage->readonly)
    return tl_error_set(TL_ERR_VALUE, "assignment destination is read-only");
  if (tl_storage_check_write(dst->storage) != TL_OK)
    return tl_error_status();
  if (tl_tensor_has_internal_overlap(dst))
    return tl_error_set(TL_ERR_RUNTIME, "unsupported operation: more than one element of the "
                                        "written-to tensor refers to a single memory location. "
                                        "Please clone() the tensor before performing the operation.");
  if (tl_dtype_check_discard(src->dtype, dst->dtype) != TL_OK)
    return TL_ERR_RAISED;
  return set->copy(dst, src);
}

static tl_status cpu_copy_run(const tl_iter *it)
{
  return tl_iter_run((tl_iter *)it, tl_cast_loop(it->dtype[1], it->dtype[0]), NULL);
}

/* The CPU's copy: src (broadcast to dst) cast into dst. */
tl_status tl_cpu_tensor_copy(tl_tensor *dst, const tl_tensor *src)
{
  return tl_copy_through(dst, src, cpu_copy_run);
}

tl_status tl_copy_through(tl_tensor *dst, const tl_tensor *src, tl_status (*run)(const tl_iter *it))
{
  tl_tensor tmp, stripped;
  bool owned = false;
  if (src->ndim > dst->ndim) { /* NumPy drops leading size-1 dims of the value */
    int lead = src->ndim - dst->ndim;
    bool ones = true;
    for (int i = 0; i < lead; i++)
      ones &= src->shape[i] == 1;
    if (ones) {
      stripped = *src;
      stripped.ndim = dst->ndim;
      memmove(stripped.shape, src->shape + lead, (size_t)dst->ndim * sizeof *src->shape);
      memmove(stripped.strides, src->strides + lead, (size_t)dst->ndim * sizeof *src->strides);
      src = &stripped;
    }
  }
  if (partial_overlap(dst, src)) {
    if (tl_tensor_to_dtype(&tmp, src, src->dtype) != TL_OK)
      return tl_error_status();
    src = &tmp;
    owned = true;
  }
  const tl_tensor *ops[2] = {dst, src};
  tl_iter it;
  tl_status status = tl_iter_init(&it, 2, ops, NULL);
  if (status == TL_OK) {
    tl_storage_bump(dst->storage);
    status = run(&it);
  }
  if (owned)
    tl_tensor_release(&tmp);
  return status;
}

tl_status tl_tensor_to_dtype(tl_tensor *out, const tl_tensor *src, tl_dtype dtype)
{
  return tl_tensor_copy_format(out, src, dtype, TL_FORMAT_CONTIGUOUS);
}

tl_status tl_tensor_copy_format(tl_tensor *out, const tl_tensor *src, tl_dtype dtype,
                                tl_format format)
{
  const tl_tensor *devs[1] = {src};
  const tl_copy_kernels *set = tl_dispatch_kernel(TL_OP_COPY, dtype, 1, devs);
  if (!set || tl_dtype_check_discard(src->dtype, dtype) != TL_OK ||
      tl_tensor_empty_format(out, src, dtype, tl_tensor_device(src), format) != TL_OK)
    return tl_error_status();
  tl_status status = set->copy(out, src);
  if (status != TL_OK)
    tl_tensor_release(out);
  return status;
}

tl_status tl_tensor_relayout(tl_tensor *t, tl_format format)
{
  int64_t strides[TL_MAX_DIMS];
  tl_tensor laid = {0};
  if (format != TL_FORMAT_CHANNELS_LAST && format != TL_FORMAT_CHANNELS_LAST_3D)
    return TL_OK;
  if (tl_format_strides(format, t, strides) != TL_OK)
    goto fail;
  if (tl_tensor_has_strides(t, strides)) {
    /* a size-1 dim's stride too, so that .stride() reads as PyTorch's */
    memcpy(t->strides, strides, (size_t)t->ndim * sizeof *strides);
    return TL_OK;
  }
  if (tl_tensor_copy_format(&laid, t, t->dtype, format) != TL_OK)
    goto fail;
  tl_tensor_release(t);
  *t = laid;
  return TL_OK;
fail:
  tl_tensor_release(t);
  return tl_error_status();
}

static const tl_copy_kernels cpu_copy = {.copy = tl_cpu_tensor_copy};

/* Off the CPU, a device's backend can copy bytes (tl_backend.h) with no kernel
 * of its own: that is its copy kernel until it registers one that also casts
 * and strides. */
static tl_status backend_byte_copy(tl_tensor *dst, const tl_tensor *src)
{
  bool plain = tl_tensor_same_block(dst, src);
  if (!plain)
    return tl_dispatch_no_kernel(tl_op_infos[TL_OP_COPY].name, tl_tensor_device(dst), dst->dtype);
  return tl_backend_tensor_copy(dst, src, false);
}

static const tl_copy_kernels backend_copy = {.copy = backend_byte_copy};

void tl_copy_register(void)
{
  tl_dispatch_register_set(TL_OP_COPY, TL_DEVICE_CPU, TL_DTYPES_ALL, &cpu_copy);
  tl_dispatch_register_set(TL_OP_COPY, TL_DEVICE_CUDA, TL_DTYPES_ALL, &backend_copy);
  tl_dispatch_register_set(TL_OP_COPY, TL_DEVICE_FAKE, TL_DTYPES_ALL, &backend_copy);
}
