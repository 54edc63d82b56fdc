/* py_random.c - torchlike.Generator and the random functions: manual_seed,
 * seed, initial_seed, get/set_rng_state, rand, randn, randint (and _like),
 * randperm, normal, bernoulli, multinomial, poisson, and the in-place Tensor methods
 * uniform_, normal_, random_, bernoulli_, exponential_, cauchy_, log_normal_,
 * geometric_.
 *
 * Generator is a C type holding a tl_generator (seed, Philox offset); its
 * state tensor is 16 uint8 bytes (seed, offset; little-endian).  The default
 * generator is one such object, torchlike.default_generator.  Every function
 * takes generator=.  Arguments are bound by code generated from
 * signatures.txt; the tl_py_impl_<name> functions here run the draws, on the
 * result's device through the random kernel table (a device without the
 * kernel refuses before allocating).                                      */
#include "ndcore/bindings/py_create.h"
#include "gpu/runtime/tl_gpu_runtime.h"
#include "gpu/tl_gpu.h"
#include "ndcore/kernels/tl_random.h"

/* PyTorch's default seed, so initial_seed() reads the same number. */
#define TL_DEFAULT_SEED 67280421310721ull

typedef struct {
  PyObject_HEAD
  tl_generator g;
  tl_device device;
} tl_py_generator;

static PyTypeObject *generator_type;
static PyObject *default_generator;

/* ---- arguments --------------------------------------------------------------- */

static int parse_seed(PyObject *o, uint64_t *seed)
{
  if (PyBool_Check(o) || !PyIndex_Check(o)) {
    PyErr_Format(PyExc_TypeError, "manual_seed expected an int seed, got %s",
                 Py_TYPE(o)->tp_name);
    return -1;
  }
  PyObject *i = PyNumber_Index(o);
  if (!i)
    return -1;
  int overflow;
  long long v = PyLong_AsLongLongAndOverflow(i, &overflow);
  int r = 0;
  if (overflow > 0) { /* seeds in [2^63, 2^64) are taken as they are */
    unsigned long long u = PyLong_AsUnsignedLongLong(i);
    if (u == (unsigned long long)-1 && PyErr_Occurred())
      r = -1;
    *seed = u;
  } else if (overflow < 0 || (v == -1 && PyErr_Occurred())) {
    r = -1;
  } else {
    *seed = (uint64_t)v; /* negative seeds wrap, two's complement */
  }
  if (r < 0 && (overflow || PyErr_ExceptionMatches(PyExc_OverflowError))) {
    PyErr_Clear();
    PyErr_Format(PyExc_ValueError, "manual_seed: seed %R is out of range [-2**63, 2**64)", o);
  }
  Py_DECREF(i);
  return r;
}

/* The default generator of each CUDA device (one per device this process
 * sees; an empty tuple without a GPU), made on first use, not at import:
 * counting the devices starts the CUDA driver, and a process forked after
 * that cannot use CUDA in the child (why the backend itself is set up on
 * first use, backend.c).  Called with the GIL held; NULL with the error
 * set (torchlike's and Python's) when a generator cannot be made. */
static PyObject *cuda_generators;

/* Seeds given before the CUDA generators exist, kept as PyTorch queues them
 * and applied when the generators are made, so that seeding (which every
 * script does first) does not start the driver: `all` from
 * torchlike.manual_seed/seed and cuda.manual_seed_all, `one` from
 * cuda.manual_seed, for the device current when it was called. */
static struct {
  bool all, one;
  uint64_t all_seed, one_seed;
  int one_device;
} pending;

/* Seed CUDA device `device`'s default generator (-1: every device's) now if
 * the generators exist, else when they are made. */
static void cuda_seed(uint64_t s, int device)
{
  if (cuda_generators) {
    for (Py_ssize_t i = 0; i < PyTuple_GET_SIZE(cuda_generators); i++)
      if (device < 0 || i == device)
        tl_generator_init(&((tl_py_generator *)PyTuple_GET_ITEM(cuda_generators, i))->g, s);
  } else if (device < 0) { /* replaces every earlier seed */
    pending.all = true, pending.all_seed = s, pending.one = false;
  } else {
    pending.one = true, pending.one_seed = s, pending.one_device = device;
  }
}

static PyObject *cuda_generators_get(void)
{
  if (cuda_generators)
    return cuda_generators;
  int ndev = tl_gpu_device_count();
  PyObject *t = PyTuple_New(ndev);
  for (int i = 0; t && i < ndev; i++) {
    PyObject *g = PyObject_CallFunction((PyObject *)generator_type, "s", "cuda");
    if (!g) {
      Py_CLEAR(t);
      break;
    }
    ((tl_py_generator *)g)->device.index = i;
    PyTuple_SET_ITEM(t, i, g);
  }
  if (!t) {
    tl_error_set(TL_ERR_MEMORY, "could not make the CUDA devices' default generators");
    return NULL;
  }
  if (cuda_generators) { /* made meanwhile (a call above let another thread run) */
    Py_DECREF(t);
    return cuda_generators;
  }
  cuda_generators = t;
  if (pending.all) /* in the order given: every device's, then one device's */
    cuda_seed(pending.all_seed, -1);
  if (pending.one)
    cuda_seed(pending.one_seed, pending.one_device);
  pending.all = pending.one = false;
  return cuda_generators;
}

int tl_py_arg_generator(const char *func, const char *name, PyObject *o, tl_generator **g)
{
  if (!o || o == Py_None) { /* the default of the device drawn on: tl_py_generator_for */
    *g = NULL;
    return 0;
  }
  if (!PyObject_TypeCheck(o, generator_type)) {
    PyErr_Format(PyExc_TypeError, "%s(): argument '%s' must be torchlike.Generator, not %s",
                 func, name, Py_TYPE(o)->tp_name);
    return -1;
  }
  *g = &((tl_py_generator *)o)->g;
  return 0;
}

