/* py_sig.c - the declared signatures at run time: lookup, int normalisation,
 * and torchlike._C._signatures().
 *
 * The tables come from generated/signatures.c.  An int may reach an op as a
 * Python int, a NumPy int or a 0-d integer tensor, and an int list as a
 * sequence of those or a 1-d integer tensor; a recorded call is normalised
 * once here so that the op and the formulas reading the call back both see
 * Python ints.                                                            */
#include "ndcore/bindings/py_sig.h"
#include "ndcore/bindings/py_create.h"

const tl_py_sig *tl_py_sig_find(const char *name)
{
  for (int i = 0; i < tl_py_sig_count; i++)
    if (!strcmp(tl_py_sigs[i].name, name))
      return &tl_py_sigs[i];
  return NULL;
}

static bool is_int_tensor(PyObject *o)
{
  if (!tl_py_is_tensor(o))
    return false;
  tl_dtype d = tl_py_t(o)->dtype;
  return d != TL_DTYPE_BOOL && !tl_dtype_is_float(d) && !tl_dtype_is_complex(d);
}

/* ---- normalising one argument ------------------------------------------------------
 * Each returns a new reference to the normal form, NULL with no error when
 * o is already normal (or not an int at all: the op rejects it), or NULL
 * with an error. */

static PyObject *norm_int(PyObject *o)
{
  if (PyLong_CheckExact(o) || PyBool_Check(o) || o == Py_None)
    return NULL;
  if (tl_py_is_tensor(o))
    return is_int_tensor(o) && tl_py_t(o)->ndim == 0 ? PyNumber_Index(o) : NULL;
  if (PyLong_Check(o) || (PyIndex_Check(o) && !PyFloat_Check(o)))
    return PyNumber_Index(o); /* NumPy ints, int subclasses */
  return NULL;
}

/* An integer tensor of one element and at least one dim: PyTorch's int-list
 * parser takes it as that element (zeros(t([[2]]), 3)), its int parser does
 * not (narrow(0, t([1]), 1) is refused), so int lists ask this and ints do not. */
static bool is_one_int_tensor(PyObject *o)
{
  return is_int_tensor(o) && tl_py_t(o)->ndim > 0 && tl_tensor_numel(tl_py_t(o)) == 1;
}

/* An int list's item normalised: norm_int's forms, and a one-element tensor
 * as its Python int. */
static PyObject *norm_list_item(PyObject *o)
{
  return is_one_int_tensor(o) ? PyObject_CallMethod(o, "item", NULL) : norm_int(o);
}

static PyObject *norm_int_list(PyObject *o, bool nested);

/* A sequence's items normalised: the same kind of sequence when one changed. */
static PyObject *norm_items(PyObject *seq, bool nested)
{
  PyObject *fast = PySequence_Fast(seq, "");
  if (!fast)
    return NULL;
  Py_ssize_t n = PySequence_Fast_GET_SIZE(fast);
  PyObject **items = PySequence_Fast_ITEMS(fast), *copy = NULL;
  for (Py_ssize_t i = 0; i < n; i++) {
    /* a bool after the first item is taken as an int (int_items): the
     * recorded call holds the int, as the formulas read ints back */
    PyObject *v = nested                            ? norm_int_list(items[i], true)
                  : i > 0 && PyBool_Check(items[i]) ? PyLong_FromLong(items[i] == Py_True)
                                                    : norm_list_item(items[i]);
    if (!v && PyErr_Occurred())
      goto fail;
    if (!v)
      continue;
    if (!copy) {
      if (!(copy = PyList_New(n))) {
        Py_DECREF(v);
        goto fail;
      }
      for (Py_ssize_t k = 0; k < n; k++)
        PyList_SET_ITEM(copy, k, Py_NewRef(items[k]));
    }
    PyList_SetItem(copy, i, v); /* steals v */
  }
  Py_DECREF(fast);
  if (copy && !PyList_Check(seq))
    Py_SETREF(copy, PyList_AsTuple(copy));
  return copy;
fail:
  Py_XDECREF(copy);
  Py_DECREF(fast);
  return NULL;
}

