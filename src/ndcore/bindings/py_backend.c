/* py_backend.c - tensors crossing devices, device memory statistics, and the
 * fake device's test hooks.
 *
 * Tensor.to/cpu/cuda/copy_/pin_memory/is_pinned are here, bound from
 * signatures.txt (to's three overloads too); each calls the core's one
 * cross-device path (tl_backend_tensor_to / tl_backend_tensor_copy).  Host reads of a tensor's
 * data (item, bool, int, float) go through tl_py_tensor_first, which reads
 * through the tensor's backend.
 *
 * The memory functions (_memory_stats, _empty_cache, ...) take a device and
 * answer from that device's caching pool; torchlike.cuda wraps them.  The
 * _fake_*, _pool_* and _host_cache_* functions exist for tests only;
 * _cpu_memory_stats and _cpu_empty_cache answer for the CPU backend.  */
#include "ndcore/bindings/generated/bindings.h"
#include "gpu/tl_gpu.h"
#include "ndcore/tensor/tl_backend.h"

PyObject *tl_py_oom_error;

/* ---- reading data ------------------------------------------------------------ */

PyObject *tl_py_tensor_first(const tl_tensor *t)
{
  tl_scalar s;
  if (tl_backend_read_scalar(t, &s) != TL_OK)
    return tl_py_raise();
  return tl_py_scalar_obj(s);
}

/* ---- Tensor.to and friends ------------------------------------------------------ */

/* The format a tensor's strides follow: channels-last when its dims are laid
 * out so (4-d and 5-d), else row-major; to() copies only for another. */
static tl_format suggested_format(const tl_tensor *t)
{
  int order[TL_MAX_DIMS];
  if (t->ndim != 4 && t->ndim != 5)
    return TL_FORMAT_CONTIGUOUS;
  tl_layout_order(1, &t, t->ndim, t->shape, order);
  bool last = order[0] == 0 && order[t->ndim - 1] == 1;
  for (int i = 2; last && i < t->ndim; i++)
    last = order[i - 1] == i;
  if (!last)
    return TL_FORMAT_CONTIGUOUS;
  return t->ndim == 4 ? TL_FORMAT_CHANNELS_LAST : TL_FORMAT_CHANNELS_LAST_3D;
}

/* Is t laid out as format asks (its size-1 dims' strides do not count)? */
static bool in_format(const tl_tensor *t, tl_format format)
{
  int64_t strides[TL_MAX_DIMS];
  if (format == TL_FORMAT_CONTIGUOUS)
    return tl_tensor_is_contiguous(t);
  if (tl_format_strides(format, t, strides) != TL_OK) {
    tl_error_clear();
    return false;
  }
  return tl_tensor_has_strides(t, strides);
}

/* self on device with dtype, laid out in format (-1: preserve_format); self
 * itself when nothing changes and no copy is asked. */
static PyObject *move(PyObject *self, tl_device device, tl_dtype dtype, int format,
                      bool non_blocking, bool copy)
{
  tl_tensor *t = tl_py_t(self);
  tl_tensor out = {0};
  tl_format f = format >= 0 ? (tl_format)format : TL_FORMAT_PRESERVE;
  if (!copy && dtype == t->dtype && tl_device_eq(device, tl_tensor_device(t)) &&
      (f == TL_FORMAT_PRESERVE || f == suggested_format(t)))
    return Py_NewRef(self);
  tl_status s = device.type == TL_DEVICE_CPU && tl_tensor_device(t).type == TL_DEVICE_CPU
                    ? tl_tensor_copy_format(&out, t, dtype, f)
                    : tl_backend_tensor_to_format(&out, t, device, dtype, f, non_blocking);
  return s == TL_OK ? tl_py_tensor_from(&out) : tl_py_raise();
}

/* Tensor.to's three overloads (signatures.txt): to(device=None, dtype=None,
 * ...), to(dtype, ...) and to(tensor, ...); None keeps self's device or dtype. */
PyObject *tl_py_impl_to(const char *name, const tl_py_args_to *a)
{
  (void)name;
  const tl_tensor *t = tl_py_t(a->self);
  return move(a->self, a->has_device ? a->device : tl_tensor_device(t),
              a->dtype >= 0 ? (tl_dtype)a->dtype : t->dtype, a->memory_format, a->non_blocking,
              a->copy);
}

PyObject *tl_py_impl_to_dtype(const char *name, const tl_py_args_to_dtype *a)
{
  (void)name;
  const tl_tensor *t = tl_py_t(a->self);
  return move(a->self, tl_tensor_device(t), a->dtype >= 0 ? (tl_dtype)a->dtype : t->dtype,
              a->memory_format, a->non_blocking, a->copy);
}

PyObject *tl_py_impl_to_other(const char *name, const tl_py_args_to_other *a)
{
  (void)name;
  const tl_tensor *other = tl_py_t(a->tensor);
  return move(a->self, tl_tensor_device(other), other->dtype, a->memory_format, a->non_blocking,
              a->copy);
}

/* clone(memory_format=preserve_format): a copy, laid out as asked. */
PyObject *tl_py_impl_clone(const char *name, const tl_py_args_clone *a)
{
  (void)name;
  tl_tensor *t = tl_py_t(a->self), out = {0};
  tl_format f = a->memory_format >= 0 ? (tl_format)a->memory_format : TL_FORMAT_PRESERVE;
  if (tl_tensor_copy_format(&out, t, t->dtype, f) != TL_OK)
    return tl_py_raise();
  return tl_py_tensor_from(&out);
}

PyObject *tl_py_impl_is_contiguous(const char *name, const tl_py_args_is_contiguous *a)
{
  (void)name;
  tl_format f = a->memory_format >= 0 ? (tl_format)a->memory_format : TL_FORMAT_CONTIGUOUS;
  return PyBool_FromLong(in_format(tl_py_t(a->self), f == TL_FORMAT_PRESERVE ? TL_FORMAT_CONTIGUOUS
                                                                             : f));
}

/* contiguous(memory_format=contiguous_format): self when laid out so, else
 * a copy that is.  preserve_format asks nothing a copy could give. */
