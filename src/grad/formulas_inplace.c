/* formulas_inplace.c - the base's side of an in-place write through a view.
 *
 * After `v.mul_(2)` where v is a recorded view of base b, b's history is a
 * CopySlices node (py_record.c) with two inputs: b as it was, and v as it now
 * is, plus v's geometry inside b (size, stride, offset relative to b, which
 * is contiguous).  Legend: g is the gradient of the new b.                */
#include "grad/py_grad.h"

static void backward(tl_grad_ctx *c)
{
  PyObject *g = CALL("contiguous", "O", G(0));
  PyObject *old_base = ARG(0, NULL), *view = ARG(1, NULL);
  PyObject *size = ARG(2, NULL), *stride = ARG(3, NULL), *offset = ARG(4, NULL);
  /* the view's elements came from the write: their gradient goes to it ... */
  if (NEEDS(view))
    SEND(view, CALL("as_strided", "OOOO", g, size, stride, offset));
  /* ... and the rest of the base is what it was */
  if (NEEDS(old_base)) {
    PyObject *keep = CALL("ones_like", "O", g);
    CALL("fill_", "Od", CALL("as_strided", "OOOO", keep, size, stride, offset), 0.0);
    SEND(old_base, CALL("mul", "OO", g, keep));
  }
}

void tl_grad_formulas_inplace_init(void)
{
  tl_grad_formulas[TL_GRAD_COPY_SLICES] = backward;
}
