/* formulas_shape.c - derivatives of views and shape ops (grad_fns.def).
 *
 * Legend: g is the gradient of the output, x the input.
 *
 * Three kinds of formula:
 *  - an inverse op on g (reshape back, permute back, flip again, roll back,
 *    narrow the pieces of a cat ...);
 *  - broadcasting ops send g as it is: SEND sums it down to the input;
 *  - the ops that pick, repeat or reorder elements in ways with no handy
 *    inverse (repeat, tile, unfold, tensor_split, pad modes that mirror ...)
 *    use an index map: the op is called again on arange(x.numel()) shaped
 *    like x, which says which input element each output element came from,
 *    and g is index_add'ed back there.  Repeated elements add up, as their
 *    gradients must.
 *
 * Every formula calls torchlike ops only, so it is recorded itself when
 * create_graph=True.                                                      */
#include <Python.h>

#include "grad/py_grad.h"
#include "ndcore/bindings/py_create.h"

/* ---- helpers --------------------------------------------------------------- */

/* An int argument, dflt when absent or None (an error is left pending for a
 * non-int; the next helper sees it and returns NULL). */
static int64_t int_or(tl_grad_ctx *c, int pos, const char *name, int64_t dflt)
{
  PyObject *o = ARG(pos, name);
  if (!o || o == Py_None)
    return dflt;
  return (int64_t)PyLong_AsLongLong(o);
}

static int64_t wrap_dim(int64_t d, int ndim)
{
  int n = ndim > 0 ? ndim : 1;
  return d < 0 ? d + n : d;
}

static int ndim_of(PyObject *t) { return t && tl_py_is_tensor(t) ? tl_py_t(t)->ndim : 0; }

static PyObject *py_int(tl_grad_ctx *c, int64_t v)
{
  return tl_grad_keep(c, PyLong_FromLongLong(v));
}

/* torchlike function or Tensor method `name` (a new reference). */
static PyObject *function_named(const char *name)
{
  PyObject *mod = PyImport_ImportModule("torchlike._C");
  PyObject *fn = mod ? PyObject_GetAttrString(mod, name) : NULL;
  Py_XDECREF(mod);
  if (!fn) {
    PyErr_Clear();
    fn = PyObject_GetAttrString((PyObject *)tl_py_tensor_type, name);
  }
  return fn;
}

/* o with tensor `from` replaced by `to` (also inside a list or tuple). */
static PyObject *substitute(PyObject *o, PyObject *from, PyObject *to)
{
  if (from && o == from)
    return Py_NewRef(to);
  if (from && (PyList_CheckExact(o) || PyTuple_CheckExact(o))) {
    Py_ssize_t n = PySequence_Fast_GET_SIZE(o);
    PyObject *copy = PyList_New(n);
    for (Py_ssize_t i = 0; copy && i < n; i++) {
      PyObject *item = PySequence_Fast_ITEMS(o)[i];
      PyList_SET_ITEM(copy, i, Py_NewRef(item == from ? to : item));
    }
    if (copy && PyTuple_CheckExact(o))
      Py_SETREF(copy, PyList_AsTuple(copy));
    return copy;
  }
  return Py_NewRef(o);
}

/* The recorded call made again with `from1` replaced by `to1` and `from2`
 * by `to2` (either pair may be NULL): the same op on other tensors. */
static PyObject *replay(tl_grad_ctx *c, PyObject *from1, PyObject *to1, PyObject *from2,
                        PyObject *to2)
{
  if (PyErr_Occurred() || (from1 && !to1) || (from2 && !to2))
    return NULL;
  tl_py_node *node = c->node;
  PyObject *fn = function_named(tl_grad_formula_name(c->formula));
  PyObject *args = PyTuple_New(node->nargs), *kwargs = PyDict_New(), *r = NULL;
  if (!fn || !args || !kwargs)
    goto done;
  for (Py_ssize_t i = 0; i < node->nall; i++) {
    PyObject *a = substitute(node->args[i], from1, to1);
    if (a && from2)
      Py_SETREF(a, substitute(a, from2, to2));
    if (!a)
      goto done;
    if (i < node->nargs) {
      PyTuple_SET_ITEM(args, i, a);
    } else {
      int e = PyDict_SetItem(kwargs, PyTuple_GET_ITEM(node->kwnames, i - node->nargs), a);
      Py_DECREF(a);
      if (e < 0)
        goto done;
    }
  }
  r = PyObject_Call(fn, args, kwargs);
done:
  Py_XDECREF(fn);
  Py_XDECREF(args);
  Py_XDECREF(kwargs);
  return tl_grad_keep(c, r);
}

