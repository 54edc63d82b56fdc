/* py_torch_function.c - the C half of PyTorch's __torch_function__ protocol.
 *
 * What lives here: the per-thread switch that DisableTorchFunctionSubclass
 * and DisableTorchFunction turn (and the count of pushed TorchFunctionModes),
 * the test every entry point runs (py_torch_function.h), the hand-off of a
 * call to torchlike.overrides, _disabled_torch_function_impl, Tensor.as_subclass,
 * and two wrapper types that torchlike.overrides puts around the public
 * callables and properties not written as op functions (so that a Python
 * function, a C method or a property getter reaches __torch_function__ the
 * same way an op does; docs/bindings.md).                                     */
#include <stddef.h>

#include <Python.h>
#include <structmember.h>

#include "ndcore/bindings/py_torch_function.h"

/* torch._C's TorchFunctionDisabledState */
enum { TF_ENABLED, TF_SUBCLASSES_DISABLED, TF_ALL_DISABLED };

static _Thread_local int tf_state;
static _Thread_local int tf_caller; /* the state the running backward() was called in */
static _Thread_local int tf_modes; /* this thread's mode stack depth */
int tl_py_tf_modes_anywhere;

static PyObject *tf_attr;      /* "__torch_function__" */
static PyObject *tf_disabled;  /* _C._disabled_torch_function_impl */
static PyObject *tf_handler;   /* torchlike.overrides._dispatch(func, args, kwargs) */
static PyObject *tf_reducer;   /* torchlike.overrides._public(name): unpickles a wrapper */

/* ---- the test ---------------------------------------------------------------- */

/* Does o's type define a __torch_function__ other than the disabled one? */
static bool overrides(PyObject *o)
{
  if (tl_py_tf_plain(o))
    return false;
  PyTypeObject *t = Py_TYPE(o);
  if (t == &PyUnicode_Type || t == &PyTuple_Type || t == &PyList_Type)
    return false;
  PyObject *f = _PyType_Lookup(t, tf_attr); /* borrowed; the type's method cache */
  return f && f != tf_disabled;
}

static bool overrides_or_holds(PyObject *o)
{
  if (PyTuple_CheckExact(o) || PyList_CheckExact(o)) { /* torch.cat's tensors: one level */
    PyObject **items = PySequence_Fast_ITEMS(o);
    for (Py_ssize_t i = 0, n = PySequence_Fast_GET_SIZE(o); i < n; i++)
      if (overrides(items[i]))
        return true;
    return false;
  }
  return overrides(o);
}

bool tl_py_tf_slow(PyObject *const *args, Py_ssize_t n)
{
  if (tf_state == TF_ALL_DISABLED)
    return false;
  if (tf_modes > 0)
    return true;
  if (tf_state == TF_SUBCLASSES_DISABLED)
    return false;
  for (Py_ssize_t i = 0; i < n; i++)
    if (overrides_or_holds(args[i]))
      return true;
  return false;
}

/* ---- the hand-off ------------------------------------------------------------ */

PyObject *tl_py_tf_dispatch(PyObject *func, PyObject *const *args, size_t nargsf,
                            PyObject *kwnames)
{
  PyObject *tuple = NULL, *kwargs = NULL, *r = NULL;
  if (!tf_handler)
    return PyErr_Format(PyExc_RuntimeError, "__torch_function__ dispatch is not installed");
  if (tl_py_args_as_call(args, nargsf, kwnames, &tuple, &kwargs) < 0)
    goto fail;
  r = PyObject_CallFunctionObjArgs(tf_handler, func, tuple, kwargs, NULL);
fail:
  Py_XDECREF(tuple);
  Py_XDECREF(kwargs);
  return r;
}

