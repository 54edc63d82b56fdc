/* fft.c - the FFT primitives' op layer on devices (tl_gpu_fft.h).
 *
 * Legend: x (... dims ...) -> permute -> (batch..., n1 .. nk) contiguous ->
 * the executor -> (batch..., m1 .. mk) -> permute back, where m = n except
 * r2c's last (n / 2 + 1) and c2r's last (last_size).  Scaling, padding and
 * narrowing are torchlike/fft.py's, with ordinary ops.                   */
#include "gpu/fft/tl_gpu_fft.h"

#include "ndcore/kernels/tl_create.h"
#include "ndcore/tensor/tl_views.h"

static tl_fft_exec executors[TL_DEVICE_COUNT];

void tl_fft_register_device(tl_device_type type, tl_fft_exec exec) { executors[type] = exec; }

static const char *const kind_names[] = {"_fft_c2c", "_fft_r2c", "_fft_c2r"};

/* A one-sided signal's entries 0 and (n even) n / 2 stand for themselves in
 * the Hermitian extension, so only their real parts count: pocketfft reads
 * only those, while cuFFT's c2r leaves other imaginary parts undefined.
 * Zeroing them in the work copy gives every device the CPU's answer. */
static tl_status drop_self_conjugate_imag(tl_tensor *work, int64_t last_size)
{
  int last = work->ndim - 1;
  tl_scalar zero = {.kind = TL_KIND_FLOAT, .v.f = 0.0};
  for (int which = 0; which < 2; which++) {
    int64_t at = which == 0 ? 0 : last_size / 2;
    if (which == 1 && (last_size % 2 || at == 0))
      break;
    tl_tensor im = {0};
    if (tl_view_complex_part(&im, work, true) != TL_OK)
      return tl_error_status();
    tl_status st = tl_view_select(&im, last, at);
    if (st == TL_OK)
      st = tl_tensor_fill(&im, zero);
    tl_tensor_release(&im);
    if (st != TL_OK)
      return st;
  }
  return TL_OK;
}

/* One executor call over x's dims[0 .. k) (at most TL_FFT_MAX_RANK). */
static tl_status run_pass(tl_tensor *out, const tl_tensor *x, tl_fft_kind kind, int k,
                          const int64_t *dims, bool inverse, int64_t last_size, tl_fft_exec exec)
{
  int nd = x->ndim, j = 0;
  int64_t perm[TL_MAX_DIMS], back[TL_MAX_DIMS], shape[TL_MAX_DIMS];
  bool in_pass[TL_MAX_DIMS] = {false};
  tl_fft_desc d = {.kind = kind, .inverse = inverse, .rank = k, .batch = 1};
  tl_tensor view = {0}, work = {0}, result = {0};
  tl_device dev = tl_tensor_device(x);
  tl_dtype odtype = kind == TL_FFT_R2C   ? tl_dtype_to_complex(x->dtype)
                    : kind == TL_FFT_C2R ? tl_dtype_to_real(x->dtype)
                                         : x->dtype;
  for (int i = 0; i < k; i++)
    in_pass[dims[i]] = true;
  for (int i = 0; i < nd; i++)
    if (!in_pass[i]) {
      perm[j++] = i;
      d.batch *= x->shape[i];
    }
  for (int i = 0; i < k; i++)
    perm[j++] = dims[i];
  for (int i = 0; i < nd; i++)
    back[perm[i]] = i;
  if (tl_view_permute(&view, x, nd, perm) != TL_OK)
    goto fail;
  /* c2r always works on a copy: it writes over its input */
  if (kind == TL_FFT_C2R || !tl_tensor_is_contiguous(&view)) {
    if (tl_tensor_empty(&work, x->dtype, nd, view.shape, dev) != TL_OK ||
        tl_tensor_copy(&work, &view) != TL_OK)
      goto fail;
  } else {
    tl_tensor_view_of(&work, &view);
  }
  memcpy(shape, view.shape, sizeof(int64_t) * (size_t)nd);
  for (int i = 0; i < k; i++)
    d.n[i] = shape[nd - k + i];
  if (kind == TL_FFT_R2C)
    shape[nd - 1] = d.n[k - 1] / 2 + 1;
  if (kind == TL_FFT_C2R) {
    if (shape[nd - 1] != last_size / 2 + 1) {
      tl_error_set(TL_ERR_RUNTIME, "%s(): the one-sided dim has %lld entries, expected %lld "
                   "for a real signal of %lld", kind_names[kind], (long long)shape[nd - 1],
                   (long long)(last_size / 2 + 1), (long long)last_size);
      goto fail;
    }
    d.n[k - 1] = shape[nd - 1] = last_size;
  }
  if (tl_tensor_empty(&result, odtype, nd, shape, dev) != TL_OK)
    goto fail;
  if (tl_tensor_numel(&result) > 0) {
    if (kind == TL_FFT_C2R && drop_self_conjugate_imag(&work, last_size) != TL_OK)
      goto fail;
    if (exec(&d, &work, &result) != TL_OK)
      goto fail;
  }
  if (tl_view_permute(out, &result, nd, back) != TL_OK)
    goto fail;
  tl_tensor_release(&view);
  tl_tensor_release(&work);
  tl_tensor_release(&result);
  return TL_OK;
fail:
  tl_tensor_release(&view);
  tl_tensor_release(&work);
  tl_tensor_release(&result);
  return tl_error_status();
}

