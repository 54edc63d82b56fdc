/* py_spelling.c - Tensor methods that speak both PyTorch and NumPy.
 *
 * A few Tensor methods mean different things in the two libraries (x.max(0)
 * is a (values, indices) pair, x.max(axis=0) NumPy's values).  torchlike/
 * _ndarray.py wraps each such method in a `_C._Spelled`: a callable that
 * looks at how the call is spelled -- keyword names, argument count, the
 * type of one argument -- and forwards the arguments untouched, by
 * vectorcall, either to the original method or to the NumPy-meaning Python
 * function.  The decision is a few comparisons in C, so PyTorch's spelling
 * (x.view(-1), x.transpose(0, 1) in every model's forward) costs about what
 * the original method does; a Python-level wrapper had cost it 5x.
 *
 * Rules (SPELL_*), with args[0] the tensor:
 *   KEYWORDS    any keyword of the given names          (axis=, ddof=, order= ...)
 *   TRANSPOSE   axes=, or no keywords and not exactly two dims
 *   CUMULATIVE  axis=, or no dim at all (NumPy flattens; PyTorch refuses)
 *   VIEW        dtype=, one argument naming a NumPy dtype (a type, a
 *               string, an np.dtype), or no argument
 *   DOT         out=/b=, or anything but two 1-d tensors (PyTorch's dot refuses
 *               the rest)
 *   TAKE        axis=/out=/mode=, several arguments, or indices that are not
 *               a tensor
 *   INTEGRAL    the tensor is bool or integer (x.mean() of counts or masks:
 *               NumPy gives float64, PyTorch refuses the dtype), and no
 *               keyword only PyTorch has (dim=, keepdim=, correction=,
 *               unbiased=) is given
 *   ARGUMENTS   any argument besides the tensor (x.ravel('F'): PyTorch's
 *               ravel takes none, so the plain call skips a Python frame)
 * A call whose first argument is not a tensor always goes to the original,
 * which raises its usual error.
 *
 * ATTRIBUTE is the one collision of an attribute with a method: x.size is an
 * int in NumPy and a method in PyTorch.  Calling it (x.size(), x.size(0)) runs
 * the method from C: Python calls a method descriptor straight from the type,
 * with the tensor as first argument, without reading the attribute.  Reading
 * it (x.size, 0.5 * x.size) gives numpy_call(x): an int that can also be
 * called, for the places that read first and call later (f = x.size; f(0),
 * an assert rewritten by pytest). */
#include "ndcore/bindings/py_tensor.h"
#include "ndcore/bindings/py_numpy.h"

typedef enum {
  SPELL_KEYWORDS,
  SPELL_TRANSPOSE,
  SPELL_CUMULATIVE,
  SPELL_VIEW,
  SPELL_DOT,
  SPELL_TAKE,
  SPELL_ATTRIBUTE,
  SPELL_INTEGRAL,
  SPELL_ARGUMENTS,
  SPELL_COUNT
} spell_rule;

typedef struct {
  PyObject_HEAD
  PyObject *original;   /* the PyTorch-meaning method */
  PyObject *numpy_call; /* f(tensor, *args, **kwargs) with NumPy's meaning */
  PyObject *keywords;   /* tuple of str: keywords that select NumPy's meaning */
  spell_rule rule;
  vectorcallfunc vectorcall;
} spelled;

static bool has_keyword(PyObject *kwnames, PyObject *names)
{
  Py_ssize_t nk = kwnames ? PyTuple_GET_SIZE(kwnames) : 0;
  for (Py_ssize_t i = 0; i < nk; i++)
    for (Py_ssize_t j = 0; j < PyTuple_GET_SIZE(names); j++)
      if (PyUnicode_Compare(PyTuple_GET_ITEM(kwnames, i), PyTuple_GET_ITEM(names, j)) == 0)
        return true;
  return false;
}

static bool has_named(PyObject *kwnames, const char *name)
{
  Py_ssize_t nk = kwnames ? PyTuple_GET_SIZE(kwnames) : 0;
  for (Py_ssize_t i = 0; i < nk; i++)
    if (PyUnicode_CompareWithASCIIString(PyTuple_GET_ITEM(kwnames, i), name) == 0)
      return true;
  return false;
}

static bool is_1d_tensor(PyObject *o) { return tl_py_is_tensor(o) && tl_py_t(o)->ndim == 1; }

/* Is this call spelled the NumPy way?  args[0] is a tensor; nargs counts it. */
static bool numpy_spelling(const spelled *s, PyObject *const *args, Py_ssize_t nargs,
                           PyObject *kwnames)
{
  Py_ssize_t nk = kwnames ? PyTuple_GET_SIZE(kwnames) : 0;
  if (has_keyword(kwnames, s->keywords))
    return true;
  switch (s->rule) {
  case SPELL_TRANSPOSE:
    return nk == 0 && nargs != 3;
  case SPELL_CUMULATIVE: /* no dim, or None: the flattened array (PyTorch wants an int) */
    return (nargs == 1 && !has_named(kwnames, "dim")) || (nargs >= 2 && args[1] == Py_None);
  case SPELL_VIEW: /* x.view() alone: NumPy's new view (PyTorch wants a shape) */
    return (nargs == 1 && nk == 0) || (nargs == 2 && nk == 0 &&
           (PyType_Check(args[1]) || PyUnicode_Check(args[1]) ||
            PyObject_TypeCheck(args[1], &PyArrayDescr_Type)));
  case SPELL_DOT:
    if (has_named(kwnames, "tensor")) /* PyTorch's keyword for the other vector */
      return false;
    return !is_1d_tensor(args[0]) || nargs != 2 || !is_1d_tensor(args[1]);
  case SPELL_TAKE:
    return nargs > 2 || (nargs == 2 && !tl_py_is_tensor(args[1]));
  case SPELL_INTEGRAL: /* PyTorch's keywords keep PyTorch's method, and its error */
    return tl_dtype_is_integral(tl_py_t(args[0])->dtype) && !has_named(kwnames, "dim") &&
           !has_named(kwnames, "keepdim") && !has_named(kwnames, "correction") &&
           !has_named(kwnames, "unbiased");
  case SPELL_ARGUMENTS:
    return nargs > 1 || nk > 0;
  default:
    return false;
  }
}