PyObject *tl_grad_device(tl_grad_ctx *c)
{
  for (int i = 0; i < c->node->noutputs; i++)
    if (c->grads[i])
      return tl_grad_keep(c, PyObject_GetAttrString(c->grads[i], "device"));
  return tl_grad_keep(c, PyObject_GetAttrString(G(0), "device"));
}

/* arange(n) as int64 on the gradients' device. */
static PyObject *positions(tl_grad_ctx *c, int64_t n)
{
  return CALL("arange", "L|{s:O,s:O}", (long long)n, "dtype", tl_py_dtype_obj(TL_DTYPE_I64),
              "device", tl_grad_device(c));
}

/* g's of the outputs scattered back to x through index maps: pos[k] holds,
 * for output k, the flat index in x of each of its elements. */
static void send_through_maps(tl_grad_ctx *c, PyObject *x, PyObject *pos)
{
  if (!pos || PyErr_Occurred())
    return;
  PyObject *where = tl_grad_keep(c, PyList_New(0)), *what = tl_grad_keep(c, PyList_New(0));
  if (!where || !what)
    return;
  bool one = tl_py_is_tensor(pos);
  Py_ssize_t n = one ? 1 : PySequence_Size(pos);
  PyObject *flat = py_int(c, -1);
  for (Py_ssize_t k = 0; k < n && !PyErr_Occurred(); k++) {
    if (!tl_grad_has_out(c, (int)k))
      continue;
    PyObject *p = one ? pos : tl_grad_keep(c, PySequence_GetItem(pos, k));
    PyObject *pk = CALL("reshape", "OO", p, flat), *gk = CALL("reshape", "OO", G((int)k), flat);
    if (!pk || !gk || PyList_Append(where, pk) < 0 || PyList_Append(what, gk) < 0)
      return;
  }
  if (PyErr_Occurred() || PyList_GET_SIZE(where) == 0)
    return;
  int64_t numel = tl_tensor_numel(tl_py_t(x));
  PyObject *p = CALL("cat", "O", where), *v = CALL("cat", "O", what);
  PyObject *zeros = CALL("new_zeros", "O(L)", v, (long long)numel);
  PyObject *sum = CALL("index_add", "OLOO", zeros, 0LL, p, v);
  SEND(x, CALL("reshape", "OO", sum, SHAPE(x)));
}

/* For ops that only move elements: replay the op on x's element numbers. */
static void send_by_index_map(tl_grad_ctx *c, PyObject *x)
{
  if (!x || PyErr_Occurred() || !NEEDS(x))
    return;
  PyObject *ids = CALL("reshape", "OO", positions(c, tl_tensor_numel(tl_py_t(x))), SHAPE(x));
  send_through_maps(c, x, replay(c, x, ids, NULL, NULL));
}

/* The tensors of a varargs or single-list call: f(a, b) or f([a, b]). */
static PyObject *tensor_args(tl_grad_ctx *c)
{
  tl_py_node *node = c->node;
  if (node->nargs == 1 && (PyList_Check(node->args[0]) || PyTuple_Check(node->args[0])))
    return tl_grad_keep(c, PySequence_Tuple(node->args[0]));
  PyObject *t = PyTuple_New(node->nargs);
  for (Py_ssize_t i = 0; t && i < node->nargs; i++)
    PyTuple_SET_ITEM(t, i, Py_NewRef(node->args[i]));
  return tl_grad_keep(c, t);
}

/* Functions of several tensors whose output i is input i reshaped or
 * broadcast (atleast_Nd of several tensors, broadcast_tensors). */
static void per_input(tl_grad_ctx *c)
{
  PyObject *xs = tensor_args(c);
  for (Py_ssize_t i = 0; xs && i < PyTuple_GET_SIZE(xs); i++) {
    PyObject *xi = PyTuple_GET_ITEM(xs, i);
    if (!tl_grad_has_out(c, (int)i) || !NEEDS(xi))
      continue;
    if (c->formula == TL_GRAD_BROADCAST_TENSORS)
      SEND(xi, G((int)i)); /* SEND sums over the broadcast dims */
    else
      SEND(xi, CALL("reshape", "OO", G((int)i), SHAPE(xi)));
  }
}

/* ---- formulas by family ------------------------------------------------------ */

