/* formulas_inplace.c - the base's side of an in-place write through a view.
 *
 * After `v.mul_(2)` where v is a view of base b, b's history is a CopySlices
 * node (py_record.c) with two inputs: b as it was, and v as it now is, plus
 * v's geometry inside b (size, stride, offset relative to b's).  Legend: g
 * is the gradient of the new b, which may start anywhere in its storage.  A
 * contiguous b is addressed by as_strided on g; any other b (a permuted or
 * Fortran-ordered tensor, no two elements in one place: py_record.c checks)
 * through the storage positions both tensors' elements sit at.  A real view
 * (.real, .imag) of a complex b counts b's storage in real numbers, two per
 * element: b and g are addressed as view_as_real's (g's values stacked as
 * such pairs), and b's gradient made complex again. */
#include "grad/py_grad.h"

static PyObject *int_tuple(tl_grad_ctx *c, int n, const int64_t *v)
{
  PyObject *t = tl_grad_keep(c, PyTuple_New(n));
  for (int d = 0; t && d < n; d++) {
    PyObject *item = PyLong_FromLongLong(v[d]);
    if (!item)
      return NULL;
    PyTuple_SET_ITEM(t, d, item);
  }
  return t;
}

/* as_strided(t, size, stride, offset) for a view whose strides may be
 * negative (NumPy's y[::-1], which as_strided refuses): the same elements
 * taken with positive strides from the view's lowest address, then, when
 * `ordered`, flipped back along those dims into the view's order (a mask
 * filled through it needs no order). */
static PyObject *view_at(tl_grad_ctx *c, PyObject *t, PyObject *size, PyObject *stride,
                         PyObject *offset, bool ordered)
{
  if (!t || !size || !stride || !offset || PyErr_Occurred())
    return NULL;
  Py_ssize_t n = PySequence_Size(stride);
  if (n < 0)
    return NULL;
  int64_t st[TL_MAX_DIMS], flips[TL_MAX_DIMS];
  int nflip = 0;
  long long start = PyLong_AsLongLong(offset);
  for (Py_ssize_t d = 0; d < n && d < TL_MAX_DIMS; d++) {
    PyObject *si = tl_grad_keep(c, PySequence_GetItem(stride, d));
    PyObject *zi = tl_grad_keep(c, PySequence_GetItem(size, d));
    if (!si || !zi)
      return NULL;
    long long sd = PyLong_AsLongLong(si), zd = PyLong_AsLongLong(zi);
    if (PyErr_Occurred())
      return NULL;
    st[d] = sd;
    if (sd < 0) {
      st[d] = -sd;
      if (zd > 0)
        start += (zd - 1) * sd;
      flips[nflip++] = d;
    }
  }
  if (!nflip)
    return CALL("as_strided", "OOOO", t, size, stride, offset);
  PyObject *v = CALL("as_strided", "OOOL", t, size, int_tuple(c, (int)n, st), start);
  return ordered ? CALL("flip", "OO", v, int_tuple(c, nflip, flips)) : v;
}

/* The base as the view's elements address it: b itself, or, for a real
 * view (.real, .imag) of a complex b, view_as_real(b)'s (*shape, 2) with
 * every stride doubled and a last stride of 1.  g, the gradient of the new
 * b, is given in the same terms (view_as_real(g) for a complex b). */
typedef struct {
  int ndim;
  int64_t shape[TL_MAX_DIMS + 1], strides[TL_MAX_DIMS + 1];
} base_geometry;

static void base_geometry_init(base_geometry *geo, const tl_tensor *b, bool split)
{
  geo->ndim = b->ndim;
  for (int d = 0; d < b->ndim; d++) {
    geo->shape[d] = b->shape[d];
    geo->strides[d] = split ? 2 * b->strides[d] : b->strides[d];
  }
  if (split) {
    geo->shape[geo->ndim] = 2;
    geo->strides[geo->ndim++] = 1;
  }
}

/* g laid out in b's storage, for a b that is not contiguous: the gradient
 * of the view gathered from v's positions, the rest of g kept for b
 * (returned, in g's terms; NULL with nothing to send or on an error). */
