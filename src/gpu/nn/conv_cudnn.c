/* conv_cudnn.c - the CUDA set of the convolution family (tl_conv.h):
 * convolution, transposed convolution and the weight gradient through
 * cuDNN, im2col/col2im through the kernels of im2col.cu, and the flags of
 * torchlike.backends.cudnn.
 *
 * The three kernels of tl_conv.h map onto cuDNN's three convolutions:
 *   conv    S = W * B   cudnnConvolutionForward        (x = B, y = S)
 *   conv_t  B = W^T * S cudnnConvolutionBackwardData   (dy = S, dx = B)
 *   weight  dW          cudnnConvolutionBackwardFilter (x = B, dy = S)
 * so a transposed convolution is a backward-data, as in PyTorch.  1-d
 * convolutions are 2-d ones with a unit height; 2-d and 3-d go as they
 * are.  Operands are made contiguous in their own dtype (cuDNN reads
 * float16, bfloat16, float32 and float64, computing half types in float);
 * float32 may use TF32 tensor cores when cudnn.allow_tf32 is set.
 *
 * The algorithm of each (direction, shapes, dtype, math) is chosen once and
 * cached: by cuDNN's heuristics (cudnnGetConvolution*Algorithm_v7), or by
 * timing them all (cudnnFind*, on memory of its own; it syncs the device) when
 * cudnn.benchmark is set; cudnn.deterministic keeps only the algorithms
 * cuDNN marks deterministic.  The workspace comes from the caching
 * allocator (a uint8 tensor on the device, released once the call is queued:
 * the pool reuses it on the same stream only).  One cuDNN handle per
 * (thread, device) (tl_gpu_handles.h), made on first use and bound to the
 * current stream at each call.
 *
 * Built without cuDNN (TL_WITH_CUDNN unset: CMake found no cudnn.h or
 * libcudnn), the three raise NotImplementedError; im2col/col2im still run. */
#include "gpu/nn/tl_gpu_conv_pool_norm.h"

#include <stdatomic.h>

#include "gpu/tl_gpu_handles.h"

/* ---- flags (present in every build: the Python module sets them) ---- */

static _Atomic unsigned cudnn_flag_bits = 1u | 8u; /* enabled, allow_tf32 */

void tl_gpu_cudnn_flags_set(tl_gpu_cudnn_flags f)
{
  cudnn_flag_bits = (f.enabled ? 1u : 0) | (f.benchmark ? 2u : 0) | (f.deterministic ? 4u : 0) |
                    (f.allow_tf32 ? 8u : 0);
}

tl_gpu_cudnn_flags tl_gpu_cudnn_flags_get(void)
{
  unsigned b = cudnn_flag_bits;
  return (tl_gpu_cudnn_flags){
      .enabled = b & 1u, .benchmark = b & 2u, .deterministic = b & 4u, .allow_tf32 = b & 8u};
}

#ifdef TL_WITH_CUDNN
#include <cudnn.h>
long tl_gpu_cudnn_version(void) { return (long)cudnnGetVersion(); }
#else
long tl_gpu_cudnn_version(void) { return 0; }
#endif

#ifdef TL_WITH_CUDA
#include <limits.h>
#include <pthread.h>
#include <stdint.h>
#include <string.h>

#include "gpu/nn/tl_gpu_conv.h"
#include "gpu/tl_gpu_host.h"
#include "ndcore/dispatch/tl_op.h"
#include "ndcore/kernels/tl_create.h"
#include "nn/conv/tl_conv.h"
#include "nn/tl_nn_work.h"

/* ---- im2col / col2im ------------------------------------------------------------------ */

static tl_gpu_fold fold_of(const tl_nn_conv_geom *g, int64_t N, int64_t C)
{
  tl_gpu_fold f = {.nsp = g->nsp, .N = N, .C = C};
  for (int d = 0; d < g->nsp; d++) {
    f.kernel[d] = g->kernel[d];
    f.stride[d] = g->stride[d];
    f.padding[d] = g->padding[d];
    f.dilation[d] = g->dilation[d];
    f.big[d] = g->big[d];
    f.small[d] = g->small[d];
  }
  return f;
}

