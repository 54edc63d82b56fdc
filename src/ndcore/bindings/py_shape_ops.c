/* py_shape_ops.c - Python bindings of the shape family: cat/stack and friends,
 * split/chunk/unbind, flip/roll/rot90, repeat/tile/repeat_interleave,
 * tril/triu/diagonal/diag/diag_embed, narrow/unfold/as_strided, movedim,
 * unflatten, broadcast_*, meshgrid, atleast_*d and nn.functional.pad.
 *
 * Registration (one declaration per op, no edits to ops.def): these ops do
 * not fit the elementwise/reduction kinds of ops.def, so they live in two
 * tables here.  `shape_methods` take the tensor first; each becomes a Tensor
 * method, and the very same method descriptor is also put in the module, so
 * torchlike.flip(t, dims) and t.flip(dims) run one function with one
 * argument parser.  `method_only` are Tensor methods PyTorch has no function
 * for (repeat, unfold); `shape_functions` are module functions taking lists
 * (cat, stack, meshgrid ...).  The existing view methods of py_views.c that
 * PyTorch also offers as functions (permute, transpose ...) are exported to
 * the module the same way.  py_module.c calls tl_py_shape_ops_init().     */
#include "ndcore/bindings/generated/bindings.h"
#include "ndcore/kernels/tl_shape_ops.h"
#include "ndcore/tensor/tl_views.h"

int tl_py_parse_shape(const char *func, PyObject *const *args, Py_ssize_t nargs, int64_t *shape,
                      int *ndim);

/* ---- argument helpers ------------------------------------------------------ */


/* Is keyword i of kwnames `name`? */
static bool is_keyword(PyObject *kwnames, Py_ssize_t i, const char *name)
{
  const char *key = PyUnicode_AsUTF8(PyTuple_GET_ITEM(kwnames, i));
  if (!key)
    PyErr_Clear();
  return key && !strcmp(key, name);
}

static int need(const char *func, const char *name, PyObject *o)
{
  if (o)
    return 0;
  PyErr_Format(PyExc_TypeError, "%s() missing required argument '%s'", func, name);
  return -1;
}


/* An int or a sequence of ints, into a malloc'ed array. */
static int int_array(const char *func, const char *name, PyObject *o, int64_t **v, Py_ssize_t *n)
{
  *v = NULL;
  if (PyIndex_Check(o) && !(tl_py_is_tensor(o) && tl_py_t(o)->ndim > 0)) {
    *v = malloc(sizeof **v);
    *n = 1;
    if (!*v) {
      PyErr_NoMemory();
      return -1;
    }
    return tl_py_int_arg(func, name, o, *v);
  }
  PyObject *seq = PySequence_Fast(o, "");
  if (!seq) {
    PyErr_Format(PyExc_TypeError, "%s(): argument '%s' must be an int or a sequence of ints, "
                                  "not %s", func, name, Py_TYPE(o)->tp_name);
    return -1;
  }
  *n = PySequence_Fast_GET_SIZE(seq);
  *v = malloc((size_t)(*n > 0 ? *n : 1) * sizeof **v);
  int r = *v ? 0 : (PyErr_NoMemory(), -1);
  for (Py_ssize_t i = 0; r == 0 && i < *n; i++)
    r = tl_py_int_arg(func, name, PySequence_Fast_GET_ITEM(seq, i), &(*v)[i]);
  Py_DECREF(seq);
  if (r < 0) {
    free(*v);
    *v = NULL;
  }
  return r;
}

/* Same, into a fixed array of at most TL_MAX_DIMS. */
static int int_list(const char *func, const char *name, PyObject *o, int64_t *v, int *n)
{
  int64_t *tmp;
  Py_ssize_t len;
  if (int_array(func, name, o, &tmp, &len) < 0)
    return -1;
  if (len > TL_MAX_DIMS) {
    free(tmp);
    PyErr_Format(PyExc_ValueError, "%s(): '%s' has %zd entries; tensors have at most %d dims",
                 func, name, len, TL_MAX_DIMS);
    return -1;
  }
  memcpy(v, tmp, (size_t)len * sizeof *v);
  *n = (int)len;
  free(tmp);
  return 0;
}

/* A sequence of Tensors: *seq keeps them alive, *ptrs (malloc'ed) points into them.
 * *seq is a tuple of its own, not the caller's list: the kernel runs without
 * the GIL, and another thread may empty that list meanwhile. */
static int tensor_list(const char *func, PyObject *o, PyObject **seq, const tl_tensor ***ptrs,
                       int *n)
{
  *ptrs = NULL;
  if (tl_py_is_tensor(o) || !(*seq = PySequence_Tuple(o))) {
    PyErr_Clear();
    PyErr_Format(PyExc_TypeError, "%s(): argument 'tensors' must be a tuple or list of Tensors, "
                                  "not %s", func, Py_TYPE(o)->tp_name);
    return -1;
  }
  Py_ssize_t len = PySequence_Fast_GET_SIZE(*seq);
  *ptrs = malloc((size_t)(len > 0 ? len : 1) * sizeof **ptrs);
  if (!*ptrs || len > INT32_MAX)
    goto fail;
  for (Py_ssize_t i = 0; i < len; i++) {
    PyObject *item = PySequence_Fast_GET_ITEM(*seq, i);
    if (!tl_py_is_tensor(item)) {
      PyErr_Format(PyExc_TypeError, "expected Tensor as element %zd in argument 0, but got %s",
                   i, Py_TYPE(item)->tp_name);
      goto fail;
    }
    (*ptrs)[i] = tl_py_t(item);
  }
  *n = (int)len;
  return 0;
fail:
  if (!PyErr_Occurred())
    PyErr_NoMemory();
  free(*ptrs);
  *ptrs = NULL;
  Py_CLEAR(*seq);
  return -1;
}

/* Tensors given as f(a, b, c) or f([a, b, c]). */
static int tensor_varargs(const char *func, PyObject *const *args, Py_ssize_t nargs,
                          PyObject **seq, const tl_tensor ***ptrs, int *n)
{
  if (nargs == 1 && !tl_py_is_tensor(args[0]))
    return tensor_list(func, args[0], seq, ptrs, n);
  PyObject *tuple = PyTuple_New(nargs);
  if (!tuple)
    return -1;
  for (Py_ssize_t i = 0; i < nargs; i++)
    PyTuple_SET_ITEM(tuple, i, Py_NewRef(args[i]));
  int r = tensor_list(func, tuple, seq, ptrs, n);
  Py_DECREF(tuple);
  return r;
}

static PyObject *wrap(tl_status status, tl_tensor *out)
{
  return status == TL_OK ? tl_py_tensor_from(out) : tl_py_raise();
}

/* Result into out= when given (same shape; cast to out's dtype). */
static PyObject *finish_out(tl_status status, tl_tensor *t, PyObject *out)
{
  char a[256], b[256];
  if (status != TL_OK)
    return tl_py_raise();
  if (!out || out == Py_None)
    return tl_py_tensor_from(t);
  PyObject *r = NULL;
  if (!tl_py_is_tensor(out))
    PyErr_Format(PyExc_TypeError, "argument 'out' must be Tensor, not %s", Py_TYPE(out)->tp_name);
  else if (tl_py_t(out)->ndim != t->ndim ||
           memcmp(tl_py_t(out)->shape, t->shape, (size_t)t->ndim * sizeof *t->shape))
    PyErr_Format(PyExc_RuntimeError, "out= has shape %s but the result has shape %s",
                 tl_shape_str(a, sizeof a, tl_py_t(out)->ndim, tl_py_t(out)->shape),
                 tl_shape_str(b, sizeof b, t->ndim, t->shape));
  else if (tl_tensor_copy(tl_py_t(out), t) != TL_OK)
    tl_py_raise();
  else
    r = Py_NewRef(out);
  tl_tensor_release(t);
  return r;
}

