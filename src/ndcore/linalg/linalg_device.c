/* linalg_device.c - vector_norm, cross and lu for devices, composed of the
 * device-neutral ops (reductions, elementwise ops, copies, views) and the
 * device's own lu_factor_ex and lu_solve: no host copy, and nothing here
 * reads device data on the host (on CUDA lu_factor_ex's batched path for
 * small square matrices uploads its address array synchronously: its own
 * cost, docs/gpu.md).  The checks and messages are
 * the CPU's (tl_lapack.h); the values are the CPU's up to rounding (the
 * notes at each function say where they differ).
 *
 * vector_norm is torch.norm's reduction (TL_OP_NORM: sum |x|^2 in double
 * then sqrt, sum |x|, max/min |x| with NaN winning, count of nonzeros,
 * (sum |x|^p)^(1/p)), on the CPU too: the reduction engine's threads and
 * contiguous inner loops make it several times faster than a per-row loop.
 * As in PyTorch and NumPy the sum of squares overflows for float64 values
 * beyond about 1e154 (no scaled sum).
 *
 * cross: c_i = a_{i+1} b_{i+2} - a_{i+2} b_{i+1} over selects of dim,
 * broadcast by the elementwise ops into selects of the result.  float16 and
 * bfloat16 are computed in float32 (their products are exact there) and
 * rounded once; other dtypes in their own (the CPU computes in double, so
 * float32 results may differ where the two products nearly cancel).  Bools
 * combine as the CPU's int64 arithmetic does: (a AND b) != (a AND b).
 *
 * lu: A = P L U from the device's lu_factor_ex (info kept on the device, so
 * a singular matrix is no error and nothing syncs, as on the CPU).  L and U
 * are where() of the packed factor under triangle masks built from aranges.
 * P needs the pivots' row interchanges applied in order, which no
 * elementwise op can do; getrs applies exactly those: solving with the
 * identity as the factor, (I, pivots) X = v for v = [0, 1, ..., m-1] gives
 * X = P^T v, i.e. X[j] = perm[j] exactly (interchanges and unit triangular
 * solves only move and keep the integer values).  Then P[i, j] = (i ==
 * perm[j]).  For m > n the pivots are extended by the identity's.          */
#include <math.h>
#include <string.h>

#include "ndcore/dispatch/tl_op.h"
#include "ndcore/kernels/tl_create.h"
#include "ndcore/linalg/tl_lapack.h"
#include "ndcore/linalg/tl_linalg.h"
#include "ndcore/tensor/tl_views.h"

/* ---- vector_norm ---------------------------------------------------------------------- */

tl_status tl_linalg_device_vector_norm(tl_tensor *out, const tl_tensor *x, double ord,
                                       uint64_t mask, bool keepdim, int dtype)
{
  tl_tensor col = {0}, r = {0};
  tl_status st;
  if ((st = tl_lapack_vector_norm_check(x, ord, mask, dtype)) != TL_OK)
    return st;
  tl_reduce_args args = {.dims = mask, .keepdim = keepdim, .dtype = dtype};
  args.p.s[0] = (tl_scalar){.kind = TL_KIND_FLOAT, .v.f = ord};
  if (mask != 0) /* TL_OP_NORM reads mask 0 as every dim; vector_norm as none */
    return tl_op_reduce(TL_OP_NORM, x, &args, out, NULL);
  /* no dim reduced: each element folded alone, as a (numel, 1) column reduced
   * over its size-1 dim and laid back into x's shape (keepdim changes nothing) */
  const int64_t shape[2] = {tl_tensor_numel(x), 1};
  args.dims = 2;
  args.keepdim = false;
  if ((st = tl_view_reshape(&col, x, 2, shape, true)) == TL_OK &&
      (st = tl_op_reduce(TL_OP_NORM, &col, &args, &r, NULL)) == TL_OK)
    st = tl_view_reshape(out, &r, x->ndim, x->shape, false);
  if (col.storage)
    tl_tensor_release(&col);
  if (r.storage)
    tl_tensor_release(&r);
  return st;
}

/* ---- cross ---------------------------------------------------------------------------- */

