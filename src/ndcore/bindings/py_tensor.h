/* py_tensor.h - the Python side of the tensor: object layout and the helpers
 * every py_*.c file shares.  Only py_*.c files include Python.h.
 *
 * A Tensor object embeds its tl_tensor view by value, so the C core works on
 * &obj->t directly and an op's output is allocated as a Python object first,
 * then filled by the core.                                                   */
#ifndef TL_PY_TENSOR_H
#define TL_PY_TENSOR_H

#define PY_SSIZE_T_CLEAN
#include <Python.h>

#include "gpu/tl_gpu.h"
#include "ndcore/dispatch/tl_op.h"
#include "ndcore/tensor/tl_error.h"

typedef struct {
  PyObject_HEAD
  tl_tensor t;
  PyObject *weakreflist;
  PyObject *dict; /* attributes set from Python (nn.Parameter and friends) */
  /* autograd (src/grad): a leaf has grad_fn NULL; requires_grad is also set
   * on every tensor that has a grad_fn, so one flag answers "record?". */
  PyObject *grad;
  PyObject *grad_fn;  /* the node that made this tensor (strong) */
  PyObject *grad_acc; /* a leaf's AccumulateGrad node (borrowed, cleared by it) */
  PyObject *hooks;    /* a leaf's list of (0, hook) from register_hook, (-1, hook) from
                       * register_post_accumulate_grad_hook */
  PyObject *base;     /* a view's root base: the tensor owning the memory (strong);
                       * NULL for a tensor that is no view (PyTorch's _base) */
  uint64_t base_seq;  /* the base's grad_fn when this view was current (node seq) */
  int output_nr;      /* which output of grad_fn */
  bool requires_grad;
  bool retains_grad;
  bool inference; /* made while inference_mode was on (is_inference) */
  uint8_t view_meta; /* how a view was made: TL_PY_VIEW_* (PyTorch's CreationMeta) */
  uint8_t grad_dtype; /* a leaf's: TL_PY_GRAD_DTYPE_SAME, _ANY, or _ANY + 1 + the dtype */
} tl_py_tensor;

/* The dtype gradients of a leaf are cast to (PyTorch's grad_dtype): its own
 * (the zero every tensor starts with), any (None: gradients keep theirs), or
 * a given one. */
enum { TL_PY_GRAD_DTYPE_SAME = 0, TL_PY_GRAD_DTYPE_ANY = 1 };

/* The dtype a gradient flowing into t is cast to, or -1 for none (a leaf
 * whose grad_dtype is None). */
static inline int tl_py_grad_dtype(const tl_py_tensor *t)
{
  if (t->grad_fn || t->grad_dtype == TL_PY_GRAD_DTYPE_SAME)
    return t->t.dtype;
  return t->grad_dtype == TL_PY_GRAD_DTYPE_ANY ? -1 : t->grad_dtype - TL_PY_GRAD_DTYPE_ANY - 1;
}

/* How a view was made, which decides whether an in-place write through it
 * may be recorded (PyTorch's rules): made with grad mode off, made in
 * inference mode, one of the outputs of split/chunk/unbind, or an output of
 * a custom Function that views an input. */
enum {
  TL_PY_VIEW_NO_GRAD = 1,
  TL_PY_VIEW_INFERENCE = 2,
  TL_PY_VIEW_MULTI = 4,
  TL_PY_VIEW_CUSTOM = 8, /* an output of a custom autograd.Function */
};

extern PyTypeObject *tl_py_tensor_type;

/* ---- autograd's entry into the call path ----
 * src/grad installs tl_py_record at import; the op paths here ask
 * tl_py_grad_wanted first, so a call that needs no gradient pays one flag
 * test per argument.  Grad mode is per thread, as in PyTorch. */
extern _Thread_local bool tl_py_grad_enabled;
/* inference_mode's flag is the core's tl_inference_mode (tl_tensor.h): a
 * tensor made while it is set is an inference tensor, and so is its storage
 * (src/grad sets it, as it does grad mode). */
typedef PyObject *(*tl_py_record_fn)(int formula, PyObject *impl, PyObject *const *args,
                                     size_t nargsf, PyObject *kwnames, int flags);
extern tl_py_record_fn tl_py_record;
/* The formulas of t[key] and t[key] = value, which the indexing slots record
 * (src/grad sets them with tl_py_record). */
