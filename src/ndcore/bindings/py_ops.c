/* py_ops.c - the op registry seen from Python.
 *
 * Every op in ops.def becomes one callable object (an "op function") that is
 * both the module function and the Tensor method: as a method descriptor it
 * receives the tensor as its first argument, so torchlike.add(a, b) and
 * a.add(b) run the same code with the same arguments.  Unary and binary ops
 * also get an in-place twin (a.add_(b)).  Elementwise arguments are parsed
 * by kind here; an op whose signature in signatures.txt names an
 * implementation is bound by the generated code (generated/bindings.c), the
 * rest by their family's file.  Operators (+, <, ~ ...) are number slots
 * that call the same path.                                                  */
#include <stddef.h>

#include <Python.h>
#include <structmember.h>

#include "ndcore/tensor/tl_backend.h"
#include "ndcore/bindings/py_sig.h"
#include "ndcore/bindings/py_profiler.h"
#include "ndcore/bindings/py_torch_function.h"

typedef struct {
  PyObject_HEAD
  vectorcallfunc vectorcall;
  tl_op op;
  bool inplace;
  bool method;      /* Tensor.add rather than torchlike.add (__torch_function__ tells them apart) */
  PyObject *name;
  PyObject *tf_name; /* "torchlike.Tensor.add", what overrides.resolve_name gives */
} tl_py_opfunc;

static PyTypeObject *opfunc_type;
static PyObject *opfuncs[TL_OP_COUNT][2]; /* [op][inplace] Tensor methods, for the operators */
static PyObject *module_ref; /* torchlike._C, for ops defined elsewhere (matmul) */

/* ---- keyword arguments ------------------------------------------------------- */

/* Match kwnames against `names`; values[i] stays as given when absent. */
static int parse_kwargs(const char *func, PyObject *const *kwvalues, PyObject *kwnames,
                        const char *const *names, PyObject **values)
{
  Py_ssize_t nkw = kwnames ? PyTuple_GET_SIZE(kwnames) : 0;
  for (Py_ssize_t k = 0; k < nkw; k++) {
    const char *key = PyUnicode_AsUTF8(PyTuple_GET_ITEM(kwnames, k));
    int i = 0;
    while (names[i] && strcmp(names[i], key))
      i++;
    if (!names[i]) {
      PyErr_Format(PyExc_TypeError, "%s() got an unexpected keyword argument '%s'", func, key);
      return -1;
    }
    values[i] = kwvalues[k];
  }
  return 0;
}

/* ---- the elementwise path ---------------------------------------------------- */

/* An operand as the core wants it.  Tensors are borrowed; Python scalars live
 * in `bytes` for the duration of the call, without an allocation. */
typedef struct {
  tl_tensor t;
  tl_storage storage;
  _Alignas(16) char bytes[16];
  bool owned;
} py_operand;

static int operand_from(PyObject *o, py_operand *op, tl_arg *arg)
{
  tl_scalar s;
  op->owned = false;
  if (tl_py_is_tensor(o)) {
    arg->t = tl_py_t(o);
    arg->weak = false;
    return 0;
  }
  int is_scalar = tl_py_scalar(o, &s);
  if (is_scalar == 0) /* PyTorch: a NumPy scalar operand is a Python number */
    is_scalar = tl_py_numpy_scalar(o, &s);
  if (is_scalar < 0)
    return -1;
  if (is_scalar) {
    tl_dtype d = tl_py_scalar_dtype(s.kind);
    tl_scalar_store(s, d, op->bytes);
    op->storage = (tl_storage){.refcount = 1, .data = op->bytes, .nbytes = 16,
                               .device = tl_device_cpu()};
    op->t = (tl_tensor){.storage = &op->storage, .dtype = d, .ndim = 0};
    arg->t = &op->t;
    arg->weak = true;
    return 0;
  }
  bool weak;
  if (tl_py_to_tensor(o, -1, false, &op->t, &weak) < 0)
    return -1;
  op->owned = true;
  arg->t = &op->t;
  arg->weak = weak;
  return 0;
}

PyObject *tl_py_map(tl_op op, int nin, PyObject *const *operands, PyObject *out,
                    const tl_op_params *p)
{
  py_operand ops[3];
  tl_arg args[3];
  PyObject *result = NULL;
  int converted = 0;
  for (; converted < nin; converted++)
    if (operand_from(operands[converted], &ops[converted], &args[converted]) < 0)
      goto done;
  if (out) {
    if (!tl_py_is_tensor(out)) {
      PyErr_Format(PyExc_TypeError, "%s(): argument 'out' must be Tensor, not %s",
                   tl_op_infos[op].name, Py_TYPE(out)->tp_name);
      goto done;
    }
    if (tl_op_map(op, nin, args, tl_py_t(out), p) != TL_OK) {
      tl_py_raise();
      goto done;
    }
    result = Py_NewRef(out);
    goto done;
  }
  tl_py_tensor *r = tl_py_tensor_alloc();
  if (!r)
    goto done;
  if (tl_op_map_like_inputs(op, nin, args, &r->t, p) != TL_OK) {
    Py_DECREF(r);
    tl_py_raise();
    goto done;
  }
  result = (PyObject *)r;
done:
  for (int i = 0; i < converted; i++)
    if (ops[i].owned)
      tl_tensor_release(&ops[i].t);
  return result;
}

