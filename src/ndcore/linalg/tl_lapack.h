/* tl_lapack.h - helpers shared by the LAPACK-backed files (linalg.c,
 * linalg_lu.c, linalg_extra.c); not part of the public core API.
 *
 * Matrices handed to LAPACK live in "packed column-major" tensors: shape
 * [B..., m, n], each matrix column-major with leading dimension m, matrix i
 * starting at element i * m * n.  The tensor itself is an ordinary (transposed)
 * view, so results can be returned to the user as they are.                  */
#ifndef TL_LAPACK_H
#define TL_LAPACK_H

#include "ndcore/dispatch/tl_parallel.h"
#include "ndcore/tensor/tl_dtype.h"

/* TL_ERR_LINALG "<fn>: (Batch element <batch>): <msg>" (batch part when nb > 0). */
tl_status tl_lapack_error(const char *fn, int nb, int64_t batch, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));
/* A tensor of >= 2 dims (square if asked) whose sizes fit LAPACK's ints. */
tl_status tl_lapack_check_matrix(const char *fn, const tl_tensor *a, bool square);
int64_t tl_lapack_batch_count(int nb, const int64_t *bshape);
/* Let go of the GIL (tl_parallel.h) for a batch of `count` factorizations
 * of m x n matrices when that is long enough; tl_parallel_relock ends it.
 * Each function starts its region just before its batch loop. */
tl_unlocked tl_lapack_unlock(int64_t count, int64_t m, int64_t n);
/* A new packed column-major [B..., m, n] tensor on `device` (uninitialised). */
tl_status tl_lapack_colmajor_empty(tl_tensor *t, tl_device device, tl_dtype d, int nb, const int64_t *bshape,
                                   int64_t m, int64_t n);
/* a's matrices broadcast to batch bshape, cast to d, packed column-major. */
tl_status tl_lapack_colmajor_copy(tl_tensor *t, const tl_tensor *a, tl_dtype d, int nb,
                                  const int64_t *bshape);
/* A contiguous [B..., tail...] tensor on `device`. */
tl_status tl_lapack_empty(tl_tensor *t, tl_device device, tl_dtype d, int nb, const int64_t *bshape, int extra,
                          const int64_t *tail);
/* Matrix i of a packed tensor of m x n matrices. */
char *tl_lapack_matrix_at(const tl_tensor *t, int64_t i, int64_t m, int64_t n);
/* Swap the last two dims of a view (a transpose, without touching the data). */
void tl_lapack_swap_last(tl_tensor *t);
/* Conjugate a packed complex tensor in place (nothing for real ones). */
void tl_lapack_conj(tl_tensor *t);
/* getrf / getrs on dtype d (F32, F64, C64, C128); return LAPACK's info. */
int tl_lapack_getrf(tl_dtype d, int m, int n, void *a, int lda, int *ipiv);
int tl_lapack_getrs(tl_dtype d, char trans, int n, int nrhs, const void *a, int lda,
                    const int *ipiv, void *b, int ldb);

#endif
