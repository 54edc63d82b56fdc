/* eig_lu.c - general eig/eigvals and LU without pivoting on devices
 * (tl_gpu_eig_lu.h): the CPU's checks, messages, packed column-major copies
 * and output shapes (linalg.c, linalg_lu.c through tl_lapack.h) over a
 * device's executors.
 *
 * eig: results as the CPU's: complex eigenvalues [B..., n] and eigenvectors
 * packed column-major (a transposed view), LAPACK geev's normalisation.
 * Each matrix's max |a| is reduced on the device and read on the host (one
 * sync), and the executor's convergence infos after the solve (a second:
 * raising needs them; PyTorch's CUDA eig reads both too).  As on the CPU, a
 * matrix holding an inf or a NaN makes eig raise naming its batch element
 * (the matrices before it are solved first, and one of them may fail
 * first) and gives NaN eigenvalues in eigvals; one that does not converge
 * raises with the solver's info.
 *
 * LU without pivoting (PyTorch allows it on CUDA only; the CPU raises
 * PyTorch's message): getrf with no row interchanges, then as PyTorch's
 * CUDA path: NaNs of the factor (0/0 after a zero pivot) become zeros, infs
 * stay; pivots are the identity's, 1 ... min(m, n); info is the first zero
 * pivot (1-based), handed back on the device, or read on the host to raise
 * (lu_factor) with the CPU's message.                                      */
#include "gpu/linalg/tl_gpu_eig_lu.h"

#include <math.h>

#include "gpu/linalg/tl_gpu_svd_lstsq.h"
#include "ndcore/dispatch/tl_op.h"
#include "ndcore/kernels/tl_create.h"
#include "ndcore/linalg/tl_lapack.h"
#include "ndcore/linalg/tl_linalg.h"
#include "ndcore/tensor/tl_backend.h"
#include "ndcore/tensor/tl_views.h"

static const tl_eig_lu_exec *executors[TL_DEVICE_COUNT];

void tl_eig_lu_register_device(tl_device_type type, const tl_eig_lu_exec *exec)
{
  executors[type] = exec;
}

static const tl_eig_lu_exec *executor(const tl_tensor *a, const char *fn)
{
  char dev[32];
  const tl_eig_lu_exec *e = executors[tl_tensor_device(a).type];
  if (!e)
    tl_error_set(TL_ERR_NOT_IMPLEMENTED, "%s: no kernel for device %s", fn,
                 tl_device_str(dev, sizeof dev, tl_tensor_device(a)));
  return e;
}

/* ---- eig ------------------------------------------------------------------------------ */

tl_status tl_gpu_linalg_eig(tl_tensor *w, tl_tensor *v, const tl_tensor *a, bool compute_v)
{
  const char *fn = compute_v ? "linalg.eig" : "linalg.eigvals";
  const tl_eig_lu_exec *exec;
  tl_status st;
  if ((st = tl_lapack_check_matrix(fn, a, true)) != TL_OK)
    return st;
  const int nb = a->ndim - 2;
  const int64_t n = a->shape[nb + 1], count = tl_lapack_batch_count(nb, a->shape);
  const tl_dtype d = tl_linalg_float_dtype(a->dtype), cd = tl_dtype_to_complex(d);
  const tl_device dev = tl_tensor_device(a);
  tl_tensor t[3] = {{0}}; /* a's packed copy, the max |a| on the host, the infos */
  tl_tensor *tmp = &t[0], *big = &t[1], *info = &t[2];
  int64_t first_bad = -1, at = -1;
  int err = 0;
  tl_eig_job j = {.fn = fn, .n = n, .count = count, .a = tmp, .w = w,
                  .v = compute_v ? v : NULL, .info = info};
  if ((st = tl_lapack_colmajor_copy(tmp, a, d, nb, a->shape)) != TL_OK ||
      (st = tl_lapack_empty(w, dev, cd, nb, a->shape, 1, &n)) != TL_OK ||
      (compute_v && (st = tl_lapack_colmajor_empty(v, dev, cd, nb, a->shape, n, n)) != TL_OK))
    goto fail;
  if (n == 0 || count == 0)
    goto done;
  if (!(exec = executor(a, fn))) {
    st = tl_error_status();
    goto fail;
  }
  if ((st = tl_gpu_max_abs_per_matrix(big, tmp, nb)) != TL_OK)
    goto fail;
  j.max_abs = tl_tensor_data(big);
  for (int64_t i = 0; i < count && first_bad < 0; i++)
    if (!isfinite(j.max_abs[i]))
      first_bad = i;
  /* eig stops at the first non-finite matrix; eigvals skips each one */
  j.run = compute_v && first_bad >= 0 ? first_bad : count;
  if ((st = tl_tensor_zeros(info, TL_DTYPE_I32, 1, &count, dev)) != TL_OK ||
      (st = exec->eig(&j)) != TL_OK ||
      (st = tl_gpu_info_first_failure(info, j.run, &at, &err)) != TL_OK)
    goto fail;
  if (at >= 0) {
    st = tl_lapack_eigh_error(fn, nb, at, err);
    goto fail;
  }
  if (compute_v && first_bad >= 0) {
    st = tl_lapack_error(fn, nb, first_bad, "input tensor should not contain infs or NaNs.");
    goto fail;
  }
  for (int64_t i = first_bad; i >= 0 && i < count && st == TL_OK; i++)
    if (!isfinite(j.max_abs[i]))
      st = tl_gpu_fill_nan(tl_gpu_flat_part(w, i * n, n));
  if (st != TL_OK)
    goto fail;
done:
  tl_tensor_release_n(3, t);
  return TL_OK;
fail:
  tl_tensor_release_n(3, t);
  tl_tensor_release(w);
  if (compute_v)
    tl_tensor_release(v);
  return st;
}

