/* py_numpy.h - NumPy's C API, imported once (in py_module.c) for all py_*.c. */
#ifndef TL_PY_NUMPY_H
#define TL_PY_NUMPY_H
#define PY_ARRAY_UNIQUE_SYMBOL tl_numpy_api
#ifndef TL_NUMPY_IMPORT
#define NO_IMPORT_ARRAY
#endif
#include <numpy/arrayobject.h>
#endif
