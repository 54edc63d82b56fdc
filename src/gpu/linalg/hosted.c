/* hosted.c - linalg ops that run on the host for a device's tensors: the
 * inputs are copied to the CPU, the CPU's kernel runs on them, and every
 * result moves back to the inputs' device with the layout the CPU gave it
 * (LAPACK's column-major results stay transposed views, as on the CPU).
 *
 * svd of empty matrices (the CPU's identities) comes here on CUDA; every
 * other op of CUDA's set runs on the device.  Each call syncs: the copy to the
 * host waits for the device's stream.  Errors are the CPU's, word for word.
 * Nothing here is CUDA-specific: only the backends move bytes, so the fake
 * test device can use the same wrappers (as its stand-ins for cuBLAS and
 * cuSOLVER).  Every call is counted by name (tl_gpu_hosted_calls), so tests
 * can tell that an op's device path never comes here.                      */
#include "gpu/linalg/tl_gpu_linalg.h"

#include "ndcore/dispatch/tl_kernel_sets.h"
#include "ndcore/tensor/tl_backend.h"

enum { MAX_IN = 3, MAX_OUT = 4, MAX_NAMES = 32 };

static struct {
  const char *name;
  int64_t calls;
} counts[MAX_NAMES];

/* One more call of the wrapper `name` (a string literal: __func__). */
static void count(const char *name)
{
  for (int i = 0; i < MAX_NAMES; i++)
    if (!counts[i].name || counts[i].name == name) {
      counts[i].name = name;
      counts[i].calls++;
      return;
    }
}

int tl_gpu_hosted_calls(const char **names, int64_t *calls, int cap)
{
  int n = 0;
  for (; n < MAX_NAMES && counts[n].name && n < cap; n++) {
    names[n] = counts[n].name;
    calls[n] = counts[n].calls;
  }
  return n;
}

typedef struct {
  tl_device device; /* where the inputs live and the results go */
  tl_tensor in[MAX_IN];
} hosted;

/* Host copies of the inputs (NULL entries stay unallocated). */
static tl_status hosted_begin(hosted *h, int n, const tl_tensor *const *ts)
{
  *h = (hosted){.device = tl_tensor_device(ts[0])};
  for (int i = 0; i < n; i++)
    if (ts[i] && tl_backend_tensor_to(&h->in[i], ts[i], tl_device_cpu(), ts[i]->dtype, false) !=
                     TL_OK) {
      for (int j = 0; j < i; j++)
        if (h->in[j].storage)
          tl_tensor_release(&h->in[j]);
      return tl_error_status();
    }
  return TL_OK;
}

/* Host tensor t, moved to `device` keeping its view (a new storage of the
 * same bytes). */
static tl_status move_to(tl_tensor *t, tl_device device)
{
  tl_storage *hs = t->storage;
  const tl_backend *b = tl_backend_get(device);
  tl_storage *ds = b ? tl_storage_new(device, hs->nbytes) : NULL;
  if (!ds)
    return tl_error_status();
  if (hs->nbytes && b->copy_from_host(device, ds->data, hs->data, hs->nbytes, NULL, false) != TL_OK) {
    tl_storage_decref(ds);
    return tl_error_status();
  }
  t->storage = ds;
  tl_storage_decref(hs);
  return TL_OK;
}

/* Release the host inputs; with st == TL_OK move the results that were made
 * to the device, else (or if a move fails) release them all. */
static tl_status hosted_end(hosted *h, tl_status st, int n, tl_tensor *const *outs)
{
  for (int i = 0; i < MAX_IN; i++)
    if (h->in[i].storage)
      tl_tensor_release(&h->in[i]);
  for (int i = 0; i < n && st == TL_OK; i++)
    if (outs[i] && outs[i]->storage && move_to(outs[i], h->device) != TL_OK)
      st = tl_error_status();
  if (st != TL_OK)
    for (int i = 0; i < n; i++)
      if (outs[i] && outs[i]->storage)
        tl_tensor_release(outs[i]);
  return st;
}

#define HOSTED_IN(...)                                                                         \
  hosted h;                                                                                    \
  const tl_tensor *const ins_[] = {__VA_ARGS__};                                               \
  count(__func__);                                                                             \
  if (hosted_begin(&h, (int)(sizeof ins_ / sizeof *ins_), ins_) != TL_OK)                      \
    return tl_error_status()
#define HOSTED_OUT(CALL, ...)                                                                  \
  do {                                                                                         \
    tl_tensor *const outs_[] = {__VA_ARGS__};                                                  \
    return hosted_end(&h, CALL, (int)(sizeof outs_ / sizeof *outs_), outs_);                   \
  } while (0)

tl_status tl_gpu_hosted_gemm(tl_tensor *out, const tl_tensor *a, const tl_tensor *b,
                             tl_scalar alpha, tl_scalar beta, bool reduce_batch)
{
  /* out is an input too (beta reads it) and is written in place. */
  tl_tensor o = {0};
  HOSTED_IN(a, b, out);
  tl_status st = tl_tensor_to_dtype(&o, &h.in[2], out->dtype);
  if (st == TL_OK)
    st = tl_cpu_linalg_gemm(&o, &h.in[0], &h.in[1], alpha, beta, reduce_batch);
  if (st == TL_OK)
    st = tl_tensor_copy(out, &o);
  if (o.storage)
    tl_tensor_release(&o);
  HOSTED_OUT(st, NULL);
}

tl_status tl_gpu_hosted_det(tl_tensor *out, const tl_tensor *a)
{
  HOSTED_IN(a);
  HOSTED_OUT(tl_cpu_linalg_det(out, &h.in[0]), out);
}