tl_generator *tl_py_generator_for(tl_generator *g, tl_device device)
{
  if (!g) {
    PyObject *o = default_generator;
    if (device.type == TL_DEVICE_CUDA) {
      PyObject *all = cuda_generators_get();
      if (!all)
        return NULL;
      if (device.index >= PyTuple_GET_SIZE(all)) {
        tl_error_set(TL_ERR_RUNTIME, "no default generator for cuda:%d: this process sees %d "
                     "CUDA devices", device.index, (int)PyTuple_GET_SIZE(all));
        return NULL;
      }
      o = PyTuple_GET_ITEM(all, device.index);
    }
    return &((tl_py_generator *)o)->g;
  }
  /* Every tl_generator this layer hands out lives in a Generator object. */
  const tl_py_generator *owner =
      (const tl_py_generator *)((const char *)g - offsetof(tl_py_generator, g));
  bool cuda = device.type == TL_DEVICE_CUDA, gcuda = owner->device.type == TL_DEVICE_CUDA;
  if (cuda != gcuda) { /* PyTorch's wording */
    tl_error_set(TL_ERR_RUNTIME, "Expected a '%s' device type for generator but found '%s'",
                 cuda ? "cuda" : "cpu", gcuda ? "cuda" : "cpu");
    return NULL;
  }
  return g;
}

/* tl_random_fill with g resolved for t's device. */
/* PyTorch's warning for integers drawn into a float dtype past the ones it
 * holds exactly, [-2^digits, 2^digits]: the bound's name ("from", "to - 1"). */
static int warn_float_bound(const char *bound, int64_t v, tl_dtype dtype)
{
  int64_t hi = tl_random_dtype_max(dtype);
  int digits = __builtin_ctzll((unsigned long long)hi);
  if (v >= -hi && v <= hi)
    return 0;
  return PyErr_WarnFormat(PyExc_UserWarning, 1, "%s is out of bounds [-(2^%d), 2^%d]. Due to "
                          "precision limitations %s can support discrete uniform distribution "
                          "only within this range. This warning will become an error in version "
                          "1.7 release, please fix the code in advance", bound, digits, digits,
                          tl_dtype_cpp_name(dtype));
}

static tl_status fill_on(tl_generator *g, tl_tensor *t, const tl_random_dist *d)
{
  if (d->kind == TL_RANDOM_INTEGER && tl_dtype_is_float(t->dtype) && d->range != 0 &&
      (warn_float_bound("from", d->low, t->dtype) < 0 ||
       warn_float_bound("to - 1", (int64_t)((uint64_t)d->low + (d->range - 1)), t->dtype) < 0))
    return tl_error_set(TL_ERR_RAISED, "a warning raised"); /* -W error: it is raised */
  g = tl_py_generator_for(g, tl_tensor_device(t));
  return g ? tl_random_fill(g, t, d) : tl_error_status();
}

/* A real number argument as a double (a tensor's one element is read). */
static int real_arg(const char *func, const char *what, tl_scalar s, double *v)
{
  if (tl_py_real_scalar(func, what, &s) < 0)
    return -1;
  *v = s.kind == TL_KIND_FLOAT ? s.v.f : (double)s.v.i;
  return 0;
}

/* real_arg of an argument given as an object (absent: fallback). */
static int real_obj(const char *func, const char *what, PyObject *o, double fallback, double *v)
{
  tl_scalar s;
  if (!o || o == Py_None) {
    *v = fallback;
    return 0;
  }
  return tl_py_number_arg(func, what, o, &s) < 0 ? -1 : real_arg(func, what, s, v);
}

/* A float64 copy of `src` broadcast to `like`'s shape, for per-element
 * parameters; for a draw on the meta device, which reads none, a meta
 * tensor of that shape (its data pointer NULL). */
static int param_buffer(const tl_tensor *src, const tl_tensor *like, tl_tensor *buf)
{
  bool meta = tl_tensor_device(like).type == TL_DEVICE_META;
  if (tl_tensor_empty(buf, TL_DTYPE_F64, like->ndim, like->shape,
                      meta ? tl_tensor_device(like) : tl_device_cpu()) != TL_OK)
    return tl_py_raise_int();
  if (!meta && tl_tensor_copy(buf, src) != TL_OK) {
    tl_tensor_release(buf);
    return tl_py_raise_int();
  }
  return 0;
}

/* ---- Generator --------------------------------------------------------------------- */

static PyObject *generator_new(PyTypeObject *type, PyObject *args, PyObject *kwds)
{
  static char *kwlist[] = {"device", NULL};
  PyObject *device = NULL;
  tl_device d = tl_device_cpu();
  if (!PyArg_ParseTupleAndKeywords(args, kwds, "|O:Generator", kwlist, &device))
    return NULL;
  if (device && device != Py_None && tl_py_parse_device(device, &d) < 0)
    return NULL;
  if (d.type == TL_DEVICE_CUDA && d.index >= tl_gpu_device_count())
    return PyErr_Format(PyExc_RuntimeError, "Generator(device='cuda:%d'): %s", d.index,
                        tl_gpu_device_count() ? "no such CUDA device"
                                              : "no CUDA support is available in this build or "
                                                "on this machine");
  if (d.type != TL_DEVICE_CPU && d.type != TL_DEVICE_CUDA)
    return PyErr_Format(PyExc_RuntimeError, "Generator(): devices of this type have no "
                        "generator");
  tl_py_generator *self = (tl_py_generator *)type->tp_alloc(type, 0);
  if (!self)
    return NULL;
  tl_generator_init(&self->g, TL_DEFAULT_SEED);
  self->device = d;
  return (PyObject *)self;
}

static void generator_dealloc(PyObject *self)
{
  PyTypeObject *type = Py_TYPE(self);
  type->tp_free(self);
  Py_DECREF(type);
}

static PyObject *generator_manual_seed(PyObject *self, PyObject *seed)
{
  uint64_t s;
  if (parse_seed(seed, &s) < 0)
    return NULL;
  tl_generator_init(&((tl_py_generator *)self)->g, s);
  return Py_NewRef(self);
}

static PyObject *generator_seed(PyObject *self, PyObject *unused)
{
  (void)unused;
  uint64_t s = tl_random_nondeterministic_seed();
  tl_generator_init(&((tl_py_generator *)self)->g, s);
  return PyLong_FromUnsignedLongLong(s);
}

static PyObject *generator_initial_seed(PyObject *self, PyObject *unused)
{
  (void)unused;
  return PyLong_FromUnsignedLongLong(tl_generator_initial_seed(&((tl_py_generator *)self)->g));
}

static PyObject *generator_get_state(PyObject *self, PyObject *unused)
{
  (void)unused;
  tl_tensor t;
  int64_t n = TL_GENERATOR_STATE_SIZE;
  if (tl_tensor_empty(&t, TL_DTYPE_U8, 1, &n, tl_device_cpu()) != TL_OK)
    return tl_py_raise();
  tl_generator_get_state(&((tl_py_generator *)self)->g, tl_tensor_data(&t));
  return tl_py_tensor_from(&t);
}

