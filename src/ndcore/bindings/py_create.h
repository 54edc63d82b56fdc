/* py_create.h - argument parsing shared by the creation and random functions
 * (py_create.c, py_random.c): sizes, and PyTorch's factory keywords
 * dtype=, device=, requires_grad=, out=, layout=, pin_memory=.            */
#ifndef TL_PY_CREATE_H
#define TL_PY_CREATE_H

#include "ndcore/bindings/py_tensor.h"

typedef struct {
  int dtype; /* -1: not given */
  tl_device device; /* where the function builds it: the CPU when target is elsewhere */
  tl_device target; /* where the result goes (device=, else the default device) */
  bool device_given; /* device= was passed (a _like input's device yields to it) */
  PyObject *out; /* borrowed; NULL when not given */
  bool requires_grad;
} tl_py_factory_opts;

/* Parse the keywords of `func`.  `names` (NULL-terminated, may be NULL) lists
 * the function's own parameters that may also come by keyword (size,
 * fill_value, generator ...): their values land in values[i], NULL when
 * absent.  Rejects unknown keywords, a device we cannot allocate on, and
 * requires_grad=True (autograd is not built yet). */
int tl_py_factory_opts_parse(const char *func, PyObject *const *kwvalues, PyObject *kwnames,
                             const char *const *names, PyObject **values, tl_py_factory_opts *o);

/* Sizes given as f(2, 3), f((2, 3)) or f(torchlike.Size([2, 3])) (py_views.c). */
int tl_py_parse_shape(const char *func, PyObject *const *args, Py_ssize_t nargs, int64_t *shape,
                      int *ndim);

/* The sizes of a factory: positional args, or size= when none are given. */
int tl_py_factory_shape(const char *func, PyObject *const *args, Py_ssize_t nargs,
                        PyObject *size_kw, int64_t *shape, int *ndim);

/* The dtype a factory allocates: dtype=, else out='s, else `fallback`; a
 * TypeError when dtype= and out= disagree. */
int tl_py_factory_dtype(const char *func, const tl_py_factory_opts *o, tl_dtype fallback,
                        tl_dtype *dtype);

/* Return t as the factory's result, or copy it into out= (t is consumed). */
PyObject *tl_py_factory_finish(tl_tensor *t, const tl_py_factory_opts *o);

/* Tensor.new_zeros/new_ones/new_empty/new_full/new_tensor (py_create.c),
 * added to Tensor by tl_py_random_init. */
extern PyMethodDef tl_py_create_methods[];

/* A number, or a one-element tensor, as a scalar; TypeError naming `what`. */
int tl_py_number_arg(const char *func, const char *what, PyObject *o, tl_scalar *s);

#endif
