/* py_shape_ops.c - Python bindings of the shape family: cat/stack and friends,
 * split/chunk/unbind, flip/roll/rot90, repeat/tile/repeat_interleave,
 * tril/triu/diagonal/diag/diag_embed, narrow/unfold/as_strided, movedim,
 * unflatten, broadcast_*, meshgrid, atleast_*d and nn.functional.pad.
 *
 * Registration: most are bound from signatures.txt's [shape] signatures
 * (the generated tables; cat, meshgrid and the other functions of several
 * tensors take them as Tensor[], Tensor... or *Tensor), and their Tensor
 * methods are also put in the module, so torchlike.flip(t, dims) and
 * t.flip(dims) run one function with one argument parser.  The tables here
 * hold the rest: `shape_methods` (fliplr, flipud) and `method_only`, the
 * in-place views PyTorch has no function for (squeeze_ ...).  The existing
 * view methods of py_views.c that PyTorch also offers as functions (t,
 * ravel) are exported to the module the same way.  py_module.c calls
 * tl_py_shape_ops_init().                                                  */
#include "ndcore/bindings/generated/bindings.h"
#include "ndcore/kernels/tl_create.h"
#include "ndcore/kernels/tl_shape_ops.h"
#include "ndcore/tensor/tl_views.h"

int tl_py_parse_shape(const char *func, PyObject *const *args, Py_ssize_t nargs, int64_t *shape,
                      int *ndim);

/* ---- argument helpers ------------------------------------------------------ */