/* c2c over dims[0 .. n), TL_FFT_MAX_RANK at a time from the last: *cur (a
 * reference the caller holds) is replaced by each pass's result. */
static tl_status c2c_passes(tl_tensor *cur, int n, const int64_t *dims, bool inverse,
                            tl_fft_exec exec)
{
  while (n > 0) {
    int k = n < TL_FFT_MAX_RANK ? n : TL_FFT_MAX_RANK;
    tl_tensor next = {0};
    tl_status st = run_pass(&next, cur, TL_FFT_C2C, k, dims + n - k, inverse, 0, exec);
    tl_tensor_release(cur);
    if (st != TL_OK)
      return st;
    *cur = next;
    n -= k;
  }
  return TL_OK;
}

static tl_status check(const tl_tensor *in, tl_fft_kind kind, int ndims, const int64_t *dims,
                       int64_t last_size, tl_fft_exec *exec)
{
  char dev[32];
  const char *name = kind_names[kind];
  bool want_complex = kind != TL_FFT_R2C;
  tl_dtype d = in->dtype;
  bool ok = want_complex ? d == TL_DTYPE_C64 || d == TL_DTYPE_C128
                         : d == TL_DTYPE_F32 || d == TL_DTYPE_F64;
  if (!ok)
    return tl_error_set(TL_ERR_RUNTIME, "%s(): expected a %s input, got %s", name,
                        want_complex ? "complex64 or complex128" : "float32 or float64",
                        tl_dtype_names[d]);
  if (ndims < 1 || ndims > in->ndim)
    return tl_error_set(TL_ERR_RUNTIME, "%s(): expected 1 to %d dims, got %d", name, in->ndim,
                        ndims);
  uint64_t seen = 0;
  for (int i = 0; i < ndims; i++) {
    if (dims[i] < 0 || dims[i] >= in->ndim || (seen >> dims[i] & 1))
      return tl_error_set(TL_ERR_RUNTIME, "%s(): dims must be distinct and in [0, %d)", name,
                          in->ndim);
    seen |= 1ull << dims[i];
    if (in->shape[dims[i]] < 1)
      return tl_error_set(TL_ERR_RUNTIME, "%s(): invalid number of data points (%lld) "
                          "specified", name, (long long)in->shape[dims[i]]);
  }
  if (kind == TL_FFT_C2R && last_size < 1)
    return tl_error_set(TL_ERR_RUNTIME, "%s(): invalid number of data points (%lld) specified",
                        name, (long long)last_size);
  *exec = executors[tl_tensor_device(in).type];
  if (!*exec)
    return tl_error_set(TL_ERR_NOT_IMPLEMENTED, "%s(): no FFT kernel for device %s", name,
                        tl_device_str(dev, sizeof dev, tl_tensor_device(in)));
  return TL_OK;
}

tl_status tl_fft_run(tl_tensor *out, const tl_tensor *in, tl_fft_kind kind, int ndims,
                     const int64_t *dims, bool inverse, int64_t last_size)
{
  tl_fft_exec exec = NULL;
  tl_tensor cur = {0};
  if (check(in, kind, ndims, dims, last_size, &exec) != TL_OK)
    return tl_error_status();
  switch (kind) {
  case TL_FFT_C2C:
    tl_tensor_view_of(&cur, in);
    if (c2c_passes(&cur, ndims, dims, inverse, exec) != TL_OK)
      return tl_error_status();
    break;
  case TL_FFT_R2C: {
    /* r2c over the last group (the one-sided dim is dims' last), then
     * forward c2c over the rest: NumPy's rfftn, in at most two steps */
    int k = ndims < TL_FFT_MAX_RANK ? ndims : TL_FFT_MAX_RANK;
    if (run_pass(&cur, in, TL_FFT_R2C, k, dims + ndims - k, false, 0, exec) != TL_OK ||
        c2c_passes(&cur, ndims - k, dims, false, exec) != TL_OK)
      return tl_error_status();
    break;
  }
  case TL_FFT_C2R: {
    /* inverse c2c over all but the last dim, then a rank-1 c2r: NumPy's
     * irfftn.  A rank-k c2r would be one pass, but cuFFT's result on
     * input that is not Hermitian in the other dims is not defined, and
     * the gradients feed it such input. */
    tl_tensor_view_of(&cur, in);
    tl_tensor next = {0};
    if (c2c_passes(&cur, ndims - 1, dims, true, exec) != TL_OK)
      return tl_error_status();
    tl_status st = run_pass(&next, &cur, TL_FFT_C2R, 1, dims + ndims - 1, true, last_size, exec);
    tl_tensor_release(&cur);
    if (st != TL_OK)
      return st;
    cur = next;
    break;
  }
  }
  *out = cur;
  return TL_OK;
}
