/* matmul.c - matrix products: one batched GEMM engine and the ops built on it
 * (matmul, mm, bmm, mv, dot, vdot, inner, outer, addmm, addbmm, baddbmm, addmv,
 * addr, tensordot, kron, trace).
 *
 * Legend: B... batch dims, M rows of a, K contracted, N columns of b.
 *
 * The engine hands each matrix to OpenBLAS as it lies in memory whenever BLAS
 * can address it: a row-major matrix (unit column stride, row stride >= cols)
 * goes as NoTrans with lda = row stride, a column-major one as Trans with lda =
 * column stride.  Only other layouts (negative or general strides) are copied.
 * Broadcast batch dims have stride 0 and are never materialised.  When b has
 * no batch of its own and a's batch and row dims form one progression, the
 * whole stack is a single GEMM with B*M rows (a linear layer on [B, T, C]).
 * Integral and bool operands are cast to int64 and run through our own
 * wrap-around loop (int32 results equal int32 arithmetic modulo 2^32);
 * float16/bfloat16 go through float32.                                       */
#include <limits.h>
#include <string.h>

#include "ndcore/linalg/tl_blas.h"

#include "ndcore/kernels/tl_create.h"
#include "ndcore/linalg/tl_linalg.h"
#include "ndcore/dispatch/tl_dispatch.h"
#include "ndcore/dispatch/tl_op.h"
#include "ndcore/dispatch/tl_parallel.h"
#include "ndcore/tensor/tl_views.h"

/* The dtype the engine computes in for results of dtype d. */
static tl_dtype gemm_dtype(tl_dtype d)
{
  switch (d) {
  case TL_DTYPE_F32:
  case TL_DTYPE_F64:
  case TL_DTYPE_C64:
  case TL_DTYPE_C128: return d;
  default: /* float16, bfloat16 and float8 in float32; integers in int64 */
    return tl_dtype_is_reduced_float(d) ? TL_DTYPE_F32 : TL_DTYPE_I64;
  }
}

static int64_t max64(int64_t a, int64_t b) { return a > b ? a : b; }

/* ---- BLAS layouts ----------------------------------------------------------------- */

typedef struct {
  CBLAS_TRANSPOSE trans;
  int64_t ld;
} blas_mat;

/* How BLAS can read a rows x cols matrix with these element strides, if at all.
 * Size-0/1 dims carry no layout, so any stride is fine along them. */
static bool blas_mat_of(int64_t rows, int64_t cols, int64_t rs, int64_t cs, blas_mat *m)
{
  if (rows == 0 || cols == 0) {
    *m = (blas_mat){CblasNoTrans, max64(cols, 1)};
    return true;
  }
  if ((cols == 1 || cs == 1) && (rows == 1 || rs >= cols)) {
    *m = (blas_mat){CblasNoTrans, rows == 1 ? cols : rs};
    return m->ld <= INT_MAX;
  }
  if ((rows == 1 || rs == 1) && (cols == 1 || cs >= rows)) {
    *m = (blas_mat){CblasTrans, cols == 1 ? rows : cs};
    return m->ld <= INT_MAX;
  }
  return false;
}

static bool blas_mat_tensor(const tl_tensor *t, blas_mat *m)
{
  int d = t->ndim;
  return blas_mat_of(t->shape[d - 2], t->shape[d - 1], t->strides[d - 2], t->strides[d - 1], m);
}

/* Can dims [0, n) of (shape, strides) be walked as one dim of stride *step?
 * Size-1 dims are skipped; with no dim larger than 1, *step is left alone. */
static bool fold_dims(int n, const int64_t *shape, const int64_t *strides, int64_t *step)
{
  int64_t expect = -1, inner = 1;
  for (int d = n - 1; d >= 0; d--) {
    if (shape[d] == 1)
      continue;
    if (expect < 0)
      *step = strides[d];
    else if (strides[d] != expect)
      return false;
    inner *= shape[d];
    expect = *step * inner;
  }
  return true;
}

/* ---- the engine -------------------------------------------------------------------- */

typedef struct {
  tl_dtype dtype; /* compute dtype: F32, F64, C64, C128 or I64 */
  int nb;
  int64_t bshape[TL_MAX_DIMS];
  int64_t bstride[3][TL_MAX_DIMS]; /* out, a, b; elements */
  char *data[3];
  int64_t M, N, K;
  int64_t rs[3], cs[3]; /* matrix strides of out, a, b (int loop) */
  blas_mat mat[3];      /* BLAS view of out, a, b */
  double complex alpha, beta;
  bool reduce;
} gemm_plan;

/* c = alpha * a @ b + beta * c on int64, wrapping like two's complement. */
static void igemm(const gemm_plan *p, const char *a, const char *b, char *c, double complex beta)
{
  const int64_t *A = (const int64_t *)a, *Bm = (const int64_t *)b;
  int64_t *C = (int64_t *)c;
  const uint64_t al = (uint64_t)(int64_t)creal(p->alpha), be = (uint64_t)(int64_t)creal(beta);
  for (int64_t i = 0; i < p->M; i++) {
    int64_t *crow = C + i * p->rs[0];
    for (int64_t j = 0; j < p->N; j++)
      crow[j * p->cs[0]] = be ? (int64_t)(be * (uint64_t)crow[j * p->cs[0]]) : 0;
    for (int64_t k = 0; k < p->K; k++) {
      uint64_t aik = al * (uint64_t)A[i * p->rs[1] + k * p->cs[1]];
      const int64_t *brow = Bm + k * p->rs[2];
      if (p->cs[0] == 1 && p->cs[2] == 1) {
        for (int64_t j = 0; j < p->N; j++)
          crow[j] = (int64_t)((uint64_t)crow[j] + aik * (uint64_t)brow[j]);
      } else {
        for (int64_t j = 0; j < p->N; j++)
          crow[j * p->cs[0]] =
              (int64_t)((uint64_t)crow[j * p->cs[0]] + aik * (uint64_t)brow[j * p->cs[2]]);
      }
    }
  }
}

