/* register_gpu.c - the linalg family's rows in the kernel table: the CUDA
 * set (cuBLAS products, cuSOLVER solves, lu, vector_norm and cross composed
 * of device ops: linalg_device.c) and, for tests, the fake device's hosted
 * set (svd, lstsq and eig through their device op layers over the CPU's
 * kernels: svd_lstsq_host.c, eig_lu_host.c).                              */
#include "gpu/tl_gpu.h"

#include "gpu/linalg/tl_gpu_eig_lu.h"
#include "gpu/linalg/tl_gpu_linalg.h"
#include "gpu/linalg/tl_gpu_svd_lstsq.h"
#include "ndcore/dispatch/tl_dispatch.h"
#include "ndcore/linalg/tl_lapack.h"

/* The ops of the linalg set: those the CPU's serves (register.c lists them). */
static void register_ops(tl_device_type type, const tl_linalg_kernels *set)
{
  tl_dispatch_register_family(TL_OP_MM, type, set);
}

void tl_gpu_linalg_register_hosted(tl_device_type type)
{
  /* svd, lstsq and eig: the device op layers (svd_lstsq.c, eig_lu.c) over
   * the CPU's kernels per matrix, so those layers run on the emulated
   * device too (and LU without pivoting: a host loop, eig_lu_host.c) */
  static tl_linalg_kernels set;
  set = tl_gpu_hosted_linalg;
  set.linalg_svd = tl_gpu_linalg_svd;
  set.linalg_lstsq = tl_gpu_linalg_lstsq;
  set.linalg_eig = tl_gpu_linalg_eig;
  /* lu, vector_norm, cross: composed of device ops, as on CUDA */
  set.linalg_lu = tl_linalg_device_lu;
  set.linalg_vector_norm = tl_linalg_device_vector_norm;
  set.linalg_cross = tl_linalg_device_cross;
  tl_gpu_svd_lstsq_register_hosted(type);
  tl_gpu_eig_lu_register_hosted(type);
  register_ops(type, &set);
}

#ifdef TL_WITH_CUDA
#include "gpu/linalg/tl_gpu_cublas.h"

void tl_gpu_linalg_register(void)
{
  static const tl_linalg_kernels cuda_linalg = {
      .linalg_gemm = tl_gpu_linalg_gemm,
      .linalg_solve_ex = tl_gpu_linalg_solve_ex,
      .linalg_inv_ex = tl_gpu_linalg_inv_ex,
      .linalg_cholesky_ex = tl_gpu_linalg_cholesky_ex,
      .linalg_det = tl_gpu_linalg_det,
      .linalg_slogdet = tl_gpu_linalg_slogdet,
      .linalg_logdet = tl_gpu_linalg_logdet,
      .linalg_qr = tl_gpu_linalg_qr,
      .linalg_svd = tl_gpu_linalg_svd,
      .linalg_eigh = tl_gpu_linalg_eigh,
      .linalg_eig = tl_gpu_linalg_eig,
      .linalg_lu_factor_ex = tl_gpu_linalg_lu_factor_ex,
      .linalg_lu = tl_linalg_device_lu,
      .linalg_lu_solve = tl_gpu_linalg_lu_solve,
      .linalg_solve_triangular = tl_gpu_linalg_solve_triangular,
      .linalg_lstsq = tl_gpu_linalg_lstsq,
      .linalg_vector_norm = tl_linalg_device_vector_norm,
      .linalg_cross = tl_linalg_device_cross,
  };
  tl_gpu_svd_lstsq_register();
  tl_gpu_eig_lu_register();
  register_ops(TL_DEVICE_CUDA, &cuda_linalg);
}
#endif
