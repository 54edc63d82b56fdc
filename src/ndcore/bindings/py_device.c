/* py_device.c - device arguments.  torchlike.device itself is a small Python
 * class (torchlike/_device.py); C parses "cpu", "cuda", "cuda:1", "fake"
 * (once the fake test device is enabled), ints and device objects, builds
 * device objects through that class, and keeps the default device that
 * creation functions use.                                                   */
#include "gpu/runtime/tl_gpu_runtime.h"
#include "ndcore/bindings/py_tensor.h"
#include "ndcore/tensor/tl_backend.h"

static PyObject *device_class; /* set by torchlike/_device.py */
/* One device object per place, made on first use: tensor.device and the
 * default device are asked for on most calls of the NumPy namespace, and
 * building one through the class's checks cost more than the call's work.
 * Slot 0 is index -1 (the CPU's); indices past the table are built anew. */
#define DEVICE_SLOTS 65
static PyObject *device_objects[TL_DEVICE_COUNT][DEVICE_SLOTS];
static tl_device default_device = {TL_DEVICE_CPU, -1};

tl_device tl_py_default_device(void) { return default_device; }

static PyObject *set_device_class(PyObject *self, PyObject *cls)
{
  (void)self;
  if (!PyType_Check(cls))
    return PyErr_Format(PyExc_TypeError, "_set_device_class expects a class");
  Py_XSETREF(device_class, Py_NewRef(cls));
  for (int t = 0; t < TL_DEVICE_COUNT; t++)
    for (int i = 0; i < DEVICE_SLOTS; i++)
      Py_CLEAR(device_objects[t][i]);
  Py_RETURN_NONE;
}

/* _set_default_device(device or None): None restores the CPU. */
static PyObject *set_default_device(PyObject *self, PyObject *arg)
{
  (void)self;
  tl_device d = tl_device_cpu();
  if (arg != Py_None && tl_py_parse_device(arg, &d) < 0)
    return NULL;
  default_device = d;
  Py_RETURN_NONE;
}

static PyObject *get_default_device(PyObject *self, PyObject *unused)
{
  (void)self;
  (void)unused;
  return tl_py_device_obj(default_device);
}

static PyMethodDef device_functions[] = {
    {"_set_device_class", set_device_class, METH_O, NULL},
    {"_set_default_device", set_default_device, METH_O, NULL},
    {"_get_default_device", get_default_device, METH_NOARGS, NULL},
    {NULL, NULL, 0, NULL},
};

int tl_py_device_init(PyObject *module)
{
  if (PyModule_AddFunctions(module, device_functions) < 0)
    return -1;
  return tl_py_backend_init(module);
}

static PyObject *make_device(tl_device d)
{
  char name[32];
  tl_device_str(name, sizeof name, (tl_device){d.type, -1});
  if (d.index < 0) /* the CPU, the meta device: no index, as in PyTorch */
    return PyObject_CallFunction(device_class, "s", name);
  return PyObject_CallFunction(device_class, "si", name, d.index);
}

PyObject *tl_py_device_obj(tl_device d)
{
  if (!device_class)
    return PyErr_Format(PyExc_RuntimeError, "torchlike.device is not initialised");
  int slot = d.type == TL_DEVICE_CPU ? 0 : d.index + 1;
  if ((unsigned)d.type >= TL_DEVICE_COUNT || slot < 0 || slot >= DEVICE_SLOTS)
    return make_device(d);
  PyObject **cached = &device_objects[d.type][slot];
  if (!*cached)
    *cached = make_device(d);
  return Py_XNewRef(*cached);
}

/* "name" or "name:N" for a device type other than the CPU. */
static int parse_indexed(const char *s, const char *name, tl_device_type type, tl_device *out)
{
  size_t n = strlen(name);
  if (strncmp(s, name, n) || (s[n] != '\0' && s[n] != ':'))
    return 0;
  if (s[n] == '\0') { /* "cuda" is the thread's current CUDA device (torchlike.cuda.set_device) */
    *out = (tl_device){type, type == TL_DEVICE_CUDA ? tl_gpu_current_device() : 0};
    return 1;
  }
  char *end = NULL;
  long index = strtol(s + n + 1, &end, 10);
  if (end == s + n + 1 || *end || index < 0 || s[n + 1] == '+' || s[n + 1] == '-' ||
      index > 1 << 20) {
    PyErr_Format(PyExc_RuntimeError, "Invalid device string: '%s'", s);
    return -1;
  }
  *out = (tl_device){type, (int)index};
  return 1;
}

static int parse_device_string(const char *s, tl_device *out)
{
  if (!strcmp(s, "cpu")) {
    *out = tl_device_cpu();
    return 0;
  }
  int r = parse_indexed(s, "cuda", TL_DEVICE_CUDA, out);
  if (!r && (r = parse_indexed(s, "meta", TL_DEVICE_META, out)) > 0)
    out->index = -1; /* "meta:0" is the one meta device, as in PyTorch */
  if (!r && tl_backend_available(TL_DEVICE_FAKE))
    r = parse_indexed(s, "fake", TL_DEVICE_FAKE, out);
  if (r)
    return r < 0 ? -1 : 0;
  PyErr_Format(PyExc_RuntimeError, "Expected one of cpu, cuda, meta%s device type at start of device "
                                   "string: %s",
               tl_backend_available(TL_DEVICE_FAKE) ? ", fake" : "", s);
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
  if (!device_class || PyObject_IsInstance(o, device_class) != 1) {
    PyErr_Format(PyExc_TypeError, "device must be a string, an int or a torchlike.device, not %s",
                 Py_TYPE(o)->tp_name);
    return -1;
  }
  PyObject *str = PyObject_Str(o); /* device objects print as "cpu" / "cuda:0" / "fake" */
  if (!str)
    return -1;
  int r = parse_device_string(PyUnicode_AsUTF8(str), out);
  Py_DECREF(str);
  return r;
}
