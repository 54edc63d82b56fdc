/* reduce_ops.c - the reductions of ops.def (REDUCE, REDUCE_PAIR) on top of
 * the pass engine (reduce.c): result dtypes, argument checks, the passes
 * each op runs, and the elementwise finish on the accumulator.
 *
 * Result dtypes (PyTorch's):
 *   sum, nansum, prod     dtype= if given, else int64 for bool/integers, else
 *                         the input's; the input is read as that dtype
 *   mean, nanmean         dtype= or the input's, which must be float/complex
 *   var, std              float/complex input; the real dtype of it
 *   amax, amin, max, min  the input's (complex refused)
 *   all, any              bool, but uint8 for uint8 input
 *   count_nonzero, argmax int64
 *   logsumexp             integers -> the default float
 *   norm                  float/complex input (or dtype=); the real dtype
 * A mask of 0 means every dim.  Accumulators are int64, double or
 * complex128; the finish divides, takes roots or logs in that precision and
 * the cast into the result happens last.                                  */
#include <complex.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "ndcore/dispatch/tl_dispatch.h"
#include "ndcore/dispatch/tl_parallel.h"
#include "ndcore/kernels/tl_create.h"
#include "ndcore/kernels/tl_reduce.h"
#include "ndcore/tensor/tl_views.h"

/* The dtype a pass reads its input as, for a result (or dtype=) dtype. */
static tl_dtype loop_for(tl_dtype r)
{
  if (tl_dtype_is_reduced_float(r)) /* float16, bfloat16, float8 */
    return TL_DTYPE_F32;
  switch (r) {
  case TL_DTYPE_F16:
  case TL_DTYPE_BF16:
  case TL_DTYPE_F32: return TL_DTYPE_F32;
  case TL_DTYPE_F64: return TL_DTYPE_F64;
  case TL_DTYPE_C64: return TL_DTYPE_C64;
  case TL_DTYPE_C128: return TL_DTYPE_C128;
  default: return TL_DTYPE_I64;
  }
}

static void keep_shape(const tl_tensor *in, uint64_t mask, int64_t *shape)
{
  for (int i = 0; i < in->ndim; i++)
    shape[i] = mask >> i & 1 ? 1 : in->shape[i];
}

static tl_status pass_new(tl_tensor *acc, tl_rkind kind, const tl_tensor *in, uint64_t mask,
                          tl_dtype loop, const tl_tensor *aux, void *data)
{
  int64_t shape[TL_MAX_DIMS];
  keep_shape(in, mask, shape);
  if (tl_tensor_empty(acc, tl_reduce_acc_dtype(kind, loop), in->ndim, shape,
                      tl_tensor_device(in)) != TL_OK)
    return tl_error_status();
  tl_status status = tl_reduce_pass(kind, in, mask, loop, acc, aux, data);
  if (status != TL_OK)
    tl_tensor_release(acc);
  return status;
}

/* A keepdim-shaped contiguous tensor `r` -> the op's result in `out`
 * (allocated, or the caller's out=), dropping the reduced dims unless
 * keepdim.  Consumes r. */
static tl_status deliver(const char *name, tl_tensor *r, uint64_t mask, bool keepdim,
                         tl_dtype result, tl_tensor *out)
{
  tl_tensor view = *r;
  tl_status status = TL_OK;
  if (!keepdim) {
    int nd = 0;
    for (int i = 0; i < r->ndim; i++)
      if (!(mask >> i & 1))
        view.shape[nd++] = r->shape[i];
    view.ndim = nd;
    tl_shape_contiguous_strides(nd, view.shape, view.strides);
  }
  if (!out->storage) {
    if (r->dtype == result) {
      *out = view; /* r's reference moves to out */
      return TL_OK;
    }
    status = tl_tensor_empty(out, result, view.ndim, view.shape, tl_tensor_device(r));
    if (status == TL_OK && (status = tl_tensor_copy(out, &view)) != TL_OK)
      tl_tensor_release(out);
    goto done;
  }
  char so[256], sr[256];
  if (out->ndim != view.ndim || memcmp(out->shape, view.shape, (size_t)view.ndim * sizeof *view.shape)) {
    status = tl_error_set(TL_ERR_RUNTIME, "%s(): output with shape %s doesn't match the result "
                                          "shape %s", name,
                          tl_shape_str(so, sizeof so, out->ndim, out->shape),
                          tl_shape_str(sr, sizeof sr, view.ndim, view.shape));
    goto done;
  }
  if (!tl_can_cast(result, out->dtype)) {
    status = tl_error_set(TL_ERR_RUNTIME, "%s(): result type %s can't be cast to the desired "
                                          "output type %s", name, tl_dtype_names[result],
                          tl_dtype_names[out->dtype]);
    goto done;
  }
  status = tl_tensor_copy(out, &view);
done:
  tl_tensor_release(r);
  return status;
}

