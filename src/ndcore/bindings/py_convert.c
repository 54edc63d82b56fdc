/* py_convert.c - Python objects to tensors and back.
 *
 * NumPy arrays are viewed in place: the storage keeps a reference to the
 * array and drops it when the last view dies, so memory is shared in both
 * directions (from_numpy, .numpy(), __array__).  Nested sequences go through
 * numpy.asarray, whose result we adopt without a copy; what it inferred is
 * mapped to PyTorch's defaults (Python floats -> the default float dtype).
 * Python scalars become 0-d tensors flagged weak for promotion (NEP 50).    */
#include "ndcore/bindings/py_tensor.h"
#include "ndcore/bindings/py_numpy.h"

static void release_pyobject(void *ctx, void *data)
{
  (void)data;
  PyGILState_STATE g = PyGILState_Ensure();
  Py_DECREF((PyObject *)ctx);
  PyGILState_Release(g);
}

int tl_py_from_numpy(PyObject *obj, tl_tensor *t)
{
  PyArrayObject *a = (PyArrayObject *)obj;
  tl_dtype dtype;
  if (tl_py_dtype_from_numpy((PyObject *)PyArray_DESCR(a), &dtype) < 0)
    return -1;
  int ndim = PyArray_NDIM(a);
  if (ndim > TL_MAX_DIMS) {
    PyErr_Format(PyExc_ValueError, "tensors have at most %d dimensions, got %d", TL_MAX_DIMS, ndim);
    return -1;
  }
  int64_t itemsize = (int64_t)tl_dtype_size(dtype);
  bool empty = PyArray_SIZE(a) == 0;
  char *data = PyArray_BYTES(a), *lo = data, *hi = empty ? data : data + itemsize;
  for (int i = 0; i < ndim; i++) {
    npy_intp stride = PyArray_STRIDE(a, i);
    /* A dimension that is never stepped along (size 1, or an empty array)
     * may carry any stride. */
    bool stepped = !empty && PyArray_DIM(a, i) > 1;
    if (!stepped && stride % itemsize != 0)
      stride = 0;
    if (stride % itemsize != 0) {
      PyErr_Format(PyExc_ValueError, "given numpy array strides not a multiple of the element "
                                     "byte size (stride %zd, itemsize %lld)",
                   (Py_ssize_t)stride, (long long)itemsize);
      return -1;
    }
    t->shape[i] = PyArray_DIM(a, i);
    t->strides[i] = stride / itemsize;
    if (!empty) {
      npy_intp extent = (PyArray_DIM(a, i) - 1) * stride;
      if (extent < 0)
        lo += extent;
      else
        hi += extent;
    }
  }
  /* Kernels load elements through typed pointers, which must be aligned. */
  if (!empty && !PyArray_ISALIGNED(a)) {
    PyErr_Format(PyExc_ValueError, "given numpy array is not aligned for its dtype %R; make an "
                                   "aligned copy with numpy.ascontiguousarray(a) or a.copy()",
                 (PyObject *)PyArray_DESCR(a));
    return -1;
  }
  /* The storage spans exactly the bytes the elements touch (none when empty)
   * and starts at the lowest, so negative strides stay views. */
  Py_INCREF(obj);
  tl_storage *s = tl_storage_wrap(lo, (size_t)(hi - lo), tl_device_cpu(),
                                  !PyArray_ISWRITEABLE(a), release_pyobject, obj);
  if (!s) {
    Py_DECREF(obj);
    tl_py_raise();
    return -1;
  }
  t->storage = s;
  t->dtype = dtype;
  t->ndim = ndim;
  t->offset = (data - lo) / itemsize;
  return 0;
}

