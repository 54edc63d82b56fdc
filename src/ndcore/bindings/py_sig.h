/* py_sig.h - op signatures, declared once in signatures.txt and turned into
 * tables by scripts/gen_bindings.py (generated/signatures.c).
 *
 * A signature names each parameter, its kind and its default.  The recorder
 * normalises the int arguments of a call through it before running and
 * recording the call, so the forward pass and the formulas that read the
 * call back see the same Python ints (never a 0-d tensor, whose data a
 * metadata stub on the tape would not have). */
#ifndef TL_PY_SIG_H
#define TL_PY_SIG_H

#include "ndcore/bindings/py_tensor.h"
#include "ndcore/kernels/tl_random.h"

typedef enum {
  TL_PY_ARG_TENSOR,
  TL_PY_ARG_TENSOR_LIST,
  TL_PY_ARG_INT,
  TL_PY_ARG_INT_LIST,     /* an int or a sequence of ints */
  TL_PY_ARG_INT_VARARGS,  /* an int list that may also come as trailing positionals */
  TL_PY_ARG_INT_NESTED,   /* ints nested in sequences */
  TL_PY_ARG_INT_OR_TENSOR, /* an int, or a tensor taken as a tensor */
  TL_PY_ARG_TENSOR_VARARGS, /* the tensors of f(a, b) or of f([a, b]) */
  TL_PY_ARG_TENSOR_SPREAD,  /* the tensors of f(a, b) only (Python's *tensors) */
  TL_PY_ARG_INT_LIST_SPREAD, /* int lists given f((2, 3), 4) (Python's *shapes) */
  TL_PY_ARG_BOOL,
  TL_PY_ARG_FLOAT,
  TL_PY_ARG_SCALAR,
  TL_PY_ARG_STR,
  TL_PY_ARG_DTYPE,
  TL_PY_ARG_DEVICE,
  TL_PY_ARG_GENERATOR,
  TL_PY_ARG_MEMORY_FORMAT,
  TL_PY_ARG_ANY,
} tl_py_arg_kind;

enum {
  TL_PY_ARG_OPTIONAL = 1, /* may be None */
  TL_PY_ARG_KWONLY = 2,
  TL_PY_ARG_REQUIRED = 4, /* no default */
};

typedef struct {
  const char *name;
  tl_py_arg_kind kind;
  int flags;
  const char *dflt; /* the default as declared, or NULL */
} tl_py_param;

typedef struct {
  const char *name;
  const char *family; /* the binding file's family: reduce, shape, view ... */
  const tl_py_param *params;
  int nparams, npos;
  const char *text; /* the declaration */
} tl_py_sig;

extern const tl_py_sig tl_py_sigs[];
extern const int tl_py_sig_count;

/* The signature of op `name`, or NULL. */
const tl_py_sig *tl_py_sig_find(const char *name);

/* A vectorcall's arguments with every int-kind argument in Python-int form:
 * 0-d integer tensors and NumPy ints become ints, 1-d integer tensors and
 * sequences given for int lists become tuples of ints.  *normalized is NULL
 * when nothing needed changing (use args as they are), else a new array of
 * new references of the same length and layout (free it with
 * tl_py_sig_args_free).  Values that are not ints at all are left for the
 * op's own parsing to reject. */
int tl_py_sig_normalize(const tl_py_sig *sig, PyObject *const *args, Py_ssize_t nargs,
                        PyObject *kwnames, PyObject ***normalized);
void tl_py_sig_args_free(PyObject **args, Py_ssize_t n);

/* torchlike._C._signatures(): [(name, family, [(param, type, optional, default, kwonly)],
 * declaration), ...] */
PyObject *tl_py_signatures(PyObject *self, PyObject *unused);

/* ---- typed arguments (the generated binders, generated/bindings.c) -------------------
 * An ops.def op whose signature names an implementation (`-> impl`) is bound
 * by generated code: its arguments are converted into the struct
 * tl_py_args_<impl> and tl_py_impl_<impl>(op, &args) runs it.  The
 * converters below fill one field each from an argument (NULL: absent);
 * absent or None leaves the field at its default, unless the parameter is
 * required.  Errors are TypeErrors naming the function and the parameter. */