static tl_status refuse(const char *name, tl_dtype d)
{
  return tl_error_set(TL_ERR_DTYPE, "%s() does not support dtype %s", name, tl_dtype_names[d]);
}

/* max/min/argmax... have no identity: an empty reduced dim is an error.
 * PyTorch's types: a named empty dim is an IndexError; with no dim named,
 * max/min/amax/amin raise RuntimeError and argmax/argmin IndexError. */
static tl_status check_nonempty(const char *name, const tl_tensor *in, uint64_t mask, bool no_dim)
{
  bool arg = strncmp(name, "arg", 3) == 0;
  for (int i = 0; i < in->ndim; i++) {
    if (!(mask >> i & 1) || in->shape[i] != 0)
      continue;
    if (no_dim)
      return tl_error_set(arg ? TL_ERR_INDEX : TL_ERR_RUNTIME,
                          "%s(): Expected reduction dim to be specified for input.numel() == 0.%s",
                          name, arg ? "" : " Specify the reduction dim with the 'dim' argument.");
    return tl_error_set(TL_ERR_INDEX, "%s(): Expected reduction dim %d to have non-zero size.",
                        name, i);
  }
  return TL_OK;
}

/* ---- finishing steps on a contiguous accumulator ------------------------------ */

/* acc = op(acc, b), in place, by the elementwise kernel of acc's device: the
 * finishing steps where host code cannot read acc.  b is a tensor, or (b
 * NULL) the Python number `value`; unary ops take neither. */
static tl_status device_finish(tl_op op, tl_tensor *acc, const tl_tensor *b, double value,
                               tl_tensor *out)
{
  tl_tensor scalar; /* 0 against integer counts stays an integer */
  bool count = op == TL_OP_NE || op == TL_OP_EQ;
  if (tl_tensor_empty(&scalar, count ? TL_DTYPE_I64 : TL_DTYPE_F64, 0, NULL, tl_device_cpu()) != TL_OK)
    return tl_error_status();
  tl_scalar_store((tl_scalar){.kind = TL_KIND_FLOAT, .v.f = value}, scalar.dtype,
                  tl_tensor_data(&scalar));
  tl_arg in[2] = {{acc, false}, {b ? b : &scalar, !b}};
  int nin = tl_op_infos[op].kind == TL_OPKIND_UNARY ? 1 : 2;
  tl_status status = tl_op_map(op, nin, in, out ? out : acc, NULL);
  tl_tensor_release(&scalar);
  return status;
}

static bool on_host(const tl_tensor *t) { return tl_dispatch_host_memory(tl_tensor_device(t)); }

static tl_status acc_scale(tl_tensor *acc, double divisor)
{
  int64_t n = tl_tensor_numel(acc);
  if (!on_host(acc))
    return device_finish(TL_OP_DIV, acc, NULL, divisor, NULL);
  if (acc->dtype == TL_DTYPE_C128) {
    double complex *x = tl_tensor_data(acc);
    for (int64_t i = 0; i < n; i++)
      x[i] = x[i] / divisor;
  } else {
    double *x = tl_tensor_data(acc);
    for (int64_t i = 0; i < n; i++)
      x[i] = x[i] / divisor;
  }
  return TL_OK;
}

static tl_status acc_sqrt(tl_tensor *acc)
{
  if (!on_host(acc))
    return device_finish(TL_OP_SQRT, acc, NULL, 0, NULL);
  double *x = tl_tensor_data(acc);
  for (int64_t i = 0, n = tl_tensor_numel(acc); i < n; i++)
    x[i] = sqrt(x[i]);
  return TL_OK;
}

/* nansum and nanmean refuse complex input in PyTorch's words, which name the
 * device's backend. */
static tl_status refuse_complex_nansum(const tl_tensor *in)
{
  bool cuda = tl_tensor_device(in).type == TL_DEVICE_CUDA;
  return tl_error_set(TL_ERR_NOT_IMPLEMENTED, "nansum on %s does not support complex inputs",
                      cuda ? "CUDA" : "CPU");
}

