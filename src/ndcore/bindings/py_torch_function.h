/* py_torch_function.h - PyTorch's __torch_function__ protocol at the C entry
 * points (py_torch_function.c).
 *
 * Every entry of an op (an op function, an operator slot, indexing, and the
 * wrappers torchlike.overrides puts around the other public callables) asks
 * tl_py_tf_wanted over its arguments first.  The answer costs one load and
 * one type compare per argument while no mode is pushed and the arguments
 * are plain tensors or Python numbers; anything else takes the slow test,
 * which looks __torch_function__ up on the argument's type (and on the items
 * of a list or tuple argument, as torch.cat's tensors).  When it says yes,
 * tl_py_tf_dispatch hands (func, args, kwargs) to torchlike.overrides, which
 * runs PyTorch's dispatch in Python.                                        */
#ifndef TL_PY_TORCH_FUNCTION_H
#define TL_PY_TORCH_FUNCTION_H

#include "ndcore/bindings/py_tensor.h"

/* Modes pushed in any thread: while it is 0 a call with plain arguments needs
 * no thread-local read. */
extern int tl_py_tf_modes_anywhere;
/* The slow half of tl_py_tf_wanted: args[0] is the first non-plain one. */
bool tl_py_tf_slow(PyObject *const *args, Py_ssize_t n);

/* A plain Tensor, a Python number or a basic index (a slice, ...): never
 * overrides anything (slice and ellipsis cannot be subclassed). */
static inline bool tl_py_tf_plain(PyObject *o)
{
  PyTypeObject *t = Py_TYPE(o);
  return t == tl_py_tensor_type || t == &PyLong_Type || t == &PyFloat_Type || o == Py_None ||
         t == &PyBool_Type || t == &PySlice_Type || o == Py_Ellipsis;
}

/* Does a call with these arguments (positional, then keyword values) go to
 * __torch_function__ (an argument's or a mode's)? */
static inline bool tl_py_tf_wanted(PyObject *const *args, Py_ssize_t n)
{
  if (__builtin_expect(tl_py_tf_modes_anywhere != 0, 0))
    return tl_py_tf_slow(args, n);
  for (Py_ssize_t i = 0; i < n; i++)
    if (!tl_py_tf_plain(args[i]))
      return tl_py_tf_slow(args + i, n - i);
  return false;
}

/* func(*args, **kwargs) through torchlike.overrides' dispatch (a vectorcall). */
PyObject *tl_py_tf_dispatch(PyObject *func, PyObject *const *args, size_t nargsf,
                            PyObject *kwnames);
/* The same for an operator or a slot: func is the Tensor attribute `name`
 * (Tensor.add for a + b, Tensor.__getitem__ for a[i]). */
PyObject *tl_py_tf_dispatch_attr(const char *name, PyObject *const *args, Py_ssize_t n);

/* The autograd engine's own ops run with every __torch_function__ off: they
 * are not the user's calls (PyTorch's formulas are C++ and never reach
 * Python).  The user code it calls back - a custom Function's backward,
 * tensor and node hooks, saved-tensor unpack hooks - runs in the state
 * backward() was called in, as in PyTorch, so a tensor subclass (a sparse
 * gradient, say) keeps its overrides there.  engine_enter/leave bracket a
 * run of the engine, user_enter/leave each callback; both nest. */
typedef struct {
  int state, caller;
} tl_py_tf_saved;
tl_py_tf_saved tl_py_tf_engine_enter(void);
void tl_py_tf_engine_leave(tl_py_tf_saved saved);
int tl_py_tf_user_enter(void);
void tl_py_tf_user_leave(int saved);

/* PyTorch's TypeError for as_subclass/_make_subclass of a class that is not
 * a Tensor subclass; returns NULL. */
PyObject *tl_py_not_a_subclass(void);

int tl_py_torch_function_init(PyObject *module);

#endif