static tl_status gpu_im2col(const tl_tensor *big, const tl_nn_conv_geom *g, tl_tensor *cols)
{
  tl_tensor bt = {0};
  void *stream = NULL;
  tl_status status;
  if ((status = tl_nn_work_in(big, big->dtype, &bt)) != TL_OK ||
      (status = tl_gpu_stream(tl_tensor_device(big), "im2col", &stream)) != TL_OK)
    goto done;
  tl_gpu_fold f = fold_of(g, big->shape[0], big->shape[1]);
  tl_storage_bump(cols->storage);
  status = tl_gpu_launched(tl_gpu_im2col_launch(&f, tl_tensor_data(&bt), tl_tensor_data(cols),
                                                (int)tl_dtype_size(big->dtype), stream),
                           "im2col");
done:
  tl_tensor_release(&bt);
  return status;
}

static tl_status gpu_col2im(const tl_tensor *cols, const tl_nn_conv_geom *g, tl_tensor *big)
{
  tl_dtype work = tl_nn_work_dtype(cols->dtype);
  tl_tensor ct = {0}, yt = {0};
  bool direct = big->dtype == work;
  void *stream = NULL;
  tl_status status;
  if ((status = tl_nn_work_in(cols, work, &ct)) != TL_OK ||
      (!direct && (status = tl_tensor_empty(&yt, work, big->ndim, big->shape,
                                            tl_tensor_device(big))) != TL_OK) ||
      (status = tl_gpu_stream(tl_tensor_device(cols), "col2im", &stream)) != TL_OK)
    goto done;
  tl_gpu_fold f = fold_of(g, big->shape[0], big->shape[1]);
  tl_storage_bump(big->storage);
  if ((status = tl_gpu_launched(tl_gpu_col2im_launch(&f, tl_tensor_data(&ct),
                                                     tl_tensor_data(direct ? big : &yt),
                                                     work == TL_DTYPE_F64, stream),
                                "col2im")) != TL_OK)
    goto done;
  if (!direct)
    status = tl_tensor_copy(big, &yt);
done:
  tl_tensor_release(&ct);
  tl_tensor_release(&yt);
  return status;
}

#ifdef TL_WITH_CUDNN
/* ---- cuDNN ------------------------------------------------------------------------------ */

enum { MAX_DEVICES = 64, CACHE_SIZE = 512 };
enum { DIR_FWD, DIR_BWD_DATA, DIR_BWD_FILTER };

static tl_status cudnn_check(cudnnStatus_t s, const char *what)
{
  if (s == CUDNN_STATUS_SUCCESS)
    return TL_OK;
  return tl_error_set(TL_ERR_RUNTIME, "cuDNN error in %s: %s", what, cudnnGetErrorString(s));
}

static pthread_mutex_t cudnn_lock = PTHREAD_MUTEX_INITIALIZER; /* the algorithm cache */

/* The calling thread's handle of the device (tl_gpu_handles.h: made on
 * first use, or taken from an exited thread), bound to `stream`.  The
 * device is current: the op's tl_gpu_stream made it so. */
static tl_status handle_for(tl_device dev, void *stream, cudnnHandle_t *out)
{
  if (dev.index < 0 || dev.index >= TL_GPU_HANDLE_MAX_DEVICES)
    return tl_error_set(TL_ERR_RUNTIME, "cuDNN: device index %d out of range", dev.index);
  cudnnHandle_t h = tl_gpu_handle_get(TL_GPU_HANDLE_CUDNN, dev.index);
  if (!h) {
    if (cudnn_check(cudnnCreate(&h), "cudnnCreate") != TL_OK)
      return tl_error_status();
    if (tl_gpu_handle_adopt(TL_GPU_HANDLE_CUDNN, dev.index, h) != TL_OK) {
      cudnnDestroy(h);
      return tl_error_status();
    }
  }
  *out = h;
  return cudnn_check(cudnnSetStream(h, (cudaStream_t)stream), "cudnnSetStream");
}

/* What an algorithm is chosen for: every field set, padding zeroed (memcmp). */
typedef struct {
  int dir, device, dtype, math, deterministic, benchmark, nd, groups;
  int big[5], small[5], filter[5], pad[3], stride[3], dilation[3];
} algo_key;

static struct {
  algo_key key;
  int algo;
} algo_cache[CACHE_SIZE];
static int algo_cache_used, algo_cache_next;