static tl_status op_sum(tl_op op, const tl_tensor *in, uint64_t mask, const tl_reduce_args *a,
                        tl_tensor *out)
{
  const char *name = tl_op_infos[op].name;
  tl_dtype d = in->dtype;
  tl_dtype result = a->dtype >= 0 ? (tl_dtype)a->dtype : tl_dtype_is_integral(d) ? TL_DTYPE_I64 : d;
  tl_rkind kind = op == TL_OP_PROD ? TL_RK_PROD : op == TL_OP_NANSUM ? TL_RK_NANSUM : TL_RK_SUM;
  if (op == TL_OP_NANSUM && tl_dtype_is_complex(result))
    return refuse_complex_nansum(in);
  if (kind == TL_RK_NANSUM && tl_dtype_is_integral(result))
    kind = TL_RK_SUM;
  tl_dtype loop = loop_for(result);
  if (kind != TL_RK_PROD && d == TL_DTYPE_BOOL && result == TL_DTYPE_I64) {
    kind = TL_RK_COUNT; /* a count of the trues: its bool loop sums bytes */
    loop = TL_DTYPE_BOOL;
  }
  tl_tensor as_bool = {0};
  if (result == TL_DTYPE_BOOL && d != TL_DTYPE_BOOL) {
    /* dtype=bool reads each element as a bool (nonzero), as a cast does,
     * not through the int64 loop, where 0.5 would count as 0 */
    if (tl_tensor_to_dtype(&as_bool, in, TL_DTYPE_BOOL) != TL_OK)
      return tl_error_status();
    in = &as_bool;
  }
  tl_tensor acc;
  tl_status status = pass_new(&acc, kind, in, mask, loop, NULL, NULL);
  if (status == TL_OK)
    status = deliver(name, &acc, mask, a->keepdim, result, out);
  if (as_bool.storage)
    tl_tensor_release(&as_bool);
  return status;
}

static int64_t reduced_count(const tl_tensor *in, uint64_t mask)
{
  int64_t n = 1;
  for (int i = 0; i < in->ndim; i++)
    if (mask >> i & 1)
      n *= in->shape[i];
  return n;
}

static tl_status op_mean(tl_op op, const tl_tensor *in, uint64_t mask, const tl_reduce_args *a,
                         tl_tensor *out)
{
  const char *name = tl_op_infos[op].name;
  tl_dtype result = a->dtype >= 0 ? (tl_dtype)a->dtype : in->dtype;
  /* PyTorch's words: nanmean's own, mean's naming the dtype it was given
   * (an integral dtype= is "Optional dtype") */
  if (op == TL_OP_NANMEAN && tl_dtype_is_integral(in->dtype)) /* whatever the dtype= */
    return tl_error_set(TL_ERR_NOT_IMPLEMENTED, "%s(): expected input to have floating point "
                        "or complex dtype but got %s", name, tl_dtype_scalar_name(in->dtype));
  if (tl_dtype_is_integral(result))
    return tl_error_set(TL_ERR_NOT_IMPLEMENTED, "%s(): could not infer output dtype. %s "
                        "dtype must be either a floating point or complex dtype. Got: %s",
                        name, a->dtype >= 0 ? "Optional" : "Input", tl_dtype_scalar_name(result));
  if (op == TL_OP_NANMEAN && tl_dtype_is_complex(result))
    return refuse_complex_nansum(in);
  tl_tensor acc, cnt;
  tl_dtype loop = loop_for(result);
  if (pass_new(&acc, op == TL_OP_NANMEAN ? TL_RK_NANSUM : TL_RK_SUM, in, mask, loop, NULL,
               NULL) != TL_OK)
    return tl_error_status();
  tl_status status = TL_OK;
  if (op == TL_OP_MEAN) {
    status = acc_scale(&acc, (double)reduced_count(in, mask));
  } else if ((status = pass_new(&cnt, TL_RK_COUNT_NOTNAN, in, mask, loop, NULL, NULL)) == TL_OK) {
    if (!on_host(&acc)) {
      status = device_finish(TL_OP_DIV, &acc, &cnt, 0, NULL);
    } else {
      double *x = tl_tensor_data(&acc);
      const int64_t *c = tl_tensor_data(&cnt);
      for (int64_t i = 0, n = tl_tensor_numel(&acc); i < n; i++)
        x[i] = x[i] / (double)c[i];
    }
    tl_tensor_release(&cnt);
  }
  if (status != TL_OK) {
    tl_tensor_release(&acc);
    return status;
  }
  return deliver(name, &acc, mask, a->keepdim, result, out);
}

static tl_status op_var(tl_op op, const tl_tensor *in, uint64_t mask, const tl_reduce_args *a,
                        tl_tensor *out);

/* Complex var with no degrees of freedom left (correction >= n), as PyTorch
 * computes it: var(re) + var(im), each part divided by 0 apart, so a part
 * without deviation (0/0, NaN) makes the sum NaN where |z - mean|^2 / 0
 * would be inf.  (With degrees of freedom left the two sums agree up to
 * rounding, and the one pass over |z - mean|^2 is kept.) */
