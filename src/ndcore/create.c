/* create.c - constant fills and ranges for the creation functions. */
#include <math.h>
#include <string.h>

#include "ndcore/tl_create.h"
#include "ndcore/tl_iter.h"

static double as_double(tl_scalar s)
{
  switch (s.kind) {
  case TL_KIND_BOOL: return s.v.b;
  case TL_KIND_FLOAT: return s.v.f;
  case TL_KIND_COMPLEX: return creal(s.v.c);
  default: return (double)s.v.i;
  }
}

/* Fill loop: args[0] the output, data the element's bytes. */
static void fill_loop(char **args, int64_t n, const int64_t *steps, void *data)
{
  const int64_t size = ((const int64_t *)data)[0];
  const char *value = (const char *)data + 8;
  for (int64_t i = 0; i < n; i++)
    memcpy(args[0] + i * steps[0], value, (size_t)size);
}

tl_status tl_tensor_fill(tl_tensor *t, tl_scalar value)
{
  if (t->storage->readonly)
    return tl_error_set(TL_ERR_VALUE, "cannot fill a read-only tensor");
  _Alignas(16) char data[8 + 16];
  int64_t size = (int64_t)tl_dtype_size(t->dtype);
  memcpy(data, &size, sizeof size);
  tl_scalar_store(value, t->dtype, data + 8);
  const tl_tensor *ops[1] = {t};
  tl_iter it;
  if (tl_iter_init(&it, 1, ops, NULL) != TL_OK)
    return tl_error_status();
  tl_storage_bump(t->storage);
  return tl_iter_run(&it, fill_loop, data);
}

tl_status tl_arange_length(tl_scalar start, tl_scalar end, tl_scalar step, int64_t *n)
{
  if (start.kind == TL_KIND_INT && end.kind == TL_KIND_INT && step.kind == TL_KIND_INT) {
    if (step.v.i == 0)
      return tl_error_set(TL_ERR_RUNTIME, "step must be nonzero");
    if ((step.v.i > 0 && end.v.i < start.v.i) || (step.v.i < 0 && end.v.i > start.v.i))
      return tl_error_set(TL_ERR_RUNTIME, "upper bound and larger bound inconsistent with step "
                                          "sign");
    int64_t span = end.v.i - start.v.i;
    *n = span / step.v.i + (span % step.v.i != 0);
    return TL_OK;
  }
  double a = as_double(start), b = as_double(end), s = as_double(step);
  if (s == 0)
    return tl_error_set(TL_ERR_RUNTIME, "step must be nonzero");
  if (!isfinite(a) || !isfinite(b))
    return tl_error_set(TL_ERR_RUNTIME, "unsupported range: %g -> %g", a, b);
  if ((s > 0 && b < a) || (s < 0 && b > a))
    return tl_error_set(TL_ERR_RUNTIME, "upper bound and larger bound inconsistent with step sign");
  double len = ceil((b - a) / s);
  if (len > (double)((int64_t)1 << 56))
    return tl_error_set(TL_ERR_VALUE, "arange of %g elements is too large", len);
  *n = (int64_t)len;
  return TL_OK;
}

tl_status tl_tensor_arange_fill(tl_tensor *out, tl_scalar start, tl_scalar step)
{
  int64_t n = tl_tensor_numel(out);
  char *p = tl_tensor_data(out);
  size_t size = tl_dtype_size(out->dtype);
  bool integral = start.kind == TL_KIND_INT && step.kind == TL_KIND_INT;
  for (int64_t i = 0; i < n; i++) {
    tl_scalar v = integral ? (tl_scalar){.kind = TL_KIND_INT, .v.i = start.v.i + i * step.v.i}
                           : (tl_scalar){.kind = TL_KIND_FLOAT,
                                         .v.f = as_double(start) + (double)i * as_double(step)};
    tl_scalar_store(v, out->dtype, p + (size_t)i * size);
  }
  return TL_OK;
}
