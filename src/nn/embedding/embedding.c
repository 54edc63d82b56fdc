/* embedding.c - the device-neutral entry points of embedding and
 * embedding_bag (tl_embedding.h), and the CPU set's rows in the kernel
 * table. */
#include <string.h>

#include "nn/embedding/tl_embedding.h"
#include "nn/tl_nn.h"

static const tl_nn_embedding_kernels *kernels(tl_op op, tl_dtype dtype, const tl_tensor *a,
                                              const tl_tensor *b)
{
  const tl_tensor *devs[] = {a, b};
  return tl_dispatch_kernel(op, dtype, 2, devs);
}

/* t as contiguous int64 (a view of t or a converted copy in *tmp), after
 * PyTorch's dtype check of `what`. */
static const tl_tensor *as_indices(const char *name, const char *what, const tl_tensor *t,
                                   tl_tensor *tmp)
{
  static const char *const legacy[TL_DTYPE_COUNT] = {
      [TL_DTYPE_F32] = "FloatTensor", [TL_DTYPE_F64] = "DoubleTensor", [TL_DTYPE_F16] = "HalfTensor",
      [TL_DTYPE_BF16] = "BFloat16Tensor", [TL_DTYPE_BOOL] = "BoolTensor", [TL_DTYPE_U8] = "ByteTensor",
      [TL_DTYPE_I8] = "CharTensor", [TL_DTYPE_I16] = "ShortTensor"};
  if (t->dtype != TL_DTYPE_I64 && t->dtype != TL_DTYPE_I32) {
    tl_error_set(TL_ERR_RUNTIME, "Expected tensor for argument #1 '%s' to have one of the following "
                                 "scalar types: Long, Int; but got torchlike.%s instead (while "
                                 "checking arguments for %s)", what,
                 legacy[t->dtype] ? legacy[t->dtype] : tl_dtype_names[t->dtype], name);
    return NULL;
  }
  if (t->dtype == TL_DTYPE_I64 && tl_tensor_is_contiguous(t))
    return t;
  return tl_tensor_to_dtype(tmp, t, TL_DTYPE_I64) == TL_OK ? tmp : NULL;
}

/* Host memory only: a device's kernels check their indices on the device
 * (they cannot be read here without a copy; src/gpu/nn/act_loss_gpu.c). */
tl_status tl_nn_embedding_check_range(const tl_tensor *idx, int64_t V)
{
  if (!tl_dispatch_host_memory(tl_tensor_device(idx)))
    return TL_OK;
  const int64_t *v = tl_tensor_data(idx);
  int64_t n = tl_tensor_numel(idx);
  for (int64_t i = 0; i < n; i++)
    if (v[i] < 0 || v[i] >= V)
      return tl_error_set(TL_ERR_INDEX, "index out of range in self");
  return TL_OK;
}

tl_status tl_nn_embedding_bag_check_range(const tl_tensor *idx, int64_t V, bool max_path)
{
  if (!tl_dispatch_host_memory(tl_tensor_device(idx)))
    return TL_OK;
  const int64_t *v = tl_tensor_data(idx);
  int64_t n = tl_tensor_numel(idx);
  for (int64_t i = 0; i < n; i++) {
    if (v[i] >= 0 && v[i] < V)
      continue;
    if (max_path)
      return tl_error_set(TL_ERR_RUNTIME, "embedding_bag: Expected idx >= 0 && idx < "
                                          "num_embeddings but found idx to be %lld",
                          (long long)v[i]);
    return tl_error_set(TL_ERR_RUNTIME, "Index %lld of input takes value %lld which is not in the "
                                        "valid range [0, %lld)", (long long)i, (long long)v[i],
                        (long long)V);
  }
  return TL_OK;
}

static tl_status check_weight(const tl_tensor *w)
{
  if (w->ndim != 2)
    return tl_error_set(TL_ERR_RUNTIME, "'weight' must be 2-D");
  return TL_OK;
}