static void permute(tl_grad_ctx *c, PyObject *x, PyObject *g)
{
  tl_py_node *node = c->node;
  PyObject *dims = ARG(-1, "dims");
  PyObject *const *items;
  Py_ssize_t n;
  if (dims) {
    items = &dims;
    n = 1;
  } else {
    items = node->args + 1;
    n = node->nargs - 1;
  }
  int64_t order[TL_MAX_DIMS], inverse[TL_MAX_DIMS];
  int nd;
  if (PyErr_Occurred() || tl_py_parse_shape("permute", items, n, order, &nd) < 0)
    return;
  for (int i = 0; i < nd; i++) {
    int64_t d = wrap_dim(order[i], nd);
    if (d < 0 || d >= nd) { /* the forward call checked this */
      PyErr_Format(PyExc_RuntimeError, "permute backward: bad dim %lld", (long long)order[i]);
      return;
    }
    inverse[d] = i;
  }
  SEND(x, CALL("permute", "OO", g, tl_grad_keep(c, tl_py_size_new(nd, inverse))));
}

/* cat and the stacks that are cats of atleast_Nd inputs: each input gets its
 * stretch of g along the joined dim. */
static void join(tl_grad_ctx *c, PyObject *g)
{
  PyObject *tensors = ARG(0, "tensors");
  PyObject *seq = tensors ? tl_grad_keep(c, PySequence_Tuple(tensors)) : NULL;
  if (!seq)
    return;
  int gnd = ndim_of(g);
  int64_t dim;
  switch (c->formula) {
  case TL_GRAD_STACK:
    dim = wrap_dim(int_or(c, 1, "dim", 0), gnd);
    for (Py_ssize_t i = 0; i < PyTuple_GET_SIZE(seq); i++)
      SEND(PyTuple_GET_ITEM(seq, i), CALL("select", "OLn", g, (long long)dim, i));
    return;
  case TL_GRAD_HSTACK: dim = gnd == 1 ? 0 : 1; break;
  case TL_GRAD_VSTACK:
  case TL_GRAD_ROW_STACK: dim = 0; break;
  case TL_GRAD_DSTACK: dim = 2; break;
  case TL_GRAD_COLUMN_STACK: dim = 1; break;
  default: {
    PyObject *axis = ARG(-1, "axis");
    dim = wrap_dim(axis ? int_or(c, -1, "axis", 0) : int_or(c, 1, "dim", 0), gnd);
  }
  }
  int64_t at = 0;
  for (Py_ssize_t i = 0; i < PyTuple_GET_SIZE(seq) && !PyErr_Occurred(); i++) {
    PyObject *x = PyTuple_GET_ITEM(seq, i);
    if (!tl_py_is_tensor(x))
      continue;
    const tl_tensor *t = tl_py_t(x);
    int64_t len;
    switch (c->formula) {
    case TL_GRAD_HSTACK: len = t->ndim == 0 ? 1 : t->shape[t->ndim == 1 ? 0 : 1]; break;
    case TL_GRAD_VSTACK:
    case TL_GRAD_ROW_STACK: len = t->ndim <= 1 ? 1 : t->shape[0]; break;
    case TL_GRAD_DSTACK: len = t->ndim <= 2 ? 1 : t->shape[2]; break;
    case TL_GRAD_COLUMN_STACK: len = t->ndim <= 1 ? 1 : t->shape[1]; break;
    default: /* cat skips the legacy empty 1-d tensor among others */
      if (t->ndim == 1 && t->shape[0] == 0 && gnd != 1)
        continue;
      len = t->shape[dim];
    }
    PyObject *piece = CALL("narrow", "OLLL", g, (long long)dim, (long long)at, (long long)len);
    SEND(x, CALL("reshape", "OO", piece, SHAPE(x)));
    at += len;
  }
}

/* [0, ..., n-1] without `own`: the dims a grid's gradient is summed over. */
static PyObject *other_dims(tl_grad_ctx *c, Py_ssize_t n, Py_ssize_t own)
{
  PyObject *others = tl_grad_keep(c, PyList_New(0));
  for (Py_ssize_t d = 0; others && d < n; d++) {
    PyObject *v = d == own ? NULL : PyLong_FromSsize_t(d);
    if (v && PyList_Append(others, v) < 0)
      others = NULL;
    Py_XDECREF(v);
  }
  return others;
}

static void meshgrid(tl_grad_ctx *c)
{
  PyObject *xs = tensor_args(c), *indexing = ARG(-1, "indexing");
  if (!xs)
    return;
  bool xy = indexing && PyUnicode_Check(indexing) &&
            PyUnicode_CompareWithASCIIString(indexing, "xy") == 0;
  Py_ssize_t n = PyTuple_GET_SIZE(xs);
  for (Py_ssize_t i = 0; i < n && !PyErr_Occurred(); i++) {
    PyObject *x = PyTuple_GET_ITEM(xs, i);
    if (!NEEDS(x))
      continue;
    Py_ssize_t own = xy && n >= 2 && i < 2 ? 1 - i : i; /* 'xy' swaps the first two dims */
    PyObject *others = other_dims(c, n, own);
    PyObject *gi = G((int)i);
    if (others && PyList_GET_SIZE(others))
      gi = CALL("sum", "O|{s:O}", gi, "dim", others);
    SEND(x, CALL("reshape", "OO", gi, SHAPE(x)));
  }
}

