/* kernels_gpu.c - the CUDA rows of the kernel table, and the C side of every
 * CUDA launch: the device-neutral plan (tl_iter.h) and the op's tl_op_params
 * become the plain tl_gpu_plan and tl_gpu_params the .cu files read
 * (tl_gpu_kernels.h).
 *
 * Rows: the elementwise launchers of elementwise_{unary,binary,compare}.cu
 * and special/special.cu, one per (op, compute dtype), as tl_iter_kernel
 * sets; the copy kernel (casts between any two dtypes, any strides, through
 * the same plan); the creation
 * kernels (full, arange, linspace, eye); each family in a folder of its own
 * registers its rows (src/gpu/reduce: reductions and scans).  They are
 * registered whether or not
 * a GPU is present, so that the table can be inspected anywhere; without a
 * GPU no CUDA tensor exists to reach them.                                 */
#include "gpu/tl_gpu.h"

#ifdef TL_WITH_CUDA
#include <float.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include <cuda_runtime_api.h>

#include "gpu/fft/tl_gpu_fft.h"
#include "gpu/linalg/tl_gpu_cublas.h"
#include "gpu/sort/tl_gpu_sort.h"
#include "gpu/index/tl_gpu_index.h"
#include "gpu/nn/tl_gpu_conv_pool_norm.h"
#include "gpu/nn/tl_gpu_act_loss.h"
#include "gpu/reduce/tl_gpu_reduce.h"
#include "gpu/random/tl_gpu_random.h"
#include "gpu/seq/tl_gpu_seq.h"
#include "gpu/special/tl_gpu_special.h"
#include "gpu/tl_gpu_host.h"
#include "ndcore/dispatch/tl_kernel_sets.h"
#include "ndcore/dispatch/tl_kernels.h"
#include "ndcore/tensor/tl_backend.h"

/* ---- plans and launches ---------------------------------------------------------- */

tl_status tl_gpu_launched(int err, const char *what)
{
  if (err == cudaSuccess)
    return TL_OK;
  return tl_error_set(TL_ERR_RUNTIME, "CUDA error in %s(): %s", what,
                      cudaGetErrorString((cudaError_t)err));
}

tl_status tl_gpu_stream(tl_device device, const char *what, void **stream)
{
  const tl_backend *b = tl_backend_get(device);
  if (!b)
    return tl_error_status();
  if (tl_gpu_device_enter(device.index, what) != TL_OK) /* restored as the op returns */
    return tl_error_status();
  *stream = b->current_stream(device);
  return TL_OK;
}

tl_status tl_gpu_plan_from_iter(tl_gpu_plan *plan, const tl_iter *it, const char *what)
{
  if (it->ndim > TL_GPU_MAX_DIMS)
    return tl_error_set(TL_ERR_NOT_IMPLEMENTED, "%s(): CUDA kernels index at most %d "
                        "dimensions that cannot be merged, and this one has %d (make an operand "
                        "contiguous first)", what, TL_GPU_MAX_DIMS, it->ndim);
  memset(plan, 0, sizeof *plan);
  plan->ndim = it->ndim;
  plan->noperands = it->noperands;
  plan->numel = it->numel;
  for (int d = 0; d < it->ndim; d++)
    plan->shape[d] = it->shape[d];
  for (int k = 0; k < it->noperands; k++) {
    plan->data[k] = it->data[k];
    for (int d = 0; d < it->ndim; d++)
      plan->strides[k][d] = it->strides[k][d];
    if (it->host_scalar & (1u << k)) {
      plan->host_scalar |= 1u << k;
      memcpy(plan->scalar[k], it->data[k], tl_dtype_size(it->dtype[k]));
    }
  }
  return TL_OK;
}

/* 10^d, or inf once it overflows (round's scale, as the CPU loops make it). */
static double pow10_of(int64_t d)
{
  double f = 1;
  for (int64_t i = 0; i < d && isfinite(f); i++)
    f *= 10;
  return f;
}

