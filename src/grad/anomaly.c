/* anomaly.c - anomaly detection (torch.autograd.detect_anomaly).
 *
 * While the mode is on:
 *   - every node made (AccumulateGrad excepted) keeps the Python stack of its
 *     creation in node.metadata["traceback_"], and a node made while the engine
 *     runs another (create_graph) keeps that one in metadata["parent_"];
 *   - with check_nan, the engine raises when a node's gradients contain NaN;
 *   - when a node fails in backward, a UserWarning shows where it was made,
 *     then one per parent_ ("Previous calculation was induced by ...").
 * When it is off, the recorder and the engine test one flag each and do
 * nothing else.  The flags are process-wide, as PyTorch's are (a thread
 * started inside detect_anomaly sees it on).  The stack is taken by a Python
 * function (torchlike/autograd/anomaly_mode.py: _capture) registered at import,
 * so the trace looks like traceback.format_stack's.                          */
#include <Python.h>

#include "grad/py_grad.h"

bool tl_anomaly_enabled;
bool tl_anomaly_check_nan = true;
static PyObject *capture_fn;               /* () -> list of str */
static _Thread_local tl_py_node *running;  /* the node the engine runs (mode on only) */

/* The node's metadata dict (node.metadata), made on first use; borrowed. */
static PyObject *node_dict(tl_py_node *node)
{
  if (!node->dict)
    node->dict = PyDict_New();
  return node->dict;
}

int tl_anomaly_record(tl_py_node *node)
{
  if (node->kind == TL_NODE_ACCUMULATE || !capture_fn)
    return 0;
  PyObject *dict = node_dict(node);
  PyObject *stack = dict ? PyObject_CallNoArgs(capture_fn) : NULL;
  int r = stack ? PyDict_SetItemString(dict, "traceback_", stack) : -1;
  Py_XDECREF(stack);
  if (r == 0 && running && running != node)
    r = PyDict_SetItemString(dict, "parent_", (PyObject *)running);
  return r;
}

tl_py_node *tl_anomaly_enter(tl_py_node *node)
{
  tl_py_node *outer = running;
  running = node;
  return outer;
}

void tl_anomaly_leave(tl_py_node *outer) { running = outer; }

int tl_anomaly_check_nan_results(tl_py_node *node, PyObject *const *results, int n)
{
  for (int k = 0; k < n; k++) {
    PyObject *g = results[k];
    if (!g || !tl_py_is_tensor(g))
      continue;
    tl_dtype dt = tl_py_t(g)->dtype;
    if (!tl_dtype_is_float(dt) && !tl_dtype_is_complex(dt))
      continue;
    PyObject *nan = PyObject_CallMethod(g, "isnan", NULL);
    PyObject *any = nan ? PyObject_CallMethod(nan, "any", NULL) : NULL;
    int has = any ? PyObject_IsTrue(any) : -1;
    Py_XDECREF(nan);
    Py_XDECREF(any);
    if (has < 0)
      return -1;
    if (has) {
      PyErr_Format(PyExc_RuntimeError, "Function '%U' returned nan values in its %dth output.",
                   node->name, k);
      return -1;
    }
  }
  return 0;
}

/* One warning: prefix, the node's name, middle, then its creation stack. */
static int warn_trace(tl_py_node *node, const char *prefix, const char *middle)
{
  PyObject *stack = node->dict ? PyDict_GetItemString(node->dict, "traceback_") : NULL;
  if (!stack)
    return 0;
  PyObject *empty = PyUnicode_FromString("");
  PyObject *joined = empty ? PyUnicode_Join(empty, stack) : NULL;
  PyObject *msg = joined ? PyUnicode_FromFormat("%s%U%s%U", prefix, node->name, middle, joined)
                         : NULL;
  const char *text = msg ? PyUnicode_AsUTF8(msg) : NULL;
  int r = text ? PyErr_WarnEx(PyExc_UserWarning, text, 1) : -1;
  Py_XDECREF(empty);
  Py_XDECREF(joined);
  Py_XDECREF(msg);
  return r;
}

void tl_anomaly_report(tl_py_node *node)
{
  if (node->kind == TL_NODE_ACCUMULATE)
    return;
  /* the node's error stays the one raised; a warning filter turned into an
   * error (or a failure to format) does not replace it */
  PyObject *type, *value, *tb;
  PyErr_Fetch(&type, &value, &tb);
  int r = warn_trace(node, "Error detected in ",
                     ". Traceback of forward call that caused the error:\n");
  for (int depth = 0; r == 0 && node->dict && depth < 1000; depth++) {
    PyObject *parent = PyDict_GetItemString(node->dict, "parent_");
    if (!parent || !PyObject_TypeCheck(parent, tl_py_node_type))
      break;
    node = (tl_py_node *)parent;
    r = warn_trace(node, "\n\nPrevious calculation was induced by ",
                   ". Traceback of forward call that induced the previous calculation:\n");
  }
  if (r < 0)
    PyErr_Clear();
  PyErr_Restore(type, value, tb);
}

/* ---- Python face ---- */

/* _set_anomaly_enabled(enabled, check_nan=True) */
static PyObject *py_set_anomaly_enabled(PyObject *self, PyObject *args, PyObject *kwargs)
{
  (void)self;
  static char *kw[] = {"enabled", "check_nan", NULL};
  int enabled, check_nan = 1;
  if (!PyArg_ParseTupleAndKeywords(args, kwargs, "p|p:set_anomaly_enabled", kw, &enabled,
                                   &check_nan))
    return NULL;
  tl_anomaly_enabled = enabled;
  tl_anomaly_check_nan = check_nan;
  Py_RETURN_NONE;
}

static PyObject *py_is_anomaly_enabled(PyObject *self, PyObject *unused)
{
  (void)self;
  (void)unused;
  return PyBool_FromLong(tl_anomaly_enabled);
}

static PyObject *py_is_anomaly_check_nan_enabled(PyObject *self, PyObject *unused)
{
  (void)self;
  (void)unused;
  return PyBool_FromLong(tl_anomaly_check_nan);
}

/* _set_anomaly_capture(fn): fn() returns the stack a new node keeps. */
static PyObject *py_set_anomaly_capture(PyObject *self, PyObject *fn)
{
  (void)self;
  if (!PyCallable_Check(fn))
    return PyErr_Format(PyExc_TypeError, "_set_anomaly_capture expects a callable, not %s",
                        Py_TYPE(fn)->tp_name);
  Py_XSETREF(capture_fn, Py_NewRef(fn));
  Py_RETURN_NONE;
}

static PyMethodDef anomaly_functions[] = {
    {"_set_anomaly_enabled", (PyCFunction)(void (*)(void))py_set_anomaly_enabled,
     METH_VARARGS | METH_KEYWORDS, NULL},
    {"_is_anomaly_enabled", py_is_anomaly_enabled, METH_NOARGS, NULL},
    {"_is_anomaly_check_nan_enabled", py_is_anomaly_check_nan_enabled, METH_NOARGS, NULL},
    {"_set_anomaly_capture", py_set_anomaly_capture, METH_O, NULL},
    {NULL, NULL, 0, NULL},
};

int tl_py_anomaly_init(PyObject *module)
{
  return PyModule_AddFunctions(module, anomaly_functions);
}