static void block_diag(tl_grad_ctx *c, PyObject *g)
{
  PyObject *xs = tensor_args(c);
  int64_t row = 0, col = 0;
  for (Py_ssize_t i = 0; xs && i < PyTuple_GET_SIZE(xs) && !PyErr_Occurred(); i++) {
    PyObject *x = PyTuple_GET_ITEM(xs, i);
    const tl_tensor *t = tl_py_t(x);
    int64_t rows = t->ndim == 2 ? t->shape[0] : 1;
    int64_t cols = t->ndim == 0 ? 1 : t->shape[t->ndim - 1];
    PyObject *piece = CALL("narrow", "OLLL", g, 0LL, (long long)row, (long long)rows);
    piece = CALL("narrow", "OLLL", piece, 1LL, (long long)col, (long long)cols);
    SEND(x, CALL("reshape", "OO", piece, SHAPE(x)));
    row += rows;
    col += cols;
  }
}

/* cartesian_prod(x0, ..., xn-1): column i of the (N, n) result is xi laid
 * along dim i of an n0 x ... x nn-1 grid; its gradient is that column's
 * grid summed over the other dims.  One input comes back as itself. */
static void cartesian_prod(tl_grad_ctx *c, PyObject *g)
{
  PyObject *xs = tensor_args(c);
  Py_ssize_t n = xs ? PyTuple_GET_SIZE(xs) : 0;
  PyObject *grid = n > 1 ? tl_grad_keep(c, PyTuple_New(n)) : NULL;
  for (Py_ssize_t i = 0; grid && i < n; i++)
    PyTuple_SET_ITEM(grid, i, PyLong_FromLongLong(tl_py_t(PyTuple_GET_ITEM(xs, i))->shape[0]));
  for (Py_ssize_t i = 0; xs && i < n && !PyErr_Occurred(); i++) {
    PyObject *x = PyTuple_GET_ITEM(xs, i);
    if (!NEEDS(x))
      continue;
    if (n == 1) {
      SEND(x, g);
      continue;
    }
    PyObject *others = other_dims(c, n, i);
    PyObject *column = CALL("select", "OLL", g, 1LL, (long long)i);
    column = CALL("reshape", "OO", column, grid);
    SEND(x, CALL("sum", "O|{s:O}", column, "dim", others));
  }
}

/* The largest storage position a non-empty view reaches. */
static int64_t last_position(int nd, const int64_t *shape, const int64_t *strides, int64_t offset)
{
  for (int d = 0; d < nd; d++)
    if (strides[d] > 0)
      offset += (shape[d] - 1) * strides[d];
  return offset;
}

/* as_strided reads x's storage: match output elements to x's elements by
 * storage position (positions outside x get no gradient). */
static PyObject *storage_positions(tl_grad_ctx *c, int nd, const int64_t *shape,
                                   const int64_t *strides, int64_t offset)
{
  PyObject *acc = CALL("tensor", "L|{s:O,s:O}", (long long)offset, "dtype",
                       tl_py_dtype_obj(TL_DTYPE_I64), "device", tl_grad_device(c));
  for (int d = 0; d < nd; d++) {
    int64_t view[TL_MAX_DIMS];
    for (int k = 0; k < nd; k++)
      view[k] = k == d ? shape[d] : 1;
    PyObject *step = CALL("mul", "OL", positions(c, shape[d]), (long long)strides[d]);
    PyObject *along = tl_grad_keep(c, tl_py_size_new(nd, view));
    acc = CALL("add", "OO", acc, CALL("reshape", "OO", step, along));
  }
  return acc;
}

static int int_list(PyObject *o, int64_t *v, int *n)
{
  PyObject *seq = o ? PySequence_Fast(o, "as_strided(): size and stride must be sequences") : NULL;
  if (!seq)
    return -1;
  *n = (int)PySequence_Fast_GET_SIZE(seq);
  if (*n > TL_MAX_DIMS) {
    Py_DECREF(seq);
    PyErr_Format(PyExc_RuntimeError, "as_strided backward: %d dims (at most %d)", *n, TL_MAX_DIMS);
    return -1;
  }
  for (int i = 0; i < *n; i++)
    v[i] = PyLong_AsLongLong(PySequence_Fast_GET_ITEM(seq, i));
  Py_DECREF(seq);
  return PyErr_Occurred() ? -1 : 0;
}