static PyObject *generator_set_state(PyObject *self, PyObject *state)
{
  if (!tl_py_is_tensor(state))
    return PyErr_Format(PyExc_TypeError, "set_state(): expected a torchlike.ByteTensor (uint8 "
                        "Tensor), got %s", Py_TYPE(state)->tp_name);
  const tl_tensor *s = tl_py_t(state);
  if (s->dtype != TL_DTYPE_U8)
    return PyErr_Format(PyExc_TypeError, "set_state(): expected a uint8 state tensor, got %s",
                        tl_dtype_names[s->dtype]);
  if (tl_tensor_numel(s) != TL_GENERATOR_STATE_SIZE)
    return PyErr_Format(PyExc_RuntimeError, "set_state(): expected a state of %d bytes (from "
                        "get_state()), got %lld", TL_GENERATOR_STATE_SIZE,
                        (long long)tl_tensor_numel(s));
  if (tl_tensor_device(s).type != TL_DEVICE_CPU) { /* the bytes are read by the host */
    char device[32];
    tl_device_str(device, sizeof device, tl_tensor_device(s));
    return PyErr_Format(PyExc_RuntimeError, "set_state(): expected a CPU state tensor, got "
                        "one on %s", device);
  }
  tl_tensor c;
  if (tl_tensor_to_dtype(&c, s, TL_DTYPE_U8) != TL_OK) /* contiguous copy */
    return tl_py_raise();
  tl_generator_set_state(&((tl_py_generator *)self)->g, tl_tensor_data(&c));
  tl_tensor_release(&c);
  return Py_NewRef(self);
}

/* Pickling and copy: Generator(its device), then the 16 state bytes restored
 * (bytes rather than a tensor, so pickling needs nothing else). */
static PyObject *generator_reduce(PyObject *self, PyObject *unused)
{
  (void)unused;
  uint8_t state[TL_GENERATOR_STATE_SIZE];
  char device[32];
  tl_generator_get_state(&((tl_py_generator *)self)->g, state);
  tl_device_str(device, sizeof device, ((tl_py_generator *)self)->device);
  return Py_BuildValue("O(s)y#", (PyObject *)Py_TYPE(self), device, (const char *)state,
                       (Py_ssize_t)TL_GENERATOR_STATE_SIZE);
}

static PyObject *generator_setstate(PyObject *self, PyObject *state)
{
  if (!PyBytes_Check(state) || PyBytes_GET_SIZE(state) != TL_GENERATOR_STATE_SIZE)
    return PyErr_Format(PyExc_TypeError, "Generator.__setstate__ expects the %d bytes "
                        "__reduce__ gives", TL_GENERATOR_STATE_SIZE);
  tl_generator_set_state(&((tl_py_generator *)self)->g,
                         (const uint8_t *)PyBytes_AS_STRING(state));
  Py_RETURN_NONE;
}

static PyObject *generator_device(PyObject *self, void *closure)
{
  (void)closure;
  return tl_py_device_obj(((tl_py_generator *)self)->device);
}

static PyMethodDef generator_methods[] = {
    {"manual_seed", generator_manual_seed, METH_O, "Seed the generator; returns it."},
    {"seed", generator_seed, METH_NOARGS, "Seed from the OS's entropy; returns the seed."},
    {"initial_seed", generator_initial_seed, METH_NOARGS, "The seed last set."},
    {"get_state", generator_get_state, METH_NOARGS, "The state as a uint8 tensor."},
    {"set_state", generator_set_state, METH_O, "Restore a state from get_state()."},
    {"__reduce__", generator_reduce, METH_NOARGS, NULL},
    {"__setstate__", generator_setstate, METH_O, NULL},
    {NULL, NULL, 0, NULL},
};

static PyGetSetDef generator_getset[] = {
    {"device", generator_device, NULL, NULL, NULL},
    {NULL, NULL, NULL, NULL, NULL},
};

static PyType_Slot generator_slots[] = {
    {Py_tp_new, generator_new},
    {Py_tp_dealloc, generator_dealloc},
    {Py_tp_methods, generator_methods},
    {Py_tp_getset, generator_getset},
    {Py_tp_doc, "Generator(device='cpu'): a Philox4x32-10 random number generator."},
    {0, NULL},
};

static PyType_Spec generator_spec = {
    .name = "torchlike._C.Generator",
    .basicsize = sizeof(tl_py_generator),
    .flags = Py_TPFLAGS_DEFAULT,
    .slots = generator_slots,
};

/* ---- the default generator ------------------------------------------------------------- */

/* As torch.manual_seed and torch.seed: the CPU's default generator and every
 * CUDA device's (when they are made, if they are not yet). */
static PyObject *py_manual_seed(PyObject *self, PyObject *seed)
{
  (void)self;
  uint64_t s;
  if (parse_seed(seed, &s) < 0)
    return NULL;
  tl_generator_init(&((tl_py_generator *)default_generator)->g, s);
  cuda_seed(s, -1);
  return Py_NewRef(default_generator);
}
static PyObject *py_seed(PyObject *self, PyObject *unused)
{
  (void)self, (void)unused;
  uint64_t s = tl_random_nondeterministic_seed();
  tl_generator_init(&((tl_py_generator *)default_generator)->g, s);
  cuda_seed(s, -1);
  return PyLong_FromUnsignedLongLong(s);
}

/* torchlike.cuda.manual_seed(_all): (seed, all) */
static PyObject *py_cuda_manual_seed(PyObject *self, PyObject *args)
{
  (void)self;
  PyObject *seed;
  int all;
  uint64_t s;
  if (!PyArg_ParseTuple(args, "Op", &seed, &all) || parse_seed(seed, &s) < 0)
    return NULL;
  cuda_seed(s, all ? -1 : tl_gpu_current_device());
  Py_RETURN_NONE;
}

/* A test hook: the seeds waiting for the CUDA generators, as
 * (every device's or None, (device, seed) or None). */