tl_status tl_nn_embedding(const tl_tensor *weight, const tl_tensor *indices, tl_tensor *out)
{
  tl_tensor it = {0}, wt = {0};
  const tl_nn_embedding_kernels *set = kernels(TL_OP_EMBEDDING, weight->dtype, weight, indices);
  const tl_tensor *idx = NULL, *w = weight;
  tl_status status = set ? check_weight(weight) : tl_error_status();
  if (status == TL_OK && indices->ndim >= TL_MAX_DIMS)
    status = tl_error_set(TL_ERR_RUNTIME, "embedding(): indices of %d dims leave no room for the "
                                          "embedding dim", indices->ndim);
  if (status == TL_OK && !(idx = as_indices("embedding", "indices", indices, &it)))
    status = tl_error_status();
  if (status == TL_OK)
    status = tl_nn_embedding_check_range(idx, weight->shape[0]);
  if (status == TL_OK && !tl_tensor_is_contiguous(weight)) {
    status = tl_tensor_to_dtype(&wt, weight, weight->dtype);
    w = &wt;
  }
  int64_t shape[TL_MAX_DIMS];
  memcpy(shape, indices->shape, (size_t)indices->ndim * sizeof *shape);
  shape[indices->ndim] = weight->ndim == 2 ? weight->shape[1] : 0;
  if (status == TL_OK)
    status = tl_tensor_empty(out, weight->dtype, indices->ndim + 1, shape, tl_tensor_device(weight));
  if (status == TL_OK)
    status = set->forward(w, idx, out);
  if (status != TL_OK)
    tl_tensor_release(out);
  tl_tensor_release(&it);
  tl_tensor_release(&wt);
  return status;
}

tl_status tl_nn_embedding_backward(const tl_tensor *g, const tl_tensor *indices, int64_t num_weights,
                                   int64_t padding_idx, bool freq, tl_tensor *dw)
{
  char sg[256], si[256];
  tl_tensor it = {0};
  const tl_nn_embedding_kernels *set = kernels(TL_OP_EMBEDDING_BACKWARD, g->dtype, g, indices);
  const tl_tensor *idx = NULL;
  tl_status status = set ? TL_OK : tl_error_status();
  if (status == TL_OK && !tl_dtype_is_float(g->dtype))
    status = tl_error_set(TL_ERR_RUNTIME, "embedding_dense_backward(): expected a floating point "
                                          "grad_output, got %s", tl_dtype_names[g->dtype]);
  if (status == TL_OK && (g->ndim != indices->ndim + 1 ||
                          memcmp(g->shape, indices->shape, (size_t)indices->ndim * sizeof *g->shape)))
    status = tl_error_set(TL_ERR_RUNTIME, "embedding_dense_backward(): grad_output of shape %s does "
                                          "not match indices of shape %s",
                          tl_shape_str(sg, sizeof sg, g->ndim, g->shape),
                          tl_shape_str(si, sizeof si, indices->ndim, indices->shape));
  if (status == TL_OK && num_weights < 0)
    status = tl_error_set(TL_ERR_RUNTIME, "embedding_dense_backward(): num_weights must be "
                                          "non-negative, got %lld", (long long)num_weights);
  if (status == TL_OK && !(idx = as_indices("embedding_backward", "indices", indices, &it)))
    status = tl_error_status();
  if (status == TL_OK)
    status = tl_nn_embedding_check_range(idx, num_weights);
  int64_t shape[2] = {num_weights, g->ndim ? g->shape[g->ndim - 1] : 0};
  if (status == TL_OK)
    status = tl_tensor_zeros(dw, g->dtype, 2, shape, tl_tensor_device(g));
  if (status == TL_OK)
    status = set->backward(g, idx, padding_idx, freq, dw);
  if (status != TL_OK)
    tl_tensor_release(dw);
  tl_tensor_release(&it);
  return status;
}

/* bounds (B + 1,) and bag_of (n,) from 2-d indices or 1-d indices + offsets.
 * They are made on the host (the offsets are checked there, which needs
 * their values) and moved to a device's memory when the indices live there;
 * on the meta device, which has no values, they are only allocated. */
