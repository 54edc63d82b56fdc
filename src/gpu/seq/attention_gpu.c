/* attention_gpu.c - the CUDA set of scaled dot-product attention: the
 * device-neutral driver (src/nn/attention/attention_device.c) on CUDA's
 * primitives, cuBLAS's strided-batched GEMMs (tl_gpu_seq_gemm) and the row
 * kernels of attention.cu, every one queued on the current stream.  A tile
 * holds at most 2^23 scores (32 MiB in float), so the backward's three
 * score buffers stay under 200 MiB in double however long the sequences. */
#include "gpu/tl_gpu.h"

#ifdef TL_WITH_CUDA
#include "gpu/seq/tl_gpu_seq.h"
#include "gpu/seq/tl_gpu_seq_host.h"
#include "gpu/tl_gpu_host.h"

static const char *const NAME = "scaled_dot_product_attention";

static tl_status softmax(tl_device dev, const tl_attn_tile *t, void *s, void *lse)
{
  void *stream = NULL;
  if (tl_gpu_stream(dev, NAME, &stream) != TL_OK)
    return tl_error_status();
  return tl_gpu_launched(tl_gpu_attn_softmax_launch(t, s, lse, stream), NAME);
}

static tl_status probs(tl_device dev, const tl_attn_tile *t, void *s, const void *lse, void *pd)
{
  void *stream = NULL;
  if (tl_gpu_stream(dev, NAME, &stream) != TL_OK)
    return tl_error_status();
  return tl_gpu_launched(tl_gpu_attn_probs_launch(t, s, lse, pd, stream), NAME);
}

static tl_status dscores(tl_device dev, const tl_attn_tile *t, const void *p, void *dp,
                         const void *d)
{
  void *stream = NULL;
  if (tl_gpu_stream(dev, NAME, &stream) != TL_OK)
    return tl_error_status();
  return tl_gpu_launched(tl_gpu_attn_dscores_launch(t, p, dp, d, stream), NAME);
}

static tl_status rowdot(tl_device dev, bool f64, const void *a, const void *b, int64_t n,
                        int64_t ev, void *d)
{
  void *stream = NULL;
  if (tl_gpu_stream(dev, NAME, &stream) != TL_OK)
    return tl_error_status();
  return tl_gpu_launched(tl_gpu_attn_rowdot_launch(f64, a, b, n, ev, d, stream), NAME);
}

static const tl_attn_device_ops cuda_ops = {.tile_scores = (int64_t)1 << 23,
                                            .gemm = tl_gpu_seq_gemm,
                                            .softmax = softmax,
                                            .probs = probs,
                                            .dscores = dscores,
                                            .rowdot = rowdot};

static tl_status forward(const tl_attn_call *call) { return tl_attn_device_forward(&cuda_ops, call); }
static tl_status backward(const tl_attn_call *call)
{
  return tl_attn_device_backward(&cuda_ops, call);
}

const tl_nn_attention_kernels tl_gpu_attention_set = {.forward = forward, .backward = backward};
#endif