static tl_status var_of_parts(tl_op op, const tl_tensor *in, uint64_t mask,
                              const tl_reduce_args *a, tl_tensor *out)
{
  tl_tensor part[2] = {{0}}, sum = {0};
  tl_reduce_args kept = *a;
  kept.keepdim = true;
  tl_status status = TL_OK;
  for (int k = 0; k < 2 && status == TL_OK; k++) {
    tl_tensor view = *in; /* the real (k = 0) or imaginary parts */
    view.dtype = tl_dtype_to_real(in->dtype);
    view.offset = 2 * in->offset + k;
    for (int i = 0; i < in->ndim; i++)
      view.strides[i] = 2 * in->strides[i];
    status = op_var(TL_OP_VAR, &view, mask, &kept, &part[k]);
  }
  if (status == TL_OK)
    status = tl_op_map(TL_OP_ADD, 2, (tl_arg[]){{&part[0], false}, {&part[1], false}}, &sum,
                       NULL);
  for (int k = 0; k < 2; k++)
    if (part[k].storage)
      tl_tensor_release(&part[k]);
  if (status != TL_OK)
    return status;
  if (op == TL_OP_STD) {
    tl_tensor root = {0};
    status = tl_op_map(TL_OP_SQRT, 1, (tl_arg[]){{&sum, false}}, &root, NULL);
    tl_tensor_release(&sum);
    if (status != TL_OK)
      return status;
    sum = root;
  }
  return deliver(tl_op_infos[op].name, &sum, mask, a->keepdim, tl_dtype_to_real(in->dtype), out);
}

/* var/std: two passes (the mean, then the sum of squared deviations from it),
 * which is as accurate as Welford's update and vectorises. */
static tl_status op_var(tl_op op, const tl_tensor *in, uint64_t mask, const tl_reduce_args *a,
                        tl_tensor *out)
{
  const char *name = tl_op_infos[op].name;
  tl_dtype d = in->dtype;
  if (tl_dtype_is_integral(d))
    return tl_error_set(TL_ERR_NOT_IMPLEMENTED, "%s(): std and var only support floating point "
                        "and complex dtypes, got %s", name, tl_dtype_names[d]);
  tl_dtype loop = loop_for(d);
  int64_t n = reduced_count(in, mask);
  double correction = a->p.s[0].kind == TL_KIND_FLOAT ? a->p.s[0].v.f : (double)a->p.s[0].v.i;
  double dof = (double)n - correction;
  if (tl_dtype_is_complex(d) && dof <= 0)
    return var_of_parts(op, in, mask, a, out);
  tl_tensor mean, acc;
  if (pass_new(&mean, TL_RK_SUM, in, mask, loop, NULL, NULL) != TL_OK)
    return tl_error_status();
  tl_status status = acc_scale(&mean, (double)n);
  if (status == TL_OK)
    status = pass_new(&acc, TL_RK_SQDEV, in, mask, loop, &mean, NULL);
  tl_tensor_release(&mean);
  if (status != TL_OK)
    return status;
  status = acc_scale(&acc, dof > 0 ? dof : 0.0);
  if (status == TL_OK && op == TL_OP_STD)
    status = acc_sqrt(&acc);
  if (status != TL_OK) {
    tl_tensor_release(&acc);
    return status;
  }
  return deliver(name, &acc, mask, a->keepdim, tl_dtype_to_real(d), out);
}

/* A float max/min that came out zero: the sign PyTorch's CPU kernels would
 * give it among tied -0.0 and +0.0 (reduce_zero_sign.c).  max()/min() over
 * the whole tensor read the input in logical order.  amax()/amin() of a
 * contiguous input whose reduced dims form one run, seen as (A, R, C) with
 * R reduced: with C == 1 each of the A rows as a whole-tensor amax (the
 * whole tensor is one row), else each column (a, c) down its R elements;
 * any other layout (strided, expanded, several reduced runs) is played as
 * PyTorch's iterator orders it (tl_reduce_zero_sign_strided).  A negative
 * stride, which PyTorch has no view for, is read as its flip(): a
 * contiguous copy in logical order. */