static int scalar_param(const char *func, const char *name, PyObject *o, tl_scalar *s)
{
  if (tl_py_is_tensor(o) && tl_tensor_numel(tl_py_t(o)) == 1) /* read through its device */
    return tl_backend_read_scalar(tl_py_t(o), s) == TL_OK ? 0 : tl_py_raise_int();
  int r = tl_py_scalar(o, s);
  if (r == 0 && PyNumber_Check(o)) { /* NumPy scalars */
    PyObject *f = PyNumber_Float(o);
    r = f ? 1 : -1;
    if (f)
      *s = (tl_scalar){.kind = TL_KIND_FLOAT, .v.f = PyFloat_AsDouble(f)};
    Py_XDECREF(f);
  }
  if (r == 0)
    PyErr_Format(PyExc_TypeError, "%s(): argument '%s' must be a number, not %s", func, name,
                 Py_TYPE(o)->tp_name);
  return r > 0 ? 0 : -1;
}

/* Positional-or-keyword argument i of a call, or NULL. */
static PyObject *arg_at(PyObject *const *args, Py_ssize_t nargs, Py_ssize_t i, PyObject *kw)
{
  if (i < nargs) {
    if (kw) {
      PyErr_Format(PyExc_TypeError, "got multiple values for argument %zd", i);
      return NULL;
    }
    return args[i];
  }
  return kw;
}

static PyObject *call_elementwise(tl_py_opfunc *f, PyObject *const *args, Py_ssize_t nargs,
                                  PyObject *kwnames)
{
  const tl_op op = f->op;
  const char *name = tl_op_infos[op].name;
  const int nin = tl_op_infos[op].kind == TL_OPKIND_UNARY    ? 1
                  : tl_op_infos[op].kind == TL_OPKIND_BINARY ? 2
                                                             : 3;
  static const char *const unary_names[] = {"input", "out", "decimals", "nan", "posinf", "neginf", NULL};
  static const char *const binary_names[] = {"input", "other", "out", "alpha", "rounding_mode", NULL};
  static const char *const where_names[] = {"condition", "input", "other", "out", NULL};
  const char *const *names = nin == 1 ? unary_names : nin == 2 ? binary_names : where_names;
  PyObject *kw[7] = {NULL};
  if (parse_kwargs(name, args + nargs, kwnames, names, kw) < 0)
    return NULL;
  PyObject *operands[3];
  Py_ssize_t extra = nargs - nin; /* positional parameters past the operands */
  if (op == TL_OP_WHERE && nargs + (kwnames ? PyTuple_GET_SIZE(kwnames) : 0) == 1 && kw[0])
    return tl_py_index_where(kw[0]); /* where(condition=c): nonzero(c, as_tuple=True) */
  for (int i = 0; i < nin; i++)
    if (!(operands[i] = arg_at(args, nargs, i, kw[i])))
      return PyErr_Occurred() ? NULL
                              : PyErr_Format(PyExc_TypeError, "%s() missing required argument "
                                                              "'%s'", name, names[i]);
  PyObject *out = kw[nin];
  tl_op_params p = {.s = {{.kind = TL_KIND_INT, .v.i = 1}}};
  if (op == TL_OP_ROUND) {
    PyObject *d = arg_at(args, nargs, 1, kw[2]);
    p.i = d ? PyLong_AsLongLong(d) : 0;
    if (p.i == -1 && PyErr_Occurred())
      return NULL;
    extra--;
  } else if (op == TL_OP_NAN_TO_NUM) {
    p.s[0] = (tl_scalar){.kind = TL_KIND_FLOAT, .v.f = 0.0};
    p.s[1] = p.s[2] = (tl_scalar){.kind = TL_KIND_BOOL}; /* bool: "the dtype's limit" */
    for (int i = 0; i < 3; i++) {
      PyObject *v = arg_at(args, nargs, 1 + i, kw[3 + i]);
      if (v && v != Py_None && scalar_param(name, names[3 + i], v, &p.s[i]) < 0)
        return NULL;
      extra -= 1 + i < nargs;
    }
  } else if (nin == 2 && kw[3]) {
    if (op != TL_OP_ADD && op != TL_OP_SUB)
      return PyErr_Format(PyExc_TypeError, "%s() got an unexpected keyword argument 'alpha'", name);
    if (scalar_param(name, "alpha", kw[3], &p.s[0]) < 0)
      return NULL;
  }
  tl_op run = op;
  if (nin == 2 && kw[4] && kw[4] != Py_None) {
    const char *mode = PyUnicode_Check(kw[4]) ? PyUnicode_AsUTF8(kw[4]) : "";
    if (op != TL_OP_DIV)
      return PyErr_Format(PyExc_TypeError, "%s() got an unexpected keyword argument "
                                           "'rounding_mode'", name);
    if (!strcmp(mode, "trunc"))
      run = TL_OP_TRUNC_DIVIDE;
    else if (!strcmp(mode, "floor"))
      run = TL_OP_FLOOR_DIVIDE;
    else
      return PyErr_Format(PyExc_RuntimeError, "div expected rounding_mode to be one of None, "
                                              "'trunc', or 'floor' but found '%s'", mode);
  }
  if (extra > 0)
    return PyErr_Format(PyExc_TypeError, "%s() takes %d positional arguments but %zd were given",
                        name, nin, nargs);
  if (f->inplace) {
    if (out)
      return PyErr_Format(PyExc_TypeError, "%s_() got an unexpected keyword argument 'out'", name);
    out = operands[0];
  }
  return tl_py_map(run, nin, operands, out, &p);
}