static void gemm_blas(const gemm_plan *p, const char *a, const char *b, char *c,
                      double complex beta)
{
  const int M = (int)p->M, N = (int)p->N, K = (int)p->K;
  const CBLAS_TRANSPOSE ta = p->mat[1].trans, tb = p->mat[2].trans;
  const int lda = (int)p->mat[1].ld, ldb = (int)p->mat[2].ld, ldc = (int)p->mat[0].ld;
  /* on one BLAS thread (a slab, or a small product), as unpacked tiles
   * where those measured faster (gemm_tiles.c) */
  bool real = p->dtype == TL_DTYPE_F32 || p->dtype == TL_DTYPE_F64;
  if (real && tl_linalg_gemm_tiles_fit(ta != CblasNoTrans, tb != CblasNoTrans, M, N, K)) {
    tl_linalg_gemm_tiles(p->dtype == TL_DTYPE_F64, creal(p->alpha), M, N, K, a, lda, b, ldb,
                         creal(beta), c, ldc);
    return;
  }
  switch (p->dtype) {
  case TL_DTYPE_F32:
    TL_BLAS(cblas_sgemm)(CblasRowMajor, ta, tb, M, N, K, (float)creal(p->alpha), (const float *)a, lda,
                (const float *)b, ldb, (float)creal(beta), (float *)c, ldc);
    break;
  case TL_DTYPE_F64:
    TL_BLAS(cblas_dgemm)(CblasRowMajor, ta, tb, M, N, K, creal(p->alpha), (const double *)a, lda,
                (const double *)b, ldb, creal(beta), (double *)c, ldc);
    break;
  case TL_DTYPE_C64: {
    float complex al = (float complex)p->alpha, be = (float complex)beta;
    TL_BLAS(cblas_cgemm)(CblasRowMajor, ta, tb, M, N, K, &al, a, lda, b, ldb, &be, c, ldc);
    break;
  }
  case TL_DTYPE_C128:
    TL_BLAS(cblas_zgemm)(CblasRowMajor, ta, tb, M, N, K, &p->alpha, a, lda, b, ldb, &beta, c, ldc);
    break;
  default:
    igemm(p, a, b, c, beta);
    break;
  }
}

/* A real product cut into slabs of C's rows (or columns, the longer side),
 * each one single-threaded BLAS call on a thread of our pool.  OpenBLAS's
 * own threads keep spinning on their core for a while after each product, so
 * the elementwise, norm and attention kernels that follow (ours, on our
 * pool) shared a core with a spinning thread; with the products on our pool
 * there is one set of threads.  Each element of C is still one dot product
 * over the whole K, blocked the same way, so the cut does not change it. */
typedef struct {
  const gemm_plan *p;
  const char *a, *b;
  char *c;
  double complex beta;
  bool rows;         /* slabs of rows (else of columns) */
  int64_t len, step; /* the side cut, and the slab width (a multiple of 64) */
} gemm_slabs;

static void gemm_slab_range(void *ctx, int64_t begin, int64_t end, int worker)
{
  (void)worker;
  const gemm_slabs *s = ctx;
  const int64_t size = (int64_t)tl_dtype_size(s->p->dtype);
  for (int64_t i = begin; i < end; i++) {
    int64_t lo = i * s->step, n = s->len - lo < s->step ? s->len - lo : s->step;
    gemm_plan q = *s->p;
    const char *a = s->a, *b = s->b;
    char *c = s->c;
    if (s->rows) { /* rows lo.. of a (NoTrans: rows are lda apart; Trans: adjacent) and c */
      q.M = n;
      a += lo * (q.mat[1].trans == CblasNoTrans ? q.mat[1].ld : 1) * size;
      c += lo * q.mat[0].ld * size;
    } else { /* columns lo.. of b and c */
      q.N = n;
      b += lo * (q.mat[2].trans == CblasNoTrans ? 1 : q.mat[2].ld) * size;
      c += lo * size;
    }
    gemm_blas(&q, a, b, c, s->beta);
  }
}

/* A slab per thread, cut only when each is above the single-thread bound
 * (smaller products run whole on one BLAS thread). */
static bool gemm_pooled(const gemm_plan *p, const char *a, const char *b, char *c,
                        double complex beta)
{
  int64_t threads = tl_parallel_get_threads();
  if ((p->dtype != TL_DTYPE_F32 && p->dtype != TL_DTYPE_F64) || threads < 2)
    return false;
  gemm_slabs s = {.p = p, .a = a, .b = b, .c = c, .beta = beta, .rows = p->M >= p->N};
  s.len = s.rows ? p->M : p->N;
  s.step = ((s.len + threads - 1) / threads + 63) / 64 * 64;
  int64_t pieces = (s.len + s.step - 1) / s.step;
  if (pieces < 2 || tl_linalg_gemm_single_thread(s.rows ? s.step : p->M,
                                                 s.rows ? p->N : s.step, p->K))
    return false;
  tl_linalg_parallel_products(pieces, 1, gemm_slab_range, &s);
  return true;
}

/* One product; a small one on one BLAS thread (tl_linalg_gemm_single_thread),
 * a large real one in slabs on our pool. */
static void gemm_one(const gemm_plan *p, const char *a, const char *b, char *c,
                     double complex beta)
{
  if (gemm_pooled(p, a, b, c, beta))
    return;
  bool single = p->dtype != TL_DTYPE_I64 && tl_linalg_gemm_single_thread(p->M, p->N, p->K) &&
                tl_linalg_blas_user_threads() > 1;
  if (single)
    tl_linalg_blas_single_begin();
  gemm_blas(p, a, b, c, beta);
  if (single)
    tl_linalg_blas_single_end();
}

/* The whole batch in one OpenBLAS call when each operand's batch dims fold to
 * one stride: OpenBLAS then spreads the batch over its threads, which beats
 * threading inside each product once they are not tiny.  Complex types stay
 * on the loop: the complex *_batch_strided of this OpenBLAS reads its batch
 * strides in real units (wrong batches past the first when given complex
 * units) and, given doubled strides, ran ~400x slower than the loop. */
static bool gemm_strided(const gemm_plan *p, int64_t nbatch)
{
  int64_t st[3] = {0, 0, 0};
  /* Small products lose more to OpenBLAS's batch threading than they gain
   * (1000 4x4 products: 10x slower than the loop on 2 threads). */
  if ((p->dtype != TL_DTYPE_F32 && p->dtype != TL_DTYPE_F64) || nbatch > INT_MAX ||
      (double)p->M * (double)p->N * (double)p->K < 32768)
    return false;
  /* OpenBLAS gives each thread whole products of the batch: with fewer
   * products than threads (one 2-D matmul) the threads inside each GEMM win. */
  if (nbatch < 2 * (int64_t)tl_parallel_get_threads())
    return false;
  for (int o = 0; o < 3; o++)
    if (!fold_dims(p->nb, p->bshape, p->bstride[o], &st[o]) || st[o] < 0 || st[o] > INT_MAX)
      return false;
  const int M = (int)p->M, N = (int)p->N, K = (int)p->K, nb = (int)nbatch;
  const CBLAS_TRANSPOSE ta = p->mat[1].trans, tb = p->mat[2].trans;
  const int lda = (int)p->mat[1].ld, ldb = (int)p->mat[2].ld, ldc = (int)p->mat[0].ld;
  const int sa = (int)st[1], sb = (int)st[2], sc = (int)st[0];
  switch (p->dtype) {
  case TL_DTYPE_F32:
    TL_BLAS(cblas_sgemm_batch_strided)(CblasRowMajor, ta, tb, M, N, K, (float)creal(p->alpha),
                                       (const float *)p->data[1], lda, sa,
                                       (const float *)p->data[2], ldb, sb, (float)creal(p->beta),
                                       (float *)p->data[0], ldc, sc, nb);
    return true;
  case TL_DTYPE_F64:
    TL_BLAS(cblas_dgemm_batch_strided)(CblasRowMajor, ta, tb, M, N, K, creal(p->alpha),
                                       (const double *)p->data[1], lda, sa,
                                       (const double *)p->data[2], ldb, sb, creal(p->beta),
                                       (double *)p->data[0], ldc, sc, nb);
    return true;
  default:
    return false;
  }
}

