/* device_errors.c - the per-device error record of kernels and its check at
 * synchronization points (tl_device_errors.h).
 *
 * Per device: the record (allocated once, never freed: it lives as long as
 * the process's use of the device) and `armed`, a count of recording
 * launches since the last clean check.  A check reads `armed` first and
 * clears it only if no launch came in between, so a kernel queued by
 * another thread while we read keeps the next check armed.             */
#include "gpu/tl_device_errors.h"
#include "ndcore/tensor/tl_backend.h"

#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#ifdef TL_WITH_CUDA
#include <cuda_runtime_api.h>
#endif

#define MAX_DEVICES 64
#define MAX_OPS 64

typedef struct {
  tl_device_error *word;
  int64_t armed;
} device_state;

static device_state states[TL_DEVICE_COUNT][MAX_DEVICES];
static tl_device_error fake_words[MAX_DEVICES]; /* the fake device's memory is the host's */
static const char *op_names[MAX_OPS];
static int op_count;
static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static _Thread_local const char *current_op;

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
  return b ? b->synchronize(device) : tl_error_status();
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
    cudaError_t err = cudaSetDevice(device.index);
    if (err == cudaSuccess)
      err = cudaMalloc(&p, sizeof(tl_device_error));
    /* cudaMemset of device memory returns before it is done, on the legacy
     * stream, which torchlike's (non-blocking) streams do not wait for:
     * wait here, or a first recording kernel could race the zeroing. */
    if (err == cudaSuccess)
      err = cudaMemset(p, 0, sizeof(tl_device_error));
    if (err == cudaSuccess)
      err = cudaStreamSynchronize(cudaStreamLegacy);
    if (err != cudaSuccess) {
      if (p)
        cudaFree(p);
      return tl_error_set(TL_ERR_RUNTIME, "CUDA error while making the device error record: %s",
                          cudaGetErrorString(err));
    }
    *word = p;
    return TL_OK;
  }
#endif
  return tl_error_set(TL_ERR_RUNTIME, "device type %d keeps no error record", (int)device.type);
}

tl_status tl_device_errors_word(tl_device device, tl_device_error **word)
{
  device_state *s = NULL;
  if (state_of(device, &s) != TL_OK)
    return tl_error_status();
  pthread_mutex_lock(&lock);
  tl_status status = s->word ? TL_OK : word_new(device, &s->word);
  pthread_mutex_unlock(&lock);
  if (status != TL_OK)
    return status;
  __atomic_add_fetch(&s->armed, 1, __ATOMIC_ACQ_REL);
  *word = s->word;
  return TL_OK;
}

void tl_device_errors_record(tl_device_error *word, int op, int dim, int64_t value, int64_t size,
                             tl_status status)
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
  cudaError_t err = cudaSetDevice(device.index);
  if (err == cudaSuccess)
    err = cudaMemcpy(out, word, sizeof *out, cudaMemcpyDeviceToHost);
  /* A pageable host-to-device cudaMemcpy may return before its bytes land:
   * wait, so that no later kernel's record is wiped by this clearing. */
  if (err == cudaSuccess && out->flag)
    err = cudaMemcpy(word, &zero, sizeof zero, cudaMemcpyHostToDevice);
  if (err == cudaSuccess && out->flag)
    err = cudaStreamSynchronize(cudaStreamLegacy);
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

tl_status tl_device_errors_check(tl_device device)
{
  if (device.type == TL_DEVICE_CPU || device.index < 0 || device.index >= MAX_DEVICES)
    return TL_OK;
  device_state *s = &states[device.type][device.index];
  int64_t armed = __atomic_load_n(&s->armed, __ATOMIC_ACQUIRE);
  if (armed == 0)
    return TL_OK;
  tl_device_error e = {0}; /* word_take fills it, or fails */
  if (word_take(device, s->word, &e) != TL_OK)
    return tl_error_status();
  /* Disarm only if no launch came in since we read `armed`. */
  __atomic_compare_exchange_n(&s->armed, &armed, 0, false, __ATOMIC_ACQ_REL, __ATOMIC_ACQUIRE);
  if (!e.flag)
    return TL_OK;
  char where[32];
  const char *op = e.op >= 0 && e.op < op_count ? op_names[e.op] : "a kernel";
  tl_status kind = e.status != TL_OK ? (tl_status)e.status : TL_ERR_INDEX;
  return tl_error_set(kind, "index %lld is out of bounds for dimension %d with size "
                      "%lld (found by %s on %s; device errors are raised at the next "
                      "synchronization)", (long long)e.value, (int)e.dim, (long long)e.size, op,
                      tl_device_str(where, sizeof where, device));
}
