/* py_mp.c - the storage-level handles torchlike.multiprocessing needs
 * (torchlike/multiprocessing/reductions.py does the rest in Python).
 *
 *   _share_memory_(t, strategy)   move t's storage into shared memory in place
 *                                 ("file_descriptor" or "file_system")
 *   _is_shared(t)                 is t's storage in shared memory
 *   _shared_handle(t)             ("file_descriptor", fd, nbytes) or
 *                                 ("file_system", name, nbytes) of a shared
 *                                 storage; the fd stays the storage's
 *   _shared_id(t) / _storage_lookup(dev, ino)
 *                                 a segment's identity, and this process's
 *                                 storage over it (None when it has none)
 *   _retain_name(t) / _release_name(name) / _name_refcount(name)
 *                                 a named segment's cross-process count
 *   _storage_from_fd(fd, nbytes)  a 1-d uint8 tensor over a received segment
 *   _storage_from_name(name, nbytes, adopt)
 *   _send_fds(sock, fds, data) / _recv_fds(sock, maxfds, maxbytes)
 *                                 descriptors over a Unix socket (SCM_RIGHTS)
 *   _cuda_ipc_available()
 *   _cuda_ipc_export(t)           (mem, event, offset, nbytes, device) of a CUDA
 *                                 tensor's storage: handles of its allocation
 *   _cuda_ipc_open(mem, event, offset, nbytes, device, holders)
 *                                 uint8 CUDA tensor over received memory; its
 *                                 release takes one off `holders`
 *   _counter_add(t, delta)        atomically add to t's first int64, the new value */
#include <limits.h>
#include <unistd.h>

#include "mp/tl_mp.h"
#include "ndcore/bindings/py_tensor.h"
#include "ndcore/tensor/tl_alloc.h"
#include "ndcore/tensor/tl_backend.h"

static int strategy_kind(const char *name, tl_mp_kind *kind)
{
  if (strcmp(name, "file_descriptor") == 0)
    *kind = TL_MP_FD;
  else if (strcmp(name, "file_system") == 0)
    *kind = TL_MP_FILE_SYSTEM;
  else {
    PyErr_Format(PyExc_ValueError, "unknown sharing strategy '%s' (expected "
                 "'file_descriptor' or 'file_system')", name);
    return -1;
  }
  return 0;
}

/* A 1-d uint8 tensor over all of a storage (takes over its reference). */
static PyObject *bytes_over(tl_storage *s)
{
  tl_tensor out = {.storage = s, .dtype = TL_DTYPE_U8, .ndim = 1};
  out.shape[0] = (int64_t)s->nbytes;
  out.strides[0] = 1;
  return tl_py_tensor_from(&out);
}

static PyObject *py_share_memory(PyObject *self, PyObject *args)
{
  (void)self;
  PyObject *obj;
  const char *strategy;
  tl_mp_kind kind;
  if (!PyArg_ParseTuple(args, "Os:_share_memory_", &obj, &strategy) ||
      strategy_kind(strategy, &kind) < 0)
    return NULL;
  const tl_tensor *t = tl_py_tensor_arg("share_memory_", "tensor", obj);
  if (!t)
    return NULL;
  if (tl_mp_storage_share(t->storage, kind) != TL_OK)
    return tl_py_raise();
  Py_RETURN_NONE;
}

static PyObject *py_is_shared(PyObject *self, PyObject *arg)
{
  (void)self;
  const tl_tensor *t = tl_py_tensor_arg("is_shared", "tensor", arg);
  if (!t)
    return NULL;
  return PyBool_FromLong(tl_mp_storage_kind(t->storage) != TL_MP_NONE);
}

static PyObject *py_shared_handle(PyObject *self, PyObject *arg)
{
  (void)self;
  const tl_tensor *t = tl_py_tensor_arg("_shared_handle", "tensor", arg);
  if (!t)
    return NULL;
  size_t nbytes = t->storage->nbytes;
  switch (tl_mp_storage_kind(t->storage)) {
  case TL_MP_FD:
    return Py_BuildValue("(sin)", "file_descriptor", tl_mp_storage_fd(t->storage),
                         (Py_ssize_t)nbytes);
  case TL_MP_FILE_SYSTEM:
    return Py_BuildValue("(ssn)", "file_system", tl_mp_storage_name(t->storage),
                         (Py_ssize_t)nbytes);
  default:
    PyErr_SetString(PyExc_RuntimeError, "_shared_handle: the storage is not in shared memory");
    return NULL;
  }
}

