/* tl_linalg.h - matrix products (matmul.c) and decompositions (linalg.c).
 *
 * Shapes follow one legend: B... batch dims, M rows, K the contracted size,
 * N columns.  Every function broadcasts batch dims NumPy-style, allocates
 * `out` (storage == NULL on entry) and names both shapes on a mismatch.
 * float32/64 and complex64/128 run on OpenBLAS/LAPACK; float16/bfloat16 are
 * computed in float32; integer and bool products run our own int64 loop.    */
#ifndef TL_LINALG_H
#define TL_LINALG_H

#include "ndcore/dispatch/tl_parallel.h"
#include "ndcore/tensor/tl_dtype.h"

/* out[B] = alpha * a[B] @ b[B] + beta * out[B].  a: [B..., M, K], b: [B..., K, N]
 * with batch dims broadcasting to out's [B..., M, N], which must be allocated
 * (its values are read only when beta != 0).  With reduce_batch, out is [M, N]
 * and the batch products are summed into it (addbmm). */
tl_status tl_linalg_gemm(tl_tensor *out, const tl_tensor *a, const tl_tensor *b, tl_scalar alpha,
                         tl_scalar beta, bool reduce_batch);

/* The sizes of a gemm call (M, N, K, broadcast batch shape), checked as every
 * device's gemm kernel checks them: out must be [B..., M, N] ([M, N] with
 * reduce_batch) and M, N, K must fit BLAS's ints. */
typedef struct {
  int64_t M, N, K;
  int nb;
  int64_t bshape[TL_MAX_DIMS];
} tl_gemm_shape;
tl_status tl_linalg_gemm_shape(const tl_tensor *out, const tl_tensor *a, const tl_tensor *b,
                               bool reduce_batch, tl_gemm_shape *g);

/* OpenBLAS's thread count follows torchlike.set_num_threads, as PyTorch's BLAS
 * does (blas_threads.c). */
void tl_linalg_set_blas_threads(int n);
int tl_linalg_blas_threads(void); /* OpenBLAS's count now */
/* The user's count: OpenBLAS's, or while a single-thread section runs, what
 * its end restores.  Whether a product needs a section is asked of this one. */
int tl_linalg_blas_user_threads(void);
/* The kernel set OpenBLAS picked when it loaded ("SkylakeX", "Haswell" ...):
 * torchlike/_blas_policy.py explains how it is chosen. */
const char *tl_linalg_blas_corename(void);
/* A section whose BLAS calls run on one OpenBLAS thread (nests, and may be
 * entered from several threads at once). */
void tl_linalg_blas_single_begin(void);
void tl_linalg_blas_single_end(void);
/* fn over [0, n) on our pool, OpenBLAS held to one thread while our threads
 * run their own products; n <= 1 runs inline, BLAS free to use its threads. */
void tl_linalg_parallel_products(int64_t n, int64_t grain, tl_range_fn fn, void *ctx);
/* Whether an M x K by K x N product is small enough to run on one BLAS
 * thread (the policy of tl_linalg_gemm; exposed for its tests). */
bool tl_linalg_gemm_single_thread(int64_t M, int64_t N, int64_t K);
/* C (M, N) = alpha A (M, K) B (K, N) + beta C, row-major, neither operand
 * transposed, as tiles that OpenBLAS's AVX-512 kernels run without packing
 * (gemm_tiles.c has the measurements).  _fit says whether a product (ta, tb:
 * operands transposed) should run so here: untransposed, of the sizes where
 * tiles measured faster, and with BLAS on one thread, as tiles run. */
bool tl_linalg_gemm_tiles_fit(bool ta, bool tb, int64_t M, int64_t N, int64_t K);
void tl_linalg_gemm_tiles(bool f64, double alpha, int64_t M, int64_t N, int64_t K, const void *A,
                          int64_t lda, const void *B, int64_t ldb, double beta, void *C,
                          int64_t ldc);

/* NumPy/PyTorch matmul: 1-d operands are promoted to matrices and the added
 * dim is dropped from the result; batch dims broadcast.  `name` prefixes
 * errors (matmul, mm, bmm, mv, dot). */
tl_status tl_linalg_matmul(tl_tensor *out, const tl_tensor *a, const tl_tensor *b);

