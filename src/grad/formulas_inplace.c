/* formulas_inplace.c - the base's side of an in-place write through a view.
 *
 * After `v.mul_(2)` where v is a view of base b, b's history is a CopySlices
 * node (py_record.c) with two inputs: b as it was, and v as it now is, plus
 * v's geometry inside b (size, stride, offset relative to b's).  Legend: g
 * is the gradient of the new b, which may start anywhere in its storage.  A
 * contiguous b is addressed by as_strided on g; any other b (a permuted or
 * Fortran-ordered tensor, no two elements in one place: py_record.c checks)
 * through the storage positions both tensors' elements sit at. */
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

/* g laid out in b's storage, for a b that is not contiguous: the gradient
 * of the view gathered from v's positions, the rest of g kept for b. */
static void strided_base(tl_grad_ctx *c, PyObject *old_base, PyObject *view, PyObject *g)
{
  const tl_tensor *b = tl_py_t(old_base);
  int64_t span = 1, nb = tl_tensor_numel(b), nv = tl_tensor_numel(tl_py_t(view));
  for (int d = 0; d < b->ndim; d++)
    span += (b->shape[d] - 1) * b->strides[d];
  if (nb == 0)
    return;
  PyObject *flat = tl_grad_keep(c, PyLong_FromLongLong(-1));
  PyObject *pos = CALL("arange", "L|{s:O,s:O}", (long long)span, "dtype",
                       tl_py_dtype_obj(TL_DTYPE_I64), "device", tl_grad_device(c));
  /* storage position of each element of b and of v, counted from b's first */
  PyObject *at_b = CALL("reshape", "OO", CALL("as_strided", "OOOO", pos, SHAPE(old_base),
                        int_tuple(c, b->ndim, b->strides), tl_grad_keep(c, PyLong_FromLong(0))),
                        flat);
  PyObject *at_v = CALL("reshape", "OO", view_at(c, pos, ARG(2, NULL), ARG(3, NULL), ARG(4, NULL),
                                                 true), flat);
  if (NEEDS(view) && nv > 0) {
    PyObject *laid = CALL("index_add", "OLOO", CALL("new_zeros", "O(L)", g, (long long)span), 0LL,
                          at_b, CALL("reshape", "OO", g, flat));
    SEND(view, CALL("reshape", "OO", CALL("index_select", "OLO", laid, 0LL, at_v), ARG(2, NULL)));
  }
  if (NEEDS(old_base)) {
    PyObject *hit = CALL("index_add", "OLOO", CALL("new_zeros", "O(L)", g, (long long)span), 0LL,
                         at_v, CALL("new_ones", "O(L)", g, (long long)nv));
    PyObject *keep = CALL("eq", "Od", CALL("index_select", "OLO", hit, 0LL, at_b), 0.0);
    SEND(old_base, CALL("mul", "OO", g, CALL("reshape", "OO", keep, SHAPE(old_base))));
  }
}

static void backward(tl_grad_ctx *c)
{
  PyObject *old_base = ARG(0, NULL), *view = ARG(1, NULL);
  PyObject *size = ARG(2, NULL), *stride = ARG(3, NULL), *offset = ARG(4, NULL);
  if (!old_base || PyErr_Occurred())
    return;
  if (!tl_tensor_is_contiguous(tl_py_t(old_base))) {
    strided_base(c, old_base, view, G(0));
    return;
  }
  PyObject *g = CALL("contiguous", "O", G(0));
  if (!g)
    return;
  /* as_strided's offset counts from g's storage, and g may itself be a
   * slice of a larger gradient (concatenate's, split's): the view sits
   * `offset` past g's own first element */
  long long at = PyLong_AsLongLong(offset);
  if (at == -1 && PyErr_Occurred())
    return;
  PyObject *in_g = tl_grad_keep(c, PyLong_FromLongLong(at + tl_py_t(g)->offset));
  /* the view's elements came from the write: their gradient goes to it ... */
  if (NEEDS(view))
    SEND(view, view_at(c, g, size, stride, in_g, true));
  /* ... and the rest of the base is what it was */
  if (NEEDS(old_base)) {
    PyObject *keep = CALL("ones_like", "O", g);
    CALL("fill_", "Od", view_at(c, keep, size, stride, offset, false), 0.0);
    SEND(old_base, CALL("mul", "OO", g, keep));
  }
}

void tl_grad_formulas_inplace_init(void)
{
  tl_grad_formulas[TL_GRAD_COPY_SLICES] = backward;
}