static PyObject *norm_int_list(PyObject *o, bool nested)
{
  if (is_int_tensor(o) && tl_py_t(o)->ndim == 1) {
    PyObject *items = PySequence_Tuple(o); /* 0-d tensors */
    if (!items)
      return NULL;
    PyObject *r = norm_items(items, false);
    Py_DECREF(items);
    return r;
  }
  if (PyList_Check(o) || PyTuple_Check(o))
    return norm_items(o, nested);
  /* a 1-d ndarray or another sized sequence (NumPy's own code reshapes by
   * np.ones(n, dtype=int)); an ndarray has __index__ too, which only its
   * 0-d form takes, so ask for a length first */
  if (!tl_py_is_tensor(o) && !PyLong_Check(o) && !PyUnicode_Check(o) && !PyBytes_Check(o) &&
      PySequence_Check(o)) {
    if (PySequence_Size(o) >= 0)
      return norm_items(o, nested);
    PyErr_Clear();
  }
  return norm_list_item(o);
}

static PyObject *norm_arg(tl_py_arg_kind kind, PyObject *o)
{
  switch (kind) {
  case TL_PY_ARG_INT:
    return norm_int(o);
  case TL_PY_ARG_INT_LIST:
  case TL_PY_ARG_INT_VARARGS:
    return norm_int_list(o, false);
  case TL_PY_ARG_INT_NESTED:
    return norm_int_list(o, true);
  case TL_PY_ARG_INT_OR_TENSOR:
    return tl_py_is_tensor(o) ? NULL : norm_int(o);
  default:
    return NULL;
  }
}

/* ---- normalising a call -------------------------------------------------------------- */

/* The kind of positional argument i: past the declared positionals, the
 * items of a trailing int... parameter. */
static tl_py_arg_kind positional_kind(const tl_py_sig *sig, Py_ssize_t i)
{
  if (i < sig->npos)
    return sig->params[i].kind;
  if (sig->npos > 0 && sig->params[sig->npos - 1].kind == TL_PY_ARG_INT_VARARGS)
    return TL_PY_ARG_INT;
  return TL_PY_ARG_ANY;
}

/* Is positional argument i one item of a trailing int... parameter given as
 * several (view(t([2]), 3)) rather than the whole list (view((2, 3)))? */
static bool varargs_item(const tl_py_sig *sig, Py_ssize_t i, Py_ssize_t nargs)
{
  return sig->npos > 0 && sig->params[sig->npos - 1].kind == TL_PY_ARG_INT_VARARGS &&
         i >= sig->npos - 1 && nargs > sig->npos;
}

static tl_py_arg_kind keyword_kind(const tl_py_sig *sig, PyObject *kwname)
{
  const char *key = PyUnicode_AsUTF8(kwname);
  if (!key) {
    PyErr_Clear(); /* the op's own parsing reports it */
    return TL_PY_ARG_ANY;
  }
  const char *alias = tl_py_kw_alias(key);
  for (int i = 0; i < sig->nparams; i++)
    if (!strcmp(sig->params[i].name, key) || (alias && !strcmp(sig->params[i].name, alias)))
      return sig->params[i].kind;
  return TL_PY_ARG_ANY;
}

void tl_py_sig_args_free(PyObject **args, Py_ssize_t n)
{
  if (!args)
    return;
  for (Py_ssize_t i = 0; i < n; i++)
    Py_XDECREF(args[i]);
  PyMem_Free(args);
}

int tl_py_sig_normalize(const tl_py_sig *sig, PyObject *const *args, Py_ssize_t nargs,
                        PyObject *kwnames, PyObject ***normalized)
{
  Py_ssize_t nall = nargs + (kwnames ? PyTuple_GET_SIZE(kwnames) : 0);
  PyObject **copy = NULL;
  *normalized = NULL;
  for (Py_ssize_t i = 0; i < nall; i++) {
    tl_py_arg_kind kind = i < nargs ? positional_kind(sig, i)
                                    : keyword_kind(sig, PyTuple_GET_ITEM(kwnames, i - nargs));
    PyObject *v = i < nargs && varargs_item(sig, i, nargs) ? norm_list_item(args[i])
                                                           : norm_arg(kind, args[i]);
    if (!v && PyErr_Occurred())
      goto fail;
    if (!v)
      continue;
    if (!copy) {
      if (!(copy = PyMem_Calloc((size_t)nall, sizeof(PyObject *)))) {
        Py_DECREF(v);
        PyErr_NoMemory();
        goto fail;
      }
      for (Py_ssize_t k = 0; k < nall; k++)
        copy[k] = Py_NewRef(args[k]);
    }
    Py_SETREF(copy[i], v);
  }
  *normalized = copy;
  return 0;
fail:
  tl_py_sig_args_free(copy, nall);
  return -1;
}