tl_status tl_linalg_device_cross(tl_tensor *out, const tl_tensor *a, const tl_tensor *b,
                                 int64_t dim)
{
  tl_lapack_cross p;
  tl_tensor t[5] = {{0}}; /* a, b in the working dtype; the result; two products */
  tl_tensor *wa = &t[0], *wb = &t[1], *res = &t[2];
  tl_status st;
  if ((st = tl_lapack_cross_check(&p, a, b, dim)) != TL_OK)
    return st;
  const bool half = p.dtype == TL_DTYPE_F16 || p.dtype == TL_DTYPE_BF16;
  const tl_dtype work = half ? TL_DTYPE_F32 : p.dtype;
  const tl_op combine = p.dtype == TL_DTYPE_BOOL ? TL_OP_NE : TL_OP_SUB;
  const tl_tensor *ia = a, *ib = b;
  if (half && ((st = tl_tensor_to_dtype(wa, a, work)) != TL_OK ||
               (st = tl_tensor_to_dtype(wb, b, work)) != TL_OK))
    goto fail;
  if (half) {
    ia = wa;
    ib = wb;
  }
  if ((st = tl_tensor_empty(res, work, p.nd, p.shape, tl_tensor_device(a))) != TL_OK)
    goto fail;
  for (int c = 0; c < 3; c++) {
    const int i = (c + 1) % 3, j = (c + 2) % 3;
    tl_tensor ai = *ia, aj = *ia, bi = *ib, bj = *ib, rc = *res; /* views: no references */
    if ((st = tl_view_select(&ai, p.adim, i)) != TL_OK ||
        (st = tl_view_select(&aj, p.adim, j)) != TL_OK ||
        (st = tl_view_select(&bi, p.bdim, i)) != TL_OK ||
        (st = tl_view_select(&bj, p.bdim, j)) != TL_OK || (st = tl_view_select(&rc, p.dim, c)) != TL_OK)
      goto fail;
    const tl_arg ij[2] = {{&ai, false}, {&bj, false}}, ji[2] = {{&aj, false}, {&bi, false}};
    if ((st = tl_op_map(TL_OP_MUL, 2, ij, &t[3], NULL)) != TL_OK ||
        (st = tl_op_map(TL_OP_MUL, 2, ji, &t[4], NULL)) != TL_OK)
      goto fail;
    const tl_arg diff[2] = {{&t[3], false}, {&t[4], false}};
    st = tl_op_map(combine, 2, diff, &rc, NULL);
    tl_tensor_release_n(2, &t[3]);
    memset(&t[3], 0, 2 * sizeof *t);
    if (st != TL_OK)
      goto fail;
  }
  if (!half) {
    *out = *res;
    res->storage = NULL;
  } else if ((st = tl_tensor_to_dtype(out, res, p.dtype)) != TL_OK) {
    goto fail;
  }
  tl_tensor_release_n(5, t);
  return TL_OK;
fail:
  tl_tensor_release_n(5, t);
  return st;
}

/* ---- lu ------------------------------------------------------------------------------- */

/* Elements [0, len) of the 1-d idx as a column [len, 1] or a row [1, len]. */
static tl_tensor index_view(const tl_tensor *idx, int64_t len, bool column)
{
  tl_tensor v = *idx;
  v.ndim = 2;
  v.shape[0] = column ? len : 1;
  v.shape[1] = column ? 1 : len;
  v.strides[0] = column ? idx->strides[0] : 0;
  v.strides[1] = column ? 0 : idx->strides[0];
  return v;
}

/* out = where(cmp(rows, cols), a, other): a triangle of a, other elsewhere. */
static tl_status masked(tl_tensor *out, tl_op cmp, const tl_tensor *rows, const tl_tensor *cols,
                        const tl_tensor *a, const tl_tensor *other, bool other_weak)
{
  tl_tensor cond = {0};
  const tl_arg rc[2] = {{rows, false}, {cols, false}};
  tl_status st = tl_op_map(cmp, 2, rc, &cond, NULL);
  if (st != TL_OK)
    return st;
  const tl_arg in[3] = {{&cond, false}, {a, false}, {other, other_weak}};
  st = tl_op_map(TL_OP_WHERE, 3, in, out, NULL);
  tl_tensor_release(&cond);
  return st;
}

/* The full row permutation perm (as dtype d, [B..., m, 1]) of the pivots
 * [B..., k] of m-row matrices: getrs with the identity as the factor. */
static tl_status permutation(tl_tensor *perm, const tl_tensor *pivots, const tl_tensor *rows_d,
                             int nb, const int64_t *bshape, int64_t m, int64_t k, tl_dtype d)
{
  const tl_device dev = tl_tensor_device(pivots);
  tl_tensor t[3] = {{0}}; /* the full pivots, the ones past k, the identity */
  tl_tensor *full = &t[0], *rest = &t[1], *eye = &t[2];
  int64_t shape[TL_MAX_DIMS];
  tl_status st;
  memcpy(shape, bshape, sizeof(int64_t) * (size_t)nb);
  shape[nb] = m;
  if (m > k) { /* pivots k+1 .. m: rows that stay */
    int64_t extra = m - k;
    if ((st = tl_tensor_empty(full, TL_DTYPE_I32, nb + 1, shape, dev)) != TL_OK ||
        (st = tl_tensor_empty(rest, TL_DTYPE_I32, 1, &extra, dev)) != TL_OK ||
        (st = tl_tensor_arange_fill(rest, (tl_scalar){.kind = TL_KIND_INT, .v.i = k + 1},
                                    (tl_scalar){.kind = TL_KIND_INT, .v.i = 1})) != TL_OK)
      goto done;
    tl_tensor head = *full, tail = *full; /* views without references */
    tl_view_slice(&head, nb, 0, k, 1);
    tl_view_slice(&tail, nb, k, extra, 1);
    if ((st = tl_tensor_copy(&head, pivots)) != TL_OK || (st = tl_tensor_copy(&tail, rest)) != TL_OK)
      goto done;
  }
  int64_t square[2] = {m, m};
  tl_tensor eyes;
  shape[nb + 1] = m;
  if ((st = tl_tensor_empty(eye, d, 2, square, dev)) != TL_OK ||
      (st = tl_tensor_eye_fill(eye)) != TL_OK ||
      (st = tl_view_expand(&eyes, eye, nb + 2, shape)) != TL_OK)
    goto done;
  st = tl_linalg_lu_solve(perm, &eyes, m > k ? full : pivots, rows_d, true, false);
  tl_tensor_release(&eyes);
done:
  tl_tensor_release_n(3, t);
  return st;
}

