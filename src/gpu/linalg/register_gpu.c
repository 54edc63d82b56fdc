/* register_gpu.c - the linalg family's rows in the kernel table: the CUDA
 * set (cuBLAS products, cuSOLVER solves, the rest hosted: tl_gpu_linalg.h)
 * and, for tests, the fake device's all-hosted set.                       */
#include "gpu/tl_gpu.h"

#include "gpu/linalg/tl_gpu_linalg.h"
#include "ndcore/dispatch/tl_dispatch.h"

/* The ops of the linalg set (register.c lists the CPU's). */
static const tl_op linalg_ops[] = {
    TL_OP_MM,          TL_OP_MATMUL,      TL_OP_BMM,      TL_OP_MV,      TL_OP_DOT,
    TL_OP_VDOT,        TL_OP_INNER,       TL_OP_OUTER,    TL_OP_GER,     TL_OP_ADDMM,
    TL_OP_ADDBMM,      TL_OP_BADDBMM,     TL_OP_ADDMV,    TL_OP_ADDR,    TL_OP_TENSORDOT,
    TL_OP_KRON,        TL_OP_TRACE,       TL_OP_SOLVE,    TL_OP_INV,     TL_OP_CHOLESKY,
    TL_OP_DET,         TL_OP_SLOGDET,     TL_OP_LOGDET,   TL_OP_QR,      TL_OP_GEQRF,
    TL_OP_SVD,         TL_OP_EIGH,        TL_OP_EIG,      TL_OP_LU_FACTOR, TL_OP_LU,
    TL_OP_LU_SOLVE,    TL_OP_SOLVE_TRIANGULAR, TL_OP_LSTSQ, TL_OP_VECTOR_NORM, TL_OP_CROSS,
};
static void register_ops(tl_device_type type, const tl_linalg_kernels *set)
{
  for (size_t i = 0; i < sizeof linalg_ops / sizeof *linalg_ops; i++)
    tl_dispatch_register_set(linalg_ops[i], type, TL_DTYPES_ALL, set);
}

void tl_gpu_linalg_register_hosted(tl_device_type type)
{
  register_ops(type, &tl_gpu_hosted_linalg);
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
      .linalg_svd = tl_gpu_hosted_svd,
      .linalg_eigh = tl_gpu_linalg_eigh,
      .linalg_eig = tl_gpu_hosted_eig,
      .linalg_lu_factor_ex = tl_gpu_linalg_lu_factor_ex,
      .linalg_lu = tl_gpu_hosted_lu,
      .linalg_lu_solve = tl_gpu_linalg_lu_solve,
      .linalg_solve_triangular = tl_gpu_linalg_solve_triangular,
      .linalg_lstsq = tl_gpu_hosted_lstsq,
      .linalg_vector_norm = tl_gpu_hosted_vector_norm,
      .linalg_cross = tl_gpu_hosted_cross,
  };
  register_ops(TL_DEVICE_CUDA, &cuda_linalg);
}
#endif