/* Operand o's element offset for batch element i (row-major over bshape). */
static int64_t batch_offset(const gemm_plan *p, int o, int64_t i)
{
  int64_t off = 0;
  for (int d = p->nb - 1; d >= 0; d--) {
    off += (i % p->bshape[d]) * p->bstride[o][d];
    i /= p->bshape[d];
  }
  return off;
}

/* A batch of 1 x K by K x 1 products (einsum 'ij,ij->i', vecdot, bmm of
 * row by column): each is one dot product, and a GEMM call per product cost
 * more than the product (a microsecond each; a single long one ran at half
 * the speed of a BLAS dot).  BLAS dots, the batch cut over
 * our pool, each dot on one BLAS thread. */
static void gemm_dot_range(void *ctx, int64_t begin, int64_t end, int worker)
{
  (void)worker;
  const gemm_plan *p = ctx;
  const int64_t size = (int64_t)tl_dtype_size(p->dtype);
  const int K = (int)p->K, ia = (int)p->cs[1], ib = (int)p->rs[2];
  for (int64_t i = begin; i < end; i++) {
    const char *a = p->data[1] + batch_offset(p, 1, i) * size;
    const char *b = p->data[2] + batch_offset(p, 2, i) * size;
    char *c = p->data[0] + batch_offset(p, 0, i) * size;
    if (p->dtype == TL_DTYPE_F64) {
      double v = creal(p->alpha) * TL_BLAS(cblas_ddot)(K, (const double *)a, ia, (const double *)b, ib);
      *(double *)c = p->beta == 0 ? v : v + creal(p->beta) * *(double *)c;
    } else {
      float v = (float)creal(p->alpha) * TL_BLAS(cblas_sdot)(K, (const float *)a, ia, (const float *)b, ib);
      *(float *)c = p->beta == 0 ? v : v + (float)creal(p->beta) * *(float *)c;
    }
  }
}

static bool gemm_dots(gemm_plan *p, int64_t nbatch)
{
  if ((p->dtype != TL_DTYPE_F32 && p->dtype != TL_DTYPE_F64) || p->M != 1 || p->N != 1 ||
      p->reduce || nbatch < 1 || p->K < 1 || p->cs[1] < 1 || p->cs[1] > INT_MAX ||
      p->rs[2] < 1 || p->rs[2] > INT_MAX)
    return false;
  /* one long dot runs inline, BLAS free to thread it */
  tl_linalg_parallel_products(nbatch, 1 + 32768 / p->K, gemm_dot_range, p);
  return true;
}

static void gemm_run(gemm_plan *p)
{
  const int64_t size = (int64_t)tl_dtype_size(p->dtype);
  int64_t nbatch = 1, idx[TL_MAX_DIMS] = {0};
  for (int d = 0; d < p->nb; d++)
    nbatch *= p->bshape[d];
  if (p->M == 0 || p->N == 0)
    return;
  if (nbatch == 0) { /* addbmm over an empty batch: out = beta * out */
    if (p->reduce) {
      int64_t K = p->K;
      p->K = 0;
      gemm_one(p, p->data[1], p->data[2], p->data[0], p->beta);
      p->K = K;
    }
    return;
  }
  if (gemm_dots(p, nbatch) || (!p->reduce && gemm_strided(p, nbatch)))
    return;
  for (int64_t i = 0; i < nbatch; i++) {
    char *ptr[3];
    for (int o = 0; o < 3; o++) {
      int64_t off = 0;
      for (int d = 0; d < p->nb; d++)
        off += idx[d] * p->bstride[o][d];
      ptr[o] = p->data[o] + off * size;
    }
    gemm_one(p, ptr[1], ptr[2], ptr[0], p->reduce && i > 0 ? 1.0 : p->beta);
    for (int d = p->nb - 1; d >= 0 && ++idx[d] == p->bshape[d]; d--)
      idx[d] = 0;
  }
}

static double complex scalar_value(tl_scalar s)
{
  switch (s.kind) {
  case TL_KIND_BOOL: return s.v.b;
  case TL_KIND_INT: return (double)s.v.i;
  case TL_KIND_FLOAT: return s.v.f;
  default: return s.v.c;
  }
}

/* Set up the matrix part of operand o from tensor t (already in p->dtype). */
static void plan_matrix(gemm_plan *p, int o, const tl_tensor *t)
{
  int d = t->ndim;
  p->data[o] = tl_tensor_data(t);
  p->rs[o] = t->strides[d - 2];
  p->cs[o] = t->strides[d - 1];
  blas_mat_tensor(t, &p->mat[o]);
}

/* Batch strides of t aligned to the plan's batch shape (0 where broadcast). */
static void plan_batch(gemm_plan *p, int o, const tl_tensor *t)
{
  int tb = t->ndim - 2, lead = p->nb - tb;
  for (int d = 0; d < p->nb; d++)
    p->bstride[o][d] = d < lead || t->shape[d - lead] == 1 ? 0 : t->strides[d - lead];
}

/* A copy of t in dtype d when the engine cannot use t as it is. */
static tl_status gemm_operand(tl_tensor *tmp, const tl_tensor **t, tl_dtype d, bool *owned)
{
  blas_mat m;
  *owned = false;
  if ((*t)->dtype == d && (d == TL_DTYPE_I64 || blas_mat_tensor(*t, &m)))
    return TL_OK;
  if (tl_tensor_to_dtype(tmp, *t, d) != TL_OK)
    return tl_error_status();
  *t = tmp;
  *owned = true;
  return TL_OK;
}

