/* py_profiler.c - the event buffer behind torchlike.profiler.
 *
 * One growing array of events for the whole process, written under the GIL
 * (every entry that records holds it, so DataLoader threads or user threads
 * take turns).  Nesting is a per-thread chain: each thread's innermost open
 * event is `top`, and an event remembers the one that was open when it
 * began (its parent).  Starting or stopping the profiler bumps `generation`,
 * so an event opened before a restart and closed after it is dropped
 * instead of closing an unrelated slot.                                     */
#include <time.h>

#include <Python.h>

#include "ndcore/bindings/py_profiler.h"
#include "ndcore/bindings/py_tensor.h"

int tl_prof_on;

typedef struct {
  PyObject *name;   /* owned */
  PyObject *inputs; /* owned list of (shape, dtype, value) per argument, or NULL */
  int64_t start, end;
  unsigned long tid;
  Py_ssize_t parent;
  int kind;
  tl_device device; /* of the first tensor argument; CPU when none */
} prof_event;

static prof_event *events;
static Py_ssize_t nevents, capacity;
static uint64_t generation = 1;
static bool record_shapes;
static _Thread_local Py_ssize_t top = -1;
static _Thread_local uint64_t top_generation;

static int64_t now_ns(void)
{
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

/* A non-tensor argument's value when it is a number or a list/tuple of
 * ints (PyTorch's "Concrete Inputs"; the flop counter reads a convolution's
 * stride, padding and dilation from them), else None.  Copied into a tuple
 * so a list the caller mutates later does not change the record. */
static PyObject *concrete_value(PyObject *arg)
{
  if (PyLong_Check(arg) || PyFloat_Check(arg))
    return Py_NewRef(arg);
  if (!PyTuple_Check(arg) && !PyList_Check(arg))
    return Py_NewRef(Py_None);
  Py_ssize_t n = PySequence_Fast_GET_SIZE(arg);
  for (Py_ssize_t i = 0; i < n; i++)
    if (!PyLong_Check(PySequence_Fast_GET_ITEM(arg, i)))
      return Py_NewRef(Py_None);
  return PySequence_Tuple(arg);
}

/* (shape, dtype, None) of a tensor argument, ([], None, value) of anything
 * else, as PyTorch's input_shapes lists an empty shape for non-tensor
 * arguments. */
static PyObject *describe_inputs(PyObject *const *args, Py_ssize_t nargs)
{
  PyObject *list = PyList_New(nargs);
  for (Py_ssize_t i = 0; list && i < nargs; i++) {
    PyObject *item = NULL;
    if (tl_py_is_tensor(args[i])) {
      const tl_tensor *t = tl_py_t(args[i]);
      PyObject *shape = PyList_New(t->ndim);
      for (int d = 0; shape && d < t->ndim; d++)
        PyList_SET_ITEM(shape, d, PyLong_FromLongLong(t->shape[d]));
      item = shape ? Py_BuildValue("(NsO)", shape, tl_dtype_names[t->dtype], Py_None) : NULL;
    } else {
      PyObject *value = concrete_value(args[i]);
      item = value ? Py_BuildValue("([]ON)", Py_None, value) : NULL;
    }
    if (!item) {
      Py_CLEAR(list);
      break;
    }
    PyList_SET_ITEM(list, i, item);
  }
  return list;
}

tl_prof_mark tl_prof_begin(int kind, PyObject *name, PyObject *const *args, Py_ssize_t nargs)
{
  tl_prof_mark m = {.index = -1, .generation = generation};
  if (top_generation != generation) { /* first event of this thread since the start */
    top = -1;
    top_generation = generation;
  }
  /* an op that calls itself again to record its graph node (tl_py_record)
   * or through a wrapper is one event, as in PyTorch */
  if (kind == TL_PROF_OP && top >= 0 && events[top].kind == TL_PROF_OP && events[top].name == name)
    return m;
  if (nevents == capacity) {
    Py_ssize_t n = capacity ? 2 * capacity : 1024;
    prof_event *grown = PyMem_Realloc(events, (size_t)n * sizeof *grown);
    if (!grown)
      return m;
    events = grown;
    capacity = n;
  }
  prof_event *e = &events[nevents];
  e->inputs = NULL;
  e->device = tl_device_cpu();
  for (Py_ssize_t i = 0; i < nargs; i++)
    if (tl_py_is_tensor(args[i])) {
      e->device = tl_py_t(args[i])->storage->device;
      break;
    }
  if (record_shapes && nargs > 0 && !(e->inputs = describe_inputs(args, nargs)))
    PyErr_Clear(); /* the shapes are lost, the call goes on */
  e->name = Py_NewRef(name);
  e->kind = kind;
  e->tid = PyThread_get_thread_native_id();
  e->parent = top;
  e->end = -1;
  m.index = top = nevents++;
  e->start = now_ns();
  return m;
}

void tl_prof_end(tl_prof_mark m)
{
  int64_t t = now_ns();
  if (m.index < 0 || m.generation != generation)
    return;
  events[m.index].end = t;
  top = events[m.index].parent;
}

PyObject *tl_prof_call(PyObject *name, vectorcallfunc fn, PyObject *callable,
                       PyObject *const *args, size_t nargsf, PyObject *kwnames)
{
  tl_prof_mark m = tl_prof_begin(TL_PROF_OP, name, args, PyVectorcall_NARGS(nargsf));
  PyObject *r = fn(callable, args, nargsf, kwnames);
  tl_prof_end(m);
  return r;
}

static void clear_events(void)
{
  for (Py_ssize_t i = 0; i < nevents; i++) {
    Py_DECREF(events[i].name);
    Py_XDECREF(events[i].inputs);
  }
  PyMem_Free(events);
  events = NULL;
  nevents = capacity = 0;
  generation++;
}

/* ---- Python face (torchlike.profiler's private hooks) ---------------------------- */

static PyObject *profiler_enable(PyObject *self, PyObject *arg)
{
  (void)self;
  int shapes = PyObject_IsTrue(arg);
  if (shapes < 0)
    return NULL;
  clear_events();
  record_shapes = shapes;
  tl_prof_on = 1;
  Py_RETURN_NONE;
}

/* Stops recording and hands the events over as tuples
 * (kind, name, start_ns, end_ns, thread, parent, inputs, device); an event
 * still open (stop inside a record_function) ends now. */
static PyObject *profiler_disable(PyObject *self, PyObject *unused)
{
  (void)self;
  (void)unused;
  tl_prof_on = 0;
  int64_t t = now_ns();
  PyObject *list = PyList_New(nevents);
  for (Py_ssize_t i = 0; list && i < nevents; i++) {
    prof_event *e = &events[i];
    char dev[32];
    PyObject *item = Py_BuildValue("(iOLLknOs)", e->kind, e->name, (long long)e->start,
                                   (long long)(e->end < 0 ? t : e->end), e->tid, e->parent,
                                   e->inputs ? e->inputs : Py_None,
                                   tl_device_str(dev, sizeof dev, e->device));
    if (!item)
      Py_CLEAR(list);
    else
      PyList_SET_ITEM(list, i, item);
  }
  clear_events();
  return list;
}

static PyObject *profiler_enabled(PyObject *self, PyObject *unused)
{
  (void)self;
  (void)unused;
  return PyBool_FromLong(tl_prof_on);
}

/* record_function's range: a handle for _profiler_pop, or None when off. */
static PyObject *profiler_push(PyObject *self, PyObject *name)
{
  (void)self;
  if (!PyUnicode_Check(name))
    return PyErr_Format(PyExc_TypeError, "record_function(): name must be str, not %s",
                        Py_TYPE(name)->tp_name);
  if (!tl_prof_on)
    Py_RETURN_NONE;
  tl_prof_mark m = tl_prof_begin(TL_PROF_USER, name, NULL, 0);
  if (m.index < 0)
    Py_RETURN_NONE;
  return Py_BuildValue("(nK)", m.index, (unsigned long long)m.generation);
}

static PyObject *profiler_pop(PyObject *self, PyObject *handle)
{
  (void)self;
  if (handle == Py_None)
    Py_RETURN_NONE;
  tl_prof_mark m;
  unsigned long long g;
  if (!PyArg_ParseTuple(handle, "nK", &m.index, &g))
    return NULL;
  m.generation = g;
  if (m.generation == generation && (m.index >= nevents || events[m.index].kind != TL_PROF_USER))
    return PyErr_Format(PyExc_RuntimeError, "record_function: invalid range handle");
  tl_prof_end(m);
  Py_RETURN_NONE;
}

PyMethodDef tl_py_profiler_functions[] = {
    {"_profiler_enable", profiler_enable, METH_O, "start recording (arg: record_shapes)"},
    {"_profiler_disable", profiler_disable, METH_NOARGS, "stop; returns the events"},
    {"_profiler_enabled", profiler_enabled, METH_NOARGS, "whether events are recorded"},
    {"_profiler_push", profiler_push, METH_O, "open a user range; returns its handle"},
    {"_profiler_pop", profiler_pop, METH_O, "close a user range"},
    {NULL, NULL, 0, NULL},
};