PyObject *tl_py_to_numpy(PyObject *owner, const tl_tensor *t)
{
  int typenum;
  switch (t->dtype) {
  case TL_DTYPE_BOOL: typenum = NPY_BOOL; break;
  case TL_DTYPE_U8: typenum = NPY_UINT8; break;
  case TL_DTYPE_U16: typenum = NPY_UINT16; break;
  case TL_DTYPE_U32: typenum = NPY_UINT32; break;
  case TL_DTYPE_U64: typenum = NPY_UINT64; break;
  case TL_DTYPE_I8: typenum = NPY_INT8; break;
  case TL_DTYPE_I16: typenum = NPY_INT16; break;
  case TL_DTYPE_I32: typenum = NPY_INT32; break;
  case TL_DTYPE_I64: typenum = NPY_INT64; break;
  case TL_DTYPE_F16: typenum = NPY_FLOAT16; break;
  case TL_DTYPE_F32: typenum = NPY_FLOAT32; break;
  case TL_DTYPE_F64: typenum = NPY_FLOAT64; break;
  case TL_DTYPE_C64: typenum = NPY_COMPLEX64; break;
  case TL_DTYPE_C128: typenum = NPY_COMPLEX128; break;
  default:
    return PyErr_Format(PyExc_TypeError, "Got unsupported ScalarType %s: NumPy has no %s "
                                         "dtype; convert with .float() first",
                        tl_dtype_scalar_name(t->dtype), tl_dtype_names[t->dtype]);
  }
  char dev[32];
  if (tl_tensor_device(t).type != TL_DEVICE_CPU)
    return PyErr_Format(PyExc_TypeError, "can't convert %s device type tensor to numpy. "
                                         "Use Tensor.cpu() to copy the tensor to host memory first.",
                        tl_device_str(dev, sizeof dev, tl_tensor_device(t)));
  npy_intp dims[TL_MAX_DIMS], strides[TL_MAX_DIMS];
  for (int i = 0; i < t->ndim; i++) {
    dims[i] = t->shape[i];
    strides[i] = t->strides[i] * (npy_intp)tl_dtype_size(t->dtype);
  }
  int flags = t->storage->readonly ? 0 : NPY_ARRAY_WRITEABLE;
  PyObject *arr = PyArray_New(&PyArray_Type, t->ndim, dims, typenum, strides, tl_tensor_data(t),
                              0, flags, NULL);
  if (!arr)
    return NULL;
  if (PyArray_SetBaseObject((PyArrayObject *)arr, Py_NewRef(owner)) < 0) {
    Py_DECREF(arr);
    return NULL;
  }
  return arr;
}

int tl_py_scalar(PyObject *o, tl_scalar *s)
{
  if (PyBool_Check(o)) {
    *s = (tl_scalar){.kind = TL_KIND_BOOL, .v.b = o == Py_True};
    return 1;
  }
  if (PyArray_IsScalar(o, Generic)) /* NumPy scalars are strong: arrays, not scalars */
    return 0;
  if (PyLong_Check(o)) {
    int overflow = 0;
    long long v = PyLong_AsLongLongAndOverflow(o, &overflow);
    if (overflow > 0) { /* uint64's upper half, which only a uint64 tensor takes */
      unsigned long long u = PyLong_AsUnsignedLongLong(o);
      if (u == (unsigned long long)-1 && PyErr_Occurred()) {
        PyErr_Clear();
      } else {
        *s = (tl_scalar){.kind = TL_KIND_UINT, .v.u = u};
        return 1;
      }
    }
    if (overflow) {
      PyErr_Format(PyExc_OverflowError, "Python integer %R is out of bounds for int64", o);
      return -1;
    }
    if (v == -1 && PyErr_Occurred())
      return -1;
    *s = (tl_scalar){.kind = TL_KIND_INT, .v.i = v};
    return 1;
  }
  if (PyFloat_Check(o)) {
    *s = (tl_scalar){.kind = TL_KIND_FLOAT, .v.f = PyFloat_AS_DOUBLE(o)};
    return 1;
  }
  if (PyComplex_Check(o)) {
    Py_complex c = PyComplex_AsCComplex(o);
    *s = (tl_scalar){.kind = TL_KIND_COMPLEX, .v.c = c.real + c.imag * I};
    return 1;
  }
  return 0;
}

int tl_py_numpy_scalar(PyObject *o, tl_scalar *s)
{
  if (!PyArray_IsScalar(o, Bool) && !PyArray_IsScalar(o, Integer) &&
      !PyArray_IsScalar(o, Floating) && !PyArray_IsScalar(o, ComplexFloating))
    return 0;
  PyObject *item = PyObject_CallMethod(o, "item", NULL); /* the Python number */
  if (!item)
    return -1;
  int r = tl_py_scalar(item, s);
  Py_DECREF(item);
  return r;
}