tl_status tl_linalg_gemm_shape(const tl_tensor *out, const tl_tensor *a, const tl_tensor *b,
                               bool reduce_batch, tl_gemm_shape *g)
{
  char sa[128], sb[128], so[128];
  if (a->ndim < 2 || b->ndim < 2 || out->ndim < 2)
    return tl_error_set(TL_ERR_RUNTIME, "gemm: operands must be matrices");
  g->M = a->shape[a->ndim - 2];
  g->K = a->shape[a->ndim - 1];
  g->N = b->shape[b->ndim - 1];
  if (b->shape[b->ndim - 2] != g->K)
    return tl_error_set(TL_ERR_RUNTIME, "mat1 and mat2 shapes cannot be multiplied (%lldx%lld and "
                        "%lldx%lld)", (long long)g->M, (long long)g->K,
                        (long long)b->shape[b->ndim - 2], (long long)g->N);
  if (tl_shape_broadcast(a->ndim - 2, a->shape, b->ndim - 2, b->shape, &g->nb, g->bshape) != TL_OK)
    return tl_error_status();
  int onb = out->ndim - 2;
  bool shape_ok = out->shape[onb] == g->M && out->shape[onb + 1] == g->N &&
                  (reduce_batch ? onb == 0 : onb == g->nb);
  for (int d = 0; shape_ok && !reduce_batch && d < g->nb; d++)
    shape_ok = out->shape[d] == g->bshape[d];
  if (!shape_ok)
    return tl_error_set(TL_ERR_RUNTIME, "gemm: output of shape %s does not fit %s @ %s",
                        tl_shape_str(so, sizeof so, out->ndim, out->shape),
                        tl_shape_str(sa, sizeof sa, a->ndim, a->shape),
                        tl_shape_str(sb, sizeof sb, b->ndim, b->shape));
  /* an empty product calls no BLAS, whatever its K ((0, 2^62) @ (2^62, 0)) */
  if (g->M > 0 && g->N > 0 && (g->M > INT_MAX || g->N > INT_MAX || g->K > INT_MAX))
    return tl_error_set(TL_ERR_VALUE, "matrix of %lldx%lld @ %lldx%lld is too large for BLAS",
                        (long long)g->M, (long long)g->K, (long long)g->K, (long long)g->N);
  return TL_OK;
}

tl_status tl_cpu_linalg_gemm(tl_tensor *out, const tl_tensor *a, const tl_tensor *b,
                             tl_scalar alpha, tl_scalar beta, bool reduce_batch)
{
  tl_tensor ta = {0}, tb = {0}, tc = {0};
  bool own_a = false, own_b = false, own_c = false;
  tl_status st = TL_OK;
  gemm_plan p = {.dtype = gemm_dtype(out->dtype), .reduce = reduce_batch};
  const tl_tensor *c = out;
  tl_gemm_shape g;

  if (tl_linalg_gemm_shape(out, a, b, reduce_batch, &g) != TL_OK)
    return tl_error_status();
  p.M = g.M;
  p.N = g.N;
  p.K = g.K;
  p.nb = g.nb;
  memcpy(p.bshape, g.bshape, sizeof p.bshape);
  p.alpha = scalar_value(alpha);
  p.beta = scalar_value(beta);
  if (p.dtype == TL_DTYPE_I64 && (alpha.kind >= TL_KIND_FLOAT || beta.kind >= TL_KIND_FLOAT))
    return tl_error_set(TL_ERR_RUNTIME, "For integral input tensors, argument %s must not be a "
                        "floating point number.", alpha.kind >= TL_KIND_FLOAT ? "alpha" : "beta");

  if ((st = gemm_operand(&ta, &a, p.dtype, &own_a)) != TL_OK ||
      (st = gemm_operand(&tb, &b, p.dtype, &own_b)) != TL_OK)
    goto done;
  /* The output must be row-major for BLAS; otherwise work in a copy. */
  blas_mat mc;
  if (out->dtype != p.dtype || !blas_mat_tensor(out, &mc) || mc.trans != CblasNoTrans) {
    st = p.beta != 0 ? tl_tensor_to_dtype(&tc, out, p.dtype)
                     : tl_tensor_empty(&tc, p.dtype, out->ndim, out->shape, tl_tensor_device(out));
    if (st != TL_OK)
      goto done;
    c = &tc;
    own_c = true;
  }
  plan_matrix(&p, 0, c);
  plan_matrix(&p, 1, a);
  plan_matrix(&p, 2, b);
  plan_batch(&p, 1, a);
  plan_batch(&p, 2, b);
  if (!reduce_batch)
    plan_batch(&p, 0, c);
  else
    memset(p.bstride[0], 0, sizeof p.bstride[0]);

  /* One GEMM for the whole stack when b is shared and a's rows fold. */
  bool b_shared = true;
  for (int d = 0; d < p.nb; d++)
    b_shared = b_shared && p.bstride[2][d] == 0;
  if (p.nb > 0 && b_shared && !reduce_batch && p.M > 0 && p.dtype != TL_DTYPE_I64 &&
      p.mat[1].trans == CblasNoTrans) {
    int64_t shp[TL_MAX_DIMS + 1], sa_[TL_MAX_DIMS + 1], sc_[TL_MAX_DIMS + 1];
    int64_t step_a = p.mat[1].ld, step_c = p.mat[0].ld, rows = p.M;
    for (int d = 0; d < p.nb; d++) {
      shp[d] = p.bshape[d];
      sa_[d] = p.bstride[1][d];
      sc_[d] = p.bstride[0][d];
      rows *= p.bshape[d];
    }
    shp[p.nb] = p.M;
    sa_[p.nb] = p.rs[1];
    sc_[p.nb] = p.rs[0];
    if (rows <= INT_MAX && fold_dims(p.nb + 1, shp, sa_, &step_a) &&
        fold_dims(p.nb + 1, shp, sc_, &step_c) && step_a >= max64(p.K, 1) &&
        step_c >= max64(p.N, 1) && step_a <= INT_MAX && step_c <= INT_MAX) {
      p.M = rows;
      p.mat[1].ld = step_a;
      p.mat[0].ld = step_c;
      p.rs[1] = step_a;
      p.rs[0] = step_c;
      p.nb = 0;
    }
  }
  /* Products long enough run without the GIL (tl_parallel.h). */
  double work = (double)p.M * (double)p.N * (double)(p.K > 0 ? p.K : 1);
  for (int d = 0; d < p.nb; d++)
    work *= (double)p.bshape[d];
  tl_unlocked unlocked = tl_parallel_unlock(work < 0x1p62 ? (int64_t)work : INT64_MAX);
  gemm_run(&p);
  tl_parallel_relock(&unlocked);
  if (own_c)
    st = tl_tensor_copy(out, c);
  else
    tl_storage_bump(out->storage);
done:
  if (own_a)
    tl_tensor_release(&ta);
  if (own_b)
    tl_tensor_release(&tb);
  if (own_c)
    tl_tensor_release(&tc);
  return st;
}

/* ---- matmul and friends ------------------------------------------------------------ */

static const tl_scalar ONE = {.kind = TL_KIND_INT, .v.i = 1};
static const tl_scalar ZERO = {.kind = TL_KIND_INT, .v.i = 0};