static tl_status make_bags(const tl_tensor *indices, const tl_tensor *offsets,
                           bool include_last_offset, tl_tensor *bounds, tl_tensor *bag_of)
{
  int64_t n = tl_tensor_numel(indices), B;
  tl_tensor ot = {0}, oh = {0}, bh = {0}, gh = {0};
  const tl_tensor *off = NULL;
  tl_status status = TL_OK;
  tl_device dev = tl_tensor_device(indices);
  bool host = tl_dispatch_host_memory(dev);
  tl_tensor *bd_t = host ? bounds : &bh, *bo_t = host ? bag_of : &gh;
  if (indices->ndim == 2) {
    if (offsets)
      return tl_error_set(TL_ERR_VALUE, "if input is 2D, then offsets has to be None, as input is "
                                        "treated is a mini-batch of fixed length sequences.");
    B = indices->shape[0];
  } else if (indices->ndim == 1) {
    if (!offsets || offsets->ndim != 1)
      return tl_error_set(TL_ERR_VALUE, "offsets has to be a 1D Tensor");
    /* (PyTorch's check of the offsets' dtype names them 'indices' too) */
    if (!(off = as_indices("embedding_bag", "indices", offsets, &ot)))
      return tl_error_status();
    if (!host && dev.type != TL_DEVICE_META) { /* the offsets' values, on the host */
      if (tl_tensor_empty(&oh, TL_DTYPE_I64, 1, off->shape, tl_device_cpu()) != TL_OK ||
          tl_tensor_copy(&oh, off) != TL_OK) {
        status = tl_error_status();
        goto done;
      }
      off = &oh;
    }
    B = offsets->shape[0] - (include_last_offset ? 1 : 0);
    if (B < 0)
      B = 0;
  } else {
    return tl_error_set(TL_ERR_VALUE, "input has to be 1D or 2D Tensor, but got Tensor of "
                                      "dimension %d", indices->ndim);
  }
  int64_t bshape[1] = {B + 1}, nshape[1] = {n};
  if (dev.type == TL_DEVICE_META) { /* no values: the bags' shapes only, as PyTorch's meta */
    status = tl_tensor_empty(bounds, TL_DTYPE_I64, 1, bshape, dev);
    if (status == TL_OK)
      status = tl_tensor_empty(bag_of, TL_DTYPE_I64, 1, nshape, dev);
    goto done;
  }
  tl_device at = host ? dev : tl_device_cpu();
  status = tl_tensor_empty(bd_t, TL_DTYPE_I64, 1, bshape, at);
  if (status == TL_OK)
    status = tl_tensor_empty(bo_t, TL_DTYPE_I64, 1, nshape, at);
  if (status != TL_OK)
    goto done;
  int64_t *bd = tl_tensor_data(bd_t), *bo = tl_tensor_data(bo_t);
  for (int64_t b = 0; b < B; b++)
    bd[b] = off ? ((const int64_t *)tl_tensor_data(off))[b] : b * indices->shape[1];
  bd[B] = off && include_last_offset && B >= 0 ? ((const int64_t *)tl_tensor_data(off))[B] : n;
  if (B > 0 && bd[0] != 0) {
    status = tl_error_set(TL_ERR_RUNTIME, "offsets[0] has to be 0, i.e., the first sequence in the "
                                          "mini-batch has to start from position 0. However, got "
                                          "%lld", (long long)bd[0]);
    goto done;
  }
  if (off && offsets->shape[0] > 0) {
    int64_t last = ((const int64_t *)tl_tensor_data(off))[offsets->shape[0] - 1];
    if (last > n) {
      status = tl_error_set(TL_ERR_RUNTIME, "offsets[-1] can not be greater than input's length "
                                            "%lld but got offsets[-1] of %lld", (long long)n,
                            (long long)last);
      goto done;
    }
  }
  for (int64_t b = 0; b < B; b++) {
    if (bd[b + 1] < bd[b] || bd[b + 1] > n) {
      status = tl_error_set(TL_ERR_RUNTIME, "offsets[%lld] = %lld is out of order or past the %lld "
                                            "indices", (long long)(b + 1), (long long)bd[b + 1],
                            (long long)n);
      goto done;
    }
    for (int64_t i = bd[b]; i < bd[b + 1]; i++)
      bo[i] = b;
  }
  for (int64_t i = B > 0 ? bd[B] : 0; i < n; i++) /* past the last offset: in no bag */
    bo[i] = -1;
  if (!host) {
    status = tl_tensor_empty(bounds, TL_DTYPE_I64, 1, bshape, dev);
    if (status == TL_OK)
      status = tl_tensor_copy(bounds, &bh);
    if (status == TL_OK)
      status = tl_tensor_empty(bag_of, TL_DTYPE_I64, 1, nshape, dev);
    if (status == TL_OK)
      status = tl_tensor_copy(bag_of, &gh);
  }
done:
  if (status != TL_OK) {
    tl_tensor_release(bounds);
    tl_tensor_release(bag_of);
  }
  tl_tensor_release(&ot);
  tl_tensor_release(&oh);
  tl_tensor_release(&bh);
  tl_tensor_release(&gh);
  return status;
}