tl_status tl_linalg_device_lu(tl_tensor *p, tl_tensor *l, tl_tensor *u, const tl_tensor *a)
{
  const char *fn = "linalg.lu";
  tl_status st;
  if ((st = tl_lapack_check_matrix(fn, a, false)) != TL_OK)
    return st;
  const int nb = a->ndim - 2;
  const int64_t m = a->shape[nb], n = a->shape[nb + 1], k = m < n ? m : n, len = m > n ? m : n;
  const tl_dtype d = tl_linalg_float_dtype(a->dtype);
  const tl_device dev = tl_tensor_device(a);
  /* lu, pivots, info, 0..len-1, those as d, perm, a zero, P's mask */
  tl_tensor t[8] = {{0}};
  tl_tensor *lu = &t[0], *piv = &t[1], *idx = &t[3], *idx_d = &t[4], *perm = &t[5];
  tl_tensor *zero = &t[6], *cond = &t[7];
  if ((st = tl_linalg_lu_factor_ex(lu, piv, &t[2], a)) != TL_OK ||
      (st = tl_tensor_empty(idx, TL_DTYPE_I64, 1, &len, dev)) != TL_OK ||
      (st = tl_tensor_arange_fill(idx, (tl_scalar){.kind = TL_KIND_INT, .v.i = 0},
                                  (tl_scalar){.kind = TL_KIND_INT, .v.i = 1})) != TL_OK ||
      (st = tl_tensor_to_dtype(idx_d, idx, d)) != TL_OK ||
      (st = tl_tensor_empty(zero, d, 0, NULL, tl_device_cpu())) != TL_OK)
    goto fail;
  tl_scalar_store((tl_scalar){.kind = TL_KIND_INT, .v.i = 0}, d, tl_tensor_data(zero));
  const tl_tensor rows_m = index_view(idx, m, true), rows_k = index_view(idx, k, true);
  const tl_tensor cols_k = index_view(idx, k, false), cols_n = index_view(idx, n, false);
  const tl_tensor probe = index_view(idx_d, m, true);
  tl_tensor lcols = *lu, urows = *lu; /* views without references */
  tl_view_slice(&lcols, nb + 1, 0, k, 1);
  tl_view_slice(&urows, nb, 0, k, 1);
  /* L = the part below the diagonal of lu[..., :, :k], ones on it */
  tl_tensor ones = {0};
  const tl_arg eq[2] = {{&rows_m, false}, {&cols_k, false}};
  if ((st = tl_op_map(TL_OP_EQ, 2, eq, &ones, NULL)) != TL_OK)
    goto fail;
  st = masked(l, TL_OP_GT, &rows_m, &cols_k, &lcols, &ones, false);
  tl_tensor_release(&ones);
  /* U = lu[..., :k, :] on and above the diagonal, zeros below */
  if (st != TL_OK || (st = masked(u, TL_OP_LE, &rows_k, &cols_n, &urows, zero, true)) != TL_OK)
    goto fail;
  /* P[..., i, j] = (i == perm[j]) */
  if ((st = permutation(perm, piv, &probe, nb, a->shape, m, k, d)) != TL_OK)
    goto fail;
  tl_tensor perm_row = *perm; /* [B..., 1, m], a view without a reference */
  tl_lapack_swap_last(&perm_row);
  const tl_arg pe[2] = {{&rows_m, false}, {&perm_row, false}};
  if ((st = tl_op_map(TL_OP_EQ, 2, pe, cond, NULL)) != TL_OK ||
      (st = tl_tensor_to_dtype(p, cond, d)) != TL_OK)
    goto fail;
  tl_tensor_release_n(8, t);
  return TL_OK;
fail:
  tl_tensor_release_n(8, t);
  if (l->storage)
    tl_tensor_release(l);
  if (u->storage)
    tl_tensor_release(u);
  return st;
}