PyObject *tl_py_tf_dispatch_attr(const char *name, PyObject *const *args, Py_ssize_t n)
{
  PyObject *func = PyObject_GetAttrString((PyObject *)tl_py_tensor_type, name);
  if (!func)
    return NULL;
  PyObject *r = tl_py_tf_dispatch(func, args, (size_t)n, NULL);
  Py_DECREF(func);
  return r;
}

/* ---- the switch ------------------------------------------------------------------ */

tl_py_tf_saved tl_py_tf_engine_enter(void)
{
  tl_py_tf_saved saved = {tf_state, tf_caller};
  tf_caller = tf_state;
  tf_state = TF_ALL_DISABLED;
  return saved;
}

void tl_py_tf_engine_leave(tl_py_tf_saved saved)
{
  tf_state = saved.state;
  tf_caller = saved.caller;
}

int tl_py_tf_user_enter(void)
{
  int saved = tf_state;
  tf_state = tf_caller;
  return saved;
}

void tl_py_tf_user_leave(int saved) { tf_state = saved; }

/* DisableTorchFunctionSubclass() / DisableTorchFunction(): context managers
 * that restore the state they found. */
typedef struct {
  PyObject_HEAD
  int level; /* the state entered */
  int saved;
} tf_disable;

static PyObject *disable_enter(PyObject *self, PyObject *unused)
{
  (void)unused;
  tf_disable *d = (tf_disable *)self;
  d->saved = tf_state;
  if (d->level > tf_state) /* never re-enables what an outer scope disabled */
    tf_state = d->level;
  Py_RETURN_NONE;
}

static PyObject *disable_exit(PyObject *self, PyObject *const *args, Py_ssize_t nargs)
{
  (void)args;
  (void)nargs;
  tf_state = ((tf_disable *)self)->saved;
  Py_RETURN_FALSE;
}

static PyObject *disable_new(PyTypeObject *type, PyObject *args, PyObject *kwargs, int level)
{
  if (PyTuple_GET_SIZE(args) || (kwargs && PyDict_GET_SIZE(kwargs)))
    return PyErr_Format(PyExc_TypeError, "%s() takes no arguments", type->tp_name);
  tf_disable *d = (tf_disable *)type->tp_alloc(type, 0);
  if (d)
    d->level = level;
  return (PyObject *)d;
}

static PyObject *disable_subclass_new(PyTypeObject *type, PyObject *args, PyObject *kwargs)
{
  return disable_new(type, args, kwargs, TF_SUBCLASSES_DISABLED);
}

static PyObject *disable_all_new(PyTypeObject *type, PyObject *args, PyObject *kwargs)
{
  return disable_new(type, args, kwargs, TF_ALL_DISABLED);
}

static PyMethodDef disable_methods[] = {
    {"__enter__", disable_enter, METH_NOARGS, NULL},
    {"__exit__", (PyCFunction)(void (*)(void))disable_exit, METH_FASTCALL, NULL},
    {NULL, NULL, 0, NULL},
};

static PyType_Slot disable_subclass_slots[] = {
    {Py_tp_new, disable_subclass_new},
    {Py_tp_methods, disable_methods},
    {Py_tp_doc, "Within it, tensor subclasses' __torch_function__ is not called (modes still are)."},
    {0, NULL},
};
static PyType_Slot disable_all_slots[] = {
    {Py_tp_new, disable_all_new},
    {Py_tp_methods, disable_methods},
    {Py_tp_doc, "Within it, no __torch_function__ is called: neither subclasses' nor modes'."},
    {0, NULL},
};
static PyType_Spec disable_subclass_spec = {
    .name = "torchlike._C.DisableTorchFunctionSubclass",
    .basicsize = sizeof(tf_disable),
    .flags = Py_TPFLAGS_DEFAULT,
    .slots = disable_subclass_slots,
};
static PyType_Spec disable_all_spec = {
    .name = "torchlike._C.DisableTorchFunction",
    .basicsize = sizeof(tf_disable),
    .flags = Py_TPFLAGS_DEFAULT,
    .slots = disable_all_slots,
};

