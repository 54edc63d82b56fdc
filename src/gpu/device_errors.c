/* device_errors.c - the per-device error record of kernels and its check at
 * synchronization points (tl_device_errors.h).
 *
 * Per device: the record (allocated once, never freed: it lives as long as
 * the process's use of the device) and, per stream, `armed`: a count of the
 * recording launches queued on that stream since its last clean check.
 *
 * The rule for clearing (the reason the counts are per stream): a check
 * may read and clear the record, and take back the counts it saw, only for
 * streams whose queued work has finished.  After a whole-device wait that
 * is every stream.  After a wait for one stream (a copy to the host on it)
 * it is that stream, plus any other armed stream the device reports idle;
 * while some other armed stream may still have a recording kernel queued,
 * the check leaves the record alone, and only moves the waited stream's
 * count to `settled` (finished, but the record still to be read), so that
 * this stream no longer holds back a later wait for the busy one.  One device-wide
 * count cleared by a one-stream wait lost errors: a kernel still queued on
 * another (non-blocking) stream recorded into a record no check would read
 * until some later launch armed the device again.  Leaving the record
 * alone also keeps a check from reading or clearing it while a kernel on a
 * busy stream is writing it.  So an error is never dropped; at worst it is
 * raised later, at the wait for its stream or for the device.
 *
 * A check takes back the counts it saw (not zero), so launches queued while
 * it reads keep their stream armed; checks are serialised (check_lock).  A
 * stream destroyed with armed launches gives them to `retired`, which only a
 * whole-device check takes back. */
#include "gpu/tl_device_errors.h"
#include "gpu/tl_gpu.h"
#include "ndcore/tensor/tl_backend.h"

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#ifdef TL_WITH_CUDA
#include <cuda_runtime_api.h>
#endif

#define MAX_DEVICES 64
#define MAX_OPS 64
#define MAX_STREAMS 32 /* armed streams tracked apart per device; more share `retired` */

typedef struct {
  tl_stream stream;
  int64_t armed; /* 0: the slot is free */
} stream_count;

typedef struct {
  tl_device_error *word;
  stream_count streams[MAX_STREAMS];
  int64_t retired; /* launches of destroyed streams, or past MAX_STREAMS */
  int64_t settled; /* finished launches whose record a check could not read yet */
} device_state;

static device_state states[TL_DEVICE_COUNT][MAX_DEVICES];
static tl_device_error fake_words[MAX_DEVICES]; /* the fake device's memory is the host's */
static const char *op_names[MAX_OPS];
static int op_count;
static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;       /* op names, words, counts */
static pthread_mutex_t check_lock = PTHREAD_MUTEX_INITIALIZER; /* one check at a time */
static _Thread_local const char *current_op;
static _Thread_local bool at_the_op; /* a launch-blocking op's own wait (raise_recorded) */

int tl_device_errors_op(const char *name)
{
  int id = -1;
  pthread_mutex_lock(&lock);
  for (int i = 0; i < op_count && id < 0; i++)
    if (op_names[i] == name || !strcmp(op_names[i], name))
      id = i;
  if (id < 0 && op_count < MAX_OPS) {
    op_names[op_count] = name;
    id = op_count++;
  }
  pthread_mutex_unlock(&lock);
  return id;
}

const char *tl_device_errors_enter(const char *op)
{
  const char *previous = current_op;
  if (!previous)
    current_op = op;
  return previous;
}

/* CUDA_LAUNCH_BLOCKING=1, the switch PyTorch users debug device errors
 * with, read once as the CUDA runtime reads it. */
static bool launch_blocking(void)
{
  static int cached = -1; /* a benign race: every thread reads the same value */
  if (cached < 0) {
    const char *env = getenv("CUDA_LAUNCH_BLOCKING");
    cached = env && env[0] == '1';
  }
  return cached;
}

tl_status tl_device_errors_leave(const char *previous, tl_device device, tl_status status)
{
  current_op = previous;
  if (status != TL_OK || previous || device.type == TL_DEVICE_CPU || !launch_blocking())
    return status;
  const tl_backend *b = tl_backend_get(device);
  if (!b)
    return tl_error_status();
  at_the_op = true;
  status = b->synchronize(device);
  at_the_op = false;
  return status;
}

const char *tl_device_errors_current(void) { return current_op ? current_op : "a kernel"; }