PyObject *tl_py_impl_contiguous(const char *name, const tl_py_args_contiguous *a)
{
  const tl_tensor *t = tl_py_t(a->self);
  tl_format f = a->memory_format >= 0 ? (tl_format)a->memory_format : TL_FORMAT_CONTIGUOUS;
  tl_tensor out = {0};
  if (f == TL_FORMAT_PRESERVE && !tl_tensor_is_contiguous(t))
    return PyErr_Format(PyExc_RuntimeError, "%s(): preserve memory format is unsupported by the "
                        "contiguous operator", name);
  if (f == TL_FORMAT_PRESERVE || in_format(t, f))
    return Py_NewRef(a->self);
  if (tl_tensor_copy_format(&out, t, t->dtype, f) != TL_OK)
    return tl_py_raise();
  return tl_py_tensor_from(&out);
}

PyObject *tl_py_tensor_cpu(PyObject *self)
{
  return move(self, tl_device_cpu(), tl_py_t(self)->dtype, -1, false, false);
}

PyObject *tl_py_impl_cpu(const char *name, const tl_py_args_cpu *a)
{
  (void)name;
  return move(a->self, tl_device_cpu(), tl_py_t(a->self)->dtype, a->memory_format, false, false);
}

/* cuda(device=None, non_blocking=False): device None is cuda:0 (the current device). */
PyObject *tl_py_impl_cuda(const char *name, const tl_py_args_cuda *a)
{
  (void)name;
  tl_device device = a->has_device ? a->device : (tl_device){TL_DEVICE_CUDA, 0};
  if (device.type != TL_DEVICE_CUDA) {
    char dev[32];
    return PyErr_Format(PyExc_RuntimeError, "Invalid device, must be cuda device (got %s)",
                        tl_device_str(dev, sizeof dev, device));
  }
  return move(a->self, device, tl_py_t(a->self)->dtype, a->memory_format, a->non_blocking,
              false);
}

/* copy_(other, non_blocking=False): other broadcast to self and cast to its
 * dtype; a number or a list is made a tensor first. */
PyObject *tl_py_impl_copy_(const char *name, const tl_py_args_copy_ *a)
{
  (void)name;
  tl_tensor *t = tl_py_t(a->self);
  const tl_tensor *src = a->other.t;
  tl_status status = tl_device_eq(tl_tensor_device(t), tl_tensor_device(src))
                         ? tl_tensor_copy(t, src)
                         : tl_backend_tensor_copy(t, src, a->non_blocking);
  return status == TL_OK ? Py_NewRef(a->self) : tl_py_raise();
}

/* pin_memory(): a copy in page-locked host memory, through the pinned
 * allocator (CUDA's, when a GPU is there). */
PyObject *tl_py_impl_pin_memory(const char *name, const tl_py_args_pin_memory *a)
{
  (void)name;
  PyObject *self = a->self;
  tl_tensor *t = tl_py_t(self);
  tl_tensor out = {0};
  char dev[32];
  if (tl_tensor_device(t).type != TL_DEVICE_CPU)
    return PyErr_Format(PyExc_RuntimeError, "cannot pin a tensor on %s: only dense CPU tensors "
                                            "can be pinned",
                        tl_device_str(dev, sizeof dev, tl_tensor_device(t)));
  if (t->storage->backend && t->storage->backend == tl_backend_pinned())
    return Py_NewRef(self);
  const tl_backend *pinned = tl_backend_get_pinned();
  if (!pinned)
    return tl_py_raise();
  tl_storage *s = pinned->storage_new(pinned, tl_device_cpu(), (size_t)tl_tensor_numel(t) *
                                                           tl_dtype_size(t->dtype));
  if (!s)
    return tl_py_raise();
  out = (tl_tensor){.storage = s, .dtype = t->dtype, .ndim = t->ndim};
  memcpy(out.shape, t->shape, sizeof t->shape);
  tl_shape_contiguous_strides(t->ndim, t->shape, out.strides);
  if (tl_tensor_copy(&out, t) != TL_OK) {
    tl_tensor_release(&out);
    return tl_py_raise();
  }
  return tl_py_tensor_from(&out);
}

PyObject *tl_py_impl_is_pinned(const char *name, const tl_py_args_is_pinned *a)
{
  (void)name;
  const tl_storage *s = tl_py_t(a->self)->storage;
  return PyBool_FromLong(s->backend && s->backend == tl_backend_pinned());
}

/* ---- memory statistics of a device's pool --------------------------------------- */

/* The pool of the device named by arg (None: cuda:0), or NULL with an
 * exception; *out (when given) is the device. */
static tl_alloc_pool *device_pool_of(PyObject *arg, tl_device *out)
{
  tl_device device = {TL_DEVICE_CUDA, 0};
  if (arg && arg != Py_None && tl_py_parse_device(arg, &device) < 0)
    return NULL;
  if (out)
    *out = device;
  const tl_backend *b = tl_backend_get(device);
  if (!b) {
    tl_py_raise();
    return NULL;
  }
  tl_alloc_pool *pool = b->pool ? b->pool(device) : NULL;
  if (!pool) {
    char name[32];
    PyErr_Format(PyExc_ValueError, "device %s has no caching allocator",
                 tl_device_str(name, sizeof name, device));
  }
  return pool;
}

static tl_alloc_pool *device_pool(PyObject *arg) { return device_pool_of(arg, NULL); }

static int put_int(PyObject *dict, const char *key, int64_t v)
{
  PyObject *o = PyLong_FromLongLong(v);
  int r = o ? PyDict_SetItemString(dict, key, o) : -1;
  Py_XDECREF(o);
  return r;
}

static int put_stat(PyObject *dict, const char *name, const tl_alloc_stat *s)
{
  char key[160];
  const char *const parts[] = {"current", "peak", "allocated", "freed"};
  const int64_t v[] = {s->current, s->peak, s->allocated, s->freed};
  for (int i = 0; i < 4; i++) {
    snprintf(key, sizeof key, "%s.%s", name, parts[i]);
    if (put_int(dict, key, v[i]) < 0)
      return -1;
  }
  return 0;
}

