/* py_tensor_grad.c - the autograd face of Tensor: requires_grad, grad,
 * grad_fn, is_leaf, data, detach, retain_grad and the hook lists.
 *
 * Only floating-point and complex tensors may require grad.  Only leaves may
 * have requires_grad changed; a non-leaf requires grad because of its node. */
#include <Python.h>

#include "grad/py_grad.h"

static bool can_require_grad(const tl_tensor *t)
{
  return tl_dtype_is_float(t->dtype) || tl_dtype_is_complex(t->dtype);
}

/* method: requires_grad_(), whose refusal PyTorch words without "and
 * complex" (its attribute setter's has it; both accept complex tensors). */
static int set_requires_grad(tl_py_tensor *self, int on, bool method)
{
  if (self->grad_fn) {
    if (on)
      return 0;
    PyErr_SetString(PyExc_RuntimeError, "you can only change requires_grad flags of leaf "
                    "variables. If you want to use a computed variable in a subgraph that "
                    "doesn't require differentiation use var_no_grad = var.detach().");
    return -1;
  }
  if (on && !can_require_grad(&self->t)) {
    PyErr_Format(PyExc_RuntimeError, "only Tensors of floating point %sdtype can require "
                 "gradients (got %s)", method ? "" : "and complex ",
                 tl_dtype_names[self->t.dtype]);
    return -1;
  }
  if (on && self->inference && !tl_inference_mode) {
    /* made under inference_mode, it has no version counter to guard a graph */
    PyErr_SetString(PyExc_RuntimeError, "Setting requires_grad=True on inference tensor "
                    "outside InferenceMode is not allowed.");
    return -1;
  }
  self->requires_grad = on;
  return 0;
}

/* A view whose base got a history since it was taken requires grad too
 * (its history is rebuilt when it is read: grad_fn, is_leaf, recording). */
static PyObject *get_requires_grad(PyObject *self, void *closure)
{
  (void)closure;
  tl_py_tensor *t = (tl_py_tensor *)self;
  return PyBool_FromLong(t->requires_grad || (t->base && tl_py_view_stale(self)));
}

static int put_requires_grad(PyObject *self, PyObject *value, void *closure)
{
  (void)closure;
  int on = value ? PyObject_IsTrue(value) : -1;
  if (!value)
    PyErr_SetString(PyExc_AttributeError, "requires_grad cannot be deleted");
  return on < 0 ? -1 : set_requires_grad((tl_py_tensor *)self, on, false);
}

/* Reading .grad of a non-leaf that keeps none is almost always a mistake
 * (the leaf was meant): PyTorch warns, and so do we, with its words. */
static PyObject *get_grad(PyObject *self, void *closure)
{
  (void)closure;
  tl_py_tensor *t = (tl_py_tensor *)self;
  if (!t->grad) {
    if (tl_grad_view_refresh(self) < 0)
      return NULL;
    if (t->grad_fn && !t->retains_grad &&
        PyErr_WarnEx(PyExc_UserWarning,
                     "The .grad attribute of a Tensor that is not a leaf Tensor is being "
                     "accessed. Its .grad attribute won't be populated during "
                     "autograd.backward(). If you indeed want the .grad field to be populated "
                     "for a non-leaf Tensor, use .retain_grad() on the non-leaf Tensor. If you "
                     "access the non-leaf Tensor by mistake, make sure you access the leaf "
                     "Tensor instead. See github.com/pytorch/pytorch/pull/30531 for more "
                     "information.", 1) < 0)
      return NULL;
  }
  return Py_NewRef(t->grad ? t->grad : Py_None);
}