extern int tl_py_formula_getitem, tl_py_formula_setitem;
/* Views (src/grad sets both at import): tl_py_view_mark makes `view`, an
 * op's result sharing `src`'s memory, a view of src's root base (how it was
 * made: TL_PY_VIEW_MULTI or 0; grad and inference mode are read here).
 * tl_py_view_stale says whether a view's base got a new history since the
 * view was current while the base requires grad: the view then requires
 * grad too (its history is rebuilt when it is recorded). */
extern void (*tl_py_view_mark)(PyObject *view, PyObject *src, int how);
extern bool (*tl_py_view_stale)(PyObject *view);
/* True when grad mode is on and a tensor argument (or a tensor inside a
 * list/tuple argument) requires grad. */
bool tl_py_grad_wanted(PyObject *const *args, Py_ssize_t n);

static inline int tl_py_is_tensor(PyObject *o) { return PyObject_TypeCheck(o, tl_py_tensor_type); }
static inline tl_tensor *tl_py_t(PyObject *o) { return &((tl_py_tensor *)o)->t; }

/* A new, empty Tensor object whose t the core fills (t.storage == NULL). */
tl_py_tensor *tl_py_tensor_alloc(void);
/* Wrap a view: the object takes over t's storage reference. */
PyObject *tl_py_tensor_from(tl_tensor *t);
/* Set the Python exception for the core's pending error and clear it;
 * returns NULL.  The error a core call leaves is owned by its caller until it
 * is raised here or dropped with tl_error_clear() where the failure is handled
 * (a fallback, a probe, an error raised in other words): tl_error_set keeps
 * only the first error, so one left pending would become the message of the
 * next, unrelated failure. */
PyObject *tl_py_raise(void);
/* Same, for int-returning functions: returns -1. */
int tl_py_raise_int(void);
/* The entries from Python (the registry ops' one entry, the generated method
 * binders, the operator slots, indexing) start with no core error pending, so
 * one that a call failed to drop cannot cross into the next call's message:
 * one load of a plain word and a branch (tl_error_maybe_pending).  A debug
 * build says on stderr that it dropped one, naming its message, since that is
 * a missed tl_error_clear().  Python code run between a core failure and its
 * raise (a finalizer calling an op) would clear the message too, so bindings
 * raise right after the failing call. */
void tl_py_error_stale(void);
static inline void tl_py_error_fresh(void)
{
  if (__builtin_expect(tl_error_maybe_pending(), 0))
    tl_py_error_stale();
}
/* The same entries return through this: an op that made another GPU the CUDA
 * runtime's current device gives the caller's back (tl_gpu.h's device
 * guards), so CuPy code after it sees the device it set; one thread-local
 * read when nothing was switched.  Wrapping a new tensor and raising a core
 * error do it too, for the bindings that are no such entry. */
static inline PyObject *tl_py_op_return(PyObject *result)
{
  tl_gpu_device_restore();
  return result;
}

/* dtypes (py_dtype.c) */
extern PyTypeObject *tl_py_dtype_type;
PyObject *tl_py_dtype_obj(tl_dtype d); /* borrowed */
/* Accept a torchlike dtype, a NumPy dtype or type, a name, or float/int/bool/complex. */
int tl_py_parse_dtype(PyObject *o, tl_dtype *out);
/* Whether o stands for a dtype where an overload takes one (x.to(float),
 * x.view(torchlike.int32)): a torchlike dtype, a Python or NumPy scalar type
 * or a NumPy dtype; never a string, which is a device there. */
bool tl_py_is_dtype_like(PyObject *o);
int tl_py_dtype_from_numpy(PyObject *descr, tl_dtype *out);
int tl_py_dtype_types_init(PyObject *module);

/* devices (py_device.c) */
int tl_py_parse_device(PyObject *o, tl_device *out);
PyObject *tl_py_device_obj(tl_device d); /* new reference */
int tl_py_device_init(PyObject *module);
/* the kernel table's test hooks (py_dispatch.c) */
int tl_py_dispatch_init(PyObject *module);
/* Where creation functions put tensors when no device= is given
 * (torchlike.set_default_device, `with torchlike.device(...)`). */
tl_device tl_py_default_device(void);

/* backends, cross-device copies, memory statistics (py_backend.c) */
extern PyObject *tl_py_oom_error; /* torchlike.OutOfMemoryError */
extern PyObject *tl_py_broadcast_error, *tl_py_dtype_error, *tl_py_cast_error, *tl_py_view_error,
    *tl_py_size_error;
int tl_py_backend_init(PyObject *module);
/* self on the host (self itself when it is there); Tensor.cpu() and the
 * rest of Tensor.to's family are bound from signatures.txt. */