/* _memory_stats(device): PyTorch's flat key names ("allocated_bytes.all.current" ...). */
static PyObject *memory_stats(PyObject *self, PyObject *arg)
{
  (void)self;
  tl_alloc_pool *pool = device_pool(arg);
  tl_alloc_stats st;
  if (!pool)
    return NULL;
  tl_alloc_pool_stats(pool, &st);
  PyObject *d = PyDict_New();
  const struct {
    const char *name;
    const tl_alloc_stat *stat;
  } groups[] = {
      {"allocation", st.allocation},           {"segment", st.segment},
      {"active", st.active},                   {"inactive_split", st.inactive_split},
      {"allocated_bytes", st.allocated_bytes}, {"reserved_bytes", st.reserved_bytes},
      {"active_bytes", st.active_bytes},       {"inactive_split_bytes", st.inactive_split_bytes},
      {"requested_bytes", st.requested_bytes},
  };
  const char *const pools[] = {"all", "small_pool", "large_pool"};
  char name[96];
  for (size_t g = 0; d && g < sizeof groups / sizeof *groups; g++)
    for (int k = 0; d && k < TL_ALLOC_POOL_KINDS; k++) {
      snprintf(name, sizeof name, "%s.%s", groups[g].name, pools[k]);
      if (put_stat(d, name, &groups[g].stat[k]) < 0)
        Py_CLEAR(d);
    }
  if (d && (put_stat(d, "oversize_allocations", &st.oversize_allocations) < 0 ||
            put_stat(d, "oversize_segments", &st.oversize_segments) < 0 ||
            put_int(d, "num_alloc_retries", st.num_alloc_retries) < 0 ||
            put_int(d, "num_ooms", st.num_ooms) < 0 ||
            put_int(d, "num_sync_all_streams", st.num_sync_all_streams) < 0 ||
            put_int(d, "num_device_alloc", st.num_device_alloc) < 0 ||
            put_int(d, "num_device_free", st.num_device_free) < 0 ||
            put_int(d, "max_split_size",
                    st.max_split_size == SIZE_MAX ? -1 : (int64_t)st.max_split_size) < 0))
    Py_CLEAR(d);
  return d;
}

static PyObject *memory_summary(PyObject *self, PyObject *arg)
{
  (void)self;
  tl_alloc_pool *pool = device_pool(arg);
  char buf[8192];
  if (!pool)
    return NULL;
  tl_alloc_pool_summary(pool, buf, sizeof buf);
  return PyUnicode_FromString(buf);
}

/* _mem_get_info(device): (free, total) bytes of the device, from its driver. */
static PyObject *mem_get_info(PyObject *self, PyObject *arg)
{
  (void)self;
  tl_alloc_pool *pool = device_pool(arg);
  size_t free_bytes = 0, total = 0;
  if (!pool)
    return NULL;
  tl_alloc_pool_mem_info(pool, &free_bytes, &total);
  return Py_BuildValue("(nn)", (Py_ssize_t)free_bytes, (Py_ssize_t)total);
}

/* _pinned_empty_cache(): give the pinned host pool's cached blocks back
 * (torchlike.accelerator.empty_host_cache); nothing without a pinned pool. */
static PyObject *pinned_empty_cache(PyObject *self, PyObject *unused)
{
  (void)self, (void)unused;
  const tl_backend *b = tl_backend_pinned();
  tl_alloc_pool *pool = b && b->pool ? b->pool(tl_device_cpu()) : NULL;
  if (pool)
    tl_alloc_pool_empty_cache(pool);
  Py_RETURN_NONE;
}

/* _pool_call(what, device): empty_cache, reset_peak, reset_accumulated. */
static PyObject *pool_control(PyObject *self, PyObject *args)
{
  (void)self;
  const char *what;
  PyObject *arg = Py_None;
  if (!PyArg_ParseTuple(args, "s|O:_pool_control", &what, &arg))
    return NULL;
  tl_alloc_pool *pool = device_pool(arg);
  if (!pool)
    return NULL;
  void (*fn)(tl_alloc_pool *) = !strcmp(what, "empty_cache")   ? tl_alloc_pool_empty_cache
                                : !strcmp(what, "reset_peak") ? tl_alloc_pool_reset_peaks
                                : !strcmp(what, "reset_accumulated")
                                    ? tl_alloc_pool_reset_accumulated
                                    : NULL;
  if (!fn)
    return PyErr_Format(PyExc_ValueError, "_pool_control: unknown action '%s'", what);
  fn(pool);
  Py_RETURN_NONE;
}

static PyObject *set_memory_fraction(PyObject *self, PyObject *args)
{
  (void)self;
  double fraction;
  PyObject *arg = Py_None;
  if (!PyArg_ParseTuple(args, "d|O:set_per_process_memory_fraction", &fraction, &arg))
    return NULL;
  tl_alloc_pool *pool = device_pool(arg);
  if (!pool)
    return NULL;
  tl_status s = tl_alloc_pool_set_fraction(pool, fraction);
  if (s != TL_OK)
    return tl_py_raise();
  Py_RETURN_NONE;
}

/* _alloc_config(text): the parsed TORCHLIKE_CUDA_ALLOC_CONF, as a dict. */
static PyObject *alloc_config(PyObject *self, PyObject *arg)
{
  (void)self;
  tl_alloc_config c;
  const char *text = arg == Py_None ? NULL : PyUnicode_AsUTF8(arg);
  if (arg != Py_None && !text)
    return NULL;
  if (tl_alloc_config_parse(text, &c) != TL_OK)
    return tl_py_raise();
  return Py_BuildValue("{s:L,s:d,s:O}", "max_split_size",
                       c.max_split_size == SIZE_MAX ? -1LL : (long long)c.max_split_size,
                       "garbage_collection_threshold", c.gc_threshold, "expandable_segments",
                       c.expandable_segments ? Py_True : Py_False);
}

static PyObject *alloc_sizes(PyObject *self, PyObject *arg)
{
  (void)self;
  Py_ssize_t n = PyNumber_AsSsize_t(arg, PyExc_OverflowError);
  if (n < 0)
    return PyErr_Occurred() ? NULL : PyErr_Format(PyExc_ValueError, "size must be >= 0");
  size_t r = tl_alloc_round_size((size_t)n);
  return Py_BuildValue("nn", (Py_ssize_t)r, (Py_ssize_t)tl_alloc_segment_size(r));
}

/* ---- snapshot and history (torchlike.cuda.memory._snapshot) ------------------------ */

/* torchlike.cuda.memory's recorder: called with no arguments, it stores the
 * Python stack and returns its id (an int > 0).  One for every pool. */
static PyObject *history_recorder;

/* The pools' capture callback.  It may run where an exception is being
 * raised (a tensor freed while unwinding), so that one is kept aside. */
