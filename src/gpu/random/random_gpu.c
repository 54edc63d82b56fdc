/* random_gpu.c - the CUDA row of the random kernel table.
 *
 * Fills (uniform, normal, random integers, bernoulli, exponential, cauchy,
 * log_normal, geometric) run on the device: tl_random_plan checks and
 * reserves exactly as the CPU does, and random.cu computes each value with
 * the CPU's function (tl_philox.h), so the same generator state gives the
 * same numbers on both devices.  float32, float64 and int64 outputs (and
 * complex ones, through their real parts) are written directly; other dtypes
 * are drawn as float64 or int64 into a scratch tensor and cast on the device
 * with the CPU's conversions; non-contiguous outputs go through a contiguous
 * scratch tensor, as on the CPU.
 *
 * Gamma and binomial draws run on the device too (samplers.cu).
 *
 * randperm, poisson and multinomial run the CPU's kernels on host copies and
 * upload the result: a Fisher-Yates shuffle is sequential, and the other two
 * have data-dependent loops (rejection, sorting) with no CUDA version yet.
 * They cost a host round trip and are bit-identical to the CPU's draws.     */
#include "gpu/tl_gpu.h"

#ifdef TL_WITH_CUDA
#include "gpu/random/tl_gpu_random.h"
#include "gpu/tl_gpu_host.h"
#include "ndcore/dispatch/tl_dispatch.h"
#include "ndcore/dispatch/tl_kernel_sets.h"
#include "ndcore/kernels/tl_random.h"
#include "ndcore/tensor/tl_backend.h"

/* A device copy of a host float64 parameter array of n values. */
static tl_status upload_params(const double *host, int64_t n, tl_device device, tl_tensor *out)
{
  if (tl_tensor_empty(out, TL_DTYPE_F64, 1, &n, device) != TL_OK)
    return tl_error_status();
  const tl_backend *b = tl_backend_get(device);
  if (!b || b->copy_from_host(device, tl_tensor_data(out), host, sizeof(double) * (size_t)n,
                              NULL, false) != TL_OK) {
    tl_tensor_release(out);
    return tl_error_status();
  }
  return TL_OK;
}

/* How values of dtype `store` are written by the kernel, or -1 when they
 * are drawn wide and cast. */
static int direct_store(const tl_random_dist *d, tl_dtype store)
{
  if (d->kind == TL_RANDOM_INTEGER)
    return store == TL_DTYPE_I64 ? TL_GPU_RANDOM_I64 : -1;
  return store == TL_DTYPE_F64 ? TL_GPU_RANDOM_F64 : store == TL_DTYPE_F32 ? TL_GPU_RANDOM_F32 : -1;
}

static tl_status gpu_random_fill(tl_generator *g, tl_tensor *t, const tl_random_dist *d)
{
  tl_device device = tl_tensor_device(t);
  tl_tensor tmp = {0}, pa = {0}, pb = {0};
  tl_random_draw_plan plan;
  void *stream = NULL;
  tl_dtype real = tl_dtype_is_complex(t->dtype) ? tl_dtype_to_real(t->dtype) : t->dtype;
  int store = direct_store(d, real);
  tl_tensor *dst = t;
  if (store < 0 || !tl_tensor_is_contiguous(t)) {
    tl_dtype wide = store >= 0 ? t->dtype : d->kind == TL_RANDOM_INTEGER ? TL_DTYPE_I64
                                                                         : TL_DTYPE_F64;
    if (tl_tensor_empty(&tmp, wide, t->ndim, t->shape, device) != TL_OK)
      return tl_error_status();
    dst = &tmp;
    if (store < 0)
      store = wide == TL_DTYPE_I64 ? TL_GPU_RANDOM_I64 : TL_GPU_RANDOM_F64;
  }
  tl_status s = tl_random_plan(g, t, d, &plan);
  int64_t numel = tl_tensor_numel(t);
  if (s == TL_OK && d->pa && (s = upload_params(d->pa, numel, device, &pa)) == TL_OK)
    plan.draw.pa = tl_tensor_data(&pa);
  if (s == TL_OK && d->pb && (s = upload_params(d->pb, numel, device, &pb)) == TL_OK)
    plan.draw.pb = tl_tensor_data(&pb);
  if (s == TL_OK)
    s = tl_gpu_stream(device, "random", &stream);
  if (s == TL_OK)
    s = tl_gpu_launched(tl_gpu_random_fill_launch(&plan.draw, plan.n, store, tl_tensor_data(dst),
                                                  stream),
                        d->kind == TL_RANDOM_INTEGER ? "random_" : "random fill");
  if (s == TL_OK) {
    tl_storage_bump(dst->storage);
    if (dst != t)
      s = tl_tensor_copy(t, dst);
  }
  /* The parameter arrays go back to the pool stream-ordered: the kernel that
   * reads them is queued before any later use of the blocks. */
  tl_tensor_release(&pa);
  tl_tensor_release(&pb);
  tl_tensor_release(&tmp);
  return s;
}

