/* py_fft.c - torchlike.fft's primitives on devices (_C._fft_c2c, _fft_r2c,
 * _fft_c2r; signatures.txt [fft]) and, for tests, the fake device's FFT
 * executor.
 *
 * The ops are src/gpu/fft's tl_fft_run: cuFFT on CUDA.  The emulated fake
 * device (_C._fake_emulate_device) gets an executor that runs one pass as
 * the CPU does, through NumPy's pocketfft on its host bytes
 * (torchlike.fft._emulated_pass), so the op layer's device path (dims
 * moved last, work copies, passes of at most three dims, c2r's input
 * cleaned) runs without a GPU.                                           */
#include "ndcore/bindings/generated/bindings.h"
#include "gpu/fft/tl_gpu_fft.h"
#include "ndcore/tensor/tl_backend.h"

static PyObject *run(tl_fft_kind kind, const tl_tensor *self, const tl_py_ints *dim,
                     bool inverse, int64_t last_size)
{
  int64_t dims[TL_MAX_DIMS];
  tl_tensor out = {0};
  if (dim->n > TL_MAX_DIMS)
    return PyErr_Format(PyExc_RuntimeError, "fft: at most %d dims, got %d", TL_MAX_DIMS, dim->n);
  for (int i = 0; i < dim->n; i++)
    dims[i] = dim->v[i] < 0 ? dim->v[i] + self->ndim : dim->v[i];
  if (tl_fft_run(&out, self, kind, dim->n, dims, inverse, last_size) != TL_OK)
    return tl_py_raise();
  return tl_py_tensor_from(&out);
}

PyObject *tl_py_impl_fft_c2c(const char *name, const tl_py_args_fft_c2c *a)
{
  (void)name;
  return run(TL_FFT_C2C, tl_py_t(a->self), &a->dim, a->inverse, 0);
}

PyObject *tl_py_impl_fft_r2c(const char *name, const tl_py_args_fft_r2c *a)
{
  (void)name;
  return run(TL_FFT_R2C, tl_py_t(a->self), &a->dim, false, 0);
}

PyObject *tl_py_impl_fft_c2r(const char *name, const tl_py_args_fft_c2r *a)
{
  (void)name;
  return run(TL_FFT_C2R, tl_py_t(a->self), &a->dim, true, a->last_dim_size);
}

/* ---- the fake device's executor ----------------------------------------------------- */

static PyObject *bytes_of(tl_tensor *t)
{
  return PyMemoryView_FromMemory(tl_tensor_data(t),
                                 (Py_ssize_t)(tl_tensor_numel(t) * tl_dtype_size(t->dtype)),
                                 PyBUF_WRITE);
}

/* One pass on the fake device's (plain host) memory; a Python error there
 * becomes the op's RuntimeError. */
static tl_status emulated_exec(const tl_fft_desc *d, tl_tensor *in, tl_tensor *out)
{
  static const char *const kinds[] = {"c2c", "r2c", "c2r"};
  PyGILState_STATE gil = PyGILState_Ensure();
  tl_status st = TL_OK;
  PyObject *mod = NULL, *n = NULL, *src = NULL, *dst = NULL, *r = NULL;
  tl_backend_fake_open(); /* the pass reads and writes the device's bytes */
  if (!(mod = PyImport_ImportModule("torchlike.fft")) || !(n = PyTuple_New(d->rank)))
    goto fail;
  for (int i = 0; i < d->rank; i++) {
    PyObject *v = PyLong_FromLongLong(d->n[i]);
    if (!v)
      goto fail;
    PyTuple_SET_ITEM(n, i, v);
  }
  if (!(src = bytes_of(in)) || !(dst = bytes_of(out)))
    goto fail;
  r = PyObject_CallMethod(mod, "_emulated_pass", "sOOLOOss", kinds[d->kind],
                          d->inverse ? Py_True : Py_False, n, (long long)d->batch, src, dst,
                          tl_dtype_names[in->dtype], tl_dtype_names[out->dtype]);
  if (!r)
    goto fail;
  goto done;
fail: {
  PyObject *type, *exc, *tb;
  PyErr_Fetch(&type, &exc, &tb);
  PyObject *text = exc ? PyObject_Str(exc) : NULL;
  const char *msg = text ? PyUnicode_AsUTF8(text) : NULL;
  PyErr_Clear();
  st = tl_error_set(TL_ERR_RUNTIME, "fft on the emulated device: %s", msg ? msg : "failed");
  Py_XDECREF(text);
  Py_XDECREF(type);
  Py_XDECREF(exc);
  Py_XDECREF(tb);
}
done:
  tl_backend_fake_close();
  Py_XDECREF(r);
  Py_XDECREF(dst);
  Py_XDECREF(src);
  Py_XDECREF(n);
  Py_XDECREF(mod);
  PyGILState_Release(gil);
  return st;
}

void tl_py_fft_emulate_device(void) { tl_fft_register_device(TL_DEVICE_FAKE, emulated_exec); }