static uint64_t capture_python(void *arg)
{
  (void)arg;
  PyGILState_STATE gil = PyGILState_Ensure();
  PyObject *type, *value, *tb;
  PyErr_Fetch(&type, &value, &tb);
  uint64_t id = 0;
  PyObject *r = history_recorder ? PyObject_CallNoArgs(history_recorder) : NULL;
  if (r)
    id = PyLong_AsUnsignedLongLong(r);
  if (PyErr_Occurred()) {
    PyErr_WriteUnraisable(history_recorder);
    id = 0;
  }
  Py_XDECREF(r);
  PyErr_Restore(type, value, tb);
  PyGILState_Release(gil);
  return id;
}

/* _record_memory_history(device, record_state, record_trace, context_alloc,
 *                        context_free, max_entries, clear, recorder) */
static PyObject *record_memory_history(PyObject *self, PyObject *args)
{
  (void)self;
  PyObject *dev, *recorder;
  int state, trace, ctx_alloc, ctx_free, clear;
  Py_ssize_t max_entries;
  if (!PyArg_ParseTuple(args, "OppppnpO:_record_memory_history", &dev, &state, &trace,
                        &ctx_alloc, &ctx_free, &max_entries, &clear, &recorder))
    return NULL;
  if (max_entries < 0)
    return PyErr_Format(PyExc_ValueError, "max_entries must be >= 0, got %zd", max_entries);
  if (recorder != Py_None && !PyCallable_Check(recorder))
    return PyErr_Format(PyExc_TypeError, "the recorder must be callable");
  tl_alloc_pool *pool = device_pool(dev);
  if (!pool)
    return NULL;
  if (recorder != Py_None)
    Py_XSETREF(history_recorder, Py_NewRef(recorder));
  tl_alloc_history h = {.record_state = state, .record_trace = trace, .context_alloc = ctx_alloc,
                        .context_free = ctx_free, .clear = clear,
                        .max_entries = (size_t)max_entries, .capture = capture_python};
  if (tl_alloc_pool_set_history(pool, &h) != TL_OK)
    return tl_py_raise();
  Py_RETURN_NONE;
}

static const char *const block_states[] = {"active_allocated", "active_pending_free", "inactive"};
static const char *const trace_actions[] = {"alloc",         "free_requested", "free_completed",
                                            "segment_alloc", "segment_free",   "segment_map",
                                            "segment_unmap", "oom"};

static PyObject *snapshot_segment(const tl_alloc_snapshot *snap, const tl_alloc_segment_info *g,
                                  int device)
{
  PyObject *blocks = PyList_New((Py_ssize_t)g->nblocks), *seg = NULL;
  for (size_t i = 0; blocks && i < g->nblocks; i++) {
    const tl_alloc_block_info *k = &snap->blocks[g->first_block + i];
    /* "frames" holds the context id; torchlike.cuda.memory swaps in the stack */
    PyObject *d = Py_BuildValue("{s:n,s:n,s:K,s:s,s:K}", "size", (Py_ssize_t)k->size,
                                "requested_size", (Py_ssize_t)k->requested, "address",
                                (unsigned long long)k->address, "state", block_states[k->state],
                                "frames", (unsigned long long)k->context);
    if (!d)
      Py_CLEAR(blocks);
    else
      PyList_SET_ITEM(blocks, (Py_ssize_t)i, d);
  }
  if (blocks)
    seg = Py_BuildValue("{s:i,s:K,s:n,s:n,s:n,s:n,s:K,s:s,s:(ii),s:O,s:K,s:N}", "device", device,
                        "address", (unsigned long long)g->address, "total_size",
                        (Py_ssize_t)g->total_size, "allocated_size",
                        (Py_ssize_t)g->allocated_size, "active_size", (Py_ssize_t)g->active_size,
                        "requested_size", (Py_ssize_t)g->requested_size, "stream",
                        (unsigned long long)(uintptr_t)g->stream, "segment_type",
                        g->small ? "small" : "large", "segment_pool_id", 0, (int)g->pool_id,
                        "is_expandable",
                        g->expandable ? Py_True : Py_False, "frames",
                        (unsigned long long)g->context, "blocks", blocks);
  else
    Py_XDECREF(blocks);
  return seg;
}

static PyObject *snapshot_trace_entry(const tl_alloc_trace_entry *e)
{
  PyObject *d = Py_BuildValue("{s:s,s:K,s:n,s:K,s:L,s:K}", "action", trace_actions[e->action],
                              "addr", (unsigned long long)e->address, "size", (Py_ssize_t)e->size,
                              "stream", (unsigned long long)(uintptr_t)e->stream, "time_us",
                              (long long)e->time_us, "frames", (unsigned long long)e->context);
  if (d && e->action == TL_TRACE_OOM && put_int(d, "device_free", (int64_t)e->device_free) < 0)
    Py_CLEAR(d);
  return d;
}

/* _memory_snapshot(device) -> (segments, trace): PyTorch's dicts, with
 * context ids (0: none) where the frames go. */
static PyObject *memory_snapshot(PyObject *self, PyObject *arg)
{
  (void)self;
  tl_device device;
  tl_alloc_snapshot snap;
  PyObject *segs = NULL, *trace = NULL;
  tl_alloc_pool *pool = device_pool_of(arg, &device);
  if (!pool)
    return NULL;
  if (tl_alloc_pool_snapshot(pool, &snap) != TL_OK)
    return tl_py_raise();
  segs = PyList_New((Py_ssize_t)snap.nsegments);
  trace = PyList_New((Py_ssize_t)snap.ntrace);
  if (!segs || !trace)
    goto fail;
  for (size_t i = 0; i < snap.nsegments; i++) {
    PyObject *g = snapshot_segment(&snap, &snap.segments[i], device.index < 0 ? 0 : device.index);
    if (!g)
      goto fail;
    PyList_SET_ITEM(segs, (Py_ssize_t)i, g);
  }
  for (size_t i = 0; i < snap.ntrace; i++) {
    PyObject *e = snapshot_trace_entry(&snap.trace[i]);
    if (!e)
      goto fail;
    PyList_SET_ITEM(trace, (Py_ssize_t)i, e);
  }
  tl_alloc_snapshot_free(&snap);
  return Py_BuildValue("NN", segs, trace);
fail:
  tl_alloc_snapshot_free(&snap);
  Py_XDECREF(segs);
  Py_XDECREF(trace);
  return NULL;
}

/* ---- test hooks: the fake device ------------------------------------------------- */