/* An integer tensor's Python-int bound beyond its dtype's range, PyTorch's
 * rule: a lower bound below the range (an upper one above it) bounds nothing
 * and becomes the range's edge (*edge, a new reference); one on the other side
 * cannot be represented: RuntimeError.  0 when the bound is usable as it is. */
static int clamp_bound(PyObject *input, PyObject *bound, int which, PyObject **edge)
{
  int64_t lo, hi;
  long long v;
  int overflow;
  if (!tl_py_is_tensor(input) || !tl_dtype_int_range(tl_py_t(input)->dtype, &lo, &hi) ||
      !PyLong_Check(bound) || PyBool_Check(bound))
    return 0;
  const char *type = tl_dtype_scalar_name(tl_py_t(input)->dtype);
  v = PyLong_AsLongLongAndOverflow(bound, &overflow);
  if (v == -1 && PyErr_Occurred())
    return -1;
  if (overflow > 0 && tl_py_t(input)->dtype == TL_DTYPE_U64)
    return 0; /* uint64's upper half: a uint64 scalar of its own (tl_py_scalar) */
  if (overflow) { /* no C integer holds it: PyTorch's argument parser refuses it */
    PyErr_SetString(PyExc_OverflowError, overflow > 0 ? "int too big to convert"
                                                       : "can't convert negative int to unsigned");
    return -1;
  }
  bool below = v < lo, above = v > hi;
  if (!below && !above)
    return 0;
  if ((which == 1 && above) || (which == 2 && below)) {
    PyErr_Format(PyExc_RuntimeError, "Clamp %s value %S is outside the representable range of %s",
                 which == 1 ? "min" : "max", bound, type);
    return -1;
  }
  *edge = PyLong_FromLongLong(which == 1 ? lo : hi);
  return *edge ? 0 : -1;
}

/* Whether a clamp bound makes an integer input's result a float (a Python
 * float or complex, a floating tensor): then an int bound has no range to
 * fit (clamp(int8_t, min=32768, max=2.5) is float32, as in PyTorch). */
static bool floating_bound(PyObject *b)
{
  if (!b || b == Py_None)
    return false;
  if (tl_py_is_tensor(b))
    return !tl_dtype_is_integral(tl_py_t(b)->dtype) && tl_py_t(b)->dtype != TL_DTYPE_BOOL;
  return PyFloat_Check(b) || PyComplex_Check(b);
}

/* clamp(input, min=None, max=None): either bound a scalar or a tensor.  An
 * absent bound's operand is the input itself, flagged unused in params. */
static PyObject *call_clamp(tl_py_opfunc *f, PyObject *const *args, Py_ssize_t nargs,
                            PyObject *kwnames)
{
  const char *name = PyUnicode_AsUTF8(f->name);
  static const char *const names[] = {"input", "min", "max", "out", NULL};
  PyObject *kw[4] = {NULL};
  if (parse_kwargs(name, args + nargs, kwnames, names, kw) < 0)
    return NULL;
  if (nargs > 3)
    return PyErr_Format(PyExc_TypeError, "%s() takes at most 3 positional arguments but %zd "
                        "were given", name, nargs);
  PyObject *operands[3];
  for (int i = 0; i < 3; i++) {
    operands[i] = arg_at(args, nargs, i, kw[i]);
    if (!operands[i] && PyErr_Occurred())
      return NULL;
  }
  if (!operands[0])
    return PyErr_Format(PyExc_TypeError, "%s() missing required argument 'input'", name);
  tl_op_params p = {.i = 0};
  PyObject *edges[3] = {NULL}, *r = NULL;
  const bool to_float = floating_bound(operands[1]) || floating_bound(operands[2]);
  for (int i = 1; i < 3; i++) {
    if (operands[i] && operands[i] != Py_None) {
      p.i |= i; /* bit 0: min, bit 1: max */
      if (!to_float && clamp_bound(operands[0], operands[i], i, &edges[i]) < 0)
        goto done;
      operands[i] = edges[i] ? edges[i] : operands[i];
    } else {
      operands[i] = operands[0];
    }
  }
  if (!p.i) {
    PyErr_Format(PyExc_RuntimeError, "%s(): at least one of 'min' or 'max' must not be None",
                 name);
    goto done;
  }
  PyObject *out = kw[3];
  if (f->inplace) {
    if (out) {
      PyErr_Format(PyExc_TypeError, "%s() got an unexpected keyword argument 'out'", name);
      goto done;
    }
    out = operands[0];
  }
  r = tl_py_map(f->op, 3, operands, out, &p);
done:
  Py_XDECREF(edges[1]);
  Py_XDECREF(edges[2]);
  return r;
}