static tl_status zero_sign_as_pytorch(tl_op op, const tl_tensor *in, uint64_t mask, bool keepdim,
                                      tl_tensor *acc)
{
  tl_dtype d = in->dtype;
  bool amax_kernel = op == TL_OP_AMAX || op == TL_OP_AMIN;
  int64_t n = tl_tensor_numel(in), outs = tl_tensor_numel(acc);
  if (tl_tensor_device(in).type != TL_DEVICE_CPU || outs < 1 || n / outs < 2)
    return TL_OK;
  if (d != TL_DTYPE_F16 && d != TL_DTYPE_BF16 && d != TL_DTYPE_F32 && d != TL_DTYPE_F64)
    return TL_OK;
  if (outs > 1 && !amax_kernel)
    return TL_OK;
  char *p = (char *)tl_tensor_data(acc);
  bool f64 = acc->dtype == TL_DTYPE_F64, any = false;
  for (int64_t r = 0; r < outs && !any; r++)
    any = (f64 ? ((double *)p)[r] : (double)((float *)p)[r]) == 0.0;
  if (!any)
    return TL_OK;
  int64_t cols = 1; /* C: the kept elements after the reduced run */
  bool one_run = true;
  int part = 0; /* 0: in C (from the end), 1: in R, 2: in A */
  for (int i = in->ndim - 1; i >= 0 && outs > 1; i--) {
    if (in->shape[i] == 1)
      continue;
    bool reduced = mask >> i & 1;
    if (reduced && part == 2)
      one_run = false;
    part = reduced ? 1 : part == 1 ? 2 : part;
    if (part == 0)
      cols *= in->shape[i];
  }
  bool negative = false;
  for (int i = 0; i < in->ndim; i++)
    negative |= in->strides[i] < 0 && in->shape[i] > 1;
  bool contiguous = tl_tensor_is_contiguous(in);
  bool strided = amax_kernel && !negative && (!contiguous || !one_run);
  tl_tensor x = *in; /* a contiguous copy where the input is read in logical order */
  bool copied = !contiguous && !strided;
  if (copied) {
    if (tl_tensor_empty(&x, d, in->ndim, in->shape, tl_device_cpu()) != TL_OK)
      return tl_error_status();
    if (tl_tensor_copy(&x, in) != TL_OK) {
      tl_tensor_release(&x);
      return tl_error_status();
    }
  }
  bool hi = op == TL_OP_AMAX || op == TL_OP_MAX;
  int64_t len = n / outs; /* R */
  const char *xs = (const char *)tl_tensor_data(&x);
  size_t size = tl_dtype_size(d);
  int threads = outs == 1 ? tl_parallel_get_threads() : 1; /* rows split over threads whole */
  double *played = NULL;
  if (strided) {
    played = malloc((size_t)outs * sizeof(double));
    if (!played)
      return tl_error_set(TL_ERR_MEMORY, "%s(): out of memory for %lld outputs",
                          tl_op_infos[op].name, (long long)outs);
    tl_reduce_zero_sign_strided(xs, d, in->ndim, in->shape, in->strides, mask, keepdim, hi,
                                threads, played);
  }
  for (int64_t o = 0; o < outs; o++) {
    double v = f64 ? ((double *)p)[o] : (double)((float *)p)[o];
    if (v != 0.0)
      continue;
    double z;
    if (strided) {
      z = played[o];
    } else if (cols == 1) {
      z = tl_reduce_zero_sign(xs + (size_t)(o * len) * size, d, len, hi, amax_kernel, threads);
    } else {
      int64_t a = o / cols, c = o % cols;
      z = tl_reduce_zero_sign_column(xs + (size_t)(a * len * cols + c) * size, d, len, cols, c,
                                     cols);
    }
    if (f64)
      ((double *)p)[o] = z;
    else
      ((float *)p)[o] = (float)z;
  }
  free(played);
  if (copied)
    tl_tensor_release(&x);
  return TL_OK;
}

static tl_status op_extreme(tl_op op, const tl_tensor *in, uint64_t mask, bool no_dim,
                            const tl_reduce_args *a, tl_tensor *out)
{
  const char *name = tl_op_infos[op].name;
  tl_dtype d = in->dtype;
  /* PyTorch asks for a non-empty reduced dim before it looks at the dtype */
  if (check_nonempty(name, in, mask, no_dim) != TL_OK)
    return tl_error_status();
  if (tl_dtype_is_complex(d))
    return refuse(name, d);
  bool is_max = op == TL_OP_AMAX || op == TL_OP_MAX;
  tl_dtype loop = tl_dtype_is_float(d) ? loop_for(d) : d;
  tl_tensor acc;
  if (pass_new(&acc, is_max ? TL_RK_MAX : TL_RK_MIN, in, mask, loop, NULL, NULL) != TL_OK)
    return tl_error_status();
  if (zero_sign_as_pytorch(op, in, mask, a->keepdim, &acc) != TL_OK) {
    tl_tensor_release(&acc);
    return tl_error_status();
  }
  return deliver(name, &acc, mask, a->keepdim, d, out);
}

