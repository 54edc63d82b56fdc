/* attention.c - the device-neutral entry points of the blocked scaled
 * dot-product attention (tl_attention.h): shapes, dtypes and the mask's
 * broadcast checked in PyTorch's terms, operands brought to the work dtype,
 * outputs allocated on the inputs' device; and the CPU set's rows. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "ndcore/tensor/tl_views.h"
#include "nn/attention/tl_attention.h"
#include "nn/tl_nn.h"
#include "nn/tl_nn_work.h"

/* What both directions hold while they run: the work copies and the mask's
 * per-row offsets. */
typedef struct {
  tl_attn_call call;
  tl_tensor q, k, v, mask, dout, o, lse;
  int64_t *mask_offsets;
  tl_dtype dtype, work;
  int64_t out_shape[TL_MAX_DIMS], lse_shape[TL_MAX_DIMS];
  int ndim;
} attn_prep;

static void prep_release(attn_prep *p)
{
  tl_tensor *ts[] = {&p->q, &p->k, &p->v, &p->mask, &p->dout, &p->o, &p->lse};
  for (size_t i = 0; i < sizeof ts / sizeof *ts; i++)
    tl_tensor_release(ts[i]);
  free(p->mask_offsets);
}

static tl_status check_qkv(const char *name, const tl_tensor *q, const tl_tensor *k,
                           const tl_tensor *v, int64_t *heads, int64_t *kv_heads)
{
  char sq[128], sk[128], sv[128];
  tl_shape_str(sq, sizeof sq, q->ndim, q->shape);
  tl_shape_str(sk, sizeof sk, k->ndim, k->shape);
  tl_shape_str(sv, sizeof sv, v->ndim, v->shape);
  if (q->dtype != k->dtype || q->dtype != v->dtype)
    return tl_error_set(TL_ERR_RUNTIME, "Expected query, key, and value to have the same dtype, "
                        "but got query.dtype: %s key.dtype: %s and value.dtype: %s instead.",
                        tl_dtype_names[q->dtype], tl_dtype_names[k->dtype],
                        tl_dtype_names[v->dtype]);
  if (!tl_dtype_is_float(q->dtype))
    return tl_error_set(TL_ERR_RUNTIME, "%s(): expected a floating point query, got %s", name,
                        tl_dtype_names[q->dtype]);
  if (q->ndim < 2 || k->ndim != q->ndim || v->ndim != q->ndim)
    return tl_error_set(TL_ERR_RUNTIME, "%s(): expected query, key and value with the same "
                        "number of dims (at least 2), got query %s, key %s and value %s", name,
                        sq, sk, sv);
  int n = q->ndim;
  if (k->shape[n - 1] != q->shape[n - 1]) {
    /* PyTorch's CPU kernel falls back to its math path, whose product
     * q @ k^T refuses first: mm's words for a 2-d query, bmm's over the
     * flattened batch dims when those agree (grouped-query heads repeated) */
    int64_t batch = 1;
    bool same_batch = true;
    for (int d = 0; d < n - 2; d++) {
      batch *= q->shape[d];
      same_batch = same_batch && (k->shape[d] == q->shape[d] ||
                                  (d == n - 3 && k->shape[d] && q->shape[d] % k->shape[d] == 0));
    }
    if (n == 2)
      return tl_error_set(TL_ERR_RUNTIME, "mm: mat1 and mat2 shapes cannot be multiplied "
                          "(%lldx%lld and %lldx%lld)", (long long)q->shape[0],
                          (long long)q->shape[1], (long long)k->shape[1], (long long)k->shape[0]);
    if (same_batch)
      return tl_error_set(TL_ERR_RUNTIME, "Expected size for first two dimensions of batch2 "
                          "tensor to be: [%lld, %lld] but got: [%lld, %lld].", (long long)batch,
                          (long long)q->shape[n - 1], (long long)batch,
                          (long long)k->shape[n - 1]);
    return tl_error_set(TL_ERR_RUNTIME, "%s(): the last dim of key %s must match that of "
                        "query %s", name, sk, sq);
  }
  if (v->shape[n - 2] != k->shape[n - 2])
    return tl_error_set(TL_ERR_RUNTIME, "%s(): key %s and value %s must have the same sequence "
                        "length (dim -2)", name, sk, sv);
  *heads = *kv_heads = 1;
  for (int d = 0; d < n - 2; d++) {
    if (k->shape[d] != v->shape[d])
      return tl_error_set(TL_ERR_RUNTIME, "%s(): key %s and value %s must have the same batch "
                          "dims", name, sk, sv);
    if (k->shape[d] == q->shape[d])
      continue;
    if (d != n - 3 || k->shape[d] == 0 || q->shape[d] % k->shape[d])
      return tl_error_set(TL_ERR_RUNTIME, "%s(): the batch dims of key %s do not match query %s "
                          "(the number of heads in key and value must divide the number of "
                          "heads in query)", name, sk, sq);
  }
  if (n >= 3) {
    *heads = q->shape[n - 3];
    *kv_heads = k->shape[n - 3];
  }
  return TL_OK;
}