/* ---- torchlike._C._signatures() ------------------------------------------------------- */

static const char *const kind_names[] = {
    [TL_PY_ARG_TENSOR] = "Tensor",        [TL_PY_ARG_TENSOR_LIST] = "Tensor[]",
    [TL_PY_ARG_INT] = "int",              [TL_PY_ARG_INT_LIST] = "int[]",
    [TL_PY_ARG_INT_VARARGS] = "int...",   [TL_PY_ARG_INT_NESTED] = "int[][]",
    [TL_PY_ARG_INT_OR_TENSOR] = "int|Tensor", [TL_PY_ARG_BOOL] = "bool",
    [TL_PY_ARG_TENSOR_VARARGS] = "Tensor...", [TL_PY_ARG_TENSOR_SPREAD] = "*Tensor",
    [TL_PY_ARG_INT_LIST_SPREAD] = "*int[]",
    [TL_PY_ARG_FLOAT] = "float",          [TL_PY_ARG_SCALAR] = "Scalar",
    [TL_PY_ARG_STR] = "str",              [TL_PY_ARG_DTYPE] = "dtype",
    [TL_PY_ARG_DEVICE] = "device",        [TL_PY_ARG_GENERATOR] = "Generator",
    [TL_PY_ARG_MEMORY_FORMAT] = "memory_format",
    [TL_PY_ARG_ANY] = "any",
};

static PyObject *param_tuple(const tl_py_param *p)
{
  return Py_BuildValue("(ssOzO)", p->name, kind_names[p->kind],
                       p->flags & TL_PY_ARG_OPTIONAL ? Py_True : Py_False, p->dflt,
                       p->flags & TL_PY_ARG_KWONLY ? Py_True : Py_False);
}

PyObject *tl_py_signatures(PyObject *self, PyObject *unused)
{
  (void)self;
  (void)unused;
  PyObject *r = PyList_New(tl_py_sig_count);
  for (int i = 0; r && i < tl_py_sig_count; i++) {
    const tl_py_sig *s = &tl_py_sigs[i];
    PyObject *params = PyList_New(s->nparams);
    for (int k = 0; params && k < s->nparams; k++) {
      PyObject *p = param_tuple(&s->params[k]);
      if (!p)
        Py_CLEAR(params);
      else
        PyList_SET_ITEM(params, k, p);
    }
    PyObject *entry = params ? Py_BuildValue("(ssNs)", s->name, s->family, params, s->text) : NULL;
    if (!entry)
      Py_CLEAR(r);
    else
      PyList_SET_ITEM(r, i, entry);
  }
  return r;
}

/* ---- typed arguments --------------------------------------------------------------- */

int tl_py_arg_missing(const char *func, const char *name)
{
  PyErr_Format(PyExc_TypeError, "%s() missing required argument '%s'", func, name);
  return -1;
}

int tl_py_arg_tensor_slow(const char *func, const char *name, PyObject *o)
{
  PyErr_Format(PyExc_TypeError, "%s(): argument '%s' must be Tensor, not %s", func, name,
               Py_TYPE(o)->tp_name);
  return -1;
}

int tl_py_arg_out_slow(const char *func, PyObject *o)
{
  const tl_storage *s = tl_py_t(o)->storage;
  if (s->readonly) {
    PyErr_Format(PyExc_ValueError, "%s(): output tensor is read-only", func);
    return -1;
  }
  if (tl_storage_check_write(s) != TL_OK) {
    tl_py_raise();
    return -1;
  }
  return 0;
}

/* o as an int64: a Python int (not a bool), a NumPy int or a 0-d int tensor. */
static int int_value(PyObject *o, int64_t *v)
{
  if (PyLong_CheckExact(o)) { /* the common case first */
    long long x = PyLong_AsLongLong(o);
    *v = x;
    return x == -1 && PyErr_Occurred() ? -1 : 0;
  }
  if (PyBool_Check(o) || !PyIndex_Check(o) ||
      (tl_py_is_tensor(o) && (!is_int_tensor(o) || tl_py_t(o)->ndim != 0)))
    return 1; /* not an int: the caller names what was expected */
  long long x = PyLong_AsLongLong(o);
  if (x == -1 && PyErr_Occurred())
    return -1;
  *v = x;
  return 0;
}