static PyObject *py_shared_id(PyObject *self, PyObject *arg)
{
  (void)self;
  uint64_t dev, ino;
  const tl_tensor *t = tl_py_tensor_arg("_shared_id", "tensor", arg);
  if (!t)
    return NULL;
  if (tl_mp_storage_id(t->storage, &dev, &ino) != TL_OK)
    return tl_py_raise();
  return Py_BuildValue("(KK)", (unsigned long long)dev, (unsigned long long)ino);
}

static PyObject *py_storage_lookup(PyObject *self, PyObject *args)
{
  (void)self;
  unsigned long long dev, ino;
  if (!PyArg_ParseTuple(args, "KK:_storage_lookup", &dev, &ino))
    return NULL;
  tl_storage *s = tl_mp_storage_lookup(dev, ino);
  if (!s)
    Py_RETURN_NONE;
  return bytes_over(s);
}

static PyObject *py_retain_name(PyObject *self, PyObject *arg)
{
  (void)self;
  const tl_tensor *t = tl_py_tensor_arg("_retain_name", "tensor", arg);
  if (!t)
    return NULL;
  if (tl_mp_storage_retain_name(t->storage) != TL_OK)
    return tl_py_raise();
  Py_RETURN_NONE;
}

static PyObject *py_release_name(PyObject *self, PyObject *arg)
{
  (void)self;
  const char *name = PyUnicode_AsUTF8(arg);
  if (!name)
    return NULL;
  if (tl_mp_name_release(name) != TL_OK)
    return tl_py_raise();
  Py_RETURN_NONE;
}

static PyObject *py_name_refcount(PyObject *self, PyObject *arg)
{
  (void)self;
  const char *name = PyUnicode_AsUTF8(arg);
  long count = 0;
  if (!name)
    return NULL;
  if (tl_mp_name_refcount(name, &count) != TL_OK)
    return tl_py_raise();
  return PyLong_FromLong(count);
}

static PyObject *py_storage_from_fd(PyObject *self, PyObject *args)
{
  (void)self;
  int fd;
  Py_ssize_t nbytes;
  if (!PyArg_ParseTuple(args, "in:_storage_from_fd", &fd, &nbytes))
    return NULL;
  if (nbytes < 0)
    return PyErr_Format(PyExc_ValueError, "_storage_from_fd: negative size %zd", nbytes);
  tl_storage *s = tl_mp_storage_from_fd(fd, (size_t)nbytes);
  return s ? bytes_over(s) : tl_py_raise();
}

static PyObject *py_storage_from_name(PyObject *self, PyObject *args)
{
  (void)self;
  const char *name;
  Py_ssize_t nbytes;
  int adopt;
  if (!PyArg_ParseTuple(args, "snp:_storage_from_name", &name, &nbytes, &adopt))
    return NULL;
  if (nbytes < 0)
    return PyErr_Format(PyExc_ValueError, "_storage_from_name: negative size %zd", nbytes);
  tl_storage *s = tl_mp_storage_from_name(name, (size_t)nbytes, adopt);
  return s ? bytes_over(s) : tl_py_raise();
}

#define TL_PY_MAX_FDS 64

static PyObject *py_send_fds(PyObject *self, PyObject *args)
{
  (void)self;
  int sock;
  PyObject *fd_list;
  Py_buffer data;
  int fds[TL_PY_MAX_FDS];
  PyObject *result = NULL;
  if (!PyArg_ParseTuple(args, "iOy*:_send_fds", &sock, &fd_list, &data))
    return NULL;
  PyObject *seq = PySequence_Fast(fd_list, "_send_fds: fds must be a sequence of ints");
  if (!seq)
    goto done;
  Py_ssize_t n = PySequence_Fast_GET_SIZE(seq);
  if (n > TL_PY_MAX_FDS) {
    PyErr_Format(PyExc_ValueError, "_send_fds: at most %d descriptors, got %zd",
                 TL_PY_MAX_FDS, n);
    goto done;
  }
  for (Py_ssize_t i = 0; i < n; i++) {
    long fd = PyLong_AsLong(PySequence_Fast_GET_ITEM(seq, i));
    if (fd == -1 && PyErr_Occurred())
      goto done;
    if (fd < 0 || fd > INT_MAX) {
      PyErr_Format(PyExc_ValueError, "_send_fds: %ld is not a file descriptor", fd);
      goto done;
    }
    fds[i] = (int)fd;
  }
  tl_status status;
  Py_BEGIN_ALLOW_THREADS
  status = tl_mp_fds_send(sock, fds, (int)n, data.buf, (size_t)data.len);
  Py_END_ALLOW_THREADS
  if (status != TL_OK) {
    tl_py_raise();
    goto done;
  }
  result = Py_NewRef(Py_None);
done:
  Py_XDECREF(seq);
  PyBuffer_Release(&data);
  return result;
}

