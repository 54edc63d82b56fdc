/* py_module.c - torchlike._C: creates the types and registers every function.
 * Module-level settings (threads, default dtype, type promotion queries) live
 * here too, since they belong to no single object.                         */
#define TL_NUMPY_IMPORT
#include "ndcore/bindings/py_tensor.h"
#include "ndcore/bindings/generated/bindings.h"
#include "grad/py_grad.h"
#include "nn/bindings/py_optim.h"
#include "nn/tl_nn.h"
#include "ndcore/bindings/py_sig.h"
#include "ndcore/bindings/py_numpy.h"
#include "ndcore/bindings/py_profiler.h"
#include "ndcore/bindings/py_torch_function.h"
#include "ndcore/linalg/tl_linalg.h"
#include "ndcore/dispatch/tl_dispatch.h"
#include "ndcore/dispatch/tl_meta.h"
#include "ndcore/dispatch/tl_parallel.h"
#include "gpu/tl_gpu.h"
#include "gpu/nn/tl_gpu_conv_pool_norm.h"

/* The core lets go of the GIL around long kernels (tl_parallel.h) through
 * these.  A thread that does not hold it (none should call the core so, but
 * a pool worker never holds it) is left alone. */
static void *gil_release(void) { return PyGILState_Check() ? PyEval_SaveThread() : NULL; }

static void gil_take(void *state)
{
  if (state)
    PyEval_RestoreThread(state);
}

static PyObject *set_num_threads(PyObject *self, PyObject *arg)
{
  (void)self;
  long n = PyLong_AsLong(arg);
  if (n == -1 && PyErr_Occurred())
    return NULL;
  if (n < 1)
    return PyErr_Format(PyExc_ValueError, "set_num_threads expects a positive integer, got %ld", n);
  /* The pool waits for a job another thread is running: without the GIL,
   * since that thread needs it to return.  OpenBLAS changes its count under
   * its own lock, and the GIL keeps two of our callers apart there. */
  Py_BEGIN_ALLOW_THREADS
  tl_parallel_set_threads((int)n);
  Py_END_ALLOW_THREADS
  tl_linalg_set_blas_threads((int)n);
  Py_RETURN_NONE;
}

static PyObject *get_num_threads(PyObject *self, PyObject *unused)
{
  (void)self;
  (void)unused;
  return PyLong_FromLong(tl_parallel_get_threads());
}

static PyObject *parallel_jobs(PyObject *self, PyObject *unused)
{
  (void)self, (void)unused;
  return PyLong_FromLongLong(tl_parallel_jobs());
}

static PyObject *set_default_dtype(PyObject *self, PyObject *arg)
{
  (void)self;
  tl_dtype d;
  if (tl_py_parse_dtype(arg, &d) < 0)
    return NULL;
  if (tl_dtype_set_default_float(d) != TL_OK)
    return tl_py_raise();
  Py_RETURN_NONE;
}

/* _C._local_default_dtype(dtype or None) -> the previous setting: this
 * thread's default float dtype, over the process-wide one (None: no
 * override).  torchlike/_array_function.py sets float64 around NumPy's own
 * Python code run on tensors. */
static PyObject *local_default_dtype(PyObject *self, PyObject *arg)
{
  (void)self;
  tl_dtype d = TL_DTYPE_COUNT;
  if (arg != Py_None) {
    if (tl_py_parse_dtype(arg, &d) < 0)
      return NULL;
    if (!tl_dtype_is_float(d))
      return PyErr_Format(PyExc_TypeError, "only floating-point types can be the default "
                          "type, got %s", tl_dtype_names[d]);
  }
  tl_dtype previous = tl_dtype_local_default_float_swap(d);
  if (previous == TL_DTYPE_COUNT)
    Py_RETURN_NONE;
  return Py_NewRef(tl_py_dtype_obj(previous));
}

static PyObject *get_default_dtype(PyObject *self, PyObject *unused)
{
  (void)self;
  (void)unused;
  return Py_NewRef(tl_py_dtype_obj(tl_dtype_default_float()));
}

PyObject *tl_py_impl_promote_types(const char *name, const tl_py_args_promote_types *a)
{
  (void)name;
  if (tl_promote_check((tl_dtype)a->type1, (tl_dtype)a->type2) != TL_OK)
    return tl_py_raise();
  return Py_NewRef(tl_py_dtype_obj(tl_promote_types((tl_dtype)a->type1, (tl_dtype)a->type2)));
}