#define TL_PY_MAX_INTS (2 * TL_MAX_DIMS)
typedef struct {
  int64_t v[TL_PY_MAX_INTS];
  int n;
  bool given; /* false: None or absent */
  bool one;   /* given as one int rather than a sequence */
} tl_py_ints;

/* An int list of any length (int[N]: the sizes split cuts into): the first
 * TL_PY_MAX_INTS in place, longer ones on the heap.  v is NULL until the
 * converter runs; the binder releases it after the call. */
typedef struct {
  int64_t *v;
  Py_ssize_t n;
  bool given; /* false: None or absent */
  bool one;   /* given as one int rather than a sequence */
  int64_t small[TL_PY_MAX_INTS];
} tl_py_intvec;
int tl_py_arg_intvec(const char *func, const char *name, PyObject *o, tl_py_intvec *v);
/* int[N]|Tensor: a tensor is taken as it is (*t), anything else as ints. */
int tl_py_arg_intvec_or_tensor(const char *func, const char *name, PyObject *o, tl_py_intvec *v,
                               PyObject **t);
void tl_py_intvec_release(tl_py_intvec *v);

/* TensorLike: a tensor (borrowed), or anything torchlike.tensor() takes,
 * converted for the call (owned; the binder releases it). t is NULL for an
 * optional one absent or None. */
typedef struct {
  const tl_tensor *t;
  tl_tensor converted;
  bool owned;
} tl_py_tensorlike;
int tl_py_arg_tensorlike(const char *func, const char *name, PyObject *o, bool optional,
                         tl_py_tensorlike *v);
void tl_py_tensorlike_release(tl_py_tensorlike *v);

/* tl_py_bind_args with the common call inline: positionals only, as many as
 * the signature takes and no fewer than it needs.  n: the parameter count. */
static inline int tl_py_bind(const char *func, PyObject *const *args, Py_ssize_t nargs,
                             PyObject *kwnames, const char *const *names, int n, int npos,
                             int nrequired, PyObject **values)
{
  if (kwnames || nargs > npos || nargs < nrequired)
    return tl_py_bind_args(func, args, nargs, kwnames, names, npos, nrequired, values);
  for (int i = 0; i < n; i++)
    values[i] = i < nargs ? args[i] : NULL;
  return 0;
}

typedef PyObject *(*tl_py_binder)(tl_op op, PyObject *const *args, Py_ssize_t nargs,
                                  PyObject *kwnames);
/* The generated binder of each op (NULL: bound by hand in its family's file). */
extern const tl_py_binder tl_py_op_binders[TL_OP_COUNT];
/* The binder of an op's in-place form, t.scatter_(...) (@inplace ops). */
extern const tl_py_binder tl_py_op_inplace_binders[TL_OP_COUNT];
/* "scatter" or "scatter_": the name a call's messages give. */
const char *tl_py_op_name(tl_op op, bool inplace);

/* tl_py_bind_args for a signature whose last positional parameter is int...:
 * more positionals than the parameters before it plus one are that
 * parameter's ints given spread, f(2, 3) for f((2, 3)); they are left in
 * *spread (NULL when not spread) for tl_py_arg_int_varargs. */
int tl_py_bind_varargs(const char *func, PyObject *const *args, Py_ssize_t nargs,
                       PyObject *kwnames, const char *const *names, int npos, int nrequired,
                       PyObject **values, PyObject *const **spread, Py_ssize_t *nspread);
/* An int... parameter: the spread ints, or else o as for tl_py_arg_ints. */
int tl_py_arg_int_varargs(const char *func, const char *name, PyObject *o,
                          PyObject *const *spread, Py_ssize_t nspread, tl_py_ints *v);
/* Tensor[], Tensor... and *Tensor: the tensors of a list or of the
 * positionals, each checked to be one.  seq (owned) keeps a list's tensors
 * alive: a tuple of its own, never the caller's list, which another thread
 * may empty while a kernel runs without the GIL.  Spread positionals need
 * none: the caller holds them for the call.  t is NULL until the converter
 * runs; the binder releases it after the call. */