static PyObject *spelled_vectorcall(PyObject *self, PyObject *const *args, size_t nargsf,
                                    PyObject *kwnames)
{
  spelled *s = (spelled *)self;
  Py_ssize_t nargs = PyVectorcall_NARGS(nargsf);
  bool numpy = nargs > 0 && tl_py_is_tensor(args[0]) && numpy_spelling(s, args, nargs, kwnames);
  return PyObject_Vectorcall(numpy ? s->numpy_call : s->original, args, nargsf, kwnames);
}

/* Bound like a Python function: x.view is a method of x; an ATTRIBUTE reads
 * as its value. */
static PyObject *spelled_get(PyObject *self, PyObject *obj, PyObject *type)
{
  (void)type;
  if (!obj || obj == Py_None)
    return Py_NewRef(self);
  if (((spelled *)self)->rule == SPELL_ATTRIBUTE)
    return PyObject_CallOneArg(((spelled *)self)->numpy_call, obj);
  return PyMethod_New(self, obj);
}

static PyObject *spelled_new(PyTypeObject *type, PyObject *args, PyObject *kwargs)
{
  static char *kwlist[] = {"original", "numpy_call", "rule", "keywords", NULL};
  PyObject *original, *numpy_call, *keywords = NULL;
  int rule;
  if (!PyArg_ParseTupleAndKeywords(args, kwargs, "OOi|O!:_Spelled", kwlist, &original,
                                   &numpy_call, &rule, &PyTuple_Type, &keywords))
    return NULL;
  if (rule < 0 || rule >= SPELL_COUNT)
    return PyErr_Format(PyExc_ValueError, "_Spelled: unknown rule %d", rule);
  spelled *s = (spelled *)type->tp_alloc(type, 0);
  if (!s)
    return NULL;
  s->original = Py_NewRef(original);
  s->numpy_call = Py_NewRef(numpy_call);
  s->keywords = keywords ? Py_NewRef(keywords) : PyTuple_New(0);
  s->rule = (spell_rule)rule;
  s->vectorcall = spelled_vectorcall;
  if (!s->keywords)
    Py_CLEAR(s);
  return (PyObject *)s;
}

static int spelled_traverse(PyObject *self, visitproc visit, void *arg)
{
  spelled *s = (spelled *)self;
  Py_VISIT(s->original);
  Py_VISIT(s->numpy_call);
  Py_VISIT(s->keywords);
  return 0;
}

static int spelled_clear(PyObject *self)
{
  spelled *s = (spelled *)self;
  Py_CLEAR(s->original);
  Py_CLEAR(s->numpy_call);
  Py_CLEAR(s->keywords);
  return 0;
}

static void spelled_dealloc(PyObject *self)
{
  PyObject_GC_UnTrack(self);
  spelled_clear(self);
  Py_TYPE(self)->tp_free(self);
}

/* The original's name and doc, so help(Tensor.view) reads as before. */
static PyObject *spelled_getattro(PyObject *self, PyObject *name)
{
  if (PyUnicode_Check(name) && (PyUnicode_CompareWithASCIIString(name, "__doc__") == 0 ||
                                PyUnicode_CompareWithASCIIString(name, "__name__") == 0))
    return PyObject_GetAttr(((spelled *)self)->original, name);
  return PyObject_GenericGetAttr(self, name);
}

static PyTypeObject spelled_type = {
    PyVarObject_HEAD_INIT(NULL, 0)
    .tp_name = "torchlike._C._Spelled",
    .tp_basicsize = sizeof(spelled),
    .tp_flags = Py_TPFLAGS_DEFAULT | Py_TPFLAGS_HAVE_GC | Py_TPFLAGS_HAVE_VECTORCALL |
                Py_TPFLAGS_METHOD_DESCRIPTOR,
    .tp_doc = "A Tensor method that takes NumPy's meaning when spelled the NumPy way.",
    .tp_new = spelled_new,
    .tp_dealloc = spelled_dealloc,
    .tp_traverse = spelled_traverse,
    .tp_clear = spelled_clear,
    .tp_call = PyVectorcall_Call,
    .tp_vectorcall_offset = offsetof(spelled, vectorcall),
    .tp_descr_get = spelled_get,
    .tp_getattro = spelled_getattro,
};

int tl_py_spelling_init(PyObject *m)
{
  if (PyType_Ready(&spelled_type) < 0 ||
      PyModule_AddObjectRef(m, "_Spelled", (PyObject *)&spelled_type) < 0)
    return -1;
  static const char *const names[SPELL_COUNT] = {"KEYWORDS", "TRANSPOSE", "CUMULATIVE",
                                                 "VIEW", "DOT", "TAKE", "ATTRIBUTE",
                                                 "INTEGRAL", "ARGUMENTS"};
  for (int i = 0; i < SPELL_COUNT; i++) {
    char key[32];
    snprintf(key, sizeof key, "_SPELL_%s", names[i]);
    if (PyModule_AddIntConstant(m, key, i) < 0)
      return -1;
  }
  return 0;
}
