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
#include <string.h>

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
/* Matrix i of a packed tensor of column-major rows x cols matrices, as a 2-d
 * view without a reference of its own (the emulated device's stand-ins). */
static inline tl_tensor tl_lapack_packed_matrix(const tl_tensor *packed, int64_t i, int64_t rows,
                                                int64_t cols)
{
  tl_tensor v = *packed;
  v.ndim = 2;
  v.offset += i * rows * cols;
  v.shape[0] = rows;
  v.shape[1] = cols;
  v.strides[0] = 1;
  v.strides[1] = rows;
  return v;
}
/* Swap the last two dims of a view (a transpose, without touching the data). */
void tl_lapack_swap_last(tl_tensor *t);
/* Conjugate a packed complex tensor in place (nothing for real ones). */
void tl_lapack_conj(tl_tensor *t);
/* The workspace (elements of d, at least 1, rounded up) that an lwork = -1
 * query reported in work[0]. */
int tl_lapack_work_size(tl_dtype d, const void *work);
/* getrf / getrs on dtype d (F32, F64, C64, C128); return LAPACK's info. */
int tl_lapack_getrf(tl_dtype d, int m, int n, void *a, int lda, int *ipiv);
int tl_lapack_getrs(tl_dtype d, char trans, int n, int nrhs, const void *a, int lda,
                    const int *ipiv, void *b, int ldb);

/* The LU solve every device shares (linalg.c): shapes checked, a and b
 * broadcast, cast and packed column-major into lu [B..., n, n] and x
 * [B..., n, k] on a's device, info (when asked for) allocated; then the
 * device's `run` factors lu in place, overwrites x with the solution and
 * fills info (all zeros but failed matrices), or raises the first failure
 * through tl_lapack_singular_error. */
typedef struct {
  const char *fn, *singular; /* singular: the message, or NULL for inv's */
  int nb_err;                /* batch dims of the caller's A, for "(Batch element i)" */
  int nb;
  int64_t bshape[TL_MAX_DIMS], count, n, k;
} tl_lapack_solve;
typedef tl_status (*tl_lapack_lu_run)(const tl_lapack_solve *p, tl_tensor *lu, tl_tensor *x,
                                      tl_tensor *info);
/* The errors of a failed cholesky (info = order of the minor) and lu_factor. */
tl_status tl_lapack_cholesky_error(const char *fn, int nb, int64_t batch, int err);
tl_status tl_lapack_lu_factor_error(const char *fn, int nb, int64_t batch, int err);
/* lu_factor's start on any device (linalg_lu.c): a checked, lu its packed
 * column-major copy in the float dtype (factored in place), pivots [B..., k]
 * and info [B...] (when asked for) allocated on a's device, not zeroed.
 * Nothing is left on failure; the release undoes it on a later one. */
tl_status tl_lapack_lu_factor_setup(const char *fn, const tl_tensor *a, tl_tensor *lu,
                                    tl_tensor *pivots, tl_tensor *info);
void tl_lapack_lu_factor_release(tl_tensor *lu, tl_tensor *pivots, tl_tensor *info);
/* qr's (and geqrf's, mode 'g') checks and buffers: f, a zeroed packed
 * column-major [B..., m, wcols] holding a in its first n columns (it grows
 * to hold Q), tau [B..., k], and the results q and r allocated with the
 * shapes of the mode ('r', 'c', 'R' or 'g').  Nothing left on failure. */
typedef struct {
  const char *fn;
  char mode;
  int64_t m, n, k, count, qcols, rrows, wcols;
} tl_lapack_qr;
tl_status tl_lapack_qr_setup(tl_lapack_qr *p, tl_tensor *f, tl_tensor *tau, tl_tensor *q,
                             tl_tensor *r, const tl_tensor *a, char mode);
/* lu_solve's checks, then LU, pivots and B broadcast and packed column-major
 * into f, piv (int32 [B..., n, 1]) and x; left=False is solved as the
 * transposed system (x swapped back by the caller).  p says how: getrs's
 * trans ('N', 'T', 'C'), sizes, and whether x must be conjugated before and
 * after (left=False with adjoint on complex).  Nothing left on failure. */
typedef struct {
  char trans;
  bool conj_rhs;
  int64_t n, k, count;
} tl_lapack_lu_solve;
tl_status tl_lapack_lu_solve_setup(tl_lapack_lu_solve *p, tl_tensor *f, tl_tensor *piv,
                                   tl_tensor *x, const tl_tensor *lu, const tl_tensor *pivots,
                                   const tl_tensor *b, bool left, bool adjoint);
/* A factor (lu_factor's, ldl_factor's), its int32 pivots [B..., n] and the
 * right-hand sides b broadcast to batch bshape and packed column-major into
 * f, piv ([B..., n, 1]) and x, in dtype d; f and piv released on failure. */
tl_status tl_lapack_pack_factor_solve(tl_tensor *f, tl_tensor *piv, tl_tensor *x,
                                      const tl_tensor *factor, const tl_tensor *pivots,
                                      const tl_tensor *b, tl_dtype d, int nb,
                                      const int64_t *bshape);
/* ldl_solve's checks (linalg_ldl.c): *nb and bshape the broadcast batch of
 * LD and B, *d the dtype solved in. */
tl_status tl_lapack_ldl_solve_check(const tl_tensor *ld, const tl_tensor *pivots,
                                    const tl_tensor *b, int *nb, int64_t *bshape, tl_dtype *d);