/* The largest finite value of dtype d (a float dtype or a complex one's part). */
static double float_max(tl_dtype d)
{
  switch (d) {
  case TL_DTYPE_F16: return 65504.0;
  case TL_DTYPE_BF16: return 0x1.fep127;
  case TL_DTYPE_F32:
  case TL_DTYPE_C64: return FLT_MAX;
  default: return DBL_MAX;
  }
}

/* op's arguments for a launch in compute dtype `compute` writing dtype `out`. */
static void params_for(tl_op op, tl_dtype compute, tl_dtype out, const tl_op_params *p,
                       tl_gpu_params *g)
{
  memset(g, 0, sizeof *g);
  switch (op) {
  case TL_OP_ADD:
  case TL_OP_SUB: {
    tl_scalar one = {.kind = TL_KIND_INT, .v.i = 1};
    tl_scalar alpha = p ? p->s[0] : one;
    tl_scalar_store(alpha, compute, (char *)g->value[0]);
    switch (alpha.kind) {
    case TL_KIND_BOOL: g->i = alpha.v.b; break;
    case TL_KIND_FLOAT: g->i = alpha.v.f == 1.0; break;
    case TL_KIND_COMPLEX: g->i = alpha.v.c == 1.0; break;
    default: g->i = alpha.v.i == 1; break;
    }
    break;
  }
  case TL_OP_ROUND:
    g->i = p ? p->i : 0;
    g->real[0] = pow10_of(g->i < 0 ? -g->i : g->i);
    break;
  case TL_OP_NAN_TO_NUM: {
    /* The infinities default to the output dtype's limits, which for a half
     * type computed in float32 are the half type's. */
    double max = float_max(out);
    g->real[1] = max;
    g->real[2] = -max;
    if (p) {
      g->real[0] = tl_k_param_f64(&p->s[0]);
      if (p->s[1].kind != TL_KIND_BOOL)
        g->real[1] = tl_k_param_f64(&p->s[1]);
      if (p->s[2].kind != TL_KIND_BOOL)
        g->real[2] = tl_k_param_f64(&p->s[2]);
    }
    break;
  }
  case TL_OP_CLAMP:
    g->i = p ? p->i : 3;
    break;
  default:
    break;
  }
}

static tl_status run_elementwise(const tl_iter_kernel *self, const tl_iter *it, const void *data)
{
  const tl_gpu_entry *e = self->ctx;
  const char *name = tl_op_infos[e->op].name;
  tl_gpu_plan plan;
  tl_gpu_params params;
  void *stream = NULL;
  if (tl_gpu_plan_from_iter(&plan, it, name) != TL_OK || tl_gpu_stream(it->device, name, &stream) != TL_OK)
    return tl_error_status();
  const tl_op_params *p = data;
  if ((e->op == TL_OP_MAXIMUM || e->op == TL_OP_MINIMUM) &&
      (e->dtype == TL_DTYPE_F32 || e->dtype == TL_DTYPE_F64) &&
      !(p && p->i == TL_OP_EXTREMA_PLAIN) && it->numel > 0) {
    /* the public ops: PyTorch's CPU rule, by each element's place (the
     * table's row is the plain rule) */
    tl_extrema_runs runs;
    tl_iter_extrema_runs(it, (int64_t)tl_dtype_size((tl_dtype)e->dtype),
                         p && p->i == TL_OP_EXTREMA_BUFFERED, &runs);
    return tl_gpu_launched(tl_gpu_extrema_launch(&plan, &runs, e->op == TL_OP_MAXIMUM,
                                                 e->dtype == TL_DTYPE_F64, stream),
                           name);
  }
  params_for((tl_op)e->op, (tl_dtype)e->dtype, it->dtype[0], data, &params);
  return tl_gpu_launched(e->launch(&plan, &params, stream), name);
}

/* ---- copy and creation ----------------------------------------------------------- */

