/* py_nn_results.c - the tuple results of the src/nn ops with several
 * outputs (py_nn_results.h). */
#include "nn/bindings/py_nn_results.h"

int tl_py_nn_alloc(tl_py_tensor **r, int n)
{
  for (int k = 0; k < n; k++)
    r[k] = NULL;
  for (int k = 0; k < n; k++) {
    if (!(r[k] = tl_py_tensor_alloc())) {
      for (int j = 0; j < k; j++)
        Py_CLEAR(r[j]);
      return -1;
    }
  }
  return 0;
}

PyObject *tl_py_nn_pack(tl_py_tensor **r, int n, tl_status status)
{
  PyObject *tuple = status == TL_OK ? PyTuple_New(n) : NULL;
  for (int k = 0; k < n; k++) {
    if (tuple && r[k]->t.storage)
      PyTuple_SET_ITEM(tuple, k, (PyObject *)r[k]);
    else {
      if (tuple)
        PyTuple_SET_ITEM(tuple, k, Py_NewRef(Py_None));
      Py_DECREF(r[k]);
    }
  }
  if (status != TL_OK)
    return tl_py_raise();
  return tuple;
}