PyObject *tl_py_scalar_obj(tl_scalar s)
{
  switch (s.kind) {
  case TL_KIND_BOOL: return PyBool_FromLong(s.v.b);
  case TL_KIND_FLOAT: return PyFloat_FromDouble(s.v.f);
  case TL_KIND_COMPLEX: return PyComplex_FromDoubles(creal(s.v.c), cimag(s.v.c));
  case TL_KIND_UINT: return PyLong_FromUnsignedLongLong(s.v.u);
  default: return PyLong_FromLongLong(s.v.i);
  }
}

tl_dtype tl_py_scalar_dtype(tl_kind k)
{
  switch (k) {
  case TL_KIND_BOOL: return TL_DTYPE_BOOL;
  case TL_KIND_FLOAT: return TL_DTYPE_F64;
  case TL_KIND_COMPLEX: return TL_DTYPE_C128;
  case TL_KIND_UINT: return TL_DTYPE_U64;
  default: return TL_DTYPE_I64;
  }
}

/* Replace t by a copy in `dtype` (or a plain copy when dtype < 0). */
static int recast(tl_tensor *t, int dtype)
{
  tl_tensor copy;
  if (tl_tensor_to_dtype(&copy, t, dtype < 0 ? t->dtype : (tl_dtype)dtype) != TL_OK)
    return tl_py_raise_int();
  tl_tensor_release(t);
  *t = copy;
  return 0;
}

/* Does `o` (nested lists/tuples or other Python sequences) hold a double-precision value that is not a
 * plain Python float or complex - a NumPy scalar, an ndarray, a tensor, any
 * other array-like?  Those keep float64/complex128, as in PyTorch; only plain
 * Python numbers take the default dtype. */
static bool holds_strong_double(PyObject *o, int depth)
{
  if (PyFloat_CheckExact(o) || PyComplex_CheckExact(o) || PyLong_Check(o))
    return false;
  if (tl_py_is_tensor(o))
    return tl_py_t(o)->dtype == TL_DTYPE_F64 || tl_py_t(o)->dtype == TL_DTYPE_C128;
  if (PyArray_Check(o))
    return PyArray_TYPE((PyArrayObject *)o) == NPY_DOUBLE ||
           PyArray_TYPE((PyArrayObject *)o) == NPY_CDOUBLE;
  if (PyArray_IsScalar(o, Generic))
    return PyArray_IsScalar(o, Double) || PyArray_IsScalar(o, CDouble);
  if (depth > TL_MAX_DIMS)
    return false;
  PyObject *seq = NULL;
  if (!PyList_Check(o) && !PyTuple_Check(o)) {
    /* other Python sequences (deque, array.array, user classes) hold Python
     * numbers, as lists do, unless they present themselves as arrays */
    if (!PySequence_Check(o) || PyUnicode_Check(o) || PyBytes_Check(o) ||
        PyObject_HasAttrString(o, "__array__") || PyObject_HasAttrString(o, "__array_interface__"))
      return true;
    if (!(seq = PySequence_Fast(o, ""))) {
      PyErr_Clear(); /* NumPy already read it; whatever it is, keep its float64 */
      return true;
    }
    o = seq;
  }
  bool strong = false;
  Py_ssize_t n = PySequence_Fast_GET_SIZE(o);
  PyObject **items = PySequence_Fast_ITEMS(o);
  for (Py_ssize_t i = 0; i < n && !strong; i++)
    strong = holds_strong_double(items[i], depth + 1);
  Py_XDECREF(seq);
  return strong;
}

/* The first Python int in `o` (nested lists/tuples) outside int64, or NULL
 * (borrowed); *kind becomes 1 when a Python float sits among the values, 2
 * when a complex does; *inexact is set by an int64 a double cannot hold
 * (past 2**53). */
static PyObject *int_past_int64(PyObject *o, int depth, int *kind, bool *inexact)
{
  int overflow = 0;
  if (PyFloat_Check(o) || PyComplex_Check(o)) {
    int k = PyComplex_Check(o) ? 2 : 1;
    *kind = k > *kind ? k : *kind;
    return NULL;
  }
  if (PyLong_Check(o)) {
    long long v = PyLong_AsLongLongAndOverflow(o, &overflow);
    *inexact |= !overflow && (v > (1LL << 53) || v < -(1LL << 53));
    return overflow ? o : NULL;
  }
  if ((!PyList_Check(o) && !PyTuple_Check(o)) || depth > TL_MAX_DIMS)
    return NULL;
  PyObject *found = NULL, **items = PySequence_Fast_ITEMS(o);
  for (Py_ssize_t i = 0; i < PySequence_Fast_GET_SIZE(o); i++) {
    PyObject *f = int_past_int64(items[i], depth + 1, kind, inexact);
    found = found ? found : f;
  }
  return found;
}

