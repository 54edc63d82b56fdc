/* linalg_extra.c - linear algebra composed from the products and the
 * decompositions: vector_norm's checks, pinv, matrix_rank, matrix_power,
 * cross (vector_norm itself is torch.norm's reduction on every device,
 * linalg_device.c).  pinv and matrix_rank share the tolerance rule of
 * PyTorch: a singular value counts when it exceeds max(atol, rtol * s_max),
 * with rtol defaulting to eps * max(M, N) unless only atol > 0 is given.     */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "ndcore/dispatch/tl_dispatch.h"
#include "ndcore/dispatch/tl_op.h"
#include "ndcore/kernels/tl_create.h"
#include "ndcore/linalg/tl_lapack.h"
#include "ndcore/linalg/tl_linalg.h"
#include "ndcore/tensor/tl_backend.h"
#include "ndcore/tensor/tl_views.h"

/* ---- vector_norm ---------------------------------------------------------------------- */

/* vector_norm's checks on every device: the dtypes (dtype < 0: none given),
 * and an order without an identity (negative, +-inf) over no elements. */
tl_status tl_lapack_vector_norm_check(const tl_tensor *x, double ord, uint64_t mask, int dtype)
{
  const char *fn = "linalg.vector_norm";
  tl_dtype in = dtype >= 0 ? (tl_dtype)dtype : x->dtype;
  if (!tl_dtype_is_float(x->dtype) && !tl_dtype_is_complex(x->dtype))
    return tl_error_set(TL_ERR_RUNTIME, "%s: Expected a floating point or complex tensor as "
                        "input. Got %s", fn, tl_dtype_names[x->dtype]);
  if (!tl_dtype_is_float(in) && !tl_dtype_is_complex(in))
    return tl_error_set(TL_ERR_RUNTIME, "%s: dtype should be floating point or complex. Got %s", fn,
                        tl_dtype_names[in]);
  if (tl_dtype_is_complex(x->dtype) && !tl_dtype_is_complex(in))
    return tl_error_set(TL_ERR_RUNTIME, "%s: dtype should be complex for a complex input. Got %s",
                        fn, tl_dtype_names[in]);
  int64_t inner = 1;
  for (int d = 0; d < x->ndim; d++)
    if (mask >> d & 1)
      inner *= x->shape[d];
  if (inner == 0 && (ord < 0 || isinf(ord)))
    return tl_error_set(TL_ERR_RUNTIME, "%s cannot compute the %g norm on an empty tensor because "
                        "the operation does not have an identity", fn, ord);
  return TL_OK;
}

/* ---- pinv, matrix_rank -------------------------------------------------------------- */

static double eps_of(tl_dtype real)
{
  return real == TL_DTYPE_F32 ? 1.1920928955078125e-07 : 2.220446049250313e-16;
}

/* The cutoff for singular values whose largest is smax. */
static double sv_cutoff(double atol, double rtol, double smax, int64_t m, int64_t n,
                        tl_dtype real)
{
  if (rtol < 0)
    rtol = atol > 0 ? 0 : eps_of(real) * (double)(m > n ? m : n);
  if (atol < 0)
    atol = 0;
  double r = rtol * smax;
  return atol > r ? atol : r;
}

static double load_real(const tl_tensor *t, int64_t i)
{
  return tl_scalar_load(t->dtype, (char *)tl_tensor_data(t) + i * (int64_t)tl_dtype_size(t->dtype))
      .v.f;
}

tl_status tl_linalg_adjoint(tl_tensor *out, const tl_tensor *a)
{
  tl_tensor t;
  if (a->ndim < 2)
    return tl_error_set(TL_ERR_RUNTIME, "adjoint: expected a tensor with at least 2 dims, got %d",
                        a->ndim);
  if (tl_view_transpose(&t, a, -2, -1) != TL_OK)
    return tl_error_status();
  if (!tl_dtype_is_complex(a->dtype)) {
    *out = t;
    return TL_OK;
  }
  /* the conj op, not a host loop: a runs on its own device */
  const tl_arg in = {.t = &t};
  *out = (tl_tensor){0};
  tl_status st = tl_op_map(TL_OP_CONJ_PHYSICAL, 1, &in, out, NULL);
  tl_tensor_release(&t);
  return st;
}