static tl_status op_logical(tl_op op, const tl_tensor *in, uint64_t mask,
                            const tl_reduce_args *a, tl_tensor *out)
{
  tl_rkind kind = op == TL_OP_ALL ? TL_RK_ALL : op == TL_OP_ANY ? TL_RK_ANY : TL_RK_COUNT;
  tl_dtype result = op == TL_OP_COUNT_NONZERO ? TL_DTYPE_I64
                    : in->dtype == TL_DTYPE_U8 ? TL_DTYPE_U8
                                               : TL_DTYPE_BOOL;
  /* Real dtypes have loops of their own (half types read as float32);
   * complex is read as bool through the cast buffers. */
  tl_dtype loop = tl_dtype_is_float(in->dtype) ? loop_for(in->dtype) : in->dtype;
  if (!tl_reduce_loops[kind][loop])
    loop = TL_DTYPE_BOOL;
  tl_tensor acc, flags;
  if (kind != TL_RK_COUNT && in->dtype == TL_DTYPE_BOOL && reduced_count(in, mask) > 0) {
    /* all/any of bools as the min/max of their bytes (0 or 1): the uint8
     * loops vectorise, bool lanes do not (10x).  Not over nothing: the
     * uint8 identities are not bools. */
    tl_tensor bytes = *in;
    bytes.dtype = TL_DTYPE_U8;
    if (pass_new(&acc, kind == TL_RK_ALL ? TL_RK_MIN : TL_RK_MAX, &bytes, mask, TL_DTYPE_U8,
                 NULL, NULL) != TL_OK)
      return tl_error_status();
    acc.dtype = TL_DTYPE_BOOL;
    return deliver(tl_op_infos[op].name, &acc, mask, a->keepdim, result, out);
  }
  if (kind != TL_RK_COUNT && loop != TL_DTYPE_BOOL) {
    /* all/any as counts: int64 lanes vectorise where bool lanes fed by
     * float compares do not.  any = (nonzeros > 0), all = (zeros == 0). */
    bool any = kind == TL_RK_ANY;
    if (pass_new(&acc, any ? TL_RK_COUNT : TL_RK_COUNT_ZERO, in, mask, loop, NULL, NULL) != TL_OK)
      return tl_error_status();
    if (tl_tensor_empty(&flags, TL_DTYPE_BOOL, acc.ndim, acc.shape, tl_tensor_device(in)) != TL_OK) {
      tl_tensor_release(&acc);
      return tl_error_status();
    }
    if (!on_host(&acc)) {
      tl_status status = device_finish(any ? TL_OP_NE : TL_OP_EQ, &acc, NULL, 0, &flags);
      tl_tensor_release(&acc);
      if (status != TL_OK) {
        tl_tensor_release(&flags);
        return status;
      }
      return deliver(tl_op_infos[op].name, &flags, mask, a->keepdim, result, out);
    }
    const int64_t *c = tl_tensor_data(&acc);
    bool *f = tl_tensor_data(&flags);
    for (int64_t i = 0, n = tl_tensor_numel(&acc); i < n; i++)
      f[i] = any ? c[i] != 0 : c[i] == 0;
    tl_tensor_release(&acc);
    return deliver(tl_op_infos[op].name, &flags, mask, a->keepdim, result, out);
  }
  if (pass_new(&acc, kind, in, mask, loop, NULL, NULL) != TL_OK)
    return tl_error_status();
  return deliver(tl_op_infos[op].name, &acc, mask, a->keepdim, result, out);
}

/* shift = m where finite, else 0: on the host, or as nan_to_num(m, 0, 0, 0)
 * on m's device (cast to shift's float64 there). */
static tl_status lse_shift(const tl_tensor *m, tl_tensor *shift)
{
  if (!on_host(m)) {
    tl_op_params zeros = {0};
    for (int k = 0; k < 3; k++)
      zeros.s[k] = (tl_scalar){.kind = TL_KIND_FLOAT, .v.f = 0.0};
    tl_arg in[1] = {{m, false}};
    return tl_op_map(TL_OP_NAN_TO_NUM, 1, in, shift, &zeros);
  }
  double *s = tl_tensor_data(shift);
  for (int64_t i = 0, n = tl_tensor_numel(shift); i < n; i++) {
    double v = m->dtype == TL_DTYPE_F32 ? ((const float *)tl_tensor_data(m))[i]
                                        : ((const double *)tl_tensor_data(m))[i];
    s[i] = isfinite(v) ? v : 0.0;
  }
  return TL_OK;
}

/* logsumexp = m + log(sum(exp(x - m))) with m the max, taken as 0 where it is
 * not finite (all -inf gives -inf, any +inf gives +inf, NaN stays NaN). */
static tl_status op_logsumexp(const tl_tensor *in, uint64_t mask, const tl_reduce_args *a,
                              tl_tensor *out)
{
  tl_dtype d = in->dtype;
  if (tl_dtype_is_complex(d))
    return refuse("logsumexp", d);
  tl_dtype result = tl_dtype_is_integral(d) ? tl_dtype_default_float() : d;
  tl_dtype loop = loop_for(result);
  tl_tensor m, shift, acc = {0};
  int64_t shape[TL_MAX_DIMS];
  keep_shape(in, mask, shape);
  if (tl_tensor_empty(&shift, TL_DTYPE_F64, in->ndim, shape, tl_tensor_device(in)) != TL_OK)
    return tl_error_status();
  tl_status status;
  if (reduced_count(in, mask) == 0) {
    status = tl_tensor_fill(&shift, (tl_scalar){.kind = TL_KIND_FLOAT, .v.f = 0.0});
  } else if ((status = pass_new(&m, TL_RK_MAX, in, mask, loop, NULL, NULL)) == TL_OK) {
    status = lse_shift(&m, &shift);
    tl_tensor_release(&m);
  }
  if (status != TL_OK || (status = pass_new(&acc, TL_RK_EXPSUM, in, mask, loop, &shift, NULL)) != TL_OK)
    goto fail;
  if (!on_host(&acc)) {
    if ((status = device_finish(TL_OP_LOG, &acc, NULL, 0, NULL)) != TL_OK ||
        (status = device_finish(TL_OP_ADD, &acc, &shift, 0, NULL)) != TL_OK)
      goto fail;
  } else {
    double *x = tl_tensor_data(&acc);
    const double *s = tl_tensor_data(&shift);
    for (int64_t i = 0, n = tl_tensor_numel(&acc); i < n; i++)
      x[i] = log(x[i]) + s[i];
  }
  tl_tensor_release(&shift);
  return deliver("logsumexp", &acc, mask, a->keepdim, result, out);
fail:
  if (acc.storage)
    tl_tensor_release(&acc);
  tl_tensor_release(&shift);
  return status;
}