typedef struct {
  const tl_tensor **t; /* n of them */
  int n;
  bool one; /* Tensor...: one tensor given alone, f(a), rather than f([a]) */
  PyObject *seq;
  const tl_tensor *small[8];
} tl_py_tensors;
/* Tensor[]: a tuple or list of tensors. */
int tl_py_arg_tensors(const char *func, const char *name, PyObject *o, tl_py_tensors *v);
/* Tensor... (seq_ok: one list or tuple stands for its items, f([a, b])) and
 * *Tensor (spread only): the n spread positionals. */
int tl_py_arg_tensor_spread(const char *func, PyObject *const *spread, Py_ssize_t n, bool seq_ok,
                            tl_py_tensors *v);
void tl_py_tensors_release(tl_py_tensors *v);

/* *int[]: the spread positionals as given, each an int or a sequence of
 * ints that the implementation converts (tl_py_arg_ints). */
typedef struct {
  PyObject *const *v; /* borrowed */
  Py_ssize_t n;
} tl_py_spread;

/* tl_py_bind_args for a signature whose parameter k is a spread (*Tensor,
 * Tensor..., *int[]): the positionals from k on are its items (*spread,
 * *nspread), never nameable by keyword; the parameters before k are bound
 * as usual, those after it by keyword only. */
int tl_py_bind_spread(const char *func, PyObject *const *args, Py_ssize_t nargs,
                      PyObject *kwnames, const char *const *names, int k, int nrequired,
                      PyObject **values, PyObject *const **spread, Py_ssize_t *nspread);

/* Whether a vectorcall's keywords include `name` (an overload's binder is
 * chosen by a keyword only it has: x.to(tensor=y)). */
static inline bool tl_py_keyword_given(PyObject *kwnames, const char *name)
{
  for (Py_ssize_t i = 0, n = kwnames ? PyTuple_GET_SIZE(kwnames) : 0; i < n; i++)
    if (PyUnicode_CompareWithASCIIString(PyTuple_GET_ITEM(kwnames, i), name) == 0)
      return true;
  return false;
}

/* An overloaded signature's arguments that fit none of its n overloads: a
 * TypeError from a converter becomes PyTorch's "f() received an invalid
 * combination of arguments - got (str, str), but expected one of:" with
 * the overloads' parameter lists; other errors pass as they are.  NULL. */
PyObject *tl_py_no_overload(const char *func, PyObject *const *args, Py_ssize_t nargs,
                            PyObject *kwnames, const char *const *overloads, int n);

/* int|Tensor: a tensor is taken as it is (*t), anything else as an int (*v);
 * *given is false for None or absent. */
int tl_py_arg_int_or_tensor(const char *func, const char *name, PyObject *o, int64_t *v,
                            PyObject **t, bool *given);

/* The converters' slow paths (py_sig.c); the inline fronts below take the
 * common absent/None/exact cases without a call. */
int tl_py_arg_missing(const char *func, const char *name);
int tl_py_arg_tensor_slow(const char *func, const char *name, PyObject *o);
int tl_py_arg_ints_slow(const char *func, const char *name, PyObject *o, tl_py_ints *v);
int tl_py_arg_bool_slow(const char *func, const char *name, PyObject *o, bool *v);

static inline int tl_py_arg_tensor(const char *func, const char *name, PyObject *o,
                                   bool optional, PyObject **t)
{
  *t = NULL;
  if (!o || o == Py_None)
    return optional ? 0 : tl_py_arg_missing(func, name);
  if (!tl_py_is_tensor(o))
    return tl_py_arg_tensor_slow(func, name, o);
  *t = o;
  return 0;
}

/* out=: None, or a tensor that may be written now (not read-only, and not
 * an inference tensor outside inference mode); every kernel behind an out=
 * is spared the check. */
int tl_py_arg_out_slow(const char *func, PyObject *o);
static inline int tl_py_arg_out(const char *func, PyObject *o, PyObject **t)
{
  if (tl_py_arg_tensor(func, "out", o, true, t) < 0)
    return -1;
  if (*t && (tl_py_t(*t)->storage->readonly || tl_py_t(*t)->storage->inference))
    return tl_py_arg_out_slow(func, *t);
  return 0;
}

/* A Python int, NumPy int or 0-d integer tensor (not a bool). */
int tl_py_arg_int_slow(const char *func, const char *name, PyObject *o, bool required,
                       int64_t *v, bool *given);
