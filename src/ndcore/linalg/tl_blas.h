/* tl_blas.h - OpenBLAS/LAPACK entry points under the wheel's symbol prefix.
 *
 * scipy-openblas32 exports every symbol as BLAS_SYMBOL_PREFIX + name
 * (scipy_cblas_sgemm, scipy_sgesv_); its cblas.h spells the prefix out but its
 * lapack.h does not, so the LAPACK routines we call are declared here, with
 * 32-bit integers and Fortran calling conventions (all by pointer, hidden
 * string lengths last).  TL_BLAS(name) names a prefixed symbol: the wheel's
 * documented way to reach them (BLAS_SYMBOL_PREFIX, as its cblas.h does),
 * and the one token paste left in the core: callers still spell each routine
 * out, TL_BLAS(sgetrf_).                                                     */
#ifndef TL_BLAS_H
#define TL_BLAS_H

#include <complex.h>
#include <stddef.h>

#include <cblas.h>

#ifndef BLAS_SYMBOL_PREFIX
#define BLAS_SYMBOL_PREFIX
#endif
#define TL_BLAS_CAT2(a, b) a##b
#define TL_BLAS_CAT(a, b) TL_BLAS_CAT2(a, b)
#define TL_BLAS(name) TL_BLAS_CAT(BLAS_SYMBOL_PREFIX, name)

typedef float complex tl_c64;
typedef double complex tl_c128;

/* Each routine's prototype is written once, as a macro over its element type
 * T (and R, T's real type); the lines after it declare each precision under
 * its own name: s, d (real) and c, z (complex). */
#define TL_GETRF(NAME, T) \
  void TL_BLAS(NAME)(const int *m, const int *n, T *a, const int *lda, int *ipiv, int *info);
TL_GETRF(sgetrf_, float) TL_GETRF(dgetrf_, double) TL_GETRF(cgetrf_, tl_c64)
TL_GETRF(zgetrf_, tl_c128)

#define TL_GETRS(NAME, T)                                                                   \
  void TL_BLAS(NAME)(const char *trans, const int *n, const int *nrhs, const T *a,          \
                     const int *lda, const int *ipiv, T *b, const int *ldb, int *info, size_t);
TL_GETRS(sgetrs_, float) TL_GETRS(dgetrs_, double) TL_GETRS(cgetrs_, tl_c64)
TL_GETRS(zgetrs_, tl_c128)

#define TL_POTRF(NAME, T) \
  void TL_BLAS(NAME)(const char *uplo, const int *n, T *a, const int *lda, int *info, size_t);
TL_POTRF(spotrf_, float) TL_POTRF(dpotrf_, double) TL_POTRF(cpotrf_, tl_c64)
TL_POTRF(zpotrf_, tl_c128)

/* Bunch-Kaufman LDL^T (sytrf; LDL^H for hetrf) and its solve (sytrs, hetrs). */
#define TL_SYTRF(NAME, T)                                                                   \
  void TL_BLAS(NAME)(const char *uplo, const int *n, T *a, const int *lda, int *ipiv,       \
                     T *work, const int *lwork, int *info, size_t);
TL_SYTRF(ssytrf_, float) TL_SYTRF(dsytrf_, double) TL_SYTRF(csytrf_, tl_c64)
TL_SYTRF(zsytrf_, tl_c128) TL_SYTRF(chetrf_, tl_c64) TL_SYTRF(zhetrf_, tl_c128)

#define TL_SYTRS(NAME, T)                                                                   \
  void TL_BLAS(NAME)(const char *uplo, const int *n, const int *nrhs, const T *a,           \
                     const int *lda, const int *ipiv, T *b, const int *ldb, int *info, size_t);
TL_SYTRS(ssytrs_, float) TL_SYTRS(dsytrs_, double) TL_SYTRS(csytrs_, tl_c64)
TL_SYTRS(zsytrs_, tl_c128) TL_SYTRS(chetrs_, tl_c64) TL_SYTRS(zhetrs_, tl_c128)

#define TL_GEQRF(NAME, T)                                                                   \
  void TL_BLAS(NAME)(const int *m, const int *n, T *a, const int *lda, T *tau, T *work,     \
                     const int *lwork, int *info);
TL_GEQRF(sgeqrf_, float) TL_GEQRF(dgeqrf_, double) TL_GEQRF(cgeqrf_, tl_c64)
TL_GEQRF(zgeqrf_, tl_c128)

#define TL_GELS(NAME, T)                                                                    \
  void TL_BLAS(NAME)(const char *trans, const int *m, const int *n, const int *nrhs, T *a,  \
                     const int *lda, T *b, const int *ldb, T *work, const int *lwork,       \
                     int *info, size_t);
TL_GELS(sgels_, float) TL_GELS(dgels_, double) TL_GELS(cgels_, tl_c64) TL_GELS(zgels_, tl_c128)

/* Q from geqrf's reflectors: orgqr (real), ungqr (complex). */
#define TL_ORGQR(NAME, T)                                                                   \
  void TL_BLAS(NAME)(const int *m, const int *n, const int *k, T *a, const int *lda,        \
                     const T *tau, T *work, const int *lwork, int *info);
TL_ORGQR(sorgqr_, float) TL_ORGQR(dorgqr_, double) TL_ORGQR(cungqr_, tl_c64)
TL_ORGQR(zungqr_, tl_c128)

