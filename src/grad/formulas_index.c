/* formulas_index.c - derivatives of indexing: __getitem__, __setitem__ and
 * the gather/scatter/index/masked family (ops.def INDEX).
 *
 * Legend: g is the gradient of the output, x the input (for the in-place
 * twins, index_add_ ..., the recorder saved a copy of the old x in its
 * place), src/source/values the tensor written into x.
 *
 * Reading elements (getitem, gather, index_select, take ...) sends g back
 * with an accumulating write (index_add, scatter_add, put(accumulate=True)),
 * so an element read twice gets both gradients.  Writing elements (setitem,
 * scatter, index_copy, put ...) zeroes g where x was overwritten and reads
 * the written region of g for the source.  nonzero/argwhere return integers
 * and get no graph (the recorder sees no differentiable output).          */
#include <Python.h>

#include "grad/py_grad.h"

/* ---- helpers --------------------------------------------------------------- */

static PyObject *dtype_of(PyObject *t) { return t ? tl_py_dtype_obj(tl_py_t(t)->dtype) : NULL; }

static PyObject *zeros_shaped(tl_grad_ctx *c, PyObject *g, PyObject *like)
{
  return CALL("new_zeros", "OO", g, SHAPE(like));
}

static bool is_tensor(PyObject *o) { return o && tl_py_is_tensor(o); }

/* Send grad to `target`, whose shape broadcast to grad's in the forward
 * (a value written by setitem/index_put): leading size-1 dims the write
 * dropped are put back so that SEND can sum to target's shape. */
static void send_fitted(tl_grad_ctx *c, PyObject *target, PyObject *grad)
{
  if (!is_tensor(target) || !grad || PyErr_Occurred() || !NEEDS(target))
    return;
  const tl_tensor *t = tl_py_t(target), *gt = tl_py_t(grad);
  if (t->ndim > gt->ndim) {
    int64_t shape[TL_MAX_DIMS];
    int lead = t->ndim - gt->ndim;
    for (int d = 0; d < t->ndim; d++)
      shape[d] = d < lead ? 1 : gt->shape[d - lead];
    grad = CALL("reshape", "OO", grad, tl_grad_keep(c, tl_py_size_new(t->ndim, shape)));
  }
  SEND(target, grad);
}

/* grad (index-shaped) zero-padded at the end of each dim to target's shape:
 * scatter reads only the index-shaped corner of src. */
static PyObject *pad_to(tl_grad_ctx *c, PyObject *grad, PyObject *target)
{
  if (!grad || PyErr_Occurred())
    return NULL;
  const tl_tensor *g = tl_py_t(grad), *t = tl_py_t(target);
  bool same = g->ndim == t->ndim;
  for (int d = 0; same && d < t->ndim; d++)
    same = g->shape[d] == t->shape[d];
  if (same || g->ndim != t->ndim)
    return grad;
  PyObject *pads = tl_grad_keep(c, PyList_New(2 * (Py_ssize_t)t->ndim));
  for (int d = t->ndim - 1, k = 0; pads && d >= 0; d--, k += 2) {
    PyObject *before = PyLong_FromLong(0), *after = PyLong_FromLongLong(t->shape[d] - g->shape[d]);
    PyList_SET_ITEM(pads, k, before); /* the list owns them even when one is NULL */
    PyList_SET_ITEM(pads, k + 1, after);
    if (!before || !after)
      return NULL;
  }
  return CALL("_pad", "OO", grad, pads);
}

/* The index-shaped corner of src (what scatter reads). */
static PyObject *corner(tl_grad_ctx *c, PyObject *src, PyObject *index)
{
  if (!src || !index || PyErr_Occurred())
    return NULL;
  const tl_tensor *s = tl_py_t(src), *i = tl_py_t(index);
  for (int d = 0; d < s->ndim && d < i->ndim; d++)
    if (s->shape[d] != i->shape[d])
      src = CALL("narrow", "OiiL", src, d, 0, (long long)i->shape[d]);
  return src;
}

