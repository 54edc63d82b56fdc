/* py_random.c - torchlike.Generator and the random functions: manual_seed,
 * seed, initial_seed, get/set_rng_state, rand, randn, randint (and _like),
 * randperm, normal, bernoulli, multinomial, poisson, and the in-place Tensor methods
 * uniform_, normal_, random_, bernoulli_, exponential_, cauchy_, log_normal_,
 * geometric_.
 *
 * Generator is a C type holding a tl_generator (seed, Philox offset); its
 * state tensor is 16 uint8 bytes (seed, offset; little-endian).  The default
 * generator is one such object, torchlike.default_generator.  Every function
 * takes generator=; draws happen with the GIL held, so a generator is never
 * advanced by two threads at once.                                        */
#include "ndcore/bindings/py_create.h"
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

static int get_generator(const char *func, PyObject *o, tl_generator **g)
{
  if (!o || o == Py_None)
    o = default_generator;
  if (!PyObject_TypeCheck(o, generator_type)) {
    PyErr_Format(PyExc_TypeError, "%s(): argument 'generator' must be torchlike.Generator, not "
                 "%s", func, Py_TYPE(o)->tp_name);
    return -1;
  }
  *g = &((tl_py_generator *)o)->g;
  return 0;
}

int tl_py_generator_get(const char *func, PyObject *o, tl_generator **g)
{
  return get_generator(func, o, g);
}

/* Positional-or-keyword parameters `names` (NULL-terminated; values[i] NULL
 * when absent) plus the keyword-only generator=. */
static int parse_args(const char *func, PyObject *const *args, Py_ssize_t nargs,
                      PyObject *kwnames, const char *const *names, PyObject **values,
                      tl_generator **g)
{
  const char *all[16];
  PyObject *bound[16];
  int n = 0;
  while (names[n] && n < 14) {
    all[n] = names[n];
    n++;
  }
  all[n] = "generator";
  all[n + 1] = NULL;
  if (tl_py_bind_args(func, args, nargs, kwnames, all, n, 0, bound) < 0)
    return -1;
  memcpy(values, bound, (size_t)n * sizeof *values);
  return get_generator(func, bound[n], g);
}

/* A real number argument, `fallback` when absent. */
static int real_arg(const char *func, const char *what, PyObject *o, double fallback, double *v)
{
  tl_scalar s;
  if (!o) {
    *v = fallback;
    return 0;
  }
  if (tl_py_number_arg(func, what, o, &s) < 0)
    return -1;
  switch (s.kind) {
  case TL_KIND_BOOL: *v = s.v.b; break;
  case TL_KIND_FLOAT: *v = s.v.f; break;
  case TL_KIND_COMPLEX:
    PyErr_Format(PyExc_TypeError, "%s(): argument '%s' must be a real number, not complex",
                 func, what);
    return -1;
  default: *v = (double)s.v.i; break;
  }
  return 0;
}

static int int_arg(const char *func, const char *what, PyObject *o, int64_t *v)
{
  tl_scalar s;
  if (tl_py_number_arg(func, what, o, &s) < 0)
    return -1;
  if (s.kind != TL_KIND_INT && s.kind != TL_KIND_BOOL) {
    PyErr_Format(PyExc_TypeError, "%s(): argument '%s' must be int, not %s", func, what,
                 Py_TYPE(o)->tp_name);
    return -1;
  }
  *v = s.kind == TL_KIND_BOOL ? s.v.b : s.v.i;
  return 0;
}

