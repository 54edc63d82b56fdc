/* py_nn_activation.c - torchlike._C.relu, gelu ... and their backward ops
 * (src/nn/activation).  The arguments are bound by generated code
 * (signatures.txt, [nn_activation]); these run the entry points. */
#include <string.h>

#include "ndcore/bindings/generated/args_nn_activation.h"
#include "ndcore/bindings/py_tensor.h"
#include "nn/activation/tl_activation.h"

/* A fresh result, or `out` written in place (then returned). */
static PyObject *forward(tl_op op, PyObject *input, PyObject *out, double a, double b, double c)
{
  tl_act_params p = {a, b, c};
  if (out) {
    if (tl_nn_activation(op, &p, tl_py_t(input), tl_py_t(out), true) != TL_OK)
      return tl_py_raise();
    return Py_NewRef(out);
  }
  tl_py_tensor *r = tl_py_tensor_alloc();
  if (!r)
    return NULL;
  if (tl_nn_activation(op, &p, tl_py_t(input), &r->t, false) != TL_OK) {
    Py_DECREF(r);
    return tl_py_raise();
  }
  return (PyObject *)r;
}

static PyObject *backward(tl_op op, PyObject *grad, PyObject *input, double a, double b, double c)
{
  tl_act_params p = {a, b, c};
  tl_py_tensor *r = tl_py_tensor_alloc();
  if (!r)
    return NULL;
  if (tl_nn_activation_backward(op, &p, tl_py_t(grad), tl_py_t(input), &r->t) != TL_OK) {
    Py_DECREF(r);
    return tl_py_raise();
  }
  return (PyObject *)r;
}

/* approximate= of gelu: 1 for "tanh", 0 for "none", -1 (raised) otherwise. */
static int gelu_approximate(const char *s)
{
  if (!strcmp(s, "none"))
    return 0;
  if (!strcmp(s, "tanh"))
    return 1;
  PyErr_SetString(PyExc_RuntimeError, "approximate argument must be either none or tanh.");
  return -1;
}

PyObject *tl_py_impl_activation(tl_op op, const tl_py_args_activation *a)
{
  return forward(op, a->input, a->out, 0, 0, 0);
}

PyObject *tl_py_impl_threshold(tl_op op, const tl_py_args_threshold *a)
{
  return forward(op, a->input, a->out, a->threshold, a->value, 0);
}

PyObject *tl_py_impl_leaky_relu(tl_op op, const tl_py_args_leaky_relu *a)
{
  return forward(op, a->input, a->out, a->negative_slope, 0, 0);
}

PyObject *tl_py_impl_elu(tl_op op, const tl_py_args_elu *a)
{
  return forward(op, a->input, a->out, a->alpha, a->scale, a->input_scale);
}

PyObject *tl_py_impl_gelu(tl_op op, const tl_py_args_gelu *a)
{
  int approx = gelu_approximate(a->approximate);
  return approx < 0 ? NULL : forward(op, a->input, a->out, approx, 0, 0);
}

PyObject *tl_py_impl_softplus(tl_op op, const tl_py_args_softplus *a)
{
  return forward(op, a->input, a->out, a->beta, a->threshold, 0);
}

PyObject *tl_py_impl_hardtanh(tl_op op, const tl_py_args_hardtanh *a)
{
  return forward(op, a->input, a->out, a->min_val, a->max_val, 0);
}

PyObject *tl_py_impl_shrink(tl_op op, const tl_py_args_shrink *a)
{
  if (op == TL_OP_SOFTSHRINK && a->lambd < 0) {
    PyObject *v = PyFloat_FromDouble(a->lambd);
    if (v)
      PyErr_Format(PyExc_RuntimeError, "lambda must be greater or equal to 0, but found to be %R.", v);
    Py_XDECREF(v);
    return NULL;
  }
  return forward(op, a->input, a->out, a->lambd, 0, 0);
}