static bool cache_find(const algo_key *k, int *algo)
{
  bool found = false;
  pthread_mutex_lock(&cudnn_lock);
  for (int i = 0; i < algo_cache_used && !found; i++)
    if (!memcmp(&algo_cache[i].key, k, sizeof *k)) {
      *algo = algo_cache[i].algo;
      found = true;
    }
  pthread_mutex_unlock(&cudnn_lock);
  return found;
}

static void cache_put(const algo_key *k, int algo)
{
  pthread_mutex_lock(&cudnn_lock);
  int at = algo_cache_used < CACHE_SIZE ? algo_cache_used++ : algo_cache_next++ % CACHE_SIZE;
  algo_cache[at].key = *k;
  algo_cache[at].algo = algo;
  pthread_mutex_unlock(&cudnn_lock);
}

/* The descriptors of one call, and the key of its algorithm. */
typedef struct {
  cudnnTensorDescriptor_t big, small;
  cudnnFilterDescriptor_t filter;
  cudnnConvolutionDescriptor_t conv;
  cudnnDataType_t data;
  algo_key key;
} conv_descs;

static void descs_release(conv_descs *d)
{
  if (d->big)
    cudnnDestroyTensorDescriptor(d->big);
  if (d->small)
    cudnnDestroyTensorDescriptor(d->small);
  if (d->filter)
    cudnnDestroyFilterDescriptor(d->filter);
  if (d->conv)
    cudnnDestroyConvolutionDescriptor(d->conv);
}

static tl_status set_tensor(cudnnTensorDescriptor_t desc, cudnnDataType_t data, int nd,
                            const int *dims)
{
  int strides[5];
  strides[nd - 1] = 1;
  for (int i = nd - 2; i >= 0; i--)
    strides[i] = strides[i + 1] * dims[i + 1];
  return cudnn_check(cudnnSetTensorNdDescriptor(desc, data, nd, dims, strides),
                     "cudnnSetTensorNdDescriptor");
}

/* dims of (n0, n1, *sp) with a unit dim before a single spatial dim; false
 * when a size or the element count does not fit cuDNN's int. */
static bool dims_of(int nsp, int64_t n0, int64_t n1, const int64_t *sp, int *dims)
{
  int64_t v[5] = {n0, n1, 1, 1, 1}, count = n0 * n1;
  int nd = nsp < 2 ? 4 : nsp + 2;
  for (int d = 0; d < nsp; d++) {
    v[nd - nsp + d] = sp[d];
    count *= sp[d];
  }
  for (int i = 0; i < nd; i++) {
    if (v[i] > INT_MAX)
      return false;
    dims[i] = (int)v[i];
  }
  return count <= INT_MAX;
}

