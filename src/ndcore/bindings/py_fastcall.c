/* py_fastcall.c - namespace functions whose common call skips their wrapper.
 *
 * A function of torchlike.numpy is a Python wrapper around the code that does
 * the work: the wrapper takes what NumPy takes (lists, ndarrays, masked
 * arrays, out= by position) and runs the call on the device of its tensors.
 * The common call -- tensors on the CPU, nothing to convert -- needs none of
 * that, yet the wrapper's frames had doubled the cost of a small call.  A
 * `_C._DirectCall(direct, function, arity=0, retry=(), avoid=None)` decides
 * in C, forwarding the arguments untouched by vectorcall:
 *
 *   arity > 0   (elementwise functions, `direct` a core op): exactly `arity`
 *               positional arguments, each a tensor or a Python number, at
 *               least one a tensor, and no keywords go to `direct`;
 *   arity == 0  (functions registered with `implements`, `direct` their
 *               implementation): any call without a tensor off the CPU or an
 *               instance of avoid[0] (the masked array type, once
 *               registered) among its arguments, lists and tuples searched,
 *               while the default device is the CPU, goes to `direct`
 *               (with another default device, a call given numbers and
 *               lists only computes there: the wrapper decides); when it
 *               raises one of `retry` (the
 *               implementation cannot honour an argument), the call is made
 *               again through `function`, which takes the next route.
 *
 * Every other call goes to `function`, the Python wrapper.  The object stands
 * for it: its name, doc, module and signature (through __wrapped__) are the
 * function's, attributes can be set on it (np.add.reduce), and it pickles as
 * a reference to the module attribute it is stored in. */
#include "ndcore/bindings/py_tensor.h"

typedef struct {
  PyObject_HEAD
  PyObject *direct;   /* the op or implementation the common call goes to */
  PyObject *function; /* the Python wrapper, for every other call */
  PyObject *retry;    /* exception types that send a direct call to function */
  PyObject *avoid;    /* list: [type] whose instances need function, or None */
  Py_ssize_t arity;   /* > 0: operands for the op; 0: any call on the host */
  vectorcallfunc vectorcall;
  PyObject *dict; /* attributes set on it (np.add.reduce, np.add.nin ...) */
} direct_call;

/* No argument is a tensor off the CPU or an object of the avoided type:
 * 1 yes, 0 no, -1 after an error. */
static int all_on_host(const direct_call *c, PyObject *const *args, Py_ssize_t n)
{
  PyTypeObject *avoid = NULL;
  if (PyList_Check(c->avoid) && PyList_GET_SIZE(c->avoid) > 0 &&
      PyType_Check(PyList_GET_ITEM(c->avoid, 0)))
    avoid = (PyTypeObject *)PyList_GET_ITEM(c->avoid, 0);
  PyObject *found = NULL;
  for (Py_ssize_t i = 0; !found && i < n; i++)
    if (tl_py_find_offhost(args[i], avoid, &found) < 0)
      return -1;
  return found == NULL;
}

static int has_tensor(PyObject *const *args, Py_ssize_t n)
{
  for (Py_ssize_t i = 0; i < n; i++)
    if (tl_py_is_tensor(args[i]))
      return 1;
  return 0;
}

static PyObject *direct_call_vectorcall(PyObject *self, PyObject *const *args, size_t nargsf,
                                        PyObject *kwnames)
{
  direct_call *c = (direct_call *)self;
  Py_ssize_t nargs = PyVectorcall_NARGS(nargsf);
  Py_ssize_t nkw = kwnames ? PyTuple_GET_SIZE(kwnames) : 0;
  if (c->arity > 0) {
    bool direct = nargs == c->arity && nkw == 0 && tl_py_plain_operands(args, nargs) &&
                  has_tensor(args, nargs);
    return PyObject_Vectorcall(direct ? c->direct : c->function, args, nargsf, kwnames);
  }
  int host = all_on_host(c, args, nargs + nkw);
  if (host < 0)
    return NULL;
  if (!host || tl_py_default_device().type != TL_DEVICE_CPU)
    return PyObject_Vectorcall(c->function, args, nargsf, kwnames);
  PyObject *result = PyObject_Vectorcall(c->direct, args, nargsf, kwnames);
  if (result || PyTuple_GET_SIZE(c->retry) == 0 || !PyErr_ExceptionMatches(c->retry))
    return result;
  PyErr_Clear();
  return PyObject_Vectorcall(c->function, args, nargsf, kwnames);
}