/* [2**63 - 1, -1.5] with an integer dtype: NumPy's inference makes it
 * float64, which rounds the int; NumPy's and PyTorch's constructors convert
 * each value to the dtype instead (the int exact, the float truncated).  So
 * do we, through int64, when such an int is among the values.  Replaces
 * *arr. */
static int ints_exactly(PyObject *o, int dtype, PyObject **arr)
{
  int kind = 0;
  bool inexact = false;
  if (dtype < 0 || !tl_dtype_is_integral((tl_dtype)dtype) || dtype == TL_DTYPE_BOOL ||
      int_past_int64(o, 0, &kind, &inexact) || !inexact || kind != 1)
    return 0;
  Py_SETREF(*arr, PyArray_FromAny(o, PyArray_DescrFromType(NPY_INT64), 0, 0,
                                  NPY_ARRAY_ALIGNED | NPY_ARRAY_NOTSWAPPED, NULL));
  return *arr ? 0 : -1;
}

/* NumPy holds Python ints past int64 as uint64 or objects.  As PyTorch: a
 * uint64 dtype takes them when they fit (NumPy's conversion raises
 * OverflowError for those that do not, negative ones included); they are
 * read as doubles when a floating dtype is asked for (or, with none asked,
 * when a float is among the values); else an OverflowError names the first,
 * as for a single int.  Replaces *arr. */
static int ints_past_int64(PyObject *o, int dtype, PyObject **arr)
{
  int kind = 0;
  bool inexact = false;
  PyObject *big = int_past_int64(o, 0, &kind, &inexact);
  if (!big)
    return 0; /* not ints: the caller names the dtype */
  if (dtype == TL_DTYPE_U64) {
    Py_SETREF(*arr, PyArray_FromAny(o, PyArray_DescrFromType(NPY_UINT64), 0, 0,
                                    NPY_ARRAY_ALIGNED | NPY_ARRAY_NOTSWAPPED, NULL));
    return *arr ? 0 : -1;
  }
  if (dtype >= 0)
    kind = tl_dtype_is_complex((tl_dtype)dtype) ? 2 : tl_dtype_is_float((tl_dtype)dtype) ? 1 : 0;
  if (!kind) {
    PyErr_Format(PyExc_OverflowError, "Python integer %S is out of bounds for int64", big);
    return -1;
  }
  Py_SETREF(*arr, PyArray_FromAny(o, PyArray_DescrFromType(kind == 2 ? NPY_CDOUBLE : NPY_DOUBLE),
                                  0, 0, NPY_ARRAY_ALIGNED | NPY_ARRAY_NOTSWAPPED, NULL));
  return *arr ? 0 : -1;
}

/* torch.tensor's rule for a Python value written into dtype d: an integer
 * dtype takes only values that fit (c10's overflow rule, in the
 * constructor's words: "type uint8"), a real dtype no complex number; a
 * float dtype takes any real (past its range it is inf). */
static int check_constructor_value(tl_scalar s, tl_dtype d)
{
  tl_kind k = tl_dtype_kind(d);
  if (d == TL_DTYPE_BOOL)
    return 0;
  if (s.kind == TL_KIND_COMPLEX && k != TL_KIND_COMPLEX) {
    PyErr_SetString(PyExc_TypeError, k == TL_KIND_FLOAT
                                         ? "must be real number, not complex"
                                         : "'complex' object cannot be interpreted as an integer");
    return -1;
  }
  if (d == TL_DTYPE_U64 && s.kind == TL_KIND_INT && s.v.i < 0) {
    PyErr_SetString(PyExc_OverflowError, "can't convert negative int to unsigned");
    return -1;
  }
  if ((k == TL_KIND_INT || k == TL_KIND_UINT) && !tl_scalar_store_fits(s, d)) {
    PyErr_Format(PyExc_RuntimeError, "value cannot be converted to type %s without overflow",
                 tl_dtype_names[d]);
    return -1;
  }
  return 0;
}

/* check_constructor_value for each element of t, a fresh contiguous host
 * tensor NumPy made of a Python list. */