PyObject *tl_py_tensor_cpu(PyObject *self);
/* t's first element as a Python number, read through its device's backend. */
PyObject *tl_py_tensor_first(const tl_tensor *t);

/* conversion (py_convert.c) */
/* Any Python object -> a tensor view in t.  Python scalars come back as 0-d
 * tensors with *weak set; dtype < 0 means "infer".  copy forces a copy. */
int tl_py_to_tensor(PyObject *o, int dtype, bool copy, tl_tensor *t, bool *weak);
/* tl_py_to_tensor(o, -1, false, ...) for a value written into a tensor of
 * dtype target (t[i] = [0.1, 0.2]): Python floats stay float64
 * (complex128), not the default float, so that the store rounds once, into
 * target; Python ints in a list that target cannot hold raise, as one
 * alone does. */
int tl_py_value_to_tensor(PyObject *o, tl_dtype target, tl_tensor *t, bool *weak);
/* A Python number tl_py_to_tensor converted (weak) that is about to be written
 * into dtype d: PyTorch's overflow check (tl_scalar_check_store); TL_OK for
 * tensors and arrays, which are cast. */
tl_status tl_py_check_weak_store(tl_tensor *src, bool weak, tl_dtype d);
/* A tensor viewing the CUDA memory an object describes with
 * __cuda_array_interface__ (zero-copy; py_dlpack.c): 1 when it has one, 0
 * when it has none, -1 with an exception. */
int tl_py_from_cuda_array_interface(PyObject *o, tl_tensor *t);
/* A tensor viewing a NumPy array's memory (zero-copy). */
int tl_py_from_numpy(PyObject *array, tl_tensor *t);
/* An ndarray viewing the tensor's memory (zero-copy, keeps `owner` alive). */
PyObject *tl_py_to_numpy(PyObject *owner, const tl_tensor *t);
/* A Python scalar (bool/int/float/complex) -> tl_scalar; 0 if o is not one. */
int tl_py_scalar(PyObject *o, tl_scalar *s);
/* A NumPy bool/integer/float/complex scalar (np.float64(2), np.int32(1)) ->
 * tl_scalar of the Python number it holds; 0 if o is not one, -1 with an
 * exception.  Torch-style operands take them as PyTorch does: as Python
 * numbers (weak), where tl_py_scalar keeps them arrays (NumPy's rule). */
int tl_py_numpy_scalar(PyObject *o, tl_scalar *s);
PyObject *tl_py_scalar_obj(tl_scalar s);
/* The dtype a Python scalar of kind k is held in (int64, or uint64 past its range). */
tl_dtype tl_py_scalar_dtype(tl_kind k);

/* arguments (py_args.c) */
/* Bind positional and keyword arguments to the parameters `names`
 * (NULL-terminated): values[i] is names[i]'s argument, NULL when absent.  At
 * most npos arguments may come positionally (-1: any); the first nrequired
 * must be given.  A bad call raises Python's usual TypeError. */
int tl_py_bind_args(const char *func, PyObject *const *args, Py_ssize_t nargs, PyObject *kwnames,
                    const char *const *names, int npos, int nrequired, PyObject **values);

/* A vectorcall's arguments as Python-level ones, for handing the call on to
 * Python code (__torch_function__, the checkpoint policy): *pos the tuple of
 * positionals, *kw the dict of keywords (empty when none).  -1 on failure,
 * with nothing to release. */
int tl_py_args_as_call(PyObject *const *args, size_t nargsf, PyObject *kwnames, PyObject **pos,
                       PyObject **kw);

/* The parameter a NumPy-spelled keyword stands for ("axis" -> "dim"), or NULL. */
const char *tl_py_kw_alias(const char *key);

/* One argument each.  Absent (NULL) or None leaves *v as it is; a wrong type
 * is a TypeError naming func and the argument.  tl_py_tensor_arg returns
 * NULL with an error when the tensor is missing or not a Tensor. */
int tl_py_int_arg(const char *func, const char *name, PyObject *o, int64_t *v);
int tl_py_bool_arg(PyObject *o, bool *v);
const tl_tensor *tl_py_tensor_arg(const char *func, const char *name, PyObject *o);

/* torchlike.return_types (a new reference), shared by every op returning
 * named tuples (max/min, sort, topk ...). */
PyObject *tl_py_return_types(PyObject *module);
/* A (values, indices) named tuple type "torchlike.return_types.<name>" (the
 * qualname must be a static string), added to that namespace. */