/* ---- the op function type ------------------------------------------------------ */

/* PyTorch's notice for a deprecated overload: once per process (the first
 * one used names itself), in its wording for the method (in place) or the
 * function. */
static int deprecated_alpha(const char *name, bool inplace)
{
  static bool warned;
  if (warned)
    return 0;
  warned = true;
  if (inplace)
    return PyErr_WarnFormat(PyExc_UserWarning, 1,
                            "This overload of %s_ is deprecated:\n\t%s_(Number alpha, Tensor other)"
                            "\nConsider using one of the following signatures instead:\n\t%s_(Tensor "
                            "other, *, Number alpha = 1)", name, name, name);
  return PyErr_WarnFormat(PyExc_UserWarning, 1,
                          "This overload of %s is deprecated:\n\t%s(Tensor input, Number alpha, "
                          "Tensor other, *, Tensor out = None)\nConsider using one of the following "
                          "signatures instead:\n\t%s(Tensor input, Tensor other, *, Number alpha = 1, "
                          "Tensor out = None)", name, name, name);
}

static PyObject *opfunc_call(PyObject *callable, PyObject *const *args, size_t nargsf,
                             PyObject *kwnames);

/* PyTorch's deprecated add(input, alpha, other) and sub, still in old code
 * (p.data.add_(-lr, grad)): whether this call is one, and then the call
 * made again as add(input, other, alpha=alpha), so that every path (the
 * tape's, __torch_function__'s) sees the current form. */
static bool is_deprecated_alpha(tl_op op, PyObject *const *args, Py_ssize_t nargs,
                                PyObject *kwnames)
{
  if ((op != TL_OP_ADD && op != TL_OP_SUB) || nargs != 3 || !tl_py_is_tensor(args[2]) ||
      tl_py_is_tensor(args[1]) || !PyNumber_Check(args[1]))
    return false;
  Py_ssize_t nkw = kwnames ? PyTuple_GET_SIZE(kwnames) : 0;
  for (Py_ssize_t i = 0; i < nkw; i++)
    if (PyUnicode_CompareWithASCIIString(PyTuple_GET_ITEM(kwnames, i), "alpha") == 0)
      return false; /* alpha twice: the ordinary parser's error */
  return nkw < 4;
}

static PyObject *call_deprecated_alpha(PyObject *callable, PyObject *const *args,
                                       PyObject *kwnames)
{
  tl_py_opfunc *f = (tl_py_opfunc *)callable;
  Py_ssize_t nkw = kwnames ? PyTuple_GET_SIZE(kwnames) : 0;
  if (deprecated_alpha(tl_op_infos[f->op].name, f->inplace) < 0)
    return NULL;
  PyObject *stack[7] = {args[0], args[2]}; /* input, other, the keywords, alpha */
  PyObject *names = PyTuple_New(nkw + 1);
  if (!names)
    return NULL;
  for (Py_ssize_t i = 0; i < nkw; i++) {
    stack[2 + i] = args[3 + i];
    PyTuple_SET_ITEM(names, i, Py_NewRef(PyTuple_GET_ITEM(kwnames, i)));
  }
  stack[2 + nkw] = args[1];
  PyObject *alpha = PyUnicode_FromString("alpha");
  if (!alpha) {
    Py_DECREF(names);
    return NULL;
  }
  PyTuple_SET_ITEM(names, nkw, alpha);
  PyObject *r = opfunc_call(callable, stack, 2, names);
  Py_DECREF(names);
  return r;
}

static PyObject *opfunc_call(PyObject *callable, PyObject *const *args, size_t nargsf,
                             PyObject *kwnames)
{
  tl_py_opfunc *f = (tl_py_opfunc *)callable;
  Py_ssize_t nargs = PyVectorcall_NARGS(nargsf);
  if (__builtin_expect(nargs == 3, 0) && is_deprecated_alpha(f->op, args, nargs, kwnames))
    return call_deprecated_alpha(callable, args, kwnames);
  if (tl_py_tf_wanted(args, nargs + (kwnames ? PyTuple_GET_SIZE(kwnames) : 0)))
    return tl_py_tf_dispatch(callable, args, nargsf, kwnames);
  if (tl_py_grad_wanted(args, nargs + (kwnames ? PyTuple_GET_SIZE(kwnames) : 0)))
    return tl_py_record(f->op, callable, args, nargsf, kwnames, f->inplace ? 1 : 0);
  /* generated from signatures.txt */
  tl_py_binder bind = f->inplace ? tl_py_op_inplace_binders[f->op] : tl_py_op_binders[f->op];
  if (bind)
    return bind(f->op, args, nargs, kwnames);
  if (tl_op_infos[f->op].kind == TL_OPKIND_WHERE && nargs == 1 && !kwnames)
    return tl_py_index_where(args[0]); /* where(cond) is nonzero(cond, as_tuple=True) */
  switch (tl_op_infos[f->op].kind) {
  case TL_OPKIND_UNARY:
  case TL_OPKIND_BINARY:
  case TL_OPKIND_WHERE:
    return call_elementwise(f, args, nargs, kwnames);
  case TL_OPKIND_CLAMP:
    return call_clamp(f, args, nargs, kwnames);
  default: /* reductions, scans, index, sort and matmul ops: generated binders */
    return PyErr_Format(PyExc_SystemError, "%s(): no binder", tl_op_infos[f->op].name);
  }
}