static tl_status descs_make(conv_descs *d, const tl_nn_conv_geom *g, int64_t N, int64_t Cb,
                            int64_t Cs, tl_dtype dtype, tl_device dev, int dir)
{
  tl_gpu_cudnn_flags flags = tl_gpu_cudnn_flags_get();
  int nd = g->nsp < 2 ? 4 : g->nsp + 2, nsp2 = nd - 2;
  int pad[3] = {0, 0, 0}, stride[3] = {1, 1, 1}, dil[3] = {1, 1, 1};
  memset(d, 0, sizeof *d);
  algo_key *k = &d->key;
  cudnnDataType_t compute;
  cudnnMathType_t math;
  switch (dtype) {
  case TL_DTYPE_F16:
    d->data = CUDNN_DATA_HALF;
    compute = CUDNN_DATA_FLOAT;
    math = CUDNN_TENSOR_OP_MATH;
    break;
  case TL_DTYPE_BF16:
    d->data = CUDNN_DATA_BFLOAT16;
    compute = CUDNN_DATA_FLOAT;
    math = CUDNN_TENSOR_OP_MATH;
    break;
  case TL_DTYPE_F64:
    d->data = CUDNN_DATA_DOUBLE;
    compute = CUDNN_DATA_DOUBLE;
    math = CUDNN_DEFAULT_MATH;
    break;
  default:
    d->data = CUDNN_DATA_FLOAT;
    compute = CUDNN_DATA_FLOAT;
    math = flags.allow_tf32 ? CUDNN_DEFAULT_MATH : CUDNN_FMA_MATH;
    break;
  }
  for (int i = 0; i < g->nsp; i++) {
    if (g->padding[i] > INT_MAX || g->stride[i] > INT_MAX || g->dilation[i] > INT_MAX)
      goto too_big;
    pad[nsp2 - g->nsp + i] = (int)g->padding[i];
    stride[nsp2 - g->nsp + i] = (int)g->stride[i];
    dil[nsp2 - g->nsp + i] = (int)g->dilation[i];
  }
  if (!dims_of(g->nsp, N, Cb, g->big, k->big) || !dims_of(g->nsp, N, Cs, g->small, k->small) ||
      !dims_of(g->nsp, Cs, Cb / g->groups, g->kernel, k->filter) || g->groups > INT_MAX)
    goto too_big;
  k->dir = dir;
  k->device = dev.index;
  k->dtype = (int)dtype;
  k->math = (int)math;
  k->deterministic = flags.deterministic;
  k->benchmark = flags.benchmark;
  k->nd = nd;
  k->groups = (int)g->groups;
  memcpy(k->pad, pad, sizeof pad);
  memcpy(k->stride, stride, sizeof stride);
  memcpy(k->dilation, dil, sizeof dil);
  if (cudnn_check(cudnnCreateTensorDescriptor(&d->big), "cudnnCreateTensorDescriptor") != TL_OK ||
      cudnn_check(cudnnCreateTensorDescriptor(&d->small), "cudnnCreateTensorDescriptor") != TL_OK ||
      cudnn_check(cudnnCreateFilterDescriptor(&d->filter), "cudnnCreateFilterDescriptor") !=
          TL_OK ||
      cudnn_check(cudnnCreateConvolutionDescriptor(&d->conv), "cudnnCreateConvolutionDescriptor") !=
          TL_OK ||
      set_tensor(d->big, d->data, nd, k->big) != TL_OK ||
      set_tensor(d->small, d->data, nd, k->small) != TL_OK ||
      cudnn_check(cudnnSetFilterNdDescriptor(d->filter, d->data, CUDNN_TENSOR_NCHW, nd, k->filter),
                  "cudnnSetFilterNdDescriptor") != TL_OK ||
      cudnn_check(cudnnSetConvolutionNdDescriptor(d->conv, nsp2, pad, stride, dil,
                                                  CUDNN_CROSS_CORRELATION, compute),
                  "cudnnSetConvolutionNdDescriptor") != TL_OK ||
      cudnn_check(cudnnSetConvolutionGroupCount(d->conv, (int)g->groups),
                  "cudnnSetConvolutionGroupCount") != TL_OK ||
      cudnn_check(cudnnSetConvolutionMathType(d->conv, math), "cudnnSetConvolutionMathType") !=
          TL_OK) {
    descs_release(d);
    return tl_error_status();
  }
  return TL_OK;
too_big:
  return tl_error_set(TL_ERR_NOT_IMPLEMENTED, "convolution on CUDA: a size or element count "
                                              "past 2^31 - 1 (cuDNN's limit); split the batch");
}

