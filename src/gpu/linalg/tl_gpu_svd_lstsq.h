/* tl_gpu_svd_lstsq.h - svd/svdvals and lstsq ('gels') on devices: a
 * device-neutral op layer (svd_lstsq.c) over a device's executors.
 *
 * The op layer makes the packed column-major copies, the outputs and the
 * CPU's non-finite rules (each matrix's max |a| reduced on the device and
 * read on the host), raises the errors naming the batch element, turns V
 * into V^H and reduces lstsq's residuals; the executors only factor and
 * solve.  CUDA's are cuSOLVER's (svd_lstsq_gpu.c); the emulated fake
 * device's run the CPU's kernels matrix by matrix (svd_lstsq_host.c), so
 * the op layer is tested without a GPU.                                  */
#ifndef TL_GPU_SVD_LSTSQ_H
#define TL_GPU_SVD_LSTSQ_H

#include "ndcore/dispatch/tl_kernel_sets.h"

/* svd: factor matrices [0, run) of the packed a [B..., m, n] (overwritten)
 * into s [B..., k] and, with vectors, u packed [B..., m, ucols] and v
 * packed [B..., n, vcols] (V itself, not V^H), skipping those whose max |a|
 * is infinite (they get NaN factors); info int32 [count] on the device,
 * zeroed: a positive entry is a matrix that did not converge. */
typedef struct {
  const char *fn;
  int64_t m, n, k, count, run, ucols, vcols;
  bool full_matrices, compute_uv;
  const double *max_abs; /* host, [count] */
  tl_tensor *a, *s, *u, *v, *info;
} tl_svd_job;

/* lstsq by QR, A assumed of full rank: a packed [B..., m, n] (the batch
 * broadcast; overwritten), qb packed [B..., ldb, k] (ldb = max(m, n)) with
 * B in its first m rows and zeros below.  On return qb holds x in its first
 * n rows and, when m > n, the rows past n of Q^H B below them. */
typedef struct {
  const char *fn;
  int nb;
  int64_t m, n, k, ldb, count;
  const int64_t *bshape;
  tl_tensor *a, *qb;
} tl_lstsq_job;

typedef struct {
  tl_status (*svd)(const tl_svd_job *j);
  tl_status (*lstsq_gels)(const tl_lstsq_job *j);
} tl_svd_lstsq_exec;

/* Give device type `type` its executors. */
void tl_svd_lstsq_register_device(tl_device_type type, const tl_svd_lstsq_exec *exec);

/* The linalg set's members (tl_linalg_kernels' signatures).  lstsq takes
 * 'gels' only on CUDA (PyTorch's rule and message); another device without
 * the CPU's other drivers runs them hosted. */
tl_status tl_gpu_linalg_svd(tl_tensor *u, tl_tensor *s, tl_tensor *vh, const tl_tensor *a,
                            bool full_matrices, bool compute_uv);
tl_status tl_gpu_linalg_lstsq(tl_tensor *x, tl_tensor *residuals, tl_tensor *rank, tl_tensor *sv,
                              const tl_tensor *a, const tl_tensor *b, double rcond,
                              const char *driver);

/* Pieces of the op layer that eig_lu.c shares.  A 1-d view (no reference
 * of its own) of elements [at, at + len) of packed t's storage: */
tl_tensor tl_gpu_flat_part(const tl_tensor *t, int64_t at, int64_t len);
/* Each matrix's max |a| of the packed a (nb batch dims; NaN where it holds
 * a NaN), read on the host into `host` (float64 [B..., 1, 1]): a sync. */
tl_status tl_gpu_max_abs_per_matrix(tl_tensor *host, const tl_tensor *a, int nb);
/* Fill a (float or complex) tensor with NaN (NaN + NaNj). */
tl_status tl_gpu_fill_nan(tl_tensor part);
/* The first of the infos [0, run) (int32, on the device) that is positive,
 * in *at with its value in *err, or *at = -1 (read on the host: a sync). */
tl_status tl_gpu_info_first_failure(const tl_tensor *info, int64_t run, int64_t *at, int *err);

/* Register the fake device's executors: the CPU's kernels per matrix
 * (svd_lstsq_host.c). */
void tl_gpu_svd_lstsq_register_hosted(tl_device_type type);
#ifdef TL_WITH_CUDA
/* Register cuSOLVER's (svd_lstsq_gpu.c), from tl_gpu_linalg_register. */
void tl_gpu_svd_lstsq_register(void);
#endif

#endif