/* ---- LU without pivoting ------------------------------------------------------------------ */

/* lu <- where(lu == lu, lu, 0) in place: PyTorch's cleanup of the NaNs a
 * zero pivot leaves (nan_to_num for real dtypes, the same mask for complex). */
static tl_status nan_to_zero(tl_tensor *lu)
{
  tl_tensor t[2] = {{0}}; /* the mask, a 0-d host zero */
  const tl_arg same[2] = {{lu, false}, {lu, false}};
  tl_status st = tl_op_map(TL_OP_EQ, 2, same, &t[0], NULL);
  if (st == TL_OK && (st = tl_tensor_empty(&t[1], lu->dtype, 0, NULL, tl_device_cpu())) == TL_OK) {
    tl_scalar_store((tl_scalar){.kind = TL_KIND_INT, .v.i = 0}, lu->dtype, tl_tensor_data(&t[1]));
    const tl_arg in[3] = {{&t[0], false}, {lu, false}, {&t[1], true}};
    st = tl_op_map(TL_OP_WHERE, 3, in, lu, NULL);
  }
  tl_tensor_release_n(2, t);
  return st;
}

/* pivots [B..., k] <- 1, 2, ..., k in every matrix (no row was exchanged). */
static tl_status identity_pivots(tl_tensor *pivots, int64_t k)
{
  tl_tensor t[2] = {{0}}; /* 1..k, broadcast to the batch */
  tl_status st = tl_tensor_empty(&t[0], TL_DTYPE_I32, 1, &k, tl_tensor_device(pivots));
  if (st == TL_OK)
    st = tl_tensor_arange_fill(&t[0], (tl_scalar){.kind = TL_KIND_INT, .v.i = 1},
                               (tl_scalar){.kind = TL_KIND_INT, .v.i = 1});
  if (st == TL_OK && (st = tl_view_expand(&t[1], &t[0], pivots->ndim, pivots->shape)) == TL_OK)
    st = tl_tensor_copy(pivots, &t[1]);
  tl_tensor_release_n(2, t);
  return st;
}

tl_status tl_linalg_lu_factor_ex_nopivot(tl_tensor *lu, tl_tensor *pivots, tl_tensor *info,
                                         const tl_tensor *a)
{
  const char *fn = "linalg.lu_factor";
  const tl_eig_lu_exec *exec = NULL;
  tl_tensor own = {0}; /* the infos when the caller raises rather than takes them */
  tl_tensor *inf = info ? info : &own;
  tl_status st;
  if ((st = tl_lapack_check_matrix(fn, a, false)) != TL_OK)
    return st;
  if (tl_tensor_device(a).type == TL_DEVICE_CPU) /* PyTorch's rule and message */
    return tl_error_set(TL_ERR_RUNTIME, "%s: LU without pivoting is not implemented on the CPU",
                        fn);
  if (!(exec = executor(a, fn)) || (st = tl_lapack_lu_factor_setup(fn, a, lu, pivots, inf)) != TL_OK)
    return tl_error_status();
  const int nb = a->ndim - 2;
  const int64_t m = a->shape[nb], n = a->shape[nb + 1], k = m < n ? m : n;
  const int64_t count = tl_lapack_batch_count(nb, a->shape);
  const tl_device dev = tl_tensor_device(a);
  tl_lu_nopivot_job j = {.fn = fn, .m = m, .n = n, .count = count, .lu = lu, .info = inf};
  int64_t at = -1;
  int err = 0;
  if (count > 0 && (st = tl_backend_get(dev)->memset(dev, tl_tensor_data(inf), 0,
                                                       sizeof(int32_t) * (size_t)count, NULL)) !=
                       TL_OK)
    goto fail;
  if (count > 0 && k > 0 &&
      ((st = exec->lu_nopivot(&j)) != TL_OK || (st = nan_to_zero(lu)) != TL_OK ||
       (st = identity_pivots(pivots, k)) != TL_OK))
    goto fail;
  if (!info) {
    tl_tensor flat = tl_gpu_flat_part(&own, 0, count);
    if ((st = tl_gpu_info_first_failure(&flat, count, &at, &err)) != TL_OK)
      goto fail;
    tl_tensor_release(&own);
    if (at >= 0) {
      tl_lapack_lu_factor_release(lu, pivots, NULL);
      return tl_lapack_lu_factor_error(fn, nb, at, err);
    }
  }
  return TL_OK;
fail:
  tl_lapack_lu_factor_release(lu, pivots, inf);
  return st;
}
