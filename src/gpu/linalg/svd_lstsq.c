/* svd_lstsq.c - svd/svdvals and lstsq's op layer on devices
 * (tl_gpu_svd_lstsq.h): the CPU's checks, messages, packed column-major
 * copies and output shapes (linalg.c, through tl_lapack.h), the work left
 * on the device but for one host read in svd.
 *
 * svd: each matrix's max |a| is reduced on the device and read on the host
 * together with the executor's convergence infos (one sync per call, which
 * raising needs anyway).  As on the CPU, a NaN raises naming its batch
 * element (nothing after it is factored), an inf gives NaN factors, and a
 * matrix that does not converge raises with the solver's info.  V^H is
 * the executor's V conjugated in place, returned as its transposed view.
 * Empty matrices go to the hosted wrapper (the CPU's identities).
 *
 * lstsq: 'gels' only on CUDA, as PyTorch's CUDA lstsq (its message).  A is
 * assumed of full rank and not screened for infs or NaNs (PyTorch's CUDA
 * path does neither), so nothing syncs; residuals (m > n) are the squared
 * norms of the rows past n of Q^H B, a device reduction.                  */
#include "gpu/linalg/tl_gpu_svd_lstsq.h"

#include <complex.h>
#include <math.h>
#include <string.h>

#include "gpu/linalg/tl_gpu_linalg.h"
#include "ndcore/dispatch/tl_op.h"
#include "ndcore/kernels/tl_create.h"
#include "ndcore/kernels/tl_reduce.h"
#include "ndcore/linalg/tl_lapack.h"
#include "ndcore/linalg/tl_linalg.h"
#include "ndcore/tensor/tl_backend.h"

static const tl_svd_lstsq_exec *executors[TL_DEVICE_COUNT];

void tl_svd_lstsq_register_device(tl_device_type type, const tl_svd_lstsq_exec *exec)
{
  executors[type] = exec;
}

static const tl_svd_lstsq_exec *executor(const tl_tensor *a, const char *fn)
{
  char dev[32];
  const tl_svd_lstsq_exec *e = executors[tl_tensor_device(a).type];
  if (!e)
    tl_error_set(TL_ERR_NOT_IMPLEMENTED, "%s: no kernel for device %s", fn,
                 tl_device_str(dev, sizeof dev, tl_tensor_device(a)));
  return e;
}

tl_tensor tl_gpu_flat_part(const tl_tensor *t, int64_t at, int64_t len)
{
  tl_tensor v = *t;
  v.ndim = 1;
  v.offset += at;
  v.shape[0] = len;
  v.strides[0] = 1;
  return v;
}

/* ---- svd ------------------------------------------------------------------------------ */

tl_status tl_gpu_max_abs_per_matrix(tl_tensor *host, const tl_tensor *a, int nb)
{
  tl_tensor acc = {0};
  int64_t shape[TL_MAX_DIMS];
  memcpy(shape, a->shape, sizeof shape);
  shape[nb] = shape[nb + 1] = 1;
  tl_status st = tl_tensor_empty(&acc, tl_reduce_acc_dtype(TL_RK_ABSMAX, a->dtype), nb + 2, shape,
                                 tl_tensor_device(a));
  if (st == TL_OK)
    st = tl_reduce_pass(TL_RK_ABSMAX, a, 3ull << nb, a->dtype, &acc, NULL, NULL);
  if (st == TL_OK)
    st = tl_backend_tensor_to(host, &acc, tl_device_cpu(), TL_DTYPE_F64, false);
  if (acc.storage)
    tl_tensor_release(&acc);
  return st;
}

tl_status tl_gpu_fill_nan(tl_tensor part)
{
  tl_scalar nan = tl_dtype_is_complex(part.dtype)
                      ? (tl_scalar){.kind = TL_KIND_COMPLEX, .v.c = CMPLX(NAN, NAN)}
                      : (tl_scalar){.kind = TL_KIND_FLOAT, .v.f = NAN};
  return tl_tensor_fill(&part, nan);
}

tl_status tl_gpu_info_first_failure(const tl_tensor *info, int64_t run, int64_t *at, int *err)
{
  tl_tensor host = {0};
  *at = -1;
  if (run == 0)
    return TL_OK;
  tl_tensor part = tl_gpu_flat_part(info, 0, run);
  if (tl_backend_tensor_to(&host, &part, tl_device_cpu(), TL_DTYPE_I32, false) != TL_OK)
    return tl_error_status();
  const int32_t *v = tl_tensor_data(&host);
  for (int64_t i = 0; i < run && *at < 0; i++)
    if (v[i] > 0) {
      *at = i;
      *err = v[i];
    }
  tl_tensor_release(&host);
  return TL_OK;
}

