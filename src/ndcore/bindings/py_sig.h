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

#include <Python.h>

typedef enum {
  TL_PY_ARG_TENSOR,
  TL_PY_ARG_TENSOR_LIST,
  TL_PY_ARG_INT,
  TL_PY_ARG_INT_LIST,     /* an int or a sequence of ints */
  TL_PY_ARG_INT_VARARGS,  /* an int list that may also come as trailing positionals */
  TL_PY_ARG_INT_NESTED,   /* ints nested in sequences */
  TL_PY_ARG_INT_OR_TENSOR, /* an int, or a tensor taken as a tensor */
  TL_PY_ARG_BOOL,
  TL_PY_ARG_FLOAT,
  TL_PY_ARG_SCALAR,
  TL_PY_ARG_STR,
  TL_PY_ARG_DTYPE,
  TL_PY_ARG_DEVICE,
  TL_PY_ARG_GENERATOR,
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

/* torchlike._C._signatures(): [(name, family, [(param, type, default, kwonly)]), ...] */
PyObject *tl_py_signatures(PyObject *self, PyObject *unused);

#endif