/* An int list's item as an int64: int_value's forms, or a one-element
 * integer tensor of any dims (is_one_int_tensor). */
static int int_list_item(PyObject *o, int64_t *v)
{
  if (!is_one_int_tensor(o))
    return int_value(o, v);
  PyObject *item = PyObject_CallMethod(o, "item", NULL);
  long long x = item ? PyLong_AsLongLong(item) : -1;
  Py_XDECREF(item);
  if (x == -1 && PyErr_Occurred())
    return -1;
  *v = x;
  return 0;
}

int tl_py_arg_int_slow(const char *func, const char *name, PyObject *o, bool required,
                       int64_t *v, bool *given)
{
  if (!o || o == Py_None) {
    if (given)
      *given = false;
    return required ? tl_py_arg_missing(func, name) : 0;
  }
  int r = int_value(o, v);
  if (r > 0)
    PyErr_Format(PyExc_TypeError, "%s(): argument '%s' must be int, not %s", func, name,
                 Py_TYPE(o)->tp_name);
  if (r == 0 && given)
    *given = true;
  return r ? -1 : 0;
}

/* The n items of a sequence of ints, each converted by int_value; a bool
 * after the first item is 0 or 1.  PyTorch's int-list parser checks the
 * first item's type and reads the rest as Python ints, so zeros((2, True))
 * is (2, 1) and zeros((True, 2)) is refused. */
static int int_items(const char *func, const char *name, PyObject *const *items, Py_ssize_t n,
                     int64_t *out)
{
  for (Py_ssize_t i = 0; i < n; i++) {
    int r = i > 0 && PyBool_Check(items[i]) ? (out[i] = items[i] == Py_True, 0)
                                            : int_list_item(items[i], &out[i]);
    if (r > 0)
      PyErr_Format(PyExc_TypeError, "%s%sargument '%s' must be a sequence of ints, but "
                   "element %zd is %s", func ? func : "", func ? "(): " : "", name, i,
                   Py_TYPE(items[i])->tp_name);
    if (r)
      return -1;
  }
  return 0;
}

/* Is o a sequence of ints rather than one: a tuple, list or 1-d integer
 * tensor, or another sized sequence (a range, a 1-d ndarray; a 0-d ndarray
 * has no length and is one int). */
static bool int_sequence(PyObject *o)
{
  if (PyTuple_Check(o) || PyList_Check(o))
    return true;
  if (tl_py_is_tensor(o))
    return is_int_tensor(o) && tl_py_t(o)->ndim == 1;
  if (PyLong_Check(o) || PyUnicode_Check(o) || PyBytes_Check(o) || !PySequence_Check(o))
    return false;
  if (PySequence_Size(o) >= 0)
    return true;
  PyErr_Clear();
  return false;
}

int tl_py_arg_ints_slow(const char *func, const char *name, PyObject *o, tl_py_ints *v)
{
  v->n = 0;
  v->given = v->one = false;
  bool seq = int_sequence(o);
  int r = seq ? 1 : int_list_item(o, &v->v[0]);
  if (r <= 0) { /* one int */
    v->given = v->one = r == 0;
    v->n = r == 0;
    return r;
  }
  PyObject *fast = seq ? PySequence_Fast(o, "") : NULL;
  if (!fast) {
    if (!PyErr_Occurred())
      PyErr_Format(PyExc_TypeError, "%s%sargument '%s' must be an int or a sequence of ints, "
                   "not %s", func ? func : "", func ? "(): " : "", name, Py_TYPE(o)->tp_name);
    return -1;
  }
  Py_ssize_t n = PySequence_Fast_GET_SIZE(fast);
  r = 0;
  if (n > TL_PY_MAX_INTS) {
    PyErr_Format(PyExc_ValueError, "%s%sargument '%s' has %zd ints, more than the %d allowed",
                 func ? func : "", func ? "(): " : "", name, n, TL_PY_MAX_INTS);
    r = -1;
  }
  if (r == 0)
    r = int_items(func, name, PySequence_Fast_ITEMS(fast), n, v->v);
  Py_DECREF(fast);
  v->n = (int)n;
  v->given = r == 0;
  return r;
}

