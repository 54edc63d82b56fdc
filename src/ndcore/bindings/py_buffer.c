/* py_buffer.c - the Python buffer protocol (PEP 3118) for CPU tensors.
 *
 * memoryview(t), np.asarray(t) and anything else that asks for a buffer see
 * the tensor's own bytes: no copy, any strides (negative included), with the
 * storage's read-only flag.  Each export holds a reference to the storage, so
 * the bytes stay valid even if the tensor is later pointed elsewhere; the
 * shape and byte strides handed out live in that same per-export block.
 *
 * Requests the layout cannot meet (no strides wanted for a strided view, a
 * contiguity it lacks, a writable view of read-only memory) and dtypes the
 * struct module has no code for (bfloat16) raise BufferError.  So does a
 * tensor whose class says its memory is not what it means (the sparse
 * layouts of torchlike/_sparse/, whose storage is a placeholder; vmap's
 * batched tensors, whose storage holds the whole batch): NumPy then falls
 * back on the class's __array__, which says what to do instead.           */
#include "ndcore/bindings/py_tensor.h"

/* A Tensor subclass whose memory is not what it means sets the class
 * attribute _tl_refuse_buffer; plain tensors skip the lookup. */
static int is_placeholder(PyObject *self)
{
  if (Py_TYPE(self) == tl_py_tensor_type)
    return 0;
  PyObject *flag = PyObject_GetAttrString((PyObject *)Py_TYPE(self), "_tl_refuse_buffer");
  if (!flag) {
    PyErr_Clear();
    return 0;
  }
  int r = PyObject_IsTrue(flag);
  Py_DECREF(flag);
  return r;
}

/* Per-export state, freed by bf_releasebuffer. */
typedef struct {
  tl_storage *storage;
  Py_ssize_t shape[TL_MAX_DIMS];
  Py_ssize_t strides[TL_MAX_DIMS]; /* bytes */
} buffer_export;

/* struct-module format of each dtype; NULL where there is none. */
static const char *buffer_format(tl_dtype d)
{
  switch (d) {
  case TL_DTYPE_BOOL: return "?";
  case TL_DTYPE_U8: return "B";
  case TL_DTYPE_U16: return "H";
  case TL_DTYPE_U32: return "I";
  case TL_DTYPE_U64: return "Q";
  case TL_DTYPE_I8: return "b";
  case TL_DTYPE_I16: return "h";
  case TL_DTYPE_I32: return "i";
  case TL_DTYPE_I64: return "q";
  case TL_DTYPE_F16: return "e";
  case TL_DTYPE_F32: return "f";
  case TL_DTYPE_F64: return "d";
  case TL_DTYPE_C64: return "Zf";
  case TL_DTYPE_C128: return "Zd";
  default: return NULL;
  }
}

/* C order (last index fastest) when order == 'C', Fortran order otherwise.
 * Sizes of 1 leave their stride free; an empty view is contiguous either way. */
static bool is_contiguous_in(int ndim, const Py_ssize_t *shape, const Py_ssize_t *strides,
                             Py_ssize_t itemsize, char order)
{
  for (int i = 0; i < ndim; i++)
    if (shape[i] == 0)
      return true;
  Py_ssize_t expected = itemsize;
  for (int k = 0; k < ndim; k++) {
    int i = order == 'C' ? ndim - 1 - k : k;
    if (shape[i] != 1 && strides[i] != expected)
      return false;
    expected *= shape[i];
  }
  return true;
}