/* t as a view with a size-1 dim inserted at `at` (0..ndim). */
static void view_insert1(tl_tensor *v, const tl_tensor *t, int at)
{
  *v = *t;
  for (int d = t->ndim; d > at; d--) {
    v->shape[d] = t->shape[d - 1];
    v->strides[d] = t->strides[d - 1];
  }
  v->shape[at] = 1;
  v->strides[at] = 1;
  v->ndim = t->ndim + 1;
}

/* Drop the size-1 dim `at` of a freshly allocated tensor, in place. */
static void drop_dim(tl_tensor *t, int at)
{
  for (int d = at; d < t->ndim - 1; d++) {
    t->shape[d] = t->shape[d + 1];
    t->strides[d] = t->strides[d + 1];
  }
  t->ndim--;
}

/* The products below are composites over the gemm kernel; each one first asks
 * the table for its own op, so that a device without kernels is refused in
 * the name of the op that was called. */
static tl_status check_kernel(tl_op op, const tl_tensor *input, const tl_tensor *a,
                              const tl_tensor *b)
{
  const tl_tensor *ts[3] = {a, b, input};
  return tl_dispatch_kernel(op, a->dtype, 3, ts) ? TL_OK : tl_error_status();
}

/* Matrix products take operands of one dtype, as PyTorch's do (no silent
 * promotion: a float32 @ float64 is a bug in the caller more often than not).
 * NumPy's namespace promotes before it calls in.  input may be NULL.  The
 * refusal is in the words of the PyTorch kernel that meets it first, which
 * differ from product to product (matmul: the kernel its ranks lead to). */
static tl_status check_same_dtype(const char *fn, const tl_tensor *input, const tl_tensor *a,
                                  const tl_tensor *b)
{
  if (a->dtype == b->dtype && (!input || input->dtype == a->dtype))
    return TL_OK;
  const char *sa = tl_dtype_scalar_name(a->dtype), *sb = tl_dtype_scalar_name(b->dtype);
  if (!strcmp(fn, "matmul"))
    fn = a->ndim == 1 && b->ndim == 1 ? "dot" : b->ndim == 1 ? "mv" : b->ndim == 2 ? "mm" : "bmm";
  if (!strcmp(fn, "mm"))
    return tl_error_set(TL_ERR_RUNTIME, "expected m1 and m2 to have the same dtype, but got: "
                        "%s != %s", tl_dtype_cpp_name(a->dtype), tl_dtype_cpp_name(b->dtype));
  if (!strcmp(fn, "bmm"))
    return tl_error_set(TL_ERR_RUNTIME, "expected scalar type %s but found %s", sa, sb);
  if (!strcmp(fn, "dot") || !strcmp(fn, "vdot"))
    return tl_error_set(TL_ERR_RUNTIME, "dot : expected both vectors to have same dtype, but "
                        "found %s and %s", sa, sb);
  if (!strcmp(fn, "mv") || !strcmp(fn, "addmv")) /* mv's result takes the vector's dtype */
    return tl_error_set(TL_ERR_RUNTIME, "addmv input tensors must have the same dtype, but got "
                        "%s, %s, and %s", tl_dtype_scalar_name(input ? input->dtype : b->dtype),
                        sa, sb);
  if (!strcmp(fn, "addmm") || !strcmp(fn, "addbmm")) {
    if (input && input->dtype != b->dtype)
      return tl_error_set(TL_ERR_RUNTIME, "self and mat2 must have the same dtype, but got %s "
                          "and %s", tl_dtype_scalar_name(input->dtype), sb);
    return tl_error_set(TL_ERR_RUNTIME, "mat1 and mat2 must have the same dtype, but got %s and "
                        "%s", sa, sb);
  }
  if (!strcmp(fn, "baddbmm")) {
    if (input && input->dtype != a->dtype)
      return tl_error_set(TL_ERR_RUNTIME, "Input dtypes must be the same, got: input %s, batch1: "
                          "%s, batch2: %s", tl_dtype_cpp_name(input->dtype),
                          tl_dtype_cpp_name(a->dtype), tl_dtype_cpp_name(b->dtype));
    return tl_error_set(TL_ERR_RUNTIME, "expected scalar type %s but found %s", sa, sb);
  }
  if (!strcmp(fn, "inner") || !strcmp(fn, "tensordot"))
    return tl_error_set(TL_ERR_RUNTIME, "both inputs should have same dtype");
  const tl_tensor *other = a->dtype != b->dtype ? b : input;
  return tl_error_set(TL_ERR_RUNTIME, "%s: expected all operands to have the same dtype, but got "
                      "%s and %s", fn, tl_dtype_names[a->dtype], tl_dtype_names[other->dtype]);
}

tl_status tl_linalg_matmul(tl_tensor *out, const tl_tensor *a, const tl_tensor *b)
{
  char sa[128], sb[128];
  if (a->ndim == 0 || b->ndim == 0)
    return tl_error_set(TL_ERR_RUNTIME, "both arguments to matmul need to be at least 1D, but "
                        "they are %dD and %dD", a->ndim, b->ndim);
  if (check_kernel(TL_OP_MATMUL, NULL, a, b) != TL_OK ||
      check_same_dtype("matmul", NULL, a, b) != TL_OK)
    return tl_error_status();
  tl_tensor va, vb;
  if (a->ndim == 1)
    view_insert1(&va, a, 0);
  else
    va = *a;
  if (b->ndim == 1)
    view_insert1(&vb, b, 1);
  else
    vb = *b;
  int64_t M = va.shape[va.ndim - 2], K = va.shape[va.ndim - 1];
  int64_t K2 = vb.shape[vb.ndim - 2], N = vb.shape[vb.ndim - 1];
  if (K != K2) {
    if (a->ndim == 1 && b->ndim == 1)
      return tl_error_set(TL_ERR_RUNTIME, "inconsistent tensor size, expected tensor [%lld] and "
                          "src [%lld] to have the same number of elements, but got %lld and %lld "
                          "elements respectively", (long long)K, (long long)K2, (long long)K,
                          (long long)K2);
    if (a->ndim == 2 && b->ndim == 1) /* PyTorch's mv */
      return tl_error_set(TL_ERR_RUNTIME, "size mismatch, got input (%lld), mat (%lldx%lld), vec "
                          "(%lld)", (long long)M, (long long)M, (long long)K, (long long)K2);
    if (a->ndim <= 2 && b->ndim <= 2) /* PyTorch's mm */
      return tl_error_set(TL_ERR_RUNTIME, "mm: mat1 and mat2 shapes cannot be multiplied "
                          "(%lldx%lld and %lldx%lld)", (long long)M, (long long)K, (long long)K2,
                          (long long)N);
    return tl_error_set(TL_ERR_RUNTIME, "matmul: shapes %s and %s cannot be multiplied (%lldx%lld "
                        "and %lldx%lld)", tl_shape_str(sa, sizeof sa, a->ndim, a->shape),
                        tl_shape_str(sb, sizeof sb, b->ndim, b->shape), (long long)M,
                        (long long)K, (long long)K2, (long long)N);
  }
  int nb;
  int64_t shape[TL_MAX_DIMS + 2];
  if (tl_shape_broadcast(va.ndim - 2, va.shape, vb.ndim - 2, vb.shape, &nb, shape) != TL_OK) {
    tl_error_clear();
    return tl_error_set(TL_ERR_RUNTIME, "matmul: batch dimensions of %s and %s do not broadcast",
                        tl_shape_str(sa, sizeof sa, a->ndim, a->shape),
                        tl_shape_str(sb, sizeof sb, b->ndim, b->shape));
  }
  shape[nb] = M;
  shape[nb + 1] = N;
  if (tl_tensor_empty(out, tl_promote_types(a->dtype, b->dtype), nb + 2, shape,
                      tl_tensor_device(a)) != TL_OK)
    return tl_error_status();
  if (tl_linalg_gemm(out, &va, &vb, ONE, ZERO, false) != TL_OK) {
    tl_tensor_release(out);
    return tl_error_status();
  }
  if (b->ndim == 1)
    drop_dim(out, out->ndim - 1);
  if (a->ndim == 1)
    drop_dim(out, out->ndim - (b->ndim == 1 ? 1 : 2));
  return TL_OK;
}