/* A getitem key made only of ints, slices, None and Ellipsis: it picks each
 * element at most once, so the gradient can simply be written there. */
static bool basic_item(PyObject *o)
{
  return o == Py_None || o == Py_Ellipsis || PySlice_Check(o) || PyLong_CheckExact(o);
}

static bool basic_key(PyObject *key)
{
  if (!PyTuple_Check(key))
    return basic_item(key);
  for (Py_ssize_t i = 0; i < PyTuple_GET_SIZE(key); i++)
    if (!basic_item(PyTuple_GET_ITEM(key, i)))
      return false;
  return true;
}

/* ---- getitem / setitem ----------------------------------------------------- */

static void getitem(tl_grad_ctx *c, PyObject *x, PyObject *key, PyObject *g)
{
  if (!NEEDS(x) || !g)
    return;
  if (basic_key(key)) {
    PyObject *grad = zeros_shaped(c, g, x);
    CALL("__setitem__", "OOO", grad, key, g);
    SEND(x, grad);
    return;
  }
  /* Advanced indexing may read an element several times: index the element
   * numbers of x with the same key and add g up at those numbers. */
  int64_t n = tl_tensor_numel(tl_py_t(x));
  PyObject *dev = tl_grad_keep(c, PyObject_GetAttrString(g, "device"));
  PyObject *ids = CALL("arange", "L|{s:O,s:O}", (long long)n, "dtype",
                       tl_py_dtype_obj(TL_DTYPE_I64), "device", dev);
  PyObject *picked = CALL("__getitem__", "OO", CALL("reshape", "OO", ids, SHAPE(x)), key);
  PyObject *flat = tl_grad_keep(c, PyLong_FromLong(-1));
  PyObject *sum = CALL("index_add", "OiOO", CALL("new_zeros", "O(L)", g, (long long)n), 0,
                       CALL("reshape", "OO", picked, flat), CALL("reshape", "OO", g, flat));
  SEND(x, CALL("reshape", "OO", sum, SHAPE(x)));
}

static void setitem(tl_grad_ctx *c, PyObject *x, PyObject *key, PyObject *value, PyObject *g)
{
  if (NEEDS(x)) { /* the overwritten region of the old x got no say */
    PyObject *kept = CALL("new_ones", "OO", g, SHAPE(x));
    CALL("__setitem__", "OOi", kept, key, 0);
    SEND(x, CALL("mul", "OO", g, kept));
  }
  if (is_tensor(value) && NEEDS(value))
    send_fitted(c, value, CALL("__getitem__", "OO", g, key));
}

/* ---- scatter_reduce ----------------------------------------------------------- */

/* Gradients of out = x.scatter_reduce(dim, index, src, reduce, include_self)
 * for reduce in sum, prod, mean, amax, amin.  src_obj: the src argument to
 * send to (NULL when src is a constant, scatter(value=, reduce=)). */
