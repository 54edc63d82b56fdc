/* tl_gpu_linalg.h - the CUDA linalg kernels, internal to src/gpu/linalg:
 * gemm_gpu.c (cuBLAS products), solver_gpu.c (cuSOLVER and cuBLAS
 * factorizations and solves), hosted.c (the ops that run on the host:
 * copied to the CPU, run by the CPU's kernel, copied back).  Each has the
 * signature of its tl_linalg_kernels member (tl_kernel_sets.h).            */
#ifndef TL_GPU_LINALG_H
#define TL_GPU_LINALG_H

#include "ndcore/dispatch/tl_kernel_sets.h"

#ifdef TL_WITH_CUDA
tl_status tl_gpu_linalg_gemm(tl_tensor *out, const tl_tensor *a, const tl_tensor *b,
                             tl_scalar alpha, tl_scalar beta, bool reduce_batch);

tl_status tl_gpu_linalg_solve_ex(tl_tensor *x, tl_tensor *info, const tl_tensor *a,
                                 const tl_tensor *b, bool left);
tl_status tl_gpu_linalg_inv_ex(tl_tensor *out, tl_tensor *info, const tl_tensor *a);
tl_status tl_gpu_linalg_cholesky_ex(tl_tensor *out, tl_tensor *info, const tl_tensor *a,
                                    bool upper);
tl_status tl_gpu_linalg_det(tl_tensor *out, const tl_tensor *a);
tl_status tl_gpu_linalg_slogdet(tl_tensor *sign, tl_tensor *logabsdet, const tl_tensor *a);
tl_status tl_gpu_linalg_logdet(tl_tensor *out, const tl_tensor *a);
tl_status tl_gpu_linalg_eigh(tl_tensor *w, tl_tensor *v, const tl_tensor *a, bool upper,
                             bool compute_v);
tl_status tl_gpu_linalg_lu_factor_ex(tl_tensor *lu, tl_tensor *pivots, tl_tensor *info,
                                     const tl_tensor *a);
tl_status tl_gpu_linalg_solve_triangular(tl_tensor *x, const tl_tensor *a, const tl_tensor *b,
                                         bool upper, bool left, bool unitriangular);
tl_status tl_gpu_linalg_qr(tl_tensor *q, tl_tensor *r, const tl_tensor *a, char mode);
tl_status tl_gpu_linalg_lu_solve(tl_tensor *x, const tl_tensor *lu, const tl_tensor *pivots,
                                 const tl_tensor *b, bool left, bool adjoint);

#endif

/* hosted.c: built with or without CUDA (the fake device uses it too). */
extern const tl_linalg_kernels tl_gpu_hosted_linalg;
/* Test hook: the wrappers called so far (their C names) and how often, at
 * most cap of them; returns how many. */
int tl_gpu_hosted_calls(const char **names, int64_t *calls, int cap);
tl_status tl_gpu_hosted_det(tl_tensor *out, const tl_tensor *a);
tl_status tl_gpu_hosted_slogdet(tl_tensor *sign, tl_tensor *logabsdet, const tl_tensor *a);
tl_status tl_gpu_hosted_logdet(tl_tensor *out, const tl_tensor *a);
tl_status tl_gpu_hosted_qr(tl_tensor *q, tl_tensor *r, const tl_tensor *a, char mode);
tl_status tl_gpu_hosted_svd(tl_tensor *u, tl_tensor *s, tl_tensor *vh, const tl_tensor *a,
                            bool full_matrices, bool compute_uv);
tl_status tl_gpu_hosted_eigh(tl_tensor *w, tl_tensor *v, const tl_tensor *a, bool upper,
                             bool compute_v);
tl_status tl_gpu_hosted_eig(tl_tensor *w, tl_tensor *v, const tl_tensor *a, bool compute_v);
tl_status tl_gpu_hosted_lu_solve(tl_tensor *x, const tl_tensor *lu, const tl_tensor *pivots,
                                 const tl_tensor *b, bool left, bool adjoint);
tl_status tl_gpu_hosted_lstsq(tl_tensor *x, tl_tensor *residuals, tl_tensor *rank,
                              tl_tensor *sv, const tl_tensor *a, const tl_tensor *b, double rcond,
                              const char *driver);
tl_status tl_gpu_hosted_gemm(tl_tensor *out, const tl_tensor *a, const tl_tensor *b,
                             tl_scalar alpha, tl_scalar beta, bool reduce_batch);
tl_status tl_gpu_hosted_solve_ex(tl_tensor *x, tl_tensor *info, const tl_tensor *a,
                                 const tl_tensor *b, bool left);
tl_status tl_gpu_hosted_inv_ex(tl_tensor *out, tl_tensor *info, const tl_tensor *a);
tl_status tl_gpu_hosted_cholesky_ex(tl_tensor *out, tl_tensor *info, const tl_tensor *a,
                                    bool upper);
tl_status tl_gpu_hosted_lu_factor_ex(tl_tensor *lu, tl_tensor *pivots, tl_tensor *info,
                                     const tl_tensor *a);
tl_status tl_gpu_hosted_solve_triangular(tl_tensor *x, const tl_tensor *a, const tl_tensor *b,
                                         bool upper, bool left, bool unitriangular);

#endif