static PyObject *direct_call_new(PyTypeObject *type, PyObject *args, PyObject *kwargs)
{
  static char *kwlist[] = {"direct", "function", "arity", "retry", "avoid", NULL};
  PyObject *direct, *function, *retry = NULL, *avoid = Py_None;
  Py_ssize_t arity = 0;
  if (!PyArg_ParseTupleAndKeywords(args, kwargs, "OO|nO!O:_DirectCall", kwlist, &direct,
                                   &function, &arity, &PyTuple_Type, &retry, &avoid))
    return NULL;
  if (!PyCallable_Check(direct) || !PyCallable_Check(function) || arity < 0 ||
      (avoid != Py_None && !PyList_Check(avoid)))
    return PyErr_Format(PyExc_TypeError, "_DirectCall(direct: callable, function: callable, "
                        "arity: int >= 0, retry: tuple, avoid: list | None)");
  direct_call *c = (direct_call *)type->tp_alloc(type, 0);
  if (!c)
    return NULL;
  c->direct = Py_NewRef(direct);
  c->function = Py_NewRef(function);
  c->retry = retry ? Py_NewRef(retry) : PyTuple_New(0);
  c->avoid = Py_NewRef(avoid);
  c->arity = arity;
  c->vectorcall = direct_call_vectorcall;
  if (!c->retry)
    Py_CLEAR(c);
  return (PyObject *)c;
}

static int direct_call_traverse(PyObject *self, visitproc visit, void *arg)
{
  direct_call *c = (direct_call *)self;
  Py_VISIT(c->direct);
  Py_VISIT(c->function);
  Py_VISIT(c->retry);
  Py_VISIT(c->avoid);
  Py_VISIT(c->dict);
  return 0;
}

static int direct_call_clear(PyObject *self)
{
  direct_call *c = (direct_call *)self;
  Py_CLEAR(c->direct);
  Py_CLEAR(c->function);
  Py_CLEAR(c->retry);
  Py_CLEAR(c->avoid);
  Py_CLEAR(c->dict);
  return 0;
}

static void direct_call_dealloc(PyObject *self)
{
  PyObject_GC_UnTrack(self);
  direct_call_clear(self);
  Py_TYPE(self)->tp_free(self);
}

/* The Python function's identity: help(), inspect.signature and pickle read
 * these; __wrapped__ is the function itself. */
static PyObject *direct_call_getattro(PyObject *self, PyObject *name)
{
  static const char *const forwarded[] = {"__name__", "__qualname__", "__doc__", "__module__",
                                          "__annotations__", "__text_signature__"};
  PyObject *function = ((direct_call *)self)->function;
  if (PyUnicode_Check(name)) {
    if (PyUnicode_CompareWithASCIIString(name, "__wrapped__") == 0)
      return Py_NewRef(function);
    for (size_t i = 0; i < sizeof forwarded / sizeof *forwarded; i++)
      if (PyUnicode_CompareWithASCIIString(name, forwarded[i]) == 0)
        return PyObject_GetAttr(function, name);
  }
  return PyObject_GenericGetAttr(self, name);
}

/* Pickled by name, as a function is: the module attribute of its __qualname__. */
static PyObject *direct_call_reduce(PyObject *self, PyObject *unused)
{
  (void)unused;
  return PyObject_GetAttrString(((direct_call *)self)->function, "__qualname__");
}

static PyObject *direct_call_repr(PyObject *self)
{
  return PyObject_Repr(((direct_call *)self)->function);
}

/* __dict__ as a function's: vars(np.add) and functools.wraps(np.add) see
 * the attributes set on it (np.add.reduce, np.add.ufunc ...). */
static PyGetSetDef direct_call_getset[] = {
    {"__dict__", PyObject_GenericGetDict, PyObject_GenericSetDict, NULL, NULL},
    {NULL, NULL, NULL, NULL, NULL},
};

static PyMethodDef direct_call_methods[] = {
    {"__reduce__", direct_call_reduce, METH_NOARGS, NULL},
    {NULL, NULL, 0, NULL},
};

static PyTypeObject direct_call_type = {
    PyVarObject_HEAD_INIT(NULL, 0)
    .tp_name = "torchlike._C._DirectCall",
    .tp_basicsize = sizeof(direct_call),
    .tp_flags = Py_TPFLAGS_DEFAULT | Py_TPFLAGS_HAVE_GC | Py_TPFLAGS_HAVE_VECTORCALL,
    .tp_doc = "A namespace function whose common call skips its Python wrapper.",
    .tp_new = direct_call_new,
    .tp_dealloc = direct_call_dealloc,
    .tp_traverse = direct_call_traverse,
    .tp_clear = direct_call_clear,
    .tp_call = PyVectorcall_Call,
    .tp_vectorcall_offset = offsetof(direct_call, vectorcall),
    .tp_getattro = direct_call_getattro,
    .tp_setattro = PyObject_GenericSetAttr,
    .tp_dictoffset = offsetof(direct_call, dict),
    .tp_repr = direct_call_repr,
    .tp_methods = direct_call_methods,
    .tp_getset = direct_call_getset,
};

int tl_py_fastcall_init(PyObject *m)
{
  if (PyType_Ready(&direct_call_type) < 0 ||
      PyModule_AddObjectRef(m, "_DirectCall", (PyObject *)&direct_call_type) < 0)
    return -1;
  return 0;
}