/* A complex tensor of the (re, im) pairs in the last dim of a real one. */
static PyObject *from_pairs(tl_grad_ctx *c, PyObject *pairs)
{
  PyObject *i = tl_grad_keep(c, PyComplex_FromDoubles(0.0, 1.0));
  return CALL("add", "OO", CALL("select", "OLL", pairs, -1LL, 0LL),
              CALL("mul", "OO", CALL("select", "OLL", pairs, -1LL, 1LL), i));
}

static void as_strided(tl_grad_ctx *c, PyObject *x)
{
  tl_tensor t = *tl_py_t(x);
  int64_t size[TL_MAX_DIMS], stride[TL_MAX_DIMS];
  int nsize, nstride;
  if (PyErr_Occurred() || int_list(ARG(1, "size"), size, &nsize) < 0 ||
      int_list(ARG(2, "stride"), stride, &nstride) < 0)
    return;
  int64_t offset = int_or(c, 3, "storage_offset", t.offset), nx, nout;
  if (tl_shape_count(nsize, size, &nout) != TL_OK) {
    tl_py_raise();
    return;
  }
  /* a real view (.real, .imag) of a complex x, rebuilt over x after an
   * in-place write (py_record.c): its geometry counts x's storage in real
   * numbers, so x is addressed as view_as_real's (*shape, 2) */
  PyObject *g0 = G(0);
  bool split = tl_dtype_is_complex(t.dtype) && g0 && !tl_dtype_is_complex(tl_py_t(g0)->dtype);
  if (split) {
    if (t.ndim >= TL_MAX_DIMS) {
      PyErr_Format(PyExc_RuntimeError, "as_strided backward: %d dims (at most %d)", t.ndim + 1,
                   TL_MAX_DIMS);
      return;
    }
    for (int d = 0; d < t.ndim; d++)
      t.strides[d] *= 2;
    t.shape[t.ndim] = 2;
    t.strides[t.ndim++] = 1;
    t.offset *= 2;
  }
  nx = tl_tensor_numel(&t);
  if (nx == 0 || nout == 0)
    return;
  PyObject *flat = py_int(c, -1);
  PyObject *at_x = CALL("reshape", "OO",
                        storage_positions(c, t.ndim, t.shape, t.strides, t.offset), flat);
  PyObject *at_out = CALL("reshape", "OO", storage_positions(c, nsize, size, stride, offset), flat);
  if (!at_x || !at_out)
    return;
  /* the furthest storage position either view reaches, from shapes and
   * strides (not read back from the device: no host sync) */
  int64_t span = last_position(t.ndim, t.shape, t.strides, t.offset);
  int64_t span_out = last_position(nsize, size, stride, offset);
  span = (span > span_out ? span : span_out) + 1;
  /* which x element (nx: none) sits at each storage position */
  PyObject *owner = CALL("full", "(L)L|{s:O,s:O}", (long long)span, (long long)nx, "dtype",
                         tl_py_dtype_obj(TL_DTYPE_I64), "device", tl_grad_device(c));
  CALL("index_put_", "O(O)O", owner, at_x, positions(c, nx));
  PyObject *src = CALL("index_select", "OLO", owner, 0LL, at_out);
  PyObject *g = CALL("reshape", "OO", g0, flat);
  PyObject *zeros = CALL("new_zeros", "O(L)", g, (long long)nx + 1); /* slot nx: outside x */
  PyObject *sum = CALL("narrow", "OLLL", CALL("index_add", "OLOO", zeros, 0LL, src, g), 0LL, 0LL,
                       (long long)nx);
  if (split) {
    PyObject *pairs = tl_grad_keep(c, tl_py_size_new(t.ndim, t.shape));
    sum = from_pairs(c, CALL("reshape", "OO", sum, pairs));
  }
  SEND(x, CALL("reshape", "OO", sum, SHAPE(x)));
}

/* A (list of) negated shift(s) for roll. */
static PyObject *negated(tl_grad_ctx *c, PyObject *o)
{
  if (!o || PyErr_Occurred())
    return NULL;
  if (!PyList_Check(o) && !PyTuple_Check(o))
    return tl_grad_keep(c, PyNumber_Negative(o));
  Py_ssize_t n = PySequence_Size(o);
  PyObject *r = tl_grad_keep(c, PyTuple_New(n));
  for (Py_ssize_t i = 0; r && i < n; i++) {
    PyObject *item = PySequence_GetItem(o, i);
    PyObject *neg = item ? PyNumber_Negative(item) : NULL;
    Py_XDECREF(item);
    if (!neg)
      return NULL;
    PyTuple_SET_ITEM(r, i, neg);
  }
  return r;
}

