/* tl_gpu_eig_lu.h - general eig/eigvals and LU without pivoting on devices:
 * a device-neutral op layer (eig_lu.c) over a device's executors, as
 * svd/lstsq (tl_gpu_svd_lstsq.h).
 *
 * The op layer makes the packed column-major copies and the outputs, applies
 * the CPU's non-finite rules to eig (each matrix's max |a| reduced on the
 * device and read on the host), raises the errors naming the batch element,
 * and finishes LU without pivoting with device ops; the executors only
 * factor.  CUDA's are cuSOLVER's (eig_lu_gpu.c: Xgeev, getrf with no pivot
 * array); the emulated fake device's run the CPU's geev and a plain
 * Doolittle loop matrix by matrix (eig_lu_host.c), so the op layer is
 * tested without a GPU.                                                   */
#ifndef TL_GPU_EIG_LU_H
#define TL_GPU_EIG_LU_H

#include "ndcore/dispatch/tl_kernel_sets.h"

/* eig: the matrices i < run of the packed a [B..., n, n] (overwritten)
 * whose max |a| is finite: eigenvalues into w (complex, [B..., n]) and, with
 * v, right eigenvectors into v (complex, packed column-major [B..., n, n]),
 * as LAPACK's geev gives them (unit 2-norm, largest component real); a
 * real matrix's conjugate pairs spelled out as the CPU does (linalg.c).
 * info int32 [count] on the device, zeroed: a positive entry is a matrix
 * whose QR iteration did not converge. */
typedef struct {
  const char *fn;
  int64_t n, count, run;
  const double *max_abs; /* host, [count] */
  tl_tensor *a, *w, *v, *info; /* v NULL for eigvals */
} tl_eig_job;

/* LU without pivoting of the packed lu [B..., m, n] (count matrices), in
 * place: L's multipliers below the diagonal, U on and above it, as getrf
 * with no row interchanges; a zero pivot is divided by as IEEE arithmetic
 * does (the op layer turns NaNs to zeros afterwards, as PyTorch does).
 * info int32 [count] on the device, zeroed: j where U[j-1, j-1] (1-based
 * j) is the first exactly zero pivot. */
typedef struct {
  const char *fn;
  int64_t m, n, count;
  tl_tensor *lu, *info;
} tl_lu_nopivot_job;

typedef struct {
  tl_status (*eig)(const tl_eig_job *j);
  tl_status (*lu_nopivot)(const tl_lu_nopivot_job *j);
} tl_eig_lu_exec;

/* Give device type `type` its executors. */
void tl_eig_lu_register_device(tl_device_type type, const tl_eig_lu_exec *exec);

/* The linalg set's eig member (tl_linalg_kernels' signature). */
tl_status tl_gpu_linalg_eig(tl_tensor *w, tl_tensor *v, const tl_tensor *a, bool compute_v);

/* Register the fake device's executors (eig_lu_host.c). */
void tl_gpu_eig_lu_register_hosted(tl_device_type type);
#ifdef TL_WITH_CUDA
/* Register cuSOLVER's (eig_lu_gpu.c), from tl_gpu_linalg_register. */
void tl_gpu_eig_lu_register(void);
#endif

#endif