static PyObject *fake_enable(PyObject *self, PyObject *unused)
{
  (void)self;
  (void)unused;
  if (tl_backend_fake_enable() != TL_OK)
    return tl_py_raise();
  Py_RETURN_NONE;
}

static PyObject *fake_enabled(PyObject *self, PyObject *unused)
{
  (void)self;
  (void)unused;
  return PyBool_FromLong(tl_backend_available(TL_DEVICE_FAKE));
}

/* _fake_reset_pool(config=None): a fresh, empty pool (tests start from zero). */
static PyObject *fake_reset_pool(PyObject *self, PyObject *arg)
{
  (void)self;
  const char *text = arg == Py_None ? NULL : PyUnicode_AsUTF8(arg);
  if (arg != Py_None && !text)
    return NULL;
  if (tl_backend_fake_reset_pool(text) != TL_OK)
    return tl_py_raise();
  Py_RETURN_NONE;
}

static PyObject *fake_counters(PyObject *self, PyObject *unused)
{
  (void)self;
  (void)unused;
  tl_fake_counters c;
  tl_backend_fake_counters(&c);
  return Py_BuildValue("{s:L,s:L,s:L,s:L,s:L,s:L,s:L}", "copies_in", (long long)c.copies_in,
                       "copies_out", (long long)c.copies_out, "copies_on", (long long)c.copies_on,
                       "memsets", (long long)c.memsets, "bytes_in", (long long)c.bytes_in,
                       "bytes_out", (long long)c.bytes_out, "bytes_on", (long long)c.bytes_on);
}

static PyObject *fake_set_total(PyObject *self, PyObject *arg)
{
  (void)self;
  Py_ssize_t n = PyNumber_AsSsize_t(arg, PyExc_OverflowError);
  if (n < 0 && PyErr_Occurred())
    return NULL;
  tl_backend_fake_set_total(n > 0 ? (size_t)n : 0);
  Py_RETURN_NONE;
}

static int stream_arg(PyObject *arg, tl_stream *out)
{
  Py_ssize_t k = PyNumber_AsSsize_t(arg, PyExc_OverflowError);
  if (k < 0) {
    if (!PyErr_Occurred())
      PyErr_Format(PyExc_ValueError, "a fake stream is an int in [0, 64)");
    return -1;
  }
  if (k >= 64) {
    PyErr_Format(PyExc_ValueError, "a fake stream is an int in [0, 64), got %zd", k);
    return -1;
  }
  *out = (tl_stream)(uintptr_t)k;
  return 0;
}

static PyObject *fake_stream_finish(PyObject *self, PyObject *arg)
{
  (void)self;
  tl_stream s;
  if (stream_arg(arg, &s) < 0)
    return NULL;
  tl_backend_fake_stream_finish(s);
  Py_RETURN_NONE;
}

static PyObject *fake_set_stream(PyObject *self, PyObject *arg)
{
  (void)self;
  tl_stream s;
  if (stream_arg(arg, &s) < 0)
    return NULL;
  tl_backend_fake_set_stream(s);
  Py_RETURN_NONE;
}

/* The fake device's pool; NULL with an exception when not enabled. */
static tl_alloc_pool *fake_pool(void)
{
  PyObject *name = PyUnicode_FromString("fake");
  tl_alloc_pool *pool = name ? device_pool(name) : NULL;
  Py_XDECREF(name);
  return pool;
}

/* _pool_malloc(nbytes, stream=0) -> the block's address (an int). */
static PyObject *pool_malloc(PyObject *self, PyObject *args)
{
  (void)self;
  Py_ssize_t n;
  PyObject *stream_obj = NULL;
  tl_stream stream = NULL;
  if (!PyArg_ParseTuple(args, "n|O:_pool_malloc", &n, &stream_obj) ||
      (stream_obj && stream_arg(stream_obj, &stream) < 0))
    return NULL;
  if (n <= 0)
    return PyErr_Format(PyExc_ValueError, "_pool_malloc: size must be positive");
  tl_alloc_pool *pool = fake_pool();
  if (!pool)
    return NULL;
  tl_block *b = tl_alloc_pool_malloc(pool, (size_t)n, stream);
  if (!b)
    return tl_py_raise();
  return PyLong_FromVoidPtr(b->ptr);
}

/* Run f on the in-use block at address arg. */
static PyObject *with_block(PyObject *arg, tl_stream stream,
                            PyObject *(*f)(tl_alloc_pool *, tl_block *, tl_stream))
{
  void *ptr = PyLong_AsVoidPtr(arg);
  if (!ptr && PyErr_Occurred())
    return NULL;
  tl_alloc_pool *pool = fake_pool();
  if (!pool)
    return NULL;
  tl_block *b = tl_alloc_pool_find(pool, ptr);
  PyObject *r = b ? f(pool, b, stream)
                  : PyErr_Format(PyExc_ValueError, "no block in use at %p on the fake device", ptr);
  return r;
}

static PyObject *do_free(tl_alloc_pool *pool, tl_block *b, tl_stream s)
{
  (void)s;
  tl_alloc_pool_free(pool, b);
  Py_RETURN_NONE;
}

static PyObject *do_record(tl_alloc_pool *pool, tl_block *b, tl_stream s)
{
  if (tl_alloc_pool_record_stream(pool, b, s) != TL_OK)
    return tl_py_raise();
  Py_RETURN_NONE;
}

/* segment_offset: where CUDA IPC would find the block in what it exports;
 * None in an expandable segment, which it cannot export (_pool_segment_offset
 * raises the pool's error for it). */
static PyObject *do_info(tl_alloc_pool *pool, tl_block *b, tl_stream s)
{
  (void)s;
  char *base = b->vm ? NULL : tl_alloc_pool_segment_base(pool, b);
  PyObject *offset = base ? PyLong_FromSsize_t((Py_ssize_t)((char *)b->ptr - base))
                          : Py_NewRef(Py_None);
  if (!offset)
    return NULL;
  return Py_BuildValue("{s:n,s:n,s:n,s:N}", "size", (Py_ssize_t)b->size, "requested",
                       (Py_ssize_t)b->requested, "stream", (Py_ssize_t)(uintptr_t)b->stream,
                       "segment_offset", offset);
}