/* The one entry of registry ops and Tensor methods: one branch when the
 * profiler is off. */
static PyObject *opfunc_vectorcall(PyObject *callable, PyObject *const *args, size_t nargsf,
                                   PyObject *kwnames)
{
  tl_py_error_fresh();
  if (TL_PROF_UNLIKELY(tl_prof_on))
    return tl_py_op_return(tl_prof_call(((tl_py_opfunc *)callable)->name, opfunc_call, callable,
                                        args, nargsf, kwnames));
  return tl_py_op_return(opfunc_call(callable, args, nargsf, kwnames));
}

static PyObject *opfunc_descr_get(PyObject *self, PyObject *obj, PyObject *type)
{
  (void)type;
  if (obj == NULL || obj == Py_None)
    return Py_NewRef(self);
  return PyMethod_New(self, obj);
}

static PyObject *opfunc_repr(PyObject *self)
{
  return PyUnicode_FromFormat("<torchlike op %U>", ((tl_py_opfunc *)self)->name);
}

static PyObject *opfunc_get_name(PyObject *self, void *closure)
{
  (void)closure;
  return Py_NewRef(((tl_py_opfunc *)self)->name);
}

static PyObject *opfunc_get_qualname(PyObject *self, void *closure)
{
  (void)closure;
  tl_py_opfunc *f = (tl_py_opfunc *)self;
  return f->method ? PyUnicode_FromFormat("Tensor.%U", f->name) : Py_NewRef(f->name);
}

static PyObject *opfunc_get_tf_name(PyObject *self, void *closure)
{
  (void)closure;
  return Py_NewRef(((tl_py_opfunc *)self)->tf_name);
}

static void opfunc_dealloc(PyObject *self)
{
  PyTypeObject *type = Py_TYPE(self);
  Py_XDECREF(((tl_py_opfunc *)self)->name);
  Py_XDECREF(((tl_py_opfunc *)self)->tf_name);
  type->tp_free(self);
  Py_DECREF(type);
}

static PyMemberDef opfunc_members[] = {
    {"__vectorcalloffset__", T_PYSSIZET, offsetof(tl_py_opfunc, vectorcall), READONLY, NULL},
    {NULL, 0, 0, 0, NULL},
};
static PyGetSetDef opfunc_getset[] = {
    {"__name__", opfunc_get_name, NULL, NULL, NULL},
    {"__qualname__", opfunc_get_qualname, NULL, NULL, NULL},
    {"_tf_name", opfunc_get_tf_name, NULL, NULL, NULL},
    {NULL, NULL, NULL, NULL, NULL},
};
static PyType_Slot opfunc_slots[] = {
    {Py_tp_call, PyVectorcall_Call},
    {Py_tp_descr_get, opfunc_descr_get},
    {Py_tp_repr, opfunc_repr},
    {Py_tp_members, opfunc_members},
    {Py_tp_getset, opfunc_getset},
    {Py_tp_dealloc, opfunc_dealloc},
    {0, NULL},
};
static PyType_Spec opfunc_spec = {
    .name = "torchlike._C.op",
    .basicsize = sizeof(tl_py_opfunc),
    .flags = Py_TPFLAGS_DEFAULT | Py_TPFLAGS_HAVE_VECTORCALL | Py_TPFLAGS_METHOD_DESCRIPTOR |
             Py_TPFLAGS_DISALLOW_INSTANTIATION,
    .slots = opfunc_slots,
};

static PyObject *opfunc_new(tl_op op, bool inplace, bool method)
{
  tl_py_opfunc *f = PyObject_New(tl_py_opfunc, opfunc_type);
  if (!f)
    return NULL;
  f->vectorcall = opfunc_vectorcall;
  f->op = op;
  f->inplace = inplace;
  f->method = method;
  f->name = PyUnicode_FromFormat("%s%s", tl_op_infos[op].name, inplace ? "_" : "");
  f->tf_name = f->name ? PyUnicode_FromFormat("torchlike.%s%U", method ? "Tensor." : "", f->name)
                       : NULL;
  if (!f->tf_name) {
    Py_DECREF(f);
    return NULL;
  }
  return (PyObject *)f;
}