tl_status tl_gpu_linalg_svd(tl_tensor *u, tl_tensor *s, tl_tensor *vh, const tl_tensor *a,
                            bool full_matrices, bool compute_uv)
{
  const char *fn = compute_uv ? "linalg.svd" : "linalg.svdvals";
  const tl_svd_lstsq_exec *exec;
  tl_status st;
  if ((st = tl_lapack_check_matrix(fn, a, false)) != TL_OK)
    return st;
  const int nb = a->ndim - 2;
  const int64_t m = a->shape[nb], n = a->shape[nb + 1], k = m < n ? m : n;
  const int64_t count = tl_lapack_batch_count(nb, a->shape);
  if (k == 0 || count == 0) /* nothing to factor: the CPU's identities */
    return tl_gpu_hosted_svd(u, s, vh, a, full_matrices, compute_uv);
  if (!(exec = executor(a, fn)))
    return tl_error_status();
  const tl_dtype d = tl_linalg_float_dtype(a->dtype), rd = tl_dtype_to_real(d);
  const tl_device dev = tl_tensor_device(a);
  tl_tensor tmp = {0}, v = {0}, big = {0}, info = {0};
  int64_t first_nan = -1, at = -1;
  bool any_inf = false;
  int err = 0;
  tl_svd_job j = {.fn = fn, .m = m, .n = n, .k = k, .count = count,
                  .ucols = full_matrices ? m : k, .vcols = full_matrices ? n : k,
                  .full_matrices = full_matrices, .compute_uv = compute_uv,
                  .a = &tmp, .s = s, .u = u, .v = &v, .info = &info};

  if ((st = tl_lapack_colmajor_copy(&tmp, a, d, nb, a->shape)) != TL_OK ||
      (st = tl_gpu_max_abs_per_matrix(&big, &tmp, nb)) != TL_OK)
    goto fail;
  j.max_abs = tl_tensor_data(&big);
  for (int64_t i = 0; i < count; i++) {
    if (isnan(j.max_abs[i]) && first_nan < 0)
      first_nan = i;
    any_inf = any_inf || isinf(j.max_abs[i]);
  }
  /* the matrices before the first NaN are factored: one may fail first */
  j.run = first_nan >= 0 ? first_nan : count;
  if ((st = tl_lapack_empty(s, dev, rd, nb, a->shape, 1, &k)) != TL_OK ||
      (compute_uv && ((st = tl_lapack_colmajor_empty(u, dev, d, nb, a->shape, m, j.ucols)) != TL_OK ||
                      (st = tl_lapack_colmajor_empty(&v, dev, d, nb, a->shape, n, j.vcols)) != TL_OK)) ||
      (st = tl_tensor_zeros(&info, TL_DTYPE_I32, 1, &count, dev)) != TL_OK ||
      (st = exec->svd(&j)) != TL_OK ||
      (st = tl_gpu_info_first_failure(&info, j.run, &at, &err)) != TL_OK)
    goto fail;
  if (at >= 0) {
    st = tl_lapack_error(fn, nb, at, "The algorithm failed to converge because the input matrix "
                         "is ill-conditioned or has too many repeated singular values (error "
                         "code: %d).", err);
    goto fail;
  }
  if (first_nan >= 0) {
    st = tl_lapack_error(fn, nb, first_nan, "The algorithm failed to converge because the input "
                         "matrix contained non-finite values.");
    goto fail;
  }
  for (int64_t i = 0; any_inf && i < count && st == TL_OK; i++) {
    if (!isinf(j.max_abs[i]))
      continue;
    st = tl_gpu_fill_nan(tl_gpu_flat_part(s, i * k, k));
    if (st == TL_OK && compute_uv)
      st = tl_gpu_fill_nan(tl_gpu_flat_part(u, i * m * j.ucols, m * j.ucols));
    if (st == TL_OK && compute_uv)
      st = tl_gpu_fill_nan(tl_gpu_flat_part(&v, i * n * j.vcols, n * j.vcols));
  }
  if (st == TL_OK && compute_uv && tl_dtype_is_complex(d)) {
    const tl_arg in = {.t = &v};
    st = tl_op_map(TL_OP_CONJ_PHYSICAL, 1, &in, &v, NULL);
  }
  if (st != TL_OK)
    goto fail;
  if (compute_uv) { /* V^H: V's transposed view */
    *vh = v;
    v.storage = NULL;
    tl_lapack_swap_last(vh);
  }
  tl_tensor_release(&tmp);
  tl_tensor_release(&big);
  tl_tensor_release(&info);
  return TL_OK;
fail: {
  tl_tensor *held[] = {&tmp, &big, &info, &v, s, u};
  for (size_t i = 0; i < sizeof held / sizeof *held; i++)
    if (held[i]->storage)
      tl_tensor_release(held[i]);
  return st;
}
}

/* ---- lstsq ---------------------------------------------------------------------------- */

/* residuals [B..., k] (or [B...] for a vector b): the squared norms of
 * rows n .. m-1 of each k-column matrix of the packed buffer qb. */