/* Checks and work copies shared by both directions. */
static tl_status prepare(tl_op op, attn_prep *p, const tl_tensor *q, const tl_tensor *k,
                         const tl_tensor *v, double dropout_p, bool causal, const tl_tensor *mask,
                         double scale, const tl_tensor *rng_state)
{
  const char *name = tl_op_infos[op].name;
  tl_attn_call *c = &p->call;
  char sm[128], ss[128];
  int n = q->ndim;
  if (check_qkv(name, q, k, v, &c->heads, &c->kv_heads) != TL_OK)
    return tl_error_status();
  p->dtype = q->dtype;
  p->work = tl_nn_work_dtype(q->dtype);
  p->ndim = n;
  c->L = q->shape[n - 2];
  c->S = k->shape[n - 2];
  c->E = q->shape[n - 1];
  c->Ev = v->shape[n - 1];
  c->batch = 1;
  for (int d = 0; d < n - 2; d++)
    c->batch *= q->shape[d];
  c->scale = !isnan(scale) ? scale : 1.0 / sqrt((double)(c->E ? c->E : 1));
  c->causal = causal;
  c->dropout_p = dropout_p;
  if (!(dropout_p >= 0 && dropout_p <= 1))
    return tl_error_set(TL_ERR_VALUE, "%s(): dropout_p must be in [0, 1], got %g", name,
                        dropout_p);
  if (dropout_p > 0) {
    if (!rng_state || rng_state->dtype != TL_DTYPE_I64 || tl_tensor_numel(rng_state) != 2)
      return tl_error_set(TL_ERR_RUNTIME, "%s(): dropout_p > 0 needs rng_state, a 2-element "
                          "int64 tensor", name);
    tl_tensor seed = {0}; /* a host copy: rng_state may live on the inputs' device */
    if (tl_tensor_empty(&seed, TL_DTYPE_I64, rng_state->ndim, rng_state->shape,
                        (tl_device){.type = TL_DEVICE_CPU}) != TL_OK ||
        tl_tensor_copy(&seed, rng_state) != TL_OK) {
      tl_tensor_release(&seed);
      return tl_error_status();
    }
    const int64_t *w = tl_tensor_data(&seed);
    c->seed = (uint64_t)w[0] ^ ((uint64_t)w[1] << 32 | (uint64_t)w[1] >> 32);
    tl_tensor_release(&seed);
  }
  memcpy(p->out_shape, q->shape, (size_t)n * sizeof *q->shape);
  p->out_shape[n - 1] = c->Ev;
  memcpy(p->lse_shape, q->shape, (size_t)(n - 1) * sizeof *q->shape);
  if (tl_nn_work_in(q, p->work, &p->q) != TL_OK || tl_nn_work_in(k, p->work, &p->k) != TL_OK ||
      tl_nn_work_in(v, p->work, &p->v) != TL_OK)
    return tl_error_status();
  c->q = &p->q;
  c->k = &p->k;
  c->v = &p->v;
  if (!mask)
    return TL_OK;
  if (mask->dtype != TL_DTYPE_BOOL && !tl_dtype_is_float(mask->dtype))
    return tl_error_set(TL_ERR_RUNTIME, "Expected attn_mask dtype to be bool or float or to match "
                        "query dtype, but got attn_mask.dtype: %s and  query.dtype: %s instead.",
                        tl_dtype_names[mask->dtype], tl_dtype_names[q->dtype]);
  int64_t scores[TL_MAX_DIMS];
  memcpy(scores, q->shape, (size_t)n * sizeof *q->shape);
  scores[n - 1] = c->S;
  tl_tensor cast = {0};
  if (mask->dtype != TL_DTYPE_BOOL && tl_nn_work_in(mask, p->work, &cast) != TL_OK)
    return tl_error_status();
  tl_status status = mask->ndim <= n ? tl_view_expand(&p->mask, cast.storage ? &cast : mask, n,
                                                      scores)
                                     : TL_ERR_RUNTIME;
  tl_tensor_release(&cast);
  if (status != TL_OK) {
    tl_error_clear();
    return tl_error_set(TL_ERR_RUNTIME, "%s(): attn_mask of shape %s cannot be broadcast to the "
                        "attention scores' shape %s", name,
                        tl_shape_str(sm, sizeof sm, mask->ndim, mask->shape),
                        tl_shape_str(ss, sizeof ss, n, scores));
  }
  p->mask_offsets = malloc((size_t)(c->batch ? c->batch : 1) * sizeof *p->mask_offsets);
  if (!p->mask_offsets)
    return tl_error_set(TL_ERR_MEMORY, "%s(): out of memory", name);
  for (int64_t b = 0; b < c->batch; b++) { /* unravel b over the batch dims */
    int64_t rest = b, off = 0; /* from tl_tensor_data(mask), which has the offset */
    for (int d = n - 3; d >= 0; d--) {
      off += rest % scores[d] * p->mask.strides[d];
      rest /= scores[d];
    }
    p->mask_offsets[b] = off;
  }
  c->mask = &p->mask;
  c->mask_offsets = p->mask_offsets;
  c->mask_sl = p->mask.strides[n - 2];
  c->mask_ss = p->mask.strides[n - 1];
  return TL_OK;
}