static PyObject *do_segment_offset(tl_alloc_pool *pool, tl_block *b, tl_stream s)
{
  (void)s;
  char *base = tl_alloc_pool_segment_base(pool, b);
  if (!base)
    return tl_py_raise();
  return PyLong_FromSsize_t((Py_ssize_t)((char *)b->ptr - base));
}

static PyObject *pool_free(PyObject *self, PyObject *arg)
{
  (void)self;
  return with_block(arg, NULL, do_free);
}

static PyObject *pool_block(PyObject *self, PyObject *arg)
{
  (void)self;
  return with_block(arg, NULL, do_info);
}

static PyObject *pool_segment_offset(PyObject *self, PyObject *arg)
{
  (void)self;
  return with_block(arg, NULL, do_segment_offset);
}

/* _fake_vm_control(enabled, fail_reserves=0, fail_maps=0): the fake raw
 * allocator's virtual memory callbacks for the next pool, and failures to
 * inject; _fake_vm_counters(): what is reserved and mapped. */
static PyObject *fake_vm_control(PyObject *self, PyObject *args)
{
  (void)self;
  int enabled, fail_reserves = 0, fail_maps = 0;
  if (!PyArg_ParseTuple(args, "p|ii:_fake_vm_control", &enabled, &fail_reserves, &fail_maps))
    return NULL;
  tl_backend_fake_vm_control(enabled, fail_reserves, fail_maps);
  Py_RETURN_NONE;
}

static PyObject *fake_vm_counters(PyObject *self, PyObject *unused)
{
  (void)self, (void)unused;
  tl_fake_vm_counters c;
  tl_backend_fake_vm_counters(&c);
  return Py_BuildValue("{s:L,s:L,s:L,s:L,s:L}", "ranges", (long long)c.ranges, "range_bytes",
                       (long long)c.range_bytes, "mapped_bytes", (long long)c.mapped_bytes,
                       "maps", (long long)c.maps, "unmaps", (long long)c.unmaps);
}

static PyObject *pool_record_stream(PyObject *self, PyObject *args)
{
  (void)self;
  PyObject *ptr, *stream_obj;
  tl_stream stream;
  if (!PyArg_ParseTuple(args, "OO:_pool_record_stream", &ptr, &stream_obj) ||
      stream_arg(stream_obj, &stream) < 0)
    return NULL;
  return with_block(ptr, stream, do_record);
}

/* _storage_block(t): the address of the pool block behind t's storage, or None. */
static PyObject *storage_block(PyObject *self, PyObject *arg)
{
  (void)self;
  if (!tl_py_is_tensor(arg))
    return PyErr_Format(PyExc_TypeError, "_storage_block expects a tensor");
  tl_block *b = tl_py_t(arg)->storage->block;
  return b ? PyLong_FromVoidPtr(b->ptr) : Py_NewRef(Py_None);
}

/* ---- private pools (torchlike.cuda.MemPool) --------------------------------------- */

/* _mem_pool_route(device, id): route this thread's requests on device to
 * private pool id (0: back to the device's own blocks). */
static PyObject *mem_pool_route(PyObject *self, PyObject *args)
{
  (void)self;
  PyObject *dev;
  unsigned long long id;
  if (!PyArg_ParseTuple(args, "OK:_mem_pool_route", &dev, &id))
    return NULL;
  tl_alloc_pool *pool = device_pool(dev);
  if (!pool)
    return NULL;
  tl_alloc_pool_route(pool, id);
  Py_RETURN_NONE;
}

/* _mem_pool_private(device, id, live): keep id's cache, or release it. */
static PyObject *mem_pool_private(PyObject *self, PyObject *args)
{
  (void)self;
  PyObject *dev;
  unsigned long long id;
  int live;
  if (!PyArg_ParseTuple(args, "OKp:_mem_pool_private", &dev, &id, &live))
    return NULL;
  tl_alloc_pool *pool = device_pool(dev);
  if (!pool)
    return NULL;
  if (tl_alloc_pool_private(pool, id, live) != TL_OK)
    return tl_py_raise();
  Py_RETURN_NONE;
}

/* ---- raw blocks (torchlike.cuda.caching_allocator_alloc/delete) ------------------- */

/* _caching_allocator_alloc(device, nbytes, stream) -> the block's address.
 * stream is the device's handle as an int (a fake stream: [0, 64)). */
static PyObject *caching_allocator_alloc(PyObject *self, PyObject *args)
{
  (void)self;
  PyObject *dev, *stream_obj;
  Py_ssize_t n;
  tl_device device;
  tl_stream stream = NULL;
  if (!PyArg_ParseTuple(args, "OnO:_caching_allocator_alloc", &dev, &n, &stream_obj))
    return NULL;
  if (n < 0)
    return PyErr_Format(PyExc_ValueError, "caching_allocator_alloc: size must be >= 0, got %zd",
                        n);
  tl_alloc_pool *pool = device_pool_of(dev, &device);
  if (!pool)
    return NULL;
  if (device.type == TL_DEVICE_FAKE) {
    if (stream_arg(stream_obj, &stream) < 0)
      return NULL;
  } else {
    stream = PyLong_AsVoidPtr(stream_obj);
    if (!stream && PyErr_Occurred())
      return NULL;
  }
  /* PyTorch hands out no memory for 0 bytes and answers address 0 */
  if (!n)
    return PyLong_FromLong(0);
  tl_block *b = tl_alloc_pool_malloc(pool, (size_t)n, stream);
  if (!b)
    return tl_py_raise();
  return PyLong_FromVoidPtr(b->ptr);
}

/* _caching_allocator_delete(device, address) -> whether a block of that
 * device's pool started there (it is freed then). */
static PyObject *caching_allocator_delete(PyObject *self, PyObject *args)
{
  (void)self;
  PyObject *dev, *ptr_obj;
  if (!PyArg_ParseTuple(args, "OO:_caching_allocator_delete", &dev, &ptr_obj))
    return NULL;
  void *ptr = PyLong_AsVoidPtr(ptr_obj);
  if (!ptr && PyErr_Occurred())
    return NULL;
  tl_alloc_pool *pool = device_pool(dev);
  if (!pool)
    return NULL;
  tl_block *b = ptr ? tl_alloc_pool_find(pool, ptr) : NULL;
  if (b)
    tl_alloc_pool_free(pool, b);
  return PyBool_FromLong(b != NULL);
}

/* _host_memory_stats(device=None): PyTorch's host_memory_stats keys, from
 * the pinned host pool (or, for tests, the pool of the device named). */
