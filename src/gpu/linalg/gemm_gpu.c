/* gemm_gpu.c - the CUDA gemm kernel of the linalg set: every matrix product
 * (mm, matmul, bmm, mv, dot, vdot, inner, outer, addmm, addbmm, baddbmm,
 * addmv, addr, tensordot, kron, trace) reaches it through tl_linalg_gemm.
 *
 * Legend: B... batch dims, M rows of a, K contracted, N columns of b.
 *
 * cuBLAS is column-major.  A row-major matrix X (unit column stride) read
 * column-major is X^T; a column-major one (unit row stride) is X.  So with a
 * column-major output C = op(A) op(B), and with a row-major one we compute
 * C^T = op(B^T) op(A^T) instead; each operand goes as it lies, NoTrans when
 * its layout is the output's and Trans otherwise.  Only a matrix with
 * neither layout (general or negative strides) is copied.  Batch dims are
 * never materialised: the longest run of trailing batch dims whose strides
 * fold to one stride per operand (0 for a broadcast operand) becomes one
 * strided-batched call, and the leading dims are looped over on the host.
 * addbmm (reduce_batch) accumulates one product at a time into out.
 *
 * float32/64 and complex64/128 run cublas<t>gemmStridedBatched (float32 on
 * TF32 tensor cores only when torchlike.backends.cuda.matmul.allow_tf32 is
 * set); float16/bfloat16 run cublasGemmStridedBatchedEx with float32
 * compute.  Integer products are refused as PyTorch refuses them on CUDA.   */
#include "gpu/tl_gpu.h"

#ifdef TL_WITH_CUDA
#include <limits.h>
#include <string.h>

#include <cuComplex.h>
#include <cuda_runtime_api.h>

#include "gpu/linalg/tl_gpu_cublas.h"
#include "gpu/linalg/tl_gpu_linalg.h"
#include "gpu/tl_gpu_host.h"
#include "ndcore/linalg/tl_linalg.h"
#include "nn/tl_nn_work.h" /* tl_dtype_scalar_name: PyTorch's dtype names */

typedef enum { LAYOUT_NONE, LAYOUT_COL, LAYOUT_ROW } layout;

typedef struct {
  layout lay;
  int64_t ld; /* leading dimension of the matrix as cuBLAS reads it */
} mat_view;

static int64_t max64(int64_t a, int64_t b) { return a > b ? a : b; }

/* How cuBLAS can read a rows x cols matrix with element strides (rs, cs):
 * column-major (itself) or row-major (its transpose), `prefer` when both do.
 * Size-0/1 dims carry no layout. */
static mat_view view_of(int64_t rows, int64_t cols, int64_t rs, int64_t cs, layout prefer)
{
  bool col = rows == 0 || cols == 0 ||
             ((rows == 1 || rs == 1) && (cols == 1 || cs >= rows));
  bool row = rows > 0 && cols > 0 && (cols == 1 || cs == 1) && (rows == 1 || rs >= cols);
  mat_view col_v = {LAYOUT_COL, rows == 0 || cols == 0 || cols == 1 ? max64(rows, 1) : cs};
  mat_view row_v = {LAYOUT_ROW, rows == 1 ? max64(cols, 1) : rs};
  if (col && row)
    return prefer == LAYOUT_ROW ? row_v : col_v;
  if (col)
    return col_v.ld <= INT_MAX ? col_v : (mat_view){LAYOUT_NONE, 0};
  if (row)
    return row_v.ld <= INT_MAX ? row_v : (mat_view){LAYOUT_NONE, 0};
  return (mat_view){LAYOUT_NONE, 0};
}

static mat_view view_of_tensor(const tl_tensor *t, layout prefer)
{
  int d = t->ndim;
  return view_of(t->shape[d - 2], t->shape[d - 1], t->strides[d - 2], t->strides[d - 1], prefer);
}

static bool gemm_supported(tl_dtype d)
{
  return d == TL_DTYPE_F32 || d == TL_DTYPE_F64 || d == TL_DTYPE_C64 || d == TL_DTYPE_C128 ||
         d == TL_DTYPE_F16 || d == TL_DTYPE_BF16;
}