/* _disabled_torch_function_impl(func, types, args=(), kwargs=None): func run
 * with subclasses' __torch_function__ off, its result not converted (what
 * nn.Parameter names as its __torch_function__). */
static PyObject *disabled_impl(PyObject *self, PyObject *const *args, Py_ssize_t nargs)
{
  (void)self;
  if (nargs < 2 || nargs > 4)
    return PyErr_Format(PyExc_TypeError, "_disabled_torch_function_impl() takes 2 to 4 "
                        "arguments (%zd given)", nargs);
  PyObject *fargs = nargs > 2 ? args[2] : NULL, *fkwargs = nargs > 3 ? args[3] : NULL;
  if (fkwargs && fkwargs != Py_None && !PyDict_Check(fkwargs))
    return PyErr_Format(PyExc_TypeError, "_disabled_torch_function_impl(): kwargs must be a "
                        "dict, not %s", Py_TYPE(fkwargs)->tp_name);
  PyObject *tuple = fargs ? PySequence_Tuple(fargs) : PyTuple_New(0);
  if (!tuple)
    return NULL;
  int saved = tf_state;
  if (tf_state < TF_SUBCLASSES_DISABLED)
    tf_state = TF_SUBCLASSES_DISABLED;
  PyObject *r = PyObject_Call(args[0], tuple, fkwargs == Py_None ? NULL : fkwargs);
  tf_state = saved;
  Py_DECREF(tuple);
  return r;
}

static PyObject *tf_enabled(PyObject *self, PyObject *unused)
{
  (void)self;
  (void)unused;
  return PyBool_FromLong(tf_state == TF_ENABLED);
}

static PyObject *tf_all_disabled(PyObject *self, PyObject *unused)
{
  (void)self;
  (void)unused;
  return PyBool_FromLong(tf_state == TF_ALL_DISABLED);
}

static PyObject *tf_mode_enabled(PyObject *self, PyObject *unused)
{
  (void)self;
  (void)unused;
  return PyBool_FromLong(tf_state != TF_ALL_DISABLED && tf_modes > 0);
}

/* _set_torch_function_modes(n): overrides' mode stack tells its depth in
 * this thread. */
static PyObject *tf_set_modes(PyObject *self, PyObject *arg)
{
  (void)self;
  long n = PyLong_AsLong(arg);
  if (n == -1 && PyErr_Occurred())
    return NULL;
  if (n < 0)
    return PyErr_Format(PyExc_ValueError, "mode stack depth must be >= 0, got %ld", n);
  tl_py_tf_modes_anywhere += (int)n - tf_modes;
  tf_modes = (int)n;
  Py_RETURN_NONE;
}

static PyObject *tf_set_hooks(PyObject *self, PyObject *const *args, Py_ssize_t nargs)
{
  (void)self;
  if (nargs != 2)
    return PyErr_Format(PyExc_TypeError, "_set_torch_function_hooks(dispatch, public)");
  Py_XSETREF(tf_handler, Py_NewRef(args[0]));
  Py_XSETREF(tf_reducer, Py_NewRef(args[1]));
  Py_RETURN_NONE;
}

/* has_torch_function(iterable), _unary(obj), _variadic(*args): the test of
 * the entry points, for Python code. */
static PyObject *has_tf(PyObject *self, PyObject *arg)
{
  (void)self;
  PyObject *seq = PySequence_Fast(arg, "has_torch_function(): expected a sequence");
  if (!seq)
    return NULL;
  bool r = tl_py_tf_wanted(PySequence_Fast_ITEMS(seq), PySequence_Fast_GET_SIZE(seq));
  Py_DECREF(seq);
  return PyBool_FromLong(r);
}

static PyObject *has_tf_unary(PyObject *self, PyObject *arg)
{
  (void)self;
  return PyBool_FromLong(tl_py_tf_wanted(&arg, 1));
}

