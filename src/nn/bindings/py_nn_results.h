/* py_nn_results.h - the tuple results of the src/nn ops with several
 * outputs (rnn, attention, pool); defined in py_nn_results.c. */
#ifndef TL_PY_NN_RESULTS_H
#define TL_PY_NN_RESULTS_H

#include "ndcore/bindings/py_tensor.h"

/* An optional tensor argument's view, NULL for None. */
static inline const tl_tensor *tl_py_nn_opt(PyObject *o) { return o ? tl_py_t(o) : NULL; }

/* n fresh tensor objects in r; -1 with an error set (and r cleared). */
int tl_py_nn_alloc(tl_py_tensor **r, int n);
/* The tuple of r[0..n) (an output left unallocated is None), or the error of
 * a failed entry point; r's references are taken either way. */
PyObject *tl_py_nn_pack(tl_py_tensor **r, int n, tl_status status);

#endif