static void scatter_reduce(tl_grad_ctx *c, PyObject *x, PyObject *dim, PyObject *index,
                           PyObject *src_obj, PyObject *src, const char *reduce,
                           bool include_self, PyObject *g)
{
  bool want_x = NEEDS(x), want_src = src_obj && NEEDS(src_obj);
  PyObject *incl = include_self ? Py_True : Py_False;
  PyObject *gx = NULL, *gsrc = NULL;
  PyObject *used = corner(c, src, index); /* the src elements that were read */
  if (!strcmp(reduce, "sum")) {
    gx = g;
    gsrc = want_src ? CALL("gather", "OOO", g, dim, index) : NULL;
  } else if (!strcmp(reduce, "mean")) {
    PyObject *n = include_self ? CALL("new_ones", "OO", g, SHAPE(x)) : zeros_shaped(c, g, x);
    n = CALL("scatter_add", "OOOO", n, dim, index, CALL("new_ones", "OO", g, SHAPE(index)));
    n = CALL("masked_fill", "OOi", n, CALL("eq", "Oi", n, 0), 1);
    gx = CALL("div", "OO", g, n);
    gsrc = want_src ? CALL("gather", "OOO", gx, dim, index) : NULL;
  } else if (!strcmp(reduce, "prod")) {
    PyObject *r = R(0);
    if (want_x) {
      /* d out / d x = product of the others: x replaced by 1 where it is 0
       * makes the same product work at zeros of x */
      PyObject *x1 = CALL("masked_fill", "OOi", x, CALL("eq", "Oi", x, 0), 1);
      PyObject *others = CALL("scatter_reduce", "OOOOs|{s:O}", x1, dim, index, src, "prod",
                              "include_self", Py_True);
      gx = CALL("div", "OO", CALL("mul", "OO", g, others), x1);
    }
    if (want_src) {
      /* a src element that is the only zero of its group: the product of
       * the others is the group's product with it replaced by 1; with no
       * zero it is out / src; with two zeros or more it is 0 */
      PyObject *zero = CALL("eq", "Oi", used, 0);
      PyObject *nzero = CALL("scatter_add", "OOOO", zeros_shaped(c, g, x), dim, index,
                             CALL("to", "OO", zero, dtype_of(g)));
      PyObject *alone = CALL("logical_and", "OO", zero,
                             CALL("eq", "Oi", CALL("gather", "OOO", nzero, dim, index), 1));
      PyObject *used1 = CALL("masked_fill", "OOi", used, alone, 1);
      PyObject *without = CALL("scatter_reduce", "OOOOs|{s:O}", x, dim, index, used1, "prod",
                               "include_self", incl);
      PyObject *by_alone = CALL("gather", "OOO", CALL("mul", "OO", g, without), dim, index);
      PyObject *gr = CALL("gather", "OOO", CALL("mul", "OO", g, r), dim, index);
      PyObject *by_div = CALL("div", "OO", gr,
                              CALL("masked_fill", "OOi", used, zero, 1));
      gsrc = CALL("where", "OOO", alone, by_alone, by_div);
    }
  } else { /* amax, amin: ties share the gradient evenly */
    PyObject *r = R(0);
    PyObject *self_hit = CALL("to", "OO", CALL("eq", "OO", x, r), dtype_of(g));
    if (!include_self) {
      PyObject *hit = CALL("scatter", "OOOi", zeros_shaped(c, g, x), dim, index, 1);
      self_hit = CALL("mul", "OO", self_hit, CALL("eq", "Oi", hit, 0));
    }
    PyObject *r_at = CALL("gather", "OOO", r, dim, index);
    PyObject *src_hit = CALL("to", "OO", CALL("eq", "OO", used, r_at), dtype_of(g));
    PyObject *count = CALL("add", "OO", self_hit,
                           CALL("scatter_add", "OOOO", zeros_shaped(c, g, x), dim, index, src_hit));
    count = CALL("masked_fill", "OOi", count, CALL("eq", "Oi", count, 0), 1);
    PyObject *share = CALL("div", "OO", g, count);
    gx = CALL("mul", "OO", share, self_hit);
    gsrc = want_src ? CALL("mul", "OO", CALL("gather", "OOO", share, dim, index), src_hit) : NULL;
  }
  if (want_x && gx)
    SEND(x, include_self ? gx : CALL("scatter", "OOOi", gx, dim, index, 0));
  if (want_src && gsrc)
    SEND(src_obj, pad_to(c, gsrc, src_obj));
}