static tl_op product_op(tl_product kind)
{
  static const tl_op ops[] = {TL_OP_MM,    TL_OP_BMM,    TL_OP_MV,      TL_OP_DOT,
                              TL_OP_VDOT,  TL_OP_OUTER,  TL_OP_INNER,   TL_OP_ADDMM,
                              TL_OP_ADDBMM, TL_OP_BADDBMM, TL_OP_ADDMV, TL_OP_ADDR};
  return ops[kind];
}

static const char *product_name(tl_product kind)
{
  static const char *const names[] = {"mm", "bmm", "mv", "dot", "vdot", "outer", "inner",
                                      "addmm", "addbmm", "baddbmm", "addmv", "addr"};
  return names[kind];
}

static tl_status expect_dims(tl_product kind, const char *what, const tl_tensor *t, int ndim)
{
  if (t->ndim == ndim)
    return TL_OK;
  return tl_error_set(TL_ERR_RUNTIME, "%s: %s must be a %dD tensor, but got a %dD tensor",
                      product_name(kind), what, ndim, t->ndim);
}

/* Copy of a complex tensor's conjugate (other dtypes: a plain view), made by
 * the conj op so that it runs on the tensor's own device. */
static tl_status conj_copy(tl_tensor *out, const tl_tensor *t)
{
  if (!tl_dtype_is_complex(t->dtype)) {
    tl_tensor_view_of(out, t);
    return TL_OK;
  }
  const tl_arg in = {.t = t};
  *out = (tl_tensor){0};
  return tl_op_map(TL_OP_CONJ_PHYSICAL, 1, &in, out, NULL);
}