/* Product ops with PyTorch's shape checks.  `input` may be NULL when beta == 0. */
typedef enum {
  TL_PRODUCT_MM,      /* [M, K] @ [K, N] */
  TL_PRODUCT_BMM,     /* [B, M, K] @ [B, K, N] */
  TL_PRODUCT_MV,      /* [M, K] @ [K] */
  TL_PRODUCT_DOT,     /* [K] . [K] */
  TL_PRODUCT_VDOT,    /* conj([K]) . [K] */
  TL_PRODUCT_OUTER,   /* [M] x [N] -> [M, N] */
  TL_PRODUCT_INNER,   /* [..., K] . [..., K] -> [...a, ...b] */
  TL_PRODUCT_ADDMM,   /* beta * input + alpha * [M, K] @ [K, N] */
  TL_PRODUCT_ADDBMM,  /* beta * input + alpha * sum_b [B, M, K] @ [B, K, N] */
  TL_PRODUCT_BADDBMM, /* beta * input + alpha * [B, M, K] @ [B, K, N] */
  TL_PRODUCT_ADDMV,   /* beta * input + alpha * [M, K] @ [K] */
  TL_PRODUCT_ADDR,    /* beta * input + alpha * [M] x [N] */
} tl_product;
tl_status tl_linalg_product(tl_product kind, tl_tensor *out, const tl_tensor *input,
                            const tl_tensor *a, const tl_tensor *b, tl_scalar alpha,
                            tl_scalar beta);

/* tensordot: contract a's dims da[i] with b's dims db[i] (n pairs). */
tl_status tl_linalg_tensordot(tl_tensor *out, const tl_tensor *a, const tl_tensor *b, int n,
                              const int64_t *da, const int64_t *db);
/* Kronecker product; the operands are padded with leading 1s to one ndim. */
tl_status tl_linalg_kron(tl_tensor *out, const tl_tensor *a, const tl_tensor *b);
/* Sum of the main diagonal of a 2-d tensor (integers sum into int64). */
tl_status tl_linalg_trace(tl_tensor *out, const tl_tensor *a);

/* ---- decompositions (linalg.c) -------------------------------------------------
 * Inputs are [B..., M, N]; results are batched the same way.  Integral inputs
 * are computed in the default float dtype.  A failure on one matrix of a batch
 * raises TL_ERR_LINALG naming "(Batch element i)". */
tl_dtype tl_linalg_float_dtype(tl_dtype d);
tl_status tl_linalg_solve(tl_tensor *x, const tl_tensor *a, const tl_tensor *b, bool left);
tl_status tl_linalg_inv(tl_tensor *out, const tl_tensor *a);
/* The *_ex forms record LAPACK's info per matrix (int32, batch-shaped) in
 * `info` instead of raising; their results for failed matrices are unspecified. */
tl_status tl_linalg_solve_ex(tl_tensor *x, tl_tensor *info, const tl_tensor *a,
                             const tl_tensor *b, bool left);
tl_status tl_linalg_inv_ex(tl_tensor *out, tl_tensor *info, const tl_tensor *a);
tl_status tl_linalg_cholesky_ex(tl_tensor *out, tl_tensor *info, const tl_tensor *a, bool upper);
tl_status tl_linalg_det(tl_tensor *out, const tl_tensor *a);
tl_status tl_linalg_slogdet(tl_tensor *sign, tl_tensor *logabsdet, const tl_tensor *a);
/* log(det) as PyTorch's logdet: NaN for a negative real determinant. */
tl_status tl_linalg_logdet(tl_tensor *out, const tl_tensor *a);
/* Conjugate transpose of the last two dims (a view for real dtypes). */
tl_status tl_linalg_adjoint(tl_tensor *out, const tl_tensor *a);
tl_status tl_linalg_cholesky(tl_tensor *out, const tl_tensor *a, bool upper);
/* mode: 'r' (reduced), 'c' (complete), 'R' (r only: q left empty). */
tl_status tl_linalg_qr(tl_tensor *q, tl_tensor *r, const tl_tensor *a, char mode);
/* LAPACK's geqrf: a_out holds R on and above the diagonal and the Householder
 * vectors below it, tau their scalar factors (*, min(m, n)); as torch.geqrf. */
