/* tl_gpu_solver.h - the pieces of solver_gpu.c that the other cuSOLVER
 * files of the linalg family (svd_lstsq_gpu.c) share: one call's handle,
 * workspace and info slots, typed geqrf and trsm, and conjugation in place. */
#ifndef TL_GPU_SOLVER_H
#define TL_GPU_SOLVER_H

#ifdef TL_WITH_CUDA
#include <cublas_v2.h>
#include <cusolverDn.h>

#include "ndcore/tensor/tl_tensor.h"

/* What one factorization call needs: the handle on the op's stream, a
 * workspace of `lwork` elements, and count + 1 zeroed info slots (the last
 * one takes getrs's, which reports only bad arguments). */
typedef struct {
  void *stream;
  cusolverDnHandle_t h;
  tl_tensor work, scratch;
  int *info; /* count + 1 device ints, zeroed */
} tl_gpu_solver_call;

/* The handle on dev's current stream and count + 1 zeroed info slots;
 * nothing held on failure. */
tl_status tl_gpu_solver_begin(tl_gpu_solver_call *c, const char *fn, tl_device dev,
                              int64_t count);
/* A device workspace of lwork elements of dtype d (one at least). */
tl_status tl_gpu_solver_work(tl_gpu_solver_call *c, tl_dtype d, int lwork, tl_device dev);
/* Release what begin and work made; safe to call twice. */
void tl_gpu_solver_release(tl_gpu_solver_call *c);
/* getrf over a batch of count column-major m x n matrices from a0 (leading
 * dimension m), min(m, n) pivots each from ipiv, each info in c->info[i]:
 * the workspace sized once, for the first matrix; two or more small square
 * ones in one batched call.  ipiv NULL: no pivoting (getrf with no pivot
 * array, one call per matrix). */
tl_status tl_gpu_getrf_batch(tl_gpu_solver_call *c, tl_dtype d, tl_device dev, int m, int n,
                             int64_t count, char *a0, int *ipiv);
/* The first matrix whose info is positive (the infos read on the host: the
 * sync an error needs), or -1; its info in *err. */
tl_status tl_gpu_solver_first_failure(const tl_gpu_solver_call *c, int64_t count, int64_t *at,
                                      int *err);
/* cuSOLVER's geqrf (and its workspace query) and cuBLAS's trsm (alpha 1) on
 * dtype d (float32, float64, complex64, complex128); their status codes. */
int tl_gpu_geqrf_lwork(cusolverDnHandle_t h, tl_dtype d, int m, int n, void *a, int lda, int *lw);
int tl_gpu_geqrf(cusolverDnHandle_t h, tl_dtype d, int m, int n, void *a, int lda, void *tau,
                 void *work, int lw, int *info);
int tl_gpu_trsm(cublasHandle_t h, tl_dtype d, cublasSideMode_t side, cublasFillMode_t uplo,
                cublasOperation_t op, cublasDiagType_t diag, int m, int n, const void *a, int lda,
                void *b, int ldb);
/* x <- conj(x) in place, by the conj op on x's device. */
tl_status tl_gpu_conj_in_place(tl_tensor *x);
#endif

#endif