int tl_py_ops_init(PyObject *module)
{
  module_ref = module;
  opfunc_type = (PyTypeObject *)PyType_FromSpec(&opfunc_spec);
  if (!opfunc_type)
    return -1;
  for (int op = 0; op < TL_OP_COUNT; op++) {
    tl_opkind kind = tl_op_infos[op].kind;
    if (!tl_opkind_has_function(kind))
      continue;
    bool has_inplace = kind == TL_OPKIND_UNARY || kind == TL_OPKIND_BINARY ||
                       kind == TL_OPKIND_CLAMP ||
                       (kind == TL_OPKIND_INDEX && tl_py_index_has_inplace((tl_op)op));
    for (int inplace = 0; inplace <= has_inplace; inplace++) {
      /* the module function and the Tensor method are two objects, as in
       * PyTorch: __torch_function__ receives the one that was called */
      for (int method = 0; method <= 1; method++) {
        if (method ? kind == TL_OPKIND_NN : inplace) /* nn ops are torch.nn.functional's */
          continue;
        PyObject *f = opfunc_new((tl_op)op, inplace, method);
        if (!f)
          return -1;
        PyObject *name = ((tl_py_opfunc *)f)->name;
        int r = method ? PyObject_SetAttr((PyObject *)tl_py_tensor_type, name, f)
                       : PyModule_AddObjectRef(module, PyUnicode_AsUTF8(name), f);
        if (method)
          opfuncs[op][inplace] = f; /* the type keeps it alive */
        Py_DECREF(f);
        if (r < 0)
          return -1;
      }
    }
  }
  return 0;
}

/* ---- operators --------------------------------------------------------------------- */

/* The Tensor attribute PyTorch hands __torch_function__ for an operator:
 * a - 1 is Tensor.sub, 1 - a Tensor.__rsub__(a, 1), a -= 1 Tensor.sub_, and
 * some operators keep their dunder (a ** 2 is Tensor.__pow__). */
static const char *operator_func(tl_op op, bool inplace, bool reflected)
{
  switch (op) {
#define OPERATOR(OP, fwd, refl, inpl) \
  case TL_OP_##OP:                   \
    return inplace ? inpl : reflected ? refl : fwd;
    OPERATOR(ADD, "add", "add", "add_")
    OPERATOR(SUB, "sub", "__rsub__", "sub_")
    OPERATOR(MUL, "mul", "mul", "mul_")
    OPERATOR(DIV, "div", "__rtruediv__", "div_")
    OPERATOR(FLOOR_DIVIDE, "__floordiv__", "__rfloordiv__", "floor_divide_")
    OPERATOR(REMAINDER, "remainder", "__rmod__", "remainder_")
    OPERATOR(POW, "__pow__", "__rpow__", "__ipow__")
    OPERATOR(BITWISE_AND, "__and__", "bitwise_and", "__iand__")
    OPERATOR(BITWISE_OR, "__or__", "bitwise_or", "__ior__")
    OPERATOR(BITWISE_XOR, "__xor__", "bitwise_xor", "__ixor__")
    OPERATOR(BITWISE_LEFT_SHIFT, "__lshift__", "__rlshift__", "__ilshift__")
    OPERATOR(BITWISE_RIGHT_SHIFT, "__rshift__", "__rrshift__", "__irshift__")
    OPERATOR(EQ, "__eq__", "__eq__", "__eq__")
#undef OPERATOR
  default: /* lt ... ge (Python reflects them itself), neg, abs, positive */
    return tl_op_infos[op].name;
  }
}

/* a <op> b with a __torch_function__ on either side: the tensor (self) first. */
static PyObject *operator_dispatch(tl_op op, PyObject *a, PyObject *b, bool inplace)
{
  bool reflected = !inplace && !tl_py_is_tensor(a) && tl_py_is_tensor(b);
  PyObject *args[2] = {reflected ? b : a, reflected ? a : b};
  PyObject *r = tl_py_tf_dispatch_attr(operator_func(op, inplace, reflected), args, 2);
  if (!r && !inplace && PyErr_ExceptionMatches(PyExc_TypeError)) {
    PyErr_Clear(); /* every handler refused: Python's "unsupported operand type(s)" */
    Py_RETURN_NOTIMPLEMENTED;
  }
  return r;
}

/* A list or tuple operand (pts * [2.0, 0.5]): PyTorch refuses it, NumPy converts
 * it as np.asarray does (float64 for Python floats, complex128 for complex) into
 * an array that takes part in the promotion.  torchlike.numpy.asarray converts it
 * so, on the tensor's device.  A new reference, or NULL with an exception set. */
static PyObject *numpy_operand(PyObject *seq, PyObject *tensor)
{
  PyObject *ns = NULL, *fn = NULL, *device = NULL, *args = NULL, *kwargs = NULL, *r = NULL;
  if (!(ns = PyImport_ImportModule("torchlike.numpy")) ||
      !(fn = PyObject_GetAttrString(ns, "asarray")) ||
      !(device = PyObject_GetAttrString(tensor, "device")) || !(args = PyTuple_Pack(1, seq)) ||
      !(kwargs = Py_BuildValue("{s:O}", "device", device)))
    goto fail;
  r = PyObject_Call(fn, args, kwargs);
fail:
  Py_XDECREF(ns);
  Py_XDECREF(fn);
  Py_XDECREF(device);
  Py_XDECREF(args);
  Py_XDECREF(kwargs);
  return r;
}

static PyObject *binary_operator_on(tl_op op, PyObject *a, PyObject *b, bool inplace);

/* Binary operator: NotImplemented when the other side is not something we take,
 * so Python can try the reflected method or raise its usual TypeError. */