static PyObject *has_tf_variadic(PyObject *self, PyObject *const *args, Py_ssize_t nargs)
{
  (void)self;
  return PyBool_FromLong(tl_py_tf_wanted(args, nargs));
}

PyObject *tl_py_not_a_subclass(void)
{
  return PyErr_Format(PyExc_TypeError, "Creating a Tensor subclass from a class that does not "
                      "inherit from Tensor is not possible. Make sure your class inherits from "
                      "Tensor.");
}

/* ---- Tensor.as_subclass --------------------------------------------------------- */

/* self.as_subclass(cls): a cls instance viewing self's data, in self's place
 * on the graph and a view of it (_base), as PyTorch's alias.  A leaf that
 * requires grad is first aliased through a recorded view (PyTorch's
 * AliasBackward), so gradients reach it. */
static PyObject *as_subclass(PyObject *self, PyObject *cls)
{
  if (!PyType_Check(cls) || !PyType_IsSubtype((PyTypeObject *)cls, tl_py_tensor_type))
    return tl_py_not_a_subclass();
  tl_py_tensor *src = (tl_py_tensor *)self, *alias = NULL;
  if (src->requires_grad && !src->grad_fn && tl_py_grad_enabled) {
    int saved = tf_state;
    tf_state = TF_ALL_DISABLED; /* the alias is not the user's call */
    alias = (tl_py_tensor *)PyObject_CallMethod(self, "view_as", "O", self);
    tf_state = saved;
    if (!alias)
      return NULL;
    src = alias;
  }
  PyTypeObject *type = (PyTypeObject *)cls;
  tl_py_tensor *out = (tl_py_tensor *)type->tp_alloc(type, 0);
  if (!out)
    goto fail;
  tl_tensor_view_of(&out->t, &src->t);
  out->grad_fn = Py_XNewRef(src->grad_fn);
  out->output_nr = src->output_nr;
  out->requires_grad = src->grad_fn != NULL;
  out->inference = src->inference;
  if (src->base) { /* the alias, or a view: out shows the same base */
    out->base = Py_NewRef(src->base);
    out->base_seq = src->base_seq;
    out->view_meta = src->view_meta;
  } else if (tl_py_view_mark) { /* PyTorch's as_subclass is an alias: a view of self */
    tl_py_view_mark((PyObject *)out, self, 0);
  }
fail:
  Py_XDECREF(alias);
  return (PyObject *)out;
}

static PyMethodDef tensor_tf_methods[] = {
    {"as_subclass", as_subclass, METH_O,
     "as_subclass(cls): a cls instance sharing this tensor's data and autograd history"},
    {NULL, NULL, 0, NULL},
};

/* ---- wrappers around public callables ------------------------------------------- */

typedef struct {
  PyObject_HEAD
  vectorcallfunc vectorcall;
  PyObject *wrapped;
  PyObject *name; /* the public name, "torchlike.Tensor.cov" (resolve_name) */
} tf_wrapper;

static PyTypeObject *wrapper_bound_type; /* binds as a method (wraps a function) */
static PyTypeObject *wrapper_type;       /* does not (wraps a builtin) */
static PyTypeObject *property_type;

static PyObject *wrapper_vectorcall(PyObject *self, PyObject *const *args, size_t nargsf,
                                    PyObject *kwnames)
{
  Py_ssize_t n = PyVectorcall_NARGS(nargsf) + (kwnames ? PyTuple_GET_SIZE(kwnames) : 0);
  if (tl_py_tf_wanted(args, n))
    return tl_py_tf_dispatch(self, args, nargsf, kwnames);
  return PyObject_Vectorcall(((tf_wrapper *)self)->wrapped, args, nargsf, kwnames);
}

/* Binds like the wrapped object: a method bound to obj, unless the wrapped
 * descriptor answers something else (x.size read as NumPy's int, py_spelling.c). */
