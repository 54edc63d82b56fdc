/* py_dtype.c - torchlike.dtype: one immortal object per dtype, and parsing of
 * whatever users pass as dtype= (ours, NumPy's, names, Python types).
 *
 * PyTorch's quantized dtypes (quint8, qint8, qint32, quint4x2, quint2x4) are
 * dtype objects too, outside TL_DTYPE_LIST: no tensor of the core carries
 * one.  Each names the integer dtype its values are stored in (`dtype`) and
 * has its own name (`qname`, NULL for every other dtype).  A quantized
 * tensor is the Python type of torchlike/_quantized (integers plus scale and
 * zero point), so dtype= arguments of the core refuse them.               */
#include "ndcore/bindings/py_tensor.h"
#include "ndcore/bindings/py_numpy.h"

typedef struct {
  PyObject_HEAD
  tl_dtype dtype;    /* a quantized dtype's: the dtype its integers are stored in */
  const char *qname; /* a quantized dtype's name; NULL otherwise */
} tl_py_dtype;

PyTypeObject *tl_py_dtype_type;
static PyObject *dtype_objs[TL_DTYPE_COUNT];

/* quint4x2 and quint2x4 pack two and four values in a byte (itemsize 1) */
static const struct {
  const char *name;
  tl_dtype storage;
} quantized_dtypes[] = {
    {"quint8", TL_DTYPE_U8},   {"qint8", TL_DTYPE_I8},      {"qint32", TL_DTYPE_I32},
    {"quint4x2", TL_DTYPE_U8}, {"quint2x4", TL_DTYPE_U8},
};

static const char *dtype_name(PyObject *self)
{
  const tl_py_dtype *d = (const tl_py_dtype *)self;
  return d->qname ? d->qname : tl_dtype_names[d->dtype];
}

PyObject *tl_py_dtype_obj(tl_dtype d) { return dtype_objs[d]; }

static PyObject *dtype_repr(PyObject *self)
{
  return PyUnicode_FromFormat("torchlike.%s", dtype_name(self));
}

static PyObject *dtype_get_itemsize(PyObject *self, void *closure)
{
  (void)closure;
  return PyLong_FromSize_t(tl_dtype_size(((tl_py_dtype *)self)->dtype));
}
static PyObject *dtype_get_is_floating_point(PyObject *self, void *closure)
{
  (void)closure;
  return PyBool_FromLong(tl_dtype_is_float(((tl_py_dtype *)self)->dtype));
}
static PyObject *dtype_get_is_complex(PyObject *self, void *closure)
{
  (void)closure;
  return PyBool_FromLong(tl_dtype_is_complex(((tl_py_dtype *)self)->dtype));
}
static PyObject *dtype_get_is_signed(PyObject *self, void *closure)
{
  (void)closure;
  tl_dtype d = ((tl_py_dtype *)self)->dtype;
  tl_kind k = tl_dtype_kind(d);
  if (((tl_py_dtype *)self)->qname) /* PyTorch's answer */
    return PyErr_Format(PyExc_RuntimeError, "isSignedType not supported for quantized types");
  /* float8_e8m0fnu is a float without a sign bit */
  return PyBool_FromLong(k != TL_KIND_BOOL && k != TL_KIND_UINT && d != TL_DTYPE_F8E8M0FNU);
}
static PyObject *dtype_get_name(PyObject *self, void *closure)
{
  (void)closure;
  return PyUnicode_FromString(dtype_name(self));
}
static PyObject *dtype_to_complex(PyObject *self, PyObject *unused)
{
  (void)unused;
  const tl_dtype d = ((tl_py_dtype *)self)->dtype;
  if (((tl_py_dtype *)self)->qname)
    return PyErr_Format(PyExc_RuntimeError, "Unknown Complex ScalarType for %s", dtype_name(self));
  if (tl_dtype_is_float8(d)) /* no complex float8 */
    return PyErr_Format(PyExc_RuntimeError, "Unknown Complex ScalarType for %s",
                        tl_dtype_scalar_name(d));
  PyObject *r = dtype_objs[tl_dtype_to_complex(d)];
  return Py_NewRef(r);
}
static PyObject *dtype_to_real(PyObject *self, PyObject *unused)
{
  (void)unused;
  if (((tl_py_dtype *)self)->qname) /* a quantized dtype is its own real dtype */
    return Py_NewRef(self);
  return Py_NewRef(dtype_objs[tl_dtype_to_real(((tl_py_dtype *)self)->dtype)]);
}
static PyObject *dtype_reduce(PyObject *self, PyObject *unused)
{
  (void)unused; /* pickles as the module attribute of the same name */
  return PyUnicode_FromString(dtype_name(self));
}

