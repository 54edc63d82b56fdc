/* py_profiler.h - op-level events for torchlike.profiler.
 *
 * Entries (op functions, operators, the wrapped functions of grad_fns.def,
 * the backward engine) test `tl_prof_on` and only when it is set open an
 * event with tl_prof_begin and close it with tl_prof_end.  Off, the cost is
 * that one branch on a global.  Events are recorded under the GIL, which
 * every entry holds, so threads never write the buffer at once.           */
#ifndef TL_PY_PROFILER_H
#define TL_PY_PROFILER_H

#include <Python.h>
#include <stdint.h>

extern int tl_prof_on;

/* What an event's name means; Python composes the shown name from it. */
enum {
  TL_PROF_OP = 0,        /* "aten::<name>" */
  TL_PROF_USER = 1,      /* record_function(name), the name as given */
  TL_PROF_NODE = 2,      /* a backward node's formula: "MulBackward0" */
  TL_PROF_EVALUATE = 3,  /* "autograd::engine::evaluate_function: MulBackward0" */
};

typedef struct {
  Py_ssize_t index; /* -1: nothing was recorded */
  uint64_t generation;
} tl_prof_mark;

#define TL_PROF_UNLIKELY(x) __builtin_expect(!!(x), 0)

/* Opens an event (name borrowed, args are the call's arguments for its input
 * shapes).  Never raises: an event that cannot be stored is dropped. */
tl_prof_mark tl_prof_begin(int kind, PyObject *name, PyObject *const *args, Py_ssize_t nargs);
void tl_prof_end(tl_prof_mark m);

/* fn(callable, args...) inside an op event named `name`. */
PyObject *tl_prof_call(PyObject *name, vectorcallfunc fn, PyObject *callable,
                       PyObject *const *args, size_t nargsf, PyObject *kwnames);

extern PyMethodDef tl_py_profiler_functions[];

#endif
