/* attention_cpu.c - the CPU's blocked attention (tl_attention.h): the jobs
 * over the thread pool, and dropout's Philox draws.  The loops themselves are
 * attention_loops.h, compiled for float and double. */
#include <stdlib.h>

#include "ndcore/dispatch/tl_parallel.h"
#include "ndcore/kernels/tl_random.h"
#include "nn/attention/attention_job.h"

int64_t tl_attn_key_block(int64_t E)
{
  int64_t bk = 262144 / (TL_ATTN_BQ * (E > 0 ? E : 1));
  return bk < 16 ? 16 : bk > 128 ? 128 : bk;
}

void tl_attn_dropout_keep(uint64_t seed, int64_t b, int64_t i, int64_t j0, int64_t n, double p,
                          unsigned char *keep)
{
  const uint32_t key[2] = {(uint32_t)seed, (uint32_t)(seed >> 32)};
  uint32_t w[4];
  for (int64_t x = 0; x < n; x++) {
    int64_t j = j0 + x;
    if (x == 0 || j % 4 == 0) {
      const uint32_t ctr[4] = {(uint32_t)(j / 4), (uint32_t)i, (uint32_t)b,
                               (uint32_t)((uint64_t)b >> 32)};
      tl_philox4x32_10(ctr, key, w);
    }
    /* uniform on [0, 1) from the top 24 bits, as the narrow draws do */
    keep[x] = (double)(w[j % 4] >> 8) * (1.0 / 16777216.0) >= p;
  }
}

static tl_status run(const tl_attn_call *call, int64_t tasks, int64_t work_per_task,
                     tl_range_fn f32, tl_range_fn f64)
{
  bool f64_work = call->q->dtype == TL_DTYPE_F64;
  tl_attn_job job = {.call = call, .kblock = tl_attn_key_block(call->E)};
  job.qblocks = (call->L + TL_ATTN_BQ - 1) / TL_ATTN_BQ;
  if (f32 == tl_attn_forward_f32 && tasks > 0) { /* the forward reads K as panels */
    int64_t kv_rows = call->batch / call->heads * call->kv_heads, size = kv_rows * call->S * call->E;
    job.kpanels = malloc((size_t)(size ? size : 1) * (f64_work ? sizeof(double) : sizeof(float)));
    if (!job.kpanels)
      goto oom;
    tl_parallel_for(kv_rows, 1 + 65536 / (call->S * call->E + 1),
                    f64_work ? tl_attn_kpanels_f64 : tl_attn_kpanels_f32, &job);
  }
  if (tasks > 0)
    tl_parallel_for(tasks, 1 + 65536 / (work_per_task + 1), f64_work ? f64 : f32, &job);
  free(job.kpanels);
  if (!job.failed)
    return TL_OK;
oom:
  return tl_error_set(TL_ERR_MEMORY, "scaled_dot_product_attention(): out of memory for the "
                      "block buffers");
}

tl_status tl_cpu_flash_attention(const tl_attn_call *call)
{
  int64_t qblocks = (call->L + TL_ATTN_BQ - 1) / TL_ATTN_BQ;
  return run(call, call->batch * qblocks, TL_ATTN_BQ * call->S * (call->E + call->Ev),
             tl_attn_forward_f32, tl_attn_forward_f64);
}

tl_status tl_cpu_flash_attention_backward(const tl_attn_call *call)
{
  int64_t kv_rows = call->heads ? call->batch / call->heads * call->kv_heads : 0;
  return run(call, kv_rows, call->L * call->S * (call->E + call->Ev),
             tl_attn_backward_f32, tl_attn_backward_f64);
}