static PyObject *host_memory_stats(PyObject *self, PyObject *args)
{
  (void)self;
  PyObject *dev = Py_None;
  if (!PyArg_ParseTuple(args, "|O:_host_memory_stats", &dev))
    return NULL;
  const tl_backend *pinned = tl_backend_pinned();
  tl_alloc_pool *pool = dev != Py_None               ? device_pool(dev)
                        : pinned && pinned->pool ? pinned->pool(tl_device_cpu())
                                                 : NULL;
  if (!pool)
    return PyErr_Occurred() ? NULL : PyDict_New();
  tl_alloc_stats st;
  tl_alloc_pool_stats(pool, &st);
  PyObject *d = PyDict_New();
  if (d && (put_stat(d, "allocations", &st.allocation[TL_ALLOC_POOL_ALL]) < 0 ||
            put_stat(d, "allocated_bytes", &st.allocated_bytes[TL_ALLOC_POOL_ALL]) < 0 ||
            put_stat(d, "active_requests", &st.active[TL_ALLOC_POOL_ALL]) < 0 ||
            put_stat(d, "active_bytes", &st.active_bytes[TL_ALLOC_POOL_ALL]) < 0 ||
            put_stat(d, "segment", &st.segment[TL_ALLOC_POOL_ALL]) < 0 ||
            put_stat(d, "reserved_bytes", &st.reserved_bytes[TL_ALLOC_POOL_ALL]) < 0 ||
            put_int(d, "num_host_alloc", st.num_device_alloc) < 0 ||
            put_int(d, "num_host_free", st.num_device_free) < 0))
    Py_CLEAR(d);
  return d;
}

/* ---- synchronization debugging and NVTX ------------------------------------------ */

/* Mode 1's warning (tl_backend_sync_point); any thread may read a device. */
static int warn_sync(const char *message)
{
  PyGILState_STATE gil = PyGILState_Ensure();
  int r = PyErr_WarnEx(PyExc_UserWarning, message, 1);
  if (r < 0)
    PyErr_Clear(); /* the read fails with the core's RuntimeError instead */
  PyGILState_Release(gil);
  return r;
}

/* _sync_debug_mode(mode=None): sets the mode (0, 1, 2) when given; answers
 * the mode in force. */
static PyObject *sync_debug_mode(PyObject *self, PyObject *args)
{
  (void)self;
  PyObject *mode = Py_None;
  if (!PyArg_ParseTuple(args, "|O:_sync_debug_mode", &mode))
    return NULL;
  if (mode != Py_None) {
    long m = PyLong_AsLong(mode);
    if (m == -1 && PyErr_Occurred())
      return NULL;
    /* PyTorch treats any other number as 0 (no debugging) */
    tl_backend_set_sync_warn(warn_sync);
    tl_backend_set_sync_debug_mode(m == 1 || m == 2 ? (int)m : 0);
  }
  return PyLong_FromLong(tl_backend_sync_debug_mode());
}

static PyObject *nvtx_range_push(PyObject *self, PyObject *arg)
{
  (void)self;
  const char *msg = PyUnicode_AsUTF8(arg);
  return msg ? PyLong_FromLong(tl_gpu_nvtx_range_push(msg)) : NULL;
}

static PyObject *nvtx_range_pop(PyObject *self, PyObject *unused)
{
  (void)self, (void)unused;
  return PyLong_FromLong(tl_gpu_nvtx_range_pop());
}

static PyObject *nvtx_mark(PyObject *self, PyObject *arg)
{
  (void)self;
  const char *msg = PyUnicode_AsUTF8(arg);
  if (!msg)
    return NULL;
  tl_gpu_nvtx_mark(msg);
  Py_RETURN_NONE;
}

static PyObject *nvtx_range_start(PyObject *self, PyObject *arg)
{
  (void)self;
  const char *msg = PyUnicode_AsUTF8(arg);
  return msg ? PyLong_FromUnsignedLongLong(tl_gpu_nvtx_range_start(msg)) : NULL;
}

static PyObject *nvtx_range_end(PyObject *self, PyObject *arg)
{
  (void)self;
  unsigned long long id = PyLong_AsUnsignedLongLong(arg);
  if (id == (unsigned long long)-1 && PyErr_Occurred())
    return NULL;
  tl_gpu_nvtx_range_end(id);
  Py_RETURN_NONE;
}

/* ---- the CPU's memory, and the host block cache's test instance --------------------- */

static PyObject *host_stats_dict(const tl_host_cache_stats *st)
{
  return Py_BuildValue("{s:n,s:n,s:n,s:L,s:L,s:L,s:L,s:L,s:n}", "live", (Py_ssize_t)st->live,
                       "peak", (Py_ssize_t)st->peak, "cached", (Py_ssize_t)st->cached,
                       "nlive", (long long)st->nlive, "ncached", (long long)st->ncached,
                       "raw_allocs", (long long)st->raw_allocs, "raw_frees",
                       (long long)st->raw_frees, "hits", (long long)st->hits, "cap",
                       (Py_ssize_t)st->cap);
}

/* _cpu_memory_stats() -> {"allocated", "peak", "large": the large-block cache's figures} */
static PyObject *cpu_memory_stats(PyObject *self, PyObject *unused)
{
  (void)self;
  (void)unused;
  tl_cpu_memory m;
  tl_backend_cpu_memory(&m);
  PyObject *large = host_stats_dict(&m.large);
  return large ? Py_BuildValue("{s:n,s:n,s:N}", "allocated", (Py_ssize_t)m.allocated, "peak",
                               (Py_ssize_t)m.peak, "large", large)
               : NULL;
}

static PyObject *cpu_empty_cache(PyObject *self, PyObject *unused)
{
  (void)self;
  (void)unused;
  tl_backend_cpu_empty_cache();
  Py_RETURN_NONE;
}

/* _cublas_allow_tf32(flag=None): torchlike.backends.cuda.matmul.allow_tf32's
 * store; sets it when given a flag, and answers the value in force. */
static PyObject *cublas_allow_tf32(PyObject *self, PyObject *args)
{
  (void)self;
  PyObject *flag = Py_None;
  if (!PyArg_ParseTuple(args, "|O:_cublas_allow_tf32", &flag))
    return NULL;
  if (flag != Py_None) {
    int on = PyObject_IsTrue(flag);
    if (on < 0)
      return NULL;
    tl_gpu_set_matmul_allow_tf32(on);
  }
  return PyBool_FromLong(tl_gpu_matmul_allow_tf32());
}