tl_status tl_nn_embedding_bag(const tl_tensor *weight, const tl_tensor *indices,
                              const tl_tensor *offsets, tl_bag_mode mode, const tl_tensor *psw,
                              bool include_last_offset, int64_t padding_idx, tl_tensor *out,
                              tl_tensor *bag_of, tl_tensor *bag_size, tl_tensor *argmax)
{
  char sp[256], si[256];
  tl_tensor it = {0}, bounds = {0}, pflat = {0}, wt = {0};
  const tl_nn_embedding_kernels *set = kernels(TL_OP_EMBEDDING_BAG, weight->dtype, weight, indices);
  const tl_tensor *idx = NULL, *w = weight;
  tl_status status = set ? check_weight(weight) : tl_error_status();
  if (status == TL_OK && !tl_dtype_is_float(weight->dtype))
    status = tl_error_set(TL_ERR_RUNTIME, "embedding_bag(): expected a floating point weight, got %s",
                          tl_dtype_names[weight->dtype]);
  if (status == TL_OK && !(idx = as_indices("embedding_bag", "indices", indices, &it)))
    status = tl_error_status();
  if (status == TL_OK && psw && (psw->ndim != indices->ndim ||
                                 memcmp(psw->shape, indices->shape, (size_t)psw->ndim * sizeof *psw->shape)))
    status = tl_error_set(TL_ERR_VALUE, "embedding_bag: If per_sample_weights (%s) is not None, "
                                        "then it must have the same shape as the input (%s)",
                          tl_shape_str(sp, sizeof sp, psw->ndim, psw->shape),
                          tl_shape_str(si, sizeof si, indices->ndim, indices->shape));
  /* then PyTorch's order: the offsets, the weights' dtype, the indices' range */
  if (status == TL_OK)
    status = make_bags(indices, offsets, include_last_offset, &bounds, bag_of);
  if (status == TL_OK && psw && psw->dtype != weight->dtype)
    status = tl_error_set(TL_ERR_RUNTIME, "Expected tensor for argument #1 'weight' to have the "
                                          "same type as tensor for argument #1 "
                                          "'per_sample_weights'; but type torchlike.%sTensor does "
                                          "not equal torchlike.%sTensor (while checking arguments "
                                          "for embedding_bag)",
                          tl_dtype_scalar_name(weight->dtype), tl_dtype_scalar_name(psw->dtype));
  if (status == TL_OK)
    status = tl_nn_embedding_bag_check_range(idx, weight->shape[0],
                                             mode == TL_BAG_MAX || padding_idx >= 0);
  if (status == TL_OK && psw && psw->ndim != 1) { /* 2-d input: its weights in one line */
    int64_t flat[1] = {tl_tensor_numel(psw)};
    tl_tensor c = {0};
    status = tl_tensor_to_dtype(&c, psw, psw->dtype);
    if (status == TL_OK) {
      pflat = c;
      pflat.ndim = 1;
      pflat.shape[0] = flat[0];
      pflat.strides[0] = 1;
      psw = &pflat;
    }
  }
  if (status == TL_OK && !tl_tensor_is_contiguous(weight)) {
    status = tl_tensor_to_dtype(&wt, weight, weight->dtype);
    w = &wt;
  }
  int64_t B = bounds.storage ? bounds.shape[0] - 1 : 0, E = weight->ndim == 2 ? weight->shape[1] : 0;
  int64_t oshape[2] = {B, E}, bshape[1] = {B}, ashape[2] = {mode == TL_BAG_MAX ? B : 0, E};
  if (status == TL_OK)
    status = tl_tensor_zeros(out, weight->dtype, 2, oshape, tl_tensor_device(weight));
  if (status == TL_OK)
    status = tl_tensor_empty(bag_size, TL_DTYPE_I64, 1, bshape, tl_tensor_device(weight));
  if (status == TL_OK)
    status = tl_tensor_empty(argmax, TL_DTYPE_I64, 2, ashape, tl_tensor_device(weight));
  if (status == TL_OK)
    status = set->bag_forward(w, idx, &bounds, psw, mode, padding_idx, out, bag_size, argmax);
  if (status != TL_OK) {
    tl_tensor_release(out);
    tl_tensor_release(bag_of);
    tl_tensor_release(bag_size);
    tl_tensor_release(argmax);
  }
  tl_tensor_release(&it);
  tl_tensor_release(&bounds);
  tl_tensor_release(&pflat);
  tl_tensor_release(&wt);
  return status;
}