static PyObject *py_cuda_pending_seeds(PyObject *self, PyObject *unused)
{
  (void)self, (void)unused;
  PyObject *all = pending.all ? PyLong_FromUnsignedLongLong(pending.all_seed) : Py_NewRef(Py_None);
  PyObject *one = pending.one ? Py_BuildValue("(iK)", pending.one_device,
                                              (unsigned long long)pending.one_seed)
                              : Py_NewRef(Py_None);
  if (!all || !one) {
    Py_XDECREF(all);
    Py_XDECREF(one);
    return NULL;
  }
  return Py_BuildValue("(NN)", all, one);
}
static PyObject *py_initial_seed(PyObject *self, PyObject *unused)
{
  (void)self;
  return generator_initial_seed(default_generator, unused);
}
static PyObject *py_get_rng_state(PyObject *self, PyObject *unused)
{
  (void)self;
  return generator_get_state(default_generator, unused);
}
static PyObject *py_set_rng_state(PyObject *self, PyObject *state)
{
  (void)self;
  PyObject *r = generator_set_state(default_generator, state);
  Py_XDECREF(r);
  return r ? Py_NewRef(Py_None) : NULL;
}

/* ---- factories ---------------------------------------------------------------------------- */

/* Draw d (op's kernel) into a new tensor made for `func`, or straight into
 * out= when its shape matches. */
static PyObject *draw_new(const char *func, tl_generator *g, const tl_random_dist *d, tl_op op,
                          tl_dtype dtype, int ndim, const int64_t *shape,
                          const tl_py_factory_opts *o)
{
  tl_tensor t;
  if (o->out) {
    tl_tensor *out = tl_py_t(o->out);
    if (out->ndim == ndim && !memcmp(out->shape, shape, sizeof(int64_t) * (size_t)ndim))
      return fill_on(g, out, d) == TL_OK ? Py_NewRef(o->out) : tl_py_raise();
  }
  if (tl_py_factory_new(func, op, dtype, ndim, shape, o, false, &t) < 0)
    return NULL;
  if (fill_on(g, &t, d) != TL_OK) {
    tl_tensor_release(&t);
    return tl_py_raise();
  }
  return tl_py_factory_finish(&t, o);
}

/* rand/randn(*size, generator=None, dtype=None, ...): the standard uniform or
 * normal distribution, in dtype= or the default float dtype. */
static PyObject *draw_standard(const char *func, tl_generator *g, tl_random_kind kind, tl_op op,
                               const tl_py_ints *size, const tl_py_factory_opts *o)
{
  tl_random_dist d = {.kind = kind, .a = 0.0, .b = 1.0};
  tl_dtype dtype;
  if (tl_py_factory_dtype(func, o, tl_dtype_default_float(), &dtype) < 0)
    return NULL;
  return draw_new(func, g, &d, op, dtype, size->n, size->v, o);
}

PyObject *tl_py_impl_rand(const char *name, const tl_py_args_rand *a)
{
  tl_py_factory_opts o = TL_PY_FACTORY_OPTS(a);
  return draw_standard(name, a->generator, TL_RANDOM_UNIFORM, TL_OP_UNIFORM, &a->size, &o);
}

PyObject *tl_py_impl_randn(const char *name, const tl_py_args_randn *a)
{
  tl_py_factory_opts o = TL_PY_FACTORY_OPTS(a);
  return draw_standard(name, a->generator, TL_RANDOM_NORMAL, TL_OP_NORMAL, &a->size, &o);
}

/* The integer distribution on [low, high). */
static int integer_dist(int64_t low, int64_t high, tl_random_dist *d)
{
  if (low >= high) {
    PyErr_Format(PyExc_RuntimeError, "random_ expects 'from' to be less than 'to', but got "
                 "from=%lld >= to=%lld", (long long)low, (long long)high);
    return -1;
  }
  *d = (tl_random_dist){.kind = TL_RANDOM_INTEGER, .low = low,
                        .range = (uint64_t)high - (uint64_t)low};
  return 0;
}

/* randint(low=0, high, size, *, generator=None, dtype=int64, ...) */
PyObject *tl_py_impl_randint(const char *name, const tl_py_args_randint *a)
{
  tl_py_factory_opts o = TL_PY_FACTORY_OPTS(a);
  PyObject *high = a->high, *size = a->size;
  int64_t lo = a->low, hi;
  tl_py_ints shape;
  tl_dtype dtype;
  tl_random_dist d;
  /* randint(high, size): two positionals (or one and high=) are high and size */
  if ((a->nargs == 2 && !size) || (a->nargs == 1 && !high)) {
    size = a->nargs == 2 ? high : size;
    high = NULL;
    hi = lo;
    lo = 0;
  } else if (tl_py_arg_int(name, "high", high, true, &hi, NULL) < 0) {
    return NULL;
  }
  if (!size)
    return PyErr_Format(PyExc_TypeError, "randint() missing required argument 'size'");
  if (tl_py_arg_ints(name, "size", size, &shape) < 0 ||
      tl_py_factory_dtype(name, &o, TL_DTYPE_I64, &dtype) < 0 || integer_dist(lo, hi, &d) < 0)
    return NULL;
  return draw_new(name, a->generator, &d, TL_OP_RANDOM_INTEGER, dtype, shape.n, shape.v, &o);
}

/* rand_like / randn_like / randint_like(input, [low,] high, *, dtype=None,
 * generator=None): the input's shape, dtype and device unless told otherwise. */
static PyObject *draw_like(const char *func, tl_generator *g, const tl_random_dist *d, tl_op op,
                           PyObject *input, tl_py_factory_opts *o)
{
  const tl_tensor *in = tl_py_t(input);
  if (!o->device_given)
    o->device = tl_tensor_device(in);
  o->like = in;
  return draw_new(func, g, d, op, o->dtype >= 0 ? (tl_dtype)o->dtype : in->dtype, in->ndim,
                  in->shape, o);
}

PyObject *tl_py_impl_rand_like(const char *name, const tl_py_args_rand_like *a)
{
  tl_py_factory_opts o = TL_PY_LIKE_OPTS(a);
  tl_random_dist d = {.kind = TL_RANDOM_UNIFORM, .a = 0.0, .b = 1.0};
  return draw_like(name, a->generator, &d, TL_OP_UNIFORM, a->input, &o);
}

PyObject *tl_py_impl_randn_like(const char *name, const tl_py_args_randn_like *a)
{
  tl_py_factory_opts o = TL_PY_LIKE_OPTS(a);
  tl_random_dist d = {.kind = TL_RANDOM_NORMAL, .a = 0.0, .b = 1.0};
  return draw_like(name, a->generator, &d, TL_OP_NORMAL, a->input, &o);
}