int tl_py_arg_bool_slow(const char *func, const char *name, PyObject *o, bool *v)
{
  bool ok = PyBool_Check(o) || PyLong_Check(o) || !strcmp(Py_TYPE(o)->tp_name, "numpy.bool") ||
            (tl_py_is_tensor(o) && tl_py_t(o)->ndim == 0 &&
             (is_int_tensor(o) || tl_py_t(o)->dtype == TL_DTYPE_BOOL));
  if (!ok) {
    PyErr_Format(PyExc_TypeError, "%s(): argument '%s' must be bool, not %s", func, name,
                 Py_TYPE(o)->tp_name);
    return -1;
  }
  int r = PyObject_IsTrue(o);
  if (r < 0)
    return -1;
  *v = r;
  return 0;
}

/* None for a parameter that may not be None (given is NULL there): its
 * default would stay, or for a required one nothing would be set. */
static int none_refused(const char *func, const char *name)
{
  PyErr_Format(PyExc_TypeError, "%s(): argument '%s' must be a number, not NoneType", func, name);
  return -1;
}

int tl_py_arg_float(const char *func, const char *name, PyObject *o, double *v, bool *given)
{
  if (given)
    *given = false;
  if (o == Py_None && !given)
    return none_refused(func, name);
  if (!o || o == Py_None)
    return 0;
  double x = PyFloat_AsDouble(o);
  if (x == -1.0 && PyErr_Occurred()) {
    if (!PyErr_ExceptionMatches(PyExc_TypeError))
      return -1;
    PyErr_Clear();
    PyErr_Format(PyExc_TypeError, "%s(): argument '%s' must be a number, not %s", func, name,
                 Py_TYPE(o)->tp_name);
    return -1;
  }
  *v = x;
  if (given)
    *given = true;
  return 0;
}

int tl_py_arg_str(const char *func, const char *name, PyObject *o, const char **v)
{
  if (!o || o == Py_None)
    return 0;
  if (!PyUnicode_Check(o)) {
    PyErr_Format(PyExc_TypeError, "%s(): argument '%s' must be str, not %s", func, name,
                 Py_TYPE(o)->tp_name);
    return -1;
  }
  return (*v = PyUnicode_AsUTF8(o)) ? 0 : -1;
}

int tl_py_arg_dtype_slow(const char *func, const char *name, PyObject *o, int *dtype)
{
  tl_dtype d;
  if (o == Py_None || tl_py_parse_dtype(o, &d) < 0) {
    if (o == Py_None || PyErr_ExceptionMatches(PyExc_TypeError)) { /* name the argument */
      PyErr_Clear();
      PyErr_Format(PyExc_TypeError, "%s(): argument '%s' must be torchlike.dtype, not %s", func,
                   name, Py_TYPE(o)->tp_name);
    }
    return -1;
  }
  *dtype = (int)d;
  return 0;
}

int tl_py_arg_scalar(const char *func, const char *name, PyObject *o, tl_scalar *v, bool *given)
{
  if (given)
    *given = false;
  if (o == Py_None && !given)
    return none_refused(func, name);
  if (!o || o == Py_None)
    return 0;
  if (tl_py_number_arg(func, name, o, v) < 0)
    return -1;
  if (given)
    *given = true;
  return 0;
}

int tl_py_arg_bool_given(const char *func, const char *name, PyObject *o, bool *v, bool *given)
{
  *given = o && o != Py_None;
  return tl_py_arg_bool(func, name, o, v);
}

int tl_py_arg_int_or_tensor(const char *func, const char *name, PyObject *o, int64_t *v,
                            PyObject **t, bool *given)
{
  *t = NULL;
  if (o && tl_py_is_tensor(o)) {
    *t = o;
    *given = true;
    return 0;
  }
  return tl_py_arg_int(func, name, o, false, v, given);
}