tl_status tl_nn_embedding_bag_backward(const tl_tensor *g, const tl_tensor *indices,
                                       const tl_tensor *bag_of, const tl_tensor *bag_size,
                                       const tl_tensor *argmax, const tl_tensor *psw,
                                       int64_t num_weights, tl_bag_mode mode, int64_t padding_idx,
                                       tl_tensor *dw)
{
  tl_tensor it = {0}, pflat = {0}, bt = {0}, st = {0}, at = {0};
  const tl_nn_embedding_kernels *set = kernels(TL_OP_EMBEDDING_BAG_BACKWARD, g->dtype, g, indices);
  const tl_tensor *idx = NULL, *bo = NULL, *bs = NULL, *am = NULL;
  tl_status status = set ? TL_OK : tl_error_status();
  if (status == TL_OK && (g->ndim != 2 || !tl_dtype_is_float(g->dtype)))
    status = tl_error_set(TL_ERR_RUNTIME, "_embedding_bag_dense_backward(): expected a 2-D floating "
                                          "point grad, got %d dims of %s", g->ndim,
                          tl_dtype_names[g->dtype]);
  if (status == TL_OK && (!(idx = as_indices("embedding_bag", "indices", indices, &it)) ||
                          !(bo = as_indices("embedding_bag", "offset2bag", bag_of, &bt)) ||
                          !(bs = as_indices("embedding_bag", "bag_size", bag_size, &st)) ||
                          !(am = as_indices("embedding_bag", "max_indices", argmax, &at))))
    status = tl_error_status();
  if (status == TL_OK && (tl_tensor_numel(bo) != tl_tensor_numel(idx) ||
                          tl_tensor_numel(bs) != g->shape[0] ||
                          (mode == TL_BAG_MAX && tl_tensor_numel(am) != tl_tensor_numel(g))))
    status = tl_error_set(TL_ERR_RUNTIME, "_embedding_bag_dense_backward(): offset2bag, bag_size or "
                                          "max_indices do not fit the indices and grad");
  if (status == TL_OK)
    status = tl_nn_embedding_check_range(idx, num_weights);
  if (status == TL_OK && psw) {
    status = tl_tensor_to_dtype(&pflat, psw, g->dtype);
    pflat.ndim = 1;
    pflat.shape[0] = tl_tensor_numel(psw);
    pflat.strides[0] = 1;
    psw = &pflat;
  }
  int64_t shape[2] = {num_weights, g->ndim == 2 ? g->shape[1] : 0};
  if (status == TL_OK)
    status = tl_tensor_zeros(dw, g->dtype, 2, shape, tl_tensor_device(g));
  if (status == TL_OK)
    status = set->bag_backward(g, idx, bo, bs, am, psw, mode, padding_idx, dw);
  if (status != TL_OK)
    tl_tensor_release(dw);
  tl_tensor_release(&it);
  tl_tensor_release(&pflat);
  tl_tensor_release(&bt);
  tl_tensor_release(&st);
  tl_tensor_release(&at);
  return status;
}

void tl_nn_embedding_register(void)
{
  static const tl_op ops[] = {TL_OP_EMBEDDING, TL_OP_EMBEDDING_BACKWARD, TL_OP_EMBEDDING_BAG,
                              TL_OP_EMBEDDING_BAG_BACKWARD};
  for (size_t i = 0; i < sizeof ops / sizeof *ops; i++)
    tl_dispatch_register_set(ops[i], TL_DEVICE_CPU, TL_DTYPES_ALL, &tl_cpu_embedding_kernels);
}