PyObject *tl_py_impl_randint_like(const char *name, const tl_py_args_randint_like *a)
{
  tl_py_factory_opts o = TL_PY_LIKE_OPTS(a);
  int64_t lo = a->low, hi = a->high;
  tl_random_dist d;
  if (!a->has_high && a->nargs == 2) { /* randint_like(input, high) */
    hi = lo;
    lo = 0;
  } else if (!a->has_high) {
    return PyErr_Format(PyExc_TypeError, "randint_like() missing required argument 'high'");
  }
  if (integer_dist(lo, hi, &d) < 0)
    return NULL;
  return draw_like(name, a->generator, &d, TL_OP_RANDOM_INTEGER, a->input, &o);
}

/* randperm(n, *, generator=None, dtype=int64, ...) */
PyObject *tl_py_impl_randperm(const char *name, const tl_py_args_randperm *a)
{
  tl_py_factory_opts o = TL_PY_FACTORY_OPTS(a);
  int64_t n = a->n;
  tl_dtype dtype;
  tl_tensor t;
  if (tl_py_factory_dtype(name, &o, TL_DTYPE_I64, &dtype) < 0)
    return NULL;
  /* a negative n: the factory's refusal, PyTorch's negative-dimension words */
  if (tl_py_factory_new(name, TL_OP_RANDPERM, dtype, 1, &n, &o, false, &t) < 0)
    return NULL;
  tl_generator *g = tl_py_generator_for(a->generator, tl_tensor_device(&t));
  if (!g || tl_random_permutation(g, &t) != TL_OK) {
    tl_tensor_release(&t);
    return tl_py_raise();
  }
  return tl_py_factory_finish(&t, &o);
}

/* normal of a complex mean: mean + std z, z drawn as normal_ draws a complex
 * tensor (each part of variance 1/2, as PyTorch's), in dtype over shape (the
 * broadcast of mean and std); no gradient, as in PyTorch. */
static PyObject *complex_normal(const char *name, tl_generator *g, PyObject *mean, PyObject *std,
                                tl_dtype dtype, int ndim, const int64_t *shape,
                                tl_py_factory_opts *o)
{
  PyObject *inputs[2] = {mean, std ? std : Py_None}, *out = o->out, *r = NULL, *z, *scaled;
  if (tl_py_grad_wanted(inputs, 2))
    return PyErr_Format(PyExc_NotImplementedError, "normal does not support automatic "
                        "differentiation for outputs with complex dtype.");
  tl_random_dist d = {.kind = TL_RANDOM_NORMAL, .a = 0.0, .b = 1.0};
  o->out = NULL; /* the sum is copied into it */
  z = draw_new(name, g, &d, TL_OP_NORMAL, dtype, ndim, shape, o);
  o->out = out;
  scaled = z && std ? PyNumber_Multiply(z, std) : Py_XNewRef(z);
  if (scaled)
    r = PyNumber_Add(scaled, mean);
  Py_XDECREF(scaled);
  if (r && tl_py_t(r)->dtype != dtype) /* a float64 std: the mean's dtype still */
    Py_SETREF(r, PyObject_CallMethod(r, "to", "O", tl_py_dtype_obj(dtype)));
  Py_XDECREF(z);
  if (r && out) {
    PyObject *copied = PyObject_CallMethod(out, "copy_", "O", r);
    Py_SETREF(r, copied ? Py_NewRef(out) : NULL);
    Py_XDECREF(copied);
  }
  return r;
}

/* normal(mean, std=1.0, size=None, *, generator=None, out=None, dtype=None):
 * tensor means and stds broadcast against each other; with two numbers the
 * size is required. */
PyObject *tl_py_impl_normal(const char *name, const tl_py_args_normal *a)
{
  tl_py_factory_opts o = TL_PY_FACTORY_OPTS(a);
  PyObject *mean = a->mean, *std = a->std == Py_None ? NULL : a->std, *result = NULL;
  tl_tensor pa = {0}, pb = {0}, t = {0};
  tl_random_dist d = {.kind = TL_RANDOM_NORMAL, .a = 0.0, .b = 1.0};
  bool tmean = tl_py_is_tensor(mean), tstd = std && tl_py_is_tensor(std);
  if (!tmean && !tstd) {
    tl_dtype dtype;
    if (!a->size.given)
      return PyErr_Format(PyExc_TypeError, "normal(): with a number mean and std, the size "
                          "argument is required");
    if (real_obj(name, "mean", mean, 0.0, &d.a) < 0 || real_obj(name, "std", std, 1.0, &d.b) < 0 ||
        tl_py_factory_dtype(name, &o, tl_dtype_default_float(), &dtype) < 0)
      return NULL;
    return draw_new(name, a->generator, &d, TL_OP_NORMAL, dtype, a->size.n, a->size.v, &o);
  }
  if (a->size.given)
    return PyErr_Format(PyExc_TypeError, "normal(): size cannot be given with tensor mean or "
                        "std; the result has their broadcast shape");
  const tl_tensor *mt = tmean ? tl_py_t(mean) : NULL, *st = tstd ? tl_py_t(std) : NULL;
  /* the mean's dtype where it is a tensor (PyTorch's: normal(float32 mean,
   * float64 std) is float32), else the std's */
  tl_dtype dtype = (mt ? mt : st)->dtype;
  int ndim = 0;
  int64_t shape[TL_MAX_DIMS];
  if (st && tl_dtype_is_complex(st->dtype))
    return PyErr_Format(PyExc_RuntimeError, "normal expects standard deviation to be "
                        "non-complex");
  if (tl_dtype_is_integral(dtype)) /* PyTorch's words */
    return PyErr_Format(PyExc_NotImplementedError, "\"normal_kernel_cpu\" not implemented for "
                        "'%s'", tl_dtype_scalar_name(dtype));
  if ((o.dtype >= 0 || o.out) && tl_py_factory_dtype(name, &o, dtype, &dtype) < 0)
    return NULL;
  if (!o.device_given) /* on the tensors' device */
    o.device = tl_tensor_device(mt ? mt : st);
  if (tl_shape_broadcast(mt ? mt->ndim : 0, mt ? mt->shape : NULL, st ? st->ndim : 0,
                         st ? st->shape : NULL, &ndim, shape) != TL_OK) {
    tl_py_raise();
    goto done;
  }
  if (tl_dtype_is_complex(dtype)) /* a complex mean (a complex std was refused above) */
    return complex_normal(name, a->generator, mean, std, dtype, ndim, shape, &o);
  if (tl_py_factory_new(name, TL_OP_NORMAL, dtype, ndim, shape, &o, false, &t) < 0 ||
      (!mt && real_obj(name, "mean", mean, 0.0, &d.a) < 0) ||
      (!st && real_obj(name, "std", std, 1.0, &d.b) < 0) ||
      (mt && param_buffer(mt, &t, &pa) < 0) || (st && param_buffer(st, &t, &pb) < 0))
    goto done;
  d.pa = mt ? tl_tensor_data(&pa) : NULL;
  d.pb = st ? tl_tensor_data(&pb) : NULL;
  if (fill_on(a->generator, &t, &d) != TL_OK) {
    tl_py_raise();
    goto done;
  }
  result = tl_py_factory_finish(&t, &o);
  t.storage = NULL; /* consumed */
done:
  tl_tensor_release(&pa);
  tl_tensor_release(&pb);
  if (t.storage)
    tl_tensor_release(&t);
  return result;
}