/* torch.norm's vector norms: p = 2 (and 'fro'), 1, inf, -inf, 0, any other p. */
static tl_status op_norm(const tl_tensor *in, uint64_t mask, const tl_reduce_args *a,
                         tl_tensor *out)
{
  tl_dtype d = a->dtype >= 0 ? (tl_dtype)a->dtype : in->dtype;
  if (tl_dtype_is_integral(d))
    return tl_error_set(TL_ERR_NOT_IMPLEMENTED, "norm(): input dtype should be either floating "
                                                "point or complex. Got %s instead.",
                        tl_dtype_names[d]);
  double p = a->p.s[0].kind == TL_KIND_FLOAT ? a->p.s[0].v.f : (double)a->p.s[0].v.i;
  tl_rkind kind = p == 2.0        ? TL_RK_SQSUM
                  : p == 1.0      ? TL_RK_ABSSUM
                  : p == INFINITY ? TL_RK_ABSMAX
                  : p == -INFINITY ? TL_RK_ABSMIN
                  : p == 0.0      ? TL_RK_NONZERO
                                  : TL_RK_POWSUM;
  if (isinf(p) && reduced_count(in, mask) == 0)
    return tl_error_set(TL_ERR_RUNTIME, "norm(): cannot compute the %s norm on an empty tensor "
                                        "because the operation does not have an identity",
                        p > 0 ? "inf" : "-inf");
  tl_tensor acc;
  if (pass_new(&acc, kind, in, mask, loop_for(d), NULL, &p) != TL_OK)
    return tl_error_status();
  tl_status status = TL_OK;
  if (kind == TL_RK_SQSUM) {
    status = acc_sqrt(&acc);
  } else if (kind == TL_RK_POWSUM && !on_host(&acc)) {
    status = device_finish(TL_OP_POW, &acc, NULL, 1.0 / p, NULL);
  } else if (kind == TL_RK_POWSUM) {
    double *x = tl_tensor_data(&acc);
    for (int64_t i = 0, n = tl_tensor_numel(&acc); i < n; i++)
      x[i] = pow(x[i], 1.0 / p);
  }
  if (status != TL_OK) {
    tl_tensor_release(&acc);
    return status;
  }
  return deliver("norm", &acc, mask, a->keepdim, tl_dtype_to_real(d), out);
}

/* max/min along a dim (values and indices), argmax/argmin. */
static tl_status op_index(tl_op op, const tl_tensor *in, uint64_t mask, bool no_dim,
                          const tl_reduce_args *a, tl_tensor *out, tl_tensor *indices)
{
  const char *name = tl_op_infos[op].name;
  bool is_max = op == TL_OP_MAX || op == TL_OP_ARGMAX;
  /* PyTorch's max/min ask for a non-empty reduced dim before the dtype,
   * its argmax/argmin for a real dtype first */
  bool arg = op == TL_OP_ARGMAX || op == TL_OP_ARGMIN;
  if (!arg && check_nonempty(name, in, mask, no_dim) != TL_OK)
    return tl_error_status();
  if (tl_dtype_is_complex(in->dtype))
    return refuse(name, in->dtype);
  if (arg && check_nonempty(name, in, mask, no_dim) != TL_OK)
    return tl_error_status();
  tl_tensor flat, idx = {0}, val = {0};
  bool flattened = false;
  int dim = 0;
  if (no_dim && in->ndim > 1) { /* argmax over everything: a flat index */
    int64_t n = tl_tensor_numel(in);
    if (tl_view_reshape(&flat, in, 1, &n, true) != TL_OK)
      return tl_error_status();
    flattened = true;
  } else {
    while (dim < in->ndim && !(mask >> dim & 1))
      dim++;
    if (dim == in->ndim)
      dim = 0;
  }
  tl_status status = tl_reduce_index(is_max, flattened ? &flat : in, dim,
                                     op == TL_OP_MAX || op == TL_OP_MIN ? &val : NULL, &idx);
  if (flattened)
    tl_tensor_release(&flat);
  if (status != TL_OK)
    return status;
  if (flattened) { /* back to the input's rank: all ones */
    idx.ndim = in->ndim;
    for (int i = 0; i < in->ndim; i++) {
      idx.shape[i] = 1;
      idx.strides[i] = 1;
    }
  }
  if (val.storage) {
    status = deliver(name, &val, mask, a->keepdim, in->dtype, out);
    if (status != TL_OK) {
      tl_tensor_release(&idx);
      return status;
    }
    return deliver(name, &idx, mask, a->keepdim, TL_DTYPE_I64, indices);
  }
  return deliver(name, &idx, mask, a->keepdim, TL_DTYPE_I64, out);
}