tl_status tl_linalg_product(tl_product kind, tl_tensor *out, const tl_tensor *input,
                            const tl_tensor *a, const tl_tensor *b, tl_scalar alpha,
                            tl_scalar beta)
{
  char sa[128], sb[128], si[128];
  const char *name = product_name(kind);
  tl_tensor va = *a, vb = *b, conj = {0};
  int64_t shape[TL_MAX_DIMS];
  int ndim = 0, drop = -1;
  bool reduce = false, has_input = kind >= TL_PRODUCT_ADDMM;
  tl_status st = TL_OK;
  tl_dtype dtype = tl_promote_types(a->dtype, b->dtype);
  if (has_input && input)
    dtype = tl_promote_types(dtype, input->dtype);

  /* inner with a 0-d operand is PyTorch's input * other, an elementwise
   * product: there a 0-d CPU tensor may meet a device tensor */
  if (kind == TL_PRODUCT_INNER && (a->ndim == 0 || b->ndim == 0)) {
    const tl_arg factors[2] = {{.t = a}, {.t = b}}; /* promoted, as mul promotes */
    *out = (tl_tensor){0};
    return tl_op_map(TL_OP_MUL, 2, factors, out, NULL);
  }
  if (check_kernel(product_op(kind), has_input ? input : NULL, a, b) != TL_OK)
    return tl_error_status();
  /* outer and addr are elementwise products in PyTorch: they promote */
  if (kind != TL_PRODUCT_OUTER && kind != TL_PRODUCT_ADDR &&
      check_same_dtype(name, has_input ? input : NULL, a, b) != TL_OK)
    return tl_error_status();
  switch (kind) {
  case TL_PRODUCT_MM:
  case TL_PRODUCT_ADDMM:
    if (expect_dims(kind, "mat1", a, 2) || expect_dims(kind, "mat2", b, 2))
      return tl_error_status();
    if (a->shape[1] != b->shape[0]) /* PyTorch's words, its op's name first */
      return tl_error_set(TL_ERR_RUNTIME, "%s: mat1 and mat2 shapes cannot be multiplied "
                          "(%lldx%lld and %lldx%lld)", name, (long long)a->shape[0],
                          (long long)a->shape[1], (long long)b->shape[0], (long long)b->shape[1]);
    break;
  case TL_PRODUCT_BMM:
  case TL_PRODUCT_BADDBMM:
  case TL_PRODUCT_ADDBMM:
    if (expect_dims(kind, "batch1", a, 3) || expect_dims(kind, "batch2", b, 3))
      return tl_error_status();
    if (a->shape[0] != b->shape[0] || a->shape[2] != b->shape[1])
      return tl_error_set(TL_ERR_RUNTIME, "%s: expected batch2 of size [%lld, %lld, *] for "
                          "batch1 %s, but got batch2 %s", name, (long long)a->shape[0],
                          (long long)a->shape[2], tl_shape_str(sa, sizeof sa, 3, a->shape),
                          tl_shape_str(sb, sizeof sb, 3, b->shape));
    reduce = kind == TL_PRODUCT_ADDBMM;
    break;
  case TL_PRODUCT_MV:
  case TL_PRODUCT_ADDMV:
    if (expect_dims(kind, "mat", a, 2) || expect_dims(kind, "vec", b, 1))
      return tl_error_status();
    if (a->shape[1] != b->shape[0])
      return tl_error_set(TL_ERR_RUNTIME, "size mismatch, got input (%lld), mat (%lldx%lld), vec "
                          "(%lld)", (long long)a->shape[0], (long long)a->shape[0],
                          (long long)a->shape[1], (long long)b->shape[0]);
    view_insert1(&vb, b, 1);
    drop = 1;
    break;
  case TL_PRODUCT_DOT:
  case TL_PRODUCT_VDOT:
    if (a->ndim != 1 || b->ndim != 1)
      return tl_error_set(TL_ERR_RUNTIME, "1D tensors expected, but got %dD and %dD tensors",
                          a->ndim, b->ndim);
    if (a->shape[0] != b->shape[0])
      return tl_error_set(TL_ERR_RUNTIME, "inconsistent tensor size, expected tensor [%lld] and "
                          "src [%lld] to have the same number of elements, but got %lld and %lld "
                          "elements respectively", (long long)a->shape[0], (long long)b->shape[0],
                          (long long)a->shape[0], (long long)b->shape[0]);
    if (kind == TL_PRODUCT_VDOT) {
      if (conj_copy(&conj, a) != TL_OK)
        return tl_error_status();
      va = conj;
    }
    view_insert1(&va, &va, 0);
    view_insert1(&vb, b, 1);
    drop = 0;
    break;
  case TL_PRODUCT_OUTER:
  case TL_PRODUCT_ADDR:
    if (a->ndim != 1 || b->ndim != 1)
      return tl_error_set(TL_ERR_RUNTIME, "%s: expected 1D vectors, but got %dD and %dD tensors",
                          name, a->ndim, b->ndim);
    view_insert1(&va, a, 1);
    view_insert1(&vb, b, 0);
    if (kind == TL_PRODUCT_OUTER) {
      /* a column times a row, elementwise as PyTorch's outer: a GEMM of
       * depth 1 adds each product to a zero, and 0 + -0.0 lost the sign */
      const tl_arg factors[2] = {{.t = &va}, {.t = &vb}};
      *out = (tl_tensor){0};
      return tl_op_map(TL_OP_MUL, 2, factors, out, NULL);
    }
    break;
  case TL_PRODUCT_INNER: {
    int64_t K = a->shape[a->ndim - 1];
    if (b->shape[b->ndim - 1] != K)
      return tl_error_set(TL_ERR_RUNTIME, "inner() the last dimension must match on both input "
                          "tensors but got shapes %s and %s",
                          tl_shape_str(sa, sizeof sa, a->ndim, a->shape),
                          tl_shape_str(sb, sizeof sb, b->ndim, b->shape));
    int64_t d[1] = {a->ndim - 1}, e[1] = {b->ndim - 1};
    return tl_linalg_tensordot(out, a, b, 1, d, e);
  }
  }
  if (has_input && !input)
    return tl_error_set(TL_ERR_RUNTIME, "%s: input tensor missing", name);

  /* Result shape: batch + [M, N], then the dim a vector operand added is dropped. */
  int nb = va.ndim - 2;
  if (!reduce)
    for (int d = 0; d < nb; d++)
      shape[ndim++] = va.shape[d];
  shape[ndim++] = va.shape[va.ndim - 2];
  shape[ndim++] = vb.shape[vb.ndim - 1];
  if ((st = tl_tensor_empty(out, dtype, ndim, shape, tl_tensor_device(a))) != TL_OK)
    goto done;
  bool use_input = has_input && scalar_value(beta) != 0;
  if (use_input) {
    /* input broadcasts to the result (to the vector result for addmv). */
    tl_tensor target = *out;
    if (drop >= 0)
      drop_dim(&target, drop == 1 ? target.ndim - 1 : target.ndim - 2);
    int bnd;
    int64_t bshape[TL_MAX_DIMS];
    bool ok = input->ndim <= target.ndim &&
              tl_shape_broadcast(input->ndim, input->shape, target.ndim, target.shape, &bnd,
                                 bshape) == TL_OK &&
              bnd == target.ndim && !memcmp(bshape, target.shape, sizeof(int64_t) * (size_t)bnd);
    if (!ok) {
      tl_error_clear();
      st = tl_error_set(TL_ERR_RUNTIME, "%s: the input of shape %s cannot be broadcast to the "
                        "result shape %s", name, tl_shape_str(si, sizeof si, input->ndim,
                                                              input->shape),
                        tl_shape_str(sa, sizeof sa, target.ndim, target.shape));
      goto fail;
    }
    if ((st = tl_tensor_copy(&target, input)) != TL_OK)
      goto fail;
  }
  if ((st = tl_linalg_gemm(out, &va, &vb, alpha, use_input ? beta : ZERO, reduce)) != TL_OK)
    goto fail;
  if (drop >= 0)
    drop_dim(out, drop == 1 ? out->ndim - 1 : out->ndim - 2);
  if (kind == TL_PRODUCT_DOT || kind == TL_PRODUCT_VDOT)
    drop_dim(out, 0);
  goto done;
fail:
  tl_tensor_release(out);
done:
  if (conj.storage)
    tl_tensor_release(&conj);
  return st;
}

/* ---- tensordot, kron, trace ------------------------------------------------ */