static tl_status run_copy(const tl_iter *it)
{
  const char *name = tl_op_infos[TL_OP_COPY].name;
  tl_gpu_plan plan;
  void *stream = NULL;
  if (tl_gpu_plan_from_iter(&plan, it, name) != TL_OK || tl_gpu_stream(it->device, name, &stream) != TL_OK)
    return tl_error_status();
  return tl_gpu_launched(tl_gpu_copy_launch(&plan, it->dtype[0], it->dtype[1], stream), name);
}

static tl_status gpu_copy(tl_tensor *dst, const tl_tensor *src)
{
  return tl_copy_through(dst, src, run_copy);
}

/* full: the value, stored on the host in t's dtype, copied into every element
 * as a host scalar. */
static tl_status gpu_fill(tl_tensor *t, tl_scalar value)
{
  const char *name = tl_op_infos[TL_OP_FILL].name;
  const tl_tensor *ops[1] = {t};
  tl_iter it;
  tl_gpu_plan plan;
  void *stream = NULL;
  if (t->storage->readonly)
    return tl_error_set(TL_ERR_VALUE, "cannot fill a read-only tensor");
  if (tl_storage_check_write(t->storage) != TL_OK)
    return tl_error_status();
  if (tl_iter_init(&it, 1, ops, NULL) != TL_OK || tl_gpu_plan_from_iter(&plan, &it, name) != TL_OK ||
      tl_gpu_stream(it.device, name, &stream) != TL_OK)
    return tl_error_status();
  tl_storage_bump(t->storage);
  plan.noperands = 2;
  plan.host_scalar = 2u;
  tl_scalar_store(value, t->dtype, (char *)plan.scalar[1]);
  return tl_gpu_launched(tl_gpu_copy_launch(&plan, t->dtype, t->dtype, stream), name);
}

static double scalar_re(tl_scalar s) { return tl_k_param_f64(&s); }
static double scalar_im(tl_scalar s) { return s.kind == TL_KIND_COMPLEX ? cimag(s.v.c) : 0.0; }

static tl_status gpu_arange_fill(tl_tensor *out, tl_scalar start, tl_scalar step)
{
  void *stream = NULL;
  if (tl_gpu_stream(tl_tensor_device(out), "arange", &stream) != TL_OK)
    return tl_error_status();
  /* Integral results step in int64 from the truncated start and step, as the CPU. */
  int64_t a = start.kind == TL_KIND_INT ? start.v.i : (int64_t)scalar_re(start);
  int64_t s = step.kind == TL_KIND_INT ? step.v.i : (int64_t)scalar_re(step);
  double fa[2] = {scalar_re(start), 0}, fs[2] = {scalar_re(step), 0};
  tl_storage_bump(out->storage);
  return tl_gpu_launched(tl_gpu_arange_launch(tl_tensor_data(out), out->dtype, tl_tensor_numel(out), a, s,
                                       fa, fs, stream), "arange");
}

static tl_status gpu_linspace_fill(tl_tensor *out, tl_scalar start, tl_scalar end, bool log,
                                   tl_scalar base)
{
  void *stream = NULL;
  const char *name = log ? "logspace" : "linspace";
  if (!tl_dtype_is_complex(out->dtype) &&
      (start.kind == TL_KIND_COMPLEX || end.kind == TL_KIND_COMPLEX))
    return tl_error_set(TL_ERR_TYPE, "%s(): complex start or end needs a complex dtype, got %s",
                        name, tl_dtype_names[out->dtype]);
  if (tl_gpu_stream(tl_tensor_device(out), name, &stream) != TL_OK)
    return tl_error_status();
  double a[2] = {scalar_re(start), scalar_im(start)}, b[2] = {scalar_re(end), scalar_im(end)};
  tl_storage_bump(out->storage);
  return tl_gpu_launched(tl_gpu_linspace_launch(tl_tensor_data(out), out->dtype, tl_tensor_numel(out), a, b,
                                         log, scalar_re(base), stream), name);
}