/* The [B..., 1, k] tensor of dtype d on `device` holding f (count * k values). */
static tl_status column_factors(tl_tensor *out, const double *f, int nb, const int64_t *batch,
                                int64_t k, tl_dtype d, tl_device device)
{
  int64_t shape[TL_MAX_DIMS];
  tl_tensor h = {0};
  memcpy(shape, batch, (size_t)nb * sizeof *shape);
  shape[nb] = 1;
  shape[nb + 1] = k;
  if (tl_tensor_empty(&h, d, nb + 2, shape, tl_device_cpu()) != TL_OK)
    return tl_error_status();
  const size_t size = tl_dtype_size(d);
  for (int64_t i = 0, n = tl_tensor_numel(&h); i < n; i++)
    tl_scalar_store((tl_scalar){.kind = TL_KIND_FLOAT, .v.f = f[i]}, d,
                    (char *)tl_tensor_data(&h) + i * (int64_t)size);
  if (device.type == TL_DEVICE_CPU) {
    *out = h;
    return TL_OK;
  }
  tl_status st = tl_backend_tensor_to(out, &h, device, d, false);
  tl_tensor_release(&h);
  return st;
}

/* pinv through the SVD, U S Vh (or eigh, V diag(w) V^H): the singular values'
 * reciprocals above the cutoff, computed on the host (their count * k values
 * read back from a device), scale U's (V's) columns by a broadcast product,
 * then pinv = (U diag(1/s) Vh)^H  or  V diag(1/w) V^H, all ops of the
 * input's device. */
tl_status tl_linalg_pinv(tl_tensor *out, const tl_tensor *a, double atol, double rtol,
                         bool hermitian)
{
  tl_tensor f[3] = {{0}}; /* U, S, Vh  or  V, w */
  tl_tensor sh = {0}, scale = {0}, scaled = {0}, prod = {0}, vh = {0};
  double *inv = NULL;
  tl_status st;
  if (a->ndim < 2)
    return tl_error_set(TL_ERR_RUNTIME, "linalg.pinv: The input tensor A must have at least 2 "
                        "dimensions.");
  int nb = a->ndim - 2;
  int64_t m = a->shape[nb], n = a->shape[nb + 1], k = m < n ? m : n;
  int64_t count = 1;
  for (int d = 0; d < nb; d++)
    count *= a->shape[d];
  if (hermitian) {
    if ((st = tl_linalg_eigh(&f[1], &f[0], a, false, true)) != TL_OK)
      return st;
    k = n;
  } else if ((st = tl_linalg_svd(&f[0], &f[1], &f[2], a, false, true)) != TL_OK) {
    return st;
  }
  tl_dtype rd = f[1].dtype;
  if (!(inv = calloc((size_t)(count * k > 0 ? count * k : 1), sizeof(double)))) {
    st = tl_error_set(TL_ERR_MEMORY, "linalg.pinv: out of memory");
    goto done;
  }
  /* the meta device has no values to read: the products below give the
   * shapes, as PyTorch's meta pinv does */
  const bool values = tl_tensor_device(a).type != TL_DEVICE_META;
  if (values && (st = tl_dispatch_host_view(&sh, &f[1])) != TL_OK)
    goto done;
  for (int64_t b = 0; values && b < count; b++) {
    double smax = 0;
    for (int64_t j = 0; j < k; j++) {
      double v = fabs(load_real(&sh, b * k + j));
      smax = v > smax ? v : smax;
    }
    double cut = sv_cutoff(atol, rtol, smax, m, n, rd);
    for (int64_t j = 0; j < k; j++) {
      double v = load_real(&sh, b * k + j);
      inv[b * k + j] = fabs(v) > cut ? 1.0 / v : 0.0;
    }
  }
  const tl_arg factors[2] = {{.t = &f[0]}, {.t = &scale}};
  if ((st = column_factors(&scale, inv, nb, a->shape, k, rd, tl_tensor_device(a))) != TL_OK ||
      (st = tl_op_map(TL_OP_MUL, 2, factors, &scaled, NULL)) != TL_OK)
    goto done;
  if (hermitian) { /* V diag(1/w) V^H */
    if ((st = tl_linalg_adjoint(&vh, &f[0])) == TL_OK)
      st = tl_linalg_matmul(out, &scaled, &vh);
  } else { /* (U diag(1/s) Vh)^H */
    if ((st = tl_linalg_matmul(&prod, &scaled, &f[2])) == TL_OK)
      st = tl_linalg_adjoint(out, &prod);
  }
done:
  free(inv);
  tl_tensor *all[] = {&f[0], &f[1], &f[2], &sh, &scale, &scaled, &prod, &vh};
  for (size_t i = 0; i < sizeof all / sizeof *all; i++)
    if (all[i]->storage)
      tl_tensor_release(all[i]);
  return st;
}