static int check_constructor_values(const tl_tensor *t, tl_dtype d)
{
  const char *p = tl_tensor_data(t);
  const int64_t size = (int64_t)tl_dtype_size(t->dtype), n = tl_tensor_numel(t);
  if (t->dtype == d || !tl_tensor_is_contiguous(t))
    return 0;
  for (int64_t i = 0; i < n; i++)
    if (check_constructor_value(tl_scalar_load(t->dtype, p + i * size), d) < 0)
      return -1;
  return 0;
}

/* o (nested lists/tuples) with each tensor on a device replaced by its host
 * copy, for NumPy's conversion to read (it cannot read device memory); as in
 * PyTorch, tensor([x, y]) of device tensors copies them.  A new reference:
 * o itself when nothing is on a device. */
static PyObject *host_items(PyObject *o, int depth)
{
  if (tl_py_is_tensor(o) && tl_tensor_device(tl_py_t(o)).type != TL_DEVICE_CPU)
    return PyObject_CallMethod(o, "cpu", NULL);
  if ((!PyList_Check(o) && !PyTuple_Check(o)) || depth > TL_MAX_DIMS)
    return Py_NewRef(o);
  Py_ssize_t n = PySequence_Fast_GET_SIZE(o);
  PyObject *copy = NULL, **items = PySequence_Fast_ITEMS(o);
  for (Py_ssize_t i = 0; i < n; i++) {
    PyObject *h = host_items(items[i], depth + 1);
    if (!h)
      goto fail;
    if (h != items[i] && !copy) {
      if (!(copy = PyList_New(n))) {
        Py_DECREF(h);
        goto fail;
      }
      for (Py_ssize_t j = 0; j < i; j++)
        PyList_SET_ITEM(copy, j, Py_NewRef(items[j]));
    }
    if (copy)
      PyList_SET_ITEM(copy, i, h);
    else
      Py_DECREF(h);
  }
  return copy ? copy : Py_NewRef(o);
fail:
  Py_XDECREF(copy);
  return NULL;
}

static bool nested_sequence(PyObject *o)
{
  return PySequence_Check(o) && !PyUnicode_Check(o) && !PyBytes_Check(o) && !PyArray_Check(o) &&
         !tl_py_is_tensor(o);
}

/* The first sequence of nested lists whose length is not the one its dim
 * has (the lengths along the first items, as PyTorch infers the shape):
 * sets PyTorch's ValueError for it and returns 1; 0 when none differs, -1
 * on a Python error. */
static int ragged_at(PyObject *o, const Py_ssize_t *sizes, int ndim, int dim)
{
  PyObject *seq = PySequence_Fast(o, "");
  if (!seq)
    return -1;
  Py_ssize_t n = PySequence_Fast_GET_SIZE(seq);
  int r = 0;
  if (n != sizes[dim]) {
    PyErr_Format(PyExc_ValueError, "expected sequence of length %zd at dim %d (got %zd)",
                 sizes[dim], dim, n);
    r = 1;
  }
  for (Py_ssize_t i = 0; !r && dim + 1 < ndim && i < n; i++) {
    PyObject *item = PySequence_Fast_GET_ITEM(seq, i);
    if (nested_sequence(item))
      r = ragged_at(item, sizes, ndim, dim + 1);
  }
  Py_DECREF(seq);
  return r;
}

/* NumPy refused nested lists: when their lengths disagree, PyTorch's words
 * for the first that does replace NumPy's ("inhomogeneous shape"). */
static void ragged_error(PyObject *o)
{
  Py_ssize_t sizes[TL_MAX_DIMS];
  int ndim = 0;
  PyObject *cur = o;
  Py_INCREF(cur);
  while (ndim < TL_MAX_DIMS && nested_sequence(cur)) {
    Py_ssize_t n = PySequence_Size(cur);
    if (n < 0) {
      PyErr_Clear();
      break;
    }
    sizes[ndim++] = n;
    PyObject *first = n ? PySequence_GetItem(cur, 0) : NULL;
    Py_DECREF(cur);
    cur = first;
    if (!cur) {
      PyErr_Clear();
      break;
    }
  }
  Py_XDECREF(cur);
  if (ndim == 0)
    return;
  PyObject *type, *value, *trace;
  PyErr_Fetch(&type, &value, &trace);
  int r = ragged_at(o, sizes, ndim, 0);
  if (r == 1) {
    Py_XDECREF(type);
    Py_XDECREF(value);
    Py_XDECREF(trace);
    return;
  }
  if (r < 0)
    PyErr_Clear();
  PyErr_Restore(type, value, trace);
}

