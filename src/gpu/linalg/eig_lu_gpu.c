/* eig_lu_gpu.c - CUDA's executors for general eig and LU without pivoting
 * (tl_gpu_eig_lu.h: the op layer, eig_lu.c, does the rest).
 *
 * eig: cuSOLVER's Xgeev (LAPACK's geev: right eigenvectors of unit 2-norm,
 * largest component real), one call per matrix on the op's stream, the
 * workspaces sized once.  Complex matrices write W and VR straight into the
 * results.  Real ones run in real arithmetic with every type real, as
 * LAPACK's dgeev: W holds 2n entries (real parts, then imaginary parts) and
 * a conjugate pair's eigenvectors come as two real columns (re, im); one
 * kernel over the batch (eig_pairs.cu) spells both out as complex, as the
 * CPU's loop does (linalg.c).  Xgeev computes partly on the host, in a host
 * workspace: the stream is synchronized once, after the last call, before
 * that workspace is freed (the op layer reads the infos right after, which
 * syncs anyway).
 *
 * LU without pivoting: getrf with no pivot array, one call per matrix
 * (tl_gpu_getrf_batch).                                                   */
#include "gpu/tl_gpu.h"

#ifdef TL_WITH_CUDA
#include <math.h>
#include <stdlib.h>

#include <cuda_runtime.h>

#include "gpu/linalg/tl_gpu_cublas.h"
#include "gpu/linalg/tl_gpu_eig_lu.h"
#include "gpu/linalg/tl_gpu_eig_pairs.h"
#include "gpu/linalg/tl_gpu_solver.h"
#include "gpu/tl_gpu_host.h"

static cudaDataType cuda_type(tl_dtype d)
{
  switch (d) {
  case TL_DTYPE_F32: return CUDA_R_32F;
  case TL_DTYPE_F64: return CUDA_R_64F;
  case TL_DTYPE_C64: return CUDA_C_32F;
  default: return CUDA_C_64F;
  }
}

/* Xgeev's workspaces: bytes on the device and on the host (one byte at
 * least each). */
typedef struct {
  tl_tensor dev;
  void *host;
  size_t dbytes, hbytes;
} geev_work;

static tl_status geev_work_alloc(geev_work *g, tl_device dev)
{
  int64_t n = g->dbytes > 0 ? (int64_t)g->dbytes : 1;
  if (tl_tensor_empty(&g->dev, TL_DTYPE_U8, 1, &n, dev) != TL_OK)
    return tl_error_status();
  if (!(g->host = malloc(g->hbytes > 0 ? g->hbytes : 1)))
    return tl_error_set(TL_ERR_MEMORY, "linalg.eig: out of memory for a %zu-byte host workspace",
                        g->hbytes);
  return TL_OK;
}

static tl_status cuda_eig(const tl_eig_job *j)
{
  const tl_dtype d = j->a->dtype;
  const tl_device dev = tl_tensor_device(j->a);
  const bool real = !tl_dtype_is_complex(d);
  const cudaDataType t = cuda_type(d);
  const int64_t n = j->n, size = (int64_t)tl_dtype_size(d);
  const int64_t vsize = real ? size : (int64_t)tl_dtype_size(j->w->dtype);
  const int64_t wlen = real ? 2 * n : n, ldvr = j->v ? n : 1;
  const cusolverEigMode_t none = CUSOLVER_EIG_MODE_NOVECTOR;
  const cusolverEigMode_t jobvr = j->v ? CUSOLVER_EIG_MODE_VECTOR : none;
  tl_tensor scratch[2] = {{0}}; /* a real matrix's (wr, wi) and VR, per matrix */
  geev_work g = {0};
  tl_gpu_solver_call c = {0};
  cusolverDnParams_t params = NULL;
  tl_status st = tl_gpu_solver_begin(&c, j->fn, dev, 0);
  if (st == TL_OK)
    st = tl_gpu_cusolver_check(cusolverDnCreateParams(&params), "Xgeev");
  if (st == TL_OK && real) {
    int64_t wn = j->count * wlen, vn = j->count * n * n;
    if ((st = tl_tensor_empty(&scratch[0], d, 1, &wn, dev)) == TL_OK && j->v)
      st = tl_tensor_empty(&scratch[1], d, 1, &vn, dev);
  }
  if (st != TL_OK)
    goto done;
  char *a0 = tl_tensor_data(j->a);
  char *w0 = tl_tensor_data(real ? &scratch[0] : j->w);
  char *v0 = !j->v ? NULL : tl_tensor_data(real ? &scratch[1] : j->v);
  int *info = tl_tensor_data(j->info);
  if ((st = tl_gpu_cusolver_check(cusolverDnXgeev_bufferSize(
                                      c.h, params, none, jobvr, n, t, a0, n, t, w0, t, NULL, 1,
                                      t, v0, ldvr, t, &g.dbytes, &g.hbytes),
                                  "Xgeev")) != TL_OK ||
      (st = geev_work_alloc(&g, dev)) != TL_OK)
    goto done;
  bool ran = false;
  for (int64_t i = 0; i < j->run && st == TL_OK; i++) {
    if (!isfinite(j->max_abs[i])) /* skipped: the op layer's NaNs */
      continue;
    ran = true;
    st = tl_gpu_cusolver_check(
        cusolverDnXgeev(c.h, params, none, jobvr, n, t, a0 + i * n * n * size, n, t,
                        w0 + i * wlen * vsize, t, NULL, 1, t, v0 ? v0 + i * n * n * vsize : NULL,
                        ldvr, t, tl_tensor_data(&g.dev), g.dbytes, g.host, g.hbytes, info + i),
        "Xgeev");
  }
  /* every queued call may still read the host workspace, after a failed
   * one too: wait for them before it is freed below (on an earlier error,
   * the first error is the one reported) */
  if (ran) {
    cudaError_t synced = cudaStreamSynchronize((cudaStream_t)c.stream);
    if (st == TL_OK)
      st = tl_gpu_launched((int)synced, "Xgeev");
    else if (synced != cudaSuccess)
      cudaGetLastError();
  }
  if (st == TL_OK && real)
    st = tl_gpu_launched(tl_gpu_eig_pairs(d == TL_DTYPE_F64, w0, v0, j->count, n,
                                          tl_tensor_data(j->w), j->v ? tl_tensor_data(j->v) : NULL,
                                          c.stream),
                         "eig");
done:
  if (params)
    cusolverDnDestroyParams(params);
  free(g.host);
  if (g.dev.storage)
    tl_tensor_release(&g.dev);
  tl_tensor_release_n(2, scratch);
  tl_gpu_solver_release(&c);
  return st;
}

static tl_status cuda_lu_nopivot(const tl_lu_nopivot_job *j)
{
  const tl_device dev = tl_tensor_device(j->lu);
  tl_gpu_solver_call c = {0};
  tl_status st = tl_gpu_solver_begin(&c, j->fn, dev, 0);
  if (st == TL_OK) {
    c.info = tl_tensor_data(j->info); /* the job's zeroed [count] infos take getrf's */
    st = tl_gpu_getrf_batch(&c, j->lu->dtype, dev, (int)j->m, (int)j->n, j->count,
                            tl_tensor_data(j->lu), NULL);
  }
  tl_gpu_solver_release(&c);
  return st;
}

void tl_gpu_eig_lu_register(void)
{
  static const tl_eig_lu_exec exec = {.eig = cuda_eig, .lu_nopivot = cuda_lu_nopivot};
  tl_eig_lu_register_device(TL_DEVICE_CUDA, &exec);
}
#endif