/* One operand of the call: data, cuBLAS view, batch strides over bshape. */
typedef struct {
  const tl_tensor *t;
  char *data;
  mat_view v;
  int64_t bstride[TL_MAX_DIMS];
} operand;

static void operand_batch(operand *o, int nb, bool reduced)
{
  const tl_tensor *t = o->t;
  int tb = t->ndim - 2, lead = nb - tb;
  for (int d = 0; d < nb; d++)
    o->bstride[d] = reduced || d < lead || t->shape[d - lead] == 1 ? 0 : t->strides[d - lead];
  o->data = tl_tensor_data(t);
}

/* Do batch dims [from, nb) fold to one stride for o (size-1 dims skipped)? */
static bool folds(const operand *o, int from, int nb, const int64_t *bshape, int64_t *step)
{
  int64_t expect = -1, inner = 1;
  *step = 0;
  for (int d = nb - 1; d >= from; d--) {
    if (bshape[d] == 1)
      continue;
    if (expect < 0)
      *step = o->bstride[d];
    else if (o->bstride[d] != expect)
      return false;
    inner *= bshape[d];
    expect = *step * inner;
  }
  return true;
}

typedef struct {
  cublasHandle_t h;
  tl_dtype dtype;
  bool tf32;
  cublasOperation_t op1, op2;
  int m, n, k, ld1, ld2, ldc;
  double complex alpha, beta;
} gemm_call;