PyObject *tl_py_impl_can_cast(const char *name, const tl_py_args_can_cast *a)
{
  (void)name;
  return PyBool_FromLong(tl_can_cast((tl_dtype)a->from_, (tl_dtype)a->to));
}

/* result_type(tensor, other): the dtype an elementwise op on them computes in. */
PyObject *tl_py_impl_result_type(const char *name, const tl_py_args_result_type *a)
{
  (void)name;
  PyObject *ops[2] = {a->tensor, a->other};
  tl_tensor t[2] = {{0}};
  tl_arg in[2];
  bool weak[2];
  int n = 0;
  PyObject *r = NULL;
  for (; n < 2; n++) {
    if (tl_py_to_tensor(ops[n], -1, false, &t[n], &weak[n]) < 0)
      goto done;
    in[n] = (tl_arg){&t[n], weak[n]};
  }
  tl_dtype result, compute;
  if (tl_op_result_dtype(TL_OP_ADD, 2, in, &result, &compute) != TL_OK)
    tl_py_raise();
  else
    r = Py_NewRef(tl_py_dtype_obj(result));
done:
  for (int i = 0; i < n; i++)
    tl_tensor_release(&t[i]);
  return r;
}

static PyObject *cuda_device_count(PyObject *self, PyObject *unused)
{
  (void)self;
  (void)unused;
  return PyLong_FromLong(tl_gpu_device_count());
}

/* torchlike.backends.cudnn's flags: _cudnn_flags() gives (enabled, benchmark,
 * deterministic, allow_tf32); _cudnn_flags(e, b, d, t) sets them first. */
static PyObject *cudnn_flags(PyObject *self, PyObject *args)
{
  (void)self;
  tl_gpu_cudnn_flags f = tl_gpu_cudnn_flags_get();
  int e = f.enabled, b = f.benchmark, d = f.deterministic, t = f.allow_tf32;
  if (!PyArg_ParseTuple(args, "|pppp:_cudnn_flags", &e, &b, &d, &t))
    return NULL;
  if (PyTuple_GET_SIZE(args))
    tl_gpu_cudnn_flags_set((tl_gpu_cudnn_flags){.enabled = e, .benchmark = b, .deterministic = d,
                                                .allow_tf32 = t});
  f = tl_gpu_cudnn_flags_get();
  return Py_BuildValue("(NNNN)", PyBool_FromLong(f.enabled), PyBool_FromLong(f.benchmark),
                       PyBool_FromLong(f.deterministic), PyBool_FromLong(f.allow_tf32));
}

/* cuDNN's version (91900 for 9.19.0), None in a build without it. */
static PyObject *cudnn_version(PyObject *self, PyObject *unused)
{
  (void)self;
  (void)unused;
  long v = tl_gpu_cudnn_version();
  if (!v)
    Py_RETURN_NONE;
  return PyLong_FromLong(v);
}

static PyObject *blas_corename(PyObject *self, PyObject *unused)
{
  (void)self;
  (void)unused;
  return PyUnicode_FromString(tl_linalg_blas_corename());
}

/* Test hooks of the GEMM thread policy (blas_threads.c). */
static PyObject *gemm_single_thread(PyObject *self, PyObject *args)
{
  (void)self;
  long long m, n, k;
  if (!PyArg_ParseTuple(args, "LLL", &m, &n, &k))
    return NULL;
  return PyBool_FromLong(tl_linalg_gemm_single_thread(m, n, k));
}

static PyObject *blas_threads(PyObject *self, PyObject *unused)
{
  (void)self;
  (void)unused;
  return PyLong_FromLong(tl_linalg_blas_threads());
}

/* Whether nested lists and tuples hold a tensor: NumPy code hands torchlike
 * lists of numbers far more often than lists of tensors, and asks this of
 * each (np.asarray([1.0, 2.0]) must not let NumPy read tensors, which would
 * drop their autograd history and cannot read device memory). */
static bool holds_tensor(PyObject *seq, int depth)
{
  Py_ssize_t n = PySequence_Fast_GET_SIZE(seq);
  PyObject **items = PySequence_Fast_ITEMS(seq);
  for (Py_ssize_t i = 0; i < n; i++) {
    PyObject *e = items[i];
    if (tl_py_is_tensor(e))
      return true;
    if ((PyList_CheckExact(e) || PyTuple_CheckExact(e)) && depth < 64 && holds_tensor(e, depth + 1))
      return true;
  }
  return false;
}

