/* eig_lu_host.c - the emulated fake device's executors for eig and LU
 * without pivoting (tl_gpu_eig_lu.h), on its (plain host) memory, so that
 * the device op layer (eig_lu.c) runs without a GPU.  eig: the CPU's
 * kernel (LAPACK geev), one matrix at a time; its own failures raise as the
 * CPU's do (the stand-in reports no infos).  LU without pivoting: a plain
 * Doolittle loop (right-looking, as getrf without row interchanges), in
 * double or double complex, dividing by a zero pivot as C does: only the
 * fake device registers these, a test stand-in for cuSOLVER's getrf.     */
#include "gpu/linalg/tl_gpu_eig_lu.h"

#include <complex.h>
#include <math.h>

#include "ndcore/dispatch/tl_emulate.h"
#include "ndcore/linalg/tl_lapack.h"

/* One matrix: the CPU's eig, its results copied into the job's. */
static tl_status one_eig(const tl_eig_job *j, int64_t i)
{
  tl_tensor a = tl_lapack_packed_matrix(j->a, i, j->n, j->n);
  tl_tensor w = tl_lapack_packed_matrix(j->w, i, 1, j->n), r[2] = {{0}};
  tl_status st = tl_cpu_linalg_eig(&r[0], &r[1], &a, j->v != NULL);
  w.ndim = 1;
  w.shape[0] = j->n;
  if (st == TL_OK)
    st = tl_tensor_copy(&w, &r[0]);
  if (st == TL_OK && j->v) {
    tl_tensor v = tl_lapack_packed_matrix(j->v, i, j->n, j->n);
    st = tl_tensor_copy(&v, &r[1]);
  }
  tl_tensor_release_n(2, r);
  return st;
}

static tl_status host_eig_all(const tl_eig_job *j)
{
  tl_status st = TL_OK;
  for (int64_t i = 0; i < j->run && st == TL_OK; i++)
    if (isfinite(j->max_abs[i]))
      st = one_eig(j, i);
  return st;
}

static tl_status host_eig(const tl_eig_job *j) { TL_EMU_HOSTED(host_eig_all(j)); }

/* A column-major m x n matrix at a (dtype d) factored in place as L U, no
 * row interchanges; *info: the first zero pivot, 1-based (0: none).  Real
 * dtypes compute in double, so x / 0 is IEEE's +-inf or NaN (C's complex
 * arithmetic would recover infinities its own way). */
static void doolittle(tl_dtype d, char *a, int64_t m, int64_t n, int32_t *info)
{
  const int64_t size = (int64_t)tl_dtype_size(d), k = m < n ? m : n;
  const bool cplx = tl_dtype_is_complex(d);
#define AT(r, c) (a + ((c) * m + (r)) * size)
#define REAL(x) (tl_scalar){.kind = TL_KIND_FLOAT, .v.f = (x)}
#define CPLX(x) (tl_scalar){.kind = TL_KIND_COMPLEX, .v.c = (x)}
  for (int64_t j = 0; j < k; j++) {
    const tl_scalar p = tl_scalar_load(d, AT(j, j));
    if ((cplx ? p.v.c == 0 : p.v.f == 0) && *info == 0)
      *info = (int32_t)(j + 1);
    for (int64_t r = j + 1; r < m; r++) {
      const tl_scalar x = tl_scalar_load(d, AT(r, j));
      tl_scalar_store(cplx ? CPLX(x.v.c / p.v.c) : REAL(x.v.f / p.v.f), d, AT(r, j));
    }
    for (int64_t c = j + 1; c < n; c++) {
      const tl_scalar u = tl_scalar_load(d, AT(j, c));
      for (int64_t r = j + 1; r < m; r++) {
        const tl_scalar x = tl_scalar_load(d, AT(r, c)), l = tl_scalar_load(d, AT(r, j));
        tl_scalar_store(cplx ? CPLX(x.v.c - l.v.c * u.v.c) : REAL(x.v.f - l.v.f * u.v.f), d,
                        AT(r, c));
      }
    }
  }
#undef AT
#undef REAL
#undef CPLX
}

static tl_status host_lu_nopivot_all(const tl_lu_nopivot_job *j)
{
  const int64_t size = (int64_t)tl_dtype_size(j->lu->dtype);
  char *a0 = tl_tensor_data(j->lu);
  int32_t *info = tl_tensor_data(j->info);
  for (int64_t i = 0; i < j->count; i++)
    doolittle(j->lu->dtype, a0 + i * j->m * j->n * size, j->m, j->n, info + i);
  return TL_OK;
}

static tl_status host_lu_nopivot(const tl_lu_nopivot_job *j)
{
  TL_EMU_HOSTED(host_lu_nopivot_all(j));
}

void tl_gpu_eig_lu_register_hosted(tl_device_type type)
{
  static const tl_eig_lu_exec exec = {.eig = host_eig, .lu_nopivot = host_lu_nopivot};
  tl_eig_lu_register_device(type, &exec);
}