/* A float64 copy of `src` broadcast to `like`'s shape, for per-element parameters. */
static int param_buffer(const tl_tensor *src, const tl_tensor *like, tl_tensor *buf)
{
  if (tl_tensor_empty(buf, TL_DTYPE_F64, like->ndim, like->shape, tl_device_cpu()) != TL_OK)
    return tl_py_raise_int();
  if (tl_tensor_copy(buf, src) != TL_OK) {
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
  if (d.type != TL_DEVICE_CPU)
    return PyErr_Format(PyExc_RuntimeError, "Generator(device='cuda:%d'): no CUDA support is "
                        "available in this build or on this machine", d.index);
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
  tl_tensor c;
  if (tl_tensor_to_dtype(&c, s, TL_DTYPE_U8) != TL_OK) /* contiguous copy */
    return tl_py_raise();
  tl_generator_set_state(&((tl_py_generator *)self)->g, tl_tensor_data(&c));
  tl_tensor_release(&c);
  return Py_NewRef(self);
}

/* Pickling and copy: Generator('cpu'), then the 16 state bytes restored
 * (bytes rather than a tensor, so pickling needs nothing else). */
static PyObject *generator_reduce(PyObject *self, PyObject *unused)
{
  (void)unused;
  uint8_t state[TL_GENERATOR_STATE_SIZE];
  tl_generator_get_state(&((tl_py_generator *)self)->g, state);
  return Py_BuildValue("O(s)y#", (PyObject *)Py_TYPE(self), "cpu", (const char *)state,
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

static PyObject *py_manual_seed(PyObject *self, PyObject *seed)
{
  (void)self;
  return generator_manual_seed(default_generator, seed);
}
static PyObject *py_seed(PyObject *self, PyObject *unused)
{
  (void)self;
  return generator_seed(default_generator, unused);
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

/* Draw d into a new tensor (or straight into out= when its shape matches). */
static PyObject *draw_new(tl_generator *g, const tl_random_dist *d, tl_dtype dtype, int ndim,
                          const int64_t *shape, const tl_py_factory_opts *o)
{
  tl_tensor t;
  if (o->out) {
    tl_tensor *out = tl_py_t(o->out);
    if (out->ndim == ndim && !memcmp(out->shape, shape, sizeof(int64_t) * (size_t)ndim))
      return tl_random_fill(g, out, d) == TL_OK ? Py_NewRef(o->out) : tl_py_raise();
  }
  if (tl_tensor_empty(&t, dtype, ndim, shape, o->device) != TL_OK)
    return tl_py_raise();
  if (tl_random_fill(g, &t, d) != TL_OK) {
    tl_tensor_release(&t);
    return tl_py_raise();
  }
  return tl_py_factory_finish(&t, o);
}

/* rand/randn(*size, generator=None, dtype=None, ...) */
static PyObject *sized(const char *func, tl_random_kind kind, PyObject *const *args,
                       Py_ssize_t nargs, PyObject *kwnames)
{
  static const char *const names[] = {"size", "generator", NULL};
  PyObject *kw[2];
  tl_py_factory_opts o;
  int64_t shape[TL_MAX_DIMS];
  int ndim;
  tl_generator *g;
  tl_dtype dtype;
  tl_random_dist d = {.kind = kind, .a = 0.0, .b = 1.0};
  if (tl_py_factory_opts_parse(func, args + nargs, kwnames, names, kw, &o) < 0 ||
      tl_py_factory_shape(func, args, nargs, kw[0], shape, &ndim) < 0 ||
      get_generator(func, kw[1], &g) < 0 ||
      tl_py_factory_dtype(func, &o, tl_dtype_default_float(), &dtype) < 0)
    return NULL;
  return draw_new(g, &d, dtype, ndim, shape, &o);
}

static PyObject *py_rand(PyObject *m, PyObject *const *a, Py_ssize_t n, PyObject *kw)
{
  (void)m;
  return sized("rand", TL_RANDOM_UNIFORM, a, n, kw);
}
static PyObject *py_randn(PyObject *m, PyObject *const *a, Py_ssize_t n, PyObject *kw)
{
  (void)m;
  return sized("randn", TL_RANDOM_NORMAL, a, n, kw);
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
static PyObject *py_randint(PyObject *m, PyObject *const *args, Py_ssize_t nargs,
                            PyObject *kwnames)
{
  (void)m;
  static const char *const names[] = {"low", "high", "size", "generator", NULL};
  PyObject *kw[4], *low = NULL, *high = NULL, *size = NULL;
  tl_py_factory_opts o;
  int64_t shape[TL_MAX_DIMS], lo = 0, hi;
  int ndim;
  tl_generator *g;
  tl_dtype dtype;
  tl_random_dist d;
  if (tl_py_factory_opts_parse("randint", args + nargs, kwnames, names, kw, &o) < 0)
    return NULL;
  /* randint(high, size) and randint(low, high, size): which positional is
   * which depends on how many there are and which came by keyword. */
  if (nargs == 3) {
    low = args[0], high = args[1], size = args[2];
  } else if (nargs == 2) {
    if (kw[2])
      low = args[0], high = args[1];
    else
      high = args[0], size = args[1];
  } else if (nargs == 1) {
    if (kw[1])
      low = args[0];
    else
      high = args[0];
  } else if (nargs > 3) {
    return PyErr_Format(PyExc_TypeError, "randint() takes at most 3 positional arguments");
  }
  for (int i = 0; i < 3; i++) {
    PyObject **slot = i == 0 ? &low : i == 1 ? &high : &size;
    if (kw[i] && *slot)
      return PyErr_Format(PyExc_TypeError, "randint() got multiple values for argument '%s'",
                          names[i]);
    *slot = *slot ? *slot : kw[i];
  }
  if (!high || !size)
    return PyErr_Format(PyExc_TypeError, "randint() missing required argument '%s'",
                        high ? "size" : "high");
  if ((low && int_arg("randint", "low", low, &lo) < 0) ||
      int_arg("randint", "high", high, &hi) < 0 ||
      tl_py_parse_shape("randint", &size, 1, shape, &ndim) < 0 ||
      get_generator("randint", kw[3], &g) < 0 ||
      tl_py_factory_dtype("randint", &o, TL_DTYPE_I64, &dtype) < 0 || integer_dist(lo, hi, &d) < 0)
    return NULL;
  return draw_new(g, &d, dtype, ndim, shape, &o);
}

/* rand_like / randn_like / randint_like(input, [low,] [high,] *, dtype=None, generator=None) */
static PyObject *like(const char *func, tl_random_kind kind, PyObject *const *args,
                      Py_ssize_t nargs, PyObject *kwnames)
{
  static const char *const names[] = {"input", "low", "high", "generator", NULL};
  PyObject *kw[4];
  tl_py_factory_opts o;
  tl_generator *g;
  tl_random_dist d = {.kind = kind, .a = 0.0, .b = 1.0};
  if (tl_py_factory_opts_parse(func, args + nargs, kwnames, names, kw, &o) < 0)
    return NULL;
  PyObject *input = nargs ? args[0] : kw[0];
  if (!input || !tl_py_is_tensor(input) || (nargs && kw[0]))
    return PyErr_Format(PyExc_TypeError, "%s(): argument 'input' must be Tensor", func);
  if (o.out)
    return PyErr_Format(PyExc_TypeError, "%s() got an unexpected keyword argument 'out'", func);
  if (get_generator(func, kw[3], &g) < 0)
    return NULL;
  if (kind == TL_RANDOM_INTEGER) {
    PyObject *low = kw[1], *high = kw[2];
    int64_t lo = 0, hi;
    if (nargs == 3 && !low && !high)
      low = args[1], high = args[2];
    else if (nargs == 2 && !high)
      high = args[1];
    else if (nargs == 2 && !low)
      low = args[1];
    else if (nargs > 1)
      return PyErr_Format(PyExc_TypeError, "randint_like() takes input, low and high");
    if (!high)
      return PyErr_Format(PyExc_TypeError, "randint_like() missing required argument 'high'");
    if ((low && int_arg(func, "low", low, &lo) < 0) || int_arg(func, "high", high, &hi) < 0 ||
        integer_dist(lo, hi, &d) < 0)
      return NULL;
  } else if (nargs > 1 || kw[1] || kw[2]) {
    return PyErr_Format(PyExc_TypeError, "%s() takes one positional argument (input)", func);
  }
  const tl_tensor *in = tl_py_t(input);
  return draw_new(g, &d, o.dtype >= 0 ? (tl_dtype)o.dtype : in->dtype, in->ndim, in->shape, &o);
}

static PyObject *py_rand_like(PyObject *m, PyObject *const *a, Py_ssize_t n, PyObject *kw)
{
  (void)m;
  return like("rand_like", TL_RANDOM_UNIFORM, a, n, kw);
}
static PyObject *py_randn_like(PyObject *m, PyObject *const *a, Py_ssize_t n, PyObject *kw)
{
  (void)m;
  return like("randn_like", TL_RANDOM_NORMAL, a, n, kw);
}
static PyObject *py_randint_like(PyObject *m, PyObject *const *a, Py_ssize_t n, PyObject *kw)
{
  (void)m;
  return like("randint_like", TL_RANDOM_INTEGER, a, n, kw);
}

/* randperm(n, *, generator=None, dtype=int64, ...) */
static PyObject *py_randperm(PyObject *m, PyObject *const *args, Py_ssize_t nargs,
                             PyObject *kwnames)
{
  (void)m;
  static const char *const names[] = {"n", "generator", NULL};
  PyObject *kw[2];
  tl_py_factory_opts o;
  tl_generator *g;
  tl_dtype dtype;
  int64_t n;
  tl_tensor t;
  if (tl_py_factory_opts_parse("randperm", args + nargs, kwnames, names, kw, &o) < 0)
    return NULL;
  if (nargs > 1 || (nargs && kw[0]) || nargs + (kw[0] != NULL) == 0)
    return PyErr_Format(PyExc_TypeError, "randperm() takes one argument (n)");
  if (int_arg("randperm", "n", nargs ? args[0] : kw[0], &n) < 0 ||
      get_generator("randperm", kw[1], &g) < 0 ||
      tl_py_factory_dtype("randperm", &o, TL_DTYPE_I64, &dtype) < 0)
    return NULL;
  if (n < 0)
    return PyErr_Format(PyExc_RuntimeError, "randperm(): n must be non-negative, got %lld",
                        (long long)n);
  if (tl_tensor_empty(&t, dtype, 1, &n, o.device) != TL_OK)
    return tl_py_raise();
  if (tl_random_permutation(g, &t) != TL_OK) {
    tl_tensor_release(&t);
    return tl_py_raise();
  }
  return tl_py_factory_finish(&t, &o);
}

/* normal(mean, std=1.0, size=None, *, generator=None, out=None, dtype=None):
 * tensor means and stds broadcast against each other; with two numbers the
 * size is required. */
static PyObject *py_normal(PyObject *m, PyObject *const *args, Py_ssize_t nargs,
                           PyObject *kwnames)
{
  (void)m;
  static const char *const names[] = {"mean", "std", "size", "generator", NULL};
  PyObject *kw[4], *given[3], *result = NULL;
  tl_py_factory_opts o;
  tl_generator *g;
  tl_tensor pa = {0}, pb = {0}, t = {0};
  tl_random_dist d = {.kind = TL_RANDOM_NORMAL, .a = 0.0, .b = 1.0};
  if (tl_py_factory_opts_parse("normal", args + nargs, kwnames, names, kw, &o) < 0)
    return NULL;
  if (nargs > 3)
    return PyErr_Format(PyExc_TypeError, "normal() takes mean, std and size");
  for (int i = 0; i < 3; i++) {
    if (i < nargs && kw[i])
      return PyErr_Format(PyExc_TypeError, "normal() got multiple values for argument '%s'",
                          names[i]);
    given[i] = i < nargs ? args[i] : kw[i];
  }
  if (!given[0])
    return PyErr_Format(PyExc_TypeError, "normal() missing required argument 'mean'");
  if (get_generator("normal", kw[3], &g) < 0)
    return NULL;
  bool tmean = tl_py_is_tensor(given[0]), tstd = given[1] && tl_py_is_tensor(given[1]);
  if (!tmean && !tstd) {
    int64_t shape[TL_MAX_DIMS];
    int ndim;
    tl_dtype dtype;
    if (!given[2])
      return PyErr_Format(PyExc_TypeError, "normal(): with a number mean and std, the size "
                          "argument is required");
    if (real_arg("normal", "mean", given[0], 0.0, &d.a) < 0 ||
        real_arg("normal", "std", given[1], 1.0, &d.b) < 0 ||
        tl_py_parse_shape("normal", &given[2], 1, shape, &ndim) < 0 ||
        tl_py_factory_dtype("normal", &o, tl_dtype_default_float(), &dtype) < 0)
      return NULL;
    return draw_new(g, &d, dtype, ndim, shape, &o);
  }
  if (given[2])
    return PyErr_Format(PyExc_TypeError, "normal(): size cannot be given with tensor mean or "
                        "std; the result has their broadcast shape");
  const tl_tensor *mt = tmean ? tl_py_t(given[0]) : NULL, *st = tstd ? tl_py_t(given[1]) : NULL;
  tl_dtype dtype = mt && st ? tl_promote_types(mt->dtype, st->dtype) : (mt ? mt : st)->dtype;
  int ndim = 0;
  int64_t shape[TL_MAX_DIMS];
  if (!tl_dtype_is_float(dtype))
    return PyErr_Format(PyExc_RuntimeError, "normal expects floating-point mean and std, got %s",
                        tl_dtype_names[dtype]);
  if (o.dtype >= 0 || o.out) {
    if (tl_py_factory_dtype("normal", &o, dtype, &dtype) < 0)
      return NULL;
  }
  if (tl_shape_broadcast(mt ? mt->ndim : 0, mt ? mt->shape : NULL, st ? st->ndim : 0,
                         st ? st->shape : NULL, &ndim, shape) != TL_OK ||
      tl_tensor_empty(&t, dtype, ndim, shape, o.device) != TL_OK) {
    tl_py_raise();
    goto done;
  }
  if ((!mt && real_arg("normal", "mean", given[0], 0.0, &d.a) < 0) ||
      (!st && real_arg("normal", "std", given[1], 1.0, &d.b) < 0) ||
      (mt && param_buffer(mt, &t, &pa) < 0) || (st && param_buffer(st, &t, &pb) < 0))
    goto done;
  d.pa = mt ? tl_tensor_data(&pa) : NULL;
  d.pb = st ? tl_tensor_data(&pb) : NULL;
  if (tl_random_fill(g, &t, &d) != TL_OK) {
    tl_py_raise();
    goto done;
  }
  result = tl_py_factory_finish(&t, &o);
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
  tl_status s = tl_random_fill(g, tl_py_t(self), d);
  if (p)
    tl_tensor_release(&buf);
  return s == TL_OK ? Py_NewRef(self) : tl_py_raise();
}

/* bernoulli(input, p=None, *, generator=None, out=None): 1 with probability
 * input (or p), in input's dtype. */
static PyObject *bernoulli(const char *func, PyObject *input, PyObject *p, tl_generator *g,
                           PyObject *out)
{
  tl_random_dist d = {.kind = TL_RANDOM_BERNOULLI};
  const tl_tensor *in = tl_py_t(input);
  tl_tensor t;
  if (!p && !tl_dtype_is_float(in->dtype))
    return PyErr_Format(PyExc_RuntimeError, "%s expects floating-point probabilities, got %s",
                        func, tl_dtype_names[in->dtype]);
  if (p && real_arg(func, "p", p, 0.5, &d.a) < 0)
    return NULL;
  PyObject *target = out;
  if (!target) {
    if (tl_tensor_empty(&t, in->dtype, in->ndim, in->shape, tl_device_cpu()) != TL_OK)
      return tl_py_raise();
    target = tl_py_tensor_from(&t);
    if (!target)
      return NULL;
  } else {
    Py_INCREF(target);
    char a[128], b[128];
    const tl_tensor *ot = tl_py_t(out);
    if (ot->ndim != in->ndim || memcmp(ot->shape, in->shape, sizeof(int64_t) * (size_t)in->ndim)) {
      Py_DECREF(target);
      return PyErr_Format(PyExc_RuntimeError, "%s: out= has shape %s but the input has shape %s",
                          func, tl_shape_str(a, sizeof a, ot->ndim, ot->shape),
                          tl_shape_str(b, sizeof b, in->ndim, in->shape));
    }
  }
  PyObject *r = fill_self(target, g, &d, p ? NULL : input);
  Py_DECREF(target);
  return r;
}

static PyObject *py_bernoulli(PyObject *m, PyObject *const *args, Py_ssize_t nargs,
                              PyObject *kwnames)
{
  (void)m;
  static const char *const names[] = {"input", "p", "generator", NULL};
  PyObject *kw[3];
  tl_py_factory_opts o;
  tl_generator *g;
  if (tl_py_factory_opts_parse("bernoulli", args + nargs, kwnames, names, kw, &o) < 0)
    return NULL;
  if (nargs > 2 || (nargs > 0 && kw[0]) || (nargs > 1 && kw[1]))
    return PyErr_Format(PyExc_TypeError, "bernoulli() takes input and an optional p");
  PyObject *input = nargs ? args[0] : kw[0], *p = nargs > 1 ? args[1] : kw[1];
  if (!input || !tl_py_is_tensor(input))
    return PyErr_Format(PyExc_TypeError, "bernoulli(): argument 'input' must be Tensor");
  if (p == Py_None)
    p = NULL;
  if (get_generator("bernoulli", kw[2], &g) < 0)
    return NULL;
  return bernoulli("bernoulli", input, p, g, o.out);
}

static PyObject *multinomial(PyObject *input, PyObject *num_samples, PyObject *replacement,
                             tl_generator *g, PyObject *out)
{
  int64_t n;
  int repl = 0;
  tl_tensor t;
  if (!num_samples)
    return PyErr_Format(PyExc_TypeError, "multinomial() missing required argument "
                        "'num_samples'");
  if (int_arg("multinomial", "num_samples", num_samples, &n) < 0 ||
      (replacement && (repl = PyObject_IsTrue(replacement)) < 0))
    return NULL;
  if (tl_random_multinomial(g, tl_py_t(input), n, repl, &t) != TL_OK)
    return tl_py_raise();
  tl_py_factory_opts o = {.dtype = -1, .device = tl_device_cpu(), .out = out};
  return tl_py_factory_finish(&t, &o);
}

/* multinomial(input, num_samples, replacement=False, *, generator=None, out=None) */
static PyObject *py_multinomial(PyObject *m, PyObject *const *args, Py_ssize_t nargs,
                                PyObject *kwnames)
{
  (void)m;
  static const char *const names[] = {"input", "num_samples", "replacement", "generator", NULL};
  PyObject *kw[4], *v[3];
  tl_py_factory_opts o;
  tl_generator *g;
  if (tl_py_factory_opts_parse("multinomial", args + nargs, kwnames, names, kw, &o) < 0)
    return NULL;
  if (nargs > 3)
    return PyErr_Format(PyExc_TypeError, "multinomial() takes input, num_samples and "
                        "replacement");
  for (int i = 0; i < 3; i++) {
    if (i < nargs && kw[i])
      return PyErr_Format(PyExc_TypeError, "multinomial() got multiple values for argument "
                          "'%s'", names[i]);
    v[i] = i < nargs ? args[i] : kw[i];
  }
  if (!v[0] || !tl_py_is_tensor(v[0]))
    return PyErr_Format(PyExc_TypeError, "multinomial(): argument 'input' must be Tensor");
  if (get_generator("multinomial", kw[3], &g) < 0)
    return NULL;
  return multinomial(v[0], v[1], v[2], g, o.out);
}

/* poisson(input, generator=None): Poisson draws with rates input, in its dtype. */
static PyObject *py_poisson(PyObject *m, PyObject *const *args, Py_ssize_t nargs,
                            PyObject *kwnames)
{
  (void)m;
  static const char *const names[] = {"input", "generator", NULL}; /* generator may be positional */
  PyObject *v[2];
  tl_generator *g;
  tl_tensor t;
  if (parse_args("poisson", args, nargs, kwnames, names, v, &g) < 0 ||
      get_generator("poisson", v[1], &g) < 0)
    return NULL;
  if (!v[0] || !tl_py_is_tensor(v[0]))
    return PyErr_Format(PyExc_TypeError, "poisson(): argument 'input' must be Tensor");
  if (tl_random_poisson(g, tl_py_t(v[0]), &t) != TL_OK)
    return tl_py_raise();
  return tl_py_tensor_from(&t);
}

/* ---- Tensor methods ------------------------------------------------------------------ */

/* uniform_(from=0, to=1, *, generator=None) */
static PyObject *tensor_uniform_(PyObject *self, PyObject *const *args, Py_ssize_t nargs,
                                 PyObject *kwnames)
{
  static const char *const names[] = {"from", "to", NULL};
  PyObject *v[2];
  tl_generator *g;
  tl_random_dist d = {.kind = TL_RANDOM_UNIFORM};
  if (parse_args("uniform_", args, nargs, kwnames, names, v, &g) < 0 ||
      real_arg("uniform_", "from", v[0], 0.0, &d.a) < 0 ||
      real_arg("uniform_", "to", v[1], 1.0, &d.b) < 0)
    return NULL;
  return fill_self(self, g, &d, NULL);
}

/* normal_(mean=0, std=1, *, generator=None) */
static PyObject *tensor_normal_(PyObject *self, PyObject *const *args, Py_ssize_t nargs,
                                PyObject *kwnames)
{
  static const char *const names[] = {"mean", "std", NULL};
  PyObject *v[2];
  tl_generator *g;
  tl_random_dist d = {.kind = TL_RANDOM_NORMAL};
  if (parse_args("normal_", args, nargs, kwnames, names, v, &g) < 0 ||
      real_arg("normal_", "mean", v[0], 0.0, &d.a) < 0 ||
      real_arg("normal_", "std", v[1], 1.0, &d.b) < 0)
    return NULL;
  return fill_self(self, g, &d, NULL);
}

/* random_(), random_(to), random_(from, to=None): integers on [from, to), to
 * defaulting past the dtype's largest value (2^digits for floats). */
static PyObject *tensor_random_(PyObject *self, PyObject *const *args, Py_ssize_t nargs,
                                PyObject *kwnames)
{
  static const char *const names[] = {"from", "to", NULL};
  PyObject *v[2];
  tl_generator *g;
  tl_random_dist d;
  int64_t lo = 0, hi = 0;
  if (parse_args("random_", args, nargs, kwnames, names, v, &g) < 0)
    return NULL;
  if (nargs == 1 && !v[1]) { /* random_(to) */
    v[1] = v[0];
    v[0] = NULL;
  }
  if (v[1] == Py_None)
    v[1] = NULL;
  tl_dtype dtype = tl_py_t(self)->dtype;
  if (tl_dtype_is_complex(dtype))
    return PyErr_Format(PyExc_RuntimeError, "random_ is not implemented for dtype %s",
                        tl_dtype_names[dtype]);
  if ((v[0] && int_arg("random_", "from", v[0], &lo) < 0) ||
      (v[1] && int_arg("random_", "to", v[1], &hi) < 0))
    return NULL;
  if (v[1]) {
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
  return fill_self(self, g, &d, NULL);
}

/* bernoulli_(p=0.5, *, generator=None): p a number or a tensor broadcast to self. */
static PyObject *tensor_bernoulli_(PyObject *self, PyObject *const *args, Py_ssize_t nargs,
                                   PyObject *kwnames)
{
  static const char *const names[] = {"p", NULL};
  PyObject *v[1];
  tl_generator *g;
  tl_random_dist d = {.kind = TL_RANDOM_BERNOULLI, .a = 0.5};
  if (parse_args("bernoulli_", args, nargs, kwnames, names, v, &g) < 0)
    return NULL;
  if (v[0] && tl_py_is_tensor(v[0]))
    return fill_self(self, g, &d, v[0]);
  if (real_arg("bernoulli_", "p", v[0], 0.5, &d.a) < 0)
    return NULL;
  return fill_self(self, g, &d, NULL);
}

/* bernoulli(p=None, *, generator=None) */
static PyObject *tensor_bernoulli(PyObject *self, PyObject *const *args, Py_ssize_t nargs,
                                  PyObject *kwnames)
{
  static const char *const names[] = {"p", NULL};
  PyObject *v[1];
  tl_generator *g;
  if (parse_args("bernoulli", args, nargs, kwnames, names, v, &g) < 0)
    return NULL;
  return bernoulli("bernoulli", self, v[0] == Py_None ? NULL : v[0], g, NULL);
}

/* The one-or-two-parameter in-place samplers. */
static PyObject *two_params(PyObject *self, const char *func, tl_random_kind kind,
                            const char *na, double da, const char *nb, double db,
                            PyObject *const *args, Py_ssize_t nargs, PyObject *kwnames)
{
  const char *names[3] = {na, nb, NULL};
  PyObject *v[2];
  tl_generator *g;
  tl_random_dist d = {.kind = kind};
  if (parse_args(func, args, nargs, kwnames, names, v, &g) < 0 ||
      real_arg(func, na, v[0], da, &d.a) < 0 || (nb && real_arg(func, nb, v[1], db, &d.b) < 0))
    return NULL;
  if (isnan(da) && !v[0])
    return PyErr_Format(PyExc_TypeError, "%s() missing required argument '%s'", func, na);
  return fill_self(self, g, &d, NULL);
}

static PyObject *tensor_exponential_(PyObject *self, PyObject *const *a, Py_ssize_t n,
                                     PyObject *kw)
{
  return two_params(self, "exponential_", TL_RANDOM_EXPONENTIAL, "lambd", 1.0, NULL, 0, a, n,
                    kw);
}
static PyObject *tensor_cauchy_(PyObject *self, PyObject *const *a, Py_ssize_t n, PyObject *kw)
{
  return two_params(self, "cauchy_", TL_RANDOM_CAUCHY, "median", 0.0, "sigma", 1.0, a, n, kw);
}
static PyObject *tensor_log_normal_(PyObject *self, PyObject *const *a, Py_ssize_t n,
                                    PyObject *kw)
{
  return two_params(self, "log_normal_", TL_RANDOM_LOG_NORMAL, "mean", 1.0, "std", 2.0, a, n,
                    kw);
}
static PyObject *tensor_geometric_(PyObject *self, PyObject *const *a, Py_ssize_t n,
                                   PyObject *kw)
{
  return two_params(self, "geometric_", TL_RANDOM_GEOMETRIC, "p", NAN, NULL, 0, a, n, kw);
}

/* multinomial(num_samples, replacement=False, *, generator=None) */
static PyObject *tensor_multinomial(PyObject *self, PyObject *const *args, Py_ssize_t nargs,
                                    PyObject *kwnames)
{
  static const char *const names[] = {"num_samples", "replacement", NULL};
  PyObject *v[2];
  tl_generator *g;
  if (parse_args("multinomial", args, nargs, kwnames, names, v, &g) < 0)
    return NULL;
  return multinomial(self, v[0], v[1], g, NULL);
}

#define TL_FASTCALL_KW(fn) (PyCFunction)(void (*)(void))fn, METH_FASTCALL | METH_KEYWORDS
static PyMethodDef random_methods[] = {
    {"uniform_", TL_FASTCALL_KW(tensor_uniform_), NULL},
    {"normal_", TL_FASTCALL_KW(tensor_normal_), NULL},
    {"random_", TL_FASTCALL_KW(tensor_random_), NULL},
    {"bernoulli_", TL_FASTCALL_KW(tensor_bernoulli_), NULL},
    {"bernoulli", TL_FASTCALL_KW(tensor_bernoulli), NULL},
    {"exponential_", TL_FASTCALL_KW(tensor_exponential_), NULL},
    {"cauchy_", TL_FASTCALL_KW(tensor_cauchy_), NULL},
    {"log_normal_", TL_FASTCALL_KW(tensor_log_normal_), NULL},
    {"geometric_", TL_FASTCALL_KW(tensor_geometric_), NULL},
    {"multinomial", TL_FASTCALL_KW(tensor_multinomial), NULL},
    {NULL, NULL, 0, NULL},
};

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

static PyMethodDef random_functions[] = {
    {"manual_seed", py_manual_seed, METH_O, "Seed the default generator; returns it."},
    {"seed", py_seed, METH_NOARGS, "Seed the default generator from the OS; returns the seed."},
    {"initial_seed", py_initial_seed, METH_NOARGS, "The default generator's seed."},
    {"get_rng_state", py_get_rng_state, METH_NOARGS, "The default generator's state."},
    {"set_rng_state", py_set_rng_state, METH_O, "Restore the default generator's state."},
    {"rand", TL_FASTCALL_KW(py_rand), NULL},
    {"randn", TL_FASTCALL_KW(py_randn), NULL},
    {"randint", TL_FASTCALL_KW(py_randint), NULL},
    {"rand_like", TL_FASTCALL_KW(py_rand_like), NULL},
    {"randn_like", TL_FASTCALL_KW(py_randn_like), NULL},
    {"randint_like", TL_FASTCALL_KW(py_randint_like), NULL},
    {"randperm", TL_FASTCALL_KW(py_randperm), NULL},
    {"normal", TL_FASTCALL_KW(py_normal), NULL},
    {"bernoulli", TL_FASTCALL_KW(py_bernoulli), NULL},
    {"multinomial", TL_FASTCALL_KW(py_multinomial), NULL},
    {"poisson", TL_FASTCALL_KW(py_poisson), NULL},
    {"_philox4x32_10", py_philox, METH_VARARGS, NULL},
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
      tl_py_tensor_add_methods(random_methods) < 0 ||
      tl_py_tensor_add_methods(tl_py_create_methods) < 0)
    return -1;
  return 0;
}