static PyObject *binary_operator(tl_op op, PyObject *a, PyObject *b, bool inplace)
{
  PyObject *operands[2] = {a, b};
  tl_py_error_fresh();
  if (tl_py_tf_wanted(operands, 2))
    return operator_dispatch(op, a, b, inplace);
  bool list_a = PyList_Check(a) || PyTuple_Check(a), list_b = PyList_Check(b) || PyTuple_Check(b);
  if ((list_a && tl_py_is_tensor(b)) || (list_b && tl_py_is_tensor(a))) {
    PyObject *converted = numpy_operand(list_a ? a : b, list_a ? b : a);
    if (!converted)
      return NULL;
    PyObject *r = binary_operator_on(op, list_a ? converted : a, list_a ? b : converted, inplace);
    Py_DECREF(converted);
    return r;
  }
  return binary_operator_on(op, a, b, inplace);
}

/* binary_operator once no list or tuple operand is left. */
static PyObject *binary_operator_on(tl_op op, PyObject *a, PyObject *b, bool inplace)
{
  PyObject *operands[2] = {a, b};
  if (op == TL_OP_MUL && !tl_py_is_tensor(a) && tl_py_is_tensor(b)) {
    /* 2.77 * x is x * 2.77, as PyTorch's __rmul__: the scalar second, where
     * a half-precision product reads its full value (op.c, keeps_scalar) */
    operands[0] = b;
    operands[1] = a;
  }
  tl_op_params p = {.s = {{.kind = TL_KIND_INT, .v.i = 1}}};
  tl_prof_mark m = {.index = -1};
  if (TL_PROF_UNLIKELY(tl_prof_on))
    m = tl_prof_begin(TL_PROF_OP, ((tl_py_opfunc *)opfuncs[op][inplace])->name, operands, 2);
  PyObject *r = tl_py_grad_wanted(operands, 2)
                    ? tl_py_record(op, opfuncs[op][inplace], operands, 2, NULL, inplace)
                    : tl_py_map(op, 2, operands, inplace ? a : NULL, &p);
  if (TL_PROF_UNLIKELY(m.index >= 0))
    tl_prof_end(m);
  if (!r && PyErr_ExceptionMatches(PyExc_TypeError) && !(tl_py_is_tensor(a) && tl_py_is_tensor(b))) {
    PyObject *other = tl_py_is_tensor(a) ? b : a;
    /* a string is a sequence but no array: 'ab' * n repeats it (Python then
     * asks n.__index__), as with a NumPy integer */
    if ((!PyNumber_Check(other) && !PySequence_Check(other)) || PyUnicode_Check(other) ||
        PyBytes_Check(other)) {
      PyErr_Clear();
      Py_RETURN_NOTIMPLEMENTED;
    }
  }
  return tl_py_op_return(r);
}

static PyObject *unary_operator(tl_op op, PyObject *a)
{
  tl_op_params p = {0};
  tl_py_error_fresh();
  if (tl_py_tf_wanted(&a, 1))
    return tl_py_tf_dispatch_attr(op == TL_OP_BITWISE_NOT ? "__invert__" : tl_op_infos[op].name,
                                  &a, 1);
  tl_prof_mark m = {.index = -1};
  if (TL_PROF_UNLIKELY(tl_prof_on))
    m = tl_prof_begin(TL_PROF_OP, ((tl_py_opfunc *)opfuncs[op][0])->name, &a, 1);
  PyObject *r = tl_py_grad_wanted(&a, 1) ? tl_py_record(op, opfuncs[op][0], &a, 1, NULL, 0)
                                         : tl_py_map(op, 1, &a, NULL, &p);
  if (TL_PROF_UNLIKELY(m.index >= 0))
    tl_prof_end(m);
  return tl_py_op_return(r);
}