/* The op layer of every reduction, on every device: the passes reach device
 * memory through the engine's device hooks (tl_reduce.h) and the finishes
 * run as the device's elementwise ops; no accumulator is read on the host. */
tl_status tl_cpu_op_reduce(tl_op op, const tl_tensor *in, const tl_reduce_args *a, tl_tensor *out,
                           tl_tensor *indices)
{
  uint64_t full = in->ndim ? ~(uint64_t)0 >> (64 - in->ndim) : 0;
  uint64_t mask = a->dims & full;
  bool no_dim = mask == 0;
  if (no_dim)
    mask = full;
  switch (op) {
  case TL_OP_SUM:
  case TL_OP_NANSUM:
  case TL_OP_PROD:
    return op_sum(op, in, mask, a, out);
  case TL_OP_MEAN:
  case TL_OP_NANMEAN:
    return op_mean(op, in, mask, a, out);
  case TL_OP_VAR:
  case TL_OP_STD:
    return op_var(op, in, mask, a, out);
  case TL_OP_AMAX:
  case TL_OP_AMIN:
    return op_extreme(op, in, mask, no_dim, a, out);
  case TL_OP_MAX:
  case TL_OP_MIN:
    if (!indices)
      return op_extreme(op, in, mask, true, a, out);
    return op_index(op, in, mask, false, a, out, indices);
  case TL_OP_ARGMAX:
  case TL_OP_ARGMIN:
    return op_index(op, in, mask, no_dim, a, out, NULL);
  case TL_OP_ALL:
  case TL_OP_ANY:
  case TL_OP_COUNT_NONZERO:
    return op_logical(op, in, mask, a, out);
  case TL_OP_LOGSUMEXP:
    return op_logsumexp(in, mask, a, out);
  case TL_OP_NORM:
    return op_norm(in, mask, a, out);
  default:
    return tl_error_set(TL_ERR_NOT_IMPLEMENTED, "%s() is not a reduction", tl_op_infos[op].name);
  }
}

/* ---- einsum's fused contraction --------------------------------------------------- */

tl_status tl_reduce_sumprod(const tl_tensor *a, const tl_tensor *b, uint64_t mask, tl_tensor *out)
{
  char sa[256], sb[256];
  if (a->dtype != b->dtype)
    return tl_error_set(TL_ERR_RUNTIME, "einsum(): expected operands of one dtype, got %s and %s",
                        tl_dtype_names[a->dtype], tl_dtype_names[b->dtype]);
  tl_shape_str(sa, sizeof sa, a->ndim, a->shape);
  tl_shape_str(sb, sizeof sb, b->ndim, b->shape);
  if (a->ndim != b->ndim || (a->ndim < 64 && mask >> a->ndim))
    return tl_error_set(TL_ERR_RUNTIME, "einsum(): operands of shapes %s and %s do not line up "
                                        "dim for dim", sa, sb);
  /* Views of the common shape: a size-1 dim broadcasts with stride 0 (the
   * caller's labels are aligned, so this is NumPy's broadcasting of them). */
  tl_tensor va = *a, vb = *b;
  for (int i = 0; i < a->ndim; i++) {
    if (a->shape[i] == b->shape[i])
      continue;
    if (a->shape[i] != 1 && b->shape[i] != 1)
      return tl_error_set(TL_ERR_RUNTIME, "einsum(): operands of shapes %s and %s do not "
                                          "broadcast in dim %d", sa, sb, i);
    tl_tensor *one = a->shape[i] == 1 ? &va : &vb;
    one->shape[i] = a->shape[i] == 1 ? b->shape[i] : a->shape[i];
    one->strides[i] = 0;
  }
  tl_dtype loop = loop_for(a->dtype);
  int64_t shape[TL_MAX_DIMS];
  keep_shape(&va, mask, shape);
  tl_tensor acc;
  if (tl_tensor_empty(&acc, tl_reduce_acc_dtype(TL_RK_SUMPROD, loop), va.ndim, shape,
                      tl_tensor_device(a)) != TL_OK)
    return tl_error_status();
  tl_status status = tl_reduce_sumprod_pass(&va, &vb, mask, loop, &acc);
  if (status != TL_OK) {
    tl_tensor_release(&acc);
    return status;
  }
  return deliver("einsum", &acc, mask, false, a->dtype, out);
}