/* A tuple of views of t, one per span along dim d. */
static PyObject *spans_tuple(const tl_tensor *t, int d, const tl_span *spans, int64_t n)
{
  PyObject *tuple = PyTuple_New((Py_ssize_t)n);
  for (int64_t i = 0; tuple && i < n; i++) {
    tl_tensor piece;
    tl_tensor_view_of(&piece, t);
    tl_view_slice(&piece, d, spans[i].start, spans[i].length, 1);
    PyObject *o = tl_py_tensor_from(&piece);
    if (!o)
      Py_CLEAR(tuple);
    else
      PyTuple_SET_ITEM(tuple, (Py_ssize_t)i, o);
  }
  return tuple;
}

static PyObject *views_tuple(tl_tensor *views, int n)
{
  PyObject *tuple = PyTuple_New(n);
  int i = 0;
  for (; tuple && i < n; i++) {
    PyObject *o = tl_py_tensor_from(&views[i]); /* consumes views[i] even on failure */
    if (!o)
      Py_CLEAR(tuple);
    else
      PyTuple_SET_ITEM(tuple, i, o);
  }
  for (; i < n; i++)
    tl_tensor_release(&views[i]);
  return tuple;
}

#define FASTCALL_KW(fn) (PyCFunction)(void (*)(void))(fn), METH_FASTCALL | METH_KEYWORDS

/* ---- joining ------------------------------------------------------------------- */

static PyObject *join(const char *func, PyObject *const *args, Py_ssize_t nargs,
                      PyObject *kwnames, int kind /* -1 cat, -2 stack, else tl_stack_kind */)
{
  static const char *const names[] = {"tensors", "dim", "out", "axis", NULL};
  PyObject *v[4], *seq = NULL;
  const tl_tensor **ptrs = NULL;
  int64_t dim = 0;
  int n;
  tl_tensor out;
  if (tl_py_bind_args(func, args, nargs, kwnames, names, -1, 0, v) < 0 || need(func, "tensors", v[0]) < 0)
    return NULL;
  if (kind >= 0 && v[1])
    return PyErr_Format(PyExc_TypeError, "%s() got an unexpected argument 'dim'", func);
  if (tl_py_int_arg(func, "dim", v[1], &dim) < 0 || tl_py_int_arg(func, "axis", v[3], &dim) < 0 ||
      tensor_list(func, v[0], &seq, &ptrs, &n) < 0)
    return NULL;
  tl_status status = kind == -1   ? tl_shape_cat(&out, n, ptrs, dim)
                     : kind == -2 ? tl_shape_stack(&out, n, ptrs, dim)
                                  : tl_shape_stack_kind(&out, n, ptrs, (tl_stack_kind)kind);
  PyObject *r = finish_out(status, &out, v[2]);
  free(ptrs);
  Py_DECREF(seq);
  return r;
}