/* big_as: the dtype that decides how Python ints past int64 are read (dtype
 * itself, or for a value written into a tensor that tensor's dtype) */
static int to_tensor(PyObject *o, int dtype, bool copy, bool demote_ok, int big_as, tl_tensor *t,
                     bool *weak)
{
  tl_scalar s;
  *weak = false;
  if (tl_py_is_tensor(o)) {
    tl_tensor_view_of(t, tl_py_t(o));
    if (copy || (dtype >= 0 && (tl_dtype)dtype != t->dtype))
      return recast(t, dtype);
    return 0;
  }
  /* CuPy and Numba arrays: zero-copy views (the common types skip the lookup) */
  bool plain = PyArray_Check(o) || PyList_Check(o) || PyTuple_Check(o) || PyLong_Check(o) ||
               PyFloat_Check(o) || PyComplex_Check(o);
  int cuda = plain ? 0 : tl_py_from_cuda_array_interface(o, t);
  if (cuda != 0) {
    if (cuda > 0 && (copy || (dtype >= 0 && (tl_dtype)dtype != t->dtype)))
      return recast(t, dtype);
    return cuda > 0 ? 0 : -1;
  }
  int is_scalar = tl_py_scalar(o, &s);
  if (is_scalar < 0)
    return -1;
  if (is_scalar) {
    tl_dtype d = dtype >= 0 ? (tl_dtype)dtype : tl_py_scalar_dtype(s.kind);
    if (check_constructor_value(s, d) < 0) /* tensor(300, dtype=uint8) */
      return -1;
    if (tl_tensor_empty(t, d, 0, NULL, tl_device_cpu()) != TL_OK)
      return tl_py_raise_int();
    tl_scalar_store(s, d, tl_tensor_data(t));
    *weak = dtype < 0;
    return 0;
  }
  bool from_python = !PyArray_Check(o) && !PyArray_IsScalar(o, Generic);
  /* Byte-swapped or unaligned arrays are copied into native, aligned ones
   * here (tensor() and as_tensor() may copy; from_numpy() may not). */
  PyObject *arr = PyArray_CheckFromAny(o, NULL, 0, 0, NPY_ARRAY_ALIGNED | NPY_ARRAY_NOTSWAPPED,
                                       NULL);
  if (!arr && from_python) { /* a device tensor among the items refuses NumPy: copy, retry */
    PyObject *type, *value, *trace, *host;
    PyErr_Fetch(&type, &value, &trace);
    if (!(host = host_items(o, 0)) || host == o) {
      Py_XDECREF(host);
      PyErr_Restore(type, value, trace); /* none there: NumPy's own error stands */
      if (PyErr_ExceptionMatches(PyExc_ValueError))
        ragged_error(o);
      return -1;
    }
    Py_XDECREF(type);
    Py_XDECREF(value);
    Py_XDECREF(trace);
    arr = PyArray_CheckFromAny(host, NULL, 0, 0, NPY_ARRAY_ALIGNED | NPY_ARRAY_NOTSWAPPED, NULL);
    Py_DECREF(host);
  }
  if (!arr)
    return -1;
  int typenum = PyArray_TYPE((PyArrayObject *)arr);
  /* NumPy reads ints on both sides of int64's range as float64: for uint64,
   * no dtype or an integer one, the ints past int64 decide (tensor([2**63, 1])
   * was float32 while tensor([2**63]) raised, and t[:2] = [2**63, 1] of int64
   * stored INT64_MIN) */
  bool mixed = typenum == NPY_DOUBLE &&
               (big_as < 0 || (tl_dtype_is_integral((tl_dtype)big_as) && big_as != TL_DTYPE_BOOL));
  if (from_python &&
      (typenum == NPY_OBJECT || typenum == NPY_ULONG || typenum == NPY_ULONGLONG || mixed)) {
    if (ints_past_int64(o, big_as, &arr) < 0) {
      Py_XDECREF(arr);
      return -1;
    }
    typenum = PyArray_TYPE((PyArrayObject *)arr);
  }
  if (from_python && typenum == NPY_DOUBLE) { /* (uint64 too: [2**63 - 1, 0.5]) */
    if (ints_exactly(o, big_as, &arr) < 0)
      return -1;
    typenum = PyArray_TYPE((PyArrayObject *)arr);
  }
  if (typenum == NPY_OBJECT || typenum == NPY_UNICODE || typenum == NPY_STRING ||
      typenum == NPY_VOID) {
    PyErr_Format(PyExc_TypeError, "can't convert an object of type %s to a tensor: its elements "
                                  "are not numbers", Py_TYPE(o)->tp_name);
    Py_DECREF(arr);
    return -1;
  }
  /* An array nobody else holds, owning its bytes, is ours to adopt. */
  bool fresh = Py_REFCNT(arr) == 1 && PyArray_CHKFLAGS((PyArrayObject *)arr, NPY_ARRAY_OWNDATA);
  int r = tl_py_from_numpy(arr, t);
  Py_DECREF(arr);
  if (r < 0)
    return -1;
  if (from_python && dtype >= 0 && check_constructor_values(t, (tl_dtype)dtype) < 0) {
    tl_tensor_release(t); /* tensor([300], dtype=uint8) */
    return -1;
  }
  int want = dtype;
  bool demote = want < 0 && from_python && demote_ok &&
                (t->dtype == TL_DTYPE_F64 || t->dtype == TL_DTYPE_C128) &&
                !holds_strong_double(o, 0);
  if (demote && t->dtype == TL_DTYPE_F64)
    want = tl_dtype_default_float();
  if (demote && t->dtype == TL_DTYPE_C128)
    want = tl_dtype_to_complex(tl_dtype_default_float());
  if (copy && !fresh)
    return recast(t, want);
  if (want >= 0 && (tl_dtype)want != t->dtype)
    return recast(t, want);
  return 0;
}