/* The algorithm for d (cached), and its workspace size. */
static tl_status choose_algo(cudnnHandle_t h, conv_descs *d, int *algo, size_t *ws)
{
  enum { N_ALGOS = 16 };
  int dir = d->key.dir, n = 0;
  bool det = d->key.deterministic, bench = d->key.benchmark;
  cudnnStatus_t st = CUDNN_STATUS_SUCCESS;
  if (!cache_find(&d->key, algo)) {
    int found = -1;
    if (dir == DIR_FWD) {
      cudnnConvolutionFwdAlgoPerf_t perf[N_ALGOS];
      st = bench ? cudnnFindConvolutionForwardAlgorithm(h, d->big, d->filter, d->conv, d->small,
                                                        N_ALGOS, &n, perf)
                 : cudnnGetConvolutionForwardAlgorithm_v7(h, d->big, d->filter, d->conv, d->small,
                                                          N_ALGOS, &n, perf);
      for (int i = 0; i < n && found < 0 && st == CUDNN_STATUS_SUCCESS; i++)
        if (perf[i].status == CUDNN_STATUS_SUCCESS &&
            (!det || perf[i].determinism == CUDNN_DETERMINISTIC))
          found = (int)perf[i].algo;
    } else if (dir == DIR_BWD_DATA) {
      cudnnConvolutionBwdDataAlgoPerf_t perf[N_ALGOS];
      st = bench ? cudnnFindConvolutionBackwardDataAlgorithm(h, d->filter, d->small, d->conv,
                                                             d->big, N_ALGOS, &n, perf)
                 : cudnnGetConvolutionBackwardDataAlgorithm_v7(h, d->filter, d->small, d->conv,
                                                               d->big, N_ALGOS, &n, perf);
      for (int i = 0; i < n && found < 0 && st == CUDNN_STATUS_SUCCESS; i++)
        if (perf[i].status == CUDNN_STATUS_SUCCESS &&
            (!det || perf[i].determinism == CUDNN_DETERMINISTIC))
          found = (int)perf[i].algo;
    } else {
      cudnnConvolutionBwdFilterAlgoPerf_t perf[N_ALGOS];
      st = bench ? cudnnFindConvolutionBackwardFilterAlgorithm(h, d->big, d->small, d->conv,
                                                               d->filter, N_ALGOS, &n, perf)
                 : cudnnGetConvolutionBackwardFilterAlgorithm_v7(h, d->big, d->small, d->conv,
                                                                 d->filter, N_ALGOS, &n, perf);
      for (int i = 0; i < n && found < 0 && st == CUDNN_STATUS_SUCCESS; i++)
        if (perf[i].status == CUDNN_STATUS_SUCCESS &&
            (!det || perf[i].determinism == CUDNN_DETERMINISTIC))
          found = (int)perf[i].algo;
    }
    if (cudnn_check(st, "choosing a convolution algorithm") != TL_OK)
      return tl_error_status();
    if (found < 0)
      return tl_error_set(TL_ERR_RUNTIME, "cuDNN has no %salgorithm for this convolution",
                          det ? "deterministic " : "");
    *algo = found;
    cache_put(&d->key, found);
  }
  if (dir == DIR_FWD)
    st = cudnnGetConvolutionForwardWorkspaceSize(h, d->big, d->filter, d->conv, d->small,
                                                 (cudnnConvolutionFwdAlgo_t)*algo, ws);
  else if (dir == DIR_BWD_DATA)
    st = cudnnGetConvolutionBackwardDataWorkspaceSize(h, d->filter, d->small, d->conv, d->big,
                                                      (cudnnConvolutionBwdDataAlgo_t)*algo, ws);
  else
    st = cudnnGetConvolutionBackwardFilterWorkspaceSize(h, d->big, d->small, d->conv, d->filter,
                                                        (cudnnConvolutionBwdFilterAlgo_t)*algo, ws);
  return cudnn_check(st, "the convolution's workspace size");
}

/* out += bias along dim 1, by the elementwise add on the device: one path
 * for every dtype (the legacy cudnnAddTensor lists no bfloat16). */
static tl_status add_bias(tl_tensor *out, const tl_tensor *bias)
{
  tl_tensor b;
  tl_tensor_view_of(&b, bias);
  b.ndim = out->ndim - 1; /* (C, 1, ...): broadcast against (N, C, ...) */
  for (int i = 0; i < b.ndim; i++) {
    b.shape[i] = i == 0 ? bias->shape[0] : 1;
    b.strides[i] = i == 0 ? bias->strides[0] : 0;
  }
  tl_arg in[2] = {{.t = out}, {.t = &b}};
  tl_status status = tl_op_map(TL_OP_ADD, 2, in, out, NULL);
  tl_tensor_release(&b);
  return status;
}

/* out = 0 + bias along dim 1 (bias NULL: zeros), for sums over nothing. */
static tl_status zeros_plus_bias(tl_tensor *out, const tl_tensor *bias)
{
  tl_status status = tl_tensor_fill(out, (tl_scalar){.kind = TL_KIND_INT, .v.i = 0});
  return status == TL_OK && bias ? add_bias(out, bias) : status;
}

/* cuDNN documents only a 4-byte minimum for tensor and filter pointers,
 * but its algorithms are chosen (and cached here) from descriptors alone,
 * which carry no address, and their kernels may use vector loads that
 * assume more; PyTorch's cuDNN path keys its plans on 16-byte alignment
 * and its tensors start on allocator blocks.  tl_nn_work_in passes a
 * contiguous operand as a view at any offset (x[1:] of a batch starts one
 * image in, w[:, 1:] ... any element), so one whose address is not a
 * multiple of 16 is replaced by a copy in fresh pool memory, as
 * fft_cufft.c does for r2c input.  t is a work operand (view or copy) that
 * run_cudnn releases; an empty one (the written operand) is left alone. */