/* Draw into `self` in place; p (a tensor) gives per-element a when non-NULL. */
static PyObject *fill_self(PyObject *self, tl_generator *g, tl_random_dist *d, PyObject *p)
{
  tl_tensor buf = {0};
  if (p) {
    if (param_buffer(tl_py_t(p), tl_py_t(self), &buf) < 0)
      return NULL;
    d->pa = tl_tensor_data(&buf);
  }
  tl_status s = fill_on(g, tl_py_t(self), d);
  if (p)
    tl_tensor_release(&buf);
  return s == TL_OK ? Py_NewRef(self) : tl_py_raise();
}

/* bernoulli(input, p=None, *, generator=None, out=None): 1 with probability
 * input (or p), in input's dtype, on its device.  Also Tensor.bernoulli. */
PyObject *tl_py_impl_bernoulli(const char *name, const tl_py_args_bernoulli *a)
{
  tl_random_dist d = {.kind = TL_RANDOM_BERNOULLI};
  const tl_tensor *in = tl_py_t(a->input);
  PyObject *p = a->p == Py_None ? NULL : a->p;
  tl_tensor t;
  if (!p && !tl_dtype_is_float(in->dtype)) /* PyTorch's words: the output, then p */
    return PyErr_Format(PyExc_NotImplementedError, "\"bernoulli_tensor_cpu_%s_\" not implemented "
                        "for '%s'", tl_dtype_is_complex(in->dtype) ? "self" : "p",
                        tl_dtype_scalar_name(in->dtype));
  if (p && real_obj(name, "p", p, 0.5, &d.a) < 0)
    return NULL;
  PyObject *target = a->out;
  if (!target) {
    tl_py_factory_opts o = {.dtype = -1, .device = tl_tensor_device(in)};
    if (tl_py_factory_new(name, TL_OP_BERNOULLI, in->dtype, in->ndim, in->shape, &o, false,
                          &t) < 0 ||
        !(target = tl_py_tensor_from(&t)))
      return NULL;
  } else {
    Py_INCREF(target);
    char sa[128], sb[128];
    const tl_tensor *ot = tl_py_t(target);
    if (ot->ndim != in->ndim || memcmp(ot->shape, in->shape, sizeof(int64_t) * (size_t)in->ndim)) {
      Py_DECREF(target);
      return PyErr_Format(PyExc_RuntimeError, "%s: out= has shape %s but the input has shape %s",
                          name, tl_shape_str(sa, sizeof sa, ot->ndim, ot->shape),
                          tl_shape_str(sb, sizeof sb, in->ndim, in->shape));
    }
  }
  PyObject *r = fill_self(target, a->generator, &d, p ? NULL : a->input);
  Py_DECREF(target);
  return r;
}

/* multinomial(input, num_samples, replacement=False, *, generator=None,
 * out=None); also Tensor.multinomial. */
PyObject *tl_py_impl_multinomial(const char *name, const tl_py_args_multinomial *a)
{
  tl_tensor t;
  (void)name;
  /* the samples are indices: a float out= would hold them cast (PyTorch refuses it too) */
  if (a->out && tl_py_t(a->out)->dtype != TL_DTYPE_I64)
    return PyErr_Format(PyExc_RuntimeError, "multinomial: out= must be an int64 tensor (the "
                        "sampled indices), got %s", tl_dtype_names[tl_py_t(a->out)->dtype]);
  tl_generator *g = tl_py_generator_for(a->generator, tl_tensor_device(tl_py_t(a->input)));
  if (!g || tl_random_multinomial(g, tl_py_t(a->input), a->num_samples, a->replacement, &t) != TL_OK)
    return tl_py_raise();
  tl_py_factory_opts o = {.dtype = -1, .device = tl_tensor_device(&t), .out = a->out};
  return tl_py_factory_finish(&t, &o);
}

/* poisson(input, generator=None): Poisson draws with rates input, in its dtype. */
PyObject *tl_py_impl_poisson(const char *name, const tl_py_args_poisson *a)
{
  tl_tensor t;
  (void)name;
  tl_generator *g = tl_py_generator_for(a->generator, tl_tensor_device(tl_py_t(a->input)));
  if (!g || tl_random_poisson(g, tl_py_t(a->input), &t) != TL_OK)
    return tl_py_raise();
  return tl_py_tensor_from(&t);
}

/* The smallest normal number of a floating dtype. */
static double smallest_normal(tl_dtype dtype)
{
  return dtype == TL_DTYPE_F64 ? 0x1p-1022 : dtype == TL_DTYPE_F16 ? 0x1p-14 : 0x1p-126;
}

/* _standard_gamma / _log_standard_gamma(input, generator=None). */
PyObject *tl_py_impl_standard_gamma(const char *name, const tl_py_args_standard_gamma *a)
{
  const tl_tensor *x = tl_py_t(a->input);
  bool log_out = !strcmp(name, "_log_standard_gamma");
  tl_random_sample_spec spec = {.kind = log_out ? TL_RANDOM_SAMPLE_LOG_GAMMA : TL_RANDOM_SAMPLE_GAMMA,
                                .floor = log_out ? NAN : smallest_normal(x->dtype)};
  tl_tensor t;
  if (!tl_dtype_is_float(x->dtype))
    return PyErr_Format(PyExc_NotImplementedError, "\"%s\" not implemented for '%s'", name,
                        tl_dtype_names[x->dtype]);
  tl_generator *g = tl_py_generator_for(a->generator, tl_tensor_device(x));
  if (!g || tl_random_sample(g, &spec, x, NULL, x->dtype, &t) != TL_OK)
    return tl_py_raise();
  return tl_py_tensor_from(&t);
}