int tl_py_to_tensor(PyObject *o, int dtype, bool copy, tl_tensor *t, bool *weak)
{
  return to_tensor(o, dtype, copy, true, dtype, t, weak);
}

/* check_constructor_value for each Python int (not bool) in nested lists
 * and tuples o; ints past int64 were decided in the conversion. */
static int check_list_ints(PyObject *o, tl_dtype d, int depth)
{
  if (PyLong_Check(o) && !PyBool_Check(o)) {
    int overflow = 0;
    long long v = PyLong_AsLongLongAndOverflow(o, &overflow);
    if (v == -1 && PyErr_Occurred())
      return -1;
    tl_scalar s = {.kind = TL_KIND_INT, .v.i = v};
    return overflow ? 0 : check_constructor_value(s, d);
  }
  if ((!PyList_Check(o) && !PyTuple_Check(o)) || depth > TL_MAX_DIMS)
    return 0;
  for (Py_ssize_t i = 0; i < PySequence_Fast_GET_SIZE(o); i++)
    if (check_list_ints(PySequence_Fast_ITEMS(o)[i], d, depth + 1) < 0)
      return -1;
  return 0;
}

int tl_py_value_to_tensor(PyObject *o, tl_dtype target, tl_tensor *t, bool *weak)
{
  if (to_tensor(o, -1, false, false, (int)target, t, weak) < 0)
    return -1;
  /* Python ints in a list are checked against an integer target as one
   * alone is (t[0] = 300 of uint8): t[:2] = [300, 1] wrapped to 44.  Beside
   * a float the list is float64, whose values no longer say which were
   * ints: those are checked in the list (t[:2] = [300, 1.5] wrapped too) */
  tl_kind k = tl_dtype_kind(target);
  if ((PyList_Check(o) || PyTuple_Check(o)) && (k == TL_KIND_INT || k == TL_KIND_UINT) &&
      (t->dtype == TL_DTYPE_I64 ? check_constructor_values(t, target)
                                : check_list_ints(o, target, 0)) < 0) {
    tl_tensor_release(t);
    return -1;
  }
  return 0;
}

/* A complex number that fits a real dtype has no imaginary part (the check
 * demands it), so it is then read as its real part, which drops nothing: no
 * ComplexWarning for x[0] = 1 + 0j, as PyTorch gives none. */
tl_status tl_py_check_weak_store(tl_tensor *src, bool weak, tl_dtype d)
{
  if (!weak)
    return TL_OK;
  if (tl_scalar_check_store(tl_scalar_load(src->dtype, tl_tensor_data(src)), d) != TL_OK)
    return tl_error_status();
  if (tl_dtype_is_complex(src->dtype) && !tl_dtype_is_complex(d))
    src->dtype = tl_dtype_to_real(src->dtype); /* a 0-d host value: its real part comes first */
  return TL_OK;
}