#define TL_GESDD_REAL(NAME, T)                                                              \
  void TL_BLAS(NAME)(const char *jobz, const int *m, const int *n, T *a, const int *lda,    \
                     T *s, T *u, const int *ldu, T *vt, const int *ldvt, T *work,           \
                     const int *lwork, int *iwork, int *info, size_t);
#define TL_GESDD_CPLX(NAME, T, R)                                                           \
  void TL_BLAS(NAME)(const char *jobz, const int *m, const int *n, T *a, const int *lda,    \
                     R *s, T *u, const int *ldu, T *vt, const int *ldvt, T *work,           \
                     const int *lwork, R *rwork, int *iwork, int *info, size_t);
TL_GESDD_REAL(sgesdd_, float) TL_GESDD_REAL(dgesdd_, double)
TL_GESDD_CPLX(cgesdd_, tl_c64, float) TL_GESDD_CPLX(zgesdd_, tl_c128, double)

/* Symmetric / Hermitian eigenproblems: syevd (real), heevd (complex). */
#define TL_SYEVD(NAME, T)                                                                   \
  void TL_BLAS(NAME)(const char *jobz, const char *uplo, const int *n, T *a,                \
                     const int *lda, T *w, T *work, const int *lwork, int *iwork,           \
                     const int *liwork, int *info, size_t, size_t);
#define TL_HEEVD(NAME, T, R)                                                                \
  void TL_BLAS(NAME)(const char *jobz, const char *uplo, const int *n, T *a,                \
                     const int *lda, R *w, T *work, const int *lwork, R *rwork,             \
                     const int *lrwork, int *iwork, const int *liwork, int *info, size_t,   \
                     size_t);
TL_SYEVD(ssyevd_, float) TL_SYEVD(dsyevd_, double)
TL_HEEVD(cheevd_, tl_c64, float) TL_HEEVD(zheevd_, tl_c128, double)

#define TL_GEEV_REAL(NAME, T)                                                               \
  void TL_BLAS(NAME)(const char *jobvl, const char *jobvr, const int *n, T *a,              \
                     const int *lda, T *wr, T *wi, T *vl, const int *ldvl, T *vr,           \
                     const int *ldvr, T *work, const int *lwork, int *info, size_t, size_t);
#define TL_GEEV_CPLX(NAME, T, R)                                                            \
  void TL_BLAS(NAME)(const char *jobvl, const char *jobvr, const int *n, T *a,              \
                     const int *lda, T *w, T *vl, const int *ldvl, T *vr, const int *ldvr,  \
                     T *work, const int *lwork, R *rwork, int *info, size_t, size_t);
TL_GEEV_REAL(sgeev_, float) TL_GEEV_REAL(dgeev_, double)
TL_GEEV_CPLX(cgeev_, tl_c64, float) TL_GEEV_CPLX(zgeev_, tl_c128, double)

/* Least squares, rank-revealing: the complex forms take a real workspace. */
#define TL_GELSY_REAL(NAME, T)                                                              \
  void TL_BLAS(NAME)(const int *m, const int *n, const int *nrhs, T *a, const int *lda,     \
                     T *b, const int *ldb, int *jpvt, const T *rcond, int *rank, T *work,   \
                     const int *lwork, int *info);
#define TL_GELSY_CPLX(NAME, T, R)                                                           \
  void TL_BLAS(NAME)(const int *m, const int *n, const int *nrhs, T *a, const int *lda,     \
                     T *b, const int *ldb, int *jpvt, const R *rcond, int *rank, T *work,   \
                     const int *lwork, R *rwork, int *info);
TL_GELSY_REAL(sgelsy_, float) TL_GELSY_REAL(dgelsy_, double)
TL_GELSY_CPLX(cgelsy_, tl_c64, float) TL_GELSY_CPLX(zgelsy_, tl_c128, double)

#define TL_GELSD_REAL(NAME, T)                                                              \
  void TL_BLAS(NAME)(const int *m, const int *n, const int *nrhs, T *a, const int *lda,     \
                     T *b, const int *ldb, T *s, const T *rcond, int *rank, T *work,        \
                     const int *lwork, int *iwork, int *info);
#define TL_GELSD_CPLX(NAME, T, R)                                                           \
  void TL_BLAS(NAME)(const int *m, const int *n, const int *nrhs, T *a, const int *lda,     \
                     T *b, const int *ldb, R *s, const R *rcond, int *rank, T *work,        \
                     const int *lwork, R *rwork, int *iwork, int *info);
TL_GELSD_REAL(sgelsd_, float) TL_GELSD_REAL(dgelsd_, double)
TL_GELSD_CPLX(cgelsd_, tl_c64, float) TL_GELSD_CPLX(zgelsd_, tl_c128, double)

#define TL_GELSS_REAL(NAME, T)                                                              \
  void TL_BLAS(NAME)(const int *m, const int *n, const int *nrhs, T *a, const int *lda,     \
                     T *b, const int *ldb, T *s, const T *rcond, int *rank, T *work,        \
                     const int *lwork, int *info);
#define TL_GELSS_CPLX(NAME, T, R)                                                           \
  void TL_BLAS(NAME)(const int *m, const int *n, const int *nrhs, T *a, const int *lda,     \
                     T *b, const int *ldb, R *s, const R *rcond, int *rank, T *work,        \
                     const int *lwork, R *rwork, int *info);
TL_GELSS_REAL(sgelss_, float) TL_GELSS_REAL(dgelss_, double)
TL_GELSS_CPLX(cgelss_, tl_c64, float) TL_GELSS_CPLX(zgelss_, tl_c128, double)

#endif
