/* py_create.h - what the creation and random functions (py_create.c,
 * py_random.c) share once the generated binders (generated/bindings.c) have
 * parsed their arguments: PyTorch's factory keywords dtype=, device=,
 * requires_grad=, out=, a new tensor on its device, the result.           */
#ifndef TL_PY_CREATE_H
#define TL_PY_CREATE_H

#include "ndcore/bindings/generated/bindings.h"

typedef struct {
  int dtype;         /* -1: not given */
  tl_device device;  /* where the result is made: device=, else the default device */
  bool device_given; /* device= was passed (a _like input's device yields to it) */
  PyObject *out;     /* borrowed; NULL when not given */
  bool requires_grad;
  int format;             /* memory_format= as a tl_format; -1: not given */
  const tl_tensor *like;  /* a _like form's input, whose layout is kept by default */
} tl_py_factory_opts;

/* The factory keywords of a generated argument struct (every factory's
 * tl_py_args_<name> has these fields by these names; the _like forms have
 * no out=). */
#define TL_PY_FACTORY_OPTS(a)                                                              \
  ((tl_py_factory_opts){.dtype = (a)->dtype, .device = (a)->device,                        \
                        .device_given = (a)->has_device, .out = (a)->out,                  \
                        .requires_grad = (a)->requires_grad, .format = (a)->memory_format})
#define TL_PY_LIKE_OPTS(a)                                                                 \
  ((tl_py_factory_opts){.dtype = (a)->dtype, .device = (a)->device,                        \
                        .device_given = (a)->has_device, .requires_grad = (a)->requires_grad, \
                        .format = (a)->memory_format})

/* A new tensor for `func` on its device (out='s when out= is given without
 * device=), zeroed or uninitialised, to be filled by op's kernel
 * (TL_OP_COUNT: none, as for empty), laid out as memory_format= says (the
 * _like forms: as their input, by default).  Refuses before allocating: a device
 * without a backend, and a device with no kernel of op for dtype, with the
 * kernel table's NotImplementedError naming func, the device and the dtype. */
int tl_py_factory_new(const char *func, tl_op op, tl_dtype dtype, int ndim, const int64_t *shape,
                      const tl_py_factory_opts *o, bool zeroed, tl_tensor *t);

/* The dtype a factory allocates: dtype=, else out='s, else `fallback`; a
 * TypeError when dtype= and out= disagree. */
int tl_py_factory_dtype(const char *func, const tl_py_factory_opts *o, tl_dtype fallback,
                        tl_dtype *dtype);

/* Return t as the factory's result, or copy it into out= (t is consumed).  A
 * tensor made on the host from Python data is copied to o->device. */
PyObject *tl_py_factory_finish(tl_tensor *t, const tl_py_factory_opts *o);

/* Sizes given as f(2, 3), f((2, 3)) or f(torchlike.Size([2, 3])) (py_views.c). */
int tl_py_parse_shape(const char *func, PyObject *const *args, Py_ssize_t nargs, int64_t *shape,
                      int *ndim);

/* A number, or a one-element tensor, as a scalar; TypeError naming `what`. */
int tl_py_number_arg(const char *func, const char *what, PyObject *o, tl_scalar *s);

/* A real number: TypeError naming `what` when s is complex; a bool becomes an int. */
int tl_py_real_scalar(const char *func, const char *what, tl_scalar *s);

#endif