tl_status tl_nn_flash_attention(const tl_tensor *q, const tl_tensor *k, const tl_tensor *v,
                                double dropout_p, bool causal, const tl_tensor *mask, double scale,
                                const tl_tensor *rng_state, tl_tensor *out, tl_tensor *lse)
{
  attn_prep p = {0};
  const tl_tensor *devs[] = {q, k, v, mask};
  const tl_nn_attention_kernels *set = tl_dispatch_kernel(TL_OP_FLASH_ATTENTION, q->dtype, 4, devs);
  tl_status status = set ? prepare(TL_OP_FLASH_ATTENTION, &p, q, k, v, dropout_p, causal, mask,
                                   scale, rng_state)
                         : tl_error_status();
  tl_device device = tl_tensor_device(q);
  if (status == TL_OK)
    status = tl_tensor_empty(out, p.work, p.ndim, p.out_shape, device);
  if (status == TL_OK)
    status = tl_tensor_empty(lse, p.work, p.ndim - 1, p.lse_shape, device);
  if (status == TL_OK) {
    p.call.out = out;
    p.call.lse = lse;
    status = set->forward(&p.call);
  }
  if (status == TL_OK)
    status = tl_nn_work_out(out, p.dtype);
  prep_release(&p);
  if (status != TL_OK) {
    tl_tensor_release(out);
    tl_tensor_release(lse);
  }
  return status;
}