static tl_status state_of(tl_device device, device_state **out)
{
  if (device.type == TL_DEVICE_CPU || device.index < 0 || device.index >= MAX_DEVICES)
    return tl_error_set(TL_ERR_RUNTIME, "no device error record for device type %d index %d",
                        (int)device.type, device.index);
  *out = &states[device.type][device.index];
  return TL_OK;
}

/* The record's memory on its device, zeroed: a plain host record for the fake device. */
static tl_status word_new(tl_device device, tl_device_error **word)
{
  if (device.type == TL_DEVICE_FAKE) {
    *word = &fake_words[device.index];
    return TL_OK;
  }
#ifdef TL_WITH_CUDA
  if (device.type == TL_DEVICE_CUDA) {
    void *p = NULL;
    int prev;
    if (tl_gpu_device_guard_enter(device.index, &prev) != TL_OK)
      return tl_error_status();
    cudaError_t err = cudaMalloc(&p, sizeof(tl_device_error));
    /* cudaMemset of device memory returns before it is done, on the legacy
     * stream, which torchlike's (non-blocking) streams do not wait for:
     * wait here, or a first recording kernel could race the zeroing. */
    if (err == cudaSuccess)
      err = cudaMemset(p, 0, sizeof(tl_device_error));
    if (err == cudaSuccess)
      err = cudaStreamSynchronize(cudaStreamLegacy);
    if (err != cudaSuccess && p)
      cudaFree(p);
    tl_gpu_device_guard_leave(device.index, prev);
    if (err != cudaSuccess)
      return tl_error_set(TL_ERR_RUNTIME, "CUDA error while making the device error record: %s",
                          cudaGetErrorString(err));
    *word = p;
    return TL_OK;
  }
#endif
  return tl_error_set(TL_ERR_RUNTIME, "device type %d keeps no error record", (int)device.type);
}

/* Under `lock`: one more armed launch on `stream`, in its slot (or a free
 * one, or `retired` when every slot holds another armed stream). */
static void arm(device_state *s, tl_stream stream)
{
  stream_count *free_slot = NULL;
  for (int i = 0; i < MAX_STREAMS; i++) {
    if (s->streams[i].armed > 0 && s->streams[i].stream == stream) {
      s->streams[i].armed++;
      return;
    }
    if (s->streams[i].armed == 0 && !free_slot)
      free_slot = &s->streams[i];
  }
  if (free_slot)
    *free_slot = (stream_count){.stream = stream, .armed = 1};
  else
    s->retired++;
}

tl_status tl_device_errors_word(tl_device device, tl_stream stream, tl_device_error **word)
{
  device_state *s = NULL;
  if (state_of(device, &s) != TL_OK)
    return tl_error_status();
  pthread_mutex_lock(&lock);
  tl_status status = s->word ? TL_OK : word_new(device, &s->word);
  if (status == TL_OK) {
    arm(s, stream);
    *word = s->word;
  }
  pthread_mutex_unlock(&lock);
  return status;
}

void tl_device_errors_stream_retire(tl_device device, tl_stream stream)
{
  device_state *s = NULL;
  if (state_of(device, &s) != TL_OK) {
    tl_error_clear();
    return;
  }
  pthread_mutex_lock(&lock);
  for (int i = 0; i < MAX_STREAMS; i++)
    if (s->streams[i].armed > 0 && s->streams[i].stream == stream) {
      s->retired += s->streams[i].armed;
      s->streams[i].armed = 0;
    }
  pthread_mutex_unlock(&lock);
}

void tl_device_errors_record(tl_device_error *word, int op, int dim, int64_t value, int64_t size,
                             tl_status status, tl_device_error_kind kind)
{
  int32_t clear = 0;
  if (!__atomic_compare_exchange_n(&word->flag, &clear, 1, false, __ATOMIC_ACQ_REL,
                                   __ATOMIC_ACQUIRE))
    return; /* an earlier record wins */
  word->op = op;
  word->dim = dim;
  word->value = value;
  word->size = size;
  word->status = (int32_t)status;
  word->kind = (int32_t)kind;
}