tl_status tl_linalg_matrix_rank(tl_tensor *out, const tl_tensor *a, double atol, double rtol,
                                bool hermitian)
{
  tl_tensor s = {0}, sh = {0}, counts = {0}, unused = {0};
  tl_status st;
  if (a->ndim < 2)
    return tl_error_set(TL_ERR_RUNTIME, "linalg.matrix_rank: The input tensor input must have at "
                        "least 2 dimensions.");
  int nb = a->ndim - 2;
  int64_t m = a->shape[nb], n = a->shape[nb + 1];
  st = hermitian ? tl_linalg_eigh(&s, &unused, a, false, false)
                 : tl_linalg_svd(&unused, &s, &unused, a, false, false);
  if (st != TL_OK)
    return st;
  int64_t k = s.shape[nb], count = 1;
  for (int d = 0; d < nb; d++)
    count *= a->shape[d];
  /* counted on the host (a device's singular values read back), then moved;
   * the meta device has no values: its counts are only a shape */
  const bool values = tl_tensor_device(a).type != TL_DEVICE_META;
  if ((values && (st = tl_dispatch_host_view(&sh, &s)) != TL_OK) ||
      (st = tl_tensor_zeros(&counts, TL_DTYPE_I64, nb, a->shape, tl_device_cpu())) != TL_OK)
    goto done;
  for (int64_t b = 0; values && b < count; b++) {
    double smax = 0;
    for (int64_t j = 0; j < k; j++) {
      double v = fabs(load_real(&sh, b * k + j));
      smax = v > smax ? v : smax;
    }
    double cut = sv_cutoff(atol, rtol, smax, m, n, s.dtype);
    int64_t r = 0;
    for (int64_t j = 0; j < k; j++)
      r += fabs(load_real(&sh, b * k + j)) > cut;
    ((int64_t *)tl_tensor_data(&counts))[b] = r;
  }
  if (tl_tensor_device(a).type == TL_DEVICE_CPU) {
    *out = counts;
    counts = (tl_tensor){0};
  } else {
    st = tl_backend_tensor_to(out, &counts, tl_tensor_device(a), TL_DTYPE_I64, false);
  }
done:
  tl_tensor_release(&s);
  if (sh.storage)
    tl_tensor_release(&sh);
  if (counts.storage)
    tl_tensor_release(&counts);
  return st;
}

/* ---- matrix_power -------------------------------------------------------------------- */

tl_status tl_linalg_matrix_power(tl_tensor *out, const tl_tensor *a, int64_t n)
{
  tl_tensor base = {0}, acc = {0}, next = {0};
  tl_status st = TL_OK;
  if (a->ndim < 2 || a->shape[a->ndim - 1] != a->shape[a->ndim - 2])
    return tl_error_set(TL_ERR_RUNTIME, "linalg.matrix_power: A must be batches of square "
                        "matrices, but got a tensor of %d dims%s", a->ndim,
                        a->ndim >= 2 ? " whose last two differ" : "");
  int64_t size = a->shape[a->ndim - 1];
  if (n == 0) { /* identity in a's dtype, batched */
    if ((st = tl_tensor_empty(out, a->dtype, a->ndim, a->shape, tl_tensor_device(a))) != TL_OK)
      return st;
    tl_tensor diag;
    tl_scalar zero = {.kind = TL_KIND_INT, .v.i = 0}, one = {.kind = TL_KIND_INT, .v.i = 1};
    if ((st = tl_tensor_fill(out, zero)) == TL_OK &&
        (st = tl_view_diagonal(&diag, out, 0, -2, -1)) == TL_OK) {
      st = tl_tensor_fill(&diag, one);
      tl_tensor_release(&diag);
    }
    if (st != TL_OK)
      tl_tensor_release(out);
    return st;
  }
  /* |n| in unsigned: -n leaves int64 for n = -2**63 */
  uint64_t m = n < 0 ? -(uint64_t)n : (uint64_t)n;
  if (n < 0) {
    if ((st = tl_linalg_inv(&base, a)) != TL_OK)
      return st;
  } else {
    tl_tensor_view_of(&base, a);
  }
  (void)size;
  /* square-and-multiply, most significant bit first */
  int top = 63;
  while (!(m >> top & 1))
    top--;
  tl_tensor_view_of(&acc, &base);
  for (int bit = top - 1; bit >= 0 && st == TL_OK; bit--) {
    if ((st = tl_linalg_matmul(&next, &acc, &acc)) != TL_OK)
      break;
    tl_tensor_release(&acc);
    acc = next;
    next.storage = NULL;
    if (m >> bit & 1) {
      if ((st = tl_linalg_matmul(&next, &acc, &base)) != TL_OK)
        break;
      tl_tensor_release(&acc);
      acc = next;
      next.storage = NULL;
    }
  }
  if (st == TL_OK && acc.storage == base.storage && acc.offset == base.offset &&
      a->storage == base.storage) {
    /* n == 1: the result is a copy, never a view of the input */
    st = tl_tensor_to_dtype(out, &acc, acc.dtype);
    tl_tensor_release(&acc);
  } else if (st == TL_OK) {
    *out = acc;
    acc.storage = NULL;
  }
  if (acc.storage)
    tl_tensor_release(&acc);
  tl_tensor_release(&base);
  return st;
}