static PyObject *host_cache_reset(PyObject *self, PyObject *arg)
{
  (void)self;
  Py_ssize_t cap = PyNumber_AsSsize_t(arg, PyExc_OverflowError);
  if (cap < 0)
    return PyErr_Occurred() ? NULL : PyErr_Format(PyExc_ValueError, "cap must be >= 0");
  if (tl_backend_fake_reset_host_cache((size_t)cap) != TL_OK)
    return tl_py_raise();
  Py_RETURN_NONE;
}

/* _host_cache_alloc(nbytes) -> (address, block size); MemoryError when the fake device is full. */
static PyObject *host_cache_alloc(PyObject *self, PyObject *arg)
{
  (void)self;
  Py_ssize_t n = PyNumber_AsSsize_t(arg, PyExc_OverflowError);
  if (n <= 0)
    return PyErr_Occurred() ? NULL : PyErr_Format(PyExc_ValueError, "size must be positive");
  size_t got;
  void *p = tl_host_cache_alloc(tl_backend_fake_host_cache(), (size_t)n, &got);
  if (!p)
    return PyErr_Format(PyExc_MemoryError, "the fake device has no %zd bytes left", n);
  return Py_BuildValue("Nn", PyLong_FromVoidPtr(p), (Py_ssize_t)got);
}

static PyObject *host_cache_free(PyObject *self, PyObject *args)
{
  (void)self;
  PyObject *ptr;
  Py_ssize_t size;
  if (!PyArg_ParseTuple(args, "On:_host_cache_free", &ptr, &size))
    return NULL;
  void *p = PyLong_AsVoidPtr(ptr);
  if (!p)
    return PyErr_Occurred() ? NULL : PyErr_Format(PyExc_ValueError, "a NULL block");
  tl_host_cache_free(tl_backend_fake_host_cache(), p, (size_t)size);
  Py_RETURN_NONE;
}

static PyObject *host_cache_stats(PyObject *self, PyObject *unused)
{
  (void)self;
  (void)unused;
  tl_host_cache_stats st;
  tl_host_cache_stats_get(tl_backend_fake_host_cache(), &st);
  return host_stats_dict(&st);
}

static PyMethodDef backend_functions[] = {
    {"_memory_stats", memory_stats, METH_O, NULL},
    {"_memory_summary", memory_summary, METH_O, NULL},
    {"_mem_get_info", mem_get_info, METH_O, NULL},
    {"_pinned_empty_cache", pinned_empty_cache, METH_NOARGS, NULL},
    {"_pool_control", pool_control, METH_VARARGS, NULL},
    {"_set_memory_fraction", set_memory_fraction, METH_VARARGS, NULL},
    {"_alloc_config", alloc_config, METH_O, NULL},
    {"_alloc_sizes", alloc_sizes, METH_O, NULL},
    {"_record_memory_history", record_memory_history, METH_VARARGS, NULL},
    {"_memory_snapshot", memory_snapshot, METH_O, NULL},
    {"_caching_allocator_alloc", caching_allocator_alloc, METH_VARARGS, NULL},
    {"_caching_allocator_delete", caching_allocator_delete, METH_VARARGS, NULL},
    {"_host_memory_stats", host_memory_stats, METH_VARARGS, NULL},
    {"_sync_debug_mode", sync_debug_mode, METH_VARARGS, NULL},
    {"_mem_pool_route", mem_pool_route, METH_VARARGS, NULL},
    {"_mem_pool_private", mem_pool_private, METH_VARARGS, NULL},
    {"_nvtx_range_push", nvtx_range_push, METH_O, NULL},
    {"_nvtx_range_pop", nvtx_range_pop, METH_NOARGS, NULL},
    {"_nvtx_mark", nvtx_mark, METH_O, NULL},
    {"_nvtx_range_start", nvtx_range_start, METH_O, NULL},
    {"_nvtx_range_end", nvtx_range_end, METH_O, NULL},
    {"_fake_enable", fake_enable, METH_NOARGS, NULL},
    {"_fake_enabled", fake_enabled, METH_NOARGS, NULL},
    {"_fake_counters", fake_counters, METH_NOARGS, NULL},
    {"_fake_reset_pool", fake_reset_pool, METH_O, NULL},
    {"_fake_set_total", fake_set_total, METH_O, NULL},
    {"_fake_stream_finish", fake_stream_finish, METH_O, NULL},
    {"_fake_set_stream", fake_set_stream, METH_O, NULL},
    {"_pool_malloc", pool_malloc, METH_VARARGS, NULL},
    {"_pool_free", pool_free, METH_O, NULL},
    {"_pool_block", pool_block, METH_O, NULL},
    {"_pool_segment_offset", pool_segment_offset, METH_O, NULL},
    {"_fake_vm_control", fake_vm_control, METH_VARARGS, NULL},
    {"_fake_vm_counters", fake_vm_counters, METH_NOARGS, NULL},
    {"_pool_record_stream", pool_record_stream, METH_VARARGS, NULL},
    {"_storage_block", storage_block, METH_O, NULL},
    {"_cpu_memory_stats", cpu_memory_stats, METH_NOARGS, NULL},
    {"_cpu_empty_cache", cpu_empty_cache, METH_NOARGS, NULL},
    {"_host_cache_reset", host_cache_reset, METH_O, NULL},
    {"_cublas_allow_tf32", cublas_allow_tf32, METH_VARARGS, NULL},
    {"_host_cache_alloc", host_cache_alloc, METH_O, NULL},
    {"_host_cache_free", host_cache_free, METH_VARARGS, NULL},
    {"_host_cache_stats", host_cache_stats, METH_NOARGS, NULL},
    {NULL, NULL, 0, NULL},
};

int tl_py_backend_init(PyObject *module)
{
  tl_py_oom_error = PyErr_NewExceptionWithDoc(
      "torchlike.OutOfMemoryError",
      "A device's caching allocator could not satisfy a request, even after releasing its cache.",
      PyExc_RuntimeError, NULL);
  if (!tl_py_oom_error || PyModule_AddObjectRef(module, "OutOfMemoryError", tl_py_oom_error) < 0)
    return -1;
  return PyModule_AddFunctions(module, backend_functions);
}