static int put_grad(PyObject *self, PyObject *value, void *closure)
{
  (void)closure;
  tl_py_tensor *t = (tl_py_tensor *)self;
  if (value && value != Py_None) {
    if (!tl_py_is_tensor(value)) {
      PyErr_Format(PyExc_TypeError, "assigned grad expected to be a Tensor or None but got "
                   "grad of type %s", Py_TYPE(value)->tp_name);
      return -1;
    }
    const tl_tensor *g = tl_py_t(value);
    bool same = g->ndim == t->t.ndim;
    for (int d = 0; same && d < g->ndim; d++)
      same = g->shape[d] == t->t.shape[d];
    if (!same) {
      char a[128], b[128];
      PyErr_Format(PyExc_RuntimeError, "attempting to assign a gradient of size '%s' to a "
                   "tensor of size '%s'. Please ensure that the gradient and the tensor are the "
                   "same size", tl_shape_str(a, sizeof a, g->ndim, g->shape),
                   tl_shape_str(b, sizeof b, t->t.ndim, t->t.shape));
      return -1;
    }
    int want = tl_py_grad_dtype(t);
    if (want >= 0 && g->dtype != (tl_dtype)want) {
      PyErr_Format(PyExc_RuntimeError, "attempting to assign a gradient with dtype '%s' to a "
                   "tensor with grad_dtype '%s'. The gradient must match the tensor's "
                   "grad_dtype (defaults to the tensor's dtype). You can set the tensor's "
                   "grad_dtype attribute with a specific dtype, or None to allow any dtype. Set "
                   "grad_dtype with caution. Diverging the dtypes of a tensor and its gradient "
                   "may break downstream systems that assume they match.",
                   tl_dtype_cpp_name(g->dtype), tl_dtype_scalar_name((tl_dtype)want));
      return -1;
    }
  }
  Py_XSETREF(t->grad, value && value != Py_None ? Py_NewRef(value) : NULL);
  return 0;
}

/* The dtype gradients are cast to on their way into this tensor: its own by
 * default, None for any, or one set on a leaf (PyTorch's grad_dtype). */
static PyObject *get_grad_dtype(PyObject *self, void *closure)
{
  (void)closure;
  int d = tl_py_grad_dtype((tl_py_tensor *)self);
  return Py_NewRef(d < 0 ? Py_None : tl_py_dtype_obj((tl_dtype)d));
}

static int put_grad_dtype(PyObject *self, PyObject *value, void *closure)
{
  (void)closure;
  tl_py_tensor *t = (tl_py_tensor *)self;
  tl_dtype d = TL_DTYPE_F32;
  if (!value) {
    PyErr_SetString(PyExc_TypeError, "can't delete grad_dtype (set it to None to allow any dtype)");
    return -1;
  }
  if (value != Py_None && !Py_IS_TYPE(value, tl_py_dtype_type)) {
    PyErr_Format(PyExc_RuntimeError, "grad_dtype must be a torchlike.dtype or None, but got %s",
                 Py_TYPE(value)->tp_name);
    return -1;
  }
  if (t->grad_fn) {
    PyErr_SetString(PyExc_RuntimeError, "grad_dtype can only be set on leaf tensors.");
    return -1;
  }
  if (value != Py_None && tl_py_parse_dtype(value, &d) < 0)
    return -1;
  if (value != Py_None && t->grad && tl_py_t(t->grad)->dtype != d) {
    PyErr_Format(PyExc_RuntimeError, "Cannot set grad_dtype to '%s' because there is already a "
                 "gradient with dtype '%s'. Please clear the gradient (.grad = None) before "
                 "changing grad_dtype, or ensure the new grad_dtype matches the existing "
                 "gradient's dtype.", tl_dtype_scalar_name(d),
                 tl_dtype_cpp_name(tl_py_t(t->grad)->dtype));
    return -1;
  }
  t->grad_dtype = value == Py_None ? TL_PY_GRAD_DTYPE_ANY : (uint8_t)(TL_PY_GRAD_DTYPE_ANY + 1 + d);
  return 0;
}

static PyObject *get_grad_fn(PyObject *self, void *closure)
{
  (void)closure;
  tl_py_tensor *t = (tl_py_tensor *)self;
  if (tl_grad_view_refresh(self) < 0)
    return NULL;
  return Py_NewRef(t->grad_fn ? t->grad_fn : Py_None);
}