/* ---- cross ------------------------------------------------------------------------------ */

tl_status tl_lapack_cross_check(tl_lapack_cross *p, const tl_tensor *a, const tl_tensor *b,
                                int64_t dim)
{
  char sa[128], sb[128];
  if (a->ndim == 0 || b->ndim == 0) /* a 0-d input has no dim to take */
    return tl_error_set(TL_ERR_INDEX, "Dimension specified as %lld but tensor has no dimensions",
                        (long long)dim);
  if (tl_shape_broadcast(a->ndim, a->shape, b->ndim, b->shape, &p->nd, p->shape) != TL_OK) {
    tl_error_clear();
    return tl_error_set(TL_ERR_RUNTIME, "linalg.cross: inputs of shapes %s and %s do not "
                        "broadcast", tl_shape_str(sa, sizeof sa, a->ndim, a->shape),
                        tl_shape_str(sb, sizeof sb, b->ndim, b->shape));
  }
  if (tl_dim_wrap(dim, p->nd, &p->dim) != TL_OK)
    return tl_error_status();
  p->adim = p->dim - (p->nd - a->ndim);
  p->bdim = p->dim - (p->nd - b->ndim);
  int64_t la = p->adim >= 0 ? a->shape[p->adim] : 1, lb = p->bdim >= 0 ? b->shape[p->bdim] : 1;
  if (la != 3 || lb != 3)
    return tl_error_set(TL_ERR_RUNTIME, "linalg.cross: inputs dimension %lld must have length 3. "
                        "Got %lld and %lld", (long long)dim, (long long)la, (long long)lb);
  p->dtype = tl_promote_types(a->dtype, b->dtype);
  return TL_OK;
}

tl_status tl_cpu_linalg_cross(tl_tensor *out, const tl_tensor *a, const tl_tensor *b, int64_t dim)
{
  tl_lapack_cross p;
  tl_tensor ca = {0}, cb = {0}, res = {0};
  tl_status st;
  if ((st = tl_lapack_cross_check(&p, a, b, dim)) != TL_OK)
    return st;
  const int nd = p.nd, wd = p.dim;
  const int64_t *shape = p.shape;
  tl_dtype rdt = p.dtype;
  tl_dtype wide = tl_dtype_is_complex(rdt) ? TL_DTYPE_C128
                  : tl_dtype_is_integral(rdt) ? TL_DTYPE_I64 : TL_DTYPE_F64;
  if ((st = tl_tensor_empty(&ca, wide, nd, shape, tl_tensor_device(a))) != TL_OK ||
      (st = tl_tensor_empty(&cb, wide, nd, shape, tl_tensor_device(a))) != TL_OK ||
      (st = tl_tensor_empty(&res, wide, nd, shape, tl_tensor_device(a))) != TL_OK ||
      (st = tl_tensor_copy(&ca, a)) != TL_OK || (st = tl_tensor_copy(&cb, b)) != TL_OK)
    goto done;
  int64_t outer = 1, inner = 1;
  for (int d = 0; d < wd; d++)
    outer *= shape[d];
  for (int d = wd + 1; d < nd; d++)
    inner *= shape[d];
  for (int64_t o = 0; o < outer; o++)
    for (int64_t i = 0; i < inner; i++) {
      int64_t at[3];
      for (int c = 0; c < 3; c++)
        at[c] = (o * 3 + c) * inner + i;
      for (int c = 0; c < 3; c++) {
        int64_t p = at[(c + 1) % 3], q = at[(c + 2) % 3];
        if (wide == TL_DTYPE_C128) {
          double complex *x = tl_tensor_data(&ca), *y = tl_tensor_data(&cb), *z = tl_tensor_data(&res);
          z[at[c]] = x[p] * y[q] - x[q] * y[p];
        } else if (wide == TL_DTYPE_F64) {
          double *x = tl_tensor_data(&ca), *y = tl_tensor_data(&cb), *z = tl_tensor_data(&res);
          z[at[c]] = x[p] * y[q] - x[q] * y[p];
        } else {
          uint64_t *x = tl_tensor_data(&ca), *y = tl_tensor_data(&cb), *z = tl_tensor_data(&res);
          z[at[c]] = x[p] * y[q] - x[q] * y[p];
        }
      }
    }
  st = tl_tensor_to_dtype(out, &res, rdt);
done:
  if (ca.storage)
    tl_tensor_release(&ca);
  if (cb.storage)
    tl_tensor_release(&cb);
  if (res.storage)
    tl_tensor_release(&res);
  return st;
}