static tl_status tail_norms(tl_tensor *residuals, const tl_tensor *qb, int nb, int64_t n,
                            int64_t m, bool vec, tl_dtype rd)
{
  tl_tensor rows = *qb, acc = {0}, flat;
  int64_t shape[TL_MAX_DIMS];
  rows.offset += n * rows.strides[nb];
  rows.shape[nb] = m - n;
  memcpy(shape, rows.shape, sizeof shape);
  shape[nb] = 1;
  tl_status st = tl_tensor_empty(&acc, tl_reduce_acc_dtype(TL_RK_SQSUM, qb->dtype), nb + 2, shape,
                                 tl_tensor_device(qb));
  if (st == TL_OK)
    st = tl_reduce_pass(TL_RK_SQSUM, &rows, 1ull << nb, qb->dtype, &acc, NULL, NULL);
  if (st == TL_OK) {
    flat = acc; /* [B..., 1, k] -> [B..., k] */
    flat.shape[nb] = acc.shape[nb + 1];
    flat.strides[nb] = acc.strides[nb + 1];
    flat.ndim = vec ? nb : nb + 1; /* a vector b: k is 1, and the dim goes */
    st = tl_lapack_empty(residuals, tl_tensor_device(qb), rd, nb, qb->shape, vec ? 0 : 1,
                         &qb->shape[nb + 1]);
    if (st == TL_OK && (st = tl_tensor_copy(residuals, &flat)) != TL_OK)
      tl_tensor_release(residuals);
  }
  if (acc.storage)
    tl_tensor_release(&acc);
  return st;
}

tl_status tl_gpu_linalg_lstsq(tl_tensor *x, tl_tensor *residuals, tl_tensor *rank, tl_tensor *sv,
                              const tl_tensor *a, const tl_tensor *b, double rcond,
                              const char *driver)
{
  const char *fn = "linalg.lstsq";
  const tl_svd_lstsq_exec *exec;
  tl_tensor f = {0}, qb = {0};
  tl_lapack_lstsq q;
  tl_status st;
  if ((st = tl_lapack_check_matrix(fn, a, false)) != TL_OK)
    return st;
  const tl_device dev = tl_tensor_device(a);
  if (strcmp(driver, "gels")) {
    bool known = !strcmp(driver, "gelsy") || !strcmp(driver, "gelsd") || !strcmp(driver, "gelss");
    if (known && dev.type == TL_DEVICE_CUDA)
      return tl_error_set(TL_ERR_RUNTIME, "torch.linalg.lstsq: `driver` other than `gels` is not "
                          "supported on CUDA");
    if (known) /* a device with the CPU's drivers behind copies (the emulated one) */
      return tl_gpu_hosted_lstsq(x, residuals, rank, sv, a, b, rcond, driver);
    return tl_error_set(TL_ERR_RUNTIME, "%s: parameter `driver` should be one of (gels, gelsy, "
                        "gelsd, gelss), but got %s", fn, driver);
  }
  if ((st = tl_lapack_lstsq_setup(&q, fn, a, b)) != TL_OK || !(exec = executor(a, fn)))
    return tl_error_status();
  const int nb = q.nb;
  const int64_t m = q.m, n = q.n, mn = m < n ? m : n, k = q.k, ldb = q.ldb;
  const tl_dtype rd = tl_dtype_to_real(q.d);
  const int64_t size = (int64_t)tl_dtype_size(q.d);
  tl_lstsq_job j = {.fn = fn, .nb = nb, .m = m, .n = n, .k = k, .ldb = ldb, .count = q.count,
                    .bshape = q.bshape, .a = &f, .qb = &qb};
  if ((st = tl_lapack_colmajor_copy(&f, a, q.d, nb, q.bshape)) != TL_OK ||
      (st = tl_lapack_colmajor_empty(&qb, dev, q.d, nb, q.bshape, ldb, k)) != TL_OK)
    goto fail;
  if (q.count * ldb * k > 0 &&
      (st = tl_backend_get(dev)->memset(dev, tl_tensor_data(&qb), 0,
                                        (size_t)(q.count * ldb * k * size), NULL)) != TL_OK)
    goto fail;
  tl_tensor top = qb;
  top.shape[nb] = m;
  if ((st = tl_tensor_copy(&top, &q.vb)) != TL_OK ||
      (st = tl_tensor_empty(rank, TL_DTYPE_I64, 1, (int64_t[]){0}, dev)) != TL_OK ||
      (st = tl_tensor_empty(sv, rd, 1, (int64_t[]){0}, dev)) != TL_OK)
    goto fail;
  if (mn > 0 && k > 0 && q.count > 0 && (st = exec->lstsq_gels(&j)) != TL_OK)
    goto fail;
  /* residuals when m > n, as the CPU's gels (the rows past n of Q^H B) */
  if (m > n ? (st = tail_norms(residuals, &qb, nb, n, m, q.vec, rd)) != TL_OK
            : (st = tl_tensor_empty(residuals, rd, 1, (int64_t[]){0}, dev)) != TL_OK)
    goto fail;
  *x = qb; /* the solution: the first n rows, in the packed layout */
  x->shape[nb] = n;
  if (q.vec)
    x->ndim--;
  tl_tensor_release(&f);
  return TL_OK;
fail: {
  tl_tensor *held[] = {&f, &qb, rank, sv, residuals};
  for (size_t i = 0; i < sizeof held / sizeof *held; i++)
    if (held[i]->storage)
      tl_tensor_release(held[i]);
  return st;
}
}
