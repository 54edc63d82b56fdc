/* tl_blas.h - OpenBLAS/LAPACK entry points under the wheel's symbol prefix.
 *
 * scipy-openblas32 exports every symbol as BLAS_SYMBOL_PREFIX + name
 * (scipy_cblas_sgemm, scipy_sgesv_); its cblas.h spells the prefix out but its
 * lapack.h does not, so the LAPACK routines we call are declared here, with
 * 32-bit integers and Fortran calling conventions (all by pointer, hidden
 * string lengths last).  TL_BLAS(name) names a prefixed symbol.             */
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

/* One declaration per routine and precision: s, d (real) and c, z (complex). */
#define TL_LAPACK_REAL(X) X(s, float, float) X(d, double, double)
#define TL_LAPACK_CPLX(X) X(c, tl_c64, float) X(z, tl_c128, double)
#define TL_LAPACK_ALL(X) TL_LAPACK_REAL(X) TL_LAPACK_CPLX(X)

#define TL_DECL_COMMON(p, T, R)                                                              \
  void TL_BLAS(p##getrf_)(const int *m, const int *n, T *a, const int *lda, int *ipiv, int *info); \
  void TL_BLAS(p##getrs_)(const char *trans, const int *n, const int *nrhs, const T *a,           \
                          const int *lda, const int *ipiv, T *b, const int *ldb, int *info,    \
                          size_t);                                                             \
  void TL_BLAS(p##potrf_)(const char *uplo, const int *n, T *a, const int *lda, int *info,       \
                          size_t);                                                             \
  void TL_BLAS(p##geqrf_)(const int *m, const int *n, T *a, const int *lda, T *tau, T *work,     \
                          const int *lwork, int *info);                                        \
  void TL_BLAS(p##gels_)(const char *trans, const int *m, const int *n, const int *nrhs, T *a,   \
                         const int *lda, T *b, const int *ldb, T *work, const int *lwork,      \
                         int *info, size_t);
TL_LAPACK_ALL(TL_DECL_COMMON)
#undef TL_DECL_COMMON

#define TL_DECL_REAL(p, T, R)                                                                \
  void TL_BLAS(p##orgqr_)(const int *m, const int *n, const int *k, T *a, const int *lda,        \
                          const T *tau, T *work, const int *lwork, int *info);                 \
  void TL_BLAS(p##gesdd_)(const char *jobz, const int *m, const int *n, T *a, const int *lda,    \
                          T *s, T *u, const int *ldu, T *vt, const int *ldvt, T *work,         \
                          const int *lwork, int *iwork, int *info, size_t);                    \
  void TL_BLAS(p##syevd_)(const char *jobz, const char *uplo, const int *n, T *a,                \
                          const int *lda, T *w, T *work, const int *lwork, int *iwork,         \
                          const int *liwork, int *info, size_t, size_t);                       \
  void TL_BLAS(p##geev_)(const char *jobvl, const char *jobvr, const int *n, T *a,               \
                         const int *lda, T *wr, T *wi, T *vl, const int *ldvl, T *vr,          \
                         const int *ldvr, T *work, const int *lwork, int *info, size_t,        \
                         size_t);                                                              \
  void TL_BLAS(p##gelsy_)(const int *m, const int *n, const int *nrhs, T *a, const int *lda,     \
                          T *b, const int *ldb, int *jpvt, const T *rcond, int *rank, T *work, \
                          const int *lwork, int *info);                                        \
  void TL_BLAS(p##gelsd_)(const int *m, const int *n, const int *nrhs, T *a, const int *lda,     \
                          T *b, const int *ldb, T *s, const T *rcond, int *rank, T *work,      \
                          const int *lwork, int *iwork, int *info);                            \
  void TL_BLAS(p##gelss_)(const int *m, const int *n, const int *nrhs, T *a, const int *lda,     \
                          T *b, const int *ldb, T *s, const T *rcond, int *rank, T *work,      \
                          const int *lwork, int *info);
TL_LAPACK_REAL(TL_DECL_REAL)
#undef TL_DECL_REAL

#define TL_DECL_CPLX(p, T, R)                                                                \
  void TL_BLAS(p##ungqr_)(const int *m, const int *n, const int *k, T *a, const int *lda,        \
                          const T *tau, T *work, const int *lwork, int *info);                 \
  void TL_BLAS(p##gesdd_)(const char *jobz, const int *m, const int *n, T *a, const int *lda,    \
                          R *s, T *u, const int *ldu, T *vt, const int *ldvt, T *work,         \
                          const int *lwork, R *rwork, int *iwork, int *info, size_t);          \
  void TL_BLAS(p##heevd_)(const char *jobz, const char *uplo, const int *n, T *a,                \
                          const int *lda, R *w, T *work, const int *lwork, R *rwork,           \
                          const int *lrwork, int *iwork, const int *liwork, int *info, size_t, \
                          size_t);                                                             \
  void TL_BLAS(p##geev_)(const char *jobvl, const char *jobvr, const int *n, T *a,               \
                         const int *lda, T *w, T *vl, const int *ldvl, T *vr, const int *ldvr, \
                         T *work, const int *lwork, R *rwork, int *info, size_t, size_t);     \
  void TL_BLAS(p##gelsy_)(const int *m, const int *n, const int *nrhs, T *a, const int *lda,     \
                          T *b, const int *ldb, int *jpvt, const R *rcond, int *rank, T *work, \
                          const int *lwork, R *rwork, int *info);                              \
  void TL_BLAS(p##gelsd_)(const int *m, const int *n, const int *nrhs, T *a, const int *lda,     \
                          T *b, const int *ldb, R *s, const R *rcond, int *rank, T *work,      \
                          const int *lwork, R *rwork, int *iwork, int *info);                  \
  void TL_BLAS(p##gelss_)(const int *m, const int *n, const int *nrhs, T *a, const int *lda,     \
                          T *b, const int *ldb, R *s, const R *rcond, int *rank, T *work,      \
                          const int *lwork, R *rwork, int *info);
TL_LAPACK_CPLX(TL_DECL_CPLX)
#undef TL_DECL_CPLX

#endif