/* ---- host-computed draws ---------------------------------------------------------- */

/* A CPU copy of a device tensor. */
static tl_status to_host(const tl_tensor *t, tl_tensor *host)
{
  if (tl_tensor_empty(host, t->dtype, t->ndim, t->shape, tl_device_cpu()) != TL_OK)
    return tl_error_status();
  if (tl_tensor_copy(host, t) != TL_OK) {
    tl_tensor_release(host);
    return tl_error_status();
  }
  return TL_OK;
}

/* *out = a device copy of host on `device`. */
static tl_status to_device(const tl_tensor *host, tl_device device, tl_tensor *out)
{
  if (tl_tensor_empty(out, host->dtype, host->ndim, host->shape, device) != TL_OK)
    return tl_error_status();
  if (tl_tensor_copy(out, host) != TL_OK) {
    tl_tensor_release(out);
    return tl_error_status();
  }
  return TL_OK;
}

static tl_status gpu_random_permutation(tl_generator *g, tl_tensor *out)
{
  tl_tensor host = {0};
  tl_status s = tl_tensor_empty(&host, out->dtype, out->ndim, out->shape, tl_device_cpu());
  if (s == TL_OK && (s = tl_cpu_random_permutation(g, &host)) == TL_OK)
    s = tl_tensor_copy(out, &host);
  tl_tensor_release(&host);
  return s;
}

static tl_status gpu_random_poisson(tl_generator *g, const tl_tensor *rates, tl_tensor *out)
{
  tl_tensor r = {0}, o = {0};
  tl_status s = to_host(rates, &r);
  if (s == TL_OK && (s = tl_cpu_random_poisson(g, &r, &o)) == TL_OK)
    s = to_device(&o, tl_tensor_device(rates), out);
  tl_tensor_release(&r);
  tl_tensor_release(&o);
  return s;
}

static tl_status gpu_random_multinomial(tl_generator *g, const tl_tensor *probs, int64_t n,
                                        bool replacement, tl_tensor *out)
{
  tl_tensor p = {0}, o = {0};
  tl_status s = to_host(probs, &p);
  if (s == TL_OK && (s = tl_cpu_random_multinomial(g, &p, n, replacement, &o)) == TL_OK)
    s = to_device(&o, tl_tensor_device(probs), out);
  tl_tensor_release(&p);
  tl_tensor_release(&o);
  return s;
}

/* Gamma and binomial draws on the device (samplers.cu): the counters
 * reserved as the CPU reserves them, the same function per element. */
static tl_status gpu_random_sample(tl_generator *g, const tl_random_sample_spec *spec,
                                   const tl_tensor *a, const tl_tensor *b, tl_tensor *out)
{
  int64_t n = tl_tensor_numel(out);
  tl_px_rounds r = tl_random_sample_reserve(g, spec->kind, n);
  void *stream = NULL;
  if (n == 0)
    return TL_OK;
  tl_status s = tl_gpu_stream(tl_tensor_device(out), "random", &stream);
  if (s == TL_OK)
    s = tl_gpu_launched(tl_gpu_random_sample_launch(spec->kind, spec->floor, &r, n, tl_tensor_data(a),
                                                    b ? tl_tensor_data(b) : NULL,
                                                    tl_tensor_data(out), stream),
                        spec->kind == TL_RANDOM_SAMPLE_BINOMIAL ? "binomial" : "_standard_gamma");
  if (s == TL_OK)
    tl_storage_bump(out->storage);
  return s;
}

void tl_gpu_dropout_register(void); /* dropout_gpu.c */

void tl_gpu_random_register(void)
{
  static const tl_random_kernels set = {
      .random_fill = gpu_random_fill,
      .random_permutation = gpu_random_permutation,
      .random_poisson = gpu_random_poisson,
      .random_multinomial = gpu_random_multinomial,
      .random_sample = gpu_random_sample,
  };
  static const tl_op ops[] = {
      TL_OP_UNIFORM,     TL_OP_NORMAL,  TL_OP_RANDOM_INTEGER, TL_OP_BERNOULLI,
      TL_OP_EXPONENTIAL, TL_OP_CAUCHY,  TL_OP_LOG_NORMAL,     TL_OP_GEOMETRIC,
      TL_OP_RANDPERM,    TL_OP_POISSON, TL_OP_MULTINOMIAL,
      TL_OP_STANDARD_GAMMA, TL_OP_BINOMIAL,
  };
  for (size_t i = 0; i < sizeof ops / sizeof *ops; i++)
    tl_dispatch_register_set(ops[i], TL_DEVICE_CUDA, TL_DTYPES_ALL, &set);
  tl_gpu_dropout_register();
}
#endif