#define TL_BINARY_SLOT(fn, OP)                                               \
  static PyObject *fn(PyObject *a, PyObject *b) { return binary_operator(TL_OP_##OP, a, b, false); } \
  static PyObject *fn##_inplace(PyObject *a, PyObject *b) { return binary_operator(TL_OP_##OP, a, b, true); }
TL_BINARY_SLOT(nb_add, ADD)
TL_BINARY_SLOT(nb_sub, SUB)
TL_BINARY_SLOT(nb_mul, MUL)
TL_BINARY_SLOT(nb_truediv, DIV)
TL_BINARY_SLOT(nb_floordiv, FLOOR_DIVIDE)
TL_BINARY_SLOT(nb_rem, REMAINDER)
TL_BINARY_SLOT(nb_and, BITWISE_AND)
TL_BINARY_SLOT(nb_or, BITWISE_OR)
TL_BINARY_SLOT(nb_xor, BITWISE_XOR)
TL_BINARY_SLOT(nb_lshift, BITWISE_LEFT_SHIFT)
TL_BINARY_SLOT(nb_rshift, BITWISE_RIGHT_SHIFT)

static PyObject *nb_pow(PyObject *a, PyObject *b, PyObject *mod)
{
  if (mod != Py_None)
    return PyErr_Format(PyExc_TypeError, "pow() with a modulus is not supported for tensors");
  return binary_operator(TL_OP_POW, a, b, false);
}
static PyObject *nb_pow_inplace(PyObject *a, PyObject *b, PyObject *mod)
{
  if (mod != Py_None)
    return PyErr_Format(PyExc_TypeError, "pow() with a modulus is not supported for tensors");
  return binary_operator(TL_OP_POW, a, b, true);
}

static PyObject *nb_neg(PyObject *a) { return unary_operator(TL_OP_NEG, a); }
static PyObject *nb_pos(PyObject *a) { return unary_operator(TL_OP_POSITIVE, a); }
static PyObject *nb_abs(PyObject *a) { return unary_operator(TL_OP_ABS, a); }
static PyObject *nb_invert(PyObject *a) { return unary_operator(TL_OP_BITWISE_NOT, a); }

/* a @ b: matmul is declared by the linear-algebra files as _C.matmul. */
static PyObject *nb_matmul(PyObject *a, PyObject *b)
{
  PyObject *operands[2] = {a, b};
  if (tl_py_tf_wanted(operands, 2)) {
    bool reflected = !tl_py_is_tensor(a) && tl_py_is_tensor(b);
    PyObject *args[2] = {reflected ? b : a, reflected ? a : b};
    return tl_py_tf_dispatch_attr(reflected ? "__rmatmul__" : "matmul", args, 2);
  }
  /* Tensors of two dtypes (uint8 pixels @ float64 weights): PyTorch refuses,
   * NumPy promotes; and a list, tuple or ndarray operand (A @ [1.0, 2.0]):
   * PyTorch refuses, NumPy converts it as np.asarray does (float64 for
   * floats, int64 for ints) and promotes.  No PyTorch program can depend on
   * the refusals, so the operator takes np.matmul's meaning (docs/numpy.md,
   * the ndarray surface).  The functions (torchlike.matmul, mm ...) keep
   * refusing. */
  if (!tl_py_is_tensor(a) || !tl_py_is_tensor(b) || tl_py_t(a)->dtype != tl_py_t(b)->dtype) {
    PyObject *ns = PyImport_ImportModule("torchlike.numpy");
    if (!ns)
      return NULL;
    PyObject *r = PyObject_CallMethod(ns, "matmul", "OO", a, b);
    Py_DECREF(ns);
    return r;
  }
  PyObject *fn = PyObject_GetAttrString(module_ref, "matmul");
  if (!fn)
    return NULL;
  PyObject *r = PyObject_CallFunctionObjArgs(fn, a, b, NULL);
  Py_DECREF(fn);
  return r;
}

static PyObject *richcompare(PyObject *a, PyObject *b, int cmp)
{
  static const tl_op ops[] = {[Py_LT] = TL_OP_LT, [Py_LE] = TL_OP_LE, [Py_EQ] = TL_OP_EQ,
                              [Py_NE] = TL_OP_NE, [Py_GT] = TL_OP_GT, [Py_GE] = TL_OP_GE};
  if (b == Py_None) /* t == None is False, as in PyTorch */
    Py_RETURN_NOTIMPLEMENTED;
  PyObject *r = binary_operator(ops[cmp], a, b, false);
  /* == and != with something that is no array (a string: `if x == "":` in
   * code that mixes arrays and markers) answer by identity, as PyTorch's
   * operators turn the TypeError into NotImplemented; NumPy gives False for
   * a scalar too.  <, > ... keep the TypeError. */
  if (!r && (cmp == Py_EQ || cmp == Py_NE) && PyErr_ExceptionMatches(PyExc_TypeError)) {
    PyErr_Clear();
    Py_RETURN_NOTIMPLEMENTED;
  }
  return r;
}

PyType_Slot tl_py_number_slots[] = {
    {Py_nb_add, nb_add},
    {Py_nb_subtract, nb_sub},
    {Py_nb_multiply, nb_mul},
    {Py_nb_true_divide, nb_truediv},
    {Py_nb_floor_divide, nb_floordiv},
    {Py_nb_remainder, nb_rem},
    {Py_nb_power, nb_pow},
    {Py_nb_and, nb_and},
    {Py_nb_or, nb_or},
    {Py_nb_xor, nb_xor},
    {Py_nb_lshift, nb_lshift},
    {Py_nb_rshift, nb_rshift},
    {Py_nb_inplace_add, nb_add_inplace},
    {Py_nb_inplace_subtract, nb_sub_inplace},
    {Py_nb_inplace_multiply, nb_mul_inplace},
    {Py_nb_inplace_true_divide, nb_truediv_inplace},
    {Py_nb_inplace_floor_divide, nb_floordiv_inplace},
    {Py_nb_inplace_remainder, nb_rem_inplace},
    {Py_nb_inplace_power, nb_pow_inplace},
    {Py_nb_inplace_and, nb_and_inplace},
    {Py_nb_inplace_or, nb_or_inplace},
    {Py_nb_inplace_xor, nb_xor_inplace},
    {Py_nb_inplace_lshift, nb_lshift_inplace},
    {Py_nb_inplace_rshift, nb_rshift_inplace},
    {Py_nb_negative, nb_neg},
    {Py_nb_positive, nb_pos},
    {Py_nb_absolute, nb_abs},
    {Py_nb_invert, nb_invert},
    {Py_nb_matrix_multiply, nb_matmul},
    {Py_tp_richcompare, richcompare},
    {0, NULL},
};