static PyObject *py_recv_fds(PyObject *self, PyObject *args)
{
  (void)self;
  int sock, maxfds;
  Py_ssize_t maxbytes;
  int fds[TL_PY_MAX_FDS];
  if (!PyArg_ParseTuple(args, "iin:_recv_fds", &sock, &maxfds, &maxbytes))
    return NULL;
  if (maxfds < 0 || maxfds > TL_PY_MAX_FDS || maxbytes < 1)
    return PyErr_Format(PyExc_ValueError, "_recv_fds: 0 to %d descriptors and at least one "
                        "byte", TL_PY_MAX_FDS);
  PyObject *bytes = PyBytes_FromStringAndSize(NULL, maxbytes);
  if (!bytes)
    return NULL;
  int nfds = maxfds;
  size_t len = (size_t)maxbytes;
  tl_status status;
  Py_BEGIN_ALLOW_THREADS
  status = tl_mp_fds_recv(sock, fds, &nfds, PyBytes_AS_STRING(bytes), &len);
  Py_END_ALLOW_THREADS
  if (status != TL_OK) {
    Py_DECREF(bytes);
    return tl_py_raise();
  }
  PyObject *list = PyList_New(nfds);
  if (!list || _PyBytes_Resize(&bytes, (Py_ssize_t)len) < 0)
    goto fail;
  for (int i = 0; i < nfds; i++) {
    PyObject *fd = PyLong_FromLong(fds[i]);
    if (!fd)
      goto fail;
    PyList_SET_ITEM(list, i, fd);
    fds[i] = -1;
  }
  return Py_BuildValue("(NN)", bytes, list);
fail:
  for (int i = 0; i < nfds; i++)
    if (fds[i] >= 0)
      close(fds[i]);
  Py_XDECREF(list);
  Py_XDECREF(bytes);
  return NULL;
}

static PyObject *py_cuda_ipc_available(PyObject *self, PyObject *unused)
{
  (void)self, (void)unused;
  return PyBool_FromLong(tl_mp_cuda_ipc_available());
}

static PyObject *py_cuda_ipc_export(PyObject *self, PyObject *arg)
{
  (void)self;
  const tl_tensor *t = tl_py_tensor_arg("_cuda_ipc_export", "tensor", arg);
  if (!t)
    return NULL;
  tl_storage *s = t->storage;
  const tl_backend *b = tl_backend_get(s->device);
  tl_alloc_pool *pool = b && b->pool ? b->pool(s->device) : NULL;
  if (s->device.type != TL_DEVICE_CUDA || !pool || !s->block)
    return PyErr_Format(PyExc_RuntimeError, "_cuda_ipc_export: the tensor's storage is not a "
                        "block of a CUDA device's caching allocator");
  tl_mp_cuda_handle h;
  void *base = tl_alloc_pool_segment_base(pool, s->block);
  if (!base || tl_mp_cuda_handle_get(base, s->data, s->device.index, &h) != TL_OK)
    return tl_py_raise();
  return Py_BuildValue("(y#y#nni)", (const char *)h.mem, (Py_ssize_t)sizeof h.mem,
                       (const char *)h.event, (Py_ssize_t)sizeof h.event, (Py_ssize_t)h.offset,
                       (Py_ssize_t)s->nbytes, s->device.index);
}

/* The int64 counter at the start of a CPU tensor's data (a shared one). */
static int64_t *counter_of(const char *fn, PyObject *obj, tl_storage **storage)
{
  const tl_tensor *t = tl_py_tensor_arg(fn, "counter", obj);
  if (!t)
    return NULL;
  if (t->dtype != TL_DTYPE_I64 || tl_tensor_numel(t) < 1 ||
      t->storage->device.type != TL_DEVICE_CPU) {
    PyErr_Format(PyExc_TypeError, "%s: the counter must be a CPU int64 tensor", fn);
    return NULL;
  }
  *storage = t->storage;
  return tl_tensor_data(t);
}