static tl_status align_operand(tl_tensor *t)
{
  if (!t->storage || (uintptr_t)tl_tensor_data(t) % 16 == 0)
    return TL_OK;
  tl_tensor copy = {0};
  tl_status status = tl_tensor_empty(&copy, t->dtype, t->ndim, t->shape, tl_tensor_device(t));
  if (status == TL_OK && (status = tl_tensor_copy(&copy, t)) == TL_OK) {
    tl_tensor_release(t);
    *t = copy;
    return TL_OK;
  }
  tl_tensor_release(&copy);
  return status;
}

/* One convolution of direction dir: B = (N, Cb, *big), S = (N, Cs, *small),
 * W = (Cs, Cb/g, *k); `out` (the written one of big, small, weight) is
 * allocated contiguous by the entry points; bias (or NULL) is added to it. */
static tl_status run_cudnn(int dir, const tl_tensor *big, const tl_tensor *small,
                           const tl_tensor *weight, const tl_tensor *bias, const tl_nn_conv_geom *g,
                           tl_tensor *out)
{
  const char *what = dir == DIR_FWD        ? "convolution"
                     : dir == DIR_BWD_DATA ? "convolution (backward data)"
                                           : "_convolution_backward_weight";
  const tl_tensor *in = dir == DIR_FWD ? big : small;
  tl_device dev = tl_tensor_device(in);
  tl_tensor bt = {0}, st = {0}, wt = {0}, ws = {0};
  conv_descs d = {0};
  cudnnHandle_t h = NULL;
  void *stream = NULL;
  int algo = 0;
  size_t ws_size = 0;
  tl_status status;
  if (!tl_gpu_cudnn_flags_get().enabled) {
    /* no other CUDA convolution exists to fall back on */
    return tl_error_set(TL_ERR_NOT_IMPLEMENTED,
                        "%s on CUDA runs through cuDNN, and "
                        "torchlike.backends.cudnn.enabled is False",
                        what);
  }
  int64_t N = (dir == DIR_FWD ? big : small)->shape[0];
  int64_t Cb = (dir == DIR_BWD_FILTER ? out : weight)->shape[1] * g->groups;
  int64_t Cs = (dir == DIR_BWD_FILTER ? out : weight)->shape[0];
  if (tl_tensor_numel(out) == 0)
    return TL_OK;
  /* nothing to sum (cuDNN takes no empty dim): zeros, plus the bias */
  if (N == 0 || Cb == 0 || Cs == 0)
    return zeros_plus_bias(out, bias);
  /* the inputs contiguous in their own dtype (the entry points checked it is in's) */
  if ((big != out && (status = tl_nn_work_in(big, big->dtype, &bt)) != TL_OK) ||
      (small != out && (status = tl_nn_work_in(small, small->dtype, &st)) != TL_OK) ||
      (weight != out && (status = tl_nn_work_in(weight, weight->dtype, &wt)) != TL_OK) ||
      (status = align_operand(&bt)) != TL_OK || (status = align_operand(&st)) != TL_OK ||
      (status = align_operand(&wt)) != TL_OK)
    goto done;
  if ((status = tl_gpu_stream(dev, what, &stream)) != TL_OK ||
      (status = handle_for(dev, stream, &h)) != TL_OK ||
      (status = descs_make(&d, g, N, Cb, Cs, in->dtype, dev, dir)) != TL_OK)
    goto done;
  const void *pb = big == out ? NULL : tl_tensor_data(&bt);
  const void *ps = small == out ? NULL : tl_tensor_data(&st);
  const void *pw = weight == out ? NULL : tl_tensor_data(&wt);
  void *po = tl_tensor_data(out);
  if ((status = choose_algo(h, &d, &algo, &ws_size)) != TL_OK)
    goto done;
  int64_t nbytes = (int64_t)ws_size;
  if (ws_size && (status = tl_tensor_empty(&ws, TL_DTYPE_U8, 1, &nbytes, dev)) != TL_OK)
    goto done;
  void *pws = ws_size ? tl_tensor_data(&ws) : NULL;
  /* alpha and beta are float for float/half data, double for double */
  double one_d = 1, zero_d = 0;
  float one_f = 1, zero_f = 0;
  bool f64 = in->dtype == TL_DTYPE_F64;
  const void *one = f64 ? (const void *)&one_d : (const void *)&one_f;
  const void *zero = f64 ? (const void *)&zero_d : (const void *)&zero_f;
  tl_storage_bump(out->storage);
  cudnnStatus_t cs;
  if (dir == DIR_FWD)
    cs = cudnnConvolutionForward(h, one, d.big, pb, d.filter, pw, d.conv,
                                 (cudnnConvolutionFwdAlgo_t)algo, pws, ws_size, zero, d.small, po);
  else if (dir == DIR_BWD_DATA)
    cs = cudnnConvolutionBackwardData(h, one, d.filter, pw, d.small, ps, d.conv,
                                      (cudnnConvolutionBwdDataAlgo_t)algo, pws, ws_size, zero,
                                      d.big, po);
  else
    cs = cudnnConvolutionBackwardFilter(h, one, d.big, pb, d.small, ps, d.conv,
                                        (cudnnConvolutionBwdFilterAlgo_t)algo, pws, ws_size, zero,
                                        d.filter, po);
  if ((status = cudnn_check(cs, what)) != TL_OK)
    goto done;
  if (bias)
    status = add_bias(out, bias);
done:
  descs_release(&d);
  tl_tensor_release(&bt);
  tl_tensor_release(&st);
  tl_tensor_release(&wt);
  tl_tensor_release(&ws);
  return status;
}