static PyObject *strided_base(tl_grad_ctx *c, const base_geometry *b, PyObject *old_base,
                              PyObject *view, PyObject *g)
{
  int64_t span = 1, nb = 1, nv = tl_tensor_numel(tl_py_t(view));
  for (int d = 0; d < b->ndim; d++) {
    span += (b->shape[d] - 1) * b->strides[d];
    nb *= b->shape[d];
  }
  if (nb == 0)
    return NULL;
  PyObject *flat = tl_grad_keep(c, PyLong_FromLongLong(-1));
  PyObject *shape_b = int_tuple(c, b->ndim, b->shape);
  PyObject *pos = CALL("arange", "L|{s:O,s:O}", (long long)span, "dtype",
                       tl_py_dtype_obj(TL_DTYPE_I64), "device", tl_grad_device(c));
  /* storage position of each element of b and of v, counted from b's first */
  PyObject *at_b = CALL("reshape", "OO", CALL("as_strided", "OOOO", pos, shape_b,
                        int_tuple(c, b->ndim, b->strides), tl_grad_keep(c, PyLong_FromLong(0))),
                        flat);
  PyObject *at_v = CALL("reshape", "OO", view_at(c, pos, ARG(2, NULL), ARG(3, NULL), ARG(4, NULL),
                                                 true), flat);
  if (NEEDS(view) && nv > 0) {
    PyObject *laid = CALL("index_add", "OLOO", CALL("new_zeros", "O(L)", g, (long long)span), 0LL,
                          at_b, CALL("reshape", "OO", g, flat));
    SEND(view, CALL("reshape", "OO", CALL("index_select", "OLO", laid, 0LL, at_v), ARG(2, NULL)));
  }
  if (!NEEDS(old_base))
    return NULL;
  PyObject *hit = CALL("index_add", "OLOO", CALL("new_zeros", "O(L)", g, (long long)span), 0LL,
                       at_v, CALL("new_ones", "O(L)", g, (long long)nv));
  PyObject *keep = CALL("eq", "Od", CALL("index_select", "OLO", hit, 0LL, at_b), 0.0);
  return CALL("mul", "OO", g, CALL("reshape", "OO", keep, shape_b));
}

/* g laid out as a contiguous b: as_strided picks the view's elements */
static PyObject *contiguous_base(tl_grad_ctx *c, PyObject *old_base, PyObject *view, PyObject *g)
{
  PyObject *size = ARG(2, NULL), *stride = ARG(3, NULL), *offset = ARG(4, NULL);
  g = CALL("contiguous", "O", g);
  if (!g || !offset)
    return NULL;
  /* as_strided's offset counts from g's storage, and g may itself be a
   * slice of a larger gradient (concatenate's, split's): the view sits
   * `offset` past g's own first element */
  long long at = PyLong_AsLongLong(offset);
  if (at == -1 && PyErr_Occurred())
    return NULL;
  PyObject *in_g = tl_grad_keep(c, PyLong_FromLongLong(at + tl_py_t(g)->offset));
  /* the view's elements came from the write: their gradient goes to it ... */
  if (NEEDS(view))
    SEND(view, view_at(c, g, size, stride, in_g, true));
  /* ... and the rest of the base is what it was */
  if (!NEEDS(old_base))
    return NULL;
  PyObject *keep = CALL("ones_like", "O", g);
  CALL("fill_", "Od", view_at(c, keep, size, stride, offset, false), 0.0);
  return CALL("mul", "OO", g, keep);
}

/* view_as_real's values (*shape, 2) of a complex g, and back */
static PyObject *as_pairs(tl_grad_ctx *c, PyObject *g)
{
  return CALL("stack", "[OO]L", CALL("real", "O", g), CALL("imag", "O", g), -1LL);
}

static PyObject *from_pairs(tl_grad_ctx *c, PyObject *pairs)
{
  PyObject *i = tl_grad_keep(c, PyComplex_FromDoubles(0.0, 1.0));
  return CALL("add", "OO", CALL("select", "OLL", pairs, -1LL, 0LL),
              CALL("mul", "OO", CALL("select", "OLL", pairs, -1LL, 1LL), i));
}

static void backward(tl_grad_ctx *c)
{
  PyObject *old_base = ARG(0, NULL), *view = ARG(1, NULL);
  if (!old_base || !view || PyErr_Occurred())
    return;
  const tl_tensor *b = tl_py_t(old_base);
  /* a real view of a complex base: both addressed as view_as_real's */
  bool split = tl_dtype_is_complex(b->dtype) && !tl_dtype_is_complex(tl_py_t(view)->dtype);
  PyObject *g = split ? as_pairs(c, G(0)) : G(0);
  PyObject *rest;
  if (tl_tensor_is_contiguous(b)) {
    rest = contiguous_base(c, old_base, view, g);
  } else {
    base_geometry geo;
    base_geometry_init(&geo, b, split);
    rest = strided_base(c, &geo, old_base, view, g);
  }
  if (rest && !PyErr_Occurred())
    SEND(old_base, split ? from_pairs(c, rest) : rest);
}

void tl_grad_formulas_inplace_init(void)
{
  tl_grad_formulas[TL_GRAD_COPY_SLICES] = backward;
}