tl_status tl_nn_flash_attention_backward(const tl_tensor *dout, const tl_tensor *q,
                                         const tl_tensor *k, const tl_tensor *v,
                                         const tl_tensor *o, const tl_tensor *lse,
                                         double dropout_p, bool causal, const tl_tensor *mask,
                                         double scale, const tl_tensor *rng_state, tl_tensor *dq,
                                         tl_tensor *dk, tl_tensor *dv)
{
  const char *name = tl_op_infos[TL_OP_FLASH_ATTENTION_BACKWARD].name;
  attn_prep p = {0};
  char sa[128], sb[128];
  const tl_tensor *devs[] = {dout, q, k, v, o, lse, mask};
  const tl_nn_attention_kernels *set =
      tl_dispatch_kernel(TL_OP_FLASH_ATTENTION_BACKWARD, q->dtype, 7, devs);
  tl_status status = set ? prepare(TL_OP_FLASH_ATTENTION_BACKWARD, &p, q, k, v, dropout_p, causal,
                                   mask, scale, rng_state)
                         : tl_error_status();
  if (status == TL_OK &&
      (dout->ndim != p.ndim || memcmp(dout->shape, p.out_shape, (size_t)p.ndim * 8) ||
       o->ndim != p.ndim || memcmp(o->shape, p.out_shape, (size_t)p.ndim * 8) ||
       lse->ndim != p.ndim - 1 || memcmp(lse->shape, p.lse_shape, (size_t)(p.ndim - 1) * 8)))
    status = tl_error_set(TL_ERR_RUNTIME, "%s(): grad_out %s, out %s and logsumexp must have the "
                          "shapes of the forward's results, %s and the query's without its "
                          "last dim", name, tl_shape_str(sa, sizeof sa, dout->ndim, dout->shape),
                          tl_shape_str(sb, sizeof sb, o->ndim, o->shape),
                          tl_shape_str(sa, sizeof sa, p.ndim, p.out_shape));
  if (status == TL_OK && (tl_nn_work_in(dout, p.work, &p.dout) != TL_OK ||
                          tl_nn_work_in(o, p.work, &p.o) != TL_OK ||
                          tl_nn_work_in(lse, p.work, &p.lse) != TL_OK))
    status = tl_error_status();
  tl_device device = tl_tensor_device(q);
  if (status == TL_OK)
    status = tl_tensor_zeros(dq, p.work, q->ndim, q->shape, device);
  if (status == TL_OK)
    status = tl_tensor_zeros(dk, p.work, k->ndim, k->shape, device);
  if (status == TL_OK)
    status = tl_tensor_zeros(dv, p.work, v->ndim, v->shape, device);
  if (status == TL_OK) {
    p.call.dout = &p.dout;
    p.call.o = &p.o;
    p.call.lse_in = &p.lse;
    p.call.dq = dq;
    p.call.dk = dk;
    p.call.dv = dv;
    status = set->backward(&p.call);
  }
  if (status == TL_OK && (tl_nn_work_out(dq, p.dtype) != TL_OK ||
                          tl_nn_work_out(dk, p.dtype) != TL_OK ||
                          tl_nn_work_out(dv, p.dtype) != TL_OK))
    status = tl_error_status();
  prep_release(&p);
  if (status != TL_OK) {
    tl_tensor_release(dq);
    tl_tensor_release(dk);
    tl_tensor_release(dv);
  }
  return status;
}

static const tl_nn_attention_kernels cpu_attention = {
    .forward = tl_cpu_flash_attention,
    .backward = tl_cpu_flash_attention_backward,
};

void tl_nn_attention_register_set(tl_device_type device, const tl_nn_attention_kernels *set)
{
  tl_dispatch_register_set(TL_OP_FLASH_ATTENTION, device, TL_DTYPES_ALL, set);
  tl_dispatch_register_set(TL_OP_FLASH_ATTENTION_BACKWARD, device, TL_DTYPES_ALL, set);
}

void tl_nn_attention_register(void) { tl_nn_attention_register_set(TL_DEVICE_CPU, &cpu_attention); }