int tl_py_arg_intvec(const char *func, const char *name, PyObject *o, tl_py_intvec *v)
{
  v->v = v->small;
  v->n = 0;
  v->given = v->one = false;
  if (!o || o == Py_None)
    return 0;
  if (!int_sequence(o)) {
    int r = int_list_item(o, &v->small[0]);
    if (r > 0)
      PyErr_Format(PyExc_TypeError, "%s(): argument '%s' must be an int or a sequence of ints, "
                   "not %s", func, name, Py_TYPE(o)->tp_name);
    v->given = v->one = r == 0;
    v->n = r == 0;
    return r ? -1 : 0;
  }
  PyObject *fast = PySequence_Fast(o, "");
  if (!fast)
    return -1;
  Py_ssize_t n = PySequence_Fast_GET_SIZE(fast);
  int r = 0;
  if (n > TL_PY_MAX_INTS && !(v->v = PyMem_Malloc((size_t)n * sizeof *v->v))) {
    v->v = v->small;
    PyErr_NoMemory();
    r = -1;
  }
  if (r == 0)
    r = int_items(func, name, PySequence_Fast_ITEMS(fast), n, v->v);
  Py_DECREF(fast);
  v->n = r == 0 ? n : 0;
  v->given = r == 0;
  if (r < 0)
    tl_py_intvec_release(v);
  return r;
}

int tl_py_arg_intvec_or_tensor(const char *func, const char *name, PyObject *o, tl_py_intvec *v,
                               PyObject **t)
{
  *t = o && tl_py_is_tensor(o) ? o : NULL;
  if (!*t)
    return tl_py_arg_intvec(func, name, o, v);
  v->v = v->small;
  v->n = 0;
  v->given = true;
  v->one = false;
  return 0;
}

void tl_py_intvec_release(tl_py_intvec *v)
{
  if (v->v && v->v != v->small)
    PyMem_Free(v->v);
  v->v = NULL;
}

int tl_py_arg_tensorlike(const char *func, const char *name, PyObject *o, bool optional,
                         tl_py_tensorlike *v)
{
  bool weak;
  v->t = NULL;
  v->owned = false;
  if (!o || o == Py_None)
    return optional ? 0 : tl_py_arg_missing(func, name);
  if (tl_py_is_tensor(o)) {
    v->t = tl_py_t(o);
    return 0;
  }
  if (tl_py_to_tensor(o, -1, false, &v->converted, &weak) < 0)
    return -1;
  v->owned = true;
  v->t = &v->converted;
  return 0;
}

void tl_py_tensorlike_release(tl_py_tensorlike *v)
{
  if (v->owned)
    tl_tensor_release(&v->converted);
  v->owned = false;
}

int tl_py_arg_ints_or_tensor(const char *func, const char *name, PyObject *o, tl_py_ints *v,
                             PyObject **t)
{
  *t = o && tl_py_is_tensor(o) ? o : NULL;
  if (*t) {
    v->n = 0;
    v->given = true;
    v->one = false;
    return 0;
  }
  return tl_py_arg_ints(func, name, o, v);
}

/* Past this many keywords a spread call is refused (they are copied on the stack). */
#define TL_PY_MAX_KEYWORDS 16

/* Bind args[0..k) and the keywords (whose values follow all nargs
 * positionals in a vectorcall) as tl_py_bind_args would with k positionals:
 * the keywords are copied next to the first k. */
static int bind_head(const char *func, PyObject *const *args, Py_ssize_t nargs, int k,
                     PyObject *kwnames, const char *const *names, int npos, int nrequired,
                     PyObject **values)
{
  Py_ssize_t nkw = kwnames ? PyTuple_GET_SIZE(kwnames) : 0;
  PyObject *stack[TL_PY_MAX_KEYWORDS + 4];
  if (nkw > TL_PY_MAX_KEYWORDS || k > 4) {
    PyErr_Format(PyExc_TypeError, "%s() got too many arguments", func);
    return -1;
  }
  for (int i = 0; i < k; i++)
    stack[i] = args[i];
  for (Py_ssize_t i = 0; i < nkw; i++)
    stack[k + i] = args[nargs + i];
  return tl_py_bind_args(func, stack, k, kwnames, names, npos, nrequired < k ? nrequired : k,
                         values);
}