PyObject *tl_py_impl_activation_backward(tl_op op, const tl_py_args_activation_backward *a)
{
  return backward(op, a->grad_output, a->input, 0, 0, 0);
}

PyObject *tl_py_impl_threshold_backward(tl_op op, const tl_py_args_threshold_backward *a)
{
  return backward(op, a->grad_output, a->input, a->threshold, 0, 0);
}

PyObject *tl_py_impl_leaky_relu_backward(tl_op op, const tl_py_args_leaky_relu_backward *a)
{
  return backward(op, a->grad_output, a->input, a->negative_slope, 0, 0);
}

PyObject *tl_py_impl_elu_backward(tl_op op, const tl_py_args_elu_backward *a)
{
  return backward(op, a->grad_output, a->input, a->alpha, a->scale, a->input_scale);
}

PyObject *tl_py_impl_gelu_backward(tl_op op, const tl_py_args_gelu_backward *a)
{
  int approx = gelu_approximate(a->approximate);
  return approx < 0 ? NULL : backward(op, a->grad_output, a->input, approx, 0, 0);
}

PyObject *tl_py_impl_softplus_backward(tl_op op, const tl_py_args_softplus_backward *a)
{
  return backward(op, a->grad_output, a->input, a->beta, a->threshold, 0);
}

PyObject *tl_py_impl_hardtanh_backward(tl_op op, const tl_py_args_hardtanh_backward *a)
{
  return backward(op, a->grad_output, a->input, a->min_val, a->max_val, 0);
}

PyObject *tl_py_impl_shrink_backward(tl_op op, const tl_py_args_shrink_backward *a)
{
  return backward(op, a->grad_output, a->input, a->lambd, 0, 0);
}

/* Two results as a tuple (takes both references), or NULL raised when !ok. */
static PyObject *pair(tl_py_tensor *a, tl_py_tensor *b, bool ok)
{
  if (!ok) {
    Py_XDECREF(a);
    Py_XDECREF(b);
    return tl_py_raise();
  }
  return Py_BuildValue("(NN)", a, b);
}

PyObject *tl_py_impl_prelu(tl_op op, const tl_py_args_prelu *a)
{
  (void)op;
  tl_py_tensor *r = tl_py_tensor_alloc();
  if (!r)
    return NULL;
  if (tl_nn_prelu(tl_py_t(a->input), tl_py_t(a->weight), &r->t) != TL_OK) {
    Py_DECREF(r);
    return tl_py_raise();
  }
  return (PyObject *)r;
}

PyObject *tl_py_impl_prelu_backward(tl_op op, const tl_py_args_prelu_backward *a)
{
  (void)op;
  tl_py_tensor *dx = tl_py_tensor_alloc(), *dw = dx ? tl_py_tensor_alloc() : NULL;
  if (!dw) {
    Py_XDECREF(dx);
    return NULL;
  }
  return pair(dx, dw, tl_nn_prelu_backward(tl_py_t(a->grad_output), tl_py_t(a->input),
                                           tl_py_t(a->weight), &dx->t, &dw->t) == TL_OK);
}

PyObject *tl_py_impl_glu(tl_op op, const tl_py_args_glu *a)
{
  (void)op;
  tl_py_tensor *r = tl_py_tensor_alloc();
  if (!r)
    return NULL;
  if (tl_nn_glu(tl_py_t(a->input), a->dim, &r->t) != TL_OK) {
    Py_DECREF(r);
    return tl_py_raise();
  }
  return (PyObject *)r;
}

PyObject *tl_py_impl_glu_backward(tl_op op, const tl_py_args_glu_backward *a)
{
  (void)op;
  tl_py_tensor *r = tl_py_tensor_alloc();
  if (!r)
    return NULL;
  if (tl_nn_glu_backward(tl_py_t(a->grad_output), tl_py_t(a->input), a->dim, &r->t) != TL_OK) {
    Py_DECREF(r);
    return tl_py_raise();
  }
  return (PyObject *)r;
}