static PyObject *has_tensor(PyObject *self, PyObject *seq)
{
  (void)self;
  if (!PyList_Check(seq) && !PyTuple_Check(seq))
    return PyErr_Format(PyExc_TypeError, "has_tensor() takes a list or a tuple, not %s",
                        Py_TYPE(seq)->tp_name);
  return PyBool_FromLong(holds_tensor(seq, 0));
}

static PyMethodDef module_functions[] = {
    {"set_num_threads", set_num_threads, METH_O, NULL},
    {"get_num_threads", get_num_threads, METH_NOARGS, NULL},
    {"_parallel_jobs", parallel_jobs, METH_NOARGS, NULL},
    {"set_default_dtype", set_default_dtype, METH_O, NULL},
    {"get_default_dtype", get_default_dtype, METH_NOARGS, NULL},
    {"_local_default_dtype", local_default_dtype, METH_O, NULL},
    {"_cuda_device_count", cuda_device_count, METH_NOARGS, NULL},
    {"_cudnn_flags", cudnn_flags, METH_VARARGS, "torchlike.backends.cudnn's flags, read or set"},
    {"_cudnn_version", cudnn_version, METH_NOARGS, NULL},
    {"_blas_corename", blas_corename, METH_NOARGS, "the kernel set OpenBLAS runs (SkylakeX, Haswell ...)"},
    {"_gemm_single_thread", gemm_single_thread, METH_VARARGS,
     "(M, N, K): whether such a product runs on one BLAS thread"},
    {"_blas_threads", blas_threads, METH_NOARGS, "OpenBLAS's thread count now"},
    {"_has_tensor", has_tensor, METH_O, "whether nested lists/tuples hold a tensor"},
    {"_signatures", tl_py_signatures, METH_NOARGS,
     "[(name, family, [(param, type, optional, default, kwonly)], declaration)] of signatures.txt"},
    {NULL, NULL, 0, NULL},
};

static struct PyModuleDef module_def = {
    PyModuleDef_HEAD_INIT,
    .m_name = "torchlike._C",
    .m_doc = "torchlike's C core",
    .m_size = -1,
    .m_methods = module_functions,
};

PyMODINIT_FUNC PyInit__C(void)
{
  import_array();
  tl_storage_init();
  tl_dispatch_init();
  tl_nn_register();
  tl_dispatch_meta_register(); /* after the CPU rows, the core's and src/nn's */
  tl_nn_meta_register();
  tl_parallel_set_lock_hooks(gil_release, gil_take);
  PyObject *m = PyModule_Create(&module_def);
  if (!m)
    return NULL;
  if (tl_py_dtype_types_init(m) < 0 || tl_py_device_init(m) < 0 || tl_py_dispatch_init(m) < 0 ||
      tl_py_tensor_types_init(m) < 0 || tl_py_ops_init(m) < 0 || tl_py_sort_init(m) < 0 ||
      PyModule_AddFunctions(m, tl_py_create_functions) < 0 ||
      tl_py_random_init(m) < 0 ||
      PyModule_AddFunctions(m, tl_py_view_functions) < 0 ||
      PyModule_AddFunctions(m, tl_py_generated_module_functions) < 0 ||
      PyModule_AddFunctions(m, tl_py_generated_dlpack_functions) < 0 ||
      PyModule_AddFunctions(m, tl_py_storage_functions) < 0 ||
      PyModule_AddFunctions(m, tl_py_profiler_functions) < 0 ||
      PyModule_AddFunctions(m, tl_py_mp_functions) < 0 ||
      PyModule_AddFunctions(m, tl_py_cuda_runtime_functions) < 0 ||
      PyModule_AddFunctions(m, tl_py_generated_linalg_functions) < 0 ||
      PyModule_AddFunctions(m, tl_py_generated_fft_functions) < 0 ||
      PyModule_AddFunctions(m, tl_py_generated_reduce_functions) < 0 ||
      tl_py_shape_ops_init(m) < 0 || tl_py_index_init(m) < 0 ||
      tl_py_reduce_init(m) < 0 || tl_py_ufunc_init(m) < 0 || tl_py_grad_init(m) < 0 ||
      tl_py_optim_init(m) < 0 || tl_py_spelling_init(m) < 0 || tl_py_fastcall_init(m) < 0 ||
      tl_py_torch_function_init(m) < 0) {
    Py_DECREF(m);
    return NULL;
  }
  return m;
}
