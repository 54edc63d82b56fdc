/* attention_cpu.c - the CPU's blocked attention (tl_attention.h): the jobs
 * over the thread pool, and dropout's Philox draws.  The loops themselves are
 * attention_loops.h, compiled for float and double. */
#include <stdlib.h>

#include "gpu/random/tl_philox.h"
#include "ndcore/dispatch/tl_parallel.h"
#include "ndcore/kernels/tl_simd_clones.h"
#include "ndcore/linalg/tl_linalg.h"
#include "nn/attention/attention_job.h"

/* 128 keys at E = 64: the rows' fixed costs (their reductions, the rescale
 * of the output rows) spread over twice the scores of 64, at the same GEMM
 * speed; 256 fell off OpenBLAS's small-matrix kernels and ran slower. */
int64_t tl_attn_key_block(int64_t E)
{
  int64_t bk = 524288 / (TL_ATTN_BQ * (E > 0 ? E : 1));
  return bk < 16 ? 16 : bk > 128 ? 128 : bk;
}

/* Counter blocks run side by side (tl_px_rounds_lanes) so that the rounds
 * vectorise: 16 blocks, 64 keys, one AVX-512 vector of words. */
enum { KEEP_LANES = TL_PX_LANES };

TL_SIMD_CLONES
void tl_attn_dropout_keep(uint64_t seed, int64_t b, int64_t i, int64_t j0, int64_t n, double p,
                          unsigned char *keep)
{
  for (int64_t g0 = j0 / 4; g0 * 4 < j0 + n; g0 += KEEP_LANES) {
    uint32_t c0[KEEP_LANES], c1[KEEP_LANES], c2[KEEP_LANES], c3[KEEP_LANES];
    for (int l = 0; l < KEEP_LANES; l++) {
      c0[l] = (uint32_t)(g0 + l);
      c1[l] = (uint32_t)i;
      c2[l] = (uint32_t)b;
      c3[l] = (uint32_t)((uint64_t)b >> 32);
    }
    tl_px_rounds_lanes(seed, c0, c1, c2, c3); /* tl_philox4x32_10's rounds */
    for (int l = 0; l < KEEP_LANES; l++) {
      const uint32_t w[4] = {c0[l], c1[l], c2[l], c3[l]};
      for (int slot = 0; slot < 4; slot++) {
        int64_t x = (g0 + l) * 4 + slot - j0;
        /* uniform on [0, 1) from the top 24 bits, as the narrow draws do */
        if (x >= 0 && x < n)
          keep[x] = (double)(w[slot] >> 8) * (1.0 / 16777216.0) >= p;
      }
    }
  }
}

static tl_status run(tl_attn_job *job, int64_t tasks, int64_t work_per_task, tl_range_fn f32,
                     tl_range_fn f64)
{
  /* each of our threads runs its own block products: OpenBLAS on one */
  tl_linalg_blas_single_begin();
  if (tasks > 0)
    tl_parallel_for(tasks, 1 + 65536 / (work_per_task + 1),
                    job->call->q->dtype == TL_DTYPE_F64 ? f64 : f32, job);
  tl_linalg_blas_single_end();
  free(job->kpanels);
  if (job->failed)
    return tl_error_set(TL_ERR_MEMORY, "scaled_dot_product_attention(): out of memory for the "
                        "block buffers");
  return TL_OK;
}

static tl_attn_job job_of(const tl_attn_call *call)
{
  tl_attn_job job = {.call = call, .kblock = tl_attn_key_block(call->E)};
  job.qblocks = (call->L + TL_ATTN_BQ - 1) / TL_ATTN_BQ;
  return job;
}

tl_status tl_cpu_flash_attention(const tl_attn_call *call)
{
  tl_attn_job job = job_of(call);
  int64_t kv_rows = call->heads ? call->batch / call->heads * call->kv_heads : 0;
  int64_t size = kv_rows * call->S * call->E;
  bool f64 = call->q->dtype == TL_DTYPE_F64;
  /* Key panels pay for themselves when each key is read by at least two
   * full query blocks; a short query (decoding: L = 1) reads K once. */
  if (kv_rows && call->L / TL_ATTN_BQ * (call->heads / call->kv_heads) >= 2 && size > 0) {
    job.kpanels = malloc((size_t)size * (f64 ? sizeof(double) : sizeof(float)));
    if (!job.kpanels)
      return tl_error_set(TL_ERR_MEMORY, "scaled_dot_product_attention(): out of memory for "
                          "the key panels");
    tl_parallel_for(kv_rows, 1 + 65536 / (call->S * call->E + 1),
                    f64 ? tl_attn_kpanels_f64 : tl_attn_kpanels_f32, &job);
  }
  return run(&job, call->batch * job.qblocks, TL_ATTN_BQ * call->S * (call->E + call->Ev),
             tl_attn_forward_f32, tl_attn_forward_f64);
}

tl_status tl_cpu_flash_attention_backward(const tl_attn_call *call)
{
  tl_attn_job job = job_of(call);
  int64_t kv_rows = call->heads ? call->batch / call->heads * call->kv_heads : 0;
  return run(&job, kv_rows, call->L * call->S * (call->E + call->Ev), tl_attn_backward_f32,
             tl_attn_backward_f64);
}
