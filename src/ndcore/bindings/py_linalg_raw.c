/* py_linalg_raw.c - LAPACK's raw factorisations as PyTorch exposes them:
 * Tensor._geqrf (torch.geqrf, Tensor.geqrf in _linalg_api.py).  The
 * arguments are bound by generated code (signatures.txt, [linalg]). */
#include "ndcore/bindings/generated/bindings.h"
#include "ndcore/bindings/py_tensor.h"
#include "ndcore/linalg/tl_linalg.h"

PyObject *tl_py_impl_geqrf(const char *name, const tl_py_args_geqrf *a)
{
  (void)name;
  tl_py_tensor *r[2] = {tl_py_tensor_alloc(), tl_py_tensor_alloc()};
  PyObject *out = NULL;
  if (!r[0] || !r[1])
    goto done;
  if (tl_linalg_geqrf(&r[0]->t, &r[1]->t, tl_py_t(a->input)) != TL_OK) {
    tl_py_raise();
    goto done;
  }
  out = PyTuple_Pack(2, (PyObject *)r[0], (PyObject *)r[1]);
done:
  Py_XDECREF(r[0]);
  Py_XDECREF(r[1]);
  return out;
}