int tl_py_bind_varargs(const char *func, PyObject *const *args, Py_ssize_t nargs,
                       PyObject *kwnames, const char *const *names, int npos, int nrequired,
                       PyObject **values, PyObject *const **spread, Py_ssize_t *nspread)
{
  int k = npos - 1; /* the int... parameter */
  *spread = NULL;
  *nspread = 0;
  if (nargs <= npos) {
    int n = npos;
    while (names[n])
      n++;
    return tl_py_bind(func, args, nargs, kwnames, names, n, npos, nrequired, values);
  }
  if (bind_head(func, args, nargs, k, kwnames, names, npos, nrequired, values) < 0)
    return -1;
  if (values[k]) {
    PyErr_Format(PyExc_TypeError, "%s() got multiple values for argument '%s'", func, names[k]);
    return -1;
  }
  for (int i = k + 1; i < nrequired; i++)
    if (!values[i])
      return tl_py_arg_missing(func, names[i]);
  *spread = args + k;
  *nspread = nargs - k;
  return 0;
}

int tl_py_bind_spread(const char *func, PyObject *const *args, Py_ssize_t nargs,
                      PyObject *kwnames, const char *const *names, int k, int nrequired,
                      PyObject **values, PyObject *const **spread, Py_ssize_t *nspread)
{
  Py_ssize_t head = nargs < k ? nargs : k;
  if (!kwnames) { /* the common call */
    for (int i = 0; names[i]; i++)
      values[i] = i < head ? args[i] : NULL;
    if (head < nrequired)
      return tl_py_arg_missing(func, names[head]);
  } else if (bind_head(func, args, nargs, (int)head, kwnames, names, k, nrequired, values) < 0) {
    return -1;
  }
  if (values[k]) { /* Python's *tensors takes no keyword either */
    PyErr_Format(PyExc_TypeError, "%s() got an unexpected keyword argument '%s'", func, names[k]);
    return -1;
  }
  *spread = args + head;
  *nspread = nargs - head;
  return 0;
}

int tl_py_arg_int_varargs(const char *func, const char *name, PyObject *o,
                          PyObject *const *spread, Py_ssize_t nspread, tl_py_ints *v)
{
  if (!spread)
    return tl_py_arg_ints(func, name, o, v);
  v->n = 0;
  v->given = true;
  v->one = false;
  if (nspread > TL_PY_MAX_INTS) {
    PyErr_Format(PyExc_ValueError, "%s(): argument '%s' has %zd ints, more than the %d allowed",
                 func, name, nspread, TL_PY_MAX_INTS);
    return -1;
  }
  if (int_items(func, name, spread, nspread, v->v) < 0)
    return -1;
  v->n = (int)nspread;
  return 0;
}

/* "Tensor", or the type's name, for the message of tl_py_no_overload. */
static PyObject *arg_type_name(PyObject *o)
{
  return PyUnicode_FromString(tl_py_is_tensor(o) ? "Tensor" : Py_TYPE(o)->tp_name);
}

PyObject *tl_py_no_overload(const char *func, PyObject *const *args, Py_ssize_t nargs,
                            PyObject *kwnames, const char *const *overloads, int n)
{
  if (!PyErr_ExceptionMatches(PyExc_TypeError))
    return NULL;
  PyErr_Clear();
  Py_ssize_t nkw = kwnames ? PyTuple_GET_SIZE(kwnames) : 0;
  PyObject *got = PyList_New(0), *sep = PyUnicode_FromString(", "), *joined = NULL;
  for (Py_ssize_t i = 0; got && i < nargs + nkw; i++) {
    PyObject *type = arg_type_name(args[i]), *item = type;
    if (type && i >= nargs) /* a keyword: name=type, as PyTorch writes it */
      item = PyUnicode_FromFormat("%U=%U", PyTuple_GET_ITEM(kwnames, i - nargs), type);
    if (!item || PyList_Append(got, item) < 0)
      Py_CLEAR(got);
    if (item != type)
      Py_XDECREF(item);
    Py_XDECREF(type);
  }
  if (got && sep && (joined = PyUnicode_Join(sep, got))) {
    PyObject *expected = PyUnicode_FromString("");
    for (int i = 0; expected && i < n; i++)
      Py_SETREF(expected, PyUnicode_FromFormat("%U\n * %s", expected, overloads[i]));
    if (expected)
      PyErr_Format(PyExc_TypeError, "%s() received an invalid combination of arguments - got "
                   "(%U), but expected one of:%U", func, joined, expected);
    Py_XDECREF(expected);
  }
  Py_XDECREF(joined);
  Py_XDECREF(sep);
  Py_XDECREF(got);
  return NULL;
}