/* A declared int list of at most TL_MAX_DIMS entries (dims, sizes). */
static int dims_list(const char *func, const char *name, const tl_py_ints *v)
{
  if (v->n <= TL_MAX_DIMS)
    return 0;
  PyErr_Format(PyExc_ValueError, "%s(): '%s' has %d entries; tensors have at most %d dims", func,
               name, v->n, TL_MAX_DIMS);
  return -1;
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
  else if (!tl_can_cast(t->dtype, tl_py_t(out)->dtype)) /* floats into a bool out (PyTorch) */
    PyErr_Format(tl_py_cast_error, "torch.cat(): input types can't be cast to the desired output "
                 "type %s", tl_dtype_names[tl_py_t(out)->dtype]);
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

/* ---- joining (bound by generated code: cat, stack, hstack ...) ------------------ */

static PyObject *join(const tl_py_tensors *tensors, PyObject *out_arg, int64_t dim,
                      int kind /* -1 cat, -2 stack, else tl_stack_kind */)
{
  tl_tensor out;
  tl_status status = kind == -1   ? tl_shape_cat(&out, tensors->n, tensors->t, dim)
                     : kind == -2 ? tl_shape_stack(&out, tensors->n, tensors->t, dim)
                                  : tl_shape_stack_kind(&out, tensors->n, tensors->t,
                                                        (tl_stack_kind)kind);
  return finish_out(status, &out, out_arg);
}

/* cat, concat, concatenate and stack (name says which) */
PyObject *tl_py_impl_cat(const char *name, const tl_py_args_cat *a)
{
  return join(&a->tensors, a->out, a->dim, strcmp(name, "stack") ? -1 : -2);
}

/* hstack, vstack, row_stack, dstack, column_stack (name says which) */
PyObject *tl_py_impl_hstack(const char *name, const tl_py_args_hstack *a)
{
  tl_stack_kind kind = name[0] == 'h'   ? TL_STACK_H
                       : name[0] == 'd' ? TL_STACK_D
                       : name[0] == 'c' ? TL_STACK_COLUMN
                                        : TL_STACK_V; /* vstack, row_stack */
  return join(&a->tensors, a->out, 0, (int)kind);
}

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

/* split: the pieces' size, or their sizes */
PyObject *tl_py_impl_split(const char *name, const tl_py_args_split *a)
{
  tl_tensor *t = tl_py_t(a->input);
  int d;
  tl_span *spans = NULL;
  int64_t n = 0;
  tl_status status;
  if (a->split_size_or_sections.given && a->split_size.given)
    return PyErr_Format(PyExc_TypeError, "%s() got multiple values for argument 'split_size'",
                        name);
  const tl_py_intvec *what = a->split_size.given ? &a->split_size : &a->split_size_or_sections;
  if (!what->given)
    return PyErr_Format(PyExc_TypeError, "%s() missing required argument "
                                         "'split_size_or_sections'", name);
  if (wrap_dim_of(t, a->dim, &d) < 0)
    return NULL;
  if (what->one) {
    status = tl_split_by_size(t->shape[d], what->v[0], &spans, &n);
  } else {
    n = what->n;
    status = tl_split_by_sizes(t->shape[d], what->n, what->v, &spans);
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

/* tensor_split and its h/v/dsplit forms along dim d: sections (one int) or
 * the indices to cut at, given as ints or as an integer tensor `what`. */
static PyObject *tensor_split_common(const char *func, const tl_tensor *t, PyObject *what,
                                     const tl_py_intvec *ints, int d, bool divisible)
{
  tl_span *spans = NULL;
  int64_t n = 0;
  tl_status status;
  tl_py_intvec from_tensor = {.v = NULL};
  if (what && (tl_py_t(what)->ndim > 1 || !tl_dtype_is_integral(tl_py_t(what)->dtype) ||
               tl_py_t(what)->dtype == TL_DTYPE_BOOL))
    return PyErr_Format(PyExc_RuntimeError, "%s expected tensor_indices_or_sections to be a "
                                            "zero-dimensional or one-dimensional tensor of "
                                            "integer dtype, but got a %d-dim %s tensor", func,
                        tl_py_t(what)->ndim, tl_dtype_names[tl_py_t(what)->dtype]);
  if (what) { /* a 0-d tensor is sections, a 1-d one the indices */
    if (tl_py_arg_intvec(func, "indices", what, &from_tensor) < 0)
      return NULL;
    ints = &from_tensor;
  }
  if (ints->one) {
    int64_t k = ints->v[0];
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
    n = ints->n + 1;
    status = tl_split_indices(t->shape[d], ints->n, ints->v, &spans);
  }
  tl_py_intvec_release(&from_tensor);
  PyObject *r = status == TL_OK ? spans_tuple(t, d, spans, n) : tl_py_raise();
  free(spans);
  return r;
}

PyObject *tl_py_impl_tensor_split(const char *name, const tl_py_args_tensor_split *a)
{
  const tl_tensor *t = tl_py_t(a->input);
  tl_py_intvec sections = {.v = NULL, .n = 1, .given = true, .one = true};
  const tl_py_intvec *ints = &a->indices_or_sections;
  int d;
  if (!a->indices_or_sections.given && a->has_sections) {
    sections.v = sections.small;
    sections.small[0] = a->sections;
    ints = &sections;
  } else if (!a->indices_or_sections.given) {
    ints = &a->indices;
  }
  if (!ints->given)
    return PyErr_Format(PyExc_TypeError, "%s() missing required argument 'indices_or_sections'",
                        name);
  if (t->ndim == 0)
    return PyErr_Format(PyExc_RuntimeError, "tensor_split expected at least a 1-dimensional "
                                            "tensor, but got a tensor with 0 dims");
  if (wrap_dim_of(t, a->dim, &d) < 0)
    return NULL;
  return tensor_split_common(name, t, a->indices_or_sections_tensor, ints, d, false);
}

/* hsplit, vsplit, dsplit (name says which) */
PyObject *tl_py_impl_hvdsplit(const char *name, const tl_py_args_hvdsplit *a)
{
  const tl_tensor *t = tl_py_t(a->input);
  int min_ndim = name[0] == 'h' ? 1 : name[0] == 'v' ? 2 : 3;
  int d = name[0] == 'h' ? (t->ndim == 1 ? 0 : 1) : name[0] == 'v' ? 0 : 2;
  if (t->ndim < min_ndim)
    return PyErr_Format(PyExc_RuntimeError, "torch.%s requires a tensor with at least %d "
                                            "dimension%s, but got a tensor with %d dimensions!",
                        name, min_ndim, min_ndim > 1 ? "s" : "", t->ndim);
  return tensor_split_common(name, t, a->indices_or_sections_tensor, &a->indices_or_sections, d,
                             true);
}

/* ---- reordering ------------------------------------------------------------- */

PyObject *tl_py_impl_flip(const char *name, const tl_py_args_flip *a)
{
  const tl_tensor *t = tl_py_t(a->input);
  uint64_t mask;
  tl_tensor out;
  if (dims_list(name, "dims", &a->dims) < 0 || tl_py_ints_dims(&a->dims, t->ndim, &mask) < 0)
    return NULL;
  return wrap(tl_shape_flip(&out, t, t->ndim ? mask : 0), &out);
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

PyObject *tl_py_impl_roll(const char *name, const tl_py_args_roll *a)
{
  tl_tensor out;
  if (dims_list(name, "shifts", &a->shifts) < 0 || dims_list(name, "dims", &a->dims) < 0)
    return NULL;
  if (a->dims.given && a->dims.n != a->shifts.n)
    return PyErr_Format(PyExc_RuntimeError, "shifts and dimensions must align. shifts: %d, "
                                            "dims:%d", a->shifts.n, a->dims.n);
  return wrap(tl_shape_roll(&out, tl_py_t(a->input), a->shifts.n, a->shifts.v,
                            a->dims.given ? a->dims.v : NULL), &out);
}

PyObject *tl_py_impl_rot90(const char *name, const tl_py_args_rot90 *a)
{
  static const int64_t plane[2] = {0, 1};
  tl_tensor out;
  if (dims_list(name, "dims", &a->dims) < 0)
    return NULL;
  return wrap(tl_shape_rot90(&out, tl_py_t(a->input), a->k, a->dims.given ? a->dims.n : 2,
                             a->dims.given ? a->dims.v : plane), &out);
}

/* ---- repeating ---------------------------------------------------------------- */

PyObject *tl_py_impl_repeat(const char *name, const tl_py_args_repeat *a)
{
  tl_tensor out;
  if (dims_list(name, "repeats", &a->repeats) < 0)
    return NULL;
  return wrap(tl_shape_repeat(&out, tl_py_t(a->input), a->repeats.n, a->repeats.v), &out);
}

PyObject *tl_py_impl_tile(const char *name, const tl_py_args_tile *a)
{
  tl_tensor out;
  if (dims_list(name, "dims", &a->dims) < 0)
    return NULL;
  return wrap(tl_shape_tile(&out, tl_py_t(a->input), a->dims.n, a->dims.v), &out);
}

PyObject *tl_py_impl_repeat_interleave(const char *name, const tl_py_args_repeat_interleave *a)
{
  (void)name;
  int64_t dim = a->dim;
  tl_tensor out, *in = tl_py_t(a->input), arange = {0};
  const tl_tensor *rt = a->repeats_tensor ? tl_py_t(a->repeats_tensor) : NULL;
  if (!a->has_repeats) {
    /* torch.repeat_interleave(repeats): index i repeated repeats[i] times. */
    int64_t n = tl_tensor_numel(in);
    if (in->ndim > 1)
      return PyErr_Format(PyExc_RuntimeError, "repeat_interleave only accept 1D vector as repeat");
    /* 0 .. n-1 by the device's arange kernel (a host loop cannot write device memory) */
    if (tl_tensor_empty(&arange, TL_DTYPE_I64, 1, &n, tl_tensor_device(in)) != TL_OK)
      return tl_py_raise();
    if (tl_tensor_arange_fill(&arange, (tl_scalar){.kind = TL_KIND_INT, .v.i = 0},
                              (tl_scalar){.kind = TL_KIND_INT, .v.i = 1}) != TL_OK) {
      tl_tensor_release(&arange);
      return tl_py_raise();
    }
    rt = in;
    in = &arange;
  }
  tl_status status = tl_shape_repeat_interleave(&out, in, rt, a->repeats, a->has_dim ? &dim : NULL);
  if (arange.storage)
    tl_tensor_release(&arange);
  if (status == TL_OK && a->has_output_size &&
      out.shape[a->has_dim ? (dim < 0 ? dim + out.ndim : dim) : 0] != a->output_size) {
    tl_tensor_release(&out);
    return PyErr_Format(PyExc_RuntimeError, "repeat_interleave: output_size %lld does not match "
                                            "the sum of repeats", (long long)a->output_size);
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

/* Python-slice bound for a positive step: absent is `dflt`, negatives wrap, then clamp. */
static int64_t slice_bound(bool given, int64_t v, int64_t size, int64_t dflt)
{
  if (!given)
    return dflt;
  if (v < 0)
    v += size;
  return v < 0 ? 0 : v > size ? size : v;
}

static PyObject *view_scatter(PyObject *self, PyObject *src, tl_scatter_kind kind,
                              const int64_t *a)
{
  tl_tensor out;
  return wrap(tl_shape_view_scatter(&out, tl_py_t(self), tl_py_t(src), kind, a), &out);
}

/* select_scatter, diagonal_scatter: bound by generated code */
PyObject *tl_py_impl_select_scatter(const char *name, const tl_py_args_select_scatter *a)
{
  (void)name;
  const int64_t at[2] = {a->dim, a->index};
  return view_scatter(a->input, a->src, TL_SCATTER_SELECT, at);
}

PyObject *tl_py_impl_slice_scatter(const char *name, const tl_py_args_slice_scatter *a)
{
  (void)name;
  tl_tensor *t = tl_py_t(a->input);
  int d = 0;
  if (t->ndim > 0 && tl_dim_wrap(a->dim, t->ndim, &d) != TL_OK)
    return tl_py_raise();
  int64_t size = t->ndim ? t->shape[d] : 0;
  const int64_t at[4] = {a->dim, slice_bound(a->has_start, a->start, size, 0),
                         slice_bound(a->has_end, a->end, size, size), a->step};
  return view_scatter(a->input, a->src, TL_SCATTER_SLICE, at);
}

PyObject *tl_py_impl_diagonal_scatter(const char *name, const tl_py_args_diagonal_scatter *a)
{
  (void)name;
  const int64_t at[3] = {a->offset, a->dim1, a->dim2};
  return view_scatter(a->input, a->src, TL_SCATTER_DIAGONAL, at);
}

PyObject *tl_py_impl_unfold(const char *name, const tl_py_args_unfold *a)
{
  (void)name;
  tl_tensor out;
  return wrap(tl_view_unfold(&out, tl_py_t(a->input), a->dimension, a->size, a->step), &out);
}

PyObject *tl_py_impl_as_strided(const char *name, const tl_py_args_as_strided *a)
{
  const tl_tensor *t = tl_py_t(a->input);
  tl_tensor out;
  if (dims_list(name, "size", &a->size) < 0 || dims_list(name, "stride", &a->stride) < 0)
    return NULL;
  if (a->size.n != a->stride.n)
    return PyErr_Format(PyExc_RuntimeError, "mismatch in length of strides and shape");
  return wrap(tl_view_as_strided(&out, t, a->size.n, a->size.v, a->stride.v,
                                 a->has_storage_offset ? a->storage_offset : t->offset), &out);
}

/* movedim and moveaxis */
PyObject *tl_py_impl_movedim(const char *name, const tl_py_args_movedim *a)
{
  tl_tensor out;
  if (dims_list(name, "source", &a->source) < 0 ||
      dims_list(name, "destination", &a->destination) < 0)
    return NULL;
  if (a->source.n != a->destination.n)
    return PyErr_Format(PyExc_RuntimeError, "movedim: Invalid source or destination dims: source "
                                            "(%d dims) should contain the same number of dims as "
                                            "destination (%d dims)", a->source.n,
                        a->destination.n);
  return wrap(tl_view_movedim(&out, tl_py_t(a->input), a->source.n, a->source.v,
                              a->destination.v), &out);
}

PyObject *tl_py_impl_unflatten(const char *name, const tl_py_args_unflatten *a)
{
  tl_tensor out;
  if (dims_list(name, "sizes", &a->sizes) < 0)
    return NULL;
  return wrap(tl_view_unflatten(&out, tl_py_t(a->input), a->dim, a->sizes.n, a->sizes.v), &out);
}

PyObject *tl_py_impl_broadcast_to(const char *name, const tl_py_args_broadcast_to *a)
{
  tl_tensor out;
  if (dims_list(name, "size", &a->size) < 0)
    return NULL;
  return wrap(tl_view_expand(&out, tl_py_t(a->input), a->size.n, a->size.v), &out);
}

/* ---- module functions on tensors given spread (*Tensor, Tensor...) ------------------- */

/* A tuple of one view of each tensor, all made by `all`. */
static PyObject *views_of(const tl_py_tensors *ts, tl_status (*all)(tl_tensor *, int,
                                                                    const tl_tensor *const *))
{
  tl_tensor *views = calloc((size_t)(ts->n > 0 ? ts->n : 1), sizeof *views);
  if (!views)
    return PyErr_NoMemory();
  PyObject *r = all(views, ts->n, ts->t) == TL_OK ? views_tuple(views, ts->n) : tl_py_raise();
  free(views);
  return r;
}

PyObject *tl_py_impl_broadcast_tensors(const char *name, const tl_py_args_broadcast_tensors *a)
{
  (void)name;
  return views_of(&a->tensors, tl_shape_broadcast_tensors);
}

static tl_status meshgrid_ij(tl_tensor *outs, int n, const tl_tensor *const *ins)
{
  return tl_shape_meshgrid(outs, n, ins, false);
}

static tl_status meshgrid_xy(tl_tensor *outs, int n, const tl_tensor *const *ins)
{
  return tl_shape_meshgrid(outs, n, ins, true);
}

/* meshgrid(*tensors, indexing=None): indexing None is "ij", as PyTorch's
 * default, which warns once per process that it will change (as PyTorch). */
PyObject *tl_py_impl_meshgrid(const char *name, const tl_py_args_meshgrid *a)
{
  static bool warned;
  (void)name;
  const char *ix = a->indexing;
  if (ix && strcmp(ix, "ij") && strcmp(ix, "xy"))
    return PyErr_Format(PyExc_RuntimeError, "torch.meshgrid: indexing must be one of \"xy\" or "
                                            "\"ij\", but received: %s", ix);
  if (!ix && !warned) {
    warned = true;
    if (PyErr_WarnEx(PyExc_UserWarning, "torch.meshgrid: in an upcoming release, it will be "
                                        "required to pass the indexing argument.", 1) < 0)
      return NULL;
  }
  return views_of(&a->tensors, ix && !strcmp(ix, "xy") ? meshgrid_xy : meshgrid_ij);
}

/* atleast_1d/2d/3d(*tensors): one tensor given alone gives a tensor, any
 * other call a tuple (atleast_1d([t]) too). */
PyObject *tl_py_impl_atleast(const char *name, const tl_py_args_atleast *a)
{
  int ndim = name[8] - '0', n = a->tensors.n, made = 0;
  tl_tensor *views = calloc((size_t)(n > 0 ? n : 1), sizeof *views);
  PyObject *r = NULL;
  if (!views)
    return PyErr_NoMemory();
  for (; made < n; made++)
    if (tl_view_atleast(&views[made], a->tensors.t[made], ndim) != TL_OK) {
      tl_py_raise();
      break;
    }
  if (made == n)
    r = a->tensors.one ? tl_py_tensor_from(&views[0]) : views_tuple(views, n);
  else
    while (made--)
      tl_tensor_release(&views[made]);
  free(views);
  return r;
}

PyObject *tl_py_impl_block_diag(const char *name, const tl_py_args_block_diag *a)
{
  (void)name;
  tl_tensor out;
  return wrap(tl_shape_block_diag(&out, a->tensors.n, a->tensors.t), &out);
}

PyObject *tl_py_impl_cartesian_prod(const char *name, const tl_py_args_cartesian_prod *a)
{
  (void)name;
  tl_tensor out;
  return wrap(tl_shape_cartesian_prod(&out, a->tensors.n, a->tensors.t), &out);
}

/* broadcast_shapes(*shapes): each an int or a sequence of ints; None is
 * skipped.  PyTorch's messages, which name the shape that does not fit and
 * the common shape so far. */
PyObject *tl_py_impl_broadcast_shapes(const char *name, const tl_py_args_broadcast_shapes *a)
{
  int64_t common[TL_PY_MAX_INTS];
  int nd = 0;
  tl_py_ints one[1];
  for (Py_ssize_t i = 0, index = 0; i < a->shapes.n; i++) {
    PyObject *shape = a->shapes.v[i];
    if (shape == Py_None)
      continue;
    if (tl_py_arg_ints(name, "shapes", shape, one) < 0 || dims_list(name, "shapes", one) < 0)
      return NULL;
    for (; nd < one->n; nd++) { /* widen with leading ones */
      memmove(common + 1, common, (size_t)nd * sizeof *common);
      common[0] = 1;
    }
    for (int k = 1; k <= one->n; k++) {
      int64_t s = one->v[one->n - k], *c = &common[nd - k];
      if (s == *c)
        continue;
      if (*c == 1) {
        if (s < 0)
          return PyErr_Format(PyExc_ValueError, "Attempting to broadcast a dimension with "
                                                "negative length!");
        *c = s;
      } else if (s != 1) {
        char have[256];
        PyObject *shown = one->one ? PyTuple_Pack(1, shape) : Py_NewRef(shape);
        if (shown)
          PyErr_Format(PyExc_RuntimeError, "Attempting to broadcast a dimension of length %lld "
                       "at %d! Mismatching argument at index %zd had %R; but expected shape "
                       "should be broadcastable to %s", (long long)s, -k, index, shown,
                       tl_shape_str(have, sizeof have, nd, common));
        Py_XDECREF(shown);
        return NULL;
      }
    }
    index++;
  }
  return tl_py_size_new(nd, common);
}

/* torchlike.nn.functional.pad(input, pad, mode="constant", value=None) */
PyObject *tl_py_impl_pad(const char *name, const tl_py_args_pad *a)
{
  (void)name;
  static const char *const modes[] = {"constant", "reflect", "replicate", "circular", NULL};
  tl_pad_mode mode = TL_PAD_CONSTANT;
  tl_scalar value = {.kind = TL_KIND_INT, .v.i = 0};
  tl_tensor out;
  if (a->mode) {
    int i = 0;
    while (modes[i] && strcmp(modes[i], a->mode))
      i++;
    if (!modes[i])
      return PyErr_Format(PyExc_NotImplementedError, "Unrecognised padding mode '%s'; expected "
                                                     "'constant', 'reflect', 'replicate' or "
                                                     "'circular'", a->mode);
    mode = (tl_pad_mode)i;
  }
  if (a->has_value) {
    if (mode != TL_PAD_CONSTANT)
      return PyErr_Format(PyExc_RuntimeError, "Padding mode \"%s\" doesn't take in value "
                                              "argument", modes[mode]);
    value = a->value;
  }
  if (a->pad.n > 2 * TL_MAX_DIMS)
    return PyErr_Format(PyExc_RuntimeError, "Padding length should be less than or equal to two "
                                            "times the input dimension but got padding length "
                                            "%d and input of dimension %d",
                        a->pad.n, tl_py_t(a->input)->ndim);
  return wrap(tl_shape_pad(&out, tl_py_t(a->input), a->pad.n, a->pad.v, mode, value), &out);
}

/* ---- in-place view methods (t.squeeze_() ...) ------------------------------------ */

/* Call Tensor.<name>(self, *args, **kwargs), then make self that view: same
 * storage, new shape and strides.  Data is untouched, so no version bump.
 * When the view was recorded, self takes its history (grad_fn, output_nr), so
 * a gradient reaches self's old history through the view's node, as PyTorch
 * records y.unsqueeze_(0); a leaf that requires grad is refused, as there. */
static PyObject *become_view(const char *name, PyObject *self, PyObject *const *args,
                             Py_ssize_t nargs, PyObject *kwnames)
{
  tl_py_tensor *me = (tl_py_tensor *)self;
  if (tl_storage_check_write(me->t.storage) != TL_OK)
    return tl_py_raise();
  if (tl_py_grad_enabled && me->requires_grad && !me->grad_fn)
    return PyErr_Format(PyExc_RuntimeError, "a leaf Variable that requires grad is being used "
                        "in an in-place operation.");
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
  tl_py_tensor *view = (tl_py_tensor *)result;
  if (view->grad_fn) {
    Py_XSETREF(me->grad_fn, Py_NewRef(view->grad_fn));
    me->output_nr = view->output_nr;
    me->requires_grad = true;
  }
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

/* Tensor methods that are also module functions (torchlike.<name>(t, ...)),
 * with no arguments to bind.  Those with a signature are bound by generated
 * code: tl_py_generated_methods (methods and functions), _method_only and
 * _shape_functions. */
static PyMethodDef shape_methods[] = {
    {"fliplr", tensor_fliplr, METH_NOARGS, NULL},
    {"flipud", tensor_flipud, METH_NOARGS, NULL},
    {NULL, NULL, 0, NULL},
};

/* The in-place view methods (squeeze_ ...) are methods only. */
static PyMethodDef method_only[] = {
    {"squeeze_", FASTCALL_KW(tensor_squeeze_), NULL},
    {"unsqueeze_", FASTCALL_KW(tensor_unsqueeze_), NULL},
    {"transpose_", FASTCALL_KW(tensor_transpose_), NULL},
    {"t_", FASTCALL_KW(tensor_t_), NULL},
    {"swapaxes_", FASTCALL_KW(tensor_swapaxes_), NULL},
    {"swapdims_", FASTCALL_KW(tensor_swapdims_), NULL},
    {"as_strided_", FASTCALL_KW(tensor_as_strided_), NULL},
    {NULL, NULL, 0, NULL},
};

/* View methods of py_views.c that PyTorch also has as torch.<name>(t, ...). */
static const char *const view_functions[] = {"t", "ravel", NULL};

/* torchlike.<name>(t, ...): Tensor.<name>'s method descriptor called with
 * the tensor first, once it is known to be one, so that a bad first
 * argument is named rather than told that "descriptor '<name>' for
 * 'torchlike.Tensor' objects doesn't apply". */
static PyObject *method_as_function(PyObject *descr, PyObject *const *args, Py_ssize_t nargs,
                                    PyObject *kwnames)
{
  const char *name = ((PyMethodDescrObject *)descr)->d_method->ml_name;
  if (nargs == 0)
    return PyErr_Format(PyExc_TypeError, "%s() missing required positional argument 'input' "
                        "(position 1), a Tensor", name);
  if (!tl_py_is_tensor(args[0]))
    return PyErr_Format(PyExc_TypeError, "%s(): argument 'input' (position 1) must be Tensor, "
                        "not %s", name, Py_TYPE(args[0])->tp_name);
  return PyObject_Vectorcall(descr, args, (size_t)nargs, kwnames);
}

/* Put Tensor.<name> in the module as method_as_function; its PyMethodDef
 * lives as long as the module, which is never unloaded. */
static int export_method(PyObject *module, const char *name)
{
  PyObject *descr = PyObject_GetAttrString((PyObject *)tl_py_tensor_type, name), *fn = NULL;
  PyObject *modname = PyModule_GetNameObject(module);
  PyMethodDef *def = PyMem_Calloc(1, sizeof *def);
  int r = -1;
  if (!descr || !modname || !def)
    goto done;
  if (!Py_IS_TYPE(descr, &PyMethodDescr_Type)) { /* set from Python: exported as it is */
    r = PyModule_AddObjectRef(module, name, descr);
    goto done;
  }
  *def = (PyMethodDef){((PyMethodDescrObject *)descr)->d_method->ml_name,
                       (PyCFunction)(void (*)(void))method_as_function,
                       METH_FASTCALL | METH_KEYWORDS, NULL};
  fn = PyCFunction_NewEx(def, descr, modname);
  def = fn ? NULL : def; /* the function owns it from here */
  r = fn ? PyModule_AddObjectRef(module, name, fn) : -1;
done:
  PyMem_Free(def);
  Py_XDECREF(fn);
  Py_XDECREF(modname);
  Py_XDECREF(descr);
  return r;
}

int tl_py_shape_ops_init(PyObject *module)
{
  if (tl_py_tensor_add_methods(shape_methods) < 0 || tl_py_tensor_add_methods(method_only) < 0 ||
      tl_py_tensor_add_methods(tl_py_generated_methods) < 0 ||
      tl_py_tensor_add_methods(tl_py_generated_method_only) < 0 ||
      PyModule_AddFunctions(module, tl_py_generated_shape_functions) < 0)
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