tl_status tl_gpu_hosted_slogdet(tl_tensor *sign, tl_tensor *logabsdet, const tl_tensor *a)
{
  HOSTED_IN(a);
  HOSTED_OUT(tl_cpu_linalg_slogdet(sign, logabsdet, &h.in[0]), sign, logabsdet);
}

tl_status tl_gpu_hosted_logdet(tl_tensor *out, const tl_tensor *a)
{
  HOSTED_IN(a);
  HOSTED_OUT(tl_cpu_linalg_logdet(out, &h.in[0]), out);
}

tl_status tl_gpu_hosted_qr(tl_tensor *q, tl_tensor *r, const tl_tensor *a, char mode)
{
  HOSTED_IN(a);
  HOSTED_OUT(tl_cpu_linalg_qr(q, r, &h.in[0], mode), q, r);
}

tl_status tl_gpu_hosted_svd(tl_tensor *u, tl_tensor *s, tl_tensor *vh, const tl_tensor *a,
                            bool full_matrices, bool compute_uv)
{
  HOSTED_IN(a);
  HOSTED_OUT(tl_cpu_linalg_svd(u, s, vh, &h.in[0], full_matrices, compute_uv), u, s, vh);
}

tl_status tl_gpu_hosted_eigh(tl_tensor *w, tl_tensor *v, const tl_tensor *a, bool upper,
                             bool compute_v)
{
  HOSTED_IN(a);
  HOSTED_OUT(tl_cpu_linalg_eigh(w, v, &h.in[0], upper, compute_v), w, v);
}

tl_status tl_gpu_hosted_eig(tl_tensor *w, tl_tensor *v, const tl_tensor *a, bool compute_v)
{
  HOSTED_IN(a);
  HOSTED_OUT(tl_cpu_linalg_eig(w, v, &h.in[0], compute_v), w, v);
}

tl_status tl_gpu_hosted_lu_solve(tl_tensor *x, const tl_tensor *lu, const tl_tensor *pivots,
                                 const tl_tensor *b, bool left, bool adjoint)
{
  HOSTED_IN(lu, pivots, b);
  HOSTED_OUT(tl_cpu_linalg_lu_solve(x, &h.in[0], &h.in[1], &h.in[2], left, adjoint), x);
}

tl_status tl_gpu_hosted_lstsq(tl_tensor *x, tl_tensor *residuals, tl_tensor *rank,
                              tl_tensor *sv, const tl_tensor *a, const tl_tensor *b, double rcond,
                              const char *driver)
{
  HOSTED_IN(a, b);
  HOSTED_OUT(tl_cpu_linalg_lstsq(x, residuals, rank, sv, &h.in[0], &h.in[1], rcond, driver), x,
             residuals, rank, sv);
}

tl_status tl_gpu_hosted_solve_ex(tl_tensor *x, tl_tensor *info, const tl_tensor *a,
                                 const tl_tensor *b, bool left)
{
  HOSTED_IN(a, b);
  HOSTED_OUT(tl_cpu_linalg_solve_ex(x, info, &h.in[0], &h.in[1], left), x, info);
}

tl_status tl_gpu_hosted_inv_ex(tl_tensor *out, tl_tensor *info, const tl_tensor *a)
{
  HOSTED_IN(a);
  HOSTED_OUT(tl_cpu_linalg_inv_ex(out, info, &h.in[0]), out, info);
}

tl_status tl_gpu_hosted_cholesky_ex(tl_tensor *out, tl_tensor *info, const tl_tensor *a,
                                    bool upper)
{
  HOSTED_IN(a);
  HOSTED_OUT(tl_cpu_linalg_cholesky_ex(out, info, &h.in[0], upper), out, info);
}

tl_status tl_gpu_hosted_lu_factor_ex(tl_tensor *lu, tl_tensor *pivots, tl_tensor *info,
                                     const tl_tensor *a)
{
  HOSTED_IN(a);
  HOSTED_OUT(tl_cpu_linalg_lu_factor_ex(lu, pivots, info, &h.in[0]), lu, pivots, info);
}

tl_status tl_gpu_hosted_solve_triangular(tl_tensor *x, const tl_tensor *a, const tl_tensor *b,
                                         bool upper, bool left, bool unitriangular)
{
  HOSTED_IN(a, b);
  HOSTED_OUT(tl_cpu_linalg_solve_triangular(x, &h.in[0], &h.in[1], upper, left, unitriangular),
             x);
}

/* Every member hosted but lu, vector_norm and cross (register_gpu.c gives
 * every device their composed paths, linalg_device.c): the fake test
 * device's linalg set (emulate.c), which runs the op layer's device paths
 * (matmul.c's composites, linalg.c's wrappers) over these wrappers without
 * a GPU. */
const tl_linalg_kernels tl_gpu_hosted_linalg = {
    .linalg_gemm = tl_gpu_hosted_gemm,
    .linalg_solve_ex = tl_gpu_hosted_solve_ex,
    .linalg_inv_ex = tl_gpu_hosted_inv_ex,
    .linalg_cholesky_ex = tl_gpu_hosted_cholesky_ex,
    .linalg_det = tl_gpu_hosted_det,
    .linalg_slogdet = tl_gpu_hosted_slogdet,
    .linalg_logdet = tl_gpu_hosted_logdet,
    .linalg_qr = tl_gpu_hosted_qr,
    .linalg_svd = tl_gpu_hosted_svd,
    .linalg_eigh = tl_gpu_hosted_eigh,
    .linalg_eig = tl_gpu_hosted_eig,
    .linalg_lu_factor_ex = tl_gpu_hosted_lu_factor_ex,
    .linalg_lu_solve = tl_gpu_hosted_lu_solve,
    .linalg_solve_triangular = tl_gpu_hosted_solve_triangular,
    .linalg_lstsq = tl_gpu_hosted_lstsq,
};