static PyObject *wrapper_descr_get(PyObject *self, PyObject *obj, PyObject *type)
{
  if (obj == NULL || obj == Py_None)
    return Py_NewRef(self);
  PyObject *inner = ((tf_wrapper *)self)->wrapped;
  descrgetfunc get = Py_TYPE(inner)->tp_descr_get;
  if (Py_TYPE(inner) != &PyFunction_Type && Py_TYPE(inner) != &PyMethodDescr_Type && get) {
    PyObject *r = get(inner, obj, type);
    if (!r || !PyMethod_Check(r) || PyMethod_GET_FUNCTION(r) != inner)
      return r;
    Py_DECREF(r);
  }
  return PyMethod_New(self, obj);
}

/* The wrapper's own attributes; everything else (__name__, __doc__,
 * __module__, __defaults__ ...) is the wrapped object's. */
static bool own_attr(PyObject *name)
{
  static const char *const own[] = {"__wrapped__", "_tf_name", "__reduce__", "__reduce_ex__",
                                    "__get__", "__set__", "__call__", "__class__",
                                    "__vectorcalloffset__", NULL};
  const char *s = PyUnicode_AsUTF8(name);
  for (int i = 0; s && own[i]; i++)
    if (!strcmp(s, own[i]))
      return true;
  return false;
}

static PyObject *wrapper_getattro(PyObject *self, PyObject *name)
{
  if (own_attr(name))
    return PyObject_GenericGetAttr(self, name);
  return PyObject_GetAttr(((tf_wrapper *)self)->wrapped, name);
}

static int wrapper_setattro(PyObject *self, PyObject *name, PyObject *value)
{
  return PyObject_SetAttr(((tf_wrapper *)self)->wrapped, name, value);
}

static PyObject *wrapper_repr(PyObject *self)
{
  return PyObject_Repr(((tf_wrapper *)self)->wrapped);
}

/* Pickled by public name (the wrapped function's own __qualname__ may not
 * lead back to the wrapper). */
static PyObject *wrapper_reduce(PyObject *self, PyObject *unused)
{
  (void)unused;
  if (!tf_reducer)
    return PyErr_Format(PyExc_TypeError, "cannot pickle %R", self);
  return Py_BuildValue("(O(O))", tf_reducer, ((tf_wrapper *)self)->name);
}

static int wrapper_traverse(PyObject *self, visitproc visit, void *arg)
{
  Py_VISIT(((tf_wrapper *)self)->wrapped);
  Py_VISIT(Py_TYPE(self));
  return 0;
}

static int wrapper_clear(PyObject *self)
{
  Py_CLEAR(((tf_wrapper *)self)->wrapped);
  return 0;
}

static void wrapper_dealloc(PyObject *self)
{
  PyTypeObject *type = Py_TYPE(self);
  PyObject_GC_UnTrack(self);
  wrapper_clear(self);
  Py_CLEAR(((tf_wrapper *)self)->name);
  type->tp_free(self);
  Py_DECREF(type);
}

static PyMemberDef wrapper_members[] = {
    {"__vectorcalloffset__", T_PYSSIZET, offsetof(tf_wrapper, vectorcall), READONLY, NULL},
    {"__wrapped__", T_OBJECT, offsetof(tf_wrapper, wrapped), READONLY, NULL},
    {"_tf_name", T_OBJECT, offsetof(tf_wrapper, name), READONLY, NULL},
    {NULL, 0, 0, 0, NULL},
};
static PyMethodDef wrapper_methods[] = {
    {"__reduce__", wrapper_reduce, METH_NOARGS, NULL},
    {NULL, NULL, 0, NULL},
};

#define WRAPPER_COMMON_SLOTS                                                                   \
  {Py_tp_call, PyVectorcall_Call}, {Py_tp_getattro, wrapper_getattro},                         \
      {Py_tp_setattro, wrapper_setattro}, {Py_tp_repr, wrapper_repr},                          \
      {Py_tp_members, wrapper_members}, {Py_tp_methods, wrapper_methods},                      \
      {Py_tp_traverse, wrapper_traverse}, {Py_tp_clear, wrapper_clear},                        \
      {Py_tp_dealloc, wrapper_dealloc}