tl_status tl_linalg_geqrf(tl_tensor *a_out, tl_tensor *tau, const tl_tensor *a);
/* u, vh left unallocated when compute_uv is false. */
tl_status tl_linalg_svd(tl_tensor *u, tl_tensor *s, tl_tensor *vh, const tl_tensor *a,
                        bool full_matrices, bool compute_uv);
tl_status tl_linalg_eigh(tl_tensor *w, tl_tensor *v, const tl_tensor *a, bool upper,
                         bool compute_v);
tl_status tl_linalg_eig(tl_tensor *w, tl_tensor *v, const tl_tensor *a, bool compute_v);
/* LU with partial pivoting (linalg_lu.c): pivots are 1-based int32. */
tl_status tl_linalg_lu_factor(tl_tensor *lu, tl_tensor *pivots, const tl_tensor *a);
tl_status tl_linalg_lu_factor_ex(tl_tensor *lu, tl_tensor *pivots, tl_tensor *info,
                                const tl_tensor *a);
/* LU without pivoting (PyTorch's pivot=False; src/gpu/linalg/eig_lu.c):
 * devices only, the CPU raises PyTorch's error.  pivots are 1 ... min(m, n);
 * with info NULL a zero pivot raises as lu_factor's. */
tl_status tl_linalg_lu_factor_ex_nopivot(tl_tensor *lu, tl_tensor *pivots, tl_tensor *info,
                                         const tl_tensor *a);
tl_status tl_linalg_lu(tl_tensor *p, tl_tensor *l, tl_tensor *u, const tl_tensor *a);
tl_status tl_linalg_lu_solve(tl_tensor *x, const tl_tensor *lu, const tl_tensor *pivots,
                             const tl_tensor *b, bool left, bool adjoint);
tl_status tl_linalg_solve_triangular(tl_tensor *x, const tl_tensor *a, const tl_tensor *b,
                                     bool upper, bool left, bool unitriangular);
/* Bunch-Kaufman LDL (linalg_ldl.c): LAPACK's sytrf (hetrf when hermitian on
 * complex) on the lower triangle, as torch.linalg.ldl_factor_ex: ld holds L
 * below the diagonal and D's blocks on and beside it (above it zeroed),
 * pivots LAPACK's (int32 [B..., n]: k > 0 a 1x1 block with row k swapped in,
 * -k on both rows of a 2x2 block), info [B...] sytrf's.  ldl_solve: sytrs
 * (hetrs) with ld and b's batch dims broadcast. */
tl_status tl_linalg_ldl_factor_ex(tl_tensor *ld, tl_tensor *pivots, tl_tensor *info,
                                  const tl_tensor *a, bool hermitian);
tl_status tl_linalg_ldl_solve(tl_tensor *x, const tl_tensor *ld, const tl_tensor *pivots,
                              const tl_tensor *b, bool hermitian);
/* driver: "gels", "gelsy", "gelsd", "gelss"; rcond < 0 means the dtype's eps * max(M, N). */
tl_status tl_linalg_lstsq(tl_tensor *x, tl_tensor *residuals, tl_tensor *rank, tl_tensor *sv,
                          const tl_tensor *a, const tl_tensor *b, double rcond,
                          const char *driver);
/* Vector norm over the dims in mask (all when mask == 0 and all_dims). */
tl_status tl_linalg_vector_norm(tl_tensor *out, const tl_tensor *x, double ord, uint64_t mask,
                                bool keepdim, int dtype);
/* pinv through the SVD (or eigh when hermitian); atol/rtol < 0 mean unset. */
tl_status tl_linalg_pinv(tl_tensor *out, const tl_tensor *a, double atol, double rtol,
                         bool hermitian);
tl_status tl_linalg_matrix_rank(tl_tensor *out, const tl_tensor *a, double atol, double rtol,
                                bool hermitian);
tl_status tl_linalg_matrix_power(tl_tensor *out, const tl_tensor *a, int64_t n);
tl_status tl_linalg_cross(tl_tensor *out, const tl_tensor *a, const tl_tensor *b, int64_t dim);

#endif