static PyObject *py_cuda_ipc_open(PyObject *self, PyObject *args)
{
  (void)self;
  const char *mem, *event;
  Py_ssize_t nmem, nevent, offset, nbytes;
  int device;
  PyObject *holders_obj;
  tl_mp_cuda_handle h;
  tl_storage *holders_storage;
  if (!PyArg_ParseTuple(args, "y#y#nniO:_cuda_ipc_open", &mem, &nmem, &event, &nevent, &offset,
                        &nbytes, &device, &holders_obj))
    return NULL;
  if (nmem != (Py_ssize_t)sizeof h.mem || nevent != (Py_ssize_t)sizeof h.event || offset < 0 ||
      nbytes < 0)
    return PyErr_Format(PyExc_ValueError, "_cuda_ipc_open: malformed CUDA IPC handle");
  int64_t *holders = counter_of("_cuda_ipc_open", holders_obj, &holders_storage);
  if (!holders)
    return NULL;
  memcpy(h.mem, mem, sizeof h.mem);
  memcpy(h.event, event, sizeof h.event);
  h.offset = (size_t)offset;
  tl_storage *s = tl_mp_cuda_storage_open(&h, device, (size_t)nbytes, holders_storage, holders);
  return s ? bytes_over(s) : tl_py_raise();
}

static PyObject *py_counter_add(PyObject *self, PyObject *args)
{
  (void)self;
  PyObject *obj;
  long long delta;
  tl_storage *storage;
  if (!PyArg_ParseTuple(args, "OL:_counter_add", &obj, &delta))
    return NULL;
  int64_t *counter = counter_of("_counter_add", obj, &storage);
  return counter ? PyLong_FromLongLong(__atomic_add_fetch(counter, delta, __ATOMIC_ACQ_REL))
                 : NULL;
}

PyMethodDef tl_py_mp_functions[] = {
    {"_share_memory_", py_share_memory, METH_VARARGS,
     "_share_memory_(t, strategy): move t's storage into shared memory in place"},
    {"_is_shared", py_is_shared, METH_O, "_is_shared(t): is t's storage in shared memory"},
    {"_shared_handle", py_shared_handle, METH_O,
     "_shared_handle(t): (strategy, fd or name, nbytes) of a shared storage"},
    {"_shared_id", py_shared_id, METH_O,
     "_shared_id(t): (dev, inode) naming the segment under a shared storage"},
    {"_storage_lookup", py_storage_lookup, METH_VARARGS,
     "_storage_lookup(dev, inode): uint8 tensor over this process's storage of that segment, "
     "or None"},
    {"_retain_name", py_retain_name, METH_O,
     "_retain_name(t): one more count on t's named segment (a handle in flight)"},
    {"_release_name", py_release_name, METH_O,
     "_release_name(name): drop a count nobody will adopt"},
    {"_name_refcount", py_name_refcount, METH_O,
     "_name_refcount(name): a named segment's cross-process count"},
    {"_storage_from_fd", py_storage_from_fd, METH_VARARGS,
     "_storage_from_fd(fd, nbytes): uint8 tensor over a shared segment (fd stays ours)"},
    {"_storage_from_name", py_storage_from_name, METH_VARARGS,
     "_storage_from_name(name, nbytes, adopt): uint8 tensor over a named segment"},
    {"_send_fds", py_send_fds, METH_VARARGS,
     "_send_fds(sock, fds, data): send descriptors and bytes over a Unix socket"},
    {"_recv_fds", py_recv_fds, METH_VARARGS,
     "_recv_fds(sock, maxfds, maxbytes): (data, fds) from a Unix socket"},
    {"_cuda_ipc_available", py_cuda_ipc_available, METH_NOARGS,
     "_cuda_ipc_available(): can CUDA memory cross processes here"},
    {"_cuda_ipc_export", py_cuda_ipc_export, METH_O,
     "_cuda_ipc_export(t): (mem, event, offset, nbytes, device) handles of a CUDA storage"},
    {"_cuda_ipc_open", py_cuda_ipc_open, METH_VARARGS,
     "_cuda_ipc_open(mem, event, offset, nbytes, device, holders): uint8 CUDA tensor over "
     "received memory"},
    {"_counter_add", py_counter_add, METH_VARARGS,
     "_counter_add(t, delta): atomically add delta to t's first int64; the new value"},
    {NULL, NULL, 0, NULL},
};