PyTypeObject *tl_py_pair_type(PyObject *module, const char *qualname);
/* An instance of it; steals both tensors (either may be NULL after a failure). */
PyObject *tl_py_pair(PyTypeObject *type, PyObject *values, PyObject *indices);

/* the type (py_tensor.c) */
int tl_py_tensor_types_init(PyObject *module);
/* Add methods from a table to Tensor (for files other than py_tensor.c). */
int tl_py_tensor_add_methods(PyMethodDef *methods);
PyObject *tl_py_size_new(int ndim, const int64_t *shape);

/* ops (py_ops.c): op functions, Tensor methods, operators and comparisons */
int tl_py_ops_init(PyObject *module);
extern PyType_Slot tl_py_number_slots[];
/* Matrix products (ops.def MATMUL) and torchlike.linalg functions (py_linalg.c):
 * bound by generated code (generated/bindings.h). */
/* tensordot's dims (NULL: 2) as the contracted dims of a and b, as given
 * (not wrapped); n is their count. */
int tl_py_tensordot_dims(PyObject *dims, const tl_tensor *a, const tl_tensor *b, int *n,
                         int64_t *da, int64_t *db);
/* The sorting and searching family's named tuples in torchlike.return_types
 * (py_sort.c). */
int tl_py_sort_init(PyObject *module);
/* torchlike.return_types.max/min (py_reduce.c; the namespace is shared with
 * py_sort.c, whichever init runs first makes it). */
int tl_py_reduce_init(PyObject *module);
/* Elementwise op on Python operands (tensors or scalars); out may be NULL. */
PyObject *tl_py_map(tl_op op, int nin, PyObject *const *operands, PyObject *out,
                    const tl_op_params *p);
/* Parse dim=None|int|sequence (or a 1-d int tensor) into a reduction bitmask
 * over ndim dims (py_sig.c). */
int tl_py_parse_dims(PyObject *dim, int ndim, uint64_t *mask);

/* views and basic indexing (py_views.c) */
extern PyMethodDef tl_py_view_methods[];
extern PyMethodDef tl_py_view_functions[];
extern PyType_Slot tl_py_mapping_slots[];
extern PyObject *(*tl_py_advanced_getitem)(PyObject *self, PyObject *index);
extern int (*tl_py_advanced_setitem)(PyObject *self, PyObject *index, PyObject *value);

/* advanced indexing and the indexing ops (py_index.c) */
int tl_py_index_init(PyObject *module);
bool tl_py_index_has_inplace(tl_op op);
PyObject *tl_py_index_where(PyObject *condition);

/* shape ops: cat, split, flip, pad ... as Tensor methods and functions (py_shape_ops.c) */
int tl_py_shape_ops_init(PyObject *module);

/* creation and random (py_create.c) */
extern PyMethodDef tl_py_create_functions[];
/* Generator, the random functions and Tensor samplers (py_random.c) */
int tl_py_random_init(PyObject *module);
/* torchlike._C's CUDA runtime functions (py_cuda_runtime.c): streams, events, devices. */
extern PyMethodDef tl_py_cuda_runtime_functions[];

/* Tensor.__array_ufunc__'s fast path (py_ufunc.c) */
int tl_py_ufunc_init(PyObject *module);
/* Tensors and Python scalars only: what a core op takes as operands */
int tl_py_plain_operands(PyObject *const *inputs, Py_ssize_t n);
/* The first off-CPU tensor (or instance of `also`) in o, lists and tuples
 * searched; *found NULL if none; -1 after an error */
int tl_py_find_offhost(PyObject *o, PyTypeObject *also, PyObject **found);

/* dlpack (py_dlpack.c) and the buffer protocol (py_buffer.c) */
extern PyMethodDef tl_py_dlpack_methods[];
extern PyType_Slot tl_py_buffer_slots[];

/* storage accessors for pickling and save/load (py_storage.c) */
extern PyMethodDef tl_py_storage_functions[];
/* _C._Spelled: Tensor methods that take NumPy's meaning when spelled the NumPy
 * way (py_spelling.c) */
int tl_py_spelling_init(PyObject *m);
/* _C._DirectCall: namespace functions that call their implementation directly
 * when the call needs none of the Python wrapper's work (py_fastcall.c) */
int tl_py_fastcall_init(PyObject *m);
/* shared-memory handles for torchlike.multiprocessing (py_mp.c) */
extern PyMethodDef tl_py_mp_functions[];
/* the emulated fake device's FFT executor, for tests (py_fft.c) */
void tl_py_fft_emulate_device(void);


#endif