/* _binomial(count, prob, generator=None). */
PyObject *tl_py_impl_binomial(const char *name, const tl_py_args_binomial *a)
{
  const tl_tensor *count = tl_py_t(a->count);
  tl_random_sample_spec spec = {.kind = TL_RANDOM_SAMPLE_BINOMIAL, .floor = NAN};
  tl_tensor t;
  (void)name;
  tl_generator *g = tl_py_generator_for(a->generator, tl_tensor_device(count));
  if (!g || tl_random_sample(g, &spec, count, tl_py_t(a->prob), count->dtype, &t) != TL_OK)
    return tl_py_raise();
  return tl_py_tensor_from(&t);
}

/* ---- Tensor methods ------------------------------------------------------------------ */

/* A draw of kind into self with parameters (pa, pb) read as real numbers. */
static PyObject *draw_self(const char *func, PyObject *self, tl_generator *g,
                           tl_random_kind kind, const char *na, tl_scalar pa, const char *nb,
                           tl_scalar pb)
{
  tl_random_dist d = {.kind = kind};
  if (real_arg(func, na, pa, &d.a) < 0 || (nb && real_arg(func, nb, pb, &d.b) < 0))
    return NULL;
  return fill_self(self, g, &d, NULL);
}

PyObject *tl_py_impl_uniform_(const char *name, const tl_py_args_uniform_ *a)
{
  return draw_self(name, a->self, a->generator, TL_RANDOM_UNIFORM, "from", a->from, "to", a->to);
}

PyObject *tl_py_impl_normal_(const char *name, const tl_py_args_normal_ *a)
{
  return draw_self(name, a->self, a->generator, TL_RANDOM_NORMAL, "mean", a->mean, "std",
                   a->std);
}

PyObject *tl_py_impl_exponential_(const char *name, const tl_py_args_exponential_ *a)
{
  return draw_self(name, a->self, a->generator, TL_RANDOM_EXPONENTIAL, "lambd", a->lambd, NULL,
                   a->lambd);
}

PyObject *tl_py_impl_cauchy_(const char *name, const tl_py_args_cauchy_ *a)
{
  return draw_self(name, a->self, a->generator, TL_RANDOM_CAUCHY, "median", a->median, "sigma",
                   a->sigma);
}

PyObject *tl_py_impl_log_normal_(const char *name, const tl_py_args_log_normal_ *a)
{
  return draw_self(name, a->self, a->generator, TL_RANDOM_LOG_NORMAL, "mean", a->mean, "std",
                   a->std);
}

PyObject *tl_py_impl_geometric_(const char *name, const tl_py_args_geometric_ *a)
{
  return draw_self(name, a->self, a->generator, TL_RANDOM_GEOMETRIC, "p", a->p, NULL, a->p);
}

/* random_(), random_(to), random_(from, to=None): integers on [from, to), to
 * defaulting past the dtype's largest value (2^digits for floats). */
PyObject *tl_py_impl_random_(const char *name, const tl_py_args_random_ *a)
{
  (void)name;
  tl_dtype dtype = tl_py_t(a->self)->dtype;
  int64_t lo = a->has_from ? a->from : 0, hi = a->to;
  bool has_to = a->has_to;
  tl_random_dist d;
  if (a->nargs == 1 && !has_to) { /* random_(to) */
    hi = lo;
    lo = 0;
    has_to = true;
  }
  if (tl_dtype_is_complex(dtype) && !has_to) /* PyTorch's words */
    return PyErr_Format(PyExc_NotImplementedError, "\"random_kernel_cpu\" not implemented for "
                        "'%s'", tl_dtype_scalar_name(dtype));
  if (tl_dtype_is_complex(dtype))
    return PyErr_Format(PyExc_RuntimeError, "check_random_bounds handles only integral, "
                        "floating-point and boolean types");
  if (has_to) {
    if (integer_dist(lo, hi, &d) < 0)
      return NULL;
  } else { /* up to and including the dtype's largest value */
    int64_t max = tl_random_dtype_max(dtype);
    if (lo > max)
      return PyErr_Format(PyExc_RuntimeError, "random_ expects 'from' to be at most %lld for "
                          "dtype %s, got %lld", (long long)max, tl_dtype_names[dtype],
                          (long long)lo);
    d = (tl_random_dist){.kind = TL_RANDOM_INTEGER, .low = lo,
                         .range = (uint64_t)max - (uint64_t)lo + 1};
  }
  return fill_self(a->self, a->generator, &d, NULL);
}

/* bernoulli_(p=0.5, *, generator=None): p a number or a tensor broadcast to self. */
PyObject *tl_py_impl_bernoulli_(const char *name, const tl_py_args_bernoulli_ *a)
{
  tl_random_dist d = {.kind = TL_RANDOM_BERNOULLI, .a = 0.5};
  if (a->p && tl_py_is_tensor(a->p)) {
    tl_dtype pd = tl_py_t(a->p)->dtype;
    if (!tl_dtype_is_float(pd)) /* PyTorch's kernel takes float probabilities only */
      return PyErr_Format(PyExc_NotImplementedError, "\"bernoulli_tensor_cpu_p_\" not "
                          "implemented for '%s'", tl_dtype_scalar_name(pd));
    return fill_self(a->self, a->generator, &d, a->p);
  }
  if (real_obj(name, "p", a->p, 0.5, &d.a) < 0)
    return NULL;
  return fill_self(a->self, a->generator, &d, NULL);
}

/* _philox4x32_10(counter: 4 ints, key: 2 ints) -> 4 ints, for known-answer tests. */
static PyObject *py_philox(PyObject *m, PyObject *args)
{
  (void)m;
  uint32_t c[4], k[2], out[4];
  if (!PyArg_ParseTuple(args, "(IIII)(II):_philox4x32_10", &c[0], &c[1], &c[2], &c[3], &k[0],
                        &k[1]))
    return NULL;
  tl_philox4x32_10(c, k, out);
  return Py_BuildValue("(IIII)", out[0], out[1], out[2], out[3]);
}

/* _random_reference(generator, like, kind, a, b, low, range): the values a
 * fill of `like` (its dtype and shape; kind a tl_random_kind) would draw,
 * computed one by one on the host with tl_px_value - the function the CUDA
 * kernel runs per element - as a 1-d float64 (int64 for integers) tensor,
 * advancing the generator as the fill would.  Tests compare it with the
 * CPU's chunked kernels: equal values mean the GPU's element mapping and
 * arithmetic reproduce the CPU's stream. */