static inline int tl_py_arg_int(const char *func, const char *name, PyObject *o, bool required,
                                int64_t *v, bool *given)
{
  if (o && PyLong_CheckExact(o)) { /* the common case without a call */
    int overflow;
    long long x = PyLong_AsLongLongAndOverflow(o, &overflow);
    if (!overflow) {
      *v = x;
      if (given)
        *given = true;
      return 0;
    }
  }
  return tl_py_arg_int_slow(func, name, o, required, v, given);
}

/* An int, or a sequence (or 1-d integer tensor) of them.  func may be NULL
 * (the messages then name the argument alone). */
static inline int tl_py_arg_ints(const char *func, const char *name, PyObject *o, tl_py_ints *v)
{
  if (!o || o == Py_None) {
    v->n = 0;
    v->given = v->one = false;
    return 0;
  }
  if (PyLong_CheckExact(o)) { /* one int, the common case, without a call */
    int overflow;
    long long x = PyLong_AsLongLongAndOverflow(o, &overflow);
    if (!overflow) {
      v->v[0] = x;
      v->n = 1;
      v->given = v->one = true;
      return 0;
    }
  }
  return tl_py_arg_ints_slow(func, name, o, v);
}

/* A bool, an int, a NumPy bool or a 0-d bool/int tensor. */
static inline int tl_py_arg_bool(const char *func, const char *name, PyObject *o, bool *v)
{
  if (!o || o == Py_None)
    return 0;
  if (PyBool_Check(o)) {
    *v = o == Py_True;
    return 0;
  }
  return tl_py_arg_bool_slow(func, name, o, v);
}

/* int[]|Tensor: a tensor is taken as it is (*t), anything else as ints. */
int tl_py_arg_ints_or_tensor(const char *func, const char *name, PyObject *o, tl_py_ints *v,
                             PyObject **t);
/* bool? : as tl_py_arg_bool, *given false for None or absent. */
int tl_py_arg_bool_given(const char *func, const char *name, PyObject *o, bool *v, bool *given);
int tl_py_arg_float(const char *func, const char *name, PyObject *o, double *v, bool *given);
int tl_py_arg_str(const char *func, const char *name, PyObject *o, const char **v);
/* A dtype (tl_py_parse_dtype's forms); None leaves *dtype as it is (-1)
 * where the parameter is optional and is a TypeError where it is not. */
int tl_py_arg_dtype_slow(const char *func, const char *name, PyObject *o, int *dtype);
static inline int tl_py_arg_dtype(const char *func, const char *name, PyObject *o, bool optional,
                                  int *dtype)
{
  return !o || (o == Py_None && optional) ? 0 : tl_py_arg_dtype_slow(func, name, o, dtype);
}
int tl_py_arg_scalar(const char *func, const char *name, PyObject *o, tl_scalar *v, bool *given);
/* A device: the default device (torchlike.set_default_device) when None or
 * absent, *given false. */
static inline int tl_py_arg_device(const char *func, const char *name, PyObject *o,
                                   tl_device *v, bool *given)
{
  (void)func;
  (void)name;
  *given = o && o != Py_None;
  if (!*given)
    *v = tl_py_default_device();
  return *given ? tl_py_parse_device(o, v) : 0;
}
/* A torchlike.Generator, or NULL when None or absent (py_random.c); the
 * draw resolves NULL to its device's default with tl_py_generator_for. */
int tl_py_arg_generator(const char *func, const char *name, PyObject *o, tl_generator **g);
/* A torchlike.memory_format as a tl_format; None or absent leaves *format
 * as it is (-1), anything else is a TypeError (py_create.c). */
int tl_py_arg_memory_format(const char *func, const char *name, PyObject *o, int *format);
/* The generator to draw on `device` with: g itself when its device type is
 * device's (else NULL with a RuntimeError in the core's error), or for g
 * NULL (generator=None) that device's default generator. */
tl_generator *tl_py_generator_for(tl_generator *g, tl_device device);

/* Reduction dims as a bitmask over ndim dims, wrapped: all of them when not
 * given; a repeated dim is an error. */
int tl_py_ints_dims(const tl_py_ints *dims, int ndim, uint64_t *mask);

#endif