#define JOIN_FN(NAME, KIND)                                                             \
  static PyObject *fn_##NAME(PyObject *m, PyObject *const *args, Py_ssize_t nargs,      \
                             PyObject *kwnames)                                         \
  {                                                                                     \
    (void)m;                                                                            \
    return join(#NAME, args, nargs, kwnames, KIND);                                     \
  }
JOIN_FN(cat, -1)
JOIN_FN(stack, -2)
JOIN_FN(hstack, TL_STACK_H)
JOIN_FN(vstack, TL_STACK_V)
JOIN_FN(dstack, TL_STACK_D)
JOIN_FN(column_stack, TL_STACK_COLUMN)

/* ---- splitting --------------------------------------------------------------- */

static int wrap_dim_of(const tl_tensor *t, int64_t dim, int *d)
{
  if (t->ndim == 0) {
    PyErr_Format(PyExc_IndexError, "Dimension specified as %lld but tensor has no dimensions",
                 (long long)dim);
    return -1;
  }
  return tl_dim_wrap(dim, t->ndim, d) == TL_OK ? 0 : tl_py_raise_int();
}

static int dim_of(const tl_tensor *t, PyObject *o, const char *func, int *d)
{
  int64_t dim = 0;
  if (tl_py_int_arg(func, "dim", o, &dim) < 0)
    return -1;
  return wrap_dim_of(t, dim, d);
}

static PyObject *tensor_split_(PyObject *self, PyObject *const *args, Py_ssize_t nargs,
                               PyObject *kwnames)
{
  /* Tensor.split names its first argument split_size; torch.split the longer name. */
  static const char *const names[] = {"split_size_or_sections", "dim", "split_size", NULL};
  PyObject *v[3];
  tl_tensor *t = tl_py_t(self);
  int d;
  tl_span *spans = NULL;
  int64_t n = 0;
  tl_status status;
  if (nargs > 2)
    return PyErr_Format(PyExc_TypeError, "split() takes at most 2 arguments (%zd given)", nargs);
  if (tl_py_bind_args("split", args, nargs, kwnames, names, -1, 0, v) < 0)
    return NULL;
  if (v[0] && v[2])
    return PyErr_Format(PyExc_TypeError, "split() got multiple values for argument 'split_size'");
  v[0] = v[0] ? v[0] : v[2];
  if (need("split", "split_size_or_sections", v[0]) < 0 || dim_of(t, v[1], "split", &d) < 0)
    return NULL;
  if (PyIndex_Check(v[0])) {
    int64_t size = 0;
    if (tl_py_int_arg("split", "split_size", v[0], &size) < 0)
      return NULL;
    status = tl_split_by_size(t->shape[d], size, &spans, &n);
  } else {
    int64_t *sizes;
    Py_ssize_t len;
    if (int_array("split", "split_size_or_sections", v[0], &sizes, &len) < 0)
      return NULL;
    n = len;
    status = tl_split_by_sizes(t->shape[d], len, sizes, &spans);
    free(sizes);
  }
  PyObject *r = status == TL_OK ? spans_tuple(t, d, spans, n) : tl_py_raise();
  free(spans);
  return r;
}

/* chunk and unbind: bound by generated code (signatures.txt) */
PyObject *tl_py_impl_chunk(const char *name, const tl_py_args_chunk *a)
{
  (void)name;
  tl_tensor *t = tl_py_t(a->input);
  int d;
  int64_t n;
  tl_span *spans = NULL;
  if (t->ndim == 0)
    return PyErr_Format(PyExc_RuntimeError, "chunk expects at least a 1-dimensional tensor");
  if (wrap_dim_of(t, a->dim, &d) < 0)
    return NULL;
  if (tl_split_chunks(t->shape[d], a->chunks, &spans, &n) != TL_OK)
    return tl_py_raise();
  PyObject *r = spans_tuple(t, d, spans, n);
  free(spans);
  return r;
}

PyObject *tl_py_impl_unbind(const char *name, const tl_py_args_unbind *a)
{
  (void)name;
  tl_tensor *t = tl_py_t(a->input);
  int d;
  if (wrap_dim_of(t, a->dim, &d) < 0)
    return NULL;
  PyObject *tuple = PyTuple_New((Py_ssize_t)t->shape[d]);
  for (int64_t i = 0; tuple && i < t->shape[d]; i++) {
    tl_tensor piece;
    tl_tensor_view_of(&piece, t);
    tl_view_select(&piece, d, i); /* i is in range */
    PyObject *o = tl_py_tensor_from(&piece);
    if (!o)
      Py_CLEAR(tuple);
    else
      PyTuple_SET_ITEM(tuple, (Py_ssize_t)i, o);
  }
  return tuple;
}

/* tensor_split and its h/v/dsplit forms; fixed_dim < 0: take dim= from the args. */
static PyObject *tensor_split_common(const char *func, PyObject *self, PyObject *what, int d,
                                     bool divisible)
{
  tl_tensor *t = tl_py_t(self);
  tl_span *spans = NULL;
  int64_t n = 0;
  tl_status status;
  bool sections = PyIndex_Check(what) && !(tl_py_is_tensor(what) && tl_py_t(what)->ndim > 0);
  if (tl_py_is_tensor(what) && (tl_py_t(what)->ndim > 1 ||
                                !tl_dtype_is_integral(tl_py_t(what)->dtype) ||
                                tl_py_t(what)->dtype == TL_DTYPE_BOOL))
    return PyErr_Format(PyExc_RuntimeError, "%s expected tensor_indices_or_sections to be a "
                                            "zero-dimensional or one-dimensional tensor of "
                                            "integer dtype, but got a %d-dim %s tensor", func,
                        tl_py_t(what)->ndim, tl_dtype_names[tl_py_t(what)->dtype]);
  if (sections) {
    int64_t k = 0;
    if (tl_py_int_arg(func, "sections", what, &k) < 0)
      return NULL;
    if (divisible && k > 0 && t->shape[d] % k)
      return PyErr_Format(PyExc_RuntimeError, "torch.%s attempted to split along dimension %d, "
                                              "but the size of the dimension %lld is not "
                                              "divisible by the split_size %lld!",
                          func, d, (long long)t->shape[d], (long long)k);
    if (divisible && k <= 0)
      return PyErr_Format(PyExc_RuntimeError, "torch.%s: number of sections must be larger than "
                                              "0, got %lld", func, (long long)k);
    status = tl_split_sections(t->shape[d], k, &spans, &n);
  } else {
    int64_t *idx;
    Py_ssize_t len;
    if (int_array(func, "indices", what, &idx, &len) < 0)
      return NULL;
    n = len + 1;
    status = tl_split_indices(t->shape[d], len, idx, &spans);
    free(idx);
  }
  PyObject *r = status == TL_OK ? spans_tuple(t, d, spans, n) : tl_py_raise();
  free(spans);
  return r;
}

static PyObject *tensor_tensor_split(PyObject *self, PyObject *const *args, Py_ssize_t nargs,
                                     PyObject *kwnames)
{
  static const char *const names[] = {"indices_or_sections", "dim", "sections", "indices", NULL};
  PyObject *v[4];
  int d;
  if (tl_py_bind_args("tensor_split", args, nargs, kwnames, names, -1, 0, v) < 0)
    return NULL;
  PyObject *what = v[0] ? v[0] : v[2] ? v[2] : v[3];
  if (need("tensor_split", "indices_or_sections", what) < 0)
    return NULL;
  if (tl_py_t(self)->ndim == 0)
    return PyErr_Format(PyExc_RuntimeError, "tensor_split expected at least a 1-dimensional "
                                            "tensor, but got a tensor with 0 dims");
  if (dim_of(tl_py_t(self), v[1], "tensor_split", &d) < 0)
    return NULL;
  return tensor_split_common("tensor_split", self, what, d, false);
}

static PyObject *hvd_split(const char *func, PyObject *self, PyObject *const *args,
                           Py_ssize_t nargs, PyObject *kwnames, int min_ndim, int d)
{
  static const char *const names[] = {"indices_or_sections", NULL};
  PyObject *v[1];
  int ndim = tl_py_t(self)->ndim;
  if (tl_py_bind_args(func, args, nargs, kwnames, names, -1, 0, v) < 0 ||
      need(func, "indices_or_sections", v[0]) < 0)
    return NULL;
  if (ndim < min_ndim)
    return PyErr_Format(PyExc_RuntimeError, "torch.%s requires a tensor with at least %d "
                                            "dimension%s, but got a tensor with %d dimensions!",
                        func, min_ndim, min_ndim > 1 ? "s" : "", ndim);
  return tensor_split_common(func, self, v[0], d, true);
}

static PyObject *tensor_hsplit(PyObject *self, PyObject *const *args, Py_ssize_t nargs,
                               PyObject *kwnames)
{
  return hvd_split("hsplit", self, args, nargs, kwnames, 1, tl_py_t(self)->ndim == 1 ? 0 : 1);
}

static PyObject *tensor_vsplit(PyObject *self, PyObject *const *args, Py_ssize_t nargs,
                               PyObject *kwnames)
{
  return hvd_split("vsplit", self, args, nargs, kwnames, 2, 0);
}

static PyObject *tensor_dsplit(PyObject *self, PyObject *const *args, Py_ssize_t nargs,
                               PyObject *kwnames)
{
  return hvd_split("dsplit", self, args, nargs, kwnames, 3, 2);
}

/* ---- reordering ------------------------------------------------------------- */

/* dims as f(0, 1), f((0, 1)) or dims=(0, 1) -> a checked bitmask. */
static int dims_mask(const char *func, PyObject *const *args, Py_ssize_t nargs,
                     PyObject *kwnames, int ndim, uint64_t *mask)
{
  int64_t dims[TL_MAX_DIMS];
  int n;
  Py_ssize_t nkw = kwnames ? PyTuple_GET_SIZE(kwnames) : 0;
  if (nkw > 1 || (nkw == 1 && (nargs || !is_keyword(kwnames, 0, "dims")))) {
    PyErr_Format(PyExc_TypeError, "%s() takes dims as ints, a sequence, or dims=", func);
    return -1;
  }
  if (nkw == 1) {
    args += nargs;
    nargs = 1;
  }
  if (tl_py_parse_shape(func, args, nargs, dims, &n) < 0)
    return -1;
  *mask = 0;
  for (int i = 0; i < n; i++) {
    int w;
    if (tl_dim_wrap(dims[i], ndim, &w) != TL_OK)
      return tl_py_raise_int();
    if (*mask >> w & 1) {
      PyErr_Format(PyExc_RuntimeError, "dim %d appears multiple times in the list of dims", w);
      return -1;
    }
    *mask |= (uint64_t)1 << w;
  }
  if (ndim == 0)
    *mask = 0;
  return 0;
}

static PyObject *tensor_flip(PyObject *self, PyObject *const *args, Py_ssize_t nargs,
                             PyObject *kwnames)
{
  uint64_t mask;
  tl_tensor out;
  if (dims_mask("flip", args, nargs, kwnames, tl_py_t(self)->ndim, &mask) < 0)
    return NULL;
  return wrap(tl_shape_flip(&out, tl_py_t(self), mask), &out);
}

static PyObject *tensor_fliplr(PyObject *self, PyObject *unused)
{
  (void)unused;
  tl_tensor out;
  if (tl_py_t(self)->ndim < 2)
    return PyErr_Format(PyExc_RuntimeError, "Input must be >= 2-d.");
  return wrap(tl_shape_flip(&out, tl_py_t(self), 2), &out);
}

static PyObject *tensor_flipud(PyObject *self, PyObject *unused)
{
  (void)unused;
  tl_tensor out;
  if (tl_py_t(self)->ndim < 1)
    return PyErr_Format(PyExc_RuntimeError, "Input must be >= 1-d.");
  return wrap(tl_shape_flip(&out, tl_py_t(self), 1), &out);
}

static PyObject *tensor_roll(PyObject *self, PyObject *const *args, Py_ssize_t nargs,
                             PyObject *kwnames)
{
  static const char *const names[] = {"shifts", "dims", NULL};
  PyObject *v[2];
  int64_t shifts[TL_MAX_DIMS], dims[TL_MAX_DIMS];
  int ns, nd = 0;
  tl_tensor out;
  if (tl_py_bind_args("roll", args, nargs, kwnames, names, -1, 0, v) < 0 || need("roll", "shifts", v[0]) < 0 ||
      int_list("roll", "shifts", v[0], shifts, &ns) < 0)
    return NULL;
  bool has_dims = v[1] && v[1] != Py_None;
  if (has_dims && int_list("roll", "dims", v[1], dims, &nd) < 0)
    return NULL;
  if (has_dims && nd != ns)
    return PyErr_Format(PyExc_RuntimeError, "shifts and dimensions must align. shifts: %d, "
                                            "dims:%d", ns, nd);
  return wrap(tl_shape_roll(&out, tl_py_t(self), ns, shifts, has_dims ? dims : NULL), &out);
}

static PyObject *tensor_rot90(PyObject *self, PyObject *const *args, Py_ssize_t nargs,
                              PyObject *kwnames)
{
  static const char *const names[] = {"k", "dims", NULL};
  PyObject *v[2];
  int64_t k = 1, dims[TL_MAX_DIMS] = {0, 1};
  int nd = 2;
  tl_tensor out;
  if (tl_py_bind_args("rot90", args, nargs, kwnames, names, -1, 0, v) < 0 ||
      tl_py_int_arg("rot90", "k", v[0], &k) < 0 ||
      (v[1] && int_list("rot90", "dims", v[1], dims, &nd) < 0))
    return NULL;
  return wrap(tl_shape_rot90(&out, tl_py_t(self), k, nd, dims), &out);
}

/* ---- repeating ---------------------------------------------------------------- */

static PyObject *tensor_repeat(PyObject *self, PyObject *const *args, Py_ssize_t nargs)
{
  int64_t reps[TL_MAX_DIMS];
  int n;
  tl_tensor out;
  if (tl_py_parse_shape("repeat", args, nargs, reps, &n) < 0)
    return NULL;
  return wrap(tl_shape_repeat(&out, tl_py_t(self), n, reps), &out);
}

static PyObject *tensor_tile(PyObject *self, PyObject *const *args, Py_ssize_t nargs,
                             PyObject *kwnames)
{
  int64_t reps[TL_MAX_DIMS];
  int n;
  tl_tensor out;
  if (kwnames && PyTuple_GET_SIZE(kwnames)) {
    if (nargs || PyTuple_GET_SIZE(kwnames) != 1 || !is_keyword(kwnames, 0, "dims"))
      return PyErr_Format(PyExc_TypeError, "tile() takes dims as ints, a sequence, or dims=");
    args += nargs;
    nargs = 1;
  }
  if (tl_py_parse_shape("tile", args, nargs, reps, &n) < 0)
    return NULL;
  return wrap(tl_shape_tile(&out, tl_py_t(self), n, reps), &out);
}

static PyObject *tensor_repeat_interleave(PyObject *self, PyObject *const *args, Py_ssize_t nargs,
                                          PyObject *kwnames)
{
  static const char *const names[] = {"repeats", "dim", "output_size", NULL};
  PyObject *v[3];
  int64_t repeats = 0, dim = 0, output_size = -1;
  tl_tensor out, *in = tl_py_t(self), arange = {0};
  const tl_tensor *rt = NULL;
  if (tl_py_bind_args("repeat_interleave", args, nargs, kwnames, names, -1, 0, v) < 0 ||
      tl_py_int_arg("repeat_interleave", "dim", v[1], &dim) < 0 ||
      tl_py_int_arg("repeat_interleave", "output_size", v[2], &output_size) < 0)
    return NULL;
  if (!v[0]) {
    /* torch.repeat_interleave(repeats): index i repeated repeats[i] times. */
    int64_t n = tl_tensor_numel(in);
    if (in->ndim > 1)
      return PyErr_Format(PyExc_RuntimeError, "repeat_interleave only accept 1D vector as repeat");
    if (tl_tensor_empty(&arange, TL_DTYPE_I64, 1, &n, tl_tensor_device(in)) != TL_OK)
      return tl_py_raise();
    for (int64_t i = 0; i < n; i++)
      ((int64_t *)arange.storage->data)[i] = i;
    rt = in;
    in = &arange;
  } else if (tl_py_is_tensor(v[0])) {
    rt = tl_py_t(v[0]);
  } else if (tl_py_int_arg("repeat_interleave", "repeats", v[0], &repeats) < 0) {
    return NULL;
  }
  bool has_dim = v[1] && v[1] != Py_None;
  tl_status status = tl_shape_repeat_interleave(&out, in, rt, repeats, has_dim ? &dim : NULL);
  if (arange.storage)
    tl_tensor_release(&arange);
  if (status == TL_OK && output_size >= 0 && out.shape[has_dim ? (dim < 0 ? dim + out.ndim : dim) : 0] != output_size) {
    tl_tensor_release(&out);
    return PyErr_Format(PyExc_RuntimeError, "repeat_interleave: output_size %lld does not match "
                                            "the sum of repeats", (long long)output_size);
  }
  return wrap(status, &out);
}

/* ---- triangles and diagonals ------------------------------------------------ */

/* tril/triu (name says which), diag, diag_embed, diagflat, diagonal, narrow,
 * select: bound by generated code (signatures.txt). */
PyObject *tl_py_impl_tril(const char *name, const tl_py_args_tril *a)
{
  tl_tensor out;
  return wrap(tl_shape_tril(&out, tl_py_t(a->input), a->diagonal, !strcmp(name, "triu")), &out);
}

PyObject *tl_py_impl_diagonal(const char *name, const tl_py_args_diagonal *a)
{
  (void)name;
  tl_tensor out;
  return wrap(tl_view_diagonal(&out, tl_py_t(a->input), a->offset, a->dim1, a->dim2), &out);
}

PyObject *tl_py_impl_diag(const char *name, const tl_py_args_diag *a)
{
  (void)name;
  tl_tensor out;
  return wrap(tl_shape_diag(&out, tl_py_t(a->input), a->diagonal), &out);
}

PyObject *tl_py_impl_diag_embed(const char *name, const tl_py_args_diag_embed *a)
{
  (void)name;
  tl_tensor out;
  return wrap(tl_shape_diag_embed(&out, tl_py_t(a->input), a->offset, a->dim1, a->dim2), &out);
}

PyObject *tl_py_impl_diagflat(const char *name, const tl_py_args_diagflat *a)
{
  (void)name;
  int64_t numel = tl_tensor_numel(tl_py_t(a->input));
  tl_tensor flat, out;
  if (tl_view_reshape(&flat, tl_py_t(a->input), 1, &numel, true) != TL_OK)
    return tl_py_raise();
  tl_status status = tl_shape_diag(&out, &flat, a->offset);
  tl_tensor_release(&flat);
  return wrap(status, &out);
}

/* ---- views ---------------------------------------------------------------------- */

/* narrow (a view) and narrow_copy (name says which) */
PyObject *tl_py_impl_narrow(const char *name, const tl_py_args_narrow *a)
{
  tl_tensor view, out;
  if (tl_view_narrow(&view, tl_py_t(a->input), a->dim, a->start, a->length) != TL_OK)
    return tl_py_raise();
  if (strcmp(name, "narrow_copy"))
    return tl_py_tensor_from(&view);
  tl_status status = tl_shape_clone(&out, &view);
  tl_tensor_release(&view);
  return wrap(status, &out);
}

PyObject *tl_py_impl_select(const char *name, const tl_py_args_select *a)
{
  (void)name;
  tl_tensor *t = tl_py_t(a->input), out;
  int d;
  if (t->ndim == 0)
    return PyErr_Format(PyExc_IndexError, "select() cannot be applied to a 0-dim tensor.");
  if (tl_dim_wrap(a->dim, t->ndim, &d) != TL_OK)
    return tl_py_raise();
  tl_tensor_view_of(&out, t);
  if (tl_view_select(&out, d, a->index) != TL_OK) {
    tl_tensor_release(&out);
    return tl_py_raise();
  }
  return tl_py_tensor_from(&out);
}

/* Python-slice bound for a positive step: None is `dflt`, negatives wrap, then clamp. */
static int slice_arg(const char *func, const char *name, PyObject *o, int64_t size,
                     int64_t dflt, int64_t *v)
{
  *v = dflt;
  if (tl_py_int_arg(func, name, o, v) < 0)
    return -1;
  if (*v < 0)
    *v += size;
  *v = *v < 0 ? 0 : *v > size ? size : *v;
  return 0;
}

static PyObject *view_scatter(const char *func, PyObject *self, PyObject *src, tl_scatter_kind kind,
                              const int64_t *a)
{
  tl_tensor out;
  if (!src || !tl_py_is_tensor(src))
    return PyErr_Format(PyExc_TypeError, "%s(): argument 'src' must be Tensor, not %s", func,
                        src ? Py_TYPE(src)->tp_name : "nothing");
  return wrap(tl_shape_view_scatter(&out, tl_py_t(self), tl_py_t(src), kind, a), &out);
}

/* select_scatter, diagonal_scatter: bound by generated code */
PyObject *tl_py_impl_select_scatter(const char *name, const tl_py_args_select_scatter *a)
{
  const int64_t at[2] = {a->dim, a->index};
  return view_scatter(name, a->input, a->src, TL_SCATTER_SELECT, at);
}

static PyObject *tensor_slice_scatter(PyObject *self, PyObject *const *args, Py_ssize_t nargs,
                                      PyObject *kwnames)
{
  static const char *const names[] = {"src", "dim", "start", "end", "step", NULL};
  PyObject *v[5];
  tl_tensor *t = tl_py_t(self);
  int64_t a[4] = {0, 0, 0, 1};
  int d = 0;
  if (tl_py_bind_args("slice_scatter", args, nargs, kwnames, names, -1, 0, v) < 0 ||
      tl_py_int_arg("slice_scatter", "dim", v[1], &a[0]) < 0 ||
      tl_py_int_arg("slice_scatter", "step", v[4], &a[3]) < 0)
    return NULL;
  if (t->ndim > 0 && tl_dim_wrap(a[0], t->ndim, &d) != TL_OK)
    return tl_py_raise();
  int64_t size = t->ndim ? t->shape[d] : 0;
  if (slice_arg("slice_scatter", "start", v[2], size, 0, &a[1]) < 0 ||
      slice_arg("slice_scatter", "end", v[3], size, size, &a[2]) < 0)
    return NULL;
  return view_scatter("slice_scatter", self, v[0], TL_SCATTER_SLICE, a);
}

PyObject *tl_py_impl_diagonal_scatter(const char *name, const tl_py_args_diagonal_scatter *a)
{
  const int64_t at[3] = {a->offset, a->dim1, a->dim2};
  return view_scatter(name, a->input, a->src, TL_SCATTER_DIAGONAL, at);
}

static PyObject *tensor_unfold(PyObject *self, PyObject *const *args, Py_ssize_t nargs,
                               PyObject *kwnames)
{
  static const char *const names[] = {"dimension", "size", "step", NULL};
  PyObject *v[3];
  int64_t dim = 0, size = 0, step = 0;
  tl_tensor out;
  if (tl_py_bind_args("unfold", args, nargs, kwnames, names, -1, 0, v) < 0 ||
      need("unfold", "dimension", v[0]) < 0 || need("unfold", "size", v[1]) < 0 ||
      need("unfold", "step", v[2]) < 0 || tl_py_int_arg("unfold", "dimension", v[0], &dim) < 0 ||
      tl_py_int_arg("unfold", "size", v[1], &size) < 0 || tl_py_int_arg("unfold", "step", v[2], &step) < 0)
    return NULL;
  return wrap(tl_view_unfold(&out, tl_py_t(self), dim, size, step), &out);
}

static PyObject *tensor_as_strided(PyObject *self, PyObject *const *args, Py_ssize_t nargs,
                                   PyObject *kwnames)
{
  static const char *const names[] = {"size", "stride", "storage_offset", NULL};
  PyObject *v[3];
  int64_t shape[TL_MAX_DIMS], strides[TL_MAX_DIMS], offset = tl_py_t(self)->offset;
  int nd, ns;
  tl_tensor out;
  if (tl_py_bind_args("as_strided", args, nargs, kwnames, names, -1, 0, v) < 0 ||
      need("as_strided", "size", v[0]) < 0 || need("as_strided", "stride", v[1]) < 0 ||
      int_list("as_strided", "size", v[0], shape, &nd) < 0 ||
      int_list("as_strided", "stride", v[1], strides, &ns) < 0 ||
      tl_py_int_arg("as_strided", "storage_offset", v[2], &offset) < 0)
    return NULL;
  if (nd != ns)
    return PyErr_Format(PyExc_RuntimeError, "mismatch in length of strides and shape");
  return wrap(tl_view_as_strided(&out, tl_py_t(self), nd, shape, strides, offset), &out);
}

static PyObject *tensor_movedim(PyObject *self, PyObject *const *args, Py_ssize_t nargs,
                                PyObject *kwnames)
{
  static const char *const names[] = {"source", "destination", NULL};
  PyObject *v[2];
  int64_t src[TL_MAX_DIMS], dst[TL_MAX_DIMS];
  int ns, nd;
  tl_tensor out;
  if (tl_py_bind_args("movedim", args, nargs, kwnames, names, -1, 0, v) < 0 ||
      need("movedim", "source", v[0]) < 0 || need("movedim", "destination", v[1]) < 0 ||
      int_list("movedim", "source", v[0], src, &ns) < 0 ||
      int_list("movedim", "destination", v[1], dst, &nd) < 0)
    return NULL;
  if (ns != nd)
    return PyErr_Format(PyExc_RuntimeError, "movedim: Invalid source or destination dims: source "
                                            "(%d dims) should contain the same number of dims as "
                                            "destination (%d dims)", ns, nd);
  return wrap(tl_view_movedim(&out, tl_py_t(self), ns, src, dst), &out);
}

static PyObject *tensor_unflatten(PyObject *self, PyObject *const *args, Py_ssize_t nargs,
                                  PyObject *kwnames)
{
  static const char *const names[] = {"dim", "sizes", NULL};
  PyObject *v[2];
  int64_t dim = 0, sizes[TL_MAX_DIMS];
  int n;
  tl_tensor out;
  if (tl_py_bind_args("unflatten", args, nargs, kwnames, names, -1, 0, v) < 0 ||
      need("unflatten", "dim", v[0]) < 0 || need("unflatten", "sizes", v[1]) < 0 ||
      tl_py_int_arg("unflatten", "dim", v[0], &dim) < 0 ||
      int_list("unflatten", "sizes", v[1], sizes, &n) < 0)
    return NULL;
  return wrap(tl_view_unflatten(&out, tl_py_t(self), dim, n, sizes), &out);
}

static PyObject *tensor_broadcast_to(PyObject *self, PyObject *const *args, Py_ssize_t nargs,
                                     PyObject *kwnames)
{
  static const char *const names[] = {"size", NULL};
  PyObject *v[1];
  int64_t shape[TL_MAX_DIMS];
  int n;
  tl_tensor out;
  if (tl_py_bind_args("broadcast_to", args, nargs, kwnames, names, -1, 0, v) < 0 ||
      need("broadcast_to", "size", v[0]) < 0 || int_list("broadcast_to", "size", v[0], shape, &n) < 0)
    return NULL;
  return wrap(tl_view_expand(&out, tl_py_t(self), n, shape), &out);
}

/* ---- module functions on lists of tensors --------------------------------------- */

static PyObject *fn_broadcast_tensors(PyObject *m, PyObject *const *args, Py_ssize_t nargs)
{
  (void)m;
  PyObject *seq = NULL, *r = NULL;
  const tl_tensor **ptrs = NULL;
  int n;
  if (tensor_varargs("broadcast_tensors", args, nargs, &seq, &ptrs, &n) < 0)
    return NULL;
  tl_tensor *views = calloc((size_t)(n > 0 ? n : 1), sizeof *views);
  if (!views)
    PyErr_NoMemory();
  else if (tl_shape_broadcast_tensors(views, n, ptrs) != TL_OK)
    tl_py_raise();
  else
    r = views_tuple(views, n);
  free(views);
  free(ptrs);
  Py_DECREF(seq);
  return r;
}

static PyObject *fn_broadcast_shapes(PyObject *m, PyObject *const *args, Py_ssize_t nargs)
{
  (void)m;
  int64_t shape[TL_MAX_DIMS], one[TL_MAX_DIMS];
  int nd = 0, n;
  for (Py_ssize_t i = 0; i < nargs; i++) {
    if (int_list("broadcast_shapes", "shapes", args[i], one, &n) < 0)
      return NULL;
    for (int k = 0; k < n; k++)
      if (one[k] < 0)
        return PyErr_Format(PyExc_RuntimeError, "Trying to create tensor with negative "
                                                "dimension %lld", (long long)one[k]);
    if (tl_shape_broadcast(nd, shape, n, one, &nd, shape) != TL_OK) {
      /* PyTorch raises RuntimeError here, where tensors raise ValueError. */
      PyErr_SetString(PyExc_RuntimeError, tl_error_message());
      tl_error_clear();
      return NULL;
    }
  }
  return tl_py_size_new(nd, shape);
}

static PyObject *fn_meshgrid(PyObject *m, PyObject *const *args, Py_ssize_t nargs,
                             PyObject *kwnames)
{
  (void)m;
  bool xy = false;
  Py_ssize_t nkw = kwnames ? PyTuple_GET_SIZE(kwnames) : 0;
  for (Py_ssize_t k = 0; k < nkw; k++) {
    const char *key = PyUnicode_AsUTF8(PyTuple_GET_ITEM(kwnames, k));
    PyObject *val = args[nargs + k];
    if (!key || strcmp(key, "indexing"))
      return PyErr_Format(PyExc_TypeError, "meshgrid() got an unexpected keyword argument '%s'",
                          key ? key : "?");
    if (val == Py_None)
      continue;
    const char *s = PyUnicode_Check(val) ? PyUnicode_AsUTF8(val) : NULL;
    if (!s || (strcmp(s, "ij") && strcmp(s, "xy")))
      return PyErr_Format(PyExc_ValueError, "torch.meshgrid: indexing must be one of \"xy\" or "
                                            "\"ij\", but received: %S", val);
    xy = !strcmp(s, "xy");
  }
  PyObject *seq = NULL, *r = NULL;
  const tl_tensor **ptrs = NULL;
  int n;
  if (tensor_varargs("meshgrid", args, nargs, &seq, &ptrs, &n) < 0)
    return NULL;
  tl_tensor *views = calloc((size_t)(n > 0 ? n : 1), sizeof *views);
  if (!views)
    PyErr_NoMemory();
  else if (tl_shape_meshgrid(views, n, ptrs, xy) != TL_OK)
    tl_py_raise();
  else
    r = views_tuple(views, n);
  free(views);
  free(ptrs);
  Py_DECREF(seq);
  return r;
}

/* A function of tensors given as f(a, b) or f([a, b]) returning one tensor. */
static PyObject *tensors_to_one(const char *func, PyObject *const *args, Py_ssize_t nargs,
                                tl_status (*fn)(tl_tensor *, int, const tl_tensor *const *))
{
  PyObject *seq = NULL;
  const tl_tensor **ptrs = NULL;
  int n;
  tl_tensor out;
  if (tensor_varargs(func, args, nargs, &seq, &ptrs, &n) < 0)
    return NULL;
  PyObject *r = wrap(fn(&out, n, ptrs), &out);
  free(ptrs);
  Py_DECREF(seq);
  return r;
}

static PyObject *fn_block_diag(PyObject *m, PyObject *const *args, Py_ssize_t nargs)
{
  (void)m;
  /* block_diag takes its tensors unpacked only: a list is not a tensor. */
  for (Py_ssize_t i = 0; i < nargs; i++)
    if (!tl_py_is_tensor(args[i]))
      return PyErr_Format(PyExc_TypeError, "block_diag(): expected Tensor as element %zd, but "
                                           "got %s", i, Py_TYPE(args[i])->tp_name);
  PyObject *tuple = PyTuple_New(nargs);
  if (!tuple)
    return NULL;
  for (Py_ssize_t i = 0; i < nargs; i++)
    PyTuple_SET_ITEM(tuple, i, Py_NewRef(args[i]));
  PyObject *r = tensors_to_one("block_diag", &tuple, 1, tl_shape_block_diag);
  Py_DECREF(tuple);
  return r;
}

static PyObject *fn_cartesian_prod(PyObject *m, PyObject *const *args, Py_ssize_t nargs)
{
  (void)m;
  return tensors_to_one("cartesian_prod", args, nargs, tl_shape_cartesian_prod);
}

static PyObject *tri_indices(const char *func, PyObject *const *args, Py_ssize_t nargs,
                             PyObject *kwnames, bool upper)
{
  static const char *const names[] = {"row", "col", "offset", "dtype", "device", "layout",
                                      NULL};
  PyObject *v[6];
  int64_t row = 0, col = 0, offset = 0;
  tl_dtype dtype = TL_DTYPE_I64;
  tl_device device;
  tl_tensor idx, out;
  if (nargs > 3)
    return PyErr_Format(PyExc_TypeError, "%s() takes at most 3 positional arguments (%zd given)",
                        func, nargs);
  if (tl_py_bind_args(func, args, nargs, kwnames, names, -1, 0, v) < 0)
    return NULL;
  if (need(func, "row", v[0]) < 0 || need(func, "col", v[1]) < 0 ||
      tl_py_int_arg(func, "row", v[0], &row) < 0 || tl_py_int_arg(func, "col", v[1], &col) < 0 ||
      tl_py_int_arg(func, "offset", v[2], &offset) < 0 ||
      (v[3] && v[3] != Py_None && tl_py_parse_dtype(v[3], &dtype) < 0) ||
      (v[4] && v[4] != Py_None && tl_py_parse_device(v[4], &device) < 0))
    return NULL;
  if (v[4] && v[4] != Py_None && device.type != TL_DEVICE_CPU)
    return PyErr_Format(PyExc_RuntimeError, "%s(): only the CPU is supported here", func);
  if (dtype != TL_DTYPE_I64 && dtype != TL_DTYPE_I32)
    return PyErr_Format(PyExc_RuntimeError, "\"%s\" not implemented for '%s'", func,
                        tl_dtype_names[dtype]);
  if (tl_shape_tri_indices(&idx, row, col, offset, upper) != TL_OK)
    return tl_py_raise();
  if (dtype == TL_DTYPE_I64)
    return tl_py_tensor_from(&idx);
  tl_status status = tl_tensor_to_dtype(&out, &idx, dtype);
  tl_tensor_release(&idx);
  return wrap(status, &out);
}

static PyObject *fn_tril_indices(PyObject *m, PyObject *const *args, Py_ssize_t nargs,
                                 PyObject *kwnames)
{
  (void)m;
  return tri_indices("tril_indices", args, nargs, kwnames, false);
}

static PyObject *fn_triu_indices(PyObject *m, PyObject *const *args, Py_ssize_t nargs,
                                 PyObject *kwnames)
{
  (void)m;
  return tri_indices("triu_indices", args, nargs, kwnames, true);
}

static PyObject *atleast(const char *func, PyObject *const *args, Py_ssize_t nargs, int ndim)
{
  PyObject *seq = NULL, *r = NULL;
  const tl_tensor **ptrs = NULL;
  int n;
  if (tensor_varargs(func, args, nargs, &seq, &ptrs, &n) < 0)
    return NULL;
  tl_tensor *views = calloc((size_t)(n > 0 ? n : 1), sizeof *views);
  int made = 0;
  if (!views)
    PyErr_NoMemory();
  for (; views && made < n; made++)
    if (tl_view_atleast(&views[made], ptrs[made], ndim) != TL_OK) {
      tl_py_raise();
      break;
    }
  if (views && made == n)
    r = nargs == 1 && tl_py_is_tensor(args[0]) ? tl_py_tensor_from(&views[0])
                                                : views_tuple(views, n);
  else
    while (made--)
      tl_tensor_release(&views[made]);
  free(views);
  free(ptrs);
  Py_DECREF(seq);
  return r;
}

static PyObject *fn_atleast_1d(PyObject *m, PyObject *const *args, Py_ssize_t nargs)
{
  (void)m;
  return atleast("atleast_1d", args, nargs, 1);
}

static PyObject *fn_atleast_2d(PyObject *m, PyObject *const *args, Py_ssize_t nargs)
{
  (void)m;
  return atleast("atleast_2d", args, nargs, 2);
}

static PyObject *fn_atleast_3d(PyObject *m, PyObject *const *args, Py_ssize_t nargs)
{
  (void)m;
  return atleast("atleast_3d", args, nargs, 3);
}

/* torchlike.nn.functional.pad(input, pad, mode="constant", value=None) */
static PyObject *fn_pad(PyObject *m, PyObject *const *args, Py_ssize_t nargs, PyObject *kwnames)
{
  (void)m;
  static const char *const names[] = {"input", "pad", "mode", "value", NULL};
  static const char *const modes[] = {"constant", "reflect", "replicate", "circular", NULL};
  PyObject *v[4];
  int64_t pad[2 * TL_MAX_DIMS];
  Py_ssize_t npad;
  int64_t *tmp;
  tl_pad_mode mode = TL_PAD_CONSTANT;
  tl_scalar value = {.kind = TL_KIND_INT, .v.i = 0};
  tl_tensor out;
  if (tl_py_bind_args("pad", args, nargs, kwnames, names, -1, 0, v) < 0 || need("pad", "input", v[0]) < 0 ||
      need("pad", "pad", v[1]) < 0)
    return NULL;
  if (!tl_py_is_tensor(v[0]))
    return PyErr_Format(PyExc_TypeError, "pad(): argument 'input' must be Tensor, not %s",
                        Py_TYPE(v[0])->tp_name);
  if (v[2] && v[2] != Py_None) {
    const char *s = PyUnicode_Check(v[2]) ? PyUnicode_AsUTF8(v[2]) : NULL;
    int i = 0;
    while (s && modes[i] && strcmp(modes[i], s))
      i++;
    if (!s || !modes[i])
      return PyErr_Format(PyExc_NotImplementedError, "Unrecognised padding mode %R; expected "
                                                     "'constant', 'reflect', 'replicate' or "
                                                     "'circular'", v[2]);
    mode = (tl_pad_mode)i;
  }
  if (v[3] && v[3] != Py_None) {
    if (mode != TL_PAD_CONSTANT)
      return PyErr_Format(PyExc_RuntimeError, "Padding mode \"%s\" doesn't take in value "
                                              "argument", modes[mode]);
    int ok = tl_py_scalar(v[3], &value);
    if (ok <= 0)
      return ok < 0 ? NULL : PyErr_Format(PyExc_TypeError, "pad(): argument 'value' must be a "
                                                           "number, not %s",
                                          Py_TYPE(v[3])->tp_name);
  }
  if (int_array("pad", "pad", v[1], &tmp, &npad) < 0)
    return NULL;
  if (npad > 2 * TL_MAX_DIMS) {
    free(tmp);
    return PyErr_Format(PyExc_RuntimeError, "Padding length should be less than or equal to two "
                                            "times the input dimension but got padding length "
                                            "%zd and input of dimension %d",
                        npad, tl_py_t(v[0])->ndim);
  }
  memcpy(pad, tmp, (size_t)npad * sizeof *pad);
  free(tmp);
  return wrap(tl_shape_pad(&out, tl_py_t(v[0]), (int)npad, pad, mode, value), &out);
}

/* ---- in-place view methods (t.squeeze_() ...) ------------------------------------ */

/* Call Tensor.<name>(self, *args, **kwargs), then make self that view: same
 * storage, new shape and strides.  Data is untouched, so no version bump. */
static PyObject *become_view(const char *name, PyObject *self, PyObject *const *args,
                             Py_ssize_t nargs, PyObject *kwnames)
{
  PyObject *stack[16];
  Py_ssize_t nkw = kwnames ? PyTuple_GET_SIZE(kwnames) : 0;
  if (nargs + nkw + 1 > (Py_ssize_t)(sizeof stack / sizeof *stack))
    return PyErr_Format(PyExc_TypeError, "%s_() got too many arguments", name);
  stack[0] = self;
  for (Py_ssize_t i = 0; i < nargs + nkw; i++)
    stack[i + 1] = args[i];
  PyObject *method = PyUnicode_FromString(name);
  if (!method)
    return NULL;
  PyObject *result = PyObject_VectorcallMethod(method, stack, (size_t)(nargs + 1), kwnames);
  Py_DECREF(method);
  if (!result)
    return NULL;
  if (!tl_py_is_tensor(result)) {
    Py_DECREF(result);
    return PyErr_Format(PyExc_SystemError, "%s() did not return a Tensor", name);
  }
  tl_tensor *t = tl_py_t(self), old = *t;
  tl_tensor_view_of(t, tl_py_t(result));
  tl_tensor_release(&old);
  Py_DECREF(result);
  return Py_NewRef(self);
}

#define INPLACE_VIEW(NAME)                                                                   \
  static PyObject *tensor_##NAME##_(PyObject *self, PyObject *const *args, Py_ssize_t nargs, \
                                    PyObject *kwnames)                                       \
  {                                                                                          \
    return become_view(#NAME, self, args, nargs, kwnames);                                   \
  }
INPLACE_VIEW(squeeze)
INPLACE_VIEW(unsqueeze)
INPLACE_VIEW(transpose)
INPLACE_VIEW(t)
INPLACE_VIEW(swapaxes)
INPLACE_VIEW(swapdims)
INPLACE_VIEW(as_strided)

/* ---- tables and registration ------------------------------------------------------ */

/* Tensor methods that are also module functions (torchlike.<name>(t, ...)). */
static PyMethodDef shape_methods[] = {
    {"split", FASTCALL_KW(tensor_split_), NULL},
    {"tensor_split", FASTCALL_KW(tensor_tensor_split), NULL},
    {"hsplit", FASTCALL_KW(tensor_hsplit), NULL},
    {"vsplit", FASTCALL_KW(tensor_vsplit), NULL},
    {"dsplit", FASTCALL_KW(tensor_dsplit), NULL},
    {"flip", FASTCALL_KW(tensor_flip), NULL},
    {"fliplr", tensor_fliplr, METH_NOARGS, NULL},
    {"flipud", tensor_flipud, METH_NOARGS, NULL},
    {"roll", FASTCALL_KW(tensor_roll), NULL},
    {"rot90", FASTCALL_KW(tensor_rot90), NULL},
    {"tile", FASTCALL_KW(tensor_tile), NULL},
    {"repeat_interleave", FASTCALL_KW(tensor_repeat_interleave), NULL},
    {"slice_scatter", FASTCALL_KW(tensor_slice_scatter), NULL},
    {"as_strided", FASTCALL_KW(tensor_as_strided), NULL},
    {"movedim", FASTCALL_KW(tensor_movedim), NULL},
    {"moveaxis", FASTCALL_KW(tensor_movedim), NULL},
    {"unflatten", FASTCALL_KW(tensor_unflatten), NULL},
    {"broadcast_to", FASTCALL_KW(tensor_broadcast_to), NULL},
    {NULL, NULL, 0, NULL},
};

/* Tensor methods only: PyTorch has no torch.repeat or torch.unfold of this
 * kind, and the in-place view methods (squeeze_ ...) are methods only. */
static PyMethodDef method_only[] = {
    {"repeat", (PyCFunction)(void (*)(void))tensor_repeat, METH_FASTCALL, NULL},
    {"unfold", FASTCALL_KW(tensor_unfold), NULL},
    {"squeeze_", FASTCALL_KW(tensor_squeeze_), NULL},
    {"unsqueeze_", FASTCALL_KW(tensor_unsqueeze_), NULL},
    {"transpose_", FASTCALL_KW(tensor_transpose_), NULL},
    {"t_", FASTCALL_KW(tensor_t_), NULL},
    {"swapaxes_", FASTCALL_KW(tensor_swapaxes_), NULL},
    {"swapdims_", FASTCALL_KW(tensor_swapdims_), NULL},
    {"as_strided_", FASTCALL_KW(tensor_as_strided_), NULL},
    {NULL, NULL, 0, NULL},
};

static PyMethodDef shape_functions[] = {
    {"cat", FASTCALL_KW(fn_cat), NULL},
    {"concatenate", FASTCALL_KW(fn_cat), NULL},
    {"concat", FASTCALL_KW(fn_cat), NULL},
    {"stack", FASTCALL_KW(fn_stack), NULL},
    {"hstack", FASTCALL_KW(fn_hstack), NULL},
    {"vstack", FASTCALL_KW(fn_vstack), NULL},
    {"row_stack", FASTCALL_KW(fn_vstack), NULL},
    {"dstack", FASTCALL_KW(fn_dstack), NULL},
    {"column_stack", FASTCALL_KW(fn_column_stack), NULL},
    {"meshgrid", FASTCALL_KW(fn_meshgrid), NULL},
    {"broadcast_tensors", (PyCFunction)(void (*)(void))fn_broadcast_tensors, METH_FASTCALL, NULL},
    {"broadcast_shapes", (PyCFunction)(void (*)(void))fn_broadcast_shapes, METH_FASTCALL, NULL},
    {"atleast_1d", (PyCFunction)(void (*)(void))fn_atleast_1d, METH_FASTCALL, NULL},
    {"atleast_2d", (PyCFunction)(void (*)(void))fn_atleast_2d, METH_FASTCALL, NULL},
    {"atleast_3d", (PyCFunction)(void (*)(void))fn_atleast_3d, METH_FASTCALL, NULL},
    {"block_diag", (PyCFunction)(void (*)(void))fn_block_diag, METH_FASTCALL, NULL},
    {"cartesian_prod", (PyCFunction)(void (*)(void))fn_cartesian_prod, METH_FASTCALL, NULL},
    {"tril_indices", FASTCALL_KW(fn_tril_indices), NULL},
    {"triu_indices", FASTCALL_KW(fn_triu_indices), NULL},
    {"_pad", FASTCALL_KW(fn_pad), NULL},
    {NULL, NULL, 0, NULL},
};

/* View methods of py_views.c that PyTorch also has as torch.<name>(t, ...). */
static const char *const view_functions[] = {
    "permute", "transpose", "swapaxes", "swapdims", "t",
    "squeeze", "unsqueeze", "flatten", "ravel", NULL,
};

/* Put Tensor.<name> (the method descriptor, which takes the tensor first) in the module. */
static int export_method(PyObject *module, const char *name)
{
  PyObject *descr = PyObject_GetAttrString((PyObject *)tl_py_tensor_type, name);
  if (!descr)
    return -1;
  int r = PyModule_AddObjectRef(module, name, descr);
  Py_DECREF(descr);
  return r;
}

int tl_py_shape_ops_init(PyObject *module)
{
  if (tl_py_tensor_add_methods(shape_methods) < 0 || tl_py_tensor_add_methods(method_only) < 0 ||
      tl_py_tensor_add_methods(tl_py_generated_methods) < 0 ||
      PyModule_AddFunctions(module, shape_functions) < 0)
    return -1;
  for (PyMethodDef *m = shape_methods; m->ml_name; m++)
    if (export_method(module, m->ml_name) < 0)
      return -1;
  for (PyMethodDef *m = tl_py_generated_methods; m->ml_name; m++)
    if (export_method(module, m->ml_name) < 0)
      return -1;
  for (int i = 0; view_functions[i]; i++)
    if (!PyObject_HasAttrString(module, view_functions[i]) &&
        export_method(module, view_functions[i]) < 0)
      return -1;
  return 0;
}