static PyGetSetDef dtype_getset[] = {
    {"itemsize", dtype_get_itemsize, NULL, NULL, NULL},
    {"is_floating_point", dtype_get_is_floating_point, NULL, NULL, NULL},
    {"is_complex", dtype_get_is_complex, NULL, NULL, NULL},
    {"is_signed", dtype_get_is_signed, NULL, NULL, NULL},
    {"name", dtype_get_name, NULL, NULL, NULL},
    {NULL, NULL, NULL, NULL, NULL},
};
static PyMethodDef dtype_methods[] = {
    {"to_complex", dtype_to_complex, METH_NOARGS, NULL},
    {"to_real", dtype_to_real, METH_NOARGS, NULL},
    {"__reduce__", dtype_reduce, METH_NOARGS, NULL},
    {NULL, NULL, 0, NULL},
};
static PyType_Slot dtype_slots[] = {
    {Py_tp_repr, dtype_repr},
    {Py_tp_getset, dtype_getset},
    {Py_tp_methods, dtype_methods},
    {0, NULL},
};
static PyType_Spec dtype_spec = {
    .name = "torchlike.dtype",
    .basicsize = sizeof(tl_py_dtype),
    .flags = Py_TPFLAGS_DEFAULT | Py_TPFLAGS_DISALLOW_INSTANTIATION,
    .slots = dtype_slots,
};

int tl_py_dtype_types_init(PyObject *module)
{
  tl_py_dtype_type = (PyTypeObject *)PyType_FromSpec(&dtype_spec);
  if (!tl_py_dtype_type || PyModule_AddObjectRef(module, "dtype", (PyObject *)tl_py_dtype_type) < 0)
    return -1;
  for (int d = 0; d < TL_DTYPE_COUNT; d++) {
    tl_py_dtype *o = PyObject_New(tl_py_dtype, tl_py_dtype_type);
    if (!o)
      return -1;
    o->dtype = (tl_dtype)d;
    o->qname = NULL;
    dtype_objs[d] = (PyObject *)o;
    if (PyModule_AddObjectRef(module, tl_dtype_names[d], (PyObject *)o) < 0)
      return -1;
  }
  for (size_t i = 0; i < sizeof quantized_dtypes / sizeof quantized_dtypes[0]; i++) {
    tl_py_dtype *o = PyObject_New(tl_py_dtype, tl_py_dtype_type);
    if (!o)
      return -1;
    o->dtype = quantized_dtypes[i].storage;
    o->qname = quantized_dtypes[i].name;
    int r = PyModule_AddObjectRef(module, o->qname, (PyObject *)o);
    Py_DECREF(o); /* the module keeps it */
    if (r < 0)
      return -1;
  }
  return 0;
}