static PyType_Slot wrapper_bound_slots[] = {
    WRAPPER_COMMON_SLOTS, {Py_tp_descr_get, wrapper_descr_get}, {0, NULL}};
static PyType_Slot wrapper_slots[] = {WRAPPER_COMMON_SLOTS, {0, NULL}};
static PyType_Spec wrapper_bound_spec = {
    .name = "torchlike._C._tf_method",
    .basicsize = sizeof(tf_wrapper),
    .flags = Py_TPFLAGS_DEFAULT | Py_TPFLAGS_HAVE_VECTORCALL | Py_TPFLAGS_METHOD_DESCRIPTOR |
             Py_TPFLAGS_HAVE_GC | Py_TPFLAGS_DISALLOW_INSTANTIATION,
    .slots = wrapper_bound_slots,
};
static PyType_Spec wrapper_spec = {
    .name = "torchlike._C._tf_function",
    .basicsize = sizeof(tf_wrapper),
    .flags = Py_TPFLAGS_DEFAULT | Py_TPFLAGS_HAVE_VECTORCALL | Py_TPFLAGS_HAVE_GC |
             Py_TPFLAGS_DISALLOW_INSTANTIATION,
    .slots = wrapper_slots,
};

/* A property of Tensor (a C getset, a member, a Python property): x.shape is
 * Tensor.shape.__get__(x) for __torch_function__, x.requires_grad = v is
 * Tensor.requires_grad.__set__(x, v), as in PyTorch. */
static PyObject *property_get(PyObject *self, PyObject *obj, PyObject *type)
{
  PyObject *prop = ((tf_wrapper *)self)->wrapped;
  if (obj == NULL || obj == Py_None)
    return Py_NewRef(self);
  if (tl_py_tf_wanted(&obj, 1)) {
    PyObject *get = PyObject_GetAttrString(self, "__get__");
    PyObject *r = get ? tl_py_tf_dispatch(get, &obj, 1, NULL) : NULL;
    Py_XDECREF(get);
    return r;
  }
  return Py_TYPE(prop)->tp_descr_get(prop, obj, type);
}

static int property_set(PyObject *self, PyObject *obj, PyObject *value)
{
  PyObject *prop = ((tf_wrapper *)self)->wrapped;
  if (value && tl_py_tf_wanted(&obj, 1)) {
    PyObject *set = PyObject_GetAttrString(self, "__set__");
    PyObject *args[2] = {obj, value};
    PyObject *r = set ? tl_py_tf_dispatch(set, args, 2, NULL) : NULL;
    Py_XDECREF(set);
    Py_XDECREF(r);
    return r ? 0 : -1;
  }
  descrsetfunc f = Py_TYPE(prop)->tp_descr_set;
  if (!f) {
    PyErr_Format(PyExc_AttributeError, "attribute '%U' of 'Tensor' objects is not writable",
                 ((tf_wrapper *)self)->name);
    return -1;
  }
  return f(prop, obj, value);
}

static PyType_Slot property_slots[] = {
    {Py_tp_getattro, wrapper_getattro},
    {Py_tp_repr, wrapper_repr},
    {Py_tp_members, wrapper_members},
    {Py_tp_traverse, wrapper_traverse},
    {Py_tp_clear, wrapper_clear},
    {Py_tp_dealloc, wrapper_dealloc},
    {Py_tp_descr_get, property_get},
    {Py_tp_descr_set, property_set},
    {0, NULL},
};
static PyType_Spec property_spec = {
    .name = "torchlike._C._tf_property",
    .basicsize = sizeof(tf_wrapper),
    .flags = Py_TPFLAGS_DEFAULT | Py_TPFLAGS_HAVE_GC | Py_TPFLAGS_DISALLOW_INSTANTIATION,
    .slots = property_slots,
};