static tl_status gpu_eye_fill(tl_tensor *out)
{
  void *stream = NULL;
  TL_GPU_ALIGN16 unsigned char one[16];
  if (gpu_fill(out, (tl_scalar){.kind = TL_KIND_INT, .v.i = 0}) != TL_OK ||
      tl_gpu_stream(tl_tensor_device(out), "eye", &stream) != TL_OK)
    return tl_error_status();
  int64_t k = out->shape[0] < out->shape[1] ? out->shape[0] : out->shape[1];
  int64_t step = (out->strides[0] + out->strides[1]) * (int64_t)tl_dtype_size(out->dtype);
  tl_scalar_store((tl_scalar){.kind = TL_KIND_INT, .v.i = 1}, out->dtype, (char *)one);
  return tl_gpu_launched(tl_gpu_scatter_value_launch(tl_tensor_data(out), step, k,
                                              (int)tl_dtype_size(out->dtype), one, stream), "eye");
}

/* ---- registration ---------------------------------------------------------------- */

void tl_gpu_kernels_register(void)
{
  static const tl_gpu_entry *const tables[] = {tl_gpu_unary_entries, tl_gpu_binary_entries,
                                               tl_gpu_compare_entries,
                                               tl_gpu_special_entries /* src/gpu/special */,
                                               tl_gpu_normal_entries, tl_gpu_bessel_entries,
                                               tl_gpu_polynomial_entries};
  static tl_iter_kernel *kernels; /* one set per row, for the process */
  size_t n = 0, j = 0;
  for (size_t t = 0; t < sizeof tables / sizeof *tables; t++)
    for (const tl_gpu_entry *e = tables[t]; e->launch; e++)
      n++;
  if (!kernels && !(kernels = calloc(n, sizeof *kernels)))
    return; /* no CUDA kernels: every op on CUDA says so */
  for (size_t t = 0; t < sizeof tables / sizeof *tables; t++)
    for (const tl_gpu_entry *e = tables[t]; e->launch; e++, j++) {
      kernels[j] = (tl_iter_kernel){.run = run_elementwise, .ctx = e};
      tl_dispatch_register_set((tl_op)e->op, TL_DEVICE_CUDA, TL_DTYPES_ONE(e->dtype), &kernels[j]);
    }

  static const tl_copy_kernels copy = {.copy = gpu_copy};
  tl_dispatch_register_set(TL_OP_COPY, TL_DEVICE_CUDA, TL_DTYPES_ALL, &copy);
  static const tl_create_kernels create = {
      .tensor_fill = gpu_fill,
      .tensor_arange_fill = gpu_arange_fill,
      .tensor_linspace_fill = gpu_linspace_fill,
      .tensor_eye_fill = gpu_eye_fill,
  };
  static const tl_op create_ops[] = {TL_OP_FILL, TL_OP_ARANGE, TL_OP_LINSPACE, TL_OP_EYE};
  for (size_t i = 0; i < sizeof create_ops / sizeof *create_ops; i++)
    tl_dispatch_register_set(create_ops[i], TL_DEVICE_CUDA, TL_DTYPES_ALL, &create);

  tl_gpu_reduce_register(); /* reductions and scans: src/gpu/reduce */
  tl_gpu_linalg_register();
  tl_gpu_sort_register();
  tl_gpu_index_register(); /* index/index_gpu.c */
  tl_gpu_conv_pool_norm_register();
  tl_gpu_nn_act_loss_register(); /* softmax, activations, embedding, losses (src/gpu/nn) */
  tl_gpu_random_register();
  tl_gpu_fft_register(); /* cuFFT: src/gpu/fft */
  tl_gpu_seq_register(); /* recurrent cells and layers, attention (src/gpu/seq) */
}
#else
void tl_gpu_kernels_register(void) {} /* no CUDA in the build: no CUDA rows */
#endif