/* ---- lists of tensors --------------------------------------------------------------- */

/* v's tensors from items (borrowed; kept alive by the caller or v->seq). */
static int tensor_items(const char *func, PyObject *const *items, Py_ssize_t n, tl_py_tensors *v)
{
  if (n > INT32_MAX) {
    PyErr_Format(PyExc_ValueError, "%s(): too many tensors (%zd)", func, n);
    return -1;
  }
  v->t = n <= (Py_ssize_t)(sizeof v->small / sizeof *v->small) ? v->small
                                                                 : PyMem_Malloc((size_t)n * sizeof *v->t);
  if (!v->t) {
    PyErr_NoMemory();
    return -1;
  }
  for (Py_ssize_t i = 0; i < n; i++) {
    if (!tl_py_is_tensor(items[i])) { /* PyTorch's wording, with the function named */
      PyErr_Format(PyExc_TypeError, "%s(): expected Tensor as element %zd in argument 0, but got "
                   "%s", func, i, Py_TYPE(items[i])->tp_name);
      return -1;
    }
    v->t[i] = tl_py_t(items[i]);
  }
  v->n = (int)n;
  return 0;
}

/* The items of a list or tuple o, in a tuple of v's own. */
static int tensor_seq(const char *func, PyObject *o, tl_py_tensors *v)
{
  v->seq = PySequence_Tuple(o);
  return v->seq ? tensor_items(func, PySequence_Fast_ITEMS(v->seq), PyTuple_GET_SIZE(v->seq), v)
                : -1;
}

int tl_py_arg_tensors(const char *func, const char *name, PyObject *o, tl_py_tensors *v)
{
  v->one = false;
  if (!o)
    return tl_py_arg_missing(func, name);
  if (!tl_py_is_tensor(o) && tensor_seq(func, o, v) == 0)
    return 0;
  if (!v->seq) { /* not a sequence at all (a tensor is not a list of its rows here) */
    PyErr_Clear();
    PyErr_Format(PyExc_TypeError, "%s(): argument '%s' must be a tuple or list of Tensors, not %s",
                 func, name, Py_TYPE(o)->tp_name);
  }
  return -1;
}

int tl_py_arg_tensor_spread(const char *func, PyObject *const *spread, Py_ssize_t n, bool seq_ok,
                            tl_py_tensors *v)
{
  v->one = n == 1 && tl_py_is_tensor(spread[0]);
  if (seq_ok && n == 1 && (PyTuple_Check(spread[0]) || PyList_Check(spread[0])))
    return tensor_seq(func, spread[0], v);
  return tensor_items(func, spread, n, v);
}

void tl_py_tensors_release(tl_py_tensors *v)
{
  if (v->t && v->t != v->small)
    PyMem_Free(v->t);
  v->t = NULL;
  Py_CLEAR(v->seq);
}

const char *tl_py_op_name(tl_op op, bool inplace)
{
  /* filled once per op, under the GIL (binders hold it) */
  static char names[TL_OP_COUNT][48];
  if (!inplace)
    return tl_op_infos[op].name;
  if (!names[op][0])
    snprintf(names[op], sizeof names[op], "%s_", tl_op_infos[op].name);
  return names[op];
}

int tl_py_ints_dims(const tl_py_ints *dims, int ndim, uint64_t *mask)
{
  if (!dims->given) {
    *mask = ndim ? ~(uint64_t)0 >> (64 - ndim) : 0;
    return 0;
  }
  *mask = 0;
  for (int i = 0; i < dims->n; i++) {
    int w;
    if (tl_dim_wrap(dims->v[i], ndim, &w) != TL_OK)
      return tl_py_raise_int();
    if (*mask >> w & 1) {
      PyErr_Format(PyExc_RuntimeError, "dim %d appears multiple times in the list of dims", w);
      return -1;
    }
    *mask |= (uint64_t)1 << w;
  }
  return 0;
}

int tl_py_parse_dims(PyObject *dim, int ndim, uint64_t *mask)
{
  tl_py_ints dims;
  if (tl_py_arg_ints(NULL, "dim", dim, &dims) < 0)
    return -1;
  return tl_py_ints_dims(&dims, ndim, mask);
}