static PyObject *py_random_reference(PyObject *m, PyObject *args)
{
  (void)m;
  PyObject *gen, *like;
  int kind;
  tl_random_dist d = {0};
  long long low;
  unsigned long long range;
  tl_generator *g;
  tl_random_draw_plan plan;
  tl_tensor out = {0};
  if (!PyArg_ParseTuple(args, "OO!iddLK:_random_reference", &gen, tl_py_tensor_type, &like,
                        &kind, &d.a, &d.b, &low, &range))
    return NULL;
  if (kind < TL_RANDOM_UNIFORM || kind > TL_RANDOM_GEOMETRIC)
    return PyErr_Format(PyExc_ValueError, "_random_reference: no draw kind %d", kind);
  d.kind = (tl_random_kind)kind;
  d.low = low;
  d.range = range;
  if (tl_py_arg_generator("_random_reference", "generator", gen, &g) < 0)
    return NULL;
  if (!(g = tl_py_generator_for(g, tl_device_cpu())) ||
      tl_random_plan(g, tl_py_t(like), &d, &plan) != TL_OK ||
      tl_tensor_empty(&out, kind == TL_RANDOM_INTEGER ? TL_DTYPE_I64 : TL_DTYPE_F64, 1, &plan.n,
                      tl_device_cpu()) != TL_OK)
    return tl_py_raise();
  double *dv = tl_tensor_data(&out);
  int64_t *iv = tl_tensor_data(&out);
  for (int64_t v = 0; v < plan.n; v++)
    tl_px_value(&plan.draw, v, kind == TL_RANDOM_INTEGER ? &(double){0} : &dv[v],
                kind == TL_RANDOM_INTEGER ? &iv[v] : &(int64_t){0});
  return tl_py_tensor_from(&out);
}

/* _sample_reference(generator, kind, a, b, floor): draw e of sampler `kind`
 * (tl_random_sample_kind) for each e of the contiguous float64 tensor a (b:
 * binomial's probabilities, a's shape, or None) computed one by one on the
 * host with tl_px_sample_one - the function the CUDA kernel runs per element
 * - as a float64 tensor, advancing the generator as the draw would.  Tests
 * compare it with the CPU's chunked, vectorised kernel. */
static PyObject *py_sample_reference(PyObject *m, PyObject *args)
{
  (void)m;
  PyObject *gen, *a, *b;
  int kind;
  double floor_value;
  tl_generator *g;
  tl_tensor out = {0};
  if (!PyArg_ParseTuple(args, "OiO!Od:_sample_reference", &gen, &kind, tl_py_tensor_type, &a, &b,
                        &floor_value))
    return NULL;
  const tl_tensor *ta = tl_py_t(a), *tb = b == Py_None ? NULL : tl_py_t(b);
  if (kind < TL_RANDOM_SAMPLE_GAMMA || kind > TL_RANDOM_SAMPLE_BINOMIAL ||
      ta->dtype != TL_DTYPE_F64 || !tl_tensor_is_contiguous(ta) ||
      (kind == TL_RANDOM_SAMPLE_BINOMIAL) != (tb != NULL) ||
      (tb && (tb->dtype != TL_DTYPE_F64 || !tl_tensor_is_contiguous(tb) ||
              tl_tensor_numel(tb) != tl_tensor_numel(ta))))
    return PyErr_Format(PyExc_ValueError, "_sample_reference: kind %d with contiguous float64 "
                        "parameters of one size expected", kind);
  if (tl_py_arg_generator("_sample_reference", "generator", gen, &g) < 0)
    return NULL;
  int64_t n = tl_tensor_numel(ta);
  if (!(g = tl_py_generator_for(g, tl_device_cpu())) ||
      tl_tensor_empty(&out, TL_DTYPE_F64, ta->ndim, ta->shape, tl_device_cpu()) != TL_OK)
    return tl_py_raise();
  tl_px_rounds r = tl_random_sample_reserve(g, (tl_random_sample_kind)kind, n);
  const double *pa = tl_tensor_data(ta), *pb = tb ? tl_tensor_data(tb) : NULL;
  double *po = tl_tensor_data(&out);
  for (int64_t e = 0; e < n; e++)
    po[e] = tl_px_sample_one(kind, floor_value, &r, e, pa[e], pb ? pb[e] : 0.0);
  return tl_py_tensor_from(&out);
}

static PyObject *py_cuda_default_generators(PyObject *self, PyObject *unused)
{
  (void)self, (void)unused;
  PyObject *all = cuda_generators_get();
  if (!all)
    return PyErr_Occurred() ? NULL : tl_py_raise();
  return Py_NewRef(all);
}

static PyMethodDef random_functions[] = {
    {"manual_seed", py_manual_seed, METH_O, "Seed the default generator; returns it."},
    {"seed", py_seed, METH_NOARGS, "Seed the default generator from the OS; returns the seed."},
    {"initial_seed", py_initial_seed, METH_NOARGS, "The default generator's seed."},
    {"get_rng_state", py_get_rng_state, METH_NOARGS, "The default generator's state."},
    {"set_rng_state", py_set_rng_state, METH_O, "Restore the default generator's state."},
    {"_philox4x32_10", py_philox, METH_VARARGS, NULL},
    {"_random_reference", py_random_reference, METH_VARARGS, NULL},
    {"_sample_reference", py_sample_reference, METH_VARARGS, NULL},
    {"_cuda_default_generators", py_cuda_default_generators, METH_NOARGS,
     "The CUDA devices' default generators (made on first use)."},
    {"_cuda_manual_seed", py_cuda_manual_seed, METH_VARARGS,
     "Seed the current CUDA device's generator, or every device's (kept until they exist)."},
    {"_cuda_pending_seeds", py_cuda_pending_seeds, METH_NOARGS, NULL},
    {NULL, NULL, 0, NULL},
};

int tl_py_random_init(PyObject *module)
{
  generator_type = (PyTypeObject *)PyType_FromSpec(&generator_spec);
  if (!generator_type || PyModule_AddObjectRef(module, "Generator", (PyObject *)generator_type) < 0)
    return -1;
  default_generator = PyObject_CallNoArgs((PyObject *)generator_type);
  if (!default_generator ||
      PyModule_AddObjectRef(module, "default_generator", default_generator) < 0 ||
      PyModule_AddFunctions(module, random_functions) < 0 ||
      /* the generated binders of py_create.c's and this file's functions
       * (their Tensor methods come with py_shape_ops.c's tables) */
      PyModule_AddFunctions(module, tl_py_generated_create_functions) < 0 ||
      PyModule_AddFunctions(module, tl_py_generated_random_functions) < 0)
    return -1;
  return 0;
}