int tl_py_dtype_from_numpy(PyObject *descr_obj, tl_dtype *out)
{
  PyArray_Descr *descr = (PyArray_Descr *)descr_obj;
  if (PyDataType_ISBYTESWAPPED(descr)) {
    PyErr_Format(PyExc_TypeError, "can't convert NumPy dtype %R: its byte order is not the "
                                  "machine's; convert with a.astype(a.dtype.newbyteorder('='))",
                 descr_obj);
    return -1;
  }
  switch (descr->type_num) {
  case NPY_BOOL: *out = TL_DTYPE_BOOL; return 0;
  case NPY_UINT8: *out = TL_DTYPE_U8; return 0;
  case NPY_UINT16: *out = TL_DTYPE_U16; return 0;
  case NPY_UINT32: *out = TL_DTYPE_U32; return 0;
  case NPY_ULONG:
  case NPY_ULONGLONG:
    if (PyDataType_ELSIZE(descr) != 8)
      goto unsupported;
    *out = TL_DTYPE_U64;
    return 0;
  case NPY_INT8: *out = TL_DTYPE_I8; return 0;
  case NPY_INT16: *out = TL_DTYPE_I16; return 0;
  case NPY_INT32: *out = TL_DTYPE_I32; return 0;
  case NPY_LONG:
  case NPY_LONGLONG:
    if (PyDataType_ELSIZE(descr) != 8)
      goto unsupported;
    *out = TL_DTYPE_I64;
    return 0;
  case NPY_FLOAT16: *out = TL_DTYPE_F16; return 0;
  case NPY_FLOAT32: *out = TL_DTYPE_F32; return 0;
  case NPY_FLOAT64: *out = TL_DTYPE_F64; return 0;
  case NPY_COMPLEX64: *out = TL_DTYPE_C64; return 0;
  case NPY_COMPLEX128: *out = TL_DTYPE_C128; return 0;
  default: break;
  }
unsupported:
  PyErr_Format(PyExc_TypeError,
               "can't convert NumPy dtype %R: the supported types are float64, float32, "
               "float16, complex64, complex128, int64, int32, int16, int8, uint64, uint32, "
               "uint16, uint8 and bool",
               descr_obj);
  return -1;
}

bool tl_py_is_dtype_like(PyObject *o)
{
  return Py_IS_TYPE(o, tl_py_dtype_type) || PyType_Check(o) || PyArray_DescrCheck(o);
}

int tl_py_parse_dtype(PyObject *o, tl_dtype *out)
{
  if (Py_IS_TYPE(o, tl_py_dtype_type)) {
    if (((tl_py_dtype *)o)->qname) {
      PyErr_Format(PyExc_RuntimeError,
                   "torchlike.%s is a quantized dtype, which this function does not make: "
                   "quantize a float tensor with torchlike.quantize_per_tensor or "
                   "quantize_per_channel",
                   ((tl_py_dtype *)o)->qname);
      return -1;
    }
    *out = ((tl_py_dtype *)o)->dtype;
    return 0;
  }
  if (PyUnicode_Check(o)) {
    const char *s = PyUnicode_AsUTF8(o);
    if (!s)
      return -1;
    for (int d = 0; d < TL_DTYPE_COUNT; d++)
      if (!strcmp(s, tl_dtype_names[d])) {
        *out = (tl_dtype)d;
        return 0;
      }
  }
  if (o == (PyObject *)&PyFloat_Type) { /* as NumPy and PyTorch read dtype=float */
    *out = TL_DTYPE_F64;
    return 0;
  }
  /* A NumPy DType class (np.dtypes.Float64DType), which NumPy's own Python
   * code passes as a ufunc's dtype= since 2.5: np.dtype() would read it as
   * an arbitrary class (object), so go through the scalar type it names.
   * The DType classes' metaclass is the type of a descriptor's type (the
   * C API names it only for extensions that target NumPy 2.0 alone). */
  PyArray_Descr *f8 = PyArray_DescrFromType(NPY_DOUBLE);
  const bool dtype_class = PyObject_TypeCheck(o, Py_TYPE(Py_TYPE(f8)));
  Py_DECREF(f8);
  if (dtype_class) {
    PyObject *scalar = PyObject_GetAttrString(o, "type");
    int r = scalar ? tl_py_parse_dtype(scalar, out) : -1;
    Py_XDECREF(scalar);
    return r;
  }
  PyArray_Descr *descr = NULL;
  if (!PyArray_DescrConverter2(o, &descr) || !descr) {
    PyErr_Clear();
    PyErr_Format(PyExc_TypeError, "dtype must be a torchlike.dtype, a NumPy dtype or a dtype "
                                  "name, not %R", o);
    return -1;
  }
  int r = tl_py_dtype_from_numpy((PyObject *)descr, out);
  Py_DECREF(descr);
  return r;
}