/* solve_triangular's checks, then a and b broadcast, cast and packed
 * column-major into f and x (count matrices); both released on failure. */
tl_status tl_lapack_triangular_setup(tl_tensor *f, tl_tensor *x, const tl_tensor *a,
                                     const tl_tensor *b, bool left, int64_t *count);
/* The determinants every device shares (linalg.c): checks, a packed
 * column-major copy lu of a, the asked-for outputs ([B...]: det, logdet and
 * sign in a's compute dtype, logabs real) allocated, then the device's `run`
 * fills them from lu (which it may factor in place).  Unasked-for ones stay
 * NULL; all are released on failure. */
typedef struct {
  const char *fn;
  tl_tensor *det, *sign, *logabs, *logdet;
  int64_t count, n; /* set by tl_lapack_lu_det */
} tl_lapack_det;
typedef tl_status (*tl_lapack_det_run)(const tl_lapack_det *p, tl_tensor *lu);
tl_status tl_lapack_lu_det(tl_lapack_det *p, const tl_tensor *a, tl_lapack_det_run run);
/* A device's three entry points (prefix_linalg_det, _slogdet, _logdet)
 * over its LU run. */
#define TL_LAPACK_DET_ENTRIES(prefix, run)                                                  \
  tl_status prefix##_linalg_det(tl_tensor *out, const tl_tensor *a)                         \
  {                                                                                         \
    tl_lapack_det p = {.fn = "linalg.det", .det = out};                                     \
    return tl_lapack_lu_det(&p, a, run);                                                    \
  }                                                                                         \
  tl_status prefix##_linalg_slogdet(tl_tensor *sign, tl_tensor *logabsdet, const tl_tensor *a) \
  {                                                                                         \
    tl_lapack_det p = {.fn = "linalg.slogdet", .sign = sign, .logabs = logabsdet};          \
    return tl_lapack_lu_det(&p, a, run);                                                    \
  }                                                                                         \
  tl_status prefix##_linalg_logdet(tl_tensor *out, const tl_tensor *a)                      \
  {                                                                                         \
    tl_lapack_det p = {.fn = "logdet", .logdet = out};                                      \
    return tl_lapack_lu_det(&p, a, run);                                                    \
  }
/* lstsq's shapes, every device's (linalg.c): b as a matrix vb (a view
 * without a reference of its own; a vector b, of a's ndim - 1 dims, gets a
 * unit last dim), the sizes (ldb = max(m, n): the rows of the solution
 * buffer), the broadcast batch and the compute dtype; PyTorch's error when
 * the rows differ. */
typedef struct {
  tl_tensor vb;
  bool vec;
  int nb;
  int64_t bshape[TL_MAX_DIMS], m, n, k, ldb, count;
  tl_dtype d;
} tl_lapack_lstsq;
tl_status tl_lapack_lstsq_setup(tl_lapack_lstsq *p, const char *fn, const tl_tensor *a,
                                const tl_tensor *b);
/* eigh's error when the solver does not converge (info > 0). */
tl_status tl_lapack_eigh_error(const char *fn, int nb, int64_t batch, int info);
tl_status tl_lapack_singular_error(const tl_lapack_solve *p, int64_t batch, int err);
tl_status tl_lapack_solve_ex(tl_tensor *x, tl_tensor *info, const tl_tensor *a, const tl_tensor *b,
                             bool left, tl_lapack_lu_run run);
tl_status tl_lapack_inv_ex(tl_tensor *out, tl_tensor *info, const tl_tensor *a,
                           tl_lapack_lu_run run);

/* memcpy/memset of whole matrices or batches, which may be empty: an empty
 * tensor's data pointer may be NULL (on a device), and memcpy/memset must not
 * get one even with size 0. */
static inline void tl_lapack_copy(void *dst, const void *src, size_t n)
{
  if (n)
    memcpy(dst, src, n);
}
static inline void tl_lapack_zero(void *dst, size_t n)
{
  if (n)
    memset(dst, 0, n);
}

/* vector_norm's checks on every device (linalg_extra.c): dtypes (dtype < 0
 * when none is given) and orders without an identity over no elements. */
tl_status tl_lapack_vector_norm_check(const tl_tensor *x, double ord, uint64_t mask, int dtype);
/* cross's checks on every device (linalg_extra.c): a and b broadcast to
 * shape [nd], dim wrapped into it (adim, bdim: the same dim in a and b, both
 * of length 3), the promoted dtype. */
typedef struct {
  int nd, dim, adim, bdim;
  int64_t shape[TL_MAX_DIMS];
  tl_dtype dtype;
} tl_lapack_cross;
tl_status tl_lapack_cross_check(tl_lapack_cross *p, const tl_tensor *a, const tl_tensor *b,
                                int64_t dim);
/* vector_norm, cross and lu on devices (linalg_device.c): composed of the
 * device-neutral ops and the device's lu_factor/lu_solve, nothing hosted. */
tl_status tl_linalg_device_vector_norm(tl_tensor *out, const tl_tensor *x, double ord,
                                       uint64_t mask, bool keepdim, int dtype);
tl_status tl_linalg_device_cross(tl_tensor *out, const tl_tensor *a, const tl_tensor *b,
                                 int64_t dim);
tl_status tl_linalg_device_lu(tl_tensor *p, tl_tensor *l, tl_tensor *u, const tl_tensor *a);

#endif
