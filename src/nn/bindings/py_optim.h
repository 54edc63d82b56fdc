/* py_optim.h - registers torchlike._C._optim_step (py_optim.c). */
#ifndef TL_PY_OPTIM_H
#define TL_PY_OPTIM_H

#include <Python.h>

int tl_py_optim_init(PyObject *module);

#endif