static void pad(tl_grad_ctx *c, PyObject *x, PyObject *g)
{
  PyObject *mode = ARG(2, "mode");
  if (mode && mode != Py_None && PyUnicode_CompareWithASCIIString(mode, "constant") != 0) {
    send_by_index_map(c, x); /* reflect, replicate, circular */
    return;
  }
  /* constant: padding g by the negated amounts crops what was added and
   * puts zeros where the input was cropped */
  SEND(x, CALL("_pad", "OO", g, negated(c, ARG(1, "pad"))));
}

/* slice(start, end, step) along dim, as a getitem key. */
static PyObject *slice_key(tl_grad_ctx *c, int64_t dim, PyObject *start, PyObject *end,
                           PyObject *step)
{
  PyObject *key = tl_grad_keep(c, PyTuple_New(dim + 1));
  for (int64_t d = 0; key && d <= dim; d++) {
    PyObject *s = d < dim ? PySlice_New(NULL, NULL, NULL) : PySlice_New(start, end, step);
    if (!s)
      return NULL;
    PyTuple_SET_ITEM(key, d, s);
  }
  return key;
}

/* ---- the formula ----------------------------------------------------------------- */

static void backward(tl_grad_ctx *c)
{
  PyObject *x = ARG(0, "input"), *g;
  switch (c->formula) {
  case TL_GRAD_RESHAPE:
  case TL_GRAD_VIEW:
  case TL_GRAD_VIEW_AS:
  case TL_GRAD_RESHAPE_AS:
  case TL_GRAD_FLATTEN:
  case TL_GRAD_UNFLATTEN:
  case TL_GRAD_RAVEL:
  case TL_GRAD_SQUEEZE:
  case TL_GRAD_UNSQUEEZE:
    SEND(x, CALL("reshape", "OO", G(0), SHAPE(x)));
    break;
  case TL_GRAD_ATLEAST_1D:
  case TL_GRAD_ATLEAST_2D:
  case TL_GRAD_ATLEAST_3D:
    if (c->node->nargs == 1 && tl_py_is_tensor(x))
      SEND(x, CALL("reshape", "OO", G(0), SHAPE(x)));
    else
      per_input(c);
    break;
  case TL_GRAD_BROADCAST_TENSORS:
    per_input(c);
    break;
  case TL_GRAD_EXPAND:
  case TL_GRAD_EXPAND_AS:
  case TL_GRAD_BROADCAST_TO:
    SEND(x, G(0)); /* SEND sums over the broadcast dims */
    break;
  case TL_GRAD_PERMUTE:
    permute(c, x, G(0));
    break;
  case TL_GRAD_TRANSPOSE:
  case TL_GRAD_SWAPAXES:
  case TL_GRAD_SWAPDIMS:
  case TL_GRAD_T:
  case TL_GRAD_ADJOINT:
  case TL_GRAD_FLIP:
  case TL_GRAD_FLIPLR:
  case TL_GRAD_FLIPUD:
  case TL_GRAD_TRIL:
  case TL_GRAD_TRIU:
    SEND(x, replay(c, x, G(0), NULL, NULL)); /* each is its own adjoint */
    break;
  case TL_GRAD_MOVEDIM:
  case TL_GRAD_MOVEAXIS:
    SEND(x, CALL("movedim", "OOO", G(0), ARG(2, "destination"), ARG(1, "source")));
    break;
  case TL_GRAD_ROLL: {
    PyObject *dims = ARG(2, "dims");
    g = G(0);
    if (dims && dims != Py_None)
      SEND(x, CALL("roll", "OOO", g, negated(c, ARG(1, "shifts")), dims));
    else
      SEND(x, CALL("roll", "OO", g, negated(c, ARG(1, "shifts"))));
    break;
  }
  case TL_GRAD_ROT90: {
    PyObject *dims = ARG(2, "dims");
    if (!dims)
      dims = tl_grad_keep(c, Py_BuildValue("(ii)", 0, 1));
    SEND(x, CALL("rot90", "OLO", G(0), -(long long)int_or(c, 1, "k", 1), dims));
    break;
  }
  case TL_GRAD_DIAGONAL: {
    g = G(0);
    PyObject *zeros = CALL("new_zeros", "OO", g, SHAPE(x));
    SEND(x, CALL("diagonal_scatter", "OOLLL", zeros, g, (long long)int_or(c, 1, "offset", 0),
                 (long long)int_or(c, 2, "dim1", 0), (long long)int_or(c, 3, "dim2", 1)));
    break;
  }
  case TL_GRAD_DIAG: {
    long long k = (long long)int_or(c, 1, "diagonal", 0);
    g = G(0);
    if (ndim_of(x) == 1)
      SEND(x, CALL("diagonal", "OL", g, k));
    else
      SEND(x, CALL("diagonal_scatter", "OOL", CALL("new_zeros", "OO", g, SHAPE(x)), g, k));
    break;
  }
  case TL_GRAD_DIAG_EMBED:
    SEND(x, CALL("diagonal", "OLLL", G(0), (long long)int_or(c, 1, "offset", 0),
                 (long long)int_or(c, 2, "dim1", -2), (long long)int_or(c, 3, "dim2", -1)));
    break;
  case TL_GRAD_DIAGFLAT:
    g = CALL("diagonal", "OL", G(0), (long long)int_or(c, 1, "offset", 0));
    SEND(x, CALL("reshape", "OO", g, SHAPE(x)));
    break;
  case TL_GRAD_NARROW:
  case TL_GRAD_NARROW_COPY: {
    int nd = ndim_of(x);
    int64_t dim = wrap_dim(int_or(c, 1, "dim", 0), nd), start = int_or(c, 2, "start", 0);
    int64_t length = int_or(c, 3, "length", 0);
    if (PyErr_Occurred() || dim < 0 || dim >= nd)
      break;
    if (start < 0)
      start += tl_py_t(x)->shape[dim];
    g = G(0);
    SEND(x, CALL("slice_scatter", "OO|{s:L,s:L,s:L}", CALL("new_zeros", "OO", g, SHAPE(x)), g,
                 "dim", (long long)dim, "start", (long long)start, "end",
                 (long long)(start + length)));
    break;
  }
  case TL_GRAD_SELECT:
    g = G(0);
    SEND(x, CALL("select_scatter", "OOLL", CALL("new_zeros", "OO", g, SHAPE(x)), g,
                 (long long)int_or(c, 1, "dim", 0), (long long)int_or(c, 2, "index", 0)));
    break;
  case TL_GRAD_SELECT_SCATTER:
  case TL_GRAD_SLICE_SCATTER:
  case TL_GRAD_DIAGONAL_SCATTER: {
    PyObject *src = ARG(1, "src");
    g = G(0);
    if (NEEDS(x)) /* the written region came from src */
      SEND(x, replay(c, x, g, src, CALL("new_zeros", "OO", g, SHAPE(src))));
    if (!NEEDS(src))
      break;
    if (c->formula == TL_GRAD_SELECT_SCATTER) {
      SEND(src, CALL("select", "OLL", g, (long long)int_or(c, 2, "dim", 0),
                     (long long)int_or(c, 3, "index", 0)));
    } else if (c->formula == TL_GRAD_DIAGONAL_SCATTER) {
      SEND(src, CALL("diagonal", "OLLL", g, (long long)int_or(c, 2, "offset", 0),
                     (long long)int_or(c, 3, "dim1", 0), (long long)int_or(c, 4, "dim2", 1)));
    } else {
      PyObject *start = ARG(3, "start"), *end = ARG(4, "end"), *step = ARG(5, "step");
      int64_t dim = wrap_dim(int_or(c, 2, "dim", 0), ndim_of(x));
      SEND(src, CALL("__getitem__", "OO", g, slice_key(c, dim, start, end, step)));
    }
    break;
  }
  case TL_GRAD_AS_STRIDED:
    if (NEEDS(x))
      as_strided(c, x);
    break;
  case TL_GRAD_SPLIT:
  case TL_GRAD_CHUNK:
  case TL_GRAD_UNBIND: {
    int n = c->node->noutputs;
    int64_t dim = int_or(c, c->formula == TL_GRAD_UNBIND ? 1 : 2, "dim", 0);
    PyObject *gs = tl_grad_keep(c, PyList_New(n));
    for (int i = 0; gs && i < n; i++) {
      PyObject *gi = G(i);
      if (!gi)
        return;
      PyList_SET_ITEM(gs, i, Py_NewRef(gi));
    }
    const char *join_op = c->formula == TL_GRAD_UNBIND ? "stack" : "cat";
    SEND(x, CALL(join_op, "O|{s:L}", gs, "dim", (long long)dim));
    break;
  }
  case TL_GRAD_UNFOLD:
  case TL_GRAD_TENSOR_SPLIT:
  case TL_GRAD_HSPLIT:
  case TL_GRAD_VSPLIT:
  case TL_GRAD_DSPLIT:
  case TL_GRAD_REPEAT:
  case TL_GRAD_TILE:
  case TL_GRAD_REPEAT_INTERLEAVE:
    send_by_index_map(c, x);
    break;
  case TL_GRAD_CAT:
  case TL_GRAD_CONCAT:
  case TL_GRAD_CONCATENATE:
  case TL_GRAD_STACK:
  case TL_GRAD_HSTACK:
  case TL_GRAD_VSTACK:
  case TL_GRAD_ROW_STACK:
  case TL_GRAD_DSTACK:
  case TL_GRAD_COLUMN_STACK:
    join(c, G(0));
    break;
  case TL_GRAD_MESHGRID:
    meshgrid(c);
    break;
  case TL_GRAD_BLOCK_DIAG:
    block_diag(c, G(0));
    break;
  case TL_GRAD_CARTESIAN_PROD:
    cartesian_prod(c, G(0));
    break;
  case TL_GRAD_PAD:
    pad(c, x, G(0));
    break;
  }
}