/* Copy the record to the host and clear it on the device when it is set. */
static tl_status word_take(tl_device device, tl_device_error *word, tl_device_error *out)
{
  static const tl_device_error zero;
  if (device.type == TL_DEVICE_FAKE) {
    *out = *word;
    if (out->flag)
      *word = zero;
    return TL_OK;
  }
#ifdef TL_WITH_CUDA
  /* The caller has waited for the device; these synchronous copies go on
   * the legacy stream, after the kernels that recorded. */
  int prev;
  if (tl_gpu_device_guard_enter(device.index, &prev) != TL_OK)
    return tl_error_status();
  cudaError_t err = cudaMemcpy(out, word, sizeof *out, cudaMemcpyDeviceToHost);
  /* A pageable host-to-device cudaMemcpy may return before its bytes land:
   * wait, so that no later kernel's record is wiped by this clearing. */
  if (err == cudaSuccess && out->flag)
    err = cudaMemcpy(word, &zero, sizeof zero, cudaMemcpyHostToDevice);
  if (err == cudaSuccess && out->flag)
    err = cudaStreamSynchronize(cudaStreamLegacy);
  tl_gpu_device_guard_leave(device.index, prev);
  if (err != cudaSuccess)
    return tl_error_set(TL_ERR_RUNTIME, "CUDA error while reading the device error record: %s",
                        cudaGetErrorString(err));
  return TL_OK;
#else
  (void)word;
  (void)out;
  return tl_error_set(TL_ERR_RUNTIME, "device type %d keeps no error record", (int)device.type);
#endif
}

/* Has every launch queued on `stream` of `device` finished?  Asked of the
 * other armed streams after a one-stream wait; the fake device runs its
 * kernels at once but says no, so that its tests see the CUDA rule. */
static bool stream_idle(tl_device device, tl_stream stream)
{
#ifdef TL_WITH_CUDA
  if (device.type == TL_DEVICE_CUDA) {
    int prev;
    if (tl_gpu_device_guard_enter(device.index, &prev) != TL_OK) {
      tl_error_clear(); /* busy, as far as this wait can tell */
      return false;
    }
    cudaError_t err = cudaStreamQuery((cudaStream_t)stream);
    if (err != cudaSuccess)
      cudaGetLastError(); /* not ready (or gone): busy, and the error not left behind */
    tl_gpu_device_guard_leave(device.index, prev);
    return err == cudaSuccess;
  }
#endif
  (void)device;
  (void)stream;
  return false;
}

/* The message of a recorded error: the CPU's words for the op's bad value,
 * then (where those words do not say them) the value and the size, and the
 * op and the device.  Raised at the op itself (CUDA_LAUNCH_BLOCKING=1,
 * tl_device_errors_leave), an nn op's error is the CPU's words alone, as the
 * CPU raises it at the call; the index ops' keep the op's name there too. */
static tl_status raise_recorded(tl_device device, const tl_device_error *e)
{
  char where[32], words[160], extra[96] = "";
  const char *op = e->op >= 0 && e->op < op_count ? op_names[e->op] : "a kernel";
  long long v = (long long)e->value, n = (long long)e->size;
  tl_status kind = e->status != TL_OK ? (tl_status)e->status : TL_ERR_INDEX;
  tl_device_error_kind wording = (tl_device_error_kind)e->kind;
  switch (wording) {
  case TL_DEVICE_ERROR_EMBEDDING:
    snprintf(words, sizeof words, "index out of range in self");
    snprintf(extra, sizeof extra, " (index %lld, %lld rows)", v, n);
    break;
  case TL_DEVICE_ERROR_BAG: /* dim: the index's position (-1: past int32) */
    if (e->dim >= 0)
      snprintf(words, sizeof words, "Index %d of input takes value %lld which is not in the "
               "valid range [0, %lld)", (int)e->dim, v, n);
    else
      snprintf(words, sizeof words, "An index of input takes value %lld which is not in the "
               "valid range [0, %lld)", v, n);
    break;
  case TL_DEVICE_ERROR_BAG_MAX:
    snprintf(words, sizeof words, "embedding_bag: Expected idx >= 0 && idx < num_embeddings but "
             "found idx to be %lld", v);
    break;
  case TL_DEVICE_ERROR_TARGET:
    snprintf(words, sizeof words, "Target %lld is out of bounds.", v);
    break;
  case TL_DEVICE_ERROR_MARGIN:
    snprintf(words, sizeof words, "target out of range");
    snprintf(extra, sizeof extra, " (target %lld, %lld classes)", v, n);
    break;
  case TL_DEVICE_ERROR_MULTILABEL:
    snprintf(words, sizeof words, "argument #2 'target' is out of range");
    snprintf(extra, sizeof extra, " (target %lld, %lld classes)", v, n);
    break;
  case TL_DEVICE_ERROR_POOL: { /* dim: how many extents; PyTorch's 1-d unpooling shows "x1" */
    int at = snprintf(words, sizeof words, "Found an invalid max index: %lld (output volumes are "
                      "of size ", v);
    for (int d = 0; d < e->dim && d < 3 && at < (int)sizeof words; d++)
      at += snprintf(words + at, sizeof words - (size_t)at, d ? "x%lld" : "%lld",
                     (long long)e->extent[d]);
    if (at < (int)sizeof words)
      snprintf(words + at, sizeof words - (size_t)at, "%s)", e->dim == 1 ? "x1" : "");
    break;
  }
  default:
    wording = TL_DEVICE_ERROR_BOUNDS;
    snprintf(words, sizeof words, "index %lld is out of bounds for dimension %d with size %lld",
             v, (int)e->dim, n);
  }
  if (at_the_op && wording != TL_DEVICE_ERROR_BOUNDS)
    return tl_error_set(kind, "%s", words);
  return tl_error_set(kind, "%s%s (found by %s on %s; device errors are raised at the next "
                      "synchronization)", words, extra, op,
                      tl_device_str(where, sizeof where, device));
}