static void scatter(tl_grad_ctx *c, PyObject *x, PyObject *g)
{
  PyObject *dim = ARG(1, "dim"), *index = ARG(2, "index"), *src = ARG(3, "src");
  PyObject *reduce = ARG(5, "reduce");
  if (!src)
    src = ARG(-1, "value");
  if (!src || PyErr_Occurred())
    return;
  if (reduce && reduce != Py_None) {
    bool add = PyUnicode_Check(reduce) && PyUnicode_CompareWithASCIIString(reduce, "add") == 0;
    PyObject *src_t = is_tensor(src) ? (add ? src : X(3, "src"))
                                     : CALL("full", "OO|{s:O,s:O}", SHAPE(index), src, "dtype",
                                            dtype_of(g), "device",
                                            tl_grad_keep(c, PyObject_GetAttrString(g, "device")));
    scatter_reduce(c, add ? x : X(0, "input"), dim, index, is_tensor(src) ? src : NULL, src_t,
                   add ? "sum" : "prod", true, g);
    return;
  }
  if (NEEDS(x)) /* overwritten where index points */
    SEND(x, CALL("scatter", "OOOi", g, dim, index, 0));
  if (is_tensor(src) && NEEDS(src))
    SEND(src, pad_to(c, CALL("gather", "OOO", g, dim, index), src));
}

/* ---- the formula ------------------------------------------------------------------ */