/* _tf_wrap(obj, name): obj (a function, a builtin, a method descriptor or a
 * property) behind the __torch_function__ test, known as `name`. */
static PyObject *tf_wrap(PyObject *self, PyObject *const *args, Py_ssize_t nargs)
{
  (void)self;
  if (nargs != 2 || !PyUnicode_Check(args[1]))
    return PyErr_Format(PyExc_TypeError, "_tf_wrap(obj, name: str)");
  PyObject *obj = args[0];
  PyTypeObject *type;
  if (Py_TYPE(obj)->tp_descr_set && Py_TYPE(obj)->tp_descr_get)
    type = property_type;
  else if (!PyCallable_Check(obj))
    return PyErr_Format(PyExc_TypeError, "_tf_wrap(): %R is neither callable nor a property", obj);
  else
    type = Py_TYPE(obj)->tp_descr_get ? wrapper_bound_type : wrapper_type;
  tf_wrapper *w = PyObject_GC_New(tf_wrapper, type);
  if (!w)
    return NULL;
  w->vectorcall = wrapper_vectorcall;
  w->wrapped = Py_NewRef(obj);
  w->name = Py_NewRef(args[1]);
  PyObject_GC_Track(w);
  return (PyObject *)w;
}

static PyMethodDef tf_functions[] = {
    {"_disabled_torch_function_impl", (PyCFunction)(void (*)(void))disabled_impl, METH_FASTCALL,
     "_disabled_torch_function_impl(func, types, args=(), kwargs=None): func run with "
     "subclasses' __torch_function__ disabled"},
    {"_is_torch_function_enabled", tf_enabled, METH_NOARGS, NULL},
    {"_is_torch_function_all_disabled", tf_all_disabled, METH_NOARGS, NULL},
    {"_is_torch_function_mode_enabled", tf_mode_enabled, METH_NOARGS, NULL},
    {"_set_torch_function_modes", tf_set_modes, METH_O, NULL},
    {"_set_torch_function_hooks", (PyCFunction)(void (*)(void))tf_set_hooks, METH_FASTCALL, NULL},
    {"_has_torch_function", has_tf, METH_O, NULL},
    {"_has_torch_function_unary", has_tf_unary, METH_O, NULL},
    {"_has_torch_function_variadic", (PyCFunction)(void (*)(void))has_tf_variadic, METH_FASTCALL,
     NULL},
    {"_tf_wrap", (PyCFunction)(void (*)(void))tf_wrap, METH_FASTCALL, NULL},
    {NULL, NULL, 0, NULL},
};

int tl_py_torch_function_init(PyObject *module)
{
  PyObject *t;
  if (!(tf_attr = PyUnicode_InternFromString("__torch_function__")) ||
      PyModule_AddFunctions(module, tf_functions) < 0 ||
      !(tf_disabled = PyObject_GetAttrString(module, "_disabled_torch_function_impl")) ||
      tl_py_tensor_add_methods(tensor_tf_methods) < 0)
    return -1;
  if (!(wrapper_bound_type = (PyTypeObject *)PyType_FromSpec(&wrapper_bound_spec)) ||
      !(wrapper_type = (PyTypeObject *)PyType_FromSpec(&wrapper_spec)) ||
      !(property_type = (PyTypeObject *)PyType_FromSpec(&property_spec)))
    return -1;
  if (!(t = PyType_FromSpec(&disable_subclass_spec)) ||
      PyModule_AddObject(module, "DisableTorchFunctionSubclass", t) < 0)
    return Py_XDECREF(t), -1;
  if (!(t = PyType_FromSpec(&disable_all_spec)) ||
      PyModule_AddObject(module, "DisableTorchFunction", t) < 0)
    return Py_XDECREF(t), -1;
  return 0;
}
