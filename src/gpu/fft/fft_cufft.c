/* fft_cufft.c - CUDA's FFT executor (tl_gpu_fft.h): cuFFT plans, cached.
 *
 * A pass is `batch` contiguous signals (fft.c lays them out), so cuFFT's
 * basic layout describes it (no embeds): a plan is fixed by (device, type,
 * rank, sizes, batch).  Making a plan costs far more than running one (it
 * may compile kernels), so the last TL_FFT_PLANS plans are kept, least
 * recently used out first; each keeps its own work area (cuFFT allocates
 * it when the plan is made).  The stream is part of the key too: a plan's
 * work area is scratch for every execution of it, and the lock below
 * covers only the queuing, so the same plan queued on two streams would
 * run twice at once on one work area.  With a plan per stream, executions
 * of a plan are ordered by their stream (PyTorch instead hands each
 * execution a work area from its caching allocator; per-stream plans keep
 * cuFFT's own allocation and cost a plan per stream in use, the common
 * case being one).  Every execution binds the plan to its stream (the
 * handle's cudaStream_t, which a destroyed stream's successor may reuse:
 * harmless, since the binding is set again each time).  Sizes go
 * in 64-bit (cufftMakePlanMany64).  float16 is not offered: torchlike.fft
 * computes half inputs in float32 on every device.                        */
#include "gpu/fft/tl_gpu_fft.h"

#ifdef TL_WITH_CUDA
#include <cufft.h>
#include <pthread.h>
#include <string.h>

#include "gpu/tl_gpu_host.h"

#define TL_FFT_PLANS 16

typedef struct {
  bool used;
  int device;
  void *stream; /* the plan's work area is used in this stream's order */
  cufftType type;
  int rank;
  long long n[TL_FFT_MAX_RANK];
  long long batch;
  cufftHandle plan;
  uint64_t last_use;
} plan_entry;

static plan_entry plans[TL_FFT_PLANS];
static uint64_t use_clock;
/* plans and the handles in them: executions on several threads (the GIL
 * released) must not share a plan's stream binding */
static pthread_mutex_t plans_lock = PTHREAD_MUTEX_INITIALIZER;

static tl_status cufft_check(cufftResult r, const char *what)
{
  if (r == CUFFT_SUCCESS)
    return TL_OK;
  if (r == CUFFT_ALLOC_FAILED)
    return tl_error_set(TL_ERR_OUT_OF_MEMORY, "cuFFT error in %s(): CUFFT_ALLOC_FAILED (the "
                        "plan's work area)", what);
  return tl_error_set(TL_ERR_RUNTIME, "cuFFT error in %s(): cufftResult %d", what, (int)r);
}

static cufftType plan_type(const tl_fft_desc *d, bool dbl)
{
  switch (d->kind) {
  case TL_FFT_R2C: return dbl ? CUFFT_D2Z : CUFFT_R2C;
  case TL_FFT_C2R: return dbl ? CUFFT_Z2D : CUFFT_C2R;
  default: return dbl ? CUFFT_Z2Z : CUFFT_C2C;
  }
}

/* The cached plan for the key, or a new one in the least recently used
 * slot; called with plans_lock held. */
static tl_status find_plan(plan_entry *key, cufftHandle *out)
{
  plan_entry *slot = &plans[0];
  for (int i = 0; i < TL_FFT_PLANS; i++) {
    plan_entry *e = &plans[i];
    if (e->used && e->device == key->device && e->stream == key->stream &&
        e->type == key->type && e->rank == key->rank && e->batch == key->batch &&
        !memcmp(e->n, key->n, sizeof e->n)) {
      e->last_use = ++use_clock;
      *out = e->plan;
      return TL_OK;
    }
    if (!e->used || (slot->used && e->last_use < slot->last_use))
      slot = e;
  }
  if (slot->used) {
    cufftDestroy(slot->plan);
    slot->used = false;
  }
  cufftHandle plan;
  size_t work = 0;
  if (cufft_check(cufftCreate(&plan), "cufftCreate") != TL_OK)
    return tl_error_status();
  cufftResult r = cufftMakePlanMany64(plan, key->rank, key->n, NULL, 1, 0, NULL, 1, 0, key->type,
                                      key->batch, &work);
  if (r != CUFFT_SUCCESS) {
    cufftDestroy(plan);
    return cufft_check(r, "cufftMakePlanMany64");
  }
  *slot = *key;
  slot->used = true;
  slot->plan = plan;
  slot->last_use = ++use_clock;
  *out = plan;
  return TL_OK;
}

static tl_status exec_plan(cufftHandle plan, const tl_fft_desc *d, void *in, void *out,
                           bool dbl)
{
  int dir = d->inverse ? CUFFT_INVERSE : CUFFT_FORWARD;
  switch (d->kind) {
  case TL_FFT_R2C:
    return cufft_check(dbl ? cufftExecD2Z(plan, in, out) : cufftExecR2C(plan, in, out),
                       "cufftExecR2C");
  case TL_FFT_C2R:
    return cufft_check(dbl ? cufftExecZ2D(plan, in, out) : cufftExecC2R(plan, in, out),
                       "cufftExecC2R");
  default:
    return cufft_check(dbl ? cufftExecZ2Z(plan, in, out, dir) : cufftExecC2C(plan, in, out, dir),
                       "cufftExecC2C");
  }
}

static tl_status cufft_exec(const tl_fft_desc *d, tl_tensor *in, tl_tensor *out)
{
  void *stream;
  tl_device dev = tl_tensor_device(in);
  tl_tensor aligned = {0};
  cufftHandle plan = 0;
  tl_status st = tl_gpu_stream(dev, "fft", &stream);
  /* cuFFT reads an R2C input as if it were complex: its address must be a
   * multiple of the complex size (PyTorch copies such input too).  fft.c
   * hands contiguous views over as they are, and x[1:] of a real tensor
   * starts one element past an aligned block. */
  if (st == TL_OK && d->kind == TL_FFT_R2C &&
      (uintptr_t)tl_tensor_data(in) % (2 * tl_dtype_size(in->dtype)) != 0) {
    if ((st = tl_tensor_empty(&aligned, in->dtype, in->ndim, in->shape, dev)) == TL_OK &&
        (st = tl_tensor_copy(&aligned, in)) == TL_OK)
      in = &aligned;
  }
  if (st != TL_OK)
    goto done;
  bool dbl = in->dtype == TL_DTYPE_F64 || in->dtype == TL_DTYPE_C128;
  plan_entry key = {.device = dev.index, .stream = stream, .type = plan_type(d, dbl),
                    .rank = d->rank, .batch = d->batch};
  for (int i = 0; i < d->rank; i++)
    key.n[i] = d->n[i];
  pthread_mutex_lock(&plans_lock);
  st = find_plan(&key, &plan);
  if (st == TL_OK)
    st = cufft_check(cufftSetStream(plan, (cudaStream_t)stream), "cufftSetStream");
  if (st == TL_OK)
    st = exec_plan(plan, d, tl_tensor_data(in), tl_tensor_data(out), dbl);
  pthread_mutex_unlock(&plans_lock);
done:
  /* the pool reuses the copy only after this stream's transform has read it */
  if (aligned.storage)
    tl_tensor_release(&aligned);
  return st;
}

void tl_gpu_fft_register(void) { tl_fft_register_device(TL_DEVICE_CUDA, cufft_exec); }
#endif