static int buffer_get(PyObject *self, Py_buffer *view, int flags)
{
  tl_tensor *t = tl_py_t(self);
  const char *format = buffer_format(t->dtype);
  char dev[32];
  view->obj = NULL;
  int placeholder = is_placeholder(self);
  if (placeholder) {
    if (placeholder > 0)
      PyErr_Format(PyExc_BufferError, "a %s has no strided data to export through the buffer "
                                      "protocol; call to_dense() first", Py_TYPE(self)->tp_name);
    return -1;
  }
  if (tl_tensor_device(t).type != TL_DEVICE_CPU) {
    PyErr_Format(PyExc_BufferError, "the buffer protocol needs host memory, but the tensor is on "
                                    "%s; copy it with .cpu() first",
                 tl_device_str(dev, sizeof dev, tl_tensor_device(t)));
    return -1;
  }
  /* A raw view would drop the tape: NumPy then falls back on __array__, whose
   * error says what to do (detach first). */
  if (((tl_py_tensor *)self)->requires_grad && tl_py_grad_enabled) {
    PyErr_SetString(PyExc_BufferError, "a tensor that requires grad can't be exported through "
                                       "the buffer protocol; use tensor.detach() first");
    return -1;
  }
  if (!format) {
    PyErr_Format(PyExc_BufferError, "a %s tensor can't be exported through the buffer protocol: "
                                    "the struct module has no %s format; use DLPack or convert "
                                    "with .float() first",
                 tl_dtype_names[t->dtype], tl_dtype_names[t->dtype]);
    return -1;
  }
  if ((flags & PyBUF_WRITABLE) && t->storage->readonly) {
    PyErr_SetString(PyExc_BufferError, "a writable buffer was requested from a read-only tensor");
    return -1;
  }
  buffer_export *ex = PyMem_Malloc(sizeof *ex);
  if (!ex) {
    PyErr_NoMemory();
    return -1;
  }
  Py_ssize_t itemsize = (Py_ssize_t)tl_dtype_size(t->dtype);
  for (int i = 0; i < t->ndim; i++) {
    ex->shape[i] = (Py_ssize_t)t->shape[i];
    ex->strides[i] = (Py_ssize_t)t->strides[i] * itemsize;
  }
  bool c_contig = is_contiguous_in(t->ndim, ex->shape, ex->strides, itemsize, 'C');
  bool f_contig = is_contiguous_in(t->ndim, ex->shape, ex->strides, itemsize, 'F');
  const char *refused = NULL;
  if ((flags & PyBUF_C_CONTIGUOUS) == PyBUF_C_CONTIGUOUS && !c_contig)
    refused = "C-contiguous";
  else if ((flags & PyBUF_F_CONTIGUOUS) == PyBUF_F_CONTIGUOUS && !f_contig)
    refused = "Fortran-contiguous";
  else if ((flags & PyBUF_ANY_CONTIGUOUS) == PyBUF_ANY_CONTIGUOUS && !c_contig && !f_contig)
    refused = "contiguous";
  else if ((flags & PyBUF_STRIDES) != PyBUF_STRIDES && !c_contig)
    refused = "C-contiguous (no strides requested)";
  if (refused) {
    PyMem_Free(ex);
    PyErr_Format(PyExc_BufferError, "the tensor is not %s; call .contiguous() first", refused);
    return -1;
  }
  tl_storage_incref(t->storage);
  ex->storage = t->storage;
  view->buf = tl_tensor_data(t);
  view->obj = Py_NewRef(self);
  view->len = (Py_ssize_t)tl_tensor_numel(t) * itemsize;
  view->itemsize = itemsize;
  view->readonly = t->storage->readonly;
  /* The struct format strings are static literals; consumers never write them. */
  view->format = (flags & PyBUF_FORMAT) ? (char *)format : NULL;
  if ((flags & PyBUF_ND) == PyBUF_ND) {
    view->ndim = t->ndim;
    view->shape = t->ndim ? ex->shape : NULL;
  } else { /* a plain run of bytes, as PyBuffer_FillInfo describes one */
    view->ndim = 1;
    view->shape = NULL;
  }
  view->strides = (flags & PyBUF_STRIDES) == PyBUF_STRIDES && t->ndim ? ex->strides : NULL;
  view->suboffsets = NULL;
  view->internal = ex;
  return 0;
}

static void buffer_release(PyObject *self, Py_buffer *view)
{
  (void)self;
  buffer_export *ex = view->internal;
  tl_storage_decref(ex->storage);
  PyMem_Free(ex);
}

PyType_Slot tl_py_buffer_slots[] = {
    {Py_bf_getbuffer, buffer_get},
    {Py_bf_releasebuffer, buffer_release},
    {0, NULL},
};