static PyObject *get_is_leaf(PyObject *self, void *closure)
{
  (void)closure;
  if (tl_grad_view_refresh(self) < 0)
    return NULL;
  return PyBool_FromLong(((tl_py_tensor *)self)->grad_fn == NULL);
}

static PyObject *get_retains_grad(PyObject *self, void *closure)
{
  (void)closure;
  return PyBool_FromLong(((tl_py_tensor *)self)->retains_grad);
}

static PyObject *get_base(PyObject *self, void *closure)
{
  (void)closure;
  tl_py_tensor *t = (tl_py_tensor *)self;
  return Py_NewRef(t->base ? t->base : Py_None);
}

static PyObject *tensor_is_view(PyObject *self, PyObject *unused)
{
  (void)unused;
  return PyBool_FromLong(((tl_py_tensor *)self)->base != NULL);
}

static PyObject *get_output_nr(PyObject *self, void *closure)
{
  (void)closure;
  return PyLong_FromLong(((tl_py_tensor *)self)->output_nr);
}

/* .data: the same memory without history.  Assigning swaps the view under
 * the tensor and keeps its autograd identity (what optimisers rely on). */
static PyObject *get_data(PyObject *self, void *closure)
{
  (void)closure;
  return tl_py_tensor_alias(self);
}

static int put_data(PyObject *self, PyObject *value, void *closure)
{
  (void)closure;
  if (!value || !tl_py_is_tensor(value)) {
    PyErr_SetString(PyExc_TypeError, "Tensor.data must be set to a Tensor");
    return -1;
  }
  tl_tensor old = ((tl_py_tensor *)self)->t;
  tl_tensor_view_of(&((tl_py_tensor *)self)->t, tl_py_t(value));
  tl_tensor_release(&old);
  return 0;
}

static PyGetSetDef grad_getset[] = {
    {"requires_grad", get_requires_grad, put_requires_grad, "whether ops on this tensor are recorded", NULL},
    {"grad", get_grad, put_grad, "the gradient accumulated by backward()", NULL},
    {"grad_dtype", get_grad_dtype, put_grad_dtype, "the dtype gradients are cast to on their "
     "way into this tensor: its own, None for any, or one set on a leaf", NULL},
    {"grad_fn", get_grad_fn, NULL, "the node that made this tensor, None for leaves", NULL},
    {"is_leaf", get_is_leaf, NULL, NULL, NULL},
    {"retains_grad", get_retains_grad, NULL, NULL, NULL},
    {"output_nr", get_output_nr, NULL, NULL, NULL},
    {"_base", get_base, NULL, "the tensor owning the memory this view shows, None for a tensor that is no view", NULL},
    {"data", get_data, put_data, "the tensor's memory without its history", NULL},
    {NULL, NULL, NULL, NULL, NULL},
};

/* ---- methods ------------------------------------------------------------------ */

static PyObject *tensor_detach(PyObject *self, PyObject *unused)
{
  (void)unused;
  PyObject *r = tl_py_tensor_alias(self);
  if (r && ((tl_py_tensor *)self)->inference)
    ((tl_py_tensor *)r)->inference = true; /* an inference tensor's alias is one too */
  return r;
}

static PyObject *tensor_detach_(PyObject *self, PyObject *unused)
{
  (void)unused;
  tl_py_tensor *t = (tl_py_tensor *)self;
  if (t->base) {
    PyErr_SetString(PyExc_RuntimeError, "Can't detach views in-place. Use detach() instead.");
    return NULL;
  }
  Py_CLEAR(t->grad_fn);
  t->requires_grad = false;
  t->output_nr = 0;
  return Py_NewRef(self);
}