void tl_grad_formulas_shape_init(void)
{
  static const int ids[] = {
      TL_GRAD_RESHAPE, TL_GRAD_VIEW, TL_GRAD_VIEW_AS, TL_GRAD_RESHAPE_AS, TL_GRAD_FLATTEN,
      TL_GRAD_UNFLATTEN, TL_GRAD_RAVEL, TL_GRAD_PERMUTE, TL_GRAD_TRANSPOSE, TL_GRAD_SWAPAXES,
      TL_GRAD_SWAPDIMS, TL_GRAD_T, TL_GRAD_ADJOINT, TL_GRAD_MOVEDIM, TL_GRAD_MOVEAXIS,
      TL_GRAD_SQUEEZE, TL_GRAD_UNSQUEEZE, TL_GRAD_EXPAND, TL_GRAD_EXPAND_AS, TL_GRAD_BROADCAST_TO,
      TL_GRAD_BROADCAST_TENSORS, TL_GRAD_DIAGONAL, TL_GRAD_NARROW, TL_GRAD_SELECT,
      TL_GRAD_AS_STRIDED, TL_GRAD_UNFOLD, TL_GRAD_SPLIT, TL_GRAD_CHUNK, TL_GRAD_UNBIND,
      TL_GRAD_TENSOR_SPLIT, TL_GRAD_HSPLIT, TL_GRAD_VSPLIT, TL_GRAD_DSPLIT, TL_GRAD_ATLEAST_1D,
      TL_GRAD_ATLEAST_2D, TL_GRAD_ATLEAST_3D, TL_GRAD_CAT, TL_GRAD_CONCAT, TL_GRAD_CONCATENATE,
      TL_GRAD_STACK, TL_GRAD_HSTACK, TL_GRAD_VSTACK, TL_GRAD_ROW_STACK, TL_GRAD_DSTACK,
      TL_GRAD_COLUMN_STACK, TL_GRAD_FLIP, TL_GRAD_FLIPLR, TL_GRAD_FLIPUD, TL_GRAD_ROLL,
      TL_GRAD_ROT90, TL_GRAD_REPEAT, TL_GRAD_TILE, TL_GRAD_REPEAT_INTERLEAVE, TL_GRAD_TRIL,
      TL_GRAD_TRIU, TL_GRAD_DIAG, TL_GRAD_DIAG_EMBED, TL_GRAD_DIAGFLAT, TL_GRAD_NARROW_COPY,
      TL_GRAD_MESHGRID, TL_GRAD_BLOCK_DIAG, TL_GRAD_CARTESIAN_PROD, TL_GRAD_PAD, TL_GRAD_SELECT_SCATTER,
      TL_GRAD_SLICE_SCATTER, TL_GRAD_DIAGONAL_SCATTER,
  };
  /* these read tensors of the call other than x (a repeats or indices
   * tensor): the node keeps its arguments */
  static const int keep_args[] = {TL_GRAD_REPEAT_INTERLEAVE, TL_GRAD_TENSOR_SPLIT, TL_GRAD_HSPLIT,
                                  TL_GRAD_VSPLIT, TL_GRAD_DSPLIT};
  /* shapes are all a formula here reads: keep metadata stubs only */
  TL_GRAD_REGISTER(ids, backward, TL_GRAD_DROP_INPUTS | TL_GRAD_DROP_OUTPUTS);
  TL_GRAD_DROP(keep_args, TL_GRAD_DROP_OUTPUTS);
}