tl_status tl_linalg_tensordot(tl_tensor *out, const tl_tensor *a, const tl_tensor *b, int n,
                              const int64_t *da, const int64_t *db)
{
  char sa[128], sb[128];
  uint64_t ma = 0, mb = 0;
  int64_t pa[TL_MAX_DIMS], pb[TL_MAX_DIMS], oshape[TL_MAX_DIMS];
  int npa = 0, npb = 0, ond = 0;
  int64_t P = 1, Q = 1, K = 1;
  tl_tensor xa = {0}, xb = {0}, ra = {0}, rb = {0}, prod = {0};
  tl_status st = TL_OK;

  if (check_kernel(TL_OP_TENSORDOT, NULL, a, b) != TL_OK ||
      check_same_dtype("tensordot", NULL, a, b) != TL_OK)
    return tl_error_status();
  if (n > a->ndim || n > b->ndim)
    return tl_error_set(TL_ERR_RUNTIME, "tensordot expects at most %d contracted dims, got %d",
                        a->ndim < b->ndim ? a->ndim : b->ndim, n);
  for (int i = 0; i < n; i++) {
    int x, y;
    if (tl_dim_wrap(da[i], a->ndim, &x) != TL_OK || tl_dim_wrap(db[i], b->ndim, &y) != TL_OK)
      return tl_error_status();
    if ((ma >> x & 1) || (mb >> y & 1))
      return tl_error_set(TL_ERR_RUNTIME, "tensordot: a dim appears twice in dims");
    if (a->shape[x] != b->shape[y])
      return tl_error_set(TL_ERR_RUNTIME, "contracted dimensions need to match, but first has "
                          "size %lld in dim %d and second has size %lld in dim %d (shapes %s and "
                          "%s)", (long long)a->shape[x], x, (long long)b->shape[y], y,
                          tl_shape_str(sa, sizeof sa, a->ndim, a->shape),
                          tl_shape_str(sb, sizeof sb, b->ndim, b->shape));
    ma |= (uint64_t)1 << x;
    mb |= (uint64_t)1 << y;
    pa[a->ndim - n + i] = x;
    pb[i] = y;
    K *= a->shape[x];
  }
  for (int d = 0; d < a->ndim; d++)
    if (!(ma >> d & 1)) {
      pa[npa++] = d;
      P *= a->shape[d];
      oshape[ond++] = a->shape[d];
    }
  for (int d = 0; d < b->ndim; d++)
    if (!(mb >> d & 1)) {
      pb[n + npb++] = d;
      Q *= b->shape[d];
      oshape[ond++] = b->shape[d];
    }
  if (ond > TL_MAX_DIMS)
    return tl_error_set(TL_ERR_VALUE, "tensordot: result would have %d dims", ond);
  if ((st = tl_view_permute(&xa, a, a->ndim, pa)) != TL_OK ||
      (st = tl_view_permute(&xb, b, b->ndim, pb)) != TL_OK ||
      (st = tl_view_reshape(&ra, &xa, 2, (int64_t[]){P, K}, true)) != TL_OK ||
      (st = tl_view_reshape(&rb, &xb, 2, (int64_t[]){K, Q}, true)) != TL_OK)
    goto done;
  if (K == 1) {
    /* nothing summed (dims=0, or contracted dims of size 1): the products
     * themselves, elementwise as PyTorch's, where a GEMM adds each to a
     * zero and 0 + -0.0 loses the sign */
    const tl_arg factors[2] = {{.t = &ra}, {.t = &rb}};
    st = tl_op_map(TL_OP_MUL, 2, factors, &prod, NULL);
  } else if ((st = tl_tensor_empty(&prod, tl_promote_types(a->dtype, b->dtype), 2,
                                   (int64_t[]){P, Q}, tl_tensor_device(a))) == TL_OK) {
    st = tl_linalg_gemm(&prod, &ra, &rb, ONE, ZERO, false);
  }
  if (st != TL_OK)
    goto done;
  *out = prod;
  prod.storage = NULL;
  out->ndim = ond;
  memcpy(out->shape, oshape, sizeof(int64_t) * (size_t)ond);
  tl_shape_contiguous_strides(ond, oshape, out->strides);
done:
  if (xa.storage)
    tl_tensor_release(&xa);
  if (xb.storage)
    tl_tensor_release(&xb);
  if (ra.storage)
    tl_tensor_release(&ra);
  if (rb.storage)
    tl_tensor_release(&rb);
  if (prod.storage)
    tl_tensor_release(&prod);
  return st;
}

tl_status tl_linalg_kron(tl_tensor *out, const tl_tensor *a, const tl_tensor *b)
{
  if (check_kernel(TL_OP_KRON, NULL, a, b) != TL_OK)
    return tl_error_status();
  int nd = a->ndim > b->ndim ? a->ndim : b->ndim;
  tl_tensor fa = {0}, fb = {0}, outer = {0}, perm = {0};
  int64_t na = tl_tensor_numel(a), nbe = tl_tensor_numel(b);
  int64_t split[2 * TL_MAX_DIMS], order[2 * TL_MAX_DIMS], rshape[TL_MAX_DIMS];
  tl_status st;
  if (2 * nd > TL_MAX_DIMS)
    return tl_error_set(TL_ERR_VALUE, "kron: operands have too many dims (%d)", nd);
  /* outer product of the flattened operands, seen as [a dims..., b dims...],
   * interleaved to [a0, b0, a1, b1, ...] and merged pairwise. */
  if ((st = tl_view_reshape(&fa, a, 1, &na, true)) != TL_OK ||
      (st = tl_view_reshape(&fb, b, 1, &nbe, true)) != TL_OK ||
      (st = tl_linalg_product(TL_PRODUCT_OUTER, &outer, NULL, &fa, &fb, ONE, ZERO)) != TL_OK)
    goto done;
  for (int d = 0; d < nd; d++) {
    int64_t sa_ = d < nd - a->ndim ? 1 : a->shape[d - (nd - a->ndim)];
    int64_t sb_ = d < nd - b->ndim ? 1 : b->shape[d - (nd - b->ndim)];
    split[d] = sa_;
    split[nd + d] = sb_;
    order[2 * d] = d;
    order[2 * d + 1] = nd + d;
    rshape[d] = sa_ * sb_;
  }
  tl_tensor v;
  if ((st = tl_view_reshape(&v, &outer, 2 * nd, split, false)) != TL_OK)
    goto done;
  st = tl_view_permute(&perm, &v, 2 * nd, order);
  tl_tensor_release(&v);
  if (st == TL_OK)
    st = tl_view_reshape(out, &perm, nd, rshape, true);
done:
  if (fa.storage)
    tl_tensor_release(&fa);
  if (fb.storage)
    tl_tensor_release(&fb);
  if (outer.storage)
    tl_tensor_release(&outer);
  if (perm.storage)
    tl_tensor_release(&perm);
  return st;
}

tl_status tl_linalg_trace(tl_tensor *out, const tl_tensor *a)
{
  if (check_kernel(TL_OP_TRACE, NULL, a, a) != TL_OK)
    return tl_error_status();
  if (a->ndim != 2)
    return tl_error_set(TL_ERR_RUNTIME, "trace: expected a matrix, but got tensor with dim %d",
                        a->ndim);
  tl_dtype dt = tl_dtype_is_integral(a->dtype) ? TL_DTYPE_I64 : a->dtype;
  tl_tensor diag = {0}, ones = {0};
  tl_status st;
  if ((st = tl_view_diagonal(&diag, a, 0, 0, 1)) != TL_OK)
    return st;
  if (dt == TL_DTYPE_I64) {
    /* Integers sum the diagonal into int64 (wrapping): a reduction, which
     * every device has, where CUDA has no integer GEMM. */
    const tl_reduce_args args = {.dims = 1, .keepdim = false, .dtype = TL_DTYPE_I64};
    *out = (tl_tensor){0};
    st = tl_op_reduce(TL_OP_SUM, &diag, &args, out, NULL);
    tl_tensor_release(&diag);
    return st;
  }
  /* the diagonal as [1, n] times ones [n, 1]: a sum that BLAS does for us. */
  int64_t n = diag.shape[0];
  tl_tensor row;
  view_insert1(&row, &diag, 0);
  if ((st = tl_tensor_empty(&ones, dt, 2, (int64_t[]){n, 1}, tl_tensor_device(a))) != TL_OK ||
      (st = tl_tensor_fill(&ones, ONE)) != TL_OK ||
      (st = tl_tensor_empty(out, dt, 2, (int64_t[]){1, 1}, tl_tensor_device(a))) != TL_OK)
    goto done;
  if ((st = tl_linalg_gemm(out, &row, &ones, ONE, ZERO, false)) != TL_OK) {
    tl_tensor_release(out);
    goto done;
  }
  out->ndim = 0;
done:
  tl_tensor_release(&diag);
  if (ones.storage)
    tl_tensor_release(&ones);
  return st;
}