/* The check after a wait for `waited` (every stream when whole). */
static tl_status check(tl_device device, bool whole, tl_stream waited)
{
  if (device.type == TL_DEVICE_CPU || device.index < 0 || device.index >= MAX_DEVICES)
    return TL_OK;
  device_state *s = &states[device.type][device.index];
  stream_count seen[MAX_STREAMS];
  int64_t retired, settled;
  bool any = false;
  pthread_mutex_lock(&check_lock);
  pthread_mutex_lock(&lock);
  memcpy(seen, s->streams, sizeof seen);
  retired = s->retired;
  settled = s->settled;
  pthread_mutex_unlock(&lock);
  for (int i = 0; i < MAX_STREAMS; i++)
    any |= seen[i].armed > 0;
  if (!any && settled == 0 && (!whole || retired == 0)) {
    pthread_mutex_unlock(&check_lock);
    return TL_OK;
  }
  /* A one-stream wait reads the record only when every other armed stream is idle. */
  bool readable = whole || retired == 0;
  for (int i = 0; i < MAX_STREAMS && readable; i++)
    if (seen[i].armed > 0 && seen[i].stream != waited)
      readable = stream_idle(device, seen[i].stream);
  if (!readable) {
    /* The waited stream's launches are done: they stop holding the record
     * back (settled), so that a later wait for the busy stream reads it. */
    pthread_mutex_lock(&lock);
    for (int i = 0; i < MAX_STREAMS; i++)
      if (seen[i].armed > 0 && seen[i].stream == waited && s->streams[i].stream == waited) {
        int64_t k = seen[i].armed < s->streams[i].armed ? seen[i].armed : s->streams[i].armed;
        s->streams[i].armed -= k;
        s->settled += k;
      }
    pthread_mutex_unlock(&lock);
    pthread_mutex_unlock(&check_lock);
    return TL_OK;
  }
  tl_device_error e = {0}; /* word_take fills it, or fails */
  if (word_take(device, s->word, &e) != TL_OK) {
    pthread_mutex_unlock(&check_lock);
    return tl_error_status();
  }
  /* Take back what was seen; launches queued since keep their stream armed. */
  pthread_mutex_lock(&lock);
  for (int i = 0; i < MAX_STREAMS; i++)
    if (seen[i].armed > 0 && s->streams[i].stream == seen[i].stream)
      s->streams[i].armed -= seen[i].armed < s->streams[i].armed ? seen[i].armed
                                                                  : s->streams[i].armed;
  s->settled -= settled;
  if (whole)
    s->retired -= retired;
  pthread_mutex_unlock(&lock);
  pthread_mutex_unlock(&check_lock);
  return e.flag ? raise_recorded(device, &e) : TL_OK;
}

tl_status tl_device_errors_check(tl_device device) { return check(device, true, NULL); }

tl_status tl_device_errors_check_stream(tl_device device, tl_stream stream)
{
  return check(device, false, stream);
}
