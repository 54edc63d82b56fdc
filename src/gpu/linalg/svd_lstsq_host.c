/* svd_lstsq_host.c - the emulated fake device's executors for svd and
 * lstsq (tl_gpu_svd_lstsq.h): the CPU's kernels, one matrix at a time, on
 * its (plain host) memory, so that the device op layer (svd_lstsq.c)
 * runs without a GPU.  Only the fake device registers them: a real
 * device's memory is not host memory.                                    */
#include "gpu/linalg/tl_gpu_svd_lstsq.h"

#include <math.h>

#include "ndcore/dispatch/tl_emulate.h"
#include "ndcore/dispatch/tl_op.h"
#include "ndcore/linalg/tl_lapack.h"

/* Release the results a CPU kernel made (some may not be). */
static void release_made(int n, tl_tensor *t)
{
  for (int i = 0; i < n; i++)
    if (t[i].storage)
      tl_tensor_release(&t[i]);
}

/* One matrix: the CPU's svd, its factors copied into the job's (V as
 * conj(V^H)^T). */
static tl_status one_svd(const tl_svd_job *j, int64_t i)
{
  tl_tensor a = tl_lapack_packed_matrix(j->a, i, j->m, j->n), r[3] = {{0}}; /* U, S, V^H */
  tl_tensor *u = &r[0], *s = &r[1], *vh = &r[2], sd = tl_lapack_packed_matrix(j->s, i, 1, j->k);
  tl_status st = tl_cpu_linalg_svd(u, s, vh, &a, j->full_matrices, j->compute_uv);
  if (st == TL_OK)
    st = tl_tensor_copy(&sd, s);
  if (st == TL_OK && j->compute_uv) {
    tl_tensor ud = tl_lapack_packed_matrix(j->u, i, j->m, j->ucols);
    tl_tensor vd = tl_lapack_packed_matrix(j->v, i, j->n, j->vcols);
    tl_lapack_swap_last(vh);
    const tl_arg in = {.t = vh};
    st = tl_tensor_copy(&ud, u);
    if (st == TL_OK)
      st = tl_dtype_is_complex(vh->dtype) ? tl_op_map(TL_OP_CONJ_PHYSICAL, 1, &in, &vd, NULL)
                                          : tl_tensor_copy(&vd, vh);
  }
  release_made(3, r);
  return st;
}

static tl_status host_svd_all(const tl_svd_job *j)
{
  tl_status st = TL_OK;
  for (int64_t i = 0; i < j->run && st == TL_OK; i++)
    if (!isinf(j->max_abs[i]))
      st = one_svd(j, i);
  return st;
}

static tl_status host_svd(const tl_svd_job *j) { TL_EMU_HOSTED(host_svd_all(j)); }

/* One system: the CPU's gels; its solution is the first n rows of its
 * packed max(m, n)-row buffer, which holds Q^H B's rows past n below them
 * (the CPU's layout, tl_cpu_linalg_lstsq): the whole buffer is copied. */
static tl_status one_gels(const tl_lstsq_job *j, int64_t i)
{
  tl_tensor a = tl_lapack_packed_matrix(j->a, i, j->m, j->n);
  tl_tensor b = tl_lapack_packed_matrix(j->qb, i, j->ldb, j->k);
  tl_tensor r[4] = {{0}}; /* solution, residuals, rank, singular values */
  b.shape[0] = j->m;
  tl_status st = tl_cpu_linalg_lstsq(&r[0], &r[1], &r[2], &r[3], &a, &b, -1, "gels");
  if (st == TL_OK) {
    tl_tensor whole = r[0], dst = tl_lapack_packed_matrix(j->qb, i, j->ldb, j->k);
    whole.shape[0] = j->ldb;
    st = tl_tensor_copy(&dst, &whole);
  }
  release_made(4, r);
  return st;
}

static tl_status host_gels_all(const tl_lstsq_job *j)
{
  tl_status st = TL_OK;
  for (int64_t i = 0; i < j->count && st == TL_OK; i++)
    st = one_gels(j, i);
  return st;
}

static tl_status host_gels(const tl_lstsq_job *j) { TL_EMU_HOSTED(host_gels_all(j)); }

void tl_gpu_svd_lstsq_register_hosted(tl_device_type type)
{
  static const tl_svd_lstsq_exec exec = {.svd = host_svd, .lstsq_gels = host_gels};
  tl_svd_lstsq_register_device(type, &exec);
}