static PyObject *tensor_requires_grad_(PyObject *self, PyObject *const *args, Py_ssize_t nargs,
                                       PyObject *kwnames)
{
  static const char *const names[] = {"requires_grad", NULL};
  PyObject *v[1] = {NULL};
  if (tl_py_bind_args("requires_grad_", args, nargs, kwnames, names, 1, 0, v) < 0)
    return NULL;
  int on = v[0] ? PyObject_IsTrue(v[0]) : 1;
  if (on < 0 || set_requires_grad((tl_py_tensor *)self, on, true) < 0)
    return NULL;
  return Py_NewRef(self);
}

static PyObject *tensor_retain_grad(PyObject *self, PyObject *unused)
{
  (void)unused;
  tl_py_tensor *t = (tl_py_tensor *)self;
  if (!t->requires_grad) {
    PyErr_SetString(PyExc_RuntimeError, "can't retain_grad on Tensor that has requires_grad=False");
    return NULL;
  }
  if (!t->grad_fn || t->retains_grad)
    Py_RETURN_NONE; /* leaves keep their grad anyway */
  tl_py_node *node = (tl_py_node *)t->grad_fn;
  if (!node->retained && !(node->retained = PyList_New(0)))
    return NULL;
  PyObject *ref = PyWeakref_NewRef(self, NULL);
  PyObject *entry = ref ? Py_BuildValue("(iN)", t->output_nr, ref) : NULL;
  int r = entry ? PyList_Append(node->retained, entry) : -1;
  Py_XDECREF(entry);
  if (r < 0)
    return NULL;
  t->retains_grad = true;
  Py_RETURN_NONE;
}

/* The list register_hook appends (output_nr, hook) to: a leaf's own, or its
 * node's (a non-leaf's hooks belong to the gradient its node receives). */
static PyObject *tensor_hook_list(PyObject *self, PyObject *unused)
{
  (void)unused;
  tl_py_tensor *t = (tl_py_tensor *)self;
  if (!t->requires_grad) {
    PyErr_SetString(PyExc_RuntimeError, "cannot register a hook on a tensor that doesn't "
                    "require gradient");
    return NULL;
  }
  PyObject **slot = t->grad_fn ? &((tl_py_node *)t->grad_fn)->pre_hooks : &t->hooks;
  if (!*slot && !(*slot = PyList_New(0)))
    return NULL;
  return Py_BuildValue("(Oi)", *slot, t->grad_fn ? t->output_nr : 0);
}

static PyObject *tensor_is_inference(PyObject *self, PyObject *unused)
{
  (void)unused;
  return PyBool_FromLong(((tl_py_tensor *)self)->inference);
}

static PyMethodDef grad_methods[] = {
    {"detach", tensor_detach, METH_NOARGS, "a tensor sharing this memory, without history"},
    {"detach_", tensor_detach_, METH_NOARGS, NULL},
    {"requires_grad_", (PyCFunction)(void (*)(void))tensor_requires_grad_,
     METH_FASTCALL | METH_KEYWORDS, NULL},
    {"retain_grad", tensor_retain_grad, METH_NOARGS, "keep .grad of this non-leaf tensor"},
    {"_hook_list", tensor_hook_list, METH_NOARGS, NULL},
    {"is_inference", tensor_is_inference, METH_NOARGS,
     "whether this tensor was made under inference_mode"},
    {"_is_view", tensor_is_view, METH_NOARGS, "whether this tensor is a view of another (_base)"},
    {NULL, NULL, 0, NULL},
};

int tl_py_tensor_grad_init(void)
{
  PyTypeObject *type = tl_py_tensor_type;
  for (PyGetSetDef *d = grad_getset; d->name; d++) {
    PyObject *descr = PyDescr_NewGetSet(type, d);
    if (!descr || PyObject_SetAttrString((PyObject *)type, d->name, descr) < 0) {
      Py_XDECREF(descr);
      return -1;
    }
    Py_DECREF(descr);
  }
  return tl_py_tensor_add_methods(grad_methods);
}