static void backward(tl_grad_ctx *c)
{
  PyObject *x = ARG(0, "input"), *g = G(0);
  switch (c->formula) {
  case TL_GRAD_GETITEM:
    getitem(c, x, ARG(1, "key"), g);
    break;
  case TL_GRAD_SETITEM:
    setitem(c, x, ARG(1, "key"), ARG(2, "value"), g);
    break;
  case TL_OP_GATHER:
    SEND(x, CALL("scatter_add", "OOOO", zeros_shaped(c, g, x), ARG(1, "dim"), ARG(2, "index"), g));
    break;
  case TL_OP_SCATTER:
    scatter(c, x, g);
    break;
  case TL_OP_SCATTER_ADD:
  case TL_OP_SCATTER_REDUCE: {
    PyObject *dim = ARG(1, "dim"), *index = ARG(2, "index"), *src = ARG(3, "src");
    if (c->formula == TL_OP_SCATTER_ADD) {
      scatter_reduce(c, x, dim, index, src, src, "sum", true, g);
      break;
    }
    PyObject *reduce = ARG(4, "reduce"), *incl = ARG(5, "include_self");
    int include_self = incl ? PyObject_IsTrue(incl) : 1;
    const char *name = reduce && PyUnicode_Check(reduce) ? PyUnicode_AsUTF8(reduce) : NULL;
    if (!name || include_self < 0)
      break;
    bool reads = strcmp(name, "sum") && strcmp(name, "mean"); /* prod, amax, amin */
    scatter_reduce(c, reads ? X(0, "input") : x, dim, index, src, reads ? X(3, "src") : src,
                   name, include_self, g);
    break;
  }
  case TL_OP_INDEX_SELECT: {
    PyObject *index = ARG(2, "index");
    if (is_tensor(index) && tl_py_t(index)->ndim == 0)
      index = CALL("reshape", "Oi", index, 1);
    SEND(x, CALL("index_add", "OOOO", zeros_shaped(c, g, x), ARG(1, "dim"), index, g));
    break;
  }
  case TL_OP_INDEX_ADD:
  case TL_OP_INDEX_COPY: {
    PyObject *dim = ARG(1, "dim"), *index = ARG(2, "index"), *source = ARG(3, "source");
    if (NEEDS(x))
      SEND(x, c->formula == TL_OP_INDEX_ADD ? g : CALL("index_fill", "OOOi", g, dim, index, 0));
    if (is_tensor(source) && NEEDS(source)) {
      PyObject *gs = CALL("index_select", "OOO", g, dim, index);
      gs = CALL("reshape", "OO", gs, SHAPE(source));
      PyObject *alpha = c->formula == TL_OP_INDEX_ADD ? ARG(4, "alpha") : NULL;
      SEND(source, alpha ? CALL("mul", "OO", gs, alpha) : gs);
    }
    break;
  }
  case TL_OP_INDEX_FILL: {
    PyObject *dim = ARG(1, "dim"), *index = ARG(2, "index"), *value = ARG(3, "value");
    if (NEEDS(x))
      SEND(x, CALL("index_fill", "OOOi", g, dim, index, 0));
    if (is_tensor(value) && NEEDS(value)) {
      PyObject *hit = CALL("index_fill", "OOOi", zeros_shaped(c, g, x), dim, index, 1);
      SEND(value, CALL("sum", "O", CALL("mul", "OO", g, hit)));
    }
    break;
  }
  case TL_OP_INDEX_PUT: {
    PyObject *indices = ARG(1, "indices"), *values = ARG(2, "values"), *acc = ARG(3, "accumulate");
    int accumulate = acc ? PyObject_IsTrue(acc) : 0;
    PyObject *key = indices ? tl_grad_keep(c, PySequence_Tuple(indices)) : NULL;
    if (!key || accumulate < 0)
      break;
    if (NEEDS(x))
      SEND(x, accumulate ? g : CALL("index_put", "OOO", g, key, CALL("new_zeros", "O()", g)));
    if (is_tensor(values) && NEEDS(values)) {
      /* None in indices means a whole dim, as slice(None) does for getitem */
      PyObject *gkey = tl_grad_keep(c, PyTuple_New(PyTuple_GET_SIZE(key)));
      for (Py_ssize_t i = 0; gkey && i < PyTuple_GET_SIZE(key); i++) {
        PyObject *item = PyTuple_GET_ITEM(key, i);
        PyObject *k = item == Py_None ? PySlice_New(NULL, NULL, NULL) : Py_NewRef(item);
        if (!k)
          return;
        PyTuple_SET_ITEM(gkey, i, k);
      }
      send_fitted(c, values, CALL("__getitem__", "OO", g, gkey));
    }
    break;
  }
  case TL_OP_MASKED_FILL: {
    PyObject *mask = ARG(1, "mask"), *value = ARG(2, "value");
    if (NEEDS(x))
      SEND(x, CALL("masked_fill", "OOi", g, mask, 0));
    if (is_tensor(value) && NEEDS(value))
      SEND(value, CALL("sum", "O", CALL("mul", "OO", g, mask)));
    break;
  }
  case TL_OP_MASKED_SCATTER: {
    PyObject *mask = ARG(1, "mask"), *source = ARG(2, "source");
    if (NEEDS(x))
      SEND(x, CALL("masked_fill", "OOi", g, mask, 0));
    if (is_tensor(source) && NEEDS(source)) {
      /* the masked elements of g, in order, came from the first elements of
       * source; the rest of source was not read */
      PyObject *picked = CALL("masked_select", "OO", g, mask);
      if (!picked)
        break;
      int64_t k = tl_py_t(picked)->shape[0], n = tl_tensor_numel(tl_py_t(source));
      if (n > k)
        picked = CALL("cat", "[OO]", picked, CALL("new_zeros", "O(L)", g, (long long)(n - k)));
      SEND(source, CALL("reshape", "OO", picked, SHAPE(source)));
    }
    break;
  }
  case TL_OP_MASKED_SELECT: {
    PyObject *mask = ARG(1, "mask");
    if (!is_tensor(x) || !is_tensor(mask))
      break;
    const tl_tensor *t = tl_py_t(x), *m = tl_py_t(mask);
    int64_t shape[TL_MAX_DIMS];
    int nd;
    if (tl_shape_broadcast(t->ndim, t->shape, m->ndim, m->shape, &nd, shape) != TL_OK) {
      tl_py_raise();
      break;
    }
    PyObject *zeros = CALL("new_zeros", "OO", g, tl_grad_keep(c, tl_py_size_new(nd, shape)));
    SEND(x, CALL("masked_scatter", "OOO", zeros, mask, g));
    break;
  }
  case TL_OP_TAKE:
    SEND(x, CALL("put", "OOO|{s:O}", zeros_shaped(c, g, x), ARG(1, "index"), g, "accumulate",
                 Py_True));
    break;
  case TL_OP_TAKE_ALONG_DIM: {
    PyObject *indices = ARG(1, "indices"), *dim = ARG(2, "dim");
    if (!is_tensor(x) || !is_tensor(indices))
      break;
    if (!dim || dim == Py_None) {
      SEND(x, CALL("put", "OOO|{s:O}", zeros_shaped(c, g, x), indices, g, "accumulate", Py_True));
      break;
    }
    /* x and indices broadcast against each other outside dim */
    const tl_tensor *t = tl_py_t(x), *i = tl_py_t(indices);
    int d = (int)PyLong_AsLong(dim), nd;
    if (PyErr_Occurred())
      break;
    if (t->ndim != i->ndim) {
      PyErr_SetString(PyExc_RuntimeError, "take_along_dim backward: bad ranks");
      break;
    }
    if (tl_dim_wrap(d, t->ndim, &d) != TL_OK) { /* the core's message, and its error cleared */
      tl_py_raise();
      break;
    }
    int64_t a[TL_MAX_DIMS], b[TL_MAX_DIMS], shape[TL_MAX_DIMS];
    for (int k = 0; k < t->ndim; k++) {
      a[k] = k == d ? 1 : t->shape[k];
      b[k] = k == d ? 1 : i->shape[k];
    }
    if (tl_shape_broadcast(t->ndim, a, t->ndim, b, &nd, shape) != TL_OK) {
      tl_py_raise();
      break;
    }
    shape[d] = i->shape[d];
    PyObject *wide = CALL("expand", "OO", indices, tl_grad_keep(c, tl_py_size_new(nd, shape)));
    shape[d] = t->shape[d];
    PyObject *zeros = CALL("new_zeros", "OO", g, tl_grad_keep(c, tl_py_size_new(nd, shape)));
    SEND(x, CALL("scatter_add", "OiOO", zeros, d, wide, g));
    break;
  }
  case TL_OP_PUT: {
    PyObject *index = ARG(1, "index"), *source = ARG(2, "source"), *acc = ARG(3, "accumulate");
    int accumulate = acc ? PyObject_IsTrue(acc) : 0;
    if (accumulate < 0)
      break;
    if (NEEDS(x))
      SEND(x, accumulate ? g : CALL("put", "OOO", g, index, zeros_shaped(c, g, source)));
    if (is_tensor(source) && NEEDS(source))
      SEND(source, CALL("reshape", "OO", CALL("take", "OO", g, index), SHAPE(source)));
    break;
  }
  }
}

void tl_grad_formulas_index_init(void)
{
  static const int ids[] = {
      TL_GRAD_GETITEM,  TL_GRAD_SETITEM,    TL_OP_GATHER,      TL_OP_SCATTER,
      TL_OP_SCATTER_ADD, TL_OP_SCATTER_REDUCE, TL_OP_INDEX_SELECT, TL_OP_INDEX_ADD,
      TL_OP_INDEX_COPY, TL_OP_INDEX_FILL,   TL_OP_INDEX_PUT,   TL_OP_MASKED_FILL,
      TL_OP_MASKED_SCATTER, TL_OP_MASKED_SELECT, TL_OP_TAKE, TL_OP_TAKE_ALONG_DIM,
      TL_OP_PUT,
  };
  /* index tensors and keys are read back, so the inputs stay; only
   * scatter_reduce (and scatter(reduce='multiply')) read the result */
  TL_GRAD_REGISTER(ids, backward, TL_GRAD_DROP_OUTPUTS);
  tl_grad_drops(TL_OP_SCATTER, 0);
  tl_grad_drops(TL_OP_SCATTER_REDUCE, 0);
}