/* c = alpha * op1(x1) op2(x2) + beta * c for `count` products `stride*` apart. */
static tl_status gemm_batched(const gemm_call *g, const char *x1, int64_t s1, const char *x2,
                              int64_t s2, char *c, int64_t sc, int count, double complex beta)
{
  cublasStatus_t st;
  switch (g->dtype) {
  case TL_DTYPE_F32: {
    float al = (float)creal(g->alpha), be = (float)creal(beta);
    if (g->tf32)
      st = cublasGemmStridedBatchedEx(g->h, g->op1, g->op2, g->m, g->n, g->k, &al, x1, CUDA_R_32F,
                                      g->ld1, s1, x2, CUDA_R_32F, g->ld2, s2, &be, c, CUDA_R_32F,
                                      g->ldc, sc, count, CUBLAS_COMPUTE_32F_FAST_TF32,
                                      CUBLAS_GEMM_DEFAULT);
    else
      st = cublasSgemmStridedBatched(g->h, g->op1, g->op2, g->m, g->n, g->k, &al,
                                     (const float *)x1, g->ld1, s1, (const float *)x2, g->ld2, s2,
                                     &be, (float *)c, g->ldc, sc, count);
    break;
  }
  case TL_DTYPE_F64: {
    double al = creal(g->alpha), be = creal(beta);
    st = cublasDgemmStridedBatched(g->h, g->op1, g->op2, g->m, g->n, g->k, &al,
                                   (const double *)x1, g->ld1, s1, (const double *)x2, g->ld2, s2,
                                   &be, (double *)c, g->ldc, sc, count);
    break;
  }
  case TL_DTYPE_C64: {
    cuComplex al = make_cuComplex((float)creal(g->alpha), (float)cimag(g->alpha));
    cuComplex be = make_cuComplex((float)creal(beta), (float)cimag(beta));
    st = cublasCgemmStridedBatched(g->h, g->op1, g->op2, g->m, g->n, g->k, &al,
                                   (const cuComplex *)x1, g->ld1, s1, (const cuComplex *)x2,
                                   g->ld2, s2, &be, (cuComplex *)c, g->ldc, sc, count);
    break;
  }
  case TL_DTYPE_C128: {
    cuDoubleComplex al = make_cuDoubleComplex(creal(g->alpha), cimag(g->alpha));
    cuDoubleComplex be = make_cuDoubleComplex(creal(beta), cimag(beta));
    st = cublasZgemmStridedBatched(g->h, g->op1, g->op2, g->m, g->n, g->k, &al,
                                   (const cuDoubleComplex *)x1, g->ld1, s1,
                                   (const cuDoubleComplex *)x2, g->ld2, s2, &be,
                                   (cuDoubleComplex *)c, g->ldc, sc, count);
    break;
  }
  default: { /* float16, bfloat16: stored as they are, accumulated in float32 */
    cudaDataType_t t = g->dtype == TL_DTYPE_F16 ? CUDA_R_16F : CUDA_R_16BF;
    float al = (float)creal(g->alpha), be = (float)creal(beta);
    st = cublasGemmStridedBatchedEx(g->h, g->op1, g->op2, g->m, g->n, g->k, &al, x1, t, g->ld1,
                                    s1, x2, t, g->ld2, s2, &be, c, t, g->ldc, sc, count,
                                    CUBLAS_COMPUTE_32F, CUBLAS_GEMM_DEFAULT);
    break;
  }
  }
  return tl_gpu_cublas_check(st, "gemm");
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

/* A copy of *t in dtype d, contiguous, when cuBLAS cannot read *t as it is. */
static tl_status usable_operand(tl_tensor *tmp, const tl_tensor **t, tl_dtype d)
{
  if ((*t)->dtype == d && view_of_tensor(*t, LAYOUT_COL).lay != LAYOUT_NONE)
    return TL_OK;
  if (tl_tensor_to_dtype(tmp, *t, d) != TL_OK)
    return tl_error_status();
  *t = tmp;
  return TL_OK;
}

tl_status tl_gpu_linalg_gemm(tl_tensor *out, const tl_tensor *a, const tl_tensor *b,
                             tl_scalar alpha, tl_scalar beta, bool reduce_batch)
{
  tl_tensor ta = {0}, tb = {0}, tc = {0};
  tl_gemm_shape s;
  tl_status st = TL_OK;
  const tl_dtype d = out->dtype;
  void *stream;

  if (tl_linalg_gemm_shape(out, a, b, reduce_batch, &s) != TL_OK)
    return tl_error_status();
  if (!gemm_supported(d) || !gemm_supported(a->dtype) || !gemm_supported(b->dtype))
    /* PyTorch's CUDA products dispatch on floating and complex types only. */
    return tl_error_set(TL_ERR_NOT_IMPLEMENTED, "\"%s\" not implemented for '%s'",
                        s.nb > 0 && !reduce_batch ? "bmm_cuda" : "addmm_cuda",
                        tl_dtype_scalar_name(gemm_supported(d) ? a->dtype : d));
  if (s.M == 0 || s.N == 0)
    return TL_OK;
  if (tl_gpu_stream(tl_tensor_device(out), "gemm", &stream) != TL_OK)
    return tl_error_status();
  cublasHandle_t h = tl_gpu_cublas(tl_tensor_device(out), stream);
  if (!h)
    return tl_error_status();

  const double complex beta_v = scalar_value(beta);
  const tl_tensor *c = out;
  if ((st = usable_operand(&ta, &a, d)) != TL_OK || (st = usable_operand(&tb, &b, d)) != TL_OK)
    goto done;
  /* The output must be written as it lies (one layout, no overlap); else a
   * scratch output, holding out's values when beta reads them. */
  mat_view vc = view_of_tensor(out, LAYOUT_ROW);
  if (vc.lay == LAYOUT_NONE || tl_tensor_has_internal_overlap(out)) {
    st = beta_v != 0 ? tl_tensor_to_dtype(&tc, out, d)
                     : tl_tensor_empty(&tc, d, out->ndim, out->shape, tl_tensor_device(out));
    if (st != TL_OK)
      goto done;
    c = &tc;
    vc = view_of_tensor(c, LAYOUT_ROW);
  }

  /* Column-major output: C = A B; row-major: C^T = B^T A^T. */
  const bool col = vc.lay == LAYOUT_COL;
  operand oc = {.t = c, .v = vc};
  operand o1 = {.t = col ? a : b}, o2 = {.t = col ? b : a};
  o1.v = view_of_tensor(o1.t, vc.lay);
  o2.v = view_of_tensor(o2.t, vc.lay);
  operand_batch(&oc, s.nb, reduce_batch);
  operand_batch(&o1, s.nb, false);
  operand_batch(&o2, s.nb, false);
  gemm_call g = {
      .h = h,
      .dtype = d,
      .tf32 = d == TL_DTYPE_F32 && tl_gpu_matmul_allow_tf32(),
      .op1 = o1.v.lay == vc.lay ? CUBLAS_OP_N : CUBLAS_OP_T,
      .op2 = o2.v.lay == vc.lay ? CUBLAS_OP_N : CUBLAS_OP_T,
      .m = (int)(col ? s.M : s.N),
      .n = (int)(col ? s.N : s.M),
      .k = (int)s.K,
      .ld1 = (int)o1.v.ld,
      .ld2 = (int)o2.v.ld,
      .ldc = (int)vc.ld,
      .alpha = scalar_value(alpha),
      .beta = beta_v,
  };
  const int64_t size = (int64_t)tl_dtype_size(d);
  int64_t nbatch = 1;
  for (int i = 0; i < s.nb; i++)
    nbatch *= s.bshape[i];

  if (reduce_batch) {
    /* addbmm: out = beta * out + alpha * sum_b a[b] @ b[b], one product at a
     * time (an empty batch still scales out by beta, through k = 0). */
    int64_t idx[TL_MAX_DIMS] = {0};
    if (nbatch == 0) {
      gemm_call g0 = g;
      g0.k = 0;
      st = gemm_batched(&g0, o1.data, 0, o2.data, 0, oc.data, 0, 1, g.beta);
    }
    for (int64_t i = 0; i < nbatch && st == TL_OK; i++) {
      int64_t off1 = 0, off2 = 0;
      for (int dd = 0; dd < s.nb; dd++) {
        off1 += idx[dd] * o1.bstride[dd];
        off2 += idx[dd] * o2.bstride[dd];
      }
      st = gemm_batched(&g, o1.data + off1 * size, 0, o2.data + off2 * size, 0, oc.data, 0, 1,
                        i == 0 ? g.beta : 1.0);
      for (int dd = s.nb - 1; dd >= 0 && ++idx[dd] == s.bshape[dd]; dd--)
        idx[dd] = 0;
    }
  } else if (nbatch > 0) {
    /* Trailing batch dims [from, nb) in one strided call; the rest looped. */
    int from = s.nb;
    int64_t step1 = 0, step2 = 0, stepc = 0;
    while (from > 0) {
      int64_t t1, t2, tcs;
      if (!folds(&o1, from - 1, s.nb, s.bshape, &t1) || !folds(&o2, from - 1, s.nb, s.bshape, &t2) ||
          !folds(&oc, from - 1, s.nb, s.bshape, &tcs) || t1 < 0 || t2 < 0 || tcs < 0)
        break;
      from--;
      step1 = t1;
      step2 = t2;
      stepc = tcs;
    }
    int64_t inner = 1, outer = 1, idx[TL_MAX_DIMS] = {0};
    for (int dd = 0; dd < s.nb; dd++)
      *(dd < from ? &outer : &inner) *= s.bshape[dd];
    for (int64_t i = 0; i < outer && st == TL_OK; i++) {
      int64_t off1 = 0, off2 = 0, offc = 0;
      for (int dd = 0; dd < from; dd++) {
        off1 += idx[dd] * o1.bstride[dd];
        off2 += idx[dd] * o2.bstride[dd];
        offc += idx[dd] * oc.bstride[dd];
      }
      /* cuBLAS counts batches in an int: chunks of at most INT_MAX. */
      for (int64_t j = 0; j < inner && st == TL_OK; j += INT_MAX) {
        int count = (int)(inner - j < INT_MAX ? inner - j : INT_MAX);
        st = gemm_batched(&g, o1.data + (off1 + j * step1) * size, step1,
                          o2.data + (off2 + j * step2) * size, step2,
                          oc.data + (offc + j * stepc) * size, stepc, count, g.beta);
      }
      for (int dd = from - 1; dd >= 0 && ++idx[dd] == s.bshape[dd]; dd--)
        idx[dd] = 0;
    }
  }
  if (st == TL_OK && c != out)
    st = tl_tensor_copy(out, c);
  else if (st == TL_OK)
    tl_storage_bump(out->storage);
done:
  if (ta.storage)
    tl_tensor_release(&ta);
  if (tb.storage)
    tl_tensor_release(&tb);
  if (tc.storage)
    tl_tensor_release(&tc);
  return st;
}
#endif