static tl_status gpu_conv(const tl_tensor *big, const tl_tensor *weight, const tl_tensor *bias,
                          const tl_nn_conv_geom *g, tl_tensor *small)
{
  return run_cudnn(DIR_FWD, big, small, weight, bias, g, small);
}

static tl_status gpu_conv_t(const tl_tensor *small, const tl_tensor *weight, const tl_tensor *bias,
                            const tl_nn_conv_geom *g, tl_tensor *big)
{
  return run_cudnn(DIR_BWD_DATA, big, small, weight, bias, g, big);
}

static tl_status gpu_weight(const tl_tensor *small, const tl_tensor *big, const tl_nn_conv_geom *g,
                            tl_tensor *grad_weight)
{
  return run_cudnn(DIR_BWD_FILTER, big, small, grad_weight, NULL, g, grad_weight);
}
#else
/* ---- without cuDNN ---------------------------------------------------------------------- */

static tl_status no_cudnn(void)
{
  return tl_error_set(TL_ERR_NOT_IMPLEMENTED,
                      "convolution on CUDA needs cuDNN, and this build "
                      "of torchlike has none (CMake found no cudnn.h and libcudnn: install "
                      "cuDNN or the nvidia-cudnn wheel, then rebuild)");
}

static tl_status gpu_conv(const tl_tensor *big, const tl_tensor *weight, const tl_tensor *bias,
                          const tl_nn_conv_geom *g, tl_tensor *small)
{
  (void)big, (void)weight, (void)bias, (void)g, (void)small;
  return no_cudnn();
}

static tl_status gpu_conv_t(const tl_tensor *small, const tl_tensor *weight, const tl_tensor *bias,
                            const tl_nn_conv_geom *g, tl_tensor *big)
{
  (void)big, (void)weight, (void)bias, (void)g, (void)small;
  return no_cudnn();
}

static tl_status gpu_weight(const tl_tensor *small, const tl_tensor *big, const tl_nn_conv_geom *g,
                            tl_tensor *grad_weight)
{
  (void)small, (void)big, (void)g, (void)grad_weight;
  return no_cudnn();
}
#endif

void tl_gpu_nn_conv_register(void)
{
  static const tl_nn_conv_kernels set = {
      .conv = gpu_conv,
      .conv_t = gpu_conv_t,
      .weight = gpu_weight,
      .im2col = gpu_im2col,
      .col2im = gpu_col2im,
  };
  tl_nn_conv_register_set(TL_DEVICE_CUDA, &set);
}

void tl_gpu_conv_pool_norm_register(void)
{
  tl_gpu_nn_conv_register();
  tl_gpu_nn_pool_register();
  tl_gpu_nn_norm_register();
}
#endif
