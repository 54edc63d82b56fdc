/* py_device.c - device arguments.  torchlike.device itself is a small Python
 * class (torchlike/_device.py); C parses "cpu", "cuda", "cuda:1", ints and
 * device objects, and builds device objects through that class.            */
#include "ndcore/bindings/py_tensor.h"

static PyObject *device_class; /* set by torchlike/_device.py */

static PyObject *set_device_class(PyObject *self, PyObject *cls)
{
  (void)self;
  if (!PyType_Check(cls))
    return PyErr_Format(PyExc_TypeError, "_set_device_class expects a class");
  Py_XSETREF(device_class, Py_NewRef(cls));
  Py_RETURN_NONE;
}

static PyMethodDef device_functions[] = {
    {"_set_device_class", set_device_class, METH_O, NULL},
    {NULL, NULL, 0, NULL},
};

int tl_py_device_init(PyObject *module) { return PyModule_AddFunctions(module, device_functions); }

PyObject *tl_py_device_obj(tl_device d)
{
  if (!device_class)
    return PyErr_Format(PyExc_RuntimeError, "torchlike.device is not initialised");
  if (d.type == TL_DEVICE_CPU)
    return PyObject_CallFunction(device_class, "s", "cpu");
  return PyObject_CallFunction(device_class, "si", "cuda", d.index);
}

static int parse_device_string(const char *s, tl_device *out)
{
  if (!strcmp(s, "cpu")) {
    *out = tl_device_cpu();
    return 0;
  }
  if (!strncmp(s, "cuda", 4) && (s[4] == '\0' || s[4] == ':')) {
    char *end = NULL;
    long index = s[4] == ':' ? strtol(s + 5, &end, 10) : 0;
    if (s[4] == '\0' || (end && end != s + 5 && *end == '\0' && index >= 0)) {
      *out = (tl_device){TL_DEVICE_CUDA, (int)index};
      return 0;
    }
  }
  PyErr_Format(PyExc_RuntimeError, "Expected one of cpu, cuda device type at start of device "
                                   "string: %s", s);
  return -1;
}

int tl_py_parse_device(PyObject *o, tl_device *out)
{
  if (PyUnicode_Check(o)) {
    const char *s = PyUnicode_AsUTF8(o);
    return s ? parse_device_string(s, out) : -1;
  }
  if (PyLong_Check(o)) {
    long index = PyLong_AsLong(o);
    if (index < 0 && !PyErr_Occurred())
      PyErr_Format(PyExc_RuntimeError, "Device index must not be negative");
    if (PyErr_Occurred())
      return -1;
    *out = (tl_device){TL_DEVICE_CUDA, (int)index};
    return 0;
  }
  PyObject *str = PyObject_Str(o); /* device objects print as "cpu" / "cuda:0" */
  if (!str)
    return -1;
  int r = -1;
  if (device_class && PyObject_IsInstance(o, device_class) == 1)
    r = parse_device_string(PyUnicode_AsUTF8(str), out);
  else
    PyErr_Format(PyExc_TypeError, "device must be a string, an int or a torchlike.device, not %s",
                 Py_TYPE(o)->tp_name);
  Py_DECREF(str);
  return r;
}
